/* gradfn_driver: for each case name given on the command line (tests/gradfn_cases.h), prints
 * "<case>\t<suffix>", the grad_fn=<...> (or requires_grad=True, or "-" when none) that
 * ct_tensor_to_string ends the case's result with, or "<case>\tERR <status>". Developer tool for
 * scripts/torchdiff/gradfn_names.py; not built by CMake (the cases run in test_autograd). */
#include "../../tests/gradfn_cases.h"

int main(int argc, char **argv) {
    ct_ctx *ctx = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    for (int i = 1; i < argc; i++) {
        ct_status st = CT_OK;
        ct_tensor *r = gf_run(ctx, argv[i], &st);
        char buf[256];
        if (r) st = gf_suffix(r, buf, sizeof buf);
        if (!r || st != CT_OK)
            printf("%s\tERR %s\n", argv[i], ct_status_str(st));
        else
            printf("%s\t%s\n", argv[i], buf);
        ct_tensor_release(r);
        gf_release_pool();
    }
    fflush(stdout);
    ct_ctx_free(ctx);
    return 0;
}

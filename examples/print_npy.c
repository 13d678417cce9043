/* Print tensors as torch prints them (and with torch.set_printoptions' options), save one as
 * .npy, load it back, and wrap caller memory without a copy (ct_tensor_from_blob). Run by the
 * tests (exit 0 when the round trip holds). */
#include <ctorch/ctorch.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void release_buffer(void *data, void *user) {
    (void)user;
    free(data);
}

int main(void) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *x = NULL, *e = NULL, *y = NULL, *w = NULL;
    ct_tensor_linspace(ctx, CT_FLOAT32, -1, 1, 6, &x);
    ct_tensor_print(stdout, x); /* tensor([-1.0000, -0.6000, -0.2000,  0.2000,  0.6000,  1.0000]) */
    ct_tensor_eye(ctx, CT_INT32, 2, 3, &e);
    ct_tensor_print(stdout, e); /* tensor([[1, 0, 0],\n        [0, 1, 0]], dtype=torch.int32) */

    /* torch.set_printoptions(precision=2, sci_mode=True), then profile "short", then back */
    ct_print_options po = ct_print_options_default();
    po.precision = 2, po.sci_mode = 1;
    int ok = ct_set_print_options(ctx, &po) == CT_OK;
    ct_tensor_print(stdout, x); /* tensor([-1.00e+00, -6.00e-01, -2.00e-01,  2.00e-01, ...]) */
    ok = ok && ct_print_options_profile("short", &po) == CT_OK &&
         ct_set_print_options(ctx, &po) == CT_OK;
    ct_tensor_print(stdout, x); /* tensor([-1.00, -0.60, -0.20,  0.20,  0.60,  1.00]) */
    ok = ok && ct_set_print_options(ctx, NULL) == CT_OK && ct_get_print_options(ctx).precision == 4;

    char path[64];
    snprintf(path, sizeof path, "/tmp/ctorch_example_%d.npy", (int)getpid());
    ok = ok && ct_npy_save(ctx, x, path) == CT_OK && ct_npy_load(ctx, path, &y) == CT_OK;
    remove(path);
    if (ok)
        ct_tensor_print(stdout, y);
    else
        printf("npy: %s\n", ct_ctx_last_error(ctx));

    /* zero copy: the tensor reads and writes `mem`; release_buffer runs when the last view goes */
    float *mem = malloc(4 * sizeof(float));
    for (int i = 0; i < 4; i++)
        mem[i] = (float)i;
    int64_t shape[2] = {2, 2};
    if (ct_tensor_from_blob(ctx, mem, CT_FLOAT32, 2, shape, NULL, release_buffer, NULL, &w) ==
        CT_OK) {
        ct_mul_scalar_(ctx, w, 10.0);
        ct_tensor_print(stdout, w); /* tensor([[ 0., 10.],\n        [20., 30.]]) */
        ok = ok && mem[3] == 30.0f;
    } else {
        free(mem);
        ok = 0;
    }
    ct_tensor_release(x), ct_tensor_release(e), ct_tensor_release(y), ct_tensor_release(w);
    ct_ctx_free(ctx);
    return ok ? 0 : 1;
}

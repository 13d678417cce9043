/* Choosing the kernel ISA: which ISAs this CPU has, forcing one per context, and reading why a
 * context could not be made (ct_ctx_create_ex). Try it as a lesser CPU: CT_CPU_ISA_MAX=avx2. */
#include <ctorch/ctorch.h>
#include <stdio.h>

int main(void) {
    printf("best ISA on this CPU: %s\n", ct_cpu_best_isa());
    const char *isas[] = {"ref", "avx2", "AVX512"}; /* names are case-insensitive */
    for (int i = 0; i < 3; i++) {
        ct_ctx_options o = {.size = sizeof o, .cpu_isa = isas[i], .num_threads = 1};
        ct_ctx *ctx;
        char why[256];
        ct_status st = ct_ctx_create_ex(&o, &ctx, why, sizeof why);
        if (st == CT_OK) {
            printf("%-6s -> context runs %s kernels\n", isas[i], ct_ctx_cpu_isa(ctx));
            ct_ctx_free(ctx);
        } else if (st == CT_ERR_UNSUPPORTED && !ct_cpu_isa_supported(isas[i])) {
            printf("%-6s -> %s: %s\n", isas[i], ct_status_str(st), why);
        } else {
            printf("%-6s -> unexpected %s: %s\n", isas[i], ct_status_str(st), why);
            return 1;
        }
    }
    return 0;
}

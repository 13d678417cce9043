/* The smallest embedded deployment: a program linked with libctorch_rt only (no libctorch, BLAS
 * or OpenMP) that loads a .ctp file into memory, binds its inputs to constant data, runs it once
 * in a static arena and prints the first output's first values, with the runtime's small kernel
 * set (ct_rt_kernels_mlp: the ops of an MLP). Its .text size is what `bench export rt_size`
 * reports. Built again as rt_full with every kernel (CT_RT_FULL). Usage: rt_minimal prog.ctp */
#include "ctorch/runtime.h"

#include <stdio.h>
#include <stdlib.h>

static _Alignas(64) unsigned char arena[1 << 20];
static _Alignas(64) float input[1 << 16];

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s prog.ctp\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = aligned_alloc(64, ((size_t)n + 63) / 64 * 64);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    char err[256];
    ct_rt_program *p = NULL;
#ifdef CT_RT_FULL /* every op the runtime runs (the rt_full build) */
    const ct_rt_kernels *kern = ct_rt_kernels_all();
#else /* the small kernel set: matmul, elementwise arithmetic and activations, softmax */
    const ct_rt_kernels *kern = ct_rt_kernels_mlp();
#endif
    if (ct_rt_load_with(kern, buf, (size_t)n, &p, err, sizeof err) != CT_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int i = 0; i < (1 << 16); i++)
        input[i] = (float)(i % 7) * 0.25f - 0.5f;
    for (int i = 0; i < ct_rt_num_inputs(p); i++) { /* every input at its smallest size */
        int64_t shape[8];
        for (int d = 0; d < ct_rt_input_ndim(p, i) && d < 8; d++) {
            int64_t lo, hi;
            ct_rt_input_range(p, i, d, &lo, &hi);
            shape[d] = lo;
        }
        ct_rt_set_input(p, i, input, shape);
    }
    if (ct_rt_arena_size(p) > sizeof arena || ct_rt_run(p, arena, sizeof arena) != CT_OK) {
        fprintf(stderr, "run: %s\n", ct_rt_last_error(p));
        return 1;
    }
    const void *d;
    ct_dtype dt;
    int nd;
    const int64_t *shape, *strides;
    ct_rt_output(p, 0, &d, &dt, &nd, &shape, &strides);
    printf("%s:", ct_rt_output_name(p, 0));
    for (int i = 0; i < 4 && dt == CT_FLOAT32 && nd > 0 && i < shape[nd - 1]; i++)
        printf(" %g", ((const float *)d)[i * strides[nd - 1]]);
    printf("\n");
    ct_rt_free(p);
    free(buf);
    return 0;
}

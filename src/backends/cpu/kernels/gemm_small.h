/* f32 matrix product for small problems, AVX-512 (kernels/avx512/gemm_small.c). */
#ifndef CTORCH_CPU_KERNELS_GEMM_SMALL_H
#define CTORCH_CPU_KERNELS_GEMM_SMALL_H

#include <stdint.h>

/* C[M, N] = A[M, K] @ B[K, N]: A[i][k] = a[i * ars + k * acs], B[k][j] = b[k * bks + j * bns],
 * C row-major with row stride ldc (written, not accumulated into). Only where the CPU has
 * AVX-512F; each C element sums its K products in order in f32 with FMA, in blocks of 256 k. */
void ct_k_avx512_sgemm_small(int64_t M, int64_t N, int64_t K, const float *a, int64_t ars,
                             int64_t acs, const float *b, int64_t bks, int64_t bns, float *c,
                             int64_t ldc);

#endif

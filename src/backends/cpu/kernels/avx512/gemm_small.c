/* f32 matrix product for small problems on AVX-512 (the CPU backend's matmul below
 * CT__BLAS_SMALL_MACS, see backend.c): C = A @ B with A, B given by element strides (so either may
 * be a transposed view), B packed into panels of 32 columns x up to 256 rows, and a register tile
 * of 8 rows x 32 columns (16 accumulators, one FMA chain each, k in order). Written for the
 * machines where the system's OpenBLAS predates the CPU and runs its AVX2 kernels (Debian 12's
 * 0.3.21 on Zen 4 / Zen 5): ~2x its speed on 64x64x128 (bench ops matmul_small). */
#include "backends/cpu/kernels/gemm_small.h"

#include <immintrin.h>
#include <string.h>

enum { MR = 8, NR = 32, KC = 256 }; /* the B panel (32 KB) lives on the stack */

/* In-register transpose: r[i][k] -> r[k][i] (16 x 16 f32: 32-bit, then 64-bit interleaves
 * within 128-bit lanes, then two rounds of 128-bit lane shuffles). */
static inline void ct_k_gemm_tr16(__m512 r[16]) {
    __m512 t[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) { /* r[4i + j], lane L: rows 4i..4i+3 at k = 4L + j */
        const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 2]),
                      c = _mm512_castps_pd(t[4 * i + 1]), d = _mm512_castps_pd(t[4 * i + 3]);
        r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
        r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
        r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
    }
    for (int j = 0; j < 4; j++) {
        const __m512 a = _mm512_shuffle_f32x4(r[j], r[4 + j], 0x88),
                     b = _mm512_shuffle_f32x4(r[j], r[4 + j], 0xDD),
                     c = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0x88),
                     d = _mm512_shuffle_f32x4(r[8 + j], r[12 + j], 0xDD);
        t[j] = _mm512_shuffle_f32x4(a, c, 0x88);
        t[8 + j] = _mm512_shuffle_f32x4(a, c, 0xDD);
        t[4 + j] = _mm512_shuffle_f32x4(b, d, 0x88);
        t[12 + j] = _mm512_shuffle_f32x4(b, d, 0xDD);
    }
    for (int i = 0; i < 16; i++)
        r[i] = t[i];
}

/* bp[k][jj] = B[k0 + k][j0 + jj] for k < kc, jj < nc; columns nc..31 are zero. */
static void ct_k_gemm_pack_b(const float *b, int64_t bks, int64_t bns, int64_t k0, int64_t kc,
                             int64_t j0, int64_t nc, float *restrict bp) {
    if (bns == 1) {
        const __mmask16 m0 = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
        const __mmask16 m1 = (__mmask16)(nc >= 32  ? 0xffffu
                                         : nc > 16 ? (1u << (nc - 16)) - 1u
                                                   : 0u);
        for (int64_t k = 0; k < kc; k++) {
            const float *src = b + (k0 + k) * bks + j0;
            _mm512_store_ps(bp + k * NR, _mm512_maskz_loadu_ps(m0, src));
            _mm512_store_ps(bp + k * NR + 16, _mm512_maskz_loadu_ps(m1, src + 16));
        }
        return;
    }
    if (nc < NR) memset(bp, 0, sizeof(float) * (size_t)(kc * NR));
    int64_t kt = 0;
    if (bks == 1) /* a transposed B (each column a contiguous run): 16 x 16 blocks transposed */
        for (; kt + 16 <= kc; kt += 16)
            for (int64_t jb = 0; jb + 16 <= nc; jb += 16) {
                __m512 r[16];
                for (int i = 0; i < 16; i++)
                    r[i] = _mm512_loadu_ps(b + (j0 + jb + i) * bns + k0 + kt);
                ct_k_gemm_tr16(r);
                for (int k = 0; k < 16; k++)
                    _mm512_store_ps(bp + (kt + k) * NR + jb, r[k]);
            }
    for (int64_t jj = 0; jj < nc; jj++) { /* the rest element by element */
        const float *src = b + (j0 + jj) * bns + k0 * bks;
        const int64_t k1 = bks == 1 && jj < (nc & ~(int64_t)15) ? kt : 0;
        for (int64_t k = k1; k < kc; k++)
            bp[k * NR + jj] = src[k * bks];
    }
}

/* R rows of C (R <= MR) times one packed panel: C = acc (first k block) or C += acc. */
#define CT_K_GEMM_TILE(R)                                                                          \
    static void ct_k_gemm_tile_##R(int64_t kc, const float *a, int64_t ars, int64_t acs,           \
                                   const float *restrict bp, float *c, int64_t ldc, __mmask16 m0,  \
                                   __mmask16 m1, int accumulate) {                                 \
        __m512 c0[R], c1[R];                                                                       \
        for (int r = 0; r < R; r++)                                                                \
            c0[r] = _mm512_setzero_ps(), c1[r] = _mm512_setzero_ps();                              \
        for (int64_t k = 0; k < kc; k++) {                                                         \
            const __m512 b0 = _mm512_load_ps(bp + k * NR), b1 = _mm512_load_ps(bp + k * NR + 16);  \
            const float *ak = a + k * acs;                                                         \
            for (int r = 0; r < R; r++) {                                                          \
                const __m512 av = _mm512_set1_ps(ak[r * ars]);                                     \
                c0[r] = _mm512_fmadd_ps(av, b0, c0[r]);                                            \
                c1[r] = _mm512_fmadd_ps(av, b1, c1[r]);                                            \
            }                                                                                      \
        }                                                                                          \
        for (int r = 0; r < R; r++) {                                                              \
            float *cr = c + r * ldc;                                                               \
            if (accumulate) {                                                                      \
                c0[r] = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, cr), c0[r]);                       \
                c1[r] = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, cr + 16), c1[r]);                  \
            }                                                                                      \
            _mm512_mask_storeu_ps(cr, m0, c0[r]);                                                  \
            _mm512_mask_storeu_ps(cr + 16, m1, c1[r]);                                             \
        }                                                                                          \
    }
CT_K_GEMM_TILE(1)
CT_K_GEMM_TILE(2)
CT_K_GEMM_TILE(3)
CT_K_GEMM_TILE(4)
CT_K_GEMM_TILE(5)
CT_K_GEMM_TILE(6)
CT_K_GEMM_TILE(7)
CT_K_GEMM_TILE(8)
#undef CT_K_GEMM_TILE

typedef void (*ct_k_gemm_tile_fn)(int64_t, const float *, int64_t, int64_t, const float *, float *,
                                  int64_t, __mmask16, __mmask16, int);
static const ct_k_gemm_tile_fn ct_k_gemm_tiles[MR + 1] = {NULL,
                                                          ct_k_gemm_tile_1,
                                                          ct_k_gemm_tile_2,
                                                          ct_k_gemm_tile_3,
                                                          ct_k_gemm_tile_4,
                                                          ct_k_gemm_tile_5,
                                                          ct_k_gemm_tile_6,
                                                          ct_k_gemm_tile_7,
                                                          ct_k_gemm_tile_8};

void ct_k_avx512_sgemm_small(int64_t M, int64_t N, int64_t K, const float *a, int64_t ars,
                             int64_t acs, const float *b, int64_t bks, int64_t bns, float *c,
                             int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        for (int64_t i = 0; i < M; i++)
            memset(c + i * ldc, 0, sizeof(float) * (size_t)N);
        return;
    }
    _Alignas(64) float bp[KC * NR];
    for (int64_t j0 = 0; j0 < N; j0 += NR) {
        const int64_t nc = N - j0 < NR ? N - j0 : NR;
        const __mmask16 m0 = (__mmask16)(nc >= 16 ? 0xffffu : (1u << nc) - 1u);
        const __mmask16 m1 = (__mmask16)(nc >= 32  ? 0xffffu
                                         : nc > 16 ? (1u << (nc - 16)) - 1u
                                                   : 0u);
        for (int64_t k0 = 0; k0 < K; k0 += KC) {
            const int64_t kc = K - k0 < KC ? K - k0 : KC;
            ct_k_gemm_pack_b(b, bks, bns, k0, kc, j0, nc, bp);
            for (int64_t i0 = 0; i0 < M; i0 += MR) {
                const int64_t mr = M - i0 < MR ? M - i0 : MR;
                ct_k_gemm_tiles[mr](kc, a + i0 * ars + k0 * acs, ars, acs, bp, c + i0 * ldc + j0,
                                    ldc, m0, m1, k0 > 0);
            }
        }
    }
}

/* AVX2 2:4 sparse kernels: the AVX-512 file's method on 8-lane registers. GEMM strips are 32
 * columns (four ymm); the N == 1 kernel keeps its 16 lanes in two ymm (groups 0-3 and 4-7 of a
 * step) and picks each half's x operands out of 16 loaded values with two vpermps and a blend.
 * Bit-exact with the reference (sparse_kernels.h's order). */
#include "backends/cpu/kernels/sparse_kernels.h"

#include <immintrin.h>

#define CT__AI static inline __attribute__((always_inline))

#define SP_W 32

CT__AI float sp_val(int vk, const void *v, int64_t i, const float *vtab) {
    if (vk == CT__SPK_F32) return ((const float *)v)[i];
    if (vk == CT__SPK_BF16) return ct__bf2f(((const uint16_t *)v)[i]);
    return vtab[((const uint8_t *)v)[i]];
}

/* Lane mask of the first n (0..8) lanes. */
CT__AI __m256i sp_mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

CT__AI void sp_tile(const ct__sp24_strip_args *a, int64_t r0, const int MR, const int NV,
                    const int vk) {
    __m256 acc[MR][NV];
    const int lastn = a->ncols - 8 * (NV - 1);
    const __m256i lm = sp_mask(lastn >= 8 ? 8 : lastn);
    float *c = a->c + r0 * a->ldc;
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            acc[r][v] = a->first      ? _mm256_setzero_ps()
                        : v == NV - 1 ? _mm256_maskload_ps(c + r * a->ldc + 8 * v, lm)
                                      : _mm256_loadu_ps(c + r * a->ldc + 8 * v);
    const int64_t full = a->ng / 2, vs = a->vstride;
    const uint8_t *meta = a->meta + r0 * a->mstride;
    const int64_t v0 = r0 * vs;
    for (int64_t q = 0; q < full; q++) {
        const float *bq = a->bp + q * 8 * SP_W;
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++) {
            const int32_t *l = a->lut + 4 * meta[r * a->mstride + q];
#pragma GCC unroll 16
            for (int j = 0; j < 4; j++) {
                const __m256 av =
                    _mm256_set1_ps(sp_val(vk, a->vals, v0 + r * vs + 4 * q + j, a->vtab));
                const float *p = bq + l[j];
#pragma GCC unroll 16
                for (int v = 0; v < NV; v++)
                    acc[r][v] = _mm256_fmadd_ps(av, _mm256_load_ps(p + 8 * v), acc[r][v]);
            }
        }
    }
    if (a->ng & 1) {
        const float *bq = a->bp + full * 8 * SP_W;
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++) {
            const int32_t *l = a->lut + 4 * meta[r * a->mstride + full];
#pragma GCC unroll 16
            for (int j = 0; j < 2; j++) {
                const __m256 av =
                    _mm256_set1_ps(sp_val(vk, a->vals, v0 + r * vs + 4 * full + j, a->vtab));
                const float *p = bq + l[j];
#pragma GCC unroll 16
                for (int v = 0; v < NV; v++)
                    acc[r][v] = _mm256_fmadd_ps(av, _mm256_load_ps(p + 8 * v), acc[r][v]);
            }
        }
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++) {
            if (v == NV - 1)
                _mm256_maskstore_ps(c + r * a->ldc + 8 * v, lm, acc[r][v]);
            else
                _mm256_storeu_ps(c + r * a->ldc + 8 * v, acc[r][v]);
        }
}

CT__AI void sp_strip_impl(const ct__sp24_strip_args *a, const int NV, const int MR, const int vk) {
    int64_t r = 0;
    for (; r + MR <= a->rows; r += MR)
        sp_tile(a, r, MR, NV, vk);
    for (; r < a->rows; r++)
        sp_tile(a, r, 1, NV, vk);
}

#define SP_NV_CASES(vk)                                                                            \
    switch ((a->ncols + 7) / 8) {                                                                  \
    case 1: sp_strip_impl(a, 1, 12, vk); break;                                                    \
    case 2: sp_strip_impl(a, 2, 6, vk); break;                                                     \
    case 3: sp_strip_impl(a, 3, 4, vk); break;                                                     \
    default: sp_strip_impl(a, 4, 3, vk); break;                                                    \
    }

static void sp_strip(const ct__sp24_strip_args *a) {
    switch (a->vkind) {
    case CT__SPK_F32: SP_NV_CASES(CT__SPK_F32); break;
    case CT__SPK_BF16: SP_NV_CASES(CT__SPK_BF16); break;
    default: SP_NV_CASES(CT__SPK_E4M3); break;
    }
}

/* 8 FP8 codes -> f32, exact, through f16 (the AVX-512 file's method; the E4M3 NaN codes are
 * found on the f16 bits: magnitude 0x7F is f16 0x3F80). */
CT__AI __m256 sp_fp8_8(int vk, __m128i c8) {
    if (vk == CT__SPK_E5M2) return _mm256_cvtph_ps(_mm_slli_epi16(_mm_cvtepu8_epi16(c8), 8));
    const __m128i h =
        _mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(c8), 7), _mm_set1_epi16((short)0xBFFF));
    const __m128i nan = _mm_cmpeq_epi16(_mm_or_si128(h, _mm_set1_epi16((short)0x8000)),
                                        _mm_set1_epi16((short)0xBF80));
    const __m256 v = _mm256_mul_ps(_mm256_cvtph_ps(h), _mm256_set1_ps(256.0f));
    return _mm256_blendv_ps(v, _mm256_set1_ps(NAN),
                            _mm256_castsi256_ps(_mm256_cvtepi16_epi32(nan)));
}

/* 8 kept values of kind vk from p (full loads). */
CT__AI __m256 sp_vals8(int vk, const void *p) {
    if (vk == CT__SPK_F32) return _mm256_loadu_ps(p);
    if (vk == CT__SPK_BF16)
        return _mm256_castsi256_ps(
            _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
    return sp_fp8_8(vk, _mm_loadl_epi64((const __m128i *)p));
}

/* x operands of the 8 kept values of 4 groups: metadata half-word w, x window x0 (k 0..7), x1. */
CT__AI __m256 sp_pick(uint32_t w, __m256 x0, __m256 x1) {
    const __m256i sh = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i base = _mm256_setr_epi32(0, 0, 4, 4, 8, 8, 12, 12);
    __m256i idx = _mm256_add_epi32(
        _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)w), sh), _mm256_set1_epi32(3)),
        base);
    __m256 p0 = _mm256_permutevar8x32_ps(x0, idx), p1 = _mm256_permutevar8x32_ps(x1, idx);
    return _mm256_blendv_ps(p0, p1,
                            _mm256_castsi256_ps(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(7))));
}

CT__AI float sp_lanes(__m256 lo, __m256 hi) {
    __m256 t8 = _mm256_add_ps(lo, hi);
    __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
    __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));
    return _mm_cvtss_f32(_mm_add_ss(t2, _mm_shuffle_ps(t2, t2, 1)));
}

#define SP_GR 3

CT__AI void sp_gemv_impl(const int vk, int64_t rows, const void *vals, const uint8_t *meta,
                         int64_t ms, int64_t K, const float *x, float *y) {
    const int64_t G = K / 4, steps = G / 8, vs = K / 2, tg = G - 8 * steps;
    const int es = ct__spk_size(vk);
    const char *vb = vals;
    for (int64_t r0 = 0; r0 < rows; r0 += SP_GR) {
        const int nr = rows - r0 < SP_GR ? (int)(rows - r0) : SP_GR;
        __m256 lo[SP_GR], hi[SP_GR];
        for (int r = 0; r < SP_GR; r++)
            lo[r] = hi[r] = _mm256_setzero_ps();
        for (int64_t s = 0; s < steps; s++) {
            const float *xs = x + 32 * s;
            const __m256 x0 = _mm256_loadu_ps(xs), x1 = _mm256_loadu_ps(xs + 8),
                         x2 = _mm256_loadu_ps(xs + 16), x3 = _mm256_loadu_ps(xs + 24);
            for (int r = 0; r < SP_GR; r++) {
                if (r >= nr) break;
                uint32_t w;
                memcpy(&w, meta + (r0 + r) * ms + 4 * s, 4);
                const char *vp = vb + ((r0 + r) * vs + 16 * s) * es;
                lo[r] = _mm256_fmadd_ps(sp_vals8(vk, vp), sp_pick(w, x0, x1), lo[r]);
                hi[r] = _mm256_fmadd_ps(sp_vals8(vk, vp + 8 * es), sp_pick(w >> 16, x2, x3), hi[r]);
            }
        }
        if (tg) {
            float xt[32] = {0};
            memcpy(xt, x + 32 * steps, (size_t)(4 * tg) * sizeof(float));
            const __m256 x0 = _mm256_loadu_ps(xt), x1 = _mm256_loadu_ps(xt + 8),
                         x2 = _mm256_loadu_ps(xt + 16), x3 = _mm256_loadu_ps(xt + 24);
            const int nl = (int)(2 * tg);
            const __m256 mlo = _mm256_castsi256_ps(sp_mask(nl > 8 ? 8 : nl)),
                         mhi = _mm256_castsi256_ps(sp_mask(nl > 8 ? nl - 8 : 0));
            for (int r = 0; r < nr; r++) {
                uint32_t w = 0;
                memcpy(&w, meta + (r0 + r) * ms + 4 * steps, (size_t)((tg + 1) / 2));
                unsigned char vt[64] = {0};
                memcpy(vt, vb + ((r0 + r) * vs + 16 * steps) * es, (size_t)(2 * tg * es));
                __m256 flo = _mm256_fmadd_ps(sp_vals8(vk, vt), sp_pick(w, x0, x1), lo[r]);
                __m256 fhi =
                    _mm256_fmadd_ps(sp_vals8(vk, vt + 8 * es), sp_pick(w >> 16, x2, x3), hi[r]);
                lo[r] = _mm256_blendv_ps(lo[r], flo, mlo);
                hi[r] = _mm256_blendv_ps(hi[r], fhi, mhi);
            }
        }
        for (int r = 0; r < nr; r++)
            y[r0 + r] = sp_lanes(lo[r], hi[r]);
    }
}

static void sp_gemv(int vk, int64_t rows, const void *vals, const uint8_t *meta, int64_t ms,
                    int64_t K, const float *x, float *y) {
    switch (vk) {
    case CT__SPK_F32: sp_gemv_impl(CT__SPK_F32, rows, vals, meta, ms, K, x, y); break;
    case CT__SPK_BF16: sp_gemv_impl(CT__SPK_BF16, rows, vals, meta, ms, K, x, y); break;
    case CT__SPK_E4M3: sp_gemv_impl(CT__SPK_E4M3, rows, vals, meta, ms, K, x, y); break;
    default: sp_gemv_impl(CT__SPK_E5M2, rows, vals, meta, ms, K, x, y); break;
    }
}

static void sp_epilogue(float *c, int64_t ldc, int64_t rows, int64_t ncols, const float *mult,
                        const float *bias) {
    for (int64_t r = 0; r < rows; r++) {
        const __m256 m = _mm256_set1_ps(mult[r]), b = _mm256_set1_ps(bias[r]);
        float *p = c + r * ldc;
        int64_t n = 0;
        for (; n + 8 <= ncols; n += 8)
            _mm256_storeu_ps(p + n, _mm256_fmadd_ps(_mm256_loadu_ps(p + n), m, b));
        for (; n < ncols; n++)
            p[n] = fmaf(p[n], mult[r], bias[r]);
    }
}

const ct__spk_ops ct__spk_ops_avx2 = {SP_W, sp_strip, sp_gemv, sp_epilogue, NULL};

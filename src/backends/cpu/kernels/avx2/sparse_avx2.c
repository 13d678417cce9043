/* AVX2 2:4 sparse kernels: the AVX-512 file's method on 8-lane registers. GEMM strips are 48
 * columns (six ymm); the N == 1 kernel keeps its 16 lanes in two ymm (groups 0-3 and 4-7 of a
 * step) and picks each half's x operands out of 16 loaded values with two vpermps and a blend.
 * Bit-exact with the reference (sparse_kernels.h's order). */
#include "backends/cpu/kernels/sparse_kernels.h"

#include <immintrin.h>

#define CT__AI static inline __attribute__((always_inline))

/* B strips of 48 columns (six ymm): two rows of A against a full strip keep twelve independent
 * fma chains in flight (the 4-cycle latency at two fmas per cycle needs eight; the 32-wide strip
 * of two rows had exactly eight and ran at ~52% of the fma peak, this ~62%). */
#define SP_W 48
/* k rows per packed block: the strip is 24 KiB (L1 holds it; the C tile is loaded and stored
 * once per block, so 128 rows halve that traffic against 64: ~5% here) */
#define SP_KC 128

CT__AI float sp_val(int vk, const void *v, int64_t i, const float *vtab) {
    if (vk == CT__SPK_F32) return ((const float *)v)[i];
    if (vk == CT__SPK_BF16) return ct__bf2f(((const uint16_t *)v)[i]);
    return vtab[((const uint8_t *)v)[i]];
}

/* Row r's kept values of metadata byte q (nj = 4; 2 for the last group of an odd count) against
 * the B rows they select, into acc[NV]. */
CT__AI void sp_byte(const ct__sp24_strip_args *a, const uint8_t *meta, int64_t v0, int r, int64_t q,
                    const int nj, const int NV, const int vk, __m256 *acc) {
    const float *bq = a->bp + q * 8 * SP_W;
    const unsigned m = meta[r * a->mstride + q];
    /* the kept B rows of the byte's two groups from its nibbles (shifts and masks: the table's
     * loads competed with the operands for the load ports) */
    const size_t o[4] = {(m & 3u) * SP_W, ((m >> 2) & 3u) * SP_W, ((m >> 4) & 3u) * SP_W + 4 * SP_W,
                         ((m >> 6) & 3u) * SP_W + 4 * SP_W};
    const int64_t vi = v0 + r * a->vstride + 4 * q;
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++) {
        const __m256 av = _mm256_set1_ps(sp_val(vk, a->vals, vi + j, a->vtab));
        const float *p = bq + o[j];
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            acc[v] = _mm256_fmadd_ps(av, _mm256_load_ps(p + 8 * v), acc[v]);
    }
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
            acc[r][v] = a->first                   ? _mm256_setzero_ps()
                        : v == NV - 1 && lastn < 8 ? _mm256_maskload_ps(c + r * a->ldc + 8 * v, lm)
                                                   : _mm256_loadu_ps(c + r * a->ldc + 8 * v);
    const int64_t full = a->ng / 2;
    const uint8_t *meta = a->meta + r0 * a->mstride;
    const int64_t v0 = r0 * a->vstride;
    for (int64_t q = 0; q < full; q++)
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++)
            sp_byte(a, meta, v0, r, q, 4, NV, vk, acc[r]);
    if (a->ng & 1) /* the last group of K alone in its byte */
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++)
            sp_byte(a, meta, v0, r, full, 2, NV, vk, acc[r]);
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++) {
            if (v == NV - 1 && lastn < 8) /* (masked stores are slow on AMD cores) */
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

/* One function per (values kind, strip width in vectors): separate functions keep each body
 * small for the compiler (one inlined copy per case made the file slow to build). */
#define SP_STRIP_FNS(tag, vk)                                                                      \
    __attribute__((noinline)) static void sp_strip_##tag##_1(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 1, 12, vk);                                                               \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_2(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 2, 6, vk);                                                                \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_3(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 3, 4, vk);                                                                \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_4(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 4, 2, vk);                                                                \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_5(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 5, 2, vk);                                                                \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_6(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 6, 2, vk);                                                                \
    }
SP_STRIP_FNS(f32, CT__SPK_F32)
SP_STRIP_FNS(bf16, CT__SPK_BF16)
SP_STRIP_FNS(fp8, CT__SPK_E4M3) /* FP8 of either kind reads the value table */

#define SP_NV_CASES(tag)                                                                           \
    switch ((a->ncols + 7) / 8) {                                                                  \
    case 1: sp_strip_##tag##_1(a); break;                                                          \
    case 2: sp_strip_##tag##_2(a); break;                                                          \
    case 3: sp_strip_##tag##_3(a); break;                                                          \
    case 4: sp_strip_##tag##_4(a); break;                                                          \
    case 5: sp_strip_##tag##_5(a); break;                                                          \
    default: sp_strip_##tag##_6(a); break;                                                         \
    }

static void sp_strip(const ct__sp24_strip_args *a) {
    switch (a->vkind) {
    case CT__SPK_F32: SP_NV_CASES(f32); break;
    case CT__SPK_BF16: SP_NV_CASES(bf16); break;
    default: SP_NV_CASES(fp8); break;
    }
}

/* 8 FP8 codes -> f32, exact, through f16 (the AVX-512 file's method). The E4M3 NaN codes
 * (magnitude 0x7F, f16 bits 0x3F80) get the f16 exponent all ones, so they widen to NaN. */
CT__AI __m256 sp_fp8_8(int vk, __m128i c8) {
    if (vk == CT__SPK_E5M2) return _mm256_cvtph_ps(_mm_slli_epi16(_mm_cvtepu8_epi16(c8), 8));
    __m128i h =
        _mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(c8), 7), _mm_set1_epi16((short)0xBFFF));
    const __m128i nan = _mm_cmpeq_epi16(_mm_or_si128(h, _mm_set1_epi16((short)0x8000)),
                                        _mm_set1_epi16((short)0xBF80));
    h = _mm_or_si128(h, _mm_and_si128(nan, _mm_set1_epi16(0x7C00)));
    return _mm256_mul_ps(_mm256_cvtph_ps(h), _mm256_set1_ps(256.0f));
}

/* 8 kept values of kind vk from p (full loads). */
CT__AI __m256 sp_vals8(int vk, const void *p) {
    if (vk == CT__SPK_F32) return _mm256_loadu_ps(p);
    if (vk == CT__SPK_BF16)
        return _mm256_castsi256_ps(
            _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
    return sp_fp8_8(vk, _mm_loadl_epi64((const __m128i *)p));
}

/* The x operands of the 8 kept values from the window xs[0..16) (groups 0-3): lanes 0-3 of the
 * result read groups 0, 1 and lanes 4-7 groups 2, 3, so with xa = [group 0 | group 2] and
 * xb = [group 1 | group 3] two in-lane permutes and one immediate blend pick them. */
CT__AI __m256 sp_sel(__m256i idx, const float *xs) {
    const __m256 a = _mm256_loadu_ps(xs), b = _mm256_loadu_ps(xs + 8);
    const __m256 xa = _mm256_permute2f128_ps(a, b, 0x20), xb = _mm256_permute2f128_ps(a, b, 0x31);
    return _mm256_blend_ps(_mm256_permutevar_ps(xa, idx), _mm256_permutevar_ps(xb, idx), 0xCC);
}

CT__AI float sp_lanes(__m256 lo, __m256 hi) {
    __m256 t8 = _mm256_add_ps(lo, hi);
    __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
    __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));
    return _mm_cvtss_f32(_mm_add_ss(t2, _mm_shuffle_ps(t2, t2, 1)));
}

/* The 16 kept values of a step from p. E4M3 checks the 16 codes for NaN once (one compare and
 * a mask test) and decodes without sp_fp8_8's per-lane NaN repair unless one is there. */
CT__AI void sp_vals16(int vk, const void *p, __m256 *v0, __m256 *v1) {
    if (vk != CT__SPK_E4M3) {
        *v0 = sp_vals8(vk, p);
        *v1 = sp_vals8(vk, (const char *)p + 8 * ct__spk_size(vk));
        return;
    }
    const __m128i c = _mm_loadu_si128((const __m128i *)p), hi = _mm_srli_si128(c, 8);
    const __m128i m7 = _mm_set1_epi8(0x7F);
    if (__builtin_expect(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(c, m7), m7)) != 0, 0)) {
        *v0 = sp_fp8_8(vk, c);
        *v1 = sp_fp8_8(vk, hi);
        return;
    }
    const __m128i keep = _mm_set1_epi16((short)0xBFFF);
    const __m256 k256 = _mm256_set1_ps(256.0f);
    *v0 = _mm256_mul_ps(
        _mm256_cvtph_ps(_mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(c), 7), keep)), k256);
    *v1 = _mm256_mul_ps(
        _mm256_cvtph_ps(_mm_and_si128(_mm_slli_epi16(_mm_cvtepi8_epi16(hi), 7), keep)), k256);
}

/* Rows per pass: R * N chain pairs in flight (16 ymm). */
#define SP_ROWS(N) ((N) == 1 ? 3 : 1)

/* One step (8 groups) of one row against N columns: lanes 0-7 (groups 0-3) in lo, 8-15 in hi;
 * lanes past nl (a tail step) keep their sums. */
CT__AI void sp_step(const int vk, const int N, const char *vp, uint32_t w, const float *x,
                    int64_t K, int64_t k0, int nl, __m256 *lo, __m256 *hi) {
    __m256 v0, v1;
    sp_vals16(vk, vp, &v0, &v1);
    /* in-lane indices of the kept values: lane l of the step's first half reads bits 2l..2l+1 of
     * the metadata word w (the value's position in its group; vpermilps reads only bits 1:0),
     * the second half bits 16 + 2l..; one broadcast of w serves both */
    const __m256i bw = _mm256_set1_epi32((int)w);
    const __m256i i0 = _mm256_srlv_epi32(bw, _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)),
                  i1 = _mm256_srlv_epi32(bw, _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30));
#pragma GCC unroll 8
    for (int n = 0; n < N; n++) {
        const __m256 f0 = _mm256_fmadd_ps(v0, sp_sel(i0, x + n * K + k0), lo[n]);
        const __m256 f1 = _mm256_fmadd_ps(v1, sp_sel(i1, x + n * K + k0 + 16), hi[n]);
        if (nl >= 16) {
            lo[n] = f0, hi[n] = f1;
        } else {
            lo[n] = _mm256_blendv_ps(lo[n], f0, _mm256_castsi256_ps(sp_mask(nl > 8 ? 8 : nl)));
            hi[n] = _mm256_blendv_ps(hi[n], f1, _mm256_castsi256_ps(sp_mask(nl > 8 ? nl - 8 : 0)));
        }
    }
}

/* R rows (values rv0, row stride vs elements; metadata rm0, stride ms) x N columns (x: [N][K]). */
CT__AI void sp_gemv_group(const int vk, const int N, const int R, const char *rv0, int64_t vs,
                          const uint8_t *rm0, int64_t ms, int64_t K, const float *x, float *y) {
    const int64_t G = K / 4, steps = G / 8, tg = G - 8 * steps;
    const int es = ct__spk_size(vk);
    __m256 lo[R][N], hi[R][N];
    for (int r = 0; r < R; r++)
        for (int n = 0; n < N; n++)
            lo[r][n] = hi[r][n] = _mm256_setzero_ps();
    for (int64_t s = 0; s < steps; s++) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            uint32_t w;
            memcpy(&w, rm0 + r * ms + 4 * s, 4);
            sp_step(vk, N, rv0 + (r * vs + 16 * s) * es, w, x, K, 32 * s, 16, lo[r], hi[r]);
        }
    }
    if (tg) { /* the last 1..7 groups through zero-padded copies (x too, per column) */
        float xt[CT__SP24_GEMV_N * 32] = {0};
        for (int n = 0; n < N; n++)
            memcpy(xt + 32 * n, x + n * K + 32 * steps, (size_t)(4 * tg) * sizeof(float));
        for (int r = 0; r < R; r++) {
            uint32_t w = 0;
            memcpy(&w, rm0 + r * ms + 4 * steps, (size_t)((tg + 1) / 2));
            unsigned char vt[64] = {0};
            memcpy(vt, rv0 + (r * vs + 16 * steps) * es, (size_t)(2 * tg * es));
            sp_step(vk, N, (const char *)vt, w, xt, 32, 0, (int)(2 * tg), lo[r], hi[r]);
        }
    }
    for (int r = 0; r < R; r++)
        for (int n = 0; n < N; n++)
            y[r * N + n] = sp_lanes(lo[r][n], hi[r][n]);
}

CT__AI void sp_gemv_impl(const int vk, const int N, int64_t rows, const void *vals,
                         const uint8_t *meta, int64_t ms, int64_t K, const float *x, float *y) {
    const int R = SP_ROWS(N), es = ct__spk_size(vk);
    const int64_t vs = K / 2;
    const char *vb = vals;
    int64_t r0 = 0;
    for (; r0 + R <= rows; r0 += R)
        sp_gemv_group(vk, N, R, vb + r0 * vs * es, vs, meta + r0 * ms, ms, K, x, y + r0 * N);
    for (; r0 < rows; r0++)
        sp_gemv_group(vk, N, 1, vb + r0 * vs * es, vs, meta + r0 * ms, ms, K, x, y + r0 * N);
}

/* One function per (values kind, N), for the same reason as the strips. */
#define SP_GEMV_FN(NN, tag, vk)                                                                    \
    __attribute__((noinline)) static void sp_gemv_##tag##_##NN(                                    \
        int64_t rows, const void *vals, const uint8_t *meta, int64_t ms, int64_t K,                \
        const float *x, float *y) {                                                                \
        sp_gemv_impl(vk, NN, rows, vals, meta, ms, K, x, y);                                       \
    }
#define SP_GEMV_FNS(tag, vk)                                                                       \
    SP_GEMV_FN(1, tag, vk)                                                                         \
    SP_GEMV_FN(2, tag, vk)                                                                         \
    SP_GEMV_FN(3, tag, vk)                                                                         \
    SP_GEMV_FN(4, tag, vk)                                                                         \
    SP_GEMV_FN(5, tag, vk)                                                                         \
    SP_GEMV_FN(6, tag, vk)                                                                         \
    SP_GEMV_FN(7, tag, vk)                                                                         \
    SP_GEMV_FN(8, tag, vk)
SP_GEMV_FNS(f32, CT__SPK_F32)
SP_GEMV_FNS(bf16, CT__SPK_BF16)
SP_GEMV_FNS(e4m3, CT__SPK_E4M3)
SP_GEMV_FNS(e5m2, CT__SPK_E5M2)

typedef void (*sp_gemv_fn)(int64_t, const void *, const uint8_t *, int64_t, int64_t, const float *,
                           float *);
#define SP_GEMV_ROW(tag)                                                                           \
    {                                                                                              \
        sp_gemv_##tag##_1, sp_gemv_##tag##_2, sp_gemv_##tag##_3, sp_gemv_##tag##_4,                \
            sp_gemv_##tag##_5, sp_gemv_##tag##_6, sp_gemv_##tag##_7, sp_gemv_##tag##_8             \
    }
static const sp_gemv_fn sp_gemv_table[4][8] = {SP_GEMV_ROW(f32), SP_GEMV_ROW(bf16),
                                               SP_GEMV_ROW(e4m3), SP_GEMV_ROW(e5m2)};

static void sp_gemv(int vk, int N, int64_t rows, const void *vals, const uint8_t *meta, int64_t ms,
                    int64_t K, const float *x, float *y) {
    sp_gemv_table[vk < 0 || vk > 3 ? 3 : vk][N < 1   ? 0
                                             : N > 8 ? 7
                                                     : N - 1](rows, vals, meta, ms, K, x, y);
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

const ct__spk_ops ct__spk_ops_avx2 = {SP_W, SP_KC, sp_strip, sp_gemv, sp_epilogue, NULL};

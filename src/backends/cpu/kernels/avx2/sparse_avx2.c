/* AVX2 2:4 sparse kernels: the AVX-512 file's method on 8-lane registers. GEMM strips are 48
 * columns (six ymm); the small-N kernel keeps a row's 16 lanes in two ymm (groups 0-3 and 4-7 of a
 * step) and picks each half's x operands out of 16 loaded values with two vpermps and a blend;
 * N == 1 with bf16 or FP8 values runs two rows a step (one vpermilps per 8 values; sp_pairv): E4M3
 * decodes through f16 against 256 x, or in integer registers (sp_pair_e4m3) where 256 x would
 * overflow. Bit-exact with the reference (sparse_kernels.h's order). */
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

/* ---- N == 1 with E4M3 values: two rows a step ----
 * A step is 8 groups (16 kept values) of each of rows r0 and r1. Register g (0..3) of a step holds
 * in its low 128-bit lane group 2g of both rows (dwords: r0's two kept values, then r1's) and in
 * its high lane group 2g + 1: all four values of a lane pick from the four x of one group, and
 * x[8g, 8g + 8) of the step is one load, so one in-lane vpermilps finds the operands of 8 values
 * (one row alone needs two and a blend). Each dword is the chain of one (row, j % 16) of
 * sparse_kernels.h's order: the sums are the reference's bit for bit. The codes are decoded in
 * integer registers, all 32 of a step at once: the upper half of each f32 is
 * (table[top nibble] << 8) | (low nibble << 4) (sign, exponent + 120, mantissa; exact for normal
 * codes), placed into the dwords by one vpshufb per register. A step with a zero, subnormal or
 * NaN code (one compare over its 32 codes; rare in scaled weights) decodes exactly out of line.
 * (E5M2 keeps the one-row kernel: its f16 widening is already cheap.) */

/* Y: the step's 32 codes as [r0 E0 | r1 E0 | r0 E1 | r1 E1] in the low lane (E0: the codes of
 * groups 0 and 2, E1: of 4 and 6) and the odd groups' likewise in the high lane. */
CT__AI __m256i sp_pair_codes(const uint8_t *c0, const uint8_t *c1) {
    const __m256i z =
        _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)c0)),
                                _mm_loadu_si128((const __m128i *)c1), 1);
    const __m256i split = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0,
                                           1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    return _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(z, split),
                                       _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* acc[g] += values of register g x their x operands (M: the two rows' metadata words). */
CT__AI void sp_pair_fma(const __m256 *v, __m256i M, const float *xs, __m256 *acc) {
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        const __m256i idx =
            _mm256_srlv_epi32(M, _mm256_setr_epi32(8 * g, 8 * g + 2, 8 * g, 8 * g + 2, 8 * g + 4,
                                                   8 * g + 6, 8 * g + 4, 8 * g + 6));
        acc[g] =
            _mm256_fmadd_ps(v[g], _mm256_permutevar_ps(_mm256_loadu_ps(xs + 8 * g), idx), acc[g]);
    }
}

/* A step with a zero, subnormal or NaN code: each code's f32 as ct__mxk_dec1 (out of line:
 * inlined, its registers pushed the hot loop's sums onto the stack). */
__attribute__((noinline)) static void sp_pair_step_any(__m256i Y, __m256i M, const float *xs,
                                                       __m256 *acc) {
    __m256 v[4];
    for (int g = 0; g < 4; g++) {
        const char z = (char)0x80, b = (char)(8 * (g >> 1) + 2 * (g & 1));
        const __m256i D =
            _mm256_shuffle_epi8(/* register g's codes in the dwords' top bytes */
                                Y, _mm256_setr_epi8(z, z, z, b, z, z, z, b + 1, z, z, z, b + 4, z,
                                                    z, z, b + 5, z, z, z, b, z, z, z, b + 1, z, z,
                                                    z, b + 4, z, z, z, b + 5));
        const __m256i mag = _mm256_and_si256(_mm256_srli_epi32(D, 24), _mm256_set1_epi32(0x7F));
        const __m256 sign =
            _mm256_castsi256_ps(_mm256_and_si256(D, _mm256_set1_epi32((int)0x80000000u)));
        const __m256 normal = _mm256_castsi256_ps(_mm256_add_epi32(
            _mm256_and_si256(_mm256_srai_epi32(D, 4), _mm256_set1_epi32((int)0x87F00000u)),
            _mm256_set1_epi32(120 << 23)));
        const __m256 sub =
            _mm256_or_ps(/* exponent field 0: m * 2^-9 */
                         _mm256_mul_ps(
                             _mm256_cvtepi32_ps(_mm256_and_si256(mag, _mm256_set1_epi32(7))),
                             _mm256_set1_ps(0x1p-9f)),
                         sign);
        const __m256 nan = _mm256_or_ps(_mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), sign);
        v[g] = _mm256_blendv_ps(
            _mm256_blendv_ps(normal, sub,
                             _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(8), mag))),
            nan, _mm256_castsi256_ps(_mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7F))));
    }
    sp_pair_fma(v, M, xs, acc);
}

/* A step of normal codes. */
CT__AI void sp_pair_step(__m256i Y, __m256i M, const float *xs, __m256 *acc) {
    /* sign and exponent + 120 >> 1 of each top nibble s e3 e2 e1 */
    const __m256i tab =
        _mm256_setr_epi8(60, 61, 62, 63, 64, 65, 66, 67, -68, -67, -66, -65, -64, -63, -62, -61, 60,
                         61, 62, 63, 64, 65, 66, 67, -68, -67, -66, -65, -64, -63, -62, -61);
    const __m256i hi =
        _mm256_shuffle_epi8(tab, _mm256_and_si256(_mm256_srli_epi16(Y, 4), _mm256_set1_epi8(15)));
    const __m256i lo = _mm256_and_si256(_mm256_slli_epi16(Y, 4), _mm256_set1_epi8((char)0xF0));
    const __m256i w[2] = {_mm256_unpacklo_epi8(lo, hi), _mm256_unpackhi_epi8(lo, hi)};
    __m256 v[4];
#pragma GCC unroll 4
    for (int g = 0; g < 4; g++) {
        const char z = (char)0x80, o = (char)(4 * (g & 1));
        v[g] = _mm256_castsi256_ps(_mm256_shuffle_epi8(
            w[g >> 1], _mm256_setr_epi8(z, z, o, o + 1, z, z, o + 2, o + 3, z, z, o + 8, o + 9, z,
                                        z, o + 10, o + 11, z, z, o, o + 1, z, z, o + 2, o + 3, z, z,
                                        o + 8, o + 9, z, z, o + 10, o + 11)));
    }
    sp_pair_fma(v, M, xs, acc);
}

/* The two rows' 16 lane sums each out of the pair accumulators (register g, lane h: group
 * 2g + h, chains 4g + 2h and 4g + 2h + 1 of row 0, the next two of row 1). */
CT__AI void sp_pair_split(__m256 a0, __m256 a1, __m256 a2, __m256 a3, float *s0, float *s1) {
    float a[4][8];
    _mm256_storeu_ps(a[0], a0);
    _mm256_storeu_ps(a[1], a1);
    _mm256_storeu_ps(a[2], a2);
    _mm256_storeu_ps(a[3], a3);
    for (int g = 0; g < 4; g++)
        for (int h = 0; h < 2; h++) {
            s0[4 * g + 2 * h] = a[g][4 * h], s0[4 * g + 2 * h + 1] = a[g][4 * h + 1];
            s1[4 * g + 2 * h] = a[g][4 * h + 2], s1[4 * g + 2 * h + 1] = a[g][4 * h + 3];
        }
}

/* Rows r0 (codes c0, metadata m0) and r1 against x: *y0, *y1 (the lane sums). */
CT__AI void sp_pair_e4m3(const uint8_t *c0, const uint8_t *c1, const uint8_t *m0, const uint8_t *m1,
                         int64_t K, const float *x, float *y0, float *y1) {
    const int64_t steps = K / 32;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t s = 0; s < steps; s++) {
        const __m256i Y = sp_pair_codes(c0 + 16 * s, c1 + 16 * s);
        /* zero, subnormal or NaN: (code & 0x7F) + 1 < 9 as signed bytes (0x7F wraps) */
        const __m256i w =
            _mm256_add_epi8(_mm256_and_si256(Y, _mm256_set1_epi8(0x7F)), _mm256_set1_epi8(1));
        const int odd = _mm256_movemask_epi8(_mm256_cmpgt_epi8(_mm256_set1_epi8(9), w));
        uint32_t w0, w1;
        memcpy(&w0, m0 + 4 * s, 4);
        memcpy(&w1, m1 + 4 * s, 4);
        const __m256i M =
            _mm256_blend_epi32(_mm256_set1_epi32((int)w0), _mm256_set1_epi32((int)w1), 0xCC);
        /* (a copy per branch: one shared array made the compiler store the sums every step) */
        if (__builtin_expect(odd != 0, 0)) {
            __m256 t[4] = {a0, a1, a2, a3};
            sp_pair_step_any(Y, M, x + 32 * s, t);
            a0 = t[0], a1 = t[1], a2 = t[2], a3 = t[3];
        } else {
            __m256 t[4] = {a0, a1, a2, a3};
            sp_pair_step(Y, M, x + 32 * s, t);
            a0 = t[0], a1 = t[1], a2 = t[2], a3 = t[3];
        }
    }
    float s0[16], s1[16];
    sp_pair_split(a0, a1, a2, a3, s0, s1);
    for (int64_t j = 16 * steps; j < K / 2; j++) { /* the last 1..7 groups: one fma each */
        const int64_t grp = j / 2;
        const int sh = 4 * (int)(grp & 1) + 2 * (int)(j & 1);
        const float x0 = x[4 * grp + ((m0[grp / 2] >> sh) & 3)],
                    x1 = x[4 * grp + ((m1[grp / 2] >> sh) & 3)];
        s0[j % 16] = fmaf(ct__mxk_dec1(CT__MXK_E4M3, c0[j]), x0, s0[j % 16]);
        s1[j % 16] = fmaf(ct__mxk_dec1(CT__MXK_E4M3, c1[j]), x1, s1[j % 16]);
    }
    *y0 = ct__sp24_lanes_sum(s0);
    *y1 = ct__sp24_lanes_sum(s1);
}

/* ---- N == 1, bf16 and FP8 values, two rows a step: the registers, lanes and chains of
 * sp_pair_e4m3 ---- Register g of a step holds the two rows' kept values 4g .. 4g + 3 as [r0 4g,
 * 4g+1, r1 4g, 4g+1 | r0 4g+2, 4g+3, r1 4g+2, 4g+3] (one in-lane vpermilps per 8 values finds their
 * x). Per kind:
 * - bf16: punpck[lh]dq of the two rows' 8 values (two registers), widened by a shift;
 * - E5M2: punpck[lh]wd of the rows' codes, then each code into the high byte of a word is its f16;
 * - E4M3 against x256 = 256 x (exact; the driver checks the range): the code sign-extended to 16
 *   bits, shifted left by 7 and its bit 14 cleared is the f16 of value / 256 (zero and subnormal
 *   codes included) and the 256 is in x256, so each product value * x, and so each chain, is the
 *   same bit for bit. The NaN codes (magnitude 0x7F; f16 gives them 480) are found by a signed
 *   and an unsigned byte max over the rows' codes, checked once per row pair, which then runs
 *   sp_pair_e4m3 against x.
 * vcvtph2ps widens f16 exactly. (f32 values keep the three-row sp_gemv_group: pairs of rows by
 * broadcast loads and vshufpd were slower, 1.75 against 1.3 ms at 4096 x 4096 on one thread.) */
CT__AI void sp_pairv(const int vk, const char *r0, const char *r1, const uint8_t *m0,
                     const uint8_t *m1, int64_t K, const float *x, const float *xk, float *y0,
                     float *y1) {
    const int64_t steps = K / 32;
    const int es = ct__spk_size(vk);
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    __m128i smax = _mm_set1_epi8(-128), umax = _mm_setzero_si128();
    const __m256i keep = _mm256_set1_epi16((short)0xBFFF);
    for (int64_t s = 0; s < steps; s++) {
        const char *p0 = r0 + 16 * s * es, *p1 = r1 + 16 * s * es;
        __m256 v[4];
        if (vk == CT__SPK_BF16) {
#pragma GCC unroll 2
            for (int h = 0; h < 2; h++) {
                const __m128i q0 = _mm_loadu_si128((const __m128i *)(p0 + 16 * h)),
                              q1 = _mm_loadu_si128((const __m128i *)(p1 + 16 * h));
                v[2 * h] = _mm256_castsi256_ps(
                    _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_unpacklo_epi32(q0, q1)), 16));
                v[2 * h + 1] = _mm256_castsi256_ps(
                    _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_unpackhi_epi32(q0, q1)), 16));
            }
        } else {
            const __m128i q0 = _mm_loadu_si128((const __m128i *)p0),
                          q1 = _mm_loadu_si128((const __m128i *)p1);
            const __m128i lo = _mm_unpacklo_epi16(q0, q1), hi = _mm_unpackhi_epi16(q0, q1);
            if (vk == CT__SPK_E5M2) {
                const __m128i z = _mm_setzero_si128();
                v[0] = _mm256_cvtph_ps(_mm_unpacklo_epi8(z, lo));
                v[1] = _mm256_cvtph_ps(_mm_unpackhi_epi8(z, lo));
                v[2] = _mm256_cvtph_ps(_mm_unpacklo_epi8(z, hi));
                v[3] = _mm256_cvtph_ps(_mm_unpackhi_epi8(z, hi));
            } else {
                smax = _mm_max_epi8(smax, _mm_max_epi8(q0, q1));
                umax = _mm_max_epu8(umax, _mm_max_epu8(q0, q1));
                const __m256i h01 = _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(lo), 7),
                                                     keep),
                              h23 = _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(hi), 7),
                                                     keep);
                v[0] = _mm256_cvtph_ps(_mm256_castsi256_si128(h01));
                v[1] = _mm256_cvtph_ps(_mm256_extracti128_si256(h01, 1));
                v[2] = _mm256_cvtph_ps(_mm256_castsi256_si128(h23));
                v[3] = _mm256_cvtph_ps(_mm256_extracti128_si256(h23, 1));
            }
        }
        uint32_t w0, w1;
        memcpy(&w0, m0 + 4 * s, 4);
        memcpy(&w1, m1 + 4 * s, 4);
        const __m256i M =
            _mm256_blend_epi32(_mm256_set1_epi32((int)w0), _mm256_set1_epi32((int)w1), 0xCC);
        __m256 t[4] = {a0, a1, a2, a3};
        sp_pair_fma(v, M, xk + 32 * s, t);
        a0 = t[0], a1 = t[1], a2 = t[2], a3 = t[3];
    }
    if (vk == CT__SPK_E4M3) { /* a NaN code: 0x7F the largest signed byte, 0xFF the unsigned */
        const int nan = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(smax, _mm_set1_epi8(0x7F)),
                                                       _mm_cmpeq_epi8(umax, _mm_set1_epi8(-1))));
        if (__builtin_expect(nan != 0, 0)) {
            sp_pair_e4m3((const uint8_t *)r0, (const uint8_t *)r1, m0, m1, K, x, y0, y1);
            return;
        }
    }
    float s0[16], s1[16];
    sp_pair_split(a0, a1, a2, a3, s0, s1);
    for (int64_t j = 16 * steps; j < K / 2; j++) { /* the last 1..7 groups, as sp_pair_e4m3 */
        const int64_t grp = j / 2;
        const int sh = 4 * (int)(grp & 1) + 2 * (int)(j & 1);
        const float x0 = x[4 * grp + ((m0[grp / 2] >> sh) & 3)],
                    x1 = x[4 * grp + ((m1[grp / 2] >> sh) & 3)];
        s0[j % 16] = fmaf(ct__spk_get(vk, r0, j), x0, s0[j % 16]);
        s1[j % 16] = fmaf(ct__spk_get(vk, r1, j), x1, s1[j % 16]);
    }
    *y0 = ct__sp24_lanes_sum(s0);
    *y1 = ct__sp24_lanes_sum(s1);
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
__attribute__((noinline)) static void sp_gemv_e4m3_pairs(int64_t rows, const void *vals,
                                                         const uint8_t *meta, int64_t ms, int64_t K,
                                                         const float *x, float *y) {
    const uint8_t *vb = vals;
    const int64_t vs = K / 2;
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2)
        sp_pair_e4m3(vb + r * vs, vb + (r + 1) * vs, meta + r * ms, meta + (r + 1) * ms, K, x,
                     y + r, y + r + 1);
    if (r < rows) /* the odd row: the one-row kernel (the same order) */
        sp_gemv_e4m3_1(1, vb + r * vs, meta + r * ms, ms, K, x, y + r);
}

/* Rows in pairs through sp_pairv (xk: x, or 256 x for E4M3), the odd last row by the one-row
 * kernel of the same order. */
CT__AI void sp_pairs_impl(const int vk, int64_t rows, const void *vals, const uint8_t *meta,
                          int64_t ms, int64_t K, const float *x, const float *xk, float *y) {
    const char *vb = vals;
    const int64_t vs = K / 2 * ct__spk_size(vk);
    int64_t r = 0;
    for (; r + 2 <= rows; r += 2)
        sp_pairv(vk, vb + r * vs, vb + (r + 1) * vs, meta + r * ms, meta + (r + 1) * ms, K, x, xk,
                 y + r, y + r + 1);
    if (r < rows) sp_gemv_impl(vk, 1, 1, vb + r * vs, meta + r * ms, ms, K, x, y + r);
}
__attribute__((noinline)) static void sp_gemv_e4m3_x256(int64_t rows, const void *vals,
                                                        const uint8_t *meta, int64_t ms, int64_t K,
                                                        const float *x, const float *x256,
                                                        float *y) {
    sp_pairs_impl(CT__SPK_E4M3, rows, vals, meta, ms, K, x, x256, y);
}
#define SP_PAIRS_FN(tag, vk)                                                                       \
    __attribute__((noinline)) static void sp_gemv_pairs_##tag(                                     \
        int64_t rows, const void *vals, const uint8_t *meta, int64_t ms, int64_t K,                \
        const float *x, float *y) {                                                                \
        sp_pairs_impl(vk, rows, vals, meta, ms, K, x, x, y);                                       \
    }
SP_PAIRS_FN(bf16, CT__SPK_BF16)
SP_PAIRS_FN(e5m2, CT__SPK_E5M2)

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
    if (N == 1) { /* two rows a step (f32: three rows in sp_gemv_group) */
        switch (vk) {
        case CT__SPK_F32: break;
        case CT__SPK_BF16: sp_gemv_pairs_bf16(rows, vals, meta, ms, K, x, y); return;
        case CT__SPK_E4M3: sp_gemv_e4m3_pairs(rows, vals, meta, ms, K, x, y); return;
        default: sp_gemv_pairs_e5m2(rows, vals, meta, ms, K, x, y); return;
        }
    }
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

const ct__spk_ops ct__spk_ops_avx2 = {SP_W,        SP_KC, sp_strip,         sp_gemv,
                                      sp_epilogue, NULL,  sp_gemv_e4m3_x256};

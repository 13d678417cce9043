/* AVX-512 2:4 sparse kernels. GEMM: a packed B strip of 64 columns (four zmm) stays in L1 while
 * rows of A stream by; each row's metadata byte indexes a table of four strip offsets (no branch
 * on the pattern) and each kept value is broadcast against the B rows it selects, so only kept
 * values are multiplied. N == 1: sixteen kept values per step, their x operands picked out of 32
 * loaded x values by one vpermt2ps whose indices come from the metadata word by variable shifts;
 * FP8 values are decoded in registers. Bit-exact with the reference (sparse_kernels.h's order). */
#include "backends/cpu/kernels/sparse_kernels.h"

#include <immintrin.h>

#define CT__AI static inline __attribute__((always_inline))

#define SP_W 64

/* Kept value i of a row as f32 (FP8 through the workspace's exact table). */
CT__AI float sp_val(int vk, const void *v, int64_t i, const float *vtab) {
    if (vk == CT__SPK_F32) return ((const float *)v)[i];
    if (vk == CT__SPK_BF16) return ct__bf2f(((const uint16_t *)v)[i]);
    return vtab[((const uint8_t *)v)[i]];
}

/* Row r's kept values of metadata byte q (nj = 4; 2 for the last group of an odd count) against
 * the B rows they select, into acc[NV]. */
CT__AI void sp_byte(const ct__sp24_strip_args *a, const uint8_t *meta, int64_t v0, int r, int64_t q,
                    const int nj, const int NV, const int vk, __m512 *acc) {
    const float *bq = a->bp + q * 8 * SP_W;
    const int32_t *l = a->lut + 4 * meta[r * a->mstride + q];
    const int64_t vi = v0 + r * a->vstride + 4 * q;
#pragma GCC unroll 4
    for (int j = 0; j < nj; j++) {
        const __m512 av = _mm512_set1_ps(sp_val(vk, a->vals, vi + j, a->vtab));
        const float *p = bq + l[j];
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            acc[v] = _mm512_fmadd_ps(av, _mm512_load_ps(p + 16 * v), acc[v]);
    }
}

/* MR rows x NV vectors of out, rows r0.. of the job. */
CT__AI void sp_tile(const ct__sp24_strip_args *a, int64_t r0, const int MR, const int NV,
                    const int vk) {
    __m512 acc[MR][NV];
    const int lastn = a->ncols - 16 * (NV - 1);
    const __mmask16 lm = (__mmask16)(lastn >= 16 ? 0xFFFFu : (1u << lastn) - 1u);
    float *c = a->c + r0 * a->ldc;
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            acc[r][v] = a->first      ? _mm512_setzero_ps()
                        : v == NV - 1 ? _mm512_maskz_loadu_ps(lm, c + r * a->ldc + 16 * v)
                                      : _mm512_loadu_ps(c + r * a->ldc + 16 * v);
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
            if (v == NV - 1)
                _mm512_mask_storeu_ps(c + r * a->ldc + 16 * v, lm, acc[r][v]);
            else
                _mm512_storeu_ps(c + r * a->ldc + 16 * v, acc[r][v]);
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
        sp_strip_impl(a, 2, 8, vk);                                                                \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_3(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 3, 5, vk);                                                                \
    }                                                                                              \
    __attribute__((noinline)) static void sp_strip_##tag##_4(const ct__sp24_strip_args *a) {       \
        sp_strip_impl(a, 4, 4, vk);                                                                \
    }
SP_STRIP_FNS(f32, CT__SPK_F32)
SP_STRIP_FNS(bf16, CT__SPK_BF16)
SP_STRIP_FNS(fp8, CT__SPK_E4M3) /* FP8 of either kind reads the value table */

#define SP_NV_CASES(tag)                                                                           \
    switch ((a->ncols + 15) / 16) {                                                                \
    case 1: sp_strip_##tag##_1(a); break;                                                          \
    case 2: sp_strip_##tag##_2(a); break;                                                          \
    case 3: sp_strip_##tag##_3(a); break;                                                          \
    default: sp_strip_##tag##_4(a); break;                                                         \
    }

static void sp_strip(const ct__sp24_strip_args *a) {
    switch (a->vkind) {
    case CT__SPK_F32: SP_NV_CASES(f32); break;
    case CT__SPK_BF16: SP_NV_CASES(bf16); break;
    default: SP_NV_CASES(fp8); break;
    }
}

/* 16 FP8 codes -> f32, exact, through f16 (cvtph2ps widens subnormals without an f32 denormal
 * operand): an E5M2 code is the upper byte of the f16 of the same value; an E4M3 code sign-
 * extended to 16 bits and shifted left by 7 puts its exponent and mantissa in an f16 whose bias
 * is 8 too large (times 2^8 after widening) once the sign's copy at bit 14 is cleared; its NaN
 * codes (0x7F, 0xFF) are found on the bytes. */
CT__AI __m512 sp_fp8_16(int vk, __m128i c8) {
    if (vk == CT__SPK_E5M2) return _mm512_cvtph_ps(_mm256_slli_epi16(_mm256_cvtepu8_epi16(c8), 8));
    const __m256i h = _mm256_and_si256(_mm256_slli_epi16(_mm256_cvtepi8_epi16(c8), 7),
                                       _mm256_set1_epi16((short)0xBFFF));
    const __mmask16 nan =
        _mm_cmpeq_epi8_mask(_mm_or_si128(c8, _mm_set1_epi8((char)0x80)), _mm_set1_epi8((char)0xFF));
    return _mm512_mask_mul_ps(_mm512_set1_ps(NAN), (__mmask16)~nan, _mm512_cvtph_ps(h),
                              _mm512_set1_ps(256.0f));
}

/* 16 kept values of kind vk from p (full loads). */
CT__AI __m512 sp_vals16(int vk, const void *p) {
    if (vk == CT__SPK_F32) return _mm512_loadu_ps(p);
    if (vk == CT__SPK_BF16)
        return _mm512_castsi512_ps(
            _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)), 16));
    return sp_fp8_16(vk, _mm_loadu_si128((const __m128i *)p));
}

/* Permute indices of the 16 kept values of 8 groups (metadata word w) into their 32-wide x window.
 * Lane l = 2g + j takes index bits 2l..2l+1 of w, plus 4g (merged by one ternary-logic op: the
 * permute reads only the index's low five bits). */
CT__AI __m512i sp_idx(uint32_t w) {
    const __m512i sh = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i base =
        _mm512_setr_epi32(0, 0, 4, 4, 8, 8, 12, 12, 16, 16, 20, 20, 24, 24, 28, 28);
    return _mm512_ternarylogic_epi32(_mm512_srlv_epi32(_mm512_set1_epi32((int)w), sh), base,
                                     _mm512_set1_epi32(3), 0xE4);
}

/* The x operands of the 16 kept values: the window xs[0..32) picked by idx. */
CT__AI __m512 sp_sel(__m512i idx, const float *xs) {
    return _mm512_permutex2var_ps(_mm512_loadu_ps(xs), idx, _mm512_loadu_ps(xs + 16));
}

CT__AI float sp_lanes(__m512 s) {
    __m256 t8 = _mm256_add_ps(_mm512_castps512_ps256(s), _mm512_extractf32x8_ps(s, 1));
    __m128 t4 = _mm_add_ps(_mm256_castps256_ps128(t8), _mm256_extractf128_ps(t8, 1));
    __m128 t2 = _mm_add_ps(t4, _mm_movehl_ps(t4, t4));
    return _mm_cvtss_f32(_mm_add_ss(t2, _mm_shuffle_ps(t2, t2, 1)));
}

/* Rows per pass of the small-N kernel: R * N chains of 16 lanes in flight. */
#define SP_ROWS(N) ((N) == 1 ? 4 : (N) == 2 ? 2 : 1)

/* One row's last 1..7 groups (after the full steps) for N columns (x: [N][K]), through
 * zero-padded copies; the lanes past them keep acc. rv, rm: the row's values and metadata. */
CT__AI void sp_tail(const int vk, const int N, const char *rv, const uint8_t *rm, int64_t K,
                    const float *x, __m512 *acc) {
    const int64_t G = K / 4, steps = G / 8, tg = G - 8 * steps;
    const int es = ct__spk_size(vk);
    if (!tg) return;
    uint32_t w = 0;
    memcpy(&w, rm + 4 * steps, (size_t)((tg + 1) / 2));
    unsigned char vt[64] = {0};
    memcpy(vt, rv + 16 * steps * es, (size_t)(2 * tg * es));
    const __m512 v = sp_vals16(vk, vt);
    const __m512i idx = sp_idx(w);
    const __mmask16 lm = (__mmask16)((1u << (2 * tg)) - 1u);
    for (int n = 0; n < N; n++) {
        float xt[32] = {0};
        memcpy(xt, x + n * K + 32 * steps, (size_t)(4 * tg) * sizeof(float));
        acc[n] = _mm512_mask3_fmadd_ps(v, sp_sel(idx, xt), acc[n], lm);
    }
}

/* One row's steps s0.. and its tail for N columns, continuing acc[N]. */
CT__AI void sp_rest(const int vk, const int N, int64_t s0, const char *rv, const uint8_t *rm,
                    int64_t K, const float *x, __m512 *acc) {
    const int64_t steps = K / 32;
    const int es = ct__spk_size(vk);
    for (int64_t s = s0; s < steps; s++) {
        uint32_t w;
        memcpy(&w, rm + 4 * s, 4);
        const __m512 v = sp_vals16(vk, rv + 16 * s * es);
        const __m512i idx = sp_idx(w);
#pragma GCC unroll 8
        for (int n = 0; n < N; n++)
            acc[n] = _mm512_fmadd_ps(v, sp_sel(idx, x + n * K + 32 * s), acc[n]);
    }
    sp_tail(vk, N, rv, rm, K, x, acc);
}

/* R rows (values rv0, row stride vs elements; metadata rm0, stride ms) x N columns. */
CT__AI void sp_gemv_group(const int vk, const int N, const int R, const char *rv0, int64_t vs,
                          const uint8_t *rm0, int64_t ms, int64_t K, const float *x, float *y) {
    const int64_t steps = K / 32;
    const int es = ct__spk_size(vk);
    __m512 acc[R][N];
    for (int r = 0; r < R; r++)
        for (int n = 0; n < N; n++)
            acc[r][n] = _mm512_setzero_ps();
    for (int64_t s = 0; s < steps; s++) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            uint32_t w;
            memcpy(&w, rm0 + r * ms + 4 * s, 4);
            const __m512 v = sp_vals16(vk, rv0 + (r * vs + 16 * s) * es);
            const __m512i idx = sp_idx(w);
#pragma GCC unroll 8
            for (int n = 0; n < N; n++)
                acc[r][n] = _mm512_fmadd_ps(v, sp_sel(idx, x + n * K + 32 * s), acc[r][n]);
        }
    }
    for (int r = 0; r < R; r++) {
        sp_tail(vk, N, rv0 + r * vs * es, rm0 + r * ms, K, x, acc[r]);
        for (int n = 0; n < N; n++)
            y[r * N + n] = sp_lanes(acc[r][n]);
    }
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

#define SP_N_CASES(F, ...)                                                                         \
    switch (N) {                                                                                   \
    case 1: F(1, __VA_ARGS__); break;                                                              \
    case 2: F(2, __VA_ARGS__); break;                                                              \
    case 3: F(3, __VA_ARGS__); break;                                                              \
    case 4: F(4, __VA_ARGS__); break;                                                              \
    case 5: F(5, __VA_ARGS__); break;                                                              \
    case 6: F(6, __VA_ARGS__); break;                                                              \
    case 7: F(7, __VA_ARGS__); break;                                                              \
    default: F(8, __VA_ARGS__); break;                                                             \
    }

/* E4M3 with AVX512_VBMI: every E4M3 value (subnormals included) is exact in bf16, so an f32's
 * two upper bytes come from two 128-entry byte tables indexed by the code's magnitude (the sign
 * bit merged back), and one zero-masking byte permute per 16 values places them in the upper half
 * of each f32 lane: no conversion, multiply or NaN patch (the table holds the NaN). Same lanes and
 * order as sp_gemv_impl. */
typedef struct {
    __m512i tl0, tl1, th0, th1, iq[4];
} sp_vbmi_tables;

__attribute__((target("avx512vbmi"))) static inline __attribute__((always_inline)) void
sp_vbmi_group(const int N, const int R, const sp_vbmi_tables *t, const uint8_t *rv0, int64_t vs,
              const uint8_t *rm0, int64_t ms, int64_t K, const float *x, float *y) {
    const int64_t big = K / 128;
    const __m512i SB = _mm512_set1_epi8((char)0x80);
    const __mmask64 upper = 0xCCCCCCCCCCCCCCCCull; /* bytes 2 and 3 of every f32 */
    __m512 acc[R][N];
    for (int r = 0; r < R; r++)
        for (int n = 0; n < N; n++)
            acc[r][n] = _mm512_setzero_ps();
    for (int64_t b = 0; b < big; b++) {
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            const __m512i c = _mm512_loadu_si512(rv0 + r * vs + 64 * b);
            const __m512i lo = _mm512_permutex2var_epi8(t->tl0, c, t->tl1);
            const __m512i hi =
                _mm512_ternarylogic_epi32(c, _mm512_permutex2var_epi8(t->th0, c, t->th1), SB, 0xE4);
#pragma GCC unroll 4
            for (int q = 0; q < 4; q++) {
                const __m512 f =
                    _mm512_castsi512_ps(_mm512_maskz_permutex2var_epi8(upper, lo, t->iq[q], hi));
                const int64_t st = 4 * b + q;
                uint32_t w;
                memcpy(&w, rm0 + r * ms + 4 * st, 4);
                const __m512i idx = sp_idx(w);
#pragma GCC unroll 8
                for (int n = 0; n < N; n++)
                    acc[r][n] = _mm512_fmadd_ps(f, sp_sel(idx, x + n * K + 32 * st), acc[r][n]);
            }
        }
    }
    for (int r = 0; r < R; r++) { /* the remaining steps and groups: the plain kernel */
        sp_rest(CT__SPK_E4M3, N, 4 * big, (const char *)rv0 + r * vs, rm0 + r * ms, K, x, acc[r]);
        for (int n = 0; n < N; n++)
            y[r * N + n] = sp_lanes(acc[r][n]);
    }
}

/* One function per N (as the plain kernels). */
#define SP_VBMI_FN(NN)                                                                             \
    __attribute__((target("avx512vbmi"), noinline)) static void sp_vbmi_rows_##NN(                 \
        const sp_vbmi_tables *t, int64_t rows, const uint8_t *vb, int64_t vs, const uint8_t *meta, \
        int64_t ms, int64_t K, const float *x, float *y) {                                         \
        int64_t r0 = 0;                                                                            \
        for (; r0 + SP_ROWS(NN) <= rows; r0 += SP_ROWS(NN))                                        \
            sp_vbmi_group(NN, SP_ROWS(NN), t, vb + r0 * vs, vs, meta + r0 * ms, ms, K, x,          \
                          y + r0 * NN);                                                            \
        for (; r0 < rows; r0++)                                                                    \
            sp_vbmi_group(NN, 1, t, vb + r0 * vs, vs, meta + r0 * ms, ms, K, x, y + r0 * NN);      \
    }
SP_VBMI_FN(1)
SP_VBMI_FN(2)
SP_VBMI_FN(3)
SP_VBMI_FN(4)
SP_VBMI_FN(5)
SP_VBMI_FN(6)
SP_VBMI_FN(7)
SP_VBMI_FN(8)
#define SP_VBMI_CASE(NN, ...) sp_vbmi_rows_##NN(&t, rows, vb, vs, meta, ms, K, x, y)

__attribute__((target("avx512vbmi"))) static void
sp_gemv_e4m3_vbmi(int N, int64_t rows, const void *vals, const uint8_t *meta, int64_t ms, int64_t K,
                  const float *x, float *y) {
    uint8_t tb[2][128], ib[4][64];
    for (int c0 = 0; c0 < 128; c0 += 16) { /* bf16 bytes of the exact decode, 16 codes a time */
        const __m512i bits = _mm512_castps_si512(sp_fp8_16(
            CT__SPK_E4M3,
            _mm_add_epi8(_mm_set1_epi8((char)c0),
                         _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))));
        _mm_storeu_si128((__m128i *)(tb[0] + c0),
                         _mm512_cvtepi32_epi8(_mm512_srli_epi32(bits, 16)));
        _mm_storeu_si128((__m128i *)(tb[1] + c0),
                         _mm512_cvtepi32_epi8(_mm512_srli_epi32(bits, 24)));
    }
    for (int q = 0; q < 4; q++) /* f32 lane l of step q: bytes 2, 3 = lo[16q + l], hi[16q + l] */
        for (int l = 0; l < 16; l++) {
            ib[q][4 * l] = ib[q][4 * l + 1] = 0;
            ib[q][4 * l + 2] = (uint8_t)(16 * q + l);
            ib[q][4 * l + 3] = (uint8_t)(64 + 16 * q + l);
        }
    sp_vbmi_tables t;
    t.tl0 = _mm512_loadu_si512(tb[0]), t.tl1 = _mm512_loadu_si512(tb[0] + 64);
    t.th0 = _mm512_loadu_si512(tb[1]), t.th1 = _mm512_loadu_si512(tb[1] + 64);
    for (int q = 0; q < 4; q++)
        t.iq[q] = _mm512_loadu_si512(ib[q]);
    const uint8_t *vb = vals;
    const int64_t vs = K / 2;
    SP_N_CASES(SP_VBMI_CASE, 0);
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
        const __m512 m = _mm512_set1_ps(mult[r]), b = _mm512_set1_ps(bias[r]);
        float *p = c + r * ldc;
        int64_t n = 0;
        for (; n + 16 <= ncols; n += 16)
            _mm512_storeu_ps(p + n, _mm512_fmadd_ps(_mm512_loadu_ps(p + n), m, b));
        if (n < ncols) {
            const __mmask16 lm = (__mmask16)((1u << (ncols - n)) - 1u);
            _mm512_mask_storeu_ps(p + n, lm,
                                  _mm512_fmadd_ps(_mm512_maskz_loadu_ps(lm, p + n), m, b));
        }
    }
}

const ct__spk_ops ct__spk_ops_avx512 = {SP_W, 64, sp_strip, sp_gemv, sp_epilogue, sp_gemv_e4m3_vbmi,
                                        NULL};

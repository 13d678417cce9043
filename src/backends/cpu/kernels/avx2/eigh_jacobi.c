/* AVX2 batched Jacobi eigensolver (linalg.eigh kernels): one matrix per lane, 8 f32 / 4 f64
 * lanes; masks are compare vectors; layouts move through in-register 8x8 / 4x4 transposes (gathers
 * and scalar stores were a third of the 3x3 time on AMD cores). f32 uses rsqrt/rcp estimates
 * refined by Newton steps, f64 uses sqrt and division (AVX2 has no f64 estimates). */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "../eigh_kernels.h"

#define CT__EIGH_TMPL
#define CT__EIGH_ZC 8 /* 16 ymm registers */

/* ---- f32: 8 lanes ---- */
#define ELT float
#define VT __m256
#define MT __m256
#define LANES 8
#define TN(x) ct__eigh_avx2_f32_##x
#define CT__EIGH_ENTRY ct__eigh_lanes_f32_avx2
/* four lane groups at n = 8: 4-13% over two, one thread (their QR chases interleave) */
#define CT__EIGH_G8 4
#define EIGH_U2 (0x1p-24f * 0x1p-24f)
#define EIGH_TINY2 (0x1p-44f * 0x1p-44f)
#define EIGH_U 0x1p-23f /* deflation: |e| <= eps (|d0| + |d1|) + tiny */
#define EIGH_TINY 0x1p-100f
#define EIGH_TINYABS 0x1p-44f
#define M_GT(a, b) _mm256_cmp_ps((a), (b), _CMP_GT_OQ)
#define M_EQ(a, b) _mm256_cmp_ps((a), (b), _CMP_EQ_OQ)
#define M_AND _mm256_and_ps
#define M_OR _mm256_or_ps
#define M_NONE() _mm256_setzero_ps()
#define M_ANY(m) (_mm256_movemask_ps(m) != 0)
#define M_NOTFINITE(x) ct__eigh_avx2_f32_notfinite(x)
#define V_SET1(x) _mm256_set1_ps((float)(x))
#define V_ZERO() _mm256_setzero_ps()
#define V_ADD _mm256_add_ps
#define V_SUB _mm256_sub_ps
#define V_MUL _mm256_mul_ps
#define V_FMA _mm256_fmadd_ps
#define V_FNMA _mm256_fnmadd_ps
#define V_ABS(x) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (x))
#define V_MAX _mm256_max_ps
#define V_SIGN(x) _mm256_and_ps((x), _mm256_set1_ps(-0.0f))
#define V_XOR _mm256_xor_ps
#define V_SEL(m, a, b) _mm256_blendv_ps((a), (b), (m))
#define V_LOAD _mm256_load_ps
#define V_STORE _mm256_store_ps
#define V_GATHER(p, stride)                                                                        \
    _mm256_i32gather_ps((p),                                                                       \
                        _mm256_mullo_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),               \
                                           _mm256_set1_epi32((int)(stride))),                      \
                        4)
#define V_RSQRT ct__eigh_avx2_f32_rsqrt
#define V_RCP ct__eigh_avx2_f32_rcp
/* The QR chase's rotation: square root and division (on Zen 5, 8x8 f32 ~7% faster than the
 * estimates with two Newton steps each: fewer operations on the chain, the divider is otherwise
 * idle; also correctly rounded); Wilkinson's shift: the bare estimates (~5%). */
#define V_RSQRT_QR(x) _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(x))
#define V_RCP_QR(x) _mm256_div_ps(_mm256_set1_ps(1.0f), (x))
#define V_RSQRT_SHIFT _mm256_rsqrt_ps
#define V_RCP_SHIFT _mm256_rcp_ps
/* Exponent field of mx clamped to e in [-126, 126]; usc = 2^e, sc = 2^-e built from bits. */
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        __m256i ex_ = _mm256_and_si256(_mm256_castps_si256(mx), _mm256_set1_epi32(0x7f800000));    \
        ex_ = _mm256_min_epi32(_mm256_max_epi32(ex_, _mm256_set1_epi32(1 << 23)),                  \
                               _mm256_set1_epi32(253 << 23));                                      \
        *(usc) = _mm256_castsi256_ps(ex_);                                                         \
        *(sc) = _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_set1_epi32(254 << 23), ex_));          \
    } while (0)
#define M_TOINFO(bad, nc, ti)                                                                      \
    do {                                                                                           \
        int b_ = _mm256_movemask_ps(bad), c_ = _mm256_movemask_ps(nc);                             \
        for (int l_ = 0; l_ < LANES; l_++)                                                         \
            (ti)[l_] = (b_ >> l_) & 1   ? CT__EIGH_INFO_NONFINITE                                  \
                       : (c_ >> l_) & 1 ? CT__EIGH_INFO_NOCONV                                     \
                                        : 0;                                                       \
    } while (0)

static inline __m256 ct__eigh_avx2_f32_notfinite(__m256 x) {
    __m256 d = _mm256_sub_ps(x, x);
    return _mm256_cmp_ps(d, d, _CMP_UNORD_Q);
}
/* 1/sqrt(x): 12-bit estimate and two Newton steps (one is not enough for orthogonality). */
static inline __m256 ct__eigh_avx2_f32_rsqrt(__m256 x) {
    __m256 y = _mm256_rsqrt_ps(x);
    __m256 hx = _mm256_mul_ps(x, _mm256_set1_ps(0.5f));
    for (int i = 0; i < 2; i++) {
        __m256 h = _mm256_mul_ps(hx, y);
        y = _mm256_mul_ps(y, _mm256_fnmadd_ps(h, y, _mm256_set1_ps(1.5f)));
    }
    return y;
}
/* 1/sqrt(x) with one Newton step (~2^-22): the n = 3 rotation's angle (V_RSQRT_ANGLE) */
static inline __m256 ct__eigh_avx2_f32_rsqrt1(__m256 x) {
    __m256 y = _mm256_rsqrt_ps(x);
    __m256 h = _mm256_mul_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.5f)), y);
    return _mm256_mul_ps(y, _mm256_fnmadd_ps(h, y, _mm256_set1_ps(1.5f)));
}
#define V_RSQRT_ANGLE ct__eigh_avx2_f32_rsqrt1
/* c and s of the n = 3 rotation: one Newton step too (with the quaternion V they only rotate A;
 * 200 000 random 3x3: worst residual unchanged at 1.66 n*eps, orthogonality 1.12 -> 1.34; 5%
 * faster) */
#define V_RSQRT_CS ct__eigh_avx2_f32_rsqrt1
/* 1/x with one Newton step: tau of the n = 3 rotation (V_RCP_TAU) */
static inline __m256 ct__eigh_avx2_f32_rcp1(__m256 x) {
    __m256 y = _mm256_rcp_ps(x);
    return _mm256_mul_ps(y, _mm256_fnmadd_ps(x, y, _mm256_set1_ps(2.0f)));
}
#define V_RCP_TAU ct__eigh_avx2_f32_rcp1
#define V_RCP_T ct__eigh_avx2_f32_rcp1 /* t of the n = 3 rotation: it only moves the diagonal */
#define V_DIV _mm256_div_ps
/* n = 3: four groups per block, V as a quaternion (AVX2 has 16 registers: 9 per group for V
 * spilled; with the groups' chains interleaved, 3x3 f32 is ~1.4x faster than two groups and
 * explicit V columns) */
#define CT__EIGH_N3_G 4
#define CT__EIGH_N3_QUAT
static inline __m256 ct__eigh_avx2_f32_rcp(__m256 x) {
    __m256 y = _mm256_rcp_ps(x);
    y = _mm256_mul_ps(y, _mm256_fnmadd_ps(x, y, _mm256_set1_ps(2.0f)));
    return _mm256_mul_ps(y, _mm256_fnmadd_ps(x, y, _mm256_set1_ps(2.0f)));
}

/* 8x8 transpose: r[j] lane i <- r[i] lane j (unpack, shuffle, 128-bit lane swap). */
static inline void ct__eigh_avx2_tr8(__m256 r[8]) {
    __m256 t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) {
        __m256 *tt = t + 4 * h, *uu = u + 4 * h;
        uu[0] = _mm256_shuffle_ps(tt[0], tt[2], _MM_SHUFFLE(1, 0, 1, 0));
        uu[1] = _mm256_shuffle_ps(tt[0], tt[2], _MM_SHUFFLE(3, 2, 3, 2));
        uu[2] = _mm256_shuffle_ps(tt[1], tt[3], _MM_SHUFFLE(1, 0, 1, 0));
        uu[3] = _mm256_shuffle_ps(tt[1], tt[3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
        r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
    }
}

/* n = 3 fast path for a full group of 8 matrices (72 contiguous floats). In: eight unaligned
 * 8-float loads (elements 0..7 of each matrix) transposed in registers, element 8 by eight loads
 * and blends (six gathers, then one, were slower on AMD cores). Out: the eigenvectors (9 per
 * matrix) as a transpose of the first eight and overlapping unaligned stores, the ninth element
 * scalar; eigenvalues (3 per matrix) through a 3 x 8 transpose. */
static inline void TN(n3load)(const ELT *ptr, int upper, VT *a6) {
    static const int lo[6] = {0, 3, 4, 6, 7, 8}, up[6] = {0, 1, 4, 2, 5, 8};
    __m256 r[8];
    for (int l = 0; l < 8; l++)
        r[l] = _mm256_loadu_ps(ptr + 9 * l);
    ct__eigh_avx2_tr8(r);
    for (int k = 0; k < 5; k++)
        a6[k] = r[upper ? up[k] : lo[k]];
    /* element 8 of matrix l is lane l of the 8 floats at 8 (l + 1): a diagonal of 8 loads
     * (cheaper than a gather on AMD cores) */
    __m256 e = _mm256_loadu_ps(ptr + 8);
    e = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 16), 0x02);
    e = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 24), 0x04);
    e = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 32), 0x08);
    e = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 40), 0x10);
    e = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 48), 0x20);
    e = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 56), 0x40);
    a6[5] = _mm256_blend_ps(e, _mm256_loadu_ps(ptr + 64), 0x80);
}
static inline void TN(n3store)(ELT *ptr, const VT *x, int cnt) {
    ELT tmp[LANES] __attribute__((aligned(32)));
    if (cnt == 9) {
        __m256 r[8];
        for (int e = 0; e < 8; e++)
            r[e] = x[e];
        ct__eigh_avx2_tr8(r);
        V_STORE(tmp, x[8]);
        for (int l = 0; l < 8; l++) {
            _mm256_storeu_ps(ptr + 9 * l, r[l]);
            ptr[9 * l + 8] = tmp[l];
        }
        return;
    }
    if (cnt == 3) {
        /* the eigenvalues, 3 x 8 -> 8 x 3 in each 128-bit lane (x, y, z = W0, W1, W2): o0 =
         * x0 y0 z0 x1, o1 = y1 z1 x2 y2, o2 = z2 x3 y3 z3; nine shuffles and six 16-byte stores
         * instead of 24 scalar stores from a spilled vector */
        const __m256 X = x[0], Y = x[1], Z = x[2];
        const __m256 t0 = _mm256_unpacklo_ps(X, Y), t1 = _mm256_unpackhi_ps(X, Y);
        const __m256 o0 = _mm256_blend_ps(_mm256_shuffle_ps(t0, Z, _MM_SHUFFLE(0, 0, 1, 0)),
                                          _mm256_permute_ps(X, _MM_SHUFFLE(1, 1, 1, 1)), 0x88);
        const __m256 o1 = _mm256_shuffle_ps(_mm256_unpacklo_ps(Y, Z), t1, _MM_SHUFFLE(1, 0, 3, 2));
        const __m256 o2 = _mm256_permute_ps(_mm256_shuffle_ps(t1, Z, _MM_SHUFFLE(3, 2, 3, 2)),
                                            _MM_SHUFFLE(3, 1, 0, 2));
        _mm_storeu_ps(ptr, _mm256_castps256_ps128(o0));
        _mm_storeu_ps(ptr + 4, _mm256_castps256_ps128(o1));
        _mm_storeu_ps(ptr + 8, _mm256_castps256_ps128(o2));
        _mm_storeu_ps(ptr + 12, _mm256_extractf128_ps(o0, 1));
        _mm_storeu_ps(ptr + 16, _mm256_extractf128_ps(o1, 1));
        _mm_storeu_ps(ptr + 20, _mm256_extractf128_ps(o2, 1));
        return;
    }
    for (int e = 0; e < cnt; e++) {
        V_STORE(tmp, x[e]);
        for (int l = 0; l < LANES; l++)
            ptr[l * cnt + e] = tmp[l];
    }
}
#define V_N3_LOAD(ptr, upper, a6) TN(n3load)((ptr), (upper), (a6))
#define V_N3_STORE(ptr, mode, x, cnt) TN(n3store)((ptr), (x), (cnt))
/* the general path moves whole 8x8 blocks through registers too (no gathers, no scalar stores) */
#define V_TRANSPOSE ct__eigh_avx2_tr8
#define V_LOADU _mm256_loadu_ps
#define V_STOREU _mm256_storeu_ps
#define CT__EIGH_N3
#include "../eigh_kernels.h"
#undef V_TRANSPOSE
#undef V_LOADU
#undef V_STOREU
#undef ELT
#undef VT
#undef MT
#undef LANES
#undef TN
#undef CT__EIGH_ENTRY
#undef EIGH_U2
#undef EIGH_TINY2
#undef EIGH_U
#undef EIGH_TINYABS
#undef EIGH_TINY
#undef V_N3_LOAD
#undef V_N3_STORE
#undef M_GT
#undef M_EQ
#undef M_AND
#undef M_OR
#undef M_NONE
#undef M_ANY
#undef M_NOTFINITE
#undef V_SET1
#undef V_ZERO
#undef V_ADD
#undef V_SUB
#undef V_MUL
#undef V_FMA
#undef V_FNMA
#undef V_ABS
#undef V_MAX
#undef V_SIGN
#undef V_XOR
#undef V_SEL
#undef V_LOAD
#undef V_STORE
#undef V_GATHER
#undef V_RSQRT
#undef V_RCP
#undef V_RSQRT_ANGLE
#undef V_RSQRT_CS
#undef V_RCP_TAU
#undef V_RCP_T
#undef V_DIV
#undef V_EXPSCALE
#undef M_TOINFO

/* ---- f64: 4 lanes ---- */
#define ELT double
#define VT __m256d
#define MT __m256d
#define LANES 4
#define TN(x) ct__eigh_avx2_f64_##x
#define CT__EIGH_ENTRY ct__eigh_lanes_f64_avx2
/* four lane groups at n = 8 (bench A/B, 100000x8 f64: -3% to +14%, noisy) */
#define CT__EIGH_G8 4
#define EIGH_U2 (0x1p-53 * 0x1p-53)
#define EIGH_TINY2 (0x1p-80 * 0x1p-80)
#define EIGH_U 0x1p-52 /* deflation: |e| <= eps (|d0| + |d1|) + tiny */
#define EIGH_TINY 0x1p-600
#define EIGH_TINYABS 0x1p-80
#define M_GT(a, b) _mm256_cmp_pd((a), (b), _CMP_GT_OQ)
#define M_EQ(a, b) _mm256_cmp_pd((a), (b), _CMP_EQ_OQ)
#define M_AND _mm256_and_pd
#define M_OR _mm256_or_pd
#define M_NONE() _mm256_setzero_pd()
#define M_ANY(m) (_mm256_movemask_pd(m) != 0)
#define M_NOTFINITE(x) ct__eigh_avx2_f64_notfinite(x)
#define V_SET1(x) _mm256_set1_pd((double)(x))
#define V_ZERO() _mm256_setzero_pd()
#define V_ADD _mm256_add_pd
#define V_SUB _mm256_sub_pd
#define V_MUL _mm256_mul_pd
#define V_FMA _mm256_fmadd_pd
#define V_FNMA _mm256_fnmadd_pd
#define V_ABS(x) _mm256_andnot_pd(_mm256_set1_pd(-0.0), (x))
#define V_MAX _mm256_max_pd
#define V_SIGN(x) _mm256_and_pd((x), _mm256_set1_pd(-0.0))
#define V_XOR _mm256_xor_pd
#define V_SEL(m, a, b) _mm256_blendv_pd((a), (b), (m))
#define V_LOAD _mm256_load_pd
#define V_STORE _mm256_store_pd
#define V_GATHER(p, stride)                                                                        \
    _mm256_i32gather_pd(                                                                           \
        (p), _mm_mullo_epi32(_mm_set_epi32(3, 2, 1, 0), _mm_set1_epi32((int)(stride))), 8)
#define V_RSQRT(x) _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(x))
#define V_RCP(x) _mm256_div_pd(_mm256_set1_pd(1.0), (x))
/* Exponent field clamped to e in [-1022, 1022] (64-bit compares), as for f32. */
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        __m256i ex_ =                                                                              \
            _mm256_and_si256(_mm256_castpd_si256(mx), _mm256_set1_epi64x(0x7ff0000000000000LL));   \
        __m256i lo_ = _mm256_set1_epi64x(1LL << 52), hi_ = _mm256_set1_epi64x(2045LL << 52);       \
        ex_ = _mm256_blendv_epi8(ex_, lo_, _mm256_cmpgt_epi64(lo_, ex_));                          \
        ex_ = _mm256_blendv_epi8(ex_, hi_, _mm256_cmpgt_epi64(ex_, hi_));                          \
        *(usc) = _mm256_castsi256_pd(ex_);                                                         \
        *(sc) = _mm256_castsi256_pd(_mm256_sub_epi64(_mm256_set1_epi64x(2046LL << 52), ex_));      \
    } while (0)
#define M_TOINFO(bad, nc, ti)                                                                      \
    do {                                                                                           \
        int b_ = _mm256_movemask_pd(bad), c_ = _mm256_movemask_pd(nc);                             \
        for (int l_ = 0; l_ < LANES; l_++)                                                         \
            (ti)[l_] = (b_ >> l_) & 1   ? CT__EIGH_INFO_NONFINITE                                  \
                       : (c_ >> l_) & 1 ? CT__EIGH_INFO_NOCONV                                     \
                                        : 0;                                                       \
    } while (0)

/* 4x4 transpose: r[j] lane i <- r[i] lane j. */
static inline void ct__eigh_avx2_tr4d(__m256d r[4]) {
    __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
    __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
    r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

static inline __m256d ct__eigh_avx2_f64_notfinite(__m256d x) {
    __m256d d = _mm256_sub_pd(x, x);
    return _mm256_cmp_pd(d, d, _CMP_UNORD_Q);
}

/* n = 3 fast path for a full group of 4 matrices (36 contiguous doubles): 4x4 blocks through
 * registers (elements 0..3 and 4..7 of each matrix), element 8 by four loads and blends;
 * eigenvalues (3 per matrix) scalar. */
static inline void TN(n3load)(const ELT *ptr, int upper, VT *a6) {
    static const int lo[6] = {0, 3, 4, 6, 7, 8}, up[6] = {0, 1, 4, 2, 5, 8};
    __m256d r[8];
    for (int h = 0; h < 2; h++) {
        for (int l = 0; l < 4; l++)
            r[4 * h + l] = _mm256_loadu_pd(ptr + 9 * l + 4 * h);
        ct__eigh_avx2_tr4d(r + 4 * h);
    }
    for (int k = 0; k < 5; k++)
        a6[k] = r[upper ? up[k] : lo[k]];
    /* element 8 of matrix l is lane l of the 4 doubles at 8 (l + 1) */
    __m256d e = _mm256_loadu_pd(ptr + 8);
    e = _mm256_blend_pd(e, _mm256_loadu_pd(ptr + 16), 0x2);
    e = _mm256_blend_pd(e, _mm256_loadu_pd(ptr + 24), 0x4);
    a6[5] = _mm256_blend_pd(e, _mm256_loadu_pd(ptr + 32), 0x8);
}
static inline void TN(n3store)(ELT *ptr, const VT *x, int cnt) {
    ELT tmp[LANES] __attribute__((aligned(32)));
    if (cnt == 9) {
        __m256d r[8];
        for (int e = 0; e < 8; e++)
            r[e] = x[e];
        ct__eigh_avx2_tr4d(r);
        ct__eigh_avx2_tr4d(r + 4);
        V_STORE(tmp, x[8]);
        for (int l = 0; l < 4; l++) {
            _mm256_storeu_pd(ptr + 9 * l, r[l]);
            _mm256_storeu_pd(ptr + 9 * l + 4, r[4 + l]);
            ptr[9 * l + 8] = tmp[l];
        }
        return;
    }
    for (int e = 0; e < cnt; e++) {
        V_STORE(tmp, x[e]);
        for (int l = 0; l < LANES; l++)
            ptr[l * cnt + e] = tmp[l];
    }
}
#define V_N3_LOAD(ptr, upper, a6) TN(n3load)((ptr), (upper), (a6))
#define V_N3_STORE(ptr, mode, x, cnt) TN(n3store)((ptr), (x), (cnt))
#define V_TRANSPOSE ct__eigh_avx2_tr4d
#define V_LOADU _mm256_loadu_pd
#define V_STOREU _mm256_storeu_pd
#define CT__EIGH_N3
#include "../eigh_kernels.h"
#undef V_TRANSPOSE
#undef V_LOADU
#undef V_STOREU

/* AVX2 batched Jacobi eigensolver (linalg.eigh kernels): one matrix per lane, 8 f32 / 4 f64
 * lanes; masks are compare vectors. f32 uses rsqrt/rcp estimates refined by Newton steps, f64 uses
 * sqrt and division (AVX2 has no f64 estimates). */
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
static inline __m256 ct__eigh_avx2_f32_rcp(__m256 x) {
    __m256 y = _mm256_rcp_ps(x);
    y = _mm256_mul_ps(y, _mm256_fnmadd_ps(x, y, _mm256_set1_ps(2.0f)));
    return _mm256_mul_ps(y, _mm256_fnmadd_ps(x, y, _mm256_set1_ps(2.0f)));
}

/* n = 3 fast path: gathers in, scalar stores out (AVX2 has no two-source permutes). */
static inline void TN(n3load)(const ELT *ptr, int upper, VT *a6) {
    static const int lo[6] = {0, 3, 4, 6, 7, 8}, up[6] = {0, 1, 4, 2, 5, 8};
    for (int k = 0; k < 6; k++)
        a6[k] = V_GATHER(ptr + (upper ? up[k] : lo[k]), 9);
}
static inline void TN(n3store)(ELT *ptr, const VT *x, int cnt) {
    ELT tmp[LANES] __attribute__((aligned(32)));
    for (int e = 0; e < cnt; e++) {
        V_STORE(tmp, x[e]);
        for (int l = 0; l < LANES; l++)
            ptr[l * cnt + e] = tmp[l];
    }
}
#define V_N3_LOAD(ptr, upper, a6) TN(n3load)((ptr), (upper), (a6))
#define V_N3_STORE(ptr, mode, x, cnt) TN(n3store)((ptr), (x), (cnt))
#define CT__EIGH_N3
#include "../eigh_kernels.h"
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
#undef V_EXPSCALE
#undef M_TOINFO

/* ---- f64: 4 lanes ---- */
#define ELT double
#define VT __m256d
#define MT __m256d
#define LANES 4
#define TN(x) ct__eigh_avx2_f64_##x
#define CT__EIGH_ENTRY ct__eigh_lanes_f64_avx2
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

static inline __m256d ct__eigh_avx2_f64_notfinite(__m256d x) {
    __m256d d = _mm256_sub_pd(x, x);
    return _mm256_cmp_pd(d, d, _CMP_UNORD_Q);
}

/* n = 3 fast path: gathers in, scalar stores out (AVX2 has no two-source permutes). */
static inline void TN(n3load)(const ELT *ptr, int upper, VT *a6) {
    static const int lo[6] = {0, 3, 4, 6, 7, 8}, up[6] = {0, 1, 4, 2, 5, 8};
    for (int k = 0; k < 6; k++)
        a6[k] = V_GATHER(ptr + (upper ? up[k] : lo[k]), 9);
}
static inline void TN(n3store)(ELT *ptr, const VT *x, int cnt) {
    ELT tmp[LANES] __attribute__((aligned(32)));
    for (int e = 0; e < cnt; e++) {
        V_STORE(tmp, x[e]);
        for (int l = 0; l < LANES; l++)
            ptr[l * cnt + e] = tmp[l];
    }
}
#define V_N3_LOAD(ptr, upper, a6) TN(n3load)((ptr), (upper), (a6))
#define V_N3_STORE(ptr, mode, x, cnt) TN(n3store)((ptr), (x), (cnt))
#define CT__EIGH_N3
#include "../eigh_kernels.h"

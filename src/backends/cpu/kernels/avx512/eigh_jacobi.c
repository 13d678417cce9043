/* AVX-512 batched Jacobi eigensolver (linalg.eigh kernels): one matrix per lane, 16 f32 / 8 f64
 * lanes per register, rsqrt14/rcp14 refined by Newton steps instead of sqrt and division. */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#include "../eigh_kernels.h"

#define CT__EIGH_TMPL

/* ---- f32: 16 lanes ---- */
#define ELT float
#define VT __m512
#define MT __mmask16
#define LANES 16
#define TN(x) ct__eigh_avx512_f32_##x
#define CT__EIGH_ENTRY ct__eigh_jacobi_f32_avx512
#define EIGH_U2 (0x1p-24f * 0x1p-24f)
#define EIGH_TINY2 (0x1p-44f * 0x1p-44f)
#define M_GT(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_GT_OQ)
#define M_AND(a, b) ((MT)((a) & (b)))
#define M_OR(a, b) ((MT)((a) | (b)))
#define M_NONE() ((MT)0)
#define M_ANY(m) ((m) != 0)
#define M_NOTFINITE(x) ct__eigh_avx512_f32_notfinite(x)
#define V_SET1(x) _mm512_set1_ps((float)(x))
#define V_ZERO() _mm512_setzero_ps()
#define V_ADD _mm512_add_ps
#define V_SUB _mm512_sub_ps
#define V_MUL _mm512_mul_ps
#define V_FMA _mm512_fmadd_ps
#define V_FNMA _mm512_fnmadd_ps
#define V_ABS _mm512_abs_ps
#define V_MAX _mm512_max_ps
#define V_SIGN(x) _mm512_and_ps((x), _mm512_set1_ps(-0.0f))
#define V_XOR _mm512_xor_ps
#define V_SEL(m, a, b) _mm512_mask_blend_ps((m), (a), (b))
#define V_LOAD _mm512_load_ps
#define V_STORE _mm512_store_ps
#define V_GATHER(p, stride)                                                                        \
    _mm512_i32gather_ps(_mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6,   \
                                                            5, 4, 3, 2, 1, 0),                     \
                                           _mm512_set1_epi32((int)(stride))),                      \
                        (p), 4)
#define V_RSQRT ct__eigh_avx512_f32_rsqrt
#define V_RCP ct__eigh_avx512_f32_rcp
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        __m512 e_ = _mm512_min_ps(_mm512_max_ps(_mm512_getexp_ps(mx), _mm512_set1_ps(-126.0f)),  \
                                  _mm512_set1_ps(126.0f));                                         \
        *(sc) = _mm512_scalef_ps(_mm512_set1_ps(1.0f), _mm512_sub_ps(_mm512_setzero_ps(), e_));   \
        *(usc) = _mm512_scalef_ps(_mm512_set1_ps(1.0f), e_);                                       \
    } while (0)
#define M_TOINFO(bad, nc, ti)                                                                      \
    for (int l_ = 0; l_ < LANES; l_++)                                                             \
    (ti)[l_] = ((bad) >> l_) & 1 ? CT__EIGH_INFO_NONFINITE : ((nc) >> l_) & 1 ? CT__EIGH_INFO_NOCONV : 0

static inline __mmask16 ct__eigh_avx512_f32_notfinite(__m512 x) {
    __m512 d = _mm512_sub_ps(x, x);
    return _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q);
}
/* 1/sqrt(x) to ~1 ulp: 14-bit estimate and one Newton step y (1.5 - 0.5 x y^2). */
static inline __m512 ct__eigh_avx512_f32_rsqrt(__m512 x) {
    __m512 y = _mm512_rsqrt14_ps(x);
    __m512 h = _mm512_mul_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.5f)), y);
    return _mm512_mul_ps(y, _mm512_fnmadd_ps(h, y, _mm512_set1_ps(1.5f)));
}
static inline __m512 ct__eigh_avx512_f32_rcp(__m512 x) {
    __m512 y = _mm512_rcp14_ps(x);
    return _mm512_mul_ps(y, _mm512_fnmadd_ps(x, y, _mm512_set1_ps(2.0f)));
}
#include "../eigh_kernels.h"
#undef ELT
#undef VT
#undef MT
#undef LANES
#undef TN
#undef CT__EIGH_ENTRY
#undef EIGH_U2
#undef EIGH_TINY2
#undef M_GT
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

/* ---- f64: 8 lanes ---- */
#define ELT double
#define VT __m512d
#define MT __mmask8
#define LANES 8
#define TN(x) ct__eigh_avx512_f64_##x
#define CT__EIGH_ENTRY ct__eigh_jacobi_f64_avx512
#define EIGH_U2 (0x1p-53 * 0x1p-53)
#define EIGH_TINY2 (0x1p-80 * 0x1p-80)
#define M_GT(a, b) _mm512_cmp_pd_mask((a), (b), _CMP_GT_OQ)
#define M_AND(a, b) ((MT)((a) & (b)))
#define M_OR(a, b) ((MT)((a) | (b)))
#define M_NONE() ((MT)0)
#define M_ANY(m) ((m) != 0)
#define M_NOTFINITE(x) ct__eigh_avx512_f64_notfinite(x)
#define V_SET1(x) _mm512_set1_pd((double)(x))
#define V_ZERO() _mm512_setzero_pd()
#define V_ADD _mm512_add_pd
#define V_SUB _mm512_sub_pd
#define V_MUL _mm512_mul_pd
#define V_FMA _mm512_fmadd_pd
#define V_FNMA _mm512_fnmadd_pd
#define V_ABS _mm512_abs_pd
#define V_MAX _mm512_max_pd
#define V_SIGN(x) _mm512_and_pd((x), _mm512_set1_pd(-0.0))
#define V_XOR _mm512_xor_pd
#define V_SEL(m, a, b) _mm512_mask_blend_pd((m), (a), (b))
#define V_LOAD _mm512_load_pd
#define V_STORE _mm512_store_pd
#define V_GATHER(p, stride)                                                                        \
    _mm512_i32gather_pd(_mm256_mullo_epi32(_mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0),               \
                                           _mm256_set1_epi32((int)(stride))),                      \
                        (p), 8)
#define V_RSQRT ct__eigh_avx512_f64_rsqrt
#define V_RCP ct__eigh_avx512_f64_rcp
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        __m512d e_ = _mm512_min_pd(_mm512_max_pd(_mm512_getexp_pd(mx), _mm512_set1_pd(-1022.0)), \
                                   _mm512_set1_pd(1022.0));                                        \
        *(sc) = _mm512_scalef_pd(_mm512_set1_pd(1.0), _mm512_sub_pd(_mm512_setzero_pd(), e_));    \
        *(usc) = _mm512_scalef_pd(_mm512_set1_pd(1.0), e_);                                        \
    } while (0)
#define M_TOINFO(bad, nc, ti)                                                                      \
    for (int l_ = 0; l_ < LANES; l_++)                                                             \
    (ti)[l_] = ((bad) >> l_) & 1 ? CT__EIGH_INFO_NONFINITE : ((nc) >> l_) & 1 ? CT__EIGH_INFO_NOCONV : 0

static inline __mmask8 ct__eigh_avx512_f64_notfinite(__m512d x) {
    __m512d d = _mm512_sub_pd(x, x);
    return _mm512_cmp_pd_mask(d, d, _CMP_UNORD_Q);
}
/* 1/sqrt(x): 14-bit estimate and two Newton steps (~52 bits). */
static inline __m512d ct__eigh_avx512_f64_rsqrt(__m512d x) {
    __m512d y = _mm512_rsqrt14_pd(x);
    __m512d hx = _mm512_mul_pd(x, _mm512_set1_pd(0.5));
    for (int i = 0; i < 2; i++) {
        __m512d h = _mm512_mul_pd(hx, y);
        y = _mm512_mul_pd(y, _mm512_fnmadd_pd(h, y, _mm512_set1_pd(1.5)));
    }
    return y;
}
static inline __m512d ct__eigh_avx512_f64_rcp(__m512d x) {
    __m512d y = _mm512_rcp14_pd(x);
    y = _mm512_mul_pd(y, _mm512_fnmadd_pd(x, y, _mm512_set1_pd(2.0)));
    return _mm512_mul_pd(y, _mm512_fnmadd_pd(x, y, _mm512_set1_pd(2.0)));
}
#include "../eigh_kernels.h"

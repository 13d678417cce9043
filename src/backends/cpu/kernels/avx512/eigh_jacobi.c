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
#define CT__EIGH_ENTRY ct__eigh_lanes_f32_avx512
#define EIGH_U2 (0x1p-24f * 0x1p-24f)
#define EIGH_TINY2 (0x1p-44f * 0x1p-44f)
#define EIGH_U 0x1p-23f /* deflation: |e| <= eps (|d0| + |d1|) + tiny */
#define EIGH_TINYABS 0x1p-44f
#define M_GT(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_GT_OQ)
#define M_EQ(a, b) _mm512_cmp_ps_mask((a), (b), _CMP_EQ_OQ)
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
    _mm512_i32gather_ps(                                                                           \
        _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), \
                           _mm512_set1_epi32((int)(stride))),                                      \
        (p), 4)
#define V_RSQRT ct__eigh_avx512_f32_rsqrt
#define V_RCP ct__eigh_avx512_f32_rcp
/* n = 3: four groups per block, V as a quaternion (~1.25x faster than two groups and V columns) */
#define CT__EIGH_N3_G 4
#define CT__EIGH_N3_QUAT
#define V_DIV _mm512_div_ps
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        __m512 e_ = _mm512_min_ps(_mm512_max_ps(_mm512_getexp_ps(mx), _mm512_set1_ps(-126.0f)),    \
                                  _mm512_set1_ps(126.0f));                                         \
        *(sc) = _mm512_scalef_ps(_mm512_set1_ps(1.0f), _mm512_sub_ps(_mm512_setzero_ps(), e_));    \
        *(usc) = _mm512_scalef_ps(_mm512_set1_ps(1.0f), e_);                                       \
    } while (0)
#define M_TOINFO(bad, nc, ti)                                                                      \
    for (int l_ = 0; l_ < LANES; l_++)                                                             \
    (ti)[l_] = ((bad) >> l_) & 1  ? CT__EIGH_INFO_NONFINITE                                        \
               : ((nc) >> l_) & 1 ? CT__EIGH_INFO_NOCONV                                           \
                                  : 0

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
/* 1/sqrt(x) = *y * *p for the Givens chase (see the f64 version) */
static inline void ct__eigh_avx512_f32_rsqrt_split(__m512 x, __m512 *y_, __m512 *p_) {
    __m512 y = _mm512_rsqrt14_ps(x);
    __m512 h = _mm512_mul_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.5f)), y);
    *y_ = y;
    *p_ = _mm512_fnmadd_ps(h, y, _mm512_set1_ps(1.5f));
}
#define V_RSQRT_SPLIT ct__eigh_avx512_f32_rsqrt_split
static inline __m512 ct__eigh_avx512_f32_rcp(__m512 x) {
    __m512 y = _mm512_rcp14_ps(x);
    return _mm512_mul_ps(y, _mm512_fnmadd_ps(x, y, _mm512_set1_ps(2.0f)));
}

/* In-register transposes for n = 3. deint3(a,b,c,j): lane i = element 3i+j of the 48-element
 * concatenation a|b|c; int3(x0,x1,x2,r): lane i = element r*16+i of the interleave x0[0] x1[0]
 * x2[0] x0[1] ... Two-source permute plus a masked one-source permute each. */
static inline __m512 ct__eigh_avx512_f32_deint3(__m512 a, __m512 b, __m512 c, int j) {
    __m512i p = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                           _mm512_set1_epi32(3)),
        _mm512_set1_epi32(j));
    __m512 t = _mm512_permutex2var_ps(a, p, b);
    __mmask16 m = _mm512_cmpge_epi32_mask(p, _mm512_set1_epi32(32));
    return _mm512_mask_permutexvar_ps(t, m, p, c);
}
static const int32_t ct__eigh_avx512_f32_i3a[3][16]
    __attribute__((aligned(64))) = {{0, 16, 0, 1, 17, 0, 2, 18, 0, 3, 19, 0, 4, 20, 0, 5},
                                    {21, 0, 6, 22, 0, 7, 23, 0, 8, 24, 0, 9, 25, 0, 10, 26},
                                    {0, 11, 27, 0, 12, 28, 0, 13, 29, 0, 14, 30, 0, 15, 31, 0}};
static const int32_t ct__eigh_avx512_f32_i3b[3][16]
    __attribute__((aligned(64))) = {{0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0},
                                    {0, 5, 0, 0, 6, 0, 0, 7, 0, 0, 8, 0, 0, 9, 0, 0},
                                    {10, 0, 0, 11, 0, 0, 12, 0, 0, 13, 0, 0, 14, 0, 0, 15}};
static const __mmask16 ct__eigh_avx512_f32_i3m[3] = {0x4924, 0x2492, 0x9249};
static inline __m512 ct__eigh_avx512_f32_int3(__m512 x0, __m512 x1, __m512 x2, int r) {
    __m512 t = _mm512_permutex2var_ps(x0, _mm512_load_si512(ct__eigh_avx512_f32_i3a[r]), x1);
    return _mm512_mask_permutexvar_ps(t, ct__eigh_avx512_f32_i3m[r],
                                      _mm512_load_si512(ct__eigh_avx512_f32_i3b[r]), x2);
}

/* 16x16 transpose in registers (4 shuffle stages, 64 shuffles): r[i] lane j <-> r[j] lane i. */
static inline void ct__eigh_avx512_f32_tr16(__m512 *r) {
    __m512 t[16], u[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++) {
        __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
        __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
        u[4 * i + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
        u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
        u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
        u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
    }
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 4; i++) {
            t[8 * h + i] = _mm512_shuffle_f32x4(u[8 * h + i], u[8 * h + i + 4], 0x88);
            t[8 * h + i + 4] = _mm512_shuffle_f32x4(u[8 * h + i], u[8 * h + i + 4], 0xdd);
        }
    for (int i = 0; i < 8; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    }
}
#define V_TRANSPOSE ct__eigh_avx512_f32_tr16
#define TNX(x) ct__eigh_avx512_f32_##x
#define V_LOADU _mm512_loadu_ps
#define V_STOREU _mm512_storeu_ps
#define EIGH_TINY 0x1p-100f

/* Load LANES 3x3 matrices (9 registers) and transpose to SoA: level 1 splits each 3-register block
 * by column, level 2 splits each column sequence by row. a6 = a00 a10 a11 a20 a21 a22 (read from
 * the upper triangle when upper). */
static inline void TNX(n3load)(const ELT *ptr, int upper, VT *a6) {
    VT r[9], X[3][3];
    for (int i = 0; i < 9; i++)
        r[i] = V_LOADU(ptr + i * LANES);
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 3; j++)
            X[j][b] = TNX(deint3)(r[3 * b], r[3 * b + 1], r[3 * b + 2], j);
#define CT__E(row, col) TNX(deint3)(X[col][0], X[col][1], X[col][2], row)
    a6[0] = CT__E(0, 0);
    a6[2] = CT__E(1, 1);
    a6[5] = CT__E(2, 2);
    if (upper) {
        a6[1] = CT__E(0, 1);
        a6[3] = CT__E(0, 2);
        a6[4] = CT__E(1, 2);
    } else {
        a6[1] = CT__E(1, 0);
        a6[3] = CT__E(2, 0);
        a6[4] = CT__E(2, 1);
    }
#undef CT__E
}
/* Store SoA registers as AoS: mode 1: x[i] = w_i (3 registers); mode 3: x[k*3+j] = V_kj. */
static inline void TNX(n3store)(ELT *ptr, int mode, const VT *x) {
    if (mode == 1) {
        for (int r = 0; r < 3; r++)
            V_STOREU(ptr + r * LANES, TNX(int3)(x[0], x[1], x[2], r));
        return;
    }
    VT S[3][3];
    for (int j = 0; j < 3; j++)
        for (int b = 0; b < 3; b++)
            S[j][b] = TNX(int3)(x[j], x[3 + j], x[6 + j], b);
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 3; i++)
            V_STOREU(ptr + (3 * b + i) * LANES, TNX(int3)(S[0][b], S[1][b], S[2][b], i));
}
#define V_N3_LOAD(ptr, upper, a6) TNX(n3load)((ptr), (upper), (a6))
#define V_N3_STORE(ptr, mode, x, cnt) TNX(n3store)((ptr), (mode), (x))
#define CT__EIGH_N3
#include "../eigh_kernels.h"
#undef TNX
#undef V_TRANSPOSE
#undef V_LOADU
#undef V_STOREU
#undef EIGH_TINY
#undef V_N3_LOAD
#undef V_N3_STORE
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
#undef V_RSQRT_SPLIT
#undef V_RCP
#undef V_DIV
#undef V_EXPSCALE

/* ---- f64: 8 lanes ---- */
#define ELT double
#define VT __m512d
#define MT __mmask8
#define LANES 8
#define TN(x) ct__eigh_avx512_f64_##x
#define CT__EIGH_ENTRY ct__eigh_lanes_f64_avx512
#define EIGH_U2 (0x1p-53 * 0x1p-53)
#define EIGH_TINY2 (0x1p-80 * 0x1p-80)
#define EIGH_U 0x1p-52 /* deflation: |e| <= eps (|d0| + |d1|) + tiny */
#define EIGH_TINYABS 0x1p-80
#define M_GT(a, b) _mm512_cmp_pd_mask((a), (b), _CMP_GT_OQ)
#define M_EQ(a, b) _mm512_cmp_pd_mask((a), (b), _CMP_EQ_OQ)
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
#define CT__EIGH_N3_G 4 /* n = 3: four groups per block (~1.15x faster than two) */
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        __m512d e_ = _mm512_min_pd(_mm512_max_pd(_mm512_getexp_pd(mx), _mm512_set1_pd(-1022.0)),   \
                                   _mm512_set1_pd(1022.0));                                        \
        *(sc) = _mm512_scalef_pd(_mm512_set1_pd(1.0), _mm512_sub_pd(_mm512_setzero_pd(), e_));     \
        *(usc) = _mm512_scalef_pd(_mm512_set1_pd(1.0), e_);                                        \
    } while (0)
#define M_TOINFO(bad, nc, ti)                                                                      \
    for (int l_ = 0; l_ < LANES; l_++)                                                             \
    (ti)[l_] = ((bad) >> l_) & 1  ? CT__EIGH_INFO_NONFINITE                                        \
               : ((nc) >> l_) & 1 ? CT__EIGH_INFO_NOCONV                                           \
                                  : 0

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
/* 1/sqrt(x) split for the Givens chase: = *y * *p (y after one Newton step, p the second step's
 * factor), so that the chase multiplies |x| and z by y first and p last: one multiply less on
 * its serial path. */
static inline void ct__eigh_avx512_f64_rsqrt_split(__m512d x, __m512d *y_, __m512d *p_) {
    __m512d y = _mm512_rsqrt14_pd(x);
    __m512d hx = _mm512_mul_pd(x, _mm512_set1_pd(0.5));
    __m512d h = _mm512_mul_pd(hx, y);
    y = _mm512_mul_pd(y, _mm512_fnmadd_pd(h, y, _mm512_set1_pd(1.5)));
    h = _mm512_mul_pd(hx, y);
    *y_ = y;
    *p_ = _mm512_fnmadd_pd(h, y, _mm512_set1_pd(1.5));
}
#define V_RSQRT_SPLIT ct__eigh_avx512_f64_rsqrt_split
static inline __m512d ct__eigh_avx512_f64_rcp(__m512d x) {
    __m512d y = _mm512_rcp14_pd(x);
    y = _mm512_mul_pd(y, _mm512_fnmadd_pd(x, y, _mm512_set1_pd(2.0)));
    return _mm512_mul_pd(y, _mm512_fnmadd_pd(x, y, _mm512_set1_pd(2.0)));
}

static inline __m512d ct__eigh_avx512_f64_deint3(__m512d a, __m512d b, __m512d c, int j) {
    __m512i p = _mm512_add_epi64(
        _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(3)),
        _mm512_set1_epi64(j));
    __m512d t = _mm512_permutex2var_pd(a, p, b);
    __mmask8 m = _mm512_cmpge_epi64_mask(p, _mm512_set1_epi64(16));
    return _mm512_mask_permutexvar_pd(t, m, p, c);
}
static const int64_t ct__eigh_avx512_f64_i3a[3][8] __attribute__((aligned(64))) = {
    {0, 8, 0, 1, 9, 0, 2, 10}, {0, 3, 11, 0, 4, 12, 0, 5}, {13, 0, 6, 14, 0, 7, 15, 0}};
static const int64_t ct__eigh_avx512_f64_i3b[3][8] __attribute__((aligned(64))) = {
    {0, 0, 0, 0, 0, 1, 0, 0}, {2, 0, 0, 3, 0, 0, 4, 0}, {0, 5, 0, 0, 6, 0, 0, 7}};
static const __mmask8 ct__eigh_avx512_f64_i3m[3] = {0x24, 0x49, 0x92};
static inline __m512d ct__eigh_avx512_f64_int3(__m512d x0, __m512d x1, __m512d x2, int r) {
    __m512d t = _mm512_permutex2var_pd(x0, _mm512_load_si512(ct__eigh_avx512_f64_i3a[r]), x1);
    return _mm512_mask_permutexvar_pd(t, ct__eigh_avx512_f64_i3m[r],
                                      _mm512_load_si512(ct__eigh_avx512_f64_i3b[r]), x2);
}

/* 8x8 transpose in registers (3 shuffle stages). */
static inline void ct__eigh_avx512_f64_tr8(__m512d *r) {
    __m512d t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) {
        u[4 * h + 0] = _mm512_shuffle_f64x2(t[4 * h + 0], t[4 * h + 2], 0x88);
        u[4 * h + 1] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0x88);
        u[4 * h + 2] = _mm512_shuffle_f64x2(t[4 * h + 0], t[4 * h + 2], 0xdd);
        u[4 * h + 3] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0xdd);
    }
    for (int i = 0; i < 4; i++) {
        r[i] = _mm512_shuffle_f64x2(u[i], u[i + 4], 0x88);
        r[i + 4] = _mm512_shuffle_f64x2(u[i], u[i + 4], 0xdd);
    }
}
#define V_TRANSPOSE ct__eigh_avx512_f64_tr8
/* eigenvectors of big outputs: non-temporal stores (measured for f64 only) */
#define V_STREAM _mm512_stream_pd
#define V_SFENCE _mm_sfence
#define TNX(x) ct__eigh_avx512_f64_##x
#define V_LOADU _mm512_loadu_pd
#define V_STOREU _mm512_storeu_pd
#define EIGH_TINY 0x1p-600

/* Load LANES 3x3 matrices (9 registers) and transpose to SoA: level 1 splits each 3-register block
 * by column, level 2 splits each column sequence by row. a6 = a00 a10 a11 a20 a21 a22 (read from
 * the upper triangle when upper). */
static inline void TNX(n3load)(const ELT *ptr, int upper, VT *a6) {
    VT r[9], X[3][3];
    for (int i = 0; i < 9; i++)
        r[i] = V_LOADU(ptr + i * LANES);
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 3; j++)
            X[j][b] = TNX(deint3)(r[3 * b], r[3 * b + 1], r[3 * b + 2], j);
#define CT__E(row, col) TNX(deint3)(X[col][0], X[col][1], X[col][2], row)
    a6[0] = CT__E(0, 0);
    a6[2] = CT__E(1, 1);
    a6[5] = CT__E(2, 2);
    if (upper) {
        a6[1] = CT__E(0, 1);
        a6[3] = CT__E(0, 2);
        a6[4] = CT__E(1, 2);
    } else {
        a6[1] = CT__E(1, 0);
        a6[3] = CT__E(2, 0);
        a6[4] = CT__E(2, 1);
    }
#undef CT__E
}
/* Store SoA registers as AoS: mode 1: x[i] = w_i (3 registers); mode 3: x[k*3+j] = V_kj. */
static inline void TNX(n3store)(ELT *ptr, int mode, const VT *x) {
    if (mode == 1) {
        for (int r = 0; r < 3; r++)
            V_STOREU(ptr + r * LANES, TNX(int3)(x[0], x[1], x[2], r));
        return;
    }
    VT S[3][3];
    for (int j = 0; j < 3; j++)
        for (int b = 0; b < 3; b++)
            S[j][b] = TNX(int3)(x[j], x[3 + j], x[6 + j], b);
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 3; i++)
            V_STOREU(ptr + (3 * b + i) * LANES, TNX(int3)(S[0][b], S[1][b], S[2][b], i));
}
#define V_N3_LOAD(ptr, upper, a6) TNX(n3load)((ptr), (upper), (a6))
#define V_N3_STORE(ptr, mode, x, cnt) TNX(n3store)((ptr), (mode), (x))
#define CT__EIGH_N3
#include "../eigh_kernels.h"

/* Scalar reference batched Jacobi eigensolver (linalg.eigh kernels, f32 and f64): the lane
 * template of eigh_kernels.h instantiated with one lane, exact sqrt and division. */
#include <math.h>
#include <stdint.h>

#include "../eigh_kernels.h"

#define CT__EIGH_TMPL
#define LANES 1
#define MT int
#define M_GT(a, b) ((a) > (b))
#define M_EQ(a, b) ((a) == (b))
#define M_AND(a, b) ((a) & (b))
#define M_OR(a, b) ((a) | (b))
#define M_NONE() 0
#define M_ANY(m) (m)
#define M_NOTFINITE(x) (!isfinite(x))
#define M_TOINFO(bad, nc, ti)                                                                      \
    ((ti)[0] = (bad) ? CT__EIGH_INFO_NONFINITE : (nc) ? CT__EIGH_INFO_NOCONV : 0)
#define V_SET1(x) ((ELT)(x))
#define V_ZERO() ((ELT)0)
#define V_ADD(a, b) ((a) + (b))
#define V_SUB(a, b) ((a) - (b))
#define V_MUL(a, b) ((a) * (b))
#define V_FMA(a, b, c) ((a) * (b) + (c))
#define V_FNMA(a, b, c) ((c) - (a) * (b))
#define V_ABS(x) ((x) < 0 ? -(x) : (x))
#define V_MAX(a, b) ((a) > (b) ? (a) : (b))
#define V_SIGN(x) (signbit(x) ? (ELT)-0.0 : (ELT)0.0)
#define V_XOR(a, s) (signbit(s) ? -(a) : (a))
#define V_SEL(m, a, b) ((m) ? (b) : (a))
#define V_LOAD(p) (*(p))
#define V_STORE(p, x) (*(p) = (x))
#define V_GATHER(p, stride) (*(p))

/* sc = 2^-e, usc = 2^e with e = floor(log2 mx) clamped so both are normal numbers. */
#define V_EXPSCALE(mx, sc, usc)                                                                    \
    do {                                                                                           \
        int e_ = 0;                                                                                \
        if (isfinite(mx) && (mx) > 0) {                                                            \
            (void)frexp((double)(mx), &e_);                                                        \
            e_ -= 1;                                                                               \
        }                                                                                          \
        if (e_ < -EIGH_EMAX) e_ = -EIGH_EMAX;                                                      \
        if (e_ > EIGH_EMAX) e_ = EIGH_EMAX;                                                        \
        *(sc) = (ELT)ldexp(1.0, -e_);                                                              \
        *(usc) = (ELT)ldexp(1.0, e_);                                                              \
    } while (0)

/* ---- f32 ---- */
#define ELT float
#define VT float
#define TN(x) ct__eigh_ref_f32_##x
#define CT__EIGH_ENTRY ct__eigh_lanes_f32_ref
#define V_RSQRT(x) (1.0f / sqrtf(x))
#define V_RCP(x) (1.0f / (x))
#define EIGH_U2 (0x1p-24f * 0x1p-24f)
#define EIGH_TINY2 (0x1p-44f * 0x1p-44f)
#define EIGH_U 0x1p-23f /* deflation: |e| <= eps (|d0| + |d1|) + tiny */
#define EIGH_TINYABS 0x1p-44f
#define EIGH_EMAX 126
#include "../eigh_kernels.h"
#undef ELT
#undef VT
#undef TN
#undef CT__EIGH_ENTRY
#undef V_RSQRT
#undef V_RCP
#undef EIGH_U2
#undef EIGH_TINY2
#undef EIGH_U
#undef EIGH_TINYABS
#undef EIGH_EMAX

/* ---- f64 ---- */
#define ELT double
#define VT double
#define TN(x) ct__eigh_ref_f64_##x
#define CT__EIGH_ENTRY ct__eigh_lanes_f64_ref
#define V_RSQRT(x) (1.0 / sqrt(x))
#define V_RCP(x) (1.0 / (x))
#define EIGH_U2 (0x1p-53 * 0x1p-53)
#define EIGH_TINY2 (0x1p-80 * 0x1p-80)
#define EIGH_U 0x1p-52 /* deflation: |e| <= eps (|d0| + |d1|) + tiny */
#define EIGH_TINYABS 0x1p-80
#define EIGH_EMAX 1022
#include "../eigh_kernels.h"

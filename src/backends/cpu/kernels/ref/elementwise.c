/* Scalar reference elementwise kernels for every compute dtype (the oracle the ISA fast paths are
 * tested against), plus the selection of contiguous fast paths from the ISA table.
 * Integer arithmetic wraps (computed in uint64) as PyTorch's does in practice; float math runs in
 * the element type (f16/bf16 in f32, rounded once on store). */
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/ref/special_math.h"

#include <tgmath.h>

#define ID(x) (x)
#define B2(x) ((x) != 0)
#define IW(x) ((int64_t)(uint64_t)(x))
#define IADD(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define ISUB(a, b) ((int64_t)((uint64_t)(a) - (uint64_t)(b)))
#define IMUL(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))

/* (suffix, storage type, math type, load, store) for each family */
#define CT_FLOATS(X, ...)                                                                          \
    X(f32, float, float, ID, ID, __VA_ARGS__)                                                      \
    X(f64, double, double, ID, ID, __VA_ARGS__)                                                    \
    X(f16, uint16_t, float, ct__h2f, ct__f2h, __VA_ARGS__)                                         \
    X(bf16, uint16_t, float, ct__bf2f, ct__f2bf, __VA_ARGS__)
/* the float families one at a time (ops whose rounding differs per type, as PyTorch's) */
#define CT_F32F64(X, ...)                                                                          \
    X(f32, float, float, ID, ID, __VA_ARGS__)                                                      \
    X(f64, double, double, ID, ID, __VA_ARGS__)
#define CT_F16(X, ...) X(f16, uint16_t, float, ct__h2f, ct__f2h, __VA_ARGS__)
#define CT_BF16(X, ...) X(bf16, uint16_t, float, ct__bf2f, ct__f2bf, __VA_ARGS__)
#define CT_INTS(X, ...)                                                                            \
    X(u8, uint8_t, int64_t, ID, ID, __VA_ARGS__)                                                   \
    X(i8, int8_t, int64_t, ID, ID, __VA_ARGS__)                                                    \
    X(i16, int16_t, int64_t, ID, ID, __VA_ARGS__)                                                  \
    X(i32, int32_t, int64_t, ID, ID, __VA_ARGS__)                                                  \
    X(i64, int64_t, int64_t, ID, ID, __VA_ARGS__)
/* bools are read as bytes (any nonzero byte is true: reading a byte other than 0/1 as _Bool is UB)
 */
#define CT_HALVES(X, ...)                                                                          \
    X(f16, uint16_t, float, ct__h2f, ct__f2h, __VA_ARGS__)                                         \
    X(bf16, uint16_t, float, ct__bf2f, ct__f2bf, __VA_ARGS__)
#define CT_BOOLS(X, ...) X(b, uint8_t, int64_t, B2, B2, __VA_ARGS__)

#define CT_TAB_ENTRY_f32 [CT_FLOAT32]
#define CT_TAB_ENTRY_f64 [CT_FLOAT64]
#define CT_TAB_ENTRY_f16 [CT_FLOAT16]
#define CT_TAB_ENTRY_bf16 [CT_BFLOAT16]
#define CT_TAB_ENTRY_u8 [CT_UINT8]
#define CT_TAB_ENTRY_i8 [CT_INT8]
#define CT_TAB_ENTRY_i16 [CT_INT16]
#define CT_TAB_ENTRY_i32 [CT_INT32]
#define CT_TAB_ENTRY_i64 [CT_INT64]
#define CT_TAB_ENTRY_b [CT_BOOL]

/* ---- loop generators ---- */
#define CT_GEN_BIN(SUF, T, MT, LD, ST, NAME, EXPR)                                                 \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        typedef MT ct_mt;                                                                          \
        (void)sizeof(ct_mt);                                                                       \
        const MT alpha = (MT)op->scalars[0];                                                       \
        (void)alpha;                                                                               \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            MT a = LD(*(const T *)pa), b = LD(*(const T *)pb);                                     \
            *(T *)o = ST(EXPR);                                                                    \
        }                                                                                          \
    }
/* comparisons: contiguous runs against a contiguous or a broadcast (stride 0) second operand
 * take plain indexed loops the compiler vectorises (relu's backward compares with a 0-d zero) */
#define CT_GEN_CMP(SUF, T, MT, LD, ST, NAME, OPR)                                                  \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        if (s[0] == 1 && s[1] == (int64_t)sizeof(T)) {                                             \
            bool *oo = (bool *)o;                                                                  \
            const T *xa = (const T *)pa, *xb = (const T *)pb;                                      \
            if (s[2] == 0) {                                                                       \
                const MT b = LD(*xb);                                                              \
                for (int64_t i = 0; i < n; i++)                                                    \
                    oo[i] = LD(xa[i]) OPR b;                                                       \
                return;                                                                            \
            }                                                                                      \
            if (s[2] == (int64_t)sizeof(T)) {                                                      \
                for (int64_t i = 0; i < n; i++)                                                    \
                    oo[i] = LD(xa[i]) OPR LD(xb[i]);                                               \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            MT a = LD(*(const T *)pa), b = LD(*(const T *)pb);                                     \
            *(bool *)o = a OPR b;                                                                  \
        }                                                                                          \
    }
#define CT_GEN_UN(SUF, T, MT, LD, ST, NAME, EXPR)                                                  \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        typedef MT ct_mt;                                                                          \
        (void)sizeof(ct_mt);                                                                       \
        const MT c0 = (MT)op->scalars[0], c1 = (MT)op->scalars[1];                                 \
        const int64_t flags = op->ints[0];                                                         \
        (void)c0, (void)c1, (void)flags;                                                           \
        char *o = p[0];                                                                            \
        const char *pa = p[1];                                                                     \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1]) {                                   \
            MT x = LD(*(const T *)pa);                                                             \
            *(T *)o = ST(EXPR);                                                                    \
        }                                                                                          \
    }
#define CT_GEN_TERN(SUF, T, MT, LD, ST, NAME, EXPR)                                                \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        typedef MT ct_mt;                                                                          \
        (void)sizeof(ct_mt);                                                                       \
        const MT v = (MT)op->scalars[0];                                                           \
        (void)v;                                                                                   \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2], *pc = p[3];                                             \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2], pc += s[3]) {           \
            MT a = LD(*(const T *)pa), b = LD(*(const T *)pb), c = LD(*(const T *)pc);             \
            *(T *)o = ST(EXPR);                                                                    \
        }                                                                                          \
    }
#define CT_ENTRY(SUF, T, MT, LD, ST, NAME, ...) CT_TAB_ENTRY_##SUF = NAME##_##SUF,

/* Declare loops NAME_<suffix> for families FAMS... and a table NAME_tab[dtype]. */
#define CT_DEF1(GEN, NAME, F1, EXPR)                                                               \
    F1(GEN, NAME, EXPR) static const ct_k_loop NAME##_tab[CT_DTYPE_COUNT] = {F1(CT_ENTRY, NAME, 0)};
#define CT_DEF2(GEN, NAME, F1, E1, F2, E2)                                                         \
    F1(GEN, NAME, E1)                                                                              \
    F2(GEN, NAME, E2)                                                                              \
    static const ct_k_loop NAME##_tab[CT_DTYPE_COUNT] = {F1(CT_ENTRY, NAME, 0)                     \
                                                             F2(CT_ENTRY, NAME, 0)};
#define CT_DEF3(GEN, NAME, F1, E1, F2, E2, F3, E3)                                                 \
    F1(GEN, NAME, E1)                                                                              \
    F2(GEN, NAME, E2)                                                                              \
    F3(GEN, NAME, E3)                                                                              \
    static const ct_k_loop NAME##_tab[CT_DTYPE_COUNT] = {                                          \
        F1(CT_ENTRY, NAME, 0) F2(CT_ENTRY, NAME, 0) F3(CT_ENTRY, NAME, 0)};

#define CT_DEF4(GEN, NAME, F1, E1, F2, E2, F3, E3, F4, E4)                                         \
    F1(GEN, NAME, E1)                                                                              \
    F2(GEN, NAME, E2)                                                                              \
    F3(GEN, NAME, E3)                                                                              \
    F4(GEN, NAME, E4)                                                                              \
    static const ct_k_loop NAME##_tab[CT_DTYPE_COUNT] = {                                          \
        F1(CT_ENTRY, NAME, 0) F2(CT_ENTRY, NAME, 0) F3(CT_ENTRY, NAME, 0) F4(CT_ENTRY, NAME, 0)};
#define CT_DEF5(GEN, NAME, F1, E1, F2, E2, F3, E3, F4, E4, F5, E5)                                 \
    F1(GEN, NAME, E1)                                                                              \
    F2(GEN, NAME, E2)                                                                              \
    F3(GEN, NAME, E3)                                                                              \
    F4(GEN, NAME, E4)                                                                              \
    F5(GEN, NAME, E5)                                                                              \
    static const ct_k_loop NAME##_tab[CT_DTYPE_COUNT] = {F1(CT_ENTRY, NAME, 0) F2(                 \
        CT_ENTRY, NAME, 0) F3(CT_ENTRY, NAME, 0) F4(CT_ENTRY, NAME, 0) F5(CT_ENTRY, NAME, 0)};

/* ---- binary ----
 * add/sub with alpha round as PyTorch 1.13's CPU kernels (checked bit for bit on random inputs):
 * f32/f64 one fused multiply-add fma(+-alpha, b, a); bf16 rounds alpha to bf16 and computes
 * fmaf in f32 (the bf16 product is exact there); f16 rounds alpha to f16 and rounds the product
 * alpha*b to f16 before the f32 add (c10::Half arithmetic). sub(a, b, alpha) = add(a, b, -alpha).
 */
#define CT_BF_ALPHA(al) ct__bf2f(ct__f2bf(al))
/* fma in the math type: fmaf for float (one rounding, as the ISA loops), never through double */
#define CT_FMA(x, y, z) _Generic((x) + (y) + (z), float : fmaf, default : fma)(x, y, z)
#define CT_H_ALPHA(al) ct__h2f(ct__f2h(al))
#define CT_H_PROD(x, y) ct__h2f(ct__f2h((x) * (y)))
/* alpha == 1 is the plain add/sub: the same bits as every formula below (b is representable), and
 * no fma call per element in this file, which is compiled without FMA instructions */
CT_DEF5(CT_GEN_BIN, k_add, CT_F32F64, (alpha == 1 ? a + b : CT_FMA(alpha, b, a)), CT_BF16,
        (alpha == 1 ? a + b : fmaf(CT_BF_ALPHA(alpha), b, a)), CT_F16,
        (alpha == 1 ? a + b : a + CT_H_PROD(CT_H_ALPHA(alpha), b)), CT_INTS,
        IADD(a, IMUL(alpha, b)), CT_BOOLS, a + alpha * b)
CT_DEF4(CT_GEN_BIN, k_sub, CT_F32F64, (alpha == 1 ? a - b : CT_FMA(-alpha, b, a)), CT_BF16,
        (alpha == 1 ? a - b : fmaf(-CT_BF_ALPHA(alpha), b, a)), CT_F16,
        (alpha == 1 ? a - b : a + CT_H_PROD(-CT_H_ALPHA(alpha), b)), CT_INTS,
        ISUB(a, IMUL(alpha, b)))
CT_DEF3(CT_GEN_BIN, k_mul, CT_FLOATS, a *b, CT_INTS, IMUL(a, b), CT_BOOLS, a *b)
CT_DEF1(CT_GEN_BIN, k_div, CT_FLOATS, a / b)

/* ---- comparisons (NaN compares unequal, as IEEE) ---- */
#define CT_ALLT(X, ...) CT_FLOATS(X, __VA_ARGS__) CT_INTS(X, __VA_ARGS__) CT_BOOLS(X, __VA_ARGS__)
CT_DEF1(CT_GEN_CMP, k_eq, CT_ALLT, ==)
CT_DEF1(CT_GEN_CMP, k_ne, CT_ALLT, !=)
CT_DEF1(CT_GEN_CMP, k_lt, CT_ALLT, <)
CT_DEF1(CT_GEN_CMP, k_le, CT_ALLT, <=)
CT_DEF1(CT_GEN_CMP, k_gt, CT_ALLT, >)
CT_DEF1(CT_GEN_CMP, k_ge, CT_ALLT, >=)

/* ---- unary ---- */
#define CT_SQRT1_2 0.70710678118654752440
CT_DEF2(CT_GEN_UN, k_neg, CT_FLOATS, -x, CT_INTS, ISUB(0, x))
CT_DEF3(CT_GEN_UN, k_abs, CT_FLOATS, fabs(x), CT_INTS, (x < 0 ? ISUB(0, x) : x), CT_BOOLS, x)
CT_DEF1(CT_GEN_UN, k_exp, CT_FLOATS, exp(x))
CT_DEF1(CT_GEN_UN, k_log, CT_FLOATS, log(x))
CT_DEF1(CT_GEN_UN, k_sqrt, CT_FLOATS, sqrt(x))
CT_DEF1(CT_GEN_UN, k_rsqrt, CT_FLOATS, (ct_mt)1 / sqrt(x))
CT_DEF1(CT_GEN_UN, k_tanh, CT_FLOATS, tanh(x))
CT_DEF1(CT_GEN_UN, k_sigmoid, CT_FLOATS, (ct_mt)1 / ((ct_mt)1 + exp(-x)))
/* relu keeps -0.0 and NaN (as torch.relu: only x < 0 becomes +0) */
CT_DEF2(CT_GEN_UN, k_relu, CT_FLOATS, (x < 0 ? (ct_mt)0 : x), CT_INTS, (x > 0 ? x : 0))
/* gelu(x) = x/2 * erfc(-x/sqrt2): no cancellation for x < -1 (1 + erf(x/sqrt2) loses hundreds of
 * ulp there). f32/f16/bf16 evaluate in double (the argument's rounding error would be amplified by
 * 2t^2 through erfc), f64 corrects erfc for the rounding of x/sqrt2 with a first-order term.
 * gelu(-0) is +0 (PyTorch's vectorised f32 kernel gives +0); a negative x whose result underflows
 * keeps the sign, -0 (as torch, and the sign of the exact value). */
static double ct_k_gelu_erf64(double x) {
    const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17; /* 1/sqrt2 */
    double t = -x * c_hi;
    if (t > 26.0) {
        /* erfc(t) is subnormal in double here (x < -36.8) although x/2 * erfc(t) may not be:
         * long double keeps its precision (t's rounding, amplified 2t^2 < 1600 times, stays far
         * below a double ulp) */
        long double xl = x;
        return (double)(0.5L * xl * erfcl(-xl * 0.70710678118654752440084436210484903928L));
    }
    double t_lo = -(fma(x, c_hi, -(x * c_hi)) + x * c_lo);
    double e = erfc(t);
    /* d erfc(t)/dt = -2/sqrt(pi) exp(-t^2) */
    if (t_lo != 0 && e > 0 && isfinite(t_lo)) e -= t_lo * 1.1283791670955126 * exp(-t * t);
    return x == 0 ? 0.0 : 0.5 * x * e;
}
static float ct_k_gelu_erf32(float x) {
    double xd = x;
    return x == 0 ? 0.0f : (float)(0.5 * xd * erfc(-xd * 0.70710678118654752440));
}
CT_DEF2(CT_GEN_UN, k_gelu_erf, CT_F32F64,
        _Generic(x, float
                 : ct_k_gelu_erf32, default
                 : ct_k_gelu_erf64)(x),
        CT_HALVES, ct_k_gelu_erf32(x))
/* gelu, tanh form: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), evaluated as
 * x / (1 + exp(-2u)) (the same function: 0.5 (1 + tanh u) = 1 / (1 + e^-2u)), which does not cancel
 * for x < 0 where 1 + tanh(u) does (torch 1.13 and the old formula: 33 ulp at x = -2.5, 4000 at
 * -4, -0.0 instead of -8.4e-11 at -6). f32 / f16 / bf16 in double (ct_k_gelu_tanh_f32,
 * kernels.h, shared with the ISA loops), f64 in long double (u's
 * rounding, amplified |2u| times by exp, stays below an ulp of the result). gelu(-0) = -0. */
static double ct_k_gelu_tanh64(double x) {
    const long double xl = x,
                      u = 0.797884560802865355879892119868763737L * (xl + 0.044715L * xl * xl * xl);
    return (double)(xl / (1.0L + expl(-2.0L * u)));
}
CT_DEF2(CT_GEN_UN, k_gelu_tanh, CT_F32F64,
        _Generic(x, float
                 : ct_k_gelu_tanh_f32, default
                 : ct_k_gelu_tanh64)(x),
        CT_HALVES, ct_k_gelu_tanh_f32(x))
/* pow with PyTorch's special exponents (the same formulas as its CPU kernel, checked bit for bit):
 * 2 -> x*x, 3 -> x*x*x, -1 -> 1/x, -2 -> 1/(x*x), 0.5 -> sqrt, -0.5 -> 1/sqrt (so
 * pow(-0, 0.5) = -0 and pow(-inf, 0.5) = nan); bf16 rounds the intermediate x*x to bf16; f16 has
 * no special cases in torch 1.13 (powf in f32: pow(-0, 0.5) = +0 there); other exponents use pow in
 * the element type (PyTorch's vectorised f32 pow is Sleef's, within 1 ulp of it). */
#define CT_POW_SPECIAL(x, R)                                                                       \
    (c0 == 2      ? (x) * (x)                                                                      \
     : c0 == 3    ? R((x) * (x)) * (x)                                                             \
     : c0 == -1   ? (ct_mt)1 / (x)                                                                 \
     : c0 == -2   ? (ct_mt)1 / R((x) * (x))                                                        \
     : c0 == 0.5  ? sqrt(x)                                                                        \
     : c0 == -0.5 ? (ct_mt)1 / sqrt(x)                                                             \
                  : pow(x, c0))
#define CT_BF_ROUND(v) ct__bf2f(ct__f2bf(v))
CT_DEF3(CT_GEN_UN, k_pow, CT_F32F64, CT_POW_SPECIAL(x, ID), CT_F16, pow(x, c0), CT_BF16,
        CT_POW_SPECIAL(x, CT_BF_ROUND))
/* clamp = min(max(x, lo), hi) as torch.clamp (so lo > hi gives hi); flags bit0 = has lo (c0),
 * bit1 = has hi (c1); NaN propagates */
#define CT_CLAMP_LO(x) (((flags & 1) && (x) < c0) ? c0 : (x))
#define CT_CLAMP_HI(x) (((flags & 2) && (x) > c1) ? c1 : (x))
CT_DEF2(CT_GEN_UN, k_clamp, CT_FLOATS, (x != x ? x : CT_CLAMP_HI(CT_CLAMP_LO(x))), CT_INTS,
        CT_CLAMP_HI(CT_CLAMP_LO(x)))

/* Integer power with a non-negative integral exponent (wrapping multiply). */
static int64_t ct_k_ipow(int64_t b, int64_t e) {
    int64_t r = 1;
    while (e > 0) {
        if (e & 1) r = IMUL(r, b);
        b = IMUL(b, b);
        e >>= 1;
    }
    return r;
}
#define CT_INTS_POW(X, ...) CT_INTS(X, __VA_ARGS__)
CT_GEN_UN(u8, uint8_t, int64_t, ID, ID, k_ipow, ct_k_ipow(x, (int64_t)op->scalars[0]))
CT_GEN_UN(i8, int8_t, int64_t, ID, ID, k_ipow, ct_k_ipow(x, (int64_t)op->scalars[0]))
CT_GEN_UN(i16, int16_t, int64_t, ID, ID, k_ipow, ct_k_ipow(x, (int64_t)op->scalars[0]))
CT_GEN_UN(i32, int32_t, int64_t, ID, ID, k_ipow, ct_k_ipow(x, (int64_t)op->scalars[0]))
CT_GEN_UN(i64, int64_t, int64_t, ID, ID, k_ipow, ct_k_ipow(x, (int64_t)op->scalars[0]))

/* ---- ternary: addcmul = fma(v*b, c, a) (as PyTorch 1.13's CPU kernel, value in the math type),
 * integers a + v*b*c wrapping; addcdiv = fma(v, b/c, a) (quotient rounded first) ---- */
CT_DEF2(CT_GEN_TERN, k_addcmul, CT_FLOATS, CT_FMA(v *b, c, a), CT_INTS,
        IADD(a, IMUL(IMUL(v, b), c)))
CT_DEF1(CT_GEN_TERN, k_addcdiv, CT_FLOATS, CT_FMA(v, b / c, a))

/* ---- where, by element size ---- */
/* contiguous condition and output, each value operand contiguous or broadcast: indexed loops
 * the compiler vectorises */
#define CT_WHERE_RUN(T, IA, IB)                                                                    \
    do {                                                                                           \
        const uint8_t *c_ = (const uint8_t *)p[1];                                                 \
        const T *a_ = (const T *)p[2], *b_ = (const T *)p[3];                                      \
        T *o_ = (T *)p[0];                                                                         \
        for (int64_t i = 0; i < n; i++) { /* both loaded: a select, not a branch */                \
            const T x_ = a_[IA], y_ = b_[IB];                                                      \
            o_[i] = c_[i] ? x_ : y_;                                                               \
        }                                                                                          \
        return;                                                                                    \
    } while (0)
#define CT_GEN_WHERE(T)                                                                            \
    static void k_where_##T(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {   \
        (void)op;                                                                                  \
        if (s[0] == (int64_t)sizeof(T) && s[1] == 1) {                                             \
            const int64_t e = (int64_t)sizeof(T);                                                  \
            if (s[2] == e && s[3] == e) CT_WHERE_RUN(T, i, i);                                     \
            if (s[2] == e && s[3] == 0) CT_WHERE_RUN(T, i, 0);                                     \
            if (s[2] == 0 && s[3] == e) CT_WHERE_RUN(T, 0, i);                                     \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            *(T *)(p[0] + i * s[0]) = *(const uint8_t *)(p[1] + i * s[1])                          \
                                          ? *(const T *)(p[2] + i * s[2])                          \
                                          : *(const T *)(p[3] + i * s[3]);                         \
    }
CT_GEN_WHERE(uint8_t)
CT_GEN_WHERE(uint16_t)
CT_GEN_WHERE(uint32_t)
CT_GEN_WHERE(uint64_t)

/* ---- the everyday elementwise ops (docs/everyday.md) ----
 * Float math runs in the element's math type (f32 functions for f32/f16/bf16, rounded once on
 * store; f64 in double), integers in int64 and stored back into their type. */
#define CT_GEN_UPRED(SUF, T, MT, LD, ST, NAME, EXPR)                                               \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        (void)op;                                                                                  \
        char *o = p[0];                                                                            \
        const char *pa = p[1];                                                                     \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1]) {                                   \
            MT x = LD(*(const T *)pa);                                                             \
            (void)x;                                                                               \
            *(bool *)o = (EXPR);                                                                   \
        }                                                                                          \
    }
#define CT_GEN_BPRED(SUF, T, MT, LD, ST, NAME, EXPR)                                               \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        (void)op;                                                                                  \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            MT a = LD(*(const T *)pa), b = LD(*(const T *)pb);                                     \
            *(bool *)o = (EXPR);                                                                   \
        }                                                                                          \
    }
/* binary with the storage type's width at hand (shifts) */
#define CT_GEN_BINW(SUF, T, MT, LD, ST, NAME, EXPR)                                                \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        (void)op;                                                                                  \
        const int64_t bits = (int64_t)sizeof(T) * 8;                                               \
        const bool is_signed = (T)-1 < (T)0;                                                       \
        (void)is_signed;                                                                           \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            MT a = LD(*(const T *)pa), b = LD(*(const T *)pb);                                     \
            *(T *)o = (T)(EXPR);                                                                   \
        }                                                                                          \
    }
CT_DEF1(CT_GEN_UN, k_erf, CT_FLOATS, erf(x))
CT_DEF1(CT_GEN_UN, k_erfc, CT_FLOATS, erfc(x))
CT_DEF1(CT_GEN_UN, k_sin, CT_FLOATS, sin(x))
CT_DEF1(CT_GEN_UN, k_cos, CT_FLOATS, cos(x))
CT_DEF1(CT_GEN_UN, k_exp2, CT_FLOATS, exp2(x))
CT_DEF1(CT_GEN_UN, k_log2, CT_FLOATS, log2(x))
CT_DEF1(CT_GEN_UN, k_log1p, CT_FLOATS, log1p(x))
CT_DEF1(CT_GEN_UN, k_expm1, CT_FLOATS, expm1(x))
CT_DEF1(CT_GEN_UN, k_tan, CT_FLOATS, tan(x))
CT_DEF1(CT_GEN_UN, k_atan, CT_FLOATS, atan(x))
CT_DEF1(CT_GEN_UN, k_asin, CT_FLOATS, asin(x))
CT_DEF1(CT_GEN_UN, k_acos, CT_FLOATS, acos(x))
CT_DEF1(CT_GEN_UN, k_sinh, CT_FLOATS, sinh(x))
CT_DEF1(CT_GEN_UN, k_cosh, CT_FLOATS, cosh(x))
CT_DEF1(CT_GEN_UN, k_asinh, CT_FLOATS, asinh(x))
CT_DEF1(CT_GEN_UN, k_acosh, CT_FLOATS, acosh(x))
CT_DEF1(CT_GEN_UN, k_atanh, CT_FLOATS, atanh(x))
CT_DEF1(CT_GEN_UN, k_log10, CT_FLOATS, log10(x))
CT_DEF1(CT_GEN_UN, k_reciprocal, CT_FLOATS, (ct_mt)1 / x)
/* rounding: integers are already integral (a copy, as torch) */
CT_DEF2(CT_GEN_UN, k_floor, CT_FLOATS, floor(x), CT_INTS, x)
CT_DEF2(CT_GEN_UN, k_ceil, CT_FLOATS, ceil(x), CT_INTS, x)
CT_DEF2(CT_GEN_UN, k_round, CT_FLOATS, nearbyint(x), CT_INTS, x) /* ties to even */
CT_DEF2(CT_GEN_UN, k_trunc, CT_FLOATS, trunc(x), CT_INTS, x)
/* sign as torch: (0 < x) - (x < 0), so sign(NaN) = 0 and sign(-0.0) = +0.0; bool unchanged */
CT_DEF3(CT_GEN_UN, k_sign, CT_FLOATS, (ct_mt)((0 < x) - (x < 0)), CT_INTS, (0 < x) - (x < 0),
        CT_BOOLS, x)
/* activations (floating only, as torch) */
CT_DEF1(CT_GEN_UN, k_silu, CT_FLOATS, x / ((ct_mt)1 + exp(-x)))
/* softplus(x) = log1p(exp(beta x)) / beta, x itself once beta x > threshold (as torch) */
CT_DEF1(CT_GEN_UN, k_softplus, CT_FLOATS, (x * c0 > c1 ? x : log1p(exp(x * c0)) / c0))
CT_DEF1(CT_GEN_UN, k_mish, CT_FLOATS, x *tanh(log1p(exp(x))))
CT_DEF1(CT_GEN_UN, k_leaky_relu, CT_FLOATS, (x > 0 ? x : x * c0))
/* elu: alpha * expm1(x) for x < 0 (expm1: no cancellation near 0); elu(-0.0) = +0.0 as torch */
CT_DEF1(CT_GEN_UN, k_elu, CT_FLOATS, (x > 0 ? x : x == 0 ? (ct_mt)0 : c0 * expm1(x)))
/* predicates and logical not: any dtype in, bool out */
CT_DEF3(CT_GEN_UPRED, k_isnan, CT_FLOATS, x != x, CT_INTS, false, CT_BOOLS, false)
CT_DEF3(CT_GEN_UPRED, k_isinf, CT_FLOATS, isinf(x), CT_INTS, false, CT_BOOLS, false)
CT_DEF3(CT_GEN_UPRED, k_isfinite, CT_FLOATS, isfinite(x), CT_INTS, true, CT_BOOLS, true)
CT_DEF3(CT_GEN_UPRED, k_logical_not, CT_FLOATS, x == 0, CT_INTS, x == 0, CT_BOOLS, x == 0)
CT_DEF2(CT_GEN_UN, k_bitwise_not, CT_INTS, ~x, CT_BOOLS, !x)
/* maximum / minimum: NaN propagates; equal values (+0, -0) give +0 for max, -0 for min (IEEE
 * 754-2019; torch's scalar and vector paths disagree on the sign of zero) */
#define CT_FMAX(a, b)                                                                              \
    ((a) != (a) || (b) != (b) ? (a) + (b)                                                          \
     : (a) == (b)             ? (signbit(a) ? (b) : (a))                                           \
     : (a) > (b)              ? (a)                                                                \
                              : (b))
#define CT_FMIN(a, b)                                                                              \
    ((a) != (a) || (b) != (b) ? (a) + (b)                                                          \
     : (a) == (b)             ? (signbit(a) ? (a) : (b))                                           \
     : (a) < (b)              ? (a)                                                                \
                              : (b))
CT_DEF3(CT_GEN_BIN, k_maximum, CT_FLOATS, CT_FMAX(a, b), CT_INTS, (a > b ? a : b), CT_BOOLS, a | b)
CT_DEF3(CT_GEN_BIN, k_minimum, CT_FLOATS, CT_FMIN(a, b), CT_INTS, (a < b ? a : b), CT_BOOLS, a &b)
/* remainder: fmod, then moved into the divisor's sign (torch's formula: remainder(-0.0, 3) = -0.0,
 * remainder(-5, inf) = inf); integers the same with %, b == -1 giving 0 (no INT64_MIN / -1 trap).
 * An integer zero divisor never reaches these loops (ct_k_int_divisor_ok). */
static inline int64_t ct_k_irem(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t ct_k_ifmod(int64_t a, int64_t b) { return (b == 0 || b == -1) ? 0 : a % b; }
#define CT_FREM(a, b) ct_k_frem_fix(fmod(a, b), b)
static inline float ct_k_frem_fix_f(float m, float b) {
    return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
}
static inline double ct_k_frem_fix_d(double m, double b) {
    return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
}
#define ct_k_frem_fix(m, b) _Generic((m), float : ct_k_frem_fix_f, default : ct_k_frem_fix_d)(m, b)
CT_DEF2(CT_GEN_BIN, k_remainder, CT_FLOATS, CT_FREM(a, b), CT_INTS, ct_k_irem(a, b))
CT_DEF2(CT_GEN_BIN, k_fmod, CT_FLOATS, fmod(a, b), CT_INTS, ct_k_ifmod(a, b))
CT_DEF1(CT_GEN_BIN, k_atan2, CT_FLOATS, atan2(a, b))
/* ---- more everyday math (torch 1.13's formulas; f16 / bf16 in f32, rounded once) ---- */
CT_DEF1(CT_GEN_BIN, k_hypot, CT_FLOATS, hypot(a, b))
/* logaddexp: max + log1p(exp(-|a - b|)) (torch's formula); equal infinities give themselves (no
 * inf - inf). The sum cancels where the result is near 0 (a, b < 0): float32 and the halves
 * evaluate in double, float64 in long double (torch 1.13 loses up to 16000 ulp there in f64 and
 * 67 in f32; here < 1 ulp in f32, about 0.1 in f64 but for extreme cancellation) */
#define CT_LAE_BODY(T, L1P, E, K)                                                                  \
    {                                                                                              \
        if (isinf(a) && a == b) return (double)a;                                                  \
        const T x = a, y = b, m = x < y ? y : x;                                                   \
        return m + L1P(E(-(x > y ? x - y : y - x))) * (K);                                         \
    }
static double ct_k_lae_d(double a, double b)
    CT_LAE_BODY(double, log1p, exp, 1.0) static double ct_k_lae2_d(double a, double b) CT_LAE_BODY(
        double, log1p, exp2, 1.4426950408889634074) static double ct_k_lae_l(double a, double b)
        CT_LAE_BODY(long double, log1pl, expl, 1.0L) static double ct_k_lae2_l(double a, double b)
            CT_LAE_BODY(long double, log1pl, exp2l, 1.442695040888963407359924681001892137L)
                CT_DEF2(CT_GEN_BIN, k_logaddexp, CT_F32F64,
                        (_Generic(a, float
                                  : ct_k_lae_d, default
                                  : ct_k_lae_l)(a, b)),
                        CT_HALVES, ct_k_lae_d(a, b)) CT_DEF2(CT_GEN_BIN, k_logaddexp2, CT_F32F64,
                                                             (_Generic(a, float
                                                                       : ct_k_lae2_d, default
                                                                       : ct_k_lae2_l)(a, b)),
                                                             CT_HALVES, ct_k_lae2_d(a, b))
    /* xlogy: NaN where b is NaN, else 0 where a == 0, else a log(b) */
    CT_DEF1(CT_GEN_BIN, k_xlogy, CT_FLOATS,
            (b != b   ? b
             : a == 0 ? (ct_mt)0
                      : a * log(b))) CT_DEF1(CT_GEN_BIN, k_copysign, CT_FLOATS, copysign(a, b))
        CT_DEF3(CT_GEN_BIN, k_fmax, CT_FLOATS, fmax(a, b), CT_INTS, (a > b ? a : b), CT_BOOLS,
                a | b) CT_DEF3(CT_GEN_BIN, k_fmin, CT_FLOATS, fmin(a, b), CT_INTS, (a < b ? a : b),
                               CT_BOOLS, a &b)
    /* heaviside: b where a == 0 (-0 too), else a > 0 (NaN: 0) */
    CT_DEF3(CT_GEN_BIN, k_heaviside, CT_FLOATS, (a == 0 ? b : (ct_mt)(a > 0)), CT_INTS,
            (a == 0 ? b : a > 0), CT_BOOLS, (a == 0 ? b : a > 0))
    /* integer power with a tensor exponent as torch's powi: a negative exponent gives 1 for a == 1,
     * +-1 for a == -1 (by the exponent's parity), else 0; wrapping multiplies */
    static inline int64_t ct_k_ipow_t(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    return ct_k_ipow(a, b);
}
CT_DEF2(CT_GEN_BIN, k_pow_t, CT_FLOATS, pow(a, b), CT_INTS, ct_k_ipow_t(a, b))
/* isclose as torch 1.13's composite: a == b, or both NaN (equal_nan), or, unless rtol and atol
 * are both 0, |a - b| finite and <= atol + |rtol b|, each step rounded in the dtype (rtol and atol
 * converted to it); integers and bool: equality exact, the rest in float32 (checked against
 * torch: no wrapping difference, 2^40 + 1 is close to 2^40 with atol 0.5) */
#define CT_GEN_ISCLOSE_F(SUF, T, MT, LD, ST, NAME, EXPR)                                           \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        const MT rt = LD(ST((MT)op->scalars[0])), at = LD(ST((MT)op->scalars[1]));                 \
        const bool eqnan = op->ints[0] & 1, tol = op->scalars[0] != 0 || op->scalars[1] != 0;      \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            const MT a = LD(*(const T *)pa), b = LD(*(const T *)pb);                               \
            bool c = a == b || (eqnan && a != a && b != b);                                        \
            if (!c && tol) {                                                                       \
                const MT act = fabs(LD(ST(a - b)));                                                \
                const MT allowed = LD(ST(at + fabs(LD(ST(rt * b)))));                              \
                c = isfinite(act) && act <= allowed;                                               \
            }                                                                                      \
            *(bool *)o = c;                                                                        \
        }                                                                                          \
    }
#define CT_GEN_ISCLOSE_I(SUF, T, MT, LD, ST, NAME, EXPR)                                           \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        const float rt = (float)op->scalars[0], at = (float)op->scalars[1];                        \
        const bool tol = op->scalars[0] != 0 || op->scalars[1] != 0;                               \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            const T a = *(const T *)pa, b = *(const T *)pb;                                        \
            const float fb = (float)b;                                                             \
            *(bool *)o = a == b || (tol && fabsf((float)a - fb) <= at + fabsf(fb * rt));           \
        }                                                                                          \
    }
#define CT_GEN_ISCLOSE_B(SUF, T, MT, LD, ST, NAME, EXPR)                                           \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        const float rt = (float)op->scalars[0], at = (float)op->scalars[1];                        \
        const bool tol = op->scalars[0] != 0 || op->scalars[1] != 0;                               \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2]) {                       \
            const bool a = *(const uint8_t *)pa != 0, b = *(const uint8_t *)pb != 0;               \
            *(bool *)o = a == b || (tol && 1.0f <= at + fabsf((b ? 1.0f : 0.0f) * rt));            \
        }                                                                                          \
    }
CT_FLOATS(CT_GEN_ISCLOSE_F, k_isclose, 0)
CT_INTS(CT_GEN_ISCLOSE_I, k_isclose, 0)
CT_BOOLS(CT_GEN_ISCLOSE_B, k_isclose, 0)
static const ct_k_loop k_isclose_tab[CT_DTYPE_COUNT] = {CT_FLOATS(CT_ENTRY, k_isclose, 0) CT_INTS(
    CT_ENTRY, k_isclose, 0) CT_BOOLS(CT_ENTRY, k_isclose, 0)};
CT_DEF1(CT_GEN_UN, k_frac, CT_FLOATS, x - trunc(x))
/* logit: x clamped to [eps, 1 - eps] when eps >= 0 as torch's scalar kernel (below eps: eps,
 * else above 1 - eps: 1 - eps; eps > 0.5 has no meaning and torch's vector loop, min(max(x, eps),
 * 1 - eps), answers otherwise there), the bounds rounded in the dtype (bf16's 1 - 1e-6 is 1, so
 * logit is inf there as torch), then log(x / (1 - x)), +inf at 1 */
#define CT_LOGIT_X(x, R)                                                                           \
    (c0 < 0 ? (x) : (x) < R(c0) ? R(c0) : (x) > R(1 - R(c0)) ? R(1 - R(c0)) : (x))
static inline float ct_k_logit_f(float x) { return x == 1 ? INFINITY : logf(x / (1 - x)); }
static inline double ct_k_logit_d(double x) { return x == 1 ? INFINITY : log(x / (1 - x)); }
#define ct_k_logit(x) _Generic((x), float : ct_k_logit_f, default : ct_k_logit_d)(x)
#define CT_H_ROUND(v) ct__h2f(ct__f2h(v))
CT_DEF3(CT_GEN_UN, k_logit, CT_F32F64, ct_k_logit(CT_LOGIT_X(x, ID)), CT_F16,
        ct_k_logit(CT_LOGIT_X(x, CT_H_ROUND)), CT_BF16, ct_k_logit(CT_LOGIT_X(x, CT_BF_ROUND)))
/* sinc(x) = sin(pi x) / (pi x), 1 at 0, with sin(pi x) from the exact reduction of x to
 * [-1/2, 1/2] (torch multiplies by pi first: sinc(1) is -2.8e-8 in its f32, not 0); float32 and
 * the halves in double */
static double ct_k_sinpi(double x) {
    double r = x - 2 * nearbyint(x / 2); /* exact; [-1, 1] */
    if (r > 0.5)
        r = 1 - r;
    else if (r < -0.5)
        r = -1 - r;
    return sin(3.14159265358979323846 * r);
}
static double ct_k_sinc_d(double x) {
    if (x == 0) return 1;
    if (isinf(x)) return NAN;
    return ct_k_sinpi(x) / (3.14159265358979323846 * x);
}
static float ct_k_sinc_f(float x) { return (float)ct_k_sinc_d(x); }
#define ct_k_sinc(x) _Generic((x), float : ct_k_sinc_f, default : ct_k_sinc_d)(x)
CT_DEF1(CT_GEN_UN, k_sinc, CT_FLOATS, ct_k_sinc(x))
/* nan_to_num: the replacements come converted to the dtype (scalars[0..2]) */
CT_DEF3(CT_GEN_UN, k_nan_to_num, CT_FLOATS,
        (x != x           ? c0
         : x == INFINITY  ? c1
         : x == -INFINITY ? (ct_mt)op->scalars[2]
                          : x),
        CT_INTS, x, CT_BOOLS, x)
CT_DEF3(CT_GEN_UPRED, k_signbit, CT_FLOATS, signbit(x) != 0, CT_INTS, x < 0, CT_BOOLS, false)
/* special functions (special_math.c): every float dtype rounded from the long double value
 * (the halves through float) */
CT_DEF1(CT_GEN_UN, k_lgamma, CT_FLOATS, (ct_mt)ct_k_lgamma_l(x))
CT_DEF1(CT_GEN_UN, k_digamma, CT_FLOATS, (ct_mt)ct_k_digamma_l(x))
CT_DEF1(CT_GEN_UN, k_polygamma, CT_FLOATS, (ct_mt)ct_k_polygamma_l(flags, x))
CT_DEF1(CT_GEN_UN, k_erfinv, CT_FLOATS, (ct_mt)ct_k_erfinv_l(x))
CT_DEF1(CT_GEN_UN, k_i0, CT_FLOATS, (ct_mt)ct_k_i0_l(x))
CT_DEF1(CT_GEN_UN, k_i0e, CT_FLOATS, (ct_mt)ct_k_i0e_l(x))
CT_DEF1(CT_GEN_UN, k_i1, CT_FLOATS, (ct_mt)ct_k_i1_l(x))
CT_DEF1(CT_GEN_UN, k_i1e, CT_FLOATS, (ct_mt)ct_k_i1e_l(x))
CT_DEF1(CT_GEN_UN, k_ndtr, CT_FLOATS, (ct_mt)ct_k_ndtr_l(x))
CT_DEF1(CT_GEN_UN, k_ndtri, CT_FLOATS, (ct_mt)ct_k_ndtri_l(x))
CT_DEF1(CT_GEN_UN, k_log_ndtr, CT_FLOATS, (ct_mt)ct_k_log_ndtr_l(x))
CT_DEF1(CT_GEN_UN, k_erfcx, CT_FLOATS, (ct_mt)ct_k_erfcx_l(x))
CT_DEF1(CT_GEN_UN, k_entr, CT_FLOATS, (ct_mt)ct_k_entr_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_j0, CT_FLOATS, (ct_mt)ct_k_bessel_j0_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_j1, CT_FLOATS, (ct_mt)ct_k_bessel_j1_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_y0, CT_FLOATS, (ct_mt)ct_k_bessel_y0_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_y1, CT_FLOATS, (ct_mt)ct_k_bessel_y1_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_k0, CT_FLOATS, (ct_mt)ct_k_bessel_k0_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_k1, CT_FLOATS, (ct_mt)ct_k_bessel_k1_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_k0e, CT_FLOATS, (ct_mt)ct_k_bessel_k0e_l(x))
CT_DEF1(CT_GEN_UN, k_bessel_k1e, CT_FLOATS, (ct_mt)ct_k_bessel_k1e_l(x))
CT_DEF1(CT_GEN_UN, k_spherical_j0, CT_FLOATS, (ct_mt)ct_k_spherical_j0_l(x))
CT_DEF1(CT_GEN_UN, k_airy_ai, CT_FLOATS, (ct_mt)ct_k_airy_ai_l(x))
CT_DEF1(CT_GEN_BIN, k_chebyshev_t, CT_FLOATS, (ct_mt)ct_k_chebyshev_t_l(a, b))
CT_DEF1(CT_GEN_BIN, k_chebyshev_u, CT_FLOATS, (ct_mt)ct_k_chebyshev_u_l(a, b))
CT_DEF1(CT_GEN_BIN, k_chebyshev_v, CT_FLOATS, (ct_mt)ct_k_chebyshev_v_l(a, b))
CT_DEF1(CT_GEN_BIN, k_chebyshev_w, CT_FLOATS, (ct_mt)ct_k_chebyshev_w_l(a, b))
CT_DEF1(CT_GEN_BIN, k_shifted_chebyshev_t, CT_FLOATS, (ct_mt)ct_k_shifted_chebyshev_t_l(a, b))
CT_DEF1(CT_GEN_BIN, k_shifted_chebyshev_u, CT_FLOATS, (ct_mt)ct_k_shifted_chebyshev_u_l(a, b))
CT_DEF1(CT_GEN_BIN, k_shifted_chebyshev_v, CT_FLOATS, (ct_mt)ct_k_shifted_chebyshev_v_l(a, b))
CT_DEF1(CT_GEN_BIN, k_shifted_chebyshev_w, CT_FLOATS, (ct_mt)ct_k_shifted_chebyshev_w_l(a, b))
CT_DEF1(CT_GEN_BIN, k_hermite_h, CT_FLOATS, (ct_mt)ct_k_hermite_h_l(a, b))
CT_DEF1(CT_GEN_BIN, k_hermite_he, CT_FLOATS, (ct_mt)ct_k_hermite_he_l(a, b))
CT_DEF1(CT_GEN_BIN, k_laguerre_l, CT_FLOATS, (ct_mt)ct_k_laguerre_l_l(a, b))
CT_DEF1(CT_GEN_BIN, k_legendre_p, CT_FLOATS, (ct_mt)ct_k_legendre_p_l(a, b))
CT_DEF1(CT_GEN_BIN, k_zeta, CT_FLOATS, (ct_mt)ct_k_zeta_l(a, b))
CT_DEF1(CT_GEN_BIN, k_igamma, CT_FLOATS, (ct_mt)ct_k_igamma_l(a, b))
CT_DEF1(CT_GEN_BIN, k_igammac, CT_FLOATS, (ct_mt)ct_k_igammac_l(a, b))
/* xlog1py: NaN where b is NaN, else 0 where a == 0, else a log1p(b) (one rounding) */
CT_DEF1(CT_GEN_BIN, k_xlog1py, CT_FLOATS,
        (b != b   ? b
         : a == 0 ? (ct_mt)0
                  : (ct_mt)((long double)a * log1pl(b))))
/* nextafter: f32 / f64 by libm; the halves step their own 16-bit encoding (torch's bf16 rule:
 * from 0 the smallest subnormal with b's sign, NaN where either is NaN) */
static float ct_k_nextafter_half(float a, float b, bool bf) {
    if (a != a || b != b) return a + b;
    if (a == b) return b;
    uint16_t h = bf ? ct__f2bf(a) : ct__f2h(a); /* exact: a is a half value */
    if (a == 0)
        h = (uint16_t)((signbit(b) ? 0x8000u : 0u) | 1u);
    else
        h = (uint16_t)(((a < b) == (a > 0)) ? h + 1 : h - 1);
    return bf ? ct__bf2f(h) : ct__h2f(h);
}
CT_DEF3(CT_GEN_BIN, k_nextafter, CT_F32F64, nextafter(a, b), CT_F16,
        ct_k_nextafter_half(a, b, false), CT_BF16, ct_k_nextafter_half(a, b, true))
/* gcd / lcm exactly as torch's calc_gcd / calc_lcm in the element type: abs and the arithmetic in
 * the promoted type (int for 8 and 16 bits, the type itself from 32), each step stored back in
 * the element type, so wrapped values (gcd(-128, 6) in int8 is -2) match */
static inline int64_t ct_k_wrap_bits(uint64_t v, int bits, bool sgn) {
    if (bits == 64) return (int64_t)v;
    const uint64_t m = (UINT64_C(1) << bits) - 1;
    v &= m;
    if (sgn && (v >> (bits - 1))) v |= ~m;
    return (int64_t)v;
}
static inline int64_t ct_k_gcd_w(int64_t a0, int64_t b0, int bits, bool sgn) {
    const int pb = bits < 32 ? 32 : bits;
#define CT_PABS(v) ((v) < 0 ? ct_k_wrap_bits(0 - (uint64_t)(v), pb, true) : (v))
    int64_t a = ct_k_wrap_bits((uint64_t)CT_PABS(a0), bits, sgn);
    int64_t b = ct_k_wrap_bits((uint64_t)CT_PABS(b0), bits, sgn);
    while (a != 0) {
        const int64_t c = a;
        a = ct_k_wrap_bits((uint64_t)(a == -1 ? 0 : b % a), bits, sgn);
        b = c;
    }
    return b;
}
static inline int64_t ct_k_lcm_w(int64_t a0, int64_t b0, int bits, bool sgn) {
    const int pb = bits < 32 ? 32 : bits;
    const int64_t g = ct_k_gcd_w(a0, b0, bits, sgn);
    if (g == 0) return 0;
    const int64_t q = g == -1 ? ct_k_wrap_bits(0 - (uint64_t)a0, pb, true) : a0 / g;
    const int64_t v = ct_k_wrap_bits((uint64_t)q * (uint64_t)b0, pb, true);
    return ct_k_wrap_bits((uint64_t)CT_PABS(v), bits, sgn);
#undef CT_PABS
}
#define CT_GEN_GCD(SUF, T, MT, LD, ST, NAME, FN)                                                   \
    static void NAME##_##SUF(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        (void)op;                                                                                  \
        char *o = p[0];                                                                            \
        const char *pa = p[1], *pb = p[2];                                                         \
        for (int64_t i = 0; i < n; i++, o += s[0], pa += s[1], pb += s[2])                         \
            *(T *)o = (T)FN(*(const T *)pa, *(const T *)pb, (int)sizeof(T) * 8, (T)-1 < 0);        \
    }
CT_INTS(CT_GEN_GCD, k_gcd, ct_k_gcd_w)
CT_INTS(CT_GEN_GCD, k_lcm, ct_k_lcm_w)
static const ct_k_loop k_gcd_tab[CT_DTYPE_COUNT] = {CT_INTS(CT_ENTRY, k_gcd, 0)};
static const ct_k_loop k_lcm_tab[CT_DTYPE_COUNT] = {CT_INTS(CT_ENTRY, k_lcm, 0)};
/* division with rounding (torch.div's rounding_mode): trunc(a / b) with the quotient rounded
 * in the math type; floor as torch's div_floor_floating (Python's //: (a - fmod(a, b)) / b, one
 * less where the remainder's sign differs from b's, then the nearest integer; 0 with the sign of
 * a / b; a / b where b == 0). f16 / bf16 run the same in f32 and round once (torch 1.13 rounds
 * every step in the dtype: docs/everyday.md). Integers: C's division, floor one less where the
 * signs differ and it is inexact; b == -1 negates with wrapping (no INT64_MIN / -1 trap). */
static inline int64_t ct_k_idiv_trunc(int64_t a, int64_t b) {
    return b == -1 ? ISUB(0, a) : b == 0 ? 0 : a / b;
}
static inline int64_t ct_k_idiv_floor(int64_t a, int64_t b) {
    int64_t q = ct_k_idiv_trunc(a, b);
    return (ct_k_ifmod(a, b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
#define CT_K_FDIV_FLOOR(T, SUF)                                                                    \
    static inline T ct_k_fdiv_floor_##SUF(T a, T b) {                                              \
        if (b == 0) return a / b;                                                                  \
        const T mod = fmod(a, b);                                                                  \
        T div = (a - mod) / b;                                                                     \
        if (mod != 0 && ((b < 0) != (mod < 0))) div -= (T)1;                                       \
        if (div == 0) return copysign((T)0, a / b);                                                \
        T fl = floor(div);                                                                         \
        return div - fl > (T)0.5 ? fl + (T)1 : fl;                                                 \
    }
CT_K_FDIV_FLOOR(float, f)
CT_K_FDIV_FLOOR(double, d)
#define ct_k_fdiv_floor(a, b)                                                                      \
    _Generic((a), float : ct_k_fdiv_floor_f, default : ct_k_fdiv_floor_d)(a, b)
CT_DEF2(CT_GEN_BIN, k_div_trunc, CT_FLOATS, trunc(a / b), CT_INTS, ct_k_idiv_trunc(a, b))
CT_DEF2(CT_GEN_BIN, k_div_floor, CT_FLOATS, ct_k_fdiv_floor(a, b), CT_INTS, ct_k_idiv_floor(a, b))
CT_DEF3(CT_GEN_BPRED, k_logical_and, CT_FLOATS, (a != 0) && (b != 0), CT_INTS, a &&b, CT_BOOLS,
        a &&b)
CT_DEF3(CT_GEN_BPRED, k_logical_or, CT_FLOATS, (a != 0) || (b != 0), CT_INTS, a || b, CT_BOOLS,
        a || b)
CT_DEF3(CT_GEN_BPRED, k_logical_xor, CT_FLOATS, (a != 0) != (b != 0), CT_INTS, (a != 0) != (b != 0),
        CT_BOOLS, a != b)
CT_DEF2(CT_GEN_BIN, k_bitwise_and, CT_INTS, a &b, CT_BOOLS, a &b)
CT_DEF2(CT_GEN_BIN, k_bitwise_or, CT_INTS, a | b, CT_BOOLS, a | b)
CT_DEF2(CT_GEN_BIN, k_bitwise_xor, CT_INTS, a ^ b, CT_BOOLS, a ^ b)
/* shifts as PyTorch 2.x: a shift amount outside [0, bits of the dtype) gives 0 (left) or the
 * sign fill (right); left shifts wrap in the dtype */
CT_DEF1(CT_GEN_BINW, k_lshift, CT_INTS, (b < 0 || b >= bits) ? 0 : (int64_t)((uint64_t)a << b))
CT_DEF1(CT_GEN_BINW, k_rshift, CT_INTS, (b < 0 || b >= bits) ? (a < 0 ? -1 : 0) : (a >> b))
/* lerp as torch 1.13: start + w (end - start) for w < 0.5 (signed: every negative weight takes
 * this branch, so lerp(1, -inf, -0.5) is +inf), else end - (end - start)(1 - w), each
 * one fma in the math type (torch's build contracts both; found by scripts/torchdiff/
 * torchdiff_more.py: 1 ulp apart on ~5% of f64 elements unfused) */
#define CT_LERP(a, b, w)                                                                           \
    ((w) < (ct_mt)0.5 ? CT_FMA((w), (b) - (a), (a)) : CT_FMA(-((b) - (a)), (ct_mt)1 - (w), (b)))
CT_DEF1(CT_GEN_TERN, k_lerp, CT_FLOATS, CT_LERP(a, b, c))
CT_DEF1(CT_GEN_BIN, k_lerp_s, CT_FLOATS, CT_LERP(a, b, alpha))

/* False when an integer remainder / fmod / rounded division has a zero divisor anywhere (operand 2
 * over the output's shape): the op then fails with nothing written, as torch raises
 * ZeroDivisionError. */
static bool ct_k_int_divisor_ok(const ct_op_desc *op) {
    ct_k_geom g;
    ct_k_geom_build(op, &g);
    int64_t idx[CT_MAX_DIMS] = {0};
    const ct_dtype dt = op->operands[2].dtype;
    for (int d = 0; d < g.ndim; d++)
        if (g.shape[d] == 0) return true;
    for (;;) {
        const char *p = op->operands[2].data;
        for (int d = 0; d < g.ndim; d++)
            p += idx[d] * g.bstr[2][d];
        if (ct_k_load_i64(p, dt) == 0) return false;
        int d = g.ndim - 1;
        while (d >= 0 && ++idx[d] == g.shape[d])
            idx[d--] = 0;
        if (d < 0) return true;
    }
}

static const ct_k_loop *ct_k_more_tab(const ct_op_desc *op) {
    switch (op->kind) {
    case CT_OP_ERF: return k_erf_tab;
    case CT_OP_ERFC: return k_erfc_tab;
    case CT_OP_SIN: return k_sin_tab;
    case CT_OP_COS: return k_cos_tab;
    case CT_OP_EXP2: return k_exp2_tab;
    case CT_OP_LOG2: return k_log2_tab;
    case CT_OP_LOG1P: return k_log1p_tab;
    case CT_OP_EXPM1: return k_expm1_tab;
    case CT_OP_TAN: return k_tan_tab;
    case CT_OP_ATAN: return k_atan_tab;
    case CT_OP_ASIN: return k_asin_tab;
    case CT_OP_ACOS: return k_acos_tab;
    case CT_OP_SINH: return k_sinh_tab;
    case CT_OP_COSH: return k_cosh_tab;
    case CT_OP_ASINH: return k_asinh_tab;
    case CT_OP_ACOSH: return k_acosh_tab;
    case CT_OP_ATANH: return k_atanh_tab;
    case CT_OP_LOG10: return k_log10_tab;
    case CT_OP_RECIPROCAL: return k_reciprocal_tab;
    case CT_OP_ATAN2: return k_atan2_tab;
    case CT_OP_HYPOT: return k_hypot_tab;
    case CT_OP_LOGADDEXP: return k_logaddexp_tab;
    case CT_OP_LOGADDEXP2: return k_logaddexp2_tab;
    case CT_OP_XLOGY: return k_xlogy_tab;
    case CT_OP_COPYSIGN: return k_copysign_tab;
    case CT_OP_FMAX: return k_fmax_tab;
    case CT_OP_FMIN: return k_fmin_tab;
    case CT_OP_HEAVISIDE: return k_heaviside_tab;
    case CT_OP_POW_T: return k_pow_t_tab;
    case CT_OP_ISCLOSE: return k_isclose_tab;
    case CT_OP_FRAC: return k_frac_tab;
    case CT_OP_LOGIT: return k_logit_tab;
    case CT_OP_SINC: return k_sinc_tab;
    case CT_OP_NAN_TO_NUM: return k_nan_to_num_tab;
    case CT_OP_SIGNBIT: return k_signbit_tab;
    case CT_OP_LGAMMA: return k_lgamma_tab;
    case CT_OP_DIGAMMA: return k_digamma_tab;
    case CT_OP_POLYGAMMA: return k_polygamma_tab;
    case CT_OP_ERFINV: return k_erfinv_tab;
    case CT_OP_I0: return k_i0_tab;
    case CT_OP_I0E: return k_i0e_tab;
    case CT_OP_I1: return k_i1_tab;
    case CT_OP_I1E: return k_i1e_tab;
    case CT_OP_NDTR: return k_ndtr_tab;
    case CT_OP_NDTRI: return k_ndtri_tab;
    case CT_OP_LOG_NDTR: return k_log_ndtr_tab;
    case CT_OP_ERFCX: return k_erfcx_tab;
    case CT_OP_ENTR: return k_entr_tab;
    case CT_OP_XLOG1PY: return k_xlog1py_tab;
    case CT_OP_NEXTAFTER: return k_nextafter_tab;
    case CT_OP_GCD: return k_gcd_tab;
    case CT_OP_LCM: return k_lcm_tab;
    case CT_OP_ZETA: return k_zeta_tab;
    case CT_OP_IGAMMA: return k_igamma_tab;
    case CT_OP_IGAMMAC: return k_igammac_tab;
    case CT_OP_BESSEL_J0: return k_bessel_j0_tab;
    case CT_OP_BESSEL_J1: return k_bessel_j1_tab;
    case CT_OP_BESSEL_Y0: return k_bessel_y0_tab;
    case CT_OP_BESSEL_Y1: return k_bessel_y1_tab;
    case CT_OP_BESSEL_K0: return k_bessel_k0_tab;
    case CT_OP_BESSEL_K1: return k_bessel_k1_tab;
    case CT_OP_BESSEL_K0E: return k_bessel_k0e_tab;
    case CT_OP_BESSEL_K1E: return k_bessel_k1e_tab;
    case CT_OP_SPHERICAL_J0: return k_spherical_j0_tab;
    case CT_OP_CHEBYSHEV_T: return k_chebyshev_t_tab;
    case CT_OP_CHEBYSHEV_U: return k_chebyshev_u_tab;
    case CT_OP_CHEBYSHEV_V: return k_chebyshev_v_tab;
    case CT_OP_CHEBYSHEV_W: return k_chebyshev_w_tab;
    case CT_OP_SHIFTED_CHEBYSHEV_T: return k_shifted_chebyshev_t_tab;
    case CT_OP_SHIFTED_CHEBYSHEV_U: return k_shifted_chebyshev_u_tab;
    case CT_OP_SHIFTED_CHEBYSHEV_V: return k_shifted_chebyshev_v_tab;
    case CT_OP_SHIFTED_CHEBYSHEV_W: return k_shifted_chebyshev_w_tab;
    case CT_OP_HERMITE_H: return k_hermite_h_tab;
    case CT_OP_HERMITE_HE: return k_hermite_he_tab;
    case CT_OP_LAGUERRE_L: return k_laguerre_l_tab;
    case CT_OP_LEGENDRE_P: return k_legendre_p_tab;
    case CT_OP_AIRY_AI: return k_airy_ai_tab;
    case CT_OP_FLOOR: return k_floor_tab;
    case CT_OP_CEIL: return k_ceil_tab;
    case CT_OP_ROUND: return k_round_tab;
    case CT_OP_TRUNC: return k_trunc_tab;
    case CT_OP_SIGN: return k_sign_tab;
    case CT_OP_SILU: return k_silu_tab;
    case CT_OP_SOFTPLUS: return k_softplus_tab;
    case CT_OP_MISH: return k_mish_tab;
    case CT_OP_LEAKY_RELU: return k_leaky_relu_tab;
    case CT_OP_ELU: return k_elu_tab;
    case CT_OP_ISNAN: return k_isnan_tab;
    case CT_OP_ISINF: return k_isinf_tab;
    case CT_OP_ISFINITE: return k_isfinite_tab;
    case CT_OP_LOGICAL_NOT: return k_logical_not_tab;
    case CT_OP_BITWISE_NOT: return k_bitwise_not_tab;
    case CT_OP_MAXIMUM: return k_maximum_tab;
    case CT_OP_MINIMUM: return k_minimum_tab;
    case CT_OP_REMAINDER: return k_remainder_tab;
    case CT_OP_FMOD: return k_fmod_tab;
    case CT_OP_DIV_TRUNC: return k_div_trunc_tab;
    case CT_OP_DIV_FLOOR: return k_div_floor_tab;
    case CT_OP_LOGICAL_AND: return k_logical_and_tab;
    case CT_OP_LOGICAL_OR: return k_logical_or_tab;
    case CT_OP_LOGICAL_XOR: return k_logical_xor_tab;
    case CT_OP_BITWISE_AND: return k_bitwise_and_tab;
    case CT_OP_BITWISE_OR: return k_bitwise_or_tab;
    case CT_OP_BITWISE_XOR: return k_bitwise_xor_tab;
    case CT_OP_BITWISE_LSHIFT: return k_lshift_tab;
    case CT_OP_BITWISE_RSHIFT: return k_rshift_tab;
    case CT_OP_LERP: return op->n_in == 3 ? k_lerp_tab : k_lerp_s_tab;
    default: return NULL;
    }
}

/* ---- contiguous adapters onto the ISA table ---- */
typedef void (*ct_k_bin32)(int64_t, float *, const float *, const float *, float);
typedef void (*ct_k_binbc32)(int64_t, float *, const float *, const float *, int, float);
typedef void (*ct_k_binbc64)(int64_t, double *, const double *, const double *, int, double);
typedef void (*ct_k_bin64)(int64_t, double *, const double *, const double *, double);
typedef void (*ct_k_un32)(int64_t, float *, const float *);
typedef void (*ct_k_un64)(int64_t, double *, const double *);
void ct_k_c_bin32(int64_t n, char *const *p, const ct_op_desc *op, const void *fn) {
    (*(const ct_k_bin32 *)fn)(n, (float *)p[0], (const float *)p[1], (const float *)p[2],
                              (float)op->scalars[0]);
}
void ct_k_c_bin64(int64_t n, char *const *p, const ct_op_desc *op, const void *fn) {
    (*(const ct_k_bin64 *)fn)(n, (double *)p[0], (const double *)p[1], (const double *)p[2],
                              op->scalars[0]);
}
static int ct_k_bc_mask(const int64_t *s, int n_in);
void ct_k_c_binbc32(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                    const void *fn) {
    (*(const ct_k_binbc32 *)fn)(n, (float *)p[0], (const float *)p[1], (const float *)p[2],
                                ct_k_bc_mask(s, 2), (float)op->scalars[0]);
}
void ct_k_c_binbc64(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                    const void *fn) {
    (*(const ct_k_binbc64 *)fn)(n, (double *)p[0], (const double *)p[1], (const double *)p[2],
                                ct_k_bc_mask(s, 2), op->scalars[0]);
}
void ct_k_c_un32(int64_t n, char *const *p, const ct_op_desc *op, const void *fn) {
    (*(const ct_k_un32 *)fn)(n, (float *)p[0], (const float *)p[1]);
}
void ct_k_c_un64(int64_t n, char *const *p, const ct_op_desc *op, const void *fn) {
    (*(const ct_k_un64 *)fn)(n, (double *)p[0], (const double *)p[1]);
}
typedef void (*ct_k_tern32)(int64_t, float *, const float *, const float *, const float *, int,
                            float);
typedef void (*ct_k_tern64)(int64_t, double *, const double *, const double *, const double *, int,
                            double);
/* bit k - 1 of the broadcast mask: input k's stride is 0 */
static int ct_k_bc_mask(const int64_t *s, int n_in) {
    int bc = 0;
    for (int k = 0; k < n_in; k++)
        bc |= (s[1 + k] == 0) << k;
    return bc;
}
void ct_k_c_tern32(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                   const void *fn) {
    (*(const ct_k_tern32 *)fn)(n, (float *)p[0], (const float *)p[1], (const float *)p[2],
                               (const float *)p[3], ct_k_bc_mask(s, 3), (float)op->scalars[0]);
}
void ct_k_c_tern64(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                   const void *fn) {
    (*(const ct_k_tern64 *)fn)(n, (double *)p[0], (const double *)p[1], (const double *)p[2],
                               (const double *)p[3], ct_k_bc_mask(s, 3), op->scalars[0]);
}
void ct_k_c_tern32_w(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                     const void *fn) {
    const float w = (float)op->scalars[0];
    (*(const ct_k_tern32 *)fn)(n, (float *)p[0], (const float *)p[1], (const float *)p[2], &w,
                               ct_k_bc_mask(s, 2) | 4, w);
}
void ct_k_c_tern64_w(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                     const void *fn) {
    const double w = op->scalars[0];
    (*(const ct_k_tern64 *)fn)(n, (double *)p[0], (const double *)p[1], (const double *)p[2], &w,
                               ct_k_bc_mask(s, 2) | 4, w);
}

static ct_status ct_k_drive_tab(const ct_op_desc *op, const ct_k_loop *tab, ct_dtype dt) {
    if ((int)dt < 0 || dt >= CT_DTYPE_COUNT || !tab[dt]) return CT_ERR_UNSUPPORTED;
    ct_k_ew_drive(op, tab[dt], NULL, NULL);
    return CT_OK;
}

ct_status ct_k_elementwise(const ct_op_desc *op, const ct_k_isa *isa);
ct_status ct_k_elementwise(const ct_op_desc *op, const ct_k_isa *isa) {
    ct_dtype dt = op->compute_dtype;
    const ct_k_loop *tab = NULL;
    int bin = ct_k_bin_index(op->kind), un = ct_k_un_index(op->kind), tern = -1;
    switch (op->kind) {
    case CT_OP_ADD: tab = k_add_tab; break;
    case CT_OP_SUB: tab = k_sub_tab; break;
    case CT_OP_MUL: tab = k_mul_tab; break;
    case CT_OP_DIV: tab = k_div_tab; break;
    case CT_OP_EQ: tab = k_eq_tab; break;
    case CT_OP_NE: tab = k_ne_tab; break;
    case CT_OP_LT: tab = k_lt_tab; break;
    case CT_OP_LE: tab = k_le_tab; break;
    case CT_OP_GT: tab = k_gt_tab; break;
    case CT_OP_GE: tab = k_ge_tab; break;
    case CT_OP_NEG: tab = k_neg_tab; break;
    case CT_OP_ABS: tab = k_abs_tab; break;
    case CT_OP_EXP: tab = k_exp_tab; break;
    case CT_OP_LOG: tab = k_log_tab; break;
    case CT_OP_SQRT: tab = k_sqrt_tab; break;
    case CT_OP_RSQRT: tab = k_rsqrt_tab; break;
    case CT_OP_TANH: tab = k_tanh_tab; break;
    case CT_OP_SIGMOID: tab = k_sigmoid_tab; break;
    case CT_OP_RELU: tab = k_relu_tab; break;
    case CT_OP_GELU:
        tab = op->ints[0] ? k_gelu_tanh_tab : k_gelu_erf_tab;
        un = op->ints[0] ? CT_K_GELU_TANH : -1;
        break;
    case CT_OP_CLAMP: tab = k_clamp_tab; break;
    case CT_OP_ADDCMUL:
        tab = k_addcmul_tab;
        tern = CT_K_ADDCMUL;
        break;
    case CT_OP_ADDCDIV:
        tab = k_addcdiv_tab;
        tern = CT_K_ADDCDIV;
        break;
    case CT_OP_POW:
        if (!ct_k_is_float(dt)) {
            static const ct_k_loop ipow[CT_DTYPE_COUNT] = {[CT_UINT8] = k_ipow_u8,
                                                           [CT_INT8] = k_ipow_i8,
                                                           [CT_INT16] = k_ipow_i16,
                                                           [CT_INT32] = k_ipow_i32,
                                                           [CT_INT64] = k_ipow_i64};
            tab = ipow;
        } else {
            tab = k_pow_tab;
        }
        break;
    case CT_OP_WHERE: {
        static const ct_k_loop w[9] = {
            NULL, k_where_uint8_t, k_where_uint16_t, NULL, k_where_uint32_t, NULL, NULL,
            NULL, k_where_uint64_t};
        size_t sz = ct__itemsize(op->operands[0].dtype);
        if (sz == 0 || sz > 8 || !w[sz]) return CT_ERR_UNSUPPORTED;
        ct_k_ew_drive(op, w[sz], NULL, NULL);
        return CT_OK;
    }
    default:
        tab = ct_k_more_tab(op);
        if (!tab) return CT_ERR_UNSUPPORTED;
        if (op->kind == CT_OP_LERP) tern = CT_K_LERP;
        if ((op->kind == CT_OP_REMAINDER || op->kind == CT_OP_FMOD || op->kind == CT_OP_DIV_TRUNC ||
             op->kind == CT_OP_DIV_FLOOR) &&
            !ct_k_is_float(dt) && (int)dt >= 0 && dt < CT_DTYPE_COUNT && tab[dt] &&
            !ct_k_int_divisor_ok(op))
            return CT_ERR_INVALID_ARG;
        break;
    }
    if (!tab[(int)dt < CT_DTYPE_COUNT && (int)dt >= 0 ? dt : 0]) return CT_ERR_UNSUPPORTED;
    if (bin >= 0 && dt == CT_FLOAT32 && isa->binbc_f32[bin]) {
        ct_k_ew_drive_bc(op, tab[dt], ct_k_c_binbc32, &isa->binbc_f32[bin]);
        return CT_OK;
    }
    if (bin >= 0 && dt == CT_FLOAT64 && isa->binbc_f64[bin]) {
        ct_k_ew_drive_bc(op, tab[dt], ct_k_c_binbc64, &isa->binbc_f64[bin]);
        return CT_OK;
    }
    if (bin >= 0 && dt == CT_FLOAT32 && isa->bin_f32[bin]) {
        ct_k_ew_drive(op, tab[dt], ct_k_c_bin32, &isa->bin_f32[bin]);
        return CT_OK;
    }
    if (bin >= 0 && dt == CT_FLOAT64 && isa->bin_f64[bin]) {
        ct_k_ew_drive(op, tab[dt], ct_k_c_bin64, &isa->bin_f64[bin]);
        return CT_OK;
    }
    if (un >= 0 && dt == CT_FLOAT32 && isa->un_f32[un]) {
        ct_k_ew_drive(op, tab[dt], ct_k_c_un32, &isa->un_f32[un]);
        return CT_OK;
    }
    if (un >= 0 && dt == CT_FLOAT64 && isa->un_f64[un]) {
        ct_k_ew_drive(op, tab[dt], ct_k_c_un64, &isa->un_f64[un]);
        return CT_OK;
    }
    if (tern >= 0 && dt == CT_FLOAT32 && isa->tern_f32[tern]) {
        ct_k_ew_drive_bc(op, tab[dt], op->n_in == 3 ? ct_k_c_tern32 : ct_k_c_tern32_w,
                         &isa->tern_f32[tern]);
        return CT_OK;
    }
    if (tern >= 0 && dt == CT_FLOAT64 && isa->tern_f64[tern]) {
        ct_k_ew_drive_bc(op, tab[dt], op->n_in == 3 ? ct_k_c_tern64 : ct_k_c_tern64_w,
                         &isa->tern_f64[tern]);
        return CT_OK;
    }
    return ct_k_drive_tab(op, tab, dt);
}

/* The everyday elementwise ops (erf ... lerp) against independent references: long-double libm
 * for the math functions (f64 within 2 ulp, f32/f16/bf16 within an ulp or two of the correctly
 * rounded value), exact tables for rounding, sign, predicates, maximum/minimum and remainder/fmod
 * (values checked against torch 1.13 by hand), naive C loops for the logical and bitwise ops on
 * random data of mixed dtypes, strided and broadcast inputs, error paths with their messages. */
#include "test_util.h"

#include <float.h>
#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 2024;

static ct_tensor *from_vals(ct_dtype dt, int nd, const int64_t *shape, const double *v) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    void *buf = malloc((size_t)(n + 1) * 8);
    for (int64_t i = 0; i < n; i++)
        tu_set(buf, dt, i, v[i]);
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, buf, dt, nd, shape, &t));
    free(buf);
    return t;
}

/* ulp of v in dtype dt (its spacing at |v|; the smallest subnormal spacing near 0). */
static double ulp_of(double v, ct_dtype dt) {
    int mant = dt == CT_FLOAT64 ? 52 : dt == CT_FLOAT32 ? 23 : dt == CT_FLOAT16 ? 10 : 7;
    int emin = dt == CT_FLOAT64 ? -1022 : dt == CT_FLOAT32 ? -126 : dt == CT_FLOAT16 ? -14 : -126;
    int e;
    frexp(v, &e);
    e -= 1;
    if (e < emin) e = emin;
    return ldexp(1.0, e - mant);
}

typedef long double (*ref1)(long double);
static long double r_exp2(long double x) { return exp2l(x); }
static long double r_log2(long double x) { return log2l(x); }
static long double r_erf(long double x) { return erfl(x); }
static long double r_erfc(long double x) { return erfcl(x); }
static long double r_sin(long double x) { return sinl(x); }
static long double r_cos(long double x) { return cosl(x); }
static long double r_log1p(long double x) { return log1pl(x); }
static long double r_expm1(long double x) { return expm1l(x); }
static long double r_tan(long double x) { return tanl(x); }
static long double r_atan(long double x) { return atanl(x); }
static long double r_asin(long double x) { return asinl(x); }
static long double r_acos(long double x) { return acosl(x); }
static long double r_sinh(long double x) { return sinhl(x); }
static long double r_cosh(long double x) { return coshl(x); }
static long double r_asinh(long double x) { return asinhl(x); }
static long double r_acosh(long double x) { return acoshl(x); }
static long double r_atanh(long double x) { return atanhl(x); }
static long double r_log10(long double x) { return log10l(x); }
static long double r_recip(long double x) { return 1 / x; }
static long double r_sinc(long double x) {
    const long double pi = 3.141592653589793238462643383279502884L;
    return x == 0 ? 1 : sinl(pi * x) / (pi * x);
}
static long double r_frac(long double x) { return x - truncl(x); }
static long double r_logit(long double x) { return logl(x / (1 - x)); }
static long double r_deg2rad(long double x) { return x * 0.017453292519943295769236907684886L; }
static ct_status o_logit(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_logit(c, a, -1, o);
}
static long double r_silu(long double x) { return x / (1 + expl(-x)); }
static long double r_mish(long double x) { return x * tanhl(log1pl(expl(x))); }
static long double r_softplus(long double x) { return x > 20 ? x : log1pl(expl(x)); }
static long double r_leaky(long double x) { return x > 0 ? x : x * (long double)0.01; }
static long double r_elu(long double x) { return x > 0 ? x : expm1l(x); }

typedef ct_status (*op1)(ct_ctx *, const ct_tensor *, ct_tensor **);
static ct_status o_softplus(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_softplus(c, a, 1, 20, o);
}
static ct_status o_leaky(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_leaky_relu(c, a, 0.01, o);
}
static ct_status o_elu(ct_ctx *c, const ct_tensor *a, ct_tensor **o) { return ct_elu(c, a, 1, o); }

static const struct {
    const char *name;
    op1 fn;
    ref1 ref;
    double lo, hi;
    bool activation; /* floating inputs only */
} MATH[] = {
    {"erf", ct_erf, r_erf, -4, 4, false},
    {"erfc", ct_erfc, r_erfc, -3, 9, false},
    {"sin", ct_sin, r_sin, -20, 20, false},
    {"cos", ct_cos, r_cos, -20, 20, false},
    {"exp2", ct_exp2, r_exp2, -30, 30, false},
    {"log2", ct_log2, r_log2, 1e-3, 1e3, false},
    {"log1p", ct_log1p, r_log1p, -0.9, 10, false},
    {"expm1", ct_expm1, r_expm1, -5, 5, false},
    {"tan", ct_tan, r_tan, -1.5, 1.5, false},
    {"atan", ct_atan, r_atan, -20, 20, false},
    {"asin", ct_asin, r_asin, -1, 1, false},
    {"acos", ct_acos, r_acos, -1, 1, false},
    {"sinh", ct_sinh, r_sinh, -10, 10, false},
    {"cosh", ct_cosh, r_cosh, -10, 10, false},
    {"asinh", ct_asinh, r_asinh, -100, 100, false},
    {"acosh", ct_acosh, r_acosh, 1, 100, false},
    {"atanh", ct_atanh, r_atanh, -0.99, 0.99, false},
    {"log10", ct_log10, r_log10, 1e-3, 1e3, false},
    {"reciprocal", ct_reciprocal, r_recip, 0.1, 10, false},
    {"sinc", ct_sinc, r_sinc, -6, 6, false},
    {"logit", o_logit, r_logit, 0.001, 0.999, false},
    {"deg2rad", ct_deg2rad, r_deg2rad, -720, 720, false},
    {"frac", ct_frac, r_frac, -50, 50, true},
    {"silu", ct_silu, r_silu, -20, 20, true},
    {"mish", ct_mish, r_mish, -20, 20, true},
    {"softplus", o_softplus, r_softplus, -30, 30, true},
    {"leaky_relu", o_leaky, r_leaky, -5, 5, true},
    {"elu", o_elu, r_elu, -10, 5, true},
};
#define NMATH ((int)(sizeof MATH / sizeof MATH[0]))

/* |got - ref| within tol ulps of the dtype at ref (or an absolute floor for results near 0 that
 * come from cancellation, such as sin near a multiple of pi). */
static bool close_ulp(double got, long double ref, ct_dtype dt, double tol, double abs_floor) {
    if (isnan((double)ref)) return isnan(got);
    if (isinf((double)ref)) return got == (double)ref;
    double err = fabs((double)((long double)got - ref));
    return err <= tol * ulp_of((double)ref, dt) || err <= abs_floor;
}

TEST(math_functions_every_float_dtype_and_strided) {
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT32, CT_BOOL};
    const int64_t sh[2] = {7, 37};
    for (int k = 0; k < NMATH; k++)
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++)
            for (int mode = 0; mode < 3; mode++) {
                ct_dtype dt = dts[di];
                double *v = NULL;
                double lo = MATH[k].lo, hi = MATH[k].hi;
                if (dt == CT_FLOAT16 && MATH[k].ref == r_exp2) lo = -14, hi = 15;
                ct_tensor *a = tu_make(ctx, &rng, dt, 2, sh, mode, lo, hi, &v);
                ct_tensor *r = NULL;
                ct_status st = MATH[k].fn(ctx, a, &r);
                if (MATH[k].activation && !ct_dtype_is_floating(dt)) {
                    CHECK_ST(st, CT_ERR_DTYPE);
                    CHECK(strstr(ct_ctx_last_error(ctx), MATH[k].name) != NULL);
                    free(v), ct_tensor_release(a);
                    continue;
                }
                CHECK_OK(st);
                /* bool/integer inputs compute in float32 */
                ct_dtype want = ct_dtype_is_floating(dt) ? dt : CT_FLOAT32;
                CHECK(ct_tensor_dtype(r) == want);
                double *g = tu_read(r);
                /* f64: 2 ulp of the long double value; f32: glibc's float functions are within
                 * 2 ulp; f16/bf16 are computed in f32 and rounded once: 1 ulp of their type */
                double tol = want == CT_FLOAT64 ? 2 : want == CT_FLOAT32 ? 3 : 1;
                if (MATH[k].activation && want != CT_FLOAT16 && want != CT_BFLOAT16)
                    tol += 2; /* composite formulas: a few roundings */
                /* sin/cos near their zeros and erf/expm1/log1p near 0: the absolute error of
                 * the f32 argument reduction */
                double floor_abs = want == CT_FLOAT64 ? 1e-15 : want == CT_FLOAT32 ? 1e-7 : 1e-3;
                int bad = 0;
                for (int64_t i = 0; i < 7 * 37; i++) {
                    long double ref = MATH[k].ref((long double)v[i]);
                    if (want != CT_FLOAT64 && want != CT_FLOAT32) {
                        /* the f32 result, then rounded to the 16-bit type: compare there */
                        ref = want == CT_FLOAT16
                                  ? (long double)ct_f16_to_f32(ct_f32_to_f16((float)ref))
                                  : (long double)ct_bf16_to_f32(ct_f32_to_bf16((float)ref));
                    }
                    if (!close_ulp(g[i], ref, want, tol, floor_abs) && bad++ < 3)
                        CHECK_MSG(0, "%s %s mode %d: x=%.17g got %.17g want %.17Lg", MATH[k].name,
                                  ct_dtype_name(dt), mode, v[i], g[i], ref);
                }
                free(v), free(g);
                ct_tensor_release(a), ct_tensor_release(r);
            }
}

/* Exact tables: special values through every op (f32 and f64), rounding half to even. */
TEST(special_values_and_rounding_tables) {
    const double x[] = {NAN, -0.0, 0.0,  -2.5,  -1.5,     -0.5,      0.5,      1.5,
                        2.5, 3.7,  -3.7, 1e300, INFINITY, -INFINITY, 8388609.5};
    const int n = (int)(sizeof x / sizeof x[0]);
    /* expected (f64): floor, ceil, round, trunc, sign */
    const double fl[] = {NAN, -0.0, 0,  -3,    -2,       -1,        0,      1,
                         2,   3,    -4, 1e300, INFINITY, -INFINITY, 8388609};
    const double ce[] = {NAN, -0.0, 0,  -2,    -1,       -0.0,      1,      2,
                         3,   4,    -3, 1e300, INFINITY, -INFINITY, 8388610};
    const double ro[] = {NAN, -0.0, 0,  -2,    -2,       -0.0,      0,      2,
                         2,   4,    -4, 1e300, INFINITY, -INFINITY, 8388610};
    const double tr[] = {NAN, -0.0, 0,  -2,    -1,       -0.0,      0,      1,
                         2,   3,    -3, 1e300, INFINITY, -INFINITY, 8388609};
    const double sg[] = {0, 0, 0, -1, -1, -1, 1, 1, 1, 1, -1, 1, 1, -1, 1};
    const int64_t sh[1] = {n};
    const ct_dtype dts[2] = {CT_FLOAT64, CT_FLOAT32};
    for (int di = 0; di < 2; di++) {
        ct_tensor *a = from_vals(dts[di], 1, sh, x);
        const struct {
            op1 fn;
            const double *want;
            const char *name;
        } t[] = {{ct_floor, fl, "floor"},
                 {ct_ceil, ce, "ceil"},
                 {ct_round, ro, "round"},
                 {ct_trunc, tr, "trunc"},
                 {ct_sign, sg, "sign"}};
        for (int k = 0; k < 5; k++) {
            ct_tensor *r = NULL;
            CHECK_OK(t[k].fn(ctx, a, &r));
            double *g = tu_read(r);
            for (int i = 0; i < n; i++) {
                double w = t[k].want[i];
                /* in f32 the input 1e300 is inf and 8388609.5 is 8388610 (already integral) */
                if (dts[di] == CT_FLOAT32 && x[i] == 1e300 && k < 4) w = INFINITY;
                if (dts[di] == CT_FLOAT32 && x[i] == 8388609.5 && k < 4) w = 8388610;
                CHECK_MSG(tu_same_val(g[i], w), "%s %s(%g) = %g, want %g", ct_dtype_name(dts[di]),
                          t[k].name, x[i], g[i], w);
            }
            free(g), ct_tensor_release(r);
        }
        /* predicates */
        ct_tensor *pn = NULL, *pi = NULL, *pf = NULL, *ln = NULL;
        CHECK_OK(ct_isnan(ctx, a, &pn));
        CHECK_OK(ct_isinf(ctx, a, &pi));
        CHECK_OK(ct_isfinite(ctx, a, &pf));
        CHECK_OK(ct_logical_not(ctx, a, &ln));
        CHECK(ct_tensor_dtype(pn) == CT_BOOL && ct_tensor_dtype(ln) == CT_BOOL);
        double *gn = tu_read(pn), *gi = tu_read(pi), *gf = tu_read(pf), *gl = tu_read(ln);
        for (int i = 0; i < n; i++) {
            double xv = dts[di] == CT_FLOAT32 ? (double)(float)x[i] : x[i];
            CHECK(gn[i] == (isnan(xv) ? 1 : 0));
            CHECK(gi[i] == (isinf(xv) ? 1 : 0));
            CHECK(gf[i] == (isfinite(xv) ? 1 : 0));
            CHECK(gl[i] == (xv == 0 ? 1 : 0)); /* NaN is true, so not NaN is false */
        }
        free(gn), free(gi), free(gf), free(gl);
        ct_tensor_release(pn), ct_tensor_release(pi), ct_tensor_release(pf);
        ct_tensor_release(ln), ct_tensor_release(a);
    }
    /* integers: rounding copies, sign is -1/0/1 in the dtype, predicates are constant; bool is
     * refused by rounding (as torch) but not by sign */
    const double iv[4] = {-3, 0, 5, -128};
    const int64_t s4[1] = {4};
    ct_tensor *ia = from_vals(CT_INT8, 1, s4, iv), *r = NULL;
    CHECK_OK(ct_round(ctx, ia, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT8);
    double *g = tu_read(r);
    CHECK(g[0] == -3 && g[1] == 0 && g[2] == 5 && g[3] == -128);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_sign(ctx, ia, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_INT8 && g[0] == -1 && g[1] == 0 && g[2] == 1 && g[3] == -1);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_isfinite(ctx, ia, &r));
    g = tu_read(r);
    CHECK(g[0] == 1 && g[3] == 1);
    free(g), ct_tensor_release(r);
    ct_tensor *ba = from_vals(CT_BOOL, 1, s4, iv);
    CHECK_ST(ct_floor(ctx, ba, &r), CT_ERR_DTYPE);
    CHECK_OK(ct_sign(ctx, ba, &r));
    CHECK(ct_tensor_dtype(r) == CT_BOOL);
    ct_tensor_release(r);
    ct_tensor_release(ia), ct_tensor_release(ba);
}

/* Activation edge cases: signs of zero, NaN, the softplus threshold, hardtanh bounds. */
TEST(activation_edges) {
    const double x[] = {-0.0, 0.0, NAN, -INFINITY, INFINITY, 25, 10.5, -1000};
    const int64_t sh[1] = {8};
    ct_tensor *a = from_vals(CT_FLOAT64, 1, sh, x), *r = NULL;
    CHECK_OK(ct_elu(ctx, a, 0.5, &r));
    double *g = tu_read(r);
    CHECK(tu_same_val(g[0], 0.0) && tu_same_val(g[1], 0.0) && isnan(g[2]) && g[3] == -0.5 &&
          g[4] == INFINITY && g[7] == -0.5);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_leaky_relu(ctx, a, 0.1, &r));
    g = tu_read(r);
    CHECK(tu_same_val(g[0], -0.0) && isnan(g[2]) && g[3] == -INFINITY && g[7] == -100);
    free(g), ct_tensor_release(r);
    /* softplus(beta 2, threshold 20): x where 2x > 20, so 10.5 and 25 pass through */
    CHECK_OK(ct_softplus(ctx, a, 2, 20, &r));
    g = tu_read(r);
    CHECK(g[5] == 25 && g[6] == 10.5 && g[4] == INFINITY && g[3] == 0 && g[7] == 0);
    CHECK(fabs(g[1] - log(2.0) / 2) < 1e-16);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_silu(ctx, a, &r));
    g = tu_read(r);
    CHECK(isnan(g[2]) && g[4] == INFINITY && g[7] == -0.0);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_mish(ctx, a, &r));
    g = tu_read(r);
    CHECK(g[5] == 25 && g[4] == INFINITY && g[7] == -0.0);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_hardtanh(ctx, a, -1, 2, &r));
    g = tu_read(r);
    CHECK(g[3] == -1 && g[4] == 2 && g[5] == 2 && tu_same_val(g[0], -0.0) && g[7] == -1);
    free(g), ct_tensor_release(r);
    /* min_val > max_val is not checked (torch's F.hardtanh): max_val everywhere, NaN kept */
    CHECK_OK(ct_hardtanh(ctx, a, 2, -2, &r));
    g = tu_read(r);
    for (int i = 0; g && i < (int)ct_tensor_numel(r); i++)
        CHECK_MSG(isnan(x[i]) ? isnan(g[i]) : g[i] == -2, "hardtanh(x, 2, -2)[%d] = %g", i, g[i]);
    free(g), ct_tensor_release(r);
    ct_tensor_release(a);
    /* hardtanh keeps integer dtypes */
    const double iv[3] = {-5, 1, 9};
    const int64_t s3[1] = {3};
    ct_tensor *ia = from_vals(CT_INT32, 1, s3, iv);
    CHECK_OK(ct_hardtanh(ctx, ia, -2, 2, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_INT32 && g[0] == -2 && g[1] == 1 && g[2] == 2);
    free(g), ct_tensor_release(r);
    /* fractional bounds are truncated for integers (torch: int8 [1, -3, 5], -1.5, 2.5 ->
     * [1, -1, 2], still int8); uint8 refuses negative bounds */
    ct_tensor *i8 = from_vals(CT_INT8, 1, s3, (const double[]){1, -3, 5}), *u8 = NULL;
    CHECK_OK(ct_hardtanh(ctx, i8, -1.5, 2.5, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_INT8 && g[0] == 1 && g[1] == -1 && g[2] == 2);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_cast(ctx, ia, CT_UINT8, &u8));
    CHECK_ST(ct_hardtanh(ctx, u8, -1, 2, &r), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "negative") != NULL);
    ct_tensor_release(u8), ct_tensor_release(i8), ct_tensor_release(ia);
}

/* maximum / minimum: NaN propagation, signed zeros (IEEE), promotion, broadcasting. */
TEST(maximum_minimum) {
    const double a[] = {1, NAN, -0.0, 0.0, -INFINITY, 3, 2};
    const double b[] = {NAN, 2, 0.0, -0.0, 5, 3, -7};
    const double mx[] = {NAN, NAN, 0.0, 0.0, 5, 3, 2};
    const double mn[] = {NAN, NAN, -0.0, -0.0, -INFINITY, 3, -7};
    const int64_t sh[1] = {7};
    for (int di = 0; di < 4; di++) {
        ct_dtype dt = (ct_dtype[]){CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16}[di];
        ct_tensor *ta = from_vals(dt, 1, sh, a), *tb = from_vals(dt, 1, sh, b), *r = NULL;
        CHECK_OK(ct_maximum(ctx, ta, tb, &r));
        double *g = tu_read(r);
        for (int i = 0; i < 7; i++)
            CHECK_MSG(tu_same_val(g[i], mx[i]), "%s maximum(%g, %g) = %g", ct_dtype_name(dt), a[i],
                      b[i], g[i]);
        free(g), ct_tensor_release(r);
        CHECK_OK(ct_minimum(ctx, ta, tb, &r));
        g = tu_read(r);
        for (int i = 0; i < 7; i++)
            CHECK_MSG(tu_same_val(g[i], mn[i]), "%s minimum(%g, %g) = %g", ct_dtype_name(dt), a[i],
                      b[i], g[i]);
        free(g), ct_tensor_release(r);
        ct_tensor_release(ta), ct_tensor_release(tb);
    }
    /* mixed dtypes: int32 with f32 computes in f32; int8 with int64 in int64; bool max is or */
    const int64_t s23[2] = {2, 3}, s3[1] = {3};
    for (int rep = 0; rep < 3; rep++) {
        ct_dtype da = (ct_dtype[]){CT_INT32, CT_INT8, CT_BOOL}[rep];
        ct_dtype db = (ct_dtype[]){CT_FLOAT32, CT_INT64, CT_BOOL}[rep];
        ct_dtype want = (ct_dtype[]){CT_FLOAT32, CT_INT64, CT_BOOL}[rep];
        double *va = NULL, *vb = NULL;
        ct_tensor *ta = tu_make(ctx, &rng, da, 2, s23, 1, -100, 100, &va);
        ct_tensor *tb = tu_make(ctx, &rng, db, 1, s3, 0, -100, 100, &vb);
        ct_tensor *r = NULL, *r2 = NULL;
        CHECK_OK(ct_maximum(ctx, ta, tb, &r));
        CHECK_OK(ct_minimum(ctx, tb, ta, &r2));
        CHECK(ct_tensor_dtype(r) == want && tu_same_shape(r, 2, s23));
        double *g = tu_read(r), *g2 = tu_read(r2);
        for (int i = 0; i < 6; i++) {
            double x = va[i], y = vb[i % 3];
            if (db == CT_FLOAT32) y = (float)y;
            CHECK(g[i] == (x > y ? x : y));
            CHECK(g2[i] == (x < y ? x : y));
        }
        free(va), free(vb), free(g), free(g2);
        ct_tensor_release(ta), ct_tensor_release(tb), ct_tensor_release(r), ct_tensor_release(r2);
    }
}

/* remainder / fmod: exact tables (torch 1.13's outputs), integer edge cases, zero divisors. */
TEST(remainder_and_fmod) {
    const double a[] = {-7, 7, -7, 7, 5, -5, 0, -0.0, -1e-30, 5.5, -7, 7};
    const double b[] = {2, -2, -2, 2, INFINITY, INFINITY, 3, 3, 3, 0, 0.75, NAN};
    const double rem[] = {1, -1, -1, 1, 5, INFINITY, 0, -0.0, 3, NAN, 0.5, NAN};
    const double fmd[] = {-1, 1, -1, 1, 5, -5, 0, -0.0, -1e-30, NAN, -0.25, NAN};
    const int64_t sh[1] = {12};
    ct_tensor *ta = from_vals(CT_FLOAT64, 1, sh, a), *tb = from_vals(CT_FLOAT64, 1, sh, b);
    ct_tensor *r = NULL;
    CHECK_OK(ct_remainder(ctx, ta, tb, &r));
    double *g = tu_read(r);
    for (int i = 0; i < 12; i++)
        CHECK_MSG(tu_same_val(g[i], rem[i]), "remainder(%g, %g) = %g, want %g", a[i], b[i], g[i],
                  rem[i]);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_fmod(ctx, ta, tb, &r));
    g = tu_read(r);
    for (int i = 0; i < 12; i++)
        CHECK_MSG(tu_same_val(g[i], fmd[i]), "fmod(%g, %g) = %g, want %g", a[i], b[i], g[i],
                  fmd[i]);
    free(g), ct_tensor_release(r);
    ct_tensor_release(ta), ct_tensor_release(tb);
    /* integers against a naive floor-division formula over random data of every int dtype */
    const ct_dtype its[] = {CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64};
    const int64_t s57[2] = {5, 7};
    for (int di = 0; di < 5; di++) {
        double *va = NULL, *vb = NULL;
        ct_tensor *x = tu_make(ctx, &rng, its[di], 2, s57, 2, -120, 120, &va);
        ct_tensor *y = tu_make(ctx, &rng, its[di], 2, s57, 1, 1, 20, &vb);
        /* positive divisors, then negative ones (not for uint8) */
        for (int sgn = 0; sgn < (its[di] == CT_UINT8 ? 1 : 2); sgn++) {
            ct_tensor *ny = NULL, *r2 = NULL;
            if (sgn)
                CHECK_OK(ct_neg(ctx, y, &ny));
            else
                ny = ct_tensor_retain(y);
            double *vny = tu_read(ny);
            CHECK_OK(ct_remainder(ctx, x, ny, &r));
            CHECK_OK(ct_fmod(ctx, x, ny, &r2));
            CHECK(ct_tensor_dtype(r) == its[di]);
            double *g1 = tu_read(r), *g2 = tu_read(r2);
            for (int i = 0; i < 35; i++) {
                double q = va[i], d = vny[i];
                double want_rem = q - d * floor(q / d), want_fmod = q - d * trunc(q / d);
                CHECK_MSG(g1[i] == want_rem && g2[i] == want_fmod,
                          "%s remainder/fmod(%g, %g) = %g / %g, want %g / %g",
                          ct_dtype_name(its[di]), q, d, g1[i], g2[i], want_rem, want_fmod);
            }
            free(vny), free(g1), free(g2);
            ct_tensor_release(ny), ct_tensor_release(r), ct_tensor_release(r2);
        }
        free(va), free(vb);
        ct_tensor_release(x), ct_tensor_release(y);
    }
    /* int8 -128 % -1 is 0 (no trap), int64 min too */
    const double mv[2] = {-128, 5}, m1[2] = {-1, -1};
    const int64_t s2[1] = {2};
    ct_tensor *x8 = from_vals(CT_INT8, 1, s2, mv), *y8 = from_vals(CT_INT8, 1, s2, m1);
    CHECK_OK(ct_remainder(ctx, x8, y8, &r));
    g = tu_read(r);
    CHECK(g[0] == 0 && g[1] == 0);
    free(g), ct_tensor_release(r);
    /* an integer zero divisor anywhere (here through broadcasting) fails with a message */
    const double z[1] = {0};
    const int64_t s1[1] = {1};
    ct_tensor *z8 = from_vals(CT_INT8, 1, s1, z);
    r = NULL;
    CHECK_ST(ct_remainder(ctx, x8, z8, &r), CT_ERR_INVALID_ARG);
    CHECK(r == NULL && strstr(ct_ctx_last_error(ctx), "division by zero") != NULL);
    CHECK_ST(ct_fmod(ctx, x8, z8, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_remainder_scalar(ctx, x8, 0, &r), CT_ERR_INVALID_ARG);
    /* scalar divisors: an int keeps the dtype, a float promotes to float32 */
    CHECK_OK(ct_remainder_scalar(ctx, x8, 3, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_INT8 && g[0] == 1 && g[1] == 2);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_fmod_scalar(ctx, x8, 2.5, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32 && g[0] == -0.5 && g[1] == 0);
    free(g), ct_tensor_release(r);
    ct_tensor *bb = from_vals(CT_BOOL, 1, s2, mv);
    CHECK_ST(ct_remainder(ctx, bb, bb, &r), CT_ERR_DTYPE);
    ct_tensor_release(bb), ct_tensor_release(x8), ct_tensor_release(y8), ct_tensor_release(z8);
}

/* logical and bitwise ops against naive C on random data of mixed dtypes (broadcast, strided). */
TEST(logical_and_bitwise) {
    const int64_t s46[2] = {4, 6}, s6[1] = {6};
    for (int da = 0; da < TU_NALL; da++)
        for (int db = 0; db < TU_NALL; db += 3) {
            ct_dtype ta_dt = TU_ALL_DTYPES[da], tb_dt = TU_ALL_DTYPES[db];
            double *va = NULL, *vb = NULL;
            ct_tensor *a = tu_make(ctx, &rng, ta_dt, 2, s46, 1, -3, 3, &va);
            ct_tensor *b = tu_make(ctx, &rng, tb_dt, 1, s6, 0, -3, 3, &vb);
            ct_tensor *r[3] = {NULL, NULL, NULL};
            CHECK_OK(ct_logical_and(ctx, a, b, &r[0]));
            CHECK_OK(ct_logical_or(ctx, a, b, &r[1]));
            CHECK_OK(ct_logical_xor(ctx, a, b, &r[2]));
            for (int k = 0; k < 3; k++) {
                CHECK(ct_tensor_dtype(r[k]) == CT_BOOL && tu_same_shape(r[k], 2, s46));
                double *g = tu_read(r[k]);
                for (int i = 0; i < 24; i++) {
                    bool x = va[i] != 0, y = vb[i % 6] != 0;
                    bool w = k == 0 ? (x && y) : k == 1 ? (x || y) : (x != y);
                    CHECK_MSG(g[i] == w, "logical op %d %s %s: %g, %g -> %g", k,
                              ct_dtype_name(ta_dt), ct_dtype_name(tb_dt), va[i], vb[i % 6], g[i]);
                }
                free(g), ct_tensor_release(r[k]);
            }
            free(va), free(vb), ct_tensor_release(a), ct_tensor_release(b);
        }
    /* bitwise and / or / xor / not on every integer dtype and bool */
    const ct_dtype its[] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64};
    for (int di = 0; di < 6; di++) {
        ct_dtype dt = its[di];
        double *va = NULL, *vb = NULL;
        ct_tensor *a = tu_make(ctx, &rng, dt, 2, s46, 2, -100, 100, &va);
        ct_tensor *b = tu_make(ctx, &rng, dt, 1, s6, 0, -100, 100, &vb);
        ct_tensor *r[4] = {NULL, NULL, NULL, NULL};
        CHECK_OK(ct_bitwise_and(ctx, a, b, &r[0]));
        CHECK_OK(ct_bitwise_or(ctx, a, b, &r[1]));
        CHECK_OK(ct_bitwise_xor(ctx, a, b, &r[2]));
        CHECK_OK(ct_bitwise_not(ctx, a, &r[3]));
        for (int k = 0; k < 4; k++) {
            CHECK(ct_tensor_dtype(r[k]) == dt);
            double *g = tu_read(r[k]);
            for (int i = 0; i < 24; i++) {
                int64_t x = (int64_t)va[i], y = (int64_t)vb[i % 6], w;
                if (dt == CT_BOOL)
                    w = k == 0 ? (x & y) : k == 1 ? (x | y) : k == 2 ? (x ^ y) : !x;
                else {
                    w = k == 0 ? (x & y) : k == 1 ? (x | y) : k == 2 ? (x ^ y) : ~x;
                    if (dt == CT_UINT8) w = (uint8_t)w;
                    if (dt == CT_INT8) w = (int8_t)w;
                }
                CHECK_MSG(g[i] == (double)w, "bitwise %d %s: %lld, %lld -> %g", k,
                          ct_dtype_name(dt), (long long)x, (long long)y, g[i]);
            }
            free(g), ct_tensor_release(r[k]);
        }
        free(va), free(vb), ct_tensor_release(a), ct_tensor_release(b);
    }
    /* shifts: in range, past the width, negative amounts */
    const double x[] = {1, -1, -16, 16, 100, -100, 3, 1};
    const double s[] = {3, 3, 2, 70, 31, 40, -1, 63};
    const int64_t s8[1] = {8};
    ct_tensor *tx = from_vals(CT_INT32, 1, s8, x), *ts = from_vals(CT_INT32, 1, s8, s);
    ct_tensor *l = NULL, *rr = NULL;
    CHECK_OK(ct_bitwise_left_shift(ctx, tx, ts, &l));
    CHECK_OK(ct_bitwise_right_shift(ctx, tx, ts, &rr));
    double *gl = tu_read(l), *gr = tu_read(rr);
    const double wl[] = {8, -8, -64, 0, 0, 0, 0, 0};
    const double wr[] = {0, -1, -4, 0, 0, -1, 0, 0};
    for (int i = 0; i < 8; i++)
        CHECK_MSG(gl[i] == wl[i] && gr[i] == wr[i], "shift %g by %g: << %g >> %g", x[i], s[i],
                  gl[i], gr[i]);
    free(gl), free(gr), ct_tensor_release(l), ct_tensor_release(rr);
    ct_tensor_release(tx), ct_tensor_release(ts);
    /* floats are refused by bitwise ops; bool by shifts */
    const double fv[1] = {1};
    const int64_t s1[1] = {1};
    ct_tensor *f = from_vals(CT_FLOAT32, 1, s1, fv), *bo = from_vals(CT_BOOL, 1, s1, fv), *o = NULL;
    CHECK_ST(ct_bitwise_and(ctx, f, f, &o), CT_ERR_DTYPE);
    CHECK_ST(ct_bitwise_not(ctx, f, &o), CT_ERR_DTYPE);
    CHECK_ST(ct_bitwise_left_shift(ctx, bo, bo, &o), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "bitwise_left_shift") != NULL);
    ct_tensor_release(f), ct_tensor_release(bo);
}

/* lerp: torch's two-sided formula (weight 1 gives end exactly), tensor and scalar weights. */
TEST(lerp) {
    const int64_t s35[2] = {3, 5}, s5[1] = {5};
    for (int di = 0; di < 4; di++) {
        ct_dtype dt = (ct_dtype[]){CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16}[di];
        double *vs = NULL, *ve = NULL, *vw = NULL;
        ct_tensor *s = tu_make(ctx, &rng, dt, 2, s35, 1, -10, 10, &vs);
        ct_tensor *e = tu_make(ctx, &rng, dt, 1, s5, 0, -10, 10, &ve);
        ct_tensor *w = tu_make(ctx, &rng, dt, 2, s35, 2, -0.5, 1.5, &vw);
        ct_tensor *r = NULL, *r2 = NULL;
        CHECK_OK(ct_lerp(ctx, s, e, w, &r));
        CHECK_OK(ct_lerp_scalar(ctx, s, e, 0.75, &r2));
        double *g = tu_read(r), *g2 = tu_read(r2);
        for (int i = 0; i < 15; i++) {
            double a = vs[i], b = ve[i % 5];
            double want = a + vw[i] * (b - a), want2 = a + 0.75 * (b - a);
            /* one rounding per step in the element's math type (f32 for the 16-bit types) */
            double scale = fabs(a) + fabs(b) + 1;
            double tol = dt == CT_FLOAT64 ? 4e-15 : dt == CT_FLOAT32 ? 4e-7 : 2e-2;
            CHECK_MSG(fabs(g[i] - want) <= tol * scale && fabs(g2[i] - want2) <= tol * scale,
                      "%s lerp(%g, %g, %g) = %g / %g", ct_dtype_name(dt), a, b, vw[i], g[i], g2[i]);
        }
        free(g), free(g2), free(vs), free(ve), free(vw);
        ct_tensor_release(r), ct_tensor_release(r2), ct_tensor_release(w);
        /* weight exactly 1 gives end bit for bit, 0 gives start */
        CHECK_OK(ct_lerp_scalar(ctx, s, e, 1.0, &r));
        CHECK_OK(ct_lerp_scalar(ctx, s, e, 0.0, &r2));
        double *ge = tu_read(r), *gs = tu_read(r2), *ee = tu_read(e), *ss = tu_read(s);
        for (int i = 0; i < 15; i++)
            CHECK(ge[i] == ee[i % 5] && gs[i] == ss[i]);
        free(ge), free(gs), free(ee), free(ss);
        ct_tensor_release(r), ct_tensor_release(r2), ct_tensor_release(s), ct_tensor_release(e);
    }
    const double v[2] = {1, 2};
    const int64_t s2[1] = {2};
    ct_tensor *i = from_vals(CT_INT32, 1, s2, v), *f = from_vals(CT_FLOAT32, 1, s2, v), *o = NULL;
    CHECK_ST(ct_lerp_scalar(ctx, i, f, 0.5, &o), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "start") != NULL);
    { /* torch: end and weight must have start's dtype (no promotion, even a 0-d weight) */
        ct_tensor *d = NULL, *w0 = NULL;
        CHECK_OK(ct_cast(ctx, f, CT_FLOAT64, &d));
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 0.5, &w0));
        CHECK_ST(ct_lerp_scalar(ctx, f, d, 0.5, &o), CT_ERR_DTYPE);
        CHECK(o == NULL && strstr(ct_ctx_last_error(ctx), "end") != NULL);
        CHECK_ST(ct_lerp(ctx, f, f, w0, &o), CT_ERR_DTYPE);
        CHECK(o == NULL && strstr(ct_ctx_last_error(ctx), "weight") != NULL);
        ct_tensor_release(d), ct_tensor_release(w0);
    }
    CHECK_ST(ct_lerp(ctx, f, f, NULL, &o), CT_ERR_INVALID_ARG);
    ct_tensor_release(i), ct_tensor_release(f);
}

/* Zero-size and 0-d inputs, and the NULL / released-tensor errors of a new front end. */
/* hypot, logaddexp(2), xlogy, pow with a tensor exponent against long-double references, every
 * float dtype, strided and broadcast (the second operand a row). logaddexp runs in a wider type
 * and stays within an ulp where torch 1.13 cancels (scripts/torchdiff: up to 16000 ulp in f64). */
typedef ct_status (*op2)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);
typedef long double (*ref2)(long double, long double);
static long double r_hypot(long double a, long double b) { return hypotl(a, b); }
static long double r_lae(long double a, long double b) {
    long double m = a > b ? a : b;
    return m + log1pl(expl(-fabsl(a - b)));
}
static long double r_lae2(long double a, long double b) {
    long double m = a > b ? a : b;
    return m + log2l(1 + exp2l(-fabsl(a - b)));
}
static long double r_xlogy(long double a, long double b) { return a == 0 ? 0 : a * logl(b); }
static long double r_powt(long double a, long double b) { return powl(a, b); }
TEST(binary_math_functions) {
    const struct {
        const char *name;
        op2 fn;
        ref2 ref;
        double alo, ahi, blo, bhi;
    } B[] = {
        {"hypot", ct_hypot, r_hypot, -100, 100, -100, 100},
        {"logaddexp", ct_logaddexp, r_lae, -30, 30, -30, 30},
        {"logaddexp near 0", ct_logaddexp, r_lae, -1.5, -0.1, -1.5, -0.1},
        {"logaddexp2", ct_logaddexp2, r_lae2, -30, 30, -30, 30},
        {"logaddexp2 near 0", ct_logaddexp2, r_lae2, -1.5, -0.1, -1.5, -0.1},
        {"xlogy", ct_xlogy, r_xlogy, -10, 10, 0.01, 100},
        {"pow_tensor", ct_pow_tensor, r_powt, 0.1, 4, -6, 6},
    };
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};
    const int64_t sh[2] = {5, 23}, row[1] = {23};
    for (size_t k = 0; k < sizeof B / sizeof B[0]; k++)
        for (int di = 0; di < 4; di++)
            for (int mode = 0; mode < 3; mode++) {
                const ct_dtype dt = dts[di];
                double *va = NULL, *vb = NULL;
                ct_tensor *a = tu_make(ctx, &rng, dt, 2, sh, mode, B[k].alo, B[k].ahi, &va);
                ct_tensor *b = mode == 2
                                   ? tu_make(ctx, &rng, dt, 1, row, 0, B[k].blo, B[k].bhi, &vb)
                                   : tu_make(ctx, &rng, dt, 2, sh, mode, B[k].blo, B[k].bhi, &vb);
                if (dt == CT_FLOAT16 && B[k].ref == r_powt) { /* keep a^b within f16's range */
                    ct_tensor_release(b), free(vb);
                    b = mode == 2 ? tu_make(ctx, &rng, dt, 1, row, 0, -3, 3, &vb)
                                  : tu_make(ctx, &rng, dt, 2, sh, mode, -3, 3, &vb);
                }
                ct_tensor *r = NULL;
                CHECK_OK(B[k].fn(ctx, a, b, &r));
                CHECK(ct_tensor_dtype(r) == dt && tu_same_shape(r, 2, sh));
                double *g = tu_read(r);
                const double tol = dt == CT_FLOAT64 ? 2 : dt == CT_FLOAT32 ? 2 : 1;
                int bad = 0;
                for (int64_t i = 0; i < 5 * 23; i++) {
                    const double x = va[i], y = vb[mode == 2 ? i % 23 : i];
                    long double ref = B[k].ref(x, y);
                    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16) /* f32 result rounded once */
                        ref = dt == CT_FLOAT16 ? ct_f16_to_f32(ct_f32_to_f16((float)ref))
                                               : ct_bf16_to_f32(ct_f32_to_bf16((float)ref));
                    if (!close_ulp(g[i], ref, dt, tol, 0) && bad++ < 3)
                        CHECK_MSG(0, "%s %s mode %d: (%.17g, %.17g) got %.17g want %.17Lg",
                                  B[k].name, ct_dtype_name(dt), mode, x, y, g[i], ref);
                }
                free(va), free(vb), free(g);
                ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(r);
            }
}

static void check_vals(const char *what, const ct_tensor *r, ct_dtype dt, int n,
                       const double *want) {
    CHECK_MSG(ct_tensor_dtype(r) == dt, "%s: dtype %s, want %s", what,
              ct_dtype_name(ct_tensor_dtype(r)), ct_dtype_name(dt));
    double *g = tu_read(r);
    for (int i = 0; i < n; i++)
        CHECK_MSG(tu_same_val(g[i], want[i]), "%s [%d]: %.17g, want %.17g", what, i, g[i], want[i]);
    free(g);
}
static ct_tensor *run2(op2 f, const ct_tensor *a, const ct_tensor *b) {
    ct_tensor *r = NULL;
    CHECK_OK(f(ctx, a, b, &r));
    return r;
}

/* Exact tables for the special values and dtype rules of the new ops (torch 1.13's outputs, run
 * by hand), and their errors. */
TEST(more_math_special_values) {
    const int64_t s5[1] = {5}, s4[1] = {4}, s3[1] = {3};
    ct_tensor *a, *b, *r;
    for (int di = 0; di < 2; di++) {
        const ct_dtype dt = di ? CT_FLOAT64 : CT_FLOAT32;
        /* heaviside: values where x == 0 (-0 too), NaN gives 0 */
        a = from_vals(dt, 1, s5, (double[]){-1, 0, 2, NAN, -0.0});
        b = from_vals(dt, 1, s5, (double[]){5, 7, 9, 3, 1});
        r = run2(ct_heaviside, a, b);
        check_vals("heaviside", r, dt, 5, (double[]){0, 7, 1, 0, 1});
        ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
        /* fmax / fmin ignore a NaN */
        a = from_vals(dt, 1, s5, (double[]){1, NAN, 2, -3, NAN});
        b = from_vals(dt, 1, s5, (double[]){2, 1, NAN, -4, NAN});
        r = run2(ct_fmax, a, b);
        check_vals("fmax", r, dt, 5, (double[]){2, 1, 2, -3, NAN});
        ct_tensor_release(r);
        r = run2(ct_fmin, a, b);
        check_vals("fmin", r, dt, 5, (double[]){1, 1, 2, -4, NAN});
        ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
        /* copysign takes -0 and the NaN's sign */
        a = from_vals(dt, 1, s3, (double[]){1, 2, 0});
        b = from_vals(dt, 1, s3, (double[]){-0.0, 1, -NAN});
        r = run2(ct_copysign, a, b);
        check_vals("copysign", r, dt, 3, (double[]){-1, 2, -0.0});
        ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
        /* xlogy: 0 at a == 0 unless b is NaN */
        a = from_vals(dt, 1, s4, (double[]){0, 0, NAN, 1});
        b = from_vals(dt, 1, s4, (double[]){0, NAN, 0, 0});
        r = run2(ct_xlogy, a, b);
        check_vals("xlogy", r, dt, 4, (double[]){0, NAN, NAN, -INFINITY});
        ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
        /* logaddexp of equal infinities */
        a = from_vals(dt, 1, s3, (double[]){INFINITY, -INFINITY, -INFINITY});
        b = from_vals(dt, 1, s3, (double[]){INFINITY, -INFINITY, 2});
        r = run2(ct_logaddexp, a, b);
        check_vals("logaddexp", r, dt, 3, (double[]){INFINITY, -INFINITY, 2});
        ct_tensor_release(r);
        r = run2(ct_logaddexp2, a, b);
        check_vals("logaddexp2", r, dt, 3, (double[]){INFINITY, -INFINITY, 2});
        ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
        /* frac keeps the sign; sinc is exactly 0 at nonzero integers (torch: -2.8e-8 at 1 in
         * f32) and 1 at 0 */
        const int64_t s8[1] = {8};
        a = from_vals(dt, 1, s8, (double[]){-2.5, INFINITY, NAN, -0.0, 1e30, 1, -3, 0.5});
        CHECK_OK(ct_frac(ctx, a, &r));
        check_vals("frac", r, dt, 5, (double[]){-0.5, NAN, NAN, 0.0, 0});
        ct_tensor_release(r);
        CHECK_OK(ct_sinc(ctx, a, &r));
        double *g = tu_read(r);
        CHECK(isnan(g[1]) && isnan(g[2]) && g[3] == 1 && g[4] == 0 && g[5] == 0 && g[6] == 0);
        CHECK(fabs(g[7] - 2 / 3.14159265358979323846) < 1e-7);
        free(g), ct_tensor_release(r);
        /* signbit: -0 and a negative NaN */
        CHECK_OK(ct_signbit(ctx, a, &r));
        check_vals("signbit", r, CT_BOOL, 8, (double[]){1, 0, 0, 1, 0, 0, 1, 0});
        ct_tensor_release(r), ct_tensor_release(a);
        /* logit: eps 0.1 clamps to [0.1, 0.9]; without eps 0 and 1 give -inf and inf */
        a = from_vals(dt, 1, s4, (double[]){0, 0.05, 0.5, 1});
        CHECK_OK(ct_logit(ctx, a, 0.1, &r));
        g = tu_read(r);
        const double l9 = di ? log(0.1 / 0.9) : (double)logf(0.1f / (1 - 0.1f));
        CHECK(fabs(g[0] - l9) < 1e-6 && g[0] == g[1] && g[2] == 0 && fabs(g[3] + l9) < 1e-6);
        free(g), ct_tensor_release(r);
        CHECK_OK(ct_logit(ctx, a, -1, &r));
        g = tu_read(r);
        CHECK(g[0] == -INFINITY && g[2] == 0 && g[3] == INFINITY);
        free(g), ct_tensor_release(r), ct_tensor_release(a);
    }
    /* nan_to_num: the dtype's largest finite values by default; given values converted */
    const double nv[3] = {NAN, INFINITY, -INFINITY};
    const ct_dtype nd[3] = {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32};
    const double big[3] = {65504, 3.3895313892515355e38, FLT_MAX};
    for (int k = 0; k < 3; k++) {
        a = from_vals(nd[k], 1, s3, nv);
        CHECK_OK(ct_nan_to_num(ctx, a, NULL, NULL, NULL, &r));
        check_vals("nan_to_num", r, nd[k], 3, (double[]){0, big[k], -big[k]});
        ct_tensor_release(r);
        const double one = 1.5, huge = 1e300, lo = -7;
        CHECK_OK(ct_nan_to_num(ctx, a, &one, &huge, &lo, &r));
        check_vals("nan_to_num given", r, nd[k], 3, (double[]){1.5, INFINITY, -7});
        ct_tensor_release(r), ct_tensor_release(a);
    }
    a = from_vals(CT_UINT8, 1, s3, (double[]){1, 2, 253});
    CHECK_OK(ct_nan_to_num(ctx, a, NULL, NULL, NULL, &r));
    check_vals("nan_to_num u8", r, CT_UINT8, 3, (double[]){1, 2, 253});
    ct_tensor_release(r), ct_tensor_release(a);
    /* integer pow with a tensor exponent: torch's powi (negative exponents give 0 unless the
     * base is +-1), wrapping; uint8 base with an int32 exponent is int32 */
    a = from_vals(CT_INT32, 1, s4, (double[]){2, 3, -2, 0});
    b = from_vals(CT_INT32, 1, s4, (double[]){3, -1, 2, 0});
    r = run2(ct_pow_tensor, a, b);
    check_vals("pow int32", r, CT_INT32, 4, (double[]){8, 0, 4, 1});
    ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
    a = from_vals(CT_INT32, 1, s4, (double[]){1, -1, -1, 5});
    b = from_vals(CT_INT32, 1, s4, (double[]){-3, -3, -2, -1});
    r = run2(ct_pow_tensor, a, b);
    check_vals("pow int32 negative", r, CT_INT32, 4, (double[]){1, -1, 1, 0});
    ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
    a = from_vals(CT_UINT8, 1, s3, (double[]){2, 254, 3});
    b = from_vals(CT_INT32, 1, s3, (double[]){3, 2, 21});
    r = run2(ct_pow_tensor, a, b);
    int64_t p21 = 1; /* 3^21 wraps in int32: a naive loop in uint32 */
    uint32_t w = 1;
    for (int i = 0; i < 21; i++)
        w *= 3u;
    p21 = (int32_t)w;
    check_vals("pow u8^i32", r, CT_INT32, 3, (double[]){8, 64516, (double)p21});
    ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
    /* square: integers kept, bool to int64; deg2rad of integers in float32 */
    a = from_vals(CT_BOOL, 1, s3, (double[]){1, 0, 1});
    CHECK_OK(ct_square(ctx, a, &r));
    check_vals("square bool", r, CT_INT64, 3, (double[]){1, 0, 1});
    ct_tensor_release(r), ct_tensor_release(a);
    a = from_vals(CT_INT32, 1, s3, (double[]){1, 2, -3});
    CHECK_OK(ct_deg2rad(ctx, a, &r));
    const float k = (float)0.017453292519943295;
    check_vals("deg2rad int32", r, CT_FLOAT32, 3,
               (double[]){(double)(1.0f * k), (double)(2.0f * k), (double)(-3.0f * k)});
    ct_tensor_release(r);
    CHECK_OK(ct_signbit(ctx, a, &r));
    check_vals("signbit int32", r, CT_BOOL, 3, (double[]){0, 0, 1});
    ct_tensor_release(r), ct_tensor_release(a);
    /* dtype rules and errors (as torch) */
    a = from_vals(CT_INT32, 1, s3, (double[]){1, 2, 3});
    b = from_vals(CT_FLOAT32, 1, s3, (double[]){1, 2, 3});
    CHECK_ST(ct_hypot(ctx, a, a, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_logaddexp(ctx, a, a, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_frac(ctx, a, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_heaviside(ctx, a, b, &r), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "heaviside") != NULL);
    CHECK_ST(ct_isclose(ctx, a, b, 1e-5, 1e-8, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_isclose(ctx, b, b, -1, 1e-8, false, &r), CT_ERR_INVALID_ARG);
    r = run2(ct_xlogy, a, a); /* integers in float32 */
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    r = run2(ct_copysign, a, a);
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    r = run2(ct_hypot, a, b); /* an integer with a float operand is fine */
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    ct_tensor *t = from_vals(CT_BOOL, 1, s3, (double[]){1, 0, 1});
    CHECK_ST(ct_pow_tensor(ctx, t, t, &r), CT_ERR_DTYPE);
    r = run2(ct_fmax, t, t);
    CHECK(ct_tensor_dtype(r) == CT_BOOL);
    ct_tensor_release(r);
    /* equal: promotion, shapes, NaN */
    bool eq = false;
    CHECK_OK(ct_equal(ctx, a, b, &eq));
    CHECK(eq);
    ct_tensor *c2 = from_vals(CT_FLOAT32, 1, (int64_t[]){2}, (double[]){1, 2});
    CHECK_OK(ct_equal(ctx, b, c2, &eq));
    CHECK(!eq);
    ct_tensor *nn = from_vals(CT_FLOAT32, 1, s3, (double[]){1, NAN, 3});
    CHECK_OK(ct_equal(ctx, nn, nn, &eq));
    CHECK(!eq);
    bool close = false;
    CHECK_OK(ct_allclose(ctx, nn, nn, 1e-5, 1e-8, true, &close));
    CHECK(close);
    CHECK_OK(ct_allclose(ctx, nn, nn, 1e-5, 1e-8, false, &close));
    CHECK(!close);
    CHECK_ST(ct_allclose(ctx, a, b, 1e-5, 1e-8, false, &close), CT_ERR_DTYPE);
    ct_tensor_release(c2), ct_tensor_release(nn), ct_tensor_release(t);
    ct_tensor_release(a), ct_tensor_release(b);
}

/* isclose: torch 1.13's answers, floats in their dtype, integers and bool in float32 (no wrapping
 * difference: uint8 3 and 250 are 247 apart). */
TEST(isclose_as_torch) {
    const int64_t s4[1] = {4}, s1[1] = {1};
    ct_tensor *a = from_vals(CT_FLOAT32, 1, s4, (double[]){1, NAN, INFINITY, 1e-9});
    ct_tensor *b = from_vals(CT_FLOAT32, 1, s4, (double[]){1 + 1e-6, NAN, INFINITY, 0});
    ct_tensor *r = NULL;
    CHECK_OK(ct_isclose(ctx, a, b, 1e-5, 1e-8, false, &r));
    check_vals("isclose", r, CT_BOOL, 4, (double[]){1, 0, 1, 1});
    ct_tensor_release(r);
    CHECK_OK(ct_isclose(ctx, a, b, 1e-5, 1e-8, true, &r));
    check_vals("isclose equal_nan", r, CT_BOOL, 4, (double[]){1, 1, 1, 1});
    ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
    const struct {
        ct_dtype dt;
        double a, b, rtol, atol;
        bool want;
    } T[] = {
        {CT_INT32, 5, 6, 0, 1, true},
        {CT_UINT8, 3, 250, 0, 10, false},
        {CT_UINT8, 250, 3, 0, 10, false},
        {CT_INT8, -128, 0, 0, 1, false},
        {CT_INT64, 1099511627777.0, 1099511627776.0, 0, 0.5, true}, /* 2^40 + 1: f32 */
        {CT_INT32, 16777217, 16777216, 0, 0.5, true},
        {CT_INT32, 2147483647, -2147483648.0, 1, 1e-3, false},
        {CT_BOOL, 1, 0, 0.5, 0.5, false},
        {CT_BOOL, 0, 1, 0.5, 0.5, true},
        {CT_BOOL, 0, 1, 0.5, 0.4, false},
        {CT_FLOAT64, 1, 1 + 1e-9, 0, 0, false},  /* zero tolerances: equality */
        {CT_FLOAT16, 1000, 1001, 1e-3, 0, true}, /* 1e-3 * 1001 in f16 is 1.001 */
    };
    for (size_t k = 0; k < sizeof T / sizeof T[0]; k++) {
        a = from_vals(T[k].dt, 1, s1, &T[k].a);
        b = from_vals(T[k].dt, 1, s1, &T[k].b);
        CHECK_OK(ct_isclose(ctx, a, b, T[k].rtol, T[k].atol, false, &r));
        double v = -1;
        CHECK_OK(ct_tensor_item(r, &v));
        CHECK_MSG((v != 0) == T[k].want, "isclose %s %.17g %.17g rtol %g atol %g: %g",
                  ct_dtype_name(T[k].dt), T[k].a, T[k].b, T[k].rtol, T[k].atol, v);
        ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
    }
}

TEST(shapes_and_errors) {
    const int64_t s03[2] = {0, 3};
    ct_tensor *z = NULL, *r = NULL, *s = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s03, &z));
    CHECK_OK(ct_erf(ctx, z, &r));
    CHECK(tu_same_shape(r, 2, s03));
    ct_tensor_release(r);
    CHECK_OK(ct_maximum(ctx, z, z, &r));
    CHECK(tu_same_shape(r, 2, s03));
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, -2.25, &s));
    CHECK_OK(ct_round(ctx, s, &r));
    double v = 0;
    CHECK_OK(ct_tensor_item(r, &v));
    CHECK(v == -2 && ct_tensor_ndim(r) == 0);
    ct_tensor_release(r);
    CHECK_ST(ct_sin(ctx, NULL, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_maximum(ctx, z, s, NULL), CT_ERR_INVALID_ARG);
    const int64_t s2[1] = {2};
    ct_tensor *bad = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s2, &bad));
    CHECK_ST(ct_logical_and(ctx, z, bad, &r), CT_ERR_SHAPE);
    ct_tensor_release(bad), ct_tensor_release(z), ct_tensor_release(s);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(math_functions_every_float_dtype_and_strided);
    RUN(special_values_and_rounding_tables);
    RUN(activation_edges);
    RUN(maximum_minimum);
    RUN(remainder_and_fmod);
    RUN(logical_and_bitwise);
    RUN(lerp);
    RUN(binary_math_functions);
    RUN(more_math_special_values);
    RUN(isclose_as_torch);
    RUN(shapes_and_errors);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

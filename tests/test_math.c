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
    RUN(shapes_and_errors);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

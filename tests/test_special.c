/* Special functions (lgamma ... entr, xlog1py, nextafter, gcd, lcm, mvlgamma) against
 * independent references: mpmath at 60 digits (tests/data/special_ref.h, from
 * scripts/gen_special_ref.py) for the values in float32 and float64, torch 1.13's answers at
 * special points (exact tables), libm's nextafter, a naive Euclid for gcd / lcm, lgammal sums for
 * mvlgamma, gradients against central differences, promotion and error paths. */
#include "data/special_ref.h"
#include "test_util.h"

#include <float.h>
#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 77;

typedef ct_status (*fn1)(ct_ctx *, const ct_tensor *, ct_tensor **);

static ct_tensor *vals(ct_dtype dt, int64_t n, const double *v) {
    ct_tensor *t = tu_from_vals(ctx, dt, 1, &n, v);
    CHECK(t != NULL);
    return t;
}

/* distance in units of the last place of dtype dt (float32 / float64) between got and want */
static double ulps(double got, double want, ct_dtype dt) {
    if (isnan(want)) return isnan(got) ? 0 : INFINITY;
    if (isinf(want) || isinf(got)) return got == want ? 0 : INFINITY;
    const int mant = dt == CT_FLOAT64 ? 52 : 23, emin = dt == CT_FLOAT64 ? -1022 : -126;
    int e;
    frexp(want, &e);
    e -= 1;
    if (e < emin) e = emin;
    return fabs(got - want) / ldexp(1.0, e - mant);
}

static ct_status polygamma1(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_polygamma(c, 1, a, o);
}
static ct_status polygamma2(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_polygamma(c, 2, a, o);
}
static ct_status polygamma3(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_polygamma(c, 3, a, o);
}
static ct_status polygamma7(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_polygamma(c, 7, a, o);
}

/* max ulp error of f over a reference table in dtype dt (float32: the rows marked f32 only;
 * results outside float's range must be the infinity or the zero it rounds to) */
static double max_ulps(fn1 f, const ct_special_ref *ref, int n, ct_dtype dt, double *worst_x) {
    double *x = malloc(sizeof(double) * (size_t)n), *want = malloc(sizeof(double) * (size_t)n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (dt == CT_FLOAT32 && !ref[i].f32) continue;
        x[m] = ref[i].x;
        want[m] = dt == CT_FLOAT32 ? (double)(float)ref[i].ref : ref[i].ref;
        m++;
    }
    ct_tensor *t = vals(dt, m, x), *y = NULL;
    double worst = 0;
    CHECK_OK(f(ctx, t, &y));
    double *got = y ? tu_read(y) : NULL;
    for (int i = 0; got && i < m; i++) {
        const double u = ulps(got[i], want[i], dt);
        if (u > worst) worst = u, *worst_x = x[i];
    }
    free(got), free(x), free(want);
    ct_tensor_release(t), ct_tensor_release(y);
    return worst;
}

TEST(accuracy_against_mpmath) {
#define REF(name) ct_ref_##name, (int)(sizeof(ct_ref_##name) / sizeof(ct_ref_##name[0]))
    struct {
        const char *name;
        fn1 f;
        const ct_special_ref *ref;
        int n;
        double tol64, tol32;
    } cases[] = {
        {"lgamma", ct_lgamma, REF(lgamma), 2, 1},
        {"digamma", ct_digamma, REF(digamma), 2, 1},
        {"polygamma(1)", polygamma1, REF(polygamma1), 2, 1},
        {"polygamma(2)", polygamma2, REF(polygamma2), 2, 1},
        {"polygamma(3)", polygamma3, REF(polygamma3), 2, 1},
        {"polygamma(7)", polygamma7, REF(polygamma7), 2, 1},
        {"erfinv", ct_erfinv, REF(erfinv), 2, 1},
        {"i0", ct_i0, REF(i0), 2, 1},
        {"i0e", ct_special_i0e, REF(i0e), 2, 1},
        {"i1", ct_special_i1, REF(i1), 2, 1},
        {"i1e", ct_special_i1e, REF(i1e), 2, 1},
        {"ndtr", ct_special_ndtr, REF(ndtr), 2, 1},
        {"ndtri", ct_special_ndtri, REF(ndtri), 2, 1},
        {"log_ndtr", ct_special_log_ndtr, REF(log_ndtr), 2, 1},
        {"erfcx", ct_special_erfcx, REF(erfcx), 2, 1},
        {"entr", ct_special_entr, REF(entr), 2, 1},
    };
#undef REF
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        double x64 = 0, x32 = 0;
        const double u64 = max_ulps(cases[k].f, cases[k].ref, cases[k].n, CT_FLOAT64, &x64);
        const double u32 = max_ulps(cases[k].f, cases[k].ref, cases[k].n, CT_FLOAT32, &x32);
        printf("  %-13s max ulp f64 %.3f (at %.17g), f32 %.3f (at %.9g), %d points\n",
               cases[k].name, u64, x64, u32, x32, cases[k].n);
        CHECK_MSG(u64 <= cases[k].tol64, "%s f64: %.3f ulp at %.17g", cases[k].name, u64, x64);
        CHECK_MSG(u32 <= cases[k].tol32, "%s f32: %.3f ulp at %.9g", cases[k].name, u32, x32);
    }
}

/* the same values in every float dtype: f16 / bf16 within an ulp of the f32 result rounded */
TEST(halves_follow_float32) {
    fn1 fs[] = {ct_lgamma,           ct_digamma,       ct_erfinv,      ct_i0,
                ct_special_i0e,      ct_special_i1,    ct_special_i1e, ct_special_ndtr,
                ct_special_log_ndtr, ct_special_erfcx, ct_special_entr};
    double v[64];
    for (int i = 0; i < 64; i++)
        v[i] = tu_rand_val(&rng, CT_FLOAT16, -0.99, 3.5);
    for (size_t k = 0; k < sizeof(fs) / sizeof(fs[0]); k++) {
        for (int h = 0; h < 2; h++) {
            const ct_dtype dt = h ? CT_BFLOAT16 : CT_FLOAT16;
            ct_tensor *a = vals(dt, 64, v), *a32 = NULL, *y = NULL, *y32 = NULL;
            CHECK_OK(ct_cast(ctx, a, CT_FLOAT32, &a32));
            CHECK_OK(fs[k](ctx, a, &y));
            CHECK_OK(fs[k](ctx, a32, &y32));
            CHECK(y && ct_tensor_dtype(y) == dt);
            double *g = y ? tu_read(y) : NULL, *r = y32 ? tu_read(y32) : NULL;
            for (int i = 0; g && r && i < 64; i++) {
                const double want = r[i];
                const double sp = isfinite(want) ? fabs(want) * (h ? 0x1p-7 : 0x1p-10) : 0;
                const double tiny = h ? 0x1p-133 : 0x1p-24;
                CHECK_MSG(tu_same_val(g[i], want) || fabs(g[i] - want) <= sp + tiny,
                          "fn %d %s x=%g: %.9g vs %.9g", (int)k, h ? "bf16" : "f16", v[i], g[i],
                          want);
            }
            free(g), free(r);
            ct_tensor_release(a), ct_tensor_release(a32), ct_tensor_release(y);
            ct_tensor_release(y32);
        }
    }
}

static void check_table(const char *name, fn1 f, int n, const double *x, const double *want) {
    ct_tensor *t = vals(CT_FLOAT64, n, x), *y = NULL;
    CHECK_OK(f(ctx, t, &y));
    double *g = y ? tu_read(y) : NULL;
    for (int i = 0; g && i < n; i++) {
        const bool ok = tu_same_val(g[i], want[i]) ||
                        (isfinite(want[i]) && want[i] != 0 && ulps(g[i], want[i], CT_FLOAT64) <= 2);
        CHECK_MSG(ok, "%s(%g) = %.17g, want %.17g", name, x[i], g[i], want[i]);
    }
    free(g);
    ct_tensor_release(t), ct_tensor_release(y);
}

/* torch 1.13's answers at zeros, poles, infinities and NaN (python3-torch, float64), and the
 * documented places where ctorch answers the exact value instead (marked) */
TEST(special_points_as_torch) {
    const double I = INFINITY, N = NAN;
    const double x[] = {0.0, -0.0, -1.0, -2.0, I, -I, N, 1.0, -0.5, 1e-30};
    enum { n = 10 };
    const double lg[n] = {I, I, I, I, I, I, N, 0.0, 1.2655121234846454, 69.07755278982137};
    const double dg[n] = {-I, I, N, N, I, N, N, -0.5772156649015329, 0.03648997397857652, -1e30};
    /* trigamma: torch answers 6.58e32 and 1.65e32 at -1 and -2 (sin(pi x) rounding), ctorch
     * the pole's +inf; torch's 1.6449340676383375 at 1 and 8.934802200117689 at -0.5 are 5e-10
     * and 5e-11 off pi^2 / 6 and pi^2 / 2 + 4, which ctorch answers */
    const double tg[n] = {I, I, I, I, 0.0, N, N, 1.6449340668482264, 8.934802200544679, 1e60};
    /* polygamma(2): torch NaN at +inf and -inf at -inf; ctorch -0 (the limit) and NaN */
    const double p2[n] = {-I,   -I, -I, -I, -0.0, N, N, -2.404113806319188, -0.8287966442343199,
                          -2e90};
    /* i0 / i1 at +-inf: torch NaN (its e^x / sqrt(x) is inf / inf), ctorch the limit */
    const double i0[n] = {1, 1, 1.2660658777520082, 2.2795853023360673, I,
                          I, N, 1.2660658777520082, 1.0634833707413236, 1};
    const double i0e[n] = {1, 1, 0.46575960759364043, 0.30850832255367103, 0,
                           0, N, 0.46575960759364043, 0.64503527044915,    1};
    const double i1[n] = {0,  0, -0.5651591039924851, -1.5906368546373291, I,
                          -I, N, 0.5651591039924851,  -0.2578943053908963, 5e-31};
    const double i1e[n] = {0,    0, -0.2079104153497085, -0.2152692892489376,  0,
                           -0.0, N, 0.2079104153497085,  -0.15642080318487173, 5e-31};
    /* ndtr: torch's (1 + erf(x / sqrt 2)) / 2 loses the lower tail (0.158655253931457 02 at -1) */
    const double nd[n] = {0.5, 0.5, 0.15865525393145707, 0.022750131948179212, 1,
                          0,   N,   0.8413447460685429,  0.30853753872598688,  0.5};
    const double lnd[n] = {-0.6931471805599453,
                           -0.6931471805599453,
                           -1.8410216450092636,
                           -3.7831843336820317,
                           -0.0,
                           -I,
                           N,
                           -0.17275377902344988,
                           -1.1759117615936185,
                           -0.6931471805599453};
    const double ecx[n] = {1, 1, 5.0089800807622834,  108.94090438997798, 0,
                           I, N, 0.42758357615580705, 1.9523604891825568, 1};
    const double en[n] = {0, 0, -I, -I, -I, -I, N, -0.0, -I, 6.907755278982137e-29};
    check_table("lgamma", ct_lgamma, n, x, lg);
    check_table("digamma", ct_digamma, n, x, dg);
    check_table("polygamma(1)", polygamma1, n, x, tg);
    check_table("polygamma(2)", polygamma2, n, x, p2);
    check_table("i0", ct_i0, n, x, i0);
    check_table("i0e", ct_special_i0e, n, x, i0e);
    check_table("i1", ct_special_i1, n, x, i1);
    check_table("i1e", ct_special_i1e, n, x, i1e);
    check_table("ndtr", ct_special_ndtr, n, x, nd);
    check_table("log_ndtr", ct_special_log_ndtr, n, x, lnd);
    check_table("erfcx", ct_special_erfcx, n, x, ecx);
    check_table("entr", ct_special_entr, n, x, en);
    const double ex[] = {1.0, -1.0, 1.5, -1.5, 0.0, -0.0, N};
    const double ew[] = {I, -I, N, N, 0.0, -0.0, N};
    check_table("erfinv", ct_erfinv, 7, ex, ew);
    const double px[] = {0.0, 1.0, 0.5, -0.1, 1.1, N};
    const double pw[] = {-I, I, 0.0, N, N, N};
    check_table("ndtri", ct_special_ndtri, 6, px, pw);
}

TEST(xlog1py_and_nextafter) {
    const double I = INFINITY, N = NAN;
    /* xlog1py: NaN b wins, then 0 where a == 0 (torch's table) */
    const double a[] = {0.0, 0.0, 0.0, 1.0, 0.0, 2.5, -3.0};
    const double b[] = {N, -1.0, -2.0, -1.0, I, 1e-20, 0.75};
    ct_tensor *ta = vals(CT_FLOAT64, 7, a), *tb = vals(CT_FLOAT64, 7, b), *y = NULL;
    CHECK_OK(ct_special_xlog1py(ctx, ta, tb, &y));
    double *g = y ? tu_read(y) : NULL;
    const double want[] = {N, 0.0, 0.0, -I, 0.0, 2.5e-20, (double)(-3.0L * log1pl(0.75L))};
    for (int i = 0; g && i < 7; i++)
        CHECK_MSG(tu_same_val(g[i], want[i]), "xlog1py(%g, %g) = %.17g", a[i], b[i], g[i]);
    free(g), ct_tensor_release(y), y = NULL;
    /* nextafter: libm's nextafter / nextafterf on random pairs and the special ones */
    double u[64], v[64];
    for (int i = 0; i < 64; i++) {
        u[i] = tu_rand_val(&rng, CT_FLOAT32, -4, 4);
        v[i] = i % 5 == 0 ? u[i] : tu_rand_val(&rng, CT_FLOAT32, -4, 4);
    }
    u[1] = 0, v[1] = -1, u[2] = I, v[2] = 0, u[3] = N, v[4] = N, u[5] = -0.0, v[5] = 1;
    for (int d = 0; d < 2; d++) {
        const ct_dtype dt = d ? CT_FLOAT32 : CT_FLOAT64;
        ct_tensor *tu = vals(dt, 64, u), *tv = vals(dt, 64, v);
        CHECK_OK(ct_nextafter(ctx, tu, tv, &y));
        g = y ? tu_read(y) : NULL;
        for (int i = 0; g && i < 64; i++) {
            const double w =
                d ? (double)nextafterf((float)u[i], (float)v[i]) : nextafter(u[i], v[i]);
            CHECK_MSG(tu_same_val(g[i], w), "nextafter(%g, %g) = %.17g, want %.17g", u[i], v[i],
                      g[i], w);
        }
        free(g), ct_tensor_release(y), y = NULL;
        ct_tensor_release(tu), ct_tensor_release(tv);
    }
    /* the halves step their own encoding (torch's bf16 answers; f16 the same rule) */
    const double hu[] = {0.0, 1.0, -0.0, I, 1.0, -1.0};
    const double hv[] = {1.0, 2.0, -1.0, 0.0, 1.0, -2.0};
    const double bw[] = {0x1p-133, 1.0078125, -0x1p-133, 0x1.fep127, 1.0, -1.0078125};
    const double fw[] = {0x1p-24, 1.0009765625, -0x1p-24, 65504.0, 1.0, -1.0009765625};
    for (int h = 0; h < 2; h++) {
        ct_tensor *tu = vals(h ? CT_BFLOAT16 : CT_FLOAT16, 6, hu);
        ct_tensor *tv = vals(h ? CT_BFLOAT16 : CT_FLOAT16, 6, hv);
        CHECK_OK(ct_nextafter(ctx, tu, tv, &y));
        g = y ? tu_read(y) : NULL;
        for (int i = 0; g && i < 6; i++)
            CHECK_MSG(tu_same_val(g[i], h ? bw[i] : fw[i]), "nextafter %s(%g, %g) = %.9g",
                      h ? "bf16" : "f16", hu[i], hv[i], g[i]);
        free(g), ct_tensor_release(y), y = NULL;
        ct_tensor_release(tu), ct_tensor_release(tv);
    }
    ct_tensor_release(ta), ct_tensor_release(tb);
}

static long long naive_gcd(long long a, long long b) {
    a = a < 0 ? -a : a, b = b < 0 ? -b : b;
    while (b) {
        long long t = a % b;
        a = b, b = t;
    }
    return a;
}

TEST(gcd_lcm) {
    /* away from wrapping: a naive Euclid, and lcm = |a / g * b| */
    double a[200], b[200];
    for (int i = 0; i < 200; i++) {
        a[i] = tu_rand_val(&rng, CT_INT32, -5000, 5000);
        b[i] = i % 7 == 0 ? 0 : tu_rand_val(&rng, CT_INT32, -5000, 5000);
    }
    ct_tensor *ta = vals(CT_INT32, 200, a), *tb = vals(CT_INT32, 200, b), *g = NULL, *l = NULL;
    CHECK_OK(ct_gcd(ctx, ta, tb, &g));
    CHECK_OK(ct_lcm(ctx, ta, tb, &l));
    CHECK(g && ct_tensor_dtype(g) == CT_INT32);
    double *gv = g ? tu_read(g) : NULL, *lv = l ? tu_read(l) : NULL;
    for (int i = 0; gv && lv && i < 200; i++) {
        const long long want = naive_gcd((long long)a[i], (long long)b[i]);
        CHECK_MSG(gv[i] == (double)want, "gcd(%g, %g) = %g", a[i], b[i], gv[i]);
        const long long wl = want ? llabs((long long)a[i] / want * (long long)b[i]) : 0;
        CHECK_MSG(lv[i] == (double)wl, "lcm(%g, %g) = %g", a[i], b[i], lv[i]);
    }
    free(gv), free(lv);
    ct_tensor_release(ta), ct_tensor_release(tb), ct_tensor_release(g), ct_tensor_release(l);
    /* torch's wrapped answers (python3-torch 1.13): int8 and int64 */
    const double a8[] = {-128, -128, 0, 12, -7}, b8[] = {6, 127, 0, -18, 0};
    const double g8[] = {-2, -1, 0, 6, 7};
    const double la8[] = {-128, -128, 0, 12, 100}, lb8[] = {6, 127, 0, -18, 3};
    const double l8[] = {-128, -128, 0, 36, 44};
    ct_tensor *x = vals(CT_INT8, 5, a8), *y = vals(CT_INT8, 5, b8), *r = NULL;
    CHECK_OK(ct_gcd(ctx, x, y, &r));
    double *rv = r ? tu_read(r) : NULL;
    for (int i = 0; rv && i < 5; i++)
        CHECK_MSG(rv[i] == g8[i], "int8 gcd(%g, %g) = %g, want %g", a8[i], b8[i], rv[i], g8[i]);
    free(rv), ct_tensor_release(r), r = NULL;
    ct_tensor_release(x), ct_tensor_release(y);
    x = vals(CT_INT8, 5, la8), y = vals(CT_INT8, 5, lb8);
    CHECK_OK(ct_lcm(ctx, x, y, &r));
    rv = r ? tu_read(r) : NULL;
    for (int i = 0; rv && i < 5; i++)
        CHECK_MSG(rv[i] == l8[i], "int8 lcm(%g, %g) = %g, want %g", la8[i], lb8[i], rv[i], l8[i]);
    free(rv), ct_tensor_release(r), r = NULL;
    ct_tensor_release(x), ct_tensor_release(y);
    /* int64 through raw values (doubles cannot hold them all) */
    const int64_t A[] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN, INT64_C(3) << 60};
    const int64_t B[] = {0, 6, INT64_MIN, -1, 5};
    const int64_t G[] = {INT64_MIN, -2, INT64_MIN, 1, 1};
    const int64_t L[] = {0, INT64_MIN, INT64_MIN, INT64_MIN, INT64_C(1) << 60};
    const int64_t five = 5;
    ct_tensor *xa = NULL, *xb = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, A, CT_INT64, 1, &five, &xa));
    CHECK_OK(ct_tensor_from_host(ctx, B, CT_INT64, 1, &five, &xb));
    int64_t out[5] = {0};
    CHECK_OK(ct_gcd(ctx, xa, xb, &r));
    if (r) CHECK_OK(ct_tensor_to_host(r, out, sizeof out));
    for (int i = 0; i < 5; i++)
        CHECK_MSG(out[i] == G[i], "int64 gcd row %d: %lld", i, (long long)out[i]);
    ct_tensor_release(r), r = NULL;
    CHECK_OK(ct_lcm(ctx, xa, xb, &r));
    if (r) CHECK_OK(ct_tensor_to_host(r, out, sizeof out));
    for (int i = 0; i < 5; i++)
        CHECK_MSG(out[i] == L[i], "int64 lcm row %d: %lld", i, (long long)out[i]);
    ct_tensor_release(r), ct_tensor_release(xa), ct_tensor_release(xb);
}

TEST(mvlgamma_is_a_sum_of_lgammas) {
    double v[16];
    for (int i = 0; i < 16; i++)
        v[i] = tu_rand_val(&rng, CT_FLOAT64, 2.0, 9.0);
    ct_tensor *t = vals(CT_FLOAT64, 16, v);
    for (int p = 1; p <= 4; p++) {
        ct_tensor *y = NULL;
        CHECK_OK(ct_mvlgamma(ctx, t, p, &y));
        double *g = y ? tu_read(y) : NULL;
        for (int i = 0; g && i < 16; i++) {
            long double s = (long double)p * (p - 1) / 4 * logl(3.141592653589793238462643L);
            for (int j = 0; j < p; j++)
                s += lgammal((long double)v[i] - (long double)j / 2);
            CHECK_MSG(fabs(g[i] - (double)s) <= 1e-14 * fabs((double)s) + 1e-15,
                      "mvlgamma(%g, %d) = %.17g, want %.17Lg", v[i], p, g[i], s);
        }
        free(g), ct_tensor_release(y);
    }
    ct_tensor *y = NULL;
    CHECK_ST(ct_mvlgamma(ctx, t, 0, &y), CT_ERR_INVALID_ARG);
    CHECK(y == NULL && strstr(ct_ctx_last_error(ctx), "p has to be"));
    ct_tensor_release(t);
    const double bv[] = {1, 0};
    t = vals(CT_BOOL, 2, bv);
    CHECK_ST(ct_mvlgamma(ctx, t, 1, &y), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "boolean"));
    ct_tensor_release(t);
}

TEST(promotion_and_errors) {
    const double v[] = {1, 2, 3};
    ct_tensor *i32 = vals(CT_INT32, 3, v), *bl = vals(CT_BOOL, 3, v), *f = vals(CT_FLOAT32, 3, v);
    ct_tensor *y = NULL;
    CHECK_OK(ct_lgamma(ctx, i32, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    ct_tensor_release(y), y = NULL;
    CHECK_OK(ct_special_ndtri(ctx, bl, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    ct_tensor_release(y), y = NULL;
    CHECK_OK(ct_special_xlog1py(ctx, i32, bl, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    ct_tensor_release(y), y = NULL;
    CHECK_ST(ct_gcd(ctx, f, f, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_lcm(ctx, bl, bl, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_nextafter(ctx, i32, i32, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_polygamma(ctx, -1, f, &y), CT_ERR_INVALID_ARG);
    CHECK(y == NULL && strstr(ct_ctx_last_error(ctx), "n must be >= 0"));
    CHECK_ST(ct_digamma(ctx, NULL, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_polygamma(NULL, 1, f, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_gcd(ctx, i32, i32, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(i32), ct_tensor_release(bl), ct_tensor_release(f);
}

/* gradients: central differences on inputs moved into each function's domain */
static ct_status shifted(fn1 f, const ct_tensor *x, double scale, double shift, ct_tensor **y) {
    ct_tensor *a = NULL, *b = NULL;
    ct_status st = ct_mul_scalar(ctx, x, scale, &a);
    if (st == CT_OK) st = ct_add_scalar(ctx, a, shift, &b);
    if (st == CT_OK) st = f(ctx, b, y);
    ct_tensor_release(a), ct_tensor_release(b);
    return st;
}
static ct_status g_lgamma(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_lgamma, x, 1, 3.5, y);
}
static ct_status g_digamma(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_digamma, x, 1, 3.1, y);
}
static ct_status g_poly2(const ct_tensor *x, ct_tensor **y) {
    return shifted(polygamma2, x, 1, 2.9, y);
}
static ct_status g_erfinv(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_erfinv, x, 0.4, 0, y);
}
static ct_status g_i0(const ct_tensor *x, ct_tensor **y) { return shifted(ct_i0, x, 2, 0, y); }
static ct_status g_i0e(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_i0e, x, 2, 0, y);
}
static ct_status g_i1(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_i1, x, 2, 0, y);
}
static ct_status g_i1e(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_i1e, x, 2, 0, y);
}
static ct_status g_ndtr(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_ndtr, x, 2, 0, y);
}
static ct_status g_ndtri(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_ndtri, x, 0.2, 0.5, y);
}
static ct_status g_log_ndtr(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_log_ndtr, x, 4, -2, y);
}
static ct_status g_erfcx(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_erfcx, x, 3, 0, y);
}
static ct_status g_entr(const ct_tensor *x, ct_tensor **y) {
    return shifted(ct_special_entr, x, 1, 2.5, y);
}
static ct_status mvl3(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_mvlgamma(c, a, 3, o);
}
static ct_status g_mvlgamma(const ct_tensor *x, ct_tensor **y) { return shifted(mvl3, x, 1, 4, y); }
static ct_status g_xlog1py(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *b = NULL;
    ct_status st = ct_mul(ctx, x, x, &b); /* both operands from x: a = x, b = x^2 */
    if (st == CT_OK) st = ct_special_xlog1py(ctx, x, b, y);
    ct_tensor_release(b);
    return st;
}

TEST(gradients) {
    const int64_t shape[1] = {7};
    struct {
        const char *name;
        tu_fn1 f;
    } g[] = {{"lgamma", g_lgamma},
             {"digamma", g_digamma},
             {"polygamma2", g_poly2},
             {"erfinv", g_erfinv},
             {"i0", g_i0},
             {"i0e", g_i0e},
             {"i1", g_i1},
             {"i1e", g_i1e},
             {"ndtr", g_ndtr},
             {"ndtri", g_ndtri},
             {"log_ndtr", g_log_ndtr},
             {"erfcx", g_erfcx},
             {"entr", g_entr},
             {"mvlgamma", g_mvlgamma},
             {"xlog1py", g_xlog1py}};
    for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++)
        tu_gradcheck(ctx, &rng, g[k].name, g[k].f, 1, shape);
    /* i1 / i1e at 0: torch's 0.5 */
    const double z = 0;
    ct_tensor *x = vals(CT_FLOAT64, 1, &z), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_special_i1e(ctx, x, &y));
    CHECK_OK(ct_backward(ctx, y, NULL, false));
    double *gv = ct_tensor_grad(x) ? tu_read(ct_tensor_grad(x)) : NULL;
    CHECK(gv && gv[0] == 0.5);
    free(gv), ct_tensor_release(y), y = NULL;
    /* nextafter's backward fails as torch's */
    ct_tensor *w = vals(CT_FLOAT64, 1, &z);
    CHECK_OK(ct_nextafter(ctx, x, w, &y));
    CHECK_ST(ct_backward(ctx, y, NULL, false), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "nextafter"));
    ct_tensor_release(y), ct_tensor_release(w), ct_tensor_release(x);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(accuracy_against_mpmath);
    RUN(halves_follow_float32);
    RUN(special_points_as_torch);
    RUN(xlog1py_and_nextafter);
    RUN(gcd_lcm);
    RUN(mvlgamma_is_a_sum_of_lgammas);
    RUN(promotion_and_errors);
    RUN(gradients);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

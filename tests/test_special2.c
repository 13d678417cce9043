/* torch.special's zeta, gammainc / gammaincc, Bessel J0 J1 Y0 Y1, modified K0 K1 (and scaled),
 * spherical j0 against mpmath at 60 digits (scripts/gen_special2_ref.py): float64 within a few ulp
 * (Bessel J / Y near their zeros: an ulp of the envelope sqrt(2 / (pi x))), float32 within 1 ulp;
 * torch's domain rules at 0, inf and outside; gradients against central differences. */
#include "test_util.h"

#include "data/special2_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 23;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define N_OF(t) ((int)(sizeof t / sizeof t[0]))

typedef ct_status (*un_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
typedef ct_status (*bin_fn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);

static double ulp64(double v) {
    v = fabs(v);
    if (v < 0x1p-1022) return 0x1p-1074;
    return nextafter(v, INFINITY) - v;
}
static double ulp32(double v) {
    float f = (float)fabs(v);
    if (f < 0x1p-126f) return 0x1p-149;
    return (double)(nextafterf(f, INFINITY) - f);
}
/* max error in ulps over the rows; env: an absolute floor env(x) ulps (0: none) */
static void check(const char *name, un_fn f1, bin_fn f2, const double *rows, int n, int w,
                  double tol64, double tol32, bool bessel_env) {
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        x[i] = rows[i * w];
        y[i] = rows[i * w + 1];
    }
    for (int d = 0; d < 2; d++) {
        const ct_dtype dt = d ? CT_FLOAT32 : CT_FLOAT64;
        ct_tensor *a = tu_from_vals(ctx, dt, 1, (const int64_t[]){n}, x), *b = NULL, *r = NULL;
        if (w == 3) b = tu_from_vals(ctx, dt, 1, (const int64_t[]){n}, y);
        CHECK_OK(w == 3 ? f2(ctx, a, b, &r) : f1(ctx, a, &r));
        double *v = r ? tu_read(r) : NULL, worst = 0;
        int at = -1;
        for (int i = 0; v && i < n; i++) {
            const double want = rows[i * w + w - 1];
            if (isnan(want) || isinf(want)) {
                CHECK_MSG(isnan(want) ? isnan(v[i]) : v[i] == want, "%s(%g): %g vs %g", name, x[i],
                          v[i], want);
                continue;
            }
            const double wr = d ? (double)(float)want : want;
            if (isinf(wr)) { /* beyond float32's range */
                CHECK_MSG(v[i] == wr, "%s float32(%g): %g vs %g", name, x[i], v[i], wr);
                continue;
            }
            double u = d ? ulp32(wr) : ulp64(wr);
            if (bessel_env) { /* near a zero: an ulp of the envelope */
                const double e = sqrt(2 / (M_PI * fmax(fabs(x[i]), 1)));
                u = fmax(u, d ? ulp32(e) : ulp64(e));
            }
            const double err = fabs(v[i] - wr) / u;
            if (err > worst || isnan(err)) worst = isnan(err) ? INFINITY : err, at = i;
        }
        const double tol = d ? tol32 : tol64;
        CHECK_MSG(worst <= tol, "%s %s: %.2f ulp at x = %.9g%s%.9g (tolerance %g)", name,
                  ct_dtype_name(dt), worst, at >= 0 ? x[at] : 0, w == 3 ? ", " : "",
                  w == 3 && at >= 0 ? y[at] : 0.0, tol);
        if (getenv("CT_SPECIAL_VERBOSE"))
            printf("  %-24s %-8s max %.2f ulp\n", name, ct_dtype_name(dt), worst);
        free(v), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(r);
    }
    free(x), free(y);
}

TEST(against_mpmath) {
    check("bessel_j0", ct_special_bessel_j0, NULL, &t_j0[0][0], N_OF(t_j0), 2, 1, 1, true);
    check("bessel_j1", ct_special_bessel_j1, NULL, &t_j1[0][0], N_OF(t_j1), 2, 1, 1, true);
    check("bessel_y0", ct_special_bessel_y0, NULL, &t_y0[0][0], N_OF(t_y0), 2, 1, 1, true);
    check("bessel_y1", ct_special_bessel_y1, NULL, &t_y1[0][0], N_OF(t_y1), 2, 1, 1, true);
    check("modified_bessel_k0", ct_special_modified_bessel_k0, NULL, &t_k0[0][0], N_OF(t_k0), 2, 2,
          1, false);
    check("modified_bessel_k1", ct_special_modified_bessel_k1, NULL, &t_k1[0][0], N_OF(t_k1), 2, 2,
          1, false);
    check("scaled_modified_bessel_k0", ct_special_scaled_modified_bessel_k0, NULL, &t_k0e[0][0],
          N_OF(t_k0e), 2, 1, 1, false);
    check("scaled_modified_bessel_k1", ct_special_scaled_modified_bessel_k1, NULL, &t_k1e[0][0],
          N_OF(t_k1e), 2, 1, 1, false);
    check("spherical_bessel_j0", ct_special_spherical_bessel_j0, NULL, &t_sj0[0][0], N_OF(t_sj0), 2,
          1, 1, false);
    check("zeta", NULL, ct_special_zeta, &t_zeta[0][0], N_OF(t_zeta), 3, 1, 1, false);
    check("gammainc", NULL, ct_special_gammainc, &t_gammainc[0][0], N_OF(t_gammainc), 3, 1, 1,
          false);
    check("gammaincc", NULL, ct_special_gammaincc, &t_gammaincc[0][0], N_OF(t_gammaincc), 3, 1, 1,
          false);
}

/* torch's values at the domain's edges (torch 1.13's outputs) */
TEST(domain_rules) {
    const double nan = NAN, inf = INFINITY;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), (const double[]){0, -1, inf, nan}),
              *r = NULL;
    const struct {
        const char *name;
        un_fn f;
        double want[4];
    } un[] = {
        {"bessel_j0", ct_special_bessel_j0, {1, 0.7651976865579666, 0, nan}},
        {"bessel_j1", ct_special_bessel_j1, {0, -0.44005058574493355, 0, nan}},
        {"bessel_y0", ct_special_bessel_y0, {-inf, nan, 0, nan}},
        {"bessel_y1", ct_special_bessel_y1, {-inf, nan, 0, nan}},
        {"modified_bessel_k0", ct_special_modified_bessel_k0, {inf, nan, 0, nan}},
        {"modified_bessel_k1", ct_special_modified_bessel_k1, {inf, nan, 0, nan}},
        {"scaled_modified_bessel_k0", ct_special_scaled_modified_bessel_k0, {inf, nan, 0, nan}},
        {"spherical_bessel_j0", ct_special_spherical_bessel_j0, {1, 0.8414709848078965, 0, nan}}};
    for (size_t k = 0; k < sizeof un / sizeof un[0]; k++) {
        CHECK_OK(un[k].f(ctx, x, &r));
        double *v = r ? tu_read(r) : NULL;
        for (int i = 0; v && i < 4; i++) {
            const double w = un[k].want[i];
            CHECK_MSG(isnan(w) ? isnan(v[i]) : fabs(v[i] - w) <= 1e-15 * fabs(w) || v[i] == w,
                      "%s(%g) = %g, torch %g", un[k].name,
                      i == 0   ? 0.0
                      : i == 1 ? -1.0
                      : i == 2 ? inf
                               : nan,
                      v[i], w);
        }
        free(v), ct_tensor_release(r);
    }
    /* zeta: x == 1 inf, x < 1 NaN, q a non-positive integer inf; gammainc's edges */
    ct_tensor *zx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), (const double[]){1, 0.5, 2, 2.5}),
              *zq = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), (const double[]){2, 2, -3, -1.5});
    CHECK_OK(ct_special_zeta(ctx, zx, zq, &r));
    double *v = r ? tu_read(r) : NULL;
    CHECK(v && isinf(v[0]) && isnan(v[1]) && isinf(v[2]) && isnan(v[3]));
    free(v), ct_tensor_release(r);
    ct_tensor *ga = tu_from_vals(ctx, CT_FLOAT64, 1, SH(5), (const double[]){0, 0, 2, -1, inf}),
              *gx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(5), (const double[]){1, 0, 0, 1, 3});
    CHECK_OK(ct_special_gammainc(ctx, ga, gx, &r));
    v = r ? tu_read(r) : NULL;
    CHECK(v && v[0] == 1 && isnan(v[1]) && v[2] == 0 && isnan(v[3]) && v[4] == 0);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_special_gammaincc(ctx, ga, gx, &r));
    v = r ? tu_read(r) : NULL;
    CHECK(v && v[0] == 0 && isnan(v[1]) && v[2] == 1 && isnan(v[3]) && v[4] == 1);
    free(v), ct_tensor_release(r);
    /* integers: zeta promotes to float32; gammainc refuses them, as torch */
    ct_tensor *i2 = tu_from_vals(ctx, CT_INT64, 1, SH(2), (const double[]){2, 3});
    CHECK_OK(ct_special_zeta(ctx, i2, i2, &r));
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    CHECK_ST(ct_special_gammainc(ctx, i2, i2, &r), CT_ERR_DTYPE);
    CHECK_OK(ct_special_bessel_j0(ctx, i2, &r));
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    /* large a (Temme's expansion) against scipy 1.10's gammainc / gammaincc */
    ct_tensor *la = tu_from_vals(ctx, CT_FLOAT64, 1, SH(5),
                                 (const double[]){1e12, 1e14, 1e16, 1e300, 2e10}),
              *lx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(5),
                                 (const double[]){1e12, 1e14 - 1e7, 1e16, 1e300, 2e10 + 1e5});
    const double wp[5] = {0.5000001329807602, 0.15865525393145666, 0.5000000013298076, 0.5,
                          0.7602503050665413};
    CHECK_OK(ct_special_gammainc(ctx, la, lx, &r));
    v = r ? tu_read(r) : NULL;
    for (int i = 0; v && i < 5; i++)
        CHECK_MSG(fabs(v[i] - wp[i]) <= 4e-16 * wp[i], "gammainc large a [%d]: %.17g vs %.17g", i,
                  v[i], wp[i]);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_special_gammaincc(ctx, la, lx, &r));
    v = r ? tu_read(r) : NULL;
    for (int i = 0; v && i < 5; i++)
        CHECK_MSG(fabs(v[i] - (1 - wp[i])) <= 4e-16, "gammaincc large a [%d]: %.17g", i, v[i]);
    free(v), ct_tensor_release(r), ct_tensor_release(la), ct_tensor_release(lx);
    /* spherical j0's derivative near 0: -x/3 + x^3/30 - x^5/840 */
    ct_tensor *sx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), (const double[]){1e-3, 1e-6}),
              *ss = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(sx, true));
    CHECK_OK(ct_special_spherical_bessel_j0(ctx, sx, &r));
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &ss));
    CHECK_OK(ct_backward(ctx, ss, NULL, false));
    v = ct_tensor_grad(sx) ? tu_read(ct_tensor_grad(sx)) : NULL;
    for (int i = 0; v && i < 2; i++) {
        const long double t = i ? 1e-6L : 1e-3L,
                          want = -t / 3 + t * t * t / 30 - t * t * t * t * t / 840;
        CHECK_MSG(fabsl(v[i] - want) <= 2 * ulp64((double)want), "j0'(%g) = %.17g vs %.17Lg",
                  (double)t, v[i], want);
    }
    free(v), ct_tensor_release(r), ct_tensor_release(ss), ct_tensor_release(sx);
    /* the i0 / i1 aliases */
    ct_tensor *r2 = NULL;
    CHECK_OK(ct_special_modified_bessel_i0(ctx, zx, &r));
    CHECK_OK(ct_i0(ctx, zx, &r2));
    CHECK(tu_same_values(r, r2));
    ct_tensor_release(r), ct_tensor_release(r2);
    CHECK_OK(ct_special_modified_bessel_i1(ctx, zx, &r));
    CHECK_OK(ct_special_i1(ctx, zx, &r2));
    CHECK(tu_same_values(r, r2));
    ct_tensor_release(r), ct_tensor_release(r2);
    ct_tensor *tl[] = {x, zx, zq, ga, gx, i2};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

/* ---- gradients: x mapped into each function's domain ---- */
static ct_status pos(const ct_tensor *x, ct_tensor **y) { /* 0.3 + x^2 > 0 */
    ct_tensor *s = NULL;
    ct_status st = ct_mul(ctx, x, x, &s);
    if (st == CT_OK) st = ct_add_scalar(ctx, s, 0.3, y);
    ct_tensor_release(s);
    return st;
}
#define GF(name, fn, domain)                                                                       \
    static ct_status g_##name(const ct_tensor *x, ct_tensor **y) {                                 \
        ct_tensor *p = NULL;                                                                       \
        ct_status st = domain ? pos(x, &p) : ct_tensor_clone(ctx, x, &p);                          \
        if (st == CT_OK) st = fn(ctx, p, y);                                                       \
        ct_tensor_release(p);                                                                      \
        return st;                                                                                 \
    }
GF(j0, ct_special_bessel_j0, 0)
GF(j1, ct_special_bessel_j1, 0)
GF(y0, ct_special_bessel_y0, 1)
GF(y1, ct_special_bessel_y1, 1)
GF(k0, ct_special_modified_bessel_k0, 1)
GF(k1, ct_special_modified_bessel_k1, 1)
GF(k0e, ct_special_scaled_modified_bessel_k0, 1)
GF(k1e, ct_special_scaled_modified_bessel_k1, 1)
GF(sj0, ct_special_spherical_bessel_j0, 0)
static ct_status g_zeta(const ct_tensor *x, ct_tensor **y) { /* d/dq */
    ct_tensor *q = NULL, *s = NULL;
    ct_status st = pos(x, &q);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 2.5, &s);
    if (st == CT_OK) st = ct_special_zeta(ctx, s, q, y);
    ct_tensor_release(q), ct_tensor_release(s);
    return st;
}
static ct_status g_gammaincc(const ct_tensor *x, ct_tensor **y) { /* d/dx */
    ct_tensor *q = NULL, *a = NULL;
    ct_status st = pos(x, &q);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 1.7, &a);
    if (st == CT_OK) st = ct_special_gammaincc(ctx, a, q, y);
    ct_tensor_release(q), ct_tensor_release(a);
    return st;
}
TEST(gradients) {
    tu_gradcheck(ctx, &rng, "bessel_j0", g_j0, 1, SH(6));
    tu_gradcheck(ctx, &rng, "bessel_j1", g_j1, 1, SH(6));
    tu_gradcheck(ctx, &rng, "bessel_y0", g_y0, 1, SH(6));
    tu_gradcheck(ctx, &rng, "bessel_y1", g_y1, 1, SH(6));
    tu_gradcheck(ctx, &rng, "modified_bessel_k0", g_k0, 1, SH(6));
    tu_gradcheck(ctx, &rng, "modified_bessel_k1", g_k1, 1, SH(6));
    tu_gradcheck(ctx, &rng, "scaled_modified_bessel_k0", g_k0e, 1, SH(6));
    tu_gradcheck(ctx, &rng, "scaled_modified_bessel_k1", g_k1e, 1, SH(6));
    tu_gradcheck(ctx, &rng, "spherical_bessel_j0", g_sj0, 1, SH(6));
    tu_gradcheck(ctx, &rng, "zeta (q)", g_zeta, 1, SH(6));
    tu_gradcheck(ctx, &rng, "gammaincc (x)", g_gammaincc, 1, SH(6));
    /* d/dx of zeta and d/da of gammainc are not implemented, as torch */
    ct_tensor *a = NULL, *x = NULL, *r = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(2), 2.0, &a));
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(2), 1.5, &x));
    CHECK_OK(ct_tensor_set_requires_grad(a, true));
    CHECK_OK(ct_special_gammainc(ctx, a, x, &r));
    ct_tensor *s = NULL;
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
    ct_tensor_release(a), ct_tensor_release(x), ct_tensor_release(r), ct_tensor_release(s);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(against_mpmath);
    RUN(domain_rules);
    RUN(gradients);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

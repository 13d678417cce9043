/* torch.special's orthogonal polynomials (Chebyshev T U V W and the shifted ones, Hermite H He,
 * Laguerre L, Legendre P) and Airy Ai against mpmath (scripts/gen_special3_ref.py) in float64 and
 * float32: within a few ulp, or within cond 2^-64 where the value is ill-conditioned (cond = |x
 * f'(x)|: near a zero, at a large degree); torch 1.13's own values at the edges (degree rules, x =
 * +-1, NaN); the limits at +-inf where torch has NaN; dtypes; gradients. */
#include "test_util.h"

#include "data/special3_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 31;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define N_OF(t) ((int)(sizeof t / sizeof t[0]))

typedef ct_status (*un_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
typedef ct_status (*bin_fn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);

static const struct {
    const char *name;
    bin_fn f;
} polys[12] = {
    {"chebyshev_polynomial_t", ct_special_chebyshev_polynomial_t},
    {"chebyshev_polynomial_u", ct_special_chebyshev_polynomial_u},
    {"chebyshev_polynomial_v", ct_special_chebyshev_polynomial_v},
    {"chebyshev_polynomial_w", ct_special_chebyshev_polynomial_w},
    {"shifted_chebyshev_polynomial_t", ct_special_shifted_chebyshev_polynomial_t},
    {"shifted_chebyshev_polynomial_u", ct_special_shifted_chebyshev_polynomial_u},
    {"shifted_chebyshev_polynomial_v", ct_special_shifted_chebyshev_polynomial_v},
    {"shifted_chebyshev_polynomial_w", ct_special_shifted_chebyshev_polynomial_w},
    {"hermite_polynomial_h", ct_special_hermite_polynomial_h},
    {"hermite_polynomial_he", ct_special_hermite_polynomial_he},
    {"laguerre_polynomial_l", ct_special_laguerre_polynomial_l},
    {"legendre_polynomial_p", ct_special_legendre_polynomial_p},
};

static double ulp_of(double v, bool f32) {
    v = fabs(v);
    if (f32) {
        const float f = (float)v;
        return f < 0x1p-126f ? 0x1p-149 : (double)(nextafterf(f, INFINITY) - f);
    }
    return v < 0x1p-1022 ? 0x1p-1074 : nextafter(v, INFINITY) - v;
}

/* rows: (x, n, value, cond) or, for Ai (f1), (x, value, cond). Prints the worst error in ulps
 * over the well-conditioned rows (cond 2^-64 below an ulp) and over all rows in units of
 * max(ulp, cond 2^-64); both must stay within tol. */
static void check(const char *name, bin_fn f2, un_fn f1, const double *rows, int n, double tol) {
    const int w = f1 ? 3 : 4;
    double *x = malloc(sizeof(double) * (size_t)n), *m = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        x[i] = rows[i * w];
        m[i] = f1 ? 0 : rows[i * w + 1];
    }
    for (int d = 0; d < 2; d++) {
        const ct_dtype dt = d ? CT_FLOAT32 : CT_FLOAT64;
        ct_tensor *a = tu_from_vals(ctx, dt, 1, SH(n), x), *b = NULL, *r = NULL;
        if (!f1) b = tu_from_vals(ctx, dt, 1, SH(n), m);
        CHECK_OK(f1 ? f1(ctx, a, &r) : f2(ctx, a, b, &r));
        CHECK(r && ct_tensor_dtype(r) == dt);
        double *v = r ? tu_read(r) : NULL, worst = 0, worst_wc = 0;
        int at = -1;
        for (int i = 0; v && i < n; i++) {
            const double want = rows[i * w + w - 2], cond = rows[i * w + w - 1];
            const double wr = d ? (double)(float)want : want;
            if (!isfinite(wr)) { /* NaN, or beyond the format's range */
                CHECK_MSG(isnan(wr) ? isnan(v[i]) : v[i] == wr, "%s %s(%g, %g): %g, want %g", name,
                          ct_dtype_name(dt), x[i], m[i], v[i], wr);
                continue;
            }
            const double u = ulp_of(wr, d), uc = fmax(u, cond * 0x1p-64);
            double err = fabs(v[i] - wr) / uc;
            if (!(err == err)) err = INFINITY;
            if (err > worst) worst = err, at = i;
            if (uc == u && err > worst_wc) worst_wc = err;
        }
        CHECK_MSG(worst <= tol, "%s %s: %.2f ulp at x = %.9g, n = %.9g (tolerance %g)", name,
                  ct_dtype_name(dt), worst, at >= 0 ? x[at] : 0, at >= 0 ? m[at] : 0, tol);
        printf("  %-32s %-8s %.2f ulp where well conditioned, %.2f in max(ulp, cond 2^-64)\n", name,
               ct_dtype_name(dt), worst_wc, worst);
        free(v), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(r);
    }
    free(x), free(m);
}

TEST(against_mpmath) {
    const double *tabs[12] = {&t_cheb_t[0][0],     &t_cheb_u[0][0],   &t_cheb_v[0][0],
                              &t_cheb_w[0][0],     &t_scheb_t[0][0],  &t_scheb_u[0][0],
                              &t_scheb_v[0][0],    &t_scheb_w[0][0],  &t_hermite_h[0][0],
                              &t_hermite_he[0][0], &t_laguerre[0][0], &t_legendre[0][0]};
    const int ns[12] = {N_OF(t_cheb_t),    N_OF(t_cheb_u),     N_OF(t_cheb_v),   N_OF(t_cheb_w),
                        N_OF(t_scheb_t),   N_OF(t_scheb_u),    N_OF(t_scheb_v),  N_OF(t_scheb_w),
                        N_OF(t_hermite_h), N_OF(t_hermite_he), N_OF(t_laguerre), N_OF(t_legendre)};
    for (int k = 0; k < 12; k++)
        check(polys[k].name, polys[k].f, NULL, tabs[k], ns[k], 4);
    check("airy_ai", NULL, ct_special_airy_ai, &t_airy_ai[0][0], N_OF(t_airy_ai), 4);
}

/* torch 1.13's values at the edges, in float64 */
TEST(torch_edges) {
    const int n = N_OF(t_torch_edges);
    for (int k = 0; k < 12; k++) {
        double x[128], m[128], want[128];
        int cnt = 0;
        for (int i = 0; i < n && cnt < 128; i++)
            if ((int)t_torch_edges[i][0] == k) {
                x[cnt] = t_torch_edges[i][1], m[cnt] = t_torch_edges[i][2];
                want[cnt++] = t_torch_edges[i][3];
            }
        ct_tensor *a = tu_from_vals(ctx, CT_FLOAT64, 1, SH(cnt), x),
                  *b = tu_from_vals(ctx, CT_FLOAT64, 1, SH(cnt), m), *r = NULL;
        CHECK_OK(polys[k].f(ctx, a, b, &r));
        double *v = r ? tu_read(r) : NULL;
        for (int i = 0; v && i < cnt; i++)
            CHECK_MSG(isnan(want[i])
                          ? isnan(v[i])
                          : v[i] == want[i] || fabs(v[i] - want[i]) <= 1e-15 * fabs(want[i]),
                      "%s(%g, %g) = %.17g, torch %.17g", polys[k].name, x[i], m[i], v[i], want[i]);
        free(v), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(r);
    }
    double ax[8], aw[8];
    const int na = N_OF(t_torch_airy);
    for (int i = 0; i < na; i++)
        ax[i] = t_torch_airy[i][0], aw[i] = t_torch_airy[i][1];
    ct_tensor *a = tu_from_vals(ctx, CT_FLOAT64, 1, SH(na), ax), *r = NULL;
    CHECK_OK(ct_special_airy_ai(ctx, a, &r));
    double *v = r ? tu_read(r) : NULL;
    for (int i = 0; v && i < na; i++)
        CHECK_MSG(isnan(aw[i]) ? isnan(v[i]) : fabs(v[i] - aw[i]) <= 2e-16 * fabs(aw[i]),
                  "airy_ai(%g) = %.17g, torch %.17g", ax[i], v[i], aw[i]);
    free(v), ct_tensor_release(a), ct_tensor_release(r);
}

/* where ctorch answers differently from torch 1.13, on purpose: the limits at +-inf (torch's
 * recurrence reaches inf - inf = NaN from degree 3 on; its Ai gives NaN), and overflow as +-inf */
TEST(limits) {
    const double inf = INFINITY;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), (const double[]){inf, -inf, inf, -inf}),
              *n = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), (const double[]){3, 3, 4, 4}), *r = NULL;
    for (int k = 0; k < 12; k++) {
        CHECK_OK(polys[k].f(ctx, x, n, &r));
        double *v = r ? tu_read(r) : NULL;
        /* the leading term: x^n, or (-x)^n / n! for Laguerre; shifted: (2x - 1)^n */
        for (int i = 0; v && i < 4; i++) {
            const bool neg_x = k == 10 ? i % 2 == 0 : i % 2 == 1;
            const double want = neg_x && i < 2 ? -inf : inf;
            CHECK_MSG(v[i] == want, "%s(%g, %g) = %g, want %g", polys[k].name, i % 2 ? -inf : inf,
                      i < 2 ? 3.0 : 4.0, v[i], want);
        }
        free(v), ct_tensor_release(r);
    }
    ct_tensor_release(x), ct_tensor_release(n);
    /* H_20(1e20) = 2^20 1e400 (1 + ...) overflows: inf, not NaN; T_300(-3) = +inf */
    x = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), (const double[]){1e20, -3});
    n = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), (const double[]){20, 700});
    CHECK_OK(ct_special_hermite_polynomial_h(ctx, x, n, &r));
    double *v = r ? tu_read(r) : NULL;
    CHECK(v && v[0] == inf);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_special_chebyshev_polynomial_t(ctx, x, n, &r));
    v = r ? tu_read(r) : NULL;
    CHECK(v && v[1] == inf);
    free(v), ct_tensor_release(r), ct_tensor_release(x), ct_tensor_release(n);
    x = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), (const double[]){inf, -inf});
    CHECK_OK(ct_special_airy_ai(ctx, x, &r));
    v = r ? tu_read(r) : NULL;
    CHECK(v && v[0] == 0 && v[1] == 0);
    free(v), ct_tensor_release(r), ct_tensor_release(x);
    /* a degree above 2^24 for the recurrences: NaN, not hours of work; Chebyshev any degree */
    x = tu_from_vals(ctx, CT_FLOAT64, 1, SH(1), (const double[]){0.5});
    n = tu_from_vals(ctx, CT_FLOAT64, 1, SH(1), (const double[]){1e18});
    CHECK_OK(ct_special_legendre_polynomial_p(ctx, x, n, &r));
    v = r ? tu_read(r) : NULL;
    CHECK(v && isnan(v[0]));
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_special_chebyshev_polynomial_t(ctx, x, n, &r)); /* cos(1e18 acos(0.5)) */
    v = r ? tu_read(r) : NULL;
    CHECK(v && fabs(v[0]) <= 1);
    free(v), ct_tensor_release(r), ct_tensor_release(x), ct_tensor_release(n);
}

/* torch's result dtypes: integers and bool in float32, otherwise the promoted float */
TEST(dtypes) {
    ct_tensor *i = tu_from_vals(ctx, CT_INT64, 1, SH(2), (const double[]){2, 3}),
              *bo = tu_from_vals(ctx, CT_BOOL, 1, SH(2), (const double[]){1, 0}),
              *f = tu_from_vals(ctx, CT_FLOAT32, 1, SH(2), (const double[]){0.5, 0.25}),
              *dd = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), (const double[]){2, 3}), *r = NULL;
    const struct {
        const ct_tensor *a, *b;
        ct_dtype want;
    } cases[] = {{i, i, CT_FLOAT32},
                 {bo, i, CT_FLOAT32},
                 {f, i, CT_FLOAT32},
                 {f, dd, CT_FLOAT64},
                 {i, dd, CT_FLOAT64}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int p = 0; p < 12; p++) {
            CHECK_OK(polys[p].f(ctx, cases[k].a, cases[k].b, &r));
            CHECK_MSG(r && ct_tensor_dtype(r) == cases[k].want, "%s case %d: %s", polys[p].name,
                      (int)k, r ? ct_dtype_name(ct_tensor_dtype(r)) : "-");
            ct_tensor_release(r);
        }
    /* T_3(2) = 26 with integer operands */
    CHECK_OK(ct_special_chebyshev_polynomial_t(ctx, i, i, &r));
    double *v = r ? tu_read(r) : NULL;
    CHECK(v && v[0] == 7 && v[1] == 99); /* T_2(2) = 7, T_3(3) = 4 27 - 9 = 99 */
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_special_airy_ai(ctx, i, &r));
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    /* broadcasting: x (2, 1) against n (3) */
    ct_tensor *x2 = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 1), (const double[]){0.5, 2}),
              *n3 = tu_from_vals(ctx, CT_FLOAT64, 1, SH(3), (const double[]){0, 1, 2});
    CHECK_OK(ct_special_hermite_polynomial_he(ctx, x2, n3, &r));
    v = r ? tu_read(r) : NULL; /* He: 1, x, x^2 - 1 */
    CHECK(v && r && ct_tensor_numel(r) == 6 && v[0] == 1 && v[1] == 0.5 && v[2] == -0.75 &&
          v[3] == 1 && v[4] == 2 && v[5] == 3);
    free(v), ct_tensor_release(r);
    ct_tensor *tl[] = {i, bo, f, dd, x2, n3};
    for (size_t k = 0; k < sizeof tl / sizeof tl[0]; k++)
        ct_tensor_release(tl[k]);
}

/* ---- gradients in x against central differences, at degree 5 ---- */
static bin_fn g_fn;
static double g_deg;
static bool g_shifted;
static ct_status g_call(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *n = NULL, *xs = NULL, *xh = NULL;
    ct_status st = ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, g_deg, &n);
    /* inside (-1, 1), away from the end points (for the shifted kinds (0.05, 0.95)) */
    if (st == CT_OK) st = ct_mul_scalar(ctx, x, 0.45, g_shifted ? &xh : &xs);
    if (st == CT_OK && g_shifted) st = ct_add_scalar(ctx, xh, 0.5, &xs);
    ct_tensor_release(xh);
    if (st == CT_OK) st = g_fn(ctx, xs, n, y);
    ct_tensor_release(n), ct_tensor_release(xs);
    return st;
}
TEST(gradients) {
    const bin_fn fs[12] = {
        ct_special_chebyshev_polynomial_t,         ct_special_chebyshev_polynomial_u,
        ct_special_chebyshev_polynomial_v,         ct_special_chebyshev_polynomial_w,
        ct_special_shifted_chebyshev_polynomial_t, ct_special_shifted_chebyshev_polynomial_u,
        ct_special_shifted_chebyshev_polynomial_v, ct_special_shifted_chebyshev_polynomial_w,
        ct_special_hermite_polynomial_h,           ct_special_hermite_polynomial_he,
        ct_special_laguerre_polynomial_l,          ct_special_legendre_polynomial_p};
    const char *names[12] = {"chebyshev_t",         "chebyshev_u",         "chebyshev_v",
                             "chebyshev_w",         "shifted_chebyshev_t", "shifted_chebyshev_u",
                             "shifted_chebyshev_v", "shifted_chebyshev_w", "hermite_h",
                             "hermite_he",          "laguerre_l",          "legendre_p"};
    const double degs[4] = {5, 2.5, 8, 0};
    for (int k = 0; k < 12; k++)
        for (int d = 0; d < 4; d++) {
            g_fn = fs[k], g_deg = degs[d], g_shifted = k >= 4 && k < 8;
            tu_gradcheck(ctx, &rng, names[k], g_call, 1, SH(6));
        }
    /* exact values: T_4'(0.3) = 4 U_3(0.3); the end points' limits U_k'(+-1), P_k'(+-1), L_k'(0);
     * a negative degree (the forward's 0) has derivative 0 */
    struct {
        bin_fn f;
        double x, n, want;
    } cases[] = {
        {ct_special_chebyshev_polynomial_t, 0.3, 4, 4 * (8 * 0.027 - 4 * 0.3)},
        {ct_special_chebyshev_polynomial_u, 1, 4, 4 * 5 * 6 / 3.0},
        {ct_special_chebyshev_polynomial_u, -1, 4, -4 * 5 * 6 / 3.0},
        {ct_special_chebyshev_polynomial_u, -1, 3, 3 * 4 * 5 / 3.0},
        {ct_special_chebyshev_polynomial_v, 1, 3, 3 * 4 * 5 / 3.0 - 2 * 3 * 4 / 3.0},
        {ct_special_chebyshev_polynomial_w, -1, 2, -6}, /* W_2 = 4x^2 + 2x - 1 */
        {ct_special_shifted_chebyshev_polynomial_u, 0, 2, -2 * (2 * 3 * 4 / 3.0)},
        {ct_special_legendre_polynomial_p, 1, 5, 15},
        {ct_special_legendre_polynomial_p, -1, 5, 15},
        {ct_special_legendre_polynomial_p, -1, 4, -10},
        {ct_special_laguerre_polynomial_l, 0, 6, -6},
        {ct_special_legendre_polynomial_p, 0.5, -3, 0},
        {ct_special_chebyshev_polynomial_u, 1, -3, 0},
        {ct_special_chebyshev_polynomial_w, 0.2, -1, 0},
    };
    ct_tensor *x = NULL, *n = NULL, *r = NULL, *s = NULL;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(1), cases[k].x, &x));
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(1), cases[k].n, &n));
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        CHECK_OK(ct_tensor_set_requires_grad(n, true));
        CHECK_OK(cases[k].f(ctx, x, n, &r));
        CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
        CHECK_OK(ct_backward(ctx, s, NULL, false));
        const ct_tensor *gx = ct_tensor_grad(x), *gn = ct_tensor_grad(n);
        double *vx = gx ? tu_read(gx) : NULL, *vn = gn ? tu_read(gn) : NULL;
        CHECK_MSG(vx && fabs(vx[0] - cases[k].want) < 1e-12 * (1 + fabs(cases[k].want)),
                  "case %zu: d/dx %.17g, want %.17g", k, vx ? vx[0] : NAN, cases[k].want);
        CHECK(vn && vn[0] == 0); /* the degree's gradient is 0 */
        free(vx), free(vn);
        ct_tensor_release(r), ct_tensor_release(s), ct_tensor_release(x), ct_tensor_release(n);
    }
    /* Airy Ai: CT_ERR_UNSUPPORTED once d/dx is needed */
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(1), 0.3, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_special_airy_ai(ctx, x, &r));
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
    ct_tensor_release(r), ct_tensor_release(s), ct_tensor_release(x);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(against_mpmath);
    RUN(torch_edges);
    RUN(limits);
    RUN(dtypes);
    RUN(gradients);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Complex tensors, second part: the holomorphic elementwise functions (sin .. atanh, log10, log2,
 * rsqrt, sigmoid, sinc) against mpmath at 40 digits (scripts/gen_complex_more_ref.py, which also
 * checks torch 1.13 agrees), in complex128 and complex64, and their gradients (g conj(f'(z)),
 * torch's convention) against mpmath's derivatives; sgn's gradient and the real-to-real
 * pipelines through them against central differences. */
#include "test_util.h"

#include "data/complex_more_ref.h"

#include <float.h>

static ct_ctx *ctx;

typedef ct_status (*cm_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
static const cm_fn cm_impl[CM_NF] = {ct_sin,   ct_cos,  ct_tan,   ct_sinh,    ct_cosh,  ct_tanh,
                                     ct_asin,  ct_acos, ct_atan,  ct_asinh,   ct_acosh, ct_atanh,
                                     ct_log10, ct_log2, ct_rsqrt, ct_sigmoid, ct_sinc};

/* a complex tensor of n values (pairs) */
static ct_tensor *cx_tensor(ct_dtype dt, int64_t n, const double (*v)[2]) {
    ct_tensor *t = NULL;
    if (dt == CT_COMPLEX128) {
        CHECK_OK(ct_tensor_from_host(ctx, v, dt, 1, &n, &t));
    } else {
        float *f = malloc(sizeof(float) * 2 * (size_t)n);
        for (int64_t i = 0; i < 2 * n; i++)
            f[i] = (float)v[i / 2][i % 2];
        CHECK_OK(ct_tensor_from_host(ctx, f, dt, 1, &n, &t));
        free(f);
    }
    return t;
}

/* the n pairs of a complex tensor as doubles */
static double *cx_read(const ct_tensor *t, int64_t n) {
    double *out = malloc(sizeof(double) * 2 * (size_t)n);
    if (ct_tensor_dtype(t) == CT_COMPLEX128) {
        CHECK_OK(ct_tensor_to_host(t, out, sizeof(double) * 2 * (size_t)n));
    } else {
        float *f = malloc(sizeof(float) * 2 * (size_t)n);
        CHECK_OK(ct_tensor_to_host(t, f, sizeof(float) * 2 * (size_t)n));
        for (int64_t i = 0; i < 2 * n; i++)
            out[i] = f[i];
        free(f);
    }
    return out;
}

/* any tensor's n values as (re, im) pairs (real dtypes: imaginary parts 0) */
static double *pairs_of(const ct_tensor *t, int64_t n) {
    if (ct_dtype_is_complex(ct_tensor_dtype(t))) return cx_read(t, n);
    double *r = tu_read(t), *v = calloc(2 * (size_t)(n ? n : 1), sizeof(double));
    for (int64_t i = 0; r && v && i < n; i++)
        v[2 * i] = r[i];
    free(r);
    return v;
}

/* |got - ref| <= tol |ref| as complex numbers (both parts at once: a part far smaller than the
 * other is only as accurate as the pair) */
static bool cx_close(const double *got, const double *ref, double tol) {
    const double e = hypot(got[0] - ref[0], got[1] - ref[1]), m = hypot(ref[0], ref[1]);
    return e <= tol * m || (m == 0 && e == 0);
}

TEST(functions_as_mpmath) {
    for (int k = 0; k < 2; k++) {
        const ct_dtype dt = k ? CT_COMPLEX64 : CT_COMPLEX128;
        const double(*z)[2] = k ? cm_z_f : cm_z_d;
        const double tol = k ? 8 * FLT_EPSILON : 8 * DBL_EPSILON;
        for (int f = 0; f < CM_NF; f++) {
            const double(*ref)[2] = k ? cm_f_f[f] : cm_f_d[f];
            ct_tensor *x = cx_tensor(dt, CM_NP, z), *y = NULL;
            CHECK_OK(cm_impl[f](ctx, x, &y));
            CHECK_MSG(y && ct_tensor_dtype(y) == dt, "%s: dtype", cm_funcs[f]);
            double *v = y ? cx_read(y, CM_NP) : NULL;
            int bad = 0;
            for (int i = 0; v && i < CM_NP; i++) {
                const bool over = k && hypot(ref[i][0], ref[i][1]) > FLT_MAX;
                /* sinc rounds pi z first (as torch): its error grows with |pi z| */
                const double t = f == CM_NF - 1 ? tol * (1 + M_PI * hypot(z[i][0], z[i][1])) : tol;
                const bool ok = over ? !(isfinite(v[2 * i]) && isfinite(v[2 * i + 1]))
                                     : cx_close(v + 2 * i, ref[i], t);
                if (!ok && bad++ < 3)
                    printf("  %s(%s)(%.17g%+.17gi) = %.17g%+.17gi, exact %.17g%+.17gi\n",
                           cm_funcs[f], ct_dtype_name(dt), z[i][0], z[i][1], v[2 * i], v[2 * i + 1],
                           ref[i][0], ref[i][1]);
            }
            CHECK_MSG(bad == 0, "%s (%s): %d of %d values off", cm_funcs[f], ct_dtype_name(dt), bad,
                      CM_NP);
            free(v);
            ct_tensor_release(x), ct_tensor_release(y);
        }
    }
}

/* backward of f(z) with the upstream w: z.grad = w conj(f'(z)) */
TEST(gradients_as_mpmath) {
    double w[CM_NP][2];
    for (int i = 0; i < CM_NP; i++)
        w[i][0] = 0.5 + 0.25 * (i % 5), w[i][1] = 0.3 * (i % 3) - 0.4;
    for (int k = 0; k < 2; k++) {
        const ct_dtype dt = k ? CT_COMPLEX64 : CT_COMPLEX128;
        const double(*z)[2] = k ? cm_z_f : cm_z_d;
        const double tol = k ? 1e-5 : 1e-12;
        for (int f = 0; f < CM_NF; f++) {
            const double(*der)[2] = k ? cm_d_f[f] : cm_d_d[f];
            ct_tensor *x = cx_tensor(dt, CM_NP, z), *wt = cx_tensor(dt, CM_NP, w), *y = NULL;
            CHECK_OK(ct_tensor_set_requires_grad(x, true));
            CHECK_OK(cm_impl[f](ctx, x, &y));
            CHECK_OK(ct_backward(ctx, y, wt, false));
            const ct_tensor *g = ct_tensor_grad(x);
            CHECK_MSG(g && ct_tensor_dtype(g) == dt, "%s: gradient dtype", cm_funcs[f]);
            double *gv = g ? cx_read(g, CM_NP) : NULL;
            int bad = 0;
            for (int i = 0; gv && i < CM_NP; i++) {
                const double dr = der[i][0], di = -der[i][1]; /* conj(f') */
                const double ref[2] = {w[i][0] * dr - w[i][1] * di, w[i][0] * di + w[i][1] * dr};
                if (k && hypot(ref[0], ref[1]) > 1e30) continue; /* near float32's overflow */
                if (!cx_close(gv + 2 * i, ref, tol) && bad++ < 3)
                    printf("  d%s(%s) at %.17g%+.17gi: %.17g%+.17gi, exact %.17g%+.17gi\n",
                           cm_funcs[f], ct_dtype_name(dt), z[i][0], z[i][1], gv[2 * i],
                           gv[2 * i + 1], ref[0], ref[1]);
            }
            CHECK_MSG(bad == 0, "%s' (%s): %d of %d gradients off", cm_funcs[f], ct_dtype_name(dt),
                      bad, CM_NP);
            free(gv);
            ct_tensor_release(x), ct_tensor_release(wt), ct_tensor_release(y);
        }
    }
    /* sinc at 0: value 1, derivative 0 (torch's special case) */
    const double z0[1][2] = {{0, 0}}, one[1][2] = {{1, 0}};
    ct_tensor *x = cx_tensor(CT_COMPLEX128, 1, z0), *wt = cx_tensor(CT_COMPLEX128, 1, one),
              *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_sinc(ctx, x, &y));
    double *v = y ? cx_read(y, 1) : NULL;
    CHECK(v && v[0] == 1 && v[1] == 0);
    free(v);
    CHECK_OK(ct_backward(ctx, y, wt, false));
    v = ct_tensor_grad(x) ? cx_read(ct_tensor_grad(x), 1) : NULL;
    CHECK(v && v[0] == 0 && v[1] == 0);
    free(v);
    ct_tensor_release(x), ct_tensor_release(wt), ct_tensor_release(y);
}

/* real -> real pipelines through the new functions and sgn, against central differences */
static ct_status as_complex(const ct_tensor *x, ct_tensor **z) {
    /* x (2n) -> z (n) = x[:n] + i x[n:] */
    ct_tensor *re = NULL, *im = NULL;
    const int64_t n = ct_tensor_shape(x)[0] / 2;
    ct_status st = ct_tensor_narrow(ctx, x, 0, 0, n, &re);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, x, 0, n, n, &im);
    if (st == CT_OK) st = ct_complex(ctx, re, im, z);
    ct_tensor_release(re), ct_tensor_release(im);
    return st;
}
static ct_status g_chain(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *t[8] = {NULL};
    ct_status st = as_complex(x, &t[0]);
    if (st == CT_OK) st = ct_sin(ctx, t[0], &t[1]);
    if (st == CT_OK) st = ct_tanh(ctx, t[1], &t[2]);
    if (st == CT_OK) st = ct_asinh(ctx, t[2], &t[3]);
    if (st == CT_OK) st = ct_sigmoid(ctx, t[3], &t[4]);
    if (st == CT_OK) st = ct_log10(ctx, t[4], &t[5]);
    if (st == CT_OK) st = ct_sgn(ctx, t[5], &t[6]);
    if (st == CT_OK) st = ct_view_as_real(ctx, t[6], &t[7]);
    if (st == CT_OK) st = ct_flatten(ctx, t[7], 0, -1, y);
    for (int i = 0; i < 8; i++)
        ct_tensor_release(t[i]);
    return st;
}
static ct_status g_pow(const ct_tensor *x, ct_tensor **y) {
    /* x (16) -> a = z[:4], b = z[4:] complex; a^b and (|a| + 0.5)^b (a real base) */
    ct_tensor *t[9] = {NULL};
    ct_status st = as_complex(x, &t[0]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[0], 0, 0, 4, &t[1]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[0], 0, 4, 4, &t[2]);
    if (st == CT_OK) st = ct_pow_tensor(ctx, t[1], t[2], &t[3]);
    if (st == CT_OK) st = ct_abs(ctx, t[1], &t[4]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[4], 0.5, &t[5]);
    if (st == CT_OK) st = ct_pow_tensor(ctx, t[5], t[2], &t[6]);
    const ct_tensor *two[2] = {t[3], t[6]};
    if (st == CT_OK) st = ct_cat(ctx, 2, two, 0, &t[7]);
    if (st == CT_OK) st = ct_view_as_real(ctx, t[7], &t[8]);
    if (st == CT_OK) st = ct_flatten(ctx, t[8], 0, -1, y);
    for (int i = 0; i < 9; i++)
        ct_tensor_release(t[i]);
    return st;
}
static ct_status g_sgn(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *t[3] = {NULL};
    ct_status st = as_complex(x, &t[0]);
    if (st == CT_OK) st = ct_sgn(ctx, t[0], &t[1]);
    if (st == CT_OK) st = ct_view_as_real(ctx, t[1], &t[2]);
    if (st == CT_OK) st = ct_flatten(ctx, t[2], 0, -1, y);
    for (int i = 0; i < 3; i++)
        ct_tensor_release(t[i]);
    return st;
}

TEST(pipelines_against_differences) {
    unsigned long long rng = 77;
    tu_gradcheck(ctx, &rng, "sin / tanh / asinh / sigmoid / log10 / sgn", g_chain, 1,
                 (const int64_t[]){12});
    tu_gradcheck(ctx, &rng, "sgn", g_sgn, 1, (const int64_t[]){10});
    tu_gradcheck(ctx, &rng, "pow with a complex exponent", g_pow, 1, (const int64_t[]){16});
    /* sgn at 0: gradient 0 (torch's) */
    const double z0[2][2] = {{0, 0}, {3, -4}}, w[2][2] = {{1, 2}, {0.5, 0}};
    ct_tensor *x = cx_tensor(CT_COMPLEX128, 2, z0), *wt = cx_tensor(CT_COMPLEX128, 2, w), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_sgn(ctx, x, &y));
    CHECK_OK(ct_backward(ctx, y, wt, false));
    double *g = ct_tensor_grad(x) ? cx_read(ct_tensor_grad(x), 2) : NULL;
    /* at 3 - 4i: (w - Re(w conj(s)) s) / 5 with s = (3 - 4i) / 5 */
    const double sr = 0.6, si = -0.8, c = 0.5 * sr;
    CHECK(g && g[0] == 0 && g[1] == 0);
    CHECK(g && fabs(g[2] - (0.5 - c * sr) / 5) < 1e-15 && fabs(g[3] - (-c * si) / 5) < 1e-15);
    free(g);
    ct_tensor_release(x), ct_tensor_release(wt), ct_tensor_release(y);
}

/* the complex reductions against torch 1.13 */
TEST(reductions_as_torch) {
    const int nc = (int)(sizeof cm_red / sizeof cm_red[0]);
    for (int ci = 0; ci < nc; ci++) {
        const cm_red_case *c = &cm_red[ci];
        const char *op = cm_red_ops[c->op];
        const ct_dtype dt = (ct_dtype)c->x_dt;
        ct_tensor *x0 = cx_tensor(dt, 12, c->x), *x = NULL, *y = NULL, *y2 = NULL;
        CHECK_OK(ct_tensor_reshape(ctx, x0, 2, (const int64_t[]){3, 4}, &x));
        ct_tensor_release(x0);
        const int dim = c->dim;
        const int *dims = dim == -99 ? NULL : &dim;
        const int ndims = dim == -99 ? 0 : 1;
        ct_status st = CT_ERR_INVALID_ARG;
        if (!strcmp(op, "prod_all")) st = ct_prod(ctx, x, CT_ALL_DIMS, false, &y);
        if (!strncmp(op, "prod_dim", 8)) st = ct_prod(ctx, x, dim, c->keepdim, &y);
        if (!strcmp(op, "cumprod")) st = ct_cumprod(ctx, x, dim, &y);
        if (!strncmp(op, "var", 3) && strncmp(op, "var_mean", 8))
            st = ct_var(ctx, x, ndims, dims, c->correction, c->keepdim, &y);
        if (!strncmp(op, "std", 3)) st = ct_std(ctx, x, ndims, dims, c->correction, c->keepdim, &y);
        if (!strncmp(op, "var_mean", 8)) {
            st = ct_var_mean(ctx, x, ndims, dims, c->correction, c->keepdim, &y, &y2);
            if (!strcmp(op, "var_mean_mean")) {
                ct_tensor *t = y;
                y = y2, y2 = t;
            }
        }
        if (!strcmp(op, "count_nonzero")) st = ct_count_nonzero(ctx, x, 1, dims, &y);
        if (!strcmp(op, "any_dim")) st = ct_any(ctx, x, 1, dims, false, &y);
        if (!strcmp(op, "all_dim")) st = ct_all(ctx, x, 1, dims, false, &y);
        if (!strcmp(op, "nonzero")) st = ct_nonzero(ctx, x, &y);
        CHECK_MSG(st == CT_OK, "%s (%s): %s", op, ct_dtype_name(dt), ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            CHECK_MSG(ct_tensor_dtype(y) == (ct_dtype)c->out_dt, "%s (%s): dtype %s, torch %d", op,
                      ct_dtype_name(dt), ct_dtype_name(ct_tensor_dtype(y)), c->out_dt);
            CHECK_MSG(tu_same_shape(y, c->out_nd, c->out_shape), "%s (%s): shape", op,
                      ct_dtype_name(dt));
            const int64_t n = ct_tensor_numel(y);
            double *v = pairs_of(y, n);
            const double tol = dt == CT_COMPLEX64 ? 1e-6 : 1e-14;
            for (int64_t i = 0; i < n && i < 24; i++)
                CHECK_MSG(cx_close(v + 2 * i, c->out[i], tol) ||
                              hypot(v[2 * i] - c->out[i][0], v[2 * i + 1] - c->out[i][1]) < 1e-30,
                          "%s (%s) [%lld]: %.17g%+.17gi, torch %.17g%+.17gi", op, ct_dtype_name(dt),
                          (long long)i, v[2 * i], v[2 * i + 1], c->out[i][0], c->out[i][1]);
            free(v);
        }
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(y2);
    }
}

/* complex to bool: either part nonzero (torch 1.13 reads the real part only) */
TEST(bool_of_complex) {
    const double z[4][2] = {{0, 1e-30}, {0, 0}, {-0.0, 0}, {NAN, 0}};
    ct_tensor *x = cx_tensor(CT_COMPLEX64, 4, z), *b = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_BOOL, &b));
    uint8_t v[4] = {9, 9, 9, 9};
    CHECK(b && ct_tensor_to_host(b, v, 4) == CT_OK);
    CHECK(v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 1);
    ct_tensor_release(x), ct_tensor_release(b);
}

static ct_status g_reductions(const ct_tensor *x, ct_tensor **y) {
    /* x (24) -> z (3, 4) -> [prod(z, 1), prod(z), cumprod(z, 0) flattened, var(z, 1), std(z)] */
    ct_tensor *t[12] = {NULL};
    ct_status st = as_complex(x, &t[0]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[0], 2, (const int64_t[]){3, 4}, &t[1]);
    if (st == CT_OK) st = ct_prod(ctx, t[1], 1, false, &t[2]);
    if (st == CT_OK) st = ct_prod(ctx, t[1], CT_ALL_DIMS, true, &t[3]);
    if (st == CT_OK) st = ct_cumprod(ctx, t[1], 0, &t[4]);
    const ct_tensor *parts[3] = {t[2], NULL, NULL};
    if (st == CT_OK) st = ct_flatten(ctx, t[3], 0, -1, &t[5]);
    if (st == CT_OK) st = ct_flatten(ctx, t[4], 0, -1, &t[6]);
    parts[1] = t[5], parts[2] = t[6];
    if (st == CT_OK) st = ct_cat(ctx, 3, parts, 0, &t[7]);
    if (st == CT_OK) st = ct_view_as_real(ctx, t[7], &t[8]);
    if (st == CT_OK) st = ct_flatten(ctx, t[8], 0, -1, &t[9]);
    if (st == CT_OK) st = ct_var(ctx, t[1], 1, (const int[]){1}, 1, false, &t[10]);
    if (st == CT_OK) st = ct_std(ctx, t[1], 0, NULL, 0, false, &t[11]);
    ct_tensor *s = NULL, *s1 = NULL;
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[11], 1, (const int64_t[]){1}, &s);
    const ct_tensor *all[3] = {t[9], t[10], s};
    if (st == CT_OK) st = ct_cat(ctx, 3, all, 0, &s1);
    if (st == CT_OK) *y = s1, s1 = NULL;
    ct_tensor_release(s), ct_tensor_release(s1);
    for (int i = 0; i < 12; i++)
        ct_tensor_release(t[i]);
    return st;
}

TEST(reduction_gradients) {
    unsigned long long rng = 91;
    tu_gradcheck(ctx, &rng, "prod / cumprod / var / std of complex", g_reductions, 1,
                 (const int64_t[]){24});
    /* names as torch's */
    const double z[3][2] = {{1, 2}, {0.5, -1}, {2, 0}};
    ct_tensor *x = cx_tensor(CT_COMPLEX128, 3, z), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    const char *want[] = {"ProdBackward0", "ProdBackward1", "CumprodBackward0", "VarBackward0"};
    for (int k = 0; k < 4; k++) {
        ct_status st = k == 0   ? ct_prod(ctx, x, CT_ALL_DIMS, false, &y)
                       : k == 1 ? ct_prod(ctx, x, 0, false, &y)
                       : k == 2 ? ct_cumprod(ctx, x, 0, &y)
                                : ct_var(ctx, x, 0, NULL, 1, false, &y);
        CHECK_OK(st);
        char *str = NULL;
        CHECK_OK(ct_tensor_to_string(y, &str));
        CHECK_MSG(str && strstr(str, want[k]), "%s: %s", want[k], str ? str : "");
        free(str);
        ct_tensor_release(y), y = NULL;
    }
    ct_tensor_release(x);
}

/* complex linear algebra against torch 1.13 */
static ct_tensor *cx_shaped(ct_dtype dt, int nd, const int64_t *shape, const double (*v)[2]) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    ct_tensor *f = NULL, *t = NULL;
    if (ct_dtype_is_complex(dt)) {
        f = cx_tensor(dt, n, v);
    } else {
        double *re = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            re[i] = v[i][0];
        f = tu_from_vals(ctx, dt, 1, &n, re);
        free(re);
    }
    CHECK_OK(ct_tensor_reshape(ctx, f, nd, shape, &t));
    ct_tensor_release(f);
    return t;
}

static int cmp_cx(const void *x, const void *y) {
    const double *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

TEST(linalg_as_torch) {
    const int nc = (int)(sizeof cm_la / sizeof cm_la[0]);
    const int64_t ash[3] = {2, 3, 3};
    for (int ci = 0; ci < nc; ci++) {
        const cm_la_case *c = &cm_la[ci];
        const char *op = cm_la_ops[c->op];
        const ct_dtype dt = (ct_dtype)c->a_dt;
        ct_tensor *a = cx_shaped(dt, 3, ash, c->a), *b = NULL, *y = NULL, *y2 = NULL;
        if (c->b_dt >= 0) b = cx_shaped((ct_dtype)c->b_dt, c->b_nd, c->b_shape, c->b);
        ct_status st = CT_ERR_INVALID_ARG;
        if (!strcmp(op, "det")) st = ct_linalg_det(ctx, a, &y);
        if (!strcmp(op, "slogdet_sign")) st = ct_linalg_slogdet(ctx, a, &y, &y2);
        if (!strcmp(op, "slogdet_logabs")) st = ct_linalg_slogdet(ctx, a, &y2, &y);
        if (!strcmp(op, "logdet")) st = ct_logdet(ctx, a, &y);
        if (!strcmp(op, "inv")) st = ct_linalg_inv(ctx, a, &y);
        if (!strncmp(op, "solve", 5)) st = ct_linalg_solve(ctx, a, b, &y);
        if (!strcmp(op, "cholesky")) st = ct_linalg_cholesky(ctx, a, false, &y);
        if (!strcmp(op, "cholesky_upper")) st = ct_linalg_cholesky(ctx, a, true, &y);
        if (!strcmp(op, "matrix_power_neg")) st = ct_linalg_matrix_power(ctx, a, -2, &y);
        if (!strcmp(op, "matrix_exp")) st = ct_linalg_matrix_exp(ctx, a, &y);
        if (!strcmp(op, "qr_q")) st = ct_linalg_qr(ctx, a, &y, &y2);
        if (!strcmp(op, "qr_r")) st = ct_linalg_qr(ctx, a, &y2, &y);
        if (!strcmp(op, "svdvals")) st = ct_linalg_svdvals(ctx, a, &y);
        if (!strcmp(op, "pinv")) st = ct_linalg_pinv(ctx, a, NAN, NAN, &y);
        if (!strcmp(op, "eigvals_sorted")) {
            ct_tensor *w = NULL;
            st = ct_linalg_eigvals(ctx, a, &w);
            double *wv = w ? cx_read(w, 6) : NULL;
            for (int bb = 0; wv && bb < 2; bb++) /* each batch's three values by (re, im) */
                qsort(wv + 6 * bb, 3, 2 * sizeof(double), cmp_cx);
            if (wv)
                y = cx_shaped(ct_tensor_dtype(w), 2, (const int64_t[]){2, 3},
                              (const double(*)[2])wv);
            free(wv);
            ct_tensor_release(w);
        }
        if (!strcmp(op, "eigvalsh_l")) st = ct_linalg_eigvalsh(ctx, a, 'L', &y);
        if (!strcmp(op, "eigvalsh_u")) st = ct_linalg_eigvalsh(ctx, a, 'U', &y);
        CHECK_MSG(st == CT_OK, "%s (%s): %s", op, ct_dtype_name(dt), ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            CHECK_MSG(ct_tensor_dtype(y) == (ct_dtype)c->out_dt, "%s (%s): dtype %s", op,
                      ct_dtype_name(dt), ct_dtype_name(ct_tensor_dtype(y)));
            CHECK_MSG(tu_same_shape(y, c->out_nd, c->out_shape), "%s (%s): shape", op,
                      ct_dtype_name(dt));
            const int64_t n = ct_tensor_numel(y);
            double *v = pairs_of(y, n);
            double scale = 0; /* errors relative to the largest value (LAPACK's backward error) */
            for (int64_t i = 0; i < n; i++)
                scale = fmax(scale, hypot(c->out[i][0], c->out[i][1]));
            const double tol = (dt == CT_COMPLEX64 ? 2e-5 : 1e-12) * fmax(scale, 1);
            for (int64_t i = 0; i < n && i < 18; i++)
                CHECK_MSG(hypot(v[2 * i] - c->out[i][0], v[2 * i + 1] - c->out[i][1]) <= tol,
                          "%s (%s) [%lld]: %.17g%+.17gi, torch %.17g%+.17gi", op, ct_dtype_name(dt),
                          (long long)i, v[2 * i], v[2 * i + 1], c->out[i][0], c->out[i][1]);
            free(v);
        }
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(y), ct_tensor_release(y2);
    }
    /* torch's refusals: mixed dtypes in solve; a singular complex matrix named (inv, lu_factor) */
    const double z9[9][2] = {{1, 1}, {2, 0}, {0, 1}, {2, 2}, {4, 0},
                             {0, 2}, {1, 0}, {0, 0}, {1, 1}};
    const int64_t s33[2] = {3, 3}, s3[1] = {3};
    ct_tensor *sing = cx_shaped(CT_COMPLEX128, 2, s33, z9), *rb = NULL, *y = NULL, *q = NULL;
    rb = tu_from_vals(ctx, CT_FLOAT64, 1, s3, (const double[]){1, 2, 3});
    CHECK(ct_linalg_solve(ctx, sing, rb, &y) == CT_ERR_DTYPE && y == NULL);
    CHECK(ct_linalg_inv(ctx, sing, &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "singular") != NULL);
    CHECK(ct_linalg_lu_factor(ctx, sing, &q, &y) == CT_ERR_INVALID_ARG && q == NULL && y == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "U[3, 3]") || strstr(ct_ctx_last_error(ctx), "zero"));
    ct_tensor *d = NULL; /* its det is exactly 0 (rows 1 and 2 proportional) */
    CHECK_OK(ct_linalg_det(ctx, sing, &d));
    double *dv = d ? cx_read(d, 1) : NULL;
    CHECK(dv && dv[0] == 0 && dv[1] == 0);
    free(dv);
    ct_tensor_release(sing), ct_tensor_release(rb), ct_tensor_release(d);
}

/* complex QR and SVD of tall, wide and square matrices (reduced and complete / full): Q R = A and
 * U diag(S) Vh = A within 1e-13, Q^H Q = I, U^H U = I, Vh Vh^H = I, S sorted and >= 0 */
static double max_abs_diff(const ct_tensor *x, const ct_tensor *y) {
    ct_tensor *d = NULL, *a = NULL, *m = NULL;
    double r = INFINITY;
    if (ct_sub(ctx, x, y, &d) == CT_OK && ct_abs(ctx, d, &a) == CT_OK &&
        ct_amax(ctx, a, 0, NULL, false, &m) == CT_OK) {
        double *v = tu_read(m);
        if (v) r = v[0];
        free(v);
    }
    ct_tensor_release(d), ct_tensor_release(a), ct_tensor_release(m);
    return r;
}
static double unitary_err(const ct_tensor *q, bool rows) { /* |Q^H Q - I| (rows: Q Q^H) */
    ct_tensor *qh = NULL, *p = NULL, *eye = NULL, *e64 = NULL;
    double r = INFINITY;
    const int64_t k = ct_tensor_shape(q)[rows ? 0 : 1];
    if (ct_adjoint(ctx, q, &qh) == CT_OK &&
        (rows ? ct_matmul(ctx, q, qh, &p) : ct_matmul(ctx, qh, q, &p)) == CT_OK &&
        ct_tensor_eye(ctx, CT_FLOAT64, k, k, &e64) == CT_OK &&
        ct_cast(ctx, e64, ct_tensor_dtype(q), &eye) == CT_OK)
        r = max_abs_diff(p, eye);
    ct_tensor_release(qh), ct_tensor_release(p), ct_tensor_release(eye), ct_tensor_release(e64);
    return r;
}
/* complex Hermitian eigh: A V = V diag(w), V unitary, w ascending and equal to eigvalsh's */
TEST(eigh_identities) {
    const int64_t sh[3] = {3, 4, 4};
    ct_tensor *re = NULL, *im = NULL, *m = NULL, *mh = NULL, *h = NULL, *w = NULL, *v = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, sh, 61, 0, &re));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, sh, 62, 0, &im));
    CHECK_OK(ct_complex(ctx, re, im, &m));
    CHECK_OK(ct_adjoint(ctx, m, &mh));
    CHECK_OK(ct_add(ctx, m, mh, &h)); /* Hermitian */
    CHECK_OK(ct_linalg_eigh(ctx, h, 'U', &w, &v));
    CHECK(w && ct_tensor_dtype(w) == CT_FLOAT64 && v && ct_tensor_dtype(v) == CT_COMPLEX128);
    ct_tensor *wc = NULL, *av = NULL, *vw = NULL, *w2 = NULL;
    ct_tensor *wu = NULL;
    CHECK_OK(ct_tensor_unsqueeze(ctx, w, 1, &wu));
    CHECK_OK(ct_cast(ctx, wu, CT_COMPLEX128, &wc));
    CHECK_OK(ct_matmul(ctx, h, v, &av));
    CHECK_OK(ct_mul(ctx, v, wc, &vw));
    CHECK_MSG(max_abs_diff(av, vw) < 1e-12, "A V != V diag(w)");
    for (int b = 0; b < 3; b++) {
        ct_tensor *vb = NULL;
        CHECK_OK(ct_select(ctx, v, 0, b, &vb));
        CHECK_MSG(unitary_err(vb, false) < 1e-13, "V of matrix %d not unitary", b);
        ct_tensor_release(vb);
    }
    CHECK_OK(ct_linalg_eigvalsh(ctx, h, 'L', &w2));
    CHECK(max_abs_diff(w, w2) < 1e-12);
    double *wv = tu_read(w);
    for (int i = 0; wv && i < 12; i++)
        CHECK(i % 4 == 0 || wv[i] >= wv[i - 1]);
    free(wv);
    CHECK_OK(ct_tensor_set_requires_grad(h, true));
    ct_tensor *gw = NULL, *gv = NULL;
    CHECK_OK(ct_linalg_eigh(ctx, h, 'L', &gw, &gv)); /* differentiable (linalg_gradients) */
    ct_tensor_release(gw), ct_tensor_release(gv);
    /* a NaN in the named triangle: NaN results and info 1, the call succeeds (as the real eigh);
     * a NaN in the other triangle is not read */
    const double nanm[4][2] = {{1, 0}, {NAN, 0}, {2, 1}, {3, 0}};
    ct_tensor *nm = cx_shaped(CT_COMPLEX128, 2, (const int64_t[]){2, 2}, nanm), *nw = NULL;
    ct_tensor *nv = NULL, *ni = NULL;
    CHECK_OK(ct_linalg_eigh_ex(ctx, nm, 'U', &nw, &nv, &ni));
    double *nwv = nw ? tu_read(nw) : NULL;
    int32_t info = 0;
    CHECK(nwv && isnan(nwv[0]) && ni && ct_tensor_to_host(ni, &info, 4) == CT_OK && info == 1);
    free(nwv);
    ct_tensor_release(nw), ct_tensor_release(nv), ct_tensor_release(ni), nw = NULL;
    CHECK_OK(ct_linalg_eigvalsh(ctx, nm, 'L', &nw)); /* reads 1, 2 + i, 3 only */
    nwv = nw ? tu_read(nw) : NULL;
    CHECK(nwv && fabs(nwv[0] - (2 - sqrt(6.0))) < 1e-14 && fabs(nwv[1] - (2 + sqrt(6.0))) < 1e-14);
    free(nwv);
    ct_tensor_release(nw), ct_tensor_release(nm);
    /* linalg.eig of a complex (non-Hermitian) batch: A V = V diag(w) */
    ct_tensor *ew = NULL, *ev = NULL, *ewc = NULL, *eav = NULL, *evw = NULL;
    CHECK_OK(ct_linalg_eig(ctx, m, &ew, &ev));
    CHECK(ew && ct_tensor_dtype(ew) == CT_COMPLEX128 && ev && ct_tensor_ndim(ev) == 3);
    CHECK_OK(ct_tensor_unsqueeze(ctx, ew, 1, &ewc));
    CHECK_OK(ct_matmul(ctx, m, ev, &eav));
    CHECK_OK(ct_mul(ctx, ev, ewc, &evw));
    CHECK_MSG(max_abs_diff(eav, evw) < 1e-12, "complex eig: A V != V diag(w)");
    ct_tensor_release(ew), ct_tensor_release(ev), ct_tensor_release(ewc);
    ct_tensor_release(eav), ct_tensor_release(evw);
    ct_tensor *list[] = {re, im, m, mh, h, w, v, wc, av, vw, w2, wu};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
        ct_tensor_release(list[i]);
}

TEST(qr_svd_identities) {
    const int64_t shapes[3][2] = {{5, 3}, {3, 5}, {4, 4}};
    for (int si = 0; si < 3; si++)
        for (int full = 0; full < 2; full++) {
            ct_tensor *re = NULL, *im = NULL, *a = NULL, *Q = NULL, *R = NULL, *QR = NULL;
            CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, shapes[si], 40 + si, 0, &re));
            CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, shapes[si], 50 + si, 0, &im));
            CHECK_OK(ct_complex(ctx, re, im, &a));
            CHECK_OK(full ? ct_linalg_qr_mode(ctx, a, "complete", &Q, &R)
                          : ct_linalg_qr(ctx, a, &Q, &R));
            CHECK_OK(ct_matmul(ctx, Q, R, &QR));
            CHECK_MSG(max_abs_diff(QR, a) < 1e-13, "QR != A (%lld x %lld, full %d)",
                      (long long)shapes[si][0], (long long)shapes[si][1], full);
            CHECK_MSG(unitary_err(Q, false) < 1e-13, "Q not unitary");
            ct_tensor *U = NULL, *S = NULL, *Vh = NULL, *Sc = NULL, *US = NULL, *USV = NULL;
            CHECK_OK(full ? ct_linalg_svd_full(ctx, a, true, &U, &S, &Vh)
                          : ct_linalg_svd(ctx, a, &U, &S, &Vh));
            CHECK(S && ct_tensor_dtype(S) == CT_FLOAT64);
            CHECK_MSG(unitary_err(U, false) < 1e-13 && unitary_err(Vh, true) < 1e-13,
                      "U / Vh not unitary (full %d)", full);
            const int64_t k = S ? ct_tensor_shape(S)[0] : 0; /* U[:, :k] diag(S) Vh[:k] */
            ct_tensor *Uk = NULL, *Vk = NULL;
            CHECK_OK(ct_tensor_narrow(ctx, U, 1, 0, k, &Uk));
            CHECK_OK(ct_tensor_narrow(ctx, Vh, 0, 0, k, &Vk));
            CHECK_OK(ct_cast(ctx, S, CT_COMPLEX128, &Sc));
            CHECK_OK(ct_mul(ctx, Uk, Sc, &US));
            CHECK_OK(ct_matmul(ctx, US, Vk, &USV));
            CHECK_MSG(max_abs_diff(USV, a) < 1e-13, "U S Vh != A (full %d)", full);
            double *sv = S ? tu_read(S) : NULL;
            for (int64_t i = 0; sv && i < k; i++)
                CHECK(sv[i] >= 0 && (i == 0 || sv[i] <= sv[i - 1]));
            free(sv);
            ct_tensor *list[] = {re, im, a, Q, R, QR, U, S, Vh, Sc, US, USV, Uk, Vk};
            for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
                ct_tensor_release(list[i]);
        }
}

/* real -> real pipelines through the complex linear algebra, against central differences */
static ct_status as_cmat(const ct_tensor *x, ct_tensor **a) { /* x (18) -> (3, 3) complex */
    ct_tensor *z = NULL;
    ct_status st = as_complex(x, &z);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, z, 2, (const int64_t[]){3, 3}, a);
    ct_tensor_release(z);
    return st;
}
static ct_status g_linalg(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *t[12] = {NULL};
    ct_status st = as_cmat(x, &t[0]);
    if (st == CT_OK) st = ct_linalg_det(ctx, t[0], &t[1]);
    if (st == CT_OK) st = ct_linalg_inv(ctx, t[0], &t[2]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[0], 1, 0, 2, &t[3]); /* B: 2 columns of A */
    if (st == CT_OK) st = ct_sin(ctx, t[3], &t[4]);
    if (st == CT_OK) st = ct_linalg_solve(ctx, t[0], t[4], &t[5]);
    if (st == CT_OK) st = ct_logdet(ctx, t[0], &t[6]);
    ct_tensor *ex = NULL, *exf = NULL;
    if (st == CT_OK) st = ct_linalg_matrix_exp(ctx, t[0], &ex);
    ct_tensor *sg = NULL, *lad = NULL;
    if (st == CT_OK) st = ct_linalg_slogdet(ctx, t[0], &sg, &lad);
    ct_tensor_release(sg);
    ct_tensor *f[4] = {NULL};
    const ct_tensor *parts[4] = {NULL};
    ct_tensor *src[4] = {t[1], t[2], t[5], t[6]};
    for (int i = 0; i < 4 && st == CT_OK; i++) {
        st = ct_flatten(ctx, src[i], 0, -1, &f[i]);
        parts[i] = f[i];
    }
    if (st == CT_OK) st = ct_flatten(ctx, ex, 0, -1, &exf);
    const ct_tensor *five[5] = {parts[0], parts[1], parts[2], parts[3], exf};
    if (st == CT_OK) st = ct_cat(ctx, 5, five, 0, &t[7]);
    ct_tensor_release(ex), ct_tensor_release(exf);
    if (st == CT_OK) st = ct_view_as_real(ctx, t[7], &t[8]);
    if (st == CT_OK) st = ct_flatten(ctx, t[8], 0, -1, &t[9]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, lad, 1, (const int64_t[]){1}, &t[10]);
    const ct_tensor *two[2] = {t[9], t[10]};
    if (st == CT_OK) st = ct_cat(ctx, 2, two, 0, y);
    ct_tensor_release(lad);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(f[i]);
    for (int i = 0; i < 12; i++)
        ct_tensor_release(t[i]);
    return st;
}

static ct_status g_cholesky(const ct_tensor *x, ct_tensor **y) {
    /* x (18) -> M (3, 3) complex -> H = M M^H + 3 I -> cholesky lower and upper */
    ct_tensor *t[10] = {NULL};
    ct_status st = as_cmat(x, &t[0]);
    if (st == CT_OK) st = ct_adjoint(ctx, t[0], &t[1]);
    if (st == CT_OK) st = ct_matmul(ctx, t[0], t[1], &t[2]);
    if (st == CT_OK) st = ct_tensor_eye(ctx, CT_COMPLEX128, 3, 3, &t[3]);
    if (st == CT_OK) st = ct_add_scaled(ctx, t[2], t[3], 3.0, &t[4]);
    if (st == CT_OK) st = ct_linalg_cholesky(ctx, t[4], false, &t[5]);
    if (st == CT_OK) st = ct_linalg_cholesky(ctx, t[4], true, &t[6]);
    const ct_tensor *two[2] = {t[5], t[6]};
    if (st == CT_OK) st = ct_cat(ctx, 2, two, 0, &t[7]);
    if (st == CT_OK) st = ct_view_as_real(ctx, t[7], &t[8]);
    if (st == CT_OK) st = ct_flatten(ctx, t[8], 0, -1, y);
    for (int i = 0; i < 10; i++)
        ct_tensor_release(t[i]);
    return st;
}

static ct_status g_eigh(const ct_tensor *x, ct_tensor **y) {
    /* x (18) -> M -> H = M + M^H -> eigh: the eigenvalues and |V|^2 (independent of V's phases,
     * as a loss must be) */
    ct_tensor *t[10] = {NULL};
    ct_status st = as_cmat(x, &t[0]);
    if (st == CT_OK) st = ct_adjoint(ctx, t[0], &t[1]);
    if (st == CT_OK) st = ct_add(ctx, t[0], t[1], &t[2]);
    if (st == CT_OK) st = ct_linalg_eigh(ctx, t[2], 'L', &t[3], &t[4]);
    if (st == CT_OK) st = ct_abs(ctx, t[4], &t[5]);
    if (st == CT_OK) st = ct_mul(ctx, t[5], t[5], &t[6]);
    if (st == CT_OK) st = ct_flatten(ctx, t[6], 0, -1, &t[7]);
    const ct_tensor *two[2] = {t[3], t[7]};
    if (st == CT_OK) st = ct_cat(ctx, 2, two, 0, y);
    for (int i = 0; i < 10; i++)
        ct_tensor_release(t[i]);
    return st;
}

TEST(linalg_gradients) {
    unsigned long long rng = 13;
    tu_gradcheck(ctx, &rng, "cholesky of a complex Hermitian matrix", g_cholesky, 1,
                 (const int64_t[]){18});
    tu_gradcheck(ctx, &rng, "eigh of a complex Hermitian matrix (w, |V|^2)", g_eigh, 1,
                 (const int64_t[]){18});
    tu_gradcheck(ctx, &rng, "det / inv / solve / logdet / slogdet / matrix_exp of a complex matrix",
                 g_linalg, 1, (const int64_t[]){18});
}

/* a table argument: complex from the pool's pairs, int64 / bool / real from their real parts */
static ct_tensor *misc_arg(const cm_arg *a) {
    const ct_dtype dt = (ct_dtype)a->dt;
    int64_t n = 1;
    for (int i = 0; i < a->nd; i++)
        n *= a->shape[i];
    ct_tensor *f = NULL, *t = NULL;
    if (ct_dtype_is_complex(dt)) {
        f = cx_tensor(dt, n, cm_pool + a->off);
    } else {
        double *re = malloc(sizeof(double) * (size_t)(n ? n : 1));
        for (int64_t i = 0; i < n; i++)
            re[i] = cm_pool[a->off + i][0];
        f = tu_from_vals(ctx, dt, 1, &n, re);
        free(re);
    }
    CHECK_OK(ct_tensor_reshape(ctx, f, a->nd, a->shape, &t));
    ct_tensor_release(f);
    return t;
}

TEST(other_ops_as_torch) {
    const int nc = (int)(sizeof cm_misc / sizeof cm_misc[0]);
    for (int ci = 0; ci < nc; ci++) {
        const cm_misc_case *c = &cm_misc[ci];
        const char *op = cm_misc_ops[c->op];
        ct_tensor *x[3] = {NULL, NULL, NULL}, *y = NULL;
        for (int i = 0; i < c->n_x; i++)
            x[i] = misc_arg(&c->x[i]);
        const double v = c->sc;
        ct_status st = CT_ERR_INVALID_ARG;
        if (!strcmp(op, "gather")) st = ct_gather(ctx, x[0], 0, x[1], &y);
        if (!strcmp(op, "scatter")) st = ct_scatter(ctx, x[0], 0, x[1], x[2], &y);
        if (!strcmp(op, "scatter_add")) st = ct_scatter_add(ctx, x[0], 0, x[1], x[2], &y);
        if (!strcmp(op, "index_add")) st = ct_index_add(ctx, x[0], 0, x[1], x[2], v, &y);
        if (!strcmp(op, "index_copy")) st = ct_index_copy(ctx, x[0], 1, x[1], x[2], &y);
        if (!strcmp(op, "take_along_dim")) st = ct_take_along_dim(ctx, x[0], x[1], 1, &y);
        if (!strcmp(op, "addmm")) st = ct_addmm(ctx, x[0], x[1], x[2], v, 2.0, &y);
        if (!strcmp(op, "addmv")) st = ct_addmv(ctx, x[0], x[1], x[2], v, 2.0, &y);
        if (!strcmp(op, "tensordot"))
            st = ct_tensordot(ctx, x[0], x[1], 1, (const int[]){1}, (const int[]){1}, &y);
        if (!strcmp(op, "inner")) st = ct_inner(ctx, x[0], x[1], &y);
        if (!strcmp(op, "block_diag")) st = ct_block_diag(ctx, 2, (const ct_tensor *const *)x, &y);
        if (!strcmp(op, "trapezoid")) st = ct_trapezoid(ctx, x[0], v, 1, &y);
        if (!strcmp(op, "addcmul")) st = ct_addcmul(ctx, x[0], x[1], x[2], v, &y);
        if (!strcmp(op, "addcdiv")) st = ct_addcdiv(ctx, x[0], x[1], x[2], v, &y);
        if (!strcmp(op, "cross")) st = ct_linalg_cross(ctx, x[0], x[1], -1, &y);
        if (!strcmp(op, "logical_and")) st = ct_logical_and(ctx, x[0], x[1], &y);
        if (!strcmp(op, "logical_not")) st = ct_logical_not(ctx, x[0], &y);
        if (!strcmp(op, "nan_to_num"))
            st = ct_nan_to_num(ctx, x[0], &(double){7}, &(double){8}, &(double){-9}, &y);
        if (!strcmp(op, "add_") || !strcmp(op, "mul_")) {
            st = ct_tensor_clone(ctx, x[0], &y);
            if (st == CT_OK) st = op[0] == 'a' ? ct_add_(ctx, y, x[1]) : ct_mul_(ctx, y, x[1]);
        }
        if (!strcmp(op, "diff")) st = ct_diff(ctx, x[0], 1, 1, NULL, NULL, &y);
        if (!strcmp(op, "rot90")) st = ct_rot90(ctx, x[0], 1, 0, 1, &y);
        if (!strcmp(op, "repeat_interleave")) st = ct_repeat_interleave(ctx, x[0], 2, 0, &y);
        if (!strcmp(op, "masked_scatter")) st = ct_masked_scatter(ctx, x[0], x[1], x[2], &y);
        if (!strcmp(op, "index_fill")) st = ct_index_fill(ctx, x[0], 0, x[1], v, &y);
        if (!strcmp(op, "cumulative_trapezoid")) st = ct_cumulative_trapezoid(ctx, x[0], v, 1, &y);
        if (!strcmp(op, "kron")) st = ct_kron(ctx, x[0], x[1], &y);
        if (!strcmp(op, "mv")) st = ct_mv(ctx, x[0], x[1], &y);
        if (!strcmp(op, "pow_tensor") || !strcmp(op, "pow_real_base"))
            st = ct_pow_tensor(ctx, x[0], x[1], &y);
        if (!strcmp(op, "float_power")) st = ct_float_power(ctx, x[0], x[1], &y);
        if (!strcmp(op, "baddbmm")) st = ct_baddbmm(ctx, x[0], x[1], x[2], v, 2.0, &y);
        if (!strcmp(op, "multi_dot"))
            st = ct_linalg_multi_dot(ctx, 3, (const ct_tensor *const *)x, &y);
        if (!strcmp(op, "float_power_scalar")) st = ct_float_power_scalar(ctx, x[0], v, &y);
        if (!strcmp(op, "einsum"))
            st = ct_einsum(ctx, "ij,kj->ik", 2, (const ct_tensor *const *)x, &y);
        const char *dn = ct_dtype_name((ct_dtype)c->x[0].dt);
        CHECK_MSG(st == CT_OK, "%s (%s): %s", op, dn, ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            const cm_arg *o = &c->out;
            CHECK_MSG(ct_tensor_dtype(y) == (ct_dtype)o->dt, "%s (%s): dtype %s", op, dn,
                      ct_dtype_name(ct_tensor_dtype(y)));
            CHECK_MSG(tu_same_shape(y, o->nd, o->shape), "%s (%s): shape", op, dn);
            const int64_t n = ct_tensor_numel(y);
            double *got = pairs_of(y, n);
            const double tol = c->x[0].dt == CT_COMPLEX64 ? 1e-5 : 1e-13;
            for (int64_t i = 0; i < n; i++) {
                const double *ref = cm_pool[o->off + i];
                const double e = hypot(got[2 * i] - ref[0], got[2 * i + 1] - ref[1]);
                CHECK_MSG(e <= tol * fmax(1, hypot(ref[0], ref[1])),
                          "%s (%s) [%lld]: %.17g%+.17gi, torch %.17g%+.17gi", op, dn, (long long)i,
                          got[2 * i], got[2 * i + 1], ref[0], ref[1]);
            }
            free(got);
        }
        for (int i = 0; i < 3; i++)
            ct_tensor_release(x[i]);
        ct_tensor_release(y);
    }
}

/* complex linear algebra and the new elementwise ops captured once and replayed on new data:
 * solve(A, B), inv(A) and sin(A) against their eager values on the second input */
TEST(capture_replay) {
    const int64_t sh[2] = {3, 3};
    ct_tensor *r1 = NULL, *i1 = NULL, *a = NULL, *x = NULL, *ai = NULL, *sa = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, sh, 71, 0, &r1));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, sh, 72, 0, &i1));
    CHECK_OK(ct_complex(ctx, r1, i1, &a));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_linalg_solve(ctx, a, a, &x)); /* the identity, any A */
    CHECK_OK(ct_linalg_inv(ctx, a, &ai));
    CHECK_OK(ct_sin(ctx, a, &sa));
    CHECK_OK(ct_graph_capture_end(g));
    ct_tensor *r2 = NULL, *i2 = NULL, *a2 = NULL, *ai2 = NULL, *sa2 = NULL, *e64 = NULL, *e = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, sh, 73, 0, &r2));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, sh, 74, 0, &i2));
    CHECK_OK(ct_complex(ctx, r2, i2, &a2));
    CHECK_OK(ct_tensor_copy_(ctx, a, a2));
    CHECK_OK(ct_graph_replay(g));
    CHECK_OK(ct_linalg_inv(ctx, a2, &ai2));
    CHECK_OK(ct_sin(ctx, a2, &sa2));
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, 3, 3, &e64));
    CHECK_OK(ct_cast(ctx, e64, CT_COMPLEX128, &e));
    CHECK(max_abs_diff(x, e) < 1e-13 && max_abs_diff(ai, ai2) == 0 && max_abs_diff(sa, sa2) == 0);
    ct_graph_free(g);
    ct_tensor *tl[] = {r1, i1, a, x, ai, sa, r2, i2, a2, ai2, sa2, e64, e};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

/* the findings of a differential review against torch 1.13 (each once wrong here) */
static double *grad_of(ct_dtype dt, const double (*z)[2], cm_fn f, const double (*w)[2]) {
    ct_tensor *x = cx_tensor(dt, 1, z), *wt = cx_tensor(dt, 1, w), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(f(ctx, x, &y));
    CHECK_OK(ct_backward(ctx, y, wt, false));
    double *g = ct_tensor_grad(x) ? cx_read(ct_tensor_grad(x), 1) : NULL;
    ct_tensor_release(x), ct_tensor_release(wt), ct_tensor_release(y);
    return g;
}
TEST(review_regressions) {
    const double one[1][2] = {{1, 0}};
    /* gradients where cosh / cos / exp overflow: about 0, not NaN */
    struct {
        ct_dtype dt;
        double z[1][2];
        cm_fn f;
    } ov[] = {{CT_COMPLEX64, {{100, 1}}, ct_tanh},
              {CT_COMPLEX128, {{800, 1}}, ct_tanh},
              {CT_COMPLEX64, {{1, 100}}, ct_tan},
              {CT_COMPLEX64, {{100, 1}}, ct_sigmoid},
              {CT_COMPLEX128, {{-800, 3}}, ct_sigmoid}};
    for (size_t i = 0; i < sizeof ov / sizeof ov[0]; i++) {
        double *g = grad_of(ov[i].dt, ov[i].z, ov[i].f, one);
        CHECK_MSG(g && isfinite(g[0]) && isfinite(g[1]) && fabs(g[0]) < 1e-30 && fabs(g[1]) < 1e-30,
                  "overflowing derivative %zu: %g%+gi", i, g ? g[0] : NAN, g ? g[1] : NAN);
        free(g);
    }
    /* division near the overflow threshold by a small divisor stays finite; 1 / inf is 0 */
    const double num[2][2] = {{1e308, 1}, {INFINITY, 1}},
                 den[2][2] = {{0.5, 0.5}, {-INFINITY, -0.888}};
    ct_tensor *a = cx_tensor(CT_COMPLEX128, 2, num), *b = cx_tensor(CT_COMPLEX128, 2, den),
              *q = NULL;
    ct_tensor *r = NULL, *rr = NULL;
    CHECK_OK(ct_div(ctx, a, b, &q));
    CHECK_OK(ct_reciprocal(ctx, b, &r));
    double *qv = q ? cx_read(q, 2) : NULL, *rv = r ? cx_read(r, 2) : NULL;
    CHECK(qv && fabs(qv[0] / 1e308 - 1) < 1e-15 && fabs(qv[1] / 1e308 + 1) < 1e-15);
    CHECK(rv && rv[2] == 0 && rv[3] == 0); /* 1 / (-inf - 0.888i) */
    free(qv), free(rv);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(q), ct_tensor_release(r);
    /* addcmul / addcdiv compute in the promoted dtype (float64 self, complex64 factors) */
    const int64_t n1 = 1;
    ct_tensor *s0 = tu_from_vals(ctx, CT_FLOAT64, 1, &n1, (const double[]){0});
    ct_tensor *t1 = cx_tensor(CT_COMPLEX64, 1, (const double[][2]){{1.1, 0}});
    ct_tensor *t2 = cx_tensor(CT_COMPLEX64, 1, (const double[][2]){{3.3, 0}});
    CHECK_OK(ct_addcmul(ctx, s0, t1, t2, 1.0, &rr));
    double *av = rr ? cx_read(rr, 1) : NULL;
    CHECK(rr && ct_tensor_dtype(rr) == CT_COMPLEX128);
    CHECK(av && av[0] == (double)1.1f * (double)3.3f);
    free(av);
    ct_tensor_release(rr), rr = NULL;
    CHECK_OK(ct_addcdiv(ctx, s0, t1, t2, 1.0, &rr));
    av = rr ? cx_read(rr, 1) : NULL;
    CHECK(av && av[0] == (double)1.1f / (double)3.3f);
    free(av);
    ct_tensor_release(rr), rr = NULL;
    /* logical ops in the promoted dtype: 1e-307 is 0 in complex64 */
    ct_tensor *tiny = tu_from_vals(ctx, CT_FLOAT64, 0, NULL, (const double[]){1e-307}), *lx = NULL;
    CHECK_OK(ct_logical_xor(ctx, tiny, t1, &lx));
    uint8_t lv = 0;
    CHECK(lx && ct_tensor_to_host(lx, &lv, 1) == CT_OK && lv == 1);
    ct_tensor_release(tiny), ct_tensor_release(lx);
    ct_tensor_release(s0), ct_tensor_release(t1), ct_tensor_release(t2);
    /* matrix_power(A, 0) of a complex batch: identities; cumsum of a 0-d complex tensor */
    const int64_t s233[3] = {2, 3, 3};
    ct_tensor *re = NULL, *cm = NULL, *id = NULL, *e64 = NULL, *e = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, s233, 5, 0, &re));
    CHECK_OK(ct_cast(ctx, re, CT_COMPLEX128, &cm));
    CHECK_OK(ct_linalg_matrix_power(ctx, cm, 0, &id));
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, 3, 3, &e64));
    CHECK_OK(ct_cast(ctx, e64, CT_COMPLEX128, &e));
    CHECK(id && max_abs_diff(id, e) == 0 && ct_tensor_ndim(id) == 3);
    ct_tensor_release(re), ct_tensor_release(cm), ct_tensor_release(id);
    ct_tensor_release(e64), ct_tensor_release(e);
    ct_tensor *z0 = NULL, *cs = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_COMPLEX64, 0, NULL, 2.5, &z0));
    CHECK_OK(ct_cumsum(ctx, z0, -1, &cs));
    CHECK(cs && ct_tensor_ndim(cs) == 0);
    ct_tensor_release(z0), ct_tensor_release(cs);
    /* the product over an empty dim stays on the graph */
    ct_tensor *ze = NULL, *pe = NULL, *se = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_COMPLEX128, 2, (const int64_t[]){2, 0}, &ze));
    CHECK_OK(ct_tensor_set_requires_grad(ze, true));
    CHECK_OK(ct_prod(ctx, ze, 1, false, &pe));
    CHECK(pe && ct_tensor_requires_grad(pe));
    CHECK_OK(ct_sum(ctx, pe, 0, NULL, false, &se));
    ct_tensor *sr = NULL;
    CHECK_OK(ct_real(ctx, se, &sr));
    CHECK_OK(ct_backward(ctx, sr, NULL, false));
    CHECK(ct_tensor_grad(ze) && ct_tensor_numel(ct_tensor_grad(ze)) == 0);
    ct_tensor_release(ze), ct_tensor_release(pe), ct_tensor_release(se), ct_tensor_release(sr);
    /* pow(z, -0.5) is rsqrt(z), as torch */
    const double zz[2][2] = {{3, 1e307}, {0, 0}};
    ct_tensor *zt = cx_tensor(CT_COMPLEX128, 2, zz), *p5 = NULL, *rs = NULL;
    CHECK_OK(ct_pow(ctx, zt, -0.5, &p5));
    CHECK_OK(ct_rsqrt(ctx, zt, &rs));
    double *pv = p5 ? cx_read(p5, 2) : NULL, *sv = rs ? cx_read(rs, 2) : NULL;
    CHECK(pv && sv && pv[0] == sv[0] && pv[1] == sv[1] && isnan(pv[2]) && isnan(pv[3]));
    free(pv), free(sv);
    ct_tensor_release(zt), ct_tensor_release(p5), ct_tensor_release(rs);
    /* a second review (linear algebra): empty complex batches have info 0 (it was never
     * written), the logdet of a singular complex matrix is -inf + NaN i (torch's), a singular A
     * with no right-hand side still fails, a bad uplo is named */
    for (int rep = 0; rep < 2; rep++) { /* the first call leaves data in the cache */
        ct_tensor *ones = NULL, *z00 = NULL, *ew = NULL, *ev = NULL, *ei = NULL;
        CHECK_OK(ct_tensor_full(ctx, CT_COMPLEX128, 4, (const int64_t[]){2, 3, 4, 4}, 1.0, &ones));
        CHECK_OK(ct_linalg_eigh_ex(ctx, ones, 'L', &ew, &ev, &ei));
        ct_tensor_release(ew), ct_tensor_release(ev), ct_tensor_release(ei), ew = ev = ei = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_COMPLEX128, 4, (const int64_t[]){2, 3, 0, 0}, &z00));
        CHECK_OK(ct_linalg_eigh_ex(ctx, z00, 'L', &ew, &ev, &ei));
        int32_t inf6[6] = {9, 9, 9, 9, 9, 9};
        CHECK(ei && ct_tensor_to_host(ei, inf6, sizeof inf6) == CT_OK);
        for (int i = 0; i < 6; i++)
            CHECK(inf6[i] == 0);
        ct_tensor_release(ew), ct_tensor_release(ev), ct_tensor_release(ei), ew = ev = NULL;
        CHECK_OK(ct_linalg_eig(ctx, z00, &ew, &ev));
        ct_tensor_release(ones), ct_tensor_release(z00), ct_tensor_release(ew);
        ct_tensor_release(ev);
    }
    const double singm[4][2] = {{1, 1}, {0, 0}, {2, -1}, {0, 0}};
    ct_tensor *sm = cx_shaped(CT_COMPLEX128, 2, (const int64_t[]){2, 2}, singm), *ld = NULL;
    CHECK_OK(ct_logdet(ctx, sm, &ld));
    double *ldv = ld ? cx_read(ld, 1) : NULL;
    CHECK(ldv && ldv[0] == -INFINITY && isnan(ldv[1]));
    free(ldv);
    ct_tensor *b0 = NULL, *x0 = NULL, *zr = NULL, *zb = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_COMPLEX128, 2, (const int64_t[]){2, 0}, &b0));
    CHECK(ct_linalg_solve(ctx, sm, b0, &x0) == CT_ERR_INVALID_ARG && x0 == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "singular") != NULL);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, (const int64_t[]){3, 3}, &zr));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, (const int64_t[]){3, 0}, &zb));
    CHECK(ct_linalg_solve(ctx, zr, zb, &x0) == CT_ERR_INVALID_ARG && x0 == NULL);
    ct_tensor *ew2 = NULL, *ev2 = NULL;
    CHECK(ct_linalg_eigh(ctx, sm, 'X', &ew2, &ev2) == CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "got 'X'") != NULL);
    ct_tensor_release(sm), ct_tensor_release(ld), ct_tensor_release(b0), ct_tensor_release(zr);
    ct_tensor_release(zb);
    /* (real) solve_ex's info has A's batch dims, not the broadcast ones (torch) */
    ct_tensor *a3 = NULL, *b3 = NULL, *x3 = NULL, *i3 = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 4, (const int64_t[]){3, 1, 2, 2}, 1, 0, &a3));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, (const int64_t[]){4, 2, 2}, 2, 0, &b3));
    CHECK_OK(ct_linalg_solve_ex(ctx, a3, b3, &x3, &i3));
    CHECK(i3 && tu_same_shape(i3, 2, (const int64_t[]){3, 1}));
    CHECK(x3 && tu_same_shape(x3, 4, (const int64_t[]){3, 4, 2, 2}));
    ct_tensor_release(a3), ct_tensor_release(b3), ct_tensor_release(x3), ct_tensor_release(i3);
    /* sgn of a subnormal value keeps its precision (1 / sqrt 2 here, 0.714 unscaled) */
    const double sub[1][2] = {{5e-323, 5e-323}};
    ct_tensor *st_ = cx_tensor(CT_COMPLEX128, 1, sub), *sg = NULL;
    CHECK_OK(ct_sgn(ctx, st_, &sg));
    double *sgv = sg ? cx_read(sg, 1) : NULL;
    CHECK(sgv && fabs(sgv[0] - M_SQRT1_2) < 1e-15 && fabs(sgv[1] - M_SQRT1_2) < 1e-15);
    free(sgv);
    ct_tensor_release(st_), ct_tensor_release(sg);
    /* sgn's gradient where w is nearly parallel to sgn(z) (mpmath's value) */
    const double zs[1][2] = {{88.33653330549245, 0.05402192241110981}};
    const double ws[1][2] = {{-0.8165654097389545, -2.133229129542781e-05}};
    double *g = grad_of(CT_COMPLEX128, zs, ct_sgn, ws);
    CHECK_MSG(g && fabs(g[0] / -3.3094008792082545e-09 - 1) < 1e-13, "sgn' %.17g", g ? g[0] : NAN);
    free(g);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(functions_as_mpmath);
    RUN(gradients_as_mpmath);
    RUN(pipelines_against_differences);
    RUN(reductions_as_torch);
    RUN(bool_of_complex);
    RUN(reduction_gradients);
    RUN(linalg_as_torch);
    RUN(linalg_gradients);
    RUN(qr_svd_identities);
    RUN(eigh_identities);
    RUN(other_ops_as_torch);
    RUN(review_regressions);
    RUN(capture_replay);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* prod, cumsum, cumprod, var, std, logsumexp and norm against naive long-double loops over the
 * same values: every dim, keepdim, strided views, 0-d and zero-size inputs, integer and 16-bit
 * dtypes (result dtypes as torch 1.13), special values, errors; gradients of cumsum, var, std,
 * logsumexp and norm against central differences; capture and replay. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 12345;

/* Index helpers over a C-order shape. */
static int64_t numel_of(int nd, const int64_t *s) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= s[i];
    return n;
}

enum { R_PROD, R_VAR, R_STD, R_LSE, R_NORM };
/* Reference over `mask` dims (keepdim layout result) in long double. */
static void ref_reduce(int kind, const double *x, int nd, const int64_t *shape, uint32_t mask,
                       double param, long double *out) {
    int64_t ks[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        ks[d] = (mask >> d & 1u) ? 1 : shape[d];
    int64_t nk = numel_of(nd, ks), n = numel_of(nd, shape);
    for (int64_t o = 0; o < nk; o++) {
        int64_t oi[CT_MAX_DIMS];
        tu_unravel(o, nd, ks, oi);
        /* members of this output */
        long double acc = kind == R_PROD ? 1 : 0, mean = 0, mx = -INFINITY;
        int64_t cnt = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int64_t i = 0; i < n; i++) {
                int64_t ii[CT_MAX_DIMS];
                tu_unravel(i, nd, shape, ii);
                bool mine = true;
                for (int d = 0; d < nd && mine; d++)
                    mine = (mask >> d & 1u) || ii[d] == oi[d];
                if (!mine) continue;
                long double v = x[i];
                if (pass == 0) {
                    cnt++;
                    mean += v;
                    if (v > mx) mx = v;
                    if (kind == R_PROD) acc *= v;
                    if (kind == R_NORM) {
                        long double a = fabsl(v);
                        if (param == 2) acc += a * a;
                        if (param == 1) acc += a;
                        if (param == INFINITY && a > acc) acc = a;
                        if (param == 0) acc += v != 0;
                        if (param == 3) acc += a * a * a;
                    }
                } else if (kind == R_VAR || kind == R_STD) {
                    long double dv = v - mean / (long double)cnt;
                    acc += dv * dv;
                } else if (kind == R_LSE) {
                    acc += expl(v - (isinf(mx) ? 0 : mx));
                }
            }
        if (kind == R_VAR || kind == R_STD) {
            long double den = (long double)cnt - param > 0 ? (long double)cnt - param : 0;
            acc = acc / den;
            if (kind == R_STD) acc = sqrtl(acc);
        } else if (kind == R_LSE) {
            acc = logl(acc) + (isinf(mx) ? 0 : mx);
        } else if (kind == R_NORM) {
            if (param == 2) acc = sqrtl(acc);
            if (param == 3) acc = cbrtl(acc);
        }
        out[o] = acc;
    }
}

static bool close_rel(double got, long double want, double rtol, double atol) {
    if (isnan((double)want)) return isnan(got);
    if (isinf((double)want)) return got == (double)want;
    return fabsl((long double)got - want) <= atol + rtol * fabsl(want);
}

static ct_status call(int kind, const ct_tensor *a, int nd_red, const int *dims, double param,
                      bool keep, ct_tensor **out) {
    switch (kind) {
    case R_VAR: return ct_var(ctx, a, nd_red, dims, param, keep, out);
    case R_STD: return ct_std(ctx, a, nd_red, dims, param, keep, out);
    case R_LSE: return ct_logsumexp(ctx, a, nd_red, dims, keep, out);
    default: return ct_norm(ctx, a, param, nd_red, dims, keep, out);
    }
}

TEST(composites_against_long_double) {
    int64_t shape[3] = {4, 7, 5};
    const int kinds[4] = {R_VAR, R_STD, R_LSE, R_NORM};
    const double params[4][4] = {{1, 0, 2, 1}, {1, 0, 1, 1}, {0, 0, 0, 0}, {2, 1, INFINITY, 3}};
    ct_dtype dts[3] = {CT_FLOAT32, CT_FLOAT64, CT_BFLOAT16};
    for (int di = 0; di < 3; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int ki = 0; ki < 4; ki++)
                for (int pi = 0; pi < 4; pi++)
                    for (int dsel = 0; dsel < 5; dsel++) {
                        double *v;
                        ct_tensor *a = tu_make(ctx, &rng, dts[di], 3, shape, mode, -3, 3, &v);
                        int dims[2], nr;
                        uint32_t mask;
                        switch (dsel) {
                        case 0: nr = 0, mask = 7; break;               /* all */
                        case 1: nr = 1, dims[0] = 0, mask = 1; break;  /* dim 0 */
                        case 2: nr = 1, dims[0] = -1, mask = 4; break; /* last */
                        case 3: nr = 2, dims[0] = 0, dims[1] = 2, mask = 5; break;
                        default: nr = 1, dims[0] = 1, mask = 2; break;
                        }
                        bool keep = (dsel + pi) % 2;
                        double prm = params[ki][pi];
                        ct_tensor *r = NULL;
                        CHECK_OK(call(kinds[ki], a, nr, dims, prm, keep, &r));
                        long double want[64];
                        ref_reduce(kinds[ki], v, 3, shape, mask, prm, want);
                        int64_t ks[3];
                        for (int d = 0; d < 3; d++)
                            ks[d] = (mask >> d & 1u) ? 1 : shape[d];
                        CHECK(r && ct_tensor_dtype(r) == dts[di]);
                        CHECK(r && ct_tensor_ndim(r) == (keep ? 3 : 3 - __builtin_popcount(mask)));
                        double *g = r ? tu_read(r) : NULL;
                        double rtol = dts[di] == CT_FLOAT64   ? 1e-13
                                      : dts[di] == CT_FLOAT32 ? 2e-6
                                                              : 8e-3;
                        for (int64_t i = 0; g && i < numel_of(3, ks); i++)
                            CHECK_MSG(close_rel(g[i], want[i], rtol, rtol),
                                      "kind %d p=%g %s mode %d dims %d: [%lld] got %.17g want "
                                      "%.17Lg",
                                      kinds[ki], prm, ct_dtype_name(dts[di]), mode, dsel,
                                      (long long)i, g[i], want[i]);
                        free(g), free(v);
                        ct_tensor_release(a), ct_tensor_release(r);
                    }
}

TEST(composite_special_values) {
    /* logsumexp with inf, -inf rows and an empty reduction; var of one element; huge f32 norm */
    float x[6] = {INFINITY, 1, -INFINITY, -INFINITY, NAN, 2};
    int64_t s[2] = {3, 2};
    ct_tensor *a, *r;
    CHECK_OK(ct_tensor_from_host(ctx, x, CT_FLOAT32, 2, s, &a));
    int d1 = 1;
    CHECK_OK(ct_logsumexp(ctx, a, 1, &d1, false, &r));
    float o[3];
    CHECK_OK(ct_tensor_to_host(r, o, sizeof o));
    CHECK(o[0] == INFINITY && o[1] == -INFINITY && isnan(o[2]));
    ct_tensor_release(r), ct_tensor_release(a);
    int64_t e[2] = {0, 3};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, e, &a));
    int d0 = 0;
    CHECK_OK(ct_logsumexp(ctx, a, 1, &d0, false, &r));
    float o3[3];
    CHECK(ct_tensor_numel(r) == 3);
    CHECK_OK(ct_tensor_to_host(r, o3, sizeof o3));
    CHECK(o3[0] == -INFINITY && o3[2] == -INFINITY);
    ct_tensor_release(r);
    CHECK_OK(ct_norm(ctx, a, 2, 1, &d0, false, &r)); /* empty sum of squares: 0 */
    CHECK_OK(ct_tensor_to_host(r, o3, sizeof o3));
    CHECK(o3[0] == 0 && o3[1] == 0);
    ct_tensor_release(r), ct_tensor_release(a);
    float one = 5;
    CHECK_OK(ct_tensor_from_host(ctx, &one, CT_FLOAT32, 0, NULL, &a));
    CHECK_OK(ct_var(ctx, a, 0, NULL, 1, false, &r)); /* N - correction = 0: 0/0 */
    CHECK_OK(ct_tensor_to_host(r, o, 4));
    CHECK(isnan(o[0]));
    ct_tensor_release(r);
    CHECK_OK(ct_var(ctx, a, 0, NULL, 0, false, &r));
    CHECK_OK(ct_tensor_to_host(r, o, 4));
    CHECK(o[0] == 0);
    ct_tensor_release(r), ct_tensor_release(a);
    float big[2] = {3e20f, 4e20f};
    int64_t two = 2;
    CHECK_OK(ct_tensor_from_host(ctx, big, CT_FLOAT32, 1, &two, &a));
    CHECK_OK(ct_norm(ctx, a, 2, 0, NULL, false, &r)); /* torch gives inf (f32 squares) */
    CHECK_OK(ct_tensor_to_host(r, o, 4));
    CHECK_MSG(o[0] == 5e20f, "got %g", o[0]);
    ct_tensor_release(r), ct_tensor_release(a);
    /* integer logsumexp computes in float32; integer var is an error */
    int32_t iv[3] = {1, 2, 3};
    int64_t three = 3;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 1, &three, &a));
    CHECK_OK(ct_logsumexp(ctx, a, 0, NULL, false, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    CHECK_OK(ct_tensor_to_host(r, o, 4));
    CHECK(fabs(o[0] - (float)log(exp(1.0) + exp(2.0) + exp(3.0))) < 1e-6);
    ct_tensor_release(r);
    CHECK_ST(ct_var(ctx, a, 0, NULL, 1, false, &r), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "var: floating input required") != NULL);
    CHECK_ST(ct_norm(ctx, a, 2, 0, NULL, false, &r), CT_ERR_DTYPE);
    int bad = 3;
    CHECK_ST(ct_std(ctx, a, 1, &bad, 1, false, &r), CT_ERR_DTYPE);
    ct_tensor_release(a);
    CHECK_OK(ct_tensor_from_host(ctx, big, CT_FLOAT32, 1, &two, &a));
    CHECK_ST(ct_std(ctx, a, 1, &bad, 1, false, &r), CT_ERR_INDEX);
    CHECK_ST(ct_norm(ctx, a, NAN, 0, NULL, false, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(a);
}

/* prod / cumsum / cumprod against naive loops: every dim, dtypes and result dtypes */
TEST(prod_and_scans) {
    int64_t shape[3] = {3, 4, 5};
    ct_dtype dts[6] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_UINT8, CT_BOOL, CT_FLOAT16};
    for (int di = 0; di < 6; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -1; dim < 3; dim++) {
                ct_dtype dt = dts[di];
                double *v;
                ct_tensor *a = tu_make(ctx, &rng, dt, 3, shape, mode, -2, 3, &v);
                ct_dtype want_dt = ct_dtype_is_floating(dt) ? dt : CT_INT64;
                int d = dim < 0 ? 2 : dim;
                /* scans */
                for (int prod = 0; prod < 2; prod++) {
                    ct_tensor *r = NULL;
                    CHECK_OK(prod ? ct_cumprod(ctx, a, dim, &r) : ct_cumsum(ctx, a, dim, &r));
                    CHECK(r && ct_tensor_dtype(r) == want_dt && tu_same_shape(r, 3, shape));
                    double *g = r ? tu_read(r) : NULL;
                    for (int64_t i = 0; g && i < 60; i++) {
                        int64_t ii[3];
                        tu_unravel(i, 3, shape, ii);
                        long double acc = prod;
                        for (int64_t k = 0; k <= ii[d]; k++) {
                            int64_t jj[3] = {ii[0], ii[1], ii[2]};
                            jj[d] = k;
                            long double x = v[tu_ravel(3, shape, jj)];
                            /* the documented running double sum (exact below f64) */
                            acc = prod ? acc * x : (long double)((double)acc + (double)x);
                        }
                        double want = dt == CT_FLOAT16   ? ct_f16_to_f32(ct_f32_to_f16((float)acc))
                                      : dt == CT_FLOAT32 ? (double)(float)acc
                                      : dt == CT_FLOAT64 ? (double)acc
                                                         : (double)(int64_t)acc; /* no -0 */
                        /* products round differently in double (kernel) and long double */
                        double ptol = dt == CT_FLOAT64 ? 1e-15 : dt == CT_FLOAT32 ? 1e-7 : 1e-3;
                        CHECK_MSG(tu_same_val(g[i], want) || (prod && ct_dtype_is_floating(dt) &&
                                                              close_rel(g[i], acc, ptol, 0)),
                                  "%s %s mode %d dim %d [%lld]: got %.17g want %.17g",
                                  prod ? "cumprod" : "cumsum", ct_dtype_name(dt), mode, dim,
                                  (long long)i, g[i], want);
                    }
                    free(g);
                    ct_tensor_release(r);
                }
                /* prod over dim and over everything */
                for (int all = 0; all < 2; all++) {
                    ct_tensor *r = NULL;
                    CHECK_OK(ct_prod(ctx, a, all ? CT_ALL_DIMS : dim, all == 0, &r));
                    CHECK(r && ct_tensor_dtype(r) == want_dt);
                    long double want[64];
                    ref_reduce(R_PROD, v, 3, shape, all ? 7u : 1u << d, 0, want);
                    double *g = r ? tu_read(r) : NULL;
                    int64_t nk = all ? 1 : 60 / shape[d];
                    CHECK(r && ct_tensor_numel(r) == nk && ct_tensor_ndim(r) == (all ? 0 : 3));
                    for (int64_t i = 0; g && i < nk; i++) {
                        double w = dt == CT_FLOAT16   ? ct_f16_to_f32(ct_f32_to_f16((float)want[i]))
                                   : dt == CT_FLOAT32 ? (double)(float)want[i]
                                   : dt == CT_FLOAT64 ? (double)want[i]
                                                      : (double)(int64_t)want[i];
                        double ptol = dt == CT_FLOAT64 ? 1e-15 : dt == CT_FLOAT32 ? 1e-7 : 1e-3;
                        CHECK_MSG(tu_same_val(g[i], w) || (ct_dtype_is_floating(dt) &&
                                                           close_rel(g[i], want[i], ptol, 0)),
                                  "prod %s all=%d [%lld] got %.17g want %.17g", ct_dtype_name(dt),
                                  all, (long long)i, g[i], w);
                    }
                    free(g);
                    ct_tensor_release(r);
                }
                free(v);
                ct_tensor_release(a);
            }
    /* 0-d, empty, errors */
    float five = 5;
    ct_tensor *a, *r;
    CHECK_OK(ct_tensor_from_host(ctx, &five, CT_FLOAT32, 0, NULL, &a));
    CHECK_OK(ct_cumsum(ctx, a, 0, &r));
    CHECK(ct_tensor_ndim(r) == 0);
    float o;
    CHECK_OK(ct_tensor_to_host(r, &o, 4));
    CHECK(o == 5);
    ct_tensor_release(r);
    CHECK_ST(ct_cumsum(ctx, a, 1, &r), CT_ERR_INDEX);
    ct_tensor_release(a);
    int64_t e[2] = {0, 3};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, e, &a));
    CHECK_OK(ct_prod(ctx, a, 0, false, &r));
    float ones[3];
    CHECK_OK(ct_tensor_to_host(r, ones, sizeof ones));
    CHECK(ones[0] == 1 && ones[2] == 1);
    ct_tensor_release(r);
    CHECK_OK(ct_cumprod(ctx, a, 0, &r));
    CHECK(ct_tensor_numel(r) == 0);
    ct_tensor_release(r);
    CHECK_ST(ct_prod(ctx, a, 5, false, &r), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "prod: dim 5 out of range") != NULL);
    ct_tensor_release(a);
    /* int64 wraps as torch */
    int64_t big[2] = {INT64_C(1) << 62, 4};
    int64_t two = 2;
    CHECK_OK(ct_tensor_from_host(ctx, big, CT_INT64, 1, &two, &a));
    CHECK_OK(ct_prod(ctx, a, CT_ALL_DIMS, false, &r));
    int64_t p;
    CHECK_OK(ct_tensor_to_host(r, &p, 8));
    CHECK(p == 0);
    ct_tensor_release(r), ct_tensor_release(a);
}

/* d/dx of sum(w * f(x)) against central differences in f64 */
static ct_status f_cumsum(const ct_tensor *x, ct_tensor **y) { return ct_cumsum(ctx, x, 1, y); }
static ct_status f_var(const ct_tensor *x, ct_tensor **y) {
    int d = 1;
    return ct_var(ctx, x, 1, &d, 1, false, y);
}
static ct_status f_std(const ct_tensor *x, ct_tensor **y) {
    return ct_std(ctx, x, 0, NULL, 0, true, y);
}
static ct_status f_lse(const ct_tensor *x, ct_tensor **y) {
    int d = 0;
    return ct_logsumexp(ctx, x, 1, &d, false, y);
}
static ct_status f_norm2(const ct_tensor *x, ct_tensor **y) {
    int d = 1;
    return ct_norm(ctx, x, 2, 1, &d, false, y);
}
static ct_status f_norm3(const ct_tensor *x, ct_tensor **y) {
    return ct_norm(ctx, x, 3, 0, NULL, false, y);
}

static ct_status f_prod1(const ct_tensor *x, ct_tensor **y) { return ct_prod(ctx, x, 1, false, y); }
static ct_status f_cumprod(const ct_tensor *x, ct_tensor **y) { return ct_cumprod(ctx, x, 0, y); }
static ct_status f_prod0k(const ct_tensor *x, ct_tensor **y) {
    return ct_prod(ctx, x, -2, true, y);
}
static ct_status f_prodall(const ct_tensor *x, ct_tensor **y) {
    return ct_prod(ctx, x, CT_ALL_DIMS, false, y);
}

TEST(gradients) {
    tu_fn1 fs[9] = {f_cumsum, f_var, f_std, f_lse, f_norm2, f_norm3, f_prod1, f_prod0k, f_prodall};
    const char *names[9] = {"cumsum",  "var",   "std",        "logsumexp",
                            "norm2",   "norm3", "prod dim 1", "prod dim -2 keepdim",
                            "prod all"};
    int64_t shape[2] = {3, 4};
    for (int k = 0; k < 9; k++)
        tu_gradcheck(ctx, &rng, names[k], fs[k], 2, shape);
    tu_gradcheck(ctx, &rng, "cumprod", f_cumprod, 2, shape);
    /* prod with zeros: the exclusive products give the exact gradient (out / x would be nan) */
    double xv[5] = {2, 0, 3, 4, 0.5};
    int64_t five = 5;
    ct_tensor *x = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, 1, &five, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_prod(ctx, x, 0, false, &r));
    CHECK_OK(ct_backward(ctx, r, NULL, false));
    double g[5];
    CHECK_OK(ct_tensor_to_host(ct_tensor_grad(x), g, sizeof g));
    CHECK(g[0] == 0 && g[1] == 12 && g[2] == 0 && g[3] == 0 && g[4] == 0);
    ct_tensor_release(r);
    ct_tensor_release(x);
    /* cumprod with zeros: d/dx sum(cumprod([2, 0, 3, 0.5])) = [1, 11, 0, 0] exactly */
    double cv[4] = {2, 0, 3, 0.5};
    int64_t four = 4;
    CHECK_OK(ct_tensor_from_host(ctx, cv, CT_FLOAT64, 1, &four, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    ct_tensor *s = NULL;
    CHECK_OK(ct_cumprod(ctx, x, 0, &r));
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    CHECK_OK(ct_tensor_to_host(ct_tensor_grad(x), g, sizeof(double) * 4));
    CHECK_MSG(g[0] == 1 && g[1] == 11 && g[2] == 0 && g[3] == 0, "cumprod grad %g %g %g %g", g[0],
              g[1], g[2], g[3]);
    ct_tensor_release(r), ct_tensor_release(s), ct_tensor_release(x);
    /* empty inputs, as torch: prod(zeros(0)) = 1 with an empty gradient; a (3, 0) reduced over
     * dim 0 gives a (3, 0) gradient */
    const int64_t shapes[2][2] = {{0, 0}, {3, 0}};
    for (int k = 0; k < 2; k++) {
        ct_tensor *e = NULL, *p = NULL, *ps = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, k + 1, k ? shapes[1] : shapes[0], &e));
        CHECK_OK(ct_tensor_set_requires_grad(e, true));
        CHECK_OK(k ? ct_prod(ctx, e, 0, false, &p) : ct_prod(ctx, e, CT_ALL_DIMS, false, &p));
        CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &ps));
        CHECK_OK(ct_backward(ctx, ps, NULL, false));
        const ct_tensor *ge = ct_tensor_grad(e);
        CHECK(ge && ct_tensor_numel(ge) == 0 && ct_tensor_ndim(ge) == k + 1);
        ct_tensor_release(p), ct_tensor_release(ps), ct_tensor_release(e);
    }
}

TEST(captured_equals_eager) {
    int64_t shape[2] = {6, 9};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 2, shape, 0, -1, 1, NULL);
    ct_tensor *outs[2][6] = {{0}};
    for (int cap = 0; cap < 2; cap++) {
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (cap) CHECK_OK(ct_graph_capture_begin(g, NULL));
        int d = 1;
        CHECK_OK(ct_var(ctx, x, 1, &d, 1, false, &outs[cap][0]));
        CHECK_OK(ct_logsumexp(ctx, x, 0, NULL, true, &outs[cap][1]));
        CHECK_OK(ct_norm(ctx, x, 2, 1, &d, false, &outs[cap][2]));
        CHECK_OK(ct_cumsum(ctx, x, 0, &outs[cap][3]));
        CHECK_OK(ct_cumprod(ctx, x, 1, &outs[cap][4]));
        CHECK_OK(ct_prod(ctx, x, 0, false, &outs[cap][5]));
        if (cap) {
            CHECK_OK(ct_graph_capture_end(g));
            CHECK_OK(ct_graph_replay(g));
        }
        ct_graph_free(g);
    }
    for (int i = 0; i < 6; i++) {
        CHECK_MSG(tu_same_values(outs[0][i], outs[1][i]), "output %d differs", i);
        ct_tensor_release(outs[0][i]), ct_tensor_release(outs[1][i]);
    }
    ct_tensor_release(x);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(composites_against_long_double);
    RUN(composite_special_values);
    RUN(prod_and_scans);
    RUN(gradients);
    RUN(captured_equals_eager);
    ct_ctx_free(ctx);
    return ct_test_end();
}

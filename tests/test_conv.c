/* unfold / fold, conv1d / conv2d and pooling against naive double loops over a grid of stride,
 * padding, dilation and groups (strided inputs, f32 and f64), unfold/fold adjointness, gradients
 * against central differences, errors, capture and replay. */
#include "test_util.h"

#include <math.h>

static ct_ctx *ctx;
static unsigned long long rng = 4242;

static bool close_to(double got, double want, double tol) {
    return fabs(got - want) <= tol * (1 + fabs(want));
}

/* naive conv2d: y[n][o][i][j] = b[o] + sum_{c in group, ki, kj} x[n][c][i*s - p + ki*d][...] w */
static void ref_conv2d(const double *x, const double *w, const double *b, int64_t N, int64_t C,
                       int64_t H, int64_t W, int64_t O, int64_t kh, int64_t kw, const int64_t *s,
                       const int64_t *p, const int64_t *d, int64_t G, double *y, int64_t *oh,
                       int64_t *ow) {
    *oh = (H + 2 * p[0] - d[0] * (kh - 1) - 1) / s[0] + 1;
    *ow = (W + 2 * p[1] - d[1] * (kw - 1) - 1) / s[1] + 1;
    int64_t cg = C / G, og = O / G;
    for (int64_t n = 0; n < N; n++)
        for (int64_t o = 0; o < O; o++)
            for (int64_t i = 0; i < *oh; i++)
                for (int64_t j = 0; j < *ow; j++) {
                    long double acc = b ? b[o] : 0;
                    int64_t g = o / og;
                    for (int64_t c = 0; c < cg; c++)
                        for (int64_t ki = 0; ki < kh; ki++)
                            for (int64_t kj = 0; kj < kw; kj++) {
                                int64_t iy = i * s[0] - p[0] + ki * d[0],
                                        ix = j * s[1] - p[1] + kj * d[1];
                                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                                acc += (long double)x[((n * C + g * cg + c) * H + iy) * W + ix] *
                                       w[((o * cg + c) * kh + ki) * kw + kj];
                            }
                    y[((n * O + o) * *oh + i) * *ow + j] = (double)acc;
                }
}

TEST(conv2d_grid) {
    const int64_t strides[3][2] = {{1, 1}, {2, 1}, {2, 3}}, pads[3][2] = {{0, 0}, {1, 1}, {2, 0}},
                  dils[2][2] = {{1, 1}, {2, 1}};
    const int groups[2] = {1, 2};
    int cases = 0;
    for (int dt_i = 0; dt_i < 2; dt_i++)
        for (int si = 0; si < 3; si++)
            for (int pi = 0; pi < 3; pi++)
                for (int di = 0; di < 2; di++)
                    for (int gi = 0; gi < 2; gi++) {
                        ct_dtype dt = dt_i ? CT_FLOAT64 : CT_FLOAT32;
                        int64_t N = 2, C = 4, H = 7, W = 8, O = 6, kh = 3, kw = 2;
                        int64_t xs[4] = {N, C, H, W}, ws[4] = {O, C / groups[gi], kh, kw};
                        int mode = (si + pi) % 3; /* contiguous, transposed, step-2 views */
                        double *xv, *wv, *bv;
                        ct_tensor *x = tu_make(ctx, &rng, dt, 4, xs, mode, -1, 1, &xv);
                        ct_tensor *w = tu_make(ctx, &rng, dt, 4, ws, 0, -1, 1, &wv);
                        int64_t os = O;
                        ct_tensor *b = tu_make(ctx, &rng, dt, 1, &os, 0, -1, 1, &bv), *y = NULL;
                        ct_status st = ct_conv2d(ctx, x, w, gi ? NULL : b, strides[si], pads[pi],
                                                 dils[di], groups[gi], &y);
                        CHECK_MSG(st == CT_OK, "%s", ct_ctx_last_error(ctx));
                        double *want = malloc(sizeof(double) * 2 * 6 * 9 * 10);
                        int64_t oh, ow;
                        ref_conv2d(xv, wv, gi ? NULL : bv, N, C, H, W, O, kh, kw, strides[si],
                                   pads[pi], dils[di], groups[gi], want, &oh, &ow);
                        int64_t ys[4] = {N, O, oh, ow};
                        CHECK(y && tu_same_shape(y, 4, ys));
                        double *g = y ? tu_read(y) : NULL;
                        double tol = dt == CT_FLOAT64 ? 1e-13 : 1e-5;
                        for (int64_t i = 0; g && i < N * O * oh * ow; i++)
                            CHECK_MSG(close_to(g[i], want[i], tol),
                                      "conv2d %s s%d p%d d%d g%d [%lld]: %g vs %g",
                                      ct_dtype_name(dt), si, pi, di, groups[gi], (long long)i, g[i],
                                      want[i]);
                        cases++;
                        free(g), free(want), free(xv), free(wv), free(bv);
                        ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b);
                        ct_tensor_release(y);
                    }
    CHECK(cases == 72);
    /* conv1d as a 1-d case of the same */
    int64_t xs[3] = {2, 3, 11}, ws[3] = {4, 3, 3};
    double *xv, *wv;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 3, xs, 0, -1, 1, &xv);
    ct_tensor *w = tu_make(ctx, &rng, CT_FLOAT64, 3, ws, 0, -1, 1, &wv), *y = NULL;
    CHECK_OK(ct_conv1d(ctx, x, w, NULL, 2, 1, 2, 1, &y));
    int64_t s2[2] = {1, 2}, p2[2] = {0, 1}, d2[2] = {1, 2}, oh, ow;
    double want[2 * 4 * 6];
    ref_conv2d(xv, wv, NULL, 2, 3, 1, 11, 4, 1, 3, s2, p2, d2, 1, want, &oh, &ow);
    int64_t ys[3] = {2, 4, ow};
    CHECK(tu_same_shape(y, 3, ys) && oh == 1);
    double *g = tu_read(y);
    for (int i = 0; i < 2 * 4 * ow; i++)
        CHECK(close_to(g[i], want[i], 1e-13));
    free(g), free(xv), free(wv);
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(y);
}

/* <unfold(x), c> == <x, fold(c)> for random x, c */
TEST(unfold_fold_adjoint) {
    int64_t xs[4] = {2, 3, 6, 5}, k[2] = {3, 2}, d[2] = {1, 2}, p[2] = {1, 0}, s[2] = {2, 1};
    double *xv;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 4, xs, 1, -1, 1, &xv), *u = NULL, *f = NULL;
    CHECK_OK(ct_unfold(ctx, x, k, d, p, s, &u));
    int64_t L = ct_tensor_shape(u)[2];
    int64_t cs[3] = {2, 18, L};
    CHECK(tu_same_shape(u, 3, cs));
    double *cv;
    ct_tensor *c = tu_make(ctx, &rng, CT_FLOAT64, 3, cs, 0, -1, 1, &cv);
    int64_t osz[2] = {6, 5};
    CHECK_OK(ct_fold(ctx, c, osz, k, d, p, s, &f));
    double *uv = tu_read(u), *fv = tu_read(f);
    long double l = 0, r = 0;
    for (int64_t i = 0; i < 2 * 18 * L; i++)
        l += (long double)uv[i] * cv[i];
    for (int64_t i = 0; i < 2 * 3 * 30; i++)
        r += (long double)xv[i] * fv[i];
    CHECK_MSG(fabsl(l - r) < 1e-12, "adjoint: %.17Lg vs %.17Lg", l, r);
    free(xv), free(cv), free(uv), free(fv);
    ct_tensor_release(x), ct_tensor_release(u), ct_tensor_release(c), ct_tensor_release(f);
    /* errors: kernel larger than the padded input, bad geometry, wrong rank */
    int64_t small[4] = {1, 1, 2, 2}, big[2] = {4, 4}, one[2] = {1, 1}, zero[2] = {0, 0};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, small, &x));
    CHECK_ST(ct_unfold(ctx, x, big, one, zero, one, &u), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "does not fit") != NULL);
    CHECK_ST(ct_unfold(ctx, x, one, one, zero, zero, &u), CT_ERR_INVALID_ARG);
    int64_t wrong[3] = {1, 5, 4};
    ct_tensor *cw = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, wrong, &cw));
    int64_t o2[2] = {2, 2}, k2[2] = {2, 2};
    CHECK_ST(ct_fold(ctx, cw, o2, k2, one, zero, one, &f), CT_ERR_SHAPE);
    ct_tensor_release(cw), ct_tensor_release(x);
}

TEST(pooling) {
    int64_t xs[4] = {2, 3, 7, 6};
    for (int mode = 0; mode < 3; mode++) {
        double *xv;
        ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 4, xs, mode, -2, 2, &xv), *y = NULL;
        int64_t k[2] = {3, 2}, s[2] = {2, 2}, p[2] = {1, 1}, d[2] = {1, 1};
        for (int is_max = 0; is_max < 2; is_max++) {
            CHECK_OK(is_max ? ct_max_pool2d(ctx, x, k, s, p, d, &y)
                            : ct_avg_pool2d(ctx, x, k, s, p, &y));
            int64_t oh = (7 + 2 - 3) / 2 + 1, ow = (6 + 2 - 2) / 2 + 1;
            int64_t ys[4] = {2, 3, oh, ow};
            CHECK(tu_same_shape(y, 4, ys));
            double *g = tu_read(y);
            for (int64_t n = 0; n < 6; n++)
                for (int64_t i = 0; i < oh; i++)
                    for (int64_t j = 0; j < ow; j++) {
                        double acc = is_max ? -INFINITY : 0;
                        for (int ki = 0; ki < 3; ki++)
                            for (int kj = 0; kj < 2; kj++) {
                                int64_t iy = i * 2 - 1 + ki, ix = j * 2 - 1 + kj;
                                double v = (iy < 0 || iy >= 7 || ix < 0 || ix >= 6)
                                               ? (is_max ? -INFINITY : 0)
                                               : xv[(n * 7 + iy) * 6 + ix];
                                acc = is_max ? (v > acc ? v : acc) : acc + v;
                            }
                        if (!is_max) acc /= 6; /* count_include_pad */
                        double got = g[(n * oh + i) * ow + j];
                        CHECK_MSG(close_to(got, acc, 1e-6), "%s mode %d [%lld,%lld,%lld]: %g vs %g",
                                  is_max ? "max" : "avg", mode, (long long)n, (long long)i,
                                  (long long)j, got, acc);
                    }
            free(g);
            ct_tensor_release(y);
        }
        /* adaptive average pooling: equal bins (7x6 -> 1x3) and unequal ones (7x6 -> 3x4) */
        for (int a = 0; a < 2; a++) {
            int64_t os[2] = {a ? 3 : 1, a ? 4 : 3};
            CHECK_OK(ct_adaptive_avg_pool2d(ctx, x, os, &y));
            double *g = tu_read(y);
            for (int64_t n = 0; n < 6; n++)
                for (int64_t i = 0; i < os[0]; i++)
                    for (int64_t j = 0; j < os[1]; j++) {
                        int64_t h0 = i * 7 / os[0], h1 = ((i + 1) * 7 + os[0] - 1) / os[0];
                        int64_t w0 = j * 6 / os[1], w1 = ((j + 1) * 6 + os[1] - 1) / os[1];
                        double acc = 0;
                        for (int64_t yy = h0; yy < h1; yy++)
                            for (int64_t xx = w0; xx < w1; xx++)
                                acc += xv[(n * 7 + yy) * 6 + xx];
                        acc /= (double)((h1 - h0) * (w1 - w0));
                        CHECK(close_to(g[(n * os[0] + i) * os[1] + j], acc, 1e-6));
                    }
            free(g);
            ct_tensor_release(y);
        }
        free(xv);
        ct_tensor_release(x);
    }
    int64_t k4[2] = {4, 4}, p3[2] = {3, 0}, one[2] = {1, 1};
    ct_tensor *x = NULL, *y = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, xs, &x));
    CHECK_ST(ct_max_pool2d(ctx, x, k4, NULL, p3, one, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "at most half the kernel") != NULL);
    ct_tensor_release(x);
}

/* gradients of sum(sin(i) * f(x)) by central differences (f64) */
static ct_tensor *GW, *GB;
static ct_status f_conv(const ct_tensor *x, ct_tensor **y) {
    int64_t s[2] = {2, 1}, p[2] = {1, 1}, d[2] = {1, 2};
    return ct_conv2d(ctx, x, GW, GB, s, p, d, 1, y);
}
static ct_status f_conv_w(const ct_tensor *w, ct_tensor **y) {
    int64_t s[2] = {1, 1}, p[2] = {0, 1}, d[2] = {1, 1};
    return ct_conv2d(ctx, GB, w, NULL, s, p, d, 2, y); /* GB holds the input here */
}
static ct_status f_max(const ct_tensor *x, ct_tensor **y) {
    int64_t k[2] = {2, 2}, p[2] = {1, 0}, d[2] = {1, 1};
    return ct_max_pool2d(ctx, x, k, NULL, p, d, y);
}
static ct_status f_avg(const ct_tensor *x, ct_tensor **y) {
    int64_t k[2] = {3, 2}, s[2] = {1, 2}, p[2] = {1, 1};
    return ct_avg_pool2d(ctx, x, k, s, p, y);
}
static ct_status f_adapt(const ct_tensor *x, ct_tensor **y) { /* unequal, overlapping bins */
    int64_t o[2] = {3, 3};
    return ct_adaptive_avg_pool2d(ctx, x, o, y);
}
static ct_status f_avg_ex(const ct_tensor *x, ct_tensor **y) {
    int64_t k[2] = {3, 3}, s[2] = {2, 2}, p[2] = {1, 1};
    return ct_avg_pool2d_ex(ctx, x, k, s, p, true, false, y);
}
TEST(gradients) {
    int64_t xs[4] = {2, 2, 5, 4}, ws[4] = {3, 2, 2, 3}, bs = 3;
    double wv[36], bv[3] = {0.5, -0.5, 1};
    for (int i = 0; i < 36; i++)
        wv[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1);
    CHECK_OK(ct_tensor_from_host(ctx, wv, CT_FLOAT64, 4, ws, &GW));
    CHECK_OK(ct_tensor_from_host(ctx, bv, CT_FLOAT64, 1, &bs, &GB));
    tu_gradcheck(ctx, &rng, "conv2d input", f_conv, 4, xs);
    tu_gradcheck(ctx, &rng, "max_pool2d", f_max, 4, xs);
    tu_gradcheck(ctx, &rng, "avg_pool2d", f_avg, 4, xs);
    tu_gradcheck(ctx, &rng, "adaptive_avg_pool2d", f_adapt, 4, xs);
    tu_gradcheck(ctx, &rng, "avg_pool2d_ex", f_avg_ex, 4, xs);
    ct_tensor_release(GB);
    /* gradient with respect to a grouped weight: GB now holds an input (2, 4, 4, 3) */
    int64_t xs2[4] = {2, 4, 4, 3}, ws2[4] = {4, 2, 3, 2};
    double xv2[96];
    for (int i = 0; i < 96; i++)
        xv2[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1);
    CHECK_OK(ct_tensor_from_host(ctx, xv2, CT_FLOAT64, 4, xs2, &GB));
    tu_gradcheck(ctx, &rng, "conv2d grouped weight", f_conv_w, 4, ws2);
    ct_tensor_release(GW), ct_tensor_release(GB);
}

/* torch's unbatched forms: conv2d of (C, H, W), conv1d of (C, L), unfold of (C, H, W), fold of
 * (C*kh*kw, L) give the batched results without the batch dim (naive conv reference; unfold and
 * fold against the batched call), and stay differentiable */
static ct_status f_conv_unbatched(const ct_tensor *x, ct_tensor **y) {
    int64_t s[2] = {1, 2}, p[2] = {1, 0}, d[2] = {2, 1};
    return ct_conv2d(ctx, x, GW, GB, s, p, d, 1, y);
}
TEST(unbatched_inputs_as_torch) {
    const int64_t C = 4, H = 6, W = 5, O = 2, kh = 2, kw = 3, s[2] = {1, 2}, p[2] = {1, 0},
                  d[2] = {2, 1};
    const int64_t xs[3] = {C, H, W}, ws[4] = {O, C / 2, kh, kw}, bs = O;
    double *xv, *wv, *bv;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 3, xs, 1, -1, 1, &xv); /* a transposed view */
    ct_tensor *w = tu_make(ctx, &rng, CT_FLOAT64, 4, ws, 0, -1, 1, &wv);
    ct_tensor *b = tu_make(ctx, &rng, CT_FLOAT64, 1, &bs, 0, -1, 1, &bv), *y = NULL;
    CHECK_OK(ct_conv2d(ctx, x, w, b, s, p, d, 2, &y));
    double want[2 * 6 * 5];
    int64_t oh = 0, ow = 0;
    ref_conv2d(xv, wv, bv, 1, C, H, W, O, kh, kw, s, p, d, 2, want, &oh, &ow);
    CHECK(y && ct_tensor_ndim(y) == 3 && ct_tensor_shape(y)[0] == O &&
          ct_tensor_shape(y)[1] == oh && ct_tensor_shape(y)[2] == ow);
    double *g = y ? tu_read(y) : NULL;
    for (int64_t i = 0; g && i < O * oh * ow; i++)
        CHECK_MSG(close_to(g[i], want[i], 1e-12), "conv2d unbatched [%lld]: %g vs %g", (long long)i,
                  g[i], want[i]);
    free(g);
    ct_tensor_release(y);
    /* conv1d of (C, L): the conv2d reference over a height of 1 */
    const int64_t x1s[2] = {C, 9}, w1s[3] = {O, C, 3};
    double *x1v, *w1v;
    ct_tensor *x1 = tu_make(ctx, &rng, CT_FLOAT64, 2, x1s, 0, -1, 1, &x1v);
    ct_tensor *w1 = tu_make(ctx, &rng, CT_FLOAT64, 3, w1s, 0, -1, 1, &w1v);
    CHECK_OK(ct_conv1d(ctx, x1, w1, NULL, 2, 1, 1, 1, &y));
    const int64_t s1[2] = {1, 2}, p1[2] = {0, 1}, d1[2] = {1, 1};
    ref_conv2d(x1v, w1v, NULL, 1, C, 1, 9, O, 1, 3, s1, p1, d1, 1, want, &oh, &ow);
    CHECK(y && ct_tensor_ndim(y) == 2 && ct_tensor_shape(y)[1] == ow);
    g = y ? tu_read(y) : NULL;
    for (int64_t i = 0; g && i < O * ow; i++)
        CHECK_MSG(close_to(g[i], want[i], 1e-12), "conv1d unbatched [%lld]", (long long)i);
    free(g);
    ct_tensor_release(y);
    /* unfold / fold: the batched call on the same data with N = 1 */
    const int64_t k[2] = {2, 2}, one[2] = {1, 1}, zero[2] = {0, 0};
    ct_tensor *xb = NULL, *cb = NULL, *cu = NULL, *fb = NULL, *fu = NULL, *cbs = NULL;
    CHECK_OK(ct_tensor_unsqueeze(ctx, x, 0, &xb));
    CHECK_OK(ct_unfold(ctx, xb, k, one, zero, one, &cb));
    CHECK_OK(ct_unfold(ctx, x, k, one, zero, one, &cu));
    CHECK_OK(ct_tensor_squeeze(ctx, cb, 0, &cbs));
    CHECK(cu && ct_tensor_ndim(cu) == 2 && tu_same_values(cu, cbs));
    const int64_t osz[2] = {H, W};
    CHECK_OK(ct_fold(ctx, cb, osz, k, one, zero, one, &fb));
    CHECK_OK(ct_fold(ctx, cu, osz, k, one, zero, one, &fu));
    ct_tensor *fbs = NULL;
    CHECK_OK(ct_tensor_squeeze(ctx, fb, 0, &fbs));
    CHECK(fu && ct_tensor_ndim(fu) == 3 && tu_same_values(fu, fbs));
    ct_tensor *all[] = {x, w, b, x1, w1, xb, cb, cu, fb, fu, cbs, fbs};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    free(xv), free(wv), free(bv), free(x1v), free(w1v);
    /* the gradient reaches an unbatched input through the views */
    const int64_t gws[4] = {3, 2, 2, 3}, gbs = 3, gxs[3] = {2, 5, 6};
    double gwv[36], gbv[3] = {0.25, -1, 0.5};
    for (int i = 0; i < 36; i++)
        gwv[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1);
    CHECK_OK(ct_tensor_from_host(ctx, gwv, CT_FLOAT64, 4, gws, &GW));
    CHECK_OK(ct_tensor_from_host(ctx, gbv, CT_FLOAT64, 1, &gbs, &GB));
    tu_gradcheck(ctx, &rng, "conv2d unbatched input", f_conv_unbatched, 3, gxs);
    ct_tensor_release(GW), ct_tensor_release(GB);
}

/* Ties: the gradient of a max goes to one element, the first maximum, as torch 1.13's (values
 * from torch: max_pool2d k=2 s=1 p=1 on a 4x4 with tied windows, backward of sum(y * (1..25));
 * max(dim) / min(dim) of rows with ties, backward of sum(v * (1, 2))). */
static void tie_grad(const double *xv, int nd, const int64_t *xs, const double *gv,
                     const double *want, int64_t nx, int which) {
    ct_tensor *x = NULL, *y = NULL, *idx = NULL, *g = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, nd, xs, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    const int64_t k[2] = {2, 2}, s[2] = {1, 1}, p[2] = {1, 1}, d[2] = {1, 1};
    ct_status st = which == 0   ? ct_max_pool2d(ctx, x, k, s, p, d, &y)
                   : which == 1 ? ct_max_dim(ctx, x, 1, false, &y, &idx)
                                : ct_min_dim(ctx, x, 1, false, &y, &idx);
    CHECK_OK(st);
    if (y) {
        CHECK_OK(
            ct_tensor_from_host(ctx, gv, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), &g));
        CHECK_OK(ct_backward(ctx, y, g, false));
        const ct_tensor *gr = ct_tensor_grad(x);
        const double *gp = gr ? ct_tensor_data_ptr(gr) : NULL;
        int wrong = 0;
        for (int64_t i = 0; gp && i < nx; i++)
            wrong += gp[i] != want[i];
        CHECK_MSG(gp && wrong == 0, "case %d: %d gradient elements differ from torch's", which,
                  wrong);
    }
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(idx), ct_tensor_release(g);
}
TEST(tie_gradients_as_torch) {
    const double x1[16] = {1, 1, 0, 2, 1, 1, 2, 2, 0, 3, 3, 0, 3, 3, 0, 0};
    double g1[25];
    for (int i = 0; i < 25; i++)
        g1[i] = i + 1;
    const double w1[16] = {16, 3, 0, 28, 11, 0, 8, 15, 0, 60, 33, 20, 59, 23, 24, 25};
    tie_grad(x1, 4, (int64_t[]){1, 1, 4, 4}, g1, w1, 16, 0);
    const double x2[8] = {1, 3, 3, 0, 2, 0, 5, 0}, g2[2] = {1, 2};
    const double wmax[8] = {0, 1, 0, 0, 0, 0, 2, 0}, wmin[8] = {0, 0, 0, 1, 0, 2, 0, 0};
    tie_grad(x2, 2, (int64_t[]){2, 4}, g2, wmax, 8, 1);
    tie_grad(x2, 2, (int64_t[]){2, 4}, g2, wmin, 8, 2);
    /* the value is the element at the index: max of (-0.0, 0.0) is -0.0 (torch) */
    const float z[2] = {-0.0f, 0.0f};
    ct_tensor *t = NULL, *v = NULL, *i = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, z, CT_FLOAT32, 2, (int64_t[]){1, 2}, &t));
    CHECK_OK(ct_max_dim(ctx, t, 1, true, &v, &i));
    CHECK(v && signbit(((const float *)ct_tensor_data_ptr(v))[0]));
    CHECK(v && ct_tensor_ndim(v) == 2 && ct_tensor_shape(v)[1] == 1);
    ct_tensor_release(t), ct_tensor_release(v), ct_tensor_release(i);
    /* bool rows (torch.max / min accept bool): max of (F, T, T) is T at 1, min F at 0 */
    const bool bv[3] = {false, true, true};
    CHECK_OK(ct_tensor_from_host(ctx, bv, CT_BOOL, 2, (int64_t[]){1, 3}, &t));
    for (int m = 0; m < 2; m++) {
        CHECK_OK(m ? ct_min_dim(ctx, t, 1, false, &v, &i) : ct_max_dim(ctx, t, 1, false, &v, &i));
        CHECK(v && ct_tensor_dtype(v) == CT_BOOL && *(const bool *)ct_tensor_data_ptr(v) == !m);
        CHECK(i && *(const int64_t *)ct_tensor_data_ptr(i) == (m ? 0 : 1));
        ct_tensor_release(v), ct_tensor_release(i);
    }
    ct_tensor_release(t);
}

/* ceil_mode, count_include_pad and return_indices against loops written from torch's CPU kernels
 * (max: first strict maximum over the window's in-input positions; avg: window clipped to the
 * padded input for the count, to the input for the sum), over a geometry grid. */
static int64_t pool_out_ref(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int ceil) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = num / s + 1;
    if (ceil && (o - 1) * s >= in + p) o--;
    return o;
}
TEST(pooling_ceil_mode_and_indices) {
    /* shapes torch 1.13 gives: F.max_pool2d(ones(1,1,5,7), 2, 2, 0, ceil_mode=True) -> 3x4,
     * F.avg_pool2d(ones(1,1,6,6), 3, 2, 1, ceil_mode=True) -> 4x4 (floor: 3x3), k=2 s=3 on 5 -> 2
     */
    CHECK(pool_out_ref(5, 2, 2, 0, 1, 1) == 3 && pool_out_ref(7, 2, 2, 0, 1, 1) == 4);
    CHECK(pool_out_ref(6, 3, 2, 1, 1, 1) == 4 && pool_out_ref(6, 3, 2, 1, 1, 0) == 3);
    CHECK(pool_out_ref(5, 2, 3, 0, 1, 1) == 2);
    int cases = 0;
    for (int64_t H = 5; H <= 7; H++)
        for (int64_t k = 2; k <= 3; k++)
            for (int64_t st = 1; st <= 3; st++)
                for (int64_t p = 0; 2 * p <= k; p++)
                    for (int64_t d = 1; d <= 2; d++)
                        for (int mode = 0; mode < 6; mode++) {
                            const int is_max = mode < 2, ceil = mode & 1, cip = mode >= 4;
                            if (!is_max && d != 1) continue;
                            const int64_t W = H + 1, N = 2, C = 2;
                            const int64_t K[2] = {k, k}, S[2] = {st, st}, P[2] = {p, p},
                                          D[2] = {d, d};
                            int64_t oh = pool_out_ref(H, k, st, p, d, ceil),
                                    ow = pool_out_ref(W, k, st, p, d, ceil);
                            if (oh < 1 || ow < 1) continue;
                            int64_t xs[4] = {N, C, H, W};
                            double *xv = NULL;
                            ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 4, xs, 0, -4, 4, &xv);
                            ct_tensor *y = NULL, *ix = NULL;
                            CHECK_OK(is_max ? ct_max_pool2d_ex(ctx, x, K, S, P, D, ceil, &y, &ix)
                                            : ct_avg_pool2d_ex(ctx, x, K, S, P, ceil, cip, &y));
                            CHECK(y && ct_tensor_ndim(y) == 4 && ct_tensor_shape(y)[2] == oh &&
                                  ct_tensor_shape(y)[3] == ow);
                            if (!y) {
                                ct_tensor_release(x), free(xv);
                                continue;
                            }
                            const double *yp = ct_tensor_data_ptr(y);
                            const int64_t *ip = ix ? ct_tensor_data_ptr(ix) : NULL;
                            int bad = 0;
                            for (int64_t pl = 0; pl < N * C; pl++)
                                for (int64_t i = 0; i < oh; i++)
                                    for (int64_t j = 0; j < ow; j++) {
                                        const double *xp = xv + pl * H * W;
                                        double want;
                                        int64_t widx = -1;
                                        if (is_max) {
                                            int64_t h0 = i * st - p, w0 = j * st - p;
                                            int64_t h1 = h0 + (k - 1) * d + 1,
                                                    w1 = w0 + (k - 1) * d + 1;
                                            h1 = h1 < H ? h1 : H, w1 = w1 < W ? w1 : W;
                                            while (h0 < 0)
                                                h0 += d;
                                            while (w0 < 0)
                                                w0 += d;
                                            want = -INFINITY;
                                            for (int64_t h = h0; h < h1; h += d)
                                                for (int64_t w = w0; w < w1; w += d)
                                                    if (xp[h * W + w] > want)
                                                        want = xp[h * W + w], widx = h * W + w;
                                        } else {
                                            int64_t h0 = i * st - p, w0 = j * st - p;
                                            int64_t h1 = h0 + k < H + p ? h0 + k : H + p,
                                                    w1 = w0 + k < W + p ? w0 + k : W + p;
                                            const int64_t ps = (h1 - h0) * (w1 - w0);
                                            h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;
                                            h1 = h1 < H ? h1 : H, w1 = w1 < W ? w1 : W;
                                            double sum = 0;
                                            for (int64_t h = h0; h < h1; h++)
                                                for (int64_t w = w0; w < w1; w++)
                                                    sum += xp[h * W + w];
                                            want = sum / (double)(cip ? ps : (h1 - h0) * (w1 - w0));
                                        }
                                        const int64_t o = (pl * oh + i) * ow + j;
                                        bad += fabs(yp[o] - want) > 1e-12 * (1 + fabs(want));
                                        if (is_max) bad += !ip || ip[o] != widx;
                                    }
                            CHECK_MSG(bad == 0,
                                      "%s H=%lld k=%lld s=%lld p=%lld d=%lld ceil=%d cip=%d: %d "
                                      "wrong",
                                      is_max ? "max" : "avg", (long long)H, (long long)k,
                                      (long long)st, (long long)p, (long long)d, ceil, cip, bad);
                            cases++;
                            ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(ix);
                            free(xv);
                        }
    CHECK(cases > 100);
    /* 3-d input, f32, and the index output's shape and dtype */
    float v[12] = {1, 5, 2, 0, 3, 9, 4, 8, 7, 6, 11, 10};
    ct_tensor *x = NULL, *y = NULL, *ix = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 3, (int64_t[]){1, 3, 4}, &x));
    const int64_t K[2] = {2, 2}, Z[2] = {0, 0}, O[2] = {1, 1};
    CHECK_OK(ct_max_pool2d_ex(ctx, x, K, NULL, Z, O, true, &y, &ix));
    /* windows rows 0-1 cols 0-1 / 2-3, row 2 (overhang) cols 0-1 / 2-3: 9@5 8@7 7@8 11@10 (torch)
     */
    const float wy[4] = {9, 8, 7, 11};
    const int64_t wi[4] = {5, 7, 8, 10};
    CHECK(ix && ct_tensor_dtype(ix) == CT_INT64 && ct_tensor_ndim(ix) == 3);
    for (int q = 0; y && ix && q < 4; q++)
        CHECK(((const float *)ct_tensor_data_ptr(y))[q] == wy[q] &&
              ((const int64_t *)ct_tensor_data_ptr(ix))[q] == wi[q]);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(ix);
    /* torch 1.13: F.avg_pool2d(arange(36).reshape(1,1,6,6), 3, 2, 1, ceil_mode=True,
     * count_include_pad=True / False) */
    const double want[2][16] = {
        {14.0 / 9, 10.0 / 3, 14.0 / 3, 8.0 / 3, 25.0 / 3, 14, 16, 8.5, 49.0 / 3, 26, 28, 14.5,
         61.0 / 6, 16, 17, 8.75},
        {3.5, 5, 7, 8, 12.5, 14, 16, 17, 24.5, 26, 28, 29, 30.5, 32, 34, 35}};
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 36, 1, &ix));
    CHECK_OK(ct_tensor_reshape(ctx, ix, 4, (int64_t[]){1, 1, 6, 6}, &x));
    const int64_t K3[2] = {3, 3}, S2[2] = {2, 2};
    for (int cip = 0; cip < 2; cip++) {
        CHECK_OK(ct_avg_pool2d_ex(ctx, x, K3, S2, O, true, cip == 0, &y));
        for (int q = 0; y && q < 16; q++)
            CHECK(fabs(((const double *)ct_tensor_data_ptr(y))[q] - want[cip][q]) < 1e-12);
        ct_tensor_release(y);
    }
    ct_tensor_release(x), ct_tensor_release(ix);
}

TEST(captured_equals_eager) {
    int64_t xs[4] = {2, 4, 9, 8}, ws[4] = {6, 4, 3, 3};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 4, xs, 0, -1, 1, NULL);
    ct_tensor *w = tu_make(ctx, &rng, CT_FLOAT32, 4, ws, 0, -1, 1, NULL);
    ct_tensor *outs[2][3] = {{0}};
    for (int cap = 0; cap < 2; cap++) {
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (cap) CHECK_OK(ct_graph_capture_begin(g, NULL));
        int64_t s[2] = {1, 1}, p[2] = {1, 1}, d[2] = {1, 1}, k[2] = {2, 2};
        CHECK_OK(ct_conv2d(ctx, x, w, NULL, s, p, d, 1, &outs[cap][0]));
        CHECK_OK(ct_max_pool2d(ctx, outs[cap][0], k, NULL, (int64_t[2]){0, 0}, d, &outs[cap][1]));
        CHECK_OK(ct_avg_pool2d(ctx, x, k, k, (int64_t[2]){1, 0}, &outs[cap][2]));
        if (cap) {
            CHECK_OK(ct_graph_capture_end(g));
            CHECK_OK(ct_graph_replay(g));
        }
        ct_graph_free(g);
    }
    for (int i = 0; i < 3; i++) {
        CHECK_MSG(tu_same_values(outs[0][i], outs[1][i]), "output %d differs", i);
        ct_tensor_release(outs[0][i]), ct_tensor_release(outs[1][i]);
    }
    ct_tensor_release(x), ct_tensor_release(w);
}

/* Integer conv2d / conv1d: exact, wrapping in the dtype (torch's slow path), against a naive loop;
 * torch 1.13: conv1d int64 [[[1, 2, 3]]] with [[[1, -1]]] is [[[-1, -1]]]. Bool is refused. */
TEST(integer_conv_wraps) {
    int8_t xv[18], wv[16], bv[2] = {5, -7}, got[8];
    for (int i = 0; i < 18; i++)
        xv[i] = (int8_t)(i * 37 % 256 - 128);
    for (int i = 0; i < 16; i++)
        wv[i] = (int8_t)(i * 11 % 7 - 3);
    ct_tensor *x = NULL, *w = NULL, *b = NULL, *y = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_INT8, 4, (int64_t[]){1, 2, 3, 3}, &x));
    CHECK_OK(ct_tensor_from_host(ctx, wv, CT_INT8, 4, (int64_t[]){2, 2, 2, 2}, &w));
    CHECK_OK(ct_tensor_from_host(ctx, bv, CT_INT8, 1, (int64_t[]){2}, &b));
    const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
    CHECK_OK(ct_conv2d(ctx, x, w, b, one, zero, one, 1, &y));
    CHECK(ct_tensor_dtype(y) == CT_INT8 && ct_tensor_to_host(y, got, sizeof got) == CT_OK);
    for (int o = 0; o < 2; o++)
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++) {
                int64_t acc = bv[o];
                for (int ci = 0; ci < 2; ci++)
                    for (int ky = 0; ky < 2; ky++)
                        for (int kx = 0; kx < 2; kx++)
                            acc += xv[ci * 9 + (r + ky) * 3 + c + kx] *
                                   wv[((o * 2 + ci) * 2 + ky) * 2 + kx];
                const int8_t want = (int8_t)(uint8_t)(acc & 0xFF);
                CHECK_MSG(got[(o * 2 + r) * 2 + c] == want, "int8 conv2d [%d,%d,%d]: %d, want %d",
                          o, r, c, got[(o * 2 + r) * 2 + c], want);
            }
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b), ct_tensor_release(y);
    int64_t x1[3] = {1, 2, 3}, w1[2] = {1, -1}, g1[2] = {0, 0};
    CHECK_OK(ct_tensor_from_host(ctx, x1, CT_INT64, 3, (int64_t[]){1, 1, 3}, &x));
    CHECK_OK(ct_tensor_from_host(ctx, w1, CT_INT64, 3, (int64_t[]){1, 1, 2}, &w));
    CHECK_OK(ct_conv1d(ctx, x, w, NULL, 1, 0, 1, 1, &y));
    CHECK(ct_tensor_dtype(y) == CT_INT64 && ct_tensor_to_host(y, g1, sizeof g1) == CT_OK &&
          g1[0] == -1 && g1[1] == -1);
    ct_tensor_release(y), y = NULL;
    ct_tensor *xb = NULL, *wb = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_BOOL, &xb));
    CHECK_OK(ct_cast(ctx, w, CT_BOOL, &wb));
    CHECK_ST(ct_conv1d(ctx, xb, wb, NULL, 1, 0, 1, 1, &y), CT_ERR_DTYPE);
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(xb), ct_tensor_release(wb);
}

/* ceil_mode with a kernel wider than the (unpadded) input: torch's output size floor((in - k +
 * s - 1) / s) + 1 rounds toward -inf, so W = 2 with k = 3, s = 2 still gives one window
 * (torch: avg_pool2d of (1, 1, 6, 2) -> (1, 1, 3, 1)); ctorch reported CT_ERR_SHAPE. */
TEST(ceil_mode_kernel_wider_than_input) {
    float xv[12];
    for (int i = 0; i < 12; i++)
        xv[i] = (float)(i + 1);
    ct_tensor *x = NULL, *y = NULL, *ix = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 4, (int64_t[]){1, 1, 6, 2}, &x));
    const int64_t k[2] = {3, 3}, s2[2] = {2, 2}, p0[2] = {0, 0}, d1[2] = {1, 1};
    float got[3] = {0};
    CHECK_OK(ct_avg_pool2d_ex(ctx, x, k, s2, p0, true, true, &y));
    CHECK(tu_same_shape(y, 4, (int64_t[]){1, 1, 3, 1}) &&
          ct_tensor_to_host(y, got, sizeof got) == CT_OK);
    CHECK_MSG(got[0] == 3.5f && got[1] == 7.5f && got[2] == 10.5f, "avg: %g %g %g", got[0], got[1],
              got[2]);
    ct_tensor_release(y);
    CHECK_OK(ct_max_pool2d_ex(ctx, x, k, s2, p0, d1, true, &y, &ix));
    int64_t gi[3] = {0};
    CHECK(ct_tensor_to_host(y, got, sizeof got) == CT_OK &&
          ct_tensor_to_host(ix, gi, sizeof gi) == CT_OK);
    CHECK(got[0] == 6 && got[1] == 10 && got[2] == 12 && gi[0] == 5 && gi[1] == 9 && gi[2] == 11);
    ct_tensor_release(y), ct_tensor_release(ix);
    CHECK_ST(ct_avg_pool2d_ex(ctx, x, k, s2, p0, false, true, &y), CT_ERR_SHAPE); /* no ceil */
    ct_tensor_release(x);
}

/* conv1d's errors speak of conv1d and the caller's 3-d shapes (they came from the conv2d it runs
 * as, naming (1, 2, 1, 5)-style shapes the caller never passed). */
TEST(conv1d_errors_name_conv1d) {
    ct_tensor *x = NULL, *w = NULL, *wl = NULL, *xi = NULL, *y = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, (int64_t[]){1, 2, 5}, &x));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, (int64_t[]){3, 3, 3}, &w));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, (int64_t[]){3, 2, 7}, &wl));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 3, (int64_t[]){1, 2, 5}, &xi));
    struct {
        ct_status st;
        const char *msg;
    } want[4] = {
        {CT_ERR_SHAPE, "conv1d: input [1, 2, 5], weight [3, 3, 3] and groups 1 do not match"},
        {CT_ERR_SHAPE, "conv1d: kernel 7 with dilation 1 does not fit input [1, 2, 5] padded by 0"},
        {CT_ERR_INVALID_ARG, "conv1d: kernel 7, stride 0, padding 0, dilation 1"},
        {CT_ERR_DTYPE, "conv1d: input int32 and weight float32"},
    };
    ct_status got[4];
    char msgs[4][256];
    got[0] = ct_conv1d(ctx, x, w, NULL, 1, 0, 1, 1, &y);
    snprintf(msgs[0], sizeof msgs[0], "%s", ct_ctx_last_error(ctx));
    got[1] = ct_conv1d(ctx, x, wl, NULL, 1, 0, 1, 1, &y);
    snprintf(msgs[1], sizeof msgs[1], "%s", ct_ctx_last_error(ctx));
    got[2] = ct_conv1d(ctx, x, wl, NULL, 0, 0, 1, 1, &y);
    snprintf(msgs[2], sizeof msgs[2], "%s", ct_ctx_last_error(ctx));
    got[3] = ct_conv1d(ctx, xi, wl, NULL, 1, 0, 1, 1, &y);
    snprintf(msgs[3], sizeof msgs[3], "%s", ct_ctx_last_error(ctx));
    ct_tensor *b = NULL, *wg = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){2}, &b));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, (int64_t[]){3, 2, 3}, &wg));
    CHECK_ST(ct_conv1d(ctx, x, wg, b, 1, 0, 1, 1, &y), CT_ERR_SHAPE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "conv1d: bias must be float32 (3), got float32 [2]"),
              "%s", ct_ctx_last_error(ctx));
    ct_tensor_release(b), ct_tensor_release(wg);
    for (int i = 0; i < 4; i++)
        CHECK_MSG(got[i] == want[i].st && strstr(msgs[i], want[i].msg) == msgs[i],
                  "case %d: status %d, message '%s'", i, (int)got[i], msgs[i]);
    CHECK(y == NULL);
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(wl), ct_tensor_release(xi);
}

/* avg_pool2d's divisor_override: each window's sum over the input elements it covers (padding and
 * ceil's overhang add nothing) divided by the divisor, whatever count_include_pad says; int64
 * divides toward zero (C's /); the gradient of sum(y) is the number of windows covering an element
 * over the divisor. Against naive loops. */
TEST(avg_pool2d_divisor_override) {
    const int64_t H = 5, W = 6, xs[4] = {1, 2, H, W};
    for (int dt = 0; dt < 2; dt++)
        for (int64_t k = 2; k <= 3; k++)
            for (int64_t st = 1; st <= 2; st++)
                for (int ceil = 0; ceil < 2; ceil++)
                    for (int64_t div = 1; div <= 7; div += 3) {
                        const int64_t p = k / 2, K[2] = {k, k}, S[2] = {st, st}, P[2] = {p, p};
                        const int64_t oh = pool_out_ref(H, k, st, p, 1, ceil),
                                      ow = pool_out_ref(W, k, st, p, 1, ceil);
                        double *xv = NULL;
                        ct_tensor *x = tu_make(ctx, &rng, dt ? CT_INT64 : CT_FLOAT64, 4, xs, 0, -40,
                                               40, &xv),
                                  *y = NULL, *s = NULL;
                        if (!dt) CHECK_OK(ct_tensor_set_requires_grad(x, true));
                        CHECK_OK(
                            ct_avg_pool2d_divisor(ctx, x, K, S, P, ceil != 0, ceil == 0, div, &y));
                        double *gy = y ? tu_read(y) : NULL,
                               *cover = calloc((size_t)(2 * H * W), sizeof(double));
                        bool ok = gy && ct_tensor_shape(y)[2] == oh && ct_tensor_shape(y)[3] == ow;
                        for (int64_t c = 0; ok && c < 2; c++)
                            for (int64_t i = 0; ok && i < oh; i++)
                                for (int64_t j = 0; ok && j < ow; j++) {
                                    double sum = 0;
                                    int64_t isum = 0;
                                    for (int64_t a = i * st - p; a < i * st - p + k; a++)
                                        for (int64_t b = j * st - p; b < j * st - p + k; b++)
                                            if (a >= 0 && a < H && b >= 0 && b < W) {
                                                sum += xv[(c * H + a) * W + b];
                                                isum += (int64_t)xv[(c * H + a) * W + b];
                                                cover[(c * H + a) * W + b] += 1;
                                            }
                                    const double want = dt ? (double)(isum / div) : sum / div;
                                    ok = dt ? gy[(c * oh + i) * ow + j] == want
                                            : fabs(gy[(c * oh + i) * ow + j] - want) <=
                                                  1e-14 * (1 + fabs(want));
                                }
                        CHECK_MSG(ok, "avg_pool2d divisor %lld k %lld s %lld ceil %d %s",
                                  (long long)div, (long long)k, (long long)st, ceil,
                                  dt ? "int64" : "float64");
                        if (!dt && y) {
                            CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
                            CHECK_OK(ct_backward(ctx, s, NULL, false));
                            double *g = tu_read(ct_tensor_grad(x));
                            for (int64_t e = 0; g && e < 2 * H * W; e++)
                                ok = ok && fabs(g[e] - cover[e] / div) <= 1e-15;
                            CHECK_MSG(ok, "avg_pool2d divisor %lld gradient", (long long)div);
                            free(g);
                        }
                        free(gy), free(cover), free(xv);
                        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(s);
                    }
    /* 0 is torch's None (the window's count); a negative divisor divides, as torch */
    const int64_t xs2[3] = {1, 4, 4}, K[2] = {2, 2}, P0[2] = {0, 0};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 3, xs2, 0, -1, 1, NULL), *a = NULL, *b = NULL;
    CHECK_OK(ct_avg_pool2d_divisor(ctx, x, K, NULL, P0, false, true, 0, &a));
    CHECK_OK(ct_avg_pool2d(ctx, x, K, NULL, P0, &b));
    CHECK(a && b && tu_same_values(a, b));
    ct_tensor_release(a);
    a = NULL;
    ct_tensor *c = NULL, *nc = NULL;
    CHECK_OK(ct_avg_pool2d_divisor(ctx, x, K, NULL, P0, false, true, -2, &a));
    CHECK_OK(ct_avg_pool2d_divisor(ctx, x, K, NULL, P0, false, true, 2, &c));
    CHECK_OK(ct_neg(ctx, c, &nc));
    CHECK(a && nc && tu_same_values(a, nc));
    ct_tensor_release(x), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
    ct_tensor_release(nc);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(conv2d_grid);
    RUN(unfold_fold_adjoint);
    RUN(pooling);
    RUN(gradients);
    RUN(unbatched_inputs_as_torch);
    RUN(tie_gradients_as_torch);
    RUN(pooling_ceil_mode_and_indices);
    RUN(captured_equals_eager);
    RUN(integer_conv_wraps);
    RUN(ceil_mode_kernel_wider_than_input);
    RUN(conv1d_errors_name_conv1d);
    RUN(avg_pool2d_divisor_override);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Window functions, torch.histogram and torch.gradient against torch 1.13's tables
 * (scripts/gen_signal_ref.py; float32 windows bit for bit except kaiser, whose i0 is ctorch's more
 * accurate one), closed forms (hann = sin^2, bartlett's triangle in long double), a naive
 * histogram (counts sum to the in-range elements) and gradients against central differences. */
#include "test_util.h"

#include "data/signal_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 17;
#define SH(...) ((const int64_t[]){__VA_ARGS__})

static void same_as(const char *what, const ct_tensor *t, const double *ref, int64_t n,
                    double tol) {
    tu_same_as(what, t, ref, 1, &n, tol);
}
#define SAME(what, t, R, tol) tu_same_as(what, t, R, R##_nd, R##_shape, tol)

TEST(windows_as_torch) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    const double *hann[2][2][2] = {{{hann_f7p, hann_f7s}, {hann_f10p, hann_f10s}},
                                   {{hann_d7p, hann_d7s}, {hann_d10p, hann_d10s}}};
    const double *hamm[2][2][2] = {{{hamm_f7p, hamm_f7s}, {hamm_f10p, hamm_f10s}},
                                   {{hamm_d7p, hamm_d7s}, {hamm_d10p, hamm_d10s}}};
    const double *black[2][2][2] = {{{black_f7p, black_f7s}, {black_f10p, black_f10s}},
                                    {{black_d7p, black_d7s}, {black_d10p, black_d10s}}};
    const double *bart[2][2][2] = {{{bart_f7p, bart_f7s}, {bart_f10p, bart_f10s}},
                                   {{bart_d7p, bart_d7s}, {bart_d10p, bart_d10s}}};
    const double *kais[2][2][2] = {{{kais_f7p, kais_f7s}, {kais_f10p, kais_f10s}},
                                   {{kais_d7p, kais_d7s}, {kais_d10p, kais_d10s}}};
    const int64_t ns[2] = {7, 10};
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 2; k++)
            for (int p = 0; p < 2; p++) {
                const bool per = p == 0;
                const int64_t n = ns[k];
                char what[80];
                ct_tensor *w = NULL;
                snprintf(what, sizeof what, "hann %s n=%lld periodic=%d", ct_dtype_name(dts[d]),
                         (long long)n, per);
                CHECK_OK(ct_hann_window(ctx, n, per, dts[d], &w));
                same_as(what, w, hann[d][k][p], n, 0);
                /* closed form: sin^2(pi i / (L - 1)) */
                double *v = w ? tu_read(w) : NULL;
                for (int64_t i = 0; v && i < n; i++) {
                    const double L = (double)(per ? n + 1 : n), s = sin(M_PI * (double)i / (L - 1));
                    CHECK(fabs(v[i] - s * s) <= (d ? 1e-15 : 1e-6));
                }
                free(v), ct_tensor_release(w);
                snprintf(what, sizeof what, "hamming %s n=%lld periodic=%d", ct_dtype_name(dts[d]),
                         (long long)n, per);
                CHECK_OK(ct_hamming_window(ctx, n, per, 0.6, 0.35, dts[d], &w));
                same_as(what, w, hamm[d][k][p], n, 0);
                ct_tensor_release(w);
                snprintf(what, sizeof what, "blackman %s n=%lld periodic=%d", ct_dtype_name(dts[d]),
                         (long long)n, per);
                CHECK_OK(ct_blackman_window(ctx, n, per, dts[d], &w));
                same_as(what, w, black[d][k][p], n, 0);
                ct_tensor_release(w);
                snprintf(what, sizeof what, "bartlett %s n=%lld periodic=%d", ct_dtype_name(dts[d]),
                         (long long)n, per);
                CHECK_OK(ct_bartlett_window(ctx, n, per, dts[d], &w));
                same_as(what, w, bart[d][k][p], n, 0);
                ct_tensor_release(w);
                snprintf(what, sizeof what, "kaiser %s n=%lld periodic=%d", ct_dtype_name(dts[d]),
                         (long long)n, per);
                CHECK_OK(ct_kaiser_window(ctx, n, per, 5.5, dts[d], &w));
                same_as(what, w, kais[d][k][p], n, d ? 4e-16 : 3e-7); /* torch's i0 is less exact */
                ct_tensor_release(w);
            }
    ct_tensor *w = NULL;
    CHECK_OK(ct_hann_window(ctx, 0, true, CT_FLOAT32, &w));
    CHECK(tu_same_shape(w, 1, SH(0)));
    ct_tensor_release(w);
    CHECK_OK(ct_kaiser_window(ctx, 1, true, 3, CT_FLOAT64, &w));
    double *v = w ? tu_read(w) : NULL;
    CHECK(v && v[0] == 1);
    free(v), ct_tensor_release(w);
    CHECK_OK(ct_bartlett_window(ctx, 6, false, CT_BFLOAT16, &w)); /* half: float32, rounded once */
    CHECK(w && ct_tensor_dtype(w) == CT_BFLOAT16);
    ct_tensor_release(w);
    CHECK_ST(ct_hann_window(ctx, 4, true, CT_INT32, &w), CT_ERR_DTYPE);
    CHECK_ST(ct_hann_window(ctx, -1, true, CT_FLOAT32, &w), CT_ERR_INVALID_ARG);
}

TEST(histogram_as_torch) {
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT32, h_x_nd, h_x_shape, h_x);
    ct_tensor *w = tu_from_vals(ctx, CT_FLOAT32, h_w_nd, h_w_shape, h_w);
    ct_tensor *h = NULL, *e = NULL;
    CHECK_OK(ct_histogram(ctx, x, 7, NULL, NULL, false, &h, &e));
    SAME("histogram(7)", h, h_7, 0);
    SAME("histogram(7) edges", e, h_7e, 0);
    double *hv = h ? tu_read(h) : NULL, tot = 0;
    for (int i = 0; hv && i < 7; i++)
        tot += hv[i];
    CHECK(tot == 200); /* every element lands in a bin */
    free(hv), ct_tensor_release(h), ct_tensor_release(e);
    const double range[2] = {-2, 3};
    CHECK_OK(ct_histogram(ctx, x, 5, range, w, true, &h, &e));
    SAME("histogram(5, range, weight, density)", h, h_5, 2e-7); /* weight sums: 1 ulp */
    SAME("histogram(5) edges", e, h_5e, 0);
    ct_tensor_release(h), ct_tensor_release(e);
    ct_tensor *edges = tu_from_vals(ctx, CT_FLOAT32, h_edges_nd, h_edges_shape, h_edges);
    CHECK_OK(ct_histogram_edges(ctx, x, edges, w, false, &h));
    SAME("histogram(edges, weight)", h, h_e, 1e-7);
    ct_tensor_release(h);
    ct_tensor *xd = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_FLOAT64, &xd));
    CHECK_OK(ct_histogram(ctx, xd, 9, NULL, NULL, true, &h, &e));
    SAME("histogram(9) float64 density", h, h_9d, 1e-15);
    SAME("histogram(9) float64 edges", e, h_9de, 0);
    ct_tensor_release(h), ct_tensor_release(e);
    ct_tensor *c = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 1, SH(4), 2.5, &c));
    CHECK_OK(ct_histogram(ctx, c, 4, NULL, NULL, false, &h, &e));
    SAME("histogram of a constant", h, h_const, 0);
    SAME("histogram of a constant edges", e, h_conste, 0);
    ct_tensor_release(h), ct_tensor_release(e);
    CHECK_ST(ct_histogram(ctx, x, 0, NULL, NULL, false, &h, &e), CT_ERR_INVALID_ARG);
    /* a NaN in the data without a range: torch's "range [nan, nan] is not finite" */
    ct_tensor *wn = tu_from_vals(ctx, CT_FLOAT32, 1, SH(3), (const double[]){1, NAN, 2});
    CHECK_ST(ct_histogram(ctx, wn, 3, NULL, NULL, false, &h, &e), CT_ERR_INVALID_ARG);
    ct_tensor_release(wn);
    /* no data, no range: edges over [0, 1] (torch) */
    ct_tensor *em = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, SH(0), &em));
    CHECK_OK(ct_histogram(ctx, em, 2, NULL, NULL, false, &h, &e));
    double *ev = e ? tu_read(e) : NULL;
    CHECK(ev && ev[0] == 0 && ev[1] == 0.5 && ev[2] == 1);
    free(ev), ct_tensor_release(h), ct_tensor_release(e), ct_tensor_release(em);
    const double bad[2] = {3, -2};
    CHECK_ST(ct_histogram(ctx, x, 4, bad, NULL, false, &h, &e), CT_ERR_INVALID_ARG);
    ct_tensor *xi = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_INT32, &xi));
    CHECK_ST(ct_histogram(ctx, xi, 4, NULL, NULL, false, &h, &e), CT_ERR_DTYPE);
    CHECK_ST(ct_histogram(ctx, x, 4, NULL, xd, false, &h, &e), CT_ERR_SHAPE);
    ct_tensor *tl[] = {x, w, edges, xd, c, xi};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

TEST(gradient_as_torch) {
    ct_tensor *g = tu_from_vals(ctx, CT_FLOAT64, g_x_nd, g_x_shape, g_x), *o[2] = {NULL, NULL};
    const double sp[2] = {0.5, 2.0};
    CHECK_OK(ct_gradient(ctx, g, 0, NULL, sp, 1, o));
    SAME("gradient dim 0", o[0], g_0, 0);
    SAME("gradient dim 1", o[1], g_1, 0);
    ct_tensor_release(o[0]), ct_tensor_release(o[1]);
    const int d1 = 1;
    const double q = 0.25;
    CHECK_OK(ct_gradient(ctx, g, 1, &d1, &q, 2, o));
    SAME("gradient edge_order 2", o[0], g_e2, 0);
    ct_tensor_release(o[0]);
    ct_tensor *gf = tu_from_vals(ctx, CT_FLOAT32, gf_x_nd, gf_x_shape, gf_x);
    CHECK_OK(ct_gradient(ctx, gf, 0, NULL, NULL, 2, o));
    SAME("gradient float32 edge_order 2", o[0], gf_e2, 0);
    ct_tensor_release(o[0]);
    /* exact on a quadratic with edge_order 2: d/dx x^2 = 2x */
    ct_tensor *xs = NULL, *sq = NULL;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 6, 1, &xs));
    CHECK_OK(ct_mul(ctx, xs, xs, &sq));
    CHECK_OK(ct_gradient(ctx, sq, 0, NULL, NULL, 2, o));
    double *v = o[0] ? tu_read(o[0]) : NULL;
    for (int i = 0; v && i < 6; i++)
        CHECK(v[i] == 2 * i);
    free(v), ct_tensor_release(o[0]);
    CHECK_ST(ct_gradient(ctx, g, 0, NULL, NULL, 3, o), CT_ERR_INVALID_ARG);
    ct_tensor *two = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(2), &two));
    CHECK_ST(ct_gradient(ctx, two, 0, NULL, NULL, 2, o), CT_ERR_SHAPE);
    const double zero = 0;
    CHECK_ST(ct_gradient(ctx, two, 0, NULL, &zero, 1, o), CT_ERR_INVALID_ARG);
    ct_tensor *tl[] = {g, gf, xs, sq, two};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

static ct_status f_grad2(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *o[2] = {NULL, NULL};
    const double sp[2] = {0.5, 3};
    ct_status st = ct_gradient(ctx, x, 0, NULL, sp, 2, o);
    if (st == CT_OK) st = ct_add(ctx, o[0], o[1], y);
    ct_tensor_release(o[0]), ct_tensor_release(o[1]);
    return st;
}
TEST(gradients) { tu_gradcheck(ctx, &rng, "gradient", f_grad2, 2, SH(3, 4)); }

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(windows_as_torch);
    RUN(histogram_as_torch);
    RUN(gradient_as_torch);
    RUN(gradients);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* dropout1d / 2d / 3d, alpha_dropout, feature_alpha_dropout, rrelu and gumbel_softmax by their
 * defining properties (whole channels dropped, the survivors scaled, kept fractions within 5 sigma,
 * SELU's mean and variance kept, slopes inside [lower, upper), rows summing to one, one-hot hard
 * samples with the soft gradient, reproducible draws), embedding_bag and unique_consecutive against
 * torch 1.13's tables (scripts/gen_nn_random_ref.py) with weight gradients, and error paths. */
#include "test_util.h"

#include "data/nn_random_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})

static void same_as(const char *what, const ct_tensor *t, const double *ref, int nd,
                    const int64_t *shape, double tol) {
    tu_same_as(what, t, ref, nd, shape, tol);
}
#define SAME(what, t, R, tol) same_as(what, t, R, R##_nd, R##_shape, tol)

TEST(channel_dropout) {
    ct_tensor *x = NULL, *y = NULL, *y2 = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 4, SH(40, 100, 2, 3), 2.0, &x));
    CHECK_OK(ct_dropout2d(ctx, x, 0.3, true, 7, 0, &y));
    double *v = y ? tu_read(y) : NULL;
    int kept = 0;
    for (int c = 0; v && c < 4000; c++) {
        const double first = v[c * 6];
        CHECK(first == 0 || first == (double)(2.0f * (1.0f / 0.7f)) ||
              fabs(first - 2 / 0.7) < 1e-6);
        for (int k = 1; k < 6; k++)
            CHECK(v[c * 6 + k] == first); /* the whole channel */
        kept += first != 0;
    }
    /* 4000 Bernoulli(0.7): mean 2800, sigma 29 */
    CHECK_MSG(abs(kept - 2800) < 5 * 29, "kept %d of 4000 channels", kept);
    free(v);
    CHECK_OK(ct_dropout2d(ctx, x, 0.3, true, 7, 0, &y2));
    CHECK(tu_same_values(y, y2)); /* reproducible */
    ct_tensor_release(y2), ct_tensor_release(y);
    CHECK_OK(ct_dropout2d(ctx, x, 0.3, false, 7, 0, &y));
    CHECK(y == x);
    ct_tensor_release(y);
    CHECK_OK(ct_dropout2d(ctx, x, 1.0, true, 7, 0, &y));
    v = y ? tu_read(y) : NULL;
    CHECK(v && v[0] == 0 && v[23999] == 0);
    free(v), ct_tensor_release(y);
    CHECK_ST(ct_dropout2d(ctx, x, 1.5, true, 7, 0, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_dropout1d(ctx, x, 0.5, true, 7, 0, &y), CT_ERR_SHAPE);
    ct_tensor *x5 = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 5, SH(2, 3, 2, 2, 2), &x5));
    CHECK_OK(ct_dropout3d(ctx, x5, 0.5, true, 1, 0, &y));
    v = y ? tu_read(y) : NULL;
    for (int c = 0; v && c < 6; c++)
        for (int k = 1; k < 8; k++)
            CHECK(v[c * 8 + k] == v[c * 8]);
    free(v), ct_tensor_release(y);
    ct_tensor *x3 = NULL; /* dropout1d on (N, C, L) and unbatched (C, L) */
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 2, SH(5, 4), &x3));
    CHECK_OK(ct_dropout1d(ctx, x3, 0.5, true, 3, 0, &y));
    v = y ? tu_read(y) : NULL;
    for (int c = 0; v && c < 5; c++)
        for (int k = 1; k < 4; k++)
            CHECK(v[c * 4 + k] == v[c * 4]);
    free(v), ct_tensor_release(y);
    ct_tensor_release(x), ct_tensor_release(x5), ct_tensor_release(x3);
}

TEST(alpha_dropout_keeps_selu_moments) {
    const int64_t n = 200000;
    ct_tensor *x = NULL, *y = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 1, &n, 11, 0, &x));
    const double p = 0.2, al = 1.7580993408473766, a = 1 / sqrt((al * al * p + 1) * (1 - p));
    CHECK_OK(ct_alpha_dropout(ctx, x, p, true, 5, 0, &y));
    double *xv = tu_read(x), *yv = y ? tu_read(y) : NULL, m = 0, m2 = 0;
    for (int64_t i = 0; yv && i < n; i++) {
        const double kept = a * xv[i] + al * a * p, dropped = al * a * (p - 1);
        CHECK(fabs(yv[i] - kept) < 1e-12 || fabs(yv[i] - dropped) < 1e-12);
        m += yv[i], m2 += yv[i] * yv[i];
    }
    m /= (double)n, m2 = m2 / (double)n - m * m;
    CHECK_MSG(fabs(m) < 0.01 && fabs(m2 - 1) < 0.02, "mean %g variance %g", m, m2);
    free(xv), free(yv), ct_tensor_release(y);
    ct_tensor *x4 = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 3, SH(50, 8, 4), &x4));
    CHECK_OK(ct_feature_alpha_dropout(ctx, x4, 0.5, true, 2, 0, &y));
    yv = y ? tu_read(y) : NULL;
    for (int c = 0; yv && c < 400; c++)
        for (int k = 1; k < 4; k++)
            CHECK(yv[c * 4 + k] == yv[c * 4]);
    free(yv), ct_tensor_release(y);
    CHECK_OK(ct_alpha_dropout(ctx, x, p, false, 5, 0, &y));
    CHECK(y == x);
    ct_tensor_release(y);
    CHECK_OK(ct_feature_alpha_dropout(ctx, x, p, false, 5, 0, &y)); /* 1-d in eval: x, as torch */
    CHECK(y == x);
    ct_tensor_release(y), ct_tensor_release(x), ct_tensor_release(x4);
}

TEST(rrelu_and_gumbel) {
    const int64_t n = 1000;
    ct_tensor *x = NULL, *y = NULL, *s = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 1, &n, 3, 0, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_rrelu(ctx, x, 0.1, 0.3, true, 9, 0, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    double *xv = tu_read(x), *yv = y ? tu_read(y) : NULL,
           *gv = ct_tensor_grad(x) ? tu_read(ct_tensor_grad(x)) : NULL;
    for (int64_t i = 0; yv && gv && i < n; i++) {
        if (xv[i] > 0) {
            CHECK(yv[i] == xv[i] && gv[i] == 1);
        } else {
            const double r = yv[i] / xv[i];
            CHECK(r >= 0.1 && r < 0.3 + 1e-15 && fabs(gv[i] - r) < 1e-12);
        }
    }
    free(xv), free(yv), free(gv), ct_tensor_release(y), ct_tensor_release(s);
    CHECK_OK(ct_rrelu(ctx, x, 0.1, 0.3, false, 9, 0, &y)); /* eval: slope 0.2 */
    ct_tensor *ref = NULL;
    CHECK_OK(ct_leaky_relu(ctx, x, 0.2, &ref));
    CHECK(tu_same_values(y, ref));
    ct_tensor_release(y), ct_tensor_release(ref);
    CHECK_ST(ct_rrelu(ctx, x, 0.5, 0.1, true, 9, 0, &y), CT_ERR_INVALID_ARG);
    ct_tensor_release(x);
    /* gumbel_softmax: rows sum to 1; hard rows are one-hot at the soft argmax, with the soft
     * sample's gradient */
    ct_tensor *l = NULL, *soft = NULL, *hard = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, SH(50, 6), 4, 0, &l));
    CHECK_OK(ct_tensor_set_requires_grad(l, true));
    CHECK_OK(ct_gumbel_softmax(ctx, l, 0.5, false, -1, 21, 0, &soft));
    CHECK_OK(ct_gumbel_softmax(ctx, l, 0.5, true, -1, 21, 0, &hard));
    double *sv = soft ? tu_read(soft) : NULL, *hv = hard ? tu_read(hard) : NULL;
    for (int r = 0; sv && hv && r < 50; r++) {
        double sum = 0, hsum = 0;
        int am = 0;
        for (int k = 0; k < 6; k++) {
            sum += sv[r * 6 + k], hsum += hv[r * 6 + k];
            if (sv[r * 6 + k] > sv[r * 6 + am]) am = k;
        }
        CHECK(fabs(sum - 1) < 1e-12 && fabs(hsum - 1) < 1e-12 && fabs(hv[r * 6 + am] - 1) < 1e-12);
    }
    free(sv), free(hv);
    ct_tensor *w = NULL, *p1 = NULL, *s1 = NULL;
    double wv[300];
    for (int i = 0; i < 300; i++)
        wv[i] = sin((double)i);
    CHECK_OK(ct_tensor_from_host(ctx, wv, CT_FLOAT64, 2, SH(50, 6), &w));
    CHECK_OK(ct_mul(ctx, hard, w, &p1));
    CHECK_OK(ct_sum(ctx, p1, 0, NULL, false, &s1));
    CHECK_OK(ct_backward(ctx, s1, NULL, false));
    double *g_hard = ct_tensor_grad(l) ? tu_read(ct_tensor_grad(l)) : NULL;
    ct_tensor_zero_grad(l);
    ct_tensor_release(p1), ct_tensor_release(s1);
    CHECK_OK(ct_mul(ctx, soft, w, &p1));
    CHECK_OK(ct_sum(ctx, p1, 0, NULL, false, &s1));
    CHECK_OK(ct_backward(ctx, s1, NULL, false));
    double *g_soft = ct_tensor_grad(l) ? tu_read(ct_tensor_grad(l)) : NULL;
    for (int i = 0; g_hard && g_soft && i < 300; i++)
        CHECK(fabs(g_hard[i] - g_soft[i]) < 1e-12);
    free(g_hard), free(g_soft);
    /* bfloat16 logits: the noise is drawn in float64, so no row turns NaN (torch: none) */
    ct_tensor *zb = NULL, *yb = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_BFLOAT16, 2, SH(10000, 10), &zb));
    CHECK_OK(ct_gumbel_softmax(ctx, zb, 1, false, -1, 5, 0, &yb));
    double *bv = yb ? tu_read(yb) : NULL;
    int bad = 0;
    for (int i = 0; bv && i < 100000; i++)
        bad += !isfinite(bv[i]);
    CHECK_MSG(bv && bad == 0, "%d non-finite bfloat16 gumbel values", bad);
    free(bv), ct_tensor_release(zb), ct_tensor_release(yb);
    ct_tensor *tl[] = {l, soft, hard, w, p1, s1};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

TEST(embedding_bag_as_torch) {
    ct_tensor *idx =
        tu_from_vals(ctx, CT_INT64, 1, SH(8), (const double[]){1, 4, 4, 0, 5, 2, 2, 3});
    ct_tensor *off = tu_from_vals(ctx, CT_INT64, 1, SH(4), (const double[]){0, 3, 3, 5});
    ct_tensor *off3 = tu_from_vals(ctx, CT_INT64, 1, SH(3), (const double[]){0, 3, 5});
    ct_tensor *offl = tu_from_vals(ctx, CT_INT64, 1, SH(5), (const double[]){0, 3, 3, 5, 8});
    ct_tensor *psw = tu_from_vals(ctx, CT_FLOAT64, eb_sw_nd, eb_sw_shape, eb_sw);
    const struct {
        const char *name;
        ct_embedding_bag_mode mode;
        const ct_tensor *off;
        const ct_tensor *psw;
        bool last;
        int64_t pad;
        const double *y, *gw;
        int nd;
        const int64_t *shape;
    } cases[] = {
        {"sum", CT_EMBEDDING_BAG_SUM, off, NULL, false, CT_NO_PADDING_IDX, eb_sum, eb_sum_gw,
         eb_sum_nd, eb_sum_shape},
        {"mean", CT_EMBEDDING_BAG_MEAN, off, NULL, false, CT_NO_PADDING_IDX, eb_mean, eb_mean_gw,
         eb_mean_nd, eb_mean_shape},
        {"max", CT_EMBEDDING_BAG_MAX, off3, NULL, false, CT_NO_PADDING_IDX, eb_max, eb_max_gw,
         eb_max_nd, eb_max_shape},
        {"per_sample_weights", CT_EMBEDDING_BAG_SUM, off, psw, false, CT_NO_PADDING_IDX, eb_psw,
         eb_psw_gw, eb_psw_nd, eb_psw_shape},
        {"include_last_offset", CT_EMBEDDING_BAG_MEAN, offl, NULL, true, CT_NO_PADDING_IDX, eb_last,
         eb_last_gw, eb_last_nd, eb_last_shape},
        {"padding_idx", CT_EMBEDDING_BAG_MEAN, off, NULL, false, 4, eb_pad, eb_pad_gw, eb_pad_nd,
         eb_pad_shape},
        {"padding_idx max", CT_EMBEDDING_BAG_MAX, off3, NULL, false, 2, eb_padmax, eb_padmax_gw,
         eb_padmax_nd, eb_padmax_shape},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ct_tensor *w = tu_from_vals(ctx, CT_FLOAT64, eb_w_nd, eb_w_shape, eb_w), *y = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(w, true));
        CHECK_OK(ct_embedding_bag(ctx, w, idx, cases[k].off, cases[k].mode, cases[k].psw,
                                  cases[k].last, cases[k].pad, &y));
        same_as(cases[k].name, y, cases[k].y, cases[k].nd, cases[k].shape, 1e-15);
        if (y) {
            int64_t n = ct_tensor_numel(y);
            double *wv = malloc(sizeof(double) * (size_t)n);
            for (int64_t i = 0; i < n; i++)
                wv[i] = sin((double)i);
            ct_tensor *g = NULL, *p = NULL, *s = NULL;
            CHECK_OK(ct_tensor_from_host(ctx, wv, CT_FLOAT64, 2, ct_tensor_shape(y), &g));
            CHECK_OK(ct_mul(ctx, y, g, &p));
            CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &s));
            CHECK_OK(ct_backward(ctx, s, NULL, false));
            same_as(cases[k].name, ct_tensor_grad(w), cases[k].gw, eb_w_nd, eb_w_shape, 1e-15);
            free(wv), ct_tensor_release(g), ct_tensor_release(p), ct_tensor_release(s);
        }
        ct_tensor_release(y), ct_tensor_release(w);
    }
    ct_tensor *w = tu_from_vals(ctx, CT_FLOAT64, eb_w_nd, eb_w_shape, eb_w), *y = NULL;
    CHECK_OK(ct_embedding_bag(ctx, w, idx, off, CT_EMBEDDING_BAG_MAX, NULL, false,
                              CT_NO_PADDING_IDX, &y));
    SAME("max with an empty bag", y, eb_max_empty, 0);
    ct_tensor_release(y);
    ct_tensor *i2 = tu_from_vals(ctx, CT_INT64, 2, SH(2, 3), (const double[]){0, 2, 2, 5, 1, 0});
    CHECK_OK(ct_embedding_bag(ctx, w, i2, NULL, CT_EMBEDDING_BAG_MAX, NULL, false,
                              CT_NO_PADDING_IDX, &y));
    SAME("2-d input", y, eb_2d, 0);
    ct_tensor_release(y);
    CHECK_ST(ct_embedding_bag(ctx, w, idx, off, CT_EMBEDDING_BAG_MEAN, psw, false,
                              CT_NO_PADDING_IDX, &y),
             CT_ERR_INVALID_ARG);
    CHECK_ST(
        ct_embedding_bag(ctx, w, i2, off, CT_EMBEDDING_BAG_SUM, NULL, false, CT_NO_PADDING_IDX, &y),
        CT_ERR_INVALID_ARG);
    CHECK_ST(ct_embedding_bag(ctx, w, idx, NULL, CT_EMBEDDING_BAG_SUM, NULL, false,
                              CT_NO_PADDING_IDX, &y),
             CT_ERR_SHAPE);
    CHECK_ST(ct_embedding_bag(ctx, w, idx, off, CT_EMBEDDING_BAG_SUM, NULL, false, 6, &y),
             CT_ERR_INDEX);
    /* torch's offset checks: the first is 0, none decreases, the last within the input */
    ct_tensor *o1 = tu_from_vals(ctx, CT_INT64, 1, SH(2), (const double[]){1, 2}),
              *o2 = tu_from_vals(ctx, CT_INT64, 1, SH(2), (const double[]){0, 9}),
              *o3 = tu_from_vals(ctx, CT_INT64, 1, SH(3), (const double[]){0, 4, 2});
    CHECK_ST(
        ct_embedding_bag(ctx, w, idx, o1, CT_EMBEDDING_BAG_SUM, NULL, false, CT_NO_PADDING_IDX, &y),
        CT_ERR_INDEX);
    CHECK_ST(
        ct_embedding_bag(ctx, w, idx, o2, CT_EMBEDDING_BAG_SUM, NULL, false, CT_NO_PADDING_IDX, &y),
        CT_ERR_INDEX);
    CHECK_ST(ct_embedding_bag(ctx, w, idx, o3, CT_EMBEDDING_BAG_MEAN, NULL, false,
                              CT_NO_PADDING_IDX, &y),
             CT_ERR_INDEX);
    ct_tensor_release(o1), ct_tensor_release(o2), ct_tensor_release(o3);
    /* a bag of -inf rows keeps -inf in max mode (torch); an empty bag is 0 */
    ct_tensor *wi = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(6, 3), -INFINITY, &wi));
    CHECK_OK(ct_embedding_bag(ctx, wi, idx, off, CT_EMBEDDING_BAG_MAX, NULL, false,
                              CT_NO_PADDING_IDX, &y));
    double *yv = y ? tu_read(y) : NULL;
    CHECK(yv && yv[0] == -INFINITY && yv[3] == 0 && yv[6] == -INFINITY);
    free(yv), ct_tensor_release(y), ct_tensor_release(wi);
    ct_tensor *bad = tu_from_vals(ctx, CT_INT64, 1, SH(2), (const double[]){0, 6});
    CHECK_ST(ct_embedding_bag(ctx, w, bad, off, CT_EMBEDDING_BAG_SUM, NULL, false,
                              CT_NO_PADDING_IDX, &y),
             CT_ERR_INDEX);
    ct_tensor *tl[] = {idx, off, off3, offl, psw, w, i2, bad};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

TEST(unique_consecutive_as_torch) {
    ct_tensor *u = tu_from_vals(ctx, CT_FLOAT32, uc_x_nd, uc_x_shape, uc_x), *v = NULL, *inv = NULL,
              *cnt = NULL;
    CHECK_OK(ct_unique_consecutive(ctx, u, &v, &inv, &cnt));
    SAME("unique_consecutive values", v, uc_v, 0);
    SAME("unique_consecutive inverse", inv, uc_inv, 0);
    SAME("unique_consecutive counts", cnt, uc_cnt, 0);
    ct_tensor_release(v), ct_tensor_release(inv), ct_tensor_release(cnt);
    CHECK_OK(ct_unique_consecutive(ctx, u, &v, NULL, NULL));
    SAME("unique_consecutive values only", v, uc_v, 0);
    ct_tensor_release(v);
    ct_tensor *e = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, SH(0), &e));
    CHECK_OK(ct_unique_consecutive(ctx, e, &v, &inv, &cnt));
    CHECK(tu_same_shape(v, 1, SH(0)) && tu_same_shape(cnt, 1, SH(0)));
    ct_tensor_release(v), ct_tensor_release(inv), ct_tensor_release(cnt);
    ct_tensor_release(u), ct_tensor_release(e);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(channel_dropout);
    RUN(alpha_dropout_keeps_selu_moments);
    RUN(rrelu_and_gumbel);
    RUN(embedding_bag_as_torch);
    RUN(unique_consecutive_as_torch);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Sequence models as a PyTorch user writes them with nn.RNN / nn.LSTM / nn.GRU and attention:
 * ct_gru over a scalar sequence checked against the recurrence worked out by hand, a two-layer
 * bidirectional batch-first ct_lstm whose output and final states are checked against each other,
 * a gradient through ct_rnn against its closed form, ct_scaled_dot_product_attention with a causal
 * mask against softmax weights by hand, and ct_multi_head_attention_forward with identity
 * projections against it, and ct_ctc_loss of a two-step sequence against its three alignments.
 * Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[64];
static int npool;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define SHP(...)                                                                                   \
    (const int64_t[]) { __VA_ARGS__ }
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 64) ct_tensor_release(t);
    return t && npool < 64 ? (pool[npool++] = t) : NULL;
}
static ct_tensor *vals(int nd, const int64_t *shape, const double *v) {
    ct_tensor *t = NULL;
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &t) == CT_OK ? keep(t) : NULL;
}
static double at(const ct_tensor *t, int64_t i) {
    double v[64] = {0};
    if (!t || ct_tensor_numel(t) > 64 ||
        ct_tensor_to_host(t, v, sizeof(double) * (size_t)ct_tensor_numel(t)) != CT_OK)
        return NAN;
    return v[i];
}
static int near(const char *what, double got, double want) {
    const int ok = fabs(got - want) <= 1e-13 * (1 + fabs(want));
    printf("%-34s %.17g%s\n", what, got, ok ? "" : " (expected a different value)");
    return !ok;
}
static double sigm(double v) { return 1 / (1 + exp(-v)); }

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *y = NULL, *hn = NULL, *cn = NULL;

    /* GRU, input 1, hidden 1, sequence (0.5, -1, 2), batch 1: gates r, z, n by hand */
    const double xs[3] = {0.5, -1, 2}, wi[3] = {0.3, -0.7, 1.1}, wh[3] = {0.9, 0.2, -0.4},
                 bi[3] = {0.1, 0.2, 0.3}, bh[3] = {-0.1, 0.05, 0.4};
    const ct_tensor *gp[4] = {vals(2, SHP(3, 1), wi), vals(2, SHP(3, 1), wh), vals(1, SHP(3), bi),
                              vals(1, SHP(3), bh)};
    CHECK(ct_gru(ctx, vals(3, SHP(3, 1, 1), xs), NULL, gp, 4, NULL, &y, &hn));
    keep(y), keep(hn);
    double h = 0;
    for (int t = 0; t < 3; t++) {
        const double r = sigm(wi[0] * xs[t] + bi[0] + wh[0] * h + bh[0]);
        const double z = sigm(wi[1] * xs[t] + bi[1] + wh[1] * h + bh[1]);
        const double n = tanh(wi[2] * xs[t] + bi[2] + r * (wh[2] * h + bh[2]));
        h = (1 - z) * n + z * h;
        char what[40];
        snprintf(what, sizeof what, "gru out[%d]", t);
        if (near(what, at(y, t), h)) goto fail;
    }
    if (near("gru h_n", at(hn, 0), h)) goto fail;

    /* LSTM, 2 layers, bidirectional, batch_first: x (batch 1, seq 3, input 2), hidden 2 */
    const ct_tensor *lp[16];
    for (int i = 0; i < 16; i++) { /* per layer and direction: w_ih, w_hh, b_ih, b_hh */
        const int k = i % 4, l = i / 8;
        const int64_t cols = k == 0 ? (l ? 4 : 2) : 2;
        ct_tensor *w = NULL;
        if (k < 2)
            CHECK(ct_tensor_randn(ctx, CT_FLOAT64, 2, SHP(8, cols), 100 + (uint64_t)i, 0, &w));
        else
            CHECK(ct_tensor_randn(ctx, CT_FLOAT64, 1, SHP(8), 100 + (uint64_t)i, 0, &w));
        lp[i] = keep(w);
    }
    const ct_rnn_opts o = {.num_layers = 2, .bidirectional = true, .batch_first = true};
    CHECK(ct_lstm(ctx, vals(3, SHP(1, 3, 2), (const double[]){1, 0, 0, 1, -1, 1}), NULL, NULL, lp,
                  16, &o, &y, &hn, &cn));
    keep(y), keep(hn), keep(cn);
    printf("lstm out %lld x %lld x %lld, h_n and c_n %lld x %lld x %lld\n",
           (long long)ct_tensor_shape(y)[0], (long long)ct_tensor_shape(y)[1],
           (long long)ct_tensor_shape(y)[2], (long long)ct_tensor_shape(hn)[0],
           (long long)ct_tensor_shape(hn)[1], (long long)ct_tensor_shape(hn)[2]);
    /* the last layer's forward state ends at the last step, its reverse state at the first:
     * out[0, 2, 0:2] = h_n[2], out[0, 0, 2:4] = h_n[3] */
    if (near("lstm out[0,2,0] = h_n[2,0,0]", at(y, 8), at(hn, 4)) ||
        near("lstm out[0,0,3] = h_n[3,0,1]", at(y, 3), at(hn, 7)))
        goto fail;

    /* d sum(out) / d x of a one-step tanh RNN: w (1 - out^2) */
    ct_tensor *x1 = vals(2, SHP(1, 1), (const double[]){0.25}), *s = NULL;
    CHECK(ct_tensor_set_requires_grad(x1, true));
    const ct_tensor *rp[2] = {vals(2, SHP(1, 1), (const double[]){1.5}),
                              vals(2, SHP(1, 1), (const double[]){0.5})};
    const ct_rnn_opts nb = {.no_bias = true};
    CHECK(ct_rnn(ctx, x1, vals(2, SHP(1, 1), (const double[]){0.2}), rp, 2, &nb, &y, NULL));
    keep(y);
    CHECK(ct_sum(ctx, y, 0, NULL, false, &s));
    keep(s);
    CHECK(ct_backward(ctx, s, NULL, false));
    const double o1 = tanh(1.5 * 0.25 + 0.5 * 0.2);
    if (near("rnn out", at(y, 0), o1) ||
        near("rnn d out / d x", at(ct_tensor_grad(x1), 0), 1.5 * (1 - o1 * o1)))
        goto fail;

    /* attention: 2 queries, 2 keys (E 2), causal: query 0 sees key 0 only, query 1 both with
     * weights softmax(q1 . k / sqrt(2)) */
    const double qv[4] = {1, 0, 0.5, 2}, kv[4] = {1, 1, -1, 0.5}, vv[4] = {1, 2, 3, 4};
    ct_tensor *q = vals(2, SHP(2, 2), qv), *k = vals(2, SHP(2, 2), kv), *v = vals(2, SHP(2, 2), vv);
    const ct_sdpa_opts causal = {.is_causal = true};
    CHECK(ct_scaled_dot_product_attention(ctx, q, k, v, &causal, &y));
    keep(y);
    const double s0 = (0.5 * 1 + 2 * 1) / sqrt(2.0), s1 = (0.5 * -1 + 2 * 0.5) / sqrt(2.0);
    const double p0 = 1 / (1 + exp(s1 - s0));
    if (near("sdpa out[0,0] (key 0 only)", at(y, 0), 1) ||
        near("sdpa out[1,1]", at(y, 3), p0 * 2 + (1 - p0) * 4))
        goto fail;
    /* one head with identity projections: the same attention (without the mask) */
    ct_tensor *eye = NULL, *q3 = NULL, *k3 = NULL, *v3 = NULL, *sd = NULL;
    CHECK(ct_tensor_eye(ctx, CT_FLOAT64, 2, 2, &eye));
    keep(eye);
    CHECK(ct_tensor_unsqueeze(ctx, q, 1, &q3)); /* (L, N = 1, E) */
    keep(q3);
    CHECK(ct_tensor_unsqueeze(ctx, k, 1, &k3));
    keep(k3);
    CHECK(ct_tensor_unsqueeze(ctx, v, 1, &v3));
    keep(v3);
    ct_tensor *wpk = NULL;
    CHECK(ct_cat(ctx, 3, (const ct_tensor *[]){eye, eye, eye}, 0, &wpk));
    keep(wpk);
    const ct_mha_opts mo = {.in_proj_weight = wpk};
    ct_tensor *aw = NULL;
    CHECK(ct_multi_head_attention_forward(ctx, q3, k3, v3, 1, eye, NULL, &mo, &y, &aw));
    keep(y), keep(aw);
    CHECK(ct_scaled_dot_product_attention(ctx, q, k, v, NULL, &sd));
    keep(sd);
    if (near("mha out[1,0,1] = sdpa out[1,1]", at(y, 3), at(sd, 3)) ||
        near("mha weights[0,1,0]", at(aw, 2), p0))
        goto fail;

    /* CTC: 2 steps over {blank, a}, target "a": the alignments "aa", "-a", "a-" */
    const double pa[2] = {0.7, 0.4}; /* P(a) at each step */
    ct_tensor *clp =
        vals(3, SHP(2, 1, 2), (const double[]){log(0.3), log(0.7), log(0.6), log(0.4)});
    ct_tensor *tg = NULL, *il = NULL, *tl = NULL, *ctc = NULL;
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){1}, CT_INT64, 2, SHP(1, 1), &tg));
    keep(tg);
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){2}, CT_INT64, 1, SHP(1), &il));
    keep(il);
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){1}, CT_INT64, 1, SHP(1), &tl));
    keep(tl);
    CHECK(ct_ctc_loss(ctx, clp, tg, il, tl, 0, CT_REDUCTION_SUM, false, &ctc));
    keep(ctc);
    const double pall = pa[0] * pa[1] + (1 - pa[0]) * pa[1] + pa[0] * (1 - pa[1]);
    if (near("ctc_loss", at(ctc, 0), -log(pall))) goto fail;
    printf("all sequence checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

/* More of torch.nn.functional, as a PyTorch user writes it: conv_transpose1d / 2d (a decoder's
 * upsampling), max / avg / adaptive pools in 1-d, adaptive_max_pool1d / 2d with indices,
 * max_unpool1d / 2d, lp_pool1d / 2d, instance_norm, local_response_norm, bilinear,
 * channel_shuffle, the RNN cells (rnn_tanh, rnn_relu, lstm, gru) and the multi_margin /
 * multilabel_margin losses, dropout1d / 2d / 3d, alpha_dropout, feature_alpha_dropout, rrelu,
 * gumbel_softmax, embedding_bag, unique_consecutive, affine_grid and grid_sample. Each result is
 * printed and checked against values worked out by hand, then one gradient through an LSTM cell.
 * Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[128];
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
#define NVALS(...) ((int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 128) ct_tensor_release(t); /* full: not kept, nothing leaks */
    return t && npool < 128 ? (pool[npool++] = t) : NULL;
}
static ct_tensor *f64(int n, const double *v) {
    ct_tensor *t = NULL;
    const int64_t shape[1] = {n};
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, 1, shape, &t) == CT_OK ? keep(t) : NULL;
}
/* print t's values and compare them with want (relative 1e-14, or equal) */
static int show(const char *label, ct_tensor *t, const double *want, int n) {
    double v[16];
    int bad = !t || ct_tensor_numel(t) != n || n > 16;
    if (!bad && ct_tensor_dtype(t) != CT_FLOAT64) {
        ct_tensor *c = NULL;
        bad = ct_cast(ctx, t, CT_FLOAT64, &c) != CT_OK || !keep(c);
        t = c;
    }
    if (!bad) bad = ct_tensor_to_host(t, v, sizeof(double) * (size_t)n) != CT_OK;
    printf("%-26s [", label);
    for (int i = 0; i < n && !bad; i++) {
        const int ok = v[i] == want[i] || fabs(v[i] - want[i]) <= 1e-14 * fabs(want[i]);
        printf("%s%.17g%s", i ? " " : "", v[i], ok ? "" : "(!)");
        bad |= !ok;
    }
    printf("]\n");
    return bad;
}
#define EXPECT(label, t, ...)                                                                      \
    do {                                                                                           \
        if (show(label, keep(t), (const double[]){__VA_ARGS__}, NVALS(__VA_ARGS__))) goto fail;    \
    } while (0)
static ct_tensor *shaped(int n, const double *v, int nd, const int64_t *shape) {
    ct_tensor *t = f64(n, v), *r = NULL;
    return t && ct_tensor_reshape(ctx, t, nd, shape, &r) == CT_OK ? keep(r) : NULL;
}
#define SHP(...)                                                                                   \
    (const int64_t[]) { __VA_ARGS__ }

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *r = NULL, *ix = NULL;

    /* conv_transpose2d of a 2x2 image by a 2x2 kernel of ones, stride 2: each pixel becomes a
     * 2x2 block */
    ct_tensor *img = shaped(4, (const double[]){1, 2, 3, 4}, 4, SHP(1, 1, 2, 2));
    ct_tensor *k1 = shaped(4, (const double[]){1, 1, 1, 1}, 4, SHP(1, 1, 2, 2));
    CHECK(
        ct_conv_transpose2d(ctx, img, k1, NULL, SHP(2, 2), SHP(0, 0), SHP(0, 0), 1, SHP(1, 1), &r));
    EXPECT("conv_transpose2d", r, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4);
    ct_tensor *s3 = shaped(3, (const double[]){1, 2, 3}, 3, SHP(1, 1, 3));
    ct_tensor *k2 = shaped(2, (const double[]){1, 10}, 3, SHP(1, 1, 2));
    CHECK(ct_conv_transpose1d(ctx, s3, k2, NULL, 1, 0, 0, 1, 1, &r)); /* full convolution */
    EXPECT("conv_transpose1d", r, 1, 12, 23, 30);

    /* 1-d pools over (1, 1, 6) */
    ct_tensor *q = shaped(6, (const double[]){3, 1, 4, 1, 5, 9}, 3, SHP(1, 1, 6));
    CHECK(ct_max_pool1d(ctx, q, 2, 0, 0, 1, false, &r, &ix));
    keep(ix);
    EXPECT("max_pool1d", r, 3, 4, 9);
    EXPECT("max_pool1d indices", ct_tensor_retain(ix), 0, 2, 5);
    CHECK(ct_max_unpool1d(ctx, r, ix, 2, 0, 0, -1, &r));
    EXPECT("max_unpool1d", r, 3, 0, 4, 0, 0, 9);
    CHECK(ct_avg_pool1d(ctx, q, 3, 3, 0, false, true, &r));
    EXPECT("avg_pool1d", r, 8.0 / 3, 5);
    CHECK(ct_adaptive_avg_pool1d(ctx, q, 2, &r));
    EXPECT("adaptive_avg_pool1d", r, 8.0 / 3, 5);
    CHECK(ct_adaptive_max_pool1d(ctx, q, 2, &r, &ix));
    keep(ix);
    EXPECT("adaptive_max_pool1d", r, 4, 9);
    CHECK(ct_lp_pool1d(ctx, q, 1, 2, 0, false, &r)); /* p = 1: window sums */
    EXPECT("lp_pool1d(p=1)", r, 4, 5, 14);

    /* 2-d: adaptive max with indices, unpool, lp_pool */
    ct_tensor *m =
        shaped(16, (const double[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 4,
               SHP(1, 1, 4, 4));
    CHECK(ct_adaptive_max_pool2d(ctx, m, SHP(2, 2), &r, &ix));
    keep(ix);
    EXPECT("adaptive_max_pool2d", r, 6, 8, 14, 16);
    EXPECT("adaptive_max_pool2d indices", ct_tensor_retain(ix), 5, 7, 13, 15);
    CHECK(ct_max_unpool2d(ctx, r, ix, SHP(2, 2), NULL, NULL, NULL, &r));
    EXPECT("max_unpool2d", r, 0, 0, 0, 0, 0, 6, 0, 8, 0, 0, 0, 0, 0, 14, 0, 16);
    CHECK(ct_lp_pool2d(ctx, m, 2, SHP(4, 4), NULL, false, &r)); /* the Frobenius norm */
    EXPECT("lp_pool2d(p=2)", r, sqrt(1496.0));

    /* normalisation: instance_norm of (1, 1, 2) rows is +-1 (eps 0); lrn with alpha 0 is x / k^b */
    ct_tensor *pair = shaped(2, (const double[]){1, 3}, 3, SHP(1, 1, 2));
    CHECK(ct_instance_norm(ctx, pair, NULL, NULL, NULL, NULL, true, 0.1, 0, &r));
    EXPECT("instance_norm", r, -1, 1);
    CHECK(ct_local_response_norm(ctx, pair, 1, 0, 1, 2, &r));
    EXPECT("local_response_norm", r, 0.5, 1.5);

    /* bilinear with w = identity: x1 . x2 */
    ct_tensor *a = shaped(2, (const double[]){1, 2}, 2, SHP(1, 2));
    ct_tensor *b = shaped(2, (const double[]){3, 4}, 2, SHP(1, 2));
    ct_tensor *eye = shaped(4, (const double[]){1, 0, 0, 1}, 3, SHP(1, 2, 2));
    CHECK(ct_bilinear(ctx, a, b, eye, f64(1, (const double[]){0.5}), &r));
    EXPECT("bilinear", r, 11.5);
    ct_tensor *ch = shaped(4, (const double[]){0, 1, 2, 3}, 3, SHP(1, 4, 1));
    CHECK(ct_channel_shuffle(ctx, ch, 2, &r));
    EXPECT("channel_shuffle", r, 0, 2, 1, 3);

    /* RNN cells with zero weights and biases 0.5 (ih) and 0 (hh): every gate sees 0.5 */
    ct_tensor *x = shaped(2, (const double[]){1, -1}, 2, SHP(1, 2));
    ct_tensor *h = shaped(1, (const double[]){0.25}, 2, SHP(1, 1));
    ct_tensor *c = shaped(1, (const double[]){2}, 2, SHP(1, 1));
    ct_tensor *w4 = shaped(8, (const double[]){0, 0, 0, 0, 0, 0, 0, 0}, 2, SHP(4, 2));
    ct_tensor *u4 = shaped(4, (const double[]){0, 0, 0, 0}, 2, SHP(4, 1));
    ct_tensor *b4 = f64(4, (const double[]){0.5, 0.5, 0.5, 0.5});
    ct_tensor *z4 = f64(4, (const double[]){0, 0, 0, 0});
    ct_tensor *w1 = NULL, *u1 = NULL, *b1 = NULL, *z1 = NULL, *w3 = NULL, *u3 = NULL, *b3 = NULL,
              *z3 = NULL, *hy = NULL, *cy = NULL;
    CHECK(ct_tensor_narrow(ctx, w4, 0, 0, 1, &w1));
    keep(w1);
    CHECK(ct_tensor_narrow(ctx, u4, 0, 0, 1, &u1));
    keep(u1);
    CHECK(ct_tensor_narrow(ctx, b4, 0, 0, 1, &b1));
    keep(b1);
    CHECK(ct_tensor_narrow(ctx, z4, 0, 0, 1, &z1));
    keep(z1);
    CHECK(ct_rnn_tanh_cell(ctx, x, h, w1, u1, b1, z1, &r));
    EXPECT("rnn_tanh_cell", r, tanh(0.5));
    CHECK(ct_rnn_relu_cell(ctx, x, h, w1, u1, b1, NULL, &r));
    EXPECT("rnn_relu_cell", r, 0.5);
    const double sg = 1 / (1 + exp(-0.5));
    CHECK(ct_tensor_set_requires_grad(c, true));
    CHECK(ct_lstm_cell(ctx, x, h, c, w4, u4, b4, z4, &hy, &cy));
    keep(hy), keep(cy);
    EXPECT("lstm_cell c", ct_tensor_retain(cy), sg * 2 + sg * tanh(0.5));
    EXPECT("lstm_cell h", ct_tensor_retain(hy), sg * tanh(sg * 2 + sg * tanh(0.5)));
    CHECK(ct_tensor_narrow(ctx, w4, 0, 0, 3, &w3));
    keep(w3);
    CHECK(ct_tensor_narrow(ctx, u4, 0, 0, 3, &u3));
    keep(u3);
    CHECK(ct_tensor_narrow(ctx, b4, 0, 0, 3, &b3));
    keep(b3);
    CHECK(ct_tensor_narrow(ctx, z4, 0, 0, 3, &z3));
    keep(z3);
    CHECK(ct_gru_cell(ctx, x, h, w3, u3, b3, z3, &r)); /* (h - n) z + n, n = tanh(0.5) */
    EXPECT("gru_cell", r, (0.25 - tanh(0.5)) * sg + tanh(0.5));

    /* margin losses: scores (1, 3) = [0.2, 0.9, 0.1], class 1 */
    ct_tensor *sc = shaped(3, (const double[]){0.2, 0.9, 0.1}, 2, SHP(1, 3));
    ct_tensor *cls = NULL, *lab = NULL;
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){1}, CT_INT64, 1, SHP(1), &cls));
    keep(cls);
    CHECK(ct_multi_margin_loss(ctx, sc, cls, 1, 1, NULL, CT_REDUCTION_MEAN, &r));
    EXPECT("multi_margin_loss", r, (0.3 + 0.2) / 3);
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){1, -1, 0}, CT_INT64, 2, SHP(1, 3), &lab));
    keep(lab);
    CHECK(ct_multilabel_margin_loss(ctx, sc, lab, CT_REDUCTION_MEAN, &r));
    EXPECT("multilabel_margin_loss", r, (0.3 + 0.2) / 3);

    /* random regularisers (reproducible from seed and offset) and bags */
    ct_tensor *chan = shaped(8, (const double[]){1, 1, 1, 1, 1, 1, 1, 1}, 3, SHP(1, 4, 2));
    CHECK(ct_dropout1d(ctx, chan, 0.5, true, 42, 0, &r)); /* each channel 0 or 2, both values */
    keep(r);
    double dv[8];
    CHECK(ct_tensor_to_host(r, dv, sizeof dv));
    for (int i = 0; i < 8; i += 2)
        if (dv[i] != dv[i + 1] || (dv[i] != 0 && dv[i] != 2)) goto fail;
    printf("dropout1d(p=0.5)           channels [%g %g %g %g]\n", dv[0], dv[2], dv[4], dv[6]);
    ct_tensor *img4 = shaped(8, (const double[]){1, 1, 1, 1, 1, 1, 1, 1}, 4, SHP(1, 2, 2, 2));
    CHECK(ct_dropout2d(ctx, img4, 0, true, 42, 0, &r)); /* p = 0: the input itself */
    EXPECT("dropout2d(p=0)", r, 1, 1, 1, 1, 1, 1, 1, 1);
    ct_tensor *vol = shaped(2, (const double[]){3, 3}, 5, SHP(1, 2, 1, 1, 1));
    CHECK(ct_dropout3d(ctx, vol, 0.5, false, 42, 0, &r)); /* eval: the input itself */
    EXPECT("dropout3d(eval)", r, 3, 3);
    CHECK(ct_alpha_dropout(ctx, pair, 0.5, false, 1, 0, &r));
    EXPECT("alpha_dropout(eval)", r, 1, 3);
    CHECK(ct_feature_alpha_dropout(ctx, chan, 1.0, true, 1, 0, &r)); /* p = 1: zeros */
    EXPECT("feature_alpha_dropout(p=1)", r, 0, 0, 0, 0, 0, 0, 0, 0);
    ct_tensor *neg = f64(2, (const double[]){-2, 4});
    CHECK(ct_rrelu(ctx, neg, 0.25, 0.25, true, 1, 0, &r)); /* lower == upper: slope 0.25 */
    EXPECT("rrelu(lower=upper=0.25)", r, -0.5, 4);
    ct_tensor *lg = shaped(3, (const double[]){0, 0, 50}, 2, SHP(1, 3));
    CHECK(ct_gumbel_softmax(ctx, lg, 1, true, -1, 7, 0, &r)); /* logit 50 wins whatever the noise */
    EXPECT("gumbel_softmax(hard)", r, 0, 0, 1);
    ct_tensor *tab = shaped(6, (const double[]){1, 2, 3, 4, 5, 6}, 2, SHP(3, 2));
    ct_tensor *bag_ix = NULL, *bag_off = NULL;
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){0, 2, 1}, CT_INT64, 1, SHP(3), &bag_ix));
    keep(bag_ix);
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){0, 2}, CT_INT64, 1, SHP(2), &bag_off));
    keep(bag_off);
    CHECK(ct_embedding_bag(ctx, tab, bag_ix, bag_off, CT_EMBEDDING_BAG_MEAN, NULL, false,
                           CT_NO_PADDING_IDX, &r)); /* bags {0, 2} and {1} */
    EXPECT("embedding_bag(mean)", r, 3, 4, 3, 4);
    ct_tensor *runs = f64(6, (const double[]){1, 1, 2, 2, 2, 1}), *uv = NULL, *ui = NULL,
              *uc = NULL;
    CHECK(ct_unique_consecutive(ctx, runs, &uv, &ui, &uc));
    keep(ui), keep(uc);
    EXPECT("unique_consecutive", uv, 1, 2, 1);
    EXPECT("unique_consecutive counts", ct_tensor_retain(uc), 2, 3, 1);

    /* affine_grid with the identity theta, then grid_sample: the image comes back */
    ct_tensor *ident = shaped(6, (const double[]){1, 0, 0, 0, 1, 0}, 3, SHP(1, 2, 3)), *grid = NULL;
    CHECK(ct_affine_grid(ctx, ident, SHP(1, 1, 4, 4), false, &grid));
    keep(grid);
    CHECK(ct_grid_sample(ctx, m, grid, CT_GRID_BILINEAR, CT_GRID_PAD_ZEROS, false, &r));
    EXPECT("grid_sample(identity)", r, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

    /* d hy / d cx of the LSTM cell = o (1 - tanh^2(cy)) f */
    CHECK(ct_backward(ctx, hy, NULL, false));
    const double cv = sg * 2 + sg * tanh(0.5), th = tanh(cv);
    EXPECT("lstm d hy / d cx", ct_tensor_retain(ct_tensor_grad(c)), sg * (1 - th * th) * sg);
    /* fake quantization (QAT): scale 0.5, zero point 2, range [0, 7]: q = 2 + round(2 x) */
    ct_tensor *fx = f64(5, (const double[]){-1.3, 0.25, 0.75, 2.6, 100}), *fs = NULL, *fz = NULL;
    CHECK(ct_fake_quantize_per_tensor_affine(ctx, fx, 0.5, 2, 0, 7, &r));
    EXPECT("fake_quantize_per_tensor", r, -1, 0, 1, 2.5, 2.5);
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 1, SHP(1), 0.5, &fs));
    keep(fs);
    CHECK(ct_tensor_full(ctx, CT_INT32, 1, SHP(1), 2, &fz));
    keep(fz);
    ct_tensor *fx2 = shaped(5, (const double[]){-1.3, 0.25, 0.75, 2.6, 100}, 2, SHP(1, 5));
    CHECK(ct_fake_quantize_per_channel_affine(ctx, fx2, fs, fz, 0, 0, 7, &r)); /* one channel */
    EXPECT("fake_quantize_per_channel", r, -1, 0, 1, 2.5, 2.5);
    /* the learnable (LSQ) forms take scale and zero point as float32 tensors (zero point 2.0,
     * range [-8, 7]: the same values as above but 100 -> 2.5) */
    ct_tensor *lx = NULL, *lz = NULL;
    CHECK(ct_cast(ctx, fx, CT_FLOAT32, &lx));
    keep(lx);
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 1, SHP(1), 2, &lz));
    keep(lz);
    CHECK(ct_fake_quantize_learnable_per_tensor_affine(ctx, lx, fs, lz, -8, 7, 1.0, &r));
    EXPECT("fake_quantize_learnable_per_tensor", r, -1.5, 0, 1, 2.5, 2.5);
    ct_tensor *lx2 = NULL;
    CHECK(ct_cast(ctx, fx2, CT_FLOAT32, &lx2));
    keep(lx2);
    CHECK(ct_fake_quantize_learnable_per_channel_affine(ctx, lx2, fs, lz, 0, -8, 7, 1.0, &r));
    EXPECT("fake_quantize_learnable_per_channel", r, -1.5, 0, 1, 2.5, 2.5);
    printf("all nn checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

/* The remaining everyday losses of torch.nn.functional and pixel_shuffle, as a training script
 * calls them: margin_ranking_loss, hinge_embedding_loss, soft_margin_loss,
 * cosine_embedding_loss, poisson_nll_loss, gaussian_nll_loss, triplet_margin_loss
 * (and with a distance of one's own),
 * multilabel_soft_margin_loss, pairwise_distance, pixel_shuffle and pixel_unshuffle. Each value
 * is printed and checked against the formula worked out by hand, then one gradient through
 * gaussian_nll_loss. Build and run: see README ("Examples"). */
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
#define NVALS(...) ((int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 64) ct_tensor_release(t); /* full: not kept, nothing leaks */
    return t && npool < 64 ? (pool[npool++] = t) : NULL;
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

/* a distance for ct_triplet_margin_with_distance_loss: sum over the last dim of (x1 - x2)^2 */
static ct_status squared_l2(ct_ctx *c, const ct_tensor *x1, const ct_tensor *x2, void *user,
                            ct_tensor **out) {
    (void)user;
    ct_tensor *d = NULL, *q = NULL;
    ct_status st = ct_sub(c, x1, x2, &d);
    if (st == CT_OK) st = ct_mul(c, d, d, &q);
    if (st == CT_OK) st = ct_sum(c, q, 1, (const int[]){-1}, false, out);
    ct_tensor_release(d), ct_tensor_release(q);
    return st;
}

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *r = NULL;
    ct_tensor *x = f64(2, (const double[]){1, -0.5}), *y = f64(2, (const double[]){0.5, 0.5});
    ct_tensor *t = f64(2, (const double[]){1, -1});

    CHECK(ct_margin_ranking_loss(ctx, x, y, t, 0.25, CT_REDUCTION_NONE, &r));
    EXPECT("margin_ranking", r, 0, 0); /* max(0, -(0.5) + .25), max(0, -1 + .25) */
    CHECK(ct_hinge_embedding_loss(ctx, x, t, 1, CT_REDUCTION_NONE, &r));
    EXPECT("hinge_embedding", r, 1, 1.5); /* x where t = 1, max(0, 1 - x) where t = -1 */
    CHECK(ct_soft_margin_loss(ctx, x, t, CT_REDUCTION_SUM, &r));
    EXPECT("soft_margin (sum)", r, log1p(exp(-1.0)) + log1p(exp(-0.5)));
    CHECK(ct_poisson_nll_loss(ctx, x, y, true, false, 1e-8, CT_REDUCTION_NONE, &r));
    EXPECT("poisson_nll (log input)", r, exp(1.0) - 0.5, exp(-0.5) + 0.25);
    ct_tensor *var = f64(2, (const double[]){1, 0.25});
    CHECK(ct_gaussian_nll_loss(ctx, x, y, var, false, 1e-6, CT_REDUCTION_NONE, &r));
    EXPECT("gaussian_nll", r, 0.5 * 0.25, 0.5 * (log(0.25) + 4));
    CHECK(ct_pairwise_distance(ctx, x, y, 1, 0, false, &r));
    EXPECT("pairwise_distance (p=1)", r, 1.5);
    ct_tensor *rows1 = NULL, *rows2 = NULL, *t1 = f64(2, (const double[]){1, -1});
    CHECK(ct_tensor_reshape(ctx, f64(4, (const double[]){1, 0, 0, 1}), 2, (const int64_t[]){2, 2},
                            &rows1));
    keep(rows1);
    CHECK(ct_tensor_reshape(ctx, f64(4, (const double[]){1, 0, 1, 0}), 2, (const int64_t[]){2, 2},
                            &rows2));
    keep(rows2);
    CHECK(ct_cosine_embedding_loss(ctx, rows1, rows2, t1, 0, CT_REDUCTION_NONE, &r));
    EXPECT("cosine_embedding", r, 1 - 1 / sqrt((1 + 1e-12) * (1 + 1e-12)), 0); /* cos 1, cos 0 */
    CHECK(ct_triplet_margin_loss(ctx, rows1, rows1, rows2, 1, 2, 0, false, CT_REDUCTION_NONE, &r));
    EXPECT("triplet_margin", r, 1, 0); /* max(0, 1 + 0 - d): d = 0, and sqrt 2 (clamped) */
    /* the same with a distance of one's own: the squared L2 distance over rows */
    CHECK(ct_triplet_margin_with_distance_loss(ctx, rows1, rows1, rows2, squared_l2, NULL, 1, false,
                                               CT_REDUCTION_NONE, &r));
    EXPECT("triplet_with_distance", r, 1, 0); /* max(0, 0 - 2 + 1) = 0 for the second row */
    CHECK(ct_multilabel_soft_margin_loss(ctx, rows1, rows1, NULL, CT_REDUCTION_NONE, &r));
    const double ls1 = log1p(exp(-1.0)), ls0 = log(2.0);
    EXPECT("multilabel_soft_margin", r, (ls1 + ls0) / 2, (ls0 + ls1) / 2);

    ct_tensor *img = NULL, *up = NULL;
    CHECK(ct_tensor_reshape(ctx, f64(4, (const double[]){1, 2, 3, 4}), 3,
                            (const int64_t[]){4, 1, 1}, &img));
    keep(img);
    CHECK(ct_pixel_shuffle(ctx, img, 2, &up)); /* 4 channels of 1x1 -> one 2x2 */
    EXPECT("pixel_shuffle", ct_tensor_retain(up), 1, 2, 3, 4);
    keep(up);
    CHECK(ct_pixel_unshuffle(ctx, up, 2, &r));
    EXPECT("pixel_unshuffle", r, 1, 2, 3, 4);

    /* d/dmu gaussian_nll(mu, y, var) = (mu - y) / var */
    ct_tensor *mu = f64(2, (const double[]){1, -0.5}), *s = NULL;
    CHECK(ct_tensor_set_requires_grad(mu, true));
    CHECK(ct_gaussian_nll_loss(ctx, mu, y, var, false, 1e-6, CT_REDUCTION_SUM, &s));
    keep(s);
    CHECK(ct_backward(ctx, s, NULL, false));
    EXPECT("grad of gaussian_nll", ct_tensor_retain(ct_tensor_grad(mu)), 0.5, -4);
    printf("all loss checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

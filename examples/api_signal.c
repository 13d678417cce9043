/* Windows, histogram and gradient, as a NumPy / PyTorch user writes them: hann_window,
 * hamming_window, blackman_window, bartlett_window, kaiser_window (periodic and symmetric),
 * torch.histogram (bins, range, weights, density, explicit edges) and torch.gradient (spacing,
 * edge_order). Each result is printed and checked against values worked out by hand. Build and
 * run: see README ("Examples"). */
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

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *r = NULL, *e = NULL, *g[2] = {NULL, NULL};

    CHECK(ct_hann_window(ctx, 4, true, CT_FLOAT64, &r)); /* sin^2(pi i / 4) */
    EXPECT("hann_window(4)", r, 0, 0.5, 1, 0.5);
    CHECK(ct_hamming_window(ctx, 3, false, 0.54, 0.46, CT_FLOAT64, &r));
    EXPECT("hamming_window(3, sym)", r, 0.08, 1, 0.08);
    CHECK(ct_blackman_window(ctx, 3, false, CT_FLOAT64, &r));
    EXPECT("blackman_window(3, sym)", r, 0.08 - 0.5 + 0.42, 0.08 + 0.5 + 0.42, 0.08 - 0.5 + 0.42);
    CHECK(ct_bartlett_window(ctx, 5, false, CT_FLOAT64, &r));
    EXPECT("bartlett_window(5, sym)", r, 0, 0.5, 1, 0.5, 0);
    CHECK(ct_kaiser_window(ctx, 3, false, 0, CT_FLOAT64, &r)); /* beta 0: all ones */
    EXPECT("kaiser_window(3, beta 0)", r, 1, 1, 1);

    ct_tensor *x = f64(6, (const double[]){0, 1, 1, 2, 5, 10});
    CHECK(ct_histogram(ctx, x, 5, NULL, NULL, false, &r, &e));
    keep(e);
    EXPECT("histogram(x, 5)", r, 3, 1, 1, 0, 1);
    EXPECT("bin edges", ct_tensor_retain(e), 0, 2, 4, 6, 8, 10);
    const double range[2] = {0, 4};
    CHECK(ct_histogram(ctx, x, 2, range, x, true, &r, NULL)); /* weights x, density */
    EXPECT("histogram(range, weight x, density)", r, 2.0 / 4 / 2, 2.0 / 4 / 2);
    CHECK(ct_histogram_edges(ctx, x, f64(3, (const double[]){0, 1, 10}), NULL, false, &r));
    EXPECT("histogram(edges 0 1 10)", r, 1, 5);
    /* histogramdd of the points (0, 0), (1, 1), (1, 0), (2, 2) in 2 x 2 bins over [0, 2]^2: the
     * last bin of each dim holds its right edge */
    ct_tensor *pts = NULL;
    CHECK(ct_tensor_reshape(ctx, f64(8, (const double[]){0, 0, 1, 1, 1, 0, 2, 2}), 2,
                            (const int64_t[]){4, 2}, &pts));
    keep(pts);
    const int64_t two_bins[1] = {2};
    CHECK(ct_histogramdd(ctx, pts, 1, two_bins, NULL, NULL, false, &r, NULL));
    EXPECT("histogramdd(2 x 2 bins)", r, 1, 0, 1, 2);
    const ct_tensor *edges2[2] = {f64(2, (const double[]){0, 2}),
                                  f64(3, (const double[]){0, 0.5, 2})};
    CHECK(ct_histogramdd_edges(ctx, pts, 2, edges2, NULL, false, &r, NULL));
    EXPECT("histogramdd(edges)", r, 2, 2); /* y = 0 twice; y = 1, 2 (closed) */

    ct_tensor *sq = f64(5, (const double[]){0, 1, 4, 9, 16}); /* x^2 at x = 0..4 */
    CHECK(ct_gradient(ctx, sq, 0, NULL, NULL, 2, g));
    EXPECT("gradient(x^2, edge_order 2)", g[0], 0, 2, 4, 6, 8);
    const double h = 0.5;
    CHECK(ct_gradient(ctx, sq, 0, NULL, &h, 1, g));
    EXPECT("gradient(x^2, h 0.5)", g[0], 2, 4, 8, 12, 14);
    printf("all signal checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

/* Sampling as a PyTorch user writes it, reproducible from (seed, offset): torch.normal with tensor
 * and scalar parameters, randint_like, the in-place fills (uniform_, normal_, exponential_,
 * cauchy_, log_normal_, geometric_), poisson, binomial and multinomial. Each prints a sample
 * statistic next to its exact value and checks it within a few standard errors.
 * Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static ct_ctx *ctx;
enum { N = 200000 };
static double buf[N];

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* the mean of t's N values against want, within 6 standard errors (sd given) */
static int mean_is(const char *what, ct_tensor *t, double want, double sd) {
    ct_tensor *d = NULL;
    int bad = !t || ct_cast(ctx, t, CT_FLOAT64, &d) != CT_OK ||
              ct_tensor_to_host(d, buf, sizeof buf) != CT_OK;
    double m = 0;
    for (int i = 0; !bad && i < N; i++)
        m += buf[i] / N;
    bad |= fabs(m - want) > 6 * sd / sqrt((double)N);
    printf("%-28s mean %9.5f (exact %9.5f)%s\n", what, m, want, bad ? " (too far)" : "");
    ct_tensor_release(d), ct_tensor_release(t);
    return bad;
}

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    const int64_t shape[1] = {N};
    ct_tensor *mean = NULL, *sd = NULL, *t = NULL, *y = NULL, *p = NULL, *n = NULL;
    CHECK(ct_tensor_full(ctx, CT_FLOAT64, 1, shape, 3.0, &mean));
    CHECK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 0.5, &sd));
    CHECK(ct_normal(ctx, mean, sd, 1, 0, &y));
    if (mean_is("normal(3, 0.5)", y, 3, 0.5)) goto fail;
    CHECK(ct_normal_scalar(ctx, -2, 1, CT_FLOAT32, 1, shape, 2, 0, &y));
    if (mean_is("normal(-2, 1) float32", y, -2, 1)) goto fail;
    CHECK(ct_randint_like(ctx, mean, 0, 10, 3, 0, &y)); /* 0 .. 9 */
    if (mean_is("randint_like [0, 10)", y, 4.5, sqrt(99 / 12.0))) goto fail;
    CHECK(ct_tensor_empty(ctx, CT_FLOAT64, 1, shape, &t));
    CHECK(ct_tensor_uniform_(ctx, t, 1, 3, 4, 0));
    if (mean_is("uniform_(1, 3)", ct_tensor_retain(t), 2, sqrt(4 / 12.0))) goto fail;
    CHECK(ct_tensor_normal_(ctx, t, 5, 2, 5, 0));
    if (mean_is("normal_(5, 2)", ct_tensor_retain(t), 5, 2)) goto fail;
    CHECK(ct_tensor_exponential_(ctx, t, 4, 6, 0));
    if (mean_is("exponential_(4)", ct_tensor_retain(t), 0.25, 0.25)) goto fail;
    CHECK(ct_tensor_log_normal_(ctx, t, 0, 0.25, 7, 0));
    if (mean_is("log_normal_(0, 0.25)", ct_tensor_retain(t), exp(0.03125),
                sqrt((exp(0.0625) - 1) * exp(0.0625))))
        goto fail;
    CHECK(ct_tensor_geometric_(ctx, t, 0.5, 8, 0));
    if (mean_is("geometric_(0.5)", ct_tensor_retain(t), 2, sqrt(2.0))) goto fail;
    CHECK(ct_tensor_cauchy_(ctx, t, 0, 1, 9, 0)); /* no mean: count the middle half */
    CHECK(ct_tensor_to_host(t, buf, sizeof buf));
    int mid = 0;
    for (int i = 0; i < N; i++)
        mid += fabs(buf[i]) < 1;
    printf("%-28s %.4f of the samples in (-1, 1) (exact 0.5)\n", "cauchy_(0, 1)", mid / (double)N);
    if (fabs(mid / (double)N - 0.5) > 0.01) goto fail;
    CHECK(ct_poisson(ctx, mean, 10, 0, &y));
    if (mean_is("poisson(3)", y, 3, sqrt(3.0))) goto fail;
    CHECK(ct_tensor_full(ctx, CT_FLOAT64, 1, shape, 0.2, &p));
    CHECK(ct_tensor_full(ctx, CT_FLOAT64, 1, shape, 50, &n));
    CHECK(ct_binomial(ctx, n, p, 11, 0, &y));
    if (mean_is("binomial(50, 0.2)", y, 10, sqrt(8.0))) goto fail;
    ct_tensor *w = NULL;
    CHECK(
        ct_tensor_from_host(ctx, (const double[]){1, 3}, CT_FLOAT64, 1, (const int64_t[]){2}, &w));
    CHECK(ct_multinomial(ctx, w, N, true, 12, 0, &y)); /* index 1 with probability 3/4 */
    ct_tensor_release(w);
    if (mean_is("multinomial([1, 3])", y, 0.75, sqrt(0.1875))) goto fail;
    printf("all sampling checks passed\n");
    rc = 0;
fail:
    ct_tensor_release(mean), ct_tensor_release(sd), ct_tensor_release(t);
    ct_tensor_release(p), ct_tensor_release(n);
    ct_ctx_free(ctx);
    return rc;
}

/* API tour: reductions, normalisation, neural-network layers and shaping ops
 * (include/ctorch/ops.h).
 *
 * Covers: amin / argmin / max_dim / min_dim / all / any / count_nonzero / prod / cumsum / cumprod /
 * var / std / logsumexp; softmax / log_softmax / layer_norm / rms_norm / group_norm / batch_norm /
 * dropout; pad; nonzero / masked_select / unique (flat and along a dim); addmm / baddbmm / bmm; unfold / fold; conv2d /
 * conv1d; max_pool2d / avg_pool2d (and their _ex forms) / adaptive_avg_pool2d; interpolate /
 * interpolate_scale; embedding / index_select / gather / take_along_dim / scatter / scatter_add /
 * index_add / masked_fill / one_hot; sort / argsort / topk / kthvalue; empty_like / zeros_like /
 * ones_like / full_like / tril / triu; stack / split / split_sizes / chunk / flatten / unflatten /
 * repeat / flip / roll / movedim.
 *
 * Every section prints one or two short lines and checks the result against values worked out by
 * hand or by a naive loop written here, so the program exits 1 if the library is wrong. Inputs are
 * small integers, so most results are exact. Some sections also show an error: the status code
 * and the message ct_ctx_last_error gives.
 *
 * Run: ctest -R example_api_nn_shape, or build/example_api_nn_shape from a build tree. */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static ct_ctx *ctx;

/* Every tensor a section creates is kept here and released after the section (or on failure). */
#define MAX_KEPT 256
static ct_tensor *kept[MAX_KEPT];
static int n_kept;

static void keep(ct_tensor *t) {
    if (!t) return;
    if (n_kept < MAX_KEPT)
        kept[n_kept++] = t;
    else {
        fprintf(stderr, "too many tensors in one section\n");
        ct_tensor_release(t);
    }
}

static void release_kept(void) {
    while (n_kept > 0)
        ct_tensor_release(kept[--n_kept]);
}

/* Fail the section (return 1) when a call does not return CT_OK, saying why. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond);         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define F32(...) ((const float[]){__VA_ARGS__})
#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define COUNT(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

/* A new tensor with a copy of `data` (C order), kept for release. */
static ct_status mk(ct_tensor **out, ct_dtype dtype, const void *data, int ndim,
                    const int64_t *shape) {
    *out = NULL;
    ct_status s = ct_tensor_from_host(ctx, data, dtype, ndim, shape, out);
    if (s == CT_OK) keep(*out);
    return s;
}

/* The elements of any tensor in C order as doubles; returns the count, or -1. */
static int64_t read_vals(const ct_tensor *t, double *buf, int64_t cap) {
    ct_tensor *d = NULL;
    ct_status s = ct_cast(ctx, t, CT_FLOAT64, &d);
    int64_t n = ct_tensor_numel(d);
    if (s == CT_OK && n <= cap) s = ct_tensor_to_host(d, buf, (size_t)n * sizeof(double));
    ct_tensor_release(d);
    if (s != CT_OK || n > cap) {
        fprintf(stderr, "read_vals: %s: %s\n", ct_status_str(s), ct_ctx_last_error(ctx));
        return -1;
    }
    return n;
}

/* Compare t's elements with want[0..n) (|got - want| <= tol); print both on a mismatch. */
static int expect_near(const char *what, int line, const ct_tensor *t, const double *want,
                       int64_t n, double tol) {
    double got[256];
    int64_t m = read_vals(t, got, COUNT(got));
    int bad = m != n;
    for (int64_t i = 0; !bad && i < n; i++)
        bad = !(fabs(got[i] - want[i]) <= tol);
    if (bad) {
        fprintf(stderr, "line %d: %s: got %lld values:", line, what, (long long)m);
        for (int64_t i = 0; i < m; i++)
            fprintf(stderr, " %g", got[i]);
        fprintf(stderr, "\n  expected %lld:", (long long)n);
        for (int64_t i = 0; i < n; i++)
            fprintf(stderr, " %g", want[i]);
        fprintf(stderr, "\n");
    }
    return bad;
}

static int expect_shape(const char *what, const ct_tensor *t, const int64_t *shape, int ndim) {
    int bad = ct_tensor_ndim(t) != ndim;
    for (int i = 0; !bad && i < ndim; i++)
        bad = ct_tensor_size(t, i) != shape[i];
    if (bad) fprintf(stderr, "%s: unexpected shape (ndim %d)\n", what, ct_tensor_ndim(t));
    return bad;
}

/* Exact (or within tol) values given as a list / an array, and an exact shape. */
#define EXPECT_VALS(t, tol, ...)                                                                   \
    do {                                                                                           \
        const double w_[] = {__VA_ARGS__};                                                         \
        if (expect_near(#t, __LINE__, t, w_, COUNT(w_), tol)) return 1;                            \
    } while (0)
#define EXPECT_ARR(t, arr, n, tol)                                                                 \
    do {                                                                                           \
        if (expect_near(#t, __LINE__, t, arr, n, tol)) return 1;                                   \
    } while (0)
#define EXPECT_SHAPE(t, ...)                                                                       \
    do {                                                                                           \
        const int64_t s_[] = {__VA_ARGS__};                                                        \
        if (expect_shape(#t, t, s_, (int)COUNT(s_))) return 1;                                     \
    } while (0)

/* A call that must fail with `want`: prints the status and the context's message. */
#define EXPECT_ERROR(call, want)                                                                   \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        printf("  error demo: %s: %s\n", ct_status_str(st_), ct_ctx_last_error(ctx));              \
        if (st_ != (want)) {                                                                       \
            fprintf(stderr, "%s:%d: %s gave %s, expected %s\n", __FILE__, __LINE__, #call,         \
                    ct_status_str(st_), ct_status_str(want));                                      \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Print "label [shape] dtype: v0 v1 ..." (at most 12 values). */
static void show(const char *label, const ct_tensor *t) {
    double v[256];
    int64_t n = read_vals(t, v, COUNT(v));
    printf("  %s [", label);
    for (int i = 0; i < ct_tensor_ndim(t); i++)
        printf(i ? ", %lld" : "%lld", (long long)ct_tensor_size(t, i));
    printf("] %s:", ct_dtype_name(ct_tensor_dtype(t)));
    for (int64_t i = 0; i < n && i < 12; i++)
        printf(" %g", v[i]);
    printf(n > 12 ? " ...\n" : "\n");
}

/* ---------------------------------------------------------------------------------------------
 * Reductions */
static int demo_reductions(void) {
    printf("reductions\n");
    ct_tensor *x, *m, *y, *v, *i;
    CHECK(mk(&x, CT_FLOAT32, F32(3, 1, 4, 1, 5, 9), 2, DIMS(2, 3)));

    /* ct_amin: the smallest value over the listed dims (n_dims 0: all of them). */
    int d1 = 1;
    CHECK(ct_amin(ctx, x, 1, &d1, false, &y));
    keep(y);
    show("amin(x, dim 1)", y);
    EXPECT_VALS(y, 0, 1, 1);
    CHECK(ct_amin(ctx, x, 0, NULL, false, &y));
    keep(y);
    EXPECT(ct_tensor_ndim(y) == 0);
    EXPECT_VALS(y, 0, 1);

    /* ct_argmin: int64 index of the first minimum along a dim; CT_ALL_DIMS: in the flattened
     * tensor (x[0][1] and x[1][0] are both 1: the first wins). */
    CHECK(ct_argmin(ctx, x, 1, false, &y));
    keep(y);
    EXPECT(ct_tensor_dtype(y) == CT_INT64);
    EXPECT_VALS(y, 0, 1, 0);
    CHECK(ct_argmin(ctx, x, CT_ALL_DIMS, false, &y));
    keep(y);
    show("argmin(x, all)", y);
    EXPECT_VALS(y, 0, 1);

    /* ct_argmax: the same for the first maximum (row maxima 4 and 9 at column 2; 9 is flat
     * element 5). */
    CHECK(ct_argmax(ctx, x, 1, false, &y));
    keep(y);
    EXPECT(ct_tensor_dtype(y) == CT_INT64);
    EXPECT_VALS(y, 0, 2, 2);
    CHECK(ct_argmax(ctx, x, CT_ALL_DIMS, false, &y));
    keep(y);
    show("argmax(x, all)", y);
    EXPECT_VALS(y, 0, 5);

    /* ct_max_dim / ct_min_dim: values and indices together, as torch.max(x, dim). */
    CHECK(ct_max_dim(ctx, x, 1, false, &v, &i));
    keep(v), keep(i);
    show("max(x, dim 1) values", v);
    EXPECT_VALS(v, 0, 4, 9);
    EXPECT_VALS(i, 0, 2, 2);
    CHECK(ct_min_dim(ctx, x, 0, true, &v, &i)); /* keepdim: shape (1, 3) */
    keep(v), keep(i);
    show("min(x, dim 0, keepdim) indices", i);
    EXPECT_SHAPE(v, 1, 3);
    EXPECT_VALS(v, 0, 1, 1, 4);
    EXPECT_VALS(i, 0, 1, 0, 0);

    /* ct_all / ct_any / ct_count_nonzero: truth tests and counts of nonzero elements. */
    CHECK(mk(&m, CT_INT32, (const int32_t[]){1, 0, 2, 3, 4, 5}, 2, DIMS(2, 3)));
    CHECK(ct_all(ctx, m, 1, &d1, false, &y));
    keep(y);
    show("all(m, dim 1)", y);
    EXPECT(ct_tensor_dtype(y) == CT_BOOL);
    EXPECT_VALS(y, 0, 0, 1);
    CHECK(ct_any(ctx, m, 1, &d1, false, &y));
    keep(y);
    EXPECT_VALS(y, 0, 1, 1);
    CHECK(ct_all(ctx, m, 0, NULL, false, &y));
    keep(y);
    EXPECT_VALS(y, 0, 0);
    CHECK(ct_count_nonzero(ctx, m, 0, NULL, &y));
    keep(y);
    EXPECT_VALS(y, 0, 5);
    int d0 = 0;
    CHECK(ct_count_nonzero(ctx, m, 1, &d0, &y));
    keep(y);
    show("count_nonzero(m, dim 0)", y);
    EXPECT(ct_tensor_dtype(y) == CT_INT64);
    EXPECT_VALS(y, 0, 2, 1, 2);

    /* ct_prod: product along a dim (CT_ALL_DIMS: everything); integers give int64. */
    CHECK(ct_prod(ctx, x, 1, false, &y));
    keep(y);
    show("prod(x, dim 1)", y);
    EXPECT_VALS(y, 0, 12, 45);
    CHECK(ct_prod(ctx, x, CT_ALL_DIMS, false, &y));
    keep(y);
    EXPECT_VALS(y, 0, 540);
    CHECK(ct_prod(ctx, m, 0, false, &y));
    keep(y);
    EXPECT(ct_tensor_dtype(y) == CT_INT64);
    EXPECT_VALS(y, 0, 3, 0, 10);

    /* ct_cumsum / ct_cumprod: running sum / product along a dim, same shape. */
    CHECK(ct_cumsum(ctx, x, 1, &y));
    keep(y);
    show("cumsum(x, dim 1)", y);
    EXPECT_VALS(y, 0, 3, 4, 8, 1, 6, 15);
    CHECK(ct_cumprod(ctx, x, 1, &y));
    keep(y);
    show("cumprod(x, dim 1)", y);
    EXPECT_VALS(y, 0, 3, 3, 12, 1, 5, 45);

    /* ct_var / ct_std: sum((a - mean)^2) / (N - correction); correction 1 is torch's default
     * (the unbiased estimate), 0 the population variance. Checked against a naive two-pass loop. */
    const float vd[8] = {1, 2, 3, 4, 2, 4, 6, 8};
    CHECK(mk(&v, CT_FLOAT32, vd, 2, DIMS(2, 4)));
    double var1[2], var0[2], sd1[2];
    for (int r = 0; r < 2; r++) {
        double mean = 0, ss = 0;
        for (int c = 0; c < 4; c++)
            mean += vd[r * 4 + c] / 4.0;
        for (int c = 0; c < 4; c++)
            ss += (vd[r * 4 + c] - mean) * (vd[r * 4 + c] - mean);
        var1[r] = ss / 3, var0[r] = ss / 4, sd1[r] = sqrt(ss / 3);
    }
    CHECK(ct_var(ctx, v, 1, &d1, 1.0, false, &y));
    keep(y);
    show("var(v, dim 1)", y); /* 5/3 and 20/3 */
    EXPECT_ARR(y, var1, 2, 1e-6);
    CHECK(ct_var(ctx, v, 1, &d1, 0.0, false, &y));
    keep(y);
    EXPECT_ARR(y, var0, 2, 1e-6);
    CHECK(ct_std(ctx, v, 1, &d1, 1.0, true, &y));
    keep(y);
    EXPECT_SHAPE(y, 2, 1);
    EXPECT_ARR(y, sd1, 2, 1e-6);

    /* ct_logsumexp: log(sum(exp(a))) computed stably: the row of 1000s would overflow exp in a
     * naive loop, but gives 1000 + log(3). */
    CHECK(mk(&v, CT_FLOAT32, F32(1, 2, 3, 1000, 1000, 1000), 2, DIMS(2, 3)));
    CHECK(ct_logsumexp(ctx, v, 1, &d1, false, &y));
    keep(y);
    show("logsumexp(dim 1)", y);
    const double lse[2] = {log(exp(1.0) + exp(2.0) + exp(3.0)), 1000 + log(3.0)};
    EXPECT_ARR(y, lse, 2, 1e-3);

    /* Error: var needs a floating input (torch.var of an int tensor fails too). */
    y = NULL;
    EXPECT_ERROR(ct_var(ctx, m, 0, NULL, 1.0, false, &y), CT_ERR_DTYPE);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Normalisation and dropout */
static int demo_norms(void) {
    printf("normalisation\n");
    ct_tensor *x, *y, *w, *b, *ls;
    const float xd[8] = {1, 2, 3, 4, 2, 4, 6, 8};
    CHECK(mk(&x, CT_FLOAT32, xd, 2, DIMS(2, 4)));

    /* ct_softmax: exp(x) / sum(exp(x)) along a dim: rows of positive numbers summing to 1.
     * ct_log_softmax: its logarithm, computed without forming the softmax. */
    double sm[8], lsm[8];
    for (int r = 0; r < 2; r++) {
        double z = 0;
        for (int c = 0; c < 4; c++)
            z += exp(xd[r * 4 + c]);
        for (int c = 0; c < 4; c++)
            sm[r * 4 + c] = exp(xd[r * 4 + c]) / z, lsm[r * 4 + c] = xd[r * 4 + c] - log(z);
    }
    CHECK(ct_softmax(ctx, x, 1, &y));
    keep(y);
    int d1 = 1;
    ct_tensor *rs;
    CHECK(ct_sum(ctx, y, 1, &d1, false, &rs));
    keep(rs);
    show("softmax(x, dim 1) row sums", rs);
    EXPECT_VALS(rs, 1e-6, 1, 1);
    EXPECT_ARR(y, sm, 8, 1e-6);
    CHECK(ct_log_softmax(ctx, x, 1, &ls));
    keep(ls);
    show("log_softmax(x, dim 1)", ls);
    EXPECT_ARR(ls, lsm, 8, 1e-5);

    /* ct_layer_norm: each row (the last n_norm dims) to mean 0, variance 1, then * weight + bias.
     * Without weight and bias: the row mean is 0 and the population variance v / (v + eps). */
    CHECK(ct_layer_norm(ctx, x, 1, NULL, NULL, 1e-5, &y));
    keep(y);
    ct_tensor *mean, *var;
    CHECK(ct_mean(ctx, y, 1, &d1, false, &mean));
    keep(mean);
    CHECK(ct_var(ctx, y, 1, &d1, 0.0, false, &var));
    keep(var);
    show("layer_norm row means", mean);
    show("layer_norm row variances", var);
    EXPECT_VALS(mean, 1e-6, 0, 0);
    EXPECT_VALS(var, 1e-4, 1, 1);
    const float wd[4] = {1, 2, 1, 2}, bd[4] = {0, 0, 1, 1};
    CHECK(mk(&w, CT_FLOAT32, wd, 1, DIMS(4)));
    CHECK(mk(&b, CT_FLOAT32, bd, 1, DIMS(4)));
    double ln[8], rms[8];
    for (int r = 0; r < 2; r++) {
        double mu = 0, v = 0, sq = 0;
        for (int c = 0; c < 4; c++)
            mu += xd[r * 4 + c] / 4.0, sq += xd[r * 4 + c] * xd[r * 4 + c] / 4.0;
        for (int c = 0; c < 4; c++)
            v += (xd[r * 4 + c] - mu) * (xd[r * 4 + c] - mu) / 4.0;
        for (int c = 0; c < 4; c++) {
            ln[r * 4 + c] = (xd[r * 4 + c] - mu) / sqrt(v + 1e-5) * wd[c] + bd[c];
            rms[r * 4 + c] = xd[r * 4 + c] / sqrt(sq + 1e-6) * wd[c];
        }
    }
    CHECK(ct_layer_norm(ctx, x, 1, w, b, 1e-5, &y));
    keep(y);
    EXPECT_ARR(y, ln, 8, 1e-5);

    /* ct_rms_norm: x / sqrt(mean(x^2) + eps) * weight (no centring). */
    CHECK(ct_rms_norm(ctx, x, 1, w, 1e-6, &y));
    keep(y);
    show("rms_norm(x) * w", y);
    EXPECT_ARR(y, rms, 8, 1e-5);

    /* ct_group_norm: x (N, C, L) with C = 4 channels in 2 groups; each group (its channels and
     * positions together) is normalised, then per-channel weight and bias. */
    const float gd[8] = {1, 3, 5, 7, 2, 2, 2, 6}; /* channels: {1,3} {5,7} | {2,2} {2,6} */
    ct_tensor *g;
    CHECK(mk(&g, CT_FLOAT32, gd, 3, DIMS(1, 4, 2)));
    double gn[8];
    for (int grp = 0; grp < 2; grp++) {
        double mu = 0, v = 0;
        for (int k = 0; k < 4; k++)
            mu += gd[grp * 4 + k] / 4.0;
        for (int k = 0; k < 4; k++)
            v += (gd[grp * 4 + k] - mu) * (gd[grp * 4 + k] - mu) / 4.0;
        for (int k = 0; k < 4; k++) {
            int ch = grp * 2 + k / 2;
            gn[grp * 4 + k] = (gd[grp * 4 + k] - mu) / sqrt(v + 1e-5) * wd[ch] + bd[ch];
        }
    }
    CHECK(ct_group_norm(ctx, g, 2, w, b, 1e-5, &y));
    keep(y);
    show("group_norm(2 groups)", y);
    EXPECT_SHAPE(y, 1, 4, 2);
    EXPECT_ARR(y, gn, 8, 1e-5);

    /* ct_batch_norm: x (N, C). Training normalises each channel with the batch mean and biased
     * variance and moves the running statistics: r = (1 - momentum) r + momentum * batch value
     * (the unbiased variance). Evaluation then normalises with the running statistics. */
    const float bnd[8] = {1, 10, 2, 20, 3, 30, 4, 40};
    ct_tensor *bx, *rm, *rv;
    CHECK(mk(&bx, CT_FLOAT32, bnd, 2, DIMS(4, 2)));
    CHECK(mk(&rm, CT_FLOAT32, F32(0, 0), 1, DIMS(2)));
    CHECK(mk(&rv, CT_FLOAT32, F32(1, 1), 1, DIMS(2)));
    double bn[8], rmw[2], rvw[2], bne[8];
    for (int c = 0; c < 2; c++) {
        double mu = 0, ss = 0;
        for (int n = 0; n < 4; n++)
            mu += bnd[n * 2 + c] / 4.0;
        for (int n = 0; n < 4; n++)
            ss += (bnd[n * 2 + c] - mu) * (bnd[n * 2 + c] - mu);
        for (int n = 0; n < 4; n++)
            bn[n * 2 + c] = (bnd[n * 2 + c] - mu) / sqrt(ss / 4 + 1e-5);
        rmw[c] = 0.9 * 0 + 0.1 * mu;
        rvw[c] = 0.9 * 1 + 0.1 * (ss / 3);
        for (int n = 0; n < 4; n++)
            bne[n * 2 + c] = (bnd[n * 2 + c] - rmw[c]) / sqrt(rvw[c] + 1e-5);
    }
    CHECK(ct_batch_norm(ctx, bx, rm, rv, NULL, NULL, true, 0.1, 1e-5, &y));
    keep(y);
    EXPECT_ARR(y, bn, 8, 1e-5);
    show("batch_norm running_mean", rm); /* 0.25 2.5 */
    show("batch_norm running_var", rv);  /* 0.9 + 0.1 * (5/3), 0.9 + 0.1 * (500/3) */
    EXPECT_ARR(rm, rmw, 2, 1e-6);
    EXPECT_ARR(rv, rvw, 2, 1e-5);
    CHECK(ct_batch_norm(ctx, bx, rm, rv, NULL, NULL, false, 0.1, 1e-5, &y));
    keep(y);
    EXPECT_ARR(y, bne, 8, 1e-5);
    EXPECT_ARR(rm, rmw, 2, 1e-6); /* evaluation leaves the statistics alone */

    /* Error: training statistics of one value per channel are undefined. */
    ct_tensor *one;
    CHECK(mk(&one, CT_FLOAT32, F32(1, 2), 2, DIMS(1, 2)));
    y = NULL;
    EXPECT_ERROR(ct_batch_norm(ctx, one, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &y),
                 CT_ERR_INVALID_ARG);
    keep(y);
    return 0;
}

static int demo_dropout(void) {
    printf("dropout\n");
    ct_tensor *x, *y, *y2;
    const float xd[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const double xs[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(mk(&x, CT_FLOAT32, xd, 1, DIMS(8)));

    /* ct_dropout with p = 0, or outside training: the input unchanged. */
    CHECK(ct_dropout(ctx, x, 0.0, true, 42, 0, &y));
    keep(y);
    EXPECT_ARR(y, xs, 8, 0);
    CHECK(ct_dropout(ctx, x, 0.5, false, 42, 0, &y));
    keep(y);
    EXPECT_ARR(y, xs, 8, 0);

    /* In training each element is zeroed with probability p, the others scaled by 1 / (1 - p);
     * the mask comes from (seed, offset), so the same pair repeats the same mask. */
    double got[8], again[8];
    const double ps[2] = {0.5, 0.25};
    for (int k = 0; k < 2; k++) {
        CHECK(ct_dropout(ctx, x, ps[k], true, 42, 0, &y));
        keep(y);
        CHECK(ct_dropout(ctx, x, ps[k], true, 42, 0, &y2));
        keep(y2);
        EXPECT(read_vals(y, got, 8) == 8 && read_vals(y2, again, 8) == 8);
        int zeros = 0;
        for (int j = 0; j < 8; j++) {
            double scaled = xs[j] / (1 - ps[k]);
            EXPECT(got[j] == 0 || fabs(got[j] - scaled) <= 1e-5 * scaled);
            EXPECT(got[j] == again[j]);
            zeros += got[j] == 0;
        }
        printf("  dropout(p=%g, seed 42): %d of 8 zeroed, the rest scaled by %g\n", ps[k], zeros,
               1 / (1 - ps[k]));
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Padding */
static int demo_pad(void) {
    printf("pad\n");
    ct_tensor *a, *r, *c, *q, *y;
    CHECK(mk(&a, CT_FLOAT32, F32(1, 2, 3), 1, DIMS(3)));
    /* ct_pad: pad[0], pad[1] add elements before / after the last dim, pad[2], pad[3] the one
     * before it, ... Constant mode fills `value`; a negative pad crops. */
    CHECK(ct_pad(ctx, a, 2, I64(1, 2), CT_PAD_CONSTANT, 9, &y));
    keep(y);
    show("pad([1 2 3], (1, 2), value 9)", y);
    EXPECT_VALS(y, 0, 9, 1, 2, 3, 9, 9);
    CHECK(ct_pad(ctx, a, 2, I64(-1, 0), CT_PAD_CONSTANT, 0, &y));
    keep(y);
    EXPECT_VALS(y, 0, 2, 3);
    CHECK(mk(&q, CT_FLOAT32, F32(1, 2, 3, 4), 2, DIMS(2, 2)));
    CHECK(ct_pad(ctx, q, 4, I64(1, 0, 0, 1), CT_PAD_CONSTANT, 0, &y)); /* left col, bottom row */
    keep(y);
    EXPECT_SHAPE(y, 3, 3);
    EXPECT_VALS(y, 0, 0, 1, 2, 0, 3, 4, 0, 0, 0);

    /* reflect mirrors without repeating the edge, replicate repeats it, circular wraps around
     * (torch wants a batch dim for these: (1, 3) here, (1, 1, 3) for circular). */
    CHECK(mk(&r, CT_FLOAT32, F32(1, 2, 3), 2, DIMS(1, 3)));
    CHECK(ct_pad(ctx, r, 2, I64(2, 1), CT_PAD_REFLECT, 0, &y));
    keep(y);
    show("reflect (2, 1)", y);
    EXPECT_VALS(y, 0, 3, 2, 1, 2, 3, 2);
    CHECK(ct_pad(ctx, r, 2, I64(2, 1), CT_PAD_REPLICATE, 0, &y));
    keep(y);
    show("replicate (2, 1)", y);
    EXPECT_VALS(y, 0, 1, 1, 1, 2, 3, 3);
    CHECK(mk(&c, CT_FLOAT32, F32(1, 2, 3), 3, DIMS(1, 1, 3)));
    CHECK(ct_pad(ctx, c, 2, I64(1, 2), CT_PAD_CIRCULAR, 0, &y));
    keep(y);
    show("circular (1, 2)", y);
    EXPECT_VALS(y, 0, 3, 1, 2, 3, 1, 2);

    /* Error: a reflect pad must be smaller than the dim it pads. */
    y = NULL;
    EXPECT_ERROR(ct_pad(ctx, r, 2, I64(3, 0), CT_PAD_REFLECT, 0, &y), CT_ERR_INVALID_ARG);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Data-dependent selection: nonzero, masked_select, unique */
static int demo_select(void) {
    printf("nonzero / masked_select / unique\n");
    ct_tensor *t, *x, *mask, *row, *y, *vals, *inv, *cnt;
    /* ct_nonzero: one row of coordinates per nonzero element, in C order. */
    CHECK(mk(&t, CT_INT32, (const int32_t[]){0, 1, 0, 2, 0, 3}, 2, DIMS(2, 3)));
    CHECK(ct_nonzero(ctx, t, &y));
    keep(y);
    show("nonzero", y);
    EXPECT_SHAPE(y, 3, 2);
    EXPECT_VALS(y, 0, 0, 1, 1, 0, 1, 2);

    /* ct_masked_select: the elements where a bool mask (broadcast to t) is true, as 1-d. */
    CHECK(mk(&x, CT_FLOAT32, F32(3, 1, 4, 1, 5, 9), 2, DIMS(2, 3)));
    CHECK(ct_gt_scalar(ctx, x, 2, &mask));
    keep(mask);
    CHECK(ct_masked_select(ctx, x, mask, &y));
    keep(y);
    show("masked_select(x, x > 2)", y);
    EXPECT_VALS(y, 0, 3, 4, 5, 9);
    CHECK(mk(&row, CT_BOOL, (const bool[]){true, false, true}, 1, DIMS(3)));
    CHECK(ct_masked_select(ctx, x, row, &y)); /* the mask row applies to both rows */
    keep(y);
    EXPECT_VALS(y, 0, 3, 4, 1, 9);

    /* ct_unique: sorted distinct values, where each element went (inverse) and how often. */
    CHECK(mk(&t, CT_INT64, I64(3, 1, 3, 2, 1, 3), 1, DIMS(6)));
    CHECK(ct_unique(ctx, t, true, &vals, &inv, &cnt));
    keep(vals), keep(inv), keep(cnt);
    show("unique values", vals);
    show("unique counts", cnt);
    EXPECT_VALS(vals, 0, 1, 2, 3);
    EXPECT_VALS(inv, 0, 2, 0, 2, 1, 0, 2);
    EXPECT_VALS(cnt, 0, 2, 1, 3);

    /* ct_unique_dim: the distinct rows (dim 0) in lexicographic order; inverse per input row. */
    CHECK(mk(&t, CT_INT64, I64(1, 2, 0, 5, 1, 2, 0, 3), 2, DIMS(4, 2)));
    CHECK(ct_unique_dim(ctx, t, 0, true, &vals, &inv, &cnt));
    keep(vals), keep(inv), keep(cnt);
    show("unique rows", vals);
    EXPECT_SHAPE(vals, 3, 2);
    EXPECT_VALS(vals, 0, 0, 3, 0, 5, 1, 2);
    EXPECT_VALS(inv, 0, 2, 1, 2, 0);
    EXPECT_VALS(cnt, 0, 1, 1, 2);
    /* ct_unique_consecutive_dim: runs of equal rows, no sorting. */
    CHECK(ct_unique_consecutive_dim(ctx, t, 0, &vals, &inv, &cnt));
    keep(vals), keep(inv), keep(cnt);
    EXPECT_SHAPE(vals, 4, 2);
    EXPECT_VALS(inv, 0, 0, 1, 2, 3);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Matrix products: addmm, bmm, baddbmm (checked against a naive triple loop) */
static void naive_bmm(const float *a, const float *b, int B, int M, int K, int N, double *out) {
    for (int i = 0; i < B; i++)
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                double s = 0;
                for (int k = 0; k < K; k++)
                    s += (double)a[(i * M + r) * K + k] * b[(i * K + k) * N + c];
                out[(i * M + r) * N + c] = s;
            }
}

static int demo_matmul(void) {
    printf("addmm / bmm / baddbmm\n");
    ct_tensor *in, *m1, *m2, *y, *a, *b, *bias;
    /* ct_addmm: beta * input + alpha * (m1 @ m2); input broadcasts (a bias row here).
     * m1 @ m2 = [[4 5] [10 11]], so 2 * [10 20] + 3 * that = [[32 55] [50 73]]. */
    CHECK(mk(&in, CT_FLOAT32, F32(10, 20), 1, DIMS(2)));
    CHECK(mk(&m1, CT_FLOAT32, F32(1, 2, 3, 4, 5, 6), 2, DIMS(2, 3)));
    CHECK(mk(&m2, CT_FLOAT32, F32(1, 0, 0, 1, 1, 1), 2, DIMS(3, 2)));
    CHECK(ct_addmm(ctx, in, m1, m2, 2.0, 3.0, &y));
    keep(y);
    show("addmm(bias, m1, m2, beta 2, alpha 3)", y);
    EXPECT_VALS(y, 0, 32, 55, 50, 73);

    /* ct_bmm: one matrix product per batch entry, (B, M, K) @ (B, K, N) -> (B, M, N). */
    float ad[12], bd[12];
    for (int i = 0; i < 12; i++)
        ad[i] = (float)(i % 5 - 2), bd[i] = (float)((i * 3) % 7 - 3);
    double want[8];
    naive_bmm(ad, bd, 2, 2, 3, 2, want);
    CHECK(mk(&a, CT_FLOAT32, ad, 3, DIMS(2, 2, 3)));
    CHECK(mk(&b, CT_FLOAT32, bd, 3, DIMS(2, 3, 2)));
    CHECK(ct_bmm(ctx, a, b, &y));
    keep(y);
    show("bmm", y);
    EXPECT_SHAPE(y, 2, 2, 2);
    EXPECT_ARR(y, want, 8, 0);

    /* ct_baddbmm: the batched addmm, beta * input + alpha * bmm(b1, b2). */
    const float biasd[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(mk(&bias, CT_FLOAT32, biasd, 3, DIMS(2, 2, 2)));
    for (int i = 0; i < 8; i++)
        want[i] = 0.5 * biasd[i] - 2 * want[i];
    CHECK(ct_baddbmm(ctx, bias, a, b, 0.5, -2.0, &y));
    keep(y);
    show("baddbmm(beta 0.5, alpha -2)", y);
    EXPECT_ARR(y, want, 8, 0);

    /* Error: the inner sizes must agree ((2,2,3) @ (2,2,3)). */
    y = NULL;
    EXPECT_ERROR(ct_bmm(ctx, a, a, &y), CT_ERR_SHAPE);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * im2col / col2im: unfold and fold */
static int demo_unfold_fold(void) {
    printf("unfold / fold\n");
    const int64_t k2[2] = {2, 2}, one[2] = {1, 1}, zero[2] = {0, 0};
    ct_tensor *x, *cols, *y, *x4, *ones;
    /* ct_unfold: x (N, C, H, W) -> (N, C*kh*kw, L): column l holds the patch at output position
     * l. For a 3x3 image and 2x2 kernel: 4 rows (kernel offsets) by 4 columns (positions). */
    float xd[9];
    for (int i = 0; i < 9; i++)
        xd[i] = (float)(i + 1);
    CHECK(mk(&x, CT_FLOAT32, xd, 4, DIMS(1, 1, 3, 3)));
    CHECK(ct_unfold(ctx, x, k2, one, zero, one, &cols));
    keep(cols);
    show("unfold(3x3, kernel 2)", cols);
    EXPECT_SHAPE(cols, 1, 4, 4);
    double want[16];
    for (int ki = 0; ki < 2; ki++)
        for (int kj = 0; kj < 2; kj++)
            for (int oh = 0; oh < 2; oh++)
                for (int ow = 0; ow < 2; ow++)
                    want[(ki * 2 + kj) * 4 + oh * 2 + ow] = xd[(oh + ki) * 3 + ow + kj];
    EXPECT_ARR(cols, want, 16, 0);

    /* ct_fold sums the columns back into an image. Overlapping patches add up, so fold(unfold(x))
     * is x times the number of patches covering each pixel (4 in the middle, 1 at the corners). */
    CHECK(ct_fold(ctx, cols, DIMS(3, 3), k2, one, zero, one, &y));
    keep(y);
    show("fold(unfold(x))", y);
    double cover[9] = {0};
    for (int oh = 0; oh < 2; oh++)
        for (int ow = 0; ow < 2; ow++)
            for (int ki = 0; ki < 2; ki++)
                for (int kj = 0; kj < 2; kj++)
                    cover[(oh + ki) * 3 + ow + kj] += 1;
    for (int i = 0; i < 9; i++)
        want[i] = cover[i] * xd[i];
    EXPECT_SHAPE(y, 1, 1, 3, 3);
    EXPECT_ARR(y, want, 9, 0);

    /* With stride = kernel the patches tile the image and fold undoes unfold exactly. */
    float x4d[16];
    double x4w[16];
    for (int i = 0; i < 16; i++)
        x4d[i] = (float)(i * 5 % 16), x4w[i] = x4d[i];
    CHECK(mk(&x4, CT_FLOAT32, x4d, 4, DIMS(1, 1, 4, 4)));
    CHECK(ct_unfold(ctx, x4, k2, one, zero, k2, &cols));
    keep(cols);
    CHECK(ct_fold(ctx, cols, DIMS(4, 4), k2, one, zero, k2, &y));
    keep(y);
    EXPECT_ARR(y, x4w, 16, 0);

    /* fold(unfold(ones)) with padding 1 is the coverage count of each pixel. */
    CHECK(ct_ones_like(ctx, x, &ones));
    keep(ones);
    CHECK(ct_unfold(ctx, ones, k2, one, one, one, &cols)); /* 4x4 positions on the padded 5x5 */
    keep(cols);
    CHECK(ct_fold(ctx, cols, DIMS(3, 3), k2, one, one, one, &y));
    keep(y);
    EXPECT_VALS(y, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4); /* every pixel is in 4 patches */
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Convolution (checked against a direct nested loop) */
static void naive_conv2d(const float *x, int N, int C, int H, int W, const float *w, int O, int KH,
                         int KW, const float *b, const int64_t st[2], const int64_t pd[2],
                         const int64_t dl[2], int groups, double *y, int OH, int OW) {
    int cg = C / groups, og = O / groups;
    for (int n = 0; n < N; n++)
        for (int o = 0; o < O; o++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    int g = o / og;
                    double acc = b ? b[o] : 0;
                    for (int c = 0; c < cg; c++)
                        for (int kh = 0; kh < KH; kh++)
                            for (int kw = 0; kw < KW; kw++) {
                                int64_t ih = oh * st[0] - pd[0] + kh * dl[0];
                                int64_t iw = ow * st[1] - pd[1] + kw * dl[1];
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += (double)x[((n * C + g * cg + c) * H + ih) * W + iw] *
                                       w[((o * cg + c) * KH + kh) * KW + kw];
                            }
                    y[((n * O + o) * OH + oh) * OW + ow] = acc;
                }
}

static int demo_conv(void) {
    printf("conv2d / conv1d\n");
    float xd[64], wd[54], bd[3] = {1, -1, 0};
    for (int i = 0; i < 64; i++)
        xd[i] = (float)((i * 7) % 5 - 2);
    for (int i = 0; i < 54; i++)
        wd[i] = (float)((i * 3) % 4 - 1);
    ct_tensor *x, *w, *b, *y, *wg, *x1, *w1;
    double want[128];
    CHECK(mk(&x, CT_FLOAT32, xd, 4, DIMS(2, 2, 4, 4)));
    CHECK(mk(&w, CT_FLOAT32, wd, 4, DIMS(3, 2, 3, 3)));
    CHECK(mk(&b, CT_FLOAT32, bd, 1, DIMS(3)));

    /* ct_conv2d: x (N, C, H, W) * w (O, C/groups, kh, kw) + b. A 3x3 kernel with padding 1 and
     * stride 1 keeps the 4x4 size. */
    const int64_t s1[2] = {1, 1}, p1[2] = {1, 1}, d1[2] = {1, 1};
    CHECK(ct_conv2d(ctx, x, w, b, s1, p1, d1, 1, &y));
    keep(y);
    show("conv2d(pad 1)", y);
    EXPECT_SHAPE(y, 2, 3, 4, 4);
    naive_conv2d(xd, 2, 2, 4, 4, wd, 3, 3, 3, bd, s1, p1, d1, 1, want, 4, 4);
    EXPECT_ARR(y, want, 96, 0);

    /* Stride, dilation and groups: 2 groups of one input channel each, 2 output channels, a 2x2
     * kernel dilated by 2 (it spans 3x3), stride (2, 1), no bias. Output size
     * (H + 2 pad - dil (k - 1) - 1) / stride + 1: (4 - 3) / 2 + 1 = 1 row, (4 - 3) / 1 + 1 = 2. */
    const int64_t s21[2] = {2, 1}, p0[2] = {0, 0}, d2[2] = {2, 2};
    CHECK(mk(&wg, CT_FLOAT32, wd, 4, DIMS(2, 1, 2, 2)));
    CHECK(ct_conv2d(ctx, x, wg, NULL, s21, p0, d2, 2, &y));
    keep(y);
    show("conv2d(stride (2,1), dilation 2, groups 2)", y);
    EXPECT_SHAPE(y, 2, 2, 1, 2);
    naive_conv2d(xd, 2, 2, 4, 4, wd, 2, 2, 2, NULL, s21, p0, d2, 2, want, 1, 2);
    EXPECT_ARR(y, want, 8, 0);

    /* ct_conv1d: x (N, C, L) * w (O, C, k), the same as conv2d over a height of 1. */
    CHECK(mk(&x1, CT_FLOAT32, xd, 3, DIMS(1, 2, 5)));
    CHECK(mk(&w1, CT_FLOAT32, wd, 3, DIMS(3, 2, 3)));
    CHECK(ct_conv1d(ctx, x1, w1, b, 1, 1, 1, 1, &y));
    keep(y);
    show("conv1d(pad 1)", y);
    EXPECT_SHAPE(y, 1, 3, 5);
    naive_conv2d(xd, 1, 2, 1, 5, wd, 3, 1, 3, bd, s1, (const int64_t[]){0, 1}, d1, 1, want, 1, 5);
    EXPECT_ARR(y, want, 15, 0);

    /* Error: x1 has 2 channels, but a (3, 3, 3) weight expects 3. */
    ct_tensor *wbad;
    CHECK(mk(&wbad, CT_FLOAT32, wd, 3, DIMS(3, 3, 3)));
    y = NULL;
    EXPECT_ERROR(ct_conv1d(ctx, x1, wbad, NULL, 1, 0, 1, 1, &y), CT_ERR_SHAPE);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Pooling (checked against torch's definitions written as naive loops over one plane) */
static void naive_pool(const float *x, int H, int W, int k, int s, int p, int d, int ceil_mode,
                       int is_max, int count_include_pad, double *out, double *idx, int *OH,
                       int *OW) {
    int oh_n = 0, ow_n = 0;
    for (int dim = 0; dim < 2; dim++) {
        int in = dim ? W : H, span = in + 2 * p - d * (k - 1) - 1;
        int o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        if (ceil_mode && (o - 1) * s >= in + p) o--; /* the last window must start inside */
        *(dim ? &ow_n : &oh_n) = o;
    }
    for (int oh = 0; oh < oh_n; oh++)
        for (int ow = 0; ow < ow_n; ow++) {
            int h0 = oh * s - p, w0 = ow * s - p;
            double best = -INFINITY, sum = 0, best_i = -1;
            int inside = 0;
            for (int i = 0; i < k; i++)
                for (int j = 0; j < k; j++) {
                    int h = h0 + i * d, w = w0 + j * d;
                    if (h < 0 || h >= H || w < 0 || w >= W) continue;
                    double v = x[h * W + w];
                    if (v > best) best = v, best_i = h * W + w;
                    sum += v, inside++;
                }
            if (is_max) {
                out[oh * ow_n + ow] = best;
                if (idx) idx[oh * ow_n + ow] = best_i;
            } else {
                /* count_include_pad divides by the window inside the padded input */
                int h1 = h0 + k < H + p ? h0 + k : H + p, w1 = w0 + k < W + p ? w0 + k : W + p;
                int div = count_include_pad ? (h1 - h0) * (w1 - w0) : inside;
                out[oh * ow_n + ow] = sum / div;
            }
        }
    *OH = oh_n, *OW = ow_n;
}

static int demo_pool(void) {
    printf("pooling\n");
    float x4d[16], x5d[25];
    for (int i = 0; i < 16; i++)
        x4d[i] = (float)((i * 7) % 16); /* a permutation of 0..15: no ties */
    for (int i = 0; i < 25; i++)
        x5d[i] = (float)((i * 7) % 25);
    ct_tensor *x4, *x5, *y, *ind;
    CHECK(mk(&x4, CT_FLOAT32, x4d, 4, DIMS(1, 1, 4, 4)));
    CHECK(mk(&x5, CT_FLOAT32, x5d, 4, DIMS(1, 1, 5, 5)));
    double want[32], wind[32];
    int oh, ow;
    const int64_t k2[2] = {2, 2}, k3[2] = {3, 3}, s2[2] = {2, 2}, s1[2] = {1, 1};
    const int64_t p0[2] = {0, 0}, p1[2] = {1, 1}, d1[2] = {1, 1};

    /* ct_max_pool2d: the maximum of each kernel window (stride NULL: the kernel, so 2x2 blocks). */
    CHECK(ct_max_pool2d(ctx, x4, k2, NULL, p0, d1, &y));
    keep(y);
    show("max_pool2d(4x4, kernel 2)", y);
    naive_pool(x4d, 4, 4, 2, 2, 0, 1, 0, 1, 0, want, NULL, &oh, &ow);
    EXPECT_SHAPE(y, 1, 1, 2, 2);
    EXPECT_ARR(y, want, 4, 0);
    CHECK(ct_max_pool2d(ctx, x4, k3, s1, p1, d1, &y)); /* 3x3 windows, padding 1: 4x4 out */
    keep(y);
    naive_pool(x4d, 4, 4, 3, 1, 1, 1, 0, 1, 0, want, NULL, &oh, &ow);
    EXPECT_SHAPE(y, 1, 1, 4, 4);
    EXPECT_ARR(y, want, 16, 0);

    /* ct_avg_pool2d: the mean of each window; with padding the zeros count (torch's default). */
    CHECK(ct_avg_pool2d(ctx, x4, k2, NULL, p0, &y));
    keep(y);
    show("avg_pool2d(4x4, kernel 2)", y);
    naive_pool(x4d, 4, 4, 2, 2, 0, 1, 0, 0, 1, want, NULL, &oh, &ow);
    EXPECT_ARR(y, want, 4, 0);
    CHECK(ct_avg_pool2d(ctx, x4, k3, s2, p1, &y));
    keep(y);
    naive_pool(x4d, 4, 4, 3, 2, 1, 1, 0, 0, 1, want, NULL, &oh, &ow);
    EXPECT_SHAPE(y, 1, 1, 2, 2);
    EXPECT_ARR(y, want, 4, 1e-5);

    /* ct_max_pool2d_ex: ceil_mode keeps a last, partial window (5x5 -> 3x3 with 2x2 windows),
     * and the indices give each maximum's flat position h * W + w in the input plane. */
    CHECK(ct_max_pool2d_ex(ctx, x5, k2, s2, p0, d1, true, &y, &ind));
    keep(y), keep(ind);
    show("max_pool2d_ex(5x5, ceil_mode) indices", ind);
    naive_pool(x5d, 5, 5, 2, 2, 0, 1, 1, 1, 0, want, wind, &oh, &ow);
    EXPECT(oh == 3 && ow == 3);
    EXPECT_SHAPE(y, 1, 1, 3, 3);
    EXPECT_ARR(y, want, 9, 0);
    EXPECT(ct_tensor_dtype(ind) == CT_INT64);
    EXPECT_ARR(ind, wind, 9, 0);

    /* ct_avg_pool2d_ex: count_include_pad = false divides each window by its elements inside
     * the input only (corner windows of 3x3 with padding 1 hold 4 of them). */
    CHECK(ct_avg_pool2d_ex(ctx, x4, k3, s2, p1, false, false, &y));
    keep(y);
    show("avg_pool2d_ex(count_include_pad false)", y);
    naive_pool(x4d, 4, 4, 3, 2, 1, 1, 0, 0, 0, want, NULL, &oh, &ow);
    EXPECT_ARR(y, want, 4, 1e-5);
    CHECK(ct_avg_pool2d_ex(ctx, x5, k2, s2, p0, true, true, &y));
    keep(y);
    naive_pool(x5d, 5, 5, 2, 2, 0, 1, 1, 0, 1, want, NULL, &oh, &ow);
    EXPECT_SHAPE(y, 1, 1, 3, 3);
    EXPECT_ARR(y, want, 9, 1e-5);
    /* ct_avg_pool2d_divisor: F.avg_pool2d(divisor_override=4): every 2x2 window sum / 4, so the
     * ceil overhang's windows (one or two input elements) are smaller than the plain average. */
    CHECK(ct_avg_pool2d_divisor(ctx, x5, k2, s2, p0, true, false, 4, &y));
    keep(y);
    EXPECT_SHAPE(y, 1, 1, 3, 3);
    {
        double dw[9];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double sum = 0;
                for (int a = 2 * i; a < 2 * i + 2 && a < 5; a++)
                    for (int b = 2 * j; b < 2 * j + 2 && b < 5; b++)
                        sum += x5d[a * 5 + b];
                dw[i * 3 + j] = sum / 4;
            }
        EXPECT_ARR(y, dw, 9, 1e-5);
    }

    /* ct_adaptive_avg_pool2d: choose the output size, the bins
     * [floor(i H / oh), ceil((i + 1) H / oh)) follow (overlapping for 4 -> 3). */
    for (int n = 2; n <= 3; n++) {
        CHECK(ct_adaptive_avg_pool2d(ctx, x4, DIMS(n, n), &y));
        keep(y);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                int h0 = i * 4 / n, h1 = ((i + 1) * 4 + n - 1) / n;
                int w0 = j * 4 / n, w1 = ((j + 1) * 4 + n - 1) / n;
                double s = 0;
                for (int h = h0; h < h1; h++)
                    for (int w = w0; w < w1; w++)
                        s += x4d[h * 4 + w];
                want[i * n + j] = s / ((h1 - h0) * (w1 - w0));
            }
        if (n == 3) show("adaptive_avg_pool2d(4x4 -> 3x3)", y);
        EXPECT_SHAPE(y, 1, 1, n, n);
        EXPECT_ARR(y, want, n * n, 1e-5);
    }

    /* Error: padding may be at most half the kernel. */
    y = NULL;
    EXPECT_ERROR(ct_max_pool2d(ctx, x4, k2, NULL, DIMS(2, 2), d1, &y), CT_ERR_INVALID_ARG);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Resampling: interpolate */
static int demo_interpolate(void) {
    printf("interpolate\n");
    ct_tensor *x, *l, *f, *y;
    CHECK(mk(&x, CT_FLOAT32, F32(1, 2, 3, 4), 4, DIMS(1, 1, 2, 2)));
    /* ct_interpolate, nearest: output pixel j copies input floor(j * in / out): each pixel of the
     * 2x2 image becomes a 2x2 block. */
    CHECK(ct_interpolate(ctx, x, 2, DIMS(4, 4), CT_INTERP_NEAREST, false, &y));
    keep(y);
    show("nearest 2x2 -> 4x4", y);
    EXPECT_VALS(y, 0, 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4);

    /* bilinear with align_corners: the corners stay, the centre is the mean of all four. */
    CHECK(ct_interpolate(ctx, x, 2, DIMS(3, 3), CT_INTERP_LINEAR, true, &y));
    keep(y);
    show("bilinear align_corners 2x2 -> 3x3", y);
    EXPECT_VALS(y, 1e-6, 1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4);

    /* bicubic with align_corners: the cubic weights at the half-way points are symmetric and the
     * clamped borders repeat the edge, so this 2x2 image gives bilinear's 3x3 */
    CHECK(ct_interpolate(ctx, x, 2, DIMS(3, 3), CT_INTERP_BICUBIC, true, &y));
    keep(y);
    show("bicubic align_corners 2x2 -> 3x3", y);
    EXPECT_VALS(y, 1e-6, 1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4);

    /* linear on (N, C, L) without align_corners: source (j + 0.5) * in / out - 0.5, clamped at
     * the edges: [0 4] -> [0 1 3 4]. */
    CHECK(mk(&l, CT_FLOAT32, F32(0, 4), 3, DIMS(1, 1, 2)));
    CHECK(ct_interpolate(ctx, l, 1, DIMS(4), CT_INTERP_LINEAR, false, &y));
    keep(y);
    EXPECT_VALS(y, 1e-6, 0, 1, 3, 4);

    /* ct_interpolate_scale: output size floor(in * scale). By default the source index uses
     * 1 / scale (j / 1.3), with recompute_scale_factor in / out (j * 5/6): for j = 5 that is
     * floor(3.85) = 3 versus floor(4.17) = 4. */
    CHECK(mk(&f, CT_FLOAT32, F32(10, 20, 30, 40, 50), 3, DIMS(1, 1, 5)));
    const double sc[1] = {1.3};
    CHECK(ct_interpolate_scale(ctx, f, 1, sc, CT_INTERP_NEAREST, false, false, &y));
    keep(y);
    show("nearest scale 1.3", y);
    EXPECT_VALS(y, 0, 10, 10, 20, 30, 40, 40);
    CHECK(ct_interpolate_scale(ctx, f, 1, sc, CT_INTERP_NEAREST, false, true, &y));
    keep(y);
    show("nearest scale 1.3, recompute_scale_factor", y);
    EXPECT_VALS(y, 0, 10, 10, 20, 30, 40, 50);

    /* Error: align_corners only means something for the linear modes. */
    y = NULL;
    EXPECT_ERROR(ct_interpolate(ctx, x, 2, DIMS(4, 4), CT_INTERP_NEAREST, true, &y),
                 CT_ERR_INVALID_ARG);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Indexing */
static int demo_indexing(void) {
    printf("indexing\n");
    ct_tensor *x, *wt, *ids, *idx, *y, *z, *src, *mask, *ones;
    CHECK(mk(&x, CT_FLOAT32, F32(3, 1, 4, 1, 5, 9), 2, DIMS(2, 3)));

    /* ct_embedding: rows of a (V, D) table picked by an integer tensor: out (..., D). */
    CHECK(mk(&wt, CT_FLOAT32, F32(0, 1, 10, 11, 20, 21, 30, 31), 2, DIMS(4, 2)));
    CHECK(mk(&ids, CT_INT64, I64(3, 0, 1, 3), 2, DIMS(2, 2)));
    CHECK(ct_embedding(ctx, wt, ids, &y));
    keep(y);
    show("embedding(ids [[3 0] [1 3]])", y);
    EXPECT_SHAPE(y, 2, 2, 2);
    EXPECT_VALS(y, 0, 30, 31, 0, 1, 10, 11, 30, 31);

    /* ct_index_select: whole slices at a 1-d index along a dim (columns 2 and 0 here). */
    CHECK(mk(&idx, CT_INT64, I64(2, 0), 1, DIMS(2)));
    CHECK(ct_index_select(ctx, x, 1, idx, &y));
    keep(y);
    show("index_select(x, dim 1, [2 0])", y);
    EXPECT_VALS(y, 0, 4, 3, 9, 1);

    /* ct_gather: out[i][j] = x[i][index[i][j]] for dim 1; out has the index's shape. */
    CHECK(mk(&idx, CT_INT64, I64(0, 0, 2, 1), 2, DIMS(2, 2)));
    CHECK(ct_gather(ctx, x, 1, idx, &y));
    keep(y);
    show("gather(x, dim 1, [[0 0] [2 1]])", y);
    EXPECT_VALS(y, 0, 3, 3, 9, 5);

    /* ct_take_along_dim: gather with broadcasting; with argsort's indices it sorts each row.
     * CT_ALL_DIMS indexes the flattened tensor. */
    CHECK(ct_argsort(ctx, x, 1, false, &idx));
    keep(idx);
    CHECK(ct_take_along_dim(ctx, x, idx, 1, &y));
    keep(y);
    show("take_along_dim(x, argsort(x))", y);
    EXPECT_VALS(y, 0, 1, 3, 4, 1, 5, 9);
    CHECK(mk(&idx, CT_INT64, I64(5, 0), 1, DIMS(2)));
    CHECK(ct_take_along_dim(ctx, x, idx, CT_ALL_DIMS, &y));
    keep(y);
    EXPECT_VALS(y, 0, 9, 3);

    /* ct_scatter: a copy of t with out[i][index[i][j]] = src[i][j] (dim 1). */
    CHECK(ct_zeros_like(ctx, x, &z));
    keep(z);
    CHECK(mk(&idx, CT_INT64, I64(2, 0), 2, DIMS(2, 1)));
    CHECK(mk(&src, CT_FLOAT32, F32(7, 8), 2, DIMS(2, 1)));
    CHECK(ct_scatter(ctx, z, 1, idx, src, &y));
    keep(y);
    show("scatter(zeros, dim 1)", y);
    EXPECT_VALS(y, 0, 0, 0, 7, 8, 0, 0);

    /* ct_scatter_add: the same, adding: a histogram of the indices [0 1 0 2 0]. */
    CHECK(mk(&z, CT_FLOAT32, F32(0, 0, 0), 1, DIMS(3)));
    CHECK(mk(&idx, CT_INT64, I64(0, 1, 0, 2, 0), 1, DIMS(5)));
    CHECK(mk(&ones, CT_FLOAT32, F32(1, 1, 1, 1, 1), 1, DIMS(5)));
    CHECK(ct_scatter_add(ctx, z, 0, idx, ones, &y));
    keep(y);
    show("scatter_add histogram", y);
    EXPECT_VALS(y, 0, 3, 1, 1);

    /* ct_index_add: out[index[i]] += alpha * source[i] along dim 0; row 0 is hit twice:
     * 1 + 10 * (1 + 5) = 61, 1 + 10 * (2 + 6) = 81. */
    CHECK(mk(&z, CT_FLOAT32, F32(1, 1, 1, 1, 1, 1), 2, DIMS(3, 2)));
    CHECK(mk(&idx, CT_INT64, I64(0, 2, 0), 1, DIMS(3)));
    CHECK(mk(&src, CT_FLOAT32, F32(1, 2, 3, 4, 5, 6), 2, DIMS(3, 2)));
    CHECK(ct_index_add(ctx, z, 0, idx, src, 10.0, &y));
    keep(y);
    show("index_add(ones, dim 0, [0 2 0], alpha 10)", y);
    EXPECT_VALS(y, 0, 61, 81, 1, 1, 31, 41);

    /* ct_masked_fill: value where the mask is true (x > 4), x elsewhere. */
    CHECK(ct_gt_scalar(ctx, x, 4, &mask));
    keep(mask);
    CHECK(ct_masked_fill(ctx, x, mask, -1, &y));
    keep(y);
    show("masked_fill(x, x > 4, -1)", y);
    EXPECT_VALS(y, 0, 3, 1, 4, 1, -1, -1);

    /* ct_one_hot: int64 (..., num_classes) with a 1 at each index; -1: max + 1 classes. */
    CHECK(mk(&idx, CT_INT64, I64(2, 0, 1), 1, DIMS(3)));
    CHECK(ct_one_hot(ctx, idx, 4, &y));
    keep(y);
    show("one_hot([2 0 1], 4)", y);
    EXPECT(ct_tensor_dtype(y) == CT_INT64);
    EXPECT_SHAPE(y, 3, 4);
    EXPECT_VALS(y, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0);
    CHECK(ct_one_hot(ctx, idx, -1, &y));
    keep(y);
    EXPECT_SHAPE(y, 3, 3);

    /* Error: an index outside the indexed dim. */
    CHECK(mk(&idx, CT_INT64, I64(4), 2, DIMS(1, 1)));
    y = NULL;
    EXPECT_ERROR(ct_embedding(ctx, wt, idx, &y), CT_ERR_INDEX);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Sorting and selection */
static int demo_sort(void) {
    printf("sort / argsort / topk / kthvalue\n");
    ct_tensor *t, *v, *i, *y;
    CHECK(mk(&t, CT_FLOAT32, F32(3, 1, 2, 1, 0, 5, 5, 4), 2, DIMS(2, 4)));
    /* ct_sort: values and int64 indices along a dim; equal values keep their order (stable). */
    CHECK(ct_sort(ctx, t, 1, false, true, &v, &i));
    keep(v), keep(i);
    show("sort values", v);
    show("sort indices", i);
    EXPECT_VALS(v, 0, 1, 1, 2, 3, 0, 4, 5, 5);
    EXPECT_VALS(i, 0, 1, 3, 2, 0, 0, 3, 1, 2);
    CHECK(ct_sort(ctx, t, 1, true, true, &v, &i));
    keep(v), keep(i);
    EXPECT_VALS(v, 0, 3, 2, 1, 1, 5, 5, 4, 0);
    EXPECT_VALS(i, 0, 0, 2, 1, 3, 1, 2, 3, 0);

    /* ct_argsort: just the indices, here along dim 0 (which row holds the smaller value). */
    CHECK(ct_argsort(ctx, t, 0, false, &y));
    keep(y);
    show("argsort(dim 0)", y);
    EXPECT_VALS(y, 0, 1, 0, 0, 0, 0, 1, 1, 1);

    /* ct_topk: the k largest (or smallest) per row, sorted, with their indices. */
    CHECK(ct_topk(ctx, t, 2, 1, true, true, &v, &i));
    keep(v), keep(i);
    show("topk(2) values", v);
    EXPECT_VALS(v, 0, 3, 2, 5, 5);
    EXPECT_VALS(i, 0, 0, 2, 1, 2);
    CHECK(ct_topk(ctx, t, 2, 1, false, true, &v, &i));
    keep(v), keep(i);
    EXPECT_VALS(v, 0, 1, 1, 0, 4);
    EXPECT_VALS(i, 0, 1, 3, 0, 3);

    /* ct_kthvalue: the k-th smallest (k = 2) per row; of the two 1s in row 0 the second in
     * stable order (index 3) is the 2nd smallest. */
    CHECK(ct_kthvalue(ctx, t, 2, 1, false, &v, &i));
    keep(v), keep(i);
    show("kthvalue(k 2) values", v);
    EXPECT_VALS(v, 0, 1, 4);
    EXPECT_VALS(i, 0, 3, 3);

    /* Error: k larger than the dim. */
    v = i = NULL;
    EXPECT_ERROR(ct_topk(ctx, t, 5, 1, true, true, &v, &i), CT_ERR_INDEX);
    keep(v), keep(i);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Creation from another tensor, triangles */
static int demo_like(void) {
    printf("*_like / tril / triu\n");
    ct_tensor *m, *y, *i8;
    CHECK(mk(&m, CT_INT32, (const int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9}, 2, DIMS(3, 3)));
    /* ct_empty_like: same shape and dtype, contents undefined (write before reading). */
    CHECK(ct_empty_like(ctx, m, &y));
    keep(y);
    EXPECT_SHAPE(y, 3, 3);
    EXPECT(ct_tensor_dtype(y) == CT_INT32);
    /* ct_zeros_like / ct_ones_like / ct_full_like: filled with 0 / 1 / a value. */
    CHECK(ct_zeros_like(ctx, m, &y));
    keep(y);
    EXPECT_VALS(y, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    CHECK(ct_ones_like(ctx, m, &y));
    keep(y);
    EXPECT_VALS(y, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    CHECK(ct_full_like(ctx, m, 7, &y));
    keep(y);
    show("full_like(m, 7)", y);
    EXPECT(ct_tensor_dtype(y) == CT_INT32);
    EXPECT_VALS(y, 0, 7, 7, 7, 7, 7, 7, 7, 7, 7);

    /* ct_tril / ct_triu: keep col - row <= diagonal (tril) or >= diagonal (triu), zero the rest. */
    const int64_t diags[3] = {-1, 0, 1};
    for (int k = 0; k < 3; k++) {
        double lo[9], up[9];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                lo[r * 3 + c] = c - r <= diags[k] ? r * 3 + c + 1 : 0;
                up[r * 3 + c] = c - r >= diags[k] ? r * 3 + c + 1 : 0;
            }
        CHECK(ct_tril(ctx, m, diags[k], &y));
        keep(y);
        if (diags[k] == 0) show("tril(m)", y);
        EXPECT_ARR(y, lo, 9, 0);
        CHECK(ct_triu(ctx, m, diags[k], &y));
        keep(y);
        if (diags[k] == 1) show("triu(m, 1)", y);
        EXPECT_ARR(y, up, 9, 0);
    }

    /* Error: 1000 does not fit int8 (torch.full_like refuses it too). */
    CHECK(mk(&i8, CT_INT8, (const int8_t[]){1, 2}, 1, DIMS(2)));
    y = NULL;
    EXPECT_ERROR(ct_full_like(ctx, i8, 1000, &y), CT_ERR_INVALID_ARG);
    keep(y);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Shaping */
static int demo_shaping(void) {
    printf("shaping\n");
    ct_tensor *a, *b, *y, *r, *t, *x;
    CHECK(mk(&a, CT_FLOAT32, F32(1, 2, 3), 1, DIMS(3)));
    CHECK(mk(&b, CT_FLOAT32, F32(4, 5, 6), 1, DIMS(3)));
    /* ct_stack: join same-shaped tensors along a new dim (0: as rows, 1: as columns). */
    const ct_tensor *ab[2] = {a, b};
    CHECK(ct_stack(ctx, 2, ab, 0, &y));
    keep(y);
    EXPECT_SHAPE(y, 2, 3);
    EXPECT_VALS(y, 0, 1, 2, 3, 4, 5, 6);
    CHECK(ct_stack(ctx, 2, ab, 1, &y));
    keep(y);
    show("stack([a, b], dim 1)", y);
    EXPECT_SHAPE(y, 3, 2);
    EXPECT_VALS(y, 0, 1, 4, 2, 5, 3, 6);

    /* ct_split: views of split_size along a dim, the last one shorter: 5 -> 2, 2, 1. Views share
     * the storage: scaling a piece in place changes r. */
    CHECK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 5, 1, &r));
    keep(r);
    ct_tensor *pieces[4] = {NULL};
    int n = 0;
    CHECK(ct_split(ctx, r, 2, 0, 4, pieces, &n));
    for (int k = 0; k < n; k++)
        keep(pieces[k]);
    printf("  split(arange(5), 2): %d pieces of %lld %lld %lld\n", n,
           (long long)ct_tensor_numel(pieces[0]), (long long)ct_tensor_numel(pieces[1]),
           (long long)ct_tensor_numel(pieces[2]));
    EXPECT(n == 3);
    EXPECT_VALS(pieces[1], 0, 2, 3);
    EXPECT_VALS(pieces[2], 0, 4);
    CHECK(ct_mul_scalar_(ctx, pieces[1], 10));
    EXPECT_VALS(r, 0, 0, 1, 20, 30, 4);

    /* ct_split_sizes: views of the given sizes (they must add up to the dim). */
    CHECK(ct_split_sizes(ctx, r, 2, I64(1, 4), 0, pieces));
    keep(pieces[0]), keep(pieces[1]);
    EXPECT_VALS(pieces[0], 0, 0);
    EXPECT_VALS(pieces[1], 0, 1, 20, 30, 4);

    /* ct_chunk: ceil(size / chunks) per piece, so 6 elements in 4 chunks give 3 pieces of 2. */
    CHECK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 6, 1, &x));
    keep(x);
    CHECK(ct_chunk(ctx, x, 4, 0, 4, pieces, &n));
    for (int k = 0; k < n; k++)
        keep(pieces[k]);
    printf("  chunk(arange(6), 4): %d pieces\n", n);
    EXPECT(n == 3);
    EXPECT_VALS(pieces[2], 0, 4, 5);

    /* Error: 5 elements in pieces of 1 need 5 outputs; max_out 4 is refused, outs untouched. */
    EXPECT_ERROR(ct_split(ctx, r, 1, 0, 4, pieces, &n), CT_ERR_INVALID_ARG);

    /* ct_flatten merges dims start..end; ct_unflatten splits one dim (one size may be -1). */
    CHECK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 24, 1, &t));
    keep(t);
    ct_tensor *t3, *f, *u;
    CHECK(ct_tensor_reshape(ctx, t, 3, DIMS(2, 3, 4), &t3));
    keep(t3);
    CHECK(ct_flatten(ctx, t3, 1, 2, &f));
    keep(f);
    EXPECT_SHAPE(f, 2, 12);
    CHECK(ct_unflatten(ctx, f, 1, 2, I64(3, -1), &u));
    keep(u);
    show("unflatten(flatten(t, 1, 2), 1, (3, -1))", u);
    EXPECT_SHAPE(u, 2, 3, 4);

    /* ct_repeat: tile (2 times down, 3 times across). */
    CHECK(mk(&x, CT_FLOAT32, F32(1, 2), 1, DIMS(2)));
    CHECK(ct_repeat(ctx, x, 2, I64(2, 3), &y));
    keep(y);
    show("repeat([1 2], (2, 3))", y);
    EXPECT_SHAPE(y, 2, 6);
    EXPECT_VALS(y, 0, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2);

    /* ct_flip: reverse along dims. */
    CHECK(mk(&x, CT_FLOAT32, F32(3, 1, 4, 1, 5, 9), 2, DIMS(2, 3)));
    CHECK(ct_flip(ctx, x, 1, (const int[]){1}, &y));
    keep(y);
    show("flip(x, dim 1)", y);
    EXPECT_VALS(y, 0, 4, 1, 3, 9, 5, 1);
    CHECK(ct_flip(ctx, x, 2, (const int[]){0, 1}, &y));
    keep(y);
    EXPECT_VALS(y, 0, 9, 5, 1, 4, 1, 3);

    /* ct_roll: shift with wrap-around; dims NULL rolls the flattened tensor. */
    CHECK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 5, 1, &r));
    keep(r);
    CHECK(ct_roll(ctx, r, 1, I64(2), NULL, &y));
    keep(y);
    show("roll(arange(5), 2)", y);
    EXPECT_VALS(y, 0, 3, 4, 0, 1, 2);
    CHECK(ct_roll(ctx, x, 1, I64(1), (const int[]){1}, &y));
    keep(y);
    EXPECT_VALS(y, 0, 4, 3, 1, 9, 1, 5);

    /* ct_movedim: move dim 0 to the end (a view): out[j][k][i] = t3[i][j][k]. */
    CHECK(ct_movedim(ctx, t3, 1, (const int[]){0}, (const int[]){2}, &y));
    keep(y);
    EXPECT_SHAPE(y, 3, 4, 2);
    double want[24];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                want[(j * 4 + k) * 2 + i] = i * 12 + j * 4 + k;
    EXPECT_ARR(y, want, 24, 0);
    printf("  movedim(t3 (2,3,4), 0 -> 2): shape (3, 4, 2)\n");

    /* Error: stack needs equal shapes. */
    const ct_tensor *ax[2] = {a, x};
    y = NULL;
    EXPECT_ERROR(ct_stack(ctx, 2, ax, 0, &y), CT_ERR_SHAPE);
    keep(y);
    return 0;
}

int main(void) {
    char msg[256];
    if (ct_ctx_create_ex(NULL, &ctx, msg, sizeof msg) != CT_OK) {
        fprintf(stderr, "ct_ctx_create: %s\n", msg);
        return 1;
    }
    int (*const demos[])(void) = {demo_reductions, demo_norms,       demo_dropout,     demo_pad,
                                  demo_select,     demo_matmul,      demo_unfold_fold, demo_conv,
                                  demo_pool,       demo_interpolate, demo_indexing,    demo_sort,
                                  demo_like,       demo_shaping};
    int failed = 0;
    for (size_t k = 0; k < sizeof demos / sizeof demos[0] && !failed; k++) {
        failed = demos[k]();
        release_kept();
    }
    int64_t live = ct_ctx_live_tensors(ctx);
    if (live != 0) {
        fprintf(stderr, "%lld tensors still alive\n", (long long)live);
        failed = 1;
    }
    ct_ctx_free(ctx);
    printf(failed ? "FAILED\n" : "all checks passed\n");
    return failed;
}

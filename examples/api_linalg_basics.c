/* The everyday linear algebra and reduction helpers, as a PyTorch user writes them:
 * dot, mv, outer, einsum, trace, diagonal, diag, tile, meshgrid, diff, nansum, nanmean,
 * var_mean, std_mean, median, nanmedian, cummax, cummin, logcumsumexp, rot90, kron,
 * repeat_interleave, searchsorted, bucketize, isin, aminmax, bincount, cross and the random
 * helpers (randint, randperm, bernoulli, rand_like, randn_like), cov, corrcoef, trapezoid, each
 * printed and checked against values worked out by hand, plus one backward pass through them. Build
 * and run: see README ("Examples"). */
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
/* keep t for release at the end; NULL on failure */
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 128) ct_tensor_release(t); /* full: not kept, nothing leaks */
    return t && npool < 128 ? (pool[npool++] = t) : NULL;
}
static ct_tensor *f64(int nd, const int64_t *shape, const double *v) {
    ct_tensor *t = NULL;
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &t) == CT_OK ? keep(t) : NULL;
}
/* print t's values and compare them with want (within 1e-12) */
static int show(const char *label, ct_tensor *t, const double *want, int n) {
    double v[32];
    int bad = !t || ct_tensor_numel(t) != n || n > 32;
    if (!bad && ct_tensor_dtype(t) != CT_FLOAT64) {
        ct_tensor *c = NULL;
        bad = ct_cast(ctx, t, CT_FLOAT64, &c) != CT_OK || !keep(c);
        t = c;
    }
    if (!bad) bad = ct_tensor_to_host(t, v, sizeof(double) * (size_t)n) != CT_OK;
    printf("%-22s [", label);
    for (int i = 0; i < n && !bad; i++) {
        const int ok = (isnan(v[i]) && isnan(want[i])) || fabs(v[i] - want[i]) <= 1e-12;
        if (isnan(v[i]))
            printf("%snan%s", i ? " " : "", ok ? "" : "(!)");
        else
            printf("%s%g%s", i ? " " : "", v[i], ok ? "" : "(!)");
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
    ct_tensor *r = NULL, *r2 = NULL;
    const int64_t s3[1] = {3}, s23[2] = {2, 3}, s33[2] = {3, 3};
    ct_tensor *u = f64(1, s3, (const double[]){1, 2, 3}),
              *v = f64(1, s3, (const double[]){4, 5, 6});
    ct_tensor *M = f64(2, s23, (const double[]){1, 2, 3, 4, 5, 6});
    ct_tensor *S = f64(2, s33, (const double[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
    if (!u || !v || !M || !S) goto fail;

    printf("u = [1 2 3], v = [4 5 6], M = [[1 2 3] [4 5 6]], S = 3x3 of 1..9\n");
    CHECK(ct_dot(ctx, u, v, &r));
    EXPECT("dot(u, v)", r, 32);
    CHECK(ct_mv(ctx, M, v, &r));
    EXPECT("mv(M, v)", r, 32, 77);
    CHECK(ct_outer(ctx, u, v, &r));
    EXPECT("outer(u, v)", r, 4, 5, 6, 8, 10, 12, 12, 15, 18);
    CHECK(ct_cross(ctx, u, v, 0, &r));
    EXPECT("cross(u, v)", r, -3, 6, -3);
    CHECK(ct_einsum(ctx, "ij,j->i", 2, (const ct_tensor *const[]){M, v}, &r)); /* = mv */
    EXPECT("einsum(ij,j->i)", r, 32, 77);
    CHECK(ct_einsum(ctx, "ii", 1, (const ct_tensor *const[]){S}, &r)); /* the trace */
    EXPECT("einsum(ii)", r, 15);
    CHECK(ct_trace(ctx, S, &r));
    EXPECT("trace(S)", r, 15);
    CHECK(ct_diagonal(ctx, S, 1, 0, 1, &r)); /* a view of S */
    EXPECT("diagonal(S, 1)", r, 2, 6);
    CHECK(ct_diag(ctx, u, -1, &r)); /* a 4x4 matrix, u below the main diagonal */
    EXPECT("diag(u, -1)", r, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0);
    CHECK(ct_tile(ctx, u, 1, (const int64_t[]){2}, &r));
    EXPECT("tile(u, 2)", r, 1, 2, 3, 1, 2, 3);
    ct_tensor *grid[2] = {NULL, NULL};
    CHECK(ct_meshgrid(ctx, 2, (const ct_tensor *const[]){u, v}, CT_MESHGRID_IJ, grid));
    keep(grid[0]), keep(grid[1]);
    EXPECT("meshgrid ij [0]", ct_tensor_retain(grid[0]), 1, 1, 1, 2, 2, 2, 3, 3, 3);
    EXPECT("meshgrid ij [1]", ct_tensor_retain(grid[1]), 4, 5, 6, 4, 5, 6, 4, 5, 6);
    CHECK(ct_diff(ctx, S, 1, 1, NULL, NULL, &r));
    EXPECT("diff(S, dim 1)", r, 1, 1, 1, 1, 1, 1);
    ct_tensor *N = f64(2, s23, (const double[]){1, NAN, 3, NAN, NAN, NAN});
    if (!N) goto fail;
    CHECK(ct_nansum(ctx, N, 1, (const int[]){1}, false, &r));
    EXPECT("nansum(N, 1)", r, 4, 0);
    CHECK(ct_nanmean(ctx, N, 1, (const int[]){1}, false, &r));
    EXPECT("nanmean(N, 1)", r, 2, NAN);
    CHECK(ct_var_mean(ctx, M, 1, (const int[]){1}, 1.0, false, &r, &r2));
    keep(r2);
    EXPECT("var_mean(M, 1): var", r, 1, 1);
    EXPECT("  mean", ct_tensor_retain(r2), 2, 5);
    CHECK(ct_std_mean(ctx, u, 0, NULL, 0.0, false, &r, &r2));
    keep(r2);
    EXPECT("std_mean(u): std", r, sqrt(2.0 / 3));
    EXPECT("  mean", ct_tensor_retain(r2), 2);

    ct_tensor *med_i = NULL;
    CHECK(ct_median_dim(ctx, N, 1, false, &r, &med_i)); /* a NaN in the row gives NaN */
    keep(med_i);
    EXPECT("median(N, 1)", r, NAN, NAN);
    EXPECT("  index", ct_tensor_retain(med_i), 1, 0);
    CHECK(ct_nanmedian_dim(ctx, N, 1, false, &r, &med_i));
    keep(med_i);
    EXPECT("nanmedian(N, 1)", r, 1, NAN);
    CHECK(ct_median(ctx, S, &r));
    EXPECT("median(S)", r, 5);
    CHECK(ct_nanmedian(ctx, N, &r));
    EXPECT("nanmedian(N)", r, 1);

    ct_tensor *cm_i = NULL;
    CHECK(ct_cummax(ctx, f64(1, (const int64_t[]){5}, (const double[]){1, 3, 3, 2, 5}), 0, &r,
                    &cm_i)); /* ties take the later index */
    keep(cm_i);
    EXPECT("cummax", r, 1, 3, 3, 3, 5);
    EXPECT("  index", ct_tensor_retain(cm_i), 0, 1, 2, 2, 4);
    CHECK(ct_cummin(ctx, u, 0, &r, &cm_i));
    keep(cm_i);
    EXPECT("cummin(u)", r, 1, 1, 1);
    CHECK(ct_logcumsumexp(ctx, f64(1, (const int64_t[]){3}, (const double[]){-1000, 0, 1000}), 0,
                          &r)); /* no overflow */
    EXPECT("logcumsumexp", r, -1000, 0, 1000);

    CHECK(ct_rot90(ctx, M, 1, 0, 1, &r)); /* a quarter turn: (2, 3) -> (3, 2) */
    EXPECT("rot90(M)", r, 3, 6, 2, 5, 1, 4);
    CHECK(ct_kron(ctx, f64(1, (const int64_t[]){2}, (const double[]){1, 10}), u, &r));
    EXPECT("kron([1 10], u)", r, 1, 2, 3, 10, 20, 30);
    CHECK(ct_repeat_interleave(ctx, u, 2, 0, &r));
    EXPECT("repeat_interleave", r, 1, 1, 2, 2, 3, 3);

    ct_tensor *sorted = f64(1, (const int64_t[]){4}, (const double[]){1, 2, 2, 5});
    ct_tensor *queries = f64(1, (const int64_t[]){4}, (const double[]){0, 2, 3, 9});
    if (!sorted || !queries) goto fail;
    CHECK(ct_searchsorted(ctx, sorted, queries, false, false, &r)); /* first >= */
    EXPECT("searchsorted", r, 0, 1, 3, 4);
    CHECK(ct_bucketize(ctx, queries, sorted, false, true, &r)); /* first > */
    EXPECT("bucketize(right)", r, 0, 3, 3, 4);
    CHECK(ct_isin(ctx, queries, sorted, false, &r));
    EXPECT("isin", r, 0, 1, 0, 0);
    ct_tensor *amin_v = NULL;
    CHECK(ct_aminmax(ctx, S, 0, NULL, false, &amin_v, &r));
    keep(amin_v);
    EXPECT("aminmax(S): min", ct_tensor_retain(amin_v), 1);
    EXPECT("  max", r, 9);
    ct_tensor *labels = NULL;
    CHECK(ct_cast(ctx, f64(1, (const int64_t[]){4}, (const double[]){0, 2, 2, 3}), CT_INT64,
                  &labels));
    keep(labels);
    CHECK(ct_bincount(ctx, labels, NULL, 5, &r));
    EXPECT("bincount", r, 1, 0, 2, 1, 0);

    CHECK(ct_cov(ctx, M, 1, &r)); /* rows are variables */
    EXPECT("cov(M)", r, 1, 1, 1, 1);
    CHECK(ct_corrcoef(ctx, M, &r));
    EXPECT("corrcoef(M)", r, 1, 1, 1, 1);
    CHECK(ct_trapezoid(ctx, u, 1.0, 0, &r)); /* (1 + 2) / 2 + (2 + 3) / 2 */
    EXPECT("trapezoid(u)", r, 4);

    /* random helpers: reproducible from (seed, offset) */
    ct_tensor *ri = NULL, *rp = NULL, *rb = NULL, *rl = NULL, *rn = NULL;
    CHECK(ct_tensor_randint(ctx, CT_INT64, 0, 6, 1, (const int64_t[]){8}, 42, 0, &ri));
    CHECK(ct_randperm(ctx, 5, CT_INT64, 42, 0, &rp));
    CHECK(ct_bernoulli(ctx, f64(1, (const int64_t[]){3}, (const double[]){0, 1, 1}), 42, 0, &rb));
    CHECK(ct_rand_like(ctx, S, 42, 0, &rl));
    CHECK(ct_randn_like(ctx, S, 42, 0, &rn));
    keep(ri), keep(rp), keep(rl), keep(rn);
    EXPECT("bernoulli([0 1 1])", rb, 0, 1, 1);
    ct_tensor *perm_sum = NULL;
    CHECK(ct_sum(ctx, rp, 0, NULL, false, &perm_sum));
    EXPECT("sum(randperm(5))", perm_sum, 10);
    printf("randint(0, 6): ");
    CHECK(ct_tensor_print(stdout, ri));

    /* gradients flow through them: d/du sum(outer(u, v)) = sum(v) for every element */
    CHECK(ct_tensor_set_requires_grad(u, true));
    CHECK(ct_outer(ctx, u, v, &r));
    keep(r);
    CHECK(ct_sum(ctx, r, 0, NULL, false, &r2));
    keep(r2);
    CHECK(ct_backward(ctx, r2, NULL, false));
    EXPECT("grad of sum(outer)", ct_tensor_retain(ct_tensor_grad(u)), 15, 15, 15);
    printf("all linear algebra basics checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

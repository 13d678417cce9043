/* Stacking, splitting and small linear algebra, as a NumPy / PyTorch user writes them:
 * atleast_1d/2d/3d, hstack, vstack, dstack, column_stack, tensor_split (sections and indices),
 * block_diag, cartesian_prod, diag_embed, vander, logspace, triu_indices / tril_indices,
 * quantile, nanquantile, cumulative_trapezoid, linalg.vector_norm / matrix_norm / pinv / multi_dot,
 * cdist, mode, histc, index_fill, index_copy, masked_scatter, argwhere, ravel, float_power,
 * tensordot, addmv, addr, linalg.matrix_power, logdet and torch's aliases (swapaxes, swapdims,
 * flipud, fliplr, msort, clip, absolute, negative, fix, true_divide). Each result is
 * printed and checked
 * against values worked out by hand, then one gradient through tensordot. Build and run: see
 * README ("Examples"). */
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
    ct_tensor *r = NULL, *parts[4] = {NULL, NULL, NULL, NULL};
    ct_tensor *u = f64(2, (const double[]){1, 2}), *w = f64(2, (const double[]){3, 4});
    const ct_tensor *uw[2] = {u, w};

    CHECK(ct_atleast_2d(ctx, u, &r)); /* (2,) -> (1, 2) */
    keep(r);
    printf("atleast_2d(u): %d dims\n", ct_tensor_ndim(r));
    CHECK(ct_atleast_1d(ctx, u, &r)); /* u itself */
    keep(r);
    CHECK(ct_atleast_3d(ctx, u, &r)); /* (1, 2, 1) */
    keep(r);
    CHECK(ct_hstack(ctx, 2, uw, &r));
    EXPECT("hstack(u, w)", r, 1, 2, 3, 4);
    CHECK(ct_vstack(ctx, 2, uw, &r)); /* (2, 2) */
    EXPECT("vstack(u, w)", r, 1, 2, 3, 4);
    CHECK(ct_dstack(ctx, 2, uw, &r)); /* (1, 2, 2) */
    EXPECT("dstack(u, w)", r, 1, 3, 2, 4);
    CHECK(ct_column_stack(ctx, 2, uw, &r)); /* (2, 2): u and w as columns */
    EXPECT("column_stack(u, w)", r, 1, 3, 2, 4);
    ct_tensor *seven = f64(7, (const double[]){0, 1, 2, 3, 4, 5, 6});
    CHECK(ct_tensor_split(ctx, seven, 3, 0, parts)); /* sizes 3, 2, 2 */
    for (int i = 0; i < 3; i++)
        keep(parts[i]);
    EXPECT("tensor_split(7, 3)[1]", ct_tensor_retain(parts[1]), 3, 4);
    CHECK(ct_tensor_split_indices(ctx, seven, 2, (const int64_t[]){2, 5}, 0, parts));
    for (int i = 0; i < 3; i++)
        keep(parts[i]);
    EXPECT("tensor_split([2, 5])[2]", ct_tensor_retain(parts[2]), 5, 6);
    CHECK(ct_block_diag(ctx, 2, uw, &r)); /* (2, 4) */
    EXPECT("block_diag(u, w)", r, 1, 2, 0, 0, 0, 0, 3, 4);
    CHECK(ct_cartesian_prod(ctx, 2, uw, &r));
    EXPECT("cartesian_prod(u, w)", r, 1, 3, 1, 4, 2, 3, 2, 4);
    CHECK(ct_diag_embed(ctx, u, 0, -2, -1, &r));
    EXPECT("diag_embed(u)", r, 1, 0, 0, 2);
    CHECK(ct_vander(ctx, w, 3, false, &r));
    EXPECT("vander(w, 3)", r, 9, 3, 1, 16, 4, 1);
    CHECK(ct_tensor_logspace(ctx, CT_FLOAT64, 0, 3, 4, 10, &r));
    EXPECT("logspace(0, 3, 4)", r, 1, 10, 100, 1000);
    CHECK(ct_tensor_triu_indices(ctx, 2, 2, 0, &r));
    EXPECT("triu_indices(2, 2)", r, 0, 0, 1, 0, 1, 1);
    CHECK(ct_tensor_tril_indices(ctx, 2, 2, 0, &r));
    EXPECT("tril_indices(2, 2)", r, 0, 1, 1, 0, 0, 1);

    ct_tensor *q = f64(2, (const double[]){0.25, 0.5});
    CHECK(ct_quantile(ctx, seven, q, CT_ALL_DIMS, false, CT_QUANTILE_LINEAR, &r));
    EXPECT("quantile(0..6, [.25 .5])", r, 1.5, 3);
    CHECK(ct_nanquantile(ctx, seven, q, 0, false, CT_QUANTILE_LOWER, &r));
    EXPECT("nanquantile(lower)", r, 1, 3);

    ct_tensor *m = f64(4, (const double[]){1, 1, 0, 1}), *m2 = NULL;
    CHECK(ct_tensor_reshape(ctx, m, 2, (const int64_t[]){2, 2}, &m2));
    keep(m2);
    CHECK(ct_linalg_matrix_power(ctx, m2, 5, &r)); /* [[1, 5], [0, 1]] */
    EXPECT("matrix_power(m, 5)", r, 1, 5, 0, 1);
    CHECK(ct_linalg_matrix_power(ctx, m2, -2, &r));
    EXPECT("matrix_power(m, -2)", r, 1, -2, 0, 1);
    CHECK(ct_logdet(ctx, m2, &r));
    EXPECT("logdet(m)", r, 0);
    CHECK(ct_addmv(ctx, u, m2, w, 2, 1, &r)); /* 2 u + m w = (2 + 7, 4 + 4) */
    EXPECT("addmv(u, m, w, 2, 1)", r, 9, 8);
    CHECK(ct_addr(ctx, m2, u, w, 1, 2, &r)); /* m + 2 u w^T */
    EXPECT("addr(m, u, w, 1, 2)", r, 7, 9, 12, 17);

    CHECK(ct_cumulative_trapezoid(ctx, w, 2, 0, &r)); /* 2 (3 + 4) / 2 */
    EXPECT("cumulative_trapezoid", r, 7);
    CHECK(ct_cumulative_trapezoid_x(ctx, u, w, 0, &r)); /* (1 + 2) (4 - 3) / 2 */
    EXPECT("cumulative_trapezoid_x", r, 1.5);
    CHECK(ct_linalg_vector_norm(ctx, w, 2, 0, NULL, false, &r));
    EXPECT("vector_norm(w)", r, 5);
    CHECK(ct_linalg_matrix_norm(ctx, m2, "1", -2, -1, false, &r)); /* max column abs sum */
    EXPECT("matrix_norm(m, 1)", r, 2);
    ct_tensor *dw = NULL; /* diag(3, 4): its pseudo-inverse is diag(1/3, 1/4) */
    CHECK(ct_diag_embed(ctx, w, 0, -2, -1, &dw));
    keep(dw);
    CHECK(ct_linalg_pinv(ctx, dw, NAN, NAN, &r));
    EXPECT("pinv(diag(w))", r, 1.0 / 3, 0, 0, 0.25);
    /* a randomized rank-2 SVD of diag(3, 4): exact, singular values 4, 3 */
    ct_tensor *lu = NULL, *ls = NULL, *lv = NULL;
    CHECK(ct_svd_lowrank(ctx, dw, 2, 2, 11, &lu, &ls, &lv));
    keep(lu), keep(lv);
    EXPECT("svd_lowrank(diag(w)).S", ls, 4, 3);
    CHECK(ct_pca_lowrank(ctx, dw, 1, true, 2, 11, &lu, &ls, &lv)); /* columns minus their means */
    keep(lu), keep(lv);
    EXPECT("pca_lowrank(diag(w), 1).S", ls, sqrt(12.5)); /* rows (1.5, -2), (-1.5, 2) */
    const ct_tensor *chain[3] = {u, m2, w};
    CHECK(ct_linalg_multi_dot(ctx, 3, chain, &r)); /* u m w = (1, 3) . (3, 4) */
    EXPECT("multi_dot(u, m, w)", r, 15);
    ct_tensor *pts = NULL;
    CHECK(ct_tensor_reshape(ctx, m, 2, (const int64_t[]){2, 2}, &pts));
    keep(pts);
    CHECK(ct_cdist(ctx, pts, pts, 1, &r)); /* rows (1, 1) and (0, 1) */
    EXPECT("cdist(p=1)", r, 0, 1, 1, 0);

    ct_tensor *mv = NULL, *mi = NULL;
    CHECK(ct_mode(ctx, f64(5, (const double[]){2, 7, 2, 7, 1}), 0, false, &mv, &mi));
    keep(mi);
    EXPECT("mode(2 7 2 7 1)", mv, 2); /* the smallest of the most frequent */
    CHECK(ct_histc(ctx, seven, 3, 0, 6, &r));
    EXPECT("histc(0..6, 3 bins)", r, 2, 2, 3);

    ct_tensor *ix = NULL, *bm = NULL;
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){1}, CT_INT64, 1, (const int64_t[]){1}, &ix));
    keep(ix);
    CHECK(ct_index_fill(ctx, m2, 1, ix, 9, &r)); /* column 1 set to 9 */
    EXPECT("index_fill(m, 1, [1], 9)", r, 1, 9, 0, 9);
    CHECK(ct_index_copy(ctx, u, 0, ix, f64(1, (const double[]){5}), &r));
    EXPECT("index_copy(u, 0, [1], [5])", r, 1, 5);
    CHECK(ct_tensor_from_host(ctx, (const unsigned char[]){0, 1}, CT_BOOL, 1, (const int64_t[]){2},
                              &bm));
    keep(bm);
    CHECK(ct_masked_scatter(ctx, u, bm, w, &r)); /* the first of w where the mask is true */
    EXPECT("masked_scatter(u, [0 1], w)", r, 1, 3);
    CHECK(ct_argwhere(ctx, bm, &r));
    EXPECT("argwhere([0 1])", r, 1);
    CHECK(ct_ravel(ctx, m2, &r));
    EXPECT("ravel(m)", r, 1, 1, 0, 1);
    CHECK(ct_float_power(ctx, w, u, &r)); /* float64: 3^1, 4^2 */
    EXPECT("float_power(w, u)", r, 3, 16);
    CHECK(ct_float_power_scalar(ctx, w, 0.5, &r));
    EXPECT("float_power(w, 0.5)", r, sqrt(3.0), 2);

    /* torch's aliases */
    CHECK(ct_swapaxes(ctx, m2, 0, 1, &r));
    EXPECT("swapaxes(m)", r, 1, 0, 1, 1);
    CHECK(ct_swapdims(ctx, m2, 1, 0, &r));
    EXPECT("swapdims(m)", r, 1, 0, 1, 1);
    CHECK(ct_flipud(ctx, m2, &r));
    EXPECT("flipud(m)", r, 0, 1, 1, 1);
    CHECK(ct_fliplr(ctx, m2, &r));
    EXPECT("fliplr(m)", r, 1, 1, 1, 0);
    CHECK(ct_msort(ctx, f64(3, (const double[]){3, 1, 2}), &r));
    EXPECT("msort(3 1 2)", r, 1, 2, 3);
    const double lim = 1.5;
    CHECK(ct_clip(ctx, w, NULL, &lim, &r));
    EXPECT("clip(w, max 1.5)", r, 1.5, 1.5);
    ct_tensor *nw = f64(2, (const double[]){-2.5, 2.5});
    CHECK(ct_absolute(ctx, nw, &r));
    EXPECT("absolute", r, 2.5, 2.5);
    CHECK(ct_negative(ctx, nw, &r));
    EXPECT("negative", r, 2.5, -2.5);
    CHECK(ct_fix(ctx, nw, &r));
    EXPECT("fix", r, -2, 2);
    CHECK(ct_true_divide(ctx, w, u, &r));
    EXPECT("true_divide(w, u)", r, 3, 2);

    /* d/dA sum(tensordot(A, B, 1)) = row sums of B, broadcast over A's rows */
    ct_tensor *A = f64(4, (const double[]){1, 2, 3, 4}), *A2 = NULL, *s = NULL;
    CHECK(ct_tensor_reshape(ctx, A, 2, (const int64_t[]){2, 2}, &A2));
    keep(A2);
    CHECK(ct_tensor_set_requires_grad(A2, true));
    CHECK(ct_tensordot(ctx, A2, m2, 1, (const int[]){1}, (const int[]){0}, &r));
    EXPECT("tensordot(A, m, 1)", r, 1, 3, 3, 7);
    CHECK(ct_sum(ctx, r, 0, NULL, false, &s));
    keep(s);
    CHECK(ct_backward(ctx, s, NULL, false));
    EXPECT("grad of sum(tensordot)", ct_tensor_retain(ct_tensor_grad(A2)), 2, 1, 2, 1);
    printf("all stacking and small linear algebra checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

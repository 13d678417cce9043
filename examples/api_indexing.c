/* Indexing, scatter and small helpers, as a PyTorch user writes them: advanced indexing
 * (x[rows, cols], index_put, take, put), select / slice / diagonal_scatter, select, unbind, t,
 * adjoint, moveaxis, broadcast_shapes / broadcast_to / broadcast_tensors, hsplit / vsplit / dsplit
 * (sections and indices), row_stack, concat, concatenate, diagflat, combinations, renorm,
 * clamp_min / clamp_max, rsub, positive, sgn, ldexp, frexp, isposinf / isneginf / isreal,
 * result_type, can_cast, inner, vdot, tensor_dist, chain_matmul, addbmm, pdist, scatter_reduce
 * and index_reduce, and torch's aliases (arccos ... trapz) and torch.special's re-exports (expit
 * ... log_softmax). Each result is printed and checked against values worked out by hand, then one
 * gradient through index_put. Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[256];
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
    if (t && npool == 256) ct_tensor_release(t); /* full: not kept, nothing leaks */
    return t && npool < 256 ? (pool[npool++] = t) : NULL;
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
static ct_tensor *i64(int n, const int64_t *v) {
    ct_tensor *t = NULL;
    const int64_t shape[1] = {n};
    return ct_tensor_from_host(ctx, v, CT_INT64, 1, shape, &t) == CT_OK ? keep(t) : NULL;
}
static ct_tensor *mat(ct_tensor *t, int64_t r, int64_t c) {
    ct_tensor *m = NULL;
    const int64_t shape[2] = {r, c};
    return t && ct_tensor_reshape(ctx, t, 2, shape, &m) == CT_OK ? keep(m) : NULL;
}

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *r = NULL, *r2 = NULL, *parts[4] = {NULL, NULL, NULL, NULL};
    /* m = [[0 1 2] [3 4 5] [6 7 8]] */
    ct_tensor *m = mat(f64(9, (const double[]){0, 1, 2, 3, 4, 5, 6, 7, 8}), 3, 3);
    ct_tensor *rows = i64(2, (const int64_t[]){2, 0}), *cols = i64(2, (const int64_t[]){1, -1});

    const ct_tensor *rc_[2] = {rows, cols}, *c_only[2] = {NULL, cols}, *r_only[1] = {rows};
    CHECK(ct_index(ctx, m, 2, rc_, &r)); /* m[[2, 0], [1, -1]] */
    EXPECT("m[[2,0],[1,-1]]", r, 7, 2);
    CHECK(ct_index(ctx, m, 2, c_only, &r)); /* m[:, [1, -1]] */
    EXPECT("m[:, [1,-1]]", r, 1, 2, 4, 5, 7, 8);
    ct_tensor *row = f64(3, (const double[]){-1, -2, -3});
    CHECK(ct_index_put(ctx, m, 1, r_only, row, false, &r)); /* m[[2, 0]] = row */
    EXPECT("index_put rows 2, 0", r, -1, -2, -3, 3, 4, 5, -1, -2, -3);
    CHECK(ct_take(ctx, m, cols, &r)); /* flattened m at 1 and -1 */
    EXPECT("take(m, [1, -1])", r, 1, 8);
    CHECK(ct_put(ctx, m, cols, f64(2, (const double[]){10, 20}), true, &r));
    EXPECT("put(accumulate)", r, 0, 11, 2, 3, 4, 5, 6, 7, 28);
    CHECK(ct_select_scatter(ctx, m, row, 0, 1, &r));
    EXPECT("select_scatter(row 1)", r, 0, 1, 2, -1, -2, -3, 6, 7, 8);
    ct_tensor *col2 = mat(f64(6, (const double[]){9, 9, 9, 9, 9, 9}), 3, 2);
    CHECK(ct_slice_scatter(ctx, m, col2, 1, 0, INT64_MAX, 2, &r)); /* columns 0 and 2 */
    EXPECT("slice_scatter(::2)", r, 9, 1, 9, 9, 4, 9, 9, 7, 9);
    CHECK(ct_diagonal_scatter(ctx, m, row, 0, 0, 1, &r));
    EXPECT("diagonal_scatter", r, -1, 1, 2, 3, -2, 5, 6, 7, -3);
    CHECK(ct_select(ctx, m, 1, -1, &r)); /* last column */
    EXPECT("select(m, 1, -1)", r, 2, 5, 8);
    int n = 0;
    CHECK(ct_unbind(ctx, m, 0, 4, parts, &n));
    for (int i = 0; i < n; i++)
        keep(parts[i]);
    EXPECT("unbind(m)[2]", ct_tensor_retain(parts[2]), 6, 7, 8);
    CHECK(ct_t(ctx, m, &r));
    EXPECT("t(m)", r, 0, 3, 6, 1, 4, 7, 2, 5, 8);
    CHECK(ct_adjoint(ctx, m, &r));
    EXPECT("adjoint(m)", r, 0, 3, 6, 1, 4, 7, 2, 5, 8);
    CHECK(ct_moveaxis(ctx, m, 1, (const int[]){0}, (const int[]){1}, &r));
    EXPECT("moveaxis(m, 0, 1)", r, 0, 3, 6, 1, 4, 7, 2, 5, 8);

    /* broadcasting helpers */
    const int nds[2] = {2, 1};
    const int64_t sa[2] = {3, 1}, sb[1] = {4};
    const int64_t *shs[2] = {sa, sb};
    int bnd = 0;
    int64_t bsh[8];
    CHECK(ct_broadcast_shapes(ctx, 2, nds, shs, &bnd, bsh));
    printf("broadcast_shapes((3,1), (4,)) = (%lld, %lld)\n", (long long)bsh[0], (long long)bsh[1]);
    ct_tensor *u = f64(2, (const double[]){1, 2});
    CHECK(ct_broadcast_to(ctx, u, 2, (const int64_t[]){2, 2}, &r));
    EXPECT("broadcast_to(u, (2,2))", r, 1, 2, 1, 2);
    ct_tensor *ucol = mat(u, 2, 1), *bt[2] = {NULL, NULL};
    const ct_tensor *pair[2] = {ucol, u};
    CHECK(ct_broadcast_tensors(ctx, 2, pair, bt));
    keep(bt[0]), keep(bt[1]);
    EXPECT("broadcast_tensors[0]", ct_tensor_retain(bt[0]), 1, 1, 2, 2);

    /* splits and aliases */
    ct_tensor *m4 = mat(f64(8, (const double[]){0, 1, 2, 3, 4, 5, 6, 7}), 2, 4), *cube = NULL;
    CHECK(ct_hsplit(ctx, m4, 2, parts));
    keep(parts[0]), keep(parts[1]);
    EXPECT("hsplit(m4, 2)[1]", ct_tensor_retain(parts[1]), 2, 3, 6, 7);
    CHECK(ct_vsplit(ctx, m4, 2, parts));
    keep(parts[0]), keep(parts[1]);
    EXPECT("vsplit(m4, 2)[1]", ct_tensor_retain(parts[1]), 4, 5, 6, 7);
    CHECK(ct_hsplit_indices(ctx, m4, 1, (const int64_t[]){3}, parts));
    keep(parts[0]), keep(parts[1]);
    EXPECT("hsplit(m4, [3])[1]", ct_tensor_retain(parts[1]), 3, 7);
    CHECK(ct_vsplit_indices(ctx, m4, 1, (const int64_t[]){1}, parts));
    keep(parts[0]), keep(parts[1]);
    EXPECT("vsplit(m4, [1])[0]", ct_tensor_retain(parts[0]), 0, 1, 2, 3);
    CHECK(ct_tensor_reshape(ctx, m4, 3, (const int64_t[]){1, 2, 4}, &cube));
    keep(cube);
    CHECK(ct_dsplit(ctx, cube, 2, parts));
    keep(parts[0]), keep(parts[1]);
    EXPECT("dsplit(cube, 2)[0]", ct_tensor_retain(parts[0]), 0, 1, 4, 5);
    CHECK(ct_dsplit_indices(ctx, cube, 1, (const int64_t[]){1}, parts));
    keep(parts[0]), keep(parts[1]);
    EXPECT("dsplit(cube, [1])[0]", ct_tensor_retain(parts[0]), 0, 4);
    const ct_tensor *uu[2] = {u, u};
    CHECK(ct_row_stack(ctx, 2, uu, &r));
    EXPECT("row_stack(u, u)", r, 1, 2, 1, 2);
    CHECK(ct_concat(ctx, 2, uu, 0, &r));
    EXPECT("concat(u, u)", r, 1, 2, 1, 2);
    CHECK(ct_concatenate(ctx, 2, uu, -1, &r));
    EXPECT("concatenate(u, u)", r, 1, 2, 1, 2);

    /* small helpers */
    CHECK(ct_diagflat(ctx, u, 0, &r));
    EXPECT("diagflat(u)", r, 1, 0, 0, 2);
    ct_tensor *abc = f64(3, (const double[]){1, 2, 3});
    CHECK(ct_combinations(ctx, abc, 2, false, &r));
    EXPECT("combinations(1 2 3, 2)", r, 1, 2, 1, 3, 2, 3);
    ct_tensor *big = mat(f64(4, (const double[]){3, 4, 0.6, 0.8}), 2, 2);
    CHECK(ct_renorm(ctx, big, 2, 0, 1, &r)); /* row 0 (norm 5) scaled by 1 / (5 + 1e-7) */
    EXPECT("renorm(rows, max 1)", r, 3 / (5 + 1e-7), 4 / (5 + 1e-7), 0.6, 0.8);
    CHECK(ct_clamp_min(ctx, abc, 2, &r));
    EXPECT("clamp_min(abc, 2)", r, 2, 2, 3);
    CHECK(ct_clamp_max(ctx, abc, 2, &r));
    EXPECT("clamp_max(abc, 2)", r, 1, 2, 2);
    CHECK(ct_rsub(ctx, abc, abc, 2, &r)); /* abc - 2 abc */
    EXPECT("rsub(abc, abc, 2)", r, -1, -2, -3);
    CHECK(ct_rsub_scalar(ctx, abc, 10, 1, &r));
    EXPECT("rsub(abc, 10)", r, 9, 8, 7);
    CHECK(ct_positive(ctx, abc, &r));
    keep(r);
    CHECK(ct_sgn(ctx, f64(3, (const double[]){-2, 0, 5}), &r));
    EXPECT("sgn(-2 0 5)", r, -1, 0, 1);
    ct_tensor *ex = i64(3, (const int64_t[]){1, -1, 1000});
    CHECK(ct_ldexp(ctx, abc, ex, &r));
    EXPECT("ldexp(abc, [1,-1,1000])", r, 2, 1, 3 * ldexp(1, 1000));
    ct_tensor *mant = NULL, *expo = NULL;
    CHECK(ct_frexp(ctx, f64(3, (const double[]){8, 0.375, -3}), &mant, &expo));
    keep(expo);
    EXPECT("frexp mantissa", mant, 0.5, 0.75, -0.75);
    EXPECT("frexp exponent", ct_tensor_retain(expo), 4, -1, 2);
    ct_tensor *inf = f64(3, (const double[]){INFINITY, -INFINITY, 1});
    CHECK(ct_isposinf(ctx, inf, &r));
    EXPECT("isposinf", r, 1, 0, 0);
    CHECK(ct_isneginf(ctx, inf, &r));
    EXPECT("isneginf", r, 0, 1, 0);
    CHECK(ct_isreal(ctx, inf, &r));
    EXPECT("isreal", r, 1, 1, 1);
    ct_dtype dt = CT_BOOL;
    CHECK(ct_result_type(ctx, ex, abc, &dt));
    printf("result_type(int64, float64) = %s; can_cast(float32 -> int32) = %d\n", ct_dtype_name(dt),
           (int)ct_can_cast(CT_FLOAT32, CT_INT32));

    /* products and distances */
    CHECK(ct_inner(ctx, m, abc, &r)); /* rows of m dotted with (1 2 3) */
    EXPECT("inner(m, abc)", r, 8, 26, 44);
    CHECK(ct_vdot(ctx, abc, abc, &r));
    EXPECT("vdot(abc, abc)", r, 14);
    CHECK(ct_tensor_dist(ctx, abc, f64(3, (const double[]){1, 0, 0}), 1, &r));
    EXPECT("dist(abc, e0, 1)", r, 5);
    const ct_tensor *chain[3] = {m, m, m};
    CHECK(ct_chain_matmul(ctx, 3, chain, &r));
    EXPECT("chain_matmul(m, m, m)", r, 180, 234, 288, 558, 720, 882, 936, 1206, 1476);
    ct_tensor *b1 = NULL, *b2 = NULL;
    CHECK(ct_tensor_reshape(ctx, f64(4, (const double[]){1, 2, 3, 4}), 3,
                            (const int64_t[]){2, 1, 2}, &b1));
    keep(b1);
    CHECK(ct_tensor_reshape(ctx, f64(4, (const double[]){1, 1, 2, 2}), 3,
                            (const int64_t[]){2, 2, 1}, &b2));
    keep(b2);
    CHECK(ct_addbmm(ctx, f64(1, (const double[]){100}), b1, b2, 1, 1, &r)); /* 100 + 3 + 14 */
    EXPECT("addbmm", r, 117);
    ct_tensor *pts = mat(f64(6, (const double[]){0, 0, 3, 4, 6, 8}), 3, 2);
    CHECK(ct_pdist(ctx, pts, 2, &r));
    EXPECT("pdist(points)", r, 5, 10, 5);

    /* scatter_reduce: row values into 2 bins; index_reduce: rows of m into rows 0 and 2 */
    ct_tensor *bins = mat(i64(4, (const int64_t[]){0, 1, 0, 1}), 1, 4);
    ct_tensor *vals = mat(f64(4, (const double[]){5, -1, 2, 7}), 1, 4);
    ct_tensor *z2 = mat(f64(2, (const double[]){0, 0}), 1, 2);
    CHECK(ct_scatter_reduce(ctx, z2, 1, bins, vals, "amax", false, &r));
    EXPECT("scatter_reduce(amax)", r, 5, 7);
    CHECK(ct_scatter_reduce(ctx, z2, 1, bins, vals, "mean", true, &r)); /* (0 + 5 + 2) / 3 */
    EXPECT("scatter_reduce(mean)", r, 7.0 / 3, 2);
    CHECK(ct_index_reduce(ctx, m, 0, i64(2, (const int64_t[]){0, 2}),
                          mat(f64(6, (const double[]){2, 2, 2, 3, 3, 3}), 2, 3), "prod", true, &r));
    EXPECT("index_reduce(prod)", r, 0, 2, 4, 3, 4, 5, 18, 21, 24);

    /* torch's aliases and torch.special's re-exports give their ops' results */
    ct_tensor *half = f64(2, (const double[]){0, 0.5});
    CHECK(ct_special_expit(ctx, half, &r));
    EXPECT("special.expit", r, 0.5, 1 / (1 + exp(-0.5)));
    CHECK(ct_special_gammaln(ctx, f64(1, (const double[]){4}), &r));
    EXPECT("special.gammaln(4)", r, log(6.0));
    CHECK(ct_special_psi(ctx, f64(1, (const double[]){1}), &r));
    EXPECT("special.psi(1)", r, -0.57721566490153286);
    CHECK(ct_special_digamma(ctx, f64(1, (const double[]){2}), &r));
    EXPECT("special.digamma(2)", r, 1 - 0.57721566490153286);
    CHECK(ct_special_erf(ctx, half, &r));
    EXPECT("special.erf", r, 0, erf(0.5));
    CHECK(ct_special_erfc(ctx, half, &r));
    EXPECT("special.erfc", r, 1, erfc(0.5));
    CHECK(ct_special_erfinv(ctx, half, &r));
    EXPECT("special.erfinv", r, 0, 0.47693627620446987);
    CHECK(ct_special_exp2(ctx, half, &r));
    EXPECT("special.exp2", r, 1, sqrt(2.0));
    CHECK(ct_special_expm1(ctx, half, &r));
    EXPECT("special.expm1", r, 0, expm1(0.5));
    CHECK(ct_special_log1p(ctx, half, &r));
    EXPECT("special.log1p", r, 0, log1p(0.5));
    CHECK(ct_special_sinc(ctx, half, &r));
    EXPECT("special.sinc", r, 1, 2 / M_PI);
    CHECK(ct_special_round(ctx, f64(2, (const double[]){0.5, 1.5}), &r));
    EXPECT("special.round (half to even)", r, 0, 2);
    CHECK(ct_special_i0(ctx, half, &r));
    EXPECT("special.i0", r, 1, 1.0634833707413236);
    CHECK(ct_special_xlogy(ctx, half, f64(2, (const double[]){3, M_E}), &r));
    EXPECT("special.xlogy", r, 0, 0.5);
    CHECK(ct_special_multigammaln(ctx, f64(1, (const double[]){4}), 1, &r));
    EXPECT("special.multigammaln(4, 1)", r, log(6.0));
    CHECK(ct_special_polygamma(ctx, 0, f64(1, (const double[]){1}), &r));
    EXPECT("special.polygamma(0, 1)", r, -0.57721566490153286);
    CHECK(ct_special_logit(ctx, f64(1, (const double[]){0.5}), 0, &r));
    EXPECT("special.logit(0.5)", r, 0);
    ct_tensor *two = f64(2, (const double[]){0, 0});
    CHECK(ct_special_logsumexp(ctx, two, 0, NULL, false, &r));
    EXPECT("special.logsumexp(0, 0)", r, log(2.0));
    CHECK(ct_special_softmax(ctx, two, 0, &r));
    EXPECT("special.softmax(0, 0)", r, 0.5, 0.5);
    CHECK(ct_special_log_softmax(ctx, two, 0, &r));
    EXPECT("special.log_softmax(0, 0)", r, -log(2.0), -log(2.0));
    CHECK(ct_arccos(ctx, half, &r));
    EXPECT("arccos", r, M_PI / 2, acos(0.5));
    CHECK(ct_arcsin(ctx, half, &r));
    EXPECT("arcsin", r, 0, asin(0.5));
    CHECK(ct_arctan(ctx, half, &r));
    EXPECT("arctan", r, 0, atan(0.5));
    CHECK(ct_arccosh(ctx, f64(1, (const double[]){1}), &r));
    EXPECT("arccosh(1)", r, 0);
    CHECK(ct_arcsinh(ctx, half, &r));
    EXPECT("arcsinh", r, 0, asinh(0.5));
    CHECK(ct_arctanh(ctx, half, &r));
    EXPECT("arctanh", r, 0, atanh(0.5));
    ct_tensor *ones = f64(2, (const double[]){1, 1});
    CHECK(ct_arctan2(ctx, half, ones, &r));
    EXPECT("arctan2", r, 0, atan2(0.5, 1));
    CHECK(ct_divide(ctx, half, f64(2, (const double[]){2, 2}), &r));
    EXPECT("divide", r, 0, 0.25);
    CHECK(ct_multiply(ctx, half, half, &r));
    EXPECT("multiply", r, 0, 0.25);
    CHECK(ct_subtract(ctx, ones, half, 2, &r));
    EXPECT("subtract(alpha 2)", r, 1, 0);
    CHECK(ct_greater(ctx, half, two, &r));
    EXPECT("greater", r, 0, 1);
    CHECK(ct_greater_equal(ctx, half, two, &r));
    EXPECT("greater_equal", r, 1, 1);
    CHECK(ct_less(ctx, half, two, &r));
    EXPECT("less", r, 0, 0);
    CHECK(ct_less_equal(ctx, half, two, &r));
    EXPECT("less_equal", r, 1, 0);
    CHECK(ct_not_equal(ctx, half, two, &r));
    EXPECT("not_equal", r, 0, 1);
    CHECK(ct_ger(ctx, ones, half, &r));
    EXPECT("ger", r, 0, 0.5, 0, 0.5);
    ct_tensor *d2 = mat(f64(4, (const double[]){2, 0, 0, 4}), 2, 2);
    CHECK(ct_det(ctx, d2, &r));
    EXPECT("det(diag(2, 4))", r, 8);
    CHECK(ct_inverse(ctx, d2, &r));
    EXPECT("inverse(diag(2, 4))", r, 0.5, 0, 0, 0.25);
    CHECK(ct_pinverse(ctx, d2, 1e-15, &r));
    EXPECT("pinverse(diag(2, 4))", r, 0.5, 0, 0, 0.25);
    CHECK(ct_trapz(ctx, ones, 2, 0, &r));
    EXPECT("trapz(1 1, dx 2)", r, 2);

    /* d/dm sum(index_put(m, rows, w, accumulate)) = 1 everywhere; d/dw = 1 per row it lands in */
    ct_tensor *mg = NULL, *w = f64(3, (const double[]){1, 1, 1}), *s = NULL;
    CHECK(ct_tensor_clone(ctx, m, &mg));
    keep(mg);
    CHECK(ct_tensor_set_requires_grad(mg, true));
    CHECK(ct_tensor_set_requires_grad(w, true));
    CHECK(ct_index_put(ctx, mg, 1, r_only, w, true, &r2));
    keep(r2);
    CHECK(ct_sum(ctx, r2, 0, NULL, false, &s));
    keep(s);
    CHECK(ct_backward(ctx, s, NULL, false));
    EXPECT("grad w of index_put", ct_tensor_retain(ct_tensor_grad(w)), 2, 2, 2);
    printf("all indexing checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

/* Advanced indexing (index, index_put, take, put), the *_scatter ops, broadcast helpers, select /
 * unbind / t / adjoint, h/v/dsplit, diagflat, combinations, renorm, clamp_min / max, rsub, sgn,
 * ldexp / frexp, isposinf / isneginf, result_type / can_cast, inner / vdot / dist, chain_matmul,
 * addbmm and pdist: against torch 1.13's tables (scripts/gen_index_more_ref.py), naive loops,
 * identities (frexp: m * 2^e == x; broadcast views), gradients against central differences and
 * the error paths torch raises. */
#include "test_util.h"

#include "data/index_more_ref.h"

#include <string.h>

#include "ctorch/linalg.h"

static ct_ctx *ctx;
static unsigned long long rng = 777;
#define SH(...) ((const int64_t[]){__VA_ARGS__})

static ct_tensor *mk(ct_dtype dt, int nd, const int64_t *shape) {
    return tu_make(ctx, &rng, dt, nd, shape, 0, -3, 3, NULL);
}
static ct_tensor *from(ct_dtype dt, int nd, const int64_t *shape, const double *v) {
    return tu_from_vals(ctx, dt, nd, shape, v);
}
static ct_tensor *ints(int nd, const int64_t *shape, const double *v) {
    return from(CT_INT64, nd, shape, v);
}
/* x = arange(60).reshape(3, 4, 5) in float64 (the generator's x) */
static ct_tensor *x345(void) {
    ct_tensor *a = NULL, *r = NULL;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 60, 1, &a));
    CHECK_OK(ct_tensor_reshape(ctx, a, 3, SH(3, 4, 5), &r));
    ct_tensor_release(a);
    return r;
}
/* t has the reference's shape and values (|diff| <= tol, NaN matching NaN, -0 vs 0 when tol 0) */
static void same_as(const char *what, const ct_tensor *t, const double *ref, int nd,
                    const int64_t *shape, double tol) {
    tu_same_as(what, t, ref, nd, shape, tol);
}
static void rel(ct_tensor **ts, int n) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}
#define SAME(what, t, R, tol) same_as(what, t, R, R##_nd, R##_shape, tol)

TEST(advanced_indexing_as_torch) {
    ct_tensor *x = x345(), *r = NULL;
    ct_tensor *i0 = ints(1, SH(3), (const double[]){2, -1, 0});
    ct_tensor *i1 = ints(2, SH(2, 1), (const double[]){1, 3});
    ct_tensor *i2 = ints(2, SH(2, 1), (const double[]){1, -3});
    const ct_tensor *adj[2] = {i0, i1};
    CHECK_OK(ct_index(ctx, x, 2, adj, &r));
    SAME("x[i0, i1]", r, idx_adj, 0);
    ct_tensor_release(r);
    const ct_tensor *mid[3] = {NULL, i1, i0};
    CHECK_OK(ct_index(ctx, x, 3, mid, &r));
    SAME("x[:, i1, i0]", r, idx_adj_mid, 0);
    ct_tensor_release(r);
    const ct_tensor *sep[3] = {i2, NULL, i0};
    CHECK_OK(ct_index(ctx, x, 3, sep, &r));
    SAME("x[i2, :, i0]", r, idx_sep, 0);
    ct_tensor_release(r);
    ct_tensor *mask =
        from(CT_BOOL, 2, SH(3, 4), (const double[]){1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0});
    const ct_tensor *mk1[1] = {mask};
    CHECK_OK(ct_index(ctx, x, 1, mk1, &r));
    SAME("x[mask]", r, idx_mask, 0);
    ct_tensor_release(r);
    ct_tensor *m1 = from(CT_BOOL, 1, SH(4), (const double[]){0, 1, 1, 0});
    const ct_tensor *mk2[2] = {NULL, m1};
    CHECK_OK(ct_index(ctx, x, 2, mk2, &r));
    SAME("x[:, m]", r, idx_mask1, 0);
    ct_tensor_release(r);
    /* index_put: broadcast values, a full slice, accumulate with repeated indices */
    ct_tensor *one = ints(1, SH(1), (const double[]){1});
    ct_tensor *v = from(CT_FLOAT64, 1, SH(5), (const double[]){100, 200, 300, 400, 500});
    const ct_tensor *pa[2] = {i0, one};
    CHECK_OK(ct_index_put(ctx, x, 2, pa, v, false, &r));
    SAME("index_put adjacent", r, put_adj, 0);
    ct_tensor_release(r);
    ct_tensor *v4 = from(CT_FLOAT64, 1, SH(4), (const double[]){-0.0, -1, -2, -3});
    CHECK_OK(ct_index_put(ctx, x, 3, sep, v4, false, &r));
    SAME("index_put separated", r, put_sep, 0);
    ct_tensor_release(r);
    ct_tensor *dup = ints(1, SH(4), (const double[]){0, 2, 0, 0}), *ones = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 3, SH(4, 4, 5), &ones));
    const ct_tensor *pd[1] = {dup};
    CHECK_OK(ct_index_put(ctx, x, 1, pd, ones, true, &r));
    SAME("index_put accumulate", r, put_acc, 0);
    ct_tensor_release(r);
    /* take / put */
    ct_tensor *ti = ints(2, SH(2, 2), (const double[]){0, 59, -1, -60});
    CHECK_OK(ct_take(ctx, x, ti, &r));
    SAME("take", r, take, 0);
    ct_tensor_release(r);
    ct_tensor *pi = ints(1, SH(3), (const double[]){1, -2, 1});
    ct_tensor *ps = from(CT_FLOAT64, 1, SH(3), (const double[]){5, 6, 7});
    CHECK_OK(ct_put(ctx, x, pi, ps, true, &r));
    SAME("put accumulate", r, putf, 0);
    ct_tensor_release(r);
    /* errors as torch raises them */
    ct_tensor *bad = ints(1, SH(1), (const double[]){3});
    const ct_tensor *b1[1] = {bad};
    CHECK_ST(ct_index(ctx, x, 1, b1, &r), CT_ERR_INDEX);
    CHECK(r == NULL);
    ct_tensor *badn = ints(1, SH(1), (const double[]){-4});
    const ct_tensor *b2[1] = {badn};
    CHECK_ST(ct_index(ctx, x, 1, b2, &r), CT_ERR_INDEX);
    CHECK_ST(ct_index_put(ctx, x, 1, b2, v, false, &r), CT_ERR_INDEX);
    const ct_tensor *many[4] = {i0, i0, i0, i0};
    CHECK_ST(ct_index(ctx, x, 4, many, &r), CT_ERR_INDEX);
    ct_tensor *fl = from(CT_FLOAT32, 1, SH(1), (const double[]){0});
    const ct_tensor *b3[1] = {fl};
    CHECK_ST(ct_index(ctx, x, 1, b3, &r), CT_ERR_DTYPE);
    ct_tensor *mbad = from(CT_BOOL, 1, SH(2), (const double[]){1, 0});
    const ct_tensor *b4[1] = {mbad};
    CHECK_ST(ct_index(ctx, x, 1, b4, &r), CT_ERR_INDEX);
    const ct_tensor *nulls[2] = {NULL, NULL};
    CHECK_ST(ct_index(ctx, x, 2, nulls, &r), CT_ERR_INVALID_ARG);
    const ct_tensor *nb[2] = {i0, i1}; /* (3,) and (2, 1) broadcast; (3,) with (2,) does not */
    ct_tensor *i22 = ints(1, SH(2), (const double[]){0, 1});
    const ct_tensor *nb2[2] = {i0, i22};
    (void)nb;
    CHECK_ST(ct_index(ctx, x, 2, nb2, &r), CT_ERR_SHAPE);
    ct_tensor *v32 = from(CT_FLOAT32, 1, SH(5), (const double[]){1, 2, 3, 4, 5});
    CHECK_ST(ct_index_put(ctx, x, 2, pa, v32, false, &r), CT_ERR_DTYPE);
    ct_tensor *i32 = from(CT_INT32, 1, SH(1), (const double[]){0});
    CHECK_ST(ct_take(ctx, x, i32, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_put(ctx, x, pi, v, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_take(ctx, x, bad, &r), CT_OK); /* 3 is inside the 60 elements */
    ct_tensor_release(r);
    ct_tensor *far = ints(1, SH(1), (const double[]){60});
    CHECK_ST(ct_take(ctx, x, far, &r), CT_ERR_INDEX);
    ct_tensor *tl[] = {x,  i0, i1, i2,  mask, m1, one,  v,   v4,  dup, ones,
                       ti, pi, ps, bad, badn, fl, mbad, i22, v32, i32, far};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

/* int32 indices refused (as torch 1.13) and a naive check of index on a random f32 tensor */
TEST(index_naive) {
    ct_tensor *t = mk(CT_FLOAT32, 3, SH(4, 6, 3)), *r = NULL;
    ct_tensor *a32 = from(CT_INT32, 1, SH(5), (const double[]){3, 0, -2, 1, 3});
    const ct_tensor *a32l[1] = {a32};
    CHECK_ST(ct_index(ctx, t, 1, a32l, &r), CT_ERR_DTYPE); /* torch 1.13 refuses int32 too */
    ct_tensor_release(a32);
    ct_tensor *a = from(CT_INT64, 1, SH(5), (const double[]){3, 0, -2, 1, 3});
    ct_tensor *b = ints(1, SH(5), (const double[]){2, 2, 0, 1, -1});
    const ct_tensor *ab[3] = {a, NULL, b}; /* separated: (5, 6) */
    CHECK_OK(ct_index(ctx, t, 3, ab, &r));
    double *tv = tu_read(t), *rv = r ? tu_read(r) : NULL;
    const int ia[5] = {3, 0, 2, 1, 3}, ib[5] = {2, 2, 0, 1, 2};
    CHECK(tu_same_shape(r, 2, SH(5, 6)));
    for (int k = 0; rv && k < 5; k++)
        for (int j = 0; j < 6; j++)
            CHECK(rv[k * 6 + j] == tv[(ia[k] * 6 + j) * 3 + ib[k]]);
    free(rv), ct_tensor_release(r);
    free(tv);
    ct_tensor_release(t), ct_tensor_release(a), ct_tensor_release(b);
}

TEST(scatters_as_torch) {
    ct_tensor *x = x345(), *r = NULL, *s = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(3, 5), -1, &s));
    CHECK_OK(ct_select_scatter(ctx, x, s, 1, -2, &r));
    SAME("select_scatter", r, sel_sc, 0);
    ct_tensor_release(r), ct_tensor_release(s);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 3, SH(3, 4, 2), -2, &s));
    CHECK_OK(ct_slice_scatter(ctx, x, s, 2, 1, 5, 2, &r));
    SAME("slice_scatter", r, sli_sc, 0);
    ct_tensor_release(r);
    CHECK_OK(ct_slice_scatter(ctx, x, s, -1, -4, INT64_MAX, 2, &r)); /* the same slice */
    SAME("slice_scatter negative", r, sli_sc, 0);
    ct_tensor_release(r);
    CHECK_ST(ct_slice_scatter(ctx, x, s, 2, 0, 5, 2, &r), CT_ERR_SHAPE); /* 3 along dim 2 */
    CHECK_ST(ct_slice_scatter(ctx, x, s, 2, 1, 5, 0, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(s);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(4, 2), -3, &s));
    CHECK_OK(ct_diagonal_scatter(ctx, x, s, -1, 0, 2, &r));
    SAME("diagonal_scatter", r, dia_sc, 0);
    ct_tensor_release(r), ct_tensor_release(s);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(3, 2), -4, &s));
    CHECK_OK(ct_diagonal_scatter(ctx, x, s, 2, 2, 1, &r));
    SAME("diagonal_scatter swapped dims", r, dia_sc2, 0);
    ct_tensor_release(r);
    CHECK_ST(ct_diagonal_scatter(ctx, x, s, 2, 1, 1, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_diagonal_scatter(ctx, x, s, 0, 0, 1, &r), CT_ERR_SHAPE);
    ct_tensor_release(s);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 2, SH(3, 5), -1, &s));
    { /* another src dtype is copied over in self's (torch) */
        ct_tensor *s64 = NULL, *r64 = NULL;
        CHECK_OK(ct_select_scatter(ctx, x, s, 1, 0, &r));
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(3, 5), -1, &s64));
        CHECK_OK(ct_select_scatter(ctx, x, s64, 1, 0, &r64));
        CHECK(ct_tensor_dtype(r) == CT_FLOAT64 && tu_same_values(r, r64));
        ct_tensor_release(r), ct_tensor_release(s64), ct_tensor_release(r64);
    }
    ct_tensor_release(s);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(3, 5), -1, &s));
    CHECK_ST(ct_select_scatter(ctx, x, s, 1, 4, &r), CT_ERR_INDEX);
    CHECK_ST(ct_select_scatter(ctx, x, s, 3, 0, &r), CT_ERR_INDEX);
    ct_tensor_release(s), ct_tensor_release(x);
}

TEST(views_and_splits) {
    ct_tensor *m = mk(CT_FLOAT32, 3, SH(2, 3, 4)), *r = NULL;
    double *mv = tu_read(m);
    CHECK_OK(ct_select(ctx, m, 1, -1, &r));
    double *g = r ? tu_read(r) : NULL;
    CHECK(tu_same_shape(r, 2, SH(2, 4)));
    for (int i = 0; g && i < 2; i++)
        for (int k = 0; k < 4; k++)
            CHECK(g[i * 4 + k] == mv[(i * 3 + 2) * 4 + k]);
    CHECK(r && ct_tensor_data_ptr(r) != NULL);
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_select(ctx, m, 1, 3, &r), CT_ERR_INDEX);
    CHECK_ST(ct_select(ctx, m, 3, 0, &r), CT_ERR_INDEX);
    ct_tensor *outs[8] = {NULL};
    int n = 0;
    CHECK_OK(ct_unbind(ctx, m, 2, 8, outs, &n));
    CHECK(n == 4);
    for (int k = 0; k < n; k++) {
        g = outs[k] ? tu_read(outs[k]) : NULL;
        CHECK(tu_same_shape(outs[k], 2, SH(2, 3)));
        for (int i = 0; g && i < 6; i++)
            CHECK(g[i] == mv[i * 4 + k]);
        free(g), ct_tensor_release(outs[k]);
    }
    CHECK_ST(ct_unbind(ctx, m, 2, 3, outs, &n), CT_ERR_INVALID_ARG);
    CHECK(n == 4);
    /* t / adjoint / moveaxis */
    CHECK_ST(ct_t(ctx, m, &r), CT_ERR_SHAPE);
    CHECK_OK(ct_adjoint(ctx, m, &r));
    CHECK(tu_same_shape(r, 3, SH(2, 4, 3)));
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[1 * 3 + 2] == mv[2 * 4 + 1]);
    free(g), ct_tensor_release(r);
    ct_tensor *v = mk(CT_FLOAT32, 1, SH(5));
    CHECK_OK(ct_t(ctx, v, &r));
    CHECK(tu_same_shape(r, 1, SH(5)) && tu_same_values(r, v));
    ct_tensor_release(r);
    CHECK_ST(ct_adjoint(ctx, v, &r), CT_ERR_SHAPE);
    const int src = 0, dst = -1;
    CHECK_OK(ct_moveaxis(ctx, m, 1, &src, &dst, &r));
    CHECK(tu_same_shape(r, 3, SH(3, 4, 2)));
    ct_tensor_release(r);
    /* hsplit / vsplit / dsplit */
    ct_tensor *o[5] = {NULL};
    CHECK_OK(ct_hsplit(ctx, m, 3, o));
    CHECK(tu_same_shape(o[0], 3, SH(2, 1, 4)) && tu_same_shape(o[2], 3, SH(2, 1, 4)));
    rel(o, 3);
    CHECK_ST(ct_hsplit(ctx, m, 2, o), CT_ERR_INVALID_ARG); /* 3 is not divisible by 2 */
    CHECK_OK(ct_dsplit(ctx, m, 2, o));
    CHECK(tu_same_shape(o[1], 3, SH(2, 3, 2)));
    rel(o, 2);
    CHECK_OK(ct_vsplit_indices(ctx, m, 1, SH(1), o));
    CHECK(tu_same_shape(o[0], 3, SH(1, 3, 4)) && tu_same_shape(o[1], 3, SH(1, 3, 4)));
    rel(o, 2);
    CHECK_OK(ct_hsplit(ctx, v, 5, o)); /* 1-d: along dim 0 */
    CHECK(tu_same_shape(o[4], 1, SH(1)));
    rel(o, 4);
    ct_tensor_release(o[4]);
    o[4] = NULL;
    CHECK_ST(ct_vsplit(ctx, v, 1, o), CT_ERR_SHAPE);
    CHECK_ST(ct_dsplit_indices(ctx, v, 1, SH(1), o), CT_ERR_SHAPE);
    /* aliases */
    const ct_tensor *two[2] = {v, v};
    ct_tensor *r2 = NULL;
    CHECK_OK(ct_row_stack(ctx, 2, two, &r));
    CHECK(tu_same_shape(r, 2, SH(2, 5)));
    ct_tensor_release(r);
    CHECK_OK(ct_concat(ctx, 2, two, 0, &r));
    CHECK_OK(ct_concatenate(ctx, 2, two, -1, &r2));
    CHECK(tu_same_shape(r, 1, SH(10)) && tu_same_values(r, r2));
    ct_tensor_release(r), ct_tensor_release(r2);
    free(mv), ct_tensor_release(m), ct_tensor_release(v);
}

TEST(broadcast_helpers) {
    const int nds[3] = {3, 1, 2};
    const int64_t s0[3] = {2, 1, 4}, s1[1] = {4}, s2[2] = {3, 1};
    const int64_t *shs[3] = {s0, s1, s2};
    int nd = 0;
    int64_t out[CT_MAX_DIMS];
    CHECK_OK(ct_broadcast_shapes(ctx, 3, nds, shs, &nd, out));
    CHECK(nd == 3 && out[0] == 2 && out[1] == 3 && out[2] == 4);
    const int64_t s3[1] = {3};
    const int64_t *bad[2] = {s0, s3};
    const int nb[2] = {3, 1};
    CHECK_ST(ct_broadcast_shapes(ctx, 2, nb, bad, &nd, out), CT_ERR_SHAPE);
    CHECK_OK(ct_broadcast_shapes(ctx, 0, NULL, NULL, &nd, out));
    CHECK(nd == 0);
    ct_tensor *a = mk(CT_FLOAT32, 2, SH(3, 1)), *b = mk(CT_INT32, 1, SH(4)), *c = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(3, 4), &c));
    const ct_tensor *ts[3] = {a, b, c};
    ct_tensor *o[3] = {NULL};
    CHECK_OK(ct_broadcast_tensors(ctx, 3, ts, o));
    CHECK(o[2] == c); /* already the shape: the input itself */
    double *av = tu_read(a), *bv = tu_read(b), *ov = o[0] ? tu_read(o[0]) : NULL,
           *pv = o[1] ? tu_read(o[1]) : NULL;
    CHECK(tu_same_shape(o[0], 2, SH(3, 4)) && tu_same_shape(o[1], 2, SH(3, 4)));
    for (int i = 0; ov && pv && i < 12; i++)
        CHECK(ov[i] == av[i / 4] && pv[i] == bv[i % 4]);
    CHECK(ct_tensor_dtype(o[1]) == CT_INT32);
    free(av), free(bv), free(ov), free(pv);
    for (int i = 0; i < 3; i++)
        ct_tensor_release(o[i]);
    ct_tensor *r = NULL;
    CHECK_OK(ct_broadcast_to(ctx, b, 3, SH(2, 3, -1), &r));
    CHECK(tu_same_shape(r, 3, SH(2, 3, 4)));
    ct_tensor_release(r);
    CHECK_ST(ct_broadcast_to(ctx, b, 3, SH(2, -1, 4), &r), CT_ERR_SHAPE); /* -1 on a new dim */
    CHECK_ST(ct_broadcast_to(ctx, a, 2, SH(3, 4), &r), CT_OK);
    CHECK(tu_same_shape(r, 2, SH(3, 4)));
    ct_tensor_release(r);
    CHECK_ST(ct_broadcast_to(ctx, a, 2, SH(2, 4), &r), CT_ERR_SHAPE);
    ct_tensor *d = mk(CT_FLOAT32, 1, SH(3));
    const ct_tensor *ts2[2] = {b, d};
    CHECK_ST(ct_broadcast_tensors(ctx, 2, ts2, o), CT_ERR_SHAPE);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
}

TEST(combinations_renorm_diagflat) {
    ct_tensor *c = from(CT_FLOAT64, 1, SH(4), (const double[]){3, 1, 4, 1.5}), *r = NULL;
    CHECK_OK(ct_combinations(ctx, c, 2, false, &r));
    SAME("combinations(2)", r, comb2, 0);
    ct_tensor_release(r);
    CHECK_OK(ct_combinations(ctx, c, 3, true, &r));
    SAME("combinations(3, with_replacement)", r, comb3r, 0);
    ct_tensor_release(r);
    CHECK_OK(ct_combinations(ctx, c, 5, false, &r)); /* none: (0, 5) */
    CHECK(tu_same_shape(r, 2, SH(0, 5)));
    ct_tensor_release(r);
    CHECK_OK(ct_combinations(ctx, c, 0, false, &r)); /* torch: tensor([]) */
    CHECK(tu_same_shape(r, 1, SH(0)));
    ct_tensor_release(r);
    CHECK_ST(ct_combinations(ctx, c, -1, false, &r), CT_ERR_INVALID_ARG);
    /* no tuple: (0, r); a row of 2^61 values overflows the byte strides, a clear error */
    CHECK_ST(ct_combinations(ctx, c, (int64_t)1 << 61, false, &r), CT_ERR_OVERFLOW);
    CHECK(r == NULL);
    CHECK_OK(ct_combinations(ctx, c, (int64_t)1 << 40, false, &r));
    CHECK(r && ct_tensor_numel(r) == 0);
    ct_tensor_release(r);
    ct_tensor *big = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, SH(100000), &big));
    CHECK_ST(ct_combinations(ctx, big, 3, false, &r), CT_ERR_OVERFLOW);
    ct_tensor_release(big);
    ct_tensor *m2 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, SH(2, 2), &m2));
    CHECK_ST(ct_combinations(ctx, m2, 2, false, &r), CT_ERR_SHAPE);
    /* diagflat of a 2x2: the 4 values on diagonal 1 of a 5x5 */
    ct_tensor *q = from(CT_FLOAT32, 2, SH(2, 2), (const double[]){1, 2, 3, 4});
    CHECK_OK(ct_diagflat(ctx, q, 1, &r));
    double *g = r ? tu_read(r) : NULL;
    CHECK(tu_same_shape(r, 2, SH(5, 5)));
    for (int i = 0; g && i < 5; i++)
        for (int j = 0; j < 5; j++)
            CHECK(g[i * 5 + j] == (j == i + 1 ? i + 1 : 0));
    free(g), ct_tensor_release(r);
    /* renorm, f32 and f64, against torch */
    ct_tensor *ri = from(CT_FLOAT32, ren_in_nd, ren_in_shape, ren_in);
    CHECK_OK(ct_renorm(ctx, ri, 2, 0, 5.0, &r));
    SAME("renorm p=2 dim 0", r, ren_out0, 4e-7); /* the norm sums differently (1-2 ulp) */
    ct_tensor_release(r);
    CHECK_OK(ct_renorm(ctx, ri, 1, 2, 4.0, &r));
    SAME("renorm p=1 dim 2", r, ren_out2, 4e-7);
    ct_tensor_release(r);
    ct_tensor *rd = NULL;
    CHECK_OK(ct_cast(ctx, ri, CT_FLOAT64, &rd));
    CHECK_OK(ct_renorm(ctx, rd, INFINITY, 1, 2.5, &r));
    SAME("renorm p=inf f64", r, ren_out_inf, 0);
    ct_tensor_release(r);
    CHECK_ST(ct_renorm(ctx, rd, 0, 1, 2.5, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_renorm(ctx, rd, 2, 1, -1, &r), CT_ERR_INVALID_ARG);
    ct_tensor *ii = ints(1, SH(2), (const double[]){1, 2});
    CHECK_ST(ct_renorm(ctx, ii, 2, 0, 1, &r), CT_ERR_DTYPE);
    ct_tensor *r1 = from(CT_FLOAT32, 1, SH(2), (const double[]){1, 2});
    CHECK_ST(ct_renorm(ctx, r1, 2, 0, 1, &r), CT_ERR_SHAPE); /* torch: at least 2 dims */
    ct_tensor_release(r1);
    ct_tensor_release(c), ct_tensor_release(m2), ct_tensor_release(q), ct_tensor_release(ri);
    ct_tensor_release(rd), ct_tensor_release(ii);
}

TEST(ldexp_frexp_and_small_ops) {
    ct_tensor *fi = from(CT_FLOAT32, frexp_in_nd, frexp_in_shape, frexp_in), *m = NULL, *e = NULL;
    CHECK_OK(ct_frexp(ctx, fi, &m, &e));
    SAME("frexp mantissa f32", m, frexp_m, 0);
    SAME("frexp exponent f32", e, frexp_e, 0);
    CHECK(e && ct_tensor_dtype(e) == CT_INT32 && m && ct_tensor_dtype(m) == CT_FLOAT32);
    ct_tensor_release(m), ct_tensor_release(e);
    ct_tensor *di = from(CT_FLOAT64, frexp64_in_nd, frexp64_in_shape, frexp64_in);
    CHECK_OK(ct_frexp(ctx, di, &m, &e));
    SAME("frexp mantissa f64", m, frexp64_m, 0);
    SAME("frexp exponent f64", e, frexp64_e, 0);
    ct_tensor_release(m), ct_tensor_release(e);
    /* identity on random values of every magnitude: m * 2^e == x, 0.5 <= |m| < 1 */
    double vals[64];
    for (int i = 0; i < 64; i++)
        vals[i] = ldexp(tu_rand_val(&rng, CT_FLOAT64, -1, 1), (i * 37) % 2100 - 1070);
    ct_tensor *rv = from(CT_FLOAT64, 1, SH(64), vals);
    CHECK_OK(ct_frexp(ctx, rv, &m, &e));
    double *mv = m ? tu_read(m) : NULL, *ev = e ? tu_read(e) : NULL;
    for (int i = 0; mv && ev && i < 64; i++) {
        int ee = 0;
        double want = frexp(vals[i], &ee);
        CHECK_MSG(mv[i] == want && ev[i] == ee, "frexp(%g): %g, %g vs %g, %d", vals[i], mv[i],
                  ev[i], want, ee);
    }
    free(mv), free(ev), ct_tensor_release(m), ct_tensor_release(e), ct_tensor_release(rv);
    /* the mantissa's gradient is g / 2^e (torch's FrexpBackward0): x = (3, 0.1) -> (1/4, 8) */
    ct_tensor *xg = from(CT_FLOAT64, 1, SH(2), (const double[]){3, 0.1}), *sm = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(xg, true));
    CHECK_OK(ct_frexp(ctx, xg, &m, &e));
    CHECK_OK(ct_sum(ctx, m, 0, NULL, false, &sm));
    CHECK_OK(ct_backward(ctx, sm, NULL, false));
    double *gx = ct_tensor_grad(xg) ? tu_read(ct_tensor_grad(xg)) : NULL;
    CHECK(gx && gx[0] == 0.25 && gx[1] == 8);
    free(gx), ct_tensor_release(m), ct_tensor_release(e), ct_tensor_release(sm);
    ct_tensor_release(xg);
    ct_tensor *ii = ints(1, SH(2), (const double[]){1, 2});
    CHECK_ST(ct_frexp(ctx, ii, &m, &e), CT_ERR_DTYPE);
    CHECK(m == NULL && e == NULL);
    /* ldexp: torch's table, then beyond float32's range in f64 (torch: inf) */
    ct_tensor *la = from(CT_FLOAT32, 1, SH(4), (const double[]){1.5, -3, 0, 7});
    ct_tensor *lb = ints(1, SH(4), (const double[]){3, -2, 5, 0}), *r = NULL;
    CHECK_OK(ct_ldexp(ctx, la, lb, &r));
    SAME("ldexp", r, ldexp_out, 0);
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    ct_tensor *one64 = from(CT_FLOAT64, 1, SH(2), (const double[]){1, 0.75});
    ct_tensor *big = ints(1, SH(2), (const double[]){1000, -1074});
    CHECK_OK(ct_ldexp(ctx, one64, big, &r));
    double *g = r ? tu_read(r) : NULL;
    CHECK(g && g[0] == ldexp(1, 1000) && g[1] == ldexp(0.75, -1074));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_ldexp(ctx, lb, lb, &r)); /* int, int -> float32 */
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    /* isposinf / isneginf / isreal */
    CHECK_OK(ct_isposinf(ctx, fi, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < (int)(sizeof frexp_in / sizeof frexp_in[0]); i++)
        CHECK(g[i] == (isinf(frexp_in[i]) && frexp_in[i] > 0));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_isneginf(ctx, fi, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < (int)(sizeof frexp_in / sizeof frexp_in[0]); i++)
        CHECK(g[i] == (isinf(frexp_in[i]) && frexp_in[i] < 0));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_isposinf(ctx, ii, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && ct_tensor_dtype(r) == CT_BOOL && g[0] == 0 && g[1] == 0);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_isreal(ctx, fi, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[10] == 1 && ct_tensor_dtype(r) == CT_BOOL);
    free(g), ct_tensor_release(r);
    /* clamp_min / clamp_max / rsub / positive / sgn */
    ct_tensor *a = mk(CT_FLOAT32, 1, SH(7)), *b = mk(CT_FLOAT32, 1, SH(7));
    double *av = tu_read(a), *bv = tu_read(b);
    CHECK_OK(ct_clamp_min(ctx, a, 0.5, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 7; i++)
        CHECK(g[i] == fmax(av[i], 0.5));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_clamp_max(ctx, a, 0.5, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 7; i++)
        CHECK(g[i] == fmin(av[i], 0.5));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_rsub(ctx, a, b, 2.5, &r)); /* b - 2.5 a rounded once */
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 7; i++)
        CHECK(g[i] == (double)fmaf(-2.5f, (float)av[i], (float)bv[i]));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_rsub_scalar(ctx, a, 1.25, 3, &r)); /* 1.25 - 3 a */
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 7; i++)
        CHECK(g[i] == (double)fmaf(-3.0f, (float)av[i], 1.25f));
    free(g), ct_tensor_release(r);
    ct_tensor *i8 = from(CT_INT8, 1, SH(2), (const double[]){100, -100});
    CHECK_OK(ct_rsub_scalar(ctx, i8, 2.5, 1, &r)); /* int tensor, float scalar: float32 */
    g = r ? tu_read(r) : NULL;
    CHECK(g && ct_tensor_dtype(r) == CT_FLOAT32 && g[0] == -97.5 && g[1] == 102.5);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_rsub_scalar(ctx, i8, 30, 1, &r)); /* int scalar keeps int8 (wraps) */
    g = r ? tu_read(r) : NULL;
    CHECK(g && ct_tensor_dtype(r) == CT_INT8 && g[0] == -70 && g[1] == (double)(int8_t)130);
    free(g), ct_tensor_release(r);
    ct_tensor *bo = from(CT_BOOL, 1, SH(1), (const double[]){1});
    CHECK_ST(ct_rsub_scalar(ctx, bo, 1, 1, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_positive(ctx, bo, &r), CT_ERR_DTYPE);
    CHECK_OK(ct_positive(ctx, a, &r));
    CHECK(r == a);
    ct_tensor_release(r);
    CHECK_OK(ct_sgn(ctx, a, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 7; i++)
        CHECK(g[i] == (av[i] > 0) - (av[i] < 0));
    free(g), ct_tensor_release(r);
    /* result_type / can_cast */
    ct_dtype dt = CT_BOOL;
    ct_tensor *s64 = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 1, &s64));
    CHECK_OK(ct_result_type(ctx, a, s64, &dt));
    CHECK(dt == CT_FLOAT32); /* a 0-d float64 does not lift a dimensioned float32 */
    CHECK_OK(ct_result_type(ctx, i8, s64, &dt));
    CHECK(dt == CT_FLOAT64);
    CHECK_OK(ct_result_type(ctx, i8, lb, &dt));
    CHECK(dt == CT_INT64);
    CHECK(ct_can_cast(CT_INT32, CT_FLOAT16) && !ct_can_cast(CT_FLOAT32, CT_INT64) &&
          !ct_can_cast(CT_INT8, CT_BOOL) && ct_can_cast(CT_BOOL, CT_INT8) &&
          ct_can_cast(CT_FLOAT64, CT_BFLOAT16));
    free(av), free(bv);
    ct_tensor *tl[] = {fi, di, ii, la, lb, one64, big, a, b, i8, bo, s64};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

TEST(products_and_distances) {
    ct_tensor *a = mk(CT_FLOAT64, 2, SH(3, 4)), *b = mk(CT_FLOAT64, 2, SH(2, 4)), *r = NULL;
    double *av = tu_read(a), *bv = tu_read(b);
    CHECK_OK(ct_inner(ctx, a, b, &r));
    double *g = r ? tu_read(r) : NULL;
    CHECK(tu_same_shape(r, 2, SH(3, 2)));
    for (int i = 0; g && i < 3; i++)
        for (int j = 0; j < 2; j++) {
            long double s = 0;
            for (int k = 0; k < 4; k++)
                s += (long double)av[i * 4 + k] * bv[j * 4 + k];
            CHECK(fabs(g[i * 2 + j] - (double)s) <= 1e-14 * (1 + fabs((double)s)));
        }
    free(g), ct_tensor_release(r);
    ct_tensor *s = NULL, *v = mk(CT_FLOAT64, 1, SH(4));
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 2, &s));
    CHECK_OK(ct_inner(ctx, s, a, &r)); /* 0-d: a product */
    g = r ? tu_read(r) : NULL;
    CHECK(tu_same_shape(r, 2, SH(3, 4)) && g && g[5] == 2 * av[5]);
    free(g), ct_tensor_release(r);
    ct_tensor *e0 = mk(CT_FLOAT64, 1, SH(0));
    CHECK_ST(ct_inner(ctx, a, e0, &r), CT_ERR_SHAPE);
    ct_tensor_release(e0);
    CHECK_OK(ct_vdot(ctx, v, v, &r));
    g = r ? tu_read(r) : NULL;
    double *vv = tu_read(v);
    long double d2 = 0;
    for (int k = 0; k < 4; k++)
        d2 += (long double)vv[k] * vv[k];
    CHECK(g && fabs(g[0] - (double)d2) <= 1e-14 * (double)d2);
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_vdot(ctx, a, v, &r), CT_ERR_SHAPE);
    ct_tensor *vi = ints(1, SH(2), (const double[]){1, 2}),
              *vj = ints(1, SH(2), (const double[]){3, 4});
    CHECK_OK(ct_vdot(ctx, vi, vj, &r)); /* integers work, as torch: 11 */
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[0] == 11);
    free(g), ct_tensor_release(r);
    /* dist = norm(a - b): p = 0 counts nonzeros, inf the largest */
    ct_tensor *p1 = from(CT_FLOAT64, 1, SH(2), (const double[]){1, 2}),
              *p2 = from(CT_FLOAT64, 1, SH(2), (const double[]){3, 5});
    const double ps[4] = {0, 1, 2, INFINITY}, want[4] = {2, 5, sqrt(13.0), 3};
    for (int k = 0; k < 4; k++) {
        CHECK_OK(ct_tensor_dist(ctx, p1, p2, ps[k], &r));
        g = r ? tu_read(r) : NULL;
        CHECK_MSG(g && fabs(g[0] - want[k]) < 1e-15 * want[k], "dist p=%g", ps[k]);
        free(g), ct_tensor_release(r);
    }
    CHECK_ST(ct_tensor_dist(ctx, vi, vj, 2, &r), CT_ERR_DTYPE);
    /* chain_matmul */
    ct_tensor *m43 = mk(CT_FLOAT64, 2, SH(4, 3));
    const ct_tensor *ch[3] = {a, m43, a}, *one[1] = {a};
    CHECK_OK(ct_chain_matmul(ctx, 3, ch, &r));
    CHECK(tu_same_shape(r, 2, SH(3, 4)));
    ct_tensor_release(r);
    CHECK_OK(ct_chain_matmul(ctx, 1, one, &r));
    CHECK(r != a && tu_same_values(r, a));
    ct_tensor_release(r);
    /* addbmm against torch's table (float32: the batch-by-batch rounding) */
    ct_tensor *ai = from(CT_FLOAT32, abm_in_nd, abm_in_shape, abm_in),
              *b1 = from(CT_FLOAT32, abm_b1_nd, abm_b1_shape, abm_b1),
              *b2 = from(CT_FLOAT32, abm_b2_nd, abm_b2_shape, abm_b2);
    CHECK_OK(ct_addbmm(ctx, ai, b1, b2, 0.5, 1.5, &r));
    SAME("addbmm", r, abm_out, 2e-6);
    ct_tensor_release(r);
    ct_tensor *e1 = NULL, *e2 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, SH(0, 3, 6), &e1));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, SH(0, 6, 4), &e2));
    CHECK_OK(ct_addbmm(ctx, ai, e1, e2, 0.5, 1.5, &r)); /* no batches: beta * input */
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 12; i++)
        CHECK(g[i] == (double)(0.5f * (float)abm_in[i]));
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_addbmm(ctx, ai, b1, b1, 1, 1, &r), CT_ERR_SHAPE);
    /* pdist against torch */
    ct_tensor *pd = from(CT_FLOAT64, pd_in_nd, pd_in_shape, pd_in);
    CHECK_OK(ct_pdist(ctx, pd, 2, &r));
    SAME("pdist p=2", r, pd_2, 1e-15);
    ct_tensor_release(r);
    CHECK_OK(ct_pdist(ctx, pd, 1, &r));
    SAME("pdist p=1", r, pd_1, 1e-15);
    ct_tensor_release(r);
    CHECK_OK(ct_pdist(ctx, pd, INFINITY, &r));
    SAME("pdist p=inf", r, pd_inf, 0);
    ct_tensor_release(r);
    ct_tensor *z = from(CT_FLOAT64, 2, SH(3, 2), (const double[]){1, 2, 1, 3, 0, 3});
    CHECK_OK(ct_pdist(ctx, z, 0, &r));
    SAME("pdist p=0", r, pd_0, 0);
    ct_tensor_release(r);
    CHECK_ST(ct_pdist(ctx, vi, 2, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_pdist(ctx, pd, -1, &r), CT_ERR_INVALID_ARG);
    ct_tensor *tl[] = {a, b, s, v, vi, vj, p1, p2, m43, ai, b1, b2, e1, e2, pd, z};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
    free(av), free(bv), free(vv);
}

static const char *const SR_NAMES[5] = {"sum", "prod", "mean", "amax", "amin"};
/* torch's table for every reduction with and without self: values, and the gradients of
 * sum(sin(i) * y) for the float case (ties of amax / amin share, prod's zeros) */
TEST(scatter_reduce_as_torch) {
    const double *vals[5][2][3] = {
        {{sr_sum_0, sr_sum_0_ga, sr_sum_0_gb}, {sr_sum_1, sr_sum_1_ga, sr_sum_1_gb}},
        {{sr_prod_0, sr_prod_0_ga, sr_prod_0_gb}, {sr_prod_1, sr_prod_1_ga, sr_prod_1_gb}},
        {{sr_mean_0, sr_mean_0_ga, sr_mean_0_gb}, {sr_mean_1, sr_mean_1_ga, sr_mean_1_gb}},
        {{sr_amax_0, sr_amax_0_ga, sr_amax_0_gb}, {sr_amax_1, sr_amax_1_ga, sr_amax_1_gb}},
        {{sr_amin_0, sr_amin_0_ga, sr_amin_0_gb}, {sr_amin_1, sr_amin_1_ga, sr_amin_1_gb}}};
    const double *ivals[5][2] = {{si_sum_0, si_sum_1},
                                 {si_prod_0, si_prod_1},
                                 {si_mean_0, si_mean_1},
                                 {si_amax_0, si_amax_1},
                                 {si_amin_0, si_amin_1}};
    ct_tensor *ix = ints(2, sr_idx_shape, sr_idx);
    ct_tensor *ti = ints(2, sr_t_shape, (const double[]){7, -3, 2, 1, 0, -8});
    ct_tensor *si = ints(2, sr_src_shape, (const double[]){2, -3, 5, 3, -5, 6, 1, 2});
    for (int r = 0; r < 5; r++)
        for (int inc = 0; inc < 2; inc++) {
            char what[64];
            snprintf(what, sizeof what, "scatter_reduce %s include_self=%d", SR_NAMES[r], inc);
            ct_tensor *a = from(CT_FLOAT64, 2, sr_t_shape, sr_t);
            ct_tensor *b = from(CT_FLOAT64, 2, sr_src_shape, sr_src);
            CHECK_OK(ct_tensor_set_requires_grad(a, true));
            CHECK_OK(ct_tensor_set_requires_grad(b, true));
            ct_tensor *y = NULL, *w = NULL, *wy = NULL, *s = NULL;
            CHECK_OK(ct_scatter_reduce(ctx, a, 1, ix, b, SR_NAMES[r], inc, &y));
            same_as(what, y, vals[r][inc][0], 2, sr_t_shape, 1e-15);
            double wv[6];
            for (int i = 0; i < 6; i++)
                wv[i] = sin((double)i);
            w = from(CT_FLOAT64, 2, sr_t_shape, wv);
            CHECK_OK(ct_mul(ctx, y, w, &wy));
            CHECK_OK(ct_sum(ctx, wy, 0, NULL, false, &s));
            CHECK_OK(ct_backward(ctx, s, NULL, false));
            same_as(what, ct_tensor_grad(a), vals[r][inc][1], 2, sr_t_shape, 1e-15);
            same_as(what, ct_tensor_grad(b), vals[r][inc][2], 2, sr_src_shape, 1e-15);
            ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(y);
            ct_tensor_release(w), ct_tensor_release(wy), ct_tensor_release(s);
            /* int64: exact, mean by floor division */
            CHECK_OK(ct_scatter_reduce(ctx, ti, 1, ix, si, SR_NAMES[r], inc, &y));
            snprintf(what, sizeof what, "int64 scatter_reduce %s include_self=%d", SR_NAMES[r],
                     inc);
            same_as(what, y, ivals[r][inc], 2, sr_t_shape, 0);
            ct_tensor_release(y);
        }
    /* NaN wins amax, from src and from self */
    ct_tensor *nt = from(CT_FLOAT32, 1, SH(3), (const double[]){1, NAN, 3}), *y = NULL;
    ct_tensor *ns = from(CT_FLOAT32, 1, SH(3), (const double[]){NAN, 2, 1});
    ct_tensor *ni = ints(1, SH(3), (const double[]){0, 0, 2});
    CHECK_OK(ct_scatter_reduce(ctx, nt, 0, ni, ns, "amax", true, &y));
    SAME("amax with NaN", y, sr_nan_amax, 0);
    ct_tensor_release(y);
    /* index_reduce */
    const double *ir[4][2] = {{ir_prod_0, ir_prod_1},
                              {ir_mean_0, ir_mean_1},
                              {ir_amax_0, ir_amax_1},
                              {ir_amin_0, ir_amin_1}};
    ct_tensor *it = NULL, *isrc = from(CT_FLOAT64, 2, SH(3, 2), (const double[]){2, 3, 4, 5, 6, 7});
    ct_tensor *iix = ints(1, SH(3), (const double[]){0, 2, 0});
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, SH(3, 2), 3, &it));
    for (int r = 1; r < 5; r++)
        for (int inc = 0; inc < 2; inc++) {
            char what[64];
            snprintf(what, sizeof what, "index_reduce %s include_self=%d", SR_NAMES[r], inc);
            CHECK_OK(ct_index_reduce(ctx, it, 0, iix, isrc, SR_NAMES[r], inc, &y));
            same_as(what, y, ir[r - 1][inc], 2, SH(3, 2), 1e-15);
            ct_tensor_release(y);
        }
    /* errors */
    CHECK_ST(ct_index_reduce(ctx, it, 0, iix, isrc, "sum", true, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_scatter_reduce(ctx, ti, 1, ix, si, "max", true, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_scatter_reduce(ctx, it, 1, ix, si, "sum", true, &y), CT_ERR_DTYPE);
    ct_tensor *far = ints(2, SH(1, 1), (const double[]){3});
    CHECK_ST(ct_scatter_reduce(ctx, ti, 1, far, si, "amax", true, &y), CT_ERR_INDEX);
    ct_tensor *big = ints(2, SH(3, 1), (const double[]){0, 0, 0});
    CHECK_ST(ct_scatter_reduce(ctx, ti, 1, big, si, "amax", true, &y), CT_ERR_SHAPE);
    ct_tensor *tl[] = {ix, ti, si, nt, ns, ni, it, isrc, iix, far, big};
    for (size_t i = 0; i < sizeof tl / sizeof tl[0]; i++)
        ct_tensor_release(tl[i]);
}

/* every alias gives its op's bits (and its errors) */
typedef ct_status (*un_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
typedef ct_status (*bin_fn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);
TEST(aliases_match_their_ops) {
    ct_tensor *a = mk(CT_FLOAT64, 2, SH(3, 3)), *b = mk(CT_FLOAT64, 2, SH(3, 3)), *u = NULL;
    ct_tensor *p = NULL, *r1 = NULL, *r2 = NULL;
    CHECK_OK(ct_mul_scalar(ctx, a, 0.3, &u)); /* in (-1, 1) */
    CHECK_OK(ct_abs(ctx, a, &p));             /* >= 0 */
    const struct {
        const char *name;
        un_fn alias, op;
        int dom; /* 0 any, 1 (-1, 1), 2 >= 0 */
    } un[] = {{"special_expit", ct_special_expit, ct_sigmoid, 0},
              {"special_gammaln", ct_special_gammaln, ct_lgamma, 0},
              {"special_psi", ct_special_psi, ct_digamma, 0},
              {"special_digamma", ct_special_digamma, ct_digamma, 0},
              {"special_erf", ct_special_erf, ct_erf, 0},
              {"special_erfc", ct_special_erfc, ct_erfc, 0},
              {"special_erfinv", ct_special_erfinv, ct_erfinv, 1},
              {"special_exp2", ct_special_exp2, ct_exp2, 0},
              {"special_expm1", ct_special_expm1, ct_expm1, 0},
              {"special_log1p", ct_special_log1p, ct_log1p, 2},
              {"special_sinc", ct_special_sinc, ct_sinc, 0},
              {"special_round", ct_special_round, ct_round, 0},
              {"special_i0", ct_special_i0, ct_i0, 0},
              {"arccos", ct_arccos, ct_acos, 1},
              {"arccosh", ct_arccosh, ct_acosh, 0},
              {"arcsin", ct_arcsin, ct_asin, 1},
              {"arcsinh", ct_arcsinh, ct_asinh, 0},
              {"arctan", ct_arctan, ct_atan, 0},
              {"arctanh", ct_arctanh, ct_atanh, 1},
              {"det", ct_det, ct_linalg_det, 0},
              {"inverse", ct_inverse, ct_linalg_inv, 0}};
    for (size_t i = 0; i < sizeof un / sizeof un[0]; i++) {
        const ct_tensor *x = un[i].dom == 1 ? u : un[i].dom == 2 ? p : a;
        CHECK_OK(un[i].alias(ctx, x, &r1));
        CHECK_OK(un[i].op(ctx, x, &r2));
        CHECK_MSG(r1 && r2 && tu_same_values(r1, r2), "%s", un[i].name);
        ct_tensor_release(r1), ct_tensor_release(r2);
        r1 = r2 = NULL;
    }
    const struct {
        const char *name;
        bin_fn alias, op;
    } bin[] = {{"special_xlogy", ct_special_xlogy, ct_xlogy},
               {"arctan2", ct_arctan2, ct_atan2},
               {"divide", ct_divide, ct_div},
               {"multiply", ct_multiply, ct_mul},
               {"greater", ct_greater, ct_gt},
               {"greater_equal", ct_greater_equal, ct_ge},
               {"less", ct_less, ct_lt},
               {"less_equal", ct_less_equal, ct_le},
               {"not_equal", ct_not_equal, ct_ne}};
    for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++) {
        CHECK_OK(bin[i].alias(ctx, p, b, &r1));
        CHECK_OK(bin[i].op(ctx, p, b, &r2));
        CHECK_MSG(r1 && r2 && tu_same_values(r1, r2), "%s", bin[i].name);
        ct_tensor_release(r1), ct_tensor_release(r2);
        r1 = r2 = NULL;
    }
    ct_tensor *v = mk(CT_FLOAT64, 1, SH(3));
    CHECK_OK(ct_ger(ctx, v, v, &r1));
    CHECK_OK(ct_outer(ctx, v, v, &r2));
    CHECK(tu_same_values(r1, r2));
    rel((ct_tensor *[]){r1, r2}, 2);
    CHECK_OK(ct_subtract(ctx, a, b, 2.5, &r1));
    CHECK_OK(ct_sub_scaled(ctx, a, b, 2.5, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_pinverse(ctx, a, 1e-15, &r1));
    CHECK_OK(ct_linalg_pinv(ctx, a, 0, 1e-15, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_trapz(ctx, a, 0.5, 1, &r1));
    CHECK_OK(ct_trapezoid(ctx, a, 0.5, 1, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_special_multigammaln(ctx, p, 1, &r1));
    CHECK_OK(ct_mvlgamma(ctx, p, 1, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_special_polygamma(ctx, 2, p, &r1));
    CHECK_OK(ct_polygamma(ctx, 2, p, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_special_logit(ctx, u, 1e-3, &r1));
    CHECK_OK(ct_logit(ctx, u, 1e-3, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    const int d1 = 1;
    CHECK_OK(ct_special_logsumexp(ctx, a, 1, &d1, true, &r1));
    CHECK_OK(ct_logsumexp(ctx, a, 1, &d1, true, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_special_softmax(ctx, a, 0, &r1));
    CHECK_OK(ct_softmax(ctx, a, 0, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_special_log_softmax(ctx, a, 0, &r1));
    CHECK_OK(ct_log_softmax(ctx, a, 0, &r2));
    CHECK(tu_same_values(r1, r2));
    ct_tensor_release(r1), ct_tensor_release(r2);
    /* errors carry the alias' name */
    ct_tensor *v2 = mk(CT_FLOAT64, 1, SH(2));
    CHECK_ST(ct_divide(ctx, a, v2, &r1), CT_ERR_SHAPE);
    CHECK(strncmp(ct_ctx_last_error(ctx), "divide", 6) == 0);
    ct_tensor_release(v2);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(u), ct_tensor_release(p);
    ct_tensor_release(v);
}

/* ---- gradients ---- */
static ct_status f_index(const ct_tensor *x, ct_tensor **y) { /* x (3, 4) */
    ct_tensor *i = ints(1, SH(4), (const double[]){2, 0, -1, 2});
    const ct_tensor *ix[2] = {NULL, i};
    ct_status st = ct_index(ctx, x, 2, ix, y);
    ct_tensor_release(i);
    return st;
}
static ct_status f_index_put(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = ints(1, SH(2), (const double[]){1, 1}), *v = NULL;
    ct_status st = ct_tensor_slice(ctx, x, 0, 0, 1, 1, &v); /* values from x too (1, 4) */
    const ct_tensor *ix[1] = {i};
    if (st == CT_OK) st = ct_index_put(ctx, x, 1, ix, v, true, y);
    ct_tensor_release(i), ct_tensor_release(v);
    return st;
}
static ct_status f_take(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = ints(2, SH(2, 2), (const double[]){0, 11, -1, 5});
    ct_status st = ct_take(ctx, x, i, y);
    ct_tensor_release(i);
    return st;
}
static ct_status f_slice_scatter(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *s = NULL, *s2 = NULL;
    ct_status st = ct_tensor_slice(ctx, x, 1, 0, 2, 1, &s);
    if (st == CT_OK) st = ct_mul(ctx, s, s, &s2);
    if (st == CT_OK) st = ct_slice_scatter(ctx, x, s2, 1, 1, 4, 2, y);
    ct_tensor_release(s), ct_tensor_release(s2);
    return st;
}
static ct_status f_diag_scatter(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *s = NULL;
    ct_status st = ct_tensor_slice(ctx, x, 1, 1, 4, 1, &s); /* (3, 3) -> row 0 as src */
    ct_tensor *r0 = NULL;
    if (st == CT_OK) st = ct_select(ctx, s, 0, 0, &r0);
    if (st == CT_OK) st = ct_diagonal_scatter(ctx, x, r0, 1, 0, 1, y);
    ct_tensor_release(s), ct_tensor_release(r0);
    return st;
}
static ct_status f_renorm(const ct_tensor *x, ct_tensor **y) {
    return ct_renorm(ctx, x, 2, 0, 1.5, y);
}
static ct_status f_pdist(const ct_tensor *x, ct_tensor **y) { return ct_pdist(ctx, x, 2, y); }
static ct_status f_addbmm(const ct_tensor *x, ct_tensor **y) { /* x (3, 4) */
    ct_tensor *b1 = NULL, *b2 = NULL, *in = NULL;
    ct_status st = ct_tensor_reshape(ctx, x, 3, SH(2, 3, 2), &b1);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, x, 3, SH(2, 2, 3), &b2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, x, 1, 0, 3, &in);
    if (st == CT_OK) st = ct_addbmm(ctx, in, b1, b2, 0.5, 2, y);
    ct_tensor_release(b1), ct_tensor_release(b2), ct_tensor_release(in);
    return st;
}
static ct_status f_combinations(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *f = NULL;
    ct_status st = ct_flatten(ctx, x, 0, -1, &f);
    if (st == CT_OK) st = ct_combinations(ctx, f, 2, true, y);
    ct_tensor_release(f);
    return st;
}
static ct_status f_select_scatter(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *r = NULL, *e = NULL;
    ct_status st = ct_select(ctx, x, 0, 2, &r);
    if (st == CT_OK) st = ct_exp(ctx, r, &e);
    if (st == CT_OK) st = ct_select_scatter(ctx, x, e, 0, 0, y);
    ct_tensor_release(r), ct_tensor_release(e);
    return st;
}
static ct_status f_dist(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *r = NULL;
    ct_status st = ct_select(ctx, x, 0, 1, &r);
    if (st == CT_OK) st = ct_tensor_dist(ctx, x, r, 3, y);
    ct_tensor_release(r);
    return st;
}

static ct_status f_scatter_prod(const ct_tensor *x, ct_tensor **y) { /* x (3, 4) */
    ct_tensor *i = ints(2, SH(2, 4), (const double[]){0, 1, 0, 3, 2, 2, 1, 0}), *s = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, 0, 1, 2, &s);
    if (st == CT_OK) st = ct_scatter_reduce(ctx, x, 1, i, s, "prod", false, y);
    ct_tensor_release(i), ct_tensor_release(s);
    return st;
}
static ct_status f_scatter_amax(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = ints(2, SH(2, 4), (const double[]){0, 1, 0, 3, 2, 2, 1, 0}), *s = NULL;
    ct_status st = ct_mul_scalar(ctx, x, 1.7, &s); /* no ties with x */
    if (st == CT_OK) st = ct_scatter_reduce(ctx, x, 1, i, s, "amax", true, y);
    ct_tensor_release(i), ct_tensor_release(s);
    return st;
}
static ct_status f_index_mean(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *i = ints(1, SH(3), (const double[]){2, 0, 2});
    ct_status st = ct_index_reduce(ctx, x, 0, i, x, "mean", true, y);
    ct_tensor_release(i);
    return st;
}

TEST(gradients_and_names) {
    tu_gradcheck(ctx, &rng, "index", f_index, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "index_put accumulate", f_index_put, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "take", f_take, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "slice_scatter", f_slice_scatter, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "diagonal_scatter", f_diag_scatter, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "select_scatter", f_select_scatter, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "renorm", f_renorm, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "pdist", f_pdist, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "addbmm", f_addbmm, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "combinations", f_combinations, 2, SH(2, 2));
    tu_gradcheck(ctx, &rng, "dist", f_dist, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "scatter_reduce prod", f_scatter_prod, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "scatter_reduce amax", f_scatter_amax, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "index_reduce mean", f_index_mean, 2, SH(3, 4));
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(advanced_indexing_as_torch);
    RUN(index_naive);
    RUN(scatters_as_torch);
    RUN(views_and_splits);
    RUN(broadcast_helpers);
    RUN(combinations_renorm_diagflat);
    RUN(ldexp_frexp_and_small_ops);
    RUN(products_and_distances);
    RUN(scatter_reduce_as_torch);
    RUN(aliases_match_their_ops);
    RUN(gradients_and_names);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

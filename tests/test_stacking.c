/* atleast_*d, hstack / vstack / dstack / column_stack, tensor_split, tensordot, addmv, addr,
 * linalg.matrix_power, logdet, block_diag, cartesian_prod, diag_embed, vander, logspace,
 * triu / tril_indices against naive loops (index arithmetic, double sums, fmaf for addr's
 * rounding), torch 1.13's answers for the edge cases (tables), gradients against central
 * differences, and error paths. */
#include "test_util.h"

#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 4242;

static ct_tensor *mk(ct_dtype dt, int nd, const int64_t *shape) {
    return tu_make(ctx, &rng, dt, nd, shape, 0, -3, 3, NULL);
}
static bool shape_is(const ct_tensor *t, int nd, const int64_t *s) {
    return tu_same_shape(t, nd, s);
}
#define SH(...) ((const int64_t[]){__VA_ARGS__})

TEST(atleast_and_stacks) {
    ct_tensor *s0 = NULL, *v = mk(CT_FLOAT32, 1, SH(3)), *m = mk(CT_FLOAT32, 2, SH(2, 3)),
              *r = NULL;
    const double one = 5;
    s0 = tu_from_vals(ctx, CT_FLOAT32, 0, NULL, &one);
    CHECK_OK(ct_atleast_1d(ctx, m, &r));
    CHECK(r == m); /* the tensor itself, retained */
    ct_tensor_release(r);
    CHECK_OK(ct_atleast_3d(ctx, s0, &r));
    CHECK(shape_is(r, 3, SH(1, 1, 1)));
    ct_tensor_release(r);
    CHECK_OK(ct_atleast_2d(ctx, v, &r));
    CHECK(shape_is(r, 2, SH(1, 3)));
    ct_tensor_release(r);
    CHECK_OK(ct_atleast_3d(ctx, v, &r));
    CHECK(shape_is(r, 3, SH(1, 3, 1)));
    ct_tensor_release(r);
    CHECK_OK(ct_atleast_3d(ctx, m, &r));
    CHECK(shape_is(r, 3, SH(2, 3, 1)));
    ct_tensor_release(r);
    double *vv = tu_read(v), *mv = tu_read(m);
    /* hstack(0-d, 1-d) = [5, v...]; hstack of 2-d along columns */
    const ct_tensor *hs[2] = {s0, v};
    CHECK_OK(ct_hstack(ctx, 2, hs, &r));
    double *g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 1, SH(4)) && g && g[0] == 5 && g[1] == vv[0] && g[3] == vv[2]);
    free(g), ct_tensor_release(r);
    const ct_tensor *hm[2] = {m, m};
    CHECK_OK(ct_hstack(ctx, 2, hm, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 2, SH(2, 6)));
    for (int i = 0; g && i < 2; i++)
        for (int j = 0; j < 6; j++)
            CHECK(g[i * 6 + j] == mv[i * 3 + j % 3]);
    free(g), ct_tensor_release(r);
    /* vstack(v, m): (3,) as a row on top of (2, 3) */
    const ct_tensor *vs[2] = {v, m};
    CHECK_OK(ct_vstack(ctx, 2, vs, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 2, SH(3, 3)));
    for (int j = 0; g && j < 3; j++)
        CHECK(g[j] == vv[j] && g[3 + j] == mv[j] && g[6 + j] == mv[3 + j]);
    free(g), ct_tensor_release(r);
    /* dstack(v, v): (1, 3, 2) with [0, j, k] = v[j] */
    const ct_tensor *ds[2] = {v, v};
    CHECK_OK(ct_dstack(ctx, 2, ds, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 3, SH(1, 3, 2)));
    for (int j = 0; g && j < 3; j++)
        CHECK(g[j * 2] == vv[j] && g[j * 2 + 1] == vv[j]);
    free(g), ct_tensor_release(r);
    /* column_stack(v2, m2) with v2 (2,), m2 (2, 3): [[v0, m..], [v1, m..]] (torch's table shape) */
    ct_tensor *v2 = mk(CT_INT32, 1, SH(2)), *m2 = mk(CT_INT32, 2, SH(2, 2));
    const ct_tensor *cs[2] = {v2, m2};
    CHECK_OK(ct_column_stack(ctx, 2, cs, &r));
    g = r ? tu_read(r) : NULL;
    double *a2 = tu_read(v2), *b2 = tu_read(m2);
    CHECK(shape_is(r, 2, SH(2, 3)) && ct_tensor_dtype(r) == CT_INT32);
    for (int i = 0; g && i < 2; i++)
        CHECK(g[i * 3] == a2[i] && g[i * 3 + 1] == b2[i * 2] && g[i * 3 + 2] == b2[i * 2 + 1]);
    free(g), free(a2), free(b2), ct_tensor_release(r);
    CHECK_ST(ct_hstack(ctx, 0, hs, &r), CT_ERR_INVALID_ARG);
    free(vv), free(mv);
    ct_tensor_release(s0), ct_tensor_release(v), ct_tensor_release(m);
    ct_tensor_release(v2), ct_tensor_release(m2);
}

TEST(tensor_split_as_torch) {
    double seven[7];
    for (int i = 0; i < 7; i++)
        seven[i] = i;
    ct_tensor *t = tu_from_vals(ctx, CT_INT64, 1, SH(7), seven), *o[5] = {NULL};
    CHECK_OK(ct_tensor_split(ctx, t, 3, 0, o));
    const int64_t want3[3] = {3, 2, 2};
    int64_t at = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(o[i] && ct_tensor_shape(o[i])[0] == want3[i]);
        double *g = o[i] ? tu_read(o[i]) : NULL;
        for (int64_t k = 0; g && k < want3[i]; k++)
            CHECK(g[k] == (double)(at + k));
        at += want3[i];
        free(g), ct_tensor_release(o[i]), o[i] = NULL;
    }
    /* torch.tensor_split(arange(7), [-1, 2, 9]) = ([0..5], [], [2..6], []) */
    const int64_t idx[3] = {-1, 2, 9};
    CHECK_OK(ct_tensor_split_indices(ctx, t, 3, idx, 0, o));
    const int64_t len[4] = {6, 0, 5, 0}, first[4] = {0, -1, 2, -1};
    for (int i = 0; i < 4; i++) {
        CHECK(o[i] && ct_tensor_shape(o[i])[0] == len[i]);
        double *g = o[i] ? tu_read(o[i]) : NULL;
        if (g && len[i]) CHECK(g[0] == (double)first[i]);
        free(g), ct_tensor_release(o[i]), o[i] = NULL;
    }
    CHECK_ST(ct_tensor_split(ctx, t, 0, 0, o), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_split(ctx, t, 2, 1, o), CT_ERR_INDEX);
    ct_tensor_release(t);
}

TEST(tensordot_addmv_addr) {
    /* tensordot over dims ([1, 2], [1, 0]) of (2, 3, 4) and (4, 3, 5): a naive double sum */
    ct_tensor *a = mk(CT_FLOAT64, 3, SH(2, 3, 4)), *b = mk(CT_FLOAT64, 3, SH(4, 3, 5)), *r = NULL;
    const int da[2] = {1, 2}, db[2] = {1, 0};
    CHECK_OK(ct_tensordot(ctx, a, b, 2, da, db, &r));
    double *av = tu_read(a), *bv = tu_read(b), *g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 2, SH(2, 5)));
    for (int i = 0; g && i < 2; i++)
        for (int l = 0; l < 5; l++) {
            double s = 0;
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 4; k++)
                    s += av[(i * 3 + j) * 4 + k] * bv[(k * 3 + j) * 5 + l];
            CHECK_MSG(fabs(g[i * 5 + l] - s) <= 1e-12 * (1 + fabs(s)), "tensordot %d %d", i, l);
        }
    free(g), ct_tensor_release(r), r = NULL;
    const int bad[1] = {0};
    CHECK_ST(ct_tensordot(ctx, a, b, 1, bad, bad, &r), CT_ERR_SHAPE);
    free(av), free(bv), ct_tensor_release(a), ct_tensor_release(b);
    /* addmv: beta in + alpha M v against a double sum; beta 0 ignores a NaN input */
    ct_tensor *M = mk(CT_FLOAT64, 2, SH(4, 3)), *v = mk(CT_FLOAT64, 1, SH(3)), *in = NULL;
    const double nan4[4] = {NAN, 1, 2, 3};
    in = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), nan4);
    double *mv = tu_read(M), *vv = tu_read(v);
    for (int pass = 0; pass < 2; pass++) {
        const double beta = pass ? 0.5 : 0, alpha = 1.5;
        CHECK_OK(ct_addmv(ctx, in, M, v, beta, alpha, &r));
        g = r ? tu_read(r) : NULL;
        for (int i = 0; g && i < 4; i++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += mv[i * 3 + k] * vv[k];
            const double want = (beta != 0 ? beta * nan4[i] : 0) + alpha * s;
            CHECK_MSG(tu_same_val(g[i], want) || fabs(g[i] - want) <= 1e-12 * (1 + fabs(want)),
                      "addmv beta %g [%d]: %g vs %g", beta, i, g[i], want);
        }
        free(g), ct_tensor_release(r), r = NULL;
    }
    free(mv), free(vv), ct_tensor_release(M), ct_tensor_release(v), ct_tensor_release(in);
    /* addr in f32: fma(alpha v1_i, v2_j, beta in_ij) exactly (torch's vector loop) */
    ct_tensor *x = mk(CT_FLOAT32, 1, SH(37)), *y = mk(CT_FLOAT32, 1, SH(29));
    ct_tensor *inp = mk(CT_FLOAT32, 2, SH(37, 29));
    CHECK_OK(ct_addr(ctx, inp, x, y, 0.7, 1.3, &r));
    double *xv = tu_read(x), *yv = tu_read(y), *iv = tu_read(inp);
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 37; i++)
        for (int j = 0; j < 29; j++) {
            const float want =
                fmaf(1.3f * (float)xv[i], (float)yv[j], 0.7f * (float)iv[i * 29 + j]);
            CHECK_MSG(g[i * 29 + j] == (double)want, "addr [%d, %d]", i, j);
        }
    free(g), ct_tensor_release(r), r = NULL;
    /* integers: exact; a fractional beta is refused as torch */
    const double i1[2] = {1, 2}, i2[2] = {3, 4}, ones[4] = {1, 1, 1, 1};
    ct_tensor *p = tu_from_vals(ctx, CT_INT32, 1, SH(2), i1),
              *q = tu_from_vals(ctx, CT_INT32, 1, SH(2), i2);
    ct_tensor *o = tu_from_vals(ctx, CT_INT32, 2, SH(2, 2), ones);
    CHECK_OK(ct_addr(ctx, o, p, q, 2, 3, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[0] == 11 && g[1] == 14 && g[2] == 20 && g[3] == 26); /* torch's table */
    free(g), ct_tensor_release(r), r = NULL;
    CHECK_ST(ct_addr(ctx, o, p, q, 0.5, 1, &r), CT_ERR_INVALID_ARG);
    free(xv), free(yv), free(iv);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(inp);
    ct_tensor_release(p), ct_tensor_release(q), ct_tensor_release(o);
}

TEST(matrix_power_and_logdet) {
    ct_tensor *a = mk(CT_FLOAT64, 3, SH(2, 3, 3)), *r = NULL;
    double *av = tu_read(a);
    for (int n = 0; n <= 6; n++) {
        CHECK_OK(ct_linalg_matrix_power(ctx, a, n, &r));
        double *g = r ? tu_read(r) : NULL;
        for (int b = 0; g && b < 2; b++) {
            double p[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[9];
            for (int k = 0; k < n; k++) {
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        double s = 0;
                        for (int l = 0; l < 3; l++)
                            s += p[i * 3 + l] * av[b * 9 + l * 3 + j];
                        t[i * 3 + j] = s;
                    }
                memcpy(p, t, sizeof p);
            }
            for (int e = 0; e < 9; e++)
                CHECK_MSG(fabs(g[b * 9 + e] - p[e]) <= 1e-10 * (1 + fabs(p[e])), "a^%d", n);
        }
        free(g), ct_tensor_release(r), r = NULL;
    }
    /* a^-2 a^2 = I */
    ct_tensor *m2 = NULL, *p2 = NULL, *id = NULL;
    CHECK_OK(ct_linalg_matrix_power(ctx, a, -2, &m2));
    CHECK_OK(ct_linalg_matrix_power(ctx, a, 2, &p2));
    CHECK_OK(ct_matmul(ctx, m2, p2, &id));
    double *g = id ? tu_read(id) : NULL;
    for (int e = 0; g && e < 18; e++)
        CHECK(fabs(g[e] - ((e % 9) % 4 == 0 ? 1 : 0)) <= 1e-9);
    free(g), ct_tensor_release(m2), ct_tensor_release(p2), ct_tensor_release(id);
    /* n = 3 is torch's (a @ a) @ a exactly; n = INT64_MIN on -I is I (an even power) */
    ct_tensor *aa = NULL, *a3 = NULL, *p3 = NULL;
    CHECK_OK(ct_matmul(ctx, a, a, &aa));
    CHECK_OK(ct_matmul(ctx, aa, a, &a3));
    CHECK_OK(ct_linalg_matrix_power(ctx, a, 3, &p3));
    CHECK(p3 && tu_same_values(p3, a3));
    ct_tensor_release(aa), ct_tensor_release(a3), ct_tensor_release(p3);
    const double mi[4] = {-1, 0, 0, -1};
    ct_tensor *negi = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 2), mi);
    CHECK_OK(ct_linalg_matrix_power(ctx, negi, INT64_MIN, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[0] == 1 && g[1] == 0 && g[2] == 0 && g[3] == 1);
    free(g), ct_tensor_release(r), r = NULL, ct_tensor_release(negi);
    /* integer a and a negative power: refused as torch (linalg.inv needs floats) */
    const double iv[4] = {1, 1, 0, 1};
    ct_tensor *ia = tu_from_vals(ctx, CT_INT64, 2, SH(2, 2), iv);
    CHECK_ST(ct_linalg_matrix_power(ctx, ia, -1, &r), CT_ERR_DTYPE);
    CHECK_OK(ct_linalg_matrix_power(ctx, ia, 3, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[0] == 1 && g[1] == 3 && g[2] == 0 && g[3] == 1);
    free(g), ct_tensor_release(r), r = NULL;
    /* logdet: NaN for a negative determinant, -inf singular, log 4 for 2 I (torch's table) */
    const double m[12] = {0, 1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 2};
    ct_tensor *l = tu_from_vals(ctx, CT_FLOAT64, 3, SH(3, 2, 2), m);
    CHECK_OK(ct_logdet(ctx, l, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && isnan(g[0]) && g[1] == -INFINITY && fabs(g[2] - log(4.0)) < 1e-15);
    free(g), ct_tensor_release(r);
    free(av), ct_tensor_release(a), ct_tensor_release(ia), ct_tensor_release(l);
}

TEST(block_diag_cartesian_diag_embed_vander) {
    /* torch.block_diag(tensor(1), tensor([2., 3]), tensor([[4], [5]], int32)) */
    const double one = 1, two[2] = {2, 3}, col[2] = {4, 5};
    ct_tensor *a = tu_from_vals(ctx, CT_INT64, 0, NULL, &one);
    ct_tensor *b = tu_from_vals(ctx, CT_FLOAT32, 1, SH(2), two);
    ct_tensor *c = tu_from_vals(ctx, CT_INT32, 2, SH(2, 1), col), *r = NULL;
    const ct_tensor *bl[3] = {a, b, c};
    CHECK_OK(ct_block_diag(ctx, 3, bl, &r));
    const double want[16] = {1, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 4, 0, 0, 0, 5};
    double *g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 2, SH(4, 4)) && ct_tensor_dtype(r) == CT_FLOAT32);
    for (int i = 0; g && i < 16; i++)
        CHECK(g[i] == want[i]);
    free(g), ct_tensor_release(r);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
    /* cartesian_prod: rows in meshgrid 'ij' order */
    const double p[2] = {1, 2}, q[3] = {3, 4, 5};
    ct_tensor *tp = tu_from_vals(ctx, CT_INT64, 1, SH(2), p),
              *tq = tu_from_vals(ctx, CT_INT64, 1, SH(3), q);
    const ct_tensor *cp[2] = {tp, tq};
    CHECK_OK(ct_cartesian_prod(ctx, 2, cp, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 2, SH(6, 2)));
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i * 2] == p[i / 3] && g[i * 2 + 1] == q[i % 3]);
    free(g), ct_tensor_release(r);
    ct_tensor_release(tp), ct_tensor_release(tq);
    /* diag_embed of (2, 3) for offsets -2..2 and dim pairs: naive indices */
    ct_tensor *x = mk(CT_FLOAT64, 2, SH(2, 3));
    double *xv = tu_read(x);
    const int pairs[3][2] = {{-2, -1}, {0, 2}, {2, 0}};
    for (int off = -2; off <= 2; off++)
        for (int pi = 0; pi < 3; pi++) {
            const int d1 = pairs[pi][0], d2 = pairs[pi][1];
            CHECK_OK(ct_diag_embed(ctx, x, off, d1, d2, &r));
            const int64_t m = 3 + (off < 0 ? -off : off);
            g = r ? tu_read(r) : NULL;
            CHECK(r && ct_tensor_numel(r) == 2 * m * m);
            const int w1 = (d1 + 3) % 3, w2 = (d2 + 3) % 3; /* result dims of rows / cols */
            const int wb = 3 - w1 - w2;                     /* the batch dim */
            const int64_t *sh = r ? ct_tensor_shape(r) : NULL;
            for (int64_t e = 0; g && sh && e < 2 * m * m; e++) {
                int64_t idx[3], rem = e;
                for (int d = 2; d >= 0; d--)
                    idx[d] = rem % sh[d], rem /= sh[d];
                const int64_t bb = idx[wb], i = idx[w1], j = idx[w2];
                const int64_t k = off >= 0 ? i : j;
                const double w = (j - i == off && k < 3) ? xv[bb * 3 + k] : 0;
                CHECK_MSG(g[e] == w, "diag_embed off %d dims %d %d at %lld", off, d1, d2,
                          (long long)e);
            }
            free(g), ct_tensor_release(r);
        }
    free(xv), ct_tensor_release(x);
    /* vander: powers, decreasing by default; int8 gives int64 */
    const double xs[3] = {1, 2, 3};
    ct_tensor *xi = tu_from_vals(ctx, CT_INT8, 1, SH(3), xs);
    CHECK_OK(ct_vander(ctx, xi, 4, false, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(shape_is(r, 2, SH(3, 4)) && ct_tensor_dtype(r) == CT_INT64);
    for (int i = 0; g && i < 3; i++)
        for (int j = 0; j < 4; j++)
            CHECK(g[i * 4 + j] == pow(xs[i], 3 - j));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_vander(ctx, xi, -1, true, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 3; i++)
        for (int j = 0; j < 3; j++)
            CHECK(g[i * 3 + j] == pow(xs[i], j));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_vander(ctx, xi, 0, false, &r));
    CHECK(shape_is(r, 2, SH(3, 0)));
    ct_tensor_release(r), ct_tensor_release(xi);
}

/* quantile / nanquantile: torch 1.13's answers (python3-torch) for every interpolation, and a
 * naive sort-and-interpolate over random rows */
static int cmp_d(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}
TEST(quantile_as_torch) {
    const double xv[8] = {1, 5, 2, 8, 3, NAN, 4, 0}, qv[3] = {0.1, 0.5, 0.9};
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 4), xv);
    ct_tensor *q = tu_from_vals(ctx, CT_FLOAT64, 1, SH(3), qv), *r = NULL;
    /* [interp][nan?][q][row] */
    const double want[5][2][3][2] = {
        {{{1.3, NAN}, {3.5, NAN}, {7.1000000000000005, NAN}},
         {{1.3, 0.6000000000000001}, {3.5, 3.0}, {7.1000000000000005, 3.8}}},
        {{{1, NAN}, {2, NAN}, {5, NAN}}, {{1, 0}, {2, 3}, {5, 3}}},
        {{{2, NAN}, {5, NAN}, {8, NAN}}, {{2, 3}, {5, 3}, {8, 4}}},
        {{{1, NAN}, {5, NAN}, {8, NAN}}, {{1, 0}, {5, 3}, {8, 4}}},
        {{{1.5, NAN}, {3.5, NAN}, {6.5, NAN}}, {{1.5, 1.5}, {3.5, 3}, {6.5, 3.5}}}};
    for (int it = 0; it < 5; it++)
        for (int nan = 0; nan < 2; nan++) {
            CHECK_OK((nan ? ct_nanquantile : ct_quantile)(ctx, x, q, 1, false,
                                                          (ct_quantile_interp)it, &r));
            double *g = r ? tu_read(r) : NULL;
            CHECK(tu_same_shape(r, 2, SH(3, 2)));
            for (int k = 0; g && k < 6; k++)
                CHECK_MSG(tu_same_val(g[k], want[it][nan][k / 2][k % 2]),
                          "quantile interp %d nan %d [%d]: %.17g", it, nan, k, g[k]);
            free(g), ct_tensor_release(r), r = NULL;
        }
    /* random rows against a naive linear interpolation of the sorted row */
    ct_tensor *y = tu_make(ctx, &rng, CT_FLOAT64, 2, SH(5, 7), 0, -3, 3, NULL);
    const double half = 0.37;
    ct_tensor *q0 = tu_from_vals(ctx, CT_FLOAT64, 0, NULL, &half);
    CHECK_OK(ct_quantile(ctx, y, q0, 0, true, CT_QUANTILE_LINEAR, &r));
    CHECK(tu_same_shape(r, 2, SH(1, 7)));
    double *yv = tu_read(y), *g = r ? tu_read(r) : NULL;
    for (int j = 0; g && j < 7; j++) {
        double col[5];
        for (int i = 0; i < 5; i++)
            col[i] = yv[i * 7 + j];
        qsort(col, 5, sizeof(double), cmp_d);
        const double rank = half * 4, lo = floor(rank);
        const double w = col[(int)lo] + (rank - lo) * (col[(int)ceil(rank)] - col[(int)lo]);
        CHECK_MSG(fabs(g[j] - w) <= 1e-15 * (1 + fabs(w)), "quantile col %d", j);
    }
    free(yv), free(g), ct_tensor_release(r), r = NULL;
    /* errors: q out of range, an integer input, an empty input */
    const double bad = 1.5;
    ct_tensor *qb = tu_from_vals(ctx, CT_FLOAT64, 0, NULL, &bad);
    CHECK_ST(ct_quantile(ctx, y, qb, CT_ALL_DIMS, false, CT_QUANTILE_LINEAR, &r),
             CT_ERR_INVALID_ARG);
    ct_tensor *yi = NULL;
    CHECK_OK(ct_cast(ctx, y, CT_INT32, &yi));
    CHECK_ST(ct_quantile(ctx, yi, q0, CT_ALL_DIMS, false, CT_QUANTILE_LINEAR, &r), CT_ERR_DTYPE);
    ct_tensor_release(x), ct_tensor_release(q), ct_tensor_release(y), ct_tensor_release(q0);
    ct_tensor_release(qb), ct_tensor_release(yi);
}

/* cumulative_trapezoid, matrix norms, pinv, multi_dot, cdist against naive loops and identities */
TEST(norms_pinv_chains_distances) {
    ct_tensor *r = NULL;
    /* cumulative_trapezoid over dim 1 of (2, 5), dx = 0.5, and with sample points x */
    ct_tensor *y = mk(CT_FLOAT64, 2, SH(2, 5));
    double *yv = tu_read(y);
    const double xs[5] = {0, 0.5, 1.5, 1.75, 3};
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 1, SH(5), xs);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(pass ? ct_cumulative_trapezoid_x(ctx, y, x, 1, &r)
                      : ct_cumulative_trapezoid(ctx, y, 0.5, -1, &r));
        double *g = r ? tu_read(r) : NULL;
        CHECK(tu_same_shape(r, 2, SH(2, 4)));
        for (int i = 0; g && i < 2; i++) {
            long double acc = 0;
            for (int j = 0; j < 4; j++) {
                const long double h = pass ? (long double)xs[j + 1] - xs[j] : 0.5L;
                acc += h * ((long double)yv[i * 5 + j] + yv[i * 5 + j + 1]) / 2;
                CHECK_MSG(fabs(g[i * 4 + j] - (double)acc) <= 1e-14 * (1 + fabsl(acc)),
                          "cumulative_trapezoid pass %d [%d, %d]", pass, i, j);
            }
        }
        free(g), ct_tensor_release(r), r = NULL;
    }
    /* integers with an integral dx / 2 still give float32 (torch's double) */
    const double iv[3] = {1, 2, 4};
    ct_tensor *yi = tu_from_vals(ctx, CT_INT32, 1, SH(3), iv);
    CHECK_OK(ct_cumulative_trapezoid(ctx, yi, 2, 0, &r));
    double *g = r ? tu_read(r) : NULL;
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT32 && g && g[0] == 3 && g[1] == 9);
    free(g), ct_tensor_release(r), r = NULL, ct_tensor_release(yi);
    free(yv), ct_tensor_release(y), ct_tensor_release(x);
    /* matrix norms of A = R diag(5, -2) (R a rotation): singular values 5 and 2 */
    const double c = 0.6, sn = 0.8;
    const double av[4] = {5 * c, -2 * -sn, 5 * sn, -2 * c};
    ct_tensor *A = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 2), av);
    const char *ords[8] = {"fro", "nuc", "2", "-2", "1", "-1", "inf", "-inf"};
    const double col0 = fabs(av[0]) + fabs(av[2]), col1 = fabs(av[1]) + fabs(av[3]);
    const double row0 = fabs(av[0]) + fabs(av[1]), row1 = fabs(av[2]) + fabs(av[3]);
    const double want[8] = {
        sqrt(29.0),      7, 5, 2, fmax(col0, col1), fmin(col0, col1), fmax(row0, row1),
        fmin(row0, row1)};
    for (int k = 0; k < 8; k++) {
        CHECK_OK(ct_linalg_matrix_norm(ctx, A, ords[k], -2, -1, false, &r));
        g = r ? tu_read(r) : NULL;
        CHECK_MSG(g && fabs(g[0] - want[k]) <= 1e-14 * want[k], "matrix_norm %s: %.17g", ords[k],
                  g ? g[0] : NAN);
        free(g), ct_tensor_release(r), r = NULL;
    }
    CHECK_ST(ct_linalg_matrix_norm(ctx, A, "3", -2, -1, false, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(A);
    /* pinv: A pinv(A) A = A for a random 3x4; a rank-1 [[1, 2], [2, 4]] gives A / 25 */
    ct_tensor *B = mk(CT_FLOAT64, 2, SH(3, 4)), *P = NULL, *BP = NULL, *BPB = NULL;
    CHECK_OK(ct_linalg_pinv(ctx, B, NAN, NAN, &P));
    CHECK(tu_same_shape(P, 2, SH(4, 3)));
    CHECK_OK(ct_matmul(ctx, B, P, &BP));
    CHECK_OK(ct_matmul(ctx, BP, B, &BPB));
    double *bv = tu_read(B), *bpb = BPB ? tu_read(BPB) : NULL;
    for (int i = 0; bpb && i < 12; i++)
        CHECK_MSG(fabs(bpb[i] - bv[i]) <= 1e-12, "pinv identity [%d]", i);
    free(bv), free(bpb);
    ct_tensor_release(B), ct_tensor_release(P), ct_tensor_release(BP), ct_tensor_release(BPB);
    const double r1[4] = {1, 2, 2, 4};
    ct_tensor *R1 = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 2), r1);
    CHECK_OK(ct_linalg_pinv(ctx, R1, NAN, NAN, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 4; i++)
        CHECK_MSG(fabs(g[i] - r1[i] / 25) <= 1e-15, "pinv rank 1 [%d]: %.17g", i, g[i]);
    free(g), ct_tensor_release(r), r = NULL, ct_tensor_release(R1);
    /* multi_dot of (3), (3, 2), (2, 4), (4, 1), (1, 5) against a naive chain */
    const int64_t dims[6] = {1, 3, 2, 4, 1, 5};
    ct_tensor *ms[5];
    double *mv[5];
    for (int i = 0; i < 5; i++) {
        ms[i] = i == 0 ? mk(CT_FLOAT64, 1, SH(3)) : mk(CT_FLOAT64, 2, SH(dims[i], dims[i + 1]));
        mv[i] = tu_read(ms[i]);
    }
    CHECK_OK(ct_linalg_multi_dot(ctx, 5, (const ct_tensor *const *)ms, &r));
    CHECK(tu_same_shape(r, 1, SH(5)));
    double acc[8], nxt[8];
    for (int j = 0; j < 3; j++)
        acc[j] = mv[0][j];
    for (int i = 1; i < 5; i++) {
        for (int j = 0; j < dims[i + 1]; j++) {
            nxt[j] = 0;
            for (int k = 0; k < dims[i]; k++)
                nxt[j] += acc[k] * mv[i][k * dims[i + 1] + j];
        }
        memcpy(acc, nxt, sizeof acc);
    }
    g = r ? tu_read(r) : NULL;
    for (int j = 0; g && j < 5; j++)
        CHECK_MSG(fabs(g[j] - acc[j]) <= 1e-12 * (1 + fabs(acc[j])), "multi_dot [%d]", j);
    free(g), ct_tensor_release(r), r = NULL;
    for (int i = 0; i < 5; i++)
        free(mv[i]), ct_tensor_release(ms[i]);
    /* cdist for p = 0, 1, 2 (both forms: 4 and 30 rows), 3 and inf against double loops */
    const double ps[5] = {0, 1, 2, 3, INFINITY};
    for (int rows = 4; rows <= 30; rows += 26)
        for (int k = 0; k < 5; k++) {
            ct_tensor *x1 = mk(CT_FLOAT64, 2, SH(rows, 3)), *x2 = mk(CT_FLOAT64, 2, SH(2, 3));
            CHECK_OK(ct_cdist(ctx, x1, x2, ps[k], &r));
            double *a1 = tu_read(x1), *a2 = tu_read(x2);
            g = r ? tu_read(r) : NULL;
            CHECK(tu_same_shape(r, 2, SH(rows, 2)));
            for (int i = 0; g && i < rows; i++)
                for (int j = 0; j < 2; j++) {
                    long double s = 0;
                    for (int m = 0; m < 3; m++) {
                        const long double d = fabsl((long double)a1[i * 3 + m] - a2[j * 3 + m]);
                        s = ps[k] == 0     ? s + (d != 0)
                            : isinf(ps[k]) ? (d > s ? d : s)
                                           : s + powl(d, ps[k]);
                    }
                    if (ps[k] != 0 && !isinf(ps[k])) s = powl(s, 1 / (long double)ps[k]);
                    CHECK_MSG(fabs(g[i * 2 + j] - (double)s) <= 1e-12 * (1 + fabsl(s)),
                              "cdist p %g rows %d [%d, %d]: %.17g vs %.17Lg", ps[k], rows, i, j,
                              g[i * 2 + j], s);
                }
            free(g), free(a1), free(a2), ct_tensor_release(r), r = NULL;
            ct_tensor_release(x1), ct_tensor_release(x2);
        }
}

/* mode against counting (the smallest most frequent value, its last index) and torch's table;
 * histc against a naive bin count and torch's tables */
TEST(mode_and_histc) {
    ct_tensor *x = tu_make(ctx, &rng, CT_INT32, 2, SH(6, 9), 0, 0, 4, NULL), *v = NULL, *i = NULL;
    CHECK_OK(ct_mode(ctx, x, 1, false, &v, &i));
    double *xv = tu_read(x), *vv = v ? tu_read(v) : NULL, *iv = i ? tu_read(i) : NULL;
    CHECK(tu_same_shape(v, 1, SH(6)) && ct_tensor_dtype(i) == CT_INT64);
    for (int r = 0; vv && iv && r < 6; r++) {
        int best = -1, cnt = 0;
        for (int val = 0; val <= 4; val++) {
            int c = 0;
            for (int j = 0; j < 9; j++)
                c += xv[r * 9 + j] == val;
            if (c > cnt) cnt = c, best = val;
        }
        int last = -1;
        for (int j = 0; j < 9; j++)
            if (xv[r * 9 + j] == best) last = j;
        CHECK_MSG(vv[r] == best && iv[r] == last, "mode row %d: %g at %g, want %d at %d", r, vv[r],
                  iv[r], best, last);
    }
    free(xv), free(vv), free(iv), ct_tensor_release(v), ct_tensor_release(i), ct_tensor_release(x);
    const double t1[4] = {1, 2, 1, 3};
    x = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 2), t1);
    CHECK_OK(ct_mode(ctx, x, 0, true, &v, &i)); /* torch: values [1, 2], indices [1, 0] */
    vv = v ? tu_read(v) : NULL, iv = i ? tu_read(i) : NULL;
    CHECK(tu_same_shape(v, 2, SH(1, 2)) && vv && iv && vv[0] == 1 && vv[1] == 2 && iv[0] == 1 &&
          iv[1] == 0);
    free(vv), free(iv), ct_tensor_release(v), ct_tensor_release(i), ct_tensor_release(x);
    /* histc: torch's tables, then a naive count over random data */
    const double hv[7] = {1, 2, 1, 4, 2.5, NAN, 10};
    ct_tensor *h = NULL, *hx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(7), hv);
    CHECK_OK(ct_histc(ctx, hx, 4, 0, 4, &h));
    double *g = h ? tu_read(h) : NULL;
    CHECK(g && g[0] == 0 && g[1] == 2 && g[2] == 2 && g[3] == 1); /* torch counts the NaN in 0 */
    free(g), ct_tensor_release(h), ct_tensor_release(hx);
    const double fv[4] = {0.1, 0.2, 0.3, 0.7};
    hx = tu_from_vals(ctx, CT_FLOAT32, 1, SH(4), fv);
    CHECK_OK(ct_histc(ctx, hx, 10, 0, 1, &h));
    g = h ? tu_read(h) : NULL;
    const double want10[10] = {0, 1, 1, 1, 0, 0, 0, 1, 0, 0};
    for (int k = 0; g && k < 10; k++)
        CHECK(g[k] == want10[k]);
    free(g), ct_tensor_release(h), ct_tensor_release(hx);
    const double same[2] = {3, 3};
    hx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), same);
    CHECK_OK(ct_histc(ctx, hx, 2, 0, 0, &h)); /* the range [2, 4] */
    g = h ? tu_read(h) : NULL;
    CHECK(g && g[0] == 0 && g[1] == 2);
    free(g), ct_tensor_release(h), ct_tensor_release(hx);
    ct_tensor *r = tu_make(ctx, &rng, CT_FLOAT64, 1, SH(500), 0, -1.5, 2.5, NULL);
    CHECK_OK(ct_histc(ctx, r, 7, -1, 2, &h));
    double *rv = tu_read(r);
    g = h ? tu_read(h) : NULL;
    double cnt[7] = {0};
    for (int k = 0; k < 500; k++)
        if (rv[k] >= -1 && rv[k] <= 2) {
            int b = (int)((rv[k] + 1) * 7 / 3);
            cnt[b > 6 ? 6 : b] += 1;
        }
    for (int k = 0; g && k < 7; k++)
        CHECK_MSG(g[k] == cnt[k], "histc bin %d: %g vs %g", k, g[k], cnt[k]);
    free(g), free(rv), ct_tensor_release(h);
    const double inf2[2] = {1, INFINITY};
    hx = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), inf2);
    CHECK_ST(ct_histc(ctx, hx, 2, 0, 0, &h), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_histc(ctx, r, 2, 3, 1, &h), CT_ERR_INVALID_ARG);
    ct_tensor *ri = NULL;
    CHECK_OK(ct_cast(ctx, r, CT_INT64, &ri));
    CHECK_ST(ct_histc(ctx, ri, 2, 0, 0, &h), CT_ERR_DTYPE);
    ct_tensor_release(hx), ct_tensor_release(r), ct_tensor_release(ri);
}

/* index_copy, index_fill, masked_scatter: torch's tables and naive loops; float_power, argwhere,
 * ravel */
TEST(index_copy_fill_scatter) {
    double xv[6];
    for (int i = 0; i < 6; i++)
        xv[i] = i;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 3), xv), *r = NULL;
    const double iv[2] = {2, 0}, sv[4] = {10, 11, 12, 13};
    ct_tensor *idx = tu_from_vals(ctx, CT_INT64, 1, SH(2), iv);
    ct_tensor *src = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 2), sv);
    CHECK_OK(ct_index_copy(ctx, x, 1, idx, src, &r));
    double *g = r ? tu_read(r) : NULL;
    const double wc[6] = {11, 1, 10, 13, 4, 12}; /* torch's table */
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i] == wc[i]);
    free(g), ct_tensor_release(r), r = NULL;
    ct_tensor *xi = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_INT64, &xi));
    CHECK_OK(ct_index_fill(ctx, xi, 1, idx, 1.7, &r)); /* torch: [[1, 1, 1], [1, 4, 1]] */
    g = r ? tu_read(r) : NULL;
    const double wf[6] = {1, 1, 1, 1, 4, 1};
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i] == wf[i]);
    free(g), ct_tensor_release(r), r = NULL;
    const double mv3[3] = {1, 0, 1};
    ct_tensor *mask = tu_from_vals(ctx, CT_BOOL, 1, SH(3), mv3);
    const double s8[8] = {7, 8, 9, 10, 11, 12, 13, 14};
    ct_tensor *src8 = tu_from_vals(ctx, CT_FLOAT64, 2, SH(2, 4), s8);
    CHECK_OK(ct_masked_scatter(ctx, x, mask, src8, &r)); /* torch: [[7, 1, 8], [9, 4, 10]] */
    g = r ? tu_read(r) : NULL;
    const double ws[6] = {7, 1, 8, 9, 4, 10};
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i] == ws[i]);
    free(g), ct_tensor_release(r), r = NULL;
    ct_tensor *small = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, src8, 1, 0, 1, &small)); /* 2 elements for 4 true values */
    CHECK_ST(ct_masked_scatter(ctx, x, mask, small, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_index_copy(ctx, x, 1, idx, xi, &r), CT_ERR_DTYPE);
    /* float_power: float64 results, exact squares of integers */
    CHECK_OK(ct_float_power_scalar(ctx, xi, 2, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(r && ct_tensor_dtype(r) == CT_FLOAT64);
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i] == i * i);
    free(g), ct_tensor_release(r), r = NULL;
    CHECK_OK(ct_float_power(ctx, x, xi, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i] == pow(i, i));
    free(g), ct_tensor_release(r), r = NULL;
    /* argwhere / ravel */
    CHECK_OK(ct_argwhere(ctx, mask, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(tu_same_shape(r, 2, SH(2, 1)) && g && g[0] == 0 && g[1] == 2);
    free(g), ct_tensor_release(r), r = NULL;
    CHECK_OK(ct_ravel(ctx, x, &r));
    CHECK(tu_same_shape(r, 1, SH(6)));
    ct_tensor_release(r);
    ct_tensor_release(x), ct_tensor_release(idx), ct_tensor_release(src), ct_tensor_release(xi);
    ct_tensor_release(mask), ct_tensor_release(src8), ct_tensor_release(small);
}

/* the aliases give their originals' results; flipud / fliplr check the rank */
TEST(aliases) {
    ct_tensor *x = mk(CT_FLOAT64, 2, SH(3, 4)), *y = mk(CT_FLOAT64, 2, SH(3, 4)), *a = NULL,
              *b = NULL;
    const double lo = -1, hi = 1;
    const int d0 = 0, d1 = 1;
    CHECK_OK(ct_swapaxes(ctx, x, 0, 1, &a));
    CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &b));
    CHECK(tu_same_values(a, b) && tu_same_shape(a, 2, SH(4, 3)));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_swapdims(ctx, x, 1, 0, &a));
    CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_flipud(ctx, x, &a));
    CHECK_OK(ct_flip(ctx, x, 1, &d0, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_fliplr(ctx, x, &a));
    CHECK_OK(ct_flip(ctx, x, 1, &d1, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_msort(ctx, x, &a));
    double *g = a ? tu_read(a) : NULL;
    for (int j = 0; g && j < 4; j++)
        CHECK(g[j] <= g[4 + j] && g[4 + j] <= g[8 + j]);
    free(g), ct_tensor_release(a);
    CHECK_OK(ct_clip(ctx, x, &lo, &hi, &a));
    CHECK_OK(ct_clamp(ctx, x, &lo, &hi, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_absolute(ctx, x, &a));
    CHECK_OK(ct_abs(ctx, x, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_negative(ctx, x, &a));
    CHECK_OK(ct_neg(ctx, x, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_fix(ctx, x, &a));
    CHECK_OK(ct_trunc(ctx, x, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    CHECK_OK(ct_true_divide(ctx, x, y, &a));
    CHECK_OK(ct_div(ctx, x, y, &b));
    CHECK(tu_same_values(a, b));
    ct_tensor_release(a), ct_tensor_release(b);
    ct_tensor *v = mk(CT_FLOAT64, 1, SH(3));
    CHECK_ST(ct_fliplr(ctx, v, &a), CT_ERR_SHAPE);
    CHECK(a == NULL);
    ct_tensor_release(v), ct_tensor_release(x), ct_tensor_release(y);
}

/* hostile sizes: errors, never overflow or a stack write past CT_MAX_DIMS */
TEST(hostile_sizes) {
    ct_tensor *a8 = NULL, *r = NULL, *w = NULL, *z = NULL;
    const int64_t s8[8] = {1, 1, 1, 1, 1, 1, 1, 2};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 8, s8, &a8));
    CHECK_ST(ct_tensordot(ctx, a8, a8, 0, NULL, NULL, &r), CT_ERR_SHAPE);
    CHECK(r == NULL);
    CHECK_OK(ct_tensor_empty(ctx, CT_UINT8, 2, SH(0, INT64_C(1) << 61), &w));
    const ct_tensor *four[4] = {w, w, w, w};
    CHECK_ST(ct_block_diag(ctx, 4, four, &r), CT_ERR_OVERFLOW);
    CHECK_OK(ct_tensor_empty(ctx, CT_UINT8, 2, SH(0, INT64_C(1) << 32), &z));
    CHECK_ST(ct_diag_embed(ctx, z, 0, -2, -1, &r), CT_ERR_OVERFLOW);
    CHECK(r == NULL);
    /* pixel_shuffle takes inputs of up to CT_MAX_DIMS - 2 dims */
    const int64_t s6[6] = {1, 1, 1, 4, 1, 1};
    ct_tensor *p6 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 6, s6, &p6));
    CHECK_OK(ct_pixel_shuffle(ctx, p6, 2, &r));
    CHECK(tu_same_shape(r, 6, SH(1, 1, 1, 1, 2, 2)));
    ct_tensor_release(r), r = NULL;
    CHECK_ST(ct_polygamma(ctx, INT64_MAX, a8, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(a8), ct_tensor_release(w), ct_tensor_release(z), ct_tensor_release(p6);
}

TEST(logspace_and_triangle_indices) {
    ct_tensor *r = NULL;
    CHECK_OK(ct_tensor_logspace(ctx, CT_INT32, 0, 2, 5, 10, &r));
    double *g = r ? tu_read(r) : NULL;
    const double wi[5] = {1, 3, 10, 31, 100}; /* torch's table: truncated */
    for (int i = 0; g && i < 5; i++)
        CHECK(g[i] == wi[i]);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_tensor_logspace(ctx, CT_FLOAT32, 0, 1, 3, 2, &r));
    g = r ? tu_read(r) : NULL;
    CHECK(g && g[0] == 1 && g[1] == (double)(float)sqrt(2.0) && g[2] == 2);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_tensor_logspace(ctx, CT_FLOAT64, -3, 7, 101, 10, &r));
    g = r ? tu_read(r) : NULL;
    for (int i = 0; g && i < 101; i++) {
        /* the exact power; the exponent start + step i is rounded in double first (torch's
         * kernel), which moves the result by up to ln(10) 7 ulp(7) ~ 2e-15 relative */
        const double want = (double)powl(10.0L, (-30 + i) / 10.0L);
        CHECK_MSG(fabs(g[i] - want) <= 8e-15 * want, "logspace[%d] %.17g vs %.17g", i, g[i], want);
    }
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_tensor_logspace(ctx, CT_FLOAT32, 0, 1, -1, 10, &r), CT_ERR_INVALID_ARG);
    /* triangle indices: enumeration of i, j with j - i >= offset (upper) / <= offset (lower) */
    for (int up = 0; up < 2; up++)
        for (int off = -3; off <= 3; off++) {
            CHECK_OK(up ? ct_tensor_triu_indices(ctx, 4, 5, off, &r)
                        : ct_tensor_tril_indices(ctx, 4, 5, off, &r));
            g = r ? tu_read(r) : NULL;
            const int64_t cnt = r ? ct_tensor_shape(r)[1] : 0;
            int64_t k = 0;
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 5; j++)
                    if (up ? j - i >= off : j - i <= off) {
                        CHECK(g && k < cnt && g[k] == i && g[cnt + k] == j);
                        k++;
                    }
            CHECK(k == cnt);
            free(g), ct_tensor_release(r);
        }
    /* extreme offsets: everything or nothing, no overflow */
    CHECK_OK(ct_tensor_triu_indices(ctx, 3, 3, INT64_MIN, &r));
    CHECK(r && ct_tensor_shape(r)[1] == 9);
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_tril_indices(ctx, 3, 3, INT64_MAX, &r));
    CHECK(r && ct_tensor_shape(r)[1] == 9);
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_triu_indices(ctx, 3, 3, INT64_MAX, &r));
    CHECK(r && ct_tensor_shape(r)[1] == 0);
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_triu_indices(ctx, 0, 3, 0, &r));
    CHECK(shape_is(r, 2, SH(2, 0)));
    ct_tensor_release(r);
}

/* gradients */
static ct_tensor *g_b;
static ct_status f_tensordot(const ct_tensor *x, ct_tensor **y) {
    const int da[1] = {1}, db[1] = {0};
    return ct_tensordot(ctx, x, g_b, 1, da, db, y);
}
static ct_status f_addr(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *v1 = NULL;
    ct_status st = ct_sum(ctx, x, 1, (const int[]){1}, false, &v1);
    if (st == CT_OK) st = ct_addr(ctx, x, v1, g_b, 0.5, 1.5, y);
    ct_tensor_release(v1);
    return st;
}
static ct_status f_addmv(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *v = NULL;
    ct_status st = ct_sum(ctx, x, 1, (const int[]){0}, false, &v);
    if (st == CT_OK) st = ct_addmv(ctx, v, x, v, 0.5, 2, y);
    ct_tensor_release(v);
    return st;
}
static ct_status f_power(const ct_tensor *x, ct_tensor **y) {
    return ct_linalg_matrix_power(ctx, x, 5, y);
}
static ct_status f_logdet(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *s = NULL, *t = NULL;
    ct_status st = ct_tensor_transpose(ctx, x, 0, 1, &t);
    if (st == CT_OK) st = ct_matmul(ctx, x, t, &s); /* x x^T: positive definite */
    if (st == CT_OK) st = ct_logdet(ctx, s, y);
    ct_tensor_release(s), ct_tensor_release(t);
    return st;
}
static ct_status f_block(const ct_tensor *x, ct_tensor **y) {
    const ct_tensor *l[3] = {x, g_b, x};
    return ct_block_diag(ctx, 3, l, y);
}
static ct_status f_embed(const ct_tensor *x, ct_tensor **y) {
    return ct_diag_embed(ctx, x, -1, 0, 2, y);
}
static ct_status f_vander(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *f = NULL;
    ct_status st = ct_flatten(ctx, x, 0, -1, &f);
    if (st == CT_OK) st = ct_vander(ctx, f, 4, false, y);
    ct_tensor_release(f);
    return st;
}
static ct_status f_quantile(const ct_tensor *x, ct_tensor **y) {
    const double qv[2] = {0.25, 0.8};
    ct_tensor *q = tu_from_vals(ctx, CT_FLOAT64, 1, SH(2), qv);
    ct_status st = ct_nanquantile(ctx, x, q, 1, false, CT_QUANTILE_LINEAR, y);
    ct_tensor_release(q);
    return st;
}
static ct_status f_pinv(const ct_tensor *x, ct_tensor **y) {
    return ct_linalg_pinv(ctx, x, NAN, NAN, y);
}
static ct_status f_cdist(const ct_tensor *x, ct_tensor **y) { return ct_cdist(ctx, x, x, 2, y); }
static ct_status f_mnorm(const ct_tensor *x, ct_tensor **y) {
    return ct_linalg_matrix_norm(ctx, x, "nuc", 0, 1, false, y);
}
static ct_status f_multi(const ct_tensor *x, ct_tensor **y) {
    const ct_tensor *l[3] = {x, x, x};
    return ct_linalg_multi_dot(ctx, 3, l, y);
}
static ct_status f_cumtrapz(const ct_tensor *x, ct_tensor **y) {
    return ct_cumulative_trapezoid(ctx, x, 0.5, 0, y);
}
static ct_status f_mode(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *r = NULL, *v = NULL, *i = NULL; /* rounded to tenths: repeated values */
    ct_status st = ct_mul_scalar(ctx, x, 0.3, &r);
    ct_tensor *rr = NULL;
    if (st == CT_OK) st = ct_round(ctx, r, &rr);
    ct_tensor *s = NULL;
    if (st == CT_OK) st = ct_add(ctx, x, rr, &s); /* distinct values, differentiable */
    if (st == CT_OK) st = ct_mode(ctx, s, 1, false, &v, &i);
    ct_tensor_release(r), ct_tensor_release(rr), ct_tensor_release(s), ct_tensor_release(i);
    *y = v;
    return st;
}
static ct_status f_index_copy(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *idx = tu_from_vals(ctx, CT_INT64, 1, SH(1), (const double[]){2}), *s = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, 1, 0, 1, &s); /* source from x too */
    if (st == CT_OK) st = ct_index_copy(ctx, x, 1, idx, s, y);
    ct_tensor_release(idx), ct_tensor_release(s);
    return st;
}
static ct_status f_masked_scatter(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *m = tu_from_vals(ctx, CT_BOOL, 1, SH(3), (const double[]){0, 1, 1});
    ct_tensor *s = NULL, *s2 = NULL;
    ct_status st = ct_mul_scalar(ctx, x, 3, &s);
    if (st == CT_OK) st = ct_flatten(ctx, s, 0, -1, &s2);
    if (st == CT_OK) st = ct_masked_scatter(ctx, x, m, s2, y);
    ct_tensor_release(m), ct_tensor_release(s), ct_tensor_release(s2);
    return st;
}
static ct_status f_hstack(const ct_tensor *x, ct_tensor **y) {
    const ct_tensor *l[2] = {x, x};
    return ct_column_stack(ctx, 2, l, y);
}

TEST(gradients) {
    g_b = mk(CT_FLOAT64, 1, SH(3));
    ct_tensor *b3 = mk(CT_FLOAT64, 2, SH(3, 2));
    ct_tensor *keep = g_b;
    g_b = b3;
    tu_gradcheck(ctx, &rng, "tensordot", f_tensordot, 2, SH(4, 3));
    g_b = keep;
    tu_gradcheck(ctx, &rng, "addr", f_addr, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "addmv", f_addmv, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "matrix_power", f_power, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "logdet", f_logdet, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "block_diag", f_block, 2, SH(2, 2));
    tu_gradcheck(ctx, &rng, "diag_embed", f_embed, 2, SH(2, 3));
    tu_gradcheck(ctx, &rng, "vander", f_vander, 2, SH(2, 2));
    tu_gradcheck(ctx, &rng, "column_stack", f_hstack, 1, SH(3));
    tu_gradcheck(ctx, &rng, "nanquantile", f_quantile, 2, SH(2, 5));
    tu_gradcheck(ctx, &rng, "pinv", f_pinv, 2, SH(3, 2));
    tu_gradcheck(ctx, &rng, "cdist", f_cdist, 2, SH(3, 2));
    tu_gradcheck(ctx, &rng, "matrix_norm nuc", f_mnorm, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "multi_dot", f_multi, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "cumulative_trapezoid", f_cumtrapz, 2, SH(4, 2));
    tu_gradcheck(ctx, &rng, "mode", f_mode, 2, SH(2, 3));
    tu_gradcheck(ctx, &rng, "index_copy", f_index_copy, 2, SH(2, 3));
    tu_gradcheck(ctx, &rng, "masked_scatter", f_masked_scatter, 2, SH(2, 3));
    ct_tensor_release(b3), ct_tensor_release(g_b);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(atleast_and_stacks);
    RUN(tensor_split_as_torch);
    RUN(tensordot_addmv_addr);
    RUN(matrix_power_and_logdet);
    RUN(block_diag_cartesian_diag_embed_vander);
    RUN(logspace_and_triangle_indices);
    RUN(hostile_sizes);
    RUN(quantile_as_torch);
    RUN(norms_pinv_chains_distances);
    RUN(mode_and_histc);
    RUN(index_copy_fill_scatter);
    RUN(aliases);
    RUN(gradients);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

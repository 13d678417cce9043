/* dot, mv, outer, trace, diagonal, diag, tile, meshgrid, diff, nansum, nanmean, var_mean,
 * std_mean, cross against naive loops over the raw values (random shapes, strided inputs,
 * every dtype they take), views where torch returns views, and their errors. Gradients:
 * test_autograd's gradcheck_composites; torch 1.13's answers: scripts/torchdiff. */
#include "test_util.h"

#include <math.h>
#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 77;

static ct_tensor *vals(ct_dtype dt, int nd, const int64_t *shape, const double *v) {
    ct_tensor *t = tu_from_vals(ctx, dt, nd, shape, v);
    CHECK(t != NULL);
    return t;
}

TEST(dot_mv_outer) {
    const ct_dtype dts[3] = {CT_FLOAT64, CT_FLOAT32, CT_INT32};
    for (int di = 0; di < 3; di++)
        for (int mode = 0; mode < 3; mode++) {
            const ct_dtype dt = dts[di];
            const int64_t m = 1 + (int64_t)(rng % 5), n = (int64_t)((rng >> 8) % 6);
            rng = rng * 6364136223846793005ULL + 1;
            const int64_t sm[2] = {m, n}, sn[1] = {n}, sk[1] = {m};
            double *va = NULL, *vv = NULL, *vw = NULL;
            ct_tensor *A = tu_make(ctx, &rng, dt, 2, sm, mode, -4, 4, &va);
            ct_tensor *v = tu_make(ctx, &rng, dt, 1, sn, mode == 2 ? 2 : 0, -4, 4, &vv);
            ct_tensor *w = tu_make(ctx, &rng, dt, 1, sk, 0, -4, 4, &vw);
            ct_tensor *r = NULL;
            CHECK_OK(ct_dot(ctx, v, v, &r));
            double want = 0, got = 0;
            for (int64_t j = 0; j < n; j++)
                want += vv[j] * vv[j];
            CHECK_OK(ct_tensor_item(r, &got));
            CHECK(ct_tensor_ndim(r) == 0 && fabs(got - want) <= 1e-5 * (1 + fabs(want)));
            ct_tensor_release(r);
            CHECK_OK(ct_mv(ctx, A, v, &r));
            double *g = tu_read(r);
            CHECK(tu_same_shape(r, 1, sk) && ct_tensor_dtype(r) == dt);
            for (int64_t i = 0; i < m; i++) {
                double s = 0;
                for (int64_t j = 0; j < n; j++)
                    s += va[i * n + j] * vv[j];
                CHECK_MSG(fabs(g[i] - s) <= 1e-5 * (1 + fabs(s)), "mv %s [%lld] %g vs %g",
                          ct_dtype_name(dt), (long long)i, g[i], s);
            }
            free(g), ct_tensor_release(r);
            CHECK_OK(ct_outer(ctx, w, v, &r));
            g = tu_read(r);
            CHECK(tu_same_shape(r, 2, sm));
            for (int64_t i = 0; i < m * n; i++)
                CHECK(g[i] == (dt == CT_FLOAT32 ? (double)(float)(vw[i / n] * vv[i % n])
                                                : vw[i / n] * vv[i % n]));
            free(g), ct_tensor_release(r);
            free(va), free(vv), free(vw);
            ct_tensor_release(A), ct_tensor_release(v), ct_tensor_release(w);
        }
    /* errors as torch: ranks, dtypes, sizes, bool */
    const int64_t s3[1] = {3}, s4[1] = {4}, s33[2] = {3, 3};
    ct_tensor *a = NULL, *b = NULL, *d = NULL, *M = NULL, *bb = NULL, *r = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, s3, &a));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 1, s3, &d));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, s4, &b));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, s33, &M));
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 1, s3, &bb));
    CHECK_ST(ct_dot(ctx, a, d, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_dot(ctx, a, b, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_dot(ctx, M, a, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_dot(ctx, bb, bb, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_mv(ctx, M, b, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_outer(ctx, M, a, &r), CT_ERR_SHAPE);
    CHECK_OK(ct_outer(ctx, bb, d, &r)); /* promotes */
    CHECK(ct_tensor_dtype(r) == CT_FLOAT64);
    ct_tensor_release(r);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(d), ct_tensor_release(M);
    ct_tensor_release(bb);
}

TEST(diagonal_trace_diag) {
    for (int rep = 0; rep < 40; rep++) {
        const int nd = 2 + rep % 3;
        int64_t sh[4];
        for (int i = 0; i < nd; i++)
            sh[i] = (int64_t)((rng >> (8 * i)) % 5);
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        const int mode = rep % 3;
        double *v = NULL;
        ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT64, nd, sh, mode, -9, 9, &v);
        const int d1 = rep % nd,
                  d2 = (rep / 3 + 1 + d1) % nd == d1 ? (d1 + 1) % nd : (rep / 3 + 1 + d1) % nd;
        const int64_t off = (int64_t)(rep % 7) - 3;
        ct_tensor *r = NULL;
        CHECK_OK(ct_diagonal(ctx, a, off, d1 - (rep & 1 ? nd : 0), d2, &r));
        /* naive: the other dims in order, then i along the diagonal */
        const int64_t s1 = sh[d1], s2 = sh[d2];
        int64_t len = off >= 0 ? (s2 - off < s1 ? s2 - off : s1) : (s1 + off < s2 ? s1 + off : s2);
        if (len < 0) len = 0;
        int64_t osh[4];
        int on = 0;
        for (int i = 0; i < nd; i++)
            if (i != d1 && i != d2) osh[on++] = sh[i];
        osh[on++] = len;
        CHECK_MSG(tu_same_shape(r, on, osh), "diagonal rep %d shape", rep);
        double *g = tu_read(r);
        int64_t total = 1;
        for (int i = 0; i < on; i++)
            total *= osh[i];
        for (int64_t k = 0; k < total; k++) {
            int64_t oi[4], ii[4];
            tu_unravel(k, on, osh, oi);
            int o = 0;
            for (int i = 0; i < nd; i++)
                if (i != d1 && i != d2) ii[i] = oi[o++];
            const int64_t t = oi[on - 1];
            ii[d1] = off >= 0 ? t : t - off;
            ii[d2] = off >= 0 ? t + off : t;
            CHECK_MSG(g[k] == v[tu_ravel(nd, sh, ii)], "diagonal rep %d elem %lld", rep,
                      (long long)k);
        }
        free(g), ct_tensor_release(r);
        if (nd == 2) {
            /* trace = sum of the main diagonal; diag = a copy of diagonal k */
            double want = 0;
            for (int64_t i = 0; i < s1 && i < s2 && d1 == 0 && d2 == 1; i++)
                want += v[i * sh[1] + i];
            if (d1 == 0 && d2 == 1) {
                CHECK_OK(ct_trace(ctx, a, &r));
                double got = NAN;
                CHECK_OK(ct_tensor_item(r, &got));
                CHECK(fabs(got - want) <= 1e-12 * (1 + fabs(want)));
                ct_tensor_release(r);
            }
        }
        free(v), ct_tensor_release(a);
    }
    /* a contiguous input gives a view: writing through it changes the input */
    const int64_t s34[2] = {3, 4};
    ct_tensor *a = NULL, *d = NULL, *r = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s34, &a));
    CHECK_OK(ct_diagonal(ctx, a, 1, 0, 1, &d));
    CHECK_OK(ct_tensor_fill_(ctx, d, 5));
    double *g = tu_read(a);
    for (int i = 0; i < 12; i++)
        CHECK(g[i] == ((i % 4) == (i / 4) + 1 ? 5 : 0));
    free(g), ct_tensor_release(d);
    CHECK_ST(ct_diagonal(ctx, a, 0, 1, -1, &d), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_diagonal(ctx, a, 0, 0, 2, &d), CT_ERR_INDEX);
    /* trace of integers is int64; bool refused */
    ct_tensor *ti = vals(CT_INT8, 2, (const int64_t[]){2, 2}, (const double[]){100, 1, 2, 100});
    CHECK_OK(ct_trace(ctx, ti, &r));
    double tv = 0;
    CHECK_OK(ct_tensor_item(r, &tv));
    CHECK(ct_tensor_dtype(r) == CT_INT64 && tv == 200);
    ct_tensor_release(r), ct_tensor_release(ti);
    ct_tensor *tb = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 2, s34, &tb));
    CHECK_ST(ct_trace(ctx, tb, &r), CT_ERR_DTYPE);
    ct_tensor_release(tb);
    /* diag: vector -> matrix with it on diagonal k (naive), matrix -> copy of diagonal k */
    for (int64_t k = -3; k <= 3; k++)
        for (int64_t n = 0; n <= 3; n++) {
            double v[3] = {1.5, -2, 7};
            const int64_t sn[1] = {n};
            ct_tensor *x = vals(CT_INT32, 1, sn, v), *m = NULL;
            CHECK_OK(ct_diag(ctx, x, k, &m));
            const int64_t N = n + (k < 0 ? -k : k), sN[2] = {N, N};
            CHECK_MSG(tu_same_shape(m, 2, sN) && ct_tensor_dtype(m) == CT_INT32,
                      "diag n %lld k %lld", (long long)n, (long long)k);
            double *mv = tu_read(m);
            for (int64_t i = 0; i < N; i++)
                for (int64_t j = 0; j < N; j++) {
                    const int64_t t = k >= 0 ? i : j; /* position along the diagonal */
                    const double want = j - i == k ? (double)(int32_t)v[t] : 0;
                    CHECK_MSG(mv[i * N + j] == want, "diag n %lld k %lld (%lld, %lld)",
                              (long long)n, (long long)k, (long long)i, (long long)j);
                }
            /* and back: diag of the matrix at k is the vector */
            ct_tensor *back = NULL;
            CHECK_OK(ct_diag(ctx, m, k, &back));
            CHECK(tu_same_shape(back, 1, sn) && tu_same_values(back, x));
            free(mv), ct_tensor_release(back), ct_tensor_release(m), ct_tensor_release(x);
        }
    /* diag of a matrix is a copy */
    CHECK_OK(ct_diag(ctx, a, 0, &d));
    CHECK_OK(ct_tensor_fill_(ctx, d, -1));
    g = tu_read(a);
    CHECK(g[0] == 0 && g[5] == 0);
    free(g), ct_tensor_release(d), ct_tensor_release(a);
}

TEST(tile_meshgrid) {
    const int64_t s23[2] = {2, 3};
    double *v = NULL;
    ct_tensor *a = tu_make(ctx, &rng, CT_INT16, 2, s23, 1, -50, 50, &v), *r = NULL;
    CHECK_OK(ct_tile(ctx, a, 1, (const int64_t[]){2}, &r)); /* (2, 3) -> (2, 6) */
    CHECK(tu_same_shape(r, 2, (const int64_t[]){2, 6}));
    double *g = tu_read(r);
    for (int i = 0; i < 12; i++)
        CHECK(g[i] == v[(i / 6) * 3 + (i % 6) % 3]);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_tile(ctx, a, 3, (const int64_t[]){2, 1, 1}, &r)); /* a leading dim */
    CHECK(tu_same_shape(r, 3, (const int64_t[]){2, 2, 3}));
    g = tu_read(r);
    for (int i = 0; i < 12; i++)
        CHECK(g[i] == v[i % 6]);
    free(g), ct_tensor_release(r), free(v), ct_tensor_release(a);
    /* meshgrid: ij and xy against the definition */
    ct_tensor *x = vals(CT_FLOAT32, 1, (const int64_t[]){2}, (const double[]){1, 2});
    ct_tensor *y = vals(CT_FLOAT32, 1, (const int64_t[]){3}, (const double[]){10, 20, 30});
    ct_tensor *z = vals(CT_FLOAT32, 0, NULL, (const double[]){-1});
    const ct_tensor *in[3] = {x, y, z};
    for (int xy = 0; xy < 2; xy++) {
        ct_tensor *o[3] = {NULL, NULL, NULL};
        CHECK_OK(ct_meshgrid(ctx, 3, in, xy ? CT_MESHGRID_XY : CT_MESHGRID_IJ, o));
        const int64_t want[3] = {xy ? 3 : 2, xy ? 2 : 3, 1};
        for (int k = 0; k < 3; k++) {
            CHECK(tu_same_shape(o[k], 3, want));
            double *ov = tu_read(o[k]);
            for (int64_t i = 0; i < 6; i++) {
                const int64_t p = xy ? i % 2 : i / 3, q = xy ? i / 2 : i % 3; /* x, y index */
                const double w = k == 0 ? 1 + p : k == 1 ? 10 * (q + 1) : -1;
                CHECK_MSG(ov[i] == w, "meshgrid xy=%d out %d [%lld]", xy, k, (long long)i);
            }
            free(ov), ct_tensor_release(o[k]);
        }
    }
    ct_tensor *o[2] = {NULL, NULL}, *xi = vals(CT_INT32, 1, (const int64_t[]){2}, (double[]){1, 2});
    const ct_tensor *mix[2] = {x, xi};
    CHECK_ST(ct_meshgrid(ctx, 2, mix, CT_MESHGRID_IJ, o), CT_ERR_DTYPE);
    CHECK(o[0] == NULL && o[1] == NULL);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(xi);
}

TEST(diff) {
    const int64_t s5[1] = {5};
    ct_tensor *a = vals(CT_UINT8, 1, s5, (const double[]){1, 3, 6, 2, 250}), *r = NULL;
    CHECK_OK(ct_diff(ctx, a, 1, 0, NULL, NULL, &r));
    double *g = tu_read(r); /* uint8 wraps: 2 - 6 = 252 */
    CHECK(ct_tensor_dtype(r) == CT_UINT8 && g[0] == 2 && g[1] == 3 && g[2] == 252 && g[3] == 248);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_diff(ctx, a, 0, 0, a, NULL, &r)); /* n = 0: a copy, prepend unused (torch) */
    CHECK(tu_same_values(r, a));
    ct_tensor_release(r), ct_tensor_release(a);
    ct_tensor *b = vals(CT_BOOL, 1, (const int64_t[]){4}, (const double[]){1, 0, 0, 1});
    CHECK_OK(ct_diff(ctx, b, 1, -1, NULL, NULL, &r)); /* bool: xor */
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_BOOL && g[0] == 1 && g[1] == 0 && g[2] == 1);
    free(g), ct_tensor_release(r), ct_tensor_release(b);
    /* f64 along dim 1 with prepend / append, n = 2, against a naive second difference */
    const int64_t s34[2] = {3, 4}, s31[2] = {3, 1}, s32[2] = {3, 2};
    double *va = NULL, *vp = NULL, *vq = NULL;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 2, s34, 2, -5, 5, &va);
    ct_tensor *p = tu_make(ctx, &rng, CT_FLOAT64, 2, s31, 0, -5, 5, &vp);
    ct_tensor *q = tu_make(ctx, &rng, CT_FLOAT64, 2, s32, 0, -5, 5, &vq);
    CHECK_OK(ct_diff(ctx, x, 2, 1, p, q, &r));
    CHECK(tu_same_shape(r, 2, (const int64_t[]){3, 5}));
    g = tu_read(r);
    for (int i = 0; i < 3; i++) {
        double row[7] = {vp[i],         va[4 * i], va[4 * i + 1], va[4 * i + 2],
                         va[4 * i + 3], vq[2 * i], vq[2 * i + 1]};
        for (int j = 0; j < 5; j++)
            CHECK(g[i * 5 + j] == (row[j + 2] - row[j + 1]) - (row[j + 1] - row[j]));
    }
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_diff(ctx, x, 9, 1, NULL, NULL, &r)); /* more steps than elements: empty */
    CHECK(tu_same_shape(r, 2, (const int64_t[]){3, 0}));
    ct_tensor_release(r);
    ct_tensor *s = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 0, NULL, &s));
    CHECK_ST(ct_diff(ctx, s, 1, 0, NULL, NULL, &r), CT_ERR_SHAPE);
    CHECK_OK(ct_diff(ctx, x, -1, 0, NULL, NULL, &r)); /* torch: the input unchanged */
    CHECK(tu_same_values(r, x));
    ct_tensor_release(r);
    CHECK_ST(ct_diff(ctx, x, 1, 0, s, NULL, &r), CT_ERR_SHAPE);
    free(va), free(vp), free(vq);
    ct_tensor_release(x), ct_tensor_release(p), ct_tensor_release(q), ct_tensor_release(s);
}

TEST(nansum_nanmean_var_mean) {
    const int64_t s34[2] = {3, 4};
    const double v[12] = {1, NAN, 2, 4, NAN, NAN, NAN, NAN, -1, 0.5, NAN, 2.5};
    ct_tensor *a = vals(CT_FLOAT64, 2, s34, v), *r = NULL;
    CHECK_OK(ct_nansum(ctx, a, 1, (const int[]){1}, false, &r));
    double *g = tu_read(r);
    CHECK(g[0] == 7 && g[1] == 0 && g[2] == 2);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_nanmean(ctx, a, 1, (const int[]){-1}, true, &r));
    CHECK(tu_same_shape(r, 2, (const int64_t[]){3, 1}));
    g = tu_read(r);
    CHECK(g[0] == 7.0 / 3 && isnan(g[1]) && g[2] == 2.0 / 3);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_nansum(ctx, a, 0, NULL, false, &r));
    double t = 0;
    CHECK_OK(ct_tensor_item(r, &t));
    CHECK(t == 9);
    ct_tensor_release(r), ct_tensor_release(a);
    ct_tensor *ia = vals(CT_INT32, 1, (const int64_t[]){3}, (const double[]){1, 2, 3});
    CHECK_OK(ct_nansum(ctx, ia, 0, NULL, false, &r)); /* integers: sum in int64 */
    CHECK(ct_tensor_dtype(r) == CT_INT64);
    ct_tensor_release(r);
    CHECK_ST(ct_nanmean(ctx, ia, 0, NULL, false, &r), CT_ERR_DTYPE);
    ct_tensor_release(ia);
    /* var_mean / std_mean are var / std and mean */
    double *vv = NULL;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 2, s34, 1, -3, 3, &vv);
    for (int k = 0; k < 2; k++) {
        ct_tensor *s = NULL, *m = NULL, *s2 = NULL, *m2 = NULL;
        CHECK_OK((k ? ct_std_mean : ct_var_mean)(ctx, x, 1, (const int[]){0}, 0.0, false, &s, &m));
        CHECK_OK((k ? ct_std : ct_var)(ctx, x, 1, (const int[]){0}, 0.0, false, &s2));
        CHECK_OK(ct_mean(ctx, x, 1, (const int[]){0}, false, &m2));
        CHECK(tu_same_values(s, s2) && tu_same_values(m, m2));
        double *gs = tu_read(s);
        for (int j = 0; j < 4; j++) { /* population variance, naive */
            double mu = (vv[j] + vv[4 + j] + vv[8 + j]) / 3, q = 0;
            for (int i = 0; i < 3; i++)
                q += (vv[4 * i + j] - mu) * (vv[4 * i + j] - mu);
            CHECK(fabs(gs[j] - (k ? sqrt(q / 3) : q / 3)) < 1e-5);
        }
        free(gs);
        ct_tensor_release(s), ct_tensor_release(m), ct_tensor_release(s2), ct_tensor_release(m2);
    }
    free(vv), ct_tensor_release(x);
}

TEST(cross) {
    /* f32 against torch's rounding, fma(a_j, b_k, -(a_k b_j)), and broadcasting */
    const int64_t s43[2] = {4, 3};
    double *va = NULL, *vb = NULL;
    ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT32, 2, s43, 1, -5, 5, &va);
    const int64_t s13[2] = {1, 3};
    ct_tensor *b = tu_make(ctx, &rng, CT_FLOAT32, 2, s13, 0, -5, 5, &vb), *r = NULL;
    CHECK_OK(ct_cross(ctx, a, b, -1, &r));
    CHECK(tu_same_shape(r, 2, s43));
    double *g = tu_read(r);
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++) {
            const int j = (c + 1) % 3, k = (c + 2) % 3;
            const float want =
                fmaf((float)va[3 * i + j], (float)vb[k], -((float)va[3 * i + k] * (float)vb[j]));
            CHECK_MSG(g[3 * i + c] == want, "cross [%d][%d] %g vs %g", i, c, g[3 * i + c],
                      (double)want);
        }
    free(g), ct_tensor_release(r);
    /* integers exact; a x a = 0 */
    ct_tensor *ia = vals(CT_INT64, 2, (const int64_t[]){3, 2}, (double[]){1, 4, 2, 5, 3, 6});
    ct_tensor *ib = vals(CT_INT64, 2, (const int64_t[]){3, 2}, (double[]){7, 1, 8, 0, 9, -2});
    CHECK_OK(ct_cross(ctx, ia, ib, 0, &r)); /* columns (1,2,3)x(7,8,9), (4,5,6)x(1,0,-2) */
    g = tu_read(r);
    const double w[6] = {2 * 9 - 3 * 8,  5 * -2 - 6 * 0, 3 * 7 - 1 * 9,
                         6 * 1 - 4 * -2, 1 * 8 - 2 * 7,  4 * 0 - 5 * 1};
    for (int i = 0; i < 6; i++)
        CHECK(g[i] == w[i]);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_cross(ctx, ia, ia, 0, &r));
    g = tu_read(r);
    for (int i = 0; i < 6; i++)
        CHECK(g[i] == 0);
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_cross(ctx, ia, ib, 1, &r), CT_ERR_SHAPE);
    ct_tensor *v1 = vals(CT_FLOAT32, 1, (const int64_t[]){3}, (const double[]){1, 2, 3});
    CHECK_ST(ct_cross(ctx, v1, a, -1, &r), CT_ERR_SHAPE); /* 1 and 2 dims: torch refuses too */
    ct_tensor_release(v1);
    CHECK_ST(ct_cross(ctx, a, ia, 0, &r), CT_ERR_DTYPE);
    free(va), free(vb);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(ia), ct_tensor_release(ib);
}

/* einsum against a naive sum over every label assignment (f64, random sizes, strided inputs). */
static double naive_einsum(const char *const *terms, int n, double *const *v,
                           const int64_t (*shape)[4], const int *nd, const char *outl, int64_t oi,
                           const int64_t *osz, int no, const int64_t *lsize) {
    /* labels: 'a'..'e'; the free ones take the output index, the rest are summed */
    int64_t fix[26];
    for (int l = 0; l < 26; l++)
        fix[l] = -1;
    for (int k = no - 1; k >= 0; k--) {
        fix[outl[k] - 'a'] = oi % osz[k];
        oi /= osz[k];
    }
    int free_l[26], nf = 0;
    for (int l = 0; l < 5; l++)
        if (fix[l] < 0 && lsize[l] >= 0) free_l[nf++] = l;
    int64_t total = 1;
    for (int k = 0; k < nf; k++)
        total *= lsize[free_l[k]];
    double acc = 0;
    for (int64_t c = 0; c < total; c++) {
        int64_t r = c, val[26];
        memcpy(val, fix, sizeof val);
        for (int k = nf - 1; k >= 0; k--) {
            val[free_l[k]] = r % lsize[free_l[k]];
            r /= lsize[free_l[k]];
        }
        double p = 1;
        for (int i = 0; i < n; i++) {
            int64_t idx[4];
            for (int d = 0; d < nd[i]; d++)
                idx[d] = val[terms[i][d] - 'a'];
            p *= v[i][tu_ravel(nd[i], shape[i], idx)];
        }
        acc += p;
    }
    return acc;
}
TEST(einsum_against_naive) {
    const struct {
        const char *eq, *terms[3], *out;
    } E[] = {
        {"ab,bc->ac", {"ab", "bc"}, "ac"},
        {"ab,bc", {"ab", "bc"}, "ac"},
        {"aa->a", {"aa"}, "a"},
        {"aa", {"aa"}, ""},
        {"ab->ba", {"ab"}, "ba"},
        {"abc->", {"abc"}, ""},
        {"a,b->ab", {"a", "b"}, "ab"},
        {"cab,cbd->cad", {"cab", "cbd"}, "cad"},
        {"ab,b,a->", {"ab", "b", "a"}, ""},
        {"abc,cd->da", {"abc", "cd"}, "da"},
        {"ab,ab->ab", {"ab", "ab"}, "ab"},
        {"aab,bc->ca", {"aab", "bc"}, "ca"},
    };
    for (size_t k = 0; k < sizeof E / sizeof E[0]; k++)
        for (int mode = 0; mode < 2; mode++) {
            int64_t lsize[26];
            for (int l = 0; l < 26; l++)
                lsize[l] = -1;
            for (int l = 0; l < 5; l++)
                lsize[l] = 1 + (int64_t)((rng >> (4 * l)) % 4);
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            int n = 0, nd[3];
            int64_t shape[3][4];
            double *v[3] = {NULL, NULL, NULL};
            ct_tensor *ops[3] = {NULL, NULL, NULL};
            for (; n < 3 && E[k].terms[n]; n++) {
                nd[n] = (int)strlen(E[k].terms[n]);
                for (int d = 0; d < nd[n]; d++)
                    shape[n][d] = lsize[E[k].terms[n][d] - 'a'];
                ops[n] = tu_make(ctx, &rng, CT_FLOAT64, nd[n], shape[n], nd[n] >= 2 ? mode : 0, -2,
                                 2, &v[n]);
            }
            ct_tensor *r = NULL;
            CHECK_OK(ct_einsum(ctx, E[k].eq, n, (const ct_tensor *const *)ops, &r));
            const int no = (int)strlen(E[k].out);
            int64_t osz[4], total = 1;
            for (int d = 0; d < no; d++)
                total *= osz[d] = lsize[E[k].out[d] - 'a'];
            for (int l = 0; l < 5; l++) /* labels no operand uses are not summed over */
                if (!strchr(E[k].eq, 'a' + l)) lsize[l] = -1;
            CHECK_MSG(tu_same_shape(r, no, osz), "einsum %s: shape", E[k].eq);
            double *g = tu_read(r);
            for (int64_t i = 0; i < total; i++) {
                const double w = naive_einsum(E[k].terms, n, v, (const int64_t(*)[4])shape, nd,
                                              E[k].out, i, osz, no, lsize);
                CHECK_MSG(fabs(g[i] - w) <= 1e-12 * (1 + fabs(w)), "einsum %s [%lld]: %g vs %g",
                          E[k].eq, (long long)i, g[i], w);
            }
            free(g), ct_tensor_release(r);
            for (int i = 0; i < n; i++)
                free(v[i]), ct_tensor_release(ops[i]);
        }
    /* ellipsis and size-1 broadcasting: a batched matmul against ct_matmul */
    const int64_t s523[3] = {5, 2, 3}, s34[2] = {3, 4}, s13[2] = {1, 3}, s23[2] = {2, 3};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 3, s523, 1, -2, 2, NULL);
    ct_tensor *y = tu_make(ctx, &rng, CT_FLOAT32, 2, s34, 0, -2, 2, NULL), *r = NULL, *w = NULL;
    CHECK_OK(ct_einsum(ctx, "...ij,jk->...ik", 2, (const ct_tensor *const[]){x, y}, &r));
    CHECK_OK(ct_matmul(ctx, x, y, &w));
    CHECK(tu_same_values(r, w));
    ct_tensor_release(r), ct_tensor_release(w);
    ct_tensor *o = tu_make(ctx, &rng, CT_FLOAT64, 2, s13, 0, -2, 2, NULL);
    ct_tensor *q = tu_make(ctx, &rng, CT_FLOAT64, 2, s23, 0, -2, 2, NULL);
    CHECK_OK(ct_einsum(ctx, "ij,ij->", 2, (const ct_tensor *const[]){o, q}, &r)); /* (1,3) bcast */
    double *vo = tu_read(o), *vq = tu_read(q), want = 0, got = 0;
    for (int i = 0; i < 6; i++)
        want += vo[i % 3] * vq[i];
    CHECK_OK(ct_tensor_item(r, &got));
    CHECK(fabs(got - want) < 1e-12);
    free(vo), free(vq), ct_tensor_release(r);
    /* errors: operand count, subscripts, sizes, dtypes */
    CHECK_ST(ct_einsum(ctx, "ij,jk", 1, (const ct_tensor *const[]){x}, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_einsum(ctx, "i1", 1, (const ct_tensor *const[]){o}, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_einsum(ctx, "ijk", 1, (const ct_tensor *const[]){o}, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_einsum(ctx, "ij,jk", 2, (const ct_tensor *const[]){q, q}, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_einsum(ctx, "ij,jk", 2, (const ct_tensor *const[]){o, y}, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_einsum(ctx, "ij->ii", 1, (const ct_tensor *const[]){o}, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_einsum(ctx, "ij->k", 1, (const ct_tensor *const[]){o}, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_einsum(ctx, "i..j", 1, (const ct_tensor *const[]){o}, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_einsum(ctx, "ij->...", 1, (const ct_tensor *const[]){q}, &r)); /* a sum */
    CHECK(ct_tensor_ndim(r) == 0);
    ct_tensor_release(r);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(o), ct_tensor_release(q);
}

/* median / nanmedian against a naive selection: the lower middle of the stably sorted slice (NaN
 * when it holds one, with the first NaN's index); the global forms and their evenly spread
 * gradient. */
static int cmp_d(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}
TEST(median_nanmedian) {
    for (int rep = 0; rep < 60; rep++) {
        const int64_t rows = 1 + rep % 4, n = 1 + (rep * 7) % 6, sh[2] = {rows, n};
        double v[64];
        for (int64_t i = 0; i < rows * n; i++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            const int r = (int)(rng >> 33) % 7;
            v[i] = r == 6 && rep % 2 ? NAN : (double)(r % 4); /* ties, and NaN in odd reps */
        }
        ct_tensor *a = vals(CT_FLOAT32, 2, sh, v);
        for (int nm = 0; nm < 2; nm++) {
            ct_tensor *val = NULL, *idx = NULL;
            CHECK_OK((nm ? ct_nanmedian_dim : ct_median_dim)(ctx, a, 1, false, &val, &idx));
            double *gv = tu_read(val), *gi = tu_read(idx);
            for (int64_t r = 0; r < rows; r++) {
                const double *row = v + r * n;
                double s[8];
                int m = 0, first_nan = -1;
                for (int j = 0; j < n; j++) {
                    if (isnan(row[j]) && first_nan < 0) first_nan = j;
                    if (!isnan(row[j])) s[m++] = row[j];
                }
                qsort(s, (size_t)m, sizeof s[0], cmp_d);
                double want;
                int64_t want_i;
                if ((!nm && first_nan >= 0) || m == 0) {
                    want = NAN;
                    want_i = first_nan;
                } else { /* the element at the middle position of a stable sort */
                    const int k = nm ? (m - 1) / 2 : (int)(n - 1) / 2;
                    want = s[k];
                    int rank = k; /* how many equal values precede it in the sorted slice */
                    while (rank > 0 && s[rank - 1] == want)
                        rank--;
                    rank = k - rank;
                    want_i = -1;
                    for (int j = 0; j < n && want_i < 0; j++)
                        if (row[j] == want && rank-- == 0) want_i = j;
                }
                CHECK_MSG(tu_same_val(gv[r], want) && gi[r] == (double)want_i,
                          "%smedian rep %d row %lld: (%g, %g) want (%g, %lld)", nm ? "nan" : "",
                          rep, (long long)r, gv[r], gi[r], want, (long long)want_i);
            }
            free(gv), free(gi), ct_tensor_release(val), ct_tensor_release(idx);
        }
        ct_tensor_release(a);
    }
    /* global: the lower middle; the gradient spread over the equal elements (torch) */
    const int64_t s4[1] = {4};
    ct_tensor *x = vals(CT_FLOAT64, 1, s4, (const double[]){2, 1, 2, 3}), *m = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_median(ctx, x, &m));
    double mv = 0;
    CHECK_OK(ct_tensor_item(m, &mv));
    CHECK(mv == 2);
    CHECK_OK(ct_backward(ctx, m, NULL, false));
    double *g = tu_read(ct_tensor_grad(x));
    CHECK(g[0] == 0.5 && g[1] == 0 && g[2] == 0.5 && g[3] == 0);
    free(g), ct_tensor_release(m);
    /* the result written in place before backward: torch's version error, not a wrong gradient */
    CHECK_OK(ct_tensor_zero_grad(x));
    CHECK_OK(ct_median(ctx, x, &m));
    CHECK_OK(ct_add_scalar_(ctx, m, 1));
    CHECK_ST(ct_backward(ctx, m, NULL, false), CT_ERR_STATE);
    ct_tensor_release(m), ct_tensor_release(x);
    ct_tensor *y = vals(CT_FLOAT32, 1, (const int64_t[]){3}, (const double[]){NAN, 1, 5});
    CHECK_OK(ct_median(ctx, y, &m));
    CHECK_OK(ct_tensor_item(m, &mv));
    CHECK(isnan(mv));
    ct_tensor_release(m);
    CHECK_OK(ct_nanmedian(ctx, y, &m));
    CHECK_OK(ct_tensor_item(m, &mv));
    CHECK(mv == 1);
    ct_tensor_release(m), ct_tensor_release(y);
    /* empty: NaN; a zero-size reduced dim fails; bool refused */
    ct_tensor *e = NULL, *vv = NULL, *ii = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (const int64_t[]){2, 0}, &e));
    CHECK_OK(ct_median(ctx, e, &m));
    CHECK_OK(ct_tensor_item(m, &mv));
    CHECK(isnan(mv));
    ct_tensor_release(m);
    CHECK_ST(ct_median_dim(ctx, e, 1, false, &vv, &ii), CT_ERR_SHAPE);
    CHECK_OK(ct_median_dim(ctx, e, 0, false, &vv, &ii)); /* an empty result */
    CHECK(tu_same_shape(vv, 1, (const int64_t[]){0}));
    ct_tensor_release(vv), ct_tensor_release(ii), ct_tensor_release(e);
    ct_tensor *b = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 1, s4, &b));
    CHECK_ST(ct_median(ctx, b, &m), CT_ERR_DTYPE);
    ct_tensor_release(b);
}

/* cummax / cummin against a sequential scan (ties take the later index, NaN sticks with the latest
 * NaN's index), every integer range included; logcumsumexp against long double. */
TEST(cummax_cummin_logcumsumexp) {
    const ct_dtype dts[4] = {CT_FLOAT32, CT_FLOAT64, CT_INT64, CT_UINT8};
    for (int rep = 0; rep < 24; rep++) {
        const ct_dtype dt = dts[rep % 4];
        const int64_t rows = 1 + rep % 3, n = 1 + (rep * 5) % 9, sh[2] = {rows, n};
        double v[64];
        for (int64_t i = 0; i < rows * n; i++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            const int r = (int)(rng >> 33) % 9;
            v[i] = r == 8 && ct_dtype_is_floating(dt) ? NAN : (double)(r % 5);
            if (dt == CT_INT64 && r == 7) v[i] = -9223372036854775808.0; /* the extremes */
            if (dt == CT_INT64 && r == 6) v[i] = 9223372036854774784.0;
            if (dt == CT_UINT8 && r == 7) v[i] = 255;
        }
        ct_tensor *a = vals(dt, 2, sh, v);
        for (int mx = 0; mx < 2; mx++) {
            ct_tensor *val = NULL, *idx = NULL;
            CHECK_OK((mx ? ct_cummax : ct_cummin)(ctx, a, -1, &val, &idx));
            CHECK(ct_tensor_dtype(val) == dt && ct_tensor_dtype(idx) == CT_INT64);
            double *gv = tu_read(val), *gi = tu_read(idx), *ra = tu_read(a);
            for (int64_t r = 0; r < rows; r++) {
                double cur = 0;
                int64_t ci = 0;
                for (int64_t j = 0; j < n; j++) {
                    const double x = ra[r * n + j];
                    if (j == 0 || isnan(x) || (!isnan(cur) && (mx ? x >= cur : x <= cur)))
                        cur = x, ci = j;
                    CHECK_MSG(tu_same_val(gv[r * n + j], cur) && gi[r * n + j] == (double)ci,
                              "cum%s %s rep %d [%lld][%lld]: (%g, %g) want (%g, %lld)",
                              mx ? "max" : "min", ct_dtype_name(dt), rep, (long long)r,
                              (long long)j, gv[r * n + j], gi[r * n + j], cur, (long long)ci);
                }
            }
            free(gv), free(gi), free(ra), ct_tensor_release(val), ct_tensor_release(idx);
        }
        if (ct_dtype_is_floating(dt)) {
            ct_tensor *l = NULL;
            CHECK_OK(ct_logcumsumexp(ctx, a, 1, &l));
            double *g = tu_read(l), *ra = tu_read(a);
            for (int64_t r = 0; r < rows; r++) {
                long double acc = 0;
                bool nan = false;
                for (int64_t j = 0; j < n; j++) {
                    nan |= isnan(ra[r * n + j]);
                    acc += expl((long double)ra[r * n + j]);
                    const double w = nan ? NAN : (double)logl(acc);
                    const double tol = dt == CT_FLOAT32 ? 2e-7 : 1e-15;
                    CHECK_MSG(tu_same_val(g[r * n + j], w) ||
                                  fabs(g[r * n + j] - w) <= tol * (1 + fabs(w)),
                              "logcumsumexp rep %d: %.17g vs %.17g", rep, g[r * n + j], w);
                }
            }
            free(g), free(ra), ct_tensor_release(l);
        }
        ct_tensor_release(a);
    }
    /* no overflow or underflow across a wide range; integers refused */
    ct_tensor *x = vals(CT_FLOAT64, 1, (const int64_t[]){3}, (const double[]){-1000, 0, 1000});
    ct_tensor *l = NULL;
    CHECK_OK(ct_logcumsumexp(ctx, x, 0, &l));
    double *g = tu_read(l);
    CHECK(g[0] == -1000 && fabs(g[1]) < 1e-300 + 1e-16 && g[2] == 1000);
    free(g), ct_tensor_release(l), ct_tensor_release(x);
    ct_tensor *ia = vals(CT_INT32, 1, (const int64_t[]){2}, (const double[]){1, 2});
    CHECK_ST(ct_logcumsumexp(ctx, ia, 0, &l), CT_ERR_DTYPE);
    ct_tensor_release(ia);
}

/* rot90, kron, repeat_interleave against index arithmetic. */
TEST(rot90_kron_repeat_interleave) {
    const int64_t s23[2] = {2, 3};
    ct_tensor *a = vals(CT_INT32, 2, s23, (const double[]){0, 1, 2, 3, 4, 5}), *r = NULL;
    /* k = 1 (and -3): out[i][j] = a[j][n - 1 - i]; k = 2: a[m - 1 - i][n - 1 - j] */
    for (int64_t k = -5; k <= 5; k++) {
        CHECK_OK(ct_rot90(ctx, a, k, 0, 1, &r));
        const int q = (int)(((k % 4) + 4) % 4);
        double *g = tu_read(r);
        for (int i = 0; i < 6; i++) {
            double w;
            if (q == 0)
                w = i;
            else if (q == 2)
                w = 5 - i;
            else if (q == 1)
                w = (i % 2) * 3 + (2 - i / 2); /* (3, 2): [i/2][i%2] = a[i%2][2-i/2] */
            else
                w = (1 - i % 2) * 3 + i / 2; /* [i/2][i%2] = a[1-i%2][i/2] */
            CHECK_MSG(g[i] == w, "rot90 k %lld [%d] %g vs %g", (long long)k, i, g[i], w);
        }
        free(g), ct_tensor_release(r);
    }
    CHECK_ST(ct_rot90(ctx, a, 1, 1, -1, &r), CT_ERR_INVALID_ARG);
    /* kron: out[i * bs + j] = a[i] * b[j] per dim, shapes aligned from the right */
    ct_tensor *b = vals(CT_INT32, 1, (const int64_t[]){2}, (const double[]){1, 10});
    CHECK_OK(ct_kron(ctx, a, b, &r)); /* (2, 3) x (2) -> (2, 6) */
    CHECK(tu_same_shape(r, 2, (const int64_t[]){2, 6}));
    double *g = tu_read(r);
    for (int i = 0; i < 12; i++)
        CHECK(g[i] == (double)((i / 6) * 3 + (i % 6) / 2) * (i % 2 ? 10 : 1));
    free(g), ct_tensor_release(r);
    /* repeat_interleave: flattened and along a dim */
    CHECK_OK(ct_repeat_interleave(ctx, a, 2, CT_ALL_DIMS, &r));
    g = tu_read(r);
    CHECK(tu_same_shape(r, 1, (const int64_t[]){12}));
    for (int i = 0; i < 12; i++)
        CHECK(g[i] == i / 2);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_repeat_interleave(ctx, a, 3, 0, &r));
    CHECK(tu_same_shape(r, 2, (const int64_t[]){6, 3}));
    g = tu_read(r);
    for (int i = 0; i < 18; i++)
        CHECK(g[i] == (double)((i / 3) / 3 * 3 + i % 3));
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_repeat_interleave(ctx, a, -1, 0, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(a), ct_tensor_release(b);
}

/* searchsorted / bucketize against a linear scan (sorted input), isin against pairs, aminmax
 * against amin / amax, bincount against counting. */
TEST(searchsorted_isin_aminmax_bincount) {
    const double sv[6] = {-1, 0, 0, 2, 2.5, 7};
    ct_tensor *seq = vals(CT_FLOAT64, 1, (const int64_t[]){6}, sv), *r = NULL;
    const double qv[8] = {-3, -1, 0, 1, 2.5, 7, 8, 0.5};
    ct_tensor *q = vals(CT_FLOAT32, 2, (const int64_t[]){2, 4}, qv);
    for (int right = 0; right < 2; right++) {
        CHECK_OK(ct_searchsorted(ctx, seq, q, false, right, &r));
        CHECK(ct_tensor_dtype(r) == CT_INT64 && tu_same_shape(r, 2, (const int64_t[]){2, 4}));
        double *g = tu_read(r);
        for (int i = 0; i < 8; i++) {
            int w = 0;
            while (w < 6 && (right ? sv[w] <= qv[i] : sv[w] < qv[i]))
                w++;
            CHECK_MSG(g[i] == w, "searchsorted right=%d [%d]: %g vs %d", right, i, g[i], w);
        }
        free(g), ct_tensor_release(r);
        CHECK_OK(ct_bucketize(ctx, q, seq, true, right, &r)); /* the same, int32 */
        CHECK(ct_tensor_dtype(r) == CT_INT32);
        ct_tensor *r2 = NULL;
        CHECK_OK(ct_searchsorted(ctx, seq, q, true, right, &r2));
        CHECK(tu_same_values(r, r2));
        ct_tensor_release(r), ct_tensor_release(r2);
    }
    /* batched sequences: each row searched for its own values */
    ct_tensor *bs = vals(CT_INT32, 2, (const int64_t[]){2, 3}, (const double[]){1, 3, 5, 2, 4, 6});
    ct_tensor *bv = vals(CT_INT32, 2, (const int64_t[]){2, 2}, (const double[]){3, 6, 1, 7});
    CHECK_OK(ct_searchsorted(ctx, bs, bv, false, false, &r));
    double *g = tu_read(r);
    CHECK(g[0] == 1 && g[1] == 3 && g[2] == 0 && g[3] == 3);
    free(g), ct_tensor_release(r);
    CHECK_ST(ct_bucketize(ctx, bv, bs, false, false, &r), CT_ERR_SHAPE);
    ct_tensor_release(bs), ct_tensor_release(bv);
    /* isin: promoted comparison, NaN matches nothing, invert */
    ct_tensor *e = vals(CT_FLOAT32, 1, (const int64_t[]){4}, (const double[]){1, 2, 3, NAN});
    ct_tensor *t = vals(CT_INT64, 1, (const int64_t[]){2}, (const double[]){3, 1});
    CHECK_OK(ct_isin(ctx, e, t, false, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_BOOL && g[0] == 1 && g[1] == 0 && g[2] == 1 && g[3] == 0);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_isin(ctx, e, t, true, &r));
    g = tu_read(r);
    CHECK(g[0] == 0 && g[1] == 1 && g[3] == 1);
    free(g), ct_tensor_release(r);
    /* aminmax equals amin and amax; not differentiable (as torch) */
    ct_tensor *mn = NULL, *mx = NULL, *a1 = NULL, *a2 = NULL;
    CHECK_OK(ct_aminmax(ctx, q, 1, (const int[]){1}, true, &mn, &mx));
    CHECK_OK(ct_amin(ctx, q, 1, (const int[]){1}, true, &a1));
    CHECK_OK(ct_amax(ctx, q, 1, (const int[]){1}, true, &a2));
    CHECK(tu_same_values(mn, a1) && tu_same_values(mx, a2));
    ct_tensor_release(mn), ct_tensor_release(mx), ct_tensor_release(a1), ct_tensor_release(a2);
    CHECK_OK(ct_tensor_set_requires_grad(e, true));
    CHECK_OK(ct_aminmax(ctx, e, 0, NULL, false, &mn, &mx));
    CHECK(ct_tensor_requires_grad(mx));
    CHECK_ST(ct_backward(ctx, mx, NULL, false), CT_ERR_UNSUPPORTED);
    ct_tensor_release(mn), ct_tensor_release(mx);
    /* bincount: counts, weights (float32 stays, others in float64), minlength, errors */
    ct_tensor *x = vals(CT_UINT8, 1, (const int64_t[]){5}, (const double[]){0, 2, 2, 5, 2});
    CHECK_OK(ct_bincount(ctx, x, NULL, 0, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_INT64 && tu_same_shape(r, 1, (const int64_t[]){6}));
    CHECK(g[0] == 1 && g[1] == 0 && g[2] == 3 && g[5] == 1);
    free(g), ct_tensor_release(r);
    ct_tensor *w = vals(CT_FLOAT16, 1, (const int64_t[]){5}, (const double[]){0.5, 1, 2, 3, 4});
    CHECK_OK(ct_bincount(ctx, x, w, 8, &r));
    g = tu_read(r);
    CHECK(ct_tensor_dtype(r) == CT_FLOAT64 && tu_same_shape(r, 1, (const int64_t[]){8}));
    CHECK(g[0] == 0.5 && g[2] == 7 && g[5] == 3 && g[7] == 0);
    free(g), ct_tensor_release(r);
    ct_tensor *neg = vals(CT_INT32, 1, (const int64_t[]){2}, (const double[]){1, -1});
    CHECK_ST(ct_bincount(ctx, neg, NULL, 0, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_bincount(ctx, q, NULL, 0, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(neg), ct_tensor_release(w), ct_tensor_release(x);
    ct_tensor_release(e), ct_tensor_release(t), ct_tensor_release(q), ct_tensor_release(seq);
}

/* randint / randperm / bernoulli / rand_like: ranges, a permutation, frequencies within 6 sigma
 * of their expectations, and reproducibility from (seed, offset). */
TEST(random_helpers) {
    const int64_t n = 20000;
    ct_tensor *r = NULL, *r2 = NULL;
    CHECK_OK(ct_tensor_randint(ctx, CT_INT16, -3, 4, 1, &n, 7, 0, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT16);
    double *g = tu_read(r);
    int64_t count[7] = {0};
    for (int64_t i = 0; i < n; i++) {
        CHECK(g[i] >= -3 && g[i] < 4 && g[i] == floor(g[i]));
        if (g[i] >= -3 && g[i] < 4) count[(int)g[i] + 3]++;
    }
    for (int k = 0; k < 7; k++) /* binomial(n, 1/7): sd ~ 49.5 */
        CHECK_MSG(fabs((double)count[k] - n / 7.0) < 6 * 49.5, "randint bin %d: %lld", k,
                  (long long)count[k]);
    free(g);
    CHECK_OK(ct_tensor_randint(ctx, CT_INT16, -3, 4, 1, &n, 7, 0, &r2)); /* same seed: same */
    CHECK(tu_same_values(r, r2));
    ct_tensor_release(r), ct_tensor_release(r2);
    CHECK_ST(ct_tensor_randint(ctx, CT_INT8, 0, 300, 1, &n, 7, 0, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_randint(ctx, CT_INT64, 5, 5, 1, &n, 7, 0, &r), CT_ERR_INVALID_ARG);
    /* randperm: every value once */
    CHECK_OK(ct_randperm(ctx, 1000, CT_INT32, 3, 0, &r));
    g = tu_read(r);
    bool seen[1000] = {false}, ok = true;
    int fixed = 0;
    for (int i = 0; i < 1000; i++) {
        const int v = (int)g[i];
        ok &= v >= 0 && v < 1000 && !seen[v];
        if (v >= 0 && v < 1000) seen[v] = true;
        fixed += v == i;
    }
    CHECK(ok && fixed < 10); /* a random permutation has ~1 fixed point */
    free(g), ct_tensor_release(r);
    /* bernoulli: p = 0 never, p = 1 always, p = 0.3 about 30% */
    double pv[3] = {0, 1, 0.3};
    ct_tensor *p = NULL, *big = NULL;
    const int64_t sn[2] = {3, 1}, sx[2] = {3, 5000};
    p = vals(CT_FLOAT32, 2, sn, pv);
    CHECK_OK(ct_tensor_expand(ctx, p, 2, sx, &big));
    CHECK_OK(ct_bernoulli(ctx, big, 11, 0, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    g = tu_read(r);
    double sum[3] = {0, 0, 0};
    for (int64_t i = 0; i < 15000; i++)
        sum[i / 5000] += g[i];
    CHECK(sum[0] == 0 && sum[1] == 5000 && fabs(sum[2] - 1500) < 6 * 32.4);
    free(g), ct_tensor_release(r), ct_tensor_release(big), ct_tensor_release(p);
    ct_tensor *bad = vals(CT_FLOAT64, 1, (const int64_t[]){2}, (const double[]){0.5, 1.5});
    CHECK_ST(ct_bernoulli(ctx, bad, 1, 0, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_rand_like(ctx, bad, 1, 0, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT64 && tu_same_shape(r, 1, (const int64_t[]){2}));
    ct_tensor_release(r);
    CHECK_OK(ct_randn_like(ctx, bad, 1, 0, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT64);
    ct_tensor_release(r), ct_tensor_release(bad);
}

/* cov / corrcoef against the two-pass definition; trapezoid against the rule. */
TEST(cov_corrcoef_trapezoid) {
    const double xv[8] = {1, 2, 4, 7, 2, 1, 0, -1};
    ct_tensor *x = vals(CT_FLOAT64, 2, (const int64_t[]){2, 4}, xv), *r = NULL;
    double mu[2] = {0, 0}, c[4] = {0, 0, 0, 0};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            mu[i] += xv[4 * i + j] / 4;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 4; j++)
                c[2 * i + k] += (xv[4 * i + j] - mu[i]) * (xv[4 * k + j] - mu[k]) / 3;
    CHECK_OK(ct_cov(ctx, x, 1, &r));
    double *g = tu_read(r);
    CHECK(tu_same_shape(r, 2, (const int64_t[]){2, 2}));
    for (int i = 0; i < 4; i++)
        CHECK(fabs(g[i] - c[i]) < 1e-12);
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_corrcoef(ctx, x, &r));
    g = tu_read(r);
    CHECK(fabs(g[0] - 1) < 1e-12 && fabs(g[3] - 1) < 1e-12);
    CHECK(fabs(g[1] - c[1] / sqrt(c[0] * c[3])) < 1e-12 && fabs(g[1] - g[2]) < 1e-15);
    free(g), ct_tensor_release(r);
    /* one variable: a 0-d variance; too few observations: inf */
    ct_tensor *v = vals(CT_INT32, 1, (const int64_t[]){3}, (const double[]){1, 2, 4});
    CHECK_OK(ct_cov(ctx, v, 1, &r));
    double s = 0;
    CHECK_OK(ct_tensor_item(r, &s));
    CHECK(ct_tensor_ndim(r) == 0 && ct_tensor_dtype(r) == CT_FLOAT32 && fabs(s - 7.0 / 3) < 1e-6);
    ct_tensor_release(r);
    CHECK_OK(ct_cov(ctx, v, 3, &r));
    CHECK_OK(ct_tensor_item(r, &s));
    CHECK(isinf(s));
    ct_tensor_release(r);
    /* trapezoid: dx (sum - (first + last) / 2) */
    CHECK_OK(ct_trapezoid(ctx, x, 0.5, 1, &r));
    g = tu_read(r);
    CHECK(g[0] == 0.5 * (14 - 4) && g[1] == 0.5 * (2 - 0.5));
    free(g), ct_tensor_release(r);
    CHECK_OK(ct_trapezoid(ctx, v, 1, 0, &r)); /* integers: float32 */
    CHECK_OK(ct_tensor_item(r, &s));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32 && s == 4.5);
    ct_tensor_release(r);
    ct_tensor *b = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 1, (const int64_t[]){3}, &b));
    CHECK_ST(ct_cov(ctx, b, 1, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_trapezoid(ctx, b, 1, 0, &r), CT_ERR_DTYPE);
    ct_tensor_release(b), ct_tensor_release(v), ct_tensor_release(x);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(dot_mv_outer);
    RUN(diagonal_trace_diag);
    RUN(tile_meshgrid);
    RUN(diff);
    RUN(nansum_nanmean_var_mean);
    RUN(cross);
    RUN(einsum_against_naive);
    RUN(median_nanmedian);
    RUN(cummax_cummin_logcumsumexp);
    RUN(rot90_kron_repeat_interleave);
    RUN(searchsorted_isin_aminmax_bincount);
    RUN(random_helpers);
    RUN(cov_corrcoef_trapezoid);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Creation and shaping ops: linspace bit for bit against torch 1.13
 * (tests/data/linspace_torch_ref.h, from tests/gen_shape_reference.py); ones, eye, *_like,
 * tril/triu, cat, stack, split, chunk, flatten, unflatten, repeat, flip, roll and movedim against
 * naive index loops written here, over every compute dtype, strided inputs (tu_make modes 1 and 2),
 * zero-size dims, negative dims, special values, and each error path's status. */
#include "test_util.h"

#include "data/linspace_torch_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 42;

/* C-order index k -> multi-index. */

TEST(linspace_matches_torch) {
    for (size_t i = 0; i < sizeof linspace_cases / sizeof linspace_cases[0]; i++) {
        const struct linspace_case *c = &linspace_cases[i];
        ct_tensor *t = NULL;
        ct_status st = ct_tensor_linspace(ctx, c->dtype, c->start, c->end, c->steps, &t);
        CHECK_MSG(st == CT_OK, "case %zu: %s", i, ct_ctx_last_error(ctx));
        if (st != CT_OK) continue;
        CHECK(ct_tensor_ndim(t) == 1 && ct_tensor_numel(t) == c->steps);
        double *v = tu_read(t);
        int bad = 0;
        for (int64_t k = 0; v && k < c->steps; k++)
            if (!tu_same_val(v[k], c->want[k]) && bad++ < 3)
                CHECK_MSG(0, "case %zu (%s %g..%g, %lld steps): [%lld] = %.9g, torch %.9g", i,
                          ct_dtype_name(c->dtype), c->start, c->end, (long long)c->steps,
                          (long long)k, v[k], c->want[k]);
        free(v);
        ct_tensor_release(t);
    }
    ct_tensor *t = NULL;
    CHECK_ST(ct_tensor_linspace(ctx, CT_FLOAT32, 0, 1, -1, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_linspace(ctx, CT_BOOL, 0, 1, 3, &t), CT_ERR_DTYPE);
    CHECK_ST(ct_tensor_linspace(ctx, CT_INT8, 0, 300, 3, &t), CT_ERR_INVALID_ARG);
    /* an integral -255..-1 wraps for uint8 (torch's Python int): [251, 130, 10] */
    CHECK_OK(ct_tensor_linspace(ctx, CT_UINT8, -5, 10, 3, &t));
    double *w = t ? tu_read(t) : NULL;
    CHECK(w && w[0] == 251 && w[1] == 130 && w[2] == 10);
    free(w), ct_tensor_release(t), t = NULL;
    CHECK_ST(ct_tensor_linspace(ctx, CT_UINT8, -5.5, 10, 3, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_linspace(ctx, CT_UINT8, -300, 10, 3, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_linspace(ctx, CT_INT32, NAN, 10, 3, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_linspace(ctx, CT_FLOAT32, 0, 1, 3, NULL), CT_ERR_INVALID_ARG);
    /* special values flow through torch's formula: step inf makes 0 * inf = NaN (torch too) */
    CHECK_OK(ct_tensor_linspace(ctx, CT_FLOAT64, 0, INFINITY, 3, &t));
    double *v = tu_read(t);
    CHECK(v && isnan(v[0]) && isnan(v[1]) && isnan(v[2]));
    free(v);
    ct_tensor_release(t);
}

TEST(ones_eye_like) {
    for (int di = 0; di < TU_NALL; di++) {
        ct_dtype dt = TU_ALL_DTYPES[di];
        int64_t sh[3] = {2, 0, 3}, sh2[2] = {3, 5};
        ct_tensor *o = NULL, *e = NULL, *l = NULL;
        CHECK_OK(ct_tensor_ones(ctx, dt, 2, sh2, &o));
        double *v = tu_read(o);
        for (int k = 0; v && k < 15; k++)
            CHECK(v[k] == 1);
        free(v);
        ct_tensor_release(o);
        CHECK_OK(ct_tensor_ones(ctx, dt, 3, sh, &o));
        CHECK(tu_same_shape(o, 3, sh));
        ct_tensor_release(o);
        const int64_t nm[][2] = {{3, 5}, {5, 3}, {4, 4}, {0, 3}, {1, 1}, {7, 0}};
        for (int c = 0; c < 6; c++) {
            CHECK_OK(ct_tensor_eye(ctx, dt, nm[c][0], nm[c][1], &e));
            CHECK(tu_same_shape(e, 2, nm[c]) && ct_tensor_dtype(e) == dt);
            v = tu_read(e);
            for (int64_t i = 0; v && i < nm[c][0]; i++)
                for (int64_t j = 0; j < nm[c][1]; j++)
                    CHECK_MSG(v[i * nm[c][1] + j] == (i == j), "eye %s %lldx%lld [%lld,%lld]",
                              ct_dtype_name(dt), (long long)nm[c][0], (long long)nm[c][1],
                              (long long)i, (long long)j);
            free(v);
            ct_tensor_release(e);
        }
        /* *_like from a strided view keep shape and dtype, come out contiguous */
        ct_tensor *a = tu_make(ctx, &rng, dt, 2, sh2, 1, -3, 3, NULL);
        ct_status (*likes[3])(ct_ctx *, const ct_tensor *,
                              ct_tensor **) = {ct_zeros_like, ct_ones_like, ct_empty_like};
        for (int f = 0; f < 3; f++) {
            CHECK_OK(likes[f](ctx, a, &l));
            CHECK(tu_same_shape(l, 2, sh2) && ct_tensor_dtype(l) == dt &&
                  ct_tensor_is_contiguous(l));
            v = tu_read(l);
            for (int k = 0; v && f < 2 && k < 15; k++)
                CHECK(v[k] == (f == 1));
            free(v);
            ct_tensor_release(l);
        }
        CHECK_OK(ct_full_like(ctx, a, dt == CT_BOOL ? 1 : 7, &l));
        v = tu_read(l);
        for (int k = 0; v && k < 15; k++)
            CHECK(v[k] == (dt == CT_BOOL ? 1 : 7));
        free(v);
        ct_tensor_release(l);
        ct_tensor_release(a);
    }
    ct_tensor *t = NULL, *a = NULL;
    CHECK_ST(ct_tensor_eye(ctx, CT_FLOAT32, -1, 3, &t), CT_ERR_SHAPE);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT8, 1, (int64_t[]){4}, &a));
    CHECK_ST(ct_full_like(ctx, a, 1000, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_zeros_like(ctx, NULL, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_zeros_like(ctx, a, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(a);
}

TEST(tril_triu) {
    const int64_t shapes[][3] = {{4, 6, 0}, {6, 4, 0}, {3, 5, 5}, {2, 1, 7}, {0, 3, 3}, {5, 5, 0}};
    const int nds[] = {2, 2, 3, 3, 3, 2};
    for (int di = 0; di < TU_NALL; di++)
        for (int s = 0; s < 6; s++)
            for (int mode = 0; mode < 3; mode++)
                for (int64_t k = -7; k <= 7; k += 2) {
                    int nd = nds[s];
                    const int64_t *sh = shapes[s];
                    double *vals = NULL;
                    ct_tensor *a =
                        tu_make(ctx, &rng, TU_ALL_DTYPES[di], nd, sh, mode, -50, 50, &vals);
                    for (int up = 0; up < 2; up++) {
                        ct_tensor *r = NULL;
                        CHECK_OK(up ? ct_triu(ctx, a, k, &r) : ct_tril(ctx, a, k, &r));
                        CHECK(tu_same_shape(r, nd, sh) && ct_tensor_dtype(r) == TU_ALL_DTYPES[di]);
                        double *got = tu_read(r);
                        int64_t n = ct_tensor_numel(a), idx[8];
                        for (int64_t q = 0; got && q < n; q++) {
                            tu_unravel(q, nd, sh, idx);
                            int64_t diff = idx[nd - 1] - idx[nd - 2];
                            bool keep = up ? diff >= k : diff <= k;
                            CHECK_MSG(got[q] == (keep ? vals[q] : 0), "%s %s k=%lld",
                                      up ? "triu" : "tril", ct_dtype_name(TU_ALL_DTYPES[di]),
                                      (long long)k);
                        }
                        free(got);
                        ct_tensor_release(r);
                    }
                    free(vals);
                    ct_tensor_release(a);
                }
    ct_tensor *v1 = NULL, *r = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){4}, &v1));
    CHECK_ST(ct_tril(ctx, v1, 0, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "[4]") != NULL);
    ct_tensor_release(v1);
}

/* ---- cat / stack ---- */
TEST(cat_and_stack) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -3; dim < 3; dim++) {
                int d = dim < 0 ? dim + 3 : dim;
                int64_t base[3] = {3, 4, 5}, sizes[3] = {2, 0, 3};
                ct_tensor *ts[3];
                double *vals[3];
                for (int i = 0; i < 3; i++) {
                    int64_t sh[3] = {base[0], base[1], base[2]};
                    sh[d] = sizes[i];
                    ts[i] = tu_make(ctx, &rng, i == 2 ? CT_FLOAT64 : TU_ALL_DTYPES[di], 3, sh, mode,
                                    -9, 9, &vals[i]);
                }
                ct_tensor *r = NULL;
                CHECK_OK(ct_cat(ctx, 3, (const ct_tensor *const *)ts, dim, &r));
                int64_t osh[3] = {base[0], base[1], base[2]};
                osh[d] = 5;
                CHECK(tu_same_shape(r, 3, osh) && ct_tensor_dtype(r) == CT_FLOAT64);
                double *got = tu_read(r);
                int64_t idx[3];
                for (int64_t q = 0; got && q < 3 * 4 * 5 / base[d] * 5; q++) {
                    tu_unravel(q, 3, osh, idx);
                    int i = idx[d] < 2 ? 0 : 2;
                    int64_t sh[3] = {base[0], base[1], base[2]};
                    sh[d] = sizes[i];
                    idx[d] -= i == 0 ? 0 : 2;
                    CHECK(got[q] == vals[i][tu_ravel(3, sh, idx)]);
                }
                free(got);
                ct_tensor_release(r);
                for (int i = 0; i < 3; i++) {
                    ct_tensor_release(ts[i]);
                    free(vals[i]);
                }
            }
    /* stack: a new dim at every position, strided inputs */
    int64_t sh[2] = {3, 4};
    double *va = NULL, *vb = NULL;
    ct_tensor *a = tu_make(ctx, &rng, CT_INT32, 2, sh, 1, -9, 9, &va);
    ct_tensor *b = tu_make(ctx, &rng, CT_INT32, 2, sh, 2, -9, 9, &vb);
    const ct_tensor *ab[2] = {a, b};
    for (int dim = -3; dim <= 2; dim++) {
        int d = dim < 0 ? dim + 3 : dim;
        ct_tensor *r = NULL;
        CHECK_OK(ct_stack(ctx, 2, ab, dim, &r));
        int64_t osh[3], idx[3], in[2];
        for (int k = 0, j = 0; k < 3; k++)
            osh[k] = k == d ? 2 : sh[j++];
        CHECK(tu_same_shape(r, 3, osh) && ct_tensor_dtype(r) == CT_INT32);
        double *got = tu_read(r);
        for (int64_t q = 0; got && q < 24; q++) {
            tu_unravel(q, 3, osh, idx);
            for (int k = 0, j = 0; k < 3; k++)
                if (k != d) in[j++] = idx[k];
            CHECK(got[q] == (idx[d] ? vb : va)[in[0] * 4 + in[1]]);
        }
        free(got);
        ct_tensor_release(r);
    }
    /* legacy 1-d empty skipping, errors */
    ct_tensor *e = NULL, *z = NULL, *r = NULL, *c = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){0}, &e));
    const ct_tensor *ae[2] = {e, a};
    CHECK_OK(ct_cat(ctx, 2, ae, 1, &r));
    CHECK(tu_same_shape(r, 2, sh) && ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 0, NULL, &z));
    const ct_tensor *az[2] = {a, z};
    CHECK_ST(ct_cat(ctx, 2, az, 0, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cat(ctx, 2, ab, 2, &r), CT_ERR_INDEX);
    CHECK_ST(ct_cat(ctx, 0, ab, 0, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 2, (int64_t[]){3, 5}, &c));
    const ct_tensor *ac[2] = {a, c};
    CHECK_ST(ct_cat(ctx, 2, ac, 0, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "[3, 5]") != NULL);
    CHECK_OK(ct_cat(ctx, 2, ac, -1, &r));
    CHECK(tu_same_shape(r, 2, (int64_t[]){3, 9}));
    ct_tensor_release(r);
    CHECK_ST(ct_stack(ctx, 2, ac, 0, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_stack(ctx, 2, ab, 3, &r), CT_ERR_INDEX);
    const ct_tensor *an[2] = {a, NULL};
    CHECK_ST(ct_cat(ctx, 2, an, 0, &r), CT_ERR_INVALID_ARG);
    ct_tensor *all[] = {a, b, e, z, c};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(all[i]);
    free(va), free(vb);
}

/* ---- split / chunk ---- */
TEST(split_and_chunk) {
    int64_t sh[2] = {7, 4};
    double *v = NULL;
    ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 1, -9, 9, &v);
    ct_tensor *outs[8] = {0};
    int n = 0;
    CHECK_OK(ct_split(ctx, a, 3, 0, 8, outs, &n));
    CHECK(n == 3);
    const int64_t want_rows[3] = {3, 3, 1};
    for (int i = 0; i < n; i++) {
        CHECK(ct_tensor_shape(outs[i])[0] == want_rows[i] && ct_tensor_shape(outs[i])[1] == 4);
        /* a view: its first element is a's element (3i, 0) */
        CHECK((float *)ct_tensor_data_ptr(outs[i]) ==
              (float *)ct_tensor_data_ptr(a) + 3 * i * ct_tensor_stride(a)[0]);
        double *g = tu_read(outs[i]);
        for (int64_t q = 0; g && q < want_rows[i] * 4; q++)
            CHECK(g[q] == v[3 * i * 4 + q]);
        free(g);
        ct_tensor_release(outs[i]);
    }
    CHECK_ST(ct_split(ctx, a, 1, 0, 3, outs, &n), CT_ERR_INVALID_ARG);
    CHECK(n == 7);
    CHECK_ST(ct_split(ctx, a, 0, 0, 8, outs, &n), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_split(ctx, a, 2, 2, 8, outs, &n), CT_ERR_INDEX);
    CHECK_OK(ct_split(ctx, a, 10, -1, 8, outs, &n));
    CHECK(n == 1 && ct_tensor_shape(outs[0])[1] == 4);
    ct_tensor_release(outs[0]);
    /* chunk: torch.chunk(7, 4) gives sizes 2, 2, 2, 1; chunk(4 cols, 3) gives 2, 2 */
    CHECK_OK(ct_chunk(ctx, a, 4, 0, 8, outs, &n));
    CHECK(n == 4 && ct_tensor_shape(outs[3])[0] == 1);
    for (int i = 0; i < n; i++)
        ct_tensor_release(outs[i]);
    CHECK_OK(ct_chunk(ctx, a, 3, 1, 8, outs, &n));
    CHECK(n == 2 && ct_tensor_shape(outs[1])[1] == 2);
    for (int i = 0; i < n; i++)
        ct_tensor_release(outs[i]);
    CHECK_ST(ct_chunk(ctx, a, 0, 0, 8, outs, &n), CT_ERR_INVALID_ARG);
    int64_t sz[3] = {1, 4, 2};
    CHECK_OK(ct_split_sizes(ctx, a, 3, sz, 0, outs));
    CHECK(ct_tensor_shape(outs[1])[0] == 4 && ct_tensor_shape(outs[2])[0] == 2);
    double *g = tu_read(outs[2]);
    for (int q = 0; g && q < 8; q++)
        CHECK(g[q] == v[5 * 4 + q]);
    free(g);
    for (int i = 0; i < 3; i++)
        ct_tensor_release(outs[i]);
    sz[2] = 3;
    CHECK_ST(ct_split_sizes(ctx, a, 3, sz, 0, outs), CT_ERR_SHAPE);
    /* zero-size dims */
    ct_tensor *z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 2, (int64_t[]){0, 3}, &z));
    CHECK_OK(ct_split(ctx, z, 2, 0, 8, outs, &n));
    CHECK(n == 1 && ct_tensor_numel(outs[0]) == 0);
    ct_tensor_release(outs[0]);
    CHECK_OK(ct_chunk(ctx, z, 3, 0, 8, outs, &n));
    CHECK(n == 3);
    for (int i = 0; i < n; i++)
        ct_tensor_release(outs[i]);
    ct_tensor_release(z);
    ct_tensor_release(a);
    free(v);
}

/* ---- flatten / unflatten / movedim ---- */
TEST(flatten_unflatten_movedim) {
    int64_t sh[4] = {2, 3, 4, 5};
    double *v = NULL;
    for (int mode = 0; mode < 3; mode++) {
        ct_tensor *a = tu_make(ctx, &rng, CT_INT16, 4, sh, mode, -99, 99, &v);
        ct_tensor *f = NULL, *u = NULL;
        CHECK_OK(ct_flatten(ctx, a, 1, -2, &f));
        CHECK(tu_same_shape(f, 3, (int64_t[]){2, 12, 5}));
        if (mode == 0) CHECK(ct_tensor_data_ptr(f) == ct_tensor_data_ptr(a)); /* a view */
        double *g = tu_read(f);
        for (int q = 0; g && q < 120; q++)
            CHECK(g[q] == v[q]);
        free(g);
        CHECK_OK(ct_unflatten(ctx, f, 1, 2, (int64_t[]){-1, 4}, &u));
        CHECK(tu_same_shape(u, 4, sh));
        g = tu_read(u);
        for (int q = 0; g && q < 120; q++)
            CHECK(g[q] == v[q]);
        free(g);
        ct_tensor_release(u);
        CHECK_ST(ct_unflatten(ctx, f, 1, 2, (int64_t[]){5, 4}, &u), CT_ERR_SHAPE);
        CHECK_ST(ct_unflatten(ctx, f, 3, 2, (int64_t[]){3, 4}, &u), CT_ERR_INDEX);
        ct_tensor_release(f);
        CHECK_OK(ct_flatten(ctx, a, 0, -1, &f));
        CHECK(tu_same_shape(f, 1, (int64_t[]){120}));
        ct_tensor_release(f);
        CHECK_ST(ct_flatten(ctx, a, 2, 1, &f), CT_ERR_INVALID_ARG);
        CHECK_ST(ct_flatten(ctx, a, 0, 4, &f), CT_ERR_INDEX);
        /* movedim: (0, 1) -> (3, 0) on (2,3,4,5) gives (3,4,5,2) as torch */
        ct_tensor *m = NULL;
        CHECK_OK(ct_movedim(ctx, a, 2, (int[]){0, 1}, (int[]){3, 0}, &m));
        CHECK(tu_same_shape(m, 4, (int64_t[]){3, 4, 5, 2}));
        CHECK(ct_tensor_stride(m)[3] == ct_tensor_stride(a)[0]);
        ct_tensor_release(m);
        CHECK_OK(ct_movedim(ctx, a, 1, (int[]){-1}, (int[]){1}, &m));
        CHECK(tu_same_shape(m, 4, (int64_t[]){2, 5, 3, 4}));
        ct_tensor_release(m);
        CHECK_ST(ct_movedim(ctx, a, 2, (int[]){0, 0}, (int[]){1, 2}, &m), CT_ERR_INVALID_ARG);
        CHECK_ST(ct_movedim(ctx, a, 1, (int[]){4}, (int[]){0}, &m), CT_ERR_INDEX);
        ct_tensor_release(a);
        free(v);
    }
    ct_tensor *s = NULL, *f = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 0, NULL, 2.5, &s));
    CHECK_OK(ct_flatten(ctx, s, 0, -1, &f));
    CHECK(tu_same_shape(f, 1, (int64_t[]){1}));
    ct_tensor_release(f);
    ct_tensor_release(s);
}

/* ---- repeat / flip / roll ---- */
TEST(repeat_flip_roll) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++) {
            int64_t sh[2] = {3, 4};
            double *v = NULL;
            ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, sh, mode, -9, 9, &v);
            /* repeat (2, 1, 3): out (2, 3, 12), out[i,j,k] = a[j % 3, k % 4] */
            int64_t rep[3] = {2, 1, 3}, osh[3] = {2, 3, 12}, idx[3];
            ct_tensor *r = NULL;
            CHECK_OK(ct_repeat(ctx, a, 3, rep, &r));
            CHECK(tu_same_shape(r, 3, osh));
            double *g = tu_read(r);
            for (int64_t q = 0; g && q < 72; q++) {
                tu_unravel(q, 3, osh, idx);
                CHECK(tu_same_val(g[q], v[(idx[1] % 3) * 4 + idx[2] % 4]));
            }
            free(g);
            ct_tensor_release(r);
            int64_t rep2[2] = {5, 0};
            CHECK_OK(ct_repeat(ctx, a, 2, rep2, &r));
            CHECK(tu_same_shape(r, 2, (int64_t[]){15, 0}));
            ct_tensor_release(r);
            /* flip both dims, one dim, negative dim */
            const int fl[3][2] = {{0, 1}, {1, -1}, {-2, 0}};
            const int nfl[3] = {2, 1, 1};
            for (int c = 0; c < 3; c++) {
                CHECK_OK(ct_flip(ctx, a, nfl[c], fl[c], &r));
                g = tu_read(r);
                bool f0 = false, f1 = false;
                for (int k = 0; k < nfl[c]; k++) {
                    int d = fl[c][k] < 0 ? fl[c][k] + 2 : fl[c][k];
                    if (d == 0) f0 = true;
                    if (d == 1) f1 = true;
                }
                for (int i = 0; g && i < 3; i++)
                    for (int j = 0; j < 4; j++)
                        CHECK(
                            tu_same_val(g[i * 4 + j], v[(f0 ? 2 - i : i) * 4 + (f1 ? 3 - j : j)]));
                free(g);
                ct_tensor_release(r);
            }
            /* roll: out[(i + s) % n] = in[i] */
            const int64_t shifts[][2] = {{1, 0}, {-1, 5}, {7, -2}, {0, 0}};
            for (int c = 0; c < 4; c++) {
                CHECK_OK(ct_roll(ctx, a, 2, shifts[c], (int[]){0, -1}, &r));
                g = tu_read(r);
                for (int i = 0; g && i < 3; i++)
                    for (int j = 0; j < 4; j++) {
                        int64_t oi = ((i + shifts[c][0]) % 3 + 3) % 3,
                                oj = ((j + shifts[c][1]) % 4 + 4) % 4;
                        CHECK(tu_same_val(g[oi * 4 + oj], v[i * 4 + j]));
                    }
                free(g);
                ct_tensor_release(r);
            }
            CHECK_OK(ct_roll(ctx, a, 1, (int64_t[]){5}, NULL, &r)); /* flattened */
            CHECK(tu_same_shape(r, 2, sh));
            g = tu_read(r);
            for (int k = 0; g && k < 12; k++)
                CHECK(tu_same_val(g[(k + 5) % 12], v[k]));
            free(g);
            ct_tensor_release(r);
            ct_tensor_release(a);
            free(v);
        }
    /* special values move bit for bit */
    float sp[4] = {NAN, -0.0f, INFINITY, -INFINITY};
    ct_tensor *a = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, sp, CT_FLOAT32, 1, (int64_t[]){4}, &a));
    CHECK_OK(ct_flip(ctx, a, 1, (int[]){0}, &r));
    float back[4];
    CHECK_OK(ct_tensor_to_host(r, back, sizeof back));
    CHECK(isnan(back[3]) && back[2] == 0 && signbit(back[2]) && back[0] == -INFINITY);
    ct_tensor_release(r);
    CHECK_ST(ct_repeat(ctx, a, 0, NULL, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_repeat(ctx, a, 1, (int64_t[]){-1}, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_flip(ctx, a, 2, (int[]){0, 0}, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_flip(ctx, a, 1, (int[]){1}, &r), CT_ERR_INDEX);
    CHECK_ST(ct_roll(ctx, a, 1, (int64_t[]){1}, (int[]){2}, &r), CT_ERR_INDEX);
    CHECK_ST(ct_roll(ctx, a, 0, NULL, NULL, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(a);
}

/* Copies go through the dispatch point: captured once, replayed on new data, equal to eager. */
TEST(shaping_ops_capture_and_replay) {
    int64_t sh[2] = {3, 4};
    ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 0, -9, 9, NULL);
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    ct_tensor *c = NULL, *r = NULL, *f = NULL, *ro = NULL;
    const ct_tensor *aa[2] = {a, a};
    CHECK_OK(ct_cat(ctx, 2, aa, 1, &c));
    CHECK_OK(ct_repeat(ctx, a, 2, (int64_t[]){2, 2}, &r));
    CHECK_OK(ct_flip(ctx, a, 1, (int[]){1}, &f));
    CHECK_OK(ct_roll(ctx, a, 1, (int64_t[]){1}, (int[]){0}, &ro));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(ct_graph_num_nodes(g) >= 4);
    ct_tensor *b = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 0, -9, 9, NULL);
    CHECK_OK(ct_tensor_copy_(ctx, a, b));
    CHECK_OK(ct_graph_replay(g));
    ct_tensor *ce = NULL;
    const ct_tensor *bb[2] = {b, b};
    CHECK_OK(ct_cat(ctx, 2, bb, 1, &ce));
    double *x = tu_read(c), *y = tu_read(ce);
    for (int q = 0; x && y && q < 24; q++)
        CHECK(x[q] == y[q]);
    free(x), free(y);
    ct_tensor *all[] = {a, b, c, r, f, ro, ce};
    for (int i = 0; i < 7; i++)
        ct_tensor_release(all[i]);
    ct_graph_free(g);
}

/* narrow's start as torch 1.13 (start == size is the empty end slice; other starts wrap as a dim,
 * a size-0 dim counting as size 1), checked against torch's answers */
TEST(narrow_empty_negative_start) {
    static const struct {
        int64_t size, start, len;
        int ok;
    } c[] = {{0, -1, 0, 1}, {0, 1, 0, 0},  {0, 0, 0, 1},  {0, -2, 0, 0}, {0, 2, 0, 0},
             {0, 0, 1, 0},  {3, -3, 1, 1}, {3, -4, 1, 0}, {3, 3, 0, 1},  {3, 4, 0, 0},
             {3, -1, 1, 1}, {3, -1, 2, 0}, {3, 2, 2, 0}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        ct_tensor *t = NULL, *o = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &c[i].size, &t));
        const ct_status st = ct_tensor_narrow(ctx, t, 0, c[i].start, c[i].len, &o);
        CHECK_MSG((st == CT_OK) == c[i].ok, "narrow(size %lld, %lld, %lld): %s",
                  (long long)c[i].size, (long long)c[i].start, (long long)c[i].len,
                  ct_status_str(st));
        if (st == CT_OK) CHECK(ct_tensor_numel(o) == c[i].len);
        ct_tensor_release(o), ct_tensor_release(t);
    }
}

/* fill_ / zero_ (Tensor.fill_ / zero_): every dtype, contiguous, transposed and strided views (the
 * elements outside the view untouched), an expanded view (stride 0), zero size; the value checks
 * torch's full makes (int8 300 and f16 1e6 overflow; uint8 -1 wraps to 255 and bool 2.5 is true,
 * as torch 1.13 printed them); a saved tensor filled in place fails its backward. */
TEST(fill_and_zero_in_place) {
    const int64_t sh[2] = {3, 4};
    for (int di = 0; di < TU_NALL; di++) {
        const ct_dtype dt = TU_ALL_DTYPES[di];
        const double val = dt == CT_BOOL ? 1 : 5;
        for (int mode = 0; mode < 3; mode++) {
            /* mode 1: a transposed view; 2: every other element of a (3, 8) base */
            ct_tensor *base = tu_make(ctx, &rng, dt, 2, (int64_t[]){3, 8}, 0, 1, 3, NULL),
                      *t = NULL;
            CHECK(base != NULL);
            if (mode == 0) CHECK_OK(ct_tensor_narrow(ctx, base, 1, 0, 4, &t));
            if (mode == 1) CHECK_OK(ct_tensor_transpose(ctx, base, 0, 1, &t));
            if (mode == 2) CHECK_OK(ct_tensor_slice(ctx, base, 1, 1, 8, 2, &t));
            double *before = tu_read(base);
            CHECK_OK(ct_tensor_fill_(ctx, t, val));
            double *after = tu_read(base);
            for (int64_t i = 0; before && after && i < 3; i++)
                for (int64_t j = 0; j < 8; j++) {
                    const bool in = mode == 1 || (mode == 0 ? j < 4 : j % 2 == 1);
                    CHECK_MSG(after[i * 8 + j] == (in ? val : before[i * 8 + j]),
                              "fill_ %s mode %d [%lld,%lld]", ct_dtype_name(dt), mode, (long long)i,
                              (long long)j);
                }
            free(after);
            CHECK_OK(ct_tensor_zero_(ctx, t));
            after = tu_read(base);
            for (int64_t i = 0; before && after && i < 3; i++)
                for (int64_t j = 0; j < 8; j++) {
                    const bool in = mode == 1 || (mode == 0 ? j < 4 : j % 2 == 1);
                    CHECK(after[i * 8 + j] == (in ? 0 : before[i * 8 + j]));
                }
            free(before), free(after);
            ct_tensor_release(t), ct_tensor_release(base);
        }
    }
    /* expanded (stride 0) and zero-size tensors */
    ct_tensor *z = NULL, *e = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){4}, &z));
    CHECK_OK(ct_tensor_expand(ctx, z, 2, sh, &e));
    CHECK_OK(ct_tensor_fill_(ctx, e, 2.5));
    double *v = tu_read(z);
    CHECK(v && v[0] == 2.5 && v[1] == 2.5 && v[2] == 2.5 && v[3] == 2.5);
    free(v);
    ct_tensor_release(e), ct_tensor_release(z);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){0, 3}, &z));
    CHECK_OK(ct_tensor_fill_(ctx, z, 1));
    ct_tensor_release(z);
    /* value checks */
    const struct {
        ct_dtype dt;
        double v, want;
        ct_status st;
    } vc[] = {{CT_INT8, 300, 0, CT_ERR_INVALID_ARG},
              {CT_FLOAT16, 1e6, 0, CT_ERR_INVALID_ARG},
              {CT_UINT8, -1, 255, CT_OK},
              {CT_BOOL, 2.5, 1, CT_OK},
              {CT_INT32, 2.7, 2, CT_OK},
              {CT_INT32, INFINITY, 0, CT_ERR_INVALID_ARG}};
    for (size_t c = 0; c < sizeof vc / sizeof vc[0]; c++) {
        CHECK_OK(ct_tensor_zeros(ctx, vc[c].dt, 1, (int64_t[]){2}, &z));
        CHECK_ST(ct_tensor_fill_(ctx, z, vc[c].v), vc[c].st);
        v = tu_read(z);
        CHECK_MSG(v && v[0] == vc[c].want && v[1] == vc[c].want, "fill_ %s %g: %g",
                  ct_dtype_name(vc[c].dt), vc[c].v, v ? v[0] : -1);
        free(v);
        ct_tensor_release(z);
    }
    CHECK_ST(ct_tensor_fill_(ctx, NULL, 1), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_zero_(NULL, NULL), CT_ERR_INVALID_ARG);
    /* the version counter: a saved tensor zeroed in place fails backward */
    ct_tensor *x = NULL, *y = NULL, *l = NULL, *d = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 1, (int64_t[]){3}, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_exp(ctx, x, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_tensor_detach(ctx, y, &d));
    CHECK_OK(ct_tensor_zero_(ctx, d));
    CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
    ct_tensor_release(d), ct_tensor_release(l), ct_tensor_release(y), ct_tensor_release(x);
}

int main(void) {
    ct_ctx_options o = {.size = sizeof o};
    if (ct_ctx_create(&o, &ctx) != CT_OK) return 1;
    RUN(linspace_matches_torch);
    RUN(narrow_empty_negative_start);
    RUN(ones_eye_like);
    RUN(tril_triu);
    RUN(cat_and_stack);
    RUN(split_and_chunk);
    RUN(flatten_unflatten_movedim);
    RUN(repeat_flip_roll);
    RUN(shaping_ops_capture_and_replay);
    RUN(fill_and_zero_in_place);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Indexing ops: index_select, gather, take_along_dim, scatter, scatter_add, masked_fill and
 * one_hot against naive index loops written here (values compared in double), over every compute
 * dtype, strided inputs and strided int32/int64 indices, zero-size dims, negative dims, special
 * values, out-of-range indices (CT_ERR_INDEX with the bound in the message, nothing written) and
 * the other error paths. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 9;

/* An index tensor of `shape` with values in [0, hi), int64 or int32, contiguous or strided. */
static ct_tensor *make_index(ct_dtype dt, int nd, const int64_t *shape, int64_t hi, int mode,
                             double **vals) {
    return tu_make(ctx, &rng, dt, nd, shape, mode, 0, (double)hi - 0.001, vals);
}

TEST(index_select_and_gather) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -3; dim < 3; dim++) {
                int d = dim < 0 ? dim + 3 : dim;
                int64_t sh[3] = {3, 4, 5};
                double *v = NULL, *iv = NULL;
                ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 3, sh, mode, -20, 20, &v);
                /* index_select: a 1-d index of 6 entries (repeats allowed) */
                int64_t L[1] = {6};
                ct_tensor *ix = make_index(mode == 1 ? CT_INT32 : CT_INT64, 1, L, sh[d], mode, &iv);
                ct_tensor *r = NULL;
                CHECK_OK(ct_index_select(ctx, a, dim, ix, &r));
                int64_t osh[3] = {3, 4, 5}, idx[3];
                osh[d] = 6;
                CHECK(tu_same_shape(r, 3, osh) && ct_tensor_dtype(r) == TU_ALL_DTYPES[di]);
                double *g = tu_read(r);
                for (int64_t q = 0; g && q < 3 * 4 * 5 / sh[d] * 6; q++) {
                    tu_unravel(q, 3, osh, idx);
                    idx[d] = (int64_t)iv[idx[d]];
                    CHECK(tu_same_val(g[q], v[tu_ravel(3, sh, idx)]));
                }
                free(g), free(iv);
                ct_tensor_release(r);
                ct_tensor_release(ix);
                /* gather: index (2, 3, 4) no larger than a off d */
                int64_t ish[3] = {2, 3, 4};
                ish[d] = 7;
                ix = make_index(CT_INT32, 3, ish, sh[d], mode, &iv); /* torch: int64 only */
                r = NULL;
                CHECK_ST(ct_gather(ctx, a, dim, ix, &r), CT_ERR_DTYPE);
                CHECK(r == NULL && strstr(ct_ctx_last_error(ctx), "int64") != NULL);
                free(iv), ct_tensor_release(ix);
                ix = make_index(CT_INT64, 3, ish, sh[d], mode, &iv);
                CHECK_OK(ct_gather(ctx, a, dim, ix, &r));
                CHECK(tu_same_shape(r, 3, ish));
                g = tu_read(r);
                for (int64_t q = 0; g && q < ish[0] * ish[1] * ish[2]; q++) {
                    tu_unravel(q, 3, ish, idx);
                    idx[d] = (int64_t)iv[q];
                    CHECK(tu_same_val(g[q], v[tu_ravel(3, sh, idx)]));
                }
                free(g);
                ct_tensor_release(r);
                free(iv);
                ct_tensor_release(ix);
                /* take_along_dim: an index broadcasting with a off d (size 1 on odd dims) */
                int64_t tsh[3], bsh[3];
                for (int k = 0; k < 3; k++) {
                    tsh[k] = k == d ? 7 : (k % 2 ? 1 : sh[k]);
                    bsh[k] = k == d ? 7 : sh[k];
                }
                ix = make_index(CT_INT64, 3, tsh, sh[d], mode, &iv);
                CHECK_OK(ct_take_along_dim(ctx, a, ix, dim, &r));
                CHECK(tu_same_shape(r, 3, bsh));
                g = tu_read(r);
                for (int64_t q = 0; g && q < bsh[0] * bsh[1] * bsh[2]; q++) {
                    int64_t ti[3];
                    tu_unravel(q, 3, bsh, idx);
                    for (int k = 0; k < 3; k++)
                        ti[k] = tsh[k] == 1 ? 0 : idx[k];
                    idx[d] = (int64_t)iv[tu_ravel(3, tsh, ti)];
                    CHECK(tu_same_val(g[q], v[tu_ravel(3, sh, idx)]));
                }
                free(g);
                ct_tensor_release(r);
                free(iv), free(v);
                ct_tensor_release(ix);
                ct_tensor_release(a);
            }
    /* take_along_dim: input (3, 1, 5) and indices (1, 4, 2) along dim 2 -> (3, 4, 2) */
    int64_t as[3] = {3, 1, 5}, is[3] = {1, 4, 2}, os[3] = {3, 4, 2}, idx[3];
    double *v = NULL, *iv = NULL;
    ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT32, 3, as, 0, -5, 5, &v);
    ct_tensor *ix = make_index(CT_INT64, 3, is, 5, 0, &iv), *r = NULL;
    CHECK_OK(ct_take_along_dim(ctx, a, ix, -1, &r));
    CHECK(tu_same_shape(r, 3, os));
    double *g = tu_read(r);
    for (int64_t q = 0; g && q < 24; q++) {
        tu_unravel(q, 3, os, idx);
        CHECK(g[q] == v[idx[0] * 5 + (int64_t)iv[idx[1] * 2 + idx[2]]]);
    }
    free(g);
    ct_tensor_release(r);
    /* dim = CT_ALL_DIMS: from the flattened input */
    CHECK_OK(ct_take_along_dim(ctx, a, ix, CT_ALL_DIMS, &r));
    CHECK(tu_same_shape(r, 1, (int64_t[]){8}));
    g = tu_read(r);
    for (int q = 0; g && q < 8; q++)
        CHECK(g[q] == v[(int64_t)iv[q]]);
    free(g), free(iv), free(v);
    ct_tensor_release(r);
    ct_tensor_release(ix);
    ct_tensor_release(a);
}

/* A gather whose output is beyond the last-level cache takes the non-temporal store path. */
TEST(large_gather_streams) {
    const int64_t n = (int64_t)9 << 20; /* 36 MiB of f32 output */
    float *src = malloc(sizeof(float) * (size_t)n);
    int64_t *ix = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        src[i] = (float)(i % 1000003) * 0.5f;
        ix[i] = (i * 7919) % n; /* a permutation (7919 is prime, n a power of two times 9) */
    }
    ct_tensor *s = NULL, *t = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, src, CT_FLOAT32, 1, &n, &s));
    CHECK_OK(ct_tensor_from_host(ctx, ix, CT_INT64, 1, &n, &t));
    CHECK_OK(ct_gather(ctx, s, 0, t, &r));
    const float *rp = r ? ct_tensor_data_ptr(r) : NULL;
    int64_t bad = 0;
    for (int64_t i = 0; rp && i < n; i++)
        bad += rp[i] != src[ix[i]];
    CHECK_MSG(rp && bad == 0, "%lld wrong elements", (long long)bad);
    ct_tensor_release(s), ct_tensor_release(t), ct_tensor_release(r);
    free(src), free(ix);
}

/* Rows gathered along the last dim through the ISA loop (vector body, alignment head, tail):
 * every length around the 16-element step, an index view starting at an odd element, and one bad
 * index at every position of the body or the tail. */
TEST(gather_rows_isa_loop) {
    const int64_t lens[] = {1, 7, 15, 16, 17, 31, 33, 100, 1000, 4099};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t L = lens[li], W = L + 3, R = 3;
        float *src = malloc(sizeof(float) * (size_t)(R * W));
        int64_t *ix = malloc(sizeof(int64_t) * (size_t)(R * (L + 1)));
        for (int64_t i = 0; i < R * W; i++)
            src[i] = (float)((i * 37) % 1009) - 500.0f;
        uint64_t st = 12345u + (uint64_t)L;
        for (int64_t i = 0; i < R * (L + 1); i++) {
            st = st * 6364136223846793005ULL + 1442695040888963407ULL;
            ix[i] = (int64_t)((st >> 33) % (uint64_t)W);
        }
        ct_tensor *s = NULL, *t = NULL, *tv = NULL, *r = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, src, CT_FLOAT32, 2, (int64_t[]){R, W}, &s));
        CHECK_OK(ct_tensor_from_host(ctx, ix, CT_INT64, 2, (int64_t[]){R, L + 1}, &t));
        CHECK_OK(ct_tensor_narrow(ctx, t, 1, 1, L, &tv)); /* rows start one element in */
        CHECK_OK(ct_gather(ctx, s, 1, tv, &r));
        const float *rp = r ? ct_tensor_data_ptr(r) : NULL;
        int64_t wrong = 0;
        for (int64_t i = 0; rp && i < R; i++)
            for (int64_t c = 0; c < L; c++)
                wrong += rp[i * L + c] != src[i * W + ix[i * (L + 1) + 1 + c]];
        CHECK_MSG(rp && wrong == 0, "L=%lld: %lld wrong elements", (long long)L, (long long)wrong);
        ct_tensor_release(r), r = NULL;
        const int64_t bads[3] = {W, -1, INT64_MAX};
        for (int64_t pos = 0; pos<L; pos += L> 40 ? 13 : 1) {
            const int64_t keep = ix[L + 1 + 1 + pos]; /* row 1 */
            ix[L + 1 + 1 + pos] = bads[pos % 3];
            ct_tensor *tb = NULL, *tbv = NULL;
            CHECK_OK(ct_tensor_from_host(ctx, ix, CT_INT64, 2, (int64_t[]){R, L + 1}, &tb));
            CHECK_OK(ct_tensor_narrow(ctx, tb, 1, 1, L, &tbv));
            CHECK_ST(ct_gather(ctx, s, 1, tbv, &r), CT_ERR_INDEX);
            CHECK(r == NULL);
            ix[L + 1 + 1 + pos] = keep;
            ct_tensor_release(tbv), ct_tensor_release(tb);
        }
        ct_tensor_release(tv), ct_tensor_release(t), ct_tensor_release(s);
        free(src), free(ix);
    }
}

TEST(index_errors_and_edges) {
    int64_t sh[2] = {3, 4};
    ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 0, -5, 5, NULL), *r = NULL, *ix = NULL;
    long long bad[3] = {0, 3, 1};
    CHECK_OK(ct_tensor_from_host(ctx, bad, CT_INT64, 1, (int64_t[]){3}, &ix));
    CHECK_ST(ct_index_select(ctx, a, 0, ix, &r), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "[0, 3)") != NULL);
    CHECK(r == NULL);
    CHECK_OK(ct_index_select(ctx, a, 1, ix, &r)); /* 3 is fine along dim 1 */
    ct_tensor_release(r);
    bad[1] = -1;
    ct_tensor_release(ix);
    CHECK_OK(ct_tensor_from_host(ctx, bad, CT_INT64, 1, (int64_t[]){3}, &ix));
    CHECK_ST(ct_index_select(ctx, a, 1, ix, &r), CT_ERR_INDEX);
    CHECK_ST(ct_index_select(ctx, a, 2, ix, &r), CT_ERR_INDEX); /* dim out of range */
    ct_tensor *fi = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &fi));
    CHECK_ST(ct_index_select(ctx, a, 0, fi, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_gather(ctx, a, 0, ix, &r), CT_ERR_SHAPE); /* ndim differs */
    ct_tensor *big = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 2, (int64_t[]){2, 5}, &big));
    CHECK_ST(ct_gather(ctx, a, 0, big, &r), CT_ERR_SHAPE); /* 5 > 4 off dim */
    CHECK_OK(ct_gather(ctx, a, 1, big, &r));               /* along dim 1 any length */
    ct_tensor_release(r);
    /* zero-size index and input */
    ct_tensor *e = NULL, *z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, (int64_t[]){0}, &e));
    CHECK_OK(ct_index_select(ctx, a, 0, e, &r));
    CHECK(tu_same_shape(r, 2, (int64_t[]){0, 4}));
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, (int64_t[]){0, 4}, &z));
    CHECK_OK(ct_index_select(ctx, z, 1, e, &r));
    CHECK(tu_same_shape(r, 2, (int64_t[]){0, 0}));
    ct_tensor_release(r);
    CHECK_ST(ct_index_select(ctx, z, 0, ix, &r), CT_ERR_INDEX); /* nothing to select from */
    ct_tensor *all[] = {a, ix, fi, big, e, z};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(all[i]);
}

TEST(scatter_and_scatter_add) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -2; dim < 2; dim++) {
                int d = dim < 0 ? dim + 2 : dim;
                int64_t sh[2] = {4, 5}, ish[2] = {3, 4}, ssh[2] = {3, 6};
                ish[d] = 6;
                ssh[d] = 7;
                double *v = NULL, *iv = NULL, *sv = NULL;
                ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, sh, mode, -20, 20, &v);
                ct_tensor *ix = make_index(CT_INT32, 2, ish, sh[d], mode, &iv);
                ct_tensor *src = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, ssh, mode, -20, 20, &sv);
                for (int add = 0; add < 2; add++) { /* torch: an int64 index only */
                    ct_tensor *r = NULL;
                    CHECK_ST(add ? ct_scatter_add(ctx, a, dim, ix, src, &r)
                                 : ct_scatter(ctx, a, dim, ix, src, &r),
                             CT_ERR_DTYPE);
                    CHECK(r == NULL);
                }
                free(iv), ct_tensor_release(ix);
                ix = make_index(CT_INT64, 2, ish, sh[d], mode, &iv);
                for (int add = 0; add < 2; add++) {
                    ct_tensor *r = NULL;
                    ct_status st = add ? ct_scatter_add(ctx, a, dim, ix, src, &r)
                                       : ct_scatter(ctx, a, dim, ix, src, &r);
                    CHECK_OK(st); /* bool scatter_add ORs (torch: bool + bool), checked below */
                    /* naive: apply in C order of the index, in double, rounding each add to the
                     * dtype */
                    double *want = malloc(20 * sizeof(double));
                    memcpy(want, v, 20 * sizeof(double));
                    int64_t idx[2];
                    for (int64_t q = 0; q < ish[0] * ish[1]; q++) {
                        tu_unravel(q, 2, ish, idx);
                        double s = sv[idx[0] * ssh[1] + idx[1]];
                        idx[d] = (int64_t)iv[q];
                        int64_t k = idx[0] * 5 + idx[1];
                        if (!add) {
                            want[k] = s;
                        } else {
                            char tmp[8];
                            double sum = want[k] + s;
                            if (TU_ALL_DTYPES[di] <= CT_INT64) { /* wrap */
                                uint64_t w = (uint64_t)(int64_t)want[k] + (uint64_t)(int64_t)s;
                                sum = (double)(int64_t)w;
                            }
                            tu_set(tmp, TU_ALL_DTYPES[di], 0, sum);
                            want[k] = tu_get(tmp, TU_ALL_DTYPES[di], 0);
                        }
                    }
                    double *g = tu_read(r);
                    for (int k = 0; g && k < 20; k++)
                        CHECK_MSG(tu_same_val(g[k], want[k]), "%s %s dim %d mode %d [%d]: %g vs %g",
                                  add ? "scatter_add" : "scatter", ct_dtype_name(TU_ALL_DTYPES[di]),
                                  dim, mode, k, g[k], want[k]);
                    free(g), free(want);
                    ct_tensor_release(r);
                }
                free(v), free(iv), free(sv);
                ct_tensor_release(a), ct_tensor_release(ix), ct_tensor_release(src);
            }
    /* errors: index past self's dim, src of another dtype, index larger than src */
    int64_t sh[2] = {2, 3};
    ct_tensor *a = NULL, *src = NULL, *ix = NULL, *r = NULL, *s2 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, sh, &a));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, sh, &src));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 2, sh, &s2));
    long long iv[6] = {0, 1, 2, 0, 1, 3};
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT64, 2, sh, &ix));
    CHECK_ST(ct_scatter(ctx, a, 1, ix, src, &r), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "[0, 3)") != NULL);
    CHECK_ST(ct_scatter(ctx, a, 1, ix, s2, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_scatter_add(ctx, a, 0, ix, src, &r), CT_ERR_INDEX);
    ct_tensor *small = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){2, 2}, &small));
    CHECK_ST(ct_scatter(ctx, a, 1, ix, small, &r), CT_ERR_SHAPE);
    CHECK(r == NULL);
    ct_tensor *all[] = {a, src, ix, s2, small};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(all[i]);
}

TEST(index_add) {
    for (int di = 1; di < TU_NALL; di++) /* bool has no addition */
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -2; dim < 2; dim++) {
                int d = dim < 0 ? dim + 2 : dim;
                int64_t sh[2] = {4, 5}, ssh[2] = {4, 5}, L[1] = {7};
                ssh[d] = 7;
                double *v = NULL, *iv = NULL, *sv = NULL;
                ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, sh, mode, -9, 9, &v);
                ct_tensor *ix = make_index(mode ? CT_INT32 : CT_INT64, 1, L, sh[d], 0, &iv);
                ct_tensor *src = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, ssh, mode, -9, 9, &sv);
                double alpha = TU_ALL_DTYPES[di] == CT_UINT8 ? 1 : 2;
                ct_tensor *r = NULL;
                CHECK_OK(ct_index_add(ctx, a, dim, ix, src, alpha, &r));
                double *want = malloc(20 * sizeof(double));
                memcpy(want, v, 20 * sizeof(double));
                int64_t idx[2];
                for (int64_t q = 0; q < ssh[0] * ssh[1]; q++) {
                    tu_unravel(q, 2, ssh, idx);
                    char tmp[8];
                    tu_set(tmp, TU_ALL_DTYPES[di], 0,
                           alpha * sv[q]); /* alpha * source in the dtype */
                    double s = tu_get(tmp, TU_ALL_DTYPES[di], 0);
                    idx[d] = (int64_t)iv[idx[d]];
                    int64_t k = idx[0] * 5 + idx[1];
                    double sum = want[k] + s;
                    if (TU_ALL_DTYPES[di] <= CT_INT64)
                        sum = (double)(int64_t)((uint64_t)(int64_t)want[k] + (uint64_t)(int64_t)s);
                    tu_set(tmp, TU_ALL_DTYPES[di], 0, sum);
                    want[k] = tu_get(tmp, TU_ALL_DTYPES[di], 0);
                }
                double *g = tu_read(r);
                for (int k = 0; g && k < 20; k++)
                    CHECK_MSG(tu_same_val(g[k], want[k]),
                              "index_add %s dim %d mode %d [%d]: %g vs %g",
                              ct_dtype_name(TU_ALL_DTYPES[di]), dim, mode, k, g[k], want[k]);
                free(g), free(want), free(v), free(iv), free(sv);
                ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(ix),
                    ct_tensor_release(src);
            }
    ct_tensor *a = NULL, *ix = NULL, *src = NULL, *r = NULL, *b = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 2, (int64_t[]){3, 4}, &a));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, (int64_t[]){2}, &ix));
    CHECK_OK(ct_tensor_ones(ctx, CT_INT32, 2, (int64_t[]){2, 4}, &src));
    /* alpha converts to an integer self's dtype as torch's checked conversion: 2.5 -> 2 (both
     * index entries are row 0: 2 + 2 there), out of range is an error */
    CHECK_OK(ct_index_add(ctx, a, 0, ix, src, 2.5, &r));
    double *g = tu_read(r);
    for (int k = 0; g && k < 12; k++)
        CHECK_MSG(g[k] == (k < 4 ? 4 : 0), "index_add(int32, alpha 2.5)[%d] = %g", k, g[k]);
    free(g), ct_tensor_release(r), r = NULL;
    CHECK_ST(ct_index_add(ctx, a, 0, ix, src, 3e9, &r), CT_ERR_INVALID_ARG);
    CHECK(r == NULL && strstr(ct_ctx_last_error(ctx), "overflow") != NULL);
    CHECK_ST(ct_index_add(ctx, a, 1, ix, src, 1, &r), CT_ERR_SHAPE);
    CHECK_OK(ct_tensor_zeros(ctx, CT_BOOL, 2, (int64_t[]){3, 4}, &b));
    CHECK_ST(ct_index_add(ctx, b, 0, ix, src, 1, &r), CT_ERR_DTYPE); /* source int32 */
    CHECK(r == NULL);
    /* bool: source OR-ed in where alpha is nonzero (torch: bool + bool * bool(alpha)) */
    ct_tensor *bs = NULL, *bi = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 2, (int64_t[]){2, 4}, &bs));
    CHECK_OK(ct_tensor_arange(ctx, CT_INT64, 1, 3, 1, &bi));
    for (int k = 0; k < 2; k++) {
        CHECK_OK(ct_index_add(ctx, b, 0, bi, bs, k ? 0.5 : 0.0, &r));
        g = tu_read(r);
        for (int e = 0; g && e < 12; e++)
            CHECK_MSG(g[e] == (k && e >= 4), "bool index_add alpha %g [%d] = %g", k ? 0.5 : 0.0, e,
                      g[e]);
        free(g), ct_tensor_release(r), r = NULL;
    }
    ct_tensor_release(bs), ct_tensor_release(bi);
    ct_tensor_release(a), ct_tensor_release(ix), ct_tensor_release(src), ct_tensor_release(b);
}

/* index_add with a fractional alpha as torch 1.13: a self of 2+ dims adds each source slice with
 * add_(alpha), fma(alpha, source, self) rounded once (alpha in the dtype), in index order; a 1-d
 * self rounds alpha * source first. References: C fmaf / fma and the two-rounding sum. */
TEST(index_add_alpha_rounding_as_torch) {
    for (int f64 = 0; f64 < 2; f64++)
        for (int nd = 1; nd <= 3; nd++) {
            const ct_dtype dt = f64 ? CT_FLOAT64 : CT_FLOAT32;
            const int64_t sh[3] = {5, 6, 7}, L = 9, inner = nd == 1 ? 1 : nd == 2 ? 6 : 42;
            int64_t ssh[3] = {L, 6, 7};
            const double alpha = 0.3;
            double *v = NULL, *sv = NULL, *iv = NULL;
            ct_tensor *a = tu_make(ctx, &rng, dt, nd, sh, 0, -4, 4, &v);
            ct_tensor *src = tu_make(ctx, &rng, dt, nd, ssh, 0, -4, 4, &sv);
            ct_tensor *ix = make_index(CT_INT64, 1, &L, 5, 0, &iv); /* repeats: 9 into 5 */
            ct_tensor *r = NULL;
            CHECK_OK(ct_index_add(ctx, a, 0, ix, src, alpha, &r));
            double *g = tu_read(r);
            int differs = 0; /* elements where the other rounding would give other bits */
            for (int64_t j = 0; g && j < inner; j++)
                for (int64_t row = 0; row < 5; row++) {
                    double w = v[row * inner + j], u = w;
                    for (int64_t i = 0; i < L; i++) {
                        if ((int64_t)iv[i] != row) continue;
                        const double x = sv[i * inner + j];
                        if (f64) {
                            volatile double p = alpha * x; /* rounded: no contraction */
                            w = nd > 1 ? fma(alpha, x, w) : w + p;
                            u = nd > 1 ? u + p : fma(alpha, x, u);
                        } else {
                            const float af = (float)alpha, xf = (float)x;
                            volatile float p = af * xf;
                            w = nd > 1 ? fmaf(af, xf, (float)w) : (float)((float)w + p);
                            u = nd > 1 ? (float)((float)u + p) : fmaf(af, xf, (float)u);
                        }
                    }
                    differs += w != u;
                    CHECK_MSG(g[row * inner + j] == w, "index_add %s %d-d [%lld, %lld]: %a vs %a",
                              ct_dtype_name(dt), nd, (long long)row, (long long)j,
                              g[row * inner + j], w);
                }
            if (nd > 1)
                CHECK_MSG(differs > 0, "%s %d-d: no element tells the roundings apart",
                          ct_dtype_name(dt), nd);
            free(g), free(v), free(sv), free(iv);
            ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(src),
                ct_tensor_release(ix);
        }
}

TEST(masked_fill_and_one_hot) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++) {
            int64_t sh[2] = {4, 6}, msh[1] = {6};
            double *v = NULL, *mv = NULL;
            ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, sh, mode, -20, 20, &v);
            ct_tensor *m = tu_make(ctx, &rng, CT_BOOL, 1, msh, mode == 2 ? 2 : 0, 0, 1, &mv);
            ct_tensor *r = NULL;
            double fillv = TU_ALL_DTYPES[di] == CT_BOOL    ? 1
                           : TU_ALL_DTYPES[di] == CT_UINT8 ? 200
                                                           : -3;
            CHECK_OK(ct_masked_fill(ctx, a, m, fillv, &r));
            CHECK(tu_same_shape(r, 2, sh) && ct_tensor_dtype(r) == TU_ALL_DTYPES[di]);
            double *g = tu_read(r);
            for (int k = 0; g && k < 24; k++)
                CHECK(tu_same_val(g[k], mv[k % 6] ? fillv : v[k]));
            free(g), free(v), free(mv);
            ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(m);
        }
    /* NaN fill on floats; errors */
    ct_tensor *a = NULL, *m = NULL, *r = NULL, *im = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &a));
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 1, (int64_t[]){3}, &m));
    CHECK_OK(ct_masked_fill(ctx, a, m, NAN, &r));
    double *g = tu_read(r);
    CHECK(g && isnan(g[0]) && isnan(g[2]));
    free(g);
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_ones(ctx, CT_INT32, 1, (int64_t[]){3}, &im));
    CHECK_ST(ct_masked_fill(ctx, a, im, 1, &r), CT_ERR_DTYPE);
    ct_tensor_release(a), ct_tensor_release(m), ct_tensor_release(im);

    /* one_hot: (2, 3) classes in [0, 4) -> (2, 3, 4) */
    long long cls[6] = {0, 3, 1, 1, 2, 0};
    ct_tensor *c = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, cls, CT_INT64, 2, (int64_t[]){2, 3}, &c));
    for (int nc = -1; nc <= 6; nc += 7) {
        int64_t want_c = nc < 0 ? 4 : nc;
        CHECK_OK(ct_one_hot(ctx, c, nc, &r));
        CHECK(tu_same_shape(r, 3, (int64_t[]){2, 3, want_c}) && ct_tensor_dtype(r) == CT_INT64);
        g = tu_read(r);
        for (int64_t k = 0; g && k < 6 * want_c; k++)
            CHECK(g[k] == (cls[k / want_c] == k % want_c));
        free(g);
        ct_tensor_release(r);
    }
    CHECK_ST(ct_one_hot(ctx, c, 3, &r), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "[0, 3)") != NULL);
    cls[2] = -1;
    ct_tensor *neg = NULL, *i32 = NULL, *e = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, cls, CT_INT64, 1, (int64_t[]){6}, &neg));
    CHECK_ST(ct_one_hot(ctx, neg, 5, &r), CT_ERR_INDEX);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, (int64_t[]){2}, &i32));
    CHECK_ST(ct_one_hot(ctx, i32, 5, &r), CT_ERR_DTYPE);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, (int64_t[]){0}, &e));
    CHECK_ST(ct_one_hot(ctx, e, -1, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_one_hot(ctx, e, 0, &r), CT_ERR_INVALID_ARG); /* torch: cannot infer, as -1 */
    CHECK_OK(ct_one_hot(ctx, e, 3, &r));
    CHECK(tu_same_shape(r, 2, (int64_t[]){0, 3}));
    ct_tensor_release(r);
    ct_tensor_release(c), ct_tensor_release(neg), ct_tensor_release(i32), ct_tensor_release(e);
}

int main(void) {
    ct_ctx_options o = {.size = sizeof o};
    if (ct_ctx_create(&o, &ctx) != CT_OK) return 1;
    RUN(index_select_and_gather);
    RUN(large_gather_streams);
    RUN(gather_rows_isa_loop);
    RUN(index_errors_and_edges);
    RUN(scatter_and_scatter_add);
    RUN(index_add);
    RUN(index_add_alpha_rounding_as_torch);
    RUN(masked_fill_and_one_hot);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

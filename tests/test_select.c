/* nonzero, masked_select and unique against naive loops (every dtype, strided, broadcast masks,
 * 0-d, empty, NaN and -0.0), unique's inverse and counts reconstructing the input, addmm /
 * baddbmm against naive products (beta = 0 ignoring NaN, broadcasting input), gradients of
 * masked_select and addmm, the capture behaviour of the data-dependent ops, and unique along a dim
 * (against a naive O(R^2) ranking of the slices, and torch 1.13's answers where its order is
 * decided by std::sort: NaN, -0.0). */
#include "test_util.h"

#include "data/unique_dim_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 31337;

TEST(nonzero_and_masked_select) {
    int64_t shape[3] = {3, 4, 5};
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++) {
            ct_dtype dt = TU_ALL_DTYPES[di];
            double *v;
            ct_tensor *t = tu_make(ctx, &rng, dt, 3, shape, mode, -1, 2, &v), *nz = NULL;
            CHECK_OK(ct_nonzero(ctx, t, &nz));
            double *g = nz ? tu_read(nz) : NULL;
            int64_t k = 0;
            for (int64_t i = 0; i < 60; i++) {
                if (v[i] == 0) continue;
                int64_t idx[3];
                tu_unravel(i, 3, shape, idx);
                for (int d = 0; g && d < 3; d++)
                    CHECK_MSG(g[k * 3 + d] == (double)idx[d], "nonzero %s [%lld]",
                              ct_dtype_name(dt), (long long)k);
                k++;
            }
            int64_t want_shape[2] = {k, 3};
            CHECK(nz && tu_same_shape(nz, 2, want_shape) && ct_tensor_dtype(nz) == CT_INT64);
            free(g);
            ct_tensor_release(nz);
            /* masked_select with a (4, 1) mask broadcast over t */
            uint8_t mb[4] = {1, 0, 1, 1};
            int64_t ms[2] = {4, 1};
            ct_tensor *m = NULL, *sel = NULL;
            CHECK_OK(ct_tensor_from_host(ctx, mb, CT_BOOL, 2, ms, &m));
            CHECK_OK(ct_masked_select(ctx, t, m, &sel));
            g = sel ? tu_read(sel) : NULL;
            int64_t j = 0;
            for (int64_t i = 0; g && i < 60; i++)
                if (mb[(i / 5) % 4]) {
                    CHECK(tu_same_val(g[j], v[i]));
                    j++;
                }
            CHECK(sel && ct_tensor_numel(sel) == 45 && ct_tensor_dtype(sel) == dt);
            free(g), free(v);
            ct_tensor_release(m), ct_tensor_release(sel), ct_tensor_release(t);
        }
    /* 0-d and empty */
    float one = 3, zero = 0;
    ct_tensor *t = NULL, *nz = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, &one, CT_FLOAT32, 0, NULL, &t));
    CHECK_OK(ct_nonzero(ctx, t, &nz));
    CHECK(ct_tensor_ndim(nz) == 2 && ct_tensor_shape(nz)[0] == 1 && ct_tensor_shape(nz)[1] == 0);
    ct_tensor_release(nz), ct_tensor_release(t);
    CHECK_OK(ct_tensor_from_host(ctx, &zero, CT_FLOAT32, 0, NULL, &t));
    CHECK_OK(ct_nonzero(ctx, t, &nz));
    CHECK(ct_tensor_shape(nz)[0] == 0 && ct_tensor_shape(nz)[1] == 0);
    ct_tensor_release(nz);
    ct_tensor *bad = NULL;
    CHECK_ST(ct_masked_select(ctx, t, t, &bad), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "mask must be bool") != NULL);
    ct_tensor_release(t);
}

TEST(unique_values_inverse_counts) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++) {
            ct_dtype dt = TU_ALL_DTYPES[di];
            int64_t shape[2] = {6, 7};
            double *v;
            ct_tensor *t = tu_make(ctx, &rng, dt, 2, shape, mode, -3, 4, &v), *u = NULL,
                      *inv = NULL, *cnt = NULL;
            CHECK_OK(ct_unique(ctx, t, true, &u, &inv, &cnt));
            double *uv = tu_read(u), *iv = tu_read(inv), *cv = tu_read(cnt);
            int64_t nu = ct_tensor_numel(u), total = 0;
            for (int64_t i = 0; i + 1 < nu; i++)
                CHECK_MSG(uv[i] < uv[i + 1], "unique %s not strictly increasing",
                          ct_dtype_name(dt));
            for (int64_t i = 0; i < nu; i++) {
                int64_t c = 0;
                for (int64_t k = 0; k < 42; k++)
                    c += v[k] == uv[i];
                CHECK(c == (int64_t)cv[i] && c > 0);
                total += (int64_t)cv[i];
            }
            CHECK(total == 42 && tu_same_shape(inv, 2, shape));
            for (int64_t k = 0; k < 42; k++) /* values[inverse] rebuilds t */
                CHECK(uv[(int64_t)iv[k]] == v[k]);
            free(uv), free(iv), free(cv), free(v);
            ct_tensor_release(t), ct_tensor_release(u), ct_tensor_release(inv),
                ct_tensor_release(cnt);
        }
    /* NaN: each its own value (torch 1.13 reports counts 0 and inverse 0 for them); -0.0 == 0.0 */
    float x[6] = {NAN, 1, NAN, 1, 0.0f, -0.0f};
    int64_t six = 6;
    ct_tensor *t = NULL, *u = NULL, *inv = NULL, *cnt = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, x, CT_FLOAT32, 1, &six, &t));
    CHECK_OK(ct_unique(ctx, t, true, &u, &inv, &cnt));
    float uvals[4];
    int64_t iv[6], cv[4];
    CHECK(ct_tensor_numel(u) == 4);
    CHECK_OK(ct_tensor_to_host(u, uvals, sizeof uvals));
    CHECK_OK(ct_tensor_to_host(inv, iv, sizeof iv));
    CHECK_OK(ct_tensor_to_host(cnt, cv, sizeof cv));
    CHECK(uvals[0] == 0 && uvals[1] == 1 && isnan(uvals[2]) && isnan(uvals[3]));
    CHECK(cv[0] == 2 && cv[1] == 2 && cv[2] == 1 && cv[3] == 1);
    CHECK(iv[0] == 2 && iv[1] == 1 && iv[2] == 3 && iv[4] == 0 && iv[5] == 0);
    ct_tensor_release(u), ct_tensor_release(inv), ct_tensor_release(cnt);
    CHECK_OK(ct_unique(ctx, t, true, &u, NULL, NULL)); /* optional outputs */
    ct_tensor_release(u), ct_tensor_release(t);
    int64_t e = 0;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, &e, &t));
    CHECK_OK(ct_unique(ctx, t, true, &u, &inv, &cnt));
    CHECK(ct_tensor_numel(u) == 0 && ct_tensor_numel(cnt) == 0 && ct_tensor_numel(inv) == 0);
    ct_tensor_release(u), ct_tensor_release(inv), ct_tensor_release(cnt), ct_tensor_release(t);
}

TEST(addmm_baddbmm) {
    for (int batched = 0; batched < 2; batched++)
        for (int bi = 0; bi < 3; bi++) {
            double beta = bi == 0 ? 0 : bi == 1 ? 1 : -0.5, alpha = bi == 2 ? 2.5 : 1;
            int64_t B = 3, n = 4, m = 5, p = 6;
            int64_t as[3] = {B, n, m}, bs[3] = {B, m, p}, is[2] = {1, p};
            double *av, *bv, *iv;
            ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT64, batched ? 3 : 2, batched ? as : as + 1, 1,
                                   -1, 1, &av);
            ct_tensor *b = tu_make(ctx, &rng, CT_FLOAT64, batched ? 3 : 2, batched ? bs : bs + 1, 0,
                                   -1, 1, &bv);
            ct_tensor *in = tu_make(ctx, &rng, CT_FLOAT64, 2, is, 0, -1, 1, &iv), *r = NULL;
            if (beta == 0) { /* beta = 0 ignores input, even NaN */
                ct_tensor_release(in);
                CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, is, NAN, &in));
            }
            CHECK_OK(batched ? ct_baddbmm(ctx, in, a, b, beta, alpha, &r)
                             : ct_addmm(ctx, in, a, b, beta, alpha, &r));
            double *g = tu_read(r);
            for (int64_t q = 0; q < (batched ? B : 1); q++)
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = 0; j < p; j++) {
                        double s = 0;
                        for (int64_t k = 0; k < m; k++)
                            s += av[(q * n + i) * m + k] * bv[(q * m + k) * p + j];
                        double want = alpha * s + (beta == 0 ? 0 : beta * iv[j]);
                        double got = g[(q * n + i) * p + j];
                        CHECK_MSG(fabs(got - want) < 1e-12, "%s beta %g: %g vs %g",
                                  batched ? "baddbmm" : "addmm", beta, got, want);
                    }
            free(g), free(av), free(bv), free(iv);
            ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(in), ct_tensor_release(r);
        }
    int64_t s23[2] = {2, 3}, s45[2] = {4, 5};
    ct_tensor *a = NULL, *bad = NULL, *r = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s23, &a));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s45, &bad));
    CHECK_ST(ct_addmm(ctx, bad, a, a, 1, 1, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_baddbmm(ctx, a, a, a, 1, 1, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "must be 3-d") != NULL);
    ct_tensor_release(a), ct_tensor_release(bad);
}

static ct_tensor *MASK, *M2;
static ct_status f_masked(const ct_tensor *x, ct_tensor **y) {
    return ct_masked_select(ctx, x, MASK, y);
}
static ct_status f_addmm(const ct_tensor *x, ct_tensor **y) {
    return ct_addmm(ctx, x, x, M2, 0.5, 2.0, y);
}
TEST(gradients_and_capture) {
    uint8_t mb[3] = {1, 0, 1};
    int64_t ms[1] = {3}, xs[2] = {3, 3};
    CHECK_OK(ct_tensor_from_host(ctx, mb, CT_BOOL, 1, ms, &MASK));
    double m2[9] = {1, 2, 0, -1, 0.5, 3, 2, -2, 1};
    CHECK_OK(ct_tensor_from_host(ctx, m2, CT_FLOAT64, 2, xs, &M2));
    tu_gradcheck(ctx, &rng, "masked_select", f_masked, 2, xs);
    tu_gradcheck(ctx, &rng, "addmm", f_addmm, 2, xs);
    /* under capture the data-dependent ops fail (a host read) and invalidate the capture; addmm
     * records */
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 2, xs, 0, -1, 1, NULL), *y = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_addmm(ctx, x, x, M2, 1, 1, &y));
    ct_tensor *nz = NULL;
    CHECK_ST(ct_nonzero(ctx, x, &nz), CT_ERR_STATE);
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    ct_graph_free(g);
    ct_tensor_release(y), ct_tensor_release(x), ct_tensor_release(MASK), ct_tensor_release(M2);
}

/* Element j of slice r along dim d of x (nd-dim, C-order values v), the slice's elements in the
 * order torch compares them: those of x.transpose(0, d)[r], C order (dims 1..nd-1 of the
 * transpose: dim 0 stands where d was). */
static double ud_elem(const double *v, int nd, const int64_t *shape, int d, int64_t r, int64_t j) {
    int perm[CT_MAX_DIMS], rs[CT_MAX_DIMS];
    int64_t idx[CT_MAX_DIMS], rest[CT_MAX_DIMS], rsz[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        perm[i] = i;
    perm[0] = d, perm[d] = 0;
    for (int i = 1; i < nd; i++)
        rs[i - 1] = perm[i], rsz[i - 1] = shape[perm[i]];
    tu_unravel(j, nd - 1, rsz, rest);
    idx[d] = r;
    for (int i = 0; i < nd - 1; i++)
        idx[rs[i]] = rest[i];
    return v[tu_ravel(nd, shape, idx)];
}
static int ud_cmp(const double *v, int nd, const int64_t *shape, int d, int64_t C, int64_t a,
                  int64_t b) {
    for (int64_t j = 0; j < C; j++) {
        double x = ud_elem(v, nd, shape, d, a, j), y = ud_elem(v, nd, shape, d, b, j);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

/* unique_dim and unique_consecutive_dim of small-integer data (many equal slices) in every dtype,
 * contiguous and transposed, every dim, against a naive ranking: the group of slice r is the
 * number of distinct slices below it (sorted) or the runs before it (consecutive); its values are
 * the group's first slice. */
TEST(unique_dim_naive) {
    const int64_t shapes[4][3] = {{7, 3, 2}, {5, 4, 1}, {9, 2, 2}, {3, 1, 6}};
    for (int di = 0; di < TU_NALL; di++)
        for (int si = 0; si < 4; si++)
            for (int mode = 0; mode < 2; mode++)
                for (int d = -3; d < 3; d++)
                    for (int cons = 0; cons < 2; cons++) {
                        const ct_dtype dt = TU_ALL_DTYPES[di];
                        const int64_t *shape = shapes[si];
                        const int dd = d < 0 ? d + 3 : d;
                        /* values in {-1, 0, 1} ({0, 1} for bool, uint8), so slices repeat;
                         * mode 1: a transposed view of the last two dims */
                        int64_t bs[3] = {shape[0], shape[1], shape[2]}, n = bs[0] * bs[1] * bs[2];
                        if (mode) bs[1] = shape[2], bs[2] = shape[1];
                        void *buf = malloc((size_t)n * 8);
                        const int lo = dt == CT_BOOL || dt == CT_UINT8 ? 0 : -1;
                        for (int64_t i = 0; i < n; i++)
                            tu_set(buf, dt, i, lo + (int)(ct_t_uniform(&rng) * (2 - lo)));
                        ct_tensor *base = NULL, *t = NULL;
                        CHECK_OK(ct_tensor_from_host(ctx, buf, dt, 3, bs, &base));
                        free(buf);
                        if (mode)
                            CHECK_OK(ct_tensor_transpose(ctx, base, 1, 2, &t));
                        else
                            t = ct_tensor_retain(base);
                        ct_tensor_release(base);
                        double *v = tu_read(t);
                        const int64_t R = shape[dd], C = ct_tensor_numel(t) / R;
                        ct_tensor *u = NULL, *inv = NULL, *cnt = NULL;
                        CHECK_OK(cons ? ct_unique_consecutive_dim(ctx, t, d, &u, &inv, &cnt)
                                      : ct_unique_dim(ctx, t, d, true, &u, &inv, &cnt));
                        int64_t want_inv[16], want_cnt[16] = {0}, first[16], ng = 0;
                        for (int64_t r = 0; r < R; r++) {
                            int64_t g = 0;
                            if (cons) {
                                g = r == 0 ? 0
                                           : want_inv[r - 1] +
                                                 (ud_cmp(v, 3, shape, dd, C, r - 1, r) != 0);
                            } else {
                                for (int64_t q = 0; q < R; q++) { /* distinct slices below r */
                                    bool firstocc = true;
                                    for (int64_t p = 0; p < q && firstocc; p++)
                                        firstocc = ud_cmp(v, 3, shape, dd, C, p, q) != 0;
                                    g += firstocc && ud_cmp(v, 3, shape, dd, C, q, r) < 0;
                                }
                            }
                            want_inv[r] = g;
                            if (want_cnt[g]++ == 0) first[g] = r;
                            if (g + 1 > ng) ng = g + 1;
                        }
                        int64_t ushape[3] = {shape[0], shape[1], shape[2]};
                        ushape[dd] = ng;
                        CHECK_MSG(tu_same_shape(u, 3, ushape) && ct_tensor_dtype(u) == dt,
                                  "unique_dim %s dim %d cons %d: shape", ct_dtype_name(dt), d,
                                  cons);
                        double *gu = u ? tu_read(u) : NULL, *gi = inv ? tu_read(inv) : NULL,
                               *gc = cnt ? tu_read(cnt) : NULL;
                        bool ok = gu && gi && gc && ct_tensor_numel(inv) == R &&
                                  ct_tensor_numel(cnt) == ng;
                        for (int64_t r = 0; ok && r < R; r++)
                            ok = gi[r] == (double)want_inv[r];
                        for (int64_t g = 0; ok && g < ng; g++) {
                            ok = gc[g] == (double)want_cnt[g];
                            for (int64_t j = 0; ok && j < C; j++)
                                ok = tu_same_val(ud_elem(gu, 3, ushape, dd, g, j),
                                                 ud_elem(v, 3, shape, dd, first[g], j));
                        }
                        CHECK_MSG(ok, "unique_dim %s shape %d mode %d dim %d cons %d",
                                  ct_dtype_name(dt), si, mode, d, cons);
                        free(gu), free(gi), free(gc), free(v);
                        ct_tensor_release(u), ct_tensor_release(inv), ct_tensor_release(cnt);
                        ct_tensor_release(t);
                    }
}

/* torch 1.13's answers (scripts/gen_unique_dim_ref.py): slices with NaN and -0.0, bool, bfloat16,
 * int16, uint8, int64 beyond 2^53, zero-size slices; then the errors and the refused backward. */
TEST(unique_dim_torch) {
    for (size_t k = 0; k < sizeof UD / sizeof UD[0]; k++) {
        ct_tensor *x = NULL, *u = NULL, *inv = NULL, *cnt = NULL;
        int64_t n = 1;
        for (int i = 0; i < UD[k].nd; i++)
            n *= UD[k].shape[i];
        void *buf = malloc((size_t)(n ? n : 1) * 8);
        for (int64_t i = 0; i < n; i++)
            if (UD[k].dt == CT_INT64)
                ((int64_t *)buf)[i] = ((const int64_t *)UD[k].x)[i];
            else
                tu_set(buf, UD[k].dt, i, ((const double *)UD[k].x)[i]);
        CHECK_OK(ct_tensor_from_host(ctx, buf, UD[k].dt, UD[k].nd, UD[k].shape, &x));
        free(buf);
        CHECK_OK(UD[k].consecutive ? ct_unique_consecutive_dim(ctx, x, UD[k].dim, &u, &inv, &cnt)
                                   : ct_unique_dim(ctx, x, UD[k].dim, false, &u, &inv, &cnt));
        CHECK_MSG(tu_same_shape(u, UD[k].vnd, UD[k].vshape), "unique_dim case %zu: shape", k);
        bool ok =
            u && ct_tensor_numel(cnt) == UD[k].ng &&
            ct_tensor_numel(inv) == UD[k].shape[UD[k].dim < 0 ? UD[k].dim + UD[k].nd : UD[k].dim];
        const int64_t nv = u ? ct_tensor_numel(u) : 0;
        if (ok && UD[k].dt == CT_INT64) {
            int64_t *g = malloc((size_t)(nv ? nv : 1) * 8);
            ok = ct_tensor_to_host(u, g, (size_t)nv * 8) == CT_OK;
            for (int64_t i = 0; ok && i < nv; i++)
                ok = g[i] == ((const int64_t *)UD[k].v)[i];
            free(g);
        } else if (ok) {
            double *g = tu_read(u);
            for (int64_t i = 0; ok && i < nv; i++)
                ok = tu_same_val(g[i], ((const double *)UD[k].v)[i]);
            free(g);
        }
        double *gi = ok ? tu_read(inv) : NULL, *gc = ok ? tu_read(cnt) : NULL;
        for (int64_t i = 0; ok && i < ct_tensor_numel(inv); i++)
            ok = gi[i] == (double)UD[k].inv[i];
        for (int64_t i = 0; ok && i < UD[k].ng; i++)
            ok = gc[i] == (double)UD[k].cnt[i];
        CHECK_MSG(ok, "unique_dim case %zu (%s, dim %d, consecutive %d) differs from torch", k,
                  ct_dtype_name(UD[k].dt), UD[k].dim, UD[k].consecutive);
        free(gi), free(gc);
        ct_tensor_release(x), ct_tensor_release(u), ct_tensor_release(inv);
        ct_tensor_release(cnt);
    }
    /* errors, as torch: a 0-d input, dim out of range, complex, zero-size dims not selected */
    float f = 1;
    ct_tensor *t = NULL, *u = NULL, *inv = NULL, *cnt = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, &f, CT_FLOAT32, 0, NULL, &t));
    CHECK_ST(ct_unique_dim(ctx, t, 0, true, &u, NULL, NULL), CT_ERR_INDEX);
    CHECK(u == NULL && strstr(ct_ctx_last_error(ctx), "no dimensions") != NULL);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (const int64_t[]){2, 3}, &t));
    CHECK_ST(ct_unique_dim(ctx, t, 2, true, &u, &inv, &cnt), CT_ERR_INDEX);
    CHECK(u == NULL && inv == NULL && cnt == NULL);
    CHECK_ST(ct_unique_consecutive_dim(ctx, t, -3, &u, NULL, NULL), CT_ERR_INDEX);
    CHECK_ST(ct_unique_dim(ctx, t, 0, true, NULL, NULL, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_zeros(ctx, CT_COMPLEX64, 1, (const int64_t[]){3}, &t));
    CHECK_ST(ct_unique_dim(ctx, t, 0, true, &u, NULL, NULL), CT_ERR_DTYPE);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (const int64_t[]){3, 0}, &t));
    CHECK_ST(ct_unique_dim(ctx, t, 0, true, &u, NULL, NULL), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "aren't selected") != NULL);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (const int64_t[]){0, 0}, &t));
    CHECK_ST(ct_unique_consecutive_dim(ctx, t, 1, &u, NULL, NULL), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "more than one") != NULL);
    ct_tensor_release(t);
    /* backward is refused (torch: "the derivative for 'unique_dim' is not implemented") */
    double xv[4] = {1, 2, 1, 2};
    ct_tensor *s = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, 2, (const int64_t[]){2, 2}, &t));
    CHECK_OK(ct_tensor_set_requires_grad(t, true));
    for (int cons = 0; cons < 2; cons++) {
        CHECK_OK(cons ? ct_unique_consecutive_dim(ctx, t, 0, &u, NULL, NULL)
                      : ct_unique_dim(ctx, t, 0, true, &u, NULL, NULL));
        CHECK(u && ct_tensor_requires_grad(u) && ct_tensor_shape(u)[0] == 1);
        CHECK_OK(ct_sum(ctx, u, 0, NULL, false, &s));
        CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
        CHECK(strstr(ct_ctx_last_error(ctx), cons ? "'unique_consecutive'" : "'unique_dim'") !=
              NULL);
        CHECK(ct_tensor_grad(t) == NULL);
        ct_tensor_release(u), ct_tensor_release(s);
        u = s = NULL;
    }
    ct_tensor_release(t);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(nonzero_and_masked_select);
    RUN(unique_values_inverse_counts);
    RUN(addmm_baddbmm);
    RUN(gradients_and_capture);
    RUN(unique_dim_naive);
    RUN(unique_dim_torch);
    ct_ctx_free(ctx);
    return ct_test_end();
}

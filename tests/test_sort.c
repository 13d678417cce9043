/* sort, argsort, topk, kthvalue against a naive stable insertion sort written here (NaN largest,
 * -0.0 equal to 0.0, ties in input order), over every compute dtype, strided inputs, every dim
 * (negative too), many ties, special values, zero-size dims, 0-d, and the error paths; all, any
 * and count_nonzero against naive counts; argmin, max_dim, min_dim against first-occurrence scans.
 */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 77;

/* b goes strictly before a */
static bool before(double b, double a, bool desc) {
    bool an = isnan(a), bn = isnan(b);
    if (an || bn) return desc ? (bn && !an) : (an && !bn);
    return desc ? b > a : b < a;
}
/* Stable order of n values read with stride st from v (insertion sort). */
static void ref_order(const double *v, int64_t st, int64_t n, bool desc, int64_t *ord) {
    for (int64_t i = 0; i < n; i++) {
        int64_t j = i;
        while (j > 0 && before(v[i * st], v[ord[j - 1] * st], desc)) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = i;
    }
}

/* Check values / indices (shape `sh` with `kk` entries along d) against the reference. */
static void check_sorted(const char *what, ct_dtype dt, const double *v, int nd, const int64_t *sh,
                         int d, bool desc, int64_t kk, const ct_tensor *vals,
                         const ct_tensor *idx) {
    int64_t n = sh[d], inner = 1, outer = 1;
    for (int k = d + 1; k < nd; k++)
        inner *= sh[k];
    for (int k = 0; k < d; k++)
        outer *= sh[k];
    double *gv = vals ? tu_read(vals) : NULL, *gi = idx ? tu_read(idx) : NULL;
    int64_t *ord = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int bad = 0;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            const double *row = v + o * n * inner + in;
            ref_order(row, inner, n, desc, ord);
            for (int64_t j = 0; j < kk; j++) {
                int64_t q = o * kk * inner + j * inner + in;
                bool ok = (!gv || tu_same_val(gv[q], row[ord[j] * inner])) &&
                          (!gi || gi[q] == (double)ord[j]);
                if (!ok && bad++ < 3)
                    CHECK_MSG(0, "%s %s dim %d desc %d: [%lld] got %g (index %g), want %g (%lld)",
                              what, ct_dtype_name(dt), d, desc, (long long)q, gv ? gv[q] : 0,
                              gi ? gi[q] : -1, row[ord[j] * inner], (long long)ord[j]);
            }
        }
    free(gv), free(gi), free(ord);
}

TEST(sort_argsort_topk_every_dtype) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -3; dim < 3; dim++) {
                int d = dim < 0 ? dim + 3 : dim;
                int64_t sh[3] = {3, 17, 6};
                double *v = NULL;
                /* a small range: many ties, so stability matters */
                ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 3, sh, mode, -4, 4, &v);
                for (int desc = 0; desc < 2; desc++) {
                    ct_tensor *sv = NULL, *si = NULL, *ai = NULL, *tv = NULL, *ti = NULL;
                    CHECK_OK(ct_sort(ctx, a, dim, desc, true, &sv, &si));
                    CHECK(ct_tensor_is_contiguous(sv) && ct_tensor_dtype(si) == CT_INT64);
                    check_sorted("sort", TU_ALL_DTYPES[di], v, 3, sh, d, desc, sh[d], sv, si);
                    CHECK_OK(ct_argsort(ctx, a, dim, desc, &ai));
                    check_sorted("argsort", TU_ALL_DTYPES[di], v, 3, sh, d, desc, sh[d], NULL, ai);
                    int64_t k = sh[d] > 2 ? 2 : 1;
                    CHECK_OK(ct_topk(ctx, a, k, dim, desc, true, &tv, &ti));
                    CHECK(ct_tensor_shape(tv)[d] == k);
                    check_sorted("topk", TU_ALL_DTYPES[di], v, 3, sh, d, desc, k, tv, ti);
                    ct_tensor_release(tv), ct_tensor_release(ti);
                    /* k <= n/4 selects with the bounded heap (k = 0 included): same elements,
                     * same order, same tie-breaking as the full stable sort */
                    k = sh[d] / 4;
                    CHECK_OK(ct_topk(ctx, a, k, dim, desc, true, &tv, &ti));
                    CHECK(ct_tensor_shape(tv)[d] == k && ct_tensor_is_contiguous(ti));
                    check_sorted("topk heap", TU_ALL_DTYPES[di], v, 3, sh, d, desc, k, tv, ti);
                    ct_tensor_release(sv), ct_tensor_release(si), ct_tensor_release(ai);
                    ct_tensor_release(tv), ct_tensor_release(ti);
                }
                free(v);
                ct_tensor_release(a);
            }
}

TEST(special_values_and_kthvalue) {
    /* NaN largest, infinities in place, -0.0 ties 0.0 in input order */
    double vals[9] = {3, NAN, -INFINITY, 0.0, -0.0, INFINITY, NAN, -1, 0.0};
    const ct_dtype fdt[4] = {CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
    for (int f = 0; f < 4; f++) {
        char raw[72];
        for (int i = 0; i < 9; i++)
            tu_set(raw, fdt[f], i, vals[i]);
        int64_t n9[1] = {9};
        ct_tensor *a = NULL, *sv = NULL, *si = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, raw, fdt[f], 1, n9, &a));
        for (int desc = 0; desc < 2; desc++) {
            CHECK_OK(ct_sort(ctx, a, 0, desc, false, &sv, &si));
            check_sorted("sort special", fdt[f], vals, 1, n9, 0, desc, 9, sv, si);
            ct_tensor_release(sv), ct_tensor_release(si);
            for (int64_t k = 1; k <= 2; k++) { /* the heap path (k <= 9/4) with NaN, -0.0 */
                CHECK_OK(ct_topk(ctx, a, k, 0, desc, true, &sv, &si));
                check_sorted("topk heap special", fdt[f], vals, 1, n9, 0, desc, k, sv, si);
                ct_tensor_release(sv), ct_tensor_release(si);
            }
        }
        /* kthvalue: k-th smallest */
        for (int64_t k = 1; k <= 9; k++) {
            ct_tensor *kv = NULL, *ki = NULL;
            CHECK_OK(ct_kthvalue(ctx, a, k, -1, false, &kv, &ki));
            CHECK(ct_tensor_ndim(kv) == 0 && ct_tensor_ndim(ki) == 0);
            int64_t ord[9];
            ref_order(vals, 1, 9, false, ord);
            double gv = 0, gi = 0;
            CHECK_OK(ct_tensor_item(kv, &gv));
            CHECK_OK(ct_tensor_item(ki, &gi));
            CHECK(tu_same_val(gv, vals[ord[k - 1]]) && gi == (double)ord[k - 1]);
            ct_tensor_release(kv), ct_tensor_release(ki);
        }
        ct_tensor_release(a);
    }
    /* kthvalue along dim 0 of a strided (5, 4) with keepdim */
    int64_t sh[2] = {5, 4};
    double *v = NULL;
    ct_tensor *a = tu_make(ctx, &rng, CT_INT32, 2, sh, 1, -50, 50, &v), *kv = NULL, *ki = NULL;
    CHECK_OK(ct_kthvalue(ctx, a, 3, 0, true, &kv, &ki));
    CHECK(ct_tensor_ndim(kv) == 2 && ct_tensor_shape(kv)[0] == 1 && ct_tensor_shape(kv)[1] == 4);
    double *g = tu_read(kv), *gi = tu_read(ki);
    for (int c = 0; g && gi && c < 4; c++) {
        int64_t ord[5];
        ref_order(v + c, 4, 5, false, ord);
        CHECK(g[c] == v[ord[2] * 4 + c] && gi[c] == (double)ord[2]);
    }
    free(g), free(gi), free(v);
    ct_tensor_release(kv), ct_tensor_release(ki);
    /* errors and edges */
    CHECK_ST(ct_kthvalue(ctx, a, 0, 0, false, &kv, &ki), CT_ERR_INDEX);
    CHECK_ST(ct_kthvalue(ctx, a, 6, 0, false, &kv, &ki), CT_ERR_INDEX);
    CHECK_ST(ct_topk(ctx, a, 5, 1, true, true, &kv, &ki), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "size 4") != NULL);
    CHECK_ST(ct_sort(ctx, a, 2, false, false, &kv, &ki), CT_ERR_INDEX);
    CHECK_ST(ct_sort(ctx, a, 0, false, false, &kv, NULL), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_topk(ctx, a, 0, 1, true, true, &kv, &ki));
    CHECK(ct_tensor_numel(kv) == 0 && ct_tensor_shape(kv)[1] == 0);
    ct_tensor_release(kv), ct_tensor_release(ki);
    ct_tensor_release(a);
    ct_tensor *z = NULL, *s = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){0, 3}, &z));
    CHECK_OK(ct_sort(ctx, z, 1, false, false, &kv, &ki));
    CHECK(ct_tensor_numel(kv) == 0 && ct_tensor_shape(ki)[1] == 3);
    ct_tensor_release(kv), ct_tensor_release(ki);
    CHECK_OK(ct_sort(ctx, z, 0, true, false, &kv, &ki));
    ct_tensor_release(kv), ct_tensor_release(ki);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 2.5, &s));
    CHECK_OK(ct_sort(ctx, s, 0, false, false, &kv, &ki));
    double x = 0, xi = 1;
    CHECK(ct_tensor_ndim(kv) == 0);
    CHECK_OK(ct_tensor_item(kv, &x));
    CHECK_OK(ct_tensor_item(ki, &xi));
    CHECK(x == 2.5 && xi == 0);
    ct_tensor_release(kv), ct_tensor_release(ki);
    ct_tensor_release(z), ct_tensor_release(s);
}

/* A long row (merge passes over many widths) with int64 values beyond 2^53 (compared exactly). */
TEST(long_rows_exact_int64) {
    int64_t n = 1000;
    long long *raw = malloc((size_t)n * sizeof(long long));
    for (int64_t i = 0; i < n; i++)
        raw[i] = (long long)(((i * 7919) % 13) - 6) * (1LL << 55) + (i % 3);
    ct_tensor *a = NULL, *sv = NULL, *si = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, raw, CT_INT64, 1, &n, &a));
    CHECK_OK(ct_sort(ctx, a, 0, false, true, &sv, &si));
    long long *got = malloc((size_t)n * sizeof(long long)), *gi = malloc((size_t)n * 8);
    CHECK_OK(ct_tensor_to_host(sv, got, (size_t)n * 8));
    CHECK_OK(ct_tensor_to_host(si, gi, (size_t)n * 8));
    for (int64_t i = 1; i < n; i++) {
        CHECK(got[i - 1] <= got[i]);
        if (got[i - 1] == got[i]) CHECK(gi[i - 1] < gi[i]); /* stable */
    }
    for (int64_t i = 0; i < n; i++)
        CHECK(raw[gi[i]] == got[i]);
    free(raw), free(got), free(gi);
    ct_tensor_release(a), ct_tensor_release(sv), ct_tensor_release(si);
}

TEST(all_any_count_nonzero) {
    for (int di = 0; di < TU_NALL; di++)
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -2; dim < 2; dim++) {
                int d = dim < 0 ? dim + 2 : dim;
                int64_t sh[2] = {5, 7};
                double *v = NULL;
                ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, sh, mode, -1, 1.5, &v);
                ct_tensor *al = NULL, *an = NULL, *cn = NULL;
                CHECK_OK(ct_all(ctx, a, 1, &dim, false, &al));
                CHECK_OK(ct_any(ctx, a, 1, &dim, true, &an));
                CHECK_OK(ct_count_nonzero(ctx, a, 1, &dim, &cn));
                ct_dtype bt = TU_ALL_DTYPES[di] == CT_UINT8 ? CT_UINT8 : CT_BOOL;
                CHECK(ct_tensor_dtype(al) == bt && ct_tensor_dtype(an) == bt &&
                      ct_tensor_dtype(cn) == CT_INT64);
                CHECK(ct_tensor_ndim(al) == 1 && ct_tensor_ndim(an) == 2);
                double *ga = tu_read(al), *gn = tu_read(an), *gc = tu_read(cn);
                int64_t other = sh[1 - d];
                for (int64_t o = 0; ga && gn && gc && o < other; o++) {
                    int64_t cnt = 0;
                    for (int64_t j = 0; j < sh[d]; j++) {
                        double x = d == 0 ? v[j * 7 + o] : v[o * 7 + j];
                        cnt += x != 0; /* NaN != 0 */
                    }
                    CHECK(gc[o] == (double)cnt);
                    CHECK(ga[o] == (cnt == sh[d]));
                    CHECK(gn[o] == (cnt > 0));
                }
                free(ga), free(gn), free(gc), free(v);
                ct_tensor_release(a), ct_tensor_release(al), ct_tensor_release(an),
                    ct_tensor_release(cn);
            }
    /* empty reductions, NaN, all dims */
    ct_tensor *e = NULL, *r = NULL, *n = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){2, 0}, &e));
    int one = 1;
    CHECK_OK(ct_all(ctx, e, 1, &one, false, &r));
    double *g = tu_read(r);
    CHECK(g && g[0] == 1 && g[1] == 1);
    free(g);
    ct_tensor_release(r);
    CHECK_OK(ct_any(ctx, e, 0, NULL, false, &r));
    double x = 1;
    CHECK_OK(ct_tensor_item(r, &x));
    CHECK(x == 0);
    ct_tensor_release(r);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, (int64_t[]){3}, NAN, &n));
    CHECK_OK(ct_all(ctx, n, 0, NULL, false, &r));
    CHECK_OK(ct_tensor_item(r, &x));
    CHECK(x == 1);
    ct_tensor_release(r);
    CHECK_ST(ct_all(ctx, n, 1, (int[]){1}, false, &r), CT_ERR_INDEX);
    ct_tensor_release(e), ct_tensor_release(n);
}

/* argmin / max_dim / min_dim against naive first-occurrence scans (NaN wins, as torch). */
TEST(argmin_max_min_dim) {
    for (int di = 1; di < TU_NALL; di++) /* bool has no argmin */
        for (int mode = 0; mode < 3; mode++)
            for (int dim = -2; dim < 2; dim++) {
                int d = dim < 0 ? dim + 2 : dim;
                int64_t sh[2] = {6, 9};
                double *v = NULL;
                ct_tensor *a = tu_make(ctx, &rng, TU_ALL_DTYPES[di], 2, sh, mode, -3, 3, &v);
                ct_tensor *ai = NULL, *xv = NULL, *xi = NULL, *nv = NULL, *ni = NULL;
                CHECK_OK(ct_argmin(ctx, a, dim, false, &ai));
                CHECK_OK(ct_max_dim(ctx, a, dim, true, &xv, &xi));
                CHECK_OK(ct_min_dim(ctx, a, dim, false, &nv, &ni));
                CHECK(ct_tensor_ndim(xv) == 2 && ct_tensor_ndim(nv) == 1 &&
                      ct_tensor_dtype(ni) == CT_INT64);
                double *gai = tu_read(ai), *gxv = tu_read(xv), *gxi = tu_read(xi),
                       *gnv = tu_read(nv), *gni = tu_read(ni);
                for (int64_t o = 0; gai && gxv && gxi && gnv && gni && o < sh[1 - d]; o++) {
                    int64_t imax = 0, imin = 0;
                    for (int64_t j = 0; j < sh[d]; j++) {
                        double x = d == 0 ? v[j * 9 + o] : v[o * 9 + j];
                        double bx = d == 0 ? v[imax * 9 + o] : v[o * 9 + imax];
                        double bn = d == 0 ? v[imin * 9 + o] : v[o * 9 + imin];
                        if (!isnan(bx) && (isnan(x) || x > bx)) imax = j;
                        if (!isnan(bn) && (isnan(x) || x < bn)) imin = j;
                    }
                    double mx = d == 0 ? v[imax * 9 + o] : v[o * 9 + imax];
                    double mn = d == 0 ? v[imin * 9 + o] : v[o * 9 + imin];
                    CHECK_MSG(gai[o] == (double)imin && gni[o] == (double)imin,
                              "argmin %s dim %d: %g want %lld", ct_dtype_name(TU_ALL_DTYPES[di]),
                              dim, gai[o], (long long)imin);
                    CHECK(gxi[o] == (double)imax);
                    CHECK(tu_same_val(gxv[o], mx) && tu_same_val(gnv[o], mn));
                }
                free(gai), free(gxv), free(gxi), free(gnv), free(gni), free(v);
                ct_tensor *all[] = {a, ai, xv, xi, nv, ni};
                for (int k = 0; k < 6; k++)
                    ct_tensor_release(all[k]);
            }
    /* NaN is the minimum's pick too; int64 extremes (no negation overflow) */
    float fv[5] = {2, NAN, -1, NAN, -1};
    long long iv[4] = {0, INT64_MIN, INT64_MAX, INT64_MIN};
    ct_tensor *f = NULL, *i = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, fv, CT_FLOAT32, 1, (int64_t[]){5}, &f));
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT64, 1, (int64_t[]){4}, &i));
    double x = -1;
    CHECK_OK(ct_argmin(ctx, f, CT_ALL_DIMS, false, &r));
    CHECK_OK(ct_tensor_item(r, &x));
    CHECK(x == 1);
    ct_tensor_release(r);
    CHECK_OK(ct_argmin(ctx, i, 0, false, &r));
    CHECK_OK(ct_tensor_item(r, &x));
    CHECK(x == 1);
    ct_tensor_release(r);
    ct_tensor *b = NULL, *v2 = NULL, *i2 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_BOOL, 1, (int64_t[]){3}, &b));
    CHECK_ST(ct_argmin(ctx, b, 0, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_max_dim(ctx, f, CT_ALL_DIMS, false, &v2, &i2), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_min_dim(ctx, f, 1, false, &v2, &i2), CT_ERR_INDEX);
    CHECK(v2 == NULL && i2 == NULL);
    ct_tensor_release(f), ct_tensor_release(i), ct_tensor_release(b);
}

/* A 0-d tensor sorts as one element along dim 0 or -1 (torch: sort, argsort, topk, kthvalue of
 * tensor(3.) give 3. and index 0, 0-d); dim 1 is out of range. */
TEST(zero_dim_input) {
    ct_tensor *t = NULL, *v = NULL, *ix = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 0, NULL, 3.0, &t));
    for (int dim = -1; dim <= 0; dim++)
        for (int k = 0; k < 4; k++) {
            v = ix = NULL;
            ct_status st = k == 0   ? ct_sort(ctx, t, dim, true, true, &v, &ix)
                           : k == 1 ? ct_topk(ctx, t, 1, dim, true, true, &v, &ix)
                           : k == 2 ? ct_kthvalue(ctx, t, 1, dim, true, &v, &ix)
                                    : ct_argsort(ctx, t, dim, false, &ix);
            CHECK_MSG(st == CT_OK, "op %d dim %d: %s", k, dim, ct_ctx_last_error(ctx));
            if (st != CT_OK) continue;
            double *gi = tu_read(ix), *gv = v ? tu_read(v) : NULL;
            CHECK(ct_tensor_ndim(ix) == 0 && ct_tensor_dtype(ix) == CT_INT64 && gi && gi[0] == 0);
            if (v) CHECK(ct_tensor_ndim(v) == 0 && gv && gv[0] == 3.0);
            free(gi), free(gv), ct_tensor_release(v), ct_tensor_release(ix);
        }
    CHECK_ST(ct_sort(ctx, t, 1, false, true, &v, &ix), CT_ERR_INDEX);
    CHECK_ST(ct_topk(ctx, t, 2, 0, true, true, &v, &ix), CT_ERR_INDEX);
    ct_tensor_release(t);
}

int main(void) {
    ct_ctx_options o = {.size = sizeof o};
    if (ct_ctx_create(&o, &ctx) != CT_OK) return 1;
    RUN(sort_argsort_topk_every_dtype);
    RUN(special_values_and_kthvalue);
    RUN(long_rows_exact_int64);
    RUN(all_any_count_nonzero);
    RUN(argmin_max_min_dim);
    RUN(zero_dim_input);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

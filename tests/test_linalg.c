/* Tests for linalg.eigh / eigvalsh / eigh_ex: accuracy against LAPACKE dsyevd (in-process oracle)
 * on hard matrix families, every n path (Jacobi lanes, specialised n = 2..4, LAPACK), f32/f64/f16,
 * non-contiguous batches, determinism, NaN isolation and the error paths. ctest runs this once
 * per ISA (CT_CPU_ISA=ref|avx2|avx512; the context picks it up). */
#include <lapacke.h>
#include <stdint.h>

#include "ctorch/ctorch.h"
#include "ctorch/linalg.h"
#include "harness.h"
#include "test_util.h"

static ct_ctx *g_ctx;
static unsigned long long g_seed = 0x9e3779b97f4a7c15ULL;

static double urand(void) { return 2.0 * ct_t_uniform(&g_seed) - 1.0; }

/* Matrix families (double precision, n x n row-major, symmetric). */
enum {
    FAM_RANDOM,
    FAM_REPEATED,  /* eigenvalues with multiplicity */
    FAM_CLUSTERED, /* eigenvalues 1 + k*1e-7 */
    FAM_DIAGONAL,
    FAM_ZERO,
    FAM_RANK1,
    FAM_GRADED, /* entries spanning 1e-20 .. 1e20 */
    FAM_TINY,   /* random * 1e-30 */
    FAM_HUGE,   /* random * 1e30 */
    FAM_NEGDEF, /* negative definite */
    FAM_COUNT
};
static const char *fam_name[FAM_COUNT] = {"random", "repeated", "clustered", "diagonal", "zero",
                                          "rank1",  "graded",   "tiny",      "huge",     "negdef"};

/* A = Q diag(lam) Q^T with Q a product of three random Householder reflections. */
static void from_spectrum(int n, const double *lam, double *A) {
    double *Q = malloc(sizeof(double) * n * n), *u = malloc(sizeof(double) * n);
    for (int i = 0; i < n * n; i++)
        Q[i] = (i / n == i % n);
    for (int h = 0; h < 3; h++) {
        double nu = 0;
        for (int i = 0; i < n; i++) {
            u[i] = urand();
            nu += u[i] * u[i];
        }
        if (nu == 0) continue;
        for (int r = 0; r < n; r++) { /* Q = Q (I - 2 u u^T / nu) */
            double d = 0;
            for (int k = 0; k < n; k++)
                d += Q[r * n + k] * u[k];
            for (int k = 0; k < n; k++)
                Q[r * n + k] -= 2 * d * u[k] / nu;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += Q[i * n + k] * lam[k] * Q[j * n + k];
            A[i * n + j] = s;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            A[j * n + i] = A[i * n + j];
    free(Q);
    free(u);
}

static void make_matrix(int fam, int n, double *A) {
    double *lam = malloc(sizeof(double) * (n + 1));
    switch (fam) {
    case FAM_RANDOM:
    case FAM_TINY:
    case FAM_HUGE: {
        double s = fam == FAM_TINY ? 1e-30 : fam == FAM_HUGE ? 1e30 : 1.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++)
                A[i * n + j] = A[j * n + i] = s * urand();
        break;
    }
    case FAM_REPEATED:
        for (int i = 0; i < n; i++)
            lam[i] = (double)(i % 2 ? 2 : -1);
        from_spectrum(n, lam, A);
        break;
    case FAM_CLUSTERED:
        for (int i = 0; i < n; i++)
            lam[i] = 1.0 + i * 1e-7;
        from_spectrum(n, lam, A);
        break;
    case FAM_DIAGONAL:
        memset(A, 0, sizeof(double) * n * n);
        for (int i = 0; i < n; i++)
            A[i * n + i] = urand() * 10;
        break;
    case FAM_ZERO: memset(A, 0, sizeof(double) * n * n); break;
    case FAM_RANK1: {
        for (int i = 0; i < n; i++)
            lam[i] = urand();
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                A[i * n + j] = 3 * lam[i] * lam[j];
        break;
    }
    case FAM_GRADED: {
        for (int i = 0; i < n; i++)
            lam[i] = pow(10.0, n > 1 ? -10.0 + 20.0 * i / (n - 1) : 0);
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++)
                A[i * n + j] = A[j * n + i] = lam[i] * lam[j] * urand();
        break;
    }
    case FAM_NEGDEF:
        for (int i = 0; i < n; i++)
            lam[i] = -1.0 - 3.0 * ct_t_uniform(&g_seed);
        from_spectrum(n, lam, A);
        break;
    }
    free(lam);
}

/* Worst errors over a batch in units of n*eps: residual ||AV - VW||_F/||A||_F, orthogonality
 * ||V^T V - I||_F, eigenvalues max|w - w_lapack| / ||A||_F; plus convention violations. */
typedef struct {
    double resid, orth, eig;
    int order, sign, nan;
} errs;

/* A: exact symmetric matrix in double (as the tested dtype rounded it); w, v: results. */
static void check_one(int n, const double *A, const double *w, const double *v, double eps,
                      errs *e) {
    double na = 0, r = 0, o = 0, de = 0;
    for (int i = 0; i < n * n; i++)
        na += A[i] * A[i];
    na = sqrt(na);
    for (int i = 0; i < n; i++)
        if (isnan(w[i])) e->nan++;
    if (v) {
        for (int i = 0; i < n; i++)
            for (int k = 0; k < n; k++) {
                double s = -v[i * n + k] * w[k];
                for (int j = 0; j < n; j++)
                    s += A[i * n + j] * v[j * n + k];
                r += s * s;
                double t = -(double)(i == k);
                for (int j = 0; j < n; j++)
                    t += v[j * n + i] * v[j * n + k];
                o += t * t;
            }
        for (int k = 0; k < n; k++) {
            int im = 0;
            for (int j = 1; j < n; j++)
                if (fabs(v[j * n + k]) > fabs(v[im * n + k])) im = j;
            if (!(v[im * n + k] > 0)) e->sign++;
        }
    }
    double *Ac = malloc(sizeof(double) * n * n), *wr = malloc(sizeof(double) * n);
    memcpy(Ac, A, sizeof(double) * n * n);
    LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'N', 'L', n, Ac, n, wr);
    for (int i = 0; i < n; i++)
        de = fmax(de, fabs(w[i] - wr[i]));
    for (int i = 0; i + 1 < n; i++)
        if (w[i] > w[i + 1]) e->order++;
    double u = n * eps, den = na > 0 ? na : 1;
    e->resid = fmax(e->resid, sqrt(r) / den / u);
    e->orth = fmax(e->orth, sqrt(o) / u);
    e->eig = fmax(e->eig, de / den / u);
    free(Ac);
    free(wr);
}

static ct_tensor *tensor_from_doubles(ct_dtype dt, int nd, const int64_t *shape, const double *x,
                                      int64_t cnt) {
    void *buf = malloc((size_t)cnt * 8 + 8);
    for (int64_t i = 0; i < cnt; i++) {
        if (dt == CT_FLOAT64)
            ((double *)buf)[i] = x[i];
        else if (dt == CT_FLOAT32)
            ((float *)buf)[i] = (float)x[i];
        else if (dt == CT_FLOAT16)
            ((uint16_t *)buf)[i] = ct_f32_to_f16((float)x[i]);
    }
    ct_tensor *t = NULL;
    ct_status st = ct_tensor_from_host(g_ctx, buf, dt, nd, shape, &t);
    free(buf);
    return st ? NULL : t;
}

/* Tensor contents (any strides) as doubles. */
static double *to_doubles(const ct_tensor *t) {
    int64_t cnt = ct_tensor_numel(t);
    ct_dtype dt = ct_tensor_dtype(t);
    size_t es = ct_dtype_size(dt);
    void *buf = malloc((size_t)cnt * es + 8);
    double *out = malloc(sizeof(double) * (size_t)cnt + 8);
    if (ct_tensor_to_host(t, buf, (size_t)cnt * es) != CT_OK) {
        free(buf);
        free(out);
        return NULL;
    }
    for (int64_t i = 0; i < cnt; i++)
        out[i] = dt == CT_FLOAT64   ? ((double *)buf)[i]
                 : dt == CT_FLOAT32 ? ((float *)buf)[i]
                 : dt == CT_FLOAT16 ? ct_f16_to_f32(((uint16_t *)buf)[i])
                                    : (double)((int32_t *)buf)[i];
    free(buf);
    return out;
}

static double round_to(ct_dtype dt, double x) {
    return dt == CT_FLOAT32   ? (double)(float)x
           : dt == CT_FLOAT16 ? ct_f16_to_f32(ct_f32_to_f16((float)x))
                              : x;
}

/* Run eigh_ex on `batch` matrices of family fam (with garbage in the unused triangle) and check
 * every matrix. Returns the errors. */
static errs run_family(ct_dtype dt, int fam, int n, int batch, char uplo) {
    errs e = {0, 0, 0, 0, 0, 0};
    int64_t nn = (int64_t)n * n;
    double *A = malloc(sizeof(double) * (size_t)(batch * nn + 1));
    double *Ar = malloc(sizeof(double) * (size_t)(batch * nn + 1)); /* rounded, symmetric */
    for (int b = 0; b < batch; b++) {
        make_matrix(fam, n, A + b * nn);
        for (int i = 0; i < nn; i++)
            Ar[b * nn + i] = round_to(dt, A[b * nn + i]);
        for (int i = 0; i < n; i++) /* garbage in the triangle that must not be read */
            for (int j = i + 1; j < n; j++) {
                int64_t k = uplo == 'L' ? (int64_t)i * n + j : (int64_t)j * n + i;
                A[b * nn + k] = (j % 3 == 0) ? NAN : 1e30;
            }
    }
    int64_t shape[3] = {batch, n, n};
    ct_tensor *ta = tensor_from_doubles(dt, 3, shape, A, batch * nn), *w = NULL, *v = NULL,
              *info = NULL;
    CHECK(ta != NULL);
    CHECK_OK(ct_linalg_eigh_ex(g_ctx, ta, uplo, &w, &v, &info));
    if (w && v && info) {
        CHECK(ct_tensor_dtype(w) == dt && ct_tensor_ndim(w) == 2 && ct_tensor_size(w, 1) == n);
        CHECK(ct_tensor_dtype(info) == CT_INT32 && ct_tensor_numel(info) == batch);
        double *wd = to_doubles(w), *vd = to_doubles(v), *id = to_doubles(info);
        double eps = dt == CT_FLOAT64 ? 0x1p-52 : dt == CT_FLOAT32 ? 0x1p-23 : 0x1p-10;
        for (int b = 0; b < batch; b++) {
            check_one(n, Ar + b * nn, wd + (int64_t)b * n, vd + b * nn, eps, &e);
            if (id[b] != 0) e.nan++;
        }
        free(wd);
        free(vd);
        free(id);
    }
    ct_tensor_release(ta);
    ct_tensor_release(w);
    ct_tensor_release(v);
    ct_tensor_release(info);
    free(A);
    free(Ar);
    return e;
}

static errs g_worst;
static void check_bounds(const char *what, ct_dtype dt, int fam, int n, errs e) {
    g_worst.resid = fmax(g_worst.resid, e.resid);
    g_worst.orth = fmax(g_worst.orth, e.orth);
    g_worst.eig = fmax(g_worst.eig, e.eig);
    CHECK_MSG(e.resid <= 4 && e.orth <= 8 && e.eig <= 4 && !e.order && !e.sign && !e.nan,
              "%s %s %s n=%d: resid %.2f orth %.2f eig %.2f (units of n*eps) order %d sign %d "
              "nan/info %d",
              what, ct_dtype_name(dt), fam_name[fam], n, e.resid, e.orth, e.eig, e.order, e.sign,
              e.nan);
}

static const int g_sizes[] = {1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 33, 64, 65};

static void report_worst(const char *what) {
    printf("  %s worst: resid %.2f orth %.2f eig %.2f (units of n*eps; bounds 4, 8, 4)\n", what,
           g_worst.resid, g_worst.orth, g_worst.eig);
    memset(&g_worst, 0, sizeof g_worst);
}

TEST(accuracy_f64) {
    for (size_t s = 0; s < sizeof g_sizes / sizeof g_sizes[0]; s++) {
        int n = g_sizes[s], batch = n <= 4 ? 37 : n <= 17 ? 9 : n <= 33 ? 3 : 2;
        for (int fam = 0; fam < FAM_COUNT; fam++)
            check_bounds("eigh", CT_FLOAT64, fam, n,
                         run_family(CT_FLOAT64, fam, n, batch, fam % 2 ? 'U' : 'L'));
    }
    report_worst("f64");
}

TEST(accuracy_f32) {
    for (size_t s = 0; s < sizeof g_sizes / sizeof g_sizes[0]; s++) {
        int n = g_sizes[s], batch = n <= 4 ? 37 : n <= 17 ? 9 : n <= 33 ? 3 : 2;
        for (int fam = 0; fam < FAM_COUNT; fam++)
            check_bounds("eigh", CT_FLOAT32, fam, n,
                         run_family(CT_FLOAT32, fam, n, batch, fam % 2 ? 'L' : 'U'));
    }
    report_worst("f32");
}

/* A full lane group and more at n = 3 (the specialised in-register path). */
TEST(accuracy_n3_large_batch) {
    check_bounds("eigh", CT_FLOAT32, FAM_RANDOM, 3,
                 run_family(CT_FLOAT32, FAM_RANDOM, 3, 200, 'L'));
    check_bounds("eigh", CT_FLOAT64, FAM_RANDOM, 3,
                 run_family(CT_FLOAT64, FAM_RANDOM, 3, 200, 'U'));
    check_bounds("eigh", CT_FLOAT32, FAM_CLUSTERED, 3,
                 run_family(CT_FLOAT32, FAM_CLUSTERED, 3, 70, 'U'));
}

TEST(f16_computed_in_f32) {
    int n = 4, batch = 5;
    double A[5 * 16];
    for (int b = 0; b < batch; b++)
        make_matrix(FAM_RANDOM, n, A + b * 16);
    int64_t shape[3] = {batch, n, n};
    ct_tensor *ta = tensor_from_doubles(CT_FLOAT16, 3, shape, A, batch * 16), *w = NULL, *v = NULL;
    CHECK_OK(ct_linalg_eigh(g_ctx, ta, 'L', &w, &v));
    if (w && v) {
        CHECK(ct_tensor_dtype(w) == CT_FLOAT16 && ct_tensor_dtype(v) == CT_FLOAT16);
        double *wd = to_doubles(w), *vd = to_doubles(v);
        double Ar[16];
        errs e = {0, 0, 0, 0, 0, 0};
        for (int b = 0; b < batch; b++) {
            for (int i = 0; i < 16; i++)
                Ar[i] = round_to(CT_FLOAT16, A[b * 16 + i]);
            check_one(n, Ar, wd + b * n, vd + b * 16, 0x1p-10, &e);
        }
        CHECK_MSG(e.resid <= 4 && e.orth <= 8 && e.eig <= 4, "f16 resid %.2f orth %.2f eig %.2f",
                  e.resid, e.orth, e.eig);
        free(wd);
        free(vd);
    }
    ct_tensor_release(ta);
    ct_tensor_release(w);
    ct_tensor_release(v);
}

/* Non-contiguous input: batch dim strided (slice step 2) and matrices transposed, plus two batch
 * dims; results must equal those of the contiguous copy bit for bit. */
TEST(non_contiguous_batches) {
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
    const int ns[4] = {3, 6, 40, 70};
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 4; s++) {
            int n = ns[s], B = 12;
            int64_t nn = (int64_t)n * n;
            double *A = malloc(sizeof(double) * B * nn);
            for (int b = 0; b < B; b++)
                make_matrix(FAM_RANDOM, n, A + b * nn);
            int64_t shape[3] = {B, n, n};
            ct_tensor *ta = tensor_from_doubles(dts[d], 3, shape, A, B * nn);
            ct_tensor *sl = NULL, *tr = NULL, *cont = NULL, *w1 = NULL, *v1 = NULL, *w2 = NULL,
                      *v2 = NULL, *r4 = NULL, *w3 = NULL, *v3 = NULL;
            CHECK_OK(ct_tensor_slice(g_ctx, ta, 0, 1, B, 2, &sl)); /* (6, n, n) */
            CHECK_OK(ct_tensor_transpose(g_ctx, sl, 1, 2, &tr));   /* transposed */
            CHECK(tr && !ct_tensor_is_contiguous(tr));
            CHECK_OK(ct_tensor_contiguous(g_ctx, tr, &cont));
            CHECK_OK(ct_linalg_eigh(g_ctx, tr, 'U', &w1, &v1));
            CHECK_OK(ct_linalg_eigh(g_ctx, cont, 'U', &w2, &v2));
            int64_t s4[4] = {2, 3, n, n};
            CHECK_OK(ct_tensor_reshape(g_ctx, tr, 4, s4, &r4));
            CHECK_OK(ct_linalg_eigh(g_ctx, r4, 'U', &w3, &v3));
            if (w1 && w2 && v1 && v2 && w3 && v3) {
                double *a1 = to_doubles(w1), *a2 = to_doubles(w2), *b1 = to_doubles(v1),
                       *b2 = to_doubles(v2), *a3 = to_doubles(w3), *b3 = to_doubles(v3);
                CHECK(memcmp(a1, a2, sizeof(double) * 6 * n) == 0);
                CHECK(memcmp(b1, b2, sizeof(double) * 6 * nn) == 0);
                CHECK(memcmp(a1, a3, sizeof(double) * 6 * n) == 0);
                CHECK(memcmp(b1, b3, sizeof(double) * 6 * nn) == 0);
                CHECK(ct_tensor_ndim(w3) == 3 && ct_tensor_size(w3, 0) == 2 &&
                      ct_tensor_size(w3, 2) == n && ct_tensor_ndim(v3) == 4);
                errs e = {0, 0, 0, 0, 0, 0};
                double *Ar = malloc(sizeof(double) * nn);
                for (int b = 0; b < 6; b++) {
                    for (int i = 0; i < nn; i++)
                        Ar[i] = round_to(dts[d], A[(1 + 2 * b) * nn + i]);
                    check_one(n, Ar, a1 + b * n, b1 + b * nn,
                              dts[d] == CT_FLOAT64 ? 0x1p-52 : 0x1p-23, &e);
                }
                CHECK_MSG(e.resid <= 4 && e.orth <= 8 && e.eig <= 4 && !e.sign && !e.order,
                          "strided n=%d: resid %.2f orth %.2f eig %.2f", n, e.resid, e.orth, e.eig);
                free(Ar);
                free(a1), free(a2), free(b1), free(b2), free(a3), free(b3);
            }
            ct_tensor *all[] = {ta, sl, tr, cont, w1, v1, w2, v2, r4, w3, v3};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
                ct_tensor_release(all[i]);
            free(A);
        }
}

/* A batch whose eigenvectors take >= 8 MB: the kernels write them with non-temporal stores, the
 * batch is split into one task per kernel block across threads and each call prefetches the
 * next chunk's input. Every path must give the same bits as the matrix alone, and be accurate. */
TEST(large_batch_streaming) {
    const int n = 32, B = 1100; /* 1100 * 32 * 32 * 8 bytes = 8.6 MB of eigenvectors */
    const int64_t nn = (int64_t)n * n;
    double *A = malloc(sizeof(double) * B * nn);
    for (int b = 0; b < B; b++)
        make_matrix(b % 7 == 3 ? FAM_CLUSTERED : FAM_RANDOM, n, A + b * nn);
    int64_t shape[3] = {B, n, n}, one[2] = {n, n};
    ct_tensor *ta = tensor_from_doubles(CT_FLOAT64, 3, shape, A, B * nn);
    ct_tensor *w = NULL, *v = NULL;
    CHECK_OK(ct_linalg_eigh(g_ctx, ta, 'L', &w, &v));
    if (w && v) {
        const double *wd = ct_tensor_data_ptr(w), *vd = ct_tensor_data_ptr(v);
        errs e = {0};
        const int picks[6] = {0, 47, 48, 521, 1087, B - 1}; /* block edges, the last block */
        for (int p = 0; p < 6; p++) {
            const int b = picks[p];
            ct_tensor *t1 = tensor_from_doubles(CT_FLOAT64, 2, one, A + b * nn, nn);
            ct_tensor *w1 = NULL, *v1 = NULL;
            CHECK_OK(ct_linalg_eigh(g_ctx, t1, 'L', &w1, &v1));
            if (w1 && v1)
                CHECK_MSG(memcmp(wd + b * n, ct_tensor_data_ptr(w1), sizeof(double) * n) == 0 &&
                              memcmp(vd + b * nn, ct_tensor_data_ptr(v1), sizeof(double) * nn) == 0,
                          "matrix %d of the large batch differs from the matrix alone", b);
            ct_tensor_release(t1), ct_tensor_release(w1), ct_tensor_release(v1);
        }
        for (int b = 0; b < B; b += 13)
            check_one(n, A + b * nn, wd + b * n, vd + b * nn, 0x1p-52, &e);
        CHECK_MSG(e.resid <= 4 && e.orth <= 8 && e.eig <= 4 && !e.order && !e.sign && !e.nan,
                  "large batch: resid %.2f orth %.2f eig %.2f order %d sign %d nan %d", e.resid,
                  e.orth, e.eig, e.order, e.sign, e.nan);
    }
    ct_tensor_release(ta), ct_tensor_release(w), ct_tensor_release(v);
    free(A);
}

/* A matrix's result does not depend on the batch around it; eigvalsh matches eigh. n = 8 and 16
 * put the picked matrix in a full lane group of n lanes (AVX2 f32 8, AVX-512 f32 16), whose sort
 * runs in SoA, while the matrix alone takes the lane-by-lane sort: the bits must agree. */
TEST(deterministic_and_eigvalsh) {
    const int ns[7] = {2, 3, 8, 9, 16, 40, 70};
    for (int s = 0; s < 7; s++) {
        int n = ns[s], B = 37, pick = 21;
        int64_t nn = (int64_t)n * n;
        double *A = malloc(sizeof(double) * B * nn);
        for (int b = 0; b < B; b++)
            make_matrix(FAM_RANDOM, n, A + b * nn);
        int64_t shape[3] = {B, n, n}, one[2] = {n, n};
        ct_tensor *ta = tensor_from_doubles(CT_FLOAT32, 3, shape, A, B * nn);
        ct_tensor *t1 = tensor_from_doubles(CT_FLOAT32, 2, one, A + pick * nn, nn);
        ct_tensor *w = NULL, *v = NULL, *w1 = NULL, *v1 = NULL, *we = NULL;
        CHECK_OK(ct_linalg_eigh(g_ctx, ta, 'L', &w, &v));
        CHECK_OK(ct_linalg_eigh(g_ctx, t1, 'L', &w1, &v1));
        CHECK_OK(ct_linalg_eigvalsh(g_ctx, ta, 'L', &we));
        if (w && v && w1 && v1 && we) {
            double *wd = to_doubles(w), *vd = to_doubles(v), *w1d = to_doubles(w1),
                   *v1d = to_doubles(v1), *wed = to_doubles(we);
            CHECK(ct_tensor_ndim(w1) == 1 && ct_tensor_ndim(v1) == 2);
            CHECK_MSG(memcmp(wd + pick * n, w1d, sizeof(double) * n) == 0 &&
                          memcmp(vd + pick * nn, v1d, sizeof(double) * nn) == 0,
                      "n=%d: matrix alone differs from the same matrix in a batch", n);
            double md = 0, na = 0;
            for (int i = 0; i < B * n; i++)
                md = fmax(md, fabs(wd[i] - wed[i]));
            for (int i = 0; i < nn; i++)
                na += A[i] * A[i];
            CHECK_MSG(md <= 4 * n * 0x1p-23 * sqrt(na) * 4, "n=%d eigvalsh differs by %g", n, md);
            free(wd), free(vd), free(w1d), free(v1d), free(wed);
        }
        ct_tensor *all[] = {ta, t1, w, v, w1, v1, we};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            ct_tensor_release(all[i]);
        free(A);
    }
}

/* NaN/Inf in one matrix: its outputs are NaN and info != 0; the others are untouched. */
TEST(nonfinite_isolated) {
    const int ns[5] = {3, 5, 16, 40, 70};
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 5; s++) {
            ct_dtype dt = d ? CT_FLOAT64 : CT_FLOAT32;
            int n = ns[s], B = 20;
            int64_t nn = (int64_t)n * n;
            double *A = malloc(sizeof(double) * B * nn);
            for (int b = 0; b < B; b++)
                make_matrix(FAM_RANDOM, n, A + b * nn);
            A[4 * nn + (n - 1) * n] = NAN;     /* lower triangle of matrix 4 */
            A[11 * nn + n * n - 1] = INFINITY; /* diagonal of matrix 11 */
            int64_t shape[3] = {B, n, n};
            ct_tensor *ta = tensor_from_doubles(dt, 3, shape, A, B * nn), *w = NULL, *v = NULL,
                      *info = NULL;
            CHECK_OK(ct_linalg_eigh_ex(g_ctx, ta, 'L', &w, &v, &info));
            if (w && v && info) {
                double *wd = to_doubles(w), *vd = to_doubles(v), *id = to_doubles(info);
                for (int b = 0; b < B; b++) {
                    int bad = b == 4 || b == 11;
                    CHECK_MSG(bad ? id[b] == CT_EIGH_INFO_NONFINITE : id[b] == 0,
                              "n=%d matrix %d info %g", n, b, id[b]);
                    for (int i = 0; i < n; i++)
                        CHECK(bad ? isnan(wd[b * n + i]) : isfinite(wd[b * n + i]));
                    if (bad) CHECK(isnan(vd[b * nn]));
                }
                free(wd), free(vd), free(id);
            }
            ct_tensor_release(ta), ct_tensor_release(w), ct_tensor_release(v),
                ct_tensor_release(info);
            free(A);
        }
}

TEST(empty_shapes) {
    int64_t s0[3] = {0, 3, 3}, s1[3] = {4, 0, 0}, s2[2] = {0, 0};
    const int64_t *ss[3] = {s0, s1, s2};
    int nds[3] = {3, 3, 2};
    for (int k = 0; k < 3; k++) {
        ct_tensor *a = NULL, *w = NULL, *v = NULL, *info = NULL;
        CHECK_OK(ct_tensor_empty(g_ctx, CT_FLOAT32, nds[k], ss[k], &a));
        CHECK_OK(ct_linalg_eigh_ex(g_ctx, a, 'L', &w, &v, &info));
        if (w && v && info) {
            CHECK(ct_tensor_ndim(w) == nds[k] - 1 && ct_tensor_ndim(v) == nds[k]);
            CHECK(ct_tensor_numel(w) == 0 && ct_tensor_numel(v) == 0);
            CHECK(ct_tensor_numel(info) == (k == 1 ? 4 : k == 0 ? 0 : 1));
        }
        ct_tensor_release(a), ct_tensor_release(w), ct_tensor_release(v), ct_tensor_release(info);
    }
}

/* Fault injection: the Nth allocation fails for N = 0, 1, 2, ...; every call returns CT_ERR_OOM
 * or CT_OK, and once the outputs are released nothing is left allocated. */
static int g_fail_at, g_allocs, g_live;
static void *fi_alloc(void *user, size_t nbytes, size_t align) {
    (void)user;
    if (g_allocs++ == g_fail_at) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, nbytes ? nbytes : 1))
        return NULL;
    g_live++;
    return p;
}
static void fi_free(void *user, void *p) {
    (void)user;
    if (p) {
        g_live--;
        free(p);
    }
}

TEST(fault_injection) {
    const int ns[3] = {6, 40, 70};
    const ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT16};
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 3; s++) {
            int n = ns[s], ok = 0;
            double A[2 * 70 * 70];
            for (int b = 0; b < 2; b++)
                make_matrix(FAM_RANDOM, n, A + b * n * n);
            for (g_fail_at = 0; g_fail_at < 64 && !ok; g_fail_at++) {
                ct_ctx_options o;
                memset(&o, 0, sizeof o);
                o.size = sizeof o;
                o.allocator.alloc = fi_alloc;
                o.allocator.free = fi_free;
                ct_ctx *ctx = NULL;
                g_allocs = 0;
                g_live = 0;
                int saved = g_fail_at;
                g_fail_at = -1; /* context and input never fail */
                if (ct_ctx_create(&o, &ctx) != CT_OK) break;
                int64_t shape[3] = {2, n, n};
                ct_tensor *a = NULL, *w = NULL, *v = NULL, *info = NULL;
                ct_tensor *tmp = tensor_from_doubles(dts[d], 3, shape, A, 2 * n * n);
                /* tensor_from_doubles uses g_ctx: copy into this context */
                void *buf = malloc((size_t)2 * n * n * 8);
                ct_tensor_to_host(tmp, buf, (size_t)2 * n * n * ct_dtype_size(dts[d]));
                ct_tensor_release(tmp);
                CHECK_OK(ct_tensor_from_host(ctx, buf, dts[d], 3, shape, &a));
                free(buf);
                g_fail_at = g_allocs + saved;
                ct_status st = ct_linalg_eigh_ex(ctx, a, 'L', &w, &v, &info);
                g_fail_at = saved;
                CHECK_MSG(st == CT_OK || st == CT_ERR_OOM, "n=%d fail_at=%d status %d", n, saved,
                          (int)st);
                if (st == CT_OK) {
                    ok = 1;
                    /* w, v and info at least were allocated, so earlier N must have failed */
                    CHECK_MSG(saved >= 3, "n=%d: succeeded with allocation %d failing", n, saved);
                } else
                    CHECK(w == NULL && v == NULL && info == NULL);
                ct_tensor_release(w);
                ct_tensor_release(v);
                ct_tensor_release(info);
                ct_tensor_release(a);
                ct_ctx_free(ctx);
                CHECK_MSG(g_live == 0, "n=%d fail_at=%d: %d allocations leaked", n, saved, g_live);
            }
            CHECK_MSG(ok, "n=%d never succeeded", n);
        }
}

TEST(error_paths) {
    ct_tensor *a = NULL, *w = NULL, *v = NULL, *info = NULL;
    int64_t s1[1] = {4}, s2[2] = {3, 4}, s3[2] = {3, 3};
    CHECK_OK(ct_tensor_zeros(g_ctx, CT_FLOAT32, 1, s1, &a));
    CHECK_ST(ct_linalg_eigh(g_ctx, a, 'L', &w, &v), CT_ERR_SHAPE);
    CHECK(w == NULL && v == NULL);
    CHECK(strlen(ct_ctx_last_error(g_ctx)) > 0);
    ct_tensor_release(a);
    CHECK_OK(ct_tensor_zeros(g_ctx, CT_FLOAT64, 2, s2, &a));
    CHECK_ST(ct_linalg_eigvalsh(g_ctx, a, 'U', &w), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(g_ctx), "3 x 4") != NULL);
    ct_tensor_release(a);
    CHECK_OK(ct_tensor_zeros(g_ctx, CT_INT32, 2, s3, &a));
    CHECK_ST(ct_linalg_eigh_ex(g_ctx, a, 'L', &w, &v, &info), CT_ERR_DTYPE);
    CHECK(w == NULL && v == NULL && info == NULL);
    ct_tensor_release(a);
    CHECK_OK(ct_tensor_zeros(g_ctx, CT_FLOAT32, 2, s3, &a));
    CHECK_ST(ct_linalg_eigh(g_ctx, a, 'X', &w, &v), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_eigh(g_ctx, NULL, 'L', &w, &v), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_eigh(g_ctx, a, 'L', NULL, &v), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_eigh(NULL, a, 'L', &w, &v), CT_ERR_INVALID_ARG);
    /* lower-case uplo is accepted; 1x1 works */
    CHECK_OK(ct_linalg_eigh(g_ctx, a, 'l', &w, &v));
    ct_tensor_release(w), ct_tensor_release(v);
    ct_tensor_release(a);
}

int main(void) {
    g_ctx = tu_ctx_or_skip();
    printf("isa %s, threads %d\n", ct_ctx_cpu_isa(g_ctx), ct_ctx_num_threads(g_ctx));
    RUN(accuracy_f64);
    RUN(accuracy_f32);
    RUN(accuracy_n3_large_batch);
    RUN(f16_computed_in_f32);
    RUN(non_contiguous_batches);
    RUN(deterministic_and_eigvalsh);
    RUN(large_batch_streaming);
    RUN(nonfinite_isolated);
    RUN(empty_shapes);
    RUN(error_paths);
    RUN(fault_injection);
    ct_ctx_free(g_ctx);
    return ct_test_end();
}

/* Dense linear algebra (cholesky, inv, solve, det, slogdet, qr, svd) checked by reconstruction
 * identities in long double (L L^T = A, A A^-1 = I, A X = B, Q R = A with Q^T Q = I, U S Vh = A)
 * and closed-form 3x3 determinants, batched, strided, f32/f64/bf16; errors naming the failing
 * matrix; the _ex info; capture and replay. */
#include "ctorch/linalg.h"
#include "test_util.h"

static ct_ctx *ctx;

static int rd_all(const ct_tensor *t, void *dst, size_t n) {
    return t && ct_tensor_to_host(t, dst, n) == CT_OK;
}
static unsigned long long rng = 2024;

/* matrices of shape (B, m, n) from a (..., m, n) tensor read as doubles */
static double *mats(const ct_tensor *t, int64_t *B, int64_t *m, int64_t *n) {
    int nd = ct_tensor_ndim(t);
    *m = ct_tensor_shape(t)[nd - 2], *n = ct_tensor_shape(t)[nd - 1];
    int64_t mn = (*m) * (*n);
    *B = ct_tensor_numel(t) / (mn > 0 ? mn : 1);
    return tu_read(t);
}

/* max |(X Y)[i][j] - Z[i][j]| over the batch (Z NULL: the identity) */
static double prod_err(const double *x, const double *y, const double *z, int64_t B, int64_t m,
                       int64_t k, int64_t n, bool xt) {
    double e = 0;
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                long double s = 0;
                for (int64_t q = 0; q < k; q++)
                    s += (long double)(xt ? x[b * k * m + q * m + i] : x[b * m * k + i * k + q]) *
                         y[b * k * n + q * n + j];
                double want = z ? z[b * m * n + i * n + j] : (i == j);
                double d = fabs((double)s - want);
                if (d > e) e = d;
            }
    return e;
}

static ct_tensor *spd(ct_dtype dt, int64_t B, int64_t n, double **vals) {
    int64_t s[3] = {B, n, n};
    double *m = NULL;
    ct_tensor *g = tu_make(ctx, &rng, CT_FLOAT64, 3, s, 0, -1, 1, &m);
    double *a = malloc(sizeof(double) * (size_t)(B * n * n));
    for (int64_t b = 0; b < B; b++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = i == j ? (double)n : 0;
                for (int64_t q = 0; q < n; q++)
                    acc += m[b * n * n + i * n + q] * m[b * n * n + j * n + q];
                a[b * n * n + i * n + j] = acc;
            }
    ct_tensor *d = NULL, *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, a, CT_FLOAT64, 3, s, &d));
    CHECK_OK(ct_cast(ctx, d, dt, &t));
    free(m);
    ct_tensor_release(g), ct_tensor_release(d);
    if (vals) {
        free(a);
        *vals = tu_read(t);
    } else {
        free(a);
    }
    return t;
}

TEST(cholesky_inv_solve) {
    const ct_dtype dts[3] = {CT_FLOAT64, CT_FLOAT32, CT_BFLOAT16};
    for (int di = 0; di < 3; di++) {
        ct_dtype dt = dts[di];
        double tol = dt == CT_FLOAT64 ? 1e-11 : dt == CT_FLOAT32 ? 2e-4 : 0.3;
        double *a;
        ct_tensor *A = spd(dt, 4, 6, &a), *L = NULL, *U = NULL, *Ai = NULL;
        int64_t B, m, n;
        CHECK_OK(ct_linalg_cholesky(ctx, A, false, &L));
        CHECK(ct_tensor_dtype(L) == dt);
        double *l = mats(L, &B, &m, &n);
        double lt[4 * 36];
        for (int64_t b = 0; b < B; b++)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) {
                    lt[b * 36 + i * 6 + j] = l[b * 36 + j * 6 + i];
                    if (j > i) CHECK(l[b * 36 + i * 6 + j] == 0);
                }
        CHECK_MSG(prod_err(l, lt, a, B, n, n, n, false) < tol * 10, "L L^T != A (%s)",
                  ct_dtype_name(dt));
        CHECK_OK(ct_linalg_cholesky(ctx, A, true, &U));
        double *u = tu_read(U);
        CHECK_MSG(prod_err(u, u, a, B, n, n, n, true) < tol * 10, "U^T U != A");
        free(l), free(u);
        /* inverse and solve */
        CHECK_OK(ct_linalg_inv(ctx, A, &Ai));
        double *ai = tu_read(Ai);
        CHECK_MSG(prod_err(a, ai, NULL, B, n, n, n, false) < tol, "A A^-1 != I (%s)",
                  ct_dtype_name(dt));
        int64_t bs[3] = {4, 6, 2}, vs[2] = {4, 6};
        double *bv;
        ct_tensor *Bm = tu_make(ctx, &rng, dt, 3, bs, 1, -1, 1, &bv), *X = NULL;
        CHECK_OK(ct_linalg_solve(ctx, A, Bm, &X));
        double *x = tu_read(X);
        CHECK_MSG(prod_err(a, x, bv, 4, 6, 6, 2, false) < tol * 10, "A X != B (%s)",
                  ct_dtype_name(dt));
        ct_tensor *bvec = tu_make(ctx, &rng, dt, 2, vs, 0, -1, 1, NULL), *xv = NULL;
        CHECK_OK(ct_linalg_solve(ctx, A, bvec, &xv));
        CHECK(tu_same_shape(xv, 2, vs));
        free(ai), free(x), free(bv), free(a);
        ct_tensor_release(A), ct_tensor_release(L), ct_tensor_release(U), ct_tensor_release(Ai);
        ct_tensor_release(Bm), ct_tensor_release(X), ct_tensor_release(bvec), ct_tensor_release(xv);
    }
    /* not positive definite: the failing matrix is named; _ex reports info instead */
    double bad[2][4] = {{4, 2, 2, 3}, {1, 2, 2, 1}};
    int64_t s[3] = {2, 2, 2};
    ct_tensor *A = NULL, *L = NULL, *info = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, bad, CT_FLOAT64, 3, s, &A));
    CHECK_ST(ct_linalg_cholesky(ctx, A, false, &L), CT_ERR_INVALID_ARG);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx),
                     "matrix 1 of the batch is not positive-definite (the leading minor of order 2 "
                     "is not positive-definite)"),
              "%s", ct_ctx_last_error(ctx));
    CHECK(L == NULL);
    CHECK_OK(ct_linalg_cholesky_ex(ctx, A, false, &L, &info));
    int32_t iv[2];
    CHECK_OK(ct_tensor_to_host(info, iv, sizeof iv));
    CHECK(iv[0] == 0 && iv[1] == 2);
    ct_tensor_release(L), ct_tensor_release(info), ct_tensor_release(A);
    double sing[4] = {1, 2, 2, 4};
    int64_t s2[2] = {2, 2};
    ct_tensor *Ai = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, sing, CT_FLOAT64, 2, s2, &A));
    CHECK_ST(ct_linalg_inv(ctx, A, &Ai), CT_ERR_INVALID_ARG);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx),
                     "is singular (the diagonal element 2 of its LU factor is zero)") != NULL,
              "%s", ct_ctx_last_error(ctx));
    int64_t s23[2] = {2, 3};
    ct_tensor *R = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, s23, &R));
    CHECK_ST(ct_linalg_solve(ctx, A, R, &Ai), CT_ERR_INVALID_ARG); /* singular A */
    ct_tensor *R3 = NULL;
    int64_t s31[2] = {3, 1};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, s31, &R3));
    CHECK_ST(ct_linalg_solve(ctx, A, R3, &Ai), CT_ERR_SHAPE); /* 3 rows for a 2 x 2 A */
    ct_tensor_release(R3);
    CHECK_ST(ct_linalg_inv(ctx, R, &Ai), CT_ERR_SHAPE);
    ct_tensor_release(R), ct_tensor_release(A);
    int32_t ints[4] = {1, 0, 0, 1};
    CHECK_OK(ct_tensor_from_host(ctx, ints, CT_INT32, 2, s2, &A));
    CHECK_ST(ct_linalg_det(ctx, A, &Ai), CT_ERR_DTYPE);
    ct_tensor_release(A);
    /* a requires-grad input records qr and svd (their gradients: TEST(gradients)) */
    A = spd(CT_FLOAT64, 1, 3, NULL);
    CHECK_OK(ct_tensor_set_requires_grad(A, true));
    ct_tensor *q = NULL, *r = NULL;
    CHECK_OK(ct_linalg_qr(ctx, A, &q, &r));
    CHECK(ct_tensor_requires_grad(q) && ct_tensor_requires_grad(r));
    ct_tensor_release(q), ct_tensor_release(r), ct_tensor_release(A);
}

/* gradients by central differences: inputs shifted to stay well conditioned */
static ct_tensor *EYE3, *RHS;
static ct_status well(const ct_tensor *x, ct_tensor **a) { /* x + 4 I */
    return ct_add(ctx, x, EYE3, a);
}
static ct_status f_pinv(const ct_tensor *x, ct_tensor **y) {
    return ct_linalg_pinv(ctx, x, NAN, NAN, y);
}
static ct_status f_inv(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL;
    ct_status st = well(x, &a);
    if (st == CT_OK) st = ct_linalg_inv(ctx, a, y);
    ct_tensor_release(a);
    return st;
}
static ct_status f_det(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL;
    ct_status st = well(x, &a);
    if (st == CT_OK) st = ct_linalg_det(ctx, a, y);
    ct_tensor_release(a);
    return st;
}
static ct_status f_logabsdet(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL, *sg = NULL;
    ct_status st = well(x, &a);
    if (st == CT_OK) st = ct_linalg_slogdet(ctx, a, &sg, y);
    ct_tensor_release(a), ct_tensor_release(sg);
    return st;
}
static ct_status f_solve_a(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL;
    ct_status st = well(x, &a);
    if (st == CT_OK) st = ct_linalg_solve(ctx, a, RHS, y);
    ct_tensor_release(a);
    return st;
}
static ct_status f_solve_b(const ct_tensor *x, ct_tensor **y) { /* x: a (2, 3) batch of vectors */
    return ct_linalg_solve(ctx, RHS, x, y);
}
static ct_status f_solve_bb(const ct_tensor *x, ct_tensor **y) { /* x: B (3, 2) for 2 A's */
    return ct_linalg_solve(ctx, RHS, x, y);
}
static ct_status f_chol(const ct_tensor *x, ct_tensor **y, bool upper) { /* chol(x x^T + 4 I) */
    ct_tensor *xt = NULL, *p = NULL, *a = NULL;
    ct_status st = ct_tensor_transpose(ctx, x, -2, -1, &xt);
    if (st == CT_OK) st = ct_matmul(ctx, x, xt, &p);
    if (st == CT_OK) st = ct_add(ctx, p, EYE3, &a);
    if (st == CT_OK) st = ct_linalg_cholesky(ctx, a, upper, y);
    ct_tensor_release(xt), ct_tensor_release(p), ct_tensor_release(a);
    return st;
}
static ct_status f_chol_l(const ct_tensor *x, ct_tensor **y) { return f_chol(x, y, false); }
static ct_status f_chol_u(const ct_tensor *x, ct_tensor **y) { return f_chol(x, y, true); }
static ct_status f_chol_ex(const ct_tensor *x, ct_tensor **y) { /* cholesky_ex(x x^T + 4 I) */
    ct_tensor *xt = NULL, *p = NULL, *a = NULL, *info = NULL;
    ct_status st = ct_tensor_transpose(ctx, x, 1, 2, &xt);
    if (st == CT_OK) st = ct_matmul(ctx, x, xt, &p);
    if (st == CT_OK) st = well(p, &a);
    if (st == CT_OK) st = ct_linalg_cholesky_ex(ctx, a, false, y, &info);
    ct_tensor_release(xt), ct_tensor_release(p), ct_tensor_release(a), ct_tensor_release(info);
    return st;
}

/* y = the outputs flattened and concatenated */
static ct_status cat_flat(int n, ct_tensor **ts, ct_tensor **y) {
    ct_tensor *f[3] = {0};
    ct_status st = CT_OK;
    for (int i = 0; i < n && st == CT_OK; i++) {
        const int64_t len = ct_tensor_numel(ts[i]);
        st = ct_tensor_reshape(ctx, ts[i], 1, &len, &f[i]);
    }
    if (st == CT_OK) st = ct_cat(ctx, n, (const ct_tensor *const *)f, 0, y);
    for (int i = 0; i < n; i++)
        ct_tensor_release(f[i]), ct_tensor_release(ts[i]);
    return st;
}
static ct_status f_qr(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *t[2] = {0};
    ct_status st = ct_linalg_qr(ctx, x, &t[0], &t[1]);
    return st == CT_OK ? cat_flat(2, t, y) : st;
}
/* U o U and Vh o Vh: invariant under the sign of each singular pair */
static ct_status f_svd(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *u = NULL, *s = NULL, *vh = NULL, *t[3] = {0};
    ct_status st = ct_linalg_svd(ctx, x, &u, &s, &vh);
    if (st == CT_OK) st = ct_mul(ctx, u, u, &t[0]);
    if (st == CT_OK) st = ct_mul(ctx, vh, vh, &t[2]);
    t[1] = s;
    s = NULL;
    ct_tensor_release(u), ct_tensor_release(vh);
    if (st != CT_OK) {
        for (int i = 0; i < 3; i++)
            ct_tensor_release(t[i]);
        return st;
    }
    return cat_flat(3, t, y);
}
/* eigh of sym(x) = (x + x^T) / 2: eigenvalues and V o V (sign-free) */
static ct_status sym_of(const ct_tensor *x, ct_tensor **a) {
    ct_tensor *xt = NULL, *s = NULL;
    ct_status st = ct_tensor_transpose(ctx, x, -2, -1, &xt);
    if (st == CT_OK) st = ct_add(ctx, x, xt, &s);
    if (st == CT_OK) st = ct_mul_scalar(ctx, s, 0.5, a);
    ct_tensor_release(xt), ct_tensor_release(s);
    return st;
}
static ct_status f_eigh(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL, *t[2] = {0}, *v = NULL;
    ct_status st = sym_of(x, &a);
    if (st == CT_OK) st = ct_linalg_eigh(ctx, a, 'L', &t[0], &v);
    if (st == CT_OK) st = ct_mul(ctx, v, v, &t[1]);
    ct_tensor_release(a), ct_tensor_release(v);
    if (st != CT_OK) {
        ct_tensor_release(t[0]), ct_tensor_release(t[1]);
        return st;
    }
    return cat_flat(2, t, y);
}
static ct_status f_eigvalsh(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL;
    ct_status st = sym_of(x, &a);
    if (st == CT_OK) st = ct_linalg_eigvalsh(ctx, a, 'U', y);
    ct_tensor_release(a);
    return st;
}
static ct_status f_svdvals(const ct_tensor *x, ct_tensor **y) { /* U and Vh not asked for */
    return ct_linalg_svd(ctx, x, NULL, y, NULL);
}

TEST(gradients) {
    double e[9] = {4, 0, 0, 0, 4, 0, 0, 0, 4};
    int64_t s33[2] = {3, 3}, b33[3] = {2, 3, 3}, b23[2] = {2, 3};
    CHECK_OK(ct_tensor_from_host(ctx, e, CT_FLOAT64, 2, s33, &EYE3));
    RHS = spd(CT_FLOAT64, 2, 3, NULL); /* (2, 3, 3): right-hand sides for A, an A for B */
    tu_gradcheck(ctx, &rng, "inv", f_inv, 3, b33);
    tu_gradcheck(ctx, &rng, "det", f_det, 3, b33);
    tu_gradcheck(ctx, &rng, "slogdet (log|det|)", f_logabsdet, 3, b33);
    tu_gradcheck(ctx, &rng, "solve (A)", f_solve_a, 3, b33);
    tu_gradcheck(ctx, &rng, "solve (vector B)", f_solve_b, 2, b23);
    int64_t s32[2] = {3, 2}, s3[1] = {3};
    tu_gradcheck(ctx, &rng, "solve (B broadcast over A's batch)", f_solve_bb, 2, s32);
    tu_gradcheck(ctx, &rng, "solve (1-d B broadcast)", f_solve_bb, 1, s3);
    tu_gradcheck(ctx, &rng, "cholesky lower", f_chol_l, 3, b33);
    tu_gradcheck(ctx, &rng, "cholesky upper", f_chol_u, 3, b33);
    tu_gradcheck(ctx, &rng, "cholesky_ex", f_chol_ex, 3, b33);
    int64_t t43[3] = {2, 4, 3}, s35[2] = {3, 5}, w235[3] = {2, 3, 5}, s43[2] = {4, 3};
    tu_gradcheck(ctx, &rng, "qr tall", f_qr, 3, t43);
    tu_gradcheck(ctx, &rng, "qr square", f_qr, 2, s33);
    tu_gradcheck(ctx, &rng, "qr wide", f_qr, 2, s35);
    tu_gradcheck(ctx, &rng, "svd tall", f_svd, 2, s43);
    tu_gradcheck(ctx, &rng, "svd square", f_svd, 3, b33);
    tu_gradcheck(ctx, &rng, "svd wide", f_svd, 3, w235);
    tu_gradcheck(ctx, &rng, "svd values only", f_svdvals, 3, w235);
    int64_t b44[3] = {2, 4, 4}, s77[2] = {7, 7};
    tu_gradcheck(ctx, &rng, "eigh (lane kernels)", f_eigh, 3, b44);
    tu_gradcheck(ctx, &rng, "eigh n = 7", f_eigh, 2, s77);
    tu_gradcheck(ctx, &rng, "eigvalsh", f_eigvalsh, 3, b33);
    tu_gradcheck(ctx, &rng, "pinv tall (its own formula)", f_pinv, 2, s43);
    tu_gradcheck(ctx, &rng, "pinv wide", f_pinv, 3, w235);
    tu_gradcheck(ctx, &rng, "pinv square", f_pinv, 3, b33);
    ct_tensor_release(EYE3), ct_tensor_release(RHS);
}

/* At repeated (or zero) eigen / singular values, gradients that only see the values are finite,
 * as torch's (torch skips the vectors' terms, whose 1 / (w_j - w_i) is inf there): the identity's
 * eigvalsh / svdvals with upstream g have gradient diag(g); [[1, 0], [0, 0], [0, 0]]'s svdvals
 * (a zero singular value) [[g0, 0], [0, g1], [0, 0]]; pinv(I) under sum has gradient -1
 * everywhere (torch 1.13's values). */
TEST(spectral_gradients_at_ties) {
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g3[3] = {1, 2, 3}, M[6] = {1, 0, 0, 0, 0, 0};
    ct_tensor *a = tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){3, 3}, I3),
              *b = tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){3, 2}, M),
              *up = tu_from_vals(ctx, CT_FLOAT64, 1, (const int64_t[]){3}, g3),
              *up2 = tu_from_vals(ctx, CT_FLOAT64, 1, (const int64_t[]){2}, g3);
    CHECK_OK(ct_tensor_set_requires_grad(a, true));
    CHECK_OK(ct_tensor_set_requires_grad(b, true));
    const double want[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3}, wantb[6] = {1, 0, 0, 2, 0, 0},
                 ones[9] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
    for (int k = 0; k < 4; k++) {
        ct_tensor *y = NULL, *g = NULL, *s = NULL;
        const ct_tensor *x = k == 2 ? b : a;
        CHECK_OK(k == 0   ? ct_linalg_eigvalsh(ctx, a, 'L', &y)
                 : k == 1 ? ct_linalg_svdvals(ctx, a, &y)
                 : k == 2 ? ct_linalg_svdvals(ctx, b, &y)
                          : ct_linalg_pinv(ctx, a, NAN, NAN, &s));
        if (k == 3) CHECK_OK(ct_sum(ctx, s, 0, NULL, false, &y));
        const ct_tensor *ug = k == 3 ? NULL : k == 2 ? up2 : up;
        CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const *)&y,
                                  ug ? (const ct_tensor *const *)&ug : NULL, 1, &x, false, false,
                                  &g));
        tu_same_as(k == 0   ? "eigvalsh at a tie"
                   : k == 3 ? "pinv(I)"
                            : "svdvals at a tie",
                   g,
                   k == 3   ? ones
                   : k == 2 ? wantb
                            : want,
                   2, k == 2 ? (const int64_t[]){3, 2} : (const int64_t[]){3, 3}, 1e-15);
        ct_tensor_release(y), ct_tensor_release(g), ct_tensor_release(s);
    }
    /* pinv's default rtol also applies with atol = 0 (torch: rtol is 0 only for an atol > 0):
     * a rank-1 matrix whose second singular value is rounding noise keeps a bounded pinv */
    const double r1[4] = {1, 2, 2, 4.000000000000001};
    ct_tensor *c = tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){2, 2}, r1), *p = NULL;
    CHECK_OK(ct_linalg_pinv(ctx, c, 0, NAN, &p));
    double *pv = p ? tu_read(p) : NULL;
    CHECK(pv && fabs(pv[0] - 0.04) < 1e-9 && fabs(pv[3] - 0.16) < 1e-9);
    free(pv);
    ct_tensor_release(p), ct_tensor_release(c);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(up), ct_tensor_release(up2);
}

TEST(det_slogdet) {
    int64_t s[3] = {5, 3, 3};
    double *v;
    ct_tensor *A = tu_make(ctx, &rng, CT_FLOAT64, 3, s, 1, -2, 2, &v), *d = NULL, *sg = NULL,
              *la = NULL;
    CHECK_OK(ct_linalg_det(ctx, A, &d));
    CHECK_OK(ct_linalg_slogdet(ctx, A, &sg, &la));
    double *dv = tu_read(d), *sv = tu_read(sg), *lv = tu_read(la);
    for (int b = 0; b < 5; b++) {
        const double *m = v + b * 9;
        double want = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
                      m[2] * (m[3] * m[7] - m[4] * m[6]);
        CHECK_MSG(fabs(dv[b] - want) < 1e-12 * (1 + fabs(want)), "det %d: %g vs %g", b, dv[b],
                  want);
        CHECK(fabs(sv[b] * exp(lv[b]) - want) < 1e-12 * (1 + fabs(want)));
    }
    free(dv), free(sv), free(lv), free(v);
    ct_tensor_release(A), ct_tensor_release(d), ct_tensor_release(sg), ct_tensor_release(la);
    double sing[4] = {1, 2, 2, 4};
    int64_t s2[2] = {2, 2};
    CHECK_OK(ct_tensor_from_host(ctx, sing, CT_FLOAT64, 2, s2, &A));
    CHECK_OK(ct_linalg_slogdet(ctx, A, &sg, &la));
    CHECK_OK(ct_linalg_det(ctx, A, &d));
    double x, y, z;
    CHECK_OK(ct_tensor_item(sg, &x));
    CHECK_OK(ct_tensor_item(la, &y));
    CHECK_OK(ct_tensor_item(d, &z));
    CHECK(x == 0 && y == -INFINITY && z == 0);
    ct_tensor_release(A), ct_tensor_release(d), ct_tensor_release(sg), ct_tensor_release(la);
}

TEST(qr_svd) {
    const int64_t shapes[3][2] = {{7, 4}, {4, 7}, {5, 5}};
    for (int si = 0; si < 3; si++)
        for (int dt_i = 0; dt_i < 2; dt_i++) {
            ct_dtype dt = dt_i ? CT_FLOAT32 : CT_FLOAT64;
            double tol = dt == CT_FLOAT64 ? 1e-12 : 2e-5;
            int64_t s[3] = {3, shapes[si][0], shapes[si][1]}, m = s[1], n = s[2], r = m < n ? m : n;
            double *a;
            ct_tensor *A = tu_make(ctx, &rng, dt, 3, s, si % 3, -1, 1, &a), *Q = NULL, *R = NULL;
            CHECK_OK(ct_linalg_qr(ctx, A, &Q, &R));
            int64_t qs[3] = {3, m, r}, rs[3] = {3, r, n};
            CHECK(tu_same_shape(Q, 3, qs) && tu_same_shape(R, 3, rs));
            double *q = tu_read(Q), *rr = tu_read(R);
            CHECK_MSG(prod_err(q, rr, a, 3, m, r, n, false) < tol, "Q R != A (%lldx%lld %s)",
                      (long long)m, (long long)n, ct_dtype_name(dt));
            CHECK_MSG(prod_err(q, q, NULL, 3, r, m, r, true) < tol, "Q^T Q != I");
            for (int64_t b = 0; b < 3; b++)
                for (int64_t i = 0; i < r; i++)
                    for (int64_t j = 0; j < i && j < n; j++)
                        CHECK(rr[b * r * n + i * n + j] == 0);
            ct_tensor *U = NULL, *S = NULL, *Vh = NULL;
            CHECK_OK(ct_linalg_svd(ctx, A, &U, &S, &Vh));
            double *u = tu_read(U), *sv = tu_read(S), *vh = tu_read(Vh);
            double *us = malloc(sizeof(double) * (size_t)(3 * m * r));
            for (int64_t b = 0; b < 3; b++) {
                for (int64_t i = 0; i + 1 < r; i++)
                    CHECK(sv[b * r + i] >= sv[b * r + i + 1] && sv[b * r + i + 1] >= 0);
                for (int64_t i = 0; i < m; i++)
                    for (int64_t j = 0; j < r; j++)
                        us[b * m * r + i * r + j] = u[b * m * r + i * r + j] * sv[b * r + j];
            }
            CHECK_MSG(prod_err(us, vh, a, 3, m, r, n, false) < tol * 10, "U S Vh != A");
            CHECK(prod_err(u, u, NULL, 3, r, m, r, true) < tol * 10);
            free(us), free(u), free(sv), free(vh), free(q), free(rr), free(a);
            ct_tensor_release(A), ct_tensor_release(Q), ct_tensor_release(R);
            ct_tensor_release(U), ct_tensor_release(S), ct_tensor_release(Vh);
        }
}

TEST(captured_equals_eager) {
    ct_tensor *A = spd(CT_FLOAT64, 3, 4, NULL), *outs[2][4] = {{0}};
    for (int cap = 0; cap < 2; cap++) {
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (cap) CHECK_OK(ct_graph_capture_begin(g, NULL));
        CHECK_OK(ct_linalg_cholesky(ctx, A, false, &outs[cap][0]));
        CHECK_OK(ct_linalg_inv(ctx, A, &outs[cap][1]));
        CHECK_OK(ct_linalg_det(ctx, A, &outs[cap][2]));
        CHECK_OK(ct_linalg_svd(ctx, A, NULL, &outs[cap][3], NULL));
        if (cap) {
            CHECK_OK(ct_graph_capture_end(g));
            CHECK_OK(ct_graph_replay(g));
        }
        ct_graph_free(g);
    }
    for (int i = 0; i < 4; i++) {
        CHECK_MSG(tu_same_values(outs[0][i], outs[1][i]), "output %d differs", i);
        ct_tensor_release(outs[0][i]), ct_tensor_release(outs[1][i]);
    }
    ct_tensor_release(A);
}

/* ---- as torch.linalg: NaN in one matrix gives NaN results for that matrix only (LAPACKE's
 * NaN check rejected the whole batch), singular det / sign are signed zeros, svd refuses
 * non-finite input, solve broadcasts and refuses mixed dtypes ---- */
TEST(torch_conventions) {
    double av[18] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 2, 0, 0, 0, NAN, 0, 0, 0, 2};
    ct_tensor *a = NULL, *r = NULL, *r2 = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, av, CT_FLOAT64, 3, (int64_t[]){2, 3, 3}, &a));
    CHECK_OK(ct_linalg_inv(ctx, a, &r));
    double g[18];
    CHECK(rd_all(r, g, sizeof g));
    for (int i = 0; i < 9; i++)
        CHECK_MSG(g[i] == av[i], "inv of I [%d] = %g", i, g[i]);
    CHECK(isnan(g[13]));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_det(ctx, a, &r));
    CHECK(rd_all(r, g, 16) && g[0] == 1 && isnan(g[1]));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_slogdet(ctx, a, &r, &r2)); /* torch: sign(NaN) = 0 */
    CHECK(rd_all(r, g, 16) && g[0] == 1 && g[1] == 0);
    CHECK(rd_all(r2, g, 16) && g[0] == 0 && isnan(g[1]));
    ct_tensor_release(r), ct_tensor_release(r2);
    ct_tensor *ones = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 2, (int64_t[]){2, 3}, &ones));
    CHECK_OK(ct_linalg_solve(ctx, a, ones, &r));
    CHECK(rd_all(r, g, 48) && g[0] == 1 && g[1] == 1 && g[2] == 1 && isnan(g[4]));
    ct_tensor_release(r);
    ct_tensor *u = NULL, *sv = NULL, *vh = NULL;
    CHECK_ST(ct_linalg_svd(ctx, a, &u, &sv, &vh), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "non-finite") != NULL);
    CHECK_OK(ct_linalg_qr(ctx, a, &u, &vh)); /* torch computes it (NaN in matrix 1) */
    ct_tensor_release(u), ct_tensor_release(vh), ct_tensor_release(ones);
    u = vh = NULL;
    ct_tensor *info = NULL; /* cholesky_ex: the info of each matrix, no error for the batch */
    CHECK_OK(ct_linalg_cholesky_ex(ctx, a, false, &u, &info));
    int32_t inf2[2] = {-1, -1};
    CHECK(rd_all(info, inf2, 8) && inf2[0] == 0);
    ct_tensor_release(info), ct_tensor_release(u), ct_tensor_release(a);
    /* singular: det and sign are the signed products, -0.0 for [[1, 2], [2, 4]] (torch 1.13) */
    CHECK_OK(
        ct_tensor_from_host(ctx, (double[]){1, 2, 2, 4}, CT_FLOAT64, 2, (int64_t[]){2, 2}, &a));
    double d = 1, sg = 1, la = 0;
    CHECK_OK(ct_linalg_det(ctx, a, &r));
    CHECK(rd_all(r, &d, 8) && d == 0 && signbit(d));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_slogdet(ctx, a, &r, &r2));
    CHECK(rd_all(r, &sg, 8) && sg == 0 && signbit(sg) && rd_all(r2, &la, 8) && la == -INFINITY);
    ct_tensor_release(r), ct_tensor_release(r2), ct_tensor_release(a);
    /* solve: batch dims broadcast; B a vector when 1-d or A's shape without the last dim */
    struct {
        int na, nb;
        int64_t as[4], bs[4], want[4];
        int nw;
    } cs[] = {{3, 1, {2, 3, 3}, {3}, {2, 3}, 2},
              {3, 2, {2, 3, 3}, {3, 2}, {2, 3, 2}, 3},
              {2, 3, {3, 3}, {2, 3, 4}, {2, 3, 4}, 3},
              {4, 3, {2, 1, 3, 3}, {4, 3, 2}, {2, 4, 3, 2}, 4},
              {3, 3, {2, 3, 3}, {1, 3, 2}, {2, 3, 2}, 3},
              {3, 1, {0, 3, 3}, {3}, {0, 3}, 2}};
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++) {
        ct_tensor *A = NULL, *Bm = NULL, *X = NULL, *AX = NULL;
        int64_t nA = 1;
        for (int i = 0; i < cs[c].na; i++)
            nA *= cs[c].as[i];
        double *ad = malloc(sizeof(double) * (size_t)(nA ? nA : 1));
        for (int64_t i = 0; i < nA; i++) /* diagonally dominant 3x3 blocks */
            ad[i] = (i % 9 == 0 || i % 9 == 4 || i % 9 == 8) ? 5 + (double)(i % 7)
                                                             : tu_rand_val(&rng, CT_FLOAT64, -1, 1);
        CHECK_OK(ct_tensor_from_host(ctx, ad, CT_FLOAT64, cs[c].na, cs[c].as, &A));
        Bm = tu_make(ctx, &rng, CT_FLOAT64, cs[c].nb, cs[c].bs, 0, -2, 2, NULL);
        CHECK_OK(ct_linalg_solve(ctx, A, Bm, &X));
        CHECK_MSG(X && tu_same_shape(X, cs[c].nw, cs[c].want), "solve case %zu: shape", c);
        /* A X == B (broadcast): X as a column for a vector B */
        const bool vec = cs[c].nb == 1;
        ct_tensor *Xc = NULL, *res = NULL, *mx = NULL;
        if (vec) CHECK_OK(ct_tensor_unsqueeze(ctx, X, -1, &Xc));
        CHECK_OK(ct_matmul(ctx, A, vec ? Xc : X, &AX));
        if (vec) {
            ct_tensor *sq = NULL;
            CHECK_OK(ct_tensor_squeeze(ctx, AX, -1, &sq));
            ct_tensor_release(AX), AX = sq;
        }
        CHECK_OK(ct_sub(ctx, AX, Bm, &res));
        ct_tensor *ab = NULL;
        CHECK_OK(ct_abs(ctx, res, &ab));
        if (ct_tensor_numel(ab) > 0) {
            CHECK_OK(ct_amax(ctx, ab, 0, NULL, false, &mx));
            double e = 1;
            CHECK(rd_all(mx, &e, 8) && e < 1e-12);
        }
        free(ad);
        ct_tensor_release(A), ct_tensor_release(Bm), ct_tensor_release(X), ct_tensor_release(AX);
        ct_tensor_release(Xc), ct_tensor_release(res), ct_tensor_release(mx), ct_tensor_release(ab);
    }
    ct_tensor *A = NULL, *Bf = NULL, *Bd = NULL;
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT32, 3, 3, &A));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 1, (int64_t[]){3}, &Bd));
    CHECK_ST(ct_linalg_solve(ctx, A, Bd, &r), CT_ERR_DTYPE); /* torch: same dtype required */
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){2, 3}, &Bf));
    CHECK_ST(ct_linalg_solve(ctx, A, Bf, &r), CT_ERR_SHAPE); /* a (2, 3) matrix B: 2 rows, n = 3 */
    ct_tensor_release(A), ct_tensor_release(Bf), ct_tensor_release(Bd);
}

/* inv and solve of a real matrix give torch 1.13's bits: torch's LAPACK sees the row-major A as
 * the column-major A^T, factors that and solves with trans 'T' (torch.manual_seed(3) values below);
 * so a non-finite matrix also ends as torch's: [[2, 1], [inf, 3]] and [[nan, 0], [0, 1]] invert to
 * all NaN, diag(1, inf) to diag(1, 0) (getri, and an LU of A itself, gave partly finite values). */
TEST(inv_solve_as_torch) {
    const double A[9] = {0x1.9b47008a2a7acp-1,  0x1.660f0cd30f451p-3, 0x1.6c744b8324fcfp-4,
                         -0x1.3a393f2853e66p-1, 0x1.7a539ef4531b5p-5, -0x1.5e463bc486fa2p+0,
                         0x1.599850aafe9b0p-2,  0x1.02d87d09481cfp+0, -0x1.6f67e9809103bp+0},
                 B[6] = {0x1.f471f0decd824p-1,  0x1.0b4a212789e04p-1, 0x1.3ce81bce70368p+0,
                         -0x1.bab1833353e97p-1, 0x1.3222caa605b52p-2, 0x1.ad47a7b72cb34p-2},
                 inv[9] = {0x1.b7c927d657da1p+0,  0x1.c742ceb53e900p-2,  -0x1.44f83e6d788a4p-2,
                           -0x1.c043242f87001p+0, -0x1.8af0dc3779793p+0, 0x1.5cbbec5721cd4p+0,
                           -0x1.a8c853822b64ep-1, -0x1.f6f5c0e3842ccp-1, 0x1.81b069f1048dap-3},
                 sol[6] = {0x1.113ba8573ce44p+1, 0x1.847e0a02618e7p-2,  -0x1.9b655b55afd6cp+1,
                           0x1.fb5226c6e676ap-1, -0x1.f87efa3abe117p+0, 0x1.fb153377fe988p-2};
    ct_tensor *a = tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){3, 3}, A),
              *b = tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){3, 2}, B), *y = NULL;
    CHECK_OK(ct_linalg_inv(ctx, a, &y));
    tu_same_as("inv bits", y, inv, 2, (const int64_t[]){3, 3}, 0);
    ct_tensor_release(y), y = NULL;
    CHECK_OK(ct_linalg_solve(ctx, a, b, &y));
    tu_same_as("solve bits", y, sol, 2, (const int64_t[]){3, 2}, 0);
    ct_tensor_release(y), y = NULL;
    ct_tensor_release(a), ct_tensor_release(b);
    const double bad[3][4] = {{2, 1, INFINITY, 3}, {NAN, 0, 0, 1}, {1, 0, 0, INFINITY}};
    const double want[3][4] = {{NAN, NAN, NAN, NAN}, {NAN, NAN, NAN, NAN}, {1, 0, 0, 0}};
    for (int k = 0; k < 3; k++)
        for (int f = 0; f < 2; f++) {
            a = tu_from_vals(ctx, f ? CT_FLOAT32 : CT_FLOAT64, 2, (const int64_t[]){2, 2}, bad[k]);
            CHECK_OK(ct_linalg_inv(ctx, a, &y));
            tu_same_as("inv of a non-finite matrix", y, want[k], 2, (const int64_t[]){2, 2}, 0);
            ct_tensor_release(y), ct_tensor_release(a), y = NULL;
        }
    /* inv_ex runs on past the zero pivot as torch: [[1, 2], [2, 4]] -> [[-inf, inf], [inf, -inf]],
     * info 2 */
    ct_tensor *info = NULL;
    a = tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){2, 2}, (const double[]){1, 2, 2, 4});
    CHECK_OK(ct_linalg_inv_ex(ctx, a, &y, &info));
    tu_same_as("inv_ex of a singular matrix", y,
               (const double[]){-INFINITY, INFINITY, INFINITY, -INFINITY}, 2,
               (const int64_t[]){2, 2}, 0);
    int32_t iv = 0;
    CHECK(info && ct_tensor_to_host(info, &iv, 4) == CT_OK && iv == 2);
    ct_tensor_release(y), ct_tensor_release(a), ct_tensor_release(info);
    /* a complex matrix with a negative real determinant: sign -1 + 0i (a row swap multiplies by
     * -1 + 0i, as torch, not a negation: -0i), so logdet is +pi i as torch's and numpy's */
    const double sw[8] = {0, 0, 1, 0, 1, 0, 0, 0};
    ct_tensor *c = NULL, *sg = NULL, *la = NULL, *ld = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, sw, CT_COMPLEX128, 2, (const int64_t[]){2, 2}, &c));
    CHECK_OK(ct_linalg_slogdet(ctx, c, &sg, &la));
    CHECK_OK(ct_logdet(ctx, c, &ld));
    double sv[2] = {0, -1}, lv[2] = {1, 0};
    CHECK(sg && ct_tensor_to_host(sg, sv, 16) == CT_OK && sv[0] == -1 && sv[1] == 0 &&
          !signbit(sv[1]));
    CHECK(ld && ct_tensor_to_host(ld, lv, 16) == CT_OK && lv[0] == 0 && fabs(lv[1] - M_PI) < 1e-15);
    ct_tensor_release(c), ct_tensor_release(sg), ct_tensor_release(la), ct_tensor_release(ld);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(cholesky_inv_solve);
    RUN(det_slogdet);
    RUN(qr_svd);
    RUN(gradients);
    RUN(captured_equals_eager);
    RUN(torch_conventions);
    RUN(inv_solve_as_torch);
    RUN(spectral_gradients_at_ties);
    ct_ctx_free(ctx);
    return ct_test_end();
}

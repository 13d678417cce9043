/* More linear algebra as a PyTorch user writes it: linalg.solve_triangular, lu_factor(_ex), lu,
 * lu_solve, lu_unpack, cholesky_solve, cholesky_inverse, lstsq, svdvals, matrix_rank,
 * matrix_exp, inv_ex, solve_ex, vecdot, tensorinv, tensorsolve, householder_product, geqrf, ormqr
 * and cond
 * on small matrices whose answers are worked out by hand (printed and checked), then one
 * gradient through lu_solve. Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[160];
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
    if (t && npool == 160) ct_tensor_release(t); /* full: not kept, nothing leaks */
    return t && npool < 160 ? (pool[npool++] = t) : NULL;
}
static ct_tensor *f64(int n, const double *v) {
    ct_tensor *t = NULL;
    const int64_t shape[1] = {n};
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, 1, shape, &t) == CT_OK ? keep(t) : NULL;
}
/* print t's values and compare them with want (relative 1e-14, absolute 1e-15 near 0) */
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
        const int ok = v[i] == want[i] || fabs(v[i] - want[i]) <= 1e-14 * fabs(want[i]) + 1e-15;
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

static ct_tensor *mat(int r, int c, const double *v) {
    ct_tensor *t = NULL;
    const int64_t shape[2] = {r, c};
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, 2, shape, &t) == CT_OK ? keep(t) : NULL;
}

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *r = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;

    /* [[2, 1], [0, 4]] X = [[2], [8]]: back substitution */
    ct_tensor *T = mat(2, 2, (const double[]){2, 1, 0, 4}), *b = mat(2, 1, (const double[]){2, 8});
    CHECK(ct_linalg_solve_triangular(ctx, T, b, true, true, false, &r));
    EXPECT("solve_triangular", r, 0, 2);

    /* M = [[1, 2], [3, 4]]: row 2 is the pivot; M = P L U */
    ct_tensor *M = mat(2, 2, (const double[]){1, 2, 3, 4}), *LU = NULL, *piv = NULL;
    CHECK(ct_linalg_lu_factor(ctx, M, &LU, &piv));
    keep(LU), keep(piv);
    EXPECT("lu_factor LU", ct_tensor_retain(LU), 3, 4, 1.0 / 3, 2 - 4.0 / 3);
    EXPECT("lu_factor pivots", ct_tensor_retain(piv), 2, 2);
    CHECK(ct_lu_unpack(ctx, LU, piv, true, true, &r, &r2, &r3));
    EXPECT("lu_unpack P", r, 0, 1, 1, 0);
    EXPECT("lu_unpack L", r2, 1, 0, 1.0 / 3, 1);
    EXPECT("lu_unpack U", r3, 3, 4, 0, 2 - 4.0 / 3);
    CHECK(ct_linalg_lu(ctx, M, &r, &r2, &r3));
    keep(r), keep(r3);
    EXPECT("lu L", r2, 1, 0, 1.0 / 3, 1);
    ct_tensor *b2 = mat(2, 1, (const double[]){5, 11}); /* M [1, 2] */
    CHECK(ct_linalg_lu_solve(ctx, LU, piv, b2, true, false, &r));
    EXPECT("lu_solve", r, 1, 2);
    ct_tensor *S = mat(2, 2, (const double[]){1, 2, 2, 4});
    CHECK(ct_linalg_lu_factor_ex(ctx, S, &r, &r2, &r3)); /* singular: info, no error */
    keep(r), keep(r2);
    EXPECT("lu_factor_ex info", r3, 2);

    /* L = [[2, 0], [1, 1]], A = L L^T = [[4, 2], [2, 2]] */
    ct_tensor *L = mat(2, 2, (const double[]){2, 0, 1, 1}), *b3 = mat(2, 1, (const double[]){6, 4});
    CHECK(ct_cholesky_solve(ctx, b3, L, false, &r));
    EXPECT("cholesky_solve", r, 1, 1);
    CHECK(ct_cholesky_inverse(ctx, L, false, &r));
    EXPECT("cholesky_inverse", r, 0.5, -0.5, -0.5, 1);

    /* least squares through 3 points: x = [1/3, 1/3], |A x - b|^2 = 4/3 */
    ct_tensor *Al = mat(3, 2, (const double[]){1, 0, 0, 1, 1, 1});
    ct_tensor *bl = mat(3, 1, (const double[]){1, 1, 0});
    CHECK(ct_linalg_lstsq(ctx, Al, bl, NAN, "gelsd", &r, &r2, &r3, &r4));
    EXPECT("lstsq solution", r, 1.0 / 3, 1.0 / 3);
    EXPECT("lstsq residuals", r2, 4.0 / 3);
    EXPECT("lstsq rank", r3, 2);
    EXPECT("lstsq singular values", r4, sqrt(3.0), 1);

    ct_tensor *D = mat(2, 2, (const double[]){3, 0, 0, -4});
    CHECK(ct_linalg_svdvals(ctx, D, &r));
    EXPECT("svdvals", r, 4, 3);
    CHECK(ct_linalg_matrix_rank(ctx, S, NAN, NAN, false, &r));
    EXPECT("matrix_rank", r, 1);
    ct_tensor *N = mat(2, 2, (const double[]){0, 1, 0, 0}); /* nilpotent: exp = I + N */
    CHECK(ct_linalg_matrix_exp(ctx, N, &r));
    EXPECT("matrix_exp", r, 1, 1, 0, 1);
    ct_tensor *D2 = mat(2, 2, (const double[]){2, 0, 0, 4});
    CHECK(ct_linalg_inv_ex(ctx, D2, &r, &r2));
    EXPECT("inv_ex", r, 0.5, 0, 0, 0.25);
    EXPECT("inv_ex info", r2, 0);
    CHECK(ct_linalg_solve_ex(ctx, D2, f64(2, (const double[]){1, 1}), &r, &r2));
    EXPECT("solve_ex", r, 0.5, 0.25);
    keep(r2);
    ct_tensor *x = f64(3, (const double[]){1, 2, 3}), *y = f64(3, (const double[]){4, 5, 6});
    CHECK(ct_linalg_vecdot(ctx, x, y, -1, &r));
    EXPECT("vecdot", r, 32);

    /* 2 I of 4 x 4 seen as (2, 2, 2, 2) */
    ct_tensor *I4 = NULL, *I2 = NULL, *T4 = NULL;
    CHECK(ct_tensor_eye(ctx, CT_FLOAT64, 4, 4, &I4));
    keep(I4);
    CHECK(ct_mul_scalar(ctx, I4, 2, &I2));
    keep(I2);
    CHECK(ct_tensor_reshape(ctx, I2, 4, (const int64_t[]){2, 2, 2, 2}, &T4));
    keep(T4);
    CHECK(ct_linalg_tensorinv(ctx, T4, 2, &r));
    EXPECT("tensorinv", r, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5);
    CHECK(ct_linalg_tensorsolve(ctx, T4, mat(2, 2, (const double[]){2, 4, 6, 8}), 0, NULL, &r));
    EXPECT("tensorsolve", r, 1, 2, 3, 4);

    /* v = [1, 1], tau = 1: H = I - v v^T, first column [0, -1] */
    CHECK(ct_linalg_householder_product(ctx, mat(2, 1, (const double[]){9, 1}),
                                        f64(1, (const double[]){1}), &r));
    EXPECT("householder_product", r, 0, -1);
    /* geqrf of [[3], [4]]: R = -5 (LAPACK's sign), v = [1, 0.5], tau = 1.6; ormqr applies
     * Q^T = H to [3, 4]: [-5, 0] */
    ct_tensor *gq = NULL, *gt = NULL;
    CHECK(ct_geqrf(ctx, mat(2, 1, (const double[]){3, 4}), &gq, &gt));
    EXPECT("geqrf", gq, -5, 0.5);
    EXPECT("geqrf tau", gt, 1.6);
    CHECK(ct_ormqr(ctx, gq, gt, mat(2, 1, (const double[]){3, 4}), true, true, &r));
    EXPECT("ormqr", r, -5, 0);
    ct_tensor *D3 = mat(2, 2, (const double[]){1, 0, 0, 4});
    CHECK(ct_linalg_cond(ctx, D3, NULL, &r));
    EXPECT("cond", r, 4);
    CHECK(ct_linalg_cond(ctx, D3, "fro", &r));
    EXPECT("cond fro", r, 4.25);

    /* d/db sum(lu_solve(LU, piv, b)) = M^-T [1, 1] = [-0.5, 0.5] */
    ct_tensor *bg = mat(2, 1, (const double[]){5, 11}), *s = NULL;
    CHECK(ct_tensor_set_requires_grad(bg, true));
    CHECK(ct_linalg_lu_solve(ctx, LU, piv, bg, true, false, &r));
    keep(r);
    CHECK(ct_sum(ctx, r, 0, NULL, false, &s));
    keep(s);
    CHECK(ct_backward(ctx, s, NULL, false));
    EXPECT("grad of sum(lu_solve)", ct_tensor_retain(ct_tensor_grad(bg)), -0.5, 0.5);

    /* LDL^T of [[0, 1], [1, 0]]: one 2 x 2 block, pivots -2 -2 (LAPACK's form), then a solve */
    ct_tensor *LD = NULL, *lpiv = NULL;
    CHECK(ct_linalg_ldl_factor(ctx, mat(2, 2, (const double[]){0, 1, 1, 0}), false, &LD, &lpiv));
    keep(LD), keep(lpiv);
    EXPECT("ldl_factor pivots", ct_tensor_retain(lpiv), -2, -2);
    CHECK(ct_linalg_ldl_solve(ctx, LD, lpiv, mat(2, 1, (const double[]){3, 5}), false, &r));
    EXPECT("ldl_solve", r, 5, 3);
    CHECK(ct_linalg_ldl_factor_ex(ctx, mat(2, 2, (const double[]){0, 0, 0, 0}), false, &r, &r2,
                                  &r3)); /* D[1, 1] = 0: info 1 instead of an error */
    keep(r), keep(r2);
    EXPECT("ldl_factor_ex info", r3, 1);

    /* complete QR of the column [3, 4]: Q = I - 1.6 v v^T with v = [1, 0.5], R = [-5, 0] */
    ct_tensor *col = mat(2, 1, (const double[]){3, 4});
    CHECK(ct_linalg_qr_mode(ctx, col, "complete", &r, &r2));
    EXPECT("qr complete Q", r, -0.6, -0.8, -0.8, 0.6);
    EXPECT("qr complete R", r2, -5, 0);
    /* full SVD of the same column: U (2, 2) orthogonal, S = 5, U[:, :1] S Vh = the column */
    CHECK(ct_linalg_svd_full(ctx, col, true, &r, &r2, &r3));
    keep(r), keep(r3);
    EXPECT("svd full S", r2, 5);
    ct_tensor *ut = NULL, *utu = NULL, *u1 = NULL, *us = NULL;
    CHECK(ct_tensor_transpose(ctx, r, 0, 1, &ut));
    keep(ut);
    CHECK(ct_matmul(ctx, ut, r, &utu));
    EXPECT("svd full U^T U", utu, 1, 0, 0, 1);
    CHECK(ct_tensor_narrow(ctx, r, 1, 0, 1, &u1));
    keep(u1);
    CHECK(ct_mul_scalar(ctx, u1, 5, &us));
    keep(us);
    CHECK(ct_matmul(ctx, us, r3, &r4));
    EXPECT("svd full U S Vh", r4, 3, 4);
    printf("all more-linear-algebra checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

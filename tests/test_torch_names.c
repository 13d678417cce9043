/* torch's further names (src/autograd/aliases_more.c) against torch 1.13's values
 * (scripts/gen_torch_names_ref.py: angle, max / min with ties and their gradient, frobenius and
 * nuclear norms, every linalg.norm form, linalg.vander, triangular_solve), against the functions
 * they forward to (svd's V = Vh^T, qr, cholesky, slogdet, lu_solve, matrix_power / exp, orgqr,
 * linalg.cross / diagonal / matmul, bit for bit), the predicates' tables, and the error paths. */
#include "test_util.h"

#include "data/torch_names_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define T(R) tab(R, R##_nd, R##_shape, false)
#define TG(R) tab(R, R##_nd, R##_shape, true)
#define SAME(what, t, R, tol) tu_same_as(what, t, R, R##_nd, R##_shape, tol)

static ct_tensor *tab(const double *v, int nd, const int64_t *shape, bool rg) {
    ct_tensor *t = tu_from_vals(ctx, CT_FLOAT64, nd, shape, v);
    if (rg && t) CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
static void rel(int n, ct_tensor **ts) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}

TEST(angle_max_min) {
    ct_tensor *x = TG(ang_x), *y = NULL, *s = NULL, *xi = NULL, *xf = NULL;
    CHECK_OK(ct_angle(ctx, x, &y));
    SAME("angle", y, ang_y, 0);
    CHECK(y && ct_tensor_requires_grad(y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    double *g = tu_read(ct_tensor_grad(x));
    for (int i = 0; g && i < 8; i++)
        CHECK_MSG(g[i] == 0, "angle gradient [%d] = %g", i, g[i]);
    free(g);
    rel(1, &y), rel(1, &s);
    CHECK_OK(ct_tensor_from_host(ctx, (const int32_t[]){3, -1, 0}, CT_INT32, 1, SH(3), &xi));
    CHECK_OK(ct_angle(ctx, xi, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    CHECK_OK(ct_cast(ctx, y, CT_FLOAT64, &xf));
    SAME("angle int32", xf, angi_y, 0);
    rel(1, &y), rel(1, &xf);
    ct_tensor *m = TG(mx_x);
    CHECK_OK(ct_max(ctx, m, &y));
    SAME("max", y, mx_y, 0);
    CHECK_OK(ct_backward(ctx, y, NULL, false));
    SAME("max gradient (ties share it)", ct_tensor_grad(m), mx_g, 0);
    rel(1, &y);
    CHECK_OK(ct_min(ctx, m, &y));
    SAME("min", y, mn_y, 0);
    rel(1, &y);
    /* NaN: the gradient goes evenly to the NaNs (torch's evenly_distribute_backward) */
    ct_tensor *xn = tu_from_vals(ctx, CT_FLOAT64, 1, SH(4), (const double[]){1, NAN, 3, NAN});
    CHECK_OK(ct_tensor_set_requires_grad(xn, true));
    CHECK_OK(ct_min(ctx, xn, &y));
    CHECK_OK(ct_backward(ctx, y, NULL, false));
    double *gn = tu_read(ct_tensor_grad(xn));
    CHECK(gn && gn[0] == 0 && gn[1] == 0.5 && gn[2] == 0 && gn[3] == 0.5);
    free(gn), rel(1, &y), rel(1, &xn);
    ct_tensor *e = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(0), &e));
    CHECK_ST(ct_max(ctx, e, &y), CT_ERR_SHAPE);
    ct_tensor *tl[] = {x, xi, m, e};
    rel(4, tl);
}

TEST(norms) {
    ct_tensor *a = T(nrm_a), *a0 = NULL, *a00 = NULL, *y = NULL;
    CHECK_OK(ct_select(ctx, a, 0, 0, &a0));
    CHECK_OK(ct_select(ctx, a0, 0, 0, &a00));
    CHECK_OK(ct_frobenius_norm(ctx, a0, 0, NULL, false, &y));
    SAME("frobenius_norm", y, fro_all, 1e-15), rel(1, &y);
    CHECK_OK(ct_frobenius_norm(ctx, a, 1, (const int[]){1}, false, &y));
    SAME("frobenius_norm dim 1", y, fro_d1, 1e-15), rel(1, &y);
    CHECK_OK(ct_frobenius_norm(ctx, a, 2, (const int[]){0, 2}, true, &y));
    SAME("frobenius_norm dims (0, 2) keepdim", y, fro_d2k, 1e-15), rel(1, &y);
    CHECK_ST(ct_frobenius_norm(ctx, a, 3, (const int[]){0, 1, 2}, false, &y), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_nuclear_norm(ctx, a0, NULL, false, &y));
    SAME("nuclear_norm", y, nuc_2d, 1e-14), rel(1, &y);
    CHECK_OK(ct_nuclear_norm(ctx, a, (const int[]){2, 0}, false, &y));
    SAME("nuclear_norm dims", y, nuc_d, 1e-14), rel(1, &y);
    CHECK_ST(ct_nuclear_norm(ctx, a, NULL, false, &y), CT_ERR_SHAPE);
    CHECK_OK(ct_linalg_norm(ctx, a, NULL, 0, NULL, false, &y));
    SAME("linalg.norm", y, ln_none, 1e-15), rel(1, &y);
    CHECK_OK(ct_linalg_norm(ctx, a00, "3.5", 0, NULL, false, &y));
    SAME("linalg.norm 3.5", y, ln_v1, 1e-15), rel(1, &y);
    CHECK_OK(ct_linalg_norm(ctx, a0, "2", 0, NULL, false, &y));
    SAME("linalg.norm matrix 2", y, ln_m2, 1e-14), rel(1, &y);
    CHECK_OK(ct_linalg_norm(ctx, a0, "inf", 0, NULL, false, &y));
    SAME("linalg.norm matrix inf", y, ln_minf, 1e-15), rel(1, &y);
    CHECK_OK(ct_linalg_norm(ctx, a, "nuc", 2, (const int[]){0, 1}, false, &y));
    SAME("linalg.norm nuc", y, ln_nuc, 1e-14), rel(1, &y);
    CHECK_OK(ct_linalg_norm(ctx, a, "-inf", 1, (const int[]){1}, true, &y));
    SAME("linalg.norm -inf dim 1", y, ln_dim, 0), rel(1, &y);
    CHECK_OK(ct_linalg_norm(ctx, a, NULL, 2, (const int[]){2, 1}, false, &y));
    SAME("linalg.norm fro dims (2, 1)", y, ln_fro, 1e-15), rel(1, &y);
    CHECK_ST(ct_linalg_norm(ctx, a, "2", 0, NULL, false, &y), CT_ERR_SHAPE); /* 3-d, ord */
    CHECK_ST(ct_linalg_norm(ctx, a00, "fro", 0, NULL, false, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_norm(ctx, a0, "two", 0, NULL, false, &y), CT_ERR_INVALID_ARG);
    ct_tensor *tl[] = {a, a0, a00};
    rel(3, tl);
}

TEST(vander_and_triangular_solve) {
    ct_tensor *v = T(vd_x), *y = NULL, *vi = NULL, *yf = NULL;
    CHECK_OK(ct_linalg_vander(ctx, v, -1, &y));
    SAME("linalg.vander", y, vd_y, 0), rel(1, &y);
    CHECK_OK(ct_linalg_vander(ctx, v, 3, &y));
    SAME("linalg.vander N 3", y, vd_y3, 0), rel(1, &y);
    CHECK_ST(ct_linalg_vander(ctx, v, 1, &y), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_from_host(ctx, (const int32_t[]){2, -3, 5}, CT_INT32, 1, SH(3), &vi));
    CHECK_OK(ct_linalg_vander(ctx, vi, -1, &y));
    CHECK(y && (ct_tensor_dtype(y) == CT_INT64) == (vdi_dtype_is_int64 != 0));
    CHECK_OK(ct_cast(ctx, y, CT_FLOAT64, &yf));
    SAME("linalg.vander int32", yf, vdi_y, 0);
    rel(1, &y), rel(1, &yf);
    ct_tensor *A = T(ts_A), *b = T(ts_b), *X = NULL, *M = NULL;
    CHECK_OK(ct_triangular_solve(ctx, b, A, true, false, false, &X, &M));
    SAME("triangular_solve", X, ts1_X, 1e-14), SAME("cloned_coefficient", M, ts1_M, 0);
    rel(1, &X), rel(1, &M);
    CHECK_OK(ct_triangular_solve(ctx, b, A, false, false, false, &X, &M));
    SAME("triangular_solve lower", X, ts2_X, 1e-14), rel(1, &X), rel(1, &M);
    CHECK_OK(ct_triangular_solve(ctx, b, A, true, true, false, &X, NULL));
    SAME("triangular_solve transpose", X, ts3_X, 1e-14), rel(1, &X);
    CHECK_OK(ct_triangular_solve(ctx, b, A, false, true, true, &X, &M));
    SAME("triangular_solve lower transpose unit", X, ts4_X, 1e-14);
    SAME("cloned_coefficient 4", M, ts4_M, 0), rel(1, &X), rel(1, &M);
    CHECK_ST(ct_triangular_solve(ctx, v, A, true, false, false, &X, &M), CT_ERR_SHAPE);
    CHECK(X == NULL && M == NULL);
    ct_tensor *tl[] = {v, vi, A, b};
    rel(4, tl);
}

/* each older name gives its linalg function's bits */
TEST(forwards_and_predicates) {
    ct_tensor *a = NULL, *sq = NULL, *spd = NULL, *t[24] = {NULL};
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, SH(2, 4, 3), 5, 0, &a));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, SH(2, 3, 3), 6, 0, &sq));
    CHECK_OK(ct_matmul(ctx, sq, sq, &t[0])); /* a square matrix; spd = sq sq^T + 3 I */
    CHECK_OK(ct_tensor_transpose(ctx, sq, -2, -1, &t[1]));
    CHECK_OK(ct_matmul(ctx, sq, t[1], &t[2]));
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, 3, 3, &t[3]));
    CHECK_OK(ct_mul_scalar(ctx, t[3], 3, &t[4]));
    CHECK_OK(ct_add(ctx, t[2], t[4], &spd));
    /* svd: U, S as linalg.svd, V = Vh^T; compute_uv false: zeros */
    ct_tensor *U = NULL, *S = NULL, *V = NULL, *U2 = NULL, *S2 = NULL, *Vh = NULL;
    CHECK_OK(ct_svd(ctx, a, true, true, &U, &S, &V));
    CHECK_OK(ct_linalg_svd(ctx, a, &U2, &S2, &Vh));
    CHECK_OK(ct_tensor_transpose(ctx, Vh, -2, -1, &t[5]));
    CHECK(tu_same_values(U, U2) && tu_same_values(S, S2) && tu_same_values(V, t[5]));
    CHECK(tu_same_shape(V, 3, SH(2, 3, 3)));
    rel(1, &U), rel(1, &S), rel(1, &V);
    CHECK_OK(ct_svd(ctx, a, true, false, &U, &S, &V));
    CHECK_OK(ct_linalg_svdvals(ctx, a, &t[22])); /* torch.svd takes svdvals' S here */
    CHECK(tu_same_values(S, t[22]) && tu_same_shape(U, 3, SH(2, 4, 4)) &&
          tu_same_shape(V, 3, SH(2, 3, 3)));
    double *uz = U ? tu_read(U) : NULL;
    for (int i = 0; uz && i < 32; i++)
        CHECK(uz[i] == 0);
    free(uz);
    rel(1, &U), rel(1, &S), rel(1, &V);
    CHECK_OK(ct_svd(ctx, a, false, true, &U, &S, &V)); /* full: U (4, 4), V (3, 3) */
    CHECK(tu_same_shape(U, 3, SH(2, 4, 4)) && tu_same_shape(V, 3, SH(2, 3, 3)));
    rel(1, &U), rel(1, &S), rel(1, &V);
    CHECK_OK(ct_svd(ctx, sq, false, true, &U, &S, &V)); /* square: full = reduced */
    rel(1, &U), rel(1, &S), rel(1, &V);
    /* qr, cholesky, slogdet, matrix_power, matrix_exp */
    ct_tensor *Q = NULL, *R = NULL, *Q2 = NULL, *R2 = NULL;
    CHECK_OK(ct_qr(ctx, a, true, &Q, &R));
    CHECK_OK(ct_linalg_qr(ctx, a, &Q2, &R2));
    CHECK(tu_same_values(Q, Q2) && tu_same_values(R, R2));
    CHECK_OK(ct_qr(ctx, a, false, &t[6], &t[7])); /* complete: Q (4, 4), R (4, 3) */
    CHECK(tu_same_shape(t[6], 3, SH(2, 4, 4)) && tu_same_shape(t[7], 3, SH(2, 4, 3)));
    CHECK_OK(ct_cholesky(ctx, spd, true, &t[8]));
    CHECK_OK(ct_linalg_cholesky(ctx, spd, true, &t[9]));
    CHECK(tu_same_values(t[8], t[9]));
    CHECK_OK(ct_slogdet(ctx, sq, &t[10], &t[11]));
    CHECK_OK(ct_linalg_slogdet(ctx, sq, &t[12], &t[13]));
    CHECK(tu_same_values(t[10], t[12]) && tu_same_values(t[11], t[13]));
    CHECK_OK(ct_matrix_power(ctx, sq, 3, &t[14]));
    CHECK_OK(ct_linalg_matrix_power(ctx, sq, 3, &t[15]));
    CHECK(tu_same_values(t[14], t[15]));
    CHECK_OK(ct_matrix_exp(ctx, sq, &t[16]));
    CHECK_OK(ct_linalg_matrix_exp(ctx, sq, &t[17]));
    CHECK(tu_same_values(t[16], t[17]));
    /* lu_solve(b, LU, pivots) = linalg.lu_solve(LU, pivots, b); A X = b holds */
    ct_tensor *LU = NULL, *piv = NULL, *X = NULL, *X2 = NULL, *AX = NULL;
    CHECK_OK(ct_linalg_lu_factor(ctx, sq, &LU, &piv));
    CHECK_OK(ct_lu_solve(ctx, spd, LU, piv, &X));
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, spd, true, false, &X2));
    CHECK(tu_same_values(X, X2));
    CHECK_OK(ct_matmul(ctx, sq, X, &AX));
    double *p = tu_read(AX), *q = tu_read(spd);
    for (int i = 0; p && q && i < 18; i++)
        CHECK_MSG(fabs(p[i] - q[i]) < 1e-10 * (1 + fabs(q[i])), "A X = b [%d]", i);
    free(p), free(q);
    /* orgqr = householder_product; linalg.cross / diagonal / matmul */
    ct_tensor *tau = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, SH(2, 3), 7, 0, &tau));
    CHECK_OK(ct_orgqr(ctx, a, tau, &t[18]));
    CHECK_OK(ct_linalg_householder_product(ctx, a, tau, &t[19]));
    CHECK(tu_same_values(t[18], t[19]));
    CHECK_OK(ct_linalg_cross(ctx, sq, spd, -1, &t[20]));
    CHECK_OK(ct_cross(ctx, sq, spd, -1, &t[21]));
    CHECK(tu_same_values(t[20], t[21]));
    ct_tensor *d1 = NULL, *d2 = NULL, *mm1 = NULL, *mm2 = NULL;
    CHECK_OK(ct_linalg_diagonal(ctx, a, 1, -2, -1, &d1));
    CHECK_OK(ct_diagonal(ctx, a, 1, -2, -1, &d2));
    CHECK(tu_same_values(d1, d2));
    CHECK_OK(ct_linalg_matmul(ctx, a, sq, &mm1));
    CHECK_OK(ct_matmul(ctx, a, sq, &mm2));
    CHECK(tu_same_values(mm1, mm2));
    /* predicates, real / conj / imag */
    ct_tensor *u8 = NULL, *bl = NULL, *i16 = NULL, *one = NULL, *two = NULL, *nan = NULL, *r = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_UINT8, 1, SH(2), &u8));
    CHECK_OK(ct_tensor_zeros(ctx, CT_BOOL, 1, SH(2), &bl));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT16, 2, SH(2, 3), &i16));
    CHECK(ct_is_floating_point(a) && !ct_is_floating_point(u8) && !ct_is_floating_point(NULL));
    CHECK(!ct_is_complex(a) && ct_is_signed(a) && ct_is_signed(i16) && !ct_is_signed(u8) &&
          !ct_is_signed(bl));
    CHECK(ct_is_same_size(i16, tau) && !ct_is_same_size(a, sq) && !ct_is_same_size(a, NULL));
    bool nz = true;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 1, SH(1), 0.0, &one));
    CHECK_OK(ct_is_nonzero(ctx, one, &nz));
    CHECK(!nz);
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, NAN, &nan));
    CHECK_OK(ct_is_nonzero(ctx, nan, &nz));
    CHECK(nz);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(2), &two));
    CHECK_ST(ct_is_nonzero(ctx, two, &nz), CT_ERR_INVALID_ARG);
    ct_dtype pd = CT_BOOL;
    CHECK_OK(ct_promote_types(CT_INT32, CT_FLOAT16, &pd));
    CHECK(pd == CT_FLOAT16);
    CHECK_OK(ct_real(ctx, a, &r));
    CHECK(r == a);
    rel(1, &r);
    CHECK_OK(ct_conj(ctx, a, &r));
    CHECK(r == a);
    rel(1, &r);
    CHECK_OK(ct_conj_physical(ctx, a, &r));
    rel(1, &r);
    CHECK_OK(ct_resolve_conj(ctx, a, &r));
    rel(1, &r);
    CHECK_OK(ct_resolve_neg(ctx, a, &r));
    rel(1, &r);
    CHECK_ST(ct_imag(ctx, a, &r), CT_ERR_DTYPE);
    CHECK(r == NULL);
    ct_tensor *tl[] = {a,  sq, spd, U2, S2, Vh,  Q,   R,  Q2, R2,  LU,  piv, X,
                       X2, AX, tau, d1, d2, mm1, mm2, u8, bl, i16, one, two, nan};
    rel(sizeof tl / sizeof tl[0], tl);
    rel(24, t);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(angle_max_min);
    RUN(norms);
    RUN(vander_and_triangular_solve);
    RUN(forwards_and_predicates);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

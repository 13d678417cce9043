/* The second linear algebra set (solve_triangular, lu_factor(_ex), lu, lu_solve, lu_unpack,
 * cholesky_solve / inverse, lstsq, svdvals, matrix_rank, matrix_exp, inv_ex, solve_ex, vecdot,
 * tensorinv, tensorsolve, householder_product, cond) against independent oracles: algebraic
 * identities (A X = B residuals, P L U = A, orthogonality, expm(A) expm(-A) = I), long double
 * loops (triangular substitution, Householder products, closed forms of exp), constructed ranks,
 * torch 1.13's tables (tests/data/linalg_more_ref.h from scripts/gen_linalg_more_ref.py),
 * gradients against central differences in float64, and hostile inputs (dtypes, shapes, batch
 * mismatches, singular matrices, zero-size batches, n = 0). */
#include "test_util.h"

#include "data/linalg_more_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 2026;
#define SH(...) ((const int64_t[]){__VA_ARGS__})

static ct_tensor *T64(int nd, const int64_t *shape, const double *v) {
    return tu_from_vals(ctx, CT_FLOAT64, nd, shape, v);
}
static ct_tensor *rnd(ct_dtype dt, int nd, const int64_t *shape, double lo, double hi) {
    return tu_make(ctx, &rng, dt, nd, shape, 0, lo, hi, NULL);
}
/* max |t - ref| over n values (inf when the sizes differ or t is NULL) */
static double maxdiff(const ct_tensor *t, const double *ref, int64_t n) {
    if (!t || ct_tensor_numel(t) != n) return INFINITY;
    double *v = tu_read(t), m = 0;
    for (int64_t i = 0; v && i < n; i++) {
        double d = fabs(v[i] - ref[i]);
        if (!(d <= m)) m = d; /* NaN wins */
    }
    free(v);
    return m;
}
static void release_all(int n, ct_tensor **ts) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}
static double maxdiff_t(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) return INFINITY;
    double *w = tu_read(b);
    double d = w ? maxdiff(a, w, ct_tensor_numel(b)) : INFINITY;
    free(w);
    return d;
}
/* the (i, j) entry of the triangle of a (n x n, row-major) that flags read (bit0 upper, bit2
 * unit) */
static long double tri_at(const double *a, int64_t n, int64_t i, int64_t j, int flags) {
    if (i == j && (flags & 4)) return 1;
    if ((flags & 1) ? j < i : j > i) return 0;
    return a[i * n + j];
}
/* C = op(A) (m x k) B (k x n) in long double, row-major, into double */
static void mm_ld(const double *a, const double *b, double *c, int64_t m, int64_t k, int64_t n) {
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            long double s = 0;
            for (int64_t p = 0; p < k; p++)
                s += (long double)a[i * k + p] * b[p * n + j];
            c[i * n + j] = (double)s;
        }
}

/* ---- solve_triangular ---- */
/* a long double substitution: X with T X = B (left) or X T = B, T from flags */
static void trsolve_ld(const double *a, const double *b, double *x, int64_t n, int64_t k,
                       int flags) {
    const bool up = flags & 1, left = flags & 2;
    if (left) { /* column by column: rows in dependency order */
        for (int64_t c = 0; c < k; c++)
            for (int64_t s = 0; s < n; s++) {
                int64_t i = up ? n - 1 - s : s;
                long double v = b[i * k + c];
                for (int64_t j = 0; j < n; j++)
                    if (j != i && tri_at(a, n, i, j, flags) != 0)
                        v -= tri_at(a, n, i, j, flags) * x[j * k + c];
                x[i * k + c] = (double)(v / tri_at(a, n, i, i, flags));
            }
    } else { /* X T = B: row r, x_j = (b_j - sum_{i != j} x_i T_ij) / T_jj */
        for (int64_t r = 0; r < k; r++)
            for (int64_t s = 0; s < n; s++) {
                int64_t j = up ? s : n - 1 - s;
                long double v = b[r * n + j];
                for (int64_t i = 0; i < n; i++)
                    if (i != j && tri_at(a, n, i, j, flags) != 0)
                        v -= (long double)x[r * n + i] * tri_at(a, n, i, j, flags);
                x[r * n + j] = (double)(v / tri_at(a, n, j, j, flags));
            }
    }
}

TEST(solve_triangular_values) {
    ct_tensor *A = T64(2, SH(3, 3), ref_A33), *B = T64(2, SH(3, 2), ref_B32), *Bt = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, B, 0, 1, &Bt));
    const double *refs[8] = {ref_trsolve_0, ref_trsolve_1, ref_trsolve_2, ref_trsolve_3,
                             ref_trsolve_4, ref_trsolve_5, ref_trsolve_6, ref_trsolve_7};
    double bt[6];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            bt[j * 3 + i] = ref_B32[i * 2 + j];
    for (int f = 0; f < 8; f++) {
        const bool left = f & 2;
        ct_tensor *X = NULL;
        CHECK_OK(ct_linalg_solve_triangular(ctx, A, left ? B : Bt, f & 1, left, f & 4, &X));
        CHECK_MSG(maxdiff(X, refs[f], 6) < 1e-13, "flags %d vs torch: %g", f,
                  maxdiff(X, refs[f], 6));
        double x[6];
        trsolve_ld(ref_A33, left ? ref_B32 : bt, x, 3, 2, f);
        CHECK_MSG(maxdiff(X, x, 6) < 1e-13, "flags %d vs long double: %g", f, maxdiff(X, x, 6));
        ct_tensor_release(X);
    }
    /* a larger batched float32 case: residual of T X = B, broadcast batch dims (2,1) x (4) */
    ct_tensor *Ab = rnd(CT_FLOAT32, 4, SH(2, 1, 7, 7), -1, 1),
              *Bb = rnd(CT_FLOAT32, 3, SH(4, 7, 5), -1, 1);
    ct_tensor *I7 = NULL, *As = NULL, *X = NULL;
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT32, 7, 7, &I7));
    ct_tensor *I4 = NULL;
    CHECK_OK(ct_mul_scalar(ctx, I7, 4, &I4));
    CHECK_OK(ct_add(ctx, Ab, I4, &As));
    CHECK_OK(ct_linalg_solve_triangular(ctx, As, Bb, false, true, false, &X));
    CHECK(tu_same_shape(X, 4, SH(2, 4, 7, 5)) && ct_tensor_dtype(X) == CT_FLOAT32);
    double *av = tu_read(As), *bv = tu_read(Bb), *xv = tu_read(X);
    double worst = 0;
    for (int b0 = 0; av && bv && xv && b0 < 2; b0++)
        for (int b1 = 0; b1 < 4; b1++) {
            double x[35];
            trsolve_ld(av + b0 * 49, bv + b1 * 35, x, 7, 5, 2);
            for (int i = 0; i < 35; i++) {
                double d = fabs(x[i] - xv[(b0 * 4 + b1) * 35 + i]) / (1 + fabs(x[i]));
                worst = d > worst ? d : worst;
            }
        }
    CHECK_MSG(worst < 1e-5, "float32 batched broadcast: %g", worst);
    free(av), free(bv), free(xv);
    ct_tensor_release(X), ct_tensor_release(As), ct_tensor_release(I4), ct_tensor_release(I7);
    ct_tensor_release(Ab), ct_tensor_release(Bb);
    /* promotion: float32 B with float64 A gives float64 (as torch) */
    ct_tensor *Bf = NULL;
    CHECK_OK(ct_cast(ctx, B, CT_FLOAT32, &Bf));
    CHECK_OK(ct_linalg_solve_triangular(ctx, A, Bf, true, true, false, &X));
    CHECK(X && ct_tensor_dtype(X) == CT_FLOAT64 && maxdiff(X, ref_trsolve_3, 6) < 1e-7);
    ct_tensor_release(X), ct_tensor_release(Bf);
    /* a zero diagonal: inf / NaN, no error (torch's trsm) */
    ct_tensor *Z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(3, 3), &Z));
    CHECK_OK(ct_linalg_solve_triangular(ctx, Z, B, true, true, false, &X));
    double *zv = X ? tu_read(X) : NULL;
    CHECK(zv && !isfinite(zv[0]) && !isfinite(zv[4]));
    free(zv), ct_tensor_release(X), ct_tensor_release(Z);
    ct_tensor_release(A), ct_tensor_release(B), ct_tensor_release(Bt);
}

/* ---- LU ---- */
/* P L U for (m, n): from lu_unpack, product in long double compared with a */
static double plu_error(const ct_tensor *P, const ct_tensor *L, const ct_tensor *U, const double *a,
                        int64_t m, int64_t n) {
    const int64_t k = m < n ? m : n;
    double *p = tu_read(P), *l = tu_read(L), *u = tu_read(U);
    double *lu = malloc(sizeof(double) * (size_t)(m * n)),
           *plu = malloc(sizeof(double) * (size_t)(m * n));
    mm_ld(l, u, lu, m, k, n);
    mm_ld(p, lu, plu, m, m, n);
    double e = 0;
    for (int64_t i = 0; i < m * n; i++)
        e = fmax(e, fabs(plu[i] - a[i]));
    /* L unit lower with |l| <= 1 (partial pivoting), U upper, P a permutation */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++) {
            double v = l[i * k + j];
            if (j > i && v != 0) e = INFINITY;
            if (j == i && v != 1) e = INFINITY;
            if (fabs(v) > 1) e = INFINITY;
        }
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < i && j < n; j++)
            if (u[i * n + j] != 0) e = INFINITY;
    for (int64_t i = 0; i < m; i++) {
        double rs = 0, cs = 0;
        for (int64_t j = 0; j < m; j++)
            rs += p[i * m + j], cs += p[j * m + i];
        if (rs != 1 || cs != 1) e = INFINITY;
    }
    free(p), free(l), free(u), free(lu), free(plu);
    return e;
}

TEST(lu_factor_and_unpack) {
    struct {
        const double *a, *lu, *piv;
        int64_t m, n;
    } cs[3] = {{ref_lu33_A, ref_lu33_LU, ref_lu33_piv, 3, 3},
               {ref_lu43_A, ref_lu43_LU, ref_lu43_piv, 4, 3},
               {ref_lu34_A, ref_lu34_LU, ref_lu34_piv, 3, 4}};
    for (int c = 0; c < 3; c++) {
        const int64_t m = cs[c].m, n = cs[c].n, k = m < n ? m : n;
        ct_tensor *A = T64(2, SH(m, n), cs[c].a), *LU = NULL, *piv = NULL, *info = NULL;
        CHECK_OK(ct_linalg_lu_factor(ctx, A, &LU, &piv));
        CHECK_MSG(maxdiff(LU, cs[c].lu, m * n) < 1e-14, "case %d LU vs torch", c);
        CHECK(piv && ct_tensor_dtype(piv) == CT_INT32 && maxdiff(piv, cs[c].piv, k) == 0);
        ct_tensor *P = NULL, *L = NULL, *U = NULL;
        CHECK_OK(ct_lu_unpack(ctx, LU, piv, true, true, &P, &L, &U));
        CHECK(tu_same_shape(P, 2, SH(m, m)) && tu_same_shape(L, 2, SH(m, k)) &&
              tu_same_shape(U, 2, SH(k, n)));
        CHECK_MSG(plu_error(P, L, U, cs[c].a, m, n) < 1e-14, "case %d: P L U != A", c);
        ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(U);
        /* unpack parts: an empty (0,) tensor where not unpacked */
        CHECK_OK(ct_lu_unpack(ctx, LU, piv, false, true, &P, &L, &U));
        CHECK(tu_same_shape(P, 2, SH(m, m)) && tu_same_shape(L, 1, SH(0)) &&
              tu_same_shape(U, 1, SH(0)));
        ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(U);
        CHECK_OK(ct_lu_unpack(ctx, LU, piv, true, false, &P, &L, &U));
        CHECK(tu_same_shape(P, 1, SH(0)) && tu_same_shape(L, 2, SH(m, k)));
        ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(U);
        /* linalg.lu gives the same factors */
        CHECK_OK(ct_linalg_lu(ctx, A, &P, &L, &U));
        CHECK_MSG(plu_error(P, L, U, cs[c].a, m, n) < 1e-14, "case %d: linalg.lu", c);
        ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(U);
        CHECK_OK(ct_linalg_lu_factor_ex(ctx, A, &P, &L, &info));
        CHECK(info && ct_tensor_ndim(info) == 0 && maxdiff(info, (const double[]){0}, 1) == 0);
        CHECK(maxdiff_t(P, LU) == 0);
        ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(info);
        ct_tensor_release(A), ct_tensor_release(LU), ct_tensor_release(piv);
    }
    /* a batch of random float32 matrices, several shapes, strided input */
    const int64_t shapes[3][2] = {{6, 6}, {7, 4}, {3, 8}};
    for (int c = 0; c < 3; c++) {
        const int64_t m = shapes[c][0], n = shapes[c][1];
        ct_tensor *A = tu_make(ctx, &rng, CT_FLOAT64, 3, SH(3, m, n), 1, -1, 1, NULL);
        ct_tensor *P = NULL, *L = NULL, *U = NULL;
        CHECK_OK(ct_linalg_lu(ctx, A, &P, &L, &U));
        double *av = tu_read(A);
        for (int b = 0; av && P && b < 3; b++) {
            ct_tensor *pb = NULL, *lb = NULL, *ub = NULL;
            CHECK_OK(ct_tensor_narrow(ctx, P, 0, b, 1, &pb));
            CHECK_OK(ct_tensor_narrow(ctx, L, 0, b, 1, &lb));
            CHECK_OK(ct_tensor_narrow(ctx, U, 0, b, 1, &ub));
            CHECK_MSG(plu_error(pb, lb, ub, av + b * m * n, m, n) < 1e-14,
                      "batch %d shape %lldx%lld", b, (long long)m, (long long)n);
            ct_tensor_release(pb), ct_tensor_release(lb), ct_tensor_release(ub);
        }
        free(av);
        ct_tensor_release(A), ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(U);
    }
}

TEST(lu_singular_and_empty) {
    /* [[1, 2], [2, 4]]: torch's LU [[2, 4], [0.5, 0]], pivots [2, 2], info 2 */
    ct_tensor *S = T64(2, SH(2, 2), (const double[]){1, 2, 2, 4}), *LU = NULL, *piv = NULL,
              *info = NULL;
    CHECK_ST(ct_linalg_lu_factor(ctx, S, &LU, &piv), CT_ERR_INVALID_ARG);
    CHECK(LU == NULL && piv == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "U[2,2] is zero") != NULL);
    CHECK_OK(ct_linalg_lu_factor_ex(ctx, S, &LU, &piv, &info));
    CHECK(maxdiff(LU, (const double[]){2, 4, 0.5, 0}, 4) == 0);
    CHECK(maxdiff(piv, (const double[]){2, 2}, 2) == 0 &&
          maxdiff(info, (const double[]){2}, 1) == 0);
    ct_tensor_release(LU), ct_tensor_release(piv), ct_tensor_release(info);
    /* a batch: the error names the batch element (torch's words) */
    ct_tensor *Sb = NULL, *E = NULL;
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, 2, 2, &E));
    CHECK_OK(ct_stack(ctx, 2, (const ct_tensor *[]){E, S}, 0, &Sb));
    CHECK_ST(ct_linalg_lu_factor(ctx, Sb, &LU, &piv), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "(Batch element 1): U[2,2] is zero") != NULL);
    CHECK_OK(ct_linalg_lu_factor_ex(ctx, Sb, &LU, &piv, &info));
    CHECK(maxdiff(info, (const double[]){0, 2}, 2) == 0);
    ct_tensor_release(LU), ct_tensor_release(piv), ct_tensor_release(info);
    /* inv_ex / solve_ex on it: info 2 and non-finite values, no error (torch) */
    ct_tensor *Xi = NULL;
    CHECK_OK(ct_linalg_inv_ex(ctx, Sb, &Xi, &info));
    CHECK(maxdiff(info, (const double[]){0, 2}, 2) == 0);
    double *xv = Xi ? tu_read(Xi) : NULL;
    CHECK(xv && xv[0] == 1 && xv[1] == 0 && xv[3] == 1 && !isfinite(xv[4]));
    free(xv), ct_tensor_release(Xi), ct_tensor_release(info);
    ct_tensor *ones = T64(1, SH(2), (const double[]){1, 1});
    CHECK_OK(ct_linalg_solve_ex(ctx, Sb, ones, &Xi, &info));
    CHECK(tu_same_shape(Xi, 2, SH(2, 2)) && maxdiff(info, (const double[]){0, 2}, 2) == 0);
    xv = Xi ? tu_read(Xi) : NULL;
    CHECK(xv && xv[0] == 1 && xv[1] == 1 && !isfinite(xv[2]));
    free(xv), ct_tensor_release(Xi), ct_tensor_release(info);
    CHECK_ST(ct_linalg_solve(ctx, Sb, ones, &Xi), CT_ERR_INVALID_ARG); /* the plain call refuses */
    ct_tensor_release(ones), ct_tensor_release(Sb), ct_tensor_release(E), ct_tensor_release(S);
    /* zero-size batch and n = 0 */
    ct_tensor *Z = NULL, *P = NULL, *L = NULL, *U = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(0, 3, 3), &Z));
    CHECK_OK(ct_linalg_lu_factor(ctx, Z, &LU, &piv));
    CHECK(tu_same_shape(LU, 3, SH(0, 3, 3)) && tu_same_shape(piv, 2, SH(0, 3)));
    CHECK_OK(ct_lu_unpack(ctx, LU, piv, true, true, &P, &L, &U));
    CHECK(tu_same_shape(P, 3, SH(0, 3, 3)) && tu_same_shape(L, 3, SH(0, 3, 3)));
    ct_tensor_release(P), ct_tensor_release(L), ct_tensor_release(U);
    ct_tensor *B0 = NULL, *X0 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(0, 3, 2), &B0));
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, B0, true, false, &X0));
    CHECK(tu_same_shape(X0, 3, SH(0, 3, 2)));
    ct_tensor_release(X0), ct_tensor_release(B0), ct_tensor_release(LU), ct_tensor_release(piv);
    ct_tensor_release(Z);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(0, 0), &Z));
    CHECK_OK(ct_linalg_lu_factor(ctx, Z, &LU, &piv));
    CHECK(tu_same_shape(LU, 2, SH(0, 0)) && tu_same_shape(piv, 1, SH(0)));
    CHECK_OK(ct_linalg_inv_ex(ctx, Z, &Xi, &info));
    CHECK(tu_same_shape(Xi, 2, SH(0, 0)));
    ct_tensor_release(Xi), ct_tensor_release(info);
    CHECK_OK(ct_linalg_matrix_exp(ctx, Z, &Xi));
    CHECK(tu_same_shape(Xi, 2, SH(0, 0)));
    ct_tensor_release(Xi);
    CHECK_OK(ct_linalg_cond(ctx, Z, NULL, &Xi)); /* torch: 0 for a 0 x 0 matrix */
    CHECK(Xi && ct_tensor_ndim(Xi) == 0 && maxdiff(Xi, (const double[]){0}, 1) == 0);
    ct_tensor_release(Xi);
    CHECK_OK(ct_linalg_matrix_rank(ctx, Z, NAN, NAN, false, &Xi));
    CHECK(Xi && ct_tensor_dtype(Xi) == CT_INT64 && ct_tensor_ndim(Xi) == 0);
    ct_tensor_release(Xi);
    ct_tensor_release(LU), ct_tensor_release(piv), ct_tensor_release(Z);
}

/* A X = B residual (left) or X A = B, adjoint: A^T, in long double; a (n x n), x / b (r x c) */
static double solve_resid(const double *a, const double *x, const double *b, int64_t n, int64_t r,
                          int64_t c, bool left, bool adj) {
    double e = 0;
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++) {
            long double s = 0;
            for (int64_t p = 0; p < n; p++) {
                if (left)
                    s += (long double)(adj ? a[p * n + i] : a[i * n + p]) * x[p * c + j];
                else
                    s += (long double)x[i * c + p] * (adj ? a[j * n + p] : a[p * n + j]);
            }
            e = fmax(e, fabs((double)(s - b[i * c + j])));
        }
    return e;
}

TEST(lu_solve_all_modes) {
    ct_tensor *A = T64(2, SH(3, 3), ref_A33), *B = T64(2, SH(3, 2), ref_B32), *Bt = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, B, 0, 1, &Bt));
    ct_tensor *LU = NULL, *piv = NULL;
    CHECK_OK(ct_linalg_lu_factor(ctx, A, &LU, &piv));
    const double *refs[4] = {ref_lusolve_0, ref_lusolve_1, ref_lusolve_2, ref_lusolve_3};
    double bt[6];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            bt[j * 3 + i] = ref_B32[i * 2 + j];
    for (int f = 0; f < 4; f++) {
        const bool left = f & 1, adj = f & 2;
        ct_tensor *X = NULL;
        CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, left ? B : Bt, left, adj, &X));
        CHECK_MSG(maxdiff(X, refs[f], 6) < 1e-14, "mode %d vs torch: %g", f,
                  maxdiff(X, refs[f], 6));
        double *xv = X ? tu_read(X) : NULL;
        CHECK_MSG(xv && solve_resid(ref_A33, xv, left ? ref_B32 : bt, 3, left ? 3 : 2, left ? 2 : 3,
                                    left, adj) < 1e-14,
                  "mode %d residual", f);
        free(xv), ct_tensor_release(X);
    }
    /* B with more batch dims than LU (broadcast), random larger system in float32 */
    ct_tensor *Ab = rnd(CT_FLOAT32, 2, SH(9, 9), -1, 1),
              *Bb = rnd(CT_FLOAT32, 3, SH(4, 9, 3), -1, 1);
    ct_tensor *LUb = NULL, *pb = NULL, *X = NULL;
    CHECK_OK(ct_linalg_lu_factor(ctx, Ab, &LUb, &pb));
    CHECK_OK(ct_linalg_lu_solve(ctx, LUb, pb, Bb, true, false, &X));
    CHECK(tu_same_shape(X, 3, SH(4, 9, 3)));
    double *av = tu_read(Ab), *bv = tu_read(Bb), *xv = X ? tu_read(X) : NULL;
    for (int b = 0; xv && b < 4; b++) {
        double bn = 0;
        for (int i = 0; i < 27; i++)
            bn = fmax(bn, fabs(xv[b * 27 + i]));
        CHECK_MSG(solve_resid(av, xv + b * 27, bv + b * 27, 9, 9, 3, true, false) < 1e-4 * (1 + bn),
                  "float32 batch %d", b);
    }
    free(av), free(bv), free(xv);
    ct_tensor_release(X), ct_tensor_release(LUb), ct_tensor_release(pb), ct_tensor_release(Ab);
    ct_tensor_release(Bb);
    ct_tensor_release(A), ct_tensor_release(B), ct_tensor_release(Bt), ct_tensor_release(LU);
    ct_tensor_release(piv);
}

TEST(cholesky_solve_and_inverse) {
    ct_tensor *L = T64(2, SH(3, 3), ref_chol_L), *B = T64(2, SH(3, 2), ref_B32), *U = NULL,
              *X = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, L, 0, 1, &U));
    CHECK_OK(ct_cholesky_solve(ctx, B, L, false, &X));
    CHECK_MSG(maxdiff(X, ref_cholsolve_lower, 6) < 1e-14, "lower vs torch");
    ct_tensor_release(X);
    CHECK_OK(ct_cholesky_solve(ctx, B, U, true, &X));
    CHECK_MSG(maxdiff(X, ref_cholsolve_upper, 6) < 1e-14, "upper vs torch");
    /* A X = B with A = L L^T (long double) */
    double a[9], lt[9], *xv = X ? tu_read(X) : NULL;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            lt[i * 3 + j] = ref_chol_L[j * 3 + i];
    mm_ld(ref_chol_L, lt, a, 3, 3, 3);
    CHECK(xv && solve_resid(a, xv, ref_B32, 3, 3, 2, true, false) < 1e-13);
    free(xv), ct_tensor_release(X);
    /* cholesky_inverse: torch's values and A A^-1 = I */
    CHECK_OK(ct_cholesky_inverse(ctx, L, false, &X));
    CHECK_MSG(maxdiff(X, ref_cholinv_lower, 9) < 1e-14, "inverse vs torch");
    xv = X ? tu_read(X) : NULL;
    double prod[9];
    if (xv) mm_ld(a, xv, prod, 3, 3, 3);
    for (int i = 0; xv && i < 9; i++)
        CHECK(fabs(prod[i] - (i % 4 == 0)) < 1e-13);
    free(xv), ct_tensor_release(X);
    CHECK_OK(ct_cholesky_inverse(ctx, U, true, &X));
    CHECK(maxdiff(X, ref_cholinv_lower, 9) < 1e-14);
    ct_tensor_release(X);
    /* broadcast: B (2, 3, 2) against one L */
    ct_tensor *Bb = NULL;
    CHECK_OK(ct_stack(ctx, 2, (const ct_tensor *[]){B, B}, 0, &Bb));
    CHECK_OK(ct_cholesky_solve(ctx, Bb, L, false, &X));
    CHECK(tu_same_shape(X, 3, SH(2, 3, 2)));
    xv = X ? tu_read(X) : NULL;
    CHECK(xv && fabs(xv[7] - ref_cholsolve_lower[1]) < 1e-14);
    free(xv), ct_tensor_release(X), ct_tensor_release(Bb);
    /* a zero on the diagonal: cholesky_inverse refuses (torch), cholesky_solve gives NaN / inf */
    ct_tensor *Z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(3, 3), &Z));
    CHECK_ST(ct_cholesky_inverse(ctx, Z, false, &X), CT_ERR_INVALID_ARG);
    CHECK(X == NULL && strstr(ct_ctx_last_error(ctx), "diagonal element 1 is zero") != NULL);
    CHECK_OK(ct_cholesky_solve(ctx, B, Z, false, &X));
    xv = X ? tu_read(X) : NULL;
    CHECK(xv && !isfinite(xv[0]));
    free(xv), ct_tensor_release(X), ct_tensor_release(Z);
    ct_tensor_release(L), ct_tensor_release(U), ct_tensor_release(B);
}

TEST(lstsq_drivers) {
    ct_tensor *A = T64(2, SH(5, 3), ref_A53), *B = T64(2, SH(5, 2), ref_B52);
    const char *drv[4] = {"gels", "gelsy", "gelsd", "gelss"};
    const double *rx[4] = {ref_lstsq_gels_x, ref_lstsq_gelsy_x, ref_lstsq_gelsd_x,
                           ref_lstsq_gelss_x};
    const double *rr[4] = {ref_lstsq_gels_res, ref_lstsq_gelsy_res, ref_lstsq_gelsd_res,
                           ref_lstsq_gelss_res};
    const double *rs[4] = {ref_lstsq_gels_sv, ref_lstsq_gelsy_sv, ref_lstsq_gelsd_sv,
                           ref_lstsq_gelss_sv};
    const int64_t nres[4] = {2, 0, 2, 2}, nsv[4] = {0, 0, 3, 3};
    for (int d = 0; d < 4; d++) {
        ct_tensor *X = NULL, *res = NULL, *rank = NULL, *sv = NULL;
        CHECK_OK(ct_linalg_lstsq(ctx, A, B, NAN, drv[d], &X, &res, &rank, &sv));
        CHECK_MSG(maxdiff(X, rx[d], 6) < 1e-13, "%s solution vs torch", drv[d]);
        CHECK_MSG(maxdiff(res, rr[d], nres[d]) < 1e-13, "%s residuals vs torch", drv[d]);
        CHECK_MSG(maxdiff(sv, rs[d], nsv[d]) < 1e-13, "%s singular values vs torch", drv[d]);
        CHECK(rank && ct_tensor_dtype(rank) == CT_INT64);
        if (d == 0)
            CHECK(tu_same_shape(rank, 1, SH(0)));
        else
            CHECK(rank && ct_tensor_ndim(rank) == 0 && maxdiff(rank, (const double[]){3}, 1) == 0);
        /* normal equations: A^T (A X - B) = 0; residuals = |A X - B|^2 per column */
        double *xv = X ? tu_read(X) : NULL, ax[10], r[10];
        if (xv) mm_ld(ref_A53, xv, ax, 5, 3, 2);
        for (int i = 0; xv && i < 10; i++)
            r[i] = ax[i] - ref_B52[i];
        for (int j = 0; xv && j < 3; j++)
            for (int c = 0; c < 2; c++) {
                double s = 0;
                for (int i = 0; i < 5; i++)
                    s += ref_A53[i * 3 + j] * r[i * 2 + c];
                CHECK_MSG(fabs(s) < 1e-13, "%s normal equation %d,%d: %g", drv[d], j, c, s);
            }
        if (nres[d]) {
            double *rv = tu_read(res);
            for (int c = 0; rv && c < 2; c++) {
                double s = 0;
                for (int i = 0; i < 5; i++)
                    s += r[i * 2 + c] * r[i * 2 + c];
                CHECK(fabs(rv[c] - s) < 1e-13);
            }
            free(rv);
        }
        free(xv);
        ct_tensor_release(X), ct_tensor_release(res), ct_tensor_release(rank),
            ct_tensor_release(sv);
    }
    /* the minimum-norm solution of a wide system: A X = B exactly, and X = pinv(A) B */
    ct_tensor *Aw = T64(2, SH(3, 5), ref_A35), *Bw = T64(2, SH(3, 2), ref_B32w), *X = NULL,
              *pi = NULL;
    ct_tensor *px = NULL;
    CHECK_OK(ct_linalg_lstsq(ctx, Aw, Bw, NAN, "gelsd", &X, NULL, NULL, NULL));
    CHECK(tu_same_shape(X, 2, SH(5, 2)) && maxdiff(X, ref_lstsq_wide_x, 10) < 1e-13);
    CHECK_OK(ct_linalg_pinv(ctx, Aw, NAN, NAN, &pi));
    CHECK_OK(ct_matmul(ctx, pi, Bw, &px));
    CHECK(maxdiff_t(X, px) < 1e-13);
    ct_tensor_release(X), ct_tensor_release(pi), ct_tensor_release(px);
    /* a vector right-hand side; a batch of A against one B (broadcast) */
    ct_tensor *b1 = NULL, *Ab = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, B, 1, 0, 1, &px));
    CHECK_OK(ct_tensor_squeeze(ctx, px, 1, &b1));
    ct_tensor *r1 = NULL;
    CHECK_OK(ct_linalg_lstsq(ctx, A, b1, NAN, "gelsd", &X, &r1, NULL, NULL));
    CHECK(tu_same_shape(X, 1, SH(3)) && tu_same_shape(r1, 1, SH(1))); /* torch's (1,) */
    CHECK(maxdiff(r1, ref_lstsq_gelsd_res, 1) < 1e-13);
    ct_tensor_release(r1);
    double col0[3] = {ref_lstsq_gelsd_x[0], ref_lstsq_gelsd_x[2], ref_lstsq_gelsd_x[4]};
    CHECK(maxdiff(X, col0, 3) < 1e-13);
    ct_tensor_release(X), ct_tensor_release(px), ct_tensor_release(b1);
    CHECK_OK(ct_stack(ctx, 2, (const ct_tensor *[]){A, A}, 0, &Ab));
    ct_tensor *rank = NULL, *res = NULL, *B1 = NULL;
    CHECK_OK(ct_tensor_unsqueeze(ctx, B, 0, &B1)); /* (1, 5, 2) broadcasts against (2, 5, 3) */
    CHECK_OK(ct_linalg_lstsq(ctx, Ab, B1, NAN, NULL, &X, &res, &rank, NULL));
    CHECK(tu_same_shape(X, 3, SH(2, 3, 2)) && tu_same_shape(rank, 1, SH(2)) &&
          tu_same_shape(res, 1, SH(0)));
    double *xb = X ? tu_read(X) : NULL;
    CHECK(xb && fabs(xb[6 + 3] - ref_lstsq_gelsy_x[3]) < 1e-13);
    free(xb), ct_tensor_release(B1);
    CHECK_ST(ct_linalg_lstsq(ctx, Ab, B, NAN, NULL, &px, NULL, NULL, NULL), CT_ERR_SHAPE);
    ct_tensor_release(X), ct_tensor_release(rank), ct_tensor_release(res), ct_tensor_release(Ab);
    /* rank deficiency: gelsy / gelsd see rank 1 of a rank-1 matrix */
    ct_tensor *R1 = T64(2, SH(3, 2), (const double[]){1, 2, 2, 4, 3, 6}),
              *b3 = T64(2, SH(3, 1), (const double[]){1, 1, 1});
    for (int d = 1; d < 4; d++) {
        CHECK_OK(ct_linalg_lstsq(ctx, R1, b3, NAN, drv[d], &X, &res, &rank, NULL));
        CHECK_MSG(maxdiff(rank, (const double[]){1}, 1) == 0, "%s rank", drv[d]);
        CHECK(tu_same_shape(res, 1, SH(0))); /* not full rank: no residuals (torch) */
        ct_tensor_release(X), ct_tensor_release(rank), ct_tensor_release(res);
    }
    ct_tensor_release(R1), ct_tensor_release(b3), ct_tensor_release(Aw), ct_tensor_release(Bw);
    ct_tensor_release(A), ct_tensor_release(B);
}

TEST(svdvals_rank_cond) {
    ct_tensor *A = T64(2, SH(5, 3), ref_A53), *S = NULL, *S2 = NULL, *U = NULL, *Vh = NULL;
    CHECK_OK(ct_linalg_svdvals(ctx, A, &S));
    CHECK(maxdiff(S, ref_svdvals_A53, 3) < 1e-14);
    CHECK_OK(ct_linalg_svd(ctx, A, &U, &S2, &Vh));
    CHECK(maxdiff_t(S, S2) < 1e-14);
    /* sum s_i^2 = |A|_F^2 */
    double *sv = S ? tu_read(S) : NULL, f = 0, s2 = 0;
    for (int i = 0; i < 15; i++)
        f += ref_A53[i] * ref_A53[i];
    for (int i = 0; sv && i < 3; i++)
        s2 += sv[i] * sv[i];
    CHECK(sv && fabs(f - s2) < 1e-13 && sv[0] >= sv[1] && sv[1] >= sv[2]);
    free(sv);
    ct_tensor_release(S), ct_tensor_release(S2), ct_tensor_release(U), ct_tensor_release(Vh);
    /* constructed ranks: U V^T with U (m, r), V (n, r) random has rank r */
    for (int r = 0; r <= 4; r++) {
        ct_tensor *Um = rnd(CT_FLOAT64, 3, SH(2, 6, r), -1, 1),
                  *Vm = rnd(CT_FLOAT64, 3, SH(2, 5, r), -1, 1);
        ct_tensor *Vt = NULL, *M = NULL, *rk = NULL;
        CHECK_OK(ct_tensor_transpose(ctx, Vm, 1, 2, &Vt));
        CHECK_OK(ct_matmul(ctx, Um, Vt, &M));
        CHECK_OK(ct_linalg_matrix_rank(ctx, M, NAN, NAN, false, &rk));
        CHECK_MSG(tu_same_shape(rk, 1, SH(2)) && maxdiff(rk, (const double[]){r, r}, 2) == 0,
                  "rank %d", r);
        ct_tensor_release(rk);
        /* symmetric M M^T: the hermitian path agrees */
        ct_tensor *Mt = NULL, *H = NULL;
        CHECK_OK(ct_tensor_transpose(ctx, M, 1, 2, &Mt));
        CHECK_OK(ct_matmul(ctx, M, Mt, &H));
        CHECK_OK(ct_linalg_matrix_rank(ctx, H, NAN, NAN, true, &rk));
        CHECK_MSG(maxdiff(rk, (const double[]){r, r}, 2) == 0, "hermitian rank %d", r);
        ct_tensor_release(rk), ct_tensor_release(Mt), ct_tensor_release(H);
        ct_tensor_release(Um), ct_tensor_release(Vm), ct_tensor_release(Vt), ct_tensor_release(M);
    }
    /* tolerances as torch (singular values 1, 1e-3, 1e-9) */
    ct_tensor *R = T64(2, SH(3, 3), ref_rank_R), *rk = NULL;
    const double tol[7][2] = {{NAN, NAN}, {1e-2, NAN}, {NAN, 1e-2}, {1e-12, 1e-6},
                              {0, NAN},   {2, NAN},    {NAN, 1e-10}};
    for (int i = 0; i < 7; i++) {
        CHECK_OK(ct_linalg_matrix_rank(ctx, R, tol[i][0], tol[i][1], false, &rk));
        CHECK_MSG(maxdiff(rk, &ref_ranks[i], 1) == 0, "tolerance case %d", i);
        ct_tensor_release(rk);
    }
    ct_tensor_release(R);
    /* cond for every ord against torch */
    ct_tensor *A3 = T64(2, SH(3, 3), ref_A33), *c = NULL;
    const char *ords[9] = {NULL, "2", "-2", "fro", "nuc", "inf", "-inf", "1", "-1"};
    const double *rc[9] = {ref_cond_0, ref_cond_1, ref_cond_2, ref_cond_3, ref_cond_4,
                           ref_cond_5, ref_cond_6, ref_cond_7, ref_cond_8};
    for (int i = 0; i < 9; i++) {
        CHECK_OK(ct_linalg_cond(ctx, A3, ords[i], &c));
        CHECK_MSG(c && ct_tensor_ndim(c) == 0 && maxdiff(c, rc[i], 1) < 1e-12 * fabs(rc[i][0]),
                  "cond %s", ords[i] ? ords[i] : "None");
        ct_tensor_release(c);
    }
    /* a singular matrix: inf through the inverse's norm (torch) */
    ct_tensor *Sg = T64(2, SH(2, 2), (const double[]){1, 2, 2, 4});
    CHECK_OK(ct_linalg_cond(ctx, Sg, "fro", &c));
    double *cv = c ? tu_read(c) : NULL;
    CHECK(cv && isinf(cv[0]) && cv[0] > 0);
    free(cv);
    ct_tensor_release(c), ct_tensor_release(Sg);
    ct_tensor_release(A3), ct_tensor_release(A);
}

/* exp of an n x n matrix in long double: Taylor with scaling and squaring (an independent,
 * plain implementation) */
static void expm_ld(const double *a, double *out, int n) {
    long double x[64], e[64], t[64], t2[64];
    double nrm = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += fabs(a[i * n + j]);
        nrm = fmax(nrm, s);
    }
    int s = nrm > 0.25 ? (int)ceil(log2(nrm / 0.25)) : 0;
    for (int i = 0; i < n * n; i++)
        x[i] = ldexpl(a[i], -s), e[i] = (i % (n + 1) == 0), t[i] = e[i];
    for (int k = 1; k <= 30; k++) { /* t = t x / k; e += t */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                long double v = 0;
                for (int p = 0; p < n; p++)
                    v += t[i * n + p] * x[p * n + j];
                t2[i * n + j] = v / k;
            }
        for (int i = 0; i < n * n; i++)
            t[i] = t2[i], e[i] += t[i];
    }
    for (int q = 0; q < s; q++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                long double v = 0;
                for (int p = 0; p < n; p++)
                    v += e[i * n + p] * e[p * n + j];
                t2[i * n + j] = v;
            }
        for (int i = 0; i < n * n; i++)
            e[i] = t2[i];
    }
    for (int i = 0; i < n * n; i++)
        out[i] = (double)e[i];
}

TEST(matrix_exp_identities) {
    ct_tensor *M = T64(2, SH(3, 3), ref_M33), *E = NULL;
    CHECK_OK(ct_linalg_matrix_exp(ctx, M, &E));
    double want[9];
    expm_ld(ref_M33, want, 3);
    double mx = 0;
    for (int i = 0; i < 9; i++)
        mx = fmax(mx, fabs(want[i]));
    CHECK_MSG(maxdiff(E, ref_expm_M33, 9) < 1e-13 * mx, "vs torch: %g",
              maxdiff(E, ref_expm_M33, 9));
    CHECK_MSG(maxdiff(E, want, 9) < 1e-13 * mx, "vs long double: %g", maxdiff(E, want, 9));
    /* expm(A) expm(-A) = I */
    ct_tensor *Mn = NULL, *En = NULL, *P = NULL, *I = NULL;
    CHECK_OK(ct_neg(ctx, M, &Mn));
    CHECK_OK(ct_linalg_matrix_exp(ctx, Mn, &En));
    CHECK_OK(ct_matmul(ctx, E, En, &P));
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, 3, 3, &I));
    CHECK_MSG(maxdiff_t(P, I) < 1e-12, "expm(A) expm(-A): %g", maxdiff_t(P, I));
    ct_tensor_release(Mn), ct_tensor_release(En), ct_tensor_release(P), ct_tensor_release(E);
    /* a batch with norms 0.1 .. 12 (different squaring counts) against torch */
    ct_tensor *Mb = T64(3, SH(2, 3, 3), ref_Mb);
    CHECK_OK(ct_linalg_matrix_exp(ctx, Mb, &E));
    double w2[9];
    expm_ld(ref_Mb + 9, w2, 3);
    double m2 = 0;
    for (int i = 0; i < 9; i++)
        m2 = fmax(m2, fabs(w2[i]));
    CHECK_MSG(maxdiff(E, ref_expm_Mb, 18) < 1e-12 * m2, "batch vs torch: %g",
              maxdiff(E, ref_expm_Mb, 18));
    ct_tensor_release(E), ct_tensor_release(Mb);
    /* closed forms: diagonal, nilpotent, rotation generator (float32 too) */
    ct_tensor *Dg = T64(2, SH(3, 3), (const double[]){-20, 0, 0, 0, 0.5, 0, 0, 0, 30});
    CHECK_OK(ct_linalg_matrix_exp(ctx, Dg, &E));
    const double de[9] = {exp(-20), 0, 0, 0, exp(0.5), 0, 0, 0, exp(30)};
    double *ev = E ? tu_read(E) : NULL;
    for (int i = 0; ev && i < 9; i++)
        CHECK_MSG(fabs(ev[i] - de[i]) <= 1e-14 * fabs(de[i]), "diagonal %d: %.17g vs %.17g", i,
                  ev[i], de[i]);
    free(ev), ct_tensor_release(E), ct_tensor_release(Dg);
    ct_tensor *N = T64(2, SH(3, 3), (const double[]){0, 2, 3, 0, 0, 5, 0, 0, 0});
    CHECK_OK(ct_linalg_matrix_exp(ctx, N, &E)); /* I + N + N^2 / 2, N^2 = [[0,0,10],0,0] */
    CHECK(maxdiff(E, (const double[]){1, 2, 8, 0, 1, 5, 0, 0, 1}, 9) < 1e-14);
    ct_tensor_release(E), ct_tensor_release(N);
    for (int dt = 0; dt < 2; dt++) {
        const double th = 2.5;
        ct_tensor *G = tu_from_vals(ctx, dt ? CT_FLOAT32 : CT_FLOAT64, 2, SH(2, 2),
                                    (const double[]){0, -th, th, 0});
        CHECK_OK(ct_linalg_matrix_exp(ctx, G, &E));
        CHECK(E && ct_tensor_dtype(E) == (dt ? CT_FLOAT32 : CT_FLOAT64));
        const double rot[4] = {cos(th), -sin(th), sin(th), cos(th)};
        CHECK_MSG(maxdiff(E, rot, 4) < (dt ? 3e-6 : 1e-14), "rotation dtype %d: %g", dt,
                  maxdiff(E, rot, 4));
        ct_tensor_release(E), ct_tensor_release(G);
    }
    ct_tensor_release(I), ct_tensor_release(M);
}

TEST(inv_solve_ex_vecdot_tensor_ops) {
    ct_tensor *A = T64(2, SH(3, 3), ref_A33), *B = T64(2, SH(3, 2), ref_B32);
    ct_tensor *X = NULL, *info = NULL, *Xr = NULL;
    CHECK_OK(ct_linalg_inv_ex(ctx, A, &X, &info));
    CHECK_OK(ct_linalg_inv(ctx, A, &Xr));
    CHECK(maxdiff_t(X, Xr) < 1e-14 && maxdiff(info, (const double[]){0}, 1) == 0);
    ct_tensor_release(X), ct_tensor_release(Xr), ct_tensor_release(info);
    CHECK_OK(ct_linalg_solve_ex(ctx, A, B, &X, &info));
    CHECK_OK(ct_linalg_solve(ctx, A, B, &Xr));
    CHECK(maxdiff_t(X, Xr) < 1e-14 && maxdiff(info, (const double[]){0}, 1) == 0);
    ct_tensor_release(X), ct_tensor_release(Xr), ct_tensor_release(info);
    /* vecdot against a long double loop, with broadcasting and dim 0 */
    ct_tensor *x = rnd(CT_FLOAT64, 2, SH(4, 5), -2, 2), *y = rnd(CT_FLOAT64, 1, SH(5), -2, 2),
              *v = NULL;
    CHECK_OK(ct_linalg_vecdot(ctx, x, y, -1, &v));
    double *xv = tu_read(x), *yv = tu_read(y), want[5];
    for (int i = 0; i < 4; i++) {
        long double s = 0;
        for (int j = 0; j < 5; j++)
            s += (long double)xv[i * 5 + j] * yv[j];
        want[i] = (double)s;
    }
    CHECK(tu_same_shape(v, 1, SH(4)) && maxdiff(v, want, 4) < 1e-14);
    ct_tensor_release(v);
    CHECK_OK(ct_linalg_vecdot(ctx, x, x, 0, &v));
    for (int j = 0; j < 5; j++) {
        long double s = 0;
        for (int i = 0; i < 4; i++)
            s += (long double)xv[i * 5 + j] * xv[i * 5 + j];
        want[j] = (double)s;
    }
    CHECK(tu_same_shape(v, 1, SH(5)) && maxdiff(v, want, 5) < 1e-14);
    free(xv), free(yv), ct_tensor_release(v), ct_tensor_release(x), ct_tensor_release(y);
    /* tensorinv: (4, 6, 8, 3) with ind 2 -> (8, 3, 4, 6); tensordot(inv, a, 2) = I */
    ct_tensor *Tn = rnd(CT_FLOAT64, 4, SH(4, 6, 8, 3), -1, 1), *Ti = NULL, *Pr = NULL;
    CHECK_OK(ct_linalg_tensorinv(ctx, Tn, 2, &Ti));
    CHECK(tu_same_shape(Ti, 4, SH(8, 3, 4, 6)));
    CHECK_OK(ct_tensordot(ctx, Ti, Tn, 2, (const int[]){2, 3}, (const int[]){0, 1},
                          &Pr)); /* (8, 3, 8, 3): identity */
    double *pv = Pr ? tu_read(Pr) : NULL, e = 0;
    for (int i = 0; pv && i < 24; i++)
        for (int j = 0; j < 24; j++)
            e = fmax(e, fabs(pv[i * 24 + j] - (i == j)));
    CHECK_MSG(pv && e < 1e-10, "tensorinv: %g", e);
    free(pv), ct_tensor_release(Pr), ct_tensor_release(Ti);
    CHECK_ST(ct_linalg_tensorinv(ctx, Tn, 1, &Ti), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_tensorinv(ctx, Tn, 0, &Ti), CT_ERR_INVALID_ARG);
    ct_tensor_release(Tn);
    /* tensorsolve: tensordot(A, X, X.ndim) = B, with dims moved */
    ct_tensor *At = rnd(CT_FLOAT64, 4, SH(2, 3, 2, 3), -1, 1),
              *Bt = rnd(CT_FLOAT64, 2, SH(2, 3), -1, 1);
    ct_tensor *Am = NULL;
    CHECK_OK(ct_linalg_tensorsolve(ctx, At, Bt, 0, NULL, &X));
    CHECK(tu_same_shape(X, 2, SH(2, 3)));
    CHECK_OK(ct_tensordot(ctx, At, X, 2, (const int[]){2, 3}, (const int[]){0, 1}, &Pr));
    CHECK(maxdiff_t(Pr, Bt) < 1e-11);
    ct_tensor_release(Pr), ct_tensor_release(X);
    ct_tensor *A2 = rnd(CT_FLOAT64, 4, SH(2, 2, 3, 3), -1, 1);
    CHECK_OK(ct_linalg_tensorsolve(ctx, A2, Bt, 2, (const int[]){0, 2}, &X)); /* -> (2, 3, 2, 3) */
    CHECK(tu_same_shape(X, 2, SH(2, 3)));
    CHECK_OK(ct_movedim(ctx, A2, 2, (const int[]){0, 2}, (const int[]){2, 3}, &Am));
    CHECK_OK(ct_tensordot(ctx, Am, X, 2, (const int[]){2, 3}, (const int[]){0, 1}, &Pr));
    CHECK(maxdiff_t(Pr, Bt) < 1e-11);
    ct_tensor_release(Pr), ct_tensor_release(X), ct_tensor_release(Am), ct_tensor_release(A2);
    CHECK_ST(ct_linalg_tensorsolve(ctx, At, At, 0, NULL, &X), CT_ERR_SHAPE);
    ct_tensor_release(At), ct_tensor_release(Bt);
    ct_tensor_release(A), ct_tensor_release(B);
}

/* H_1 ... H_k (first n columns) in long double */
static void householder_ld(const double *a, const double *tau, double *q, int m, int n, int k) {
    long double Q[64];
    for (int i = 0; i < m * m; i++)
        Q[i] = i % (m + 1) == 0;
    for (int c = 0; c < k; c++) {
        long double v[8], qv[8];
        for (int r = 0; r < m; r++)
            v[r] = r < c ? 0 : r == c ? 1 : a[r * n + c];
        for (int r = 0; r < m; r++) {
            qv[r] = 0;
            for (int p = 0; p < m; p++)
                qv[r] += Q[r * m + p] * v[p];
        }
        for (int r = 0; r < m; r++)
            for (int p = 0; p < m; p++)
                Q[r * m + p] -= tau[c] * qv[r] * v[p];
    }
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++)
            q[r * n + c] = (double)Q[r * m + c];
}

TEST(householder_product_values) {
    ct_tensor *A = T64(2, SH(4, 3), ref_A43), *tau = T64(1, SH(2), ref_tau2), *Q = NULL;
    CHECK_OK(ct_linalg_householder_product(ctx, A, tau, &Q));
    double want[12];
    householder_ld(ref_A43, ref_tau2, want, 4, 3, 2);
    CHECK(maxdiff(Q, ref_householder, 12) < 1e-14 && maxdiff(Q, want, 12) < 1e-14);
    ct_tensor_release(Q);
    /* tau_i = 2 / |v_i|^2 makes every H_i a reflection: Q has orthonormal columns */
    double tv[3];
    for (int c = 0; c < 3; c++) {
        double s = 1;
        for (int r = c + 1; r < 4; r++)
            s += ref_A43[r * 3 + c] * ref_A43[r * 3 + c];
        tv[c] = 2 / s;
    }
    ct_tensor *t3 = T64(1, SH(3), tv), *Qt = NULL, *QtQ = NULL, *I3 = NULL;
    CHECK_OK(ct_linalg_householder_product(ctx, A, t3, &Q));
    CHECK_OK(ct_tensor_transpose(ctx, Q, 0, 1, &Qt));
    CHECK_OK(ct_matmul(ctx, Qt, Q, &QtQ));
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, 3, 3, &I3));
    CHECK_MSG(maxdiff_t(QtQ, I3) < 1e-14, "Q^T Q = I: %g", maxdiff_t(QtQ, I3));
    ct_tensor_release(Q), ct_tensor_release(Qt), ct_tensor_release(QtQ), ct_tensor_release(t3);
    /* tau of size 0: the first n columns of I; batched with equal batch dims */
    ct_tensor *t0 = NULL, *Ab = NULL, *tb = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(0), &t0));
    CHECK_OK(ct_linalg_householder_product(ctx, A, t0, &Q));
    CHECK(maxdiff(Q, (const double[]){1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, 12) == 0);
    ct_tensor_release(Q), ct_tensor_release(t0);
    CHECK_OK(ct_stack(ctx, 2, (const ct_tensor *[]){A, A}, 0, &Ab));
    CHECK_OK(ct_stack(ctx, 2, (const ct_tensor *[]){tau, tau}, 0, &tb));
    CHECK_OK(ct_linalg_householder_product(ctx, Ab, tb, &Q));
    double *qv = Q ? tu_read(Q) : NULL;
    CHECK(tu_same_shape(Q, 3, SH(2, 4, 3)) && qv && fabs(qv[12 + 5] - ref_householder[5]) < 1e-14);
    free(qv), ct_tensor_release(Q), ct_tensor_release(Ab), ct_tensor_release(tb);
    ct_tensor_release(I3), ct_tensor_release(A), ct_tensor_release(tau);
}

/* ---- captured once, replayed on new data: equal to eager calls bit for bit ---- */
static void fill_rand(ct_tensor *t, double shift) { /* new values in place (+ shift I) */
    const int64_t *sh = ct_tensor_shape(t);
    ct_tensor *r = rnd(ct_tensor_dtype(t), ct_tensor_ndim(t), sh, -1, 1), *I = NULL, *s = NULL;
    CHECK_OK(ct_tensor_eye(ctx, ct_tensor_dtype(t), sh[ct_tensor_ndim(t) - 2],
                           sh[ct_tensor_ndim(t) - 1], &I));
    CHECK_OK(ct_mul_scalar(ctx, I, shift, &s));
    ct_tensor *v = NULL;
    CHECK_OK(ct_add(ctx, r, s, &v));
    CHECK_OK(ct_tensor_copy_(ctx, t, v));
    ct_tensor_release(r), ct_tensor_release(I), ct_tensor_release(s), ct_tensor_release(v);
}
static void run_set(const ct_tensor *A, const ct_tensor *B, const ct_tensor *W, ct_tensor **o) {
    ct_tensor *LU = NULL, *piv = NULL, *junk[3] = {NULL, NULL, NULL};
    CHECK_OK(ct_linalg_lu_factor(ctx, A, &LU, &piv));
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, B, true, true, &o[0]));
    CHECK_OK(ct_linalg_solve_triangular(ctx, A, B, false, true, false, &o[1]));
    CHECK_OK(ct_cholesky_solve(ctx, B, A, true, &o[2]));
    CHECK_OK(ct_linalg_lstsq(ctx, W, B, NAN, "gelsd", &o[3], &o[4], &junk[0], &o[5]));
    CHECK_OK(ct_linalg_lu(ctx, W, &junk[1], &o[6], &o[7]));
    CHECK_OK(ct_linalg_svdvals(ctx, W, &o[8]));
    CHECK_OK(ct_linalg_householder_product(ctx, W, o[8], &o[9]));
    CHECK_OK(ct_linalg_inv_ex(ctx, A, &o[10], &junk[2]));
    ct_tensor_release(LU), ct_tensor_release(piv);
    release_all(3, junk);
}
TEST(capture_replay_equals_eager) {
    ct_tensor *A = NULL, *B = NULL, *W = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(3, 5, 5), &A));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(3, 5, 2), &B));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(3, 5, 2), &W));
    fill_rand(A, 4), fill_rand(B, 0), fill_rand(W, 0);
    ct_graph *g = NULL;
    ct_tensor *cap[11] = {NULL};
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    run_set(A, B, W, cap);
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(ct_graph_num_nodes(g) >= 11);
    CHECK_OK(ct_graph_instantiate(g));
    for (int rep = 0; rep < 2; rep++) {
        fill_rand(A, 4), fill_rand(B, 0), fill_rand(W, 0);
        CHECK_OK(ct_graph_replay(g));
        ct_tensor *eag[11] = {NULL};
        run_set(A, B, W, eag);
        for (int i = 0; i < 11; i++)
            CHECK_MSG(cap[i] && eag[i] && tu_same_values(cap[i], eag[i]),
                      "rep %d output %d: replay differs from eager", rep, i);
        release_all(11, eag);
    }
    release_all(11, cap);
    ct_graph_free(g);
    ct_tensor_release(A), ct_tensor_release(B), ct_tensor_release(W);
}

/* ---- hostile input: each refused with the documented status, nothing leaks ---- */
TEST(hostile_inputs) {
    ct_tensor *A = T64(2, SH(3, 3), ref_A33), *B = T64(2, SH(3, 2), ref_B32), *r = NULL, *r2 = NULL,
              *r3 = NULL, *r4 = NULL;
    ct_tensor *v3 = T64(1, SH(3), ref_B32), *A34 = T64(2, SH(3, 4), ref_lu34_A), *B42 = NULL;
    ct_tensor *Ai = NULL, *Ah = NULL, *Bf = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(4, 2), &B42));
    CHECK_OK(ct_cast(ctx, A, CT_INT32, &Ai));
    CHECK_OK(ct_cast(ctx, A, CT_FLOAT16, &Ah));
    CHECK_OK(ct_cast(ctx, B, CT_FLOAT32, &Bf));
    /* solve_triangular */
    CHECK_ST(ct_linalg_solve_triangular(ctx, A, v3, true, true, false, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "B must have at least 2 dimensions") != NULL);
    CHECK_ST(ct_linalg_solve_triangular(ctx, A34, B, true, true, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_solve_triangular(ctx, A, B42, true, true, false, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "Incompatible shapes") != NULL);
    CHECK_ST(ct_linalg_solve_triangular(ctx, A, B, true, false, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_solve_triangular(ctx, Ai, Ai, true, true, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_solve_triangular(ctx, Ah, Ah, true, true, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_solve_triangular(ctx, A, B, true, true, false, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_solve_triangular(ctx, NULL, B, true, true, false, &r), CT_ERR_INVALID_ARG);
    ct_tensor *Ab3 = NULL, *Bb2 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(3, 3, 3), &Ab3));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(2, 3, 2), &Bb2));
    CHECK_ST(ct_linalg_solve_triangular(ctx, Ab3, Bb2, true, true, false, &r), CT_ERR_SHAPE);
    CHECK(r == NULL);
    /* lu family */
    CHECK_ST(ct_linalg_lu_factor(ctx, v3, &r, &r2), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lu_factor(ctx, Ai, &r, &r2), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_lu_factor(ctx, Ah, &r, &r2), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_lu_factor_ex(ctx, A, &r, &r2, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_lu(ctx, Ai, &r, &r2, &r3), CT_ERR_DTYPE);
    CHECK(r == NULL && r2 == NULL && r3 == NULL);
    ct_tensor *LU = NULL, *piv = NULL, *p64 = NULL, *bad = NULL, *p2 = NULL;
    CHECK_OK(ct_linalg_lu_factor(ctx, A, &LU, &piv));
    CHECK_OK(ct_cast(ctx, piv, CT_INT64, &p64));
    bad = tu_from_vals(ctx, CT_INT32, 1, SH(3), (const double[]){5, 1, 1});
    CHECK_OK(ct_tensor_narrow(ctx, piv, 0, 0, 2, &p2));
    CHECK_ST(ct_lu_unpack(ctx, LU, p64, true, true, &r, &r2, &r3), CT_ERR_DTYPE);
    CHECK_ST(ct_lu_unpack(ctx, LU, bad, true, true, &r, &r2, &r3), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "between 1 and LU.size(-2)") != NULL);
    CHECK_ST(ct_lu_unpack(ctx, LU, p2, true, true, &r, &r2, &r3), CT_ERR_SHAPE);
    CHECK(r == NULL && r2 == NULL && r3 == NULL);
    CHECK_ST(ct_linalg_lu_solve(ctx, LU, piv, v3, true, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lu_solve(ctx, LU, piv, Bf, true, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_lu_solve(ctx, LU, p64, B, true, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_lu_solve(ctx, LU, p2, B, true, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lu_solve(ctx, LU, piv, B42, true, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lu_solve(ctx, A34, piv, B, true, false, &r), CT_ERR_SHAPE);
    CHECK(r == NULL);
    /* cholesky_solve / inverse */
    CHECK_ST(ct_cholesky_solve(ctx, v3, A, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cholesky_solve(ctx, Bf, A, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_cholesky_solve(ctx, B, A34, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cholesky_solve(ctx, B42, A, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cholesky_solve(ctx, Bb2, Ab3, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cholesky_inverse(ctx, A34, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cholesky_inverse(ctx, v3, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_cholesky_inverse(ctx, Ai, false, &r), CT_ERR_DTYPE);
    /* lstsq */
    CHECK_ST(ct_linalg_lstsq(ctx, A, B, NAN, "foo", &r, &r2, &r3, &r4), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_lstsq(ctx, A, Bf, NAN, NULL, &r, &r2, &r3, &r4), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_lstsq(ctx, A, B42, NAN, NULL, &r, &r2, &r3, &r4), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lstsq(ctx, v3, v3, NAN, NULL, &r, &r2, &r3, &r4), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lstsq(ctx, Ab3, B, NAN, NULL, &r, &r2, &r3, &r4), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_lstsq(ctx, Ai, Ai, NAN, NULL, &r, &r2, &r3, &r4), CT_ERR_DTYPE);
    CHECK(r == NULL && r2 == NULL && r3 == NULL && r4 == NULL);
    /* gels on a matrix with an exactly zero R diagonal: the error torch raises */
    ct_tensor *R1 = T64(2, SH(3, 2), (const double[]){1, 0, 2, 0, 3, 0});
    CHECK_ST(ct_linalg_lstsq(ctx, R1, B, NAN, "gels", &r, NULL, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "full rank") != NULL && r == NULL);
    ct_tensor_release(R1);
    /* svdvals, matrix_rank, matrix_exp, cond */
    ct_tensor *Nf = T64(2, SH(2, 2), (const double[]){NAN, 1, 1, 1});
    CHECK_ST(ct_linalg_svdvals(ctx, v3, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_svdvals(ctx, Ai, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_svdvals(ctx, Nf, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_matrix_rank(ctx, v3, NAN, NAN, false, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_matrix_rank(ctx, Ai, NAN, NAN, false, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_matrix_rank(ctx, A34, NAN, NAN, true, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_matrix_exp(ctx, A34, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_matrix_exp(ctx, v3, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_matrix_exp(ctx, Ai, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_matrix_exp(ctx, Ah, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_cond(ctx, A, "3", &r), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "invalid norm type") != NULL);
    CHECK_ST(ct_linalg_cond(ctx, A34, "fro", &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_cond(ctx, Ai, NULL, &r), CT_ERR_DTYPE);
    CHECK(r == NULL);
    CHECK_OK(ct_linalg_cond(ctx, A34, NULL, &r)); /* 2-norm: any m x n */
    ct_tensor_release(r), r = NULL;
    /* a NaN matrix: matrix_exp gives NaN (torch: unspecified values) */
    CHECK_OK(ct_linalg_matrix_exp(ctx, Nf, &r));
    double *nv = r ? tu_read(r) : NULL;
    CHECK(nv && isnan(nv[0]) && isnan(nv[3]));
    free(nv), ct_tensor_release(r), r = NULL;
    /* inv_ex / solve_ex / vecdot / householder_product */
    CHECK_ST(ct_linalg_inv_ex(ctx, A34, &r, &r2), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_inv_ex(ctx, Ai, &r, &r2), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_inv_ex(ctx, A, &r, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_linalg_solve_ex(ctx, A, Bf, &r, &r2), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_solve_ex(ctx, A, B42, &r, &r2), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_vecdot(ctx, A, Bf, -1, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_vecdot(ctx, Ai, Ai, -1, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_vecdot(ctx, A, A, 2, &r), CT_ERR_INDEX);
    CHECK_ST(ct_linalg_vecdot(ctx, A, B, -1, &r), CT_ERR_SHAPE);
    ct_tensor *t2 = T64(1, SH(2), ref_tau2), *t4 = T64(1, SH(4), ref_A43), *t2f = NULL;
    CHECK_OK(ct_cast(ctx, t2, CT_FLOAT32, &t2f));
    CHECK_ST(ct_linalg_householder_product(ctx, A34, t2, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_householder_product(ctx, A, t4, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_householder_product(ctx, A, t2f, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_householder_product(ctx, v3, t2, &r), CT_ERR_SHAPE);
    CHECK_ST(ct_linalg_householder_product(ctx, Ab3, t2, &r), CT_ERR_SHAPE);
    CHECK(r == NULL && r2 == NULL);
    ct_tensor_release(t2), ct_tensor_release(t4), ct_tensor_release(t2f), ct_tensor_release(Nf);
    ct_tensor_release(LU), ct_tensor_release(piv), ct_tensor_release(p64), ct_tensor_release(bad);
    ct_tensor_release(p2), ct_tensor_release(Ab3), ct_tensor_release(Bb2);
    ct_tensor_release(A), ct_tensor_release(B), ct_tensor_release(v3), ct_tensor_release(A34);
    ct_tensor_release(B42), ct_tensor_release(Ai), ct_tensor_release(Ah), ct_tensor_release(Bf);
}

/* ---- gradients against central differences (float64): each f builds well-conditioned
 * operands from x (x + c I, triangles of x) so the functions are smooth around the sample ---- */
static ct_status shifted(const ct_tensor *x, double c, ct_tensor **out) { /* x + c I */
    const int64_t *sh = ct_tensor_shape(x);
    ct_tensor *I = NULL, *cI = NULL;
    ct_status st = ct_tensor_eye(ctx, CT_FLOAT64, sh[0], sh[1], &I);
    if (st == CT_OK) st = ct_mul_scalar(ctx, I, c, &cI);
    if (st == CT_OK) st = ct_add(ctx, x, cI, out);
    ct_tensor_release(I), ct_tensor_release(cI);
    return st;
}
static int g_flags;
static ct_status f_trsolve(const ct_tensor *x, ct_tensor **y) { /* A = x + 6 I and B = x */
    ct_tensor *a = NULL;
    ct_status st = shifted(x, 6, &a);
    if (st == CT_OK)
        st = ct_linalg_solve_triangular(ctx, a, x, g_flags & 1, g_flags & 2, g_flags & 4, y);
    ct_tensor_release(a);
    return st;
}
static ct_status f_lu_factor(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *piv = NULL;
    ct_status st = ct_linalg_lu_factor(ctx, x, y, &piv);
    ct_tensor_release(piv);
    return st;
}
static ct_status cat_flat(ct_tensor *a, ct_tensor *b, ct_tensor **y) { /* consumes a, b */
    ct_tensor *fa = NULL, *fb = NULL;
    ct_status st = ct_flatten(ctx, a, 0, -1, &fa);
    if (st == CT_OK) st = ct_flatten(ctx, b, 0, -1, &fb);
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){fa, fb}, 0, y);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(fa), ct_tensor_release(fb);
    return st;
}
static ct_status f_lu(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *P = NULL, *L = NULL, *U = NULL;
    ct_status st = ct_linalg_lu(ctx, x, &P, &L, &U);
    ct_tensor_release(P);
    return st == CT_OK ? cat_flat(L, U, y) : st;
}
static ct_status f_lu_solve(const ct_tensor *x, ct_tensor **y) { /* LU of x + 5 I, B = x */
    ct_tensor *a = NULL, *LU = NULL, *piv = NULL;
    ct_status st = shifted(x, 5, &a);
    if (st == CT_OK) st = ct_linalg_lu_factor(ctx, a, &LU, &piv);
    if (st == CT_OK) st = ct_linalg_lu_solve(ctx, LU, piv, x, g_flags & 1, g_flags & 2, y);
    ct_tensor_release(a), ct_tensor_release(LU), ct_tensor_release(piv);
    return st;
}
static ct_tensor *g_piv;
static ct_status f_lu_unpack(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *P = NULL, *L = NULL, *U = NULL;
    ct_status st = ct_lu_unpack(ctx, x, g_piv, true, true, &P, &L, &U);
    ct_tensor_release(P);
    return st == CT_OK ? cat_flat(L, U, y) : st;
}
static ct_status f_chol_solve(const ct_tensor *x, ct_tensor **y) { /* a triangle of x + 5 I */
    ct_tensor *a = NULL, *l = NULL;
    const bool up = g_flags & 1;
    ct_status st = shifted(x, 5, &a);
    if (st == CT_OK) st = up ? ct_triu(ctx, a, 0, &l) : ct_tril(ctx, a, 0, &l);
    if (st == CT_OK) st = ct_cholesky_solve(ctx, x, l, up, y);
    ct_tensor_release(a), ct_tensor_release(l);
    return st;
}
static ct_status f_chol_inverse(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL, *l = NULL;
    ct_status st = shifted(x, 5, &a);
    if (st == CT_OK) st = ct_tril(ctx, a, 0, &l);
    if (st == CT_OK) st = ct_cholesky_inverse(ctx, l, false, y);
    ct_tensor_release(a), ct_tensor_release(l);
    return st;
}
static const char *g_driver;
static ct_status f_lstsq(const ct_tensor *x, ct_tensor **y) { /* A = x (5, 3), B = x[:, :2] */
    ct_tensor *b = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, 1, 0, 2, &b);
    if (st == CT_OK) st = ct_linalg_lstsq(ctx, x, b, NAN, g_driver, y, NULL, NULL, NULL);
    ct_tensor_release(b);
    return st;
}
static ct_status f_svdvals(const ct_tensor *x, ct_tensor **y) {
    return ct_linalg_svdvals(ctx, x, y);
}
static double g_scale;
static ct_status f_expm(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *s = NULL;
    ct_status st = ct_mul_scalar(ctx, x, g_scale, &s);
    if (st == CT_OK) st = ct_linalg_matrix_exp(ctx, s, y);
    ct_tensor_release(s);
    return st;
}
static ct_status f_inv_ex(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL, *info = NULL;
    ct_status st = shifted(x, 5, &a);
    if (st == CT_OK) st = ct_linalg_inv_ex(ctx, a, y, &info);
    ct_tensor_release(a), ct_tensor_release(info);
    return st;
}
static ct_status f_solve_ex(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL, *info = NULL;
    ct_status st = shifted(x, 5, &a);
    if (st == CT_OK) st = ct_linalg_solve_ex(ctx, a, x, y, &info);
    ct_tensor_release(a), ct_tensor_release(info);
    return st;
}
static ct_status f_vecdot(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *s = NULL;
    ct_status st = ct_sin(ctx, x, &s);
    if (st == CT_OK) st = ct_linalg_vecdot(ctx, x, s, 0, y);
    ct_tensor_release(s);
    return st;
}
static ct_status f_tensorinv(const ct_tensor *x, ct_tensor **y) { /* x (4, 4) -> (2, 2, 4) */
    ct_tensor *a = NULL, *r = NULL;
    ct_status st = shifted(x, 6, &a);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, a, 3, SH(2, 2, 4), &r);
    if (st == CT_OK) st = ct_linalg_tensorinv(ctx, r, 2, y);
    ct_tensor_release(a), ct_tensor_release(r);
    return st;
}
static ct_status f_tensorsolve(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL, *r = NULL, *b = NULL, *bb = NULL;
    ct_status st = shifted(x, 6, &a);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, a, 3, SH(2, 2, 4), &r);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, x, 0, 0, 1, &b); /* (1, 4) -> (2, 2) */
    if (st == CT_OK) st = ct_tensor_reshape(ctx, b, 2, SH(2, 2), &bb);
    if (st == CT_OK) st = ct_linalg_tensorsolve(ctx, r, bb, 0, NULL, y);
    ct_tensor_release(a), ct_tensor_release(r), ct_tensor_release(b), ct_tensor_release(bb);
    return st;
}
static ct_status f_householder(const ct_tensor *x, ct_tensor **y) { /* x (4, 3), tau x[0, :2] */
    ct_tensor *t = NULL, *tau = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, 1, 0, 2, &t);
    ct_tensor *row = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t, 0, 0, 1, &row);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, row, 0, &tau);
    if (st == CT_OK) st = ct_linalg_householder_product(ctx, x, tau, y);
    ct_tensor_release(t), ct_tensor_release(row), ct_tensor_release(tau);
    return st;
}
static const char *g_ord;
static ct_status f_cond(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *a = NULL;
    ct_status st = shifted(x, 4, &a);
    if (st == CT_OK) st = ct_linalg_cond(ctx, a, g_ord, y);
    ct_tensor_release(a);
    return st;
}

/* second order: g(x) = d/dx sum_i sin(i) f(x)_i with create_graph, itself gradchecked (so the
 * backward formulas differentiate: torch's double backward) */
static tu_fn1 g_inner;
static ct_status f_second(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *xx = NULL, *o = NULL, *w = NULL, *ow = NULL, *s = NULL;
    ct_status st = CT_OK;
    if (ct_tensor_requires_grad(x)) {
        xx = ct_tensor_retain((ct_tensor *)x);
    } else {
        st = ct_tensor_clone(ctx, x, &xx);
        if (st == CT_OK) st = ct_tensor_set_requires_grad(xx, true);
    }
    if (st == CT_OK) st = g_inner(xx, &o);
    const int64_t n = o ? ct_tensor_numel(o) : 0;
    double *wv = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        wv[i] = sin((double)i + 0.5);
    if (st == CT_OK)
        st = ct_tensor_from_host(ctx, wv, CT_FLOAT64, ct_tensor_ndim(o), ct_tensor_shape(o), &w);
    if (st == CT_OK) st = ct_mul(ctx, o, w, &ow);
    if (st == CT_OK) st = ct_sum(ctx, ow, 0, NULL, false, &s);
    const ct_tensor *outs[1] = {s}, *ins[1] = {xx};
    if (st == CT_OK) st = ct_autograd_grad(ctx, 1, outs, NULL, 1, ins, false, true, y);
    free(wv);
    ct_tensor_release(xx), ct_tensor_release(o), ct_tensor_release(w), ct_tensor_release(ow);
    ct_tensor_release(s);
    return st;
}
/* broadcast batch dims: A from x[0] against B = x (2, 3, 3) */
static ct_status f_trsolve_bcast(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *x0 = NULL, *x00 = NULL, *a = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, 0, 0, 1, &x0);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, x0, 0, &x00);
    if (st == CT_OK) st = shifted(x00, 6, &a);
    if (st == CT_OK) st = ct_linalg_solve_triangular(ctx, a, x, false, false, false, y);
    ct_tensor_release(x0), ct_tensor_release(x00), ct_tensor_release(a);
    return st;
}
static ct_status f_lu_solve_bcast(const ct_tensor *x, ct_tensor **y) { /* one LU, B (2, 3, 3) */
    ct_tensor *x0 = NULL, *x00 = NULL, *a = NULL, *LU = NULL, *piv = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, 0, 1, 1, &x0);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, x0, 0, &x00);
    if (st == CT_OK) st = shifted(x00, 5, &a);
    if (st == CT_OK) st = ct_linalg_lu_factor(ctx, a, &LU, &piv);
    if (st == CT_OK) st = ct_linalg_lu_solve(ctx, LU, piv, x, true, false, y);
    ct_tensor_release(x0), ct_tensor_release(x00), ct_tensor_release(a);
    ct_tensor_release(LU), ct_tensor_release(piv);
    return st;
}

TEST(gradients) {
    tu_gradcheck(ctx, &rng, "solve_triangular broadcast", f_trsolve_bcast, 3, SH(2, 3, 3));
    tu_gradcheck(ctx, &rng, "lu_solve broadcast", f_lu_solve_bcast, 3, SH(2, 3, 3));
    g_flags = 3;
    g_inner = f_trsolve;
    tu_gradcheck(ctx, &rng, "solve_triangular second order", f_second, 2, SH(3, 3));
    g_inner = f_lu_factor;
    tu_gradcheck(ctx, &rng, "lu_factor second order", f_second, 2, SH(3, 3));
    g_flags = 0;
    g_inner = f_chol_solve;
    tu_gradcheck(ctx, &rng, "cholesky_solve second order", f_second, 2, SH(3, 3));
    g_driver = "gelsd";
    g_inner = f_lstsq;
    tu_gradcheck(ctx, &rng, "lstsq second order", f_second, 2, SH(5, 3));
    for (g_flags = 0; g_flags < 8; g_flags++) {
        char name[48];
        snprintf(name, sizeof name, "solve_triangular flags %d", g_flags);
        tu_gradcheck(ctx, &rng, name, f_trsolve, 2, SH(3, 3));
    }
    tu_gradcheck(ctx, &rng, "lu_factor square", f_lu_factor, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "lu_factor tall", f_lu_factor, 2, SH(4, 3));
    tu_gradcheck(ctx, &rng, "lu_factor wide", f_lu_factor, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "lu square", f_lu, 3, SH(2, 3, 3));
    tu_gradcheck(ctx, &rng, "lu tall", f_lu, 2, SH(4, 2));
    tu_gradcheck(ctx, &rng, "lu wide", f_lu, 2, SH(2, 4));
    for (g_flags = 0; g_flags < 4; g_flags++) {
        char name[48];
        snprintf(name, sizeof name, "lu_solve left %d adjoint %d", g_flags & 1, g_flags >> 1);
        tu_gradcheck(ctx, &rng, name, f_lu_solve, 2, SH(3, 3));
    }
    ct_tensor *a = T64(2, SH(3, 4), ref_lu34_A), *LU = NULL;
    CHECK_OK(ct_linalg_lu_factor(ctx, a, &LU, &g_piv));
    tu_gradcheck(ctx, &rng, "lu_unpack", f_lu_unpack, 2, SH(3, 4));
    ct_tensor_release(a), ct_tensor_release(LU), ct_tensor_release(g_piv);
    for (g_flags = 0; g_flags < 2; g_flags++)
        tu_gradcheck(ctx, &rng, g_flags ? "cholesky_solve upper" : "cholesky_solve", f_chol_solve,
                     2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "cholesky_inverse", f_chol_inverse, 2, SH(3, 3));
    const char *drv[3] = {"gelsy", "gelsd", "gels"};
    for (int d = 0; d < 3; d++) {
        g_driver = drv[d];
        tu_gradcheck(ctx, &rng, drv[d], f_lstsq, 2, SH(5, 3));
    }
    tu_gradcheck(ctx, &rng, "svdvals", f_svdvals, 2, SH(4, 3));
    g_scale = 0.1;
    tu_gradcheck(ctx, &rng, "matrix_exp small", f_expm, 2, SH(3, 3));
    g_scale = 1.5; /* norm up to 9: squarings */
    tu_gradcheck(ctx, &rng, "matrix_exp squared", f_expm, 3, SH(2, 3, 3));
    tu_gradcheck(ctx, &rng, "inv_ex", f_inv_ex, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "solve_ex", f_solve_ex, 2, SH(3, 3));
    tu_gradcheck(ctx, &rng, "vecdot", f_vecdot, 2, SH(3, 4));
    tu_gradcheck(ctx, &rng, "tensorinv", f_tensorinv, 2, SH(4, 4));
    tu_gradcheck(ctx, &rng, "tensorsolve", f_tensorsolve, 2, SH(4, 4));
    tu_gradcheck(ctx, &rng, "householder_product", f_householder, 2, SH(4, 3));
    const char *ords[5] = {NULL, "fro", "nuc", "inf", "-1"};
    for (int i = 0; i < 5; i++) {
        g_ord = ords[i];
        tu_gradcheck(ctx, &rng, ords[i] ? ords[i] : "cond None", f_cond, 2, SH(3, 3));
    }
}

/* the node names torch prints (grad_fn=<...>) */
static bool name_is(const ct_tensor *t, const char *want) {
    char *s = NULL;
    if (!t || ct_tensor_to_string(t, &s) != CT_OK) return false;
    char buf[96];
    snprintf(buf, sizeof buf, "grad_fn=<%s>", want);
    bool ok = strstr(s, buf) != NULL;
    if (!ok) printf("  got %s\n", strstr(s, "grad_fn=") ? strstr(s, "grad_fn=") : "no grad_fn");
    free(s);
    return ok;
}
TEST(grad_fn_names) {
    ct_tensor *A = T64(2, SH(3, 3), ref_A33), *B = T64(2, SH(3, 2), ref_B32);
    CHECK_OK(ct_tensor_set_requires_grad(A, true));
    ct_tensor *r = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
    CHECK_OK(ct_linalg_solve_triangular(ctx, A, B, true, true, false, &r));
    CHECK(name_is(r, "LinalgSolveTriangularBackward0"));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_lu_factor(ctx, A, &r, &r2));
    CHECK(name_is(r, "LinalgLuFactorExBackward0") && !ct_tensor_requires_grad(r2));
    ct_tensor *LU = r, *piv = r2;
    CHECK_OK(ct_lu_unpack(ctx, LU, piv, true, true, &r, &r2, &r3));
    CHECK(name_is(r2, "LuUnpackBackward0") && name_is(r3, "LuUnpackBackward0"));
    CHECK(!ct_tensor_requires_grad(r));
    ct_tensor_release(r), ct_tensor_release(r2), ct_tensor_release(r3);
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, B, true, false, &r));
    CHECK(name_is(r, "LinalgLuSolveBackward0"));
    ct_tensor_release(r), ct_tensor_release(LU), ct_tensor_release(piv);
    CHECK_OK(ct_linalg_lu(ctx, A, &r, &r2, &r3));
    CHECK(name_is(r2, "LinalgLuBackward0") && name_is(r3, "LinalgLuBackward0"));
    ct_tensor_release(r), ct_tensor_release(r2), ct_tensor_release(r3);
    CHECK_OK(ct_cholesky_solve(ctx, B, A, false, &r));
    CHECK(name_is(r, "CholeskySolveBackward0"));
    ct_tensor_release(r);
    CHECK_OK(ct_cholesky_inverse(ctx, A, false, &r));
    CHECK(name_is(r, "CholeskyInverseBackward0"));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_lstsq(ctx, A, B, NAN, NULL, &r, &r2, &r3, &r4));
    CHECK(name_is(r, "LinalgLstsqBackward0"));
    ct_tensor_release(r), ct_tensor_release(r2), ct_tensor_release(r3), ct_tensor_release(r4);
    CHECK_OK(ct_linalg_svdvals(ctx, A, &r));
    CHECK(name_is(r, "LinalgSvdBackward0"));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_matrix_exp(ctx, A, &r));
    CHECK(name_is(r, "LinalgMatrixExpBackward0"));
    ct_tensor_release(r);
    CHECK_OK(ct_linalg_inv_ex(ctx, A, &r, &r2));
    CHECK(name_is(r, "LinalgInvExBackward0"));
    ct_tensor_release(r), ct_tensor_release(r2);
    CHECK_OK(ct_linalg_solve_ex(ctx, A, B, &r, &r2));
    CHECK(name_is(r, "LinalgSolveExBackward0"));
    ct_tensor_release(r), ct_tensor_release(r2);
    CHECK_OK(ct_linalg_vecdot(ctx, A, A, -1, &r));
    CHECK(name_is(r, "SumBackward1"));
    ct_tensor_release(r);
    ct_tensor *tau = T64(1, SH(2), ref_tau2);
    CHECK_OK(ct_linalg_householder_product(ctx, A, tau, &r));
    CHECK(name_is(r, "LinalgHouseholderProductBackward0"));
    ct_tensor_release(r), ct_tensor_release(tau);
    const char *ords[4] = {NULL, "fro", "nuc", "-2"};
    const char *names[4] = {"SqueezeBackward1", "NanToNumBackward0", "MulBackward0",
                            "SqueezeBackward1"};
    for (int i = 0; i < 4; i++) {
        CHECK_OK(ct_linalg_cond(ctx, A, ords[i], &r));
        CHECK_MSG(name_is(r, names[i]), "cond %s", ords[i] ? ords[i] : "None");
        ct_tensor_release(r);
    }
    CHECK_OK(ct_linalg_matrix_rank(ctx, A, NAN, NAN, false, &r));
    CHECK(!ct_tensor_requires_grad(r));
    ct_tensor_release(r);
    ct_tensor_release(A), ct_tensor_release(B);
}

/* svd_lowrank / pca_lowrank of exactly low-rank matrices (rank 3 <= q): the randomized range
 * finder captures the whole range, so S equals svdvals' leading values and U S V^T equals A
 * (tall, wide and batched inputs; both of torch's branches); errors for q out of range */
static double lr_maxdiff(const ct_tensor *x, const ct_tensor *y) {
    double *a = tu_read(x), *b = tu_read(y), m = 0;
    for (int64_t i = 0; a && b && i < ct_tensor_numel(x); i++)
        m = fmax(m, fabs(a[i] - b[i]));
    free(a), free(b);
    return m;
}
TEST(svd_pca_lowrank) {
    const int64_t shapes[3][3] = {{1, 9, 5}, {1, 5, 9}, {2, 8, 7}};
    for (int si = 0; si < 3; si++)
        for (int pca = 0; pca < 2; pca++) {
            const int64_t b = shapes[si][0], m = shapes[si][1], n = shapes[si][2];
            ct_tensor *x = NULL, *y = NULL, *yt = NULL, *a = NULL, *U = NULL, *S = NULL, *V = NULL;
            CHECK_OK(
                ct_tensor_randn(ctx, CT_FLOAT64, 3, (const int64_t[]){b, m, 3}, 5 + si, 0, &x));
            CHECK_OK(
                ct_tensor_randn(ctx, CT_FLOAT64, 3, (const int64_t[]){b, n, 3}, 9 + si, 0, &y));
            CHECK_OK(ct_tensor_transpose(ctx, y, -2, -1, &yt));
            CHECK_OK(ct_matmul(ctx, x, yt, &a)); /* rank 3 */
            ct_tensor *ref = NULL, *c = NULL;
            if (pca) { /* centered: still rank <= 3 */
                CHECK_OK(ct_mean(ctx, a, 1, (const int[]){-2}, true, &c));
                CHECK_OK(ct_sub(ctx, a, c, &ref));
                CHECK_OK(ct_pca_lowrank(ctx, a, 4, true, 2, 77, &U, &S, &V));
            } else {
                ref = ct_tensor_retain(a);
                CHECK_OK(ct_svd_lowrank(ctx, a, 4, -1, 77, &U, &S, &V));
            }
            ct_tensor *sv = NULL, *svk = NULL, *us = NULL, *vt = NULL, *rec = NULL, *su = NULL;
            CHECK_OK(ct_linalg_svdvals(ctx, ref, &sv));
            CHECK_OK(ct_tensor_narrow(ctx, sv, -1, 0, 4, &svk));
            CHECK(S && tu_same_shape(S, 2, (const int64_t[]){b, 4}));
            CHECK_MSG(S && lr_maxdiff(S, svk) < 1e-12, "lowrank S (%lld x %lld, pca %d)",
                      (long long)m, (long long)n, pca);
            CHECK_OK(ct_tensor_unsqueeze(ctx, S, -2, &su));
            CHECK_OK(ct_mul(ctx, U, su, &us));
            CHECK_OK(ct_tensor_transpose(ctx, V, -2, -1, &vt));
            CHECK_OK(ct_matmul(ctx, us, vt, &rec));
            CHECK_MSG(rec && lr_maxdiff(rec, ref) < 1e-12, "U S V^T != A (%lld x %lld, pca %d)",
                      (long long)m, (long long)n, pca);
            ct_tensor *list[] = {x, y, yt, a, U, S, V, ref, c, sv, svk, us, vt, rec, su};
            for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
                ct_tensor_release(list[i]);
        }
    ct_tensor *a = NULL, *U = NULL, *S = NULL, *V = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 2, (const int64_t[]){4, 3}, 1, 0, &a));
    CHECK(ct_svd_lowrank(ctx, a, 4, 2, 1, &U, &S, &V) == CT_ERR_INVALID_ARG && !U && !S && !V);
    CHECK(strstr(ct_ctx_last_error(ctx), "min(m, n)=3") != NULL);
    CHECK_OK(ct_pca_lowrank(ctx, a, 0, false, 2, 1, &U, &S, &V)); /* q: min(6, m, n) = 3 */
    CHECK(S && ct_tensor_dtype(S) == CT_FLOAT32 && tu_same_shape(S, 1, (const int64_t[]){3}));
    ct_tensor_release(a), ct_tensor_release(U), ct_tensor_release(S), ct_tensor_release(V);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(solve_triangular_values);
    RUN(lu_factor_and_unpack);
    RUN(lu_singular_and_empty);
    RUN(lu_solve_all_modes);
    RUN(cholesky_solve_and_inverse);
    RUN(lstsq_drivers);
    RUN(svdvals_rank_cond);
    RUN(matrix_exp_identities);
    RUN(inv_solve_ex_vecdot_tensor_ops);
    RUN(householder_product_values);
    RUN(capture_replay_equals_eager);
    RUN(svd_pca_lowrank);
    RUN(hostile_inputs);
    RUN(gradients);
    RUN(grad_fn_names);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

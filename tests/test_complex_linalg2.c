/* The linear algebra of complex matrices, second set, against torch 1.13
 * (scripts/gen_complex_linalg2_ref.py): solve_triangular / triangular_solve, lu_factor / lu /
 * lu_unpack / lu_solve, inv_ex / solve_ex, lstsq (each driver), cholesky_solve /
 * cholesky_inverse, ldl_factor / ldl_solve (symmetric and Hermitian), matrix_rank, cond,
 * matrix_norm, nuclear_norm, vecdot, vander, renorm, householder_product; complex64 and
 * complex128, batched. Then identities that need no reference (A X = B, P L U = A, L D L^H = A)
 * and capture / replay. */
#include "test_util.h"

#include "data/complex_linalg2_ref.h"

#include <string.h>

static ct_ctx *ctx;
static const ct_dtype cl2_dt[6] = {CT_FLOAT32,    CT_FLOAT64, CT_COMPLEX64,
                                   CT_COMPLEX128, CT_INT32,   CT_INT64};

static int64_t cl2_numel(const cl2_t *a) {
    int64_t n = 1;
    for (int i = 0; i < a->nd; i++)
        n *= a->shape[i];
    return n;
}

/* the reference tensor a as a ctorch tensor */
static ct_tensor *cl2_make(const cl2_t *a) {
    ct_tensor *t = tu_from_vals_cx(ctx, cl2_dt[a->dt], a->nd, a->shape, cl2_pool + a->off);
    CHECK(t != NULL);
    return t;
}

/* the values of t as doubles (complex: pairs) */
static double *cl2_read(const ct_tensor *t) { return tu_read_cx(t); }

/* got equal to the reference: dtype, shape, values within tol of the reference's scale (integer
 * results exactly) */
static void cl2_same(const char *what, int i, const ct_tensor *got, const cl2_t *ref) {
    const ct_dtype dt = cl2_dt[ref->dt];
    CHECK_MSG(got != NULL, "%s #%d: no output", what, i);
    if (!got) return;
    CHECK_MSG(ct_tensor_dtype(got) == dt, "%s #%d: dtype %s, torch %s", what, i,
              ct_dtype_name(ct_tensor_dtype(got)), ct_dtype_name(dt));
    CHECK_MSG(tu_same_shape(got, ref->nd, ref->shape), "%s #%d: shape differs", what, i);
    if (ct_tensor_dtype(got) != dt || !tu_same_shape(got, ref->nd, ref->shape)) return;
    const int64_t m = cl2_numel(ref) * (ct_dtype_is_complex(dt) ? 2 : 1);
    double *g = cl2_read(got), scale = 1;
    const double *r = cl2_pool + ref->off;
    for (int64_t e = 0; e < m; e++)
        if (isfinite(r[e]) && fabs(r[e]) > scale) scale = fabs(r[e]);
    const ct_dtype real = ct_dtype_to_real(dt);
    const double tol = dt == CT_INT32 || dt == CT_INT64 ? 0 : real == CT_FLOAT32 ? 2e-4 : 1e-10;
    int bad = 0;
    for (int64_t e = 0; e < m && bad < 3; e++) {
        const bool ok = isnan(r[e])   ? isnan(g[e])
                        : isinf(r[e]) ? g[e] == r[e]
                                      : fabs(g[e] - r[e]) <= tol * scale;
        if (!ok) bad++;
        CHECK_MSG(ok, "%s #%d (%s) element %lld: %.17g, torch %.17g", what, i, ct_dtype_name(dt),
                  (long long)e, g[e], r[e]);
    }
    free(g);
}

/* the call of case c: outs filled (NULL where the op has fewer) */
static ct_status cl2_call(const cl2_case *c, ct_tensor *const *in, ct_tensor **o) {
    const char *op = c->op;
    const int *iv = c->iv;
    const char *sv = c->sv[0] ? c->sv : NULL;
    if (!strcmp(op, "solve_triangular"))
        return ct_linalg_solve_triangular(ctx, in[0], in[1], iv[0], iv[1], iv[2], &o[0]);
    if (!strcmp(op, "triangular_solve"))
        return ct_triangular_solve(ctx, in[0], in[1], iv[0], iv[1], false, &o[0], &o[1]);
    if (!strcmp(op, "lu_factor")) return ct_linalg_lu_factor(ctx, in[0], &o[0], &o[1]);
    if (!strcmp(op, "lu")) return ct_linalg_lu(ctx, in[0], &o[0], &o[1], &o[2]);
    if (!strcmp(op, "lu_unpack"))
        return ct_lu_unpack(ctx, in[0], in[1], true, true, &o[0], &o[1], &o[2]);
    if (!strcmp(op, "lu_solve"))
        return ct_linalg_lu_solve(ctx, in[0], in[1], in[2], iv[0], iv[1], &o[0]);
    if (!strcmp(op, "lu_solve_old")) return ct_lu_solve(ctx, in[0], in[1], in[2], &o[0]);
    if (!strcmp(op, "inv_ex")) return ct_linalg_inv_ex(ctx, in[0], &o[0], &o[1]);
    if (!strcmp(op, "inv_ex_info")) {
        ct_tensor *inv = NULL;
        ct_status st = ct_linalg_inv_ex(ctx, in[0], &inv, &o[0]);
        ct_tensor_release(inv);
        return st;
    }
    if (!strcmp(op, "solve_ex")) return ct_linalg_solve_ex(ctx, in[0], in[1], &o[0], &o[1]);
    if (!strcmp(op, "lstsq")) {
        static const char *const drv[4] = {"gels", "gelsy", "gelsd", "gelss"};
        return ct_linalg_lstsq(ctx, in[0], in[1], NAN, drv[iv[0]], &o[0], &o[1], &o[2], &o[3]);
    }
    if (!strcmp(op, "cholesky_solve")) return ct_cholesky_solve(ctx, in[0], in[1], iv[0], &o[0]);
    if (!strcmp(op, "cholesky_inverse")) return ct_cholesky_inverse(ctx, in[0], iv[0], &o[0]);
    if (!strcmp(op, "ldl_factor")) return ct_linalg_ldl_factor(ctx, in[0], iv[0], &o[0], &o[1]);
    if (!strcmp(op, "ldl_solve"))
        return ct_linalg_ldl_solve(ctx, in[0], in[1], in[2], iv[0], &o[0]);
    if (!strcmp(op, "matrix_rank"))
        return ct_linalg_matrix_rank(ctx, in[0], NAN, NAN, iv[0], &o[0]);
    if (!strcmp(op, "matrix_rank_tol"))
        return ct_linalg_matrix_rank(ctx, in[0], c->dv[0], c->dv[1], iv[0], &o[0]);
    if (!strcmp(op, "cond")) return ct_linalg_cond(ctx, in[0], sv, &o[0]);
    if (!strcmp(op, "matrix_norm"))
        return ct_linalg_matrix_norm(ctx, in[0], sv, -2, -1, false, &o[0]);
    if (!strcmp(op, "matrix_norm_dims"))
        return ct_linalg_matrix_norm(ctx, in[0], sv, 0, 2, true, &o[0]);
    if (!strcmp(op, "nuclear_norm")) return ct_nuclear_norm(ctx, in[0], NULL, false, &o[0]);
    if (!strcmp(op, "vecdot")) return ct_linalg_vecdot(ctx, in[0], in[1], iv[0], &o[0]);
    if (!strcmp(op, "vander")) return ct_linalg_vander(ctx, in[0], iv[0], &o[0]);
    if (!strcmp(op, "renorm")) return ct_renorm(ctx, in[0], c->dv[0], iv[0], c->dv[1], &o[0]);
    if (!strcmp(op, "geqrf")) return ct_geqrf(ctx, in[0], &o[0], &o[1]);
    if (!strcmp(op, "ormqr")) return ct_ormqr(ctx, in[0], in[1], in[2], iv[0], iv[1], &o[0]);
    if (!strcmp(op, "householder_product"))
        return ct_linalg_householder_product(ctx, in[0], in[1], &o[0]);
    CHECK_MSG(0, "unknown case %s", op);
    return CT_ERR_INVALID_ARG;
}

TEST(as_torch) {
    const int n = (int)(sizeof cl2_cases / sizeof cl2_cases[0]);
    for (int i = 0; i < n; i++) {
        const cl2_case *c = &cl2_cases[i];
        if (!strncmp(c->op, "grad:", 5)) continue;
        ct_tensor *in[4] = {NULL}, *o[4] = {NULL};
        for (int k = 0; k < c->n_in; k++)
            in[k] = cl2_make(&c->in[k]);
        const ct_status st = cl2_call(c, in, o);
        CHECK_MSG(st == CT_OK, "%s #%d: %s", c->op, i, ct_ctx_last_error(ctx));
        for (int k = 0; st == CT_OK && k < c->n_out; k++)
            cl2_same(c->op, i, o[k], &c->out[k]);
        for (int k = 0; k < 4; k++)
            ct_tensor_release(o[k]), ct_tensor_release(in[k]);
    }
}

/* the one differentiated output of gradient case c (name after "grad:") */
static ct_status cl2_grad_call(const char *op, const cl2_case *c, ct_tensor *const *in,
                               ct_tensor **y) {
    ct_tensor *o[4] = {NULL};
    ct_status st;
    int keep = 0;
    if (!strcmp(op, "lu_L") || !strcmp(op, "lu_U")) {
        st = ct_linalg_lu(ctx, in[0], &o[0], &o[1], &o[2]);
        keep = op[3] == 'L' ? 1 : 2;
    } else if (!strcmp(op, "svd_S") || !strcmp(op, "svd_UVh")) {
        st = ct_linalg_svd(ctx, in[0], &o[0], &o[1], &o[2]);
        keep = 1;
        if (st == CT_OK && op[4] == 'U') {
            st = ct_matmul(ctx, o[0], o[2], &o[3]);
            keep = 3;
        }
    } else if (!strcmp(op, "qr_Q") || !strcmp(op, "qr_R")) {
        st = ct_linalg_qr(ctx, in[0], &o[0], &o[1]);
        keep = op[3] == 'Q' ? 0 : 1;
    } else if (!strcmp(op, "eigvals")) {
        st = ct_linalg_eigvals(ctx, in[0], &o[0]);
    } else if (!strcmp(op, "eig_L") || !strcmp(op, "eig_absV")) {
        st = ct_linalg_eig(ctx, in[0], &o[0], &o[1]);
        if (st == CT_OK && op[4] == 'a') {
            st = ct_abs(ctx, o[1], &o[2]);
            keep = 2;
        }
    } else if (!strcmp(op, "slogdet_sign") || !strcmp(op, "slogdet_logabs")) {
        st = ct_linalg_slogdet(ctx, in[0], &o[0], &o[1]);
        keep = op[8] == 's' ? 0 : 1;
    } else if (!strcmp(op, "svdvals")) {
        st = ct_linalg_svdvals(ctx, in[0], &o[0]);
    } else if (!strcmp(op, "pinv")) {
        st = ct_linalg_pinv(ctx, in[0], NAN, NAN, &o[0]);
    } else if (!strcmp(op, "lstsq")) {
        st = ct_linalg_lstsq(ctx, in[0], in[1], NAN, "gelsd", &o[0], &o[1], &o[2], &o[3]);
    } else {
        st = cl2_call(&(cl2_case){op,
                                  {c->iv[0], c->iv[1], c->iv[2], 0},
                                  {c->dv[0], c->dv[1]},
                                  c->sv,
                                  c->n_in - 1,
                                  {{0}},
                                  0,
                                  {{0}}},
                      in, o);
    }
    for (int k = 0; k < 4; k++) {
        if (k == keep && st == CT_OK)
            *y = o[k];
        else
            ct_tensor_release(o[k]);
    }
    return st;
}

/* gradients (backward of one output with torch's upstream w) of the inputs in iv[3]'s mask */
TEST(gradients_as_torch) {
    const int n = (int)(sizeof cl2_cases / sizeof cl2_cases[0]);
    int ran = 0;
    for (int i = 0; i < n; i++) {
        const cl2_case *c = &cl2_cases[i];
        if (strncmp(c->op, "grad:", 5)) continue;
        const int nin = c->n_in - 1, mask = c->iv[3];
        ct_tensor *in[4] = {NULL}, *w = cl2_make(&c->in[nin]), *y = NULL;
        for (int k = 0; k < nin; k++) {
            in[k] = cl2_make(&c->in[k]);
            if (mask >> k & 1) CHECK_OK(ct_tensor_set_requires_grad(in[k], true));
        }
        ct_status st = cl2_grad_call(c->op + 5, c, in, &y);
        CHECK_MSG(st == CT_OK, "%s #%d: %s", c->op, i, ct_ctx_last_error(ctx));
        if (st == CT_OK) st = ct_backward(ctx, y, w, false);
        CHECK_MSG(st == CT_OK, "%s #%d backward: %s", c->op, i, ct_ctx_last_error(ctx));
        for (int k = 0, j = 0; st == CT_OK && k < nin; k++)
            if (mask >> k & 1) cl2_same(c->op, i, ct_tensor_grad(in[k]), &c->out[j++]);
        ran++;
        ct_tensor_release(y), ct_tensor_release(w);
        for (int k = 0; k < 4; k++)
            ct_tensor_release(in[k]);
    }
    CHECK(ran >= 60);
}

/* max |x - y| over two tensors of one shape (complex: both parts) */
static double cl2_maxdiff(const ct_tensor *x, const ct_tensor *y) {
    double *a = cl2_read(x), *b = cl2_read(y), d = 0;
    const int64_t m = ct_tensor_numel(x) * (ct_dtype_is_complex(ct_tensor_dtype(x)) ? 2 : 1);
    for (int64_t e = 0; e < m; e++)
        if (fabs(a[e] - b[e]) > d || isnan(a[e] - b[e]))
            d = isnan(a[e] - b[e]) ? INFINITY : fabs(a[e] - b[e]);
    free(a), free(b);
    return d;
}

/* a random complex128 tensor (seeds seed and seed + 1 for its parts) */
static ct_tensor *cl2_rand(uint64_t seed, int nd, const int64_t *shape) {
    ct_tensor *re = NULL, *im = NULL, *z = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, nd, shape, seed, 0, &re));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, nd, shape, seed + 1, 0, &im));
    CHECK_OK(ct_complex(ctx, re, im, &z));
    ct_tensor_release(re), ct_tensor_release(im);
    return z;
}

/* A X = B from each solver, P L U = A, L D L^H = A through ldl_solve's inverse (no reference) */
TEST(identities) {
    const int64_t sa[3] = {2, 5, 5}, sb[3] = {2, 5, 3};
    ct_tensor *A = cl2_rand(42, 3, sa), *B = cl2_rand(44, 3, sb), *X = NULL, *AX = NULL;
    ct_tensor *LU = NULL, *piv = NULL, *P = NULL, *L = NULL, *U = NULL, *PL = NULL, *PLU = NULL;
    CHECK_OK(ct_linalg_lu_factor(ctx, A, &LU, &piv));
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, B, true, false, &X));
    CHECK_OK(ct_matmul(ctx, A, X, &AX));
    CHECK(cl2_maxdiff(AX, B) < 1e-12);
    CHECK_OK(ct_linalg_lu(ctx, A, &P, &L, &U));
    CHECK_OK(ct_matmul(ctx, P, L, &PL));
    CHECK_OK(ct_matmul(ctx, PL, U, &PLU));
    CHECK(cl2_maxdiff(PLU, A) < 1e-13);
    ct_tensor *AH = NULL, *XA = NULL, *AHX = NULL;
    ct_tensor_release(X), ct_tensor_release(AX);
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, B, true, true, &X)); /* A^H X = B */
    CHECK_OK(ct_adjoint(ctx, A, &AH));
    CHECK_OK(ct_matmul(ctx, AH, X, &AHX));
    CHECK(cl2_maxdiff(AHX, B) < 1e-12);
    /* lstsq of a consistent system gives the exact solution */
    ct_tensor *S = NULL, *res = NULL, *rk = NULL, *sv = NULL, *AS = NULL;
    CHECK_OK(ct_linalg_lstsq(ctx, A, B, NAN, "gelsd", &S, &res, &rk, &sv));
    CHECK_OK(ct_matmul(ctx, A, S, &AS));
    CHECK(cl2_maxdiff(AS, B) < 1e-12);
    /* Hermitian LDL: ldl_solve(A) = solve(A) */
    ct_tensor *Hm = NULL, *LD = NULL, *pv = NULL, *Y = NULL, *Y2 = NULL;
    CHECK_OK(ct_add(ctx, A, AH, &Hm));
    CHECK_OK(ct_linalg_ldl_factor(ctx, Hm, true, &LD, &pv));
    CHECK_OK(ct_linalg_ldl_solve(ctx, LD, pv, B, true, &Y));
    CHECK_OK(ct_linalg_solve(ctx, Hm, B, &Y2));
    CHECK(cl2_maxdiff(Y, Y2) < 1e-11);
    /* the symmetric (not Hermitian) factorisation of a Hermitian matrix solves another system:
     * only the Hermitian flag reads it as Hermitian */
    ct_tensor *LD2 = NULL, *pv2 = NULL, *Y3 = NULL;
    CHECK_OK(ct_linalg_ldl_factor(ctx, Hm, false, &LD2, &pv2));
    CHECK_OK(ct_linalg_ldl_solve(ctx, LD2, pv2, B, false, &Y3));
    CHECK(cl2_maxdiff(Y3, Y2) > 1e-3);
    ct_tensor *all[] = {A, B,   X,  AX, LU, piv, P,  L,  U, PL, PLU, AH,  XA, AHX,
                        S, res, rk, sv, AS, Hm,  LD, pv, Y, Y2, LD2, pv2, Y3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* refusals as torch: svd_lowrank, pdist and cdist of complex input; dtypes that do not match */
TEST(refusals) {
    const int64_t s[2] = {3, 3};
    ct_tensor *A = cl2_rand(5, 2, s), *R = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, s, 7, 0, &R));
    ct_tensor *o1 = NULL, *o2 = NULL, *o3 = NULL, *o4 = NULL;
    CHECK_ST(ct_svd_lowrank(ctx, A, 2, 1, 1, &o1, &o2, &o3), CT_ERR_DTYPE);
    CHECK_ST(ct_pdist(ctx, A, 2, &o1), CT_ERR_DTYPE);
    CHECK_ST(ct_cdist(ctx, A, A, 2, &o1), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_lstsq(ctx, A, R, NAN, NULL, &o1, &o2, &o3, &o4), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_vecdot(ctx, A, R, -1, &o1), CT_ERR_DTYPE);
    CHECK(o1 == NULL && o2 == NULL && o3 == NULL && o4 == NULL);
    ct_tensor_release(A), ct_tensor_release(R);
}

/* complex solves captured into a graph replay on new inputs */
TEST(capture_replay) {
    const int64_t s[3] = {2, 4, 4}, sb[3] = {2, 4, 2};
    ct_tensor *A = cl2_rand(9, 3, s), *B = cl2_rand(11, 3, sb), *X = NULL, *LU = NULL, *piv = NULL;
    ct_tensor *Y = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_linalg_solve_triangular(ctx, A, B, true, true, false, &X));
    CHECK_OK(ct_linalg_lu_factor(ctx, A, &LU, &piv));
    CHECK_OK(ct_linalg_lu_solve(ctx, LU, piv, B, true, false, &Y));
    CHECK_OK(ct_graph_capture_end(g));
    ct_tensor *A2 = cl2_rand(13, 3, s), *B2 = cl2_rand(15, 3, sb), *X2 = NULL, *Y2 = NULL;
    CHECK_OK(ct_tensor_copy_(ctx, A, A2));
    CHECK_OK(ct_tensor_copy_(ctx, B, B2));
    CHECK_OK(ct_graph_replay(g));
    CHECK_OK(ct_linalg_solve_triangular(ctx, A2, B2, true, true, false, &X2));
    CHECK_OK(ct_linalg_solve(ctx, A2, B2, &Y2));
    CHECK(cl2_maxdiff(X, X2) == 0);
    CHECK(cl2_maxdiff(Y, Y2) < 1e-12);
    ct_graph_free(g);
    ct_tensor *all[] = {A, B, X, LU, piv, Y, A2, B2, X2, Y2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(as_torch);
    RUN(gradients_as_torch);
    RUN(identities);
    RUN(refusals);
    RUN(capture_replay);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Backward formulas of the dense linear algebra and of prod, written with public ops (so they
 * run on any backend and double backward works where the ops they use have formulas):
 *   inv:      gA = -Y^T G Y^T                          (Y = A^-1)
 *   det:      gA = (G det) A^-T                         (a singular A fails: its inverse)
 *   slogdet:  gA = (G + i Im(gS conj(s))) A^-H       (the sign's term for complex input only)
 *   solve:    gB = A^-T G, gA = -gB X^T                 (X = A^-1 B)
 *   cholesky: gA = sym(L^-T Phi(L^T G) L^-1)            (Phi: lower triangle, diagonal halved;
 *             sym(S) = (S + S^T) / 2), for U = L^T with G transposed
 *   qr:       m >= n: gA = (gQ + Q N) R^-H, M = gR R^H - Q^H gQ, N = triu(M, 1) + triu(M, 1)^H
 *             + diag(Re M_ii); m < n: A = [X | Y], R = [R1 | R2]: gY = Q gR2, gX from the
 *             square case with gQ + Y gR2^H and gR1
 *   svd:      gA = U [(J S + S K) / E + diag(gS) (+ diag(J_ii / (2 s_i)) for complex)] Vh
 *             + (I - U U^H) gU S^-1 Vh + U S^-1 gV^H (I - V V^H), J = skew(U^H gU),
 *             K = skew(V^H gV), skew(X) = X - X^H, E_ij = s_j^2 - s_i^2 off the diagonal, 1 on
 *             it (torch's; the projection terms only where m or n exceeds k); repeated singular
 *             values make E zero, as in torch
 *   prod:     g prod_{j != i} x_j from exclusive running products (exact with zeros).
 * solve_triangular, lu_factor, cholesky_solve, lstsq and pinv's part of lstsq are written with
 * the conjugate transpose (ag_mh, the transpose of real matrices), torch's complex forms. */
#include "autograd/autograd_impl.h"
#include "ctorch/linalg.h"
#include "dispatch/dispatch.h"
#include "ctorch/ops.h"

#include <math.h>

#define G (c->g[0])
#define IN(i) (c->in[i])
#define OUT (c->out[0])

/* sticky wrappers for the calls the helpers do not cover */
static ct_tensor *ag_inv(ct__ag_call *c, const ct_tensor *a) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_linalg_inv(c->ctx, a, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_solve(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a && b ? ct_linalg_solve(c->ctx, a, b, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_mt(ct__ag_call *c, const ct_tensor *a) { /* transpose of the last two dims */
    return a ? ct__ag_transpose(c, a, ct_tensor_ndim(a) - 2, ct_tensor_ndim(a) - 1) : NULL;
}
static ct_tensor *ag_tril(ct__ag_call *c, const ct_tensor *a, int64_t diag) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_tril(c->ctx, a, diag, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_unsq2(ct__ag_call *c, const ct_tensor *a) { /* (...) -> (..., 1, 1) */
    return ct__ag_unsqueeze(c, ct__ag_unsqueeze(c, a, a ? ct_tensor_ndim(a) : 0),
                            a ? ct_tensor_ndim(a) + 1 : 0);
}

/* conj(a) for a complex a, a itself otherwise */
static const ct_tensor *ag_conj(ct__ag_call *c, const ct_tensor *a) {
    if (!a || !ct_dtype_is_complex(ct_tensor_dtype(a))) return a;
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK ? ct_conj(c->ctx, a, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
/* the conjugate transpose of the last two dims (the transpose for real a): the complex forms of
 * inv / det / slogdet / solve's formulas (torch's, with mH) */
static const ct_tensor *ag_mh(ct__ag_call *c, const ct_tensor *a) {
    return ag_conj(c, ag_mt(c, a));
}

static void bw_inv(ct__ag_call *c) { /* -A^-H G A^-H */
    const ct_tensor *yt = ag_mh(c, OUT);
    ct__ag_set(c, 0, ct__ag_neg(c, ct__ag_matmul(c, ct__ag_matmul(c, yt, G), yt)));
}
/* The cofactor matrix of a real A (d det / dA) through its SVD A = U S Vh: det(U) det(Vh)
 * U diag(prod_{j != i} s_j) Vh, which needs no inverse (a singular A has one) */
static ct_tensor *ag_cofactor_svd(ct__ag_call *c, const ct_tensor *a) {
    const int nd = ct_tensor_ndim(a);
    const int64_t n = ct_tensor_shape(a)[nd - 1];
    ct_tensor *u = NULL, *sv = NULL, *vh = NULL, *du = NULL, *dv = NULL, *ex = NULL, *m = NULL;
    ct_tensor *pr = NULL, *eye = NULL;
    ct_status st = c->st;
    if (st == CT_OK) st = ct_linalg_svd(c->ctx, a, &u, &sv, &vh);
    u = ct__ag_keep(c, st, u), sv = ct__ag_keep(c, st, sv), vh = ct__ag_keep(c, st, vh);
    st = c->st == CT_OK ? ct_linalg_det(c->ctx, u, &du) : c->st;
    du = ct__ag_keep(c, st, du);
    st = c->st == CT_OK ? ct_linalg_det(c->ctx, vh, &dv) : c->st;
    dv = ct__ag_keep(c, st, dv);
    /* prod_{j != i} s_j: the row of s with its own entry set to 1, multiplied out */
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        sh[i] = i < nd - 2 ? ct_tensor_shape(a)[i] : n;
    st = c->st == CT_OK ? ct_tensor_eye(c->ctx, CT_BOOL, n, n, &eye) : c->st;
    eye = ct__ag_keep(c, st, eye);
    st = c->st == CT_OK ? ct_tensor_expand(c->ctx, ct__ag_unsqueeze(c, sv, nd - 2), nd, sh, &ex)
                        : c->st;
    ex = ct__ag_keep(c, st, ex);
    st = c->st == CT_OK ? ct_masked_fill(c->ctx, ex, eye, 1.0, &m) : c->st;
    m = ct__ag_keep(c, st, m);
    st = c->st == CT_OK ? ct_prod(c->ctx, m, nd - 1, false, &pr) : c->st;
    pr = ct__ag_keep(c, st, pr);
    const ct_tensor *us = ct__ag_mul(c, u, ct__ag_unsqueeze(c, pr, nd - 2));
    return ct__ag_mul(c, ag_unsq2(c, ct__ag_mul(c, du, dv)), ct__ag_matmul(c, us, vh));
}
/* G conj(det) A^-H; a real A whose determinant is exactly 0 (no inverse) takes the cofactors
 * through the SVD (torch 1.13 returns zeros or half the cofactors there; the cofactor matrix is
 * the derivative) */
static void bw_det(ct__ag_call *c) {
    const ct_tensor *a = IN(0);
    bool singular = false;
    if (c->st == CT_OK && a && OUT && !ct_dtype_is_complex(ct_tensor_dtype(a)) &&
        ct_tensor_ndim(a) >= 2 && ct_tensor_shape(a)[ct_tensor_ndim(a) - 1] > 0) {
        /* a host read of the determinants (a capture keeps the inverse form) */
        ct_status st = ct__host_any_zero(c->ctx, OUT, false, &singular);
        if (st != CT_OK) c->st = st;
    }
    if (singular) {
        ct__ag_set(c, 0, ct__ag_mul(c, ag_unsq2(c, G), ag_cofactor_svd(c, a)));
        return;
    }
    ct_tensor *s = ag_unsq2(c, ct__ag_mul(c, G, ag_conj(c, OUT)));
    ct__ag_set(c, 0, ct__ag_mul(c, s, ag_mh(c, ag_inv(c, a))));
}
/* d log|det A| = Re tr(A^-1 dA): G A^-H; complex input adds the sign's term, as torch: sign =
 * e^{i theta}, d theta = Im tr(A^-1 dA), so (G + i Im(z)) A^-H, z = gS conj(sign),
 * i Im(z) = (z - conj(z)) / 2 */
static void bw_slogdet(ct__ag_call *c) {
    const ct_tensor *g = G, *sg = c->out[1];
    if (sg && ct_dtype_is_complex(ct_tensor_dtype(sg)) && c->g[1]) {
        const ct_tensor *z = ct__ag_mul(c, c->g[1], ag_conj(c, sg));
        g = ct__ag_add(c, g, ct__ag_mul_s(c, ct__ag_sub(c, z, ag_conj(c, z)), 0.5));
    }
    ct__ag_set(c, 0, ct__ag_mul(c, ag_unsq2(c, g), ag_mh(c, ag_inv(c, IN(0)))));
}
static void bw_solve(ct__ag_call *c) {
    bool vec = c->n->iv[0] != 0; /* B was (..., n): work with (..., n, 1) */
    const ct_tensor *g = G, *x = OUT;
    if (vec) {
        g = ct__ag_unsqueeze(c, G, ct_tensor_ndim(G));
        x = ct__ag_unsqueeze(c, OUT, ct_tensor_ndim(OUT));
    }
    ct_tensor *gb = ag_solve(c, ag_mh(c, IN(0)), g); /* A^-H G; gA = -gB X^H */
    ct__ag_set(c, 0, ct__ag_neg(c, ct__ag_matmul(c, gb, ag_mh(c, x))));
    ct__ag_set(c, 1, vec && gb ? ct__ag_squeeze(c, gb, ct_tensor_ndim(gb) - 1) : gb);
}
static void bw_cholesky(ct__ag_call *c) { /* complex: the same with mH (Hermitian projection) */
    bool upper = c->n->iv[0] != 0;
    const ct_tensor *l = upper ? ag_mh(c, OUT) : OUT, *gl = upper ? ag_mh(c, G) : G;
    ct_tensor *p = ct__ag_matmul(c, ag_mh(c, l), gl);
    /* Phi(P): the strict lower triangle plus half the diagonal */
    ct_tensor *phi =
        ct__ag_sub(c, ag_tril(c, p, 0),
                   ct__ag_mul_s(c, ct__ag_sub(c, ag_tril(c, p, 0), ag_tril(c, p, -1)), 0.5));
    ct_tensor *li = ag_inv(c, l);
    ct_tensor *s = ct__ag_matmul(c, ct__ag_matmul(c, ag_mh(c, li), phi), li);
    ct__ag_set(c, 0, ct__ag_mul_s(c, ct__ag_add(c, s, ag_mh(c, s)), 0.5));
}

static ct_tensor *ag_triu(ct__ag_call *c, const ct_tensor *a, int64_t diag) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_triu(c->ctx, a, diag, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_cat2(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b, int d) {
    ct_tensor *r = NULL;
    const ct_tensor *ts[2] = {a, b};
    ct_status st = c->st == CT_OK && a && b ? ct_cat(c->ctx, 2, ts, d, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_eye(ct__ag_call *c, int64_t n, ct_dtype dt) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK ? ct_tensor_eye(c->ctx, dt, n, n, &r) : c->st;
    return ct__ag_keep(c, st, r);
}

/* the diagonal of the last two dims */
static ct_tensor *ag_diag(ct__ag_call *c, const ct_tensor *a) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_diagonal(c->ctx, a, 0, -2, -1, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
/* the real part of a complex a; a itself otherwise */
static ct_tensor *ag_real(ct__ag_call *c, const ct_tensor *a) {
    if (!a || !ct_dtype_is_complex(ct_tensor_dtype(a))) return (ct_tensor *)a;
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK ? ct_real(c->ctx, a, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
/* The square / tall case of the QR backward: (gQ + Q N) R^-H, as R X^H = (...)^H; N the
 * Hermitian matrix of triu(M) with a real diagonal (torch's syminvadj): triu(M, 1) + its
 * adjoint + diag(Re M_ii), M = gR R^H - Q^H gQ (real input: triu(M) + triu(M, 1)^T). */
static ct_tensor *qr_tall(ct__ag_call *c, const ct_tensor *q, const ct_tensor *r,
                          const ct_tensor *gq, const ct_tensor *gr) {
    ct_tensor *m =
        ct__ag_sub(c, ct__ag_matmul(c, gr, ag_mh(c, r)), ct__ag_matmul(c, ag_mh(c, q), gq));
    const int nd = m ? ct_tensor_ndim(m) : 2;
    const int64_t k = m ? ct_tensor_shape(m)[nd - 1] : 0;
    const ct_dtype rdt = m ? ct_dtype_to_real(ct_tensor_dtype(m)) : CT_FLOAT64;
    const ct_tensor *t1 = ag_triu(c, m, 1);
    const ct_tensor *dg =
        ct__ag_mul(c, ag_eye(c, k, rdt), ct__ag_unsqueeze(c, ag_real(c, ag_diag(c, m)), nd - 2));
    ct_tensor *nn = ct__ag_add(c, ct__ag_add(c, t1, ag_mh(c, t1)), dg);
    ct_tensor *b = ct__ag_add(c, gq, ct__ag_matmul(c, q, nn));
    return (ct_tensor *)ag_mh(c, ag_solve(c, r, ag_mh(c, b)));
}
static void bw_qr(ct__ag_call *c) {
    const ct_tensor *q = c->out[0], *r = c->out[1];
    const int nd = c->n->in_meta[0].ndim;
    const int64_t m = c->n->in_meta[0].shape[nd - 2], n = c->n->in_meta[0].shape[nd - 1];
    if (m >= n) {
        ct__ag_set(c, 0, qr_tall(c, q, r, c->g[0], c->g[1]));
        return;
    }
    const ct_tensor *y = ct__ag_slice(c, IN(0), nd - 1, m, n, 1);
    const ct_tensor *r1 = ct__ag_slice(c, r, nd - 1, 0, m, 1);
    const ct_tensor *gr1 = ct__ag_slice(c, c->g[1], nd - 1, 0, m, 1);
    const ct_tensor *gr2 = ct__ag_slice(c, c->g[1], nd - 1, m, n, 1);
    const ct_tensor *gq = ct__ag_add(c, c->g[0], ct__ag_matmul(c, y, ag_mh(c, gr2)));
    ct__ag_set(c, 0, ag_cat2(c, qr_tall(c, q, r1, gq, gr1), ct__ag_matmul(c, q, gr2), nd - 1));
}

/* eig (torch's linalg_eig_backward): gA = V^-H (diag(gL) + (V^H gV - V^H V diag(Re diag(V^H gV)))
 * / conj(E)) V^H off the diagonal, E_ij = L_j - L_i; the real part for a real input (torch's
 * handle_r_to_c). A loss that depends on the eigenvectors' phases is ill-defined (torch checks
 * Im(diag(V^H gV)) = 0; ctorch does not). */
static void bw_eig(ct__ag_call *c) {
    const ct_tensor *l = c->out[0], *v = c->out[1];
    const int nd = c->n->in_meta[0].ndim;
    const int64_t n = c->n->in_meta[0].shape[nd - 1];
    const ct_dtype rdt = l ? ct_dtype_to_real(ct_tensor_dtype(l)) : CT_FLOAT64;
    const ct_tensor *vh = ag_mh(c, v);
    const ct_tensor *vhgv = ct__ag_matmul(c, vh, c->g[1]);
    const ct_tensor *re_d = ag_real(c, ag_diag(c, vhgv));
    const ct_tensor *t = ct__ag_sub(
        c, vhgv, ct__ag_mul(c, ct__ag_matmul(c, vh, v), ct__ag_unsqueeze(c, re_d, nd - 2)));
    const ct_tensor *eye = ag_eye(c, n, rdt);
    const ct_tensor *e = ct__ag_add(
        c, ct__ag_sub(c, ct__ag_unsqueeze(c, l, nd - 2), ct__ag_unsqueeze(c, l, nd - 1)), eye);
    const ct_tensor *off = ct__ag_sub(c, ct__ag_scalar(c, rdt, 1.0), eye);
    const ct_tensor *ret = ct__ag_add(c, ct__ag_mul(c, ct__ag_div(c, t, ag_conj(c, e)), off),
                                      ct__ag_mul(c, eye, ct__ag_unsqueeze(c, c->g[0], nd - 2)));
    ct_tensor *ga = ag_solve(c, vh, ct__ag_matmul(c, ret, vh));
    if (!ct_dtype_is_complex(c->n->in_meta[0].dtype)) ga = ag_real(c, ga);
    ct__ag_set(c, 0, ga);
}

/* eigh: gA = V (diag(gw) + F o skew(V^H gV)) V^H, F_ij = 1 / (w_j - w_i) off the diagonal,
 * skew(X) = (X - X^H) / 2 (torch 1.13's formula for real and complex input alike: the gradient of
 * a real A is symmetric; repeated eigenvalues make F infinite, as in torch). */
static void bw_eigh(ct__ag_call *c) {
    const ct_tensor *w = c->out[0], *v = c->out[1];
    const int nd = c->n->in_meta[0].ndim;
    const int64_t n = c->n->in_meta[0].shape[nd - 1];
    const ct_dtype dt = w ? ct_tensor_dtype(w) : CT_FLOAT64;
    if (!c->has_g[1]) { /* eigenvalues only (torch skips the vectors' term, whose 1 / (w_j - w_i)
                         * is inf at a repeated eigenvalue): V diag(gL) V^H */
        const ct_tensor *vg = ct__ag_mul(c, v, ct__ag_unsqueeze(c, c->g[0], nd - 2));
        ct__ag_set(c, 0, ct__ag_matmul(c, vg, ag_mh(c, v)));
        return;
    }
    const ct_tensor *e = ct__ag_sub(c, ct__ag_unsqueeze(c, w, nd - 2),
                                    ct__ag_unsqueeze(c, w, nd - 1)); /* w_j - w_i */
    const ct_tensor *eye = ag_eye(c, n, dt);
    const ct_tensor *f =
        ct__ag_div(c, ct__ag_sub(c, ct__ag_scalar(c, dt, 1.0), eye), ct__ag_add(c, e, eye));
    const ct_tensor *vhg = ct__ag_matmul(c, ag_mh(c, v), c->g[1]);
    /* torch's projection onto the skew-Hermitian matrices (the tangent space of V's
     * orthogonality and, for complex V, its phases) */
    vhg = ct__ag_mul_s(c, ct__ag_sub(c, vhg, ag_mh(c, vhg)), 0.5);
    const ct_tensor *inner = ct__ag_add(c, ct__ag_mul(c, f, vhg),
                                        ct__ag_mul(c, eye, ct__ag_unsqueeze(c, c->g[0], nd - 2)));
    ct__ag_set(c, 0, ct__ag_matmul(c, ct__ag_matmul(c, v, inner), ag_mh(c, v)));
}

static void bw_svd(ct__ag_call *c) {
    const ct_tensor *u = c->out[0], *s = c->out[1], *vh = c->out[2];
    const ct_tensor *gu = c->g[0], *gs = c->g[1], *gvh = c->g[2];
    const int nd = c->n->in_meta[0].ndim;
    const int64_t m = c->n->in_meta[0].shape[nd - 2], n = c->n->in_meta[0].shape[nd - 1];
    const int64_t k = m < n ? m : n;
    const ct_dtype dt = s ? ct_tensor_dtype(s) : CT_FLOAT64;
    const bool cx = u && ct_dtype_is_complex(ct_tensor_dtype(u));
    if (!c->has_g[0] && !c->has_g[2]) { /* singular values only (torch skips the vectors' terms,
                                         * inf at a repeated or zero singular value): U diag(gS)
                                         * Vh */
        const ct_tensor *ug = ct__ag_mul(c, u, ct__ag_unsqueeze(c, gs, nd - 2));
        ct__ag_set(c, 0, ct__ag_matmul(c, ug, vh));
        return;
    }
    const ct_tensor *v = ag_mh(c, vh), *gv = ag_mh(c, gvh);
    const ct_tensor *srow = ct__ag_unsqueeze(c, s, nd - 2); /* (..., 1, k): scales columns */
    const ct_tensor *scol = ct__ag_unsqueeze(c, s, nd - 1); /* (..., k, 1): scales rows */
    const ct_tensor *s2 = ct__ag_mul(c, s, s);
    const ct_tensor *eye = ag_eye(c, k, dt);
    const ct_tensor *e = ct__ag_add(
        c, ct__ag_sub(c, ct__ag_unsqueeze(c, s2, nd - 2), ct__ag_unsqueeze(c, s2, nd - 1)),
        eye); /* s_j^2 - s_i^2, 1 on the diagonal (torch's E) */
    const ct_tensor *utgu = ct__ag_matmul(c, ag_mh(c, u), gu);
    const ct_tensor *vtgv = ct__ag_matmul(c, ag_mh(c, v), gv);
    const ct_tensor *ju = ct__ag_sub(c, utgu, ag_mh(c, utgu)); /* skew(U^H gU) */
    const ct_tensor *kv = ct__ag_sub(c, vtgv, ag_mh(c, vtgv)); /* skew(V^H gV) */
    /* (skew(U^H gU) S + S skew(V^H gV)) / E: the diagonal is S (J_ii + K_ii), zero for real
     * input and for a loss that does not see the vectors' phases */
    ct_tensor *inner =
        ct__ag_div(c, ct__ag_add(c, ct__ag_mul(c, ju, srow), ct__ag_mul(c, scol, kv)), e);
    inner = ct__ag_add(c, inner, ct__ag_mul(c, eye, ct__ag_unsqueeze(c, gs, nd - 2))); /* gS */
    if (cx) /* the complex term diag(J_ii / (2 S)) = i Im(diag(U^H gU)) / S */
        inner = ct__ag_add(
            c, inner,
            ct__ag_mul(c, eye,
                       ct__ag_unsqueeze(c, ct__ag_div(c, ag_diag(c, ju), ct__ag_mul_s(c, s, 2.0)),
                                        nd - 2)));
    ct_tensor *ga = ct__ag_matmul(c, ct__ag_matmul(c, u, inner), vh);
    if (m > k) { /* (I - U U^H) gU S^-1 Vh */
        const ct_tensor *pu = ct__ag_sub(c, gu, ct__ag_matmul(c, u, utgu));
        ga = ct__ag_add(c, ga, ct__ag_matmul(c, ct__ag_div(c, pu, srow), vh));
    }
    if (n > k) { /* U S^-1 gV^H (I - V V^H) */
        const ct_tensor *pv = ct__ag_sub(c, gv, ct__ag_matmul(c, v, vtgv));
        ga = ct__ag_add(c, ga, ct__ag_matmul(c, u, ag_mh(c, ct__ag_div(c, pv, srow))));
    }
    ct__ag_set(c, 0, ga);
}

/* exclusive running products along d: before_i = prod_{j<i} x_j, after_i = prod_{j>i} x_j */
static ct_tensor *ag_pad_dim(ct__ag_call *c, const ct_tensor *a, int d, int64_t lo, int64_t hi) {
    if (!a) return NULL;
    int nd = ct_tensor_ndim(a), np = 2 * (nd - d);
    int64_t pads[2 * CT_MAX_DIMS] = {0};
    pads[np - 2] = lo, pads[np - 1] = hi;
    ct_tensor *r = NULL;
    /* an empty tensor keeps its shape (pad refuses to fill an empty output, as torch) */
    ct_status st = c->st != CT_OK ? c->st
                   : ct_tensor_numel(a) == 0
                       ? ct_full_like(c->ctx, a, 1.0, &r)
                       : ct_pad(c->ctx, a, np, pads, CT_PAD_CONSTANT, 1.0, &r);
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_cumprod(ct__ag_call *c, const ct_tensor *a, int d) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_cumprod(c->ctx, a, d, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_flip(ct__ag_call *c, const ct_tensor *a, int d) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_flip(c->ctx, a, 1, &d, &r) : c->st;
    return ct__ag_keep(c, st, r);
}
static void bw_prod(ct__ag_call *c) {
    const ct__ag_tmeta *m = &c->n->in_meta[0];
    int d = (int)c->n->iv[0];
    bool keep = c->n->iv[1] != 0;
    const ct_tensor *x = IN(0), *g = G;
    if (d == CT_ALL_DIMS || m->ndim == 0) { /* every element: along the flattened input */
        int64_t n = 1;
        for (int i = 0; i < m->ndim; i++)
            n *= m->shape[i];
        x = ct__ag_reshape(c, x, 1, &n);
        int64_t one = 1;
        g = ct__ag_reshape(c, g, 1, &one);
        d = 0;
    } else if (!keep) {
        g = ct__ag_unsqueeze(c, g, d);
    }
    ct_tensor *before = ag_pad_dim(c, ag_cumprod(c, x, d), d, 1, -1);
    ct_tensor *after = ag_flip(c, ag_pad_dim(c, ag_cumprod(c, ag_flip(c, x, d), d), d, 1, -1), d);
    ct_tensor *gi = ct__ag_mul(c, g, ct__ag_mul(c, before, after));
    ct__ag_set(c, 0,
               gi && ct_tensor_ndim(gi) != m->ndim ? ct__ag_reshape(c, gi, m->ndim, m->shape) : gi);
}

/* ---- the second set ---- */
static ct_tensor *ag_trsolve(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b, bool upper,
                             bool left, bool unit) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a && b
                       ? ct_linalg_solve_triangular(c->ctx, a, b, upper, left, unit, &r)
                       : c->st;
    return ct__ag_keep(c, st, r);
}
static ct_tensor *ag_narrow(ct__ag_call *c, const ct_tensor *a, int d, int64_t s, int64_t len) {
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK && a ? ct_tensor_narrow(c->ctx, a, d, s, len, &r) : c->st;
    return ct__ag_keep(c, st, r);
}

/* solve_triangular (torch's linalg_solve_triangular_backward): gB = solve_triangular(A^T, G,
 * !upper, left, unit); gA = -gB X^T (left) or -X^T gB, cut to A's triangle (without the diagonal
 * when unitriangular). */
static void bw_solve_triangular(ct__ag_call *c) {
    const bool upper = c->n->iv[0] != 0, left = c->n->iv[1] != 0, unit = c->n->iv[2] != 0;
    ct_tensor *gb = ag_trsolve(c, ag_mh(c, IN(0)), G, !upper, left, unit);
    if (c->need[0]) {
        ct_tensor *ga = ct__ag_neg(c, left ? ct__ag_matmul(c, gb, ag_mh(c, OUT))
                                           : ct__ag_matmul(c, ag_mh(c, OUT), gb));
        ct__ag_set(c, 0, upper ? ag_triu(c, ga, unit ? 1 : 0) : ag_tril(c, ga, unit ? -1 : 0));
    }
    ct__ag_set(c, 1, gb);
}

/* torch's linalg_lu_backward for A = P L U, L (..., m, k) unit lower, U (..., k, n):
 *   m == n: P L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T
 *   m < n:  P L^-T [ (tril(L^T gL - triu(gU) U^T, -1) U1^-T + triu(gU1)) | gU2 ]
 *   m > n:  P [ (L1^-T triu(gU U^T - L^T gL) + tril(gL1, -1)) ; gL2 ] U^-T */
static ct_tensor *lu_backward(ct__ag_call *c, const ct_tensor *gl, const ct_tensor *gu,
                              const ct_tensor *p, const ct_tensor *l, const ct_tensor *u, int64_t m,
                              int64_t n) {
    const int64_t k = m < n ? m : n;
    const int nd = l ? ct_tensor_ndim(l) : 2;
    ct_tensor *ga = NULL;
    if (m == n) {
        ga = ct__ag_add(c, ag_tril(c, ct__ag_matmul(c, ag_mh(c, l), gl), -1),
                        ag_triu(c, ct__ag_matmul(c, gu, ag_mh(c, u)), 0));
        ga = ag_trsolve(c, ag_mh(c, u), ga, false, false, false);
        ga = ag_trsolve(c, ag_mh(c, l), ga, true, true, true);
    } else if (m < n) {
        const ct_tensor *u1 = ag_narrow(c, u, nd - 1, 0, k);
        ga = ct__ag_sub(c, ct__ag_matmul(c, ag_mh(c, l), gl),
                        ct__ag_matmul(c, ag_triu(c, gu, 0), ag_mh(c, u)));
        ga = ag_trsolve(c, ag_mh(c, u1), ag_tril(c, ga, -1), false, false, false);
        ga = ag_cat2(c, ct__ag_add(c, ga, ag_triu(c, ag_narrow(c, gu, nd - 1, 0, k), 0)),
                     ag_narrow(c, gu, nd - 1, k, n - k), nd - 1);
        ga = ag_trsolve(c, ag_mh(c, l), ga, true, true, true);
    } else {
        const ct_tensor *l1 = ag_narrow(c, l, nd - 2, 0, k);
        ga = ct__ag_sub(c, ct__ag_matmul(c, gu, ag_mh(c, u)), ct__ag_matmul(c, ag_mh(c, l), gl));
        ga = ag_trsolve(c, ag_mh(c, l1), ag_triu(c, ga, 0), true, true, true);
        ga = ag_cat2(c, ct__ag_add(c, ga, ag_tril(c, ag_narrow(c, gl, nd - 2, 0, k), -1)),
                     ag_narrow(c, gl, nd - 2, k, m - k), nd - 2);
        ga = ag_trsolve(c, ag_mh(c, u), ga, false, false, false);
    }
    return ct__ag_matmul(c, p, ga);
}
/* lu_factor_ex (torch's lu_factor_ex_backward): P, L, U unpacked from the saved LU and pivots,
 * gL = tril(G[..., :, :k], -1), gU = triu(G[..., :k, :]) into lu_backward. */
static void bw_lu_factor(ct__ag_call *c) {
    const ct__ag_tmeta *om = &c->n->out_meta[0];
    const int nd = om->ndim;
    const int64_t m = om->shape[nd - 2], n = om->shape[nd - 1], k = m < n ? m : n;
    ct_tensor *p = NULL, *l = NULL, *u = NULL;
    ct_status st =
        c->st == CT_OK ? ct_lu_unpack(c->ctx, OUT, IN(1), true, true, &p, &l, &u) : c->st;
    ct__ag_keep(c, st, p);
    if (st == CT_OK) ct__ag_keep(c, CT_OK, l), ct__ag_keep(c, CT_OK, u);
    /* only L's strict lower part and U's upper part are free: mask the gradients to them */
    const ct_tensor *gl = ag_tril(c, ag_narrow(c, G, nd - 1, 0, k), -1);
    const ct_tensor *gu = ag_triu(c, ag_narrow(c, G, nd - 2, 0, k), 0);
    ct__ag_set(c, 0, lu_backward(c, gl, gu, p, l, u, m, n));
}

/* cholesky_solve (torch's cholesky_solve_backward): gB = cholesky_solve(G, L), S = gB X^T,
 * S + S^T; gL = -(S + S^T) L, or -U (S + S^T) when upper (the full matrix, as torch). */
static void bw_cholesky_solve(ct__ag_call *c) {
    const bool upper = c->n->iv[0] != 0;
    ct_tensor *gb = NULL;
    ct_status st = c->st == CT_OK ? ct_cholesky_solve(c->ctx, G, IN(1), upper, &gb) : c->st;
    ct__ag_keep(c, st, gb);
    if (c->need[1]) {
        ct_tensor *s = ct__ag_matmul(c, gb, ag_mh(c, OUT));
        s = ct__ag_add(c, s, ag_mh(c, s));
        ct__ag_set(c, 1,
                   ct__ag_neg(c, upper ? ct__ag_matmul(c, IN(1), s) : ct__ag_matmul(c, s, IN(1))));
    }
    ct__ag_set(c, 0, gb);
}

/* torch's pinv_backward: the gradient of A from the gradient g of pinv(A) (..., n, m). */
static ct_tensor *pinv_backward(ct__ag_call *c, const ct_tensor *g, const ct_tensor *pa,
                                const ct_tensor *a, int64_t m, int64_t n) {
    const ct_tensor *pah = ag_mh(c, pa), *gh = ag_mh(c, g);
    if (m <= n) {
        ct_tensor *k = ct__ag_matmul(c, gh, pa);
        ct_tensor *kp = ct__ag_matmul(c, k, pah);
        ct_tensor *r = ct__ag_sub(c, kp, ag_mh(c, ct__ag_matmul(c, pa, k)));
        r = ct__ag_sub(c, r, ct__ag_matmul(c, ct__ag_matmul(c, a, pa), kp));
        return ct__ag_add(
            c, r,
            ct__ag_matmul(c, ct__ag_matmul(c, pah, pa), ct__ag_sub(c, gh, ct__ag_matmul(c, k, a))));
    }
    ct_tensor *k = ct__ag_matmul(c, pa, gh);
    ct_tensor *pk = ct__ag_matmul(c, pah, k);
    ct_tensor *r = ct__ag_sub(c, pk, ag_mh(c, ct__ag_matmul(c, k, pa)));
    r = ct__ag_add(
        c, r,
        ct__ag_matmul(c, ct__ag_matmul(c, ct__ag_sub(c, gh, ct__ag_matmul(c, a, k)), pa), pah));
    return ct__ag_sub(c, r, ct__ag_matmul(c, ct__ag_matmul(c, pk, pa), a));
}
/* lstsq (torch's linalg_lstsq_backward): gA = pinv_backward(G B^T), gB = pinv(A)^T G. */
static void bw_lstsq(ct__ag_call *c) {
    const int nd = c->n->in_meta[0].ndim;
    const int64_t m = c->n->in_meta[0].shape[nd - 2], n = c->n->in_meta[0].shape[nd - 1];
    ct_tensor *pa = NULL;
    ct_status st = c->st == CT_OK ? ct_linalg_pinv(c->ctx, IN(0), NAN, NAN, &pa) : c->st;
    ct__ag_keep(c, st, pa);
    if (c->need[0])
        ct__ag_set(c, 0, pinv_backward(c, ct__ag_matmul(c, G, ag_mh(c, IN(1))), pa, IN(0), m, n));
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_matmul(c, ag_mh(c, pa), G));
}

#define F(op, name, fn, si, so)                                                                    \
    case op: {                                                                                     \
        static const ct__ag_formula f = {name, fn, si, so};                                        \
        return &f;                                                                                 \
    }
const ct__ag_formula *ct__ag_formula_linalg(int op) {
    switch (op) {
        F(CT__AG_LINALG_INV, "LinalgInvBackward", bw_inv, 0, 1)
        F(CT__AG_LINALG_DET, "LinalgDetBackward", bw_det, 1, 1)
        F(CT__AG_LINALG_SLOGDET, "LinalgSlogdetBackward", bw_slogdet, 1, 2)
        F(CT__AG_LINALG_SOLVE, "LinalgSolveBackward", bw_solve, 1, 1)
        F(CT__AG_LINALG_CHOLESKY, "LinalgCholeskyBackward", bw_cholesky, 0, 1)
        F(CT__AG_PROD, "ProdBackward", bw_prod, 1, 0)
        F(CT__AG_LINALG_QR, "LinalgQrBackward", bw_qr, 1, 3)
        F(CT__AG_LINALG_SVD, "LinalgSvdBackward", bw_svd, 0, 7)
        F(CT__AG_LINALG_EIGH, "LinalgEighBackward", bw_eigh, 0, 3)
        F(CT__AG_LINALG_EIG, "LinalgEigBackward", bw_eig, 0, 3)
        F(CT__AG_LINALG_SOLVE_TRIANGULAR, "LinalgSolveTriangularBackward", bw_solve_triangular, 1,
          1)
        F(CT__AG_LINALG_LU_FACTOR, "LinalgLuFactorExBackward", bw_lu_factor, 2, 1)
        F(CT__AG_CHOLESKY_SOLVE, "CholeskySolveBackward", bw_cholesky_solve, 2, 1)
        F(CT__AG_LINALG_LSTSQ, "LinalgLstsqBackward", bw_lstsq, 3, 0)
    default: return NULL;
    }
}

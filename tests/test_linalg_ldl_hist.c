/* linalg.ldl_factor(_ex) / ldl_solve, linalg.qr mode='complete' / 'r', linalg.svd
 * full_matrices=True, histogramdd and fractional_max_pool2d / 3d against torch 1.13's values,
 * pivots, indices and gradients (scripts/gen_linalg_ldl_hist_ref.py), with independent checks:
 * A rebuilt from LD and the pivots (P L D L^T P^T), A X = B, Q orthogonal and Q R = A, U S Vh = A,
 * a brute-force histogram, every pooled value the maximum of a window of the kernel's size; and
 * the error paths (backward refused where torch refuses). */
#include "test_util.h"

#include "data/linalg_ldl_hist_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define T(R) tab(R, R##_nd, R##_shape, false, CT_FLOAT64)
#define TG(R) tab(R, R##_nd, R##_shape, true, CT_FLOAT64)
#define SAME(what, t, R, tol) tu_same_as(what, t, R, R##_nd, R##_shape, tol)
#define GRAD(what, t, R, tol) tu_same_as(what, ct_tensor_grad(t), R, R##_nd, R##_shape, tol)

/* t prints grad_fn=<name> */
static bool has_fn(const ct_tensor *t, const char *name) {
    char *str = NULL, want[96];
    if (!t || ct_tensor_to_string(t, &str) != CT_OK) return false;
    snprintf(want, sizeof want, "grad_fn=<%s>", name);
    const bool ok = strstr(str, want) != NULL;
    free(str);
    return ok;
}
static ct_tensor *tab(const double *v, int nd, const int64_t *shape, bool rg, ct_dtype dt) {
    ct_tensor *t = tu_from_vals(ctx, dt, nd, shape, v);
    if (rg && t) CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
/* sum(sin(i) * y) (or of y * y when sq), the loss the reference script differentiates */
static ct_tensor *wsum(ct_tensor *y, bool sq) {
    const int64_t n = ct_tensor_numel(y);
    double *w = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        w[i] = sin((double)i);
    ct_tensor *wt = tu_from_vals(ctx, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), w),
              *y2 = NULL, *p = NULL, *s = NULL;
    if (sq)
        CHECK_OK(ct_mul(ctx, y, y, &y2));
    else
        y2 = ct_tensor_retain(y);
    CHECK_OK(ct_mul(ctx, y2, wt, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &s));
    ct_tensor_release(wt), ct_tensor_release(y2), ct_tensor_release(p);
    free(w);
    return s;
}
static ct_tensor *add3(ct_tensor *a, ct_tensor *b, ct_tensor *c) {
    ct_tensor *ab = NULL, *r = NULL;
    CHECK_OK(ct_add(ctx, a, b, &ab));
    if (c)
        CHECK_OK(ct_add(ctx, ab, c, &r));
    else
        r = ct_tensor_retain(ab);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(ab);
    return r;
}

/* A (n x n) rebuilt from sytrf's lower LD and pivots: A = L D L^T with L = P(1) L(1) P(2) L(2)
 * ... (LAPACK's definition), applied from the last block to the first */
static void ldl_rebuild(const double *ld, const double *piv, int n, double *A) {
    double M[64], T2[64];
    memset(M, 0, sizeof M);
    int starts[8], sizes[8], nbk = 0;
    for (int k = 0; k < n;) {
        const int s = piv[k] > 0 ? 1 : 2;
        starts[nbk] = k, sizes[nbk++] = s;
        M[k * n + k] = ld[k * n + k];
        if (s == 2) {
            M[(k + 1) * n + k] = M[k * n + k + 1] = ld[(k + 1) * n + k];
            M[(k + 1) * n + k + 1] = ld[(k + 1) * n + k + 1];
        }
        k += s;
    }
    for (int b = nbk - 1; b >= 0; b--) {
        const int k = starts[b], s = sizes[b];
        double F[64]; /* P(k) L(k) */
        memset(F, 0, sizeof F);
        for (int i = 0; i < n; i++)
            F[i * n + i] = 1;
        for (int i = k + s; i < n; i++)
            for (int j = k; j < k + s; j++)
                F[i * n + j] = ld[i * n + j];
        const int r = s == 1 ? k : k + 1, p = (int)fabs(piv[k]) - 1; /* swap rows r and p */
        for (int j = 0; j < n; j++) {
            const double t = F[r * n + j];
            F[r * n + j] = F[p * n + j], F[p * n + j] = t;
        }
        for (int i = 0; i < n; i++) /* T2 = F M */
            for (int j = 0; j < n; j++) {
                double acc = 0;
                for (int q = 0; q < n; q++)
                    acc += F[i * n + q] * M[q * n + j];
                T2[i * n + j] = acc;
            }
        for (int i = 0; i < n; i++) /* M = T2 F^T */
            for (int j = 0; j < n; j++) {
                double acc = 0;
                for (int q = 0; q < n; q++)
                    acc += T2[i * n + q] * F[j * n + q];
                M[i * n + j] = acc;
            }
    }
    memcpy(A, M, sizeof(double) * (size_t)(n * n));
}

static double max_abs_diff(const ct_tensor *a, const ct_tensor *b) {
    double *x = tu_read(a), *y = tu_read(b), m = 0;
    for (int64_t i = 0; x && y && i < ct_tensor_numel(a); i++)
        m = fmax(m, fabs(x[i] - y[i]));
    free(x), free(y);
    return m;
}

TEST(ldl_as_torch) {
    ct_tensor *a = T(ldl_a), *ld = NULL, *piv = NULL, *info = NULL, *x = NULL, *b = T(ldl_b);
    CHECK_OK(ct_linalg_ldl_factor(ctx, a, false, &ld, &piv));
    SAME("ldl LD", ld, ldl_ld, 1e-12);
    SAME("ldl pivots", piv, ldl_piv, 0);
    CHECK(piv && ct_tensor_dtype(piv) == CT_INT32);
    /* independent: P L D L^T P^T rebuilds A (the lower triangle only is read) */
    double *ldv = tu_read(ld), *pv = tu_read(piv), *av = tu_read(a), R[25];
    for (int m = 0; ldv && pv && av && m < 2; m++) {
        ldl_rebuild(ldv + m * 25, pv + m * 5, 5, R);
        for (int i = 0; i < 25; i++)
            CHECK_MSG(fabs(R[i] - av[m * 25 + i]) < 1e-12, "ldl rebuild [%d][%d]: %g vs %g", m, i,
                      R[i], av[m * 25 + i]);
    }
    free(ldv), free(pv), free(av);
    CHECK_OK(ct_linalg_ldl_solve(ctx, ld, piv, b, false, &x));
    SAME("ldl_solve", x, ldl_x, 1e-12);
    ct_tensor *ax = NULL;
    CHECK_OK(ct_matmul(ctx, a, x, &ax));
    CHECK(ax && max_abs_diff(ax, b) < 1e-12); /* A X = B */
    ct_tensor_release(x), ct_tensor_release(ax);
    ct_tensor *b2 = T(ldl_b2), *p64 = NULL;
    CHECK_OK(ct_linalg_ldl_solve(ctx, ld, piv, b2, true, &x)); /* B broadcast to LD's batch */
    SAME("ldl_solve broadcast", x, ldl_x2, 1e-12);
    ct_tensor_release(x);
    CHECK_OK(ct_cast(ctx, piv, CT_INT64, &p64));
    CHECK_OK(ct_linalg_ldl_solve(ctx, ld, p64, b2, false, &x)); /* int64 pivots */
    SAME("ldl_solve int64 pivots", x, ldl_x2, 1e-12);
    ct_tensor_release(x);
    /* float32 */
    ct_tensor *a32 = NULL, *ld32 = NULL, *piv32 = NULL;
    CHECK_OK(ct_cast(ctx, a, CT_FLOAT32, &a32));
    CHECK_OK(ct_linalg_ldl_factor_ex(ctx, a32, false, &ld32, &piv32, &info));
    SAME("ldl LD float32", ld32, ldl_ld32, 1e-5);
    SAME("ldl pivots float32", piv32, ldl_piv32, 0);
    double *iv = info ? tu_read(info) : NULL;
    CHECK(iv && iv[0] == 0 && iv[1] == 0);
    free(iv);
    ct_tensor_release(info), info = NULL;
    /* a singular D: ldl_factor fails naming it, ldl_factor_ex reports info (torch: 1) */
    ct_tensor *z = NULL, *l2 = NULL, *p2 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(3, 3), &z));
    CHECK_ST(ct_linalg_ldl_factor(ctx, z, false, &l2, &p2), CT_ERR_INVALID_ARG);
    CHECK(l2 == NULL && p2 == NULL);
    CHECK_OK(ct_linalg_ldl_factor_ex(ctx, z, false, &l2, &p2, &info));
    iv = info ? tu_read(info) : NULL;
    CHECK(iv && iv[0] == 1);
    free(iv);
    ct_tensor_release(l2), ct_tensor_release(p2), ct_tensor_release(info);
    /* errors */
    ct_tensor *ns = NULL, *ai = NULL, *bad = NULL, *bp = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(3, 4), &ns));
    CHECK_ST(ct_linalg_ldl_factor(ctx, ns, false, &l2, &p2), CT_ERR_SHAPE);
    CHECK_OK(ct_cast(ctx, a, CT_INT32, &ai));
    CHECK_ST(ct_linalg_ldl_factor(ctx, ai, false, &l2, &p2), CT_ERR_DTYPE);
    CHECK_ST(ct_linalg_ldl_solve(ctx, ld, piv, ns, false, &x), CT_ERR_SHAPE); /* 3 rows, not 5 */
    CHECK_ST(ct_linalg_ldl_solve(ctx, ld, b, b, false, &x), CT_ERR_SHAPE);    /* pivots shape */
    CHECK_ST(ct_linalg_ldl_solve(ctx, ld32, piv32, b, false, &x), CT_ERR_DTYPE);
    /* pivots sytrs would follow outside the matrix: refused */
    double bpv[10] = {1, 2, 3, 4, -5, 1, 2, 3, 4, 5};
    bp = tu_from_vals(ctx, CT_INT32, 2, SH(2, 5), bpv);
    CHECK_ST(ct_linalg_ldl_solve(ctx, ld, bp, b, false, &x), CT_ERR_INVALID_ARG);
    ct_tensor_release(bp);
    bpv[4] = 9;
    bp = tu_from_vals(ctx, CT_INT32, 2, SH(2, 5), bpv);
    CHECK_ST(ct_linalg_ldl_solve(ctx, ld, bp, b, false, &x), CT_ERR_INVALID_ARG);
    CHECK(x == NULL);
    /* no derivative in torch 1.13: backward refuses */
    ct_tensor *ag = TG(ldl_a), *lg = NULL, *pg = NULL, *s = NULL;
    CHECK_OK(ct_linalg_ldl_factor(ctx, ag, false, &lg, &pg));
    CHECK(has_fn(lg, "NotImplemented"));
    CHECK_OK(ct_sum(ctx, lg, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
    ct_tensor_release(s), s = NULL;
    ct_tensor *bg = TG(ldl_b);
    CHECK_OK(ct_linalg_ldl_solve(ctx, ld, piv, bg, false, &x));
    CHECK_OK(ct_sum(ctx, x, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
    ct_tensor_release(s), ct_tensor_release(x), ct_tensor_release(bg);
    ct_tensor_release(ag), ct_tensor_release(lg), ct_tensor_release(pg);
    ct_tensor_release(ns), ct_tensor_release(ai), ct_tensor_release(bad), ct_tensor_release(bp);
    ct_tensor_release(z), ct_tensor_release(a32), ct_tensor_release(ld32), ct_tensor_release(piv32);
    ct_tensor_release(b2), ct_tensor_release(p64);
    ct_tensor_release(a), ct_tensor_release(ld), ct_tensor_release(piv), ct_tensor_release(b);
}

/* Q^T Q = I */
static void orth_check(const char *what, ct_tensor *q) {
    ct_tensor *qt = NULL, *qtq = NULL, *eye = NULL, *e2 = NULL;
    const int nd = ct_tensor_ndim(q);
    const int64_t m = ct_tensor_shape(q)[nd - 1];
    CHECK_OK(ct_tensor_transpose(ctx, q, -2, -1, &qt));
    CHECK_OK(ct_matmul(ctx, qt, q, &qtq));
    CHECK_OK(ct_tensor_eye(ctx, CT_FLOAT64, m, m, &eye));
    CHECK_OK(ct_tensor_expand(ctx, eye, nd, ct_tensor_shape(qtq), &e2));
    CHECK_MSG(qtq && e2 && max_abs_diff(qtq, e2) < 1e-13, "%s: Q^T Q != I", what);
    ct_tensor_release(qt), ct_tensor_release(qtq), ct_tensor_release(eye), ct_tensor_release(e2);
}
/* Q^T Q = I and Q R = A */
static void qr_identities(const char *what, ct_tensor *a, ct_tensor *q, ct_tensor *r) {
    orth_check(what, q);
    ct_tensor *qr = NULL;
    CHECK_OK(ct_matmul(ctx, q, r, &qr));
    CHECK_MSG(qr && max_abs_diff(qr, a) < 1e-13, "%s: Q R != A", what);
    ct_tensor_release(qr);
}

TEST(qr_complete_as_torch) {
    ct_tensor *a = TG(qr_a), *q = NULL, *r = NULL, *s = NULL;
    CHECK_OK(ct_linalg_qr_mode(ctx, a, "complete", &q, &r));
    SAME("qr complete Q", q, qr_q, 1e-12);
    SAME("qr complete R", r, qr_r, 1e-12);
    qr_identities("qr complete", a, q, r);
    CHECK(has_fn(q, "LinalgQrBackward0"));
    /* torch: "not differentiable when mode='complete' and nrows > ncols" */
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "nrows > ncols") != NULL);
    ct_tensor_release(s), ct_tensor_release(q), ct_tensor_release(r);
    /* mode 'r': Q empty, R the reduced one; backward refused */
    CHECK_OK(ct_linalg_qr_mode(ctx, a, "r", &q, &r));
    CHECK(q && ct_tensor_ndim(q) == 1 && ct_tensor_numel(q) == 0);
    SAME("qr mode r", r, qr_rr, 1e-12);
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "mode='r'") != NULL);
    ct_tensor_release(s), ct_tensor_release(q), ct_tensor_release(r);
    /* torch.qr(some=false) is the complete QR */
    CHECK_OK(ct_qr(ctx, a, false, &q, &r));
    SAME("torch.qr some=false Q", q, qr_q, 1e-12);
    ct_tensor_release(q), ct_tensor_release(r);
    CHECK_ST(ct_linalg_qr_mode(ctx, a, "full", &q, &r), CT_ERR_INVALID_ARG);
    CHECK(q == NULL && r == NULL);
    /* wide: complete is reduced, with its gradient */
    ct_tensor *aw = TG(qrw_a);
    CHECK_OK(ct_linalg_qr_mode(ctx, aw, "complete", &q, &r));
    SAME("qr complete wide Q", q, qrw_q, 1e-12);
    SAME("qr complete wide R", r, qrw_r, 1e-12);
    qr_identities("qr complete wide", aw, q, r);
    s = add3(wsum(q, false), wsum(r, false), NULL);
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    GRAD("qr complete wide dA", aw, qrw_g, 1e-11);
    ct_tensor_release(s), ct_tensor_release(q), ct_tensor_release(r), ct_tensor_release(aw);
    ct_tensor_release(a);
}

static void svd_case(const char *what, const double *av, int nd, const int64_t *shape,
                     const double *sref, const int64_t *sshape, const double *gref) {
    ct_tensor *a = tab(av, nd, shape, true, CT_FLOAT64), *u = NULL, *s = NULL, *vh = NULL;
    const int64_t m = shape[nd - 2], n = shape[nd - 1];
    CHECK_OK(ct_linalg_svd_full(ctx, a, true, &u, &s, &vh));
    CHECK(u && ct_tensor_shape(u)[nd - 1] == m && ct_tensor_shape(u)[nd - 2] == m);
    CHECK(vh && ct_tensor_shape(vh)[nd - 1] == n && ct_tensor_shape(vh)[nd - 2] == n);
    tu_same_as(what, s, sref, nd - 1, sshape, 1e-12);
    CHECK(has_fn(u, "LinalgSvdBackward0"));
    /* U, Vh orthogonal; U[:, :k] diag(S) Vh[:k] = A */
    orth_check(what, u);
    ct_tensor *vt = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, vh, -2, -1, &vt));
    orth_check(what, vt);
    const int64_t k = m < n ? m : n;
    ct_tensor *ur = NULL, *vr = NULL, *us = NULL, *su = NULL, *rec = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, u, -1, 0, k, &ur));
    CHECK_OK(ct_tensor_narrow(ctx, vh, -2, 0, k, &vr));
    CHECK_OK(ct_tensor_unsqueeze(ctx, s, -2, &su));
    CHECK_OK(ct_mul(ctx, ur, su, &us));
    CHECK_OK(ct_matmul(ctx, us, vr, &rec));
    CHECK_MSG(rec && max_abs_diff(rec, a) < 1e-13, "%s: U S Vh != A", what);
    /* the gradient of a sign-invariant loss, as torch (the extra columns carry none) */
    ct_tensor *l = add3(wsum(u, true), wsum(s, false), wsum(vh, true));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    tu_same_as(what, ct_tensor_grad(a), gref, nd, shape, 1e-10);
    ct_tensor_release(l), ct_tensor_release(ur), ct_tensor_release(vr), ct_tensor_release(us);
    ct_tensor_release(su), ct_tensor_release(rec), ct_tensor_release(vt);
    ct_tensor_release(u), ct_tensor_release(s), ct_tensor_release(vh), ct_tensor_release(a);
}

TEST(svd_full_as_torch) {
    svd_case("svd full tall", svt_a, svt_a_nd, svt_a_shape, svt_s, svt_s_shape, svt_g);
    svd_case("svd full wide", svw_a, svw_a_nd, svw_a_shape, svw_s, svw_s_shape, svw_g);
    /* torch.svd(some=false): U (m, m), V (n, n) */
    ct_tensor *a = T(svt_a), *u = NULL, *s = NULL, *v = NULL;
    CHECK_OK(ct_svd(ctx, a, false, true, &u, &s, &v));
    CHECK(u && tu_same_shape(u, 3, SH(2, 5, 5)) && v && tu_same_shape(v, 3, SH(2, 3, 3)));
    ct_tensor_release(u), ct_tensor_release(s), ct_tensor_release(v);
    /* an empty matrix: the identity as torch */
    ct_tensor *e = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, SH(3, 0), &e));
    CHECK_OK(ct_linalg_svd_full(ctx, e, true, &u, &s, &v));
    double *uv = u ? tu_read(u) : NULL;
    CHECK(uv && tu_same_shape(u, 2, SH(3, 3)) && uv[0] == 1 && uv[4] == 1 && uv[1] == 0);
    free(uv);
    ct_tensor_release(u), ct_tensor_release(s), ct_tensor_release(v), ct_tensor_release(e);
    ct_tensor_release(a);
}

/* hist of points x (N, D) over edges e[d] (nb[d] + 1 each) by linear scans: the last edge <= v,
 * the last bin closed; the brute-force oracle */
static void brute_hist(const double *x, const double *w, int64_t N, int D, const double *const *e,
                       const int64_t *nb, double *h) {
    int64_t tot = 1;
    for (int d = 0; d < D; d++)
        tot *= nb[d];
    memset(h, 0, sizeof(double) * (size_t)tot);
    for (int64_t i = 0; i < N; i++) {
        int64_t at = 0;
        bool in = true;
        for (int d = 0; d < D && in; d++) {
            const double v = x[i * D + d];
            int64_t pos = -1;
            for (int64_t k = 0; k <= nb[d]; k++)
                if (e[d][k] <= v) pos = k;
            if (pos == nb[d] && v == e[d][nb[d]]) pos--;
            in = pos >= 0 && pos < nb[d];
            at = at * nb[d] + pos;
        }
        if (in) h[at] += w ? w[i] : 1;
    }
}

TEST(histogramdd_as_torch) {
    ct_tensor *x = T(hd_x), *w = T(hd_w), *h = NULL, *edges[3] = {NULL};
    const double range[6] = {-1, 1, -2, 2, 0, 1};
    CHECK_OK(ct_histogramdd(ctx, x, 3, SH(4, 3, 5), range, NULL, false, &h, edges));
    SAME("histogramdd range", h, hd_h1, 0);
    SAME("histogramdd edges 0", edges[0], hd_e1_0, 0);
    SAME("histogramdd edges 1", edges[1], hd_e1_1, 0);
    SAME("histogramdd edges 2", edges[2], hd_e1_2, 0);
    {
        double *ev[3] = {tu_read(edges[0]), tu_read(edges[1]), tu_read(edges[2])}, hb[60];
        const double *ec[3] = {ev[0], ev[1], ev[2]};
        brute_hist(hd_x, NULL, 40, 3, ec, SH(4, 3, 5), hb);
        double *hv = tu_read(h);
        for (int i = 0; hv && i < 60; i++)
            CHECK_MSG(hv[i] == hb[i], "histogramdd brute [%d]: %g vs %g", i, hv[i], hb[i]);
        free(hv), free(ev[0]), free(ev[1]), free(ev[2]);
    }
    ct_tensor_release(h);
    for (int d = 0; d < 3; d++)
        ct_tensor_release(edges[d]), edges[d] = NULL;
    /* one count for all dims, the data's range, weights, density */
    ct_tensor *x2 = T(hd_x2), *w2 = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, w, 0, 0, 30, &w2));
    CHECK_OK(ct_histogramdd(ctx, x2, 1, SH(4), NULL, w2, true, &h, edges));
    SAME("histogramdd density", h, hd_h2, 1e-13);
    SAME("histogramdd data edges 0", edges[0], hd_e2_0, 0);
    SAME("histogramdd data edges 1", edges[1], hd_e2_1, 0);
    ct_tensor_release(h), ct_tensor_release(edges[0]), ct_tensor_release(edges[1]);
    edges[0] = edges[1] = NULL;
    /* float32 points on inexact linspace edges */
    ct_tensor *x3 = tab(hd_x3, hd_x3_nd, hd_x3_shape, false, CT_FLOAT32);
    const double r3[4] = {0.1, 0.8, 0.1, 0.8};
    CHECK_OK(ct_histogramdd(ctx, x3, 2, SH(7, 3), r3, NULL, false, &h, edges));
    SAME("histogramdd float32", h, hd_h3, 0);
    SAME("histogramdd float32 edges", edges[0], hd_e3_0, 0);
    ct_tensor_release(h), ct_tensor_release(edges[0]), ct_tensor_release(edges[1]);
    edges[0] = edges[1] = NULL;
    /* explicit edges, batched points, weights, density; the brute force for the counts */
    const double e0v[5] = {-2.0, -0.5, 0.0, 0.3, 2.0}, e1v[3] = {-1.0, 1.0, 1.5};
    ct_tensor *e0 = tu_from_vals(ctx, CT_FLOAT64, 1, SH(5), e0v),
              *e1 = tu_from_vals(ctx, CT_FLOAT64, 1, SH(3), e1v), *x4 = T(hd_x4), *w4 = T(hd_w4);
    const ct_tensor *eb[2] = {e0, e1};
    CHECK_OK(ct_histogramdd_edges(ctx, x4, 2, eb, w4, true, &h, edges));
    SAME("histogramdd edges density", h, hd_h4, 1e-13);
    ct_tensor_release(h), ct_tensor_release(edges[0]), ct_tensor_release(edges[1]);
    edges[0] = edges[1] = NULL;
    CHECK_OK(ct_histogramdd_edges(ctx, x4, 2, eb, NULL, false, &h, NULL));
    {
        const double *ec[2] = {e0v, e1v};
        double hb[8];
        brute_hist(hd_x4, NULL, 21, 2, ec, SH(4, 2), hb);
        double *hv = tu_read(h);
        for (int i = 0; hv && i < 8; i++)
            CHECK_MSG(hv[i] == hb[i], "histogramdd edges brute [%d]: %g vs %g", i, hv[i], hb[i]);
        free(hv);
    }
    ct_tensor_release(h);
    /* a constant dim: widened by 0.5 */
    ct_tensor *x5 = T(hd_x5);
    CHECK_OK(ct_histogramdd(ctx, x5, 2, SH(2, 3), NULL, NULL, false, &h, edges));
    SAME("histogramdd constant dim", h, hd_h5, 0);
    SAME("histogramdd constant dim edges", edges[0], hd_e5_0, 0);
    ct_tensor_release(h), ct_tensor_release(edges[0]), ct_tensor_release(edges[1]);
    /* errors */
    CHECK_ST(ct_histogramdd(ctx, x, 2, SH(4, 3), NULL, NULL, false, &h, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_histogramdd(ctx, x, 1, SH(0), NULL, NULL, false, &h, NULL), CT_ERR_INVALID_ARG);
    const double bad_range[6] = {1, -1, 0, 1, 0, 1};
    CHECK_ST(ct_histogramdd(ctx, x, 1, SH(3), bad_range, NULL, false, &h, NULL),
             CT_ERR_INVALID_ARG);
    CHECK_ST(ct_histogramdd(ctx, x, 1, SH(3), NULL, NULL, false, &h, NULL),
             CT_ERR_INVALID_ARG); /* a NaN point without a range */
    CHECK_ST(ct_histogramdd(ctx, x, 1, SH(3), range, x2, false, &h, NULL), CT_ERR_SHAPE);
    const ct_tensor *eb1[1] = {e0};
    CHECK_ST(ct_histogramdd_edges(ctx, x4, 1, eb1, NULL, false, &h, NULL), CT_ERR_INVALID_ARG);
    const ct_tensor *ebad[2] = {e1, e0};
    const double dec[3] = {1, 0, 2};
    ct_tensor *ed = tu_from_vals(ctx, CT_FLOAT64, 1, SH(3), dec);
    ebad[0] = ed;
    CHECK_ST(ct_histogramdd_edges(ctx, x4, 2, ebad, NULL, false, &h, NULL), CT_ERR_INVALID_ARG);
    CHECK(h == NULL);
    ct_tensor_release(ed), ct_tensor_release(x5), ct_tensor_release(e0), ct_tensor_release(e1);
    ct_tensor_release(x4), ct_tensor_release(w4), ct_tensor_release(x3), ct_tensor_release(x2);
    ct_tensor_release(w2), ct_tensor_release(x), ct_tensor_release(w);
}

/* every output is x at its index, and the index lies in a window of the kernel's size whose
 * maximum it is (NaN-free input) */
static void frac_windows_ok(const char *what, const ct_tensor *x, const ct_tensor *y,
                            const ct_tensor *idx, int nd, const int64_t *k) {
    double *xv = tu_read(x), *yv = tu_read(y), *iv = tu_read(idx);
    const int xnd = ct_tensor_ndim(x), ynd = ct_tensor_ndim(y);
    int64_t pin = 1, pout = 1, in[3];
    for (int i = 0; i < nd; i++)
        in[i] = ct_tensor_shape(x)[xnd - nd + i], pin *= in[i],
        pout *= ct_tensor_shape(y)[ynd - nd + i];
    int bad = 0;
    for (int64_t o = 0; xv && yv && iv && o < ct_tensor_numel(y); o++) {
        const int64_t pl = o / pout, at = (int64_t)iv[o];
        if (at < 0 || at >= pin || xv[pl * pin + at] != yv[o]) {
            if (bad++ < 3)
                CHECK_MSG(0, "%s: output %lld is not x at its index", what, (long long)o);
            continue;
        }
        /* some window of size k containing `at` has yv[o] as its maximum */
        int64_t c[3], r = at;
        for (int i = nd - 1; i >= 0; i--)
            c[i] = r % in[i], r /= in[i];
        bool found = false;
        for (int64_t s0 = 0; s0 < (nd == 3 ? k[0] : 1) && !found; s0++)
            for (int64_t s1 = 0; s1 < k[nd - 2] && !found; s1++)
                for (int64_t s2 = 0; s2 < k[nd - 1] && !found; s2++) {
                    const int64_t st[3] = {nd == 3 ? c[0] - s0 : 0, c[nd - 2] - s1, c[nd - 1] - s2};
                    bool ok = true;
                    for (int i = 0; i < nd; i++)
                        ok = ok && st[3 - nd + i] >= 0 && st[3 - nd + i] + k[i] <= in[i];
                    for (int64_t a = 0; ok && a < (nd == 3 ? k[0] : 1); a++)
                        for (int64_t b = 0; ok && b < k[nd - 2]; b++)
                            for (int64_t d = 0; ok && d < k[nd - 1]; d++) {
                                const int64_t p =
                                    nd == 3 ? ((st[0] + a) * in[1] + st[1] + b) * in[2] + st[2] + d
                                            : (st[1] + b) * in[1] + st[2] + d;
                                ok = xv[pl * pin + p] <= yv[o];
                            }
                    found = ok;
                }
        if (!found && bad++ < 3)
            CHECK_MSG(0, "%s: output %lld is no window's maximum", what, (long long)o);
    }
    free(xv), free(yv), free(iv);
}

TEST(fractional_max_pool_as_torch) {
    ct_tensor *x = TG(fp2_x), *s = T(fp2_s), *y = NULL, *i = NULL;
    CHECK_OK(ct_fractional_max_pool2d(ctx, x, SH(3, 2), SH(4, 5), NULL, s, 0, &y, &i));
    SAME("fractional_max_pool2d", y, fp2_y, 0);
    SAME("fractional_max_pool2d indices", i, fp2_i, 0);
    CHECK(has_fn(y, "FractionalMaxPool2DBackward0"));
    ct_tensor *yn = NULL, *l = NULL;
    const double zero = 0;
    CHECK_OK(ct_nan_to_num(ctx, y, &zero, NULL, &zero, &yn)); /* torch: nan=0, neginf=0 */
    l = wsum(yn, false);
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    GRAD("fractional_max_pool2d dx", x, fp2_g, 1e-14);
    ct_tensor_release(l), ct_tensor_release(yn), ct_tensor_release(y), ct_tensor_release(i);
    /* unbatched float32 with output_ratio */
    ct_tensor *xu = tab(fp2u_x, fp2u_x_nd, fp2u_x_shape, false, CT_FLOAT32),
              *su = tab(fp2u_s, fp2u_s_nd, fp2u_s_shape, false, CT_FLOAT32);
    const double ratio[2] = {0.5, 0.75};
    CHECK_OK(ct_fractional_max_pool2d(ctx, xu, SH(2, 2), NULL, ratio, su, 0, &y, &i));
    SAME("fractional_max_pool2d ratio float32", y, fp2u_y, 0);
    SAME("fractional_max_pool2d ratio float32 indices", i, fp2u_i, 0);
    frac_windows_ok("fractional_max_pool2d ratio", xu, y, i, 2, SH(2, 2));
    ct_tensor_release(y), ct_tensor_release(i);
    /* samples drawn from the generator: the same as passing those samples */
    ct_tensor *sd = NULL, *y2 = NULL, *i2 = NULL;
    CHECK_OK(ct_fractional_max_pool2d(ctx, xu, SH(2, 2), SH(3, 3), NULL, NULL, 42, &y, &i));
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 3, SH(1, 2, 2), 42, 0, &sd));
    CHECK_OK(ct_fractional_max_pool2d(ctx, xu, SH(2, 2), SH(3, 3), NULL, sd, 0, &y2, &i2));
    CHECK(y && y2 && tu_same_values(y, y2) && tu_same_values(i, i2));
    frac_windows_ok("fractional_max_pool2d drawn", xu, y, i, 2, SH(2, 2));
    ct_tensor_release(y), ct_tensor_release(i), ct_tensor_release(y2), ct_tensor_release(i2);
    ct_tensor_release(sd);
    /* 3-d */
    ct_tensor *x3 = TG(fp3_x), *s3 = T(fp3_s);
    CHECK_OK(ct_fractional_max_pool3d(ctx, x3, SH(2, 3, 2), SH(3, 4, 3), NULL, s3, 0, &y, &i));
    SAME("fractional_max_pool3d", y, fp3_y, 0);
    SAME("fractional_max_pool3d indices", i, fp3_i, 0);
    frac_windows_ok("fractional_max_pool3d", x3, y, i, 3, SH(2, 3, 2));
    l = wsum(y, false);
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    GRAD("fractional_max_pool3d dx", x3, fp3_g, 1e-14);
    ct_tensor_release(l), ct_tensor_release(y), ct_tensor_release(i);
    /* errors */
    CHECK_ST(ct_fractional_max_pool2d(ctx, x, SH(3, 2), NULL, NULL, s, 0, &y, &i),
             CT_ERR_INVALID_ARG); /* neither output_size nor ratio */
    CHECK_ST(ct_fractional_max_pool2d(ctx, x, SH(3, 2), SH(8, 5), NULL, s, 0, &y, &i),
             CT_ERR_INVALID_ARG); /* 8 + 3 - 1 > 9 */
    CHECK_ST(ct_fractional_max_pool2d(ctx, x, SH(3, 2), SH(4, 5), NULL, s3, 0, &y, &i),
             CT_ERR_SHAPE); /* samples (2, 2, 3) */
    CHECK_ST(ct_fractional_max_pool3d(ctx, s, SH(1, 1, 1), SH(1, 1, 1), NULL, NULL, 0, &y, &i),
             CT_ERR_SHAPE); /* a 3-d input */
    CHECK_ST(ct_fractional_max_pool3d(ctx, x3, SH(2, 3, 2), SH(5, 4, 3), NULL, s3, 0, &y, &i),
             CT_ERR_INVALID_ARG); /* 3-d: torch needs output + pool - 1 < input (5 + 1 = 6) */
    CHECK_ST(ct_fractional_max_pool2d(ctx, xu, SH(2, 2), SH(3, 3), NULL, s, 0, &y, &i),
             CT_ERR_SHAPE); /* unbatched: samples (1, C, 2) */
    CHECK(y == NULL && i == NULL);
    ct_tensor_release(x3), ct_tensor_release(s3), ct_tensor_release(xu), ct_tensor_release(su);
    ct_tensor_release(x), ct_tensor_release(s);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(ldl_as_torch);
    RUN(qr_complete_as_torch);
    RUN(svd_full_as_torch);
    RUN(histogramdd_as_torch);
    RUN(fractional_max_pool_as_torch);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

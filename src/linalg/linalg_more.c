/* Linear algebra written as composites of recording public ops (torch.linalg names): the
 * gradient comes from the ops' nodes and the result's node carries torch's grad_fn name.
 *   cholesky_inverse   cholesky_solve(I, L)                        CholeskyInverseBackward0
 *   matrix_rank        count of svdvals / |eigvalsh| above the tolerance (int64, no gradient)
 *   matrix_exp         scaling and squaring of a degree-18 Taylor polynomial (Horner), each
 *                      matrix scaled by its own power of two     LinalgMatrixExpBackward0
 *   vecdot             sum(x * y, dim)                            SumBackward1 (as torch)
 *   tensorinv          reshape, inv, reshape                      ReshapeAliasBackward0
 *   tensorsolve        movedim, reshape, solve, reshape           ReshapeAliasBackward0
 *   householder_product  Q = H_1 ... H_k applied to I, first n columns
 *                                                     LinalgHouseholderProductBackward0
 *   cond               svdvals (2, -2, nuc) or norm(A) norm(inv_ex(A)) (fro, inf, 1, ...)
 *   svd_lowrank / pca_lowrank  torch._lowrank's randomized range finder (qr of A R, power
 *                      iterations), then the svd of the small projection */
#include "ctorch/autograd.h"
#include "ctorch/linalg.h"
#include "linalg/linalg_impl.h"
#include "ctorch/ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* zeros of a's batch dims (..., the last two dropped) in dtype dt */
static ct_status ct__lm_batch_zeros(ct_ctx *ctx, const ct_tensor *a, ct_dtype dt, ct_tensor **out) {
    return ct_tensor_zeros(ctx, dt, a->ndim - 2, a->shape, out);
}
/* the first index i (in C order) with h[i] true, or -1, read on the host (eagerly) */
static ct_status ct__lm_first_true(ct_ctx *ctx, const ct_tensor *mask, int64_t *first) {
    *first = -1;
    const int64_t n = ct_tensor_numel(mask);
    if (n == 0 || ct__any_capture(ctx)) return CT_OK;
    unsigned char *h = ct__alloc(ctx, (size_t)n, 16);
    if (!h) return ct__set_error(ctx, CT_ERR_OOM, "out of memory");
    ct_status st = ct_tensor_to_host(mask, h, (size_t)n);
    for (int64_t i = 0; st == CT_OK && i < n && *first < 0; i++)
        if (h[i]) *first = i;
    ct__free(ctx, h);
    return st;
}

/* ---- cholesky_inverse ---- */
static ct_status ct__cholesky_inverse(ct_ctx *ctx, const ct_tensor *L, bool upper,
                                      ct_tensor **out) {
    const char *op = "cholesky_inverse";
    const ct_tensor *ins[1] = {L};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__la_square_check(ctx, op, "A", L)) != CT_OK) return st;
    if ((st = ct__la_float(ctx, op, "A", L)) != CT_OK) return st;
    const int64_t n = L->shape[L->ndim - 1];
    ct_tensor *t[3] = {NULL, NULL, NULL};
    st = ct_diagonal(ctx, L, 0, -2, -1, &t[0]); /* potri's singularity: a zero diagonal */
    CT__DO(st, ct_eq_scalar(ctx, t[0], 0, &t[1]));
    int64_t first = -1;
    CT__DO(st, ct__lm_first_true(ctx, t[1], &first));
    if (st == CT_OK && first >= 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "%s: The diagonal element %lld is zero, the inversion could not be "
                           "completed because the input matrix is singular.",
                           op, (long long)(first % (n ? n : 1) + 1));
    CT__DO(st, ct_tensor_eye(ctx, L->dtype, n, n, &t[2]));
    CT__DO(st, ct_cholesky_solve(ctx, t[2], L, upper, out));
    ct__release_all(3, t);
    return st;
}
ct_status ct_cholesky_inverse(ct_ctx *ctx, const ct_tensor *L, bool upper, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "cholesky_inverse", ct__cholesky_inverse(ctx, L, upper, out));
    return ct__ag_named(ctx, st, out, mark, "CholeskyInverseBackward0");
}

/* ---- matrix_rank (torch's get_atol_rtol: atol None = 0; rtol None = eps max(m, n), or 0 when
 * atol > 0 is given); tol = max(atol, rtol s_max), compared in float64 ---- */
static ct_status ct__matrix_rank(ct_ctx *ctx, const ct_tensor *a, double atol, double rtol,
                                 bool hermitian, ct_tensor **out) {
    const char *op = "torch.linalg.matrix_rank";
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: The input tensor input must have at least 2 dimensions.", op);
    if ((st = ct__la_float(ctx, op, "input", a)) != CT_OK) return st;
    const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
    if (hermitian && (st = ct__la_square_check(ctx, op, "A", a)) != CT_OK) return st;
    if (ct_tensor_numel(a) == 0) return ct__lm_batch_zeros(ctx, a, CT_INT64, out);
    const double eps = ct_dtype_to_real(a->dtype) == CT_FLOAT32 ? 0x1p-23 : 0x1p-52;
    if (isnan(rtol)) rtol = !isnan(atol) && atol > 0 ? 0 : eps * (double)(m > n ? m : n);
    if (isnan(atol)) atol = 0;
    ct_tensor *t[8] = {NULL};
    const int last = -1;
    if (hermitian) {
        st = ct_linalg_eigvalsh(ctx, a, 'L', &t[0]);
        CT__DO(st, ct_abs(ctx, t[0], &t[1]));
    } else {
        st = ct_linalg_svdvals(ctx, a, &t[1]);
    }
    CT__DO(st, ct_cast(ctx, t[1], CT_FLOAT64, &t[2]));
    CT__DO(st, ct_amax(ctx, t[2], 1, &last, true, &t[3]));
    CT__DO(st, ct_mul_scalar(ctx, t[3], rtol, &t[4]));
    const double lo = atol;
    CT__DO(st, ct_clamp(ctx, t[4], &lo, NULL, &t[5])); /* max(atol, rtol s_max); NaN stays */
    CT__DO(st, ct_gt(ctx, t[2], t[5], &t[6]));
    CT__DO(st, ct_sum(ctx, t[6], 1, &last, false, &t[7]));
    CT__DO(st, ct_cast(ctx, t[7], CT_INT64, out));
    ct__release_all(8, t);
    return st;
}
ct_status ct_linalg_matrix_rank(ct_ctx *ctx, const ct_tensor *a, double atol, double rtol,
                                bool hermitian, ct_tensor **out) {
    ct_tensor *d = NULL; /* a count: no gradient, so no node either */
    ct_status st = ct__check_args(ctx, "torch.linalg.matrix_rank", 1, &a, out);
    if (st == CT_OK) st = ct_tensor_detach(ctx, a, &d);
    if (st == CT_OK) st = ct__matrix_rank(ctx, d, atol, rtol, hermitian, out);
    ct_tensor_release(d);
    return ct__error_within(ctx, "torch.linalg.matrix_rank", st);
}

/* ---- matrix_exp: s_b = ceil(log2(|A_b|_1)) squarings for each matrix of 1-norm above 1 (read
 * on the host: refused under capture, as a host read); Horner's scheme of the degree-18 Taylor
 * polynomial of A_b / 2^s_b (truncation below 1 / 19! < 1e-17 relative at norm 1), then the
 * squarings, each matrix keeping its value once its own count is done ---- */
static ct_status ct__matrix_exp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const char *op = "linalg.matrix_exp";
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__la_square_check(ctx, op, "A", a)) != CT_OK) return st;
    const bool cx = ct_dtype_is_complex(a->dtype); /* the same steps in complex arithmetic */
    if (!ct_dtype_is_floating(a->dtype) && !cx)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "matrix_exp: Expected a floating point or complex tensor as input. "
                             "Got %s",
                             ct_dtype_name(a->dtype));
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st; /* f16 / bf16 refused */
    const int64_t n = a->shape[a->ndim - 1], nb = ct_tensor_numel(a) / (n ? n * n : 1);
    if (ct_tensor_numel(a) == 0) return ct_tensor_clone(ctx, a, out);
    const int nbd = a->ndim - 2;
    ct_tensor *d = NULL, *nrm = NULL, *n64 = NULL, *ad = NULL;
    st = ct_tensor_detach(ctx, a, &d);
    if (st == CT_OK && cx) { /* the 1-norm of the moduli */
        st = ct_abs(ctx, d, &ad);
        ct_tensor_release(d);
        d = ad;
    }
    CT__DO(st, ct_linalg_matrix_norm(ctx, d, "1", -2, -1, false, &nrm));
    CT__DO(st, ct_cast(ctx, nrm, CT_FLOAT64, &n64));
    double *h = ct__alloc(ctx, sizeof(double) * (size_t)(2 * nb + 1), 16);
    if (st == CT_OK && !h) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    CT__DO(st, ct_tensor_to_host(n64, h, sizeof(double) * (size_t)nb));
    ct_tensor_release(d), ct_tensor_release(nrm), ct_tensor_release(n64);
    int smax = 0;
    int *sb = h ? ct__alloc(ctx, sizeof(int) * (size_t)(nb + 1), 16) : NULL;
    if (st == CT_OK && !sb) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    for (int64_t b = 0; st == CT_OK && b < nb; b++) {
        int s = 0;
        if (isfinite(h[b]) && h[b] > 1) s = (int)ceil(log2(h[b]));
        if (s > 1100) s = 1100;
        sb[b] = s;
        smax = s > smax ? s : smax;
        h[nb + b] = ldexp(1.0, -s); /* the scale */
    }
    int64_t bs[CT_MAX_DIMS];
    for (int i = 0; i < nbd; i++)
        bs[i] = a->shape[i];
    bs[nbd] = bs[nbd + 1] = 1;
    ct_tensor *scale = NULL, *x = NULL, *eye = NULL, *e = NULL;
    CT__DO(st, ct_tensor_from_host(ctx, h + nb, CT_FLOAT64, nbd + 2, bs, &scale));
    ct_tensor *sc = NULL;
    CT__DO(st, ct_cast(ctx, scale, ct_dtype_to_real(a->dtype), &sc));
    CT__DO(st, ct_mul(ctx, a, sc, &x));
    if (cx) {
        ct_tensor *er = NULL;
        st = st == CT_OK ? ct_tensor_eye(ctx, ct_dtype_to_real(a->dtype), n, n, &er) : st;
        CT__DO(st, ct_cast(ctx, er, a->dtype, &eye));
        ct_tensor_release(er);
    } else {
        CT__DO(st, ct_tensor_eye(ctx, a->dtype, n, n, &eye));
    }
    /* Horner: E = I + X / 18; E = I + X E / j for j = 17 .. 1 */
    ct_tensor *t1 = NULL;
    CT__DO(st, ct_mul_scalar(ctx, x, 1.0 / 18.0, &t1));
    CT__DO(st, ct_add(ctx, eye, t1, &e));
    ct_tensor_release(t1), t1 = NULL;
    for (int j = 17; j >= 1 && st == CT_OK; j--) {
        ct_tensor *xe = NULL, *xs = NULL, *ne = NULL;
        st = ct_matmul(ctx, x, e, &xe);
        CT__DO(st, ct_div_scalar(ctx, xe, (double)j, &xs));
        CT__DO(st, ct_add(ctx, eye, xs, &ne));
        ct_tensor_release(xe), ct_tensor_release(xs), ct_tensor_release(e);
        e = ne;
    }
    unsigned char *mk = NULL;
    if (st == CT_OK && smax > 0) {
        mk = ct__alloc(ctx, (size_t)(nb + 1), 16);
        if (!mk) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    }
    for (int i = 1; i <= smax && st == CT_OK; i++) {
        bool all = true;
        for (int64_t b = 0; b < nb; b++)
            mk[b] = sb[b] >= i, all = all && mk[b];
        ct_tensor *sq = NULL, *m = NULL, *ne = NULL;
        st = ct_matmul(ctx, e, e, &sq);
        if (all) {
            ne = sq, sq = NULL;
        } else {
            CT__DO(st, ct_tensor_from_host(ctx, mk, CT_BOOL, nbd + 2, bs, &m));
            CT__DO(st, ct_where(ctx, m, sq, e, &ne));
        }
        ct_tensor_release(sq), ct_tensor_release(m), ct_tensor_release(e);
        e = ne;
    }
    if (st == CT_OK) {
        *out = e;
        e = NULL;
    }
    ct__free(ctx, mk), ct__free(ctx, sb), ct__free(ctx, h);
    ct_tensor_release(scale), ct_tensor_release(sc), ct_tensor_release(x);
    ct_tensor_release(eye), ct_tensor_release(e);
    return st;
}
ct_status ct_linalg_matrix_exp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "linalg.matrix_exp", ct__matrix_exp(ctx, a, out));
    return ct__ag_named(ctx, st, out, mark, "LinalgMatrixExpBackward0");
}

/* ---- vecdot: torch 1.13's (x.conj() * y).sum(dim), x and y of one floating or complex
 * dtype ---- */
static ct_status ct__vecdot(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, int dim,
                            ct_tensor **out) {
    const char *op = "linalg.vecdot";
    const ct_tensor *ins[2] = {x, y};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->dtype != y->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected x and y to have the same dtype, but found x of type %s "
                             "and y of type %s instead",
                             op, ct_dtype_name(x->dtype), ct_dtype_name(y->dtype));
    if (!ct_dtype_is_floating(x->dtype) && !ct_dtype_is_complex(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected a floating point or complex tensor as input. Got %s", op,
                             ct_dtype_name(x->dtype));
    ct_tensor *p = NULL, *xc = NULL;
    st = ct_dtype_is_complex(x->dtype) ? ct_conj(ctx, x, &xc)
                                       : (xc = ct_tensor_retain((ct_tensor *)x), CT_OK);
    CT__DO(st, ct_mul(ctx, xc, y, &p));
    CT__DO(st, ct_sum(ctx, p, 1, &dim, false, out));
    ct_tensor_release(p), ct_tensor_release(xc);
    return st;
}
ct_status ct_linalg_vecdot(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, int dim,
                           ct_tensor **out) {
    return ct__error_within(ctx, "linalg.vecdot", ct__vecdot(ctx, x, y, dim, out));
}

/* ---- tensorinv / tensorsolve ---- */
static ct_status ct__tensorinv(ct_ctx *ctx, const ct_tensor *a, int ind, ct_tensor **out) {
    const char *op = "linalg.tensorinv";
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ind <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Expected a strictly positive integer for 'ind', but got %d", op,
                             ind);
    int64_t before = 1, after = 1, shp[CT_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < a->ndim; i++)
        *(i < ind ? &before : &after) *= a->shape[i];
    if (before != after)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Expected self to satisfy the requirement prod(self.shape[ind:]) "
                             "== prod(self.shape[:ind]), but got %lld != %lld",
                             op, (long long)after, (long long)before);
    for (int i = ind; i < a->ndim; i++)
        shp[nd++] = a->shape[i];
    for (int i = 0; i < ind && i < a->ndim; i++)
        shp[nd++] = a->shape[i];
    const int64_t sq[2] = {before, after};
    ct_tensor *m = NULL, *inv = NULL;
    st = ct_tensor_reshape(ctx, a, 2, sq, &m);
    CT__DO(st, ct_linalg_inv(ctx, m, &inv));
    CT__DO(st, ct_tensor_reshape(ctx, inv, nd, shp, out));
    ct_tensor_release(m), ct_tensor_release(inv);
    return st;
}
ct_status ct_linalg_tensorinv(ct_ctx *ctx, const ct_tensor *a, int ind, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.tensorinv", ct__tensorinv(ctx, a, ind, out));
}

static ct_status ct__tensorsolve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int n_dims,
                                 const int *dims, ct_tensor **out) {
    const char *op = "linalg.tensorsolve";
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (n_dims < 0 || n_dims > a->ndim || (n_dims > 0 && !dims))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %d dims for a %d-d tensor", op, n_dims,
                             a->ndim);
    ct_tensor *am = NULL;
    if (n_dims > 0) {
        int dst[CT_MAX_DIMS];
        for (int i = 0; i < n_dims; i++)
            dst[i] = a->ndim - n_dims + i;
        st = ct_movedim(ctx, a, n_dims, dims, dst, &am);
        if (st != CT_OK) return st;
    } else {
        am = ct_tensor_retain((ct_tensor *)a);
    }
    int64_t rshape[CT_MAX_DIMS], rp = 1, bp = ct_tensor_numel(b);
    int rnd = 0;
    for (int i = b->ndim; i < am->ndim; i++)
        rshape[rnd++] = am->shape[i], rp *= am->shape[i];
    if (b->ndim > am->ndim || rp != bp) {
        ct_tensor_release(am);
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Expected self to satisfy the requirement "
                             "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but "
                             "got %lld != %lld",
                             op, (long long)rp, (long long)bp);
    }
    const int64_t sq[2] = {rp, rp};
    ct_tensor *m = NULL, *bf = NULL, *x = NULL;
    st = ct_tensor_reshape(ctx, am, 2, sq, &m);
    CT__DO(st, ct_tensor_reshape(ctx, b, 1, &bp, &bf));
    CT__DO(st, ct_linalg_solve(ctx, m, bf, &x));
    CT__DO(st, ct_tensor_reshape(ctx, x, rnd, rshape, out));
    ct_tensor_release(am), ct_tensor_release(m), ct_tensor_release(bf), ct_tensor_release(x);
    return st;
}
ct_status ct_linalg_tensorsolve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int n_dims,
                                const int *dims, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.tensorsolve",
                            ct__tensorsolve(ctx, a, b, n_dims, dims, out));
}

/* ---- householder_product: Q <- Q - tau_i (Q v_i) v_i^T from Q = I, v_i = e_i + the part of
 * column i below the diagonal ---- */
static ct_status ct__householder(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau,
                                 ct_tensor **out) {
    const char *op = "torch.linalg.householder_product";
    const ct_tensor *ins[2] = {a, tau};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must have at least 2 dimensions.", op);
    const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
    if (m < n)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input.shape[-2] must be greater than or equal to input.shape[-1]",
                             op);
    if (tau->ndim != a->ndim - 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Expected tau to have one dimension less than input, but got "
                             "tau.ndim equal to %d and input.ndim is equal to %d",
                             op, tau->ndim, a->ndim);
    const int64_t k = tau->shape[tau->ndim - 1];
    if (n < k)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input.shape[-1] must be greater than or equal to tau.shape[-1]",
                             op);
    for (int i = 0; i < a->ndim - 2; i++)
        if (tau->shape[i] != a->shape[i])
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: Expected batch dimensions of tau to be equal to "
                                 "input.shape[:-2], but got %s",
                                 op, ct__shape_str((char[96]){0}, 96, tau->ndim - 1, tau->shape));
    if (tau->dtype != a->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: tau dtype %s does not match input dtype %s",
                             op, ct_dtype_name(tau->dtype), ct_dtype_name(a->dtype));
    if ((st = ct__la_float(ctx, op, "input", a)) != CT_OK) return st;
    int64_t qs[CT_MAX_DIMS];
    for (int i = 0; i < a->ndim - 2; i++)
        qs[i] = a->shape[i];
    qs[a->ndim - 2] = qs[a->ndim - 1] = m;
    ct_tensor *eye = NULL, *q = NULL;
    st = ct_tensor_eye(ctx, a->dtype, m, m, &eye);
    CT__DO(st, ct_tensor_expand(ctx, eye, a->ndim, qs, &q));
    double *col = ct__alloc(ctx, sizeof(double) * (size_t)(2 * m + 1), 16);
    if (st == CT_OK && !col) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    for (int64_t i = 0; i < k && st == CT_OK; i++) {
        for (int64_t r = 0; r < m; r++)
            col[r] = r > i, col[m + r] = r == i; /* mask below the diagonal, e_i */
        const int64_t cs[2] = {m, 1};
        ct_tensor *t[12] = {NULL};
        st = ct_tensor_from_host(ctx, col, CT_FLOAT64, 2, cs, &t[0]);
        CT__DO(st, ct_tensor_from_host(ctx, col + m, CT_FLOAT64, 2, cs, &t[1]));
        CT__DO(st, ct_cast(ctx, t[0], a->dtype, &t[2]));
        CT__DO(st, ct_cast(ctx, t[1], a->dtype, &t[3]));
        CT__DO(st, ct_tensor_narrow(ctx, a, -1, i, 1, &t[4])); /* (..., m, 1) */
        CT__DO(st, ct_mul(ctx, t[4], t[2], &t[5]));
        CT__DO(st, ct_add(ctx, t[5], t[3], &t[6])); /* v */
        CT__DO(st, ct_tensor_narrow(ctx, tau, -1, i, 1, &t[7]));
        CT__DO(st, ct_tensor_unsqueeze(ctx, t[7], -1, &t[8])); /* (..., 1, 1) */
        CT__DO(st, ct_matmul(ctx, q, t[6], &t[9]));            /* Q v */
        CT__DO(st, ct_mul(ctx, t[9], t[8], &t[10]));           /* tau Q v */
        ct_tensor *vt = NULL, *outer = NULL, *nq = NULL;
        CT__DO(st, ct_adjoint(ctx, t[6], &vt)); /* v^H (complex: I - tau v v^H) */
        CT__DO(st, ct_matmul(ctx, t[10], vt, &outer));
        CT__DO(st, ct_sub(ctx, q, outer, &nq));
        ct_tensor_release(vt), ct_tensor_release(outer);
        ct__release_all(12, t);
        if (st == CT_OK) {
            ct_tensor_release(q);
            q = nq;
        }
    }
    if (st == CT_OK && k == 0) { /* no reflector: Q = I, kept on a's and tau's graph (their
                                  * gradients zero, as torch's) */
        ct_tensor *a0 = NULL, *z = NULL, *p = NULL, *ts = NULL, *tu = NULL, *q2 = NULL, *q3 = NULL;
        const int last = -1;
        st = ct_tensor_narrow(ctx, a, -1, 0, 0, &a0);
        CT__DO(st, ct_tensor_zeros(ctx, a->dtype, 2, (const int64_t[]){0, m}, &z));
        CT__DO(st, ct_matmul(ctx, a0, z, &p));
        CT__DO(st, ct_sum(ctx, tau, 1, &last, true, &ts));
        CT__DO(st, ct_tensor_unsqueeze(ctx, ts, -1, &tu));
        CT__DO(st, ct_add(ctx, q, p, &q2));
        CT__DO(st, ct_add(ctx, q2, tu, &q3));
        if (st == CT_OK) ct_tensor_release(q), q = q3, q3 = NULL;
        ct_tensor *tl[] = {a0, z, p, ts, tu, q2, q3};
        ct__release_all(7, tl);
    }
    ct_tensor *qn = NULL;
    CT__DO(st, ct_tensor_narrow(ctx, q, -1, 0, n, &qn));
    CT__DO(st, ct_tensor_contiguous(ctx, qn, out));
    ct__free(ctx, col);
    ct_tensor_release(eye), ct_tensor_release(q), ct_tensor_release(qn);
    return st;
}
ct_status ct_linalg_householder_product(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau,
                                        ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "linalg.householder_product", ct__householder(ctx, a, tau, out));
    return ct__ag_named(ctx, st, out, mark, "LinalgHouseholderProductBackward0");
}

/* ---- ormqr: the complete Q as householder_product of the reflectors padded to m columns (zero
 * tau: identity reflectors), then one matmul (torch's ormqr applies the reflectors in place; the
 * values agree to rounding) ---- */
static ct_status ct__ormqr(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau,
                           const ct_tensor *other, bool left, bool transpose, ct_tensor **out) {
    const char *op = "ormqr";
    const ct_tensor *ins[3] = {a, tau, other};
    ct_status st = ct__check_args(ctx, op, 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim < 2 || other->ndim < 2 || tau->ndim != a->ndim - 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input (..., m, k), tau (..., r) and other (..., m, n) needed, "
                             "got %s, %s and %s",
                             op, CT__SHAPE_STR(a), CT__SHAPE_STR(tau),
                             ct__shape_str((char[96]){0}, 96, other->ndim, other->shape));
    if (a->dtype != tau->dtype || a->dtype != other->dtype)
        return ct__set_error(
            ctx, CT_ERR_DTYPE, "%s: input, tau and other must have one dtype, got %s, %s and %s",
            op, ct_dtype_name(a->dtype), ct_dtype_name(tau->dtype), ct_dtype_name(other->dtype));
    if ((st = ct__la_float(ctx, op, "input", a)) != CT_OK) return st;
    const int64_t m = a->shape[a->ndim - 2], kc = a->shape[a->ndim - 1],
                  r = tau->shape[tau->ndim - 1];
    if (r > (m < kc ? m : kc))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: tau.shape[-1] (%lld) must be at most min(input.shape[-2], "
                             "input.shape[-1]) (%lld)",
                             op, (long long)r, (long long)(m < kc ? m : kc));
    if ((left ? other->shape[other->ndim - 2] : other->shape[other->ndim - 1]) != m)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: other.shape[%d] must equal input.shape[-2] = %lld (left = %s)",
                             op, left ? -2 : -1, (long long)m, left ? "true" : "false");
    ct_tensor *t[8] = {NULL};
    int64_t zs[CT_MAX_DIMS];
    for (int i = 0; i < a->ndim - 1; i++)
        zs[i] = a->shape[i];
    zs[a->ndim - 1] = m - r; /* (..., m, m - r) zero columns after the r used ones */
    st = ct_tensor_narrow(ctx, a, -1, 0, r, &t[0]);
    CT__DO(st, ct_tensor_zeros(ctx, a->dtype, a->ndim, zs, &t[1]));
    const ct_tensor *pa[2] = {t[0], t[1]};
    CT__DO(st, ct_cat(ctx, 2, pa, -1, &t[2]));
    int64_t ts[CT_MAX_DIMS]; /* (..., m - r) zero scales */
    for (int i = 0; i < a->ndim - 2; i++)
        ts[i] = a->shape[i];
    ts[a->ndim - 2] = m - r;
    CT__DO(st, ct_tensor_zeros(ctx, a->dtype, a->ndim - 1, ts, &t[3]));
    const ct_tensor *pt[2] = {tau, t[3]};
    CT__DO(st, ct_cat(ctx, 2, pt, -1, &t[4]));
    CT__DO(st, ct_linalg_householder_product(ctx, t[2], t[4], &t[5])); /* Q (..., m, m) */
    if (transpose)
        CT__DO(st, ct_adjoint(ctx, t[5], &t[6]));
    else if (st == CT_OK)
        t[6] = ct_tensor_retain(t[5]);
    CT__DO(st, left ? ct_matmul(ctx, t[6], other, out) : ct_matmul(ctx, other, t[6], out));
    ct__release_all(8, t);
    return st;
}
ct_status ct_ormqr(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau, const ct_tensor *other,
                   bool left, bool transpose, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "ormqr", ct__ormqr(ctx, a, tau, other, left, transpose, out));
    return ct__ag_named(ctx, st, out, mark, "OrmqrBackward0");
}

/* ---- cond (torch 1.13's linalg_cond and _linalg_cond_helper) ---- */
static ct_status ct__cond(ct_ctx *ctx, const ct_tensor *a, const char *ord, ct_tensor **out) {
    const char *op = "linalg.cond";
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    static const char *const ok[] = {"2", "-2", "fro", "nuc", "inf", "-inf", "1", "-1"};
    int which = ord ? -1 : 0;
    for (int i = 0; ord && i < 8; i++)
        if (strcmp(ord, ok[i]) == 0) which = i;
    if (which < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s got an invalid norm type: %s", op, ord);
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: The input tensor A must have at least 2 dimensions.", op);
    if (which >= 2) {
        char name[48];
        snprintf(name, sizeof name, "linalg.cond(ord=%s)", ord);
        if ((st = ct__la_square_check(ctx, name, "A", a)) != CT_OK) return st;
    }
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    if (ct_tensor_numel(a) == 0)
        return ct__lm_batch_zeros(ctx, a, ct_dtype_to_real(a->dtype), out); /* real, as torch */
    const int last = -1;
    ct_tensor *t[10] = {NULL};
    if (which <= 1) { /* s_max / s_min (or its inverse), squeezed */
        st = ct_linalg_svdvals(ctx, a, &t[0]);
        const int64_t kk = a->shape[a->ndim - 2] < a->shape[a->ndim - 1] ? a->shape[a->ndim - 2]
                                                                         : a->shape[a->ndim - 1];
        CT__DO(st, ct_tensor_narrow(ctx, t[0], -1, 0, 1, &t[1]));
        CT__DO(st, ct_tensor_narrow(ctx, t[0], -1, kk - 1, 1, &t[2]));
        CT__DO(st, which == 0 ? ct_div(ctx, t[1], t[2], &t[3]) : ct_div(ctx, t[2], t[1], &t[3]));
        CT__DO(st, ct_tensor_squeeze(ctx, t[3], -1, out));
    } else if (which == 3) { /* sum(s) sum(1 / s) */
        st = ct_linalg_svdvals(ctx, a, &t[0]);
        CT__DO(st, ct_sum(ctx, t[0], 1, &last, false, &t[1]));
        CT__DO(st, ct_reciprocal(ctx, t[0], &t[2]));
        CT__DO(st, ct_sum(ctx, t[2], 1, &last, false, &t[3]));
        CT__DO(st, ct_mul(ctx, t[1], t[3], out));
    } else { /* norm(A) norm(A^-1), A^-1 = inf where info > 0, nan_to_num(inf, inf, -inf) */
        st = ct_linalg_inv_ex(ctx, a, &t[0], &t[1]);
        CT__DO(st, ct_gt_scalar(ctx, t[1], 0, &t[2]));
        CT__DO(st, ct_tensor_unsqueeze(ctx, t[2], -1, &t[3]));
        CT__DO(st, ct_tensor_unsqueeze(ctx, t[3], -1, &t[4]));
        CT__DO(st, ct_masked_fill(ctx, t[0], t[4], INFINITY, &t[5]));
        CT__DO(st, ct_linalg_matrix_norm(ctx, a, ord, -2, -1, false, &t[6]));
        CT__DO(st, ct_linalg_matrix_norm(ctx, t[5], ord, -2, -1, false, &t[7]));
        CT__DO(st, ct_mul(ctx, t[6], t[7], &t[8]));
        const double pinf = INFINITY, ninf = -INFINITY;
        CT__DO(st, ct_nan_to_num(ctx, t[8], &pinf, &pinf, &ninf, out));
    }
    ct__release_all(10, t);
    return st;
}
ct_status ct_linalg_cond(ct_ctx *ctx, const ct_tensor *a, const char *ord, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.cond", ct__cond(ctx, a, ord, out));
}

/* ---- svd_lowrank / pca_lowrank (torch._lowrank): Q, an orthonormal basis of A's range from
 * qr(A R) and niter power iterations qr(A^T Q), qr(A Q); then the SVD of the projection, on A^T
 * when m < n or n > q (torch's choice, which keeps the factored matrix small) ---- */
static ct_status ct__lowrank_basis(ct_ctx *ctx, const ct_tensor *a, int64_t q, int niter,
                                   uint64_t seed, ct_tensor **q_out) {
    const int64_t n = a->shape[a->ndim - 1], rs[2] = {n, q};
    ct_tensor *r = NULL, *at = NULL, *p = NULL, *qm = NULL, *rr = NULL;
    ct_status st = ct_tensor_randn(ctx, a->dtype, 2, rs, seed, 0, &r);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, a, -2, -1, &at);
    if (st == CT_OK) st = ct_matmul(ctx, a, r, &p);
    if (st == CT_OK) st = ct_linalg_qr(ctx, p, &qm, &rr);
    for (int i = 0; i < 2 * niter && st == CT_OK; i++) { /* A^T Q, then A Q */
        ct_tensor *np = NULL, *nq = NULL, *nr = NULL;
        ct_tensor_release(p), ct_tensor_release(rr), p = rr = NULL;
        st = ct_matmul(ctx, i % 2 ? a : at, qm, &np);
        if (st == CT_OK) st = ct_linalg_qr(ctx, np, &nq, &nr);
        ct_tensor_release(qm);
        qm = nq, p = np, rr = nr;
    }
    ct_tensor_release(r), ct_tensor_release(at), ct_tensor_release(p), ct_tensor_release(rr);
    if (st != CT_OK) {
        ct_tensor_release(qm);
        return st;
    }
    *q_out = qm;
    return CT_OK;
}
static ct_status ct__svd_lowrank(ct_ctx *ctx, const char *op, const ct_tensor *a, int64_t q,
                                 int niter, uint64_t seed, ct_tensor **U, ct_tensor **S,
                                 ct_tensor **V) {
    if (!U || !S || !V) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *U = *S = *V = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, (void *)1);
    if (st != CT_OK) return st;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: A must have at least 2 dims, got %d", op,
                             a->ndim);
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype)) /* torch 1.13 fails too (a real random matrix) */
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: A must be float32 or float64, got %s (torch 1.13: expected "
                             "scalar type ComplexFloat but found Float)",
                             op, ct_dtype_name(a->dtype));
    const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], mn = m < n ? m : n;
    if (q <= 0) q = mn < 6 ? mn : 6;
    if (q > mn || mn == 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: q(=%lld) must be non-negative integer and not greater than "
                             "min(m, n)=%lld",
                             op, (long long)q, (long long)mn);
    if (niter < 0) niter = 2;
    ct_tensor *t[8] = {NULL}, *u = NULL, *s = NULL, *vh = NULL;
    const bool transposed = m < n || n > q;
    if (transposed) { /* basis of A^T's range; B = A Q (m x q); V = Q Vh^T */
        st = ct_tensor_transpose(ctx, a, -2, -1, &t[0]);
        if (st == CT_OK) st = ct__lowrank_basis(ctx, t[0], q, niter, seed, &t[1]);
        if (st == CT_OK) st = ct_matmul(ctx, a, t[1], &t[2]);
        if (st == CT_OK) st = ct_linalg_svd(ctx, t[2], &u, &s, &vh);
        if (st == CT_OK) st = ct_tensor_transpose(ctx, vh, -2, -1, &t[3]);
        if (st == CT_OK) st = ct_matmul(ctx, t[1], t[3], V);
        if (st == CT_OK) *U = u, u = NULL;
    } else { /* basis of A's range; B^T = Q^T A (q x n); U = Q U_b */
        st = ct__lowrank_basis(ctx, a, q, niter, seed, &t[1]);
        if (st == CT_OK) st = ct_tensor_transpose(ctx, t[1], -2, -1, &t[4]);
        if (st == CT_OK) st = ct_matmul(ctx, t[4], a, &t[2]);
        if (st == CT_OK) st = ct_linalg_svd(ctx, t[2], &u, &s, &vh);
        if (st == CT_OK) st = ct_tensor_transpose(ctx, vh, -2, -1, V);
        if (st == CT_OK) st = ct_matmul(ctx, t[1], u, U);
    }
    if (st == CT_OK) *S = s, s = NULL;
    ct_tensor_release(u), ct_tensor_release(s), ct_tensor_release(vh);
    for (int i = 0; i < 8; i++)
        ct_tensor_release(t[i]);
    if (st != CT_OK) {
        ct_tensor_release(*U), ct_tensor_release(*S), ct_tensor_release(*V);
        *U = *S = *V = NULL;
    }
    return ct__error_within(ctx, op, st);
}
ct_status ct_svd_lowrank(ct_ctx *ctx, const ct_tensor *a, int64_t q, int niter, uint64_t seed,
                         ct_tensor **U, ct_tensor **S, ct_tensor **V) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    return ct__svd_lowrank(ctx, "svd_lowrank", a, q, niter, seed, U, S, V);
}
ct_status ct_pca_lowrank(ct_ctx *ctx, const ct_tensor *a, int64_t q, bool center, int niter,
                         uint64_t seed, ct_tensor **U, ct_tensor **S, ct_tensor **V) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!U || !S || !V) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "pca_lowrank: out is NULL");
    *U = *S = *V = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "pca_lowrank", 1, ins, (void *)1);
    if (st != CT_OK) return st;
    if (!center || a->ndim < 2)
        return ct__svd_lowrank(ctx, "pca_lowrank", a, q, niter, seed, U, S, V);
    ct_tensor *c = NULL, *ac = NULL; /* A - A.mean(dim=-2, keepdim=True) */
    st = ct_mean(ctx, a, 1, (const int[]){-2}, true, &c);
    if (st == CT_OK) st = ct_sub(ctx, a, c, &ac);
    if (st == CT_OK) st = ct__svd_lowrank(ctx, "pca_lowrank", ac, q, niter, seed, U, S, V);
    ct_tensor_release(c), ct_tensor_release(ac);
    return ct__error_within(ctx, "pca_lowrank", st);
}

/* Dense linear algebra front ends (torch.linalg): cholesky, solve, inv, det / slogdet, qr, svd.
 * Each makes a contiguous (B, m, n) copy of the input in the compute dtype (f16/bf16 in f32),
 * allocates the outputs as tensors and submits one CT_OP_LINALG descriptor (captured like every
 * op); the CPU backend runs LAPACKE per matrix (backends/cpu/linalg_cpu.c). The plain calls read
 * the per-matrix info back and fail on a singular or non-positive-definite matrix, naming it
 * (torch raises); under graph capture that host read is skipped and the *_ex calls give the info
 * tensor instead. Results come back in the input's dtype with its batch dims. */
#include "ctorch/linalg.h"
#include "ctorch/ops.h"

#include <stdio.h>
#include <string.h>

#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#define CT__DO(st, call)                                                                           \
    do {                                                                                           \
        if ((st) == CT_OK) (st) = (call);                                                          \
    } while (0)

typedef struct {
    ct_dtype dt, cdt;
    int nb;                      /* batch dims */
    int64_t bshape[CT_MAX_DIMS]; /* their sizes */
    int64_t B, m, n;
    ct_tensor *a3; /* (B, m, n) contiguous in cdt */
} ct__la_in;

static ct_status ct__la_prep(ct_ctx *ctx, const char *op, const ct_tensor *a, bool square,
                             ct__la_in *p) {
    memset(p, 0, sizeof *p);
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    ct_status st = ct__check_tensor(ctx, op, "input", a);
    if (st != CT_OK) return st;
    {
        const ct_tensor *ag_in[1] = {a}; /* no backward formulas yet: refuse, never cut the graph */
        if ((st = ct__ag_no_backward(ctx, op, 1, ag_in)) != CT_OK) return st;
    }
    if (a->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input belongs to another context", op);
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must have at least 2 dims, got %s", op,
                             CT__SHAPE_STR(a));
    p->m = a->shape[a->ndim - 2], p->n = a->shape[a->ndim - 1];
    if (square && p->m != p->n)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: matrices must be square, got %s", op,
                             CT__SHAPE_STR(a));
    if (p->m > INT32_MAX || p->n > INT32_MAX || p->m * p->n > ((int64_t)1 << 40))
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: matrices of %lld x %lld are too large", op,
                             (long long)p->m, (long long)p->n);
    p->dt = a->dtype;
    if (p->dt == CT_FLOAT32 || p->dt == CT_FLOAT64)
        p->cdt = p->dt;
    else if (p->dt == CT_FLOAT16 || p->dt == CT_BFLOAT16)
        p->cdt = CT_FLOAT32;
    else
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(p->dt));
    if (a->storage->device.type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "%s: only CPU tensors are supported", op);
    p->nb = a->ndim - 2;
    p->B = 1;
    for (int i = 0; i < p->nb; i++)
        p->bshape[i] = a->shape[i], p->B *= a->shape[i];
    int64_t s3[3] = {p->B, p->m, p->n};
    ct_tensor *c = NULL;
    st = p->dt == p->cdt ? ct_tensor_contiguous(ctx, a, &c) : ct_cast(ctx, a, p->cdt, &c);
    CT__DO(st, ct_tensor_reshape(ctx, c, 3, s3, &p->a3));
    ct_tensor_release(c);
    return st;
}

/* A new contiguous tensor (B, d...) in dt. */
static ct_status ct__la_out(ct_ctx *ctx, const ct__la_in *p, ct_dtype dt, int nd,
                            const int64_t *dims, ct_tensor **out) {
    int64_t shape[4] = {p->B, 0, 0, 0};
    for (int i = 0; i < nd; i++)
        shape[1 + i] = dims[i];
    return ct__tensor_new(ctx, p->a3->storage->device, dt, 1 + nd, shape, out);
}

/* t (B, d...) seen with the input's batch dims and cast to its dtype; consumes t. */
static ct_status ct__la_back(ct_ctx *ctx, const ct__la_in *p, bool cast, ct_tensor *t,
                             ct_tensor **out) {
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < p->nb; i++)
        shape[nd++] = p->bshape[i];
    for (int i = 1; i < t->ndim; i++)
        shape[nd++] = t->shape[i];
    ct_tensor *v = NULL, *c = NULL;
    ct_status st = ct_tensor_reshape(ctx, t, nd, shape, &v);
    ct_tensor_release(t);
    if (st == CT_OK && cast && v->dtype != p->dt) {
        st = ct_cast(ctx, v, p->dt, &c);
        ct_tensor_release(v);
        v = c;
    }
    if (st != CT_OK) {
        ct_tensor_release(v);
        return st;
    }
    *out = v;
    return CT_OK;
}

static ct_status ct__la_submit(ct_ctx *ctx, const ct__la_in *p, int routine, int64_t flag,
                               ct_tensor *const outs[4], const ct_tensor *in1) {
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_LINALG, 4, 2);
    for (int i = 0; i < 4; i++)
        if (outs[i]) ct__operand_set(&d.operands[i], outs[i]);
    ct__operand_set(&d.operands[4], p->a3);
    if (in1) ct__operand_set(&d.operands[5], in1);
    d.compute_dtype = p->cdt;
    d.ints[0] = routine;
    d.ints[1] = flag;
    return ct__submit(ctx, p->a3->storage->device, &d);
}

static const char ct__not_pd[] = "is not positive-definite", ct__singular[] = "is singular";

/* CT_OK, or CT_ERR_INVALID_ARG naming the first matrix whose info is nonzero (eagerly only). */
static ct_status ct__la_check_info(ct_ctx *ctx, const char *op, const ct__la_in *p,
                                   const ct_tensor *info, const char *what) {
    if (ct__any_capture(ctx) || p->B == 0) return CT_OK;
    int32_t *h = ct__alloc(ctx, sizeof(int32_t) * (size_t)p->B, 16);
    if (!h) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    ct_status st = ct_tensor_to_host(info, h, sizeof(int32_t) * (size_t)p->B);
    for (int64_t b = 0; st == CT_OK && b < p->B; b++)
        if (h[b] != 0) {
            /* what LAPACK's info means for the routine (torch's wording where it has one) */
            char why[96];
            if (what == ct__not_pd)
                snprintf(why, sizeof why, "the leading minor of order %d is not positive-definite",
                         (int)h[b]);
            else if (what == ct__singular)
                snprintf(why, sizeof why, "the diagonal element %d of its LU factor is zero",
                         (int)h[b]);
            else
                snprintf(why, sizeof why, "LAPACK info %d", (int)h[b]);
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: matrix %lld of the batch %s (%s)", op,
                               (long long)b, what, why);
        }
    ct__free(ctx, h);
    return st;
}

/* Hand the n results to the caller (outs[i] NULL: not wanted) in the input's batch dims, cast to
 * its dtype where cast[i]; on failure (st or later) release everything and set no output. */
static ct_status ct__la_finish(ct_ctx *ctx, ct__la_in *p, ct_status st, int n, ct_tensor **ts,
                               const bool *cast, ct_tensor **const *outs) {
    ct_tensor_release(p->a3);
    p->a3 = NULL;
    ct_tensor *got[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        if (st == CT_OK && outs[i]) {
            st = ct__la_back(ctx, p, cast[i], ts[i], &got[i]);
        } else {
            ct_tensor_release(ts[i]);
        }
        ts[i] = NULL;
    }
    for (int i = 0; i < n; i++) {
        if (!outs[i]) continue;
        if (st == CT_OK) {
            *outs[i] = got[i];
        } else {
            ct_tensor_release(got[i]);
            *outs[i] = NULL;
        }
    }
    return st;
}

/* A square routine with an (n, n) result and per-matrix info (cholesky, inv): info_out NULL makes
 * a nonzero info an error saying the matrix `what`. */
static ct_status ct__la_square(ct_ctx *ctx, const char *op, const ct_tensor *a, int routine,
                               int64_t flag, const char *what, ct_tensor **out,
                               ct_tensor **info_out) {
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, true, &p);
    ct_tensor *t[2] = {NULL, NULL};
    int64_t nn[2] = {p.n, p.n};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, nn, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, routine, flag, outs4, NULL));
    if (!info_out) CT__DO(st, ct__la_check_info(ctx, op, &p, t[1], what));
    const bool cast[2] = {true, false};
    ct_tensor **const outs[2] = {out, info_out};
    return ct__la_finish(ctx, &p, st, 2, t, cast, outs);
}
static ct_status ct__cholesky(ct_ctx *ctx, const char *op, const ct_tensor *a, bool upper,
                              ct_tensor **L, ct_tensor **info_out) {
    return ct__la_square(ctx, op, a, CT_LINALG_CHOLESKY, upper, ct__not_pd, L, info_out);
}
ct_status ct_linalg_cholesky(ct_ctx *ctx, const ct_tensor *a, bool upper, ct_tensor **L) {
    CT__AG_WRAP(ctx, L, ct__cholesky(ctx, "linalg.cholesky", a, upper, L, NULL),
                (CT__AG_IN1(CT__AG_LINALG_CHOLESKY, a), r_.n_iv = 1, r_.iv[0] = upper));
}
ct_status ct_linalg_cholesky_ex(ct_ctx *ctx, const ct_tensor *a, bool upper, ct_tensor **L,
                                ct_tensor **info) {
    if (!info) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.cholesky_ex: info is NULL");
    if (!ct__ag_enter(ctx)) return ct__cholesky(ctx, "linalg.cholesky_ex", a, upper, L, info);
    ct_status st = ct__cholesky(ctx, "linalg.cholesky_ex", a, upper, L, info);
    ct__ag_rec r; /* L differentiates as cholesky's (info has no gradient) */
    memset(&r, 0, sizeof r);
    if (st == CT_OK)
        r.op = CT__AG_LINALG_CHOLESKY, r.n_in = 1, r.in[0] = a, r.n_iv = 1, r.iv[0] = upper;
    ct_status rs = ct__ag_after(ctx, st, &r, L);
    if (rs != CT_OK && st == CT_OK) { /* the record failed: L is released, info goes too */
        ct_tensor_release(*info);
        *info = NULL;
    }
    return rs;
}

static ct_status ct__inv(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__la_square(ctx, "linalg.inv", a, CT_LINALG_INV, 0, ct__singular, out, NULL);
}

static ct_status ct__solve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const char *op = "linalg.solve";
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    if (ct__check_tensor(ctx, op, "B", b) != CT_OK) return CT_ERR_INVALID_ARG;
    {
        const ct_tensor *ag_in[1] = {b};
        ct_status sg = ct__ag_no_backward(ctx, op, 1, ag_in);
        if (sg != CT_OK) return sg;
    }
    if (b->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: B belongs to another context", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, true, &p);
    if (st != CT_OK) return st;
    /* B is (..., n, k), or (..., n) a vector (torch's rule: when B has one dim less than A) */
    bool vec = b->ndim == a->ndim - 1;
    int bnd = b->ndim - (vec ? 1 : 2);
    bool ok = bnd == p.nb && b->ndim >= 1 && b->shape[vec ? b->ndim - 1 : b->ndim - 2] == p.n;
    for (int i = 0; ok && i < p.nb; i++)
        ok = b->shape[i] == p.bshape[i];
    if (!ok) {
        ct_tensor_release(p.a3);
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: A %s and B %s do not match (B must be (..., n, k) or (..., n) "
                             "with A's batch dims)",
                             op, CT__SHAPE_STR(a),
                             ct__shape_str((char[96]){0}, 96, b->ndim, b->shape));
    }
    int64_t k = vec ? 1 : b->shape[b->ndim - 1], s3[3] = {p.B, p.n, k};
    ct_tensor *bc = NULL, *b3 = NULL, *t[2] = {NULL, NULL};
    st = b->dtype == p.cdt ? ct_tensor_contiguous(ctx, b, &bc) : ct_cast(ctx, b, p.cdt, &bc);
    CT__DO(st, ct_tensor_reshape(ctx, bc, 3, s3, &b3));
    int64_t nk[2] = {p.n, k};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, nk, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SOLVE, 0, outs4, b3));
    CT__DO(st, ct__la_check_info(ctx, op, &p, t[1], ct__singular));
    ct_tensor_release(bc), ct_tensor_release(b3);
    if (st == CT_OK && vec) { /* (B, n, 1) -> (B, n) */
        int64_t s2[2] = {p.B, p.n};
        ct_tensor *v = NULL;
        st = ct_tensor_reshape(ctx, t[0], 2, s2, &v);
        ct_tensor_release(t[0]);
        t[0] = v;
    }
    const bool cast[2] = {true, false};
    ct_tensor **const outs[2] = {out, NULL};
    return ct__la_finish(ctx, &p, st, 2, t, cast, outs);
}

/* slogdet's three results (sign, log|det|, det); the caller picks which it hands out. */
static ct_status ct__slogdet_any(ct_ctx *ctx, const char *op, const ct_tensor *a, ct_tensor **sign,
                                 ct_tensor **logabsdet, ct_tensor **det) {
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, true, &p);
    ct_tensor *t[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        CT__DO(st, ct__la_out(ctx, &p, p.cdt, 0, NULL, &t[i]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SLOGDET, 0, outs4, NULL));
    const bool cast[3] = {true, true, true};
    ct_tensor **const outs[3] = {sign, logabsdet, det};
    return ct__la_finish(ctx, &p, st, 3, t, cast, outs);
}
static ct_status ct__slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign,
                             ct_tensor **logabsdet) {
    if (!sign || !logabsdet)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.slogdet: out is NULL");
    return ct__slogdet_any(ctx, "linalg.slogdet", a, sign, logabsdet, NULL);
}
/* log|det| records the node (its gradient is G A^-T); sign has none, as in torch */
ct_status ct_linalg_slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign,
                            ct_tensor **logabsdet) {
    CT__AG_WRAP(ctx, logabsdet, ct__slogdet(ctx, a, sign, logabsdet),
                CT__AG_IN1(CT__AG_LINALG_SLOGDET, a));
}
static ct_status ct__det(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.det: out is NULL");
    return ct__slogdet_any(ctx, "linalg.det", a, NULL, NULL, out);
}

static ct_status ct__qr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **Q, ct_tensor **R) {
    const char *op = "linalg.qr";
    if (!Q || !R) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, false, &p);
    int64_t r = p.m < p.n ? p.m : p.n, qs[2] = {p.m, r}, rs[2] = {r, p.n};
    ct_tensor *t[2] = {NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, qs, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, rs, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_QR, 0, outs4, NULL));
    const bool cast[2] = {true, true};
    ct_tensor **const outs[2] = {Q, R};
    return ct__la_finish(ctx, &p, st, 2, t, cast, outs);
}

static ct_status ct__svd(ct_ctx *ctx, const ct_tensor *a, ct_tensor **U, ct_tensor **S,
                         ct_tensor **Vh) {
    const char *op = "linalg.svd";
    if (!S) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: S is NULL", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, false, &p);
    int64_t r = p.m < p.n ? p.m : p.n, us[2] = {p.m, r}, vs[2] = {r, p.n};
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, us, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 1, &r, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, vs, &t[2]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[3]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], t[3]};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SVD, 0, outs4, NULL));
    CT__DO(st, ct__la_check_info(ctx, op, &p, t[3], "did not converge"));
    const bool cast[4] = {true, true, true, false};
    ct_tensor **const outs[4] = {U, S, Vh, NULL};
    return ct__la_finish(ctx, &p, st, 4, t, cast, outs);
}

/* qr and svd record one node with every output (the formulas read them all). */
ct_status ct_linalg_qr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **Q, ct_tensor **R) {
    if (!ct__ag_enter(ctx)) return ct__qr(ctx, a, Q, R);
    ct_status st = ct__qr(ctx, a, Q, R);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK) {
        r.op = CT__AG_LINALG_QR, r.n_in = 1, r.in[0] = a;
        r.n_out = 2, r.out[0] = *Q, r.out[1] = *R;
    }
    st = ct__ag_after(ctx, st, &r, Q);
    if (st != CT_OK && R) *R = NULL; /* a failed record released both */
    return st;
}

ct_status ct_linalg_svd(ct_ctx *ctx, const ct_tensor *a, ct_tensor **U, ct_tensor **S,
                        ct_tensor **Vh) {
    if (!ct__ag_enter(ctx)) return ct__svd(ctx, a, U, S, Vh);
    /* the backward needs U and Vh even when the caller skips them */
    ct_tensor *u = NULL, *vh = NULL;
    ct_status st = ct__svd(ctx, a, &u, S, &vh);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK) {
        r.op = CT__AG_LINALG_SVD, r.n_in = 1, r.in[0] = a;
        r.n_out = 3, r.out[0] = u, r.out[1] = *S, r.out[2] = vh;
    }
    st = ct__ag_after(ctx, st, &r, S);
    if (st != CT_OK) return st; /* a failed record released all three */
    if (U)
        *U = u;
    else
        ct_tensor_release(u);
    if (Vh)
        *Vh = vh;
    else
        ct_tensor_release(vh);
    return CT_OK;
}

ct_status ct_linalg_inv(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__inv(ctx, a, out), CT__AG_IN1(CT__AG_LINALG_INV, a));
}
ct_status ct_linalg_det(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__det(ctx, a, out), CT__AG_IN1(CT__AG_LINALG_DET, a));
}
static ct_status ct__solve_rec(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                               ct_tensor **out) {
    CT__AG_WRAP(
        ctx, out, ct__solve(ctx, a, b, out),
        (CT__AG_IN2(CT__AG_LINALG_SOLVE, a, b), r_.n_iv = 1, r_.iv[0] = b->ndim == a->ndim - 1));
}
/* torch.linalg.solve's operand rules: one dtype; B is a vector when it is 1-d or has A's shape
 * without the last dim, else (..., n, k); the batch dims of A and B broadcast (expanded views, so
 * gradients sum back), then ct__solve runs on equal batch dims. */
ct_status ct_linalg_solve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const char *op = "linalg.solve";
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    ct_status st = ct__check_tensor(ctx, op, "A", a);
    if (st == CT_OK) st = ct__check_tensor(ctx, op, "B", b);
    if (st != CT_OK) return st;
    if (a->ctx != ctx || b->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s belongs to another context", op,
                             a->ctx != ctx ? "A" : "B");
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: A and B must have the same dtype, got %s and %s (as torch)", op,
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (a->ndim < 2 || b->ndim < 1) return ct__solve_rec(ctx, a, b, out); /* its shape errors */
    bool vec = b->ndim == 1;
    if (b->ndim == a->ndim - 1) {
        vec = true;
        for (int i = 0; i < b->ndim; i++)
            vec = vec && b->shape[i] == a->shape[i];
    }
    if (!vec && b->ndim < 2) return ct__solve_rec(ctx, a, b, out);
    const int na = a->ndim - 2, nbb = b->ndim - (vec ? 1 : 2);
    const int nbs = na > nbb ? na : nbb;
    int64_t bs[CT_MAX_DIMS];
    for (int i = 0; i < nbs; i++) { /* right-aligned broadcast of the batch dims */
        const int ia = i - (nbs - na), ib = i - (nbs - nbb);
        const int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char s1[96], s2[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: the batch dims of A %s and B %s do not broadcast", op,
                                 ct__shape_str(s1, sizeof s1, a->ndim, a->shape),
                                 ct__shape_str(s2, sizeof s2, b->ndim, b->shape));
        }
        bs[i] = da == 1 ? db : da;
    }
    bool same = na == nbs && nbb == nbs && (!vec || b->ndim == a->ndim - 1);
    for (int i = 0; same && i < nbs; i++)
        same = a->shape[i] == bs[i] && b->shape[i] == bs[i];
    if (same) return ct__solve_rec(ctx, a, b, out);
    int64_t sa[CT_MAX_DIMS], sb[CT_MAX_DIMS];
    if (nbs + 2 > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: more than %d dims after broadcasting", op,
                             CT_MAX_DIMS);
    for (int i = 0; i < nbs; i++)
        sa[i] = sb[i] = bs[i];
    sa[nbs] = a->shape[a->ndim - 2], sa[nbs + 1] = a->shape[a->ndim - 1];
    const int nmat = vec ? 1 : 2;
    for (int i = 0; i < nmat; i++)
        sb[nbs + i] = b->shape[b->ndim - nmat + i];
    ct_tensor *ae = NULL, *be = NULL;
    st = ct_tensor_expand(ctx, a, nbs + 2, sa, &ae);
    CT__DO(st, ct_tensor_expand(ctx, b, nbs + nmat, sb, &be));
    CT__DO(st, ct__solve_rec(ctx, ae, be, out));
    ct_tensor_release(ae), ct_tensor_release(be);
    return st;
}

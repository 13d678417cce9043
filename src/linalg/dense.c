/* Dense linear algebra front ends (torch.linalg): cholesky, solve, inv, det / slogdet, qr, svd.
 * Each makes a contiguous (B, m, n) copy of the input in the compute dtype (f16/bf16 in f32),
 * allocates the outputs as tensors and submits one CT_OP_LINALG descriptor (captured like every
 * op); the CPU backend runs LAPACKE per matrix (backends/cpu/linalg_cpu.c). The plain calls read
 * the per-matrix info back and fail on a singular or non-positive-definite matrix, naming it
 * (torch raises); under graph capture that host read is skipped and the *_ex calls give the info
 * tensor instead. Results come back in the input's dtype with its batch dims.
 * The second set (float32 / float64 / complex, as torch's CPU kernels): solve_triangular,
 * lu_factor(_ex), lu_unpack, lu, lu_solve, cholesky_solve, svdvals, inv_ex, solve_ex, lstsq, ldl
 * and geqrf, through the routines CT_LINALG_TRSOLVE, LU_FACTOR, LU_PERM, SVDVALS, LSTSQ, LDL_*
 * and GEQRF. */
#include "ctorch/autograd.h"
#include "ctorch/linalg.h"
#include "linalg/linalg_impl.h"
#include "ctorch/ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

typedef struct {
    ct_dtype dt, cdt;
    int nb;                      /* batch dims */
    int64_t bshape[CT_MAX_DIMS]; /* their sizes */
    int64_t B, m, n;
    ct_tensor *a3; /* (B, m, n) contiguous in cdt */
} ct__la_in;

/* complex64 / complex128 are computed as they are (the c / z routines: linalg_cpu.c,
 * linalg2_cx_cpu.c); f16 / bf16 in float32 */
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
    else if (ct_dtype_is_complex(p->dt))
        p->cdt = p->dt;
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

/* in2: a third input (ldl_solve's pivots) or NULL */
static ct_status ct__la_submit3(ct_ctx *ctx, const ct__la_in *p, int routine, int64_t flag,
                                double sc, ct_tensor *const outs[4], const ct_tensor *in1,
                                const ct_tensor *in2) {
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_LINALG, 4, in2 ? 3 : 2);
    /* complex: every complex operand as its real view (.., 2), ints[2] = 1 (ctorch/backend.h) */
    const bool cx = ct_dtype_is_complex(p->cdt);
    const ct_tensor *ts[7] = {outs[0], outs[1], outs[2], outs[3], p->a3, in1, in2};
    ct_tensor *views[7] = {NULL};
    ct_status st = CT_OK;
    for (int i = 0; i < 7 && st == CT_OK; i++) {
        if (!ts[i]) continue;
        if (cx && ct_dtype_is_complex(ts[i]->dtype)) {
            st = ct_view_as_real(ctx, ts[i], &views[i]);
            if (st == CT_OK) ct__operand_set(&d.operands[i], views[i]);
        } else {
            ct__operand_set(&d.operands[i], ts[i]);
        }
    }
    d.compute_dtype = cx ? ct_dtype_to_real(p->cdt) : p->cdt;
    d.ints[0] = routine;
    d.ints[1] = flag;
    d.ints[2] = cx;
    d.scalars[0] = sc;
    if (st == CT_OK) st = ct__submit(ctx, p->a3->storage->device, &d);
    ct__release_all(7, views);
    return st;
}
static ct_status ct__la_submit_sc(ct_ctx *ctx, const ct__la_in *p, int routine, int64_t flag,
                                  double sc, ct_tensor *const outs[4], const ct_tensor *in1) {
    return ct__la_submit3(ctx, p, routine, flag, sc, outs, in1, NULL);
}
static ct_status ct__la_submit(ct_ctx *ctx, const ct__la_in *p, int routine, int64_t flag,
                               ct_tensor *const outs[4], const ct_tensor *in1) {
    return ct__la_submit_sc(ctx, p, routine, flag, 0, outs, in1);
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
    if (ct__tensor_live(a) && a->dtype != b->dtype) /* torch: no promotion here */
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected A and B to have the same dtype, but found A of type %s "
                             "and B of type %s instead",
                             op, ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
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
    /* no right-hand side (k = 0): A is still factored against one zero column, so a singular A
     * fails as torch's; the result keeps its 0 columns */
    const bool no_rhs = k == 0 && p.n > 0 && p.B > 0;
    ct_tensor *bc = NULL, *b3 = NULL, *t[2] = {NULL, NULL};
    if (no_rhs) {
        const int64_t z3[3] = {p.B, p.n, 1};
        st = ct_tensor_zeros(ctx, p.cdt, 3, z3, &b3);
    } else {
        st = b->dtype == p.cdt ? ct_tensor_contiguous(ctx, b, &bc) : ct_cast(ctx, b, p.cdt, &bc);
        CT__DO(st, ct_tensor_reshape(ctx, bc, 3, s3, &b3));
    }
    int64_t nk[2] = {p.n, no_rhs ? 1 : k};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, nk, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SOLVE, 0, outs4, b3));
    CT__DO(st, ct__la_check_info(ctx, op, &p, t[1], ct__singular));
    ct_tensor_release(bc), ct_tensor_release(b3);
    if (st == CT_OK && no_rhs) { /* (B, n, 1) -> (B, n, 0) */
        ct_tensor *e = NULL;
        st = ct__la_out(ctx, &p, p.cdt, 2, (const int64_t[]){p.n, 0}, &e);
        ct_tensor_release(t[0]);
        t[0] = e;
    }
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
    for (int i = 0; i < 3; i++) /* complex: sign and det complex, log|det| real */
        CT__DO(st, ct__la_out(ctx, &p, i == 1 ? ct_dtype_to_real(p.cdt) : p.cdt, 0, NULL, &t[i]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SLOGDET, 0, outs4, NULL));
    const bool cx = ct_dtype_is_complex(p.cdt);
    const bool cast[3] = {!cx, !cx, !cx};
    ct_tensor **const outs[3] = {sign, logabsdet, det};
    return ct__la_finish(ctx, &p, st, 3, t, cast, outs);
}
static ct_status ct__slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign,
                             ct_tensor **logabsdet) {
    if (!sign || !logabsdet)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.slogdet: out is NULL");
    return ct__slogdet_any(ctx, "linalg.slogdet", a, sign, logabsdet, NULL);
}
/* one node with both outputs, as torch (LinalgSlogdetBackward0): log|det|'s gradient G A^-H, and
 * for complex input the sign's phase term (a real sign's gradient is zero) */
ct_status ct_linalg_slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign,
                            ct_tensor **logabsdet) {
    if (!ct__ag_enter(ctx)) return ct__slogdet(ctx, a, sign, logabsdet);
    ct_status st = ct__slogdet(ctx, a, sign, logabsdet);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK)
        r.op = CT__AG_LINALG_SLOGDET, r.n_in = 1, r.in[0] = a, r.n_out = 2, r.out[0] = *logabsdet,
        r.out[1] = *sign;
    st = ct__ag_after(ctx, st, &r, logabsdet);
    if (st != CT_OK && sign) *sign = NULL; /* a failed record released both */
    return st;
}
static ct_status ct__det(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.det: out is NULL");
    return ct__slogdet_any(ctx, "linalg.det", a, NULL, NULL, out);
}

/* complex Hermitian eigh (eigh.c hands complex input here): heevd through CT_LINALG_EIGH_CX;
 * eigenvalues real, eigenvectors complex (LAPACK's phases); per-matrix info as the real eigh's */
ct_status ct__linalg_eigh_cx(ct_ctx *ctx, const char *op, const ct_tensor *a, bool upper,
                             ct_tensor **w_out, ct_tensor **v_out, ct_tensor **info_out) {
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, true, &p);
    int64_t nn[2] = {p.n, p.n};
    ct_tensor *t[3] = {NULL, NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, ct_dtype_to_real(p.cdt), 1, &p.n, &t[0]));
    if (v_out) CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, nn, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[2]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], NULL};
    /* as the real eigh: a non-finite matrix gives NaN and info 1, no error */
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_EIGH_CX, (upper ? 1 : 0) | (v_out ? 2 : 0), outs4,
                             NULL));
    const bool cast[3] = {false, false, false};
    ct_tensor **const outs[3] = {w_out, v_out, info_out};
    return ct__la_finish(ctx, &p, st, 3, t, cast, outs);
}

/* complete: Q (m, m) and R (m, n) (ints[1] = 1) */
static ct_status ct__qr(ct_ctx *ctx, const ct_tensor *a, bool complete, ct_tensor **Q,
                        ct_tensor **R) {
    const char *op = "linalg.qr";
    if (!Q || !R) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, false, &p);
    int64_t r = p.m < p.n ? p.m : p.n, qc = complete ? p.m : r, qs[2] = {p.m, qc},
            rs[2] = {qc, p.n};
    ct_tensor *t[2] = {NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, qs, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, rs, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_QR, complete, outs4, NULL));
    const bool cast[2] = {true, true}; /* complex: already the input's dtype */
    ct_tensor **const outs[2] = {Q, R};
    return ct__la_finish(ctx, &p, st, 2, t, cast, outs);
}

/* full: U (m, m) and Vh (n, n) (ints[1] = 1) */
static ct_status ct__svd(ct_ctx *ctx, const ct_tensor *a, bool full, ct_tensor **U, ct_tensor **S,
                         ct_tensor **Vh) {
    const char *op = "linalg.svd";
    if (!S) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: S is NULL", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, false, &p);
    int64_t r = p.m < p.n ? p.m : p.n, us[2] = {p.m, full ? p.m : r}, vs[2] = {full ? p.n : r, p.n};
    const bool cx = ct_dtype_is_complex(p.cdt); /* complex: real singular values */
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, us, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, ct_dtype_to_real(p.cdt), 1, &r, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, vs, &t[2]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[3]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], t[3]};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SVD, full, outs4, NULL));
    CT__DO(st, ct__la_check_info(ctx, op, &p, t[3], "did not converge"));
    const bool cast[4] = {true, !cx, true, false};
    ct_tensor **const outs[4] = {U, S, Vh, NULL};
    return ct__la_finish(ctx, &p, st, 4, t, cast, outs);
}

/* qr and svd record one node with every output (the formulas read them all). */
ct_status ct_linalg_qr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **Q, ct_tensor **R) {
    if (!ct__ag_enter(ctx)) return ct__qr(ctx, a, false, Q, R);
    ct_status st = ct__qr(ctx, a, false, Q, R);
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
    if (!ct__ag_enter(ctx)) return ct__svd(ctx, a, false, U, S, Vh);
    /* the backward needs U and Vh even when the caller skips them */
    ct_tensor *u = NULL, *vh = NULL;
    ct_status st = ct__svd(ctx, a, false, &u, S, &vh);
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
static ct_status ct__solve_ex_body(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                   ct_tensor **out, ct_tensor **info);
/* info NULL: linalg.solve (gesv; a singular matrix is an error); else solve_ex's LU route. */
static ct_status ct__solve_rec(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out,
                               ct_tensor **info) {
    if (!info) {
        CT__AG_WRAP(ctx, out, ct__solve(ctx, a, b, out),
                    (CT__AG_IN2(CT__AG_LINALG_SOLVE, a, b), r_.n_iv = 1,
                     r_.iv[0] = b->ndim == a->ndim - 1));
    }
    if (!ct__ag_enter(ctx)) return ct__solve_ex_body(ctx, a, b, out, info);
    ct_status st = ct__solve_ex_body(ctx, a, b, out, info);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK)
        r.op = CT__AG_LINALG_SOLVE, r.n_in = 2, r.in[0] = a, r.in[1] = b, r.n_iv = 1,
        r.iv[0] = b->ndim == a->ndim - 1;
    ct_status rs = ct__ag_after(ctx, st, &r, out);
    if (rs != CT_OK && st == CT_OK) {
        ct_tensor_release(*info);
        *info = NULL;
    }
    return rs;
}
/* torch.linalg.solve's operand rules: one dtype; B is a vector when it is 1-d or has A's shape
 * without the last dim, else (..., n, k); the batch dims of A and B broadcast (expanded views, so
 * gradients sum back), then ct__solve runs on equal batch dims. */
static ct_status ct__solve_front(ct_ctx *ctx, const char *op, const ct_tensor *a,
                                 const ct_tensor *b, ct_tensor **out, ct_tensor **info) {
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
    if (a->ndim < 2 || b->ndim < 1)
        return ct__solve_rec(ctx, a, b, out, info); /* its shape errors */
    bool vec = b->ndim == 1;
    if (b->ndim == a->ndim - 1) {
        vec = true;
        for (int i = 0; i < b->ndim; i++)
            vec = vec && b->shape[i] == a->shape[i];
    }
    if (!vec && b->ndim < 2) return ct__solve_rec(ctx, a, b, out, info);
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
    if (same) return ct__solve_rec(ctx, a, b, out, info);
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
    CT__DO(st, ct__solve_rec(ctx, ae, be, out, info));
    ct_tensor_release(ae), ct_tensor_release(be);
    if (st == CT_OK && info) { /* torch: info has A's batch dims (one LU per matrix of A) */
        ct_tensor *cur = *info, *nx = NULL;
        for (int i = 0; i < nbs && st == CT_OK; i++) {
            const int ia = i - (nbs - na);
            if ((ia >= 0 && a->shape[ia] == bs[i]) || bs[i] <= 1) continue;
            st = ct_tensor_narrow(ctx, cur, i, 0, 1, &nx); /* the copies agree */
            ct_tensor_release(cur);
            cur = nx, nx = NULL;
        }
        if (st == CT_OK) st = ct_tensor_reshape(ctx, cur, na, a->shape, &nx);
        ct_tensor_release(cur);
        *info = st == CT_OK ? nx : NULL;
        if (st != CT_OK) {
            ct_tensor_release(*out);
            *out = NULL;
        }
    }
    return st;
}
ct_status ct_linalg_solve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__solve_front(ctx, "linalg.solve", a, b, out, NULL);
}

/* ==== the second set: solve_triangular, lu_factor(_ex), lu_unpack, lu, lu_solve, cholesky_solve,
 * svdvals, lstsq. torch 1.13 computes these in float32 / float64 / complex only ("not implemented
 * for 'Half'"), and so do they. ==== */

/* CT_OK when t is float32, float64, complex64 or complex128, else CT_ERR_DTYPE naming op and
 * what; linalg_impl.h */
ct_status ct__la_float(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t) {
    if (t->dtype == CT_FLOAT32 || t->dtype == CT_FLOAT64 || ct_dtype_is_complex(t->dtype))
        return CT_OK;
    return ct__set_error(ctx, CT_ERR_DTYPE,
                         "%s: %s must be float32, float64, complex64 or complex128, got %s (torch: "
                         "not implemented for that dtype)",
                         op, what, ct_dtype_name(t->dtype));
}

/* Expanded views of a and b with their batch dims (all but the last amat / bmat dims) broadcast
 * to one shape; CT_ERR_SHAPE naming both when they do not broadcast. */
static ct_status ct__la_bcast(ct_ctx *ctx, const char *op, const ct_tensor *a, int amat,
                              const ct_tensor *b, int bmat, ct_tensor **ae, ct_tensor **be) {
    *ae = *be = NULL;
    const int na = a->ndim - amat, nb = b->ndim - bmat, nbs = na > nb ? na : nb;
    if (nbs + (amat > bmat ? amat : bmat) > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: more than %d dims after broadcasting", op,
                             CT_MAX_DIMS);
    int64_t sa[CT_MAX_DIMS], sb[CT_MAX_DIMS];
    for (int i = 0; i < nbs; i++) {
        const int ia = i - (nbs - na), ib = i - (nbs - nb);
        const int64_t da = ia >= 0 ? a->shape[ia] : 1, db = ib >= 0 ? b->shape[ib] : 1;
        if (da != db && da != 1 && db != 1) {
            char s1[96], s2[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: the batch dims of %s and %s do not broadcast", op,
                                 ct__shape_str(s1, sizeof s1, a->ndim, a->shape),
                                 ct__shape_str(s2, sizeof s2, b->ndim, b->shape));
        }
        sa[i] = sb[i] = da == 1 ? db : da;
    }
    for (int i = 0; i < amat; i++)
        sa[nbs + i] = a->shape[na + i];
    for (int i = 0; i < bmat; i++)
        sb[nbs + i] = b->shape[nb + i];
    ct_status st = ct_tensor_expand(ctx, a, nbs + amat, sa, ae);
    CT__DO(st, ct_tensor_expand(ctx, b, nbs + bmat, sb, be));
    if (st != CT_OK) {
        ct_tensor_release(*ae), ct_tensor_release(*be);
        *ae = *be = NULL;
    }
    return st;
}

/* b (equal batch dims to p's input) as a contiguous (B, r, c) tensor in the compute dtype. */
static ct_status ct__la_rhs(ct_ctx *ctx, const ct__la_in *p, const ct_tensor *b, int64_t r,
                            int64_t c, ct_tensor **b3) {
    /* BLAS / LAPACK take the dims and leading dimension as (32-bit) lapack_int / blasint */
    if (r > INT32_MAX || c > INT32_MAX || r * c > ((int64_t)1 << 40))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "linalg: right-hand sides of %lld x %lld are too large for LAPACK",
                             (long long)r, (long long)c);
    ct_tensor *bc = NULL;
    const int64_t s3[3] = {p->B, r, c};
    ct_status st =
        b->dtype == p->cdt ? ct_tensor_contiguous(ctx, b, &bc) : ct_cast(ctx, b, p->cdt, &bc);
    CT__DO(st, ct_tensor_reshape(ctx, bc, 3, s3, b3));
    ct_tensor_release(bc);
    return st;
}

/* ---- solve_triangular: X with A X = B (left) or X A = B, A read as its upper / lower triangle
 * (unit diagonal when unitriangular); a and b have equal batch dims. flags: bit0 upper, bit1
 * left, bit2 unitriangular. ---- */
static ct_status ct__trsolve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int flags,
                             ct_tensor **out) {
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, "linalg.solve_triangular", a, true, &p);
    if (st != CT_OK) return st;
    const int64_t rc[2] = {b->shape[b->ndim - 2], b->shape[b->ndim - 1]};
    ct_tensor *b3 = NULL, *t[1] = {NULL};
    st = ct__la_rhs(ctx, &p, b, rc[0], rc[1], &b3);
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, rc, &t[0]));
    ct_tensor *outs4[4] = {t[0], NULL, NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_TRSOLVE, flags, outs4, b3));
    ct_tensor_release(b3);
    const bool cast[1] = {true};
    ct_tensor **const outs[1] = {out};
    return ct__la_finish(ctx, &p, st, 1, t, cast, outs);
}
static ct_status ct__trsolve_rec(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, bool upper,
                                 bool left, bool unit, ct_tensor **out) {
    const int flags = (upper ? 1 : 0) | (left ? 2 : 0) | (unit ? 4 : 0);
    CT__AG_WRAP(ctx, out, ct__trsolve(ctx, a, b, flags, out),
                (CT__AG_IN2(CT__AG_LINALG_SOLVE_TRIANGULAR, a, b), r_.n_iv = 3, r_.iv[0] = upper,
                 r_.iv[1] = left, r_.iv[2] = unit));
}

/* The common checks of two-operand calls: ctx, out, both tensors valid and of ctx. */
static ct_status ct__la_args2(ct_ctx *ctx, const char *op, const char *na, const ct_tensor *a,
                              const char *nb, const ct_tensor *b, void *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    ct_status st = ct__check_tensor(ctx, op, na, a);
    if (st == CT_OK && b) st = ct__check_tensor(ctx, op, nb, b);
    if (st != CT_OK) return st;
    if (a->ctx != ctx || (b && b->ctx != ctx))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s belongs to another context", op,
                             a->ctx != ctx ? na : nb);
    return CT_OK;
}
ct_status ct__la_square_check(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *a) {
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: The input tensor %s must have at least 2 dimensions.", op, what);
    if (a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: %s must be batches of square matrices, but they are %lld by "
                             "%lld matrices",
                             op, what, (long long)a->shape[a->ndim - 2],
                             (long long)a->shape[a->ndim - 1]);
    return CT_OK;
}

ct_status ct_linalg_solve_triangular(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                     bool upper, bool left, bool unitriangular, ct_tensor **out) {
    const char *op = "linalg.solve_triangular";
    ct_status st = ct__la_args2(ctx, op, "A", a, "B", b, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (b->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: The input tensor B must have at least 2 dimensions.", op);
    if ((st = ct__la_square_check(ctx, op, "A", a)) != CT_OK) return st;
    /* torch's result dtype is A's (B converted to it); a complex B with a real A gives the complex
     * dtype of A's precision here, where torch drops B's imaginary part with a warning */
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    const ct_dtype dt = ct_dtype_is_complex(b->dtype) && !ct_dtype_is_complex(a->dtype)
                            ? ct_dtype_to_complex(a->dtype)
                            : a->dtype;
    const int64_t n = a->shape[a->ndim - 1];
    const int64_t br = b->shape[b->ndim - 2], bc = b->shape[b->ndim - 1];
    if ((left ? br : bc) != n)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld "
                             "and %lldx%lld)",
                             op, left ? "AX = B" : "XA = B", (long long)n, (long long)n,
                             (long long)br, (long long)bc);
    ct_tensor *ac = NULL, *bcst = NULL, *ae = NULL, *be = NULL;
    st = a->dtype == dt ? (ac = ct_tensor_retain((ct_tensor *)a), CT_OK) : ct_cast(ctx, a, dt, &ac);
    CT__DO(st, b->dtype == dt ? (bcst = ct_tensor_retain((ct_tensor *)b), CT_OK)
                              : ct_cast(ctx, b, dt, &bcst));
    CT__DO(st, ct__la_bcast(ctx, op, ac, 2, bcst, 2, &ae, &be));
    CT__DO(st, ct__trsolve_rec(ctx, ae, be, upper, left, unitriangular, out));
    ct_tensor_release(ac), ct_tensor_release(bcst), ct_tensor_release(ae), ct_tensor_release(be);
    return ct__error_within(ctx, op, st);
}

/* ---- lu_factor: getrf's LU (..., m, n), pivots (..., k) int32 (1-based) and info (...) ---- */
static ct_status ct__lu_factor(ct_ctx *ctx, const char *op, const ct_tensor *a, ct_tensor **LU,
                               ct_tensor **piv, ct_tensor **info) {
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, false, &p);
    const int64_t k = p.m < p.n ? p.m : p.n, mn[2] = {p.m, p.n};
    ct_tensor *t[3] = {NULL, NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, mn, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 1, &k, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[2]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_LU_FACTOR, 0, outs4, NULL));
    const bool cast[3] = {true, false, false};
    ct_tensor **const outs[3] = {LU, piv, info};
    return ct__la_finish(ctx, &p, st, 3, t, cast, outs);
}
/* info_out NULL: a nonzero info is an error in torch's words (eagerly). */
static ct_status ct__lu_factor_any(ct_ctx *ctx, const char *op, const ct_tensor *a, ct_tensor **LU,
                                   ct_tensor **piv, ct_tensor **info_out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!LU || !piv) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *LU = *piv = NULL;
    ct_status st = ct__check_tensor(ctx, op, "A", a);
    if (st != CT_OK) return st;
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    ct_tensor *info = NULL;
    if (!ct__ag_enter(ctx)) {
        st = ct__lu_factor(ctx, op, a, LU, piv, &info);
    } else {
        st = ct__lu_factor(ctx, op, a, LU, piv, &info);
        ct__ag_rec r; /* LU's node; the pivots ride along as a saved, non-differentiable input */
        memset(&r, 0, sizeof r);
        if (st == CT_OK) r.op = CT__AG_LINALG_LU_FACTOR, r.n_in = 2, r.in[0] = a, r.in[1] = *piv;
        ct_status rs = ct__ag_after(ctx, st, &r, LU);
        if (rs != CT_OK && st == CT_OK) { /* the record failed and released LU */
            ct_tensor_release(*piv), ct_tensor_release(info);
            *piv = info = NULL;
        }
        st = rs;
    }
    if (st == CT_OK && !info_out && !ct__any_capture(ctx)) {
        const int64_t nb = ct_tensor_numel(info);
        int32_t *h = nb ? ct__alloc(ctx, sizeof(int32_t) * (size_t)nb, 16) : NULL;
        if (nb && !h) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        if (h) st = ct_tensor_to_host(info, h, sizeof(int32_t) * (size_t)nb);
        for (int64_t b = 0; h && st == CT_OK && b < nb; b++)
            if (h[b] > 0) {
                char be[48] = "";
                if (a->ndim > 2) snprintf(be, sizeof be, "(Batch element %lld): ", (long long)b);
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "torch.linalg.lu_factor: %sU[%d,%d] is zero and using it on "
                                   "lu_solve would result in a division by zero. If you still "
                                   "want to perform the factorization, consider calling "
                                   "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                                   be, (int)h[b], (int)h[b]);
            }
        ct__free(ctx, h);
    }
    if (st != CT_OK) {
        ct_tensor_release(*LU), ct_tensor_release(*piv), ct_tensor_release(info);
        *LU = *piv = NULL;
        return st;
    }
    if (info_out)
        *info_out = info;
    else
        ct_tensor_release(info);
    return CT_OK;
}
ct_status ct_linalg_lu_factor(ct_ctx *ctx, const ct_tensor *a, ct_tensor **LU, ct_tensor **pivots) {
    return ct__lu_factor_any(ctx, "linalg.lu_factor", a, LU, pivots, NULL);
}
ct_status ct_linalg_lu_factor_ex(ct_ctx *ctx, const ct_tensor *a, ct_tensor **LU,
                                 ct_tensor **pivots, ct_tensor **info) {
    if (!info)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.lu_factor_ex: info is NULL")
                   : CT_ERR_INVALID_ARG;
    *info = NULL;
    return ct__lu_factor_any(ctx, "linalg.lu_factor_ex", a, LU, pivots, info);
}

/* The permutation of getrf pivots: P (..., m, m) in LU's dtype (A = P L U), perm and its inverse
 * (..., m) int64 ((P^T A)[i] = A[perm[i]]); any of the three may be NULL. */
static ct_status ct__lu_perm_of(ct_ctx *ctx, const char *op, const ct_tensor *LU,
                                const ct_tensor *piv, ct_tensor **P, ct_tensor **perm,
                                ct_tensor **iperm) {
    ct_status st = ct__check_tensor(ctx, op, "pivots", piv);
    if (st != CT_OK) return st;
    if (piv->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: pivots belongs to another context", op);
    if (piv->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: pivots must be a tensor of dtype int32 (as torch), got %s", op,
                             ct_dtype_name(piv->dtype));
    const int64_t m = LU->shape[LU->ndim - 2], n = LU->shape[LU->ndim - 1], k = m < n ? m : n;
    bool ok = piv->ndim == LU->ndim - 1 && piv->shape[piv->ndim - 1] == k;
    for (int i = 0; ok && i < LU->ndim - 2; i++)
        ok = piv->shape[i] == LU->shape[i];
    if (!ok) {
        char s1[96], s2[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: pivots %s must have LU's batch dims and min(m, n) = %lld "
                             "entries (LU %s)",
                             op, ct__shape_str(s1, sizeof s1, piv->ndim, piv->shape), (long long)k,
                             ct__shape_str(s2, sizeof s2, LU->ndim, LU->shape));
    }
    ct__la_in p; /* P depends on LU's shape only: a detached view (no gradient, no refusal) */
    ct_tensor *det = NULL;
    st = ct_tensor_detach(ctx, LU, &det);
    CT__DO(st, ct__la_prep(ctx, op, det, false, &p));
    ct_tensor_release(det);
    if (st != CT_OK) return st;
    ct_tensor *pc = NULL, *p2 = NULL, *t[3] = {NULL, NULL, NULL};
    const int64_t s2[2] = {p.B, k}, mm[2] = {m, m};
    CT__DO(st, ct_tensor_contiguous(ctx, piv, &pc));
    CT__DO(st, ct_tensor_reshape(ctx, pc, 2, s2, &p2));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, mm, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT64, 1, &m, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT64, 1, &m, &t[2]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_LU_PERM, 0, outs4, p2));
    ct_tensor_release(pc), ct_tensor_release(p2);
    const bool cast[3] = {true, false, false};
    ct_tensor **const outs[3] = {P, perm, iperm};
    return ct__la_finish(ctx, &p, st, 3, t, cast, outs);
}

static ct_status ct__empty1(ct_ctx *ctx, const ct_tensor *like, ct_dtype dt, ct_tensor **out) {
    const int64_t z = 0;
    return ct_tensor_empty_on(ctx, ct_tensor_device(like), dt, 1, &z, out);
}

static ct_status ct__lu_unpack(ct_ctx *ctx, const ct_tensor *LU, const ct_tensor *piv,
                               bool unpack_data, bool unpack_pivots, ct_tensor **P, ct_tensor **L,
                               ct_tensor **U) {
    const char *op = "lu_unpack";
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!P || !L || !U) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *P = *L = *U = NULL;
    ct_status st = ct__la_args2(ctx, op, "LU_data", LU, "LU_pivots", piv, P);
    if (st != CT_OK) return st;
    if (LU->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: LU_data must have at least 2 dimensions, got %s", op,
                             CT__SHAPE_STR(LU));
    if ((st = ct__la_float(ctx, op, "LU_data", LU)) != CT_OK) return st;
    if (piv->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "torch.lu_unpack: LU_pivots is expected to be a tensor of "
                             "torch.int32 dtype, got %s",
                             ct_dtype_name(piv->dtype));
    const int64_t m = LU->shape[LU->ndim - 2], n = LU->shape[LU->ndim - 1], k = m < n ? m : n;
    if (unpack_pivots)
        st = ct__lu_perm_of(ctx, op, LU, piv, P, NULL, NULL);
    else
        st = ct__empty1(ctx, LU, LU->dtype, P);
    if (st == CT_OK && unpack_data) {
        ct_tensor *t[4] = {NULL, NULL, NULL, NULL};
        st = ct_tril(ctx, LU, -1, &t[0]);
        CT__DO(st, ct_tensor_narrow(ctx, t[0], -1, 0, k, &t[1]));
        CT__DO(st, ct_tensor_eye(ctx, LU->dtype, m, k, &t[2]));
        CT__DO(st, ct_add(ctx, t[1], t[2], L));
        CT__DO(st, ct_triu(ctx, LU, 0, &t[3]));
        CT__DO(st, ct_tensor_narrow(ctx, t[3], -2, 0, k, U));
        ct__release_all(4, t);
    } else if (st == CT_OK) {
        st = ct__empty1(ctx, LU, LU->dtype, L);
        CT__DO(st, ct__empty1(ctx, LU, LU->dtype, U));
    }
    if (st != CT_OK) {
        ct_tensor *all[3] = {*P, *L, *U};
        ct__release_all(3, all);
        *P = *L = *U = NULL;
    }
    return st;
}
ct_status ct_lu_unpack(ct_ctx *ctx, const ct_tensor *LU_data, const ct_tensor *LU_pivots,
                       bool unpack_data, bool unpack_pivots, ct_tensor **P, ct_tensor **L,
                       ct_tensor **U) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "lu_unpack",
        ct__lu_unpack(ctx, LU_data, LU_pivots, unpack_data, unpack_pivots, P, L, U));
    if (st == CT_OK && unpack_data) {
        ct__ag_named(ctx, st, L, mark, "LuUnpackBackward0");
        ct__ag_named(ctx, st, U, mark, "LuUnpackBackward0");
    }
    return st;
}

ct_status ct_linalg_lu(ct_ctx *ctx, const ct_tensor *a, ct_tensor **P, ct_tensor **L,
                       ct_tensor **U) {
    const char *op = "linalg.lu";
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!P || !L || !U) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *P = *L = *U = NULL;
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *LU = NULL, *piv = NULL, *info = NULL;
    ct_status st = ct__lu_factor_any(ctx, op, a, &LU, &piv, &info);
    CT__DO(st, ct_lu_unpack(ctx, LU, piv, true, true, P, L, U));
    ct_tensor_release(LU), ct_tensor_release(piv), ct_tensor_release(info);
    st = ct__error_within(ctx, op, st);
    if (st == CT_OK) {
        ct__ag_named(ctx, st, L, mark, "LinalgLuBackward0");
        ct__ag_named(ctx, st, U, mark, "LinalgLuBackward0");
    }
    return st;
}

/* t viewed with nd dims (leading 1s prepended; t itself when it has them) */
static ct_status ct__lead1(ct_ctx *ctx, const ct_tensor *t, int nd, ct_tensor **out) {
    if (t->ndim >= nd) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    int64_t sh[CT_MAX_DIMS];
    const int pre = nd - t->ndim;
    for (int i = 0; i < nd; i++)
        sh[i] = i < pre ? 1 : t->shape[i - pre];
    return ct_tensor_reshape(ctx, t, nd, sh, out);
}
/* take_along_dim of x by idx (the permutation with a 1 at dim ^ 1 of the last two) after giving
 * both the same number of dims (take_along_dim broadcasts the rest) */
static ct_status ct__gather_perm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *perm, int dim,
                                 ct_tensor **out) {
    ct_tensor *i1 = NULL, *i2 = NULL, *x2 = NULL;
    ct_status st = ct_tensor_unsqueeze(ctx, perm, dim == -2 ? -1 : -2, &i1);
    const int nd = x->ndim > perm->ndim + 1 ? x->ndim : perm->ndim + 1;
    CT__DO(st, ct__lead1(ctx, i1, nd, &i2));
    CT__DO(st, ct__lead1(ctx, x, nd, &x2));
    CT__DO(st, ct_take_along_dim(ctx, x2, i2, dim, out));
    ct_tensor_release(i1), ct_tensor_release(i2), ct_tensor_release(x2);
    return st;
}

/* ---- lu_solve: A = P L U from lu_factor; the row order applied with take_along_dim and two
 * triangular solves read straight from LU (unit lower, upper), so the gradient reaches LU and B
 * through their nodes (named LinalgLuSolveBackward0) ---- */
static ct_status ct__lu_solve(ct_ctx *ctx, const ct_tensor *LU, const ct_tensor *piv,
                              const ct_tensor *b, bool left, bool adjoint, ct_tensor **out) {
    const char *op = "linalg.lu_solve";
    ct_status st = ct__la_args2(ctx, op, "LU", LU, "B", b, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct__check_tensor(ctx, op, "pivots", piv) != CT_OK) return CT_ERR_INVALID_ARG;
    if (b->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: The input tensor B must have at least 2 dimensions.", op);
    if ((st = ct__la_square_check(ctx, op, "LU", LU)) != CT_OK) return st;
    if (LU->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected LU and B to have the same dtype, but found LU of type "
                             "%s and B of type %s instead",
                             op, ct_dtype_name(LU->dtype), ct_dtype_name(b->dtype));
    if ((st = ct__la_float(ctx, op, "LU", LU)) != CT_OK) return st;
    if (piv->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: pivots should be a Tensor of scalar type torch.int32, got %s", op,
                             ct_dtype_name(piv->dtype));
    bool same = piv->ndim == LU->ndim - 1;
    for (int i = 0; same && i < piv->ndim; i++)
        same = piv->shape[i] == LU->shape[i];
    if (!same)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
                             "pivots with shape %s instead",
                             op, CT__SHAPE_STR(piv));
    const int64_t n = LU->shape[LU->ndim - 1];
    const int64_t br = b->shape[b->ndim - 2], bc = b->shape[b->ndim - 1];
    if ((left ? br : bc) != n)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld "
                             "and %lldx%lld)",
                             op, left ? "AX = B" : "XA = B", (long long)n, (long long)n,
                             (long long)br, (long long)bc);
    ct_tensor *perm = NULL, *iperm = NULL, *t[8] = {NULL};
    st = ct__lu_perm_of(ctx, op, LU, piv, NULL, &perm, &iperm);
    ct_tensor *lt = NULL;
    if (adjoint) CT__DO(st, ct_adjoint(ctx, LU, &lt)); /* LU^H (complex), LU^T (real) */
    if (left && !adjoint) { /* X = U^-1 L^-1 (P^T B), (P^T B)[i] = B[perm[i]] */
        CT__DO(st, ct__gather_perm(ctx, b, perm, -2, &t[1]));
        CT__DO(st, ct_linalg_solve_triangular(ctx, LU, t[1], false, true, true, &t[2]));
        CT__DO(st, ct_linalg_solve_triangular(ctx, LU, t[2], true, true, false, out));
    } else if (left) { /* A^T X = B: X = P L^-T U^-T B, (P Z)[r] = Z[iperm[r]] */
        CT__DO(st, ct_linalg_solve_triangular(ctx, lt, b, false, true, false, &t[0]));
        CT__DO(st, ct_linalg_solve_triangular(ctx, lt, t[0], true, true, true, &t[1]));
        CT__DO(st, ct__gather_perm(ctx, t[1], iperm, -2, out));
    } else if (!adjoint) { /* X A = B: X = B U^-1 L^-1 P^T, (V P^T)[:, j] = V[:, iperm[j]] */
        CT__DO(st, ct_linalg_solve_triangular(ctx, LU, b, true, false, false, &t[0]));
        CT__DO(st, ct_linalg_solve_triangular(ctx, LU, t[0], false, false, true, &t[1]));
        CT__DO(st, ct__gather_perm(ctx, t[1], iperm, -1, out));
    } else { /* X A^T = B: X = (B P) L^-T U^-T, (B P)[:, i] = B[:, perm[i]] */
        CT__DO(st, ct__gather_perm(ctx, b, perm, -1, &t[1]));
        CT__DO(st, ct_linalg_solve_triangular(ctx, lt, t[1], true, false, true, &t[2]));
        CT__DO(st, ct_linalg_solve_triangular(ctx, lt, t[2], false, false, false, out));
    }
    ct__release_all(8, t);
    ct_tensor_release(perm), ct_tensor_release(iperm), ct_tensor_release(lt);
    if (st != CT_OK && *out) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}
ct_status ct_linalg_lu_solve(ct_ctx *ctx, const ct_tensor *LU, const ct_tensor *pivots,
                             const ct_tensor *b, bool left, bool adjoint, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "linalg.lu_solve",
                                    ct__lu_solve(ctx, LU, pivots, b, left, adjoint, out));
    return ct__ag_named(ctx, st, out, mark, "LinalgLuSolveBackward0");
}

/* ---- cholesky_solve: X = A^-1 B with A = L L^T (U^T U when upper), two triangular solves
 * (potrs' own steps); one node with torch's CholeskySolveBackward0 formula ---- */
static ct_status ct__chol_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *l, bool upper,
                                ct_tensor **out) {
    ct_tensor *lt = NULL, *y = NULL;
    ct_status st = ct_adjoint(ctx, l, &lt); /* L^H: L^T of real matrices */
    /* lower: L Y = B, L^H X = Y; upper: U^H Y = B, U X = Y */
    CT__DO(st, ct__trsolve(ctx, upper ? lt : l, b, 2, &y));
    CT__DO(st, ct__trsolve(ctx, upper ? l : lt, y, 3, out));
    ct_tensor_release(lt), ct_tensor_release(y);
    return st;
}
static ct_status ct__chol_solve_rec(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *l, bool upper,
                                    ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__chol_solve(ctx, b, l, upper, out),
                (CT__AG_IN2(CT__AG_CHOLESKY_SOLVE, b, l), r_.n_iv = 1, r_.iv[0] = upper));
}
ct_status ct_cholesky_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *L, bool upper,
                            ct_tensor **out) {
    const char *op = "cholesky_solve";
    ct_status st = ct__la_args2(ctx, op, "B", b, "L", L, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (b->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: b should have at least 2 dimensions, but has %d dimensions "
                             "instead",
                             op, b->ndim);
    if ((st = ct__la_square_check(ctx, op, "A", L)) != CT_OK) return st;
    if (b->dtype != L->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected b and A to have the same dtype, but found b of type %s "
                             "and A of type %s instead.",
                             op, ct_dtype_name(b->dtype), ct_dtype_name(L->dtype));
    if ((st = ct__la_float(ctx, op, "A", L)) != CT_OK) return st;
    const int64_t n = L->shape[L->ndim - 1];
    if (b->shape[b->ndim - 2] != n)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Incompatible matrix sizes for cholesky_solve: each A matrix is "
                             "%lld by %lld but each b matrix is %lld by %lld",
                             op, (long long)n, (long long)n, (long long)b->shape[b->ndim - 2],
                             (long long)b->shape[b->ndim - 1]);
    ct_tensor *be = NULL, *le = NULL;
    st = ct__la_bcast(ctx, op, b, 2, L, 2, &be, &le);
    CT__DO(st, ct__chol_solve_rec(ctx, be, le, upper, out));
    ct_tensor_release(be), ct_tensor_release(le);
    return ct__error_within(ctx, op, st);
}

/* ---- svdvals: gesdd without vectors; under autograd linalg.svd's node (torch computes the
 * vectors for the backward as well: LinalgSvdBackward0) ---- */
ct_status ct_linalg_svdvals(ct_ctx *ctx, const ct_tensor *a, ct_tensor **S) {
    const char *op = "linalg.svdvals";
    ct_status st = ct__la_args2(ctx, op, "A", a, NULL, NULL, S);
    if (st != CT_OK) return st;
    *S = NULL;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "linalg.svd: The input tensor A must have at least 2 dimensions.");
    if (!ct_dtype_is_complex(a->dtype) && (st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    if (ct__ag_wants(ctx, 1, &a)) return ct_linalg_svd(ctx, a, NULL, S, NULL);
    ct__la_in p;
    st = ct__la_prep(ctx, op, a, false, &p); /* complex: real values */
    const int64_t k = p.m < p.n ? p.m : p.n;
    ct_tensor *t[2] = {NULL, NULL};
    CT__DO(st, ct__la_out(ctx, &p, ct_dtype_to_real(p.cdt), 1, &k, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_SVDVALS, 0, outs4, NULL));
    CT__DO(st, ct__la_check_info(ctx, op, &p, t[1], "did not converge"));
    const bool cast[2] = {!ct_dtype_is_complex(p.cdt), false};
    ct_tensor **const outs[2] = {S, NULL};
    return ct__la_finish(ctx, &p, st, 2, t, cast, outs);
}

/* ---- inv_ex / solve_ex: torch's route, lu_factor_ex then lu_solve, so a singular matrix gives
 * info > 0 and inf / NaN values instead of an error; the nodes are inv's and solve's ---- */
static ct_status ct__inv_ex_body(ct_ctx *ctx, const ct_tensor *a, ct_tensor **inverse,
                                 ct_tensor **info) {
    /* inv's kernel (torch's bits), its info returned instead of raised */
    return ct__la_square(ctx, "linalg.inv_ex", a, CT_LINALG_INV, 0, ct__singular, inverse, info);
}
ct_status ct_linalg_inv_ex(ct_ctx *ctx, const ct_tensor *a, ct_tensor **inverse, ct_tensor **info) {
    const char *op = "linalg.inv_ex";
    ct_status st = ct__la_args2(ctx, op, "A", a, NULL, NULL, inverse);
    if (st != CT_OK) return st;
    if (!info) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: info is NULL", op);
    *inverse = *info = NULL;
    if ((st = ct__la_square_check(ctx, op, "A", a)) != CT_OK) return st;
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    if (!ct__ag_enter(ctx))
        return ct__error_within(ctx, op, ct__inv_ex_body(ctx, a, inverse, info));
    st = ct__inv_ex_body(ctx, a, inverse, info);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK) r.op = CT__AG_LINALG_INV, r.n_in = 1, r.in[0] = a;
    ct_status rs = ct__ag_after(ctx, st, &r, inverse);
    if (rs != CT_OK && st == CT_OK) {
        ct_tensor_release(*info);
        *info = NULL;
    }
    return ct__error_within(ctx, op, rs);
}

/* a (..., n, n) and b (..., n, k) or (..., n) with a's batch dims (ct__solve's rules). */
static ct_status ct__solve_ex_body(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                   ct_tensor **out, ct_tensor **info) {
    const char *op = "linalg.solve_ex";
    *out = *info = NULL;
    ct_status st = ct__la_square_check(ctx, op, "A", a);
    if (st == CT_OK) st = ct__la_float(ctx, op, "A", a);
    if (st != CT_OK) return st;
    const bool vec = b->ndim == a->ndim - 1;
    const int nb = a->ndim - 2, bnd = b->ndim - (vec ? 1 : 2);
    const int64_t n = a->shape[a->ndim - 1];
    bool ok = bnd == nb && b->ndim >= 1 && b->shape[vec ? b->ndim - 1 : b->ndim - 2] == n;
    for (int i = 0; ok && i < nb; i++)
        ok = b->shape[i] == a->shape[i];
    if (!ok)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: A %s and B %s do not match (B must be (..., n, k) or (..., n) "
                             "with A's batch dims)",
                             op, CT__SHAPE_STR(a), CT__SHAPE_STR(b));
    ct_tensor *LU = NULL, *piv = NULL, *b2 = NULL, *x2 = NULL;
    st = ct__lu_factor(ctx, op, a, &LU, &piv, info);
    if (vec)
        CT__DO(st, ct_tensor_unsqueeze(ctx, b, -1, &b2));
    else
        b2 = ct_tensor_retain((ct_tensor *)b);
    CT__DO(st, ct__lu_solve(ctx, LU, piv, b2, true, false, &x2));
    if (vec)
        CT__DO(st, ct_tensor_squeeze(ctx, x2, -1, out));
    else if (st == CT_OK)
        *out = ct_tensor_retain(x2);
    ct_tensor_release(LU), ct_tensor_release(piv), ct_tensor_release(b2), ct_tensor_release(x2);
    if (st != CT_OK) {
        ct_tensor_release(*info), ct_tensor_release(*out);
        *info = *out = NULL;
    }
    return st;
}
ct_status ct_linalg_solve_ex(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out,
                             ct_tensor **info) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!info) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.solve_ex: info is NULL");
    *info = NULL;
    return ct__error_within(ctx, "linalg.solve_ex",
                            ct__solve_front(ctx, "linalg.solve_ex", a, b, out, info));
}

/* ---- lstsq: LAPACK's drivers on a (B, m, n) copy of A and the right-hand side padded to
 * (B, max(m, n), q); one node (torch's LinalgLstsqBackward0, through the pseudo-inverse) ---- */
static const char *const ct__lstsq_drivers[4] = {"gels", "gelsy", "gelsd", "gelss"};
static ct_status ct__lstsq(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rcond,
                           int drv, ct_tensor **sol, ct_tensor **res, ct_tensor **rank,
                           ct_tensor **sv) {
    const char *op = "linalg.lstsq";
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, false, &p);
    if (st != CT_OK) return st;
    const int64_t m = p.m, n = p.n, k = m < n ? m : n, mx = m > n ? m : n;
    const int64_t q = b->shape[b->ndim - 1], q1 = q > 0 ? q : 1;
    ct_tensor *b3 = NULL, *pad = NULL, *view = NULL, *v2 = NULL, *t[4] = {NULL};
    const int64_t ps[3] = {p.B, mx, q1};
    st = ct__la_rhs(ctx, &p, b, m, q, &b3);
    CT__DO(st, ct_tensor_zeros(ctx, p.cdt, 3, ps, &pad));
    CT__DO(st, ct_tensor_narrow(ctx, pad, 1, 0, m, &view));
    CT__DO(st, ct_tensor_narrow(ctx, view, 2, 0, q, &v2));
    CT__DO(st, ct_tensor_copy_(ctx, v2, b3));
    const int64_t xs[2] = {mx, q1};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, xs, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT64, 0, NULL, &t[1]));
    const ct_dtype rdt = ct_dtype_to_real(p.cdt); /* singular values: real */
    CT__DO(st, ct__la_out(ctx, &p, rdt, 1, &k, &t[2]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[3]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], t[3]};
    if (st == CT_OK && isnan(rcond))
        rcond = (rdt == CT_FLOAT32 ? 0x1p-23 : 0x1p-52) * (double)(m > n ? m : n);
    CT__DO(st, ct__la_submit_sc(ctx, &p, CT_LINALG_LSTSQ, drv, rcond, outs4, pad));
    ct_tensor_release(b3), ct_tensor_release(pad), ct_tensor_release(view), ct_tensor_release(v2);
    CT__DO(st, ct__la_check_info(ctx, op, &p, t[3],
                                 drv == 0 ? "does not have full rank (gels: the least squares "
                                            "solution could not be computed)"
                                          : "did not converge"));
    /* residuals (torch): m > n, not gelsy, and (gelsd / gelss) every matrix of full rank */
    bool want_res = m > n && drv != 1;
    int64_t *rk = NULL;
    if (st == CT_OK && want_res && drv >= 2 && p.B > 0 && !ct__any_capture(ctx)) {
        rk = ct__alloc(ctx, sizeof(int64_t) * (size_t)p.B, 16);
        st = rk ? ct_tensor_to_host(t[1], rk, sizeof(int64_t) * (size_t)p.B)
                : ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        for (int64_t i = 0; st == CT_OK && i < p.B; i++)
            want_res = want_res && rk[i] == n;
        ct__free(ctx, rk);
    }
    ct_tensor *x = NULL, *xn = NULL, *tail = NULL, *sq = NULL, *r2 = NULL;
    const bool cast[4] = {true, false, !ct_dtype_is_complex(p.cdt), false};
    ct_tensor *got[4] = {NULL, NULL, NULL, NULL};
    ct_tensor **const outs[4] = {&got[0], &got[1], &got[2], NULL};
    st = ct__la_finish(ctx, &p, st, 4, t, cast, outs); /* X (..., mx, q1), rank, values */
    if (st == CT_OK) {
        x = got[0];
        st = ct_tensor_narrow(ctx, x, -2, 0, n, &xn);
        CT__DO(st, ct_tensor_narrow(ctx, xn, -1, 0, q, &r2));
        CT__DO(st, ct_tensor_contiguous(ctx, r2, sol));
        ct_tensor_release(r2), r2 = NULL;
        if (want_res) {
            const int dm2 = -2;
            CT__DO(st, ct_tensor_narrow(ctx, x, -2, n, m - n, &tail));
            CT__DO(st, ct_tensor_narrow(ctx, tail, -1, 0, q, &r2));
            if (ct_dtype_is_complex(a->dtype)) { /* |r|^2, real as torch */
                ct_tensor *ab = NULL;
                CT__DO(st, ct_abs(ctx, r2, &ab));
                CT__DO(st, ct_mul(ctx, ab, ab, &sq));
                ct_tensor_release(ab);
            } else {
                CT__DO(st, ct_mul(ctx, r2, r2, &sq));
            }
            CT__DO(st, ct_sum(ctx, sq, 1, &dm2, false, res));
        } else {
            CT__DO(st, ct__empty1(ctx, a, ct_dtype_to_real(a->dtype), res));
        }
        if (drv == 0) {
            CT__DO(st, ct__empty1(ctx, a, CT_INT64, rank));
        } else if (st == CT_OK) {
            *rank = ct_tensor_retain(got[1]);
        }
        if (drv < 2) {
            CT__DO(st, ct__empty1(ctx, a, ct_dtype_to_real(a->dtype), sv));
        } else if (st == CT_OK) {
            *sv = ct_tensor_retain(got[2]);
        }
    }
    ct__release_all(4, got);
    ct_tensor_release(xn), ct_tensor_release(tail), ct_tensor_release(sq), ct_tensor_release(r2);
    if (st != CT_OK) {
        ct_tensor *all[4] = {*sol, *res, *rank, *sv};
        ct__release_all(4, all);
        *sol = *res = *rank = *sv = NULL;
    }
    return st;
}
static ct_status ct__lstsq_rec(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rcond,
                               int drv, ct_tensor **sol, ct_tensor **res, ct_tensor **rank,
                               ct_tensor **sv) {
    if (!ct__ag_enter(ctx)) return ct__lstsq(ctx, a, b, rcond, drv, sol, res, rank, sv);
    ct_status st = ct__lstsq(ctx, a, b, rcond, drv, sol, res, rank, sv);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK) r.op = CT__AG_LINALG_LSTSQ, r.n_in = 2, r.in[0] = a, r.in[1] = b;
    ct_status rs = ct__ag_after(ctx, st, &r, sol);
    if (rs != CT_OK && st == CT_OK) {
        ct_tensor *all[3] = {*res, *rank, *sv};
        ct__release_all(3, all);
        *res = *rank = *sv = NULL;
    }
    return rs;
}
ct_status ct_linalg_lstsq(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rcond,
                          const char *driver, ct_tensor **solution, ct_tensor **residuals,
                          ct_tensor **rank, ct_tensor **singular_values) {
    const char *op = "linalg.lstsq";
    ct_status st = ct__la_args2(ctx, op, "input", a, "other", b, solution);
    if (st != CT_OK) return st;
    *solution = NULL;
    if (residuals) *residuals = NULL;
    if (rank) *rank = NULL;
    if (singular_values) *singular_values = NULL;
    int drv = 1;
    if (driver) {
        drv = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(driver, ct__lstsq_drivers[i]) == 0) drv = i;
        if (drv < 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                                 "gelsy, gelsd, gelss), got \"%s\"",
                                 driver);
    }
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "torch.linalg.lstsq: input must have at least 2 dimensions.");
    if (b->ndim < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "torch.linalg.lstsq: other must have at least 1 dimension.");
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "torch.linalg.lstsq: Expected input and other to have the same dtype, "
                             "but got input's dtype %s and other's dtype %s",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if ((st = ct__la_float(ctx, op, "input", a)) != CT_OK) return st;
    const int diff = a->ndim - b->ndim;
    if (diff < 0 || diff > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "torch.linalg.lstsq: input.dim() must be greater or equal to "
                             "other.dim() and (input.dim() - other.dim()) <= 1");
    const int64_t m = a->shape[a->ndim - 2];
    if (b->shape[diff ? b->ndim - 1 : b->ndim - 2] != m)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "torch.linalg.lstsq: input.size(-2) should match "
                             "other.size(%d)",
                             diff ? -1 : -2);
    if (!(rcond >= 0) && !isnan(rcond)) rcond = -1; /* LAPACK: machine precision */
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *b2 = NULL, *ae = NULL, *be = NULL, *x = NULL, *res = NULL, *rk = NULL, *sv = NULL;
    if (diff)
        st = ct_tensor_unsqueeze(ctx, b, -1, &b2);
    else
        b2 = ct_tensor_retain((ct_tensor *)b);
    CT__DO(st, ct__la_bcast(ctx, op, a, 2, b2, 2, &ae, &be));
    CT__DO(st, ct__lstsq_rec(ctx, ae, be, rcond, drv, &x, &res, &rk, &sv));
    if (diff)
        CT__DO(st, ct_tensor_squeeze(ctx, x, -1, solution));
    else if (st == CT_OK)
        *solution = ct_tensor_retain(x);
    ct_tensor_release(b2), ct_tensor_release(ae), ct_tensor_release(be), ct_tensor_release(x);
    if (st == CT_OK) {
        if (residuals) *residuals = res, res = NULL;
        if (rank) *rank = rk, rk = NULL;
        if (singular_values) *singular_values = sv, sv = NULL;
    }
    ct_tensor_release(res), ct_tensor_release(rk), ct_tensor_release(sv);
    st = ct__error_within(ctx, op, st);
    return ct__ag_named(ctx, st, solution, mark, "LinalgLstsqBackward0");
}

/* ==== ldl_factor(_ex) / ldl_solve: Bunch-Kaufman sytrf / sytrs on the lower triangle, as torch
 * (complex: hetrf / hetrs when hermitian; real matrices: hermitian changes nothing). torch 1.13 has
 * no derivative for either: their floating results hang on a node that refuses backward (printed
 * NotImplemented), as torch. ==== */
static ct_status ct__ldl_factor_nograd(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                       const bool *need, ct_tensor **gin) {
    (void)user, (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "derivative for aten::linalg_ldl_factor_ex is not implemented (as torch)");
}
static ct_status ct__ldl_solve_nograd(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                      const bool *need, ct_tensor **gin) {
    (void)user, (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "derivative for aten::linalg_ldl_solve is not implemented (as torch)");
}
static const ct__ag_custom CT__LDL_FACTOR_FN = {"NotImplemented", ct__ldl_factor_nograd, NULL,
                                                false};
static const ct__ag_custom CT__LDL_SOLVE_FN = {"NotImplemented", ct__ldl_solve_nograd, NULL, false};

/* Hang *out on a refusing node when one of the n inputs requires grad (grad mode on). */
static ct_status ct__ldl_record(ct_ctx *ctx, const ct__ag_custom *fn, int n,
                                const ct_tensor *const *ins, ct_tensor **out) {
    if (!ct__ag_wants(ctx, n, ins)) return CT_OK;
    ct_status st = ct__ag_record_custom_n(ctx, fn, NULL, n, ins, out);
    return ct__ag_named(ctx, st, out, 0, "NotImplemented");
}

static ct_status ct__ldl_factor_any(ct_ctx *ctx, const char *op, const ct_tensor *a, bool hermitian,
                                    ct_tensor **LD, ct_tensor **piv, ct_tensor **info_out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (info_out) *info_out = NULL;
    if (!LD || !piv) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *LD = *piv = NULL;
    ct_status st = ct__check_tensor(ctx, op, "A", a);
    if (st != CT_OK) return st;
    if (a->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: A belongs to another context", op);
    if ((st = ct__la_square_check(ctx, op, "A", a)) != CT_OK) return st;
    if ((st = ct__la_float(ctx, op, "A", a)) != CT_OK) return st;
    ct_tensor *d = NULL, *info = NULL, *t[3] = {NULL, NULL, NULL};
    ct__la_in p;
    memset(&p, 0, sizeof p);
    st = ct_tensor_detach(ctx, a, &d); /* the refusing node is hung on afterwards */
    CT__DO(st, ct__la_prep(ctx, op, d, true, &p));
    const int64_t n = p.n, nn[2] = {p.n, p.n};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, nn, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 1, &n, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[2]));
    ct_tensor *outs4[4] = {t[0], t[1], t[2], NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_LDL_FACTOR, hermitian, outs4, NULL));
    ct_tensor_release(d);
    const bool cast[3] = {false, false, false};
    ct_tensor **const outs[3] = {LD, piv, &info};
    st = ct__la_finish(ctx, &p, st, 3, t, cast, outs);
    if (st == CT_OK && !info_out && !ct__any_capture(ctx)) { /* torch raises for info > 0 */
        const int64_t nb = ct_tensor_numel(info);
        int32_t *h = nb ? ct__alloc(ctx, sizeof(int32_t) * (size_t)nb, 16) : NULL;
        if (nb && !h) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        if (h) st = ct_tensor_to_host(info, h, sizeof(int32_t) * (size_t)nb);
        for (int64_t b = 0; h && st == CT_OK && b < nb; b++)
            if (h[b] != 0)
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "torch.linalg.ldl_factor: matrix %lld of the batch: D[%d, %d] "
                                   "is exactly zero, so D is singular (LAPACK info %d; torch "
                                   "1.13 raises 'Unknown error code: %d'); ldl_factor_ex "
                                   "returns the factors",
                                   (long long)b, (int)h[b], (int)h[b], (int)h[b], (int)h[b]);
        ct__free(ctx, h);
    }
    CT__DO(st, ct__ldl_record(ctx, &CT__LDL_FACTOR_FN, 1, &a, LD));
    if (st != CT_OK) {
        ct_tensor_release(*LD), ct_tensor_release(*piv), ct_tensor_release(info);
        *LD = *piv = NULL;
        return st;
    }
    if (info_out)
        *info_out = info;
    else
        ct_tensor_release(info);
    return CT_OK;
}
ct_status ct_linalg_ldl_factor(ct_ctx *ctx, const ct_tensor *a, bool hermitian, ct_tensor **LD,
                               ct_tensor **pivots) {
    return ct__error_within(
        ctx, "torch.linalg.ldl_factor",
        ct__ldl_factor_any(ctx, "torch.linalg.ldl_factor", a, hermitian, LD, pivots, NULL));
}
ct_status ct_linalg_ldl_factor_ex(ct_ctx *ctx, const ct_tensor *a, bool hermitian, ct_tensor **LD,
                                  ct_tensor **pivots, ct_tensor **info) {
    if (!info)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "torch.linalg.ldl_factor_ex: info is NULL")
                   : CT_ERR_INVALID_ARG;
    return ct__error_within(
        ctx, "torch.linalg.ldl_factor_ex",
        ct__ldl_factor_any(ctx, "torch.linalg.ldl_factor_ex", a, hermitian, LD, pivots, info));
}

/* LD (B, n, n), pivots (B, n) int32 and B (B, n, q), batch dims equal: X (B, n, q) */
static ct_status ct__ldl_solve(ct_ctx *ctx, const char *op, const ct_tensor *ld,
                               const ct_tensor *piv, const ct_tensor *b, bool hermitian,
                               ct_tensor **out) {
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, ld, true, &p);
    if (st != CT_OK) return st;
    const int64_t rc[2] = {p.n, b->shape[b->ndim - 1]}, ps[2] = {p.B, p.n};
    ct_tensor *b3 = NULL, *pc = NULL, *p2 = NULL, *t[1] = {NULL};
    st = ct__la_rhs(ctx, &p, b, rc[0], rc[1], &b3);
    CT__DO(st, ct_tensor_contiguous(ctx, piv, &pc));
    CT__DO(st, ct_tensor_reshape(ctx, pc, 2, ps, &p2));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, rc, &t[0]));
    ct_tensor *outs4[4] = {t[0], NULL, NULL, NULL};
    CT__DO(st, ct__la_submit3(ctx, &p, CT_LINALG_LDL_SOLVE, hermitian, 0, outs4, b3, p2));
    ct_tensor_release(b3), ct_tensor_release(pc), ct_tensor_release(p2);
    const bool cast[1] = {false};
    ct_tensor **const outs[1] = {out};
    return ct__la_finish(ctx, &p, st, 1, t, cast, outs);
}
ct_status ct_linalg_ldl_solve(ct_ctx *ctx, const ct_tensor *LD, const ct_tensor *pivots,
                              const ct_tensor *B, bool hermitian, ct_tensor **out) {
    const char *op = "torch.linalg.ldl_solve";
    ct_status st = ct__la_args2(ctx, op, "LD", LD, "B", B, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__check_tensor(ctx, op, "pivots", pivots)) != CT_OK) return st;
    if (pivots->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: pivots belongs to another context", op);
    if ((st = ct__la_square_check(ctx, op, "LD", LD)) != CT_OK) return st;
    if (B->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: The input tensor B must have at least 2 dimensions.", op);
    const int64_t n = LD->shape[LD->ndim - 1];
    bool same = pivots->ndim == LD->ndim - 1;
    for (int i = 0; same && i < pivots->ndim; i++)
        same = pivots->shape[i] == LD->shape[i];
    if (!same) {
        char s1[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                             "pivots with shape %s instead",
                             op, ct__shape_str(s1, sizeof s1, pivots->ndim, pivots->shape));
    }
    if (pivots->dtype != CT_INT32 && pivots->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: pivots must be int32 (or int64), got %s", op,
                             ct_dtype_name(pivots->dtype));
    if ((st = ct__la_float(ctx, op, "LD", LD)) != CT_OK) return st;
    if (B->dtype != LD->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected b and A to have the same dtype, but found b of type %s "
                             "and A of type %s instead.",
                             op, ct_dtype_name(B->dtype), ct_dtype_name(LD->dtype));
    if (B->shape[B->ndim - 2] != n)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "Incompatible matrix sizes for %s: each A matrix is %lld by %lld but "
                             "each b matrix is %lld by %lld",
                             op, (long long)n, (long long)n, (long long)B->shape[B->ndim - 2],
                             (long long)B->shape[B->ndim - 1]);
    ct_tensor *ld = NULL, *bd = NULL, *pv = NULL, *pu = NULL, *le = NULL, *be = NULL, *pe = NULL;
    st = ct_tensor_detach(ctx, LD, &ld);
    CT__DO(st, ct_tensor_detach(ctx, B, &bd));
    CT__DO(st, pivots->dtype == CT_INT32 ? (pv = ct_tensor_retain((ct_tensor *)pivots), CT_OK)
                                         : ct_cast(ctx, pivots, CT_INT32, &pv));
    CT__DO(st, ct_tensor_unsqueeze(ctx, pv, -1, &pu)); /* (..., n, 1) broadcasts as LD */
    CT__DO(st, ct__la_bcast(ctx, op, ld, 2, bd, 2, &le, &be));
    if (st == CT_OK) {
        int64_t ps[CT_MAX_DIMS];
        memcpy(ps, le->shape, sizeof(int64_t) * (size_t)le->ndim);
        ps[le->ndim - 1] = 1;
        ct_tensor *pe2 = NULL;
        st = ct_tensor_expand(ctx, pu, le->ndim, ps, &pe2);
        CT__DO(st, ct_tensor_squeeze(ctx, pe2, -1, &pe));
        ct_tensor_release(pe2);
    }
    CT__DO(st, ct__ldl_solve(ctx, op, le, pe, be, hermitian, out));
    const ct_tensor *ins[2] = {LD, B};
    CT__DO(st, ct__ldl_record(ctx, &CT__LDL_SOLVE_FN, 2, ins, out));
    ct_tensor_release(ld), ct_tensor_release(bd), ct_tensor_release(pv), ct_tensor_release(pu);
    ct_tensor_release(le), ct_tensor_release(be), ct_tensor_release(pe);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return ct__error_within(ctx, op, st);
}

/* ==== geqrf: LAPACK's compact QR (R and the Householder reflectors, tau), as torch.geqrf; torch
 * 1.13 has no derivative for it: the outputs hang on a node that refuses backward ==== */
static ct_status ct__geqrf_nograd(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    (void)user, (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "the derivative for 'geqrf' is not implemented (as torch)");
}
static const ct__ag_custom CT__GEQRF_FN = {"GeqrfBackward0", ct__geqrf_nograd, NULL, false};
ct_status ct_geqrf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **qr, ct_tensor **tau) {
    const char *op = "geqrf";
    ct_status st = ct__la_args2(ctx, op, "input", a, NULL, NULL, qr);
    if (st != CT_OK) return st;
    if (!tau) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: tau is NULL", op);
    *qr = *tau = NULL;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must have at least 2 dimensions, got %s",
                             op, CT__SHAPE_STR(a));
    if ((st = ct__la_float(ctx, op, "input", a)) != CT_OK) return st;
    ct_tensor *d = NULL, *t[2] = {NULL, NULL};
    ct__la_in p;
    memset(&p, 0, sizeof p);
    st = ct_tensor_detach(ctx, a, &d); /* the refusing node is hung on afterwards */
    CT__DO(st, ct__la_prep(ctx, op, d, false, &p));
    const int64_t k = p.m < p.n ? p.m : p.n, mn[2] = {p.m, p.n};
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 2, mn, &t[0]));
    CT__DO(st, ct__la_out(ctx, &p, p.cdt, 1, &k, &t[1]));
    ct_tensor *outs4[4] = {t[0], t[1], NULL, NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_GEQRF, 0, outs4, NULL));
    ct_tensor_release(d);
    const bool cast[2] = {false, false};
    ct_tensor **const outs[2] = {qr, tau};
    st = ct__la_finish(ctx, &p, st, 2, t, cast, outs);
    for (int i = 0; i < 2 && st == CT_OK && ct__ag_wants(ctx, 1, &a); i++) {
        ct_tensor **o = i ? tau : qr;
        st = ct__ag_record_custom_n(ctx, &CT__GEQRF_FN, NULL, 1, &a, o);
        st = ct__ag_named(ctx, st, o, 0, "GeqrfBackward0");
    }
    if (st != CT_OK) {
        ct_tensor_release(*qr), ct_tensor_release(*tau);
        *qr = *tau = NULL;
    }
    return ct__error_within(ctx, op, st);
}

/* ==== linalg.qr with a mode, linalg.svd with full_matrices ==== */
static ct_status ct__qr_r_nograd(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                 ct_tensor **gin) {
    (void)user, (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "The derivative of linalg.qr depends on Q, which is not computed when "
                         "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                         "differentiate through linalg.qr.");
}
static ct_status ct__qr_complete_nograd(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                        const bool *need, ct_tensor **gin) {
    (void)user, (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "The QR decomposition is not differentiable when mode='complete' and "
                         "nrows > ncols.");
}
static const ct__ag_custom CT__QR_R_FN = {"LinalgQrBackward", ct__qr_r_nograd, NULL, false};
static const ct__ag_custom CT__QR_COMPLETE_FN = {"LinalgQrBackward", ct__qr_complete_nograd, NULL,
                                                 false};

ct_status ct_linalg_qr_mode(ct_ctx *ctx, const ct_tensor *a, const char *mode, ct_tensor **Q,
                            ct_tensor **R) {
    const char *op = "linalg.qr";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!Q || !R) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *Q = *R = NULL;
    if (!mode) mode = "reduced";
    const bool reduced = strcmp(mode, "reduced") == 0, complete = strcmp(mode, "complete") == 0,
               ronly = strcmp(mode, "r") == 0;
    if (!reduced && !complete && !ronly)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "qr received unrecognized mode '%s' but expected one of 'reduced' "
                             "(default), 'r', or 'complete'",
                             mode);
    ct_status st = ct__check_tensor(ctx, op, "A", a);
    if (st != CT_OK) return st;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must have at least 2 dims, got %s", op,
                             CT__SHAPE_STR(a));
    const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
    if (reduced || (complete && m <= n)) /* complete is reduced there, gradient included */
        return ct__error_within(ctx, op, ct_linalg_qr(ctx, a, Q, R));
    /* mode 'r', or complete of a tall matrix: computed without a node, then hung on one that
     * refuses backward with torch's message (torch raises in backward) */
    const bool rec = ct__ag_wants(ctx, 1, &a);
    ct_tensor *d = NULL, *q = NULL;
    st = ct_tensor_detach(ctx, a, &d);
    CT__DO(st, ct__qr(ctx, d, complete, &q, R));
    ct_tensor_release(d);
    if (st == CT_OK && ronly) { /* Q is an empty (0,) tensor, as torch */
        const int64_t zero = 0;
        ct_tensor_release(q), q = NULL;
        st = ct_tensor_zeros(ctx, a->dtype, 1, &zero, &q);
    }
    const ct__ag_custom *fn = ronly ? &CT__QR_R_FN : &CT__QR_COMPLETE_FN;
    if (st == CT_OK && rec) {
        st = ct__ag_record_custom(ctx, fn, NULL, a, R);
        ct__ag_named(ctx, st, R, 0, "LinalgQrBackward0");
        if (st == CT_OK && complete) {
            st = ct__ag_record_custom(ctx, fn, NULL, a, &q);
            ct__ag_named(ctx, st, &q, 0, "LinalgQrBackward0");
        }
    }
    if (st != CT_OK) {
        ct_tensor_release(q), ct_tensor_release(*R);
        *R = NULL;
        return ct__error_within(ctx, op, st);
    }
    *Q = q;
    return CT_OK;
}

/* full_matrices of a non-square matrix: one gesdd 'A'; under autograd the first min(m, n)
 * columns of U / rows of Vh are copied out and recorded as the reduced SVD's node, and the rest
 * joined on without a gradient, which is torch's formula (svd_backward of the narrowed gU, gVh) */
ct_status ct_linalg_svd_full(ct_ctx *ctx, const ct_tensor *a, bool full_matrices, ct_tensor **U,
                             ct_tensor **S, ct_tensor **Vh) {
    const char *op = "linalg.svd";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (U) *U = NULL;
    if (Vh) *Vh = NULL;
    if (!S) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: S is NULL", op);
    *S = NULL;
    ct_status st = ct__check_tensor(ctx, op, "A", a);
    if (st != CT_OK) return st;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must have at least 2 dims, got %s", op,
                             CT__SHAPE_STR(a));
    const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = m < n ? m : n;
    if (!full_matrices || m == n) return ct_linalg_svd(ctx, a, U, S, Vh);
    const bool rec = ct__ag_wants(ctx, 1, &a);
    ct_tensor *d = NULL, *uf = NULL, *s = NULL, *vf = NULL, *t[6] = {NULL};
    st = ct_tensor_detach(ctx, a, &d);
    CT__DO(st, ct__svd(ctx, d, true, &uf, &s, &vf));
    ct_tensor_release(d);
    if (st == CT_OK && rec) {
        ct_tensor *ur = NULL, *vr = NULL;
        if (ct__ag_enter(ctx)) { /* depth > 0: the copies record nothing */
            st = ct_tensor_narrow(ctx, uf, -1, 0, k, &t[0]);
            CT__DO(st, ct_tensor_contiguous(ctx, t[0], &ur));
            CT__DO(st, ct_tensor_narrow(ctx, vf, -2, 0, k, &t[1]));
            CT__DO(st, ct_tensor_contiguous(ctx, t[1], &vr));
            ct__ag_rec r;
            memset(&r, 0, sizeof r);
            if (st == CT_OK) {
                r.op = CT__AG_LINALG_SVD, r.n_in = 1, r.in[0] = a;
                r.n_out = 3, r.out[0] = ur, r.out[1] = s, r.out[2] = vr;
            }
            ct_status rs = ct__ag_after(ctx, st, &r, &s);
            if (rs != CT_OK && st == CT_OK) ur = vr = NULL; /* the failed record released them */
            st = rs;
        }
        uint64_t mark = ct__ag_mark(ctx);
        ct_tensor *nu = NULL, *nv = NULL;
        if (st == CT_OK && m > n) { /* U = [U_r, the other columns without a gradient] */
            CT__DO(st, ct_tensor_narrow(ctx, uf, -1, k, m - k, &t[2]));
            const ct_tensor *parts[2] = {ur, t[2]};
            CT__DO(st, ct_cat(ctx, 2, parts, -1, &nu));
            ct__ag_named(ctx, st, &nu, mark, "LinalgSvdBackward0");
            nv = vr, vr = NULL;
        } else if (st == CT_OK) {
            CT__DO(st, ct_tensor_narrow(ctx, vf, -2, k, n - k, &t[3]));
            const ct_tensor *parts[2] = {vr, t[3]};
            CT__DO(st, ct_cat(ctx, 2, parts, -2, &nv));
            ct__ag_named(ctx, st, &nv, mark, "LinalgSvdBackward0");
            nu = ur, ur = NULL;
        }
        ct_tensor_release(ur), ct_tensor_release(vr);
        ct_tensor_release(uf), ct_tensor_release(vf);
        uf = nu, vf = nv;
    }
    ct__release_all(6, t);
    if (st != CT_OK) {
        ct_tensor_release(uf), ct_tensor_release(s), ct_tensor_release(vf);
        return ct__error_within(ctx, op, st);
    }
    *S = s;
    if (U)
        *U = uf;
    else
        ct_tensor_release(uf);
    if (Vh)
        *Vh = vf;
    else
        ct_tensor_release(vf);
    return CT_OK;
}

/* ---- linalg.eig / eigvals: complex results (geev) ---- */
static ct_status ct__eig(ct_ctx *ctx, const char *op, const ct_tensor *a, ct_tensor **values,
                         ct_tensor **vectors) {
    if (!values) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    ct__la_in p;
    ct_status st = ct__la_prep(ctx, op, a, true, &p);
    const bool cin = st == CT_OK && ct_dtype_is_complex(a->dtype); /* complex input: geev of c/z */
    if (st == CT_OK && !cin && a->dtype != CT_FLOAT32 && a->dtype != CT_FLOAT64)
        st = ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected float32 or float64 input, got %s", op,
                           ct_dtype_name(a->dtype));
    ct_tensor *t[3] = {NULL, NULL, NULL}, *part[2] = {NULL, NULL};
    const ct_dtype cx = ct_dtype_to_complex(p.cdt);
    int64_t nn[2] = {p.n, p.n};
    CT__DO(st, ct__la_out(ctx, &p, cx, 1, nn, &t[0]));
    if (vectors) CT__DO(st, ct__la_out(ctx, &p, cx, 2, nn, &t[1]));
    CT__DO(st, ct__la_out(ctx, &p, CT_INT32, 0, NULL, &t[2]));
    if (!cin) CT__DO(st, ct__cx_part(ctx, t[0], 0, &part[0]));
    if (vectors && !cin) CT__DO(st, ct__cx_part(ctx, t[1], 0, &part[1]));
    ct_tensor *outs4[4] = {cin ? t[0] : part[0], cin ? t[1] : part[1], t[2], NULL};
    CT__DO(st, ct__la_submit(ctx, &p, CT_LINALG_EIG, vectors != NULL, outs4, NULL));
    ct__release_all(2, part);
    if (st == CT_OK && !ct__any_capture(ctx) && p.B > 0) { /* eagerly, as torch raises */
        int32_t *h = ct__alloc(ctx, sizeof(int32_t) * (size_t)p.B, 16);
        st = h ? ct_tensor_to_host(t[2], h, sizeof(int32_t) * (size_t)p.B)
               : ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        for (int64_t b = 0; st == CT_OK && b < p.B; b++)
            if (h[b] == -1)
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: input tensor should not contain infs or NaNs (matrix %lld "
                                   "of the batch)",
                                   op, (long long)b);
            else if (h[b] != 0)
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: matrix %lld of the batch did not converge (LAPACK info "
                                   "%d: the QR algorithm failed)",
                                   op, (long long)b, (int)h[b]);
        ct__free(ctx, h);
    }
    const bool cast[3] = {false, false, false};
    ct_tensor **const outs[3] = {values, vectors, NULL};
    return ct__la_finish(ctx, &p, st, 3, t, cast, outs);
}
/* one node with both outputs (LinalgEigBackward0; eigvals computes the vectors for it, as
 * torch) */
static ct_status ct__eig_rec(ct_ctx *ctx, const char *op, const ct_tensor *a, ct_tensor **values,
                             ct_tensor **vectors) {
    if (!ct__ag_enter(ctx)) return ct__eig(ctx, op, a, values, vectors);
    ct_tensor *v = NULL;
    ct_status st = ct__eig(ctx, op, a, values, &v);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK)
        r.op = CT__AG_LINALG_EIG, r.n_in = 1, r.in[0] = a, r.n_out = 2, r.out[0] = *values,
        r.out[1] = v;
    st = ct__ag_after(ctx, st, &r, values);
    if (st != CT_OK) return st; /* a failed record released both */
    if (vectors)
        *vectors = v;
    else
        ct_tensor_release(v);
    return CT_OK;
}
ct_status ct_linalg_eig(ct_ctx *ctx, const ct_tensor *a, ct_tensor **eigenvalues,
                        ct_tensor **eigenvectors) {
    if (ctx && !eigenvectors)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.eig: eigenvectors is NULL");
    return ct__eig_rec(ctx, "linalg.eig", a, eigenvalues, eigenvectors);
}
ct_status ct_linalg_eigvals(ct_ctx *ctx, const ct_tensor *a, ct_tensor **eigenvalues) {
    return ct__eig_rec(ctx, "linalg.eigvals", a, eigenvalues, NULL);
}

/* linalg.eigh front end: validation, batching over any strides and dtypes (through a contiguous
 * copy in the compute dtype), outputs and workspace allocated as tensors, then one CT_OP_EIGH
 * descriptor through the dispatch point (so it is captured like every op). The CPU kernel
 * (backends/cpu/eigh_cpu.c) picks the solver by n and dtype and splits the batch over OpenMP; a
 * CUDA backend would implement CT_OP_EIGH with cusolverDnXsyevBatched. */
#include "ctorch/linalg.h"

#include <ctype.h>
#include <lapacke.h>
#include <string.h>

#include "backends/cpu/eigh_cpu.h"
#include "linalg/linalg_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

static ct_status eigh_impl(ct_ctx *ctx, const char *op, const ct_tensor *a, char uplo,
                           ct_tensor **w_out, ct_tensor **v_out, ct_tensor **info_out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (ct__check_tensor(ctx, op, "input", a) != CT_OK) return CT_ERR_INVALID_ARG;
    if (!w_out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL output", op);
    if (a->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input belongs to another context", op);
    if (uplo != 'L' && uplo != 'U' && uplo != 'l' && uplo != 'u')
        return isprint((unsigned char)uplo)
                   ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: uplo must be 'L' or 'U', got '%c'",
                                   op, uplo)
                   : ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: uplo must be 'L' or 'U', got character code %d", op,
                                   (int)(unsigned char)uplo);
    const int upper = uplo == 'U' || uplo == 'u';
    const int nd = ct_tensor_ndim(a);
    const int64_t *shape = ct_tensor_shape(a);
    if (nd < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input must have at least 2 dims (..., n, n), got %d", op, nd);
    if (shape[nd - 1] != shape[nd - 2])
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: matrices must be square, got %lld x %lld", op,
                             (long long)shape[nd - 2], (long long)shape[nd - 1]);
    const ct_dtype dt = ct_tensor_dtype(a);
    if (ct_dtype_is_complex(dt)) /* Hermitian: LAPACK's heevd per matrix (dense.c) */
        return ct__linalg_eigh_cx(ctx, op, a, upper, w_out, v_out, info_out);
    ct_dtype cdt;
    if (dt == CT_FLOAT32 || dt == CT_FLOAT64)
        cdt = dt;
    else if (dt == CT_FLOAT16 || dt == CT_BFLOAT16)
        cdt = CT_FLOAT32;
    else
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: input dtype %s not supported (float16, bfloat16, float32, "
                             "float64, complex64, complex128)",
                             op, ct_dtype_name(dt));
    if (ct_tensor_device(a).type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "%s: only CPU tensors are supported", op);
    const int64_t n64 = shape[nd - 1];
    if (n64 > 46340) /* n*n must fit the kernels' int arithmetic */
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: n = %lld is too large", op, (long long)n64);
    const int n = (int)n64;
    size_t lwork;
    if (ct__eigh_choose_path(n, cdt == CT_FLOAT64 ? 8 : 4) == CT__EIGH_PATH_LAPACK &&
        !ct__eigh_lapack_fits(n, v_out != NULL, &lwork))
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: n = %d needs a LAPACK workspace of %zu elements, more than "
                             "lapack_int holds (%lld)",
                             op, n, lwork,
                             (long long)(sizeof(lapack_int) >= 8 ? INT64_MAX : INT32_MAX));
    int64_t batch = 1;
    for (int i = 0; i < nd - 2; i++)
        if (!ct__checked_mul(batch, shape[i], &batch))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: batch size overflows", op);

    ct_status st;
    ct_tensor *w = NULL, *v = NULL, *info = NULL, *ac = NULL, *wc = NULL, *vc = NULL, *work = NULL;
    int64_t wshape[CT_MAX_DIMS];
    memcpy(wshape, shape, sizeof(int64_t) * (size_t)(nd - 1));
    if ((st = ct_tensor_empty(ctx, dt, nd - 1, wshape, &w))) goto fail;
    if (v_out && (st = ct_tensor_empty(ctx, dt, nd, shape, &v))) goto fail;
    if (info_out && (st = ct_tensor_zeros(ctx, CT_INT32, nd - 2, shape, &info))) goto fail;

    if (batch > 0 && n > 0) {
        /* Input as contiguous compute-dtype data: the tensor itself when it already is. */
        if (cdt == dt && ct_tensor_is_contiguous(a)) {
            ac = ct_tensor_retain((ct_tensor *)a);
        } else {
            if ((st = ct_tensor_empty(ctx, cdt, nd, shape, &ac))) goto fail;
            if ((st = ct_tensor_copy_(ctx, ac, a))) goto fail;
        }
        if (cdt == dt) {
            wc = ct_tensor_retain(w);
            vc = v ? ct_tensor_retain(v) : NULL;
        } else {
            if ((st = ct_tensor_empty(ctx, cdt, nd - 1, wshape, &wc))) goto fail;
            if (v && (st = ct_tensor_empty(ctx, cdt, nd, shape, &vc))) goto fail;
        }
        /* workspace: LAPACK's, or the lane kernels' above their stack limit, per thread */
        const ct__eigh_plan plan =
            ct__eigh_plan_for(cdt == CT_FLOAT64, n, batch, v != NULL, ct__ctx_threads(ctx));
        if (plan.work_bytes) {
            int64_t wb = (int64_t)(plan.work_bytes * (size_t)plan.nt);
            if ((st = ct_tensor_empty(ctx, CT_UINT8, 1, &wb, &work))) goto fail;
        }
        const int64_t bshape[3] = {batch, n, n};
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_EIGH, 3, 2);
        d.compute_dtype = cdt;
        ct__operand_contig(&d.operands[0], wc, 2, bshape);
        if (vc) ct__operand_contig(&d.operands[1], vc, 3, bshape);
        if (info) ct__operand_contig(&d.operands[2], info, 1, bshape);
        ct__operand_contig(&d.operands[3], ac, 3, bshape);
        if (work) ct__operand_contig(&d.operands[4], work, 1, ct_tensor_shape(work));
        d.ints[0] = upper;
        d.ints[1] = dt == CT_FLOAT16;
        d.ints[2] = v_out ? (info_out ? 2 : 0) : (info_out ? 2 : 1);
        if ((st = ct__submit(ctx, ct_tensor_device(a), &d))) goto fail;
        if (cdt != dt) {
            if ((st = ct_tensor_copy_(ctx, w, wc))) goto fail;
            if (v && (st = ct_tensor_copy_(ctx, v, vc))) goto fail;
        }
    }
    ct_tensor_release(ac);
    ct_tensor_release(wc);
    ct_tensor_release(vc);
    ct_tensor_release(work);
    *w_out = w;
    if (v_out) *v_out = v;
    if (info_out) *info_out = info;
    return CT_OK;
fail:
    ct_tensor_release(ac);
    ct_tensor_release(wc);
    ct_tensor_release(vc);
    ct_tensor_release(work);
    ct_tensor_release(w);
    ct_tensor_release(v);
    ct_tensor_release(info);
    return st;
}

/* eigh_impl recording one tape node (outputs eigenvalues and eigenvectors) when a requires grad;
 * the eigenvectors are computed for the formula even when the caller skips them. */
static ct_status eigh_rec(ct_ctx *ctx, const char *op, const ct_tensor *a, char uplo,
                          ct_tensor **w_out, ct_tensor **v_out, ct_tensor **info_out) {
    const ct_tensor *in[1] = {a};
    if (!ct__ag_wants(ctx, 1, in)) return eigh_impl(ctx, op, a, uplo, w_out, v_out, info_out);
    const bool entered = ct__ag_enter(ctx); /* wants implies the hooks: always entered */
    CT_ASSERT(entered);
    (void)entered;
    ct_tensor *v = NULL;
    ct_status st = eigh_impl(ctx, op, a, uplo, w_out, &v, info_out);
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    const bool ran = st == CT_OK;
    if (ran)
        r.op = CT__AG_LINALG_EIGH, r.n_in = 1, r.in[0] = a, r.n_out = 2, r.out[0] = *w_out,
        r.out[1] = v;
    st = ct__ag_after(ctx, st, &r, w_out);
    if (st != CT_OK) { /* a failed record released both outputs; info goes too */
        if (ran && info_out) {
            ct_tensor_release(*info_out);
            *info_out = NULL;
        }
        return st;
    }
    if (v_out)
        *v_out = v;
    else
        ct_tensor_release(v);
    return CT_OK;
}

ct_status ct_linalg_eigh(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues,
                         ct_tensor **eigenvectors) {
    if (ctx && !eigenvectors)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.eigh: NULL eigenvectors output");
    return eigh_rec(ctx, "linalg.eigh", a, uplo, eigenvalues, eigenvectors, NULL);
}

ct_status ct_linalg_eigvalsh(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues) {
    return eigh_rec(ctx, "linalg.eigvalsh", a, uplo, eigenvalues, NULL, NULL);
}

ct_status ct_linalg_eigh_ex(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues,
                            ct_tensor **eigenvectors, ct_tensor **info) {
    if (ctx && !info)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.eigh_ex: NULL info output");
    return eigh_rec(ctx, "linalg.eigh_ex", a, uplo, eigenvalues, eigenvectors, info);
}

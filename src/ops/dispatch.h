/* Shared op front-end helpers (promotion, dtype conversion, contiguous operands) on top of the
 * dispatch point (dispatch/dispatch.h) and the tensor helpers (tensor/tensor_impl.h). */
#ifndef CTORCH_OPS_DISPATCH_H
#define CTORCH_OPS_DISPATCH_H

#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"

#include <string.h>

/* Operand o = contiguous tensor t seen with (ndim, shape) (same element count; domain ops pass
 * flattened batches, e.g. eigh's (B, n, n)). */
static inline void ct__operand_contig(ct_operand *o, const ct_tensor *t, int ndim,
                                      const int64_t *shape) {
    o->data = ct__tensor_ptr(t);
    o->dtype = t->dtype;
    o->ndim = ndim;
    o->tensor = (ct_tensor *)t;
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        o->shape[i] = shape[i];
        o->strides[i] = s;
        s *= shape[i];
    }
}
/* A live tensor of this context (what: its name in messages), and with cpu_only on the CPU:
 * the checks the domain front ends (mx, sparse, attention) make of each argument. */
static inline ct_status ct__own_tensor(ct_ctx *ctx, const char *op, const char *what,
                                       const ct_tensor *t, bool cpu_only) {
    ct_status st = ct__check_tensor(ctx, op, what, t);
    if (st != CT_OK) return st;
    if (t->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s belongs to another context", op,
                             what);
    if (cpu_only && t->storage->device.type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_DEVICE, "%s: %s must be on the CPU", op, what);
    return CT_OK;
}
/* CT_OK, or CT_ERR_INVALID_ARG naming op and what ("alpha") when the Scalar parameter v does not
 * convert to dt as c10 checks it (ct__scalar_fits_dtype; an integral v stands for an int). With
 * opmath, f16 / bf16 kernels take the parameter in float (torch's opmath_t: addcmul's value,
 * lerp's weight, softplus, leaky_relu, elu, addmm), so it is checked against f32. */
static inline ct_status ct__check_scalar_param(ct_ctx *ctx, const char *op, const char *what,
                                               ct_dtype dt, double v, bool opmath) {
    if (opmath && (dt == CT_FLOAT16 || dt == CT_BFLOAT16)) dt = CT_FLOAT32;
    dt = ct_dtype_to_real(dt); /* a complex dtype holds what its parts hold */
    if (ct__scalar_fits_dtype(dt, v, true)) return CT_OK;
    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                         "%s: %s %g cannot be converted to %s without overflow", op, what, v,
                         ct_dtype_name(dt));
}
/* torch.result_type over n tensors (dimensioned tensors take precedence over 0-d ones in the same
 * category). CT_ERR_DTYPE for dtypes ops do not compute in (fp8/fp6/fp4/e8m0). */
ct_status ct__result_type(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                          ct_dtype *out);
/* A copy of t with out[..index[i]..] = out[..] op src[i] along dim, op 3 multiply, 4 max, 5 min
 * (NaN wins), in C order of index; no autograd record (scatter_reduce's front end records). */
ct_status ct__scatter_reduce_raw(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                                 const ct_tensor *index, const ct_tensor *src, int mode,
                                 ct_tensor **out);
/* *out = t if dtype matches (retained), else a converted copy. */
ct_status ct__to_dtype(ct_ctx *ctx, const ct_tensor *t, ct_dtype dt, ct_tensor **out);
/* ct__one_input accepting complex tensors too (the data-movement and creation ops). */
ct_status ct__one_input_any(ct_ctx *ctx, const char *op, const ct_tensor *t, void *out);
/* torch's canCast order of dtype categories: bool 0 < integer 1 < floating 2 < complex 3 (a
 * result never casts down it into an in-place destination). */
static inline int ct__cast_category(ct_dtype dt) {
    return dt == CT_BOOL ? 0 : ct_dtype_is_complex(dt) ? 3 : ct_dtype_is_floating(dt) ? 2 : 1;
}
/* CT_ERR_INVALID_ARG when t, a destination of a write, is expanded (a stride 0 over a dim longer
 * than 1: torch's "unsupported operation: ... refer to a single memory location"). */
ct_status ct__check_no_overlap(ct_ctx *ctx, const char *op, const ct_tensor *t);
/* A mask or condition of dtype uint8 (torch's deprecated ByteTensor masks) as a new bool tensor in
 * *b; any other dtype: *b = NULL and CT_OK (the op checks it). */
ct_status ct__byte_mask(ct_ctx *ctx, const ct_tensor *mask, ct_tensor **b);
/* The checks of a one-input op: live tensor of ctx, out not NULL, a compute dtype (not a storage
 * format such as fp8), each failure named after op. */
ct_status ct__one_input(ct_ctx *ctx, const char *op, const ct_tensor *t, void *out);
/* The gradient of cumprod(x) along d for the output gradient g (floating x; exact with zeros: no
 * division). Not itself differentiable (cumprod has no double backward). */
ct_status ct__cumprod_grad(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *g, int d,
                           ct_tensor **out);

#endif

/* The one dispatch point of every op: build a ct_op_desc and submit it to the current stream of
 * the device; plus shared front-end helpers (broadcasting, promotion, temporaries). */
#ifndef CTORCH_OPS_DISPATCH_H
#define CTORCH_OPS_DISPATCH_H

#include "tensor/tensor_impl.h"

#include <string.h>

/* Reset a descriptor. Operands are cleared only in their header fields (data, dtype, ndim,
 * tensor): shape/stride arrays are written by ct__operand_set/broadcast before anyone reads them,
 * and skipping ~600 bytes of memset is a measurable part of tiny-op dispatch. */
static inline void ct__desc_init(ct_op_desc *d, ct_op_kind kind, int n_out, int n_in) {
    d->kind = kind;
    d->n_out = n_out;
    d->n_in = n_in;
    for (int i = 0; i < CT_OP_MAX_OPERANDS; i++) {
        d->operands[i].data = NULL;
        d->operands[i].dtype = CT_FLOAT32;
        d->operands[i].ndim = 0;
        d->operands[i].tensor = NULL;
    }
    d->compute_dtype = CT_FLOAT32;
    for (int i = 0; i < 4; i++) {
        d->scalars[i] = 0;
        d->ints[i] = 0;
    }
    d->reduce_mask = 0;
    d->num_threads = 1;
}
/* Operand `i` of d viewed with t's strides broadcast to (ndim, shape) (stride 0 on broadcast dims).
 */
void ct__operand_broadcast(ct_operand *o, const ct_tensor *t, int ndim, const int64_t *shape);
/* Submit d to the current stream of dev (sets num_threads). Records an error message on failure. */
ct_status ct__submit(ct_ctx *ctx, ct_device dev, ct_op_desc *d);
/* Broadcast shapes of n tensors (as torch.broadcast_shapes); CT_ERR_SHAPE naming them on failure.
 */
ct_status ct__broadcast_shapes(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                               int *ndim, int64_t *shape);
/* torch.result_type over n tensors (dimensioned tensors take precedence over 0-d ones in the same
 * category). CT_ERR_DTYPE for dtypes ops do not compute in (fp8/fp6/fp4/e8m0). */
ct_status ct__result_type(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                          ct_dtype *out);
/* *out = t if dtype matches (retained), else a converted copy. */
ct_status ct__to_dtype(ct_ctx *ctx, const ct_tensor *t, ct_dtype dt, ct_tensor **out);
/* Common argument checks: non-NULL, same context and device. */
ct_status ct__check_args(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts, void *out);
/* True for the dtypes kernels compute in (bool, ints, f16, bf16, f32, f64). */
static inline bool ct__is_compute_dtype(ct_dtype dt) { return dt >= CT_BOOL && dt <= CT_FLOAT64; }

#endif

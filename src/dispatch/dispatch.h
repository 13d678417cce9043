/* The dispatch point of every op, below tensor/: descriptors are submitted to the current stream of
 * their device; an eager stream hands them to the backend's run_op, a capturing one to the graph's
 * record hook (ct__capture). Only function pointers the higher layers registered are called from
 * here (backend vtables, the capture hook), so tensor/, ops/ and every domain module can submit
 * work without any of them including another. */
#ifndef CTORCH_DISPATCH_H
#define CTORCH_DISPATCH_H

#include "core/ctx_impl.h"

#include <string.h>

/* Reset a descriptor. Only the operands the op uses (n_out + n_in) are cleared, and only in their
 * header fields (data, dtype, ndim, tensor): nothing reads operands past that count, shape/stride
 * arrays are written by ct__operand_set/broadcast before anyone reads them, and skipping ~900
 * bytes of memset is a measurable part of tiny-op dispatch. */
static inline void ct__desc_init(ct_op_desc *d, ct_op_kind kind, int n_out, int n_in) {
    d->kind = kind;
    d->n_out = n_out;
    d->n_in = n_in;
    for (int i = 0; i < n_out + n_in && i < CT_OP_MAX_OPERANDS; i++) {
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
/* Submit d to the current stream of dev (sets num_threads). Records an error message on failure. */
ct_status ct__submit(ct_ctx *ctx, ct_device dev, ct_op_desc *d);
/* ct_stream_submit without the descriptor validation (the op front ends build valid ones; the
 * public entry checks callers' descriptors first). */
ct_status ct__stream_submit(ct_stream *s, const ct_op_desc *op);
/* Backend slot of a device type, or NULL (with an error recorded) if none is registered. */
ct__backend_slot *ct__backend_for(ct_ctx *ctx, ct_device dev);
/* A capture active anywhere in the context (for host-read checks), or NULL. */
ct__capture *ct__any_capture(ct_ctx *ctx);
/* For calls that move data between the host and tensors outside the stream (GGUF import/export):
 * CT_OK outside capture; during a capture, CT_ERR_UNSUPPORTED with a message naming `op`, and the
 * capture is invalidated. No op that computes uses it: every op is a descriptor. */
ct_status ct__refuse_capture(ct_ctx *ctx, const char *op);
/* True for the dtypes kernels compute in (bool, ints, f16, bf16, f32, f64). */
static inline bool ct__is_compute_dtype(ct_dtype dt) { return dt >= CT_BOOL && dt <= CT_FLOAT64; }

#endif

/* Dispatch point and front-end helpers shared by every op. */
#include "ops/dispatch.h"
#include "ctorch/ops.h"

void ct__operand_broadcast(ct_operand *o, const ct_tensor *t, int ndim, const int64_t *shape) {
    o->data = ct__tensor_ptr(t);
    o->dtype = t->dtype;
    o->ndim = ndim;
    o->tensor = (ct_tensor *)t;
    int lead = ndim - t->ndim;
    for (int i = 0; i < ndim; i++) {
        o->shape[i] = shape[i];
        int j = i - lead;
        o->strides[i] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j];
    }
}

ct_status ct__submit(ct_ctx *ctx, ct_device dev, ct_op_desc *d) {
    ct__backend_slot *b = ct__backend_for(ctx, dev);
    if (!b) return CT_ERR_DEVICE;
    d->num_threads = ctx->num_threads;
    ct_stream *s = b->current ? b->current : b->default_stream;
    return ct__stream_submit(s, d);
}

ct_status ct__broadcast_shapes(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                               int *ndim, int64_t *shape) {
    int nd = 0;
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim > nd) nd = ts[i]->ndim;
    int owner[CT_MAX_DIMS]; /* which input set each dim (for the message) */
    for (int d = 0; d < nd; d++) {
        shape[d] = 1;
        owner[d] = 0;
    }
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        int lead = nd - t->ndim;
        for (int j = 0; j < t->ndim; j++) {
            int64_t s = t->shape[j], *r = &shape[lead + j];
            if (s == *r || s == 1) continue;
            if (*r == 1) {
                *r = s;
                owner[lead + j] = i;
                continue;
            }
            /* name the pair that fails: the input that set this dim and input i */
            const ct_tensor *o = ts[owner[lead + j]];
            char b0[96], b1[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: shapes %s (input %d) and %s (input %d) do not broadcast (dim "
                                 "%d: %lld vs %lld)",
                                 op, ct__shape_str(b0, sizeof b0, o->ndim, o->shape),
                                 owner[lead + j], ct__shape_str(b1, sizeof b1, t->ndim, t->shape),
                                 i, lead + j, (long long)*r, (long long)s);
        }
    }
    *ndim = nd;
    return CT_OK;
}

static int ct__category(ct_dtype dt) {
    if (dt == CT_BOOL) return 0;
    if (dt <= CT_INT64) return 1;
    return 2;
}

ct_status ct__result_type(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                          ct_dtype *out) {
    /* Two tiers: tensors with dims, then 0-d tensors; a 0-d tensor only matters when its
     * category (bool < int < float) is higher than every dimensioned tensor's. */
    int have[2] = {0, 0};
    ct_dtype tier[2] = {CT_BOOL, CT_BOOL};
    for (int i = 0; i < n; i++) {
        ct_dtype dt = ts[i]->dtype;
        if (!ct__is_compute_dtype(dt))
            return ct__set_error(
                ctx, CT_ERR_DTYPE,
                "%s: dtype %s is a storage format; cast it to a compute dtype first", op,
                ct_dtype_name(dt));
        int k = ts[i]->ndim == 0 ? 1 : 0;
        if (!have[k]) {
            tier[k] = dt;
            have[k] = 1;
        } else {
            ct_status st = ct_dtype_promote(tier[k], dt, &tier[k]);
            if (st != CT_OK) return ct__set_error(ctx, st, "%s: cannot promote dtypes", op);
        }
    }
    if (!have[0]) {
        *out = tier[1];
    } else if (have[1] && ct__category(tier[1]) > ct__category(tier[0])) {
        *out = tier[1]; /* e.g. int32 tensor + 0-d float64 tensor -> float64 */
    } else {
        *out = tier[0];
    }
    return CT_OK;
}

ct_status ct__to_dtype(ct_ctx *ctx, const ct_tensor *t, ct_dtype dt, ct_tensor **out) {
    if (t->dtype == dt) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    return ct_cast(ctx, t, dt, out);
}

ct_status ct__check_args(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                         void *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    for (int i = 0; i < n; i++) {
        if (!ts[i]) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input %d is NULL", op, i);
        if (ts[i]->magic != CT__TENSOR_MAGIC)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: input %d is not a live tensor (used after "
                                 "ct_tensor_release)",
                                 op, i);
        if (ts[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input %d belongs to another context",
                                 op, i);
        if (i > 0 && (ts[i]->storage->device.type != ts[0]->storage->device.type ||
                      ts[i]->storage->device.index != ts[0]->storage->device.index)) {
            char d1[CT_DEVICE_NAME_MAX], d2[CT_DEVICE_NAME_MAX];
            ct__set_error(ctx, CT_ERR_DEVICE, "%s: input %d is on device %s, input 0 on %s", op, i,
                          ct_device_format(ctx, ts[i]->storage->device, d1, sizeof d1),
                          ct_device_format(ctx, ts[0]->storage->device, d2, sizeof d2));
            ct__capture *cap = ct__any_capture(ctx);
            if (cap) cap->invalidate(cap, CT_ERR_DEVICE, ctx->err);
            return CT_ERR_DEVICE;
        }
    }
    return CT_OK;
}

/* Front-end helpers shared by the ops: torch.result_type and dtype conversion. */
#include "ops/dispatch.h"
#include "ctorch/ops.h"

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
        if (ct_dtype_is_complex(dt))
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "%s: not supported for complex tensors (%s) yet; view_as_real "
                                 "gives the real pairs",
                                 op, ct_dtype_name(dt));
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

ct_status ct__one_input_any(ct_ctx *ctx, const char *op, const ct_tensor *t, void *out) {
    const ct_tensor *ts[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ts, out);
    if (st == CT_OK && !ct__is_compute_dtype(t->dtype) && !ct_dtype_is_complex(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", op,
                             ct_dtype_name(t->dtype));
    return st;
}

ct_status ct__one_input(ct_ctx *ctx, const char *op, const ct_tensor *t, void *out) {
    const ct_tensor *ts[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ts, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(t->dtype))
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: not supported for complex tensors (%s) yet; view_as_real gives "
                             "the real pairs",
                             op, ct_dtype_name(t->dtype));
    if (!ct__is_compute_dtype(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", op,
                             ct_dtype_name(t->dtype));
    return CT_OK;
}

ct_status ct__check_no_overlap(ct_ctx *ctx, const char *op, const ct_tensor *t) {
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->shape[i] > 1)
            return ct__set_error(
                ctx, CT_ERR_INVALID_ARG,
                "%s: the destination has internal overlap (dim %d of size %lld has "
                "stride 0); write into a contiguous tensor (clone) instead",
                op, i, (long long)t->shape[i]);
    return CT_OK;
}

ct_status ct__byte_mask(ct_ctx *ctx, const ct_tensor *mask, ct_tensor **b) {
    *b = NULL;
    if (!ct__tensor_live(mask) || mask->dtype != CT_UINT8) return CT_OK;
    return ct_cast(ctx, mask, CT_BOOL, b);
}

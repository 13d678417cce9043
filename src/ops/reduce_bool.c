/* all, any, count_nonzero, argmin, max_dim and min_dim, written with ops that pass the dispatch
 * point. all/any/count_nonzero: a comparison with 0 (NaN counts as nonzero, as in torch) and an
 * int64 sum, so empty reductions need no special case (all of nothing is true, any of nothing
 * false); torch 1.13 returns uint8 for uint8 inputs of all/any and bool otherwise. argmin: argmax
 * of an order-reversing map. max_dim / min_dim: amax / amin and argmax / argmin. */
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* count = sum over dims of (t != 0) (want_zero: of (t == 0)), as int64 */
static ct_status ct__count(ct_ctx *ctx, const char *op, const ct_tensor *t, int n_dims,
                           const int *dims, bool keepdim, bool want_zero, ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, op, t, out);
    if (st != CT_OK) return st;
    ct_tensor *b = NULL; /* complex: against 0 + 0i, either part nonzero (or NaN) */
    st = want_zero ? ct_eq_scalar(ctx, t, 0.0, &b) : ct_ne_scalar(ctx, t, 0.0, &b);
    if (st == CT_OK) st = ct_sum(ctx, b, n_dims, dims, keepdim, out);
    ct_tensor_release(b);
    return st;
}

static ct_status ct__all_any(ct_ctx *ctx, const char *op, const ct_tensor *t, int n_dims,
                             const int *dims, bool keepdim, bool all, ct_tensor **out) {
    ct_tensor *n = NULL, *r = NULL;
    ct_status st = ct__one_input_any(ctx, op, t, out); /* the caller's out (the count: &n) */
    if (st == CT_OK) st = ct__count(ctx, op, t, n_dims, dims, keepdim, all, &n);
    if (st != CT_OK) return st;
    /* all: no zero entry; any: some nonzero entry */
    st = all ? ct_eq_scalar(ctx, n, 0.0, &r) : ct_gt_scalar(ctx, n, 0.0, &r);
    ct_tensor_release(n);
    if (st != CT_OK) return st;
    if (t->dtype != CT_UINT8) {
        *out = r;
        return CT_OK;
    }
    st = ct_cast(ctx, r, CT_UINT8, out);
    ct_tensor_release(r);
    return st;
}

ct_status ct_all(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims, bool keepdim,
                 ct_tensor **out) {
    return ct__all_any(ctx, "all", t, n_dims, dims, keepdim, true, out);
}

ct_status ct_any(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims, bool keepdim,
                 ct_tensor **out) {
    return ct__all_any(ctx, "any", t, n_dims, dims, keepdim, false, out);
}

ct_status ct_count_nonzero(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims,
                           ct_tensor **out) {
    return ct__count(ctx, "count_nonzero", t, n_dims, dims, false, false, out);
}

/* ---- argmin and max / min along a dim with indices ---- */
static ct_status ct__argmin_body(ct_ctx *ctx, const ct_tensor *t, int dim, bool keepdim,
                                 ct_tensor **out) {
    const ct_tensor *ts[1] = {t};
    ct_status st = ct__check_args(ctx, "argmin", 1, ts, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(t->dtype) || t->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "argmin: dtype %s is not supported",
                             ct_dtype_name(t->dtype));
    /* argmax of an order-reversing map: floats -x (exact; NaN stays NaN and stays the pick, as
     * torch's argmin takes NaN as the minimum; -0.0 still equals 0.0); integers -1 - x in int64,
     * exact for every int64 (no negation overflow) */
    ct_tensor *r = NULL, *w = NULL, *m1 = NULL;
    if (ct_dtype_is_floating(t->dtype)) {
        st = ct_neg(ctx, t, &r);
    } else {
        st = ct__to_dtype(ctx, t, CT_INT64, &w);
        if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, CT_INT64, 0, NULL, &m1);
        if (st == CT_OK) {
            ct_op_desc d;
            ct__desc_init(&d, CT_OP_FILL, 1, 0);
            ct__operand_set(&d.operands[0], m1);
            d.compute_dtype = CT_INT64;
            d.scalars[0] = -1;
            st = ct__submit(ctx, m1->storage->device, &d);
        }
        if (st == CT_OK) st = ct_sub(ctx, m1, w, &r);
    }
    if (st == CT_OK) st = ct_argmax(ctx, r, dim, keepdim, out);
    if (st != CT_OK && strncmp(ct_ctx_last_error(ctx), "argmax", 6) == 0)
        ct__set_error(ctx, st, "argmin%s", ct_ctx_last_error(ctx) + 6);
    ct_tensor_release(r), ct_tensor_release(w), ct_tensor_release(m1);
    return st;
}

ct_status ct_argmin(ct_ctx *ctx, const ct_tensor *t, int dim, bool keepdim, ct_tensor **out) {
    return ct__error_within(ctx, "argmin", ct__argmin_body(ctx, t, dim, keepdim, out));
}

static ct_status ct__minmax_dim(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                                bool keepdim, bool is_max, ct_tensor **values,
                                ct_tensor **indices) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!values || !indices)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: values or indices is NULL", op);
    *values = *indices = NULL;
    if (dim == CT_ALL_DIMS)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: needs one dim (use ct_amax / ct_amin for all dims)", op);
    /* the values are the elements at the indices (as torch: the gradient goes to that one
     * element, not split among tied maxima as amax's; a tie of -0.0 and 0.0 gives the first) */
    ct_tensor *v = NULL, *i = NULL, *ik = NULL, *vk = NULL, *u8 = NULL, *t1 = NULL;
    ct_status st = CT_OK;
    if (t &&
        t->ndim == 0) { /* a 0-d tensor as one element along dim 0 (dim must still be 0 or -1) */
        if (dim != 0 && dim != -1)
            return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for 0 dims", op, dim);
        const int64_t one = 1;
        st = ct_tensor_reshape(ctx, t, 1, &one, &t1);
        t = t1, dim = 0, keepdim = false;
    }
    /* bool: the indices of a uint8 copy (torch.max / min take bool; argmax / argmin do not) */
    if (st == CT_OK && t && t->dtype == CT_BOOL) st = ct__to_dtype(ctx, t, CT_UINT8, &u8);
    const ct_tensor *key = u8 ? u8 : t;
    if (st == CT_OK)
        st = is_max ? ct_argmax(ctx, key, dim, true, &ik) : ct_argmin(ctx, key, dim, true, &ik);
    if (st == CT_OK) st = ct_take_along_dim(ctx, t, ik, dim, &vk);
    if (st == CT_OK && !keepdim) { /* (a 0-d input was made 1-d: squeezing gives 0-d back) */
        const int d = dim < 0 ? dim + t->ndim : dim;
        st = ct_tensor_squeeze(ctx, vk, d, &v);
        if (st == CT_OK) st = ct_tensor_squeeze(ctx, ik, d, &i);
    } else if (st == CT_OK) {
        v = ct_tensor_retain(vk), i = ct_tensor_retain(ik);
    }
    ct_tensor_release(vk), ct_tensor_release(ik), ct_tensor_release(u8), ct_tensor_release(t1);
    if (st != CT_OK) {
        ct_tensor_release(v), ct_tensor_release(i);
        if (strncmp(ct_ctx_last_error(ctx), is_max ? "argmax" : "argmin", 6) == 0)
            ct__set_error(ctx, st, "%s%s", op, ct_ctx_last_error(ctx) + 6);
        return st;
    }
    *values = v;
    *indices = i;
    return CT_OK;
}

ct_status ct_max_dim(ct_ctx *ctx, const ct_tensor *t, int dim, bool keepdim, ct_tensor **values,
                     ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__minmax_dim(ctx, "max_dim", t, dim, keepdim, true, values, indices),
                        values, mark, "MaxBackward0");
}

ct_status ct_min_dim(ct_ctx *ctx, const ct_tensor *t, int dim, bool keepdim, ct_tensor **values,
                     ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx,
                        ct__minmax_dim(ctx, "min_dim", t, dim, keepdim, false, values, indices),
                        values, mark, "MinBackward0");
}

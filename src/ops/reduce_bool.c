/* all, any, count_nonzero, written with ops that pass the dispatch point: a comparison with 0
 * (NaN counts as nonzero, as in torch) and an int64 sum, so empty reductions need no special case
 * (all of nothing is true, any of nothing false). torch 1.13 returns uint8 for uint8 inputs of
 * all/any and bool otherwise. */
#include "ctorch/ops.h"
#include "ops/dispatch.h"

/* count = sum over dims of (t != 0) (want_zero: of (t == 0)), as int64 */
static ct_status ct__count(ct_ctx *ctx, const char *op, const ct_tensor *t, int n_dims,
                           const int *dims, bool keepdim, bool want_zero, ct_tensor **out) {
    const ct_tensor *ts[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ts, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", op,
                             ct_dtype_name(t->dtype));
    ct_tensor *b = NULL;
    st = want_zero ? ct_eq_scalar(ctx, t, 0.0, &b) : ct_ne_scalar(ctx, t, 0.0, &b);
    if (st == CT_OK) st = ct_sum(ctx, b, n_dims, dims, keepdim, out);
    ct_tensor_release(b);
    return st;
}

static ct_status ct__all_any(ct_ctx *ctx, const char *op, const ct_tensor *t, int n_dims,
                             const int *dims, bool keepdim, bool all, ct_tensor **out) {
    ct_tensor *n = NULL, *r = NULL;
    ct_status st = ct__count(ctx, op, t, n_dims, dims, keepdim, all, &n);
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

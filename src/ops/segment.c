/* torch.segment_reduce (methods.h): segment ids from the lengths (or offsets) by searchsorted,
 * then one scatter_reduce into an output with a spare segment for positions outside every
 * segment, so it is made of differentiable ops (the gradients are scatter_reduce's: ties of max /
 * min share, prod exact with zeros) and captures like them; the lengths are checked on the host
 * outside a capture. */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/methods.h"
#include "dispatch/dispatch.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"
#include "tensor/tensor_impl.h"

#include <math.h>
#include <string.h>

#define CT__SEG_T 12 /* temporaries */

static ct_status ct__seg_check_host(ct_ctx *ctx, const ct_tensor *len, int64_t n, bool unsafe) {
    if (ct__any_capture(ctx) || ct_tensor_numel(len) == 0) return CT_OK; /* no host reads */
    ct_tensor *mn = NULL, *sum = NULL, *smin = NULL, *smax = NULL;
    double lo = 0, a = n, b = n;
    const int last = len->ndim - 1;
    ct_status st = ct_amin(ctx, len, 0, NULL, false, &mn);
    if (st == CT_OK) st = ct_tensor_item(mn, &lo);
    if (st == CT_OK && lo < 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "segment_reduce: lengths contains negative value!");
    if (st == CT_OK && !unsafe) {
        st = ct_sum(ctx, len, 1, &last, false, &sum);
        if (st == CT_OK && ct_tensor_numel(sum) > 0) {
            st = ct_amin(ctx, sum, 0, NULL, false, &smin);
            if (st == CT_OK) st = ct_amax(ctx, sum, 0, NULL, false, &smax);
            if (st == CT_OK) st = ct_tensor_item(smin, &a);
            if (st == CT_OK) st = ct_tensor_item(smax, &b);
        }
        if (st == CT_OK && (a != (double)n || b != (double)n))
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "segment_reduce: Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe (%lld; the rows sum to "
                               "%g .. %g).",
                               (long long)n, a, b);
    }
    ct_tensor_release(mn), ct_tensor_release(sum), ct_tensor_release(smin), ct_tensor_release(smax);
    return st;
}

static ct_status ct__segment_reduce(ct_ctx *ctx, const ct_tensor *data, const char *reduce,
                                    const ct_tensor *lengths, const ct_tensor *offsets, int axis,
                                    bool unsafe, const double *initial, ct_tensor **out) {
    const ct_tensor *ins[1] = {data};
    ct_status st = ct__check_args(ctx, "segment_reduce", 1, ins, out);
    if (st != CT_OK) return st;
    static const char *const names[] = {"sum", "mean", "max", "min", "prod"};
    static const char *const sr[] = {"sum", "sum", "amax", "amin", "prod"};
    int op = -1;
    for (int i = 0; reduce && i < 5; i++)
        if (!strcmp(reduce, names[i])) op = i;
    if (op < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "segment_reduce: unsupported reduction given! %s",
                             reduce ? reduce : "(null)");
    if (!ct_dtype_is_floating(data->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "segment_reduce: not implemented for %s",
                             ct_dtype_name(data->dtype));
    if (!lengths == !offsets)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "segment_reduce: give exactly one of lengths and offsets (indices "
                             "based reduction is not supported, as torch)");
    const ct_tensor *seg = lengths ? lengths : offsets;
    if ((st = ct__check_tensor(ctx, "segment_reduce", lengths ? "lengths" : "offsets", seg)) !=
        CT_OK)
        return st;
    if (seg->dtype != CT_INT64 && seg->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE, "segment_reduce: %s must be int32 or int64, got %s",
                             lengths ? "lengths" : "offsets", ct_dtype_name(seg->dtype));
    if (data->ndim == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE, "segment_reduce: data must have at least 1 dim");
    int ax = 0;
    if (!ct__wrap_dim(axis, data->ndim, &ax))
        return ct__set_error(ctx, CT_ERR_INDEX, "segment_reduce: axis %d out of range for %d dims",
                             axis, data->ndim);
    if (seg->ndim - 1 != ax)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "segment_reduce: Expected axis to be the last dimension of %s but "
                             "got %d.",
                             lengths ? "lengths" : "offsets", ax);
    for (int d = 0; d < ax; d++)
        if (seg->shape[d] != data->shape[d])
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "segment_reduce: %s %s must match data %s in its leading dims",
                                 lengths ? "lengths" : "offsets", CT__SHAPE_STR(seg),
                                 ct__shape_str((char[96]){0}, 96, data->ndim, data->shape));
    if (offsets && offsets->shape[ax] < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "segment_reduce: offsets needs at least 1 entry");
    const int64_t n = data->shape[ax];
    const int64_t S = lengths ? lengths->shape[ax] : offsets->shape[ax] - 1;
    ct_tensor *t[CT__SEG_T] = {NULL};
    const bool was = ct_set_grad_enabled(ctx, false);
    /* ends (lead..., S) and the first start: lengths' cumulative sums, or offsets[1:] and [0] */
    ct_tensor *len = NULL;
    if (lengths) {
        st = ct_cast(ctx, lengths, CT_INT64, &len);
        if (st == CT_OK) st = ct_cumsum(ctx, len, ax, &t[0]);
    } else {
        st = ct_cast(ctx, offsets, CT_INT64, &t[1]);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, t[1], ax, 1, S, &t[0]);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, t[1], ax, 0, S, &t[2]);
        if (st == CT_OK) st = ct_sub(ctx, t[0], t[2], &len);
    }
    /* torch checks the lengths (>= 0, rows summing to the axis' size unless unsafe); offsets
     * only have to be ordered, positions outside them belong to no segment */
    if (st == CT_OK) st = ct__seg_check_host(ctx, len, n, unsafe || offsets != NULL);
    /* positions 0..n-1 along the axis, per leading index: their segment (S: none) */
    int64_t psh[CT_MAX_DIMS];
    for (int d = 0; d < ax; d++)
        psh[d] = data->shape[d];
    psh[ax] = n;
    ct_tensor *ends = NULL, *pos = NULL, *sid = NULL;
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, t[0], &ends);
    if (st == CT_OK) st = ct_tensor_arange(ctx, CT_INT64, 0, (double)n, 1, &t[3]);
    if (st == CT_OK) st = ct_tensor_expand(ctx, t[3], ax + 1, psh, &t[4]);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, t[4], &pos);
    if (st == CT_OK) st = ct_searchsorted(ctx, ends, pos, false, true, &sid);
    if (st == CT_OK && offsets) { /* positions before offsets[0] belong to no segment */
        ct_tensor *first = NULL, *before = NULL, *spare = NULL, *s2 = NULL;
        st = ct_tensor_narrow(ctx, t[1], ax, 0, 1, &first);
        if (st == CT_OK) st = ct_lt(ctx, pos, first, &before);
        if (st == CT_OK) st = ct_tensor_full(ctx, CT_INT64, 0, NULL, (double)S, &spare);
        if (st == CT_OK) st = ct_where(ctx, before, spare, sid, &s2);
        ct_tensor_release(first), ct_tensor_release(before), ct_tensor_release(spare);
        if (st == CT_OK) ct_tensor_release(sid), sid = s2;
    }
    /* the index for scatter_reduce: segment ids over data's shape */
    ct_tensor *idx = NULL;
    int64_t ush[CT_MAX_DIMS];
    memcpy(ush, psh, sizeof(int64_t) * (size_t)(ax + 1));
    for (int d = ax + 1; d < data->ndim; d++)
        ush[d] = 1;
    if (st == CT_OK) st = ct_tensor_reshape(ctx, sid, data->ndim, ush, &t[5]);
    if (st == CT_OK) st = ct_tensor_expand(ctx, t[5], data->ndim, data->shape, &t[6]);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, t[6], &idx);
    /* base: lead + (S + 1) + trailing, the initial value or the reduction's identity */
    static const double ident[5] = {0, 0, -INFINITY, INFINITY, 1};
    int64_t osh[CT_MAX_DIMS];
    memcpy(osh, data->shape, sizeof(int64_t) * (size_t)data->ndim);
    osh[ax] = S + 1;
    ct_tensor *base = NULL, *red = NULL;
    if (st == CT_OK)
        st = ct_tensor_full(ctx, data->dtype, data->ndim, osh, initial ? *initial : ident[op],
                            &base);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK) st = ct_scatter_reduce(ctx, base, ax, idx, data, sr[op], true, &t[7]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[7], ax, 0, S, &red);
    if (st == CT_OK && op == 1) { /* mean: (initial +) sum / count; empty: initial, else NaN */
        ct_tensor *cnt = NULL, *q = NULL;
        int64_t csh[CT_MAX_DIMS];
        memcpy(csh, osh, sizeof csh);
        csh[ax] = S;
        for (int d = ax + 1; d < data->ndim; d++)
            csh[d] = 1;
        st = ct_cast(ctx, len, data->dtype, &t[8]);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, t[8], data->ndim, csh, &cnt);
        if (st == CT_OK) st = ct_div(ctx, red, cnt, &q);
        if (st == CT_OK && initial) {
            ct_tensor *z = NULL, *iv = NULL, *w = NULL;
            st = ct_eq_scalar(ctx, cnt, 0, &z);
            if (st == CT_OK) st = ct_tensor_full(ctx, data->dtype, 0, NULL, *initial, &iv);
            if (st == CT_OK) st = ct_where(ctx, z, iv, q, &w);
            ct_tensor_release(z), ct_tensor_release(iv), ct_tensor_release(q);
            q = w;
        }
        ct_tensor_release(cnt);
        if (st == CT_OK) {
            ct_tensor_release(red);
            red = q;
        } else {
            ct_tensor_release(q);
        }
    }
    for (int i = 0; i < CT__SEG_T; i++)
        ct_tensor_release(t[i]);
    ct_tensor_release(len), ct_tensor_release(ends), ct_tensor_release(pos), ct_tensor_release(sid),
        ct_tensor_release(idx), ct_tensor_release(base);
    if (st != CT_OK) {
        ct_tensor_release(red);
        return st;
    }
    *out = red;
    return CT_OK;
}

ct_status ct_segment_reduce(ct_ctx *ctx, const ct_tensor *data, const char *reduce,
                            const ct_tensor *lengths, const ct_tensor *offsets, int axis,
                            bool unsafe, const double *initial, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    const uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__segment_reduce(ctx, data, reduce, lengths, offsets, axis, unsafe, initial, out);
    return ct__ag_named(ctx, st, out, mark, "SegmentReduceBackward0");
}

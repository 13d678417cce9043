/* The *_copy ops (the view op, then a contiguous clone named as torch's node) and a few torch
 * names without a home elsewhere: mm, scalar_tensor, empty_strided, range, igamma / igammac,
 * constant_pad_nd. */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/ops.h"
#include "tensor/ag_front.h"
#include "tensor/tensor_impl.h"

#include <math.h>
#include <string.h>

/* *out = a clone of v (released), its node printed as `node` */
static ct_status ct__copy_of(ct_ctx *ctx, const char *op, ct_status st, ct_tensor *v, uint64_t mark,
                             const char *node, ct_tensor **out) {
    if (st == CT_OK) st = ct_tensor_clone(ctx, v, out);
    ct_tensor_release(v);
    st = ct__error_within(ctx, op, st);
    return ct__ag_named(ctx, st, out, mark, node);
}
#define CT__COPY(op, node, call)                                                                   \
    do {                                                                                           \
        if (out) *out = NULL;                                                                      \
        if (!out)                                                                                  \
            return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, op ": out is NULL")                \
                       : CT_ERR_INVALID_ARG;                                                       \
        uint64_t mark_ = ct__ag_mark(ctx);                                                         \
        ct_tensor *v_ = NULL;                                                                      \
        ct_status st_ = (call);                                                                    \
        return ct__copy_of(ctx, op, st_, v_, mark_, node, out);                                    \
    } while (0)

/* an alias: a view of all of t (its own history node, as torch's alias) */
static ct_status ct__alias(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct_tensor_narrow(ctx, t, 0, 0, ct__tensor_live(t) && t->ndim ? t->shape[0] : 0, out);
}
ct_status ct_alias_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    CT__COPY("alias_copy", "AliasBackward0_copy",
             ct__tensor_live(t) && t->ndim == 0 ? ct_tensor_view(ctx, t, 0, NULL, &v_)
                                                : ct__alias(ctx, t, &v_));
}
ct_status ct_as_strided_copy(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *size,
                             const int64_t *stride, int64_t storage_offset, ct_tensor **out) {
    CT__COPY("as_strided_copy", "AsStridedBackward0_copy",
             ct_tensor_as_strided(ctx, t, ndim, size, stride, storage_offset, &v_));
}
ct_status ct_detach_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    CT__COPY("detach_copy", NULL, ct_tensor_detach(ctx, t, &v_));
}
ct_status ct_diagonal_copy(ct_ctx *ctx, const ct_tensor *t, int64_t offset, int dim1, int dim2,
                           ct_tensor **out) {
    CT__COPY("diagonal_copy", "DiagonalBackward0_copy",
             ct_diagonal(ctx, t, offset, dim1, dim2, &v_));
}
ct_status ct_expand_copy(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                         ct_tensor **out) {
    CT__COPY("expand_copy", "ExpandBackward0_copy", ct_tensor_expand(ctx, t, ndim, shape, &v_));
}
ct_status ct_narrow_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start, int64_t length,
                         ct_tensor **out) {
    CT__COPY("narrow_copy", "NarrowCopyBackward0",
             ct_tensor_narrow(ctx, t, dim, start, length, &v_));
}
ct_status ct_permute_copy(ct_ctx *ctx, const ct_tensor *t, const int *perm, ct_tensor **out) {
    CT__COPY("permute_copy", "PermuteBackward0_copy", ct_tensor_permute(ctx, t, perm, &v_));
}
ct_status ct_select_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t index, ct_tensor **out) {
    CT__COPY("select_copy", "SelectBackward0_copy", ct_select(ctx, t, dim, index, &v_));
}
ct_status ct_slice_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start, int64_t end,
                        int64_t step, ct_tensor **out) {
    CT__COPY("slice_copy", "SliceBackward0_copy",
             ct_tensor_slice(ctx, t, dim, start, end, step, &v_));
}
ct_status ct_squeeze_copy(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out) {
    CT__COPY("squeeze_copy", dim == CT_ALL_DIMS ? "SqueezeBackward0_copy" : "SqueezeBackward1_copy",
             ct_tensor_squeeze(ctx, t, dim, &v_));
}
ct_status ct_t_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    CT__COPY("t_copy", "TBackward0_copy", ct_t(ctx, t, &v_));
}
ct_status ct_transpose_copy(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1, ct_tensor **out) {
    CT__COPY("transpose_copy", "TransposeBackward0_copy",
             ct_tensor_transpose(ctx, t, dim0, dim1, &v_));
}
ct_status ct_unfold_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t size, int64_t step,
                         ct_tensor **out) {
    CT__COPY("unfold_copy", "UnfoldBackward0_copy", ct_tensor_unfold(ctx, t, dim, size, step, &v_));
}
ct_status ct_unsqueeze_copy(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out) {
    CT__COPY("unsqueeze_copy", "UnsqueezeBackward0_copy", ct_tensor_unsqueeze(ctx, t, dim, &v_));
}
ct_status ct_view_copy(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                       ct_tensor **out) {
    /* torch's view_copy is a reshape when the view is impossible (it copies anyway) */
    CT__COPY("view_copy", "ViewBackward0_copy", ct_tensor_reshape(ctx, t, ndim, shape, &v_));
}
ct_status ct_view_as_real_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    CT__COPY("view_as_real_copy", "ViewAsRealBackward0_copy", ct_view_as_real(ctx, t, &v_));
}
ct_status ct_view_as_complex_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    CT__COPY("view_as_complex_copy", "ViewAsComplexBackward0_copy",
             ct_view_as_complex(ctx, t, &v_));
}

/* the multi-output copies: each view replaced by its clone, named `node` */
static ct_status ct__copy_all(ct_ctx *ctx, const char *op, ct_status st, int n, ct_tensor **outs,
                              uint64_t mark, const char *node) {
    for (int i = 0; i < n; i++) {
        ct_tensor *v = outs[i];
        outs[i] = NULL;
        if (st == CT_OK) {
            st = ct_tensor_clone(ctx, v, &outs[i]);
            ct__ag_named(ctx, st, &outs[i], mark, node);
        }
        ct_tensor_release(v);
    }
    if (st != CT_OK)
        for (int i = 0; i < n; i++) {
            ct_tensor_release(outs[i]);
            outs[i] = NULL;
        }
    return ct__error_within(ctx, op, st);
}
ct_status ct_split_copy(ct_ctx *ctx, const ct_tensor *t, int64_t split_size, int dim, int max_out,
                        ct_tensor **outs, int *n_out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct_split(ctx, t, split_size, dim, max_out, outs, n_out);
    if (st != CT_OK) return ct__error_within(ctx, "split_copy", st);
    st = ct__copy_all(ctx, "split_copy", st, *n_out, outs, mark, "SplitBackward0_copy");
    if (st != CT_OK) *n_out = 0;
    return st;
}
ct_status ct_split_with_sizes_copy(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes,
                                   int dim, ct_tensor **outs) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct_split_sizes(ctx, t, n, sizes, dim, outs);
    if (st != CT_OK) return ct__error_within(ctx, "split_with_sizes_copy", st);
    return ct__copy_all(ctx, "split_with_sizes_copy", st, n, outs, mark,
                        "SplitWithSizesBackward0_copy");
}
ct_status ct_unbind_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int max_out, ct_tensor **outs,
                         int *n_out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct_unbind(ctx, t, dim, max_out, outs, n_out);
    if (st != CT_OK) return ct__error_within(ctx, "unbind_copy", st);
    st = ct__copy_all(ctx, "unbind_copy", st, *n_out, outs, mark, "UnbindBackward0_copy");
    if (st != CT_OK) *n_out = 0;
    return st;
}

/* ---- torch names ---- */
ct_status ct_mm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "mm", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "mm: self must be a matrix, got %s",
                             CT__SHAPE_STR(a));
    if (b->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "mm: mat2 must be a matrix, got %s",
                             CT__SHAPE_STR(b));
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "mm: expected scalar type %s but found %s",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (a->shape[1] != b->shape[0])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "mm: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and "
                             "%lldx%lld)",
                             (long long)a->shape[0], (long long)a->shape[1], (long long)b->shape[0],
                             (long long)b->shape[1]);
    return ct__error_within(ctx, "mm", ct_matmul(ctx, a, b, out));
}

ct_status ct_scalar_tensor(ct_ctx *ctx, double v, ct_dtype dtype, ct_tensor **out) {
    return ct__error_within(ctx, "scalar_tensor", ct_tensor_full(ctx, dtype, 0, NULL, v, out));
}

ct_status ct_tensor_empty_strided(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *size,
                                  const int64_t *stride, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "empty_strided: out is NULL");
    *out = NULL;
    if (ndim < 0 || ndim > CT_MAX_DIMS || (ndim > 0 && (!size || !stride)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "empty_strided: ndim %d (0..%d) with size and stride arrays", ndim,
                             CT_MAX_DIMS);
    /* the elements addressed: 1 + sum (size - 1) stride, none when a size is 0 */
    int64_t extent = 1;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (size[i] < 0 || stride[i] < 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "empty_strided: negative size or stride (%lld, %lld) at dim %d",
                                 (long long)size[i], (long long)stride[i], i);
        empty |= size[i] == 0;
    }
    for (int i = 0; i < ndim && !empty; i++) {
        int64_t span;
        if (__builtin_mul_overflow(size[i] - 1, stride[i], &span) ||
            __builtin_add_overflow(extent, span, &extent))
            return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                 "empty_strided: the addressed extent overflows int64");
    }
    if (empty) extent = 0;
    ct_tensor *flat = NULL;
    ct_status st = ct_tensor_zeros(ctx, dtype, 1, &extent, &flat);
    if (st == CT_OK) st = ct_tensor_as_strided(ctx, flat, ndim, size, stride, 0, out);
    ct_tensor_release(flat);
    return ct__error_within(ctx, "empty_strided", st);
}

ct_status ct_tensor_range(ct_ctx *ctx, ct_dtype dtype, double start, double end, double step,
                          ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "range: out is NULL");
    *out = NULL;
    if (!isfinite(start) || !isfinite(end))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "range: unsupported range: %g -> %g", start,
                             end);
    /* an integer dtype takes start, end and step as int64 first (torch's accumulate type), so a
     * fractional step below 1 is a zero step */
    if (dtype != CT_BOOL && !ct_dtype_is_floating(dtype) && !ct_dtype_is_complex(dtype)) {
        if (!(fabs(start) < 9.2e18 && fabs(end) < 9.2e18 && fabs(step) < 9.2e18))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "range: bounds or step do not fit int64 for %s",
                                 ct_dtype_name(dtype));
        start = trunc(start), end = trunc(end), step = trunc(step);
    }
    if (step == 0 || isnan(step))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "range: step must be nonzero");
    if (!((step > 0 && end >= start) || (step < 0 && end <= start)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "range: upper bound and lower bound inconsistent with step sign");
    const double n = floor((end - start) / step) + 1;
    if (!(n < 9.2e18))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "range: %g elements do not fit in int64", n);
    /* start + i step in double, then the dtype (torch's accumulate type on the CPU) */
    const int64_t cnt = (int64_t)n;
    ct_tensor *i = NULL, *x = NULL, *y = NULL;
    ct_status st = ct_tensor_arange(ctx, CT_FLOAT64, 0, (double)cnt, 1, &i);
    if (st == CT_OK) st = ct_mul_scalar(ctx, i, step, &x);
    if (st == CT_OK) st = ct_add_scalar(ctx, x, start, &y);
    if (st == CT_OK) st = ct_cast(ctx, y, dtype, out);
    ct_tensor_release(i), ct_tensor_release(x), ct_tensor_release(y);
    return ct__error_within(ctx, "range", st);
}

ct_status ct_igamma(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *x, ct_tensor **out) {
    return ct__error_within(ctx, "igamma", ct_special_gammainc(ctx, a, x, out));
}
ct_status ct_igammac(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *x, ct_tensor **out) {
    return ct__error_within(ctx, "igammac", ct_special_gammaincc(ctx, a, x, out));
}
ct_status ct_constant_pad_nd(ct_ctx *ctx, const ct_tensor *x, int n_pad, const int64_t *pad,
                             double value, ct_tensor **out) {
    return ct__error_within(ctx, "constant_pad_nd",
                            ct_pad(ctx, x, n_pad, pad, CT_PAD_CONSTANT, value, out));
}

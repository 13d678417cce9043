/* Views (view, reshape, permute, transpose, narrow, slice, expand, squeeze, unsqueeze) and copies
 * (contiguous, clone, copy_). Views share storage; copies go through the COPY op. */
#include "ctorch/ops.h"
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"
#include "tensor/ag_front.h"

static ct_status ct__view_check(ct_ctx *ctx, const char *op, const ct_tensor *t, void *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, op, "input", t);
    if (st != CT_OK) return st;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    if (t->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: tensor belongs to another context", op);
    return CT_OK;
}

/* Resolve one -1 entry and check the element count matches. */
static ct_status ct__infer_shape(ct_ctx *ctx, const char *op, const ct_tensor *t, int ndim,
                                 const int64_t *shape, int64_t *res) {
    if (ndim < 0 || ndim > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: ndim %d outside [0, %d]", op, ndim,
                             CT_MAX_DIMS);
    if (ndim > 0 && !shape) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: shape is NULL", op);
    int infer = -1;
    int64_t prod = 1, numel = ct_tensor_numel(t);
    for (int i = 0; i < ndim; i++) {
        res[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0)
                return ct__set_error(ctx, CT_ERR_SHAPE, "%s: only one dimension can be -1", op);
            infer = i;
        } else if (shape[i] < 0) {
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: invalid size %lld at dim %d", op,
                                 (long long)shape[i], i);
        } else if (!ct__checked_mul(prod, shape[i], &prod)) {
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: shape overflows", op);
        }
    }
    if (infer >= 0) {
        if (prod == 0 || numel % prod != 0)
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: cannot infer -1 for %lld elements of %s",
                                 op, (long long)numel, CT__SHAPE_STR(t));
        res[infer] = numel / prod;
        prod = numel;
    }
    if (prod != numel) {
        char b[96];
        return ct__set_error(
            ctx, CT_ERR_SHAPE, "%s: shape %s is invalid for input %s (%lld elements)", op,
            ct__shape_str(b, sizeof b, ndim, res), CT__SHAPE_STR(t), (long long)numel);
    }
    /* zero-size shapes: their other dims still set the strides, which must fit */
    return ct__check_extent(ctx, op, ndim, res, ct__itemsize(t->dtype));
}

/* Strides for viewing (ondim, oshape, ostr) as (ndim, shape) without copying; false if impossible.
 */
static bool ct__view_strides(int ondim, const int64_t *oshape, const int64_t *ostr, int ndim,
                             const int64_t *shape, int64_t *strides) {
    int64_t one_shape = 1, one_str = 1;
    if (ondim == 0) {
        ondim = 1;
        oshape = &one_shape;
        ostr = &one_str;
    }
    if (ct__numel(ondim, oshape) == 0) {
        int64_t s = 1;
        for (int i = ndim - 1; i >= 0; i--) {
            strides[i] = s;
            s *= shape[i] > 1 ? shape[i] : 1;
        }
        return true;
    }
    int vd = ndim - 1;
    int64_t base = ostr[ondim - 1], tnum = 1, vnum = 1;
    for (int td = ondim - 1; td >= 0; td--) {
        tnum *= oshape[td];
        /* A chunk of old dims ends where the next-outer dim is not laid out right after it. */
        if (td == 0 || (oshape[td - 1] != 1 && ostr[td - 1] != tnum * base)) {
            while (vd >= 0 && (vnum < tnum || shape[vd] == 1)) {
                strides[vd] = vnum * base;
                vnum *= shape[vd];
                vd--;
            }
            if (vnum != tnum) return false;
            if (td > 0) {
                base = ostr[td - 1];
                tnum = 1;
                vnum = 1;
            }
        }
    }
    return vd == -1;
}

static ct_status ct__fwd_tensor_view(ct_ctx *ctx, const ct_tensor *t, int ndim,
                                     const int64_t *shape, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "view", t, out);
    if (st != CT_OK) return st;
    int64_t res[CT_MAX_DIMS], str[CT_MAX_DIMS];
    if ((st = ct__infer_shape(ctx, "view", t, ndim, shape, res)) != CT_OK) return st;
    if (!ct__view_strides(t->ndim, t->shape, t->strides, ndim, res, str)) {
        char b[96];
        return ct__set_error(
            ctx, CT_ERR_SHAPE,
            "view: size %s is not compatible with the strides of input %s; use reshape",
            ct__shape_str(b, sizeof b, ndim, res), CT__SHAPE_STR(t));
    }
    return ct__tensor_view_of(ctx, t, ndim, res, str, t->offset, out);
}

static ct_status ct__fwd_tensor_reshape(ct_ctx *ctx, const ct_tensor *t, int ndim,
                                        const int64_t *shape, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "reshape", t, out);
    if (st != CT_OK) return st;
    int64_t res[CT_MAX_DIMS], str[CT_MAX_DIMS];
    if ((st = ct__infer_shape(ctx, "reshape", t, ndim, shape, res)) != CT_OK) return st;
    if (ct__view_strides(t->ndim, t->shape, t->strides, ndim, res, str))
        return ct__tensor_view_of(ctx, t, ndim, res, str, t->offset, out);
    ct_tensor *c;
    if ((st = ct_tensor_clone(ctx, t, &c)) != CT_OK) return st;
    st = ct_tensor_view(ctx, c, ndim, res, out);
    ct_tensor_release(c);
    return st;
}

static ct_status ct__fwd_tensor_permute(ct_ctx *ctx, const ct_tensor *t, const int *perm,
                                        ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "permute", t, out);
    if (st != CT_OK) return st;
    if (t->ndim > 0 && !perm)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "permute: perm is NULL");
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    unsigned seen = 0;
    for (int i = 0; i < t->ndim; i++) {
        int d;
        if (!ct__wrap_dim(perm[i], t->ndim, &d))
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "permute: entry %d (%d) is out of range for %d dims", i, perm[i],
                                 t->ndim);
        if (seen >> d & 1u)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "permute: entry %d (%d) repeats a dim", i,
                                 perm[i]);
        seen |= 1u << d;
        sh[i] = t->shape[d];
        str[i] = t->strides[d];
    }
    return ct__tensor_view_of(ctx, t, t->ndim, sh, str, t->offset, out);
}

static ct_status ct__fwd_tensor_transpose(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1,
                                          ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "transpose", t, out);
    if (st != CT_OK) return st;
    int a, b;
    if (t->ndim == 0 && (dim0 == 0 || dim0 == -1) && (dim1 == 0 || dim1 == -1))
        return ct__tensor_view_of(ctx, t, 0, t->shape, t->strides, t->offset, out);
    if (!ct__wrap_dim(dim0, t->ndim, &a) || !ct__wrap_dim(dim1, t->ndim, &b))
        return ct__set_error(ctx, CT_ERR_INDEX, "transpose: dims (%d, %d) out of range for %d dims",
                             dim0, dim1, t->ndim);
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) {
        int j = i == a ? b : i == b ? a : i;
        sh[i] = t->shape[j];
        str[i] = t->strides[j];
    }
    return ct__tensor_view_of(ctx, t, t->ndim, sh, str, t->offset, out);
}

static ct_status ct__fwd_tensor_slice(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start,
                                      int64_t end, int64_t step, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "slice", t, out);
    if (st != CT_OK) return st;
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "slice: dim %d out of range for %d dims", dim,
                             t->ndim);
    if (step <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "slice: step must be positive, got %lld",
                             (long long)step);
    int64_t n = t->shape[d];
    if (start < 0) start = start < -n ? 0 : start + n;
    if (end < 0) end = end < -n ? 0 : end + n;
    if (start > n) start = n;
    if (end > n) end = n;
    if (end < start) end = start;
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) {
        sh[i] = t->shape[i];
        str[i] = t->strides[i];
    }
    int64_t len = end - start; /* 0 <= len <= n, so no overflow below */
    sh[d] = len ? 1 + (len - 1) / step : 0;
    if (sh[d] > 1 && !ct__checked_mul(t->strides[d], step, &str[d]))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "slice: stride %lld * step %lld overflows",
                             (long long)t->strides[d], (long long)step);
    return ct__tensor_view_of(ctx, t, t->ndim, sh, str, t->offset + start * t->strides[d], out);
}

static ct_status ct__fwd_tensor_narrow(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start,
                                       int64_t length, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "narrow", t, out);
    if (st != CT_OK) return st;
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "narrow: dim %d out of range for %d dims", dim,
                             t->ndim);
    int64_t n = t->shape[d];
    /* a negative start wraps as torch's maybe_wrap_dim, which takes a size-0 dim as size 1
     * (narrow(empty, 0, -1, 0) is the empty slice) */
    const int64_t w = n ? n : 1;
    if (start < 0 && start >= -w) start += w;
    if (start < 0 || length < 0 || start > n || length > n - start)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "narrow: start %lld + length %lld exceeds dim %d of size %lld",
                             (long long)start, (long long)length, d, (long long)n);
    return ct_tensor_slice(ctx, t, d, start, start + length, 1, out);
}

static ct_status ct__fwd_tensor_expand(ct_ctx *ctx, const ct_tensor *t, int ndim,
                                       const int64_t *shape, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "expand", t, out);
    if (st != CT_OK) return st;
    if (ndim < t->ndim || ndim > CT_MAX_DIMS || (ndim > 0 && !shape))
        return ct__set_error(ctx, CT_ERR_SHAPE, "expand: %d dims given for a %d-dim tensor", ndim,
                             t->ndim);
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int i = 0; i < ndim; i++) {
        int j = i - lead;
        int64_t want = shape[i];
        if (j < 0) {
            if (want < 0)
                return ct__set_error(ctx, CT_ERR_SHAPE, "expand: size %lld for a new dim %d",
                                     (long long)want, i);
            sh[i] = want;
            str[i] = 0;
        } else if (want == -1 || want == t->shape[j]) {
            sh[i] = t->shape[j];
            str[i] = t->strides[j];
        } else if (t->shape[j] == 1 && want >= 0) {
            sh[i] = want;
            str[i] = 0;
        } else {
            char b[96];
            return ct__set_error(ctx, CT_ERR_SHAPE, "expand: cannot expand %s to %s (dim %d)",
                                 CT__SHAPE_STR(t), ct__shape_str(b, sizeof b, ndim, shape), i);
        }
    }
    int64_t n;
    if ((st = ct__check_shape(ctx, "expand", ndim, sh, t->dtype, &n)) != CT_OK) return st;
    return ct__tensor_view_of(ctx, t, ndim, sh, str, t->offset, out);
}

static ct_status ct__fwd_tensor_squeeze(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "squeeze", t, out);
    if (st != CT_OK) return st;
    int d = -1;
    if (dim != CT_ALL_DIMS && !(t->ndim == 0 && (dim == 0 || dim == -1)) &&
        !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "squeeze: dim %d out of range for %d dims", dim,
                             t->ndim);
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        bool drop = t->shape[i] == 1 && (dim == CT_ALL_DIMS || i == d);
        if (drop) continue;
        sh[n] = t->shape[i];
        str[n++] = t->strides[i];
    }
    return ct__tensor_view_of(ctx, t, n, sh, str, t->offset, out);
}

static ct_status ct__fwd_tensor_unsqueeze(ct_ctx *ctx, const ct_tensor *t, int dim,
                                          ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "unsqueeze", t, out);
    if (st != CT_OK) return st;
    int d = dim < 0 ? dim + t->ndim + 1 : dim;
    if (d < 0 || d > t->ndim)
        return ct__set_error(ctx, CT_ERR_INDEX, "unsqueeze: dim %d out of range for %d dims", dim,
                             t->ndim);
    if (t->ndim >= CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "unsqueeze: a %d-dim tensor has the most dims", t->ndim);
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sh[i] = 1;
            str[i] = 1;
            if (d < t->ndim && !ct__checked_mul(t->strides[d], t->shape[d], &str[i]))
                return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                     "unsqueeze: stride %lld * size %lld overflows",
                                     (long long)t->strides[d], (long long)t->shape[d]);
            continue;
        }
        sh[i] = t->shape[j];
        str[i] = t->strides[j++];
    }
    return ct__tensor_view_of(ctx, t, t->ndim + 1, sh, str, t->offset, out);
}

ct_status ct__cx_part(ct_ctx *ctx, const ct_tensor *t, int part, ct_tensor **out) {
    int64_t str[CT_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
        str[d] = t->strides[d] * 2;
    ct_status st = ct__tensor_view_of(ctx, t, t->ndim, t->shape, str, t->offset * 2 + part, out);
    if (st == CT_OK) (*out)->dtype = ct_dtype_to_real(t->dtype);
    return st;
}

void ct__byte_extent(const ct_tensor *t, int64_t *lo, int64_t *hi) {
    int64_t a = t->offset, b = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        int64_t span = (t->shape[i] - 1) * t->strides[i];
        if (span < 0)
            a += span;
        else
            b += span;
    }
    int64_t sz = (int64_t)ct__itemsize(t->dtype);
    *lo = a * sz;
    *hi = (b + 1) * sz;
}

ct_status ct_tensor_copy_(ct_ctx *ctx, ct_tensor *dst, const ct_tensor *src) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ts[2] = {dst, src};
    ct_status st = ct__check_args(ctx, "copy_", 2, ts, (void *)1);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(dst->dtype) != ct_dtype_is_complex(src->dtype) ||
        (ct_dtype_is_complex(dst->dtype) && dst->dtype != src->dtype)) {
        /* into or out of a complex tensor of another dtype: through a cast (torch's copy_ keeps
         * the real part of a complex source written into a real tensor) */
        ct_tensor *c = NULL, *re = NULL;
        if (ct_dtype_is_complex(src->dtype) && !ct_dtype_is_complex(dst->dtype)) {
            st = ct_real(ctx, src, &re);
            if (st == CT_OK) st = ct_tensor_copy_(ctx, dst, re);
        } else {
            st = ct_cast(ctx, src, dst->dtype, &c);
            if (st == CT_OK) st = ct_tensor_copy_(ctx, dst, c);
        }
        ct_tensor_release(c), ct_tensor_release(re);
        return ct__error_within(ctx, "copy_", st);
    }
    const bool cx = ct_dtype_is_complex(dst->dtype);
    if (cx && (st = ct__ag_no_backward(ctx, "copy_", 2, ts)) != CT_OK) return st;
    if (!cx && (!ct__is_compute_dtype(dst->dtype) || !ct__is_compute_dtype(src->dtype)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "copy_: %s -> %s is not supported here",
                             ct_dtype_name(src->dtype), ct_dtype_name(dst->dtype));
    int nd;
    int64_t sh[CT_MAX_DIMS];
    if ((st = ct__broadcast_shapes(ctx, "copy_", 2, ts, &nd, sh)) != CT_OK) return st;
    bool same = nd == dst->ndim;
    for (int i = 0; same && i < nd; i++)
        same = sh[i] == dst->shape[i];
    if (!same) {
        char b[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "copy_: source %s does not broadcast to destination %s",
                             CT__SHAPE_STR(src), ct__shape_str(b, sizeof b, dst->ndim, dst->shape));
    }
    for (int i = 0; i < dst->ndim; i++)
        if (dst->strides[i] == 0 && dst->shape[i] > 1)
            return ct__set_error(
                ctx, CT_ERR_INVALID_ARG,
                "copy_: the destination has internal overlap (dim %d has stride 0); "
                "copy into a contiguous tensor instead",
                i);
    if (dst->storage == src->storage && ct_tensor_numel(dst) > 0 && ct_tensor_numel(src) > 0) {
        /* same memory: an identical view is a no-op; any other overlap would read elements
         * already written (PyTorch rejects it too) */
        if (ct__same_view(dst, src)) return CT_OK;
        int64_t dlo, dhi, slo, shi;
        ct__byte_extent(dst, &dlo, &dhi);
        ct__byte_extent(src, &slo, &shi);
        if (dlo < shi && slo < dhi)
            return ct__set_error(
                ctx, CT_ERR_INVALID_ARG,
                "copy_: source and destination share memory (bytes [%lld, %lld) and "
                "[%lld, %lld) of one storage); clone the source first",
                (long long)slo, (long long)shi, (long long)dlo, (long long)dhi);
    }
    /* under autograd (grad mode on, dst or src requires grad) dst takes torch's CopyBackwards:
     * src's gradient summed to its shape, zeros to dst's old value. Copying out of a tensor that
     * requires grad with grad mode off (a workspace, as eigh's front end does) records nothing. */
    if (ct__ag_inplace_wanted(ctx, dst, src)) {
        ct__ag_inplace_w w = {"copy_", dst, src, false, NULL, NULL, "CopyBackwards", NULL};
        return ct__ag_inplace(ctx, &w);
    }
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_COPY, 1, 1);
    ct__operand_set(&d.operands[0], dst);
    ct__operand_broadcast(&d.operands[1], src, dst->ndim, dst->shape);
    d.compute_dtype = dst->dtype;
    dst->storage->version++; /* autograd: saved tensors sharing this storage are now stale */
    return ct__submit(ctx, dst->storage->device, &d);
}

/* fill_'s out-of-place form under autograd: full_like(self, *arg) (no history: the node gives
 * the old value a zero gradient). */
static ct_status ct__fill_as(ct_ctx *ctx, const ct_tensor *self, const void *arg, ct_tensor **out) {
    return ct_full_like(ctx, self, *(const double *)arg, out);
}

/* fill_'s write under autograd: the value itself, so an expanded t works too */
static ct_status ct__fill_write(ct_ctx *ctx, ct_tensor *t, const ct_tensor *r, const void *arg) {
    (void)r;
    return ct_tensor_fill_(ctx, t, *(const double *)arg);
}

static ct_status ct__fill(ct_ctx *ctx, const char *op, ct_tensor *t, double value,
                          const char *node) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, op, "self", t);
    if (st != CT_OK) return st;
    if (t->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: the tensor belongs to another context",
                             op);
    if (ct_dtype_is_complex(t->dtype)) { /* value + 0i: the real parts, then the imaginary */
        if ((st = ct__ag_no_backward(ctx, op, 1, (const ct_tensor *const *)&t)) != CT_OK) return st;
        for (int part = 0; part < 2 && st == CT_OK; part++) {
            ct_tensor *p = NULL;
            if ((st = ct__cx_part(ctx, t, part, &p)) == CT_OK)
                st = ct__fill(ctx, op, p, part ? 0.0 : value, node);
            ct_tensor_release(p);
        }
        return st;
    }
    if (!ct__is_compute_dtype(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", op,
                             ct_dtype_name(t->dtype));
    if ((st = ct__check_scalar_fits(ctx, op, t->dtype, value, true)) != CT_OK) return st;
    if (ct__ag_inplace_wanted(ctx, t, NULL)) {
        ct__ag_inplace_w w = {op, t, NULL, false, ct__fill_as, &value, node, ct__fill_write};
        return ct__ag_inplace(ctx, &w);
    }
    t->storage->version++; /* autograd: saved tensors sharing this storage are now stale */
    if (ct_tensor_numel(t) == 0) return CT_OK;
    /* FILL writes through any strides; an expanded tensor (stride 0) gets the one value, as
     * torch's fill_ */
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_FILL, 1, 0);
    ct__operand_set(&d.operands[0], t);
    d.compute_dtype = t->dtype;
    d.scalars[0] = value;
    return ct__submit(ctx, t->storage->device, &d);
}

ct_status ct_tensor_fill_(ct_ctx *ctx, ct_tensor *t, double value) {
    return ct__fill(ctx, "fill_", t, value, "FillBackward2");
}

ct_status ct_tensor_zero_(ct_ctx *ctx, ct_tensor *t) {
    return ct__fill(ctx, "zero_", t, 0.0, "ZeroBackward0");
}

static ct_status ct__fwd_tensor_clone(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "clone", t, out);
    if (st != CT_OK) return st;
    ct_tensor *r;
    if ((st = ct__tensor_new(ctx, t->storage->device, t->dtype, t->ndim, t->shape, &r)) != CT_OK)
        return st;
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_COPY, 1, 1);
    ct__operand_set(&d.operands[0], r);
    ct__operand_set(&d.operands[1], t);
    d.compute_dtype = t->dtype;
    if ((st = ct__submit(ctx, t->storage->device, &d)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

static ct_status ct__fwd_tensor_contiguous(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    ct_status st = ct__view_check(ctx, "contiguous", t, out);
    if (st != CT_OK) return st;
    if (ct_tensor_is_contiguous(t)) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    return ct_tensor_clone(ctx, t, out);
}

/* ---- public view and copy calls that record autograd nodes (tensor/ag_front.h) ---- */
ct_status ct_tensor_view(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                         ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_view(ctx, t, ndim, shape, out),
                (CT__AG_IN1(CT__AG_VIEW, t), r_.n_iv = 1, r_.iv[0] = CT__AG_VIEW_VIEW));
}
ct_status ct_tensor_reshape(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                            ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_reshape(ctx, t, ndim, shape, out),
                (CT__AG_IN1(CT__AG_VIEW, t), r_.n_iv = 1,
                 r_.iv[0] = (*out)->storage == t->storage ? CT__AG_VIEW_RESHAPE
                                                          : CT__AG_VIEW_RESHAPE_COPY));
}
ct_status ct_tensor_permute(ct_ctx *ctx, const ct_tensor *t, const int *perm, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_permute(ctx, t, perm, out), {
        CT__AG_IN1(CT__AG_PERMUTE, t);
        r_.n_iv = t->ndim;
        for (int i = 0; i < t->ndim; i++)
            r_.iv[i] = perm[i];
    });
}
ct_status ct_tensor_transpose(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1,
                              ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_transpose(ctx, t, dim0, dim1, out),
                (CT__AG_IN1(CT__AG_TRANSPOSE, t), r_.n_iv = 2, r_.iv[0] = dim0, r_.iv[1] = dim1));
}
ct_status ct_tensor_slice(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start, int64_t end,
                          int64_t step, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_slice(ctx, t, dim, start, end, step, out),
                (CT__AG_IN1(CT__AG_SLICE, t), r_.n_iv = 4, r_.iv[0] = dim, r_.iv[1] = start,
                 r_.iv[2] = end, r_.iv[3] = step));
}
ct_status ct_tensor_narrow(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start, int64_t length,
                           ct_tensor **out) {
    /* recorded as the slice it is (negative start already wrapped by the forward) */
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_narrow(ctx, t, dim, start, length, out), {
        const int64_t n_ = t->shape[dim < 0 ? dim + t->ndim : dim];
        int64_t s_ = start < 0 ? start + (n_ ? n_ : 1) : start;
        CT__AG_IN1(CT__AG_SLICE, t);
        r_.n_iv = 4;
        r_.iv[0] = dim;
        r_.iv[1] = s_;
        r_.iv[2] = s_ + length;
        r_.iv[3] = 1;
    });
}
ct_status ct_tensor_expand(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                           ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_expand(ctx, t, ndim, shape, out),
                CT__AG_IN1(CT__AG_EXPAND, t));
}
ct_status ct_tensor_squeeze(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out) {
    CT__AG_WRAP(
        ctx, out, ct__fwd_tensor_squeeze(ctx, t, dim, out),
        (CT__AG_IN1(CT__AG_VIEW, t), r_.n_iv = 1,
         r_.iv[0] = dim == CT_ALL_DIMS ? CT__AG_VIEW_SQUEEZE_ALL : CT__AG_VIEW_SQUEEZE_DIM));
}
ct_status ct_tensor_unsqueeze(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_unsqueeze(ctx, t, dim, out),
                (CT__AG_IN1(CT__AG_VIEW, t), r_.n_iv = 1, r_.iv[0] = CT__AG_VIEW_UNSQUEEZE));
}
ct_status ct_tensor_clone(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_clone(ctx, t, out), CT__AG_IN1(CT__AG_IDENTITY, t));
}
ct_status ct_tensor_contiguous(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    /* a contiguous t comes back as itself: nothing to record (the hook skips out == input) */
    CT__AG_WRAP(ctx, out, ct__fwd_tensor_contiguous(ctx, t, out), CT__AG_IN1(CT__AG_IDENTITY, t));
}

/* Indexing front ends: index_select, gather, take_along_dim (CT_OP_GATHER over views whose
 * broadcast dims have stride 0), scatter, scatter_add, one_hot (a copy or fill, then CT_OP_SCATTER
 * in place on the new output), masked_fill (where). An index outside its dim is CT_ERR_INDEX,
 * found by the kernel before it writes anything and worded here. */
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

static bool ct__is_index_dtype(ct_dtype dt) { return dt == CT_INT32 || dt == CT_INT64; }

/* out = in0 gathered along d by idx (idx of out's shape, in of out's ndim). */
static ct_status ct__gather(ct_ctx *ctx, const char *op, const ct_tensor *in, int d,
                            const ct_tensor *idx, ct_tensor **out) {
    ct_tensor *r = NULL;
    ct_status st = ct__tensor_new(ctx, in->storage->device, in->dtype, idx->ndim, idx->shape, &r);
    if (st != CT_OK) return st;
    ct_op_desc desc;
    ct__desc_init(&desc, CT_OP_GATHER, 1, 2);
    ct__operand_set(&desc.operands[0], r);
    ct__operand_set(&desc.operands[1], in);
    ct__operand_set(&desc.operands[2], idx);
    desc.compute_dtype = in->dtype;
    desc.ints[0] = d;
    st = ct__submit(ctx, r->storage->device, &desc);
    if (st == CT_ERR_INDEX)
        ct__set_error(ctx, st, "%s: an index is outside [0, %lld) (dim %d of input %s)", op,
                      (long long)(in->ndim ? in->shape[d] : 1), d, CT__SHAPE_STR(in));
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* int32_ok: the index may be int32 too (torch: index_select, index_add; gather / scatter /
 * scatter_add take int64 only). */
static ct_status ct__index_args(ct_ctx *ctx, const char *op, const ct_tensor *t,
                                const ct_tensor *index, int dim, bool int32_ok, int *d, void *out) {
    const ct_tensor *ins[2] = {t, index};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", op,
                             ct_dtype_name(t->dtype));
    if (int32_ok ? !ct__is_index_dtype(index->dtype) : index->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: index must be %s (as torch), got %s", op,
                             int32_ok ? "int64 or int32" : "int64", ct_dtype_name(index->dtype));
    /* a 0-d input takes dim 0 or -1 (torch wraps against max(ndim, 1)) */
    if (!ct__wrap_dim(dim, t->ndim ? t->ndim : 1, d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for a %d-dim input", op,
                             dim, t->ndim);
    return CT_OK;
}

static ct_status ct__fwd_index_select(ct_ctx *ctx, const ct_tensor *t, int dim,
                                      const ct_tensor *index, ct_tensor **out) {
    int d = 0;
    ct_status st = ct__index_args(ctx, "index_select", t, index, dim, true, &d, out);
    if (st != CT_OK) return st;
    if (index->ndim > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "index_select: index must be 0-d or 1-d, got %s",
                             CT__SHAPE_STR(index));
    /* the index seen as (1, .., L, .., 1) broadcast to the output's shape */
    int64_t L = ct_tensor_numel(index), oshape[CT_MAX_DIMS], vshape[CT_MAX_DIMS];
    int nd = t->ndim ? t->ndim : 1;
    if (L > 0 && ct_tensor_numel(t) == 0) {
        /* an empty result still checks its indices, as torch: against an empty dim at once,
         * otherwise by gathering from a vector of the dim's length (the kernel's bounds check) */
        const int64_t n = t->ndim ? t->shape[d] : 1;
        if (n == 0)
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "index_select: self indexing axis dim should be positive "
                                 "(dim %d of %s is empty)",
                                 d, CT__SHAPE_STR(t));
        ct_tensor *probe = NULL, *flat = NULL, *g = NULL;
        st = ct_tensor_zeros(ctx, CT_INT8, 1, &n, &probe);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, index, 1, &L, &flat);
        if (st == CT_OK) st = ct__gather(ctx, "index_select", probe, 0, flat, &g);
        ct_tensor_release(probe), ct_tensor_release(flat), ct_tensor_release(g);
        if (st != CT_OK) return st;
    }
    for (int k = 0; k < nd; k++) {
        oshape[k] = k == d ? L : t->shape[k];
        vshape[k] = k == d ? L : 1;
    }
    ct_tensor *iv = NULL, *ie = NULL, *t1 = NULL;
    st = ct_tensor_reshape(ctx, index, nd, vshape, &iv);
    if (st == CT_OK) st = ct_tensor_expand(ctx, iv, nd, oshape, &ie);
    if (st == CT_OK) {
        int64_t one[1] = {1};
        st = t->ndim ? (t1 = ct_tensor_retain((ct_tensor *)t), CT_OK)
                     : ct_tensor_reshape(ctx, t, 1, one, &t1);
    }
    ct_tensor *r = NULL;
    if (st == CT_OK) st = ct__gather(ctx, "index_select", t1, d, ie, &r);
    if (st == CT_OK && t->ndim == 0) { /* 0-d in: 0-d out, whatever the index's length (torch) */
        st = L > 0 ? ct_select(ctx, r, 0, 0, out) : ct_tensor_clone(ctx, t, out);
        ct_tensor_release(r);
    } else if (st == CT_OK) {
        *out = r;
    }
    ct_tensor_release(iv);
    ct_tensor_release(ie);
    ct_tensor_release(t1);
    return st;
}

static ct_status ct__fwd_gather(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                ct_tensor **out) {
    int d = 0;
    ct_status st = ct__index_args(ctx, "gather", t, index, dim, false, &d, out);
    if (st != CT_OK) return st;
    if (index->ndim != t->ndim && !(t->ndim <= 1 && index->ndim <= 1))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "gather: index %s and input %s must have the same number of dims",
                             CT__SHAPE_STR(index), CT__SHAPE_STR(t));
    for (int k = 0; k < index->ndim && index->ndim == t->ndim; k++)
        if (k != d && index->shape[k] > t->shape[k]) {
            char b[96];
            return ct__set_error(
                ctx, CT_ERR_SHAPE, "gather: index %s is larger than input %s at dim %d",
                CT__SHAPE_STR(index), ct__shape_str(b, sizeof b, t->ndim, t->shape), k);
        }
    if (index->ndim == t->ndim) return ct__gather(ctx, "gather", t, d, index, out);
    /* a 0-d input or index beside a 1-d one: gather in 1-d, shaped as the index */
    ct_tensor *t1 = NULL, *i1 = NULL, *r = NULL;
    int64_t n1[1] = {ct_tensor_numel(t)}, m1[1] = {ct_tensor_numel(index)};
    st = ct_tensor_reshape(ctx, t, 1, n1, &t1);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, index, 1, m1, &i1);
    if (st == CT_OK) st = ct__gather(ctx, "gather", t1, 0, i1, &r);
    if (st == CT_OK) st = ct_tensor_view(ctx, r, index->ndim, index->shape, out);
    ct_tensor_release(t1), ct_tensor_release(i1), ct_tensor_release(r);
    return st;
}

static ct_status ct__take_along_dim_body(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *indices,
                                         int dim, ct_tensor **out) {
    const ct_tensor *ins[2] = {t, indices};
    ct_status st = ct__check_args(ctx, "take_along_dim", 2, ins, out);
    if (st != CT_OK) return st;
    const ct_tensor *ag_in_[1] = {t};
    /* then the public, recorded gather (complex: the public one runs on the real pairs) */
    const bool want_grad = ct__ag_wants(ctx, 1, ag_in_) || ct_dtype_is_complex(t->dtype);
    if (indices->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "take_along_dim: indices must be int64 (as torch), got %s",
                             ct_dtype_name(indices->dtype));
    if (dim == CT_ALL_DIMS) { /* torch: dim=None flattens both */
        ct_tensor *t1 = NULL, *i1 = NULL;
        int64_t n1[1] = {ct_tensor_numel(t)}, m1[1] = {ct_tensor_numel(indices)};
        st = ct_tensor_reshape(ctx, t, 1, n1, &t1);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, indices, 1, m1, &i1);
        if (st == CT_OK) st = ct_gather(ctx, t1, 0, i1, out);
        ct_tensor_release(t1), ct_tensor_release(i1);
        return st;
    }
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "take_along_dim: dim %d out of range for %d dims",
                             dim, t->ndim);
    if (indices->ndim != t->ndim)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "take_along_dim: input %s and indices %s must have the same number of "
                             "dims",
                             CT__SHAPE_STR(t), CT__SHAPE_STR(indices));
    /* broadcast every dim but d */
    int64_t ts[CT_MAX_DIMS], is[CT_MAX_DIMS];
    for (int k = 0; k < t->ndim; k++) {
        int64_t a = t->shape[k], b = indices->shape[k];
        if (k == d) {
            ts[k] = a, is[k] = b;
            continue;
        }
        if (a != b && a != 1 && b != 1) {
            char b0[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "take_along_dim: input %s and indices %s do not broadcast at dim "
                                 "%d",
                                 CT__SHAPE_STR(t),
                                 ct__shape_str(b0, sizeof b0, indices->ndim, indices->shape), k);
        }
        ts[k] = is[k] = a == 1 ? b : a;
    }
    ct_tensor *te = NULL, *ie = NULL;
    st = ct_tensor_expand(ctx, t, t->ndim, ts, &te);
    if (st == CT_OK) st = ct_tensor_expand(ctx, indices, indices->ndim, is, &ie);
    if (st == CT_OK)
        st = want_grad ? ct_gather(ctx, te, d, ie, out)
                       : ct__gather(ctx, "take_along_dim", te, d, ie, out);
    ct_tensor_release(te), ct_tensor_release(ie);
    return st;
}

ct_status ct_take_along_dim(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *indices, int dim,
                            ct_tensor **out) {
    return ct__error_within(ctx, "take_along_dim",
                            ct__take_along_dim_body(ctx, t, indices, dim, out));
}

/* out = copy of t, then out[.. index[i] ..] (=|+=) src[i] along d; add == 2 (floating dtypes):
 * out[..] = fma(alpha, src[i], out[..]) rounded once (index_add's multi-dim path). */
static ct_status ct__scatter(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                             const ct_tensor *index, const ct_tensor *src, int add, double alpha,
                             ct_tensor **out) {
    const ct_tensor *ins[3] = {t, index, src};
    ct_status st = ct__check_args(ctx, op, 3, ins, out);
    if (st != CT_OK) return st;
    int d = 0;
    if ((st = ct__index_args(ctx, op, t, index, dim, false, &d, out)) != CT_OK) return st;
    if (src->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: src dtype %s differs from self dtype %s", op,
                             ct_dtype_name(src->dtype), ct_dtype_name(t->dtype));
    if (index->ndim != t->ndim || src->ndim != t->ndim)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: self %s, index %s and src must have the same number of dims", op,
                             CT__SHAPE_STR(t), CT__SHAPE_STR(index));
    for (int k = 0; k < t->ndim; k++)
        if (index->shape[k] > src->shape[k] || (k != d && index->shape[k] > t->shape[k])) {
            char b[96];
            return ct__set_error(
                ctx, CT_ERR_SHAPE, "%s: index %s is larger than src %s or self %s at dim %d", op,
                CT__SHAPE_STR(index), ct__shape_str(b, sizeof b, src->ndim, src->shape),
                CT__SHAPE_STR(t), k);
        }
    ct_tensor *r = NULL, *sv = NULL;
    if ((st = ct_tensor_clone(ctx, t, &r)) != CT_OK) return st;
    /* src seen with index's shape (its leading corner) */
    st = ct__tensor_view_of(ctx, src, src->ndim, index->shape, src->strides, src->offset, &sv);
    if (st == CT_OK && ct_tensor_numel(index) > 0) {
        ct_op_desc desc;
        ct__desc_init(&desc, CT_OP_SCATTER, 1, 2);
        ct__operand_set(&desc.operands[0], r);
        ct__operand_set(&desc.operands[1], index);
        ct__operand_set(&desc.operands[2], sv);
        desc.compute_dtype = t->dtype;
        desc.ints[0] = d;
        desc.ints[1] = add;
        desc.scalars[0] = add == 2 ? alpha : 0;
        st = ct__submit(ctx, r->storage->device, &desc);
        if (st == CT_ERR_INDEX)
            ct__set_error(ctx, st, "%s: an index is outside [0, %lld) (dim %d of self %s)", op,
                          (long long)(t->ndim ? t->shape[d] : 1), d, CT__SHAPE_STR(t));
    }
    ct_tensor_release(sv);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct__scatter_reduce_raw(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                                 const ct_tensor *index, const ct_tensor *src, int mode,
                                 ct_tensor **out) {
    CT_ASSERT(mode >= 3 && mode <= 5);
    return ct__scatter(ctx, op, t, dim, index, src, mode, 0, out);
}

/* The autograd record of scatter / scatter_add / index_add: inputs (self, index, src), the
 * wrapped dim, alpha. */
static void ct__ag_scatter_rec(ct__ag_rec *r, int op, const ct_tensor *t, const ct_tensor *index,
                               const ct_tensor *src, int dim, double alpha) {
    r->op = op;
    r->n_in = 3;
    r->in[0] = t, r->in[1] = index, r->in[2] = src;
    int d = dim;
    ct__wrap_dim(dim, t->ndim, &d);
    r->n_iv = 1;
    r->iv[0] = d;
    r->sc[0] = alpha;
}

/* src's gradient is gather(g), index-shaped, summed to src's shape where src has size 1 (torch's
 * rule for a gradient whose shape differs: src (2, 1) with an empty (2, 0) index gets zeros); a
 * src larger than index elsewhere has none (torch fails in backward). Checked before the
 * recording wrapper (inside it the call is nested and the check would pass). */
static ct_status ct__scatter_src_grad(ct_ctx *ctx, const char *op, const ct_tensor *index,
                                      const ct_tensor *src) {
    if (!index || !src || !ct__tensor_live(index) || !ct__tensor_live(src) ||
        index->ndim != src->ndim)
        return CT_OK;
    bool same = true;
    for (int k = 0; k < src->ndim; k++)
        same = same && (index->shape[k] == src->shape[k] || src->shape[k] == 1);
    const ct_tensor *ag_in_[1] = {src};
    return same ? CT_OK : ct__ag_no_backward(ctx, op, 1, ag_in_);
}

ct_status ct_scatter(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                     const ct_tensor *src, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && ct__tensor_live(index))
        return ct__cx_index_op(ctx, 1, t, dim, index, src, 0, out);
    ct_status sg = ct__scatter_src_grad(ctx, "ct_scatter with src larger than index", index, src);
    if (sg != CT_OK) return sg;
    CT__AG_WRAP(ctx, out, ct__scatter(ctx, "scatter", t, dim, index, src, 0, 0, out),
                ct__ag_scatter_rec(&r_, CT__AG_SCATTER, t, index, src, dim, 1.0));
}

ct_status ct_scatter_add(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                         const ct_tensor *src, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && ct__tensor_live(index))
        return ct__cx_index_op(ctx, 2, t, dim, index, src, 0, out);
    ct_status sg =
        ct__scatter_src_grad(ctx, "ct_scatter_add with src larger than index", index, src);
    if (sg != CT_OK) return sg;
    CT__AG_WRAP(ctx, out, ct__scatter(ctx, "scatter_add", t, dim, index, src, 1, 0, out),
                ct__ag_scatter_rec(&r_, CT__AG_SCATTER_ADD, t, index, src, dim, 1.0));
}

static ct_status ct__fwd_index_add(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                   const ct_tensor *source, double alpha, ct_tensor **out);
ct_status ct_index_add(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                       const ct_tensor *source, double alpha, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && ct__tensor_live(index))
        return ct__cx_index_op(ctx, 3, t, dim, index, source, alpha, out);
    if (index && ct__tensor_live(index) && index->ndim == 0) { /* a 1-d index for the formula */
        const ct_tensor *ag_in_[1] = {source};
        ct_status st = ct__ag_no_backward(ctx, "ct_index_add with a 0-d index", 1, ag_in_);
        if (st != CT_OK) return st;
    }
    CT__AG_WRAP(ctx, out, ct__fwd_index_add(ctx, t, dim, index, source, alpha, out),
                ct__ag_scatter_rec(&r_, CT__AG_INDEX_ADD, t, index, source, dim, alpha));
}
static ct_status ct__fwd_index_add(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                   const ct_tensor *source, double alpha, ct_tensor **out) {
    const ct_tensor *ins[3] = {t, index, source};
    ct_status st = ct__check_args(ctx, "index_add", 3, ins, out);
    if (st != CT_OK) return st;
    int d = 0;
    if ((st = ct__index_args(ctx, "index_add", t, index, dim, true, &d, out)) != CT_OK) return st;
    if (index->ndim > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "index_add: index must be 0-d or 1-d, got %s",
                             CT__SHAPE_STR(index));
    if (source->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "index_add: source dtype %s differs from self %s",
                             ct_dtype_name(source->dtype), ct_dtype_name(t->dtype));
    /* alpha converts to self's dtype as torch's checked Scalar conversion: integers take values
     * inside their range (truncated; uint8 also the integers -255..-1, which wrap), bool any
     * value (nonzero or NaN is true: then source is OR-ed in) */
    double av = alpha;
    if (t->dtype == CT_BOOL) {
        av = alpha != 0;
    } else if (!ct_dtype_is_floating(t->dtype) && ct__is_compute_dtype(t->dtype) &&
               !ct__int_scalar_conv(t->dtype, alpha, &av)) {
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "index_add: alpha %g cannot be converted to %s without overflow",
                             alpha, ct_dtype_name(t->dtype));
    } else if (ct_dtype_is_floating(t->dtype) &&
               (st = ct__check_scalar_param(ctx, "index_add", "alpha", t->dtype, alpha, false)) !=
                   CT_OK) {
        return st; /* f32 1e39, bf16 3.4e38 (its own range, as torch) */
    }
    int nd = t->ndim ? t->ndim : 1;
    int64_t L = ct_tensor_numel(index), want[CT_MAX_DIMS], vshape[CT_MAX_DIMS];
    bool ok = (source->ndim ? source->ndim : 1) == nd;
    for (int k = 0; k < nd; k++) {
        want[k] = k == d ? L : (t->ndim ? t->shape[k] : 1);
        vshape[k] = k == d ? L : 1;
        ok = ok && (source->ndim ? source->shape[k] : 1) == want[k];
    }
    if (!ok) {
        char b[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "index_add: source %s must be self %s with dim %d of size %lld (the "
                             "index length)",
                             CT__SHAPE_STR(source), ct__shape_str(b, sizeof b, t->ndim, t->shape),
                             d, (long long)L);
    }
    /* scatter_add of alpha * source at the index broadcast over source's shape */
    ct_tensor *iv = NULL, *ie = NULL, *src = NULL, *t1 = NULL, *s1 = NULL, *r = NULL, *i64 = NULL;
    int64_t one[1] = {1};
    /* an int32 index (torch's index_add takes it) as int64, scatter_add's index dtype */
    st = index->dtype == CT_INT64 ? (i64 = ct_tensor_retain((ct_tensor *)index), CT_OK)
                                  : ct__to_dtype(ctx, index, CT_INT64, &i64);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, i64, nd, vshape, &iv);
    if (st == CT_OK) st = ct_tensor_expand(ctx, iv, nd, want, &ie);
    /* torch's multi-dim path adds f32 / f64 slices with add_(alpha): fma(alpha, source, self)
     * rounded once (alpha as the dtype); its 1-d path (and the other dtypes) rounds
     * alpha * source first */
    const bool fused =
        av != 1.0 && t->ndim > 1 && (t->dtype == CT_FLOAT32 || t->dtype == CT_FLOAT64);
    if (st == CT_OK)
        st = av == 1.0 || fused ? (src = ct_tensor_retain((ct_tensor *)source), CT_OK)
                                : ct_mul_scalar(ctx, source, av, &src);
    if (st == CT_OK && t->dtype == CT_BOOL) { /* bool * 0 promoted to int64: back to bool */
        ct_tensor *sb = NULL;
        st = ct_cast(ctx, src, CT_BOOL, &sb);
        ct_tensor_release(src);
        src = sb;
    }
    if (st == CT_OK)
        st = t->ndim ? (t1 = ct_tensor_retain((ct_tensor *)t), CT_OK)
                     : ct_tensor_reshape(ctx, t, 1, one, &t1);
    if (st == CT_OK)
        st = src->ndim ? (s1 = ct_tensor_retain(src), CT_OK)
                       : ct_tensor_reshape(ctx, src, 1, one, &s1);
    if (st == CT_OK)
        st = fused ? ct__scatter(ctx, "index_add", t1, d, ie, s1, 2, av, &r)
                   : ct_scatter_add(ctx, t1, d, ie, s1, &r);
    if (st == CT_ERR_INDEX)
        ct__set_error(ctx, st, "index_add: an index is outside [0, %lld) (dim %d of self %s)",
                      (long long)(t->ndim ? t->shape[d] : 1), d, CT__SHAPE_STR(t));
    if (st == CT_OK && t->ndim == 0) {
        st = ct_tensor_view(ctx, r, 0, NULL, out);
        ct_tensor_release(r);
    } else if (st == CT_OK) {
        *out = r;
    }
    ct_tensor *all[] = {iv, ie, src, t1, s1, i64};
    for (int k = 0; k < 6; k++)
        ct_tensor_release(all[k]);
    return st;
}

static ct_status ct__masked_fill_body(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                                      double value, ct_tensor **out) {
    const ct_tensor *ins[2] = {t, mask};
    ct_status st = ct__check_args(ctx, "masked_fill", 2, ins, out);
    if (st != CT_OK) return st;
    if (mask->dtype != CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "masked_fill: mask must be bool, got %s",
                             ct_dtype_name(mask->dtype));
    if (!ct__is_compute_dtype(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "masked_fill: dtype %s is a storage format",
                             ct_dtype_name(t->dtype));
    st = ct__check_scalar_fits(ctx, "masked_fill", t->dtype, value, true);
    if (st != CT_OK) return st;
    ct_tensor *v = NULL;
    if (t->storage->device.type == CT_DEVICE_CPU) {
        st = ct_tensor_full(ctx, t->dtype, 0, NULL, value, &v);
    } else {
        ct_tensor *c = NULL;
        st = ct_tensor_full(ctx, t->dtype, 0, NULL, value, &c);
        if (st == CT_OK) st = ct_tensor_to_device(ctx, c, t->storage->device, &v);
        ct_tensor_release(c);
    }
    if (st != CT_OK) return st;
    st = ct_where(ctx, mask, v, t, out); /* a 0-d value keeps t's dtype */
    ct_tensor_release(v);
    return st;
}

ct_status ct_masked_fill(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask, double value,
                         ct_tensor **out) {
    if (ctx && out && ct__tensor_live(mask) && mask->dtype == CT_UINT8) {
        ct_tensor *b_ = NULL; /* torch's deprecated ByteTensor mask: as bool */
        ct_status st_ = ct__byte_mask(ctx, mask, &b_);
        if (st_ == CT_OK) st_ = ct_masked_fill(ctx, t, b_, value, out);
        ct_tensor_release(b_);
        return st_;
    }
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) &&
        ct__tensor_live(mask)) {
        if (mask->dtype != CT_BOOL)
            return ct__set_error(ctx, CT_ERR_DTYPE, "masked_fill: expected a bool mask, got %s",
                                 ct_dtype_name(mask->dtype));
        return ct__cx_masked_fill(ctx, t, mask, value, out);
    }
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "masked_fill", ct__masked_fill_body(ctx, t, mask, value, out));
    return ct__ag_named(ctx, st, out, mark, "MaskedFillBackward0");
}

static ct_status ct__one_hot_body(ct_ctx *ctx, const ct_tensor *indices, int64_t num_classes,
                                  ct_tensor **out) {
    const ct_tensor *ins[1] = {indices};
    ct_status st = ct__check_args(ctx, "one_hot", 1, ins, out);
    if (st != CT_OK) return st;
    if (indices->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "one_hot: indices must be int64 (as torch), got %s",
                             ct_dtype_name(indices->dtype));
    if (indices->ndim + 1 > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "one_hot: indices have too many dims (%d)",
                             indices->ndim);
    int64_t n = ct_tensor_numel(indices);
    if (num_classes < -1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "one_hot: num_classes %lld must be >= -1",
                             (long long)num_classes);
    if (n == 0 && num_classes <= 0) /* torch refuses 0 as well as -1 here */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "one_hot: cannot infer the number of classes from an empty tensor "
                             "(num_classes %lld)",
                             (long long)num_classes);
    if (num_classes == -1) { /* torch: max + 1, read on the host (refused during capture) */
        ct_tensor *mx = NULL;
        double m = 0;
        st = ct_amax(ctx, indices, 0, NULL, false, &mx);
        if (st == CT_OK) st = ct_tensor_item(mx, &m);
        ct_tensor_release(mx);
        if (st != CT_OK) return st;
        num_classes = (int64_t)m + 1;
        if (num_classes < 1) num_classes = 1;
    }
    int64_t shape[CT_MAX_DIMS], ishape[CT_MAX_DIMS];
    for (int k = 0; k < indices->ndim; k++)
        shape[k] = ishape[k] = indices->shape[k];
    shape[indices->ndim] = num_classes;
    ishape[indices->ndim] = 1;
    ct_tensor *r = NULL, *iv = NULL, *one = NULL, *ones = NULL;
    st = ct__tensor_new(ctx, indices->storage->device, CT_INT64, indices->ndim + 1, shape, &r);
    if (st != CT_OK) return st;
    ct_op_desc desc;
    ct__desc_init(&desc, CT_OP_FILL, 1, 0);
    ct__operand_set(&desc.operands[0], r);
    desc.compute_dtype = CT_INT64;
    if (ct_tensor_numel(r) > 0) st = ct__submit(ctx, r->storage->device, &desc);
    /* scatter ones along the last dim at the indices seen as (..., 1) */
    if (st == CT_OK && n > 0) {
        st = ct_tensor_reshape(ctx, indices, indices->ndim + 1, ishape, &iv);
        if (st == CT_OK) st = ct__tensor_new(ctx, r->storage->device, CT_INT64, 0, NULL, &one);
        if (st == CT_OK) {
            ct__desc_init(&desc, CT_OP_FILL, 1, 0);
            ct__operand_set(&desc.operands[0], one);
            desc.compute_dtype = CT_INT64;
            desc.scalars[0] = 1;
            st = ct__submit(ctx, r->storage->device, &desc);
        }
        if (st == CT_OK) st = ct_tensor_expand(ctx, one, iv->ndim, iv->shape, &ones);
        if (st == CT_OK) {
            ct__desc_init(&desc, CT_OP_SCATTER, 1, 2);
            ct__operand_set(&desc.operands[0], r);
            ct__operand_set(&desc.operands[1], iv);
            ct__operand_set(&desc.operands[2], ones);
            desc.compute_dtype = CT_INT64;
            desc.ints[0] = indices->ndim;
            st = ct__submit(ctx, r->storage->device, &desc);
            if (st == CT_ERR_INDEX)
                ct__set_error(ctx, st, "one_hot: a class value is outside [0, %lld)",
                              (long long)num_classes);
        }
    }
    ct_tensor_release(iv), ct_tensor_release(one), ct_tensor_release(ones);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_one_hot(ct_ctx *ctx, const ct_tensor *indices, int64_t num_classes, ct_tensor **out) {
    return ct__error_within(ctx, "one_hot", ct__one_hot_body(ctx, indices, num_classes, out));
}

/* ---- autograd front ends (backward: scatter_add / index_add of the gradient into zeros) ---- */
ct_status ct_index_select(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                          ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) &&
        ct__tensor_live(index)) {
        const ct_tensor *ix[1] = {index};
        return ct__cx_shape_op(ctx, 3, t, 1, &dim, NULL, ix, out);
    }
    CT__AG_WRAP(ctx, out, ct__fwd_index_select(ctx, t, dim, index, out),
                (CT__AG_IN2(CT__AG_INDEX_SELECT, t, index), r_.n_iv = 1, r_.iv[0] = dim));
}
ct_status ct_gather(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                    ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && ct__tensor_live(index))
        return ct__cx_index_op(ctx, 0, t, dim, index, NULL, 0, out);
    CT__AG_WRAP(ctx, out, ct__fwd_gather(ctx, t, dim, index, out),
                (CT__AG_IN2(CT__AG_GATHER, t, index), r_.n_iv = 1, r_.iv[0] = dim));
}

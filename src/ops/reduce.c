/* Reduction front ends (sum, mean, amax, amin, argmax) and softmax / log_softmax. */
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* Turn a dim list into a mask over t's dims; n_dims == 0 means all. */
static ct_status ct__dim_mask(ct_ctx *ctx, const char *op, const ct_tensor *t, int n_dims,
                              const int *dims, uint32_t *mask) {
    if (n_dims < 0 || (n_dims > 0 && !dims))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: bad dim list (n_dims=%d)", op, n_dims);
    if (n_dims == 0) {
        *mask = t->ndim ? (1u << t->ndim) - 1 : 0;
        return CT_OK;
    }
    uint32_t m = 0;
    for (int i = 0; i < n_dims; i++) {
        int d;
        if (t->ndim == 0 && (dims[i] == 0 || dims[i] == -1)) continue;
        if (!ct__wrap_dim(dims[i], t->ndim, &d))
            return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for a %d-dim tensor",
                                 op, dims[i], t->ndim);
        if (m >> d & 1u)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: dim %d appears twice", op, dims[i]);
        m |= 1u << d;
    }
    *mask = m;
    return CT_OK;
}

static ct_status ct__reduce(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                            uint32_t mask, bool keepdim, ct_dtype out_dt, ct_tensor **out) {
    int64_t kshape[CT_MAX_DIMS], fshape[CT_MAX_DIMS];
    int nf = 0;
    for (int d = 0; d < a->ndim; d++) {
        bool red = mask >> d & 1u;
        if (red && a->shape[d] == 0 &&
            (kind == CT_OP_AMAX || kind == CT_OP_AMIN || kind == CT_OP_ARGMAX))
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: cannot reduce dim %d of size 0 (input %s): no identity", name,
                                 d, CT__SHAPE_STR(a));
        kshape[d] = red ? 1 : a->shape[d];
        if (!red) fshape[nf++] = a->shape[d];
    }
    ct_tensor *r = NULL, *view = NULL;
    ct_status st = ct__tensor_new(ctx, a->storage->device, out_dt, a->ndim, kshape, &r);
    if (st != CT_OK) return st;
    ct_op_desc d;
    ct__desc_init(&d, kind, 1, 1);
    ct__operand_set(&d.operands[0], r);
    ct__operand_set(&d.operands[1], a);
    d.compute_dtype = a->dtype;
    d.reduce_mask = mask;
    st = ct__submit(ctx, r->storage->device, &d);
    if (st == CT_OK && !keepdim) {
        st = ct_tensor_view(ctx, r, nf, fshape, &view);
        ct_tensor_release(r);
        r = view;
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

static ct_status ct__reduce_front(ct_ctx *ctx, const char *name, ct_op_kind kind,
                                  const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                                  ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is not supported", name,
                             ct_dtype_name(a->dtype));
    uint32_t mask = 0;
    if ((st = ct__dim_mask(ctx, name, a, n_dims, dims, &mask)) != CT_OK) return st;
    ct_dtype out_dt = a->dtype;
    if (kind == CT_OP_SUM && !ct_dtype_is_floating(a->dtype)) out_dt = CT_INT64;
    if (kind == CT_OP_MEAN && !ct_dtype_is_floating(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "mean: input dtype %s is not floating; cast it first (as torch.mean)",
                             ct_dtype_name(a->dtype));
    return ct__reduce(ctx, name, kind, a, mask, keepdim, out_dt, out);
}

static ct_status ct__fwd_sum(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                             bool keepdim, ct_tensor **out) {
    return ct__reduce_front(ctx, "sum", CT_OP_SUM, a, n_dims, dims, keepdim, out);
}
static ct_status ct__fwd_mean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                              bool keepdim, ct_tensor **out) {
    return ct__reduce_front(ctx, "mean", CT_OP_MEAN, a, n_dims, dims, keepdim, out);
}
static ct_status ct__fwd_amax(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                              bool keepdim, ct_tensor **out) {
    return ct__reduce_front(ctx, "amax", CT_OP_AMAX, a, n_dims, dims, keepdim, out);
}
static ct_status ct__fwd_amin(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                              bool keepdim, ct_tensor **out) {
    return ct__reduce_front(ctx, "amin", CT_OP_AMIN, a, n_dims, dims, keepdim, out);
}

ct_status ct_argmax(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "argmax", 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(a->dtype) || a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "argmax: dtype %s is not supported",
                             ct_dtype_name(a->dtype));
    if (dim == CT_ALL_DIMS) {
        /* flatten (a copy when a is not viewable), reduce the single dim */
        ct_tensor *flat, *r;
        int64_t n = -1;
        if ((st = ct_tensor_reshape(ctx, a, 1, &n, &flat)) != CT_OK) return st;
        st = ct__reduce(ctx, "argmax", CT_OP_ARGMAX, flat, 1u, false, CT_INT64, &r);
        ct_tensor_release(flat);
        if (st != CT_OK) return st;
        if (keepdim && a->ndim > 0) {
            int64_t ones[CT_MAX_DIMS];
            for (int i = 0; i < a->ndim; i++)
                ones[i] = 1;
            ct_tensor *v;
            st = ct_tensor_view(ctx, r, a->ndim, ones, &v);
            ct_tensor_release(r);
            if (st != CT_OK) return st;
            r = v;
        }
        *out = r;
        return CT_OK;
    }
    uint32_t mask = 0;
    if ((st = ct__dim_mask(ctx, "argmax", a, 1, &dim, &mask)) != CT_OK) return st;
    return ct__reduce(ctx, "argmax", CT_OP_ARGMAX, a, mask, keepdim, CT_INT64, out);
}

static ct_status ct__softmax(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                             int dim, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    int d = 0;
    if (a->ndim > 0 && !ct__wrap_dim(dim, a->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for a %d-dim tensor", name,
                             dim, a->ndim);
    if (a->ndim == 0 && dim != 0 && dim != -1)
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for a 0-dim tensor", name,
                             dim);
    ct_dtype dt = a->dtype;
    if (!ct__is_compute_dtype(dt) || !ct_dtype_is_floating(dt))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", name,
                             ct_dtype_name(dt));
    ct_tensor *r;
    if ((st = ct__tensor_new(ctx, a->storage->device, dt, a->ndim, a->shape, &r)) != CT_OK)
        return st;
    ct_op_desc desc;
    ct__desc_init(&desc, kind, 1, 1);
    ct__operand_set(&desc.operands[0], r);
    ct__operand_set(&desc.operands[1], a);
    desc.compute_dtype = dt;
    desc.ints[0] = d;
    if ((st = ct__submit(ctx, r->storage->device, &desc)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}
static ct_status ct__fwd_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    return ct__softmax(ctx, "softmax", CT_OP_SOFTMAX, a, dim, out);
}
static ct_status ct__fwd_log_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    return ct__softmax(ctx, "log_softmax", CT_OP_LOG_SOFTMAX, a, dim, out);
}

/* ---- public front ends that record autograd nodes (tensor/ag_front.h) ---- */
#define CT__AG_REDUCE(OP)                                                                          \
    (CT__AG_IN1(OP, a), r_.iv[0] = keepdim, r_.iv[1] = n_dims > 0 && dims ? n_dims : 0,            \
     r_.n_iv = 2 + (int)r_.iv[1])
#define CT__AG_DIMS()                                                                              \
    for (int i_ = 0; i_ < r_.iv[1] && i_ < CT__AG_MAX_IV - 2; i_++)                                \
    r_.iv[2 + i_] = dims[i_]
#define CT__RED(fn, OP)                                                                            \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,  \
                      ct_tensor **out) {                                                           \
        CT__AG_WRAP(ctx, out, ct__fwd_##fn(ctx, a, n_dims, dims, keepdim, out), {                  \
            CT__AG_REDUCE(OP);                                                                     \
            CT__AG_DIMS();                                                                         \
        });                                                                                        \
    }
CT__RED(sum, CT__AG_SUM)
CT__RED(mean, CT__AG_MEAN)
CT__RED(amax, CT__AG_AMAX)
CT__RED(amin, CT__AG_AMIN)
ct_status ct_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_softmax(ctx, a, dim, out),
                (CT__AG_IN1(CT__AG_SOFTMAX, a), r_.n_iv = 1, r_.iv[0] = dim));
}
ct_status ct_log_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_log_softmax(ctx, a, dim, out),
                (CT__AG_IN1(CT__AG_LOG_SOFTMAX, a), r_.n_iv = 1, r_.iv[0] = dim));
}

/* Reduction front ends (sum, mean, amax, amin, argmax, prod), cumsum / cumprod, softmax /
 * log_softmax, and the composites var, std, logsumexp and norm. */
#include "ctorch/autograd.h"
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>

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
    if (ct_dtype_is_complex(a->dtype) && (kind == CT_OP_SUM || kind == CT_OP_MEAN))
        return ct__cx_sum_mean(ctx, name, kind == CT_OP_MEAN, a, n_dims, dims, keepdim, out);
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is not supported", name,
                             ct_dtype_name(a->dtype));
    uint32_t mask = 0;
    if ((st = ct__dim_mask(ctx, name, a, n_dims, dims, &mask)) != CT_OK) return st;
    ct_dtype out_dt = a->dtype;
    if ((kind == CT_OP_SUM || kind == CT_OP_PROD) && !ct_dtype_is_floating(a->dtype))
        out_dt = CT_INT64;
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

/* ---- prod, cumsum / cumprod ---- */
static ct_status ct__fwd_prod(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim,
                              ct_tensor **out) {
    /* one dim, or every dim (a 0-d result without keepdim, as torch.prod(t)) */
    return dim == CT_ALL_DIMS ? ct__reduce_front(ctx, "prod", CT_OP_PROD, a, 0, NULL, keepdim, out)
                              : ct__reduce_front(ctx, "prod", CT_OP_PROD, a, 1, &dim, keepdim, out);
}
ct_status ct_prod(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))
        return ct__cx_prod(ctx, a, dim, keepdim, out);
    int d = dim; /* the wrapped dim for the formula */
    if (dim != CT_ALL_DIMS && a && ct__tensor_live(a) && a->ndim > 0 &&
        !ct__wrap_dim(dim, a->ndim, &d))
        d = dim;
    CT__AG_WRAP(ctx, out, ct__fwd_prod(ctx, a, dim, keepdim, out),
                (CT__AG_IN1(CT__AG_PROD, a), r_.n_iv = 2, r_.iv[0] = d, r_.iv[1] = keepdim));
}

static ct_status ct__scan(ct_ctx *ctx, const char *name, int prod, const ct_tensor *a, int dim,
                          int *wrapped, ct_tensor **out) {
    ct_status st = ct__one_input(ctx, name, a, out);
    if (st != CT_OK) return st;
    int d = 0;
    if (a->ndim == 0 ? (dim != 0 && dim != -1) : !ct__wrap_dim(dim, a->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for a %d-dim tensor", name,
                             dim, a->ndim);
    *wrapped = d;
    ct_dtype odt = ct_dtype_is_floating(a->dtype) ? a->dtype : CT_INT64;
    ct_tensor *r;
    if ((st = ct__tensor_new(ctx, a->storage->device, odt, a->ndim, a->shape, &r)) != CT_OK)
        return st;
    ct_op_desc desc;
    ct__desc_init(&desc, CT_OP_CUMSUM, 1, 1);
    ct__operand_set(&desc.operands[0], r);
    ct__operand_set(&desc.operands[1], a);
    desc.compute_dtype = a->dtype;
    desc.ints[0] = d;
    desc.ints[1] = prod;
    if ((st = ct__submit(ctx, r->storage->device, &desc)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}
ct_status ct_cumsum(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))
        return ct__cx_cumsum(ctx, a, dim, out);
    int d = 0;
    CT__AG_WRAP(ctx, out, ct__scan(ctx, "cumsum", 0, a, dim, &d, out),
                (CT__AG_IN1(CT__AG_CUMSUM, a), r_.n_iv = 1, r_.iv[0] = d));
}
ct_status ct_cumprod(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))
        return ct__cx_cumprod(ctx, a, dim, out);
    int d = 0;
    CT__AG_WRAP(ctx, out, ct__scan(ctx, "cumprod", 1, a, dim, &d, out),
                (CT__AG_IN1(CT__AG_CUMPROD, a), r_.n_iv = 1, r_.iv[0] = d));
}

ct_status ct__cumprod_grad(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *g, int d,
                           ct_tensor **out) {
    ct_tensor *xc = NULL, *g1 = NULL, *gc = NULL, *r = NULL;
    ct_status st = ct_tensor_contiguous(ctx, x, &xc);
    if (st == CT_OK) st = ct_cast(ctx, g, x->dtype, &g1);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, g1, &gc); /* r's layout, as the kernel reads */
    ct_tensor_release(g1);
    if (st == CT_OK) st = ct__tensor_new(ctx, x->storage->device, x->dtype, x->ndim, x->shape, &r);
    if (st == CT_OK && ct_tensor_numel(x) > 0) {
        ct_op_desc desc;
        ct__desc_init(&desc, CT_OP_CUMSUM, 1, 2);
        ct__operand_set(&desc.operands[0], r);
        ct__operand_set(&desc.operands[1], xc);
        ct__operand_set(&desc.operands[2], gc);
        desc.compute_dtype = x->dtype;
        desc.ints[0] = d;
        desc.ints[1] = 2;
        st = ct__submit(ctx, r->storage->device, &desc);
    }
    ct_tensor_release(xc), ct_tensor_release(gc);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* ---- composites: var / std, logsumexp, norm (public ops, so autograd sees their parts) ---- */

/* The output shape of a reduction over `mask` without keepdim. */
static int ct__squeezed_shape(const ct_tensor *a, uint32_t mask, int64_t *shape) {
    int n = 0;
    for (int d = 0; d < a->ndim; d++)
        if (!(mask >> d & 1u)) shape[n++] = a->shape[d];
    return n;
}

/* Common checks; *mask gets the reduced dims, *n_red their element count. */
static ct_status ct__composite_args(ct_ctx *ctx, const char *name, const ct_tensor *a, int n_dims,
                                    const int *dims, bool float_only, uint32_t *mask, double *n_red,
                                    ct_tensor **out) {
    /* var / std (float_only) take complex input too: the variance of the real pairs */
    ct_status st =
        float_only ? ct__one_input_any(ctx, name, a, out) : ct__one_input(ctx, name, a, out);
    if (st != CT_OK) return st;
    if (float_only && !ct_dtype_is_floating(a->dtype) && !ct_dtype_is_complex(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", name,
                             ct_dtype_name(a->dtype));
    if ((st = ct__dim_mask(ctx, name, a, n_dims, dims, mask)) != CT_OK) return st;
    double n = 1;
    for (int d = 0; d < a->ndim; d++)
        if (*mask >> d & 1u) n *= (double)a->shape[d];
    *n_red = n;
    return CT_OK;
}

/* The dims of mask as a list. */
static int ct__mask_dims(int ndim, uint32_t mask, int *dims) {
    int n = 0;
    for (int d = 0; d < ndim; d++)
        if (mask >> d & 1u) dims[n++] = d;
    return n;
}

/* r (keepdim layout) as the caller asked, cast back to dt; consumes r. */
static ct_status ct__composite_finish(ct_ctx *ctx, const ct_tensor *a, uint32_t mask, bool keepdim,
                                      ct_dtype dt, ct_tensor *r, ct_tensor **out) {
    ct_status st = CT_OK;
    if (r->dtype != dt) {
        ct_tensor *c = NULL;
        st = ct_cast(ctx, r, dt, &c);
        ct_tensor_release(r);
        if (st != CT_OK) return st;
        r = c;
    }
    if (!keepdim) {
        int64_t shape[CT_MAX_DIMS];
        int n = ct__squeezed_shape(a, mask, shape);
        ct_tensor *v = NULL;
        st = ct_tensor_reshape(ctx, r, n, shape, &v);
        ct_tensor_release(r);
        if (st != CT_OK) return st;
        r = v;
    }
    *out = r;
    return CT_OK;
}

/* a in the dtype the composites compute in: f16/bf16 (and integers for logsumexp) in f32. */
static ct_status ct__compute_copy(ct_ctx *ctx, const ct_tensor *a, ct_tensor **x) {
    if (a->dtype == CT_FLOAT32 || a->dtype == CT_FLOAT64) {
        *x = ct_tensor_retain((ct_tensor *)a);
        return CT_OK;
    }
    return ct_cast(ctx, a, CT_FLOAT32, x);
}

static ct_status ct__var(ct_ctx *ctx, const char *name, const ct_tensor *a, int n_dims,
                         const int *dims, double correction, bool keepdim, bool take_sqrt,
                         ct_tensor **out) {
    uint32_t mask;
    double n;
    ct_status st = ct__composite_args(ctx, name, a, n_dims, dims, true, &mask, &n, out);
    if (st != CT_OK) return st;
    if (!(correction >= 0) && !(correction < 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: correction is nan", name);
    int rd[CT_MAX_DIMS], nr = ct__mask_dims(a->ndim, mask, rd);
    ct_tensor *x = NULL, *m = NULL, *dv = NULL, *sq = NULL, *s = NULL, *r = NULL;
    /* in f64, rounded once at the end (torch accumulates f32 in double too): squares of f32
     * deviations above 1.8e19 would overflow an f32 computation to inf. Complex input: the mean
     * deviation |z - mean|^2 = (re^2 + im^2 of the difference), a real result (as torch) */
    const bool cx = ct_dtype_is_complex(a->dtype);
    const ct_dtype wide = cx ? CT_COMPLEX128 : CT_FLOAT64;
    st = a->dtype == wide ? (x = ct_tensor_retain((ct_tensor *)a), CT_OK)
                          : ct_cast(ctx, a, wide, &x);
    if (st == CT_OK) st = ct_mean(ctx, x, nr, rd, true, &m);
    if (st == CT_OK) st = ct_sub(ctx, x, m, &dv);
    if (st == CT_OK && cx) {
        ct_tensor *pairs = NULL, *p2 = NULL;
        st = ct_view_as_real(ctx, dv, &pairs);
        if (st == CT_OK) st = ct_mul(ctx, pairs, pairs, &p2);
        if (st == CT_OK) st = ct_sum(ctx, p2, 1, (const int[]){-1}, false, &sq);
        ct_tensor_release(pairs), ct_tensor_release(p2);
    } else if (st == CT_OK) {
        st = ct_mul(ctx, dv, dv, &sq);
    }
    if (st == CT_OK) st = ct_sum(ctx, sq, nr, rd, true, &s);
    double denom = n - correction > 0 ? n - correction : 0; /* torch: max(0, N - correction) */
    if (st == CT_OK) st = ct_div_scalar(ctx, s, denom, &r);
    if (st == CT_OK && take_sqrt) {
        /* std = where(var == 0, 0, sqrt(where(var == 0, 1, var))): the same values, and the
         * gradient at a zero std is 0 (torch masks it) instead of 0 * inf = NaN */
        ct_tensor *z = NULL, *one = NULL, *zero = NULL, *safe = NULL, *q = NULL, *w = NULL;
        st = ct_eq_scalar(ctx, r, 0.0, &z);
        if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 1.0, &one);
        if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_FLOAT64, 0, NULL, &zero);
        if (st == CT_OK) st = ct_where(ctx, z, one, r, &safe);
        if (st == CT_OK) st = ct_sqrt(ctx, safe, &q);
        if (st == CT_OK) st = ct_where(ctx, z, zero, q, &w);
        ct_tensor_release(z), ct_tensor_release(one), ct_tensor_release(zero);
        ct_tensor_release(safe), ct_tensor_release(q);
        ct_tensor_release(r);
        r = w;
    }
    ct_tensor_release(x), ct_tensor_release(m), ct_tensor_release(dv), ct_tensor_release(sq);
    ct_tensor_release(s);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct__composite_finish(ctx, a, mask, keepdim, ct_dtype_to_real(a->dtype), r, out);
}
ct_status ct_var(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, double correction,
                 bool keepdim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__var(ctx, "var", a, n_dims, dims, correction, keepdim, false, out),
                        out, mark, "VarBackward0");
}
ct_status ct_std(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, double correction,
                 bool keepdim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__var(ctx, "std", a, n_dims, dims, correction, keepdim, true, out),
                        out, mark, "StdBackward0");
}

static ct_status ct__logsumexp_body(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                                    bool keepdim, ct_tensor **out) {
    uint32_t mask;
    double n;
    ct_status st = ct__composite_args(ctx, "logsumexp", a, n_dims, dims, false, &mask, &n, out);
    if (st != CT_OK) return st;
    ct_dtype odt = ct_dtype_is_floating(a->dtype) ? a->dtype : CT_FLOAT32;
    int rd[CT_MAX_DIMS], nr = ct__mask_dims(a->ndim, mask, rd);
    ct_tensor *x = NULL, *r = NULL;
    if ((st = ct__compute_copy(ctx, a, &x)) != CT_OK) return st;
    if (n == 0) { /* the sum of no exponentials is 0: log gives -inf everywhere */
        ct_tensor *s0 = NULL;
        st = ct_sum(ctx, x, nr, rd, true, &s0);
        if (st == CT_OK) st = ct_log(ctx, s0, &r);
        ct_tensor_release(x), ct_tensor_release(s0);
        if (st != CT_OK) return st;
        return ct__composite_finish(ctx, a, mask, keepdim, odt, r, out);
    }
    /* shift by the largest finite element, detached (the shift cancels in the value and in the
     * gradient): +inf elements are left out of the maximum, so a slice holding +inf still shifts
     * its finite elements (their gradient exp(x - sh) / inf is 0, as torch's exp(x - result),
     * instead of inf / inf); a slice without a finite element shifts by 0 so that inf - inf
     * never appears */
    ct_tensor *m = NULL, *inf = NULL, *sh = NULL, *d = NULL, *e = NULL, *s = NULL, *l = NULL;
    ct_tensor *pinf = NULL, *xf = NULL;
    bool grad_off = ctx->grad_off; /* the shift is a constant for autograd (detached) */
    ctx->grad_off = true;
    st = ct_eq_scalar(ctx, x, INFINITY, &pinf);
    if (st == CT_OK) st = ct_masked_fill(ctx, x, pinf, -INFINITY, &xf);
    if (st == CT_OK) st = ct_amax(ctx, xf, nr, rd, true, &m);
    ct_tensor_release(pinf), ct_tensor_release(xf);
    if (st == CT_OK) st = ct_isinf(ctx, m, &inf);
    if (st == CT_OK) st = ct_masked_fill(ctx, m, inf, 0.0, &sh);
    ctx->grad_off = grad_off;
    if (st == CT_OK) st = ct_sub(ctx, x, sh, &d);
    if (st == CT_OK) st = ct_exp(ctx, d, &e);
    if (st == CT_OK) st = ct_sum(ctx, e, nr, rd, true, &s);
    if (st == CT_OK) st = ct_log(ctx, s, &l);
    if (st == CT_OK) st = ct_add(ctx, l, sh, &r);
    ct_tensor_release(x), ct_tensor_release(m), ct_tensor_release(inf);
    ct_tensor_release(sh), ct_tensor_release(d), ct_tensor_release(e), ct_tensor_release(s);
    ct_tensor_release(l);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct__composite_finish(ctx, a, mask, keepdim, odt, r, out);
}

ct_status ct_logsumexp(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                       ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "logsumexp", ct__logsumexp_body(ctx, a, n_dims, dims, keepdim, out));
    return ct__ag_named(ctx, st, out, mark, "LogsumexpBackward0");
}

/* norm with p = +-inf and a gradient to come: torch's backward (linalg_vector_norm's), not that of
 * the amax / amin it is made of. The gradient is sgn(x) * ((g / count) * mask) with mask =
 * (|x| == norm) | isnan(x): a slice holding NaN has gradient 0 where the composite's (no element
 * equals a NaN extreme, count 0) was NaN over the whole slice. */
typedef struct {
    ct_tensor *a;         /* the input itself: under create_graph the backward's ops record on it */
    ct_tensor *r;         /* the forward's value, detached, in the keepdim layout */
    int64_t a_ver, r_ver; /* their versions when saved: an in-place write since fails backward */
    uint32_t mask;
} ct__norminf_user;

static void ct__norminf_free(void *p) {
    ct__norminf_user *u = p;
    if (!u) return;
    ct_tensor_release(u->a);
    ct_tensor_release(u->r);
    free(u);
}

static ct_status ct__norminf_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                      const bool *need, ct_tensor **gin) {
    const ct__norminf_user *u = user;
    if (!need[0]) return CT_OK;
    const ct_tensor *a = u->a;
    int rd[CT_MAX_DIMS], nr = ct__mask_dims(a->ndim, u->mask, rd);
    ct_tensor *g = NULL, *ab = NULL, *hit = NULL, *nan = NULL, *m = NULL, *cnt = NULL, *cf = NULL,
              *share = NULL, *mf = NULL, *t = NULL, *sg = NULL;
    ct_status st = ct__ag_saved_ok(ctx, a, "input", 0, "LinalgVectorNormBackward0", u->a_ver);
    if (st == CT_OK)
        st = ct__ag_saved_ok(ctx, u->r, "output", 0, "LinalgVectorNormBackward0", u->r_ver);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, gout[0], u->r->ndim, u->r->shape, &g);
    if (st == CT_OK) st = ct_abs(ctx, a, &ab);
    /* the norm is the extreme of |x|, one of its elements (exact in any dtype) */
    if (st == CT_OK) st = ct_eq(ctx, ab, u->r, &hit);
    if (st == CT_OK) st = ct_isnan(ctx, a, &nan);
    if (st == CT_OK) st = ct_logical_or(ctx, hit, nan, &m);
    if (st == CT_OK) st = ct_sum(ctx, m, nr, rd, true, &cnt);
    if (st == CT_OK) st = ct_cast(ctx, cnt, a->dtype, &cf);
    if (st == CT_OK) st = ct_div(ctx, g, cf, &share);
    if (st == CT_OK) st = ct_cast(ctx, m, a->dtype, &mf);
    if (st == CT_OK) st = ct_mul(ctx, share, mf, &t);
    if (st == CT_OK) st = ct_sign(ctx, a, &sg); /* sgn: 0 at NaN, as torch */
    if (st == CT_OK) st = ct_mul(ctx, sg, t, &gin[0]);
    ct_tensor_release(g), ct_tensor_release(ab);
    ct_tensor_release(hit), ct_tensor_release(nan), ct_tensor_release(m);
    ct_tensor_release(cnt), ct_tensor_release(cf), ct_tensor_release(share);
    ct_tensor_release(mf), ct_tensor_release(t), ct_tensor_release(sg);
    return st;
}

static const ct__ag_custom CT__NORMINF_FN = {"LinalgVectorNormBackward", ct__norminf_backward,
                                             ct__norminf_free, true};

static ct_status ct__norm_body(ct_ctx *ctx, const ct_tensor *a, double p, int n_dims,
                               const int *dims, bool keepdim, ct_tensor **out);

/* ct__norm_body for p = +-inf with the gradient above recorded */
static ct_status ct__norminf_recorded(ct_ctx *ctx, const ct_tensor *a, double p, int n_dims,
                                      const int *dims, bool keepdim, ct_tensor **out) {
    ct__norminf_user *u = calloc(1, sizeof *u);
    if (!u) return ct__set_error(ctx, CT_ERR_OOM, "norm: out of memory");
    bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = ct__norm_body(ctx, a, p, n_dims, dims, keepdim, out);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK) st = ct__dim_mask(ctx, "norm", a, n_dims, dims, &u->mask);
    if (st == CT_OK) {
        int64_t ks[CT_MAX_DIMS];
        for (int d = 0; d < a->ndim; d++)
            ks[d] = u->mask >> d & 1u ? 1 : a->shape[d];
        ct_tensor *v = NULL;
        st = ct_tensor_detach(ctx, *out, &v);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, v, a->ndim, ks, &u->r);
        ct_tensor_release(v);
    }
    if (st == CT_OK) {
        u->a = ct_tensor_retain((ct_tensor *)a);
        u->a_ver = a->storage->version;
        u->r_ver = u->r->storage->version;
    }
    if (st != CT_OK) {
        ct__norminf_free(u);
        ct_tensor_release(*out);
        *out = NULL;
        return st;
    }
    return ct__ag_record_custom(ctx, &CT__NORMINF_FN, u, a, out);
}

static ct_status ct__norm_body(ct_ctx *ctx, const ct_tensor *a, double p, int n_dims,
                               const int *dims, bool keepdim, ct_tensor **out) {
    uint32_t mask;
    double n;
    ct_status st = ct__composite_args(ctx, "norm", a, n_dims, dims, true, &mask, &n, out);
    if (st != CT_OK) return st;
    if (p != p) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "norm: p is nan");
    int rd[CT_MAX_DIMS], nr = ct__mask_dims(a->ndim, mask, rd);
    /* a negative p has no identity over an empty dim (torch raises; -inf: amin raises below) */
    for (int k = 0; p < 0 && p != -INFINITY && k < nr; k++)
        if (a->shape[rd[k]] == 0)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "norm: cannot compute the %g norm on dim %d because it is empty "
                                 "and the operation has no identity (input %s)",
                                 p, rd[k], CT__SHAPE_STR(a));
    /* accumulate in f64 (f64 input stays as it is) */
    ct_tensor *x = NULL, *ab = NULL, *t = NULL, *r = NULL;
    st = a->dtype == CT_FLOAT64 ? (x = ct_tensor_retain((ct_tensor *)a), CT_OK)
                                : ct_cast(ctx, a, CT_FLOAT64, &x);
    if (st == CT_OK && p != 2) st = ct_abs(ctx, x, &ab);
    if (st == CT_OK) {
        if (p == 2) {
            st = ct_mul(ctx, x, x, &t);
            ct_tensor *s = NULL, *z = NULL, *one = NULL, *ss = NULL, *q = NULL;
            if (st == CT_OK) st = ct_sum(ctx, t, nr, rd, true, &s);
            /* with a gradient to come: sqrt(s), but a zero norm is s itself, the same value
             * with gradient 0 as torch's (sqrt's 1 / (2 sqrt(0)) times 2 x = 0 gave NaN) */
            if (st == CT_OK && !x->requires_grad) st = ct_sqrt(ctx, s, &r);
            if (st == CT_OK && x->requires_grad) {
                st = ct_eq_scalar(ctx, s, 0.0, &z);
                if (st == CT_OK) st = ct_tensor_ones(ctx, CT_FLOAT64, 0, NULL, &one);
                if (st == CT_OK) st = ct_where(ctx, z, one, s, &ss);
                if (st == CT_OK) st = ct_sqrt(ctx, ss, &q);
                if (st == CT_OK) st = ct_where(ctx, z, s, q, &r);
            }
            ct_tensor_release(s), ct_tensor_release(z), ct_tensor_release(one);
            ct_tensor_release(ss), ct_tensor_release(q);
        } else if (p == 1) {
            st = ct_sum(ctx, ab, nr, rd, true, &r);
        } else if (p == INFINITY) {
            st = ct_amax(ctx, ab, nr, rd, true, &r);
        } else if (p == -INFINITY) {
            st = ct_amin(ctx, ab, nr, rd, true, &r);
        } else if (p == 0) {
            ct_tensor *nz = NULL, *c = NULL, *cnt = NULL, *no = NULL, *sa = NULL;
            st = ct_ne_scalar(ctx, ab, 0.0, &nz);
            if (st == CT_OK) st = ct_cast(ctx, nz, CT_FLOAT64, &c);
            if (st == CT_OK) st = ct_sum(ctx, c, nr, rd, true, &cnt);
            if (st == CT_OK && x->requires_grad) {
                /* the count, still part of the graph (torch: a grad_fn whose gradient is none;
                 * here zeros, selected past |a| by an all-false mask, so NaN / inf in g stay out)
                 */
                st = ct_sum(ctx, ab, nr, rd, true, &sa);
                if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_BOOL, 0, NULL, &no);
                if (st == CT_OK) st = ct_where(ctx, no, sa, cnt, &r);
            } else if (st == CT_OK) {
                r = ct_tensor_retain(cnt);
            }
            ct_tensor_release(nz), ct_tensor_release(c), ct_tensor_release(cnt);
            ct_tensor_release(no), ct_tensor_release(sa);
        } else {
            ct_tensor *s = NULL;
            if (p > 0 && x->requires_grad) {
                /* |x|^p with the zeros selected in: the same values, and gradient 0 where
                 * x = 0 as torch's (pow's p |x|^(p-1) is inf there for p < 1, and 1 / p s^(1/p-1)
                 * is inf at a zero norm; multiplied by 0 they gave NaN) */
                ct_tensor *z = NULL, *one = NULL, *safe = NULL, *tp = NULL, *zero = NULL;
                st = ct_eq_scalar(ctx, ab, 0.0, &z);
                if (st == CT_OK) st = ct_tensor_ones(ctx, CT_FLOAT64, 0, NULL, &one);
                if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_FLOAT64, 0, NULL, &zero);
                if (st == CT_OK) st = ct_where(ctx, z, one, ab, &safe);
                if (st == CT_OK) st = ct_pow(ctx, safe, p, &tp);
                if (st == CT_OK) st = ct_where(ctx, z, zero, tp, &t);
                ct_tensor_release(z), ct_tensor_release(one), ct_tensor_release(safe);
                ct_tensor_release(tp), ct_tensor_release(zero);
            } else if (p < 0 && x->requires_grad) {
                /* a slice with a zero has norm 0, and torch's gradient 0 there (inf * 0 gave
                 * NaN): such slices compute on ones instead (no gradient reaches x through
                 * them) and their result is replaced by 0 */
                ct_tensor *z = NULL, *zs = NULL, *zk = NULL, *one = NULL, *zero = NULL,
                          *safe = NULL, *r1 = NULL;
                st = ct_eq_scalar(ctx, ab, 0.0, &z);
                CT__DO(st, ct_any(ctx, z, nr, rd, true, &zk));
                CT__DO(st, ct_tensor_ones(ctx, CT_FLOAT64, 0, NULL, &one));
                CT__DO(st, ct_tensor_zeros(ctx, CT_FLOAT64, 0, NULL, &zero));
                CT__DO(st, ct_tensor_expand(ctx, zk, ab->ndim, ab->shape, &zs));
                CT__DO(st, ct_where(ctx, zs, one, ab, &safe));
                CT__DO(st, ct_pow(ctx, safe, p, &t));
                CT__DO(st, ct_sum(ctx, t, nr, rd, true, &s));
                CT__DO(st, ct_pow(ctx, s, 1.0 / p, &r1));
                CT__DO(st, ct_where(ctx, zk, zero, r1, &r));
                ct_tensor_release(z), ct_tensor_release(zs), ct_tensor_release(zk);
                ct_tensor_release(one), ct_tensor_release(zero), ct_tensor_release(safe);
                ct_tensor_release(r1);
            } else {
                st = ct_pow(ctx, ab, p, &t);
            }
            if (st == CT_OK && !r) st = ct_sum(ctx, t, nr, rd, true, &s);
            if (st == CT_OK && !r) st = ct_pow(ctx, s, 1.0 / p, &r);
            ct_tensor_release(s);
        }
    }
    ct_tensor_release(x), ct_tensor_release(ab), ct_tensor_release(t);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct__composite_finish(ctx, a, mask, keepdim, a->dtype, r, out);
}

ct_status ct_norm(ct_ctx *ctx, const ct_tensor *a, double p, int n_dims, const int *dims,
                  bool keepdim, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) { /* of |z| */
        ct_tensor *m = NULL;
        ct_status st = ct_abs(ctx, a, &m);
        if (st == CT_OK) st = ct_norm(ctx, m, p, n_dims, dims, keepdim, out);
        ct_tensor_release(m);
        return st;
    }
    if (isinf(p) && a && out && ct__ag_wants(ctx, 1, &a))
        return ct__error_within(ctx, "norm",
                                ct__norminf_recorded(ctx, a, p, n_dims, dims, keepdim, out));
    uint64_t mark = ct__ag_mark(ctx); /* torch's one node (the p = +-inf record is named so) */
    return ct__ag_named(
        ctx, ct__error_within(ctx, "norm", ct__norm_body(ctx, a, p, n_dims, dims, keepdim, out)),
        out, mark, "LinalgVectorNormBackward0");
}

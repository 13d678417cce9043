/* rms_norm, group_norm, batch_norm, dropout and pad as compositions of public ops
 * (torch.nn.functional semantics): they are captured, exported and differentiated through their
 * parts. f16/bf16 inputs normalise in f32. */
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>

/* A sticky-status helper: run `call` only while *st is CT_OK, keeping the first failure. */

/* x in f32 when it is f16/bf16 (new reference either way). */
static ct_status ct__norm_input(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    if (x->dtype == CT_FLOAT16 || x->dtype == CT_BFLOAT16) return ct_cast(ctx, x, CT_FLOAT32, out);
    *out = ct_tensor_retain((ct_tensor *)x);
    return CT_OK;
}

/* Check a per-channel / normalized-shape parameter (may be NULL). */
static ct_status ct__check_param(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *p,
                                 const ct_tensor *x, int nd, const int64_t *shape) {
    if (!p) return CT_OK;
    ct_status st = ct__check_tensor(ctx, op, what, p);
    if (st != CT_OK) return st;
    if (p->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s belongs to another context", op,
                             what);
    bool ok = p->ndim == nd;
    for (int i = 0; ok && i < nd; i++)
        ok = p->shape[i] == shape[i];
    if (!ok) {
        char want[96];
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: %s is %s, expected %s", op, what,
                             CT__SHAPE_STR(p), ct__shape_str(want, sizeof want, nd, shape));
    }
    if (!ct_dtype_is_floating(p->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: %s must be floating, got %s", op, what,
                             ct_dtype_name(p->dtype));
    (void)x;
    return CT_OK;
}

/* y = x * w + b with w, b (may be NULL) seen with shape `vshape` (broadcasting over x). */
static ct_status ct__affine(ct_ctx *ctx, ct_tensor **y, const ct_tensor *w, const ct_tensor *b,
                            int nd, const int64_t *vshape) {
    ct_status st = CT_OK;
    const ct_tensor *ps[2] = {w, b};
    for (int k = 0; k < 2 && st == CT_OK; k++) {
        if (!ps[k]) continue;
        ct_tensor *v = NULL, *r = NULL;
        st = ct_tensor_reshape(ctx, ps[k], nd, vshape, &v);
        CT__DO(st, k == 0 ? ct_mul(ctx, *y, v, &r) : ct_add(ctx, *y, v, &r));
        ct_tensor_release(v);
        if (st == CT_OK) {
            ct_tensor_release(*y);
            *y = r;
        }
    }
    return st;
}

/* The normalised y (computed in f32 for f16/bf16 x) in x's dtype as *out; consumes y. */
static ct_status ct__norm_finish(ct_ctx *ctx, const ct_tensor *x, ct_status st, ct_tensor *y,
                                 ct_tensor **out) {
    if (st == CT_OK && y->dtype != x->dtype) {
        ct_tensor *c = NULL;
        st = ct_cast(ctx, y, x->dtype, &c);
        ct_tensor_release(y);
        y = c;
    }
    if (st != CT_OK) {
        ct_tensor_release(y);
        return st;
    }
    *out = y;
    return CT_OK;
}

static ct_status ct__norm_args(ct_ctx *ctx, const char *op, const ct_tensor *x, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(x->dtype) || !ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(x->dtype));
    return CT_OK;
}

static ct_status ct__rms_norm_body(ct_ctx *ctx, const ct_tensor *x, int n_norm,
                                   const ct_tensor *weight, double eps, ct_tensor **out) {
    ct_status st = ct__norm_args(ctx, "rms_norm", x, out);
    if (st != CT_OK) return st;
    if (n_norm < 0 || n_norm > x->ndim)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "rms_norm: n_norm %d outside 0..%d for input %s", n_norm, x->ndim,
                             CT__SHAPE_STR(x));
    if (!(eps >= 0)) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "rms_norm: eps %g < 0", eps);
    const int64_t *ns = x->shape + (x->ndim - n_norm);
    if ((st = ct__check_param(ctx, "rms_norm", "weight", weight, x, n_norm, ns)) != CT_OK)
        return st;
    int dims[CT_MAX_DIMS];
    for (int i = 0; i < n_norm; i++)
        dims[i] = x->ndim - n_norm + i;
    ct_tensor *t[5] = {0}, *y = NULL; /* xf, sq, ms, rs */
    st = ct__norm_input(ctx, x, &t[0]);
    CT__DO(st, ct_mul(ctx, t[0], t[0], &t[1]));
    if (n_norm > 0)
        CT__DO(st, ct_mean(ctx, t[1], n_norm, dims, true, &t[2]));
    else if (st == CT_OK)
        t[2] = ct_tensor_retain(t[1]);
    CT__DO(st, ct_add_scalar(ctx, t[2], eps, &t[3]));
    CT__DO(st, ct_rsqrt(ctx, t[3], &t[4]));
    CT__DO(st, ct_mul(ctx, t[0], t[4], &y));
    ct__release_all(5, t);
    int64_t vs[CT_MAX_DIMS];
    for (int i = 0; i < n_norm; i++)
        vs[i] = ns[i];
    CT__DO(st, ct__affine(ctx, &y, weight, NULL, n_norm, vs));
    return ct__norm_finish(ctx, x, st, y, out);
}

ct_status ct_rms_norm(ct_ctx *ctx, const ct_tensor *x, int n_norm, const ct_tensor *weight,
                      double eps, ct_tensor **out) {
    return ct__error_within(ctx, "rms_norm", ct__rms_norm_body(ctx, x, n_norm, weight, eps, out));
}

/* (x - mean) / sqrt(var + eps) over the dims in `dims` of xf (population variance). */
static ct_status ct__standardize(ct_ctx *ctx, const ct_tensor *xf, int nd, const int *dims,
                                 double eps, ct_tensor **out, ct_tensor **mean_out,
                                 ct_tensor **var_out) {
    ct_tensor *t[5] = {0};
    ct_status st = ct_mean(ctx, xf, nd, dims, true, &t[0]);
    CT__DO(st, ct_sub(ctx, xf, t[0], &t[1]));
    CT__DO(st, ct_var(ctx, xf, nd, dims, 0.0, true, &t[2]));
    CT__DO(st, ct_add_scalar(ctx, t[2], eps, &t[3]));
    CT__DO(st, ct_rsqrt(ctx, t[3], &t[4]));
    CT__DO(st, ct_mul(ctx, t[1], t[4], out));
    if (st == CT_OK && mean_out) *mean_out = ct_tensor_retain(t[0]);
    if (st == CT_OK && var_out) *var_out = ct_tensor_retain(t[2]);
    ct__release_all(5, t);
    return st;
}

static ct_status ct__group_norm_body(ct_ctx *ctx, const ct_tensor *x, int num_groups,
                                     const ct_tensor *weight, const ct_tensor *bias, double eps,
                                     ct_tensor **out) {
    ct_status st = ct__norm_args(ctx, "group_norm", x, out);
    if (st != CT_OK) return st;
    if (x->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "group_norm: input %s needs (N, C, ...)",
                             CT__SHAPE_STR(x));
    int64_t N = x->shape[0], C = x->shape[1];
    if (num_groups <= 0 || C % num_groups != 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "group_norm: %lld channels are not divisible into %d groups",
                             (long long)C, num_groups);
    if (!(eps >= 0)) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "group_norm: eps %g < 0", eps);
    /* torch's F.group_norm refuses groups of one value in a batch of one ((N C / G) times the
     * spatial size equal to 1) */
    int64_t per = N * (C / num_groups);
    for (int d = 2; d < x->ndim; d++)
        per *= x->shape[d];
    if (per == 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "group_norm: expected more than 1 value per channel when training, "
                             "got input size %s with %d groups",
                             CT__SHAPE_STR(x), num_groups);
    if ((st = ct__check_param(ctx, "group_norm", "weight", weight, x, 1, &C)) != CT_OK) return st;
    if ((st = ct__check_param(ctx, "group_norm", "bias", bias, x, 1, &C)) != CT_OK) return st;
    int64_t gs[3] = {N, num_groups, -1};
    int d2 = 2;
    ct_tensor *t[3] = {0}, *y = NULL;
    st = ct__norm_input(ctx, x, &t[0]);
    if (st == CT_OK && ct_tensor_numel(x) == 0) gs[2] = 0; /* reshape cannot infer -1 from 0 */
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 3, gs, &t[1]));
    CT__DO(st, ct__standardize(ctx, t[1], 1, &d2, eps, &t[2], NULL, NULL));
    CT__DO(st, ct_tensor_reshape(ctx, t[2], x->ndim, x->shape, &y));
    ct__release_all(3, t);
    int64_t vs[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        vs[i] = i == 1 ? C : 1;
    CT__DO(st, ct__affine(ctx, &y, weight, bias, x->ndim, vs));
    return ct__norm_finish(ctx, x, st, y, out);
}

ct_status ct_group_norm(ct_ctx *ctx, const ct_tensor *x, int num_groups, const ct_tensor *weight,
                        const ct_tensor *bias, double eps, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "group_norm", ct__group_norm_body(ctx, x, num_groups, weight, bias, eps, out));
    return ct__ag_named(ctx, st, out, mark, "NativeGroupNormBackward0");
}

/* rs = (1 - momentum) * rs + momentum * v, in place, outside autograd. */
static ct_status ct__running_update(ct_ctx *ctx, ct_tensor *rs, const ct_tensor *v,
                                    double momentum) {
    ct_tensor *flat = NULL, *c = NULL;
    int64_t C = rs->shape[0];
    ct_status st = ct_tensor_reshape(ctx, v, 1, &C, &flat);
    CT__DO(st, ct_cast(ctx, flat, rs->dtype, &c));
    CT__DO(st, ct_mul_scalar_(ctx, rs, 1.0 - momentum));
    CT__DO(st, ct_mul_scalar_(ctx, c, momentum));
    CT__DO(st, ct_add_(ctx, rs, c));
    ct_tensor_release(flat), ct_tensor_release(c);
    return st;
}

static ct_status ct__batch_norm_body(ct_ctx *ctx, const ct_tensor *x, ct_tensor *running_mean,
                                     ct_tensor *running_var, const ct_tensor *weight,
                                     const ct_tensor *bias, bool training, double momentum,
                                     double eps, ct_tensor **out) {
    ct_status st = ct__norm_args(ctx, "batch_norm", x, out);
    if (st != CT_OK) return st;
    if (x->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "batch_norm: input %s needs (N, C, ...)",
                             CT__SHAPE_STR(x));
    int64_t C = x->shape[1];
    if (!(eps >= 0)) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "batch_norm: eps %g < 0", eps);
    if (!(momentum >= 0 && momentum <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "batch_norm: momentum %g outside [0, 1]",
                             momentum);
    if ((st = ct__check_param(ctx, "batch_norm", "weight", weight, x, 1, &C)) != CT_OK) return st;
    if ((st = ct__check_param(ctx, "batch_norm", "bias", bias, x, 1, &C)) != CT_OK) return st;
    if ((st = ct__check_param(ctx, "batch_norm", "running_mean", running_mean, x, 1, &C)) != CT_OK)
        return st;
    if ((st = ct__check_param(ctx, "batch_norm", "running_var", running_var, x, 1, &C)) != CT_OK)
        return st;
    if (!training && (!running_mean || !running_var))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "batch_norm: evaluation needs running_mean and running_var");
    if ((running_mean && running_mean->requires_grad) ||
        (running_var && running_var->requires_grad))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "batch_norm: running statistics must not require grad");
    int64_t per = x->shape[0];
    for (int d = 2; d < x->ndim; d++)
        per *= x->shape[d];
    if (ct_tensor_numel(x) == 0) /* torch: an empty result, the running statistics untouched */
        return ct_tensor_clone(ctx, x, out);
    if (training && per == 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "batch_norm: expected more than 1 value per channel when training, "
                             "got input %s",
                             CT__SHAPE_STR(x));
    int dims[CT_MAX_DIMS], nd = 0;
    for (int d = 0; d < x->ndim; d++)
        if (d != 1) dims[nd++] = d;
    int64_t vs[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        vs[i] = i == 1 ? C : 1;
    ct_tensor *xf = NULL, *y = NULL, *mean = NULL, *var = NULL;
    st = ct__norm_input(ctx, x, &xf);
    if (training) {
        CT__DO(st, ct__standardize(ctx, xf, nd, dims, eps, &y, &mean, &var));
        if (st == CT_OK && (running_mean || running_var)) {
            /* running statistics: the unbiased variance, outside autograd (as torch) */
            bool grad_off = ctx->grad_off;
            ctx->grad_off = true;
            ct_tensor *ub = NULL;
            if (running_mean) CT__DO(st, ct__running_update(ctx, running_mean, mean, momentum));
            if (running_var) {
                CT__DO(st, ct_mul_scalar(ctx, var, (double)per / (double)(per - 1), &ub));
                CT__DO(st, ct__running_update(ctx, running_var, ub, momentum));
            }
            ct_tensor_release(ub);
            ctx->grad_off = grad_off;
        }
    } else {
        ct_tensor *t[6] = {0};
        CT__DO(st, ct_tensor_reshape(ctx, running_mean, x->ndim, vs, &t[0]));
        CT__DO(st, ct_tensor_reshape(ctx, running_var, x->ndim, vs, &t[1]));
        CT__DO(st, ct_sub(ctx, xf, t[0], &t[2]));
        CT__DO(st, ct_add_scalar(ctx, t[1], eps, &t[3]));
        CT__DO(st, ct_rsqrt(ctx, t[3], &t[4]));
        CT__DO(st, ct_mul(ctx, t[2], t[4], &t[5]));
        if (st == CT_OK) y = ct_tensor_retain(t[5]);
        ct__release_all(6, t);
    }
    ct_tensor_release(xf), ct_tensor_release(mean), ct_tensor_release(var);
    CT__DO(st, ct__affine(ctx, &y, weight, bias, x->ndim, vs));
    return ct__norm_finish(ctx, x, st, y, out);
}

ct_status ct_batch_norm(ct_ctx *ctx, const ct_tensor *x, ct_tensor *running_mean,
                        ct_tensor *running_var, const ct_tensor *weight, const ct_tensor *bias,
                        bool training, double momentum, double eps, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "batch_norm",
                                    ct__batch_norm_body(ctx, x, running_mean, running_var, weight,
                                                        bias, training, momentum, eps, out));
    return ct__ag_named(ctx, st, out, mark, "NativeBatchNormBackward0");
}

static ct_status ct__dropout_body(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                                  uint64_t seed, uint64_t offset, ct_tensor **out) {
    ct_status st = ct__norm_args(ctx, "dropout", x, out);
    if (st != CT_OK) return st;
    if (!(p >= 0 && p <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "dropout: probability has to be between 0 and 1, but got %g", p);
    if (!training || p == 0) {
        *out = ct_tensor_retain((ct_tensor *)x); /* torch returns the input itself */
        return CT_OK;
    }
    ct_tensor *u = NULL, *keep = NULL, *mask = NULL, *noise = NULL;
    if (x->storage->device.type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "dropout: only CPU tensors so far");
    st = ct_tensor_rand(ctx, x->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32, x->ndim, x->shape,
                        seed, offset, &u);
    CT__DO(st, ct_ge_scalar(ctx, u, p, &keep)); /* kept with probability 1 - p */
    /* as torch: noise = mask / (1 - p) in x's dtype (f32: 1.0f / (float)(1 - p); f16 / bf16 that
     * rounded to the dtype; p = 1: zeros), then x * noise, so a dropped inf or NaN is NaN and a
     * dropped negative -0.0, and the gradient is g * noise */
    const double sc = p == 1                   ? 0.0
                      : x->dtype == CT_FLOAT64 ? 1.0 / (1.0 - p)
                                               : (double)(1.0f / (float)(1.0 - p));
    CT__DO(st, ct_cast(ctx, keep, x->dtype, &mask));
    CT__DO(st, ct_mul_scalar(ctx, mask, sc, &noise));
    CT__DO(st, ct_mul(ctx, x, noise, out));
    ct_tensor_release(u), ct_tensor_release(keep), ct_tensor_release(mask);
    ct_tensor_release(noise);
    return st;
}

ct_status ct_dropout(ct_ctx *ctx, const ct_tensor *x, double p, bool training, uint64_t seed,
                     uint64_t offset, ct_tensor **out) {
    return ct__error_within(ctx, "dropout",
                            ct__dropout_body(ctx, x, p, training, seed, offset, out));
}

/* Padding an empty dim gives a constant: under autograd it still hangs on the input (a node
 * whose gradient is zeros like the empty input), as torch's constant_pad_nd. */
static ct_status ct__pad_empty_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                        const bool *need, ct_tensor **gin) {
    (void)gout;
    return need[0] ? ct_zeros_like(ctx, (const ct_tensor *)user, &gin[0]) : CT_OK;
}
static void ct__pad_empty_free(void *user) { ct_tensor_release(user); }
static const ct__ag_custom CT__PAD_EMPTY_FN = {"ConstantPadNdBackward", ct__pad_empty_backward,
                                               ct__pad_empty_free, false};

/* One dim of ct_pad: y = x with `lo` / `hi` elements added (negative: removed) at dim d. */
static ct_status ct__pad_dim(ct_ctx *ctx, const ct_tensor *x, int d, int64_t lo, int64_t hi,
                             ct_pad_mode mode, double value, ct_tensor **out) {
    int64_t S = x->shape[d], n = S + lo + hi;
    /* torch crops first: the negative pads alone must leave a size >= 0 (so n >= 0 too) */
    if (S + (lo < 0 ? lo : 0) + (hi < 0 ? hi : 0) < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pad: cropping (%lld, %lld) is more than dim %d (size %lld)",
                             (long long)lo, (long long)hi, d, (long long)S);
    if (mode != CT_PAD_CONSTANT && (lo < 0 || hi < 0)) {
        /* torch: a negative pad crops first; the rest pads the cropped tensor in the mode */
        const int64_t a = lo < 0 ? -lo : 0, b = hi < 0 ? -hi : 0;
        ct_tensor *c = NULL;
        ct_status st = ct_tensor_narrow(ctx, x, d, a, S - a - b, &c);
        if (st == CT_OK)
            st = ct__pad_dim(ctx, c, d, lo < 0 ? 0 : lo, hi < 0 ? 0 : hi, mode, value, out);
        ct_tensor_release(c);
        return st;
    }
    if (mode == CT_PAD_REFLECT && (lo >= S || hi >= S || lo < 0 || hi < 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pad: reflect padding (%lld, %lld) must be in [0, %lld) for dim %d of "
                             "size %lld",
                             (long long)lo, (long long)hi, (long long)S, d, (long long)S);
    if ((mode == CT_PAD_REPLICATE || mode == CT_PAD_CIRCULAR) && S == 0 && n > 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "pad: cannot %s-pad dim %d of size 0",
                             mode == CT_PAD_REPLICATE ? "replicate" : "circular", d);
    if (mode == CT_PAD_CIRCULAR && (lo > S || hi > S))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pad: circular padding (%lld, %lld) larger than dim %d (size %lld)",
                             (long long)lo, (long long)hi, d, (long long)S);
    int64_t *idx = ct__alloc(ctx, sizeof(int64_t) * (size_t)(n ? n : 1), 16);
    uint8_t *valid = ct__alloc(ctx, (size_t)(n ? n : 1), 16);
    if (!idx || !valid) {
        ct__free(ctx, idx), ct__free(ctx, valid);
        return ct__set_error(ctx, CT_ERR_OOM, "pad: out of memory for %lld indices", (long long)n);
    }
    bool any_invalid = false;
    for (int64_t j = 0; j < n; j++) {
        int64_t s = j - lo;
        valid[j] = 1;
        if (s < 0 || s >= S) {
            if (mode == CT_PAD_CONSTANT)
                valid[j] = 0, any_invalid = true, s = 0;
            else if (mode == CT_PAD_REFLECT)
                s = s < 0 ? -s : 2 * (S - 1) - s;
            else if (mode == CT_PAD_REPLICATE)
                s = s < 0 ? 0 : S - 1;
            else
                s = ((s % S) + S) % S;
        }
        idx[j] = s;
    }
    int64_t ms[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        ms[i] = i == d ? n : 1;
    ct_tensor *it = NULL, *mt = NULL, *sel = NULL, *base = NULL;
    ct_status st = CT_OK;
    if (S == 0) { /* nothing to select from: constant everywhere (n > 0 only for constant) */
        int64_t shape[CT_MAX_DIMS];
        for (int i = 0; i < x->ndim; i++)
            shape[i] = i == d ? n : x->shape[i];
        st = ct_tensor_full(ctx, x->dtype, x->ndim, shape, value, out);
        if (st == CT_OK && ct__ag_wants(ctx, 1, &x)) {
            st = ct__ag_record_custom(ctx, &CT__PAD_EMPTY_FN, ct_tensor_retain((ct_tensor *)x), x,
                                      out);
            if (st != CT_OK) {
                ct_tensor_release(*out);
                *out = NULL;
            }
        }
    } else {
        st = ct_tensor_from_host(ctx, idx, CT_INT64, 1, &n, &it);
        CT__DO(st, ct_index_select(ctx, x, d, it, &sel));
        if (st == CT_OK && any_invalid) {
            ct_tensor *inv = NULL;
            st = ct_tensor_from_host(ctx, valid, CT_BOOL, x->ndim, ms, &mt);
            CT__DO(st, ct_logical_not(ctx, mt, &inv));
            CT__DO(st, ct_masked_fill(ctx, sel, inv, value, &base));
            ct_tensor_release(inv);
            if (st == CT_OK) *out = ct_tensor_retain(base);
        } else if (st == CT_OK) {
            *out = ct_tensor_retain(sel);
        }
    }
    ct__free(ctx, idx), ct__free(ctx, valid);
    ct_tensor_release(it), ct_tensor_release(mt), ct_tensor_release(sel), ct_tensor_release(base);
    return st;
}

/* torch 1.13's node for F.pad: constant_pad_nd's; reflection / replication pad of the k padded
 * dims' kernel; circular mode is Python slices copied into a new tensor (CopySlices). NULL: the
 * result's own (a copy when no dim is padded in the other modes). */
static const char *ct__pad_node_name(ct_pad_mode mode, int n_pad) {
    static const char *const refl[3] = {"ReflectionPad1DBackward0", "ReflectionPad2DBackward0",
                                        "ReflectionPad3DBackward0"};
    static const char *const repl[3] = {"ReplicationPad1DBackward0", "ReplicationPad2DBackward0",
                                        "ReplicationPad3DBackward0"};
    const int k = n_pad / 2;
    if (mode == CT_PAD_CONSTANT) return "ConstantPadNdBackward0";
    if (k < 1 || k > 3) return NULL;
    return mode == CT_PAD_REFLECT     ? refl[k - 1]
           : mode == CT_PAD_REPLICATE ? repl[k - 1]
                                      : "CopySlices";
}

static ct_status ct__pad_body(ct_ctx *ctx, const ct_tensor *x, int n_pad, const int64_t *pad,
                              ct_pad_mode mode, double value, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "pad", 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "pad: dtype %s is not supported",
                             ct_dtype_name(x->dtype));
    if (n_pad < 0 || n_pad % 2 || n_pad / 2 > x->ndim || (n_pad && !pad))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pad: %d pad values for a %d-dim input (an even count, two per dim "
                             "from the last)",
                             n_pad, x->ndim);
    if ((int)mode < 0 || mode > CT_PAD_CIRCULAR)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "pad: unknown mode %d", (int)mode);
    /* torch 1.13: padding k dims in reflect / replicate mode takes a (k + 1)- or (k + 2)-dim
     * input (unbatched or batched), circular a (k + 2)-dim one, k = 1..3 */
    const int k = n_pad / 2;
    if (mode != CT_PAD_CONSTANT && k > 0 &&
        (k > 3 || x->ndim > k + 2 || x->ndim < (mode == CT_PAD_CIRCULAR ? k + 2 : k + 1)))
        return mode == CT_PAD_CIRCULAR
                   ? ct__set_error(ctx, CT_ERR_SHAPE,
                                   "pad: circular padding of %d dim(s) needs a %d-dim input, got "
                                   "%d dims",
                                   k, k + 2, x->ndim)
                   : ct__set_error(ctx, CT_ERR_SHAPE,
                                   "pad: %s padding of %d dim(s) needs a %d- or %d-dim input, "
                                   "got %d dims",
                                   mode == CT_PAD_REFLECT ? "reflect" : "replicate", k, k + 1,
                                   k + 2, x->ndim);
    /* torch fills the output with the value (a float: no uint8 wrap) as soon as one pad is
     * positive: its conversion to the dtype is checked then, and every padded dim must keep an
     * element (constant_pad_nd; without a positive pad it narrows, where an empty dim is fine) */
    bool fills = false;
    for (int i = 0; i < n_pad; i++)
        fills |= mode == CT_PAD_CONSTANT && pad[i] > 0;
    for (int k = 0; k < n_pad / 2; k++) {
        const int d = x->ndim - 1 - k;
        int64_t n = 0; /* checked here, so the sizes computed below cannot overflow */
        if (!ct__checked_add(x->shape[d], pad[2 * k], &n) ||
            !ct__checked_add(n, pad[2 * k + 1], &n))
            return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                 "pad: padding (%lld, %lld) of dim %d overflows int64",
                                 (long long)pad[2 * k], (long long)pad[2 * k + 1], d);
        if (fills && n <= 0)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "pad: the input size %lld of dim %d plus padding %lld and %lld "
                                 "leaves no element (padding fills only a non-empty output)",
                                 (long long)x->shape[d], d, (long long)pad[2 * k],
                                 (long long)pad[2 * k + 1]);
    }
    if (fills && (st = ct__check_scalar_fits(ctx, "pad", x->dtype, value, false)) != CT_OK)
        return st;
    if (x->storage->device.type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "pad: only CPU tensors so far");
    ct_tensor *y = ct_tensor_retain((ct_tensor *)x);
    for (int k = 0; k < n_pad / 2 && st == CT_OK; k++) {
        ct_tensor *z = NULL;
        st = ct__pad_dim(ctx, y, x->ndim - 1 - k, pad[2 * k], pad[2 * k + 1], mode, value, &z);
        ct_tensor_release(y);
        y = z;
    }
    if (st != CT_OK) {
        ct_tensor_release(y);
        return st;
    }
    if (y == x) { /* no padding: a copy, as torch */
        ct_tensor *c = NULL;
        st = ct_tensor_clone(ctx, y, &c);
        ct_tensor_release(y);
        if (st != CT_OK) return st;
        y = c;
    }
    *out = y;
    return CT_OK;
}
ct_status ct_pad(ct_ctx *ctx, const ct_tensor *x, int n_pad, const int64_t *pad, ct_pad_mode mode,
                 double value, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(x) && ct_dtype_is_complex(x->dtype) && pad) {
        if (mode == CT_PAD_CONSTANT && value != 0)
            return ct__set_error(
                ctx, CT_ERR_UNSUPPORTED,
                "pad: a nonzero constant for a complex tensor is not supported yet");
        const int m[1] = {(int)mode};
        const uint64_t mark = ct__ag_mark(ctx);
        ct_status st = ct__cx_shape_op(ctx, 5, x, n_pad, m, pad, NULL, out);
        const char *node = ct__pad_node_name(mode, n_pad);
        return node ? ct__ag_named(ctx, st, out, mark, node) : st;
    }
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__pad_body(ctx, x, n_pad, pad, mode, value, out);
    const char *name = ct__pad_node_name(mode, n_pad);
    return name ? ct__ag_named(ctx, st, out, mark, name) : st;
}

/* unfold / fold (CT_OP_IM2COL / CT_OP_COL2IM) and what is built on them: conv1d / conv2d (im2col
 * + one batched BLAS matmul, groups as a batch dim), max / avg pooling and adaptive average
 * pooling. torch.nn.functional semantics; differentiable through unfold/fold's formulas and the
 * public ops they compose. */
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>

static int64_t ct__pack2(int64_t h, int64_t w) {
    return (int64_t)((uint64_t)(uint32_t)h | ((uint64_t)(uint32_t)w << 32));
}

/* One CT_OP_IM2COL / CT_OP_COL2IM descriptor: out from in with the packed geometry. */
static ct_status ct__im2col_submit(ct_ctx *ctx, ct_op_kind kind, ct_tensor *out,
                                   const ct_tensor *in, const int64_t *k, const int64_t *str,
                                   const int64_t *pad, const int64_t *dil) {
    ct_op_desc d;
    ct__desc_init(&d, kind, 1, 1);
    ct__operand_set(&d.operands[0], out);
    ct__operand_set(&d.operands[1], in);
    d.compute_dtype = in->dtype;
    d.ints[0] = ct__pack2(k[0], k[1]), d.ints[1] = ct__pack2(str[0], str[1]);
    d.ints[2] = ct__pack2(pad[0], pad[1]), d.ints[3] = ct__pack2(dil[0], dil[1]);
    return ct__submit(ctx, out->storage->device, &d);
}

/* kernel, stride, padding, dilation: the ranges torch accepts, and values that fit 32 bits */
static ct_status ct__check_geom(ct_ctx *ctx, const char *op, const int64_t *k, const int64_t *s,
                                const int64_t *p, const int64_t *d) {
    for (int i = 0; i < 2; i++) {
        if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0 || k[i] > INT32_MAX || s[i] > INT32_MAX ||
            d[i] > INT32_MAX || p[i] > INT32_MAX / 2)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: kernel (%lld, %lld), stride (%lld, %lld), padding (%lld, "
                                 "%lld), dilation (%lld, %lld): kernel, stride and dilation must "
                                 "be >= 1 and padding >= 0",
                                 op, (long long)k[0], (long long)k[1], (long long)s[0],
                                 (long long)s[1], (long long)p[0], (long long)p[1], (long long)d[0],
                                 (long long)d[1]);
    }
    return CT_OK;
}

/* A conv bias (NULL: none) must be 1-d (O) of the input's dtype. */
static ct_status ct__conv_bias(ct_ctx *ctx, const char *op, const ct_tensor *b, int64_t O,
                               ct_dtype dt) {
    if (!b) return CT_OK;
    ct_status st = ct__check_tensor(ctx, op, "bias", b);
    if (st != CT_OK) return st;
    if (b->ndim != 1 || b->shape[0] != O || b->dtype != dt)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: bias must be %s (%lld), got %s %s", op,
                             ct_dtype_name(dt), (long long)O, ct_dtype_name(b->dtype),
                             CT__SHAPE_STR(b));
    return CT_OK;
}

/* Output size of one spatial dim, or -1 when the kernel does not fit. */
static int64_t ct__out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
    int64_t span = in + 2 * p - d * (k - 1) - 1;
    return span < 0 ? -1 : span / s + 1;
}

static ct_status ct__fwd_unfold(ct_ctx *ctx, const ct_tensor *x, const int64_t *k,
                                const int64_t *dil, const int64_t *pad, const int64_t *str,
                                ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "unfold", 1, ins, out);
    if (st != CT_OK) return st;
    if (x->ndim != 4 || !ct__is_compute_dtype(x->dtype))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "unfold: input must be (N, C, H, W) or (C, H, W), got %s %s",
                             ct_dtype_name(x->dtype), CT__SHAPE_STR(x));
    if ((st = ct__check_geom(ctx, "unfold", k, str, pad, dil)) != CT_OK) return st;
    int64_t oh = ct__out_size(x->shape[2], k[0], str[0], pad[0], dil[0]),
            ow = ct__out_size(x->shape[3], k[1], str[1], pad[1], dil[1]);
    if (oh < 0 || ow < 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "unfold: kernel (%lld, %lld) with dilation (%lld, %lld) does not fit "
                             "input %s padded by (%lld, %lld)",
                             (long long)k[0], (long long)k[1], (long long)dil[0], (long long)dil[1],
                             CT__SHAPE_STR(x), (long long)pad[0], (long long)pad[1]);
    int64_t kk, L, shape[3];
    if (!ct__checked_mul(x->shape[1], k[0] * k[1], &kk) || !ct__checked_mul(oh, ow, &L))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "unfold: column count overflows");
    shape[0] = x->shape[0], shape[1] = kk, shape[2] = L;
    ct_tensor *r;
    if ((st = ct__tensor_new(ctx, x->storage->device, x->dtype, 3, shape, &r)) != CT_OK) return st;
    if (ct_tensor_numel(r) > 0 &&
        (st = ct__im2col_submit(ctx, CT_OP_IM2COL, r, x, k, str, pad, dil)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

static ct_status ct__fwd_fold(ct_ctx *ctx, const ct_tensor *cols, const int64_t *osz,
                              const int64_t *k, const int64_t *dil, const int64_t *pad,
                              const int64_t *str, ct_tensor **out) {
    const ct_tensor *ins[1] = {cols};
    ct_status st = ct__check_args(ctx, "fold", 1, ins, out);
    if (st != CT_OK) return st;
    if ((st = ct__check_geom(ctx, "fold", k, str, pad, dil)) != CT_OK) return st;
    if (osz[0] < 0 || osz[1] < 0 || osz[0] > INT32_MAX || osz[1] > INT32_MAX)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "fold: output size (%lld, %lld)",
                             (long long)osz[0], (long long)osz[1]);
    int64_t oh = ct__out_size(osz[0], k[0], str[0], pad[0], dil[0]),
            ow = ct__out_size(osz[1], k[1], str[1], pad[1], dil[1]);
    if (cols->ndim != 3 || !ct__is_compute_dtype(cols->dtype) || oh < 0 || ow < 0 ||
        cols->shape[1] % (k[0] * k[1]) != 0 || cols->shape[2] != oh * ow)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "fold: input %s %s does not match output (%lld, %lld) with kernel "
                             "(%lld, %lld) (expected (N, C*%lld, %lld) or (C*%lld, %lld))",
                             ct_dtype_name(cols->dtype), CT__SHAPE_STR(cols), (long long)osz[0],
                             (long long)osz[1], (long long)k[0], (long long)k[1],
                             (long long)(k[0] * k[1]), (long long)(oh < 0 || ow < 0 ? 0 : oh * ow),
                             (long long)(k[0] * k[1]), (long long)(oh < 0 || ow < 0 ? 0 : oh * ow));
    ct_tensor *c = NULL, *r = NULL;
    if ((st = ct_tensor_contiguous(ctx, cols, &c)) != CT_OK) return st;
    int64_t shape[4] = {cols->shape[0], cols->shape[1] / (k[0] * k[1]), osz[0], osz[1]};
    st = ct__tensor_new(ctx, cols->storage->device, cols->dtype, 4, shape, &r);
    if (st == CT_OK && ct_tensor_numel(r) > 0)
        st = ct__im2col_submit(ctx, CT_OP_COL2IM, r, c, k, str, pad, dil);
    ct_tensor_release(c);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* torch's unbatched forms (unfold of (C, H, W), fold of (C*kh*kw, L), conv2d of (C, H, W), conv1d
 * of (C, L)): the batched op on a view with a batch of one, then that dim dropped (views, so the
 * result is differentiable through them). */
#define CT__UNBATCHED(ctx, x, out, call_on_xb)                                                     \
    do {                                                                                           \
        ct_tensor *xb = NULL, *yb = NULL;                                                          \
        ct_status st_ = ct_tensor_unsqueeze(ctx, x, 0, &xb);                                       \
        if (st_ == CT_OK) st_ = (call_on_xb);                                                      \
        if (st_ == CT_OK) st_ = ct_tensor_squeeze(ctx, yb, 0, out);                                \
        ct_tensor_release(xb), ct_tensor_release(yb);                                              \
        return st_;                                                                                \
    } while (0)

#define CT__AG_GEOM(k, d, p, s)                                                                    \
    (r_.iv[0] = k[0], r_.iv[1] = k[1], r_.iv[2] = d[0], r_.iv[3] = d[1], r_.iv[4] = p[0],          \
     r_.iv[5] = p[1], r_.iv[6] = s[0], r_.iv[7] = s[1])
ct_status ct_unfold(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                    const int64_t dilation[2], const int64_t padding[2], const int64_t stride[2],
                    ct_tensor **out) {
    if (!kernel || !dilation || !padding || !stride)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "unfold: NULL geometry array");
    if (ctx && ct__tensor_live(x) && x->ndim == 3 && out)
        CT__UNBATCHED(ctx, x, out, ct_unfold(ctx, xb, kernel, dilation, padding, stride, &yb));
    CT__AG_WRAP(ctx, out, ct__fwd_unfold(ctx, x, kernel, dilation, padding, stride, out),
                (CT__AG_IN1(CT__AG_UNFOLD, x), r_.n_iv = 10,
                 CT__AG_GEOM(kernel, dilation, padding, stride), r_.iv[8] = x->shape[2],
                 r_.iv[9] = x->shape[3]));
}
ct_status ct_fold(ct_ctx *ctx, const ct_tensor *cols, const int64_t output_size[2],
                  const int64_t kernel[2], const int64_t dilation[2], const int64_t padding[2],
                  const int64_t stride[2], ct_tensor **out) {
    if (!output_size || !kernel || !dilation || !padding || !stride)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "fold: NULL geometry array");
    if (ctx && ct__tensor_live(cols) && cols->ndim == 2 && out)
        CT__UNBATCHED(ctx, cols, out,
                      ct_fold(ctx, xb, output_size, kernel, dilation, padding, stride, &yb));
    CT__AG_WRAP(ctx, out,
                ct__fwd_fold(ctx, cols, output_size, kernel, dilation, padding, stride, out),
                (CT__AG_IN1(CT__AG_FOLD, cols), r_.n_iv = 8,
                 CT__AG_GEOM(kernel, dilation, padding, stride)));
}

/* ---- convolution ---- */
static ct_status ct__conv2d_body(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                                 const ct_tensor *b, const int64_t stride[2],
                                 const int64_t padding[2], const int64_t dilation[2], int groups,
                                 ct_tensor **out) {
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, "conv2d", 2, ins, out);
    if (st != CT_OK) return st;
    if (!stride || !padding || !dilation)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "conv2d: NULL geometry array");
    if (x->ndim == 3 && w->ndim == 4)
        CT__UNBATCHED(ctx, x, out,
                      ct_conv2d(ctx, xb, w, b, stride, padding, dilation, groups, &yb));
    if (x->ndim != 4 || w->ndim != 4)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "conv2d: input %s must be (N, C, H, W) or (C, H, W) and weight %s (O, "
                             "C/groups, kh, kw)",
                             CT__SHAPE_STR(x), ct__shape_str((char[96]){0}, 96, w->ndim, w->shape));
    /* one floating or integer dtype (integers wrap, as torch's slow path); not bool */
    if (x->dtype == CT_BOOL || !ct__is_compute_dtype(x->dtype) || x->dtype != w->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "conv2d: input %s and weight %s must be one floating or integer dtype",
                             ct_dtype_name(x->dtype), ct_dtype_name(w->dtype));
    int64_t C = x->shape[1], O = w->shape[0];
    if (groups < 1 || C % groups || O % groups || w->shape[1] != C / groups)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "conv2d: input %s, weight %s and groups %d do not match (C and O "
                             "divisible by groups, weight dim 1 = C / groups)",
                             CT__SHAPE_STR(x), ct__shape_str((char[96]){0}, 96, w->ndim, w->shape),
                             groups);
    if ((st = ct__conv_bias(ctx, "conv2d", b, O, x->dtype)) != CT_OK) return st;
    int64_t k[2] = {w->shape[2], w->shape[3]};
    int64_t N = x->shape[0], G = groups, K = (C / G) * k[0] * k[1];
    ct_tensor *cols = NULL, *c5 = NULL, *w4 = NULL, *y = NULL, *y4 = NULL, *r = NULL;
    st = ct_unfold(ctx, x, k, dilation, padding, stride, &cols); /* (N, C*kh*kw, L) */
    if (st != CT_OK) return st;
    int64_t L = cols->shape[2];
    int64_t oh = ct__out_size(x->shape[2], k[0], stride[0], padding[0], dilation[0]),
            ow = ct__out_size(x->shape[3], k[1], stride[1], padding[1], dilation[1]);
    int64_t cs[4] = {N, G, K, L}, ws[3] = {G, O / G, K}, ys[4] = {N, O, oh, ow};
    CT__DO(st, ct_tensor_reshape(ctx, cols, 4, cs, &c5));
    CT__DO(st, ct_tensor_reshape(ctx, w, 3, ws, &w4));
    CT__DO(st, ct_matmul(ctx, w4, c5, &y)); /* (G, O/G, K) @ (N, G, K, L) = (N, G, O/G, L) */
    CT__DO(st, ct_tensor_reshape(ctx, y, 4, ys, &y4));
    if (st == CT_OK && b) {
        ct_tensor *bv = NULL;
        int64_t bs[4] = {1, O, 1, 1};
        st = ct_tensor_reshape(ctx, b, 4, bs, &bv);
        CT__DO(st, ct_add(ctx, y4, bv, &r));
        ct_tensor_release(bv);
    } else if (st == CT_OK) {
        r = ct_tensor_retain(y4);
    }
    ct_tensor_release(cols), ct_tensor_release(c5), ct_tensor_release(w4);
    ct_tensor_release(y), ct_tensor_release(y4);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_conv2d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                    const int64_t stride[2], const int64_t padding[2], const int64_t dilation[2],
                    int groups, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "conv2d", ct__conv2d_body(ctx, x, w, b, stride, padding, dilation, groups, out));
    return st != CT_OK ? st
                       : ct__ag_named(ctx, st, out, mark,
                                      x->ndim == 3 ? "SqueezeBackward1" : "ConvolutionBackward0");
}

static ct_status ct__conv1d_body(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                                 const ct_tensor *b, int64_t stride, int64_t padding,
                                 int64_t dilation, int groups, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, "conv1d", 2, ins, out);
    if (st != CT_OK) return st;
    if (x->ndim == 2 && w->ndim == 3)
        CT__UNBATCHED(ctx, x, out,
                      ct_conv1d(ctx, xb, w, b, stride, padding, dilation, groups, &yb));
    if (x->ndim != 3 || w->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "conv1d: input %s must be (N, C, L) or (C, L) and weight (O, "
                             "C/groups, k)",
                             CT__SHAPE_STR(x));
    /* the checks conv2d and unfold would make, in conv1d's terms (theirs name 4-d shapes) */
    if (x->dtype == CT_BOOL || !ct__is_compute_dtype(x->dtype) || x->dtype != w->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "conv1d: input %s and weight %s must be one floating or integer dtype",
                             ct_dtype_name(x->dtype), ct_dtype_name(w->dtype));
    const int64_t C = x->shape[1], O = w->shape[0], k = w->shape[2];
    if (groups < 1 || C % groups || O % groups || w->shape[1] != C / groups)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "conv1d: input %s, weight %s and groups %d do not match (C and O "
                             "divisible by groups, weight dim 1 = C / groups)",
                             CT__SHAPE_STR(x), ct__shape_str((char[96]){0}, 96, w->ndim, w->shape),
                             groups);
    if (k < 1 || stride < 1 || dilation < 1 || padding < 0 || k > INT32_MAX || stride > INT32_MAX ||
        dilation > INT32_MAX || padding > INT32_MAX / 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "conv1d: kernel %lld, stride %lld, padding %lld, dilation %lld: "
                             "kernel, stride and dilation must be >= 1 and padding >= 0",
                             (long long)k, (long long)stride, (long long)padding,
                             (long long)dilation);
    if (ct__out_size(x->shape[2], k, stride, padding, dilation) < 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "conv1d: kernel %lld with dilation %lld does not fit input %s padded "
                             "by %lld",
                             (long long)k, (long long)dilation, CT__SHAPE_STR(x),
                             (long long)padding);
    if ((st = ct__conv_bias(ctx, "conv1d", b, O, x->dtype)) != CT_OK) return st;
    /* as conv2d over (N, C, 1, L) with a (O, C/g, 1, k) kernel */
    int64_t xs[4] = {x->shape[0], x->shape[1], 1, x->shape[2]},
            ws[4] = {w->shape[0], w->shape[1], 1, w->shape[2]};
    int64_t s2[2] = {1, stride}, p2[2] = {0, padding}, d2[2] = {1, dilation};
    ct_tensor *x4 = NULL, *w4 = NULL, *y = NULL;
    st = ct_tensor_reshape(ctx, x, 4, xs, &x4);
    CT__DO(st, ct_tensor_reshape(ctx, w, 4, ws, &w4));
    CT__DO(st, ct_conv2d(ctx, x4, w4, b, s2, p2, d2, groups, &y));
    if (st == CT_OK) {
        int64_t ys[3] = {y->shape[0], y->shape[1], y->shape[3]};
        st = ct_tensor_reshape(ctx, y, 3, ys, out);
    }
    ct_tensor_release(x4), ct_tensor_release(w4), ct_tensor_release(y);
    return st;
}

ct_status ct_conv1d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                    int64_t stride, int64_t padding, int64_t dilation, int groups,
                    ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "conv1d", ct__conv1d_body(ctx, x, w, b, stride, padding, dilation, groups, out));
    return st != CT_OK ? st
                       : ct__ag_named(ctx, st, out, mark,
                                      x->ndim == 2 ? "SqueezeBackward1" : "ConvolutionBackward0");
}

/* ---- pooling ---- */
/* torch's pooling_output_shape: floor((in + 2p - d(k-1) - 1 (+ s - 1 with ceil_mode)) / s) + 1,
 * rounding toward -inf (so with ceil_mode a kernel wider than the padded input still gives one
 * window, as torch); the last window may overhang the padded input but must start inside the
 * input or its left padding. <= 0 when no window fits. */
static int64_t ct__pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil && o > 0 && (o - 1) * s >= in + p) o--;
    return o;
}

/* (1, 1, H, W) of `value` in dtype, padded by pads (F.pad order) with `fill`, as unfolded columns
 * (1, 1, kh*kw, L): the per-window constants of pooling (valid counts, input positions). */
static ct_status ct__pool_cols(ct_ctx *ctx, ct_dtype dt, int64_t H, int64_t W, const ct_tensor *img,
                               const int64_t pads[4], double fill, const int64_t *k,
                               const int64_t *d, const int64_t *s, ct_tensor **out) {
    const int64_t zero[2] = {0, 0}, sh[4] = {1, 1, H, W};
    ct_tensor *one = NULL, *pd = NULL, *cols = NULL;
    ct_status st =
        img ? ct_tensor_reshape(ctx, img, 4, sh, &one) : ct_tensor_ones(ctx, dt, 4, sh, &one);
    CT__DO(st, ct_pad(ctx, one, 4, pads, CT_PAD_CONSTANT, fill, &pd));
    CT__DO(st, ct_unfold(ctx, pd, k, d, zero, s, &cols));
    if (st == CT_OK) {
        const int64_t cs[4] = {1, 1, k[0] * k[1], cols->shape[2]};
        st = ct_tensor_reshape(ctx, cols, 4, cs, out);
    }
    ct_tensor_release(one), ct_tensor_release(pd), ct_tensor_release(cols);
    return st;
}

/* The accumulation dtype of average pooling: torch's acc type (float for bf16; f16, which torch
 * 1.13 does not pool on CPU, the same), else the input's. */
static ct_dtype ct__pool_acc_dtype(ct_dtype dt) {
    return dt == CT_BFLOAT16 || dt == CT_FLOAT16 ? CT_FLOAT32 : dt;
}

/* Sum of t over index pairs (i, j) of dims d1 (n1 values) and d2 (n2; d2 < 0: none) in that
 * order, i outer, one add at a time as torch's pooling loops (keepdim). Floats start from +0
 * (the first term plus 0), as torch's sum does (an all -0.0 window sums to +0.0). */
static ct_status ct__seq_sum(ct_ctx *ctx, const ct_tensor *t, int d1, int64_t n1, int d2,
                             int64_t n2, ct_tensor **out) {
    ct_tensor *acc = NULL;
    ct_status st = CT_OK;
    for (int64_t i = 0; i < n1 && st == CT_OK; i++)
        for (int64_t j = 0; j < n2 && st == CT_OK; j++) {
            ct_tensor *a = NULL, *b = NULL, *nx = NULL;
            st = ct_tensor_narrow(ctx, t, d1, i, 1, &a);
            if (d2 >= 0) CT__DO(st, ct_tensor_narrow(ctx, a, d2, j, 1, &b));
            const ct_tensor *term = d2 >= 0 ? b : a;
            if (st == CT_OK && !acc) {
                if (ct_dtype_is_floating(t->dtype))
                    st = ct_add_scalar(ctx, term, 0.0, &nx);
                else
                    nx = ct_tensor_retain((ct_tensor *)term);
            } else if (st == CT_OK) {
                st = ct_add(ctx, acc, term, &nx);
            }
            ct_tensor_release(a), ct_tensor_release(b);
            if (st == CT_OK) ct_tensor_release(acc), acc = nx;
        }
    if (st != CT_OK) {
        ct_tensor_release(acc);
        return st;
    }
    *out = acc;
    return CT_OK;
}

/* sum / count (a tensor, or the number c when count is NULL), torch's division. */
static ct_status ct__pool_div(ct_ctx *ctx, const ct_tensor *sum, const ct_tensor *count, double c,
                              ct_tensor **out) {
    /* int64 (torch pools it): the C division, toward zero */
    const ct_rounding_mode m = ct_dtype_is_floating(sum->dtype) ? CT_ROUND_NONE : CT_ROUND_TRUNC;
    return count ? ct_div_mode(ctx, sum, count, m, out) : ct_div_scalar_mode(ctx, sum, c, m, out);
}

/* Per window of c4 (N, C, kk, L), keepdim: the position of the first maximum, or of the last NaN
 * when the window holds one (torch's scan: val > max || isnan(val)). */
static ct_status ct__pool_argmax(ct_ctx *ctx, const ct_tensor *c4, ct_tensor **out) {
    int two = 2;
    ct_tensor *first = NULL, *fl = NULL, *lastr = NULL, *last = NULL, *v = NULL, *nan = NULL;
    ct_status st = ct_argmax(ctx, c4, two, true, &first);
    CT__DO(st, ct_flip(ctx, c4, 1, &two, &fl));
    CT__DO(st, ct_argmax(ctx, fl, two, true, &lastr)); /* the first NaN from the end */
    CT__DO(st, ct_sub_scalar(ctx, lastr, (double)(c4->shape[2] - 1), &last));
    CT__DO(st, ct_take_along_dim(ctx, c4, first, two, &v));
    CT__DO(st, ct_isnan(ctx, v, &nan));
    if (st == CT_OK) { /* kk - 1 - r as -(r - (kk - 1)) */
        ct_tensor *pos = NULL;
        st = ct_neg(ctx, last, &pos);
        CT__DO(st, ct_where(ctx, nan, pos, first, out));
        ct_tensor_release(pos);
    }
    ct_tensor_release(first), ct_tensor_release(fl), ct_tensor_release(lastr);
    ct_tensor_release(last), ct_tensor_release(v), ct_tensor_release(nan);
    return st;
}

static ct_status ct__pool(ct_ctx *ctx, const char *name, bool is_max, const ct_tensor *x,
                          const int64_t kernel[2], const int64_t stride[2],
                          const int64_t padding[2], const int64_t dilation[2], bool ceil_mode,
                          bool count_include_pad, bool split_div, int64_t divisor, ct_tensor **out,
                          ct_tensor **indices) {
    const ct_tensor *ins[1] = {x};
    if (indices) *indices = NULL;
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (!kernel || !padding || !dilation)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL geometry array", name);
    if (x->ndim != 4 && x->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input (N, C, H, W) or (C, H, W) required, got %s", name,
                             CT__SHAPE_STR(x));
    if (!ct_dtype_is_floating(x->dtype) && (is_max || x->dtype != CT_INT64))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input%s required, got %s", name,
                             is_max ? "" : " (or int64)", ct_dtype_name(x->dtype));
    const int64_t *s = stride ? stride : kernel; /* torch: stride defaults to the kernel */
    for (int i = 0; i < 2; i++)
        if (padding[i] < 0 || 2 * padding[i] > kernel[i])
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: padding (%lld, %lld) must be at most half the kernel "
                                 "(%lld, %lld)",
                                 name, (long long)padding[0], (long long)padding[1],
                                 (long long)kernel[0], (long long)kernel[1]);
    if ((st = ct__check_geom(ctx, name, kernel, s, padding, dilation)) != CT_OK) return st;
    bool batched = x->ndim == 4;
    int64_t N = batched ? x->shape[0] : 1, C = x->shape[batched], H = x->shape[batched + 1],
            W = x->shape[batched + 2];
    int64_t oh = ct__pool_out(H, kernel[0], s[0], padding[0], dilation[0], ceil_mode),
            ow = ct__pool_out(W, kernel[1], s[1], padding[1], dilation[1], ceil_mode);
    if (oh <= 0 || ow <= 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: output size (%lld, %lld) for input %s is too small", name,
                             (long long)oh, (long long)ow, CT__SHAPE_STR(x));
    /* rows / columns past the padded input that ceil_mode's last window covers */
    int64_t eh = (oh - 1) * s[0] + dilation[0] * (kernel[0] - 1) + 1 - (H + 2 * padding[0]),
            ew = (ow - 1) * s[1] + dilation[1] * (kernel[1] - 1) + 1 - (W + 2 * padding[1]);
    eh = eh > 0 ? eh : 0, ew = ew > 0 ? ew : 0;
    const int64_t pads[4] = {padding[1], padding[1] + ew, padding[0], padding[0] + eh};
    const int64_t kk = kernel[0] * kernel[1], L = oh * ow, zero[2] = {0, 0};
    int64_t x4s[4] = {N, C, H, W};
    ct_tensor *x4 = NULL, *xp = NULL, *cols = NULL, *c4 = NULL, *red = NULL, *am = NULL;
    ct_tensor *ninf = NULL; /* max: the windows whose maximum is -inf */
    double *first = NULL;   /* max: each window's first position inside the input */
    st = ct_tensor_reshape(ctx, x, 4, x4s, &x4);
    const bool plain_avg = !is_max && !ceil_mode && count_include_pad;
    if (plain_avg) { /* every window holds kh*kw elements of the zero-padded input */
        CT__DO(st, ct_unfold(ctx, x4, kernel, dilation, padding, s, &cols));
    } else { /* max pads with -inf (not the zeros unfold pads with); both pad ceil's overhang */
        CT__DO(st, ct_pad(ctx, x4, 4, pads, CT_PAD_CONSTANT, is_max ? -INFINITY : 0.0, &xp));
        CT__DO(st, ct_unfold(ctx, xp, kernel, dilation, zero, s, &cols));
    }
    int64_t cs[4] = {N, C, kk, L};
    int two = 2;
    CT__DO(st, ct_tensor_reshape(ctx, cols, 4, cs, &c4));
    if (is_max) { /* torch's rule: the first maximum; a window with NaN: its last NaN */
        CT__DO(st, ct__pool_argmax(ctx, c4, &am));
        /* a window whose maximum is -inf: torch's index (and so its gradient) stays at its
         * initial tap, the window start moved into the input by dilation steps (tap (a, b),
         * flat input position `first`), where the first maximum may be a padding tap; the
         * value is -inf either way */
        ct_tensor *m0 = NULL, *tt = NULL, *am2 = NULL;
        CT__DO(st, ct_take_along_dim(ctx, c4, am, two, &m0)); /* (its graph node is dropped) */
        CT__DO(st, ct_eq_scalar(ctx, m0, -INFINITY, &ninf));
        int64_t *tap = st == CT_OK ? ct__alloc(ctx, sizeof(int64_t) * (size_t)L, 16) : NULL;
        first = st == CT_OK ? ct__alloc(ctx, sizeof(double) * (size_t)L, 16) : NULL;
        if (st == CT_OK && (!tap || !first))
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", name);
        for (int64_t i = 0; st == CT_OK && i < oh; i++)
            for (int64_t j = 0; j < ow; j++) {
                int64_t a = 0, b = 0, h0 = i * s[0] - padding[0], w0 = j * s[1] - padding[1];
                for (; h0 < 0; a++)
                    h0 += dilation[0];
                for (; w0 < 0; b++)
                    w0 += dilation[1];
                tap[i * ow + j] = a < kernel[0] && b < kernel[1] ? a * kernel[1] + b : 0;
                first[i * ow + j] = (double)(h0 * W + w0);
            }
        const int64_t ts4[4] = {1, 1, 1, L};
        CT__DO(st, ct_tensor_from_host(ctx, tap, CT_INT64, 4, ts4, &tt));
        ct__free(ctx, tap);
        CT__DO(st, ct_where(ctx, ninf, tt, am, &am2));
        if (st == CT_OK) ct_tensor_release(am), am = am2, am2 = NULL;
        CT__DO(st, ct_take_along_dim(ctx, c4, am, two, &red));
        ct_tensor_release(m0), ct_tensor_release(tt), ct_tensor_release(am2);
    } else { /* torch: the window's elements summed in order in the accumulation type, then
              * divided by kh kw (count_include_pad, ceil's overhang not counted) or by the
              * count inside the input */
        const ct_dtype cdt = ct__pool_acc_dtype(x->dtype);
        ct_tensor *ca = NULL, *sum = NULL, *cnt = NULL, *cc = NULL, *q = NULL;
        CT__DO(st, ct__to_dtype(ctx, c4, cdt, &ca));
        CT__DO(st, ct__seq_sum(ctx, ca, 2, kk, -1, 1, &sum));
        if (divisor != 0) { /* divisor_override (a negative one too, as torch) */
            CT__DO(st, ct__pool_div(ctx, sum, NULL, (double)divisor, &q));
        } else if (plain_avg && split_div) { /* adaptive pooling's sum / kh / kw */
            ct_tensor *q1 = NULL;
            CT__DO(st, ct__pool_div(ctx, sum, NULL, (double)kernel[0], &q1));
            CT__DO(st, ct__pool_div(ctx, q1, NULL, (double)kernel[1], &q));
            ct_tensor_release(q1);
        } else if (plain_avg) {
            CT__DO(st, ct__pool_div(ctx, sum, NULL, (double)kk, &q));
        } else {
            if (count_include_pad) {
                const int64_t pp[4] = {0, ew, 0, eh};
                CT__DO(st, ct__pool_cols(ctx, cdt, H + 2 * padding[0], W + 2 * padding[1], NULL, pp,
                                         0.0, kernel, dilation, s, &cc));
            } else {
                CT__DO(st,
                       ct__pool_cols(ctx, cdt, H, W, NULL, pads, 0.0, kernel, dilation, s, &cc));
            }
            CT__DO(st, ct_sum(ctx, cc, 1, &two, true, &cnt)); /* exact small integers */
            CT__DO(st, ct__pool_div(ctx, sum, cnt, 0, &q));
        }
        CT__DO(st, ct__to_dtype(ctx, q, x->dtype, &red));
        ct_tensor_release(ca), ct_tensor_release(sum), ct_tensor_release(cnt);
        ct_tensor_release(cc), ct_tensor_release(q);
    }
    if (st == CT_OK) {
        int64_t os[4] = {N, C, oh, ow};
        st = batched ? ct_tensor_reshape(ctx, red, 4, os, out)
                     : ct_tensor_reshape(ctx, red, 3, os + 1, out);
    }
    if (st == CT_OK && is_max && indices) { /* flat input positions h * W + w (as torch) */
        ct_tensor *pos = NULL, *pc = NULL, *pick = NULL, *pi = NULL;
        st = ct_tensor_arange(ctx, CT_FLOAT64, 0, (double)(H * W), 1, &pos);
        CT__DO(st, ct__pool_cols(ctx, CT_FLOAT64, H, W, pos, pads, -1.0, kernel, dilation, s, &pc));
        CT__DO(st, ct_take_along_dim(ctx, pc, am, two, &pick));
        /* a window whose maximum is -inf (its input elements all -inf, or none): torch keeps
         * its initial index, `first` (the same position as the tap above when the window holds
         * input elements) */
        ct_tensor *ft = NULL, *sel = NULL;
        const int64_t ls[4] = {1, 1, 1, L};
        CT__DO(st, ct_tensor_from_host(ctx, first, CT_FLOAT64, 4, ls, &ft));
        CT__DO(st, ct_where(ctx, ninf, ft, pick, &sel));
        CT__DO(st, ct__to_dtype(ctx, sel, CT_INT64, &pi));
        ct_tensor_release(ft), ct_tensor_release(sel);
        if (st == CT_OK) {
            int64_t os[4] = {N, C, oh, ow};
            st = batched ? ct_tensor_reshape(ctx, pi, 4, os, indices)
                         : ct_tensor_reshape(ctx, pi, 3, os + 1, indices);
        }
        ct_tensor_release(pos), ct_tensor_release(pc), ct_tensor_release(pick);
        ct_tensor_release(pi);
        if (st != CT_OK) ct_tensor_release(*out), *out = NULL;
    }
    ct_tensor_release(x4), ct_tensor_release(xp), ct_tensor_release(cols), ct_tensor_release(c4);
    ct_tensor_release(red), ct_tensor_release(am), ct_tensor_release(ninf);
    ct__free(ctx, first);
    return st;
}
static ct_status ct__max_pool2d_body(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                     const int64_t stride[2], const int64_t padding[2],
                                     const int64_t dilation[2], ct_tensor **out) {
    return ct__pool(ctx, "max_pool2d", true, x, kernel, stride, padding, dilation, false, true,
                    false, 0, out, NULL);
}

ct_status ct_max_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                        const int64_t stride[2], const int64_t padding[2],
                        const int64_t dilation[2], ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "max_pool2d", ct__max_pool2d_body(ctx, x, kernel, stride, padding, dilation, out));
    return ct__ag_named(ctx, st, out, mark, "MaxPool2DWithIndicesBackward0");
}
static ct_status ct__max_pool2d_ex_body(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                        const int64_t stride[2], const int64_t padding[2],
                                        const int64_t dilation[2], bool ceil_mode, ct_tensor **out,
                                        ct_tensor **indices) {
    return ct__pool(ctx, "max_pool2d", true, x, kernel, stride, padding, dilation, ceil_mode, true,
                    false, 0, out, indices);
}

ct_status ct_max_pool2d_ex(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                           const int64_t stride[2], const int64_t padding[2],
                           const int64_t dilation[2], bool ceil_mode, ct_tensor **out,
                           ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "max_pool2d",
        ct__max_pool2d_ex_body(ctx, x, kernel, stride, padding, dilation, ceil_mode, out, indices));
    return ct__ag_named(ctx, st, out, mark, "MaxPool2DWithIndicesBackward0");
}
static ct_status ct__avg_pool2d_body(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                     const int64_t stride[2], const int64_t padding[2],
                                     ct_tensor **out) {
    const int64_t one[2] = {1, 1};
    return ct__pool(ctx, "avg_pool2d", false, x, kernel, stride, padding, one, false, true, false,
                    0, out, NULL);
}

ct_status ct_avg_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                        const int64_t stride[2], const int64_t padding[2], ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "avg_pool2d",
                                    ct__avg_pool2d_body(ctx, x, kernel, stride, padding, out));
    return ct__ag_named(ctx, st, out, mark, "AvgPool2DBackward0");
}
static ct_status ct__avg_pool2d_ex_body(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                        const int64_t stride[2], const int64_t padding[2],
                                        bool ceil_mode, bool count_include_pad, int64_t divisor,
                                        ct_tensor **out) {
    const int64_t one[2] = {1, 1};
    return ct__pool(ctx, "avg_pool2d", false, x, kernel, stride, padding, one, ceil_mode,
                    count_include_pad, false, divisor, out, NULL);
}

ct_status ct_avg_pool2d_ex(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                           const int64_t stride[2], const int64_t padding[2], bool ceil_mode,
                           bool count_include_pad, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "avg_pool2d",
                                    ct__avg_pool2d_ex_body(ctx, x, kernel, stride, padding,
                                                           ceil_mode, count_include_pad, 0, out));
    return ct__ag_named(ctx, st, out, mark, "AvgPool2DBackward0");
}
ct_status ct_avg_pool2d_divisor(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                const int64_t stride[2], const int64_t padding[2], bool ceil_mode,
                                bool count_include_pad, int64_t divisor_override, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "avg_pool2d",
                         ct__avg_pool2d_ex_body(ctx, x, kernel, stride, padding, ceil_mode,
                                                count_include_pad, divisor_override, out));
    return ct__ag_named(ctx, st, out, mark, "AvgPool2DBackward0");
}

static ct_status ct__adaptive_avg_pool2d_body(ct_ctx *ctx, const ct_tensor *x,
                                              const int64_t output_size[2], ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "adaptive_avg_pool2d", 1, ins, out);
    if (st != CT_OK) return st;
    if (!output_size)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "adaptive_avg_pool2d: output_size is NULL");
    if ((x->ndim != 4 && x->ndim != 3) || !ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "adaptive_avg_pool2d: floating (N, C, H, W) or (C, H, W) required, "
                             "got %s %s",
                             ct_dtype_name(x->dtype), CT__SHAPE_STR(x));
    int hd = x->ndim - 2;
    int64_t H = x->shape[hd], W = x->shape[hd + 1], oh = output_size[0], ow = output_size[1];
    if (oh < 0 || ow < 0 || H < 1 || W < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "adaptive_avg_pool2d: output (%lld, %lld) from input %s",
                             (long long)oh, (long long)ow, CT__SHAPE_STR(x));
    if (oh > (1 << 24) || ow > (1 << 24)) /* the bins are walked one by one */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "adaptive_avg_pool2d: output size (%lld, %lld) is too large (at most "
                             "2^24 per dim)",
                             (long long)oh, (long long)ow);
    if (oh == 0 || ow == 0) { /* torch: an empty result */
        int64_t sh[4];
        for (int i = 0; i < hd; i++)
            sh[i] = x->shape[i];
        sh[hd] = oh, sh[hd + 1] = ow;
        return ct_tensor_empty(ctx, x->dtype, x->ndim, sh, out);
    }
    if (oh == 1 && ow == 1) { /* torch: the mean over (H, W) (its reduction, keepdim) */
        int dims[2] = {hd, hd + 1};
        return ct_mean(ctx, x, 2, dims, true, out);
    }
    if (H % oh == 0 && W % ow == 0) { /* equal bins: an average pool (sum / kh / kw) */
        const int64_t k[2] = {H / oh, W / ow}, p0[2] = {0, 0}, one[2] = {1, 1};
        return ct__pool(ctx, "adaptive_avg_pool2d", false, x, k, k, p0, one, false, true, true, 0,
                        out, NULL);
    }
    /* torch's bins [floor(i H / oh), ceil((i + 1) H / oh)), each summed in order (rows outer)
     * in the accumulation type and divided by its height, then by its width. Gathered as
     * (.., oh, KH, ow, KW) blocks of the input with one zero row and column appended (bins
     * shorter than the longest, KH x KW, read zeros there, which leave the sums unchanged). */
    const ct_dtype cdt = ct__pool_acc_dtype(x->dtype);
    int64_t KH = 0, KW = 0;
    for (int64_t i = 0; i < oh; i++) {
        int64_t n = ((i + 1) * H + oh - 1) / oh - i * H / oh;
        KH = n > KH ? n : KH;
    }
    for (int64_t j = 0; j < ow; j++) {
        int64_t n = ((j + 1) * W + ow - 1) / ow - j * W / ow;
        KW = n > KW ? n : KW;
    }
    int64_t *ih = ct__alloc(ctx, sizeof(int64_t) * (size_t)(oh * KH + ow * KW), 16);
    double *dh = ct__alloc(ctx, sizeof(double) * (size_t)(oh + ow), 16);
    if (!ih || !dh) {
        ct__free(ctx, ih), ct__free(ctx, dh);
        return ct__set_error(ctx, CT_ERR_OOM, "adaptive_avg_pool2d: out of memory for %lld bins",
                             (long long)(oh * ow));
    }
    int64_t *iw = ih + oh * KH;
    double *dw = dh + oh;
    for (int64_t i = 0; i < oh; i++) {
        int64_t h0 = i * H / oh, h1 = ((i + 1) * H + oh - 1) / oh;
        dh[i] = (double)(h1 - h0);
        for (int64_t t = 0; t < KH; t++)
            ih[i * KH + t] = h0 + t < h1 ? h0 + t : H;
    }
    for (int64_t j = 0; j < ow; j++) {
        int64_t w0 = j * W / ow, w1 = ((j + 1) * W + ow - 1) / ow;
        dw[j] = (double)(w1 - w0);
        for (int64_t u = 0; u < KW; u++)
            iw[j * KW + u] = w0 + u < w1 ? w0 + u : W;
    }
    const int64_t P = ct_tensor_numel(x) / (H * W), nih = oh * KH, niw = ow * KW;
    const int64_t x3s[3] = {P, H, W}, g5[5] = {P, oh, KH, ow, KW}, dhs[5] = {1, oh, 1, 1, 1},
                  dws[5] = {1, 1, 1, ow, 1}, pads[4] = {0, 1, 0, 1};
    ct_tensor *x3 = NULL, *xa = NULL, *xp = NULL, *ti = NULL, *tj = NULL, *g1 = NULL, *g2 = NULL,
              *g = NULL, *sum = NULL, *th = NULL, *tw = NULL, *q1 = NULL, *q2 = NULL, *r = NULL;
    st = ct_tensor_reshape(ctx, x, 3, x3s, &x3);
    CT__DO(st, ct__to_dtype(ctx, x3, cdt, &xa));
    CT__DO(st, ct_pad(ctx, xa, 4, pads, CT_PAD_CONSTANT, 0.0, &xp));
    CT__DO(st, ct_tensor_from_host(ctx, ih, CT_INT64, 1, &nih, &ti));
    CT__DO(st, ct_tensor_from_host(ctx, iw, CT_INT64, 1, &niw, &tj));
    CT__DO(st, ct_index_select(ctx, xp, 1, ti, &g1));
    CT__DO(st, ct_index_select(ctx, g1, 2, tj, &g2));
    CT__DO(st, ct_tensor_reshape(ctx, g2, 5, g5, &g));
    CT__DO(st, ct__seq_sum(ctx, g, 2, KH, 4, KW, &sum));
    CT__DO(st, ct_tensor_from_host(ctx, dh, CT_FLOAT64, 5, dhs, &th));
    CT__DO(st, ct_tensor_from_host(ctx, dw, CT_FLOAT64, 5, dws, &tw));
    ct_tensor *tdh = NULL, *tdw = NULL;
    CT__DO(st, ct__to_dtype(ctx, th, cdt, &tdh));
    CT__DO(st, ct__to_dtype(ctx, tw, cdt, &tdw));
    CT__DO(st, ct_div(ctx, sum, tdh, &q1));
    CT__DO(st, ct_div(ctx, q1, tdw, &q2));
    CT__DO(st, ct__to_dtype(ctx, q2, x->dtype, &r));
    if (st == CT_OK) {
        int64_t os[4];
        for (int d = 0; d < hd; d++)
            os[d] = x->shape[d];
        os[hd] = oh, os[hd + 1] = ow;
        st = ct_tensor_reshape(ctx, r, x->ndim, os, out);
    }
    ct__free(ctx, ih), ct__free(ctx, dh);
    ct_tensor_release(x3), ct_tensor_release(xa), ct_tensor_release(xp), ct_tensor_release(ti);
    ct_tensor_release(tj), ct_tensor_release(g1), ct_tensor_release(g2), ct_tensor_release(g);
    ct_tensor_release(sum), ct_tensor_release(th), ct_tensor_release(tw), ct_tensor_release(tdh);
    ct_tensor_release(tdw), ct_tensor_release(q1), ct_tensor_release(q2), ct_tensor_release(r);
    return st;
}

ct_status ct_adaptive_avg_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t output_size[2],
                                 ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "adaptive_avg_pool2d",
                                    ct__adaptive_avg_pool2d_body(ctx, x, output_size, out));
    if (st != CT_OK || (output_size[0] == 1 && output_size[1] == 1)) return st; /* mean's node */
    return ct__ag_named(ctx, st, out, mark, "AdaptiveAvgPool2DBackward0");
}

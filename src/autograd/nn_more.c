/* More of torch.nn.functional, composed of recording ops (differentiable, capturable) and written
 * as torch 1.13 writes them where the rounding depends on it: conv_transpose1d / 2d (matmul +
 * col2im, the adjoint of conv), max / avg / adaptive pools in 1-d, adaptive max pooling,
 * max_unpool (1-d, 2-d, 3-d), lp_pool, instance_norm (batch_norm over (1, N*C, ...), as ATen),
 * local_response_norm, bilinear, channel_shuffle and the multi_margin / multilabel_margin losses.
 * docs/everyday.md
 * ("More nn") lists the differences. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SH(...) ((const int64_t[]){__VA_ARGS__})

static ct_status ct__need_float(ct_ctx *ctx, const char *op, const ct_tensor *t) {
    if (ct_dtype_is_floating(t->dtype)) return CT_OK;
    return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating point input, got %s", op,
                         ct_dtype_name(t->dtype));
}

/* ---- conv_transpose2d: cols = W^T x per group, then col2im (fold) to the output size ---- */
static ct_status ct__conv_t2d(ct_ctx *ctx, const char *op, const ct_tensor *x, const ct_tensor *w,
                              const ct_tensor *b, const int64_t *stride, const int64_t *padding,
                              const int64_t *opad, int groups, const int64_t *dil,
                              ct_tensor **out) {
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!stride || !padding || !opad || !dil)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL geometry array", op);
    const bool unb = x->ndim == 3;
    if ((x->ndim != 4 && !unb) || w->ndim != 4)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input %s must be (N, C, H, W) or (C, H, W) and weight %s (C, "
                             "O/groups, kh, kw)",
                             op, CT__SHAPE_STR(x),
                             ct__shape_str((char[96]){0}, 96, w->ndim, w->shape));
    if (x->dtype != w->dtype || x->dtype == CT_BOOL || !ct__is_compute_dtype(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: input %s and weight %s must be one floating or integer dtype", op,
                             ct_dtype_name(x->dtype), ct_dtype_name(w->dtype));
    const int64_t N = unb ? 1 : x->shape[0], C = x->shape[unb ? 0 : 1], H = x->shape[unb ? 1 : 2],
                  W = x->shape[unb ? 2 : 3];
    if (groups < 1 || C % groups || w->shape[0] != C)
        return ct__set_error(
            ctx, CT_ERR_SHAPE,
            "%s: input %s, weight %s and groups %d do not match (weight dim 0 = C, "
            "C divisible by groups)",
            op, CT__SHAPE_STR(x), ct__shape_str((char[96]){0}, 96, w->ndim, w->shape), groups);
    const int64_t G = groups, Og = w->shape[1], O = Og * G, kh = w->shape[2], kw = w->shape[3];
    for (int i = 0; i < 2; i++) {
        if (stride[i] < 1 || dil[i] < 1 || padding[i] < 0 || opad[i] < 0 || stride[i] > INT32_MAX ||
            dil[i] > INT32_MAX || padding[i] > INT32_MAX / 2)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: stride and dilation must be >= 1, padding and output_padding "
                                 ">= 0",
                                 op);
        if (opad[i] >= stride[i] && opad[i] >= dil[i])
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: output padding must be smaller than either stride or "
                                 "dilation, but got output_padding %lld, stride %lld, dilation "
                                 "%lld",
                                 op, (long long)opad[i], (long long)stride[i], (long long)dil[i]);
    }
    const int64_t in[2] = {H, W}, k[2] = {kh, kw};
    int64_t osz[2];
    for (int i = 0; i < 2; i++) {
        osz[i] = (in[i] - 1) * stride[i] - 2 * padding[i] + dil[i] * (k[i] - 1) + opad[i] + 1;
        if (osz[i] < 1 || in[i] < 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: the output size %lld (dim %d) is not positive for input %s",
                                 op, (long long)osz[i], i, CT__SHAPE_STR(x));
    }
    if (b) {
        const ct_tensor *bi[1] = {b};
        if ((st = ct__check_args(ctx, op, 1, bi, out)) != CT_OK) return st;
        *out = NULL;
        if (b->ndim != 1 || b->shape[0] != O || b->dtype != x->dtype)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: bias %s (%s) must be (%lld) of the input's "
                                 "dtype",
                                 op, CT__SHAPE_STR(b), ct_dtype_name(b->dtype), (long long)O);
    }
    ct_tensor *t[9] = {NULL};
    const int64_t K = Og * kh * kw, L = H * W;
    st = ct_tensor_reshape(ctx, w, 3, SH(G, C / G, K), &t[0]);
    CT__DO(st, ct_tensor_transpose(ctx, t[0], 1, 2, &t[1])); /* (G, K, C/G) */
    CT__DO(st, ct_tensor_reshape(ctx, x, 4, SH(N, G, C / G, L), &t[2]));
    CT__DO(st, ct_matmul(ctx, t[1], t[2], &t[3])); /* (N, G, K, L) */
    CT__DO(st, ct_tensor_reshape(ctx, t[3], 3, SH(N, O * kh * kw, L), &t[4]));
    if (opad[0] < stride[0] && opad[1] < stride[1]) { /* col2im straight to the output size */
        CT__DO(st, ct_fold(ctx, t[4], osz, k, dil, padding, stride, &t[5])); /* (N, O, oh, ow) */
    } else {
        /* output_padding of a stride or more (allowed below the dilation): col2im to the whole
         * uncropped plane (in - 1) s + d (k - 1) + 1, then the padding cropped from both ends and
         * the rows beyond the plane (no input reaches them) added as zeros, in one ct_pad with
         * negative (cropping) and positive pads */
        int64_t full[2];
        for (int i = 0; i < 2; i++)
            full[i] = (in[i] - 1) * stride[i] + dil[i] * (k[i] - 1) + 1;
        CT__DO(st, ct_fold(ctx, t[4], full, k, dil, SH(0, 0), stride, &t[8]));
        CT__DO(st, ct_pad(ctx, t[8], 4,
                          SH(-padding[1], osz[1] - (full[1] - padding[1]), -padding[0],
                             osz[0] - (full[0] - padding[0])),
                          CT_PAD_CONSTANT, 0, &t[5]));
    }
    if (b) {
        CT__DO(st, ct_tensor_reshape(ctx, b, 4, SH(1, O, 1, 1), &t[6]));
        CT__DO(st, ct_add(ctx, t[5], t[6], &t[7]));
    } else if (st == CT_OK) {
        t[7] = ct_tensor_retain(t[5]);
    }
    CT__DO(st, unb ? ct_tensor_reshape(ctx, t[7], 3, SH(O, osz[0], osz[1]), out)
                   : ct_tensor_contiguous(ctx, t[7], out));
    ct__release_all(9, t);
    return st;
}
ct_status ct_conv_transpose2d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                              const ct_tensor *b, const int64_t stride[2], const int64_t padding[2],
                              const int64_t output_padding[2], int groups,
                              const int64_t dilation[2], ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "conv_transpose2d",
                                    ct__conv_t2d(ctx, "conv_transpose2d", x, w, b, stride, padding,
                                                 output_padding, groups, dilation, out));
    return ct__ag_named(ctx, st, out, mark,
                        x && x->ndim == 3 ? "SqueezeBackward1" : "ConvolutionBackward0");
}
ct_status ct_conv_transpose1d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                              const ct_tensor *b, int64_t stride, int64_t padding,
                              int64_t output_padding, int groups, int64_t dilation,
                              ct_tensor **out) {
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, "conv_transpose1d", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const bool unb = x->ndim == 2;
    if ((x->ndim != 3 && !unb) || w->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "conv_transpose1d: input %s must be (N, C, L) or (C, L) and weight "
                             "(C, O/groups, k)",
                             CT__SHAPE_STR(x));
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *x4 = NULL, *w4 = NULL, *y = NULL;
    const int64_t s2[2] = {1, stride}, p2[2] = {0, padding}, o2[2] = {0, output_padding},
                  d2[2] = {1, dilation};
    st = unb ? ct_tensor_reshape(ctx, x, 3, SH(x->shape[0], 1, x->shape[1]), &x4)
             : ct_tensor_reshape(ctx, x, 4, SH(x->shape[0], x->shape[1], 1, x->shape[2]), &x4);
    CT__DO(st, ct_tensor_reshape(ctx, w, 4, SH(w->shape[0], w->shape[1], 1, w->shape[2]), &w4));
    CT__DO(st, ct__conv_t2d(ctx, "conv_transpose1d", x4, w4, b, s2, p2, o2, groups, d2, &y));
    CT__DO(st, ct_tensor_squeeze(ctx, y, unb ? 1 : 2, out));
    ct_tensor_release(x4), ct_tensor_release(w4), ct_tensor_release(y);
    return ct__ag_named(ctx, ct__error_within(ctx, "conv_transpose1d", st), out, mark,
                        unb ? "SqueezeBackward1" : "ConvolutionBackward0");
}

/* ---- 1-d pools: the 2-d ones over a height of 1 (torch's dispatch) ---- */
static ct_status ct__as_2d(ct_ctx *ctx, const char *op, const ct_tensor *x, ct_tensor **out,
                           ct_tensor **x4) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim != 2 && x->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected a 2-D or 3-D input, got %s", op,
                             CT__SHAPE_STR(x));
    return ct_tensor_unsqueeze(ctx, x, -2, x4);
}
/* y (..., 1, L) -> (..., L), and the indices the same way */
static ct_status ct__from_2d(ct_ctx *ctx, ct_tensor *y, ct_tensor *yi, ct_tensor **out,
                             ct_tensor **indices) {
    ct_status st = ct_tensor_squeeze(ctx, y, -2, out);
    if (indices) CT__DO(st, ct_tensor_squeeze(ctx, yi, -2, indices));
    ct_tensor_release(y), ct_tensor_release(yi);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
        if (indices) {
            ct_tensor_release(*indices);
            *indices = NULL;
        }
    }
    return st;
}
ct_status ct_max_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t kernel, int64_t stride,
                        int64_t padding, int64_t dilation, bool ceil_mode, ct_tensor **out,
                        ct_tensor **indices) {
    if (indices) *indices = NULL;
    ct_tensor *x4 = NULL, *y = NULL, *yi = NULL;
    ct_status st = ct__as_2d(ctx, "max_pool1d", x, out, &x4);
    if (st != CT_OK) return st;
    const int64_t k2[2] = {1, kernel}, s2[2] = {1, stride ? stride : kernel}, p2[2] = {0, padding},
                  d2[2] = {1, dilation};
    uint64_t mark = ct__ag_mark(ctx);
    st = ct_max_pool2d_ex(ctx, x4, k2, s2, p2, d2, ceil_mode, &y, indices ? &yi : NULL);
    ct_tensor_release(x4);
    if (st == CT_OK) st = ct__from_2d(ctx, y, yi, out, indices);
    return ct__ag_named(ctx, ct__error_within(ctx, "max_pool1d", st), out, mark,
                        "SqueezeBackward1");
}
ct_status ct_avg_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t kernel, int64_t stride,
                        int64_t padding, bool ceil_mode, bool count_include_pad, ct_tensor **out) {
    ct_tensor *x4 = NULL, *y = NULL;
    ct_status st = ct__as_2d(ctx, "avg_pool1d", x, out, &x4);
    if (st != CT_OK) return st;
    const int64_t k2[2] = {1, kernel}, s2[2] = {1, stride ? stride : kernel}, p2[2] = {0, padding};
    uint64_t mark = ct__ag_mark(ctx);
    st = ct_avg_pool2d_ex(ctx, x4, k2, s2, p2, ceil_mode, count_include_pad, &y);
    ct_tensor_release(x4);
    if (st == CT_OK) st = ct__from_2d(ctx, y, NULL, out, NULL);
    return ct__ag_named(ctx, ct__error_within(ctx, "avg_pool1d", st), out, mark,
                        "SqueezeBackward1");
}
ct_status ct_adaptive_avg_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t output_size,
                                 ct_tensor **out) {
    ct_tensor *x4 = NULL, *y = NULL;
    ct_status st = ct__as_2d(ctx, "adaptive_avg_pool1d", x, out, &x4);
    if (st != CT_OK) return st;
    const int64_t o2[2] = {1, output_size};
    uint64_t mark = ct__ag_mark(ctx);
    st = ct_adaptive_avg_pool2d(ctx, x4, o2, &y);
    ct_tensor_release(x4);
    if (st == CT_OK) st = ct__from_2d(ctx, y, NULL, out, NULL);
    return ct__ag_named(ctx, ct__error_within(ctx, "adaptive_avg_pool1d", st), out, mark,
                        "SqueezeBackward1");
}

/* ---- adaptive max pooling: the bins [floor(i H / o), ceil((i + 1) H / o)) padded to the widest
 * by repeating their last element, gathered, then the first maximum (the last NaN) of each, as
 * torch's kernel picks it ---- */
static int64_t ct__bin_lo(int64_t i, int64_t in, int64_t o) { return (i * in) / o; }
static int64_t ct__bin_hi(int64_t i, int64_t in, int64_t o) { return ((i + 1) * in + o - 1) / o; }
/* int64 (o, Lmax) input positions of each bin, padded with the bin's last */
static ct_status ct__bins(ct_ctx *ctx, int64_t in, int64_t o, ct_tensor **out, int64_t *lmax) {
    int64_t lm = 1;
    for (int64_t i = 0; i < o; i++)
        if (ct__bin_hi(i, in, o) - ct__bin_lo(i, in, o) > lm)
            lm = ct__bin_hi(i, in, o) - ct__bin_lo(i, in, o);
    int64_t *v = malloc(sizeof(int64_t) * (size_t)(o * lm));
    if (!v) return ct__set_error(ctx, CT_ERR_OOM, "adaptive_max_pool: out of memory");
    for (int64_t i = 0; i < o; i++) {
        const int64_t lo = ct__bin_lo(i, in, o), hi = ct__bin_hi(i, in, o);
        for (int64_t j = 0; j < lm; j++)
            v[i * lm + j] = lo + j < hi ? lo + j : hi - 1;
    }
    ct_status st = ct_tensor_from_host(ctx, v, CT_INT64, 2, SH(o, lm), out);
    free(v);
    *lmax = lm;
    return st;
}
static ct_status ct__adaptive_max(ct_ctx *ctx, const ct_tensor *x, const int64_t *osz,
                                  ct_tensor **out, ct_tensor **indices) {
    /* x (B, H, W) with sd spatial dims folded as (B, 1, W) for 1-d */
    const int64_t B = x->shape[0], H = x->shape[1], W = x->shape[2];
    const int64_t oh = osz[0], ow = osz[1];
    ct_tensor *t[24] = {NULL};
    int64_t lr = 0, lc = 0;
    ct_status st = ct__bins(ctx, H, oh, &t[0], &lr);
    CT__DO(st, ct__bins(ctx, W, ow, &t[1], &lc));
    /* flat input position of each (oh, ow, lr, lc): row * W + col */
    CT__DO(st, ct_mul_scalar(ctx, t[0], (double)W, &t[2]));
    CT__DO(st, ct_tensor_reshape(ctx, t[2], 4, SH(oh, 1, lr, 1), &t[3]));
    CT__DO(st, ct_tensor_reshape(ctx, t[1], 4, SH(1, ow, 1, lc), &t[4]));
    CT__DO(st, ct_add(ctx, t[3], t[4], &t[5]));
    CT__DO(st, ct_tensor_reshape(ctx, t[5], 1, SH(oh * ow * lr * lc), &t[6]));
    CT__DO(st, ct_tensor_reshape(ctx, x, 2, SH(B, H * W), &t[7]));
    CT__DO(st, ct_index_select(ctx, t[7], 1, t[6], &t[8]));
    CT__DO(st, ct_tensor_reshape(ctx, t[8], 3, SH(B, oh * ow, lr * lc), &t[9])); /* windows */
    /* first maximum, or the last NaN */
    const int last = 2;
    CT__DO(st, ct_isnan(ctx, t[9], &t[10]));
    CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)(lr * lc), 1, &t[11]));
    CT__DO(st, ct_tensor_full(ctx, CT_INT64, 0, NULL, -1, &t[12]));
    CT__DO(st, ct_where(ctx, t[10], t[11], t[12], &t[13]));
    CT__DO(st, ct_amax(ctx, t[13], 1, &last, true, &t[14])); /* last NaN or -1 */
    ct_tensor *mx = NULL;
    const bool was = ct_set_grad_enabled(ctx, false);
    CT__DO(st, ct_amax(ctx, t[9], 1, &last, true, &mx));
    CT__DO(st, ct_eq(ctx, t[9], mx, &t[15]));
    CT__DO(st, ct_tensor_full(ctx, CT_INT64, 0, NULL, (double)(lr * lc), &t[16]));
    CT__DO(st, ct_where(ctx, t[15], t[11], t[16], &t[17]));
    CT__DO(st, ct_amin(ctx, t[17], 1, &last, true, &t[18])); /* first max */
    CT__DO(st, ct_ge_scalar(ctx, t[14], 0, &t[19]));
    CT__DO(st, ct_where(ctx, t[19], t[14], t[18], &t[20])); /* (B, oh*ow, 1) local */
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(mx);
    CT__DO(st, ct_gather(ctx, t[9], 2, t[20], &t[21]));
    CT__DO(st, ct_tensor_reshape(ctx, t[21], 3, SH(B, oh, ow), out));
    if (indices && st == CT_OK) { /* the flat input position of each local index */
        ct_tensor *pos = NULL, *pe = NULL, *pi = NULL;
        st = ct_tensor_reshape(ctx, t[6], 3, SH(1, oh * ow, lr * lc), &pos);
        CT__DO(st, ct_tensor_expand(ctx, pos, 3, SH(B, oh * ow, lr * lc), &pe));
        CT__DO(st, ct_gather(ctx, pe, 2, t[20], &pi));
        CT__DO(st, ct_tensor_reshape(ctx, pi, 3, SH(B, oh, ow), indices));
        ct_tensor_release(pos), ct_tensor_release(pe), ct_tensor_release(pi);
    }
    ct__release_all(24, t);
    return st;
}
static ct_status ct__adaptive_max_front(ct_ctx *ctx, const char *op, const ct_tensor *x, int sd,
                                        const int64_t *output_size, ct_tensor **out,
                                        ct_tensor **indices) {
    if (indices) *indices = NULL;
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__need_float(ctx, op, x)) != CT_OK) return st;
    if (!output_size) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: output_size is NULL", op);
    if (x->ndim != sd + 1 && x->ndim != sd + 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected a %dD or %dD input, got %s", op,
                             sd + 1, sd + 2, CT__SHAPE_STR(x));
    int64_t osz[2] = {1, 1}, isz[2] = {1, 1};
    for (int i = 0; i < sd; i++) {
        osz[2 - sd + i] = output_size[i];
        isz[2 - sd + i] = x->shape[x->ndim - sd + i];
    }
    for (int i = 0; i < 2; i++) {
        if (osz[i] < 1 || osz[i] > (1 << 24))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: output size %lld must be in [1, 2^24]", op,
                                 (long long)osz[i]);
        if (isz[i] < 1)
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input %s has an empty spatial dim", op,
                                 CT__SHAPE_STR(x));
    }
    int64_t B = 1;
    for (int i = 0; i < x->ndim - sd; i++)
        B *= x->shape[i];
    ct_tensor *xb = NULL, *y = NULL, *yi = NULL;
    st = ct_tensor_reshape(ctx, x, 3, SH(B, isz[0], isz[1]), &xb);
    CT__DO(st, ct__adaptive_max(ctx, xb, osz, &y, indices ? &yi : NULL));
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim - sd; i++)
        sh[i] = x->shape[i];
    for (int i = 0; i < sd; i++)
        sh[x->ndim - sd + i] = output_size[i];
    CT__DO(st, ct_tensor_reshape(ctx, y, x->ndim, sh, out));
    if (indices) CT__DO(st, ct_tensor_reshape(ctx, yi, x->ndim, sh, indices));
    ct_tensor_release(xb), ct_tensor_release(y), ct_tensor_release(yi);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
        if (indices) {
            ct_tensor_release(*indices);
            *indices = NULL;
        }
    }
    return st;
}
ct_status ct_adaptive_max_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t output_size[2],
                                 ct_tensor **out, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "adaptive_max_pool2d",
        ct__adaptive_max_front(ctx, "adaptive_max_pool2d", x, 2, output_size, out, indices));
    return ct__ag_named(ctx, st, out, mark, "AdaptiveMaxPool2DBackward0");
}
ct_status ct_adaptive_max_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t output_size,
                                 ct_tensor **out, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "adaptive_max_pool1d",
        ct__adaptive_max_front(ctx, "adaptive_max_pool1d", x, 1, &output_size, out, indices));
    return ct__ag_named(ctx, st, out, mark, "SqueezeBackward1");
}

/* ---- max_unpool: zeros with x scattered to the flat positions in indices ---- */
static ct_status ct__unpool(ct_ctx *ctx, const char *op, const ct_tensor *x,
                            const ct_tensor *indices, int sd, const int64_t *kernel,
                            const int64_t *stride, const int64_t *padding,
                            const int64_t *output_size, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, indices};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (indices->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected indices of dtype int64, got %s", op,
                             ct_dtype_name(indices->dtype));
    bool same = x->ndim == indices->ndim;
    for (int i = 0; same && i < x->ndim; i++)
        same = x->shape[i] == indices->shape[i];
    if ((x->ndim != sd + 1 && x->ndim != sd + 2) || !same)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input %s must be %dD or %dD with indices of its shape, got %s",
                             op, CT__SHAPE_STR(x), sd + 1, sd + 2, CT__SHAPE_STR(indices));
    if (!kernel) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: kernel is NULL", op);
    int64_t osz[3] = {1, 1, 1}, plane = 1, nzs = 0;
    for (int i = 0; stride && i < sd; i++)
        nzs += stride[i] == 0;
    if (nzs && nzs < sd)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: stride should not be zero (all zero: the kernel)", op);
    for (int i = 0; i < sd; i++) {
        const int64_t in = x->shape[x->ndim - sd + i],
                      s = stride && stride[i] ? stride[i] : kernel[i], p = padding ? padding[i] : 0;
        if (kernel[i] < 1 || s < 1 || p < 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: kernel and stride must be >= 1, padding >= 0", op);
        if (in > INT32_MAX || s > INT32_MAX || kernel[i] > INT32_MAX || p > INT32_MAX)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: geometry too large", op);
        const int64_t def = (in - 1) * s - 2 * p + kernel[i];
        osz[i] = output_size ? output_size[i] : def;
        /* torch: the default size, or within a stride of it (strictly) */
        if (output_size && (osz[i] <= def - s || osz[i] >= def + s))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: invalid output_size %lld (dim %d must be between %lld and "
                                 "%lld)",
                                 op, (long long)osz[i], i, (long long)(def - s + 1),
                                 (long long)(def + s - 1));
        if (osz[i] < 0)
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: output size %lld is negative", op,
                                 (long long)osz[i]);
        if (__builtin_mul_overflow(plane, osz[i], &plane))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: the output plane overflows", op);
    }
    int64_t B = 1, L = 1;
    for (int i = 0; i < x->ndim - sd; i++)
        B *= x->shape[i];
    for (int i = x->ndim - sd; i < x->ndim; i++)
        L *= x->shape[i];
    ct_tensor *t[5] = {NULL};
    st = ct_tensor_zeros(ctx, x->dtype, 2, SH(B, plane), &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, x, 2, SH(B, L), &t[1]));
    CT__DO(st, ct_tensor_reshape(ctx, indices, 2, SH(B, L), &t[2]));
    if (st == CT_OK) {
        st = ct_scatter(ctx, t[0], 1, t[2], t[1], &t[3]);
        if (st == CT_ERR_INDEX)
            st = ct__set_error(ctx, st,
                               "%s: found an invalid max index (outside [0, %lld), the "
                               "output plane)",
                               op, (long long)plane);
    }
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim - sd; i++)
        sh[i] = x->shape[i];
    for (int i = 0; i < sd; i++)
        sh[x->ndim - sd + i] = osz[i];
    CT__DO(st, ct_tensor_reshape(ctx, t[3], x->ndim, sh, out));
    ct__release_all(5, t);
    return st;
}
ct_status ct_max_unpool2d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *indices,
                          const int64_t kernel[2], const int64_t stride[2],
                          const int64_t padding[2], const int64_t output_size[2], ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "max_unpool2d",
        ct__unpool(ctx, "max_unpool2d", x, indices, 2, kernel, stride, padding, output_size, out));
    return ct__ag_named(ctx, st, out, mark, "MaxUnpool2DBackward0");
}
ct_status ct_max_unpool3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *indices,
                          const int64_t kernel[3], const int64_t stride[3],
                          const int64_t padding[3], const int64_t output_size[3], ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "max_unpool3d",
        ct__unpool(ctx, "max_unpool3d", x, indices, 3, kernel, stride, padding, output_size, out));
    return ct__ag_named(ctx, st, out, mark, "MaxUnpool3DBackward0");
}
ct_status ct_max_unpool1d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *indices, int64_t kernel,
                          int64_t stride, int64_t padding, int64_t output_size, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "max_unpool1d",
                         ct__unpool(ctx, "max_unpool1d", x, indices, 1, &kernel, &stride, &padding,
                                    output_size >= 0 ? &output_size : NULL, out));
    return ct__ag_named(ctx, st, out, mark, "SqueezeBackward1");
}

/* ---- lp_pool: (sign(a) relu(|a|) * kernel area) ^ (1 / p), a = avg_pool(x ^ p) (torch's) ---- */
static ct_status ct__lp_finish(ct_ctx *ctx, ct_tensor *a, double p, double area, ct_tensor **out) {
    ct_tensor *t[5] = {NULL};
    ct_status st = ct_sign(ctx, a, &t[0]);
    CT__DO(st, ct_abs(ctx, a, &t[1]));
    CT__DO(st, ct_relu(ctx, t[1], &t[2]));
    CT__DO(st, ct_mul(ctx, t[0], t[2], &t[3]));
    CT__DO(st, ct_mul_scalar(ctx, t[3], area, &t[4]));
    ct_tensor *f = NULL; /* torch's pow(1.0 / p) has a Python float exponent: an integer input
                          * gives float32 even when 1 / p is integral (p = 1) */
    if (st == CT_OK && !ct_dtype_is_floating(t[4]->dtype))
        st = ct_cast(ctx, t[4], CT_FLOAT32, &f);
    else if (st == CT_OK)
        f = ct_tensor_retain(t[4]);
    CT__DO(st, ct_pow(ctx, f, 1.0 / p, out));
    ct_tensor_release(f);
    ct__release_all(5, t);
    ct_tensor_release(a);
    return st;
}
ct_status ct_lp_pool2d(ct_ctx *ctx, const ct_tensor *x, double p, const int64_t kernel[2],
                       const int64_t stride[2], bool ceil_mode, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "lp_pool2d", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!kernel) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lp_pool2d: kernel is NULL");
    ct_tensor *xp = NULL, *a = NULL;
    const int64_t pad[2] = {0, 0};
    st = ct_pow(ctx, x, p, &xp);
    CT__DO(st,
           ct_avg_pool2d_ex(ctx, xp, kernel, stride && (stride[0] || stride[1]) ? stride : kernel,
                            pad, ceil_mode, true, &a));
    ct_tensor_release(xp);
    if (st == CT_OK) st = ct__lp_finish(ctx, a, p, (double)(kernel[0] * kernel[1]), out);
    return ct__error_within(ctx, "lp_pool2d", st);
}
ct_status ct_lp_pool1d(ct_ctx *ctx, const ct_tensor *x, double p, int64_t kernel, int64_t stride,
                       bool ceil_mode, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "lp_pool1d", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct_tensor *xp = NULL, *a = NULL;
    st = ct_pow(ctx, x, p, &xp);
    CT__DO(st, ct_avg_pool1d(ctx, xp, kernel, stride, 0, ceil_mode, true, &a));
    ct_tensor_release(xp);
    if (st == CT_OK) st = ct__lp_finish(ctx, a, p, (double)kernel, out);
    return ct__error_within(ctx, "lp_pool1d", st);
}

/* ---- instance_norm: batch_norm of x viewed as (1, N*C, ...) with the statistics repeated N
 * times, the running statistics then set to the mean over N of the updated copies (ATen's) ---- */
static ct_status ct__repeat_n(ct_ctx *ctx, const ct_tensor *t, int64_t n, ct_tensor **out) {
    if (!t) return CT_OK;
    const int64_t r[1] = {n};
    return ct_repeat(ctx, t, 1, r, out);
}
static ct_status ct__instance_norm(ct_ctx *ctx, const ct_tensor *x, ct_tensor *running_mean,
                                   ct_tensor *running_var, const ct_tensor *weight,
                                   const ct_tensor *bias, bool use_input_stats, double momentum,
                                   double eps, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "instance_norm", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim < 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "instance_norm: expected an input of at least 3 dims (N, C, ...), got "
                             "%s",
                             CT__SHAPE_STR(x));
    if (!use_input_stats && (!running_mean || !running_var))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "instance_norm: expected running_mean and running_var to be defined "
                             "when use_input_stats is false");
    const int64_t N = x->shape[0], C = x->shape[1];
    int64_t spatial = 1;
    for (int i = 2; i < x->ndim; i++)
        spatial *= x->shape[i];
    if (use_input_stats && spatial == 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "instance_norm: expected more than 1 spatial element when training, "
                             "got input size %s",
                             CT__SHAPE_STR(x));
    int64_t sh[CT_MAX_DIMS];
    sh[0] = 1;
    sh[1] = N * C;
    for (int i = 2; i < x->ndim; i++)
        sh[i] = x->shape[i];
    ct_tensor *t[10] = {NULL};
    st = ct_tensor_reshape(ctx, x, x->ndim, sh, &t[0]);
    CT__DO(st, ct__repeat_n(ctx, weight, N, &t[1]));
    CT__DO(st, ct__repeat_n(ctx, bias, N, &t[2]));
    const bool was = ct_set_grad_enabled(ctx, false);
    CT__DO(st, ct__repeat_n(ctx, running_mean, N, &t[3]));
    CT__DO(st, ct__repeat_n(ctx, running_var, N, &t[4]));
    ct_set_grad_enabled(ctx, was);
    CT__DO(st,
           ct_batch_norm(ctx, t[0], t[3], t[4], t[1], t[2], use_input_stats, momentum, eps, &t[5]));
    if (st == CT_OK && use_input_stats && (running_mean || running_var)) {
        const bool w2 = ct_set_grad_enabled(ctx, false);
        const int zero = 0;
        if (running_mean) {
            CT__DO(st, ct_tensor_reshape(ctx, t[3], 2, SH(N, C), &t[6]));
            CT__DO(st, ct_mean(ctx, t[6], 1, &zero, false, &t[7]));
            CT__DO(st, ct_tensor_copy_(ctx, running_mean, t[7]));
        }
        if (running_var) {
            CT__DO(st, ct_tensor_reshape(ctx, t[4], 2, SH(N, C), &t[8]));
            CT__DO(st, ct_mean(ctx, t[8], 1, &zero, false, &t[9]));
            CT__DO(st, ct_tensor_copy_(ctx, running_var, t[9]));
        }
        ct_set_grad_enabled(ctx, w2);
    }
    CT__DO(st, ct_tensor_reshape(ctx, t[5], x->ndim, x->shape, out));
    ct__release_all(10, t);
    return st;
}
ct_status ct_instance_norm(ct_ctx *ctx, const ct_tensor *x, ct_tensor *running_mean,
                           ct_tensor *running_var, const ct_tensor *weight, const ct_tensor *bias,
                           bool use_input_stats, double momentum, double eps, ct_tensor **out) {
    return ct__error_within(ctx, "instance_norm",
                            ct__instance_norm(ctx, x, running_mean, running_var, weight, bias,
                                              use_input_stats, momentum, eps, out));
}

/* ---- local_response_norm: x / (k + alpha * avg of x^2 over `size` channels) ^ beta ---- */
static ct_status ct__lrn(ct_ctx *ctx, const ct_tensor *x, int64_t size, double alpha, double beta,
                         double k, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "local_response_norm", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim < 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "local_response_norm: expected 3D or higher dimensionality input (got "
                             "%d dimensions)",
                             x->ndim);
    if (size < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "local_response_norm: size must be >= 1");
    if ((st = ct__need_float(ctx, "local_response_norm", x)) != CT_OK) return st;
    if (ct_tensor_numel(x) == 0) return ct_tensor_clone(ctx, x, out);
    int64_t rest = 1;
    for (int i = 2; i < x->ndim; i++)
        rest *= x->shape[i];
    const int64_t N = x->shape[0], C = x->shape[1];
    ct_tensor *t[10] = {NULL};
    const int64_t pads[4] = {0, 0, size / 2, (size - 1) / 2}, kern[2] = {size, 1}, one[2] = {1, 1},
                  zero[2] = {0, 0};
    st = ct_mul(ctx, x, x, &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 4, SH(N, 1, C, rest), &t[1]));
    CT__DO(st, ct_pad(ctx, t[1], 4, pads, CT_PAD_CONSTANT, 0, &t[2]));
    CT__DO(st, ct_avg_pool2d(ctx, t[2], kern, one, zero, &t[3]));
    CT__DO(st, ct_tensor_reshape(ctx, t[3], x->ndim, x->shape, &t[4]));
    CT__DO(st, ct_mul_scalar(ctx, t[4], alpha, &t[5]));
    CT__DO(st, ct_add_scalar(ctx, t[5], k, &t[6]));
    CT__DO(st, ct_pow(ctx, t[6], beta, &t[7]));
    CT__DO(st, ct_div(ctx, x, t[7], out));
    ct__release_all(10, t);
    return st;
}
ct_status ct_local_response_norm(ct_ctx *ctx, const ct_tensor *x, int64_t size, double alpha,
                                 double beta, double k, ct_tensor **out) {
    return ct__error_within(ctx, "local_response_norm", ct__lrn(ctx, x, size, alpha, beta, k, out));
}

/* ---- bilinear: y[..., o] = x1 W[o] x2 + b[o] ---- */
static ct_status ct__bilinear(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                              const ct_tensor *w, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[3] = {x1, x2, w};
    ct_status st = ct__check_args(ctx, "bilinear", 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (w->ndim != 3 || x1->ndim < 1 || x2->ndim != x1->ndim ||
        x1->shape[x1->ndim - 1] != w->shape[1] || x2->shape[x2->ndim - 1] != w->shape[2])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "bilinear: input1 %s, input2 %s and weight %s do not match (weight "
                             "(out, in1, in2))",
                             CT__SHAPE_STR(x1), CT__SHAPE_STR(x2),
                             ct__shape_str((char[96]){0}, 96, w->ndim, w->shape));
    for (int i = 0; i < x1->ndim - 1; i++)
        if (x1->shape[i] != x2->shape[i])
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "bilinear: input1 %s and input2 %s differ in their leading dims",
                                 CT__SHAPE_STR(x1), CT__SHAPE_STR(x2));
    if (b && (b->ndim != 1 || b->shape[0] != w->shape[0]))
        return ct__set_error(ctx, CT_ERR_SHAPE, "bilinear: bias must be (%lld)",
                             (long long)w->shape[0]);
    const int64_t I = w->shape[1], J = w->shape[2], O = w->shape[0];
    int64_t M = 1;
    for (int i = 0; i < x1->ndim - 1; i++)
        M *= x1->shape[i];
    ct_tensor *t[9] = {NULL};
    const int last = -1;
    st = ct_tensor_reshape(ctx, x1, 3, SH(1, M, I), &t[0]);
    CT__DO(st, ct_matmul(ctx, t[0], w, &t[1])); /* (O, M, J) */
    CT__DO(st, ct_tensor_reshape(ctx, x2, 3, SH(1, M, J), &t[2]));
    CT__DO(st, ct_mul(ctx, t[1], t[2], &t[3]));
    CT__DO(st, ct_sum(ctx, t[3], 1, &last, false, &t[4])); /* (O, M) */
    if (st == CT_OK && t[4]->dtype != t[3]->dtype) { /* an integer sum widened to int64: torch's
                                                      * bilinear keeps the inputs' dtype */
        ct_tensor *c = NULL;
        st = ct_cast(ctx, t[4], t[3]->dtype, &c);
        ct_tensor_release(t[4]);
        t[4] = c;
    }
    CT__DO(st, ct_tensor_transpose(ctx, t[4], 0, 1, &t[5]));
    if (b) {
        CT__DO(st, ct_add(ctx, t[5], b, &t[6]));
    } else if (st == CT_OK) {
        t[6] = ct_tensor_retain(t[5]);
    }
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < x1->ndim - 1; i++)
        sh[i] = x1->shape[i];
    sh[x1->ndim - 1] = O;
    CT__DO(st, ct_tensor_reshape(ctx, t[6], x1->ndim, sh, out));
    ct__release_all(9, t);
    return st;
}
ct_status ct_bilinear(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, const ct_tensor *w,
                      const ct_tensor *b, ct_tensor **out) {
    return ct__error_within(ctx, "bilinear", ct__bilinear(ctx, x1, x2, w, b, out));
}

/* ---- channel_shuffle: (N, g, C/g, ...) transposed to (N, C/g, g, ...) ---- */
ct_status ct_channel_shuffle(ct_ctx *ctx, const ct_tensor *x, int64_t groups, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "channel_shuffle", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim < 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "channel_shuffle: expected an input of at least 3 dims, got %s",
                             CT__SHAPE_STR(x));
    if (groups < 1 || x->shape[1] % groups)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "channel_shuffle: number of channels %lld must be divisible by groups "
                             "%lld (> 0)",
                             (long long)x->shape[1], (long long)groups);
    if (x->ndim + 1 > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "channel_shuffle: too many dims");
    int64_t sh[CT_MAX_DIMS];
    sh[0] = x->shape[0];
    sh[1] = groups;
    sh[2] = x->shape[1] / groups;
    for (int i = 2; i < x->ndim; i++)
        sh[i + 1] = x->shape[i];
    ct_tensor *t[3] = {NULL};
    st = ct_tensor_reshape(ctx, x, x->ndim + 1, sh, &t[0]);
    CT__DO(st, ct_tensor_transpose(ctx, t[0], 1, 2, &t[1]));
    CT__DO(st, ct_tensor_contiguous(ctx, t[1], &t[2]));
    CT__DO(st, ct_tensor_reshape(ctx, t[2], x->ndim, x->shape, out));
    ct__release_all(3, t);
    return ct__error_within(ctx, "channel_shuffle", st);
}

/* ---- multi_margin_loss: sum over j != y of max(0, margin - x[y] + x[j])^p (* weight[y]) / C ----
 */
static ct_status ct__multi_margin(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, int p,
                                  double margin, const ct_tensor *weight, ct_reduction red,
                                  ct_tensor **out) {
    const ct_tensor *ins[2] = {x, y};
    ct_status st = ct__check_args(ctx, "multi_margin_loss", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__ag_check_red(ctx, "multi_margin_loss", red)) != CT_OK) return st;
    if ((st = ct__need_float(ctx, "multi_margin_loss", x)) != CT_OK) return st;
    if (p != 1 && p != 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "multi_margin_loss: only p == 1 and p == 2 supported, got %d", p);
    if (y->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "multi_margin_loss: target must be int64, got %s",
                             ct_dtype_name(y->dtype));
    const bool one = x->ndim <= 1;
    const int64_t N = one ? 1 : x->shape[0], C = x->ndim == 0 ? 1 : x->shape[x->ndim - 1];
    if (x->ndim > 2 || C < 1 || ct_tensor_numel(y) != N || y->ndim > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "multi_margin_loss: inconsistent input %s and target %s (input (N, "
                             "C) or (C), target (N) or scalar)",
                             CT__SHAPE_STR(x), CT__SHAPE_STR(y));
    if (weight && (weight->ndim != 1 || weight->shape[0] != C || weight->dtype != x->dtype))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "multi_margin_loss: weight must be a (%lld) tensor of the input's "
                             "dtype",
                             (long long)C);
    ct_tensor *t[16] = {NULL};
    const int dim1 = 1;
    st = ct_tensor_reshape(ctx, x, 2, SH(N, C), &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, y, 2, SH(N, 1), &t[1]));
    CT__DO(st, ct_gather(ctx, t[0], 1, t[1], &t[2])); /* x[y] (N, 1); bad y: CT_ERR_INDEX */
    CT__DO(st, ct_rsub_scalar(ctx, t[2], margin, 1, &t[3]));
    CT__DO(st, ct_add(ctx, t[3], t[0], &t[4])); /* margin - x[y] + x[j] */
    CT__DO(st, ct_relu(ctx, t[4], &t[5]));
    if (p == 2) {
        CT__DO(st, ct_mul(ctx, t[5], t[5], &t[6]));
    } else if (st == CT_OK) {
        t[6] = ct_tensor_retain(t[5]);
    }
    if (weight) {
        CT__DO(st, ct_tensor_reshape(ctx, y, 1, SH(N), &t[7]));
        CT__DO(st, ct_index_select(ctx, weight, 0, t[7], &t[8]));
        CT__DO(st, ct_tensor_reshape(ctx, t[8], 2, SH(N, 1), &t[9]));
        CT__DO(st, ct_mul(ctx, t[6], t[9], &t[10]));
    } else if (st == CT_OK) {
        t[10] = ct_tensor_retain(t[6]);
    }
    /* drop j == y */
    CT__DO(st, ct_tensor_zeros(ctx, CT_BOOL, 2, SH(N, C), &t[11]));
    CT__DO(st, ct_tensor_ones(ctx, CT_BOOL, 2, SH(N, 1), &t[12]));
    CT__DO(st, ct_scatter(ctx, t[11], 1, t[1], t[12], &t[13]));
    CT__DO(st, ct_masked_fill(ctx, t[10], t[13], 0, &t[14]));
    CT__DO(st, ct_sum(ctx, t[14], 1, &dim1, false, &t[15]));
    ct_tensor *l = NULL, *l2 = NULL;
    CT__DO(st, ct_div_scalar(ctx, t[15], (double)C, &l));
    if (one) {
        CT__DO(st, ct_tensor_reshape(ctx, l, 0, NULL, &l2));
        ct_tensor_release(l);
        l = l2;
    }
    ct__release_all(16, t);
    if (st != CT_OK) {
        ct_tensor_release(l);
        return st;
    }
    return ct__ag_reduce_loss(ctx, l, red, out);
}
ct_status ct_multi_margin_loss(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, int p,
                               double margin, const ct_tensor *weight, ct_reduction red,
                               ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "multi_margin_loss",
                                    ct__multi_margin(ctx, x, y, p, margin, weight, red, out));
    return ct__ag_named(ctx, st, out, mark, "MultiMarginLossBackward0");
}

/* ---- multilabel_margin_loss: the targets are y's entries before the first -1; sum over targets j
 * and non-targets k of max(0, 1 - x[j] + x[k]) / C ---- */
static ct_status ct__multilabel_margin(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y,
                                       ct_reduction red, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, y};
    ct_status st = ct__check_args(ctx, "multilabel_margin_loss", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__ag_check_red(ctx, "multilabel_margin_loss", red)) != CT_OK) return st;
    if ((st = ct__need_float(ctx, "multilabel_margin_loss", x)) != CT_OK) return st;
    if (y->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "multilabel_margin_loss: target must be int64, got %s",
                             ct_dtype_name(y->dtype));
    const bool one = x->ndim <= 1;
    const int64_t N = one ? 1 : x->shape[0], C = x->ndim == 0 ? 1 : x->shape[x->ndim - 1];
    bool same = x->ndim == y->ndim && x->ndim <= 2;
    for (int i = 0; same && i < x->ndim; i++)
        same = x->shape[i] == y->shape[i];
    if (!same || C < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "multilabel_margin_loss: inconsistent input %s and target %s (both "
                             "(N, C) or (C))",
                             CT__SHAPE_STR(x), CT__SHAPE_STR(y));
    ct_tensor *t[24] = {NULL};
    const int d12[2] = {1, 2};
    st = ct_tensor_reshape(ctx, x, 2, SH(N, C), &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, y, 2, SH(N, C), &t[1]));
    const bool was = ct_set_grad_enabled(ctx, false);
    /* every entry must be in [-1, C) (torch checks them all, past the first -1 too): a bad one
     * becomes index C of a gather, which reports CT_ERR_INDEX without a host read */
    {
        ct_tensor *lo = NULL, *hi = NULL, *bad = NULL, *pos = NULL, *cidx = NULL, *chk = NULL,
                  *cC = NULL;
        CT__DO(st, ct_lt_scalar(ctx, t[1], -1, &lo));
        CT__DO(st, ct_ge_scalar(ctx, t[1], (double)C, &hi));
        CT__DO(st, ct_logical_or(ctx, lo, hi, &bad));
        CT__DO(st, ct_zeros_like(ctx, t[1], &pos));
        CT__DO(st, ct_tensor_full(ctx, CT_INT64, 0, NULL, (double)C, &cC));
        CT__DO(st, ct_where(ctx, bad, cC, pos, &cidx));
        CT__DO(st, ct_gather(ctx, t[0], 1, cidx, &chk));
        if (st == CT_ERR_INDEX)
            st = ct__set_error(ctx, st,
                               "multilabel_margin_loss: a target is out of range [-1, %lld)",
                               (long long)C);
        ct_tensor_release(lo), ct_tensor_release(hi), ct_tensor_release(bad);
        ct_tensor_release(pos), ct_tensor_release(cidx), ct_tensor_release(chk);
        ct_tensor_release(cC);
    }
    /* valid slots: before the first -1 (a running product of y != -1) */
    CT__DO(st, ct_ne_scalar(ctx, t[1], -1, &t[2]));
    CT__DO(st, ct_cast(ctx, t[2], CT_INT64, &t[3]));
    CT__DO(st, ct_cumprod(ctx, t[3], 1, &t[4]));
    CT__DO(st, ct_ne_scalar(ctx, t[4], 0, &t[5])); /* valid (N, C) bool */
    /* valid targets must be in [0, C): invalid ones (after the -1) are clamped to 0 */
    CT__DO(st, ct_mul(ctx, t[1], t[4], &t[6]));
    CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, 2, SH(N, C), &t[8]));
    CT__DO(st, ct_scatter_add(ctx, t[8], 1, t[6], t[4], &t[9]));
    CT__DO(st, ct_gt_scalar(ctx, t[9], 0, &t[10])); /* is a target (N, C) */
    CT__DO(st, ct_logical_not(ctx, t[10], &t[11]));
    CT__DO(st, ct_tensor_reshape(ctx, t[5], 3, SH(N, C, 1), &t[12]));
    CT__DO(st, ct_tensor_reshape(ctx, t[11], 3, SH(N, 1, C), &t[13]));
    CT__DO(st, ct_logical_and(ctx, t[12], t[13], &t[14])); /* (N, slot, k) pairs counted */
    ct_set_grad_enabled(ctx, was);
    CT__DO(st, ct_gather(ctx, t[0], 1, t[6], &t[15])); /* x at each slot's target */
    CT__DO(st, ct_tensor_reshape(ctx, t[15], 3, SH(N, C, 1), &t[16]));
    CT__DO(st, ct_rsub_scalar(ctx, t[16], 1.0, 1, &t[17])); /* 1 - x[j] */
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 3, SH(N, 1, C), &t[18]));
    CT__DO(st, ct_add(ctx, t[17], t[18], &t[19])); /* 1 - x[j] + x[k] */
    CT__DO(st, ct_relu(ctx, t[19], &t[20]));
    CT__DO(st, ct_logical_not(ctx, t[14], &t[21]));
    CT__DO(st, ct_masked_fill(ctx, t[20], t[21], 0, &t[22]));
    CT__DO(st, ct_sum(ctx, t[22], 2, d12, false, &t[23]));
    ct_tensor *l = NULL, *l2 = NULL;
    CT__DO(st, ct_div_scalar(ctx, t[23], (double)C, &l));
    if (one) {
        CT__DO(st, ct_tensor_reshape(ctx, l, 0, NULL, &l2));
        ct_tensor_release(l);
        l = l2;
    }
    ct__release_all(24, t);
    if (st != CT_OK) {
        ct_tensor_release(l);
        return st;
    }
    return ct__ag_reduce_loss(ctx, l, red, out);
}
ct_status ct_multilabel_margin_loss(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y,
                                    ct_reduction red, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "multilabel_margin_loss", ct__multilabel_margin(ctx, x, y, red, out));
    return ct__ag_named(ctx, st, out, mark, "MultilabelMarginLossBackward0");
}

/* ---- affine_grid / grid_sample (2-d): normalized coordinates in [-1, 1] ---- */
/* torch's linspace_from_neg_one: linspace(-1, 1, n), scaled by (n - 1) / n without align_corners;
 * a single step is 0 */
static ct_status ct__neg_one_range(ct_ctx *ctx, ct_dtype dt, int64_t n, bool align,
                                   ct_tensor **out) {
    if (n <= 1) return ct_tensor_zeros(ctx, dt, 1, &n, out);
    ct_tensor *r = NULL, *m = NULL;
    ct_status st = ct_tensor_linspace(ctx, dt, -1, 1, n, &r);
    if (align) {
        if (st == CT_OK) *out = r;
        return st;
    }
    CT__DO(st, ct_mul_scalar(ctx, r, (double)(n - 1), &m));
    CT__DO(st, ct_div_scalar(ctx, m, (double)n, out));
    ct_tensor_release(r), ct_tensor_release(m);
    return st;
}
static ct_status ct__affine_grid(ct_ctx *ctx, const ct_tensor *theta, const int64_t size[4],
                                 bool align, ct_tensor **out) {
    const ct_tensor *ins[1] = {theta};
    ct_status st = ct__check_args(ctx, "affine_grid", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!size) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "affine_grid: size is NULL");
    if (!ct_dtype_is_floating(theta->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "affine_grid: expected theta to be a floating point tensor, got %s",
                             ct_dtype_name(theta->dtype));
    const int64_t N = size[0], H = size[2], W = size[3];
    if (theta->ndim != 3 || theta->shape[0] != N || theta->shape[1] != 2 || theta->shape[2] != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "affine_grid: expected a batch of 2D affine matrices of shape Nx2x3 "
                             "for size (%lld, %lld, %lld, %lld), got %s",
                             (long long)size[0], (long long)size[1], (long long)H, (long long)W,
                             CT__SHAPE_STR(theta));
    if (N < 1 || size[1] < 1 || H < 1 || W < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "affine_grid: size must be positive");
    ct_tensor *t[12] = {NULL};
    const ct_dtype dt = theta->dtype;
    st = ct__neg_one_range(ctx, dt, W, align, &t[0]);
    CT__DO(st, ct__neg_one_range(ctx, dt, H, align, &t[1]));
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 3, SH(1, W, 1), &t[2]));
    CT__DO(st, ct_tensor_expand(ctx, t[2], 3, SH(H, W, 1), &t[3]));
    CT__DO(st, ct_tensor_reshape(ctx, t[1], 3, SH(H, 1, 1), &t[4]));
    CT__DO(st, ct_tensor_expand(ctx, t[4], 3, SH(H, W, 1), &t[5]));
    CT__DO(st, ct_tensor_ones(ctx, dt, 3, SH(H, W, 1), &t[6]));
    const ct_tensor *parts[3] = {t[3], t[5], t[6]};
    CT__DO(st, ct_cat(ctx, 3, parts, 2, &t[7])); /* (H, W, 3): x, y, 1 */
    CT__DO(st, ct_tensor_reshape(ctx, t[7], 3, SH(1, H * W, 3), &t[8]));
    CT__DO(st, ct_tensor_transpose(ctx, theta, 1, 2, &t[9]));
    CT__DO(st, ct_matmul(ctx, t[8], t[9], &t[10])); /* (N, H*W, 2) */
    CT__DO(st, ct_tensor_reshape(ctx, t[10], 4, SH(N, H, W, 2), out));
    ct__release_all(12, t);
    return st;
}
ct_status ct_affine_grid(ct_ctx *ctx, const ct_tensor *theta, const int64_t size[4],
                         bool align_corners, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "affine_grid", ct__affine_grid(ctx, theta, size, align_corners, out));
    return ct__ag_named(ctx, st, out, mark, "AffineGridGeneratorBackward0");
}

/* the source coordinate (N, Ho, Wo) along one axis of `size` pixels, padded as torch's
 * grid_sampler_compute_source_index */
static ct_status ct__source_index(ct_ctx *ctx, const ct_tensor *coord, int64_t size,
                                  ct_grid_padding pad, bool align, ct_tensor **out) {
    ct_tensor *t[16] = {NULL};
    ct_status st;
    /* torch's CPU kernel for 4-d input (ComputeLocationBase): (c + 1) ((size - 1) / 2) with
     * align_corners, else fma(c + 1, size / 2, -0.5) (one rounding: its vectorised code is
     * contracted to an FMA), which decides nearest's pick at exact halves */
    st = ct_add_scalar(ctx, coord, 1, &t[0]);
    if (align) {
        CT__DO(st, ct_mul_scalar(ctx, t[0], (double)(size - 1) / 2, &t[2]));
    } else {
        CT__DO(st, ct_tensor_full(ctx, coord->dtype, 0, NULL, (double)size / 2, &t[1]));
        CT__DO(st, ct_tensor_full(ctx, coord->dtype, 0, NULL, -0.5, &t[3]));
        CT__DO(st, ct_addcmul(ctx, t[3], t[0], t[1], 1.0, &t[2]));
    }
    if (pad == CT_GRID_PAD_ZEROS) {
        if (st == CT_OK) *out = ct_tensor_retain(t[2]);
    } else {
        const double lo = 0, hi = (double)(size - 1);
        ct_tensor *c = ct_tensor_retain(t[2]);
        if (pad == CT_GRID_PAD_REFLECTION && st == CT_OK) {
            /* reflect about [min, min + span]: align [0, size - 1], else [-0.5, size - 0.5] */
            const double tlo = align ? 0 : -1,
                         thi = align ? 2.0 * (double)(size - 1) : 2.0 * (double)size - 1;
            if (tlo == thi) { /* zeros that keep the coordinate's graph (zero gradient) */
                ct_tensor *no = NULL, *z = NULL;
                ct_tensor_release(c);
                c = NULL;
                st = ct_tensor_zeros(ctx, CT_BOOL, 0, NULL, &no);
                CT__DO(st, ct_zeros_like(ctx, t[2], &z));
                CT__DO(st, ct_where(ctx, no, t[2], z, &c));
                ct_tensor_release(no), ct_tensor_release(z);
            } else {
                const double mn = tlo / 2, span = (thi - tlo) / 2;
                ct_tensor *ab = NULL, *ex = NULL, *fl = NULL, *odd = NULL, *a1 = NULL, *a2 = NULL,
                          *sh = NULL, *r = NULL;
                st = ct_add_scalar(ctx, c, -mn, &sh);
                CT__DO(st, ct_abs(ctx, sh, &ab));
                CT__DO(st, ct_fmod_scalar(ctx, ab, span, &ex));
                CT__DO(st, ct_div_scalar(ctx, ab, span, &fl));
                ct_tensor *flr = NULL;
                CT__DO(st, ct_floor(ctx, fl, &flr));
                CT__DO(st, ct_fmod_scalar(ctx, flr, 2, &odd)); /* flips % 2 */
                ct_tensor *even = NULL;
                CT__DO(st, ct_eq_scalar(ctx, odd, 0, &even));
                CT__DO(st, ct_add_scalar(ctx, ex, mn, &a1));
                CT__DO(st, ct_rsub_scalar(ctx, ex, span + mn, 1, &a2));
                CT__DO(st, ct_where(ctx, even, a1, a2, &r));
                ct_tensor_release(c);
                c = r;
                ct_tensor *tl[] = {ab, ex, fl, flr, odd, even, a1, a2, sh};
                ct__release_all(9, tl);
            }
        }
        /* clip with torch's gradient: 0 at and beyond the edges */
        ct_tensor *le = NULL, *ge = NULL, *vlo = NULL, *vhi = NULL, *in = NULL;
        CT__DO(st, ct_le_scalar(ctx, c, lo, &le));
        CT__DO(st, ct_ge_scalar(ctx, c, hi, &ge));
        CT__DO(st, ct_tensor_full(ctx, c->dtype, 0, NULL, lo, &vlo));
        CT__DO(st, ct_tensor_full(ctx, c->dtype, 0, NULL, hi, &vhi));
        CT__DO(st, ct_where(ctx, ge, vhi, c, &in));
        CT__DO(st, ct_where(ctx, le, vlo, in, out));
        ct_tensor_release(le), ct_tensor_release(ge), ct_tensor_release(vlo);
        ct_tensor_release(vhi), ct_tensor_release(in);
        ct_tensor_release(c);
    }
    ct__release_all(16, t);
    return st;
}
static ct_status ct__grid_sample(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *grid,
                                 ct_grid_mode mode, ct_grid_padding pad, bool align,
                                 ct_tensor **out) {
    const ct_tensor *ins[2] = {x, grid};
    ct_status st = ct__check_args(ctx, "grid_sample", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim != 4 || grid->ndim != 4 || grid->shape[3] != 2 || grid->shape[0] != x->shape[0])
        return ct__set_error(
            ctx, CT_ERR_SHAPE,
            "grid_sample: expected input (N, C, H, W) and grid (N, Ho, Wo, 2) with "
            "the same N, got %s and %s",
            CT__SHAPE_STR(x), CT__SHAPE_STR(grid));
    if (!ct_dtype_is_floating(x->dtype) || grid->dtype != x->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "grid_sample: expected input and grid of one floating dtype, got %s "
                             "and %s",
                             ct_dtype_name(x->dtype), ct_dtype_name(grid->dtype));
    if (mode != CT_GRID_BILINEAR && mode != CT_GRID_NEAREST)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "grid_sample: mode must be bilinear or nearest (bicubic is not "
                             "supported)");
    if (pad != CT_GRID_PAD_ZEROS && pad != CT_GRID_PAD_BORDER && pad != CT_GRID_PAD_REFLECTION)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "grid_sample: unknown padding mode %d",
                             (int)pad);
    const int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3],
                  Ho = grid->shape[1], Wo = grid->shape[2], L = Ho * Wo;
    if (H < 1 || W < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "grid_sample: input %s has an empty plane",
                             CT__SHAPE_STR(x));
    ct_tensor *t[16] = {NULL};
    st = ct_select(ctx, grid, 3, 0, &t[0]); /* x coordinate (N, Ho, Wo) */
    CT__DO(st, ct_select(ctx, grid, 3, 1, &t[1]));
    CT__DO(st, ct__source_index(ctx, t[0], W, pad, align, &t[2])); /* ix */
    CT__DO(st, ct__source_index(ctx, t[1], H, pad, align, &t[3])); /* iy */
    CT__DO(st, ct_tensor_reshape(ctx, x, 3, SH(N, C, H * W), &t[4]));
    ct_tensor *acc = NULL;
    /* corners: (dx, dy) offsets from the floor (bilinear) or the rounded point (nearest) */
    const int ncorner = mode == CT_GRID_BILINEAR ? 4 : 1;
    ct_tensor *fx = NULL, *fy = NULL;
    const bool was0 = ct_set_grad_enabled(ctx, false); /* corners carry no gradient */
    if (mode == CT_GRID_BILINEAR) {
        CT__DO(st, ct_floor(ctx, t[2], &fx));
        CT__DO(st, ct_floor(ctx, t[3], &fy));
    } else { /* nearbyint: half to even */
        CT__DO(st, ct_round(ctx, t[2], &fx));
        CT__DO(st, ct_round(ctx, t[3], &fy));
    }
    ct_set_grad_enabled(ctx, was0);
    for (int k = 0; k < ncorner && st == CT_OK; k++) {
        const int dx = k & 1, dy = k >> 1;
        ct_tensor *c[20] = {NULL};
        const bool was = ct_set_grad_enabled(ctx, false);
        st = ct_add_scalar(ctx, fx, dx, &c[0]); /* corner x */
        CT__DO(st, ct_add_scalar(ctx, fy, dy, &c[1]));
        const double zero = 0, wmax = (double)(W - 1), hmax = (double)(H - 1);
        ct_tensor *okx = NULL, *okx2 = NULL, *oky = NULL, *oky2 = NULL;
        CT__DO(st, ct_ge_scalar(ctx, c[0], 0, &okx));
        CT__DO(st, ct_le_scalar(ctx, c[0], wmax, &okx2));
        CT__DO(st, ct_ge_scalar(ctx, c[1], 0, &oky));
        CT__DO(st, ct_le_scalar(ctx, c[1], hmax, &oky2));
        CT__DO(st, ct_logical_and(ctx, okx, okx2, &c[2]));
        CT__DO(st, ct_logical_and(ctx, oky, oky2, &c[3]));
        CT__DO(st, ct_logical_and(ctx, c[2], c[3], &c[4])); /* in bounds */
        ct_tensor_release(okx), ct_tensor_release(okx2), ct_tensor_release(oky);
        ct_tensor_release(oky2);
        /* the flat index in int64 (exact for any plane and dtype); a NaN or out-of-range corner
         * reads element 0, its weight is 0 */
        ct_tensor *cx = NULL, *cy = NULL, *ix64 = NULL, *iy64 = NULL, *zi = NULL;
        CT__DO(st, ct_clamp(ctx, c[0], &zero, &wmax, &cx));
        CT__DO(st, ct_clamp(ctx, c[1], &zero, &hmax, &cy));
        CT__DO(st, ct_nan_to_num(ctx, cx, &zero, &zero, &zero, &c[5]));
        CT__DO(st, ct_nan_to_num(ctx, cy, &zero, &zero, &zero, &c[6]));
        CT__DO(st, ct_cast(ctx, c[5], CT_INT64, &ix64));
        CT__DO(st, ct_cast(ctx, c[6], CT_INT64, &iy64));
        CT__DO(st, ct_mul_scalar(ctx, iy64, (double)W, &c[7]));
        CT__DO(st, ct_add(ctx, c[7], ix64, &c[8]));
        CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, 0, NULL, &zi));
        CT__DO(st, ct_where(ctx, c[4], c[8], zi, &c[9])); /* flat index (N, Ho, Wo) */
        ct_tensor_release(cx), ct_tensor_release(cy), ct_tensor_release(ix64);
        ct_tensor_release(iy64), ct_tensor_release(zi);
        CT__DO(st, ct_tensor_reshape(ctx, c[9], 3, SH(N, 1, L), &c[10]));
        CT__DO(st, ct_tensor_expand(ctx, c[10], 3, SH(N, C, L), &c[11]));
        ct_set_grad_enabled(ctx, was);
        CT__DO(st, ct_gather(ctx, t[4], 2, c[11], &c[12])); /* (N, C, L) */
        /* weight: (1 - |ix - cx|)(1 - |iy - cy|) for bilinear, 1 for nearest; 0 out of bounds */
        if (mode == CT_GRID_BILINEAR) { /* torch: x1 - ix or ix - x0, the corners detached */
            ct_tensor *fx1 = NULL, *fy1 = NULL;
            CT__DO(st, ct_add_scalar(ctx, fx, 1, &fx1));
            CT__DO(st, ct_add_scalar(ctx, fy, 1, &fy1));
            CT__DO(st, dx ? ct_sub(ctx, t[2], fx, &c[14]) : ct_sub(ctx, fx1, t[2], &c[14]));
            CT__DO(st, dy ? ct_sub(ctx, t[3], fy, &c[16]) : ct_sub(ctx, fy1, t[3], &c[16]));
            CT__DO(st, ct_mul(ctx, c[14], c[16], &c[17]));
            ct_tensor_release(fx1), ct_tensor_release(fy1);
        } else { /* ones on the grid's graph: its gradient is zero, as torch's */
            ct_tensor *no = NULL, *one = NULL;
            CT__DO(st, ct_tensor_zeros(ctx, CT_BOOL, 0, NULL, &no));
            CT__DO(st, ct_ones_like(ctx, t[2], &one));
            CT__DO(st, ct_where(ctx, no, t[2], one, &c[17]));
            ct_tensor_release(no), ct_tensor_release(one);
        }
        ct_tensor *wm = NULL, *w3 = NULL, *term = NULL, *vz = NULL;
        CT__DO(st, ct_logical_not(ctx, c[4], &c[18]));
        CT__DO(st, ct_masked_fill(ctx, c[17], c[18], 0, &wm));
        CT__DO(st, ct_tensor_reshape(ctx, wm, 3, SH(N, 1, L), &w3));
        /* an out-of-bounds corner contributes nothing (torch skips it): its gathered element 0
         * is zeroed, not multiplied by the zero weight (an inf or NaN there would give NaN) */
        CT__DO(st, ct_tensor_reshape(ctx, c[18], 3, SH(N, 1, L), &c[19]));
        CT__DO(st, ct_masked_fill(ctx, c[12], c[19], 0, &vz));
        CT__DO(st, ct_mul(ctx, vz, w3, &term));
        ct_tensor_release(vz);
        if (st == CT_OK && acc) {
            ct_tensor *s2 = NULL;
            st = ct_add(ctx, acc, term, &s2);
            ct_tensor_release(acc);
            acc = s2;
        } else if (st == CT_OK) {
            acc = ct_tensor_retain(term);
        }
        ct_tensor_release(wm), ct_tensor_release(w3), ct_tensor_release(term);
        ct__release_all(20, c);
    }
    CT__DO(st, ct_tensor_reshape(ctx, acc, 4, SH(N, C, Ho, Wo), out));
    ct_tensor_release(acc), ct_tensor_release(fx), ct_tensor_release(fy);
    ct__release_all(16, t);
    return st;
}
ct_status ct_grid_sample(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *grid, ct_grid_mode mode,
                         ct_grid_padding padding_mode, bool align_corners, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "grid_sample", ct__grid_sample(ctx, x, grid, mode, padding_mode, align_corners, out));
    return ct__ag_named(ctx, st, out, mark, "GridSampler2DBackward0");
}

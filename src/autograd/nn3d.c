/* Volumetric (3-d) convolution and pooling as torch.nn.functional computes them, composed of
 * recording ops (differentiable, capturable): conv3d and conv_transpose3d as one 2-d (transposed)
 * convolution per kernel depth over all output (input) depths at once, summed (scattered with
 * index_add for the transpose); max / avg / adaptive pooling by gathering each window (index_select
 * of the flattened volume, invalid positions masked), torch's choice of the maximum (the first,
 * or the last NaN, in (d, h, w) order) and its flat index d * H * W + h * W + w, the value taken
 * back with gather so the gradient goes where torch's does; max_unpool3d as max_unpool2d over the
 * flattened depth. docs/everyday.md ("Volumetric") lists the differences. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SH(...) ((const int64_t[]){__VA_ARGS__})

/* x (N, C, D, H, W) or unbatched (C, D, H, W): a 5-d view (*x5, retained) */
static ct_status ct__as5d(ct_ctx *ctx, const char *op, const ct_tensor *x, ct_tensor **x5,
                          bool *unb) {
    *x5 = NULL;
    if (x->ndim != 4 && x->ndim != 5)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected a 4-d (unbatched) or 5-d (batched) input, got %s", op,
                             CT__SHAPE_STR(x));
    *unb = x->ndim == 4;
    if (*unb) return ct_tensor_unsqueeze(ctx, x, 0, x5);
    *x5 = ct_tensor_retain((ct_tensor *)x);
    return CT_OK;
}
/* the batched result y5 back to the caller's layout */
static ct_status ct__from5d(ct_ctx *ctx, ct_tensor *y5, bool unb, ct_tensor **out) {
    if (unb) return ct_tensor_squeeze(ctx, y5, 0, out);
    *out = ct_tensor_retain(y5);
    return CT_OK;
}

static ct_status ct__geom3(ct_ctx *ctx, const char *op, const int64_t *k, const int64_t *s,
                           const int64_t *p, const int64_t *d) {
    if (!k || !s || !p || !d)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL geometry", op);
    for (int i = 0; i < 3; i++)
        if (k[i] < 1 || s[i] < 1 || d[i] < 1 || p[i] < 0 || k[i] > INT32_MAX || s[i] > INT32_MAX ||
            d[i] > INT32_MAX || p[i] > INT32_MAX / 4)
            return ct__set_error(
                ctx, CT_ERR_INVALID_ARG,
                "%s: kernel (%lld, %lld, %lld), stride (%lld, %lld, %lld), padding "
                "(%lld, %lld, %lld), dilation (%lld, %lld, %lld): kernel, stride "
                "and dilation must be >= 1 and padding >= 0",
                op, (long long)k[0], (long long)k[1], (long long)k[2], (long long)s[0],
                (long long)s[1], (long long)s[2], (long long)p[0], (long long)p[1], (long long)p[2],
                (long long)d[0], (long long)d[1], (long long)d[2]);
    return CT_OK;
}

/* kernel dims >= 1 and a non-empty volume (torch refuses both) */
static ct_status ct__conv3_dims(ct_ctx *ctx, const char *op, const ct_tensor *x5,
                                const ct_tensor *w) {
    for (int i = 2; i < 5; i++)
        if (w->shape[i] < 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: kernel size should be greater than zero, got weight %s", op,
                                 CT__SHAPE_STR(w));
    if (x5->shape[2] == 0 || x5->shape[3] == 0 || x5->shape[4] == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected non-empty spatial dims (only a zero batch or zero "
                             "channels are supported), got input %s",
                             op, CT__SHAPE_STR(x5));
    return CT_OK;
}

/* the (N, O, D, H, W) result plus the bias b (O) or NULL, back to the caller's layout */
static ct_status ct__conv3_finish(ct_ctx *ctx, const char *op, const ct_tensor *y,
                                  const ct_tensor *b, int64_t O, bool unb, ct_tensor **out) {
    ct_tensor *t[3] = {NULL};
    ct_status st = CT_OK;
    if (b) {
        if (b->ndim != 1 || b->shape[0] != O)
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: bias %s must be (%lld)", op,
                                 CT__SHAPE_STR(b), (long long)O);
        st = ct_tensor_reshape(ctx, b, 4, SH(O, 1, 1, 1), &t[0]);
        CT__DO(st, ct_add(ctx, y, t[0], &t[1]));
    } else {
        st = ct_tensor_contiguous(ctx, y, &t[1]);
    }
    CT__DO(st, ct__from5d(ctx, t[1], unb, out));
    ct__release_all(3, t);
    return st;
}

/* ---- conv3d: sum over kernel depths of conv2d on (N OD, C, H, W) ---- */
static ct_status ct__conv3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                            const int64_t *str, const int64_t *pad, const int64_t *dil, int groups,
                            ct_tensor **out) {
    const char *op = "conv3d";
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const int64_t one[3] = {1, 1, 1};
    if ((st = ct__geom3(ctx, op, one, str, pad, dil)) != CT_OK) return st;
    if (w->ndim != 5)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: weight %s must be (O, C / groups, kd, kh, kw)",
                             op, CT__SHAPE_STR(w));
    bool unb = false;
    ct_tensor *t[16] = {NULL}, *acc = NULL;
    if ((st = ct__as5d(ctx, op, x, &t[0], &unb)) != CT_OK) return st;
    const ct_tensor *x5 = t[0];
    const int64_t N = x5->shape[0], C = x5->shape[1], D = x5->shape[2], H = x5->shape[3],
                  W = x5->shape[4], O = w->shape[0], KD = w->shape[2];
    if ((st = ct__conv3_dims(ctx, op, x5, w)) != CT_OK) goto done;
    if (groups < 1 || C % groups || O % groups || w->shape[1] * groups != C) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: input %s and weight %s with groups %d: expected weight (O, C / "
                           "groups, kd, kh, kw) with C and O divisible by groups",
                           op, CT__SHAPE_STR(x), CT__SHAPE_STR(w), groups);
        goto done;
    }
    const int64_t span = D + 2 * pad[0] - dil[0] * (KD - 1) - 1;
    if (span < 0) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: kernel depth %lld with dilation %lld does not fit input %s padded "
                           "by %lld",
                           op, (long long)KD, (long long)dil[0], CT__SHAPE_STR(x),
                           (long long)pad[0]);
        goto done;
    }
    const int64_t OD = span / str[0] + 1;
    /* zero padding in depth only; conv2d pads height and width */
    st = ct_pad(ctx, x5, 6, SH(0, 0, 0, 0, pad[0], pad[0]), CT_PAD_CONSTANT, 0, &t[1]);
    for (int64_t kd = 0; kd < KD && st == CT_OK; kd++) {
        ct_tensor *s = NULL, *p = NULL, *r = NULL, *wk = NULL, *y = NULL;
        st = ct_tensor_slice(ctx, t[1], 2, kd * dil[0], kd * dil[0] + (OD - 1) * str[0] + 1, str[0],
                             &s);
        CT__DO(st, ct_tensor_permute(ctx, s, (const int[]){0, 2, 1, 3, 4}, &p));
        CT__DO(st, ct_tensor_reshape(ctx, p, 4, SH(N * OD, C, H, W), &r));
        CT__DO(st, ct_select(ctx, w, 2, kd, &wk));
        CT__DO(st, ct_conv2d(ctx, r, wk, NULL, str + 1, pad + 1, dil + 1, groups, &y));
        if (st == CT_OK && acc) {
            ct_tensor *a2 = NULL;
            st = ct_add(ctx, acc, y, &a2);
            ct_tensor_release(acc);
            acc = a2;
        } else if (st == CT_OK) {
            acc = ct_tensor_retain(y);
        }
        ct_tensor_release(s), ct_tensor_release(p), ct_tensor_release(r);
        ct_tensor_release(wk), ct_tensor_release(y);
    }
    if (st != CT_OK) goto done;
    const int64_t OH = acc->shape[2], OW = acc->shape[3];
    st = ct_tensor_reshape(ctx, acc, 5, SH(N, OD, O, OH, OW), &t[2]);
    CT__DO(st, ct_tensor_permute(ctx, t[2], (const int[]){0, 2, 1, 3, 4}, &t[3]));
    CT__DO(st, ct__conv3_finish(ctx, op, t[3], b, O, unb, out));
done:
    ct_tensor_release(acc);
    ct__release_all(16, t);
    return st;
}
ct_status ct_conv3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                    const int64_t stride[3], const int64_t padding[3], const int64_t dilation[3],
                    int groups, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "conv3d", ct__conv3d(ctx, x, w, b, stride, padding, dilation, groups, out));
    return ct__ag_named(ctx, st, out, mark,
                        x && x->ndim == 4 ? "SqueezeBackward1" : "ConvolutionBackward0");
}

/* ---- conv_transpose3d: per kernel depth a conv_transpose2d of all input depths, scattered to
 * depths id * stride + kd * dilation of the full output, then the padding cropped ---- */
static ct_status ct__conv_t3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                              const ct_tensor *b, const int64_t *str, const int64_t *pad,
                              const int64_t *opad, int groups, const int64_t *dil,
                              ct_tensor **out) {
    const char *op = "conv_transpose3d";
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const int64_t one[3] = {1, 1, 1};
    if ((st = ct__geom3(ctx, op, one, str, pad, dil)) != CT_OK) return st;
    if (!opad) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL output_padding", op);
    if (opad[0] < 0 || (opad[0] >= str[0] && opad[0] >= dil[0]))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: output padding must be smaller than either stride or dilation, "
                             "got output_padding %lld, stride %lld, dilation %lld (depth)",
                             op, (long long)opad[0], (long long)str[0], (long long)dil[0]);
    if (w->ndim != 5)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: weight %s must be (C, O / groups, kd, kh, kw)",
                             op, CT__SHAPE_STR(w));
    bool unb = false;
    ct_tensor *t[16] = {NULL}, *acc = NULL;
    if ((st = ct__as5d(ctx, op, x, &t[0], &unb)) != CT_OK) return st;
    const ct_tensor *x5 = t[0];
    const int64_t N = x5->shape[0], C = x5->shape[1], D = x5->shape[2], H = x5->shape[3],
                  W = x5->shape[4], KD = w->shape[2], O = w->shape[1] * groups;
    if ((st = ct__conv3_dims(ctx, op, x5, w)) != CT_OK) goto done;
    if (groups < 1 || w->shape[0] != C || C % groups) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: input %s and weight %s with groups %d: expected weight (C, O / "
                           "groups, kd, kh, kw)",
                           op, CT__SHAPE_STR(x), CT__SHAPE_STR(w), groups);
        goto done;
    }
    const int64_t full = (D - 1) * str[0] + dil[0] * (KD - 1) + 1 + opad[0], OD = full - 2 * pad[0];
    if (OD < 1) {
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: the output depth %lld is not positive", op,
                           (long long)OD);
        goto done;
    }
    st = ct_tensor_permute(ctx, x5, (const int[]){0, 2, 1, 3, 4}, &t[1]);
    CT__DO(st, ct_tensor_reshape(ctx, t[1], 4, SH(N * D, C, H, W), &t[2]));
    for (int64_t kd = 0; kd < KD && st == CT_OK; kd++) {
        ct_tensor *wk = NULL, *y = NULL, *y5 = NULL, *idx = NULL, *a2 = NULL;
        st = ct_select(ctx, w, 2, kd, &wk);
        CT__DO(st, ct_conv_transpose2d(ctx, t[2], wk, NULL, str + 1, pad + 1, opad + 1, groups,
                                       dil + 1, &y));
        if (st == CT_OK && !acc)
            st = ct_tensor_zeros(ctx, y->dtype, 5, SH(N, full, O, y->shape[2], y->shape[3]), &acc);
        CT__DO(st, ct_tensor_reshape(ctx, y, 5, SH(N, D, O, y->shape[2], y->shape[3]), &y5));
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, (double)(kd * dil[0]),
                                    (double)(kd * dil[0] + D * str[0]), (double)str[0], &idx));
        CT__DO(st, ct_index_add(ctx, acc, 1, idx, y5, 1.0, &a2));
        if (st == CT_OK) {
            ct_tensor_release(acc);
            acc = a2;
        }
        ct_tensor_release(wk), ct_tensor_release(y), ct_tensor_release(y5);
        ct_tensor_release(idx);
    }
    if (st != CT_OK) goto done;
    st = ct_tensor_narrow(ctx, acc, 1, pad[0], OD, &t[3]);
    CT__DO(st, ct_tensor_permute(ctx, t[3], (const int[]){0, 2, 1, 3, 4}, &t[4]));
    CT__DO(st, ct__conv3_finish(ctx, op, t[4], b, O, unb, out));
done:
    ct_tensor_release(acc);
    ct__release_all(16, t);
    return st;
}
ct_status ct_conv_transpose3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                              const ct_tensor *b, const int64_t stride[3], const int64_t padding[3],
                              const int64_t output_padding[3], int groups,
                              const int64_t dilation[3], ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "conv_transpose3d",
        ct__conv_t3d(ctx, x, w, b, stride, padding, output_padding, groups, dilation, out));
    return ct__ag_named(ctx, st, out, mark,
                        x && x->ndim == 4 ? "SqueezeBackward1" : "ConvolutionBackward0");
}

/* ---- pooling windows ---- */
/* One dim's window positions pos (O, K) = start(o) + k * dil and their validity: inside [0, size)
 * and, for adaptive bins, before end(o). start NULL: o * stride - pad. */
typedef struct ct__wdim {
    int64_t size, O, K;
    ct_tensor *pos, *valid, *count; /* (O, K) int64 clamped, (O, K) bool, (O) int64 */
    ct_tensor *first;               /* (O) int64: torch's start, moved up by dilations until >= 0 */
} ct__wdim;

static void ct__wdim_free(ct__wdim *w) {
    ct_tensor_release(w->pos), ct_tensor_release(w->valid), ct_tensor_release(w->count);
    ct_tensor_release(w->first);
    w->pos = w->valid = w->count = w->first = NULL;
}

/* regular windows (adaptive false) or adaptive bins; count: the divisor per output (valid
 * positions, or with include_pad those before size + pad) */
static ct_status ct__wdim_make(ct_ctx *ctx, ct__wdim *w, bool adaptive, int64_t stride, int64_t pad,
                               int64_t dil, bool include_pad) {
    ct_tensor *t[12] = {NULL};
    ct_status st;
    const int64_t O = w->O, K = w->K, n = w->size;
    if (!adaptive) {
        st = ct_tensor_arange(ctx, CT_INT64, (double)-pad, (double)(-pad + O * stride),
                              (double)stride, &t[0]);
    } else { /* start = floor(o n / O), end = ceil((o + 1) n / O) */
        st = ct_tensor_arange(ctx, CT_INT64, 0, (double)(O * n), (double)n, &t[1]);
        CT__DO(st, ct_div_scalar_mode(ctx, t[1], (double)O, CT_ROUND_FLOOR, &t[0]));
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, (double)(n + O - 1), (double)(n + O - 1 + O * n),
                                    (double)n, &t[2]));
        CT__DO(st, ct_div_scalar_mode(ctx, t[2], (double)O, CT_ROUND_FLOOR, &t[3]));
    }
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 2, SH(O, 1), &t[4]));
    CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)(K * dil), (double)dil, &t[5]));
    CT__DO(st, ct_tensor_reshape(ctx, t[5], 2, SH(1, K), &t[6]));
    CT__DO(st, ct_add(ctx, t[4], t[6], &t[7])); /* raw positions (O, K) */
    CT__DO(st, ct_ge_scalar(ctx, t[7], 0, &t[8]));
    if (adaptive) {
        CT__DO(st, ct_tensor_reshape(ctx, t[3], 2, SH(O, 1), &t[9]));
        CT__DO(st, ct_lt(ctx, t[7], t[9], &t[10]));
    } else {
        CT__DO(st, ct_lt_scalar(ctx, t[7], (double)n, &t[10]));
    }
    CT__DO(st, ct_logical_and(ctx, t[8], t[10], &w->valid));
    const double lo = 0, hi = (double)(n - 1);
    CT__DO(st, ct_clamp(ctx, t[7], &lo, &hi, &w->pos));
    if (include_pad) { /* positions before size + pad (the window starts at or after -pad) */
        CT__DO(st, ct_lt_scalar(ctx, t[7], (double)(n + pad), &t[11]));
    } else if (st == CT_OK) {
        t[11] = ct_tensor_retain(w->valid);
    }
    const int one = 1;
    CT__DO(st, ct_sum(ctx, t[11], 1, &one, false, &w->count));
    if (!adaptive) { /* start + ceil(-start / dil) dil where start < 0 (torch's while loop) */
        ct_tensor *u[6] = {NULL};
        CT__DO(st, ct_neg(ctx, t[0], &u[0]));
        CT__DO(st, ct_add_scalar(ctx, u[0], (double)(dil - 1), &u[1]));
        CT__DO(st, ct_div_scalar_mode(ctx, u[1], (double)dil, CT_ROUND_FLOOR, &u[2]));
        CT__DO(st, ct_mul_scalar(ctx, u[2], (double)dil, &u[3]));
        CT__DO(st, ct_add(ctx, t[0], u[3], &u[4]));
        CT__DO(st, ct_lt_scalar(ctx, t[0], 0, &u[5]));
        CT__DO(st, ct_where(ctx, u[5], u[4], t[0], &w->first));
        ct__release_all(6, u);
    }
    ct__release_all(12, t);
    if (st != CT_OK) ct__wdim_free(w);
    return st;
}

/* x5 (N, C, D, H, W) -> windows (N, C, OD, OH, OW, K) (invalid positions = fill), the flat input
 * index of every window position (OD, OH, OW, K) and their validity (OD, OH, OW, K) */
static ct_status ct__windows(ct_ctx *ctx, const ct_tensor *x5, ct__wdim *w, double fill,
                             ct_tensor **win, ct_tensor **flat, ct_tensor **valid) {
    ct_tensor *t[20] = {NULL};
    const int64_t N = x5->shape[0], C = x5->shape[1], H = x5->shape[3], W = x5->shape[4];
    const int64_t K = w[0].K * w[1].K * w[2].K;
    ct_status st = ct_mul_scalar(ctx, w[0].pos, (double)(H * W), &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 6, SH(w[0].O, 1, 1, w[0].K, 1, 1), &t[1]));
    CT__DO(st, ct_mul_scalar(ctx, w[1].pos, (double)W, &t[2]));
    CT__DO(st, ct_tensor_reshape(ctx, t[2], 6, SH(1, w[1].O, 1, 1, w[1].K, 1), &t[3]));
    CT__DO(st, ct_tensor_reshape(ctx, w[2].pos, 6, SH(1, 1, w[2].O, 1, 1, w[2].K), &t[4]));
    CT__DO(st, ct_add(ctx, t[1], t[3], &t[5]));
    CT__DO(st, ct_add(ctx, t[5], t[4], &t[6]));
    CT__DO(st, ct_tensor_reshape(ctx, t[6], 4, SH(w[0].O, w[1].O, w[2].O, K), flat));
    CT__DO(st, ct_tensor_reshape(ctx, w[0].valid, 6, SH(w[0].O, 1, 1, w[0].K, 1, 1), &t[7]));
    CT__DO(st, ct_tensor_reshape(ctx, w[1].valid, 6, SH(1, w[1].O, 1, 1, w[1].K, 1), &t[8]));
    CT__DO(st, ct_tensor_reshape(ctx, w[2].valid, 6, SH(1, 1, w[2].O, 1, 1, w[2].K), &t[9]));
    CT__DO(st, ct_logical_and(ctx, t[7], t[8], &t[10]));
    CT__DO(st, ct_logical_and(ctx, t[10], t[9], &t[11]));
    CT__DO(st, ct_tensor_reshape(ctx, t[11], 4, SH(w[0].O, w[1].O, w[2].O, K), valid));
    CT__DO(st, ct_tensor_reshape(ctx, x5, 3, SH(N, C, x5->shape[2] * H * W), &t[12]));
    CT__DO(st, ct_tensor_reshape(ctx, *flat, 1, SH(w[0].O * w[1].O * w[2].O * K), &t[13]));
    CT__DO(st, ct_index_select(ctx, t[12], 2, t[13], &t[14]));
    CT__DO(st, ct_tensor_reshape(ctx, t[14], 6, SH(N, C, w[0].O, w[1].O, w[2].O, K), &t[15]));
    CT__DO(st, ct_logical_not(ctx, *valid, &t[16]));
    CT__DO(st, ct_masked_fill(ctx, t[15], t[16], fill, win));
    ct__release_all(20, t);
    return st;
}

/* torch's maximum of each window (the first, or the last NaN, in window order; all -inf: the
 * first valid position): its flat input index (N, C, OD, OH, OW) and the value gathered there */
static ct_status ct__max_select(ct_ctx *ctx, const ct_tensor *x5, const ct_tensor *win,
                                const ct_tensor *flat, const ct_tensor *valid, const ct__wdim *w,
                                ct_tensor **out, ct_tensor **indices) {
    ct_tensor *t[32] = {NULL};
    const int last = 5;
    const int64_t K = win->shape[5], N = x5->shape[0], C = x5->shape[1];
    const int64_t *o = win->shape + 2;
    ct_status st = ct_isnan(ctx, win, &t[0]);
    CT__DO(st, ct_any(ctx, t[0], 1, &last, true, &t[1]));
    CT__DO(st, ct_cast(ctx, t[0], CT_INT8, &t[2]));
    CT__DO(st, ct_flip(ctx, t[2], 1, &last, &t[3]));
    CT__DO(st, ct_argmax(ctx, t[3], last, true, &t[4]));
    CT__DO(st, ct_rsub_scalar(ctx, t[4], (double)(K - 1), 1, &t[5])); /* the last NaN */
    CT__DO(st, ct_amax(ctx, win, 1, &last, true, &t[6]));
    CT__DO(st, ct_eq(ctx, win, t[6], &t[7]));
    CT__DO(st, ct_logical_and(ctx, t[7], valid, &t[8]));
    CT__DO(st, ct_cast(ctx, t[8], CT_INT8, &t[9]));
    CT__DO(st, ct_argmax(ctx, t[9], last, true, &t[10])); /* the first valid maximum */
    CT__DO(st, ct_where(ctx, t[1], t[5], t[10], &t[11]));
    CT__DO(st, ct_tensor_expand(ctx, flat, 6, SH(N, C, o[0], o[1], o[2], K), &t[12]));
    CT__DO(st, ct_gather(ctx, t[12], last, t[11], &t[13]));
    const int64_t DHW = x5->shape[2] * x5->shape[3] * x5->shape[4];
    /* a window of padding only (dilation can make one): -inf at torch's start index, which may
     * lie outside the input, and no gradient */
    CT__DO(st, ct_any(ctx, valid, 1, (const int[]){3}, false, &t[17])); /* (OD, OH, OW) */
    if (w[0].first && w[1].first && w[2].first) {
        CT__DO(st, ct_mul_scalar(ctx, w[0].first, (double)(x5->shape[3] * x5->shape[4]), &t[18]));
        CT__DO(st, ct_tensor_reshape(ctx, t[18], 3, SH(o[0], 1, 1), &t[19]));
        CT__DO(st, ct_mul_scalar(ctx, w[1].first, (double)x5->shape[4], &t[20]));
        CT__DO(st, ct_tensor_reshape(ctx, t[20], 2, SH(o[1], 1), &t[21]));
        CT__DO(st, ct_add(ctx, t[19], t[21], &t[22]));
        CT__DO(st, ct_add(ctx, t[22], w[2].first, &t[23]));
        CT__DO(st, ct_tensor_reshape(ctx, t[13], 5, SH(N, C, o[0], o[1], o[2]), &t[24]));
        CT__DO(st, ct_where(ctx, t[17], t[24], t[23], &t[25])); /* torch's indices */
    } else if (st == CT_OK) {
        st = ct_tensor_reshape(ctx, t[13], 5, SH(N, C, o[0], o[1], o[2]), &t[25]);
    }
    const double zero = 0, top = (double)(DHW - 1);
    CT__DO(st, ct_clamp(ctx, t[25], &zero, &top, &t[26]));
    CT__DO(st, ct_tensor_reshape(ctx, t[26], 3, SH(N, C, o[0] * o[1] * o[2]), &t[14]));
    CT__DO(st, ct_tensor_reshape(ctx, x5, 3, SH(N, C, DHW), &t[15]));
    CT__DO(st, ct_gather(ctx, t[15], 2, t[14], &t[16]));
    CT__DO(st, ct_tensor_reshape(ctx, t[16], 5, SH(N, C, o[0], o[1], o[2]), &t[27]));
    CT__DO(st, ct_logical_not(ctx, t[17], &t[28]));
    CT__DO(st, ct_masked_fill(ctx, t[27], t[28], -INFINITY, out));
    if (indices && st == CT_OK) *indices = ct_tensor_retain(t[25]);
    ct__release_all(32, t);
    return st;
}

/* output size of a max / avg pool dim (torch's pooling_output_shape), -1: too small */
static int64_t ct__pool_out(int64_t n, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    const int64_t num = n + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    if (num < 0) return -1;
    int64_t o = num / s + 1;
    if (ceil && (o - 1) * s >= n + p) o--;
    return o;
}

enum { CT__POOL_MAX, CT__POOL_AVG, CT__POOL_AMAX, CT__POOL_AAVG };

typedef struct ct__pool3 {
    int kind;
    const int64_t *k, *s, *p, *d, *osize;
    bool ceil, include_pad;
    int64_t divisor;
} ct__pool3;

static ct_status ct__pool3d(ct_ctx *ctx, const char *op, const ct_tensor *x, const ct__pool3 *g,
                            ct_tensor **out, ct_tensor **indices) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (indices) *indices = NULL;
    const bool avg = g->kind == CT__POOL_AVG || g->kind == CT__POOL_AAVG,
               adaptive = g->kind == CT__POOL_AMAX || g->kind == CT__POOL_AAVG;
    if (!ct_dtype_is_floating(x->dtype) && !(g->kind == CT__POOL_AVG && x->dtype == CT_INT64))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating point input, got %s", op,
                             ct_dtype_name(x->dtype));
    if (adaptive && g->osize && (x->ndim == 4 || x->ndim == 5) &&
        (g->osize[0] == 0 || g->osize[1] == 0 || g->osize[2] == 0) && g->osize[0] >= 0 &&
        g->osize[1] >= 0 && g->osize[2] >= 0) { /* torch: an empty result */
        int64_t sh[5];
        for (int i = 0; i < x->ndim - 3; i++)
            sh[i] = x->shape[i];
        for (int i = 0; i < 3; i++)
            sh[x->ndim - 3 + i] = g->osize[i];
        st = ct_tensor_empty(ctx, x->dtype, x->ndim, sh, out);
        if (st == CT_OK && indices && (st = ct_tensor_empty(ctx, CT_INT64, x->ndim, sh, indices)))
            ct_tensor_release(*out), *out = NULL;
        return st;
    }
    bool unb = false;
    ct__wdim w[3] = {{0}};
    ct_tensor *t[16] = {NULL}, *win = NULL, *flat = NULL, *valid = NULL;
    if ((st = ct__as5d(ctx, op, x, &t[0], &unb)) != CT_OK) return st;
    const ct_tensor *x5 = t[0];
    if (x5->shape[1] == 0 || x5->shape[2] == 0 || x5->shape[3] == 0 || x5->shape[4] == 0) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: expected input's non-batch dimensions to have positive length, "
                           "got %s",
                           op, CT__SHAPE_STR(x));
        goto done;
    }
    int64_t s[3], d[3] = {1, 1, 1}, p[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        const int64_t n = x5->shape[2 + i];
        w[i].size = n;
        if (adaptive) {
            const int64_t O = g->osize ? g->osize[i] : -1;
            if (O < 0 || (O == 0 && n > 0) || O > INT32_MAX) {
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: output size %lld of dim %d is not valid for input %s", op,
                                   (long long)O, i, CT__SHAPE_STR(x));
                goto done;
            }
            w[i].O = O;
            int64_t kmax = 0; /* the widest bin: ceil((o + 1) n / O) - floor(o n / O) */
            for (int64_t o = 0; o < O; o++) {
                const int64_t a = o * n / O, b = ((o + 1) * n + O - 1) / O;
                if (b - a > kmax) kmax = b - a;
            }
            w[i].K = kmax ? kmax : 1;
            s[i] = 1;
        } else {
            if (!g->k) {
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: kernel is NULL", op);
                goto done;
            }
            if (g->s && g->s[i] == 0 && (g->s[0] | g->s[1] | g->s[2]) != 0) {
                st =
                    ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                  "%s: stride should not be zero (all three zero: the kernel)", op);
                goto done;
            }
            s[i] = g->s && g->s[i] ? g->s[i] : g->k[i];
            p[i] = g->p ? g->p[i] : 0;
            d[i] = g->d ? g->d[i] : 1;
        }
    }
    if (!adaptive) {
        if ((st = ct__geom3(ctx, op, g->k, s, p, d)) != CT_OK) goto done;
        for (int i = 0; i < 3; i++) {
            if (p[i] > g->k[i] / 2) {
                st =
                    ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                  "%s: pad should be at most half of kernel size, but got pad=%lld "
                                  "and kernel_size=%lld",
                                  op, (long long)p[i], (long long)g->k[i]);
                goto done;
            }
            if (avg && w[i].size < g->k[i]) {
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "%s: input image %s smaller than kernel size (%lld, %lld, "
                                   "%lld)",
                                   op, CT__SHAPE_STR(x), (long long)g->k[0], (long long)g->k[1],
                                   (long long)g->k[2]);
                goto done;
            }
            w[i].K = g->k[i];
            w[i].O = ct__pool_out(w[i].size, g->k[i], s[i], p[i], d[i], g->ceil);
            if (w[i].O < 1) {
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "%s: given input size %s, the calculated output size of dim %d "
                                   "is %lld: too small",
                                   op, CT__SHAPE_STR(x), i, (long long)w[i].O);
                goto done;
            }
        }
    }
    for (int i = 0; i < 3 && st == CT_OK; i++)
        st = ct__wdim_make(ctx, &w[i], adaptive, s[i], p[i], d[i], g->include_pad);
    if (st != CT_OK) goto done;
    st = ct__windows(ctx, x5, w, avg ? 0.0 : -INFINITY, &win, &flat, &valid);
    if (!avg) {
        CT__DO(st, ct__max_select(ctx, x5, win, flat, valid, w, &t[1], indices ? &t[2] : NULL));
    } else {
        const int last = 5;
        CT__DO(st, ct_sum(ctx, win, 1, &last, false, &t[3]));
        if (adaptive) { /* divided by the bin's depth, then height, then width, as torch */
            CT__DO(st, ct_tensor_reshape(ctx, w[0].count, 3, SH(w[0].O, 1, 1), &t[4]));
            CT__DO(st, ct_tensor_reshape(ctx, w[1].count, 2, SH(w[1].O, 1), &t[5]));
            CT__DO(st, ct_div(ctx, t[3], t[4], &t[6]));
            CT__DO(st, ct_div(ctx, t[6], t[5], &t[7]));
            CT__DO(st, ct_div(ctx, t[7], w[2].count, &t[1]));
        } else {
            if (g->divisor) {
                CT__DO(st, ct_tensor_full(ctx, CT_INT64, 0, NULL, (double)g->divisor, &t[8]));
            } else {
                CT__DO(st, ct_tensor_reshape(ctx, w[0].count, 3, SH(w[0].O, 1, 1), &t[4]));
                CT__DO(st, ct_tensor_reshape(ctx, w[1].count, 2, SH(w[1].O, 1), &t[5]));
                CT__DO(st, ct_mul(ctx, t[4], t[5], &t[9]));
                CT__DO(st, ct_mul(ctx, t[9], w[2].count, &t[8]));
            }
            CT__DO(st, ct_div_mode(ctx, t[3], t[8],
                                   x->dtype == CT_INT64 ? CT_ROUND_TRUNC : CT_ROUND_NONE, &t[1]));
        }
    }
    CT__DO(st, ct__from5d(ctx, t[1], unb, out));
    if (indices) CT__DO(st, ct__from5d(ctx, t[2], unb, indices));
    if (st != CT_OK) {
        ct_tensor_release(*out), *out = NULL;
        if (indices) ct_tensor_release(*indices), *indices = NULL;
    }
done:
    for (int i = 0; i < 3; i++)
        ct__wdim_free(&w[i]);
    ct_tensor_release(win), ct_tensor_release(flat), ct_tensor_release(valid);
    ct__release_all(16, t);
    return st;
}

/* a pool's public front: errors named by op, torch's node name on the result */
static ct_status ct__pool3d_front(ct_ctx *ctx, const char *op, const char *node, const ct_tensor *x,
                                  const ct__pool3 *g, ct_tensor **out, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, op, ct__pool3d(ctx, op, x, g, out, indices));
    return ct__ag_named(ctx, st, out, mark, node);
}
ct_status ct_max_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[3],
                        const int64_t stride[3], const int64_t padding[3],
                        const int64_t dilation[3], bool ceil_mode, ct_tensor **out,
                        ct_tensor **indices) {
    const ct__pool3 g = {.kind = CT__POOL_MAX,
                         .k = kernel,
                         .s = stride,
                         .p = padding,
                         .d = dilation,
                         .ceil = ceil_mode};
    return ct__pool3d_front(ctx, "max_pool3d", "MaxPool3DWithIndicesBackward0", x, &g, out,
                            indices);
}
ct_status ct_avg_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[3],
                        const int64_t stride[3], const int64_t padding[3], bool ceil_mode,
                        bool count_include_pad, int64_t divisor_override, ct_tensor **out) {
    const ct__pool3 g = {.kind = CT__POOL_AVG,
                         .k = kernel,
                         .s = stride,
                         .p = padding,
                         .ceil = ceil_mode,
                         .include_pad = count_include_pad,
                         .divisor = divisor_override};
    return ct__pool3d_front(ctx, "avg_pool3d", "AvgPool3DBackward0", x, &g, out, NULL);
}
ct_status ct_adaptive_avg_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t output_size[3],
                                 ct_tensor **out) {
    const ct__pool3 g = {.kind = CT__POOL_AAVG, .osize = output_size};
    return ct__pool3d_front(ctx, "adaptive_avg_pool3d", "AdaptiveAvgPool3DBackward0", x, &g, out,
                            NULL);
}
ct_status ct_adaptive_max_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t output_size[3],
                                 ct_tensor **out, ct_tensor **indices) {
    const ct__pool3 g = {.kind = CT__POOL_AMAX, .osize = output_size};
    return ct__pool3d_front(ctx, "adaptive_max_pool3d", "AdaptiveMaxPool3DBackward0", x, &g, out,
                            indices);
}

/* ---- fractional max pooling (ATen's FractionalMaxPool2d / 3d CPU kernels): per plane and dim
 * the window starts are generate_intervals(sample, in, out, k): alpha = (in - k) / (out - 1) and
 * start_i = (int)((i + sample) * alpha) - (int)(sample * alpha), the last in - k, computed in the
 * input dtype; each window's maximum is the first greatest value in (d, h, w) order, or the last
 * NaN; its flat index d * H * W + h * W + w. The indices are found on the host (refused under
 * capture), the values taken with gather so the gradient reaches the input at the indices, as
 * torch's backward. Samples (N, C, nd) index the dims as torch: 2-d [0] w, [1] h; 3-d [0] t,
 * [1] h, [2] w. ---- */
static void ct__frac_starts(double sample, bool f32, int64_t in, int64_t out, int64_t k,
                            int64_t *seq) {
    if (out > 1) {
        if (f32) {
            const float s = (float)sample, al = (float)(in - k) / (float)(out - 1);
            for (int64_t i = 0; i < out - 1; i++)
                seq[i] = (int64_t)(int)(((float)i + s) * al) - (int64_t)(int)(s * al);
        } else {
            const double al = (double)(in - k) / (double)(out - 1);
            for (int64_t i = 0; i < out - 1; i++)
                seq[i] = (int64_t)(int)(((double)i + sample) * al) - (int64_t)(int)(sample * al);
        }
    }
    if (out > 0) seq[out - 1] = in - k;
}

static ct_status ct__frac_pool(ct_ctx *ctx, const char *op, int nd, const ct_tensor *x,
                               const int64_t *ks, const int64_t *osz, const double *ratio,
                               const ct_tensor *samples, uint64_t seed, ct_tensor **out,
                               ct_tensor **indices) {
    const ct_tensor *ins[1] = {x};
    if (indices) *indices = NULL;
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (samples && (st = ct__check_tensor(ctx, op, "_random_samples", samples)) != CT_OK) return st;
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s",
                             op, ct_dtype_name(x->dtype));
    if (x->ndim != nd + 1 && x->ndim != nd + 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected a %d-d (unbatched) or %d-d (batched) input, got %s", op,
                             nd + 1, nd + 2, CT__SHAPE_STR(x));
    if (!ks) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: kernel_size is NULL", op);
    if (!osz && !ratio)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s requires specifying either an output_size or an output_ratio", op);
    if (ct__any_capture(ctx))
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: the windows' maxima are found on the host; not capturable", op);
    const bool unb = x->ndim == nd + 1, f32 = x->dtype == CT_FLOAT32;
    const int64_t N = unb ? 1 : x->shape[0], C = x->shape[x->ndim - nd - 1];
    int64_t in[3] = {1, 1, 1}, o[3] = {1, 1, 1}, pin = 1, pout = 1;
    for (int i = 0; i < nd; i++) {
        in[i] = x->shape[x->ndim - nd + i];
        o[i] = osz ? osz[i] : (int64_t)((double)in[i] * ratio[i]);
        if (ks[i] < 1 || ks[i] > INT32_MAX || in[i] > INT32_MAX)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: kernel_size must be in [1, 2^31 - 1], got %lld (dim %d)", op,
                                 (long long)ks[i], i);
        /* torch's bounds: 2-d output + pool - 1 <= input, 3-d < input */
        if (o[i] < 1 || o[i] + ks[i] - 1 > in[i] - (nd == 3))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: pool size %lld too large relative to input size %lld of dim "
                                 "%d for output size %lld (torch needs 1 <= output and output + "
                                 "pool - 1 %s input)",
                                 op, (long long)ks[i], (long long)in[i], i, (long long)o[i],
                                 nd == 3 ? "<" : "<=");
        pin *= in[i], pout *= o[i];
    }
    if (samples) {
        if (samples->ndim != 3 || samples->shape[0] != N || samples->shape[1] != C ||
            samples->shape[2] != nd)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: _random_samples must be (%lld, %lld, %d) (N, C, %d; N = 1 "
                                 "unbatched), got %s",
                                 op, (long long)N, (long long)C, nd, nd, CT__SHAPE_STR(samples));
        if (samples->dtype != CT_FLOAT32 && samples->dtype != CT_FLOAT64)
            return ct__set_error(ctx, CT_ERR_DTYPE, "%s: _random_samples must be floating, got %s",
                                 op, ct_dtype_name(samples->dtype));
    }
    const int64_t NC = N * C, np = NC * pin, no = NC * pout;
    double *xv = malloc(sizeof(double) * (size_t)(np ? np : 1)),
           *sv = malloc(sizeof(double) * (size_t)(NC > 0 ? NC * nd : 1));
    int64_t *iv = malloc(sizeof(int64_t) * (size_t)(no ? no : 1)),
            *seq = malloc(sizeof(int64_t) * (size_t)(o[0] + o[1] + (nd == 3 ? o[2] : 0)));
    ct_tensor *t[8] = {NULL};
    if (!xv || !sv || !iv || !seq) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    if (!samples) { /* drawn from the generator: uniform [0, 1) in the input dtype */
        CT__DO(st, ct_tensor_rand(ctx, x->dtype, 3, SH(N, C, nd), seed, 0, &t[7]));
        samples = t[7];
    }
    CT__DO(st, ct_cast(ctx, samples, CT_FLOAT64, &t[0]));
    CT__DO(st, ct_tensor_to_host(t[0], sv, sizeof(double) * (size_t)(NC * nd)));
    CT__DO(st, ct_cast(ctx, x, CT_FLOAT64, &t[1]));
    CT__DO(st, ct_tensor_to_host(t[1], xv, sizeof(double) * (size_t)np));
    for (int64_t pl = 0; st == CT_OK && pl < NC; pl++) {
        /* starts per dim in spatial order (t,) h, w; torch's sample order differs for 2-d */
        int64_t *sq[3] = {seq, seq + o[0], nd == 3 ? seq + o[0] + o[1] : NULL};
        for (int i = 0; i < nd; i++) {
            const int si = nd == 2 ? 1 - i : i;
            ct__frac_starts(sv[pl * nd + si], f32, in[i], o[i], ks[i], sq[i]);
        }
        const double *xp = xv + pl * pin;
        int64_t *ip = iv + pl * pout;
        const int64_t O0 = nd == 3 ? o[0] : 1, O1 = o[nd - 2], O2 = o[nd - 1];
        const int64_t K0 = nd == 3 ? ks[0] : 1, K1 = ks[nd - 2], K2 = ks[nd - 1];
        const int64_t I1 = in[nd - 2], I2 = in[nd - 1];
        for (int64_t a0 = 0; a0 < O0; a0++)
            for (int64_t a1 = 0; a1 < O1; a1++)
                for (int64_t a2 = 0; a2 < O2; a2++) {
                    const int64_t s0 = nd == 3 ? sq[0][a0] : 0, s1 = sq[nd - 2][a1],
                                  s2 = sq[nd - 1][a2];
                    double best = -INFINITY;
                    int64_t bi = (s0 * I1 + s1) * I2 + s2;
                    for (int64_t b0 = s0; b0 < s0 + K0; b0++)
                        for (int64_t b1 = s1; b1 < s1 + K1; b1++)
                            for (int64_t b2 = s2; b2 < s2 + K2; b2++) {
                                const int64_t at = (b0 * I1 + b1) * I2 + b2;
                                if (xp[at] > best || isnan(xp[at])) best = xp[at], bi = at;
                            }
                    ip[(a0 * O1 + a1) * O2 + a2] = bi;
                }
    }
    /* out = gather(x (N, C, prod(in)), 2, idx (N, C, prod(out))) */
    int64_t os[5] = {N, C, o[0], o[1], o[2]};
    ct_tensor *x3 = NULL;
    CT__DO(st, ct_tensor_from_host(ctx, iv, CT_INT64, 3, SH(N, C, pout), &t[2]));
    CT__DO(st, ct_tensor_reshape(ctx, x, 3, SH(N, C, pin), &x3));
    CT__DO(st, ct_gather(ctx, x3, 2, t[2], &t[3]));
    ct_tensor_release(x3);
    const int ond = unb ? nd + 1 : nd + 2;
    const int64_t *oshape = unb ? os + 1 : os;
    CT__DO(st, ct_tensor_reshape(ctx, t[3], ond, oshape, out));
    if (indices) CT__DO(st, ct_tensor_reshape(ctx, t[2], ond, oshape, indices));
    if (st != CT_OK) {
        ct_tensor_release(*out), *out = NULL;
        if (indices) ct_tensor_release(*indices), *indices = NULL;
    }
    ct__release_all(8, t);
    free(xv), free(sv), free(iv), free(seq);
    return st;
}
ct_status ct_fractional_max_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel_size[2],
                                   const int64_t output_size[2], const double output_ratio[2],
                                   const ct_tensor *random_samples, uint64_t seed, ct_tensor **out,
                                   ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "fractional_max_pool2d",
                         ct__frac_pool(ctx, "fractional_max_pool2d", 2, x, kernel_size, output_size,
                                       output_ratio, random_samples, seed, out, indices));
    return ct__ag_named(ctx, st, out, mark, "FractionalMaxPool2DBackward0");
}
ct_status ct_fractional_max_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel_size[3],
                                   const int64_t output_size[3], const double output_ratio[3],
                                   const ct_tensor *random_samples, uint64_t seed, ct_tensor **out,
                                   ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "fractional_max_pool3d",
                         ct__frac_pool(ctx, "fractional_max_pool3d", 3, x, kernel_size, output_size,
                                       output_ratio, random_samples, seed, out, indices));
    return ct__ag_named(ctx, st, out, mark, "FractionalMaxPool3DBackward0");
}

/* torch.fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine (quantization-aware
 * training): the value quantized and dequantized with torch's arithmetic, the gradient passed
 * straight through where the quantized value was not clamped (torch's cachemask backward). */
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ct_status ct__fq_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                 ct_tensor **gin) {
    return need[0] ? ct_mul(ctx, gout[0], (const ct_tensor *)user, &gin[0]) : CT_OK;
}
static void ct__fq_free(void *user) { ct_tensor_release(user); }
static const ct__ag_custom CT__FQ_TENSOR_FN = {"FakeQuantizePerTensorAffineCachemaskBackward",
                                               ct__fq_backward, ct__fq_free, false};
static const ct__ag_custom CT__FQ_CHANNEL_FN = {"FakeQuantizePerChannelAffineCachemaskBackward",
                                                ct__fq_backward, ct__fq_free, false};

/* x * inv_scale (inv_scale = 1 / scale in float32, as torch), in x's dtype (float32 for halves);
 * q = round(.) + zp (int zp) or round(. + zp) (float zp), rounding half to even; mask = qmin <= q
 * <= qmax; y = (clamp(q) - zp) * scale in float64, rounded into x's dtype (torch's arithmetic).
 * scale and zp are 0-d (per tensor) or shaped to broadcast along the channel axis. */
static ct_status ct__fq_body(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *scale,
                             const ct_tensor *zp, bool float_zp, int64_t qmin, int64_t qmax,
                             ct_tensor **out, ct_tensor **mask) {
    const ct_dtype cdt = x->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    ct_tensor *t[12] = {NULL};
    ct_status st = ct_cast(ctx, x, cdt, &t[0]);
    CT__DO(st, ct_reciprocal(ctx, scale, &t[1])); /* float32 1 / scale */
    CT__DO(st, ct_cast(ctx, t[1], cdt, &t[2]));
    CT__DO(st, ct_mul(ctx, t[0], t[2], &t[3]));
    if (float_zp) {
        CT__DO(st, ct_add(ctx, t[3], zp, &t[4]));
        CT__DO(st, ct_round(ctx, t[4], &t[5]));
    } else {
        CT__DO(st, ct_round(ctx, t[3], &t[4]));
        CT__DO(st, ct_add(ctx, t[4], zp, &t[5]));
    }
    ct_tensor *ge = NULL, *le = NULL;
    CT__DO(st, ct_ge_scalar(ctx, t[5], (double)qmin, &ge));
    CT__DO(st, ct_le_scalar(ctx, t[5], (double)qmax, &le));
    CT__DO(st, ct_logical_and(ctx, ge, le, mask));
    ct_tensor_release(ge), ct_tensor_release(le);
    /* (fmin(fmax(q, qmin), qmax) - zp) * scale: torch's fmin / fmax make it double arithmetic,
     * rounded once into x's dtype */
    const double lo = (double)qmin, hi = (double)qmax;
    CT__DO(st, ct_cast(ctx, t[5], CT_FLOAT64, &t[6]));
    CT__DO(st, ct_clamp(ctx, t[6], &lo, &hi, &t[7]));
    CT__DO(st, ct_sub(ctx, t[7], zp, &t[8]));
    CT__DO(st, ct_mul(ctx, t[8], scale, &t[9])); /* float64 (scale float32 -> promoted) */
    CT__DO(st, ct_cast(ctx, t[9], x->dtype, out));
    for (int i = 0; i < 12; i++)
        ct_tensor_release(t[i]);
    return st;
}

static ct_status ct__fq_run(ct_ctx *ctx, const char *op, const ct__ag_custom *fn,
                            const ct_tensor *x, const ct_tensor *scale, const ct_tensor *zp,
                            bool float_zp, int64_t qmin, int64_t qmax, ct_tensor **out) {
    const bool rec = ct__ag_wants(ctx, 1, &x);
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *mask = NULL;
    ct_status st = ct__fq_body(ctx, x, scale, zp, float_zp, qmin, qmax, out, &mask);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK && rec) {
        st = ct__ag_record_custom(ctx, fn, mask, x, out); /* takes mask */
        mask = NULL;
    }
    ct_tensor_release(mask);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return ct__error_within(ctx, op, st);
}

static ct_status ct__fq_check_x(ct_ctx *ctx, const char *op, const ct_tensor *x, int64_t qmin,
                                int64_t qmax) {
    if (!ct_dtype_is_floating(x->dtype) || !ct__is_compute_dtype(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(x->dtype));
    if (qmin > qmax)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: `quant_min` (%lld) should be less than or equal to `quant_max` "
                             "(%lld)",
                             op, (long long)qmin, (long long)qmax);
    return CT_OK;
}

ct_status ct_fake_quantize_per_tensor_affine(ct_ctx *ctx, const ct_tensor *x, double scale,
                                             int64_t zero_point, int64_t quant_min,
                                             int64_t quant_max, ct_tensor **out) {
    const char *op = "fake_quantize_per_tensor_affine";
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__fq_check_x(ctx, op, x, quant_min, quant_max)) != CT_OK) return st;
    if (zero_point < quant_min || zero_point > quant_max)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: `zero_point` (%lld) must be between `quant_min` and `quant_max`",
                             op, (long long)zero_point);
    if (!isfinite(scale) || scale == 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: scale must be finite and nonzero, got %g", op, scale);
    ct_tensor *s = NULL, *z = NULL;
    st = ct_tensor_full(ctx, CT_FLOAT32, 0, NULL, scale, &s);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, (double)zero_point, &z);
    if (st == CT_OK)
        st = ct__fq_run(ctx, op, &CT__FQ_TENSOR_FN, x, s, z, false, quant_min, quant_max, out);
    ct_tensor_release(s), ct_tensor_release(z);
    return st;
}

ct_status ct_fake_quantize_per_channel_affine(ct_ctx *ctx, const ct_tensor *x,
                                              const ct_tensor *scale, const ct_tensor *zero_point,
                                              int axis, int64_t quant_min, int64_t quant_max,
                                              ct_tensor **out) {
    const char *op = "fake_quantize_per_channel_affine";
    const ct_tensor *ins[3] = {x, scale, zero_point};
    ct_status st = ct__check_args(ctx, op, 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__fq_check_x(ctx, op, x, quant_min, quant_max)) != CT_OK) return st;
    if (axis < 0 || axis >= x->ndim) /* torch takes no negative axis here */
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: `axis` (%d) must be between 0 and number of dimensions of input "
                             "%s",
                             op, axis, CT__SHAPE_STR(x));
    const int d = axis;
    if (scale->dtype != CT_FLOAT32)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: scale must be float32, got %s", op,
                             ct_dtype_name(scale->dtype));
    const bool fz = zero_point->dtype == CT_FLOAT32 || zero_point->dtype == CT_FLOAT16;
    if (!fz && zero_point->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Zero-point must be Int32, Float or Half, found %s", op,
                             ct_dtype_name(zero_point->dtype));
    if (scale->ndim != 1 || zero_point->ndim != 1 || scale->shape[0] != x->shape[d] ||
        zero_point->shape[0] != x->shape[d])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: dimensions of scale %s and zero-point %s are not consistent with "
                             "input %s along axis %d",
                             op, CT__SHAPE_STR(scale), CT__SHAPE_STR(zero_point), CT__SHAPE_STR(x),
                             d);
    /* an int zero point within [quant_min, quant_max] (torch checks it on the host; a capture
     * cannot read it, so a captured call trusts it) */
    ct_tensor *zd = NULL, *s = NULL, *z = NULL;
    double zmin = 0, zmax = 0;
    st = ct_cast(ctx, zero_point, CT_FLOAT64, &zd);
    const bool check = !fz && x->shape[d] > 0 && !ct__any_capture(ctx);
    if (st == CT_OK && check) st = ct__host_range(ctx, zd, &zmin, &zmax);
    if (st == CT_OK && check && (zmin < (double)quant_min || zmax > (double)quant_max))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "%s: `zero_point` must be between `quant_min` and `quant_max`", op);
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        sh[i] = i == d ? x->shape[d] : 1;
    if (st == CT_OK) st = ct_tensor_reshape(ctx, scale, x->ndim, sh, &s);
    ct_tensor *zc = NULL;
    if (st == CT_OK)
        st = fz ? ct_cast(ctx, zero_point, CT_FLOAT32, &zc) : (zc = ct_tensor_retain(zd), CT_OK);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, zc, x->ndim, sh, &z);
    if (st == CT_OK)
        st = ct__fq_run(ctx, op, &CT__FQ_CHANNEL_FN, x, s, z, fz, quant_min, quant_max, out);
    ct_tensor_release(zd), ct_tensor_release(zc), ct_tensor_release(s), ct_tensor_release(z);
    return st;
}

/* ---- learnable scale and zero point (LSQ) ---- */

typedef struct {
    ct_tensor *x, *scale, *zb; /* zb: the backward's zero point, shaped like scale */
    int64_t ver_x, ver_s;      /* x's and scale's versions (torch saves them: in-place check) */
    int snd;                   /* the scale argument's shape, for its gradient */
    int64_t sshape[CT_MAX_DIMS];
    int64_t qmin, qmax;
    double gf;
    int axis; /* -1: per tensor */
} ct__lfq;

static void ct__lfq_free(void *user) {
    ct__lfq *u = user;
    if (!u) return;
    ct_tensor_release(u->x), ct_tensor_release(u->scale), ct_tensor_release(u->zb);
    free(u);
}

/* torch's fake_quant_grad_learnable kernels in float32: xq = round(x / s + z), in = qmin <= xq
 * <= qmax; dx = g in; dscale = g (xfq - x) / s gf inside, g (qmin or qmax - z) gf outside; dzero =
 * -g s gf outside, 0 inside; dscale and dzero summed (per channel). */
static ct_status ct__lfq_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    ct__lfq *u = user;
    const ct_tensor *g = gout[0];
    ct_tensor *t[24] = {NULL};
    const char *node = u->axis < 0 ? "FakeQuantizeLearnablePerTensorAffineBackward0"
                                   : "FakeQuantizeLearnablePerChannelAffineBackward0";
    ct_status st = ct__ag_saved_ok(ctx, u->x, "input", 0, node, u->ver_x);
    if (st == CT_OK) st = ct__ag_saved_ok(ctx, u->scale, "input", 1, node, u->ver_s);
    CT__DO(st, ct_reciprocal(ctx, u->scale, &t[0])); /* float32 1 / scale */
    CT__DO(st, ct_mul(ctx, u->x, t[0], &t[1]));
    CT__DO(st, ct_add(ctx, t[1], u->zb, &t[2]));
    CT__DO(st, ct_round(ctx, t[2], &t[3])); /* xq = round(x / s + z): torch's CPU kernel adds the
                                               zero point before rounding (ties differ from the
                                               forward's round(x / s) + z) */
    CT__DO(st, ct_ge_scalar(ctx, t[3], (double)u->qmin, &t[4]));
    CT__DO(st, ct_le_scalar(ctx, t[3], (double)u->qmax, &t[5]));
    CT__DO(st, ct_logical_and(ctx, t[4], t[5], &t[6])); /* inside */
    if (st == CT_OK && need[0]) st = ct_mul(ctx, g, t[6], &gin[0]);
    const double lo = (double)u->qmin, hi = (double)u->qmax;
    int dims[CT_MAX_DIMS], nd = 0;
    for (int d = 0; d < u->x->ndim; d++)
        if (d != u->axis) dims[nd++] = d;
    const bool all = u->axis < 0;
    if (st == CT_OK && need[1]) {
        /* inside: ((g (xfq - x)) / s) gf, xfq = (clamp(xq) - z) s */
        CT__DO(st, ct_clamp(ctx, t[3], &lo, &hi, &t[7]));
        CT__DO(st, ct_sub(ctx, t[7], u->zb, &t[8]));
        CT__DO(st, ct_mul(ctx, t[8], u->scale, &t[9]));
        CT__DO(st, ct_sub(ctx, t[9], u->x, &t[10]));
        CT__DO(st, ct_mul(ctx, g, t[10], &t[11]));
        CT__DO(st, ct_mul(ctx, t[11], t[0], &t[12]));
        CT__DO(st, ct_mul_scalar(ctx, t[12], u->gf, &t[13]));
        /* outside: g (qmin - z or qmax - z) gf */
        CT__DO(st, ct_lt_scalar(ctx, t[3], lo, &t[14]));
        CT__DO(st, ct_rsub_scalar(ctx, u->zb, lo, 1.0, &t[15]));
        CT__DO(st, ct_rsub_scalar(ctx, u->zb, hi, 1.0, &t[16]));
        CT__DO(st, ct_where(ctx, t[14], t[15], t[16], &t[17]));
        CT__DO(st, ct_mul(ctx, g, t[17], &t[18]));
        CT__DO(st, ct_mul_scalar(ctx, t[18], u->gf, &t[19]));
        CT__DO(st, ct_where(ctx, t[6], t[13], t[19], &t[20]));
        CT__DO(st, all ? ct_sum(ctx, t[20], 0, NULL, false, &t[21])
                       : ct_sum(ctx, t[20], nd, dims, false, &t[21]));
        CT__DO(st, ct_tensor_reshape(ctx, t[21], u->snd, u->sshape, &gin[1]));
        for (int i = 7; i < 24; i++) {
            ct_tensor_release(t[i]);
            t[i] = NULL;
        }
    }
    if (st == CT_OK && need[2]) {
        ct_tensor *z = NULL;
        CT__DO(st, ct_mul_scalar(ctx, g, -1.0, &t[7]));
        CT__DO(st, ct_mul(ctx, t[7], u->scale, &t[8]));
        CT__DO(st, ct_mul_scalar(ctx, t[8], u->gf, &t[9]));
        CT__DO(st, ct_zeros_like(ctx, t[9], &z));
        CT__DO(st, ct_where(ctx, t[6], z, t[9], &t[10]));
        CT__DO(st, all ? ct_sum(ctx, t[10], 0, NULL, false, &t[11])
                       : ct_sum(ctx, t[10], nd, dims, false, &t[11]));
        CT__DO(st, ct_tensor_reshape(ctx, t[11], u->snd, u->sshape, &gin[2]));
        ct_tensor_release(z);
    }
    for (int i = 0; i < 24; i++)
        ct_tensor_release(t[i]);
    return st;
}
static const ct__ag_custom CT__LFQ_TENSOR_FN = {"FakeQuantizeLearnablePerTensorAffineBackward",
                                                ct__lfq_backward, ct__lfq_free, true};
static const ct__ag_custom CT__LFQ_CHANNEL_FN = {"FakeQuantizeLearnablePerChannelAffineBackward",
                                                 ct__lfq_backward, ct__lfq_free, true};

static ct_status ct__lfq_run(ct_ctx *ctx, const char *op, const ct_tensor *x,
                             const ct_tensor *scale, const ct_tensor *zero_point, int axis,
                             int64_t qmin, int64_t qmax, double gf, ct_tensor **out) {
    const ct_tensor *ins[3] = {x, scale, zero_point};
    ct_status st = ct__check_args(ctx, op, 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->dtype != CT_FLOAT32 || scale->dtype != CT_FLOAT32 || zero_point->dtype != CT_FLOAT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: x, scale and zero_point must be float32 (torch's backward "
                             "kernel), got %s, %s, %s",
                             op, ct_dtype_name(x->dtype), ct_dtype_name(scale->dtype),
                             ct_dtype_name(zero_point->dtype));
    if (!(qmin <= 0 && qmax >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Expecting `quant_min` <= 0 and `quant_max` >= 0, got %lld, %lld",
                             op, (long long)qmin, (long long)qmax);
    const int64_t C = axis < 0 ? 1 : (axis < x->ndim ? x->shape[axis] : -1);
    if (axis >= x->ndim)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: `axis` (%d) must be between 0 and number of dimensions of input "
                             "%s",
                             op, axis, CT__SHAPE_STR(x));
    if (ct_tensor_numel(scale) != C || ct_tensor_numel(zero_point) != C ||
        (axis >= 0 && (scale->ndim != 1 || zero_point->ndim != 1)))
        return ct__set_error(
            ctx, CT_ERR_SHAPE, "%s: scale %s and zero_point %s must have %lld element%s%s", op,
            CT__SHAPE_STR(scale),
            ct__shape_str((char[96]){0}, 96, zero_point->ndim, zero_point->shape), (long long)C,
            C == 1 ? "" : "s", axis >= 0 ? " (1-d, the axis' size)" : "");
    /* scale and zero points shaped to broadcast (per tensor: 0-d) */
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        sh[i] = i == axis ? C : 1;
    const int bnd = axis < 0 ? 0 : x->ndim;
    ct_tensor *s = NULL, *zr = NULL, *zf = NULL, *zfc = NULL, *zbr = NULL, *zb = NULL, *zb0 = NULL,
              *zd = NULL;
    const double lo = (double)qmin, hi = (double)qmax;
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct_tensor_reshape(ctx, scale, bnd, sh, &s);
    /* forward zero point: round half to even, clamp */
    CT__DO(st, ct_round(ctx, zero_point, &zr));
    CT__DO(st, ct_clamp(ctx, zr, &lo, &hi, &zf));
    CT__DO(st, ct_tensor_reshape(ctx, zf, bnd, sh, &zfc));
    CT__DO(st, ct_cast(ctx, zfc, CT_FLOAT64, &zd));
    /* backward zero point: per tensor trunc(z + 0.5) clamped (torch's), per channel as forward */
    if (axis < 0) {
        CT__DO(st, ct_add_scalar(ctx, zero_point, 0.5, &zbr));
        CT__DO(st, ct_clamp(ctx, zbr, &lo, &hi, &zb0));
        ct_tensor *tr = NULL;
        CT__DO(st, ct_trunc(ctx, zb0, &tr));
        CT__DO(st, ct_tensor_reshape(ctx, tr, bnd, sh, &zb));
        ct_tensor_release(tr);
    } else if (st == CT_OK) {
        zb = ct_tensor_retain(zfc);
    }
    ct_tensor *mask = NULL;
    if (st == CT_OK) st = ct__fq_body(ctx, x, s, zd, false, qmin, qmax, out, &mask);
    ct_tensor_release(mask);
    ct_set_grad_enabled(ctx, was);
    const bool rec = st == CT_OK && ct__ag_wants(ctx, 3, ins);
    if (rec) {
        ct__lfq *u = calloc(1, sizeof *u);
        if (!u) {
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        } else {
            /* a detached alias: no cycle through x's history; the version catches a write */
            st = ct_tensor_detach(ctx, x, &u->x);
            u->ver_x = x->storage->version, u->ver_s = scale->storage->version;
            u->scale = ct_tensor_retain(s);
            u->zb = ct_tensor_retain(zb);
            u->qmin = qmin, u->qmax = qmax, u->gf = gf, u->axis = axis;
            u->snd = scale->ndim; /* zero_point has as many elements: its gradient takes it too */
            memcpy(u->sshape, scale->shape, sizeof(int64_t) * (size_t)scale->ndim);
            if (st != CT_OK) {
                ct__lfq_free(u);
            } else
                st = ct__ag_record_custom_n(
                    ctx, axis < 0 ? &CT__LFQ_TENSOR_FN : &CT__LFQ_CHANNEL_FN, u, 3, ins, out);
        }
    }
    ct_tensor_release(s), ct_tensor_release(zr), ct_tensor_release(zf), ct_tensor_release(zfc);
    ct_tensor_release(zbr), ct_tensor_release(zb), ct_tensor_release(zb0), ct_tensor_release(zd);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return ct__error_within(ctx, op, st);
}

ct_status ct_fake_quantize_learnable_per_tensor_affine(ct_ctx *ctx, const ct_tensor *x,
                                                       const ct_tensor *scale,
                                                       const ct_tensor *zero_point,
                                                       int64_t quant_min, int64_t quant_max,
                                                       double grad_factor, ct_tensor **out) {
    return ct__lfq_run(ctx, "fake_quantize_learnable_per_tensor_affine", x, scale, zero_point, -1,
                       quant_min, quant_max, grad_factor, out);
}

ct_status ct_fake_quantize_learnable_per_channel_affine(ct_ctx *ctx, const ct_tensor *x,
                                                        const ct_tensor *scale,
                                                        const ct_tensor *zero_point, int axis,
                                                        int64_t quant_min, int64_t quant_max,
                                                        double grad_factor, ct_tensor **out) {
    if (axis < 0) {
        if (ctx && out) *out = NULL;
        return ctx ? ct__set_error(ctx, CT_ERR_INDEX,
                                   "fake_quantize_learnable_per_channel_affine: `axis` (%d) must "
                                   "be between 0 and number of dimensions of input",
                                   axis)
                   : CT_ERR_INVALID_ARG;
    }
    return ct__lfq_run(ctx, "fake_quantize_learnable_per_channel_affine", x, scale, zero_point,
                       axis, quant_min, quant_max, grad_factor, out);
}

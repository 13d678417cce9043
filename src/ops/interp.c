/* F.interpolate for (N, C, H, W) and (N, C, L) inputs to a given output size: nearest (torch's
 * legacy 'nearest'), nearest-exact and (bi)linear with align_corners either way. Built from
 * index_select and elementwise ops (so it is captured and differentiable): nearest picks one
 * source index per output position and dim; linear blends two as torch's CPU kernel, one dim at a
 * time from the last (W inside H): x0 (1 - l) + x1 l (f64: fma(x0, 1 - l, x1 l)), the source index
 * fma(scale, j + 1/2, -1/2) (torch's build contracts it), the weights in the input's opmath type
 * (double for f64, float otherwise). On scripts/torchdiff/torchdiff_more.py f64 matches torch but
 * for a few cases; f32 / bf16 still differ by a few ulp on some elements (docs/fidelity.md). */
#include "ctorch/ops.h"
#include "ops/dispatch.h"

#include <math.h>

#define CT__DO(st, call)                                                                           \
    do {                                                                                           \
        if ((st) == CT_OK) (st) = (call);                                                          \
    } while (0)

/* Resample dim d of x from n to m positions; source = f(destination * scale) (scale = n / m, or
 * 1 / scale_factor as torch uses when a scale factor is given and not recomputed). */
static ct_status ct__interp_dim(ct_ctx *ctx, const ct_tensor *x, int d, int64_t m, double scale,
                                ct_interp_mode mode, bool align, ct_tensor **out) {
    int64_t n = x->shape[d];
    int64_t *i0 = ct__alloc(ctx, sizeof(int64_t) * (size_t)m * 2, 16);
    double *w = ct__alloc(ctx, sizeof(double) * (size_t)m, 16);
    if (!i0 || !w) {
        ct__free(ctx, i0), ct__free(ctx, w);
        return ct__set_error(ctx, CT_ERR_OOM, "interpolate: out of memory");
    }
    int64_t *i1 = i0 + m;
    bool blend = false;
    for (int64_t j = 0; j < m; j++) {
        if (mode == CT_INTERP_NEAREST || mode == CT_INTERP_NEAREST_EXACT) {
            double src = mode == CT_INTERP_NEAREST ? floor((double)j * scale)
                                                   : floor(((double)j + 0.5) * scale);
            int64_t s = (int64_t)src;
            i0[j] = i1[j] = s < n - 1 ? s : n - 1;
            w[j] = 0;
            continue;
        }
        /* torch's source index and weight in the input's opmath type (double for f64, else
         * float): src = scale (j + 1/2) - 1/2 clamped at 0, lambda = src - floor(src) */
        double src, lam;
        int64_t s;
        if (x->dtype == CT_FLOAT64) {
            src = align ? (m > 1 ? (double)(n - 1) / (double)(m - 1) * (double)j : 0)
                        : fma(scale, (double)j + 0.5, -0.5); /* torch's build contracts */
            if (src < 0) src = 0; /* torch clamps the source index of linear modes at 0 */
            s = (int64_t)src;
            if (s > n - 1) s = n - 1;
            lam = src - (double)s;
        } else {
            const float sc = align ? (m > 1 ? (float)(n - 1) / (float)(m - 1) : 0) : (float)scale;
            float fs = align ? sc * (float)j : fmaf(sc, (float)j + 0.5f, -0.5f);
            if (fs < 0) fs = 0;
            s = (int64_t)fs;
            if (s > n - 1) s = n - 1;
            lam = (double)(fs - (float)s);
        }
        i0[j] = s;
        i1[j] = s + 1 < n ? s + 1 : n - 1;
        w[j] = n == m && !align ? 0 : lam; /* torch copies when the sizes are equal */
        blend = blend || w[j] != 0;
    }
    ct_tensor *t0 = NULL, *t1 = NULL, *a = NULL, *b = NULL, *wt = NULL, *wd = NULL, *dlt = NULL,
              *p = NULL;
    ct_status st = ct_tensor_from_host(ctx, i0, CT_INT64, 1, &m, &t0);
    CT__DO(st, ct_index_select(ctx, x, d, t0, &a));
    if (st == CT_OK && blend) { /* a w0 + b w1 in torch's order, w along dim d */
        int64_t ws[CT_MAX_DIMS];
        for (int k = 0; k < x->ndim; k++)
            ws[k] = k == d ? m : 1;
        double *w0 = ct__alloc(ctx, sizeof(double) * (size_t)m, 16);
        if (!w0) st = ct__set_error(ctx, CT_ERR_OOM, "interpolate: out of memory");
        for (int64_t j = 0; st == CT_OK && j < m; j++) /* 1 - lambda in the opmath type */
            w0[j] = x->dtype == CT_FLOAT64 ? 1.0 - w[j] : (double)(1.0f - (float)w[j]);
        CT__DO(st, ct_tensor_from_host(ctx, i1, CT_INT64, 1, &m, &t1));
        CT__DO(st, ct_index_select(ctx, x, d, t1, &b));
        CT__DO(st, ct_tensor_from_host(ctx, w, CT_FLOAT64, x->ndim, ws, &wd));
        CT__DO(st, ct_cast(ctx, wd, x->dtype, &wt));
        ct_tensor_release(wd), wd = NULL;
        CT__DO(st, ct_tensor_from_host(ctx, w0, CT_FLOAT64, x->ndim, ws, &wd));
        ct__free(ctx, w0);
        CT__DO(st, ct_cast(ctx, wd, x->dtype, &dlt));
        /* f64: fma(x0, w0, x1 w1), as torch's build evaluates it (bit for bit); the others
         * x0 w0 + x1 w1 rounded apart (nearer torch's float path on the harness) */
        CT__DO(st, ct_mul(ctx, b, wt, &p));
        if (x->dtype == CT_FLOAT64) {
            CT__DO(st, ct_addcmul(ctx, p, a, dlt, 1.0, out));
        } else {
            ct_tensor *q = NULL;
            CT__DO(st, ct_mul(ctx, a, dlt, &q));
            CT__DO(st, ct_add(ctx, q, p, out));
            ct_tensor_release(q);
        }
    } else if (st == CT_OK) {
        *out = ct_tensor_retain(a);
    }
    ct__free(ctx, i0), ct__free(ctx, w);
    ct_tensor_release(t0), ct_tensor_release(t1), ct_tensor_release(a), ct_tensor_release(b);
    ct_tensor_release(wt), ct_tensor_release(wd), ct_tensor_release(dlt), ct_tensor_release(p);
    return st;
}

/* The common checks and the per-dim passes; scales[i] <= 0 means in / out. */
static ct_status ct__interpolate(ct_ctx *ctx, const char *op, const ct_tensor *x, int n_size,
                                 const int64_t *size, const double *scales, ct_interp_mode mode,
                                 bool align_corners, ct_tensor **out) {
    if ((int)mode < 0 || mode > CT_INTERP_LINEAR)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: unknown mode %d", op, (int)mode);
    if (align_corners && mode != CT_INTERP_LINEAR)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: align_corners only applies to the linear modes", op);
    if (mode == CT_INTERP_LINEAR && !ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: linear modes need floating input, got %s", op,
                             ct_dtype_name(x->dtype));
    if (x->storage->device.type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "%s: only CPU tensors so far", op);
    for (int i = 0; i < n_size; i++)
        if (size[i] < 1 || x->shape[2 + i] < 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: output size %lld from input size %lld at dim %d", op,
                                 (long long)size[i], (long long)x->shape[2 + i], 2 + i);
    ct_tensor *y = ct_tensor_retain((ct_tensor *)x);
    ct_status st = CT_OK;
    for (int k = 0; k < n_size && st == CT_OK; k++) {
        const int i = n_size - 1 - k; /* the last dim first (torch's nesting: W inside H) */
        ct_tensor *z = NULL;
        double sc =
            scales && scales[i] > 0 ? 1.0 / scales[i] : (double)x->shape[2 + i] / (double)size[i];
        st = ct__interp_dim(ctx, y, 2 + i, size[i], sc, mode, align_corners, &z);
        ct_tensor_release(y);
        y = z;
    }
    if (st != CT_OK) {
        ct_tensor_release(y);
        return st;
    }
    *out = y;
    return CT_OK;
}

static ct_status ct__interp_args(ct_ctx *ctx, const char *op, const ct_tensor *x, int n,
                                 const void *arr, ct_tensor **out) {
    ct_status st = ct__one_input(ctx, op, x, out);
    if (st != CT_OK) return st;
    if (x->ndim < 3 || x->ndim > 4 || n != x->ndim - 2 || !arr)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input %s must be (N, C, L) or (N, C, H, W) with one output size "
                             "or scale per spatial dim (got %d)",
                             op, CT__SHAPE_STR(x), n);
    return CT_OK;
}

ct_status ct_interpolate(ct_ctx *ctx, const ct_tensor *x, int n_size, const int64_t *size,
                         ct_interp_mode mode, bool align_corners, ct_tensor **out) {
    ct_status st = ct__interp_args(ctx, "interpolate", x, n_size, size, out);
    if (st != CT_OK) return st;
    return ct__interpolate(ctx, "interpolate", x, n_size, size, NULL, mode, align_corners, out);
}

ct_status ct_interpolate_scale(ct_ctx *ctx, const ct_tensor *x, int n_scale,
                               const double *scale_factor, ct_interp_mode mode, bool align_corners,
                               bool recompute_scale_factor, ct_tensor **out) {
    ct_status st = ct__interp_args(ctx, "interpolate", x, n_scale, scale_factor, out);
    if (st != CT_OK) return st;
    int64_t size[2];
    for (int i = 0; i < n_scale; i++) {
        double f = floor((double)x->shape[2 + i] * scale_factor[i]);
        if (!(scale_factor[i] > 0) || !(f >= 1) || f > (double)INT32_MAX)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "interpolate: scale factor %g gives output size %g from input "
                                 "size %lld at dim %d",
                                 scale_factor[i], f, (long long)x->shape[2 + i], 2 + i);
        size[i] = (int64_t)f; /* torch: floor(in * scale) */
    }
    return ct__interpolate(ctx, "interpolate", x, n_scale, size,
                           recompute_scale_factor ? NULL : scale_factor, mode, align_corners, out);
}

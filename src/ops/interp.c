/* F.interpolate for (N, C, L), (N, C, H, W) and (N, C, D, H, W) inputs to a given output size:
 * nearest (torch's legacy 'nearest'), nearest-exact, (bi / tri)linear with align_corners either
 * way, and 'area' (adaptive average pooling), as torch 1.13's
 * CPU kernels bit for bit (docs/fidelity.md, "Second harness"). Built from index_select and
 * elementwise ops (so it is captured and differentiable): nearest picks one source index per
 * output position and dim; linear blends two per dim from the last (W inside H), or, for a 4-d
 * input that is channels-last contiguous, the four corners at once as torch's channels-last
 * kernel does (ct__interp_cl). f16, which torch 1.13 does not interpolate, runs in f32. */
#include "ctorch/ops.h"
#include "dtype/half.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>

/* bf16 rounding of a float (torch's bf16 arithmetic on the host side of the weights) */
static float ct__bfr(float f) { return ct__bf2f(ct__f2bf(f)); }

/* torch 1.13's linear indices and weights for one dim, n -> m positions, in the compute dtype dt
 * (f64, f32 or bf16): the scale in dt (1 / scale_factor when sf > 0), the source index and
 * lambda in torch's accumulation type (double for f32 and f64, float for bf16, whose lambdas
 * round to bf16), i1 = i0 + (i0 < n - 1); equal sizes give (j, j, 1, 0). Values as doubles. */
static void ct__lin_weights(int64_t n, int64_t m, bool align, double sf, ct_dtype dt, int64_t *i0,
                            int64_t *i1, double *w0, double *w1) {
    for (int64_t j = 0; j < m; j++) {
        int64_t s;
        double l1, l0;
        if (n == m) {
            s = j, l1 = 0, l0 = 1;
        } else if (dt == CT_BFLOAT16) {
            const float sc = align    ? (m > 1 ? ct__bfr((float)ct__bfr((float)(n - 1)) /
                                                         (float)ct__bfr((float)(m - 1)))
                                               : 0.0f)
                             : sf > 0 ? ct__bfr((float)(1.0 / sf))
                                      : ct__bfr(ct__bfr((float)n) / ct__bfr((float)m));
            float src = align ? sc * (float)j : fmaf(sc, (float)j + 0.5f, -0.5f);
            if (src < 0) src = 0;
            s = (int64_t)src;
            if (s > n - 1) s = n - 1; /* torch reads past the dim there (its bf16 scale) */
            const float f1 = ct__bfr(src - (float)s);
            l1 = f1, l0 = ct__bfr(1.0f - f1);
        } else {
            double src;
            if (dt == CT_FLOAT64) {
                const double sc = align    ? (m > 1 ? (double)(n - 1) / (double)(m - 1) : 0)
                                  : sf > 0 ? 1.0 / sf
                                           : (double)n / (double)m;
                src = align ? sc * (double)j : fma(sc, (double)j + 0.5, -0.5);
            } else { /* f32: the scale a float, the index in double */
                const float sc = align    ? (m > 1 ? (float)(n - 1) / (float)(m - 1) : 0.0f)
                                 : sf > 0 ? (float)(1.0 / sf)
                                          : (float)n / (float)m;
                src = align ? (double)sc * (double)j : fma((double)sc, (double)j + 0.5, -0.5);
            }
            if (src < 0) src = 0; /* torch clamps the source index of linear modes at 0 */
            s = (int64_t)src;
            if (s > n - 1) s = n - 1;
            if (dt == CT_FLOAT64) {
                l1 = src - (double)s, l0 = 1.0 - l1;
            } else {
                const float f1 = (float)(src - (double)s);
                l1 = f1, l0 = 1.0f - f1;
            }
        }
        i0[j] = s, i1[j] = n == m ? s : s + (s < n - 1);
        w0[j] = l0, w1[j] = l1;
    }
}

/* A weight vector laid along dim d of an nd-dim tensor, in dtype dt (exact: the values are
 * already of dt). */
static ct_status ct__interp_wvec(ct_ctx *ctx, const double *w, int64_t m, int nd, int d,
                                 ct_dtype dt, ct_tensor **out) {
    int64_t ws[CT_MAX_DIMS];
    for (int k = 0; k < nd; k++)
        ws[k] = k == d ? m : 1;
    ct_tensor *wd = NULL;
    ct_status st = ct_tensor_from_host(ctx, w, CT_FLOAT64, nd, ws, &wd);
    CT__DO(st, ct_cast(ctx, wd, dt, out));
    ct_tensor_release(wd);
    return st;
}

/* Resample dim d of x from n to m positions. Nearest: source = f(destination * scale) (scale =
 * n / m, or 1 / sf as torch uses when a scale factor is given and not recomputed). Linear:
 * torch's generic kernel, x0 w0 + x1 w1 as fma(x0, w0, x1 w1) in f32 / f64 (its build
 * contracts it), each product and the sum rounded to bf16 in bf16. */
static ct_status ct__interp_dim(ct_ctx *ctx, const ct_tensor *x, int d, int64_t m, double sf,
                                ct_interp_mode mode, bool align, bool cl, ct_tensor **out) {
    const int64_t n = x->shape[d];
    int64_t *i0 = ct__alloc(ctx, sizeof(int64_t) * (size_t)m * 2, 16);
    double *w = ct__alloc(ctx, sizeof(double) * (size_t)m * 2, 16);
    if (!i0 || !w) {
        ct__free(ctx, i0), ct__free(ctx, w);
        return ct__set_error(ctx, CT_ERR_OOM, "interpolate: out of memory");
    }
    int64_t *i1 = i0 + m;
    double *w1 = w + m;
    if (mode == CT_INTERP_LINEAR) {
        ct__lin_weights(n, m, align, sf, x->dtype, i0, i1, w, w1);
    } else {
        /* torch's generic kernel: floor(j scale); its channels-last one (4-d inputs that are
         * channels-last contiguous): equal sizes copy, twice the size halves j, else floorf of
         * j times the scale in float; nearest-exact floor((j + 1/2) scale) */
        const double scale = sf > 0 ? 1.0 / sf : (double)n / (double)m;
        for (int64_t j = 0; j < m; j++) {
            int64_t s;
            if (mode == CT_INTERP_NEAREST && cl && m == n)
                s = j;
            else if (mode == CT_INTERP_NEAREST && cl && m == 2 * n)
                s = j >> 1;
            else if (mode == CT_INTERP_NEAREST && cl)
                s = (int64_t)floorf((float)j * (float)scale);
            else if (mode == CT_INTERP_NEAREST)
                s = (int64_t)floor((double)j * scale);
            else
                s = (int64_t)floor(((double)j + 0.5) * scale);
            i0[j] = s < n - 1 ? s : n - 1;
        }
    }
    ct_tensor *t0 = NULL, *t1 = NULL, *a = NULL, *b = NULL, *wa = NULL, *wb = NULL, *p = NULL;
    ct_status st = ct_tensor_from_host(ctx, i0, CT_INT64, 1, &m, &t0);
    CT__DO(st, ct_index_select(ctx, x, d, t0, &a));
    if (st == CT_OK && mode == CT_INTERP_LINEAR) {
        CT__DO(st, ct_tensor_from_host(ctx, i1, CT_INT64, 1, &m, &t1));
        CT__DO(st, ct_index_select(ctx, x, d, t1, &b));
        CT__DO(st, ct__interp_wvec(ctx, w, m, x->ndim, d, x->dtype, &wa));
        CT__DO(st, ct__interp_wvec(ctx, w1, m, x->ndim, d, x->dtype, &wb));
        CT__DO(st, ct_mul(ctx, b, wb, &p));
        if (x->dtype != CT_BFLOAT16) {
            CT__DO(st, ct_addcmul(ctx, p, a, wa, 1.0, out)); /* fma(1 x0, w0, x1 w1) */
        } else {
            ct_tensor *q = NULL;
            CT__DO(st, ct_mul(ctx, a, wa, &q));
            CT__DO(st, ct_add(ctx, q, p, out));
            ct_tensor_release(q);
        }
    } else if (st == CT_OK) {
        *out = ct_tensor_retain(a);
    }
    ct__free(ctx, i0), ct__free(ctx, w);
    ct_tensor_release(t0), ct_tensor_release(t1), ct_tensor_release(a), ct_tensor_release(b);
    ct_tensor_release(wa), ct_tensor_release(wb), ct_tensor_release(p);
    return st;
}

/* torch's cubic convolution coefficients (A = -0.75) for the fraction t */
static void ct__cubic_coeffs(double t, double c[4]) {
    const double A = -0.75, x1 = t, x2 = 1.0 - x1, y1 = x1 + 1.0, y2 = x2 + 1.0;
    c[0] = ((A * y1 - 5.0 * A) * y1 + 8.0 * A) * y1 - 4.0 * A;
    c[1] = ((A + 2.0) * x1 - (A + 3.0)) * x1 * x1 + 1.0;
    c[2] = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0;
    c[3] = ((A * y2 - 5.0 * A) * y2 + 8.0 * A) * y2 - 4.0 * A;
}

/* Bicubic along dim d (torch's upsample_bicubic2d): source x = scale (j + 1/2) - 1/2 (an fma, or
 * scale j with align_corners; not clamped), then torch's guard_index_and_lambda (floorf of x, at
 * most n - 1, the fraction clamped to [0, 1]); the four neighbours floor - 1 .. floor + 2 clamped
 * to the dim, weighted by the cubic coefficients (computed in double) and summed in order (x0 c0,
 * then fma of the others). Within a few ulp of torch in float64 (its kernel rounds the indices
 * and sums in a slightly different order). */
static ct_status ct__interp_cubic_dim(ct_ctx *ctx, const ct_tensor *x, int d, int64_t m, double sf,
                                      bool align, ct_tensor **out) {
    const int64_t n = x->shape[d];
    int64_t *ix = ct__alloc(ctx, sizeof(int64_t) * (size_t)m * 4, 16);
    double *w = ct__alloc(ctx, sizeof(double) * (size_t)m * 4, 16);
    if (!ix || !w) {
        ct__free(ctx, ix), ct__free(ctx, w);
        return ct__set_error(ctx, CT_ERR_OOM, "interpolate: out of memory");
    }
    for (int64_t j = 0; j < m; j++) {
        const double sc = align    ? (m > 1 ? (double)(n - 1) / (double)(m - 1) : 0)
                          : sf > 0 ? 1.0 / sf
                                   : (double)n / (double)m;
        const double real = align ? sc * (double)j : fma(sc, (double)j + 0.5, -0.5);
        int64_t i0 = (int64_t)floorf((float)real);
        if (i0 > n - 1) i0 = n - 1;
        double t = real - (double)i0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double c[4];
        ct__cubic_coeffs(t, c);
        for (int k = 0; k < 4; k++) {
            int64_t s = i0 - 1 + k;
            ix[k * m + j] = s < 0 ? 0 : s > n - 1 ? n - 1 : s;
            w[k * m + j] = c[k];
        }
    }
    ct_tensor *acc = NULL;
    ct_status st = CT_OK;
    for (int k = 0; k < 4 && st == CT_OK; k++) {
        ct_tensor *it = NULL, *v = NULL, *wt = NULL, *nx = NULL;
        st = ct_tensor_from_host(ctx, ix + k * m, CT_INT64, 1, &m, &it);
        CT__DO(st, ct_index_select(ctx, x, d, it, &v));
        CT__DO(st, ct__interp_wvec(ctx, w + k * m, m, x->ndim, d, x->dtype, &wt));
        if (k == 0) {
            CT__DO(st, ct_mul(ctx, v, wt, &nx));
        } else {
            CT__DO(st, ct_addcmul(ctx, acc, v, wt, 1.0, &nx)); /* fma(x_k, c_k, acc) */
        }
        ct_tensor_release(acc);
        acc = nx;
        ct_tensor_release(it), ct_tensor_release(v), ct_tensor_release(wt);
    }
    ct__free(ctx, ix), ct__free(ctx, w);
    if (st != CT_OK) {
        ct_tensor_release(acc);
        return st;
    }
    *out = acc;
    return CT_OK;
}

/* The sum of (x_k * w_k) for k = 00, 01, 10, 11 in the order ord (indices into the four), each
 * product and partial sum rounded in dtype acc; fused: the first product rounded, then fma of
 * the others onto it. */
static ct_status ct__cl_sum(ct_ctx *ctx, ct_tensor *const *xs, ct_tensor *const *ws, const int *ord,
                            ct_dtype acc, bool fused, ct_tensor **out) {
    ct_tensor *cx[4] = {0}, *cw[4] = {0}, *s = NULL;
    ct_status st = CT_OK;
    for (int k = 0; k < 4; k++) {
        CT__DO(st, ct__to_dtype(ctx, xs[k], acc, &cx[k]));
        CT__DO(st, ct__to_dtype(ctx, ws[k], acc, &cw[k]));
    }
    CT__DO(st, ct_mul(ctx, cx[ord[0]], cw[ord[0]], &s));
    for (int k = 1; k < 4 && st == CT_OK; k++) {
        ct_tensor *nx = NULL, *pk = NULL;
        if (fused) {
            st = ct_addcmul(ctx, s, cx[ord[k]], cw[ord[k]], 1.0, &nx);
        } else {
            st = ct_mul(ctx, cx[ord[k]], cw[ord[k]], &pk);
            CT__DO(st, ct_add(ctx, s, pk, &nx));
        }
        ct_tensor_release(pk);
        if (st == CT_OK) ct_tensor_release(s), s = nx;
    }
    for (int k = 0; k < 4; k++)
        ct_tensor_release(cx[k]), ct_tensor_release(cw[k]);
    if (st != CT_OK) {
        ct_tensor_release(s);
        return st;
    }
    *out = s;
    return CT_OK;
}

/* torch 1.13's channels-last bilinear kernel, which a contiguous (N, C, H, W) input with C == 1
 * or H == W == 1 dispatches to: the four corner weights a_h b_w rounded to the dtype; channels
 * in whole vectors (8 for f32, 4 for f64, 16 for bf16) sum x10 w10, x11 w11, x01 w01, x00 w00 in
 * that order (f32 / f64: one product, then fma of the others; bf16: in float), the other
 * channels x00 w00 + x01 w01 + x10 w10 + x11 w11 left to right in double (f32) / float (bf16),
 * f64 contracted as fma(x00, w00, x01 w01) then fmas; one final rounding. */
static ct_status ct__interp_cl(ct_ctx *ctx, const ct_tensor *x, const int64_t *size,
                               const double *sf, bool align, ct_tensor **out) {
    const ct_dtype dt = x->dtype;
    const int64_t H = x->shape[2], W = x->shape[3], OH = size[0], OW = size[1], C = x->shape[1];
    int64_t *ix = ct__alloc(ctx, sizeof(int64_t) * (size_t)(2 * OH + 2 * OW), 16);
    double *wv = ct__alloc(ctx, sizeof(double) * (size_t)(2 * OH + 2 * OW + 4 * OH * OW), 16);
    if (!ix || !wv) {
        ct__free(ctx, ix), ct__free(ctx, wv);
        return ct__set_error(ctx, CT_ERR_OOM, "interpolate: out of memory");
    }
    int64_t *h0 = ix, *h1 = ix + OH, *c0 = ix + 2 * OH, *c1 = c0 + OW;
    double *a0 = wv, *a1 = wv + OH, *b0 = wv + 2 * OH, *b1 = b0 + OW, *cw = b1 + OW;
    ct__lin_weights(H, OH, align, sf ? sf[0] : 0, dt, h0, h1, a0, a1);
    ct__lin_weights(W, OW, align, sf ? sf[1] : 0, dt, c0, c1, b0, b1);
    for (int64_t i = 0; i < OH; i++) /* w00, w01, w10, w11 (products exact in double) */
        for (int64_t j = 0; j < OW; j++) {
            const double pr[4] = {a0[i] * b0[j], a0[i] * b1[j], a1[i] * b0[j], a1[i] * b1[j]};
            for (int k = 0; k < 4; k++)
                cw[k * OH * OW + i * OW + j] = dt == CT_BFLOAT16  ? (double)ct__bfr((float)pr[k])
                                               : dt == CT_FLOAT32 ? (double)(float)pr[k]
                                                                  : pr[k];
        }
    const int64_t n1[1] = {OH}, n2[1] = {OW}, ws[4] = {1, 1, OH, OW};
    ct_tensor *t[4] = {0}, *r0 = NULL, *r1 = NULL, *xs[4] = {0}, *wt[4] = {0};
    ct_status st = ct_tensor_from_host(ctx, h0, CT_INT64, 1, n1, &t[0]);
    CT__DO(st, ct_tensor_from_host(ctx, h1, CT_INT64, 1, n1, &t[1]));
    CT__DO(st, ct_tensor_from_host(ctx, c0, CT_INT64, 1, n2, &t[2]));
    CT__DO(st, ct_tensor_from_host(ctx, c1, CT_INT64, 1, n2, &t[3]));
    CT__DO(st, ct_index_select(ctx, x, 2, t[0], &r0));
    CT__DO(st, ct_index_select(ctx, x, 2, t[1], &r1));
    CT__DO(st, ct_index_select(ctx, r0, 3, t[2], &xs[0]));
    CT__DO(st, ct_index_select(ctx, r0, 3, t[3], &xs[1]));
    CT__DO(st, ct_index_select(ctx, r1, 3, t[2], &xs[2]));
    CT__DO(st, ct_index_select(ctx, r1, 3, t[3], &xs[3]));
    for (int k = 0; k < 4; k++) {
        ct_tensor *wd = NULL;
        CT__DO(st, ct_tensor_from_host(ctx, cw + k * OH * OW, CT_FLOAT64, 4, ws, &wd));
        CT__DO(st, ct_cast(ctx, wd, dt, &wt[k]));
        ct_tensor_release(wd);
    }
    const int64_t vl = dt == CT_BFLOAT16 ? 16 : dt == CT_FLOAT32 ? 8 : 4, cv = C - C % vl;
    /* f64's tail: fma(x00, w00, x01 w01), then fma of x10 w10 and x11 w11 (torch's build
     * contracts x00 w00 + x01 w01 + x10 w10 + x11 w11 so: bit for bit on 5878 of 5878 elements) */
    const int vec_ord[4] = {2, 3, 1, 0}, tail_ord[4] = {0, 1, 2, 3}, f64_ord[4] = {1, 0, 2, 3};
    const ct_dtype vacc = dt == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32,
                   tacc = dt == CT_BFLOAT16 ? CT_FLOAT32 : CT_FLOAT64;
    ct_tensor *parts[2] = {0};
    int np = 0;
    for (int pass = 0; pass < 2 && st == CT_OK; pass++) {
        const int64_t c_lo = pass ? cv : 0, c_n = pass ? C - cv : cv;
        if (c_n == 0) continue;
        ct_tensor *xn[4] = {0}, *sum = NULL;
        for (int k = 0; k < 4; k++)
            CT__DO(st, ct_tensor_narrow(ctx, xs[k], 1, c_lo, c_n, &xn[k]));
        CT__DO(st, ct__cl_sum(ctx, xn, wt,
                              !pass              ? vec_ord
                              : dt == CT_FLOAT64 ? f64_ord
                                                 : tail_ord,
                              pass ? tacc : vacc, dt == CT_FLOAT64 || (!pass && dt == CT_FLOAT32),
                              &sum));
        CT__DO(st, ct__to_dtype(ctx, sum, dt, &parts[np]));
        if (st == CT_OK) np++;
        for (int k = 0; k < 4; k++)
            ct_tensor_release(xn[k]);
        ct_tensor_release(sum);
    }
    if (st == CT_OK)
        st = np == 1 ? (*out = ct_tensor_retain(parts[0]), CT_OK)
                     : ct_cat(ctx, np, (const ct_tensor *const *)parts, 1, out);
    for (int k = 0; k < 4; k++)
        ct_tensor_release(t[k]), ct_tensor_release(xs[k]), ct_tensor_release(wt[k]);
    ct_tensor_release(r0), ct_tensor_release(r1);
    ct_tensor_release(parts[0]), ct_tensor_release(parts[1]);
    ct__free(ctx, ix), ct__free(ctx, wv);
    return st;
}

/* torch's is_contiguous(channels_last) of a 4-d tensor: strides of C, W, H, N in that order are
 * the running products of the sizes (dims of size 1 skipped), as a contiguous (N, C, H, W) tensor
 * with C == 1 or H == W == 1 has. */
static bool ct__channels_last(const ct_tensor *x) {
    /* (N, C, H, W) with C innermost, then W, H, N; (N, C, D, H, W) likewise (channels_last_3d) */
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    const int *order = x->ndim == 5 ? order5 : order4;
    int64_t expected = 1;
    for (int k = 0; k < x->ndim; k++) {
        const int d = order[k];
        if (x->shape[d] == 1) continue;
        if (x->strides[d] != expected) return false;
        expected *= x->shape[d];
    }
    return true;
}

/* The common checks and the per-dim passes; scales[i] <= 0 means in / out. */
static ct_status ct__interpolate(ct_ctx *ctx, const char *op, const ct_tensor *x, int n_size,
                                 const int64_t *size, const double *scales, ct_interp_mode mode,
                                 bool align_corners, ct_tensor **out) {
    if ((int)mode < 0 || mode > CT_INTERP_BICUBIC)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: unknown mode %d", op, (int)mode);
    if (mode == CT_INTERP_BICUBIC && n_size != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: 'bicubic' takes a 4-d (N, C, H, W) input", op);
    if (mode == CT_INTERP_BICUBIC && !ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: 'bicubic' needs floating input, got %s", op,
                             ct_dtype_name(x->dtype));
    if (mode == CT_INTERP_AREA) { /* torch: adaptive average pooling to the size */
        if (align_corners)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: align_corners only applies to the linear modes", op);
        if (n_size == 1) return ct_adaptive_avg_pool1d(ctx, x, size[0], out);
        if (n_size == 2) return ct_adaptive_avg_pool2d(ctx, x, size, out);
        return ct_adaptive_avg_pool3d(ctx, x, size, out);
    }
    if (align_corners && mode != CT_INTERP_LINEAR && mode != CT_INTERP_BICUBIC)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: align_corners only applies to the linear and bicubic modes", op);
    if (mode == CT_INTERP_LINEAR && !ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: linear modes need floating input, got %s", op,
                             ct_dtype_name(x->dtype));
    if (x->storage->device.type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "%s: only CPU tensors so far", op);
    if (x->shape[1] == 0) /* torch: "Non-empty ... data tensor expected" (a batch of 0 is fine) */
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input %s has no channels", op,
                             CT__SHAPE_STR(x));
    for (int i = 0; i < n_size; i++)
        if (size[i] < 1 || size[i] > INT32_MAX || x->shape[2 + i] < 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: output size %lld from input size %lld at dim %d", op,
                                 (long long)size[i], (long long)x->shape[2 + i], 2 + i);
    if (x->dtype == CT_FLOAT16 && mode == CT_INTERP_LINEAR) { /* torch 1.13 has none: f32 */
        ct_tensor *xf = NULL, *yf = NULL;
        ct_status st = ct__to_dtype(ctx, x, CT_FLOAT32, &xf);
        CT__DO(st, ct__interpolate(ctx, op, xf, n_size, size, scales, mode, align_corners, &yf));
        CT__DO(st, ct__to_dtype(ctx, yf, CT_FLOAT16, out));
        ct_tensor_release(xf), ct_tensor_release(yf);
        return st;
    }
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64 && mode == CT_INTERP_BICUBIC) {
        ct_tensor *xf = NULL, *yf = NULL; /* half precision through float32 */
        ct_status st = ct__to_dtype(ctx, x, CT_FLOAT32, &xf);
        CT__DO(st, ct__interpolate(ctx, op, xf, n_size, size, scales, mode, align_corners, &yf));
        CT__DO(st, ct__to_dtype(ctx, yf, x->dtype, out));
        ct_tensor_release(xf), ct_tensor_release(yf);
        return st;
    }
    if (mode == CT_INTERP_LINEAR && n_size == 2 && ct__channels_last(x))
        return ct__interp_cl(ctx, x, size, scales, align_corners, out);
    /* torch's channels-last nearest kernel (4-d and 5-d inputs it treats as channels-last) */
    const bool cl = (n_size == 2 || n_size == 3) && ct__channels_last(x);
    ct_tensor *y = ct_tensor_retain((ct_tensor *)x);
    ct_status st = CT_OK;
    for (int k = 0; k < n_size && st == CT_OK; k++) {
        const int i = n_size - 1 - k; /* the last dim first (torch's nesting: W inside H) */
        ct_tensor *z = NULL;
        st = mode == CT_INTERP_BICUBIC
                 ? ct__interp_cubic_dim(ctx, y, 2 + i, size[i], scales ? scales[i] : 0,
                                        align_corners, &z)
                 : ct__interp_dim(ctx, y, 2 + i, size[i], scales ? scales[i] : 0, mode,
                                  align_corners, cl, &z);
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
    if (x->ndim < 3 || x->ndim > 5 || n != x->ndim - 2 || !arr)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input %s must be (N, C, L), (N, C, H, W) or (N, C, D, H, W) with "
                             "one output size or scale per spatial dim (got %d)",
                             op, CT__SHAPE_STR(x), n);
    return CT_OK;
}

/* torch 1.13's node for F.interpolate of an input with nsp (1, 2 or 3) spatial dims: the upsample
 * kernel's, overload 1 (the output size or scale factors passed as optional lists); 'area' is
 * the adaptive average pool's. */
static const char *ct__interp_node_name(ct_interp_mode mode, int nsp) {
    static const char *const names[5][3] = {
        {"UpsampleNearest1DBackward1", "UpsampleNearest2DBackward1", "UpsampleNearest3DBackward1"},
        {"UpsampleNearestExact1DBackward1", "UpsampleNearestExact2DBackward1",
         "UpsampleNearestExact3DBackward1"},
        {"UpsampleLinear1DBackward1", "UpsampleBilinear2DBackward1",
         "UpsampleTrilinear3DBackward1"},
        {"SqueezeBackward1", "AdaptiveAvgPool2DBackward0", "AdaptiveAvgPool3DBackward0"},
        {"UpsampleBicubic2DBackward1", "UpsampleBicubic2DBackward1", "UpsampleBicubic2DBackward1"}};
    return names[mode][nsp - 1];
}

static ct_status ct__interpolate_body(ct_ctx *ctx, const ct_tensor *x, int n_size,
                                      const int64_t *size, ct_interp_mode mode, bool align_corners,
                                      ct_tensor **out) {
    ct_status st = ct__interp_args(ctx, "interpolate", x, n_size, size, out);
    if (st != CT_OK) return st;
    return ct__interpolate(ctx, "interpolate", x, n_size, size, NULL, mode, align_corners, out);
}

ct_status ct_interpolate(ct_ctx *ctx, const ct_tensor *x, int n_size, const int64_t *size,
                         ct_interp_mode mode, bool align_corners, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "interpolate", ct__interpolate_body(ctx, x, n_size, size, mode, align_corners, out));
    return st != CT_OK ? st
                       : ct__ag_named(ctx, st, out, mark, ct__interp_node_name(mode, x->ndim - 2));
}

static ct_status ct__interpolate_scale_body(ct_ctx *ctx, const ct_tensor *x, int n_scale,
                                            const double *scale_factor, ct_interp_mode mode,
                                            bool align_corners, bool recompute_scale_factor,
                                            ct_tensor **out) {
    ct_status st = ct__interp_args(ctx, "interpolate", x, n_scale, scale_factor, out);
    if (st != CT_OK) return st;
    int64_t size[3];
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

ct_status ct_interpolate_scale(ct_ctx *ctx, const ct_tensor *x, int n_scale,
                               const double *scale_factor, ct_interp_mode mode, bool align_corners,
                               bool recompute_scale_factor, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "interpolate",
                         ct__interpolate_scale_body(ctx, x, n_scale, scale_factor, mode,
                                                    align_corners, recompute_scale_factor, out));
    return st != CT_OK ? st
                       : ct__ag_named(ctx, st, out, mark, ct__interp_node_name(mode, x->ndim - 2));
}

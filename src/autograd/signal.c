/* Window functions (torch.hann_window, hamming_window, blackman_window, bartlett_window,
 * kaiser_window), torch.histogram and torch.gradient, written as torch 1.13's ATen writes them
 * (the same ops in the same order for float32 and float64, so the same bits).
 * docs/everyday.md ("Windows, histogram, gradient") lists the differences. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- windows: arange(N') in the dtype, N' = N + 1 when periodic (the last value dropped) ---- */
typedef enum { CT__WIN_HAMMING, CT__WIN_BLACKMAN, CT__WIN_BARTLETT, CT__WIN_KAISER } ct__win;

static ct_status ct__window(ct_ctx *ctx, const char *op, ct__win kind, int64_t n, bool periodic,
                            double alpha, double beta, ct_dtype dtype, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    if (!ct_dtype_is_floating(dtype) || !ct__is_compute_dtype(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: window functions only support floating point dtypes, got %s", op,
                             ct_dtype_name(dtype));
    if (n < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: requires non-negative window_length, got window_length=%lld", op,
                             (long long)n);
    if (n > ((int64_t)1 << 40))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: window_length %lld is too large", op,
                             (long long)n);
    if (n == 0) return ct_tensor_zeros(ctx, dtype, 1, &n, out);
    if (n == 1) return ct_tensor_ones(ctx, dtype, 1, &n, out);
    const int64_t L = periodic ? n + 1 : n;
    /* half dtypes: computed in float32, rounded once at the end */
    const ct_dtype dt = dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *t[12] = {NULL}, *w = NULL;
    ct_status st = ct_tensor_arange(ctx, dt, 0, (double)L, 1, &t[0]);
    switch (kind) {
    case CT__WIN_HAMMING: /* alpha - beta cos(2 pi i / (L - 1)) */
        CT__DO(st, ct_mul_scalar(ctx, t[0], M_PI * 2. / (double)(L - 1), &t[1]));
        CT__DO(st, ct_cos(ctx, t[1], &t[2]));
        CT__DO(st, ct_mul_scalar(ctx, t[2], -beta, &t[3]));
        CT__DO(st, ct_add_scalar(ctx, t[3], alpha, &w));
        break;
    case CT__WIN_BLACKMAN: /* 0.08 cos(4 x) - 0.5 cos(2 x) + 0.42, x = pi i / (L - 1) */
        CT__DO(st, ct_mul_scalar(ctx, t[0], M_PI / (double)(L - 1), &t[1]));
        CT__DO(st, ct_mul_scalar(ctx, t[1], 4, &t[2]));
        CT__DO(st, ct_cos(ctx, t[2], &t[3]));
        CT__DO(st, ct_mul_scalar(ctx, t[3], 0.08, &t[4]));
        CT__DO(st, ct_mul_scalar(ctx, t[1], 2, &t[5]));
        CT__DO(st, ct_cos(ctx, t[5], &t[6]));
        CT__DO(st, ct_mul_scalar(ctx, t[6], 0.5, &t[7]));
        CT__DO(st, ct_sub(ctx, t[4], t[7], &t[8]));
        CT__DO(st, ct_add_scalar(ctx, t[8], 0.42, &w));
        break;
    case CT__WIN_BARTLETT: { /* 2 i / (L - 1), then 2 - that over the second half */
        const int64_t half = ((L - 1) >> 1) + 1;
        CT__DO(st, ct_mul_scalar(ctx, t[0], 2. / (double)(L - 1), &t[1]));
        CT__DO(st, ct_tensor_narrow(ctx, t[1], 0, 0, half, &t[2]));
        CT__DO(st, ct_tensor_narrow(ctx, t[1], 0, half, L - half, &t[3]));
        CT__DO(st, ct_mul_scalar(ctx, t[3], -1, &t[4]));
        CT__DO(st, ct_add_scalar(ctx, t[4], 2, &t[5]));
        const ct_tensor *parts[2] = {t[2], t[5]};
        CT__DO(st, ct_cat(ctx, 2, parts, 0, &w));
        break;
    }
    case CT__WIN_KAISER: { /* i0(beta sqrt(1 - ((i - a) / a)^2)) / i0(beta), a = (L - 1) / 2 */
        const double a = (double)(L - 1) / 2.0;
        CT__DO(st, ct_add_scalar(ctx, t[0], -a, &t[1]));
        CT__DO(st, ct_div_scalar(ctx, t[1], a, &t[2]));
        CT__DO(st, ct_mul(ctx, t[2], t[2], &t[3]));
        CT__DO(st, ct_rsub_scalar(ctx, t[3], 1, 1, &t[4]));
        CT__DO(st, ct_sqrt(ctx, t[4], &t[5]));
        CT__DO(st, ct_mul_scalar(ctx, t[5], beta, &t[6]));
        CT__DO(st, ct_i0(ctx, t[6], &t[7]));
        CT__DO(st, ct_tensor_full(ctx, dt, 0, NULL, beta, &t[8]));
        CT__DO(st, ct_i0(ctx, t[8], &t[9]));
        CT__DO(st, ct_div(ctx, t[7], t[9], &w));
        break;
    }
    }
    ct_tensor *nw = NULL;
    CT__DO(st, ct_tensor_narrow(ctx, w, 0, 0, n, &nw));
    CT__DO(st, ct_cast(ctx, nw, dtype, &t[10]));
    CT__DO(st, ct_tensor_contiguous(ctx, t[10], out));
    ct_tensor_release(nw), ct_tensor_release(w);
    ct__release_all(12, t);
    ct_set_grad_enabled(ctx, was);
    return ct__error_within(ctx, op, st);
}
ct_status ct_hann_window(ct_ctx *ctx, int64_t window_length, bool periodic, ct_dtype dtype,
                         ct_tensor **out) {
    return ct__window(ctx, "hann_window", CT__WIN_HAMMING, window_length, periodic, 0.5, 0.5, dtype,
                      out);
}
ct_status ct_hamming_window(ct_ctx *ctx, int64_t window_length, bool periodic, double alpha,
                            double beta, ct_dtype dtype, ct_tensor **out) {
    return ct__window(ctx, "hamming_window", CT__WIN_HAMMING, window_length, periodic, alpha, beta,
                      dtype, out);
}
ct_status ct_blackman_window(ct_ctx *ctx, int64_t window_length, bool periodic, ct_dtype dtype,
                             ct_tensor **out) {
    return ct__window(ctx, "blackman_window", CT__WIN_BLACKMAN, window_length, periodic, 0, 0,
                      dtype, out);
}
ct_status ct_bartlett_window(ct_ctx *ctx, int64_t window_length, bool periodic, ct_dtype dtype,
                             ct_tensor **out) {
    return ct__window(ctx, "bartlett_window", CT__WIN_BARTLETT, window_length, periodic, 0, 0,
                      dtype, out);
}
ct_status ct_kaiser_window(ct_ctx *ctx, int64_t window_length, bool periodic, double beta,
                           ct_dtype dtype, ct_tensor **out) {
    return ct__window(ctx, "kaiser_window", CT__WIN_KAISER, window_length, periodic, 0, beta, dtype,
                      out);
}

/* ---- histogram: counts (or weight sums) per bin over [min, max] of the data or range, the last
 * bin closed; torch's binning: pos = (x - lo) * bins / (hi - lo) in the input dtype, corrected by
 * one bin against the edges; density divides by the total times the bin width ---- */
static ct_status ct__histogram(ct_ctx *ctx, const ct_tensor *a, int64_t bins,
                               const ct_tensor *edges_in, const double *range,
                               const ct_tensor *weight, bool density, ct_tensor **hist,
                               ct_tensor **edges_out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "histogram", 1, ins, hist);
    if (st != CT_OK) return st;
    *hist = NULL;
    if (edges_out) *edges_out = NULL;
    if (a->dtype != CT_FLOAT32 && a->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "histogram: expected a float32 or float64 input, got %s",
                             ct_dtype_name(a->dtype));
    const int64_t n = ct_tensor_numel(a);
    if (weight) {
        const ct_tensor *wi[1] = {weight};
        if ((st = ct__check_args(ctx, "histogram", 1, wi, hist)) != CT_OK) return st;
        bool same = weight->ndim == a->ndim && weight->dtype == a->dtype;
        for (int i = 0; same && i < a->ndim; i++)
            same = weight->shape[i] == a->shape[i];
        if (!same)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "histogram: weight %s must have the input's shape %s and dtype",
                                 CT__SHAPE_STR(weight), CT__SHAPE_STR(a));
    }
    const ct_dtype dt = a->dtype;
    const bool f32 = dt == CT_FLOAT32;
    double *x = malloc(sizeof(double) * (size_t)(n ? n : 1)), *wv = NULL, *e = NULL, *h = NULL;
    ct_tensor *c = NULL, *ew = NULL;
    if (!x) return ct__set_error(ctx, CT_ERR_OOM, "histogram: out of memory");
    st = ct_cast(ctx, a, CT_FLOAT64, &c);
    CT__DO(st, ct_tensor_to_host(c, x, sizeof(double) * (size_t)n));
    ct_tensor_release(c);
    c = NULL;
    if (st == CT_OK && weight) {
        wv = malloc(sizeof(double) * (size_t)(n ? n : 1));
        if (!wv) st = ct__set_error(ctx, CT_ERR_OOM, "histogram: out of memory");
        CT__DO(st, ct_cast(ctx, weight, CT_FLOAT64, &c));
        CT__DO(st, ct_tensor_to_host(c, wv, sizeof(double) * (size_t)n));
        ct_tensor_release(c);
        c = NULL;
    }
    int64_t nb = bins;
    if (st == CT_OK && edges_in) { /* explicit, increasing edges */
        const ct_tensor *ei[1] = {edges_in};
        st = ct__check_args(ctx, "histogram", 1, ei, hist);
        if (st == CT_OK && (edges_in->ndim != 1 || edges_in->shape[0] < 2 || edges_in->dtype != dt))
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "histogram: bins must be a 1-d tensor of at least 2 edges in the "
                               "input's dtype, got %s",
                               CT__SHAPE_STR(edges_in));
        if (st == CT_OK) {
            nb = edges_in->shape[0] - 1;
            e = malloc(sizeof(double) * (size_t)(nb + 1));
            if (!e) st = ct__set_error(ctx, CT_ERR_OOM, "histogram: out of memory");
            CT__DO(st, ct_cast(ctx, edges_in, CT_FLOAT64, &c));
            CT__DO(st, ct_tensor_to_host(c, e, sizeof(double) * (size_t)(nb + 1)));
            ct_tensor_release(c);
            for (int64_t i = 0; st == CT_OK && i < nb; i++)
                if (!(e[i] <= e[i + 1]))
                    st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                       "histogram: bin edges must be increasing");
        }
        if (st == CT_OK) ew = ct_tensor_retain((ct_tensor *)edges_in);
    } else if (st == CT_OK) {
        if (bins < 1 || bins > ((int64_t)1 << 31))
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "histogram: bins must be in [1, 2^31], got %lld", (long long)bins);
        double lo = 0, hi = 0;
        if (st == CT_OK && range) {
            lo = range[0], hi = range[1];
            if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi))
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "histogram: range [%g, %g] must be finite with min <= max", lo,
                                   hi);
        } else if (st == CT_OK && n > 0) { /* the data's min and max (a NaN makes them NaN) */
            lo = INFINITY, hi = -INFINITY;
            bool nan = false;
            for (int64_t i = 0; i < n; i++) {
                nan |= isnan(x[i]);
                lo = fmin(lo, x[i]), hi = fmax(hi, x[i]);
            }
            if (nan) lo = hi = NAN;
            if (!isfinite(lo) || !isfinite(hi))
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "histogram: range of [%g, %g] is not finite", lo, hi);
        } else if (st == CT_OK) { /* no data and no range: [0, 1], as torch */
            lo = 0, hi = 1;
        }
        if (f32) lo = (float)lo, hi = (float)hi;
        if (lo == hi) lo -= 0.5, hi += 0.5; /* torch widens an empty range */
        CT__DO(st, ct_tensor_linspace(ctx, dt, lo, hi, nb + 1, &ew));
        if (st == CT_OK) {
            e = malloc(sizeof(double) * (size_t)(nb + 1));
            if (!e) st = ct__set_error(ctx, CT_ERR_OOM, "histogram: out of memory");
            CT__DO(st, ct_cast(ctx, ew, CT_FLOAT64, &c));
            CT__DO(st, ct_tensor_to_host(c, e, sizeof(double) * (size_t)(nb + 1)));
            ct_tensor_release(c);
        }
    }
    if (st == CT_OK && !(h = calloc((size_t)nb, sizeof(double))))
        st = ct__set_error(ctx, CT_ERR_OOM, "histogram: out of memory");
    for (int64_t i = 0; st == CT_OK && i < n; i++) {
        const double v = x[i], lo = e[0], hi = e[nb];
        if (!(v >= lo && v <= hi)) continue;
        int64_t pos;
        if (edges_in) { /* binary search: the last edge <= v */
            int64_t l = 0, r = nb;
            while (r - l > 1) {
                const int64_t m = (l + r) / 2;
                if (e[m] <= v)
                    l = m;
                else
                    r = m;
            }
            pos = l;
        } else {
            pos = f32 ? (int64_t)(((float)v - (float)lo) * (float)nb / ((float)hi - (float)lo))
                      : (int64_t)((v - lo) * (double)nb / (hi - lo));
            if (pos > nb) pos = nb;
            if (pos < 0) pos = 0;
            if (pos < nb && e[pos] > v)
                pos--;
            else if (pos + 1 <= nb && e[pos + 1] <= v)
                pos++;
        }
        if (pos >= nb) pos = nb - 1; /* the last bin is closed */
        h[pos] += f32 ? (double)(float)(wv ? wv[i] : 1) : (wv ? wv[i] : 1);
        if (f32) h[pos] = (float)h[pos];
    }
    if (st == CT_OK && density) { /* hist / sum, then / width, each rounded (torch's two div_) */
        double tot = 0;
        for (int64_t i = 0; i < nb; i++)
            tot += h[i];
        if (f32) tot = (float)tot;
        for (int64_t i = 0; i < nb; i++) {
            const double wd = f32 ? (double)((float)e[i + 1] - (float)e[i]) : e[i + 1] - e[i];
            h[i] = f32 ? (double)((float)h[i] / (float)tot) : h[i] / tot;
            h[i] = f32 ? (double)((float)h[i] / (float)wd) : h[i] / wd;
        }
    }
    if (st == CT_OK) {
        ct_tensor *hd = NULL;
        st = ct_tensor_from_host(ctx, h, CT_FLOAT64, 1, &nb, &hd);
        CT__DO(st, ct_cast(ctx, hd, dt, hist));
        ct_tensor_release(hd);
    }
    if (st == CT_OK && edges_out)
        *edges_out = ew;
    else
        ct_tensor_release(ew);
    free(x), free(wv), free(e), free(h);
    return st;
}
ct_status ct_histogram(ct_ctx *ctx, const ct_tensor *a, int64_t bins, const double *range,
                       const ct_tensor *weight, bool density, ct_tensor **hist,
                       ct_tensor **bin_edges) {
    return ct__error_within(
        ctx, "histogram",
        ct__histogram(ctx, a, bins, NULL, range, weight, density, hist, bin_edges));
}
ct_status ct_histogram_edges(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *bins,
                             const ct_tensor *weight, bool density, ct_tensor **hist) {
    if (ctx && !bins)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "histogram: bins (the edges) is NULL");
    return ct__error_within(ctx, "histogram",
                            ct__histogram(ctx, a, 0, bins, NULL, weight, density, hist, NULL));
}

/* ---- histogramdd: points (..., D) binned in D dims, as ATen's histogramdd_cpu_contiguous: a
 * point outside [first edge, last edge] (or NaN) in any dim is skipped; with bin counts the bin is
 * pos = (x - lo) * bins / (hi - lo) in the input dtype, then the upper_bound of x among the edges
 * pos - 1 .. pos + 1 (torch's local search), with explicit edges the upper_bound among all; the
 * last bin is closed. Edges of bin counts are linspace(lo, hi, bins + 1) in the input dtype over
 * range or the data's min and max per dim ([0, 1] without data, widened by 0.5 each side when
 * lo == hi). density: hist / sum(hist), then / the bin width of each dim in turn ---- */
static ct_status ct__histdd(ct_ctx *ctx, const ct_tensor *a, int n_bins, const int64_t *bins,
                            const double *range, int n_edges, const ct_tensor *const *edges_in,
                            const ct_tensor *weight, bool density, ct_tensor **hist,
                            ct_tensor **edges_out) {
    const char *op = "torch.histogramdd";
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, hist);
    if (st != CT_OK) return st;
    *hist = NULL;
    if (a->dtype != CT_FLOAT32 && a->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a float32 or float64 input, got %s",
                             op, ct_dtype_name(a->dtype));
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input tensor should have at least 2 dimensions (..., D), got %s",
                             op, CT__SHAPE_STR(a));
    const int D = (int)(a->shape[a->ndim - 1] <= CT_MAX_DIMS ? a->shape[a->ndim - 1] : -1);
    if (D < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: the last dim (D = %lld) must be between 1 and %d (the dims of "
                             "the histogram)",
                             op, (long long)a->shape[a->ndim - 1], CT_MAX_DIMS);
    if (edges_out)
        for (int d = 0; d < D; d++)
            edges_out[d] = NULL;
    const int64_t N = ct_tensor_numel(a) / D;
    if (edges_in ? n_edges != D : ((n_bins != 1 && n_bins != D) || !bins))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expected %s%d bin %s for a %d-dimensional histogram, got %d", op,
                             edges_in ? "" : "1 or ", D, edges_in ? "edge tensors" : "counts", D,
                             edges_in ? n_edges : n_bins);
    if (weight) {
        const ct_tensor *wi[1] = {weight};
        if ((st = ct__check_args(ctx, op, 1, wi, hist)) != CT_OK) return st;
        bool same = weight->ndim == a->ndim - 1 && weight->dtype == a->dtype;
        for (int i = 0; same && i < weight->ndim; i++)
            same = weight->shape[i] == a->shape[i];
        if (!same)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: weight %s must have input.shape[:-1] and the input's dtype",
                                 op, CT__SHAPE_STR(weight));
    }
    if (!edges_in && range)
        for (int d = 0; d < D; d++)
            if (!isfinite(range[2 * d]) || !isfinite(range[2 * d + 1]) ||
                !(range[2 * d] <= range[2 * d + 1]))
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "%s: dimension %d's range [%g, %g] must be finite with min "
                                     "<= max",
                                     op, d, range[2 * d], range[2 * d + 1]);
    int64_t nb[CT_MAX_DIMS], hs[CT_MAX_DIMS], tot = 1;
    for (int d = 0; d < D; d++) {
        if (edges_in) {
            const ct_tensor *e = edges_in[d];
            const ct_tensor *ei[1] = {e};
            if ((st = ct__check_args(ctx, op, 1, ei, hist)) != CT_OK) return st;
            if (e->ndim != 1 || e->shape[0] < 2 || e->dtype != a->dtype)
                return ct__set_error(ctx, CT_ERR_SHAPE,
                                     "%s: bins[%d] must be a 1-d tensor of at least 2 edges in the "
                                     "input's dtype, got %s %s",
                                     op, d, ct_dtype_name(e->dtype), CT__SHAPE_STR(e));
            nb[d] = e->shape[0] - 1;
        } else {
            nb[d] = bins[n_bins == 1 ? 0 : d];
            if (nb[d] < 1 || nb[d] > ((int64_t)1 << 31))
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "%s: bins must be in [1, 2^31], got %lld for dimension %d", op,
                                     (long long)nb[d], d);
        }
        if (tot > ((int64_t)1 << 40) / nb[d])
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: %d-dimensional histogram is too large", op,
                                 D);
        tot *= nb[d];
    }
    for (int d = D - 1; d >= 0; d--) /* hist strides */
        hs[d] = d == D - 1 ? 1 : hs[d + 1] * nb[d + 1];
    const ct_dtype dt = a->dtype;
    const bool f32 = dt == CT_FLOAT32;
    double *x = malloc(sizeof(double) * (size_t)(N * D > 0 ? N * D : 1)), *wv = NULL, *h = NULL;
    double *e[CT_MAX_DIMS] = {NULL};
    ct_tensor *c = NULL, *ew[CT_MAX_DIMS] = {NULL};
    if (!x) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    st = ct_cast(ctx, a, CT_FLOAT64, &c);
    CT__DO(st, ct_tensor_to_host(c, x, sizeof(double) * (size_t)(N * D)));
    ct_tensor_release(c), c = NULL;
    if (st == CT_OK && weight) {
        wv = malloc(sizeof(double) * (size_t)(N ? N : 1));
        if (!wv) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        CT__DO(st, ct_cast(ctx, weight, CT_FLOAT64, &c));
        CT__DO(st, ct_tensor_to_host(c, wv, sizeof(double) * (size_t)N));
        ct_tensor_release(c), c = NULL;
    }
    for (int d = 0; d < D && st == CT_OK; d++) {
        if (edges_in) {
            st = ct_tensor_clone(ctx, edges_in[d], &ew[d]);
        } else {
            double lo = 0, hi = 1;
            if (range) {
                lo = range[2 * d], hi = range[2 * d + 1];
            } else if (N > 0) { /* the data's min and max (a NaN makes them NaN) */
                lo = INFINITY, hi = -INFINITY;
                bool nan = false;
                for (int64_t i = 0; i < N; i++) {
                    const double v = x[i * D + d];
                    nan |= isnan(v);
                    lo = fmin(lo, v), hi = fmax(hi, v);
                }
                if (nan) lo = hi = NAN;
                if (!isfinite(lo) || !isfinite(hi))
                    st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                       "%s: dimension %d's range [%g, %g] is not finite", op, d, lo,
                                       hi);
            }
            if (f32) lo = (float)lo, hi = (float)hi;
            if (lo == hi) lo -= 0.5, hi += 0.5; /* torch widens an empty range */
            CT__DO(st, ct_tensor_linspace(ctx, dt, lo, hi, nb[d] + 1, &ew[d]));
        }
        if (st == CT_OK && !(e[d] = malloc(sizeof(double) * (size_t)(nb[d] + 1))))
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        CT__DO(st, ct_cast(ctx, ew[d], CT_FLOAT64, &c));
        CT__DO(st, ct_tensor_to_host(c, e[d], sizeof(double) * (size_t)(nb[d] + 1)));
        ct_tensor_release(c), c = NULL;
        for (int64_t i = 0; edges_in && st == CT_OK && i < nb[d]; i++)
            if (!(e[d][i] <= e[d][i + 1]))
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: bin edges of dimension %d must be increasing", op, d);
    }
    if (st == CT_OK && !(h = calloc((size_t)tot, sizeof(double))))
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    for (int64_t i = 0; st == CT_OK && i < N; i++) {
        int64_t at = 0;
        bool skip = false;
        for (int d = 0; d < D && !skip; d++) {
            const double v = x[i * D + d], *ed = e[d], lo = ed[0], hi = ed[nb[d]];
            if (!(v >= lo && v <= hi)) {
                skip = true;
                break;
            }
            int64_t l = 0, r = nb[d] + 1; /* upper_bound over ed[l .. r) */
            if (!edges_in) {
                int64_t pos =
                    f32 ? (int64_t)(((float)v - (float)lo) * (float)nb[d] / ((float)hi - (float)lo))
                        : (int64_t)((v - lo) * (double)nb[d] / (hi - lo));
                if (pos < 0) pos = 0;
                if (pos > nb[d]) pos = nb[d];
                l = pos - 1 > 0 ? pos - 1 : 0;
                r = pos + 2 < nb[d] + 1 ? pos + 2 : nb[d] + 1;
            }
            while (l < r) { /* the first edge > v */
                const int64_t m = l + (r - l) / 2;
                if (ed[m] <= v)
                    l = m + 1;
                else
                    r = m;
            }
            int64_t pos = l - 1;
            if (pos == nb[d]) pos--; /* the last bin includes its right edge */
            at += hs[d] * pos;
        }
        if (skip) continue;
        h[at] += f32 ? (double)(float)(wv ? wv[i] : 1) : (wv ? wv[i] : 1);
        if (f32) h[at] = (float)h[at];
    }
    if (st == CT_OK && density) { /* torch's div_ by the sum, then by each dim's bin widths */
        double sum = 0;
        for (int64_t i = 0; i < tot; i++)
            sum += h[i];
        if (f32) sum = (float)sum;
        for (int64_t i = 0; i < tot; i++)
            h[i] = f32 ? (double)((float)h[i] / (float)sum) : h[i] / sum;
        for (int d = 0; d < D; d++)
            for (int64_t i = 0; i < tot; i++) {
                const int64_t k = i / hs[d] % nb[d];
                const double wd =
                    f32 ? (double)((float)e[d][k + 1] - (float)e[d][k]) : e[d][k + 1] - e[d][k];
                h[i] = f32 ? (double)((float)h[i] / (float)wd) : h[i] / wd;
            }
    }
    if (st == CT_OK) {
        ct_tensor *hd = NULL;
        st = ct_tensor_from_host(ctx, h, CT_FLOAT64, D, nb, &hd);
        CT__DO(st, ct_cast(ctx, hd, dt, hist));
        ct_tensor_release(hd);
    }
    for (int d = 0; d < D; d++) {
        if (st == CT_OK && edges_out)
            edges_out[d] = ew[d];
        else
            ct_tensor_release(ew[d]);
        free(e[d]);
    }
    free(x), free(wv), free(h);
    return st;
}
ct_status ct_histogramdd(ct_ctx *ctx, const ct_tensor *a, int n_bins, const int64_t *bins,
                         const double *range, const ct_tensor *weight, bool density,
                         ct_tensor **hist, ct_tensor **bin_edges) {
    return ct__error_within(
        ctx, "torch.histogramdd",
        ct__histdd(ctx, a, n_bins, bins, range, 0, NULL, weight, density, hist, bin_edges));
}
ct_status ct_histogramdd_edges(ct_ctx *ctx, const ct_tensor *a, int n_edges,
                               const ct_tensor *const *bins, const ct_tensor *weight, bool density,
                               ct_tensor **hist, ct_tensor **bin_edges) {
    if (ctx && !bins)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "torch.histogramdd: bins (the edges) is NULL");
    return ct__error_within(
        ctx, "torch.histogramdd",
        ct__histdd(ctx, a, 0, NULL, NULL, n_edges, bins, weight, density, hist, bin_edges));
}

/* ---- gradient: (f[i+1] - f[i-1]) / h / 2 inside, one-sided differences of edge_order 1 or 2 at
 * the ends, as ATen's gradient_helper_float ---- */
static ct_status ct__grad_dim(ct_ctx *ctx, const ct_tensor *a, int d, double h, int edge_order,
                              ct_tensor **out) {
    const int64_t n = a->shape[d];
    ct_tensor *t[24] = {NULL};
    ct_status st = ct_tensor_slice(ctx, a, d, 2, n, 1, &t[0]);
    CT__DO(st, ct_tensor_slice(ctx, a, d, 0, n - 2, 1, &t[1]));
    CT__DO(st, ct_sub(ctx, t[0], t[1], &t[2]));
    CT__DO(st, ct_div_scalar(ctx, t[2], h, &t[3]));
    CT__DO(st, ct_div_scalar(ctx, t[3], 2, &t[4])); /* center / 2 */
    if (edge_order == 1) {
        CT__DO(st, ct_tensor_slice(ctx, a, d, 1, 2, 1, &t[5]));
        CT__DO(st, ct_tensor_slice(ctx, a, d, 0, 1, 1, &t[6]));
        CT__DO(st, ct_sub(ctx, t[5], t[6], &t[7]));
        CT__DO(st, ct_div_scalar(ctx, t[7], h, &t[8])); /* prepend */
        CT__DO(st, ct_tensor_slice(ctx, a, d, n - 1, n, 1, &t[9]));
        CT__DO(st, ct_tensor_slice(ctx, a, d, n - 2, n - 1, 1, &t[10]));
        CT__DO(st, ct_sub(ctx, t[9], t[10], &t[11]));
        CT__DO(st, ct_div_scalar(ctx, t[11], h, &t[12])); /* append */
    } else {
        CT__DO(st, ct_tensor_slice(ctx, a, d, 0, 1, 1, &t[5]));
        CT__DO(st, ct_mul_scalar(ctx, t[5], -1.5, &t[6]));
        CT__DO(st, ct_tensor_slice(ctx, a, d, 1, 2, 1, &t[13]));
        CT__DO(st, ct_mul_scalar(ctx, t[13], 2, &t[14]));
        CT__DO(st, ct_add(ctx, t[6], t[14], &t[15]));
        CT__DO(st, ct_tensor_slice(ctx, a, d, 2, 3, 1, &t[16]));
        CT__DO(st, ct_mul_scalar(ctx, t[16], 0.5, &t[17]));
        CT__DO(st, ct_sub(ctx, t[15], t[17], &t[7]));
        CT__DO(st, ct_div_scalar(ctx, t[7], h, &t[8])); /* prepend */
        CT__DO(st, ct_tensor_slice(ctx, a, d, n - 3, n - 2, 1, &t[9]));
        CT__DO(st, ct_mul_scalar(ctx, t[9], 0.5, &t[10]));
        CT__DO(st, ct_tensor_slice(ctx, a, d, n - 2, n - 1, 1, &t[18]));
        CT__DO(st, ct_mul_scalar(ctx, t[18], -2, &t[19]));
        CT__DO(st, ct_add(ctx, t[10], t[19], &t[20]));
        CT__DO(st, ct_tensor_slice(ctx, a, d, n - 1, n, 1, &t[21]));
        CT__DO(st, ct_mul_scalar(ctx, t[21], 1.5, &t[22]));
        CT__DO(st, ct_add(ctx, t[20], t[22], &t[11]));
        CT__DO(st, ct_div_scalar(ctx, t[11], h, &t[12])); /* append */
    }
    const ct_tensor *parts[3] = {t[8], t[4], t[12]};
    CT__DO(st, ct_cat(ctx, 3, parts, d, out));
    ct__release_all(24, t);
    return st;
}
static ct_status ct__gradient(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                              const double *spacing, int edge_order, ct_tensor **outs) {
    const ct_tensor *ins[1] = {a};
    ct_tensor *unused = NULL;
    ct_status st = ct__check_args(ctx, "gradient", 1, ins, &unused);
    if (st != CT_OK) return st;
    if (!outs) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "gradient: outs is NULL");
    if (edge_order != 1 && edge_order != 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "gradient: only edge_order=1 and edge_order=2 are supported, got %d",
                             edge_order);
    if (a->ndim == 0 && n_dims <= 0) return CT_OK; /* no dims: no tensors (torch's ()) */
    if (a->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX, "gradient: dims given for a 0-dim input");
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "gradient: bool input is not supported");
    const int nd = n_dims > 0 ? n_dims : a->ndim;
    if (n_dims > 0 && !dims)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "gradient: n_dims > 0 needs dims");
    int ds[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        int d = i;
        if (n_dims > 0 && !ct__wrap_dim(dims[i], a->ndim, &d))
            return ct__set_error(ctx, CT_ERR_INDEX, "gradient: dim %d out of range for %d dims",
                                 dims[i], a->ndim);
        for (int j = 0; j < i; j++)
            if (ds[j] == d)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG, "gradient: dim %d appears twice", d);
        if (a->shape[d] < edge_order + 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "gradient: expected each dimension size to be at least "
                                 "edge_order+1 (%d), dim %d has %lld",
                                 edge_order + 1, d, (long long)a->shape[d]);
        if (spacing && !(spacing[i] != 0 && isfinite(spacing[i])))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "gradient: spacing %g must be finite and nonzero", spacing[i]);
        ds[i] = d;
    }
    for (int i = 0; i < nd; i++)
        outs[i] = NULL;
    for (int i = 0; i < nd && st == CT_OK; i++)
        st = ct__grad_dim(ctx, a, ds[i], spacing ? spacing[i] : 1.0, edge_order, &outs[i]);
    if (st != CT_OK) ct__release_all(nd, outs);
    return st;
}
ct_status ct_gradient(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                      const double *spacing, int edge_order, ct_tensor **outs) {
    return ct__error_within(ctx, "gradient",
                            ct__gradient(ctx, a, n_dims, dims, spacing, edge_order, outs));
}

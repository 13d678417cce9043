/* Parameter initialisation (torch.nn.init) and parameter tools (torch.nn.utils), include/ctorch/
 * init.h. Everything is written with public ops: fills run under no_grad and end in one copy_ into
 * the caller's tensor (so views and leaf parameters work, and a graph can capture them); the
 * weight / spectral norms and the fusions are differentiable compositions. docs/init.md. */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/init.h"
#include "ctorch/inplace.h"
#include "ctorch/linalg.h"
#include "ctorch/ops.h"
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#define CT__NOGRAD_BEGIN const bool ct__was_ = ct_set_grad_enabled(ctx, false)
#define CT__NOGRAD_END ct_set_grad_enabled(ctx, ct__was_)

/* t: a tensor of ctx (the in-place target). */
static ct_status ct__init_target(ct_ctx *ctx, const char *fn, const ct_tensor *t) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[1] = {t};
    return ct__check_args(ctx, fn, 1, ins, ins);
}
static ct_status ct__init_float(ct_ctx *ctx, const char *fn, const ct_tensor *t) {
    if (ct_dtype_is_floating(t->dtype) && ct__is_compute_dtype(t->dtype)) return CT_OK;
    return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating point tensor, got %s", fn,
                         ct_dtype_name(t->dtype));
}

/* ---- gains and fans ---- */

ct_status ct_init_calculate_gain(ct_ctx *ctx, const char *nonlinearity, const double *param,
                                 double *gain) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!nonlinearity || !gain)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "calculate_gain: %s is NULL",
                             !gain ? "gain" : "nonlinearity");
    static const char *const one[] = {"linear",           "conv1d",           "conv2d",
                                      "conv3d",           "conv_transpose1d", "conv_transpose2d",
                                      "conv_transpose3d", "sigmoid"};
    for (size_t i = 0; i < sizeof one / sizeof *one; i++)
        if (!strcmp(nonlinearity, one[i])) return *gain = 1.0, CT_OK;
    if (!strcmp(nonlinearity, "tanh")) return *gain = 5.0 / 3, CT_OK;
    if (!strcmp(nonlinearity, "relu")) return *gain = sqrt(2.0), CT_OK;
    if (!strcmp(nonlinearity, "selu")) return *gain = 3.0 / 4, CT_OK;
    if (!strcmp(nonlinearity, "leaky_relu")) {
        const double s = param ? *param : 0.01;
        if (isfinite(s) && isinf(s * s)) /* Python: OverflowError (inf ** 2 is inf there) */
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "calculate_gain: negative_slope %g: its square overflows", s);
        *gain = sqrt(2.0 / (1 + s * s));
        return CT_OK;
    }
    return ct__set_error(ctx, CT_ERR_INVALID_ARG, "calculate_gain: Unsupported nonlinearity %.64s",
                         nonlinearity);
}

static ct_status ct__fans(ct_ctx *ctx, const char *fn, const ct_tensor *t, int64_t *fan_in,
                          int64_t *fan_out) {
    if (t->ndim < 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Fan in and fan out can not be computed for tensor with fewer "
                             "than 2 dimensions",
                             fn);
    int64_t r = 1;
    for (int d = 2; d < t->ndim; d++)
        if (!ct__checked_mul(r, t->shape[d], &r))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: the receptive field overflows", fn);
    if (!ct__checked_mul(t->shape[1], r, fan_in) || !ct__checked_mul(t->shape[0], r, fan_out))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: the fan overflows", fn);
    return CT_OK;
}

ct_status ct_init_fan_in_and_fan_out(ct_ctx *ctx, const ct_tensor *t, int64_t *fan_in,
                                     int64_t *fan_out) {
    static const char fn[] = "calculate_fan_in_and_fan_out";
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if (!fan_in || !fan_out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s is NULL", fn,
                             !fan_in ? "fan_in" : "fan_out");
    return ct__fans(ctx, fn, t, fan_in, fan_out);
}

/* ---- plain fills ---- */

/* Run a fill of t under no_grad, naming fn in its error. */
#define CT__INIT_NOGRAD(fn, call)                                                                  \
    do {                                                                                           \
        CT__NOGRAD_BEGIN;                                                                          \
        st = (call);                                                                               \
        CT__NOGRAD_END;                                                                            \
        return ct__error_within(ctx, fn, st);                                                      \
    } while (0)

ct_status ct_init_uniform_(ct_ctx *ctx, ct_tensor *t, double a, double b, uint64_t seed,
                           uint64_t offset) {
    ct_status st = ct__init_target(ctx, "uniform_", t);
    if (st != CT_OK) return st;
    CT__INIT_NOGRAD("uniform_", ct_tensor_uniform_(ctx, t, a, b, seed, offset));
}
ct_status ct_init_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std, uint64_t seed,
                          uint64_t offset) {
    ct_status st = ct__init_target(ctx, "normal_", t);
    if (st != CT_OK) return st;
    CT__INIT_NOGRAD("normal_", ct_tensor_normal_(ctx, t, mean, std, seed, offset));
}
ct_status ct_init_constant_(ct_ctx *ctx, ct_tensor *t, double val) {
    ct_status st = ct__init_target(ctx, "constant_", t);
    if (st != CT_OK) return st;
    CT__INIT_NOGRAD("constant_", ct_tensor_fill_(ctx, t, val));
}
ct_status ct_init_ones_(ct_ctx *ctx, ct_tensor *t) {
    ct_status st = ct__init_target(ctx, "ones_", t);
    if (st != CT_OK) return st;
    CT__INIT_NOGRAD("ones_", ct_tensor_fill_(ctx, t, 1.0));
}
ct_status ct_init_zeros_(ct_ctx *ctx, ct_tensor *t) {
    ct_status st = ct__init_target(ctx, "zeros_", t);
    if (st != CT_OK) return st;
    CT__INIT_NOGRAD("zeros_", ct_tensor_fill_(ctx, t, 0.0));
}

/* t = src (any dtype; converted), under no_grad. */
static ct_status ct__init_copy(ct_ctx *ctx, ct_tensor *t, const ct_tensor *src) {
    CT__NOGRAD_BEGIN;
    ct_status st = ct_tensor_copy_(ctx, t, src);
    CT__NOGRAD_END;
    return st;
}

ct_status ct_init_eye_(ct_ctx *ctx, ct_tensor *t) {
    static const char fn[] = "eye_";
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if (t->ndim != 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Only tensors with 2 dimensions are supported", fn);
    ct_tensor *e = NULL;
    st = ct_tensor_eye(ctx, t->dtype, t->shape[0], t->shape[1], &e);
    CT__DO(st, ct__init_copy(ctx, t, e));
    ct_tensor_release(e);
    return ct__error_within(ctx, fn, st);
}

ct_status ct_init_dirac_(ct_ctx *ctx, ct_tensor *t, int64_t groups) {
    static const char fn[] = "dirac_";
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if (t->ndim < 3 || t->ndim > 5)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Only tensors with 3, 4, or 5 dimensions are supported", fn);
    if (groups < 1 || t->shape[0] % groups != 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: dim 0 must be divisible by groups (size %lld, groups %lld)", fn,
                             (long long)t->shape[0], (long long)groups);
    const int64_t per = t->shape[0] / groups, m = per < t->shape[1] ? per : t->shape[1];
    for (int k = 2; k < t->ndim && m > 0; k++)
        if (t->shape[k] == 0) /* torch indexes the centre of an empty kernel: IndexError */
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "%s: index 0 is out of bounds for dimension %d with size 0", fn,
                                 k);
    /* from here groups * m <= size(0) and every kernel dim >= 1: at most numel positions */
    /* flat (contiguous) positions of the ones: [g per + d, d, centre...] */
    int64_t centre = 0, inner = 1; /* offset of the centre within one kernel, kernel size */
    for (int k = 2; k < t->ndim; k++) {
        centre = centre * t->shape[k] + t->shape[k] / 2;
        inner *= t->shape[k];
    }
    int64_t n = groups * m;
    int64_t *pos = ct__alloc(ctx, sizeof *pos * (size_t)(n ? n : 1), 16);
    if (!pos)
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory for %lld positions", fn,
                             (long long)n);
    for (int64_t g = 0, k = 0; g < groups; g++)
        for (int64_t d = 0; d < m; d++)
            pos[k++] = ((g * per + d) * t->shape[1] + d) * inner + centre;
    ct_tensor *z = NULL, *flat = NULL, *idx = NULL;
    const int64_t numel = ct_tensor_numel(t);
    st = ct_tensor_zeros(ctx, t->dtype, t->ndim, t->shape, &z);
    CT__DO(st, ct_tensor_view(ctx, z, 1, &numel, &flat));
    CT__DO(st, ct_tensor_from_host(ctx, pos, CT_INT64, 1, &n, &idx));
    CT__DO(st, ct_index_fill_(ctx, flat, 0, idx, 1.0));
    CT__DO(st, ct__init_copy(ctx, t, z));
    ct__free(ctx, pos);
    ct_tensor_release(z), ct_tensor_release(flat), ct_tensor_release(idx);
    return ct__error_within(ctx, fn, st);
}

/* ---- Glorot / He ---- */

static ct_status ct__xavier(ct_ctx *ctx, const char *fn, ct_tensor *t, double gain, bool normal,
                            uint64_t seed, uint64_t offset) {
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    int64_t fi = 0, fo = 0;
    if ((st = ct__fans(ctx, fn, t, &fi, &fo)) != CT_OK) return st;
    if (fi + fo == 0) /* torch: ZeroDivisionError */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: fan_in + fan_out is 0 (shape %s)", fn,
                             CT__SHAPE_STR(t));
    const double std = gain * sqrt(2.0 / (double)(fi + fo)), a = sqrt(3.0) * std;
    if (normal) CT__INIT_NOGRAD(fn, ct_tensor_normal_(ctx, t, 0.0, std, seed, offset));
    CT__INIT_NOGRAD(fn, ct_tensor_uniform_(ctx, t, -a, a, seed, offset));
}
ct_status ct_init_xavier_uniform_(ct_ctx *ctx, ct_tensor *t, double gain, uint64_t seed,
                                  uint64_t offset) {
    return ct__xavier(ctx, "xavier_uniform_", t, gain, false, seed, offset);
}
ct_status ct_init_xavier_normal_(ct_ctx *ctx, ct_tensor *t, double gain, uint64_t seed,
                                 uint64_t offset) {
    return ct__xavier(ctx, "xavier_normal_", t, gain, true, seed, offset);
}

static ct_status ct__kaiming(ct_ctx *ctx, const char *fn, ct_tensor *t, double a, const char *mode,
                             const char *nonlinearity, bool normal, uint64_t seed,
                             uint64_t offset) {
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if (ct_tensor_numel(t) == 0) { /* torch warns and returns */
        ct__log(ctx, CT_LOG_WARN, "%s: Initializing zero-element tensors is a no-op", fn);
        return CT_OK;
    }
    if (!mode) mode = "fan_in";
    if (!nonlinearity) nonlinearity = "leaky_relu";
    char low[16] = {0};
    size_t i = 0;
    for (; mode[i] && i < sizeof low - 1; i++)
        low[i] = (char)tolower((unsigned char)mode[i]);
    const bool in = !mode[i] && !strcmp(low, "fan_in"), out = !mode[i] && !strcmp(low, "fan_out");
    if (!in && !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Mode %.32s not supported, please use one of ['fan_in', "
                             "'fan_out']",
                             fn, mode);
    int64_t fi = 0, fo = 0;
    double gain;
    if ((st = ct__fans(ctx, fn, t, &fi, &fo)) != CT_OK) return st;
    if ((st = ct_init_calculate_gain(ctx, nonlinearity, &a, &gain)) != CT_OK)
        return ct__error_within(ctx, fn, st);
    const double std = gain / sqrt((double)(in ? fi : fo)), bound = sqrt(3.0) * std;
    if (normal) CT__INIT_NOGRAD(fn, ct_tensor_normal_(ctx, t, 0.0, std, seed, offset));
    CT__INIT_NOGRAD(fn, ct_tensor_uniform_(ctx, t, -bound, bound, seed, offset));
}
ct_status ct_init_kaiming_uniform_(ct_ctx *ctx, ct_tensor *t, double a, const char *mode,
                                   const char *nonlinearity, uint64_t seed, uint64_t offset) {
    return ct__kaiming(ctx, "kaiming_uniform_", t, a, mode, nonlinearity, false, seed, offset);
}
ct_status ct_init_kaiming_normal_(ct_ctx *ctx, ct_tensor *t, double a, const char *mode,
                                  const char *nonlinearity, uint64_t seed, uint64_t offset) {
    return ct__kaiming(ctx, "kaiming_normal_", t, a, mode, nonlinearity, true, seed, offset);
}

/* ---- truncated normal ---- */

/* Upper-tail probability Q(x) = P(Z > x), relative accuracy of erfc. */
static double ct__q(double x) { return 0.5 * erfc(x / M_SQRT2); }

/* log Q(x) for x >= 37 on the host: -x^2 / 2 - log(2 pi) / 2 + log of the Mills ratio Q / phi,
 * from its asymptotic series (the first omitted term is below 1e-14 there); inf: -inf. */
static double ct__log_q_tail(double x) {
    if (isinf(x)) return -INFINITY;
    const double r = 1 / (x * x);
    const double mills = (1 - r * (1 - 3 * r * (1 - 5 * r * (1 - 7 * r * (1 - 9 * r))))) / x;
    return -0.5 * x * x - 0.5 * log(2 * M_PI) + log(mills);
}

/* y (f64, u's shape) ~ N(0, 1) restricted to [L, U], 0 <= L < U <= inf, from u in (0, 1): the
 * inverse of Q, y = Q^-1(Q(L) - u (Q(L) - Q(U))), through ndtri of the small tail probability
 * (no cancellation, unlike torch's erfinv(2p - 1)). Beyond L = 37, where Q(L) nears the end of
 * double's range, the same inverse is solved on log Q from the exponential-tail start by Newton's
 * method. */
static ct_status ct__tail_sample(ct_ctx *ctx, const ct_tensor *u, double L, double U,
                                 ct_tensor **y) {
    ct_tensor *x[12] = {NULL};
    ct_status st = CT_OK;
    if (L < 37) {
        const double qa = ct__q(L), qb = ct__q(U);
        CT__DO(st, ct_mul_scalar(ctx, u, -(qa - qb), &x[0]));
        CT__DO(st, ct_add_scalar(ctx, x[0], qa, &x[1]));
        CT__DO(st, ct_special_ndtri(ctx, x[1], &x[2])); /* ndtri(p) = -Q^-1(p) */
        CT__DO(st, ct_neg(ctx, x[2], y));
        ct__release_all(12, x);
        return st;
    }
    const double lqa = ct__log_q_tail(L), lqb = ct__log_q_tail(U);
    const double k = -expm1(lqb - lqa); /* 1 - Q(U) / Q(L) */
    /* target c = log Q(L) + log(1 - u k); start y = L - log(1 - u (1 - e^{-L (U - L)})) / L */
    CT__DO(st, ct_mul_scalar(ctx, u, -k, &x[0]));
    CT__DO(st, ct_log1p(ctx, x[0], &x[1]));
    CT__DO(st, ct_add_scalar(ctx, x[1], lqa, &x[2])); /* c */
    CT__DO(st, ct_mul_scalar(ctx, u, expm1(-L * (U - L)), &x[3]));
    CT__DO(st, ct_log1p(ctx, x[3], &x[4]));
    CT__DO(st, ct_mul_scalar(ctx, x[4], -1.0 / L, &x[5]));
    CT__DO(st, ct_add_scalar(ctx, x[5], L, &x[6])); /* y0 */
    ct_tensor *yk = x[6];
    x[6] = NULL;
    for (int it = 0; it < 4 && st == CT_OK; it++) {
        /* y += (log Q(y) - c) / r, r = phi(y) / Q(y) = -d log Q / dy */
        ct_tensor *s[8] = {NULL}, *next = NULL;
        st = ct_neg(ctx, yk, &s[0]);
        CT__DO(st, ct_special_log_ndtr(ctx, s[0], &s[1])); /* log Q(y) */
        CT__DO(st, ct_sub(ctx, s[1], x[2], &s[2]));
        CT__DO(st, ct_square(ctx, yk, &s[3]));
        CT__DO(st, ct_mul_scalar(ctx, s[3], -0.5, &s[4]));
        CT__DO(st, ct_sub(ctx, s[4], s[1], &s[5]));
        CT__DO(st, ct_add_scalar(ctx, s[5], -0.5 * log(2 * M_PI), &s[6]));
        CT__DO(st, ct_exp(ctx, s[6], &s[7]));
        ct_tensor_release(s[0]), s[0] = NULL;
        CT__DO(st, ct_div(ctx, s[2], s[7], &s[0]));
        CT__DO(st, ct_add(ctx, yk, s[0], &next));
        ct__release_all(8, s);
        ct_tensor_release(yk);
        yk = next;
    }
    ct__release_all(12, x);
    if (st != CT_OK) {
        ct_tensor_release(yk);
        return st;
    }
    *y = yk;
    return CT_OK;
}

ct_status ct_init_trunc_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std, double a,
                                double b, uint64_t seed, uint64_t offset) {
    static const char fn[] = "trunc_normal_";
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if ((st = ct__init_float(ctx, fn, t)) != CT_OK) return st;
    if (!isfinite(mean) || !isfinite(std) || !(std >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expects a finite mean and a finite std >= 0, got mean=%g std=%g",
                             fn, mean, std);
    if (!(a <= b))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects a <= b, got a=%g b=%g", fn, a,
                             b);
    if (a == b || std == 0) /* a point, or the mean clamped into [a, b] */
        return ct_init_constant_(ctx, t, a == b ? a : fmin(fmax(mean, a), b));
    const double al = (a - mean) / std, be = (b - mean) / std;
    /* so far out in a tail (|a'| >= 1e150 standard deviations, or beyond double's range) that
     * the spread above a (below b), std / |a'|, is below a's own rounding: every sample is a (b) */
    if (al >= 1e150) return ct_init_constant_(ctx, t, a);
    if (be <= -1e150) return ct_init_constant_(ctx, t, b);
    ct_tensor *x[8] = {NULL};
    CT__NOGRAD_BEGIN;
    /* u in (0, 1): the grid of ct_tensor_rand shifted by half a step, so no end is hit */
    st = ct_tensor_rand(ctx, CT_FLOAT64, t->ndim, t->shape, seed, offset, &x[0]);
    CT__DO(st, ct_add_scalar(ctx, x[0], 0x1p-54, &x[1]));
    if (al < 0 && be > 0) { /* across the mean: ndtri of p in [P(al), P(be)] */
        const double pa = ct__q(-al), pb = ct__q(-be);
        CT__DO(st, ct_mul_scalar(ctx, x[1], pb - pa, &x[2]));
        CT__DO(st, ct_add_scalar(ctx, x[2], pa, &x[3]));
        CT__DO(st, ct_special_ndtri(ctx, x[3], &x[4]));
    } else if (al >= 0) { /* the upper tail */
        CT__DO(st, ct__tail_sample(ctx, x[1], al, be, &x[4]));
    } else { /* the lower tail, by symmetry */
        CT__DO(st, ct__tail_sample(ctx, x[1], -be, -al, &x[2]));
        CT__DO(st, ct_neg(ctx, x[2], &x[4]));
    }
    CT__DO(st, ct_mul_scalar(ctx, x[4], std, &x[5]));
    CT__DO(st, ct_add_scalar(ctx, x[5], mean, &x[6]));
    if (isinf(a) && isinf(b)) {
        CT__DO(st, ct_tensor_copy_(ctx, t, x[6]));
    } else {
        CT__DO(st, ct_clamp(ctx, x[6], isinf(a) ? NULL : &a, isinf(b) ? NULL : &b, &x[7]));
        CT__DO(st, ct_tensor_copy_(ctx, t, x[7]));
    }
    CT__NOGRAD_END;
    ct__release_all(8, x);
    return ct__error_within(ctx, fn, st);
}

/* ---- orthogonal and sparse ---- */

ct_status ct_init_orthogonal_(ct_ctx *ctx, ct_tensor *t, double gain, uint64_t seed,
                              uint64_t offset) {
    static const char fn[] = "orthogonal_";
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if (t->ndim < 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Only tensors with 2 or more dimensions are supported", fn);
    if ((st = ct__init_float(ctx, fn, t)) != CT_OK) return st;
    const int64_t numel = ct_tensor_numel(t);
    if (numel == 0) return CT_OK;
    const int64_t rows = t->shape[0], cols = numel / rows;
    const bool wide = rows < cols;
    const int64_t shp[2] = {wide ? cols : rows, wide ? rows : cols}; /* tall */
    ct_tensor *x[10] = {NULL};
    CT__NOGRAD_BEGIN;
    /* a tall normal matrix, Q R = it, Q's columns times sign(diag R) */
    st = ct_tensor_randn(ctx, CT_FLOAT64, 2, shp, seed, offset, &x[0]);
    CT__DO(st, ct_linalg_qr(ctx, x[0], &x[1], &x[2]));
    CT__DO(st, ct_diagonal(ctx, x[2], 0, 0, 1, &x[3]));
    CT__DO(st, ct_sign(ctx, x[3], &x[4]));
    CT__DO(st, ct_mul(ctx, x[1], x[4], &x[5]));
    CT__DO(st, ct_mul_scalar(ctx, x[5], gain, &x[6]));
    if (wide) {
        CT__DO(st, ct_tensor_transpose(ctx, x[6], 0, 1, &x[7]));
    } else {
        x[7] = x[6];
        x[6] = NULL;
    }
    CT__DO(st, ct_tensor_reshape(ctx, x[7], t->ndim, t->shape, &x[8]));
    CT__DO(st, ct_tensor_copy_(ctx, t, x[8]));
    CT__NOGRAD_END;
    ct__release_all(10, x);
    return ct__error_within(ctx, fn, st);
}

/* A second stream from seed (splitmix64's finaliser) for draws next to the values of one call. */
static uint64_t ct__substream(uint64_t seed) {
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

ct_status ct_init_sparse_(ct_ctx *ctx, ct_tensor *t, double sparsity, double std, uint64_t seed,
                          uint64_t offset) {
    static const char fn[] = "sparse_";
    ct_status st = ct__init_target(ctx, fn, t);
    if (st != CT_OK) return st;
    if (t->ndim != 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Only tensors with 2 dimensions are supported", fn);
    if ((st = ct__init_float(ctx, fn, t)) != CT_OK) return st;
    if (!(sparsity >= 0 && sparsity <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects sparsity in [0, 1], got %g", fn,
                             sparsity);
    if (!(std >= 0) || !isfinite(std))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects a finite std >= 0.0, got %g", fn,
                             std);
    const int64_t rows = t->shape[0], zeros = (int64_t)ceil(sparsity * (double)rows);
    ct_tensor *x[8] = {NULL};
    CT__NOGRAD_BEGIN;
    /* the values, then the zeros: the rows holding each column's `zeros` smallest keys (a
     * uniformly random subset, as torch's randperm(rows)[:zeros]) */
    st = ct_tensor_randn(ctx, CT_FLOAT64, 2, t->shape, seed, offset, &x[0]);
    CT__DO(st, ct_mul_scalar(ctx, x[0], std, &x[1]));
    if (zeros > 0 && ct_tensor_numel(t) > 0) {
        CT__DO(st,
               ct_tensor_rand(ctx, CT_FLOAT64, 2, t->shape, ct__substream(seed), offset, &x[2]));
        CT__DO(st, ct_argsort(ctx, x[2], 0, false, &x[3]));
        CT__DO(st, ct_argsort(ctx, x[3], 0, false, &x[4])); /* each key's rank in its column */
        CT__DO(st, ct_lt_scalar(ctx, x[4], (double)zeros, &x[7]));
        ct_tensor_release(x[2]), x[2] = NULL;
        CT__DO(st, ct_masked_fill(ctx, x[1], x[7], 0.0, &x[2]));
        CT__DO(st, ct_tensor_copy_(ctx, t, x[2]));
    } else {
        CT__DO(st, ct_tensor_copy_(ctx, t, x[1]));
    }
    CT__NOGRAD_END;
    ct__release_all(8, x);
    return ct__error_within(ctx, fn, st);
}

/* ---- torch.nn.utils ---- */

ct_status ct_parameters_to_vector(ct_ctx *ctx, int n, const ct_tensor *const *params,
                                  ct_tensor **out) {
    static const char fn[] = "parameters_to_vector";
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", fn);
    *out = NULL;
    if (n < 1 || !params)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects n >= 1 parameters, got %d%s", fn,
                             n, params ? "" : " (params is NULL)");
    ct_status st = ct__check_args(ctx, fn, n, params, out);
    if (st != CT_OK) return st;
    ct_tensor **flat = ct__alloc(ctx, sizeof *flat * (size_t)n, 16);
    if (!flat) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", fn);
    memset(flat, 0, sizeof *flat * (size_t)n);
    for (int i = 0; i < n && st == CT_OK; i++) {
        const int64_t m = ct_tensor_numel(params[i]);
        st = ct_tensor_reshape(ctx, params[i], 1, &m, &flat[i]);
    }
    CT__DO(st, ct_cat(ctx, n, (const ct_tensor *const *)flat, 0, out));
    ct__release_all(n, flat);
    ct__free(ctx, flat);
    return ct__error_within(ctx, fn, st);
}

ct_status ct_vector_to_parameters(ct_ctx *ctx, const ct_tensor *vec, int n,
                                  ct_tensor *const *params) {
    static const char fn[] = "vector_to_parameters";
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[1] = {vec};
    ct_status st = ct__check_args(ctx, fn, 1, ins, ins);
    if (st != CT_OK) return st;
    if (n < 0 || (n > 0 && !params))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s", fn,
                             n < 0 ? "n is negative" : "params is NULL");
    if ((st = ct__check_args(ctx, fn, n, (const ct_tensor *const *)params, ins)) != CT_OK)
        return st;
    if (vec->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: vec must be 1-d, got shape %s", fn,
                             CT__SHAPE_STR(vec));
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        if (!ct__checked_add(total, ct_tensor_numel(params[i]), &total))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: the parameter count overflows", fn);
    if (total > vec->shape[0])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: vec has %lld elements, the %d parameters need %lld", fn,
                             (long long)vec->shape[0], n, (long long)total);
    CT__NOGRAD_BEGIN;
    int64_t at = 0;
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *p = params[i];
        const int64_t m = ct_tensor_numel(p);
        ct_tensor *s = NULL, *v = NULL;
        st = ct_tensor_narrow(ctx, vec, 0, at, m, &s);
        CT__DO(st, ct_tensor_reshape(ctx, s, p->ndim, p->shape, &v));
        CT__DO(st, ct_tensor_copy_(ctx, params[i], v));
        ct_tensor_release(s), ct_tensor_release(v);
        at += m;
    }
    CT__NOGRAD_END;
    return ct__error_within(ctx, fn, st);
}

ct_status ct_norm_except_dim(ct_ctx *ctx, const ct_tensor *v, double pow, int dim,
                             ct_tensor **out) {
    static const char fn[] = "norm_except_dim";
    const ct_tensor *ins[1] = {v};
    ct_status st = ct__check_args(ctx, fn, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (dim == -1) /* torch's "no dim": the whole tensor's norm */
        return ct__error_within(ctx, fn, ct_linalg_vector_norm(ctx, v, pow, 0, NULL, false, out));
    int d;
    if (!ct__wrap_dim(dim, v->ndim, &d) || v->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: Dimension out of range (expected to be in range of [%d, %d], "
                             "but got %d)",
                             fn, -(v->ndim ? v->ndim : 1), (v->ndim ? v->ndim : 1) - 1, dim);
    int dims[CT_MAX_DIMS], k = 0;
    for (int i = 0; i < v->ndim; i++)
        if (i != d) dims[k++] = i;
    if (k == 0) { /* 1-d: torch views v as (n, 1) and takes each row's norm: shape (n,) */
        ct_tensor *col = NULL;
        st = ct_tensor_reshape(ctx, v, 2, (const int64_t[]){v->shape[0], 1}, &col);
        CT__DO(st, ct_linalg_vector_norm(ctx, col, pow, 1, (int[]){1}, false, out));
        ct_tensor_release(col);
        return ct__error_within(ctx, fn, st);
    }
    return ct__error_within(ctx, fn, ct_linalg_vector_norm(ctx, v, pow, k, dims, true, out));
}

ct_status ct_weight_norm(ct_ctx *ctx, const ct_tensor *v, const ct_tensor *g, int dim,
                         ct_tensor **out) {
    static const char fn[] = "weight_norm";
    const ct_tensor *ins[2] = {v, g};
    ct_status st = ct__check_args(ctx, fn, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct_tensor *x[4] = {NULL};
    st = ct_norm_except_dim(ctx, v, 2.0, dim, &x[0]);
    if (st == CT_OK && ct_tensor_numel(g) != ct_tensor_numel(x[0]))
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: g has %lld elements, norm_except_dim(v, 2, %d) of v %s has %lld",
                           fn, (long long)ct_tensor_numel(g), dim, CT__SHAPE_STR(v),
                           (long long)ct_tensor_numel(x[0]));
    const ct_tensor *n0 = x[0];
    CT__DO(st, ct_tensor_reshape(ctx, g, n0 ? n0->ndim : 0, n0 ? n0->shape : NULL, &x[1]));
    CT__DO(st, ct_div(ctx, x[1], x[0], &x[2]));
    CT__DO(st, ct_mul(ctx, v, x[2], out));
    ct__release_all(4, x);
    return ct__error_within(ctx, fn, st);
}

/* weight as the (h, w) matrix spectral_norm works on: dim moved to the front, the rest flattened */
static ct_status ct__sn_matrix(ct_ctx *ctx, const char *fn, const ct_tensor *w, int dim,
                               ct_tensor **mat) {
    int d;
    if (w->ndim < 1 || !ct__wrap_dim(dim, w->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d is out of range for weight %s", fn, dim,
                             CT__SHAPE_STR(w));
    int perm[CT_MAX_DIMS], k = 0;
    perm[k++] = d;
    for (int i = 0; i < w->ndim; i++)
        if (i != d) perm[k++] = i;
    ct_tensor *p = NULL;
    const int64_t numel = ct_tensor_numel(w), h = w->shape[d];
    const int64_t shp[2] = {h, h ? numel / h : 0};
    ct_status st = ct_tensor_permute(ctx, w, perm, &p);
    CT__DO(st, ct_tensor_reshape(ctx, p, 2, shp, mat));
    ct_tensor_release(p);
    return st;
}

ct_status ct_spectral_norm_init(ct_ctx *ctx, const ct_tensor *weight, int dim, double eps,
                                uint64_t seed, uint64_t offset, ct_tensor **u, ct_tensor **v) {
    static const char fn[] = "spectral_norm_init";
    const ct_tensor *ins[1] = {weight};
    ct_status st = ct__check_args(ctx, fn, 1, ins, u);
    if (st != CT_OK) return st;
    if (!v) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: v is NULL", fn);
    *u = *v = NULL;
    if ((st = ct__init_float(ctx, fn, weight)) != CT_OK) return st;
    ct_tensor *x[4] = {NULL};
    CT__NOGRAD_BEGIN;
    st = ct__sn_matrix(ctx, fn, weight, dim, &x[0]);
    /* u from (seed, offset), v from the next h counters' worth of the substream */
    CT__DO(st, ct_tensor_randn(ctx, weight->dtype, 1, &x[0]->shape[0], seed, offset, &x[1]));
    CT__DO(st, ct_tensor_randn(ctx, weight->dtype, 1, &x[0]->shape[1], ct__substream(seed), offset,
                               &x[2]));
    CT__DO(st, ct_normalize(ctx, x[1], 2.0, 0, eps, u));
    CT__DO(st, ct_normalize(ctx, x[2], 2.0, 0, eps, v));
    CT__NOGRAD_END;
    ct__release_all(4, x);
    if (st != CT_OK) {
        ct_tensor_release(*u), ct_tensor_release(*v);
        *u = *v = NULL;
    }
    return ct__error_within(ctx, fn, st);
}

ct_status ct_spectral_norm(ct_ctx *ctx, const ct_tensor *weight, ct_tensor *u, ct_tensor *v,
                           int n_power_iterations, int dim, double eps, bool do_power_iteration,
                           ct_tensor **out) {
    static const char fn[] = "spectral_norm";
    const ct_tensor *ins[3] = {weight, u, v};
    ct_status st = ct__check_args(ctx, fn, 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (n_power_iterations < 0) /* torch's constructor refuses <= 0; 0 is eval-like here */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Expected n_power_iterations to be >= 0, but got "
                             "n_power_iterations=%d",
                             fn, n_power_iterations);
    if ((st = ct__init_float(ctx, fn, weight)) != CT_OK) return st;
    ct_tensor *x[6] = {NULL};
    if ((st = ct__sn_matrix(ctx, fn, weight, dim, &x[0])) != CT_OK) return st;
    const int64_t h = x[0]->shape[0], w = x[0]->shape[1];
    if (u->ndim != 1 || u->shape[0] != h || v->ndim != 1 || v->shape[0] != w)
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: weight viewed as (%lld, %lld) needs u (%lld) and v (%lld), got "
                           "u %s and v %s",
                           fn, (long long)h, (long long)w, (long long)h, (long long)w,
                           CT__SHAPE_STR(u), CT__SHAPE_STR(v));
    if (st == CT_OK && do_power_iteration && n_power_iterations > 0) {
        CT__NOGRAD_BEGIN;
        ct_tensor *wd = NULL;
        st = ct_tensor_detach(ctx, x[0], &wd);
        CT__DO(st, ct_tensor_transpose(ctx, wd, 0, 1, &x[1]));
        for (int it = 0; it < n_power_iterations && st == CT_OK; it++) {
            ct_tensor *s[4] = {NULL};
            st = ct_mv(ctx, x[1], u, &s[0]);
            CT__DO(st, ct_normalize(ctx, s[0], 2.0, 0, eps, &s[1]));
            CT__DO(st, ct_tensor_copy_(ctx, v, s[1]));
            CT__DO(st, ct_mv(ctx, wd, v, &s[2]));
            CT__DO(st, ct_normalize(ctx, s[2], 2.0, 0, eps, &s[3]));
            CT__DO(st, ct_tensor_copy_(ctx, u, s[3]));
            ct__release_all(4, s);
        }
        ct_tensor_release(wd);
        CT__NOGRAD_END;
    }
    /* sigma = u . (W v) with u, v constants (clones: later updates of u, v leave this graph
     * alone, as torch's clone) */
    CT__DO(st, ct_tensor_clone(ctx, u, &x[2]));
    CT__DO(st, ct_tensor_clone(ctx, v, &x[3]));
    CT__DO(st, ct_mv(ctx, x[0], x[3], &x[4]));
    CT__DO(st, ct_dot(ctx, x[2], x[4], &x[5]));
    CT__DO(st, ct_div(ctx, weight, x[5], out));
    ct__release_all(6, x);
    return ct__error_within(ctx, fn, st);
}

/* (rm, rv, bn_w, bn_b, conv_b): the per-channel vectors, NULLs replaced by 0 / 1 / 0 */
static ct_status ct__fuse(ct_ctx *ctx, const char *fn, const ct_tensor *cw, const ct_tensor *cb,
                          const ct_tensor *rm, const ct_tensor *rv, double eps, const ct_tensor *bw,
                          const ct_tensor *bb, int axis, ct_tensor **w, ct_tensor **b) {
    const ct_tensor *ins[3] = {cw, rm, rv};
    ct_status st = ct__check_args(ctx, fn, 3, ins, w);
    if (st != CT_OK) return st;
    if (!b) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: b is NULL", fn);
    *w = *b = NULL;
    const ct_tensor *opt[3] = {cb, bw, bb};
    for (int i = 0; i < 3; i++)
        if (opt[i] && (st = ct__check_args(ctx, fn, 1, &opt[i], w)) != CT_OK) return st;
    if (cw->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: the weight must have 2 or more dims, got %s",
                             fn, CT__SHAPE_STR(cw));
    ct_tensor *x[10] = {NULL};
    const int nd = cw->ndim;
    int64_t shp[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        shp[i] = 1;
    shp[axis < 0 ? 0 : axis] = -1;
    /* torch: conv_b = zeros_like(rm), bn_w = ones_like(rm), bn_b = zeros_like(rm) */
    if (!cb) CT__DO(st, ct_tensor_zeros(ctx, rm->dtype, rm->ndim, rm->shape, &x[7]));
    if (!bw) CT__DO(st, ct_tensor_ones(ctx, rm->dtype, rm->ndim, rm->shape, &x[8]));
    if (!bb) CT__DO(st, ct_tensor_zeros(ctx, rm->dtype, rm->ndim, rm->shape, &x[9]));
    if (st != CT_OK) goto done;
    cb = cb ? cb : x[7], bw = bw ? bw : x[8], bb = bb ? bb : x[9];
    if (axis < 0) { /* linear: scale = bn_w * rsqrt(rv + eps); w * scale[:, None] */
        CT__DO(st, ct_add_scalar(ctx, rv, eps, &x[0]));
        CT__DO(st, ct_rsqrt(ctx, x[0], &x[1]));
        CT__DO(st, ct_mul(ctx, bw, x[1], &x[2]));
        CT__DO(st, ct_tensor_reshape(ctx, x[2], 2, (const int64_t[]){-1, 1}, &x[3]));
        CT__DO(st, ct_mul(ctx, cw, x[3], w));
        CT__DO(st, ct_sub(ctx, cb, rm, &x[4]));
        CT__DO(st, ct_mul(ctx, x[4], x[2], &x[5]));
        CT__DO(st, ct_add(ctx, x[5], bb, b));
    } else { /* conv: w * (bn_w * rsqrt(rv + eps)).reshape(shape); (b - rm) * rsqrt * bn_w + bn_b */
        CT__DO(st, ct_add_scalar(ctx, rv, eps, &x[0]));
        CT__DO(st, ct_rsqrt(ctx, x[0], &x[1]));
        CT__DO(st, ct_mul(ctx, bw, x[1], &x[2]));
        CT__DO(st, ct_tensor_reshape(ctx, x[2], nd, shp, &x[3]));
        CT__DO(st, ct_mul(ctx, cw, x[3], w));
        CT__DO(st, ct_sub(ctx, cb, rm, &x[4]));
        CT__DO(st, ct_mul(ctx, x[4], x[1], &x[5]));
        CT__DO(st, ct_mul(ctx, x[5], bw, &x[6]));
        CT__DO(st, ct_add(ctx, x[6], bb, b));
    }
done:
    ct__release_all(10, x);
    if (st != CT_OK) {
        ct_tensor_release(*w), ct_tensor_release(*b);
        *w = *b = NULL;
    }
    return ct__error_within(ctx, fn, st);
}

ct_status ct_fuse_conv_bn_weights(ct_ctx *ctx, const ct_tensor *conv_w, const ct_tensor *conv_b,
                                  const ct_tensor *bn_rm, const ct_tensor *bn_rv, double bn_eps,
                                  const ct_tensor *bn_w, const ct_tensor *bn_b, bool transpose,
                                  ct_tensor **w, ct_tensor **b) {
    return ct__fuse(ctx, "fuse_conv_bn_weights", conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b,
                    transpose ? 1 : 0, w, b);
}
ct_status ct_fuse_linear_bn_weights(ct_ctx *ctx, const ct_tensor *linear_w,
                                    const ct_tensor *linear_b, const ct_tensor *bn_rm,
                                    const ct_tensor *bn_rv, double bn_eps, const ct_tensor *bn_w,
                                    const ct_tensor *bn_b, ct_tensor **w, ct_tensor **b) {
    return ct__fuse(ctx, "fuse_linear_bn_weights", linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w,
                    bn_b, -1, w, b);
}

/* Sampling beyond rand / randn / randint / bernoulli, on ctorch's counter-based generator (every
 * call takes seed and offset; element i draws from (seed, offset + i ...), so results are
 * reproducible and independent of the thread count): torch.normal (tensor or scalar mean / std),
 * randint_like, the in-place fills of Tensor (uniform_, normal_, exponential_, cauchy_,
 * log_normal_, geometric_), torch.poisson (inversion below rate 10, Hoermann's PTRS above),
 * torch.binomial (inversion for a small mean, Hoermann's BTRS otherwise) and torch.multinomial
 * (inverse CDF with replacement; without, the k largest p_i / E_i, E_i exponential, as torch).
 * The streams are not torch's (torch uses mt19937 / Philox with other layouts): the same seed
 * gives other samples; the distributions are the same. docs/everyday.md ("Sampling"). */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* every sample is drawn without autograd (torch's samples carry no gradient to their
 * parameters either) */
#define CT__NOGRAD_BEGIN const bool ct__was_ = ct_set_grad_enabled(ctx, false)
#define CT__NOGRAD_END ct_set_grad_enabled(ctx, ct__was_)

static ct_status ct__float_out(ct_ctx *ctx, const char *op, ct_dtype dt) {
    if (ct_dtype_is_floating(dt) && ct__is_compute_dtype(dt)) return CT_OK;
    return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating point dtype, got %s", op,
                         ct_dtype_name(dt));
}

/* ---- torch.normal ---- */
ct_status ct_normal(ct_ctx *ctx, const ct_tensor *mean, const ct_tensor *std, uint64_t seed,
                    uint64_t offset, ct_tensor **out) {
    const char *op = "normal";
    const ct_tensor *ins[2] = {mean, std};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, op, 2, ins, &dt)) != CT_OK) return st;
    if ((st = ct__float_out(ctx, op, dt)) != CT_OK) return st;
    double lo, hi;
    CT__NOGRAD_BEGIN;
    ct_tensor *t[5] = {NULL};
    st = ct__host_range(ctx, std, &lo, &hi);
    if (st == CT_OK && ct_tensor_numel(std) > 0 && !(lo >= 0))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "normal: expects all elements of std >= 0.0, got a minimum of %g", lo);
    CT__DO(st, ct_add(ctx, mean, std, &t[0])); /* the broadcast shape */
    CT__DO(st, ct_tensor_randn(ctx, dt, t[0]->ndim, t[0]->shape, seed, offset, &t[1]));
    CT__DO(st, ct_mul(ctx, t[1], std, &t[2]));
    CT__DO(st, ct_add(ctx, t[2], mean, &t[3]));
    CT__DO(st, ct_cast(ctx, t[3], dt, out));
    ct__release_all(5, t);
    CT__NOGRAD_END;
    return ct__error_within(ctx, op, st);
}
ct_status ct_normal_scalar(ct_ctx *ctx, double mean, double std, ct_dtype dtype, int ndim,
                           const int64_t *shape, uint64_t seed, uint64_t offset, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "normal: out is NULL");
    *out = NULL;
    if (!(std >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "normal: expects std >= 0.0, got %g", std);
    ct_status st = ct__float_out(ctx, "normal", dtype);
    if (st != CT_OK) return st;
    ct_tensor *z = NULL, *s = NULL;
    CT__NOGRAD_BEGIN;
    st = ct_tensor_randn(ctx, dtype, ndim, shape, seed, offset, &z);
    CT__DO(st, ct_mul_scalar(ctx, z, std, &s));
    CT__DO(st, ct_add_scalar(ctx, s, mean, out));
    ct_tensor_release(z), ct_tensor_release(s);
    CT__NOGRAD_END;
    return ct__error_within(ctx, "normal", st);
}
ct_status ct_randint_like(ct_ctx *ctx, const ct_tensor *a, int64_t low, int64_t high, uint64_t seed,
                          uint64_t offset, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "randint_like", 1, ins, out);
    if (st != CT_OK) return st;
    return ct__error_within(
        ctx, "randint_like",
        ct_tensor_randint(ctx, a->dtype, low, high, a->ndim, a->shape, seed, offset, out));
}

/* ---- in-place fills: t = f(u) with u uniform in [0, 1) (or z standard normal) ---- */
enum { CT__U_UNIFORM, CT__U_NORMAL, CT__U_EXP, CT__U_CAUCHY, CT__U_LOGNORMAL, CT__U_GEOMETRIC };

static ct_status ct__fill_random(ct_ctx *ctx, const char *op, int kind, ct_tensor *t, double a,
                                 double b, uint64_t seed, uint64_t offset) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, ins);
    if (st != CT_OK) return st;
    const bool geo = kind == CT__U_GEOMETRIC;
    if (!geo && (st = ct__float_out(ctx, op, t->dtype)) != CT_OK) return st;
    if (geo && (t->dtype == CT_BOOL || !ct__is_compute_dtype(t->dtype)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a numeric dtype, got %s", op,
                             ct_dtype_name(t->dtype));
    /* torch's parameter checks */
    if (kind == CT__U_UNIFORM && !(a <= b))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expects to return a [from, to) range, but found from=%g > to=%g",
                             op, a, b);
    if (kind == CT__U_UNIFORM && !(b - a <= DBL_MAX))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: to - from overflows (from=%g, to=%g)",
                             op, a, b);
    if (kind == CT__U_NORMAL && !(b >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects std >= 0.0, but found std %g",
                             op, b);
    if (kind == CT__U_LOGNORMAL && !(b > 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects std > 0.0, but found std=%g", op,
                             b);
    if (kind == CT__U_UNIFORM && t->dtype == CT_FLOAT32 && !(b - a <= FLT_MAX))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expects to - from <= the float32 maximum, got from=%g to=%g", op,
                             a, b);
    if (kind == CT__U_EXP && !(a >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expects lambda >= 0.0, but found lambda=%g", op, a);
    if (kind == CT__U_EXP && a == 0) return ct_tensor_fill_(ctx, t, INFINITY); /* as torch */
    if (kind == CT__U_CAUCHY && !isfinite(b)) /* torch 1.13 takes any sigma */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects a finite sigma, got %g", op, b);
    if (geo && !(a > 0 && a < 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects p to be in (0, 1), but got p=%g",
                             op, a);
    ct_tensor *x[6] = {NULL};
    const bool normal = kind == CT__U_NORMAL || kind == CT__U_LOGNORMAL;
    CT__NOGRAD_BEGIN;
    /* drawn and transformed in float64, then converted once to t's dtype */
    st = normal ? ct_tensor_randn(ctx, CT_FLOAT64, t->ndim, t->shape, seed, offset, &x[0])
                : ct_tensor_rand(ctx, CT_FLOAT64, t->ndim, t->shape, seed, offset, &x[0]);
    switch (kind) {
    case CT__U_UNIFORM: /* from + (to - from) u */
        CT__DO(st, ct_mul_scalar(ctx, x[0], b - a, &x[1]));
        CT__DO(st, ct_add_scalar(ctx, x[1], a, &x[2]));
        break;
    case CT__U_NORMAL:
    case CT__U_LOGNORMAL: /* mean + std z (then exp) */
        CT__DO(st, ct_mul_scalar(ctx, x[0], b, &x[1]));
        if (kind == CT__U_NORMAL) {
            CT__DO(st, ct_add_scalar(ctx, x[1], a, &x[2]));
        } else {
            CT__DO(st, ct_add_scalar(ctx, x[1], a, &x[3]));
            CT__DO(st, ct_exp(ctx, x[3], &x[2]));
        }
        break;
    case CT__U_EXP: /* -log(1 - u) / lambda, never inf since u < 1 */
        CT__DO(st, ct_neg(ctx, x[0], &x[1]));
        CT__DO(st, ct_log1p(ctx, x[1], &x[3]));
        CT__DO(st, ct_mul_scalar(ctx, x[3], -1.0 / a, &x[2]));
        break;
    case CT__U_CAUCHY: /* median + sigma tan(pi (u - 1/2)) */
        CT__DO(st, ct_sub_scalar(ctx, x[0], 0.5, &x[1]));
        CT__DO(st, ct_mul_scalar(ctx, x[1], M_PI, &x[3]));
        CT__DO(st, ct_tan(ctx, x[3], &x[4]));
        CT__DO(st, ct_mul_scalar(ctx, x[4], b, &x[5]));
        CT__DO(st, ct_add_scalar(ctx, x[5], a, &x[2]));
        break;
    default: /* geometric: ceil(log(1 - u) / log(1 - p)), at least 1 */
        CT__DO(st, ct_neg(ctx, x[0], &x[1]));
        CT__DO(st, ct_log1p(ctx, x[1], &x[3]));
        CT__DO(st, ct_div_scalar(ctx, x[3], log1p(-a), &x[4]));
        CT__DO(st, ct_ceil(ctx, x[4], &x[5]));
        {
            const double one = 1.0;
            CT__DO(st, ct_clamp(ctx, x[5], &one, NULL, &x[2]));
        }
        break;
    }
    CT__NOGRAD_END;
    CT__DO(st, ct_tensor_copy_(ctx, t, x[2]));
    ct__release_all(6, x);
    return ct__error_within(ctx, op, st);
}
ct_status ct_tensor_uniform_(ct_ctx *ctx, ct_tensor *t, double from, double to, uint64_t seed,
                             uint64_t offset) {
    return ct__fill_random(ctx, "uniform_", CT__U_UNIFORM, t, from, to, seed, offset);
}
ct_status ct_tensor_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std, uint64_t seed,
                            uint64_t offset) {
    return ct__fill_random(ctx, "normal_", CT__U_NORMAL, t, mean, std, seed, offset);
}
ct_status ct_tensor_exponential_(ct_ctx *ctx, ct_tensor *t, double lambd, uint64_t seed,
                                 uint64_t offset) {
    return ct__fill_random(ctx, "exponential_", CT__U_EXP, t, lambd, 0, seed, offset);
}
ct_status ct_tensor_cauchy_(ct_ctx *ctx, ct_tensor *t, double median, double sigma, uint64_t seed,
                            uint64_t offset) {
    return ct__fill_random(ctx, "cauchy_", CT__U_CAUCHY, t, median, sigma, seed, offset);
}
ct_status ct_tensor_log_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std, uint64_t seed,
                                uint64_t offset) {
    return ct__fill_random(ctx, "log_normal_", CT__U_LOGNORMAL, t, mean, std, seed, offset);
}
ct_status ct_tensor_geometric_(ct_ctx *ctx, ct_tensor *t, double p, uint64_t seed,
                               uint64_t offset) {
    return ct__fill_random(ctx, "geometric_", CT__U_GEOMETRIC, t, p, 0, seed, offset);
}

/* ---- host samplers: per element a stream of uniforms (a block of K from one ct_tensor_rand of
 * n K values; a rare refill draws K more at offset + (round n + i) K) ---- */
typedef struct ct__ustream {
    ct_ctx *ctx;
    uint64_t seed, offset;
    int64_t n, K, i;
    const double *block; /* this element's first K */
    double extra[16];
    int pos, round;
    ct_status st;
} ct__ustream;

static double ct__unext(ct__ustream *s) {
    if (s->pos == s->K) { /* refill */
        s->round++;
        ct_tensor *u = NULL;
        const int64_t k = s->K;
        s->st = ct_tensor_rand(s->ctx, CT_FLOAT64, 1, &k, s->seed,
                               s->offset + (uint64_t)((s->round * s->n + s->i) * s->K), &u);
        if (s->st == CT_OK) s->st = ct_tensor_to_host(u, s->extra, sizeof(double) * (size_t)k);
        ct_tensor_release(u);
        if (s->st != CT_OK) return 0.5;
        s->block = s->extra;
        s->pos = 0;
    }
    return s->block[s->pos++];
}

/* Poisson(lam): inversion of the CDF below 10, Hoermann's transformed rejection (PTRS) above */
static double ct__poisson1(ct__ustream *s, double lam) {
    if (lam == 0) return 0;
    if (isinf(lam)) return INFINITY;
    if (lam < 10) {
        const double u = ct__unext(s);
        double p = exp(-lam), cdf = p;
        int64_t k = 0;
        while (u > cdf && k < 1000) {
            k++;
            p *= lam / (double)k;
            if (cdf + p == cdf) break; /* the tail beyond double precision */
            cdf += p;
        }
        return (double)k;
    }
    const double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam,
                 a = -0.059 + 0.02483 * b, invalpha = 1.1239 + 1.1328 / (b - 3.4),
                 vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        const double u = ct__unext(s) - 0.5, v = ct__unext(s), us = 0.5 - fabs(u);
        if (s->st != CT_OK) return 0;
        const double k = floor((2 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) return k;
        if (k < 0 || (us < 0.013 && v > us)) continue;
        if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1))
            return k;
    }
}

/* log(k!) minus Stirling's approximation (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2: exact
 * from lgamma for small k, its asymptotic series beyond */
static double ct__stail(double k) {
    if (k <= 9) return lgamma(k + 1) - ((k + 0.5) * log(k + 1) - (k + 1) + 0.5 * log(2 * M_PI));
    const double k1 = k + 1, k1sq = k1 * k1;
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1sq) / k1sq) / k1;
}

/* Binomial(n, p): inversion while n min(p, q) < 10, Hoermann's BTRS otherwise (by symmetry for
 * p > 1/2) */
static double ct__binomial1(ct__ustream *s, double n, double p) {
    if (isnan(n) || isnan(p)) return NAN;
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n; /* torch returns the count itself */
    n = floor(n);
    const bool flip = p > 0.5;
    const double pp = flip ? 1 - p : p, q = 1 - pp;
    double k;
    if (n * pp < 10) {
        const double u = ct__unext(s), r = pp / q;
        double pmf = exp(n * log1p(-pp)), cdf = pmf;
        k = 0;
        while (u > cdf && k < n) {
            pmf *= r * (n - k) / (k + 1);
            k++;
            if (cdf + pmf == cdf && pmf < 1e-300) break;
            cdf += pmf;
        }
    } else {
        const double spq = sqrt(n * pp * q), b = 1.15 + 2.53 * spq,
                     a = -0.0873 + 0.0248 * b + 0.01 * pp, c = n * pp + 0.5, vr = 0.92 - 4.2 / b,
                     alpha = (2.83 + 5.1 / b) * spq, r = pp / q, m = floor((n + 1) * pp);
        for (;;) {
            const double u = ct__unext(s) - 0.5, v0 = ct__unext(s), us = 0.5 - fabs(u);
            if (s->st != CT_OK) return 0;
            k = floor((2 * a / us + b) * u + c);
            if (k < 0 || k > n) continue;
            if (us >= 0.07 && v0 <= vr) break;
            /* log f(k) / f(m) through Stirling's series with its tails (exact for large n,
             * where lgamma differences have no digits left) */
            const double v = log(v0 * alpha / (a / (us * us) + b));
            const double bound = (m + 0.5) * log((m + 1) / (r * (n - m + 1))) +
                                 (n + 1) * log1p((k - m) / (n - k + 1)) +
                                 (k + 0.5) * log(r * (n - k + 1) / (k + 1)) + ct__stail(m) +
                                 ct__stail(n - m) - ct__stail(k) - ct__stail(n - k);
            if (v <= bound) break;
        }
    }
    return flip ? n - k : k;
}

/* out (x's shape and dtype) = sampler(x[i] (, y[i])) on the host */
static ct_status ct__host_sample(ct_ctx *ctx, const char *op, const ct_tensor *x,
                                 const ct_tensor *y, bool binomial, uint64_t seed, uint64_t offset,
                                 ct_tensor **out) {
    const int64_t n = ct_tensor_numel(x), K = 16;
    double *xv = NULL, *yv = NULL, *u = NULL, *r = NULL;
    ct_tensor *t[4] = {NULL};
    ct_status st = CT_OK;
    CT__NOGRAD_BEGIN;
    if (n > INT64_MAX / K / 4) {
        st = ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: too many elements", op);
        goto done;
    }
    xv = malloc(sizeof(double) * (size_t)(n ? n : 1));
    yv = malloc(sizeof(double) * (size_t)(n ? n : 1));
    r = malloc(sizeof(double) * (size_t)(n ? n : 1));
    u = malloc(sizeof(double) * (size_t)(n ? n * K : 1));
    if (!xv || !yv || !u || !r) {
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory for %lld samples", op, (long long)n);
        goto done;
    }
    st = ct_cast(ctx, x, CT_FLOAT64, &t[0]);
    CT__DO(st, ct_tensor_to_host(t[0], xv, sizeof(double) * (size_t)n));
    if (y) {
        CT__DO(st, ct_cast(ctx, y, CT_FLOAT64, &t[1]));
        CT__DO(st, ct_tensor_to_host(t[1], yv, sizeof(double) * (size_t)n));
    }
    const int64_t nk = n * K;
    if (n > 0) {
        CT__DO(st, ct_tensor_rand(ctx, CT_FLOAT64, 1, &nk, seed, offset, &t[2]));
        CT__DO(st, ct_tensor_to_host(t[2], u, sizeof(double) * (size_t)nk));
    }
    for (int64_t i = 0; i < n && st == CT_OK; i++) {
        if (!binomial && !(xv[i] >= 0)) {
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "%s: invalid Poisson rate %g, expected rate to be non-negative", op,
                               xv[i]);
            break;
        }
        ct__ustream s = {ctx, seed, offset, n, K, i, u + i * K, {0}, 0, 0, CT_OK};
        r[i] = binomial ? ct__binomial1(&s, xv[i], yv[i]) : ct__poisson1(&s, xv[i]);
        st = s.st;
    }
    CT__DO(st, ct_tensor_from_host(ctx, r, CT_FLOAT64, x->ndim, x->shape, &t[3]));
    CT__DO(st, ct_cast(ctx, t[3], x->dtype, out));
done:
    CT__NOGRAD_END;
    free(xv), free(yv), free(u), free(r);
    ct__release_all(4, t);
    return st;
}

ct_status ct_poisson(ct_ctx *ctx, const ct_tensor *rates, uint64_t seed, uint64_t offset,
                     ct_tensor **out) {
    const ct_tensor *ins[1] = {rates};
    ct_status st = ct__check_args(ctx, "poisson", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__float_out(ctx, "poisson", rates->dtype)) != CT_OK) return st;
    return ct__error_within(ctx, "poisson",
                            ct__host_sample(ctx, "poisson", rates, NULL, false, seed, offset, out));
}
ct_status ct_binomial(ct_ctx *ctx, const ct_tensor *count, const ct_tensor *prob, uint64_t seed,
                      uint64_t offset, ct_tensor **out) {
    const ct_tensor *ins[2] = {count, prob};
    ct_status st = ct__check_args(ctx, "binomial", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__float_out(ctx, "binomial", count->dtype)) != CT_OK) return st;
    if (prob->dtype != count->dtype || prob->ndim != count->ndim ||
        memcmp(prob->shape, count->shape, sizeof(int64_t) * (size_t)count->ndim))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "binomial: count %s %s and prob %s %s must have one shape and dtype",
                             ct_dtype_name(count->dtype), CT__SHAPE_STR(count),
                             ct_dtype_name(prob->dtype), CT__SHAPE_STR(prob));
    return ct__error_within(ctx, "binomial",
                            ct__host_sample(ctx, "binomial", count, prob, true, seed, offset, out));
}

/* ---- torch.multinomial ---- */
ct_status ct_multinomial(ct_ctx *ctx, const ct_tensor *probs, int64_t num_samples, bool replacement,
                         uint64_t seed, uint64_t offset, ct_tensor **out) {
    const char *op = "multinomial";
    const ct_tensor *ins[1] = {probs};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct_dtype_is_floating(probs->dtype) || !ct__is_compute_dtype(probs->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: only supports floating-point dtypes for input, got %s", op,
                             ct_dtype_name(probs->dtype));
    if (probs->ndim != 1 && probs->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: prob_dist must be 1 or 2 dim, got %s", op,
                             CT__SHAPE_STR(probs));
    const int64_t C = probs->shape[probs->ndim - 1], R = probs->ndim == 2 ? probs->shape[0] : 1;
    if (C == 0) return ct__set_error(ctx, CT_ERR_SHAPE, "%s: prob_dist has no categories", op);
    if (num_samples <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: cannot sample n_sample <= 0 samples",
                             op);
    if (!replacement && num_samples > C)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: cannot sample n_sample > prob_dist.size(-1) samples without "
                             "replacement",
                             op);
    if (R == 0) /* no rows: an empty (0, num_samples), as torch */
        return ct_tensor_zeros(ctx, CT_INT64, 2, (const int64_t[]){0, num_samples}, out);
    ct_tensor *t[16] = {NULL};
    CT__NOGRAD_BEGIN;
    st = ct_cast(ctx, probs, CT_FLOAT64, &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 2, (const int64_t[]){R, C}, &t[1]));
    /* torch's checks: finite, non-negative, a positive sum per row */
    double lo = 0, hi = 0, smin = 0, dummy = 0;
    CT__DO(st, ct__host_range(ctx, t[1], &lo, &hi));
    if (st == CT_OK && !(lo >= 0 && isfinite(hi)))
        st =
            ct__set_error(ctx, CT_ERR_INVALID_ARG,
                          "%s: probability tensor contains either `inf`, `nan` or element < 0", op);
    const int last = 1;
    CT__DO(st, ct_sum(ctx, t[1], 1, &last, true, &t[2]));
    CT__DO(st, ct__host_range(ctx, t[2], &smin, &dummy));
    if (st == CT_OK && !(smin > 0))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "%s: invalid multinomial distribution (sum of probabilities <= 0)", op);
    if (replacement) { /* u in [0, 1) against the CDF normalised to end at exactly 1 */
        CT__DO(st, ct_cumsum(ctx, t[1], 1, &t[3]));
        CT__DO(st, ct_tensor_narrow(ctx, t[3], 1, C - 1, 1, &t[4]));
        CT__DO(st, ct_div(ctx, t[3], t[4], &t[5]));
        CT__DO(st, ct_tensor_rand(ctx, CT_FLOAT64, 2, (const int64_t[]){R, num_samples}, seed,
                                  offset, &t[6]));
        CT__DO(st, ct_searchsorted(ctx, t[5], t[6], false, true, &t[7]));
        const double top = (double)(C - 1);
        CT__DO(st, ct_clamp(ctx, t[7], NULL, &top, &t[8]));
    } else { /* the num_samples largest p_i / E_i with E_i ~ Exp(1) (torch's algorithm) */
        CT__DO(st,
               ct_tensor_rand(ctx, CT_FLOAT64, 2, (const int64_t[]){R, C}, seed, offset, &t[3]));
        CT__DO(st, ct_neg(ctx, t[3], &t[4]));
        CT__DO(st, ct_log1p(ctx, t[4], &t[5]));
        CT__DO(st, ct_neg(ctx, t[5], &t[11])); /* E = -log(1 - u), kept above 0 (u = 0) */
        const double tiny = DBL_MIN;
        CT__DO(st, ct_clamp(ctx, t[11], &tiny, NULL, &t[6]));
        CT__DO(st, ct_div(ctx, t[1], t[6], &t[7]));
        CT__DO(st, ct_topk(ctx, t[7], num_samples, 1, true, true, &t[9], &t[8]));
    }
    if (probs->ndim == 1) {
        CT__DO(st, ct_tensor_reshape(ctx, t[8], 1, &num_samples, &t[10]));
    } else if (st == CT_OK) {
        t[10] = ct_tensor_retain(t[8]);
    }
    CT__DO(st, ct_cast(ctx, t[10], CT_INT64, out));
    CT__NOGRAD_END;
    ct__release_all(16, t);
    return ct__error_within(ctx, op, st);
}

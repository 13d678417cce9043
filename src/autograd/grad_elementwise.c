/* Backward formulas of the elementwise ops, written with the public ops (so they differentiate
 * again under create_graph). g is the output's gradient; ct__ag_set reduces a broadcast gradient
 * back to the input's shape and dtype. */
#include "autograd/autograd_impl.h"

#include <math.h>

#define G (c->g[0])
#define IN(i) (c->in[i])
#define OUT (c->out[0])
#define DT (c->n->out_meta[0].dtype)

static void bw_add(ct__ag_call *c) {
    ct__ag_set(c, 0, G);
    if (c->need[1]) ct__ag_set(c, 1, c->n->sc[0] == 1 ? G : ct__ag_mul_s(c, G, c->n->sc[0]));
}
static void bw_sub(ct__ag_call *c) {
    ct__ag_set(c, 0, G);
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_mul_s(c, G, -c->n->sc[0]));
}
static void bw_mul(ct__ag_call *c) {
    if (c->need[0]) ct__ag_set(c, 0, ct__ag_mul(c, G, IN(1)));
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_mul(c, G, IN(0)));
}
static void bw_div(ct__ag_call *c) {
    if (c->need[0]) ct__ag_set(c, 0, ct__ag_div(c, G, IN(1)));
    if (c->need[1]) /* -g * ((a / b) / b), torch's order (bit for bit; also finite where b * b
                     * overflows: g (a / b) / (b b) was NaN for a = -inf, b = 1e30 in f32) */
        ct__ag_set(
            c, 1,
            ct__ag_neg(c, ct__ag_mul(c, G, ct__ag_div(c, ct__ag_div(c, IN(0), IN(1)), IN(1)))));
}
static void bw_add_s(ct__ag_call *c) { ct__ag_set(c, 0, G); }
static void bw_mul_s(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul_s(c, G, c->n->sc[0])); }
static void bw_div_s(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_div_s(c, G, c->n->sc[0])); }
static void bw_neg(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_neg(c, G)); }
/* Masks are applied with where (g where cond, else 0) rather than multiplying by a cast mask:
 * fewer passes, and the bool -> float cast is a slow generic kernel. */
static ct_tensor *masked(ct__ag_call *c, const ct_tensor *cond, const ct_tensor *g) {
    return ct__ag_where(c, cond, g, ct__ag_scalar(c, DT, 0));
}
static void bw_abs(ct__ag_call *c) { /* g * sgn(a), as torch: 0 at 0 and NaN for finite g, NaN
                                      * where g is not finite (a select gave 0 there) */
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_apply(c, ct_sign, IN(0))));
}
static void bw_exp(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, OUT)); }
static void bw_log(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_div(c, G, IN(0))); }
static void bw_sqrt(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_div(c, G, ct__ag_mul_s(c, OUT, 2))); }
static void bw_rsqrt(ct__ag_call *c) { /* -0.5 * g * out^3 */
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_mul_s(c, ct__ag_pow(c, OUT, 3), -0.5)));
}
/* tanh and sigmoid in two ops each (g - (g out) out, and go - go out with go = g out): the same
 * value as g (1 - out^2) and g out (1 - out) with the product-sum rounded once */
static void bw_tanh(ct__ag_call *c) { /* g * (1 - out^2) */
    ct__ag_set(c, 0, ct__ag_addcmul(c, G, ct__ag_mul(c, G, OUT), OUT, -1.0));
}
static void bw_sigmoid(ct__ag_call *c) { /* g * out * (1 - out) */
    ct_tensor *go = ct__ag_mul(c, G, OUT);
    ct__ag_set(c, 0, ct__ag_addcmul(c, go, go, OUT, -1.0));
}
/* 0 where the comparison holds, else g: a NaN input keeps its gradient (torch's
 * threshold_backward and hardtanh_backward test "x <= bound", which NaN fails) */
static ct_tensor *zero_where(ct__ag_call *c, const ct_tensor *cond, const ct_tensor *g) {
    return ct__ag_where(c, cond, ct__ag_scalar(c, DT, 0), g);
}
static void bw_relu(ct__ag_call *c) { /* 0 where out <= 0, else g, as threshold_backward */
    ct__ag_set(c, 0, zero_where(c, ct__ag_cmp_s(c, 4, OUT, 0, CT_BOOL), G));
}
static void bw_gelu(ct__ag_call *c) {
    const ct_tensor *x = IN(0);
    ct_tensor *d;
    if (c->n->iv[0] == CT_GELU_TANH) {
        /* k = sqrt(2/pi), u = k (x + 0.044715 x^3), t = tanh(u), s = sigmoid(2u):
         * d = 0.5 (1 + t) + 0.5 x (1 - t^2) u' = s + 2 x s sigmoid(-2u) u', u' = k (1 + 3 0.044715
         * x^2) (0.5 (1 + t) = s and 1 - t^2 = 4 s (1 - s) without the cancellation of 1 + t and 1 -
         * t^2 for x < 0, where the forward avoids it too) */
        const double k = 0.7978845608028654, a = 0.044715;
        ct_tensor *x2 = ct__ag_mul(c, x, x);
        ct_tensor *u2 =
            ct__ag_mul_s(c, ct__ag_add(c, x, ct__ag_mul_s(c, ct__ag_mul(c, x2, x), a)), 2 * k);
        ct_tensor *s = ct__ag_apply(c, ct_sigmoid, u2);
        ct_tensor *sm = ct__ag_apply(c, ct_sigmoid, ct__ag_neg(c, u2));
        ct_tensor *du = ct__ag_mul_s(c, ct__ag_add_s(c, ct__ag_mul_s(c, x2, 3 * a), 1), 2 * k);
        ct_tensor *right = ct__ag_mul(c, ct__ag_mul(c, x, s), ct__ag_mul(c, sm, du));
        d = ct__ag_add(c, s, right);
    } else {
        /* d = Phi(x) + x phi(x), Phi(x) = erfc(-x / sqrt 2) / 2 (no cancellation for x < 0;
         * gelu(x) / x, used before, lost Phi where gelu(x) underflows: subnormal x) */
        ct_tensor *Phi =
            ct__ag_mul_s(c, ct__ag_apply(c, ct_erfc, ct__ag_mul_s(c, x, -0.7071067811865476)), 0.5);
        ct_tensor *phi = ct__ag_mul_s(c, ct__ag_exp(c, ct__ag_mul_s(c, ct__ag_mul(c, x, x), -0.5)),
                                      0.3989422804014327);
        d = ct__ag_add(c, Phi, ct__ag_mul(c, x, phi));
    }
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
static void bw_pow(ct__ag_call *c) { /* g * e * x^(e-1); zero for e == 0 */
    double e = c->n->sc[0];
    if (e == 0) {
        ct__ag_set(c, 0, ct__ag_mul_s(c, G, 0));
        return;
    }
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_mul_s(c, ct__ag_pow(c, IN(0), e - 1), e)));
}
static void bw_clamp(ct__ag_call *c) { /* g where lo <= x <= hi (bounds included, as torch) */
    const ct_tensor *m = G;
    if (c->n->iv[0] & 1) m = masked(c, ct__ag_cmp_s(c, 3, IN(0), c->n->sc[0], CT_BOOL), m);
    if (c->n->iv[0] & 2) m = masked(c, ct__ag_cmp_s(c, 4, IN(0), c->n->sc[1], CT_BOOL), m);
    ct__ag_set(c, 0, m);
}
static void bw_where(ct__ag_call *c) {
    ct_tensor *z = ct__ag_scalar(c, DT, 0);
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_where(c, IN(0), G, z));
    if (c->need[2]) ct__ag_set(c, 2, ct__ag_where(c, IN(0), z, G));
}
/* addcmul / addcdiv in torch's order (derivatives.yaml): the other tensor is scaled by the value
 * first, with torch's type promotion (an integer tensor times the value is f32), then multiplied
 * by g (g t1 v could overflow where g (t1 v) does not) */
static void bw_addcmul(ct__ag_call *c) { /* self + v t1 t2: g (t2 v), g (t1 v) */
    double v = c->n->sc[0];
    ct__ag_set(c, 0, G);
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_mul(c, G, ct__ag_mul_s(c, IN(2), v)));
    if (c->need[2]) ct__ag_set(c, 2, ct__ag_mul(c, G, ct__ag_mul_s(c, IN(1), v)));
}
static void bw_addcdiv(ct__ag_call *c) { /* self + v t1 / t2: g (v / t2), -g (v t1 / (t2 t2)) */
    double v = c->n->sc[0];
    const ct_tensor *t1 = IN(1), *t2 = IN(2);
    ct__ag_set(c, 0, G);
    if (c->need[1]) {
        const ct_dtype sd =
            ct_dtype_is_floating(ct_tensor_dtype(t2)) ? ct_tensor_dtype(t2) : CT_FLOAT32;
        ct__ag_set(c, 1, ct__ag_mul(c, G, ct__ag_div(c, ct__ag_scalar(c, sd, v), t2)));
    }
    if (c->need[2])
        ct__ag_set(
            c, 2,
            ct__ag_neg(
                c, ct__ag_mul(c, G, ct__ag_div(c, ct__ag_mul_s(c, t1, v), ct__ag_mul(c, t2, t2)))));
}
static void bw_cast(ct__ag_call *c) { ct__ag_set(c, 0, G); /* set casts back to the input dtype */ }

/* ---- the everyday elementwise ops ---- */
#define AP(fn, x) ct__ag_apply(c, fn, x)
#define AP2(fn, x, y) ct__ag_apply2(c, fn, x, y)
static void bw_erf(ct__ag_call *c) { /* g 2/sqrt(pi) exp(-x^2) */
    ct_tensor *e = ct__ag_exp(c, ct__ag_neg(c, ct__ag_mul(c, IN(0), IN(0))));
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_mul_s(c, e, 1.1283791670955126)));
}
static void bw_erfc(ct__ag_call *c) {
    ct_tensor *e = ct__ag_exp(c, ct__ag_neg(c, ct__ag_mul(c, IN(0), IN(0))));
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_mul_s(c, e, -1.1283791670955126)));
}
static void bw_sin(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, AP(ct_cos, IN(0)))); }
static void bw_cos(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_neg(c, AP(ct_sin, IN(0)))));
}
static void bw_exp2(ct__ag_call *c) { /* (g out) ln 2, torch's order (bit for bit) */
    ct__ag_set(c, 0, ct__ag_mul_s(c, ct__ag_mul(c, G, OUT), 0.69314718055994531));
}
static void bw_log2(ct__ag_call *c) { /* g / (x ln 2) */
    ct__ag_set(c, 0, ct__ag_div(c, G, ct__ag_mul_s(c, IN(0), 0.69314718055994531)));
}
static void bw_log1p(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_div(c, G, ct__ag_add_s(c, IN(0), 1)));
}
static void bw_expm1(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_add_s(c, OUT, 1)));
}
/* trigonometric and hyperbolic, log10, reciprocal: torch 1.13's formulas and orders */
static void bw_tan(ct__ag_call *c) { /* g (1 + out^2) */
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_add_s(c, ct__ag_mul(c, OUT, OUT), 1)));
}
static void bw_atan(ct__ag_call *c) { /* g / (x^2 + 1) */
    ct__ag_set(c, 0, ct__ag_div(c, G, ct__ag_add_s(c, ct__ag_mul(c, IN(0), IN(0)), 1)));
}
/* g rsqrt(1 - x^2), negated for acos */
static ct_tensor *ct__ag_rsqrt_1mx2(ct__ag_call *c) {
    return ct__ag_rsqrt(c, ct__ag_add_s(c, ct__ag_neg(c, ct__ag_mul(c, IN(0), IN(0))), 1));
}
static void bw_asin(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_rsqrt_1mx2(c))); }
static void bw_acos(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_neg(c, ct__ag_rsqrt_1mx2(c))));
}
static void bw_sinh(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, AP(ct_cosh, IN(0)))); }
static void bw_cosh(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, AP(ct_sinh, IN(0)))); }
static void bw_asinh(ct__ag_call *c) { /* g rsqrt(x^2 + 1) */
    ct__ag_set(c, 0,
               ct__ag_mul(c, G, ct__ag_rsqrt(c, ct__ag_add_s(c, ct__ag_mul(c, IN(0), IN(0)), 1))));
}
static void bw_acosh(ct__ag_call *c) { /* g rsqrt(x^2 - 1) */
    ct__ag_set(c, 0,
               ct__ag_mul(c, G, ct__ag_rsqrt(c, ct__ag_add_s(c, ct__ag_mul(c, IN(0), IN(0)), -1))));
}
static void bw_atanh(ct__ag_call *c) { /* g / (1 - x^2) */
    ct__ag_set(c, 0,
               ct__ag_div(c, G, ct__ag_add_s(c, ct__ag_neg(c, ct__ag_mul(c, IN(0), IN(0))), 1)));
}
static void bw_log10(ct__ag_call *c) { /* g / (x ln 10) */
    ct__ag_set(c, 0, ct__ag_div(c, G, ct__ag_mul_s(c, IN(0), 2.3025850929940456)));
}
static void bw_reciprocal(ct__ag_call *c) { /* -g out^2 */
    ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_neg(c, G), ct__ag_mul(c, OUT, OUT)));
}
static void bw_atan2(ct__ag_call *c) { /* r = 1 / (a^2 + b^2): g b r, g (-a) r */
    const ct_tensor *a = IN(0), *b = IN(1);
    ct_tensor *r = ct__ag_div(c, ct__ag_scalar(c, ct_tensor_dtype(G), 1),
                              ct__ag_add(c, ct__ag_mul(c, a, a), ct__ag_mul(c, b, b)));
    if (c->need[0]) ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_mul(c, G, b), r));
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_mul(c, ct__ag_mul(c, G, ct__ag_neg(c, a)), r));
}
/* hypot, logaddexp(2), xlogy, copysign, fmax / fmin, pow with a tensor exponent, frac, logit,
 * sinc, nan_to_num: torch 1.13's formulas (derivatives.yaml / FunctionsManual) and orders */
static void bw_hypot(ct__ag_call *c) { /* g a / out, g b / out */
    for (int i = 0; i < 2; i++)
        if (c->need[i]) ct__ag_set(c, i, ct__ag_div(c, ct__ag_mul(c, G, IN(i)), OUT));
}
static void bw_logaddexp_any(ct__ag_call *c, ct__ag_unary_fn e) { /* g / (1 + e(b - a)) */
    if (c->need[0])
        ct__ag_set(c, 0, ct__ag_div(c, G, ct__ag_add_s(c, AP(e, ct__ag_sub(c, IN(1), IN(0))), 1)));
    if (c->need[1])
        ct__ag_set(c, 1, ct__ag_div(c, G, ct__ag_add_s(c, AP(e, ct__ag_sub(c, IN(0), IN(1))), 1)));
}
static void bw_logaddexp(ct__ag_call *c) { bw_logaddexp_any(c, ct_exp); }
static void bw_logaddexp2(ct__ag_call *c) { bw_logaddexp_any(c, ct_exp2); }
static void bw_xlogy(ct__ag_call *c) {
    /* a: xlogy(g, b), 0 where a == 0 and b <= 0; b: g a / b */
    if (c->need[0]) {
        ct_tensor *t = AP2(ct_xlogy, G, IN(1));
        ct_tensor *m = AP2(ct_logical_and, ct__ag_cmp_s(c, 0, IN(0), 0, CT_BOOL),
                           ct__ag_cmp_s(c, 4, IN(1), 0, CT_BOOL));
        ct__ag_set(c, 0, zero_where(c, m, t));
    }
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_div(c, ct__ag_mul(c, G, IN(0)), IN(1)));
}
static void bw_copysign(ct__ag_call *c) { /* a: g (out / a), 0 where a == 0; b: zeros */
    if (c->need[0]) {
        ct_tensor *r = ct__ag_div(c, OUT, IN(0));
        ct__ag_set(c, 0, ct__ag_mul(c, G, zero_where(c, ct__ag_cmp_s(c, 0, IN(0), 0, CT_BOOL), r)));
    }
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_zeros(c, &c->n->in_meta[1]));
}
/* fmax / fmin: a takes g where a >= b (a <= b) or b is NaN, b takes it elsewhere */
static void bw_fmaxmin(ct__ag_call *c, ct__ag_binary_fn cmp) {
    ct_tensor *m = AP2(ct_logical_or, AP2(cmp, IN(0), IN(1)), AP(ct_isnan, IN(1)));
    if (c->need[0]) ct__ag_set(c, 0, masked(c, m, G));
    if (c->need[1]) ct__ag_set(c, 1, zero_where(c, m, G));
}
static void bw_fmax(ct__ag_call *c) { bw_fmaxmin(c, ct_ge); }
static void bw_fmin(ct__ag_call *c) { bw_fmaxmin(c, ct_le); }
static void bw_not_implemented(ct__ag_call *c) {
    c->st = ct__set_error(c->ctx, CT_ERR_UNSUPPORTED,
                          "the derivative for 'heaviside' is not implemented (as torch)");
}
static void bw_pow_t(ct__ag_call *c) {
    const ct_tensor *x = IN(0), *e = IN(1);
    /* x: g (e x^(e-1)), 0 where e == 0 */
    if (c->need[0]) {
        ct_tensor *d = ct__ag_mul(c, e, AP2(ct_pow_tensor, x, ct__ag_add_s(c, e, -1)));
        ct__ag_set(c, 0, zero_where(c, ct__ag_cmp_s(c, 0, e, 0, CT_BOOL), ct__ag_mul(c, G, d)));
    }
    /* e: g (out log x), 0 where x == 0 and e >= 0 */
    if (c->need[1]) {
        ct_tensor *m = AP2(ct_logical_and, ct__ag_cmp_s(c, 0, x, 0, CT_BOOL),
                           ct__ag_cmp_s(c, 3, e, 0, CT_BOOL));
        ct_tensor *l = ct__ag_mul(c, OUT, AP(ct_log, x));
        ct__ag_set(c, 1, ct__ag_mul(c, G, zero_where(c, m, l)));
    }
}
static void bw_frac(ct__ag_call *c) { ct__ag_set(c, 0, G); }
static void bw_logit(ct__ag_call *c) {
    /* g / (x (1 - x)) where eps <= x <= 1 - eps, else 0 (without eps: where 0 <= x <= 1, else
     * NaN), as torch's vectorised logit_backward and its formula under create_graph: a NaN x
     * gives 0 with eps, and 1 / -0 is -inf. Torch's scalar loop, which runs on rows shorter than
     * two vectors (16 f32 / 8 f64 elements) and on their tails, answers +inf at -0 and NaN for a
     * NaN x with eps (docs/fidelity.md). */
    const ct_tensor *x = IN(0);
    const double eps = c->n->sc[0];
    ct_tensor *d = ct__ag_div(c, G, ct__ag_mul(c, x, ct__ag_add_s(c, ct__ag_neg(c, x), 1)));
    const double lo = eps < 0 ? 0 : eps, hi = eps < 0 ? 1 : 1 - eps;
    ct_tensor *in =
        AP2(ct_logical_and, ct__ag_cmp_s(c, 3, x, lo, CT_BOOL), ct__ag_cmp_s(c, 4, x, hi, CT_BOOL));
    ct__ag_set(c, 0, ct__ag_where(c, in, d, ct__ag_scalar(c, DT, eps < 0 ? NAN : 0)));
}
static void bw_sinc(ct__ag_call *c) {
    /* g (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 == 0 */
    const double pi = 3.14159265358979323846;
    const ct_tensor *x = IN(0);
    ct_tensor *xp = ct__ag_mul_s(c, x, pi);
    ct_tensor *x2p = ct__ag_mul_s(c, ct__ag_mul(c, x, x), pi);
    ct_tensor *num = ct__ag_sub(c, ct__ag_mul(c, xp, AP(ct_cos, xp)), AP(ct_sin, xp));
    ct_tensor *d = ct__ag_div(c, ct__ag_mul(c, G, num), x2p);
    ct__ag_set(c, 0, zero_where(c, ct__ag_cmp_s(c, 0, x2p, 0, CT_BOOL), d));
}
static void bw_nan_to_num(ct__ag_call *c) { /* g * isfinite(x) */
    ct__ag_set(c, 0, ct__ag_mul(c, G, AP(ct_isfinite, IN(0))));
}
/* special functions: torch 1.13's formulas and orders (derivatives.yaml, FunctionsManual) */
static void bw_lgamma(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, AP(ct_digamma, IN(0)))); }
static ct_tensor *polygamma_of(ct__ag_call *c, int64_t n, const ct_tensor *x) {
    ct_tensor *r = NULL;
    if (c->st == CT_OK) {
        ct_status st = ct_polygamma(c->ctx, n, x, &r);
        r = ct__ag_keep(c, st, r);
    }
    return r;
}
static void bw_digamma(ct__ag_call *c) { /* g psi'(x) */
    ct__ag_set(c, 0, ct__ag_mul(c, G, polygamma_of(c, 1, IN(0))));
}
static void bw_polygamma(ct__ag_call *c) { /* g psi^(n+1)(x) */
    ct__ag_set(c, 0, ct__ag_mul(c, G, polygamma_of(c, (int64_t)c->n->sc[0] + 1, IN(0))));
}
static void bw_erfinv(ct__ag_call *c) { /* sqrt(pi)/2 exp(out^2) g */
    ct_tensor *e = ct__ag_exp(c, ct__ag_mul(c, OUT, OUT));
    ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_mul_s(c, e, 0.88622692545275801365), G));
}
static void bw_i0(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_mul(c, G, AP(ct_special_i1, IN(0)))); }
static void bw_i0e(ct__ag_call *c) { /* g (i1e(x) - sgn(x) out) */
    ct_tensor *d = ct__ag_sub(c, AP(ct_special_i1e, IN(0)), ct__ag_mul(c, AP(ct_sign, IN(0)), OUT));
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
/* i1 / i1e: x replaced by the dtype's epsilon where |x| <= eps, the gradient 0.5 there */
static void bw_i1_any(ct__ag_call *c, bool scaled) {
    const ct_tensor *x = IN(0);
    const double eps = DT == CT_FLOAT64    ? 0x1p-52
                       : DT == CT_FLOAT16  ? 0x1p-10
                       : DT == CT_BFLOAT16 ? 0x1p-7
                                           : 0x1p-23; /* std::numeric_limits<T>::epsilon() */
    ct_tensor *big = ct__ag_cmp_s(c, 1, AP(ct_abs, x), eps, CT_BOOL);
    ct_tensor *safe = ct__ag_where(c, big, x, ct__ag_scalar(c, DT, eps));
    ct_tensor *rec = AP(ct_reciprocal, safe);
    ct_tensor *d;
    if (scaled)
        d = ct__ag_sub(c, AP(ct_special_i0e, safe),
                       ct__ag_mul(c, OUT, ct__ag_add(c, AP(ct_sign, safe), rec)));
    else
        d = ct__ag_sub(c, AP(ct_i0, safe), ct__ag_mul(c, OUT, rec));
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_where(c, big, d, ct__ag_scalar(c, DT, 0.5))));
}
static void bw_i1(ct__ag_call *c) { bw_i1_any(c, false); }
static void bw_i1e(ct__ag_call *c) { bw_i1_any(c, true); }
static void bw_ndtr(ct__ag_call *c) {
    /* through torch's composite (1 + erf(x sqrt(1/2))) * 0.5: g 0.5, erf's
     * 2/sqrt(pi) exp(-t^2) with t = x sqrt(1/2) rounded in the dtype, then sqrt(1/2) */
    const double r2 = 0.70710678118654752440;
    ct_tensor *t = ct__ag_mul_s(c, IN(0), r2);
    ct_tensor *e = ct__ag_exp(c, ct__ag_neg(c, ct__ag_mul(c, t, t)));
    ct_tensor *g1 = ct__ag_mul_s(c, G, 0.5);
    ct_tensor *g2 = ct__ag_mul(c, ct__ag_mul_s(c, e, 1.1283791670955126), g1);
    ct__ag_set(c, 0, ct__ag_mul_s(c, g2, r2));
}
static void bw_ndtri(ct__ag_call *c) { /* g sqrt(2 pi) exp(out^2 / 2) */
    ct_tensor *e = ct__ag_exp(c, ct__ag_div_s(c, ct__ag_mul(c, OUT, OUT), 2));
    ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_mul_s(c, G, 2.5066282746310002), e));
}
static void bw_log_ndtr(ct__ag_call *c) { /* g / sqrt(2 pi) exp(-(out + x^2 / 2)) */
    ct_tensor *s = ct__ag_add(c, OUT, ct__ag_div_s(c, ct__ag_mul(c, IN(0), IN(0)), 2));
    ct_tensor *e = ct__ag_exp(c, ct__ag_neg(c, s));
    ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_div_s(c, G, 2.5066282746310002), e));
}
static void bw_erfcx(ct__ag_call *c) { /* (2 x out - 2/sqrt(pi)) g */
    ct_tensor *d =
        ct__ag_add_s(c, ct__ag_mul(c, ct__ag_mul_s(c, IN(0), 2), OUT), -1.1283791670955126);
    ct__ag_set(c, 0, ct__ag_mul(c, d, G));
}
static void bw_entr(ct__ag_call *c) { /* g (-(1 + log x)) */
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_neg(c, ct__ag_add_s(c, AP(ct_log, IN(0)), 1))));
}
static void bw_xlog1py(ct__ag_call *c) {
    /* a: xlog1py(g, b), 0 where a == 0 and b <= -1; b: g a / (b + 1) */
    if (c->need[0]) {
        ct_tensor *t = AP2(ct_special_xlog1py, G, IN(1));
        ct_tensor *m = AP2(ct_logical_and, ct__ag_cmp_s(c, 0, IN(0), 0, CT_BOOL),
                           ct__ag_cmp_s(c, 4, IN(1), -1, CT_BOOL));
        ct__ag_set(c, 0, zero_where(c, m, t));
    }
    if (c->need[1])
        ct__ag_set(c, 1, ct__ag_div(c, ct__ag_mul(c, G, IN(0)), ct__ag_add_s(c, IN(1), 1)));
}
static void bw_nextafter(ct__ag_call *c) {
    c->st = ct__set_error(c->ctx, CT_ERR_UNSUPPORTED,
                          "the derivative for 'nextafter' is not implemented (as torch)");
}
/* zeta(x, q): d/dq = -x zeta(x + 1, q); d/dx is not implemented (torch) */
static void bw_zeta(ct__ag_call *c) {
    if (c->need[0]) {
        c->st = ct__set_error(c->ctx, CT_ERR_UNSUPPORTED,
                              "the derivative for 'special_zeta' with respect to x (self) is not "
                              "implemented (as torch)");
        return;
    }
    ct_tensor *z = AP2(ct_special_zeta, ct__ag_add_s(c, IN(0), 1), IN(1));
    ct__ag_set(c, 1, ct__ag_mul(c, G, ct__ag_mul(c, ct__ag_neg(c, IN(0)), z)));
}
/* gammainc(a, x) / gammaincc: d/dx = +- exp((a - 1) log x - x - lgamma(a)); d/da not implemented */
static void bw_igamma_any(ct__ag_call *c, bool upper) {
    if (c->need[0]) {
        c->st = ct__set_error(c->ctx, CT_ERR_UNSUPPORTED,
                              "the derivative for '%s' with respect to a (self) is not implemented "
                              "(as torch)",
                              upper ? "igammac" : "igamma");
        return;
    }
    const ct_tensor *a = IN(0), *x = IN(1);
    ct_tensor *e = ct__ag_sub(c, ct__ag_mul(c, ct__ag_add_s(c, a, -1), AP(ct_log, x)), x);
    ct_tensor *d = ct__ag_exp(c, ct__ag_sub(c, e, AP(ct_lgamma, a)));
    ct_tensor *g = ct__ag_mul(c, G, d);
    ct__ag_set(c, 1, upper ? ct__ag_neg(c, g) : g);
}
static void bw_igamma(ct__ag_call *c) { bw_igamma_any(c, false); }
static void bw_igammac(ct__ag_call *c) { bw_igamma_any(c, true); }
/* Bessel derivatives (torch 1.13 has none): J0' = -J1, J1' = J0 - J1 / x (1/2 at 0), Y0' = -Y1,
 * Y1' = Y0 - Y1 / x, K0' = -K1, K1' = -K0 - K1 / x, (e^x K0)' = e^x K0 - e^x K1,
 * (e^x K1)' = e^x K1 - e^x K0 - e^x K1 / x, j0' = (cos x - j0) / x (0 at 0) */
static void bw_bessel_j0(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_neg(c, AP(ct_special_bessel_j1, IN(0)))));
}
static void bw_bessel_y0(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_neg(c, AP(ct_special_bessel_y1, IN(0)))));
}
static void bw_bessel_k0(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_neg(c, AP(ct_special_modified_bessel_k1, IN(0)))));
}
static void bw_bessel_k0e(ct__ag_call *c) {
    ct_tensor *d = ct__ag_sub(c, OUT, AP(ct_special_scaled_modified_bessel_k1, IN(0)));
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
/* first - out / x (the order-1 recurrences), with `at0` where x == 0 */
static void bw_bessel_1(ct__ag_call *c, ct__ag_unary_fn first, double sign, double at0) {
    const ct_tensor *x = IN(0);
    ct_tensor *zero = ct__ag_cmp_s(c, 0, x, 0, CT_BOOL);
    ct_tensor *safe = ct__ag_where(c, zero, ct__ag_scalar(c, DT, 1), x);
    ct_tensor *d = ct__ag_sub(c, ct__ag_mul_s(c, AP(first, x), sign), ct__ag_div(c, OUT, safe));
    d = ct__ag_where(c, zero, ct__ag_scalar(c, DT, at0), d);
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
static void bw_bessel_j1(ct__ag_call *c) { bw_bessel_1(c, ct_special_bessel_j0, 1, 0.5); }
static void bw_bessel_y1(ct__ag_call *c) { bw_bessel_1(c, ct_special_bessel_y0, 1, NAN); }
static void bw_bessel_k1(ct__ag_call *c) { bw_bessel_1(c, ct_special_modified_bessel_k0, -1, NAN); }
static void bw_bessel_k1e(ct__ag_call *c) {
    const ct_tensor *x = IN(0);
    ct_tensor *d = ct__ag_sub(c, OUT, AP(ct_special_scaled_modified_bessel_k0, x));
    d = ct__ag_sub(c, d, ct__ag_div(c, OUT, x));
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
static void bw_spherical_j0(ct__ag_call *c) {
    /* (cos x - j0) / x, which cancels near 0: there the series -x/3 + x^3/30 - x^5/840 + x^7/45360
     * - x^9/3991680 + x^11/518918400 (|x| < 1/4) */
    const ct_tensor *x = IN(0);
    ct_tensor *small = ct__ag_cmp_s(c, 2, AP(ct_abs, x), 0.25, CT_BOOL);
    ct_tensor *safe = ct__ag_where(c, small, ct__ag_scalar(c, DT, 1), x);
    ct_tensor *d = ct__ag_div(c, ct__ag_sub(c, AP(ct_cos, x), OUT), safe);
    static const double k[6] = {-1.0 / 3,      1.0 / 30,       -1.0 / 840,
                                1.0 / 45360.0, -1.0 / 3991680, 1.0 / 518918400};
    ct_tensor *x2 = ct__ag_mul(c, x, x), *p = ct__ag_scalar(c, DT, k[5]);
    for (int i = 4; i >= 0; i--)
        p = ct__ag_add_s(c, ct__ag_mul(c, p, x2), k[i]);
    ct_tensor *ser = ct__ag_mul(c, p, x);
    ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_where(c, small, ser, d)));
}
/* Orthogonal polynomials f(x, n) (torch 1.13 records no gradient for them): d/dn is 0 (the degree
 * is truncated to an integer); d/dx by the classical derivatives where one call gives it, with m
 * the degree as the forward truncates it (0 for NaN, inf, |n| >= 2^63): T_m' = m U_m-1,
 * T*_m' = 2 m U*_m-1, H_m' = 2 m H_m-1, He_m' = m He_m-1 (a negative m gives m f_m-1 = 0, as the
 * forward's 0). */
static void bw_poly_any(ct__ag_call *c, ct__ag_binary_fn lower, double scale) {
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_zeros(c, &c->n->in_meta[1]));
    if (!c->need[0]) return;
    const ct_tensor *x = IN(0), *n = IN(1);
    ct_tensor *m = AP(ct_trunc, n);
    m = ct__ag_where(c, ct__ag_cmp_s(c, 2, AP(ct_abs, m), 0x1p63, CT_BOOL), m,
                     ct__ag_scalar(c, n->dtype, 0));
    ct_tensor *d = ct__ag_mul(c, m, AP2(lower, x, ct__ag_add_s(c, m, -1)));
    ct__ag_set(c, 0, ct__ag_mul(c, G, scale == 1 ? d : ct__ag_mul_s(c, d, scale)));
}
static void bw_chebyshev_t(ct__ag_call *c) { bw_poly_any(c, ct_special_chebyshev_polynomial_u, 1); }
static void bw_shifted_chebyshev_t(ct__ag_call *c) {
    bw_poly_any(c, ct_special_shifted_chebyshev_polynomial_u, 2);
}
static void bw_hermite_h(ct__ag_call *c) { bw_poly_any(c, ct_special_hermite_polynomial_h, 2); }
static void bw_hermite_he(ct__ag_call *c) { bw_poly_any(c, ct_special_hermite_polynomial_he, 1); }
/* The other kinds by their classical derivatives, with the degree k as the forward truncates it
 * (a negative k has derivative 0, as the forward's 0); the forms that divide by y^2 - 1 (or y)
 * take their limits at the end points:
 *   U_k' = ((k + 1) T_k+1 - y U_k) / (y^2 - 1),     U_k'(+-1) = (+-1)^(k+1) k (k + 1) (k + 2) / 3
 *   V_k = U_k - U_k-1, W_k = U_k + U_k-1,            shifted: f*(x) = f(2 x - 1), so 2 f'(2 x - 1)
 *   P_k' = k (y P_k - P_k-1) / (y^2 - 1),            P_k'(+-1) = (+-1)^(k-1) k (k + 1) / 2
 *   L_k' = k (L_k - L_k-1) / y,                       L_k'(0) = -k
 * Near the end points the quotients lose digits to cancellation (about half of them within
 * 1e-8 of +-1 in float64). Airy Ai fails with CT_ERR_UNSUPPORTED when d/dx is needed. */
static ct_tensor *poly_deg(ct__ag_call *c, const ct_tensor *n) {
    ct_tensor *m = AP(ct_trunc, n);
    m = ct__ag_where(c, ct__ag_cmp_s(c, 2, AP(ct_abs, m), 0x1p63, CT_BOOL), m,
                     ct__ag_scalar(c, n->dtype, 0));
    return ct__ag_cast(c, m, DT);
}
/* (-1)^k for integral k (in the float dtype) */
static ct_tensor *poly_alt(ct__ag_call *c, const ct_tensor *k) {
    ct_tensor *h = AP(ct_floor, ct__ag_mul_s(c, k, 0.5));
    ct_tensor *par = ct__ag_sub(c, k, ct__ag_mul_s(c, h, 2));
    return ct__ag_add_s(c, ct__ag_mul_s(c, par, -2), 1);
}
/* q = num / den where den != 0, else lim; then 0 where k < 0 */
static ct_tensor *poly_quot(ct__ag_call *c, const ct_tensor *k, const ct_tensor *num,
                            const ct_tensor *den, const ct_tensor *at_end, const ct_tensor *lim) {
    ct_tensor *safe = ct__ag_where(c, at_end, ct__ag_scalar(c, DT, 1), den);
    ct_tensor *q = ct__ag_where(c, at_end, lim, ct__ag_div(c, num, safe));
    return ct__ag_where(c, ct__ag_cmp_s(c, 2, k, 0, CT_BOOL), ct__ag_scalar(c, DT, 0), q);
}
static ct_tensor *poly_du(ct__ag_call *c, const ct_tensor *y, const ct_tensor *k) {
    ct_tensor *k1 = ct__ag_add_s(c, k, 1);
    ct_tensor *num = ct__ag_sub(c, ct__ag_mul(c, k1, AP2(ct_special_chebyshev_polynomial_t, y, k1)),
                                ct__ag_mul(c, y, AP2(ct_special_chebyshev_polynomial_u, y, k)));
    ct_tensor *den = ct__ag_add_s(c, ct__ag_mul(c, y, y), -1);
    ct_tensor *end = ct__ag_cmp_s(c, 0, AP(ct_abs, y), 1, CT_BOOL);
    ct_tensor *sgn = ct__ag_where(c, ct__ag_cmp_s(c, 1, y, 0, CT_BOOL), ct__ag_scalar(c, DT, 1),
                                  poly_alt(c, k1));
    ct_tensor *lim = ct__ag_mul(c, ct__ag_mul(c, ct__ag_mul(c, k, k1), ct__ag_add_s(c, k, 2)),
                                ct__ag_mul_s(c, sgn, 1.0 / 3));
    return poly_quot(c, k, num, den, end, lim);
}
/* kind: 0 U, 1 V, 2 W; shifted: at 2 x - 1, times 2 */
static void bw_cheb_uvw(ct__ag_call *c, int kind, bool shifted) {
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_zeros(c, &c->n->in_meta[1]));
    if (!c->need[0]) return;
    const ct_tensor *x = IN(0);
    ct_tensor *k = poly_deg(c, IN(1));
    ct_tensor *y = shifted ? ct__ag_add_s(c, ct__ag_mul_s(c, x, 2), -1) : (ct_tensor *)x;
    ct_tensor *d = poly_du(c, y, k);
    if (kind) {
        ct_tensor *d1 = poly_du(c, y, ct__ag_add_s(c, k, -1));
        d = kind == 1 ? ct__ag_sub(c, d, d1) : ct__ag_add(c, d, d1);
        /* V_k, W_k of a negative k are 0, whatever U_k - U_k-1 would give */
        d = ct__ag_where(c, ct__ag_cmp_s(c, 2, k, 0, CT_BOOL), ct__ag_scalar(c, DT, 0), d);
    }
    if (shifted) d = ct__ag_mul_s(c, d, 2);
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
static void bw_chebyshev_polynomial_u(ct__ag_call *c) { bw_cheb_uvw(c, 0, false); }
static void bw_chebyshev_polynomial_v(ct__ag_call *c) { bw_cheb_uvw(c, 1, false); }
static void bw_chebyshev_polynomial_w(ct__ag_call *c) { bw_cheb_uvw(c, 2, false); }
static void bw_shifted_chebyshev_polynomial_u(ct__ag_call *c) { bw_cheb_uvw(c, 0, true); }
static void bw_shifted_chebyshev_polynomial_v(ct__ag_call *c) { bw_cheb_uvw(c, 1, true); }
static void bw_shifted_chebyshev_polynomial_w(ct__ag_call *c) { bw_cheb_uvw(c, 2, true); }
static void bw_legendre_polynomial_p(ct__ag_call *c) {
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_zeros(c, &c->n->in_meta[1]));
    if (!c->need[0]) return;
    const ct_tensor *y = IN(0);
    ct_tensor *k = poly_deg(c, IN(1)), *km1 = ct__ag_add_s(c, k, -1);
    ct_tensor *num =
        ct__ag_mul(c, k,
                   ct__ag_sub(c, ct__ag_mul(c, y, AP2(ct_special_legendre_polynomial_p, y, k)),
                              AP2(ct_special_legendre_polynomial_p, y, km1)));
    ct_tensor *den = ct__ag_add_s(c, ct__ag_mul(c, y, y), -1);
    ct_tensor *end = ct__ag_cmp_s(c, 0, AP(ct_abs, y), 1, CT_BOOL);
    ct_tensor *sgn = ct__ag_where(c, ct__ag_cmp_s(c, 1, y, 0, CT_BOOL), ct__ag_scalar(c, DT, 1),
                                  poly_alt(c, km1));
    ct_tensor *lim =
        ct__ag_mul(c, ct__ag_mul(c, k, ct__ag_add_s(c, k, 1)), ct__ag_mul_s(c, sgn, 0.5));
    ct__ag_set(c, 0, ct__ag_mul(c, G, poly_quot(c, k, num, den, end, lim)));
}
static void bw_laguerre_polynomial_l(ct__ag_call *c) {
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_zeros(c, &c->n->in_meta[1]));
    if (!c->need[0]) return;
    const ct_tensor *y = IN(0);
    ct_tensor *k = poly_deg(c, IN(1));
    ct_tensor *num = ct__ag_mul(
        c, k, ct__ag_sub(c, OUT, AP2(ct_special_laguerre_polynomial_l, y, ct__ag_add_s(c, k, -1))));
    ct_tensor *end = ct__ag_cmp_s(c, 0, y, 0, CT_BOOL);
    ct__ag_set(c, 0, ct__ag_mul(c, G, poly_quot(c, k, num, y, end, ct__ag_neg(c, k))));
}
static void bw_airy_ai(ct__ag_call *c) {
    if (c->need[0])
        c->st = ct__set_error(c->ctx, CT_ERR_UNSUPPORTED,
                              "the derivative of special_airy_ai is not implemented (torch 1.13 "
                              "does not differentiate it either)");
}
/* floor, ceil, round, trunc, sign, rounded division: zeros like each input (torch's formula,
 * zeros_like, so an infinite or NaN incoming gradient still gives 0) */
static void bw_zero(ct__ag_call *c) {
    for (int i = 0; i < c->n->n_in; i++)
        if (c->need[i]) ct__ag_set(c, i, ct__ag_zeros(c, &c->n->in_meta[i]));
}
static void bw_silu(ct__ag_call *c) { /* (g s) (1 + x (1 - s)), s = sigmoid(x): torch's order */
    ct_tensor *s = AP(ct_sigmoid, IN(0));
    ct_tensor *t = ct__ag_add_s(c, ct__ag_mul(c, IN(0), ct__ag_add_s(c, ct__ag_neg(c, s), 1)), 1);
    ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_mul(c, G, s), t));
}
/* g sigmoid(beta x), g where beta x > threshold; at beta x == threshold the sigmoid's argument
 * is the constant threshold, so the second derivative there is 0 (torch's double backward masks
 * beta x < threshold) */
static void bw_softplus(ct__ag_call *c) {
    const double beta = c->n->sc[0], thr = c->n->sc[1];
    ct_tensor *bx = ct__ag_mul_s(c, IN(0), beta);
    ct_tensor *arg =
        ct__ag_where(c, ct__ag_cmp_s(c, 0, bx, thr, CT_BOOL), ct__ag_scalar(c, DT, thr), bx);
    ct_tensor *d = ct__ag_mul(c, G, AP(ct_sigmoid, arg));
    ct__ag_set(c, 0, ct__ag_where(c, ct__ag_cmp_s(c, 1, bx, thr, CT_BOOL), G, d));
}
static void bw_mish(ct__ag_call *c) { /* t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)) */
    ct_tensor *r = NULL;
    if (c->st == CT_OK) {
        ct_status st = ct_softplus(c->ctx, IN(0), 1, 20, &r);
        r = ct__ag_keep(c, st, r);
    }
    ct_tensor *t = ct__ag_tanh(c, r);
    ct_tensor *sech2 = ct__ag_add_s(c, ct__ag_neg(c, ct__ag_mul(c, t, t)), 1);
    ct_tensor *d =
        ct__ag_add(c, t, ct__ag_mul(c, ct__ag_mul(c, IN(0), AP(ct_sigmoid, IN(0))), sech2));
    ct__ag_set(c, 0, ct__ag_mul(c, G, d));
}
static void bw_leaky_relu(ct__ag_call *c) { /* g where x > 0, else slope g */
    ct__ag_set(
        c, 0,
        ct__ag_where(c, ct__ag_cmp_s(c, 1, IN(0), 0, CT_BOOL), G, ct__ag_mul_s(c, G, c->n->sc[0])));
}
/* g alpha exp(x) where x <= 0, else g (NaN: g, as torch); exp's argument is x where x < 0 and
 * the constant 0 elsewhere, so the second derivative is 0 at x == 0 (torch's double backward
 * masks x < 0) and exp never overflows for a large x */
static void bw_elu(ct__ag_call *c) {
    ct_tensor *xe =
        ct__ag_where(c, ct__ag_cmp_s(c, 2, IN(0), 0, CT_BOOL), IN(0), ct__ag_scalar(c, DT, 0));
    ct_tensor *d = ct__ag_mul(c, G, ct__ag_mul_s(c, ct__ag_exp(c, xe), c->n->sc[0]));
    ct__ag_set(c, 0, ct__ag_where(c, ct__ag_cmp_s(c, 4, IN(0), 0, CT_BOOL), d, G));
}
static void bw_hardtanh(ct__ag_call *c) { /* 0 where x <= min or x >= max, else g (as torch) */
    const ct_tensor *m = zero_where(c, ct__ag_cmp_s(c, 4, IN(0), c->n->sc[0], CT_BOOL), G);
    ct__ag_set(c, 0, zero_where(c, ct__ag_cmp_s(c, 3, IN(0), c->n->sc[1], CT_BOOL), m));
}
/* maximum / minimum: the gradient goes to the larger (smaller) input, halved between equal ones
 * (torch's formula; a NaN pair sends it to both) */
static void bw_maxmin(ct__ag_call *c, bool is_max) {
    ct_tensor *eq = ct__ag_eq(c, IN(0), IN(1));
    ct_tensor *gq = ct__ag_where(c, eq, ct__ag_mul_s(c, G, 0.5), G);
    ct_tensor *z = ct__ag_scalar(c, DT, 0);
    ct_tensor *a_lose = AP2(is_max ? ct_lt : ct_gt, IN(0), IN(1));
    ct_tensor *b_lose = AP2(is_max ? ct_gt : ct_lt, IN(0), IN(1));
    if (c->need[0]) ct__ag_set(c, 0, ct__ag_where(c, a_lose, z, gq));
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_where(c, b_lose, z, gq));
}
static void bw_maximum(ct__ag_call *c) { bw_maxmin(c, true); }
static void bw_minimum(ct__ag_call *c) { bw_maxmin(c, false); }
/* torch's floor division (div(a, b, rounding_mode="floor"), its div_floor_floating), which
 * remainder's gradient uses: q = (a - fmod(a, b)) / b, less 1 where the remainder's sign differs
 * from b's, rounded to the nearest integer; 0 with the sign of a / b where q is 0; a / b where
 * b == 0. It differs from floor(a / b) where a / b rounds across an integer and where a is
 * infinite (NaN). */
static ct_tensor *floor_div_torch(ct__ag_call *c, const ct_tensor *a0, const ct_tensor *b0) {
    const ct_dtype dt = DT; /* the remainder's (floating) dtype: bool or integer operands too */
    const ct_tensor *a = ct_tensor_dtype(a0) == dt ? a0 : ct__ag_cast(c, a0, dt);
    const ct_tensor *b = ct_tensor_dtype(b0) == dt ? b0 : ct__ag_cast(c, b0, dt);
    ct_tensor *mod = AP2(ct_fmod, a, b);
    ct_tensor *div = ct__ag_div(c, ct__ag_sub(c, a, mod), b);
    ct_tensor *mnz = AP(ct_logical_not, ct__ag_cmp_s(c, 0, mod, 0, CT_BOOL));
    ct_tensor *flip =
        AP2(ct_logical_xor, ct__ag_cmp_s(c, 2, b, 0, CT_BOOL), ct__ag_cmp_s(c, 2, mod, 0, CT_BOOL));
    div = ct__ag_sub(c, div, ct__ag_cast(c, AP2(ct_logical_and, mnz, flip), dt));
    ct_tensor *fl = AP(ct_floor, div);
    fl = ct__ag_add(c, fl, ct__ag_cmp_s(c, 1, ct__ag_sub(c, div, fl), 0.5, dt));
    ct_tensor *q = ct__ag_div(c, a, b);
    ct_tensor *r =
        ct__ag_where(c, ct__ag_cmp_s(c, 0, div, 0, CT_BOOL), ct__ag_mul_s(c, q, 0.0), fl);
    return ct__ag_where(c, ct__ag_cmp_s(c, 0, b, 0, CT_BOOL), q, r);
}
/* remainder: a - b floordiv(a, b); fmod: a - b trunc(a / b). The scalar forms have one input. */
static void bw_remfmod(ct__ag_call *c, bool rem) {
    ct__ag_set(c, 0, G);
    if (c->n->n_in < 2 || !c->need[1]) return;
    ct_tensor *q =
        rem ? floor_div_torch(c, IN(0), IN(1)) : AP(ct_trunc, ct__ag_div(c, IN(0), IN(1)));
    ct__ag_set(c, 1, ct__ag_neg(c, ct__ag_mul(c, G, q)));
}
static void bw_remainder(ct__ag_call *c) { bw_remfmod(c, true); }
static void bw_fmod(ct__ag_call *c) { bw_remfmod(c, false); }
static void bw_lerp(ct__ag_call *c) { /* start: g (1 - w), end: g w, weight: g (end - start) */
    const ct_tensor *w = IN(2);
    if (c->need[0]) ct__ag_set(c, 0, ct__ag_mul(c, G, ct__ag_add_s(c, ct__ag_neg(c, w), 1)));
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_mul(c, G, w));
    if (c->need[2]) ct__ag_set(c, 2, ct__ag_mul(c, G, ct__ag_sub(c, IN(1), IN(0))));
}
static void bw_lerp_s(ct__ag_call *c) {
    const double w = c->n->sc[0];
    if (c->need[0]) ct__ag_set(c, 0, ct__ag_mul_s(c, G, 1 - w));
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_mul_s(c, G, w));
}

#define F(op, name, fn, si, so)                                                                    \
    case op: {                                                                                     \
        static const ct__ag_formula f = {name, fn, si, so};                                        \
        return &f;                                                                                 \
    }
const ct__ag_formula *ct__ag_formula_elementwise(int op) {
    switch (op) {
        F(CT__AG_ADD, "AddBackward", bw_add, 0, 0)
        F(CT__AG_SUB, "SubBackward", bw_sub, 0, 0)
        F(CT__AG_MUL, "MulBackward", bw_mul, 3, 0)
        F(CT__AG_DIV, "DivBackward", bw_div, 3, 0)
        F(CT__AG_ADD_S, "AddBackward", bw_add_s, 0, 0)
        F(CT__AG_SUB_S, "SubBackward", bw_add_s, 0, 0)
        F(CT__AG_MUL_S, "MulBackward", bw_mul_s, CT__AG_SAVES_SCALAR, 0)
        F(CT__AG_DIV_S, "DivBackward", bw_div_s, CT__AG_SAVES_SCALAR, 0)
        F(CT__AG_NEG, "NegBackward", bw_neg, 0, 0)
        F(CT__AG_ABS, "AbsBackward", bw_abs, 1, 0)
        F(CT__AG_EXP, "ExpBackward", bw_exp, 0, 1)
        F(CT__AG_LOG, "LogBackward", bw_log, 1, 0)
        F(CT__AG_SQRT, "SqrtBackward", bw_sqrt, 0, 1)
        F(CT__AG_RSQRT, "RsqrtBackward", bw_rsqrt, 0, 1)
        F(CT__AG_TANH, "TanhBackward", bw_tanh, 0, 1)
        F(CT__AG_SIGMOID, "SigmoidBackward", bw_sigmoid, 0, 1)
        F(CT__AG_RELU, "ReluBackward", bw_relu, 0, 1)
        F(CT__AG_GELU, "GeluBackward", bw_gelu, 1, 1)
        F(CT__AG_POW, "PowBackward", bw_pow, 1, 0)
        F(CT__AG_CLAMP, "ClampBackward", bw_clamp, 1, 0)
        F(CT__AG_WHERE, "WhereBackward", bw_where, 1, 0)
        F(CT__AG_ADDCMUL, "AddcmulBackward", bw_addcmul, 6, 0)
        F(CT__AG_ADDCDIV, "AddcdivBackward", bw_addcdiv, 6, 0)
        F(CT__AG_CAST, "ToCopyBackward", bw_cast, 0, 0)
        F(CT__AG_ERF, "ErfBackward", bw_erf, 1, 0)
        F(CT__AG_ERFC, "ErfcBackward", bw_erfc, 1, 0)
        F(CT__AG_SIN, "SinBackward", bw_sin, 1, 0)
        F(CT__AG_COS, "CosBackward", bw_cos, 1, 0)
        F(CT__AG_EXP2, "Exp2Backward", bw_exp2, 0, 1)
        F(CT__AG_LOG2, "Log2Backward", bw_log2, 1, 0)
        F(CT__AG_LOG1P, "Log1PBackward", bw_log1p, 1, 0)
        F(CT__AG_EXPM1, "Expm1Backward", bw_expm1, 0, 1)
        F(CT__AG_TAN, "TanBackward", bw_tan, 0, 1)
        F(CT__AG_ATAN, "AtanBackward", bw_atan, 1, 0)
        F(CT__AG_ASIN, "AsinBackward", bw_asin, 1, 0)
        F(CT__AG_ACOS, "AcosBackward", bw_acos, 1, 0)
        F(CT__AG_SINH, "SinhBackward", bw_sinh, 1, 0)
        F(CT__AG_COSH, "CoshBackward", bw_cosh, 1, 0)
        F(CT__AG_ASINH, "AsinhBackward", bw_asinh, 1, 0)
        F(CT__AG_ACOSH, "AcoshBackward", bw_acosh, 1, 0)
        F(CT__AG_ATANH, "AtanhBackward", bw_atanh, 1, 0)
        F(CT__AG_LOG10, "Log10Backward", bw_log10, 1, 0)
        F(CT__AG_RECIPROCAL, "ReciprocalBackward", bw_reciprocal, 0, 1)
        F(CT__AG_ATAN2, "Atan2Backward", bw_atan2, 3, 0)
        F(CT__AG_HYPOT, "HypotBackward", bw_hypot, 3, 1)
        F(CT__AG_LOGADDEXP, "LogaddexpBackward", bw_logaddexp, 3, 0)
        F(CT__AG_LOGADDEXP2, "Logaddexp2Backward", bw_logaddexp2, 3, 0)
        F(CT__AG_XLOGY, "XlogyBackward", bw_xlogy, 3, 0)
        F(CT__AG_COPYSIGN, "CopysignBackward", bw_copysign, 1, 1)
        F(CT__AG_FMAX, "FmaxBackward", bw_fmax, 3, 0)
        F(CT__AG_FMIN, "FminBackward", bw_fmin, 3, 0)
        F(CT__AG_NOT_IMPLEMENTED, "NotImplemented", bw_not_implemented, 0, 0)
        F(CT__AG_POW_T, "PowBackward", bw_pow_t, 3, 1)
        F(CT__AG_FRAC, "FracBackward", bw_frac, 0, 0)
        F(CT__AG_LOGIT, "LogitBackward", bw_logit, 1, 0)
        F(CT__AG_SINC, "SincBackward", bw_sinc, 1, 0)
        F(CT__AG_NAN_TO_NUM, "NanToNumBackward", bw_nan_to_num, 1, 0)
        F(CT__AG_LGAMMA, "LgammaBackward", bw_lgamma, 1, 0)
        F(CT__AG_DIGAMMA, "DigammaBackward", bw_digamma, 1, 0)
        F(CT__AG_POLYGAMMA, "PolygammaBackward", bw_polygamma, 1, 0)
        F(CT__AG_ERFINV, "ErfinvBackward", bw_erfinv, 0, 1)
        F(CT__AG_I0, "I0Backward", bw_i0, 1, 0)
        F(CT__AG_I0E, "SpecialI0EBackward", bw_i0e, 1, 1)
        F(CT__AG_I1, "SpecialI1Backward", bw_i1, 1, 1)
        F(CT__AG_I1E, "SpecialI1EBackward", bw_i1e, 1, 1)
        F(CT__AG_NDTR, "MulBackward", bw_ndtr, 1, 0)
        F(CT__AG_NDTRI, "SpecialNdtriBackward", bw_ndtri, 0, 1)
        F(CT__AG_LOG_NDTR, "SpecialLogNdtrBackward", bw_log_ndtr, 1, 1)
        F(CT__AG_ERFCX, "SpecialErfcxBackward", bw_erfcx, 1, 1)
        F(CT__AG_ENTR, "SpecialEntrBackward", bw_entr, 1, 0)
        F(CT__AG_XLOG1PY, "SpecialXlog1PyBackward", bw_xlog1py, 3, 0)
        F(CT__AG_NEXTAFTER, "NextafterBackward", bw_nextafter, 0, 0)
        F(CT__AG_ZETA, "SpecialZetaBackward", bw_zeta, 3, 0)
        F(CT__AG_IGAMMA, "IgammaBackward", bw_igamma, 3, 0)
        F(CT__AG_IGAMMAC, "IgammacBackward", bw_igammac, 3, 0)
        F(CT__AG_BESSEL_J0, "SpecialBesselJ0Backward", bw_bessel_j0, 1, 0)
        F(CT__AG_BESSEL_J1, "SpecialBesselJ1Backward", bw_bessel_j1, 1, 1)
        F(CT__AG_BESSEL_Y0, "SpecialBesselY0Backward", bw_bessel_y0, 1, 0)
        F(CT__AG_BESSEL_Y1, "SpecialBesselY1Backward", bw_bessel_y1, 1, 1)
        F(CT__AG_BESSEL_K0, "SpecialModifiedBesselK0Backward", bw_bessel_k0, 1, 0)
        F(CT__AG_BESSEL_K1, "SpecialModifiedBesselK1Backward", bw_bessel_k1, 1, 1)
        F(CT__AG_BESSEL_K0E, "SpecialScaledModifiedBesselK0Backward", bw_bessel_k0e, 1, 1)
        F(CT__AG_BESSEL_K1E, "SpecialScaledModifiedBesselK1Backward", bw_bessel_k1e, 1, 1)
        F(CT__AG_SPHERICAL_J0, "SpecialSphericalBesselJ0Backward", bw_spherical_j0, 1, 1)
        F(CT__AG_CHEBYSHEV_T, "SpecialChebyshevPolynomialTBackward", bw_chebyshev_t, 3, 0)
        F(CT__AG_CHEBYSHEV_U, "SpecialChebyshevPolynomialUBackward", bw_chebyshev_polynomial_u, 3,
          0)
        F(CT__AG_CHEBYSHEV_V, "SpecialChebyshevPolynomialVBackward", bw_chebyshev_polynomial_v, 3,
          0)
        F(CT__AG_CHEBYSHEV_W, "SpecialChebyshevPolynomialWBackward", bw_chebyshev_polynomial_w, 3,
          0)
        F(CT__AG_SHIFTED_CHEBYSHEV_T, "SpecialShiftedChebyshevPolynomialTBackward",
          bw_shifted_chebyshev_t, 3, 0)
        F(CT__AG_SHIFTED_CHEBYSHEV_U, "SpecialShiftedChebyshevPolynomialUBackward",
          bw_shifted_chebyshev_polynomial_u, 3, 0)
        F(CT__AG_SHIFTED_CHEBYSHEV_V, "SpecialShiftedChebyshevPolynomialVBackward",
          bw_shifted_chebyshev_polynomial_v, 3, 0)
        F(CT__AG_SHIFTED_CHEBYSHEV_W, "SpecialShiftedChebyshevPolynomialWBackward",
          bw_shifted_chebyshev_polynomial_w, 3, 0)
        F(CT__AG_HERMITE_H, "SpecialHermitePolynomialHBackward", bw_hermite_h, 3, 0)
        F(CT__AG_HERMITE_HE, "SpecialHermitePolynomialHeBackward", bw_hermite_he, 3, 0)
        F(CT__AG_LAGUERRE_L, "SpecialLaguerrePolynomialLBackward", bw_laguerre_polynomial_l, 3, 1)
        F(CT__AG_LEGENDRE_P, "SpecialLegendrePolynomialPBackward", bw_legendre_polynomial_p, 3, 0)
        F(CT__AG_AIRY_AI, "SpecialAiryAiBackward", bw_airy_ai, 0, 0)
        F(CT__AG_ZERO, "ZeroGradBackward", bw_zero, 0, 0)
        F(CT__AG_SILU, "SiluBackward", bw_silu, 1, 0)
        F(CT__AG_SOFTPLUS, "SoftplusBackward", bw_softplus, 1, 0)
        F(CT__AG_MISH, "MishBackward", bw_mish, 1, 0)
        F(CT__AG_LEAKY_RELU, "LeakyReluBackward", bw_leaky_relu, 1, 0)
        F(CT__AG_ELU, "EluBackward", bw_elu, 1, 0)
        F(CT__AG_HARDTANH, "HardtanhBackward", bw_hardtanh, 1, 0)
        F(CT__AG_MAXIMUM, "MaximumBackward", bw_maximum, 3, 0)
        F(CT__AG_MINIMUM, "MinimumBackward", bw_minimum, 3, 0)
        F(CT__AG_REMAINDER, "RemainderBackward", bw_remainder, 3, 0)
        F(CT__AG_FMOD, "FmodBackward", bw_fmod, 3, 0)
        F(CT__AG_LERP, "LerpBackward", bw_lerp, 7, 0)
        F(CT__AG_LERP_S, "LerpBackward", bw_lerp_s, 0, 0)
    default: return NULL;
    }
}

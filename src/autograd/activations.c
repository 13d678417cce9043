/* The activations torch.nn.functional has beyond the elementwise ops: compositions of recorded ops
 * in torch 1.13's forms (the same rounding), arranged so their gradients are torch's at the kinks
 * too (where() over open or closed intervals as torch's backward kernels test them), and named
 * as torch's one node. */
#include "autograd/autograd_impl.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <string.h>

/* floating x; relu6, threshold, softsign and tanhshrink take integers too, as torch (the first two
 * keep the dtype, the others compute in float32 through their ops) */
static ct_status ct__act_args(ct_ctx *ctx, const char *op, const ct_tensor *x, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_args(ctx, op, 1, &x, out);
    if (st != CT_OK) return st;
    const bool ints_ok = !strcmp(op, "relu6") || !strcmp(op, "threshold") ||
                         !strcmp(op, "softsign") || !strcmp(op, "tanhshrink");
    if (!ct_dtype_is_floating(x->dtype) && !(ints_ok && x->dtype != CT_BOOL))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(x->dtype));
    return CT_OK;
}

/* where(m, a, b) = m ? a : b with a and b the results of two steps; consumes m, a, b */
static ct_status ct__sel(ct_ctx *ctx, ct_status st, ct_tensor *m, ct_tensor *a, ct_tensor *b,
                         ct_tensor **out) {
    if (st == CT_OK) st = ct_where(ctx, m, a, b, out);
    ct_tensor_release(m), ct_tensor_release(a), ct_tensor_release(b);
    return st;
}

/* a 0-d constant of x's dtype */
static ct_status ct__const(ct_ctx *ctx, const ct_tensor *x, double v, ct_tensor **out) {
    return ct_tensor_full(ctx, x->dtype, 0, NULL, v, out);
}

/* Runs body and names the result's node `node` (NULL: the composition's own name). */
#define CT__ACT(op, node, body)                                                                    \
    do {                                                                                           \
        uint64_t mark_ = ct__ag_mark(ctx);                                                         \
        ct_status st_ = ct__act_args(ctx, op, x, out);                                             \
        if (st_ == CT_OK) st_ = (body);                                                            \
        st_ = ct__error_within(ctx, op, st_);                                                      \
        return (node) ? ct__ag_named(ctx, st_, out, mark_, (node)) : st_;                          \
    } while (0)

/* hardsigmoid: min(max(x + 3, 0), 6) / 6; gradient 1/6 on the open interval (-3, 3) only */
static ct_status ct__hardsigmoid(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    const double lo = 0, hi = 6;
    ct_tensor *a = NULL, *c = NULL, *v = NULL, *in = NULL, *gt = NULL, *lt = NULL, *m = NULL;
    ct_tensor *vc = NULL;
    ct_status st = ct_add_scalar(ctx, x, 3, &a);
    if (st == CT_OK) st = ct_div_scalar(ctx, a, 6, &in); /* inside: no clamp */
    bool was = ct_set_grad_enabled(ctx, false);
    if (st == CT_OK) st = ct_clamp(ctx, a, &lo, &hi, &c);
    if (st == CT_OK) st = ct_div_scalar(ctx, c, 6, &v);
    if (st == CT_OK) st = ct_gt_scalar(ctx, x, -3, &gt);
    if (st == CT_OK) st = ct_lt_scalar(ctx, x, 3, &lt);
    if (st == CT_OK) st = ct_logical_and(ctx, gt, lt, &m);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK) st = ct_tensor_detach(ctx, v, &vc);
    ct_tensor_release(a), ct_tensor_release(c), ct_tensor_release(v);
    ct_tensor_release(gt), ct_tensor_release(lt);
    return ct__sel(ctx, st, m, in, vc, out);
}
ct_status ct_hardsigmoid(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("hardsigmoid", "HardsigmoidBackward0", ct__hardsigmoid(ctx, x, out));
}

/* hardswish: x min(max(x + 3, 0), 6) / 6 (torch's order); the closed clamp's gradient gives
 * torch's x / 3 + 1/2 on [-3, 3] */
static ct_status ct__hardswish(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    const double lo = 0, hi = 6;
    ct_tensor *a = NULL, *c = NULL, *p = NULL;
    ct_status st = ct_add_scalar(ctx, x, 3, &a);
    if (st == CT_OK) st = ct_clamp(ctx, a, &lo, &hi, &c);
    if (st == CT_OK) st = ct_mul(ctx, x, c, &p);
    if (st == CT_OK) st = ct_div_scalar(ctx, p, 6, out);
    ct_tensor_release(a), ct_tensor_release(c), ct_tensor_release(p);
    return st;
}
ct_status ct_hardswish(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("hardswish", "HardswishBackward0", ct__hardswish(ctx, x, out));
}

/* logsigmoid: min(x, 0) - log1p(exp(-|x|)) (torch's kernel); minimum splits the gradient at 0 */
static ct_status ct__logsigmoid(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    ct_tensor *z = NULL, *m = NULL, *ax = NULL, *na = NULL, *e = NULL, *l = NULL;
    ct_status st = ct__const(ctx, x, 0, &z);
    if (st == CT_OK) st = ct_minimum(ctx, x, z, &m);
    if (st == CT_OK) st = ct_abs(ctx, x, &ax);
    if (st == CT_OK) st = ct_neg(ctx, ax, &na);
    if (st == CT_OK) st = ct_exp(ctx, na, &e);
    if (st == CT_OK) st = ct_log1p(ctx, e, &l);
    const ct_tensor *xs[1] = {x};
    if (st == CT_OK && !ct__ag_wants(ctx, 1, xs)) {
        st = ct_sub(ctx, m, l, out);
    } else if (st == CT_OK) {
        /* under autograd, x = 0 takes -log1p(exp(-x)) (the same value, -log 2): |x| and the
         * minimum have no curvature at 0, this form has torch's second derivative -1/4 */
        /* the other branch reads x only where it is 0 (elsewhere 0 too), so its exp never
         * overflows into a 0 * inf = NaN gradient */
        ct_tensor *r = NULL, *nx = NULL, *e2 = NULL, *l2 = NULL, *s2 = NULL, *at0 = NULL;
        ct_tensor *nz = NULL, *x0 = NULL;
        st = ct_sub(ctx, m, l, &r);
        if (st == CT_OK) st = ct_eq_scalar(ctx, x, 0, &at0);
        if (st == CT_OK) st = ct_logical_not(ctx, at0, &nz);
        if (st == CT_OK) st = ct_masked_fill(ctx, x, nz, 0, &x0);
        if (st == CT_OK) st = ct_neg(ctx, x0, &nx);
        if (st == CT_OK) st = ct_exp(ctx, nx, &e2);
        if (st == CT_OK) st = ct_log1p(ctx, e2, &l2);
        if (st == CT_OK) st = ct_neg(ctx, l2, &s2);
        if (st == CT_OK) st = ct_where(ctx, at0, s2, r, out);
        ct_tensor *rel[] = {r, nx, e2, l2, s2, at0, nz, x0};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
            ct_tensor_release(rel[i]);
    }
    ct_tensor_release(z), ct_tensor_release(m), ct_tensor_release(ax);
    ct_tensor_release(na), ct_tensor_release(e), ct_tensor_release(l);
    return st;
}
ct_status ct_logsigmoid(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("logsigmoid", "LogSigmoidBackward0", ct__logsigmoid(ctx, x, out));
}

/* softsign: x / (|x| + 1) (torch's composition: DivBackward0) */
static ct_status ct__softsign(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    ct_tensor *a = NULL, *d = NULL;
    ct_status st = ct_abs(ctx, x, &a);
    if (st == CT_OK) st = ct_add_scalar(ctx, a, 1, &d);
    if (st == CT_OK) st = ct_div(ctx, x, d, out);
    ct_tensor_release(a), ct_tensor_release(d);
    return st;
}
ct_status ct_softsign(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("softsign", NULL, ct__softsign(ctx, x, out));
}

/* selu: scale elu(x, alpha), elu's own node (its backward g alpha exp(x), accurate where
 * 1 + expm1(x) would cancel); celu: x > 0 ? x : alpha elu(min(x, 0) / alpha, 1), the unselected
 * branch evaluated at min(x, 0) so a large x never overflows it into a NaN gradient */
#define CT__SELU_ALPHA 1.6732632423543772848170429916717
#define CT__SELU_SCALE 1.0507009873554804934193349852946
static ct_status ct__selu(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    ct_tensor *e = NULL;
    ct_status st = ct_elu(ctx, x, CT__SELU_ALPHA, &e);
    if (st == CT_OK) st = ct_mul_scalar(ctx, e, CT__SELU_SCALE, out);
    ct_tensor_release(e);
    return st;
}
ct_status ct_selu(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("selu", "EluBackward0", ct__selu(ctx, x, out));
}
static ct_status ct__celu(ct_ctx *ctx, const ct_tensor *x, double alpha, ct_tensor **out) {
    if (alpha == 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "celu: ZeroDivisionError (alpha is 0)");
    /* torch's elu kernel with input_scale 1 / alpha: x > 0 ? x : alpha expm1(x / alpha), for
     * either sign of alpha (expm1 of x / alpha > 0 when alpha < 0); x's non-positive part
     * through masked_fill so a NaN reaches the expm1 branch and its gradient; x = 0 takes the
     * identity branch (the same value and slope; second derivative 0 there, as torch's double
     * backward) */
    ct_tensor *m = NULL, *xm = NULL, *xs = NULL, *e = NULL, *n = NULL;
    ct_status st = ct_ge_scalar(ctx, x, 0, &m);
    if (st == CT_OK) st = ct_masked_fill(ctx, x, m, 0, &xm);
    if (st == CT_OK) st = ct_div_scalar(ctx, xm, alpha, &xs);
    if (st == CT_OK) st = ct_expm1(ctx, xs, &e);
    if (st == CT_OK) st = ct_mul_scalar(ctx, e, alpha, &n);
    ct_tensor_release(xm), ct_tensor_release(xs), ct_tensor_release(e);
    return ct__sel(ctx, st, m, ct_tensor_retain((ct_tensor *)x), n, out);
}
ct_status ct_celu(ct_ctx *ctx, const ct_tensor *x, double alpha, ct_tensor **out) {
    CT__ACT("celu", "CeluBackward0", ct__celu(ctx, x, alpha, out));
}

ct_status ct_relu6(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("relu6", NULL, ct_hardtanh(ctx, x, 0, 6, out)); /* torch: hardtanh(0, 6) */
}

/* glu: a sigmoid(b), a and b the halves of dim */
static ct_status ct__glu(ct_ctx *ctx, const ct_tensor *x, int dim, ct_tensor **out) {
    const int d = dim < 0 ? dim + x->ndim : dim;
    if (x->ndim == 0 || d < 0 || d >= x->ndim)
        return ct__set_error(ctx, CT_ERR_INDEX, "glu: dim %d out of range for %d dims", dim,
                             x->ndim);
    if (x->shape[d] % 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "glu: halving dimension must be even, but dimension %d is size %lld",
                             d, (long long)x->shape[d]);
    const int64_t h = x->shape[d] / 2;
    ct_tensor *a = NULL, *b = NULL, *s = NULL;
    ct_status st = ct_tensor_narrow(ctx, x, d, 0, h, &a);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, x, d, h, h, &b);
    if (st == CT_OK) st = ct_sigmoid(ctx, b, &s);
    if (st == CT_OK) st = ct_mul(ctx, a, s, out);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(s);
    return st;
}
ct_status ct_glu(ct_ctx *ctx, const ct_tensor *x, int dim, ct_tensor **out) {
    CT__ACT("glu", "GluBackward0", ct__glu(ctx, x, dim, out));
}

/* softmin: softmax(-x) */
static ct_status ct__softmin(ct_ctx *ctx, const ct_tensor *x, int dim, ct_tensor **out) {
    ct_tensor *n = NULL;
    ct_status st = ct_neg(ctx, x, &n);
    if (st == CT_OK) st = ct_softmax(ctx, n, dim, out);
    ct_tensor_release(n);
    return st;
}
ct_status ct_softmin(ct_ctx *ctx, const ct_tensor *x, int dim, ct_tensor **out) {
    CT__ACT("softmin", NULL, ct__softmin(ctx, x, dim, out));
}

/* prelu: x > 0 ? x : w x, w of 1 element or of the channel dim's size (dim 1; a 0-d or 1-d x has
 * one channel, as torch) */
static ct_status ct__prelu(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, ct_tensor **out) {
    ct_status st = ct__check_tensor(ctx, "prelu", "weight", w);
    if (st != CT_OK) return st;
    if (w->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "prelu: weight belongs to another context");
    const int64_t nw = ct_tensor_numel(w);
    const int cd = 1;
    const int64_t C = x->ndim >= 2 ? x->shape[cd] : 1;
    if (w->ndim > 1 || (nw != 1 && nw != C))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "prelu: mismatch of parameter numbers and input channel size: "
                             "weight %s, %lld channels",
                             CT__SHAPE_STR(w), (long long)C);
    int64_t ws[CT_MAX_DIMS];
    for (int d = 0; d < x->ndim; d++)
        ws[d] = d == cd ? nw : 1;
    if (w->dtype != x->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "prelu: found dtype %s but expected %s",
                             ct_dtype_name(w->dtype), ct_dtype_name(x->dtype));
    ct_tensor *wv = NULL, *m = NULL, *n = NULL, *xn = NULL, *z = NULL;
    st = x->ndim >= 2 ? ct_tensor_reshape(ctx, w, x->ndim, ws, &wv)
                      : ct_tensor_reshape(ctx, w, 0, NULL, &wv);
    if (st == CT_OK) st = ct_gt_scalar(ctx, x, 0, &m);
    /* w times x's non-positive part only: an x of +inf would give the weight inf * 0 = NaN */
    if (st == CT_OK) st = ct__const(ctx, x, 0, &z);
    if (st == CT_OK) st = ct_where(ctx, m, z, x, &xn);
    if (st == CT_OK) st = ct_mul(ctx, wv, xn, &n);
    ct_tensor_release(wv), ct_tensor_release(xn), ct_tensor_release(z);
    return ct__sel(ctx, st, m, ct_tensor_retain((ct_tensor *)x), n, out);
}
ct_status ct_prelu(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weight, ct_tensor **out) {
    CT__ACT("prelu", "PreluBackward0", ct__prelu(ctx, x, weight, out));
}

/* softshrink: x - l above l, x + l below -l, 0 on [-l, l] (gradient 0 there); hardshrink: x
 * outside [-l, l], else 0. The interval is tested as torch's kernels do (-l <= x && x <= l), so a
 * NaN is outside: hardshrink passes it, softshrink's value is 0 there (torch's forward tests
 * x > l and x < -l). */
static ct_status ct__shrink(ct_ctx *ctx, const ct_tensor *x, double l, bool soft, ct_tensor **out) {
    if (!(l >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: lambda must be greater or equal to 0, but found to be %g",
                             soft ? "softshrink" : "hardshrink", l);
    ct_tensor *ge = NULL, *le = NULL, *in = NULL, *z = NULL, *gt = NULL, *hi = NULL, *lo = NULL;
    ct_tensor *o = NULL;
    ct_status st = ct_ge_scalar(ctx, x, -l, &ge);
    if (st == CT_OK) st = ct_le_scalar(ctx, x, l, &le);
    if (st == CT_OK) st = ct_logical_and(ctx, ge, le, &in);
    if (st == CT_OK) st = ct__const(ctx, x, 0, &z);
    ct_tensor_release(ge), ct_tensor_release(le);
    if (!soft) return ct__sel(ctx, st, in, z, ct_tensor_retain((ct_tensor *)x), out);
    if (st == CT_OK) st = ct_gt_scalar(ctx, x, l, &gt);
    if (st == CT_OK) st = ct_sub_scalar(ctx, x, l, &hi);
    if (st == CT_OK) st = ct_add_scalar(ctx, x, l, &lo);
    if (st == CT_OK) st = ct_where(ctx, gt, hi, lo, &o);
    ct_tensor_release(gt), ct_tensor_release(hi), ct_tensor_release(lo);
    /* torch's softshrink value tests x > l, then x < -l, else 0: a NaN gives 0 */
    ct_tensor *nan = NULL, *o2 = NULL;
    if (st == CT_OK) st = ct_isnan(ctx, x, &nan);
    if (st == CT_OK) st = ct_masked_fill(ctx, o, nan, 0, &o2);
    ct_tensor_release(nan), ct_tensor_release(o);
    return ct__sel(ctx, st, in, z, o2, out);
}
ct_status ct_softshrink(ct_ctx *ctx, const ct_tensor *x, double lambd, ct_tensor **out) {
    CT__ACT("softshrink", "SoftshrinkBackward0", ct__shrink(ctx, x, lambd, true, out));
}
ct_status ct_hardshrink(ct_ctx *ctx, const ct_tensor *x, double lambd, ct_tensor **out) {
    CT__ACT("hardshrink", "HardshrinkBackward0", ct__shrink(ctx, x, lambd, false, out));
}

/* tanhshrink: x - tanh(x) (torch's composition: SubBackward0) */
static ct_status ct__tanhshrink(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    ct_tensor *t = NULL;
    ct_status st = ct_tanh(ctx, x, &t);
    if (st == CT_OK) st = ct_sub(ctx, x, t, out);
    ct_tensor_release(t);
    return st;
}
ct_status ct_tanhshrink(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    CT__ACT("tanhshrink", NULL, ct__tanhshrink(ctx, x, out));
}

/* threshold: x <= th ? value : x (gradient 0 where x <= th) */
static ct_status ct__threshold(ct_ctx *ctx, const ct_tensor *x, double th, double value,
                               ct_tensor **out) {
    if (!ct_dtype_is_floating(x->dtype)) {
        /* torch converts the threshold to the integer type (truncating; overflow refused) */
        if (!(fabs(th) < 9.2233720368547758e18))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "threshold: value %g cannot be converted to %s without overflow",
                                 th, ct_dtype_name(x->dtype));
        th = trunc(th);
    }
    /* torch's test, x <= threshold: a NaN keeps its value and its gradient */
    ct_tensor *m = NULL, *v = NULL;
    ct_status st = ct_le_scalar(ctx, x, th, &m);
    if (st == CT_OK) st = ct__const(ctx, x, value, &v);
    return ct__sel(ctx, st, m, v, ct_tensor_retain((ct_tensor *)x), out);
}
ct_status ct_threshold(ct_ctx *ctx, const ct_tensor *x, double threshold, double value,
                       ct_tensor **out) {
    CT__ACT("threshold", "ThresholdBackward0", ct__threshold(ctx, x, threshold, value, out));
}

/* In-place variants (include/ctorch/inplace.h): the out-of-place op computes the result, which is
 * checked against self (shape; dtype castable by torch's rule) and written into self. Under
 * autograd the write goes through ct__ag_inplace, so self takes the op's node. */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/inplace.h"
#include "ctorch/methods.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"
#include "tensor/tensor_impl.h"

#include <string.h>

/* The out-of-place result r must have self's shape and a dtype that casts to self's. */
static ct_status ct__ip_check_result(ct_ctx *ctx, const char *name, const ct_tensor *self,
                                     const ct_tensor *r) {
    bool same = r->ndim == self->ndim;
    for (int i = 0; same && i < r->ndim; i++)
        same = r->shape[i] == self->shape[i];
    if (!same) {
        char b[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: output with shape %s doesn't match the broadcast shape %s", name,
                             CT__SHAPE_STR(self), ct__shape_str(b, sizeof b, r->ndim, r->shape));
    }
    if (ct__cast_category(r->dtype) > ct__cast_category(self->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: result type %s can't be cast to the desired output type %s", name,
                             ct_dtype_name(r->dtype), ct_dtype_name(self->dtype));
    return CT_OK;
}

/* The out-of-place op as ct__ag_inplace calls it: fn(ctx, self, arg, out). */
typedef struct ct__ip_call {
    ct__ag_inplace_fn fn;
    const void *arg;
    const char *name;
} ct__ip_call;

/* torch's node name where the in-place overload's differs from the out-of-place op's (elu_ is
 * EluBackward1, elu EluBackward0); NULL: the op's own */
static const char *ct__ip_node(const char *name) {
    static const char *const tab[][2] = {
        {"elu_", "EluBackward1"},
        {"selu_", "EluBackward1"},
        {"celu_", "CeluBackward1"},
        {"leaky_relu_", "LeakyReluBackward1"},
        {"rrelu_", "RreluWithNoiseBackward1"},
        {"threshold_", "ThresholdBackward1"},
        {"polygamma_", "PolygammaBackward1"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (!strcmp(tab[i][0], name)) return tab[i][1];
    return NULL;
}

static ct_status ct__ip_checked(ct_ctx *ctx, const ct_tensor *self, const void *arg,
                                ct_tensor **out) {
    const ct__ip_call *c = arg;
    ct_status st = ct__error_within(ctx, c->name, c->fn(ctx, self, c->arg, out));
    if (st == CT_OK && (st = ct__ip_check_result(ctx, c->name, self, *out)) != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}

/* self = fn(self, arg); others: the op's tensor operands (NULL entries allowed), for autograd. */
static ct_status ct__ip_run(ct_ctx *ctx, const char *name, ct_tensor *self, int n,
                            const ct_tensor *const *others, ct__ag_inplace_fn fn, const void *arg) {
    const ct_tensor *s1[1] = {self};
    ct_status st = ct__check_args(ctx, name, 1, s1, (void *)1);
    if (st != CT_OK) return st;
    if ((st = ct__check_no_overlap(ctx, name, self)) != CT_OK) return st;
    ct__ip_call c = {fn, arg, name};
    bool differentiable = ct_dtype_is_floating(self->dtype) || ct_dtype_is_complex(self->dtype);
    if (differentiable && (ct__ag_wants(ctx, 1, s1) || ct__ag_wants(ctx, n, others))) {
        /* self's old value is kept for the node (keep_old) whatever the op saves */
        ct__ag_inplace_w w = {name,           self, n > 0 ? others[0] : NULL, true,
                              ct__ip_checked, &c,   ct__ip_node(name),        NULL};
        return ct__ag_inplace(ctx, &w);
    }
    ct_tensor *r = NULL;
    st = ct__ip_checked(ctx, self, &c, &r);
    if (st == CT_OK && r != self) st = ct_tensor_copy_(ctx, self, r);
    ct_tensor_release(r);
    return st;
}

/* ---- unary: self = op(self) ---- */
#define CT__IP_UNARY(op)                                                                           \
    static ct_status ct__ipf_##op(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) { \
        (void)a;                                                                                   \
        return ct_##op(ctx, s, o);                                                                 \
    }                                                                                              \
    ct_status ct_##op##_(ct_ctx *ctx, ct_tensor *self) {                                           \
        return ct__ip_run(ctx, #op "_", self, 0, NULL, ct__ipf_##op, NULL);                        \
    }
/* abs of a complex self is real: torch refuses the in-place form */
static ct_status ct__ip_abs(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) {
    (void)a;
    if (ct_dtype_is_complex(s->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "In-place abs is not supported for complex tensors (%s)",
                             ct_dtype_name(s->dtype));
    return ct_abs(ctx, s, o);
}
ct_status ct_abs_(ct_ctx *ctx, ct_tensor *self) {
    return ct__ip_run(ctx, "abs_", self, 0, NULL, ct__ip_abs, NULL);
}
ct_status ct_absolute_(ct_ctx *ctx, ct_tensor *self) {
    return ct__ip_run(ctx, "absolute_", self, 0, NULL, ct__ip_abs, NULL);
}
/* clang-format off */
CT__IP_UNARY(neg) CT__IP_UNARY(negative) CT__IP_UNARY(sgn) CT__IP_UNARY(sign)
CT__IP_UNARY(conj_physical) CT__IP_UNARY(reciprocal) CT__IP_UNARY(square) CT__IP_UNARY(sqrt)
CT__IP_UNARY(rsqrt) CT__IP_UNARY(exp) CT__IP_UNARY(exp2) CT__IP_UNARY(expm1) CT__IP_UNARY(log)
CT__IP_UNARY(log2) CT__IP_UNARY(log10) CT__IP_UNARY(log1p) CT__IP_UNARY(sin) CT__IP_UNARY(cos)
CT__IP_UNARY(tan) CT__IP_UNARY(asin) CT__IP_UNARY(acos) CT__IP_UNARY(atan) CT__IP_UNARY(arcsin)
CT__IP_UNARY(arccos) CT__IP_UNARY(arctan) CT__IP_UNARY(sinh) CT__IP_UNARY(cosh) CT__IP_UNARY(tanh)
CT__IP_UNARY(asinh) CT__IP_UNARY(acosh) CT__IP_UNARY(atanh) CT__IP_UNARY(arcsinh)
CT__IP_UNARY(arccosh) CT__IP_UNARY(arctanh) CT__IP_UNARY(sigmoid) CT__IP_UNARY(erf)
CT__IP_UNARY(erfc) CT__IP_UNARY(erfinv) CT__IP_UNARY(lgamma) CT__IP_UNARY(digamma) CT__IP_UNARY(i0)
CT__IP_UNARY(sinc) CT__IP_UNARY(deg2rad) CT__IP_UNARY(rad2deg) CT__IP_UNARY(ceil)
CT__IP_UNARY(floor) CT__IP_UNARY(round) CT__IP_UNARY(trunc) CT__IP_UNARY(fix) CT__IP_UNARY(frac)
CT__IP_UNARY(bitwise_not) CT__IP_UNARY(logical_not) CT__IP_UNARY(relu) CT__IP_UNARY(relu6)
CT__IP_UNARY(selu) CT__IP_UNARY(silu) CT__IP_UNARY(mish) CT__IP_UNARY(hardsigmoid)
CT__IP_UNARY(hardswish)
/* clang-format on */

/* ---- one number: self = op(self, v) ---- */
#define CT__IP_NUM(op, pname)                                                                      \
    static ct_status ct__ipf_##op(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) { \
        return ct_##op(ctx, s, *(const double *)a, o);                                             \
    }                                                                                              \
    ct_status ct_##op##_(ct_ctx *ctx, ct_tensor *self, double pname) {                             \
        return ct__ip_run(ctx, #op "_", self, 0, NULL, ct__ipf_##op, &pname);                      \
    }
    /* clang-format off */
CT__IP_NUM(pow, exponent) CT__IP_NUM(fmod_scalar, other) CT__IP_NUM(remainder_scalar, other)
CT__IP_NUM(clamp_min, min) CT__IP_NUM(clamp_max, max) CT__IP_NUM(logit, eps) CT__IP_NUM(elu, alpha)
CT__IP_NUM(celu, alpha) CT__IP_NUM(leaky_relu, negative_slope)
/* clang-format on */

/* ---- one tensor: self = op(self, other) ---- */
#define CT__IP_BIN(op)                                                                             \
    static ct_status ct__ipf_##op(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) { \
        return ct_##op(ctx, s, a, o);                                                              \
    }                                                                                              \
    ct_status ct_##op##_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other) {                   \
        const ct_tensor *ot[1] = {other};                                                          \
        return ct__ip_run(ctx, #op "_", self, 1, ot, ct__ipf_##op, other);                         \
    }
    /* clang-format off */
CT__IP_BIN(pow_tensor) CT__IP_BIN(atan2) CT__IP_BIN(arctan2) CT__IP_BIN(hypot) CT__IP_BIN(copysign)
CT__IP_BIN(nextafter) CT__IP_BIN(ldexp) CT__IP_BIN(xlogy) CT__IP_BIN(heaviside) CT__IP_BIN(fmod)
CT__IP_BIN(remainder) CT__IP_BIN(floor_divide) CT__IP_BIN(true_divide) CT__IP_BIN(divide)
CT__IP_BIN(multiply) CT__IP_BIN(gcd) CT__IP_BIN(lcm) CT__IP_BIN(bitwise_and) CT__IP_BIN(bitwise_or)
CT__IP_BIN(bitwise_xor) CT__IP_BIN(bitwise_left_shift) CT__IP_BIN(bitwise_right_shift)
CT__IP_BIN(logical_and) CT__IP_BIN(logical_or) CT__IP_BIN(logical_xor) CT__IP_BIN(igamma)
CT__IP_BIN(igammac)
    /* clang-format on */

    /* ---- comparisons: 0 / 1 in self's dtype; under autograd a node with zero gradients for self
     * and other, named as torch's (EqBackward0 for a number, EqBackward1 for a tensor) ---- */
    typedef struct ct__ip_cmp {
    ct_status (*fn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);
    ct_status (*fn_s)(ct_ctx *, const ct_tensor *, double, ct_tensor **);
    const ct_tensor *other;
    double v;
    const char *node;
} ct__ip_cmp;
static ct_status ct__ip_cmp_value(ct_ctx *ctx, const ct_tensor *s, const ct__ip_cmp *c,
                                  ct_tensor **o) {
    ct_tensor *b = NULL;
    ct_status st = c->fn ? c->fn(ctx, s, c->other, &b) : c->fn_s(ctx, s, c->v, &b);
    if (st == CT_OK && b->dtype != s->dtype) /* bool into self's dtype (b has no history) */
        st = ct_cast(ctx, b, s->dtype, o);
    else if (st == CT_OK)
        *o = ct_tensor_retain(b);
    ct_tensor_release(b);
    return st;
}
static ct_status ct__ipf_cmp(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) {
    const ct__ip_cmp *c = a;
    if (c->fn)
        CT__AG_WRAP(ctx, o, ct__ip_cmp_value(ctx, s, c, o),
                    (CT__AG_IN2(CT__AG_ZERO, s, c->other), r_.name = c->node));
    CT__AG_WRAP(ctx, o, ct__ip_cmp_value(ctx, s, c, o),
                (CT__AG_IN1(CT__AG_ZERO, s), r_.name = c->node));
}
#define CT__IP_CMP(op, NODE)                                                                       \
    ct_status ct_##op##_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other) {                   \
        const ct_tensor *ot[1] = {other};                                                          \
        ct__ip_cmp c = {ct_##op, NULL, other, 0, NODE "Backward1"};                                \
        return ct__ip_run(ctx, #op "_", self, 1, ot, ct__ipf_cmp, &c);                             \
    }
#define CT__IP_CMP_S(op, NODE)                                                                     \
    ct_status ct_##op##_scalar_(ct_ctx *ctx, ct_tensor *self, double v) {                          \
        ct__ip_cmp c = {NULL, ct_##op##_scalar, NULL, v, NODE "Backward0"};                        \
        return ct__ip_run(ctx, #op "_", self, 0, NULL, ct__ipf_cmp, &c);                           \
    }
/* clang-format off */
CT__IP_CMP(eq, "Eq") CT__IP_CMP(ne, "Ne") CT__IP_CMP(lt, "Lt") CT__IP_CMP(le, "Le")
CT__IP_CMP(gt, "Gt") CT__IP_CMP(ge, "Ge") CT__IP_CMP(greater, "Gt") CT__IP_CMP(greater_equal, "Ge")
CT__IP_CMP(less, "Lt") CT__IP_CMP(less_equal, "Le") CT__IP_CMP(not_equal, "Ne")
CT__IP_CMP_S(eq, "Eq") CT__IP_CMP_S(ne, "Ne") CT__IP_CMP_S(lt, "Lt") CT__IP_CMP_S(le, "Le")
CT__IP_CMP_S(gt, "Gt") CT__IP_CMP_S(ge, "Ge")
    /* clang-format on */

    /* ---- float_power_: torch requires self to be the result's dtype (float64 / complex128) ----
     */
    static ct_status ct__ip_fp_dtype(ct_ctx *ctx, const ct_tensor *self, bool complex_other) {
    ct_dtype want = ct_dtype_is_complex(self->dtype) || complex_other ? CT_COMPLEX128 : CT_FLOAT64;
    if (self->dtype == want) return CT_OK;
    return ct__set_error(ctx, CT_ERR_DTYPE,
                         "float_power_: the base given to float_power_ has dtype %s but the "
                         "operation's result requires dtype %s",
                         ct_dtype_name(self->dtype), ct_dtype_name(want));
}
static ct_status ct__ipf_fpow(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) {
    const ct_tensor *e = a;
    ct_status st = ct__ip_fp_dtype(ctx, s, ct__tensor_live(e) && ct_dtype_is_complex(e->dtype));
    return st != CT_OK ? st : ct_float_power(ctx, s, e, o);
}
ct_status ct_float_power_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *exponent) {
    const ct_tensor *ot[1] = {exponent};
    return ct__ip_run(ctx, "float_power_", self, 1, ot, ct__ipf_fpow, exponent);
}
static ct_status ct__ipf_fpows(ct_ctx *ctx, const ct_tensor *s, const void *a, ct_tensor **o) {
    ct_status st = ct__ip_fp_dtype(ctx, s, false);
    return st != CT_OK ? st : ct_float_power_scalar(ctx, s, *(const double *)a, o);
}
ct_status ct_float_power_scalar_(ct_ctx *ctx, ct_tensor *self, double exponent) {
    return ct__ip_run(ctx, "float_power_", self, 0, NULL, ct__ipf_fpows, &exponent);
}

/* ---- the rest: an argument struct each ---- */
typedef struct ct__ip_args {
    const ct_tensor *t[3];
    double d[3];
    const double *p[3];
    int64_t i[2];
    int n;
    const ct_tensor *const *ts;
    const char *s;
    bool b[2];
    uint64_t u[2];
    ct_rounding_mode mode;
} ct__ip_args;

#define CT__IP_FN(fname, call)                                                                     \
    static ct_status fname(ct_ctx *ctx, const ct_tensor *s, const void *a_, ct_tensor **o) {       \
        const ct__ip_args *a = a_;                                                                 \
        (void)a;                                                                                   \
        return call;                                                                               \
    }
CT__IP_FN(ct__ipf_hardtanh, ct_hardtanh(ctx, s, a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_threshold, ct_threshold(ctx, s, a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_rrelu, ct_rrelu(ctx, s, a->d[0], a->d[1], a->b[0], a->u[0], a->u[1], o))
CT__IP_FN(ct__ipf_clamp, ct_clamp(ctx, s, a->p[0], a->p[1], o))
CT__IP_FN(ct__ipf_clip, ct_clip(ctx, s, a->p[0], a->p[1], o))
CT__IP_FN(ct__ipf_nan_to_num, ct_nan_to_num(ctx, s, a->p[0], a->p[1], a->p[2], o))
CT__IP_FN(ct__ipf_polygamma, ct_polygamma(ctx, a->i[0], s, o))
CT__IP_FN(ct__ipf_mvlgamma, ct_mvlgamma(ctx, s, a->i[0], o))
CT__IP_FN(ct__ipf_div_scalar_mode, ct_div_scalar_mode(ctx, s, a->d[0], a->mode, o))
CT__IP_FN(ct__ipf_div_mode, ct_div_mode(ctx, s, a->t[0], a->mode, o))
CT__IP_FN(ct__ipf_add_scaled, ct_add_scaled(ctx, s, a->t[0], a->d[0], o))
CT__IP_FN(ct__ipf_sub_scaled, ct_sub_scaled(ctx, s, a->t[0], a->d[0], o))
CT__IP_FN(ct__ipf_subtract, ct_subtract(ctx, s, a->t[0], a->d[0], o))
CT__IP_FN(ct__ipf_lerp, ct_lerp(ctx, s, a->t[0], a->t[1], o))
CT__IP_FN(ct__ipf_lerp_scalar, ct_lerp_scalar(ctx, s, a->t[0], a->d[0], o))
CT__IP_FN(ct__ipf_addcmul, ct_addcmul(ctx, s, a->t[0], a->t[1], a->d[0], o))
CT__IP_FN(ct__ipf_addcdiv, ct_addcdiv(ctx, s, a->t[0], a->t[1], a->d[0], o))
CT__IP_FN(ct__ipf_addmm, ct_addmm(ctx, s, a->t[0], a->t[1], a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_addmv, ct_addmv(ctx, s, a->t[0], a->t[1], a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_addr, ct_addr(ctx, s, a->t[0], a->t[1], a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_addbmm, ct_addbmm(ctx, s, a->t[0], a->t[1], a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_baddbmm, ct_baddbmm(ctx, s, a->t[0], a->t[1], a->d[0], a->d[1], o))
CT__IP_FN(ct__ipf_cumsum, ct_cumsum(ctx, s, (int)a->i[0], o))
CT__IP_FN(ct__ipf_cumprod, ct_cumprod(ctx, s, (int)a->i[0], o))
CT__IP_FN(ct__ipf_tril, ct_tril(ctx, s, a->i[0], o))
CT__IP_FN(ct__ipf_triu, ct_triu(ctx, s, a->i[0], o))
CT__IP_FN(ct__ipf_renorm, ct_renorm(ctx, s, a->d[0], (int)a->i[0], a->d[1], o))
CT__IP_FN(ct__ipf_masked_fill, ct_masked_fill(ctx, s, a->t[0], a->d[0], o))
CT__IP_FN(ct__ipf_masked_scatter, ct_masked_scatter(ctx, s, a->t[0], a->t[1], o))
CT__IP_FN(ct__ipf_index_add, ct_index_add(ctx, s, (int)a->i[0], a->t[0], a->t[1], a->d[0], o))
CT__IP_FN(ct__ipf_index_copy, ct_index_copy(ctx, s, (int)a->i[0], a->t[0], a->t[1], o))
CT__IP_FN(ct__ipf_index_fill, ct_index_fill(ctx, s, (int)a->i[0], a->t[0], a->d[0], o))
CT__IP_FN(ct__ipf_index_reduce,
          ct_index_reduce(ctx, s, (int)a->i[0], a->t[0], a->t[1], a->s, a->b[0], o))
CT__IP_FN(ct__ipf_index_put, ct_index_put(ctx, s, a->n, a->ts, a->t[0], a->b[0], o))
CT__IP_FN(ct__ipf_put, ct_put(ctx, s, a->t[0], a->t[1], a->b[0], o))
CT__IP_FN(ct__ipf_scatter, ct_scatter(ctx, s, (int)a->i[0], a->t[0], a->t[1], o))
CT__IP_FN(ct__ipf_scatter_add, ct_scatter_add(ctx, s, (int)a->i[0], a->t[0], a->t[1], o))
CT__IP_FN(ct__ipf_scatter_reduce,
          ct_scatter_reduce(ctx, s, (int)a->i[0], a->t[0], a->t[1], a->s, a->b[0], o))

#define CT__IP_GO(name, fn, ...)                                                                   \
    ct__ip_args a = {__VA_ARGS__};                                                                 \
    return ct__ip_run(ctx, name, self, 3, a.t, fn, &a)

ct_status ct_hardtanh_(ct_ctx *ctx, ct_tensor *self, double min_val, double max_val) {
    CT__IP_GO("hardtanh_", ct__ipf_hardtanh, .d = {min_val, max_val});
}
ct_status ct_threshold_(ct_ctx *ctx, ct_tensor *self, double threshold, double value) {
    CT__IP_GO("threshold_", ct__ipf_threshold, .d = {threshold, value});
}
ct_status ct_rrelu_(ct_ctx *ctx, ct_tensor *self, double lower, double upper, bool training,
                    uint64_t seed, uint64_t offset) {
    CT__IP_GO("rrelu_", ct__ipf_rrelu, .d = {lower, upper}, .b = {training}, .u = {seed, offset});
}
ct_status ct_clamp_(ct_ctx *ctx, ct_tensor *self, const double *lo, const double *hi) {
    CT__IP_GO("clamp_", ct__ipf_clamp, .p = {lo, hi});
}
ct_status ct_clip_(ct_ctx *ctx, ct_tensor *self, const double *lo, const double *hi) {
    CT__IP_GO("clip_", ct__ipf_clip, .p = {lo, hi});
}
ct_status ct_nan_to_num_(ct_ctx *ctx, ct_tensor *self, const double *nan, const double *posinf,
                         const double *neginf) {
    CT__IP_GO("nan_to_num_", ct__ipf_nan_to_num, .p = {nan, posinf, neginf});
}
ct_status ct_polygamma_(ct_ctx *ctx, ct_tensor *self, int64_t n) {
    CT__IP_GO("polygamma_", ct__ipf_polygamma, .i = {n});
}
ct_status ct_mvlgamma_(ct_ctx *ctx, ct_tensor *self, int64_t p) {
    CT__IP_GO("mvlgamma_", ct__ipf_mvlgamma, .i = {p});
}
ct_status ct_div_scalar_mode_(ct_ctx *ctx, ct_tensor *self, double v, ct_rounding_mode mode) {
    CT__IP_GO("div_", ct__ipf_div_scalar_mode, .d = {v}, .mode = mode);
}
ct_status ct_div_mode_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other,
                       ct_rounding_mode mode) {
    CT__IP_GO("div_", ct__ipf_div_mode, .t = {other}, .mode = mode);
}
ct_status ct_add_scaled_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other, double alpha) {
    CT__IP_GO("add_", ct__ipf_add_scaled, .t = {other}, .d = {alpha});
}
ct_status ct_sub_scaled_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other, double alpha) {
    CT__IP_GO("sub_", ct__ipf_sub_scaled, .t = {other}, .d = {alpha});
}
ct_status ct_subtract_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other, double alpha) {
    CT__IP_GO("subtract_", ct__ipf_subtract, .t = {other}, .d = {alpha});
}
ct_status ct_lerp_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *end, const ct_tensor *weight) {
    CT__IP_GO("lerp_", ct__ipf_lerp, .t = {end, weight});
}
ct_status ct_lerp_scalar_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *end, double weight) {
    CT__IP_GO("lerp_", ct__ipf_lerp_scalar, .t = {end}, .d = {weight});
}
ct_status ct_addcmul_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                      double value) {
    CT__IP_GO("addcmul_", ct__ipf_addcmul, .t = {t1, t2}, .d = {value});
}
ct_status ct_addcdiv_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                      double value) {
    CT__IP_GO("addcdiv_", ct__ipf_addcdiv, .t = {t1, t2}, .d = {value});
}
ct_status ct_addmm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *m1, const ct_tensor *m2,
                    double beta, double alpha) {
    CT__IP_GO("addmm_", ct__ipf_addmm, .t = {m1, m2}, .d = {beta, alpha});
}
ct_status ct_addmv_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *mat, const ct_tensor *vec,
                    double beta, double alpha) {
    CT__IP_GO("addmv_", ct__ipf_addmv, .t = {mat, vec}, .d = {beta, alpha});
}
ct_status ct_addr_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *v1, const ct_tensor *v2,
                   double beta, double alpha) {
    CT__IP_GO("addr_", ct__ipf_addr, .t = {v1, v2}, .d = {beta, alpha});
}
ct_status ct_addbmm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                     double beta, double alpha) {
    CT__IP_GO("addbmm_", ct__ipf_addbmm, .t = {b1, b2}, .d = {beta, alpha});
}
ct_status ct_baddbmm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                      double beta, double alpha) {
    CT__IP_GO("baddbmm_", ct__ipf_baddbmm, .t = {b1, b2}, .d = {beta, alpha});
}
ct_status ct_cumsum_(ct_ctx *ctx, ct_tensor *self, int dim) {
    CT__IP_GO("cumsum_", ct__ipf_cumsum, .i = {dim});
}
ct_status ct_cumprod_(ct_ctx *ctx, ct_tensor *self, int dim) {
    CT__IP_GO("cumprod_", ct__ipf_cumprod, .i = {dim});
}
ct_status ct_tril_(ct_ctx *ctx, ct_tensor *self, int64_t diagonal) {
    CT__IP_GO("tril_", ct__ipf_tril, .i = {diagonal});
}
ct_status ct_triu_(ct_ctx *ctx, ct_tensor *self, int64_t diagonal) {
    CT__IP_GO("triu_", ct__ipf_triu, .i = {diagonal});
}
ct_status ct_renorm_(ct_ctx *ctx, ct_tensor *self, double p, int dim, double maxnorm) {
    CT__IP_GO("renorm_", ct__ipf_renorm, .d = {p, maxnorm}, .i = {dim});
}
ct_status ct_masked_fill_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *mask, double value) {
    CT__IP_GO("masked_fill_", ct__ipf_masked_fill, .t = {mask}, .d = {value});
}
ct_status ct_masked_scatter_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *mask,
                             const ct_tensor *source) {
    CT__IP_GO("masked_scatter_", ct__ipf_masked_scatter, .t = {mask, source});
}
ct_status ct_index_add_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                        const ct_tensor *source, double alpha) {
    CT__IP_GO("index_add_", ct__ipf_index_add, .t = {index, source}, .d = {alpha}, .i = {dim});
}
ct_status ct_index_copy_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                         const ct_tensor *source) {
    CT__IP_GO("index_copy_", ct__ipf_index_copy, .t = {index, source}, .i = {dim});
}
ct_status ct_index_fill_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                         double value) {
    CT__IP_GO("index_fill_", ct__ipf_index_fill, .t = {index}, .d = {value}, .i = {dim});
}
ct_status ct_index_reduce_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                           const ct_tensor *source, const char *reduce, bool include_self) {
    CT__IP_GO("index_reduce_", ct__ipf_index_reduce, .t = {index, source}, .i = {dim}, .s = reduce,
              .b = {include_self});
}
ct_status ct_index_put_(ct_ctx *ctx, ct_tensor *self, int n, const ct_tensor *const *indices,
                        const ct_tensor *values, bool accumulate) {
    CT__IP_GO("index_put_", ct__ipf_index_put, .t = {values}, .n = n, .ts = indices,
              .b = {accumulate});
}
ct_status ct_put_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *index, const ct_tensor *source,
                  bool accumulate) {
    CT__IP_GO("put_", ct__ipf_put, .t = {index, source}, .b = {accumulate});
}
ct_status ct_scatter_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                      const ct_tensor *src) {
    CT__IP_GO("scatter_", ct__ipf_scatter, .t = {index, src}, .i = {dim});
}
ct_status ct_scatter_add_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                          const ct_tensor *src) {
    CT__IP_GO("scatter_add_", ct__ipf_scatter_add, .t = {index, src}, .i = {dim});
}
ct_status ct_scatter_reduce_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                             const ct_tensor *src, const char *reduce, bool include_self) {
    CT__IP_GO("scatter_reduce_", ct__ipf_scatter_reduce, .t = {index, src}, .i = {dim}, .s = reduce,
              .b = {include_self});
}

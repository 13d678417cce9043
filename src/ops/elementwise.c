/* Elementwise op front ends: validate, broadcast, promote, allocate, submit. */
#include "ctorch/ops.h"
#include "dtype/dtype_size.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>

/* Run kind over inputs ins[0..n) cast to `compute`, writing a new tensor of dtype `out_dt`. */
/* into: write the result into this tensor (an in-place op: its shape is the broadcast shape, its
 * dtype out_dt, checked by the caller) instead of a new one. */
static ct_status ct__ew_to(ct_ctx *ctx, const char *name, ct_op_kind kind, int n,
                           const ct_tensor *const *ins, ct_dtype compute, ct_dtype out_dt,
                           const double *scalars, int64_t flags, ct_tensor *into, ct_tensor **out) {
    int nd;
    int64_t shape[CT_MAX_DIMS];
    ct_status st = ct__broadcast_shapes(ctx, name, n, ins, &nd, shape);
    if (st != CT_OK) return st;
    ct_tensor *conv[3] = {NULL, NULL, NULL}, *r = NULL;
    ct_op_desc d;
    ct__desc_init(&d, kind, 1, n);
    for (int i = 0; i < n && st == CT_OK; i++) {
        /* where's condition stays bool; every other input is converted to the compute dtype */
        ct_dtype want = (kind == CT_OP_WHERE && i == 0) ? CT_BOOL : compute;
        st = ct__to_dtype(ctx, ins[i], want, &conv[i]);
    }
    if (st == CT_OK && into) {
        r = ct_tensor_retain(into);
        into->storage->version++; /* autograd: saved tensors sharing this storage are now stale */
    } else if (st == CT_OK) {
        st = ct__tensor_new(ctx, ins[0]->storage->device, out_dt, nd, shape, &r);
    }
    if (st == CT_OK) {
        ct__operand_set(&d.operands[0], r);
        for (int i = 0; i < n; i++)
            ct__operand_broadcast(&d.operands[1 + i], conv[i], nd, shape);
        d.compute_dtype = compute;
        if (scalars)
            for (int i = 0; i < 4; i++)
                d.scalars[i] = scalars[i];
        d.ints[0] = flags;
        st = ct__submit(ctx, r->storage->device, &d);
    }
    for (int i = 0; i < n; i++)
        ct_tensor_release(conv[i]);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}
static ct_status ct__ew(ct_ctx *ctx, const char *name, ct_op_kind kind, int n,
                        const ct_tensor *const *ins, ct_dtype compute, ct_dtype out_dt,
                        const double *scalars, int64_t flags, ct_tensor **out) {
    return ct__ew_to(ctx, name, kind, n, ins, compute, out_dt, scalars, flags, NULL, out);
}

/* PyTorch treats a Python int and a Python float differently in promotion; a C double stands for
 * an int when it is integral, finite and within int64 (see ops.h). */
static bool ct__scalar_is_int(double v) {
    return v == floor(v) && v >= -9223372036854775808.0 && v < 9223372036854775808.0;
}

static ct_status ct__binary_to(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                               const ct_tensor *b, double alpha, ct_tensor *into, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, name, 2, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype) || ct_dtype_is_complex(b->dtype)) {
        ct_tensor *r = NULL;
        const ct_tensor *three[3] = {a, b, into};
        if (into && (st = ct__ag_no_backward(ctx, name, 3, three)) != CT_OK) return st;
        if ((st = ct__cx_binary(ctx, name, kind, a, b, alpha, &r)) != CT_OK || !into) {
            *out = r;
            return st;
        }
        st = ct_tensor_copy_(ctx, into, r); /* in place: the result must fit into's dtype */
        ct_tensor_release(r);
        *out = st == CT_OK ? ct_tensor_retain(into) : NULL;
        return st;
    }
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 2, ins, &dt)) != CT_OK) return st;
    bool cmp = kind >= CT_OP_EQ && kind <= CT_OP_GE;
    if (kind == CT_OP_DIV && !ct_dtype_is_floating(dt)) dt = CT_FLOAT32;
    if (kind == CT_OP_SUB && (a->dtype == CT_BOOL || b->dtype == CT_BOOL))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "sub: subtracting with a bool operand (%s - %s) is not supported; use "
                             "logical_xor / logical_not",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (!ct_dtype_is_floating(dt) && !ct__scalar_is_int(alpha))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: alpha %g must be integral for %s inputs", name,
                             alpha, ct_dtype_name(dt));
    /* alpha converts to the result dtype as c10 checks it (int8 300, f32 1e39 raise in torch);
     * sub checks -alpha, as torch's sub is add with -alpha (int8: 128 fits, -128 does not) */
    if (dt != CT_BOOL &&
        (st = ct__check_scalar_param(ctx, name, "alpha", dt, kind == CT_OP_SUB ? -alpha : alpha,
                                     false)) != CT_OK)
        return st;
    /* bool results: torch converts alpha to bool (any nonzero alpha is true), so
     * add(a, b, alpha=-1) is a | b, not a - b */
    if (dt == CT_BOOL) alpha = alpha != 0 ? 1.0 : 0.0;
    double sc[4] = {alpha, 0, 0, 0};
    if (into && (cmp || into->dtype != dt)) into = NULL; /* computed apart, then copied */
    return ct__ew_to(ctx, name, kind, 2, ins, dt, cmp ? CT_BOOL : dt, sc, 0, into, out);
}
static ct_status ct__binary(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                            const ct_tensor *b, double alpha, ct_tensor **out) {
    return ct__binary_to(ctx, name, kind, a, b, alpha, NULL, out);
}

static ct_status ct__fwd_add(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "add", CT_OP_ADD, a, b, 1.0, out);
}
static ct_status ct__fwd_add_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                    double alpha, ct_tensor **out) {
    return ct__binary(ctx, "add", CT_OP_ADD, a, b, alpha, out);
}
static ct_status ct__fwd_sub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "sub", CT_OP_SUB, a, b, 1.0, out);
}
static ct_status ct__fwd_sub_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                    double alpha, ct_tensor **out) {
    return ct__binary(ctx, "sub", CT_OP_SUB, a, b, alpha, out);
}
static ct_status ct__fwd_mul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "mul", CT_OP_MUL, a, b, 1.0, out);
}
static ct_status ct__fwd_div(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "div", CT_OP_DIV, a, b, 1.0, out);
}
#define CT__CMP(fn, K)                                                                             \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {      \
        return ct__binary(ctx, #fn, K, a, b, 1.0, out);                                            \
    }
CT__CMP(eq, CT_OP_EQ)
CT__CMP(ne, CT_OP_NE)
CT__CMP(lt, CT_OP_LT)
CT__CMP(le, CT_OP_LE)
CT__CMP(gt, CT_OP_GT)
CT__CMP(ge, CT_OP_GE)

/* Unary: float_only ops promote bool/int inputs to float32. */
static ct_status ct__unary(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                           bool float_only, bool allow_bool, const double *sc, int64_t flags,
                           ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype)) {
        int fn = kind == CT_OP_NEG          ? CT_CX_NEG
                 : kind == CT_OP_ABS        ? CT_CX_ABS
                 : kind == CT_OP_EXP        ? CT_CX_EXP
                 : kind == CT_OP_LOG        ? CT_CX_LOG
                 : kind == CT_OP_SQRT       ? CT_CX_SQRT
                 : kind == CT_OP_RECIPROCAL ? CT_CX_RECIPROCAL
                 : kind == CT_OP_SIN        ? CT_CX_SIN
                 : kind == CT_OP_COS        ? CT_CX_COS
                 : kind == CT_OP_TAN        ? CT_CX_TAN
                 : kind == CT_OP_SINH       ? CT_CX_SINH
                 : kind == CT_OP_COSH       ? CT_CX_COSH
                 : kind == CT_OP_TANH       ? CT_CX_TANH
                 : kind == CT_OP_ASIN       ? CT_CX_ASIN
                 : kind == CT_OP_ACOS       ? CT_CX_ACOS
                 : kind == CT_OP_ATAN       ? CT_CX_ATAN
                 : kind == CT_OP_ASINH      ? CT_CX_ASINH
                 : kind == CT_OP_ACOSH      ? CT_CX_ACOSH
                 : kind == CT_OP_ATANH      ? CT_CX_ATANH
                 : kind == CT_OP_LOG10      ? CT_CX_LOG10
                 : kind == CT_OP_LOG2       ? CT_CX_LOG2
                 : kind == CT_OP_RSQRT      ? CT_CX_RSQRT
                 : kind == CT_OP_SIGMOID    ? CT_CX_SIGMOID
                 : kind == CT_OP_SINC       ? CT_CX_SINC
                                            : -1;
        if (fn >= 0) return ct__cx_unary(ctx, name, fn, a, out);
        if (kind == CT_OP_SIGN)
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "sign: Unlike NumPy, torch.sign is not intended to support "
                                 "complex numbers. Please use torch.sgn instead.");
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "%s: not supported for complex tensors (%s)",
                             name, ct_dtype_name(a->dtype));
    }
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 1, ins, &dt)) != CT_OK) return st;
    if (float_only && !ct_dtype_is_floating(dt)) dt = CT_FLOAT32;
    if (dt == CT_BOOL && !allow_bool)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: bool input is not supported", name);
    return ct__ew(ctx, name, kind, 1, ins, dt, dt, sc, flags, out);
}

#define CT__UN(fn, K, FLOAT_ONLY, ALLOW_BOOL, AG)                                                  \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {                          \
        if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))                     \
            return ct__unary(ctx, #fn, K, a, false, false, NULL, 0, out); /* records its own */    \
        CT__AG_WRAP(ctx, out, ct__unary(ctx, #fn, K, a, FLOAT_ONLY, ALLOW_BOOL, NULL, 0, out),     \
                    CT__AG_IN1(AG, a));                                                            \
    }
CT__UN(neg, CT_OP_NEG, false, false, CT__AG_NEG)
CT__UN(abs, CT_OP_ABS, false, false, CT__AG_ABS)
CT__UN(exp, CT_OP_EXP, true, true, CT__AG_EXP)
CT__UN(log, CT_OP_LOG, true, true, CT__AG_LOG)
CT__UN(sqrt, CT_OP_SQRT, true, true, CT__AG_SQRT)
CT__UN(rsqrt, CT_OP_RSQRT, true, true, CT__AG_RSQRT)
CT__UN(tanh, CT_OP_TANH, true, true, CT__AG_TANH)
CT__UN(sigmoid, CT_OP_SIGMOID, true, true, CT__AG_SIGMOID)
CT__UN(relu, CT_OP_RELU, false, false, CT__AG_RELU)

static ct_status ct__fwd_gelu(ct_ctx *ctx, const ct_tensor *a, ct_gelu_approx approx,
                              ct_tensor **out) {
    if (approx != CT_GELU_ERF && approx != CT_GELU_TANH)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "gelu: approximate must be erf or tanh, got %d", (int)approx);
    if (a && ctx && ct__is_compute_dtype(a->dtype) && !ct_dtype_is_floating(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "gelu: floating input required, got %s (as torch)",
                             ct_dtype_name(a->dtype));
    return ct__unary(ctx, "gelu", CT_OP_GELU, a, true, true, NULL, approx, out);
}

/* Range an integer bound may take for dtype dt in torch.clamp (c10's overflow check: uint8 also
 * accepts -255..-1, which wrap). */
static bool ct__clamp_bound_ok(ct_dtype dt, double v, double *conv) {
    if (!ct__int_scalar_conv(dt, v, conv)) return false;
    if (dt == CT_UINT8 && *conv < 0) *conv += 256; /* -255..-1 wrap */
    return true;
}

static ct_status ct__fwd_pow(ct_ctx *ctx, const ct_tensor *a, double exponent, ct_tensor **out) {
    double sc[4] = {exponent, 0, 0, 0};
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "pow", 1, ins, out);
    if (st != CT_OK) return st;
    /* torch converts the exponent to the tensor's scalar type with c10's overflow check: f16 and
     * bf16 reject finite exponents beyond their largest value (f32/f64 take any double) */
    double emax = a->dtype == CT_FLOAT16    ? 65504.0
                  : a->dtype == CT_BFLOAT16 ? 3.3895313892515355e38
                                            : 0;
    if (emax > 0 && isfinite(exponent) && fabs(exponent) > emax)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pow: exponent %g cannot be converted to %s without overflow",
                             exponent, ct_dtype_name(a->dtype));
    /* torch converts the exponent to the element type: an f16/bf16 tensor computes
     * x ** bf16(0.1) = x ** 0.10009765625 (in f32) */
    if (a->dtype == CT_BFLOAT16) sc[0] = ct_bf16_to_f32(ct_f32_to_bf16((float)exponent));
    if (a->dtype == CT_FLOAT16) sc[0] = ct_f16_to_f32(ct_f32_to_f16((float)exponent));
    /* f32 with an odd integer exponent that rounds to an even f32 (|e| > 2^24): powf would drop
     * the sign of x^e for negative x (the magnitude is 0, 1 or inf either way); pow in double
     * keeps it (torch's scalar path, std::pow(float, double); its vector body rounds) */
    if (a->dtype == CT_FLOAT32 && fabs(exponent) < 0x1p53 && fabs(fmod(exponent, 2)) == 1 &&
        (double)(float)exponent != exponent) {
        ct_tensor *ad = NULL, *rd = NULL;
        if ((st = ct_cast(ctx, a, CT_FLOAT64, &ad)) != CT_OK) return st;
        st = ct__unary(ctx, "pow", CT_OP_POW, ad, true, false, sc, 0, &rd);
        ct_tensor_release(ad);
        if (st == CT_OK) st = ct_cast(ctx, rd, CT_FLOAT32, out);
        ct_tensor_release(rd);
        return st;
    }
    if (ct_dtype_is_floating(a->dtype))
        return ct__unary(ctx, "pow", CT_OP_POW, a, true, false, sc, 0, out);
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "pow: dtype %s is a storage format",
                             ct_dtype_name(a->dtype));
    /* bool/integer tensors: an integral exponent keeps the dtype (bool promotes to int64, as
     * torch.pow(bool_tensor, 2)); any other exponent computes in float32 */
    if (!ct__scalar_is_int(exponent)) {
        ct_tensor *af = NULL;
        if ((st = ct_cast(ctx, a, CT_FLOAT32, &af)) != CT_OK) return st;
        st = ct__unary(ctx, "pow", CT_OP_POW, af, true, false, sc, 0, out);
        ct_tensor_release(af);
        return st;
    }
    if (exponent < 0)
        return ct__set_error(
            ctx, CT_ERR_INVALID_ARG,
            "pow: integers to negative integer powers are not allowed (exponent %g)", exponent);
    double conv;
    if (a->dtype != CT_BOOL && !ct__clamp_bound_ok(a->dtype, exponent, &conv))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pow: exponent %g cannot be converted to %s without overflow",
                             exponent, ct_dtype_name(a->dtype));
    if (a->dtype != CT_BOOL) return ct__unary(ctx, "pow", CT_OP_POW, a, false, false, sc, 0, out);
    ct_tensor *ai = NULL;
    if ((st = ct_cast(ctx, a, CT_INT64, &ai)) != CT_OK) return st;
    st = ct__unary(ctx, "pow", CT_OP_POW, ai, false, false, sc, 0, out);
    ct_tensor_release(ai);
    return st;
}

static ct_status ct__fwd_clamp(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                               ct_tensor **out) {
    if (ctx && !lo && !hi)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "clamp: at least one of min or max must be given");
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "clamp", 1, ins, out);
    if (st != CT_OK) return st;
    double sc[4] = {lo ? *lo : 0, hi ? *hi : 0, 0, 0};
    int64_t flags = (lo ? 1 : 0) | (hi ? 2 : 0);
    if (lo && hi && (isnan(*lo) || isnan(*hi))) {
        /* torch 1.13 evaluates min(max(x, lo), hi) when both bounds are given, so a NaN bound
         * makes every element NaN (a single NaN bound leaves the values, handled below); the
         * result dtype is a's when floating, else float32 (a NaN bound is a float) */
        if (!ct__is_compute_dtype(a->dtype))
            return ct__set_error(ctx, CT_ERR_DTYPE, "clamp: dtype %s is a storage format",
                                 ct_dtype_name(a->dtype));
        if (ct_dtype_is_floating(a->dtype)) return ct_mul_scalar(ctx, a, NAN, out);
        ct_tensor *af = NULL;
        if ((st = ct_cast(ctx, a, CT_FLOAT32, &af)) != CT_OK) return st;
        st = ct_mul_scalar(ctx, af, NAN, out);
        ct_tensor_release(af);
        return st;
    }
    if (ct_dtype_is_floating(a->dtype)) {
        /* a bound converts to the dtype as c10 checks it: f32 1e39 or bf16 3.4e38 overflow */
        for (int i = 0; i < 2; i++)
            if ((flags >> i & 1) && (st = ct__check_scalar_param(ctx, "clamp", i ? "max" : "min",
                                                                 a->dtype, sc[i], false)) != CT_OK)
                return st;
        return ct__unary(ctx, "clamp", CT_OP_CLAMP, a, true, false, sc, flags, out);
    }
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "clamp: dtype %s is a storage format",
                             ct_dtype_name(a->dtype));
    /* bool/integer tensors (torch.result_type with the bounds as Python numbers): a fractional,
     * infinite or NaN bound gives float32; integral bounds keep the dtype (bool -> int64) and must
     * fit it, as torch raises "value cannot be converted to type int8_t without overflow" */
    bool frac = (lo && !ct__scalar_is_int(*lo)) || (hi && !ct__scalar_is_int(*hi));
    ct_dtype dt = frac ? CT_FLOAT32 : a->dtype == CT_BOOL ? CT_INT64 : a->dtype;
    for (int i = 0; i < 2 && frac; i++) /* the float32 result takes the bounds as floats */
        if ((flags >> i & 1) && (st = ct__check_scalar_param(ctx, "clamp", i ? "max" : "min",
                                                             CT_FLOAT32, sc[i], false)) != CT_OK)
            return st;
    if (!frac)
        for (int i = 0; i < 2; i++) {
            if (!(flags >> i & 1)) continue;
            if (!ct__clamp_bound_ok(dt, sc[i], &sc[i]))
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "clamp: %s %g cannot be converted to %s without overflow",
                                     i ? "max" : "min", i ? *hi : *lo, ct_dtype_name(dt));
        }
    if (dt == a->dtype)
        return ct__unary(ctx, "clamp", CT_OP_CLAMP, a, false, false, sc, flags, out);
    ct_tensor *ac = NULL;
    if ((st = ct_cast(ctx, a, dt, &ac)) != CT_OK) return st;
    st = ct__unary(ctx, "clamp", CT_OP_CLAMP, ac, false, false, sc, flags, out);
    ct_tensor_release(ac);
    return st;
}

static ct_status ct__fwd_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a,
                               const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[3] = {cond, a, b};
    ct_status st = ct__check_args(ctx, "where", 3, ins, out);
    if (st != CT_OK) return st;
    if (cond->dtype != CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "where: condition must be bool, got %s",
                             ct_dtype_name(cond->dtype));
    ct_dtype dt;
    if ((st = ct__result_type(ctx, "where", 2, ins + 1, &dt)) != CT_OK) return st;
    return ct__ew(ctx, "where", CT_OP_WHERE, 3, ins, dt, dt, NULL, 0, out);
}

static ct_status ct__addc(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *s,
                          const ct_tensor *t1, const ct_tensor *t2, double value, ct_tensor **out) {
    const ct_tensor *ins[3] = {s, t1, t2};
    ct_status st = ct__check_args(ctx, name, 3, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 3, ins, &dt)) != CT_OK) return st;
    /* addcmul works on integers (value truncated to an integer, as torch); addcdiv and bool do
     * not (torch raises for both) */
    /* torch rejects integer division in addcdiv whenever both t1 and t2 are bool/integer, even
     * when self is floating */
    if (kind == CT_OP_ADDCDIV && !ct_dtype_is_floating(t1->dtype) &&
        !ct_dtype_is_floating(t2->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "addcdiv: integer division (t1 %s, t2 %s) is not supported; cast "
                             "t1 or t2 to a floating dtype",
                             ct_dtype_name(t1->dtype), ct_dtype_name(t2->dtype));
    if (dt == CT_BOOL || (kind == CT_OP_ADDCDIV && !ct_dtype_is_floating(dt)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: %s inputs are not supported", name,
                             ct_dtype_name(dt));
    /* value converts to the dtype as c10 checks it (float for f16 / bf16; integers truncated,
     * int64's 2^63 to INT64_MIN as x86) */
    if ((st = ct__check_scalar_param(ctx, name, "value", dt, value, true)) != CT_OK) return st;
    double sc[4] = {value, 0, 0, 0};
    if (!ct_dtype_is_floating(dt)) ct__int_scalar_conv(dt, value, &sc[0]);
    return ct__ew(ctx, name, kind, 3, ins, dt, dt, sc, 0, out);
}
static ct_status ct__fwd_addcmul(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1,
                                 const ct_tensor *t2, double value, ct_tensor **out) {
    return ct__addc(ctx, "addcmul", CT_OP_ADDCMUL, self, t1, t2, value, out);
}
static ct_status ct__fwd_addcdiv(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1,
                                 const ct_tensor *t2, double value, ct_tensor **out) {
    return ct__addc(ctx, "addcdiv", CT_OP_ADDCDIV, self, t1, t2, value, out);
}

static ct_status ct__fwd_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dtype, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "cast", 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(dtype) || ct_dtype_is_complex(a->dtype)) {
        if (dtype == a->dtype) return ct_tensor_clone(ctx, a, out);
        return ct__cx_cast(ctx, a, dtype, out);
    }
    if (!ct__is_compute_dtype(dtype) || (!ct__is_compute_dtype(a->dtype) && a->dtype != dtype))
        return ct__set_error(
            ctx, CT_ERR_DTYPE,
            "cast: %s -> %s is not supported by cast; use the MX/low-precision API",
            ct_dtype_name(a->dtype), ct_dtype_name(dtype));
    ct_tensor *r;
    if ((st = ct__tensor_new(ctx, a->storage->device, dtype, a->ndim, a->shape, &r)) != CT_OK)
        return st;
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_COPY, 1, 1);
    ct__operand_set(&d.operands[0], r);
    ct__operand_set(&d.operands[1], a);
    d.compute_dtype = dtype;
    if ((st = ct__submit(ctx, r->storage->device, &d)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* ---- scalar operands (PyTorch's wrapped-number promotion) and in-place variants ---- */

/* torch.result_type(tensor of dtype dt, Python number v): an int scalar keeps dt (bool -> int64),
 * a float scalar keeps a floating dt and turns bool/integer dt into float32 (the default dtype). */
static ct_dtype ct__wrapped_result(ct_dtype dt, double v) {
    if (ct_dtype_is_floating(dt)) return dt;
    if (!ct__scalar_is_int(v)) return CT_FLOAT32;
    return dt == CT_BOOL ? CT_INT64 : dt;
}

/* A 0-d tensor of dtype dt on a's device holding v (an integral v wraps into a narrow integer
 * dtype as a Python int does in torch). */
static ct_status ct__scalar_tensor(ct_ctx *ctx, const ct_tensor *a, ct_dtype dt, double v,
                                   ct_tensor **out) {
    ct_tensor *r;
    ct_status st = ct__tensor_new(ctx, a->storage->device, dt, 0, NULL, &r);
    if (st != CT_OK) return st;
    double val = v;
    if (!ct_dtype_is_floating(dt) && dt != CT_BOOL && dt != CT_INT64 && ct__scalar_is_int(v)) {
        /* reduce modulo 2^bits first so the fill kernel's conversion is exact */
        uint64_t u = (uint64_t)(int64_t)v;
        switch (dt) {
        case CT_UINT8: val = (double)(uint8_t)u; break;
        case CT_INT8: val = (double)(int8_t)(uint8_t)u; break;
        case CT_INT16: val = (double)(int16_t)(uint16_t)u; break;
        case CT_INT32: val = (double)(int32_t)(uint32_t)u; break;
        default: break;
        }
    }
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_FILL, 1, 0);
    ct__operand_set(&d.operands[0], r);
    d.compute_dtype = dt;
    d.scalars[0] = val;
    if ((st = ct__submit(ctx, r->storage->device, &d)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

static ct_status ct__binary_scalar_to(ct_ctx *ctx, const char *name, ct_op_kind kind,
                                      const ct_tensor *a, double v, ct_tensor *into,
                                      ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype)) { /* a real scalar keeps the complex dtype (torch) */
        ct_tensor *sv = NULL;
        if ((st = ct__scalar_tensor(ctx, a, ct_dtype_to_real(a->dtype), v, &sv)) != CT_OK)
            return st;
        st = ct__binary_to(ctx, name, kind, a, sv, 1.0, into, out);
        ct_tensor_release(sv);
        return st;
    }
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: dtype %s is a storage format; cast it to a compute dtype first",
                             name, ct_dtype_name(a->dtype));
    if (kind == CT_OP_SUB && a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "sub: subtracting with a bool operand (bool - scalar) is not "
                             "supported; use logical_xor / logical_not");
    /* true division of a bool/integer tensor computes in float32: torch converts the int scalar
     * straight to float32 (uint8 / -3 is -8/3), it is never wrapped into the tensor's dtype */
    ct_dtype sdt = ct__wrapped_result(a->dtype, v);
    if (kind == CT_OP_DIV && !ct_dtype_is_floating(sdt)) sdt = CT_FLOAT32;
    ct_tensor *sv = NULL;
    if ((st = ct__scalar_tensor(ctx, a, sdt, v, &sv)) != CT_OK) return st;
    st = ct__binary_to(ctx, name, kind, a, sv, 1.0, into, out);
    ct_tensor_release(sv);
    return st;
}
static ct_status ct__binary_scalar(ct_ctx *ctx, const char *name, ct_op_kind kind,
                                   const ct_tensor *a, double v, ct_tensor **out) {
    return ct__binary_scalar_to(ctx, name, kind, a, v, NULL, out);
}

#define CT__SCALAR(fn, K, AG)                                                                      \
    ct_status ct_##fn##_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out) {       \
        CT__AG_WRAP(ctx, out, ct__binary_scalar(ctx, #fn, K, a, v, out),                           \
                    (CT__AG_IN1(AG, a), r_.sc[0] = v));                                            \
    }
CT__SCALAR(add, CT_OP_ADD, CT__AG_ADD_S)
CT__SCALAR(sub, CT_OP_SUB, CT__AG_SUB_S)
CT__SCALAR(mul, CT_OP_MUL, CT__AG_MUL_S)
CT__SCALAR(div, CT_OP_DIV, CT__AG_DIV_S)
CT__SCALAR(eq, CT_OP_EQ, CT__AG_NONE)
CT__SCALAR(ne, CT_OP_NE, CT__AG_NONE)
CT__SCALAR(lt, CT_OP_LT, CT__AG_NONE)
CT__SCALAR(le, CT_OP_LE, CT__AG_NONE)
CT__SCALAR(gt, CT_OP_GT, CT__AG_NONE)
CT__SCALAR(ge, CT_OP_GE, CT__AG_NONE)

/* torch.rsub(a, v, alpha) = v - alpha * a with v a wrapped number: one sub_scaled of the 0-d
 * scalar tensor and a, so the rounding is sub's (fma(-alpha, a, v)). */
ct_status ct_rsub_scalar(ct_ctx *ctx, const ct_tensor *a, double v, double alpha, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "rsub", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "rsub: dtype %s is a storage format; cast it to a compute dtype first",
                             ct_dtype_name(a->dtype));
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "rsub: subtracting with a bool operand (scalar - bool) is not "
                             "supported; use logical_xor / logical_not");
    ct_tensor *sv = NULL;
    if ((st = ct__scalar_tensor(ctx, a, ct__wrapped_result(a->dtype, v), v, &sv)) != CT_OK)
        return st;
    uint64_t mark = ct__ag_mark(ctx);
    st = ct__error_within(ctx, "rsub", ct_sub_scaled(ctx, sv, a, alpha, out));
    ct_tensor_release(sv);
    return ct__ag_named(ctx, st, out, mark, "RsubBackward1");
}

/* The out-of-place form of an in-place op under autograd (ct__ag_inplace_fn). */
typedef struct ct__inplace_arg {
    ct_op_kind kind;
    const ct_tensor *other;
    double v;
} ct__inplace_arg;
static ct_status ct__inplace_binary_as(ct_ctx *ctx, const ct_tensor *self, const void *arg,
                                       ct_tensor **out) {
    const ct__inplace_arg *a = arg;
    switch (a->kind) {
    case CT_OP_ADD: return ct_add(ctx, self, a->other, out);
    case CT_OP_SUB: return ct_sub(ctx, self, a->other, out);
    case CT_OP_MUL: return ct_mul(ctx, self, a->other, out);
    default: return ct_div(ctx, self, a->other, out);
    }
}
static ct_status ct__inplace_scalar_as(ct_ctx *ctx, const ct_tensor *self, const void *arg,
                                       ct_tensor **out) {
    const ct__inplace_arg *a = arg;
    switch (a->kind) {
    case CT_OP_ADD: return ct_add_scalar(ctx, self, a->v, out);
    case CT_OP_SUB: return ct_sub_scalar(ctx, self, a->v, out);
    case CT_OP_MUL: return ct_mul_scalar(ctx, self, a->v, out);
    default: return ct_div_scalar(ctx, self, a->v, out);
    }
}

/* self = op(self, other) with PyTorch's in-place rules: the result dtype must be castable to
 * self's (no float -> integer, no integer -> bool) and the broadcast shape must be self's. */
/* complex in-place: the out-of-place complex op, then copied into self (which must be complex:
 * torch's "result type ComplexFloat can't be cast to the desired output type Float") */
static ct_status ct__cx_inplace(ct_ctx *ctx, const char *name, ct_op_kind kind, ct_tensor *self,
                                const ct_tensor *other, bool is_scalar, double v) {
    if (!ct_dtype_is_complex(self->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: result type %s can't be cast to the desired output type %s", name,
                             ct_dtype_name(other->dtype), ct_dtype_name(self->dtype));
    const ct_tensor *ag[2] = {self, other};
    ct__inplace_arg a = {kind, other, v};
    if (ct__ag_wants(ctx, is_scalar ? 1 : 2, ag)) { /* self takes the complex op's node */
        ct__ag_inplace_w w = {
            name, self, other, true, is_scalar ? ct__inplace_scalar_as : ct__inplace_binary_as,
            &a,   NULL, NULL};
        return ct__ag_inplace(ctx, &w);
    }
    ct_tensor *r = NULL, *c = NULL;
    ct_status st = is_scalar ? ct__inplace_scalar_as(ctx, self, &a, &r)
                             : ct__inplace_binary_as(ctx, self, &a, &r);
    if (st == CT_OK) {
        int same = r->ndim == self->ndim;
        for (int i = 0; same && i < r->ndim; i++)
            same = r->shape[i] == self->shape[i];
        if (!same)
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "%s: output with shape %s doesn't match the broadcast shape", name,
                               CT__SHAPE_STR(self));
    }
    if (st == CT_OK) st = ct__to_dtype(ctx, r, self->dtype, &c);
    if (st == CT_OK) st = ct_tensor_copy_(ctx, self, c);
    ct_tensor_release(r), ct_tensor_release(c);
    return st;
}

static ct_status ct__inplace(ct_ctx *ctx, const char *name, ct_op_kind kind, ct_tensor *self,
                             const ct_tensor *other, bool is_scalar, double v) {
    const ct_tensor *ins[2] = {self, other};
    ct_status st = ct__check_args(ctx, name, is_scalar ? 1 : 2, ins, (void *)1);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(self->dtype) || (!is_scalar && ct_dtype_is_complex(other->dtype)))
        return ct__cx_inplace(ctx, name, kind, self, other, is_scalar, v);
    ct_dtype rt;
    if (is_scalar) {
        if (!ct__is_compute_dtype(self->dtype))
            return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", name,
                                 ct_dtype_name(self->dtype));
        rt = ct__wrapped_result(self->dtype, v);
    } else {
        if ((st = ct__result_type(ctx, name, 2, ins, &rt)) != CT_OK) return st;
        int nd;
        int64_t sh[CT_MAX_DIMS];
        if ((st = ct__broadcast_shapes(ctx, name, 2, ins, &nd, sh)) != CT_OK) return st;
        bool same = nd == self->ndim;
        for (int i = 0; same && i < nd; i++)
            same = sh[i] == self->shape[i];
        if (!same) {
            char b[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: output with shape %s doesn't match the broadcast shape of "
                                 "%s and %s",
                                 name, CT__SHAPE_STR(self), CT__SHAPE_STR(self),
                                 ct__shape_str(b, sizeof b, other->ndim, other->shape));
        }
    }
    if ((st = ct__check_no_overlap(ctx, name, self)) != CT_OK) return st; /* expanded self */
    if (kind == CT_OP_DIV && !ct_dtype_is_floating(rt)) rt = CT_FLOAT32;
    if (ct__cast_category(rt) > ct__cast_category(self->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: result type %s can't be cast to the desired output type %s", name,
                             ct_dtype_name(rt), ct_dtype_name(self->dtype));
    if (ct__ag_inplace_wanted(ctx, self, other)) {
        /* autograd: torch's node (MulBackward0 for mul_ by a tensor or a number alike); mul and
         * div by a tensor save self, which the write changes */
        ct__inplace_arg a = {kind, other, v};
        ct__ag_inplace_w w = {name,
                              self,
                              other,
                              !is_scalar && (kind == CT_OP_MUL || kind == CT_OP_DIV),
                              is_scalar ? ct__inplace_scalar_as : ct__inplace_binary_as,
                              &a,
                              kind == CT_OP_ADD   ? "AddBackward0"
                              : kind == CT_OP_SUB ? "SubBackward0"
                              : kind == CT_OP_MUL ? "MulBackward0"
                                                  : "DivBackward0",
                              NULL};
        return ct__ag_inplace(ctx, &w);
    }
    /* The result goes straight into self when self is contiguous and other is not a different
     * view of self's memory (an element is then read only where it is written); otherwise it is
     * computed apart and copied in (copy_ checks the overlap). */
    bool direct = rt == self->dtype && ct_tensor_is_contiguous(self) && ct_tensor_numel(self) > 0;
    if (direct && !is_scalar && other->storage == self->storage)
        direct = ct__same_view(other, self);
    ct_tensor *r = NULL;
    st = is_scalar ? ct__binary_scalar_to(ctx, name, kind, self, v, direct ? self : NULL, &r)
                   : ct__binary_to(ctx, name, kind, self, other, 1.0, direct ? self : NULL, &r);
    if (st != CT_OK) return st;
    if (r != self) st = ct_tensor_copy_(ctx, self, r);
    ct_tensor_release(r);
    return st;
}

#define CT__INPLACE(fn, K)                                                                         \
    ct_status ct_##fn##_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other) {                   \
        return ct__inplace(ctx, #fn "_", K, self, other, false, 0);                                \
    }                                                                                              \
    ct_status ct_##fn##_scalar_(ct_ctx *ctx, ct_tensor *self, double v) {                          \
        return ct__inplace(ctx, #fn "_", K, self, NULL, true, v);                                  \
    }
CT__INPLACE(add, CT_OP_ADD)
CT__INPLACE(sub, CT_OP_SUB)
CT__INPLACE(mul, CT_OP_MUL)
CT__INPLACE(div, CT_OP_DIV)

/* ---- public front ends that record autograd nodes (tensor/ag_front.h) ---- */
/* a complex operand: the complex front end records its own node (complex formulas) */
#define CT__CX_BIN(name, kind, alpha)                                                              \
    if (ctx && out && ct__tensor_live(a) && ct__tensor_live(b) && ct__cx_either(a, b))             \
    return ct__cx_binary(ctx, name, kind, a, b, alpha, out)
static bool ct__cx_either(const ct_tensor *a, const ct_tensor *b) {
    return (ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) ||
           (ct__tensor_live(b) && ct_dtype_is_complex(b->dtype));
}
ct_status ct_add(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    CT__CX_BIN("add", CT_OP_ADD, 1.0);
    CT__AG_WRAP(ctx, out, ct__fwd_add(ctx, a, b, out),
                (CT__AG_IN2(CT__AG_ADD, a, b), r_.sc[0] = 1));
}
ct_status ct_add_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                        ct_tensor **out) {
    CT__CX_BIN("add", CT_OP_ADD, alpha);
    CT__AG_WRAP(ctx, out, ct__fwd_add_scaled(ctx, a, b, alpha, out),
                (CT__AG_IN2(CT__AG_ADD, a, b), r_.sc[0] = alpha));
}
ct_status ct_sub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    CT__CX_BIN("sub", CT_OP_SUB, 1.0);
    CT__AG_WRAP(ctx, out, ct__fwd_sub(ctx, a, b, out),
                (CT__AG_IN2(CT__AG_SUB, a, b), r_.sc[0] = 1));
}
ct_status ct_sub_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                        ct_tensor **out) {
    CT__CX_BIN("sub", CT_OP_SUB, alpha);
    CT__AG_WRAP(ctx, out, ct__fwd_sub_scaled(ctx, a, b, alpha, out),
                (CT__AG_IN2(CT__AG_SUB, a, b), r_.sc[0] = alpha));
}
ct_status ct_mul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    CT__CX_BIN("mul", CT_OP_MUL, 1.0);
    CT__AG_WRAP(ctx, out, ct__fwd_mul(ctx, a, b, out), CT__AG_IN2(CT__AG_MUL, a, b));
}
ct_status ct_div(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    CT__CX_BIN("div", CT_OP_DIV, 1.0);
    CT__AG_WRAP(ctx, out, ct__fwd_div(ctx, a, b, out), CT__AG_IN2(CT__AG_DIV, a, b));
}
ct_status ct_gelu(ct_ctx *ctx, const ct_tensor *a, ct_gelu_approx approx, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_gelu(ctx, a, approx, out),
                (CT__AG_IN1(CT__AG_GELU, a), r_.n_iv = 1, r_.iv[0] = approx));
}
ct_status ct_pow(ct_ctx *ctx, const ct_tensor *a, double exponent, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))
        return ct__cx_pow(ctx, a, exponent, out);
    CT__AG_WRAP(ctx, out, ct__fwd_pow(ctx, a, exponent, out),
                (CT__AG_IN1(CT__AG_POW, a), r_.sc[0] = exponent));
}
ct_status ct_clamp(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                   ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_clamp(ctx, a, lo, hi, out),
                (CT__AG_IN1(CT__AG_CLAMP, a), r_.sc[0] = lo ? *lo : 0, r_.sc[1] = hi ? *hi : 0,
                 r_.n_iv = 1, r_.iv[0] = (lo ? 1 : 0) | (hi ? 2 : 0)));
}
ct_status ct_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b,
                   ct_tensor **out) {
    if (ctx && out && ct__tensor_live(cond) && cond->dtype == CT_UINT8) {
        ct_tensor *b_ = NULL; /* torch's deprecated ByteTensor mask: as bool */
        ct_status st_ = ct__byte_mask(ctx, cond, &b_);
        if (st_ == CT_OK) st_ = ct_where(ctx, b_, a, b, out);
        ct_tensor_release(b_);
        return st_;
    }
    if (ctx && out && ct__tensor_live(cond) && ct__cx_either(a, b) && ct__tensor_live(a) &&
        ct__tensor_live(b))
        return ct__cx_where(ctx, cond, a, b, out);
    CT__AG_WRAP(ctx, out, ct__fwd_where(ctx, cond, a, b, out),
                CT__AG_IN3(CT__AG_WHERE, cond, a, b));
}
/* complex addcmul / addcdiv: self + value (t1 * t2) or self + value (t1 / t2) with the complex
 * ops (each differentiable), torch's node name */
static ct_status ct__cx_addc(ct_ctx *ctx, bool div, const ct_tensor *self, const ct_tensor *t1,
                             const ct_tensor *t2, double value, ct_tensor **out) {
    const char *name = div ? "addcdiv" : "addcmul";
    const uint64_t mark = ct__ag_mark(ctx);
    /* every operand in the promoted dtype first (torch computes there) */
    const ct_tensor *ins[3] = {self, t1, t2};
    ct_dtype dt;
    ct_status st = ct__cx_result_type(ctx, name, 3, ins, &dt);
    if (st == CT_OK) st = ct__check_scalar_param(ctx, name, "value", dt, value, true);
    ct_tensor *c[3] = {NULL}, *p = NULL, *q = NULL;
    for (int i = 0; i < 3 && st == CT_OK; i++)
        st = ct__to_dtype(ctx, ins[i], dt, &c[i]);
    if (st == CT_OK) st = div ? ct_div(ctx, c[1], c[2], &p) : ct_mul(ctx, c[1], c[2], &p);
    if (st == CT_OK) st = ct_mul_scalar(ctx, p, value, &q);
    if (st == CT_OK) st = ct_add(ctx, c[0], q, out);
    ct_tensor_release(p), ct_tensor_release(q);
    ct__release_all(3, c);
    return ct__ag_named(ctx, ct__error_within(ctx, name, st), out, mark,
                        div ? "AddcdivBackward0" : "AddcmulBackward0");
}
/* every operand live (c may be NULL: absent) and one of them complex */
static bool ct__cx_any3(const ct_tensor *a, const ct_tensor *b, const ct_tensor *c) {
    return ct__tensor_live(a) && ct__tensor_live(b) && (!c || ct__tensor_live(c)) &&
           (ct_dtype_is_complex(a->dtype) || ct_dtype_is_complex(b->dtype) ||
            (c && ct_dtype_is_complex(c->dtype)));
}
ct_status ct_addcmul(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                     double value, ct_tensor **out) {
    if (ctx && out && ct__cx_any3(self, t1, t2))
        return ct__cx_addc(ctx, false, self, t1, t2, value, out);
    CT__AG_WRAP(ctx, out, ct__fwd_addcmul(ctx, self, t1, t2, value, out),
                (CT__AG_IN3(CT__AG_ADDCMUL, self, t1, t2), r_.sc[0] = value));
}
ct_status ct_addcdiv(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                     double value, ct_tensor **out) {
    if (ctx && out && ct__cx_any3(self, t1, t2))
        return ct__cx_addc(ctx, true, self, t1, t2, value, out);
    CT__AG_WRAP(ctx, out, ct__fwd_addcdiv(ctx, self, t1, t2, value, out),
                (CT__AG_IN3(CT__AG_ADDCDIV, self, t1, t2), r_.sc[0] = value));
}
ct_status ct_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dtype, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_cast(ctx, a, dtype, out), CT__AG_IN1(CT__AG_CAST, a));
}

/* ---- the everyday elementwise ops (docs/everyday.md) ---- */

/* Math functions: bool/integer inputs compute in float32 (as torch). */
CT__UN(erf, CT_OP_ERF, true, true, CT__AG_ERF)
CT__UN(erfc, CT_OP_ERFC, true, true, CT__AG_ERFC)
CT__UN(sin, CT_OP_SIN, true, true, CT__AG_SIN)
CT__UN(cos, CT_OP_COS, true, true, CT__AG_COS)
CT__UN(exp2, CT_OP_EXP2, true, true, CT__AG_EXP2)
CT__UN(log2, CT_OP_LOG2, true, true, CT__AG_LOG2)
CT__UN(log1p, CT_OP_LOG1P, true, true, CT__AG_LOG1P)
CT__UN(expm1, CT_OP_EXPM1, true, true, CT__AG_EXPM1)
CT__UN(tan, CT_OP_TAN, true, true, CT__AG_TAN)
CT__UN(atan, CT_OP_ATAN, true, true, CT__AG_ATAN)
CT__UN(asin, CT_OP_ASIN, true, true, CT__AG_ASIN)
CT__UN(acos, CT_OP_ACOS, true, true, CT__AG_ACOS)
CT__UN(sinh, CT_OP_SINH, true, true, CT__AG_SINH)
CT__UN(cosh, CT_OP_COSH, true, true, CT__AG_COSH)
CT__UN(asinh, CT_OP_ASINH, true, true, CT__AG_ASINH)
CT__UN(acosh, CT_OP_ACOSH, true, true, CT__AG_ACOSH)
CT__UN(atanh, CT_OP_ATANH, true, true, CT__AG_ATANH)
CT__UN(log10, CT_OP_LOG10, true, true, CT__AG_LOG10)
CT__UN(reciprocal, CT_OP_RECIPROCAL, true, true, CT__AG_RECIPROCAL)
/* Rounding keeps integer dtypes (a copy) and refuses bool; sign takes bool too. One zero-gradient
 * formula, printed with torch's node name. */
#define CT__UN_ZERO(fn, K, ALLOW_BOOL, NAME)                                                       \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {                          \
        CT__AG_WRAP(ctx, out, ct__unary(ctx, #fn, K, a, false, ALLOW_BOOL, NULL, 0, out),          \
                    (CT__AG_IN1(CT__AG_ZERO, a), r_.name = NAME));                                 \
    }
CT__UN_ZERO(floor, CT_OP_FLOOR, false, "FloorBackward0")
CT__UN_ZERO(ceil, CT_OP_CEIL, false, "CeilBackward0")
CT__UN_ZERO(round, CT_OP_ROUND, false, "RoundBackward0")
CT__UN_ZERO(trunc, CT_OP_TRUNC, false, "TruncBackward0")
CT__UN_ZERO(sign, CT_OP_SIGN, true, "SignBackward0")

/* Activations take floating inputs only (torch raises "not implemented for 'Int'"). */
static ct_status ct__activation(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                                double c0, double c1, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct_dtype_is_floating(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s (as torch)",
                             name, ct_dtype_name(a->dtype));
    /* the parameters (softplus's beta and threshold, leaky_relu's slope, elu's alpha) convert
     * to the opmath type as c10 checks it */
    for (int i = 0; i < 2; i++)
        if ((st = ct__check_scalar_param(ctx, name,
                                         i                          ? "threshold"
                                         : kind == CT_OP_SOFTPLUS   ? "beta"
                                         : kind == CT_OP_LEAKY_RELU ? "slope"
                                                                    : "alpha",
                                         a->dtype, i ? c1 : c0, true)) != CT_OK)
            return st;
    double sc[4] = {c0, c1, 0, 0};
    return ct__unary(ctx, name, kind, a, true, false, sc, 0, out);
}
ct_status ct_silu(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) {
        /* complex (torch's silu takes it): x sigmoid(x), differentiable as the composition */
        *out = NULL;
        uint64_t mark = ct__ag_mark(ctx);
        ct_tensor *s = NULL;
        ct_status st = ct_sigmoid(ctx, a, &s);
        if (st == CT_OK) st = ct_mul(ctx, a, s, out);
        ct_tensor_release(s);
        return ct__ag_named(ctx, ct__error_within(ctx, "silu", st), out, mark, "SiluBackward0");
    }
    CT__AG_WRAP(ctx, out, ct__activation(ctx, "silu", CT_OP_SILU, a, 0, 0, out),
                CT__AG_IN1(CT__AG_SILU, a));
}
ct_status ct_mish(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__activation(ctx, "mish", CT_OP_MISH, a, 0, 0, out),
                CT__AG_IN1(CT__AG_MISH, a));
}
ct_status ct_softplus(ct_ctx *ctx, const ct_tensor *a, double beta, double threshold,
                      ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__activation(ctx, "softplus", CT_OP_SOFTPLUS, a, beta, threshold, out),
                (CT__AG_IN1(CT__AG_SOFTPLUS, a), r_.sc[0] = beta, r_.sc[1] = threshold));
}
ct_status ct_leaky_relu(ct_ctx *ctx, const ct_tensor *a, double negative_slope, ct_tensor **out) {
    CT__AG_WRAP(ctx, out,
                ct__activation(ctx, "leaky_relu", CT_OP_LEAKY_RELU, a, negative_slope, 0, out),
                (CT__AG_IN1(CT__AG_LEAKY_RELU, a), r_.sc[0] = negative_slope));
}
ct_status ct_elu(ct_ctx *ctx, const ct_tensor *a, double alpha, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__activation(ctx, "elu", CT_OP_ELU, a, alpha, 0, out),
                (CT__AG_IN1(CT__AG_ELU, a), r_.sc[0] = alpha));
}
static ct_status ct__fwd_hardtanh(ct_ctx *ctx, const ct_tensor *a, double lo, double hi,
                                  ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "hardtanh", 1, ins, out);
    if (st != CT_OK) return st;
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "hardtanh: bool input is not supported");
    /* as torch's hardtanh: integer inputs keep their dtype, the bounds truncated to integers
     * (Scalar::toLong; unsigned refuses negative ones); min_val > max_val is not checked, the
     * clamp then gives max_val everywhere */
    if (!ct_dtype_is_floating(a->dtype) && ct__is_compute_dtype(a->dtype)) {
        if (!ct__int_scalar_conv(CT_INT64, lo, &lo) || !ct__int_scalar_conv(CT_INT64, hi, &hi))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "hardtanh: bounds %g, %g cannot be converted to int64 without "
                                 "overflow",
                                 lo, hi);
        if (a->dtype == CT_UINT8 && (lo < 0 || hi < 0))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "hardtanh: cannot do hardtanh on an unsigned type with negative "
                                 "limits (%g, %g)",
                                 lo, hi);
    }
    return ct_clamp(ctx, a, &lo, &hi, out);
}
ct_status ct_hardtanh(ct_ctx *ctx, const ct_tensor *a, double min_val, double max_val,
                      ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_hardtanh(ctx, a, min_val, max_val, out),
                (CT__AG_IN1(CT__AG_HARDTANH, a), r_.sc[0] = min_val, r_.sc[1] = max_val));
}

/* Predicates: any compute dtype in, bool out. */
static ct_status ct__predicate(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                               ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype) && (kind == CT_OP_ISNAN || kind == CT_OP_ISFINITE))
        return ct__cx_unary(ctx, name, kind == CT_OP_ISNAN ? CT_CX_ISNAN : CT_CX_ISFINITE, a, out);
    if (ct_dtype_is_complex(a->dtype) && kind == CT_OP_LOGICAL_NOT) /* z == 0 + 0i */
        return ct_eq_scalar(ctx, a, 0.0, out);
    if (ct_dtype_is_complex(a->dtype) && kind == CT_OP_ISINF) { /* neither finite nor NaN */
        ct_tensor *f = NULL, *n = NULL, *fn = NULL;
        st = ct__cx_unary(ctx, name, CT_CX_ISFINITE, a, &f);
        if (st == CT_OK) st = ct__cx_unary(ctx, name, CT_CX_ISNAN, a, &n);
        if (st == CT_OK) st = ct_logical_or(ctx, f, n, &fn);
        if (st == CT_OK) st = ct_logical_not(ctx, fn, out);
        ct_tensor_release(f), ct_tensor_release(n), ct_tensor_release(fn);
        return st;
    }
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 1, ins, &dt)) != CT_OK) return st;
    return ct__ew(ctx, name, kind, 1, ins, dt, CT_BOOL, NULL, 0, out);
}
#define CT__PRED(fn, K)                                                                            \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {                          \
        return ct__predicate(ctx, #fn, K, a, out);                                                 \
    }
CT__PRED(isnan, CT_OP_ISNAN)
CT__PRED(isinf, CT_OP_ISINF)
CT__PRED(isfinite, CT_OP_ISFINITE)
CT__PRED(logical_not, CT_OP_LOGICAL_NOT)

ct_status ct_bitwise_not(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "bitwise_not", 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_floating(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "bitwise_not: integer or bool input required, got %s",
                             ct_dtype_name(a->dtype));
    return ct__unary(ctx, "bitwise_not", CT_OP_BITWISE_NOT, a, false, true, NULL, 0, out);
}

/* Binary ops of the everyday set: torch.result_type, then each family's dtype rule. */
static ct_status ct__binary2(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                             const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, name, 2, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 2, ins, &dt)) != CT_OK) return st;
    const bool logical =
        kind == CT_OP_LOGICAL_AND || kind == CT_OP_LOGICAL_OR || kind == CT_OP_LOGICAL_XOR;
    const bool bitwise = kind >= CT_OP_BITWISE_AND && kind <= CT_OP_BITWISE_RSHIFT;
    const bool shift = kind == CT_OP_BITWISE_LSHIFT || kind == CT_OP_BITWISE_RSHIFT;
    if (bitwise && (ct_dtype_is_floating(dt) || (shift && dt == CT_BOOL)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: %s operands required, got %s and %s", name,
                             shift ? "integer" : "integer or bool", ct_dtype_name(a->dtype),
                             ct_dtype_name(b->dtype));
    const bool divides = kind == CT_OP_REMAINDER || kind == CT_OP_FMOD || kind == CT_OP_DIV_TRUNC ||
                         kind == CT_OP_DIV_FLOOR;
    if (divides && dt == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: bool operands are not supported", name);
    st = ct__ew(ctx, name, kind, 2, ins, dt, logical ? CT_BOOL : dt, NULL, 0, out);
    if (st == CT_ERR_INVALID_ARG && divides)
        ct__set_error(ctx, st,
                      "%s: integer division by zero (a zero in the divisor; torch raises "
                      "ZeroDivisionError)",
                      name);
    return st;
}
#define CT__BIN2(fn, K, AG)                                                                        \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {      \
        CT__AG_WRAP(ctx, out, ct__binary2(ctx, #fn, K, a, b, out), CT__AG_IN2(AG, a, b));          \
    }
CT__BIN2(maximum, CT_OP_MAXIMUM, CT__AG_MAXIMUM)
CT__BIN2(minimum, CT_OP_MINIMUM, CT__AG_MINIMUM)
CT__BIN2(remainder, CT_OP_REMAINDER, CT__AG_REMAINDER)
CT__BIN2(fmod, CT_OP_FMOD, CT__AG_FMOD)
/* atan2: torch.result_type, integers and bool in float32 (as torch) */
static ct_status ct__atan2(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "atan2", 2, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, "atan2", 2, ins, &dt)) != CT_OK) return st;
    if (!ct_dtype_is_floating(dt)) dt = CT_FLOAT32;
    return ct__ew(ctx, "atan2", CT_OP_ATAN2, 2, ins, dt, dt, NULL, 0, out);
}
ct_status ct_atan2(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__atan2(ctx, a, b, out), CT__AG_IN2(CT__AG_ATAN2, a, b));
}
/* logical_and / or / xor: a complex operand counts as true where either part is nonzero */
static ct_status ct__logical(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                             const ct_tensor *b, ct_tensor **out) {
    if (!(ctx && out && ct__tensor_live(a) && ct__tensor_live(b) && ct__cx_either(a, b)))
        return ct__binary2(ctx, name, kind, a, b, out);
    /* both in the promoted dtype first, as torch (1e-307 is 0 in complex64) */
    const ct_tensor *ins[2] = {a, b};
    ct_dtype dt;
    ct_status st = ct__cx_result_type(ctx, name, 2, ins, &dt);
    ct_tensor *ca = NULL, *cb = NULL, *ba = NULL, *bb = NULL;
    if (st == CT_OK) st = ct__to_dtype(ctx, a, dt, &ca);
    if (st == CT_OK) st = ct__to_dtype(ctx, b, dt, &cb);
    if (st == CT_OK) st = ct_ne_scalar(ctx, ca, 0.0, &ba);
    if (st == CT_OK) st = ct_ne_scalar(ctx, cb, 0.0, &bb);
    if (st == CT_OK) st = ct__binary2(ctx, name, kind, ba, bb, out);
    ct_tensor_release(ca), ct_tensor_release(cb), ct_tensor_release(ba), ct_tensor_release(bb);
    return st;
}
#define CT__LOGICAL(fn, K)                                                                         \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {      \
        return ct__logical(ctx, #fn, K, a, b, out);                                                \
    }
CT__LOGICAL(logical_and, CT_OP_LOGICAL_AND)
CT__LOGICAL(logical_or, CT_OP_LOGICAL_OR)
CT__LOGICAL(logical_xor, CT_OP_LOGICAL_XOR)
CT__BIN2(bitwise_and, CT_OP_BITWISE_AND, CT__AG_NONE)
CT__BIN2(bitwise_or, CT_OP_BITWISE_OR, CT__AG_NONE)
CT__BIN2(bitwise_xor, CT_OP_BITWISE_XOR, CT__AG_NONE)
CT__BIN2(bitwise_left_shift, CT_OP_BITWISE_LSHIFT, CT__AG_NONE)
CT__BIN2(bitwise_right_shift, CT_OP_BITWISE_RSHIFT, CT__AG_NONE)

/* remainder / fmod with a Python-number divisor (wrapped-number promotion, as the scalar ops). */
static ct_status ct__rem_scalar(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                                double v, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", name,
                             ct_dtype_name(a->dtype));
    ct_tensor *sv = NULL;
    if ((st = ct__scalar_tensor(ctx, a, ct__wrapped_result(a->dtype, v), v, &sv)) != CT_OK)
        return st;
    st = ct__binary2(ctx, name, kind, a, sv, out);
    ct_tensor_release(sv);
    return st;
}
ct_status ct_remainder_scalar(ct_ctx *ctx, const ct_tensor *a, double other, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__rem_scalar(ctx, "remainder", CT_OP_REMAINDER, a, other, out),
                CT__AG_IN1(CT__AG_REMAINDER, a));
}
ct_status ct_fmod_scalar(ct_ctx *ctx, const ct_tensor *a, double other, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__rem_scalar(ctx, "fmod", CT_OP_FMOD, a, other, out),
                CT__AG_IN1(CT__AG_FMOD, a));
}

/* torch.div with rounding_mode (and floor_divide): the promoted dtype (integers stay integer). */
static ct_status ct__div_mode(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double v,
                              ct_rounding_mode mode, ct_tensor **out) {
    if (mode != CT_ROUND_NONE && mode != CT_ROUND_TRUNC && mode != CT_ROUND_FLOOR) {
        if (out) *out = NULL;
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "div: rounding mode %d is not CT_ROUND_NONE, CT_ROUND_TRUNC or "
                             "CT_ROUND_FLOOR",
                             (int)mode);
    }
    const char *name = mode == CT_ROUND_TRUNC ? "div (trunc)" : "div (floor)";
    const ct_op_kind kind = mode == CT_ROUND_TRUNC ? CT_OP_DIV_TRUNC : CT_OP_DIV_FLOOR;
    /* torch.div with a rounding_mode argument (None included) records DivBackward2 */
    uint64_t mark = ct__ag_mark(ctx);
    if (b) {
        if (mode == CT_ROUND_NONE)
            return ct__ag_named(ctx, ct_div(ctx, a, b, out), out, mark, "DivBackward2");
        CT__AG_WRAP(ctx, out, ct__binary2(ctx, name, kind, a, b, out),
                    (CT__AG_IN2(CT__AG_ZERO, a, b), r_.name = "DivBackward2"));
    }
    if (mode == CT_ROUND_NONE)
        return ct__ag_named(ctx, ct_div_scalar(ctx, a, v, out), out, mark, "DivBackward2");
    CT__AG_WRAP(ctx, out, ct__rem_scalar(ctx, name, kind, a, v, out),
                (CT__AG_IN1(CT__AG_ZERO, a), r_.name = "DivBackward2"));
}
ct_status ct_div_mode(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_rounding_mode mode,
                      ct_tensor **out) {
    if (!b) {
        if (out) *out = NULL;
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "div: tensor operand is NULL");
    }
    return ct__div_mode(ctx, a, b, 0, mode, out);
}
ct_status ct_div_scalar_mode(ct_ctx *ctx, const ct_tensor *a, double v, ct_rounding_mode mode,
                             ct_tensor **out) {
    return ct__div_mode(ctx, a, NULL, v, mode, out);
}
static ct_status ct__floor_divide_body(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                       ct_tensor **out) {
    return ct_div_mode(ctx, a, b, CT_ROUND_FLOOR, out);
}

ct_status ct_floor_divide(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    /* torch 1.13's floor_divide has no derivative: its node prints as NotImplemented (ctorch's
     * gradient is zero, as div with rounding) */
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "floor_divide", ct__floor_divide_body(ctx, a, b, out));
    return ct__ag_named(ctx, st, out, mark, "NotImplemented");
}

/* lerp: floating operands only; start, end (and weight) promote together. */
static ct_status ct__fwd_lerp(ct_ctx *ctx, const ct_tensor *start, const ct_tensor *end,
                              const ct_tensor *weight, double w, ct_tensor **out) {
    const ct_tensor *ins[3] = {start, end, weight};
    const int n = weight ? 3 : 2;
    ct_status st = ct__check_args(ctx, "lerp", n, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, "lerp", n, ins, &dt)) != CT_OK) return st;
    for (int i = 0; i < n; i++)
        if (!ct_dtype_is_floating(ins[i]->dtype))
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "lerp: floating operands required, %s is %s (as torch)",
                                 i == 0   ? "start"
                                 : i == 1 ? "end"
                                          : "weight",
                                 ct_dtype_name(ins[i]->dtype));
    for (int i = 1; i < n; i++) /* torch: no promotion, even for a 0-d weight */
        if (ins[i]->dtype != start->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE, "lerp: expected dtype %s for %s, got %s",
                                 ct_dtype_name(start->dtype), i == 1 ? "end" : "weight",
                                 ct_dtype_name(ins[i]->dtype));
    if (!weight && (st = ct__check_scalar_param(ctx, "lerp", "weight", dt, w, true)) != CT_OK)
        return st;
    double sc[4] = {w, 0, 0, 0};
    return ct__ew(ctx, "lerp", CT_OP_LERP, n, ins, dt, dt, sc, 0, out);
}
/* complex lerp (torch's kernel): |w| < 0.5 ? start + w (end - start)
 * : end - (end - start) (1 - w), composed of complex ops (so differentiable); one dtype for all */
static ct_status ct__cx_lerp(ct_ctx *ctx, const ct_tensor *start, const ct_tensor *end,
                             const ct_tensor *weight, double w, ct_tensor **out) {
    *out = NULL;
    const ct_tensor *ins[3] = {start, end, weight};
    ct_status st = ct__check_args(ctx, "lerp", weight ? 3 : 2, ins, out);
    if (st != CT_OK) return st;
    for (int i = 1; i < (weight ? 3 : 2); i++)
        if (ins[i]->dtype != start->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "lerp: expected dtype %s for `%s` but got dtype %s",
                                 ct_dtype_name(start->dtype), i == 1 ? "end" : "weight",
                                 ct_dtype_name(ins[i]->dtype));
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *x[7] = {NULL};
    st = ct_sub(ctx, end, start, &x[0]); /* d = end - start */
    if (!weight) {
        if (fabs(w) < 0.5) {
            CT__DO(st, ct_mul_scalar(ctx, x[0], w, &x[1]));
            CT__DO(st, ct_add(ctx, start, x[1], out));
        } else {
            CT__DO(st, ct_mul_scalar(ctx, x[0], 1.0 - w, &x[1]));
            CT__DO(st, ct_sub(ctx, end, x[1], out));
        }
    } else {
        CT__DO(st, ct_mul(ctx, weight, x[0], &x[1]));
        CT__DO(st, ct_add(ctx, start, x[1], &x[2])); /* start + w d */
        ct_tensor *nw = NULL;                        /* 1 - w */
        CT__DO(st, ct_neg(ctx, weight, &nw));
        CT__DO(st, ct_add_scalar(ctx, nw, 1.0, &x[3]));
        ct_tensor_release(nw);
        CT__DO(st, ct_mul(ctx, x[0], x[3], &x[4]));
        CT__DO(st, ct_sub(ctx, end, x[4], &x[5])); /* end - d (1 - w) */
        CT__DO(st, ct_abs(ctx, weight, &x[6]));
        ct_tensor *m = NULL;
        CT__DO(st, ct_lt_scalar(ctx, x[6], 0.5, &m));
        CT__DO(st, ct_where(ctx, m, x[2], x[5], out));
        ct_tensor_release(m);
    }
    for (int i = 0; i < 7; i++)
        ct_tensor_release(x[i]);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return ct__ag_named(ctx, ct__error_within(ctx, "lerp", st), out, mark,
                        weight ? "LerpBackward1" : "LerpBackward0");
}

ct_status ct_lerp(ct_ctx *ctx, const ct_tensor *start, const ct_tensor *end,
                  const ct_tensor *weight, ct_tensor **out) {
    if (ctx && !weight)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lerp: weight is NULL (use ct_lerp_scalar for a number)");
    if (ctx && out && ct__cx_any3(start, end, weight))
        return ct__cx_lerp(ctx, start, end, weight, 0, out);
    CT__AG_WRAP(ctx, out, ct__fwd_lerp(ctx, start, end, weight, 0, out),
                CT__AG_IN3(CT__AG_LERP, start, end, weight));
}
ct_status ct_lerp_scalar(ct_ctx *ctx, const ct_tensor *start, const ct_tensor *end, double weight,
                         ct_tensor **out) {
    if (ctx && out && ct__cx_any3(start, end, NULL))
        return ct__cx_lerp(ctx, start, end, NULL, weight, out);
    CT__AG_WRAP(ctx, out, ct__fwd_lerp(ctx, start, end, NULL, weight, out),
                (CT__AG_IN2(CT__AG_LERP_S, start, end), r_.sc[0] = weight));
}

/* ---- more everyday math: hypot, logaddexp(2), xlogy, copysign, fmax / fmin, heaviside, pow with
 * a tensor exponent, isclose, frac, logit, sinc, nan_to_num, signbit (docs/everyday.md) ---- */

/* How a binary op's result dtype follows torch.result_type. */
typedef enum {
    CT__BM_FLOAT,    /* floating only (torch: "not implemented for 'Int'") */
    CT__BM_INT_TO_F, /* integers and bool compute in float32 */
    CT__BM_ANY,      /* any dtype, kept */
    CT__BM_SAME,     /* any dtype, both operands of the same one (heaviside) */
    CT__BM_NO_BOOL,  /* floats and integers (pow) */
    CT__BM_INT_ONLY  /* integers only (gcd, lcm) */
} ct__bm_rule;
static ct_status ct__bin_math(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                              const ct_tensor *b, ct__bm_rule rule, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, name, 2, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 2, ins, &dt)) != CT_OK) return st;
    if (rule == CT__BM_SAME && a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: operands of different dtypes (%s, %s) are not supported (as "
                             "torch)",
                             name, ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if ((rule == CT__BM_FLOAT && !ct_dtype_is_floating(dt)) ||
        (rule == CT__BM_NO_BOOL && dt == CT_BOOL) ||
        (rule == CT__BM_INT_ONLY && (ct_dtype_is_floating(dt) || dt == CT_BOOL)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: not implemented for %s operands (as torch)",
                             name, ct_dtype_name(dt));
    if (rule == CT__BM_INT_TO_F && !ct_dtype_is_floating(dt)) dt = CT_FLOAT32;
    return ct__ew(ctx, name, kind, 2, ins, dt, dt, NULL, 0, out);
}
#define CT__BIN_MATH(fn, K, RULE, AG)                                                              \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {      \
        CT__CX_BIN(#fn, K, 1.0); /* pow_tensor computes; the others refuse complex clearly */      \
        CT__AG_WRAP(ctx, out, ct__bin_math(ctx, #fn, K, a, b, RULE, out), CT__AG_IN2(AG, a, b));   \
    }
CT__BIN_MATH(hypot, CT_OP_HYPOT, CT__BM_FLOAT, CT__AG_HYPOT)
CT__BIN_MATH(logaddexp, CT_OP_LOGADDEXP, CT__BM_FLOAT, CT__AG_LOGADDEXP)
CT__BIN_MATH(logaddexp2, CT_OP_LOGADDEXP2, CT__BM_FLOAT, CT__AG_LOGADDEXP2)
CT__BIN_MATH(xlogy, CT_OP_XLOGY, CT__BM_INT_TO_F, CT__AG_XLOGY)
CT__BIN_MATH(copysign, CT_OP_COPYSIGN, CT__BM_INT_TO_F, CT__AG_COPYSIGN)
CT__BIN_MATH(fmax, CT_OP_FMAX, CT__BM_ANY, CT__AG_FMAX)
CT__BIN_MATH(fmin, CT_OP_FMIN, CT__BM_ANY, CT__AG_FMIN)
CT__BIN_MATH(heaviside, CT_OP_HEAVISIDE, CT__BM_SAME, CT__AG_NOT_IMPLEMENTED)
CT__BIN_MATH(pow_tensor, CT_OP_POW_T, CT__BM_NO_BOOL, CT__AG_POW_T)

ct_status ct_square(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "square", ct_pow(ctx, a, 2, out));
}

/* deg2rad / rad2deg: integers and bool in float32, then a multiplication by the constant as a
 * Python number (torch's definition; the node prints Deg2RadBackward0 / Rad2DegBackward0) */
static ct_status ct__angle(ct_ctx *ctx, const char *name, const ct_tensor *a, double k,
                           const char *node, ct_tensor **out) {
    if (out) *out = NULL;
    if (!ctx || !a || !out)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL argument", name)
                   : CT_ERR_INVALID_ARG;
    if (ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s is not supported for complex tensors (as torch)", name);
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st;
    if (ct_dtype_is_floating(a->dtype) || !ct__is_compute_dtype(a->dtype)) {
        st = ct_mul_scalar(ctx, a, k, out);
    } else {
        ct_tensor *f = NULL;
        st = ct_cast(ctx, a, CT_FLOAT32, &f);
        if (st == CT_OK) st = ct_mul_scalar(ctx, f, k, out);
        ct_tensor_release(f);
    }
    return ct__ag_named(ctx, ct__error_within(ctx, name, st), out, mark, node);
}
ct_status ct_deg2rad(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__angle(ctx, "deg2rad", a, 0.017453292519943295769236907684886127134428718885417,
                     "Deg2RadBackward0", out);
}
ct_status ct_rad2deg(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__angle(ctx, "rad2deg", a, 57.295779513082320876798154814105170332405472466564,
                     "Rad2DegBackward0", out);
}

/* isclose: the same dtype on both sides (torch), rtol and atol >= 0 */
ct_status ct_isclose(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rtol, double atol,
                     bool equal_nan, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "isclose", 2, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype) || ct_dtype_is_complex(b->dtype))
        return ct__cx_isclose(ctx, a, b, rtol, atol, equal_nan, out);
    ct_dtype dt;
    if ((st = ct__result_type(ctx, "isclose", 2, ins, &dt)) != CT_OK) return st;
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "isclose: %s did not match %s (as torch)",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (!(rtol >= 0) || !(atol >= 0) || isinf(rtol) || isinf(atol))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "isclose: rtol and atol must be finite and >= 0, got %g and %g", rtol,
                             atol);
    double sc[4] = {rtol, atol, 0, 0};
    return ct__ew(ctx, "isclose", CT_OP_ISCLOSE, 2, ins, dt, CT_BOOL, sc, equal_nan ? 1 : 0, out);
}
/* every element of a bool tensor true (a 0-d all) */
static ct_status ct__all_true(ct_ctx *ctx, const ct_tensor *m, bool *result) {
    ct_tensor *r = NULL;
    ct_status st = ct_all(ctx, m, 0, NULL, false, &r);
    double v = 0;
    if (st == CT_OK) st = ct_tensor_item(r, &v);
    ct_tensor_release(r);
    if (st == CT_OK) *result = v != 0;
    return st;
}
ct_status ct_allclose(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rtol, double atol,
                      bool equal_nan, bool *result) {
    if (!result)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "allclose: result is NULL")
                   : CT_ERR_INVALID_ARG;
    *result = false;
    ct_tensor *m = NULL;
    ct_status st = ct_isclose(ctx, a, b, rtol, atol, equal_nan, &m);
    if (st == CT_OK) st = ct__all_true(ctx, m, result);
    ct_tensor_release(m);
    return st == CT_OK ? st : ct__error_within(ctx, "allclose", st);
}
ct_status ct_equal(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, bool *result) {
    if (!result)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "equal: result is NULL")
                   : CT_ERR_INVALID_ARG;
    *result = false;
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "equal", 2, ins, result);
    if (st != CT_OK) return st;
    if (a->ndim != b->ndim) return CT_OK;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return CT_OK;
    ct_tensor *m = NULL;
    st = ct_eq(ctx, a, b, &m);
    if (st == CT_OK) st = ct__all_true(ctx, m, result);
    ct_tensor_release(m);
    return st == CT_OK ? st : ct__error_within(ctx, "equal", st);
}

static ct_status ct__fwd_frac(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "frac", 1, ins, out);
    if (st != CT_OK) return st;
    if (ct__is_compute_dtype(a->dtype) && !ct_dtype_is_floating(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "frac: floating input required, got %s (as torch)",
                             ct_dtype_name(a->dtype));
    return ct__unary(ctx, "frac", CT_OP_FRAC, a, true, true, NULL, 0, out);
}
ct_status ct_frac(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_frac(ctx, a, out), CT__AG_IN1(CT__AG_FRAC, a));
}
CT__UN(sinc, CT_OP_SINC, true, true, CT__AG_SINC)
ct_status ct_logit(ct_ctx *ctx, const ct_tensor *a, double eps, ct_tensor **out) {
    if (isnan(eps)) eps = -1; /* torch's None */
    double sc[4] = {eps, 0, 0, 0};
    CT__AG_WRAP(ctx, out, ct__unary(ctx, "logit", CT_OP_LOGIT, a, true, true, sc, 0, out),
                (CT__AG_IN1(CT__AG_LOGIT, a), r_.sc[0] = eps));
}
/* the largest finite value of a floating dtype */
static double ct__dtype_max(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT16: return 65504.0;
    case CT_BFLOAT16: return 3.3895313892515355e38;
    case CT_FLOAT32: return 3.4028234663852886e38;
    default: return 1.7976931348623157e308;
    }
}
static ct_status ct__fwd_nan_to_num(ct_ctx *ctx, const ct_tensor *a, const double *nan,
                                    const double *posinf, const double *neginf, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "nan_to_num", 1, ins, out);
    if (st != CT_OK) return st;
    const double big = ct__dtype_max(a->dtype);
    double sc[4] = {nan ? *nan : 0, posinf ? *posinf : big, neginf ? *neginf : -big, 0};
    return ct__unary(ctx, "nan_to_num", CT_OP_NAN_TO_NUM, a, false, true, sc, 0, out);
}
ct_status ct_nan_to_num(ct_ctx *ctx, const ct_tensor *a, const double *nan, const double *posinf,
                        const double *neginf, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) {
        /* each part on its own, as torch (the real op on the pairs, differentiable) */
        const uint64_t mark = ct__ag_mark(ctx);
        ct_tensor *r = NULL, *y = NULL, *c = NULL;
        ct_status st = ct_view_as_real(ctx, a, &r);
        if (st == CT_OK) st = ct_nan_to_num(ctx, r, nan, posinf, neginf, &y);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, y, &c);
        if (st == CT_OK) st = ct_view_as_complex(ctx, c, out);
        ct_tensor_release(r), ct_tensor_release(y), ct_tensor_release(c);
        return ct__ag_named(ctx, ct__error_within(ctx, "nan_to_num", st), out, mark,
                            "NanToNumBackward0");
    }
    CT__AG_WRAP(ctx, out, ct__fwd_nan_to_num(ctx, a, nan, posinf, neginf, out),
                CT__AG_IN1(CT__AG_NAN_TO_NUM, a));
}
CT__PRED(signbit, CT_OP_SIGNBIT)

/* ---- special functions (docs/everyday.md "Special functions"): integers and bool compute in
 * float32 as torch; every float dtype, f16 too (torch 1.13 has no f16 CPU kernel for most) ---- */
CT__UN(lgamma, CT_OP_LGAMMA, true, true, CT__AG_LGAMMA)
CT__UN(digamma, CT_OP_DIGAMMA, true, true, CT__AG_DIGAMMA)
CT__UN(erfinv, CT_OP_ERFINV, true, true, CT__AG_ERFINV)
CT__UN(i0, CT_OP_I0, true, true, CT__AG_I0)
CT__UN(special_i0e, CT_OP_I0E, true, true, CT__AG_I0E)
CT__UN(special_i1, CT_OP_I1, true, true, CT__AG_I1)
CT__UN(special_i1e, CT_OP_I1E, true, true, CT__AG_I1E)
CT__UN(special_ndtr, CT_OP_NDTR, true, true, CT__AG_NDTR)
CT__UN(special_ndtri, CT_OP_NDTRI, true, true, CT__AG_NDTRI)
CT__UN(special_log_ndtr, CT_OP_LOG_NDTR, true, true, CT__AG_LOG_NDTR)
CT__UN(special_erfcx, CT_OP_ERFCX, true, true, CT__AG_ERFCX)
CT__UN(special_entr, CT_OP_ENTR, true, true, CT__AG_ENTR)
CT__BIN_MATH(special_xlog1py, CT_OP_XLOG1PY, CT__BM_INT_TO_F, CT__AG_XLOG1PY)
CT__BIN_MATH(nextafter, CT_OP_NEXTAFTER, CT__BM_FLOAT, CT__AG_NEXTAFTER)
CT__BIN_MATH(special_zeta, CT_OP_ZETA, CT__BM_INT_TO_F, CT__AG_ZETA)
CT__BIN_MATH(special_gammainc, CT_OP_IGAMMA, CT__BM_FLOAT, CT__AG_IGAMMA)
CT__BIN_MATH(special_gammaincc, CT_OP_IGAMMAC, CT__BM_FLOAT, CT__AG_IGAMMAC)
CT__UN(special_bessel_j0, CT_OP_BESSEL_J0, true, true, CT__AG_BESSEL_J0)
CT__UN(special_bessel_j1, CT_OP_BESSEL_J1, true, true, CT__AG_BESSEL_J1)
CT__UN(special_bessel_y0, CT_OP_BESSEL_Y0, true, true, CT__AG_BESSEL_Y0)
CT__UN(special_bessel_y1, CT_OP_BESSEL_Y1, true, true, CT__AG_BESSEL_Y1)
CT__UN(special_modified_bessel_k0, CT_OP_BESSEL_K0, true, true, CT__AG_BESSEL_K0)
CT__UN(special_modified_bessel_k1, CT_OP_BESSEL_K1, true, true, CT__AG_BESSEL_K1)
CT__UN(special_scaled_modified_bessel_k0, CT_OP_BESSEL_K0E, true, true, CT__AG_BESSEL_K0E)
CT__UN(special_scaled_modified_bessel_k1, CT_OP_BESSEL_K1E, true, true, CT__AG_BESSEL_K1E)
CT__UN(special_spherical_bessel_j0, CT_OP_SPHERICAL_J0, true, true, CT__AG_SPHERICAL_J0)
CT__BIN_MATH(special_chebyshev_polynomial_t, CT_OP_CHEBYSHEV_T, CT__BM_INT_TO_F, CT__AG_CHEBYSHEV_T)
CT__BIN_MATH(special_chebyshev_polynomial_u, CT_OP_CHEBYSHEV_U, CT__BM_INT_TO_F, CT__AG_CHEBYSHEV_U)
CT__BIN_MATH(special_chebyshev_polynomial_v, CT_OP_CHEBYSHEV_V, CT__BM_INT_TO_F, CT__AG_CHEBYSHEV_V)
CT__BIN_MATH(special_chebyshev_polynomial_w, CT_OP_CHEBYSHEV_W, CT__BM_INT_TO_F, CT__AG_CHEBYSHEV_W)
CT__BIN_MATH(special_shifted_chebyshev_polynomial_t, CT_OP_SHIFTED_CHEBYSHEV_T, CT__BM_INT_TO_F,
             CT__AG_SHIFTED_CHEBYSHEV_T)
CT__BIN_MATH(special_shifted_chebyshev_polynomial_u, CT_OP_SHIFTED_CHEBYSHEV_U, CT__BM_INT_TO_F,
             CT__AG_SHIFTED_CHEBYSHEV_U)
CT__BIN_MATH(special_shifted_chebyshev_polynomial_v, CT_OP_SHIFTED_CHEBYSHEV_V, CT__BM_INT_TO_F,
             CT__AG_SHIFTED_CHEBYSHEV_V)
CT__BIN_MATH(special_shifted_chebyshev_polynomial_w, CT_OP_SHIFTED_CHEBYSHEV_W, CT__BM_INT_TO_F,
             CT__AG_SHIFTED_CHEBYSHEV_W)
CT__BIN_MATH(special_hermite_polynomial_h, CT_OP_HERMITE_H, CT__BM_INT_TO_F, CT__AG_HERMITE_H)
CT__BIN_MATH(special_hermite_polynomial_he, CT_OP_HERMITE_HE, CT__BM_INT_TO_F, CT__AG_HERMITE_HE)
CT__BIN_MATH(special_laguerre_polynomial_l, CT_OP_LAGUERRE_L, CT__BM_INT_TO_F, CT__AG_LAGUERRE_L)
CT__BIN_MATH(special_legendre_polynomial_p, CT_OP_LEGENDRE_P, CT__BM_INT_TO_F, CT__AG_LEGENDRE_P)
CT__UN(special_airy_ai, CT_OP_AIRY_AI, true, true, CT__AG_AIRY_AI)

ct_status ct_polygamma(ct_ctx *ctx, int64_t n, const ct_tensor *a, ct_tensor **out) {
    if (n < 0 || n > (INT64_C(1) << 53)) { /* n is kept as a double for the backward's n + 1 */
        if (out) *out = NULL;
        return ctx ? ct__set_error(
                         ctx, CT_ERR_INVALID_ARG,
                         "polygamma: n must be >= 0 (as torch) and at most 2^53, got %lld",
                         (long long)n)
                   : CT_ERR_INVALID_ARG;
    }
    CT__AG_WRAP(ctx, out, ct__unary(ctx, "polygamma", CT_OP_POLYGAMMA, a, true, true, NULL, n, out),
                (CT__AG_IN1(CT__AG_POLYGAMMA, a), r_.sc[0] = (double)n));
}

/* gcd / lcm: integers only, not differentiable */
ct_status ct_gcd(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__bin_math(ctx, "gcd", CT_OP_GCD, a, b, CT__BM_INT_ONLY, out);
}
ct_status ct_lcm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__bin_math(ctx, "lcm", CT_OP_LCM, a, b, CT__BM_INT_ONLY, out);
}

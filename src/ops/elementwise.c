/* Elementwise op front ends: validate, broadcast, promote, allocate, submit. */
#include "ctorch/ops.h"
#include "dtype/dtype_size.h"
#include "ops/dispatch.h"

#include <math.h>

/* Run kind over inputs ins[0..n) cast to `compute`, writing a new tensor of dtype `out_dt`. */
static ct_status ct__ew(ct_ctx *ctx, const char *name, ct_op_kind kind, int n,
                        const ct_tensor *const *ins, ct_dtype compute, ct_dtype out_dt,
                        const double *scalars, int64_t flags, ct_tensor **out) {
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
    if (st == CT_OK) st = ct__tensor_new(ctx, ins[0]->storage->device, out_dt, nd, shape, &r);
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

static ct_status ct__binary(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                            const ct_tensor *b, double alpha, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, name, 2, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 2, ins, &dt)) != CT_OK) return st;
    bool cmp = kind >= CT_OP_EQ && kind <= CT_OP_GE;
    if (kind == CT_OP_DIV && !ct_dtype_is_floating(dt)) dt = CT_FLOAT32;
    if (kind == CT_OP_SUB && dt == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "sub: subtracting bool tensors is not supported; use logical ops");
    if (!ct_dtype_is_floating(dt) && alpha != floor(alpha))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: alpha %g must be integral for %s inputs", name,
                             alpha, ct_dtype_name(dt));
    if (!ct_dtype_is_floating(dt) && fabs(alpha) > 9.2e18)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: alpha %g overflows int64", name, alpha);
    double sc[4] = {alpha, 0, 0, 0};
    return ct__ew(ctx, name, kind, 2, ins, dt, cmp ? CT_BOOL : dt, sc, 0, out);
}

ct_status ct_add(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "add", CT_OP_ADD, a, b, 1.0, out);
}
ct_status ct_add_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                        ct_tensor **out) {
    return ct__binary(ctx, "add", CT_OP_ADD, a, b, alpha, out);
}
ct_status ct_sub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "sub", CT_OP_SUB, a, b, 1.0, out);
}
ct_status ct_mul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__binary(ctx, "mul", CT_OP_MUL, a, b, 1.0, out);
}
ct_status ct_div(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
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
    ct_dtype dt;
    if ((st = ct__result_type(ctx, name, 1, ins, &dt)) != CT_OK) return st;
    if (float_only && !ct_dtype_is_floating(dt)) dt = CT_FLOAT32;
    if (dt == CT_BOOL && !allow_bool)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: bool input is not supported", name);
    return ct__ew(ctx, name, kind, 1, ins, dt, dt, sc, flags, out);
}

#define CT__UN(fn, K, FLOAT_ONLY, ALLOW_BOOL)                                                      \
    ct_status ct_##fn(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {                          \
        return ct__unary(ctx, #fn, K, a, FLOAT_ONLY, ALLOW_BOOL, NULL, 0, out);                    \
    }
CT__UN(neg, CT_OP_NEG, false, false)
CT__UN(abs, CT_OP_ABS, false, true)
CT__UN(exp, CT_OP_EXP, true, true)
CT__UN(log, CT_OP_LOG, true, true)
CT__UN(sqrt, CT_OP_SQRT, true, true)
CT__UN(rsqrt, CT_OP_RSQRT, true, true)
CT__UN(tanh, CT_OP_TANH, true, true)
CT__UN(sigmoid, CT_OP_SIGMOID, true, true)
CT__UN(relu, CT_OP_RELU, false, false)

ct_status ct_gelu(ct_ctx *ctx, const ct_tensor *a, ct_gelu_approx approx, ct_tensor **out) {
    if (approx != CT_GELU_ERF && approx != CT_GELU_TANH)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "gelu: approximate must be erf or tanh, got %d", (int)approx);
    return ct__unary(ctx, "gelu", CT_OP_GELU, a, true, true, NULL, approx, out);
}

ct_status ct_pow(ct_ctx *ctx, const ct_tensor *a, double exponent, ct_tensor **out) {
    double sc[4] = {exponent, 0, 0, 0};
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "pow", 1, ins, out);
    if (st != CT_OK) return st;
    /* integer tensors keep their dtype for a non-negative integral exponent (as torch.pow) */
    bool int_ok = exponent >= 0 && exponent == floor(exponent) && exponent < 9.2e18;
    bool is_int = !ct_dtype_is_floating(a->dtype) && a->dtype != CT_BOOL;
    if (is_int && !int_ok && exponent == floor(exponent))
        return ct__set_error(
            ctx, CT_ERR_INVALID_ARG,
            "pow: integers to negative integer powers are not allowed (exponent %g)", exponent);
    return ct__unary(ctx, "pow", CT_OP_POW, a, !(is_int && int_ok), false, sc, 0, out);
}

ct_status ct_clamp(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                   ct_tensor **out) {
    if (ctx && !lo && !hi)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "clamp: at least one of min or max must be given");
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "clamp", 1, ins, out);
    if (st != CT_OK) return st;
    bool is_int = !ct_dtype_is_floating(a->dtype);
    double sc[4] = {lo ? *lo : 0, hi ? *hi : 0, 0, 0};
    bool frac = (lo && *lo != floor(*lo)) || (hi && *hi != floor(*hi));
    if (is_int && !frac) {
        /* bounds outside the dtype's range cannot bind: saturate them so the kernel's conversion
         * is exact (a min of 1000 on int8 must not wrap to -24) */
        double lo_lim = 0, hi_lim = 0;
        ct__int_range(a->dtype, &lo_lim, &hi_lim);
        hi_lim = hi_lim > 9.2e18 ? 9.2e18 : hi_lim; /* stays exactly convertible to int64 */
        lo_lim = lo_lim < -9.2e18 ? -9.2e18 : lo_lim;
        for (int i = 0; i < 2; i++) {
            if (sc[i] > hi_lim) sc[i] = hi_lim;
            if (sc[i] < lo_lim) sc[i] = lo_lim;
        }
    }
    int64_t flags = (lo ? 1 : 0) | (hi ? 2 : 0);
    /* fractional or NaN bounds on an integer tensor promote to float32 (as torch.clamp) */
    return ct__unary(ctx, "clamp", CT_OP_CLAMP, a, is_int && frac, false, sc, flags, out);
}

ct_status ct_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b,
                   ct_tensor **out) {
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
    if (!ct_dtype_is_floating(dt))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating inputs required, got %s", name,
                             ct_dtype_name(dt));
    double sc[4] = {value, 0, 0, 0};
    return ct__ew(ctx, name, kind, 3, ins, dt, dt, sc, 0, out);
}
ct_status ct_addcmul(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                     double value, ct_tensor **out) {
    return ct__addc(ctx, "addcmul", CT_OP_ADDCMUL, self, t1, t2, value, out);
}
ct_status ct_addcdiv(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                     double value, ct_tensor **out) {
    return ct__addc(ctx, "addcdiv", CT_OP_ADDCDIV, self, t1, t2, value, out);
}

ct_status ct_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dtype, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "cast", 1, ins, out);
    if (st != CT_OK) return st;
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

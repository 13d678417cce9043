/* The in-place ops (include/ctorch/inplace.h and ops.h's add_ ...) against torch 1.13
 * (scripts/gen_inplace_ref.py): for each op, self dtypes and operand dtypes, self's values after
 * the call or torch's refusal (CT_ERR_DTYPE where torch cannot cast the result into self, an error
 * where it raises otherwise); each accepted case again on a transposed view of a base (the write
 * lands in the base's memory); gradients and grad_fn names through y = x * 1; y.op_(...). Then
 * what needs no reference: a leaf that requires grad is refused, a saved tensor overwritten in
 * place makes backward fail, an expanded self is refused, an operand that is self's own memory,
 * a failure leaves self unchanged, capture and replay. */
#include "test_util.h"

#include <string.h>

typedef struct {
    const char *op;
    int grad, nt;
    int dt[3], nd[3];
    int64_t sh[3][3];
    int off[3];
    double d[3];
    int i[2];
    const char *s;
    int expect, roff;
    const char *gfn;
    int goff[3];
} ip_case;
#include "data/inplace_ref.h"

static ct_ctx *ctx;
static const ct_dtype ip_dt[12] = {CT_BOOL,    CT_UINT8,   CT_INT8,      CT_INT16,
                                   CT_INT32,   CT_INT64,   CT_FLOAT16,   CT_BFLOAT16,
                                   CT_FLOAT32, CT_FLOAT64, CT_COMPLEX64, CT_COMPLEX128};

/* a tensor of dtype dt holding v (complex: pairs) */
static ct_tensor *make(ct_dtype dt, int nd, const int64_t *sh, const double *v) {
    ct_tensor *t = tu_from_vals_cx(ctx, dt, nd, sh, v);
    CHECK(t != NULL);
    return t;
}
/* the same values as the transposed view of a base holding them transposed (2-d only) */
static ct_tensor *make_view(ct_dtype dt, int nd, const int64_t *sh, const double *v,
                            ct_tensor **base) {
    const int64_t r = sh[0], c = sh[1], k = ct_dtype_is_complex(dt) ? 2 : 1;
    double *tv = malloc(sizeof(double) * (size_t)(r * c * k + 1));
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++)
            for (int64_t q = 0; q < k; q++)
                tv[(j * r + i) * k + q] = v[(i * c + j) * k + q];
    const int64_t bs[2] = {c, r};
    *base = make(dt, nd, bs, tv);
    free(tv);
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, *base, 0, 1, &t));
    return t;
}
/* values as doubles (complex: pairs) */
static double *read_all(const ct_tensor *t) { return tu_read_cx(t); }
/* ops where torch 1.13 is less accurate than ctorch in float64 (trigamma to ~1e-9; float
 * constants in hardsigmoid's and celu's backward: docs/fidelity.md) */
static double op_tol(const char *op, double tol) {
    static const char *const loose[] = {"polygamma", "digamma", "mvlgamma", "hardsigmoid", "celu"};
    for (size_t i = 0; i < sizeof loose / sizeof loose[0]; i++)
        if (!strcmp(op, loose[i]) && tol < 1e-7) return 1e-7;
    return tol;
}
static double tol_of(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT16: return 2e-3;
    case CT_BFLOAT16: return 1.6e-2;
    case CT_FLOAT32:
    case CT_COMPLEX64: return 2e-6;
    case CT_FLOAT64:
    case CT_COMPLEX128: return 1e-12;
    default: return 0;
    }
}
/* t's values against ref (count m doubles): within tol * (1 + |ref|), NaN matching NaN */
static int compare(const char *what, int k, const ct_tensor *t, const double *ref, double tol) {
    const int64_t m = ct_tensor_numel(t) * (ct_dtype_is_complex(ct_tensor_dtype(t)) ? 2 : 1);
    double *v = read_all(t);
    int bad = 0;
    for (int64_t i = 0; v && i < m; i++) {
        const bool ok = isnan(ref[i])   ? isnan(v[i])
                        : isinf(ref[i]) ? v[i] == ref[i]
                                        : fabs(v[i] - ref[i]) <= tol * (1 + fabs(ref[i]));
        if (!ok && bad++ < 2)
            CHECK_MSG(ok, "case %d %s: %s[%lld] %.17g vs torch %.17g", k, ip_cases[k].op, what,
                      (long long)i, v[i], ref[i]);
    }
    free(v);
    return bad;
}

typedef ct_status (*fn_u)(ct_ctx *, ct_tensor *);
typedef ct_status (*fn_n)(ct_ctx *, ct_tensor *, double);
typedef ct_status (*fn_b)(ct_ctx *, ct_tensor *, const ct_tensor *);
#define U(f)                                                                                       \
    { #f, ct_##f##_ }
static const struct {
    const char *name;
    fn_u f;
} unary[] = {
    U(abs),       U(absolute),      U(neg),         U(negative),    U(sgn),
    U(sign),      U(conj_physical), U(reciprocal),  U(square),      U(sqrt),
    U(rsqrt),     U(exp),           U(exp2),        U(expm1),       U(log),
    U(log2),      U(log10),         U(log1p),       U(sin),         U(cos),
    U(tan),       U(asin),          U(acos),        U(atan),        U(arcsin),
    U(arccos),    U(arctan),        U(sinh),        U(cosh),        U(tanh),
    U(asinh),     U(acosh),         U(atanh),       U(arcsinh),     U(arccosh),
    U(arctanh),   U(sigmoid),       U(erf),         U(erfc),        U(erfinv),
    U(lgamma),    U(digamma),       U(i0),          U(sinc),        U(deg2rad),
    U(rad2deg),   U(ceil),          U(floor),       U(round),       U(trunc),
    U(fix),       U(frac),          U(bitwise_not), U(logical_not), U(relu),
    U(relu6),     U(selu),          U(silu),        U(mish),        U(hardsigmoid),
    U(hardswish),
};
static const struct {
    const char *name;
    fn_n f;
} nums[] = {
    U(pow),        U(fmod_scalar), U(remainder_scalar), U(clamp_min),
    U(clamp_max),  U(eq_scalar),   U(ne_scalar),        U(lt_scalar),
    U(le_scalar),  U(gt_scalar),   U(ge_scalar),        U(logit),
    U(elu),        U(celu),        U(leaky_relu),       U(float_power_scalar),
    U(add_scalar), U(sub_scalar),  U(mul_scalar),       U(div_scalar),
};
static const struct {
    const char *name;
    fn_b f;
} bins[] = {
    U(pow_tensor),
    U(float_power),
    U(atan2),
    U(arctan2),
    U(hypot),
    U(copysign),
    U(nextafter),
    U(ldexp),
    U(xlogy),
    U(heaviside),
    U(fmod),
    U(remainder),
    U(floor_divide),
    U(true_divide),
    U(divide),
    U(multiply),
    U(gcd),
    U(lcm),
    U(bitwise_and),
    U(bitwise_or),
    U(bitwise_xor),
    U(bitwise_left_shift),
    U(bitwise_right_shift),
    U(logical_and),
    U(logical_or),
    U(logical_xor),
    U(eq),
    U(ne),
    U(lt),
    U(le),
    U(gt),
    U(ge),
    U(greater),
    U(greater_equal),
    U(less),
    U(less_equal),
    U(not_equal),
    U(add),
    U(sub),
    U(mul),
    U(div),
};
#undef U

/* the case's op applied in place to self with the operands t[1..] */
static ct_status apply(const ip_case *c, ct_tensor *self, ct_tensor *const *t) {
    const char *op = c->op;
    for (size_t k = 0; k < sizeof unary / sizeof unary[0]; k++)
        if (!strcmp(op, unary[k].name)) return unary[k].f(ctx, self);
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        if (!strcmp(op, nums[k].name)) return nums[k].f(ctx, self, c->d[0]);
    for (size_t k = 0; k < sizeof bins / sizeof bins[0]; k++)
        if (!strcmp(op, bins[k].name)) return bins[k].f(ctx, self, t[1]);
    const double *d = c->d;
    const int *i = c->i;
    const ct_rounding_mode modes[3] = {CT_ROUND_NONE, CT_ROUND_TRUNC, CT_ROUND_FLOOR};
    if (!strcmp(op, "hardtanh")) return ct_hardtanh_(ctx, self, d[0], d[1]);
    if (!strcmp(op, "threshold")) return ct_threshold_(ctx, self, d[0], d[1]);
    if (!strcmp(op, "rrelu")) return ct_rrelu_(ctx, self, d[0], d[1], false, 0, 0);
    if (!strcmp(op, "clamp") || !strcmp(op, "clip")) {
        const double *lo = i[0] & 1 ? &d[0] : NULL, *hi = i[0] & 2 ? &d[1] : NULL;
        return op[2] == 'a' ? ct_clamp_(ctx, self, lo, hi) : ct_clip_(ctx, self, lo, hi);
    }
    if (!strcmp(op, "nan_to_num"))
        return ct_nan_to_num_(ctx, self, i[0] & 1 ? &d[0] : NULL, i[0] & 2 ? &d[1] : NULL,
                              i[0] & 4 ? &d[2] : NULL);
    if (!strcmp(op, "polygamma")) return ct_polygamma_(ctx, self, i[0]);
    if (!strcmp(op, "mvlgamma")) return ct_mvlgamma_(ctx, self, i[0]);
    if (!strcmp(op, "div_scalar_mode")) return ct_div_scalar_mode_(ctx, self, d[0], modes[i[0]]);
    if (!strcmp(op, "div_mode")) return ct_div_mode_(ctx, self, t[1], modes[i[0]]);
    if (!strcmp(op, "add_scaled")) return ct_add_scaled_(ctx, self, t[1], d[0]);
    if (!strcmp(op, "sub_scaled")) return ct_sub_scaled_(ctx, self, t[1], d[0]);
    if (!strcmp(op, "subtract")) return ct_subtract_(ctx, self, t[1], d[0]);
    if (!strcmp(op, "lerp")) return ct_lerp_(ctx, self, t[1], t[2]);
    if (!strcmp(op, "lerp_scalar")) return ct_lerp_scalar_(ctx, self, t[1], d[0]);
    if (!strcmp(op, "addcmul")) return ct_addcmul_(ctx, self, t[1], t[2], d[0]);
    if (!strcmp(op, "addcdiv")) return ct_addcdiv_(ctx, self, t[1], t[2], d[0]);
    if (!strcmp(op, "addmm")) return ct_addmm_(ctx, self, t[1], t[2], d[0], d[1]);
    if (!strcmp(op, "addmv")) return ct_addmv_(ctx, self, t[1], t[2], d[0], d[1]);
    if (!strcmp(op, "addr")) return ct_addr_(ctx, self, t[1], t[2], d[0], d[1]);
    if (!strcmp(op, "addbmm")) return ct_addbmm_(ctx, self, t[1], t[2], d[0], d[1]);
    if (!strcmp(op, "baddbmm")) return ct_baddbmm_(ctx, self, t[1], t[2], d[0], d[1]);
    if (!strcmp(op, "cumsum")) return ct_cumsum_(ctx, self, i[0]);
    if (!strcmp(op, "cumprod")) return ct_cumprod_(ctx, self, i[0]);
    if (!strcmp(op, "tril")) return ct_tril_(ctx, self, i[0]);
    if (!strcmp(op, "triu")) return ct_triu_(ctx, self, i[0]);
    if (!strcmp(op, "renorm")) return ct_renorm_(ctx, self, d[0], i[0], d[1]);
    if (!strcmp(op, "masked_fill")) return ct_masked_fill_(ctx, self, t[1], d[0]);
    if (!strcmp(op, "masked_scatter")) return ct_masked_scatter_(ctx, self, t[1], t[2]);
    if (!strcmp(op, "index_add")) return ct_index_add_(ctx, self, i[0], t[1], t[2], d[0]);
    if (!strcmp(op, "index_copy")) return ct_index_copy_(ctx, self, i[0], t[1], t[2]);
    if (!strcmp(op, "index_fill")) return ct_index_fill_(ctx, self, i[0], t[1], d[0]);
    if (!strcmp(op, "index_reduce"))
        return ct_index_reduce_(ctx, self, i[0], t[1], t[2], c->s, i[1]);
    if (!strcmp(op, "index_put")) {
        const ct_tensor *idx[1] = {t[1]};
        return ct_index_put_(ctx, self, 1, idx, t[2], i[1]);
    }
    if (!strcmp(op, "put")) return ct_put_(ctx, self, t[1], t[2], i[1]);
    if (!strcmp(op, "scatter")) return ct_scatter_(ctx, self, i[0], t[1], t[2]);
    if (!strcmp(op, "scatter_add")) return ct_scatter_add_(ctx, self, i[0], t[1], t[2]);
    if (!strcmp(op, "scatter_reduce"))
        return ct_scatter_reduce_(ctx, self, i[0], t[1], t[2], c->s, i[1]);
    CHECK_MSG(false, "no such op %s", op);
    return CT_ERR_INVALID_ARG;
}

static ct_tensor *operand(const ip_case *c, int j) {
    return make(ip_dt[c->dt[j]], c->nd[j], c->sh[j], ip_pool + c->off[j]);
}

/* one forward case, on a contiguous self (view = 0) or a transposed view (view = 1) */
static void run_forward(int k, int view) {
    const ip_case *c = &ip_cases[k];
    const ct_dtype dt = ip_dt[c->dt[0]];
    ct_tensor *t[3] = {NULL, NULL, NULL}, *base = NULL;
    t[0] = view ? make_view(dt, c->nd[0], c->sh[0], ip_pool + c->off[0], &base) : operand(c, 0);
    for (int j = 1; j < c->nt; j++)
        t[j] = operand(c, j);
    double *before = read_all(t[0]);
    ct_status st = apply(c, t[0], t);
    if (c->expect == 0) {
        CHECK_MSG(st == CT_OK, "case %d %s (%s%s): %s", k, c->op, ct_dtype_name(dt),
                  view ? ", view" : "", ct_ctx_last_error(ctx));
        if (st == CT_OK)
            compare(view ? "view" : "self", k, t[0], ip_pool + c->roff, op_tol(c->op, tol_of(dt)));
    } else {
        CHECK_MSG(st != CT_OK, "case %d %s (%s): torch refuses, ctorch accepted", k, c->op,
                  ct_dtype_name(dt));
        /* expect 1 (torch: "can't be cast"): CT_ERR_DTYPE, unless the out-of-place op already
         * refuses the operands (torch checks the cast first) */
        if (c->expect == 1 && st != CT_ERR_DTYPE)
            CHECK_MSG(st == CT_ERR_UNSUPPORTED || st == CT_ERR_INVALID_ARG,
                      "case %d %s: status %d, want DTYPE (%s)", k, c->op, (int)st,
                      ct_ctx_last_error(ctx));
        if (st != CT_OK) compare("unchanged", k, t[0], before, 0); /* nothing written */
    }
    free(before);
    for (int j = 0; j < 3; j++)
        ct_tensor_release(t[j]);
    ct_tensor_release(base);
}

TEST(forward_as_torch) {
    int n = 0;
    for (int k = 0; k < (int)(sizeof ip_cases / sizeof ip_cases[0]); k++) {
        if (ip_cases[k].grad) continue;
        run_forward(k, 0);
        if (ip_cases[k].nd[0] == 2) run_forward(k, 1);
        n++;
    }
    CHECK(n > 1500);
}

/* y = x * 1; y.op_(operands); sum(y * u).backward(): y's values and grad_fn, the gradients */
TEST(gradients_as_torch) {
    int n = 0;
    for (int k = 0; k < (int)(sizeof ip_cases / sizeof ip_cases[0]); k++) {
        const ip_case *c = &ip_cases[k];
        if (!c->grad) continue;
        n++;
        const ct_dtype dt = ip_dt[c->dt[0]];
        ct_tensor *x = operand(c, 0), *t[3] = {NULL, NULL, NULL}, *u = NULL, *yu = NULL,
                  *loss = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        for (int j = 1; j < c->nt; j++) {
            t[j] = operand(c, j);
            ct_dtype oj = ip_dt[c->dt[j]];
            if (ct_dtype_is_floating(oj) || ct_dtype_is_complex(oj))
                CHECK_OK(ct_tensor_set_requires_grad(t[j], true));
        }
        CHECK_OK(ct_mul_scalar(ctx, x, 1.0, &t[0]));
        ct_status st = apply(c, t[0], t);
        CHECK_MSG(st == CT_OK, "grad case %d %s: %s", k, c->op, ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            compare("y", k, t[0], ip_pool + c->roff, op_tol(c->op, 1e-12));
            char *s = NULL, want[96];
            CHECK_OK(ct_tensor_to_string(t[0], &s));
            snprintf(want, sizeof want, "grad_fn=<%s>", c->gfn);
            CHECK_MSG(s && strstr(s, want), "grad case %d %s: %s, torch %s", k, c->op,
                      s ? strrchr(s, ',') : "?", want);
            free(s);
            const int64_t m = ct_tensor_numel(t[0]);
            double *uv = malloc(sizeof(double) * (size_t)(m + 1));
            for (int64_t q = 0; q < m; q++)
                uv[q] = 0.5 + (double)(q % 5) / 4;
            u = tu_from_vals(ctx, CT_FLOAT64, ct_tensor_ndim(t[0]), ct_tensor_shape(t[0]), uv);
            free(uv);
            CHECK_OK(ct_mul(ctx, t[0], u, &yu));
            CHECK_OK(ct_sum(ctx, yu, 0, NULL, false, &loss));
            CHECK_OK(ct_backward(ctx, loss, NULL, false));
            for (int j = 0; j < c->nt; j++) {
                if (c->goff[j] < 0) continue;
                const ct_tensor *leaf = j == 0 ? x : t[j];
                const ct_tensor *g = ct_tensor_grad(leaf);
                CHECK_MSG(g != NULL, "grad case %d %s: no gradient for input %d", k, c->op, j);
                if (g)
                    compare(j == 0 ? "x.grad" : "operand.grad", k, g, ip_pool + c->goff[j],
                            op_tol(c->op, 1e-10));
            }
        }
        (void)dt;
        ct_tensor_release(x), ct_tensor_release(u), ct_tensor_release(yu);
        ct_tensor_release(loss);
        for (int j = 0; j < 3; j++)
            ct_tensor_release(t[j]);
    }
    CHECK(n > 90);
}

static ct_tensor *f64(int nd, const int64_t *sh, const double *v) {
    return tu_from_vals(ctx, CT_FLOAT64, nd, sh, v);
}

/* torch's autograd rules for in-place writes */
TEST(autograd_rules) {
    const int64_t sh[1] = {3};
    const double v[3] = {0.5, -1.0, 2.0};
    ct_tensor *x = f64(1, sh, v), *y = NULL, *z = NULL, *l = NULL, *v1 = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    /* a leaf that requires grad, and a view of one */
    CHECK_ST(ct_exp_(ctx, x), CT_ERR_STATE);
    CHECK_OK(ct_tensor_narrow(ctx, x, 0, 0, 2, &v1));
    CHECK_ST(ct_clamp_min_(ctx, v1, 0.0), CT_ERR_STATE);
    double back[3];
    CHECK_OK(ct_tensor_to_host(x, back, sizeof back));
    CHECK(memcmp(back, v, sizeof v) == 0);
    /* sin saved y; writing y afterwards makes the backward fail (torch's version check) */
    CHECK_OK(ct_mul_scalar(ctx, x, 1.0, &y));
    CHECK_OK(ct_sin(ctx, y, &z));
    CHECK_OK(ct_exp_(ctx, y));
    CHECK_OK(ct_sum(ctx, z, 0, NULL, false, &l));
    CHECK(ct_backward(ctx, l, NULL, false) != CT_OK);
    CHECK(strstr(ct_ctx_last_error(ctx), "in-place") || strstr(ct_ctx_last_error(ctx), "version"));
    ct_tensor_release(l), ct_tensor_release(z), l = z = NULL;
    /* exp_ saves its result: a later write to y is caught too, an untouched chain is not */
    ct_tensor *w = NULL;
    CHECK_OK(ct_tensor_clone(ctx, y, &w));
    CHECK_OK(ct_tanh_(ctx, w));
    CHECK_OK(ct_sum(ctx, w, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    /* d/dx sum(tanh(exp(x))) = (1 - tanh^2(e^x)) e^x */
    const ct_tensor *g = ct_tensor_grad(x);
    double gv[3];
    CHECK(g && ct_tensor_to_host(g, gv, sizeof gv) == CT_OK);
    for (int i = 0; i < 3; i++) {
        double e = exp(v[i]), th = tanh(e);
        CHECK(fabs(gv[i] - (1 - th * th) * e) <= 1e-14 * (1 + fabs(gv[i])));
    }
    /* grad mode off: a leaf that requires grad is written plainly (torch.no_grad) */
    bool was = ct_set_grad_enabled(ctx, false);
    CHECK_OK(ct_mul_scalar_(ctx, x, 2.0));
    ct_set_grad_enabled(ctx, was);
    CHECK_OK(ct_tensor_to_host(x, back, sizeof back));
    CHECK(back[0] == 1.0 && back[2] == 4.0);
    ct_tensor *all[] = {x, y, l, v1, w};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* refusals that leave self as it was; an operand sharing self's memory */
TEST(refusals_and_aliasing) {
    const int64_t sh[2] = {3, 3}, s1[1] = {3};
    double v[9];
    for (int i = 0; i < 9; i++)
        v[i] = 0.25 * i - 1;
    ct_tensor *a = f64(2, sh, v), *row = f64(1, s1, v), *e = NULL, *at = NULL;
    /* expanded self */
    CHECK_OK(ct_tensor_expand(ctx, row, 2, sh, &e));
    CHECK_ST(ct_exp_(ctx, e), CT_ERR_INVALID_ARG);
    /* a result larger than self */
    CHECK_ST(ct_add_scaled_(ctx, row, a, 1.0), CT_ERR_SHAPE);
    CHECK_ST(ct_atan2_(ctx, row, a), CT_ERR_SHAPE);
    /* a float result into an integer self; a complex one into a real self */
    ct_tensor *iv = NULL, *cv = NULL;
    CHECK_OK(ct_cast(ctx, a, CT_INT64, &iv));
    CHECK_ST(ct_sqrt_(ctx, iv), CT_ERR_DTYPE);
    CHECK_ST(ct_pow_(ctx, iv, 0.5), CT_ERR_DTYPE);
    CHECK_OK(ct_pow_(ctx, iv, 2.0));
    CHECK_OK(ct_cast(ctx, a, CT_COMPLEX128, &cv));
    CHECK_ST(ct_mul_(ctx, a, cv), CT_ERR_DTYPE);
    CHECK_ST(ct_abs_(ctx, cv), CT_ERR_DTYPE);
    /* float_power_ wants a float64 self */
    ct_tensor *fv = NULL;
    CHECK_OK(ct_cast(ctx, row, CT_FLOAT32, &fv));
    CHECK_ST(ct_float_power_scalar_(ctx, fv, 2.0), CT_ERR_DTYPE);
    CHECK_OK(ct_float_power_scalar_(ctx, row, 2.0));
    /* a is written from its own transpose: the result is computed before anything lands */
    CHECK_OK(ct_tensor_transpose(ctx, a, 0, 1, &at));
    CHECK_OK(ct_atan2_(ctx, a, at));
    double r[9];
    CHECK_OK(ct_tensor_to_host(a, r, sizeof r));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            CHECK(r[i * 3 + j] == atan2(v[i * 3 + j], v[j * 3 + i]));
    /* NULLs */
    CHECK_ST(ct_exp_(ctx, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_exp_(NULL, a), CT_ERR_INVALID_ARG);
    CHECK(ct_atan2_(ctx, a, NULL) != CT_OK);
    ct_tensor *all[] = {a, row, e, at, iv, cv, fv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* in-place ops captured into a graph replay on new data */
TEST(capture_replay) {
    const int64_t sh[2] = {4, 5};
    double v[20], w[20];
    for (int i = 0; i < 20; i++)
        v[i] = 0.3 * i - 2.5, w[i] = 1.0 - 0.1 * i;
    ct_tensor *a = f64(2, sh, v), *b = f64(2, sh, w), *mask = NULL;
    CHECK_OK(ct_gt_scalar(ctx, b, 0.0, &mask));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_exp_(ctx, a));
    CHECK_OK(ct_addcmul_(ctx, a, b, b, 0.5));
    CHECK_OK(ct_masked_fill_(ctx, a, mask, -1.0));
    CHECK_OK(ct_cumsum_(ctx, a, 1));
    CHECK_OK(ct_graph_capture_end(g));
    /* the capture computed nothing: a is replayed from v twice */
    for (int rep = 0; rep < 2; rep++) {
        ct_tensor *h = f64(2, sh, v);
        CHECK_OK(ct_tensor_copy_(ctx, a, h));
        ct_tensor_release(h);
        CHECK_OK(ct_graph_replay(g));
        double r[20];
        CHECK_OK(ct_tensor_to_host(a, r, sizeof r));
        for (int i = 0; i < 4; i++) {
            double acc = 0;
            for (int j = 0; j < 5; j++) {
                int q = i * 5 + j;
                double x = exp(v[q]);
                x = fma(0.5 * w[q], w[q], x);
                if (w[q] > 0) x = -1.0;
                acc += x;
                CHECK(fabs(r[q] - acc) <= 1e-13 * (1 + fabs(acc)));
            }
        }
    }
    ct_graph_free(g);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(mask);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(forward_as_torch);
    RUN(gradients_as_torch);
    RUN(autograd_rules);
    RUN(refusals_and_aliasing);
    RUN(capture_replay);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

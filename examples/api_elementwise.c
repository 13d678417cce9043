/* Elementwise ops (include/ctorch/ops.h): arithmetic with alpha and rounding modes, Python-number
 * (scalar) operands and their type promotion, in-place updates, comparisons, the unary math and
 * activation functions (checked against C's libm in double, within a few f32 ulp), where / clamp /
 * addcmul / addcdiv / lerp / cast, predicates, logical and bitwise ops, remainder and fmod.
 *
 * Every section prints one line `name: dtype [values]` and checks the values against results worked
 * out by hand (or libm); the program exits 1 on the first mismatch or unexpected error.
 * Build and run: `cmake --build build --target example_api_elementwise &&
 * build/example_api_elementwise` (or `ctest --test-dir build -R example_api_elementwise`); it runs
 * in well under a second. */
#include <ctorch/ctorch.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* Any failing call prints its status and the context's message, then jumps to the cleanup. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* An error path: `call` must fail with status `want`; prints the library's explanation. A call
 * that should have failed but returned a tensor in r has it released. */
#define EXPECT_ERR(call, want)                                                                     \
    do {                                                                                           \
        r = NULL;                                                                                  \
        ct_status st_ = (call);                                                                    \
        printf("  error %-16s %s\n", ct_status_str(st_), ct_ctx_last_error(ctx));                  \
        ct_tensor_release(r);                                                                      \
        if (st_ != (want)) {                                                                       \
            fprintf(stderr, "%s:%d: %s: want status %s\n", __FILE__, __LINE__, #call,              \
                    ct_status_str(want));                                                          \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

#define NVALS(...) ((int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))
/* Checks t's dtype and values (C order) against the listed ones, then releases t. */
#define EXPECT(label, t, dtype, ulps, ...)                                                         \
    do {                                                                                           \
        ct_tensor *t_ = (t); /* evaluated once */                                                  \
        int bad_ =                                                                                 \
            check(label, t_, dtype, (const double[]){__VA_ARGS__}, NVALS(__VA_ARGS__), ulps);      \
        ct_tensor_release(t_);                                                                     \
        if (bad_) goto fail;                                                                       \
    } while (0)

/* Inputs live in a small pool released at the end (results are released by EXPECT). */
static ct_tensor *pool[128];
static int npool;
static ct_tensor *input(ct_ctx *ctx, ct_dtype dt, int64_t n, const void *data) {
    ct_tensor *t = NULL;
    if (npool == 128 || ct_tensor_from_host(ctx, data, dt, 1, &n, &t) != CT_OK) return NULL;
    return pool[npool++] = t;
}
#define F32(...) input(ctx, CT_FLOAT32, NVALS(__VA_ARGS__), (const float[]){__VA_ARGS__})
#define I32(...) input(ctx, CT_INT32, NVALS(__VA_ARGS__), (const int32_t[]){__VA_ARGS__})

/* The elements of a (small, 1-d) tensor as doubles, for the dtypes used here. */
static int read_doubles(const ct_tensor *t, double *v, int n) {
    union {
        float f32[16];
        double f64[16];
        int32_t i32[16];
        int64_t i64[16];
        uint8_t u8[16];
        bool b[16];
    } buf;
    ct_dtype dt = ct_tensor_dtype(t);
    if (n > 16 || ct_tensor_to_host(t, &buf, (size_t)n * ct_dtype_size(dt)) != CT_OK) return 1;
    for (int i = 0; i < n; i++) {
        switch (dt) {
        case CT_BOOL: v[i] = buf.b[i]; break;
        case CT_UINT8: v[i] = buf.u8[i]; break;
        case CT_INT32: v[i] = buf.i32[i]; break;
        case CT_INT64: v[i] = (double)buf.i64[i]; break;
        case CT_FLOAT32: v[i] = buf.f32[i]; break;
        case CT_FLOAT64: v[i] = buf.f64[i]; break;
        default: return 1;
        }
    }
    return 0;
}

/* Prints `label: dtype [values]`; returns 1 unless t has `dtype`, n elements, and each is within
 * `ulps` float32 ulps of want[i] (0: exactly equal; NaN matches NaN). */
static int check(const char *label, const ct_tensor *t, ct_dtype dtype, const double *want, int n,
                 int ulps) {
    double got[16];
    if (ct_tensor_numel(t) != n || read_doubles(t, got, n)) {
        printf("%s: unexpected size or dtype\n", label);
        return 1;
    }
    int bad = ct_tensor_dtype(t) != dtype;
    printf("%-18s %-7s [", label, ct_dtype_name(ct_tensor_dtype(t)));
    for (int i = 0; i < n; i++) {
        float w = fabsf((float)want[i]);
        double tol = ulps * ((double)nextafterf(w, INFINITY) - w);
        int ok =
            got[i] == want[i] || (isnan(got[i]) && isnan(want[i])) || fabs(got[i] - want[i]) <= tol;
        printf("%s%.5g%s", i ? " " : "", isnan(got[i]) ? NAN : got[i], ok ? "" : "(!)");
        bad |= !ok;
    }
    printf("]\n");
    if (bad)
        fprintf(stderr, "%s: wrong result (want dtype %s, values marked (!))\n", label,
                ct_dtype_name(dtype));
    return bad;
}

/* ---- the unary table: a ctorch op and an independent double-precision reference ---- */
typedef ct_status (*unary_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
/* References libm lacks. */
static double ref_neg(double x) { return -x; }
static double ref_rsqrt(double x) { return 1 / sqrt(x); }
static double ref_sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double ref_sign(double x) { return (x > 0) - (x < 0); }
static double ref_recip(double x) { return 1 / x; }
static double ref_silu(double x) { return x * ref_sigmoid(x); }
static double ref_mish(double x) { return x * tanh(log1p(exp(x))); }
static double ref_gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2))); }
static double ref_gelu_tanh(double x) {
    return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}
static double ref_softplus(double x) { return 2 * x > 3 ? x : log1p(exp(2 * x)) / 2; }
static double ref_leaky(double x) { return x > 0 ? x : 0.25 * x; }
static double ref_elu(double x) { return x > 0 ? x : expm1(x); }
static double ref_hardtanh(double x) { return fmin(fmax(x, -1), 1); }
static double ref_pow15(double x) { return pow(x, 1.5); }
/* Ops with parameters, fixed here so they fit the table. */
static ct_status gelu_tanh(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_gelu(c, a, CT_GELU_TANH, o);
}
static ct_status gelu_erf(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_gelu(c, a, CT_GELU_ERF, o);
}
/* softplus with beta 2 and threshold 3: x itself where 2x > 3. */
static ct_status softplus_2_3(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_softplus(c, a, 2.0, 3.0, o);
}
static ct_status leaky_025(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_leaky_relu(c, a, 0.25, o);
}
static ct_status elu_1(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_elu(c, a, 1.0, o);
}
static ct_status hardtanh_1(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_hardtanh(c, a, -1.0, 1.0, o);
}
static ct_status pow_15(ct_ctx *c, const ct_tensor *a, ct_tensor **o) {
    return ct_pow(c, a, 1.5, o);
}

static const struct {
    const char *name;
    unary_fn op;
    double (*ref)(double);
    int positive; /* 1: the op needs x > 0 (x > -1 for log1p): the positive inputs; 2: inputs in
                   * (-1, 1); 3: inputs >= 1 */
    int ulps;     /* tolerance in f32 ulps; 0 where the result is exact */
} unary[] = {
    {"neg", ct_neg, ref_neg, 0, 0},
    {"exp", ct_exp, exp, 0, 4},
    {"exp2", ct_exp2, exp2, 0, 4},
    {"expm1", ct_expm1, expm1, 0, 4},
    {"log", ct_log, log, 1, 4},
    {"log2", ct_log2, log2, 1, 4},
    {"log1p", ct_log1p, log1p, 1, 4},
    {"sqrt", ct_sqrt, sqrt, 1, 1},
    {"rsqrt", ct_rsqrt, ref_rsqrt, 1, 4},
    {"pow(x, 1.5)", pow_15, ref_pow15, 1, 4},
    {"sin", ct_sin, sin, 0, 4},
    {"cos", ct_cos, cos, 0, 4},
    {"tan", ct_tan, tan, 0, 4},
    {"atan", ct_atan, atan, 0, 4},
    {"asin", ct_asin, asin, 2, 4},
    {"acos", ct_acos, acos, 2, 4},
    {"sinh", ct_sinh, sinh, 0, 4},
    {"cosh", ct_cosh, cosh, 0, 4},
    {"asinh", ct_asinh, asinh, 0, 4},
    {"acosh", ct_acosh, acosh, 3, 4},
    {"atanh", ct_atanh, atanh, 2, 4},
    {"log10", ct_log10, log10, 1, 4},
    {"reciprocal", ct_reciprocal, ref_recip, 1, 1},
    {"erf", ct_erf, erf, 0, 4},
    {"erfc", ct_erfc, erfc, 0, 4},
    {"floor", ct_floor, floor, 0, 0},
    {"ceil", ct_ceil, ceil, 0, 0},
    {"round (half even)", ct_round, rint, 0, 0},
    {"trunc", ct_trunc, trunc, 0, 0},
    {"sign", ct_sign, ref_sign, 0, 0},
    {"sigmoid", ct_sigmoid, ref_sigmoid, 0, 4},
    {"silu", ct_silu, ref_silu, 0, 4},
    {"mish", ct_mish, ref_mish, 0, 4},
    {"gelu (erf)", gelu_erf, ref_gelu, 0, 4},
    /* accurate for x < 0 too, where 1 + tanh(..) cancels in f32 (torch 1.13 loses ~5 bits at
     * x = -2.5; docs/fidelity.md) */
    {"gelu (tanh)", gelu_tanh, ref_gelu_tanh, 0, 4},
    {"softplus(b2, t3)", softplus_2_3, ref_softplus, 0, 4},
    {"leaky_relu(0.25)", leaky_025, ref_leaky, 0, 0},
    {"elu(1)", elu_1, ref_elu, 0, 4},
    {"hardtanh(-1, 1)", hardtanh_1, ref_hardtanh, 0, 0},
};

int main(void) {
    ct_ctx *ctx = NULL;
    ct_tensor *r = NULL, *s = NULL;
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;

    /* ---- unary math and activations on float32, each against its double reference ---- */
    static const float xs[8] = {-2.5f, -1.25f, -0.5f, 0.25f, 0.5f, 1.5f, 2.5f, 3.75f};
    static const float xp[8] = {0.125f, 0.3f, 0.5f, 1.5f, 2.5f, 3.75f, 10.0f, 100.0f};
    static const float xu[8] = {-0.875f, -0.5f, -0.25f, 0.0f, 0.125f, 0.5f, 0.75f, 0.9375f};
    static const float xa[8] = {1.0f, 1.125f, 1.5f, 2.0f, 3.0f, 5.0f, 10.0f, 100.0f};
    ct_tensor *x = input(ctx, CT_FLOAT32, 8, xs), *xpos = input(ctx, CT_FLOAT32, 8, xp);
    ct_tensor *xunit = input(ctx, CT_FLOAT32, 8, xu), *xge1 = input(ctx, CT_FLOAT32, 8, xa);
    if (!x || !xpos || !xunit || !xge1) goto fail;
    printf("unary ops on x = [-2.5 -1.25 -0.5 0.25 0.5 1.5 2.5 3.75] (log*, sqrt, rsqrt, pow:\n"
           "x = [0.125 0.3 0.5 1.5 2.5 3.75 10 100]); checked against libm in double\n");
    for (size_t k = 0; k < sizeof unary / sizeof unary[0]; k++) {
        const int dom = unary[k].positive;
        const float *in = dom == 1 ? xp : dom == 2 ? xu : dom == 3 ? xa : xs;
        double want[8];
        for (int i = 0; i < 8; i++)
            want[i] = unary[k].ref(in[i]);
        CHECK(unary[k].op(ctx, dom == 1 ? xpos : dom == 2 ? xunit : dom == 3 ? xge1 : x, &r));
        int bad = check(unary[k].name, r, CT_FLOAT32, want, 8, unary[k].ulps);
        ct_tensor_release(r);
        if (bad) goto fail;
    }
    /* Float ops promote integer inputs to float32; pow with an integral exponent keeps int32. */
    ct_tensor *sq = I32(1, 4, 9);
    if (!sq) goto fail;
    CHECK(ct_sqrt(ctx, sq, &r));
    EXPECT("sqrt(int32)", r, CT_FLOAT32, 0, 1, 2, 3);
    CHECK(ct_pow(ctx, sq, 2, &r));
    EXPECT("pow(int32, 2)", r, CT_INT32, 0, 1, 16, 81);
    /* An integer tensor to a negative integer power has no integer result. */
    EXPECT_ERR(ct_pow(ctx, sq, -1, &r), CT_ERR_INVALID_ARG);

    /* ---- a + alpha*b and a - alpha*b (torch.add / torch.sub with alpha) ---- */
    ct_tensor *a = F32(1, 2, 3), *b = F32(10, 20, 30), *b2 = F32(1, 2);
    if (!a || !b || !b2) goto fail;
    CHECK(ct_add_scaled(ctx, a, b, 0.5, &r));
    EXPECT("a + 0.5*b", r, CT_FLOAT32, 0, 6, 12, 18);
    CHECK(ct_sub_scaled(ctx, a, b, 2.0, &r));
    EXPECT("a - 2*b", r, CT_FLOAT32, 0, -19, -38, -57);
    /* Shapes (3) and (2) do not broadcast: CT_ERR_SHAPE, the message names both. */
    EXPECT_ERR(ct_add_scaled(ctx, a, b2, 1.0, &r), CT_ERR_SHAPE);

    /* ---- division: true division gives float; TRUNC / FLOOR keep the integer dtype ---- */
    ct_tensor *n = I32(7, -7, 7, -7), *d = I32(2, 2, -2, -2), *zero = I32(0);
    if (!n || !d || !zero) goto fail;
    CHECK(ct_div(ctx, n, d, &r));
    EXPECT("n / d", r, CT_FLOAT32, 0, 3.5, -3.5, -3.5, 3.5);
    CHECK(ct_div_mode(ctx, n, d, CT_ROUND_TRUNC, &r));
    EXPECT("div trunc", r, CT_INT32, 0, 3, -3, -3, 3);
    CHECK(ct_div_mode(ctx, n, d, CT_ROUND_FLOOR, &r));
    EXPECT("div floor", r, CT_INT32, 0, 3, -4, -4, 3);
    CHECK(ct_floor_divide(ctx, n, d, &r));
    EXPECT("floor_divide", r, CT_INT32, 0, 3, -4, -4, 3);
    /* By a Python number: n // 2 stays int32, trunc(n / 2.5) is float32. */
    CHECK(ct_div_scalar_mode(ctx, n, 2, CT_ROUND_FLOOR, &r));
    EXPECT("n // 2", r, CT_INT32, 0, 3, -4, 3, -4);
    CHECK(ct_div_scalar_mode(ctx, n, 2.5, CT_ROUND_TRUNC, &r));
    EXPECT("trunc(n / 2.5)", r, CT_FLOAT32, 0, 2, -2, 2, -2);
    /* Integer division by zero is refused (torch raises ZeroDivisionError). */
    EXPECT_ERR(ct_div_mode(ctx, n, zero, CT_ROUND_TRUNC, &r), CT_ERR_INVALID_ARG);

    /* ---- scalar operands: a double acts as a Python int when integral, else as a float ---- */
    ct_tensor *i3 = I32(1, 2, 3);
    if (!i3) goto fail;
    CHECK(ct_add_scalar(ctx, i3, 2, &r));
    EXPECT("int32 + 2", r, CT_INT32, 0, 3, 4, 5);
    CHECK(ct_add_scalar(ctx, i3, 2.5, &r));
    EXPECT("int32 + 2.5", r, CT_FLOAT32, 0, 3.5, 4.5, 5.5);
    CHECK(ct_sub_scalar(ctx, i3, 0.5, &r));
    EXPECT("int32 - 0.5", r, CT_FLOAT32, 0, 0.5, 1.5, 2.5);
    CHECK(ct_div_scalar(ctx, i3, 2, &r)); /* true division: float even for an int divisor */
    EXPECT("int32 / 2", r, CT_FLOAT32, 0, 0.5, 1, 1.5);
    /* Comparisons with a number give bool, compared in the promoted dtype: 2 < 2.5 holds. */
    CHECK(ct_eq_scalar(ctx, i3, 2, &r));
    EXPECT("int32 == 2", r, CT_BOOL, 0, 0, 1, 0);
    CHECK(ct_ne_scalar(ctx, i3, 2, &r));
    EXPECT("int32 != 2", r, CT_BOOL, 0, 1, 0, 1);
    CHECK(ct_lt_scalar(ctx, i3, 2.5, &r));
    EXPECT("int32 < 2.5", r, CT_BOOL, 0, 1, 1, 0);
    CHECK(ct_le_scalar(ctx, i3, 2, &r));
    EXPECT("int32 <= 2", r, CT_BOOL, 0, 1, 1, 0);
    CHECK(ct_gt_scalar(ctx, i3, 2, &r));
    EXPECT("int32 > 2", r, CT_BOOL, 0, 0, 0, 1);
    CHECK(ct_ge_scalar(ctx, i3, 2.5, &r));
    EXPECT("int32 >= 2.5", r, CT_BOOL, 0, 0, 0, 1);

    /* ---- in place: s = s op other, in s's dtype (EXPECT is handed an extra reference) ---- */
    ct_tensor *two = F32(2), *eleven = F32(11);
    if (!two || !eleven) goto fail;
    CHECK(ct_tensor_clone(ctx, a, &s)); /* s = [1 2 3] */
    CHECK(ct_add_(ctx, s, b));          /* [11 22 33] */
    CHECK(ct_mul_(ctx, s, two));        /* [22 44 66], (1) broadcasts */
    CHECK(ct_div_(ctx, s, eleven));     /* [2 4 6] */
    EXPECT("add_ mul_ div_", ct_tensor_retain(s), CT_FLOAT32, 0, 2, 4, 6);
    CHECK(ct_add_scalar_(ctx, s, 0.5)); /* [2.5 4.5 6.5] */
    CHECK(ct_sub_scalar_(ctx, s, 1));   /* [1.5 3.5 5.5] */
    CHECK(ct_div_scalar_(ctx, s, 0.5)); /* [3 7 11] */
    EXPECT("+0.5 -1 /0.5", ct_tensor_retain(s), CT_FLOAT32, 0, 3, 7, 11);
    /* int32 + 2.5 is float32, which cannot be stored back into an int32 tensor. */
    ct_tensor *ic = I32(1, 2, 3);
    if (!ic) goto fail;
    EXPECT_ERR(ct_add_scalar_(ctx, ic, 2.5), CT_ERR_DTYPE);

    /* ---- comparisons of tensors (broadcast, promoted: float32 vs int32); NaN compares false ----
     */
    ct_tensor *f = F32(1, 2, 3, NAN), *i2 = I32(2), *h = F32(2.5);
    if (!f || !i2 || !h) goto fail;
    CHECK(ct_eq(ctx, f, i2, &r));
    EXPECT("f == 2", r, CT_BOOL, 0, 0, 1, 0, 0);
    CHECK(ct_ne(ctx, f, i2, &r));
    EXPECT("f != 2", r, CT_BOOL, 0, 1, 0, 1, 1);
    CHECK(ct_lt(ctx, f, i2, &r));
    EXPECT("f < 2", r, CT_BOOL, 0, 1, 0, 0, 0);
    CHECK(ct_le(ctx, f, i2, &r));
    EXPECT("f <= 2", r, CT_BOOL, 0, 1, 1, 0, 0);
    CHECK(ct_gt(ctx, f, i2, &r));
    EXPECT("f > 2", r, CT_BOOL, 0, 0, 0, 1, 0);
    CHECK(ct_ge(ctx, f, i2, &r));
    EXPECT("f >= 2", r, CT_BOOL, 0, 0, 1, 1, 0);
    /* where(f > 2, f, 2): picks f where the condition holds (NaN > 2 is false). */
    ct_tensor *cond = NULL;
    CHECK(ct_gt(ctx, f, i2, &cond));
    ct_status wst = ct_where(ctx, cond, f, i2, &r);
    ct_tensor_release(cond);
    CHECK(wst);
    EXPECT("where(f>2, f, 2)", r, CT_FLOAT32, 0, 2, 2, 3, 2);
    /* maximum / minimum propagate NaN (unlike fmax / fmin). */
    CHECK(ct_maximum(ctx, f, h, &r));
    EXPECT("maximum(f, 2.5)", r, CT_FLOAT32, 0, 2.5, 2.5, 3, NAN);
    CHECK(ct_minimum(ctx, f, h, &r));
    EXPECT("minimum(f, 2.5)", r, CT_FLOAT32, 0, 1, 2, 2.5, NAN);

    /* ---- clamp: NULL for a missing bound; a fractional bound on int32 gives float32 ---- */
    ct_tensor *ci = I32(-5, 0, 5);
    if (!ci) goto fail;
    double lo = -2, hi = 2, hi_frac = 2.5;
    CHECK(ct_clamp(ctx, ci, &lo, &hi, &r));
    EXPECT("clamp(-2, 2)", r, CT_INT32, 0, -2, 0, 2);
    CHECK(ct_clamp(ctx, ci, NULL, &hi_frac, &r));
    EXPECT("clamp(max=2.5)", r, CT_FLOAT32, 0, -5, 0, 2.5);

    /* ---- fused forms: self + v*t1*t2, self + v*t1/t2, start + w*(end - start) ---- */
    ct_tensor *one3 = F32(1, 1, 1), *t1 = F32(1, 2, 3), *t2 = F32(4, 5, 6), *t3 = F32(4, 8, 2);
    ct_tensor *st0 = F32(0, 10, -4), *en = F32(8, 20, 4), *w = F32(0.25, 0.5, 1);
    if (!one3 || !t1 || !t2 || !t3 || !st0 || !en || !w) goto fail;
    CHECK(ct_addcmul(ctx, one3, t1, t2, 0.5, &r));
    EXPECT("1 + 0.5*t1*t2", r, CT_FLOAT32, 0, 3, 6, 10);
    CHECK(ct_addcdiv(ctx, one3, t1, t3, 2.0, &r));
    EXPECT("1 + 2*t1/t3", r, CT_FLOAT32, 0, 1.5, 1.5, 4);
    CHECK(ct_lerp(ctx, st0, en, w, &r));
    EXPECT("lerp(w tensor)", r, CT_FLOAT32, 0, 2, 15, 4);
    CHECK(ct_lerp_scalar(ctx, st0, en, 0.75, &r));
    EXPECT("lerp(0.75)", r, CT_FLOAT32, 0, 6, 17.5, 2);

    /* ---- cast: float -> int32 truncates toward zero; -> bool is "nonzero" ---- */
    ct_tensor *fc = F32(-2.7, -0.5, 0, 1.9, 300);
    if (!fc) goto fail;
    CHECK(ct_cast(ctx, fc, CT_INT32, &r));
    EXPECT("cast int32", r, CT_INT32, 0, -2, 0, 0, 1, 300);
    CHECK(ct_cast(ctx, fc, CT_BOOL, &r));
    EXPECT("cast bool", r, CT_BOOL, 0, 1, 1, 0, 1, 1);

    /* ---- predicates and logical ops: bool results; nonzero counts as true ---- */
    ct_tensor *sp = F32(1, NAN, INFINITY, -INFINITY);
    ct_tensor *la = I32(0, 0, 2, 3), *lb = F32(0, 1.5, 0, -1), *ln = I32(0, 3, -1);
    if (!sp || !la || !lb || !ln) goto fail;
    CHECK(ct_isnan(ctx, sp, &r));
    EXPECT("isnan", r, CT_BOOL, 0, 0, 1, 0, 0);
    CHECK(ct_isinf(ctx, sp, &r));
    EXPECT("isinf", r, CT_BOOL, 0, 0, 0, 1, 1);
    CHECK(ct_isfinite(ctx, sp, &r));
    EXPECT("isfinite", r, CT_BOOL, 0, 1, 0, 0, 0);
    CHECK(ct_logical_not(ctx, ln, &r));
    EXPECT("logical_not", r, CT_BOOL, 0, 1, 0, 0);
    CHECK(ct_logical_and(ctx, la, lb, &r));
    EXPECT("logical_and", r, CT_BOOL, 0, 0, 0, 0, 1);
    CHECK(ct_logical_or(ctx, la, lb, &r));
    EXPECT("logical_or", r, CT_BOOL, 0, 0, 1, 1, 1);
    CHECK(ct_logical_xor(ctx, la, lb, &r));
    EXPECT("logical_xor", r, CT_BOOL, 0, 0, 1, 1, 0);

    /* ---- bitwise ops on integers (two's complement) and shifts ---- */
    ct_tensor *p = I32(12, 10, -1), *q = I32(10, 6, 255), *sv = I32(1, -16, 5), *sh = I32(3, 2, 0),
              *bn = I32(0, 5, -1);
    if (!p || !q || !sv || !sh || !bn) goto fail;
    CHECK(ct_bitwise_and(ctx, p, q, &r));
    EXPECT("p & q", r, CT_INT32, 0, 8, 2, 255);
    CHECK(ct_bitwise_or(ctx, p, q, &r));
    EXPECT("p | q", r, CT_INT32, 0, 14, 14, -1);
    CHECK(ct_bitwise_xor(ctx, p, q, &r));
    EXPECT("p ^ q", r, CT_INT32, 0, 6, 12, -256);
    CHECK(ct_bitwise_not(ctx, bn, &r));
    EXPECT("~[0 5 -1]", r, CT_INT32, 0, -1, -6, 0);
    CHECK(ct_bitwise_left_shift(ctx, sv, sh, &r));
    EXPECT("v << [3 2 0]", r, CT_INT32, 0, 8, -64, 5);
    CHECK(ct_bitwise_right_shift(ctx, sv, sh, &r)); /* arithmetic: keeps the sign */
    EXPECT("v >> [3 2 0]", r, CT_INT32, 0, 0, -4, 5);
    /* Bitwise ops are for integers and bool: a float tensor is CT_ERR_DTYPE. */
    EXPECT_ERR(ct_bitwise_not(ctx, a, &r), CT_ERR_DTYPE);

    /* ---- remainder (sign of the divisor, Python's %) and fmod (sign of the dividend, C's) ---- */
    ct_tensor *m3 = I32(3, 3, -3, -3);
    if (!m3) goto fail;
    CHECK(ct_remainder(ctx, n, m3, &r));
    EXPECT("remainder(n, m)", r, CT_INT32, 0, 1, 2, -2, -1);
    CHECK(ct_fmod(ctx, n, m3, &r));
    EXPECT("fmod(n, m)", r, CT_INT32, 0, 1, -1, 1, -1);
    CHECK(ct_remainder_scalar(ctx, n, 3, &r));
    EXPECT("remainder(n, 3)", r, CT_INT32, 0, 1, 2, 1, 2);
    CHECK(ct_fmod_scalar(ctx, n, 2.5, &r)); /* 2.5 is a float: the result is float32 */
    EXPECT("fmod(n, 2.5)", r, CT_FLOAT32, 0, 2, -2, 2, -2);

    /* ---- atan2(y, x): the angle of (x, y), integers promoted to float32 as torch ---- */
    ct_tensor *ay = I32(1, -1, 0, 0), *ax = I32(0, 0, -1, 1);
    if (!ay || !ax) goto fail;
    CHECK(ct_atan2(ctx, ay, ax, &r));
    EXPECT("atan2([1 -1 0 0], [0 0 -1 1])", r, CT_FLOAT32, 1, M_PI / 2, -M_PI / 2, M_PI, 0);

    /* ---- more everyday math: hypot, logaddexp(2), xlogy, copysign, fmax / fmin, heaviside,
     * a tensor exponent, square, degrees, frac, logit, sinc, nan_to_num, signbit ---- */
    ct_tensor *p3 = F32(3, -5, 0, 1e30f), *p4 = F32(4, 12, 0, 1e30f);
    if (!p3 || !p4) goto fail;
    CHECK(ct_hypot(ctx, p3, p4, &r)); /* no overflow at 1e30 */
    EXPECT("hypot", r, CT_FLOAT32, 1, 5, 13, 0, 1.4142135e30);
    ct_tensor *ea = F32(0, -1000, 1000, -INFINITY), *eb = F32(0, -1000, 1, 0);
    if (!ea || !eb) goto fail;
    CHECK(ct_logaddexp(ctx, ea, eb, &r)); /* log(e^a + e^b) without overflow */
    EXPECT("logaddexp", r, CT_FLOAT32, 1, M_LN2, -1000 + M_LN2, 1000, 0);
    CHECK(ct_logaddexp2(ctx, ea, eb, &r));
    EXPECT("logaddexp2", r, CT_FLOAT32, 1, 1, -999, 1000, 0);
    ct_tensor *xa0 = F32(0, 0, 2, -1), *xb0 = F32(0, NAN, M_E, 1);
    if (!xa0 || !xb0) goto fail;
    CHECK(ct_xlogy(ctx, xa0, xb0, &r)); /* 0 where a == 0, unless b is NaN */
    EXPECT("xlogy", r, CT_FLOAT32, 1, 0, NAN, 2, 0);
    CHECK(ct_copysign(ctx, p4, F32(-1, 1, -0.0f, -2), &r));
    EXPECT("copysign", r, CT_FLOAT32, 0, -4, 12, -0.0, -1e30f);
    ct_tensor *fa = F32(1, NAN, 3, NAN), *fb = F32(2, 5, NAN, NAN);
    if (!fa || !fb) goto fail;
    CHECK(ct_fmax(ctx, fa, fb, &r)); /* NaN only where both are */
    EXPECT("fmax", r, CT_FLOAT32, 0, 2, 5, 3, NAN);
    CHECK(ct_fmin(ctx, fa, fb, &r));
    EXPECT("fmin", r, CT_FLOAT32, 0, 1, 5, 3, NAN);
    CHECK(ct_heaviside(ctx, F32(-2, 0, 3, 0), F32(9, 0.5f, 9, 0.25f), &r));
    EXPECT("heaviside", r, CT_FLOAT32, 0, 0, 0.5, 1, 0.25);
    CHECK(ct_pow_tensor(ctx, I32(2, 3, -2, 5), I32(10, -1, 3, 0), &r)); /* integer powers */
    EXPECT("pow_tensor", r, CT_INT32, 0, 1024, 0, -8, 1);
    CHECK(ct_square(ctx, I32(-3, 4, 0, 7), &r));
    EXPECT("square", r, CT_INT32, 0, 9, 16, 0, 49);
    CHECK(ct_deg2rad(ctx, I32(180, 90, -45, 0), &r)); /* integers in float32 */
    EXPECT("deg2rad", r, CT_FLOAT32, 1, M_PI, M_PI / 2, -M_PI / 4, 0);
    CHECK(ct_rad2deg(ctx, F32((float)M_PI, (float)(M_PI / 2), 1, 0), &r));
    EXPECT("rad2deg", r, CT_FLOAT32, 1, 180, 90, 180 / M_PI, 0);
    CHECK(ct_frac(ctx, F32(2.75f, -2.75f, 1e30f, -0.5f), &r));
    EXPECT("frac", r, CT_FLOAT32, 0, 0.75, -0.75, 0, -0.5);
    CHECK(ct_logit(ctx, F32(0.5f, 0.3f, 0, 1), 0.25, &r)); /* clamped to [0.25, 0.75] */
    EXPECT("logit(eps .25)", r, CT_FLOAT32, 2, 0, log(0.3 / 0.7), -log(3.0), log(3.0));
    CHECK(ct_sinc(ctx, F32(0, 1, 0.5f, -2), &r)); /* exact zeros at integers */
    EXPECT("sinc", r, CT_FLOAT32, 1, 1, 0, 2 / M_PI, 0);
    const double nan_v = -1, big = 1e6; /* NULL: 0 and the dtype's largest finite values */
    CHECK(ct_nan_to_num(ctx, F32(NAN, INFINITY, -INFINITY, 1), &nan_v, &big, NULL, &r));
    EXPECT("nan_to_num", r, CT_FLOAT32, 0, -1, 1e6, -FLT_MAX, 1);
    CHECK(ct_signbit(ctx, F32(-0.0f, 0, -3, 2), &r));
    EXPECT("signbit", r, CT_BOOL, 0, 1, 0, 1, 0);
    CHECK(ct_isclose(ctx, F32(1, 1, NAN, 100), F32(1.000001f, 1.1f, NAN, 100.0001f), 1e-5, 1e-8,
                     false, &r));
    EXPECT("isclose", r, CT_BOOL, 0, 1, 0, 0, 1);
    bool all_close = false, same = false;
    CHECK(ct_allclose(ctx, p3, p3, 1e-5, 1e-8, false, &all_close));
    CHECK(ct_equal(ctx, I32(1, 2, 3), F32(1, 2, 3), &same)); /* dtypes promote, as torch */
    printf("allclose(p, p) = %d, equal(int [1 2 3], float [1 2 3]) = %d\n", all_close, same);
    if (!all_close || !same) goto fail;
    EXPECT_ERR(ct_heaviside(ctx, I32(1), F32(1), &r), CT_ERR_DTYPE); /* one dtype, as torch */

    printf("all elementwise checks passed\n");
    rc = 0;
fail:
    ct_tensor_release(s);
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

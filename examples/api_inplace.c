/* In-place ops (include/ctorch/inplace.h): torch's x.exp_(), x.clamp_(...), x.masked_fill_(...),
 * F.relu_(x) ... A tour that applies every in-place function to a fresh tensor and checks that the
 * value it leaves in self equals the out-of-place op's result cast to self's dtype (bit for bit),
 * then shows the rules: a view writes through to its base, an integer self refuses a float result,
 * an operand may be self's own memory, and under autograd self takes the op's node.
 *
 * Prints one line per group and exits 1 on the first mismatch or unexpected error.
 * Build and run: `cmake --build build --target example_api_inplace && build/example_api_inplace`
 * (or `ctest --test-dir build -R example_api_inplace`); it runs in well under a second. */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static ct_ctx *ctx;
static const int64_t SH[2] = {3, 4};

/* a 3x4 tensor of dtype dt holding 0.37 k - 1.9 (integers: k % 7 - 3), k = seed.. */
static ct_tensor *make(ct_dtype dt, int seed) {
    double v[12];
    for (int k = 0; k < 12; k++)
        v[k] = ct_dtype_is_floating(dt) ? 0.37 * (k + seed) - 1.9 : (k + seed) % 7 - 3;
    ct_tensor *f = NULL, *t = NULL;
    if (ct_tensor_from_host(ctx, v, CT_FLOAT64, 2, SH, &f) != CT_OK) return NULL;
    if (ct_cast(ctx, f, dt, &t) != CT_OK) t = NULL;
    ct_tensor_release(f);
    return t;
}
/* a and b hold the same values and dtype (NaN equal to NaN) */
static int same(const ct_tensor *a, const ct_tensor *b) {
    const int64_t n = ct_tensor_numel(a);
    if (n != ct_tensor_numel(b) || n > 64 || ct_tensor_dtype(a) != ct_tensor_dtype(b)) return 0;
    double x[64], y[64];
    ct_tensor *ca = NULL, *cb = NULL;
    int ok = ct_cast(ctx, a, CT_FLOAT64, &ca) == CT_OK &&
             ct_cast(ctx, b, CT_FLOAT64, &cb) == CT_OK &&
             ct_tensor_to_host(ca, x, sizeof(double) * (size_t)n) == CT_OK &&
             ct_tensor_to_host(cb, y, sizeof(double) * (size_t)n) == CT_OK;
    for (int64_t i = 0; ok && i < n; i++)
        ok = (isnan(x[i]) && isnan(y[i])) || x[i] == y[i];
    ct_tensor_release(ca), ct_tensor_release(cb);
    return ok;
}

typedef ct_status (*in1)(ct_ctx *, ct_tensor *);
typedef ct_status (*out1)(ct_ctx *, const ct_tensor *, ct_tensor **);
typedef ct_status (*inn)(ct_ctx *, ct_tensor *, double);
typedef ct_status (*outn)(ct_ctx *, const ct_tensor *, double, ct_tensor **);
typedef ct_status (*in2)(ct_ctx *, ct_tensor *, const ct_tensor *);
typedef ct_status (*out2)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);

/* self.f_() against f(self), on float32 (and on int64 for the integer-preserving ones) */
static int unary_group(void) {
    static const struct {
        const char *name;
        in1 ip;
        out1 op;
    } t[] = {{"abs", ct_abs_, ct_abs},
             {"absolute", ct_absolute_, ct_absolute},
             {"neg", ct_neg_, ct_neg},
             {"negative", ct_negative_, ct_negative},
             {"sgn", ct_sgn_, ct_sgn},
             {"sign", ct_sign_, ct_sign},
             {"conj_physical", ct_conj_physical_, ct_conj_physical},
             {"reciprocal", ct_reciprocal_, ct_reciprocal},
             {"square", ct_square_, ct_square},
             {"sqrt", ct_sqrt_, ct_sqrt},
             {"rsqrt", ct_rsqrt_, ct_rsqrt},
             {"exp", ct_exp_, ct_exp},
             {"exp2", ct_exp2_, ct_exp2},
             {"expm1", ct_expm1_, ct_expm1},
             {"log", ct_log_, ct_log},
             {"log2", ct_log2_, ct_log2},
             {"log10", ct_log10_, ct_log10},
             {"log1p", ct_log1p_, ct_log1p},
             {"sin", ct_sin_, ct_sin},
             {"cos", ct_cos_, ct_cos},
             {"tan", ct_tan_, ct_tan},
             {"asin", ct_asin_, ct_asin},
             {"acos", ct_acos_, ct_acos},
             {"atan", ct_atan_, ct_atan},
             {"arcsin", ct_arcsin_, ct_arcsin},
             {"arccos", ct_arccos_, ct_arccos},
             {"arctan", ct_arctan_, ct_arctan},
             {"sinh", ct_sinh_, ct_sinh},
             {"cosh", ct_cosh_, ct_cosh},
             {"tanh", ct_tanh_, ct_tanh},
             {"asinh", ct_asinh_, ct_asinh},
             {"acosh", ct_acosh_, ct_acosh},
             {"atanh", ct_atanh_, ct_atanh},
             {"arcsinh", ct_arcsinh_, ct_arcsinh},
             {"arccosh", ct_arccosh_, ct_arccosh},
             {"arctanh", ct_arctanh_, ct_arctanh},
             {"sigmoid", ct_sigmoid_, ct_sigmoid},
             {"erf", ct_erf_, ct_erf},
             {"erfc", ct_erfc_, ct_erfc},
             {"erfinv", ct_erfinv_, ct_erfinv},
             {"lgamma", ct_lgamma_, ct_lgamma},
             {"digamma", ct_digamma_, ct_digamma},
             {"i0", ct_i0_, ct_i0},
             {"sinc", ct_sinc_, ct_sinc},
             {"deg2rad", ct_deg2rad_, ct_deg2rad},
             {"rad2deg", ct_rad2deg_, ct_rad2deg},
             {"ceil", ct_ceil_, ct_ceil},
             {"floor", ct_floor_, ct_floor},
             {"round", ct_round_, ct_round},
             {"trunc", ct_trunc_, ct_trunc},
             {"fix", ct_fix_, ct_fix},
             {"frac", ct_frac_, ct_frac},
             {"logical_not", ct_logical_not_, ct_logical_not},
             {"relu", ct_relu_, ct_relu},
             {"relu6", ct_relu6_, ct_relu6},
             {"selu", ct_selu_, ct_selu},
             {"silu", ct_silu_, ct_silu},
             {"mish", ct_mish_, ct_mish},
             {"hardsigmoid", ct_hardsigmoid_, ct_hardsigmoid},
             {"hardswish", ct_hardswish_, ct_hardswish}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ct_tensor *x = make(CT_FLOAT32, (int)i), *r = NULL, *c = NULL;
        CHECK(t[i].op(ctx, x, &r));
        CHECK(ct_cast(ctx, r, CT_FLOAT32, &c));
        CHECK(t[i].ip(ctx, x));
        if (!same(x, c)) return fprintf(stderr, "%s_ differs from %s\n", t[i].name, t[i].name), 1;
        ct_tensor_release(x), ct_tensor_release(r), ct_tensor_release(c);
    }
    /* bitwise_not_ keeps an integer self */
    ct_tensor *x = make(CT_INT32, 1), *r = NULL;
    CHECK(ct_bitwise_not(ctx, x, &r));
    CHECK(ct_bitwise_not_(ctx, x));
    if (!same(x, r)) return fprintf(stderr, "bitwise_not_ differs\n"), 1;
    ct_tensor_release(x), ct_tensor_release(r);
    printf("unary: %zu in-place functions equal their out-of-place ops\n",
           sizeof t / sizeof t[0] + 1);
    return 0;
}

static int number_group(void) {
    static const struct {
        const char *name;
        inn ip;
        outn op;
        double v;
    } t[] = {{"pow", ct_pow_, ct_pow, 3},
             {"fmod_scalar", ct_fmod_scalar_, ct_fmod_scalar, 0.75},
             {"remainder_scalar", ct_remainder_scalar_, ct_remainder_scalar, -0.75},
             {"clamp_min", ct_clamp_min_, ct_clamp_min, -0.5},
             {"clamp_max", ct_clamp_max_, ct_clamp_max, 0.5},
             {"eq_scalar", ct_eq_scalar_, ct_eq_scalar, 0.31},
             {"ne_scalar", ct_ne_scalar_, ct_ne_scalar, 0.31},
             {"lt_scalar", ct_lt_scalar_, ct_lt_scalar, 0.0},
             {"le_scalar", ct_le_scalar_, ct_le_scalar, 0.0},
             {"gt_scalar", ct_gt_scalar_, ct_gt_scalar, 0.0},
             {"ge_scalar", ct_ge_scalar_, ct_ge_scalar, 0.0},
             {"logit", ct_logit_, ct_logit, 0.05},
             {"elu", ct_elu_, ct_elu, 0.7},
             {"celu", ct_celu_, ct_celu, 1.5},
             {"leaky_relu", ct_leaky_relu_, ct_leaky_relu, 0.1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ct_tensor *x = make(CT_FLOAT32, (int)i), *r = NULL, *c = NULL;
        CHECK(t[i].op(ctx, x, t[i].v, &r));
        CHECK(ct_cast(ctx, r, CT_FLOAT32, &c));
        CHECK(t[i].ip(ctx, x, t[i].v));
        if (!same(x, c)) return fprintf(stderr, "%s_ differs\n", t[i].name), 1;
        ct_tensor_release(x), ct_tensor_release(r), ct_tensor_release(c);
    }
    /* float_power_ wants a float64 self; the rest with their own arguments */
    ct_tensor *d = make(CT_FLOAT64, 2), *x = make(CT_FLOAT32, 3), *r = NULL;
    CHECK(ct_float_power_scalar(ctx, d, 2.5, &r));
    CHECK(ct_float_power_scalar_(ctx, d, 2.5));
    int ok = same(d, r);
    ct_tensor_release(r), r = NULL;
    const double lo = -0.5, hi = 0.75, big = 1e3;
    CHECK(ct_clamp(ctx, x, &lo, &hi, &r));
    CHECK(ct_clamp_(ctx, x, &lo, &hi));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_clip(ctx, x, NULL, &lo, &r));
    CHECK(ct_clip_(ctx, x, NULL, &lo));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_log_(ctx, x)); /* NaN for x < 0 */
    CHECK(ct_nan_to_num(ctx, x, &hi, &big, NULL, &r));
    CHECK(ct_nan_to_num_(ctx, x, &hi, &big, NULL));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_hardtanh(ctx, x, -0.25, 0.25, &r));
    CHECK(ct_hardtanh_(ctx, x, -0.25, 0.25));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_threshold(ctx, x, 0.1, -7, &r));
    CHECK(ct_threshold_(ctx, x, 0.1, -7));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_rrelu(ctx, x, 0.1, 0.3, true, 42, 0, &r));
    CHECK(ct_rrelu_(ctx, x, 0.1, 0.3, true, 42, 0)); /* same seed: same slopes */
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_abs_(ctx, x));
    CHECK(ct_add_scalar_(ctx, x, 1.5));
    CHECK(ct_polygamma(ctx, 1, x, &r));
    CHECK(ct_polygamma_(ctx, x, 1));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_add_scalar_(ctx, x, 1.0));
    CHECK(ct_mvlgamma(ctx, x, 2, &r));
    CHECK(ct_mvlgamma_(ctx, x, 2));
    ok = ok && same(x, r);
    ct_tensor_release(r), r = NULL;
    CHECK(ct_div_scalar_mode(ctx, x, -0.3, CT_ROUND_FLOOR, &r));
    CHECK(ct_div_scalar_mode_(ctx, x, -0.3, CT_ROUND_FLOOR));
    ok = ok && same(x, r);
    ct_tensor_release(r), ct_tensor_release(x), ct_tensor_release(d);
    if (!ok) return fprintf(stderr, "a number op differs\n"), 1;
    printf("with a number: 27 in-place functions equal their out-of-place ops\n");
    return 0;
}

static int tensor_group(void) {
    static const struct {
        const char *name;
        in2 ip;
        out2 op;
    } t[] = {{"pow_tensor", ct_pow_tensor_, ct_pow_tensor},
             {"atan2", ct_atan2_, ct_atan2},
             {"arctan2", ct_arctan2_, ct_arctan2},
             {"hypot", ct_hypot_, ct_hypot},
             {"copysign", ct_copysign_, ct_copysign},
             {"nextafter", ct_nextafter_, ct_nextafter},
             {"ldexp", ct_ldexp_, ct_ldexp},
             {"xlogy", ct_xlogy_, ct_xlogy},
             {"heaviside", ct_heaviside_, ct_heaviside},
             {"fmod", ct_fmod_, ct_fmod},
             {"remainder", ct_remainder_, ct_remainder},
             {"floor_divide", ct_floor_divide_, ct_floor_divide},
             {"true_divide", ct_true_divide_, ct_true_divide},
             {"divide", ct_divide_, ct_divide},
             {"multiply", ct_multiply_, ct_multiply},
             {"logical_and", ct_logical_and_, ct_logical_and},
             {"logical_or", ct_logical_or_, ct_logical_or},
             {"logical_xor", ct_logical_xor_, ct_logical_xor},
             {"eq", ct_eq_, ct_eq},
             {"ne", ct_ne_, ct_ne},
             {"lt", ct_lt_, ct_lt},
             {"le", ct_le_, ct_le},
             {"gt", ct_gt_, ct_gt},
             {"ge", ct_ge_, ct_ge},
             {"greater", ct_greater_, ct_greater},
             {"greater_equal", ct_greater_equal_, ct_greater_equal},
             {"less", ct_less_, ct_less},
             {"less_equal", ct_less_equal_, ct_less_equal},
             {"not_equal", ct_not_equal_, ct_not_equal}};
    static const struct {
        const char *name;
        in2 ip;
        out2 op;
    } ti[] = {{"gcd", ct_gcd_, ct_gcd},
              {"lcm", ct_lcm_, ct_lcm},
              {"bitwise_and", ct_bitwise_and_, ct_bitwise_and},
              {"bitwise_or", ct_bitwise_or_, ct_bitwise_or},
              {"bitwise_xor", ct_bitwise_xor_, ct_bitwise_xor},
              {"bitwise_left_shift", ct_bitwise_left_shift_, ct_bitwise_left_shift},
              {"bitwise_right_shift", ct_bitwise_right_shift_, ct_bitwise_right_shift}};
    for (size_t i = 0; i < sizeof t / sizeof t[0] + sizeof ti / sizeof ti[0]; i++) {
        const bool integer = i >= sizeof t / sizeof t[0];
        const size_t j = integer ? i - sizeof t / sizeof t[0] : i;
        const ct_dtype dt = integer ? CT_INT64 : CT_FLOAT32;
        ct_tensor *x = make(dt, (int)i), *y = make(dt, 5), *a = NULL, *r = NULL, *c = NULL;
        if (integer) CHECK(ct_abs_(ctx, y)); /* shifts by 0..3 */
        CHECK(integer ? ti[j].op(ctx, x, y, &r) : t[j].op(ctx, x, y, &r));
        CHECK(ct_cast(ctx, r, dt, &c));
        CHECK(integer ? ti[j].ip(ctx, x, y) : t[j].ip(ctx, x, y));
        if (!same(x, c))
            return fprintf(stderr, "%s_ differs\n", integer ? ti[j].name : t[j].name), 1;
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(a);
        ct_tensor_release(r), ct_tensor_release(c);
    }
    /* with a number or a mode, alpha, three operands, float_power_ on float64 */
    ct_tensor *x = make(CT_FLOAT32, 1), *y = make(CT_FLOAT32, 4), *z = make(CT_FLOAT32, 7);
    ct_tensor *d = make(CT_FLOAT64, 1), *r = NULL;
    int ok = 1;
#define SAME_AS(OUTCALL, INCALL, SELF)                                                             \
    CHECK(OUTCALL);                                                                                \
    CHECK(INCALL);                                                                                 \
    if (!same(SELF, r)) ok = 0, fprintf(stderr, "differs: %s\n", #INCALL);                         \
    ct_tensor_release(r), r = NULL
    SAME_AS(ct_float_power(ctx, d, y, &r), ct_float_power_(ctx, d, y), d);
    SAME_AS(ct_div_mode(ctx, x, y, CT_ROUND_TRUNC, &r), ct_div_mode_(ctx, x, y, CT_ROUND_TRUNC), x);
    SAME_AS(ct_add_scaled(ctx, x, y, 0.5, &r), ct_add_scaled_(ctx, x, y, 0.5), x);
    SAME_AS(ct_sub_scaled(ctx, x, y, 2.0, &r), ct_sub_scaled_(ctx, x, y, 2.0), x);
    SAME_AS(ct_subtract(ctx, x, z, 1.5, &r), ct_subtract_(ctx, x, z, 1.5), x);
    SAME_AS(ct_lerp(ctx, x, y, z, &r), ct_lerp_(ctx, x, y, z), x);
    SAME_AS(ct_lerp_scalar(ctx, x, z, 0.75, &r), ct_lerp_scalar_(ctx, x, z, 0.75), x);
    SAME_AS(ct_addcmul(ctx, x, y, z, 0.5, &r), ct_addcmul_(ctx, x, y, z, 0.5), x);
    SAME_AS(ct_addcdiv(ctx, x, y, z, -2.0, &r), ct_addcdiv_(ctx, x, y, z, -2.0), x);
    SAME_AS(ct_cumsum(ctx, x, 1, &r), ct_cumsum_(ctx, x, 1), x);
    SAME_AS(ct_cumprod(ctx, x, 0, &r), ct_cumprod_(ctx, x, 0), x);
    SAME_AS(ct_tril(ctx, x, 1, &r), ct_tril_(ctx, x, 1), x);
    SAME_AS(ct_triu(ctx, y, -1, &r), ct_triu_(ctx, y, -1), y);
    SAME_AS(ct_renorm(ctx, z, 2, 0, 1.0, &r), ct_renorm_(ctx, z, 2, 0, 1.0), z);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(d);
    if (!ok) return fprintf(stderr, "a tensor op differs\n"), 1;
    printf("with tensors: %zu in-place functions equal their out-of-place ops\n",
           sizeof t / sizeof t[0] + sizeof ti / sizeof ti[0] + 14);
    return 0;
}

/* products and indexed writes */
static int product_index_group(void) {
    const int64_t s3[3] = {2, 3, 4}, s34[3] = {2, 4, 4}, s4[1] = {4}, s3v[1] = {3}, s2[1] = {2};
    ct_tensor *m = make(CT_FLOAT32, 1), *sq = NULL, *b1 = NULL, *b2 = NULL, *acc = NULL, *v = NULL;
    ct_tensor *w = NULL, *r = NULL;
    int ok = 1;
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 2, (int64_t[]){3, 3}, 0.5, &sq));
    CHECK(ct_tensor_ones(ctx, CT_FLOAT32, 3, s3, &b1));
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 3, s34, 0.25, &b2));
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 3, (int64_t[]){2, 3, 4}, 2.0, &acc));
    CHECK(ct_tensor_ones(ctx, CT_FLOAT32, 1, s4, &v));
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 1, s3v, -1.0, &w));
    SAME_AS(ct_addmm(ctx, m, sq, m, 0.5, 2.0, &r), ct_addmm_(ctx, m, sq, m, 0.5, 2.0), m);
    SAME_AS(ct_addmv(ctx, w, m, v, 1.0, 0.5, &r), ct_addmv_(ctx, w, m, v, 1.0, 0.5), w);
    SAME_AS(ct_addr(ctx, m, w, v, 2.0, 1.0, &r), ct_addr_(ctx, m, w, v, 2.0, 1.0), m);
    SAME_AS(ct_addbmm(ctx, m, b1, b2, 1.0, 1.0, &r), ct_addbmm_(ctx, m, b1, b2, 1.0, 1.0), m);
    SAME_AS(ct_baddbmm(ctx, acc, b1, b2, 0.5, 1.0, &r), ct_baddbmm_(ctx, acc, b1, b2, 0.5, 1.0),
            acc);
    ct_tensor *mask = NULL, *idx = NULL, *src = NULL, *gi = NULL;
    CHECK(ct_gt_scalar(ctx, m, 0.0, &mask));
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){2, 0}, CT_INT64, 1, s2, &idx));
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 2, (int64_t[]){2, 4}, 9.0, &src));
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){0, 2, 1, 0, 1, 1, 2, 0}, CT_INT64, 2,
                              (int64_t[]){2, 4}, &gi));
    SAME_AS(ct_masked_fill(ctx, m, mask, -4.0, &r), ct_masked_fill_(ctx, m, mask, -4.0), m);
    SAME_AS(ct_masked_scatter(ctx, m, mask, acc, &r), ct_masked_scatter_(ctx, m, mask, acc), m);
    SAME_AS(ct_index_add(ctx, m, 0, idx, src, 0.5, &r), ct_index_add_(ctx, m, 0, idx, src, 0.5), m);
    SAME_AS(ct_index_copy(ctx, m, 0, idx, src, &r), ct_index_copy_(ctx, m, 0, idx, src), m);
    SAME_AS(ct_index_fill(ctx, m, 1, idx, 3.0, &r), ct_index_fill_(ctx, m, 1, idx, 3.0), m);
    SAME_AS(ct_index_reduce(ctx, m, 0, idx, src, "amax", true, &r),
            ct_index_reduce_(ctx, m, 0, idx, src, "amax", true), m);
    const ct_tensor *ix[1] = {idx};
    SAME_AS(ct_index_put(ctx, m, 1, ix, v, true, &r), ct_index_put_(ctx, m, 1, ix, v, true), m);
    ct_tensor *w2 = NULL;
    CHECK(ct_tensor_narrow(ctx, w, 0, 0, 2, &w2));
    SAME_AS(ct_put(ctx, m, idx, w2, true, &r), ct_put_(ctx, m, idx, w2, true), m);
    ct_tensor_release(w2);
    SAME_AS(ct_scatter(ctx, m, 1, gi, src, &r), ct_scatter_(ctx, m, 1, gi, src), m);
    SAME_AS(ct_scatter_add(ctx, m, 1, gi, src, &r), ct_scatter_add_(ctx, m, 1, gi, src), m);
    SAME_AS(ct_scatter_reduce(ctx, m, 1, gi, src, "prod", false, &r),
            ct_scatter_reduce_(ctx, m, 1, gi, src, "prod", false), m);
    ct_tensor *all[] = {m, sq, b1, b2, acc, v, w, mask, idx, src, gi};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    if (!ok) return fprintf(stderr, "a product / index op differs\n"), 1;
    printf("products and indexed writes: 16 in-place functions equal their out-of-place ops\n");
    return 0;
}

/* the rules: views write through, dtypes, aliasing, autograd */
static int rules(void) {
    ct_tensor *base = make(CT_FLOAT32, 0), *row = NULL, *iv = make(CT_INT64, 0), *bt = NULL;
    ct_tensor *x = NULL, *y = NULL, *l = NULL;
    float b[12];
    CHECK(ct_tensor_narrow(ctx, base, 0, 1, 1, &row)); /* row 1 of base, a view */
    CHECK(ct_relu_(ctx, row));
    CHECK(ct_tensor_to_host(base, b, sizeof b));
    printf("relu_ of a view: base row 1 = [%g %g %g %g] (row 0 untouched: %g)\n", b[4], b[5], b[6],
           b[7], b[0]);
    if (b[4] != 0 || b[0] >= 0) return fprintf(stderr, "view write-through failed\n"), 1;
    ct_status st = ct_sqrt_(ctx, iv); /* float result into an int64 tensor */
    printf("sqrt_ of int64: %s: %s\n", ct_status_str(st), ct_ctx_last_error(ctx));
    if (st != CT_ERR_DTYPE) return 1;
    CHECK(ct_pow_(ctx, iv, 2)); /* stays int64 */
    CHECK(ct_tensor_transpose(ctx, base, 0, 1, &bt));
    ct_tensor *sq = NULL;
    CHECK(ct_tensor_narrow(ctx, bt, 0, 0, 3, &sq)); /* (3, 3) transposed corner of base */
    ct_tensor *corner = NULL;
    CHECK(ct_tensor_narrow(ctx, base, 1, 0, 3, &corner));
    CHECK(ct_atan2_(ctx, corner, sq)); /* reads its own transpose: computed before written */
    /* autograd: y = 2x; y.exp_(); sum(y) -> d/dx = 2 exp(2x) */
    CHECK(ct_tensor_from_host(ctx, (const double[]){0.5, -1.0}, CT_FLOAT64, 1, (int64_t[]){2}, &x));
    CHECK(ct_tensor_set_requires_grad(x, true));
    st = ct_exp_(ctx, x);
    printf("exp_ of a leaf that requires grad: %s\n", ct_status_str(st));
    if (st != CT_ERR_STATE) return 1;
    CHECK(ct_mul_scalar(ctx, x, 2.0, &y));
    CHECK(ct_exp_(ctx, y));
    char *s = NULL;
    CHECK(ct_tensor_to_string(y, &s));
    printf("y = 2x; y.exp_(): %s\n", s);
    free(s);
    CHECK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK(ct_backward(ctx, l, NULL, false));
    double g[2];
    CHECK(ct_tensor_to_host(ct_tensor_grad(x), g, sizeof g));
    printf("x.grad = [%.6f %.6f] (2 exp(2x) = [%.6f %.6f])\n", g[0], g[1], 2 * exp(1.0),
           2 * exp(-2.0));
    if (fabs(g[0] - 2 * exp(1.0)) > 1e-12 || fabs(g[1] - 2 * exp(-2.0)) > 1e-12) return 1;
    ct_tensor *all[] = {base, row, iv, bt, sq, corner, x, y, l};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    return 0;
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    int bad = unary_group() || number_group() || tensor_group() || product_index_group() || rules();
    ct_ctx_free(ctx);
    if (!bad) printf("api_inplace: all checks passed\n");
    return bad;
}

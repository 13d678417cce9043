/* Ops against independent references (double-precision math written here) on random shapes:
 * broadcasting, non-contiguous views, 0-d, zero-size, odd sizes (1, 7, 33, 1023), large sizes that
 * take the threaded path, every dtype each op accepts; run once per ISA by ctest. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 0x1234567ULL;

static const ct_dtype ALL_DT[] = {CT_BOOL,  CT_UINT8,   CT_INT8,     CT_INT16,   CT_INT32,
                                  CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
#define N_ALL_DT 10

typedef struct {
    int nda, ndb;
    int64_t a[4], b[4];
} shape_pair;
static const shape_pair SHAPES[] = {
    {0, 0, {0}, {0}},
    {1, 1, {7}, {7}},
    {1, 1, {33}, {1}},
    {3, 2, {2, 3, 4}, {3, 1}},
    {1, 1, {1023}, {1023}},
    {2, 1, {0, 3}, {3}},
    {3, 3, {5, 1, 7}, {1, 6, 1}},
    {2, 2, {3, 33}, {3, 33}},
    {1, 0, {40000}, {0}},
    {2, 2, {300, 130}, {1, 130}},
};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])

static double ulp_tol(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT16: return 1.0 / 1024;
    case CT_BFLOAT16: return 1.0 / 128;
    case CT_FLOAT32: return 0;
    default: return 0;
    }
}

/* Round a double result to dtype the way a correctly rounded op would. */
static double round_to(ct_dtype dt, double v) {
    char buf[8];
    tu_set(buf, dt, 0, v);
    return tu_get(buf, dt, 0);
}

static int64_t wrap_to(ct_dtype dt, int64_t v) {
    switch (dt) {
    case CT_UINT8: return (uint8_t)v;
    case CT_INT8: return (int8_t)v;
    case CT_INT16: return (int16_t)v;
    case CT_INT32: return (int32_t)v;
    default: return v;
    }
}

typedef enum { B_ADD, B_SUB, B_MUL, B_DIV, B_EQ, B_NE, B_LT, B_LE, B_GT, B_GE } bop;
static const char *bop_name[] = {"add", "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge"};

static ct_status run_bop(bop o, const ct_tensor *a, const ct_tensor *b, ct_tensor **r) {
    switch (o) {
    case B_ADD: return ct_add(ctx, a, b, r);
    case B_SUB: return ct_sub(ctx, a, b, r);
    case B_MUL: return ct_mul(ctx, a, b, r);
    case B_DIV: return ct_div(ctx, a, b, r);
    case B_EQ: return ct_eq(ctx, a, b, r);
    case B_NE: return ct_ne(ctx, a, b, r);
    case B_LT: return ct_lt(ctx, a, b, r);
    case B_LE: return ct_le(ctx, a, b, r);
    case B_GT: return ct_gt(ctx, a, b, r);
    default: return ct_ge(ctx, a, b, r);
    }
}

TEST(binary_ops_all_dtypes_shapes_layouts) {
    for (int di = 0; di < N_ALL_DT; di++) {
        ct_dtype dt = ALL_DT[di];
        bool isf = ct_dtype_is_floating(dt);
        for (size_t si = 0; si < N_SHAPES; si++) {
            const shape_pair *sp = &SHAPES[si];
            for (int mode = 0; mode < 3; mode++) {
                double *va, *vb;
                double lo = dt == CT_UINT8 ? 0 : -50, hi = 50;
                ct_tensor *a = tu_make(ctx, &rng, dt, sp->nda, sp->a, mode, lo, hi, &va);
                ct_tensor *b = tu_make(ctx, &rng, dt, sp->ndb, sp->b, (mode + 1) % 3, lo, hi, &vb);
                CHECK(a && b);
                if (!a || !b) return;
                for (int o = 0; o < 10; o++) {
                    ct_tensor *r = NULL;
                    ct_status st = run_bop((bop)o, a, b, &r);
                    if (o == B_SUB && dt == CT_BOOL) {
                        CHECK_ST(st, CT_ERR_DTYPE);
                        continue;
                    }
                    CHECK_MSG(st == CT_OK, "%s %s: %s", bop_name[o], ct_dtype_name(dt),
                              ct_ctx_last_error(ctx));
                    if (st != CT_OK) continue;
                    ct_dtype odt = o >= B_EQ ? CT_BOOL : (o == B_DIV && !isf) ? CT_FLOAT32 : dt;
                    CHECK(ct_tensor_dtype(r) == odt);
                    double *vr = tu_read(r);
                    int nd = ct_tensor_ndim(r);
                    const int64_t *os = ct_tensor_shape(r);
                    int64_t n = ct_tensor_numel(r), bad = 0;
                    for (int64_t i = 0; i < n; i++) {
                        double x = va[tu_bcast_index(nd, os, i, sp->nda, sp->a)];
                        double y = vb[tu_bcast_index(nd, os, i, sp->ndb, sp->b)];
                        double want;
                        switch (o) {
                        case B_ADD:
                            want = isf ? x + y : (double)wrap_to(dt, (int64_t)x + (int64_t)y);
                            break;
                        case B_SUB:
                            want = isf ? x - y : (double)wrap_to(dt, (int64_t)x - (int64_t)y);
                            break;
                        case B_MUL:
                            want = isf ? x * y : (double)wrap_to(dt, (int64_t)x * (int64_t)y);
                            break;
                        case B_DIV: want = x / y; break;
                        case B_EQ: want = x == y; break;
                        case B_NE: want = x != y; break;
                        case B_LT: want = x < y; break;
                        case B_LE: want = x <= y; break;
                        case B_GT: want = x > y; break;
                        default: want = x >= y; break;
                        }
                        if (dt == CT_BOOL && o <= B_MUL) want = want != 0;
                        if (o <= B_DIV) want = round_to(odt, want);
                        if (!ct_t_close(vr[i], want, ulp_tol(odt), 0)) bad++;
                    }
                    CHECK_MSG(bad == 0, "%s %s shape#%zu mode %d: %lld mismatches", bop_name[o],
                              ct_dtype_name(dt), si, mode, (long long)bad);
                    free(vr);
                    ct_tensor_release(r);
                }
                free(va);
                free(vb);
                ct_tensor_release(a);
                ct_tensor_release(b);
            }
        }
    }
}

TEST(add_alpha_and_promotion) {
    int64_t s3[1] = {3};
    int32_t ia[3] = {1, 2, 3};
    double fb[3] = {0.5, 1.5, 2.5};
    float f0 = 2.0f;
    ct_tensor *a, *b, *z, *r;
    CHECK_OK(ct_tensor_from_host(ctx, ia, CT_INT32, 1, s3, &a));
    CHECK_OK(ct_tensor_from_host(ctx, fb, CT_FLOAT64, 1, s3, &b));
    CHECK_OK(ct_tensor_from_host(ctx, &f0, CT_FLOAT32, 0, NULL, &z));
    /* int32 + float64 -> float64 */
    CHECK_OK(ct_add_scaled(ctx, a, b, -2.0, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT64);
    double *v = tu_read(r);
    CHECK(v[0] == 0 && v[1] == -1 && v[2] == -2);
    free(v);
    ct_tensor_release(r);
    /* int32 tensor + 0-d float32 -> float32 (0-d of a higher category decides) */
    CHECK_OK(ct_mul(ctx, a, z, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    v = tu_read(r);
    CHECK(v[0] == 2 && v[2] == 6);
    free(v);
    ct_tensor_release(r);
    /* float64 tensor + 0-d float32 -> float64 (same category: dimensioned wins) */
    CHECK_OK(ct_add(ctx, b, z, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT64);
    ct_tensor_release(r);
    /* int alpha must be integral for integer inputs */
    CHECK_ST(ct_add_scaled(ctx, a, a, 0.5, &r), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "alpha") != NULL);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(z);
}

typedef enum {
    U_NEG,
    U_ABS,
    U_EXP,
    U_LOG,
    U_SQRT,
    U_RSQRT,
    U_TANH,
    U_SIGMOID,
    U_RELU,
    U_GELU_ERF,
    U_GELU_TANH,
    U_POW,
    U_CLAMP,
    U_COUNT
} uop;
static const char *uop_name[] = {"neg",       "abs",  "exp",     "log",  "sqrt",
                                 "rsqrt",     "tanh", "sigmoid", "relu", "gelu_erf",
                                 "gelu_tanh", "pow",  "clamp"};

static double uref(uop o, double x) {
    switch (o) {
    case U_NEG: return -x;
    case U_ABS: return fabs(x);
    case U_EXP: return exp(x);
    case U_LOG: return log(x);
    case U_SQRT: return sqrt(x);
    case U_RSQRT: return 1 / sqrt(x);
    case U_TANH: return tanh(x);
    case U_SIGMOID: return 1 / (1 + exp(-x));
    case U_RELU: return x > 0 ? x : 0;
    case U_GELU_ERF: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case U_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case U_POW: return pow(x, 2.5);
    default: return x < -1.5 ? -1.5 : x > 2.25 ? 2.25 : x;
    }
}

static ct_status run_uop(uop o, const ct_tensor *a, ct_tensor **r) {
    double lo = -1.5, hi = 2.25;
    switch (o) {
    case U_NEG: return ct_neg(ctx, a, r);
    case U_ABS: return ct_abs(ctx, a, r);
    case U_EXP: return ct_exp(ctx, a, r);
    case U_LOG: return ct_log(ctx, a, r);
    case U_SQRT: return ct_sqrt(ctx, a, r);
    case U_RSQRT: return ct_rsqrt(ctx, a, r);
    case U_TANH: return ct_tanh(ctx, a, r);
    case U_SIGMOID: return ct_sigmoid(ctx, a, r);
    case U_RELU: return ct_relu(ctx, a, r);
    case U_GELU_ERF: return ct_gelu(ctx, a, CT_GELU_ERF, r);
    case U_GELU_TANH: return ct_gelu(ctx, a, CT_GELU_TANH, r);
    case U_POW: return ct_pow(ctx, a, 2.5, r);
    default: return ct_clamp(ctx, a, &lo, &hi, r);
    }
}

TEST(unary_float_ops) {
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT32};
    const int64_t shapes[][2] = {{1, 1}, {7, 1}, {33, 5}, {1023, 1}, {0, 4}, {300, 150}};
    for (int di = 0; di < 5; di++) {
        ct_dtype dt = dts[di];
        for (int si = 0; si < 6; si++) {
            for (int mode = 0; mode < 3; mode++) {
                double *va;
                ct_tensor *a = tu_make(ctx, &rng, dt, 2, shapes[si], mode, -12, 12, &va);
                for (int o = 0; o < U_COUNT; o++) {
                    ct_tensor *r = NULL;
                    ct_status st = run_uop((uop)o, a, &r);
                    if (dt == CT_INT32 && (o == U_GELU_ERF || o == U_GELU_TANH)) {
                        CHECK(st == CT_ERR_DTYPE); /* torch: gelu needs a floating input */
                        continue;
                    }
                    CHECK_MSG(st == CT_OK, "%s %s: %s", uop_name[o], ct_dtype_name(dt),
                              ct_ctx_last_error(ctx));
                    if (st != CT_OK) continue;
                    ct_dtype odt = ct_tensor_dtype(r);
                    bool keep = o == U_NEG || o == U_ABS ||
                                o == U_RELU; /* clamp's bounds here are fractional */
                    CHECK(odt == (dt == CT_INT32 && !keep ? CT_FLOAT32 : dt));
                    double *vr = tu_read(r);
                    int64_t n = ct_tensor_numel(r), bad = 0;
                    /* exact ops: correctly rounded; transcendental: a few ulps */
                    bool exact = keep || o == U_SQRT || o == U_CLAMP;
                    double rtol = odt == CT_FLOAT64   ? 1e-14
                                  : odt == CT_FLOAT32 ? 2e-6
                                  : odt == CT_FLOAT16 ? 2e-3
                                                      : 1.6e-2;
                    if (exact && (odt == CT_FLOAT32 || odt == CT_FLOAT64)) rtol = 0;
                    double atol = odt == CT_FLOAT64 ? 1e-300 : odt == CT_FLOAT32 ? 1e-37 : 1e-4;
                    if (o == U_GELU_ERF || o == U_GELU_TANH)
                        atol = odt == CT_FLOAT64 ? 1e-15 : 1e-6;
                    if (o == U_GELU_ERF || o == U_GELU_TANH)
                        atol = odt == CT_FLOAT16 || odt == CT_BFLOAT16 ? 1e-2 : atol;
                    for (int64_t i = 0; i < n; i++) {
                        double want = uref((uop)o, va[i]);
                        want = round_to(odt, want); /* overflow to inf included */
                        if (!ct_t_close(vr[i], want, rtol, atol)) {
                            if (bad < 3)
                                printf("  %s %s x=%.9g got %.9g want %.9g\n", uop_name[o],
                                       ct_dtype_name(dt), va[i], vr[i], want);
                            bad++;
                        }
                    }
                    CHECK_MSG(bad == 0, "%s %s: %lld mismatches", uop_name[o], ct_dtype_name(dt),
                              (long long)bad);
                    free(vr);
                    ct_tensor_release(r);
                }
                free(va);
                ct_tensor_release(a);
            }
        }
    }
}

TEST(exp_special_values) {
    float xs[] = {0.0f,    -0.0f,   1.0f,     -1.0f,     88.7f, 88.73f, 100.0f, -87.0f, -100.0f,
                  -104.0f, -150.0f, INFINITY, -INFINITY, NAN,   1e-8f,  -1e-8f, 0.5f,   20.0f};
    int n = sizeof xs / sizeof xs[0];
    int64_t s[1] = {n};
    ct_tensor *a, *r;
    CHECK_OK(ct_tensor_from_host(ctx, xs, CT_FLOAT32, 1, s, &a));
    CHECK_OK(ct_exp(ctx, a, &r));
    float out[32];
    CHECK_OK(ct_tensor_to_host(r, out, sizeof(float) * (size_t)n));
    for (int i = 0; i < n; i++) {
        double want = (float)exp((double)xs[i]);
        /* results down in the subnormal range carry an absolute, not relative, error */
        CHECK_MSG(ct_t_close(out[i], want, 3e-7, 1e-44), "exp(%g) = %g, want %g", xs[i], out[i],
                  want);
    }
    ct_tensor_release(a);
    ct_tensor_release(r);
}

TEST(log_tanh_special_values) {
    float xs[] = {0.0f,      -0.0f, 1.0f, -1.0f, 1e-40f, 1.17549435e-38f, 3e38f,    INFINITY,
                  -INFINITY, NAN,   0.5f, 2.0f,  1e-8f,  -1e-8f,          0.624f,   0.626f,
                  -0.7f,     8.9f,  9.5f, 20.0f, -20.0f, 1.41421f,        1.41422f, 0.70710f};
    int n = sizeof xs / sizeof xs[0];
    int64_t s[1] = {n};
    ct_tensor *a, *rl, *rt;
    CHECK_OK(ct_tensor_from_host(ctx, xs, CT_FLOAT32, 1, s, &a));
    CHECK_OK(ct_log(ctx, a, &rl));
    CHECK_OK(ct_tanh(ctx, a, &rt));
    float ol[32], ot[32];
    CHECK_OK(ct_tensor_to_host(rl, ol, sizeof(float) * (size_t)n));
    CHECK_OK(ct_tensor_to_host(rt, ot, sizeof(float) * (size_t)n));
    for (int i = 0; i < n; i++) {
        double wl = (float)log((double)xs[i]), wt = (float)tanh((double)xs[i]);
        CHECK_MSG(ct_t_close(ol[i], wl, 4e-7, 1e-45), "log(%g) = %.9g, want %.9g", xs[i], ol[i],
                  wl);
        CHECK_MSG(ct_t_close(ot[i], wt, 4e-7, 1e-45), "tanh(%g) = %.9g, want %.9g", xs[i], ot[i],
                  wt);
        if (xs[i] == 0) CHECK(signbit(ot[i]) == signbit(xs[i])); /* tanh(-0) = -0 */
    }
    ct_tensor_release(a), ct_tensor_release(rl), ct_tensor_release(rt);
}

TEST(integer_pow_clamp_where_addc) {
    int64_t s[1] = {6};
    int32_t iv[6] = {-3, -1, 0, 2, 5, 100};
    ct_tensor *a, *r;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 1, s, &a));
    CHECK_OK(ct_pow(ctx, a, 3, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT32);
    double *v = tu_read(r);
    CHECK(v[0] == -27 && v[1] == -1 && v[2] == 0 && v[3] == 8 && v[4] == 125 && v[5] == 1000000);
    free(v);
    ct_tensor_release(r);
    CHECK_ST(ct_pow(ctx, a, -1, &r), CT_ERR_INVALID_ARG);
    double lo = 0;
    CHECK_OK(ct_clamp(ctx, a, &lo, NULL, &r));
    v = tu_read(r);
    CHECK(v[0] == 0 && v[1] == 0 && v[4] == 5 && v[5] == 100);
    CHECK(ct_tensor_dtype(r) == CT_INT32);
    free(v);
    ct_tensor_release(r);
    CHECK_ST(ct_clamp(ctx, a, NULL, NULL, &r), CT_ERR_INVALID_ARG);
    /* min > max gives max everywhere (torch: min(max(x, lo), hi)) */
    double l5 = 5, h3 = 3;
    CHECK_OK(ct_clamp(ctx, a, &l5, &h3, &r));
    v = tu_read(r);
    for (int i = 0; i < 6; i++)
        CHECK(v[i] == 3);
    free(v);
    ct_tensor_release(r);
    /* a bound outside int8's range is an error (torch: cannot be converted without overflow) */
    ct_tensor *i8;
    int8_t i8v[3] = {1, 4, 9};
    int64_t s3[1] = {3};
    CHECK_OK(ct_tensor_from_host(ctx, i8v, CT_INT8, 1, s3, &i8));
    double big = 1000, small = -1000, top = 127;
    CHECK_ST(ct_clamp(ctx, i8, &big, NULL, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_clamp(ctx, i8, &small, &big, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_clamp(ctx, i8, NULL, &top, &r));
    v = tu_read(r);
    CHECK(v[0] == 1 && v[1] == 4 && v[2] == 9);
    free(v);
    ct_tensor_release(r);
    ct_tensor_release(i8);
    ct_tensor_release(a);

    /* where with broadcasting and every element size */
    for (int di = 0; di < N_ALL_DT; di++) {
        ct_dtype dt = ALL_DT[di];
        int64_t sc[2] = {4, 1}, sx[1] = {5}, sy[2] = {4, 5};
        double *vc, *vx, *vy;
        ct_tensor *c = tu_make(ctx, &rng, CT_BOOL, 2, sc, 0, 0, 1, &vc);
        ct_tensor *x = tu_make(ctx, &rng, dt, 1, sx, 0, 0, 100, &vx);
        ct_tensor *y = tu_make(ctx, &rng, dt, 2, sy, 1, 0, 100, &vy);
        CHECK_OK(ct_where(ctx, c, x, y, &r));
        double *vr = tu_read(r);
        for (int i = 0; i < 20; i++)
            CHECK(vr[i] == (vc[i / 5] ? vx[i % 5] : vy[i]));
        free(vr), free(vc), free(vx), free(vy);
        ct_tensor_release(r);
        /* a non-bool condition is refused; uint8 counts as bool (torch's ByteTensor masks) */
        const bool ok_cond = dt == CT_BOOL || dt == CT_UINT8;
        CHECK_ST(ct_where(ctx, x, x, y, &r), ok_cond ? CT_OK : CT_ERR_DTYPE);
        if (ok_cond) ct_tensor_release(r);
        ct_tensor_release(c), ct_tensor_release(x), ct_tensor_release(y);
    }

    /* addcdiv is one FMA on the rounded quotient; addcmul = fma(v*t1, t2, self) */
    const int64_t sh[2] = {33, 31};
    double *vs, *v1, *v2;
    ct_tensor *s0 = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 1, -3, 3, &vs);
    ct_tensor *t1 = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 0, -3, 3, &v1);
    ct_tensor *t2 = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 2, 0.5, 3, &v2);
    ct_tensor *rd, *rm, *r1;
    CHECK_OK(ct_addcdiv(ctx, s0, t1, t2, -0.3, &rd));
    CHECK_OK(ct_addcmul(ctx, s0, t1, t2, 0.7, &rm));
    CHECK_OK(ct_addcdiv(ctx, s0, t1, t2, 1.0, &r1));
    double *vd = tu_read(rd), *vm = tu_read(rm), *v1r = tu_read(r1);
    int bad = 0;
    for (int i = 0; i < 33 * 31; i++) {
        float q = (float)v1[i] / (float)v2[i];
        if ((float)vd[i] != fmaf(-0.3f, q, (float)vs[i])) bad++;
        if ((float)v1r[i] != (float)vs[i] + q) bad++;
        volatile float vt = 0.7f * (float)v1[i];
        float m = fmaf(vt, (float)v2[i], (float)vs[i]);
        if ((float)vm[i] != m) bad++;
    }
    CHECK_MSG(bad == 0, "%d addc mismatches", bad);
    int64_t si[1] = {2};
    int32_t two[2] = {1, 2};
    ct_tensor *it;
    CHECK_OK(ct_tensor_from_host(ctx, two, CT_INT32, 1, si, &it));
    CHECK_ST(ct_addcdiv(ctx, it, it, it, 1, &r), CT_ERR_DTYPE);
    ct_tensor_release(it);
    free(vs), free(v1), free(v2), free(vd), free(vm), free(v1r);
    ct_tensor *all[] = {s0, t1, t2, rd, rm, r1};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(all[i]);
}

/* Naive reduction reference over a mask; out in keepdim C order. */
static void ref_reduce(int op, int nd, const int64_t *shape, const double *x, uint32_t mask,
                       double *out, int64_t *nout) {
    int64_t oshape[CT_MAX_DIMS], n = 1, no = 1;
    for (int d = 0; d < nd; d++) {
        oshape[d] = (mask >> d & 1) ? 1 : shape[d];
        n *= shape[d];
        no *= oshape[d];
    }
    int64_t *cnt = calloc((size_t)(no ? no : 1), sizeof(int64_t));
    for (int64_t o = 0; o < no; o++)
        out[o] = op == 0 ? 0 : NAN;
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, oi = 0, mul = 1;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t idx = rem % shape[d];
            rem /= shape[d];
            if (!(mask >> d & 1)) oi += idx * mul;
            mul *= oshape[d];
        }
        double v = x[i];
        int64_t c = cnt[oi]++;
        if (op == 0)
            out[oi] += v;
        else if (op == 1)
            out[oi] = (c == 0 || v > out[oi] || v != v || out[oi] != out[oi])
                          ? (out[oi] != out[oi] && c ? out[oi] : v)
                          : out[oi];
        else
            out[oi] = (c == 0 || v < out[oi] || v != v || out[oi] != out[oi])
                          ? (out[oi] != out[oi] && c ? out[oi] : v)
                          : out[oi];
    }
    *nout = no;
    free(cnt);
}

TEST(reductions_sum_mean_amax_amin) {
    const int64_t shapes[][3] = {{7, 1, 1}, {4, 33, 5},   {1, 1023, 1},
                                 {3, 0, 2}, {40, 30, 40}, {2, 3, 4}};
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_INT32,
                            CT_INT64,   CT_BOOL,    CT_UINT8};
    for (int di = 0; di < 7; di++) {
        ct_dtype dt = dts[di];
        for (int si = 0; si < 6; si++) {
            for (uint32_t mask = 1; mask < 8; mask++) {
                int mode = (int)(mask % 3);
                double *vx;
                ct_tensor *x = tu_make(ctx, &rng, dt, 3, shapes[si], mode, -10, 10, &vx);
                int dims[3], nd = 0;
                for (int d = 0; d < 3; d++)
                    if (mask >> d & 1) dims[nd++] = d - (d == 2 ? 3 : 0); /* -1 for dim 2 */
                bool keep = mask & 1;
                for (int op = 0; op < 4; op++) {
                    ct_tensor *r = NULL;
                    ct_status st;
                    bool zero_red = false;
                    for (int d = 0; d < 3; d++)
                        if ((mask >> d & 1) && shapes[si][d] == 0) zero_red = true;
                    if (op == 0)
                        st = ct_sum(ctx, x, nd, dims, keep, &r);
                    else if (op == 1)
                        st = ct_amax(ctx, x, nd, dims, keep, &r);
                    else if (op == 2)
                        st = ct_amin(ctx, x, nd, dims, keep, &r);
                    else
                        st = ct_mean(ctx, x, nd, dims, keep, &r);
                    if (op == 3 && !ct_dtype_is_floating(dt)) {
                        CHECK_ST(st, CT_ERR_DTYPE);
                        continue;
                    }
                    if ((op == 1 || op == 2) && zero_red) {
                        CHECK_ST(st, CT_ERR_SHAPE);
                        continue;
                    }
                    CHECK_MSG(st == CT_OK, "%s", ct_ctx_last_error(ctx));
                    if (st != CT_OK) continue;
                    double ref[4096];
                    int64_t no;
                    ref_reduce(op == 3 ? 0 : op, 3, shapes[si], vx, mask, ref, &no);
                    CHECK(ct_tensor_numel(r) == no);
                    CHECK(ct_tensor_ndim(r) == (keep ? 3 : 3 - nd));
                    if (op == 0)
                        CHECK(ct_tensor_dtype(r) == (ct_dtype_is_floating(dt) ? dt : CT_INT64));
                    double *vr = tu_read(r);
                    int64_t cnt = 1;
                    for (int d = 0; d < 3; d++)
                        if (mask >> d & 1) cnt *= shapes[si][d];
                    int bad = 0;
                    for (int64_t i = 0; i < no; i++) {
                        double want = op == 3 ? ref[i] / (double)cnt : ref[i];
                        if (op == 0 && dt == CT_BOOL) want = ref[i];
                        double tol = dt == CT_FLOAT16 ? 4e-3 : dt == CT_FLOAT32 ? 1e-5 : 1e-12;
                        double atol = (op == 0 || op == 3) ? tol * 10 * (double)cnt : 0;
                        if (op == 3 && cnt == 0) continue; /* NaN either way; checked below */
                        if (!ct_t_close(vr[i], want, tol, atol)) bad++;
                    }
                    CHECK_MSG(bad == 0, "op %d %s shape#%d mask %u: %d bad", op, ct_dtype_name(dt),
                              si, mask, bad);
                    free(vr);
                    ct_tensor_release(r);
                }
                free(vx);
                ct_tensor_release(x);
            }
        }
    }
}

TEST(reductions_nan_and_argmax) {
    float v[8] = {1, 5, NAN, 7, 7, -2, 3, 0};
    int64_t s[2] = {2, 4};
    ct_tensor *x, *r;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 2, s, &x));
    int d1 = 1;
    CHECK_OK(ct_amax(ctx, x, 1, &d1, false, &r));
    float o[2];
    CHECK_OK(ct_tensor_to_host(r, o, sizeof o));
    CHECK(isnan(o[0]) && o[1] == 7);
    ct_tensor_release(r);
    CHECK_OK(ct_argmax(ctx, x, 1, false, &r));
    int64_t ai[2];
    CHECK_OK(ct_tensor_to_host(r, ai, sizeof ai));
    CHECK(ai[0] == 2 && ai[1] == 0); /* NaN counts as maximum; first of equal maxima */
    ct_tensor_release(r);
    CHECK_OK(ct_argmax(ctx, x, CT_ALL_DIMS, true, &r));
    CHECK(ct_tensor_ndim(r) == 2 && ct_tensor_numel(r) == 1);
    CHECK_OK(ct_tensor_to_host(r, ai, sizeof(int64_t)));
    CHECK(ai[0] == 2);
    ct_tensor_release(r);
    /* argmax over dim 0 of a transposed int tensor */
    int32_t iv[6] = {3, 9, 1, 8, 2, 9};
    int64_t s23[2] = {2, 3};
    ct_tensor *it, *tt;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 2, s23, &it));
    CHECK_OK(ct_tensor_transpose(ctx, it, 0, 1, &tt)); /* [[3,8],[9,2],[1,9]] */
    CHECK_OK(ct_argmax(ctx, tt, 0, false, &r));
    CHECK_OK(ct_tensor_to_host(r, ai, sizeof ai));
    CHECK(ai[0] == 1 && ai[1] == 2);
    ct_tensor_release(r);
    CHECK_ST(ct_argmax(ctx, tt, 2, false, &r), CT_ERR_INDEX);
    int dd[2] = {0, 0};
    CHECK_ST(ct_sum(ctx, tt, 2, dd, false, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(tt), ct_tensor_release(it), ct_tensor_release(x);
    /* column path (reducing an outer dim of a row-major tensor): NaN propagates per column */
    float cv[3 * 16];
    for (int i = 0; i < 48; i++)
        cv[i] = (float)((i * 7) % 11) - 5;
    cv[16 + 5] = NAN;
    int64_t cs[2] = {3, 16};
    int d0 = 0;
    CHECK_OK(ct_tensor_from_host(ctx, cv, CT_FLOAT32, 2, cs, &x));
    float cmax[16], cmean[16];
    CHECK_OK(ct_amax(ctx, x, 1, &d0, false, &r));
    CHECK_OK(ct_tensor_to_host(r, cmax, sizeof cmax));
    ct_tensor_release(r);
    CHECK_OK(ct_mean(ctx, x, 1, &d0, false, &r));
    CHECK_OK(ct_tensor_to_host(r, cmean, sizeof cmean));
    ct_tensor_release(r);
    for (int j = 0; j < 16; j++) {
        float m = fmaxf(fmaxf(cv[j], cv[16 + j]), cv[32 + j]);
        float mean = (float)(((double)cv[j] + cv[16 + j] + cv[32 + j]) / 3);
        if (j == 5)
            CHECK(isnan(cmax[j]) && isnan(cmean[j]));
        else
            CHECK(cmax[j] == m && cmean[j] == mean);
    }
    ct_tensor_release(x);
    /* sum of a 0-d tensor and full reduction to 0-d */
    float one = 4.5f;
    CHECK_OK(ct_tensor_from_host(ctx, &one, CT_FLOAT32, 0, NULL, &x));
    CHECK_OK(ct_sum(ctx, x, 0, NULL, false, &r));
    CHECK(ct_tensor_ndim(r) == 0);
    CHECK_OK(ct_tensor_to_host(r, o, sizeof(float)));
    CHECK(o[0] == 4.5f);
    ct_tensor_release(r), ct_tensor_release(x);
}

TEST(softmax_and_log_softmax) {
    const int64_t shapes[][3] = {{2, 3, 4}, {1, 1, 1023}, {5, 33, 7}, {3, 0, 2}, {64, 2, 600}};
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_BFLOAT16};
    for (int di = 0; di < 3; di++)
        for (int si = 0; si < 5; si++)
            for (int dim = -1; dim < 3; dim++)
                for (int lg = 0; lg < 2; lg++) {
                    double *vx;
                    ct_tensor *x = tu_make(ctx, &rng, dts[di], 3, shapes[si], (dim + 1) % 3, -20,
                                           20, &vx),
                              *r;
                    ct_status st =
                        lg ? ct_log_softmax(ctx, x, dim, &r) : ct_softmax(ctx, x, dim, &r);
                    CHECK_OK(st);
                    if (st != CT_OK) continue;
                    double *vr = tu_read(r);
                    int d = dim < 0 ? dim + 3 : dim;
                    int64_t n = ct_tensor_numel(r), len = shapes[si][d];
                    int64_t inner = 1;
                    for (int k = d + 1; k < 3; k++)
                        inner *= shapes[si][k];
                    int bad = 0;
                    for (int64_t i = 0; i < n; i++) {
                        int64_t base = (i / (inner * len)) * inner * len + i % inner;
                        double m = -INFINITY, s = 0;
                        for (int64_t j = 0; j < len; j++)
                            m = fmax(m, vx[base + j * inner]);
                        for (int64_t j = 0; j < len; j++)
                            s += exp(vx[base + j * inner] - m);
                        double want = lg ? vx[i] - m - log(s) : exp(vx[i] - m) / s;
                        double tol = dts[di] == CT_FLOAT64   ? 1e-13
                                     : dts[di] == CT_FLOAT32 ? 5e-6
                                                             : 2e-2;
                        if (!ct_t_close(vr[i], want, tol, lg ? tol * 40 : 1e-30)) bad++;
                    }
                    CHECK_MSG(bad == 0, "%s dim %d shape#%d log %d: %d bad", ct_dtype_name(dts[di]),
                              dim, si, lg, bad);
                    free(vr), free(vx);
                    ct_tensor_release(r), ct_tensor_release(x);
                }
}

static void ref_matmul(const double *a, const double *b, double *c, int64_t M, int64_t K,
                       int64_t N) {
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++)
                s += a[i * K + k] * b[k * N + j];
            c[i * N + j] = s;
        }
}

TEST(matmul_shapes_layouts_dtypes) {
    typedef struct {
        int nda, ndb;
        int64_t a[4], b[4];
    } mm;
    const mm cases[] = {
        {2, 2, {3, 4}, {4, 5}},
        {1, 1, {7}, {7}},
        {2, 1, {5, 33}, {33}},
        {1, 2, {33}, {33, 2}},
        {3, 3, {2, 3, 4}, {2, 4, 6}},
        {4, 3, {2, 1, 3, 4}, {5, 4, 2}},
        {3, 2, {3, 17, 9}, {9, 1}},
        {2, 2, {0, 4}, {4, 3}},
        {2, 2, {64, 65}, {65, 63}},
        {2, 2, {1, 1}, {1, 1}},
        /* large enough that the CPU backend splits one product over its threads by strips of
         * rows (M > N), of columns (N > M), and a batch of products */
        {2, 2, {100, 300}, {300, 37}},
        {2, 2, {20, 200}, {200, 300}},
        {3, 3, {3, 40, 50}, {3, 50, 60}},
    };
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};
    for (int di = 0; di < 4; di++)
        for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
            for (int mode = 0; mode < 3; mode++) {
                const mm *c = &cases[ci];
                double *va, *vb;
                ct_tensor *a = tu_make(ctx, &rng, dts[di], c->nda, c->a, mode, -1, 1, &va);
                ct_tensor *b =
                              tu_make(ctx, &rng, dts[di], c->ndb, c->b, (mode + 2) % 3, -1, 1, &vb),
                          *r;
                ct_status st = ct_matmul(ctx, a, b, &r);
                CHECK_MSG(st == CT_OK, "%s", ct_ctx_last_error(ctx));
                if (st != CT_OK) continue;
                int64_t M = c->nda == 1 ? 1 : c->a[c->nda - 2], K = c->a[c->nda - 1];
                int64_t N = c->ndb == 1 ? 1 : c->b[c->ndb - 1];
                /* batch broadcast: output batch shape from the torch rules */
                int nba = c->nda > 2 ? c->nda - 2 : 0, nbb = c->ndb > 2 ? c->ndb - 2 : 0;
                int nb = nba > nbb ? nba : nbb;
                int64_t bs[4], B = 1;
                for (int i = 0; i < nb; i++) {
                    int ia = i - (nb - nba), ib = i - (nb - nbb);
                    int64_t sa = ia >= 0 ? c->a[ia] : 1, sb = ib >= 0 ? c->b[ib] : 1;
                    bs[i] = sa > sb ? sa : sb;
                    B *= bs[i];
                }
                CHECK(ct_tensor_numel(r) == B * M * N);
                CHECK(ct_tensor_ndim(r) == nb + (c->nda > 1) + (c->ndb > 1));
                double *vr = tu_read(r), *cc = malloc(sizeof(double) * (size_t)(M * N + 1));
                int bad = 0;
                for (int64_t bi = 0; bi < B; bi++) {
                    int64_t oa = 0, ob = 0, rem = bi, ma = M * K, mb = K * N;
                    int64_t stra = ma, strb = mb;
                    for (int i = nb - 1; i >= 0; i--) {
                        int64_t idx = rem % bs[i];
                        rem /= bs[i];
                        int ia = i - (nb - nba), ib = i - (nb - nbb);
                        if (ia >= 0) {
                            if (c->a[ia] != 1) oa += idx * stra;
                            stra *= c->a[ia];
                        }
                        if (ib >= 0) {
                            if (c->b[ib] != 1) ob += idx * strb;
                            strb *= c->b[ib];
                        }
                    }
                    ref_matmul(va + oa, vb + ob, cc, M, K, N);
                    double tol = dts[di] == CT_FLOAT64   ? 1e-13
                                 : dts[di] == CT_FLOAT32 ? 1e-5
                                 : dts[di] == CT_FLOAT16 ? 2e-3
                                                         : 1.6e-2;
                    for (int64_t i = 0; i < M * N; i++)
                        if (!ct_t_close(vr[bi * M * N + i], cc[i], tol, tol * (double)K)) bad++;
                }
                CHECK_MSG(bad == 0, "matmul %s case %zu mode %d: %d bad", ct_dtype_name(dts[di]),
                          ci, mode, bad);
                free(vr), free(cc), free(va), free(vb);
                ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
            }
}

/* Every transposition of the two operands (each handed to BLAS as is) at sizes the CPU backend
 * splits over its threads: strips of rows (M > N), of columns (N > M), a batch. */
TEST(matmul_transposed_operands_split) {
    /* BMKN: each split over the threads (>= 2 * CT__BLAS_CHUNK_MACS multiply-adds in all, each
     * product below CT__BLAS_SMALL_MACS) */
    const int64_t cases[][4] = {{1, 100, 400, 37}, {1, 20, 300, 300}, {3, 60, 100, 64}};
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++)
        for (int ci = 0; ci < 3; ci++)
            for (int tr = 0; tr < 4; tr++) {
                const int64_t B = cases[ci][0], M = cases[ci][1], K = cases[ci][2],
                              N = cases[ci][3];
                int64_t sa[3] = {B, M, K}, sb[3] = {B, K, N};
                double *va, *vb;
                ct_tensor *a = tu_make(ctx, &rng, dts[di], 3, sa, tr & 1, -1, 1, &va);
                ct_tensor *b = tu_make(ctx, &rng, dts[di], 3, sb, (tr >> 1) & 1, -1, 1, &vb), *r;
                CHECK_OK(ct_matmul(ctx, a, b, &r));
                double *vr = tu_read(r), *cc = malloc(sizeof(double) * (size_t)(M * N));
                int bad = 0;
                for (int64_t bi = 0; bi < B; bi++) {
                    ref_matmul(va + bi * M * K, vb + bi * K * N, cc, M, K, N);
                    double tol = dts[di] == CT_FLOAT64 ? 1e-13 : 1e-5;
                    for (int64_t i = 0; i < M * N; i++)
                        if (!ct_t_close(vr[bi * M * N + i], cc[i], tol, tol * (double)K)) bad++;
                }
                CHECK_MSG(bad == 0, "matmul %s case %d transposed %d: %d bad",
                          ct_dtype_name(dts[di]), ci, tr, bad);
                free(vr), free(cc), free(va), free(vb);
                ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
            }
}

/* Small f32 products at every tail of the register tile (8 rows x 32 columns) and of the k
 * blocks (256), each operand as is or transposed: on AVX-512 machines these take ctorch's own
 * kernel (where OpenBLAS runs AVX2 kernels), elsewhere OpenBLAS. */
TEST(matmul_small_tiles_and_tails) {
    const int64_t Ms[] = {1, 2, 7, 8, 9, 17}, Ns[] = {1, 15, 16, 17, 31, 32, 33, 70},
                  Ks[] = {1, 5, 257, 600};
    int bad_cases = 0;
    for (int mi = 0; mi < 6; mi++)
        for (int ni = 0; ni < 8; ni++)
            for (int ki = 0; ki < 4; ki++)
                for (int tr = 0; tr < 4; tr++) {
                    const int64_t M = Ms[mi], N = Ns[ni], K = Ks[ki];
                    int64_t sa[2] = {M, K}, sb[2] = {K, N};
                    double *va, *vb;
                    ct_tensor *a = tu_make(ctx, &rng, CT_FLOAT32, 2, sa, tr & 1, -1, 1, &va);
                    ct_tensor *b = tu_make(ctx, &rng, CT_FLOAT32, 2, sb, (tr >> 1) & 1, -1, 1, &vb);
                    ct_tensor *r = NULL;
                    CHECK_OK(ct_matmul(ctx, a, b, &r));
                    double *vr = r ? tu_read(r) : NULL,
                           *cc = malloc(sizeof(double) * (size_t)(M * N));
                    ref_matmul(va, vb, cc, M, K, N);
                    int bad = 0;
                    for (int64_t i = 0; vr && i < M * N; i++)
                        if (!ct_t_close(vr[i], cc[i], 1e-5, 1e-6 * (double)K)) bad++;
                    if (bad) {
                        bad_cases++;
                        CHECK_MSG(bad == 0, "matmul %lldx%lldx%lld transposed %d: %d bad",
                                  (long long)M, (long long)K, (long long)N, tr, bad);
                    }
                    free(vr), free(cc), free(va), free(vb);
                    ct_tensor_release(r), ct_tensor_release(a), ct_tensor_release(b);
                }
    CHECK(bad_cases == 0);
}

TEST(matmul_errors_and_bmm) {
    int64_t s34[2] = {3, 4}, s53[2] = {5, 3}, s234[3] = {2, 3, 4}, s245[3] = {2, 4, 5};
    ct_tensor *a, *b, *c, *d, *i32, *r;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s34, &a));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s53, &b));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, s234, &c));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, s245, &d));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 2, s34, &i32));
    CHECK_ST(ct_matmul(ctx, a, b, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "[3, 4]") && strstr(ct_ctx_last_error(ctx), "[5, 3]"));
    CHECK_ST(ct_matmul(ctx, i32, i32, &r), CT_ERR_SHAPE); /* integer matmul works; 3x4 @ 3x4 not */
    CHECK_ST(ct_matmul(ctx, i32, a, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_bmm(ctx, a, a, &r), CT_ERR_SHAPE);
    CHECK_OK(ct_bmm(ctx, c, d, &r));
    CHECK(ct_tensor_ndim(r) == 3 && ct_tensor_shape(r)[2] == 5);
    ct_tensor_release(r);
    CHECK_ST(ct_matmul(ctx, NULL, a, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_matmul(ctx, a, a, NULL), CT_ERR_INVALID_ARG);
    ct_tensor *all[] = {a, b, c, d, i32};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(all[i]);
}

TEST(layer_norm_and_embedding) {
    int64_t sh[3] = {3, 5, 8}, wsh[1] = {8};
    double *vx, *vw, *vb;
    for (int mode = 0; mode < 3; mode++) {
        ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 3, sh, mode, -3, 3, &vx);
        ct_tensor *w = tu_make(ctx, &rng, CT_FLOAT32, 1, wsh, 0, 0.5, 2, &vw);
        ct_tensor *b = tu_make(ctx, &rng, CT_FLOAT32, 1, wsh, 0, -1, 1, &vb), *r, *r2;
        CHECK_OK(ct_layer_norm(ctx, x, 1, w, b, 1e-5, &r));
        CHECK_OK(ct_layer_norm(ctx, x, 2, NULL, NULL, 1e-5, &r2));
        double *vr = tu_read(r), *vr2 = tu_read(r2);
        int bad = 0;
        for (int row = 0; row < 15; row++) {
            double m = 0, v = 0;
            for (int c = 0; c < 8; c++)
                m += vx[row * 8 + c];
            m /= 8;
            for (int c = 0; c < 8; c++)
                v += (vx[row * 8 + c] - m) * (vx[row * 8 + c] - m);
            v /= 8;
            for (int c = 0; c < 8; c++) {
                double want = (vx[row * 8 + c] - m) / sqrt(v + 1e-5) * vw[c] + vb[c];
                if (!ct_t_close(vr[row * 8 + c], want, 1e-5, 1e-5)) bad++;
            }
        }
        for (int g = 0; g < 3; g++) {
            double m = 0, v = 0;
            for (int c = 0; c < 40; c++)
                m += vx[g * 40 + c];
            m /= 40;
            for (int c = 0; c < 40; c++)
                v += (vx[g * 40 + c] - m) * (vx[g * 40 + c] - m);
            v /= 40;
            for (int c = 0; c < 40; c++)
                if (!ct_t_close(vr2[g * 40 + c], (vx[g * 40 + c] - m) / sqrt(v + 1e-5), 1e-5, 1e-5))
                    bad++;
        }
        CHECK_MSG(bad == 0, "layer_norm mode %d: %d bad", mode, bad);
        CHECK_ST(ct_layer_norm(ctx, x, 2, w, NULL, 1e-5, &r2), CT_ERR_SHAPE);
        CHECK_ST(ct_layer_norm(ctx, x, 4, NULL, NULL, 1e-5, &r2), CT_ERR_SHAPE);
        free(vr), free(vr2), free(vx), free(vw), free(vb);
        ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b), ct_tensor_release(r);
        ct_tensor_release(r2);
    }
    /* embedding: (V=6, D=7) weight, (2,3) int64 indices, also a transposed weight */
    int64_t ws[2] = {6, 7}, is[2] = {2, 3};
    double *vwt;
    ct_tensor *wt = tu_make(ctx, &rng, CT_FLOAT64, 2, ws, 1, -1, 1, &vwt), *ix, *r;
    int64_t idx[6] = {5, 0, 3, 3, 1, 2};
    CHECK_OK(ct_tensor_from_host(ctx, idx, CT_INT64, 2, is, &ix));
    CHECK_OK(ct_embedding(ctx, wt, ix, &r));
    CHECK(ct_tensor_ndim(r) == 3 && ct_tensor_shape(r)[2] == 7);
    double *vr = tu_read(r);
    int bad = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 7; j++)
            if (vr[i * 7 + j] != vwt[idx[i] * 7 + j]) bad++;
    CHECK(bad == 0);
    free(vr);
    ct_tensor_release(r), ct_tensor_release(ix);
    int32_t badidx[2] = {1, 6};
    int64_t s2[1] = {2};
    CHECK_OK(ct_tensor_from_host(ctx, badidx, CT_INT32, 1, s2, &ix));
    CHECK_ST(ct_embedding(ctx, wt, ix, &r), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "[0, 6)") != NULL);
    CHECK_ST(ct_embedding(ctx, ix, ix, &r), CT_ERR_SHAPE);
    free(vwt);
    ct_tensor_release(ix), ct_tensor_release(wt);
}

/* The chosen ISA must agree with the scalar reference: bit for bit where the algorithm is the
 * same (arithmetic, sums), within 2 ulp for the vector exp. */
TEST(isa_matches_reference) {
    ct_ctx_options o = {.size = sizeof o, .cpu_isa = "ref"};
    ct_ctx *rc;
    CHECK_OK(ct_ctx_create(&o, &rc));
    int64_t n[1] = {100003};
    ct_tensor *x, *y, *xr, *yr;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 1, n, 7, 0, &x));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 1, n, 7, 200000, &y));
    CHECK_OK(ct_tensor_randn(rc, CT_FLOAT32, 1, n, 7, 0, &xr));
    CHECK_OK(ct_tensor_randn(rc, CT_FLOAT32, 1, n, 7, 200000, &yr));
    float *a = malloc(4 * 100003), *b = malloc(4 * 100003);
    ct_tensor *r1, *r2;
    typedef ct_status (*bfn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);
    bfn fns[] = {ct_add, ct_sub, ct_mul, ct_div};
    for (int f = 0; f < 4; f++) {
        CHECK_OK(fns[f](ctx, x, y, &r1));
        CHECK_OK(fns[f](rc, xr, yr, &r2));
        ct_tensor_to_host(r1, a, 4 * 100003);
        ct_tensor_to_host(r2, b, 4 * 100003);
        CHECK(memcmp(a, b, 4 * 100003) == 0);
        ct_tensor_release(r1), ct_tensor_release(r2);
    }
    CHECK_OK(ct_sum(ctx, x, 0, NULL, false, &r1));
    CHECK_OK(ct_sum(rc, xr, 0, NULL, false, &r2));
    ct_tensor_to_host(r1, a, 4);
    ct_tensor_to_host(r2, b, 4);
    CHECK(a[0] == b[0]);
    ct_tensor_release(r1), ct_tensor_release(r2);
    CHECK_OK(ct_exp(ctx, x, &r1));
    CHECK_OK(ct_exp(rc, xr, &r2));
    ct_tensor_to_host(r1, a, 4 * 100003);
    ct_tensor_to_host(r2, b, 4 * 100003);
    int bad = 0;
    for (int i = 0; i < 100003; i++)
        if (!ct_t_close(a[i], b[i], 2.5e-7, 0)) bad++;
    CHECK_MSG(bad == 0, "%d exp values differ by more than 2 ulp", bad);
    ct_tensor_release(r1), ct_tensor_release(r2);
    free(a), free(b);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(xr), ct_tensor_release(yr);
    ct_ctx_free(rc);
}

/* sum / amax / amin of short and odd rows (every tail length), with NaNs of distinct payloads,
 * signed zeros, ties and infinities: the vector ISAs return the scalar reference's bits. */
TEST(isa_row_reductions_match_reference) {
    ct_ctx_options o = {.size = sizeof o, .cpu_isa = "ref"};
    ct_ctx *rc;
    CHECK_OK(ct_ctx_create(&o, &rc));
    unsigned long long st = 12345;
    for (int n = 1; n <= 70; n++)
        for (int pat = 0; pat < 4; pat++) {
            enum { R = 9 };
            float *v = malloc(sizeof(float) * R * (size_t)n);
            for (int i = 0; i < R * n; i++) {
                st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                unsigned u = (unsigned)(st >> 33);
                float x = (float)((int)(u % 2001) - 1000) / 64.0f;
                if (pat == 1) /* one sign a row, and zeros of both signs: the extreme is a zero */
                    x = (u % 3 == 0) ? ((u & 64) ? 0.0f : -0.0f)
                                     : ((i / n) % 2 ? -fabsf(x) - 1 : fabsf(x) + 1);
                if (pat == 2 && u % 11 == 0) { /* NaNs, distinct payloads */
                    uint32_t b = 0x7fc00000u | (u & 0x3fffffu) | ((u & 1u) << 31);
                    memcpy(&x, &b, 4);
                }
                if (pat == 3) x = (u % 3 == 0) ? ((u & 8) ? INFINITY : -INFINITY) : (float)(u % 3);
                if (pat == 1 && i % n == 0 && (i / n) % 2) x = -0.0f;
                v[i] = x;
            }
            if (pat == 1) /* a row of zeros only: the extreme is a zero, its sign from the lanes */
                for (int j = 0; j < n; j++)
                    v[j] = (j % 3) ? 0.0f : -0.0f;
            int64_t sh[2] = {R, n};
            ct_tensor *x, *xr;
            CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 2, sh, &x));
            CHECK_OK(ct_tensor_from_host(rc, v, CT_FLOAT32, 2, sh, &xr));
            int d = 1;
            for (int f = 0; f < 3; f++) {
                ct_tensor *r1 = NULL, *r2 = NULL;
                if (f == 0) {
                    CHECK_OK(ct_sum(ctx, x, 1, &d, false, &r1));
                    CHECK_OK(ct_sum(rc, xr, 1, &d, false, &r2));
                } else if (f == 1) {
                    CHECK_OK(ct_amax(ctx, x, 1, &d, false, &r1));
                    CHECK_OK(ct_amax(rc, xr, 1, &d, false, &r2));
                } else {
                    CHECK_OK(ct_amin(ctx, x, 1, &d, false, &r1));
                    CHECK_OK(ct_amin(rc, xr, 1, &d, false, &r2));
                }
                float a[R], b[R];
                ct_tensor_to_host(r1, a, sizeof a);
                ct_tensor_to_host(r2, b, sizeof b);
                /* (which NaN's payload a sum returns follows the add's operand order, which the
                 * compiler chooses: sums compare NaN-ness there) */
                for (int r = 0; r < R; r++)
                    if (f == 0 && a[r] != a[r] && b[r] != b[r]) a[r] = b[r];
                CHECK_MSG(memcmp(a, b, sizeof a) == 0, "reduction %d n %d pattern %d differs", f, n,
                          pat);
                if (f == 0 && pat == 0)
                    for (int r = 0; r < R; r++) { /* values are multiples of 1/64: exact sums */
                        double e = 0;
                        for (int j = 0; j < n; j++)
                            e += v[r * n + j];
                        CHECK_MSG(a[r] == (float)e, "sum n %d row %d: %g want %g", n, r, a[r], e);
                    }
                ct_tensor_release(r1), ct_tensor_release(r2);
            }
            ct_tensor_release(x), ct_tensor_release(xr);
            free(v);
        }
    ct_ctx_free(rc);
}

TEST(error_paths) {
    int64_t s3[1] = {3}, s4[1] = {4};
    ct_tensor *a, *b, *r = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s3, &a));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s4, &b));
    CHECK_ST(ct_add(ctx, a, b, &r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "broadcast") != NULL);
    CHECK(r == NULL);
    CHECK_ST(ct_add(ctx, a, NULL, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_add(NULL, a, b, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_exp(ctx, a, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_softmax(ctx, a, 3, &r), CT_ERR_INDEX);
    CHECK_ST(ct_gelu(ctx, a, (ct_gelu_approx)7, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_cast(ctx, a, CT_FLOAT8_E4M3FN, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_cast(ctx, a, (ct_dtype)99, &r), CT_ERR_DTYPE);
    ct_ctx *other;
    CHECK_OK(ct_ctx_create(NULL, &other));
    CHECK_ST(ct_add(other, a, a, &r), CT_ERR_INVALID_ARG);
    ct_ctx_free(other);
    ct_tensor_release(a), ct_tensor_release(b);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    printf("isa %s\n", ct_ctx_cpu_isa(ctx));
    RUN(binary_ops_all_dtypes_shapes_layouts);
    RUN(add_alpha_and_promotion);
    RUN(unary_float_ops);
    RUN(exp_special_values);
    RUN(log_tanh_special_values);
    RUN(integer_pow_clamp_where_addc);
    RUN(reductions_sum_mean_amax_amin);
    RUN(reductions_nan_and_argmax);
    RUN(softmax_and_log_softmax);
    RUN(matmul_shapes_layouts_dtypes);
    RUN(matmul_transposed_operands_split);
    RUN(matmul_small_tiles_and_tails);
    RUN(matmul_errors_and_bmm);
    RUN(layer_norm_and_embedding);
    RUN(isa_matches_reference);
    RUN(isa_row_reductions_match_reference);
    RUN(error_paths);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Fidelity to PyTorch 1.13 (CPU, x86-64), run once per ISA: rounding of add/sub with alpha and
 * addcmul (fused multiply-add), pow's special exponents, float -> integer casts of NaN/inf/out of
 * range, signed zeros of relu/gelu, gelu's accuracy for x < -1, layer_norm of constant rows, result
 * dtypes and errors, integer matmul/addcmul, scalar and in-place variants, dim errors.
 * References: C math written here (fma, long double erfc) and tests/data/fidelity_golden.h, made
 * by scripts/gen_fidelity_golden.py from torch itself. */
#include "test_util.h"

#include "data/fidelity_golden.h"

#include <float.h>

static ct_ctx *ctx;
static unsigned long long rng = 0x5eed1234ULL;

/* 1-d tensor of n elements from raw host data; strided != 0 gives a non-contiguous view (every
 * second element of a 2n buffer), which takes the kernels' strided path. */
static ct_tensor *mk(ct_dtype dt, int64_t n, const void *data, int strided) {
    size_t sz = ct_dtype_size(dt);
    ct_tensor *t = NULL;
    if (!strided) {
        int64_t s[1] = {n};
        if (ct_tensor_from_host(ctx, data, dt, 1, s, &t) != CT_OK) return NULL;
        return t;
    }
    char *buf = calloc((size_t)(2 * n + 1), sz);
    for (int64_t i = 0; i < n; i++)
        memcpy(buf + (size_t)(2 * i) * sz, (const char *)data + (size_t)i * sz, sz);
    int64_t s[1] = {2 * n};
    ct_tensor *base = NULL, *v = NULL;
    if (ct_tensor_from_host(ctx, buf, dt, 1, s, &base) == CT_OK)
        ct_tensor_slice(ctx, base, 0, 0, 2 * n, 2, &v);
    ct_tensor_release(base);
    free(buf);
    return v;
}

/* Raw bytes of a tensor (C order) into dst (nbytes). */
static int rd(const ct_tensor *t, void *dst, size_t nbytes) {
    return t && ct_tensor_to_host(t, dst, nbytes) == CT_OK;
}

static float rnd_f32(void) {
    return (float)(((double)(ct_t_rng_next(&rng) >> 11) * 0x1p-53 - 0.5) * 8.0);
}
static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static uint64_t d2u(double f) {
    uint64_t u;
    memcpy(&u, &f, 8);
    return u;
}

/* ---- add/sub with alpha: one rounding, fma(alpha, b, a), as torch ---- */
TEST(add_sub_alpha_fma_f32_f64) {
    enum { N = 1027 };
    static float a[N], b[N];
    static double ad[N], bd[N];
    for (int i = 0; i < N; i++) {
        a[i] = rnd_f32();
        b[i] = i < N / 2 ? rnd_f32() : -a[i] / 1.7f; /* cancellation */
        ad[i] = (double)rnd_f32() * (1 + 0x1p-30);
        bd[i] = i < N / 2 ? (double)rnd_f32() / 3 : -ad[i] / 1.7;
    }
    const double alphas[] = {1.7, -0.3, 2.5, 1.0, 3.0};
    int differs_from_two_roundings = 0;
    for (int strided = 0; strided < 2; strided++)
        for (size_t k = 0; k < sizeof alphas / sizeof alphas[0]; k++) {
            double al = alphas[k];
            ct_tensor *ta = mk(CT_FLOAT32, N, a, strided), *tb = mk(CT_FLOAT32, N, b, strided);
            ct_tensor *tad = mk(CT_FLOAT64, N, ad, strided), *tbd = mk(CT_FLOAT64, N, bd, strided);
            ct_tensor *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
            CHECK_OK(ct_add_scaled(ctx, ta, tb, al, &r1));
            CHECK_OK(ct_sub_scaled(ctx, ta, tb, al, &r2));
            CHECK_OK(ct_add_scaled(ctx, tad, tbd, al, &r3));
            CHECK_OK(ct_sub_scaled(ctx, tad, tbd, al, &r4));
            static float o1[N], o2[N];
            static double o3[N], o4[N];
            CHECK(rd(r1, o1, sizeof o1) && rd(r2, o2, sizeof o2) && rd(r3, o3, sizeof o3) &&
                  rd(r4, o4, sizeof o4));
            int bad = 0;
            for (int i = 0; i < N; i++) {
                float fa = (float)al;
                if (f2u(o1[i]) != f2u(fmaf(fa, b[i], a[i]))) bad++;
                if (f2u(o2[i]) != f2u(fmaf(-fa, b[i], a[i]))) bad++;
                if (d2u(o3[i]) != d2u(fma(al, bd[i], ad[i]))) bad++;
                if (d2u(o4[i]) != d2u(fma(-al, bd[i], ad[i]))) bad++;
                volatile float p = fa * b[i];
                if (o1[i] != a[i] + p) differs_from_two_roundings++;
            }
            CHECK_MSG(bad == 0, "alpha %g strided %d: %d elements differ from fma", al, strided,
                      bad);
            ct_tensor *all[] = {ta, tb, tad, tbd, r1, r2, r3, r4};
            for (int i = 0; i < 8; i++)
                ct_tensor_release(all[i]);
        }
    /* the data does tell the two roundings apart (the test can fail) */
    CHECK(differs_from_two_roundings > 100);
}

/* f16/bf16 against torch's own outputs (their rounding differs: tests/data, docs/fidelity.md) */
static void check_half_addsub(ct_dtype dt, const uint16_t *a, const uint16_t *b,
                              const uint16_t *const *add, const uint16_t *const *sub) {
    enum { N = 96 };
    for (int strided = 0; strided < 2; strided++)
        for (int k = 0; k < 3; k++) {
            ct_tensor *ta = mk(dt, N, a, strided), *tb = mk(dt, N, b, strided), *r1 = NULL,
                      *r2 = NULL;
            CHECK_OK(ct_add_scaled(ctx, ta, tb, FG_ALPHAS[k], &r1));
            CHECK_OK(ct_sub_scaled(ctx, ta, tb, FG_ALPHAS[k], &r2));
            uint16_t o1[N], o2[N];
            CHECK(rd(r1, o1, sizeof o1) && rd(r2, o2, sizeof o2));
            int bad = 0;
            for (int i = 0; i < N; i++)
                bad += (o1[i] != add[k][i]) + (o2[i] != sub[k][i]);
            CHECK_MSG(bad == 0, "%s alpha %g strided %d: %d differ from torch", ct_dtype_name(dt),
                      FG_ALPHAS[k], strided, bad);
            ct_tensor_release(ta), ct_tensor_release(tb), ct_tensor_release(r1),
                ct_tensor_release(r2);
        }
}
TEST(add_sub_alpha_half_golden) {
    const uint16_t *ah[3] = {FG_ADD_f16_0, FG_ADD_f16_1, FG_ADD_f16_2};
    const uint16_t *sh[3] = {FG_SUB_f16_0, FG_SUB_f16_1, FG_SUB_f16_2};
    const uint16_t *ab[3] = {FG_ADD_bf16_0, FG_ADD_bf16_1, FG_ADD_bf16_2};
    const uint16_t *sb[3] = {FG_SUB_bf16_0, FG_SUB_bf16_1, FG_SUB_bf16_2};
    check_half_addsub(CT_FLOAT16, FG_ADD_A_f16, FG_ADD_B_f16, ah, sh);
    check_half_addsub(CT_BFLOAT16, FG_ADD_A_bf16, FG_ADD_B_bf16, ab, sb);
}

/* ---- addcmul: fma(value * t1, t2, self) ---- */
TEST(addcmul_fma) {
    enum { N = 515 };
    static float s[N], x[N], y[N];
    static double sd[N], xd[N], yd[N];
    for (int i = 0; i < N; i++) {
        s[i] = rnd_f32(), x[i] = rnd_f32(), y[i] = rnd_f32();
        sd[i] = s[i] * (1 + 0x1p-40), xd[i] = x[i] / 3.0, yd[i] = y[i] * 1.1;
    }
    const double vals[] = {1.0, 0.7, -1.3};
    int two_round = 0;
    for (int strided = 0; strided < 2; strided++)
        for (int k = 0; k < 3; k++) {
            double v = vals[k];
            ct_tensor *ts = mk(CT_FLOAT32, N, s, strided), *tx = mk(CT_FLOAT32, N, x, strided),
                      *ty = mk(CT_FLOAT32, N, y, strided);
            ct_tensor *tsd = mk(CT_FLOAT64, N, sd, strided), *txd = mk(CT_FLOAT64, N, xd, strided),
                      *tyd = mk(CT_FLOAT64, N, yd, strided);
            ct_tensor *r = NULL, *rd64 = NULL;
            CHECK_OK(ct_addcmul(ctx, ts, tx, ty, v, &r));
            CHECK_OK(ct_addcmul(ctx, tsd, txd, tyd, v, &rd64));
            static float o[N];
            static double od[N];
            CHECK(rd(r, o, sizeof o) && rd(rd64, od, sizeof od));
            int bad = 0;
            for (int i = 0; i < N; i++) {
                volatile float vx = (float)v * x[i];
                if (f2u(o[i]) != f2u(fmaf(vx, y[i], s[i]))) bad++;
                volatile double vxd = v * xd[i];
                if (d2u(od[i]) != d2u(fma(vxd, yd[i], sd[i]))) bad++;
                volatile float p = vx * y[i];
                if (o[i] != s[i] + p) two_round++;
            }
            CHECK_MSG(bad == 0, "value %g strided %d: %d differ from fma", v, strided, bad);
            ct_tensor *all[] = {ts, tx, ty, tsd, txd, tyd, r, rd64};
            for (int i = 0; i < 8; i++)
                ct_tensor_release(all[i]);
        }
    CHECK(two_round > 50);
    /* bf16 against torch */
    ct_tensor *a = mk(CT_BFLOAT16, 96, FG_ACM_S, 0), *b = mk(CT_BFLOAT16, 96, FG_ACM_T1, 1),
              *c = mk(CT_BFLOAT16, 96, FG_ACM_T2, 0), *r = NULL;
    CHECK_OK(ct_addcmul(ctx, a, b, c, 0.7, &r));
    uint16_t o[96];
    CHECK(rd(r, o, sizeof o));
    int bad = 0;
    for (int i = 0; i < 96; i++)
        bad += o[i] != FG_ACM_OUT[i];
    CHECK_MSG(bad == 0, "bf16 addcmul: %d differ from torch", bad);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(r);
}

/* ---- addcmul / addcdiv / lerp / lerp_scalar over every broadcast pattern: each operand full
 * [R, C], a column [R, 1] (inner stride 0: the vector loops' broadcast operand) or a row [1, C];
 * f32 and f64 against the C formulas (NaN compared as NaN: IEEE leaves its sign open) ---- */
enum { TB_R = 5, TB_C = 37 };
static double tb_val(int weight) {
    double u = (double)(ct_t_rng_next(&rng) >> 11) * 0x1p-53;
    if (u < 0.02) return NAN;
    if (u < 0.04) return u < 0.03 ? INFINITY : -INFINITY;
    if (u < 0.06) return u < 0.05 ? 0.0 : -0.0;
    if (weight && u < 0.1) return 0.5;
    u = (double)(ct_t_rng_next(&rng) >> 11) * 0x1p-53;
    return weight ? u * 2.0 - 0.5 : (u - 0.5) * 8.0;
}
/* the operand of pattern digit d (0 full, 1 column, 2 row) */
static ct_tensor *tb_mk(ct_dtype dt, int d, const double *full) {
    int64_t sh[2] = {d == 2 ? 1 : TB_R, d == 1 ? 1 : TB_C};
    double dv[TB_R * TB_C];
    float fv[TB_R * TB_C];
    for (int64_t r = 0; r < sh[0]; r++)
        for (int64_t c = 0; c < sh[1]; c++)
            dv[r * sh[1] + c] = full[r * TB_C + c], fv[r * sh[1] + c] = (float)full[r * TB_C + c];
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, dt == CT_FLOAT32 ? (const void *)fv : (const void *)dv, dt, 2, sh,
                            &t) != CT_OK)
        return NULL;
    return t;
}
/* the ops' formulas in type T (FMA: fmaf / fma), each intermediate rounded through a volatile */
#define TB_REF(NAME, T, FMA)                                                                       \
    static T NAME(int f, T a, T b, T c, T v) {                                                     \
        volatile T t, d;                                                                           \
        switch (f) {                                                                               \
        case 0: t = v * b; return FMA(t, c, a);                                                    \
        case 1: t = b / c; return FMA(v, t, a);                                                    \
        default:                                                                                   \
            d = b - a;                                                                             \
            if (c < (T)0.5) return FMA(c, d, a);                                                   \
            t = (T)1 - c;                                                                          \
            return FMA(-d, t, b);                                                                  \
        }                                                                                          \
    }
TB_REF(tb_ref32, float, fmaf)
TB_REF(tb_ref64, double, fma)
static double tb_ref(int f, int f64, double a, double b, double c, double v) {
    return f64 ? tb_ref64(f, a, b, c, v) : tb_ref32(f, (float)a, (float)b, (float)c, (float)v);
}
TEST(ternary_broadcast_patterns) {
    static double in[3][TB_R * TB_C];
    const double vals[] = {0.7, 1.0, -1.5};
    const double ws[] = {0.3, 0.5, -0.25, 1.0, 2.0, NAN};
    int cases = 0;
    for (int f = 0; f < 4; f++) /* addcmul, addcdiv, lerp, lerp_scalar */
        for (int f64 = 0; f64 < 2; f64++)
            for (int pat = 0; pat < (f == 3 ? 9 : 27); pat++)
                for (int k = 0; k < 3; k++) {
                    const ct_dtype dt = f64 ? CT_FLOAT64 : CT_FLOAT32;
                    const int d[3] = {pat % 3, pat / 3 % 3, pat / 9};
                    const int nin = f == 3 ? 2 : 3;
                    int full = 0, col = 0, row = 0;
                    for (int j = 0; j < nin; j++)
                        full |= d[j] == 0, col |= d[j] == 1, row |= d[j] == 2;
                    if (!full && !(col && row)) continue; /* the result is not [R, C] */
                    for (int j = 0; j < 3; j++)
                        for (int i = 0; i < TB_R * TB_C; i++)
                            in[j][i] = tb_val(j == 2 && f == 2);
                    /* a broadcast operand repeats its one column / row */
                    for (int j = 0; j < 3; j++)
                        for (int r = 0; r < TB_R; r++)
                            for (int c = 0; c < TB_C; c++)
                                in[j][r * TB_C + c] =
                                    in[j][(d[j] == 2 ? 0 : r) * TB_C + (d[j] == 1 ? 0 : c)];
                    const double v = f == 3 ? ws[(pat + 3 * k) % 6] : vals[k];
                    ct_tensor *t[3], *r = NULL;
                    for (int j = 0; j < 3; j++)
                        t[j] = tb_mk(dt, d[j], in[j]);
                    ct_status st = f == 0   ? ct_addcmul(ctx, t[0], t[1], t[2], v, &r)
                                   : f == 1 ? ct_addcdiv(ctx, t[0], t[1], t[2], v, &r)
                                   : f == 2 ? ct_lerp(ctx, t[0], t[1], t[2], &r)
                                            : ct_lerp_scalar(ctx, t[0], t[1], v, &r);
                    CHECK_OK(st);
                    static double od[TB_R * TB_C];
                    static float of[TB_R * TB_C];
                    CHECK(f64 ? rd(r, od, sizeof od) : rd(r, of, sizeof of));
                    int bad = 0;
                    for (int i = 0; i < TB_R * TB_C; i++) {
                        const double want = tb_ref(f > 2 ? 2 : f, f64, in[0][i], in[1][i],
                                                   f == 3 ? v : in[2][i], v);
                        const double got = f64 ? od[i] : (double)of[i];
                        if (isnan(want) ? !isnan(got)
                                        : (f64 ? d2u(got) != d2u(want)
                                               : f2u((float)got) != f2u((float)want)))
                            bad++;
                    }
                    CHECK_MSG(bad == 0, "op %d f64 %d pattern %d%d%d: %d of %d differ", f, f64,
                              d[0], d[1], d[2], bad, TB_R * TB_C);
                    cases++;
                    for (int j = 0; j < 3; j++)
                        ct_tensor_release(t[j]);
                    ct_tensor_release(r);
                }
    CHECK(cases == 2 * 3 * (25 * 3 + 7));
}

/* add / sub (alpha 1 and not), mul, div over every broadcast pattern of two operands, as above:
 * the binary vector loops take a column operand as one element per row */
#define BB_REF(NAME, T, FMA)                                                                       \
    static T NAME(int f, T a, T b, T al) {                                                         \
        volatile T r;                                                                              \
        switch (f) {                                                                               \
        case 0: r = al == 1 ? a + b : FMA(al, b, a); break;                                        \
        case 1: r = al == 1 ? a - b : FMA(-al, b, a); break;                                       \
        case 2: r = a * b; break;                                                                  \
        default: r = a / b; break;                                                                 \
        }                                                                                          \
        return r;                                                                                  \
    }
BB_REF(bb_ref32, float, fmaf)
BB_REF(bb_ref64, double, fma)
TEST(binary_broadcast_patterns) {
    static double in[2][TB_R * TB_C];
    const double alphas[] = {1.0, 2.5, -0.75};
    int cases = 0;
    for (int f = 0; f < 4; f++) /* add, sub, mul, div */
        for (int f64 = 0; f64 < 2; f64++)
            for (int pat = 0; pat < 9; pat++)
                for (int k = 0; k < (f < 2 ? 3 : 1); k++) {
                    const ct_dtype dt = f64 ? CT_FLOAT64 : CT_FLOAT32;
                    const int d[2] = {pat % 3, pat / 3};
                    if (d[0] != 0 && d[1] != 0 && d[0] == d[1]) continue; /* not [R, C] */
                    for (int j = 0; j < 2; j++)
                        for (int i = 0; i < TB_R * TB_C; i++)
                            in[j][i] = tb_val(0);
                    for (int j = 0; j < 2; j++)
                        for (int r = 0; r < TB_R; r++)
                            for (int c = 0; c < TB_C; c++)
                                in[j][r * TB_C + c] =
                                    in[j][(d[j] == 2 ? 0 : r) * TB_C + (d[j] == 1 ? 0 : c)];
                    const double al = alphas[k];
                    ct_tensor *t[2], *r = NULL;
                    for (int j = 0; j < 2; j++)
                        t[j] = tb_mk(dt, d[j], in[j]);
                    ct_status st = f == 0   ? ct_add_scaled(ctx, t[0], t[1], al, &r)
                                   : f == 1 ? ct_sub_scaled(ctx, t[0], t[1], al, &r)
                                   : f == 2 ? ct_mul(ctx, t[0], t[1], &r)
                                            : ct_div(ctx, t[0], t[1], &r);
                    CHECK_OK(st);
                    static double od[TB_R * TB_C];
                    static float of[TB_R * TB_C];
                    CHECK(f64 ? rd(r, od, sizeof od) : rd(r, of, sizeof of));
                    int bad = 0;
                    for (int i = 0; i < TB_R * TB_C; i++) {
                        const double want =
                            f64 ? bb_ref64(f, in[0][i], in[1][i], al)
                                : (double)bb_ref32(f, (float)in[0][i], (float)in[1][i], (float)al);
                        const double got = f64 ? od[i] : (double)of[i];
                        if (isnan(want) ? !isnan(got)
                                        : (f64 ? d2u(got) != d2u(want)
                                               : f2u((float)got) != f2u((float)want)))
                            bad++;
                    }
                    CHECK_MSG(bad == 0, "op %d f64 %d alpha %g pattern %d%d: %d of %d differ", f,
                              f64, al, d[0], d[1], bad, TB_R * TB_C);
                    cases++;
                    ct_tensor_release(t[0]), ct_tensor_release(t[1]), ct_tensor_release(r);
                }
    CHECK(cases == 2 * 7 * (3 + 3 + 1 + 1));
}

/* integer addcmul works (value truncated, wrapping arithmetic); bool and integer addcdiv do not */
TEST(addcmul_integer) {
    int32_t s[5] = {-3, 0, 5, 2147483647, 7}, x[5] = {-3, 4, 5, 2, -1}, y[5] = {-3, 9, 5, 1, 6};
    ct_tensor *ts = mk(CT_INT32, 5, s, 0), *tx = mk(CT_INT32, 5, x, 1), *ty = mk(CT_INT32, 5, y, 0);
    ct_tensor *r = NULL;
    CHECK_OK(ct_addcmul(ctx, ts, tx, ty, 2.5, &r)); /* torch: value 2.5 acts as 2 */
    CHECK(r && ct_tensor_dtype(r) == CT_INT32);
    int32_t o[5];
    CHECK(rd(r, o, sizeof o));
    for (int i = 0; i < 5; i++) {
        int32_t want = (int32_t)(uint32_t)((uint64_t)(int64_t)s[i] +
                                           (uint64_t)(2 * (int64_t)x[i] * (int64_t)y[i]));
        CHECK_MSG(o[i] == want, "i=%d got %d want %d", i, o[i], want);
    }
    ct_tensor_release(r);
    uint8_t bv[2] = {1, 0};
    ct_tensor *tb = mk(CT_BOOL, 2, bv, 0);
    CHECK_ST(ct_addcmul(ctx, tb, tb, tb, 1, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_addcdiv(ctx, ts, tx, ty, 1, &r), CT_ERR_DTYPE);
    ct_tensor_release(ts), ct_tensor_release(tx), ct_tensor_release(ty), ct_tensor_release(tb);
}

/* ---- pow with PyTorch's special exponents ---- */
TEST(pow_special_exponents_golden) {
    struct {
        ct_dtype dt;
        const void *x;
        const void *out[6];
    } cases[4] = {
        {CT_FLOAT32,
         FG_POW_X_f32,
         {FG_POW_f32_0, FG_POW_f32_1, FG_POW_f32_2, FG_POW_f32_3, FG_POW_f32_4, FG_POW_f32_5}},
        {CT_FLOAT64,
         FG_POW_X_f64,
         {FG_POW_f64_0, FG_POW_f64_1, FG_POW_f64_2, FG_POW_f64_3, FG_POW_f64_4, FG_POW_f64_5}},
        {CT_FLOAT16,
         FG_POW_X_f16,
         {FG_POW_f16_0, FG_POW_f16_1, FG_POW_f16_2, FG_POW_f16_3, FG_POW_f16_4, FG_POW_f16_5}},
        {CT_BFLOAT16,
         FG_POW_X_bf16,
         {FG_POW_bf16_0, FG_POW_bf16_1, FG_POW_bf16_2, FG_POW_bf16_3, FG_POW_bf16_4,
          FG_POW_bf16_5}},
    };
    for (int c = 0; c < 4; c++)
        for (int strided = 0; strided < 2; strided++)
            for (int k = 0; k < 6; k++) {
                size_t sz = ct_dtype_size(cases[c].dt);
                ct_tensor *x = mk(cases[c].dt, 96, cases[c].x, strided), *r = NULL;
                CHECK_OK(ct_pow(ctx, x, FG_POW_EXPS[k], &r));
                char o[96 * 8];
                CHECK(rd(r, o, 96 * sz));
                int bad = 0, first = -1;
                for (int i = 0; i < 96; i++) {
                    /* NaN payloads may differ: compare NaN-ness, else the bits */
                    double got = 0, want = 0;
                    if (cases[c].dt == CT_FLOAT32) {
                        got = ((float *)o)[i], want = ((const float *)cases[c].out[k])[i];
                    } else if (cases[c].dt == CT_FLOAT64) {
                        got = ((double *)o)[i], want = ((const double *)cases[c].out[k])[i];
                    }
                    bool same = (got != got && want != want) ||
                                memcmp(o + (size_t)i * sz,
                                       (const char *)cases[c].out[k] + (size_t)i * sz, sz) == 0;
                    if (sz == 2) {
                        uint16_t g = ((uint16_t *)o)[i], w = ((const uint16_t *)cases[c].out[k])[i];
                        uint16_t em = cases[c].dt == CT_FLOAT16 ? 0x7c00 : 0x7f80;
                        bool gn = (g & em) == em && (g & ~em & 0x7fff),
                             wn = (w & em) == em && (w & ~em & 0x7fff);
                        same = g == w || (gn && wn);
                    }
                    if (!same) {
                        bad++;
                        if (first < 0) first = i;
                    }
                }
                CHECK_MSG(bad == 0, "%s pow %g strided %d: %d differ from torch (first index %d)",
                          ct_dtype_name(cases[c].dt), FG_POW_EXPS[k], strided, bad, first);
                ct_tensor_release(x), ct_tensor_release(r);
            }
    /* the two cases the issue names */
    float v[2] = {-0.0f, -INFINITY}, o[2];
    ct_tensor *x = mk(CT_FLOAT32, 2, v, 0), *r = NULL;
    CHECK_OK(ct_pow(ctx, x, 0.5, &r));
    CHECK(rd(r, o, sizeof o) && o[0] == 0 && signbit(o[0]) && isnan(o[1]));
    ct_tensor_release(x), ct_tensor_release(r);
}

/* ---- float -> integer casts: x86 "integer indefinite" as torch, through cast and copy_ ---- */
TEST(float_to_int_casts_golden) {
    enum { N = sizeof FG_CAST_X / sizeof FG_CAST_X[0] };
    static float xf[N];
    for (int i = 0; i < N; i++)
        xf[i] = (float)FG_CAST_X[i];
    const ct_dtype idt[6] = {CT_BOOL, CT_UINT8, CT_INT8, CT_INT16, CT_INT32, CT_INT64};
    const int64_t *want[4][6] = {{FG_CAST_f64_b, FG_CAST_f64_u8, FG_CAST_f64_i8, FG_CAST_f64_i16,
                                  FG_CAST_f64_i32, FG_CAST_f64_i64},
                                 {FG_CAST_f32_b, FG_CAST_f32_u8, FG_CAST_f32_i8, FG_CAST_f32_i16,
                                  FG_CAST_f32_i32, FG_CAST_f32_i64},
                                 {FG_CAST_f16_b, FG_CAST_f16_u8, FG_CAST_f16_i8, FG_CAST_f16_i16,
                                  FG_CAST_f16_i32, FG_CAST_f16_i64},
                                 {FG_CAST_bf16_b, FG_CAST_bf16_u8, FG_CAST_bf16_i8,
                                  FG_CAST_bf16_i16, FG_CAST_bf16_i32, FG_CAST_bf16_i64}};
    const ct_dtype sdt[4] = {CT_FLOAT64, CT_FLOAT32, CT_FLOAT16, CT_BFLOAT16};
    const void *src[4] = {FG_CAST_X, xf, FG_CAST_X_f16, FG_CAST_X_bf16};
    for (int s = 0; s < 4; s++)
        for (int d = 0; d < 6; d++)
            for (int mode = 0; mode < 3; mode++) {
                /* mode 0: ct_cast of a contiguous tensor, 1: of a strided view, 2: copy_ into an
                 * existing integer tensor */
                ct_tensor *x = mk(sdt[s], N, src[s], mode == 1), *r = NULL;
                if (mode < 2) {
                    CHECK_OK(ct_cast(ctx, x, idt[d], &r));
                } else {
                    int64_t sh[1] = {N};
                    CHECK_OK(ct_tensor_zeros(ctx, idt[d], 1, sh, &r));
                    CHECK_OK(ct_tensor_copy_(ctx, r, x));
                }
                char o[N * 8];
                size_t sz = ct_dtype_size(idt[d]);
                CHECK(rd(r, o, N * sz));
                int bad = 0, first = -1;
                for (int i = 0; i < N; i++) {
                    int64_t g = 0;
                    switch (idt[d]) {
                    case CT_BOOL: g = ((uint8_t *)o)[i]; break;
                    case CT_UINT8: g = ((uint8_t *)o)[i]; break;
                    case CT_INT8: g = ((int8_t *)o)[i]; break;
                    case CT_INT16: g = ((int16_t *)o)[i]; break;
                    case CT_INT32: g = ((int32_t *)o)[i]; break;
                    default: memcpy(&g, o + 8 * i, 8); break;
                    }
                    if (g != want[s][d][i]) {
                        bad++;
                        if (first < 0) first = i;
                    }
                }
                CHECK_MSG(bad == 0, "%s -> %s mode %d: %d differ from torch (first x=%g)",
                          ct_dtype_name(sdt[s]), ct_dtype_name(idt[d]), mode, bad,
                          first >= 0 ? FG_CAST_X[first] : 0.0);
                ct_tensor_release(x), ct_tensor_release(r);
            }
}

/* ---- integer -> float casts round once (torch's static_cast; through f64 an int64 above 2^53
 * rounds twice: 2^60 + 2^36 + 1 would become 2^60). Bits from python3-torch 1.13:
 * torch.tensor(v, dtype=torch.int64).float() / .double(), int32 likewise. */
TEST(int_to_float_casts_round_once_golden) {
    static const int64_t v[13] = {0,
                                  1,
                                  -1,
                                  (1LL << 24) + 1,
                                  (1LL << 53) + 1,
                                  (1LL << 60) + (1LL << 36) + 1,
                                  -((1LL << 60) + (1LL << 36) + 1),
                                  (1LL << 62) + (1LL << 38) + 1,
                                  INT64_MAX,
                                  INT64_MIN,
                                  (1LL << 31) - 1,
                                  -(1LL << 31) + 3,
                                  (1LL << 40) + (1LL << 16) + 1};
    static const uint32_t w32[13] = {0x0,        0x3f800000, 0xbf800000, 0x4b800000, 0x5a000000,
                                     0x5d800001, 0xdd800001, 0x5e800001, 0x5f000000, 0xdf000000,
                                     0x4f000000, 0xcf000000, 0x53800001};
    static const uint64_t w64[13] = {0x0,
                                     0x3ff0000000000000,
                                     0xbff0000000000000,
                                     0x4170000010000000,
                                     0x4340000000000000,
                                     0x43b0000010000000,
                                     0xc3b0000010000000,
                                     0x43d0000010000000,
                                     0x43e0000000000000,
                                     0xc3e0000000000000,
                                     0x41dfffffffc00000,
                                     0xc1dfffffff400000,
                                     0x4270000010001000};
    static const int32_t v32[4] = {(1 << 24) + 1, INT32_MAX, INT32_MIN, 16777217 * 3};
    static const uint32_t w32i[4] = {0x4b800000, 0x4f000000, 0xcf000000, 0x4c400001};
    for (int strided = 0; strided < 2; strided++) {
        ct_tensor *x = mk(CT_INT64, 13, v, strided), *f = NULL, *d = NULL;
        CHECK_OK(ct_cast(ctx, x, CT_FLOAT32, &f));
        CHECK_OK(ct_cast(ctx, x, CT_FLOAT64, &d));
        uint32_t g32[13];
        uint64_t g64[13];
        CHECK(rd(f, g32, sizeof g32) && rd(d, g64, sizeof g64));
        for (int i = 0; i < 13; i++) {
            CHECK_MSG(g32[i] == w32[i], "int64 %lld -> f32: %08x, torch %08x", (long long)v[i],
                      g32[i], w32[i]);
            CHECK_MSG(g64[i] == w64[i], "int64 %lld -> f64 differs from torch", (long long)v[i]);
        }
        ct_tensor *y = mk(CT_INT32, 4, v32, strided), *h = NULL;
        CHECK_OK(ct_cast(ctx, y, CT_FLOAT32, &h));
        uint32_t gi[4];
        CHECK(rd(h, gi, sizeof gi));
        for (int i = 0; i < 4; i++)
            CHECK_MSG(gi[i] == w32i[i], "int32 %d -> f32: %08x, torch %08x", v32[i], gi[i],
                      w32i[i]);
        ct_tensor_release(x), ct_tensor_release(f), ct_tensor_release(d);
        ct_tensor_release(y), ct_tensor_release(h);
    }
}

/* ---- signed zeros: relu(-0) = -0 (torch), gelu(-0) = +0, gelu of a very negative x = -0 (the
 * exact value underflows from below; torch's -x/2 * 0 is -0 too) ---- */
TEST(relu_gelu_signed_zero) {
    enum { N = 40 };
    const ct_dtype dts[4] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16};
    for (int di = 0; di < 4; di++)
        for (int strided = 0; strided < 2; strided++) {
            ct_dtype dt = dts[di];
            /* -0.0, -1, NaN, 2, a large negative value (the last f64 element: the smallest
             * negative subnormal, whose gelu rounds to -0) in every dtype's bits */
            char buf[N * 8];
            const double big = dt == CT_FLOAT16 ? -6e4 : -1e30;
            for (int i = 0; i < N; i++) {
                double v = (i % 5 == 0)                     ? -0.0
                           : (i % 5 == 1)                   ? -1.0
                           : (i % 5 == 2)                   ? NAN
                           : (i % 5 == 3)                   ? 2.0
                           : i == N - 1 && dt == CT_FLOAT64 ? -0x1p-1074
                                                            : big;
                tu_set(buf, dt, i, v);
            }
            ct_tensor *x = mk(dt, N, buf, strided), *r = NULL, *g = NULL, *gt = NULL;
            CHECK_OK(ct_relu(ctx, x, &r));
            CHECK_OK(ct_gelu(ctx, x, CT_GELU_ERF, &g));
            CHECK_OK(ct_gelu(ctx, x, CT_GELU_TANH, &gt));
            double *vr = tu_read(r), *vg = tu_read(g), *vt = tu_read(gt);
            int bad = 0;
            for (int i = 0; i < N; i++) {
                int k = i % 5;
                if (k == 0 && !(vr[i] == 0 && signbit(vr[i]))) bad++;  /* relu(-0) = -0 */
                if (k == 1 && !(vr[i] == 0 && !signbit(vr[i]))) bad++; /* relu(-1) = +0 */
                if (k == 2 && !isnan(vr[i])) bad++;
                if (k == 3 && vr[i] != 2) bad++;
                if (k == 0 && !(vg[i] == 0 && !signbit(vg[i]))) bad++; /* gelu(-0) = +0 */
                if (k == 0 && !(vt[i] == 0 && signbit(vt[i]))) bad++;  /* tanh form: -0 (torch) */
                if (k == 2 && (!isnan(vg[i]) || !isnan(vt[i]))) bad++;
                if (k == 4 && !(vg[i] == 0 && signbit(vg[i]))) bad++; /* underflow: -0 */
            }
            CHECK_MSG(bad == 0, "%s strided %d: %d wrong", ct_dtype_name(dt), strided, bad);
            free(vr), free(vg), free(vt);
            ct_tensor_release(x), ct_tensor_release(r), ct_tensor_release(g), ct_tensor_release(gt);
        }
}

/* Distance in units in the last place of float between got and the exact value ref. */
static double ulps_f32(float got, long double ref) {
    if (isnan(got) || isnan((double)ref)) return isnan(got) && isnan((double)ref) ? 0 : 1e30;
    float r = (float)ref;
    if (isinf(r) || isinf(got)) return got == r ? 0 : 1e30;
    float up = nextafterf(fabsf(r), INFINITY);
    long double ulp = (long double)up - (long double)fabsf(r);
    if (ulp == 0 || !isfinite((double)ulp)) ulp = 0x1p-149L;
    return (double)(fabsl((long double)got - ref) / ulp);
}

/* Worst distance in ulp of ct_gelu(approx) from ref over every 2053rd f32 bit pattern of each sign
 * (about 2 M values, all exponents); the value count and the worst x come back too. */
static double gelu_f32_sweep(ct_gelu_approx approx, long double (*ref)(long double), int64_t *count,
                             float *worst_x) {
    const uint32_t step = 2053;
    int64_t n = 0;
    for (int sign = 0; sign < 2; sign++)
        for (uint64_t u = 0; u < 0x7f800000u; u += step)
            n++;
    float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
    int64_t k = 0;
    for (int sign = 0; sign < 2; sign++)
        for (uint64_t u = 0; u < 0x7f800000u; u += step) {
            uint32_t b = (uint32_t)u | (sign ? 0x80000000u : 0);
            memcpy(&x[k++], &b, 4);
        }
    ct_tensor *tx = mk(CT_FLOAT32, n, x, 0), *ty = NULL;
    CHECK_OK(ct_gelu(ctx, tx, approx, &ty));
    CHECK(rd(ty, y, (size_t)n * 4));
    double worst = 0;
    *worst_x = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = ulps_f32(y[i], ref(x[i]));
        if (e > worst) worst = e, *worst_x = x[i];
    }
    *count = n;
    free(x), free(y);
    ct_tensor_release(tx), ct_tensor_release(ty);
    return worst;
}

/* Worst ulp of ct_gelu(approx) in f64 on [lo, hi] (20011 points) against ref; results below the
 * normal range go to *sub_worst as an absolute error instead. */
static double gelu_f64_sweep(ct_gelu_approx approx, long double (*ref)(long double), double lo,
                             double hi, double *worst_x, double *sub_worst) {
    enum { M = 20011 };
    static double xd[M], yd[M];
    for (int i = 0; i < M; i++)
        xd[i] = lo + (hi - lo) * i / (M - 1) + 1e-7 * (i % 7);
    ct_tensor *t = mk(CT_FLOAT64, M, xd, 0), *r = NULL;
    CHECK_OK(ct_gelu(ctx, t, approx, &r));
    CHECK(rd(r, yd, sizeof yd));
    double w64 = 0;
    *worst_x = 0, *sub_worst = 0;
    for (int i = 0; i < M; i++) {
        long double rv = ref(xd[i]);
        if (rv == 0) continue;
        double err = (double)fabsl((long double)yd[i] - rv);
        if (fabsl(rv) < 0x1p-1022L) {
            *sub_worst = err > *sub_worst ? err : *sub_worst;
            continue;
        }
        double e = err / ldexp(1.0, ilogb((double)rv) - 52);
        if (e > w64) w64 = e, *worst_x = xd[i];
    }
    ct_tensor_release(t), ct_tensor_release(r);
    return w64;
}

static long double gelu_erf_ref(long double x) {
    return 0.5L * x * erfcl(-x * 0.70710678118654752440084436210484903928L);
}

/* Exact gelu, tanh form, in long double: 0.5 x (1 + tanh u) directly where u >= 0 (no
 * cancellation), and as x e^2u / (1 + e^2u) where u < 0 (the same function; 1 + tanh u cancels). */
static long double gelu_tanh_ref(long double x) {
    long double u = 0.797884560802865355879892119868763737L * (x + 0.044715L * x * x * x);
    if (u >= 0) return 0.5L * x * (1.0L + tanhl(u));
    long double e = expl(2.0L * u);
    return x * e / (1.0L + e);
}

/* ---- gelu (tanh form) within 1 ulp of the exact value over the whole f32 range (torch 1.13
 * computes 0.5 x (1 + tanh u) in f32: 33 ulp off at x = -2.5, 4354 at -4, -0.0 at -6) ---- */
TEST(gelu_tanh_accuracy) {
    /* exact values (Python Decimal, 50 digits) where 1 + tanh(u) cancels */
    const struct {
        float x;
        double y;
    } tab[4] = {{-2.5f, -0.015084266089998582},
                {-4.0f, -7.024594819237268e-05},
                {-6.0f, -8.439646700762297e-11},
                {-9.5f, -6.678928766783882e-33}};
    float tx[4], ty[4];
    for (int i = 0; i < 4; i++)
        tx[i] = tab[i].x;
    ct_tensor *t4 = mk(CT_FLOAT32, 4, tx, 0), *r4 = NULL;
    CHECK_OK(ct_gelu(ctx, t4, CT_GELU_TANH, &r4));
    CHECK(rd(r4, ty, sizeof ty));
    for (int i = 0; i < 4; i++)
        CHECK_MSG(ulps_f32(ty[i], tab[i].y) <= 1, "gelu tanh(%g) = %.9g, exact %.17g", tab[i].x,
                  ty[i], tab[i].y);
    ct_tensor_release(t4), ct_tensor_release(r4);
    /* -inf: 0.5 x (1 + tanh u) is -inf * 0 = NaN, as torch's formula (and the reference's) */
    int64_t n = 0;
    float worst_x = 0;
    double worst = gelu_f32_sweep(CT_GELU_TANH, gelu_tanh_ref, &n, &worst_x);
    CHECK_MSG(worst <= 1, "gelu tanh f32: worst %.2f ulp at x = %.9g", worst, worst_x);
    printf("  gelu tanh f32: worst %.3f ulp over %lld values (x = %.9g)\n", worst, (long long)n,
           worst_x);
    /* f64 on [-20, 8] (results down to 1e-261): within 2 ulp */
    double wx = 0, sub = 0, w64 = gelu_f64_sweep(CT_GELU_TANH, gelu_tanh_ref, -20, 8, &wx, &sub);
    CHECK_MSG(w64 <= 2 && sub == 0, "gelu tanh f64: worst %.2f ulp at x = %.17g", w64, wx);
    printf("  gelu tanh f64: worst %.3f ulp on [-20, 8] (x = %.17g)\n", w64, wx);
}

/* ---- gelu (erf form) within 4 ulp of the exact value over the whole f32 range ---- */
TEST(gelu_accuracy_f32_sweep) {
    int64_t n = 0;
    float worst_x = 0;
    double worst = gelu_f32_sweep(CT_GELU_ERF, gelu_erf_ref, &n, &worst_x);
    CHECK_MSG(worst <= 4, "gelu f32: worst %.2f ulp at x = %.9g", worst, worst_x);
    printf("  gelu f32: worst %.3f ulp over %lld values (x = %.9g)\n", worst, (long long)n,
           worst_x);
    /* f64 on [-38, 8]: within 4 ulp of a long double reference; subnormal results (x < -37.5:
     * erfc itself is subnormal there) within a documented absolute bound */
    double wx = 0, sub_worst = 0;
    double w64 = gelu_f64_sweep(CT_GELU_ERF, gelu_erf_ref, -38, 8, &wx, &sub_worst);
    CHECK_MSG(w64 <= 4, "gelu f64: worst %.2f ulp at x = %.17g", w64, wx);
    CHECK_MSG(sub_worst <= 32 * 0x1p-1074, "gelu f64 subnormal tail: error %g", sub_worst);
    printf("  gelu f64: worst %.3f ulp on [-38, 8] (x = %.17g), subnormal tail %g ulp\n", w64, wx,
           sub_worst / 0x1p-1074);
}

/* ---- layer_norm: a constant f64 row has an exact mean (eps = 0 gives NaN, as torch) ---- */
TEST(layer_norm_constant_rows) {
    const double cs[4] = {0.1, 1.0 / 3.0, -7.77, 1e10 + 0.3};
    for (int k = 0; k < 4; k++) {
        double v[2 * 7];
        for (int i = 0; i < 14; i++)
            v[i] = cs[k];
        int64_t sh[2] = {2, 7};
        ct_tensor *x = NULL, *r0 = NULL, *r1 = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT64, 2, sh, &x));
        CHECK_OK(ct_layer_norm(ctx, x, 1, NULL, NULL, 0.0, &r0));
        CHECK_OK(ct_layer_norm(ctx, x, 1, NULL, NULL, 1e-5, &r1));
        double o0[14], o1[14];
        CHECK(rd(r0, o0, sizeof o0) && rd(r1, o1, sizeof o1));
        int bad = 0;
        for (int i = 0; i < 14; i++)
            bad += !isnan(o0[i]) + (o1[i] != 0);
        CHECK_MSG(bad == 0, "constant %.17g: %d wrong (first %g %g)", cs[k], bad, o0[0], o1[0]);
        ct_tensor_release(x), ct_tensor_release(r0), ct_tensor_release(r1);
    }
    /* bf16 stays accurate: within one bf16 rounding of the double result */
    enum { R = 5, C = 301 };
    static uint16_t xb[R * C], ob[R * C];
    for (int i = 0; i < R * C; i++) {
        float f = 100.0f + rnd_f32(); /* a large mean: cancellation-prone */
        uint32_t u = f2u(f);
        xb[i] = (uint16_t)(u >> 16);
    }
    int64_t sh[2] = {R, C};
    ct_tensor *x = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xb, CT_BFLOAT16, 2, sh, &x));
    CHECK_OK(ct_layer_norm(ctx, x, 1, NULL, NULL, 1e-5, &r));
    CHECK(rd(r, ob, sizeof ob));
    double worst = 0;
    for (int rr = 0; rr < R; rr++) {
        double m = 0, var = 0, xv[C];
        for (int c = 0; c < C; c++) {
            uint32_t u = (uint32_t)xb[rr * C + c] << 16;
            float f;
            memcpy(&f, &u, 4);
            xv[c] = f;
            m += f;
        }
        m /= C;
        for (int c = 0; c < C; c++)
            var += (xv[c] - m) * (xv[c] - m);
        var /= C;
        for (int c = 0; c < C; c++) {
            double ref = (xv[c] - m) / sqrt(var + 1e-5);
            uint32_t u = (uint32_t)ob[rr * C + c] << 16;
            float g;
            memcpy(&g, &u, 4);
            /* bf16 ulp at ref: 2^(exponent - 7) */
            double e = fabs(g - ref) / ldexp(1.0, ilogb(ref) - 7);
            if (e > worst) worst = e;
        }
    }
    CHECK_MSG(worst <= 0.5 + 1e-3, "bf16 layer_norm: %.3f bf16 ulp from the exact value", worst);
    ct_tensor_release(x), ct_tensor_release(r);
}

/* ---- result dtypes ---- */
TEST(result_dtypes) {
    int32_t iv[3] = {-3, 0, 5};
    uint8_t bv[2] = {1, 0};
    ct_tensor *ti = mk(CT_INT32, 3, iv, 0), *tb = mk(CT_BOOL, 2, bv, 0), *r = NULL;
    double half = 0.5, inf = INFINITY, ninf = -INFINITY, nan_ = NAN, zero = 0, one = 1;
    /* clamp(int32, 0.5) / (inf) / (max=-inf) / (nan) -> float32 (torch.clamp) */
    CHECK_OK(ct_clamp(ctx, ti, &half, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    double *v = tu_read(r);
    CHECK(v[0] == 0.5 && v[1] == 0.5 && v[2] == 5);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_clamp(ctx, ti, &inf, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    v = tu_read(r);
    CHECK(isinf(v[0]) && isinf(v[2]) && v[0] > 0);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_clamp(ctx, ti, NULL, &ninf, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    v = tu_read(r);
    CHECK(isinf(v[1]) && v[1] < 0);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_clamp(ctx, ti, &nan_, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    v = tu_read(r);
    CHECK(v[0] == -3 && v[2] == 5); /* torch keeps x for a NaN bound */
    free(v), ct_tensor_release(r);
    /* integral bounds keep int32; clamp(bool, 0, 1) -> int64; clamp(bool, 0.5) -> float32 */
    CHECK_OK(ct_clamp(ctx, ti, &zero, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT32);
    ct_tensor_release(r);
    CHECK_OK(ct_clamp(ctx, tb, &zero, &one, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT64);
    v = tu_read(r);
    CHECK(v[0] == 1 && v[1] == 0);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_clamp(ctx, tb, &half, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    v = tu_read(r);
    CHECK(v[0] == 1 && v[1] == 0.5);
    free(v), ct_tensor_release(r);
    /* pow(bool, 2) -> int64, pow(bool, 2.5) -> float32, pow(int32, 2.5) -> float32 */
    CHECK_OK(ct_pow(ctx, tb, 2, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT64);
    v = tu_read(r);
    CHECK(v[0] == 1 && v[1] == 0);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_pow(ctx, tb, 2.5, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    CHECK_OK(ct_pow(ctx, ti, 0.5, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    v = tu_read(r);
    CHECK(isnan(v[0]) && v[1] == 0 && fabs(v[2] - sqrt(5.0)) < 1e-6);
    free(v), ct_tensor_release(r);
    CHECK_OK(ct_pow(ctx, ti, 3, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT32);
    ct_tensor_release(r);
    CHECK_ST(ct_pow(ctx, tb, -1, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(ti), ct_tensor_release(tb);
}

/* ---- errors torch raises ---- */
TEST(errors_as_torch) {
    int32_t iv[3] = {1, 4, 9};
    uint8_t bv[3] = {1, 0, 1};
    float fv[3] = {1, 2, 3};
    int8_t i8v[3] = {1, 4, 9};
    ct_tensor *ti = mk(CT_INT32, 3, iv, 0), *tb = mk(CT_BOOL, 3, bv, 0),
              *tf = mk(CT_FLOAT32, 3, fv, 0), *t8 = mk(CT_INT8, 3, i8v, 0), *r = NULL;
    CHECK_ST(ct_sub(ctx, tb, tb, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_sub(ctx, ti, tb, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_sub(ctx, tb, ti, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_sub(ctx, tf, tb, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_sub_scalar(ctx, tb, 1, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_sub_scaled(ctx, tf, tb, 2.0, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_abs(ctx, tb, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_gelu(ctx, ti, CT_GELU_ERF, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_gelu(ctx, tb, CT_GELU_TANH, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_relu(ctx, tb, &r), CT_ERR_DTYPE);
    /* clamp(int8, -1000, 1000): the bound cannot be converted to int8 */
    double lo = -1000, hi = 1000, h127 = 127, h128 = 128, lm128 = -128;
    CHECK_ST(ct_clamp(ctx, t8, &lo, &hi, &r), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "1000") != NULL);
    CHECK_ST(ct_clamp(ctx, t8, NULL, &h128, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_clamp(ctx, t8, &lm128, &h127, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT8);
    ct_tensor_release(r);
    /* uint8 accepts -255..255, negatives wrapping (c10's overflow check): clamp(u8, -1) = 255 */
    uint8_t u8v[2] = {1, 200};
    ct_tensor *tu = mk(CT_UINT8, 2, u8v, 0);
    double m1 = -1, m256 = -256;
    CHECK_OK(ct_clamp(ctx, tu, &m1, NULL, &r));
    double *v = tu_read(r);
    CHECK(v[0] == 255 && v[1] == 255 && ct_tensor_dtype(r) == CT_UINT8);
    free(v), ct_tensor_release(r);
    CHECK_ST(ct_clamp(ctx, tu, &m256, NULL, &r), CT_ERR_INVALID_ARG);
    int64_t i64v[1] = {1};
    ct_tensor *t64 = mk(CT_INT64, 1, i64v, 0);
    /* 2^63 is not an int64 value, so it acts as a float bound: float32 result */
    double p63 = 9223372036854775808.0, m63 = -9223372036854775808.0;
    CHECK_OK(ct_clamp(ctx, t64, &p63, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_FLOAT32);
    ct_tensor_release(r);
    CHECK_OK(ct_clamp(ctx, t64, &m63, NULL, &r));
    CHECK(ct_tensor_dtype(r) == CT_INT64);
    v = tu_read(r);
    CHECK(v[0] == 1);
    free(v), ct_tensor_release(r);
    ct_tensor *all[] = {ti, tb, tf, t8, tu, t64};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(all[i]);
}

/* ---- integer matmul: exact, wrapping accumulation ---- */
TEST(integer_matmul) {
    /* int8: [[100, 2]] @ [[100], [6]] = 10012 wraps to 28 (torch) */
    int8_t a8[2] = {100, 2}, b8[2] = {100, 6};
    int64_t sa[2] = {1, 2}, sb[2] = {2, 1};
    ct_tensor *a = NULL, *b = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, a8, CT_INT8, 2, sa, &a));
    CHECK_OK(ct_tensor_from_host(ctx, b8, CT_INT8, 2, sb, &b));
    CHECK_OK(ct_matmul(ctx, a, b, &r));
    int8_t o8 = 0;
    CHECK(rd(r, &o8, 1) && o8 == 28 && ct_tensor_dtype(r) == CT_INT8);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(r);
    /* batched int64 / int32 / uint8 with batch broadcasting and a transposed operand */
    const ct_dtype dts[4] = {CT_INT64, CT_INT32, CT_INT16, CT_UINT8};
    for (int di = 0; di < 4; di++) {
        ct_dtype dt = dts[di];
        enum { B = 3, M = 4, K = 33, N = 5 };
        static int64_t av[B * M * K], bv[K * N];
        char abuf[B * M * K * 8], bbuf[K * N * 8];
        for (int i = 0; i < B * M * K; i++) {
            av[i] = (int64_t)(ct_t_rng_next(&rng) % 2000001) - 1000000;
            if (dt == CT_INT64) av[i] *= 1000003; /* large enough to wrap */
        }
        for (int i = 0; i < K * N; i++)
            bv[i] = (int64_t)(ct_t_rng_next(&rng) % 2000001) - 1000000;
        size_t sz = ct_dtype_size(dt);
        for (int i = 0; i < B * M * K; i++) {
            uint64_t u = (uint64_t)av[i];
            memcpy(abuf + (size_t)i * sz, &u, sz); /* little-endian truncation = wrap */
        }
        for (int i = 0; i < K * N; i++) {
            uint64_t u = (uint64_t)bv[i];
            memcpy(bbuf + (size_t)i * sz, &u, sz);
        }
        int64_t s3[3] = {B, M, K}, s2[2] = {N, K};
        ct_tensor *bt = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, abuf, dt, 3, s3, &a));
        /* b given as (N, K) and transposed: a non-contiguous operand */
        char btbuf[K * N * 8];
        for (int k = 0; k < K; k++)
            for (int n = 0; n < N; n++)
                memcpy(btbuf + (size_t)(n * K + k) * sz, bbuf + (size_t)(k * N + n) * sz, sz);
        CHECK_OK(ct_tensor_from_host(ctx, btbuf, dt, 2, s2, &bt));
        CHECK_OK(ct_tensor_transpose(ctx, bt, 0, 1, &b));
        CHECK_OK(ct_matmul(ctx, a, b, &r));
        CHECK(r && ct_tensor_dtype(r) == dt && ct_tensor_numel(r) == B * M * N);
        char o[B * M * N * 8];
        CHECK(rd(r, o, B * M * N * sz));
        int bad = 0;
        for (int bi = 0; bi < B; bi++)
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    uint64_t acc = 0;
                    for (int k = 0; k < K; k++) {
                        /* operands as stored (wrapped to the dtype), products modulo 2^64 */
                        int64_t x = 0, y = 0;
                        uint64_t ux = 0, uy = 0;
                        memcpy(&ux, abuf + (size_t)((bi * M + i) * K + k) * sz, sz);
                        memcpy(&uy, bbuf + (size_t)(k * N + j) * sz, sz);
                        int sh = 64 - 8 * (int)sz;
                        x = dt == CT_UINT8 ? (int64_t)ux : (int64_t)(ux << sh) >> sh;
                        y = dt == CT_UINT8 ? (int64_t)uy : (int64_t)(uy << sh) >> sh;
                        acc += (uint64_t)x * (uint64_t)y;
                    }
                    if (memcmp(o + (size_t)((bi * M + i) * N + j) * sz, &acc, sz) != 0) bad++;
                }
        CHECK_MSG(bad == 0, "%s matmul: %d wrong", ct_dtype_name(dt), bad);
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(bt), ct_tensor_release(r);
    }
    /* mixed integer dtypes and bool are errors (torch) */
    int32_t i32[2] = {1, 2};
    uint8_t bb[2] = {1, 1};
    ct_tensor *x = mk(CT_INT32, 2, i32, 0), *y = mk(CT_INT8, 2, a8, 0), *z = mk(CT_BOOL, 2, bb, 0);
    CHECK_ST(ct_matmul(ctx, x, y, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_matmul(ctx, z, z, &r), CT_ERR_DTYPE);
    CHECK_OK(ct_matmul(ctx, x, x, &r)); /* 1-d . 1-d -> 0-d int32 = 5 */
    int32_t dot = 0;
    CHECK(rd(r, &dot, 4) && dot == 5 && ct_tensor_ndim(r) == 0);
    ct_tensor_release(r);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z);
}

/* ---- scalar operands: wrapped-number promotion ---- */
typedef ct_status (*scal_fn)(ct_ctx *, const ct_tensor *, double, ct_tensor **);
static void check_scalar(scal_fn fn, const ct_tensor *a, double v, ct_dtype want_dt,
                         const double *want, int n, const char *what) {
    ct_tensor *r = NULL;
    ct_status st = fn(ctx, a, v, &r);
    CHECK_MSG(st == CT_OK, "%s: status %d (%s)", what, st, ct_ctx_last_error(ctx));
    if (st != CT_OK) return;
    CHECK_MSG(ct_tensor_dtype(r) == want_dt, "%s: dtype %s, want %s", what,
              ct_dtype_name(ct_tensor_dtype(r)), ct_dtype_name(want_dt));
    double *o = tu_read(r);
    for (int i = 0; i < n; i++)
        CHECK_MSG(o[i] == want[i] || (isnan(o[i]) && isnan(want[i])), "%s[%d] = %g, want %g", what,
                  i, o[i], want[i]);
    free(o);
    ct_tensor_release(r);
}
TEST(scalar_variants) {
    int32_t iv[3] = {-3, 0, 5};
    uint8_t bv[2] = {1, 0};
    int8_t i8v[3] = {1, 4, 9};
    uint16_t hv[1] = {0x3c00}; /* 1.0 in f16 */
    ct_tensor *ti = mk(CT_INT32, 3, iv, 1), *tb = mk(CT_BOOL, 2, bv, 0),
              *t8 = mk(CT_INT8, 3, i8v, 0), *th = mk(CT_FLOAT16, 1, hv, 0);
    check_scalar(ct_add_scalar, ti, 2.5, CT_FLOAT32, (double[]){-0.5, 2.5, 7.5}, 3, "i32+2.5");
    check_scalar(ct_add_scalar, ti, 2, CT_INT32, (double[]){-1, 2, 7}, 3, "i32+2");
    check_scalar(ct_add_scalar, tb, 2, CT_INT64, (double[]){3, 2}, 2, "bool+2");
    check_scalar(ct_add_scalar, tb, 2.5, CT_FLOAT32, (double[]){3.5, 2.5}, 2, "bool+2.5");
    check_scalar(ct_add_scalar, t8, 1000, CT_INT8, (double[]){-23, -20, -15}, 3, "i8+1000");
    check_scalar(ct_add_scalar, th, 1e6, CT_FLOAT16, (double[]){INFINITY}, 1, "f16+1e6");
    check_scalar(ct_sub_scalar, ti, 0.5, CT_FLOAT32, (double[]){-3.5, -0.5, 4.5}, 3, "i32-0.5");
    check_scalar(ct_mul_scalar, ti, -2, CT_INT32, (double[]){6, 0, -10}, 3, "i32*-2");
    check_scalar(ct_mul_scalar, tb, 3, CT_INT64, (double[]){3, 0}, 2, "bool*3");
    check_scalar(ct_div_scalar, ti, 2, CT_FLOAT32, (double[]){-1.5, 0, 2.5}, 3, "i32/2");
    check_scalar(ct_eq_scalar, ti, 5, CT_BOOL, (double[]){0, 0, 1}, 3, "i32==5");
    check_scalar(ct_eq_scalar, ti, 5.5, CT_BOOL, (double[]){0, 0, 0}, 3, "i32==5.5");
    check_scalar(ct_ne_scalar, ti, 0, CT_BOOL, (double[]){1, 0, 1}, 3, "i32!=0");
    check_scalar(ct_lt_scalar, tb, 0.5, CT_BOOL, (double[]){0, 1}, 2, "bool<0.5");
    check_scalar(ct_le_scalar, ti, -0.5, CT_BOOL, (double[]){1, 0, 0}, 3, "i32<=-0.5");
    check_scalar(ct_gt_scalar, t8, 1000, CT_BOOL, (double[]){1, 1, 1}, 3, "i8>1000 (wraps)");
    check_scalar(ct_ge_scalar, ti, 0, CT_BOOL, (double[]){0, 1, 1}, 3, "i32>=0");
    ct_tensor_release(ti), ct_tensor_release(tb), ct_tensor_release(t8), ct_tensor_release(th);
    /* f16/bf16 op a Python float: the scalar is rounded to the tensor's dtype first (torch) */
    const ct_dtype hd[2] = {CT_FLOAT16, CT_BFLOAT16};
    const uint16_t *in[2] = {FG_SCAL_A_f16, FG_SCAL_A_bf16},
                   *add[2] = {FG_SCAL_ADD_f16, FG_SCAL_ADD_bf16},
                   *mul[2] = {FG_SCAL_MUL_f16, FG_SCAL_MUL_bf16};
    for (int k = 0; k < 2; k++) {
        ct_tensor *a = mk(hd[k], 96, in[k], k), *r1 = NULL, *r2 = NULL;
        CHECK_OK(ct_add_scalar(ctx, a, 0.1, &r1));
        CHECK_OK(ct_mul_scalar(ctx, a, 1.7, &r2));
        uint16_t o1[96], o2[96];
        CHECK(rd(r1, o1, sizeof o1) && rd(r2, o2, sizeof o2));
        int bad = 0;
        for (int i = 0; i < 96; i++)
            bad += (o1[i] != add[k][i]) + (o2[i] != mul[k][i]);
        CHECK_MSG(bad == 0, "%s op scalar: %d differ from torch", ct_dtype_name(hd[k]), bad);
        ct_tensor_release(a), ct_tensor_release(r1), ct_tensor_release(r2);
    }
}

/* ---- the whole promotion/error table of tensor-op-scalar against torch's ---- */
TEST(scalar_promotion_table_golden) {
    static const ct_dtype dts[10] = {CT_BOOL,  CT_UINT8,   CT_INT8,     CT_INT16,   CT_INT32,
                                     CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
    static const char *ops[12] = {"add",       "sub",       "mul", "div",  "eq",   "lt",
                                  "clamp_min", "clamp_max", "pow", "add_", "mul_", "div_"};
    int checked = 0;
    for (int di = 0; di < 10; di++)
        for (int si = 0; si < 5; si++) {
            double sc = FG_PROMO_SCALARS[si];
            for (int oi = 0; oi < 12; oi++) {
                int want = FG_PROMO[di][si][oi];
                if (want == -2) continue; /* torch has no kernel for this dtype */
                char buf[3 * 8];
                for (int i = 0; i < 3; i++)
                    tu_set(buf, dts[di], i, i != 1);
                ct_tensor *t = mk(dts[di], 3, buf, 0), *r = NULL;
                ct_status st;
                switch (oi) {
                case 0: st = ct_add_scalar(ctx, t, sc, &r); break;
                case 1: st = ct_sub_scalar(ctx, t, sc, &r); break;
                case 2: st = ct_mul_scalar(ctx, t, sc, &r); break;
                case 3: st = ct_div_scalar(ctx, t, sc, &r); break;
                case 4: st = ct_eq_scalar(ctx, t, sc, &r); break;
                case 5: st = ct_lt_scalar(ctx, t, sc, &r); break;
                case 6: st = ct_clamp(ctx, t, &sc, NULL, &r); break;
                case 7: st = ct_clamp(ctx, t, NULL, &sc, &r); break;
                case 8: st = ct_pow(ctx, t, sc, &r); break;
                case 9: st = ct_add_scalar_(ctx, t, sc); break;
                case 10: st = ct_mul_scalar_(ctx, t, sc); break;
                default: st = ct_div_scalar_(ctx, t, sc); break;
                }
                int got = st != CT_OK ? -1
                          : oi >= 9   ? (int)ct_tensor_dtype(t)
                                      : (int)ct_tensor_dtype(r);
                CHECK_MSG(got == want, "%s %s %g: got %s (status %d), torch %s",
                          ct_dtype_name(dts[di]), ops[oi], sc,
                          got < 0 ? "error" : ct_dtype_name((ct_dtype)got), (int)st,
                          want < 0 ? "error" : ct_dtype_name((ct_dtype)want));
                ct_tensor_release(t), ct_tensor_release(r);
                checked++;
            }
        }
    CHECK(checked > 550);
}

/* ---- in place: the result dtype must cast to self's ---- */
TEST(inplace_variants) {
    int32_t iv[3] = {-3, 0, 5};
    float fv[3] = {0.5f, 1.5f, 2.5f};
    uint8_t bv[3] = {1, 0, 1};
    ct_tensor *ti = mk(CT_INT32, 3, iv, 0), *tf = mk(CT_FLOAT32, 3, fv, 0),
              *tb = mk(CT_BOOL, 3, bv, 0);
    CHECK_ST(ct_add_scalar_(ctx, ti, 2.5), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "can't be cast") != NULL);
    CHECK_ST(ct_add_(ctx, ti, tf), CT_ERR_DTYPE);
    CHECK_ST(ct_div_scalar_(ctx, ti, 2), CT_ERR_DTYPE);
    CHECK_ST(ct_div_(ctx, ti, ti), CT_ERR_DTYPE);
    CHECK_ST(ct_add_scalar_(ctx, tb, 1), CT_ERR_DTYPE);
    CHECK_ST(ct_sub_(ctx, ti, tb), CT_ERR_DTYPE);
    CHECK_OK(ct_mul_scalar_(ctx, ti, 2));
    CHECK_OK(ct_sub_scalar_(ctx, ti, 1));
    CHECK_OK(ct_add_(ctx, ti, ti));
    double *v = tu_read(ti);
    CHECK(v[0] == -14 && v[1] == -2 && v[2] == 18 && ct_tensor_dtype(ti) == CT_INT32);
    free(v);
    /* float self with an int64 / float64 other: computed in the promoted dtype, cast back */
    int64_t lv[3] = {1, 2, 3};
    double dv[1] = {0.1};
    ct_tensor *tl = mk(CT_INT64, 3, lv, 0), *td = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, dv, CT_FLOAT64, 0, NULL, &td));
    CHECK_OK(ct_mul_(ctx, tf, tl));
    CHECK_OK(ct_add_(ctx, tf, td));
    CHECK_OK(ct_div_scalar_(ctx, tf, 4));
    v = tu_read(tf);
    CHECK(ct_tensor_dtype(tf) == CT_FLOAT32);
    for (int i = 0; i < 3; i++) {
        float want = (float)((double)(fv[i] * (float)lv[i]) + 0.1) / 4.0f;
        CHECK_MSG((float)v[i] == want, "i=%d %g vs %g", i, v[i], (double)want);
    }
    free(v);
    /* other must broadcast to self's shape */
    float big[6] = {0};
    int64_t s23[2] = {2, 3};
    ct_tensor *t23 = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, big, CT_FLOAT32, 2, s23, &t23));
    CHECK_ST(ct_add_(ctx, tf, t23), CT_ERR_SHAPE);
    CHECK_OK(ct_add_(ctx, t23, tf));
    /* an expanded self (stride 0) cannot be written: the op names itself, self is untouched */
    ct_tensor *row = NULL, *ex = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, t23, 0, 0, 1, &row));
    CHECK_OK(ct_tensor_expand(ctx, row, 2, s23, &ex));
    float before[6], after[6];
    CHECK_OK(ct_tensor_to_host(t23, before, sizeof before));
    CHECK_ST(ct_mul_(ctx, ex, t23), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "mul_: the destination has internal overlap") != NULL);
    CHECK_ST(ct_add_scalar_(ctx, ex, 1), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_to_host(t23, after, sizeof after));
    CHECK(memcmp(before, after, sizeof before) == 0);
    ct_tensor_release(row), ct_tensor_release(ex);
    ct_tensor *all[] = {ti, tf, tb, tl, td, t23};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(all[i]);
    /* self written in place or through a copy: the same values either way, read before written */
    float xv[12], yv[12];
    for (int i = 0; i < 12; i++)
        xv[i] = (float)(i * 7 % 12) - 5.5f, yv[i] = (float)(i % 5) * 0.25f + 1;
    int64_t s34[2] = {3, 4}, s12[1] = {12};
    ct_tensor *x = NULL, *y = NULL, *xt = NULL, *lo = NULL, *hi = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 2, s34, &x));
    CHECK_OK(ct_tensor_from_host(ctx, yv, CT_FLOAT32, 2, s34, &y));
    CHECK_OK(ct_mul_(ctx, x, x)); /* the same view: squares */
    CHECK_OK(ct_sub_(ctx, x, y));
    v = tu_read(x);
    for (int i = 0; i < 12; i++)
        CHECK_MSG(v[i] == (double)(xv[i] * xv[i] - yv[i]), "x*x-y at %d: %g", i, v[i]);
    free(v);
    CHECK_OK(ct_sub_(ctx, x, x));
    v = tu_read(x);
    for (int i = 0; i < 12; i++)
        CHECK(v[i] == 0);
    free(v);
    CHECK_OK(ct_tensor_copy_(ctx, x, y));
    CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &xt)); /* a non-contiguous self */
    CHECK_OK(ct_add_scalar_(ctx, xt, 0.5));
    CHECK_OK(ct_div_scalar_(ctx, x, 2));
    v = tu_read(x);
    for (int i = 0; i < 12; i++)
        CHECK(v[i] == (double)((yv[i] + 0.5f) / 2));
    free(v);
    ct_tensor *f = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 1, s12, &f));
    CHECK_OK(ct_tensor_narrow(ctx, f, 0, 0, 11, &lo));
    CHECK_OK(ct_tensor_narrow(ctx, f, 0, 1, 11, &hi));
    CHECK_OK(ct_add_(ctx, lo, hi)); /* overlapping views: every hi element read before written */
    v = tu_read(f);
    for (int i = 0; i < 11; i++)
        CHECK_MSG(v[i] == (double)(xv[i] + xv[i + 1]), "overlap at %d: %g", i, v[i]);
    CHECK(v[11] == xv[11]);
    free(v);
    ct_tensor *more[] = {x, y, xt, lo, hi, f};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(more[i]);
}

/* ---- a dim out of range is CT_ERR_INDEX everywhere (torch's IndexError) ---- */
TEST(dim_out_of_range_is_index_error) {
    float v[6] = {0};
    int64_t sh[2] = {2, 3};
    ct_tensor *t = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 2, sh, &t));
    int d2[1] = {2}, dm3[1] = {-3};
    CHECK_ST(ct_sum(ctx, t, 1, d2, false, &r), CT_ERR_INDEX);
    CHECK_ST(ct_mean(ctx, t, 1, dm3, false, &r), CT_ERR_INDEX);
    CHECK_ST(ct_amax(ctx, t, 1, d2, true, &r), CT_ERR_INDEX);
    CHECK_ST(ct_amin(ctx, t, 1, d2, false, &r), CT_ERR_INDEX);
    CHECK_ST(ct_argmax(ctx, t, 2, false, &r), CT_ERR_INDEX);
    CHECK_ST(ct_softmax(ctx, t, 2, &r), CT_ERR_INDEX);
    CHECK_ST(ct_log_softmax(ctx, t, -3, &r), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_transpose(ctx, t, 0, 2, &r), CT_ERR_INDEX);
    int perm[2] = {0, 2};
    CHECK_ST(ct_tensor_permute(ctx, t, perm, &r), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_narrow(ctx, t, 2, 0, 1, &r), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_slice(ctx, t, -3, 0, 1, 1, &r), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_squeeze(ctx, t, 2, &r), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_unsqueeze(ctx, t, 4, &r), CT_ERR_INDEX);
    ct_tensor *s = NULL;
    float one = 1;
    CHECK_OK(ct_tensor_from_host(ctx, &one, CT_FLOAT32, 0, NULL, &s));
    CHECK_ST(ct_softmax(ctx, s, 1, &r), CT_ERR_INDEX);
    CHECK_ST(ct_sum(ctx, s, 1, d2, false, &r), CT_ERR_INDEX);
    /* a repeated dim is an argument error, not an index error */
    int rep[2] = {1, 1}, dd[2] = {0, -2};
    CHECK_ST(ct_tensor_permute(ctx, t, rep, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_sum(ctx, t, 2, dd, false, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(t), ct_tensor_release(s);
}

/* ---- where's broadcast error names the failing pair ---- */
TEST(where_broadcast_message) {
    uint8_t c[1] = {1};
    float a[3] = {0}, b[4] = {0};
    ct_tensor *tc = mk(CT_BOOL, 1, c, 0), *ta = mk(CT_FLOAT32, 3, a, 0),
              *tb = mk(CT_FLOAT32, 4, b, 0), *r = NULL;
    CHECK_ST(ct_where(ctx, tc, ta, tb, &r), CT_ERR_SHAPE);
    const char *m = ct_ctx_last_error(ctx);
    CHECK_MSG(strstr(m, "[3] (input 1)") && strstr(m, "[4] (input 2)"), "message: %s", m);
    ct_tensor_release(tc), ct_tensor_release(ta), ct_tensor_release(tb);
}

/* ---- OOM at every allocation of the new multi-step paths: CT_ERR_OOM, nothing leaks ---- */
static ct_status new_paths(ct_ctx *c) {
    ct_tensor *t[16] = {0};
    int k = 0;
    ct_status st;
    int32_t iv[6] = {1, -2, 3, 4, -5, 6};
    uint8_t bv[6] = {1, 0, 1, 1, 0, 0};
    int64_t s[2] = {2, 3}, s3[2] = {3, 2};
    double lo = 0, hi = 1, half = 0.5;
#define STEP(call)                                                                                 \
    if ((st = (call)) != CT_OK) goto done
    STEP(ct_tensor_from_host(c, iv, CT_INT32, 2, s, &t[k++]));
    STEP(ct_tensor_from_host(c, bv, CT_BOOL, 2, s, &t[k++]));
    STEP(ct_add_scalar(c, t[0], 2.5, &t[k++]));
    STEP(ct_eq_scalar(c, t[1], 1, &t[k++]));
    STEP(ct_clamp(c, t[1], &lo, &hi, &t[k++]));
    STEP(ct_clamp(c, t[0], &half, NULL, &t[k++]));
    STEP(ct_pow(c, t[1], 2, &t[k++]));
    STEP(ct_pow(c, t[0], 0.5, &t[k++]));
    STEP(ct_add_scalar_(c, t[0], 3));
    STEP(ct_mul_(c, t[2], t[0]));
    STEP(ct_addcmul(c, t[0], t[0], t[0], 2, &t[k++]));
    STEP(ct_tensor_view(c, t[0], 2, s3, &t[k++]));
    ct_tensor *v = t[k - 1];
    STEP(ct_matmul(c, t[0], v, &t[k++]));
done:
#undef STEP
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}
TEST(oom_walk_new_paths) {
    int oom_seen = 0, n;
    for (n = 0; n < 400; n++) {
        tu_fault fs = {0, n, 0, false};
        ct_ctx_options o = {.size = sizeof o, .allocator = {tu_fault_alloc, tu_fault_free, &fs}};
        ct_ctx *c = NULL;
        ct_status st = ct_ctx_create(&o, &c);
        if (st != CT_OK) {
            CHECK_ST(st, CT_ERR_OOM);
            continue;
        }
        long before = fs.live;
        st = new_paths(c);
        if (st != CT_OK) {
            oom_seen++;
            CHECK_MSG(st == CT_ERR_OOM, "n=%d: status %d (%s)", n, (int)st, ct_ctx_last_error(c));
        }
        /* debug mode (CT_DEBUG=1) keeps released tensor headers until ctx_free */
        const bool quarantine = ct_ctx_debug(c);
        CHECK_MSG(quarantine || fs.live == before, "n=%d: %ld blocks leaked", n, fs.live - before);
        fs.fail_at = -1;
        CHECK_OK(new_paths(c));
        ct_ctx_free(c);
        CHECK_MSG(fs.live == 0, "n=%d: %ld blocks live after ctx_free", n, fs.live);
        if (st == CT_OK) break;
    }
    CHECK(oom_seen > 10 && n < 400);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(add_sub_alpha_fma_f32_f64);
    RUN(add_sub_alpha_half_golden);
    RUN(addcmul_fma);
    RUN(addcmul_integer);
    RUN(ternary_broadcast_patterns);
    RUN(binary_broadcast_patterns);
    RUN(pow_special_exponents_golden);
    RUN(float_to_int_casts_golden);
    RUN(int_to_float_casts_round_once_golden);
    RUN(relu_gelu_signed_zero);
    RUN(gelu_accuracy_f32_sweep);
    RUN(gelu_tanh_accuracy);
    RUN(layer_norm_constant_rows);
    RUN(result_dtypes);
    RUN(errors_as_torch);
    RUN(integer_matmul);
    RUN(scalar_variants);
    RUN(scalar_promotion_table_golden);
    RUN(inplace_variants);
    RUN(dim_out_of_range_is_index_error);
    RUN(where_broadcast_message);
    RUN(oom_walk_new_paths);
    ct_ctx_free(ctx);
    return ct_test_end();
}

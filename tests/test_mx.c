/* Tests of low-precision casts and MX tensors. Oracles are independent of the library: element
 * values come from the format formula evaluated in double, encodings from a brute-force nearest
 * search over that table, scales from the OCP formulas. Runs once per ISA (CT_CPU_ISA). */
#include "backends/cpu/kernels/mx_kernels.h"
#include "ctorch/mx.h"
#include "harness.h"
#include "test_util.h"

#include <float.h>
#include <stdint.h>

#ifndef CT_MX_KERNEL_ONLY
#include "ctorch/tensor.h"
#endif

/* ---------------- independent oracle ---------------- */

typedef struct {
    const char *name;
    ct_dtype dt;
    int elem, ebits, mbits, bias;
    int nan_e4m3, ieee; /* E4M3: S.1111.111 is NaN; E5M2: exponent all ones = Inf/NaN */
} fmt_t;

static const fmt_t FMTS[5] = {
    {"e4m3", CT_FLOAT8_E4M3FN, CT__MXK_E4M3, 4, 3, 7, 1, 0},
    {"e5m2", CT_FLOAT8_E5M2, CT__MXK_E5M2, 5, 2, 15, 0, 1},
    {"e3m2", CT_FLOAT6_E3M2FN, CT__MXK_E3M2, 3, 2, 3, 0, 0},
    {"e2m3", CT_FLOAT6_E2M3FN, CT__MXK_E2M3, 2, 3, 1, 0, 0},
    {"e2m1", CT_FLOAT4_E2M1FN, CT__MXK_E2M1, 2, 1, 1, 0, 0},
};

/* Value of a code by the textbook formula; *kind: 0 finite, 1 inf, 2 nan. */
static double oracle_value(const fmt_t *f, unsigned code, int *kind) {
    int nb = 1 + f->ebits + f->mbits;
    unsigned s = (code >> (nb - 1)) & 1, E = (code >> f->mbits) & ((1u << f->ebits) - 1),
             M = code & ((1u << f->mbits) - 1);
    *kind = 0;
    if (f->nan_e4m3 && E == 15 && M == 7) *kind = 2;
    if (f->ieee && E == 31) *kind = M ? 2 : 1;
    double v = E == 0 ? (double)M / (1 << f->mbits) * pow(2.0, 1 - f->bias)
                      : (1.0 + (double)M / (1 << f->mbits)) * pow(2.0, (double)E - f->bias);
    return s ? -v : v;
}

typedef struct {
    double vals[128]; /* positive finite values, index = magnitude code */
    int n;            /* number of positive finite codes */
    double next;      /* the value one code above max in an unbounded format */
} table_t;

static void build_table(const fmt_t *f, table_t *t) {
    int kind;
    t->n = 0;
    for (unsigned c = 0; c < (1u << (f->ebits + f->mbits)); c++) {
        double v = oracle_value(f, c, &kind);
        if (kind) break;
        t->vals[t->n++] = v;
    }
    /* one more code under the formula, ignoring special encodings */
    unsigned c = (unsigned)t->n;
    unsigned E = c >> f->mbits, M = c & ((1u << f->mbits) - 1);
    t->next = (1.0 + (double)M / (1 << f->mbits)) * pow(2.0, (double)E - f->bias);
}

/* Expected code of x. NaN -> E4M3 0x7F / E5M2 0x7E / FP6,FP4 max (sign kept);
 * overflow per mode (see docs/mx.md). */
static unsigned oracle_encode(const fmt_t *f, const table_t *t, float x, int sat) {
    int nb = 1 + f->ebits + f->mbits;
    unsigned sgn = signbit(x) ? 1u << (nb - 1) : 0;
    unsigned maxc = (unsigned)t->n - 1;
    unsigned ovf = sat ? maxc : f->nan_e4m3 ? 0x7F : f->ieee ? 0x7C : maxc;
    if (isnan(x)) return sgn | (f->nan_e4m3 ? 0x7F : f->ieee ? 0x7E : maxc);
    if (isinf(x)) return sgn | (f->nan_e4m3 ? 0x7F : f->ieee ? 0x7C : maxc);
    double ax = fabs((double)x);
    double mx = t->vals[maxc];
    if (ax >= mx) {
        double mid = (mx + t->next) / 2;
        if (ax < mid || (ax == mid && (maxc & 1) == 0)) return sgn | maxc;
        return sgn | ovf;
    }
    int lo = 0, hi = (int)maxc; /* vals[lo] <= ax < vals[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (t->vals[mid] <= ax)
            lo = mid;
        else
            hi = mid;
    }
    double dl = ax - t->vals[lo], dh = t->vals[hi] - ax;
    unsigned c = dl < dh   ? (unsigned)lo
                 : dh < dl ? (unsigned)hi
                           : ((lo & 1) ? (unsigned)hi : (unsigned)lo);
    return sgn | c;
}

static int g_isa = -1; /* the ISA this run tests, from tu_isa_gate() */

/* Kernel table of the ISA under test (the gate has skipped the run if the CPU lacks it). */
static const ct__mxk_ops *cur_ops(void) {
    return g_isa == 2 ? &ct__mxk_ops_avx512 : g_isa == 1 ? &ct__mxk_ops_avx2 : &ct__mxk_ops_ref;
}

static int same_float(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* ---------------- element casts ---------------- */

TEST(decode_every_code) {
    float out[256], out2[256];
    uint8_t codes[256];
    for (int i = 0; i < 256; i++)
        codes[i] = (uint8_t)i;
    for (int fi = 0; fi < 5; fi++) {
        const fmt_t *f = &FMTS[fi];
        int nc = 1 << (1 + f->ebits + f->mbits);
        CHECK_OK(ct_cast_to_f32(f->dt, codes, out, 256));
        cur_ops()->decode(f->elem, codes, out2, 256);
        for (int c = 0; c < 256; c++) {
            int kind;
            double v = oracle_value(f, (unsigned)(c & (nc - 1)), &kind); /* high bits ignored */
            float want = kind == 2 ? NAN : kind == 1 ? (v < 0 ? -INFINITY : INFINITY) : (float)v;
            CHECK_MSG(same_float(out[c], want), "%s code 0x%02x: got %g want %g", f->name, c,
                      out[c], want);
            CHECK_MSG(same_float(out2[c], want), "%s kernel code 0x%02x", f->name, c);
            if (kind == 0) CHECK((double)want == v); /* the table itself is exact in f32 */
        }
    }
    /* E8M0: 2^(c-127), 0xFF NaN */
    CHECK_OK(ct_cast_to_f32(CT_FLOAT8_E8M0FNU, codes, out, 256));
    for (int c = 0; c < 255; c++)
        CHECK_MSG(out[c] == (float)pow(2.0, c - 127), "e8m0 %d", c);
    CHECK(isnan(out[255]));
    /* odd sizes through the vector tails */
    for (size_t n = 0; n < 40; n++) {
        float o[40];
        CHECK_OK(ct_cast_to_f32(CT_FLOAT8_E4M3FN, codes + 3, o, n));
        for (size_t i = 0; i < n; i++)
            CHECK(same_float(o[i], ct__mxk_dec1(CT__MXK_E4M3, codes[3 + i])));
    }
}

/* Every midpoint between adjacent values, +-1 ulp around it, every value +-1 ulp, overflow points.
 */
TEST(encode_midpoints_bruteforce) {
    for (int fi = 0; fi < 5; fi++) {
        const fmt_t *f = &FMTS[fi];
        table_t t;
        build_table(f, &t);
        float pts[4096];
        int np = 0;
        double allv[130];
        int na = 0;
        for (int i = 0; i < t.n; i++)
            allv[na++] = t.vals[i];
        allv[na++] = t.next;
        allv[na++] = t.next * 2;
        for (int i = 0; i < na; i++) {
            float v = (float)allv[i];
            float cand[6] = {v, nextafterf(v, INFINITY), nextafterf(v, 0), 0, 0, 0};
            int nc = 3;
            if (i + 1 < na) {
                float m = (float)((allv[i] + allv[i + 1]) / 2); /* exact: few bits */
                cand[nc++] = m;
                cand[nc++] = nextafterf(m, INFINITY);
                cand[nc++] = nextafterf(m, 0);
            }
            for (int k = 0; k < nc; k++) {
                pts[np++] = cand[k];
                pts[np++] = -cand[k];
            }
        }
        float specials[] = {0.0f,
                            -0.0f,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            -NAN,
                            FLT_MAX,
                            -FLT_MAX,
                            FLT_MIN,
                            1e-40f,
                            -1e-45f,
                            1e30f,
                            (float)t.vals[1] / 4,
                            (float)t.vals[1] / 2};
        for (size_t k = 0; k < sizeof specials / sizeof *specials; k++)
            pts[np++] = specials[k];
        uint8_t got[4096], gotk[4096];
        for (int sat = 0; sat < 2; sat++) {
            CHECK_OK(ct_cast_f32_to(f->dt, pts, got, (size_t)np,
                                    sat ? CT_CAST_SATURATE : CT_CAST_DEFAULT));
            cur_ops()->encode(f->elem, pts, gotk, (size_t)np, sat);
            for (int i = 0; i < np; i++) {
                unsigned want = oracle_encode(f, &t, pts[i], sat);
                CHECK_MSG(got[i] == want, "%s sat=%d x=%.9g got 0x%02x want 0x%02x", f->name, sat,
                          pts[i], got[i], want);
                CHECK_MSG(gotk[i] == want, "%s kernel sat=%d x=%.9g", f->name, sat, pts[i]);
            }
        }
    }
}

/* Spot values from the issue and ml_dtypes behaviour. */
TEST(encode_known_values) {
    float x[] = {448,   464,   464.0001f, 480,  500,      -500,
                 57344, 61439, 61440,     1e9f, INFINITY, -INFINITY};
    uint8_t c[12];
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, x, c, 6, CT_CAST_DEFAULT));
    CHECK(c[0] == 0x7E && c[1] == 0x7E && c[2] == 0x7F && c[3] == 0x7F && c[4] == 0x7F &&
          c[5] == 0xFF);
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, x, c, 6, CT_CAST_SATURATE));
    CHECK(c[2] == 0x7E && c[4] == 0x7E && c[5] == 0xFE);
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E5M2, x + 6, c, 6, CT_CAST_DEFAULT));
    CHECK(c[0] == 0x7B && c[1] == 0x7B && c[2] == 0x7C && c[3] == 0x7C && c[4] == 0x7C &&
          c[5] == 0xFC);
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E5M2, x + 6, c, 6, CT_CAST_SATURATE));
    CHECK(c[2] == 0x7B && c[3] == 0x7B && c[4] == 0x7C && c[5] == 0xFC);
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, x + 10, c, 2, CT_CAST_SATURATE));
    CHECK(c[0] == 0x7F && c[1] == 0xFF);
    float y[] = {7.0f, 100.0f, -INFINITY, 0.25f, 0.75f};
    CHECK_OK(ct_cast_f32_to(CT_FLOAT4_E2M1FN, y, c, 5, CT_CAST_DEFAULT));
    CHECK(c[0] == 0x7 && c[1] == 0x7 && c[2] == 0xF && c[3] == 0x0 && c[4] == 0x2);
    /* f16 / bf16 */
    uint16_t h[2];
    float z[2] = {1e6f, -70000.0f};
    CHECK_OK(ct_cast_f32_to(CT_FLOAT16, z, h, 2, CT_CAST_DEFAULT));
    CHECK(h[0] == 0x7C00 && h[1] == 0xFC00);
    CHECK_OK(ct_cast_f32_to(CT_FLOAT16, z, h, 2, CT_CAST_SATURATE));
    CHECK(h[0] == 0x7BFF && h[1] == 0xFBFF);
    float back[2];
    CHECK_OK(ct_cast_to_f32(CT_FLOAT16, h, back, 2));
    CHECK(back[0] == 65504.0f && back[1] == -65504.0f);
    /* errors */
    CHECK_ST(ct_cast_f32_to(CT_INT32, z, h, 2, CT_CAST_DEFAULT), CT_ERR_DTYPE);
    CHECK_ST(ct_cast_to_f32(CT_BOOL, h, back, 2), CT_ERR_DTYPE);
    CHECK_ST(ct_cast_f32_to(CT_FLOAT8_E5M2, NULL, h, 2, CT_CAST_DEFAULT), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_cast_f32_to(CT_FLOAT8_E5M2, z, h, 2, (ct_cast_mode)7), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E5M2, NULL, NULL, 0, CT_CAST_DEFAULT));
}

/* Random floats: random bit patterns (every exponent) and values spread over the format's range. */
TEST(encode_random_bruteforce) {
    enum { N = 1 << 18, ROUNDS = 8 };
    float *x = malloc(N * sizeof(float));
    uint8_t *got = malloc(N);
    unsigned long long s = 12345;
    for (int fi = 0; fi < 5; fi++) {
        const fmt_t *f = &FMTS[fi];
        table_t t;
        build_table(f, &t);
        int bad = 0;
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < N; i++) {
                uint32_t u = (uint32_t)ct_t_rng_next(&s);
                if (r & 1) { /* exponent near the format's range */
                    int e = (int)(ct_t_rng_next(&s) % (unsigned)(2 * f->bias + 12)) - 2 * f->bias -
                            4 + (1 << f->ebits);
                    u = (u & 0x807fffffu) | ((uint32_t)(e + 127) << 23);
                }
                memcpy(&x[i], &u, 4);
            }
            int sat = (r >> 1) & 1;
            CHECK_OK(ct_cast_f32_to(f->dt, x, got, N, sat ? CT_CAST_SATURATE : CT_CAST_DEFAULT));
            for (int i = 0; i < N; i++) {
                unsigned want = oracle_encode(f, &t, x[i], sat);
                if (got[i] != want && bad++ < 5)
                    CHECK_MSG(0, "%s x=%.9g (0x%08x) got 0x%02x want 0x%02x", f->name, x[i],
                              ct__mxk_f2u(x[i]), got[i], want);
            }
        }
        CHECK(bad == 0);
    }
    free(x);
    free(got);
}

static uint8_t oracle_e8m0(float x, int sat) {
    if (!(x > 0) || isinf(x)) return 0xFF;
    int k;
    frexp((double)x, &k);
    k -= 1; /* 2^k <= x < 2^(k+1) */
    double lo = ldexp(1.0, k), hi = ldexp(1.0, k + 1);
    int e = ((double)x - lo < hi - (double)x) ? k : k + 1;
    if (e < -127) e = -127;
    if (e > 127) return sat ? 0xFE : 0xFF;
    return (uint8_t)(e + 127);
}

TEST(e8m0_encode) {
    float pts[8192];
    int np = 0;
    for (int k = -149; k <= 127; k++) {
        float p = ldexpf(1.0f, k);
        float cand[] = {p,        nextafterf(p, 0),        nextafterf(p, INFINITY),
                        p * 1.5f, nextafterf(p * 1.5f, 0), nextafterf(p * 1.5f, INFINITY),
                        -p};
        for (int i = 0; i < 7; i++)
            pts[np++] = cand[i];
    }
    float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MAX, 1.5f * 0x1p127f};
    for (int i = 0; i < 7; i++)
        pts[np++] = sp[i];
    uint8_t got[8192];
    for (int sat = 0; sat < 2; sat++) {
        CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E8M0FNU, pts, got, (size_t)np,
                                sat ? CT_CAST_SATURATE : CT_CAST_DEFAULT));
        for (int i = 0; i < np; i++)
            CHECK_MSG(got[i] == oracle_e8m0(pts[i], sat), "x=%g got %d want %d", pts[i], got[i],
                      oracle_e8m0(pts[i], sat));
    }
    /* round trip of every code */
    for (int c = 0; c < 255; c++) {
        float v = ldexpf(1.0f, c - 127);
        uint8_t o;
        CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E8M0FNU, &v, &o, 1, CT_CAST_DEFAULT));
        CHECK(o == c);
    }
}

/* ---------------- MX blocks on raw buffers ---------------- */

static const float FMT_MAX[6] = {448.0f, 57344.0f, 28.0f, 7.5f, 6.0f, 127.0f / 64.0f};
static const int FMT_EMAX[6] = {8, 15, 4, 2, 2, 0};

/* OCP scale by the spec formulas, in double. */
static int oracle_scale(int elem, const float *v, int n, int rceil) {
    double amax = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i])) return 0xFF;
        if (fabs(v[i]) > amax) amax = fabs(v[i]);
    }
    if (amax == 0) return 0;
    int e;
    if (!rceil) {
        int k;
        frexp(amax, &k);
        e = (k - 1) - FMT_EMAX[elem];
    } else {
        e = (int)ceil(log2(amax / FMT_MAX[elem]));
        /* log2 of an exact power ratio may be off by rounding: fix up exactly */
        while (ldexp(FMT_MAX[elem], e) < amax)
            e++;
        while (ldexp(FMT_MAX[elem], e - 1) >= amax)
            e--;
    }
    if (e < -127) e = -127;
    if (e > 127) e = 127;
    return e + 127;
}

static unsigned oracle_elem(int elem, double t) {
    if (elem == CT__MXK_INT8) {
        double r = nearbyint(t * 64);
        if (r > 127) r = 127;
        if (r < -127) r = -127;
        return (uint8_t)(int8_t)r;
    }
    const fmt_t *f = &FMTS[elem];
    table_t tb;
    build_table(f, &tb);
    return oracle_encode(f, &tb, (float)t, 1);
}

/* Reference quantize of rows x L vs the oracle; returns number of mismatches. */
static int check_quant_oracle(int elem, int rceil, int bs, const float *x, int64_t rows, int64_t L,
                              const uint8_t *codes, const uint8_t *scales) {
    int bad = 0;
    int64_t nblk = (L + bs - 1) / bs, rb = ct__mxk_row_bytes(elem, L);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t b = 0; b < nblk; b++) {
            int64_t j0 = b * bs, j1 = j0 + bs < L ? j0 + bs : L;
            int sc = oracle_scale(elem, x + r * L + j0, (int)(j1 - j0), rceil);
            if (scales[r * nblk + b] != sc) {
                if (bad++ < 3)
                    printf("  scale r=%lld b=%lld got %d want %d\n", (long long)r, (long long)b,
                           scales[r * nblk + b], sc);
                continue;
            }
            if (sc == 0xFF) continue;
            for (int64_t j = j0; j < j1; j++) {
                double t = ldexp((double)x[r * L + j], 127 - sc);
                unsigned want = oracle_elem(elem, t);
                unsigned got = ct__mxk_get_code(elem, codes + r * rb, j);
                if (got != want && bad++ < 3)
                    printf("  elem=%d r=%lld j=%lld x=%g got 0x%x want 0x%x\n", elem, (long long)r,
                           (long long)j, x[r * L + j], got, want);
            }
        }
    return bad;
}

static void fill_mixed(float *x, int64_t n, unsigned long long *s) {
    for (int64_t i = 0; i < n; i++) {
        double u = ct_t_uniform(s) * 2 - 1;
        int kind = (int)(ct_t_rng_next(s) % 8);
        x[i] = (float)(kind == 0 ? u * 1e-3 : kind == 1 ? u * 1e4 : kind == 2 ? ldexp(u, -140) : u);
    }
}

TEST(quantize_kernels_vs_oracle) {
    static const int64_t Ls[] = {1, 7, 31, 32, 33, 64, 100, 1023};
    static const int bss[] = {32, 16, 8, 5};
    unsigned long long s = 99;
    const ct__mxk_ops *ops = cur_ops();
    for (int elem = 0; elem < 6; elem++)
        for (int rceil = 0; rceil < 2; rceil++)
            for (size_t li = 0; li < sizeof Ls / sizeof *Ls; li++)
                for (size_t bi = 0; bi < 4; bi++) {
                    int64_t L = Ls[li], rows = 3;
                    int bs = bss[bi];
                    int64_t nblk = (L + bs - 1) / bs, rb = ct__mxk_row_bytes(elem, L);
                    float *x = malloc((size_t)(rows * L) * sizeof(float));
                    float *d1 = malloc((size_t)(rows * L) * sizeof(float)),
                          *d2 = malloc((size_t)(rows * L) * sizeof(float));
                    uint8_t *c1 = malloc((size_t)(rows * rb)), *c2 = malloc((size_t)(rows * rb));
                    uint8_t *s1 = malloc((size_t)(rows * nblk)),
                            *s2 = malloc((size_t)(rows * nblk));
                    fill_mixed(x, rows * L, &s);
                    ct__mxk_ref_quantize(elem, rceil, bs, x, rows, L, c1, s1);
                    ops->quantize(elem, rceil, bs, x, rows, L, c2, s2);
                    CHECK_MSG(memcmp(c1, c2, (size_t)(rows * rb)) == 0 &&
                                  memcmp(s1, s2, (size_t)(rows * nblk)) == 0,
                              "kernel != ref elem=%d L=%lld bs=%d rceil=%d", elem, (long long)L, bs,
                              rceil);
                    CHECK(check_quant_oracle(elem, rceil, bs, x, rows, L, c1, s1) == 0);
                    if (elem == CT__MXK_E2M1 && (L & 1))
                        for (int64_t r = 0; r < rows; r++)
                            CHECK((c2[r * rb + rb - 1] >> 4) == 0);
                    ct__mxk_ref_dequantize(elem, bs, c1, s1, rows, L, d1);
                    ops->dequantize(elem, bs, c1, s1, rows, L, d2);
                    for (int64_t i = 0; i < rows * L; i++) {
                        int64_t r = i / L, j = i % L;
                        uint8_t sc = s1[r * nblk + j / bs];
                        double want = sc == 0xFF ? NAN
                                      : elem == CT__MXK_INT8
                                          ? (int8_t)c1[r * rb + j] / 64.0 * ldexp(1.0, sc - 127)
                                          : 0;
                        if (elem != CT__MXK_INT8 && sc != 0xFF) {
                            int kind;
                            want = oracle_value(&FMTS[elem], ct__mxk_get_code(elem, c1 + r * rb, j),
                                                &kind) *
                                   ldexp(1.0, sc - 127);
                        }
                        if (!same_float(d1[i], (float)want) || !same_float(d2[i], (float)want)) {
                            CHECK_MSG(0, "dequant elem=%d L=%lld bs=%d i=%lld got %g/%g want %g",
                                      elem, (long long)L, bs, (long long)i, d1[i], d2[i], want);
                            break;
                        }
                    }
                    free(x);
                    free(d1);
                    free(d2);
                    free(c1);
                    free(c2);
                    free(s1);
                    free(s2);
                }
}

/* Quantize one 32-block with the current kernels; returns scale code, codes in c. */
static uint8_t q1(int elem, int rceil, const float *x, uint8_t *c) {
    uint8_t sc;
    cur_ops()->quantize(elem, rceil, 32, x, 1, 32, c, &sc);
    return sc;
}

TEST(quantize_edge_cases) {
    float x[32];
    uint8_t c[32];
    float d[32];
    for (int elem = 0; elem < 6; elem++) {
        /* all zero: scale 0x00, codes 0 */
        memset(x, 0, sizeof x);
        CHECK(q1(elem, 0, x, c) == 0 && q1(elem, 1, x, c) == 0);
        for (int i = 0; i < (int)ct__mxk_row_bytes(elem, 32); i++)
            CHECK(c[i] == 0);
        /* Inf / NaN in a block: scale 0xFF, dequantises to NaN */
        for (int i = 0; i < 32; i++)
            x[i] = (float)i;
        x[5] = INFINITY;
        CHECK(q1(elem, 0, x, c) == 0xFF);
        x[5] = NAN;
        uint8_t sc = q1(elem, 1, x, c);
        CHECK(sc == 0xFF);
        cur_ops()->dequantize(elem, 32, c, &sc, 1, 32, d);
        for (int i = 0; i < 32; i++)
            CHECK(isnan(d[i]));
        /* block of f32 subnormals */
        for (int i = 0; i < 32; i++)
            x[i] = ct__mxk_u2f((uint32_t)(i * 1000 + 1)) * (i & 1 ? -1.0f : 1.0f);
        sc = q1(elem, 0, x, c);
        CHECK(check_quant_oracle(elem, 0, 32, x, 1, 32, c, &sc) == 0);
        CHECK(sc == 0); /* floor(log2) ~ -134 - emax clamps to -127 */
        sc = q1(elem, 1, x, c);
        CHECK(check_quant_oracle(elem, 1, 32, x, 1, 32, c, &sc) == 0);
        /* amax exactly a power of two */
        for (int i = 0; i < 32; i++)
            x[i] = (float)(i % 7) / 8.0f;
        x[9] = -64.0f;
        sc = q1(elem, 0, x, c);
        CHECK(sc == 127 + 6 - FMT_EMAX[elem]);
        CHECK(check_quant_oracle(elem, 0, 32, x, 1, 32, c, &sc) == 0);
        sc = q1(elem, 1, x, c);
        CHECK(check_quant_oracle(elem, 1, 32, x, 1, 32, c, &sc) == 0);
        /* mixed huge and tiny */
        for (int i = 0; i < 32; i++)
            x[i] = (i & 1) ? 3e38f : 1e-30f;
        sc = q1(elem, 0, x, c);
        CHECK(check_quant_oracle(elem, 0, 32, x, 1, 32, c, &sc) == 0);
        sc = q1(elem, 1, x, c);
        CHECK(check_quant_oracle(elem, 1, 32, x, 1, 32, c, &sc) == 0);
        /* RCEIL never clips: dequantised amax is within one element ulp and never saturates */
        for (int i = 0; i < 32; i++)
            x[i] = 449.0f * (float)(i + 1) / 32.0f;
        sc = q1(elem, 1, x, c);
        cur_ops()->dequantize(elem, 32, c, &sc, 1, 32, d);
        CHECK(d[31] <= ldexpf(FMT_MAX[elem], sc - 127));
        CHECK(ldexpf(FMT_MAX[elem], sc - 128) < 449.0f);
    }
    /* FLOOR: 500 in E4M3 with X = 1 becomes 448 */
    memset(x, 0, sizeof x);
    x[0] = 500.0f;
    x[1] = -500.0f;
    uint8_t sc = q1(CT__MXK_E4M3, 0, x, c);
    CHECK(sc == 127 && c[0] == 0x7E && c[1] == 0xFE);
    /* MXINT8: 1.6 fixed point clamped to +-127/64 */
    x[0] = 1.999f;
    x[1] = -1.0f;
    sc = q1(CT__MXK_INT8, 0, x, c);
    CHECK(sc == 127 && c[0] == 127 && (int8_t)c[1] == -64);
}

TEST(linear_kernel_vs_naive) {
    static const int64_t Ks[] = {32, 64, 7, 33, 100, 256, 2087, 8200};
    static const int64_t Ms[] = {1, 3, 8, 13};
    unsigned long long s = 7;
    const ct__mxk_ops *ops = cur_ops();
    for (int elem = 0; elem < 6; elem++)
        for (size_t ki = 0; ki < 8; ki++)
            for (size_t mi = 0; mi < 4; mi++) {
                int64_t K = Ks[ki], M = Ms[mi], N = 5;
                int bs = 32;
                int64_t nblk = (K + bs - 1) / bs, rb = ct__mxk_row_bytes(elem, K);
                float *w = malloc((size_t)(N * K) * 4), *wd = malloc((size_t)(N * K) * 4);
                float *x = malloc((size_t)(M * K) * 4), *xp = malloc((size_t)(M * K) * 4);
                float *y = malloc((size_t)(M * N) * 4), bias[5] = {1, -2, 0.5f, 0, 3};
                uint8_t *c = malloc((size_t)(N * rb)), *sc = malloc((size_t)(N * nblk));
                for (int64_t i = 0; i < N * K; i++)
                    w[i] = (float)(ct_t_uniform(&s) * 2 - 1);
                for (int64_t i = 0; i < M * K; i++)
                    x[i] = (float)(ct_t_uniform(&s) * 2 - 1);
                ops->quantize(elem, 0, bs, w, N, K, c, sc);
                ct__mxk_ref_dequantize(elem, bs, c, sc, N, K, wd);
                ct__mxk_linear_prep_x(x, M, K, K, ops->fp4_deinterleave && elem == CT__MXK_E2M1,
                                      xp);
                ct__mxk_linear_args a = {elem, bs, M, N, K, xp, K, c, rb, sc, nblk, bias, y, N};
                ops->linear(&a, 0, N);
                for (int64_t m = 0; m < M; m++)
                    for (int64_t n = 0; n < N; n++) {
                        double ref = bias[n], mag = fabs(bias[n]);
                        for (int64_t k = 0; k < K; k++) {
                            ref += (double)x[m * K + k] * wd[n * K + k];
                            mag += fabs((double)x[m * K + k] * wd[n * K + k]);
                        }
                        CHECK_MSG(fabs(y[m * N + n] - ref) <= 1e-5 * mag + 1e-6,
                                  "elem=%d K=%lld M=%lld got %g want %g", elem, (long long)K,
                                  (long long)M, y[m * N + n], ref);
                    }
                free(w);
                free(wd);
                free(x);
                free(xp);
                free(y);
                free(c);
                free(sc);
            }
}

#ifndef CT_MX_KERNEL_ONLY
/* ---------------- tensor-level API ---------------- */

static ct_ctx *mk_ctx(int threads) {
    ct_ctx_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.num_threads = threads;
    ct_ctx *c = NULL;
    if (ct_ctx_create(&o, &c) != CT_OK) return NULL;
    return c;
}

static ct_tensor *rand_tensor(ct_ctx *c, int nd, const int64_t *sh, unsigned long long *s) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= sh[i];
    float *v = malloc((size_t)(n ? n : 1) * sizeof(float));
    fill_mixed(v, n, s);
    ct_tensor *t = NULL;
    ct_tensor_from_host(c, v, CT_FLOAT32, nd, sh, &t);
    free(v);
    return t;
}

/* Permute a C-order array so `axis` goes last. */
static void move_axis_last(const float *x, int nd, const int64_t *sh, int axis, float *out) {
    int64_t n = 1, st[8];
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = n;
        n *= sh[i];
    }
    int perm[8], k = 0;
    for (int i = 0; i < nd; i++)
        if (i != axis) perm[k++] = i;
    perm[k] = axis;
    int64_t idx[8] = {0};
    for (int64_t o = 0; o < n; o++) {
        int64_t src = 0;
        for (int i = 0; i < nd; i++)
            src += idx[i] * st[perm[i]];
        out[o] = x[src];
        for (int i = nd - 1; i >= 0; i--) {
            if (++idx[i] < sh[perm[i]]) break;
            idx[i] = 0;
        }
    }
}

TEST(tensor_quantize_every_axis) {
    ct_ctx *c = mk_ctx(2);
    CHECK(c != NULL);
    if (!c) return;
    unsigned long long s = 5;
    int64_t sh[3] = {3, 37, 5};
    ct_tensor *x = rand_tensor(c, 3, sh, &s);
    float *xh = malloc(3 * 37 * 5 * sizeof(float)), *perm = malloc(3 * 37 * 5 * sizeof(float));
    float *back = malloc(3 * 37 * 5 * sizeof(float)), *dref = malloc(3 * 37 * 5 * sizeof(float));
    CHECK_OK(ct_tensor_to_host(x, xh, 3 * 37 * 5 * sizeof(float)));
    for (int f = 0; f < CT_MX_FORMAT_COUNT; f++)
        for (int axis = -1; axis < 3; axis++)
            for (int bs = 4; bs <= 32; bs *= 8) {
                int ax = axis < 0 ? 2 : axis;
                ct_mx_tensor *q = NULL;
                CHECK_OK(ct_mx_quantize(c, x, (ct_mx_format)f, bs, axis, CT_MX_SCALE_FLOOR, &q));
                if (!q) continue;
                CHECK(ct_mx_axis(q) == ax && ct_mx_block_size(q) == bs &&
                      ct_mx_format_of(q) == (ct_mx_format)f);
                CHECK(ct_mx_ndim(q) == 3 && ct_mx_shape(q)[1] == 37);
                move_axis_last(xh, 3, sh, ax, perm);
                int64_t L = sh[ax], rows = 3 * 37 * 5 / L;
                int64_t rb = ct__mxk_row_bytes(f, L), nblk = (L + bs - 1) / bs;
                uint8_t *cr = malloc((size_t)(rows * rb)), *sr = malloc((size_t)(rows * nblk));
                ct__mxk_ref_quantize(f, 0, bs, perm, rows, L, cr, sr);
                CHECK(ct_tensor_numel(ct_mx_codes(q)) == rows * rb);
                CHECK(ct_tensor_numel(ct_mx_scales(q)) == rows * nblk);
                CHECK(ct_tensor_shape(ct_mx_codes(q))[2] == rb);
                CHECK(ct_tensor_dtype(ct_mx_scales(q)) == CT_FLOAT8_E8M0FNU);
                CHECK_MSG(memcmp(cr, ct_tensor_data_ptr(ct_mx_codes(q)), (size_t)(rows * rb)) == 0,
                          "codes f=%d axis=%d bs=%d", f, axis, bs);
                CHECK_MSG(memcmp(sr, ct_tensor_data_ptr(ct_mx_scales(q)), (size_t)(rows * nblk)) ==
                              0,
                          "scales f=%d axis=%d", f, axis);
                /* dequantize: the reference values, moved back to the original layout */
                ct_tensor *d = NULL;
                CHECK_OK(ct_mx_dequantize(c, q, CT_FLOAT32, &d));
                if (d) {
                    CHECK(ct_tensor_ndim(d) == 3 && ct_tensor_shape(d)[0] == 3 &&
                          ct_tensor_shape(d)[2] == 5);
                    CHECK_OK(ct_tensor_to_host(d, back, 3 * 37 * 5 * sizeof(float)));
                    float *bp = malloc(3 * 37 * 5 * sizeof(float));
                    move_axis_last(back, 3, sh, ax, bp);
                    ct__mxk_ref_dequantize(f, bs, cr, sr, rows, L, dref);
                    int ok = 1;
                    for (int i = 0; i < 3 * 37 * 5; i++)
                        ok &= same_float(bp[i], dref[i]);
                    CHECK_MSG(ok, "dequant f=%d axis=%d bs=%d", f, axis, bs);
                    free(bp);
                    ct_tensor_release(d);
                }
                /* bf16 output is the f32 result rounded */
                CHECK_OK(ct_mx_dequantize(c, q, CT_BFLOAT16, &d));
                if (d) {
                    uint16_t *hb = malloc(3 * 37 * 5 * 2);
                    CHECK_OK(ct_tensor_to_host(d, hb, 3 * 37 * 5 * 2));
                    int ok = 1;
                    for (int i = 0; i < 3 * 37 * 5; i++)
                        ok &= hb[i] == ct_f32_to_bf16(back[i]);
                    CHECK(ok);
                    free(hb);
                    ct_tensor_release(d);
                }
                free(cr);
                free(sr);
                ct_mx_tensor_free(q);
            }
    free(xh);
    free(perm);
    free(back);
    free(dref);
    ct_tensor_release(x);
    ct_ctx_free(c);
}

TEST(tensor_noncontiguous_and_bf16) {
    ct_ctx *c = mk_ctx(2);
    if (!c) {
        CHECK(0);
        return;
    }
    unsigned long long s = 77;
    int64_t sh[2] = {70, 45};
    ct_tensor *x = rand_tensor(c, 2, sh, &s), *xt = NULL, *xc = NULL, *sl = NULL, *slc = NULL;
    CHECK_OK(ct_tensor_transpose(c, x, 0, 1, &xt)); /* 45 x 70, non-contiguous */
    CHECK_OK(ct_tensor_clone(c, xt, &xc));
    for (int f = 0; f < CT_MX_FORMAT_COUNT; f++) {
        ct_mx_tensor *q1 = NULL, *q2 = NULL;
        CHECK_OK(ct_mx_quantize(c, xt, (ct_mx_format)f, 32, 1, CT_MX_SCALE_RCEIL, &q1));
        CHECK_OK(ct_mx_quantize(c, xc, (ct_mx_format)f, 32, 1, CT_MX_SCALE_RCEIL, &q2));
        if (q1 && q2) {
            CHECK(memcmp(ct_tensor_data_ptr(ct_mx_codes(q1)), ct_tensor_data_ptr(ct_mx_codes(q2)),
                         (size_t)ct_tensor_numel(ct_mx_codes(q1))) == 0);
            CHECK(memcmp(ct_tensor_data_ptr(ct_mx_scales(q1)), ct_tensor_data_ptr(ct_mx_scales(q2)),
                         (size_t)ct_tensor_numel(ct_mx_scales(q1))) == 0);
        }
        ct_mx_tensor_free(q1);
        ct_mx_tensor_free(q2);
    }
    /* strided slice along the blocking axis */
    CHECK_OK(ct_tensor_slice(c, x, 1, 1, 45, 2, &sl));
    CHECK_OK(ct_tensor_clone(c, sl, &slc));
    ct_mx_tensor *a = NULL, *b = NULL;
    CHECK_OK(ct_mx_quantize(c, sl, CT_MXFP4_E2M1, 32, -1, CT_MX_SCALE_FLOOR, &a));
    CHECK_OK(ct_mx_quantize(c, slc, CT_MXFP4_E2M1, 32, -1, CT_MX_SCALE_FLOOR, &b));
    if (a && b)
        CHECK(memcmp(ct_tensor_data_ptr(ct_mx_codes(a)), ct_tensor_data_ptr(ct_mx_codes(b)),
                     (size_t)ct_tensor_numel(ct_mx_codes(a))) == 0);
    ct_mx_tensor_free(a);
    ct_mx_tensor_free(b);
    /* bf16 input quantizes like its f32 widening */
    int64_t n = 70 * 45;
    float *xf = malloc((size_t)n * 4);
    uint16_t *xb = malloc((size_t)n * 2);
    CHECK_OK(ct_tensor_to_host(x, xf, (size_t)n * 4));
    for (int64_t i = 0; i < n; i++) {
        xb[i] = ct_f32_to_bf16(xf[i]);
        xf[i] = ct_bf16_to_f32(xb[i]);
    }
    ct_tensor *tb = NULL, *tf = NULL;
    CHECK_OK(ct_tensor_from_host(c, xb, CT_BFLOAT16, 2, sh, &tb));
    CHECK_OK(ct_tensor_from_host(c, xf, CT_FLOAT32, 2, sh, &tf));
    CHECK_OK(ct_mx_quantize(c, tb, CT_MXFP8_E4M3, 32, 0, CT_MX_SCALE_FLOOR, &a));
    CHECK_OK(ct_mx_quantize(c, tf, CT_MXFP8_E4M3, 32, 0, CT_MX_SCALE_FLOOR, &b));
    if (a && b)
        CHECK(memcmp(ct_tensor_data_ptr(ct_mx_codes(a)), ct_tensor_data_ptr(ct_mx_codes(b)),
                     (size_t)ct_tensor_numel(ct_mx_codes(a))) == 0);
    ct_mx_tensor_free(a);
    ct_mx_tensor_free(b);
    free(xf);
    free(xb);
    ct_tensor_release(tb);
    ct_tensor_release(tf);
    ct_tensor_release(sl);
    ct_tensor_release(slc);
    ct_tensor_release(x);
    ct_tensor_release(xt);
    ct_tensor_release(xc);
    ct_ctx_free(c);
}

/* Large enough to take the multi-threaded split (rows and inside-row segments). */
TEST(tensor_threaded_matches_ref) {
    ct_ctx *c = mk_ctx(2);
    if (!c) {
        CHECK(0);
        return;
    }
    unsigned long long s = 3;
    int64_t shapes[2][2] = {{1, 100000 + 17}, {300, 513}};
    for (int k = 0; k < 2; k++) {
        ct_tensor *x = rand_tensor(c, 2, shapes[k], &s);
        int64_t n = shapes[k][0] * shapes[k][1], L = shapes[k][1];
        float *xh = malloc((size_t)n * 4), *d = malloc((size_t)n * 4), *dr = malloc((size_t)n * 4);
        CHECK_OK(ct_tensor_to_host(x, xh, (size_t)n * 4));
        for (int f = 0; f < CT_MX_FORMAT_COUNT; f++) {
            ct_mx_tensor *q = NULL;
            CHECK_OK(ct_mx_quantize(c, x, (ct_mx_format)f, 32, 1, CT_MX_SCALE_FLOOR, &q));
            if (!q) continue;
            int64_t rb = ct__mxk_row_bytes(f, L), nblk = (L + 31) / 32, rows = shapes[k][0];
            uint8_t *cr = malloc((size_t)(rows * rb)), *sr = malloc((size_t)(rows * nblk));
            ct__mxk_ref_quantize(f, 0, 32, xh, rows, L, cr, sr);
            CHECK_MSG(memcmp(cr, ct_tensor_data_ptr(ct_mx_codes(q)), (size_t)(rows * rb)) == 0,
                      "f=%d k=%d", f, k);
            CHECK(memcmp(sr, ct_tensor_data_ptr(ct_mx_scales(q)), (size_t)(rows * nblk)) == 0);
            ct_tensor *t = NULL;
            CHECK_OK(ct_mx_dequantize(c, q, CT_FLOAT32, &t));
            if (t) {
                CHECK_OK(ct_tensor_to_host(t, d, (size_t)n * 4));
                ct__mxk_ref_dequantize(f, 32, cr, sr, rows, L, dr);
                CHECK(memcmp(d, dr, (size_t)n * 4) == 0);
                ct_tensor_release(t);
            }
            free(cr);
            free(sr);
            ct_mx_tensor_free(q);
        }
        free(xh);
        free(d);
        free(dr);
        ct_tensor_release(x);
    }
    ct_ctx_free(c);
}

TEST(tensor_gguf_roundtrip) {
    ct_ctx *c = mk_ctx(1);
    if (!c) {
        CHECK(0);
        return;
    }
    enum { R = 3, L = 64 };
    uint8_t g[R * L / 32 * 17], g2[R * L / 32 * 17];
    unsigned long long s = 11;
    for (size_t i = 0; i < sizeof g; i++)
        g[i] = (uint8_t)ct_t_rng_next(&s);
    for (int b = 0; b < R * L / 32; b++)
        g[b * 17] = (uint8_t)(120 + b); /* sane scales */
    int64_t sh[2] = {R, L};
    ct_mx_tensor *q = NULL;
    CHECK_OK(ct_mx_from_gguf_mxfp4(c, g, sizeof g, 2, sh, &q));
    if (!q) {
        ct_ctx_free(c);
        return;
    }
    ct_tensor *d = NULL;
    CHECK_OK(ct_mx_dequantize(c, q, CT_FLOAT32, &d));
    float v[R * L];
    CHECK_OK(ct_tensor_to_host(d, v, sizeof v));
    /* GGUF semantics: element j of a block is qs[j] low nibble, element j+16 the high nibble */
    const fmt_t *f = &FMTS[4];
    for (int r = 0; r < R; r++)
        for (int j = 0; j < L; j++) {
            const uint8_t *blk = g + (r * (L / 32) + j / 32) * 17;
            int e = j % 32;
            unsigned code = e < 16 ? (blk[1 + e] & 0xF) : (blk[1 + e - 16] >> 4);
            int kind;
            double want = oracle_value(f, code, &kind) * ldexp(1.0, blk[0] - 127);
            CHECK_MSG(v[r * L + j] == (float)want, "r=%d j=%d", r, j);
        }
    CHECK_OK(ct_mx_to_gguf_mxfp4(c, q, g2, sizeof g2));
    CHECK(memcmp(g, g2, sizeof g) == 0);
    CHECK_ST(ct_mx_to_gguf_mxfp4(c, q, g2, sizeof g2 - 1), CT_ERR_FORMAT);
    ct_mx_tensor *q2 = NULL;
    CHECK_ST(ct_mx_from_gguf_mxfp4(c, g, sizeof g - 1, 2, sh, &q2), CT_ERR_FORMAT);
    int64_t bad[2] = {R, 48};
    CHECK_ST(ct_mx_from_gguf_mxfp4(c, g, sizeof g, 2, bad, &q2), CT_ERR_SHAPE);
    CHECK(q2 == NULL);
    ct_tensor_release(d);
    ct_mx_tensor_free(q);
    /* a quantized (non-GGUF-origin) MXFP8 tensor is refused */
    ct_tensor *x = rand_tensor(c, 2, sh, &s);
    CHECK_OK(ct_mx_quantize(c, x, CT_MXFP8_E4M3, 32, 1, CT_MX_SCALE_FLOOR, &q));
    CHECK_ST(ct_mx_to_gguf_mxfp4(c, q, g2, sizeof g2), CT_ERR_UNSUPPORTED);
    ct_mx_tensor_free(q);
    ct_tensor_release(x);
    ct_ctx_free(c);
}

static void check_linear(ct_ctx *c, int f, int64_t M, int64_t N, int64_t K, int use_bias,
                         ct_dtype xdt, unsigned long long *s) {
    int64_t wsh[2] = {N, K}, xsh[2] = {M, K}, bsh[1] = {N};
    float *wv = malloc((size_t)(N * K + 1) * 4), *xv = malloc((size_t)(M * K + 1) * 4),
          *bv = malloc((size_t)N * 4);
    for (int64_t i = 0; i < N * K; i++)
        wv[i] = (float)(ct_t_uniform(s) * 2 - 1);
    for (int64_t i = 0; i < M * K; i++)
        xv[i] = (float)(ct_t_uniform(s) * 2 - 1);
    for (int64_t i = 0; i < N; i++)
        bv[i] = (float)(ct_t_uniform(s) - 0.5);
    ct_tensor *w = NULL, *x = NULL, *b = NULL, *wd = NULL, *y = NULL;
    ct_mx_tensor *q = NULL;
    CHECK_OK(ct_tensor_from_host(c, wv, CT_FLOAT32, 2, wsh, &w));
    CHECK_OK(ct_tensor_from_host(c, bv, CT_FLOAT32, 1, bsh, &b));
    if (xdt == CT_BFLOAT16) {
        uint16_t *xb = malloc((size_t)(M * K + 1) * 2);
        for (int64_t i = 0; i < M * K; i++) {
            xb[i] = ct_f32_to_bf16(xv[i]);
            xv[i] = ct_bf16_to_f32(xb[i]);
        }
        CHECK_OK(ct_tensor_from_host(c, xb, CT_BFLOAT16, 2, xsh, &x));
        free(xb);
    } else {
        CHECK_OK(ct_tensor_from_host(c, xv, CT_FLOAT32, 2, xsh, &x));
    }
    CHECK_OK(ct_mx_quantize(c, w, (ct_mx_format)f, 32, 1, CT_MX_SCALE_FLOOR, &q));
    CHECK_OK(ct_mx_dequantize(c, q, CT_FLOAT32, &wd));
    CHECK_OK(ct_mx_linear(c, x, q, use_bias ? b : NULL, &y));
    if (y && wd) {
        float *wdv = malloc((size_t)(N * K + 1) * 4), *yv = malloc((size_t)(M * N + 1) * 4);
        CHECK_OK(ct_tensor_to_host(wd, wdv, (size_t)(N * K) * 4));
        CHECK(ct_tensor_dtype(y) == xdt && ct_tensor_shape(y)[0] == M &&
              ct_tensor_shape(y)[1] == N);
        if (xdt == CT_BFLOAT16) {
            uint16_t *yb = malloc((size_t)(M * N + 1) * 2);
            CHECK_OK(ct_tensor_to_host(y, yb, (size_t)(M * N) * 2));
            for (int64_t i = 0; i < M * N; i++)
                yv[i] = ct_bf16_to_f32(yb[i]);
            free(yb);
        } else {
            CHECK_OK(ct_tensor_to_host(y, yv, (size_t)(M * N) * 4));
        }
        int bad = 0;
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                double ref = use_bias ? bv[n] : 0, mag = fabs(ref);
                for (int64_t k = 0; k < K; k++) {
                    ref += (double)xv[m * K + k] * wdv[n * K + k];
                    mag += fabs((double)xv[m * K + k] * wdv[n * K + k]);
                }
                double tol = (xdt == CT_BFLOAT16 ? 8e-3 : 1e-5) * mag + 1e-6;
                if (!(fabs(yv[m * N + n] - ref) <= tol) && bad++ < 3)
                    CHECK_MSG(0, "linear f=%d M=%lld N=%lld K=%lld: y[%lld,%lld]=%g want %g", f,
                              (long long)M, (long long)N, (long long)K, (long long)m, (long long)n,
                              yv[m * N + n], ref);
            }
        free(wdv);
        free(yv);
    }
    ct_tensor_release(w);
    ct_tensor_release(x);
    ct_tensor_release(b);
    ct_tensor_release(wd);
    ct_tensor_release(y);
    ct_mx_tensor_free(q);
    free(wv);
    free(xv);
    free(bv);
}

TEST(tensor_linear_vs_dequant_matmul) {
    ct_ctx *c = mk_ctx(2);
    if (!c) {
        CHECK(0);
        return;
    }
    unsigned long long s = 21;
    for (int f = 0; f < CT_MX_FORMAT_COUNT; f++) {
        check_linear(c, f, 1, 17, 96, 1, CT_FLOAT32, &s);
        check_linear(c, f, 9, 7, 100, 0, CT_FLOAT32, &s);
        check_linear(c, f, 3, 5, 33, 1, CT_BFLOAT16, &s);
        check_linear(c, f, 5, 260, 512, 1, CT_FLOAT32, &s); /* threaded */
    }
    check_linear(c, 4, 2, 3, 0, 1, CT_FLOAT32, &s); /* K = 0: y = bias */
    check_linear(c, 4, 0, 3, 64, 1, CT_FLOAT32, &s);
    ct_ctx_free(c);
}

TEST(tensor_errors) {
    ct_ctx *c = mk_ctx(1);
    if (!c) {
        CHECK(0);
        return;
    }
    int64_t sh[2] = {4, 64};
    unsigned long long s = 1;
    ct_tensor *x = rand_tensor(c, 2, sh, &s), *xi = NULL, *b = NULL, *y = NULL;
    ct_mx_tensor *q = NULL;
    CHECK_ST(ct_mx_quantize(c, x, (ct_mx_format)9, 32, 1, CT_MX_SCALE_FLOOR, &q),
             CT_ERR_INVALID_ARG);
    CHECK(strlen(ct_ctx_last_error(c)) > 0);
    CHECK_ST(ct_mx_quantize(c, x, CT_MXFP4_E2M1, 0, 1, CT_MX_SCALE_FLOOR, &q), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, 2, CT_MX_SCALE_FLOOR, &q), CT_ERR_INDEX);
    CHECK_ST(ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, -3, CT_MX_SCALE_FLOOR, &q), CT_ERR_INDEX);
    CHECK_ST(ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, 1, (ct_mx_scale_mode)5, &q),
             CT_ERR_INVALID_ARG);
    CHECK_ST(ct_mx_quantize(c, NULL, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_FLOOR, &q),
             CT_ERR_INVALID_ARG);
    int32_t iv[256] = {0};
    CHECK_OK(ct_tensor_from_host(c, iv, CT_INT32, 2, sh, &xi));
    CHECK_ST(ct_mx_quantize(c, xi, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_FLOOR, &q), CT_ERR_DTYPE);
    CHECK(q == NULL);
    CHECK_OK(ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_FLOOR, &q));
    CHECK_ST(ct_mx_dequantize(c, q, CT_INT32, &y), CT_ERR_DTYPE);
    { /* dequantize_into: same values as dequantize; shape / dtype checked */
        ct_tensor *o = NULL, *d = NULL, *wrong = NULL;
        int64_t wsh[2] = {4, 63};
        CHECK_OK(ct_tensor_empty(c, CT_FLOAT32, 2, sh, &o));
        CHECK_OK(ct_tensor_empty(c, CT_FLOAT32, 2, wsh, &wrong));
        CHECK_OK(ct_mx_dequantize_into(c, q, o));
        CHECK_OK(ct_mx_dequantize(c, q, CT_FLOAT32, &d));
        if (o && d) CHECK(memcmp(ct_tensor_data_ptr(o), ct_tensor_data_ptr(d), 256 * 4) == 0);
        CHECK_ST(ct_mx_dequantize_into(c, q, wrong), CT_ERR_SHAPE);
        CHECK_ST(ct_mx_dequantize_into(c, q, xi), CT_ERR_DTYPE);
        ct_tensor_release(o);
        ct_tensor_release(d);
        ct_tensor_release(wrong);
    }
    /* linear: x last dim must be K, bias [N], weight blocked along axis 1 */
    ct_mx_tensor *q0 = NULL;
    CHECK_OK(ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, 0, CT_MX_SCALE_FLOOR, &q0));
    int64_t xs[2] = {2, 64}, bs1[1] = {5};
    ct_tensor *x2 = rand_tensor(c, 2, xs, &s);
    CHECK_ST(ct_mx_linear(c, x2, q0, NULL, &y), CT_ERR_SHAPE);
    b = rand_tensor(c, 1, bs1, &s);
    CHECK_ST(ct_mx_linear(c, x2, q, b, &y), CT_ERR_SHAPE);
    CHECK_ST(ct_mx_linear(c, xi, q, NULL, &y), CT_ERR_DTYPE);
    CHECK(y == NULL);
    CHECK_OK(ct_mx_linear(c, x2, q, NULL, &y));
    ct_tensor_release(y);
    ct_mx_tensor_free(q);
    ct_mx_tensor_free(q0);
    ct_mx_tensor_free(NULL);
    ct_tensor_release(x);
    ct_tensor_release(xi);
    ct_tensor_release(x2);
    ct_tensor_release(b);
    CHECK(strcmp(ct_mx_format_name(CT_MXFP4_E2M1), "mxfp4_e2m1") == 0);
    ct_ctx_free(c);
}

/* Allocator that fails the Nth allocation: every failure is CT_ERR_OOM and nothing leaks. */
static long oom_left;
static void *oom_alloc(void *u, size_t n, size_t al) {
    (void)u;
    if (oom_left-- == 0) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, al < sizeof(void *) ? sizeof(void *) : al, n ? n : 1)) return NULL;
    return p;
}
static void oom_free(void *u, void *p) {
    (void)u;
    free(p);
}

TEST(tensor_oom_walk) {
    int done = 0;
    for (long n = 0; n < 200 && !done; n++) {
        ct_ctx_options o;
        memset(&o, 0, sizeof o);
        o.size = sizeof o;
        o.num_threads = 1;
        o.allocator.alloc = oom_alloc;
        o.allocator.free = oom_free;
        oom_left = 1 << 30;
        ct_ctx *c = NULL;
        if (ct_ctx_create(&o, &c) != CT_OK) {
            CHECK(0);
            return;
        }
        int64_t sh[2] = {6, 40}, xs[2] = {3, 40};
        unsigned long long s = 2;
        ct_tensor *x = rand_tensor(c, 2, sh, &s), *xb = rand_tensor(c, 2, xs, &s);
        oom_left = n;
        ct_mx_tensor *q = NULL, *w = NULL;
        ct_tensor *d = NULL, *y = NULL;
        ct_status st = ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, 0, CT_MX_SCALE_FLOOR, &q);
        if (st == CT_OK) st = ct_mx_dequantize(c, q, CT_BFLOAT16, &d);
        if (st == CT_OK) st = ct_mx_quantize(c, x, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_FLOOR, &w);
        if (st == CT_OK) st = ct_mx_linear(c, xb, w, NULL, &y);
        CHECK_MSG(st == CT_OK || st == CT_ERR_OOM, "n=%ld st=%d", n, (int)st);
        done = st == CT_OK;
        ct_tensor_release(d);
        ct_tensor_release(y);
        ct_mx_tensor_free(q);
        ct_mx_tensor_free(w);
        oom_left = 1 << 30;
        ct_tensor_release(x);
        ct_tensor_release(xb);
        ct_ctx_free(c);
    }
    CHECK(done);
}

static void run_tensor_tests(void) {
    RUN(tensor_quantize_every_axis);
    RUN(tensor_noncontiguous_and_bf16);
    RUN(tensor_threaded_matches_ref);
    RUN(tensor_gguf_roundtrip);
    RUN(tensor_linear_vs_dequant_matmul);
    RUN(tensor_errors);
    RUN(tensor_oom_walk);
}
#endif

int main(void) {
    g_isa = tu_isa_gate();
    printf("isa %s\n", g_isa == 2 ? "avx512" : g_isa == 1 ? "avx2" : "ref");
    RUN(decode_every_code);
    RUN(encode_midpoints_bruteforce);
    RUN(encode_known_values);
    RUN(encode_random_bruteforce);
    RUN(e8m0_encode);
    RUN(quantize_kernels_vs_oracle);
    RUN(quantize_edge_cases);
    RUN(linear_kernel_vs_naive);
#ifndef CT_MX_KERNEL_ONLY
    run_tensor_tests();
#endif
    return ct_test_end();
}

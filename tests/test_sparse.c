/* Tests of 2:4 semi-structured sparsity (include/ctorch/sparse.h). Oracles are the test's own:
 * pruning by sorting each group, the documented metadata layout, FP8 codes from the element casts,
 * and the documented summation order (one fma chain per output in k order for N >= 2, sixteen
 * lanes and a fixed tree for N == 1) evaluated here in scalar C, so every ISA must match bit for
 * bit; dense double-precision products bound the rounding. Runs once per ISA (CT_CPU_ISA). */
#include "ctorch/ctorch.h"
#include "harness.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 0x5eed24ULL;

static double urand(void) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static ct_tensor *from_f32(const float *v, int64_t r, int64_t c) {
    const int64_t s[2] = {r, c};
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 2, s, &t));
    return t;
}

static void read_f32(const ct_tensor *t, float *dst) {
    CHECK_OK(ct_tensor_to_host(t, dst, (size_t)ct_tensor_numel(t) * sizeof(float)));
}

/* Bitwise equal, NaNs of any payload equal. */
static bool same_f32(float a, float b) {
    if (isnan(a) && isnan(b)) return true;
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

/* ---- oracle: pruning and layout ---- */

/* The kept pair (a < b) of a group: NaN first, then larger |x|, ties to the lower index. */
static void oracle_pair(const float *q, int *a, int *b) {
    int ord[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            float u = q[ord[i]], v = q[ord[j]];
            bool swap =
                (isnan(v) && !isnan(u)) || (!isnan(u) && !isnan(v) && fabsf(v) > fabsf(u)) ||
                (((isnan(u) && isnan(v)) || (!isnan(u) && !isnan(v) && fabsf(u) == fabsf(v))) &&
                 ord[j] < ord[i]);
            if (swap) {
                int t = ord[i];
                ord[i] = ord[j];
                ord[j] = t;
            }
        }
    *a = ord[0] < ord[1] ? ord[0] : ord[1];
    *b = ord[0] < ord[1] ? ord[1] : ord[0];
}

static float *rand_matrix(int64_t M, int64_t K, int ints) {
    float *x = malloc(sizeof(float) * (size_t)(M * K > 0 ? M * K : 1));
    for (int64_t i = 0; i < M * K; i++)
        x[i] = ints ? (float)((int)(urand() * 9) - 4) : (float)(urand() * 4 - 2);
    return x;
}

TEST(prune_matches_oracle_and_layout) {
    const int64_t shapes[][2] = {{1, 4}, {3, 12}, {7, 36}, {5, 20}, {33, 132}, {2, 1028}};
    for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
        const int64_t M = shapes[c][0], K = shapes[c][1], G = K / 4, mb = (G + 1) / 2;
        float *x = rand_matrix(M, K, (int)(c & 1)); /* integer data: many ties */
        if (M * K > 8) {
            x[1] = NAN;
            x[6] = -0.0f;
        }
        ct_tensor *d = from_f32(x, M, K), *back = NULL;
        ct_sparse24 *s = NULL;
        CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT32, &s));
        CHECK(ct_sparse24_shape(s)[0] == M && ct_sparse24_shape(s)[1] == K);
        CHECK(ct_sparse24_dtype(s) == CT_FLOAT32 && ct_sparse24_scales(s) == NULL);
        float *vals = malloc(sizeof(float) * (size_t)(M * K / 2)),
              *dense = malloc(sizeof(float) * (size_t)(M * K));
        uint8_t *meta = malloc((size_t)(M * mb));
        read_f32(ct_sparse24_values(s), vals);
        CHECK_OK(ct_tensor_to_host(ct_sparse24_metadata(s), meta, (size_t)(M * mb)));
        CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &back));
        read_f32(back, dense);
        int bad = 0;
        for (int64_t r = 0; r < M; r++)
            for (int64_t g = 0; g < G; g++) {
                int a, b;
                oracle_pair(x + r * K + 4 * g, &a, &b);
                unsigned nib = (meta[r * mb + g / 2] >> (4 * (g & 1))) & 15u;
                if (nib != (unsigned)(a | b << 2)) bad++;
                if (!same_f32(vals[r * K / 2 + 2 * g], x[r * K + 4 * g + a]) ||
                    !same_f32(vals[r * K / 2 + 2 * g + 1], x[r * K + 4 * g + b]))
                    bad++;
                for (int i = 0; i < 4; i++) {
                    float want = (i == a || i == b) ? x[r * K + 4 * g + i] : 0.0f;
                    if (!same_f32(dense[r * K + 4 * g + i], want)) bad++;
                }
            }
        if (G & 1) /* the padding nibble of an odd group count stays 0 */
            for (int64_t r = 0; r < M; r++)
                if (meta[r * mb + mb - 1] >> 4) bad++;
        CHECK_MSG(bad == 0, "shape %lldx%lld: %d mismatches", (long long)M, (long long)K, bad);
        free(vals);
        free(dense);
        free(meta);
        free(x);
        ct_tensor_release(d);
        ct_tensor_release(back);
        ct_sparse24_free(s);
    }
}

TEST(metadata_known_bytes) {
    /* groups: kept (1,3) -> 0xD, kept (0,3) -> 0xC; byte 0 = 0xCD; third group (1,2) -> 0x9 */
    const float x[12] = {0, 5, 0, 7, 1, 0, 0, 2, 0, 3, -4, 0};
    ct_tensor *d = from_f32(x, 1, 12);
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_from_dense(ctx, d, CT_FLOAT32, &s));
    uint8_t m[2];
    float v[6];
    CHECK_OK(ct_tensor_to_host(ct_sparse24_metadata(s), m, 2));
    read_f32(ct_sparse24_values(s), v);
    CHECK(m[0] == 0xCD && m[1] == 0x09);
    CHECK(v[0] == 5 && v[1] == 7 && v[2] == 1 && v[3] == 2 && v[4] == 3 && v[5] == -4);
    ct_tensor_release(d);
    ct_sparse24_free(s);
}

TEST(from_dense_strict_roundtrip_and_error) {
    const int64_t M = 9, K = 40;
    float *x = calloc((size_t)(M * K), sizeof(float));
    for (int64_t r = 0; r < M; r++)
        for (int64_t g = 0; g < K / 4; g++) {
            int nz = (int)(urand() * 3); /* 0, 1 or 2 non-zeros */
            for (int j = 0; j < nz; j++)
                x[r * K + 4 * g + (int)(urand() * 4)] = (float)(urand() - 0.5);
            if (urand() < 0.3) { /* a -0.0 where there is room */
                int i = (int)(urand() * 4);
                if (x[r * K + 4 * g + i] == 0.0f && nz < 2) x[r * K + 4 * g + i] = -0.0f;
            }
        }
    ct_tensor *d = from_f32(x, M, K), *back = NULL;
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_from_dense(ctx, d, CT_FLOAT32, &s));
    CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &back));
    float *y = malloc(sizeof(float) * (size_t)(M * K));
    read_f32(back, y);
    CHECK(memcmp(x, y, sizeof(float) * (size_t)(M * K)) == 0); /* bit-exact, -0.0 kept */
    ct_sparse24_free(s);
    s = NULL;
    /* three non-zeros in row 4, group 3 */
    x[4 * K + 12] = 1, x[4 * K + 13] = 2, x[4 * K + 14] = 3;
    ct_tensor *d2 = from_f32(x, M, K);
    CHECK_ST(ct_sparse24_from_dense(ctx, d2, CT_FLOAT32, &s), CT_ERR_INVALID_ARG);
    CHECK(s == NULL);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "row 4, columns 12..15") != NULL, "%s",
              ct_ctx_last_error(ctx));
    /* prune accepts it */
    CHECK_OK(ct_sparse24_prune(ctx, d2, CT_FLOAT32, &s));
    ct_sparse24_free(s);
    free(x);
    free(y);
    ct_tensor_release(d);
    ct_tensor_release(d2);
    ct_tensor_release(back);
}

TEST(low_precision_values_match_element_casts) {
    const int64_t M = 6, K = 68;
    float *x = rand_matrix(M, K, 0);
    for (int64_t k = 0; k < K; k++)
        x[2 * K + k] = 0.0f; /* an all-zero row: scale 1 */
    x[3 * K + 5] = 1e-30f;   /* tiny values flush to zero codes */
    ct_tensor *d = from_f32(x, M, K);
    const ct_dtype dts[3] = {CT_BFLOAT16, CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2};
    const float fmax[3] = {0, 448.0f, 57344.0f};
    for (int t = 0; t < 3; t++) {
        ct_sparse24 *s = NULL;
        CHECK_OK(ct_sparse24_prune(ctx, d, dts[t], &s));
        CHECK(ct_sparse24_dtype(s) == dts[t]);
        CHECK(ct_tensor_dtype(ct_sparse24_values(s)) == dts[t]);
        const size_t es = t == 0 ? 2 : 1;
        uint8_t *codes = malloc((size_t)(M * K / 2) * es);
        CHECK_OK(ct_tensor_to_host(ct_sparse24_values(s), codes, (size_t)(M * K / 2) * es));
        float scales[6] = {1, 1, 1, 1, 1, 1};
        if (t > 0) {
            CHECK(ct_sparse24_scales(s) != NULL);
            read_f32(ct_sparse24_scales(s), scales);
        } else {
            CHECK(ct_sparse24_scales(s) == NULL);
        }
        int bad = 0;
        for (int64_t r = 0; r < M; r++) {
            float amax = 0;
            for (int64_t k = 0; k < K; k++)
                amax = fmaxf(amax, fabsf(x[r * K + k]));
            float want_scale = t == 0 ? 1.0f : amax > 0 ? amax / fmax[t] : 1.0f;
            if (scales[r] != want_scale) bad++;
            for (int64_t g = 0; g < K / 4; g++) {
                int a, b;
                oracle_pair(x + r * K + 4 * g, &a, &b);
                float kept[2] = {x[r * K + 4 * g + a], x[r * K + 4 * g + b]};
                for (int j = 0; j < 2; j++) {
                    const int64_t i = r * K / 2 + 2 * g + j;
                    if (t == 0) {
                        uint16_t got;
                        memcpy(&got, codes + 2 * i, 2);
                        if (got != ct_f32_to_bf16(kept[j])) bad++;
                    } else {
                        float q = kept[j] / want_scale;
                        uint8_t want;
                        ct_cast_f32_to(dts[t], &q, &want, 1, CT_CAST_SATURATE);
                        if (codes[i] != want) bad++;
                    }
                }
            }
        }
        CHECK_MSG(bad == 0, "%s: %d mismatches", ct_dtype_name(dts[t]), bad);
        /* to_dense: code value times the row scale */
        ct_tensor *back = NULL;
        CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &back));
        float *y = malloc(sizeof(float) * (size_t)(M * K));
        read_f32(back, y);
        int bad2 = 0;
        for (int64_t r = 0; r < M; r++)
            for (int64_t g = 0; g < K / 4; g++) {
                int a, b;
                oracle_pair(x + r * K + 4 * g, &a, &b);
                for (int j = 0; j < 2; j++) {
                    const int64_t i = r * K / 2 + 2 * g + j;
                    float v;
                    if (t == 0) {
                        uint16_t c16;
                        memcpy(&c16, codes + 2 * i, 2);
                        v = ct_bf16_to_f32(c16);
                    } else {
                        ct_cast_to_f32(dts[t], codes + i, &v, 1);
                        v *= scales[r];
                    }
                    if (!same_f32(y[r * K + 4 * g + (j ? b : a)], v)) bad2++;
                }
            }
        CHECK_MSG(bad2 == 0, "%s to_dense: %d mismatches", ct_dtype_name(dts[t]), bad2);
        free(y);
        free(codes);
        ct_tensor_release(back);
        ct_sparse24_free(s);
    }
    /* given scales */
    float gs[6] = {0.5f, 0.25f, 1, 2, 4, 0.125f};
    const int64_t six = 6;
    ct_tensor *gt = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, gs, CT_FLOAT32, 1, &six, &gt));
    ct_sparse24_options o = {sizeof o, gt};
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_prune_ex(ctx, d, CT_FLOAT8_E4M3FN, &o, &s));
    float sc[6];
    read_f32(ct_sparse24_scales(s), sc);
    CHECK(memcmp(sc, gs, sizeof gs) == 0);
    uint8_t c6[6 * 34];
    CHECK_OK(ct_tensor_to_host(ct_sparse24_values(s), c6, sizeof c6));
    const uint8_t c0 = c6[0];
    int a, b;
    oracle_pair(x, &a, &b);
    float q = x[a] / 0.5f;
    uint8_t want;
    ct_cast_f32_to(CT_FLOAT8_E4M3FN, &q, &want, 1, CT_CAST_SATURATE);
    CHECK(c0 == want);
    ct_sparse24_free(s);
    s = NULL;
    CHECK_ST(ct_sparse24_prune_ex(ctx, d, CT_FLOAT32, &o, &s), CT_ERR_INVALID_ARG);
    ct_tensor_release(gt);
    ct_tensor_release(d);
    free(x);
}

/* ---- oracle: the product in the documented order ---- */

typedef struct {
    int64_t M, K;
    float *vals; /* decoded kept values (without FP8 row scales) */
    int *kidx;   /* their k */
    float *scale;
} host_sparse;

static host_sparse host_of(const ct_sparse24 *s) {
    host_sparse h;
    h.M = ct_sparse24_shape(s)[0];
    h.K = ct_sparse24_shape(s)[1];
    const int64_t nv = h.M * h.K / 2, mb = (h.K / 4 + 1) / 2;
    ct_dtype dt = ct_sparse24_dtype(s);
    h.vals = malloc(sizeof(float) * (size_t)(nv ? nv : 1));
    h.kidx = malloc(sizeof(int) * (size_t)(nv ? nv : 1));
    h.scale = malloc(sizeof(float) * (size_t)(h.M ? h.M : 1));
    const size_t es = ct_dtype_size(dt);
    uint8_t *raw = malloc((size_t)(nv ? nv : 1) * es), *meta = malloc((size_t)(h.M * mb + 1));
    ct_tensor_to_host(ct_sparse24_values(s), raw, (size_t)nv * es);
    ct_tensor_to_host(ct_sparse24_metadata(s), meta, (size_t)(h.M * mb));
    for (int64_t i = 0; i < nv; i++) {
        if (dt == CT_FLOAT32)
            memcpy(&h.vals[i], raw + 4 * i, 4);
        else if (dt == CT_BFLOAT16) {
            uint16_t c;
            memcpy(&c, raw + 2 * i, 2);
            h.vals[i] = ct_bf16_to_f32(c);
        } else
            ct_cast_to_f32(dt, raw + i, &h.vals[i], 1);
        const int64_t r = i / (h.K / 2), j = i % (h.K / 2), g = j / 2;
        const unsigned nib = (meta[r * mb + g / 2] >> (4 * (g & 1))) & 15u;
        h.kidx[i] = (int)(4 * g + ((nib >> (2 * (j & 1))) & 3u));
    }
    for (int64_t r = 0; r < h.M; r++)
        h.scale[r] = 1.0f;
    if (ct_sparse24_scales(s)) read_f32(ct_sparse24_scales(s), h.scale);
    free(raw);
    free(meta);
    return h;
}

static void host_free(host_sparse *h) {
    free(h->vals);
    free(h->kidx);
    free(h->scale);
}

/* out (M, N) in the documented order (lanes for N <= 8, one chain above); bmat (K, N) row-major
 * f32 values (already decoded);
 * c = alpha * b_scale (exact in f32 in these tests); bias NULL or [M]. */
static void oracle_mm(const host_sparse *h, const float *bmat, int64_t N, float c,
                      const float *bias, float *out) {
    const int64_t K2 = h->K / 2;
    for (int64_t r = 0; r < h->M; r++) {
        const float mult = h->scale[r] * c, bb = bias ? bias[r] : 0.0f;
        for (int64_t n = 0; n < N; n++) {
            float acc;
            if (N <= 8) { /* sixteen lanes, then the fixed tree */
                float s[16] = {0};
                for (int64_t j = 0; j < K2; j++)
                    s[j % 16] =
                        fmaf(h->vals[r * K2 + j], bmat[h->kidx[r * K2 + j] * N + n], s[j % 16]);
                float t8[8], t4[4];
                for (int i = 0; i < 8; i++)
                    t8[i] = s[i] + s[i + 8];
                for (int i = 0; i < 4; i++)
                    t4[i] = t8[i] + t8[i + 4];
                acc = (t4[0] + t4[2]) + (t4[1] + t4[3]);
            } else {
                acc = 0.0f;
                for (int64_t j = 0; j < K2; j++)
                    acc = fmaf(h->vals[r * K2 + j], bmat[h->kidx[r * K2 + j] * N + n], acc);
            }
            out[r * N + n] = fmaf(acc, mult, bb);
        }
    }
}

/* B (K, N) of dtype bdt, optionally stored transposed (a strided view); its decoded f32 values. */
static ct_tensor *make_b(ct_dtype bdt, int64_t K, int64_t N, bool transposed, float *bval) {
    float *src = rand_matrix(K, N, 0);
    const size_t es = ct_dtype_size(bdt);
    uint8_t *raw = malloc((size_t)(K * N > 0 ? K * N : 1) * es);
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) {
            const int64_t at = transposed ? n * K + k : k * N + n;
            float v = src[k * N + n], d;
            if (bdt == CT_FLOAT32) {
                memcpy(raw + 4 * at, &v, 4);
                d = v;
            } else if (bdt == CT_BFLOAT16 || bdt == CT_FLOAT16) {
                uint16_t c = bdt == CT_BFLOAT16 ? ct_f32_to_bf16(v) : ct_f32_to_f16(v);
                memcpy(raw + 2 * at, &c, 2);
                d = bdt == CT_BFLOAT16 ? ct_bf16_to_f32(c) : ct_f16_to_f32(c);
            } else {
                ct_cast_f32_to(bdt, &v, raw + at, 1, CT_CAST_SATURATE);
                ct_cast_to_f32(bdt, raw + at, &d, 1);
            }
            bval[k * N + n] = d;
        }
    const int64_t shp[2] = {transposed ? N : K, transposed ? K : N};
    ct_tensor *t = NULL, *v = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, raw, bdt, 2, shp, &t));
    if (transposed) {
        CHECK_OK(ct_tensor_transpose(ctx, t, 0, 1, &v));
        ct_tensor_release(t);
        t = v;
    }
    free(raw);
    free(src);
    return t;
}

TEST(mm_bit_exact_with_the_documented_order) {
    const int64_t Ms[] = {1, 5, 13, 130};
    const int64_t Ks[] = {4, 12, 36, 132, 260};
    const int64_t Ns[] = {1, 2, 7, 8, 9, 17, 33, 65, 100, 600};
    const ct_dtype vdts[] = {CT_FLOAT32, CT_BFLOAT16, CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2};
    const ct_dtype bdts[] = {CT_FLOAT32, CT_BFLOAT16, CT_FLOAT8_E4M3FN, CT_FLOAT16};
    int cases = 0, bad_cases = 0;
    for (size_t mi = 0; mi < 4; mi++)
        for (size_t ki = 0; ki < 5; ki++)
            for (size_t ni = 0; ni < 10; ni++) {
                const int64_t M = Ms[mi], K = Ks[ki], N = Ns[ni];
                if (M * K * N > 3000000) continue;
                const int combo = (int)(mi * 50 + ki * 10 + ni);
                const ct_dtype vdt = vdts[combo % 4], bdt = bdts[(combo / 4) % 4];
                const bool tr = combo % 3 == 0, with_bias = combo % 2 == 0;
                float *x = rand_matrix(M, K, 0), *bval = malloc(sizeof(float) * (size_t)(K * N));
                float *bias = rand_matrix(1, M, 0);
                if (combo % 5 == 0) x[(M / 2) * K + K / 2] = NAN; /* a NaN code: its row is NaN */
                ct_tensor *d = from_f32(x, M, K), *b = make_b(bdt, K, N, tr, bval), *bt = NULL,
                          *out = NULL;
                const int64_t Mv = M;
                CHECK_OK(ct_tensor_from_host(ctx, bias, CT_FLOAT32, 1, &Mv, &bt));
                ct_sparse24 *s = NULL;
                CHECK_OK(ct_sparse24_prune(ctx, d, vdt, &s));
                const ct_sparse24_mm_options o = {sizeof o, bdt == CT_FLOAT8_E4M3FN ? 2.0 : 0.0};
                const double alpha = 0.75;
                CHECK_OK(ct_sparse24_mm_ex(ctx, s, b, with_bias ? bt : NULL, alpha, CT_FLOAT32, &o,
                                           &out));
                float *got = malloc(sizeof(float) * (size_t)(M * N)),
                      *want = malloc(sizeof(float) * (size_t)(M * N));
                read_f32(out, got);
                host_sparse h = host_of(s);
                oracle_mm(&h, bval, N, (float)(alpha * (o.b_scale ? o.b_scale : 1.0)),
                          with_bias ? bias : NULL, want);
                int bad = 0;
                for (int64_t i = 0; i < M * N; i++)
                    bad += !same_f32(got[i], want[i]);
                cases++;
                if (bad) {
                    bad_cases++;
                    printf(
                        "  M=%lld K=%lld N=%lld values %s B %s%s: %d of %lld differ (got %g want "
                        "%g)\n",
                        (long long)M, (long long)K, (long long)N, ct_dtype_name(vdt),
                        ct_dtype_name(bdt), tr ? " transposed" : "", bad, (long long)(M * N),
                        got[0], want[0]);
                }
                host_free(&h);
                free(got);
                free(want);
                free(x);
                free(bval);
                free(bias);
                ct_tensor_release(d);
                ct_tensor_release(b);
                ct_tensor_release(bt);
                ct_tensor_release(out);
                ct_sparse24_free(s);
            }
    CHECK_MSG(bad_cases == 0, "%d of %d cases differ", bad_cases, cases);
    CHECK(cases > 150);
}

/* N = 1 (the two-rows-a-step kernels) for every kind of values: odd and even row counts, K with
 * and without tail groups, B contiguous f32 or transposed bf16, a NaN weight in some cases. */
TEST(mm_n1_every_value_kind) {
    const ct_dtype vdts[] = {CT_FLOAT32, CT_BFLOAT16, CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2};
    const int64_t Ms[] = {1, 2, 3, 8, 9}, Ks[] = {4, 32, 36, 100, 260};
    int cases = 0, bad_cases = 0;
    for (int vi = 0; vi < 4; vi++)
        for (int mi = 0; mi < 5; mi++)
            for (int ki = 0; ki < 5; ki++) {
                const int64_t M = Ms[mi], K = Ks[ki];
                const int combo = vi * 25 + mi * 5 + ki;
                const ct_dtype bdt = combo % 3 == 0 ? CT_BFLOAT16 : CT_FLOAT32;
                float *x = rand_matrix(M, K, 0), *bval = malloc(sizeof(float) * (size_t)K);
                if (combo % 7 == 0) x[(M / 2) * K + K / 2] = NAN;
                ct_tensor *d = from_f32(x, M, K), *b = make_b(bdt, K, 1, combo % 3 == 0, bval),
                          *out = NULL;
                ct_sparse24 *s = NULL;
                CHECK_OK(ct_sparse24_prune(ctx, d, vdts[vi], &s));
                CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_FLOAT32, &out));
                float *got = malloc(sizeof(float) * (size_t)M),
                      *want = malloc(sizeof(float) * (size_t)M);
                read_f32(out, got);
                host_sparse h = host_of(s);
                oracle_mm(&h, bval, 1, 1.0f, NULL, want);
                int bad = 0;
                for (int64_t r = 0; r < M; r++)
                    bad += !same_f32(got[r], want[r]);
                cases++;
                if (bad) {
                    bad_cases++;
                    printf("  values %s M=%lld K=%lld: %d rows differ (row 0 got %a want %a)\n",
                           ct_dtype_name(vdts[vi]), (long long)M, (long long)K, bad, got[0],
                           want[0]);
                }
                host_free(&h);
                free(got);
                free(want);
                free(x);
                free(bval);
                ct_tensor_release(d);
                ct_tensor_release(b);
                ct_tensor_release(out);
                ct_sparse24_free(s);
            }
    CHECK_MSG(bad_cases == 0, "%d of %d cases differ", bad_cases, cases);
    CHECK(cases == 100);
}

/* N = 1 with FP8 values built code by code (ct_sparse24_from_parts): every code, zeros,
 * subnormals, NaN and inf among normal ones, in full 16-value steps of two rows and in the tail
 * groups; rows with normal codes only (the fast decode); even and odd row counts. Variant 1: no
 * NaN codes (zeros and subnormals in the AVX2 f16 decode); variant 2: codes below 2^-3 against
 * x with elements 2^121 (256 x would overflow: that kernel must not be used; the sums are
 * finite). Against the oracle, whose decode is ct_cast_to_f32. */
TEST(mm_n1_fp8_every_code_and_tails) {
    const ct_dtype vdts[2] = {CT_FLOAT8_E4M3FN, CT_FLOAT8_E5M2};
    const int64_t Ms[2] = {6, 7}, Ks[3] = {32, 108, 260};
    int cases = 0;
    for (int var = 0; var < 3; var++)
        for (int vi = 0; vi < 2; vi++)
            for (int mi = 0; mi < 2; mi++)
                for (int ki = 0; ki < 3; ki++) {
                    const int64_t M = Ms[mi], K = Ks[ki], K2 = K / 2, mb = (K / 4 + 1) / 2;
                    uint8_t *codes = malloc((size_t)(M * K2)), *meta = calloc((size_t)(M * mb), 1);
                    float *scale = malloc(sizeof(float) * (size_t)M);
                    static const uint8_t pairs[6] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE}; /* a | b << 2 */
                    for (int64_t r = 0; r < M; r++) {
                        scale[r] = (float)(0.5 + urand());
                        for (int64_t j = 0; j < K2; j++) {
                            uint8_t c = (uint8_t)((j * 37 + r * 11 + vi) & 0xFF);
                            if (r % 3 == 2) { /* normal codes only: exponent field 1 .. max-1 */
                                const unsigned e =
                                    vi == 0 ? 1u + (unsigned)(j % 14) : 1u + (unsigned)(j % 29);
                                const unsigned mbits = vi == 0 ? 3u : 2u;
                                c = (uint8_t)((c & 0x80u) | (e << mbits) |
                                              (c & ((1u << mbits) - 1u)));
                            }
                            if (var == 1 && vi == 0 && (c & 0x7F) == 0x7F)
                                c &= 0x80;                            /* NaN -> +-0 */
                            if (var == 2) c &= vi == 0 ? 0x9F : 0xBF; /* E4M3 < 2^-3, E5M2 < 2^-7 */
                            codes[r * K2 + j] = c;
                        }
                        for (int64_t g = 0; g < K / 4; g++)
                            meta[r * mb + g / 2] |=
                                (uint8_t)(pairs[(g * 5 + r) % 6] << (4 * (g & 1)));
                    }
                    const int64_t vs[2] = {M, K2}, ms[2] = {M, mb};
                    ct_tensor *vt = NULL, *mt = NULL, *st = NULL, *b = NULL, *out = NULL;
                    CHECK_OK(ct_tensor_from_host(ctx, codes, vdts[vi], 2, vs, &vt));
                    CHECK_OK(ct_tensor_from_host(ctx, meta, CT_UINT8, 2, ms, &mt));
                    CHECK_OK(ct_tensor_from_host(ctx, scale, CT_FLOAT32, 1, &M, &st));
                    ct_sparse24 *s = NULL;
                    CHECK_OK(ct_sparse24_from_parts(ctx, M, K, vt, mt, st, &s));
                    float *bm = rand_matrix(K, 1, 0), *got = malloc(sizeof(float) * (size_t)M),
                          *want = malloc(sizeof(float) * (size_t)M);
                    if (var == 2)
                        for (int64_t k = 0; k < K; k += 3)
                            bm[k] = k % 2 ? 0x1p121f : -0x1p121f;
                    b = from_f32(bm, K, 1);
                    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_FLOAT32, &out));
                    read_f32(out, got);
                    host_sparse h = host_of(s);
                    oracle_mm(&h, bm, 1, 1.0f, NULL, want);
                    int bad = 0;
                    for (int64_t r = 0; r < M; r++)
                        if (!same_f32(got[r], want[r])) {
                            if (bad++ < 3)
                                printf("  %s M=%lld K=%lld row %lld: got %a want %a\n",
                                       ct_dtype_name(vdts[vi]), (long long)M, (long long)K,
                                       (long long)r, got[r], want[r]);
                        }
                    CHECK(bad == 0);
                    int finite = 0; /* the normal-only rows are finite: the case is not all NaN */
                    for (int64_t r = 2; r < M; r += 3)
                        finite += isfinite(got[r]) != 0;
                    CHECK(finite == (int)((M - 2 + 2) / 3));
                    if (var == 2 || (var == 1 && vi == 0)) /* no NaN (nor inf) code: finite rows */
                        for (int64_t r = 0; r < M; r++)
                            CHECK(isfinite(got[r]));
                    cases++;
                    host_free(&h);
                    free(codes);
                    free(meta);
                    free(scale);
                    free(bm);
                    free(got);
                    free(want);
                    ct_tensor_release(vt);
                    ct_tensor_release(mt);
                    ct_tensor_release(st);
                    ct_tensor_release(b);
                    ct_tensor_release(out);
                    ct_sparse24_free(s);
                }
    CHECK(cases == 36);
}

TEST(mm_exact_on_small_integers_vs_dense_matmul) {
    const int64_t M = 37, K = 76, N = 45;
    float *x = rand_matrix(M, K, 1), *bm = rand_matrix(K, N, 1);
    ct_tensor *d = from_f32(x, M, K), *b = from_f32(bm, K, N), *out = NULL, *dense = NULL,
              *ref = NULL;
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT32, &s));
    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_FLOAT32, &out));
    CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &dense));
    CHECK_OK(ct_matmul(ctx, dense, b, &ref));
    float *g = malloc(sizeof(float) * M * N), *r = malloc(sizeof(float) * M * N);
    read_f32(out, g);
    read_f32(ref, r);
    CHECK(memcmp(g, r, sizeof(float) * M * N) == 0);
    /* bf16 output: the f32 result rounded once */
    ct_tensor *ob = NULL;
    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_BFLOAT16, &ob));
    CHECK(ct_tensor_dtype(ob) == CT_BFLOAT16);
    uint16_t *gb = malloc(2 * M * N);
    CHECK_OK(ct_tensor_to_host(ob, gb, 2 * M * N));
    int bad = 0;
    for (int64_t i = 0; i < M * N; i++)
        bad += gb[i] != ct_f32_to_bf16(r[i]);
    CHECK(bad == 0);
    free(gb);
    free(g);
    free(r);
    free(x);
    free(bm);
    ct_tensor_release(d);
    ct_tensor_release(b);
    ct_tensor_release(out);
    ct_tensor_release(ob);
    ct_tensor_release(dense);
    ct_tensor_release(ref);
    ct_sparse24_free(s);
}

TEST(mm_random_within_rounding_bound) {
    const int64_t M = 64, K = 512, N = 96;
    float *x = rand_matrix(M, K, 0), *bm = rand_matrix(K, N, 0);
    ct_tensor *d = from_f32(x, M, K), *b = from_f32(bm, K, N), *out = NULL, *dense = NULL;
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT32, &s));
    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_FLOAT32, &out));
    CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &dense));
    float *g = malloc(sizeof(float) * M * N), *a = malloc(sizeof(float) * M * K);
    read_f32(out, g);
    read_f32(dense, a);
    double worst = 0;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double ex = 0, mag = 0;
            for (int64_t k = 0; k < K; k++) {
                ex += (double)a[m * K + k] * bm[k * N + n];
                mag += fabs((double)a[m * K + k] * bm[k * N + n]);
            }
            double rel = fabs(g[m * N + n] - ex) / (mag * (K / 2) * 0x1p-24);
            if (rel > worst) worst = rel;
        }
    CHECK_MSG(worst <= 1.0, "error %.3g of the K/2 * eps * sum|ab| bound", worst);
    free(g);
    free(a);
    free(x);
    free(bm);
    ct_tensor_release(d);
    ct_tensor_release(b);
    ct_tensor_release(out);
    ct_tensor_release(dense);
    ct_sparse24_free(s);
}

TEST(linear_matches_mm) {
    const int64_t O = 24, I = 40;
    float *w = rand_matrix(O, I, 0), *bias = rand_matrix(1, O, 0);
    ct_tensor *wt = from_f32(w, O, I), *bt = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, bias, CT_FLOAT32, 1, &O, &bt));
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_prune(ctx, wt, CT_FLOAT8_E4M3FN, &s));
    host_sparse h = host_of(s);
    const int64_t batches[] = {1, 6};
    for (int bi = 0; bi < 2; bi++) {
        const int64_t B = batches[bi], xs[3] = {B, 1, I};
        float *x = rand_matrix(B, I, 0);
        ct_tensor *xt = NULL, *y = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, x, CT_FLOAT32, 3, xs, &xt));
        CHECK_OK(ct_sparse24_linear(ctx, xt, s, bt, &y));
        const int64_t ys[3] = {B, 1, O};
        CHECK(tu_same_shape(y, 3, ys));
        /* oracle: A (O x I) @ x^T (I x B) */
        float *xT = malloc(sizeof(float) * I * B), *want = malloc(sizeof(float) * O * B),
              *got = malloc(sizeof(float) * O * B);
        for (int64_t k = 0; k < I; k++)
            for (int64_t n = 0; n < B; n++)
                xT[k * B + n] = x[n * I + k];
        oracle_mm(&h, xT, B, 1.0f, bias, want);
        read_f32(y, got);
        int bad = 0;
        for (int64_t n = 0; n < B; n++)
            for (int64_t o = 0; o < O; o++)
                bad += !same_f32(got[n * O + o], want[o * B + n]);
        CHECK_MSG(bad == 0, "batch %lld: %d differ", (long long)B, bad);
        /* bf16 x: y in bf16 */
        ct_tensor *xb = NULL, *yb = NULL;
        CHECK_OK(ct_cast(ctx, xt, CT_BFLOAT16, &xb));
        CHECK_OK(ct_sparse24_linear(ctx, xb, s, NULL, &yb));
        CHECK(ct_tensor_dtype(yb) == CT_BFLOAT16 && tu_same_shape(yb, 3, ys));
        free(xT);
        free(want);
        free(got);
        free(x);
        ct_tensor_release(xt);
        ct_tensor_release(y);
        ct_tensor_release(xb);
        ct_tensor_release(yb);
    }
    host_free(&h);
    free(w);
    free(bias);
    ct_tensor_release(wt);
    ct_tensor_release(bt);
    ct_sparse24_free(s);
}

TEST(from_parts_roundtrip_and_bad_metadata) {
    const int64_t M = 5, K = 24;
    float *x = rand_matrix(M, K, 0);
    ct_tensor *d = from_f32(x, M, K);
    ct_sparse24 *s = NULL, *p = NULL;
    CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT8_E5M2, &s));
    CHECK_OK(ct_sparse24_from_parts(ctx, M, K, ct_sparse24_values(s), ct_sparse24_metadata(s),
                                    ct_sparse24_scales(s), &p));
    ct_tensor *a = NULL, *b = NULL;
    CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &a));
    CHECK_OK(ct_sparse24_to_dense(ctx, p, CT_FLOAT32, &b));
    float *ya = malloc(sizeof(float) * M * K), *yb = malloc(sizeof(float) * M * K);
    read_f32(a, ya);
    read_f32(b, yb);
    CHECK(memcmp(ya, yb, sizeof(float) * M * K) == 0);
    /* a nibble with first index >= second */
    const int64_t mbs[2] = {M, 3};
    uint8_t meta[15];
    CHECK_OK(ct_tensor_to_host(ct_sparse24_metadata(s), meta, 15));
    meta[7] = (uint8_t)((meta[7] & 0xF0) | 0x5); /* (1, 1) */
    ct_tensor *mt = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, meta, CT_UINT8, 2, mbs, &mt));
    ct_sparse24 *q = NULL;
    CHECK_ST(
        ct_sparse24_from_parts(ctx, M, K, ct_sparse24_values(s), mt, ct_sparse24_scales(s), &q),
        CT_ERR_FORMAT);
    CHECK(q == NULL && strstr(ct_ctx_last_error(ctx), "row 2 group 2") != NULL);
    CHECK_ST(
        ct_sparse24_from_parts(ctx, M, K, ct_sparse24_values(s), ct_sparse24_metadata(s), NULL, &q),
        CT_ERR_FORMAT);
    CHECK_ST(ct_sparse24_from_parts(ctx, M, K + 4, ct_sparse24_values(s), ct_sparse24_metadata(s),
                                    ct_sparse24_scales(s), &q),
             CT_ERR_FORMAT);
    free(ya);
    free(yb);
    free(x);
    ct_tensor_release(d);
    ct_tensor_release(a);
    ct_tensor_release(b);
    ct_tensor_release(mt);
    ct_sparse24_free(s);
    ct_sparse24_free(p);
}

TEST(zero_sizes) {
    const int64_t shapes[][3] = {{0, 8, 3}, {4, 0, 3}, {4, 8, 0}};
    for (int c = 0; c < 3; c++) {
        const int64_t M = shapes[c][0], K = shapes[c][1], N = shapes[c][2];
        const int64_t ds[2] = {M, K}, bs[2] = {K, N};
        ct_tensor *d = NULL, *b = NULL, *out = NULL, *back = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, ds, &d));
        CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, bs, &b));
        ct_sparse24 *s = NULL;
        { /* leave NaN in the allocator's cache: nothing below may read uninitialised scales */
            ct_tensor *junk = NULL;
            const int64_t jn = 64;
            CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 1, &jn, NAN, &junk));
            ct_tensor_release(junk);
        }
        CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT8_E4M3FN, &s));
        if (M > 0) { /* a row without a finite non-zero (here: no values) has scale 1 */
            float sc[4] = {0};
            read_f32(ct_sparse24_scales(s), sc);
            for (int64_t i = 0; i < M; i++)
                CHECK(sc[i] == 1.0f);
        }
        CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &back));
        CHECK(tu_same_shape(back, 2, ds));
        CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_FLOAT32, &out));
        const int64_t os[2] = {M, N};
        CHECK(tu_same_shape(out, 2, os));
        if (M * N > 0) { /* K == 0: empty sums are 0 */
            float v[24];
            read_f32(out, v);
            for (int64_t i = 0; i < M * N; i++)
                CHECK(v[i] == 0.0f);
        }
        ct_tensor_release(d);
        ct_tensor_release(b);
        ct_tensor_release(out);
        ct_tensor_release(back);
        ct_sparse24_free(s);
    }
}

TEST(errors_name_the_values) {
    const float x[24] = {0};
    ct_tensor *d6 = from_f32(x, 4, 6), *d = from_f32(x, 2, 12), *b = from_f32(x, 5, 2);
    ct_sparse24 *s = NULL;
    CHECK_ST(ct_sparse24_prune(ctx, d6, CT_FLOAT32, &s), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "K = 6 is not a multiple of 4") != NULL);
    CHECK_ST(ct_sparse24_prune(ctx, d, CT_INT32, &s), CT_ERR_DTYPE);
    CHECK_ST(ct_sparse24_prune(ctx, NULL, CT_FLOAT32, &s), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_sparse24_prune(ctx, d, CT_FLOAT32, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_sparse24_prune(NULL, d, CT_FLOAT32, &s), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT32, &s));
    ct_tensor *out = NULL;
    CHECK_ST(ct_sparse24_mm(ctx, s, b, NULL, 1.0, CT_FLOAT32, &out), CT_ERR_SHAPE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "a is 2x12, b is 5x2") != NULL, "%s",
              ct_ctx_last_error(ctx));
    ct_tensor *b2 = from_f32(x, 12, 2), *bias = from_f32(x, 1, 3);
    CHECK_ST(ct_sparse24_mm(ctx, s, b2, NULL, 1.0, CT_FLOAT16, &out), CT_ERR_DTYPE);
    CHECK_ST(ct_sparse24_mm(ctx, s, b2, bias, 1.0, CT_FLOAT32, &out), CT_ERR_SHAPE);
    CHECK_ST(ct_sparse24_mm(ctx, NULL, b2, NULL, 1.0, CT_FLOAT32, &out), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_sparse24_to_dense(ctx, s, CT_INT64, &out), CT_ERR_DTYPE);
    CHECK_ST(ct_sparse24_linear(ctx, b, s, NULL, &out), CT_ERR_SHAPE);
    CHECK(out == NULL);
    /* another context's matrix */
    ct_ctx *other = NULL;
    CHECK_OK(ct_ctx_create(NULL, &other));
    CHECK_ST(ct_sparse24_mm(other, s, b2, NULL, 1.0, CT_FLOAT32, &out), CT_ERR_INVALID_ARG);
    ct_ctx_free(other);
    CHECK(ct_sparse24_values(NULL) == NULL && ct_sparse24_shape(NULL) == NULL &&
          ct_sparse24_dtype(NULL) == CT_DTYPE_COUNT);
    ct_sparse24_free(NULL);
    ct_tensor_release(d6);
    ct_tensor_release(d);
    ct_tensor_release(b);
    ct_tensor_release(b2);
    ct_tensor_release(bias);
    ct_sparse24_free(s);
}

TEST(capture_replays_mm_and_refuses_strict) {
    const int64_t M = 40, K = 64, N = 24;
    float *x = rand_matrix(M, K, 0), *bm = rand_matrix(K, N, 0);
    ct_tensor *d = from_f32(x, M, K), *b = from_f32(bm, K, N), *eager = NULL, *cap = NULL;
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_prune(ctx, d, CT_FLOAT8_E4M3FN, &s));
    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 0.5, CT_FLOAT32, &eager));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, ct_tensor_device(d), NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 0.5, CT_FLOAT32, &cap));
    ct_sparse24 *s2 = NULL;
    CHECK_ST(ct_sparse24_from_dense(ctx, d, CT_FLOAT32, &s2), CT_ERR_UNSUPPORTED);
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_UNSUPPORTED); /* invalidated by the refusal */
    CHECK_OK(ct_graph_reset(g));
    ct_tensor_release(cap);
    cap = NULL;
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_sparse24_mm(ctx, s, b, NULL, 0.5, CT_FLOAT32, &cap));
    CHECK(ct_graph_num_nodes(g) >= 1);
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_replay(g));
    float *e = malloc(sizeof(float) * M * N), *c = malloc(sizeof(float) * M * N);
    read_f32(eager, e);
    read_f32(cap, c);
    CHECK(memcmp(e, c, sizeof(float) * M * N) == 0);
    ct_graph_free(g);
    free(e);
    free(c);
    free(x);
    free(bm);
    ct_tensor_release(d);
    ct_tensor_release(b);
    ct_tensor_release(eager);
    ct_tensor_release(cap);
    ct_sparse24_free(s);
}

/* Gradients reach the dense inputs of mm (B, bias) and linear (x, b) with torch's formulas,
 * checked against sums computed here in double: dB = alpha * A^T G, dbias = G summed over N,
 * dx = G W, db = G summed over the batch. The sparse matrix itself is not a graph tensor. */
TEST(backward_to_the_dense_inputs) {
    const int64_t M = 6, K = 16, N = 5;
    float *a = rand_matrix(M, K, 0), *bv = rand_matrix(K, N, 0), *gv = rand_matrix(M, N, 0),
          *biasv = rand_matrix(1, M, 0);
    ct_tensor *at = from_f32(a, M, K), *b = from_f32(bv, K, N), *g = from_f32(gv, M, N),
              *bias = NULL, *out = NULL, *dense = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, biasv, CT_FLOAT32, 1, &M, &bias));
    ct_sparse24 *s = NULL;
    CHECK_OK(ct_sparse24_prune(ctx, at, CT_FLOAT32, &s));
    CHECK_OK(ct_sparse24_to_dense(ctx, s, CT_FLOAT32, &dense));
    float ad[6 * 16];
    read_f32(dense, ad);
    CHECK_OK(ct_tensor_set_requires_grad(b, true));
    CHECK_OK(ct_tensor_set_requires_grad(bias, true));
    CHECK_OK(ct_sparse24_mm(ctx, s, b, bias, 0.5, CT_FLOAT32, &out));
    CHECK(ct_tensor_requires_grad(out));
    CHECK_OK(ct_backward(ctx, out, g, false));
    float gb[16 * 5], gbias[6];
    CHECK(ct_tensor_grad(b) && ct_tensor_grad(bias));
    read_f32(ct_tensor_grad(b), gb);
    read_f32(ct_tensor_grad(bias), gbias);
    double worst = 0;
    for (int64_t k = 0; k < K; k++)
        for (int64_t n = 0; n < N; n++) {
            double e = 0;
            for (int64_t m = 0; m < M; m++)
                e += 0.5 * ad[m * K + k] * gv[m * N + n];
            worst = fmax(worst, fabs(gb[k * N + n] - e));
        }
    for (int64_t m = 0; m < M; m++) {
        double e = 0;
        for (int64_t n = 0; n < N; n++)
            e += gv[m * N + n];
        worst = fmax(worst, fabs(gbias[m] - e));
    }
    CHECK_MSG(worst < 1e-5, "mm gradients off by %g", worst);
    /* linear: x (2, 3, K), W = the same 2:4 matrix (M x K), b (M) */
    const int64_t xs[3] = {2, 3, K}, gs[3] = {2, 3, M};
    float *xv = rand_matrix(6, K, 0), *g2 = rand_matrix(6, M, 0);
    ct_tensor *x = NULL, *gy = NULL, *y = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 3, xs, &x));
    CHECK_OK(ct_tensor_from_host(ctx, g2, CT_FLOAT32, 3, gs, &gy));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_tensor_zero_grad(bias));
    CHECK_OK(ct_sparse24_linear(ctx, x, s, bias, &y));
    CHECK_OK(ct_backward(ctx, y, gy, false));
    float gx[6 * 16], gb2[6];
    read_f32(ct_tensor_grad(x), gx);
    read_f32(ct_tensor_grad(bias), gb2);
    worst = 0;
    for (int64_t r = 0; r < 6; r++)
        for (int64_t k = 0; k < K; k++) {
            double e = 0;
            for (int64_t m = 0; m < M; m++)
                e += (double)g2[r * M + m] * ad[m * K + k];
            worst = fmax(worst, fabs(gx[r * K + k] - e));
        }
    for (int64_t m = 0; m < M; m++) {
        double e = 0;
        for (int64_t r = 0; r < 6; r++)
            e += g2[r * M + m];
        worst = fmax(worst, fabs(gb2[m] - e));
    }
    CHECK_MSG(worst < 1e-5, "linear gradients off by %g", worst);
    /* no grad mode: nothing recorded */
    const bool prev = ct_set_grad_enabled(ctx, false);
    ct_tensor *y2 = NULL;
    CHECK_OK(ct_sparse24_linear(ctx, x, s, bias, &y2));
    CHECK(!ct_tensor_requires_grad(y2));
    ct_set_grad_enabled(ctx, prev);
    ct_tensor *all[] = {at, b, g, bias, out, dense, x, gy, y, y2};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    free(a), free(bv), free(gv), free(biasv), free(xv), free(g2);
    ct_sparse24_free(s);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    printf("isa %s\n", ct_ctx_cpu_isa(ctx));
    RUN(prune_matches_oracle_and_layout);
    RUN(metadata_known_bytes);
    RUN(from_dense_strict_roundtrip_and_error);
    RUN(low_precision_values_match_element_casts);
    RUN(mm_bit_exact_with_the_documented_order);
    RUN(mm_n1_every_value_kind);
    RUN(mm_n1_fp8_every_code_and_tails);
    RUN(mm_exact_on_small_integers_vs_dense_matmul);
    RUN(mm_random_within_rounding_bound);
    RUN(linear_matches_mm);
    RUN(from_parts_roundtrip_and_bad_metadata);
    RUN(zero_sizes);
    RUN(errors_name_the_values);
    RUN(capture_replays_mm_and_refuses_strict);
    RUN(backward_to_the_dense_inputs);
    ct_ctx_free(ctx);
    return ct_test_end();
}

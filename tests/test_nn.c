/* rms_norm, group_norm, batch_norm (training with running statistics, evaluation), dropout and pad
 * against naive double-precision loops; f16/bf16 and strided inputs; gradients against central
 * differences; errors; capture and replay. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 777;

static bool close_to(double got, double want, double tol) {
    if (isnan(want)) return isnan(got);
    return fabs(got - want) <= tol * (1 + fabs(want));
}

static ct_tensor *from(const double *v, ct_dtype dt, int nd, const int64_t *shape) {
    ct_tensor *d = NULL, *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &d));
    CHECK_OK(ct_cast(ctx, d, dt, &t));
    ct_tensor_release(d);
    return t;
}

TEST(rms_and_group_norm) {
    int64_t shape[3] = {3, 6, 5};
    for (int di = 0; di < 3; di++)
        for (int mode = 0; mode < 3; mode++) {
            ct_dtype dt = di == 0 ? CT_FLOAT32 : di == 1 ? CT_FLOAT64 : CT_BFLOAT16;
            double tol = dt == CT_FLOAT64 ? 1e-12 : dt == CT_FLOAT32 ? 1e-5 : 1e-2;
            double *v;
            ct_tensor *x = tu_make(ctx, &rng, dt, 3, shape, mode, -2, 2, &v);
            double wv[30], bv[6];
            for (int i = 0; i < 30; i++)
                wv[i] = tu_rand_val(&rng, CT_FLOAT64, 0.5, 1.5);
            for (int i = 0; i < 6; i++)
                bv[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1);
            /* rms over the last 2 dims with a (6, 5) weight */
            int64_t ws[2] = {6, 5};
            ct_tensor *w = from(wv, dt, 2, ws), *y = NULL;
            double *wr = tu_read(w); /* the weight as the op sees it (rounded to dt) */
            CHECK_OK(ct_rms_norm(ctx, x, 2, w, 1e-5, &y));
            double *g = y ? tu_read(y) : NULL;
            CHECK(y && ct_tensor_dtype(y) == dt && tu_same_shape(y, 3, shape));
            for (int n = 0; g && n < 3; n++) {
                double ms = 0;
                for (int i = 0; i < 30; i++)
                    ms += v[n * 30 + i] * v[n * 30 + i];
                double r = 1 / sqrt(ms / 30 + 1e-5);
                for (int i = 0; i < 30; i++)
                    CHECK_MSG(close_to(g[n * 30 + i], v[n * 30 + i] * r * wr[i], tol),
                              "rms %s mode %d [%d,%d]: %g vs %g", ct_dtype_name(dt), mode, n, i,
                              g[n * 30 + i], v[n * 30 + i] * r * wr[i]);
            }
            free(g), free(wr);
            ct_tensor_release(y), ct_tensor_release(w);
            /* group norm: 3 groups of 2 channels x 5 */
            int64_t cs = 6;
            ct_tensor *gw = from(wv, dt, 1, &cs), *gb = from(bv, dt, 1, &cs);
            double *gwr = tu_read(gw), *gbr = tu_read(gb);
            CHECK_OK(ct_group_norm(ctx, x, 3, gw, gb, 1e-5, &y));
            g = y ? tu_read(y) : NULL;
            for (int n = 0; g && n < 3; n++)
                for (int gi = 0; gi < 3; gi++) {
                    double m = 0, s = 0;
                    for (int i = 0; i < 10; i++)
                        m += v[n * 30 + gi * 10 + i];
                    m /= 10;
                    for (int i = 0; i < 10; i++) {
                        double dv = v[n * 30 + gi * 10 + i] - m;
                        s += dv * dv;
                    }
                    double r = 1 / sqrt(s / 10 + 1e-5);
                    for (int i = 0; i < 10; i++) {
                        int c = gi * 2 + i / 5, k = n * 30 + gi * 10 + i;
                        double want = (v[k] - m) * r * gwr[c] + gbr[c];
                        CHECK_MSG(close_to(g[k], want, tol), "group_norm %s [%d]: %g vs %g",
                                  ct_dtype_name(dt), k, g[k], want);
                    }
                }
            free(g), free(gwr), free(gbr), free(v);
            ct_tensor_release(y), ct_tensor_release(gw), ct_tensor_release(gb);
            ct_tensor_release(x);
        }
    /* errors */
    int64_t s2[2] = {4, 6};
    ct_tensor *x = NULL, *y = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s2, &x));
    CHECK_ST(ct_group_norm(ctx, x, 4, NULL, NULL, 1e-5, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "6 channels are not divisible into 4 groups") != NULL);
    CHECK_ST(ct_rms_norm(ctx, x, 3, NULL, 1e-5, &y), CT_ERR_INVALID_ARG);
    int64_t five = 5;
    ct_tensor *bad = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &five, &bad));
    CHECK_ST(ct_rms_norm(ctx, x, 1, bad, 1e-5, &y), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "weight is [5], expected [6]") != NULL);
    ct_tensor_release(bad), ct_tensor_release(x);
    int32_t iv[4] = {1, 2, 3, 4};
    int64_t four = 4;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 1, &four, &x));
    CHECK_ST(ct_rms_norm(ctx, x, 1, NULL, 1e-5, &y), CT_ERR_DTYPE);
    ct_tensor_release(x);
}

TEST(batch_norm_train_and_eval) {
    int64_t shape[4] = {4, 3, 2, 5};
    double *v;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 4, shape, 1, -2, 3, &v);
    double rm0[3] = {0.1, -0.2, 0.3}, rv0[3] = {1.0, 2.0, 0.5}, wv[3] = {1.5, 0.5, -1},
           bv[3] = {0, 1, 2};
    int64_t c3 = 3;
    ct_tensor *rm = from(rm0, CT_FLOAT64, 1, &c3), *rv = from(rv0, CT_FLOAT64, 1, &c3);
    ct_tensor *w = from(wv, CT_FLOAT64, 1, &c3), *b = from(bv, CT_FLOAT64, 1, &c3), *y = NULL;
    CHECK_OK(ct_batch_norm(ctx, x, rm, rv, w, b, true, 0.1, 1e-5, &y));
    double *g = tu_read(y), rmn[3], rvn[3];
    CHECK_OK(ct_tensor_to_host(rm, rmn, sizeof rmn));
    CHECK_OK(ct_tensor_to_host(rv, rvn, sizeof rvn));
    for (int c = 0; c < 3; c++) {
        double m = 0, s = 0;
        int cnt = 0;
        for (int n = 0; n < 4; n++)
            for (int k = 0; k < 10; k++)
                m += v[(n * 3 + c) * 10 + k], cnt++;
        m /= cnt;
        for (int n = 0; n < 4; n++)
            for (int k = 0; k < 10; k++) {
                double dv = v[(n * 3 + c) * 10 + k] - m;
                s += dv * dv;
            }
        double var = s / cnt, r = 1 / sqrt(var + 1e-5);
        for (int n = 0; n < 4; n++)
            for (int k = 0; k < 10; k++) {
                int i = (n * 3 + c) * 10 + k;
                CHECK(close_to(g[i], (v[i] - m) * r * wv[c] + bv[c], 1e-12));
            }
        CHECK_MSG(close_to(rmn[c], 0.9 * rm0[c] + 0.1 * m, 1e-14), "running mean %d", c);
        CHECK_MSG(close_to(rvn[c], 0.9 * rv0[c] + 0.1 * s / (cnt - 1), 1e-14),
                  "running var %d: %g vs %g (unbiased)", c, rvn[c],
                  0.9 * rv0[c] + 0.1 * s / (cnt - 1));
    }
    free(g);
    ct_tensor_release(y);
    /* evaluation with the updated statistics */
    CHECK_OK(ct_batch_norm(ctx, x, rm, rv, NULL, NULL, false, 0.1, 1e-3, &y));
    g = tu_read(y);
    for (int i = 0; i < 120; i++) {
        int c = (i / 10) % 3;
        CHECK(close_to(g[i], (v[i] - rmn[c]) / sqrt(rvn[c] + 1e-3), 1e-12));
    }
    free(g), free(v);
    ct_tensor_release(y);
    CHECK_ST(ct_batch_norm(ctx, x, NULL, NULL, NULL, NULL, false, 0.1, 1e-5, &y),
             CT_ERR_INVALID_ARG);
    CHECK_ST(ct_batch_norm(ctx, x, rm, rv, NULL, NULL, true, 1.5, 1e-5, &y), CT_ERR_INVALID_ARG);
    int64_t one[3] = {1, 3, 1};
    ct_tensor *x1 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, one, &x1));
    CHECK_ST(ct_batch_norm(ctx, x1, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &y),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "more than 1 value per channel") != NULL);
    ct_tensor_release(x1);
    ct_tensor_release(x), ct_tensor_release(rm), ct_tensor_release(rv), ct_tensor_release(w);
    ct_tensor_release(b);
}

TEST(dropout_statistics) {
    int64_t n = 100000;
    ct_tensor *x = NULL, *y = NULL, *y2 = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 1, &n, 2.0, &x));
    CHECK_OK(ct_dropout(ctx, x, 0.3, true, 42, 0, &y));
    CHECK_OK(ct_dropout(ctx, x, 0.3, true, 42, 0, &y2));
    float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
    CHECK_OK(ct_tensor_to_host(y, a, sizeof(float) * (size_t)n));
    CHECK_OK(ct_tensor_to_host(y2, b, sizeof(float) * (size_t)n));
    CHECK(memcmp(a, b, sizeof(float) * (size_t)n) == 0); /* same seed and offset: same mask */
    int64_t zeros = 0, bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if (a[i] == 0)
            zeros++;
        else if (a[i] != 2.0f / 0.7f)
            bad++;
    }
    double frac = (double)zeros / (double)n; /* 0.3 +- 5 sigma (sigma = 0.00145) */
    CHECK_MSG(fabs(frac - 0.3) < 0.0075 && bad == 0, "zero fraction %g, %lld wrong values", frac,
              (long long)bad);
    ct_tensor_release(y), ct_tensor_release(y2);
    /* a different offset gives a different mask; p = 1 zeros everything; eval is the identity */
    CHECK_OK(ct_dropout(ctx, x, 0.3, true, 42, (uint64_t)n, &y));
    CHECK_OK(ct_tensor_to_host(y, b, sizeof(float) * (size_t)n));
    CHECK(memcmp(a, b, sizeof(float) * (size_t)n) != 0);
    ct_tensor_release(y);
    CHECK_OK(ct_dropout(ctx, x, 1.0, true, 1, 0, &y));
    CHECK_OK(ct_tensor_to_host(y, b, sizeof(float) * (size_t)n));
    bool allz = true;
    for (int64_t i = 0; i < n; i++)
        allz = allz && b[i] == 0;
    CHECK(allz);
    ct_tensor_release(y);
    CHECK_OK(ct_dropout(ctx, x, 0.5, false, 1, 0, &y));
    CHECK(y == x);
    ct_tensor_release(y);
    CHECK_ST(ct_dropout(ctx, x, 1.5, true, 1, 0, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "between 0 and 1") != NULL);
    free(a), free(b);
    ct_tensor_release(x);
    /* as torch, x * noise with noise = mask / (1 - p) in the dtype: a kept f32 value is
     * x * (1.0f / (float)(1 - p)) (p = 0.45: 1.8181818, where (float)(1 / 0.55) is 1.8181819),
     * a dropped inf or NaN is NaN and a dropped negative -0.0 (checked with p = 1) */
    const float xv[4] = {3.0f, -1.0f, INFINITY, NAN};
    const int64_t four = 4;
    float o[4];
    volatile float keep = 0.55f; /* (float)(1 - 0.45) */
    const float want = 3.0f * (1.0f / keep);
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 1, &four, &x));
    bool seen = false;
    for (uint64_t off = 0; off < 64 && !seen; off += 4) { /* until element 0 is kept */
        CHECK_OK(ct_dropout(ctx, x, 0.45, true, 3, off, &y));
        CHECK_OK(ct_tensor_to_host(y, o, sizeof o));
        ct_tensor_release(y);
        if (o[0] != 0) {
            seen = true;
            CHECK_MSG(o[0] == want, "kept 3 * scale = %.9g, want %.9g", o[0], want);
        }
    }
    CHECK(seen);
    CHECK_OK(ct_dropout(ctx, x, 1.0, true, 3, 0, &y));
    CHECK_OK(ct_tensor_to_host(y, o, sizeof o));
    CHECK(o[0] == 0 && !signbit(o[0]) && o[1] == 0 && signbit(o[1]) && isnan(o[2]) && isnan(o[3]));
    ct_tensor_release(y), ct_tensor_release(x);
}

/* Naive pad of a (R, C) matrix over both dims. Negative pads crop; in the non-constant modes
 * the rest pads the cropped matrix (torch). */
static double ref_pad_at(const double *v, int64_t R, int64_t C, const int64_t *pad, ct_pad_mode m,
                         double value, int64_t i, int64_t j) {
    const int64_t lo[2] = {pad[2], pad[0]}, hi[2] = {pad[3], pad[1]}, out[2] = {i, j};
    int64_t src[2], size[2] = {R, C};
    for (int d = 0; d < 2; d++) {
        if (m == CT_PAD_CONSTANT) {
            int64_t s = out[d] - lo[d];
            if (s < 0 || s >= size[d]) return value;
            src[d] = s;
            continue;
        }
        const int64_t a = lo[d] < 0 ? -lo[d] : 0, b = hi[d] < 0 ? -hi[d] : 0;
        const int64_t S = size[d] - a - b, l = lo[d] < 0 ? 0 : lo[d];
        int64_t s = out[d] - l;
        if (s < 0 || s >= S) {
            if (m == CT_PAD_REFLECT) s = s < 0 ? -s : 2 * (S - 1) - s;
            if (m == CT_PAD_REPLICATE) s = s < 0 ? 0 : S - 1;
            if (m == CT_PAD_CIRCULAR) s = ((s % S) + S) % S;
        }
        src[d] = s + a;
    }
    return v[src[0] * C + src[1]];
}

TEST(pad_modes) {
    int64_t shape[4] = {1, 1, 4, 5}; /* circular padding of 2 dims needs a 4-d input (torch) */
    const int64_t pads[4][4] = {{1, 2, 3, 0}, {0, 0, 2, 2}, {3, 1, 1, 3}, {-1, 2, 0, -2}};
    for (int mode = 0; mode < 4; mode++)
        for (int pi = 0; pi < 4; pi++)
            for (int vm = 0; vm < 2; vm++) {
                ct_pad_mode m = (ct_pad_mode)mode;
                const int64_t *pd = pads[pi];
                double *v;
                ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 4, shape, vm, -3, 3, &v), *y = NULL;
                ct_status st = ct_pad(ctx, x, 4, pd, m, 7.5, &y);
                if (m == CT_PAD_REFLECT && (pd[2] >= 4 || pd[3] >= 4)) {
                    CHECK_ST(st, CT_ERR_INVALID_ARG);
                } else {
                    CHECK_OK(st);
                    int64_t R = 4 + pd[2] + pd[3], C = 5 + pd[0] + pd[1];
                    int64_t os[4] = {1, 1, R, C};
                    CHECK(y && tu_same_shape(y, 4, os));
                    double *g = y ? tu_read(y) : NULL;
                    for (int64_t i = 0; g && i < R; i++)
                        for (int64_t j = 0; j < C; j++) {
                            double want = ref_pad_at(v, 4, 5, pd, m, 7.5, i, j);
                            CHECK_MSG(g[i * C + j] == (double)(float)want,
                                      "pad mode %d pads %d [%lld,%lld]: %g vs %g", mode, pi,
                                      (long long)i, (long long)j, g[i * C + j], want);
                        }
                    free(g);
                }
                free(v);
                ct_tensor_release(x), ct_tensor_release(y);
            }
    /* integer constant pad, an empty dim, bad counts */
    int32_t iv[3] = {1, 2, 3};
    int64_t three = 3, p2[2] = {2, 1};
    ct_tensor *x = NULL, *y = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 1, &three, &x));
    CHECK_OK(ct_pad(ctx, x, 2, p2, CT_PAD_CONSTANT, -1, &y));
    int32_t o[6];
    CHECK_OK(ct_tensor_to_host(y, o, sizeof o));
    CHECK(o[0] == -1 && o[1] == -1 && o[2] == 1 && o[4] == 3 && o[5] == -1);
    ct_tensor_release(y);
    CHECK_ST(ct_pad(ctx, x, 3, p2, CT_PAD_CONSTANT, 0, &y), CT_ERR_INVALID_ARG);
    ct_tensor_release(x);
    int64_t e[2] = {2, 0};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, e, &x));
    CHECK_OK(ct_pad(ctx, x, 2, p2, CT_PAD_CONSTANT, 4, &y));
    float f[6];
    CHECK(ct_tensor_numel(y) == 6);
    CHECK_OK(ct_tensor_to_host(y, f, sizeof f));
    CHECK(f[0] == 4 && f[5] == 4);
    ct_tensor_release(y);
    CHECK_ST(ct_pad(ctx, x, 2, p2, CT_PAD_REPLICATE, 0, &y), CT_ERR_INVALID_ARG);
    ct_tensor_release(x);
    /* the input ranks torch 1.13 takes: k padded dims, reflect / replicate k+1 or k+2 dims,
     * circular k+2 (checked against F.pad for ranks 1..5 and k = 1..3) */
    for (int nd = 1; nd <= 5; nd++)
        for (int k = 1; k <= 3; k++)
            for (int m = 1; m <= 3; m++) {
                int64_t sh[5] = {3, 3, 3, 3, 3}, pp[6] = {1, 1, 1, 1, 1, 1};
                CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, nd, sh, &x));
                const bool ok = nd <= k + 2 && nd >= (m == CT_PAD_CIRCULAR ? k + 2 : k + 1);
                y = NULL;
                ct_status st = ct_pad(ctx, x, 2 * k, pp, (ct_pad_mode)m, 0, &y);
                CHECK_MSG(ok ? st == CT_OK : st == (k > nd ? CT_ERR_INVALID_ARG : CT_ERR_SHAPE),
                          "pad mode %d of %d dims, %d-dim input: status %d", m, k, nd, (int)st);
                ct_tensor_release(y), ct_tensor_release(x);
            }
}

/* gradients of sum(w * f(x)) against central differences (f64) */
static ct_tensor *GW, *GB;
static ct_status f_rms(const ct_tensor *x, ct_tensor **y) {
    return ct_rms_norm(ctx, x, 1, NULL, 1e-6, y);
}
static ct_status f_group(const ct_tensor *x, ct_tensor **y) {
    return ct_group_norm(ctx, x, 2, GW, GB, 1e-5, y);
}
static ct_status f_batch(const ct_tensor *x, ct_tensor **y) {
    return ct_batch_norm(ctx, x, NULL, NULL, GW, GB, true, 0.1, 1e-5, y);
}
static ct_status f_pad(const ct_tensor *x, ct_tensor **y) {
    int64_t p[4] = {1, 2, 2, 1};
    return ct_pad(ctx, x, 4, p, CT_PAD_REFLECT, 0, y);
}
static ct_status f_padc(const ct_tensor *x, ct_tensor **y) {
    int64_t p[2] = {2, -1};
    return ct_pad(ctx, x, 2, p, CT_PAD_CONSTANT, 3, y);
}
TEST(gradients) {
    int64_t shape[3] = {3, 4, 3};
    double gw[4] = {1.5, 0.5, 2, -1}, gb[4] = {0.1, 0.2, 0.3, 0.4};
    int64_t c4 = 4;
    GW = from(gw, CT_FLOAT64, 1, &c4), GB = from(gb, CT_FLOAT64, 1, &c4);
    tu_fn1 fs[5] = {f_rms, f_group, f_batch, f_pad, f_padc};
    const char *names[5] = {"rms_norm", "group_norm", "batch_norm", "pad reflect", "pad constant"};
    for (int k = 0; k < 5; k++)
        tu_gradcheck(ctx, &rng, names[k], fs[k], 3, shape);
    ct_tensor_release(GW), ct_tensor_release(GB);
}

TEST(captured_equals_eager) {
    int64_t shape[4] = {2, 4, 3, 3};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 4, shape, 0, -1, 1, NULL);
    int64_t c4 = 4;
    ct_tensor *rm[2], *rv[2], *outs[2][5] = {{0}};
    for (int cap = 0; cap < 2; cap++) {
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &c4, &rm[cap]));
        CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, &c4, &rv[cap]));
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (cap) CHECK_OK(ct_graph_capture_begin(g, NULL));
        int64_t p[4] = {1, 1, 0, 2};
        CHECK_OK(ct_rms_norm(ctx, x, 2, NULL, 1e-6, &outs[cap][0]));
        CHECK_OK(ct_group_norm(ctx, x, 2, NULL, NULL, 1e-5, &outs[cap][1]));
        CHECK_OK(
            ct_batch_norm(ctx, x, rm[cap], rv[cap], NULL, NULL, true, 0.1, 1e-5, &outs[cap][2]));
        CHECK_OK(ct_pad(ctx, x, 4, p, CT_PAD_REPLICATE, 0, &outs[cap][3]));
        CHECK_OK(ct_dropout(ctx, x, 0.25, true, 9, 0, &outs[cap][4]));
        if (cap) {
            CHECK_OK(ct_graph_capture_end(g));
            CHECK_OK(ct_graph_replay(g)); /* the running stats update once, as eagerly */
        }
        ct_graph_free(g);
    }
    for (int i = 0; i < 5; i++) {
        CHECK_MSG(tu_same_values(outs[0][i], outs[1][i]), "output %d differs", i);
        ct_tensor_release(outs[0][i]), ct_tensor_release(outs[1][i]);
    }
    CHECK(tu_same_values(rv[0], rv[1]));
    for (int k = 0; k < 2; k++)
        ct_tensor_release(rm[k]), ct_tensor_release(rv[k]);
    ct_tensor_release(x);
}

/* F.linear's shape and dtype rules as torch 1.13 (the table is torch's answer per case): a 1-d
 * weight is a dot product; the bias broadcasts to the output without growing it; with a bias, a
 * 2-d or contiguous 3-d input takes addmm (2-d weight, the bias of the input's dtype), other
 * ranks add the bias in place (cast into the output's dtype). Values against a naive loop. */
TEST(linear_shapes_and_bias_as_torch) {
    static const struct {
        int xnd, wnd,
            bnd;      /* x (2, 2, ..., 3) of xnd dims; w (4, 3) or (3,); bias (4,), 0-d, (2,) */
        ct_dtype bdt; /* bias dtype (CT_DTYPE_COUNT: no bias) */
        ct_status want;
    } c[] = {
        {1, 2, 1, CT_FLOAT32, CT_OK},        {1, 1, 0, CT_FLOAT32, CT_OK},
        {2, 1, 0, CT_DTYPE_COUNT, CT_OK},    {3, 1, 0, CT_DTYPE_COUNT, CT_OK},
        {2, 1, 0, CT_FLOAT32, CT_ERR_SHAPE}, {3, 1, 0, CT_FLOAT32, CT_ERR_SHAPE},
        {4, 1, 0, CT_FLOAT32, CT_OK},        {1, 2, 1, CT_FLOAT64, CT_OK},
        {1, 2, 1, CT_INT64, CT_OK},          {2, 2, 1, CT_FLOAT64, CT_ERR_DTYPE},
        {3, 2, 1, CT_FLOAT64, CT_ERR_DTYPE}, {4, 2, 1, CT_FLOAT64, CT_OK},
        {1, 2, 2, CT_FLOAT32, CT_ERR_SHAPE}, {1, 1, 1, CT_FLOAT32, CT_ERR_SHAPE},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int64_t xs[4] = {2, 2, 2, 2}, ws[2] = {4, 3}, bs = c[i].bnd == 2 ? 2 : 4;
        xs[c[i].xnd - 1] = 3;
        double *xv, *wv, *bv = NULL;
        ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, c[i].xnd, xs, 0, -2, 2, &xv);
        ct_tensor *w =
            tu_make(ctx, &rng, CT_FLOAT32, c[i].wnd, c[i].wnd == 2 ? ws : ws + 1, 0, -2, 2, &wv);
        ct_tensor *b = NULL, *y = NULL;
        if (c[i].bdt != CT_DTYPE_COUNT)
            b = tu_make(ctx, &rng, c[i].bdt, c[i].bnd ? 1 : 0, &bs, 0, -3, 3, &bv);
        const ct_status st = ct_linear(ctx, x, w, b, &y);
        CHECK_MSG(st == c[i].want, "case %zu: %s, torch %s", i, ct_status_str(st),
                  ct_status_str(c[i].want));
        if (st == CT_OK && y) {
            /* y[r, o] = sum_k x[r, k] w[o, k] (+ b) in the input's dtype */
            const int64_t R = ct_tensor_numel(x) / 3, O = c[i].wnd == 2 ? 4 : 1;
            CHECK(ct_tensor_dtype(y) == CT_FLOAT32 && ct_tensor_numel(y) == R * O);
            double *g = tu_read(y);
            for (int64_t r = 0; g && r < R; r++)
                for (int64_t o = 0; o < O; o++) {
                    double acc = 0;
                    for (int k = 0; k < 3; k++)
                        acc += xv[r * 3 + k] * wv[o * 3 + k];
                    if (bv) acc += bv[c[i].bnd ? o : 0];
                    CHECK_MSG(close_to(g[r * O + o], acc, 1e-5), "case %zu [%lld]: %g vs %g", i,
                              (long long)(r * O + o), g[r * O + o], acc);
                }
            free(g);
        }
        ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b), ct_tensor_release(y);
        free(xv), free(wv), free(bv);
    }
    /* a contiguous 3-d input's addmm sees the output as (B T, out): a bias (2, 1, 4) or (3, 4)
     * does not expand to (6, 4) in torch, (1, 4) and (4,) do */
    const int64_t x3[3] = {2, 3, 3}, w2[2] = {4, 3}, bss[4][3] = {{2, 1, 4}, {3, 4}, {1, 4}, {4}};
    const int bnd[4] = {3, 2, 2, 1};
    const ct_status bwant[4] = {CT_ERR_SHAPE, CT_ERR_SHAPE, CT_OK, CT_OK};
    ct_tensor *x = NULL, *w = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, x3, &x));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, w2, &w));
    for (int i = 0; i < 4; i++) {
        ct_tensor *b = NULL, *y = NULL;
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, bnd[i], bss[i], &b));
        CHECK_ST(ct_linear(ctx, x, w, b, &y), bwant[i]);
        ct_tensor_release(b), ct_tensor_release(y);
    }
    ct_tensor_release(x), ct_tensor_release(w);
}

/* constant pad as torch 1.13's constant_pad_nd: with a positive pad every padded dim must keep an
 * element (torch: "resulted in a negative output size"); without one it narrows and an empty dim
 * is fine; sizes that overflow int64 are CT_ERR_OVERFLOW (torch's answers per case) */
TEST(pad_output_sizes_as_torch) {
    static const struct {
        int64_t pads[4];
        ct_status want;
        int64_t d2, d3; /* the output's last two dims when OK */
    } c[] = {
        {{-1, -1, 3, 1}, CT_ERR_SHAPE, 0, 0},
        {{-1, -1, 0, 0}, CT_OK, 2, 0},
        {{-2, 0, 0, 0}, CT_OK, 2, 0},
        {{-1, -2, 0, 0}, CT_ERR_INVALID_ARG, 0, 0},
        {{0, -2, 0, 1}, CT_ERR_SHAPE, 0, 0},
        {{1, -2, 0, 0}, CT_OK, 2, 1},
        {{INT64_MAX, 1, 0, 0}, CT_ERR_OVERFLOW, 0, 0},
    };
    const int64_t xs[4] = {4, 3, 2, 2};
    ct_tensor *x = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, xs, &x));
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        ct_tensor *y = NULL;
        const ct_status st = ct_pad(ctx, x, 4, c[i].pads, CT_PAD_CONSTANT, 0, &y);
        CHECK_MSG(st == c[i].want, "case %zu: %s (%s), torch %s", i, ct_status_str(st),
                  st ? ct_ctx_last_error(ctx) : "", ct_status_str(c[i].want));
        if (st == CT_OK && y)
            CHECK(ct_tensor_shape(y)[2] == c[i].d2 && ct_tensor_shape(y)[3] == c[i].d3);
        ct_tensor_release(y);
    }
    ct_tensor_release(x);
}

/* Ops made of other ops name themselves in front of an inner op's message ("mse_loss: sub: shapes
 * ... do not broadcast", was "sub: ..."), and linear names the feature mismatch itself (was
 * matmul's message about the transposed weight). */
TEST(composite_errors_name_the_op) {
    ct_tensor *a = NULL, *b = NULL, *x4 = NULL, *w4 = NULL, *y = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){3, 4}, &a));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){5, 6}, &b));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, (int64_t[]){1, 2, 5, 5}, &x4));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, (int64_t[]){3, 2, 7, 7}, &w4));
    const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
    struct {
        ct_status got;
        const char *msg;
    } c[3];
    char m[3][512];
    c[0].got = ct_mse_loss(ctx, a, b, CT_REDUCTION_MEAN, &y);
    c[0].msg = "mse_loss: sub: shapes [3, 4] (input 0) and [5, 6] (input 1) do not broadcast";
    snprintf(m[0], sizeof m[0], "%s", ct_ctx_last_error(ctx));
    c[1].got = ct_linear(ctx, a, b, NULL, &y);
    c[1].msg = "linear: input [3, 4] has 4 features but weight [5, 6] takes 6";
    snprintf(m[1], sizeof m[1], "%s", ct_ctx_last_error(ctx));
    c[2].got = ct_conv2d(ctx, x4, w4, NULL, one, zero, one, 1, &y);
    c[2].msg = "conv2d: unfold: kernel (7, 7) with dilation (1, 1) does not fit input [1, 2, 5, 5]";
    snprintf(m[2], sizeof m[2], "%s", ct_ctx_last_error(ctx));
    for (int i = 0; i < 3; i++)
        CHECK_MSG(c[i].got == CT_ERR_SHAPE && strncmp(m[i], c[i].msg, strlen(c[i].msg)) == 0,
                  "case %d: status %d, '%s'", i, (int)c[i].got, m[i]);
    /* an op's own message is not prefixed twice */
    CHECK_ST(ct_max_pool2d_ex(ctx, x4, (int64_t[]){7, 7}, one, zero, one, false, &y, NULL),
             CT_ERR_SHAPE);
    CHECK_MSG(strncmp(ct_ctx_last_error(ctx), "max_pool2d: output size", 23) == 0, "%s",
              ct_ctx_last_error(ctx));
    CHECK(y == NULL);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(x4), ct_tensor_release(w4);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(rms_and_group_norm);
    RUN(batch_norm_train_and_eval);
    RUN(dropout_statistics);
    RUN(pad_modes);
    RUN(pad_output_sizes_as_torch);
    RUN(linear_shapes_and_bias_as_torch);
    RUN(gradients);
    RUN(captured_equals_eager);
    RUN(composite_errors_name_the_op);
    ct_ctx_free(ctx);
    return ct_test_end();
}

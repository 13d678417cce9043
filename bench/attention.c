/* FlexAttention forward against baselines measured in the same run: the naive path built from
 * ctorch ops (matmul, scale, an additive mask / bias tensor, softmax, matmul), OpenBLAS
 * cblas_sgemm's rate (a square 2048 product, both threads), the same kernel with the K/V prefetch
 * switched off, and for decoding the machine's streaming read bandwidth. Each case alternates
 * the contenders for several rounds and keeps each one's best time (robust to load drift on a
 * shared machine). Lines:
 *   bench attention <pattern> L=N ct_ms=T naive_ms=T2 ratio=T2/T gflops=G sgemm_frac=F
 *     pipelined_gain=P dense_frac=D
 *   bench attention decode S=N ct_ms=T gbps=G read_gbps=R bw_frac=F pipelined_gain=P
 * GFLOP/s count only the blocks the mask computes (4 E per entry of each partial or full block);
 * dense_frac is the time against the dense pattern's at the same L. B=1, H=8, E=64, f32.
 * Usage: bench_attention [max L] (default 4096; 1024 runs the short set). */
#include "bench_util.h"
#include "ctorch/ctorch.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#define CHK(call) BENCH_CHECK("bench attention", ctx, call)

static ct_ctx *ctx;

static ct_tensor *rand_tensor(int nd, const int64_t *s, unsigned long long seed) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= s[i];
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        v[i] = (float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
    }
    ct_tensor *t = NULL;
    CHK(ct_tensor_from_host(ctx, v, CT_FLOAT32, nd, s, &t));
    free(v);
    return t;
}

static double sgemm_gflops(void) {
    const int n = 2048;
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
          *c = malloc(sizeof(float) * n * n);
    for (int i = 0; i < n * n; i++)
        a[i] = (float)(i % 7) * 0.1f, b[i] = (float)(i % 5) * 0.1f;
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                    n);
        double t = now() - t0;
        if (t < best) best = t;
    }
    free(a), free(b), free(c);
    return 2.0 * n * n * (double)n / best * 1e-9;
}

/* Streaming read of 512 MiB over the context's threads (16-byte vector loads, 8 accumulators). */
static double read_gbps(void) {
    typedef float v4 __attribute__((vector_size(16)));
    const size_t n = (size_t)1 << 25; /* v4 elements: 512 MiB */
    v4 *buf = aligned_alloc(64, n * sizeof(v4));
    for (size_t i = 0; i < n; i++)
        buf[i] = (v4){1, 2, 3, 4};
    double best = 1e30;
    volatile float sink = 0;
    for (int r = 0; r < 8; r++) {
        double t0 = now();
        float tot = 0;
#pragma omp parallel num_threads(ct_ctx_num_threads(ctx)) reduction(+ : tot)
        {
            v4 acc[8] = {{0}};
#pragma omp for schedule(static)
            for (size_t i = 0; i < n; i += 8)
                for (int j = 0; j < 8; j++)
                    acc[j] += buf[i + j];
            for (int j = 0; j < 8; j++)
                tot += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
        }
        double t = now() - t0;
        sink += tot;
        if (t < best) best = t;
    }
    (void)sink;
    free(buf);
    return (double)(n * sizeof(v4)) / best * 1e-9;
}

static int64_t docs[32768];

enum { P_NONE, P_CAUSAL, P_ALIBI, P_SLIDING, P_DOCUMENT, P_BSHD, P_N };
/* none_bshd: dense, with q / k / v permuted views of [B, L, H, E] tensors (strided rows) */
static const char *const pname[P_N] = {"none",       "causal",   "alibi", "sliding_window_256",
                                       "document_4", "none_bshd"};

/* The naive path's additive term: (H or 1, L, S) with -inf where masked, the ALiBi bias. */
static ct_tensor *naive_bias(int p, int64_t H, int64_t L) {
    const int64_t hb = p == P_ALIBI ? H : 1, s3[3] = {hb, L, L};
    float *v = malloc(sizeof(float) * (size_t)(hb * L * L));
    for (int64_t h = 0; h < hb; h++)
        for (int64_t i = 0; i < L; i++)
            for (int64_t j = 0; j < L; j++) {
                float x = 0;
                if (p == P_CAUSAL) x = j <= i ? 0.0f : -INFINITY;
                if (p == P_SLIDING) x = (j <= i && i - j < 256) ? 0.0f : -INFINITY;
                if (p == P_DOCUMENT) x = docs[i] == docs[j] ? 0.0f : -INFINITY;
                if (p == P_ALIBI) x = exp2f(-8.0f * (float)(h + 1) / (float)H) * (float)(j - i);
                v[(h * L + i) * L + j] = x;
            }
    ct_tensor *t = NULL;
    CHK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 3, s3, &t));
    free(v);
    return t;
}

static void naive_attention(const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                            const ct_tensor *bias, double scale) {
    ct_tensor *kt = NULL, *s = NULL, *s2 = NULL, *s3 = NULL, *p = NULL, *o = NULL;
    CHK(ct_tensor_transpose(ctx, k, 2, 3, &kt));
    CHK(ct_matmul(ctx, q, kt, &s));
    CHK(ct_mul_scalar(ctx, s, scale, &s2));
    if (bias)
        CHK(ct_add(ctx, s2, bias, &s3));
    else
        s3 = ct_tensor_retain(s2);
    CHK(ct_softmax(ctx, s3, 3, &p));
    CHK(ct_matmul(ctx, p, v, &o));
    ct_tensor_release(kt), ct_tensor_release(s), ct_tensor_release(s2);
    ct_tensor_release(s3), ct_tensor_release(p), ct_tensor_release(o);
}

int main(int argc, char **argv) {
    const int64_t maxL =
        argc > 1 ? bench_arg_i64("bench_attention", "max_L", argv[1], 1, 1 << 20) : 4096;
    if (argc > 2) {
        fprintf(stderr, "usage: bench_attention [max_L]   (longest sequence, default 4096)\n");
        return 2;
    }
    const int64_t H = 8, E = 64;
    CHK(ct_ctx_create(NULL, &ctx));
    const double sg = sgemm_gflops();
    printf("bench attention: B=1 H=%lld E=%lld f32 isa=%s threads=%d sgemm_gflops=%.1f\n",
           (long long)H, (long long)E, ct_ctx_cpu_isa(ctx), ct_ctx_num_threads(ctx), sg);
    fflush(stdout);
    ct_alibi_params ap = {H, NULL};
    ct_sliding_window_params wp = {256};
    ct_document_params dp = {docs, NULL};
    for (int64_t L = 1024; L <= maxL; L *= 4) {
        const int64_t qs[4] = {1, H, L, E};
        ct_tensor *q = rand_tensor(4, qs, 1), *k = rand_tensor(4, qs, 2),
                  *v = rand_tensor(4, qs, 3);
        ct_tensor *qp = NULL, *kp = NULL, *vp = NULL;
        {
            const int64_t bs[4] = {1, L, H, E};
            const int perm[4] = {0, 2, 1, 3};
            ct_tensor *a = rand_tensor(4, bs, 1), *b = rand_tensor(4, bs, 2),
                      *c = rand_tensor(4, bs, 3);
            CHK(ct_tensor_permute(ctx, a, perm, &qp));
            CHK(ct_tensor_permute(ctx, b, perm, &kp));
            CHK(ct_tensor_permute(ctx, c, perm, &vp));
            ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
        }
        for (int64_t i = 0; i < L; i++) /* 4 documents of uneven lengths */
            docs[i] = i < L / 8 ? 0 : i < L / 2 ? 1 : i < 3 * L / 4 ? 2 : 3;
        double dense_ms = 0;
        { /* warm-up: the first call starts the threads and grows the caches */
            ct_tensor *out = NULL;
            CHK(ct_flex_attention(ctx, q, k, v, NULL, &out, NULL));
            ct_tensor_release(out);
        }
        for (int p = 0; p < P_N; p++) {
            ct_block_mask *bm = NULL;
            if (p == P_CAUSAL)
                CHK(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, L, L, 128, &bm));
            if (p == P_SLIDING)
                CHK(ct_create_block_mask(ctx, ct_mask_mod_sliding_window(), &wp, 1, 1, L, L, 128,
                                         &bm));
            if (p == P_DOCUMENT)
                CHK(ct_create_block_mask(ctx, ct_mask_mod_document(), &dp, 1, 1, L, L, 128, &bm));
            const double computed = bm ? 1.0 - ct_block_mask_sparsity(bm) : 1.0;
            const double flops = 4.0 * (double)E * (double)H * (double)L * (double)L * computed;
            ct_flex_options o = {sizeof o, 0,    p == P_ALIBI ? ct_score_mod_alibi() : NULL,
                                 &ap,      bm,   false,
                                 false,    NULL, false};
            ct_tensor *bias = p == P_NONE || p == P_BSHD ? NULL : naive_bias(p, H, L);
            const ct_tensor *tq = p == P_BSHD ? qp : q, *tk = p == P_BSHD ? kp : k,
                            *tv = p == P_BSHD ? vp : v;
            double best[3] = {1e30, 1e30, 1e30};
            for (int round = 0; round < 3; round++) {
                for (int c = 0; c < 3; c++) {
                    if (c == 2 && (round > 0 && L > 1024)) continue; /* naive: slow, one try */
                    double t0 = now();
                    if (c < 2) {
                        o.no_pipelining = c == 1;
                        ct_tensor *out = NULL;
                        CHK(ct_flex_attention(ctx, tq, tk, tv, &o, &out, NULL));
                        ct_tensor_release(out);
                    } else {
                        naive_attention(tq, tk, tv, bias, 1.0 / sqrt((double)E));
                    }
                    double t = now() - t0;
                    if (t < best[c]) best[c] = t;
                }
            }
            if (p == P_NONE) dense_ms = best[0] * 1e3;
            const double gf = flops / best[0] * 1e-9;
            printf("bench attention %s L=%lld ct_ms=%.2f naive_ms=%.2f ratio=%.2f gflops=%.1f "
                   "sgemm_frac=%.2f pipelined_gain=%.3f dense_frac=%.3f\n",
                   pname[p], (long long)L, best[0] * 1e3, best[2] * 1e3, best[2] / best[0], gf,
                   gf / sg, best[1] / best[0], best[0] * 1e3 / dense_ms);
            fflush(stdout);
            ct_tensor_release(bias);
            ct_block_mask_free(bm);
        }
        ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v);
        ct_tensor_release(qp), ct_tensor_release(kp), ct_tensor_release(vp);
    }
    /* decoding: one query per head against S keys; K and V read once */
    {
        const int64_t S = 32768, q1[4] = {1, H, 1, E}, ks[4] = {1, H, S, E};
        ct_tensor *q = rand_tensor(4, q1, 4), *k = rand_tensor(4, ks, 5),
                  *v = rand_tensor(4, ks, 6);
        const double bw = read_gbps();
        ct_flex_options o = {sizeof o, 0, NULL, NULL, NULL, false, false, NULL, false};
        double best[2] = {1e30, 1e30};
        for (int round = 0; round < 40; round++)
            for (int c = 0; c < 2; c++) {
                o.no_pipelining = c == 1;
                double t0 = now();
                ct_tensor *out = NULL;
                CHK(ct_flex_attention(ctx, q, k, v, &o, &out, NULL));
                ct_tensor_release(out);
                double t = now() - t0;
                if (t < best[c]) best[c] = t;
            }
        const double bytes = 2.0 * (double)(H * S * E) * 4.0, g = bytes / best[0] * 1e-9;
        printf("bench attention decode S=%lld ct_ms=%.3f gbps=%.1f read_gbps=%.1f bw_frac=%.2f "
               "pipelined_gain=%.3f\n",
               (long long)S, best[0] * 1e3, g, bw, g / bw, best[1] / best[0]);
        ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v);
    }
    ct_ctx_free(ctx);
    return 0;
}

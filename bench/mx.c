/* MX benchmark: quantize / dequantize throughput against memcpy measured in the same run, MX linear
 * (4096x4096 weight, batch 1 and 8) against f32 GEMM on the dequantised weight, and an SQNR table
 * per format on Gaussian and heavy-tailed data. Usage: bench_mx [--quick] */
#include "ctorch/ctorch.h"
#include "ctorch/mx.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static unsigned long long rng = 88172645463325252ULL;
static double unif(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return ((rng * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}
static double gauss(void) {
    double u = unif(), v = unif();
    if (u < 1e-300) u = 1e-300;
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}
/* Student-t with 3 degrees of freedom: heavy tails, like LLM activations / outlier weights. */
static double student3(void) {
    double c = 0;
    for (int i = 0; i < 3; i++) {
        double g = gauss();
        c += g * g;
    }
    return gauss() / sqrt(c / 3);
}

#define CHK(x)                                                                                     \
    do {                                                                                           \
        ct_status s_ = (x);                                                                        \
        if (s_ != CT_OK) {                                                                         \
            fprintf(stderr, "%s failed: %s (%s)\n", #x, ct_status_str(s_),                         \
                    ct_ctx_last_error(ctx));                                                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const ct_mx_format ALL[CT_MX_FORMAT_COUNT] = {CT_MXFP8_E4M3, CT_MXFP8_E5M2, CT_MXFP6_E3M2,
                                                     CT_MXFP6_E2M3, CT_MXFP4_E2M1, CT_MXINT8};

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    ct_ctx *ctx = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    printf("# bench mx: isa=%s threads=%d blas=%s\n", ct_ctx_cpu_isa(ctx), ct_ctx_num_threads(ctx),
           ct_blas_info());
    int reps = quick ? 3 : 7;

    /* ---- quantize / dequantize throughput vs memcpy ---- */
    int64_t n = quick ? (1 << 22) : (1 << 24), shape[2] = {n / 4096, 4096};
    float *host = malloc((size_t)n * 4), *dst = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++)
        host[i] = (float)gauss();
    memcpy(dst, host, (size_t)n * 4); /* fault the pages in */
    double tm = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        memcpy(dst, host, (size_t)n * 4);
        double t = now() - t0;
        if (t < tm) tm = t;
    }
    double mem_gbs = n * 4.0 / tm / 1e9;
    printf("bench mx memcpy bytes=%lld gbps=%.2f\n", (long long)n * 4, mem_gbs);
    ct_tensor *x = NULL, *dbuf = NULL;
    CHK(ct_tensor_from_host(ctx, host, CT_FLOAT32, 2, shape, &x));
    CHK(ct_tensor_from_host(ctx, host, CT_FLOAT32, 2, shape, &dbuf)); /* reused output, paged in */
    for (int f = -1; f < CT_MX_FORMAT_COUNT; f++) { /* f = -1: warm-up (allocator, threads) */
        double tq = 1e30, td = 1e30, ti = 1e30;
        ct_mx_format fmt = ALL[f < 0 ? 0 : f];
        for (int r = 0; r < reps; r++) {
            ct_mx_tensor *q = NULL;
            ct_tensor *d = NULL;
            double t0 = now();
            CHK(ct_mx_quantize(ctx, x, fmt, 32, -1, CT_MX_SCALE_FLOOR, &q));
            double t1 = now();
            CHK(ct_mx_dequantize(ctx, q, CT_FLOAT32, &d));
            double t2 = now();
            if (t1 - t0 < tq) tq = t1 - t0;
            if (t2 - t1 < td) td = t2 - t1;
            double t3 = now();
            CHK(ct_mx_dequantize_into(ctx, q, dbuf));
            double t4 = now();
            if (t4 - t3 < ti) ti = t4 - t3;
            ct_tensor_release(d);
            ct_mx_tensor_free(q);
        }
        if (f < 0) continue;
        double gq = n * 4.0 / tq / 1e9, gd = n * 4.0 / td / 1e9, gi = n * 4.0 / ti / 1e9;
        printf("bench mx quantize fmt=%s n=%lld gbps=%.2f memcpy_gbps=%.2f ratio=%.2f\n",
               ct_mx_format_name(ALL[f]), (long long)n, gq, mem_gbs, gq / mem_gbs);
        printf("bench mx dequantize fmt=%s n=%lld gbps=%.2f memcpy_gbps=%.2f ratio=%.2f\n",
               ct_mx_format_name(ALL[f]), (long long)n, gd, mem_gbs, gd / mem_gbs);
        printf("bench mx dequantize_into fmt=%s n=%lld gbps=%.2f memcpy_gbps=%.2f ratio=%.2f\n",
               ct_mx_format_name(ALL[f]), (long long)n, gi, mem_gbs, gi / mem_gbs);
    }
    ct_tensor_release(x);
    ct_tensor_release(dbuf);
    free(dst);
    free(host);

    /* ---- MX linear vs f32 GEMM on the dequantised weight ---- */
    int64_t N = 4096, K = 4096, wsh[2] = {N, K};
    float *wh = malloc((size_t)(N * K) * 4), *wd = malloc((size_t)(N * K) * 4);
    for (int64_t i = 0; i < N * K; i++)
        wh[i] = (float)(gauss() * 0.02);
    ct_tensor *w = NULL;
    CHK(ct_tensor_from_host(ctx, wh, CT_FLOAT32, 2, wsh, &w));
    ct_mx_format lin_fmts[2] = {CT_MXFP4_E2M1, CT_MXFP8_E4M3};
    for (int fi = 0; fi < 2; fi++) {
        ct_mx_tensor *q = NULL;
        ct_tensor *dq = NULL;
        CHK(ct_mx_quantize(ctx, w, lin_fmts[fi], 32, 1, CT_MX_SCALE_FLOOR, &q));
        CHK(ct_mx_dequantize(ctx, q, CT_FLOAT32, &dq));
        CHK(ct_tensor_to_host(dq, wd, (size_t)(N * K) * 4));
        ct_tensor_release(dq);
        int batches[2] = {1, 8};
        for (int bi = 0; bi < 2; bi++) {
            int64_t M = batches[bi], xsh[2] = {M, K};
            float *xh = malloc((size_t)(M * K) * 4), *yf = malloc((size_t)(M * N) * 4);
            float *ym = malloc((size_t)(M * N) * 4);
            for (int64_t i = 0; i < M * K; i++)
                xh[i] = (float)gauss();
            ct_tensor *xt = NULL, *y = NULL;
            CHK(ct_tensor_from_host(ctx, xh, CT_FLOAT32, 2, xsh, &xt));
            int lreps = quick ? 5 : 20;
            double tf = 1e30, tx = 1e30;
            for (int r = 0; r < lreps + 1; r++) {
                double t0 = now();
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, (int)N, (int)K, 1.0f,
                            xh, (int)K, wd, (int)K, 0.0f, yf, (int)N);
                double t1 = now();
                CHK(ct_mx_linear(ctx, xt, q, NULL, &y));
                double t2 = now();
                if (r > 0 && t1 - t0 < tf) tf = t1 - t0;
                if (r > 0 && t2 - t1 < tx) tx = t2 - t1;
                if (r < lreps) ct_tensor_release(y);
            }
            CHK(ct_tensor_to_host(y, ym, (size_t)(M * N) * 4));
            double err = 0, ref = 0;
            for (int64_t i = 0; i < M * N; i++) {
                err += (ym[i] - yf[i]) * (double)(ym[i] - yf[i]);
                ref += yf[i] * (double)yf[i];
            }
            printf("bench mx linear fmt=%s batch=%lld n=%lld k=%lld f32_ms=%.3f mx_ms=%.3f "
                   "rel_err=%.1e ratio=%.2f\n",
                   ct_mx_format_name(lin_fmts[fi]), (long long)M, (long long)N, (long long)K,
                   tf * 1e3, tx * 1e3, sqrt(err / (ref > 0 ? ref : 1)), tf / tx);
            ct_tensor_release(y);
            ct_tensor_release(xt);
            free(xh);
            free(yf);
            free(ym);
        }
        ct_mx_tensor_free(q);
    }
    ct_tensor_release(w);
    free(wh);
    free(wd);

    /* ---- SQNR table ---- */
    int64_t ns = quick ? (1 << 16) : (1 << 20), ssh[2] = {ns / 1024, 1024};
    float *g = malloc((size_t)ns * 4), *back = malloc((size_t)ns * 4);
    printf("\nSQNR (dB), block 32, 2^%d samples\n", quick ? 16 : 20);
    printf("%-12s %14s %14s %14s %14s\n", "format", "gauss/floor", "gauss/rceil", "t3/floor",
           "t3/rceil");
    double sq[CT_MX_FORMAT_COUNT][4];
    for (int dist = 0; dist < 2; dist++) {
        for (int64_t i = 0; i < ns; i++)
            g[i] = (float)(dist ? student3() : gauss());
        ct_tensor *t = NULL;
        CHK(ct_tensor_from_host(ctx, g, CT_FLOAT32, 2, ssh, &t));
        for (int f = 0; f < CT_MX_FORMAT_COUNT; f++)
            for (int m = 0; m < 2; m++) {
                ct_mx_tensor *q = NULL;
                ct_tensor *d = NULL;
                CHK(ct_mx_quantize(ctx, t, ALL[f], 32, -1, (ct_mx_scale_mode)m, &q));
                CHK(ct_mx_dequantize(ctx, q, CT_FLOAT32, &d));
                CHK(ct_tensor_to_host(d, back, (size_t)ns * 4));
                double s = 0, e = 0;
                for (int64_t i = 0; i < ns; i++) {
                    s += (double)g[i] * g[i];
                    e += ((double)g[i] - back[i]) * ((double)g[i] - back[i]);
                }
                sq[f][dist * 2 + m] = 10 * log10(s / e);
                ct_tensor_release(d);
                ct_mx_tensor_free(q);
            }
        ct_tensor_release(t);
    }
    for (int f = 0; f < CT_MX_FORMAT_COUNT; f++) {
        printf("%-12s %14.2f %14.2f %14.2f %14.2f\n", ct_mx_format_name(ALL[f]), sq[f][0], sq[f][1],
               sq[f][2], sq[f][3]);
        printf(
            "bench mx sqnr fmt=%s gauss_floor=%.2f gauss_rceil=%.2f t3_floor=%.2f t3_rceil=%.2f\n",
            ct_mx_format_name(ALL[f]), sq[f][0], sq[f][1], sq[f][2], sq[f][3]);
    }
    free(g);
    free(back);
    ct_ctx_free(ctx);
    return 0;
}

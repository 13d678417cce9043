/* 2:4 sparse matmul against dense baselines measured in the same run: OpenBLAS cblas_sgemv /
 * cblas_sgemm on the decompressed f32 matrix, and ctorch's dense FP8 path (ct_mx_linear with
 * MXFP8 E4M3 weights). Each case alternates the contenders for several rounds and keeps each one's
 * best time (robust to load drift on a shared machine). Lines:
 *   bench sparse mm values=<f32|e4m3> N=<n> ct_ms=T dense_ms=D ratio=D/T mxfp8_ms=X ratio_mxfp8=X/T
 * Usage: bench_sparse [M_K] (default 4096). */
#include "bench_util.h"
#include "ctorch/ctorch.h"

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define CHK(call) BENCH_CHECK("bench sparse", ctx, call)

static ct_ctx *ctx;

static ct_tensor *rand_tensor(int64_t r, int64_t c, unsigned long long seed) {
    float *v = malloc(sizeof(float) * (size_t)(r * c));
    for (int64_t i = 0; i < r * c; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        v[i] = (float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1);
    }
    const int64_t s[2] = {r, c};
    ct_tensor *t = NULL;
    CHK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 2, s, &t));
    free(v);
    return t;
}

int main(int argc, char **argv) {
    const int64_t MK = argc > 1 ? bench_arg_i64("bench_sparse", "M_K", argv[1], 4, 1 << 16) : 4096;
    if (argc > 2 || MK % 4 != 0) {
        fprintf(stderr,
                "usage: bench_sparse [M_K]   (M = K, a positive multiple of 4; default 4096)\n");
        return 2;
    }
    const int64_t M = MK, K = MK;
    CHK(ct_ctx_create(NULL, &ctx));
    printf("bench sparse: M=K=%lld isa=%s threads=%d (prune, compress, quantize...)\n",
           (long long)M, ct_ctx_cpu_isa(ctx), ct_ctx_num_threads(ctx));
    fflush(stdout);
    ct_tensor *w = rand_tensor(M, K, 7), *wd = NULL;
    ct_sparse24 *s32 = NULL, *s8 = NULL;
    CHK(ct_sparse24_prune(ctx, w, CT_FLOAT32, &s32));
    CHK(ct_sparse24_prune(ctx, w, CT_FLOAT8_E4M3FN, &s8));
    CHK(ct_sparse24_to_dense(ctx, s32, CT_FLOAT32, &wd));
    ct_mx_tensor *wq = NULL;
    CHK(ct_mx_quantize(ctx, wd, CT_MXFP8_E4M3, 32, 1, CT_MX_SCALE_FLOOR, &wq));
    const float *wdp = ct_tensor_data_ptr(wd);
    const int64_t Ns[4] = {1, 8, 64, 512};
    for (int ni = 0; ni < 4; ni++) {
        const int64_t N = Ns[ni];
        ct_tensor *b = rand_tensor(K, N, 11 + (unsigned long long)N), *xt = NULL, *x = NULL;
        CHK(ct_tensor_transpose(ctx, b, 0, 1, &xt));
        CHK(ct_tensor_contiguous(ctx, xt, &x)); /* [N, K] for mx_linear */
        const float *bp = ct_tensor_data_ptr(b);
        float *c = malloc(sizeof(float) * (size_t)(M * N));
        const int reps = N == 1 ? 20 : N == 8 ? 6 : N == 64 ? 3 : 1;
        double best_d = 1e30, best_s[2] = {1e30, 1e30}, best_mx = 1e30;
        for (int round = 0; round < 5; round++) {
            double t0 = now();
            for (int r = 0; r < reps; r++) {
                if (N == 1)
                    cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)M, (int)K, 1.0f, wdp, (int)K, bp,
                                1, 0.0f, c, 1);
                else
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K,
                                1.0f, wdp, (int)K, bp, (int)N, 0.0f, c, (int)N);
            }
            double td = (now() - t0) / reps;
            if (td < best_d) best_d = td;
            for (int v = 0; v < 2; v++) {
                t0 = now();
                for (int r = 0; r < reps; r++) {
                    ct_tensor *out = NULL;
                    CHK(ct_sparse24_mm(ctx, v ? s8 : s32, b, NULL, 1.0, CT_FLOAT32, &out));
                    ct_tensor_release(out);
                }
                double ts = (now() - t0) / reps;
                if (ts < best_s[v]) best_s[v] = ts;
            }
            t0 = now();
            for (int r = 0; r < reps; r++) {
                ct_tensor *y = NULL;
                CHK(ct_mx_linear(ctx, x, wq, NULL, &y));
                ct_tensor_release(y);
            }
            double tm = (now() - t0) / reps;
            if (tm < best_mx) best_mx = tm;
        }
        for (int v = 0; v < 2; v++)
            printf("bench sparse mm values=%s N=%lld ct_ms=%.3f dense_ms=%.3f ratio=%.2f "
                   "mxfp8_ms=%.3f ratio_mxfp8=%.2f\n",
                   v ? "e4m3" : "f32", (long long)N, best_s[v] * 1e3, best_d * 1e3,
                   best_d / best_s[v], best_mx * 1e3, best_mx / best_s[v]);
        fflush(stdout);
        free(c);
        ct_tensor_release(b);
        ct_tensor_release(xt);
        ct_tensor_release(x);
    }
    ct_mx_tensor_free(wq);
    ct_sparse24_free(s32);
    ct_sparse24_free(s8);
    ct_tensor_release(w);
    ct_tensor_release(wd);
    ct_ctx_free(ctx);
    return 0;
}

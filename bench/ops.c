/* Op benchmarks: eager dispatch overhead on 1-element tensors, large elementwise add bandwidth
 * against memcpy, and matmul against calling cblas_sgemm directly; baselines run in the same
 * process. Lines: `bench ops <case> key=value ... ratio=R`. Not a test gate. */
#include "ctorch/ctorch.h"

#include <cblas.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define CHECK(x) BENCH_CHECK("bench ops", ctx, x)

static volatile float sink;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A child process that spins forever pinned to the last CPU (a busy neighbour), or -1. */
static pid_t start_busy_neighbour(void) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    pid_t pid = fork();
    if (pid != 0) return pid;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)(ncpu > 1 ? ncpu - 1 : 0), &set);
    sched_setaffinity(0, sizeof set, &set);
    volatile unsigned long x = 0;
    for (;;)
        x++;
}

/* Median (and mean, 90th percentile) time of op over reps, alternating a default-thread and a
 * one-thread context so both see the same neighbour: add or exp over 1M f32 elements. */
static void contended_case(ct_ctx *ctx, ct_ctx *one, int is_exp, int reps) {
    int64_t s[1] = {1 << 20};
    ct_tensor *a[2], *b[2], *r;
    ct_ctx *cs[2] = {ctx, one};
    for (int c = 0; c < 2; c++) {
        if (ct_tensor_randn(cs[c], CT_FLOAT32, 1, s, 7, 0, &a[c]) != CT_OK ||
            ct_tensor_randn(cs[c], CT_FLOAT32, 1, s, 8, 0, &b[c]) != CT_OK)
            exit(1);
    }
    double *t[2] = {malloc(sizeof(double) * (size_t)reps), malloc(sizeof(double) * (size_t)reps)};
    for (int rep = 0; rep < reps; rep++)
        for (int c = 0; c < 2; c++) {
            double t0 = now();
            ct_status st = is_exp ? ct_exp(cs[c], a[c], &r) : ct_add(cs[c], a[c], b[c], &r);
            t[c][rep] = now() - t0;
            if (st != CT_OK) exit(1);
            ct_tensor_release(r);
        }
    double mean[2] = {0, 0};
    for (int c = 0; c < 2; c++) {
        for (int rep = 0; rep < reps; rep++)
            mean[c] += t[c][rep] / reps;
        qsort(t[c], (size_t)reps, sizeof(double), cmp_double);
    }
    double md = t[0][reps / 2], m1 = t[1][reps / 2];
    int p90 = reps * 9 / 10;
    /* ratio on the means: the total time of many ops is what a user waits for, and a thread that
     * a busy core holds back shows in the tail, not in the median */
    printf("bench ops contended op=%s dtype=f32 numel=%lld threads=%d default_ms=%.3f "
           "one_thread_ms=%.3f ratio=%.2f target=0.9 default_median_ms=%.3f "
           "one_thread_median_ms=%.3f default_p90_ms=%.3f one_thread_p90_ms=%.3f\n",
           is_exp ? "exp" : "add", (long long)s[0], ct_ctx_num_threads(ctx), mean[0] * 1e3,
           mean[1] * 1e3, mean[1] / mean[0], md * 1e3, m1 * 1e3, t[0][p90] * 1e3, t[1][p90] * 1e3);
    for (int c = 0; c < 2; c++)
        ct_tensor_release(a[c]), ct_tensor_release(b[c]);
    free(t[0]), free(t[1]);
}

int main(int argc, char **argv) {
    /* --quick: fewer repetitions; a case name (dispatch, add_large, matmul, matmul_small, unary,
     * sum_dim0, ternary, contended) runs only that case */
    int quick = 0;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else
            only = argv[i];
    }
#define CASE(name) if (!only || strcmp(only, name) == 0)
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    printf("# ctorch %s, isa %s, %d threads, %s\n", ct_version(), ct_ctx_cpu_isa(ctx),
           ct_ctx_num_threads(ctx), ct_blas_info());

    /* ---- dispatch: 1-element add, output allocated and released each time ---- */
    CASE("dispatch") {
        int64_t one[1] = {1};
        float v = 1.5f;
        ct_tensor *a, *b, *r;
        CHECK(ct_tensor_from_host(ctx, &v, CT_FLOAT32, 1, one, &a));
        CHECK(ct_tensor_from_host(ctx, &v, CT_FLOAT32, 1, one, &b));
        long iters = quick ? 200000 : 2000000;
        double best = 1e9, base_best = 1e9;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now();
            for (long i = 0; i < iters; i++) {
                ct_add(ctx, a, b, &r);
                ct_tensor_release(r);
            }
            double t = (now() - t0) / (double)iters;
            if (t < best) best = t;
            /* baseline: what any fresh-output op must do at least: one malloc + free of a
             * tensor-sized block and the add itself (called through volatile pointers so the
             * compiler cannot drop them) */
            void *(*volatile mf)(size_t) = malloc;
            void (*volatile ff)(void *) = free;
            t0 = now();
            for (long i = 0; i < iters; i++) {
                float *p = mf(320);
                p[0] = v + v;
                sink = p[0];
                ff(p);
            }
            t = (now() - t0) / (double)iters;
            if (t < base_best) base_best = t;
        }
        printf("bench ops dispatch dtype=f32 numel=1 ns_per_op=%.1f baseline_malloc_ns=%.1f "
               "ratio=%.2f target_ns=150\n",
               best * 1e9, base_best * 1e9, best / base_best);
        ct_tensor_release(a);
        ct_tensor_release(b);
    }

    /* ---- add_large: 4M f32 (16 MiB per array) vs memcpy of one array ---- */
    CASE("add_large") {
        int64_t n = 4 << 20;
        int64_t s[1] = {n};
        ct_tensor *a, *b, *r;
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, s, 1, 0, &a));
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, s, 2, 0, &b));
        float *src = malloc((size_t)n * 4), *dst = malloc((size_t)n * 4);
        memset(src, 1, (size_t)n * 4);
        memset(dst, 0, (size_t)n * 4);
        int reps = quick ? 5 : 30;
        double best_add = 1e9, best_cpy = 1e9;
        for (int rep = 0; rep < reps; rep++) {
            double t0 = now();
            CHECK(ct_add(ctx, a, b, &r));
            double t = now() - t0;
            ct_tensor_release(r);
            if (t < best_add) best_add = t;
            t0 = now();
            memcpy(dst, src, (size_t)n * 4);
            t = now() - t0;
            sink = dst[rep];
            if (t < best_cpy) best_cpy = t;
        }
        double gb_add = 3.0 * 4 * (double)n / best_add / 1e9,
               gb_cpy = 2.0 * 4 * (double)n / best_cpy / 1e9;
        printf("bench ops add_large dtype=f32 numel=%lld add_GBps=%.2f memcpy_GBps=%.2f ratio=%.2f "
               "target=0.7\n",
               (long long)n, gb_add, gb_cpy, gb_add / gb_cpy);
        free(src), free(dst);
        ct_tensor_release(a), ct_tensor_release(b);
    }

    /* ---- matmul: 1024^3 f32 vs cblas_sgemm on the same data ---- */
    CASE("matmul") {
        int m = quick ? 512 : 1024;
        int64_t s[2] = {m, m};
        ct_tensor *a, *b, *r;
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, s, 3, 0, &a));
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, s, 4, 0, &b));
        float *c = malloc((size_t)m * m * 4);
        const float *pa = ct_tensor_data_ptr(a), *pb = ct_tensor_data_ptr(b);
        int reps = quick ? 3 : 10;
        double best_ct = 1e9, best_bl = 1e9;
        for (int rep = 0; rep < reps; rep++) {
            double t0 = now();
            CHECK(ct_matmul(ctx, a, b, &r));
            double t = now() - t0;
            ct_tensor_release(r);
            if (t < best_ct) best_ct = t;
            t0 = now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, pa, m, pb, m,
                        0.0f, c, m);
            t = now() - t0;
            if (t < best_bl) best_bl = t;
        }
        double fl = 2.0 * m * m * m;
        printf("bench ops matmul dtype=f32 shape=%dx%dx%d ctorch_GFLOPs=%.1f cblas_GFLOPs=%.1f "
               "ratio=%.3f target=0.95\n",
               m, m, m, fl / best_ct / 1e9, fl / best_bl / 1e9, best_bl / best_ct);
        free(c);
        ct_tensor_release(a), ct_tensor_release(b);
    }
    /* ---- small products: one 64x64x128 (B as is, and B a transposed view: a linear layer's
     * weight), and a batch of 64 products of 64^3, against calling cblas_sgemm on each with
     * OpenBLAS's default thread count (what a C user writes) ---- */
    CASE("matmul_small") {
        const int64_t cases[3][5] = {{1, 64, 64, 128, 0}, {1, 64, 64, 128, 1}, {64, 64, 64, 64, 0}};
        for (int ci = 0; ci < 3; ci++) { /* B, M, K, N, B transposed */
            const int64_t B = cases[ci][0], M = cases[ci][1], K = cases[ci][2], N = cases[ci][3];
            const int tb = (int)cases[ci][4];
            int64_t sa[3] = {B, M, K}, sb[3] = {B, K, N}, sbt[3] = {B, N, K};
            ct_tensor *a, *b, *bt = NULL, *r;
            CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 3, sa, 5, 0, &a));
            if (tb) {
                CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 3, sbt, 6, 0, &bt));
                CHECK(ct_tensor_transpose(ctx, bt, 1, 2, &b));
            } else {
                CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 3, sb, 6, 0, &b));
            }
            float *c = malloc((size_t)(B * M * N) * 4);
            const float *pa = ct_tensor_data_ptr(a), *pb = ct_tensor_data_ptr(tb ? bt : b);
            const int reps = quick ? 20 : 200, rounds = 5;
            double best_ct = 1e9, best_bl = 1e9;
            for (int rd = 0; rd < rounds; rd++) {
                double t0 = now();
                for (int rep = 0; rep < reps; rep++) {
                    CHECK(ct_matmul(ctx, a, b, &r));
                    ct_tensor_release(r);
                }
                double t = (now() - t0) / reps;
                if (t < best_ct) best_ct = t;
                t0 = now();
                for (int rep = 0; rep < reps; rep++)
                    for (int64_t i = 0; i < B; i++)
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                                    (int)M, (int)N, (int)K, 1.0f, pa + i * M * K, (int)K,
                                    pb + i * K * N, tb ? (int)K : (int)N, 0.0f, c + i * M * N,
                                    (int)N);
                t = (now() - t0) / reps;
                if (t < best_bl) best_bl = t;
            }
            printf(
                "bench ops matmul_small dtype=f32 batch=%lld shape=%lldx%lldx%lld%s ctorch_us=%.1f "
                "cblas_loop_us=%.1f ratio=%.2f\n",
                (long long)B, (long long)M, (long long)K, (long long)N, tb ? " b=transposed" : "",
                best_ct * 1e6, best_bl * 1e6, best_bl / best_ct);
            free(c);
            ct_tensor_release(bt);
            ct_tensor_release(a), ct_tensor_release(b);
        }
    }
    /* ---- conv2d: a ResNet 3x3 layer (batch 8, 64 -> 64 channels, 56x56, padding 1) against a
     * naive direct loop and against cblas_sgemm of the same GEMM shape (64 x 576 x 3136 per
     * image), all in this run ---- */
    CASE("conv2d") {
        int64_t N = quick ? 2 : 8, C = 64, H = 56, W = 56, O = 64;
        int64_t xs[4] = {N, C, H, W}, ws[4] = {O, C, 3, 3}, one[2] = {1, 1};
        ct_tensor *x, *w, *y;
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 4, xs, 5, 0, &x));
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 4, ws, 6, 0, &w));
        int reps = quick ? 2 : 5;
        double best_ct = 1e9, best_gemm = 1e9;
        int K = (int)(C * 9), L = (int)(H * W);
        float *A = malloc(sizeof(float) * (size_t)O * K),
              *Bm = malloc(sizeof(float) * (size_t)K * L),
              *Cm = malloc(sizeof(float) * (size_t)O * L);
        for (int64_t i = 0; i < O * K; i++)
            A[i] = (float)(i % 7) * 0.1f;
        for (int64_t i = 0; i < (int64_t)K * L; i++)
            Bm[i] = (float)(i % 5) * 0.1f;
        for (int rep = 0; rep < reps; rep++) {
            double t0 = now();
            CHECK(ct_conv2d(ctx, x, w, NULL, one, one, one, 1, &y));
            double t = now() - t0;
            if (t < best_ct) best_ct = t;
            if (rep < reps - 1) ct_tensor_release(y);
            t0 = now();
            for (int64_t n = 0; n < N; n++)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)O, L, K, 1.0f, A, K, Bm,
                            L, 0.0f, Cm, L);
            t = now() - t0;
            if (t < best_gemm) best_gemm = t;
        }
        /* naive direct convolution (one run, image 0 only, scaled by N) and a spot check */
        const float *px = ct_tensor_data_ptr(x), *pw = ct_tensor_data_ptr(w),
                    *py = ct_tensor_data_ptr(y);
        float *naive = malloc(sizeof(float) * (size_t)O * L);
        double t0 = now();
        for (int64_t o = 0; o < O; o++)
            for (int64_t i = 0; i < H; i++)
                for (int64_t j = 0; j < W; j++) {
                    float acc = 0;
                    for (int64_t c = 0; c < C; c++)
                        for (int ki = 0; ki < 3; ki++)
                            for (int kj = 0; kj < 3; kj++) {
                                int64_t iy = i - 1 + ki, ix = j - 1 + kj;
                                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                                acc +=
                                    px[(c * H + iy) * W + ix] * pw[((o * C + c) * 3 + ki) * 3 + kj];
                            }
                    naive[o * L + i * W + j] = acc;
                }
        double t_naive = (now() - t0) * (double)N;
        double maxerr = 0;
        for (int64_t i = 0; i < O * L; i++) {
            double e = fabs((double)naive[i] - (double)py[i]);
            if (e > maxerr) maxerr = e;
        }
        double fl = 2.0 * (double)N * (double)O * K * L;
        printf("bench ops conv2d shape=%lldx%lldx%lldx%lld k=3x3 out=%lld ct_ms=%.2f naive_ms=%.1f "
               "ratio=%.1f gflops=%.1f sgemm_gflops=%.1f sgemm_frac=%.2f target=0.6 "
               "max_abs_err=%.2g\n",
               (long long)N, (long long)C, (long long)H, (long long)W, (long long)O, best_ct * 1e3,
               t_naive * 1e3, t_naive / best_ct, fl / best_ct / 1e9, fl / best_gemm / 1e9,
               best_gemm / best_ct, maxerr);
        free(A), free(Bm), free(Cm), free(naive);
        ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(y);
    }
    /* ---- topk k = 10 of 1M f32 (the bounded heap) against a full sort, same run ---- */
    CASE("topk") {
        int64_t n = quick ? (1 << 18) : (1 << 20);
        ct_tensor *x, *v, *i;
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, &n, 8, 0, &x));
        double best_k = 1e9, best_s = 1e9;
        for (int rep = 0; rep < (quick ? 2 : 5); rep++) {
            double t0 = now();
            CHECK(ct_topk(ctx, x, 10, 0, true, true, &v, &i));
            double t = now() - t0;
            ct_tensor_release(v), ct_tensor_release(i);
            if (t < best_k) best_k = t;
            t0 = now();
            CHECK(ct_sort(ctx, x, 0, true, true, &v, &i));
            t = now() - t0;
            ct_tensor_release(v), ct_tensor_release(i);
            if (t < best_s) best_s = t;
        }
        printf("bench ops topk dtype=f32 n=%lld k=10 topk_ms=%.3f sort_ms=%.3f ratio=%.1f "
               "target=5\n",
               (long long)n, best_k * 1e3, best_s * 1e3, best_s / best_k);
        ct_tensor_release(x);
    }
    /* ---- cat and gather of 16M floats against memcpy of the same bytes, same run ---- */
    CASE("cat_gather") {
        int64_t half = quick ? (1 << 21) : (1 << 23), n = 2 * half;
        ct_tensor *a, *b, *r, *idx, *src;
        CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, &half, 1, 0, &a));
        CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, &half, 2, 0, &b));
        CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, &n, 3, 0, &src));
        CHECK(ct_tensor_arange(ctx, CT_INT64, 0, (double)n, 1, &idx)); /* identity gather */
        float *dst = malloc(sizeof(float) * (size_t)n);
        const float *pa = ct_tensor_data_ptr(a), *ps = ct_tensor_data_ptr(src);
        double best_cat = 1e9, best_gather = 1e9, best_cpy = 1e9;
        const ct_tensor *ab[2] = {a, b};
        for (int rep = 0; rep < (quick ? 2 : 5); rep++) {
            double t0 = now();
            CHECK(ct_cat(ctx, 2, ab, 0, &r));
            double t = now() - t0;
            ct_tensor_release(r);
            if (t < best_cat) best_cat = t;
            t0 = now();
            CHECK(ct_gather(ctx, src, 0, idx, &r));
            t = now() - t0;
            ct_tensor_release(r);
            if (t < best_gather) best_gather = t;
            t0 = now();
            memcpy(dst, pa, sizeof(float) * (size_t)half);
            memcpy(dst + half, ps, sizeof(float) * (size_t)half);
            t = now() - t0;
            if (t < best_cpy) best_cpy = t;
        }
        printf("bench ops cat dtype=f32 numel=%lld cat_ms=%.3f memcpy_ms=%.3f ratio=%.2f "
               "target=0.7\n",
               (long long)n, best_cat * 1e3, best_cpy * 1e3, best_cpy / best_cat);
        /* bytes moved: gather reads int64 indices and the source and writes the output (16 B per
         * element), memcpy reads and writes 8 B per element */
        const double g_gbps = 16.0 * (double)n / best_gather * 1e-9,
                     c_gbps = 8.0 * (double)n / best_cpy * 1e-9;
        printf("bench ops gather dtype=f32 numel=%lld gather_ms=%.3f memcpy_ms=%.3f ratio=%.2f "
               "target=0.7 gather_gbps=%.1f memcpy_gbps=%.1f bw_ratio=%.2f\n",
               (long long)n, best_gather * 1e3, best_cpy * 1e3, best_cpy / best_gather, g_gbps,
               c_gbps, g_gbps / c_gbps);
        free(dst);
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(src), ct_tensor_release(idx);
    }
    /* ---- vector transcendentals: this context's ISA vs the scalar reference (libm) ---- */
    CASE("unary") {
        ct_ctx_options ro = {.size = sizeof ro, .cpu_isa = "ref"};
        ct_ctx *rctx;
        CHECK(ct_ctx_create(&ro, &rctx));
        int64_t s[1] = {1 << 20};
        ct_tensor *x, *xr, *r;
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, s, 5, 0, &x));
        CHECK(ct_tensor_randn(rctx, CT_FLOAT32, 1, s, 5, 0, &xr));
        typedef ct_status (*un_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
        const un_fn fns[4] = {ct_exp, ct_log, ct_tanh, ct_sigmoid};
        const char *names[4] = {"exp", "log", "tanh", "sigmoid"};
        int reps = quick ? 3 : 10;
        for (int f = 0; f < 4; f++) {
            double best = 1e9, best_ref = 1e9;
            for (int rep = 0; rep < reps; rep++) {
                double t0 = now();
                CHECK(fns[f](ctx, x, &r));
                double t = now() - t0;
                ct_tensor_release(r);
                if (t < best) best = t;
                t0 = now();
                if (fns[f](rctx, xr, &r) != CT_OK) exit(1);
                t = now() - t0;
                ct_tensor_release(r);
                if (t < best_ref) best_ref = t;
            }
            printf("bench ops unary fn=%s dtype=f32 numel=%lld isa=%s ms=%.3f ref_ms=%.3f "
                   "ratio=%.2f\n",
                   names[f], (long long)s[0], ct_ctx_cpu_isa(ctx), best * 1e3, best_ref * 1e3,
                   best_ref / best);
        }
        ct_tensor_release(x), ct_tensor_release(xr);
        ct_ctx_free(rctx);
    }

    /* ---- ternary elementwise ops (addcmul, addcdiv, lerp, lerp with a scalar weight): this
     * context's ISA (a vector loop per broadcast pattern) vs the ref ISA (the generic strided
     * loop), on contiguous operands and with the third operand broadcast (one element) ---- */
    CASE("ternary") {
        ct_ctx_options ro = {.size = sizeof ro, .cpu_isa = "ref"};
        ct_ctx *rctx;
        CHECK(ct_ctx_create(&ro, &rctx));
        int64_t s[1] = {3200000}, s1[1] = {1};
        ct_tensor *t[2][4];
        ct_ctx *cs[2] = {ctx, rctx};
        for (int k = 0; k < 2; k++) {
            CHECK(ct_tensor_randn(cs[k], CT_FLOAT32, 1, s, 7, 0, &t[k][0]));
            CHECK(ct_tensor_randn(cs[k], CT_FLOAT32, 1, s, 8, 0, &t[k][1]));
            CHECK(ct_tensor_rand(cs[k], CT_FLOAT32, 1, s, 9, 0, &t[k][2]));
            CHECK(ct_tensor_rand(cs[k], CT_FLOAT32, 1, s1, 10, 0, &t[k][3]));
        }
        const char *names[4] = {"addcmul", "addcdiv", "lerp", "lerp_scalar"};
        int reps = quick ? 3 : 10;
        for (int f = 0; f < 4; f++)
            for (int bc = 0; bc < (f == 3 ? 1 : 2); bc++) {
                double best[2] = {1e9, 1e9};
                for (int rep = 0; rep < reps; rep++)
                    for (int k = 0; k < 2; k++) {
                        const ct_tensor *a = t[k][0], *b = t[k][1], *c = t[k][bc ? 3 : 2];
                        ct_tensor *r = NULL;
                        double t0 = now();
                        ct_status st = f == 0   ? ct_addcmul(cs[k], a, b, c, 0.5, &r)
                                       : f == 1 ? ct_addcdiv(cs[k], a, b, c, 0.5, &r)
                                       : f == 2 ? ct_lerp(cs[k], a, b, c, &r)
                                                : ct_lerp_scalar(cs[k], a, b, 0.3, &r);
                        double dt = now() - t0;
                        CHECK(st);
                        ct_tensor_release(r);
                        if (dt < best[k]) best[k] = dt;
                    }
                printf("bench ops ternary fn=%s third=%s dtype=f32 numel=%lld isa=%s ms=%.3f "
                       "ref_ms=%.3f ratio=%.2f\n",
                       names[f],
                       f == 3 ? "scalar"
                       : bc   ? "broadcast"
                              : "tensor",
                       (long long)s[0], ct_ctx_cpu_isa(ctx), best[0] * 1e3, best[1] * 1e3,
                       best[1] / best[0]);
            }
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 4; i++)
                ct_tensor_release(t[k][i]);
        ct_ctx_free(rctx);
    }

    /* ---- reduction over the outer dim (column path) vs over the inner dim, same data ---- */
    CASE("sum_dim0") {
        int64_t s[2] = {4096, 4096};
        ct_tensor *x, *r;
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, s, 6, 0, &x));
        int reps = quick ? 3 : 10;
        double best[2] = {1e9, 1e9};
        for (int rep = 0; rep < reps; rep++)
            for (int d = 0; d < 2; d++) {
                double t0 = now();
                CHECK(ct_sum(ctx, x, 1, &d, false, &r));
                double t = now() - t0;
                ct_tensor_release(r);
                if (t < best[d]) best[d] = t;
            }
        printf(
            "bench ops sum_dim0 dtype=f32 shape=4096x4096 dim0_ms=%.3f dim1_ms=%.3f ratio=%.2f\n",
            best[0] * 1e3, best[1] * 1e3, best[1] / best[0]);
        ct_tensor_release(x);
    }

    /* ---- contended: a busy-loop process pinned to one core beside the add and exp benchmarks;
     * ratio = T(one thread) / T(default threads), mean times over alternating runs (target >= 0.9:
     * the default is never much worse than one thread) ---- */
    CASE("contended") {
        ct_ctx_options oo = {.size = sizeof oo, .num_threads = 1};
        ct_ctx *one;
        CHECK(ct_ctx_create(&oo, &one));
        pid_t busy = start_busy_neighbour();
        if (busy > 0) {
            usleep(20000);
            int reps = quick ? 21 : 101;
            contended_case(ctx, one, 0, reps);
            contended_case(ctx, one, 1, reps);
            kill(busy, SIGKILL);
            waitpid(busy, NULL, 0);
        }
        ct_ctx_free(one);
    }
    ct_ctx_free(ctx);
    return 0;
}

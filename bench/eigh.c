/* Benchmark of batched linalg.eigh against a LAPACKE ?syevd loop (OpenBLAS) in the same process.
 * For each shape and dtype prints a human line and one machine line:
 *   bench eigh <dtype> <batch>x<n> ctorch_ms=.. ctorch_mps=.. lapack1_mps=.. lapack2_mps=..
 * ratio=.. (mps = million matrices per second; lapack1/2 = the loop on 1 thread / split over 2
 * threads; ratio = ctorch / the faster LAPACKE loop). Usage: bench_eigh [--quick] [--n N] [--batch
 * B]. */
#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "ctorch/ctorch.h"
#include "ctorch/linalg.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Symmetric random matrices, row-major, as f64 or f32. */
static void *make_batch(int f64, int64_t batch, int n) {
    int64_t nn = (int64_t)n * n;
    void *p = malloc((size_t)(batch * nn) * (f64 ? 8 : 4) + 64);
    unsigned long long s = 12345;
    for (int64_t b = 0; b < batch; b++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                double x = (double)(s >> 11) / 9007199254740992.0 - 0.5;
                if (f64) {
                    ((double *)p)[b * nn + i * n + j] = x;
                    ((double *)p)[b * nn + j * n + i] = x;
                } else {
                    ((float *)p)[b * nn + i * n + j] = (float)x;
                    ((float *)p)[b * nn + j * n + i] = (float)x;
                }
            }
    return p;
}

/* Matrices per second of a LAPACKE syevd loop ('V', 'L', row-major: what a C user writes) over
 * the first `cap` matrices, on `threads` OpenMP threads (one parallel region), OpenBLAS on one
 * thread per call. With cap = 0 the loop runs on one thread until `budget` seconds pass. */
static double lapack_mps(int f64, const void *a, int64_t batch, int n, int threads, int64_t cap,
                         double budget) {
    int64_t nn = (int64_t)n * n, done = 0;
    openblas_set_num_threads(1);
    double t0 = now_s(), t;
    if (cap == 0) {
        void *z = malloc((size_t)nn * 8), *w = malloc((size_t)n * 8);
        do {
            if (f64) {
                memcpy(z, (const double *)a + done * nn, (size_t)nn * 8);
                LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', n, z, n, w);
            } else {
                memcpy(z, (const float *)a + done * nn, (size_t)nn * 4);
                LAPACKE_ssyevd(LAPACK_ROW_MAJOR, 'V', 'L', n, z, n, w);
            }
            done++;
        } while (done < batch && ((done & 15) || now_s() - t0 < budget));
        free(z);
        free(w);
    } else {
        done = cap < batch ? cap : batch;
#pragma omp parallel num_threads(threads)
        {
            void *z = malloc((size_t)nn * 8), *w = malloc((size_t)n * 8);
#pragma omp for schedule(dynamic, 16)
            for (int64_t b = 0; b < done; b++) {
                if (f64) {
                    memcpy(z, (const double *)a + b * nn, (size_t)nn * 8);
                    LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'L', n, z, n, w);
                } else {
                    memcpy(z, (const float *)a + b * nn, (size_t)nn * 4);
                    LAPACKE_ssyevd(LAPACK_ROW_MAJOR, 'V', 'L', n, z, n, w);
                }
            }
            free(z);
            free(w);
        }
    }
    t = now_s() - t0;
    openblas_set_num_threads(omp_get_num_procs());
    return (double)done / t * 1e-6;
}

static void run_case(ct_ctx *ctx, int f64, int64_t batch, int n, int quick) {
    void *a = make_batch(f64, batch, n);
    int64_t shape[3] = {batch, n, n};
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, a, f64 ? CT_FLOAT64 : CT_FLOAT32, 3, shape, &t) != CT_OK) {
        printf("eigh: cannot create input (%s)\n", ct_ctx_last_error(ctx));
        free(a);
        return;
    }
    double best = 1e30, budget = quick ? 0.1 : 0.4, t_all = 0;
    /* let OpenBLAS's worker threads from the previous baseline go idle (they spin for a while
     * and would steal the cores from ctorch's threads) */
    usleep(300000);
    for (int rep = 0; rep < 20 && (rep < 2 || t_all < budget); rep++) {
        ct_tensor *w = NULL, *v = NULL;
        double t0 = now_s();
        ct_status st = ct_linalg_eigh(ctx, t, 'L', &w, &v);
        double dt = now_s() - t0;
        ct_tensor_release(w);
        ct_tensor_release(v);
        if (st != CT_OK) {
            printf("eigh failed: %s\n", ct_ctx_last_error(ctx));
            break;
        }
        t_all += dt;
        if (dt < best) best = dt;
    }
    double mps = (double)batch / best * 1e-6;
    double l1 = lapack_mps(f64, a, batch, n, 1, 0, budget);
    int64_t cap2 = (int64_t)(l1 * 1e6 * budget * 2);
    double l2 = lapack_mps(f64, a, batch, n, 2, cap2 < 2 ? 2 : cap2, budget);
    double lb = l1 > l2 ? l1 : l2;
    const char *dt = f64 ? "f64" : "f32";
    printf("eigh %s %lldx%d: ctorch %.3f ms (%.4g M matrices/s), LAPACKE loop %.4g M/s (1 thr) "
           "%.4g M/s (2 thr): %.1fx\n",
           dt, (long long)batch, n, best * 1e3, mps, l1, l2, mps / lb);
    printf("bench eigh %s %lldx%d ctorch_ms=%.4f ctorch_mps=%.5g lapack1_mps=%.5g lapack2_mps=%.5g "
           "ratio=%.3g\n",
           dt, (long long)batch, n, best * 1e3, mps, l1, l2, mps / lb);
    fflush(stdout);
    ct_tensor_release(t);
    free(a);
}

int main(int argc, char **argv) {
    int quick = 0, only_n = 0;
    int64_t only_b = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--n") && i + 1 < argc)
            only_n = (int)bench_arg_i64("bench_eigh", "--n", argv[++i], 1, 4096);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            only_b = bench_arg_i64("bench_eigh", "--batch", argv[++i], 1, INT64_C(1) << 32);
        else {
            printf("usage: bench_eigh [--quick] [--n N] [--batch B]\n");
            return 2;
        }
    }
    ct_ctx *ctx = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) {
        printf("cannot create context\n");
        return 1;
    }
    printf("# ctorch eigh benchmark: isa %s, %d threads, %s\n", ct_ctx_cpu_isa(ctx),
           ct_ctx_num_threads(ctx), ct_blas_info());
    static const struct {
        int64_t batch;
        int n;
    } shapes[] = {{100000, 3}, {100000, 4}, {20000, 8}, {10000, 16},
                  {2000, 32},  {200, 64},   {20, 256},  {2, 1024}};
    for (int f64 = 0; f64 < 2; f64++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            if (only_n && shapes[s].n != only_n) continue;
            int64_t b = only_b ? only_b : shapes[s].batch;
            if (quick && shapes[s].n >= 1024) continue;
            run_case(ctx, f64, b, shapes[s].n, quick);
        }
    if (only_n && only_n != 3 && only_n != 4 && only_n != 8 && only_n != 16 && only_n != 32 &&
        only_n != 64 && only_n != 256 && only_n != 1024)
        for (int f64 = 0; f64 < 2; f64++)
            run_case(ctx, f64, only_b ? only_b : 1000, only_n, quick);
    ct_ctx_free(ctx);
    return 0;
}

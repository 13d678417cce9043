/* Optimizer benchmark: one step over 10M f32 parameters in 100 tensors, FUSED against FOREACH,
 * for the nine optimizers, and the fused step's effective bandwidth (bytes the step must move:
 * 28 per parameter with two state slots, 20 with one: SGD with momentum, Adagrad, RMSprop) as a
 * fraction of memcpy's bandwidth (read + write,
 * on as many threads as the context uses) measured in the same run. Lines: `bench optim <kind> ...
 * ratio=FOREACH/FUSED bw_frac=F`. `bench_optim quick` runs fewer repetitions. Not a test gate. */
#include "ctorch/ctorch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static ct_ctx *ctx;
#define CHECK(x) BENCH_CHECK("bench optim", ctx, x)

static volatile float sink;

#define NT 100
#define PER 100000

typedef struct {
    char *dst;
    const char *src;
    size_t n;
} cpy_job;
static void *cpy_run(void *arg) {
    cpy_job *j = arg;
    memcpy(j->dst, j->src, j->n);
    return NULL;
}
/* Copy nb bytes split over nth threads (the caller runs one part). */
static void par_memcpy(char *dst, const char *src, size_t nb, int nth) {
    pthread_t th[16];
    cpy_job jobs[16];
    if (nth > 16) nth = 16;
    size_t part = nb / (size_t)nth;
    for (int t = 0; t < nth; t++) {
        jobs[t].dst = dst + (size_t)t * part;
        jobs[t].src = src + (size_t)t * part;
        jobs[t].n = t == nth - 1 ? nb - (size_t)t * part : part;
    }
    for (int t = 1; t < nth; t++)
        if (pthread_create(&th[t], NULL, cpy_run, &jobs[t]) != 0) cpy_run(&jobs[t]), th[t] = 0;
    cpy_run(&jobs[0]);
    for (int t = 1; t < nth; t++)
        if (th[t]) pthread_join(th[t], NULL);
}

/* Best time of one step over reps (after one warm-up step). */
static double time_steps(ct_optim *opt, ct_tensor *const *grads, int reps) {
    CHECK(ct_optim_step(opt, grads));
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        CHECK(ct_optim_step(opt, grads));
        double t = now() - t0;
        if (t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    int reps = quick ? 3 : 10;
    CHECK(ct_ctx_create(NULL, &ctx));
    int64_t s[1] = {PER};
    ct_tensor *params[NT], *grads[NT];
    for (int i = 0; i < NT; i++) {
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, s, (uint64_t)(2 * i + 1), 0, &params[i]));
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, s, (uint64_t)(2 * i + 2), 0, &grads[i]));
    }
    /* memcpy bandwidth: 160 MB copied (320 MB moved, far beyond the caches, like the optimizer's
     * 200-280 MB), split over the context's thread count as the fused step is; best of reps */
    size_t nb = (size_t)NT * PER * 16;
    float *src = malloc(nb), *dst = malloc(nb);
    if (!src || !dst) return 1;
    memset(src, 1, nb);
    memset(dst, 0, nb);
    double best_cpy = 1e9;
    for (int r = 0; r < reps + 2; r++) {
        double t0 = now();
        par_memcpy((char *)dst, (const char *)src, nb, ct_ctx_num_threads(ctx));
        double t = now() - t0;
        sink = dst[r];
        if (t < best_cpy) best_cpy = t;
    }
    double cpy_bw = 2.0 * (double)nb / best_cpy;
    printf("bench optim memcpy bytes=%zu time_ms=%.3f bw_GBps=%.2f threads=%d isa=%s\n", nb,
           best_cpy * 1e3, cpy_bw / 1e9, ct_ctx_num_threads(ctx), ct_ctx_cpu_isa(ctx));
    static const char *const names[11] = {"sgd",      "adam",   "adamw", "adagrad",
                                          "rmsprop",  "adamax", "nadam", "radam",
                                          "adadelta", "rprop",  "asgd"};
    /* param read + write, grad read, each state slot read + write */
    static const double bytes[11] = {20, 28, 28, 20, 20, 28, 28, 28, 28, 28, 20};
    for (int k = 0; k < 11; k++) {
        double t[2];
        for (int impl = 0; impl < 2; impl++) {
            ct_optim_options o = ct_optim_options_default((ct_optim_kind)k);
            o.impl = (ct_optim_impl)impl;
            o.lr = 1e-4;
            if (k == CT_OPTIM_SGD) o.momentum = 0.9;
            ct_optim *opt;
            CHECK(ct_optim_create(ctx, &o, NT, params, &opt));
            t[impl] = time_steps(opt, grads, reps);
            ct_optim_free(opt);
        }
        double bw = bytes[k] * NT * PER / t[0];
        printf("bench optim %s params=%d tensors=%d fused_ms=%.3f foreach_ms=%.3f "
               "bytes_per_param=%.0f fused_GBps=%.2f memcpy_GBps=%.2f ratio=%.2f bw_frac=%.2f\n",
               names[k], NT * PER, NT, t[0] * 1e3, t[1] * 1e3, bytes[k], bw / 1e9, cpy_bw / 1e9,
               t[1] / t[0], bw / cpy_bw);
    }
    for (int i = 0; i < NT; i++) {
        ct_tensor_release(params[i]);
        ct_tensor_release(grads[i]);
    }
    free(src);
    free(dst);
    ct_ctx_free(ctx);
    return 0;
}

/* Autograd benchmark. (1) Dispatch overhead of the tape hook when nothing requires grad: a loop of
 * small adds on a context where autograd was never used (baseline) and on one where it is in use
 * (another tensor requires grad); ratio = in-use / baseline, ~1. (2) An MLP 256-512-512-10 training
 * step (batch 64, MLP 64-128-10): forward alone, forward + backward, and the whole step (with an
 * SGD update) captured and replayed; ratios against the eager forward. Lines: `bench autograd
 * <case> ...`. `bench_autograd quick` runs fewer repetitions. Not a test gate. */
#include "ctorch/ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static ct_ctx *ctx;
#define CHECK(x) BENCH_CHECK("bench autograd", ctx, x)

/* ns per ct_add of two 8-element f32 tensors on c (best of 5 runs of n calls) */
static double small_add_ns(ct_ctx *c, int n) {
    ct_ctx *saved = ctx;
    ctx = c;
    int64_t s[1] = {8};
    ct_tensor *a, *b;
    CHECK(ct_tensor_full(c, CT_FLOAT32, 1, s, 1.0, &a));
    CHECK(ct_tensor_full(c, CT_FLOAT32, 1, s, 2.0, &b));
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
            ct_tensor *o;
            CHECK(ct_add(c, a, b, &o));
            ct_tensor_release(o);
        }
        double dt = (now() - t0) / n * 1e9;
        if (dt < best) best = dt;
    }
    ct_tensor_release(a), ct_tensor_release(b);
    ctx = saved;
    return best;
}

#define B 64
static const int64_t dims[3] = {64, 128, 10}; /* the MLP (train_digits) */
static ct_tensor *W[2], *Bs[2], *X, *Y;

static void forward(ct_tensor **out) {
    ct_tensor *h = ct_tensor_retain(X);
    for (int l = 0; l < 2; l++) {
        ct_tensor *z, *a;
        CHECK(ct_linear(ctx, h, W[l], Bs[l], &z));
        ct_tensor_release(h);
        if (l < 1) {
            CHECK(ct_relu(ctx, z, &a));
            ct_tensor_release(z);
            h = a;
        } else {
            h = z;
        }
    }
    *out = h;
}
static void step(bool backward, bool update) {
    ct_tensor *o, *l;
    for (int i = 0; i < 2; i++)
        ct_tensor_zero_grad(W[i]), ct_tensor_zero_grad(Bs[i]);
    forward(&o);
    CHECK(ct_cross_entropy(ctx, o, Y, CT_REDUCTION_MEAN, 0.0, &l));
    if (backward) CHECK(ct_backward(ctx, l, NULL, false));
    if (update) {
        bool prev = ct_set_grad_enabled(ctx, false);
        for (int i = 0; i < 2; i++) {
            ct_tensor *p[2] = {W[i], Bs[i]};
            for (int k = 0; k < 2; k++) {
                ct_tensor *u;
                CHECK(ct_mul_scalar(ctx, ct_tensor_grad(p[k]), 0.01, &u));
                CHECK(ct_sub_(ctx, p[k], u));
                ct_tensor_release(u);
            }
        }
        ct_set_grad_enabled(ctx, prev);
    }
    ct_tensor_release(o), ct_tensor_release(l);
}
static double time_it(void (*fn)(void), int n) {
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            fn();
        double dt = (now() - t0) / n;
        if (dt < best) best = dt;
    }
    return best;
}
static void fwd_only(void) {
    bool prev = ct_set_grad_enabled(ctx, false);
    step(false, false);
    ct_set_grad_enabled(ctx, prev);
}
static void fwd_bwd(void) { step(true, false); }
static void full_step(void) { step(true, true); }
static ct_graph *G;
static void replay(void) { CHECK(ct_graph_replay(G)); }

int main(int argc, char **argv) {
    bool quick = argc > 1 && !strcmp(argv[1], "quick");
    int n_small = quick ? 20000 : 200000, n_step = quick ? 5 : 50;
    ct_ctx *base, *used;
    if (ct_ctx_create(NULL, &base) != CT_OK || ct_ctx_create(NULL, &used) != CT_OK) return 1;
    ctx = used;
    int64_t one[1] = {1};
    ct_tensor *leaf;
    CHECK(ct_tensor_zeros(used, CT_FLOAT32, 1, one, &leaf));
    CHECK(ct_tensor_set_requires_grad(leaf, true)); /* autograd is now in use on `used` */
    double t_base = small_add_ns(base, n_small), t_used = small_add_ns(used, n_small);
    printf("small add: %.1f ns (autograd unused), %.1f ns (in use, inputs without grad)\n", t_base,
           t_used);
    printf("bench autograd hook_overhead base_ns=%.1f used_ns=%.1f ratio=%.3f\n", t_base, t_used,
           t_used / t_base);
    ct_tensor_release(leaf);

    for (int l = 0; l < 2; l++) {
        int64_t ws[2] = {dims[l + 1], dims[l]}, bs[1] = {dims[l + 1]};
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, ws, 1 + l, 0, &W[l]));
        CHECK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, bs, &Bs[l]));
        CHECK(ct_tensor_set_requires_grad(W[l], true));
        CHECK(ct_tensor_set_requires_grad(Bs[l], true));
    }
    int64_t xs[2] = {B, dims[0]}, ys[1] = {B};
    CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, xs, 9, 0, &X));
    CHECK(ct_tensor_zeros(ctx, CT_INT64, 1, ys, &Y));
    double tf = time_it(fwd_only, n_step), tfb = time_it(fwd_bwd, n_step),
           ts = time_it(full_step, n_step);
    CHECK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &G));
    CHECK(ct_graph_capture_begin(G, NULL));
    full_step();
    CHECK(ct_graph_capture_end(G));
    CHECK(ct_graph_instantiate(G));
    double tr = time_it(replay, n_step);
    printf("MLP 64-128-10, batch %d: forward %.1f us, forward+backward %.1f us, step %.1f us, "
           "captured step %.1f us\n",
           B, tf * 1e6, tfb * 1e6, ts * 1e6, tr * 1e6);
    printf("bench autograd mlp_step batch=%d eager_us=%.1f replay_us=%.1f ratio=%.2f   (target >= "
           "3)\n",
           B, ts * 1e6, tr * 1e6, ts / tr);
    /* a chain of 100 one-element ops: forward time, then backward time */
    {
        enum { NOPS = 100 };
        ct_tensor *x0;
        CHECK(ct_tensor_full(ctx, CT_FLOAT32, 1, one, 0.5, &x0));
        CHECK(ct_tensor_set_requires_grad(x0, true));
        double bf = 1e30, bb = 1e30;
        for (int r = 0; r < (quick ? 20 : 200); r++) {
            ct_tensor_zero_grad(x0);
            double t0 = now();
            ct_tensor *h = ct_tensor_retain(x0);
            for (int i = 0; i < NOPS; i++) {
                ct_tensor *n;
                CHECK(i % 2 ? ct_mul_scalar(ctx, h, 1.001, &n) : ct_tanh(ctx, h, &n));
                ct_tensor_release(h);
                h = n;
            }
            double t1 = now();
            CHECK(ct_backward(ctx, h, NULL, false));
            double t2 = now();
            ct_tensor_release(h);
            if (t1 - t0 < bf) bf = t1 - t0;
            if (t2 - t1 < bb) bb = t2 - t1;
        }
        printf("bench autograd overhead ops=%d forward_us=%.1f backward_us=%.1f ratio=%.2f   "
               "(target: backward <= 2x forward)\n",
               NOPS, bf * 1e6, bb * 1e6, bb / bf);
        ct_tensor_release(x0);
    }
    for (int l = 0; l < 2; l++)
        ct_tensor_release(W[l]), ct_tensor_release(Bs[l]);
    ct_tensor_release(X), ct_tensor_release(Y);
    ct_graph_free(G);
    ct_ctx_free(base);
    ct_ctx_free(used);
    return 0;
}

/* Graph replay vs eager dispatch: a chain of 1000 elementwise ops on 1-element and 1024-element
 * f32 tensors, a 16-op elementwise chain on 1M floats (fused into one pass at instantiate), and an
 * 8-layer 256-wide MLP forward at batch 1. Lines:
 * `bench graph chain1|chain1024|fused|mlp ... eager_ns_per_op=E replay_ns_per_op=R ratio=E/R` and
 * `bench graph pool ... unplanned_bytes=A planned_bytes=B ratio=B/A` (the MLP's pool before and
 * after memory planning). */
#include "ctorch/ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static ct_ctx *ctx;
#define CHECK(x) BENCH_CHECK("bench graph", ctx, x)

#define CHAIN 1000
static ct_tensor *chain(ct_tensor *x, ct_tensor *b) {
    ct_tensor *t = ct_tensor_retain(x), *u;
    for (int i = 0; i < CHAIN; i++) {
        if (i % 2)
            CHECK(ct_mul(ctx, t, b, &u));
        else
            CHECK(ct_add(ctx, t, b, &u));
        ct_tensor_release(t);
        t = u;
    }
    return t;
}

/* 16 elementwise ops on 1M floats: three tensor inputs (arithmetic with w and v, two scalars,
 * relu/abs/neg/sqrt), or one tensor input and scalars only (pointwise_chain) */
#define FUSED 16
static ct_tensor *fx, *fw, *fv;
static ct_tensor *pointwise_chain(void) {
    ct_tensor *t = ct_tensor_retain(fx), *u = NULL;
    for (int i = 0; i < FUSED; i++) {
        switch (i % 8) {
        case 0: CHECK(ct_mul_scalar(ctx, t, 1.25, &u)); break;
        case 1: CHECK(ct_add_scalar(ctx, t, -0.5, &u)); break;
        case 2: CHECK(ct_relu(ctx, t, &u)); break;
        case 3: CHECK(ct_mul(ctx, t, fx, &u)); break;
        case 4: CHECK(ct_sub_scalar(ctx, t, 0.25, &u)); break;
        case 5: CHECK(ct_abs(ctx, t, &u)); break;
        case 6: CHECK(ct_neg(ctx, t, &u)); break;
        default: CHECK(ct_add(ctx, t, fx, &u)); break;
        }
        ct_tensor_release(t);
        t = u;
    }
    return t;
}
static ct_tensor *fused_chain(void) {
    ct_tensor *t = ct_tensor_retain(fx), *u = NULL;
    for (int i = 0; i < FUSED; i++) {
        switch (i) {
        case 0: CHECK(ct_mul(ctx, t, fw, &u)); break;
        case 1: CHECK(ct_add(ctx, t, fv, &u)); break;
        case 2: CHECK(ct_relu(ctx, t, &u)); break;
        case 3: CHECK(ct_mul_scalar(ctx, t, 0.75, &u)); break;
        case 4: CHECK(ct_sub(ctx, t, fw, &u)); break;
        case 5: CHECK(ct_abs(ctx, t, &u)); break;
        case 6: CHECK(ct_add(ctx, t, fv, &u)); break;
        case 7: CHECK(ct_mul(ctx, t, fw, &u)); break;
        case 8: CHECK(ct_neg(ctx, t, &u)); break;
        case 9: CHECK(ct_add_scalar(ctx, t, 2.0, &u)); break;
        case 10: CHECK(ct_relu(ctx, t, &u)); break;
        case 11: CHECK(ct_mul(ctx, t, fv, &u)); break;
        case 12: CHECK(ct_sub(ctx, t, fw, &u)); break;
        case 13: CHECK(ct_abs(ctx, t, &u)); break;
        case 14: CHECK(ct_sqrt(ctx, t, &u)); break;
        default: CHECK(ct_div(ctx, t, fw, &u)); break;
        }
        ct_tensor_release(t);
        t = u;
    }
    return t;
}

static ct_tensor *W[8], *B[8];
static int n_mlp_ops = 8 * 3;
static ct_tensor *mlp(ct_tensor *x) {
    ct_tensor *h = ct_tensor_retain(x);
    for (int l = 0; l < 8; l++) {
        ct_tensor *m, *s, *r;
        CHECK(ct_matmul(ctx, h, W[l], &m));
        CHECK(ct_add(ctx, m, B[l], &s));
        CHECK(ct_relu(ctx, s, &r));
        ct_tensor_release(h), ct_tensor_release(m), ct_tensor_release(s);
        h = r;
    }
    return h;
}

static ct_graph_mem_stats last_stats;
/* Eager runs and replays are each timed back to back (as a loop of either sees them: the kernels'
 * helper threads stay awake), in alternating rounds, best of each, so both see the same machine
 * load (the machines here are shared and their load changes within seconds). */
static void measure(const char *name, const char *extra, int ops, ct_tensor *(*run)(void),
                    int reps) {
    ct_tensor_release(run()); /* warm the block cache */
    ct_graph *g;
    CHECK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK(ct_graph_capture_begin(g, NULL));
    ct_tensor *y = run();
    CHECK(ct_graph_capture_end(g));
    CHECK(ct_graph_replay(g)); /* warm */
    last_stats = (ct_graph_mem_stats){.size = sizeof last_stats};
    CHECK(ct_graph_mem_stats_get(g, &last_stats));
    double be = 1e9, br = 1e9;
    int rounds = 5, per = reps / rounds > 0 ? reps / rounds : 1;
    for (int round = 0; round < rounds; round++) {
        for (int r = 0; r < per; r++) {
            double t0 = now();
            ct_tensor *ye = run();
            double t = now() - t0;
            ct_tensor_release(ye);
            if (t < be) be = t;
        }
        for (int r = 0; r < per; r++) {
            double t0 = now();
            CHECK(ct_graph_replay(g));
            double t = now() - t0;
            if (t < br) br = t;
        }
    }
    double e = be / ops * 1e9, rp = br / ops * 1e9;
    printf("bench graph %s %s ops=%d eager_ns_per_op=%.1f replay_ns_per_op=%.1f ratio=%.2f\n", name,
           extra, ops, e, rp, e / rp);
    ct_tensor_release(y);
    ct_graph_free(g);
}

static ct_tensor *gx, *gb;
static ct_tensor *run_chain(void) { return chain(gx, gb); }
static ct_tensor *run_mlp(void) { return mlp(gx); }

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    printf("# ctorch %s, isa %s, %d threads\n", ct_version(), ct_ctx_cpu_isa(ctx),
           ct_ctx_num_threads(ctx));
    int reps = quick ? 5 : 50;
    int64_t sizes[2] = {1, 1024};
    for (int k = 0; k < 2; k++) {
        int64_t s[1] = {sizes[k]};
        CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, s, 1, 0, &gx));
        CHECK(ct_tensor_full(ctx, CT_FLOAT32, 1, s, 0.999, &gb));
        measure(k ? "chain1024" : "chain1", k ? "numel=1024" : "numel=1", CHAIN, run_chain, reps);
        ct_tensor_release(gx), ct_tensor_release(gb);
    }
    int64_t fs[1] = {1 << 20};
    CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, fs, 5, 0, &fx));
    CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, fs, 6, 0, &fw));
    CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 1, fs, 7, 0, &fv));
    measure("fused", "chain=16 numel=1048576 inputs=3", FUSED, fused_chain, quick ? 3 : 20);
    measure("fused", "chain=16 numel=1048576 inputs=1", FUSED, pointwise_chain, quick ? 3 : 20);
    ct_tensor_release(fx), ct_tensor_release(fw), ct_tensor_release(fv);
    int64_t ws[2] = {256, 256}, bs[1] = {256}, xs[2] = {1, 256};
    for (int l = 0; l < 8; l++) {
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, ws, 10 + l, 0, &W[l]));
        CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 1, bs, 20 + l, 0, &B[l]));
    }
    CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 2, xs, 3, 0, &gx));
    measure("mlp", "layers=8 width=256 batch=1", n_mlp_ops, run_mlp, reps);
    printf("bench graph pool model=mlp numel=256 unplanned_bytes=%lld planned_bytes=%lld "
           "ratio=%.3f fused_bytes=%lld arena_bytes=%lld pinned_bytes=%lld\n",
           (long long)last_stats.private_bytes,
           (long long)(last_stats.planned_bytes + last_stats.pinned_bytes),
           (double)(last_stats.planned_bytes + last_stats.pinned_bytes) /
               (double)(last_stats.private_bytes ? last_stats.private_bytes : 1),
           (long long)last_stats.fused_bytes, (long long)last_stats.planned_bytes,
           (long long)last_stats.pinned_bytes);
    ct_tensor_release(gx);
    for (int l = 0; l < 8; l++)
        ct_tensor_release(W[l]), ct_tensor_release(B[l]);
    ct_ctx_free(ctx);
    return 0;
}

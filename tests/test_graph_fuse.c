/* Fusion and memory planning at graph instantiation (CPU). Fused elementwise chains replay bit for
 * bit as eager on every ISA (ctest also runs this file capped to avx2 and to ref), for f32 and
 * f64, odd sizes and sizes that split over threads; intermediates the caller still holds are
 * written; overlapping views are not fused into a wrong order; the pool's private buffers share
 * memory by liveness (an MLP needs at most half); state carried across replays stays in place;
 * while_loop and cond programs keep their results under planning. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 7;

static ct_tensor *rand_t(ct_dtype dt, int nd, const int64_t *shape, double lo, double hi) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * ct_t_uniform(&rng);
    ct_tensor *d = NULL, *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &d));
    CHECK_OK(ct_cast(ctx, d, dt, &t));
    ct_tensor_release(d);
    free(v);
    return t;
}

static bool same_bytes(const ct_tensor *a, const ct_tensor *b) {
    return ct_tensor_dtype(a) == ct_tensor_dtype(b) && tu_same_values(a, b);
}

/* A 16-op chain over every fusable kind: y = f16(...f1(x, w, v)...). `keep`, when not NULL,
 * receives a new reference to the 8th intermediate (so the caller holds it). */
#define CHAIN_OPS 16
static ct_status chain16(ct_tensor *x, ct_tensor *w, ct_tensor *v, ct_tensor **keep,
                         ct_tensor **out) {
    ct_tensor *t = ct_tensor_retain(x), *u = NULL;
    ct_status st = CT_OK;
    for (int i = 0; i < CHAIN_OPS && st == CT_OK; i++) {
        switch (i) {
        case 0: st = ct_mul(ctx, t, w, &u); break;
        case 1: st = ct_add(ctx, t, v, &u); break;
        case 2: st = ct_tanh(ctx, t, &u); break;
        case 3: st = ct_add_scalar(ctx, t, 0.25, &u); break;
        case 4: st = ct_abs(ctx, t, &u); break;
        case 5: st = ct_sqrt(ctx, t, &u); break;
        case 6: st = ct_add_scaled(ctx, t, v, 0.75, &u); break;
        case 7: st = ct_relu(ctx, t, &u); break;
        case 8: st = ct_exp(ctx, t, &u); break;
        case 9: st = ct_div(ctx, t, w, &u); break;
        case 10: st = ct_log(ctx, t, &u); break;
        case 11: st = ct_mul_scalar(ctx, t, -1.5, &u); break;
        case 12: st = ct_sigmoid(ctx, t, &u); break;
        case 13: st = ct_mul(ctx, t, t, &u); break;
        case 14: st = ct_gelu(ctx, t, CT_GELU_TANH, &u); break;
        default: st = ct_sub_scaled(ctx, t, x, 0.5, &u); break;
        }
        if (st == CT_OK && i == 7 && keep) *keep = ct_tensor_retain(u);
        ct_tensor_release(t);
        t = u;
        u = NULL;
    }
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

TEST(fused_chain_bit_identical) {
    int64_t sizes[] = {1, 7, 33, 512, 1023, 4097, 70001, 1 << 20};
    ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64};
    for (int di = 0; di < 2; di++)
        for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++)
            for (int keep = 0; keep < 2; keep++) {
                int64_t n = sizes[si];
                if (n == (1 << 20) && (di == 1 || keep)) continue; /* keep the suite quick */
                ct_dtype dt = dts[di];
                ct_tensor *x = rand_t(dt, 1, &n, -2, 2), *w = rand_t(dt, 1, &n, 0.5, 1.5),
                          *v = rand_t(dt, 1, &n, -1, 1), *y = NULL, *k = NULL;
                ct_graph *g = NULL;
                CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
                CHECK_OK(ct_graph_capture_begin(g, NULL));
                CHECK_OK(chain16(x, w, v, keep ? &k : NULL, &y));
                CHECK_OK(ct_graph_capture_end(g));
                ct_graph_mem_stats ms = {.size = sizeof ms};
                CHECK_OK(ct_graph_mem_stats_get(g, &ms));
                /* f32 has a vector ISA loop for every op of the chain; f64 and the reference
                 * ISA for the arithmetic ones */
                if (dt == CT_FLOAT32 && strcmp(ct_ctx_cpu_isa(ctx), "ref") != 0) {
                    CHECK_MSG(ms.fused_chains == 1 && ms.fused_ops == CHAIN_OPS,
                              "n=%lld: %lld chains, %lld ops", (long long)n,
                              (long long)ms.fused_chains, (long long)ms.fused_ops);
                    /* 15 intermediates (less the one the caller keeps) and 2 scalars */
                    CHECK_MSG(ms.private_buffers == 17 - keep, "n=%lld keep=%d: %lld private",
                              (long long)n, keep, (long long)ms.private_buffers);
                    CHECK_MSG(ms.fused_bytes == (15 - keep) * n * 4 && ms.pinned_bytes == 0,
                              "n=%lld keep=%d: fused %lld pinned %lld", (long long)n, keep,
                              (long long)ms.fused_bytes, (long long)ms.pinned_bytes);
                } else {
                    CHECK(ms.fused_chains >= 1 && ms.fused_ops >= 2 && ms.fused_bytes > 0);
                }
                for (int it = 0; it < (n < 100 ? 20 : 3); it++) {
                    ct_tensor *nx = rand_t(dt, 1, &n, -2, 2);
                    CHECK_OK(ct_tensor_copy_(ctx, x, nx));
                    ct_tensor_release(nx);
                    CHECK_OK(ct_graph_replay(g));
                    ct_tensor *e = NULL, *ek = NULL;
                    CHECK_OK(chain16(x, w, v, keep ? &ek : NULL, &e));
                    CHECK_MSG(same_bytes(e, y), "%s n=%lld keep=%d replay %d differs",
                              ct_dtype_name(dt), (long long)n, keep, it);
                    if (keep)
                        CHECK_MSG(same_bytes(ek, k), "kept intermediate n=%lld", (long long)n);
                    ct_tensor_release(e), ct_tensor_release(ek);
                }
                ct_graph_free(g);
                ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(v);
                ct_tensor_release(y), ct_tensor_release(k);
            }
}

/* In-place ops and shifted views of one buffer: a = x[1:] + x[:-1] written into x[:-1] would read
 * elements that a tiled chain has already overwritten. Replay must still equal eager. */
TEST(overlapping_views_not_reordered) {
    int64_t n = 5000, m = n - 1;
    ct_tensor *x0 = rand_t(CT_FLOAT32, 1, &n, -1, 1);
    for (int capture = 0; capture < 2; capture++) {
        ct_tensor *x = NULL;
        CHECK_OK(ct_tensor_clone(ctx, x0, &x));
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (capture) CHECK_OK(ct_graph_capture_begin(g, NULL));
        ct_tensor *lo = NULL, *hi = NULL;
        CHECK_OK(ct_tensor_narrow(ctx, x, 0, 0, m, &lo));
        CHECK_OK(ct_tensor_narrow(ctx, x, 0, 1, m, &hi));
        for (int r = 0; r < 3; r++) {
            CHECK_OK(ct_mul_scalar_(ctx, hi, 0.5));
            CHECK_OK(ct_add_(ctx, lo, hi)); /* lo[i] += hi[i] = x[i+1] */
            CHECK_OK(ct_sub_scalar_(ctx, hi, 0.25));
        }
        if (capture) {
            CHECK_OK(ct_graph_capture_end(g));
            /* reset x and replay: the recorded program runs once */
            CHECK_OK(ct_tensor_copy_(ctx, x, x0));
            CHECK_OK(ct_graph_replay(g));
        }
        static float res[2][5000];
        CHECK_OK(ct_tensor_to_host(x, res[capture], sizeof res[capture]));
        if (capture)
            CHECK_MSG(memcmp(res[0], res[1], sizeof res[0]) == 0, "replay differs from eager");
        ct_tensor_release(lo), ct_tensor_release(hi), ct_tensor_release(x);
        ct_graph_free(g);
    }
    ct_tensor_release(x0);
}

/* 8-layer MLP (matmul, bias add, relu): the pool needs at most half of its unplanned bytes. */
TEST(mlp_pool_planned) {
    enum { L = 8, Wd = 64, B = 4 };
    ct_tensor *W[L], *b[L];
    int64_t ws[2] = {Wd, Wd}, bs[1] = {Wd}, xs[2] = {B, Wd};
    for (int l = 0; l < L; l++) {
        W[l] = rand_t(CT_FLOAT32, 2, ws, -0.3, 0.3);
        b[l] = rand_t(CT_FLOAT32, 1, bs, -0.1, 0.1);
    }
    ct_tensor *x = rand_t(CT_FLOAT32, 2, xs, -1, 1), *y = NULL;
    for (int pass = 0; pass < 2; pass++) {
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (pass) CHECK_OK(ct_graph_capture_begin(g, NULL));
        ct_tensor *h = ct_tensor_retain(x);
        for (int l = 0; l < L; l++) {
            ct_tensor *m = NULL, *s = NULL, *r = NULL;
            CHECK_OK(ct_matmul(ctx, h, W[l], &m));
            CHECK_OK(ct_add(ctx, m, b[l], &s));
            CHECK_OK(ct_relu(ctx, s, &r));
            ct_tensor_release(h), ct_tensor_release(m), ct_tensor_release(s);
            h = r;
        }
        if (!pass) {
            y = h;
        } else {
            CHECK_OK(ct_graph_capture_end(g));
            ct_graph_mem_stats ms = {.size = sizeof ms};
            CHECK_OK(ct_graph_mem_stats_get(g, &ms));
            CHECK_MSG(ms.private_buffers == 3 * L - 1, "%lld private buffers",
                      (long long)ms.private_buffers);
            CHECK_MSG(2 * (ms.planned_bytes + ms.pinned_bytes) <= ms.private_bytes,
                      "planned %lld + pinned %lld of %lld", (long long)ms.planned_bytes,
                      (long long)ms.pinned_bytes, (long long)ms.private_bytes);
            CHECK(ms.pinned_bytes == 0);
            for (int it = 0; it < 3; it++) {
                CHECK_OK(ct_graph_replay(g));
                CHECK_MSG(same_bytes(h, y), "replay %d differs from eager", it);
            }
            ct_tensor_release(h);
        }
        ct_graph_free(g);
    }
    ct_tensor_release(x), ct_tensor_release(y);
    for (int l = 0; l < L; l++)
        ct_tensor_release(W[l]), ct_tensor_release(b[l]);
}

/* A pool tensor first read (accumulated into) carries state from one replay to the next: it must
 * keep its memory, and the accumulation must be visible through an output. */
TEST(carried_state_stays) {
    int64_t n = 100;
    ct_tensor *x = rand_t(CT_FLOAT32, 1, &n, 0, 1), *out = NULL, *acc = NULL, *z = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, &n, &acc)); /* no op recorded */
    CHECK_OK(ct_graph_capture_end(g));
    /* zero acc outside the graph (a plain copy, not recorded), then capture a new graph on it */
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &z));
    CHECK_OK(ct_tensor_copy_(ctx, acc, z));
    ct_graph *g2 = NULL;
    ct_graph_options o = {.size = sizeof o, .keep_graph = true, .pool = ct_graph_pool_of(g)};
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, &o, &g2));
    CHECK_OK(ct_graph_capture_begin(g2, NULL));
    CHECK_OK(ct_add_(ctx, acc, x));
    CHECK_OK(ct_mul_scalar(ctx, acc, 1.0, &out));
    CHECK_OK(ct_graph_capture_end(g2));
    ct_tensor_release(acc); /* now only g2 reaches it (instantiated below), first access a read */
    ct_graph_mem_stats ms = {.size = sizeof ms};
    CHECK_OK(ct_graph_mem_stats_get(g2, &ms));
    /* acc is pinned; the scalar 1.0 (and any temporary of add_) are not */
    CHECK_MSG(ms.private_buffers >= 2 && ms.pinned_bytes == n * 4, "%lld private, %lld pinned",
              (long long)ms.private_buffers, (long long)ms.pinned_bytes);
    float xv[100], ov[100];
    CHECK_OK(ct_tensor_to_host(x, xv, sizeof xv));
    for (int it = 1; it <= 3; it++) {
        CHECK_OK(ct_graph_replay(g2));
        CHECK_OK(ct_tensor_to_host(out, ov, sizeof ov));
        float a[100] = {0};
        for (int r = 0; r < it; r++)
            for (int i = 0; i < 100; i++)
                a[i] += xv[i];
        CHECK_MSG(memcmp(a, ov, sizeof a) == 0, "replay %d: accumulated state lost", it);
    }
    ct_graph_free(g2), ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(out), ct_tensor_release(z);
}

/* while_loop: x = x * 0.5 + c until sum(x) < limit; temporaries inside the body are planned. */
static ct_status wl_cond(ct_ctx *c, void *u, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)n, (void)u;
    ct_tensor *s = NULL;
    int dim = 0;
    ct_status st = ct_sum(c, v[0], 1, &dim, false, &s);
    if (st == CT_OK) st = ct_gt_scalar(c, s, 1.0, pred);
    ct_tensor_release(s);
    return st;
}
static ct_status wl_body(ct_ctx *c, void *u, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)n, (void)u;
    ct_tensor *a = NULL, *b = NULL;
    ct_status st = ct_mul_scalar(c, v[0], 0.5, &a);
    if (st == CT_OK) st = ct_tanh(c, a, &b);
    if (st == CT_OK) st = ct_add(c, b, a, next);
    ct_tensor_release(a), ct_tensor_release(b);
    return st;
}

TEST(while_loop_planned) {
    int64_t n = 300;
    ct_tensor *x = rand_t(CT_FLOAT32, 1, &n, 0, 2), *y = NULL, *e = NULL;
    CHECK_OK(ct_while_loop(ctx, wl_cond, wl_body, NULL, 1, &x, &e));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_while_loop(ctx, wl_cond, wl_body, NULL, 1, &x, &y));
    CHECK_OK(ct_graph_capture_end(g));
    for (int it = 0; it < 2; it++) {
        CHECK_OK(ct_graph_replay(g));
        CHECK_MSG(same_bytes(e, y), "replay %d differs from eager", it);
    }
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(e);
}

TEST(mem_stats_errors) {
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    ct_graph_mem_stats ms = {.size = 0};
    CHECK_ST(ct_graph_mem_stats_get(NULL, &ms), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_graph_mem_stats_get(g, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_graph_mem_stats_get(g, &ms), CT_ERR_INVALID_ARG);
    ms.size = sizeof ms;
    CHECK_ST(ct_graph_mem_stats_get(g, &ms), CT_ERR_STATE); /* nothing captured */
    CHECK(strstr(ct_ctx_last_error(ctx), "nothing captured") != NULL);
    ct_graph_free(g);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(fused_chain_bit_identical);
    RUN(overlapping_views_not_reordered);
    RUN(mlp_pool_planned);
    RUN(carried_state_stays);
    RUN(while_loop_planned);
    RUN(mem_stats_errors);
    ct_ctx_free(ctx);
    return ct_test_end();
}

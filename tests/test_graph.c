/* Graph capture and replay. The same device-agnostic checks run on the CPU and on an out-of-tree
 * "toy" backend loaded from its own shared library (examples/backend/toy_backend.c): replay equals
 * eager bit for bit (an 8-layer MLP, nested conds taking both branches), many replays with
 * changing inputs, reset + recapture, two graphs sharing a pool, every capture error. CPU-only
 * checks add long elementwise chains, reductions, matmul, softmax and graph-safe random numbers. */
#include "test_util.h"

#include <unistd.h>

static ct_ctx *ctx;
static ct_device dev;
static unsigned long long rng = 99;

/* Upload host floats into an existing (possibly captured) tensor on dev. */
static void set_f32(ct_tensor *t, const float *v) {
    ct_tensor *h = NULL, *d = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, ct_tensor_ndim(t), ct_tensor_shape(t), &h));
    if (dev.type == CT_DEVICE_CPU) {
        CHECK_OK(ct_tensor_copy_(ctx, t, h));
    } else {
        CHECK_OK(ct_tensor_to_device(ctx, h, dev, &d));
        CHECK_OK(ct_tensor_copy_(ctx, t, d));
    }
    ct_tensor_release(h);
    ct_tensor_release(d);
}
static ct_tensor *new_f32(int nd, const int64_t *shape, const float *v) {
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_empty_on(ctx, dev, CT_FLOAT32, nd, shape, &t));
    set_f32(t, v);
    return t;
}
static void rand_f32(float *v, int64_t n, double lo, double hi) {
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)(lo + (hi - lo) * ct_t_uniform(&rng));
}
static bool same_bits(const ct_tensor *a, const ct_tensor *b) {
    int64_t n = ct_tensor_numel(a);
    if (n != ct_tensor_numel(b)) return false;
    float *x = malloc(sizeof(float) * (size_t)(n + 1)),
          *y = malloc(sizeof(float) * (size_t)(n + 1));
    bool ok = ct_tensor_to_host(a, x, sizeof(float) * (size_t)n) == CT_OK &&
              ct_tensor_to_host(b, y, sizeof(float) * (size_t)n) == CT_OK &&
              memcmp(x, y, sizeof(float) * (size_t)n) == 0;
    free(x), free(y);
    return ok;
}

/* ---- an 8-layer MLP: h = relu(h @ W_l + b_l) ---- */
#define LAYERS 8
#define WIDTH 16
static ct_tensor *W[LAYERS], *Bv[LAYERS];
static ct_status mlp(ct_tensor *x, ct_tensor **out) {
    ct_tensor *h = ct_tensor_retain(x);
    for (int l = 0; l < LAYERS; l++) {
        ct_tensor *m = NULL, *s = NULL, *r = NULL;
        ct_status st = ct_matmul(ctx, h, W[l], &m);
        if (st == CT_OK) st = ct_add(ctx, m, Bv[l], &s);
        if (st == CT_OK) st = ct_relu(ctx, s, &r);
        ct_tensor_release(h), ct_tensor_release(m), ct_tensor_release(s);
        if (st != CT_OK) return st;
        h = r;
    }
    *out = h;
    return CT_OK;
}

TEST(mlp_replay_equals_eager) {
    int64_t ws[2] = {WIDTH, WIDTH}, bs[1] = {WIDTH}, xs[2] = {4, WIDTH};
    float buf[WIDTH * WIDTH];
    for (int l = 0; l < LAYERS; l++) {
        rand_f32(buf, WIDTH * WIDTH, -0.4, 0.4);
        W[l] = new_f32(2, ws, buf);
        rand_f32(buf, WIDTH, -0.1, 0.2);
        Bv[l] = new_f32(1, bs, buf);
    }
    rand_f32(buf, 4 * WIDTH, -1, 1);
    ct_tensor *x = new_f32(2, xs, buf), *y = NULL;
    ct_graph *g;
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g));
    ct_stream *s;
    CHECK_OK(ct_stream_create(ctx, dev, &s));
    CHECK_OK(ct_graph_capture_begin(g, s));
    CHECK(ct_stream_is_capturing(s));
    CHECK_OK(mlp(x, &y));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(!ct_stream_is_capturing(s));
    CHECK(ct_graph_num_nodes(g) == 3 * LAYERS);
    for (int it = 0; it < 20; it++) {
        rand_f32(buf, 4 * WIDTH, -1, 1);
        set_f32(x, buf);
        CHECK_OK(ct_graph_replay(g));
        ct_tensor *e = NULL;
        CHECK_OK(mlp(x, &e)); /* eager on the same input */
        CHECK_MSG(same_bits(e, y), "replay %d differs from eager", it);
        ct_tensor_release(e);
    }
    ct_graph_free(g);
    ct_stream_free(s);
    ct_tensor_release(y);
    ct_tensor_release(x);
}

/* ---- nested cond: out = p ? (q ? relu(x)+w : x*w) : -x ---- */
static ct_status inner_true(ct_ctx *c, void *u, int n, ct_tensor *const *ops, int no,
                            ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    ct_tensor *r = NULL;
    ct_status st = ct_relu(c, ops[0], &r);
    if (st == CT_OK) st = ct_add(c, r, ops[1], &outs[0]);
    ct_tensor_release(r);
    return st;
}
static ct_status inner_false(ct_ctx *c, void *u, int n, ct_tensor *const *ops, int no,
                             ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    return ct_mul(c, ops[0], ops[1], &outs[0]);
}
static ct_status outer_true(ct_ctx *c, void *u, int n, ct_tensor *const *ops, int no,
                            ct_tensor **outs) {
    (void)n;
    ct_tensor *q = u;
    return ct_cond(c, q, inner_true, inner_false, NULL, 2, ops, no, outs);
}
static ct_status outer_false(ct_ctx *c, void *u, int n, ct_tensor *const *ops, int no,
                             ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    return ct_neg(c, ops[0], &outs[0]);
}
static ct_status bad_shape(ct_ctx *c, void *u, int n, ct_tensor *const *ops, int no,
                           ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    ct_tensor *t = NULL;
    ct_status st = ct_tensor_transpose(c, ops[0], 0, 1, &t); /* (5,3) instead of (3,5) */
    if (st == CT_OK) st = ct_neg(c, t, &outs[0]);
    ct_tensor_release(t);
    return st;
}

TEST(nested_cond_both_branches) {
    int64_t s[2] = {3, 5};
    float xv[15], wv[15], one = 1, zero = 0;
    rand_f32(xv, 15, -2, 2);
    rand_f32(wv, 15, -2, 2);
    ct_tensor *x = new_f32(2, s, xv), *w = new_f32(2, s, wv);
    ct_tensor *p = new_f32(0, NULL, &one), *q = new_f32(0, NULL, &one);
    ct_tensor *ops[2] = {x, w}, *out = NULL;
    ct_graph *g;
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_cond(ctx, p, outer_true, outer_false, q, 2, ops, 1, &out));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(ct_graph_num_nodes(g) >= 5);
    char path[] = "/tmp/ctorch_graph_dumpXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    CHECK_OK(ct_graph_debug_dump(g, path));
    FILE *f = fopen(path, "r");
    char text[4096] = {0};
    if (f) {
        size_t nr = fread(text, 1, sizeof text - 1, f);
        text[nr] = 0;
        fclose(f);
    }
    CHECK(strstr(text, "cond") != NULL);
    remove(path);
    int seen[3] = {0, 0, 0};
    for (int it = 0; it < 12; it++) {
        float pv = (it % 3 == 2) ? zero : one, qv = (it % 3 == 1) ? zero : one;
        rand_f32(xv, 15, -2, 2);
        set_f32(x, xv);
        set_f32(p, &pv);
        set_f32(q, &qv);
        CHECK_OK(ct_graph_replay(g));
        ct_tensor *e = NULL;
        CHECK_OK(ct_cond(ctx, p, outer_true, outer_false, q, 2, ops, 1, &e)); /* eager */
        CHECK_MSG(same_bits(e, out), "cond replay %d differs", it);
        /* and against the formula computed here */
        float got[15];
        CHECK_OK(ct_tensor_to_host(out, got, sizeof got));
        int bad = 0;
        for (int i = 0; i < 15; i++) {
            float want = pv == 0   ? -xv[i]
                         : qv != 0 ? (xv[i] > 0 ? xv[i] : 0.0f) + wv[i]
                                   : xv[i] * wv[i];
            if (got[i] != want) bad++;
        }
        CHECK(bad == 0);
        seen[pv == 0 ? 2 : qv == 0 ? 1 : 0]++;
        ct_tensor_release(e);
    }
    CHECK(seen[0] && seen[1] && seen[2]);
    ct_graph_free(g);
    ct_tensor_release(out);
    /* mismatched branch outputs */
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_ST(ct_cond(ctx, p, outer_false, bad_shape, NULL, 2, ops, 1, &out), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "[3, 5]") && strstr(ct_ctx_last_error(ctx), "[5, 3]"));
    CHECK(out == NULL);
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_SHAPE);
    CHECK_ST(ct_graph_replay(g), CT_ERR_STATE);
    CHECK_OK(ct_graph_reset(g));
    ct_graph_free(g);
    /* eager cond with a mismatch only runs one branch: fine */
    set_f32(p, &zero);
    CHECK_OK(ct_cond(ctx, p, outer_false, bad_shape, NULL, 2, ops, 1, &out));
    ct_tensor_release(out);
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(p), ct_tensor_release(q);
}

TEST(reset_recapture_and_shared_pool) {
    int64_t s[1] = {64};
    float a[64], b[64];
    rand_f32(a, 64, -1, 1);
    rand_f32(b, 64, -1, 1);
    ct_tensor *x = new_f32(1, s, a), *y = new_f32(1, s, b), *r1 = NULL, *r2 = NULL, *r3 = NULL;
    ct_graph_options o = {.size = sizeof o, .keep_graph = true};
    ct_graph *g1, *g2;
    CHECK_OK(ct_graph_create(ctx, dev, &o, &g1));
    CHECK_OK(ct_graph_capture_begin(g1, NULL));
    CHECK_OK(ct_add(ctx, x, y, &r1));
    CHECK_OK(ct_graph_capture_end(g1));
    CHECK_OK(ct_graph_instantiate(g1));
    CHECK_OK(ct_graph_replay(g1));
    /* reset, recapture something else on the same graph */
    CHECK_ST(ct_graph_capture_begin(g1, NULL), CT_ERR_STATE);
    CHECK_OK(ct_graph_reset(g1));
    CHECK_OK(ct_graph_capture_begin(g1, NULL));
    CHECK_OK(ct_mul(ctx, x, y, &r2));
    CHECK_OK(ct_graph_capture_end(g1));
    /* a second graph sharing the pool consumes g1's output */
    o.pool = ct_graph_pool_of(g1);
    CHECK_OK(ct_graph_create(ctx, dev, &o, &g2));
    CHECK_OK(ct_graph_capture_begin(g2, NULL));
    CHECK_OK(ct_sub(ctx, r2, x, &r3));
    CHECK_OK(ct_graph_capture_end(g2));
    for (int it = 0; it < 5; it++) {
        rand_f32(a, 64, -1, 1);
        set_f32(x, a);
        CHECK_OK(ct_graph_replay(g1)); /* in capture order */
        CHECK_OK(ct_graph_replay(g2));
        float got[64];
        CHECK_OK(ct_tensor_to_host(r3, got, sizeof got));
        int bad = 0;
        for (int i = 0; i < 64; i++)
            if (got[i] != a[i] * b[i] - a[i]) bad++;
        CHECK(bad == 0);
    }
    ct_graph_free(g1); /* the pool lives on in g2 and in r2/r3 */
    CHECK_OK(ct_graph_replay(g2));
    ct_graph_free(g2);
    float got[64];
    CHECK_OK(ct_tensor_to_host(r3, got, sizeof got)); /* captured outputs outlive their graphs */
    ct_tensor_release(r1), ct_tensor_release(r2), ct_tensor_release(r3);
    ct_tensor_release(x), ct_tensor_release(y);
}

TEST(capture_errors) {
    int64_t s[1] = {8};
    float v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
    ct_tensor *x = new_f32(1, s, v), *r = NULL, *r2 = NULL;
    ct_graph *g, *g2;
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g));
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g2));
    /* reading a tensor on the host during capture */
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_neg(ctx, x, &r));
    CHECK_ST(ct_tensor_to_host(r, out, sizeof out), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "capture") != NULL);
    ct_tensor_release(r);
    CHECK_ST(ct_neg(ctx, x, &r), CT_ERR_STATE); /* invalidated: later ops fail too */
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    CHECK_OK(ct_graph_reset(g));
    /* two captures at once on one stream / device */
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_ST(ct_graph_capture_begin(g2, NULL), CT_ERR_STATE);
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_reset(g));
    /* work on another stream of the device without a join */
    ct_stream *other;
    CHECK_OK(ct_stream_create(ctx, dev, &other));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_ctx_set_stream(ctx, dev, other));
    CHECK_ST(ct_neg(ctx, x, &r), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "another stream") != NULL);
    CHECK_OK(ct_ctx_set_stream(ctx, dev, NULL));
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    CHECK_OK(ct_graph_reset(g));
    /* a tensor of another device */
    if (dev.type != CT_DEVICE_CPU) {
        ct_tensor *h;
        CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 1, s, &h));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        CHECK_ST(ct_add(ctx, x, h, &r), CT_ERR_DEVICE);
        CHECK_ST(ct_tensor_to_device(ctx, h, dev, &r), CT_ERR_STATE);
        CHECK_ST(ct_graph_capture_end(g), CT_ERR_DEVICE);
        CHECK_OK(ct_graph_reset(g));
        ct_tensor_release(h);
    }
    /* relaxed mode allows host reads */
    ct_graph_options o = {.size = sizeof o, .capture_error_mode = CT_CAPTURE_RELAXED};
    ct_graph *gr;
    CHECK_OK(ct_graph_create(ctx, dev, &o, &gr));
    CHECK_OK(ct_graph_capture_begin(gr, NULL));
    CHECK_OK(ct_neg(ctx, x, &r2));
    CHECK_OK(ct_tensor_to_host(x, out, sizeof out));
    CHECK_OK(ct_graph_capture_end(gr));
    CHECK_OK(ct_graph_replay(gr));
    CHECK_OK(ct_tensor_to_host(r2, out, sizeof out));
    CHECK(out[0] == -1 && out[7] == -8);
    ct_tensor_release(r2);
    ct_graph_free(gr);
    /* state errors */
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    CHECK_ST(ct_graph_instantiate(g), CT_ERR_STATE);
    ct_stream_free(other);
    ct_graph_free(g);
    ct_graph_free(g2);
    ct_tensor_release(x);
}

/* ---- CPU-only: chains, reductions, softmax, matmul, random numbers ---- */
static ct_status program(ct_tensor *a, ct_tensor *b, ct_tensor **out, uint64_t rand_offset) {
    ct_tensor *t = ct_tensor_retain(a), *u = NULL;
    ct_status st = CT_OK;
    for (int i = 0; i < 40 && st == CT_OK; i++) { /* long elementwise chain */
        switch (i % 5) {
        case 0: st = ct_add(ctx, t, b, &u); break;
        case 1: st = ct_mul(ctx, t, b, &u); break;
        case 2: st = ct_tanh(ctx, t, &u); break;
        case 3: st = ct_exp(ctx, t, &u); break;
        default: st = ct_add_scaled(ctx, t, b, -0.5, &u); break;
        }
        ct_tensor_release(t);
        t = u;
        u = NULL;
    }
    int d1 = 1;
    ct_tensor *sm = NULL, *sum = NULL, *mm = NULL, *bt = NULL, *rn = NULL, *r = NULL;
    if (st == CT_OK) st = ct_softmax(ctx, t, 1, &sm);
    if (st == CT_OK) st = ct_sum(ctx, sm, 1, &d1, true, &sum);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, b, 0, 1, &bt);
    if (st == CT_OK) st = ct_matmul(ctx, t, bt, &mm);
    if (st == CT_OK)
        st = ct_tensor_randn(ctx, CT_FLOAT32, 2, ct_tensor_shape(mm), 11, rand_offset, &rn);
    if (st == CT_OK) st = ct_addcmul(ctx, mm, rn, sum, 0.25, &r);
    ct_tensor *all[] = {t, sm, sum, mm, bt, rn};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(all[i]);
    *out = r;
    return st;
}

TEST(cpu_chain_reduce_matmul_rand) {
    int64_t s[2] = {6, 33};
    float av[6 * 33], bv[6 * 33];
    rand_f32(av, 6 * 33, -1, 1);
    rand_f32(bv, 6 * 33, -1, 1);
    ct_tensor *a = new_f32(2, s, av), *b = new_f32(2, s, bv), *y = NULL;
    ct_graph *g;
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(program(a, b, &y, 5));
    CHECK_OK(ct_graph_capture_end(g));
    for (int it = 0; it < 4; it++) {
        rand_f32(av, 6 * 33, -1, 1);
        set_f32(a, av);
        CHECK_OK(ct_graph_replay(g));
        /* eager reference: replay `it` draws randn(seed, 5 + it * numel), numel = 6*6 */
        ct_tensor *e = NULL;
        CHECK_OK(program(a, b, &e, 5 + (uint64_t)it * 36));
        CHECK_MSG(same_bits(e, y), "replay %d differs from eager", it);
        ct_tensor_release(e);
    }
    ct_graph_free(g);
    ct_tensor_release(y);
    /* random numbers alone: replay k equals eager rand(seed, offset + k * numel) */
    int64_t rs[1] = {1000};
    ct_tensor *r = NULL;
    CHECK_OK(ct_graph_create(ctx, dev, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 1, rs, 42, 7, &r));
    CHECK_OK(ct_graph_capture_end(g));
    for (int k = 0; k < 3; k++) {
        CHECK_OK(ct_graph_replay(g));
        ct_tensor *e = NULL;
        CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 1, rs, 42, 7 + (uint64_t)k * 1000, &e));
        CHECK_MSG(same_bits(e, r), "rand replay %d", k);
        ct_tensor_release(e);
    }
    ct_graph_free(g);
    ct_tensor_release(r);
    ct_tensor_release(a), ct_tensor_release(b);
}

/* Regressions from review: freeing streams around a capture, eager cond failure leaves no outputs
 */
static ct_status half_branch(ct_ctx *c, void *u, int n, ct_tensor *const *ops, int no,
                             ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    return ct_add(c, ops[0], ops[0], &outs[0]); /* forgets outs[1] */
}
TEST(stream_free_and_cond_contract) {
    ct_device cpu = {CT_DEVICE_CPU, 0};
    ct_stream *user, *cap;
    ct_graph *g;
    CHECK_OK(ct_stream_create(ctx, cpu, &user));
    CHECK_OK(ct_stream_create(ctx, cpu, &cap));
    CHECK_OK(ct_graph_create(ctx, cpu, NULL, &g));
    CHECK_OK(ct_ctx_set_stream(ctx, cpu, user));
    CHECK_OK(ct_graph_capture_begin(g, cap));
    ct_stream_free(user); /* the stream to restore after capture is gone */
    CHECK_OK(ct_graph_capture_end(g));
    ct_tensor *z = NULL;
    int64_t s[1] = {4};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s, &z)); /* runs on the default stream */
    ct_tensor_release(z);
    CHECK_OK(ct_graph_reset(g));
    CHECK_OK(ct_graph_capture_begin(g, cap));
    ct_stream_free(cap); /* the capturing stream itself */
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    CHECK_OK(ct_graph_reset(g));
    ct_graph_free(g);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s, &z));
    float one = 1;
    ct_tensor *p = NULL, *outs[2] = {NULL, NULL};
    CHECK_OK(ct_tensor_from_host(ctx, &one, CT_FLOAT32, 0, NULL, &p));
    CHECK_ST(ct_cond(ctx, p, half_branch, half_branch, NULL, 1, &z, 2, outs), CT_ERR_INVALID_ARG);
    CHECK(outs[0] == NULL && outs[1] == NULL);
    ct_tensor_release(p), ct_tensor_release(z);
}

/* The domain ops (MX, eigh) pass the dispatch point like every op: captured, replayed on new
 * inputs, equal to eager (tests/test_capture_all.c checks every variant bit for bit). Only the GGUF
 * byte export, a host read outside the stream, still refuses capture. */
TEST(domain_calls_captured) {
    int64_t s[2] = {4, 64};
    ct_tensor *x = NULL, *y = NULL, *ye = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 2, s, 1, 0, &x));
    ct_mx_tensor *q = NULL;
    CHECK_OK(ct_mx_quantize(ctx, x, CT_MXFP4_E2M1, 32, -1, CT_MX_SCALE_FLOOR, &q));
    ct_graph *g;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_mx_linear(ctx, x, q, NULL, &y));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(ct_graph_num_nodes(g) >= 1);
    ct_tensor *x2 = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 2, s, 5, 0, &x2));
    CHECK_OK(ct_tensor_copy_(ctx, x, x2));
    CHECK_OK(ct_graph_replay(g));
    CHECK_OK(ct_mx_linear(ctx, x, q, NULL, &ye));
    CHECK(same_bits(y, ye));
    ct_tensor_release(y), ct_tensor_release(ye), ct_tensor_release(x2);
    CHECK_OK(ct_graph_reset(g));
    int64_t ms[3] = {2, 3, 3};
    ct_tensor *m = NULL, *w = NULL, *we = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 3, ms, 2, 0, &m));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_linalg_eigvalsh(ctx, m, 'L', &w));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_replay(g));
    CHECK_OK(ct_linalg_eigvalsh(ctx, m, 'L', &we));
    CHECK(same_bits(w, we));
    ct_tensor_release(w), ct_tensor_release(we);
    CHECK_OK(ct_graph_reset(g));
    unsigned char gg[8 * 17]; /* 4 x 64 elements: 8 blocks */
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_ST(ct_mx_to_gguf_mxfp4(ctx, q, gg, sizeof gg), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "mx_to_gguf_mxfp4") != NULL);
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_UNSUPPORTED);
    ct_tensor_release(m);
    ct_graph_free(g);
    ct_mx_tensor_free(q);
    ct_tensor_release(x);
}

/* A backend without a graph implementation refuses graphs with CT_ERR_UNSUPPORTED. */
static ct_status nog_alloc(void *st, size_t n, void **p) {
    (void)st;
    *p = malloc(n ? n : 1);
    return *p ? CT_OK : CT_ERR_OOM;
}
static void nog_free(void *st, void *p) {
    (void)st;
    free(p);
}
static ct_status nog_copy(void *st, void *d, const void *s, size_t n, int k) {
    (void)st, (void)k;
    memcpy(d, s, n);
    return CT_OK;
}
static ct_status nog_run(void *st, const ct_op_desc *op) {
    (void)st, (void)op;
    return CT_ERR_UNSUPPORTED;
}
static ct_status nog_sync(void *st) {
    (void)st;
    return CT_OK;
}
TEST(backend_without_graphs) {
    ct_backend_vtable vt = {.size = sizeof vt,
                            .abi_version = CT_BACKEND_ABI_VERSION,
                            .name = "nograph",
                            .alloc = nog_alloc,
                            .free = nog_free,
                            .copy = nog_copy,
                            .run_op = nog_run,
                            .synchronize = nog_sync};
    int type;
    CHECK_OK(ct_backend_register(ctx, &vt, &type));
    ct_graph *g = NULL;
    ct_device d = {type, 0};
    CHECK_ST(ct_graph_create(ctx, d, NULL, &g), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "not supported on device ") != NULL);
    ct_device cuda = {CT_DEVICE_CUDA, 0};
    CHECK_ST(ct_graph_create(ctx, cuda, NULL, &g), CT_ERR_DEVICE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "cuda:0"), "%s", ct_ctx_last_error(ctx));
}

/* The toy backend manages its memory with ctorch's caching allocator over its own segment calls
 * (named in its vtable): the memory statistics of the toy device follow its tensors. */
TEST(toy_device_memory_stats) {
    ct_mem_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1};
    CHECK_OK(ct_empty_cache(ctx));
    CHECK_OK(ct_memory_stats(ctx, dev, &s0));
    const int64_t n = 3 << 20; /* 12 MiB of f32: the large pool */
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_empty_on(ctx, dev, CT_FLOAT32, 1, &n, &t));
    CHECK_OK(ct_memory_stats(ctx, dev, &s1));
    CHECK(s1.allocated_bytes[CT_MEM_LARGE_POOL].current -
              s0.allocated_bytes[CT_MEM_LARGE_POOL].current ==
          12 << 20);
    CHECK(s1.segment[CT_MEM_LARGE_POOL].current == s0.segment[CT_MEM_LARGE_POOL].current + 1);
    ct_tensor_release(t);
    CHECK_OK(ct_memory_stats(ctx, dev, &s1));
    CHECK(s1.allocated_bytes[CT_MEM_ALL].current == s0.allocated_bytes[CT_MEM_ALL].current);
    CHECK(s1.reserved_bytes[CT_MEM_ALL].current > s0.reserved_bytes[CT_MEM_ALL].current);
    CHECK_OK(ct_empty_cache(ctx)); /* the toy's free segment goes back through its unmap */
    CHECK_OK(ct_memory_stats(ctx, dev, &s1));
    CHECK(s1.reserved_bytes[CT_MEM_ALL].current == s0.reserved_bytes[CT_MEM_ALL].current);
    char *sum = NULL;
    CHECK_OK(ct_memory_summary(ctx, dev, &sum));
    CHECK(sum && strstr(sum, "Reserved memory"));
    free(sum);
}

static void suite(const char *name) {
    printf("-- device %s (type %d)\n", name, dev.type);
    RUN(mlp_replay_equals_eager);
    for (int l = 0; l < LAYERS; l++)
        ct_tensor_release(W[l]), ct_tensor_release(Bv[l]);
    RUN(nested_cond_both_branches);
    RUN(reset_recapture_and_shared_pool);
    RUN(capture_errors);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    dev = (ct_device){CT_DEVICE_CPU, 0};
    suite("cpu");
    RUN(cpu_chain_reduce_matmul_rand);
    RUN(domain_calls_captured);
    RUN(stream_free_and_cond_contract);
    RUN(backend_without_graphs);
    int toy = -1;
    ct_status st = ct_backend_load(ctx, CT_TOY_BACKEND, &toy);
    CHECK_MSG(st == CT_OK, "loading %s: %s", CT_TOY_BACKEND, ct_ctx_last_error(ctx));
    if (st == CT_OK) {
        dev = (ct_device){toy, 0};
        suite("toy (out-of-tree)");
        RUN(toy_device_memory_stats);
    }
    ct_ctx_free(ctx);
    return ct_test_end();
}

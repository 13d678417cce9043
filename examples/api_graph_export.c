/* Graphs, streams, events, export and the embedded runtime, plus the autograd and optimizer calls
 * that go with a captured training step. Sections:
 *   1. backends and device names (ct_backend_count / name / find, ct_device_format)
 *   2. streams (default stream, ct_stream_create, ct_ctx_set_stream, ct_stream_synchronize)
 *   3. ct_stream_submit: a raw op descriptor (the entry point for backend authors and tests)
 *   4. events: eager timing, then a fork/join across two streams inside a capture
 *   5. graph capture: keep_graph + ct_graph_instantiate, node count, memory statistics, debug
 *      dump, a second graph sharing the pool, reset and capture again
 *   6. ct_cond + ct_while_loop captured once, replayed on data taking either branch (== eager)
 *   7. export: ct_program_export / load / run / describe / weights
 *   8. the embedded runtime: ct_rt_load, inputs and outputs by name, the step watchdog
 *   9. autograd: ct_autograd_grad to second order, ct_tensor_detach, ct_nll_loss
 *  10. optimizer mixed-precision scaling: ct_optim_set_grad_scaling, ct_optim_step_count
 * Every result is checked against values worked out by hand or by a plain C loop; the program
 * exits 1 on the first mismatch. Files go to a mkdtemp directory that is removed at the end.
 * Run: ./build/example_api_graph_export (CTest: example_api_graph_export). */
#include <ctorch/ctorch.h>
#include <ctorch/export.h>
#include <ctorch/runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ct_ctx *ctx;
static const ct_device CPU = {CT_DEVICE_CPU, 0};
static char dir[64];                   /* the temporary directory */
static char dump[128], prog_path[128]; /* files in it */

/* Fail with the context's reason when a call does not return CT_OK. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
/* Fail when a result is not what we worked out independently. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static ct_tensor *vec_f32(const float *v, int ndim, const int64_t *shape) {
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, v, CT_FLOAT32, ndim, shape, &t) != CT_OK)
        fprintf(stderr, "from_host: %s\n", ct_ctx_last_error(ctx));
    return t;
}

static void release_all(ct_tensor **ts, size_t n) {
    for (size_t i = 0; i < n; i++)
        ct_tensor_release(ts[i]);
}
#define RELEASE(...)                                                                               \
    release_all((ct_tensor *[]){__VA_ARGS__}, sizeof((ct_tensor *[]){__VA_ARGS__}) / sizeof(void *))

static void path_in_dir(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "%s/%s", dir, name);
}

/* ---- 1. backends and device names ---- */
static int section_backends(void) {
    /* The backends registered on this context: the CPU backend is always there. */
    int n = ct_backend_count(ctx);
    EXPECT(n >= 1, "%d backends", n);
    printf("[backends] %d registered, first: %s\n", n, ct_backend_name(ctx, 0));
    EXPECT(ct_backend_name(ctx, n) == NULL, "name past the end should be NULL");
    /* Look a backend up by name to get its device type. */
    int type = -1;
    CHECK(ct_backend_find(ctx, "cpu", &type));
    EXPECT(type == CT_DEVICE_CPU, "cpu has device type %d", type);
    /* The name every error message uses for a device. */
    char name[CT_DEVICE_NAME_MAX];
    ct_device_format(ctx, (ct_device){type, 0}, name, sizeof name);
    EXPECT(strcmp(name, "cpu:0") == 0, "formatted as '%s'", name);
    /* Error path: an unknown backend name. */
    ct_status st = ct_backend_find(ctx, "no-such-backend", &type);
    EXPECT(st == CT_ERR_INVALID_ARG, "got %s", ct_status_str(st));
    printf("[backends] find(\"cpu\") = type %d (%s); unknown name -> %s: %s\n", CT_DEVICE_CPU, name,
           ct_status_str(st), ct_ctx_last_error(ctx));
    /* ct_backend_load: dlopen an out-of-tree backend module (examples/backend/toy_backend.c is
     * one; it links libctorch.so, so the program loading it must too: see tests/test_graph.c).
     * This program links the static library, so it shows the two refusals: a missing file is
     * CT_ERR_IO, a shared library without ctorch_backend_init is CT_ERR_FORMAT. */
    st = ct_backend_load(ctx, "/nonexistent/libmy_backend.so", &type);
    EXPECT(st == CT_ERR_IO, "missing module: %s", ct_status_str(st));
    printf("[backends] load(missing) -> %s: %s\n", ct_status_str(st), ct_ctx_last_error(ctx));
    st = ct_backend_load(ctx, "libm.so.6", &type);
    EXPECT(st == CT_ERR_FORMAT && strstr(ct_ctx_last_error(ctx), "ctorch_backend_init"),
           "libm: %s: %s", ct_status_str(st), ct_ctx_last_error(ctx));
    EXPECT(ct_backend_count(ctx) == n, "a failed load registers nothing");
    return 0;
}

/* ---- 2. streams ---- */
static int section_streams(void) {
    /* The context's default stream of the CPU (owned by the context, never freed by us). */
    ct_stream *def = NULL, *s2 = NULL;
    CHECK(ct_ctx_default_stream(ctx, CPU, &def));
    ct_device d = ct_stream_device(def);
    EXPECT(d.type == CT_DEVICE_CPU && d.index == 0, "default stream on %d:%d", d.type, d.index);
    /* A stream of our own; making it current routes the next ops to it. */
    CHECK(ct_stream_create(ctx, CPU, &s2));
    CHECK(ct_ctx_set_stream(ctx, CPU, s2));
    float av[3] = {1, 2, 3};
    ct_tensor *a = vec_f32(av, 1, (int64_t[]){3}), *b = NULL;
    CHECK(ct_mul_scalar(ctx, a, 10, &b));     /* runs on s2 */
    CHECK(ct_stream_synchronize(s2));         /* CPU work is eager: returns at once */
    CHECK(ct_ctx_set_stream(ctx, CPU, NULL)); /* back to the default stream */
    float bv[3];
    CHECK(ct_tensor_to_host(b, bv, sizeof bv));
    EXPECT(bv[0] == 10 && bv[1] == 20 && bv[2] == 30, "b = %g %g %g", bv[0], bv[1], bv[2]);
    EXPECT(ct_stream_device(NULL).type == -1, "device of a NULL stream");
    printf("[streams] default and created stream on cpu:0; 10*[1 2 3] on the new stream = %g %g "
           "%g\n",
           bv[0], bv[1], bv[2]);
    RELEASE(a, b);
    ct_stream_free(s2);
    return 0;
}

/* ---- 3. ct_stream_submit: a raw op descriptor ---- */
static void operand_of(ct_operand *o, ct_tensor *t) {
    memset(o, 0, sizeof *o);
    o->data = ct_tensor_data_ptr(t);
    o->dtype = ct_tensor_dtype(t);
    o->ndim = ct_tensor_ndim(t);
    for (int i = 0; i < o->ndim; i++) {
        o->shape[i] = ct_tensor_shape(t)[i];
        o->strides[i] = ct_tensor_stride(t)[i];
    }
    o->tensor = t;
}
static int section_submit(void) {
    /* ct_stream_submit is the dispatch point every op front end goes through; it is meant for
     * backend authors and tests. Ordinary code calls ct_add, ct_tensor_full, ... instead. The
     * smallest valid descriptor: CT_OP_FILL (one output, no input, value in scalars[0]). */
    ct_tensor *t = NULL;
    CHECK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){2, 3}, &t));
    ct_op_desc d;
    memset(&d, 0, sizeof d);
    d.kind = CT_OP_FILL;
    d.n_out = 1, d.n_in = 0;
    operand_of(&d.operands[0], t);
    d.compute_dtype = CT_FLOAT32;
    d.scalars[0] = 7.0;
    d.num_threads = 1;
    ct_stream *s = NULL;
    CHECK(ct_ctx_default_stream(ctx, CPU, &s));
    CHECK(ct_stream_submit(s, &d));
    float v[6];
    CHECK(ct_tensor_to_host(t, v, sizeof v));
    for (int i = 0; i < 6; i++)
        EXPECT(v[i] == 7.0f, "v[%d] = %g", i, v[i]);
    /* Error path: the descriptor is validated at this public entry (num_threads must be >= 1). */
    d.num_threads = 0;
    ct_status st = ct_stream_submit(s, &d);
    EXPECT(st == CT_ERR_INVALID_ARG, "got %s", ct_status_str(st));
    printf("[submit] FILL 7 into a 2x3 tensor: all six = %g; num_threads 0 -> %s: %s\n", v[0],
           ct_status_str(st), ct_ctx_last_error(ctx));
    ct_tensor_release(t);
    return 0;
}

/* ---- 4. events ---- */
static int section_events(void) {
    /* Eager timing: two events with enable_timing around some work. */
    ct_event *start = NULL, *end = NULL, *plain = NULL;
    CHECK(ct_event_create(ctx, CPU, true, &start));
    CHECK(ct_event_create(ctx, CPU, true, &end));
    CHECK(ct_event_create(ctx, CPU, false, &plain));
    ct_tensor *m = NULL, *p = NULL;
    CHECK(ct_event_record(start, NULL)); /* NULL: the device's current stream */
    CHECK(ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){64, 64}, &m));
    CHECK(ct_matmul(ctx, m, m, &p));
    CHECK(ct_event_record(end, NULL));
    CHECK(ct_event_synchronize(end)); /* wait for the recorded work (done already on the CPU) */
    bool done = false;
    CHECK(ct_event_query(end, &done));
    double ms = -1;
    CHECK(ct_event_elapsed_ms(start, end, &ms));
    EXPECT(done && ms >= 0, "done %d, %g ms", (int)done, ms);
    static float pv[64 * 64];
    CHECK(ct_tensor_to_host(p, pv, sizeof pv)); /* ones(64,64) @ ones(64,64): every entry is 64 */
    for (int i = 0; i < 64 * 64; i++)
        EXPECT(pv[i] == 64, "p[%d] = %g", i, pv[i]);
    /* Error path: an event created without enable_timing cannot be timed. */
    CHECK(ct_event_record(plain, NULL));
    ct_status st = ct_event_elapsed_ms(start, plain, &ms);
    EXPECT(st == CT_ERR_STATE, "got %s", ct_status_str(st));
    printf("[events] query: done = %d, elapsed >= 0 ms; untimed event -> %s: %s\n", (int)done,
           ct_status_str(st), ct_ctx_last_error(ctx));
    RELEASE(m, p);

    /* In a capture, events fork and join streams: z = (a + b) + 2 (a + b), where the 2 (a + b)
     * half is computed on a second stream that joins the capture by waiting on an event. */
    float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40};
    ct_tensor *a = vec_f32(av, 1, (int64_t[]){4}), *b = vec_f32(bv, 1, (int64_t[]){4});
    ct_tensor *x = NULL, *y = NULL, *z = NULL;
    ct_stream *S = NULL, *s2 = NULL;
    CHECK(ct_ctx_default_stream(ctx, CPU, &S));
    CHECK(ct_stream_create(ctx, CPU, &s2));
    ct_event *fork = NULL, *join = NULL;
    CHECK(ct_event_create(ctx, CPU, false, &fork));
    CHECK(ct_event_create(ctx, CPU, false, &join));
    ct_graph *g = NULL;
    CHECK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK(ct_graph_capture_begin(g, S));
    CHECK(ct_add(ctx, a, b, &x));
    CHECK(ct_event_record(fork, S)); /* fork point */
    bool before = ct_stream_is_capturing(s2);
    CHECK(ct_event_wait(fork, s2)); /* s2 joins the capture */
    bool during = ct_stream_is_capturing(s2);
    CHECK(ct_ctx_set_stream(ctx, CPU, s2));
    CHECK(ct_mul_scalar(ctx, x, 2, &y)); /* recorded on s2 */
    CHECK(ct_event_record(join, s2));
    CHECK(ct_ctx_set_stream(ctx, CPU, S));
    CHECK(ct_event_wait(join, S)); /* the capturing stream joins s2 back */
    CHECK(ct_add(ctx, x, y, &z));
    CHECK(ct_graph_capture_end(g));
    bool after = ct_stream_is_capturing(s2);
    EXPECT(!before && during && !after, "s2 capturing: before %d, during %d, after %d", (int)before,
           (int)during, (int)after);
    /* Replay on new data in a: z = 3 (a + b). */
    float nv[4] = {-1, 0.5f, 7, 100};
    ct_tensor *an = vec_f32(nv, 1, (int64_t[]){4});
    CHECK(ct_tensor_copy_(ctx, a, an));
    CHECK(ct_graph_replay(g));
    float zv[4];
    CHECK(ct_tensor_to_host(z, zv, sizeof zv));
    for (int i = 0; i < 4; i++)
        EXPECT(zv[i] == 3 * (nv[i] + bv[i]), "z[%d] = %g", i, zv[i]);
    printf("[events] fork/join capture over two streams, replay z = 3 (a + b) = %g %g %g %g\n",
           zv[0], zv[1], zv[2], zv[3]);
    ct_graph_free(g);
    RELEASE(a, b, an, x, y, z);
    ct_event_free(start), ct_event_free(end), ct_event_free(plain);
    ct_event_free(fork), ct_event_free(join);
    ct_stream_free(s2);
    return 0;
}

/* ---- 5. graph capture ---- */
/* y = relu(x * w + b): three elementwise ops (the intermediates are released at once). */
static ct_status small_model(const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                             ct_tensor **y) {
    ct_tensor *t = NULL, *u = NULL;
    ct_status st = ct_mul(ctx, x, w, &t);
    if (st == CT_OK) st = ct_add(ctx, t, b, &u);
    if (st == CT_OK) st = ct_relu(ctx, u, y);
    RELEASE(t, u);
    return st;
}
static int count_lines(const char *path, const char *needle, int *matches) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[1024];
    int n = 0;
    *matches = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, needle)) (*matches)++;
    }
    fclose(f);
    return n;
}
static int section_graph(void) {
    int64_t n4[1] = {4};
    float xv[4] = {1, -2, 3, -4}, wv[4] = {0.5f, -0.5f, -1, -2}, bv[4] = {1, 1, 4, 1};
    ct_tensor *x = vec_f32(xv, 1, n4), *w = vec_f32(wv, 1, n4), *b = vec_f32(bv, 1, n4);
    ct_tensor *y = NULL, *eager = NULL;
    /* keep_graph: capture_end only records; ct_graph_instantiate compiles it later. */
    ct_graph_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.keep_graph = true;
    ct_graph *g = NULL;
    CHECK(ct_graph_create(ctx, CPU, &o, &g));
    ct_stream *S = NULL;
    CHECK(ct_ctx_default_stream(ctx, CPU, &S));
    CHECK(ct_graph_capture_begin(g, NULL)); /* NULL: the device's default stream */
    bool capturing = ct_stream_is_capturing(S);
    CHECK(small_model(x, w, b, &y)); /* recorded, not run */
    CHECK(ct_graph_capture_end(g));
    EXPECT(capturing && !ct_stream_is_capturing(S), "is_capturing during/after: %d/%d",
           (int)capturing, (int)ct_stream_is_capturing(S));
    /* One node per recorded op: mul, add, relu. */
    int64_t nodes = ct_graph_num_nodes(g);
    EXPECT(nodes == 3, "%lld nodes", (long long)nodes);
    CHECK(ct_graph_instantiate(g));
    /* What instantiation did with memory: the two released intermediates (x*w, x*w+b) are the
     * graph's private buffers; fused or planned, they never take more than their own bytes. */
    ct_graph_mem_stats ms;
    memset(&ms, 0, sizeof ms);
    ms.size = sizeof ms;
    CHECK(ct_graph_mem_stats_get(g, &ms));
    EXPECT(ms.private_buffers == 2 && ms.private_bytes >= 2 * 4 * (int64_t)sizeof(float),
           "%lld private buffers, %lld bytes", (long long)ms.private_buffers,
           (long long)ms.private_bytes);
    EXPECT(ms.planned_bytes + ms.pinned_bytes <= ms.private_bytes &&
               ms.fused_bytes <= ms.private_bytes && ms.fused_ops >= 2 * ms.fused_chains,
           "planned %lld pinned %lld fused %lld of %lld", (long long)ms.planned_bytes,
           (long long)ms.pinned_bytes, (long long)ms.fused_bytes, (long long)ms.private_bytes);
    printf("[graph] %lld nodes; %lld private buffers, %lld fused chain(s) of %lld ops, footprint "
           "%lld -> %lld bytes\n",
           (long long)nodes, (long long)ms.private_buffers, (long long)ms.fused_chains,
           (long long)ms.fused_ops, (long long)ms.private_bytes,
           (long long)(ms.planned_bytes + ms.pinned_bytes));
    /* A readable dump of the nodes (a header, then one line per op: "%2 = RELU[float32] ..."). */
    path_in_dir(dump, sizeof dump, "graph.txt");
    CHECK(ct_graph_debug_dump(g, dump));
    int relu_lines = 0, lines = count_lines(dump, "RELU", &relu_lines);
    EXPECT(lines >= 3 && relu_lines >= 1, "%d lines, %d mention relu", lines, relu_lines);
    remove(dump);
    /* Replay on new data (written into the captured input) == eager == a plain C loop. */
    float x2[4] = {2, -6, 0.5f, -0.25f}, yv[4], ev[4];
    ct_tensor *xn = vec_f32(x2, 1, n4);
    CHECK(ct_tensor_copy_(ctx, x, xn));
    CHECK(ct_graph_replay(g));
    CHECK(small_model(xn, w, b, &eager));
    CHECK(ct_tensor_to_host(y, yv, sizeof yv));
    CHECK(ct_tensor_to_host(eager, ev, sizeof ev));
    EXPECT(memcmp(yv, ev, sizeof yv) == 0, "replay differs from eager");
    for (int i = 0; i < 4; i++) {
        float want = x2[i] * wv[i] + bv[i];
        want = want > 0 ? want : 0;
        EXPECT(yv[i] == want, "y[%d] = %g, want %g", i, yv[i], want);
    }
    printf("[graph] replay relu(x*w+b) = %g %g %g %g (== eager, == C loop)\n", yv[0], yv[1], yv[2],
           yv[3]);

    /* A second graph sharing the first one's memory pool: z = y * y. Replay in capture order. */
    ct_graph_options o2;
    memset(&o2, 0, sizeof o2);
    o2.size = sizeof o2;
    o2.pool = ct_graph_pool_of(g);
    ct_graph *g2 = NULL;
    ct_tensor *z = NULL;
    CHECK(ct_graph_create(ctx, CPU, &o2, &g2));
    EXPECT(ct_graph_pool_of(g2) == ct_graph_pool_of(g), "the pool is not shared");
    CHECK(ct_graph_capture_begin(g2, NULL));
    CHECK(ct_mul(ctx, y, y, &z));
    CHECK(ct_graph_capture_end(g2));
    CHECK(ct_graph_replay(g));
    CHECK(ct_graph_replay(g2));
    float zv[4];
    CHECK(ct_tensor_to_host(z, zv, sizeof zv));
    for (int i = 0; i < 4; i++)
        EXPECT(zv[i] == yv[i] * yv[i], "z[%d] = %g", i, zv[i]);
    ct_graph_free(g2);

    /* Error path: a graph that holds a capture cannot capture again until it is reset. */
    ct_status st = ct_graph_capture_begin(g, NULL);
    EXPECT(st == CT_ERR_STATE, "got %s", ct_status_str(st));
    printf("[graph] shared pool: z = y*y = %g %g %g %g; capture_begin again -> %s: %s\n", zv[0],
           zv[1], zv[2], zv[3], ct_status_str(st), ct_ctx_last_error(ctx));
    /* ct_graph_reset drops the capture; the graph then records something new (neg: 1 node). */
    CHECK(ct_graph_reset(g));
    EXPECT(ct_graph_num_nodes(g) == 0, "%lld nodes after reset", (long long)ct_graph_num_nodes(g));
    ct_tensor *nx = NULL;
    CHECK(ct_graph_capture_begin(g, NULL));
    CHECK(ct_neg(ctx, x, &nx));
    CHECK(ct_graph_capture_end(g));
    CHECK(ct_graph_replay(g)); /* keep_graph: the first replay instantiates */
    float nv[4];
    CHECK(ct_tensor_to_host(nx, nv, sizeof nv));
    for (int i = 0; i < 4; i++)
        EXPECT(nv[i] == -x2[i], "neg[%d] = %g", i, nv[i]);
    printf("[graph] after reset: %lld node, replay -x = %g %g %g %g\n",
           (long long)ct_graph_num_nodes(g), nv[0], nv[1], nv[2], nv[3]);
    ct_graph_free(g);
    RELEASE(x, w, b, y, eager, xn, z, nx);
    return 0;
}

/* ---- 6. ct_cond and ct_while_loop ---- */
/* The model used in sections 6-8 (x is 1x2):
 *   h = x W^T + b;  c = sum(h) > 0 ? 2 h : -h;  while (sum(c) < 100) c = 2 c;  y = c */
static const float Wv[4] = {1, 2, -1, 0.5f}, Bv[2] = {0.5f, -1};
static ct_tensor *W, *B;

static ct_status br_double(ct_ctx *c, void *user, int n, ct_tensor *const *ops, int no,
                           ct_tensor **outs) {
    (void)user, (void)n, (void)no;
    return ct_mul_scalar(c, ops[0], 2, &outs[0]);
}
static ct_status br_negate(ct_ctx *c, void *user, int n, ct_tensor *const *ops, int no,
                           ct_tensor **outs) {
    (void)user, (void)n, (void)no;
    return ct_neg(c, ops[0], &outs[0]);
}
static ct_status br_sum(ct_ctx *c, void *user, int n, ct_tensor *const *ops, int no,
                        ct_tensor **outs) {
    (void)user, (void)n, (void)no;
    return ct_sum(c, ops[0], 0, NULL, false, &outs[0]);
}
static ct_status loop_cond(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)user, (void)n;
    ct_tensor *s = NULL;
    ct_status st = ct_sum(c, v[0], 0, NULL, false, &s);
    if (st == CT_OK) st = ct_lt_scalar(c, s, 100, pred);
    ct_tensor_release(s);
    return st;
}
static ct_status loop_body(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    return ct_mul_scalar(c, v[0], 2, &next[0]);
}
static ct_status model(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *h = NULL, *s = NULL, *p = NULL, *c = NULL;
    ct_status st = ct_linear(ctx, x, W, B, &h);
    if (st == CT_OK) st = ct_sum(ctx, h, 0, NULL, false, &s);
    if (st == CT_OK) st = ct_gt_scalar(ctx, s, 0, &p);
    if (st == CT_OK) st = ct_cond(ctx, p, br_double, br_negate, NULL, 1, &h, 1, &c);
    if (st == CT_OK) st = ct_while_loop(ctx, loop_cond, loop_body, NULL, 1, &c, y);
    RELEASE(h, s, p, c);
    return st;
}
/* The same model in plain C; returns the number of loop iterations, *pos the branch taken. */
static int model_ref(const float x[2], float y[2], bool *pos) {
    float h[2];
    for (int i = 0; i < 2; i++)
        h[i] = Wv[2 * i] * x[0] + Wv[2 * i + 1] * x[1] + Bv[i];
    *pos = h[0] + h[1] > 0;
    for (int i = 0; i < 2; i++)
        y[i] = *pos ? 2 * h[i] : -h[i];
    int k = 0;
    for (; y[0] + y[1] < 100; k++)
        y[0] *= 2, y[1] *= 2;
    return k;
}
/* Check y against model_ref(x) and print one line. */
static int expect_model(const ct_tensor *y, const float x[2], const char *what) {
    float got[2], want[2];
    bool pos;
    int k = model_ref(x, want, &pos);
    CHECK(ct_tensor_to_host(y, got, sizeof got));
    EXPECT(got[0] == want[0] && got[1] == want[1], "%s: y = %g %g, want %g %g", what, got[0],
           got[1], want[0], want[1]);
    printf("[%s] x = [%g %g]: %s branch, %d doublings, y = [%g %g]\n", what, x[0], x[1],
           pos ? "true" : "false", k, got[0], got[1]);
    return 0;
}

static const float X1[2] = {1, 1}, X2[2] = {-1, -1}; /* sum(h) = 2 (true) / -3 (false) */
static ct_tensor *Xin, *Yout;                        /* the captured model's input and output */
static ct_graph *Gm;

static int section_cond_loop(void) {
    int64_t ws[2] = {2, 2}, bs[1] = {2}, xs[2] = {1, 2};
    W = vec_f32(Wv, 2, ws), B = vec_f32(Bv, 1, bs);
    /* Captured once: both branches and the loop are recorded; each replay picks the branch and
     * the number of iterations from the data. Eagerly, ct_cond reads pred and runs one branch
     * and ct_while_loop loops on the host: the same values. */
    Xin = vec_f32(X1, 2, xs);
    CHECK(ct_graph_create(ctx, CPU, NULL, &Gm));
    CHECK(ct_graph_capture_begin(Gm, NULL));
    CHECK(model(Xin, &Yout));
    CHECK(ct_graph_capture_end(Gm));
    for (int r = 0; r < 2; r++) {
        const float *xv = r == 0 ? X1 : X2;
        ct_tensor *xn = vec_f32(xv, 2, xs), *e = NULL;
        CHECK(ct_tensor_copy_(ctx, Xin, xn));
        CHECK(ct_graph_replay(Gm));
        if (expect_model(Yout, xv, "replay")) return 1;
        CHECK(model(xn, &e)); /* eager on the same input */
        if (expect_model(e, xv, "eager")) return 1;
        RELEASE(xn, e);
    }
    /* Error path: under capture both branches run, and their outputs must have the same shape
     * and dtype (here [2] against a 0-d sum). The capture is invalidated and must be reset. */
    ct_graph *bad = NULL;
    ct_tensor *v = vec_f32(X1, 1, bs), *s = NULL, *p = NULL, *out = NULL;
    CHECK(ct_graph_create(ctx, CPU, NULL, &bad));
    CHECK(ct_graph_capture_begin(bad, NULL));
    CHECK(ct_sum(ctx, v, 0, NULL, false, &s));
    CHECK(ct_gt_scalar(ctx, s, 0, &p));
    ct_status st = ct_cond(ctx, p, br_double, br_sum, NULL, 1, &v, 1, &out);
    EXPECT(st == CT_ERR_SHAPE && out == NULL, "got %s", ct_status_str(st));
    printf("[cond] mismatched branches -> %s: %s\n", ct_status_str(st), ct_ctx_last_error(ctx));
    st = ct_graph_capture_end(bad);
    EXPECT(st == CT_ERR_SHAPE, "capture_end gave %s", ct_status_str(st));
    ct_graph_free(bad);
    RELEASE(v, s, p);
    return 0;
}

/* ---- 7. export: the captured model as a program file ---- */
static int section_export(void) {
    path_in_dir(prog_path, sizeof prog_path, "model.ctp");
    /* Name the captured input, output and parameters; everything else the graph reads is saved
     * as an anonymous constant. The report says what was written. */
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    const char *param_names[2] = {"fc.weight", "fc.bias"};
    const char *meta[] = {"model", "cond + while_loop demo", NULL};
    ct_tensor *ins[1] = {Xin}, *outs[1] = {Yout}, *params[2] = {W, B};
    ct_export_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    ct_export_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.size = sizeof sp;
    sp.n_inputs = 1, sp.input_names = in_names, sp.inputs = ins;
    sp.n_outputs = 1, sp.output_names = out_names, sp.outputs = outs;
    sp.n_params = 2, sp.param_names = param_names, sp.params = params;
    sp.metadata = meta;
    sp.report = &rep;
    CHECK(ct_program_export(ctx, Gm, &sp, prog_path));
    EXPECT(rep.weights == 2 && rep.instructions > 0 && rep.file_bytes > rep.weight_bytes,
           "%lld weights, %lld instructions, %llu of %llu bytes", (long long)rep.weights,
           (long long)rep.instructions, (unsigned long long)rep.weight_bytes,
           (unsigned long long)rep.file_bytes);
    /* intermediate_bytes is the arena without reuse (each intermediate rounded up to the 64-byte
     * boundary it is placed at); the planned arena is at most that, and much less for big models,
     * which reuse memory. */
    EXPECT(rep.arena_bytes <= rep.intermediate_bytes && rep.intermediate_bytes % 64 == 0,
           "arena %llu bytes for %lld intermediates of %llu bytes",
           (unsigned long long)rep.arena_bytes, (long long)rep.intermediates,
           (unsigned long long)rep.intermediate_bytes);
    printf("[export] wrote model.ctp: %lld weights, %lld intermediates planned into a %llu-byte "
           "arena\n",
           (long long)rep.weights, (long long)rep.intermediates,
           (unsigned long long)rep.arena_bytes);

    /* Load it back into the full library: names and counts as exported. */
    ct_program *p = NULL;
    CHECK(ct_program_load(ctx, prog_path, &p));
    EXPECT(ct_program_num_inputs(p) == 1 && ct_program_num_outputs(p) == 1, "%d in, %d out",
           ct_program_num_inputs(p), ct_program_num_outputs(p));
    EXPECT(strcmp(ct_program_input_name(p, 0), "x") == 0 &&
               strcmp(ct_program_output_name(p, 0), "y") == 0 &&
               ct_program_input_name(p, 1) == NULL,
           "names %s / %s", ct_program_input_name(p, 0), ct_program_output_name(p, 0));
    /* Run it on both inputs: the same values as the eager model and the C reference. */
    int64_t xs[2] = {1, 2};
    for (int r = 0; r < 2; r++) {
        const float *xv = r == 0 ? X1 : X2;
        ct_tensor *x = vec_f32(xv, 2, xs), *y = NULL, *e = NULL;
        const ct_tensor *pin[1] = {x};
        CHECK(ct_program_run(p, 1, pin, 1, &y));
        CHECK(model(x, &e));
        float yv[2], ev[2];
        CHECK(ct_tensor_to_host(y, yv, sizeof yv));
        CHECK(ct_tensor_to_host(e, ev, sizeof ev));
        EXPECT(memcmp(yv, ev, sizeof yv) == 0, "program %g %g, eager %g %g", yv[0], yv[1], ev[0],
               ev[1]);
        if (expect_model(y, xv, "program")) return 1;
        RELEASE(x, y, e);
    }
    /* A readable description (header, sections, inputs, op table, weights, memory plan). */
    FILE *f = tmpfile();
    EXPECT(f != NULL, "tmpfile failed");
    CHECK(ct_program_describe(p, f));
    long dsize = ftell(f);
    rewind(f);
    char first[160] = "";
    if (!fgets(first, sizeof first, f)) first[0] = 0;
    fclose(f);
    first[strcspn(first, "\n")] = 0;
    EXPECT(dsize > 0, "empty description");
    printf("[export] describe: %ld bytes, first line \"%s\"\n", dsize, first);
    /* The weights section is a complete safetensors file: read fc.weight back from it. */
    const void *wdata = NULL;
    size_t wsize = 0;
    CHECK(ct_program_weights(p, &wdata, &wsize));
    ct_safetensors *st = NULL;
    ct_tensor *wl = NULL;
    CHECK(ct_safetensors_load_buffer(ctx, wdata, wsize, &st));
    CHECK(ct_safetensors_get(st, "fc.weight", &wl));
    float wv[4];
    CHECK(ct_tensor_to_host(wl, wv, sizeof wv));
    EXPECT(memcmp(wv, Wv, sizeof wv) == 0, "fc.weight = %g %g %g %g", wv[0], wv[1], wv[2], wv[3]);
    const char *m = ct_safetensors_metadata(st, "model");
    EXPECT(m && strcmp(m, meta[1]) == 0, "metadata model = %s", m ? m : "(none)");
    printf("[export] weights section: %zu bytes of safetensors, fc.weight = [%g %g; %g %g]\n",
           wsize, wv[0], wv[1], wv[2], wv[3]);
    ct_tensor_release(wl);
    ct_safetensors_free(st);
    /* Error path: an input of the wrong shape. */
    ct_tensor *bad = NULL, *out = NULL;
    CHECK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){1, 3}, &bad));
    const ct_tensor *bin[1] = {bad};
    ct_status s = ct_program_run(p, 1, bin, 1, &out);
    EXPECT(s == CT_ERR_SHAPE && out == NULL, "got %s", ct_status_str(s));
    printf("[export] run with a 1x3 input -> %s: %s\n", ct_status_str(s), ct_ctx_last_error(ctx));
    ct_tensor_release(bad);
    ct_program_free(p);
    return 0;
}

/* ---- 8. the embedded runtime (libctorch_rt: no context, caller-provided arena) ---- */
static int section_runtime(void) {
    FILE *f = fopen(prog_path, "rb");
    EXPECT(f != NULL, "cannot open %s", prog_path);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = aligned_alloc(64, (n + 63) / 64 * 64); /* the program needs 16-byte alignment */
    size_t got = buf ? fread(buf, 1, n, f) : 0;
    fclose(f);
    EXPECT(got == n, "read %zu of %zu bytes", got, n);
    char err[256] = "";
    ct_rt_program *p = NULL;
    if (ct_rt_load(buf, n, &p, err, sizeof err) != CT_OK) {
        fprintf(stderr, "ct_rt_load: %s\n", err);
        return 1;
    }
    /* Inputs and outputs by index and by name; -1 for a name the program lacks. */
    int xi = ct_rt_find_input(p, "x"), yi = ct_rt_find_output(p, "y");
    EXPECT(xi == 0 && yi == 0 && ct_rt_find_input(p, "nope") == -1, "x at %d, y at %d", xi, yi);
    EXPECT(strcmp(ct_rt_input_name(p, xi), "x") == 0 && ct_rt_input_dtype(p, xi) == CT_FLOAT32 &&
               ct_rt_num_outputs(p) == 1,
           "input %s of dtype %d, %d outputs", ct_rt_input_name(p, xi),
           (int)ct_rt_input_dtype(p, xi), ct_rt_num_outputs(p));
    printf("[runtime] input \"%s\" (%s), %d output \"%s\", arena %zu bytes\n",
           ct_rt_input_name(p, xi), ct_dtype_name(ct_rt_input_dtype(p, xi)), ct_rt_num_outputs(p),
           ct_rt_output_name(p, yi), ct_rt_arena_size(p));
    size_t asz = (ct_rt_arena_size(p) + 63) / 64 * 64;
    void *arena = aligned_alloc(64, asz ? asz : 64);
    int64_t xs[2] = {1, 2};
    int rc = 1;
    if (!arena || ct_rt_set_input(p, xi, X2, xs) != CT_OK || ct_rt_run(p, arena, asz) != CT_OK) {
        fprintf(stderr, "run: %s\n", ct_rt_last_error(p));
        goto done;
    }
    const void *d;
    ct_dtype dt;
    int nd;
    const int64_t *shape, *strides;
    if (ct_rt_output(p, yi, &d, &dt, &nd, &shape, &strides) != CT_OK) {
        fprintf(stderr, "output: %s\n", ct_rt_last_error(p));
        goto done;
    }
    float want[2];
    bool pos;
    int k = model_ref(X2, want, &pos);
    const float *y = d;
    if (dt != CT_FLOAT32 || nd != 2 || shape[0] != 1 || shape[1] != 2 || y[0] != want[0] ||
        y[strides[1]] != want[1]) {
        fprintf(stderr, "runtime output differs from the C reference\n");
        goto done;
    }
    printf("[runtime] x = [%g %g]: y = [%g %g] (%d loop iterations, as the C reference)\n", X2[0],
           X2[1], y[0], y[strides[1]], k);
    /* The watchdog: a run that executes more than max_steps instructions stops with
     * CT_ERR_TIMEOUT (a guard against a while_loop that never ends); 0 removes the limit. */
    if (ct_rt_set_max_steps(p, 3) != CT_OK) goto done;
    ct_status st = ct_rt_run(p, arena, asz);
    if (st != CT_ERR_TIMEOUT) {
        fprintf(stderr, "max_steps 3: got %s\n", ct_status_str(st));
        goto done;
    }
    printf("[runtime] max_steps 3 -> %s: %s\n", ct_status_str(st), ct_rt_last_error(p));
    if (ct_rt_set_max_steps(p, 0) != CT_OK || ct_rt_run(p, arena, asz) != CT_OK) {
        fprintf(stderr, "run without a limit: %s\n", ct_rt_last_error(p));
        goto done;
    }
    rc = 0;
done:
    ct_rt_free(p);
    free(arena);
    free(buf);
    return rc;
}

/* ---- 9. autograd ---- */
static int section_autograd(void) {
    /* y = sum(x^3): dy/dx = 3 x^2, and d/dx sum(3 x^2) = 6 x (create_graph keeps the first
     * gradient differentiable). ct_autograd_grad returns the gradients; x.grad stays untouched. */
    float xv[3] = {1, -2, 0.5f};
    ct_tensor *x = vec_f32(xv, 1, (int64_t[]){3}), *x2 = NULL, *x3 = NULL, *y = NULL;
    CHECK(ct_tensor_set_requires_grad(x, true));
    CHECK(ct_mul(ctx, x, x, &x2));
    CHECK(ct_mul(ctx, x2, x, &x3));
    CHECK(ct_sum(ctx, x3, 0, NULL, false, &y));
    EXPECT(ct_tensor_requires_grad(x) && ct_tensor_requires_grad(y), "requires_grad lost");
    ct_tensor *g1 = NULL, *g2 = NULL, *s = NULL;
    const ct_tensor *outs[1] = {y}, *ins[1] = {x};
    CHECK(ct_autograd_grad(ctx, 1, outs, NULL, 1, ins, false, true, &g1));
    EXPECT(ct_tensor_requires_grad(g1), "create_graph: the gradient should require grad");
    CHECK(ct_sum(ctx, g1, 0, NULL, false, &s));
    const ct_tensor *outs2[1] = {s};
    CHECK(ct_autograd_grad(ctx, 1, outs2, NULL, 1, ins, false, false, &g2));
    float a[3], b[3];
    CHECK(ct_tensor_to_host(g1, a, sizeof a));
    CHECK(ct_tensor_to_host(g2, b, sizeof b));
    for (int i = 0; i < 3; i++)
        EXPECT(a[i] == 3 * xv[i] * xv[i] && b[i] == 6 * xv[i], "i=%d: %g %g", i, a[i], b[i]);
    EXPECT(ct_tensor_grad(x) == NULL, "autograd_grad must not fill x.grad");
    printf("[autograd] d sum(x^3)/dx = %g %g %g (3x^2), second derivative = %g %g %g (6x)\n", a[0],
           a[1], a[2], b[0], b[1], b[2]);
    /* detach: same storage, no history. */
    ct_tensor *dg = NULL;
    CHECK(ct_tensor_detach(ctx, g1, &dg));
    EXPECT(!ct_tensor_requires_grad(dg) && ct_tensor_data_ptr(dg) == ct_tensor_data_ptr(g1),
           "detach should share storage without grad");
    /* Error path: an input that no output depends on. */
    ct_tensor *other = vec_f32(xv, 1, (int64_t[]){3}), *gz = NULL;
    CHECK(ct_tensor_set_requires_grad(other, true));
    const ct_tensor *ins_o[1] = {other};
    ct_status st = ct_autograd_grad(ctx, 1, outs2, NULL, 1, ins_o, false, false, &gz);
    EXPECT(st == CT_ERR_STATE && gz == NULL, "got %s", ct_status_str(st));
    printf("[autograd] detach shares storage, requires_grad = %d; unrelated input -> %s: %s\n",
           (int)ct_tensor_requires_grad(dg), ct_status_str(st), ct_ctx_last_error(ctx));
    RELEASE(x, x2, x3, y, g1, g2, s, dg, other);

    /* nll_loss(log_softmax(z), t) with mean reduction = cross entropy; its gradient with respect
     * to the logits z is (softmax(z) - onehot(t)) / N. Both computed in double by hand here. */
    float zv[6] = {1, 2, 0.5f, -1, 0, 3};
    int64_t tv[2] = {1, 0};
    ct_tensor *z = vec_f32(zv, 2, (int64_t[]){2, 3}), *t = NULL, *lp = NULL, *loss = NULL;
    CHECK(ct_tensor_from_host(ctx, tv, CT_INT64, 1, (int64_t[]){2}, &t));
    CHECK(ct_tensor_set_requires_grad(z, true));
    CHECK(ct_log_softmax(ctx, z, 1, &lp));
    CHECK(ct_nll_loss(ctx, lp, t, CT_REDUCTION_MEAN, &loss));
    ct_tensor *gz2 = NULL;
    const ct_tensor *lo[1] = {loss}, *zi[1] = {z};
    CHECK(ct_autograd_grad(ctx, 1, lo, NULL, 1, zi, false, false, &gz2));
    double lv, want = 0;
    float gv[6];
    CHECK(ct_tensor_item(loss, &lv));
    CHECK(ct_tensor_to_host(gz2, gv, sizeof gv));
    for (int r = 0; r < 2; r++) {
        double se = 0;
        for (int c = 0; c < 3; c++)
            se += exp(zv[3 * r + c]);
        want += (log(se) - zv[3 * r + tv[r]]) / 2;
        for (int c = 0; c < 3; c++) {
            double gw = (exp(zv[3 * r + c]) / se - (c == tv[r])) / 2;
            EXPECT(fabs(gv[3 * r + c] - gw) < 1e-6, "grad[%d,%d] = %g, want %g", r, c,
                   gv[3 * r + c], gw);
        }
    }
    EXPECT(fabs(lv - want) < 1e-6, "nll_loss = %.7f, want %.7f", lv, want);
    printf("[autograd] nll_loss(log_softmax(z), [1 0]) = %.5f; grad = (softmax - onehot) / 2\n",
           lv);
    /* The full forms (torch's weight and ignore_index): with class weights w and the second
     * target ignored, the mean is w[t0] * nll_0 / w[t0], i.e. row 0's cross entropy alone. */
    float wv[3] = {2, 0.5f, 1};
    int64_t tv2[2] = {1, -100};
    ct_tensor *w = vec_f32(wv, 1, (int64_t[]){3}), *t2 = NULL, *ce = NULL, *nl = NULL;
    CHECK(ct_tensor_from_host(ctx, tv2, CT_INT64, 1, (int64_t[]){2}, &t2));
    CHECK(ct_cross_entropy_ex(ctx, z, t2, w, -100, CT_REDUCTION_MEAN, 0.0, &ce));
    CHECK(ct_nll_loss_ex(ctx, lp, t2, w, -100, CT_REDUCTION_SUM, &nl));
    double cev, nlv, se0 = exp(1.0) + exp(2.0) + exp(0.5);
    CHECK(ct_tensor_item(ce, &cev));
    CHECK(ct_tensor_item(nl, &nlv));
    EXPECT(fabs(cev - (log(se0) - 2)) < 1e-6, "cross_entropy_ex = %.7f", cev);
    EXPECT(fabs(nlv - 0.5 * (log(se0) - 2)) < 1e-6, "nll_loss_ex = %.7f", nlv);
    printf("[autograd] weighted, one target ignored: cross_entropy_ex mean %.5f, nll_loss_ex sum "
           "%.5f\n",
           cev, nlv);
    RELEASE(z, t, lp, loss, gz2, w, t2, ce, nl);

    /* Regression and binary losses: l1, smooth l1 (beta 1), huber (delta 0.5) of a - b = (0.25,
     * -2), and binary cross entropy on probabilities sigmoid(x) equals it on the logits x. */
    float av[2] = {0.25f, -1}, bv2[2] = {0, 1}, xl[2] = {0.5f, -1.5f}, yl[2] = {1, 0};
    ct_tensor *ra = vec_f32(av, 1, (int64_t[]){2}), *rb = vec_f32(bv2, 1, (int64_t[]){2});
    ct_tensor *l1 = NULL, *sl1 = NULL, *hub = NULL, *xs = NULL, *ys = NULL, *sg = NULL, *bce = NULL,
              *bcel = NULL;
    CHECK(ct_l1_loss(ctx, ra, rb, CT_REDUCTION_SUM, &l1));
    CHECK(ct_smooth_l1_loss(ctx, ra, rb, CT_REDUCTION_SUM, 1.0, &sl1));
    CHECK(ct_huber_loss(ctx, ra, rb, CT_REDUCTION_SUM, 0.5, &hub));
    double l1v, sl1v, hubv;
    CHECK(ct_tensor_item(l1, &l1v));
    CHECK(ct_tensor_item(sl1, &sl1v));
    CHECK(ct_tensor_item(hub, &hubv));
    EXPECT(l1v == 2.25 && sl1v == 0.5 * 0.0625 + 1.5 && hubv == 0.5 * 0.0625 + 0.5 * 1.75,
           "l1 %g smooth_l1 %g huber %g", l1v, sl1v, hubv);
    xs = vec_f32(xl, 1, (int64_t[]){2}), ys = vec_f32(yl, 1, (int64_t[]){2});
    CHECK(ct_sigmoid(ctx, xs, &sg));
    CHECK(ct_binary_cross_entropy(ctx, sg, ys, NULL, CT_REDUCTION_MEAN, &bce));
    CHECK(ct_binary_cross_entropy_with_logits(ctx, xs, ys, NULL, NULL, CT_REDUCTION_MEAN, &bcel));
    double bcev, bcelv;
    CHECK(ct_tensor_item(bce, &bcev));
    CHECK(ct_tensor_item(bcel, &bcelv));
    EXPECT(fabs(bcev - bcelv) < 1e-6, "bce %.7f vs with logits %.7f", bcev, bcelv);
    printf("[losses] l1 %g, smooth_l1 %g, huber %g; bce(sigmoid(x)) %.5f = bce_with_logits(x) "
           "%.5f\n",
           l1v, sl1v, hubv, bcev, bcelv);
    /* normalize and cosine similarity of (3, 4) and (4, 3); kl_div of two distributions */
    float u1[2] = {3, 4}, u2[2] = {4, 3}, pq[2] = {0.25f, 0.75f}, lq[2];
    lq[0] = logf(0.5f), lq[1] = logf(0.5f);
    ct_tensor *v1 = vec_f32(u1, 1, (int64_t[]){2}), *v2 = vec_f32(u2, 1, (int64_t[]){2});
    ct_tensor *nv = NULL, *cs = NULL, *tq = vec_f32(pq, 1, (int64_t[]){2}), *lg2 = NULL, *kl = NULL;
    lg2 = vec_f32(lq, 1, (int64_t[]){2});
    CHECK(ct_normalize(ctx, v1, 2, 0, 1e-12, &nv));
    CHECK(ct_cosine_similarity(ctx, v1, v2, 0, 1e-8, &cs));
    CHECK(ct_kl_div(ctx, lg2, tq, CT_REDUCTION_SUM, false, &kl));
    float nvv[2];
    double csv, klv, klw = 0.25 * log(0.25 / 0.5) + 0.75 * log(0.75 / 0.5);
    CHECK(ct_tensor_to_host(nv, nvv, sizeof nvv));
    CHECK(ct_tensor_item(cs, &csv));
    CHECK(ct_tensor_item(kl, &klv));
    EXPECT(fabsf(nvv[0] - 0.6f) < 1e-6f && fabsf(nvv[1] - 0.8f) < 1e-6f, "normalize %g %g", nvv[0],
           nvv[1]);
    EXPECT(fabs(csv - 24.0 / 25) < 1e-6 && fabs(klv - klw) < 1e-6, "cos %g kl %g", csv, klv);
    printf("[losses] normalize([3 4]) = [%.2f %.2f], cosine([3 4], [4 3]) = %.4f, kl = %.5f\n",
           nvv[0], nvv[1], csv, klv);
    RELEASE(v1, v2, nv, cs, tq, lg2, kl);

    /* activations at a few points, each against its formula (hardswish(1) = 1 * 4 / 6, ...) */
    float av3[3] = {-4, 1, 5};
    ct_tensor *xa = vec_f32(av3, 1, (int64_t[]){3}), *ya = NULL;
    int na = 0;
    /* CHECK returns on a failed call; then each value against its formula */
#define ACT(call, w0, w1, w2)                                                                      \
    do {                                                                                           \
        const float want_[3] = {(w0), (w1), (w2)};                                                 \
        float got_[3] = {0};                                                                       \
        CHECK(call);                                                                               \
        CHECK(ct_tensor_to_host(ya, got_, sizeof got_));                                           \
        for (int i_ = 0; i_ < 3; i_++)                                                             \
            EXPECT(fabsf(got_[i_] - want_[i_]) <= 1e-5f * (1 + fabsf(want_[i_])),                  \
                   "%s[%d] = %g, want %g", #call, i_, got_[i_], want_[i_]);                        \
        ct_tensor_release(ya), ya = NULL, na++;                                                    \
    } while (0)
    ct_tensor *pw1 = NULL;
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 1, (int64_t[]){1}, 0.25, &pw1));
    ACT(ct_hardsigmoid(ctx, xa, &ya), 0, 4.0f / 6, 1);
    ACT(ct_hardswish(ctx, xa, &ya), 0, 4.0f / 6, 5);
    ACT(ct_logsigmoid(ctx, xa, &ya), -log1pf(expf(4)), -log1pf(expf(-1)), -log1pf(expf(-5)));
    ACT(ct_softsign(ctx, xa, &ya), -0.8f, 0.5f, 5.0f / 6);
    ACT(ct_selu(ctx, xa, &ya), 1.0507009873554805f * 1.6732632423543772f * expm1f(-4),
        1.0507009873554805f, 5 * 1.0507009873554805f);
    ACT(ct_celu(ctx, xa, 2, &ya), 2 * expm1f(-2), 1, 5);
    ACT(ct_relu6(ctx, xa, &ya), 0, 1, 5);
    ACT(ct_softshrink(ctx, xa, 1.5, &ya), -2.5f, 0, 3.5f);
    ACT(ct_hardshrink(ctx, xa, 1.5, &ya), -4, 0, 5);
    ACT(ct_tanhshrink(ctx, xa, &ya), -4 - tanhf(-4), 1 - tanhf(1), 5 - tanhf(5));
    ACT(ct_threshold(ctx, xa, 2, -1, &ya), -1, -1, 5);
    ACT(ct_prelu(ctx, xa, pw1, &ya), -1, 1, 5);
    ACT(ct_softmin(ctx, xa, 0, &ya), 1 / (1 + expf(-5) + expf(-9)),
        expf(-5) / (1 + expf(-5) + expf(-9)), expf(-9) / (1 + expf(-5) + expf(-9)));
#undef ACT
    /* glu over pairs: [a, b] -> a sigmoid(b) */
    float gv2[4] = {2, 0, -1, 3};
    ct_tensor *xg = vec_f32(gv2, 2, (int64_t[]){2, 2}), *yg = NULL;
    CHECK(ct_glu(ctx, xg, 1, &yg));
    float gg[2];
    CHECK(ct_tensor_to_host(yg, gg, sizeof gg));
    EXPECT(fabsf(gg[0] - 1) < 1e-6f && fabsf(gg[1] + 1 / (1 + expf(-3))) < 1e-6f, "glu %g %g",
           gg[0], gg[1]);
    printf("[activations] %d checked at x = [-4 1 5] (hardswish %.4f, selu %.4f at 1), glu\n",
           na + 1, 4.0 / 6, 1.0507009873554805);
    RELEASE(xa, pw1, xg, yg);
    RELEASE(ra, rb, l1, sl1, hub, xs, ys, sg, bce, bcel);
    return 0;
}

/* ---- 10. optimizer: mixed-precision grad scaling and step counts ---- */
static int section_optim(void) {
    /* SGD, lr 0.5, no momentum: p -= lr * g. The grads arrive multiplied by the loss scale 4;
     * with grad_scale = 4 the step divides them first (in place), as torch's GradScaler. */
    float pv[2] = {1, 2}, gtrue[2] = {2, -4}, gs[2] = {8, -16}, scale = 4, inf = 0;
    ct_tensor *p = vec_f32(pv, 1, (int64_t[]){2}), *g = vec_f32(gs, 1, (int64_t[]){2});
    ct_tensor *sc = vec_f32(&scale, 0, NULL), *fi = vec_f32(&inf, 0, NULL);
    ct_optim_options o = ct_optim_options_default(CT_OPTIM_SGD);
    o.lr = 0.5;
    ct_optim *opt = NULL;
    CHECK(ct_optim_create(ctx, &o, 1, &p, &opt));
    CHECK(ct_optim_set_grad_scaling(opt, sc, fi));
    CHECK(ct_optim_step(opt, &g));
    float after[2], gback[2];
    CHECK(ct_tensor_to_host(p, after, sizeof after));
    CHECK(ct_tensor_to_host(g, gback, sizeof gback));
    int64_t steps = -1;
    CHECK(ct_optim_step_count(opt, 0, &steps));
    for (int i = 0; i < 2; i++)
        EXPECT(after[i] == pv[i] - 0.5f * gtrue[i] && gback[i] == gtrue[i],
               "p[%d] = %g, g[%d] = %g", i, after[i], i, gback[i]);
    EXPECT(steps == 1, "%lld steps", (long long)steps);
    printf(
        "[optim] scaled grads [8 -16] / 4: p = [%g %g], grads unscaled to [%g %g], steps = %lld\n",
        after[0], after[1], gback[0], gback[1], (long long)steps);
    /* found_inf nonzero: the step is skipped, parameters and the count stay. */
    float one = 1;
    ct_tensor *t1 = vec_f32(&one, 0, NULL);
    CHECK(ct_tensor_copy_(ctx, fi, t1));
    CHECK(ct_optim_step(opt, &g));
    float again[2];
    CHECK(ct_tensor_to_host(p, again, sizeof again));
    CHECK(ct_optim_step_count(opt, 0, &steps));
    EXPECT(memcmp(again, after, sizeof again) == 0 && steps == 1, "skipped step changed things");
    /* Error path: grad_scale must hold one float32 value. */
    ct_status st = ct_optim_set_grad_scaling(opt, p, NULL);
    EXPECT(st == CT_ERR_INVALID_ARG, "got %s", ct_status_str(st));
    printf("[optim] found_inf = 1: step skipped, steps = %lld; 2-element grad_scale -> %s: %s\n",
           (long long)steps, ct_status_str(st), ct_ctx_last_error(ctx));
    CHECK(ct_optim_set_grad_scaling(opt, NULL, NULL)); /* clear */
    ct_optim_free(opt);
    RELEASE(p, g, sc, fi, t1);
    return 0;
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    snprintf(dir, sizeof dir, "/tmp/ctorch_graph_export_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int rc = section_backends() || section_streams() || section_submit() || section_events() ||
             section_graph() || section_cond_loop() || section_export() || section_runtime() ||
             section_autograd() || section_optim();
    ct_graph_free(Gm);
    RELEASE(W, B, Xin, Yout);
    remove(dump), remove(prog_path);
    rmdir(dir);
    ct_ctx_free(ctx);
    if (!rc) printf("all checks passed\n");
    return rc;
}

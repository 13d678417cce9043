/* Program export and the embedded runtime: capture -> export -> run equals the captured graph's
 * replay bit for bit (f32 MLPs, MX weights, cond and while_loop), symbolic batch sizes against
 * eager at every size, the weights section as a standalone safetensors file, a golden v1 file,
 * spec errors, and hostile files (truncated, bit-flipped, mutated with valid checksums). */
#include "ctorch/ctorch.h"
#include "ctorch/export.h"
#include "ctorch/runtime.h"
#include "export/ctp_format.h"
#include "harness.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[256];

static void tmp_path(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "%s/%s", g_dir, name);
}

static ct_ctx *make_ctx(bool portable) {
    ct_ctx_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.portable_matmul = portable;
    ct_ctx *ctx = NULL;
    if (ct_ctx_create(&o, &ctx) != CT_OK) return NULL;
    return ctx;
}

static ct_tensor *rand_t(ct_ctx *ctx, unsigned long long *rng, int nd, const int64_t *shape) {
    return tu_make(ctx, rng, CT_FLOAT32, nd, shape, 0, -1.0, 1.0, NULL);
}

/* A spec of inputs, outputs and parameters (the rest zero). */
static ct_export_spec spec_of(int ni, const char *const *in_names, ct_tensor *const *ins, int no,
                              const char *const *out_names, ct_tensor *const *outs, int np,
                              const char *const *pn, ct_tensor *const *ps) {
    ct_export_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.size = sizeof sp;
    sp.n_inputs = ni, sp.input_names = in_names, sp.inputs = ins;
    sp.n_outputs = no, sp.output_names = out_names, sp.outputs = outs;
    sp.n_params = np, sp.param_names = pn, sp.params = ps;
    return sp;
}

/* ---- an MLP: log_softmax(relu(x W1^T + b1) W2^T + b2) ---- */
typedef struct {
    ct_tensor *w1, *b1, *w2, *b2;
} mlp;

static ct_status mlp_fwd(ct_ctx *ctx, const mlp *m, const ct_tensor *x, ct_tensor **y) {
    ct_tensor *h = NULL, *r = NULL, *z = NULL;
    ct_status st = ct_linear(ctx, x, m->w1, m->b1, &h);
    if (st == CT_OK) st = ct_relu(ctx, h, &r);
    if (st == CT_OK) st = ct_linear(ctx, r, m->w2, m->b2, &z);
    if (st == CT_OK) st = ct_log_softmax(ctx, z, 1, y);
    ct_tensor_release(h), ct_tensor_release(r), ct_tensor_release(z);
    return st;
}

static ct_status mlp_trace(ct_ctx *ctx, void *user, int n_in, ct_tensor *const *in, int n_out,
                           ct_tensor **out) {
    (void)n_in, (void)n_out;
    return mlp_fwd(ctx, user, in[0], &out[0]);
}

static mlp mlp_make(ct_ctx *ctx, unsigned long long *rng) {
    int64_t s1[2] = {32, 16}, s2[1] = {32}, s3[2] = {10, 32}, s4[1] = {10};
    mlp m = {rand_t(ctx, rng, 2, s1), rand_t(ctx, rng, 1, s2), rand_t(ctx, rng, 2, s3),
             rand_t(ctx, rng, 1, s4)};
    return m;
}
static void mlp_free(mlp *m) {
    ct_tensor_release(m->w1), ct_tensor_release(m->b1), ct_tensor_release(m->w2),
        ct_tensor_release(m->b2);
}

/* mlp_fwd(x) captured into a new graph (*y: its output). */
static ct_graph *capture_mlp(ct_ctx *ctx, const mlp *m, const ct_tensor *x, ct_tensor **y) {
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(mlp_fwd(ctx, m, x, y));
    CHECK_OK(ct_graph_capture_end(g));
    return g;
}

static bool same_bits_buf(const ct_tensor *t, const void *data, size_t n) {
    size_t nb = (size_t)ct_tensor_numel(t) * ct_dtype_size(ct_tensor_dtype(t));
    if (nb != n) return false;
    void *h = malloc(nb + 1);
    bool ok = ct_tensor_to_host(t, h, nb) == CT_OK && memcmp(h, data, nb) == 0;
    free(h);
    return ok;
}

/* Load path in the runtime (kernel set k), bind one f32 input, run, and compare output 0 with
 * want's bits. */
static bool rt_matches_with(const ct_rt_kernels *k, const char *path, const ct_tensor *x,
                            const ct_tensor *want, char *err, size_t errn) {
    size_t n;
    uint8_t *buf = tu_read_file(path, &n);
    if (!buf) return snprintf(err, errn, "cannot read %s", path), false;
    ct_rt_program *p = NULL;
    bool ok = ct_rt_load_with(k, buf, n, &p, err, errn) == CT_OK;
    void *arena = NULL;
    float *xin = NULL;
    if (ok) {
        size_t as = ct_rt_arena_size(p);
        arena = aligned_alloc(64, (as + 64) / 64 * 64);
        size_t xn = (size_t)ct_tensor_numel(x);
        xin = malloc(xn * 4 + 4);
        ok = ct_tensor_to_host(x, xin, xn * 4) == CT_OK &&
             ct_rt_set_input(p, 0, xin, ct_tensor_shape(x)) == CT_OK &&
             ct_rt_run(p, arena, as) == CT_OK;
        if (!ok) snprintf(err, errn, "run: %s", ct_rt_last_error(p));
    }
    if (ok) {
        const void *d;
        ct_dtype dt;
        int nd;
        const int64_t *sh, *str;
        ok = ct_rt_output(p, 0, &d, &dt, &nd, &sh, &str) == CT_OK && dt == CT_FLOAT32 &&
             nd == ct_tensor_ndim(want);
        int64_t e = 1;
        for (int k = nd - 1; ok && k >= 0; k--) { /* contiguous output */
            ok = sh[k] == ct_tensor_shape(want)[k] && (sh[k] == 1 || str[k] == e);
            e *= sh[k];
        }
        ok = ok && same_bits_buf(want, d, (size_t)e * 4);
        if (!ok) snprintf(err, errn, "the runtime's output differs");
    }
    ct_rt_free(p);
    free(arena);
    free(xin);
    free(buf);
    return ok;
}

static bool rt_matches(const char *path, const ct_tensor *x, const ct_tensor *want, char *err,
                       size_t errn) {
    return rt_matches_with(ct_rt_kernels_all(), path, x, want, err, errn);
}

/* The report's intermediate_bytes is the no-reuse arena (each slot rounded up to the 64-byte
 * alignment the planner places it at), so arena_bytes never exceeds it, for tiny buffers too
 * (three 8-byte intermediates need a 192-byte arena; the raw sum was 20). */
TEST(report_intermediates_aligned) {
    ct_ctx *ctx = make_ctx(0);
    CHECK(ctx);
    if (!ctx) return;
    float xv[2] = {1, 2};
    int64_t n = 2;
    ct_tensor *x = NULL, *a = NULL, *b = NULL, *y = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 1, &n, &x));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_neg(ctx, x, &a));
    CHECK_OK(ct_sum(ctx, a, 0, NULL, false, &b));
    CHECK_OK(ct_mul(ctx, a, b, &y));
    CHECK_OK(ct_graph_capture_end(g));
    char path[300];
    tmp_path(path, sizeof path, "tiny.ctp");
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y};
    ct_export_report rep = {sizeof rep, 0, 0, 0, 0, 0, 0, 0};
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 0, NULL, NULL);
    sp.report = &rep;
    CHECK_OK(ct_program_export(ctx, g, &sp, path));
    CHECK_MSG(rep.intermediates >= 2 && rep.intermediate_bytes % 64 == 0 &&
                  rep.intermediate_bytes >= 64 * (uint64_t)rep.intermediates &&
                  rep.arena_bytes > 0 && rep.arena_bytes <= rep.intermediate_bytes,
              "intermediates %lld, intermediate_bytes %llu, arena %llu",
              (long long)rep.intermediates, (unsigned long long)rep.intermediate_bytes,
              (unsigned long long)rep.arena_bytes);
    remove(path);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(y);
    ct_ctx_free(ctx);
}

TEST(mlp_roundtrip_bit_exact) {
    for (int portable = 0; portable < 2; portable++) {
        ct_ctx *ctx = make_ctx(portable);
        CHECK(ctx);
        if (!ctx) return;
        unsigned long long rng = 11;
        mlp m = mlp_make(ctx, &rng);
        int64_t xs[2] = {8, 16};
        ct_tensor *x = rand_t(ctx, &rng, 2, xs), *y = NULL;
        ct_graph *g = capture_mlp(ctx, &m, x, &y);
        CHECK_OK(ct_graph_replay(g));
        char path[300];
        tmp_path(path, sizeof path, "mlp.ctp");
        const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
        const char *pn[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
        ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[4] = {m.w1, m.b1, m.w2, m.b2};
        ct_export_report rep = {sizeof rep, 0, 0, 0, 0, 0, 0, 0};
        ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 4, pn, ps);
        sp.report = &rep;
        CHECK_OK(ct_program_export(ctx, g, &sp, path));
        CHECK(rep.instructions >= 5 && rep.arena_bytes > 0 &&
              rep.arena_bytes <= rep.intermediate_bytes && rep.weights == 4);
        /* several inputs through the same graph and program */
        ct_program *prog = NULL;
        CHECK_OK(ct_program_load(ctx, path, &prog));
        if (!prog) printf("  %s\n", ct_ctx_last_error(ctx));
        CHECK(prog && ct_program_num_inputs(prog) == 1 &&
              strcmp(ct_program_input_name(prog, 0), "x") == 0 &&
              strcmp(ct_program_output_name(prog, 0), "y") == 0);
        for (int it = 0; it < 3 && prog; it++) {
            ct_tensor *xn = rand_t(ctx, &rng, 2, xs);
            CHECK_OK(ct_tensor_copy_(ctx, x, xn));
            CHECK_OK(ct_graph_replay(g));
            ct_tensor *py = NULL;
            const ct_tensor *pin[1] = {xn};
            CHECK_OK(ct_program_run(prog, 1, pin, 1, &py));
            CHECK_MSG(py && tu_same_values(py, y), "ct_program_run differs from replay (%d)", it);
            char err[320] = "";
            if (portable) { /* the runtime has no BLAS: exact against the portable matmul */
                CHECK_MSG(rt_matches(path, xn, y, err, sizeof err), "%s", err);
                CHECK_MSG(rt_matches_with(ct_rt_kernels_mlp(), path, xn, y, err, sizeof err),
                          "small kernel set: %s", err);
            }
            ct_tensor_release(py);
            ct_tensor_release(xn);
        }
        ct_program_free(prog);
        ct_graph_free(g);
        ct_tensor_release(x), ct_tensor_release(y);
        mlp_free(&m);
        ct_ctx_free(ctx);
    }
}

/* ---- MX weights ---- */
typedef struct {
    ct_mx_tensor *w1, *w2;
    ct_tensor *b1;
} mxnet;
static ct_status mx_fwd(ct_ctx *ctx, const mxnet *n, const ct_tensor *x, ct_tensor **y) {
    ct_tensor *h = NULL, *r = NULL;
    ct_status st = ct_mx_linear(ctx, x, n->w1, n->b1, &h);
    if (st == CT_OK) st = ct_gelu(ctx, h, CT_GELU_TANH, &r);
    if (st == CT_OK) st = ct_mx_linear(ctx, r, n->w2, NULL, y);
    ct_tensor_release(h), ct_tensor_release(r);
    return st;
}

TEST(mx_weights_roundtrip_bit_exact) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 5;
    const ct_mx_format fmts[3][2] = {
        {CT_MXFP4_E2M1, CT_MXFP8_E4M3}, {CT_MXFP6_E2M3, CT_MXINT8}, {CT_MXFP6_E3M2, CT_MXFP8_E5M2}};
    for (int f = 0; f < 3; f++) {
        int64_t s1[2] = {48, 64}, s2[2] = {24, 48}, sb[1] = {48}, xs[2] = {5, 64};
        ct_tensor *d1 = rand_t(ctx, &rng, 2, s1), *d2 = rand_t(ctx, &rng, 2, s2);
        mxnet n = {NULL, NULL, rand_t(ctx, &rng, 1, sb)};
        CHECK_OK(ct_mx_quantize(ctx, d1, fmts[f][0], 32, 1, CT_MX_SCALE_FLOOR, &n.w1));
        CHECK_OK(ct_mx_quantize(ctx, d2, fmts[f][1], 32, 1, CT_MX_SCALE_RCEIL, &n.w2));
        ct_tensor *x = rand_t(ctx, &rng, 2, xs), *y = NULL;
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        CHECK_OK(mx_fwd(ctx, &n, x, &y));
        CHECK_OK(ct_graph_capture_end(g));
        CHECK_OK(ct_graph_replay(g));
        char path[300];
        tmp_path(path, sizeof path, "mx.ctp");
        const char *in_names[1] = {"x"}, *out_names[1] = {"y"}, *pn[1] = {"fc1.bias"};
        const char *mn[2] = {"fc1.weight", "fc2.weight"};
        ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[1] = {n.b1};
        ct_mx_tensor *mps[2] = {n.w1, n.w2};
        ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 1, pn, ps);
        sp.n_mx_params = 2, sp.mx_param_names = mn, sp.mx_params = mps;
        CHECK_OK(ct_program_export(ctx, g, &sp, path));
        char err[320] = "";
        CHECK_MSG(rt_matches(path, x, y, err, sizeof err), "format pair %d: %s", f, err);
        /* the small kernel set has no MX kernels: refused at load, naming the op */
        CHECK(!rt_matches_with(ct_rt_kernels_mlp(), path, x, y, err, sizeof err) &&
              strstr(err, "MX_LINEAR") && strstr(err, "'mlp'"));
        /* the weights section is a safetensors file: element tensors, E8M0 scales, pairing */
        size_t fn;
        uint8_t *fb = tu_read_file(path, &fn);
        CHECK(fb != NULL);
        if (fb) {
            uint64_t woff = ctp_get_u64(fb + CTP_HEADER_BYTES + CTP_SECTION_BYTES + 8);
            uint64_t wsz = ctp_get_u64(fb + CTP_HEADER_BYTES + CTP_SECTION_BYTES + 16);
            ct_safetensors *st = NULL;
            CHECK_OK(ct_safetensors_load_buffer(ctx, fb + woff, (size_t)wsz, &st));
            int real = 0; /* the five tensors, and U8 "__pad.N" ones aligning each to 64 bytes */
            for (int i = 0; i < ct_safetensors_count(st); i++)
                real += strncmp(ct_safetensors_name(st, i), "__pad.", 6) != 0;
            CHECK(real == 5);
            for (int i = 0; real != 5 && i < ct_safetensors_count(st); i++)
                printf("  tensor %s\n", ct_safetensors_name(st, i));
            const char *meta = ct_safetensors_metadata(st, "mx:fc1.weight");
            CHECK_MSG(meta && strstr(meta, "scales=fc1.weight.scales") &&
                          strstr(meta, ct_mx_format_name(fmts[f][0])),
                      "metadata %s", meta ? meta : "(none)");
            ct_tensor *el = NULL, *sc = NULL;
            CHECK_OK(ct_safetensors_get(st, "fc1.weight", &el));
            CHECK_OK(ct_safetensors_get(st, "fc1.weight.scales", &sc));
            CHECK(sc && ct_tensor_dtype(sc) == CT_FLOAT8_E8M0FNU);
            CHECK(sc && tu_same_values(sc, ct_mx_scales(n.w1)));
            if (el) { /* element codes, one per byte, equal to the MX tensor's */
                CHECK(ct_tensor_shape(el)[0] == 48 && ct_tensor_shape(el)[1] == 64);
                uint8_t e[48 * 64], c[48 * 64];
                const ct_tensor *codes = ct_mx_codes(n.w1);
                size_t cb = (size_t)ct_tensor_numel(codes);
                CHECK_OK(ct_tensor_to_host(el, e, sizeof e));
                CHECK_OK(ct_tensor_to_host(codes, c, cb));
                bool same = true;
                for (int64_t i = 0; i < 48 * 64; i++) {
                    uint8_t want = fmts[f][0] == CT_MXFP4_E2M1
                                       ? (uint8_t)(c[i / 2] >> (4 * (i & 1)) & 15)
                                       : c[i];
                    same = same && e[i] == want;
                }
                CHECK_MSG(same, "element codes of format pair %d", f);
            }
            ct_tensor_release(el), ct_tensor_release(sc);
            ct_safetensors_free(st);
            free(fb);
        }
        ct_graph_free(g);
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(d1), ct_tensor_release(d2);
        ct_tensor_release(n.b1);
        ct_mx_tensor_free(n.w1), ct_mx_tensor_free(n.w2);
    }
    ct_ctx_free(ctx);
}

/* ---- 2:4 sparse weights (f32, bf16 and FP8 values) ---- */
TEST(sparse24_weights_roundtrip_bit_exact) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 13;
    const ct_dtype vdt[3] = {CT_FLOAT32, CT_BFLOAT16, CT_FLOAT8_E4M3FN};
    for (int f = 0; f < 3; f++) {
        int64_t ws[2] = {24, 64}, bs[1] = {24}, xs[2] = {6, 64};
        ct_tensor *d = rand_t(ctx, &rng, 2, ws), *b = rand_t(ctx, &rng, 1, bs);
        ct_tensor *x = rand_t(ctx, &rng, 2, xs), *h = NULL, *y = NULL;
        ct_sparse24 *w = NULL;
        CHECK_OK(ct_sparse24_prune(ctx, d, vdt[f], &w));
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        CHECK_OK(ct_sparse24_linear(ctx, x, w, b, &h));
        CHECK_OK(ct_relu(ctx, h, &y));
        CHECK_OK(ct_graph_capture_end(g));
        CHECK_OK(ct_graph_replay(g));
        char path[300];
        tmp_path(path, sizeof path, "sparse.ctp");
        const char *in_names[1] = {"x"}, *out_names[1] = {"y"}, *pn[1] = {"fc.bias"};
        const char *sn[1] = {"fc.weight"};
        ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[1] = {b};
        ct_sparse24 *sps[1] = {w};
        ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 1, pn, ps);
        sp.n_sparse_params = 1, sp.sparse_param_names = sn, sp.sparse_params = sps;
        CHECK_OK(ct_program_export(ctx, g, &sp, path));
        char err[320] = "";
        CHECK_MSG(rt_matches(path, x, y, err, sizeof err), "values %s: %s", ct_dtype_name(vdt[f]),
                  err);
        ct_program *prog = NULL;
        CHECK_OK(ct_program_load(ctx, path, &prog));
        const void *wd = NULL;
        size_t wn = 0;
        CHECK_OK(ct_program_weights(prog, &wd, &wn));
        ct_safetensors *st = NULL;
        CHECK_OK(ct_safetensors_load_buffer(ctx, wd, wn, &st));
        const char *meta = ct_safetensors_metadata(st, "sparse24:fc.weight");
        CHECK_MSG(meta && strstr(meta, "shape=24,64") && strstr(meta, "meta=fc.weight.meta"), "%s",
                  meta ? meta : "(no metadata)");
        ct_tensor *vals = NULL;
        CHECK_OK(ct_safetensors_get(st, "fc.weight", &vals));
        CHECK(vals && ct_tensor_dtype(vals) == vdt[f] &&
              tu_same_values(vals, ct_sparse24_values(w)));
        ct_tensor_release(vals);
        ct_safetensors_free(st);
        ct_program_free(prog);
        ct_graph_free(g);
        ct_sparse24_free(w);
        ct_tensor_release(d), ct_tensor_release(b), ct_tensor_release(x), ct_tensor_release(h),
            ct_tensor_release(y);
    }
    ct_ctx_free(ctx);
}

/* ---- cond and while_loop ---- */
static ct_status br_true(ct_ctx *ctx, void *u, int n, ct_tensor *const *ops, int no,
                         ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    return ct_tanh(ctx, ops[0], &outs[0]);
}
static ct_status br_false(ct_ctx *ctx, void *u, int n, ct_tensor *const *ops, int no,
                          ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    return ct_mul_scalar(ctx, ops[0], -3.0, &outs[0]);
}
static ct_status lp_cond(ct_ctx *ctx, void *u, int n, ct_tensor *const *c, ct_tensor **pred) {
    (void)u, (void)n;
    ct_tensor *s = NULL;
    ct_status st = ct_sum(ctx, c[0], 0, NULL, false, &s);
    if (st == CT_OK) st = ct_lt_scalar(ctx, s, 50.0, pred);
    ct_tensor_release(s);
    return st;
}
static ct_status lp_body(ct_ctx *ctx, void *u, int n, ct_tensor *const *c, ct_tensor **next) {
    (void)u, (void)n;
    return ct_add_scalar(ctx, c[0], 1.5, &next[0]);
}
static ct_status cond_model(ct_ctx *ctx, const ct_tensor *x, ct_tensor **y) {
    ct_tensor *s = NULL, *p = NULL, *c = NULL, *ops[1] = {(ct_tensor *)x};
    ct_status st = ct_sum(ctx, x, 0, NULL, false, &s);
    if (st == CT_OK) st = ct_gt_scalar(ctx, s, 0.0, &p);
    if (st == CT_OK) st = ct_cond(ctx, p, br_true, br_false, NULL, 1, ops, 1, &c);
    ct_tensor *carried[1] = {c};
    if (st == CT_OK) st = ct_while_loop(ctx, lp_cond, lp_body, NULL, 1, carried, y);
    ct_tensor_release(s), ct_tensor_release(p), ct_tensor_release(c);
    return st;
}

TEST(cond_and_loop_roundtrip) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 3;
    int64_t xs[1] = {7};
    ct_tensor *x = rand_t(ctx, &rng, 1, xs), *y = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(cond_model(ctx, x, &y));
    CHECK_OK(ct_graph_capture_end(g));
    char path[300];
    tmp_path(path, sizeof path, "cond.ctp");
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y};
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 0, NULL, NULL);
    CHECK_OK(ct_program_export(ctx, g, &sp, path));
    for (int it = 0; it < 6; it++) { /* inputs that take each branch, loops of several lengths */
        float v[7];
        for (int i = 0; i < 7; i++)
            v[i] = (float)((it & 1) ? 0.5 + 0.25 * i * it : -0.5 - 0.1 * i * it);
        ct_tensor *xn = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 1, xs, &xn));
        CHECK_OK(ct_tensor_copy_(ctx, x, xn));
        CHECK_OK(ct_graph_replay(g));
        ct_tensor *e = NULL; /* eager, an independent path */
        CHECK_OK(cond_model(ctx, xn, &e));
        CHECK(tu_same_values(e, y));
        char err[320] = "";
        CHECK_MSG(rt_matches(path, xn, y, err, sizeof err), "input %d: %s", it, err);
        ct_tensor_release(e), ct_tensor_release(xn);
    }
    { /* the watchdog stops a loop that runs longer than the step limit */
        size_t n;
        uint8_t *buf = tu_read_file(path, &n);
        ct_rt_program *p = NULL;
        char err[320];
        CHECK_OK(ct_rt_load(buf, n, &p, err, sizeof err));
        float v[7] = {-1, -1, -1, -1, -1, -1, -1}; /* about 11 iterations of the body */
        void *arena = aligned_alloc(64, (ct_rt_arena_size(p) + 64) / 64 * 64);
        CHECK_OK(ct_rt_set_input(p, 0, v, xs));
        CHECK_OK(ct_rt_set_max_steps(p, 12));
        CHECK_ST(ct_rt_run(p, arena, ct_rt_arena_size(p)), CT_ERR_TIMEOUT);
        CHECK(strstr(ct_rt_last_error(p), "12 instructions"));
        CHECK_OK(ct_rt_set_max_steps(p, 0));
        CHECK_OK(ct_rt_run(p, arena, ct_rt_arena_size(p)));
        free(arena);
        ct_rt_free(p);
        free(buf);
    }
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y);
    ct_ctx_free(ctx);
}

/* ---- a symbolic batch ---- */
TEST(symbolic_batch_runs_every_size) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 21;
    mlp m = mlp_make(ctx, &rng);
    int64_t xs[2] = {8, 16};
    ct_tensor *x = rand_t(ctx, &rng, 2, xs), *y = NULL;
    ct_graph *g = capture_mlp(ctx, &m, x, &y);
    char path[300];
    tmp_path(path, sizeof path, "dyn.ctp");
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    const char *pn[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[4] = {m.w1, m.b1, m.w2, m.b2};
    ct_export_dim dim = {"batch", 0, 0, 1, 64};
    ct_export_report rep = {sizeof rep, 0, 0, 0, 0, 0, 0, 0};
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 4, pn, ps);
    sp.n_dims = 1;
    sp.dims = &dim;
    sp.trace = mlp_trace;
    sp.trace_user = &m;
    sp.report = &rep;
    CHECK_OK(ct_program_export(ctx, g, &sp, path));
    size_t n;
    uint8_t *buf = tu_read_file(path, &n);
    ct_rt_program *p = NULL;
    char err[320] = "";
    CHECK_MSG(buf && ct_rt_load(buf, n, &p, err, sizeof err) == CT_OK, "%s", err);
    int64_t lo = 0, hi = 0;
    CHECK_OK(ct_rt_input_range(p, 0, 0, &lo, &hi));
    CHECK(lo == 1 && hi == 64);
    size_t as = ct_rt_arena_size(p);
    CHECK(as == rep.arena_bytes);
    void *arena = aligned_alloc(64, (as + 64) / 64 * 64);
    float *xin = malloc(64 * 16 * 4);
    int bad = 0;
    for (int64_t b = 1; b <= 64 && p; b++) {
        int64_t s[2] = {b, 16};
        ct_tensor *xb = rand_t(ctx, &rng, 2, s), *e = NULL;
        CHECK_OK(mlp_fwd(ctx, &m, xb, &e)); /* eager at this size */
        CHECK_OK(ct_tensor_to_host(xb, xin, (size_t)b * 64));
        CHECK_OK(ct_rt_set_input(p, 0, xin, s));
        ct_status st = ct_rt_run(p, arena, as);
        const void *d = NULL;
        const int64_t *sh = NULL;
        if (st == CT_OK) ct_rt_output(p, 0, &d, NULL, NULL, &sh, NULL);
        if (st != CT_OK || sh[0] != b || !same_bits_buf(e, d, (size_t)b * 40)) {
            if (bad++ < 3)
                printf("  batch %lld: %s\n", (long long)b,
                       st != CT_OK ? ct_rt_last_error(p) : "differs from eager");
        }
        ct_tensor_release(xb), ct_tensor_release(e);
    }
    CHECK(bad == 0);
    int64_t s65[2] = {65, 16}, s0[2] = {0, 16}, s8w[2] = {8, 15};
    float *big = calloc(65 * 16, 4);
    CHECK_OK(ct_rt_set_input(p, 0, big, s65));
    CHECK_ST(ct_rt_run(p, arena, as), CT_ERR_SHAPE);
    CHECK_MSG(strstr(ct_rt_last_error(p), "batch") && strstr(ct_rt_last_error(p), "[1, 64]"), "%s",
              ct_rt_last_error(p));
    CHECK_OK(ct_rt_set_input(p, 0, big, s0));
    CHECK_ST(ct_rt_run(p, arena, as), CT_ERR_SHAPE);
    CHECK_OK(ct_rt_set_input(p, 0, big, s8w));
    CHECK_ST(ct_rt_run(p, arena, as), CT_ERR_SHAPE);
    CHECK_ST(ct_rt_run(p, arena, as - 64 >= as ? 0 : as - 64), CT_ERR_OOM);
    free(big);
    free(xin);
    free(arena);
    ct_rt_free(p);
    free(buf);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y);
    mlp_free(&m);
    ct_ctx_free(ctx);
}

/* MX weights with a symbolic batch: one program, every batch in range equal to eager */
static ct_status mx_trace(ct_ctx *ctx, void *user, int n_in, ct_tensor *const *in, int n_out,
                          ct_tensor **out) {
    (void)n_in, (void)n_out;
    return mx_fwd(ctx, user, in[0], &out[0]);
}

TEST(symbolic_batch_with_mx_weights) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 31;
    int64_t s1[2] = {40, 64}, s2[2] = {12, 40}, sb[1] = {40}, xs[2] = {6, 64};
    ct_tensor *d1 = rand_t(ctx, &rng, 2, s1), *d2 = rand_t(ctx, &rng, 2, s2);
    mxnet n = {NULL, NULL, rand_t(ctx, &rng, 1, sb)};
    CHECK_OK(ct_mx_quantize(ctx, d1, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_RCEIL, &n.w1));
    CHECK_OK(ct_mx_quantize(ctx, d2, CT_MXFP8_E4M3, 32, 1, CT_MX_SCALE_RCEIL, &n.w2));
    ct_tensor *x = rand_t(ctx, &rng, 2, xs), *y = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(mx_fwd(ctx, &n, x, &y));
    CHECK_OK(ct_graph_capture_end(g));
    char path[300];
    tmp_path(path, sizeof path, "mxdyn.ctp");
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"}, *pn[1] = {"b1"}, *mn[2] = {"w1", "w2"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[1] = {n.b1};
    ct_mx_tensor *mps[2] = {n.w1, n.w2};
    ct_export_dim dim = {"batch", 0, 0, 1, 33};
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 1, pn, ps);
    sp.n_mx_params = 2, sp.mx_param_names = mn, sp.mx_params = mps;
    sp.n_dims = 1, sp.dims = &dim, sp.trace = mx_trace, sp.trace_user = &n;
    CHECK_OK(ct_program_export(ctx, g, &sp, path));
    for (int64_t b = 1; b <= 33; b += 4) {
        int64_t s[2] = {b, 64};
        ct_tensor *xb = rand_t(ctx, &rng, 2, s), *e = NULL;
        CHECK_OK(mx_fwd(ctx, &n, xb, &e));
        char err[320] = "";
        CHECK_MSG(rt_matches(path, xb, e, err, sizeof err), "batch %lld: %s", (long long)b, err);
        ct_tensor_release(xb), ct_tensor_release(e);
    }
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(d1), ct_tensor_release(d2),
        ct_tensor_release(n.b1);
    ct_mx_tensor_free(n.w1), ct_mx_tensor_free(n.w2);
    ct_ctx_free(ctx);
}

/* ---- export errors ---- */
static ct_status eigh_model(ct_ctx *ctx, const ct_tensor *a, ct_tensor **w) {
    return ct_linalg_eigvalsh(ctx, a, 'L', w);
}

TEST(export_refuses_bad_specs_and_graphs) {
    ct_ctx *ctx = make_ctx(false);
    unsigned long long rng = 9;
    int64_t xs[2] = {4, 4};
    ct_tensor *x = rand_t(ctx, &rng, 2, xs), *y = NULL;
    ct_graph *g = NULL;
    char path[300];
    tmp_path(path, sizeof path, "bad.ctp");
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    ct_tensor *ins[1] = {x}, *outs[1] = {NULL};
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 0, NULL, NULL);
    CHECK_ST(ct_program_export(ctx, g, &sp, path), CT_ERR_INVALID_ARG); /* outputs[0] NULL */
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_relu(ctx, x, &y));
    outs[0] = y;
    CHECK_ST(ct_program_export(ctx, g, &sp, path), CT_ERR_STATE); /* still capturing */
    CHECK_OK(ct_graph_capture_end(g));                            /* the capture is intact */
    CHECK_ST(ct_program_export(ctx, g, NULL, path), CT_ERR_INVALID_ARG);
    ct_export_spec s2 = sp;
    s2.size = 8;
    CHECK_ST(ct_program_export(ctx, g, &s2, path), CT_ERR_INVALID_ARG);
    const char *dup[1] = {""};
    s2 = sp;
    s2.input_names = dup;
    CHECK_ST(ct_program_export(ctx, g, &s2, path), CT_ERR_INVALID_ARG);
    ct_export_dim dm = {"batch", 0, 5, 1, 8}; /* dim 5 of a 2-d input */
    s2 = sp;
    s2.n_dims = 1, s2.dims = &dm, s2.trace = mlp_trace;
    CHECK_ST(ct_program_export(ctx, g, &s2, path), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "dims[0]"));
    CHECK(access(path, F_OK) != 0); /* nothing written */
    CHECK_OK(ct_program_export(ctx, g, &sp, path));
    ct_graph_free(g);
    ct_tensor_release(y);
    /* an op the runtime lacks */
    int64_t as[2] = {3, 3};
    ct_tensor *a = rand_t(ctx, &rng, 2, as), *w = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(eigh_model(ctx, a, &w));
    CHECK_OK(ct_graph_capture_end(g));
    ins[0] = a, outs[0] = w;
    CHECK_ST(ct_program_export(ctx, g, &sp, path), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "EIGH"));
    ct_graph_free(g);
    ct_tensor_release(w);
    /* a graph that writes its input */
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_add_scalar_(ctx, a, 1.0));
    CHECK_OK(ct_tanh(ctx, a, &w));
    CHECK_OK(ct_graph_capture_end(g));
    outs[0] = w;
    CHECK_ST(ct_program_export(ctx, g, &sp, path), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "writes input 'x'"));
    ct_graph_free(g);
    ct_tensor_release(w), ct_tensor_release(a), ct_tensor_release(x);
    ct_ctx_free(ctx);
}

/* ---- hostile files ---- */

static void try_run(ct_rt_program *p) {
    static float in[64 * 16];
    int64_t s[CT_MAX_DIMS];
    for (int i = 0; i < ct_rt_num_inputs(p); i++) {
        for (int d = 0; d < ct_rt_input_ndim(p, i); d++) {
            int64_t lo, hi;
            ct_rt_input_range(p, i, d, &lo, &hi);
            s[d] = lo;
        }
        ct_rt_set_input(p, i, in, s);
    }
    ct_rt_set_max_steps(p, 100000);
    size_t as = ct_rt_arena_size(p);
    if (as > (64u << 20)) return;
    void *arena = aligned_alloc(64, (as + 64) / 64 * 64);
    ct_rt_run(p, arena, as);
    free(arena);
}

TEST(hostile_files_fail_cleanly) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 4;
    mlp m = mlp_make(ctx, &rng);
    int64_t xs[2] = {2, 16};
    ct_tensor *x = rand_t(ctx, &rng, 2, xs), *y = NULL;
    ct_graph *g = capture_mlp(ctx, &m, x, &y);
    char path[300];
    tmp_path(path, sizeof path, "hostile.ctp");
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    const char *pn[4] = {"a", "b", "c", "d"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[4] = {m.w1, m.b1, m.w2, m.b2};
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 4, pn, ps);
    CHECK_OK(ct_program_export(ctx, g, &sp, path));
    size_t n;
    uint8_t *good = tu_read_file(path, &n);
    uint8_t *f = aligned_alloc(64, (n + 64) / 64 * 64);
    CHECK(good && f);
    ct_rt_program *p = NULL;
    char err[320];
    /* truncations */
    int fails = 0;
    for (size_t len = 0; len < n; len += (len < 256 ? 1 : 97)) {
        memcpy(f, good, len);
        ct_status st = ct_rt_load(f, len, &p, err, sizeof err);
        fails += st == CT_ERR_FORMAT;
        CHECK(p == NULL && err[0]);
    }
    CHECK(fails > 0);
    /* single bit flips: the checksums catch every one */
    for (int i = 0; i < 400; i++) {
        memcpy(f, good, n);
        size_t at = (size_t)(tu_rand_val(&rng, CT_FLOAT64, 0, 1) * (double)n) % n;
        f[at] ^= (uint8_t)(1u << (i & 7));
        ct_status st = ct_rt_load(f, n, &p, err, sizeof err);
        CHECK_MSG(st == CT_ERR_FORMAT || st == CT_ERR_UNSUPPORTED, "flip at %zu loaded (%d)", at,
                  (int)st);
        ct_rt_free(p);
        p = NULL;
    }
    /* mutations of the program section with valid checksums: load or refuse, never crash */
    uint64_t poff = ctp_get_u64(good + CTP_HEADER_BYTES + 8),
             psz = ctp_get_u64(good + CTP_HEADER_BYTES + 16);
    int loaded = 0, refused = 0;
    for (int i = 0; i < 3000; i++) {
        memcpy(f, good, n);
        int k = 1 + i % 4;
        for (int j = 0; j < k; j++) {
            size_t at =
                (size_t)poff + (size_t)(tu_rand_val(&rng, CT_FLOAT64, 0, 1) * (double)psz) % psz;
            uint8_t v = (uint8_t)(tu_rand_val(&rng, CT_FLOAT64, 0, 256));
            f[at] = (i & 8) ? v : (uint8_t)(f[at] ^ (1u << (j & 7)));
        }
        ctp_fix_checksums(f, n);
        ct_status st = ct_rt_load(f, n, &p, err, sizeof err);
        if (st == CT_OK) {
            loaded++;
            try_run(p);
            ct_rt_free(p);
            p = NULL;
        } else {
            refused++;
            CHECK_MSG(st == CT_ERR_FORMAT || st == CT_ERR_UNSUPPORTED || st == CT_ERR_OOM,
                      "status %d: %s", (int)st, err);
        }
    }
    printf("  mutations: %d refused, %d loaded and ran\n", refused, loaded);
    CHECK(refused > 0);
    /* oversized: bytes appended, or a header claiming more than there is */
    {
        uint8_t *big = aligned_alloc(64, (n + 4096 + 64) / 64 * 64);
        memcpy(big, good, n);
        memset(big + n, 0, 4096);
        CHECK_ST(ct_rt_load(big, n + 4096, &p, err, sizeof err), CT_ERR_FORMAT);
        CHECK(strstr(err, "file_size"));
        ctp_fix_checksums(big, n + 4096); /* consistent header, zero tail outside any section */
        CHECK_ST(ct_rt_load(big, n + 4096, &p, err, sizeof err), CT_OK);
        ct_rt_free(p);
        p = NULL;
        memcpy(big, good, n);
        ctp_put_u64(big + CTP_HEADER_BYTES + 16, (uint64_t)1 << 62); /* the program's size */
        ctp_fix_checksums(big, n);
        CHECK_ST(ct_rt_load(big, n, &p, err, sizeof err), CT_ERR_FORMAT);
        CHECK(strstr(err, "section 0"));
        free(big);
    }
    /* a newer version is refused as such; misaligned buffers too */
    memcpy(f, good, n);
    ctp_put_u32(f + 8, 2);
    ctp_fix_checksums(f, n);
    CHECK_ST(ct_rt_load(f, n, &p, err, sizeof err), CT_ERR_UNSUPPORTED);
    CHECK(strstr(err, "version"));
    memcpy(f, good, n);
    CHECK_ST(ct_rt_load(f + 1, n - 1, &p, err, sizeof err), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_program_load(ctx, "/nonexistent/x.ctp", (ct_program **)&p), CT_ERR_IO);
    free(f);
    free(good);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y);
    mlp_free(&m);
    ct_ctx_free(ctx);
}

/* ---- the golden v1 file: y = relu(x W^T + b), exact small numbers ---- */
static const float golden_w[3][4] = {{1, 2, -1, 0.5f}, {-2, 0.25f, 3, 1}, {0, -1, 1, -4}};
static const float golden_b[3] = {0.5f, -1, 2};

static void golden_write(const char *path) {
    ct_ctx *ctx = make_ctx(true);
    int64_t ws[2] = {3, 4}, bs[1] = {3}, xs[2] = {2, 4};
    ct_tensor *w = NULL, *b = NULL, *x = NULL, *h = NULL, *y = NULL;
    ct_tensor_from_host(ctx, golden_w, CT_FLOAT32, 2, ws, &w);
    ct_tensor_from_host(ctx, golden_b, CT_FLOAT32, 1, bs, &b);
    ct_tensor_zeros(ctx, CT_FLOAT32, 2, xs, &x);
    ct_graph *g = NULL;
    ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g);
    ct_graph_capture_begin(g, NULL);
    ct_linear(ctx, x, w, b, &h);
    ct_relu(ctx, h, &y);
    ct_graph_capture_end(g);
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"}, *pn[2] = {"weight", "bias"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[2] = {w, b};
    ct_export_spec sp = spec_of(1, in_names, ins, 1, out_names, outs, 2, pn, ps);
    printf("golden: %s\n", ct_status_str(ct_program_export(ctx, g, &sp, path)));
    ct_graph_free(g);
    ct_tensor_release(w), ct_tensor_release(b), ct_tensor_release(x), ct_tensor_release(h),
        ct_tensor_release(y);
    ct_ctx_free(ctx);
}

TEST(golden_v1_file_still_runs) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/golden_v1.ctp", CT_SOURCE_DIR);
    size_t n;
    uint8_t *buf = tu_read_file(path, &n);
    CHECK_MSG(buf, "missing %s", path);
    if (!buf) return;
    CHECK(ctp_get_u32(buf + 8) == 1);
    ct_rt_program *p = NULL;
    char err[320] = "";
    CHECK_MSG(ct_rt_load(buf, n, &p, err, sizeof err) == CT_OK, "%s", err);
    if (p) {
        const float x[2][4] = {{1, -1, 2, 0.5f}, {-3, 4, 0.25f, -1}};
        int64_t xs[2] = {2, 4};
        void *arena = aligned_alloc(64, (ct_rt_arena_size(p) + 64) / 64 * 64);
        CHECK_OK(ct_rt_set_input(p, ct_rt_find_input(p, "x"), x, xs));
        CHECK_OK(ct_rt_run(p, arena, ct_rt_arena_size(p)));
        const void *d;
        CHECK_OK(ct_rt_output(p, ct_rt_find_output(p, "y"), &d, NULL, NULL, NULL, NULL));
        const float *y = d;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++) { /* small dyadic numbers: every order of sums is exact */
                float acc = golden_b[j];
                for (int k = 0; k < 4; k++)
                    acc += x[i][k] * golden_w[j][k];
                float want = acc > 0 ? acc : 0;
                CHECK_MSG(y[i * 3 + j] == want, "y[%d][%d] = %g, want %g", i, j, y[i * 3 + j],
                          want);
            }
        free(arena);
    }
    ct_rt_free(p);
    free(buf);
}

/* The BLAS-free matmul (the runtime's, and the library's with portable_matmul) is exactly the sum
 * over k in order of the products in double, rounded once: checked against that loop written
 * here, for plain and transposed b, odd sizes, on this CPU's ISA (the suite also runs capped to
 * avx2 and ref). */
TEST(portable_matmul_is_the_exact_double_sum) {
    ct_ctx *ctx = make_ctx(true);
    unsigned long long rng = 77;
    const int64_t dims[][3] = {{1, 1, 1}, {5, 7, 33}, {17, 300, 19}, {4, 513, 16}, {9, 260, 48}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int trans = 0; trans < 2; trans++) {
            const int64_t M = dims[t][0], K = dims[t][1], N = dims[t][2];
            int64_t sa[2] = {M, K}, sb[2] = {K, N}, sbt[2] = {N, K};
            ct_tensor *a = rand_t(ctx, &rng, 2, sa), *bs = rand_t(ctx, &rng, 2, trans ? sbt : sb);
            ct_tensor *b = NULL, *c = NULL;
            if (trans)
                CHECK_OK(ct_tensor_transpose(ctx, bs, 0, 1, &b));
            else
                b = ct_tensor_retain(bs);
            CHECK_OK(ct_matmul(ctx, a, b, &c));
            float *av = malloc((size_t)(M * K) * 4), *bv = malloc((size_t)(K * N) * 4),
                  *cv = malloc((size_t)(M * N) * 4);
            ct_tensor *bc = NULL;
            CHECK_OK(ct_tensor_contiguous(ctx, b, &bc));
            CHECK_OK(ct_tensor_to_host(a, av, (size_t)(M * K) * 4));
            CHECK_OK(ct_tensor_to_host(bc, bv, (size_t)(K * N) * 4));
            CHECK_OK(ct_tensor_to_host(c, cv, (size_t)(M * N) * 4));
            int bad = 0;
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double acc = 0;
                    for (int64_t k = 0; k < K; k++)
                        acc += (double)av[i * K + k] * (double)bv[k * N + j];
                    bad += cv[i * N + j] != (float)acc;
                }
            CHECK_MSG(bad == 0, "%lldx%lldx%lld trans %d: %d elements differ", (long long)M,
                      (long long)K, (long long)N, trans, bad);
            free(av), free(bv), free(cv);
            ct_tensor_release(a), ct_tensor_release(bs), ct_tensor_release(b), ct_tensor_release(c),
                ct_tensor_release(bc);
        }
    ct_ctx_free(ctx);
}

int main(int argc, char **argv) {
    const char *tmp = getenv("TMPDIR");
    bool keep = argc == 3 && strcmp(argv[1], "--keep") == 0; /* the programs stay in argv[2] */
    snprintf(g_dir, sizeof g_dir, "%s/ctorch_export_XXXXXX", tmp ? tmp : "/tmp");
    if (keep) snprintf(g_dir, sizeof g_dir, "%s", argv[2]);
    if (!keep && !mkdtemp(g_dir)) {
        printf("cannot make a temporary directory\n0 passed, 1 failed\n");
        return 1;
    }
    if (argc == 3 && strcmp(argv[1], "--write-golden") == 0) {
        golden_write(argv[2]);
        return 0;
    }
    RUN(report_intermediates_aligned);
    RUN(mlp_roundtrip_bit_exact);
    RUN(mx_weights_roundtrip_bit_exact);
    RUN(sparse24_weights_roundtrip_bit_exact);
    RUN(cond_and_loop_roundtrip);
    RUN(symbolic_batch_runs_every_size);
    RUN(symbolic_batch_with_mx_weights);
    RUN(export_refuses_bad_specs_and_graphs);
    RUN(hostile_files_fail_cleanly);
    RUN(golden_v1_file_still_runs);
    RUN(portable_matmul_is_the_exact_double_sum);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (!keep && system(cmd) != 0) printf("  (could not remove %s)\n", g_dir);
    return ct_test_end();
}

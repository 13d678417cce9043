/* Fault injection: the allocator hook fails the Nth allocation (mode "once"), or every allocation
 * from the Nth on (mode "from": what a real out-of-memory looks like), for N = 0, 1, 2, ...
 * through sequences of public calls: core ops, graph capture / replay / ct_cond, the MX and GGUF
 * calls, and eigh (lane and LAPACK paths). Every failure must be CT_ERR_OOM with a message saying
 * "memory", leave the context usable, and leak nothing (the hook counts live blocks;
 * LeakSanitizer checks the rest). */
#include "test_util.h"

/* A realistic op sequence; releases everything it made whatever happens. */
static ct_status sequence(ct_ctx *ctx) {
    ct_tensor *t[16] = {0};
    int k = 0;
    ct_status st;
    int64_t s[2] = {8, 16}, s2[2] = {16, 4};
    float buf[128];
    for (int i = 0; i < 128; i++)
        buf[i] = (float)i / 10;
#define STEP(call)                                                                                 \
    if ((st = (call)) != CT_OK) goto done
    STEP(ct_tensor_from_host(ctx, buf, CT_FLOAT32, 2, s, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, s2, 1, 0, &t[k++]));
    STEP(ct_matmul(ctx, t[0], t[1], &t[k++]));           /* (8,4) */
    STEP(ct_tensor_transpose(ctx, t[0], 0, 1, &t[k++])); /* view */
    STEP(ct_add(ctx, t[3], t[3], &t[k++]));
    STEP(ct_cast(ctx, t[4], CT_FLOAT16, &t[k++])); /* f16 */
    STEP(ct_add(ctx, t[5], t[4], &t[k++]));        /* promotion -> temp cast */
    STEP(ct_softmax(ctx, t[2], -1, &t[k++]));
    int d = 0;
    STEP(ct_sum(ctx, t[6], 1, &d, false, &t[k++])); /* reduce + view */
    int64_t flat[1] = {-1};
    STEP(ct_tensor_reshape(ctx, t[3], 1, flat, &t[k++])); /* copy */
    STEP(ct_layer_norm(ctx, t[0], 1, NULL, NULL, 1e-5, &t[k++]));
    STEP(ct_argmax(ctx, t[3], CT_ALL_DIMS, false, &t[k++]));
    double item;
    STEP(ct_tensor_item(t[11], &item));
done:
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* Graph capture of a few ops and a ct_cond, instantiate, replay twice, then an eager cond. */
static ct_status cond_true(ct_ctx *c, void *u, int no, ct_tensor *const *ops, int nout,
                           ct_tensor **outs) {
    (void)u, (void)no, (void)nout;
    return ct_relu(c, ops[0], &outs[0]);
}
static ct_status cond_false(ct_ctx *c, void *u, int no, ct_tensor *const *ops, int nout,
                            ct_tensor **outs) {
    (void)u, (void)no, (void)nout;
    return ct_mul(c, ops[0], ops[0], &outs[0]);
}
static ct_status seq_graph(ct_ctx *ctx) {
    ct_tensor *t[12] = {0};
    int k = 0;
    ct_status st;
    ct_graph *g = NULL;
    ct_device dev = {CT_DEVICE_CPU, 0};
    int64_t s[2] = {4, 8};
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, s, 3, 0, &t[k++])); /* 0: input */
    STEP(ct_tensor_full(ctx, CT_BOOL, 0, NULL, 1, &t[k++]));     /* 1: pred */
    STEP(ct_graph_create(ctx, dev, NULL, &g));
    STEP(ct_graph_capture_begin(g, NULL));
    STEP(ct_add(ctx, t[0], t[0], &t[k++]));                     /* 2 */
    STEP(ct_tensor_transpose(ctx, t[2], 0, 1, &t[k++]));        /* 3: view */
    STEP(ct_tanh(ctx, t[3], &t[k++]));                          /* 4 */
    STEP(ct_tensor_rand(ctx, CT_FLOAT32, 2, s, 5, 0, &t[k++])); /* 5: rand under capture */
    ct_tensor *ops[1] = {t[4]};
    STEP(ct_cond(ctx, t[1], cond_true, cond_false, NULL, 1, ops, 1, &t[k++])); /* 6 */
    STEP(ct_graph_capture_end(g));
    STEP(ct_graph_replay(g));
    STEP(ct_graph_replay(g));
    STEP(ct_cond(ctx, t[1], cond_true, cond_false, NULL, 1, ops, 1, &t[k++])); /* 7: eager */
done:
    ct_graph_free(g);
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* MX quantize / dequantize / linear and the GGUF round trip. */
static ct_status seq_mx(ct_ctx *ctx) {
    ct_tensor *t[6] = {0};
    ct_mx_tensor *q[3] = {0};
    int k = 0;
    ct_status st;
    int64_t xs[2] = {3, 64}, ws[2] = {5, 64};
    uint8_t gguf[5 * 2 * 17];
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, xs, 7, 0, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, ws, 8, 0, &t[k++]));
    STEP(ct_mx_quantize(ctx, t[1], CT_MXFP4_E2M1, 32, -1, CT_MX_SCALE_FLOOR, &q[0]));
    STEP(ct_mx_quantize(ctx, t[0], CT_MXFP8_E4M3, 32, 0, CT_MX_SCALE_RCEIL, &q[1])); /* axis 0 */
    STEP(ct_mx_dequantize(ctx, q[1], CT_BFLOAT16, &t[k++]));
    STEP(ct_mx_dequantize_into(ctx, q[0], t[1]));
    STEP(ct_mx_linear(ctx, t[0], q[0], NULL, &t[k++]));
    STEP(ct_mx_to_gguf_mxfp4(ctx, q[0], gguf, sizeof gguf));
    STEP(ct_mx_from_gguf_mxfp4(ctx, gguf, sizeof gguf, 2, ws, &q[2]));
done:
    for (int i = 0; i < 3; i++)
        ct_mx_tensor_free(q[i]);
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* 2:4 sparsity: prune (f32 and FP8), strict compression, decompression, mm (N = 1 and N > 1,
 * bf16 out), linear, and the parts constructor. */
static ct_status seq_sparse(ct_ctx *ctx) {
    ct_tensor *t[8] = {0};
    ct_sparse24 *sp[4] = {0};
    int k = 0;
    ct_status st;
    int64_t ws[2] = {6, 16}, bs[2] = {16, 3}, xs[2] = {2, 16}, x1[2] = {16, 1};
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, ws, 3, 0, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, bs, 4, 0, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, xs, 5, 0, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, x1, 6, 0, &t[k++]));
    STEP(ct_sparse24_prune(ctx, t[0], CT_FLOAT32, &sp[0]));
    STEP(ct_sparse24_prune(ctx, t[0], CT_FLOAT8_E4M3FN, &sp[1]));
    STEP(ct_sparse24_to_dense(ctx, sp[0], CT_BFLOAT16, &t[k++]));
    STEP(ct_sparse24_from_dense(ctx, t[4], CT_BFLOAT16, &sp[2]));
    STEP(ct_sparse24_mm(ctx, sp[1], t[1], NULL, 1.0, CT_BFLOAT16, &t[k++]));
    STEP(ct_sparse24_mm(ctx, sp[0], t[3], NULL, 2.0, CT_FLOAT32, &t[k++]));
    STEP(ct_sparse24_linear(ctx, t[2], sp[2], NULL, &t[k++]));
    STEP(ct_sparse24_from_parts(ctx, 6, 16, ct_sparse24_values(sp[1]), ct_sparse24_metadata(sp[1]),
                                ct_sparse24_scales(sp[1]), &sp[3]));
done:
    for (int i = 0; i < 4; i++)
        ct_sparse24_free(sp[i]);
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* FlexAttention: a block mask, the forward (tiled with GQA and the mask, decoding, bf16) and
 * the backward (which casts, multiplies and sums). */
static ct_status seq_attention(ct_ctx *ctx) {
    ct_tensor *t[16] = {0};
    ct_block_mask *bm = NULL;
    int k = 0;
    ct_status st;
    int64_t qs[4] = {1, 4, 20, 8}, ks[4] = {1, 2, 20, 8}, q1[4] = {1, 4, 1, 8};
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 4, qs, 3, 0, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 4, ks, 4, 0, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 4, q1, 5, 0, &t[k++]));
    STEP(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, 20, 20, 8, &bm));
    const ct_flex_options o = {sizeof o, 0, NULL, NULL, bm, true, true, NULL, false};
    const ct_flex_options od = {sizeof od, 0, NULL, NULL, NULL, true, false, NULL, false};
    STEP(ct_flex_attention(ctx, t[0], t[1], t[1], &o, &t[3], &t[4]));
    k = 5;
    STEP(ct_flex_attention(ctx, t[2], t[1], t[1], &od, &t[k++], NULL));
    STEP(ct_cast(ctx, t[0], CT_BFLOAT16, &t[k++]));
    STEP(ct_cast(ctx, t[1], CT_BFLOAT16, &t[k++]));
    STEP(ct_flex_attention(ctx, t[6], t[7], t[7], &od, &t[k++], NULL));
    STEP(ct_flex_attention_backward(ctx, t[0], t[1], t[1], t[3], t[4], t[3], t[4], &o, &t[9],
                                    &t[10], &t[11]));
    k = 12;
done:
    ct_block_mask_free(bm);
    for (int i = 0; i < 16; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* eigh: lane kernels (batch, strided, f16 through f32) and LAPACK (n = 80, workspace). */
static ct_status seq_eigh(ct_ctx *ctx) {
    ct_tensor *t[12] = {0};
    int k = 0;
    ct_status st;
    int64_t sb[3] = {3, 6, 6}, sl[2] = {80, 80};
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 3, sb, 11, 0, &t[k++]));
    STEP(ct_tensor_transpose(ctx, t[0], 1, 2, &t[k++]));
    STEP(ct_linalg_eigh(ctx, t[1], 'L', &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_cast(ctx, t[0], CT_FLOAT16, &t[k++]));
    STEP(ct_linalg_eigh_ex(ctx, t[4], 'U', &t[k], &t[k + 1], &t[k + 2]));
    k += 3;
    STEP(ct_tensor_randn(ctx, CT_FLOAT64, 2, sl, 12, 0, &t[k++]));
    STEP(ct_linalg_eigvalsh(ctx, t[8], 'L', &t[k++]));
    STEP(ct_linalg_eigh(ctx, t[8], 'U', &t[k], &t[k + 1]));
    k += 2;
done:
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* Walk failure points N = 0, 1, ... until the sequence no longer reaches allocation N. */
/* debug: run the context in debug mode (also on when CT_DEBUG=1): released tensor headers stay in
 * its quarantine until ct_ctx_free, so blocks are only counted there. warm: run the sequence once
 * before arming the failure, so that memory the context keeps after first use (the kernels'
 * per-thread scratch) exists already and every failure point is a steady-state one. */
static void walk_ex(const char *name, ct_status (*seq)(ct_ctx *), bool sticky, bool debug,
                    bool warm, int max_n) {
    int oom_seen = 0, n;
    for (n = 0; n < max_n; n++) {
        tu_fault fs = {0, warm ? -1 : n, 0, sticky};
        ct_ctx_options o = {
            .size = sizeof o, .allocator = {tu_fault_alloc, tu_fault_free, &fs}, .debug = debug};
        ct_ctx *ctx = NULL;
        ct_status st = ct_ctx_create(&o, &ctx);
        if (st != CT_OK) {
            CHECK_ST(st, CT_ERR_OOM);
            CHECK(fs.live == 0);
            continue;
        }
        const bool quarantine = ct_ctx_debug(ctx);
        if (warm) {
            CHECK_OK(seq(ctx));
            fs.calls = 0;
            fs.fail_at = n;
        }
        long before = fs.live;
        st = seq(ctx);
        if (st != CT_OK) {
            oom_seen++;
            CHECK_MSG(st == CT_ERR_OOM, "%s n=%d: status %d (%s)", name, n, (int)st,
                      ct_ctx_last_error(ctx));
            CHECK_MSG(strstr(ct_ctx_last_error(ctx), "memory") != NULL, "%s n=%d message '%s'",
                      name, n, ct_ctx_last_error(ctx));
        }
        CHECK_MSG(quarantine || fs.live == before, "%s n=%d: %ld blocks leaked", name, n,
                  fs.live - before);
        CHECK_MSG(ct_ctx_live_tensors(ctx) == 0, "%s n=%d: %lld tensors alive", name, n,
                  (long long)ct_ctx_live_tensors(ctx));
        /* the context stays usable: no further failure is armed now */
        fs.fail_at = -1;
        ct_status again = seq(ctx);
        CHECK_MSG(again == CT_OK, "%s n=%d: rerun failed: %s", name, n, ct_ctx_last_error(ctx));
        CHECK_MSG(quarantine || fs.live == before, "%s n=%d: %ld blocks more after the rerun", name,
                  n, fs.live - before);
        ct_ctx_free(ctx);
        CHECK_MSG(fs.live == 0, "%s n=%d: %ld blocks live after ctx_free", name, n, fs.live);
        if (st == CT_OK) break; /* the sequence no longer reaches allocation n */
    }
    CHECK_MSG(oom_seen > 3, "%s: only %d failures seen", name, oom_seen);
    CHECK_MSG(n < max_n, "%s: still failing at %d", name, n);
    printf("  %s (%s%s%s): walked %d failure points\n", name, sticky ? "from N on" : "N only",
           debug ? ", debug mode" : "", warm ? ", warm" : "", n);
}
static void walk(const char *name, ct_status (*seq)(ct_ctx *), bool sticky, bool debug, int max_n) {
    walk_ex(name, seq, sticky, debug, false, max_n);
}

/* The everyday ops and tools (issue 13): creation, shaping, indexing, sorting, from_blob, npy,
 * print. */
static void free_blob(void *data, void *user) {
    (void)user;
    free(data);
}
static ct_status seq_everyday(ct_ctx *ctx) {
    ct_tensor *t[40] = {0}, *parts[4] = {0};
    int k = 0, np = 0;
    ct_status st;
    char *text = NULL;
    int64_t s[2] = {4, 6};
    float *mem = malloc(24 * sizeof(float));
    for (int i = 0; i < 24; i++)
        mem[i] = (float)i;
    /* from_blob owns mem from here on (freed by its deleter), unless it fails */
    st = ct_tensor_from_blob(ctx, mem, CT_FLOAT32, 2, s, NULL, free_blob, NULL, &t[k]);
    if (st != CT_OK) {
        free(mem);
        return st;
    }
    k++;
    STEP(ct_tensor_transpose(ctx, t[0], 0, 1, &t[k++])); /* 1: (6, 4) strided */
    const ct_tensor *two[2] = {t[0], t[0]};
    STEP(ct_cat(ctx, 2, two, 1, &t[k++]));
    STEP(ct_stack(ctx, 2, two, 0, &t[k++]));
    STEP(ct_split(ctx, t[1], 4, 0, 4, parts, &np));
    STEP(ct_repeat(ctx, t[1], 3, (int64_t[]){2, 1, 2}, &t[k++]));
    STEP(ct_flip(ctx, t[1], 1, (int[]){0}, &t[k++]));
    STEP(ct_roll(ctx, t[1], 2, (int64_t[]){1, -1}, (int[]){0, 1}, &t[k++]));
    STEP(ct_flatten(ctx, t[1], 0, 1, &t[k++])); /* a copy (strided) */
    STEP(ct_tril(ctx, t[1], 0, &t[k++]));
    STEP(ct_tensor_eye(ctx, CT_FLOAT64, 3, 5, &t[k++]));
    STEP(ct_tensor_linspace(ctx, CT_FLOAT16, -1, 1, 40, &t[k++]));
    STEP(ct_ones_like(ctx, t[1], &t[k++]));
    long long iv[6] = {1, 0, 3, 3, 2, 1};
    STEP(ct_tensor_from_host(ctx, iv, CT_INT64, 2, (int64_t[]){3, 2}, &t[k++]));
    int ix = k - 1;
    STEP(ct_gather(ctx, t[1], 1, t[ix], &t[k++]));
    STEP(ct_scatter_add(ctx, t[1], 1, t[ix], t[1], &t[k++]));
    STEP(ct_flatten(ctx, t[ix], 0, -1, &t[k++]));
    int ix1 = k - 1;
    STEP(ct_index_select(ctx, t[0], 1, t[ix1], &t[k++]));
    STEP(ct_one_hot(ctx, t[ix], -1, &t[k++]));
    STEP(ct_gt_scalar(ctx, t[1], 5.0, &t[k++]));
    int mk = k - 1;
    STEP(ct_masked_fill(ctx, t[1], t[mk], -1.0, &t[k++]));
    STEP(ct_topk(ctx, t[1], 2, 0, true, true, &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_sort(ctx, t[1], -1, false, true, &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_tensor_to_string(t[1], &text));
    /* a Fortran-order .npy from memory (converted to C order by a copy) */
    static const char hdr[] = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
    unsigned char buf[128 + 24];
    memcpy(buf, "\x93NUMPY\x01\x00\x76\x00", 10); /* header length 118 */
    memcpy(buf + 10, hdr, sizeof hdr - 1);
    memset(buf + 10 + sizeof hdr - 1, ' ', 128 - 10 - (sizeof hdr - 1));
    buf[127] = '\n';
    memcpy(buf + 128, mem, 24);
    STEP(ct_npy_load_buffer(ctx, buf, sizeof buf, &t[k++]));
done:
    free(text);
    for (int i = 0; i < np; i++)
        ct_tensor_release(parts[i]);
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* This session's ops: reductions and scans, the norm / pad / dropout compositions, convolution
 * and pooling, the data-dependent selections, dense linear algebra, DLPack, a fused captured
 * chain with a planned pool. */
static ct_status seq_more(ct_ctx *ctx) {
    ct_tensor *t[48] = {0};
    int k = 0;
    ct_status st = CT_OK;
    int64_t s4[4] = {2, 4, 6, 5}, s2[2] = {4, 4};
    STEP(ct_tensor_rand(ctx, CT_FLOAT32, 4, s4, 1, 0, &t[k++])); /* 0: x (2, 4, 6, 5) */
    int d1 = 1;
    STEP(ct_var(ctx, t[0], 1, &d1, 1.0, false, &t[k++]));
    STEP(ct_logsumexp(ctx, t[0], 0, NULL, true, &t[k++]));
    STEP(ct_norm(ctx, t[0], 3.0, 1, &d1, false, &t[k++]));
    STEP(ct_prod(ctx, t[0], 2, false, &t[k++]));
    STEP(ct_cumsum(ctx, t[0], -1, &t[k++]));
    STEP(ct_cumprod(ctx, t[0], 0, &t[k++]));
    STEP(ct_rms_norm(ctx, t[0], 2, NULL, 1e-6, &t[k++]));
    STEP(ct_group_norm(ctx, t[0], 2, NULL, NULL, 1e-5, &t[k++]));
    STEP(ct_batch_norm(ctx, t[0], NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &t[k++]));
    STEP(ct_dropout(ctx, t[0], 0.5, true, 3, 0, &t[k++]));
    STEP(ct_pad(ctx, t[0], 4, (int64_t[]){1, 2, 2, 1}, CT_PAD_REFLECT, 0, &t[k++]));
    STEP(ct_pad(ctx, t[0], 2, (int64_t[]){-1, 2}, CT_PAD_CONSTANT, 3, &t[k++]));
    int64_t ws[4] = {3, 4, 3, 3}, one[2] = {1, 1}, two[2] = {2, 2}, zero[2] = {0, 0};
    STEP(ct_tensor_rand(ctx, CT_FLOAT32, 4, ws, 2, 0, &t[k++]));
    int w = k - 1;
    STEP(ct_conv2d(ctx, t[0], t[w], NULL, one, one, one, 1, &t[k++]));
    STEP(ct_max_pool2d(ctx, t[0], two, NULL, (int64_t[]){1, 0}, one, &t[k++]));
    STEP(ct_avg_pool2d(ctx, t[0], two, one, zero, &t[k++]));
    STEP(ct_adaptive_avg_pool2d(ctx, t[0], (int64_t[]){4, 3}, &t[k++]));
    STEP(ct_topk(ctx, t[0], 2, 2, true, true, &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_gt_scalar(ctx, t[0], 0.5, &t[k++]));
    int mk = k - 1;
    STEP(ct_masked_select(ctx, t[0], t[mk], &t[k++]));
    STEP(ct_nonzero(ctx, t[mk], &t[k++]));
    STEP(ct_unique(ctx, t[w], true, &t[k], &t[k + 1], &t[k + 2]));
    k += 3;
    STEP(ct_tensor_eye(ctx, CT_FLOAT64, 4, 4, &t[k++]));
    STEP(ct_tensor_rand(ctx, CT_FLOAT64, 2, s2, 5, 0, &t[k++]));
    int e0 = k - 2, r0 = k - 1;
    STEP(ct_add(ctx, t[e0], t[r0], &t[k++])); /* eye + rand: diagonally dominant */
    int A = k - 1;
    STEP(ct_linalg_inv(ctx, t[A], &t[k++]));
    STEP(ct_linalg_solve(ctx, t[A], t[A], &t[k++]));
    STEP(ct_linalg_slogdet(ctx, t[A], &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_linalg_qr(ctx, t[A], &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_linalg_svd(ctx, t[A], &t[k], &t[k + 1], &t[k + 2]));
    k += 3;
    ct_dl_managed_tensor *m = NULL;
    STEP(ct_tensor_to_dlpack(ctx, t[A], &m));
    st = ct_tensor_from_dlpack(ctx, m, &t[k]);
    if (st != CT_OK) {
        m->deleter(m);
        goto done;
    }
    k++;
    { /* a fused, planned capture */
        ct_graph *g = NULL;
        STEP(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        st = ct_graph_capture_begin(g, NULL);
        ct_tensor *a = NULL, *b = NULL, *c = NULL;
        if (st == CT_OK) st = ct_mul_scalar(ctx, t[0], 2.0, &a);
        if (st == CT_OK) st = ct_relu(ctx, a, &b);
        if (st == CT_OK) st = ct_add(ctx, b, t[0], &c);
        ct_status e = ct_graph_capture_end(g);
        if (st == CT_OK) st = e;
        if (st == CT_OK) st = ct_graph_replay(g);
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
        ct_graph_free(g);
    }
done:
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

/* The second linear algebra set (test_linalg_more): its kernels, composites and one backward
 * through the recorded formulas. */
static ct_status seq_linalg_more(ct_ctx *ctx) {
    ct_tensor *t[48] = {0};
    int k = 0;
    ct_status st = CT_OK;
    int64_t s2[2] = {4, 4}, sb[2] = {4, 2}, s53[2] = {5, 3};
    STEP(ct_tensor_eye(ctx, CT_FLOAT64, 4, 4, &t[k++]));
    STEP(ct_tensor_rand(ctx, CT_FLOAT64, 2, s2, 7, 0, &t[k++]));
    STEP(ct_add(ctx, t[0], t[1], &t[k++]));                       /* 2: A, diagonally dominant */
    STEP(ct_tensor_rand(ctx, CT_FLOAT64, 2, sb, 8, 0, &t[k++]));  /* 3: B */
    STEP(ct_tensor_rand(ctx, CT_FLOAT64, 2, s53, 9, 0, &t[k++])); /* 4: tall */
    const int A = 2, B = 3, W = 4;
    STEP(ct_tensor_set_requires_grad(t[A], true));
    STEP(ct_linalg_solve_triangular(ctx, t[A], t[B], true, true, false, &t[k++]));
    STEP(ct_linalg_lu_factor(ctx, t[A], &t[k], &t[k + 1]));
    const int LU = k, PV = k + 1;
    k += 2;
    STEP(ct_linalg_lu_factor_ex(ctx, t[W], &t[k], &t[k + 1], &t[k + 2]));
    k += 3;
    STEP(ct_linalg_lu(ctx, t[W], &t[k], &t[k + 1], &t[k + 2]));
    k += 3;
    STEP(ct_linalg_lu_solve(ctx, t[LU], t[PV], t[B], true, true, &t[k++]));
    STEP(ct_cholesky_solve(ctx, t[B], t[A], false, &t[k++]));
    STEP(ct_cholesky_inverse(ctx, t[A], true, &t[k++]));
    STEP(ct_linalg_lstsq(ctx, t[W], t[W], NAN, "gelsd", &t[k], &t[k + 1], &t[k + 2], &t[k + 3]));
    k += 4;
    const int SV = k;
    STEP(ct_linalg_svdvals(ctx, t[W], &t[k++]));
    STEP(ct_linalg_matrix_rank(ctx, t[W], NAN, NAN, false, &t[k++]));
    STEP(ct_linalg_matrix_exp(ctx, t[A], &t[k++]));
    STEP(ct_linalg_inv_ex(ctx, t[A], &t[k], &t[k + 1]));
    k += 2;
    STEP(ct_linalg_householder_product(ctx, t[W], t[SV], &t[k++])); /* tau: the values */
    STEP(ct_linalg_cond(ctx, t[A], "fro", &t[k++]));
    STEP(ct_sum(ctx, t[k - 1], 0, NULL, false, &t[k]));
    k++;
    STEP(ct_backward(ctx, t[k - 1], NULL, false));
done:
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}
TEST(linalg_more) {
    walk_ex("linalg_more", seq_linalg_more, false, false, true, 4000);
    walk_ex("linalg_more", seq_linalg_more, true, false, true, 4000);
}

TEST(more_ops) { /* warm: the kernels' thread pool is made by the first large op and kept */
    walk_ex("more", seq_more, false, false, true, 2000);
    walk_ex("more", seq_more, true, false, true, 2000);
}

TEST(fail_every_allocation) { walk("core", sequence, false, false, 500); }
TEST(fail_from_n_onward) { walk("core", sequence, true, false, 500); }
TEST(graph_capture_replay_cond) {
    walk("graph", seq_graph, false, false, 800);
    walk("graph", seq_graph, true, false, 800);
}
TEST(mx_and_gguf) {
    walk("mx", seq_mx, false, false, 500);
    walk("mx", seq_mx, true, false, 500);
}
TEST(sparse24) {
    walk("sparse", seq_sparse, false, false, 800);
    walk("sparse", seq_sparse, true, false, 800);
    walk("attention", seq_attention, false, false, 800);
    walk("attention", seq_attention, true, false, 800);
}
/* eigh's copies run kernels that keep per-thread scratch after first use: walked warm */
TEST(eigh) {
    walk_ex("eigh", seq_eigh, false, false, true, 500);
    walk_ex("eigh", seq_eigh, true, false, true, 500);
}
TEST(everyday_ops) {
    walk("everyday", seq_everyday, false, false, 800);
    walk("everyday", seq_everyday, true, false, 800);
}
/* debug mode allocates tensor headers separately: its own failure points */
TEST(debug_mode) {
    walk("core", sequence, false, true, 800);
    walk("graph", seq_graph, true, true, 800);
}

int main(void) {
    RUN(fail_every_allocation);
    RUN(fail_from_n_onward);
    RUN(graph_capture_replay_cond);
    RUN(mx_and_gguf);
    RUN(sparse24);
    RUN(eigh);
    RUN(everyday_ops);
    RUN(more_ops);
    RUN(linalg_more);
    RUN(debug_mode);
    return ct_test_end();
}

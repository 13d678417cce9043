/* An out-of-tree ctorch backend, built as its own shared library against the public headers only:
 * a "toy" device with its own memory (segments from its own calls, managed by ctorch's caching
 * allocator: ct_caching_allocator_*), a handful of f32 kernels (fill, copy, add/sub/mul with
 * broadcasting, neg, relu, matmul) and its own graph implementation. Load it with
 * ct_backend_load(ctx, "libctorch_toy_backend.so", &device_type). */
#include <ctorch/ctorch.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long live_segments;
    ct_caching_allocator *ca;
} toy_state;

/* The device's segment calls: its "device memory" is page-aligned host memory. */
static void *toy_map(void *user, size_t n) {
    void *p = aligned_alloc(4096, n);
    if (p) ((toy_state *)user)->live_segments++;
    return p;
}
static void toy_unmap(void *user, void *p, size_t n) {
    (void)n;
    ((toy_state *)user)->live_segments--;
    free(p);
}

static ct_status toy_alloc(void *st, size_t n, void **p) {
    return ct_caching_allocator_alloc(((toy_state *)st)->ca, n, p);
}
static void toy_free(void *st, void *p) { ct_caching_allocator_free(((toy_state *)st)->ca, p); }
static ct_status toy_copy(void *st, void *dst, const void *src, size_t n, int kind) {
    (void)st, (void)kind;
    memmove(dst, src, n);
    return CT_OK;
}
static ct_status toy_sync(void *st) {
    (void)st;
    return CT_OK;
}

/* Offset (elements) of flat index i of operand o. */
static int64_t toy_off(const ct_operand *o, int64_t i) {
    int64_t off = 0;
    for (int d = o->ndim - 1; d >= 0; d--) {
        off += (i % o->shape[d]) * o->strides[d];
        i /= o->shape[d];
    }
    return off;
}

static ct_status toy_run(void *st, const ct_op_desc *op) {
    (void)st;
    const ct_operand *o = &op->operands[0];
    for (int k = 0; k < op->n_out + op->n_in; k++)
        if (op->operands[k].dtype != CT_FLOAT32) return CT_ERR_UNSUPPORTED;
    int64_t n = 1;
    for (int d = 0; d < o->ndim; d++)
        n *= o->shape[d];
    float *out = o->data;
    const ct_operand *a = &op->operands[1], *b = &op->operands[2];
    float alpha = (float)op->scalars[0];
    switch (op->kind) {
    case CT_OP_FILL:
        for (int64_t i = 0; i < n; i++)
            out[toy_off(o, i)] = (float)op->scalars[0];
        return CT_OK;
    case CT_OP_COPY:
    case CT_OP_NEG:
    case CT_OP_RELU:
        for (int64_t i = 0; i < n; i++) {
            float x = ((const float *)a->data)[toy_off(a, i)];
            out[toy_off(o, i)] = op->kind == CT_OP_COPY  ? x
                                 : op->kind == CT_OP_NEG ? -x
                                 : (x > 0 || x != x)     ? x
                                                         : 0.0f;
        }
        return CT_OK;
    case CT_OP_ADD:
    case CT_OP_SUB:
    case CT_OP_MUL:
        for (int64_t i = 0; i < n; i++) {
            float x = ((const float *)a->data)[toy_off(a, i)],
                  y = ((const float *)b->data)[toy_off(b, i)];
            out[toy_off(o, i)] = op->kind == CT_OP_ADD   ? x + alpha * y
                                 : op->kind == CT_OP_SUB ? x - alpha * y
                                                         : x * y;
        }
        return CT_OK;
    case CT_OP_MATMUL: { /* (B,M,K) @ (B,K,N); accumulate in float, k ascending */
        int64_t B = o->shape[0], M = o->shape[1], N = o->shape[2], K = a->shape[2];
        for (int64_t bi = 0; bi < B; bi++)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    float s = 0;
                    for (int64_t k = 0; k < K; k++)
                        s += ((const float *)a->data)[bi * a->strides[0] + i * a->strides[1] +
                                                      k * a->strides[2]] *
                             ((const float *)b->data)[bi * b->strides[0] + k * b->strides[1] +
                                                      j * b->strides[2]];
                    out[bi * o->strides[0] + i * o->strides[1] + j * o->strides[2]] = s;
                }
        return CT_OK;
    }
    default: return CT_ERR_UNSUPPORTED;
    }
}

/* ---- graph implementation: a flat list built directly during capture ---- */
enum { T_OP, T_COND, T_JUMP };
typedef struct {
    int kind;
    ct_op_desc op; /* T_OP; T_COND: predicate in operands[0] */
    size_t target; /* T_COND: false branch start; T_JUMP: destination */
} toy_instr;
typedef struct {
    toy_instr *code;
    size_t n, cap;
    size_t cond_at[64], jump_at[64];
    int depth;
    int64_t ops;
} toy_graph;

static ct_status tg_create(void *bs, void **gs) {
    (void)bs;
    toy_graph *g = calloc(1, sizeof *g);
    if (!g) return CT_ERR_OOM;
    *gs = g;
    return CT_OK;
}
static ct_status tg_reset(void *gs) {
    toy_graph *g = gs;
    free(g->code);
    memset(g, 0, sizeof *g);
    return CT_OK;
}
static void tg_destroy(void *gs) {
    tg_reset(gs);
    free(gs);
}
static ct_status tg_begin(void *gs) {
    ((toy_graph *)gs)->depth = 0;
    return CT_OK;
}
static toy_instr *tg_emit(toy_graph *g) {
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 16;
        toy_instr *nc_code = realloc(g->code, nc * sizeof *nc_code);
        if (!nc_code) return NULL;
        g->code = nc_code;
        g->cap = nc;
    }
    toy_instr *in = &g->code[g->n++];
    memset(in, 0, sizeof *in);
    return in;
}
static ct_status tg_record(void *gs, const ct_op_desc *op) {
    toy_graph *g = gs;
    toy_instr *in = tg_emit(g);
    if (!in) return CT_ERR_OOM;
    in->kind = T_OP;
    in->op = *op;
    g->ops++;
    return CT_OK;
}
static ct_status tg_cond(void *gs, const ct_operand *pred) {
    toy_graph *g = gs;
    if (g->depth >= 63 || pred->dtype != CT_FLOAT32) return CT_ERR_UNSUPPORTED;
    toy_instr *in = tg_emit(g);
    if (!in) return CT_ERR_OOM;
    in->kind = T_COND;
    in->op.operands[0] = *pred;
    g->depth++;
    g->cond_at[g->depth] = g->n - 1;
    return CT_OK;
}
static ct_status tg_branch(void *gs, int branch) {
    toy_graph *g = gs;
    if (branch) return CT_OK; /* the true branch follows the COND directly */
    toy_instr *j = tg_emit(g);
    if (!j) return CT_ERR_OOM;
    j->kind = T_JUMP;
    g->jump_at[g->depth] = g->n - 1;
    g->code[g->cond_at[g->depth]].target = g->n;
    return CT_OK;
}
static ct_status tg_cond_end(void *gs) {
    toy_graph *g = gs;
    g->code[g->jump_at[g->depth]].target = g->n;
    g->depth--;
    return CT_OK;
}
static ct_status tg_end(void *gs) { return ((toy_graph *)gs)->depth == 0 ? CT_OK : CT_ERR_STATE; }
static ct_status tg_instantiate(void *gs) {
    (void)gs;
    return CT_OK;
}
static ct_status tg_replay(void *gs) {
    toy_graph *g = gs;
    for (size_t pc = 0; pc < g->n;) {
        const toy_instr *in = &g->code[pc];
        if (in->kind == T_OP) {
            ct_status st = toy_run(NULL, &in->op);
            if (st != CT_OK) return st;
            pc++;
        } else if (in->kind == T_COND) {
            pc = *(const float *)in->op.operands[0].data != 0 ? pc + 1 : in->target;
        } else {
            pc = in->target;
        }
    }
    return CT_OK;
}
static ct_status tg_dump(void *gs, const char *path) {
    toy_graph *g = gs;
    FILE *f = fopen(path, "w");
    if (!f) return CT_ERR_IO;
    for (size_t i = 0; i < g->n; i++)
        fprintf(f, "%zu: %s\n", i,
                g->code[i].kind == T_OP     ? ct_op_name(g->code[i].op.kind)
                : g->code[i].kind == T_COND ? "cond"
                                            : "jump");
    return fclose(f) == 0 ? CT_OK : CT_ERR_IO;
}
static int64_t tg_nodes(void *gs) { return ((toy_graph *)gs)->ops; }

static const ct_graph_impl toy_graph_impl = {
    .size = sizeof(ct_graph_impl),
    .abi_version = CT_GRAPH_IMPL_ABI_VERSION,
    .create = tg_create,
    .destroy = tg_destroy,
    .capture_begin = tg_begin,
    .record = tg_record,
    .add_conditional = tg_cond,
    .cond_branch = tg_branch,
    .cond_end = tg_cond_end,
    .capture_end = tg_end,
    .instantiate = tg_instantiate,
    .replay = tg_replay,
    .reset = tg_reset,
    .debug_dump = tg_dump,
    .num_nodes = tg_nodes,
};

static void toy_destroy(void *st) {
    ct_caching_allocator_destroy(((toy_state *)st)->ca);
    free(st);
}

/* Entry point ct_backend_load looks up. */
__attribute__((visibility("default"))) ct_status ctorch_backend_init(ct_ctx *ctx,
                                                                     int *device_type) {
    toy_state *s = calloc(1, sizeof *s);
    if (!s) return CT_ERR_OOM;
    const ct_vm_ops vm = {.size = sizeof vm, .user = s, .map = toy_map, .unmap = toy_unmap};
    ct_status st = ct_caching_allocator_create(ctx, &vm, NULL, &s->ca);
    if (st != CT_OK) {
        free(s);
        return st;
    }
    ct_backend_vtable vt = {
        .size = sizeof vt,
        .abi_version = CT_BACKEND_ABI_VERSION,
        .name = "toy",
        .state = s,
        .alloc = toy_alloc,
        .free = toy_free,
        .copy = toy_copy,
        .run_op = toy_run,
        .synchronize = toy_sync,
        .destroy = toy_destroy,
        .graph_impl = &toy_graph_impl,
        .caching_allocator = s->ca,
    };
    st = ct_backend_register(ctx, &vt, device_type);
    if (st != CT_OK) toy_destroy(s);
    return st;
}

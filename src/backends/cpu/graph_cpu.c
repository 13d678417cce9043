/* CPU graph implementation. Capture builds a node tree (ops, and conditionals with two branch
 * lists); instantiate flattens it into one instruction array where contiguous f32/f64 elementwise
 * ops below the threading threshold call the ISA loop directly with resolved pointers, conditionals
 * become a test-and-jump on the predicate's memory, loops a condition, a test, the body and a jump
 * back, and everything else calls the backend's op
 * runner on its stored descriptor. Replay is a tight loop over that array. */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/kernels/ew.h"
#include "ctorch/graph.h"

#include <stdio.h>
#include <string.h>

typedef struct cg_list cg_list;
typedef struct cg_node {
    bool is_cond, is_loop;
    ct_op_desc op;  /* op node, or the predicate in operands[0] for a conditional or loop */
    cg_list *br[2]; /* conditional: [0] false, [1] true; loop: [0] condition, [1] body */
} cg_node;
struct cg_list {
    cg_node *nodes;
    size_t n, cap;
};

enum { I_BIN32, I_BIN64, I_UN32, I_UN64, I_RUN, I_COND, I_JUMP };
typedef struct cg_instr {
    int kind;
    int64_t n;  /* elements (fast paths) */
    void *p[3]; /* out, in0, in1 (fast paths); predicate pointer for I_COND */
    double alpha;
    union {
        void (*bin32)(int64_t, float *, const float *, const float *, float);
        void (*bin64)(int64_t, double *, const double *, const double *, double);
        void (*un32)(int64_t, float *, const float *);
        void (*un64)(int64_t, double *, const double *);
    } fn;
    const ct_op_desc *op; /* I_RUN */
    ct_dtype pred_dtype;  /* I_COND */
    size_t target;        /* I_COND: where false goes; I_JUMP: destination */
} cg_instr;

#define CG_MAX_NEST 64

typedef struct cg_graph {
    ct__cpu_state *cpu;
    cg_list root;
    cg_list *stack[CG_MAX_NEST]; /* current list per nesting level */
    cg_node *cond_stack[CG_MAX_NEST];
    int depth; /* 0: root */
    cg_instr *prog;
    size_t nprog, capprog;
    int64_t nodes;
} cg_graph;

static ct_ctx *cg_ctx(cg_graph *g) { return g->cpu->ctx; }

static ct_status cg_create(void *backend_state, void **out) {
    ct__cpu_state *cpu = backend_state;
    cg_graph *g = ct__alloc(cpu->ctx, sizeof *g, 64);
    if (!g) return CT_ERR_OOM;
    memset(g, 0, sizeof *g);
    g->cpu = cpu;
    *out = g;
    return CT_OK;
}

static void cg_list_free(ct_ctx *ctx, cg_list *l) {
    for (size_t i = 0; i < l->n; i++)
        if (l->nodes[i].is_cond || l->nodes[i].is_loop)
            for (int b = 0; b < 2; b++) {
                cg_list_free(ctx, l->nodes[i].br[b]);
                ct__free(ctx, l->nodes[i].br[b]);
            }
    ct__free(ctx, l->nodes);
    memset(l, 0, sizeof *l);
}

static ct_status cg_reset(void *gs) {
    cg_graph *g = gs;
    cg_list_free(cg_ctx(g), &g->root);
    ct__free(cg_ctx(g), g->prog);
    g->prog = NULL;
    g->nprog = g->capprog = 0;
    g->depth = 0;
    g->nodes = 0;
    return CT_OK;
}

static void cg_destroy(void *gs) {
    cg_graph *g = gs;
    cg_reset(g);
    ct__free(cg_ctx(g), g);
}

static ct_status cg_capture_begin(void *gs) {
    cg_graph *g = gs;
    g->depth = 0;
    g->stack[0] = &g->root;
    return CT_OK;
}

static cg_node *cg_append(cg_graph *g, cg_list *l) {
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 32;
        cg_node *nn = ct__alloc(cg_ctx(g), nc * sizeof *nn, 64);
        if (!nn) return NULL;
        if (l->nodes) memcpy(nn, l->nodes, l->n * sizeof *nn);
        ct__free(cg_ctx(g), l->nodes);
        l->nodes = nn;
        l->cap = nc;
    }
    cg_node *n = &l->nodes[l->n++];
    memset(n, 0, sizeof *n);
    return n;
}

static ct_status cg_record(void *gs, const ct_op_desc *op) {
    cg_graph *g = gs;
    cg_node *n = cg_append(g, g->stack[g->depth]);
    if (!n) return CT_ERR_OOM;
    n->op = *op;
    g->nodes++;
    return CT_OK;
}

/* A node with two lists (conditional or loop), entered at list `enter`. */
static ct_status cg_open2(cg_graph *g, bool loop, const ct_operand *pred, int enter) {
    if (g->depth + 1 >= CG_MAX_NEST) return CT_ERR_UNSUPPORTED;
    /* branch lists first: a failed allocation must not leave a half-built node behind */
    cg_list *br[2];
    for (int b = 0; b < 2; b++) {
        br[b] = ct__alloc(cg_ctx(g), sizeof(cg_list), 16);
        if (!br[b]) {
            if (b) ct__free(cg_ctx(g), br[0]);
            return CT_ERR_OOM;
        }
        memset(br[b], 0, sizeof(cg_list));
    }
    cg_node *n = cg_append(g, g->stack[g->depth]);
    if (!n) {
        ct__free(cg_ctx(g), br[0]);
        ct__free(cg_ctx(g), br[1]);
        return CT_ERR_OOM;
    }
    n->is_cond = !loop;
    n->is_loop = loop;
    if (pred) n->op.operands[0] = *pred;
    n->br[0] = br[0];
    n->br[1] = br[1];
    /* branch lists are separate allocations: the node pointer stays valid while the branches
     * grow (nothing is appended to the enclosing list until this conditional ends) */
    g->cond_stack[g->depth + 1] = n;
    g->depth++;
    g->stack[g->depth] = n->br[enter];
    return CT_OK;
}

static ct_status cg_add_conditional(void *gs, const ct_operand *pred) {
    return cg_open2(gs, false, pred, 1);
}

static ct_status cg_loop_begin(void *gs) { return cg_open2(gs, true, NULL, 0); }

static ct_status cg_loop_body(void *gs, const ct_operand *pred) {
    cg_graph *g = gs;
    if (g->depth == 0 || !g->cond_stack[g->depth]->is_loop) return CT_ERR_STATE;
    g->cond_stack[g->depth]->op.operands[0] = *pred;
    g->stack[g->depth] = g->cond_stack[g->depth]->br[1];
    return CT_OK;
}

static ct_status cg_cond_branch(void *gs, int branch) {
    cg_graph *g = gs;
    if (g->depth == 0 || !g->cond_stack[g->depth]->is_cond) return CT_ERR_STATE;
    g->stack[g->depth] = g->cond_stack[g->depth]->br[branch ? 1 : 0];
    return CT_OK;
}

static ct_status cg_cond_end(void *gs) {
    cg_graph *g = gs;
    if (g->depth == 0) return CT_ERR_STATE;
    g->depth--;
    return CT_OK;
}

static ct_status cg_capture_end(void *gs) {
    cg_graph *g = gs;
    return g->depth == 0 ? CT_OK : CT_ERR_STATE;
}

static cg_instr *cg_emit(cg_graph *g) {
    if (g->nprog == g->capprog) {
        size_t nc = g->capprog ? g->capprog * 2 : 64;
        cg_instr *np = ct__alloc(cg_ctx(g), nc * sizeof *np, 64);
        if (!np) return NULL;
        if (g->prog) memcpy(np, g->prog, g->nprog * sizeof *np);
        ct__free(cg_ctx(g), g->prog);
        g->prog = np;
        g->capprog = nc;
    }
    cg_instr *in = &g->prog[g->nprog++];
    memset(in, 0, sizeof *in);
    return in;
}

/* Contiguous, unbroadcast, same-dtype f32/f64 elementwise op with an ISA loop, small enough to
 * stay on one thread: resolve it to a direct call. */
static bool cg_fast(cg_graph *g, const ct_op_desc *op, cg_instr *in) {
    int bi = ct_k_bin_index(op->kind), ui = ct_k_un_index(op->kind);
    if ((bi < 0 && ui < 0) || op->n_out != 1 || op->n_in != (bi >= 0 ? 2 : 1)) return false;
    ct_dtype dt = op->compute_dtype;
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64) return false;
    const ct_operand *o = &op->operands[0];
    int64_t n = 1;
    for (int d = 0; d < o->ndim; d++)
        n *= o->shape[d];
    if (n >= CT_K_PAR_THRESHOLD && op->num_threads > 1) return false;
    for (int k = 0; k < 1 + op->n_in; k++) {
        const ct_operand *x = &op->operands[k];
        if (x->dtype != dt || x->ndim != o->ndim) return false;
        int64_t s = 1;
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (x->shape[d] != o->shape[d]) return false;
            if (x->shape[d] != 1 && x->strides[d] != s) return false;
            s *= x->shape[d];
        }
    }
    const ct_k_isa *isa = g->cpu->isa;
    if (bi >= 0) {
        if (dt == CT_FLOAT32 ? !isa->bin_f32[bi] : !isa->bin_f64[bi]) return false;
        in->kind = dt == CT_FLOAT32 ? I_BIN32 : I_BIN64;
        if (dt == CT_FLOAT32)
            in->fn.bin32 = isa->bin_f32[bi];
        else
            in->fn.bin64 = isa->bin_f64[bi];
    } else {
        if (dt == CT_FLOAT32 ? !isa->un_f32[ui] : !isa->un_f64[ui]) return false;
        in->kind = dt == CT_FLOAT32 ? I_UN32 : I_UN64;
        if (dt == CT_FLOAT32)
            in->fn.un32 = isa->un_f32[ui];
        else
            in->fn.un64 = isa->un_f64[ui];
    }
    in->n = n;
    for (int k = 0; k < 1 + op->n_in; k++)
        in->p[k] = op->operands[k].data;
    in->alpha = op->scalars[0];
    return true;
}

static ct_status cg_compile(cg_graph *g, const cg_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        const cg_node *nd = &l->nodes[i];
        if (nd->is_loop) { /* start: condition...; COND pred ? body : end; body...; JUMP start */
            size_t start = g->nprog;
            ct_status st = cg_compile(g, nd->br[0]);
            if (st != CT_OK) return st;
            cg_instr *c = cg_emit(g);
            if (!c) return CT_ERR_OOM;
            size_t ci = g->nprog - 1;
            c->kind = I_COND;
            c->p[0] = nd->op.operands[0].data;
            c->pred_dtype = nd->op.operands[0].dtype;
            if ((st = cg_compile(g, nd->br[1])) != CT_OK) return st;
            cg_instr *j = cg_emit(g);
            if (!j) return CT_ERR_OOM;
            j->kind = I_JUMP;
            j->target = start;
            g->prog[ci].target = g->nprog;
            continue;
        }
        cg_instr *in = cg_emit(g);
        if (!in) return CT_ERR_OOM;
        if (!nd->is_cond) {
            if (!cg_fast(g, &nd->op, in)) {
                in->kind = I_RUN;
                in->op = &nd->op;
            }
            continue;
        }
        /* COND pred ? fallthrough(true) : target(false); true...; JUMP end; false...; end */
        size_t ci = g->nprog - 1;
        in->kind = I_COND;
        in->p[0] = nd->op.operands[0].data;
        in->pred_dtype = nd->op.operands[0].dtype;
        ct_status st = cg_compile(g, nd->br[1]);
        if (st != CT_OK) return st;
        cg_instr *j = cg_emit(g);
        if (!j) return CT_ERR_OOM;
        size_t ji = g->nprog - 1;
        j->kind = I_JUMP;
        g->prog[ci].target = g->nprog;
        if ((st = cg_compile(g, nd->br[0])) != CT_OK) return st;
        g->prog[ji].target = g->nprog;
    }
    return CT_OK;
}

static ct_status cg_instantiate(void *gs) {
    cg_graph *g = gs;
    g->nprog = 0;
    return cg_compile(g, &g->root);
}

static ct_status cg_replay(void *gs) {
    cg_graph *g = gs;
    const cg_instr *prog = g->prog;
    size_t n = g->nprog, pc = 0;
    while (pc < n) {
        const cg_instr *in = &prog[pc];
        switch (in->kind) {
        case I_BIN32: in->fn.bin32(in->n, in->p[0], in->p[1], in->p[2], (float)in->alpha); break;
        case I_BIN64: in->fn.bin64(in->n, in->p[0], in->p[1], in->p[2], in->alpha); break;
        case I_UN32: in->fn.un32(in->n, in->p[0], in->p[1]); break;
        case I_UN64: in->fn.un64(in->n, in->p[0], in->p[1]); break;
        case I_RUN: {
            ct_status st = ct__cpu_run_op(g->cpu, in->op);
            if (st != CT_OK) return st;
            break;
        }
        case I_COND:
            if (ct_k_load_f64(in->p[0], in->pred_dtype) == 0) {
                pc = in->target;
                continue;
            }
            break;
        default: /* I_JUMP */ pc = in->target; continue;
        }
        pc++;
    }
    return CT_OK;
}

static void cg_dump_list(FILE *f, const cg_list *l, int indent, int64_t *id) {
    for (size_t i = 0; i < l->n; i++) {
        const cg_node *nd = &l->nodes[i];
        if (nd->is_loop) {
            fprintf(f, "%*swhile {\n", indent, "");
            cg_dump_list(f, nd->br[0], indent + 4, id);
            fprintf(f, "%*s} pred=%p (%s) do {\n", indent, "", nd->op.operands[0].data,
                    ct_dtype_name(nd->op.operands[0].dtype));
            cg_dump_list(f, nd->br[1], indent + 4, id);
            fprintf(f, "%*s}\n", indent, "");
            continue;
        }
        if (nd->is_cond) {
            fprintf(f, "%*scond pred=%p (%s) {\n", indent, "", nd->op.operands[0].data,
                    ct_dtype_name(nd->op.operands[0].dtype));
            fprintf(f, "%*s  true:\n", indent, "");
            cg_dump_list(f, nd->br[1], indent + 4, id);
            fprintf(f, "%*s  false:\n", indent, "");
            cg_dump_list(f, nd->br[0], indent + 4, id);
            fprintf(f, "%*s}\n", indent, "");
            continue;
        }
        const ct_op_desc *op = &nd->op;
        fprintf(f, "%*s%%%lld = %s[%s]", indent, "", (long long)(*id)++, ct_op_name(op->kind),
                ct_dtype_name(op->compute_dtype));
        for (int k = 0; k < op->n_out + op->n_in; k++) {
            const ct_operand *o = &op->operands[k];
            fprintf(f, "%s %s(", k == op->n_out ? " <-" : "", ct_dtype_name(o->dtype));
            for (int d = 0; d < o->ndim; d++)
                fprintf(f, d ? "x%lld" : "%lld", (long long)o->shape[d]);
            fprintf(f, ")@%p", o->data);
        }
        fprintf(f, "\n");
    }
}

static ct_status cg_debug_dump(void *gs, const char *path) {
    cg_graph *g = gs;
    FILE *f = fopen(path, "w");
    if (!f) return CT_ERR_IO;
    fprintf(f, "# ctorch cpu graph: %lld op nodes, %zu instructions\n", (long long)g->nodes,
            g->nprog);
    int64_t id = 0;
    cg_dump_list(f, &g->root, 0, &id);
    return fclose(f) == 0 ? CT_OK : CT_ERR_IO;
}

static int64_t cg_num_nodes(void *gs) { return ((cg_graph *)gs)->nodes; }

const ct_graph_impl ct__cpu_graph_impl = {
    .size = sizeof(ct_graph_impl),
    .abi_version = CT_GRAPH_IMPL_ABI_VERSION,
    .create = cg_create,
    .destroy = cg_destroy,
    .capture_begin = cg_capture_begin,
    .record = cg_record,
    .add_conditional = cg_add_conditional,
    .cond_branch = cg_cond_branch,
    .cond_end = cg_cond_end,
    .capture_end = cg_capture_end,
    .instantiate = cg_instantiate,
    .replay = cg_replay,
    .reset = cg_reset,
    .debug_dump = cg_debug_dump,
    .num_nodes = cg_num_nodes,
    .loop_begin = cg_loop_begin,
    .loop_body = cg_loop_body,
    .loop_end = cg_cond_end,
};

/* CPU graph implementation. Capture builds a node tree (ops, and conditionals with two branch
 * lists); instantiate flattens it into one instruction array where contiguous f32/f64 elementwise
 * ops below the threading threshold call the ISA loop directly with resolved pointers, conditionals
 * become a test-and-jump on the predicate's memory, loops a condition, a test, the body and a jump
 * back, and everything else calls the backend's op runner on its stored descriptor. Replay is a
 * tight loop over that array.
 *
 * Planned instantiation (the front end names the graph-private buffers) adds two passes:
 * - fusion: a run of consecutive contiguous f32/f64 elementwise instructions over the same number
 *   of elements becomes one instruction that walks the elements in tiles of CG_TILE_BYTES, running
 *   the whole chain on one tile (in L1) before the next. A private intermediate that only the chain
 *   touches lives in a tile-sized scratch slot and is never written to memory. Each element meets
 *   the same ISA loops, in the same order, as in eager mode (the loops are elementwise, no
 *   reassociation, no contraction), so results are bit-identical.
 * - memory planning: the other private buffers get live intervals over the instruction array and
 *   share one arena (core/plan.h); their recorded addresses are rewritten. A buffer whose first
 *   access reads it (state carried from the previous replay), is not fully written first, or is
 *   reached outside the branch or loop that first writes it stays where it is. */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/kernels/ew.h"
#include "core/plan.h"
#include "ctorch/graph.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
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

enum { I_BIN32, I_BIN64, I_UN32, I_UN64, I_RUN, I_COND, I_JUMP, I_FUSED, I_EW };

typedef union cg_fn {
    void (*bin32)(int64_t, float *, const float *, const float *, float);
    void (*bin64)(int64_t, double *, const double *, const double *, double);
    void (*un32)(int64_t, float *, const float *);
    void (*un64)(int64_t, double *, const double *);
} cg_fn;

/* Fused chains: a step's operand is memory (CG_MEM) or a scratch tile slot. */
#define CG_TILE_BYTES 8192
#define CG_MAX_SLOTS 16
#define CG_BC 16 /* CG_BC + i: broadcast scalar i, spread over a tile at the start of a range */
#define CG_MAX_BC 8
#define CG_MAX_PF 8
#define CG_SLOT_STRIDE (CG_TILE_BYTES + 320)
#define CG_MEM 255
typedef union cg_pfn {
    void (*f32)(int64_t, float *, const float *, const float *, const float *, float, float);
    void (*f64)(int64_t, double *, const double *, const double *, const double *, double, double);
} cg_pfn;
typedef struct cg_step {
    const ct_op_desc *pre; /* a one-element FILL run before the tiles (no loop), or NULL */
    bool bin;
    int8_t kidx;
    /* pair: this step and the next run as one ISA pair loop (the next one's in0 is this one's
     * scratch output, read nowhere else): out = next.out, c = next.in1, al2 = next.alpha */
    bool pair, paired;
    cg_pfn pfn;
    uint8_t ref[3]; /* out, in0, in1: scratch slot, CG_BC + i or CG_MEM */
    void *p[3];     /* memory operands (element 0) */
    double alpha;
    cg_fn fn; /* the ISA loop (by dtype and bin) */
} cg_step;
typedef struct cg_fused {
    ct_dtype dt;
    int64_t n;
    int nsteps, num_threads, nbc, npf;
    size_t first;        /* its first instruction; the chain is prog[first, first + nsteps) */
    int64_t tile;        /* elements per tile (a multiple of 64, at most CG_TILE_BYTES) */
    void *bc[CG_MAX_BC]; /* broadcast scalars */
    void *pf[CG_MAX_PF]; /* distinct memory inputs, prefetched a tile ahead */
    cg_step *steps;
} cg_fused;

typedef struct cg_instr {
    int kind;
    int region; /* innermost branch or loop region (0: top level) */
    int64_t n;  /* elements (fast paths) */
    void *p[3]; /* out, in0, in1 (fast paths); predicate pointer for I_COND */
    double alpha;
    cg_fn fn;
    const ct_op_desc *op; /* I_RUN, I_EW and the fast kinds: the node's descriptor */
    ct_dtype dt;          /* I_COND: the predicate's dtype; I_EW: the compute dtype */
    bool bin;             /* I_EW: binary loop */
    uint8_t bcast;        /* I_EW: bit k set when operand k is one broadcast element */
    int8_t kidx;          /* I_EW: slot in the ISA table's bin_* / un_* arrays */
    size_t target;        /* I_COND: where false goes; I_JUMP: destination; I_FUSED: next */
    int64_t fused;        /* I_FUSED: index into cg_graph.fused */
} cg_instr;

/* A branch of a conditional or a whole loop: instructions [start, end). */
typedef struct cg_region {
    size_t start, end;
    int parent;
} cg_region;

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
    cg_region *regions;
    int nregions, capregions;
    cg_fused *fused;
    int64_t nfused;
    void *arena; /* planned private buffers */
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

static void cg_free_compiled(cg_graph *g) {
    ct_ctx *ctx = cg_ctx(g);
    for (int64_t i = 0; i < g->nfused; i++)
        ct__free(ctx, g->fused[i].steps);
    ct__free(ctx, g->fused);
    ct__free(ctx, g->regions);
    ct__free(ctx, g->prog);
    g->fused = NULL;
    g->nfused = 0;
    g->regions = NULL;
    g->nregions = g->capregions = 0;
    g->prog = NULL;
    g->nprog = g->capprog = 0;
}

static ct_status cg_reset(void *gs) {
    cg_graph *g = gs;
    cg_list_free(cg_ctx(g), &g->root);
    cg_free_compiled(g);
    ct__free(cg_ctx(g), g->arena);
    g->arena = NULL;
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

/* Contiguous, unbroadcast, same-dtype f32/f64 elementwise op with an ISA loop: resolved into `in`
 * as I_EW (element count, pointers, loop). Finalisation turns it into a direct call when it is
 * small enough to stay on one thread, into a step of a fused chain, or back into I_RUN. */
static bool cg_ew_match(cg_graph *g, const ct_op_desc *op, cg_instr *in) {
    int bi = ct_k_bin_index(op->kind), ui = ct_k_un_index(op->kind);
    if (op->kind == CT_OP_GELU) ui = op->ints[0] ? CT_K_GELU_TANH : -1; /* as the eager path */
    if ((bi < 0 && ui < 0) || op->n_out != 1 || op->n_in != (bi >= 0 ? 2 : 1)) return false;
    ct_dtype dt = op->compute_dtype;
    if (dt != CT_FLOAT32 && dt != CT_FLOAT64) return false;
    const ct_operand *o = &op->operands[0];
    int64_t n = 1;
    for (int d = 0; d < o->ndim; d++)
        n *= o->shape[d];
    if (n <= 0) return false;
    uint8_t bcast = 0;
    for (int k = 0; k < 1 + op->n_in; k++) {
        const ct_operand *x = &op->operands[k];
        if (x->dtype != dt || x->ndim != o->ndim || !x->data) return false;
        int64_t s = 1;
        bool contig = true, scalar = k > 0; /* an input may be one element broadcast */
        for (int d = x->ndim - 1; d >= 0; d--) {
            if (x->shape[d] != o->shape[d]) return false;
            if (x->shape[d] != 1 && x->strides[d] != s) contig = false;
            if (x->shape[d] != 1 && x->strides[d] != 0) scalar = false;
            s *= x->shape[d];
        }
        if (!contig && !scalar) return false;
        if (!contig) bcast |= (uint8_t)(1u << k);
    }
    const ct_k_isa *isa = g->cpu->isa;
    if (bi >= 0) {
        if (dt == CT_FLOAT32 ? !isa->bin_f32[bi] : !isa->bin_f64[bi]) return false;
        if (dt == CT_FLOAT32)
            in->fn.bin32 = isa->bin_f32[bi];
        else
            in->fn.bin64 = isa->bin_f64[bi];
    } else {
        if (dt == CT_FLOAT32 ? !isa->un_f32[ui] : !isa->un_f64[ui]) return false;
        if (dt == CT_FLOAT32)
            in->fn.un32 = isa->un_f32[ui];
        else
            in->fn.un64 = isa->un_f64[ui];
    }
    in->kind = I_EW;
    in->bcast = bcast;
    in->kidx = (int8_t)(bi >= 0 ? bi : ui);
    in->bin = bi >= 0;
    in->dt = dt;
    in->n = n;
    for (int k = 0; k < 1 + op->n_in; k++)
        in->p[k] = op->operands[k].data;
    in->alpha = op->scalars[0];
    return true;
}

static int cg_region_new(cg_graph *g, int parent) {
    if (g->nregions == g->capregions) {
        int nc = g->capregions ? g->capregions * 2 : 16;
        cg_region *nr = ct__alloc(cg_ctx(g), (size_t)nc * sizeof *nr, 16);
        if (!nr) return -1;
        if (g->regions) memcpy(nr, g->regions, (size_t)g->nregions * sizeof *nr);
        ct__free(cg_ctx(g), g->regions);
        g->regions = nr;
        g->capregions = nc;
    }
    g->regions[g->nregions] = (cg_region){g->nprog, g->nprog, parent};
    return g->nregions++;
}

static cg_instr *cg_emit_in(cg_graph *g, int region) {
    cg_instr *in = cg_emit(g);
    if (in) {
        in->region = region;
        in->fused = -1;
    }
    return in;
}

static ct_status cg_compile(cg_graph *g, const cg_list *l, int region) {
    for (size_t i = 0; i < l->n; i++) {
        cg_node *nd = &l->nodes[i];
        if (nd->is_loop) { /* start: condition...; COND pred ? body : end; body...; JUMP start */
            int r = cg_region_new(g, region);
            if (r < 0) return CT_ERR_OOM;
            size_t start = g->nprog;
            ct_status st = cg_compile(g, nd->br[0], r);
            if (st != CT_OK) return st;
            cg_instr *c = cg_emit_in(g, r);
            if (!c) return CT_ERR_OOM;
            size_t ci = g->nprog - 1;
            c->kind = I_COND;
            c->p[0] = nd->op.operands[0].data;
            c->dt = nd->op.operands[0].dtype;
            if ((st = cg_compile(g, nd->br[1], r)) != CT_OK) return st;
            cg_instr *j = cg_emit_in(g, r);
            if (!j) return CT_ERR_OOM;
            j->kind = I_JUMP;
            j->target = start;
            g->prog[ci].target = g->nprog;
            g->regions[r].end = g->nprog;
            continue;
        }
        cg_instr *in = cg_emit_in(g, region);
        if (!in) return CT_ERR_OOM;
        if (!nd->is_cond) {
            in->op = &nd->op;
            if (!cg_ew_match(g, &nd->op, in)) in->kind = I_RUN;
            continue;
        }
        /* COND pred ? fallthrough(true) : target(false); true...; JUMP end; false...; end */
        size_t ci = g->nprog - 1;
        in->kind = I_COND;
        in->p[0] = nd->op.operands[0].data;
        in->dt = nd->op.operands[0].dtype;
        int rt = cg_region_new(g, region);
        if (rt < 0) return CT_ERR_OOM;
        ct_status st = cg_compile(g, nd->br[1], rt);
        if (st != CT_OK) return st;
        cg_instr *j = cg_emit_in(g, rt);
        if (!j) return CT_ERR_OOM;
        size_t ji = g->nprog - 1;
        j->kind = I_JUMP;
        g->regions[rt].end = g->nprog;
        g->prog[ci].target = g->nprog;
        int rf = cg_region_new(g, region);
        if (rf < 0) return CT_ERR_OOM;
        if ((st = cg_compile(g, nd->br[0], rf)) != CT_OK) return st;
        g->regions[rf].end = g->nprog;
        g->prog[ji].target = g->nprog;
    }
    return CT_OK;
}

/* ---- fusion ---- */
static size_t cg_esize(ct_dtype dt) { return dt == CT_FLOAT64 ? 8 : 4; }

/* One scalar set by FILL just before it is used (ct_mul_scalar and friends): such a FILL can run
 * ahead of the chain it sits in. */
static bool cg_scalar_fill(const cg_instr *in) {
    if (in->kind != I_RUN || in->op->kind != CT_OP_FILL || in->op->n_out != 1) return false;
    const ct_operand *o = &in->op->operands[0];
    for (int d = 0; d < o->ndim; d++)
        if (o->shape[d] != 1) return false;
    return o->data != NULL;
}

typedef struct cg_rng {
    const char *p;
    size_t len;
} cg_rng;

/* A new range may join when it equals a range of the chain or is disjoint from all of them. */
static bool cg_rng_ok(const cg_rng *r, size_t n, const char *p, size_t len) {
    for (size_t q = 0; q < n; q++)
        if (!(r[q].p == p && r[q].len == len) && p < r[q].p + r[q].len && r[q].p < p + len)
            return false;
    return true;
}

static bool cg_rng_add(cg_graph *g, cg_rng **r, size_t *n, size_t *cap, const char *p, size_t len) {
    for (size_t q = 0; q < *n; q++)
        if ((*r)[q].p == p && (*r)[q].len == len) return true;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        cg_rng *nr = ct__alloc(cg_ctx(g), nc * sizeof *nr, 16);
        if (!nr) return false;
        if (*r) memcpy(nr, *r, *n * sizeof *nr);
        ct__free(cg_ctx(g), *r);
        *r = nr;
        *cap = nc;
    }
    (*r)[(*n)++] = (cg_rng){p, len};
    return true;
}

/* Byte length operand k of an I_EW instruction reads or writes. */
static size_t cg_ew_len(const cg_instr *in, int k) {
    return (in->bcast >> k & 1) ? cg_esize(in->dt) : (size_t)in->n * cg_esize(in->dt);
}

/* Group runs of I_EW instructions (same list, same dtype and element count, no jump landing
 * inside; one-element FILLs in between run ahead of the chain) into fused chains. A step joins only
 * if each of its operand ranges equals a range already in the chain or is disjoint from all of
 * them: then tile order cannot change what any element reads. */
static ct_status cg_fuse(cg_graph *g) {
    size_t n = g->nprog;
    bool *target = ct__alloc(cg_ctx(g), n + 1, 16);
    cg_rng *rng = NULL;
    size_t cap = 0;
    if (!target) return CT_ERR_OOM;
    memset(target, 0, n + 1);
    for (size_t i = 0; i < n; i++)
        if (g->prog[i].kind == I_COND || g->prog[i].kind == I_JUMP) target[g->prog[i].target] = 1;
    ct_status st = CT_OK;
    size_t i = 0;
    while (i < n && st == CT_OK) {
        const cg_instr *a = &g->prog[i];
        if (a->kind != I_EW) {
            i++;
            continue;
        }
        size_t nr = 0, j = i, end = i, nsteps = 0, nsteps_end = 0;
        const char *bc[CG_MAX_BC];
        int nbc = 0, nbc_end = 0;
        for (; j < n; j++) {
            const cg_instr *b = &g->prog[j];
            if (b->region != a->region || (j > i && target[j])) break;
            if (cg_scalar_fill(b)) {
                const ct_operand *o = &b->op->operands[0];
                size_t len = ct__itemsize(o->dtype);
                if (!cg_rng_ok(rng, nr, o->data, len)) break;
                if (!cg_rng_add(g, &rng, &nr, &cap, o->data, len)) {
                    st = CT_ERR_OOM;
                    break;
                }
                continue;
            }
            if (b->kind != I_EW || b->dt != a->dt || b->n != a->n) break;
            int nops = b->bin ? 3 : 2, nbc_new = nbc;
            const char *bc_new[CG_MAX_BC];
            memcpy(bc_new, bc, sizeof bc);
            bool ok = true;
            for (int k = 0; k < nops && ok; k++) {
                ok = cg_rng_ok(rng, nr, b->p[k], cg_ew_len(b, k));
                if (ok && (b->bcast >> k & 1)) {
                    int q = 0;
                    while (q < nbc_new && bc_new[q] != b->p[k])
                        q++;
                    if (q == nbc_new) {
                        if (nbc_new == CG_MAX_BC)
                            ok = false;
                        else
                            bc_new[nbc_new++] = b->p[k];
                    }
                }
            }
            if (!ok) break;
            for (int k = 0; k < nops && st == CT_OK; k++)
                if (!cg_rng_add(g, &rng, &nr, &cap, b->p[k], cg_ew_len(b, k))) st = CT_ERR_OOM;
            if (st != CT_OK) break;
            memcpy(bc, bc_new, sizeof bc);
            nbc = nbc_new;
            nsteps++;
            end = j + 1; /* a chain ends at its last step, not at a trailing FILL */
            nsteps_end = nsteps;
            nbc_end = nbc;
        }
        if (st != CT_OK) break;
        j = end;
        if (nsteps_end >= 2) {
            if ((size_t)g->nfused % 16 == 0) {
                cg_fused *nf = ct__alloc(cg_ctx(g), ((size_t)g->nfused + 16) * sizeof *nf, 16);
                if (!nf) {
                    st = CT_ERR_OOM;
                    break;
                }
                if (g->fused) memcpy(nf, g->fused, (size_t)g->nfused * sizeof *nf);
                ct__free(cg_ctx(g), g->fused);
                g->fused = nf;
            }
            cg_fused *f = &g->fused[g->nfused];
            memset(f, 0, sizeof *f);
            f->steps = ct__alloc(cg_ctx(g), (j - i) * sizeof(cg_step), 16);
            if (!f->steps) {
                st = CT_ERR_OOM;
                break;
            }
            f->dt = a->dt;
            f->n = a->n;
            f->num_threads = a->op->num_threads;
            f->nbc = nbc_end;
            for (int q = 0; q < nbc_end; q++)
                f->bc[q] = (void *)bc[q];
            for (size_t k = i; k < j; k++) {
                cg_instr *b = &g->prog[k];
                b->fused = g->nfused;
                if (b->kind != I_EW) { /* a FILL: runs before the tiles */
                    f->steps[f->nsteps++] = (cg_step){.pre = b->op};
                    continue;
                }
                cg_step *s = &f->steps[f->nsteps++];
                memset(s, 0, sizeof *s);
                s->bin = b->bin;
                s->kidx = b->kidx;
                s->alpha = b->alpha;
                s->fn = b->fn;
                for (int q = 0; q < 3; q++) {
                    s->p[q] = b->p[q];
                    s->ref[q] = CG_MEM;
                    if (b->bcast >> q & 1) {
                        int z = 0;
                        while (f->bc[z] != b->p[q])
                            z++;
                        s->ref[q] = (uint8_t)(CG_BC + z);
                    }
                }
            }
            f->first = i;
            g->prog[i].kind = I_FUSED;
            g->prog[i].target = j;
            g->nfused++;
        }
        i = j > i ? j : i + 1;
    }
    ct__free(cg_ctx(g), rng);
    ct__free(cg_ctx(g), target);
    return st;
}

/* Tiles [b, e) of a fused chain: every step over one tile, then the next tile. */
static void cg_fused_range(void *arg, int64_t b, int64_t e) {
    const cg_fused *f = arg;
    size_t es = cg_esize(f->dt);
    int64_t T = f->tile;
    /* slots CG_SLOT_STRIDE apart: not a multiple of 4 KiB, so a load from one slot never waits
     * on a store to another at the same page offset (4K aliasing) */
    alignas(64) char scratch[CG_MAX_SLOTS + CG_MAX_BC][CG_SLOT_STRIDE];
    for (int z = 0; z < f->nbc; z++) { /* broadcast scalars spread over a tile */
        if (f->dt == CT_FLOAT32) {
            float v = *(const float *)f->bc[z], *d = (float *)scratch[CG_MAX_SLOTS + z];
            for (int64_t i = 0; i < T; i++)
                d[i] = v;
        } else {
            double v = *(const double *)f->bc[z], *d = (double *)scratch[CG_MAX_SLOTS + z];
            for (int64_t i = 0; i < T; i++)
                d[i] = v;
        }
    }
    for (int64_t t = b; t < e; t++) {
        int64_t off = t * T, len = f->n - off < T ? f->n - off : T;
        if (t + 1 < e) { /* pipelining: the next tile's memory inputs are on their way */
            size_t nbytes = (size_t)(f->n - off - T < T ? f->n - off - T : T) * es;
            for (int z = 0; z < f->npf; z++) {
                const char *q = (const char *)f->pf[z] + (size_t)(off + T) * es;
                for (size_t c = 0; c < nbytes; c += 64)
                    __builtin_prefetch(q + c, 0, 3);
            }
        }
        for (int si = 0; si < f->nsteps; si++) {
            const cg_step *s = &f->steps[si];
            if (s->pre || s->paired) continue;
            if (s->pair) {
                const cg_step *s2 = &f->steps[si + 1];
                void *q[4];
                const uint8_t refs[4] = {s2->ref[0], s->ref[1], s->ref[2], s2->ref[2]};
                void *const ps[4] = {s2->p[0], s->p[1], s->p[2], s2->p[2]};
                const bool used[4] = {true, true, s->bin, s2->bin};
                for (int k = 0; k < 4; k++)
                    q[k] = !used[k]            ? NULL
                           : refs[k] == CG_MEM ? (char *)ps[k] + (size_t)off * es
                           : refs[k] >= CG_BC  ? (void *)scratch[CG_MAX_SLOTS + refs[k] - CG_BC]
                                               : (void *)scratch[refs[k]];
                if (f->dt == CT_FLOAT32)
                    s->pfn.f32(len, q[0], q[1], q[2], q[3], (float)s->alpha, (float)s2->alpha);
                else
                    s->pfn.f64(len, q[0], q[1], q[2], q[3], s->alpha, s2->alpha);
                continue;
            }
            void *q[3] = {NULL, NULL, NULL};
            for (int k = 0; k < (s->bin ? 3 : 2); k++)
                q[k] = s->ref[k] == CG_MEM  ? (char *)s->p[k] + (size_t)off * es
                       : s->ref[k] >= CG_BC ? (void *)scratch[CG_MAX_SLOTS + s->ref[k] - CG_BC]
                                            : (void *)scratch[s->ref[k]];
            if (f->dt == CT_FLOAT32) {
                if (s->bin)
                    s->fn.bin32(len, q[0], q[1], q[2], (float)s->alpha);
                else
                    s->fn.un32(len, q[0], q[1]);
            } else {
                if (s->bin)
                    s->fn.bin64(len, q[0], q[1], q[2], s->alpha);
                else
                    s->fn.un64(len, q[0], q[1]);
            }
        }
    }
}

static ct_status cg_fused_run(cg_graph *g, const cg_fused *f) {
    for (int si = 0; si < f->nsteps; si++)
        if (f->steps[si].pre) {
            ct_status st = ct__cpu_run_op(g->cpu, f->steps[si].pre);
            if (st != CT_OK) return st;
        }
    int64_t T = f->tile;
    int64_t ntiles = (f->n + T - 1) / T, work = f->n * f->nsteps;
    if (f->num_threads <= 1 || ntiles < 2 || work < 2 * CT_K_PAR_THRESHOLD) {
        cg_fused_range((void *)f, 0, ntiles);
        return CT_OK;
    }
    /* a few chunks per thread: enough to balance a late thread, few enough that spreading the
     * broadcast scalars (once per chunk) costs nothing */
    int64_t grain = ntiles / ((int64_t)f->num_threads * 8);
    ct_k_pool_slot *prev = ct_k_pool_enter(&g->cpu->pool);
    ct_k_parallel_for(ntiles, grain < 1 ? 1 : grain, f->num_threads, cg_fused_range, (void *)f);
    ct_k_pool_leave(prev);
    return CT_OK;
}

/* ---- liveness and memory planning over the private buffers ---- */
typedef struct cg_buf {
    char *lo, *hi; /* [lo, hi) */
    int64_t orig;  /* index in the front end's array */
    int64_t first, last, last_raw;
    int first_region;
    int64_t grp; /* fused chain of every access, -1 none, -2 several */
    bool seen, full_first, pinned, scratch, reloc;
    int slot;
    size_t offset;
} cg_buf;

static int cg_buf_cmp(const void *x, const void *y) {
    const cg_buf *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static cg_buf *cg_find(cg_buf *bufs, int64_t n, const char *p) {
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t m = lo + (hi - lo) / 2;
        if (p < bufs[m].lo)
            hi = m - 1;
        else if (p >= bufs[m].hi)
            lo = m + 1;
        else
            return &bufs[m];
    }
    return NULL;
}

/* Byte range an operand addresses; false when it addresses nothing. */
static bool cg_range(const ct_operand *o, char **lo, char **hi, bool *dense) {
    if (!o->data) return false;
    size_t es = ct__itemsize(o->dtype);
    int64_t mn = 0, mx = 0, numel = 1;
    for (int d = 0; d < o->ndim; d++) {
        if (o->shape[d] == 0) return false;
        int64_t e = (o->shape[d] - 1) * o->strides[d];
        if (e < 0)
            mn += e;
        else
            mx += e;
        numel *= o->shape[d];
    }
    *lo = (char *)o->data + mn * (int64_t)es;
    *hi = (char *)o->data + (mx + 1) * (int64_t)es;
    *dense = (mx - mn + 1) == numel;
    return true;
}

/* Kinds whose outputs are written whole (no read-modify-write, no part left untouched). */
static bool cg_writes_whole(ct_op_kind k) {
    switch (k) {
    case CT_OP_SCATTER:
    case CT_OP_OPTIM_STEP:
    case CT_OP_EIGH:
    case CT_OP_MX_QUANTIZE:
    case CT_OP_MX_DEQUANTIZE:
    case CT_OP_MX_LINEAR: return false;
    default: return k >= 0 && k < CT_OP_COUNT;
    }
}

static bool cg_region_has(const cg_graph *g, int r, int64_t pos) {
    return (int64_t)g->regions[r].start <= pos && pos < (int64_t)g->regions[r].end;
}

typedef struct cg_touch {
    cg_buf *b;
    bool read, whole, nochain; /* nochain: not a tile-wise operand of a fused step */
} cg_touch;

/* Record the accesses of instruction pc. */
static void cg_access(cg_graph *g, cg_buf *bufs, int64_t nb, int64_t pc) {
    const cg_instr *in = &g->prog[pc];
    cg_touch t[CT_OP_MAX_OPERANDS + 1];
    int nt = 0;
    if (in->kind == I_COND) {
        cg_buf *b = cg_find(bufs, nb, in->p[0]);
        if (b) t[nt++] = (cg_touch){b, true, false, true};
    } else if (in->op) {
        const ct_op_desc *op = in->op;
        for (int k = 0; k < op->n_out + op->n_in && k < CT_OP_MAX_OPERANDS; k++) {
            char *lo, *hi;
            bool dense;
            if (!cg_range(&op->operands[k], &lo, &hi, &dense)) continue;
            cg_buf *b = cg_find(bufs, nb, lo);
            if (!b) continue;
            bool out = k < op->n_out;
            bool whole = out && dense && lo == b->lo && hi == b->hi && cg_writes_whole(op->kind);
            bool tile = in->fused >= 0 && (in->kind == I_EW || in->kind == I_FUSED) &&
                        !(in->bcast >> k & 1);
            int q = 0;
            while (q < nt && t[q].b != b)
                q++;
            if (q == nt) t[nt++] = (cg_touch){b, false, false, false};
            if (!tile) t[q].nochain = true;
            if (out)
                t[q].whole = t[q].whole || whole;
            else
                t[q].read = true;
            if (out && !whole) t[q].read = true; /* a partial write keeps the rest: a read */
        }
    }
    int64_t gs = pc, ge = pc;
    if (in->fused >= 0) { /* a chain runs interleaved: all of it is one point in time */
        const cg_fused *f = &g->fused[in->fused];
        gs = (int64_t)f->first;
        ge = gs + f->nsteps - 1;
    }
    for (int q = 0; q < nt; q++) {
        cg_buf *b = t[q].b;
        if (!b->seen) {
            b->seen = true;
            b->first = gs;
            b->first_region = in->region;
            b->full_first = t[q].whole && !t[q].read;
            b->grp = in->fused;
        } else if (b->grp != in->fused)
            b->grp = -2;
        if (t[q].nochain) b->grp = -2; /* read or written other than tile by tile */
        /* the first access's branch or loop must contain every other access */
        int r = in->region;
        while (r > 0 && r != b->first_region)
            r = g->regions[r].parent;
        if (r != b->first_region) b->pinned = true;
        /* inside a branch or loop that does not contain the first access, the buffer is live to
         * its end (a loop runs its body again; a branch may not run) */
        int64_t e = ge;
        for (r = in->region; r > 0; r = g->regions[r].parent)
            if (!cg_region_has(g, r, b->first) && (int64_t)g->regions[r].end - 1 > e)
                e = (int64_t)g->regions[r].end - 1;
        if (e > b->last) b->last = e;
        b->last_raw = pc;
    }
}

static void *cg_reloc(cg_graph *g, cg_buf *bufs, int64_t nb, void *p) {
    cg_buf *b = p ? cg_find(bufs, nb, p) : NULL;
    if (!b || !b->reloc) return p;
    return (char *)g->arena + b->offset + ((char *)p - b->lo);
}

/* Scratch slots of one fused chain by liveness inside it; buffers that find no free slot stay in
 * memory. */
static void cg_assign_slots(cg_graph *g, cg_buf *bufs, int64_t nb, int64_t fi) {
    cg_fused *f = &g->fused[fi];
    const size_t first = f->first;
    bool used[CG_MAX_SLOTS] = {0};
    for (int si = 0; si < f->nsteps; si++) {
        cg_step *s = &f->steps[si];
        int64_t pc = (int64_t)first + si;
        if (s->pre) continue;
        int nops = s->bin ? 3 : 2;
        cg_buf *ob[3] = {NULL, NULL, NULL};
        for (int k = 0; k < nops; k++) {
            ob[k] = s->ref[k] == CG_MEM ? cg_find(bufs, nb, s->p[k]) : NULL;
            if (ob[k] && !ob[k]->scratch) ob[k] = NULL;
        }
        for (int k = 1; k < nops; k++)
            if (ob[k]) s->ref[k] = (uint8_t)ob[k]->slot;
        if (ob[0]) {
            if (ob[0]->slot < 0) {
                int sl = 0;
                while (sl < CG_MAX_SLOTS && used[sl])
                    sl++;
                if (sl == CG_MAX_SLOTS) {
                    ob[0]->scratch = false; /* first touched here: nothing refers to a slot */
                    ob[0] = NULL;
                } else {
                    used[sl] = true;
                    ob[0]->slot = sl;
                }
            }
            if (ob[0]) s->ref[0] = (uint8_t)ob[0]->slot;
        }
        for (int k = 0; k < nops; k++)
            if (ob[k] && ob[k]->last_raw == pc) used[ob[k]->slot] = false;
    }
    /* pairs: two adjacent binary steps where the second's in0 is the first's scratch output and
     * nothing else reads it run as one loop, so that intermediate is not even stored to a tile */
    const ct_k_isa *isa = g->cpu->isa;
    for (int si = 0; si + 1 < f->nsteps; si++) {
        cg_step *a = &f->steps[si], *b = &f->steps[si + 1];
        int ka = a->bin ? a->kidx : CT_K_PAIR_UN + a->kidx;
        int kb = b->bin ? b->kidx : CT_K_PAIR_UN + b->kidx;
        if (a->pre || b->pre || a->paired || ka >= CT_K_PAIR_COUNT || kb >= CT_K_PAIR_COUNT)
            continue;
        if (a->ref[0] >= CG_MAX_SLOTS || b->ref[1] != a->ref[0] ||
            (b->bin && b->ref[2] == a->ref[0]))
            continue;
        cg_buf *t = cg_find(bufs, nb, a->p[0]);
        if (!t || !t->scratch || t->last_raw != (int64_t)first + si + 1) continue;
        if (f->dt == CT_FLOAT32)
            a->pfn.f32 = isa->pair_f32[ka][kb];
        else
            a->pfn.f64 = isa->pair_f64[ka][kb];
        if (f->dt == CT_FLOAT32 ? !a->pfn.f32 : !a->pfn.f64) continue;
        a->pair = b->paired = true;
        si++;
    }
}

static ct_status cg_instantiate_planned(void *gs, ct_graph_buffer *gb, int64_t ngb,
                                        ct_graph_mem_stats *stats) {
    cg_graph *g = gs;
    ct_ctx *ctx = cg_ctx(g);
    cg_free_compiled(g);
    ct__free(ctx, g->arena);
    g->arena = NULL;
    cg_buf *bufs = NULL;
    int64_t *work = NULL;
    ct__plan_buf *plan = NULL;
    ct_status st = cg_region_new(g, 0) < 0 ? CT_ERR_OOM : CT_OK;
    if (st == CT_OK) st = cg_compile(g, &g->root, 0);
    if (st == CT_OK) {
        g->regions[0].end = g->nprog;
        st = cg_fuse(g);
    }
    int64_t nb = 0;
    if (st == CT_OK && ngb > 0) {
        bufs = ct__alloc(ctx, (size_t)ngb * sizeof *bufs, 16);
        plan = ct__alloc(ctx, (size_t)ngb * sizeof *plan, 16);
        work = ct__alloc(ctx, (size_t)ngb * 2 * sizeof *work, 16);
        if (!bufs || !plan || !work) st = CT_ERR_OOM;
    }
    if (st == CT_OK) {
        for (int64_t i = 0; i < ngb; i++) {
            if (!gb[i].data || gb[i].bytes == 0) continue;
            cg_buf *b = &bufs[nb++];
            memset(b, 0, sizeof *b);
            b->lo = gb[i].data;
            b->hi = b->lo + gb[i].bytes;
            b->orig = i;
            b->first = b->last = -1;
            b->slot = -1;
        }
        if (nb > 1) qsort(bufs, (size_t)nb, sizeof *bufs, cg_buf_cmp);
        for (size_t pc = 0; pc < g->nprog; pc++)
            cg_access(g, bufs, nb, (int64_t)pc);
    }
    size_t arena = 0;
    int64_t np = 0;
    if (st == CT_OK) {
        for (int64_t i = 0; i < nb; i++) {
            cg_buf *b = &bufs[i];
            if (!b->full_first) b->pinned = true;
            b->scratch = b->seen && !b->pinned && b->grp >= 0;
        }
        for (int64_t fi = 0; fi < g->nfused; fi++)
            cg_assign_slots(g, bufs, nb, fi);
        for (int64_t i = 0; i < nb; i++) {
            cg_buf *b = &bufs[i];
            if (b->seen && !b->pinned && !b->scratch)
                plan[np++] = (ct__plan_buf){b->first, b->last, (size_t)(b->hi - b->lo), 0};
        }
        arena = ct__plan_arena(plan, np, 64, work);
        if (arena == SIZE_MAX) st = CT_ERR_OVERFLOW;
        if (st == CT_OK && arena > 0 && !(g->arena = ct__alloc(ctx, arena, 64))) st = CT_ERR_OOM;
    }
    if (st != CT_OK) {
        ct__free(ctx, bufs), ct__free(ctx, plan), ct__free(ctx, work);
        cg_free_compiled(g);
        return st;
    }
    /* nothing below fails: rewrite addresses, finalise instruction kinds, report */
    int64_t k = 0;
    ct_graph_mem_stats ms;
    memset(&ms, 0, sizeof ms);
    for (int64_t i = 0; i < nb; i++) {
        cg_buf *b = &bufs[i];
        int64_t bytes = (int64_t)(b->hi - b->lo);
        ms.private_buffers++;
        ms.private_bytes += bytes;
        if (b->seen && !b->pinned && !b->scratch) {
            b->reloc = true;
            b->offset = plan[k++].offset;
        }
        if (b->scratch)
            ms.fused_bytes += bytes;
        else if (!b->reloc)
            ms.pinned_bytes += bytes;
        gb[b->orig].moved = b->scratch || b->reloc;
    }
    ms.planned_bytes = (int64_t)arena;
    for (size_t pc = 0; pc < g->nprog; pc++) {
        cg_instr *in = &g->prog[pc];
        if (in->op) {
            ct_op_desc *op = (ct_op_desc *)in->op; /* the node's own copy */
            for (int q = 0; q < op->n_out + op->n_in && q < CT_OP_MAX_OPERANDS; q++)
                op->operands[q].data = cg_reloc(g, bufs, nb, op->operands[q].data);
        }
        if (in->kind == I_COND) in->p[0] = cg_reloc(g, bufs, nb, in->p[0]);
        if (in->kind == I_EW) {
            for (int q = 0; q < 3; q++)
                in->p[q] = cg_reloc(g, bufs, nb, in->p[q]);
            if (in->fused < 0) {
                if (in->bcast || (in->n >= CT_K_PAR_THRESHOLD && in->op->num_threads > 1))
                    in->kind = I_RUN;
                else
                    in->kind = in->dt == CT_FLOAT32 ? (in->bin ? I_BIN32 : I_UN32)
                                                    : (in->bin ? I_BIN64 : I_UN64);
            }
        }
    }
    for (int64_t fi = 0; fi < g->nfused; fi++) {
        cg_fused *f = &g->fused[fi];
        ms.fused_chains++;
        for (int si = 0; si < f->nsteps; si++)
            ms.fused_ops += !f->steps[si].pre;
        for (int z = 0; z < f->nbc; z++)
            f->bc[z] = cg_reloc(g, bufs, nb, f->bc[z]);
        /* tiles: at most CG_TILE_BYTES, and at least one per thread when the chain is split */
        int64_t tmax = (int64_t)(CG_TILE_BYTES / cg_esize(f->dt));
        f->tile = tmax;
        if (f->num_threads > 1 && f->n * f->nsteps >= 2 * CT_K_PAR_THRESHOLD) {
            int64_t per = (f->n + f->num_threads - 1) / f->num_threads;
            per = (per + 63) & ~(int64_t)63;
            if (per < f->tile) f->tile = per;
        }
        for (int si = 0; si < f->nsteps; si++)
            for (int q = 0; q < 3; q++)
                if (!f->steps[si].pre && f->steps[si].ref[q] == CG_MEM)
                    f->steps[si].p[q] = cg_reloc(g, bufs, nb, f->steps[si].p[q]);
        for (int si = 0; si < f->nsteps; si++)
            for (int q = 1; q < (f->steps[si].bin ? 3 : 2); q++) {
                void *p = f->steps[si].p[q];
                if (f->steps[si].pre || f->steps[si].ref[q] != CG_MEM) continue;
                int z = 0;
                while (z < f->npf && f->pf[z] != p)
                    z++;
                if (z == f->npf && f->npf < CG_MAX_PF) f->pf[f->npf++] = p;
            }
    }
    if (stats) {
        size_t sz = stats->size < sizeof ms ? stats->size : sizeof ms;
        ms.size = sz;
        memcpy(stats, &ms, sz);
    }
    ct__free(ctx, bufs), ct__free(ctx, plan), ct__free(ctx, work);
    return CT_OK;
}

static ct_status cg_instantiate(void *gs) { return cg_instantiate_planned(gs, NULL, 0, NULL); }

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
        case I_FUSED: {
            ct_status st = cg_fused_run(g, &g->fused[in->fused]);
            if (st != CT_OK) return st;
            pc = in->target;
            continue;
        }
        case I_COND:
            if (ct_k_load_f64(in->p[0], in->dt) == 0) {
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
    .instantiate_planned = cg_instantiate_planned,
};

/* Program export (ctorch/export.h): walk a capture's tape (graph/graph_tape.h), classify every
 * storage the ops touch (input, weight, anonymous constant, or an intermediate for the arena),
 * lay out jumps for cond and while_loop, plan the arena, and write the .ctp file
 * (export/ctp_format.h, docs/export-format.md) with a safetensors weights section.
 *
 * Symbolic dims: the model is captured again (spec->trace) at every corner of {example, example
 * +- 1} per symbol, plus one check point. Each variant gives the same token stream (structure
 * tokens that must agree, value tokens that may differ); each value is fitted exactly as a
 * multilinear polynomial in the symbols with integer coefficients, and the check point must
 * match the fit. */
#include "core/plan.h"
#include "ctorch/export.h"
#include "ctorch/ops.h"
#include "backend/desc_rules.h"
#include "dispatch/dispatch.h"
#include "export/ctp_format.h"
#include "export/export_impl.h"
#include "graph/graph_tape.h"
#include "io/safetensors_impl.h"
#include "tensor/tensor_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the shared tables (one per export) ---- */
typedef struct {
    const char *name;                 /* safetensors name given by the spec, or NULL: own_name */
    char own_name[CTP_MAX_NAME + 16]; /* "__const.N", "<mx name>.scales" */
    const ct__storage *st;            /* where the graph reads it */
    int64_t base, bytes;              /* the kernel-side byte range in st */
    const ct_tensor *save;    /* what the weights section holds (NULL: make one from mx / st) */
    const ct_mx_tensor *mx;   /* MX element tensor of this weight (codes), or NULL */
    bool mx_scales;           /* the E8M0 scales of mx */
    const ct_sparse24 *sp;    /* the 2:4 sparse weight whose values this is (metadata entry) */
    uint32_t transform, bits; /* CTP_WX_* and the element bits of UNPACK */
    int64_t rows, row_len, row_bytes;
} x_weight;

typedef struct {
    ct_ctx *ctx;
    const ct_export_spec *sp;
    int nsym;
    const char *sym_name[CTP_MAX_SYMS];
    int64_t sym_min[CTP_MAX_SYMS], sym_max[CTP_MAX_SYMS], sym_ex[CTP_MAX_SYMS];
    int64_t sym_alt[CTP_MAX_SYMS], sym_chk[CTP_MAX_SYMS];
    int input_sym[64][CT_MAX_DIMS]; /* symbol of each input dim, -1 static */
    int ops[CT_OP_COUNT];           /* op kind -> op table index + 1 */
    int op_kind[CT_OP_COUNT], nops;
    x_weight *w;
    size_t nw, capw;
} x_ctx;

static const char *x_wname(const x_weight *w) { return w->name ? w->name : w->own_name; }

/* ---- one variant: buffers and the token stream ---- */
enum { TK_U32, TK_U64, TK_VAL, TK_STR };
typedef struct {
    uint8_t t;
    uint64_t v;
    const char *s;
} x_tok;

typedef struct {
    const ct__storage *st;
    uint32_t kind, index;
    int64_t base, bytes;
    int64_t first, last;
    bool touched, written, read_first;
    int64_t first_reader; /* instruction that read it first (for the message) */
    const ct_tensor *any; /* a tensor on it (constants: the dtype / shape to save) */
} x_buf;

typedef struct {
    x_buf *b;
    size_t nb, capb;
    x_tok *tok;
    size_t nt, capt;
    int64_t ninstr;
    int64_t (*loops)[2];
    size_t nloops, caploops;
    ct_status st;
} x_var;

static void x_var_free(ct_ctx *ctx, x_var *v) {
    ct__free(ctx, v->b);
    ct__free(ctx, v->tok);
    ct__free(ctx, v->loops);
    memset(v, 0, sizeof *v);
}

static void x_emit(x_ctx *X, x_var *v, uint8_t t, uint64_t val, const char *s) {
    if (v->st != CT_OK) return;
    if (!ct__grow_array(X->ctx, (void **)&v->tok, &v->capt, v->nt + 1, sizeof *v->tok)) {
        v->st = ct__set_error(X->ctx, CT_ERR_OOM, "program_export: out of memory");
        return;
    }
    v->tok[v->nt++] = (x_tok){t, val, s};
}
#define EMIT32(v, x) x_emit(X, v, TK_U32, (uint64_t)(uint32_t)(x), NULL)
#define EMIT64(v, x) x_emit(X, v, TK_U64, (uint64_t)(x), NULL)
#define EMITV(v, x) x_emit(X, v, TK_VAL, (uint64_t)(int64_t)(x), NULL)

bool ct__export_op_supported(ct_op_kind k) { return ct__desc_runtime_kind((int)k); }

/* ---- storages ---- */
typedef struct {
    uintptr_t lo, hi;
    const ct__storage *st;
    const ct_tensor *t;
} x_range;
static int x_cmp_range(const void *a, const void *b) {
    const x_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

typedef struct {
    x_range *r;
    size_t n;
} x_index;

static const x_range *x_find(const x_index *ix, uintptr_t p) {
    size_t lo = 0, hi = ix->n;
    while (lo < hi) { /* last range with r.lo <= p */
        size_t mid = (lo + hi) / 2;
        if (ix->r[mid].lo <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    const x_range *r = &ix->r[lo - 1];
    return p < r->hi || (p == r->lo) ? r : NULL;
}

/* The buffer index of storage st in v (added on first sight with the role the spec gives it). */
static int x_buf_of(x_ctx *X, x_var *v, const ct__storage *st, const ct_tensor *any,
                    ct_tensor *const *inputs) {
    for (size_t i = 0; i < v->nb; i++)
        if (v->b[i].st == st) return (int)i;
    if (!ct__grow_array(X->ctx, (void **)&v->b, &v->capb, v->nb + 1, sizeof *v->b)) {
        v->st = ct__set_error(X->ctx, CT_ERR_OOM, "program_export: out of memory");
        return -1;
    }
    x_buf *b = &v->b[v->nb];
    memset(b, 0, sizeof *b);
    b->st = st;
    b->any = any;
    b->kind = CTP_BUF_ARENA;
    b->bytes = (int64_t)st->nbytes;
    for (int i = 0; i < X->sp->n_inputs; i++)
        if (inputs[i]->storage == st) {
            b->kind = CTP_BUF_INPUT;
            b->index = (uint32_t)i;
            b->base = inputs[i]->offset * (int64_t)ct__itemsize(inputs[i]->dtype);
            b->bytes = ct__numel(inputs[i]->ndim, inputs[i]->shape) *
                       (int64_t)ct__itemsize(inputs[i]->dtype);
        }
    for (size_t w = 0; b->kind == CTP_BUF_ARENA && w < X->nw; w++)
        if (X->w[w].st == st) {
            b->kind = CTP_BUF_WEIGHT;
            b->index = (uint32_t)w;
            b->base = X->w[w].base;
            b->bytes = X->w[w].bytes;
        }
    return (int)v->nb++;
}

static bool x_is_inplace(ct_op_kind k) { return k == CT_OP_SCATTER || k == CT_OP_OPTIM_STEP; }

/* Emit one operand (reads / writes it at instruction idx). */
static void x_operand(x_ctx *X, x_var *v, const x_index *ix, const ct_operand *o, bool read,
                      bool write, int64_t idx, ct_tensor *const *inputs, const char *opname,
                      int which) {
    if (v->st != CT_OK) return;
    if (!o->data) {
        EMIT32(v, CTP_NO_BUFFER);
        EMIT32(v, o->dtype);
        EMIT32(v, 0);
        EMITV(v, 0);
        return;
    }
    const ct__storage *st = NULL;
    const ct_tensor *any = o->tensor;
    if (o->tensor && o->tensor->magic == CT__TENSOR_MAGIC) st = o->tensor->storage;
    if (!st) {
        const x_range *r = x_find(ix, (uintptr_t)o->data);
        if (r) st = r->st, any = r->t;
    }
    if (!st) {
        v->st = ct__set_error(X->ctx, CT_ERR_UNSUPPORTED,
                              "program_export: instruction %lld (%s) operand %d points at memory "
                              "no tensor of the capture owns",
                              (long long)idx, opname, which);
        return;
    }
    int bi = x_buf_of(X, v, st, any, inputs);
    if (bi < 0) return;
    x_buf *b = &v->b[bi];
    int64_t off = (int64_t)((uintptr_t)o->data - (uintptr_t)st->data) - b->base;
    if (!b->touched) {
        b->touched = true;
        b->first = idx;
        b->read_first = read;
        b->first_reader = idx;
    }
    b->last = idx;
    if (write) b->written = true;
    if (write && b->kind != CTP_BUF_ARENA) {
        const char *role = b->kind == CTP_BUF_INPUT ? "input" : "parameter";
        const char *nm =
            b->kind == CTP_BUF_INPUT ? X->sp->input_names[b->index] : x_wname(&X->w[b->index]);
        v->st = ct__set_error(X->ctx, CT_ERR_UNSUPPORTED,
                              "program_export: instruction %lld (%s) writes %s '%s' (inputs and "
                              "weights are read-only in a program)",
                              (long long)idx, opname, role, nm);
        return;
    }
    EMIT32(v, bi);
    EMIT32(v, o->dtype);
    EMIT32(v, o->ndim);
    EMITV(v, off);
    for (int d = 0; d < o->ndim; d++)
        EMITV(v, o->shape[d]);
    for (int d = 0; d < o->ndim; d++)
        EMITV(v, o->strides[d]);
}

static int x_op_index(x_ctx *X, ct_op_kind k) {
    if (!X->ops[k]) {
        X->op_kind[X->nops] = k;
        X->ops[k] = ++X->nops;
    }
    return X->ops[k] - 1;
}

/* Walk one capture into v. inputs / outputs: this variant's tensors in spec order. */
static ct_status x_walk(x_ctx *X, x_var *v, const ct__tape_entry *tape, int64_t ntape,
                        ct_tensor *const *kept, int64_t nkept, ct_tensor *const *inputs,
                        ct_tensor *const *outputs) {
    ct_ctx *ctx = X->ctx;
    /* address index over every storage the capture kept plus the spec's tensors */
    size_t nr = (size_t)nkept + (size_t)X->sp->n_inputs + X->nw;
    x_index ix = {ct__alloc(ctx, (nr ? nr : 1) * sizeof(x_range), 16), 0};
    if (!ix.r) return ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    for (int64_t i = 0; i < nkept; i++)
        if (kept[i]->storage->nbytes)
            ix.r[ix.n++] = (x_range){(uintptr_t)kept[i]->storage->data,
                                     (uintptr_t)kept[i]->storage->data + kept[i]->storage->nbytes,
                                     kept[i]->storage, kept[i]};
    for (int i = 0; i < X->sp->n_inputs; i++)
        ix.r[ix.n++] = (x_range){(uintptr_t)inputs[i]->storage->data,
                                 (uintptr_t)inputs[i]->storage->data + inputs[i]->storage->nbytes,
                                 inputs[i]->storage, inputs[i]};
    qsort(ix.r, ix.n, sizeof *ix.r, x_cmp_range);
    /* jump patch stack: token index of a target, and the loop tops */
    size_t stack[64];
    int64_t tops[64];
    int sp = 0, lp = 0;
    for (int64_t e = 0; e < ntape && v->st == CT_OK; e++) {
        const ct__tape_entry *t = &tape[e];
        const ct_op_desc *op = &t->op;
        switch (t->kind) {
        case CT__TAPE_OP: {
            const char *nm = ct_op_name(op->kind);
            if (!ct__export_op_supported(op->kind)) {
                v->st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                      "program_export: instruction %lld is %s, which the embedded "
                                      "runtime does not run",
                                      (long long)v->ninstr, nm);
                break;
            }
            EMIT32(v, CTP_I_KERNEL);
            EMIT32(v, x_op_index(X, op->kind));
            EMIT32(v, op->n_out);
            EMIT32(v, op->n_in);
            EMIT32(v, op->compute_dtype);
            EMIT32(v, op->reduce_mask);
            for (int i = 0; i < 4; i++) {
                uint64_t bits;
                memcpy(&bits, &op->scalars[i], 8);
                EMIT64(v, bits);
            }
            for (int i = 0; i < 4; i++)
                EMITV(v, op->ints[i]);
            for (int i = 0; i < op->n_out + op->n_in; i++) {
                bool w = ct__desc_operand_written(op->kind, op->n_out, i);
                bool r = !w || x_is_inplace(op->kind); /* workspaces: written before read */
                x_operand(X, v, &ix, &op->operands[i], r, w, v->ninstr, inputs, nm, i);
            }
            v->ninstr++;
            break;
        }
        case CT__TAPE_COND:
        case CT__TAPE_LOOP_BODY:
            if (sp == 64) {
                v->st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                      "program_export: conds and loops nest deeper than 64");
                break;
            }
            EMIT32(v, CTP_I_JUMP_IF_ZERO);
            x_operand(X, v, &ix, &op->operands[0], true, false, v->ninstr, inputs,
                      t->kind == CT__TAPE_COND ? "cond" : "while_loop", 0);
            stack[sp++] = v->nt;
            EMIT32(v, 0); /* target, patched */
            v->ninstr++;
            break;
        case CT__TAPE_ELSE: {
            EMIT32(v, CTP_I_JUMP);
            size_t j = v->nt;
            EMIT32(v, 0);
            v->ninstr++;
            if (v->st == CT_OK && sp > 0) {
                v->tok[stack[sp - 1]].v = (uint64_t)v->ninstr; /* false branch starts here */
                stack[sp - 1] = j;
            }
            break;
        }
        case CT__TAPE_COND_END:
            if (v->st == CT_OK && sp > 0) v->tok[stack[--sp]].v = (uint64_t)v->ninstr;
            break;
        case CT__TAPE_LOOP:
            if (lp == 64) {
                v->st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                      "program_export: loops nest deeper than 64");
                break;
            }
            tops[lp++] = v->ninstr;
            break;
        case CT__TAPE_LOOP_END:
            if (lp == 0 || sp == 0) break;
            EMIT32(v, CTP_I_JUMP);
            EMIT32(v, tops[lp - 1]);
            v->ninstr++;
            if (v->st != CT_OK) break;
            v->tok[stack[--sp]].v = (uint64_t)v->ninstr;
            if (!ct__grow_array(ctx, (void **)&v->loops, &v->caploops, v->nloops + 1, sizeof *v->loops)) {
                v->st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
                break;
            }
            v->loops[v->nloops][0] = tops[--lp];
            v->loops[v->nloops++][1] = v->ninstr - 1;
            break;
        default: break;
        }
    }
    /* outputs */
    EMIT32(v, X->sp->n_outputs);
    for (int j = 0; j < X->sp->n_outputs && v->st == CT_OK; j++) {
        const ct_tensor *t = outputs[j];
        x_emit(X, v, TK_STR, 0, X->sp->output_names[j]);
        bool found = false;
        for (size_t i = 0; i < v->nb; i++)
            found = found || v->b[i].st == t->storage;
        if (!found && t->storage->nbytes && ct__numel(t->ndim, t->shape)) {
            v->st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                  "program_export: output '%s' is not computed by the graph (no "
                                  "recorded op touches its memory)",
                                  X->sp->output_names[j]);
            break;
        }
        ct_operand o;
        ct__operand_set(&o, t);
        x_operand(X, v, &ix, &o, true, false, v->ninstr, inputs, "output", j);
        for (size_t i = 0; i < v->nb; i++)
            if (v->b[i].st == t->storage) v->b[i].last = v->ninstr;
    }
    ct__free(ctx, ix.r);
    if (v->st != CT_OK) return v->st;
    /* buffers used inside a loop live over the whole loop; never-written unnamed ones are
     * constants (weights of their own) */
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t l = 0; l < v->nloops; l++)
            for (size_t i = 0; i < v->nb; i++) {
                x_buf *b = &v->b[i];
                if (b->first <= v->loops[l][1] && b->last >= v->loops[l][0] &&
                    (b->first > v->loops[l][0] || b->last < v->loops[l][1])) {
                    if (b->first > v->loops[l][0]) b->first = v->loops[l][0];
                    if (b->last < v->loops[l][1]) b->last = v->loops[l][1];
                    changed = true;
                }
            }
    }
    for (size_t i = 0; i < v->nb; i++) {
        x_buf *b = &v->b[i];
        if (b->kind != CTP_BUF_ARENA) continue;
        if (!b->written) {
            b->kind = CTP_BUF_WEIGHT;
            b->index = UINT32_MAX; /* a constant: resolved by x_constants */
        } else if (b->read_first)
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "program_export: instruction %lld reads a buffer of %lld bytes "
                                 "before the program writes it (state carried between replays "
                                 "cannot be exported: make it an input)",
                                 (long long)b->first_reader, (long long)b->bytes);
    }
    return CT_OK;
}

/* Give the constants of variant 0 their weight entries; later variants must find the same. */
static ct_status x_constants(x_ctx *X, x_var *v, bool first) {
    for (size_t i = 0; i < v->nb; i++) {
        x_buf *b = &v->b[i];
        if (b->kind != CTP_BUF_WEIGHT || b->index != UINT32_MAX) continue;
        for (size_t w = 0; w < X->nw; w++)
            if (X->w[w].st == b->st) b->index = (uint32_t)w;
        if (b->index != UINT32_MAX) continue;
        if (!first)
            return ct__set_error(X->ctx, CT_ERR_SHAPE,
                                 "program_export: the capture at another size reads a constant "
                                 "the first capture does not");
        if (!ct__grow_array(X->ctx, (void **)&X->w, &X->capw, X->nw + 1, sizeof *X->w))
            return ct__set_error(X->ctx, CT_ERR_OOM, "program_export: out of memory");
        x_weight *w = &X->w[X->nw];
        memset(w, 0, sizeof *w);
        snprintf(w->own_name, sizeof w->own_name, "__const.%zu", X->nw);
        w->st = b->st;
        w->base = 0;
        w->bytes = (int64_t)b->st->nbytes;
        const ct_tensor *t = b->any; /* save as that tensor when it covers the storage */
        if (t && t->offset == 0 && ct_tensor_is_contiguous(t) &&
            ct__numel(t->ndim, t->shape) * (int64_t)ct__itemsize(t->dtype) == w->bytes &&
            ct_dtype_get_info(t->dtype)->bits >= 8)
            w->save = t;
        b->index = (uint32_t)X->nw++;
        b->base = 0;
    }
    return CT_OK;
}

/* ---- fitting value tokens across variants ---- */
typedef struct {
    int n;
    int64_t coef[CTP_MAX_TERMS];
    uint32_t mask[CTP_MAX_TERMS];
} x_expr;

static bool x_eval(const x_expr *e, const int64_t *s, int nsym, int64_t *out) {
    int64_t acc = 0;
    for (int t = 0; t < e->n; t++) {
        int64_t m = e->coef[t];
        for (int k = 0; k < nsym; k++)
            if ((e->mask[t] >> k & 1) && __builtin_mul_overflow(m, s[k], &m)) return false;
        if (__builtin_add_overflow(acc, m, &acc)) return false;
    }
    *out = acc;
    return true;
}

/* vals[m]: the value at corner m (bit k: symbol k at its alternative). */
static bool x_fit(const x_ctx *X, const int64_t *vals, x_expr *e) {
    const int n = X->nsym, nc = 1 << n;
    __int128 c[CTP_MAX_TERMS], u[CTP_MAX_TERMS];
    for (int T = 0; T < nc; T++) { /* Moebius inversion over the corner lattice */
        c[T] = 0;
        for (int S = T;; S = (S - 1) & T) {
            int sign = __builtin_popcount((unsigned)(T & ~S)) & 1;
            c[T] += sign ? -(__int128)vals[S] : (__int128)vals[S];
            if (S == 0) break;
        }
    }
    for (int U = 0; U < nc; U++) { /* x_k = d_k (s_k - e_k), d_k = +-1 */
        u[U] = 0;
        for (int T = 0; T < nc; T++) {
            if ((T & U) != U) continue;
            __int128 term = c[T];
            for (int k = 0; k < n; k++) {
                if (!(T >> k & 1)) continue;
                term *= X->sym_alt[k] - X->sym_ex[k];
                if (!(U >> k & 1)) term *= -X->sym_ex[k];
            }
            u[U] += term;
        }
    }
    e->n = 0;
    for (int U = 0; U < nc; U++) {
        if (u[U] == 0 && !(U == 0 && e->n == 0 && nc == 1)) continue;
        if (u[U] > INT64_MAX || u[U] < INT64_MIN) return false;
        e->coef[e->n] = (int64_t)u[U];
        e->mask[e->n++] = (uint32_t)U;
    }
    if (e->n == 0) e->coef[0] = 0, e->mask[0] = 0, e->n = 1;
    return true;
}

/* ---- byte builder ---- */
typedef struct {
    uint8_t *p;
    size_t n, cap;
    bool oom;
    ct_ctx *ctx;
} x_bytes;
static void xb_put(x_bytes *b, const void *d, size_t n) {
    if (b->oom) return;
    if (!ct__grow_array(b->ctx, (void **)&b->p, &b->cap, b->n + n, 1)) {
        b->oom = true;
        return;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static void xb_u32(x_bytes *b, uint32_t v) {
    uint8_t t[4];
    ctp_put_u32(t, v);
    xb_put(b, t, 4);
}
static void xb_u64(x_bytes *b, uint64_t v) {
    uint8_t t[8];
    ctp_put_u64(t, v);
    xb_put(b, t, 8);
}
static void xb_str(x_bytes *b, const char *s) {
    size_t n = strlen(s);
    xb_u32(b, (uint32_t)n);
    xb_put(b, s, n);
}
static void xb_expr(x_bytes *b, const x_expr *e) {
    xb_u32(b, (uint32_t)e->n);
    for (int t = 0; t < e->n; t++) {
        xb_u64(b, (uint64_t)e->coef[t]);
        xb_u32(b, e->mask[t]);
    }
}

/* ---- the spec ---- */
static ct_status x_check_spec(x_ctx *X, const ct_export_spec *sp, const char *path) {
    ct_ctx *ctx = X->ctx;
    if (!sp) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "program_export: spec is NULL");
    if (sp->size != sizeof *sp)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_export: spec->size is %zu, expected %zu", sp->size,
                             sizeof *sp);
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "program_export: path is NULL");
    if (sp->n_inputs < 0 || sp->n_inputs > 64 || sp->n_outputs < 1 || sp->n_outputs > 64 ||
        sp->n_params < 0 || sp->n_mx_params < 0 || sp->n_dims < 0 || sp->n_dims > 64)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_export: counts out of range (inputs %d of 0..64, outputs %d "
                             "of 1..64, params %d, mx params %d, dims %d)",
                             sp->n_inputs, sp->n_outputs, sp->n_params, sp->n_mx_params,
                             sp->n_dims);
    struct {
        int n;
        const char *const *names;
        ct_tensor *const *ts;
        const char *what;
    } lists[3] = {{sp->n_inputs, sp->input_names, sp->inputs, "input"},
                  {sp->n_outputs, sp->output_names, sp->outputs, "output"},
                  {sp->n_params, sp->param_names, sp->params, "param"}};
    for (int l = 0; l < 3; l++) {
        if (lists[l].n && (!lists[l].names || !lists[l].ts))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: the %s names or %ss "
                                 "are NULL",
                                 lists[l].what, lists[l].what);
        for (int i = 0; i < lists[l].n; i++) {
            const char *nm = lists[l].names[i];
            const ct_tensor *t = lists[l].ts[i];
            if (!nm || !nm[0] || strlen(nm) >= CTP_MAX_NAME)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "program_export: %s %d has no name (or one of %u bytes or "
                                     "more)",
                                     lists[l].what, i, CTP_MAX_NAME);
            ct_status st = ct__check_tensor(ctx, "program_export", lists[l].what, t);
            if (st != CT_OK) return st;
            if (t->storage->device.type != CT_DEVICE_CPU)
                return ct__set_error(ctx, CT_ERR_DEVICE,
                                     "program_export: %s '%s' is not on the "
                                     "CPU",
                                     lists[l].what, nm);
            if (l != 1 && !ct_tensor_is_contiguous(t))
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "program_export: %s '%s' is not contiguous", lists[l].what,
                                     nm);
            if (l == 2 && strncmp(nm, "__", 2) == 0)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "program_export: param name '%s' starts with \"__\" (kept "
                                     "for the program's own constants)",
                                     nm);
            for (int k = 0; k < i; k++)
                if (strcmp(lists[l].names[k], nm) == 0)
                    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                         "program_export: two %ss are named '%s'", lists[l].what,
                                         nm);
        }
    }
    if (sp->n_mx_params && (!sp->mx_param_names || !sp->mx_params))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_export: mx_param_names or mx_params is NULL");
    if (sp->n_dims && (!sp->dims || !sp->trace))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_export: symbolic dims need "
                             "spec->dims and spec->trace");
    for (int i = 0; i < sp->n_inputs; i++)
        for (int d = 0; d < CT_MAX_DIMS; d++)
            X->input_sym[i][d] = -1;
    for (int i = 0; i < sp->n_dims; i++) {
        const ct_export_dim *dm = &sp->dims[i];
        if (!dm->name || !dm->name[0] || strlen(dm->name) >= CTP_MAX_NAME || dm->input < 0 ||
            dm->input >= sp->n_inputs || dm->dim < 0 || dm->dim >= sp->inputs[dm->input]->ndim ||
            dm->min < 0 || dm->min > dm->max)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: dims[%d] (%s: input %d dim %d, range [%lld, "
                                 "%lld]) is not valid",
                                 i, dm->name ? dm->name : "(null)", dm->input, dm->dim,
                                 (long long)dm->min, (long long)dm->max);
        int64_t ex = sp->inputs[dm->input]->shape[dm->dim];
        if (ex < dm->min || ex > dm->max)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: dim '%s' is %lld in the captured input '%s', "
                                 "outside its range [%lld, %lld]",
                                 dm->name, (long long)ex, sp->input_names[dm->input],
                                 (long long)dm->min, (long long)dm->max);
        int k = 0;
        while (k < X->nsym && strcmp(X->sym_name[k], dm->name) != 0)
            k++;
        if (k == X->nsym) {
            if (X->nsym == (int)CTP_MAX_SYMS)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "program_export: more than %u symbolic dims", CTP_MAX_SYMS);
            X->sym_name[k] = dm->name;
            X->sym_min[k] = dm->min, X->sym_max[k] = dm->max, X->sym_ex[k] = ex;
            X->nsym++;
        } else if (X->sym_min[k] != dm->min || X->sym_max[k] != dm->max || X->sym_ex[k] != ex)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: dim '%s' has two ranges or two captured sizes",
                                 dm->name);
        X->input_sym[dm->input][dm->dim] = k;
    }
    for (int k = 0; k < X->nsym; k++) {
        if (X->sym_max[k] - X->sym_min[k] < 2)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: dim '%s' spans [%lld, %lld]: a symbolic dim "
                                 "needs at least three sizes (make it static otherwise)",
                                 X->sym_name[k], (long long)X->sym_min[k],
                                 (long long)X->sym_max[k]);
        X->sym_alt[k] = X->sym_ex[k] + 1 <= X->sym_max[k] ? X->sym_ex[k] + 1 : X->sym_ex[k] - 1;
        /* the check point: a size that is neither, preferring the top of the range */
        int64_t c = X->sym_max[k];
        if (c == X->sym_ex[k] || c == X->sym_alt[k]) c = X->sym_min[k];
        if (c == X->sym_ex[k] || c == X->sym_alt[k])
            c = X->sym_ex[k] + 2 <= X->sym_max[k] ? X->sym_ex[k] + 2 : X->sym_ex[k] - 2;
        X->sym_chk[k] = c;
    }
    return CT_OK;
}

/* Weights named by the spec (plain, then MX element tensors and their scales). */
static ct_status x_named_weights(x_ctx *X) {
    const ct_export_spec *sp = X->sp;
    ct_ctx *ctx = X->ctx;
    if (sp->n_sparse_params < 0 ||
        (sp->n_sparse_params && (!sp->sparse_param_names || !sp->sparse_params)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_export: n_sparse_params %d with NULL names or params",
                             sp->n_sparse_params);
    size_t need =
        (size_t)sp->n_params + 2 * (size_t)sp->n_mx_params + 3 * (size_t)sp->n_sparse_params;
    if (!ct__grow_array(ctx, (void **)&X->w, &X->capw, need ? need : 1, sizeof *X->w))
        return ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    for (int i = 0; i < sp->n_params; i++) {
        const ct_tensor *t = sp->params[i];
        x_weight *w = &X->w[X->nw++];
        memset(w, 0, sizeof *w);
        w->name = sp->param_names[i];
        w->st = t->storage;
        w->base = t->offset * (int64_t)ct__itemsize(t->dtype);
        w->bytes = ct__numel(t->ndim, t->shape) * (int64_t)ct__itemsize(t->dtype);
        w->save = t;
        if (ct_dtype_get_info(t->dtype)->bits < 8)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "program_export: param '%s' is %s: pass sub-byte weights as MX "
                                 "tensors",
                                 w->name, ct_dtype_name(t->dtype));
    }
    for (int i = 0; i < sp->n_mx_params; i++) {
        const ct_mx_tensor *q = sp->mx_params[i];
        const char *nm = sp->mx_param_names ? sp->mx_param_names[i] : NULL;
        if (!q || !nm || !nm[0] || strlen(nm) + 8 >= CTP_MAX_NAME || strncmp(nm, "__", 2) == 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: mx param %d is NULL or badly named", i);
        const ct_tensor *codes = ct_mx_codes(q), *scales = ct_mx_scales(q);
        if (codes->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: mx param '%s' belongs to another context", nm);
        int fmt = (int)ct_mx_format_of(q);
        int bits = fmt == CT_MXFP4_E2M1                             ? 4
                   : (fmt == CT_MXFP6_E2M3 || fmt == CT_MXFP6_E3M2) ? 6
                                                                    : 8;
        int64_t L = ct_mx_shape(q)[ct_mx_axis(q)];
        int64_t rowb = codes->shape[codes->ndim - 1];
        int64_t rows = rowb ? ct__numel(codes->ndim, codes->shape) / rowb : 0;
        x_weight *w = &X->w[X->nw++];
        memset(w, 0, sizeof *w);
        w->name = nm;
        w->st = codes->storage;
        w->base = codes->offset;
        w->bytes = ct__numel(codes->ndim, codes->shape);
        w->mx = q;
        w->bits = (uint32_t)bits;
        w->rows = rows, w->row_len = L, w->row_bytes = rowb;
        w->transform = (bits == 8 || (bits == 4 && L % 2 == 0)) ? CTP_WX_RAW : CTP_WX_UNPACK;
        x_weight *s = &X->w[X->nw++];
        memset(s, 0, sizeof *s);
        snprintf(s->own_name, sizeof s->own_name, "%s.scales", nm);
        s->st = scales->storage;
        s->base = scales->offset;
        s->bytes = ct__numel(scales->ndim, scales->shape);
        s->save = scales;
        s->mx = q;
        s->mx_scales = true;
    }
    for (int i = 0; i < sp->n_sparse_params; i++) {
        const ct_sparse24 *q = sp->sparse_params[i];
        const char *nm = sp->sparse_param_names[i];
        if (!q || !nm || !nm[0] || strlen(nm) + 8 >= CTP_MAX_NAME || strncmp(nm, "__", 2) == 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: sparse param %d is NULL or badly named", i);
        const ct_tensor *parts[3] = {ct_sparse24_values(q), ct_sparse24_metadata(q),
                                     ct_sparse24_scales(q)};
        if (parts[0]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "program_export: sparse param '%s' belongs to another context",
                                 nm);
        static const char *const suffix[3] = {"", ".meta", ".scales"};
        for (int k = 0; k < 3; k++) {
            const ct_tensor *t = parts[k];
            if (!t) continue; /* f32 / bf16 values have no scales */
            x_weight *w = &X->w[X->nw++];
            memset(w, 0, sizeof *w);
            snprintf(w->own_name, sizeof w->own_name, "%s%s", nm, suffix[k]);
            w->st = t->storage;
            w->base = t->offset * (int64_t)ct__itemsize(t->dtype);
            w->bytes = ct__numel(t->ndim, t->shape) * (int64_t)ct__itemsize(t->dtype);
            w->save = t;
            if (k == 0) w->sp = q;
        }
    }
    return CT_OK;
}

/* Capture the model once more with the symbols at `s` (trace), and walk it into v. */
static ct_status x_variant(x_ctx *X, const int64_t *s, x_var *v) {
    ct_ctx *ctx = X->ctx;
    const ct_export_spec *sp = X->sp;
    ct_tensor *in[64] = {0}, *out[64] = {0};
    ct_graph *g = NULL;
    ct_status st = CT_OK;
    for (int i = 0; i < sp->n_inputs && st == CT_OK; i++) {
        const ct_tensor *t = sp->inputs[i];
        int64_t shape[CT_MAX_DIMS];
        for (int d = 0; d < t->ndim; d++)
            shape[d] = X->input_sym[i][d] >= 0 ? s[X->input_sym[i][d]] : t->shape[d];
        st = ct_tensor_zeros(ctx, t->dtype, t->ndim, shape, &in[i]);
    }
    ct_graph_options go = {sizeof go, true, NULL, CT_CAPTURE_DEFAULT};
    if (st == CT_OK) st = ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, &go, &g);
    if (st == CT_OK) st = ct_graph_capture_begin(g, NULL);
    if (st == CT_OK) {
        ct_status ts = sp->trace(ctx, sp->trace_user, sp->n_inputs, in, sp->n_outputs, out);
        ct_status es = ct_graph_capture_end(g);
        st = ts != CT_OK ? ts : es;
        if (st != CT_OK && !ctx->err[0])
            ct__set_error(ctx, st, "program_export: the trace function failed (%s)",
                          ct_status_str(st));
    }
    for (int j = 0; j < sp->n_outputs && st == CT_OK; j++)
        if (!out[j] || out[j]->magic != CT__TENSOR_MAGIC)
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "program_export: the trace function gave no output %d", j);
    const ct__tape_entry *tape;
    int64_t ntape, nkept;
    ct_tensor *const *kept;
    if (st == CT_OK) st = ct__graph_tape(g, &tape, &ntape, &kept, &nkept);
    if (st == CT_OK) st = x_walk(X, v, tape, ntape, kept, nkept, in, out);
    for (int j = 0; j < sp->n_outputs; j++)
        ct_tensor_release(out[j]);
    ct_graph_free(g);
    for (int i = 0; i < sp->n_inputs; i++)
        ct_tensor_release(in[i]);
    return st;
}

/* ---- the weights section ---- */
static ct_status x_write_weights(x_ctx *X, FILE *fp, const char *tmpath, uint64_t *offsets) {
    ct_ctx *ctx = X->ctx;
    size_t n = X->nw;
    const char **names = ct__alloc(ctx, (n ? n : 1) * sizeof *names, 16);
    const ct_tensor **ts = ct__alloc(ctx, (n ? n : 1) * sizeof *ts, 16);
    ct_tensor **tmp = ct__alloc(ctx, (n ? n : 1) * sizeof *tmp, 16);
    char **ownnames = ct__alloc(ctx, (n ? n : 1) * sizeof *ownnames, 16);
    ct_status st = (names && ts && tmp && ownnames) ? CT_OK : CT_ERR_OOM;
    if (st != CT_OK) ct__set_error(ctx, st, "program_export: out of memory");
    for (size_t i = 0; tmp && ownnames && i < n; i++)
        tmp[i] = NULL, ownnames[i] = NULL;
    /* metadata: the spec's, then one "mx:<name>" entry per MX weight */
    size_t nmeta = 0;
    while (X->sp->metadata && X->sp->metadata[nmeta])
        nmeta += 2;
    const char **meta = ct__alloc(ctx, (nmeta + 2 * n + 1) * sizeof *meta, 16);
    char **metaval = ct__alloc(ctx, (n ? n : 1) * sizeof *metaval, 16);
    if (st == CT_OK && (!meta || !metaval))
        st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    for (size_t i = 0; metaval && i < n; i++)
        metaval[i] = NULL;
    size_t nm = 0;
    for (size_t i = 0; st == CT_OK && i < nmeta; i++)
        meta[nm++] = X->sp->metadata[i];
    for (size_t i = 0; st == CT_OK && i < n; i++) {
        x_weight *w = &X->w[i];
        if (w->mx && w->mx_scales) { /* E8M0 scales as they are, and the pairing entry */
            ts[i] = ct_mx_scales(w->mx);
            const char *base = x_wname(&X->w[i - 1]);
            size_t kl = strlen(base) + 4;
            char *mk = ct__alloc(ctx, kl, 1), *mv = ct__alloc(ctx, 2 * CTP_MAX_NAME + 128, 1);
            ownnames[i] = mk;
            metaval[i] = mv;
            if (!mk || !mv) {
                st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
                break;
            }
            snprintf(mk, kl, "mx:%s", base);
            /* format, block size, axis, logical shape and the scales' name */
            size_t cap = 2 * CTP_MAX_NAME + 128;
            int off = snprintf(mv, cap, "format=%s;block=%d;axis=%d;scales=%s;shape=",
                               ct_mx_format_name(ct_mx_format_of(w->mx)), ct_mx_block_size(w->mx),
                               ct_mx_axis(w->mx), x_wname(w));
            for (int d = 0; d < ct_mx_ndim(w->mx) && off > 0 && (size_t)off + 24 < cap; d++)
                off += snprintf(mv + off, cap - (size_t)off, "%s%lld", d ? "," : "",
                                (long long)ct_mx_shape(w->mx)[d]);
            meta[nm++] = mk;
            meta[nm++] = mv;
        } else if (w->mx) { /* the element tensor: codes as the format's dtype, (rows, L) */
            ct_dtype dt;
            switch (ct_mx_format_of(w->mx)) {
            case CT_MXFP8_E4M3: dt = CT_FLOAT8_E4M3FN; break;
            case CT_MXFP8_E5M2: dt = CT_FLOAT8_E5M2; break;
            case CT_MXFP6_E3M2: dt = CT_FLOAT6_E3M2FN; break;
            case CT_MXFP6_E2M3: dt = CT_FLOAT6_E2M3FN; break;
            case CT_MXFP4_E2M1: dt = CT_FLOAT4_E2M1FN; break;
            default: dt = CT_INT8; break;
            }
            st = ct__export_mx_elements(ctx, ct_mx_codes(w->mx), dt, w->rows, w->row_len,
                                        w->row_bytes, &tmp[i]);
            ts[i] = tmp[i];
        } else if (w->save) {
            ts[i] = w->save;
            if (w->sp) { /* "sparse24:<name>": the logical shape, values dtype and the parts */
                const char *base = x_wname(w);
                size_t kl = strlen(base) + 10, cap = 3 * CTP_MAX_NAME + 96;
                char *mk = ct__alloc(ctx, kl, 1), *mv = ct__alloc(ctx, cap, 1);
                ownnames[i] = mk;
                metaval[i] = mv;
                if (!mk || !mv) {
                    st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
                    break;
                }
                snprintf(mk, kl, "sparse24:%s", base);
                snprintf(mv, cap, "shape=%lld,%lld;values=%s;meta=%s.meta;scales=%s%s",
                         (long long)ct_sparse24_shape(w->sp)[0],
                         (long long)ct_sparse24_shape(w->sp)[1],
                         ct_dtype_name(ct_sparse24_dtype(w->sp)), base,
                         ct_sparse24_scales(w->sp) ? base : "(none)",
                         ct_sparse24_scales(w->sp) ? ".scales" : "");
                meta[nm++] = mk;
                meta[nm++] = mv;
            }
        } else { /* a constant without a covering tensor: its bytes as U8 */
            int64_t nb = w->bytes;
            st = ct_tensor_from_host(ctx, w->st->data, CT_UINT8, 1, &nb, &tmp[i]);
            ts[i] = tmp[i];
        }
        names[i] = x_wname(w);
    }
    if (st == CT_OK) {
        meta[nm] = NULL;
        st = ct__safetensors_write(ctx, fp, tmpath, (int)n, names, ts, nm ? meta : NULL, offsets);
    }
    for (size_t i = 0; tmp && i < n; i++)
        ct_tensor_release(tmp[i]);
    for (size_t i = 0; ownnames && i < n; i++)
        ct__free(ctx, ownnames[i]);
    for (size_t i = 0; metaval && i < n; i++)
        ct__free(ctx, metaval[i]);
    ct__free(ctx, metaval);
    ct__free(ctx, meta);
    ct__free(ctx, ownnames);
    ct__free(ctx, tmp);
    ct__free(ctx, ts);
    ct__free(ctx, names);
    return st;
}

/* ---- the whole export ---- */
static ct_status x_program_bytes(x_ctx *X, x_var *vars, int nvar, const uint64_t *woff,
                                 x_bytes *out, ct_export_report *rep);

ct_status ct_program_export(ct_ctx *ctx, ct_graph *graph, const ct_export_spec *spec,
                            const char *path) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (ct__any_capture(ctx)) /* a host-side call: refused without touching the capture */
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE,
                                          "program_export: a graph is capturing; end it first");
    if (!graph) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "program_export: graph is NULL");
    if (ct__graph_ctx(graph) != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_export: the graph belongs to another context");
    if (ct__graph_device(graph).type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_DEVICE,
                             "program_export: only graphs captured on the CPU can be exported");
    x_ctx *X = ct__alloc(ctx, sizeof *X, 64);
    if (!X) return ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    memset(X, 0, sizeof *X);
    X->ctx = ctx;
    X->sp = spec;
    ct_status st = x_check_spec(X, spec, path);
    if (st == CT_OK) st = x_named_weights(X);
    const int nvar = X->nsym ? (1 << X->nsym) + 1 : 1;
    x_var vars[CTP_MAX_TERMS + 1];
    memset(vars, 0, sizeof vars);
    const ct__tape_entry *tape;
    int64_t ntape, nkept;
    ct_tensor *const *kept;
    if (st == CT_OK) st = ct__graph_tape(graph, &tape, &ntape, &kept, &nkept);
    if (st == CT_OK)
        st = x_walk(X, &vars[0], tape, ntape, kept, nkept, spec->inputs, spec->outputs);
    if (st == CT_OK) st = x_constants(X, &vars[0], true);
    for (int m = 1; m < nvar && st == CT_OK; m++) {
        int64_t s[CTP_MAX_SYMS];
        for (int k = 0; k < X->nsym; k++)
            s[k] = m == nvar - 1 ? X->sym_chk[k] : (m >> k & 1) ? X->sym_alt[k] : X->sym_ex[k];
        st = x_variant(X, s, &vars[m]);
        if (st == CT_OK) st = x_constants(X, &vars[m], false);
    }
    /* write path.tmp: header, program section, weights section; then checksums and rename */
    size_t pl = strlen(path ? path : "");
    char *tmpath = st == CT_OK ? ct__alloc(ctx, pl + 5, 1) : NULL;
    FILE *fp = NULL;
    if (st == CT_OK && !tmpath)
        st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    if (st == CT_OK) {
        memcpy(tmpath, path, pl);
        memcpy(tmpath + pl, ".tmp", 5);
        fp = fopen(tmpath, "w+b");
        if (!fp)
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: cannot create %s: %s", tmpath,
                               strerror(errno));
    }
    /* the weights go first into the file after a placeholder for header + program, whose size
     * is known only after fitting; so: weights at a provisional offset, program after them */
    uint64_t *woff = st == CT_OK ? ct__alloc(ctx, (X->nw ? X->nw : 1) * 8, 16) : NULL;
    if (st == CT_OK && !woff) st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    const uint64_t hdr = CTP_HEADER_BYTES + 2 * CTP_SECTION_BYTES;
    const uint64_t wsec = (hdr + CTP_ALIGN - 1) / CTP_ALIGN * CTP_ALIGN;
    uint64_t wsize = 0, psec = 0;
    x_bytes prog = {NULL, 0, 0, false, ctx};
    ct_export_report rep = {sizeof rep, 0, 0, 0, 0, 0, 0, 0};
    if (st == CT_OK) {
        static const uint8_t zero[CTP_ALIGN * 2];
        if (fwrite(zero, 1, wsec, fp) != wsec)
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: writing %s: %s", tmpath,
                               strerror(errno));
    }
    if (st == CT_OK) st = x_write_weights(X, fp, tmpath, woff);
    if (st == CT_OK) {
        long end = ftell(fp);
        if (end < 0)
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: %s: %s", tmpath, strerror(errno));
        else
            wsize = (uint64_t)end - wsec;
    }
    if (st == CT_OK) st = x_program_bytes(X, vars, nvar, woff, &prog, &rep);
    if (st == CT_OK) {
        psec = (wsec + wsize + CTP_ALIGN - 1) / CTP_ALIGN * CTP_ALIGN;
        static const uint8_t zero[CTP_ALIGN];
        size_t pad = (size_t)(psec - wsec - wsize);
        if ((pad && fwrite(zero, 1, pad, fp) != pad) || fwrite(prog.p, 1, prog.n, fp) != prog.n)
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: writing %s: %s", tmpath,
                               strerror(errno));
    }
    if (st == CT_OK) { /* checksums: read the sections back */
        uint32_t tab[256];
        ctp_crc_table(tab);
        uint32_t wcrc = 0;
        uint8_t *buf = ct__alloc(ctx, 1 << 16, 64);
        if (!buf) st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
        if (st == CT_OK && fflush(fp) != 0)
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: %s: %s", tmpath, strerror(errno));
        if (st == CT_OK && fseek(fp, (long)wsec, SEEK_SET) != 0)
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: %s: %s", tmpath, strerror(errno));
        for (uint64_t left = wsize; st == CT_OK && left;) {
            size_t k = left < (1u << 16) ? (size_t)left : (1u << 16);
            if (fread(buf, 1, k, fp) != k) {
                st = ct__set_error(ctx, CT_ERR_IO, "program_export: reading back %s", tmpath);
                break;
            }
            wcrc = ctp_crc32(tab, wcrc, buf, k);
            left -= k;
        }
        ct__free(ctx, buf);
        uint8_t h[CTP_HEADER_BYTES + 2 * CTP_SECTION_BYTES];
        memset(h, 0, sizeof h);
        memcpy(h, CTP_MAGIC, 8);
        ctp_put_u32(h + 8, CTP_VERSION);
        ctp_put_u32(h + 12, CTP_FLAG_LITTLE_ENDIAN | (X->nsym ? CTP_FLAG_SYMBOLIC : 0));
        ctp_put_u64(h + 16, psec + prog.n);
        ctp_put_u32(h + 24, 2);
        uint8_t *s0 = h + CTP_HEADER_BYTES, *s1 = s0 + CTP_SECTION_BYTES;
        ctp_put_u32(s0, CTP_SEC_PROGRAM);
        ctp_put_u64(s0 + 8, psec);
        ctp_put_u64(s0 + 16, prog.n);
        ctp_put_u32(s0 + 24, ctp_crc32(tab, 0, prog.p, prog.n));
        ctp_put_u32(s1, CTP_SEC_WEIGHTS);
        ctp_put_u64(s1 + 8, wsec);
        ctp_put_u64(s1 + 16, wsize);
        ctp_put_u32(s1 + 24, wcrc);
        ctp_put_u32(h + 28, ctp_crc32(tab, 0, h, sizeof h));
        if (st == CT_OK && (fseek(fp, 0, SEEK_SET) != 0 || fwrite(h, 1, sizeof h, fp) != sizeof h))
            st = ct__set_error(ctx, CT_ERR_IO, "program_export: writing %s: %s", tmpath,
                               strerror(errno));
        rep.weights = (int64_t)X->nw;
        rep.weight_bytes = wsize;
        rep.file_bytes = psec + prog.n;
    }
    if (fp && fclose(fp) != 0 && st == CT_OK)
        st = ct__set_error(ctx, CT_ERR_IO, "program_export: closing %s: %s", tmpath,
                           strerror(errno));
    if (st == CT_OK && rename(tmpath, path) != 0)
        st = ct__set_error(ctx, CT_ERR_IO, "program_export: renaming %s to %s: %s", tmpath, path,
                           strerror(errno));
    if (st != CT_OK && fp) remove(tmpath);
    if (st == CT_OK && spec->report) {
        size_t sz =
            spec->report->size && spec->report->size < sizeof rep ? spec->report->size : sizeof rep;
        memcpy(spec->report, &rep, sz);
        spec->report->size = sz;
    }
    ct__free(ctx, prog.p);
    ct__free(ctx, woff);
    ct__free(ctx, tmpath);
    for (int m = 0; m < nvar; m++)
        x_var_free(ctx, &vars[m]);
    ct__free(ctx, X->w);
    ct__free(ctx, X);
    return st;
}

/* Fit one value across the variants (or take variant 0's when there are no symbols). */
static ct_status x_value(x_ctx *X, x_var *vars, int nvar, size_t ti, x_expr *e) {
    int64_t vals[CTP_MAX_TERMS];
    int nc = X->nsym ? 1 << X->nsym : 1;
    for (int m = 0; m < nc; m++)
        vals[m] = (int64_t)vars[m].tok[ti].v;
    if (!x_fit(X, vals, e))
        return ct__set_error(X->ctx, CT_ERR_OVERFLOW,
                             "program_export: a shape polynomial's coefficients overflow");
    if (X->nsym) {
        int64_t got = 0;
        if (!x_eval(e, X->sym_chk, X->nsym, &got) || got != (int64_t)vars[nvar - 1].tok[ti].v)
            return ct__set_error(X->ctx, CT_ERR_SHAPE,
                                 "program_export: a shape, stride or parameter (value %lld at the "
                                 "captured size) is not a polynomial of degree <= 1 in each "
                                 "symbolic dim (at the check point it is %lld, the fit gives "
                                 "%lld)",
                                 (long long)vals[0], (long long)vars[nvar - 1].tok[ti].v,
                                 (long long)got);
    }
    return CT_OK;
}

static ct_status x_program_bytes(x_ctx *X, x_var *vars, int nvar, const uint64_t *woff,
                                 x_bytes *out, ct_export_report *rep) {
    ct_ctx *ctx = X->ctx;
    const x_var *v0 = &vars[0];
    /* the variants must agree on everything but values */
    for (int m = 1; m < nvar; m++) {
        const x_var *v = &vars[m];
        bool same = v->nt == v0->nt && v->nb == v0->nb && v->ninstr == v0->ninstr;
        for (size_t i = 0; same && i < v->nb; i++)
            same = v->b[i].kind == v0->b[i].kind && v->b[i].index == v0->b[i].index;
        for (size_t t = 0; same && t < v->nt; t++)
            same = v->tok[t].t == v0->tok[t].t &&
                   (v->tok[t].t == TK_VAL || v->tok[t].t == TK_STR || v->tok[t].v == v0->tok[t].v);
        if (!same)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "program_export: the model captured at other sizes of the "
                                 "symbolic dims has other ops or buffers (%lld vs %lld "
                                 "instructions): its structure depends on the sizes, which a "
                                 "program cannot express",
                                 (long long)v->ninstr, (long long)v0->ninstr);
    }
    x_bytes *b = out;
    xb_u32(b, (uint32_t)X->nsym);
    for (int k = 0; k < X->nsym; k++) {
        xb_str(b, X->sym_name[k]);
        xb_u64(b, (uint64_t)X->sym_min[k]);
        xb_u64(b, (uint64_t)X->sym_max[k]);
        xb_u64(b, (uint64_t)X->sym_ex[k]);
    }
    xb_u32(b, (uint32_t)X->nops);
    for (int i = 0; i < X->nops; i++) {
        xb_str(b, ct_op_name((ct_op_kind)X->op_kind[i]));
        xb_u32(b, 1);
    }
    xb_u32(b, (uint32_t)X->nw);
    for (size_t i = 0; i < X->nw; i++) {
        const x_weight *w = &X->w[i];
        uint64_t fbytes = (uint64_t)w->bytes;
        if (w->transform == CTP_WX_UNPACK)
            fbytes = ((uint64_t)w->rows * (uint64_t)w->row_len * w->bits + 7) / 8;
        xb_str(b, x_wname(w));
        xb_u32(b, w->transform);
        xb_u32(b, w->bits);
        xb_u64(b, (uint64_t)w->rows);
        xb_u64(b, (uint64_t)w->row_len);
        xb_u64(b, (uint64_t)w->row_bytes);
        xb_u64(b, woff[i]);
        xb_u64(b, fbytes);
        xb_u64(b, (uint64_t)w->bytes);
    }
    xb_u32(b, (uint32_t)X->sp->n_inputs);
    for (int i = 0; i < X->sp->n_inputs; i++) {
        const ct_tensor *t = X->sp->inputs[i];
        xb_str(b, X->sp->input_names[i]);
        xb_u32(b, (uint32_t)t->dtype);
        xb_u32(b, (uint32_t)t->ndim);
        for (int d = 0; d < t->ndim; d++) {
            xb_u32(b, (uint32_t)X->input_sym[i][d]);
            xb_u64(b, (uint64_t)t->shape[d]);
        }
    }
    /* buffers: sizes fitted; the arena planned at the symbols' upper bounds */
    size_t nb = v0->nb;
    x_expr *bexpr = ct__alloc(ctx, (nb ? nb : 1) * sizeof *bexpr, 16);
    ct__plan_buf *pb = ct__alloc(ctx, (nb ? nb : 1) * sizeof *pb, 16);
    int64_t *work = ct__alloc(ctx, (nb ? nb : 1) * 2 * sizeof(int64_t), 16);
    int *pidx = ct__alloc(ctx, (nb ? nb : 1) * sizeof(int), 16);
    ct_status st = (bexpr && pb && work && pidx) ? CT_OK : CT_ERR_OOM;
    if (st != CT_OK) ct__set_error(ctx, st, "program_export: out of memory");
    int64_t np = 0;
    uint64_t total = 0;
    size_t arena = 0;
    for (size_t i = 0; st == CT_OK && i < nb; i++) {
        int64_t vals[CTP_MAX_TERMS];
        int nc = X->nsym ? 1 << X->nsym : 1;
        for (int m = 0; m < nc; m++)
            vals[m] = vars[m].b[i].bytes;
        if (!x_fit(X, vals, &bexpr[i])) {
            st = ct__set_error(ctx, CT_ERR_OVERFLOW, "program_export: buffer size overflow");
            break;
        }
        int64_t chk;
        if (X->nsym &&
            (!x_eval(&bexpr[i], X->sym_chk, X->nsym, &chk) || chk != vars[nvar - 1].b[i].bytes)) {
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "program_export: buffer %zu's size is not a polynomial of degree "
                               "<= 1 in each symbolic dim",
                               i);
            break;
        }
        if (v0->b[i].kind != CTP_BUF_ARENA) continue;
        int64_t slot = 0; /* the largest size over the corners of the ranges */
        for (int c = 0; c < (1 << X->nsym); c++) {
            int64_t s[CTP_MAX_SYMS], val;
            for (int k = 0; k < X->nsym; k++)
                s[k] = (c >> k & 1) ? X->sym_max[k] : X->sym_min[k];
            if (!x_eval(&bexpr[i], s, X->nsym, &val) || val < 0) {
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "program_export: buffer %zu's size is negative or overflows "
                                   "inside the symbolic ranges",
                                   i);
                break;
            }
            if (val > slot) slot = val;
        }
        pb[np] = (ct__plan_buf){v0->b[i].first, v0->b[i].last, (size_t)slot, 0};
        pidx[np++] = (int)i;
        /* slots start at CTP_ALIGN boundaries: the sum is what a plan without reuse needs */
        total += ((uint64_t)slot + CTP_ALIGN - 1) / CTP_ALIGN * CTP_ALIGN;
    }
    if (st == CT_OK) {
        arena = ct__plan_arena(pb, np, CTP_ALIGN, work);
        if (arena == SIZE_MAX)
            st = ct__set_error(ctx, CT_ERR_OVERFLOW, "program_export: the arena overflows");
    }
    xb_u32(b, (uint32_t)nb);
    for (size_t i = 0, p = 0; st == CT_OK && i < nb; i++) {
        xb_u32(b, v0->b[i].kind);
        xb_u32(b, v0->b[i].kind == CTP_BUF_ARENA ? 0 : v0->b[i].index);
        xb_expr(b, &bexpr[i]);
        bool ar = p < (size_t)np && pidx[p] == (int)i;
        xb_u64(b, ar ? pb[p].offset : 0);
        xb_u64(b, ar ? pb[p].bytes : 0);
        if (ar) p++;
    }
    xb_u64(b, arena);
    xb_u64(b, total);
    xb_u32(b, (uint32_t)v0->ninstr);
    for (size_t t = 0; st == CT_OK && t < v0->nt; t++) {
        const x_tok *k = &v0->tok[t];
        if (k->t == TK_U32)
            xb_u32(b, (uint32_t)k->v);
        else if (k->t == TK_U64)
            xb_u64(b, k->v);
        else if (k->t == TK_STR)
            xb_str(b, k->s);
        else {
            x_expr e;
            st = x_value(X, vars, nvar, t, &e);
            if (st == CT_OK) xb_expr(b, &e);
        }
    }
    if (st == CT_OK && b->oom) st = ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    rep->instructions = v0->ninstr;
    rep->intermediates = np;
    rep->intermediate_bytes = total;
    rep->arena_bytes = arena;
    ct__free(ctx, bexpr);
    ct__free(ctx, pb);
    ct__free(ctx, work);
    ct__free(ctx, pidx);
    return st;
}

ct_status ct__export_mx_elements(ct_ctx *ctx, const ct_tensor *codes, ct_dtype dt, int64_t rows,
                                 int64_t row_len, int64_t row_bytes, ct_tensor **out) {
    int64_t n;
    if (!ct__checked_mul(rows, row_len, &n))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "program_export: mx weight too large");
    uint8_t *u = ct__alloc(ctx, (size_t)(n ? n : 1), 64);
    if (!u) return ct__set_error(ctx, CT_ERR_OOM, "program_export: out of memory");
    const uint8_t *c = (const uint8_t *)ct__tensor_ptr(codes);
    bool fp4 = dt == CT_FLOAT4_E2M1FN;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < row_len; j++)
            u[r * row_len + j] = fp4 ? (uint8_t)(c[r * row_bytes + j / 2] >> (4 * (j & 1)) & 0xF)
                                     : c[r * row_bytes + j];
    int64_t shape[2] = {rows, row_len};
    ct_status st = ct_tensor_from_host(ctx, u, dt, 2, shape, out);
    ct__free(ctx, u);
    return st;
}

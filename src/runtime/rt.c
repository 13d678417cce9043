/* The embedded runtime (ctorch/runtime.h): verify a .ctp program (export/ctp_format.h,
 * docs/export-format.md) in full at load, then run it with the library's portable and ISA CPU
 * kernels in a caller-provided arena. Nothing here uses a context, the caching allocator, BLAS or
 * OpenMP, and nothing allocates after ct_rt_load.
 *
 * Every instruction is resolved (symbolic shapes evaluated, operands bound to their buffers) and
 * checked right before its kernel runs: each operand must address bytes inside its buffer only,
 * and the descriptor must keep its kind's shape rule (backend/desc_rules.h, the same rules the
 * library's public submit entry applies). The load runs the same checks for the captured sizes and
 * every corner of the symbolic ranges, so a program that loads runs at any size in range. */
#include "ctorch/runtime.h"
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/kernels/mx_kernels.h"
#include "backends/cpu/kernels/sparse_kernels.h"
#include "core/internal.h"
#include "backend/desc_rules.h"
#include "dtype/dtype_size.h"
#include "dtype/half.h"
#include "export/ctp_format.h"
#include "runtime/rt_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t first, n; /* terms in the program's term pool */
} rt_expr;

typedef struct {
    uint32_t buf; /* CTP_NO_BUFFER: absent */
    ct_dtype dtype;
    int ndim;
    rt_expr off, shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
} rt_operand;

typedef struct {
    uint32_t opcode, kind, n_out, n_in, target;
    ct_dtype cdt;
    uint32_t reduce_mask;
    double scalars[4];
    rt_expr ints[4];
    uint32_t first_operand; /* KERNEL: n_out + n_in operands; JUMP_IF_ZERO: the predicate */
} rt_instr;

typedef struct {
    const char *name;
    uint32_t transform, bits;
    int64_t rows, row_len, row_bytes;
    uint64_t off, fbytes, kbytes;
    const uint8_t *data; /* what the kernels read */
} rt_weight;

typedef struct {
    const char *name;
    ct_dtype dtype;
    int ndim;
    int sym[CT_MAX_DIMS];
    int64_t size[CT_MAX_DIMS];
    const void *data; /* bound by ct_rt_set_input */
    int64_t shape[CT_MAX_DIMS];
    bool bound;
} rt_input;

typedef struct {
    uint32_t kind, index;
    rt_expr bytes;
    uint64_t offset, slot;
} rt_buffer;

typedef struct {
    const char *name;
    rt_operand v;
    const void *data;
    ct_dtype dtype;
    int ndim;
    int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
} rt_output;

struct ct_rt_program {
    const uint8_t *file;
    size_t size;
    const uint8_t *wsec;
    uint64_t wsize;
    int nsym;
    const char *sym_name[CTP_MAX_SYMS];
    int64_t sym_min[CTP_MAX_SYMS], sym_max[CTP_MAX_SYMS], sym_ex[CTP_MAX_SYMS];
    int nops;
    int op_kind[CT_OP_COUNT];
    uint32_t nw, nin, nbuf, ninstr, nout;
    rt_weight *w;
    rt_input *in;
    rt_buffer *buf;
    rt_instr *ins;
    rt_output *out;
    rt_operand *opnd;
    uint32_t nopnd, capopnd;
    int64_t *tcoef;
    uint32_t *tmask;
    uint32_t nterm, capterm;
    char *strpool;
    size_t nstr, capstr;
    uint64_t arena, inter;
    /* run state */
    uint8_t **bufptr;
    int64_t *bufsize;
    int64_t sym[CTP_MAX_SYMS];
    ct_op_desc desc;
    const ct_rt_kernels *kern;
    const ct_k_isa *isa;
    const ct__mxk_ops *mxops;
    const ct__spk_ops *spops;
    uint8_t dummy[16]; /* the address of empty inputs */
    bool ran;
    uint64_t max_steps; /* 0: no limit (ct_rt_set_max_steps) */
    void *block;        /* the tables: every array above */
    void *unpacked;     /* the weights unpacked at load (FP6, odd-length FP4 rows), or NULL */
    char err[320];
};

static const char *const rt_op_names[] = {
#define RT_OP_NAME(name) #name,
    CT_OP_LIST(RT_OP_NAME)
#undef RT_OP_NAME
};

/* ---- kernel sets (selective build): what a load accepts and how an instruction runs ---- */
struct ct_rt_kernels {
    const char *name;
    bool (*has)(int kind);
    /* the resolved instruction's layout at some sizes is one this set runs (load-time check) */
    bool (*accepts)(const ct_rt_program *p, const ct_op_desc *op);
    void (*bind)(ct_rt_program *p, ct__isa isa);
    ct_status (*run)(const ct_rt_program *p, const ct_op_desc *op);
};

static bool rk_all_accepts(const ct_rt_program *p, const ct_op_desc *op) {
    (void)p, (void)op;
    return true;
}
static void rk_all_bind(ct_rt_program *p, ct__isa isa) {
    p->isa = isa == CT__ISA_AVX512 ? &ct_k_isa_avx512
             : isa == CT__ISA_AVX2 ? &ct_k_isa_avx2
                                   : &ct_k_isa_ref;
    p->mxops = isa == CT__ISA_AVX512 ? &ct__mxk_ops_avx512
               : isa == CT__ISA_AVX2 ? &ct__mxk_ops_avx2
                                     : &ct__mxk_ops_ref;
    p->spops = isa == CT__ISA_AVX512 ? &ct__spk_ops_avx512
               : isa == CT__ISA_AVX2 ? &ct__spk_ops_avx2
                                     : &ct__spk_ops_ref;
}
static ct_status rk_all_run(const ct_rt_program *p, const ct_op_desc *op) {
    if (op->kind == CT_OP_MX_LINEAR || op->kind == CT_OP_MX_DEQUANTIZE)
        return ct__mx_run(p->mxops, op);
    if (op->kind == CT_OP_SPARSE24_MM || op->kind == CT_OP_SPARSE24_DECOMPRESS)
        return ct__sparse_run(p->spops, op);
    return ct_k_run(op, p->isa);
}
static const ct_rt_kernels rk_all = {"all", ct__desc_runtime_kind, rk_all_accepts, rk_all_bind,
                                     rk_all_run};
const ct_rt_kernels *ct_rt_kernels_all(void) { return &rk_all; }

/* The MLP set: matmul, f32/f64 binary arithmetic and the ISA tables' unary loops, softmax and
 * log_softmax; elementwise operands must have contiguous inner runs (broadcast rows such as a
 * bias are fine). The same loops and drivers as the full set, so the same bits. */
static int rk_mlp_un(ct_op_kind k, int64_t approx) {
    if (k == CT_OP_GELU) return approx == 1 ? CT_K_GELU_TANH : -1;
    return ct_k_un_index(k);
}
static bool rk_mlp_has(int k) {
    return k == CT_OP_MATMUL || k == CT_OP_SOFTMAX || k == CT_OP_LOG_SOFTMAX ||
           ct_k_bin_index((ct_op_kind)k) >= 0 || ct_k_un_index((ct_op_kind)k) >= 0 ||
           k == CT_OP_GELU;
}
static bool rk_mlp_accepts(const ct_rt_program *p, const ct_op_desc *op) {
    if (op->kind == CT_OP_MATMUL || op->kind == CT_OP_SOFTMAX || op->kind == CT_OP_LOG_SOFTMAX)
        return true;
    const ct_dtype dt = op->compute_dtype;
    const int bin = ct_k_bin_index(op->kind), un = rk_mlp_un(op->kind, op->ints[0]);
    if ((dt != CT_FLOAT32 && dt != CT_FLOAT64) || (bin < 0 && un < 0)) return false;
    const ct_k_isa *t = p->isa; /* exp & co. exist only in the vector ISAs' tables */
    if (!(bin >= 0 ? (dt == CT_FLOAT32 ? t->bin_f32[bin] != NULL : t->bin_f64[bin] != NULL)
                   : (dt == CT_FLOAT32 ? t->un_f32[un] != NULL : t->un_f64[un] != NULL)))
        return false;
    for (int i = 0; i < op->n_out + op->n_in; i++) {
        const ct_operand *o = &op->operands[i];
        if (o->dtype != dt) return false;
        /* the innermost dim of size > 1 must be contiguous in every operand */
        for (int d = o->ndim - 1; d >= 0; d--)
            if (op->operands[0].shape[d] > 1) {
                if (o->strides[d] != 1) return false;
                break;
            }
    }
    return true;
}
static void rk_mlp_bind(ct_rt_program *p, ct__isa isa) {
    p->isa = isa == CT__ISA_AVX512 ? &ct_k_avx512_isa_lite
             : isa == CT__ISA_AVX2 ? &ct_k_avx2_isa_lite
                                   : &ct_k_ref_isa_lite;
    p->mxops = NULL;
}
static void rk_no_loop(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    (void)n, (void)p, (void)s, (void)op; /* never reached: rk_mlp_accepts checked the runs */
}
static ct_status rk_mlp_run(const ct_rt_program *p, const ct_op_desc *op) {
    if (op->kind == CT_OP_MATMUL) return ct_k_matmul(op, p->isa);
    if (op->kind == CT_OP_SOFTMAX || op->kind == CT_OP_LOG_SOFTMAX) return ct_k_softmax(op, p->isa);
    const int bin = ct_k_bin_index(op->kind), un = rk_mlp_un(op->kind, op->ints[0]);
    const bool f32 = op->compute_dtype == CT_FLOAT32;
    const ct_k_isa *t = p->isa;
    const void *fn = bin >= 0
                         ? (f32 ? (const void *)&t->bin_f32[bin] : (const void *)&t->bin_f64[bin])
                         : (f32 ? (const void *)&t->un_f32[un] : (const void *)&t->un_f64[un]);
    bool have = bin >= 0 ? (f32 ? t->bin_f32[bin] != NULL : t->bin_f64[bin] != NULL)
                         : (f32 ? t->un_f32[un] != NULL : t->un_f64[un] != NULL);
    if (!have) return CT_ERR_UNSUPPORTED; /* exp & co. on the ref ISA: the full set has them */
    ct_k_ew_drive(
        op, rk_no_loop,
        bin >= 0 ? (f32 ? ct_k_c_bin32 : ct_k_c_bin64) : (f32 ? ct_k_c_un32 : ct_k_c_un64), fn);
    return CT_OK;
}
static const ct_rt_kernels rk_mlp = {"mlp", rk_mlp_has, rk_mlp_accepts, rk_mlp_bind, rk_mlp_run};
const ct_rt_kernels *ct_rt_kernels_mlp(void) { return &rk_mlp; }

static ct_status rt_fail(ct_rt_program *p, ct_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ct_status rt_fail(ct_rt_program *p, ct_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof p->err, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- reading the program section ---- */
typedef struct {
    ct_rt_program *p;
    const uint8_t *base, *cur, *end;
    size_t sec_off; /* file offset of base */
    ct_status st;
} rd;

static bool rd_bad(rd *r, const char *field, const char *what) {
    if (r->st == CT_OK) {
        r->st = CT_ERR_FORMAT;
        snprintf(r->p->err, sizeof r->p->err, "program: %s at byte %zu: %s", field,
                 r->sec_off + (size_t)(r->cur - r->base), what);
    }
    return false;
}
static bool rd_u32(rd *r, uint32_t *v, const char *field) {
    if (r->st != CT_OK) return false;
    if (r->end - r->cur < 4) return rd_bad(r, field, "the section ends inside it");
    *v = ctp_get_u32(r->cur);
    r->cur += 4;
    return true;
}
static bool rd_u64(rd *r, uint64_t *v, const char *field) {
    if (r->st != CT_OK) return false;
    if (r->end - r->cur < 8) return rd_bad(r, field, "the section ends inside it");
    *v = ctp_get_u64(r->cur);
    r->cur += 8;
    return true;
}
static bool rd_i64(rd *r, int64_t *v, const char *field) {
    uint64_t u;
    if (!rd_u64(r, &u, field)) return false;
    memcpy(v, &u, 8);
    return true;
}
/* A count of records of at least `min_bytes` each, bounded by what is left and by `limit`. */
static bool rd_count(rd *r, uint32_t *n, uint32_t limit, size_t min_bytes, const char *field) {
    uint32_t v;
    *n = 0; /* nothing is kept of a refused count (the free walks the counts) */
    if (!rd_u32(r, &v, field)) return false;
    if (v > limit) return rd_bad(r, field, "count above the format's limit");
    if ((uint64_t)v * min_bytes > (uint64_t)(r->end - r->cur))
        return rd_bad(r, field, "count larger than the section can hold");
    *n = v;
    return true;
}
static bool rd_str(rd *r, const char **out, const char *field) {
    uint32_t n;
    if (!rd_u32(r, &n, field)) return false;
    if (n == 0 || n >= CTP_MAX_NAME) return rd_bad(r, field, "name empty or too long");
    if ((uint64_t)(r->end - r->cur) < n) return rd_bad(r, field, "the section ends inside it");
    ct_rt_program *p = r->p;
    if (p->nstr + n + 1 > p->capstr) return rd_bad(r, field, "names larger than the section");
    for (uint32_t i = 0; i < n; i++)
        if (r->cur[i] == 0) return rd_bad(r, field, "a NUL byte inside a name");
    memcpy(p->strpool + p->nstr, r->cur, n);
    p->strpool[p->nstr + n] = 0;
    *out = p->strpool + p->nstr;
    p->nstr += n + 1;
    r->cur += n;
    return true;
}
static bool rd_expr(rd *r, rt_expr *e, const char *field) {
    uint32_t n;
    if (!rd_u32(r, &n, field)) return false;
    if (n < 1 || n > CTP_MAX_TERMS) return rd_bad(r, field, "term count outside 1..16");
    ct_rt_program *p = r->p;
    if (p->nterm + n > p->capterm) return rd_bad(r, field, "more terms than the section holds");
    e->first = p->nterm;
    e->n = n;
    for (uint32_t t = 0; t < n; t++) {
        int64_t c;
        uint32_t m;
        if (!rd_i64(r, &c, field) || !rd_u32(r, &m, field)) return false;
        if (m >> p->nsym) return rd_bad(r, field, "a term names a symbol the program lacks");
        p->tcoef[p->nterm] = c;
        p->tmask[p->nterm++] = m;
    }
    return true;
}
static bool rd_dtype(rd *r, ct_dtype *dt, const char *field) {
    uint32_t v;
    if (!rd_u32(r, &v, field)) return false;
    if (v > (uint32_t)CT_FLOAT64) return rd_bad(r, field, "not a dtype kernels compute in");
    *dt = (ct_dtype)v;
    return true;
}
static bool rd_operand(rd *r, rt_operand *o, const char *field) {
    uint32_t nd;
    if (!rd_u32(r, &o->buf, field) || !rd_dtype(r, &o->dtype, field) || !rd_u32(r, &nd, field))
        return false;
    if (o->buf != CTP_NO_BUFFER && o->buf >= r->p->nbuf)
        return rd_bad(r, field, "buffer index out of range");
    if (nd > CT_MAX_DIMS) return rd_bad(r, field, "more than 8 dims");
    o->ndim = (int)nd;
    if (!rd_expr(r, &o->off, field)) return false;
    if (o->buf == CTP_NO_BUFFER) {
        if (nd) return rd_bad(r, field, "an absent operand with dims");
        return true;
    }
    for (int d = 0; d < o->ndim; d++)
        if (!rd_expr(r, &o->shape[d], field)) return false;
    for (int d = 0; d < o->ndim; d++)
        if (!rd_expr(r, &o->strides[d], field)) return false;
    return true;
}

/* ---- evaluation ---- */
static bool rt_eval(const ct_rt_program *p, rt_expr e, int64_t *out) {
    int64_t acc = 0;
    for (uint32_t t = e.first; t < e.first + e.n; t++) {
        int64_t m = p->tcoef[t];
        for (int k = 0; k < p->nsym; k++)
            if ((p->tmask[t] >> k & 1) && __builtin_mul_overflow(m, p->sym[k], &m)) return false;
        if (__builtin_add_overflow(acc, m, &acc)) return false;
    }
    *out = acc;
    return true;
}

/* Resolve operand o against the bound buffers into d; every addressed byte inside its buffer. */
static ct_status rt_operand_resolve(ct_rt_program *p, const rt_operand *o, ct_operand *d,
                                    uint32_t pc, int which) {
    d->dtype = o->dtype;
    d->ndim = o->ndim;
    d->tensor = NULL;
    if (o->buf == CTP_NO_BUFFER) {
        d->data = NULL;
        return CT_OK;
    }
    int64_t off, lo = 0, hi = 0;
    bool empty = false, ok = rt_eval(p, o->off, &off);
    for (int k = 0; ok && k < o->ndim; k++) {
        ok = rt_eval(p, o->shape[k], &d->shape[k]) && rt_eval(p, o->strides[k], &d->strides[k]) &&
             d->shape[k] >= 0;
        if (!ok) break;
        if (d->shape[k] == 0) empty = true;
        int64_t span;
        if (!empty && (!ct__checked_mul(d->shape[k] - 1, d->strides[k], &span) ||
                       !ct__checked_add(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)))
            ok = false;
    }
    int64_t isz = (int64_t)ct__itemsize(o->dtype), blo = 0, bhi = 0;
    const int64_t size = p->bufsize[o->buf];
    if (ok && isz > 1 && off % isz) /* buffers start aligned; elements must stay so */
        return rt_fail(p, CT_ERR_FORMAT,
                       "program: instruction %u operand %d: byte offset %lld is not a multiple of "
                       "its %lld-byte elements",
                       pc, which, (long long)off, (long long)isz);
    if (ok && !empty)
        ok = ct__checked_mul(lo, isz, &blo) && ct__checked_add(blo, off, &blo) &&
             ct__checked_add(hi, 1, &bhi) && ct__checked_mul(bhi, isz, &bhi) &&
             ct__checked_add(bhi, off, &bhi) && blo >= 0 && bhi <= size;
    if (!ok)
        return rt_fail(p, CT_ERR_FORMAT,
                       "program: instruction %u operand %d addresses bytes outside its buffer "
                       "%u of %lld bytes (or its shape overflows)",
                       pc, which, o->buf, (long long)size);
    d->data = empty ? (void *)p->bufptr[o->buf] : (void *)(p->bufptr[o->buf] + off);
    return CT_OK;
}

/* Resolve instruction pc into p->desc and check its rule. */
static ct_status rt_resolve(ct_rt_program *p, uint32_t pc) {
    const rt_instr *in = &p->ins[pc];
    ct_op_desc *d = &p->desc;
    d->kind = (ct_op_kind)in->kind;
    d->n_out = (int)in->n_out;
    d->n_in = (int)in->n_in;
    d->compute_dtype = in->cdt;
    d->reduce_mask = in->reduce_mask;
    d->num_threads = 1;
    for (int i = 0; i < 4; i++) {
        d->scalars[i] = in->scalars[i];
        if (!rt_eval(p, in->ints[i], &d->ints[i]))
            return rt_fail(p, CT_ERR_FORMAT, "program: instruction %u: a parameter overflows", pc);
    }
    for (int i = 0; i < d->n_out + d->n_in; i++) {
        ct_status st =
            rt_operand_resolve(p, &p->opnd[in->first_operand + i], &d->operands[i], pc, i);
        if (st != CT_OK) return st;
        if (!d->operands[i].data && !ct__desc_optional_operand(d->kind, i) &&
            !(d->kind == CT_OP_LAYER_NORM && i >= 2))
            return rt_fail(p, CT_ERR_FORMAT, "program: instruction %u (%s) operand %d is absent",
                           pc, rt_op_names[d->kind] + 6, i);
    }
    const char *rule = "";
    if (ct__desc_rule(d, &rule) != 1)
        return rt_fail(p, CT_ERR_FORMAT, "program: instruction %u (%s) breaks the rule: %s", pc,
                       rt_op_names[d->kind] + 6, rule);
    return CT_OK;
}

/* Bind the buffers for the current symbol values (arena == NULL: sizes only, for the load-time
 * checks). */
static ct_status rt_bind(ct_rt_program *p, uint8_t *arena) {
    for (uint32_t b = 0; b < p->nbuf; b++) {
        const rt_buffer *bf = &p->buf[b];
        int64_t bytes;
        if (!rt_eval(p, bf->bytes, &bytes) || bytes < 0)
            return rt_fail(p, CT_ERR_FORMAT, "program: buffer %u's size overflows", b);
        uint8_t *ptr = p->dummy;
        switch (bf->kind) {
        case CTP_BUF_ARENA:
            if ((uint64_t)bytes > bf->slot)
                return rt_fail(p, CT_ERR_FORMAT,
                               "program: buffer %u needs %lld bytes, its arena slot has %llu", b,
                               (long long)bytes, (unsigned long long)bf->slot);
            if (arena) ptr = arena + bf->offset;
            break;
        case CTP_BUF_INPUT: {
            const rt_input *in = &p->in[bf->index];
            int64_t n = (int64_t)ct__itemsize(in->dtype), s;
            for (int d = 0; d < in->ndim; d++) {
                s = in->sym[d] >= 0 ? p->sym[in->sym[d]] : in->size[d];
                if (!ct__checked_mul(n, s, &n)) n = INT64_MAX;
            }
            if (bytes > n)
                return rt_fail(p, CT_ERR_FORMAT,
                               "program: buffer %u (input '%s') is %lld bytes, the input %lld", b,
                               in->name, (long long)bytes, (long long)n);
            if (arena && in->data) ptr = (uint8_t *)(uintptr_t)in->data;
            break;
        }
        default: {
            const rt_weight *w = &p->w[bf->index];
            if ((uint64_t)bytes > w->kbytes)
                return rt_fail(p, CT_ERR_FORMAT,
                               "program: buffer %u (weight '%s') is %lld bytes, the weight %llu", b,
                               w->name, (long long)bytes, (unsigned long long)w->kbytes);
            ptr = (uint8_t *)(uintptr_t)w->data;
            break;
        }
        }
        p->bufptr[b] = ptr;
        p->bufsize[b] = bytes;
    }
    return CT_OK;
}

/* The load-time walk: every instruction and output resolves and keeps its rule at these sizes. */
static ct_status rt_check_sizes(ct_rt_program *p) {
    ct_status st = rt_bind(p, NULL);
    for (uint32_t pc = 0; st == CT_OK && pc < p->ninstr; pc++) {
        const rt_instr *in = &p->ins[pc];
        if (in->opcode == CTP_I_KERNEL) {
            st = rt_resolve(p, pc);
            if (st == CT_OK && !p->kern->accepts(p, &p->desc))
                st = rt_fail(p, CT_ERR_UNSUPPORTED,
                             "program: instruction %u (%s): a layout the kernel set '%s' does not "
                             "run (load with ct_rt_kernels_all)",
                             pc, rt_op_names[in->kind] + 6, p->kern->name);
        } else if (in->opcode == CTP_I_JUMP_IF_ZERO) {
            ct_operand o;
            st = rt_operand_resolve(p, &p->opnd[in->first_operand], &o, pc, 0);
            int64_t n = 1;
            for (int d = 0; st == CT_OK && d < o.ndim; d++)
                n *= o.shape[d];
            if (st == CT_OK && n != 1)
                st = rt_fail(p, CT_ERR_FORMAT,
                             "program: instruction %u: the predicate has %lld elements, not 1", pc,
                             (long long)n);
        }
    }
    for (uint32_t j = 0; st == CT_OK && j < p->nout; j++) {
        ct_operand o;
        st = rt_operand_resolve(p, &p->out[j].v, &o, p->ninstr, (int)j);
    }
    return st;
}

/* ---- load ---- */
static ct_status rt_parse(ct_rt_program *p, const uint8_t *sec, uint64_t size, size_t sec_off) {
    rd r = {p, sec, sec, sec + size, sec_off, CT_OK};
    uint32_t n;
    if (rd_count(&r, &n, CTP_MAX_SYMS, 29, "symbols.count")) {
        p->nsym = (int)n;
        for (int k = 0; k < p->nsym; k++) {
            if (!rd_str(&r, &p->sym_name[k], "symbols.name") ||
                !rd_i64(&r, &p->sym_min[k], "symbols.min") ||
                !rd_i64(&r, &p->sym_max[k], "symbols.max") ||
                !rd_i64(&r, &p->sym_ex[k], "symbols.example"))
                break;
            if (p->sym_min[k] < 0 || p->sym_min[k] > p->sym_ex[k] || p->sym_ex[k] > p->sym_max[k])
                rd_bad(&r, "symbols.range", "min <= example <= max does not hold");
        }
    }
    if (rd_count(&r, &n, CT_OP_COUNT, 9, "ops.count")) {
        p->nops = (int)n;
        for (int i = 0; i < p->nops && r.st == CT_OK; i++) {
            const char *nm;
            uint32_t ver;
            if (!rd_str(&r, &nm, "ops.name") || !rd_u32(&r, &ver, "ops.version")) break;
            int k = 0;
            while (k < CT_OP_COUNT && strcmp(rt_op_names[k] + 6, nm) != 0)
                k++;
            if (k == CT_OP_COUNT || !p->kern->has(k) || ver != 1) {
                r.st = CT_ERR_UNSUPPORTED;
                snprintf(p->err, sizeof p->err,
                         "program: op '%s' version %u is not in this runtime's kernel set '%s'", nm,
                         ver, p->kern->name);
                break;
            }
            p->op_kind[i] = k;
        }
    }
    if (rd_count(&r, &p->nw, CTP_MAX_COUNT, 61, "weights.count")) {
        for (uint32_t i = 0; i < p->nw && r.st == CT_OK; i++) {
            rt_weight *w = &p->w[i];
            if (!rd_str(&r, &w->name, "weights.name") ||
                !rd_u32(&r, &w->transform, "weights.transform") ||
                !rd_u32(&r, &w->bits, "weights.bits") || !rd_i64(&r, &w->rows, "weights.rows") ||
                !rd_i64(&r, &w->row_len, "weights.row_len") ||
                !rd_i64(&r, &w->row_bytes, "weights.row_bytes") ||
                !rd_u64(&r, &w->off, "weights.offset") ||
                !rd_u64(&r, &w->fbytes, "weights.file_bytes") ||
                !rd_u64(&r, &w->kbytes, "weights.bytes"))
                break;
            if (w->off > p->wsize || w->fbytes > p->wsize - w->off || w->off % CTP_ALIGN)
                rd_bad(&r, "weights.offset", "outside the weights section or not 64-byte aligned");
            else if (w->transform == CTP_WX_RAW) {
                if (w->kbytes != w->fbytes) rd_bad(&r, "weights.bytes", "differs from file_bytes");
            } else if (w->transform == CTP_WX_UNPACK) {
                int64_t codes, kb;
                bool ok = (w->bits == 4 || w->bits == 6) && w->rows >= 0 && w->row_len >= 0 &&
                          w->row_bytes == (w->bits == 4 ? (w->row_len + 1) / 2 : w->row_len) &&
                          ct__checked_mul(w->rows, w->row_len, &codes) && codes <= INT64_MAX / 8 &&
                          (uint64_t)((codes * (int64_t)w->bits + 7) / 8) == w->fbytes &&
                          ct__checked_mul(w->rows, w->row_bytes, &kb) &&
                          (uint64_t)kb == w->kbytes && w->kbytes <= 2 * w->fbytes + 16;
                if (!ok) rd_bad(&r, "weights.unpack", "inconsistent packed layout");
            } else
                rd_bad(&r, "weights.transform", "unknown transform");
        }
    }
    if (rd_count(&r, &p->nin, 64, 12, "inputs.count")) {
        for (uint32_t i = 0; i < p->nin && r.st == CT_OK; i++) {
            rt_input *in = &p->in[i];
            uint32_t nd;
            if (!rd_str(&r, &in->name, "inputs.name") ||
                !rd_dtype(&r, &in->dtype, "inputs.dtype") || !rd_u32(&r, &nd, "inputs.ndim"))
                break;
            if (nd > CT_MAX_DIMS) {
                rd_bad(&r, "inputs.ndim", "more than 8 dims");
                break;
            }
            in->ndim = (int)nd;
            for (int d = 0; d < in->ndim; d++) {
                uint32_t s;
                if (!rd_u32(&r, &s, "inputs.sym") || !rd_i64(&r, &in->size[d], "inputs.size"))
                    break;
                in->sym[d] = s == 0xFFFFFFFFu ? -1 : (int)s;
                if ((s != 0xFFFFFFFFu && s >= (uint32_t)p->nsym) || in->size[d] < 0)
                    rd_bad(&r, "inputs.sym", "unknown symbol or negative size");
            }
        }
    }
    if (rd_count(&r, &p->nbuf, CTP_MAX_COUNT, 40, "buffers.count")) {
        for (uint32_t b = 0; b < p->nbuf && r.st == CT_OK; b++) {
            rt_buffer *bf = &p->buf[b];
            if (!rd_u32(&r, &bf->kind, "buffers.kind") ||
                !rd_u32(&r, &bf->index, "buffers.index") ||
                !rd_expr(&r, &bf->bytes, "buffers.bytes") ||
                !rd_u64(&r, &bf->offset, "buffers.offset") ||
                !rd_u64(&r, &bf->slot, "buffers.slot"))
                break;
            if (bf->kind > CTP_BUF_WEIGHT || (bf->kind == CTP_BUF_INPUT && bf->index >= p->nin) ||
                (bf->kind == CTP_BUF_WEIGHT && bf->index >= p->nw) ||
                (bf->kind == CTP_BUF_ARENA && (bf->index || bf->offset % CTP_ALIGN)))
                rd_bad(&r, "buffers.kind", "bad kind, index or alignment");
        }
    }
    rd_u64(&r, &p->arena, "arena_bytes");
    rd_u64(&r, &p->inter, "intermediate_bytes");
    for (uint32_t b = 0; b < p->nbuf && r.st == CT_OK; b++) {
        const rt_buffer *bf = &p->buf[b];
        if (bf->kind == CTP_BUF_ARENA &&
            (bf->offset > p->arena || bf->slot > p->arena - bf->offset))
            rd_bad(&r, "buffers.offset", "an arena buffer reaches past the arena");
    }
    if (rd_count(&r, &p->ninstr, CTP_MAX_COUNT, 8, "instructions.count")) {
        for (uint32_t pc = 0; pc < p->ninstr && r.st == CT_OK; pc++) {
            rt_instr *in = &p->ins[pc];
            memset(in, 0, sizeof *in);
            if (!rd_u32(&r, &in->opcode, "instruction.opcode")) break;
            if (in->opcode == CTP_I_KERNEL) {
                uint32_t opi, cdt;
                if (!rd_u32(&r, &opi, "instruction.op") ||
                    !rd_u32(&r, &in->n_out, "instruction.n_out") ||
                    !rd_u32(&r, &in->n_in, "instruction.n_in") ||
                    !rd_u32(&r, &cdt, "instruction.compute_dtype") ||
                    !rd_u32(&r, &in->reduce_mask, "instruction.reduce_mask"))
                    break;
                int lo, hi;
                if (opi >= (uint32_t)p->nops) {
                    rd_bad(&r, "instruction.op", "op index out of range");
                    break;
                }
                in->kind = (uint32_t)p->op_kind[opi];
                if (!ct__desc_arity((int)in->kind, &lo, &hi) ||
                    in->n_out != (uint32_t)ct__desc_outputs((ct_op_kind)in->kind) ||
                    in->n_in < (uint32_t)lo || in->n_in > (uint32_t)hi ||
                    in->n_out + in->n_in > CT_OP_MAX_OPERANDS || cdt > (uint32_t)CT_FLOAT64) {
                    rd_bad(&r, "instruction.arity", "operand counts or compute dtype invalid");
                    break;
                }
                in->cdt = (ct_dtype)cdt;
                for (int i = 0; i < 4; i++) {
                    uint64_t bits;
                    if (!rd_u64(&r, &bits, "instruction.scalars")) break;
                    memcpy(&in->scalars[i], &bits, 8);
                }
                for (int i = 0; i < 4; i++)
                    if (!rd_expr(&r, &in->ints[i], "instruction.ints")) break;
                if (p->nopnd + in->n_out + in->n_in > p->capopnd) {
                    rd_bad(&r, "instruction.operands", "more operands than the section holds");
                    break;
                }
                in->first_operand = p->nopnd;
                for (uint32_t i = 0; i < in->n_out + in->n_in && r.st == CT_OK; i++) {
                    const rt_operand *o = &p->opnd[p->nopnd];
                    if (!rd_operand(&r, &p->opnd[p->nopnd++], "instruction.operand")) break;
                    if (o->buf != CTP_NO_BUFFER && p->buf[o->buf].kind != CTP_BUF_ARENA &&
                        ct__desc_operand_written((ct_op_kind)in->kind, (int)in->n_out, (int)i))
                        rd_bad(&r, "instruction.operand", "writes an input or a weight");
                }
            } else if (in->opcode == CTP_I_JUMP_IF_ZERO) {
                if (p->nopnd + 1 > p->capopnd) {
                    rd_bad(&r, "instruction.operands", "more operands than the section holds");
                    break;
                }
                in->first_operand = p->nopnd;
                if (!rd_operand(&r, &p->opnd[p->nopnd++], "instruction.predicate") ||
                    !rd_u32(&r, &in->target, "instruction.target"))
                    break;
                if (p->opnd[in->first_operand].buf == CTP_NO_BUFFER || in->target <= pc ||
                    in->target > p->ninstr)
                    rd_bad(&r, "instruction.target",
                           "an absent predicate or a target that is "
                           "not forward");
            } else if (in->opcode == CTP_I_JUMP) {
                if (!rd_u32(&r, &in->target, "instruction.target")) break;
                if (in->target > p->ninstr) rd_bad(&r, "instruction.target", "past the end");
            } else
                rd_bad(&r, "instruction.opcode", "unknown opcode");
        }
    }
    /* a backward jump closes a loop: some test between its target and it exits right after it */
    for (uint32_t pc = 0; pc < p->ninstr && r.st == CT_OK; pc++) {
        const rt_instr *in = &p->ins[pc];
        if (in->opcode != CTP_I_JUMP || in->target > pc) continue;
        bool exits = false;
        for (uint32_t q = in->target; q < pc && !exits; q++)
            exits = p->ins[q].opcode == CTP_I_JUMP_IF_ZERO && p->ins[q].target == pc + 1;
        if (!exits) rd_bad(&r, "instruction.target", "a backward jump that no test leaves");
    }
    if (rd_count(&r, &p->nout, 64, 20, "outputs.count")) {
        if (p->nout == 0) rd_bad(&r, "outputs.count", "a program without outputs");
        for (uint32_t j = 0; j < p->nout && r.st == CT_OK; j++) {
            if (!rd_str(&r, &p->out[j].name, "outputs.name") ||
                !rd_operand(&r, &p->out[j].v, "outputs.value"))
                break;
            if (p->out[j].v.buf == CTP_NO_BUFFER) rd_bad(&r, "outputs.value", "absent output");
        }
    }
    if (r.st == CT_OK && r.cur != r.end) rd_bad(&r, "end", "bytes after the last output");
    return r.st;
}

/* Unpack a weight's packed codes into kernel rows (FP4: two per byte, FP6: one per byte). */
static void rt_unpack(const rt_weight *w, const uint8_t *src, uint8_t *dst) {
    memset(dst, 0, (size_t)w->kbytes);
    const unsigned mask = (1u << w->bits) - 1u;
    for (int64_t r = 0; r < w->rows; r++)
        for (int64_t j = 0; j < w->row_len; j++) {
            uint64_t bit = ((uint64_t)r * (uint64_t)w->row_len + (uint64_t)j) * w->bits;
            unsigned v = src[bit / 8];
            if (bit % 8 + w->bits > 8) v |= (unsigned)src[bit / 8 + 1] << 8;
            v = v >> (bit % 8) & mask;
            if (w->bits == 4)
                dst[r * w->row_bytes + j / 2] |= (uint8_t)(v << (4 * (j & 1)));
            else
                dst[r * w->row_bytes + j] = (uint8_t)v;
        }
}

static size_t rt_al(size_t n) { return (n + 63) / 64 * 64; }

ct_status ct_rt_load(const void *data, size_t size, ct_rt_program **out, char *err,
                     size_t err_size) {
    return ct_rt_load_with(ct_rt_kernels_all(), data, size, out, err, err_size);
}

ct_status ct_rt_load_with(const ct_rt_kernels *kern, const void *data, size_t size,
                          ct_rt_program **out, char *err, size_t err_size) {
    if (err && err_size) err[0] = 0;
    ct_rt_program tmp; /* for the messages of failures before the allocation */
    memset(&tmp, 0, sizeof tmp);
    ct_rt_program *p = &tmp;
    ct_status st = CT_OK;
    if (!out || !data || !kern || ((uintptr_t)data & 15)) {
        st = rt_fail(p, CT_ERR_INVALID_ARG, "rt_load: %s",
                     !out    ? "out is NULL"
                     : !kern ? "kern is NULL"
                     : !data ? "data is NULL"
                             : "data is not 16-byte aligned");
        goto done;
    }
    *out = NULL;
    const uint8_t *f = data;
    if (size < CTP_HEADER_BYTES) {
        st = rt_fail(p, CT_ERR_FORMAT,
                     "program: header at byte 0: the file has %zu bytes, a "
                     "header %u",
                     size, CTP_HEADER_BYTES);
        goto done;
    }
    if (memcmp(f, CTP_MAGIC, 8) != 0) {
        st = rt_fail(p, CT_ERR_FORMAT, "program: magic at byte 0: not a ctorch program file");
        goto done;
    }
    uint32_t ver = ctp_get_u32(f + 8), flags = ctp_get_u32(f + 12), nsec = ctp_get_u32(f + 24);
    if (ver == 0 || ver > CTP_VERSION) {
        st = rt_fail(p, ver ? CT_ERR_UNSUPPORTED : CT_ERR_FORMAT,
                     "program: version at byte 8 is %u; this runtime reads versions 1..%u", ver,
                     CTP_VERSION);
        goto done;
    }
    if (!(flags & CTP_FLAG_LITTLE_ENDIAN) ||
        (flags & ~(CTP_FLAG_LITTLE_ENDIAN | CTP_FLAG_SYMBOLIC))) {
        st = rt_fail(p, CT_ERR_FORMAT, "program: flags at byte 12 (0x%x) are not valid", flags);
        goto done;
    }
    if (ctp_get_u64(f + 16) != size) {
        st = rt_fail(p, CT_ERR_FORMAT,
                     "program: file_size at byte 16 says %llu, the file has "
                     "%zu bytes (truncated?)",
                     (unsigned long long)ctp_get_u64(f + 16), size);
        goto done;
    }
    if (nsec < 1 || nsec > CTP_MAX_SECTIONS || size < CTP_HEADER_BYTES + nsec * CTP_SECTION_BYTES) {
        st = rt_fail(p, CT_ERR_FORMAT, "program: n_sections at byte 24 is %u", nsec);
        goto done;
    }
    uint32_t tab[256];
    ctp_crc_table(tab);
    {
        uint8_t h[CTP_HEADER_BYTES + CTP_MAX_SECTIONS * CTP_SECTION_BYTES];
        size_t hn = CTP_HEADER_BYTES + nsec * CTP_SECTION_BYTES;
        memcpy(h, f, hn);
        memset(h + 28, 0, 4);
        if (ctp_crc32(tab, 0, h, hn) != ctp_get_u32(f + 28)) {
            st = rt_fail(p, CT_ERR_FORMAT, "program: header_crc at byte 28 does not match");
            goto done;
        }
    }
    const uint8_t *psec = NULL, *wsec = NULL;
    uint64_t psize = 0, wsize = 0, poff = 0;
    for (uint32_t s = 0; s < nsec; s++) {
        const uint8_t *e = f + CTP_HEADER_BYTES + s * CTP_SECTION_BYTES;
        uint32_t kind = ctp_get_u32(e);
        uint64_t off = ctp_get_u64(e + 8), sz = ctp_get_u64(e + 16);
        size_t at = CTP_HEADER_BYTES + s * CTP_SECTION_BYTES;
        if (off % CTP_ALIGN || off < CTP_HEADER_BYTES + nsec * CTP_SECTION_BYTES || off > size ||
            sz > size - off) {
            st = rt_fail(p, CT_ERR_FORMAT,
                         "program: section %u at byte %zu: offset %llu size "
                         "%llu outside the file or misaligned",
                         s, at, (unsigned long long)off, (unsigned long long)sz);
            goto done;
        }
        for (uint32_t t = 0; t < s; t++) { /* no overlap */
            const uint8_t *q = f + CTP_HEADER_BYTES + t * CTP_SECTION_BYTES;
            uint64_t o2 = ctp_get_u64(q + 8), s2 = ctp_get_u64(q + 16);
            if (off < o2 + s2 && o2 < off + sz) {
                st = rt_fail(p, CT_ERR_FORMAT,
                             "program: section %u at byte %zu overlaps section "
                             "%u",
                             s, at, t);
                goto done;
            }
        }
        if (ctp_crc32(tab, 0, f + off, (size_t)sz) != ctp_get_u32(e + 24)) {
            st = rt_fail(p, CT_ERR_FORMAT,
                         "program: section %u at byte %zu: checksum mismatch "
                         "(the file is damaged)",
                         s, at);
            goto done;
        }
        if (kind == CTP_SEC_PROGRAM && !psec)
            psec = f + off, psize = sz, poff = off;
        else if (kind == CTP_SEC_WEIGHTS && !wsec)
            wsec = f + off, wsize = sz;
        else if (kind == CTP_SEC_PROGRAM || kind == CTP_SEC_WEIGHTS) {
            st = rt_fail(p, CT_ERR_FORMAT,
                         "program: section %u at byte %zu: a second section of "
                         "kind %u",
                         s, at, kind);
            goto done;
        } /* other kinds: skipped (later versions may add them) */
    }
    if (!psec) {
        st = rt_fail(p, CT_ERR_FORMAT, "program: no program section");
        goto done;
    }
    /* every byte outside the header and the sections is alignment padding, and zero */
    for (size_t at = CTP_HEADER_BYTES + nsec * CTP_SECTION_BYTES; at < size;) {
        size_t next = size;
        bool inside = false;
        for (uint32_t s = 0; s < nsec && !inside; s++) {
            const uint8_t *e = f + CTP_HEADER_BYTES + s * CTP_SECTION_BYTES;
            uint64_t off = ctp_get_u64(e + 8), sz = ctp_get_u64(e + 16);
            if (at >= off && at < off + sz) {
                inside = true;
                at = (size_t)(off + sz);
            } else if (off > at && off < next)
                next = (size_t)off;
        }
        if (inside) continue;
        for (; at < next; at++)
            if (f[at]) {
                st = rt_fail(p, CT_ERR_FORMAT,
                             "program: padding at byte %zu is not zero (the "
                             "file is damaged)",
                             at);
                goto done;
            }
    }
    if (wsec) { /* a safetensors blob: 8-byte header length, header, data */
        if (wsize < 8 || ctp_get_u64(wsec) > wsize - 8) {
            st = rt_fail(p, CT_ERR_FORMAT,
                         "program: weights section: its safetensors header "
                         "length does not fit");
            goto done;
        }
    }
    /* one allocation: the program, its tables sized by what the section can hold */
    uint64_t cap_small = psize / 4 + 1; /* strings, records */
    if (psize > ((uint64_t)1 << 40)) {
        st = rt_fail(p, CT_ERR_FORMAT, "program: the program section is too large");
        goto done;
    }
    size_t capterm = (size_t)(psize / 12 + 1), capopnd = (size_t)(psize / 28 + 1);
    size_t capins = (size_t)(psize / 8 + 1), capw = (size_t)(psize / 61 + 1);
    size_t capbuf = (size_t)(psize / 40 + 1), capstr = (size_t)(psize + cap_small);
    uint64_t unpack = 0;
    size_t sz_total = rt_al(sizeof *p) + rt_al(capterm * 8) + rt_al(capterm * 4) +
                      rt_al(capopnd * sizeof(rt_operand)) + rt_al(capins * sizeof(rt_instr)) +
                      rt_al(capw * sizeof(rt_weight)) + rt_al(64 * sizeof(rt_input)) +
                      rt_al(capbuf * sizeof(rt_buffer)) + rt_al(64 * sizeof(rt_output)) +
                      rt_al(capbuf * sizeof(uint8_t *)) + rt_al(capbuf * 8) + rt_al(capstr);
    uint8_t *blk = calloc(1, sz_total);
    if (!blk) {
        st = rt_fail(p, CT_ERR_OOM, "rt_load: out of memory (%zu bytes of tables)", sz_total);
        goto done;
    }
    p = (ct_rt_program *)blk;
    uint8_t *q = blk + rt_al(sizeof *p);
#define RT_CARVE(ptr, bytes) (ptr = (void *)q, q += rt_al(bytes))
    RT_CARVE(p->tcoef, capterm * 8);
    RT_CARVE(p->tmask, capterm * 4);
    RT_CARVE(p->opnd, capopnd * sizeof(rt_operand));
    RT_CARVE(p->ins, capins * sizeof(rt_instr));
    RT_CARVE(p->w, capw * sizeof(rt_weight));
    RT_CARVE(p->in, 64 * sizeof(rt_input));
    RT_CARVE(p->buf, capbuf * sizeof(rt_buffer));
    RT_CARVE(p->out, 64 * sizeof(rt_output));
    RT_CARVE(p->bufptr, capbuf * sizeof(uint8_t *));
    RT_CARVE(p->bufsize, capbuf * 8);
    RT_CARVE(p->strpool, capstr);
#undef RT_CARVE
    p->block = blk;
    p->capterm = (uint32_t)capterm;
    p->capopnd = (uint32_t)capopnd;
    p->capstr = capstr;
    p->file = f;
    p->size = size;
    p->kern = kern;
    p->wsec = wsec;
    p->wsize = wsec ? wsize : 0;
    st = rt_parse(p, psec, psize, (size_t)poff);
    if (st == CT_OK && (p->nw > capw || p->ninstr > capins || p->nbuf > capbuf))
        st = rt_fail(p, CT_ERR_FORMAT, "program: more records than the section can hold");
    if (st == CT_OK && p->nw && !wsec)
        st = rt_fail(p, CT_ERR_FORMAT,
                     "program: weights are listed but the file has no weights "
                     "section");
    for (uint32_t i = 0; st == CT_OK && i < p->nw; i++)
        if (p->w[i].transform == CTP_WX_UNPACK) unpack += rt_al((size_t)p->w[i].kbytes);
    if (st == CT_OK && unpack) { /* unpacked weights: a second block, still at load */
        uint8_t *ub = malloc((size_t)unpack);
        if (!ub)
            st = rt_fail(p, CT_ERR_OOM, "rt_load: out of memory (%llu bytes of weights)",
                         (unsigned long long)unpack);
        else {
            p->unpacked = ub;
            size_t at = 0;
            for (uint32_t i = 0; i < p->nw; i++)
                if (p->w[i].transform == CTP_WX_UNPACK) {
                    rt_unpack(&p->w[i], wsec + p->w[i].off, ub + at);
                    p->w[i].data = ub + at;
                    at += rt_al((size_t)p->w[i].kbytes);
                }
        }
    }
    for (uint32_t i = 0; st == CT_OK && i < p->nw; i++)
        if (p->w[i].transform == CTP_WX_RAW) p->w[i].data = wsec + p->w[i].off;
    if (st == CT_OK) kern->bind(p, ct__cpu_best());
    /* the checks of every instruction at the captured sizes and at every corner of the ranges */
    for (int c = -1; st == CT_OK && c < (1 << p->nsym); c++) {
        for (int k = 0; k < p->nsym; k++)
            p->sym[k] = c < 0 ? p->sym_ex[k] : (c >> k & 1) ? p->sym_max[k] : p->sym_min[k];
        st = rt_check_sizes(p);
    }
    if (st == CT_OK) {
        for (uint32_t i = 0; i < p->nin; i++)
            p->in[i].bound = false;
        p->err[0] = 0;
        *out = p;
        return CT_OK;
    }
done:
    if (err && err_size) snprintf(err, err_size, "%s", p->err);
    if (p != &tmp) ct_rt_free(p);
    return st;
}

void ct_rt_free(ct_rt_program *p) {
    if (!p) return;
    free(p->unpacked);
    free(p->block);
}

size_t ct_rt_arena_size(const ct_rt_program *p) { return p ? (size_t)p->arena : 0; }
int ct_rt_num_inputs(const ct_rt_program *p) { return p ? (int)p->nin : 0; }
int ct_rt_num_outputs(const ct_rt_program *p) { return p ? (int)p->nout : 0; }
const char *ct_rt_input_name(const ct_rt_program *p, int i) {
    return p && i >= 0 && (uint32_t)i < p->nin ? p->in[i].name : NULL;
}
const char *ct_rt_output_name(const ct_rt_program *p, int i) {
    return p && i >= 0 && (uint32_t)i < p->nout ? p->out[i].name : NULL;
}
ct_dtype ct_rt_input_dtype(const ct_rt_program *p, int i) {
    return p && i >= 0 && (uint32_t)i < p->nin ? p->in[i].dtype : CT_DTYPE_COUNT;
}
int ct_rt_input_ndim(const ct_rt_program *p, int i) {
    return p && i >= 0 && (uint32_t)i < p->nin ? p->in[i].ndim : -1;
}
int ct_rt_find_input(const ct_rt_program *p, const char *name) {
    for (uint32_t i = 0; p && name && i < p->nin; i++)
        if (strcmp(p->in[i].name, name) == 0) return (int)i;
    return -1;
}
int ct_rt_find_output(const ct_rt_program *p, const char *name) {
    for (uint32_t i = 0; p && name && i < p->nout; i++)
        if (strcmp(p->out[i].name, name) == 0) return (int)i;
    return -1;
}
const char *ct_rt_last_error(const ct_rt_program *p) { return p ? p->err : "program is NULL"; }

ct_status ct_rt_input_range(const ct_rt_program *p, int i, int d, int64_t *min, int64_t *max) {
    if (!p || i < 0 || (uint32_t)i >= p->nin || d < 0 || d >= p->in[i].ndim || !min || !max)
        return CT_ERR_INVALID_ARG;
    const rt_input *in = &p->in[i];
    *min = in->sym[d] >= 0 ? p->sym_min[in->sym[d]] : in->size[d];
    *max = in->sym[d] >= 0 ? p->sym_max[in->sym[d]] : in->size[d];
    return CT_OK;
}

ct_status ct_rt_set_input(ct_rt_program *p, int i, const void *data, const int64_t *shape) {
    if (!p) return CT_ERR_INVALID_ARG;
    if (i < 0 || (uint32_t)i >= p->nin || (!shape && p->in[i].ndim))
        return rt_fail(p, CT_ERR_INVALID_ARG, "rt_set_input: input %d of %u (or shape NULL)", i,
                       p->nin);
    rt_input *in = &p->in[i];
    for (int d = 0; d < in->ndim; d++)
        in->shape[d] = shape[d];
    in->data = data;
    in->bound = true;
    p->err[0] = 0;
    return CT_OK;
}

ct_status ct_rt_output(const ct_rt_program *p, int i, const void **data, ct_dtype *dtype, int *ndim,
                       const int64_t **shape, const int64_t **strides) {
    if (!p || i < 0 || (uint32_t)i >= p->nout || !p->ran) return CT_ERR_INVALID_ARG;
    const rt_output *o = &p->out[i];
    if (data) *data = o->data;
    if (dtype) *dtype = o->dtype;
    if (ndim) *ndim = o->ndim;
    if (shape) *shape = o->shape;
    if (strides) *strides = o->strides;
    return CT_OK;
}

/* The symbols from the bound inputs; every size checked against its range. */
static ct_status rt_bind_inputs(ct_rt_program *p) {
    bool set[CTP_MAX_SYMS] = {false};
    for (uint32_t i = 0; i < p->nin; i++) {
        const rt_input *in = &p->in[i];
        if (!in->bound)
            return rt_fail(p, CT_ERR_STATE, "rt_run: input '%s' is not bound (ct_rt_set_input)",
                           in->name);
        int64_t n = 1;
        for (int d = 0; d < in->ndim; d++) {
            int64_t s = in->shape[d];
            int k = in->sym[d];
            if (k < 0 && s != in->size[d])
                return rt_fail(p, CT_ERR_SHAPE,
                               "rt_run: input '%s' dim %d is %lld, the program "
                               "was exported for %lld",
                               in->name, d, (long long)s, (long long)in->size[d]);
            if (k >= 0 && (s < p->sym_min[k] || s > p->sym_max[k]))
                return rt_fail(p, CT_ERR_SHAPE,
                               "rt_run: input '%s' dim %d (%s) is %lld, outside "
                               "its range [%lld, %lld]",
                               in->name, d, p->sym_name[k], (long long)s, (long long)p->sym_min[k],
                               (long long)p->sym_max[k]);
            if (k >= 0 && set[k] && p->sym[k] != s)
                return rt_fail(p, CT_ERR_SHAPE,
                               "rt_run: input '%s' dim %d (%s) is %lld, another "
                               "input has %s = %lld",
                               in->name, d, p->sym_name[k], (long long)s, p->sym_name[k],
                               (long long)p->sym[k]);
            if (k >= 0) p->sym[k] = s, set[k] = true;
            n *= s;
        }
        if (n && !in->data)
            return rt_fail(p, CT_ERR_INVALID_ARG, "rt_run: input '%s' has no data", in->name);
        if ((uintptr_t)in->data % ct__itemsize(in->dtype))
            return rt_fail(p, CT_ERR_INVALID_ARG,
                           "rt_run: input '%s' is not aligned to its %zu-byte elements", in->name,
                           ct__itemsize(in->dtype));
    }
    return CT_OK;
}

static bool rt_pred(const ct_operand *o) {
    const void *v = o->data;
    uint16_t h;
    switch (o->dtype) {
    case CT_FLOAT32: return *(const float *)v != 0.0f || *(const float *)v != *(const float *)v;
    case CT_FLOAT64: return *(const double *)v != 0.0 || *(const double *)v != *(const double *)v;
    case CT_FLOAT16:
    case CT_BFLOAT16: memcpy(&h, v, 2); return (h & 0x7FFF) != 0;
    case CT_INT16: return *(const int16_t *)v != 0;
    case CT_INT32: return *(const int32_t *)v != 0;
    case CT_INT64: return *(const int64_t *)v != 0;
    default: return *(const uint8_t *)v != 0;
    }
}

ct_status ct__rt_run_with(ct_rt_program *p, void *arena, size_t arena_size, ct__rt_kernel_fn fn,
                          void *user) {
    if (!p) return CT_ERR_INVALID_ARG;
    p->ran = false;
    p->err[0] = 0;
    if ((!arena && p->arena) || ((uintptr_t)arena % CTP_ALIGN))
        return rt_fail(p, CT_ERR_INVALID_ARG, "rt_run: the arena is NULL or not 64-byte aligned");
    if (arena_size < p->arena)
        return rt_fail(p, CT_ERR_OOM, "rt_run: the arena has %zu bytes, the program needs %llu",
                       arena_size, (unsigned long long)p->arena);
    ct_status st = rt_bind_inputs(p);
    if (st == CT_OK) st = rt_bind(p, arena ? arena : p->dummy);
    uint64_t steps = 0;
    for (uint32_t pc = 0; st == CT_OK && pc < p->ninstr;) {
        const rt_instr *in = &p->ins[pc];
        if (p->max_steps && ++steps > p->max_steps) {
            st = rt_fail(p, CT_ERR_TIMEOUT,
                         "rt_run: stopped after %llu instructions (ct_rt_set_max_steps) at "
                         "instruction %u: a while_loop that does not end?",
                         (unsigned long long)p->max_steps, pc);
            break;
        }
        if (in->opcode == CTP_I_KERNEL) {
            st = rt_resolve(p, pc);
            if (st != CT_OK) break;
            st = fn ? fn(user, &p->desc) : p->kern->run(p, &p->desc);
            if (st != CT_OK && !p->err[0])
                rt_fail(
                    p, st, "rt_run: instruction %u (%s) failed: %s", pc, rt_op_names[in->kind] + 6,
                    st == CT_ERR_INDEX ? "an index is out of range" : "no kernel for these dtypes");
            pc++;
        } else if (in->opcode == CTP_I_JUMP_IF_ZERO) {
            ct_operand o;
            st = rt_operand_resolve(p, &p->opnd[in->first_operand], &o, pc, 0);
            if (st != CT_OK) break;
            pc = rt_pred(&o) ? pc + 1 : in->target;
        } else
            pc = in->target;
    }
    for (uint32_t j = 0; st == CT_OK && j < p->nout; j++) {
        rt_output *o = &p->out[j];
        ct_operand d;
        st = rt_operand_resolve(p, &o->v, &d, p->ninstr, (int)j);
        o->data = d.data;
        o->dtype = d.dtype;
        o->ndim = d.ndim;
        for (int k = 0; k < d.ndim; k++)
            o->shape[k] = d.shape[k], o->strides[k] = d.strides[k];
    }
    p->ran = st == CT_OK;
    return st;
}

ct_status ct_rt_set_max_steps(ct_rt_program *p, uint64_t max_steps) {
    if (!p) return CT_ERR_INVALID_ARG;
    p->max_steps = max_steps;
    return CT_OK;
}

ct_status ct_rt_run(ct_rt_program *p, void *arena, size_t arena_size) {
    return ct__rt_run_with(p, arena, arena_size, NULL, NULL);
}

/* ---- internal accessors for the library's ct_program (rt_impl.h) ---- */
void ct__rt_weights_section(const ct_rt_program *p, const void **data, size_t *size) {
    *data = p->wsec;
    *size = (size_t)p->wsize;
}

static const char *rt_expr_str(const ct_rt_program *p, rt_expr e, char *buf, size_t n) {
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t t = e.first; t < e.first + e.n && at + 40 < n; t++) {
        int64_t c = p->tcoef[t];
        if (c == 0 && e.n > 1) continue;
        int64_t mag = at && c < 0 ? -c : c;
        bool bare = mag == 1 && p->tmask[t] != 0; /* "batch", not "1*batch" */
        at += (size_t)snprintf(buf + at, n - at, "%s", at ? (c < 0 ? " - " : " + ") : "");
        if (!bare) at += (size_t)snprintf(buf + at, n - at, "%lld", (long long)mag);
        for (int k = 0, first = 1; k < p->nsym && at + 40 < n; k++)
            if (p->tmask[t] >> k & 1) {
                at += (size_t)snprintf(buf + at, n - at, "%s%s", bare && first ? "" : "*",
                                       p->sym_name[k]);
                first = 0;
            }
    }
    return buf;
}

void ct__rt_describe(const ct_rt_program *p, FILE *f) {
    const uint8_t *h = p->file;
    uint32_t nsec = ctp_get_u32(h + 24);
    fprintf(f, "format    ctorch program v%u, %zu bytes, flags 0x%x%s\n", ctp_get_u32(h + 8),
            p->size, ctp_get_u32(h + 12), p->nsym ? " (symbolic dims)" : "");
    for (uint32_t s = 0; s < nsec; s++) {
        const uint8_t *e = h + CTP_HEADER_BYTES + s * CTP_SECTION_BYTES;
        uint32_t kind = ctp_get_u32(e);
        fprintf(f, "section   %-8s offset %llu size %llu crc32 %08x\n",
                kind == CTP_SEC_PROGRAM   ? "program"
                : kind == CTP_SEC_WEIGHTS ? "weights"
                                          : "unknown",
                (unsigned long long)ctp_get_u64(e + 8), (unsigned long long)ctp_get_u64(e + 16),
                ctp_get_u32(e + 24));
    }
    for (int k = 0; k < p->nsym; k++)
        fprintf(f, "symbol    %s in [%lld, %lld] (exported at %lld)\n", p->sym_name[k],
                (long long)p->sym_min[k], (long long)p->sym_max[k], (long long)p->sym_ex[k]);
    for (uint32_t i = 0; i < p->nin; i++) {
        const rt_input *in = &p->in[i];
        fprintf(f, "input     %s %s [", in->name, ct_dtype_name(in->dtype));
        for (int d = 0; d < in->ndim; d++) {
            if (in->sym[d] >= 0)
                fprintf(f, "%s%s", d ? ", " : "", p->sym_name[in->sym[d]]);
            else
                fprintf(f, "%s%lld", d ? ", " : "", (long long)in->size[d]);
        }
        fprintf(f, "]\n");
    }
    char eb[256];
    for (uint32_t j = 0; j < p->nout; j++) {
        const rt_operand *o = &p->out[j].v;
        fprintf(f, "output    %s %s [", p->out[j].name, ct_dtype_name(o->dtype));
        for (int d = 0; d < o->ndim; d++)
            fprintf(f, "%s%s", d ? ", " : "", rt_expr_str(p, o->shape[d], eb, sizeof eb));
        fprintf(f, "]\n");
    }
    uint32_t count[CT_OP_COUNT] = {0}, jumps = 0;
    for (uint32_t pc = 0; pc < p->ninstr; pc++)
        if (p->ins[pc].opcode == CTP_I_KERNEL)
            count[p->ins[pc].kind]++;
        else
            jumps++;
    fprintf(f, "program   %u instructions (%u jumps of cond / while_loop)\n", p->ninstr, jumps);
    for (int i = 0; i < p->nops; i++)
        fprintf(f, "op        %-14s v1  x%u\n", rt_op_names[p->op_kind[i]] + 6,
                count[p->op_kind[i]]);
    for (uint32_t i = 0; i < p->nw; i++)
        fprintf(f, "weight    %-24s %10llu bytes%s\n", p->w[i].name,
                (unsigned long long)p->w[i].kbytes,
                p->w[i].transform == CTP_WX_UNPACK ? " (sub-byte codes unpacked at load)" : "");
    uint32_t narena = 0;
    for (uint32_t b = 0; b < p->nbuf; b++)
        if (p->buf[b].kind == CTP_BUF_ARENA) {
            narena++;
            fprintf(f, "buffer    %-4u arena offset %8llu slot %8llu bytes = %s\n", b,
                    (unsigned long long)p->buf[b].offset, (unsigned long long)p->buf[b].slot,
                    rt_expr_str(p, p->buf[b].bytes, eb, sizeof eb));
        }
    fprintf(f, "memory    arena %llu bytes for %u intermediates of %llu bytes in all (%.1f%%)\n",
            (unsigned long long)p->arena, narena, (unsigned long long)p->inter,
            p->inter ? 100.0 * (double)p->arena / (double)p->inter : 100.0);
}

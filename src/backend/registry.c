/* Backend registry (per context), streams, and the validation of callers' descriptors at the
 * public submit entry (ct_stream_submit). The submit path itself is in dispatch/. */
#include "backend/registry.h"
#include "backend/desc_rules.h"
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/kernels/attn_kernels.h"
#include "backends/cpu/kernels/mx_kernels.h"
#include "backends/cpu/kernels/optim_kernels.h"
#include "backends/cpu/kernels/sparse_kernels.h"
#include "tensor/tensor_impl.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

ct_status ct__register_builtin(ct_ctx *ctx, const ct_backend_vtable *vt, int type) {
    if (ctx->n_backends >= CT__MAX_BACKENDS)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "backend_register: at most %d backends",
                             CT__MAX_BACKENDS);
    ct_stream *s = ct__alloc(ctx, sizeof *s, 16);
    if (!s) return ct__set_error(ctx, CT_ERR_OOM, "backend_register: out of memory");
    ct__backend_slot *b = &ctx->backends[ctx->n_backends];
    memset(b, 0, sizeof *b);
    memcpy(&b->vt, vt, vt->size < sizeof b->vt ? vt->size : sizeof b->vt);
    b->device_type = type;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->device = (ct_device){type, 0};
    s->slot = ctx->n_backends;
    s->owned_by_ctx = true;
    b->default_stream = s;
    ctx->n_backends++;
    return CT_OK;
}

ct_status ct_backend_register(ct_ctx *ctx, const ct_backend_vtable *vt, int *device_type) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!vt || !device_type)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "backend_register: NULL argument");
    if (vt->abi_version != CT_BACKEND_ABI_VERSION)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "backend_register: backend ABI version %u, library expects %u",
                             vt->abi_version, CT_BACKEND_ABI_VERSION);
    if (vt->size < offsetof(ct_backend_vtable, graph_impl) || !vt->name || !vt->alloc ||
        !vt->free || !vt->copy || !vt->run_op || !vt->synchronize)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "backend_register: table is too small or lacks a required function");
    for (int i = 0; i < ctx->n_backends; i++)
        if (strcmp(ctx->backends[i].vt.name, vt->name) == 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "backend_register: a backend named '%s' is already registered",
                                 vt->name);
    int type = ctx->next_user_type;
    ct_status st = ct__register_builtin(ctx, vt, type);
    if (st != CT_OK) return st;
    ctx->next_user_type++;
    *device_type = type;
    return CT_OK;
}

ct_status ct_backend_load(ct_ctx *ctx, const char *path, int *device_type) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!path || !device_type)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "backend_load: NULL argument");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return ct__set_error(ctx, CT_ERR_IO, "backend_load: %s", dlerror());
    ct_status (*init)(ct_ctx *, int *);
    *(void **)&init = dlsym(h, "ctorch_backend_init");
    if (!init) {
        dlclose(h);
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "backend_load: %s does not export ctorch_backend_init", path);
    }
    int before = ctx->n_backends;
    ct_status st = init(ctx, device_type);
    if (st != CT_OK || ctx->n_backends != before + 1) {
        /* The library registered nothing we can own the handle for; unload only if untouched. */
        if (ctx->n_backends == before)
            dlclose(h);
        else
            ctx->backends[ctx->n_backends - 1].dl_handle = h;
        return st != CT_OK ? st
                           : ct__set_error(ctx, CT_ERR_STATE,
                                           "backend_load: init must register exactly one backend");
    }
    ctx->backends[ctx->n_backends - 1].dl_handle = h;
    return CT_OK;
}

ct_status ct_backend_find(ct_ctx *ctx, const char *name, int *device_type) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!name || !device_type)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "backend_find: NULL argument");
    for (int i = 0; i < ctx->n_backends; i++)
        if (strcmp(ctx->backends[i].vt.name, name) == 0) {
            *device_type = ctx->backends[i].device_type;
            return CT_OK;
        }
    return ct__set_error(ctx, CT_ERR_INVALID_ARG, "backend_find: no backend named '%s'", name);
}

int ct_backend_count(const ct_ctx *ctx) { return ctx ? ctx->n_backends : 0; }
const char *ct_backend_name(const ct_ctx *ctx, int i) {
    return (ctx && i >= 0 && i < ctx->n_backends) ? ctx->backends[i].vt.name : NULL;
}

/* ---- streams ---- */
ct_status ct_ctx_default_stream(ct_ctx *ctx, ct_device device, ct_stream **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "default_stream: out is NULL");
    ct__backend_slot *b = ct__backend_for(ctx, device);
    if (!b) return CT_ERR_DEVICE;
    *out = b->default_stream;
    return CT_OK;
}

ct_status ct_ctx_set_stream(ct_ctx *ctx, ct_device device, ct_stream *s) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__backend_slot *b = ct__backend_for(ctx, device);
    if (!b) return CT_ERR_DEVICE;
    if (s && (s->ctx != ctx || s->device.type != device.type))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "set_stream: stream is for another device");
    b->current = s;
    return CT_OK;
}

ct_status ct_stream_create(ct_ctx *ctx, ct_device device, ct_stream **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "stream_create: out is NULL");
    ct__backend_slot *b = ct__backend_for(ctx, device);
    if (!b) return CT_ERR_DEVICE;
    ct_stream *s = ct__alloc(ctx, sizeof *s, 16);
    if (!s) return ct__set_error(ctx, CT_ERR_OOM, "stream_create: out of memory");
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->device = device;
    s->slot = (int)(b - ctx->backends);
    *out = s;
    return CT_OK;
}

void ct_stream_free(ct_stream *s) {
    if (!s || s->owned_by_ctx) return;
    ct__backend_slot *b = &s->ctx->backends[s->slot];
    if (s->capture) { /* freed mid-capture: the capture cannot continue */
        ct__capture *c = s->capture;
        ct__set_error(s->ctx, CT_ERR_STATE, "stream_free: the stream was freed while capturing");
        c->invalidate(c, CT_ERR_STATE, s->ctx->err);
        if (c->stream == s) {
            c->stream = NULL;
            b->current = b->saved_current; /* ops go back to where they went before the capture */
        } else if (c->stream_gone) {       /* a stream forked into the capture */
            c->stream_gone(c, s);
        }
    }
    if (b->current == s) b->current = NULL;
    if (b->saved_current == s) b->saved_current = NULL;
    ct__free(s->ctx, s);
}

ct_device ct_stream_device(const ct_stream *s) { return s ? s->device : (ct_device){-1, -1}; }

ct_status ct_stream_synchronize(ct_stream *s) {
    if (!s) return CT_ERR_INVALID_ARG;
    ct__backend_slot *b = &s->ctx->backends[s->slot];
    return b->vt.synchronize(b->vt.state);
}

/* ---- descriptor validation at the public submit entry ---- */

/* Contiguous with exactly this shape (size-1 dims may have any stride). */
static bool ct__contig_n(const ct_operand *o, int ndim, const int64_t *shape) {
    if (!o->data || o->ndim != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (o->shape[d] != shape[d]) return false;
    return ct__is_contiguous(o);
}

static bool ct__fa_float(ct_dtype dt) {
    return dt == CT_FLOAT32 || dt == CT_FLOAT16 || dt == CT_FLOAT64 || dt == CT_BFLOAT16;
}

/* FlexAttention (attn_kernels.h): q / k / v of one float dtype and consistent 4-d shapes, the
 * outputs contiguous, the block-mask table's header consistent with them and every row's counts
 * in range, the mods table's ids known and their parameter pointers present, the workspace as
 * large as the plan. The function pointers themselves cannot be checked: a descriptor is
 * trusted with them as with its data pointers. */
static bool ct__check_attention(const ct_op_desc *op, const char **rule) {
    *rule = "flex_attention: q (B,Hq,L,E), k (B,Hkv,S,E), v (B,Hkv,S,Ev) of one float dtype, Hq "
            "a multiple of Hkv, compute dtype f64 for f64 else f32, contiguous outputs, an int32 "
            "block table matching the shapes, an int64 (8) mods table, u8 work of the plan's size";
    const ct_operand *o = op->operands;
    const bool bwd = op->kind == CT_OP_FLEX_ATTENTION_BWD;
    const ct_operand *q = &o[bwd ? 3 : 2], *k = q + 1, *v = q + 2;
    const ct_operand *mk = &o[bwd ? 9 : 5], *md = &o[bwd ? 10 : 6], *w = &o[bwd ? 11 : 7];
    const ct_dtype dt = q->dtype, cdt = op->compute_dtype;
    if (!ct__fa_float(dt) || k->dtype != dt || v->dtype != dt ||
        cdt != (dt == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32))
        return false;
    if (q->ndim != 4 || k->ndim != 4 || v->ndim != 4) return false;
    ct__fa_dims d = {q->shape[0], q->shape[1], k->shape[1],
                     q->shape[2], k->shape[2], q->shape[3],
                     v->shape[3], 0,           0};
    if (k->shape[0] != d.B || v->shape[0] != d.B || v->shape[1] != d.Hkv || v->shape[2] != d.S ||
        k->shape[3] != d.E || (d.Hkv == 0 ? d.Hq != 0 : d.Hq % d.Hkv != 0))
        return false;
    if (!isfinite(op->scalars[0]) || op->ints[0] < 0 || op->ints[0] > 1) return false;
    const int64_t ls[3] = {d.B, d.Hq, d.L};
    if (!bwd) {
        const int64_t os[4] = {d.B, d.Hq, d.L, d.Ev};
        if (o[0].dtype != dt || !ct__contig_n(&o[0], 4, os)) return false;
        if (o[1].data && (o[1].dtype != cdt || !ct__contig_n(&o[1], 3, ls))) return false;
    } else {
        const int64_t qs[4] = {d.B, d.Hq, d.L, d.E}, ks[4] = {d.B, d.Hkv, d.S, d.E},
                      vs[4] = {d.B, d.Hkv, d.S, d.Ev};
        if (o[0].dtype != cdt || o[1].dtype != cdt || o[2].dtype != cdt ||
            !ct__contig_n(&o[0], 4, qs) || !ct__contig_n(&o[1], 4, ks) ||
            !ct__contig_n(&o[2], 4, vs))
            return false;
        const ct_operand *go = &o[6];
        if (!ct__fa_float(go->dtype) || go->ndim != 4 || go->shape[0] != d.B ||
            go->shape[1] != d.Hq || go->shape[2] != d.L || go->shape[3] != d.Ev)
            return false;
        if (o[7].dtype != cdt || o[8].dtype != cdt || !ct__contig_n(&o[7], 3, ls) ||
            !ct__contig_n(&o[8], 3, ls))
            return false;
    }
    if (mk->data) {
        if (mk->dtype != CT_INT32 || mk->ndim != 1 || !ct__is_contiguous(mk) ||
            mk->shape[0] < CT__FA_HDR)
            return false;
        const int32_t *h = mk->data;
        const int64_t bs = h[CT__FA_BS], Bm = h[CT__FA_BM], Hm = h[CT__FA_HM];
        if (h[CT__FA_TAG] != CT__FA_MASK_TAG || bs < 1 || (Bm != 1 && Bm != d.B) ||
            (Hm != 1 && Hm != d.Hq) || h[CT__FA_LQ] != d.L || h[CT__FA_LKV] != d.S)
            return false;
        const int64_t nqb = (d.L + bs - 1) / bs, nkvb = (d.S + bs - 1) / bs;
        if (h[CT__FA_NQB] != nqb || h[CT__FA_NKVB] != nkvb) return false;
        const int64_t rows = Bm * Hm * nqb, rl = ct__fa_row_len(nkvb);
        if (rows && rl > (INT64_MAX - CT__FA_HDR) / rows) return false;
        if (mk->shape[0] != CT__FA_HDR + rows * rl) return false;
        for (int64_t r = 0; r < rows; r++) {
            const int32_t *row = h + CT__FA_HDR + r * rl;
            if (row[0] < 0 || row[1] < 0 || (int64_t)row[0] + row[1] > nkvb) return false;
        }
        d.Hm = Hm;
        d.bs = bs;
    }
    if (md->dtype != CT_INT64 || md->ndim != 1 || md->shape[0] != CT__FA_NMODS ||
        !ct__is_contiguous(md))
        return false;
    const int64_t *m = md->data;
    const int64_t sid = m[CT__FA_SCORE_ID], mid = m[CT__FA_MASK_ID];
    if (sid < CT__FA_S_USER || sid > CT__FA_S_SOFTCAP || mid < CT__FA_M_USER ||
        mid > CT__FA_M_PREFIX)
        return false;
    if (sid != CT__FA_S_USER && (!m[CT__FA_SCORE_FN] || !m[CT__FA_SCORE_USER])) return false;
    if (bwd && sid == CT__FA_S_USER && m[CT__FA_SCORE_FN] && !m[CT__FA_SCORE_GRAD]) return false;
    if (mk->data && mid == CT__FA_M_USER && !m[CT__FA_MASK_FN]) return false;
    if (mid != CT__FA_M_USER && mid != CT__FA_M_CAUSAL && !m[CT__FA_MASK_USER]) return false;
    const ct__fa_plan p = ct__fa_plan_for(&d, bwd, op->num_threads);
    return w->dtype == CT_UINT8 && w->ndim == 1 && (w->strides[0] == 1 || w->shape[0] <= 1) &&
           w->shape[0] >= p.total;
}

/* The domain ops' layouts (backend.h): contiguous operands of consistent sizes, a workspace as
 * large as the CPU kernel's plan, parameters in range. */
static bool ct__check_domain(const ct_op_desc *op, const char **rule) {
    const ct_operand *o = op->operands;
    switch (op->kind) {
    case CT_OP_EIGH: {
        *rule =
            "eigh: contiguous w (B,n), v (B,n,n) or absent, info (B) int32 or absent, a (B,n,n) "
            "in the f32/f64 compute dtype, uint8 work of the CPU plan's size, n <= 46340";
        const ct_dtype cdt = op->compute_dtype;
        if ((cdt != CT_FLOAT32 && cdt != CT_FLOAT64) || o[0].ndim != 2 || o[0].dtype != cdt)
            return false;
        const int64_t B = o[0].shape[0], n = o[0].shape[1];
        if (n > 46340 || !ct__contig2(&o[0], 2, B, n, 0) || !ct__contig2(&o[3], 3, B, n, n) ||
            o[3].dtype != cdt)
            return false;
        if (o[1].data && (!ct__contig2(&o[1], 3, B, n, n) || o[1].dtype != cdt)) return false;
        if (o[2].data && (!ct__contig2(&o[2], 1, B, 0, 0) || o[2].dtype != CT_INT32)) return false;
        if (B == 0 || n == 0) return true;
        const int f64 = cdt == CT_FLOAT64;
        size_t lw;
        if (ct__eigh_choose_path((int)n, f64 ? 8 : 4) == CT__EIGH_PATH_LAPACK &&
            !ct__eigh_lapack_fits((int)n, o[1].data != NULL, &lw))
            return false;
        ct__eigh_plan p = ct__eigh_plan_for(f64, (int)n, B, o[1].data != NULL, op->num_threads);
        if (!p.work_bytes) return true;
        return o[4].data && o[4].dtype == CT_UINT8 && o[4].ndim == 1 &&
               (o[4].strides[0] == 1 || o[4].shape[0] == 1) &&
               (uint64_t)o[4].shape[0] >= (uint64_t)p.work_bytes * (uint64_t)p.nt;
    }
    case CT_OP_OPTIM_STEP: {
        *rule = "optim_step: contiguous param f32/f16/bf16 and grad of its shape and dtype, kind "
                "ints[0] & 0xff an optimizer kind, contiguous f32 state of slots * numel(param) "
                "values (SGD without momentum: absent), f64 schedule of the hyper-parameters and "
                "2 * ints[2] values (ints[1] < ints[2] the parameter's index; Rprop / ASGD: then "
                "their 6 extra hyper-parameters), grad_scale and "
                "found_inf f32 of one element or absent";
        const ct_operand *p = &o[0], *st = &o[1], *sch = &o[2], *g = &o[3];
        const int64_t kind = op->ints[0] & 0xff, flags = (int64_t)((uint64_t)op->ints[0] >> 8);
        if (kind < 0 || kind >= CT_K_OPT_KINDS || op->compute_dtype != CT_FLOAT32) return false;
        if (!ct__mx_float(p->dtype) || g->dtype != p->dtype || !ct__same_shape(p, g) ||
            !ct__is_contiguous(p) || !ct__is_contiguous(g))
            return false;
        if (sch->dtype != CT_FLOAT64 || !ct__is_contiguous(sch) || op->ints[1] < 0 ||
            op->ints[2] <= op->ints[1] || op->ints[2] > (INT64_MAX - 64) / 2 ||
            ct__numel(sch->ndim, sch->shape) <
                CT_K_OH_N + 2 * op->ints[2] + (kind >= CT_K_OPT_RPROP ? CT_K_OX_N : 0))
            return false;
        for (int i = 4; i < 4 + op->n_in - 1; i++)
            if (o[i].data && (o[i].dtype != CT_FLOAT32 || ct__numel(o[i].ndim, o[i].shape) != 1))
                return false;
        const int64_t n = ct__numel(p->ndim, p->shape);
        const int64_t slots = ct_k_optim_slots((int)kind, (unsigned)flags);
        if (!st->data) return slots == 0;
        return st->dtype == CT_FLOAT32 && ct__is_contiguous(st) && n <= INT64_MAX / 4 &&
               ct__numel(st->ndim, st->shape) >= slots * n;
    }
    default: *rule = ""; return true;
    }
}

/* One operand: a live tensor of this context on the stream's device, a sane geometry, and every
 * element it addresses inside the tensor's storage. */
static ct_status ct__check_operand(ct_stream *s, const ct_op_desc *op, int i) {
    ct_ctx *ctx = s->ctx;
    const char *name = ct_op_name(op->kind);
    const ct_operand *o = &op->operands[i];
    const ct_tensor *t = o->tensor;
    if (!t || t->magic != CT__TENSOR_MAGIC)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stream_submit: %s operand %d has no live tensor (operand.tensor)",
                             name, i);
    if (t->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stream_submit: %s operand %d belongs to another context", name, i);
    const ct__storage *st = t->storage;
    if (st->device.type != s->device.type || st->device.index != s->device.index) {
        char d1[CT_DEVICE_NAME_MAX], d2[CT_DEVICE_NAME_MAX];
        return ct__set_error(ctx, CT_ERR_DEVICE,
                             "stream_submit: %s operand %d is on device %s, the stream on %s", name,
                             i, ct_device_format(ctx, st->device, d1, sizeof d1),
                             ct_device_format(ctx, s->device, d2, sizeof d2));
    }
    if ((unsigned)o->dtype > (unsigned)CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "stream_submit: %s operand %d has dtype %d, not a compute dtype", name,
                             i, (int)o->dtype);
    if (o->ndim < 0 || o->ndim > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "stream_submit: %s operand %d has ndim %d", name, i,
                             o->ndim);
    int64_t lo = 0, hi = 0;
    bool empty = false;
    for (int d = 0; d < o->ndim; d++) {
        int64_t span;
        if (o->shape[d] < 0)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "stream_submit: %s operand %d has size %lld at dim %d", name, i,
                                 (long long)o->shape[d], d);
        if (o->shape[d] == 0) empty = true;
        if (empty) continue;
        if (!ct__checked_mul(o->shape[d] - 1, o->strides[d], &span) ||
            !ct__checked_add(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
            return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                 "stream_submit: %s operand %d: strides overflow at dim %d", name,
                                 i, d);
    }
    if (empty) return CT_OK;
    int64_t isz = (int64_t)ct__itemsize(o->dtype),
            base = (int64_t)((uintptr_t)o->data - (uintptr_t)st->data); /* no UB across objects */
    int64_t blo, bhi;
    if (!o->data || !ct__checked_mul(lo, isz, &blo) || !ct__checked_add(blo, base, &blo) ||
        !ct__checked_add(hi, 1, &bhi) || !ct__checked_mul(bhi, isz, &bhi) ||
        !ct__checked_add(bhi, base, &bhi) || blo < 0 || bhi > (int64_t)st->nbytes)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stream_submit: %s operand %d addresses bytes outside its storage of "
                             "%zu bytes",
                             name, i, st->nbytes);
    return CT_OK;
}

/* The shape and dtype rules of each op family (what the kernels assume; see backend.h). */
static ct_status ct__check_desc(ct_stream *s, const ct_op_desc *op) {
    ct_ctx *ctx = s->ctx;
    if ((unsigned)op->kind >= CT_OP_COUNT)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "stream_submit: op kind %d is not valid",
                             (int)op->kind);
    const char *name = ct_op_name(op->kind);
    int lo = 0, hi = 0;
    ct__desc_arity(op->kind, &lo, &hi);
    const int nout = ct__desc_outputs(op->kind);
    if (op->n_out != nout || op->n_in < lo || op->n_in > hi)
        return ct__set_error(
            ctx, CT_ERR_INVALID_ARG,
            "stream_submit: %s takes %d output(s) and %d..%d inputs, got %d and %d", name, nout, lo,
            hi, op->n_out, op->n_in);
    if ((unsigned)op->compute_dtype > (unsigned)CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "stream_submit: %s compute dtype %d is not valid",
                             name, (int)op->compute_dtype);
    if (op->num_threads < 1 || op->num_threads > CT_MAX_THREADS)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stream_submit: %s num_threads %d outside 1..%d", name,
                             op->num_threads, CT_MAX_THREADS);
    const bool ln = op->kind == CT_OP_LAYER_NORM;
    for (int i = 0; i < op->n_out + op->n_in; i++) {
        if (ln && i >= 2 && !op->operands[i].data) continue; /* absent weight / bias */
        if (ct__desc_optional_operand(op->kind, i) && !op->operands[i].data) continue;
        ct_status st = ct__check_operand(s, op, i);
        if (st != CT_OK) return st;
    }
    const ct_operand *o = &op->operands[0];
    const ct_dtype cdt = op->compute_dtype;
    bool ok = true;
    const char *rule = "";
    int gen = ct__desc_rule(op, &rule);
    if (gen >= 0)
        ok = gen == 1;
    else
        switch (op->kind) {
        case CT_OP_LINALG: {
            rule =
                "linalg: routine ints[0] in CT_LINALG_*, contiguous (B, m, n) input in0 and output "
                "0 of the compute dtype (f32/f64), further operands as the routine's layout";
            const ct_operand *a = &op->operands[op->n_out];
            ok = op->ints[0] >= CT_LINALG_CHOLESKY && op->ints[0] <= CT_LINALG_SVD &&
                 (cdt == CT_FLOAT32 || cdt == CT_FLOAT64) && a->ndim == 3 && a->dtype == cdt &&
                 o->dtype == cdt && op->n_out == 4 && op->n_in == 2;
            for (int i = 0; ok && i < 6; i++) { /* every present operand contiguous */
                const ct_operand *x = &op->operands[i];
                int64_t sd = 1;
                for (int d = x->ndim - 1; x->data && ok && d >= 0; d--) {
                    ok = x->shape[d] == 1 || x->strides[d] == sd;
                    sd *= x->shape[d];
                }
            }
            if (ok && (op->ints[0] == CT_LINALG_CHOLESKY || op->ints[0] == CT_LINALG_INV ||
                       op->ints[0] == CT_LINALG_SOLVE))
                ok = a->shape[1] == a->shape[2] && o->ndim == 3 && o->shape[0] == a->shape[0] &&
                     o->shape[1] == a->shape[1] &&
                     (op->ints[0] == CT_LINALG_SOLVE
                          ? op->operands[5].data != NULL && ct__same_shape(&op->operands[5], o)
                          : ct__same_shape(a, o));
            else if (ok)
                ok = false; /* slogdet, qr, svd and the second set (CT_LINALG_TRSOLVE ..
                             * CT_LINALG_LSTSQ) are submitted only by their front ends */
            break;
        }
        case CT_OP_EIGH:
        case CT_OP_OPTIM_STEP: ok = ct__check_domain(op, &rule); break;
        case CT_OP_FLEX_ATTENTION:
        case CT_OP_FLEX_ATTENTION_BWD: ok = ct__check_attention(op, &rule); break;
        case CT_OP_FFT:
        case CT_OP_COMPLEX: /* complex operands reach one real past the view they describe */
            rule =
                "fft / complex descriptors are submitted only by their front ends (ctorch/fft.h, "
                "the complex ops)";
            ok = false;
            break;
        default: ok = false; break;
        }
    if (!ok)
        return ct__set_error(ctx, CT_ERR_SHAPE, "stream_submit: %s descriptor breaks the rule (%s)",
                             name, rule);
    return CT_OK;
}

ct_status ct_stream_submit(ct_stream *s, const ct_op_desc *op) {
    if (!s) return CT_ERR_INVALID_ARG;
    if (!op) return ct__set_error(s->ctx, CT_ERR_INVALID_ARG, "stream_submit: op is NULL");
    ct_status st = ct__check_desc(s, op);
    if (st != CT_OK) return st;
    return ct__stream_submit(s, op);
}

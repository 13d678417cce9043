/* Backend registry (per context), streams, and the validation of callers' descriptors at the
 * public submit entry (ct_stream_submit). The submit path itself is in dispatch/. */
#include "backend/registry.h"
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/kernels/attn_kernels.h"
#include "backends/cpu/kernels/mx_kernels.h"
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

/* Inputs each op kind takes: {min, max}. Every kind has one output except the domain ops
 * (ct__op_outputs). */
static const signed char ct__op_arity[CT_OP_COUNT][2] = {
    [CT_OP_COPY] = {1, 1},
    [CT_OP_FILL] = {0, 0},
    [CT_OP_ADD] = {2, 2},
    [CT_OP_SUB] = {2, 2},
    [CT_OP_MUL] = {2, 2},
    [CT_OP_DIV] = {2, 2},
    [CT_OP_NEG] = {1, 1},
    [CT_OP_ABS] = {1, 1},
    [CT_OP_EXP] = {1, 1},
    [CT_OP_LOG] = {1, 1},
    [CT_OP_SQRT] = {1, 1},
    [CT_OP_RSQRT] = {1, 1},
    [CT_OP_TANH] = {1, 1},
    [CT_OP_SIGMOID] = {1, 1},
    [CT_OP_RELU] = {1, 1},
    [CT_OP_GELU] = {1, 1},
    [CT_OP_POW] = {1, 1},
    [CT_OP_CLAMP] = {1, 1},
    [CT_OP_WHERE] = {3, 3},
    [CT_OP_EQ] = {2, 2},
    [CT_OP_NE] = {2, 2},
    [CT_OP_LT] = {2, 2},
    [CT_OP_LE] = {2, 2},
    [CT_OP_GT] = {2, 2},
    [CT_OP_GE] = {2, 2},
    [CT_OP_ADDCMUL] = {3, 3},
    [CT_OP_ADDCDIV] = {3, 3},
    [CT_OP_SUM] = {1, 1},
    [CT_OP_MEAN] = {1, 1},
    [CT_OP_AMAX] = {1, 1},
    [CT_OP_AMIN] = {1, 1},
    [CT_OP_ARGMAX] = {1, 1},
    [CT_OP_SOFTMAX] = {1, 1},
    [CT_OP_LOG_SOFTMAX] = {1, 1},
    [CT_OP_MATMUL] = {2, 2},
    [CT_OP_LAYER_NORM] = {3, 3},
    [CT_OP_EMBEDDING] = {2, 2},
    [CT_OP_RAND] = {0, 1},
    [CT_OP_ARANGE] = {0, 0},
    [CT_OP_EIGH] = {2, 2},
    [CT_OP_MX_QUANTIZE] = {1, 2},
    [CT_OP_MX_DEQUANTIZE] = {2, 2},
    [CT_OP_MX_LINEAR] = {5, 5},
    [CT_OP_OPTIM_STEP] = {1, 3},
    [CT_OP_LINSPACE] = {0, 0},
    [CT_OP_TRIL] = {1, 1},
    [CT_OP_GATHER] = {2, 2},
    [CT_OP_SCATTER] = {2, 2},
    [CT_OP_SORT] = {2, 2},
    [CT_OP_ERF] = {1, 1},
    [CT_OP_ERFC] = {1, 1},
    [CT_OP_SIN] = {1, 1},
    [CT_OP_COS] = {1, 1},
    [CT_OP_EXP2] = {1, 1},
    [CT_OP_LOG2] = {1, 1},
    [CT_OP_LOG1P] = {1, 1},
    [CT_OP_EXPM1] = {1, 1},
    [CT_OP_FLOOR] = {1, 1},
    [CT_OP_CEIL] = {1, 1},
    [CT_OP_ROUND] = {1, 1},
    [CT_OP_TRUNC] = {1, 1},
    [CT_OP_SIGN] = {1, 1},
    [CT_OP_SILU] = {1, 1},
    [CT_OP_SOFTPLUS] = {1, 1},
    [CT_OP_MISH] = {1, 1},
    [CT_OP_LEAKY_RELU] = {1, 1},
    [CT_OP_ELU] = {1, 1},
    [CT_OP_ISNAN] = {1, 1},
    [CT_OP_ISINF] = {1, 1},
    [CT_OP_ISFINITE] = {1, 1},
    [CT_OP_LOGICAL_NOT] = {1, 1},
    [CT_OP_BITWISE_NOT] = {1, 1},
    [CT_OP_MAXIMUM] = {2, 2},
    [CT_OP_MINIMUM] = {2, 2},
    [CT_OP_REMAINDER] = {2, 2},
    [CT_OP_FMOD] = {2, 2},
    [CT_OP_LOGICAL_AND] = {2, 2},
    [CT_OP_LOGICAL_OR] = {2, 2},
    [CT_OP_LOGICAL_XOR] = {2, 2},
    [CT_OP_BITWISE_AND] = {2, 2},
    [CT_OP_BITWISE_OR] = {2, 2},
    [CT_OP_BITWISE_XOR] = {2, 2},
    [CT_OP_BITWISE_LSHIFT] = {2, 2},
    [CT_OP_BITWISE_RSHIFT] = {2, 2},
    [CT_OP_LERP] = {2, 3},
    [CT_OP_PROD] = {1, 1},
    [CT_OP_CUMSUM] = {1, 2},
    [CT_OP_IM2COL] = {1, 1},
    [CT_OP_COL2IM] = {1, 1},
    [CT_OP_TOPK] = {1, 1},
    [CT_OP_LINALG] = {1, 2},
    [CT_OP_SPARSE24_COMPRESS] = {2, 2},
    [CT_OP_SPARSE24_DECOMPRESS] = {3, 3},
    [CT_OP_SPARSE24_MM] = {5, 5},
    [CT_OP_FLEX_ATTENTION] = {6, 6},
    [CT_OP_FLEX_ATTENTION_BWD] = {9, 9},
};

/* The elementwise kinds added with the everyday ops check their output dtype too: bool for the
 * predicates and logical ops, the compute dtype for the rest. */
static bool ct__ew_bool_out(ct_op_kind k) {
    return k == CT_OP_ISNAN || k == CT_OP_ISINF || k == CT_OP_ISFINITE || k == CT_OP_LOGICAL_NOT ||
           k == CT_OP_LOGICAL_AND || k == CT_OP_LOGICAL_OR || k == CT_OP_LOGICAL_XOR;
}

static int ct__op_outputs(ct_op_kind k) {
    if (k == CT_OP_EIGH || k == CT_OP_OPTIM_STEP) return 3;
    if (k == CT_OP_LINALG || k == CT_OP_SPARSE24_COMPRESS) return 4; /* unused ones absent */
    if (k == CT_OP_FLEX_ATTENTION) return 2;
    if (k == CT_OP_FLEX_ATTENTION_BWD) return 3;
    return (k == CT_OP_MX_QUANTIZE || k == CT_OP_SORT || k == CT_OP_TOPK) ? 2 : 1;
}

/* Operands a kind may leave absent (data NULL): eigh's v, info and work, mx_linear's bias, the
 * optimizer state of plain SGD and its grad_scale and found_inf. */
static bool ct__optional_operand(ct_op_kind k, int i) {
    return (k == CT_OP_EIGH && (i == 1 || i == 2 || i == 4)) || (k == CT_OP_MX_LINEAR && i == 4) ||
           (k == CT_OP_OPTIM_STEP && (i == 1 || i == 4 || i == 5)) ||
           (k == CT_OP_LINALG && i != 0 && i != 4) ||
           (k == CT_OP_SPARSE24_COMPRESS && (i == 2 || i == 3 || i == 5)) ||
           (k == CT_OP_SPARSE24_DECOMPRESS && i == 3) ||
           (k == CT_OP_FLEX_ATTENTION && (i == 1 || i == 5)) ||
           (k == CT_OP_FLEX_ATTENTION_BWD && i == 9);
}

static bool ct__contig2(const ct_operand *o, int ndim, int64_t d0, int64_t d1, int64_t d2) {
    const int64_t want[3] = {d0, d1, d2};
    if (!o->data || o->ndim != ndim) return false;
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        if (o->shape[d] != want[d] || (o->shape[d] != 1 && o->strides[d] != s)) return false;
        s *= o->shape[d];
    }
    return true;
}

static bool ct__same_shape(const ct_operand *a, const ct_operand *b) {
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

/* Row-major contiguous (size-1 dims may have any stride). */
static bool ct__is_contiguous(const ct_operand *o) {
    int64_t s = 1;
    for (int d = o->ndim - 1; d >= 0; d--) {
        if (o->shape[d] != 1 && o->strides[d] != s) return false;
        s *= o->shape[d];
    }
    return true;
}

static bool ct__mx_float(ct_dtype dt) {
    return dt == CT_FLOAT32 || dt == CT_BFLOAT16 || dt == CT_FLOAT16;
}

/* The 2:4 sparse layouts (backend.h): kind codes in ints match the operand dtypes (FP8 as
 * uint8), values (M, K/2) / metadata (M, ceil(K/8)) / scales (M) contiguous, K a multiple of 4,
 * the mm workspace as large as its plan. */
static bool ct__sp24_kind_ok(int64_t kind, ct_dtype dt, bool b_side) {
    switch (kind) {
    case CT__SPK_F32: return dt == CT_FLOAT32;
    case CT__SPK_BF16: return dt == CT_BFLOAT16;
    case CT__SPK_E4M3:
    case CT__SPK_E5M2: return dt == CT_UINT8;
    case CT__SPK_F16: return b_side && dt == CT_FLOAT16;
    default: return false;
    }
}

static bool ct__check_sparse24(const ct_op_desc *op, const char **rule) {
    const ct_operand *o = op->operands;
    *rule = "sparse24: kinds ints[1] (values: 0..3) and ints[2] (B: 0..4) matching the dtypes, "
            "contiguous values (M, K/2), uint8 metadata (M, ceil(K/8)), f32 scales (M) for FP8 "
            "values only, K a multiple of 4, mm: out f32 (M, N), epilogue f32 (2, M), B (K, N), "
            "uint8 work of the plan's size";
    const bool c = op->kind == CT_OP_SPARSE24_COMPRESS, d = op->kind == CT_OP_SPARSE24_DECOMPRESS;
    const ct_operand *vals = c ? &o[0] : &o[1], *meta = c ? &o[1] : &o[2];
    const int64_t vk = op->ints[1];
    if (!ct__sp24_kind_ok(vk, vals->dtype, false) || vals->ndim != 2) return false;
    const bool fp8 = vk == CT__SPK_E4M3 || vk == CT__SPK_E5M2;
    const int64_t M = vals->shape[0], K2 = vals->shape[1];
    if (K2 > (INT64_MAX / 16) || !ct__contig2(vals, 2, M, K2, 0)) return false;
    const int64_t K = 2 * K2;
    if (K % 4 || meta->dtype != CT_UINT8 || !ct__contig2(meta, 2, M, ct__sp24_meta_bytes(K), 0))
        return false;
    if (c || d) {
        const ct_operand *sc = c ? &o[2] : &o[3], *dense = c ? &o[4] : &o[0];
        if (dense->dtype != CT_FLOAT32 || !ct__contig2(dense, 2, M, K, 0)) return false;
        if (fp8 != (sc->data != NULL)) return false;
        if (sc->data && (sc->dtype != CT_FLOAT32 || !ct__contig2(sc, 1, M, 0, 0))) return false;
        if (c) {
            if (op->ints[0] != 0 && op->ints[0] != 1) return false;
            if (o[3].data && (o[3].dtype != CT_INT64 || ct__numel(o[3].ndim, o[3].shape) != 1))
                return false;
            if (o[5].data && (!fp8 || o[5].dtype != CT_FLOAT32 || !ct__contig2(&o[5], 1, M, 0, 0)))
                return false;
        }
        return true;
    }
    const ct_operand *out = &o[0], *epi = &o[3], *b = &o[4], *w = &o[5];
    if (out->ndim != 2 || b->ndim != 2 || !ct__sp24_kind_ok(op->ints[2], b->dtype, true))
        return false;
    const int64_t N = out->shape[1];
    if (out->dtype != CT_FLOAT32 || !ct__contig2(out, 2, M, N, 0) || b->shape[0] != K ||
        b->shape[1] != N || N > (INT64_MAX / 16))
        return false;
    if (epi->dtype != CT_FLOAT32 || !ct__contig2(epi, 2, 2, M, 0)) return false;
    const ct__sp24_work wp = ct__sp24_work_plan(N, K, op->num_threads);
    return w->dtype == CT_UINT8 && w->ndim == 1 && (w->strides[0] == 1 || w->shape[0] <= 1) &&
           w->shape[0] >= wp.total;
}

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
    case CT_OP_MX_QUANTIZE:
    case CT_OP_MX_DEQUANTIZE:
    case CT_OP_MX_LINEAR: {
        *rule = "mx: format ints[0] in range, block size ints[1] >= 1, contiguous codes (R, row "
                "bytes) int8/uint8 and scales (R, blocks) uint8 matching the float operands, f32 "
                "work as large as the kernel needs";
        const int64_t elem = op->ints[0], bs = op->ints[1];
        if (elem < 0 || elem >= CT__MXK_NELEM || bs < 1 || bs > INT32_MAX) return false;
        const int q = op->kind == CT_OP_MX_QUANTIZE, l = op->kind == CT_OP_MX_LINEAR;
        /* the float side: (R, L) rows that are blocked */
        const ct_operand *f = q ? &o[2] : l ? &o[1] : &o[0];
        const ct_operand *c = q ? &o[0] : l ? &o[2] : &o[1], *sc = q ? &o[1] : l ? &o[3] : &o[2];
        if (f->ndim != 2) return false;
        const int64_t L = f->shape[1], R = l ? o[0].shape[1] : f->shape[0];
        if (!ct__contig2(f, 2, f->shape[0], L, 0) || !ct__mx_float(f->dtype) ||
            (!q && !l && f->dtype != CT_FLOAT32))
            return false;
        if (!ct__contig2(c, 2, R, ct__mxk_row_bytes((int)elem, L), 0) ||
            (c->dtype != CT_UINT8 && c->dtype != CT_INT8) ||
            !ct__contig2(sc, 2, R, (L + bs - 1) / bs, 0) || sc->dtype != CT_UINT8)
            return false;
        if (q) {
            if (f->dtype == CT_FLOAT32) return true;
            return op->n_in == 2 && o[3].dtype == CT_FLOAT32 && o[3].ndim == 1 &&
                   (o[3].strides[0] == 1 || o[3].shape[0] <= 1) && o[3].shape[0] >= f->shape[0] * L;
        }
        if (!l) return true;
        const int64_t M = f->shape[0], N = R;
        if (!ct__contig2(&o[0], 2, M, N, 0) || o[0].dtype != f->dtype) return false;
        if (o[4].data && (!ct__contig2(&o[4], 1, N, 0, 0) || !ct__mx_float(o[4].dtype)))
            return false;
        int64_t mk, mn;
        if (!ct__checked_mul(M, L, &mk) || mk > INT64_MAX / 8 || !ct__checked_mul(M, N, &mn) ||
            mn > INT64_MAX / 8)
            return false;
        return o[5].dtype == CT_FLOAT32 && o[5].ndim == 1 &&
               (o[5].strides[0] == 1 || o[5].shape[0] <= 1) &&
               o[5].shape[0] >=
                   ct__mx_linear_work_floats(M, N, L, f->dtype == CT_FLOAT32, o[4].data != NULL);
    }
    case CT_OP_OPTIM_STEP: {
        *rule = "optim_step: contiguous param f32/f16/bf16 and grad of its shape and dtype, kind "
                "ints[0] & 0xff in 0..3, contiguous f32 state of slots * numel(param) values "
                "(SGD without momentum: absent), f64 schedule holding index ints[1], grad_scale "
                "and found_inf f32 of one element or absent";
        const ct_operand *p = &o[0], *st = &o[1], *sch = &o[2], *g = &o[3];
        const int64_t kind = op->ints[0] & 0xff, flags = (int64_t)((uint64_t)op->ints[0] >> 8);
        if (kind < 0 || kind > 3 || op->compute_dtype != CT_FLOAT32) return false;
        if (!ct__mx_float(p->dtype) || g->dtype != p->dtype || !ct__same_shape(p, g) ||
            !ct__is_contiguous(p) || !ct__is_contiguous(g))
            return false;
        if (sch->dtype != CT_FLOAT64 || !ct__is_contiguous(sch) || op->ints[1] < 0 ||
            op->ints[1] > INT64_MAX - 64 ||
            ct__numel(sch->ndim, sch->shape) <=
                8 + op->ints[1]) /* 8 hyper-parameters, then steps */
            return false;
        for (int i = 4; i < 4 + op->n_in - 1; i++)
            if (o[i].data && (o[i].dtype != CT_FLOAT32 || ct__numel(o[i].ndim, o[i].shape) != 1))
                return false;
        const int64_t n = ct__numel(p->ndim, p->shape);
        const int64_t slots = kind == 0      ? ((flags & 4) ? 1 : 0)
                              : kind == 3    ? 1
                              : (flags & 32) ? 3
                                             : 2;
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
    const int lo = ct__op_arity[op->kind][0], hi = ct__op_arity[op->kind][1];
    const int nout = ct__op_outputs(op->kind);
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
        if (ct__optional_operand(op->kind, i) && !op->operands[i].data) continue;
        ct_status st = ct__check_operand(s, op, i);
        if (st != CT_OK) return st;
    }
    const ct_operand *o = &op->operands[0], *in = &op->operands[1];
    const ct_dtype cdt = op->compute_dtype;
    bool ok = true;
    const char *rule = "";
    switch (op->kind) {
    case CT_OP_SUM:
    case CT_OP_MEAN:
    case CT_OP_AMAX:
    case CT_OP_AMIN:
    case CT_OP_ARGMAX:
    case CT_OP_PROD:
        rule = "reductions: input dtype = compute dtype, output = input shape with size 1 on the "
               "reduce_mask dims";
        ok = in->dtype == cdt && in->ndim == o->ndim &&
             (o->ndim == CT_MAX_DIMS || (op->reduce_mask >> o->ndim) == 0);
        for (int d = 0; ok && d < o->ndim; d++)
            ok = o->shape[d] == ((op->reduce_mask >> d & 1u) ? 1 : in->shape[d]);
        break;
    case CT_OP_CUMSUM:
        rule = "cumsum/cumprod: output of the input's shape, input in the compute dtype, dim "
               "ints[0] in range, ints[1] 0 or 1";
        ok = ct__same_shape(o, in) && in->dtype == cdt && op->ints[0] >= 0 &&
             op->ints[0] < (o->ndim > 0 ? o->ndim : 1) &&
             (op->n_in == 1
                  ? (op->ints[1] == 0 || op->ints[1] == 1)
                  : op->ints[1] == 2 && ct_dtype_is_floating(cdt) && o->dtype == cdt &&
                        ct__same_shape(&op->operands[2], o) && op->operands[2].dtype == cdt);
        break;
    case CT_OP_IM2COL:
    case CT_OP_COL2IM: {
        rule = "im2col/col2im: img (N,C,H,W) and cols (N, C*kh*kw, OH*OW) of the compute dtype, "
               "kernel/stride/dilation >= 1, padding >= 0, cols contiguous";
        bool im = op->kind == CT_OP_IM2COL;
        const ct_operand *img = im ? in : o, *cols = im ? o : in;
        int64_t g[8];
        for (int i = 0; i < 4; i++) {
            g[2 * i] = (int64_t)(int32_t)(uint32_t)(uint64_t)op->ints[i];
            g[2 * i + 1] = (int64_t)(int32_t)(uint32_t)((uint64_t)op->ints[i] >> 32);
        }
        ok = img->ndim == 4 && cols->ndim == 3 && img->dtype == cdt && cols->dtype == cdt &&
             g[0] >= 1 && g[1] >= 1 && g[2] >= 1 && g[3] >= 1 && g[4] >= 0 && g[5] >= 0 &&
             g[6] >= 1 && g[7] >= 1;
        if (ok) {
            int64_t oh = (img->shape[2] + 2 * g[4] - g[6] * (g[0] - 1) - 1),
                    ow = (img->shape[3] + 2 * g[5] - g[7] * (g[1] - 1) - 1);
            ok = oh >= 0 && ow >= 0;
            if (ok) {
                oh = oh / g[2] + 1, ow = ow / g[3] + 1;
                ok = cols->shape[0] == img->shape[0] &&
                     cols->shape[1] == img->shape[1] * g[0] * g[1] && cols->shape[2] == oh * ow &&
                     cols->strides[2] == 1 && cols->strides[1] == oh * ow &&
                     cols->strides[0] == cols->shape[1] * oh * ow;
            }
        }
        break;
    }
    case CT_OP_SOFTMAX:
    case CT_OP_LOG_SOFTMAX:
        rule = "softmax: floating input and output of one shape in the compute dtype, dim ints[0] "
               "in range";
        ok = ct__same_shape(o, in) && in->dtype == cdt && o->dtype == cdt &&
             ct_dtype_is_floating(cdt) && op->ints[0] >= 0 &&
             op->ints[0] < (o->ndim > 0 ? o->ndim : 1);
        break;
    case CT_OP_MATMUL:
        rule = "matmul: out (B,M,N) = in0 (B,M,K) @ in1 (B,K,N), all in the compute dtype";
        ok = o->ndim == 3 && in[0].ndim == 3 && in[1].ndim == 3 && o->dtype == cdt &&
             in[0].dtype == cdt && in[1].dtype == cdt && in[0].shape[0] == o->shape[0] &&
             in[1].shape[0] == o->shape[0] && in[0].shape[1] == o->shape[1] &&
             in[1].shape[2] == o->shape[2] && in[0].shape[2] == in[1].shape[1];
        break;
    case CT_OP_LAYER_NORM:
        rule = "layer_norm: out and in0 (R,C) in the compute dtype, weight and bias (C) or absent";
        ok = o->ndim == 2 && ct__same_shape(o, in) && o->dtype == cdt && in->dtype == cdt &&
             ct_dtype_is_floating(cdt);
        for (int i = 2; ok && i < 4; i++)
            ok = !op->operands[i].data ||
                 (op->operands[i].ndim == 1 && op->operands[i].shape[0] == o->shape[1] &&
                  op->operands[i].dtype == cdt);
        break;
    case CT_OP_EMBEDDING:
        rule = "embedding: out (N,D) = weight (V,D) rows at int32/int64 indices (N)";
        ok = o->ndim == 2 && in[0].ndim == 2 && in[1].ndim == 1 && o->dtype == in[0].dtype &&
             in[0].dtype == cdt && (in[1].dtype == CT_INT32 || in[1].dtype == CT_INT64) &&
             o->shape[0] == in[1].shape[0] && o->shape[1] == in[0].shape[1];
        break;
    case CT_OP_RAND:
        rule = "rand: floating output; the optional input is an int64 offset of one element";
        ok = ct_dtype_is_floating(o->dtype) && o->dtype == cdt &&
             (op->n_in == 0 || (in->dtype == CT_INT64 && ct__numel(in->ndim, in->shape) == 1));
        break;
    case CT_OP_ARANGE:
        rule = "arange: a 1-d output in the compute dtype";
        ok = o->ndim == 1 && o->dtype == cdt;
        break;
    case CT_OP_LINSPACE:
        rule = "linspace: a 1-d output in the compute dtype";
        ok = o->ndim == 1 && o->dtype == cdt;
        break;
    case CT_OP_TRIL:
        rule = "tril/triu: out and in0 of one shape with >= 2 dims in the compute dtype, ints[1] "
               "0 or 1";
        ok = o->ndim >= 2 && ct__same_shape(o, in) && o->dtype == cdt && in->dtype == cdt &&
             (op->ints[1] == 0 || op->ints[1] == 1);
        break;
    case CT_OP_GATHER:
    case CT_OP_SCATTER: {
        rule = "gather: out, in0 and int32/int64 in1 of one ndim, in1 of out's shape, in0 at "
               "least out's size off dim ints[0]; scatter: in0 int32/int64 and in1 of one shape, "
               "out at least that size off dim ints[0], ints[1] 0 or 1 (bool: 0)";
        const bool g = op->kind == CT_OP_GATHER;
        const ct_operand *data = g ? &in[0] : o, *ix = g ? &in[1] : &in[0], *vals = g ? o : &in[1];
        const int64_t dim = op->ints[0];
        ok = data->ndim == ix->ndim && vals->ndim == ix->ndim && ct__same_shape(ix, vals) &&
             (ix->dtype == CT_INT32 || ix->dtype == CT_INT64) && o->dtype == cdt &&
             (g ? in[0].dtype : in[1].dtype) == cdt && dim >= 0 &&
             dim < (ix->ndim > 0 ? ix->ndim : 1) &&
             (g || ((op->ints[1] == 0 || op->ints[1] == 1) && !(op->ints[1] && cdt == CT_BOOL)));
        for (int k = 0; ok && k < ix->ndim; k++)
            ok = k == dim || data->shape[k] >= ix->shape[k];
        break;
    }
    case CT_OP_SORT: {
        rule = "sort: contiguous values (R,N) and int64 indices (R,N), input (R,N) in the compute "
               "dtype, int64 work of at least N elements";
        const ct_operand *x = &op->operands[2], *w = &op->operands[3];
        const int64_t R = x->ndim == 2 ? x->shape[0] : 0, N = x->ndim == 2 ? x->shape[1] : 0;
        ok = x->ndim == 2 && x->dtype == cdt && o->dtype == cdt && in->dtype == CT_INT64 &&
             ct__contig2(o, 2, R, N, 0) && ct__contig2(in, 2, R, N, 0) &&
             ct__contig2(x, 2, R, N, 0) && w->dtype == CT_INT64 && w->ndim == 1 &&
             (w->strides[0] == 1 || w->shape[0] <= 1) && w->shape[0] >= N;
        break;
    }
    case CT_OP_LINALG: {
        rule = "linalg: routine ints[0] in CT_LINALG_*, contiguous (B, m, n) input in0 and output "
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
            ok = false; /* slogdet, qr and svd are submitted only by their front ends */
        break;
    }
    case CT_OP_TOPK: {
        rule = "topk: contiguous values (R,k) and int64 indices (R,k), input (R,N) in the compute "
               "dtype, 0 <= k = ints[0] <= N, ints[1] 0 or 1";
        const ct_operand *x = &op->operands[2];
        const int64_t R = x->ndim == 2 ? x->shape[0] : 0, N = x->ndim == 2 ? x->shape[1] : 0,
                      K = op->ints[0];
        ok = x->ndim == 2 && x->dtype == cdt && o->dtype == cdt && in->dtype == CT_INT64 &&
             K >= 0 && K <= N && (op->ints[1] == 0 || op->ints[1] == 1) &&
             ct__contig2(o, 2, R, K, 0) && ct__contig2(in, 2, R, K, 0) &&
             ct__contig2(x, 2, R, N, 0);
        break;
    }
    case CT_OP_EIGH:
    case CT_OP_MX_QUANTIZE:
    case CT_OP_MX_DEQUANTIZE:
    case CT_OP_MX_LINEAR:
    case CT_OP_OPTIM_STEP: ok = ct__check_domain(op, &rule); break;
    case CT_OP_SPARSE24_COMPRESS:
    case CT_OP_SPARSE24_DECOMPRESS:
    case CT_OP_SPARSE24_MM: ok = ct__check_sparse24(op, &rule); break;
    case CT_OP_FLEX_ATTENTION:
    case CT_OP_FLEX_ATTENTION_BWD: ok = ct__check_attention(op, &rule); break;
    default: /* elementwise: inputs broadcast to the output's shape */
        rule = "elementwise: every operand has the output's shape; inputs in the compute dtype "
               "(where's condition bool)";
        for (int i = 1; ok && i <= op->n_in; i++) {
            ct_dtype want = op->kind == CT_OP_WHERE && i == 1 ? CT_BOOL : cdt;
            ok = ct__same_shape(o, &op->operands[i]) &&
                 (op->kind == CT_OP_COPY || op->operands[i].dtype == want);
        }
        if (ok && op->kind >= CT_OP_ERF && op->kind <= CT_OP_LERP) {
            rule = "elementwise: every operand has the output's shape; inputs in the compute "
                   "dtype; the output bool (isnan, isinf, isfinite, logical_*) or in the compute "
                   "dtype";
            ok = o->dtype == (ct__ew_bool_out(op->kind) ? CT_BOOL : cdt);
        }
        break;
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

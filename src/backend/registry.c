/* Backend registry (per context) and streams: the submit point every op goes through. */
#include "tensor/tensor_impl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static const char *const ct__op_names[] = {
#define CT__OP_NAME(name) #name,
    CT_OP_LIST(CT__OP_NAME)
#undef CT__OP_NAME
};

const char *ct_op_name(ct_op_kind kind) {
    if ((int)kind < 0 || kind >= CT_OP_COUNT) return "invalid";
    return ct__op_names[kind] + 6; /* skip "CT_OP_" */
}

const char *ct_device_format(const ct_ctx *ctx, ct_device dev, char *buf, size_t size) {
    if (!buf || size == 0) return "";
    const char *name = NULL;
    if (dev.type == CT_DEVICE_CPU)
        name = "cpu";
    else if (dev.type == CT_DEVICE_CUDA)
        name = "cuda";
    for (int i = 0; !name && ctx && i < ctx->n_backends; i++)
        if (ctx->backends[i].device_type == dev.type) name = ctx->backends[i].vt.name;
    if (name)
        snprintf(buf, size, "%s:%d", name, dev.index);
    else
        snprintf(buf, size, "device%d:%d", dev.type, dev.index);
    return buf;
}

ct__backend_slot *ct__backend_for(ct_ctx *ctx, ct_device dev) {
    for (int i = 0; i < ctx->n_backends; i++)
        if (ctx->backends[i].device_type == dev.type) {
            if (dev.index != 0) break;
            return &ctx->backends[i];
        }
    char dn[CT_DEVICE_NAME_MAX];
    ct__set_error(ctx, CT_ERR_DEVICE, "no backend for device %s is registered",
                  ct_device_format(ctx, dev, dn, sizeof dn));
    return NULL;
}

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
        c->stream = NULL;
        b->current = b->saved_current; /* ops go back to where they went before the capture */
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

ct__capture *ct__any_capture(ct_ctx *ctx) {
    for (int i = 0; i < ctx->n_backends; i++)
        if (ctx->backends[i].capture) return ctx->backends[i].capture;
    return NULL;
}

ct_status ct__refuse_capture(ct_ctx *ctx, const char *op) {
    ct__capture *c = ct__any_capture(ctx);
    if (!c) return CT_OK;
    ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                  "%s cannot be captured in a graph yet; call it outside capture (the capture is "
                  "invalidated)",
                  op);
    c->invalidate(c, CT_ERR_UNSUPPORTED, ctx->err);
    return CT_ERR_UNSUPPORTED;
}

ct_status ct__stream_submit(ct_stream *s, const ct_op_desc *op) {
    ct__backend_slot *b = &s->ctx->backends[s->slot];
    if (s->capture) return s->capture->record(s->capture, op);
    if (b->capture && b->capture->mode != 3 /* CT_CAPTURE_RELAXED */) {
        /* work on another stream of a capturing device, with no join into the capture */
        ct__capture *c = b->capture;
        char dn[CT_DEVICE_NAME_MAX];
        ct__set_error(s->ctx, CT_ERR_STATE,
                      "%s: submitted to a stream that is not capturing while device %s captures "
                      "on another stream (the capture is invalidated)",
                      ct_op_name(op->kind), ct_device_format(s->ctx, s->device, dn, sizeof dn));
        c->invalidate(c, CT_ERR_STATE, s->ctx->err);
        return CT_ERR_STATE;
    }
    ct_status st = b->vt.run_op(b->vt.state, op);
    if (st != CT_OK && s->slot != 0) /* the CPU backend words its own errors */
        ct__set_error(s->ctx, st, "%s: %s backend failed: %s", ct_op_name(op->kind), b->vt.name,
                      ct_status_str(st));
    return st;
}

/* ---- descriptor validation at the public submit entry ---- */

/* Inputs each op kind takes: {min, max}. Every kind has exactly one output. */
static const signed char ct__op_arity[CT_OP_COUNT][2] = {
    [CT_OP_COPY] = {1, 1},        [CT_OP_FILL] = {0, 0},    [CT_OP_ADD] = {2, 2},
    [CT_OP_SUB] = {2, 2},         [CT_OP_MUL] = {2, 2},     [CT_OP_DIV] = {2, 2},
    [CT_OP_NEG] = {1, 1},         [CT_OP_ABS] = {1, 1},     [CT_OP_EXP] = {1, 1},
    [CT_OP_LOG] = {1, 1},         [CT_OP_SQRT] = {1, 1},    [CT_OP_RSQRT] = {1, 1},
    [CT_OP_TANH] = {1, 1},        [CT_OP_SIGMOID] = {1, 1}, [CT_OP_RELU] = {1, 1},
    [CT_OP_GELU] = {1, 1},        [CT_OP_POW] = {1, 1},     [CT_OP_CLAMP] = {1, 1},
    [CT_OP_WHERE] = {3, 3},       [CT_OP_EQ] = {2, 2},      [CT_OP_NE] = {2, 2},
    [CT_OP_LT] = {2, 2},          [CT_OP_LE] = {2, 2},      [CT_OP_GT] = {2, 2},
    [CT_OP_GE] = {2, 2},          [CT_OP_ADDCMUL] = {3, 3}, [CT_OP_ADDCDIV] = {3, 3},
    [CT_OP_SUM] = {1, 1},         [CT_OP_MEAN] = {1, 1},    [CT_OP_AMAX] = {1, 1},
    [CT_OP_AMIN] = {1, 1},        [CT_OP_ARGMAX] = {1, 1},  [CT_OP_SOFTMAX] = {1, 1},
    [CT_OP_LOG_SOFTMAX] = {1, 1}, [CT_OP_MATMUL] = {2, 2},  [CT_OP_LAYER_NORM] = {3, 3},
    [CT_OP_EMBEDDING] = {2, 2},   [CT_OP_RAND] = {0, 1},    [CT_OP_ARANGE] = {0, 0},
};

static bool ct__same_shape(const ct_operand *a, const ct_operand *b) {
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
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
    if (op->n_out != 1 || op->n_in < lo || op->n_in > hi)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stream_submit: %s takes 1 output and %d..%d inputs, got %d and %d",
                             name, lo, hi, op->n_out, op->n_in);
    if ((unsigned)op->compute_dtype > (unsigned)CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "stream_submit: %s compute dtype %d is not valid",
                             name, (int)op->compute_dtype);
    if (op->num_threads < 1 || op->num_threads > CT_MAX_THREADS)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stream_submit: %s num_threads %d outside 1..%d", name,
                             op->num_threads, CT_MAX_THREADS);
    const bool ln = op->kind == CT_OP_LAYER_NORM;
    for (int i = 0; i < 1 + op->n_in; i++) {
        if (ln && i >= 2 && !op->operands[i].data) continue; /* absent weight / bias */
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
        rule = "reductions: input dtype = compute dtype, output = input shape with size 1 on the "
               "reduce_mask dims";
        ok = in->dtype == cdt && in->ndim == o->ndim &&
             (o->ndim == CT_MAX_DIMS || (op->reduce_mask >> o->ndim) == 0);
        for (int d = 0; ok && d < o->ndim; d++)
            ok = o->shape[d] == ((op->reduce_mask >> d & 1u) ? 1 : in->shape[d]);
        break;
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
    default: /* elementwise: inputs broadcast to the output's shape */
        rule = "elementwise: every operand has the output's shape; inputs in the compute dtype "
               "(where's condition bool)";
        for (int i = 1; ok && i <= op->n_in; i++) {
            ct_dtype want = op->kind == CT_OP_WHERE && i == 1 ? CT_BOOL : cdt;
            ok = ct__same_shape(o, &op->operands[i]) &&
                 (op->kind == CT_OP_COPY || op->operands[i].dtype == want);
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

/* Backend registry (per context) and streams: the submit point every op goes through. */
#include "core/ctx_impl.h"

#include <dlfcn.h>
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

ct__backend_slot *ct__backend_for(ct_ctx *ctx, ct_device dev) {
    for (int i = 0; i < ctx->n_backends; i++)
        if (ctx->backends[i].device_type == dev.type) {
            if (dev.index != 0) break;
            return &ctx->backends[i];
        }
    ct__set_error(ctx, CT_ERR_DEVICE, "no backend for device %d:%d is registered", dev.type,
                  dev.index);
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

ct_device ct_stream_device(const ct_stream *s) { return s->device; }

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

ct_status ct_stream_submit(ct_stream *s, const ct_op_desc *op) {
    if (!s || !op) return CT_ERR_INVALID_ARG;
    ct__backend_slot *b = &s->ctx->backends[s->slot];
    if (s->capture) return s->capture->record(s->capture, op);
    if (b->capture && b->capture->mode != 3 /* CT_CAPTURE_RELAXED */) {
        /* work on another stream of a capturing device, with no join into the capture */
        ct__capture *c = b->capture;
        ct__set_error(s->ctx, CT_ERR_STATE,
                      "%s: submitted to a stream that is not capturing while device %d:%d captures "
                      "on another stream (the capture is invalidated)",
                      ct_op_name(op->kind), s->device.type, s->device.index);
        c->invalidate(c, CT_ERR_STATE, s->ctx->err);
        return CT_ERR_STATE;
    }
    ct_status st = b->vt.run_op(b->vt.state, op);
    if (st != CT_OK && s->slot != 0) /* the CPU backend words its own errors */
        ct__set_error(s->ctx, st, "%s: %s backend failed: %s", ct_op_name(op->kind), b->vt.name,
                      ct_status_str(st));
    return st;
}

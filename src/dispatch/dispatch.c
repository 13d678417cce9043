/* The dispatch point: op names, backend lookup, and the submit path every op takes (eager run on
 * the backend, or a record into the capturing graph). */
#include "dispatch/dispatch.h"

#include <stdio.h>

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
    s->nsubmit++;
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

ct_status ct__submit(ct_ctx *ctx, ct_device dev, ct_op_desc *d) {
    ct__backend_slot *b = ct__backend_for(ctx, dev);
    if (!b) return CT_ERR_DEVICE;
    d->num_threads = ctx->num_threads;
    ct_stream *s = b->current ? b->current : b->default_stream;
    return ct__stream_submit(s, d);
}

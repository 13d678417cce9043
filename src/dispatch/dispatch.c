/* The dispatch point: op names, backend lookup, and the submit path every op takes (eager run on
 * the backend, or a record into the capturing graph). */
#include "dispatch/dispatch.h"

#include <math.h>
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

/* Complex operands: the kernels know real dtypes only (the complex op kinds, CT_OP_FFT and
 * CT_OP_COMPLEX, take real views of the real parts). A same-dtype complex COPY, or a FILL with
 * +0 (a zeros_like on another device), moves pairs of reals, so it is rewritten onto the real dtype
 * with a trailing dim of 2 (complex64 as one int64 instead: a bitwise copy, no extra dim); every
 * other op is refused here, the one place all work passes. 0: not complex; 1: rewritten into *w;
 * -1: refused. */
static int ct__complex_rewrite(ct_ctx *ctx, const ct_op_desc *op, ct_op_desc *w) {
    bool any = ct_dtype_is_complex(op->compute_dtype);
    const int n = op->n_out + op->n_in;
    for (int i = 0; i < n && i < CT_OP_MAX_OPERANDS && !any; i++)
        any = op->operands[i].data && ct_dtype_is_complex(op->operands[i].dtype);
    if (!any) return 0;
    const ct_dtype cdt = op->compute_dtype;
    bool ok = ct_dtype_is_complex(cdt) && n >= 1 && n <= 2;
    for (int i = 0; ok && i < n; i++)
        ok = op->operands[i].data && op->operands[i].dtype == cdt &&
             op->operands[i].ndim == op->operands[0].ndim;
    ok = ok &&
         ((op->kind == CT_OP_COPY && n == 2) ||
          (op->kind == CT_OP_FILL && n == 1 && op->scalars[0] == 0 && !signbit(op->scalars[0])));
    if (!ok) {
        ct__set_error(
            ctx, CT_ERR_UNSUPPORTED,
            "%s: %s operands are not supported by this op yet (docs/everyday.md lists the "
            "complex ops; view_as_real gives the real pairs to any other)",
            ct_op_name(op->kind), ct_dtype_name(ct_dtype_is_complex(cdt) ? cdt : CT_COMPLEX64));
        return -1;
    }
    *w = *op;
    if (cdt == CT_COMPLEX64) {
        w->compute_dtype = CT_INT64;
        for (int i = 0; i < n; i++)
            w->operands[i].dtype = CT_INT64;
        return 1;
    }
    /* complex128: float64 pairs; drop size-1 dims first if all CT_MAX_DIMS are in use */
    w->compute_dtype = CT_FLOAT64;
    for (int i = 0; i < n; i++) {
        ct_operand *o = &w->operands[i];
        if (o->ndim == CT_MAX_DIMS) {
            int k = 0;
            for (int d = 0; d < o->ndim; d++)
                if (o->shape[d] != 1) {
                    o->shape[k] = o->shape[d];
                    o->strides[k++] = o->strides[d];
                }
            o->ndim = k;
        }
        if (o->ndim == CT_MAX_DIMS) {
            ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                          "%s: complex128 copies of %d dims of size > 1 are not supported",
                          ct_op_name(op->kind), CT_MAX_DIMS);
            return -1;
        }
        for (int d = 0; d < o->ndim; d++)
            o->strides[d] *= 2;
        o->shape[o->ndim] = 2;
        o->strides[o->ndim] = 1;
        o->ndim++;
        o->dtype = CT_FLOAT64;
    }
    return 1;
}

ct_status ct__stream_submit(ct_stream *s, const ct_op_desc *op) {
    ct_op_desc cw;
    int cx = ct__complex_rewrite(s->ctx, op, &cw);
    if (cx < 0) {
        ct__capture *c = s->capture ? s->capture : ct__any_capture(s->ctx);
        if (c) c->invalidate(c, CT_ERR_UNSUPPORTED, s->ctx->err);
        return CT_ERR_UNSUPPORTED;
    }
    if (cx > 0) op = &cw;
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

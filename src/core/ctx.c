/* The context's core services: allocation through its hooks, the last-error message, logging,
 * getters. Creating and freeing a context is in backend/context.c (the layer that owns the
 * backend list registers the CPU backend there). */
#include "core/calloc.h"
#include "core/ctx_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host memory of the context: blocks of the caching allocator (512-byte aligned), or the
 * caller's allocator hooks (which then see every allocation and free). */
void *ct__alloc(ct_ctx *ctx, size_t nbytes, size_t align) {
    if (ctx->calloc && align <= 512) {
        /* per-stream pools (as CUDA's allocator): the CPU's current stream, 0 for its default */
        const ct__backend_slot *cpu = &ctx->backends[0];
        const uint64_t key = cpu->current && cpu->current != cpu->default_stream
                                 ? (uint64_t)(uintptr_t)cpu->current
                                 : 0;
        return ct__calloc_alloc_stream(ctx->calloc, key, nbytes);
    }
    return ctx->allocator.alloc(ctx->allocator.user, nbytes, align);
}
void ct__free(ct_ctx *ctx, void *p) {
    if (!p) return;
    if (ctx->calloc)
        ct__calloc_free(ctx->calloc, p);
    else
        ctx->allocator.free(ctx->allocator.user, p);
}

bool ct__grow_array(ct_ctx *ctx, void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    if (nc > SIZE_MAX / elem) return false;
    void *na = ct__alloc(ctx, nc * elem, 16);
    if (!na) return false;
    if (*arr) memcpy(na, *arr, *cap * elem);
    ct__free(ctx, *arr);
    *arr = na;
    *cap = nc;
    return true;
}

ct_status ct__set_error(ct_ctx *ctx, ct_status st, const char *fmt, ...) {
    if (!ctx) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    /* Any failure while a graph captures invalidates the capture, with this message as the
     * reason: the op that failed is missing from the graph, so replaying it would be wrong. */
    if (st != CT_OK)
        for (int i = 0; i < ctx->n_backends; i++) {
            ct__capture *c = ctx->backends[i].capture;
            if (c) c->invalidate(c, st, ctx->err);
        }
    return st;
}

ct_status ct_ctx_set_error(ct_ctx *ctx, ct_status status, const char *fmt, ...) {
    if (!ctx || !fmt) return status;
    char buf[sizeof ctx->err];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return ct__set_error(ctx, status, "%s", buf);
}

ct_status ct__set_error_keep_capture(ct_ctx *ctx, ct_status st, const char *fmt, ...) {
    if (!ctx) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
    return st;
}

ct_status ct__error_within(ct_ctx *ctx, const char *op, ct_status st) {
    if (!ctx || st == CT_OK) return st;
    const size_t n = strlen(op);
    if (strncmp(ctx->err, op, n) == 0 && ctx->err[n] == ':') return st;
    char inner[sizeof ctx->err];
    memcpy(inner, ctx->err, sizeof inner);
    snprintf(ctx->err, sizeof ctx->err, "%s: %s", op, inner[0] ? inner : ct_status_str(st));
    return st;
}

void ct__clear_error(ct_ctx *ctx) {
    if (ctx) ctx->err[0] = '\0';
}

void ct__log(ct_ctx *ctx, ct_log_level level, const char *fmt, ...) {
    if (!ctx || !ctx->log_fn || level < ctx->log_level) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ctx->log_fn(ctx->log_user, level, buf);
}

const char *ct_ctx_last_error(const ct_ctx *ctx) { return ctx ? ctx->err : "no context"; }
const char *ct_ctx_cpu_isa(const ct_ctx *ctx) { return ctx ? ct__isa_name(ctx->isa) : ""; }
int ct_ctx_num_threads(const ct_ctx *ctx) { return ctx ? ctx->num_threads : 0; }
bool ct_ctx_debug(const ct_ctx *ctx) { return ctx && ctx->debug; }
int64_t ct_ctx_live_tensors(const ct_ctx *ctx) { return ctx ? ctx->live_count : 0; }
ct__isa ct__ctx_isa(const ct_ctx *ctx) { return ctx->isa; }
int ct__ctx_threads(const ct_ctx *ctx) { return ctx->num_threads; }

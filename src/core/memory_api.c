/* The public face of the caching allocator (ctorch/memory.h): statistics, summary, snapshot,
 * empty_cache and peak reset of a context's CPU device. */
#include "core/calloc.h"
#include "core/ctx_impl.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static ct_status mem_of(ct_ctx *ctx, const char *op, ct_device dev, ct__calloc **a) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (dev.type != CT_DEVICE_CPU) { /* a registered device that names its allocator */
        for (int i = 1; i < ctx->n_backends; i++)
            if (ctx->backends[i].device_type == dev.type && dev.index == 0 &&
                ctx->backends[i].vt.caching_allocator) {
                *a = ctx->backends[i].vt.caching_allocator;
                return CT_OK;
            }
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: device type %d index %d has no caching allocator", op,
                             (int)dev.type, dev.index);
    }
    if (dev.index != 0)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: device cpu:%d does not exist (only cpu:0)", op, dev.index);
    if (!ctx->calloc)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: this context has no caching allocator (allocator hooks, "
                             "no_cache or debug mode)",
                             op);
    *a = ctx->calloc;
    return CT_OK;
}

ct_status ct_memory_stats(ct_ctx *ctx, ct_device device, ct_mem_stats *out) {
    ct__calloc *a = NULL;
    ct_status st = mem_of(ctx, "memory_stats", device, &a);
    if (st != CT_OK) return st;
    if (!out || out->size == 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "memory_stats: out is NULL or out->size is 0 (set it to "
                             "sizeof(ct_mem_stats))");
    ct__calloc_stats(a, out);
    return CT_OK;
}

ct_status ct_memory_summary(ct_ctx *ctx, ct_device device, char **out) {
    ct__calloc *a = NULL;
    ct_status st = mem_of(ctx, "memory_summary", device, &a);
    if (st != CT_OK) return st;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "memory_summary: out is NULL");
    *out = ct__calloc_summary(a);
    return *out ? CT_OK : ct__set_error(ctx, CT_ERR_OOM, "memory_summary: out of memory");
}

ct_status ct_memory_snapshot(ct_ctx *ctx, ct_device device, const char *path) {
    ct__calloc *a = NULL;
    ct_status st = mem_of(ctx, "memory_snapshot", device, &a);
    if (st != CT_OK) return st;
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "memory_snapshot: path is NULL");
    FILE *f = fopen(path, "wb");
    if (!f) return ct__set_error(ctx, CT_ERR_IO, "memory_snapshot: cannot open %s", path);
    const bool ok = ct__calloc_snapshot(a, f);
    const bool closed = fclose(f) == 0;
    return ok && closed ? CT_OK
                        : ct__set_error(ctx, CT_ERR_IO, "memory_snapshot: writing %s failed", path);
}

ct_status ct_empty_cache(ct_ctx *ctx) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (ctx->calloc) ct__calloc_empty(ctx->calloc);
    for (int i = 1; i < ctx->n_backends; i++)
        if (ctx->backends[i].vt.caching_allocator)
            ct__calloc_empty(ctx->backends[i].vt.caching_allocator);
    return CT_OK;
}

ct_status ct_caching_allocator_create(ct_ctx *ctx, const ct_vm_ops *ops, const char *conf,
                                      ct_caching_allocator **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "caching_allocator_create: out is NULL");
    *out = NULL;
    if (!ops || ops->size < offsetof(ct_vm_ops, reserve) || !ops->map || !ops->unmap)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "caching_allocator_create: ops needs size, map and unmap");
    ct__calloc_conf c = {0};
    char err[256] = "";
    if (conf && !ct__calloc_parse(conf, &c, err, sizeof err))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "caching_allocator_create: %s", err);
    ct_vm_ops v; /* an older, smaller table: the fields it lacks are NULL */
    memset(&v, 0, sizeof v);
    memcpy(&v, ops, ops->size < sizeof v ? ops->size : sizeof v);
    v.size = sizeof v;
    if (c.expandable && !(v.reserve && v.commit && v.decommit && v.release))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "caching_allocator_create: expandable_segments needs reserve, "
                             "commit, decommit and release");
    if (!(*out = ct__calloc_create(&v, &c)))
        return ct__set_error(ctx, CT_ERR_OOM, "caching_allocator_create: out of memory");
    return CT_OK;
}

void ct_caching_allocator_destroy(ct_caching_allocator *a) { ct__calloc_destroy(a); }

ct_status ct_caching_allocator_alloc(ct_caching_allocator *a, size_t n, void **ptr) {
    if (!a || !ptr) return CT_ERR_INVALID_ARG;
    *ptr = ct__calloc_alloc(a, n);
    return *ptr ? CT_OK : CT_ERR_OOM;
}

ct_status ct_caching_allocator_alloc_stream(ct_caching_allocator *a, uint64_t stream, size_t n,
                                            void **ptr) {
    if (!a || !ptr) return CT_ERR_INVALID_ARG;
    *ptr = ct__calloc_alloc_stream(a, stream, n);
    return *ptr ? CT_OK : CT_ERR_OOM;
}

void ct_caching_allocator_free(ct_caching_allocator *a, void *ptr) {
    if (a) ct__calloc_free(a, ptr);
}

const char *ct_caching_allocator_oom_message(const ct_caching_allocator *a) {
    return a ? ct__calloc_oom_message(a) : "";
}

ct_status ct_memory_reset_peak(ct_ctx *ctx, ct_device device) {
    ct__calloc *a = NULL;
    ct_status st = mem_of(ctx, "memory_reset_peak", device, &a);
    if (st != CT_OK) return st;
    ct__calloc_reset_peak(a);
    return CT_OK;
}

void ct_ctx_empty_cache(ct_ctx *ctx) {
    if (ctx && ctx->calloc) ct__calloc_empty(ctx->calloc);
}

size_t ct_ctx_cached_bytes(const ct_ctx *ctx) {
    if (!ctx || !ctx->calloc) return 0;
    ct_mem_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    ct__calloc_stats(ctx->calloc, &s);
    return (size_t)(s.reserved_bytes[CT_MEM_ALL].current - s.allocated_bytes[CT_MEM_ALL].current);
}

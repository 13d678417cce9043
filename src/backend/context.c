/* Context lifetime: options, allocator choice, ISA and thread choice, registering the built-in CPU
 * backend, and tearing everything down. Lives in backend/ because it owns the backend list (core/
 * below it only keeps the context's fields and services). */
#include "backend/registry.h"
#include "core/calloc.h"
#include "backends/cpu/cpu_backend.h"
#include "tensor/tensor_impl.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static void *ct__default_alloc(void *user, size_t nbytes, size_t align) {
    (void)user;
    void *p = NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, nbytes ? nbytes : 1) != 0) return NULL;
    return p;
}
static void ct__default_free(void *user, void *p) {
    (void)user;
    free(p);
}

/* Write a creation error into the caller's buffer (if any) and return st. */
static ct_status ct__create_fail(char *msg, size_t cap, ct_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static ct_status ct__create_fail(char *msg, size_t cap, ct_status st, const char *fmt, ...) {
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return st;
}

ct_status ct_ctx_create(const ct_ctx_options *opts, ct_ctx **out) {
    return ct_ctx_create_ex(opts, out, NULL, 0);
}

ct_status ct_ctx_create_ex(const ct_ctx_options *opts, ct_ctx **out, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!out) return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG, "ctx_create: out is NULL");
    *out = NULL;
    ct_ctx_options o;
    memset(&o, 0, sizeof o);
    if (opts) {
        if (opts->size == 0 || opts->size > sizeof o)
            return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG,
                                   "ctx_create: options.size is %zu, want 1..%zu (set it to "
                                   "sizeof(ct_ctx_options))",
                                   opts->size, sizeof o);
        memcpy(&o, opts, opts->size);
    }
    if (o.num_threads < 0 || o.num_threads > CT_MAX_THREADS)
        return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG,
                               "ctx_create: num_threads is %d, want 0 (all cores) .. %d",
                               o.num_threads, CT_MAX_THREADS);
    if ((o.allocator.alloc == NULL) != (o.allocator.free == NULL))
        return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG,
                               "ctx_create: allocator.alloc and allocator.free must both be set "
                               "or both be NULL");
    if ((unsigned)o.log_level > (unsigned)CT_LOG_ERROR)
        return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG,
                               "ctx_create: log_level is %d, want CT_LOG_DEBUG..CT_LOG_ERROR",
                               (int)o.log_level);
    ct_allocator al = o.allocator;
    if (!al.alloc) {
        al.alloc = ct__default_alloc;
        al.free = ct__default_free;
        al.user = NULL;
    }
    ct__isa isa = ct__cpu_best();
    const char *want = o.cpu_isa ? o.cpu_isa : getenv("CT_CPU_ISA");
    const char *from = o.cpu_isa ? "options.cpu_isa" : "CT_CPU_ISA";
    if (want && *want) {
        int v = ct__isa_parse(want);
        if (v < 0)
            return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG,
                                   "ctx_create: %s is '%s', want ref, avx2 or avx512", from, want);
        if (v > (int)isa)
            return ct__create_fail(msg, msg_size, CT_ERR_UNSUPPORTED,
                                   "ctx_create: %s asks for ISA %s, but this CPU supports at most "
                                   "%s",
                                   from, ct__isa_name((ct__isa)v), ct__isa_name(isa));
        isa = (ct__isa)v;
    }
    ct_ctx *ctx = al.alloc(al.user, sizeof *ctx, 64);
    if (!ctx)
        return ct__create_fail(msg, msg_size, CT_ERR_OOM,
                               "ctx_create: out of memory allocating the context (%zu bytes)",
                               sizeof *ctx);
    memset(ctx, 0, sizeof *ctx);
    ctx->allocator = al;
    /* debug mode: poisoned, never reused tensor headers, and no block cache (so that ASan sees
     * every use of freed memory) */
    const char *dbg = getenv("CT_DEBUG");
    ctx->debug = o.debug || (dbg && dbg[0] && strcmp(dbg, "0") != 0);
    ctx->cache_on = !o.allocator.alloc && !o.no_cache && !ctx->debug;
    ctx->portable_matmul = o.portable_matmul;
    if (ctx->cache_on) {
        ct__calloc_conf conf = {0};
        char cerr[256] = "";
        const char *env = getenv("CT_ALLOC_CONF");
        if ((env && !ct__calloc_parse(env, &conf, cerr, sizeof cerr)) ||
            (o.alloc_conf && !ct__calloc_parse(o.alloc_conf, &conf, cerr, sizeof cerr))) {
            al.free(al.user, ctx);
            return ct__create_fail(msg, msg_size, CT_ERR_INVALID_ARG, "ctx_create: %s%s", cerr,
                                   o.alloc_conf ? " (options.alloc_conf or the environment)" : "");
        }
        if (!(ctx->calloc = ct__calloc_create(&ct__vm_ops_cpu, &conf))) {
            al.free(al.user, ctx);
            return ct__create_fail(msg, msg_size, CT_ERR_OOM,
                                   "ctx_create: out of memory for the caching allocator");
        }
    }
    ctx->log_fn = o.log_fn;
    ctx->log_user = o.log_user;
    ctx->log_level = o.log_level;
    ctx->isa = isa;
    ctx->next_user_type = CT_DEVICE_USER_BASE;
    int nt = o.num_threads;
#ifdef _OPENMP
    if (nt == 0) nt = omp_get_max_threads();
#else
    if (nt == 0) nt = 1;
#endif
    ctx->num_threads = nt < 1 ? 1 : nt;
    ct_status st = ct__cpu_backend_register(ctx);
    if (st != CT_OK) {
        ct__create_fail(msg, msg_size, st, "%s",
                        ctx->err[0] ? ctx->err : "ctx_create: registering the CPU backend failed");
        ct_ctx_free(ctx);
        return st;
    }
    ct__log(ctx, CT_LOG_INFO, "ctorch %s: isa=%s threads=%d%s", ct_version(), ct__isa_name(isa),
            ctx->num_threads, ctx->debug ? " debug" : "");
    *out = ctx;
    return CT_OK;
}

void ct_ctx_free(ct_ctx *ctx) {
    if (!ctx) return;
    ct__tensor_ctx_teardown(ctx);
    for (int i = ctx->n_backends - 1; i >= 0; i--) {
        ct__backend_slot *b = &ctx->backends[i];
        ct__free(ctx, b->default_stream);
        if (b->vt.destroy) b->vt.destroy(b->vt.state);
        if (b->dl_handle) dlclose(b->dl_handle);
    }
    ct__calloc_destroy(ctx->calloc);
    ctx->allocator.free(ctx->allocator.user, ctx);
}

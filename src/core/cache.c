/* Host block cache in front of the built-in allocator: freed blocks wait in size-class bins and
 * are handed out again, so repeated ops neither pay for malloc nor fault fresh pages in. Classes
 * are 4 per power of two (at most 25% slack). Every block carries a 64-byte header that records
 * its class. User allocator hooks bypass the cache (they see every allocation and free). */
#include "core/ctx_impl.h"

#include <stdlib.h>
#include <string.h>

#define CT__HDR 64

typedef struct ct__blk {
    struct ct__blk *next;
    size_t cls_bytes; /* usable bytes of the class (0: not cacheable, freed directly) */
} ct__blk;

/* Class of n bytes: index and rounded size. Classes below 256 bytes share the 256 class. */
static int ct__class(size_t n, size_t *rounded) {
    if (n <= 256) {
        *rounded = 256;
        return 0;
    }
    int lg = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^lg < n <= 2^(lg+1) */
    size_t base = (size_t)1 << lg, step = base / 4;
    size_t k = (n - base + step - 1) / step; /* 1..4 */
    *rounded = base + k * step;
    int idx = (lg - 8) * 4 + (int)k;
    return idx;
}

void *ct__cache_alloc(ct_ctx *ctx, size_t nbytes) {
    size_t rounded;
    int c = ct__class(nbytes, &rounded);
    if (c < CT__CACHE_BINS) {
        ct__blk *b = ctx->cache.bins[c];
        if (b) {
            ctx->cache.bins[c] = b->next;
            ctx->cache.count[c]--;
            ctx->cache.bytes -= rounded;
            return (char *)b + CT__HDR;
        }
    } else {
        rounded = nbytes;
    }
    if (rounded > SIZE_MAX - CT__HDR) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, 64, rounded + CT__HDR) != 0) return NULL;
    ct__blk *b = p;
    b->next = NULL;
    b->cls_bytes = c < CT__CACHE_BINS ? rounded : 0;
    return (char *)p + CT__HDR;
}

void ct__cache_free(ct_ctx *ctx, void *p) {
    ct__blk *b = (ct__blk *)((char *)p - CT__HDR);
    size_t sz = b->cls_bytes;
    if (sz) {
        size_t r;
        int c = ct__class(sz, &r);
        /* small blocks: many; large: a few, under a total byte cap */
        int cap = sz <= (1u << 16) ? 64 : 4;
        if (ctx->cache.count[c] < cap && ctx->cache.bytes + sz <= CT__CACHE_MAX_BYTES) {
            b->next = ctx->cache.bins[c];
            ctx->cache.bins[c] = b;
            ctx->cache.count[c]++;
            ctx->cache.bytes += sz;
            return;
        }
    }
    free(b);
}

void ct__cache_release_all(ct_ctx *ctx) {
    for (int c = 0; c < CT__CACHE_BINS; c++) {
        ct__blk *b = ctx->cache.bins[c];
        while (b) {
            ct__blk *n = b->next;
            free(b);
            b = n;
        }
        ctx->cache.bins[c] = NULL;
        ctx->cache.count[c] = 0;
    }
    ctx->cache.bytes = 0;
}

void ct_ctx_empty_cache(ct_ctx *ctx) {
    if (ctx && ctx->cache_on) ct__cache_release_all(ctx);
}

size_t ct_ctx_cached_bytes(const ct_ctx *ctx) {
    return ctx && ctx->cache_on ? ctx->cache.bytes : 0;
}

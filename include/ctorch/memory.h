/* The caching allocator (PyTorch's CUDACachingAllocator, for the CPU backend now and any device
 * backend later): sizes round up to 512 B; a small pool (requests <= 1 MiB, 2 MiB segments) and a
 * large pool (20 MiB segments, or the request rounded to 2 MiB); best fit; blocks split and
 * coalesce; segments come from mmap so freed memory really goes back to the OS. Expandable
 * segments (one virtual range per pool, physical pages committed as it grows and released from
 * the top) remove the fragmentation of growing batches. docs/memory.md has the rules.
 *
 * Configuration: env CT_ALLOC_CONF or ct_ctx_options.alloc_conf (the option wins), a comma list of
 * "expandable_segments:True|False", "max_split_size_mb:N", "memory_limit_mb:N" (emulate a device
 * of N MiB: reserving beyond it fails, so out-of-memory behaviour is testable).
 * Thread-safety: the allocator is; the functions below as the context. */
#ifndef CTORCH_MEMORY_H
#define CTORCH_MEMORY_H

#include "ctorch/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One statistic as torch.cuda.memory_stats reports it: current value, peak, cumulative
 * increments ("allocated") and decrements ("freed"). */
typedef struct ct_mem_stat {
    int64_t current, peak, allocated, freed;
} ct_mem_stat;

/* Index of the three breakdowns of every statistic: "all", "small_pool", "large_pool". */
enum { CT_MEM_ALL = 0, CT_MEM_SMALL_POOL = 1, CT_MEM_LARGE_POOL = 2 };

typedef struct ct_mem_stats {
    size_t size;                    /* set to sizeof(ct_mem_stats) */
    ct_mem_stat allocation[3];      /* blocks handed out */
    ct_mem_stat segment[3];         /* segments reserved (an expandable one counts once) */
    ct_mem_stat active[3];          /* blocks in use */
    ct_mem_stat inactive_split[3];  /* free blocks that are a split of a larger segment */
    ct_mem_stat allocated_bytes[3]; /* bytes of the blocks handed out (rounded sizes) */
    ct_mem_stat reserved_bytes[3];  /* bytes of the segments (committed pages) */
    ct_mem_stat active_bytes[3];    /* bytes of the blocks in use */
    ct_mem_stat inactive_split_bytes[3];
    ct_mem_stat requested_bytes[3]; /* bytes the callers asked for */
    int64_t num_alloc_retries;      /* allocations that freed the cache and tried again */
    int64_t num_ooms;               /* allocations that failed after the retry */
    int64_t num_segment_allocs;     /* segments mapped (or expandable growths) */
    int64_t num_segment_frees;      /* segments unmapped (or expandable shrinks) */
    int64_t max_split_size;         /* bytes; -1: unlimited */
    int64_t memory_limit;           /* bytes; -1: none */
    bool expandable_segments;
} ct_mem_stats;

/* ---- the allocator for device backends ---- */

/* A device's segment calls, in its own addresses: classic segments (map / unmap: n bytes usable
 * at once, NULL on failure) and, for expandable segments, an address range reserved up front
 * whose page runs are committed and decommitted (reserve may be NULL: no expandable segments). */
typedef struct ct_vm_ops {
    size_t size; /* sizeof(ct_vm_ops) */
    void *user;  /* passed to every call */
    void *(*map)(void *user, size_t n);
    void (*unmap)(void *user, void *p, size_t n);
    void *(*reserve)(void *user, size_t n);
    bool (*commit)(void *user, void *p, size_t n);
    void (*decommit)(void *user, void *p, size_t n);
    void (*release)(void *user, void *p, size_t n);
} ct_vm_ops;

typedef struct ct_caching_allocator ct_caching_allocator;

/* A caching allocator with the CPU's rules over a device's segment calls (conf: the
 * CT_ALLOC_CONF syntax, NULL for the defaults; the environment is not read). A backend's
 * alloc / free call the two functions below and its vtable names the allocator. */
CT_API ct_status ct_caching_allocator_create(ct_ctx *ctx, const ct_vm_ops *ops, const char *conf,
                                             ct_caching_allocator **out);
/* Unmap what is free and free the allocator (NULL is a no-op). */
CT_API void ct_caching_allocator_destroy(ct_caching_allocator *a);
/* n bytes; CT_ERR_OOM after emptying the cache once (ct_caching_allocator_oom_message says
 * why). */
CT_API ct_status ct_caching_allocator_alloc(ct_caching_allocator *a, size_t n, void **ptr);
/* ct_caching_allocator_alloc for a stream (0: the default stream): the block comes from, and
 * returns to, that stream's own pools, so only work on that stream reuses it (a device backend
 * passes its stream, as CUDA's caching allocator keys blocks by stream). */
CT_API ct_status ct_caching_allocator_alloc_stream(ct_caching_allocator *a, uint64_t stream,
                                                   size_t n, void **ptr);
/* Free a block of this allocator (NULL is a no-op). */
CT_API void ct_caching_allocator_free(ct_caching_allocator *a, void *ptr);
/* The message of the last failed allocation ("" if none, "" for NULL). */
CT_API const char *ct_caching_allocator_oom_message(const ct_caching_allocator *a);

/* The statistics of device's caching allocator (CT_ERR_UNSUPPORTED where the device has none,
 * e.g. a context with its own allocator hooks or no_cache). */
CT_API ct_status ct_memory_stats(ct_ctx *ctx, ct_device device, ct_mem_stats *out);
/* A readable table of the statistics (torch.cuda.memory_summary); *out is released with free(). */
CT_API ct_status ct_memory_summary(ct_ctx *ctx, ct_device device, char **out);
/* Write a JSON snapshot of device's segments and blocks (address, size, requested size, state,
 * pool, stream) to path (torch.cuda.memory._snapshot). */
CT_API ct_status ct_memory_snapshot(ct_ctx *ctx, ct_device device, const char *path);
/* Return every cached (free) segment, and the free top of expandable segments, to the OS. */
CT_API ct_status ct_empty_cache(ct_ctx *ctx);
/* Reset the peaks to the current values (torch.cuda.reset_peak_memory_stats). */
CT_API ct_status ct_memory_reset_peak(ct_ctx *ctx, ct_device device);

#ifdef __cplusplus
}
#endif
#endif

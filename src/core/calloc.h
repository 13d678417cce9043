/* The caching allocator's core (device-agnostic): pools, best fit, split / coalesce, expandable
 * segments, statistics, snapshots. A device supplies its segment calls (ct__vm_ops); the CPU's
 * are mmap / mprotect / madvise (ct__vm_ops_cpu). Block metadata lives outside the memory it
 * describes (device memory need not be host-addressable). Thread-safe (one lock). */
#ifndef CTORCH_CALLOC_H
#define CTORCH_CALLOC_H

#include "ctorch/memory.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The device's segment calls are the public ct_vm_ops (ctorch/memory.h). */
typedef ct_vm_ops ct__vm_ops;

extern const ct__vm_ops ct__vm_ops_cpu;

/* The public ct_caching_allocator is this allocator. */
typedef struct ct_caching_allocator ct__calloc;

typedef struct {
    bool expandable;
    size_t max_split; /* 0: unlimited */
    size_t limit;     /* 0: none */
    bool no_hot;      /* no hot lists: every free coalesces at once (the tests of the rules) */
} ct__calloc_conf;

/* Parse "expandable_segments:True,max_split_size_mb:N,memory_limit_mb:N" into *c (which keeps
 * fields the string does not name). false with a message in err on a bad key or value. */
bool ct__calloc_parse(const char *s, ct__calloc_conf *c, char *err, size_t err_n);
ct__calloc *ct__calloc_create(const ct__vm_ops *ops, const ct__calloc_conf *conf);
/* Release every segment whose blocks are all free (leaked blocks keep theirs), then the
 * allocator itself. */
void ct__calloc_destroy(ct__calloc *a);
/* n bytes (n == 0 gives a minimal block), 512-byte aligned; NULL when out of memory after
 * emptying the cache once (then ct__calloc_oom_message explains). */
void *ct__calloc_alloc(ct__calloc *a, size_t n);
/* ct__calloc_alloc for a stream (0: the default stream, as ct__calloc_alloc): best fit among the
 * blocks of that stream's own general pools (segments, expandable segments, bins), so a block is
 * only reused by the stream it was allocated on, as CUDA's caching allocator. */
void *ct__calloc_alloc_stream(ct__calloc *a, uint64_t stream, size_t n);
void ct__calloc_free(ct__calloc *a, void *p);
/* Private pools (graph memory): a new one (its id > 0; 0 when out of memory), allocations from it
 * (its own segments, never shared with the general pools or another private pool; no hot lists,
 * no expandable segments), and its release (its free segments go at once, the others as their
 * blocks are freed). ct__calloc_free frees a block of any pool. */
int ct__calloc_private_create(ct__calloc *a);
void *ct__calloc_alloc_in(ct__calloc *a, int pool_id, size_t n);
void ct__calloc_private_release(ct__calloc *a, int pool_id);
void ct__calloc_empty(ct__calloc *a);
void ct__calloc_stats(ct__calloc *a, ct_mem_stats *out);
void ct__calloc_reset_peak(ct__calloc *a);
/* The message of the last failed allocation ("" if none). */
const char *ct__calloc_oom_message(const ct__calloc *a);
/* Summary table into a malloc'ed string; JSON snapshot into f. false on allocation / write
 * failure. */
char *ct__calloc_summary(ct__calloc *a);
bool ct__calloc_snapshot(ct__calloc *a, FILE *f);

#endif

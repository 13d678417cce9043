/* Parallel-for for the CPU kernels: a small pool of the context's own threads that a late or
 * descheduled thread cannot hold back.
 *
 * Work is cut into chunks of about `grain` units; the calling thread and the helpers claim chunks
 * from one atomic counter, so a thread that starts late (its core is busy with another process)
 * simply finds fewer chunks, and the call returns as soon as every chunk is done: it never waits
 * for a helper that has not started. Helpers sleep on a condition variable between jobs (after a
 * spin of a few microseconds), so no thread spins on a core a neighbour needs.
 *
 * The CPU backend owns one pool per context and installs it for the calling thread while a kernel
 * runs (ct_k_pool_enter / ct_k_pool_leave); without an installed pool (the embedded runtime, a
 * one-thread context, a nested call) the loop runs inline on the calling thread. */
#ifndef CTORCH_CPU_KERNELS_PAR_H
#define CTORCH_CPU_KERNELS_PAR_H

#include <stddef.h>
#include <stdint.h>

typedef struct ct_k_pool ct_k_pool;

/* Body of a parallel loop: process units [begin, end). */
typedef void (*ct_k_range_fn)(void *arg, int64_t begin, int64_t end);

/* Run fn over [0, total) in chunks of about `grain` units (>= 1) on at most max_threads threads
 * (the caller included). Runs inline when total < 2 * grain, max_threads <= 1 or no pool is
 * installed. */
void ct_k_parallel_for(int64_t total, int64_t grain, int max_threads, ct_k_range_fn fn, void *arg);

/* Where a context keeps its pool: made at the first call that splits work (so contexts that never
 * run a large op start no threads), with nthreads - 1 helpers, memory through alloc/free (the
 * context's hooks). If threads or memory are missing the work runs on the calling thread. */
typedef struct ct_k_pool_slot {
    ct_k_pool *pool;
    int nthreads;
    int tried;
    void *(*alloc)(void *user, size_t nbytes);
    void (*free_fn)(void *user, void *p);
    void *user;
} ct_k_pool_slot;

/* Stop and join the slot's helpers and free its pool (the slot itself is the caller's). */
void ct_k_pool_slot_release(ct_k_pool_slot *s);
/* Install s as the calling thread's pool slot for ct_k_parallel_for; returns the previous one,
 * which ct_k_pool_leave restores. */
ct_k_pool_slot *ct_k_pool_enter(ct_k_pool_slot *s);
void ct_k_pool_leave(ct_k_pool_slot *prev);

/* Grain (elements per chunk) for an elementwise op kind: about 10-20 us of work per chunk, so
 * chunks are many enough to balance and few enough that claiming costs nothing. */
int64_t ct_k_grain_of(int kind);

#endif

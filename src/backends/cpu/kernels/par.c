/* The kernels' parallel-for: chunks claimed from one atomic ticket by the caller and a few helper
 * threads that sleep between jobs (see par.h for why a late thread cannot hold a call back). */
#include "backends/cpu/kernels/par.h"

#include "ctorch/backend.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Chunks per job are at most this (they are counted in 16 bits of the ticket). */
#define CT_K_MAX_CHUNKS 4096
/* Pause iterations a helper spins for a following job before it sleeps (a few microseconds). */
#define CT_K_HELPER_SPIN 2000

struct ct_k_pool {
    int nthreads; /* helpers + the caller */
    int nstarted; /* helpers running */
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t epoch; /* under mu: bumped for every job; helpers wake on a change */
    int stop;       /* under mu */
    /* atomic: epoch (bits 32..63) | chunks of the job (16..31) | next chunk to claim (0..15) */
    uint64_t ticket;
    int64_t done; /* atomic: chunks of the current job finished */
    int in_job;   /* atomic: a call is running (a nested or concurrent call runs inline) */
    /* The current job. Written before the ticket is published; a helper reads them only after
     * claiming a chunk, and the caller changes them only once every chunk is done. */
    ct_k_range_fn fn;
    void *arg;
    int64_t total, chunk;
    int caller_cpu;    /* CPU the caller published the job from (-1: unknown) */
    cpu_set_t allowed; /* the process's CPUs when the pool was made */
    int nallowed;
    void (*free_fn)(void *, void *);
    void *user;
};

static _Thread_local ct_k_pool_slot *ct_k_tls_slot;

static inline void ct_k_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Claim and run chunks of the published job until none is left. */
static void ct_k_run_chunks(ct_k_pool *p) {
    uint64_t t = __atomic_load_n(&p->ticket, __ATOMIC_ACQUIRE);
    for (;;) {
        uint64_t n = (t >> 16) & 0xffff, next = t & 0xffff;
        if (next >= n) return;
        if (!__atomic_compare_exchange_n(&p->ticket, &t, t + 1, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue; /* t now holds the current ticket (possibly a newer job's) */
        int64_t b = (int64_t)next * p->chunk, e = b + p->chunk;
        if (e > p->total) e = p->total;
        p->fn(p->arg, b, e);
        __atomic_add_fetch(&p->done, 1, __ATOMIC_RELEASE);
        t = __atomic_load_n(&p->ticket, __ATOMIC_ACQUIRE);
    }
}

/* Keep a helper off the CPU its caller runs on. When a neighbour keeps the other core busy, the OS
 * tends to wake the helper on the caller's CPU, where the two only take turns (slower than the
 * caller alone); excluded from it, the helper shares the busy core and still adds work. Called
 * per job; a system call only when the caller's CPU changed. */
static void ct_k_helper_avoid(ct_k_pool *p, int *excluded) {
    int c = p->caller_cpu;
    if (c < 0 || c == *excluded || p->nallowed < 2 || !CPU_ISSET(c, &p->allowed)) return;
    cpu_set_t m = p->allowed;
    CPU_CLR(c, &m);
    if (pthread_setaffinity_np(pthread_self(), sizeof m, &m) == 0) *excluded = c;
}

static void *ct_k_helper(void *vp) {
    ct_k_pool *p = vp;
    int excluded = -1;
    pthread_mutex_lock(&p->mu);
    uint32_t seen = p->epoch;
    for (;;) {
        while (p->epoch == seen && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop) break;
        seen = p->epoch;
        pthread_mutex_unlock(&p->mu);
        ct_k_helper_avoid(p, &excluded);
        ct_k_run_chunks(p);
        /* a short spin catches the next op of a chain without a wake-up; then sleep */
        for (int i = 0; i < CT_K_HELPER_SPIN; i++) {
            if ((uint32_t)(__atomic_load_n(&p->ticket, __ATOMIC_RELAXED) >> 32) != seen) break;
            ct_k_cpu_relax();
        }
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void ct_k_pool_free(ct_k_pool *p);

static ct_k_pool *ct_k_pool_create(int nthreads, void *(*alloc)(void *, size_t),
                                   void (*free_fn)(void *, void *), void *user) {
    if (nthreads < 2) return NULL;
    ct_k_pool *p = alloc(user, sizeof *p);
    if (!p) return NULL;
    *p = (ct_k_pool){.nthreads = nthreads, .free_fn = free_fn, .user = user};
    if (sched_getaffinity(0, sizeof p->allowed, &p->allowed) == 0)
        p->nallowed = CPU_COUNT(&p->allowed);
    p->threads = alloc(user, sizeof(pthread_t) * (size_t)(nthreads - 1));
    if (!p->threads) {
        free_fn(user, p);
        return NULL;
    }
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        free_fn(user, p->threads);
        free_fn(user, p);
        return NULL;
    }
    if (pthread_cond_init(&p->cv, NULL) != 0) {
        pthread_mutex_destroy(&p->mu);
        free_fn(user, p->threads);
        free_fn(user, p);
        return NULL;
    }
    for (int i = 0; i < nthreads - 1; i++) {
        if (pthread_create(&p->threads[i], NULL, ct_k_helper, p) != 0) break;
        p->nstarted++;
    }
    if (p->nstarted == 0) {
        ct_k_pool_free(p);
        return NULL;
    }
    return p;
}

static void ct_k_pool_free(ct_k_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nstarted; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    p->free_fn(p->user, p->threads);
    p->free_fn(p->user, p);
}

void ct_k_pool_slot_release(ct_k_pool_slot *s) {
    if (!s) return;
    ct_k_pool_free(s->pool);
    s->pool = NULL;
}

ct_k_pool_slot *ct_k_pool_enter(ct_k_pool_slot *s) {
    ct_k_pool_slot *prev = ct_k_tls_slot;
    ct_k_tls_slot = s;
    return prev;
}

void ct_k_pool_leave(ct_k_pool_slot *prev) { ct_k_tls_slot = prev; }

void ct_k_parallel_for(int64_t total, int64_t grain, int max_threads, ct_k_range_fn fn, void *arg) {
    if (total <= 0) return;
    if (grain < 1) grain = 1;
    ct_k_pool_slot *slot = ct_k_tls_slot;
    if (slot && !slot->pool && !slot->tried && max_threads > 1 && total >= 2 * grain) {
        slot->tried = 1; /* once: without threads or memory the work stays on this thread */
        slot->pool = ct_k_pool_create(slot->nthreads, slot->alloc, slot->free_fn, slot->user);
    }
    ct_k_pool *p = slot ? slot->pool : NULL;
    if (!p || max_threads <= 1 || total < 2 * grain ||
        __atomic_exchange_n(&p->in_job, 1, __ATOMIC_ACQUIRE)) {
        fn(arg, 0, total);
        return;
    }
    int64_t nch = (total + grain - 1) / grain;
    if (nch > CT_K_MAX_CHUNKS) nch = CT_K_MAX_CHUNKS;
    int64_t chunk = (total + nch - 1) / nch;
    nch = (total + chunk - 1) / chunk;
    p->fn = fn;
    p->arg = arg;
    p->total = total;
    p->chunk = chunk;
    p->caller_cpu = sched_getcpu();
    __atomic_store_n(&p->done, 0, __ATOMIC_RELAXED);
    pthread_mutex_lock(&p->mu);
    p->epoch++;
    __atomic_store_n(&p->ticket, ((uint64_t)p->epoch << 32) | ((uint64_t)nch << 16),
                     __ATOMIC_RELEASE);
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    ct_k_run_chunks(p);
    /* Only chunks another thread has claimed can be left: wait for them (spin briefly, then
     * yield, then sleep in short steps: the claimant is running or about to). */
    for (long spins = 0; __atomic_load_n(&p->done, __ATOMIC_ACQUIRE) < nch; spins++) {
        if (spins < 20000) {
            ct_k_cpu_relax();
        } else if (spins < 20100) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
    __atomic_store_n(&p->in_job, 0, __ATOMIC_RELEASE);
}

int64_t ct_k_grain_of(int kind) {
    switch (kind) {
    case CT_OP_EXP:
    case CT_OP_LOG:
    case CT_OP_TANH:
    case CT_OP_SIGMOID:
    case CT_OP_GELU:
    case CT_OP_POW:
    case CT_OP_ERF:
    case CT_OP_ERFC:
    case CT_OP_SIN:
    case CT_OP_COS:
    case CT_OP_EXP2:
    case CT_OP_LOG2:
    case CT_OP_LOG1P:
    case CT_OP_EXPM1:
    case CT_OP_TAN:
    case CT_OP_ATAN:
    case CT_OP_ASIN:
    case CT_OP_ACOS:
    case CT_OP_SINH:
    case CT_OP_COSH:
    case CT_OP_ASINH:
    case CT_OP_ACOSH:
    case CT_OP_ATANH:
    case CT_OP_LOG10:
    case CT_OP_RECIPROCAL:
    case CT_OP_ATAN2:
    case CT_OP_HYPOT:
    case CT_OP_LOGADDEXP:
    case CT_OP_LOGADDEXP2:
    case CT_OP_XLOGY:
    case CT_OP_POW_T:
    case CT_OP_LOGIT:
    case CT_OP_SINC:
    case CT_OP_XLOG1PY:
    case CT_OP_SILU:
    case CT_OP_SOFTPLUS:
    case CT_OP_MISH:
    case CT_OP_ELU:
    case CT_OP_REMAINDER:
    case CT_OP_FMOD:
    case CT_OP_DIV_TRUNC:
    case CT_OP_DIV_FLOOR: return 32768; /* transcendental: ~0.3-10 ns an element */
    case CT_OP_LGAMMA:
    case CT_OP_DIGAMMA:
    case CT_OP_POLYGAMMA:
    case CT_OP_ERFINV:
    case CT_OP_I0:
    case CT_OP_I0E:
    case CT_OP_I1:
    case CT_OP_I1E:
    case CT_OP_NDTR:
    case CT_OP_NDTRI:
    case CT_OP_LOG_NDTR:
    case CT_OP_ERFCX:
    case CT_OP_ZETA:
    case CT_OP_IGAMMA:
    case CT_OP_IGAMMAC:
    case CT_OP_BESSEL_J0:
    case CT_OP_BESSEL_J1:
    case CT_OP_BESSEL_Y0:
    case CT_OP_BESSEL_Y1:
    case CT_OP_BESSEL_K0:
    case CT_OP_BESSEL_K1:
    case CT_OP_BESSEL_K0E:
    case CT_OP_BESSEL_K1E:
    case CT_OP_SPHERICAL_J0:
    case CT_OP_CHEBYSHEV_T:
    case CT_OP_CHEBYSHEV_U:
    case CT_OP_CHEBYSHEV_V:
    case CT_OP_CHEBYSHEV_W:
    case CT_OP_SHIFTED_CHEBYSHEV_T:
    case CT_OP_SHIFTED_CHEBYSHEV_U:
    case CT_OP_SHIFTED_CHEBYSHEV_V:
    case CT_OP_SHIFTED_CHEBYSHEV_W:
    case CT_OP_HERMITE_H:
    case CT_OP_HERMITE_HE:
    case CT_OP_LAGUERRE_L:
    case CT_OP_LEGENDRE_P:
    case CT_OP_AIRY_AI:
    case CT_OP_ENTR: return 2048; /* special functions in long double: ~50-500 ns */
    default: return 65536;        /* arithmetic, comparisons, copies: ~0.3 ns an element */
    }
}

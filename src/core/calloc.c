/* The caching allocator (calloc.h): the rules of PyTorch's CUDACachingAllocator over a device's
 * segment calls. Free blocks sit in size-class bins per pool (4 classes per power of two, a
 * bitmap of the non-empty ones) and are found best-fit; blocks of one segment form a list in
 * address order so a freed block coalesces with its free neighbours; a hash table maps a user
 * pointer to its block. Statistics follow torch.cuda.memory_stats. */
#include "core/calloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>

/* Under AddressSanitizer free blocks are poisoned and a block is unpoisoned only up to the bytes
 * requested, so a use after free or an overflow past the request (into the rounding slack or a
 * neighbour) is reported, as it would be with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define CA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define CA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define CA_POISON(p, n) ((void)(p), (void)(n))
#define CA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define CA_ROUND 512u
#define CA_SMALL_MAX ((size_t)1 << 20)  /* requests up to this go to the small pool */
#define CA_SMALL_SEG ((size_t)2 << 20)  /* small pool segment (and expandable page) */
#define CA_LARGE_SEG ((size_t)20 << 20) /* large pool segment (and expandable page) */
#define CA_MIN_LARGE ((size_t)10 << 20) /* below: a 20 MiB segment; above: rounded to 2 MiB */
#define CA_ROUND_LARGE ((size_t)2 << 20)
#define CA_SPLIT_LARGE ((size_t)1 << 20) /* large blocks split when more than this remains */
#define CA_OVERSIZE_SLACK                                                                          \
    ((size_t)20 << 20) /* an oversize request takes a block at most this larger */
#define CA_NBINS 192
#define CA_HOT_SMALL ((size_t)64 << 10) /* blocks up to this park 64 deep per size class */
#define CA_HOT_DEPTH_SMALL 64
#define CA_HOT_DEPTH_LARGE 4
#define CA_EXP_RESERVE_SMALL ((size_t)64 << 30)
#define CA_EXP_RESERVE_LARGE ((size_t)1 << 40)

typedef struct ca_seg ca_seg;
typedef struct ca_blk {
    char *ptr;
    size_t size, req;
    struct ca_blk *prev, *next;   /* neighbours in the segment, address order */
    struct ca_blk *fprev, *fnext; /* bin list (free blocks) */
    ca_seg *seg;
    int bin;
    bool used;
    bool hot; /* freed and parked in a hot list: free, but not in a bin or coalesced yet */
} ca_blk;

struct ca_seg {
    int set; /* 0: the general pools; > 0: a private pool (a graph's) */
    char *base;
    size_t size;     /* bytes usable (committed, for an expandable segment) */
    size_t reserved; /* address range of an expandable segment */
    int pool;        /* 0 small, 1 large */
    bool expandable;
    ca_blk *head;
    ca_seg *snext, *sprev;
};

typedef struct {
    ca_blk *bins[CA_NBINS];
    uint64_t nonempty[CA_NBINS / 64];
    ca_seg *segs; /* classic segments */
    ca_seg *exp;  /* the expandable segment, or NULL */
} ca_pool;

/* A private pool: its own small and large pools, so its blocks never share a segment with the
 * general ones (graph memory). A released set frees each segment as it empties. */
typedef struct ca_pset {
    int id;
    bool released;
    bool stream;   /* a stream's general pools (hot-list free, expandable, never released) */
    uint64_t skey; /* the stream (stream sets) */
    ca_pool pool[2];
    struct ca_pset *next;
} ca_pset;

struct ct_caching_allocator {
    ct__vm_ops ops;
    ct__calloc_conf conf;
    volatile int lock;
    ca_pool pool[2];
    ca_pset *psets;
    int next_pset;
    ca_blk **tab; /* open addressing: ptr -> block; CA_TOMB marks a removed entry */
    size_t tcap, tused;
    ca_blk *spare; /* recycled block nodes (linked through next) */
    ca_blk *last;  /* the block handed out last: a free of its pointer skips the table */
    struct {
        ca_blk *top; /* linked through fnext */
        int n;
    } hot[CA_NBINS];
    ct_mem_stats st;
    char oom[320];
};

#define CA_TOMB ((ca_blk *)1)

/* In a process with one thread nothing can race (glibc's malloc takes the same shortcut): the
 * lock is not taken while glibc says the process has one thread. That can only change when a
 * thread is created, which this thread does not do inside a critical section; unlock releases
 * exactly the locks that were taken. */
static void ca_lock(ct__calloc *a) {
    if (__libc_single_threaded) return;
    while (__atomic_exchange_n(&a->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&a->lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
}
static void ca_unlock(ct__calloc *a) {
    if (__atomic_load_n(&a->lock, __ATOMIC_RELAXED))
        __atomic_store_n(&a->lock, 0, __ATOMIC_RELEASE);
}

/* ---- statistics ---- */

static inline void ca_stat1(ct_mem_stat *x, int64_t d) {
    x->current += d;
    if (d > 0) {
        x->allocated += d;
        if (x->current > x->peak) x->peak = x->current;
    } else {
        x->freed -= d;
    }
}
/* Update the pool's entry; of the "all" entry only the peak is kept here (its current,
 * allocated and freed are the pools' sums, folded in by ca_fold_all where they are read). */
static inline void ca_stat(ct_mem_stat *s, int pool, int64_t d) {
    ca_stat1(&s[1 + pool], d);
    if (d > 0) {
        const int64_t all = s[CT_MEM_SMALL_POOL].current + s[CT_MEM_LARGE_POOL].current;
        if (all > s[CT_MEM_ALL].peak) s[CT_MEM_ALL].peak = all;
    }
}
static void ca_fold1(ct_mem_stat *s) {
    s[CT_MEM_ALL].current = s[CT_MEM_SMALL_POOL].current + s[CT_MEM_LARGE_POOL].current;
    s[CT_MEM_ALL].allocated = s[CT_MEM_SMALL_POOL].allocated + s[CT_MEM_LARGE_POOL].allocated;
    s[CT_MEM_ALL].freed = s[CT_MEM_SMALL_POOL].freed + s[CT_MEM_LARGE_POOL].freed;
}
static void ca_fold_all(ct_mem_stats *st) {
    ct_mem_stat *all[] = {st->allocation,      st->segment,        st->inactive_split,
                          st->allocated_bytes, st->reserved_bytes, st->inactive_split_bytes,
                          st->requested_bytes};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ca_fold1(all[i]);
}
/* A free block that is not its segment's only block counts as an inactive split. */
static inline void ca_split_stat(ct__calloc *a, const ca_blk *b, int sign) {
    if (b->used || (!b->prev && !b->next)) return;
    ca_stat(a->st.inactive_split, b->seg->pool, sign);
    ca_stat(a->st.inactive_split_bytes, b->seg->pool, sign * (int64_t)b->size);
}

/* ---- bins ---- */

static int ca_bin(size_t n) {
    if (n <= CA_ROUND) return 0;
    const int lg = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^lg < n <= 2^(lg+1) */
    const size_t base = (size_t)1 << lg, step = base / 4;             /* lg >= 9: step = 2^(lg-2) */
    const int k = (int)((n - base + step - 1) >> (lg - 2)); /* 1..4 (a shift, not a division) */
    const int b = (lg - 9) * 4 + k;
    return b < CA_NBINS ? b : CA_NBINS - 1;
}
static void ca_bin_add(ca_pool *p, ca_blk *b) {
    const int i = ca_bin(b->size);
    b->bin = i;
    b->fprev = NULL;
    b->fnext = p->bins[i];
    if (b->fnext) b->fnext->fprev = b;
    p->bins[i] = b;
    p->nonempty[i / 64] |= (uint64_t)1 << (i % 64);
}
static void ca_bin_del(ca_pool *p, ca_blk *b) {
    if (b->fprev)
        b->fprev->fnext = b->fnext;
    else
        p->bins[b->bin] = b->fnext;
    if (b->fnext) b->fnext->fprev = b->fprev;
    if (!p->bins[b->bin]) p->nonempty[b->bin / 64] &= ~((uint64_t)1 << (b->bin % 64));
    b->fprev = b->fnext = NULL;
}
/* The smallest free block >= size in pool (an oversize request: not more than the slack
 * larger), removed from its bin. */
static ca_blk *ca_find(ct__calloc *a, ca_pool *p, size_t size) {
    const bool oversize = a->conf.max_split && size >= a->conf.max_split;
    for (int i = ca_bin(size); i < CA_NBINS; i++) {
        const uint64_t w = p->nonempty[i / 64] >> (i % 64);
        if (!w) {
            i = (i / 64 + 1) * 64 - 1;
            continue;
        }
        i += __builtin_ctzll(w);
        ca_blk *best = NULL;
        for (ca_blk *b = p->bins[i]; b; b = b->fnext)
            if (b->size >= size && (!best || b->size < best->size)) {
                best = b;
                if (b->size == size) break;
            }
        if (best) {
            if (oversize && best->size > size + CA_OVERSIZE_SLACK) return NULL;
            /* a request below max_split_size leaves the unsplittable blocks above it alone */
            if (a->conf.max_split && !oversize && best->size >= a->conf.max_split) return NULL;
            ca_bin_del(p, best);
            return best;
        }
    }
    return NULL;
}

/* ---- nodes and the pointer table ---- */

static ca_blk *ca_node(ct__calloc *a) {
    ca_blk *b = a->spare;
    if (b)
        a->spare = b->next;
    else if (!(b = malloc(sizeof *b)))
        return NULL;
    b->prev = b->next = b->fprev = b->fnext = NULL;
    b->req = 0;
    b->used = b->hot = false;
    return b;
}
static void ca_node_free(ct__calloc *a, ca_blk *b) {
    if (a->last == b) a->last = NULL;
    b->next = a->spare;
    a->spare = b;
}
static size_t ca_hash(const void *p, size_t cap) {
    return (size_t)(((uintptr_t)p >> 9) * 0x9E3779B97F4A7C15ull >> 17) & (cap - 1);
}
/* Rehash (dropping tombstones); the capacity doubles only when live entries fill a quarter. */
static bool ca_tab_grow(ct__calloc *a) {
    size_t live = 0;
    for (size_t i = 0; i < a->tcap; i++)
        live += a->tab[i] && a->tab[i] != CA_TOMB;
    const size_t ncap = !a->tcap ? 1024 : live * 4 > a->tcap ? a->tcap * 2 : a->tcap;
    ca_blk **t = calloc(ncap, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < a->tcap; i++) {
        ca_blk *b = a->tab[i];
        if (!b || b == CA_TOMB) continue;
        size_t h = ca_hash(b->ptr, ncap);
        while (t[h])
            h = (h + 1) & (ncap - 1);
        t[h] = b;
    }
    free(a->tab);
    a->tab = t;
    a->tcap = ncap;
    size_t n = 0;
    for (size_t i = 0; i < ncap; i++)
        n += t[i] != NULL;
    a->tused = n;
    return true;
}
static bool ca_tab_put(ct__calloc *a, ca_blk *b) {
    if ((a->tused + 1) * 2 > a->tcap && !ca_tab_grow(a)) return false;
    size_t h = ca_hash(b->ptr, a->tcap);
    while (a->tab[h] && a->tab[h] != CA_TOMB)
        h = (h + 1) & (a->tcap - 1);
    if (!a->tab[h]) a->tused++;
    a->tab[h] = b;
    return true;
}
static ca_blk *ca_tab_take(ct__calloc *a, const void *p) {
    if (!a->tcap) return NULL;
    size_t h = ca_hash(p, a->tcap);
    for (ca_blk *b; (b = a->tab[h]) != NULL; h = (h + 1) & (a->tcap - 1))
        if (b != CA_TOMB && b->ptr == p) {
            a->tab[h] = CA_TOMB;
            return b;
        }
    return NULL;
}

static ca_blk *ca_tab_find(const ct__calloc *a, const void *p) {
    if (!a->tcap) return NULL;
    size_t h = ca_hash(p, a->tcap);
    for (ca_blk *b; (b = a->tab[h]) != NULL; h = (h + 1) & (a->tcap - 1))
        if (b != CA_TOMB && b->ptr == p) return b;
    return NULL;
}

/* The pools of set id (0: the general ones); NULL for an unknown set. */
static ca_pool *ca_P(ct__calloc *a, int set, int pool) {
    if (set == 0) return &a->pool[pool];
    for (ca_pset *q = a->psets; q; q = q->next)
        if (q->id == set) return &q->pool[pool];
    return NULL;
}

/* The set of stream key (0, the default stream: the general pools), made on first use; -1 when
 * out of memory. */
static int ca_stream_set(ct__calloc *a, uint64_t key) {
    if (key == 0) return 0;
    for (ca_pset *q = a->psets; q; q = q->next)
        if (q->stream && q->skey == key) return q->id;
    ca_pset *q = calloc(1, sizeof *q);
    if (!q) return -1;
    q->id = ++a->next_pset;
    q->stream = true;
    q->skey = key;
    q->next = a->psets;
    a->psets = q;
    return q->id;
}
static const ca_pset *ca_set_of(const ct__calloc *a, int set) {
    for (const ca_pset *q = a->psets; q; q = q->next)
        if (q->id == set) return q;
    return NULL;
}
/* Whether set is a general pool (the default stream's or another stream's). */
static bool ca_general(const ct__calloc *a, int set) {
    if (set == 0) return true;
    const ca_pset *q = ca_set_of(a, set);
    return q && q->stream;
}

/* ---- segments ---- */

static size_t ca_reserved(const ct__calloc *a) {
    return (size_t)(a->st.reserved_bytes[CT_MEM_SMALL_POOL].current +
                    a->st.reserved_bytes[CT_MEM_LARGE_POOL].current);
}
static bool ca_within_limit(const ct__calloc *a, size_t more) {
    return !a->conf.limit || ca_reserved(a) + more <= a->conf.limit;
}

/* A classic segment for a request of size: one free block in the pool's bins. */
static bool ca_new_segment(ct__calloc *a, int set, int pool, size_t size) {
    ca_pool *pp = ca_P(a, set, pool);
    const size_t n = pool == 0 ? CA_SMALL_SEG
                     : size < CA_MIN_LARGE
                         ? CA_LARGE_SEG
                         : (size + CA_ROUND_LARGE - 1) / CA_ROUND_LARGE * CA_ROUND_LARGE;
    if (n < size || !ca_within_limit(a, n)) return false;
    ca_seg *s = calloc(1, sizeof *s);
    ca_blk *b = s ? ca_node(a) : NULL;
    char *base = b ? a->ops.map(a->ops.user, n) : NULL;
    if (!base) {
        if (b) ca_node_free(a, b);
        free(s);
        return false;
    }
    CA_POISON(base, n);
    s->set = set, s->base = base, s->size = n, s->pool = pool, s->head = b;
    s->snext = pp->segs;
    if (s->snext) s->snext->sprev = s;
    pp->segs = s;
    b->ptr = base, b->size = n, b->seg = s;
    ca_bin_add(pp, b);
    ca_stat(a->st.segment, pool, 1);
    ca_stat(a->st.reserved_bytes, pool, (int64_t)n);
    a->st.num_segment_allocs++;
    return true;
}

/* Grow the expandable segment of set's pool (one per pool and stream) so that its free top
 * holds size bytes. */
static bool ca_grow_expandable(ct__calloc *a, int set, int pool, size_t size) {
    ca_pool *p = ca_P(a, set, pool);
    const size_t gran = pool == 0 ? CA_SMALL_SEG : CA_LARGE_SEG;
    ca_seg *s = p->exp;
    if (!s) {
        size_t r = pool == 0 ? CA_EXP_RESERVE_SMALL : CA_EXP_RESERVE_LARGE;
        if (!(s = calloc(1, sizeof *s))) return false;
        /* a smaller range where the address space is limited (ulimit -v, sanitizers) */
        while (!(s->base = a->ops.reserve(a->ops.user, r)) && r > ((size_t)256 << 20))
            r /= 2;
        if (!s->base) {
            free(s);
            return false;
        }
        s->reserved = r, s->pool = pool, s->expandable = true, s->set = set;
        p->exp = s;
    }
    ca_blk *last = s->head;
    while (last && last->next)
        last = last->next;
    const bool top_free = last && !last->used && !last->hot; /* hot lists are flushed on retry */
    const size_t have = top_free ? last->size : 0;
    const size_t need = (size - have + gran - 1) / gran * gran;
    if (s->size + need > s->reserved || !ca_within_limit(a, need)) return false;
    ca_blk *nb = NULL;
    if (!top_free && !(nb = ca_node(a))) return false;
    if (!a->ops.commit(a->ops.user, s->base + s->size, need)) {
        if (nb) ca_node_free(a, nb);
        return false;
    }
    CA_POISON(s->base + s->size, need);
    if (s->size == 0) ca_stat(a->st.segment, pool, 1);
    ca_stat(a->st.reserved_bytes, pool, (int64_t)need);
    a->st.num_segment_allocs++;
    if (nb) {
        nb->ptr = s->base + s->size, nb->size = need, nb->seg = s, nb->prev = last;
        if (last)
            last->next = nb;
        else
            s->head = nb;
        ca_split_stat(a, nb, 1); /* `last` is in use (free neighbours always coalesce) */
    } else {
        ca_bin_del(p, last);
        ca_split_stat(a, last, -1);
        last->size += need;
        ca_split_stat(a, last, 1);
        nb = last;
    }
    s->size += need;
    ca_bin_add(p, nb);
    return true;
}

static void ca_release_block(ct__calloc *a, ca_blk *b);
static void ca_release_cached_set(ct__calloc *a, int set, int pool);
/* The general pools of every stream. */
static void ca_release_cached(ct__calloc *a, int pool) {
    ca_release_cached_set(a, 0, pool);
    for (ca_pset *q = a->psets; q; q = q->next)
        if (q->stream) ca_release_cached_set(a, q->id, pool);
}
/* Give every parked block of the hot lists back to its bin (coalescing). */
static void ca_flush_hot(ct__calloc *a) {
    for (int i = 0; i < CA_NBINS; i++)
        while (a->hot[i].top) {
            ca_blk *b = a->hot[i].top;
            a->hot[i].top = b->fnext;
            a->hot[i].n--;
            b->fnext = NULL;
            ca_split_stat(a, b, -1);
            b->hot = false;
            ca_tab_take(a, b->ptr);
            ca_release_block(a, b);
        }
}

/* Unmap the pool's wholly free classic segments and decommit the free top of its expandable
 * one (the hot lists are flushed first). */
/* Unmap classic segment s of pool p if its only block is free. */
static void ca_unmap_if_free(ct__calloc *a, ca_pool *p, ca_seg *s) {
    ca_blk *b = s->head;
    if (b->used || b->hot || b->next) return;
    ca_bin_del(p, b);
    if (s->sprev)
        s->sprev->snext = s->snext;
    else
        p->segs = s->snext;
    if (s->snext) s->snext->sprev = s->sprev;
    CA_UNPOISON(s->base, s->size);
    a->ops.unmap(a->ops.user, s->base, s->size);
    ca_stat(a->st.segment, s->pool, -1);
    ca_stat(a->st.reserved_bytes, s->pool, -(int64_t)s->size);
    a->st.num_segment_frees++;
    ca_node_free(a, b);
    free(s);
}

static void ca_release_cached_set(ct__calloc *a, int set, int pool) {
    ca_flush_hot(a);
    ca_pool *p = ca_P(a, set, pool);
    if (!p) return;
    for (ca_seg *s = p->segs, *nx; s; s = nx) {
        nx = s->snext;
        ca_unmap_if_free(a, p, s);
    }
    ca_seg *s = p->exp; /* private pools have none */
    if (!s || !s->head) return;
    const size_t gran = pool == 0 ? CA_SMALL_SEG : CA_LARGE_SEG;
    ca_blk *last = s->head;
    while (last->next)
        last = last->next;
    if (last->used) return;
    /* the committed size stays a multiple of the page: drop whole pages from the top */
    const size_t drop = last->size / gran * gran;
    if (!drop) return;
    ca_bin_del(p, last);
    ca_split_stat(a, last, -1);
    CA_UNPOISON(s->base + s->size - drop, drop);
    a->ops.decommit(a->ops.user, s->base + s->size - drop, drop);
    s->size -= drop;
    ca_stat(a->st.reserved_bytes, pool, -(int64_t)drop);
    a->st.num_segment_frees++;
    last->size -= drop;
    if (last->size == 0) { /* its neighbour before is in use: no statistic changes */
        if (last->prev)
            last->prev->next = NULL;
        else
            s->head = NULL;
        ca_node_free(a, last);
    } else {
        ca_split_stat(a, last, 1);
        ca_bin_add(p, last);
    }
    if (s->size == 0) ca_stat(a->st.segment, pool, -1);
}

/* ---- allocate / free ---- */

static bool ca_should_split(const ct__calloc *a, const ca_blk *b, size_t size) {
    const size_t rest = b->size - size;
    if (b->seg->pool == 0) return rest >= CA_ROUND;
    return rest > CA_SPLIT_LARGE && (!a->conf.max_split || b->size < a->conf.max_split);
}

static void ca_fmt_mib(char *buf, size_t n, int64_t bytes) {
    snprintf(buf, n, "%.2f MiB", (double)bytes / (1024.0 * 1024.0));
}

void *ct__calloc_alloc(ct__calloc *a, size_t n) { return ct__calloc_alloc_in(a, 0, n); }

void *ct__calloc_alloc_stream(ct__calloc *a, uint64_t stream, size_t n) {
    if (stream == 0) return ct__calloc_alloc_in(a, 0, n);
    ca_lock(a);
    const int set = ca_stream_set(a, stream);
    ca_unlock(a);
    if (set < 0) {
        snprintf(a->oom, sizeof a->oom, "out of host memory for the allocator's stream pools");
        return NULL;
    }
    return ct__calloc_alloc_in(a, set, n);
}

void *ct__calloc_alloc_in(ct__calloc *a, int set, size_t n) {
    if (n > SIZE_MAX - CA_ROUND_LARGE) return NULL;
    const size_t size = n <= CA_ROUND ? CA_ROUND : (n + CA_ROUND - 1) / CA_ROUND * CA_ROUND;
    const int pool = size <= CA_SMALL_MAX ? 0 : 1;
    const int hb = ca_bin(size);
    ca_lock(a);
    ca_pool *p = ca_P(a, set, pool);
    if (!p) {
        snprintf(a->oom, sizeof a->oom, "private pool %d does not exist", set);
        ca_unlock(a);
        return NULL;
    }
    ca_blk *b = set ? NULL : a->hot[hb].top;
    if (b && b->size == size) { /* a parked block of this size: still in the table */
        a->hot[hb].top = b->fnext;
        a->hot[hb].n--;
        b->fnext = NULL;
        ca_split_stat(a, b, -1);
        b->hot = false;
        b->used = true;
        b->req = n;
        ca_stat(a->st.allocation, pool, 1);
        ca_stat(a->st.allocated_bytes, pool, (int64_t)size);
        ca_stat(a->st.requested_bytes, pool, (int64_t)n);
        a->last = b;
        ca_unlock(a);
        CA_UNPOISON(b->ptr, n);
        return b->ptr;
    }
    b = ca_find(a, p, size);
    for (int attempt = 0; !b && attempt < 2; attempt++) {
        if (attempt == 1) { /* free the cache and try once more */
            a->st.num_alloc_retries++;
            ca_release_cached(a, 0);
            ca_release_cached(a, 1);
        }
        const bool grown = a->conf.expandable && ca_general(a, set)
                               ? ca_grow_expandable(a, set, pool, size)
                               : ca_new_segment(a, set, pool, size);
        if (grown) b = ca_find(a, p, size);
    }
    if (!b) {
        a->st.num_ooms++;
        ca_fold_all(&a->st);
        char req[32], al[32], rs[32], fr[32], lim[48] = "";
        ca_fmt_mib(req, sizeof req, (int64_t)size);
        ca_fmt_mib(al, sizeof al, a->st.allocated_bytes[0].current);
        ca_fmt_mib(rs, sizeof rs, a->st.reserved_bytes[0].current);
        const int64_t free_rs = a->st.reserved_bytes[0].current - a->st.allocated_bytes[0].current;
        ca_fmt_mib(fr, sizeof fr, free_rs);
        char l[32] = "";
        if (a->conf.limit) {
            ca_fmt_mib(l, sizeof l, (int64_t)a->conf.limit);
            snprintf(lim, sizeof lim, " of a %s limit", l);
        }
        if (a->conf.limit && size > a->conf.limit) /* no configuration can help */
            snprintf(a->oom, sizeof a->oom,
                     "out of memory: tried to allocate %s, more than the whole %s limit "
                     "(memory_limit_mb); %s allocated, %s reserved",
                     req, l, al, rs);
        else /* the fragmentation hint only where reserved memory sits unused (torch's "if
              * reserved but unallocated memory is large") */
            snprintf(a->oom, sizeof a->oom,
                     "out of memory: tried to allocate %s; %s allocated, %s reserved%s, %s "
                     "reserved but free%s",
                     req, al, rs, lim, fr,
                     a->conf.expandable || free_rs <= 0
                         ? ""
                         : " (fragmented): expandable_segments:True in CT_ALLOC_CONF avoids "
                           "fragmentation");
        ca_unlock(a);
        return NULL;
    }
    ca_split_stat(a, b, -1);
    if (ca_should_split(a, b, size)) {
        ca_blk *r = ca_node(a);
        if (r) {
            r->ptr = b->ptr + size, r->size = b->size - size, r->seg = b->seg;
            r->prev = b, r->next = b->next;
            if (b->next) b->next->prev = r;
            b->next = r;
            b->size = size;
            ca_split_stat(a, r, 1);
            ca_bin_add(p, r);
        }
    }
    b->used = true;
    b->req = n;
    if (!ca_tab_put(a, b)) { /* no memory for the table: give the block back */
        b->used = false;
        ca_split_stat(a, b, 1);
        ca_bin_add(p, b);
        snprintf(a->oom, sizeof a->oom, "out of host memory for the allocator's table");
        a->st.num_ooms++;
        ca_unlock(a);
        return NULL;
    }
    ca_stat(a->st.allocation, pool, 1);
    ca_stat(a->st.allocated_bytes, pool, (int64_t)b->size);
    ca_stat(a->st.requested_bytes, pool, (int64_t)n);
    a->last = b;
    ca_unlock(a);
    CA_UNPOISON(b->ptr, n);
    return b->ptr;
}

/* A free block (not in the table, bins or hot lists) coalesces with its free neighbours and goes
 * to its bin. */
static void ca_release_block(ct__calloc *a, ca_blk *b) {
    ca_seg *sg = b->seg;
    ca_pool *p = ca_P(a, sg->set, sg->pool);
    ca_blk *pv = b->prev, *nx = b->next;
    if (pv && !pv->used && !pv->hot) {
        ca_bin_del(p, pv);
        ca_split_stat(a, pv, -1);
        pv->size += b->size;
        pv->next = nx;
        if (nx) nx->prev = pv;
        ca_node_free(a, b);
        b = pv;
    }
    nx = b->next;
    if (nx && !nx->used && !nx->hot) {
        ca_bin_del(p, nx);
        ca_split_stat(a, nx, -1);
        b->size += nx->size;
        b->next = nx->next;
        if (nx->next) nx->next->prev = b;
        ca_node_free(a, nx);
    }
    ca_split_stat(a, b, 1);
    ca_bin_add(p, b);
    if (sg->set) { /* a released private pool gives each segment back as it empties */
        for (ca_pset *q = a->psets; q; q = q->next)
            if (q->id == sg->set && q->released) ca_unmap_if_free(a, p, sg);
    }
}

void ct__calloc_free(ct__calloc *a, void *ptr) {
    if (!ptr) return;
    ca_lock(a);
    /* a node stays a node (spare list) until the allocator goes, and a used block is the only one
     * at its pointer: the last block handed out is checked before the table */
    ca_blk *b = a->last && a->last->used && a->last->ptr == ptr ? a->last : ca_tab_find(a, ptr);
    if (!b || !b->used) { /* not ours (or freed twice): an invariant the caller broke */
        ca_unlock(a);
        return;
    }
    const int pool = b->seg->pool;
    CA_POISON(b->ptr, b->size);
    ca_stat(a->st.allocation, pool, -1);
    ca_stat(a->st.allocated_bytes, pool, -(int64_t)b->size);
    ca_stat(a->st.requested_bytes, pool, -(int64_t)b->req);
    b->used = false;
    b->req = 0;
    const int hb = ca_bin(b->size);
    if (!a->conf.no_hot && b->seg->set == 0 &&
        a->hot[hb].n < (b->size <= CA_HOT_SMALL ? CA_HOT_DEPTH_SMALL : CA_HOT_DEPTH_LARGE)) {
        b->hot = true; /* parked for the next request of this size */
        b->fnext = a->hot[hb].top;
        a->hot[hb].top = b;
        a->hot[hb].n++;
        ca_split_stat(a, b, 1);
        ca_unlock(a);
        return;
    }
    ca_tab_take(a, ptr);
    ca_release_block(a, b);
    ca_unlock(a);
}

void ct__calloc_empty(ct__calloc *a) {
    ca_lock(a);
    ca_release_cached(a, 0);
    ca_release_cached(a, 1);
    ca_unlock(a);
}

void ct__calloc_stats(ct__calloc *a, ct_mem_stats *out) {
    ca_lock(a);
    ct_mem_stats s = a->st;
    ca_unlock(a);
    ca_fold_all(&s);
    s.size = sizeof s;
    /* every block handed out is active (no block waits on another stream here) */
    memcpy(s.active, s.allocation, sizeof s.active);
    memcpy(s.active_bytes, s.allocated_bytes, sizeof s.active_bytes);
    s.max_split_size = a->conf.max_split ? (int64_t)a->conf.max_split : -1;
    s.memory_limit = a->conf.limit ? (int64_t)a->conf.limit : -1;
    s.expandable_segments = a->conf.expandable;
    const size_t n = out->size < sizeof s ? out->size : sizeof s;
    memcpy(out, &s, n);
    out->size = n;
}

void ct__calloc_reset_peak(ct__calloc *a) {
    ca_lock(a);
    ca_fold_all(&a->st);
    ct_mem_stat *all[] = {a->st.allocation,      a->st.segment,        a->st.inactive_split,
                          a->st.allocated_bytes, a->st.reserved_bytes, a->st.inactive_split_bytes,
                          a->st.requested_bytes};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        for (int k = 0; k < 3; k++)
            all[i][k].peak = all[i][k].current;
    ca_unlock(a);
}

const char *ct__calloc_oom_message(const ct__calloc *a) { return a->oom; }

/* ---- private pools ---- */

int ct__calloc_private_create(ct__calloc *a) {
    ca_pset *q = calloc(1, sizeof *q);
    if (!q) return 0;
    ca_lock(a);
    q->id = ++a->next_pset;
    q->next = a->psets;
    a->psets = q;
    ca_unlock(a);
    return q->id;
}

static void ca_pset_drop_empty(ct__calloc *a) {
    for (ca_pset **pp = &a->psets; *pp;) {
        ca_pset *q = *pp;
        if (q->released && !q->pool[0].segs && !q->pool[1].segs && !q->pool[0].exp &&
            !q->pool[1].exp) {
            *pp = q->next;
            free(q);
        } else {
            pp = &q->next;
        }
    }
}

void ct__calloc_private_release(ct__calloc *a, int id) {
    ca_lock(a);
    for (ca_pset *q = a->psets; q; q = q->next)
        if (q->id == id) q->released = true;
    for (int pool = 0; pool < 2; pool++)
        ca_release_cached_set(a, id, pool);
    ca_pset_drop_empty(a);
    ca_unlock(a);
}

/* ---- create / destroy / config ---- */

ct__calloc *ct__calloc_create(const ct__vm_ops *ops, const ct__calloc_conf *conf) {
    ct__calloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->ops = *ops;
    if (conf) a->conf = *conf;
    return a;
}

/* Give an expandable segment's range back when nothing in it is in use. */
static void ca_drop_exp(ct__calloc *a, ca_pool *p) {
    ca_seg *e = p->exp;
    if (e && !e->head) {
        a->ops.release(a->ops.user, e->base, e->reserved);
        free(e);
        p->exp = NULL;
    }
}
static void ca_destroy_pool(ct__calloc *a, int pool) {
    ca_release_cached(a, pool);
    ca_drop_exp(a, &a->pool[pool]);
    for (ca_pset *q = a->psets; q; q = q->next)
        if (q->stream) ca_drop_exp(a, &q->pool[pool]);
}

void ct__calloc_destroy(ct__calloc *a) {
    if (!a) return;
    ca_destroy_pool(a, 0);
    ca_destroy_pool(a, 1);
    for (ca_pset *q = a->psets; q; q = q->next) {
        q->released = true;
        ca_release_cached_set(a, q->id, 0);
        ca_release_cached_set(a, q->id, 1);
    }
    ca_pset_drop_empty(a); /* sets with leaked blocks stay (their segments stay mapped) */
    /* segments with blocks still in use (leaked tensors) stay mapped; their metadata goes */
    for (ca_blk *b = a->spare, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a->tab);
    free(a);
}

static bool ca_num(const char *v, size_t len, size_t *out) {
    if (!len || len > 12) return false;
    size_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9') return false;
        x = x * 10 + (size_t)(v[i] - '0');
    }
    *out = x;
    return true;
}

bool ct__calloc_parse(const char *s, ct__calloc_conf *c, char *err, size_t err_n) {
    while (s && *s) {
        const char *end = strchr(s, ',');
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *colon = memchr(s, ':', len);
        if (!colon) {
            snprintf(err, err_n, "CT_ALLOC_CONF: \"%.*s\" is not key:value", (int)len, s);
            return false;
        }
        const size_t kl = (size_t)(colon - s), vl = len - kl - 1;
        const char *v = colon + 1;
        size_t num = 0;
        if (kl == 19 && !strncmp(s, "expandable_segments", kl)) {
            if (vl == 4 && (!strncmp(v, "True", 4) || !strncmp(v, "true", 4)))
                c->expandable = true;
            else if (vl == 5 && (!strncmp(v, "False", 5) || !strncmp(v, "false", 5)))
                c->expandable = false;
            else {
                snprintf(err, err_n, "CT_ALLOC_CONF: expandable_segments:%.*s; want True or False",
                         (int)vl, v);
                return false;
            }
        } else if (kl == 17 && !strncmp(s, "max_split_size_mb", kl)) {
            if (!ca_num(v, vl, &num) || num <= 20) {
                snprintf(err, err_n,
                         "CT_ALLOC_CONF: max_split_size_mb:%.*s; want a whole number > 20 (the "
                         "large pool's segment size)",
                         (int)vl, v);
                return false;
            }
            c->max_split = num << 20;
        } else if (kl == 15 && !strncmp(s, "memory_limit_mb", kl)) {
            if (!ca_num(v, vl, &num) || num < 1) {
                snprintf(err, err_n,
                         "CT_ALLOC_CONF: memory_limit_mb:%.*s; want a whole number >= 1", (int)vl,
                         v);
                return false;
            }
            c->limit = num << 20;
        } else {
            snprintf(err, err_n,
                     "CT_ALLOC_CONF: unknown key \"%.*s\" (known: expandable_segments, "
                     "max_split_size_mb, memory_limit_mb)",
                     (int)kl, s);
            return false;
        }
        s = end ? end + 1 : NULL;
    }
    return true;
}

/* ---- summary and snapshot ---- */

typedef struct {
    char *p;
    size_t n, cap;
    bool fail;
} ca_buf;
static void ca_put(ca_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ca_put(ca_buf *b, const char *fmt, ...) {
    if (b->fail) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int w = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->fail = true;
            return;
        }
        if (b->p && b->n + (size_t)w < b->cap) {
            b->n += (size_t)w;
            return;
        }
        const size_t nc = (b->cap + (size_t)w + 1) * 2;
        char *q = realloc(b->p, nc);
        if (!q) {
            b->fail = true;
            return;
        }
        b->p = q, b->cap = nc;
    }
}

static void ca_row(ca_buf *b, const char *name, const ct_mem_stat *s, bool bytes) {
    static const char *const sub[3] = {"", "  from small pool", "  from large pool"};
    for (int k = 0; k < 3; k++) {
        char c[4][24];
        const int64_t v[4] = {s[k].current, s[k].peak, s[k].allocated, s[k].freed};
        for (int i = 0; i < 4; i++) {
            if (bytes)
                ca_fmt_mib(c[i], sizeof c[i], v[i]);
            else
                snprintf(c[i], sizeof c[i], "%lld", (long long)v[i]);
        }
        ca_put(b, "| %-26s | %14s | %14s | %14s | %14s |\n", k ? sub[k] : name, c[0], c[1], c[2],
               c[3]);
    }
}

char *ct__calloc_summary(ct__calloc *a) {
    ct_mem_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    ct__calloc_stats(a, &s);
    ca_buf b = {0};
    const char *line =
        "|============================================================================"
        "===============|\n";
    ca_put(&b, "%s", line);
    ca_put(&b,
           "| ctorch caching allocator: expandable_segments %-5s  max_split %-10s limit %-14s |\n",
           s.expandable_segments ? "True" : "False", s.max_split_size < 0 ? "none" : "set",
           s.memory_limit < 0 ? "none" : "set");
    ca_put(&b, "%s", line);
    ca_put(&b, "| %-26s | %14s | %14s | %14s | %14s |\n", "Metric", "Cur Usage", "Peak Usage",
           "Tot Alloc", "Tot Freed");
    ca_put(&b, "%s", line);
    ca_row(&b, "Allocated memory", s.allocated_bytes, true);
    ca_row(&b, "Active memory", s.active_bytes, true);
    ca_row(&b, "Requested memory", s.requested_bytes, true);
    ca_row(&b, "Reserved memory", s.reserved_bytes, true);
    ca_row(&b, "Non-releasable memory", s.inactive_split_bytes, true);
    ca_row(&b, "Allocations", s.allocation, false);
    ca_row(&b, "Active allocs", s.active, false);
    ca_row(&b, "Reserved segments", s.segment, false);
    ca_row(&b, "Non-releasable allocs", s.inactive_split, false);
    ca_put(&b, "%s", line);
    ca_put(&b, "| Allocation retries %-10lld OOMs %-10lld segment maps %-10lld unmaps %-10lld |\n",
           (long long)s.num_alloc_retries, (long long)s.num_ooms, (long long)s.num_segment_allocs,
           (long long)s.num_segment_frees);
    ca_put(&b, "%s", line);
    if (b.fail) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

static void ca_snap_seg(const ct__calloc *a, ca_buf *b, const ca_seg *s, bool *first) {
    const ca_pset *q = s->set ? ca_set_of(a, s->set) : NULL;
    const bool stream = q && q->stream;
    ca_put(b,
           "%s\n  {\"address\": %llu, \"total_size\": %zu, \"reserved_size\": %zu, "
           "\"pool\": \"%s\", \"private_pool\": %d, \"expandable\": %s, \"stream\": %llu, "
           "\"blocks\": [",
           *first ? "" : ",", (unsigned long long)(uintptr_t)s->base, s->size,
           s->expandable ? s->reserved : s->size, s->pool ? "large" : "small", stream ? 0 : s->set,
           s->expandable ? "true" : "false", stream ? (unsigned long long)q->skey : 0ull);
    *first = false;
    bool bf = true;
    for (const ca_blk *x = s->head; x; x = x->next) {
        ca_put(b,
               "%s\n    {\"address\": %llu, \"size\": %zu, \"requested_size\": %zu, \"state\": "
               "\"%s\"}",
               bf ? "" : ",", (unsigned long long)(uintptr_t)x->ptr, x->size, x->req,
               x->used ? "active_allocated" : "inactive");
        bf = false;
    }
    ca_put(b, "]}");
}

bool ct__calloc_snapshot(ct__calloc *a, FILE *f) {
    ca_buf b = {0};
    ca_lock(a);
    ca_put(&b, "{\"segments\": [");
    bool first = true;
    for (int p = 0; p < 2; p++) {
        for (const ca_seg *s = a->pool[p].segs; s; s = s->snext)
            ca_snap_seg(a, &b, s, &first);
        if (a->pool[p].exp && a->pool[p].exp->size) ca_snap_seg(a, &b, a->pool[p].exp, &first);
        for (const ca_pset *q = a->psets; q; q = q->next) {
            for (const ca_seg *s = q->pool[p].segs; s; s = s->snext)
                ca_snap_seg(a, &b, s, &first);
            if (q->pool[p].exp && q->pool[p].exp->size) ca_snap_seg(a, &b, q->pool[p].exp, &first);
        }
    }
    ca_fold_all(&a->st);
    const ct_mem_stats *st = &a->st;
    ca_put(&b,
           "\n], \"allocated_bytes\": %lld, \"reserved_bytes\": %lld, \"num_alloc_retries\": "
           "%lld, \"num_ooms\": %lld}\n",
           (long long)st->allocated_bytes[0].current, (long long)st->reserved_bytes[0].current,
           (long long)st->num_alloc_retries, (long long)st->num_ooms);
    ca_unlock(a);
    const bool ok = !b.fail && fwrite(b.p, 1, b.n, f) == b.n;
    free(b.p);
    return ok;
}

/* ---- the CPU's segment calls ---- */

static void *cpu_map(void *u, size_t n) {
    (void)u;
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
static void cpu_unmap(void *u, void *p, size_t n) {
    (void)u;
    munmap(p, n);
}
static void *cpu_reserve(void *u, size_t n) {
    (void)u;
    void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}
static bool cpu_commit(void *u, void *p, size_t n) {
    (void)u;
    return mprotect(p, n, PROT_READ | PROT_WRITE) == 0;
}
static void cpu_decommit(void *u, void *p, size_t n) {
    (void)u;
    madvise(p, n, MADV_DONTNEED); /* the pages go back to the OS */
    mprotect(p, n, PROT_NONE);
}
const ct__vm_ops ct__vm_ops_cpu = {sizeof(ct_vm_ops), NULL,       cpu_map,      cpu_unmap,
                                   cpu_reserve,       cpu_commit, cpu_decommit, cpu_unmap};

/* Device-agnostic graph front end: capture state, the graph memory pool, capture errors, cond.
 * It talks to backends only through their ct_graph_impl table. */
#include "core/calloc.h"
#include "graph/graph_tape.h"
#include "ctorch/graph.h"
#include "ctorch/ops.h"
#include "ops/dispatch.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ct_graph_pool {
    int64_t refcount;
    ct_ctx *ctx;
    int slot;
    void **host; /* host blocks (CPU tensors: header + data) */
    size_t nhost, caphost;
    void **dev; /* device data of non-CPU tensors */
    size_t ndev, capdev;
    int cpool; /* the caching allocator's private pool of the host blocks (0: none) */
};

enum { G_EMPTY, G_CAPTURING, G_CAPTURED, G_READY };
#define CT__MAX_FORK 64

struct ct_graph {
    ct__capture cap; /* first member: the lower layers hold &g->cap */
    ct_ctx *ctx;
    ct_device device;
    int slot;
    const ct_graph_impl *impl;
    void *gs;
    ct_graph_options opts;
    ct_graph_pool *pool;
    int state;
    ct_status error;
    char errmsg[512];
    ct_tensor **kept; /* tensors recorded ops use, kept alive until reset */
    size_t nkept, capkept;
    uint64_t serial; /* this capture's number (events recorded in it carry it) */
    /* streams forked into the capture by ct_event_wait, with their submission count when an event
     * recorded on them was last waited on by a capturing stream (-1: never joined) */
    ct_stream *fork[CT__MAX_FORK];
    int64_t fork_joined[CT__MAX_FORK];
    int nfork;
    ct_graph_mem_stats mem; /* of the last instantiation */
    ct__tape_entry *tape;   /* the capture's record for export (graph/graph_tape.h) */
    int64_t ntape, captape;
};

/* ---- pool ---- */
static bool ct__grow(ct_ctx *ctx, void ***arr, size_t *cap, size_t need) {
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void **na = ct__alloc(ctx, nc * sizeof(void *), 16);
    if (!na) return false;
    if (*arr) memcpy(na, *arr, *cap * sizeof(void *));
    ct__free(ctx, *arr);
    *arr = na;
    *cap = nc;
    return true;
}

static void ct__pool_ref(void *p) { ((ct_graph_pool *)p)->refcount++; }
static void ct__pool_unref(void *pv) {
    ct_graph_pool *p = pv;
    if (--p->refcount > 0) return;
    ct_ctx *ctx = p->ctx;
    ct__backend_slot *b = &ctx->backends[p->slot];
    for (size_t i = 0; i < p->ndev; i++)
        if (p->dev[i]) b->vt.free(b->vt.state, p->dev[i]); /* NULL: freed by the memory plan */
    for (size_t i = 0; i < p->nhost; i++)
        ct__free(ctx, p->host[i]);
    if (p->cpool) ct__calloc_private_release(ctx->calloc, p->cpool); /* its segments go */
    ct__free(ctx, p->dev);
    ct__free(ctx, p->host);
    ct__free(ctx, p);
}

/* Pool memory is never handed out twice: a block freed during capture may still be read by a
 * later recorded op, and replays rerun everything on the same addresses. */
static void *ct__pool_alloc_host(ct__capture *c, size_t n) {
    ct_graph *g = (ct_graph *)c;
    ct_graph_pool *p = g->pool;
    if (!ct__grow(g->ctx, &p->host, &p->caphost, p->nhost + 1)) return NULL;
    void *b =
        p->cpool ? ct__calloc_alloc_in(g->ctx->calloc, p->cpool, n) : ct__alloc(g->ctx, n, 64);
    if (b) p->host[p->nhost++] = b;
    return b;
}
static ct_status ct__pool_alloc_dev(ct__capture *c, size_t n, void **ptr) {
    ct_graph *g = (ct_graph *)c;
    ct_graph_pool *p = g->pool;
    ct__backend_slot *b = &g->ctx->backends[p->slot];
    if (!ct__grow(g->ctx, &p->dev, &p->capdev, p->ndev + 1)) return CT_ERR_OOM;
    ct_status st = b->vt.alloc(b->vt.state, n, ptr);
    if (st == CT_OK) p->dev[p->ndev++] = *ptr;
    return st;
}

/* ---- capture callbacks ---- */
static void ct__cap_invalidate(ct__capture *c, ct_status st, const char *msg) {
    ct_graph *g = (ct_graph *)c;
    if (g->error != CT_OK) return;
    g->error = st;
    if (msg && msg[0])
        snprintf(g->errmsg, sizeof g->errmsg, "%s", msg);
    else /* a failure without a message (e.g. a cond branch returning a bare status) */
        snprintf(g->errmsg, sizeof g->errmsg, "an op failed during capture with status %d (%s)",
                 (int)st, ct_status_str(st));
}

static ct_status ct__keep(ct_graph *g, ct_tensor *t) {
    if (!t) return CT_OK;
    if (!ct__grow(g->ctx, (void ***)&g->kept, &g->capkept, g->nkept + 1)) return CT_ERR_OOM;
    g->kept[g->nkept++] = ct_tensor_retain(t);
    return CT_OK;
}

static bool ct__cap_sole_owner(ct__capture *c, const ct_tensor *t) {
    const ct_graph *g = (const ct_graph *)c;
    const ct__storage *s = t->storage;
    int64_t t_kept = 0, others = 0;
    for (size_t i = 0; i < g->nkept; i++) {
        const ct_tensor *k = g->kept[i];
        if (k->storage != s) continue;
        if (k == t) {
            t_kept++;
            continue;
        }
        bool first = true; /* count each other tensor once, with the times it is kept */
        for (size_t j = 0; j < i && first; j++)
            first = g->kept[j] != k;
        if (!first) continue;
        int64_t times = 0;
        for (size_t j = i; j < g->nkept; j++)
            times += g->kept[j] == k;
        if (k->refcount != times) return false; /* someone outside the graph holds it */
        others++;
    }
    return t->refcount == 1 + t_kept && s->refcount == 1 + others;
}

/* Append an entry to the tape (op: its descriptor, or the predicate operand in operands[0]). */
static ct_status ct__tape_push(ct_graph *g, int kind, const ct_op_desc *op,
                               const ct_operand *pred) {
    if (g->ntape == g->captape) {
        int64_t nc = g->captape ? g->captape * 2 : 16;
        ct__tape_entry *nt = ct__alloc(g->ctx, (size_t)nc * sizeof *nt, 64);
        if (!nt) return ct__set_error(g->ctx, CT_ERR_OOM, "graph: out of memory recording an op");
        if (g->ntape) memcpy(nt, g->tape, (size_t)g->ntape * sizeof *nt);
        ct__free(g->ctx, g->tape);
        g->tape = nt;
        g->captape = nc;
    }
    ct__tape_entry *e = &g->tape[g->ntape++];
    e->kind = kind;
    if (op)
        e->op = *op;
    else {
        memset(&e->op, 0, sizeof e->op);
        if (pred) e->op.operands[0] = *pred, e->op.n_in = 1;
    }
    return CT_OK;
}

static ct_status ct__cap_record(ct__capture *c, const ct_op_desc *op) {
    ct_graph *g = (ct_graph *)c;
    ct_ctx *ctx = g->ctx;
    if (g->error != CT_OK)
        return ct__set_error(ctx, CT_ERR_STATE, "%s: the capture was invalidated earlier: %s",
                             ct_op_name(op->kind), g->errmsg);
    ct_status st = CT_OK;
    for (int i = 0; i < op->n_out + op->n_in && st == CT_OK; i++) {
        const ct_tensor *t = op->operands[i].tensor;
        if (t && (t->storage->device.type != g->device.type ||
                  t->storage->device.index != g->device.index)) {
            char d1[CT_DEVICE_NAME_MAX], d2[CT_DEVICE_NAME_MAX];
            st = ct__set_error(
                ctx, CT_ERR_DEVICE, "%s: operand %d is on device %s, the capture on %s",
                ct_op_name(op->kind), i, ct_device_format(ctx, t->storage->device, d1, sizeof d1),
                ct_device_format(ctx, g->device, d2, sizeof d2));
        } else
            st = ct__keep(g, op->operands[i].tensor);
    }
    if (st == CT_OK) st = g->impl->record(g->gs, op);
    if (st == CT_OK) st = ct__tape_push(g, CT__TAPE_OP, op, NULL);
    if (st == CT_ERR_OOM && !ctx->err[0])
        ct__set_error(ctx, st, "graph: out of memory recording an op");
    if (st != CT_OK) {
        if (!ctx->err[0])
            ct__set_error(ctx, st, "graph: recording %s failed", ct_op_name(op->kind));
        ct__cap_invalidate(c, st, ctx->err);
    }
    return st;
}

/* ---- public API ---- */
static uint64_t ct__next_serial(void) {
    static _Atomic uint64_t serial;
    return ++serial;
}

static void ct__unfork(ct_graph *g) {
    for (int i = 0; i < g->nfork; i++)
        g->fork[i]->capture = NULL;
    g->nfork = 0;
}

static void ct__stream_gone(ct__capture *c, ct_stream *s) {
    ct_graph *g = (ct_graph *)c;
    for (int i = 0; i < g->nfork; i++)
        if (g->fork[i] == s) {
            g->fork[i] = g->fork[--g->nfork];
            g->fork_joined[i] = g->fork_joined[g->nfork];
            break;
        }
}

ct_status ct_graph_create(ct_ctx *ctx, ct_device device, const ct_graph_options *opts,
                          ct_graph **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "graph_create: out is NULL");
    *out = NULL;
    ct_graph_options o = {sizeof o, false, NULL, CT_CAPTURE_DEFAULT};
    if (opts) {
        if (opts->size == 0 || opts->size > sizeof o)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "graph_create: bad options size %zu",
                                 opts->size);
        memcpy(&o, opts, opts->size);
    }
    if ((int)o.capture_error_mode < 0 || o.capture_error_mode > CT_CAPTURE_RELAXED)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "graph_create: bad capture_error_mode %d",
                             (int)o.capture_error_mode);
    ct__backend_slot *b = ct__backend_for(ctx, device);
    if (!b) return CT_ERR_DEVICE;
    const ct_graph_impl *impl = b->vt.graph_impl;
    if (!impl) {
        char dn[CT_DEVICE_NAME_MAX];
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "graph capture is not supported on device %s (backend '%s')",
                             ct_device_format(ctx, device, dn, sizeof dn), b->vt.name);
    }
    if (impl->abi_version != CT_GRAPH_IMPL_ABI_VERSION ||
        impl->size < offsetof(ct_graph_impl, loop_begin)) /* the loop hooks are optional */
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "graph_create: backend '%s' graph ABI %u, library expects %u",
                             b->vt.name, impl->abi_version, CT_GRAPH_IMPL_ABI_VERSION);
    if (o.pool && (o.pool->ctx != ctx || o.pool->slot != (int)(b - ctx->backends)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "graph_create: the shared pool belongs to another device");
    ct_graph *g = ct__alloc(ctx, sizeof *g, 64);
    if (!g) return ct__set_error(ctx, CT_ERR_OOM, "graph_create: out of memory");
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->device = device;
    g->slot = (int)(b - ctx->backends);
    g->impl = impl;
    g->opts = o;
    if (o.pool) {
        g->pool = o.pool;
        ct__pool_ref(o.pool);
    } else {
        g->pool = ct__alloc(ctx, sizeof *g->pool, 16);
        if (!g->pool) {
            ct__free(ctx, g);
            return ct__set_error(ctx, CT_ERR_OOM, "graph_create: out of memory");
        }
        memset(g->pool, 0, sizeof *g->pool);
        g->pool->refcount = 1;
        g->pool->ctx = ctx;
        g->pool->slot = g->slot;
        /* graph memory from a private pool of the caching allocator: segments of its own */
        if (ctx->calloc && g->slot == 0) g->pool->cpool = ct__calloc_private_create(ctx->calloc);
    }
    ct_status st = impl->create(b->vt.state, &g->gs);
    if (st != CT_OK) {
        ct__pool_unref(g->pool);
        ct__free(ctx, g);
        return ct__set_error(ctx, st, "graph_create: backend '%s' could not create a graph (%s)",
                             b->vt.name, st == CT_ERR_OOM ? "out of memory" : ct_status_str(st));
    }
    g->cap.record = ct__cap_record;
    g->cap.pool_alloc_host = ct__pool_alloc_host;
    g->cap.pool_alloc_dev = ct__pool_alloc_dev;
    g->cap.pool = g->pool;
    g->cap.pool_ref = ct__pool_ref;
    g->cap.pool_unref = ct__pool_unref;
    g->cap.invalidate = ct__cap_invalidate;
    g->cap.stream_gone = ct__stream_gone;
    g->cap.sole_owner = ct__cap_sole_owner;
    g->cap.mode = (int)o.capture_error_mode;
    *out = g;
    return CT_OK;
}

ct_status ct_graph_capture_begin(ct_graph *g, ct_stream *stream) {
    if (!g) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = g->ctx;
    ct__backend_slot *b = &ctx->backends[g->slot];
    if (!stream) stream = b->default_stream;
    if (stream->ctx != ctx || stream->slot != g->slot)
        return ct__set_error_keep_capture(ctx, CT_ERR_INVALID_ARG,
                                          "capture_begin: the stream is on another device");
    if (stream->capture)
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE,
                                          "capture_begin: the stream is already capturing a graph");
    if (b->capture) {
        char dn[CT_DEVICE_NAME_MAX];
        return ct__set_error_keep_capture(
            ctx, CT_ERR_STATE,
            "capture_begin: device %s is already capturing (one capture per device at a time)",
            ct_device_format(ctx, g->device, dn, sizeof dn));
    }
    if (g->state != G_EMPTY)
        return ct__set_error_keep_capture(
            ctx, CT_ERR_STATE, "capture_begin: the graph already holds a capture; reset it first");
    ct_status st = g->impl->capture_begin(g->gs);
    if (st != CT_OK)
        return ct__set_error_keep_capture(ctx, st, "capture_begin: backend '%s' refused",
                                          b->vt.name);
    g->error = CT_OK;
    g->errmsg[0] = '\0';
    g->serial = ct__next_serial();
    g->nfork = 0;
    g->cap.stream = stream;
    stream->capture = &g->cap;
    b->capture = &g->cap;
    b->saved_current = b->current;
    b->current = stream;
    g->state = G_CAPTURING;
    return CT_OK;
}

ct_status ct_graph_capture_end(ct_graph *g) {
    if (!g) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = g->ctx;
    if (g->state != G_CAPTURING)
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE,
                                          "capture_end: the graph is not capturing");
    ct__backend_slot *b = &ctx->backends[g->slot];
    /* every stream forked in must have been joined back after its last op (the CUDA rule) */
    for (int i = 0; i < g->nfork && g->error == CT_OK; i++)
        if (g->fork_joined[i] < (int64_t)g->fork[i]->nsubmit) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "stream %p (forked into the capture %s by ct_event_wait) was not joined back: "
                     "record an event on it after its last op and wait on it from the capturing "
                     "stream before capture_end",
                     (void *)g->fork[i],
                     i == 0   ? "first"
                     : i == 1 ? "second"
                              : "later");
            ct__cap_invalidate(&g->cap, CT_ERR_STATE, msg);
        }
    ct__unfork(g);
    ct_status st = g->impl->capture_end(g->gs);
    if (g->cap.stream) g->cap.stream->capture = NULL;
    b->capture = NULL;
    b->current = b->saved_current;
    b->saved_current = NULL;
    g->state = G_CAPTURED;
    if (st != CT_OK && g->error == CT_OK)
        ct__cap_invalidate(&g->cap, st, "backend capture_end failed");
    if (g->error != CT_OK)
        return ct__set_error_keep_capture(
            ctx, g->error, "capture_end: the capture was invalidated: %s", g->errmsg);
    if (!g->opts.keep_graph) return ct_graph_instantiate(g);
    return CT_OK;
}

static int ct__cmp_ptr(const void *a, const void *b) {
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    const ct__storage *s;
    bool private_tensor;
} ct__st_ref;
static int ct__cmp_st_ref(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const ct__st_ref *)a)->s, y = (uintptr_t)((const ct__st_ref *)b)->s;
    return x < y ? -1 : x > y;
}

/* Free a pool block the memory plan moved (pool->host or pool->dev holds it). `sorted` lists the
 * pool's blocks by address with their index in the pool array. */
typedef struct {
    void *p;
    size_t i;
} ct__blk;
static int ct__cmp_blk(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const ct__blk *)a)->p, y = (uintptr_t)((const ct__blk *)b)->p;
    return x < y ? -1 : x > y;
}

/* The graph-private buffers: storages served by this graph's pool whose every reference comes
 * from tensors that only the graph holds (each kept tensor's refcount equals the times it is kept,
 * and the storage's refcount equals the number of such tensors on it). The backend plans them;
 * the memory of each one it moved is freed here. */
static ct_status ct__instantiate_planned(ct_graph *g) {
    ct_ctx *ctx = g->ctx;
    size_t n = g->nkept;
    ct_tensor **ts = n ? ct__alloc(ctx, n * sizeof *ts, 16) : NULL;
    ct__st_ref *refs = n ? ct__alloc(ctx, n * sizeof *refs, 16) : NULL;
    ct_graph_buffer *bufs = n ? ct__alloc(ctx, n * sizeof *bufs, 16) : NULL;
    if (n && (!ts || !refs || !bufs)) {
        ct__free(ctx, ts), ct__free(ctx, refs), ct__free(ctx, bufs);
        return CT_ERR_OOM;
    }
    if (n) memcpy(ts, g->kept, n * sizeof *ts);
    if (n > 1) qsort(ts, n, sizeof *ts, ct__cmp_ptr);
    size_t nr = 0, nb = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && ts[j] == ts[i])
            j++;
        refs[nr++] = (ct__st_ref){ts[i]->storage, ts[i]->refcount == (int64_t)(j - i)};
        i = j;
    }
    if (nr > 1) qsort(refs, nr, sizeof *refs, ct__cmp_st_ref);
    for (size_t i = 0; i < nr;) {
        size_t j = i;
        bool all = true;
        while (j < nr && refs[j].s == refs[i].s)
            all = all && refs[j].private_tensor, j++;
        const ct__storage *s = refs[i].s;
        if (all && s->refcount == (int64_t)(j - i) && s->pool == (void *)g->pool && !s->blob &&
            s->nbytes > 0 && s->data)
            bufs[nb++] = (ct_graph_buffer){s->data, s->nbytes, false};
        i = j;
    }
    ct_status st = g->impl->instantiate_planned(g->gs, bufs, (int64_t)nb, &g->mem);
    g->mem.size = sizeof g->mem;
    size_t nmoved = 0;
    for (size_t i = 0; st == CT_OK && i < nb; i++)
        nmoved += bufs[i].moved;
    if (st == CT_OK && nmoved) {
        /* find each moved buffer's block in the pool (by address) and free it */
        ct_graph_pool *p = g->pool;
        bool cpu = g->device.type == CT_DEVICE_CPU;
        void **arr = cpu ? p->host : p->dev;
        size_t na = cpu ? p->nhost : p->ndev;
        ct__blk *blk = ct__alloc(ctx, (na ? na : 1) * sizeof *blk, 16);
        if (blk) {
            size_t m = 0;
            for (size_t i = 0; i < na; i++)
                if (arr[i]) blk[m++] = (ct__blk){arr[i], i};
            qsort(blk, m, sizeof *blk, ct__cmp_blk);
            ct__backend_slot *b = &ctx->backends[g->slot];
            for (size_t i = 0; i < nb; i++) {
                if (!bufs[i].moved) continue;
                ct__blk key = {bufs[i].data, 0},
                        *f = bsearch(&key, blk, m, sizeof *blk, ct__cmp_blk);
                if (!f || !arr[f->i]) continue; /* not a pool block of its own: left in place */
                if (cpu)
                    ct__free(ctx, arr[f->i]);
                else
                    b->vt.free(b->vt.state, arr[f->i]);
                arr[f->i] = NULL;
            }
            ct__free(ctx, blk);
        } /* without memory for the index the moved blocks stay allocated until the pool goes */
    }
    ct__free(ctx, ts), ct__free(ctx, refs), ct__free(ctx, bufs);
    return st;
}

ct_status ct_graph_instantiate(ct_graph *g) {
    if (!g) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = g->ctx;
    if (g->state == G_READY) return CT_OK;
    if (g->state != G_CAPTURED)
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE, "instantiate: nothing captured yet");
    if (g->error != CT_OK)
        return ct__set_error_keep_capture(
            ctx, CT_ERR_STATE, "instantiate: the capture was invalidated: %s", g->errmsg);
    ct_status st;
    memset(&g->mem, 0, sizeof g->mem);
    g->mem.size = sizeof g->mem;
    if (g->impl->size >= offsetof(ct_graph_impl, instantiate_planned) + sizeof(void *) &&
        g->impl->instantiate_planned)
        st = ct__instantiate_planned(g);
    else
        st = g->impl->instantiate(g->gs);
    if (st != CT_OK)
        return ct__set_error_keep_capture(ctx, st, "instantiate: the backend failed (%s)",
                                          st == CT_ERR_OOM ? "out of memory" : ct_status_str(st));
    g->state = G_READY;
    return CT_OK;
}

ct_status ct_graph_mem_stats_get(ct_graph *g, ct_graph_mem_stats *out) {
    if (!g) return CT_ERR_INVALID_ARG;
    if (!out || out->size == 0 || out->size > sizeof *out)
        return ct__set_error_keep_capture(g->ctx, CT_ERR_INVALID_ARG,
                                          "graph_mem_stats: out is NULL or out->size is %zu "
                                          "(set it to sizeof(ct_graph_mem_stats))",
                                          out ? out->size : (size_t)0);
    if (g->state != G_READY) {
        ct_status st = ct_graph_instantiate(g);
        if (st != CT_OK) return st;
    }
    size_t sz = out->size;
    memcpy(out, &g->mem, sz);
    out->size = sz;
    return CT_OK;
}

ct_status ct_graph_replay(ct_graph *g) {
    if (!g) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = g->ctx;
    if (g->state != G_READY) {
        ct_status st = ct_graph_instantiate(g);
        if (st != CT_OK) return st;
    }
    if (ct__any_capture(ctx))
        return ct__set_error_keep_capture(
            ctx, CT_ERR_STATE, "replay: cannot replay a graph while another capture is active");
    ct_status st = g->impl->replay(g->gs);
    if (st != CT_OK && !ctx->err[0])
        ct__set_error_keep_capture(ctx, st, "replay: the backend failed");
    return st;
}

int64_t ct_graph_num_nodes(const ct_graph *g) { return g ? g->impl->num_nodes(g->gs) : 0; }

static void ct__release_kept(ct_graph *g) {
    for (size_t i = 0; i < g->nkept; i++)
        ct_tensor_release(g->kept[i]);
    g->nkept = 0;
}

ct_status ct_graph_reset(ct_graph *g) {
    if (!g) return CT_ERR_INVALID_ARG;
    if (g->state == G_CAPTURING)
        return ct__set_error_keep_capture(g->ctx, CT_ERR_STATE, "reset: end the capture first");
    ct_status st = g->impl->reset(g->gs);
    ct__release_kept(g);
    g->ntape = 0;
    g->state = G_EMPTY;
    g->error = CT_OK;
    g->errmsg[0] = '\0';
    return st;
}

ct_graph_pool *ct_graph_pool_of(ct_graph *g) { return g ? g->pool : NULL; }

ct_status ct_graph_debug_dump(ct_graph *g, const char *path) {
    if (!g) return CT_ERR_INVALID_ARG;
    if (!path)
        return ct__set_error_keep_capture(g->ctx, CT_ERR_INVALID_ARG, "debug_dump: path is NULL");
    ct_status st = g->impl->debug_dump(g->gs, path);
    if (st != CT_OK)
        return ct__set_error_keep_capture(g->ctx, st, "debug_dump: cannot write '%s'", path);
    return CT_OK;
}

void ct_graph_free(ct_graph *g) {
    if (!g) return;
    ct_ctx *ctx = g->ctx;
    if (g->state == G_CAPTURING) {
        ct__backend_slot *b = &ctx->backends[g->slot];
        g->impl->capture_end(g->gs);
        ct__unfork(g);
        if (g->cap.stream) g->cap.stream->capture = NULL;
        b->capture = NULL;
        b->current = b->saved_current;
        b->saved_current = NULL;
    }
    g->impl->reset(g->gs);
    ct__release_kept(g);
    g->impl->destroy(g->gs);
    ct__free(ctx, g->kept);
    ct__free(ctx, g->tape);
    ct__pool_unref(g->pool);
    ct__free(ctx, g);
}

bool ct_stream_is_capturing(const ct_stream *s) { return s && s->capture; }

/* ---- cond ---- */
static ct_status ct__cond_check_outputs(ct_ctx *ctx, int n, ct_tensor **outs, const char *which) {
    for (int i = 0; i < n; i++)
        if (!outs[i])
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "cond: the %s branch left output %d NULL",
                                 which, i);
    return CT_OK;
}

ct_status ct_cond(ct_ctx *ctx, const ct_tensor *pred, ct_cond_fn true_fn, ct_cond_fn false_fn,
                  void *user_data, int n_operands, ct_tensor *const *operands, int n_outputs,
                  ct_tensor **outputs) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx); /* a branch failing without a message must not show a stale one */
    if (!pred || !true_fn || !false_fn || n_operands < 0 || n_outputs < 0 ||
        (n_operands > 0 && !operands) || (n_outputs > 0 && !outputs))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "cond: NULL or negative argument");
    if (n_outputs > (1 << 24)) /* keeps 2 * n_outputs + 1 branch slots in int range */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "cond: n_outputs %d is more than %d",
                             n_outputs, 1 << 24);
    if (pred->magic != CT__TENSOR_MAGIC)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "cond: pred is not a live tensor");
    for (int i = 0; i < n_operands; i++)
        if (ct__check_tensor(ctx, "cond", "an operand", operands[i]) != CT_OK)
            return CT_ERR_INVALID_ARG;
    if (pred->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "cond: pred belongs to another context");
    if (ct_tensor_numel(pred) != 1 || !ct__is_compute_dtype(pred->dtype))
        return ct__set_error(ctx, CT_ERR_SHAPE, "cond: pred must hold one element, got %s %s",
                             ct_dtype_name(pred->dtype), CT__SHAPE_STR(pred));
    for (int i = 0; i < n_outputs; i++)
        outputs[i] = NULL;
    ct__backend_slot *b = &ctx->backends[pred->storage->slot];
    ct__capture *cap = b->capture;
    if (!cap) {
        double v;
        ct_status st = ct_tensor_item(pred, &v);
        if (st != CT_OK) return st;
        st =
            (v != 0 ? true_fn : false_fn)(ctx, user_data, n_operands, operands, n_outputs, outputs);
        if (st == CT_OK)
            st = ct__cond_check_outputs(ctx, n_outputs, outputs, v != 0 ? "true" : "false");
        if (st != CT_OK) /* same contract as under capture: no outputs on failure */
            for (int i = 0; i < n_outputs; i++) {
                ct_tensor_release(outputs[i]);
                outputs[i] = NULL;
            }
        return st;
    }
    ct_graph *g = (ct_graph *)cap;
    if (g->error != CT_OK)
        return ct__set_error(ctx, CT_ERR_STATE, "cond: the capture was invalidated earlier: %s",
                             g->errmsg);
    ct_tensor **br = ct__alloc(ctx, sizeof(ct_tensor *) * ((size_t)n_outputs * 2 + 1), 16);
    if (!br) /* ct__set_error invalidates the capture */
        return ct__set_error(ctx, CT_ERR_OOM, "cond: out of memory for %d branch outputs",
                             2 * n_outputs);
    ct_tensor **t_out = br, **f_out = br + n_outputs;
    for (int i = 0; i < 2 * n_outputs; i++)
        br[i] = NULL;
    ct_operand po;
    ct__operand_set(&po, pred);
    ct_status st = ct__keep(g, (ct_tensor *)pred);
    if (st == CT_OK) st = g->impl->add_conditional(g->gs, &po);
    if (st == CT_OK) st = ct__tape_push(g, CT__TAPE_COND, NULL, &po);
    bool opened = st == CT_OK;
    if (st == CT_OK) st = g->impl->cond_branch(g->gs, 1);
    if (st == CT_OK) st = true_fn(ctx, user_data, n_operands, operands, n_outputs, t_out);
    if (st != CT_OK && !ctx->err[0])
        ct__set_error(ctx, st, "cond: the true branch failed with status %d (%s)", (int)st,
                      ct_status_str(st));
    if (st == CT_OK) st = ct__cond_check_outputs(ctx, n_outputs, t_out, "true");
    /* the node's outputs: fixed memory both branches copy into */
    for (int i = 0; i < n_outputs && st == CT_OK; i++)
        st = ct__tensor_new(ctx, t_out[i]->storage->device, t_out[i]->dtype, t_out[i]->ndim,
                            t_out[i]->shape, &outputs[i]);
    for (int i = 0; i < n_outputs && st == CT_OK; i++)
        st = ct_tensor_copy_(ctx, outputs[i], t_out[i]);
    if (st == CT_OK) st = g->impl->cond_branch(g->gs, 0);
    if (st == CT_OK) st = ct__tape_push(g, CT__TAPE_ELSE, NULL, NULL);
    if (st == CT_OK) st = false_fn(ctx, user_data, n_operands, operands, n_outputs, f_out);
    if (st != CT_OK && !ctx->err[0])
        ct__set_error(ctx, st, "cond: the false branch failed with status %d (%s)", (int)st,
                      ct_status_str(st));
    if (st == CT_OK) st = ct__cond_check_outputs(ctx, n_outputs, f_out, "false");
    for (int i = 0; i < n_outputs && st == CT_OK; i++) {
        const ct_tensor *a = t_out[i], *c = f_out[i];
        bool same = a->dtype == c->dtype && a->ndim == c->ndim &&
                    memcmp(a->shape, c->shape, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
                    a->storage->device.type == c->storage->device.type;
        if (!same) {
            char b1[96];
            st = ct__set_error(
                ctx, CT_ERR_SHAPE,
                "cond: output %d is %s %s in the true branch but %s %s in the false branch", i,
                ct_dtype_name(a->dtype), CT__SHAPE_STR(a), ct_dtype_name(c->dtype),
                ct__shape_str(b1, sizeof b1, c->ndim, c->shape));
        }
    }
    for (int i = 0; i < n_outputs && st == CT_OK; i++)
        st = ct_tensor_copy_(ctx, outputs[i], f_out[i]);
    if (opened) {
        ct_status e = g->impl->cond_end(g->gs);
        if (e == CT_OK) e = ct__tape_push(g, CT__TAPE_COND_END, NULL, NULL);
        if (st == CT_OK) st = e;
    }
    for (int i = 0; i < 2 * n_outputs; i++)
        ct_tensor_release(br[i]);
    ct__free(ctx, br);
    if (st != CT_OK) {
        for (int i = 0; i < n_outputs; i++) {
            ct_tensor_release(outputs[i]);
            outputs[i] = NULL;
        }
        if (!ctx->err[0]) /* a backend hook failed without a message */
            ct__set_error(ctx, st, "cond: recording the conditional failed (%s)",
                          ct_status_str(st));
        ct__cap_invalidate(cap, st, ctx->err);
    }
    return st;
}

/* ---- while_loop ---- */

/* Every next value has its carried value's dtype, shape and device. */
static ct_status ct__loop_check(ct_ctx *ctx, int n, ct_tensor *const *carried, ct_tensor **next) {
    for (int i = 0; i < n; i++) {
        const ct_tensor *a = carried[i], *b = next[i];
        if (!b || b->magic != CT__TENSOR_MAGIC)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "while_loop: the body left carried value %d %s", i,
                                 b ? "as a dead tensor" : "NULL");
        bool same = a->dtype == b->dtype && a->ndim == b->ndim &&
                    memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
                    a->storage->device.type == b->storage->device.type &&
                    a->storage->device.index == b->storage->device.index;
        if (!same) {
            char b1[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "while_loop: carried value %d is %s %s but the body made it %s "
                                 "%s (carried values keep their shapes, dtypes and devices)",
                                 i, ct_dtype_name(a->dtype), CT__SHAPE_STR(a),
                                 ct_dtype_name(b->dtype),
                                 ct__shape_str(b1, sizeof b1, b->ndim, b->shape));
        }
    }
    return CT_OK;
}

static ct_status ct__loop_pred(ct_ctx *ctx, ct_status st, const ct_tensor *pred) {
    if (st != CT_OK) {
        if (!ctx->err[0])
            ct__set_error(ctx, st, "while_loop: the condition failed with status %d (%s)", (int)st,
                          ct_status_str(st));
        return st;
    }
    if (!pred || pred->magic != CT__TENSOR_MAGIC)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "while_loop: the condition left pred %s",
                             pred ? "as a dead tensor" : "NULL");
    if (pred->ctx != ctx || ct_tensor_numel(pred) != 1 || !ct__is_compute_dtype(pred->dtype))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "while_loop: pred must be one element of this context, got %s %s",
                             ct_dtype_name(pred->dtype), CT__SHAPE_STR(pred));
    return CT_OK;
}

static ct_status ct__loop_body_failed(ct_ctx *ctx, ct_status st) {
    if (!ctx->err[0])
        ct__set_error(ctx, st, "while_loop: the body failed with status %d (%s)", (int)st,
                      ct_status_str(st));
    return st;
}

static ct_status ct__while_eager(ct_ctx *ctx, ct_loop_cond_fn cond, ct_loop_body_fn body,
                                 void *user, int n, ct_tensor *const *in, ct_tensor **out,
                                 ct_tensor **cur, ct_tensor **next) {
    ct_status st = CT_OK;
    for (int i = 0; i < n; i++)
        cur[i] = ct_tensor_retain(in[i]);
    for (;;) {
        ct_tensor *pred = NULL;
        st = cond(ctx, user, n, cur, &pred);
        st = ct__loop_pred(ctx, st, pred);
        double v = 0;
        if (st == CT_OK) st = ct_tensor_item(pred, &v);
        ct_tensor_release(pred);
        if (st != CT_OK || v == 0) break;
        for (int i = 0; i < n; i++)
            next[i] = NULL;
        st = body(ctx, user, n, cur, next);
        if (st != CT_OK) ct__loop_body_failed(ctx, st);
        if (st == CT_OK) st = ct__loop_check(ctx, n, cur, next);
        for (int i = 0; i < n; i++) {
            ct_tensor_release(st == CT_OK ? cur[i] : next[i]);
            if (st == CT_OK) cur[i] = next[i];
        }
        if (st != CT_OK) break;
    }
    for (int i = 0; i < n; i++) {
        if (st == CT_OK)
            out[i] = cur[i];
        else
            ct_tensor_release(cur[i]);
    }
    return st;
}

ct_status ct_while_loop(ct_ctx *ctx, ct_loop_cond_fn cond, ct_loop_body_fn body, void *user,
                        int n_carried, ct_tensor *const *carried_in, ct_tensor **carried_out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!cond || !body || n_carried < 0 || (n_carried > 0 && (!carried_in || !carried_out)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "while_loop: NULL or negative argument");
    if (n_carried > (1 << 24))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "while_loop: n_carried %d is more than %d",
                             n_carried, 1 << 24);
    for (int i = 0; i < n_carried; i++)
        if (ct__check_tensor(ctx, "while_loop", "a carried value", carried_in[i]) != CT_OK)
            return CT_ERR_INVALID_ARG;
    for (int i = 0; i < n_carried; i++)
        carried_out[i] = NULL;
    /* the capture of the device the loop runs on: that of the first carried value, else any */
    ct__capture *cap =
        n_carried > 0 ? ctx->backends[carried_in[0]->storage->slot].capture : ct__any_capture(ctx);
    ct_tensor **buf = ct__alloc(ctx, sizeof(ct_tensor *) * (2 * (size_t)n_carried + 1), 16);
    if (!buf)
        return ct__set_error(ctx, CT_ERR_OOM, "while_loop: out of memory for %d carried values",
                             n_carried);
    ct_tensor **cur = buf, **next = buf + n_carried;
    if (!cap) {
        ct_status st =
            ct__while_eager(ctx, cond, body, user, n_carried, carried_in, carried_out, cur, next);
        ct__free(ctx, buf);
        return st;
    }
    ct_graph *g = (ct_graph *)cap;
    ct_status st = CT_OK;
    if (g->error != CT_OK)
        st = ct__set_error(ctx, CT_ERR_STATE, "while_loop: the capture was invalidated earlier: %s",
                           g->errmsg);
    else if (g->impl->size < offsetof(ct_graph_impl, loop_end) + sizeof(void *) ||
             !g->impl->loop_begin || !g->impl->loop_body || !g->impl->loop_end)
        st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                           "while_loop: the backend's graph implementation has no loop nodes");
    for (int i = 0; i < 2 * n_carried; i++)
        buf[i] = NULL;
    /* fixed carried buffers the loop reads and writes back into */
    for (int i = 0; i < n_carried && st == CT_OK; i++)
        st = ct__tensor_new(ctx, carried_in[i]->storage->device, carried_in[i]->dtype,
                            carried_in[i]->ndim, carried_in[i]->shape, &cur[i]);
    for (int i = 0; i < n_carried && st == CT_OK; i++)
        st = ct_tensor_copy_(ctx, cur[i], carried_in[i]);
    bool opened = false;
    ct_tensor *pred = NULL;
    if (st == CT_OK) st = g->impl->loop_begin(g->gs);
    if (st == CT_OK) st = ct__tape_push(g, CT__TAPE_LOOP, NULL, NULL);
    opened = st == CT_OK;
    if (st == CT_OK) {
        st = cond(ctx, user, n_carried, cur, &pred);
        st = ct__loop_pred(ctx, st, pred);
    }
    ct_operand po;
    if (st == CT_OK) {
        ct__operand_set(&po, pred);
        st = ct__keep(g, pred);
    }
    if (st == CT_OK) st = g->impl->loop_body(g->gs, &po);
    if (st == CT_OK) st = ct__tape_push(g, CT__TAPE_LOOP_BODY, NULL, &po);
    if (st == CT_OK) {
        st = body(ctx, user, n_carried, cur, next);
        if (st != CT_OK) ct__loop_body_failed(ctx, st);
    }
    if (st == CT_OK) st = ct__loop_check(ctx, n_carried, cur, next);
    for (int i = 0; i < n_carried && st == CT_OK; i++)
        st = ct_tensor_copy_(ctx, cur[i], next[i]);
    if (opened) {
        ct_status e = g->impl->loop_end(g->gs);
        if (e == CT_OK) e = ct__tape_push(g, CT__TAPE_LOOP_END, NULL, NULL);
        if (st == CT_OK) st = e;
    }
    ct_tensor_release(pred);
    for (int i = 0; i < n_carried; i++) {
        ct_tensor_release(next[i]);
        if (st == CT_OK)
            carried_out[i] = cur[i];
        else
            ct_tensor_release(cur[i]);
    }
    ct__free(ctx, buf);
    if (st != CT_OK) {
        if (!ctx->err[0])
            ct__set_error(ctx, st, "while_loop: recording the loop failed (%s)", ct_status_str(st));
        ct__cap_invalidate(cap, st, ctx->err);
    }
    return st;
}

/* ---- events ---- */

enum { E_NEVER, E_RECORDED, E_CAPTURED };

struct ct_event {
    ct_ctx *ctx;
    ct_device device;
    int slot;
    bool timing;
    int state;
    double ms;         /* E_RECORDED with timing: CLOCK_MONOTONIC in ms */
    ct_graph *graph;   /* E_CAPTURED: the capture (compared, dereferenced only while live) */
    uint64_t serial;   /* ... and its serial */
    ct_stream *stream; /* E_CAPTURED: the stream it was recorded on */
    uint64_t seq;      /* E_CAPTURED: that stream's submission count at record */
};

ct_status ct_event_create(ct_ctx *ctx, ct_device device, bool enable_timing, ct_event **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "event_create: out is NULL");
    *out = NULL;
    ct__backend_slot *b = ct__backend_for(ctx, device);
    if (!b) return CT_ERR_DEVICE;
    ct_event *e = ct__alloc(ctx, sizeof *e, 16);
    if (!e) return ct__set_error(ctx, CT_ERR_OOM, "event_create: out of memory");
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    e->device = device;
    e->slot = (int)(b - ctx->backends);
    e->timing = enable_timing;
    *out = e;
    return CT_OK;
}

void ct_event_free(ct_event *e) {
    if (e) ct__free(e->ctx, e);
}

static ct_stream *ct__event_stream(ct_event *e, ct_stream *s, const char *fn) {
    ct__backend_slot *b = &e->ctx->backends[e->slot];
    if (!s) s = b->current ? b->current : b->default_stream;
    if (s->ctx != e->ctx || s->slot != e->slot) {
        char d1[CT_DEVICE_NAME_MAX], d2[CT_DEVICE_NAME_MAX];
        ct__set_error_keep_capture(e->ctx, CT_ERR_DEVICE,
                                   "%s: the event is for %s, the stream on %s", fn,
                                   ct_device_format(e->ctx, e->device, d1, sizeof d1),
                                   ct_device_format(s->ctx, s->device, d2, sizeof d2));
        return NULL;
    }
    return s;
}

/* The live capture an E_CAPTURED event belongs to, or NULL when it has ended. */
static ct_graph *ct__event_graph(const ct_event *e) {
    ct__capture *c = e->ctx->backends[e->slot].capture;
    ct_graph *g = (ct_graph *)c;
    return c && g == e->graph && g->serial == e->serial && g->state == G_CAPTURING ? g : NULL;
}

ct_status ct_event_record(ct_event *e, ct_stream *s) {
    if (!e) return CT_ERR_INVALID_ARG;
    ct__clear_error(e->ctx);
    if (!(s = ct__event_stream(e, s, "event_record"))) return CT_ERR_DEVICE;
    if (s->capture) { /* a node in the capture: a fork point, or a join point on a forked stream */
        e->state = E_CAPTURED;
        e->graph = (ct_graph *)s->capture;
        e->serial = e->graph->serial;
        e->stream = s;
        e->seq = s->nsubmit;
        return CT_OK;
    }
    /* eager: the stream's work so far is done when the record returns (backends run in order;
     * device backends are synchronized) */
    ct__backend_slot *b = &e->ctx->backends[e->slot];
    ct_status st = b->vt.synchronize(b->vt.state);
    if (st != CT_OK)
        return ct__set_error_keep_capture(e->ctx, st, "event_record: %s synchronize failed",
                                          b->vt.name);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    e->ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    e->state = E_RECORDED;
    e->graph = NULL;
    return CT_OK;
}

ct_status ct_event_wait(ct_event *e, ct_stream *s) {
    if (!e) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = e->ctx;
    ct__clear_error(ctx);
    if (!(s = ct__event_stream(e, s, "event_wait"))) return CT_ERR_DEVICE;
    if (e->state != E_CAPTURED) return CT_OK; /* never recorded, or its work is complete */
    ct_graph *g = ct__event_graph(e);
    if (!g)
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE,
                                          "event_wait: the event was recorded during a capture "
                                          "that has ended; record it again");
    if (s->capture == &g->cap) { /* a join: work of e's stream up to e is now waited on */
        for (int i = 0; i < g->nfork; i++)
            if (g->fork[i] == e->stream && g->fork_joined[i] < (int64_t)e->seq)
                g->fork_joined[i] = (int64_t)e->seq;
        return CT_OK;
    }
    if (s->capture) /* another graph's capture: cannot be (one capture per device) */
        return ct__set_error(ctx, CT_ERR_STATE,
                             "event_wait: the stream captures another graph (the capture is "
                             "invalidated)");
    /* a fork: s joins the capture; its ops are recorded after everything before e */
    if (g->nfork == CT__MAX_FORK)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "event_wait: more than %d streams forked into one capture (the "
                             "capture is invalidated)",
                             CT__MAX_FORK);
    g->fork[g->nfork] = s;
    g->fork_joined[g->nfork] = -1;
    g->nfork++;
    s->capture = &g->cap;
    return CT_OK;
}

ct_status ct_event_synchronize(ct_event *e) {
    if (!e) return CT_ERR_INVALID_ARG;
    ct__clear_error(e->ctx);
    if (e->state == E_CAPTURED)
        return ct__set_error_keep_capture(e->ctx, CT_ERR_STATE,
                                          "event_synchronize: the event was recorded during a "
                                          "capture; it marks a point of the graph, not of time");
    return CT_OK; /* recorded eagerly: complete when the record returned */
}

ct_status ct_event_query(const ct_event *e, bool *done) {
    if (!e) return CT_ERR_INVALID_ARG;
    if (!done)
        return ct__set_error_keep_capture(e->ctx, CT_ERR_INVALID_ARG, "event_query: done is NULL");
    *done = e->state != E_CAPTURED;
    return CT_OK;
}

ct_status ct_event_elapsed_ms(const ct_event *start, const ct_event *end, double *ms) {
    if (!start || !end) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = start->ctx;
    ct__clear_error(ctx);
    if (!ms)
        return ct__set_error_keep_capture(ctx, CT_ERR_INVALID_ARG, "event_elapsed_ms: ms is NULL");
    if (!start->timing || !end->timing)
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE,
                                          "event_elapsed_ms: the %s event was created without "
                                          "enable_timing",
                                          !start->timing ? "start" : "end");
    if (start->state != E_RECORDED || end->state != E_RECORDED)
        return ct__set_error_keep_capture(ctx, CT_ERR_STATE, "event_elapsed_ms: the %s event %s",
                                          start->state != E_RECORDED ? "start" : "end",
                                          (start->state != E_RECORDED ? start : end)->state ==
                                                  E_NEVER
                                              ? "was never recorded"
                                              : "was recorded during a capture (no time)");
    *ms = end->ms - start->ms;
    return CT_OK;
}

/* ---- the tape, for export ---- */
ct_status ct__graph_tape(const ct_graph *g, const ct__tape_entry **entries, int64_t *n,
                         ct_tensor *const **kept, int64_t *nkept) {
    if (g->state != G_CAPTURED && g->state != G_READY)
        return ct__set_error_keep_capture(g->ctx, CT_ERR_STATE, "the graph holds no capture%s",
                                          g->state == G_CAPTURING ? " (it is still capturing)"
                                                                  : "");
    if (g->error != CT_OK)
        return ct__set_error_keep_capture(g->ctx, CT_ERR_STATE,
                                          "the graph's capture was invalidated: %s", g->errmsg);
    *entries = g->tape;
    *n = g->ntape;
    *kept = g->kept;
    *nkept = (int64_t)g->nkept;
    return CT_OK;
}
ct_ctx *ct__graph_ctx(const ct_graph *g) { return g->ctx; }
ct_device ct__graph_device(const ct_graph *g) { return g->device; }

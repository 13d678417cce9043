/* Tensors and storage: allocation, refcounting, metadata, host transfer, creation ops. */
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"
#include "core/calloc.h"
#include "dtype/half.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CT__HDR_BYTES 384 /* tensor + storage headers before the data in a CPU block */
_Static_assert(sizeof(struct ct_tensor) + sizeof(ct__storage) <= CT__HDR_BYTES, "header too big");

const char *ct__shape_str(char *buf, size_t n, int ndim, const int64_t *shape) {
    size_t used = 0;
    used += (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ndim && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (used < n) snprintf(buf + used, n - used, "]");
    return buf;
}

ct_status ct__check_extent(ct_ctx *ctx, const char *op, int ndim, const int64_t *shape,
                           size_t itemsize) {
    int64_t e = (int64_t)itemsize;
    for (int i = ndim - 1; i >= 0; i--)
        if (!ct__checked_mul(e, shape[i] > 1 ? shape[i] : 1, &e)) {
            char b[96];
            return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                 "%s: shape %s with %zu-byte elements overflows int64 strides "
                                 "(at dim %d)",
                                 op, ct__shape_str(b, sizeof b, ndim, shape), itemsize, i);
        }
    return CT_OK;
}

ct_status ct__check_tensor(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t) {
    if (!t) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s is NULL", op, what);
    if (t->magic != CT__TENSOR_MAGIC)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: %s is not a live tensor (used after ct_tensor_release, or not a "
                             "tensor handle)",
                             op, what);
    return CT_OK;
}

ct_status ct__check_shape(ct_ctx *ctx, const char *op, int ndim, const int64_t *shape, ct_dtype dt,
                          int64_t *numel) {
    if (ndim < 0 || ndim > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: ndim %d outside [0, %d]", op, ndim,
                             CT_MAX_DIMS);
    if (ndim > 0 && !shape) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: shape is NULL", op);
    if (!ct_dtype_get_info(dt))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: invalid dtype %d", op, (int)dt);
    int64_t n = 1;
    bool empty = false;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: negative size %lld at dim %d", op,
                                 (long long)shape[i], i);
        empty = empty || shape[i] == 0;
    }
    /* a zero size anywhere makes the count 0 (its strides are checked below), whatever the
     * order of the dims */
    for (int i = 0; i < ndim && !empty; i++)
        if (!ct__checked_mul(n, shape[i], &n))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: element count overflows at dim %d", op,
                                 i);
    if (empty) n = 0;
    int64_t bytes;
    if (!ct__checked_mul(n, (int64_t)ct__itemsize(dt), &bytes) ||
        !ct__checked_add(bytes, CT__HDR_BYTES + 64, &bytes))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: %lld elements overflow the byte size", op,
                             (long long)n);
    /* with numel > 0 every size is >= 1, so the strides' extent is the byte size checked above;
     * only zero-size shapes need the separate check */
    if (n == 0) {
        ct_status st = ct__check_extent(ctx, op, ndim, shape, ct__itemsize(dt));
        if (st != CT_OK) return st;
    }
    *numel = n;
    return CT_OK;
}

/* Live-list bookkeeping (every build; the context is single-threaded). */
static inline void ct__live_link(ct_ctx *ctx, struct ct_tensor *t) {
    t->magic = CT__TENSOR_MAGIC;
    t->ag_born = ctx->ag_seq;
    t->live_prev = NULL;
    t->live_next = ctx->live_head;
    if (ctx->live_head) ctx->live_head->live_prev = t;
    ctx->live_head = t;
    ctx->live_count++;
}
static inline void ct__live_unlink(ct_ctx *ctx, struct ct_tensor *t) {
    if (t->live_prev)
        t->live_prev->live_next = t->live_next;
    else
        ctx->live_head = t->live_next;
    if (t->live_next) t->live_next->live_prev = t->live_prev;
    ctx->live_count--;
    t->magic = CT__TENSOR_DEAD;
}

static void ct__contig_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

ct_status ct__tensor_new(ct_ctx *ctx, ct_device dev, ct_dtype dt, int ndim, const int64_t *shape,
                         ct_tensor **out) {
    int64_t numel;
    ct_status st = ct__check_shape(ctx, "tensor", ndim, shape, dt, &numel);
    if (st != CT_OK) return st;
    size_t nbytes = (size_t)numel * ct__itemsize(dt);
    bool cpu = dev.type == CT_DEVICE_CPU;
    ct__backend_slot *b = NULL;
    if (cpu && dev.index != 0)
        return ct__set_error(ctx, CT_ERR_DEVICE,
                             "tensor: device cpu:%d does not exist (only cpu:0)", dev.index);
    if (!cpu) {
        b = ct__backend_for(ctx, dev);
        if (!b) return CT_ERR_DEVICE;
    }
    /* during graph capture on this device, memory comes from the graph's pool */
    ct__backend_slot *cb = cpu ? &ctx->backends[0] : b;
    ct__capture *cap = cb->capture;
    /* under capture a CPU tensor's data is a pool block of its own, so that instantiation can
     * free it when the memory plan moves the buffer (ct_graph_impl.instantiate_planned) */
    bool cap_data = cap && cpu && nbytes > 0;
    char *block = cap ? cap->pool_alloc_host(cap, CT__HDR_BYTES + (cpu && !cap_data ? nbytes : 0))
                      : ct__alloc(ctx, CT__HDR_BYTES + (cpu ? nbytes : 0), 64);
    char *cap_block = cap_data && block ? cap->pool_alloc_host(cap, nbytes) : NULL;
    if (cap_data && !cap_block) block = NULL; /* a pool block is freed with the pool */
    if (!block)
        return ct__set_error(ctx, CT_ERR_OOM, "allocating %zu bytes for a tensor of %s: %s", nbytes,
                             ct_dtype_name(dt),
                             ctx->calloc && !cap ? ct__calloc_oom_message(ctx->calloc)
                                                 : "out of memory");
    struct ct_tensor *t = (struct ct_tensor *)block;
    ct__storage *s = (ct__storage *)(block + sizeof(struct ct_tensor));
    if (ctx->debug) { /* own header, so that it can outlive the block in the quarantine */
        t = ct__alloc(ctx, sizeof *t, 16);
        if (!t) {
            if (!cap) ct__free(ctx, block);
            return ct__set_error(ctx, CT_ERR_OOM, "out of memory allocating a tensor header");
        }
    }
    s->refcount = 1;
    s->ctx = ctx;
    s->slot = cpu ? 0 : (int)(b - ctx->backends);
    s->device = dev;
    s->nbytes = nbytes;
    s->block = block;
    s->data_separate = !cpu;
    s->pool = NULL;
    s->pool_unref = NULL;
    s->version = 0;
    s->blob = false;
    s->blob_ptr = NULL;
    s->deleter = NULL;
    s->deleter_user = NULL;
    if (cpu) {
        s->data = cap_data ? cap_block : block + CT__HDR_BYTES;
    } else {
        s->data = NULL;
        st = cap ? cap->pool_alloc_dev(cap, nbytes, &s->data)
                 : b->vt.alloc(b->vt.state, nbytes, &s->data);
        if (st != CT_OK) {
            if (!cap) ct__free(ctx, block);
            if ((void *)t != (void *)block) ct__free(ctx, t);
            return ct__set_error(ctx, st, "%s backend failed to allocate %zu bytes%s", b->vt.name,
                                 nbytes, st == CT_ERR_OOM ? " (out of memory)" : "");
        }
    }
    if (cap) {
        s->pool = cap->pool;
        s->pool_unref = cap->pool_unref;
        cap->pool_ref(cap->pool);
    }
    t->refcount = 1;
    t->ctx = ctx;
    t->storage = s;
    t->dtype = dt;
    t->ndim = ndim;
    t->embedded = (void *)t == (void *)block;
    t->requires_grad = false;
    t->ag = NULL;
    ct__live_link(ctx, t);
    t->offset = 0;
    for (int i = 0; i < ndim; i++)
        t->shape[i] = shape[i];
    ct__contig_strides(ndim, shape, t->strides);
    *out = t;
    return CT_OK;
}

ct_status ct__tensor_view_of(ct_ctx *ctx, const ct_tensor *src, int ndim, const int64_t *shape,
                             const int64_t *strides, int64_t offset, ct_tensor **out) {
    struct ct_tensor *t = ct__alloc(ctx, sizeof *t, 16);
    if (!t) return ct__set_error(ctx, CT_ERR_OOM, "out of memory allocating a view");
    t->refcount = 1;
    t->ctx = ctx;
    t->storage = src->storage;
    t->storage->refcount++;
    t->dtype = src->dtype;
    t->ndim = ndim;
    t->embedded = false;
    t->requires_grad = false;
    t->ag = NULL;
    ct__live_link(ctx, t);
    t->offset = offset;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = strides[i];
    }
    *out = t;
    return CT_OK;
}

static void ct__storage_release(ct__storage *s) {
    if (--s->refcount > 0) return;
    ct_ctx *ctx = s->ctx;
    if (s->pool) { /* the pool frees its memory when its last user goes */
        s->pool_unref(s->pool);
        return;
    }
    if (s->blob) { /* ct_tensor_from_blob: hand the caller's memory back, once */
        if (s->deleter) s->deleter(s->blob_ptr, s->deleter_user);
    } else if (s->data_separate && s->data) {
        ct__backend_slot *b = &ctx->backends[s->slot];
        b->vt.free(b->vt.state, s->data);
    }
    ct__free(ctx, s->block);
}

/* A released handle reached retain/release: say so (error message + log), never crash. */
__attribute__((cold, noinline)) static void ct__report_dead(const ct_tensor *t, const char *op) {
    ct_ctx *ctx = t->ctx; /* valid in debug mode (quarantined header); best effort otherwise */
    if (!ctx) return;
    ct__set_error(ctx, CT_ERR_INVALID_ARG,
                  "%s: tensor %p is not live: it was already released (call ignored)", op,
                  (const void *)t);
    ct__log(ctx, CT_LOG_ERROR, "%s", ctx->err);
}

ct_tensor *ct_tensor_retain(ct_tensor *t) {
    if (!t) return NULL;
    if (__builtin_expect(t->magic != CT__TENSOR_MAGIC, 0)) {
        ct__report_dead(t, "tensor_retain");
        return NULL;
    }
    t->refcount++;
    return t;
}

__attribute__((noinline)) static void ct__quarantine(ct_ctx *ctx, struct ct_tensor *t) {
    t->storage = NULL;
    t->live_prev = NULL;
    t->live_next = NULL;
    if (ctx->quar_tail)
        ctx->quar_tail->live_next = t;
    else
        ctx->quar_head = t;
    ctx->quar_tail = t;
    if (++ctx->quar_count > CT__DEBUG_QUARANTINE) {
        struct ct_tensor *old = ctx->quar_head;
        ctx->quar_head = old->live_next;
        ctx->quar_count--;
        ct__free(ctx, old);
    }
}

void ct__tensor_ctx_teardown(ct_ctx *ctx) {
    if (ctx->live_count > 0) {
        /* the caller forgot these: say which (their memory stays allocated: releasing them after
         * ct_ctx_free would touch the freed context) */
        char buf[400];
        size_t used = 0;
        int shown = 0;
        buf[0] = '\0';
        for (const struct ct_tensor *t = ctx->live_head; t && shown < 4 && used < sizeof buf;
             t = t->live_next, shown++)
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s %s", shown ? ", " : "",
                                     ct_dtype_name(t->dtype), CT__SHAPE_STR(t));
        ct__log(ctx, CT_LOG_ERROR,
                "ctx_free: %lld tensor%s still alive (not released): %s%s; they leak",
                (long long)ctx->live_count, ctx->live_count == 1 ? "" : "s", buf,
                ctx->live_count > shown ? ", ..." : "");
    }
    struct ct_tensor *t = ctx->quar_head;
    while (t) {
        struct ct_tensor *n = t->live_next;
        ct__free(ctx, t);
        t = n;
    }
    ctx->quar_head = ctx->quar_tail = NULL;
    ctx->quar_count = 0;
}

void ct_tensor_release(ct_tensor *t) {
    if (!t) return;
    if (__builtin_expect(t->magic != CT__TENSOR_MAGIC, 0)) {
        ct__report_dead(t, "tensor_release");
        return;
    }
    if (--t->refcount > 0) return;
    ct__storage *s = t->storage;
    ct_ctx *ctx = t->ctx;
    if (t->ag) ctx->ag->free_meta(t); /* may release other tensors (grad, tape nodes) */
    bool embedded = t->embedded;
    ct__live_unlink(ctx, t);
    if (__builtin_expect(ctx->debug, 0))
        ct__quarantine(ctx, t); /* never embedded in debug mode */
    else if (!embedded)
        ct__free(ctx, t);
    ct__storage_release(s); /* frees the block holding an embedded tensor */
}

void ct__operand_set(ct_operand *o, const ct_tensor *t) {
    o->data = ct__tensor_ptr(t);
    o->dtype = t->dtype;
    o->ndim = t->ndim;
    o->tensor = (ct_tensor *)t;
    memcpy(o->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(o->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
}

/* ---- metadata: NULL or released handles get the neutral values documented in tensor.h ---- */
int ct_tensor_ndim(const ct_tensor *t) { return ct__tensor_live(t) ? t->ndim : 0; }
const int64_t *ct_tensor_shape(const ct_tensor *t) { return ct__tensor_live(t) ? t->shape : NULL; }
const int64_t *ct_tensor_stride(const ct_tensor *t) {
    return ct__tensor_live(t) ? t->strides : NULL;
}
int64_t ct_tensor_size(const ct_tensor *t, int dim) {
    int d;
    if (!ct__tensor_live(t) || t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d)) return 0;
    return t->shape[d];
}
int64_t ct_tensor_storage_offset(const ct_tensor *t) { return ct__tensor_live(t) ? t->offset : 0; }
ct_dtype ct_tensor_dtype(const ct_tensor *t) {
    return ct__tensor_live(t) ? t->dtype : CT_DTYPE_COUNT;
}
ct_device ct_tensor_device(const ct_tensor *t) {
    return ct__tensor_live(t) ? t->storage->device : (ct_device){-1, -1};
}
int64_t ct_tensor_numel(const ct_tensor *t) {
    return ct__tensor_live(t) ? ct__numel(t->ndim, t->shape) : 0;
}
bool ct_tensor_is_contiguous(const ct_tensor *t) {
    if (!ct__tensor_live(t)) return false;
    int64_t s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] == 0) return true;
        if (t->shape[i] != 1 && t->strides[i] != s) return false;
        s *= t->shape[i];
    }
    return true;
}
void *ct_tensor_data_ptr(const ct_tensor *t) {
    if (!ct__tensor_live(t)) return NULL;
    return t->storage->device.type == CT_DEVICE_CPU ? ct__tensor_ptr(t) : NULL;
}

/* ---- creation ---- */
ct_status ct_tensor_empty_on(ct_ctx *ctx, ct_device device, ct_dtype dtype, int ndim,
                             const int64_t *shape, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "empty: out is NULL");
    *out = NULL;
    return ct__tensor_new(ctx, device, dtype, ndim, shape, out);
}

ct_status ct_tensor_empty(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                          ct_tensor **out) {
    return ct_tensor_empty_on(ctx, (ct_device){CT_DEVICE_CPU, 0}, dtype, ndim, shape, out);
}

ct_status ct_tensor_from_host(ct_ctx *ctx, const void *data, ct_dtype dtype, int ndim,
                              const int64_t *shape, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_host: out is NULL");
    *out = NULL;
    ct_tensor *t;
    ct_status st = ct_tensor_empty(ctx, dtype, ndim, shape, &t);
    if (st != CT_OK) return st;
    size_t nbytes = t->storage->nbytes;
    if (nbytes && !data) {
        ct_tensor_release(t);
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_host: data is NULL");
    }
    if (nbytes) memcpy(t->storage->data, data, nbytes);
    *out = t;
    return CT_OK;
}

ct_status ct_tensor_from_blob(ct_ctx *ctx, void *data, ct_dtype dtype, int ndim,
                              const int64_t *shape, const int64_t *strides,
                              void (*deleter)(void *data, void *user), void *user,
                              ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_blob: out is NULL");
    *out = NULL;
    int64_t numel;
    ct_status st = ct__check_shape(ctx, "from_blob", ndim, shape, dtype, &numel);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(dtype) && !ct_dtype_is_complex(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "from_blob: dtype %s is a storage format; wrap it as uint8",
                             ct_dtype_name(dtype));
    size_t isz = ct__itemsize(dtype);
    if (numel > 0 && !data)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "from_blob: data is NULL for %lld elements",
                             (long long)numel);
    if ((uintptr_t)data % isz != 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "from_blob: data %p is not aligned to the %zu-byte elements of %s",
                             data, isz, ct_dtype_name(dtype));
    int64_t str[CT_MAX_DIMS];
    ct__contig_strides(ndim, shape, str);
    /* element range [lo, hi] the view addresses, relative to data (overflow-checked) */
    int64_t lo = 0, hi = 0;
    if (strides) {
        for (int i = 0; i < ndim; i++) {
            str[i] = strides[i];
            if (shape[i] <= 1 || numel == 0) continue;
            int64_t span;
            if (!ct__checked_mul(strides[i], shape[i] - 1, &span) ||
                !ct__checked_add(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
                return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                     "from_blob: stride %lld at dim %d with size %lld overflows",
                                     (long long)strides[i], i, (long long)shape[i]);
        }
    } else if (numel > 0) {
        hi = numel - 1;
    }
    int64_t nel = 0, nbytes = 0;
    if (numel > 0 &&
        (lo < -(INT64_MAX / 16) || !ct__checked_add(hi, -lo, &nel) ||
         !ct__checked_add(nel, 1, &nel) || !ct__checked_mul(nel, (int64_t)isz, &nbytes)))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "from_blob: the strides span too many bytes");
    char *block = ct__alloc(ctx, CT__HDR_BYTES, 64);
    if (!block) return ct__set_error(ctx, CT_ERR_OOM, "out of memory allocating a tensor header");
    struct ct_tensor *t = (struct ct_tensor *)block;
    ct__storage *s = (ct__storage *)(block + sizeof(struct ct_tensor));
    if (ctx->debug) {
        t = ct__alloc(ctx, sizeof *t, 16);
        if (!t) {
            ct__free(ctx, block);
            return ct__set_error(ctx, CT_ERR_OOM, "out of memory allocating a tensor header");
        }
    }
    memset(s, 0, sizeof *s);
    memset(t, 0, sizeof *t); /* every field a newer layer adds (autograd's ag) starts empty */
    s->refcount = 1;
    s->ctx = ctx;
    s->slot = 0;
    s->device = (ct_device){CT_DEVICE_CPU, 0};
    s->data = (char *)data + lo * (int64_t)isz; /* lowest addressed element */
    s->nbytes = (size_t)nbytes;
    s->block = block;
    s->blob = true;
    s->blob_ptr = data;
    s->deleter = deleter;
    s->deleter_user = user;
    t->refcount = 1;
    t->ctx = ctx;
    t->storage = s;
    t->dtype = dtype;
    t->ndim = ndim;
    t->embedded = (void *)t == (void *)block;
    ct__live_link(ctx, t);
    t->offset = -lo;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = str[i];
    }
    *out = t;
    return CT_OK;
}

static ct_status ct__fill_like(ct_ctx *ctx, ct_op_kind kind, ct_dtype dtype, int ndim,
                               const int64_t *shape, const double *sc, const int64_t *ints,
                               ct_tensor **out) {
    ct_tensor *t;
    ct_status st = ct_tensor_empty(ctx, dtype, ndim, shape, &t);
    if (st != CT_OK) return st;
    ct_op_desc d;
    ct__desc_init(&d, kind, 1, 0);
    ct__operand_set(&d.operands[0], t);
    d.compute_dtype = dtype;
    for (int i = 0; i < 4; i++) {
        d.scalars[i] = sc ? sc[i] : 0;
        d.ints[i] = ints ? ints[i] : 0;
    }
    st = ct__submit(ctx, t->storage->device, &d);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

/* c10's overflow check of a number converted to dtype (torch.full, linspace, masked_fill): an
 * integral double stands for a Python int (ct__scalar_fits_dtype). */
ct_status ct__check_scalar_fits(ct_ctx *ctx, const char *op, ct_dtype dtype, double value,
                                bool as_int) {
    if (ct__scalar_fits_dtype(dtype, value, as_int && value == floor(value))) return CT_OK;
    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                         "%s: value %g cannot be converted to %s without overflow", op, value,
                         ct_dtype_name(dtype));
}

ct_status ct_tensor_full(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape, double value,
                         ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "full: out is NULL");
    if (ct_dtype_is_complex(dtype)) { /* value + 0i */
        ct_status st = ct_tensor_empty(ctx, dtype, ndim, shape, out);
        if (st == CT_OK && (st = ct_tensor_fill_(ctx, *out, value)) != CT_OK) {
            ct_tensor_release(*out);
            *out = NULL;
        }
        return st;
    }
    if (!ct__is_compute_dtype(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "full: dtype %s is not supported",
                             ct_dtype_name(dtype));
    ct_status st = ct__check_scalar_fits(ctx, "full", dtype, value, true);
    if (st != CT_OK) return st;
    double sc[4] = {value, 0, 0, 0};
    return ct__fill_like(ctx, CT_OP_FILL, dtype, ndim, shape, sc, NULL, out);
}

ct_status ct_tensor_ones(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                         ct_tensor **out) {
    return ct_tensor_full(ctx, dtype, ndim, shape, 1.0, out);
}

ct_status ct_tensor_eye(ct_ctx *ctx, ct_dtype dtype, int64_t n, int64_t m, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "eye: out is NULL");
    *out = NULL;
    if (n < 0 || m < 0)
        return ct__set_error(ctx, CT_ERR_SHAPE, "eye: n (%lld) and m (%lld) must be >= 0",
                             (long long)n, (long long)m);
    int64_t shape[2] = {n, m};
    ct_tensor *t = NULL, *diag = NULL;
    ct_status st = ct_tensor_zeros(ctx, dtype, 2, shape, &t);
    if (st != CT_OK) return st;
    /* ones on the diagonal: a FILL through a strided view (row stride + 1); complex: of the real
     * parts (the view in the real dtype, strides in reals) */
    const bool cx = ct_dtype_is_complex(dtype);
    int64_t k = n < m ? n : m, dshape[1] = {k}, dstride[1] = {(m + 1) * (cx ? 2 : 1)};
    if (k > 0) {
        st = ct__tensor_view_of(ctx, t, 1, dshape, dstride, 0, &diag);
        if (st == CT_OK) {
            if (cx) diag->dtype = ct_dtype_to_real(dtype);
            ct_op_desc d;
            ct__desc_init(&d, CT_OP_FILL, 1, 0);
            ct__operand_set(&d.operands[0], diag);
            d.compute_dtype = diag->dtype;
            d.scalars[0] = 1.0;
            st = ct__submit(ctx, t->storage->device, &d);
        }
        ct_tensor_release(diag);
    }
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

ct_status ct_tensor_linspace(ct_ctx *ctx, ct_dtype dtype, double start, double end, int64_t steps,
                             ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linspace: out is NULL");
    *out = NULL;
    if (!ct__is_compute_dtype(dtype) || dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "linspace: dtype %s is not supported",
                             ct_dtype_name(dtype));
    if (steps < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "linspace: number of steps must be non-negative, got %lld",
                             (long long)steps);
    ct_status st = ct__check_scalar_fits(ctx, "linspace", dtype, start, true);
    if (st == CT_OK) st = ct__check_scalar_fits(ctx, "linspace", dtype, end, true);
    if (st != CT_OK) return st;
    double lo = 0, hi = 0;
    if (ct__int_range(dtype, &lo, &hi)) {
        if (start != start || end != end)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linspace: NaN cannot be converted to %s",
                                 ct_dtype_name(dtype));
        /* truncated as c10::Scalar::to<int>; uint8's integral -255..-1 (accepted above, torch's
         * conversion of a Python int) wrap */
        start = __builtin_trunc(start), end = __builtin_trunc(end);
        if (dtype == CT_UINT8) start += start < 0 ? 256 : 0, end += end < 0 ? 256 : 0;
    } else if (dtype == CT_FLOAT32) {
        start = (float)start, end = (float)end;
    } else if (dtype == CT_FLOAT16) {
        start = ct__h2f(ct__f2h((float)start)), end = ct__h2f(ct__f2h((float)end));
    } else if (dtype == CT_BFLOAT16) {
        start = ct__bf2f(ct__f2bf((float)start)), end = ct__bf2f(ct__f2bf((float)end));
    }
    int64_t shape[1] = {steps};
    double sc[4] = {start, end, 0, 0};
    return ct__fill_like(ctx, CT_OP_LINSPACE, dtype, 1, shape, sc, NULL, out);
}

ct_status ct_tensor_zeros(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                          ct_tensor **out) {
    return ct_tensor_full(ctx, dtype, ndim, shape, 0.0, out);
}

ct_status ct_tensor_arange(ct_ctx *ctx, ct_dtype dtype, double start, double end, double step,
                           ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "arange: out is NULL");
    if (!ct__is_compute_dtype(dtype) || dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "arange: dtype %s is not supported",
                             ct_dtype_name(dtype));
    double lo = 0, hi = 0;
    bool is_int = ct__int_range(dtype, &lo, &hi);
    double size_start = start, size_end = end, size_step = step;
    if (is_int && start == start && end == end && step == step) {
        /* torch converts start, end and step to int64 first (truncation: a step of 0.5 is 0, "step
         * must be nonzero"); the size uses the original values except for int64 */
        start = __builtin_trunc(start), end = __builtin_trunc(end), step = __builtin_trunc(step);
        if (dtype == CT_INT64) size_start = start, size_end = end, size_step = step;
    }
    if (step == 0 || step != step || start != start || end != end)
        return ct__set_error(
            ctx, CT_ERR_INVALID_ARG,
            "arange: step must be nonzero and bounds finite (start=%g end=%g step=%g)", start, end,
            step);
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return ct__set_error(
            ctx, CT_ERR_INVALID_ARG,
            "arange: upper bound and step sign are inconsistent (start=%g end=%g step=%g)", start,
            end, step);
    double n = __builtin_ceil((size_end - size_start) / size_step);
    if (!(n < 9.2e18))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "arange: %g elements is too many", n);
    if (n < 0) n = 0;
    if (n > 0 && is_int) {
        /* every value start + i * step must fit: the first and the last bound the rest */
        double last = start + (n - 1) * step;
        double vmin = start < last ? start : last, vmax = start < last ? last : start;
        if (!(vmin >= lo && vmax < hi + 1))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "arange: values %g .. %g cannot be represented in %s without "
                                 "overflow (range %g .. %g)",
                                 start, last, ct_dtype_name(dtype), lo, hi);
    }
    int64_t shape[1] = {(int64_t)n};
    double sc[4] = {start, step, 0, 0};
    return ct__fill_like(ctx, CT_OP_ARANGE, dtype, 1, shape, sc, NULL, out);
}

static ct_status ct__rand(ct_ctx *ctx, const char *op, int normal, ct_dtype dtype, int ndim,
                          const int64_t *shape, uint64_t seed, uint64_t offset, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    if (dtype != CT_FLOAT16 && dtype != CT_BFLOAT16 && dtype != CT_FLOAT32 && dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is not floating", op,
                             ct_dtype_name(dtype));
    int64_t ints[4] = {(int64_t)seed, (int64_t)offset, normal, 0};
    ct__capture *cap = ctx->backends[0].capture;
    if (!cap) return ct__fill_like(ctx, CT_OP_RAND, dtype, ndim, shape, NULL, ints, out);
    /* Under capture the offset lives in a graph-owned int64 tensor that the graph advances by
     * numel after each draw: replay k draws what eager rand(seed, offset + k * numel) gives. */
    ct_tensor *t = NULL, *off = NULL, *one = NULL;
    ct_status st = ct_tensor_empty(ctx, dtype, ndim, shape, &t);
    if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, CT_INT64, 0, NULL, &off);
    if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, CT_INT64, 0, NULL, &one);
    if (st == CT_OK) {
        *(int64_t *)ct__tensor_ptr(off) = (int64_t)offset; /* set now, not recorded */
        *(int64_t *)ct__tensor_ptr(one) = 1;
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_RAND, 1, 1);
        ct__operand_set(&d.operands[0], t);
        ct__operand_set(&d.operands[1], off);
        d.compute_dtype = dtype;
        d.ints[0] = (int64_t)seed;
        d.ints[2] = normal;
        st = ct__submit(ctx, t->storage->device, &d);
        if (st == CT_OK) {
            ct__desc_init(&d, CT_OP_ADD, 1, 2); /* off = off + numel * 1 */
            ct__operand_set(&d.operands[0], off);
            ct__operand_set(&d.operands[1], off);
            ct__operand_set(&d.operands[2], one);
            d.compute_dtype = CT_INT64;
            d.scalars[0] = (double)ct_tensor_numel(t);
            st = ct__submit(ctx, t->storage->device, &d);
        }
    }
    ct_tensor_release(off);
    ct_tensor_release(one);
    if (st != CT_OK) {
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

ct_status ct_tensor_rand(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape, uint64_t seed,
                         uint64_t offset, ct_tensor **out) {
    return ct__rand(ctx, "rand", 0, dtype, ndim, shape, seed, offset, out);
}
ct_status ct_tensor_randn(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                          uint64_t seed, uint64_t offset, ct_tensor **out) {
    return ct__rand(ctx, "randn", 1, dtype, ndim, shape, seed, offset, out);
}

/* ---- host transfer ---- */
ct_status ct_tensor_to_host(const ct_tensor *t, void *dst, size_t nbytes) {
    if (!t) return CT_ERR_INVALID_ARG;
    if (t->magic != CT__TENSOR_MAGIC) {
        ct__report_dead(t, "to_host");
        return CT_ERR_INVALID_ARG;
    }
    ct_ctx *ctx = t->ctx;
    size_t want = (size_t)ct_tensor_numel(t) * ct__itemsize(t->dtype);
    if (nbytes != want)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "to_host: buffer is %zu bytes, tensor %s %s needs %zu", nbytes,
                             ct_dtype_name(t->dtype), CT__SHAPE_STR(t), want);
    if (want == 0) return CT_OK;
    if (!dst) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "to_host: dst is NULL");
    ct__backend_slot *b = &ctx->backends[t->storage->slot];
    ct__capture *cap = ct__any_capture(ctx);
    if (cap && cap->mode != 3 /* CT_CAPTURE_RELAXED */) {
        ct__set_error(ctx, CT_ERR_STATE,
                      "to_host: reading a tensor on the host is not allowed during graph capture "
                      "(the capture is invalidated)");
        cap->invalidate(cap, CT_ERR_STATE, ctx->err);
        return CT_ERR_STATE;
    }
    ct_tensor *c = NULL;
    ct_status st = ct_tensor_contiguous(ctx, t, &c);
    if (st != CT_OK) return st;
    if (c->storage->device.type == CT_DEVICE_CPU) {
        memcpy(dst, ct__tensor_ptr(c), want);
    } else {
        st = b->vt.synchronize(b->vt.state);
        if (st == CT_OK) st = b->vt.copy(b->vt.state, dst, ct__tensor_ptr(c), want, 1);
        if (st != CT_OK) ct__set_error(ctx, st, "to_host: %s backend copy failed", b->vt.name);
    }
    ct_tensor_release(c);
    return st;
}

ct_status ct_tensor_item(const ct_tensor *t, double *out) {
    if (!t) return CT_ERR_INVALID_ARG;
    if (t->magic != CT__TENSOR_MAGIC) {
        ct__report_dead(t, "item");
        return CT_ERR_INVALID_ARG;
    }
    if (!out) return ct__set_error(t->ctx, CT_ERR_INVALID_ARG, "item: out is NULL");
    if (ct_tensor_numel(t) != 1)
        return ct__set_error(t->ctx, CT_ERR_SHAPE, "item: tensor %s has %lld elements, not 1",
                             CT__SHAPE_STR(t), (long long)ct_tensor_numel(t));
    if (!ct__is_compute_dtype(t->dtype))
        return ct__set_error(t->ctx, CT_ERR_DTYPE, "item: dtype %s has no scalar value here",
                             ct_dtype_name(t->dtype));
    /* read the raw element (no device kernel needed), convert on the host */
    union {
        uint8_t u8;
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        uint16_t h;
        float f;
        double d;
    } v;
    ct_status st = ct_tensor_to_host(t, &v, ct__itemsize(t->dtype));
    if (st != CT_OK) return st;
    switch (t->dtype) {
    case CT_BOOL: *out = v.u8 != 0; break;
    case CT_UINT8: *out = v.u8; break;
    case CT_INT8: *out = v.i8; break;
    case CT_INT16: *out = v.i16; break;
    case CT_INT32: *out = v.i32; break;
    case CT_INT64: *out = (double)v.i64; break;
    case CT_FLOAT16: *out = ct__h2f(v.h); break;
    case CT_BFLOAT16: *out = ct__bf2f(v.h); break;
    case CT_FLOAT32: *out = v.f; break;
    default: *out = v.d; break;
    }
    return CT_OK;
}

ct_status ct_tensor_to_device(ct_ctx *ctx, const ct_tensor *t, ct_device device, ct_tensor **out) {
    const ct_tensor *ts[1] = {t};
    ct_status st = ct__check_args(ctx, "to_device", 1, ts, out);
    if (st != CT_OK) return st;
    ct__backend_slot *dst_b = ct__backend_for(ctx, device);
    if (!dst_b) return CT_ERR_DEVICE;
    ct__capture *cap = ct__any_capture(ctx);
    if (cap && cap->mode != 3 /* CT_CAPTURE_RELAXED */) {
        ct__set_error(ctx, CT_ERR_STATE,
                      "to_device: moving tensors between devices is not allowed during graph "
                      "capture (the capture is invalidated)");
        cap->invalidate(cap, CT_ERR_STATE, ctx->err);
        return CT_ERR_STATE;
    }
    ct_tensor *c, *r;
    st = ct_tensor_contiguous(ctx, t, &c);
    if (st != CT_OK) return st;
    st = ct__tensor_new(ctx, device, t->dtype, t->ndim, t->shape, &r);
    if (st != CT_OK) {
        ct_tensor_release(c);
        return st;
    }
    size_t n = r->storage->nbytes;
    bool src_cpu = c->storage->device.type == CT_DEVICE_CPU, dst_cpu = device.type == CT_DEVICE_CPU;
    if (n == 0) {
    } else if (src_cpu && dst_cpu) {
        memcpy(r->storage->data, ct__tensor_ptr(c), n);
    } else if (src_cpu) {
        st = dst_b->vt.copy(dst_b->vt.state, r->storage->data, ct__tensor_ptr(c), n, 0);
    } else if (dst_cpu) {
        ct__backend_slot *sb = &ctx->backends[c->storage->slot];
        st = sb->vt.synchronize(sb->vt.state);
        if (st == CT_OK) st = sb->vt.copy(sb->vt.state, r->storage->data, ct__tensor_ptr(c), n, 1);
    } else {
        st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                           "to_device: copies between two non-CPU devices go through the host");
    }
    ct_tensor_release(c);
    if (st != CT_OK) {
        ct_tensor_release(r);
        if (!ctx->err[0]) ct__set_error(ctx, st, "to_device: backend copy failed");
        return st;
    }
    *out = r;
    return CT_OK;
}

/* ---- helpers shared by the tensor and op front ends ---- */
void ct__operand_broadcast(ct_operand *o, const ct_tensor *t, int ndim, const int64_t *shape) {
    o->data = ct__tensor_ptr(t);
    o->dtype = t->dtype;
    o->ndim = ndim;
    o->tensor = (ct_tensor *)t;
    int lead = ndim - t->ndim;
    for (int i = 0; i < ndim; i++) {
        o->shape[i] = shape[i];
        int j = i - lead;
        o->strides[i] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j];
    }
}

ct_status ct__broadcast_shapes(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                               int *ndim, int64_t *shape) {
    int nd = 0;
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim > nd) nd = ts[i]->ndim;
    int owner[CT_MAX_DIMS]; /* which input set each dim (for the message) */
    for (int d = 0; d < nd; d++) {
        shape[d] = 1;
        owner[d] = 0;
    }
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        int lead = nd - t->ndim;
        for (int j = 0; j < t->ndim; j++) {
            int64_t s = t->shape[j], *r = &shape[lead + j];
            if (s == *r || s == 1) continue;
            if (*r == 1) {
                *r = s;
                owner[lead + j] = i;
                continue;
            }
            /* name the pair that fails: the input that set this dim and input i */
            const ct_tensor *o = ts[owner[lead + j]];
            char b0[96], b1[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: shapes %s (input %d) and %s (input %d) do not broadcast (dim "
                                 "%d: %lld vs %lld)",
                                 op, ct__shape_str(b0, sizeof b0, o->ndim, o->shape),
                                 owner[lead + j], ct__shape_str(b1, sizeof b1, t->ndim, t->shape),
                                 i, lead + j, (long long)*r, (long long)s);
        }
    }
    *ndim = nd;
    return CT_OK;
}

ct_status ct__check_args(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                         void *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    for (int i = 0; i < n; i++) {
        if (!ts[i]) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input %d is NULL", op, i);
        if (ts[i]->magic != CT__TENSOR_MAGIC)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: input %d is not a live tensor (used after "
                                 "ct_tensor_release)",
                                 op, i);
        if (ts[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input %d belongs to another context",
                                 op, i);
        if (i > 0 && (ts[i]->storage->device.type != ts[0]->storage->device.type ||
                      ts[i]->storage->device.index != ts[0]->storage->device.index)) {
            char d1[CT_DEVICE_NAME_MAX], d2[CT_DEVICE_NAME_MAX];
            ct__set_error(ctx, CT_ERR_DEVICE, "%s: input %d is on device %s, input 0 on %s", op, i,
                          ct_device_format(ctx, ts[i]->storage->device, d1, sizeof d1),
                          ct_device_format(ctx, ts[0]->storage->device, d2, sizeof d2));
            ct__capture *cap = ct__any_capture(ctx);
            if (cap) cap->invalidate(cap, CT_ERR_DEVICE, ctx->err);
            return CT_ERR_DEVICE;
        }
    }
    return CT_OK;
}

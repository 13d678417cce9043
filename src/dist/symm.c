/* Symmetric memory: a buffer of the same size on every rank of a group. Node-local groups map
 * every rank's part into every process (MPI_Win_allocate_shared): put / get are memcpy and a
 * signal is an atomic store into the peer's slot. Other groups use one-sided MPI (MPI_Win_allocate
 * under a passive-target lock_all epoch): MPI_Put / MPI_Get / MPI_Accumulate(REPLACE) with a
 * flush, so each call is complete on return. Each rank's part is nbytes (rounded up to 64) followed
 * by CT_SYMM_SIGNALS 64-bit signal slots. */
#include "dist/dist_impl.h"
#include "dtype/dtype_size.h"

#include <stdlib.h>
#include <string.h>

static size_t sig_off(const ct_symm_buf *b) { return (b->nbytes + 63) & ~(size_t)63; }

CT_API ct_status ct_symm_alloc(ct_dist *g, size_t nbytes, ct_symm_buf **out) {
    if (!g) return CT_ERR_INVALID_ARG;
    ct__clear_error(g->ctx);
    if (!out) return ct__set_error(g->ctx, CT_ERR_INVALID_ARG, "symm_alloc: out is NULL");
    *out = NULL;
    if (g->broken)
        return ct__set_error(g->ctx, CT_ERR_STATE, "symm_alloc: the group broke on a timeout");
    if (nbytes > ((size_t)1 << 46))
        return ct__set_error(g->ctx, CT_ERR_INVALID_ARG, "symm_alloc: %zu bytes is too large",
                             nbytes);
    ct_status st = ct__dist_agree_size(g, nbytes, "symm_alloc");
    if (st != CT_OK) return st;
    ct_symm_buf *b = calloc(1, sizeof *b);
    if (!b) return ct__set_error(g->ctx, CT_ERR_OOM, "symm_alloc: out of memory");
    b->g = g;
    b->id = g->symm_next++;
    b->nbytes = nbytes;
    b->stride = sig_off(b) + CT_SYMM_SIGNALS * sizeof(uint64_t);
    b->shared = g->shm;
    void *base = NULL;
    int rc;
    if (b->shared) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        rc = MPI_Win_allocate_shared((MPI_Aint)b->stride + 64, 1, info, g->comm, &base, &b->win);
        MPI_Info_free(&info);
    } else {
        rc = MPI_Win_allocate((MPI_Aint)b->stride + 64, 1, MPI_INFO_NULL, g->comm, &base, &b->win);
    }
    if (rc != MPI_SUCCESS) {
        free(b);
        return ct__set_error(g->ctx, CT_ERR_OOM,
                             "symm_alloc: the MPI window of %zu bytes per rank failed", nbytes);
    }
    /* 64-byte alignment: the same pad on every rank (mappings start on page boundaries), and the
     * RMA displacements below are relative to the padded start */
    b->pad = (size_t)(-(uintptr_t)base & 63);
    b->local = (unsigned char *)base + b->pad;
    memset(b->local, 0, b->stride);
    if (b->shared) {
        b->peer = calloc((size_t)g->size, sizeof *b->peer);
        if (!b->peer) {
            MPI_Win_free(&b->win);
            free(b);
            return ct__set_error(g->ctx, CT_ERR_OOM, "symm_alloc: out of memory");
        }
        for (int p = 0; p < g->size; p++) {
            MPI_Aint sz;
            int du;
            void *ptr;
            MPI_Win_shared_query(b->win, p, &sz, &du, &ptr);
            b->peer[p] = (unsigned char *)ptr + (size_t)(-(uintptr_t)ptr & 63);
        }
    } else {
        MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win);
    }
    b->next = g->symm;
    g->symm = b;
    /* every rank's part is zeroed before anyone writes into it */
    MPI_Barrier(g->comm);
    *out = b;
    return CT_OK;
}

CT_API void *ct_symm_ptr(const ct_symm_buf *b) { return b ? b->local : NULL; }
CT_API size_t ct_symm_size(const ct_symm_buf *b) { return b ? b->nbytes : 0; }

CT_API void *ct_symm_peer_ptr(const ct_symm_buf *b, int rank) {
    if (!b || !b->shared || rank < 0 || rank >= b->g->size) return NULL;
    return b->peer[rank];
}

CT_API ct_status ct_symm_tensor(const ct_symm_buf *b, size_t offset, ct_dtype dtype, int ndim,
                                const int64_t *shape, ct_tensor **out) {
    if (!b) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = b->g->ctx;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "symm_tensor: out is NULL");
    *out = NULL;
    size_t isz = ct__itemsize(dtype);
    if (isz == 0) return ct__set_error(ctx, CT_ERR_DTYPE, "symm_tensor: invalid dtype %d", dtype);
    if (ndim < 0 || ndim > CT_MAX_DIMS || (ndim && !shape))
        return ct__set_error(ctx, CT_ERR_SHAPE, "symm_tensor: ndim %d is outside [0, %d]", ndim,
                             CT_MAX_DIMS);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 0 || !ct__checked_mul(n, shape[i], &n))
            return ct__set_error(ctx, CT_ERR_SHAPE, "symm_tensor: bad dim %d (%lld)", i,
                                 (long long)shape[i]);
    if (offset % isz || offset > b->nbytes || (size_t)n > (b->nbytes - offset) / isz)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "symm_tensor: %lld elements of %zu bytes at offset %zu do not fit the "
                             "buffer's %zu bytes (or the offset is not aligned)",
                             (long long)n, isz, offset, b->nbytes);
    return ct_tensor_from_blob(ctx, b->local + offset, dtype, ndim, shape, NULL, NULL, NULL, out);
}

static ct_status check_range(ct_symm_buf *b, int peer, size_t off, size_t n, const char *what) {
    if (peer < 0 || peer >= b->g->size)
        return ct__set_error(b->g->ctx, CT_ERR_INVALID_ARG, "%s: peer %d is outside [0, %d)", what,
                             peer, b->g->size);
    if (off > b->nbytes || n > b->nbytes - off)
        return ct__set_error(b->g->ctx, CT_ERR_INVALID_ARG,
                             "%s: %zu bytes at offset %zu exceed the buffer's %zu", what, n, off,
                             b->nbytes);
    if (n > INT32_MAX && !b->shared)
        return ct__set_error(b->g->ctx, CT_ERR_UNSUPPORTED, "%s: over 2 GiB in one RMA call", what);
    return CT_OK;
}

CT_API ct_status ct_symm_put(ct_symm_buf *b, int peer, size_t dst_offset, const void *src,
                             size_t n) {
    if (!b) return CT_ERR_INVALID_ARG;
    ct__clear_error(b->g->ctx);
    ct_status st = check_range(b, peer, dst_offset, n, "symm_put");
    if (st != CT_OK || n == 0) return st;
    if (b->shared) {
        memcpy(b->peer[peer] + dst_offset, src, n);
        atomic_thread_fence(memory_order_release);
        return CT_OK;
    }
    int rc = MPI_Put(src, (int)n, MPI_BYTE, peer, (MPI_Aint)(b->pad + dst_offset), (int)n, MPI_BYTE,
                     b->win);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(peer, b->win);
    return rc == MPI_SUCCESS ? CT_OK
                             : ct__set_error(b->g->ctx, CT_ERR_DEVICE, "symm_put: MPI_Put failed");
}

CT_API ct_status ct_symm_get(ct_symm_buf *b, int peer, size_t src_offset, void *dst, size_t n) {
    if (!b) return CT_ERR_INVALID_ARG;
    ct__clear_error(b->g->ctx);
    ct_status st = check_range(b, peer, src_offset, n, "symm_get");
    if (st != CT_OK || n == 0) return st;
    if (b->shared) {
        atomic_thread_fence(memory_order_acquire);
        memcpy(dst, b->peer[peer] + src_offset, n);
        return CT_OK;
    }
    int rc = MPI_Get(dst, (int)n, MPI_BYTE, peer, (MPI_Aint)(b->pad + src_offset), (int)n, MPI_BYTE,
                     b->win);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(peer, b->win);
    return rc == MPI_SUCCESS ? CT_OK
                             : ct__set_error(b->g->ctx, CT_ERR_DEVICE, "symm_get: MPI_Get failed");
}

CT_API ct_status ct_symm_signal(ct_symm_buf *b, int peer, int slot, uint64_t value) {
    if (!b) return CT_ERR_INVALID_ARG;
    ct__clear_error(b->g->ctx);
    if (peer < 0 || peer >= b->g->size || slot < 0 || slot >= CT_SYMM_SIGNALS)
        return ct__set_error(b->g->ctx, CT_ERR_INVALID_ARG,
                             "symm_signal: peer %d / slot %d outside [0, %d) / [0, %d)", peer, slot,
                             b->g->size, CT_SYMM_SIGNALS);
    size_t off = sig_off(b) + (size_t)slot * sizeof(uint64_t);
    if (b->shared) {
        atomic_store_explicit((_Atomic uint64_t *)(void *)(b->peer[peer] + off), value,
                              memory_order_release);
        return CT_OK;
    }
    int rc = MPI_Accumulate(&value, 1, MPI_UINT64_T, peer, (MPI_Aint)(b->pad + off), 1,
                            MPI_UINT64_T, MPI_REPLACE, b->win);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(peer, b->win);
    return rc == MPI_SUCCESS
               ? CT_OK
               : ct__set_error(b->g->ctx, CT_ERR_DEVICE, "symm_signal: MPI_Accumulate failed");
}

typedef struct {
    ct_symm_buf *b;
    _Atomic uint64_t *slot;
    uint64_t value;
} symm_wait_arg;
static bool signal_reached(ct_dist *g, void *arg, int *who) {
    symm_wait_arg *a = arg;
    (void)who;
    if (!a->b->shared) {
        /* let the MPI library progress incoming RMA, then look at our memory */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g->comm, &flag, MPI_STATUS_IGNORE);
        MPI_Win_sync(a->b->win);
    }
    return atomic_load_explicit(a->slot, memory_order_acquire) >= a->value;
}

CT_API ct_status ct_symm_wait(ct_symm_buf *b, int slot, uint64_t value) {
    if (!b) return CT_ERR_INVALID_ARG;
    ct_dist *g = b->g;
    ct__clear_error(g->ctx);
    if (slot < 0 || slot >= CT_SYMM_SIGNALS)
        return ct__set_error(g->ctx, CT_ERR_INVALID_ARG, "symm_wait: slot %d outside [0, %d)", slot,
                             CT_SYMM_SIGNALS);
    symm_wait_arg a = {b, (_Atomic uint64_t *)(void *)(b->local + sig_off(b) + (size_t)slot * 8),
                       value};
    int who = -1;
    if (ct__dist_wait_for(g, signal_reached, &a, &who)) return CT_OK;
    return ct__set_error(g->ctx, CT_ERR_TIMEOUT, "symm_wait: slot %d stayed below %llu for %.3g s",
                         slot, (unsigned long long)value, g->timeout_s);
}

CT_API void ct_symm_free(ct_symm_buf *b) {
    if (!b) return;
    ct_dist *g = b->g;
    for (ct_symm_buf **pp = &g->symm; *pp; pp = &(*pp)->next)
        if (*pp == b) {
            *pp = b->next;
            break;
        }
    if (!g->broken) {
        if (!b->shared) MPI_Win_unlock_all(b->win);
        MPI_Win_free(&b->win);
    }
    free(b->peer);
    free(b);
}

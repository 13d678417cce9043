/* Private layout of tensors and storage. A fresh CPU tensor lives in one allocation:
 * [ct_tensor][ct__storage][pad to 64][data], freed when the storage's last reference goes. */
#ifndef CTORCH_TENSOR_IMPL_H
#define CTORCH_TENSOR_IMPL_H

#include "core/ctx_impl.h"
#include "core/autograd_hook.h"
#include "dtype/dtype_size.h"

typedef struct ct__storage {
    int64_t refcount;
    ct_ctx *ctx;
    int slot; /* backend slot in ctx */
    ct_device device;
    void *data; /* device memory */
    size_t nbytes;
    void *block;        /* host block holding this header (and, on CPU, the data) */
    bool data_separate; /* data allocated by the backend, not in block */
    void *pool;         /* graph pool that owns block and data (never freed here), or NULL */
    void (*pool_unref)(void *pool);
    int64_t version; /* bumped by every in-place write (autograd's saved-tensor check) */
    bool blob;       /* ct_tensor_from_blob: data is caller memory, never freed here */
    void *blob_ptr;  /* the pointer the caller passed (handed to the deleter) */
    void (*deleter)(void *data, void *user); /* may be NULL */
    void *deleter_user;
} ct__storage;

/* Handle check words: a live tensor holds CT__TENSOR_MAGIC; release writes CT__TENSOR_DEAD. In
 * debug mode the dead header is kept (not reused), so every later use is caught; otherwise the
 * check catches what the block cache has not handed out again. */
#define CT__TENSOR_MAGIC 0x7e450a11u
#define CT__TENSOR_DEAD 0xdeadbeefu
/* Released headers the debug quarantine keeps before freeing the oldest. */
#define CT__DEBUG_QUARANTINE 65536

struct ct_tensor {
    int64_t refcount;
    ct_ctx *ctx;
    ct__storage *storage;
    ct_dtype dtype;
    int ndim;
    bool embedded;  /* struct lives in the storage block: not freed on its own */
    uint32_t magic; /* CT__TENSOR_MAGIC while alive */
    int64_t offset; /* in elements */
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS];
    struct ct_tensor *live_prev, *live_next; /* ctx->live_head list; quarantine chain when dead */
    bool requires_grad; /* mirrors the autograd metadata, so ops test it in one load */
    uint64_t ag_born;   /* the context's tape position (ag_seq) when made: only later nodes can
                           have saved it */
    void *ag;           /* autograd metadata (src/autograd/), NULL for most tensors */
};

/* True when t is a live handle (not NULL, not released). */
static inline bool ct__tensor_live(const ct_tensor *t) { return t && t->magic == CT__TENSOR_MAGIC; }
/* CT_OK, or CT_ERR_INVALID_ARG naming `op` and `what` ("input 0") for a NULL or released tensor. */
ct_status ct__check_tensor(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t);

/* New contiguous tensor on device (data uninitialised). */
ct_status ct__tensor_new(ct_ctx *ctx, ct_device dev, ct_dtype dt, int ndim, const int64_t *shape,
                         ct_tensor **out);
/* New view struct on t's storage with given geometry (storage retained). */
ct_status ct__tensor_view_of(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                             const int64_t *strides, int64_t offset, ct_tensor **out);
/* Validate a shape (0 <= ndim <= CT_MAX_DIMS, sizes >= 0, numel*itemsize fits, and the contiguous
 * strides' extent prod(max(size, 1)) * itemsize fits int64, so zero-size shapes with huge dims
 * cannot overflow the stride computation); writes numel. */
ct_status ct__check_shape(ct_ctx *ctx, const char *op, int ndim, const int64_t *shape, ct_dtype dt,
                          int64_t *numel);
/* CT_OK, or CT_ERR_OVERFLOW naming `op` when prod(max(shape[i], 1)) * itemsize overflows int64. */
ct_status ct__check_extent(ct_ctx *ctx, const char *op, int ndim, const int64_t *shape,
                           size_t itemsize);
/* CT_OK, or CT_ERR_INVALID_ARG naming `op` when value overflows dtype as c10's checked Scalar
 * conversion (ct__scalar_fits_dtype; as_int: an integral value stands for a Python int). */
ct_status ct__check_scalar_fits(ct_ctx *ctx, const char *op, ct_dtype dtype, double value,
                                bool as_int);
/* Address of the first element. */
static inline char *ct__tensor_ptr(const ct_tensor *t) {
    return (char *)t->storage->data + t->offset * (int64_t)ct__itemsize(t->dtype);
}
static inline int64_t ct__numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    return n;
}
/* Fill an op operand from a tensor. */
void ct__operand_set(ct_operand *o, const ct_tensor *t);
/* The real (part 0) or imaginary (part 1) parts of complex t as a view of its real dtype (the
 * same shape, strides doubled); no autograd record. */
ct_status ct__cx_part(ct_ctx *ctx, const ct_tensor *t, int part, ct_tensor **out);
/* Normalise a possibly negative dim against ndim; false if out of range. */
/* Release n temporaries (NULL skipped) and clear their slots: the cleanup of a composite op. */
static inline void ct__release_all(int n, ct_tensor **ts) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}
static inline bool ct__wrap_dim(int dim, int ndim, int *out) {
    int d = dim < 0 ? dim + ndim : dim;
    if (d < 0 || d >= (ndim == 0 ? 1 : ndim)) return false;
    *out = d;
    return true;
}
/* a and b are the same view of the same memory (storage, offset, dtype, shape and strides). */
static inline bool ct__same_view(const ct_tensor *a, const ct_tensor *b) {
    if (a->storage != b->storage || a->offset != b->offset || a->ndim != b->ndim ||
        a->dtype != b->dtype)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i]) return false;
    return true;
}
/* Byte range [lo, hi) of the storage t's elements span (numel > 0). */
void ct__byte_extent(const ct_tensor *t, int64_t *lo, int64_t *hi);
/* "[2, 3, 4]" into buf. */
const char *ct__shape_str(char *buf, size_t n, int ndim, const int64_t *shape);
#define CT__SHAPE_STR(t) ct__shape_str((char[96]){0}, 96, (t)->ndim, (t)->shape)

/* Operand `i` of d viewed with t's strides broadcast to (ndim, shape) (stride 0 on broadcast dims).
 */
void ct__operand_broadcast(ct_operand *o, const ct_tensor *t, int ndim, const int64_t *shape);
/* Broadcast shapes of n tensors (as torch.broadcast_shapes); CT_ERR_SHAPE naming them on failure.
 */
ct_status ct__broadcast_shapes(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                               int *ndim, int64_t *shape);
/* Common argument checks: non-NULL, same context and device. */
ct_status ct__check_args(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts, void *out);

/* Called by ct_ctx_free before anything is torn down: reports tensors still alive through the log
 * callback and frees the debug quarantine. */
void ct__tensor_ctx_teardown(ct_ctx *ctx);

#endif

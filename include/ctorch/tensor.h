/* ctorch tensors: creation, metadata, views and copies.
 *
 * A tensor is a refcounted handle to (storage, shape, strides in elements, storage offset, dtype,
 * device). Storage is refcounted too: views share it and keep it alive.
 * Ownership: every function returning a ct_tensor** gives the caller one reference; drop it with
 * ct_tensor_release (NULL is a no-op). Tensors must be released before their context is freed.
 * Thread-safety: as the owning ct_ctx (not thread-safe). Up to CT_MAX_DIMS dims.
 * NULL: every call taking a ctx returns CT_ERR_INVALID_ARG for a NULL ctx (no message: there is no
 * context to hold it), and for a NULL tensor or out-parameter (message on ctx). A released tensor
 * passed to any call is CT_ERR_INVALID_ARG ("not a live tensor"); detection is certain in debug
 * mode (ct_ctx_options.debug, CT_DEBUG=1) and best effort otherwise. Shapes whose element count,
 * byte size or contiguous strides (prod of max(size, 1), so zero-size shapes too) overflow int64
 * are CT_ERR_OVERFLOW in every creation and view call. */
#ifndef CTORCH_TENSOR_H
#define CTORCH_TENSOR_H

#include "ctorch/core.h"
#include "ctorch/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CT_MAX_DIMS 8

typedef enum ct_device_type {
    CT_DEVICE_CPU = 0,
    CT_DEVICE_CUDA = 1,
    CT_DEVICE_USER_BASE = 16
} ct_device_type;
typedef struct ct_device {
    int type; /* ct_device_type or a type returned by ct_backend_register */
    int index;
} ct_device;

typedef struct ct_tensor ct_tensor;

/* ---- creation (CPU) ---- */
/* New contiguous tensor with a copy of `data` (numel * itemsize bytes, C order). */
CT_API ct_status ct_tensor_from_host(ct_ctx *ctx, const void *data, ct_dtype dtype, int ndim,
                                     const int64_t *shape, ct_tensor **out);
/* Wrap memory the caller owns, no copy (as torch.from_blob): `data` is the first element, strides
 * in elements (NULL: contiguous; negative and zero strides allowed). deleter(data, user) runs once
 * when the last tensor or view sharing it is released (deleter may be NULL); on failure it is not
 * called and the caller keeps the memory. CPU only; data aligned to the element size. */
CT_API ct_status ct_tensor_from_blob(ct_ctx *ctx, void *data, ct_dtype dtype, int ndim,
                                     const int64_t *shape, const int64_t *strides,
                                     void (*deleter)(void *data, void *user), void *user,
                                     ct_tensor **out);
/* New uninitialised contiguous tensor. */
CT_API ct_status ct_tensor_empty(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                                 ct_tensor **out);
/* New uninitialised contiguous tensor on `device` (its backend allocates the memory). A device
 * type with no registered backend, or an index other than 0 (CPU: cpu:0 only) -> CT_ERR_DEVICE. */
CT_API ct_status ct_tensor_empty_on(ct_ctx *ctx, ct_device device, ct_dtype dtype, int ndim,
                                    const int64_t *shape, ct_tensor **out);
/* New tensor filled with zeros. */
CT_API ct_status ct_tensor_zeros(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                                 ct_tensor **out);
/* New tensor filled with `value` converted to dtype (as torch.full): CT_ERR_INVALID_ARG when value
 * overflows dtype as c10 checks it (integers: inside [min, max], so 127.5 fails for int8, and
 * uint8 also takes the integers -255..-1, wrapping; f16/bf16/f32: finite beyond the largest). */
CT_API ct_status ct_tensor_full(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                                double value, ct_tensor **out);
/* New tensor filled with ones (as torch.ones). */
CT_API ct_status ct_tensor_ones(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                                ct_tensor **out);
/* n x m tensor with ones on the main diagonal, zeros elsewhere (as torch.eye(n, m)); n, m >= 0. */
CT_API ct_status ct_tensor_eye(ct_ctx *ctx, ct_dtype dtype, int64_t n, int64_t m, ct_tensor **out);
/* `steps` values from start to end evenly spaced (as torch.linspace; steps >= 0, bool refused).
 * Computed as torch 1.13's CPU kernel: start + step * i below steps / 2, end - step * (steps - i -
 * 1) above, in the dtype's arithmetic (integers in double, truncated), bit-equal to torch's x86
 * build.
 * uint8 wraps an integral -255..-1 bound, as torch's Python int. */
CT_API ct_status ct_tensor_linspace(ct_ctx *ctx, ct_dtype dtype, double start, double end,
                                    int64_t steps, ct_tensor **out);
/* `steps` values base^x for x evenly spaced from start to end (torch.logspace: start and end
 * rounded to the dtype, the powers in double; integer dtypes truncate; uint8 wraps an integral
 * -255..-1 bound, as torch's Python int). */
CT_API ct_status ct_tensor_logspace(ct_ctx *ctx, ct_dtype dtype, double start, double end,
                                    int64_t steps, double base, ct_tensor **out);
/* int64 (2, count) row / column indices of the upper (lower) triangle of a row x col matrix from
 * diagonal offset on (torch.triu_indices / tril_indices; row and col at most 2^20). */
CT_API ct_status ct_tensor_triu_indices(ct_ctx *ctx, int64_t row, int64_t col, int64_t offset,
                                        ct_tensor **out);
CT_API ct_status ct_tensor_tril_indices(ct_ctx *ctx, int64_t row, int64_t col, int64_t offset,
                                        ct_tensor **out);
/* 1-d tensor start, start+step, ... < end (as torch.arange); step != 0. Integer dtypes: values
 * outside the dtype's range (arange(int8, 0, 1000)) -> CT_ERR_INVALID_ARG, never a silent wrap;
 * start, end and step are truncated first as in torch (step 0.5 -> 0 -> CT_ERR_INVALID_ARG). */
CT_API ct_status ct_tensor_arange(ct_ctx *ctx, ct_dtype dtype, double start, double end,
                                  double step, ct_tensor **out);
/* Uniform [0,1) floats from a counter-based generator (Philox4x32-10): element i depends only on
 * (seed, offset + i), so results do not depend on the thread count. Floating dtypes only. */
CT_API ct_status ct_tensor_rand(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                                uint64_t seed, uint64_t offset, ct_tensor **out);
/* Standard normal floats (Box-Muller on the same generator); reproducible like ct_tensor_rand. */
CT_API ct_status ct_tensor_randn(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *shape,
                                 uint64_t seed, uint64_t offset, ct_tensor **out);

/* Random integers uniform in [low, high) of an integer or floating dtype (torch.randint; the range
 * at most 2^53 and within the dtype), reproducible like ct_tensor_rand. */
CT_API ct_status ct_tensor_randint(ct_ctx *ctx, ct_dtype dtype, int64_t low, int64_t high, int ndim,
                                   const int64_t *shape, uint64_t seed, uint64_t offset,
                                   ct_tensor **out);
/* A random permutation of 0..n-1 in an integer dtype (torch.randperm), reproducible. */
CT_API ct_status ct_randperm(ct_ctx *ctx, int64_t n, ct_dtype dtype, uint64_t seed, uint64_t offset,
                             ct_tensor **out);
/* ct_tensor_rand / ct_tensor_randn with a's dtype and shape (torch.rand_like / randn_like). */
CT_API ct_status ct_rand_like(ct_ctx *ctx, const ct_tensor *a, uint64_t seed, uint64_t offset,
                              ct_tensor **out);
CT_API ct_status ct_randn_like(ct_ctx *ctx, const ct_tensor *a, uint64_t seed, uint64_t offset,
                               ct_tensor **out);
/* 1 with probability p[i], else 0, in p's (floating) dtype (torch.bernoulli); p outside [0, 1]:
 * CT_ERR_INVALID_ARG (its range is read on the host: eager only). */
CT_API ct_status ct_bernoulli(ct_ctx *ctx, const ct_tensor *p, uint64_t seed, uint64_t offset,
                              ct_tensor **out);
/* torch.normal(mean, std): mean + std z with z standard normal, mean and std broadcast (floating
 * result of their promoted dtype; std < 0: CT_ERR_INVALID_ARG, read on the host); no gradient. */
CT_API ct_status ct_normal(ct_ctx *ctx, const ct_tensor *mean, const ct_tensor *std, uint64_t seed,
                           uint64_t offset, ct_tensor **out);
/* torch.normal(mean, std, size) with scalar mean and std (>= 0), of a floating dtype. */
CT_API ct_status ct_normal_scalar(ct_ctx *ctx, double mean, double std, ct_dtype dtype, int ndim,
                                  const int64_t *shape, uint64_t seed, uint64_t offset,
                                  ct_tensor **out);
/* torch.randint_like: ct_tensor_randint with a's dtype and shape. */
CT_API ct_status ct_randint_like(ct_ctx *ctx, const ct_tensor *a, int64_t low, int64_t high,
                                 uint64_t seed, uint64_t offset, ct_tensor **out);
/* Tensor.uniform_ / normal_ / exponential_ / cauchy_ / log_normal_ / geometric_: t filled in place
 * with samples (computed in float64, converted once; t may be a view; torch's parameter checks;
 * exponential_ with lambda 0 fills inf, geometric_ takes p in (0, 1) and any numeric dtype). */
CT_API ct_status ct_tensor_uniform_(ct_ctx *ctx, ct_tensor *t, double from, double to,
                                    uint64_t seed, uint64_t offset);
CT_API ct_status ct_tensor_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std,
                                   uint64_t seed, uint64_t offset);
CT_API ct_status ct_tensor_exponential_(ct_ctx *ctx, ct_tensor *t, double lambd, uint64_t seed,
                                        uint64_t offset);
CT_API ct_status ct_tensor_cauchy_(ct_ctx *ctx, ct_tensor *t, double median, double sigma,
                                   uint64_t seed, uint64_t offset);
CT_API ct_status ct_tensor_log_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std,
                                       uint64_t seed, uint64_t offset);
CT_API ct_status ct_tensor_geometric_(ct_ctx *ctx, ct_tensor *t, double p, uint64_t seed,
                                      uint64_t offset);
/* torch.poisson: a Poisson(rate) count per element in rates' floating dtype (inversion below 10,
 * Hoermann's PTRS above; inf gives inf where torch overflows); a negative or NaN rate:
 * CT_ERR_INVALID_ARG. Samples on the host (eager). */
CT_API ct_status ct_poisson(ct_ctx *ctx, const ct_tensor *rates, uint64_t seed, uint64_t offset,
                            ct_tensor **out);
/* torch.binomial: Binomial(floor(count), prob) per element (count and prob of one shape and
 * floating dtype; count <= 0 or prob <= 0 give 0, prob >= 1 gives count, NaN gives NaN, as torch;
 * inversion for a small mean, Hoermann's BTRS otherwise). Samples on the host (eager). */
CT_API ct_status ct_binomial(ct_ctx *ctx, const ct_tensor *count, const ct_tensor *prob,
                             uint64_t seed, uint64_t offset, ct_tensor **out);
/* torch.multinomial: num_samples category indices (int64) per row of probs (C) or (R, C)
 * (non-negative, finite, a positive sum; checked on the host): with replacement by the inverse CDF,
 * without as the largest p_i / E_i with E_i exponential (torch's algorithm; num_samples <= C). */
CT_API ct_status ct_multinomial(ct_ctx *ctx, const ct_tensor *probs, int64_t num_samples,
                                bool replacement, uint64_t seed, uint64_t offset, ct_tensor **out);

/* ---- reference counting ---- */
/* Add a reference; returns t (NULL for NULL; NULL for a released tensor, reported on its context's
 * error message and log callback at CT_LOG_ERROR). */
CT_API ct_tensor *ct_tensor_retain(ct_tensor *t);
/* Drop a reference; the tensor (and its storage, when unshared) is freed at zero. NULL: no-op.
 * Releasing an already released tensor is ignored and reported (error message + CT_LOG_ERROR
 * log); certain in debug mode, best effort otherwise (a reused block cannot be told apart). */
CT_API void ct_tensor_release(ct_tensor *t);

/* ---- metadata. A NULL (or released) t gives neutral values: ndim 0, shape / stride / data_ptr
 * NULL, size / storage_offset / numel 0, dtype CT_DTYPE_COUNT, device {-1, -1}, is_contiguous
 * false. Out-of-range dims return 0. ---- */
/* Number of dims (0 for a scalar). */
CT_API int ct_tensor_ndim(const ct_tensor *t);
/* Pointer to the CT_MAX_DIMS-capacity shape array (ndim entries valid). */
CT_API const int64_t *ct_tensor_shape(const ct_tensor *t);
/* Pointer to the strides array, in elements. */
CT_API const int64_t *ct_tensor_stride(const ct_tensor *t);
/* Size of one dim; negative dims count from the end. */
CT_API int64_t ct_tensor_size(const ct_tensor *t, int dim);
/* Offset of the first element in the storage, in elements. */
CT_API int64_t ct_tensor_storage_offset(const ct_tensor *t);
/* Element dtype. */
CT_API ct_dtype ct_tensor_dtype(const ct_tensor *t);
/* Device holding the storage. */
CT_API ct_device ct_tensor_device(const ct_tensor *t);
/* Number of elements (product of the shape). */
CT_API int64_t ct_tensor_numel(const ct_tensor *t);
/* True if the elements are laid out in C order without gaps. */
CT_API bool ct_tensor_is_contiguous(const ct_tensor *t);
/* Host pointer to the first element (CPU tensors only, else NULL). Valid while t lives. */
CT_API void *ct_tensor_data_ptr(const ct_tensor *t);

/* ---- host transfer ---- */
/* Copy the tensor's elements in C order into dst; nbytes must equal numel * itemsize.
 * Works for any strides and any device. Errors are recorded on the tensor's context. */
CT_API ct_status ct_tensor_to_host(const ct_tensor *t, void *dst, size_t nbytes);
/* Read one element (numel must be 1) converted to double (as Tensor.item()). NULL t or out:
 * CT_ERR_INVALID_ARG. */
CT_API ct_status ct_tensor_item(const ct_tensor *t, double *out);
/* Copy t to another device (a new contiguous tensor). */
CT_API ct_status ct_tensor_to_device(ct_ctx *ctx, const ct_tensor *t, ct_device device,
                                     ct_tensor **out);

/* ---- views (share storage; no data is copied) ---- */
/* View with a new shape; one entry may be -1. Fails with CT_ERR_SHAPE if strides do not allow it.
 */
CT_API ct_status ct_tensor_view(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                                ct_tensor **out);
/* Like view, but copies when a view is impossible (as torch.reshape). */
CT_API ct_status ct_tensor_reshape(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                                   ct_tensor **out);
/* Reorder dims: out.shape[i] = t.shape[perm[i]]; perm is a permutation of 0..ndim-1. */
CT_API ct_status ct_tensor_permute(ct_ctx *ctx, const ct_tensor *t, const int *perm,
                                   ct_tensor **out);
/* Swap two dims (negative dims count from the end). */
CT_API ct_status ct_tensor_transpose(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1,
                                     ct_tensor **out);
/* Elements start, start+1, ..., start+length-1 of `dim`. */
CT_API ct_status ct_tensor_narrow(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start,
                                  int64_t length, ct_tensor **out);
/* Python-style slice t[start:end:step] along dim (step > 0; start/end clamped, negatives wrap). */
CT_API ct_status ct_tensor_slice(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start,
                                 int64_t end, int64_t step, ct_tensor **out);
/* Tensor.unfold: a view whose dim holds the (n - size) / step + 1 windows of `size` elements
 * starting every `step`, each window the new last dim; differentiable (overlaps sum). */
CT_API ct_status ct_tensor_unfold(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t size,
                                  int64_t step, ct_tensor **out);
/* torch.as_strided: a view of t's storage with the given sizes, strides and storage offset (in
 * elements; every element read must lie in the storage, non-negative strides); differentiable. */
CT_API ct_status ct_tensor_as_strided(ct_ctx *ctx, const ct_tensor *t, int ndim,
                                      const int64_t *size, const int64_t *stride,
                                      int64_t storage_offset, ct_tensor **out);
/* Broadcast view to `shape` (size-1 dims get stride 0; -1 keeps a dim; new leading dims allowed).
 */
CT_API ct_status ct_tensor_expand(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                                  ct_tensor **out);
/* Remove dim (if its size is 1; otherwise returns a plain view); dim = CT_ALL_DIMS removes all 1s.
 */
#define CT_ALL_DIMS (-1000)
CT_API ct_status ct_tensor_squeeze(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out);
/* Insert a size-1 dim at position dim (-ndim-1 <= dim <= ndim). */
CT_API ct_status ct_tensor_unsqueeze(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out);

/* ---- copies ---- */
/* t itself (retained) if already contiguous, else a contiguous copy. */
CT_API ct_status ct_tensor_contiguous(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* Contiguous deep copy. */
CT_API ct_status ct_tensor_clone(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* dst[...] = src broadcast to dst's shape, converting dtype (as Tensor.copy_). dst may be a view.
 * Under autograd dst takes torch's CopyBackwards node (docs/autograd.md, in-place ops). */
CT_API ct_status ct_tensor_copy_(ct_ctx *ctx, ct_tensor *dst, const ct_tensor *src);
/* Every element of t = value (as Tensor.fill_; value checked as in ct_tensor_full). t may be any
 * view, an expanded one included. Under autograd t takes FillBackward2 (zero gradient). */
CT_API ct_status ct_tensor_fill_(ct_ctx *ctx, ct_tensor *t, double value);
/* ct_tensor_fill_(ctx, t, 0) (as Tensor.zero_; ZeroBackward0 under autograd). */
CT_API ct_status ct_tensor_zero_(ct_ctx *ctx, ct_tensor *t);

#ifdef __cplusplus
}
#endif
#endif

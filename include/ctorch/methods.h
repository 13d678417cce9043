/* ctorch: the Tensor methods and torch names a PyTorch user reaches for beyond the ops of ops.h
 * (docs/everyday.md "Tensor methods"): new_* constructors, *_as shape / dtype helpers, sum_to_size,
 * fill_diagonal_, the in-place view ops (t_, transpose_, squeeze_ ...: they change the handle's
 * shape and strides, as torch's), random in-place fills, and torch's aliases (split_with_sizes,
 * unsafe_split, upsample, the *_with_indices pools).
 * Ownership: every ct_tensor ** out-parameter receives a new reference. Thread-safety: as the
 * owning ct_ctx. */
#ifndef CTORCH_METHODS_H
#define CTORCH_METHODS_H

#include "ctorch/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tensor.new_empty / new_zeros / new_ones / new_full: shape given, self's dtype ---- */
CT_API ct_status ct_new_empty(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                              ct_tensor **out);
CT_API ct_status ct_new_zeros(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                              ct_tensor **out);
CT_API ct_status ct_new_ones(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                             ct_tensor **out);
CT_API ct_status ct_new_full(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                             double value, ct_tensor **out);

/* ---- the *_as helpers ---- */
/* Tensor.expand_as / reshape_as / view_as: t with other's shape (expand: broadcast view; reshape:
 * a view when possible, else a copy; view: a view or CT_ERR_SHAPE). Differentiable. */
CT_API ct_status ct_expand_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other,
                              ct_tensor **out);
CT_API ct_status ct_reshape_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other,
                               ct_tensor **out);
CT_API ct_status ct_view_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other,
                            ct_tensor **out);
/* Tensor.type_as: t cast to other's dtype; t itself (retained) when the dtypes match, as torch. */
CT_API ct_status ct_type_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other,
                            ct_tensor **out);
/* Tensor.sum_to_size: t summed to shape, which must be expandable to t's shape (torch's "size
 * {[2]} is not expandable to size {[2, 3]}." otherwise: CT_ERR_SHAPE). Differentiable. */
CT_API ct_status ct_sum_to_size(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                                ct_tensor **out);
/* Tensor.element_size: bytes per element of t's dtype (0 for NULL). */
CT_API size_t ct_tensor_element_size(const ct_tensor *t);

/* ---- in-place writes ---- */
/* Tensor.fill_diagonal_: value on the main diagonal of t (>= 2 dims, all equal when > 2); a tall
 * matrix with wrap restarts the diagonal every cols + 1 rows, as torch. Differentiable (the
 * gradient is zero on the diagonal; torch prints CopySlices, ctorch MaskedFillBackward0). */
CT_API ct_status ct_fill_diagonal_(ct_ctx *ctx, ct_tensor *t, double value, bool wrap);
/* Tensor.igamma_ / igammac_: self = igamma(self, other) in place (as ct_inplace.h's ops). */
CT_API ct_status ct_igamma_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_igammac_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
/* Tensor.bernoulli_(p): t filled with 1 (probability p in [0, 1]) or 0, any dtype; draws as
 * ct_tensor_rand(seed, offset) < p. A leaf that requires grad is refused, as torch. */
CT_API ct_status ct_tensor_bernoulli_(ct_ctx *ctx, ct_tensor *t, double p, uint64_t seed,
                                      uint64_t offset);
/* Tensor.random_(from, to): integers uniform in [from, to) (from < to; within t's dtype, at most
 * 2^53 apart for floating dtypes) written into t, as ct_tensor_randint. */
CT_API ct_status ct_tensor_random_(ct_ctx *ctx, ct_tensor *t, int64_t from, int64_t to,
                                   uint64_t seed, uint64_t offset);

/* ---- in-place view ops: t's handle takes the view's shape, strides, offset and history ---- */
/* Tensor.t_ / transpose_ / swapaxes_ / swapdims_ / squeeze_ (dim or CT_ALL_DIMS) / unsqueeze_ /
 * as_strided_: t becomes the view the op without _ returns (every holder of the handle sees the
 * new shape; other views are untouched). Under autograd t takes the view's node (TBackward1 ...
 * as torch's in-place overloads print); a leaf that requires grad is refused (torch's "a leaf
 * Variable that requires grad is being used in an in-place operation"); with grad mode off the
 * layout changes and the history stays, so a tensor with history may then only squeeze_ /
 * unsqueeze_ (the others: CT_ERR_STATE, where torch fails at backward). */
CT_API ct_status ct_t_(ct_ctx *ctx, ct_tensor *t);
CT_API ct_status ct_transpose_(ct_ctx *ctx, ct_tensor *t, int dim0, int dim1);
CT_API ct_status ct_swapaxes_(ct_ctx *ctx, ct_tensor *t, int axis0, int axis1);
CT_API ct_status ct_swapdims_(ct_ctx *ctx, ct_tensor *t, int dim0, int dim1);
CT_API ct_status ct_squeeze_(ct_ctx *ctx, ct_tensor *t, int dim);
CT_API ct_status ct_unsqueeze_(ct_ctx *ctx, ct_tensor *t, int dim);
CT_API ct_status ct_as_strided_(ct_ctx *ctx, ct_tensor *t, int ndim, const int64_t *size,
                                const int64_t *stride, int64_t storage_offset);
/* Tensor.detach_: t loses its history (a leaf that does not require grad); a view with history is
 * refused, as torch's "Can't detach views in-place". */
CT_API ct_status ct_detach_(ct_ctx *ctx, ct_tensor *t);

/* Tensor.apply_ / map_: t[i] = fn(t[i]) (map_: fn(t[i], other[i]), other broadcast to t), the
 * values passed as doubles and written back into t's dtype (integers truncated, as torch's
 * Python callable results); a host loop, eager only (refused during a capture), real dtypes
 * (int64 beyond 2^53 loses digits). A tensor that requires grad is refused (torch's "Can't call
 * apply_() on Variable that requires grad"). */
CT_API ct_status ct_tensor_apply_(ct_ctx *ctx, ct_tensor *t, double (*fn)(double x, void *user),
                                  void *user);
CT_API ct_status ct_tensor_map_(ct_ctx *ctx, ct_tensor *t, const ct_tensor *other,
                                double (*fn)(double x, double y, void *user), void *user);

/* ---- torch functions ---- */
/* torch.segment_reduce: data reduced over consecutive segments along axis by reduce ("sum",
 * "mean", "max", "min", "prod"); the segments are given by lengths (int32 / int64, shape
 * data.shape[:axis] + (S,)) or offsets (shape data.shape[:axis] + (S + 1,): segment s is
 * [offsets[s], offsets[s+1])), exactly one of them. An empty segment gives initial (if not NULL),
 * else 0 / NaN / -inf / inf / 1; with initial, every segment includes it (mean: (initial + sum) /
 * count). Without unsafe the lengths must be >= 0 and each row sum to data.shape[axis] (checked on
 * the host outside a capture, torch's messages). Floating data; differentiable (scatter_reduce's
 * gradients: ties of max / min share it). */
CT_API ct_status ct_segment_reduce(ct_ctx *ctx, const ct_tensor *data, const char *reduce,
                                   const ct_tensor *lengths, const ct_tensor *offsets, int axis,
                                   bool unsafe, const double *initial, ct_tensor **out);

/* torch.nn.utils.rnn.pad_sequence: n sequences (L_i, *...) of one dtype and trailing shape, padded
 * with padding_value to the longest and stacked: (max L, n, *...) or, batch_first, (n, max L,
 * *...). Differentiable (constant_pad_nd and stack); with ct_rnn_opts.lengths it stands in for
 * torch's PackedSequence. */
CT_API ct_status ct_pad_sequence(ct_ctx *ctx, int n, const ct_tensor *const *seqs, bool batch_first,
                                 double padding_value, ct_tensor **out);

/* torch.native_layer_norm / native_batch_norm / native_group_norm: the normalisation (the value
 * and autograd of ct_layer_norm, ct_batch_norm, ct_group_norm) and the statistics torch's kernels
 * save for the backward, which custom backward functions need: mean and rstd = 1 / sqrt(biased
 * variance + eps), without gradient. layer_norm: shape x.shape[:-n_norm] + (1,) * n_norm;
 * batch_norm: (C) in training, empty (0) in evaluation (as torch); group_norm: (N, num_groups).
 * mean / rstd may be NULL (not wanted). */
CT_API ct_status ct_native_layer_norm(ct_ctx *ctx, const ct_tensor *x, int n_norm,
                                      const ct_tensor *weight, const ct_tensor *bias, double eps,
                                      ct_tensor **out, ct_tensor **mean, ct_tensor **rstd);
CT_API ct_status ct_native_batch_norm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weight,
                                      const ct_tensor *bias, ct_tensor *running_mean,
                                      ct_tensor *running_var, bool training, double momentum,
                                      double eps, ct_tensor **out, ct_tensor **save_mean,
                                      ct_tensor **save_invstd);
CT_API ct_status ct_native_group_norm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weight,
                                      const ct_tensor *bias, int num_groups, double eps,
                                      ct_tensor **out, ct_tensor **mean, ct_tensor **rstd);

/* ---- torch's aliases ---- */
/* torch.split_with_sizes / unsafe_split_with_sizes: ct_split_sizes; unsafe_split: ct_split;
 * unsafe_chunk: ct_chunk (torch's "unsafe" forms differ only in autograd's view tracking). */
CT_API ct_status ct_split_with_sizes(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes,
                                     int dim, ct_tensor **outs);
CT_API ct_status ct_unsafe_split_with_sizes(ct_ctx *ctx, const ct_tensor *t, int n,
                                            const int64_t *sizes, int dim, ct_tensor **outs);
CT_API ct_status ct_unsafe_split(ct_ctx *ctx, const ct_tensor *t, int64_t split_size, int dim,
                                 int max_out, ct_tensor **outs, int *n_out);
CT_API ct_status ct_unsafe_chunk(ct_ctx *ctx, const ct_tensor *t, int chunks, int dim, int max_out,
                                 ct_tensor **outs, int *n_out);
/* F.upsample (torch's deprecated interpolate): ct_interpolate. F.upsample_nearest: mode nearest.
 * F.upsample_bilinear: bilinear with align_corners = true, 4-d input (N, C, H, W). By size; the
 * scale-factor form is ct_interpolate_scale. */
CT_API ct_status ct_upsample(ct_ctx *ctx, const ct_tensor *x, int n_size, const int64_t *size,
                             ct_interp_mode mode, bool align_corners, ct_tensor **out);
CT_API ct_status ct_upsample_nearest(ct_ctx *ctx, const ct_tensor *x, int n_size,
                                     const int64_t *size, ct_tensor **out);
CT_API ct_status ct_upsample_bilinear(ct_ctx *ctx, const ct_tensor *x, const int64_t size[2],
                                      ct_tensor **out);
/* F.max_pool1d/2d/3d_with_indices, adaptive_max_pool1d/2d/3d_with_indices and
 * fractional_max_pool2d/3d_with_indices: the pools with return_indices = true (indices required;
 * arguments as ct_max_pool1d, ct_max_pool2d_ex, ct_max_pool3d, ct_adaptive_max_pool*d and
 * ct_fractional_max_pool*d). */
CT_API ct_status ct_max_pool1d_with_indices(ct_ctx *ctx, const ct_tensor *x, int64_t kernel,
                                            int64_t stride, int64_t padding, int64_t dilation,
                                            bool ceil_mode, ct_tensor **out, ct_tensor **indices);
CT_API ct_status ct_max_pool2d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                            const int64_t kernel[2], const int64_t stride[2],
                                            const int64_t padding[2], const int64_t dilation[2],
                                            bool ceil_mode, ct_tensor **out, ct_tensor **indices);
CT_API ct_status ct_max_pool3d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                            const int64_t kernel[3], const int64_t stride[3],
                                            const int64_t padding[3], const int64_t dilation[3],
                                            bool ceil_mode, ct_tensor **out, ct_tensor **indices);
CT_API ct_status ct_adaptive_max_pool1d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                                     int64_t output_size, ct_tensor **out,
                                                     ct_tensor **indices);
CT_API ct_status ct_adaptive_max_pool2d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                                     const int64_t output_size[2], ct_tensor **out,
                                                     ct_tensor **indices);
CT_API ct_status ct_adaptive_max_pool3d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                                     const int64_t output_size[3], ct_tensor **out,
                                                     ct_tensor **indices);
CT_API ct_status ct_fractional_max_pool2d_with_indices(
    ct_ctx *ctx, const ct_tensor *x, const int64_t kernel_size[2], const int64_t output_size[2],
    const double output_ratio[2], const ct_tensor *random_samples, uint64_t seed, ct_tensor **out,
    ct_tensor **indices);
CT_API ct_status ct_fractional_max_pool3d_with_indices(
    ct_ctx *ctx, const ct_tensor *x, const int64_t kernel_size[3], const int64_t output_size[3],
    const double output_ratio[3], const ct_tensor *random_samples, uint64_t seed, ct_tensor **out,
    ct_tensor **indices);

#ifdef __cplusplus
}
#endif

#endif

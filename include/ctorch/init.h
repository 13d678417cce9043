/* ctorch parameter initialisation and parameter tools: torch.nn.init (xavier / kaiming / orthogonal
 * / trunc_normal ...) and torch.nn.utils (parameters_to_vector, weight_norm, spectral_norm,
 * fuse_conv_bn_weights, pruning masks).
 *
 * The ct_init_*_ functions fill an existing floating tensor in place (any strides) under no_grad,
 * as torch's do, so a leaf parameter that requires grad is filled without an error. Random ones
 * take (seed, offset) of ctorch's counter-based generator (ct_tensor_rand): the same seed gives the
 * same values on every machine and thread count, but not torch's values (its generator differs);
 * the distributions, bounds and scales are torch's. Samples are drawn and transformed in float64
 * and rounded once to the tensor's dtype. A tensor with no elements is left alone where torch
 * leaves it (kaiming_*: a CT_LOG_WARN message, as torch's warning). Errors: CT_ERR_INVALID_ARG with
 * torch's message for shapes and arguments torch refuses, CT_ERR_DTYPE for non-floating tensors
 * where a random fill is asked. Thread-safety: as the ops (one ctx per thread). docs/init.md. */
#ifndef CTORCH_INIT_H
#define CTORCH_INIT_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- torch.nn.init ---- */

/* torch.nn.init.calculate_gain: 1 for "linear", "conv{1,2,3}d", "conv_transpose{1,2,3}d" and
 * "sigmoid", 5/3 "tanh", sqrt(2) "relu", sqrt(2 / (1 + slope^2)) "leaky_relu" (slope = *param, or
 * 0.01 when param is NULL), 3/4 "selu"; another name: CT_ERR_INVALID_ARG. */
CT_API ct_status ct_init_calculate_gain(ct_ctx *ctx, const char *nonlinearity, const double *param,
                                        double *gain);
/* torch.nn.init._calculate_fan_in_and_fan_out: fan_in = size(1) * r, fan_out = size(0) * r with r
 * the product of the sizes after dim 1; fewer than 2 dims: CT_ERR_INVALID_ARG. */
CT_API ct_status ct_init_fan_in_and_fan_out(ct_ctx *ctx, const ct_tensor *t, int64_t *fan_in,
                                            int64_t *fan_out);
/* nn.init.uniform_(t, a, b): U(a, b) (a <= b). */
CT_API ct_status ct_init_uniform_(ct_ctx *ctx, ct_tensor *t, double a, double b, uint64_t seed,
                                  uint64_t offset);
/* nn.init.normal_(t, mean, std): N(mean, std^2) (std >= 0). */
CT_API ct_status ct_init_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std, uint64_t seed,
                                 uint64_t offset);
/* nn.init.trunc_normal_(t, mean, std, a, b): N(mean, std^2) restricted to [a, b] (a <= b, std >= 0;
 * torch's defaults 0, 1, -2, 2). Inverse-CDF sampling on the tail side of the interval, accurate
 * also where torch's erfinv form degrades (an interval far out in a tail); docs/init.md. */
CT_API ct_status ct_init_trunc_normal_(ct_ctx *ctx, ct_tensor *t, double mean, double std, double a,
                                       double b, uint64_t seed, uint64_t offset);
/* nn.init.constant_ / ones_ / zeros_: every element = val / 1 / 0 (any numeric dtype). */
CT_API ct_status ct_init_constant_(ct_ctx *ctx, ct_tensor *t, double val);
CT_API ct_status ct_init_ones_(ct_ctx *ctx, ct_tensor *t);
CT_API ct_status ct_init_zeros_(ct_ctx *ctx, ct_tensor *t);
/* nn.init.eye_: a 2-d t = the identity (ones on the main diagonal); other ranks refused. */
CT_API ct_status ct_init_eye_(ct_ctx *ctx, ct_tensor *t);
/* nn.init.dirac_(t, groups): a 3-, 4- or 5-d convolution weight that passes its input through:
 * t[g * out_per_group + d, d, centre...] = 1 for d < min(out_per_group, size(1)), 0 elsewhere;
 * size(0) must be divisible by groups (>= 1). */
CT_API ct_status ct_init_dirac_(ct_ctx *ctx, ct_tensor *t, int64_t groups);
/* nn.init.xavier_uniform_(t, gain): U(-a, a), a = gain sqrt(6 / (fan_in + fan_out)) (Glorot). */
CT_API ct_status ct_init_xavier_uniform_(ct_ctx *ctx, ct_tensor *t, double gain, uint64_t seed,
                                         uint64_t offset);
/* nn.init.xavier_normal_(t, gain): N(0, std^2), std = gain sqrt(2 / (fan_in + fan_out)). */
CT_API ct_status ct_init_xavier_normal_(ct_ctx *ctx, ct_tensor *t, double gain, uint64_t seed,
                                        uint64_t offset);
/* nn.init.kaiming_uniform_(t, a, mode, nonlinearity) (He): U(-b, b), b = gain sqrt(3 / fan) with
 * gain = calculate_gain(nonlinearity, a) and fan = fan_in or fan_out by mode ("fan_in" / "fan_out",
 * any case; NULL: "fan_in"); nonlinearity NULL: "leaky_relu". No elements: a warning, no change. */
CT_API ct_status ct_init_kaiming_uniform_(ct_ctx *ctx, ct_tensor *t, double a, const char *mode,
                                          const char *nonlinearity, uint64_t seed, uint64_t offset);
/* nn.init.kaiming_normal_: N(0, std^2), std = gain / sqrt(fan); arguments as kaiming_uniform_. */
CT_API ct_status ct_init_kaiming_normal_(ct_ctx *ctx, ct_tensor *t, double a, const char *mode,
                                         const char *nonlinearity, uint64_t seed, uint64_t offset);
/* nn.init.orthogonal_(t, gain): t viewed as (size(0), numel / size(0)) = gain Q, Q with orthonormal
 * rows or columns (the QR of a normal matrix, signs fixed by R's diagonal: Haar-distributed);
 * computed in float64. Fewer than 2 dims: CT_ERR_INVALID_ARG; no elements: no change. */
CT_API ct_status ct_init_orthogonal_(ct_ctx *ctx, ct_tensor *t, double gain, uint64_t seed,
                                     uint64_t offset);
/* nn.init.sparse_(t, sparsity, std): a 2-d t ~ N(0, std^2) with ceil(sparsity * rows) zeros in
 * each column at random rows (their positions drawn from a second stream derived from seed). */
CT_API ct_status ct_init_sparse_(ct_ctx *ctx, ct_tensor *t, double sparsity, double std,
                                 uint64_t seed, uint64_t offset);

/* ---- torch.nn.utils ---- */

/* nn.utils.parameters_to_vector: the n parameters flattened and concatenated (1-d, their promoted
 * dtype); n >= 1. Differentiable. */
CT_API ct_status ct_parameters_to_vector(ct_ctx *ctx, int n, const ct_tensor *const *params,
                                         ct_tensor **out);
/* nn.utils.vector_to_parameters: params[i] = the next numel(params[i]) elements of the 1-d vec,
 * copied in (converted to the parameter's dtype, under no_grad); vec shorter than the parameters:
 * CT_ERR_SHAPE, longer: the rest is ignored (as torch). torch rebinds .data instead (a parameter
 * then takes vec's dtype); nothing is written when an argument is refused. */
CT_API ct_status ct_vector_to_parameters(ct_ctx *ctx, const ct_tensor *vec, int n,
                                         ct_tensor *const *params);
/* torch.norm_except_dim(v, pow, dim): the pow-norm over every dim but dim, kept as size 1 (shape
 * 1..size(dim)..1); dim == -1 is torch's "no dim": the norm of everything, 0-d. Differentiable. */
CT_API ct_status ct_norm_except_dim(ct_ctx *ctx, const ct_tensor *v, double pow, int dim,
                                    ct_tensor **out);
/* torch._weight_norm (nn.utils.weight_norm's weight): v * (g / norm_except_dim(v, 2, dim)); g has
 * norm_except_dim's shape or as many elements (size(dim), 1 for dim -1). Differentiable in v, g. */
CT_API ct_status ct_weight_norm(ct_ctx *ctx, const ct_tensor *v, const ct_tensor *g, int dim,
                                ct_tensor **out);
/* The vectors spectral_norm starts from (nn.utils.spectral_norm's apply): u (h), v (w) normalised
 * standard normal draws, W viewed as (h, w) = (size(dim), numel / size(dim)); eps as below. */
CT_API ct_status ct_spectral_norm_init(ct_ctx *ctx, const ct_tensor *weight, int dim, double eps,
                                       uint64_t seed, uint64_t offset, ct_tensor **u,
                                       ct_tensor **v);
/* nn.utils.spectral_norm's weight: W / sigma, sigma = u . (W_mat v). With do_power_iteration
 * (training), first n_power_iterations (>= 0) times v = normalize(W_mat^T u), u = normalize(W_mat
 * v) (max(norm, eps)), written into u and v in place, without gradient. Differentiable in weight;
 * dim may be negative. */
CT_API ct_status ct_spectral_norm(ct_ctx *ctx, const ct_tensor *weight, ct_tensor *u, ct_tensor *v,
                                  int n_power_iterations, int dim, double eps,
                                  bool do_power_iteration, ct_tensor **out);
/* nn.utils.fusion.fuse_conv_bn_weights: an eval-mode BatchNorm folded into the convolution before
 * it: w' = w * (bn_w / sqrt(rv + eps)) per output channel (dim 1 when transpose), b' = (b - rm) *
 * rsqrt(rv + eps) * bn_w + bn_b. conv_b, bn_w, bn_b may be NULL (0, 1, 0). */
CT_API ct_status ct_fuse_conv_bn_weights(ct_ctx *ctx, const ct_tensor *conv_w,
                                         const ct_tensor *conv_b, const ct_tensor *bn_rm,
                                         const ct_tensor *bn_rv, double bn_eps,
                                         const ct_tensor *bn_w, const ct_tensor *bn_b,
                                         bool transpose, ct_tensor **w, ct_tensor **b);
/* nn.utils.fusion.fuse_linear_bn_weights: BatchNorm1d after a linear layer folded into it: scale =
 * bn_w * rsqrt(rv + eps), w' = w * scale[:, None], b' = (b - rm) * scale + bn_b (NULLs as above).
 */
CT_API ct_status ct_fuse_linear_bn_weights(ct_ctx *ctx, const ct_tensor *linear_w,
                                           const ct_tensor *linear_b, const ct_tensor *bn_rm,
                                           const ct_tensor *bn_rv, double bn_eps,
                                           const ct_tensor *bn_w, const ct_tensor *bn_b,
                                           ct_tensor **w, ct_tensor **b);

/* ---- torch.nn.utils.prune: masks (t's shape and dtype, 1 keeps, 0 prunes; multiply) ---- */

/* amount: a fraction in [0, 1] of the entries (channels) to prune, rounded as Python's round (half
 * to even), or with amount_is_count a number of them (integral, at most their count); otherwise
 * CT_ERR_INVALID_ARG with torch's message. */

/* L1Unstructured: 0 at the amount entries of smallest |importance_scores| (NULL: t), as
 * torch.topk(largest=False) picks them (ties at the cut-off: the lower index first). prev_mask
 * (NULL: none) continues an earlier pruning as torch's PruningContainer: its zeros stay and amount
 * counts the entries it keeps. */
CT_API ct_status ct_prune_l1_unstructured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                          bool amount_is_count, const ct_tensor *importance_scores,
                                          const ct_tensor *prev_mask, ct_tensor **mask);
/* RandomUnstructured: 0 at amount entries drawn uniformly (ctorch's generator: seed, offset);
 * prev_mask as above. */
CT_API ct_status ct_prune_random_unstructured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                              bool amount_is_count, const ct_tensor *prev_mask,
                                              uint64_t seed, uint64_t offset, ct_tensor **mask);
/* LnStructured: along dim (t has >= 2 dims) the amount channels of smallest n-norm of
 * importance_scores (NULL: t; the norm over every other dim, n as ct_linalg_vector_norm's ord)
 * are 0; the others 1 (torch.topk(largest=True) keeps them). */
CT_API ct_status ct_prune_ln_structured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                        bool amount_is_count, double n, int dim,
                                        const ct_tensor *importance_scores, ct_tensor **mask);
/* RandomStructured: amount channels along dim drawn uniformly are 0. */
CT_API ct_status ct_prune_random_structured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                            bool amount_is_count, int dim, uint64_t seed,
                                            uint64_t offset, ct_tensor **mask);
/* global_unstructured with L1Unstructured: the amount entries of smallest |score| across all n
 * tensors (their scores concatenated as parameters_to_vector does; importance_scores NULL or a
 * NULL entry: the tensor) are 0; masks[i] (owned) has ts[i]'s shape and dtype. */
CT_API ct_status ct_prune_global_unstructured(ct_ctx *ctx, int n, const ct_tensor *const *ts,
                                              double amount, bool amount_is_count,
                                              const ct_tensor *const *importance_scores,
                                              ct_tensor **masks);

#ifdef __cplusplus
}
#endif
#endif

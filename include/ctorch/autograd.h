/* ctorch autograd: reverse-mode differentiation with PyTorch semantics (docs/autograd.md).
 *
 * A floating leaf tensor marked requires_grad makes every op result computed from it (with grad
 * mode on) record a tape node; ct_backward walks the tape from a root and accumulates gradients
 * into the leaves' .grad. Views share the history of their base; in-place writes bump a version
 * counter on the storage, and backward fails with CT_ERR_STATE when a tensor it saved was
 * modified. Backward formulas are written with the public ops, so create_graph works and a whole
 * training step can be captured with ct_graph_*.
 * Ownership: ct_tensor_grad returns a borrowed pointer (valid until the next backward, zero_grad or
 * release of t); every ct_tensor ** out-parameter receives a new reference.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_AUTOGRAD_H
#define CTORCH_AUTOGRAD_H

#include "ctorch/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mark a leaf tensor as requiring grad (or not). CT_ERR_DTYPE for a non-floating tensor,
 * CT_ERR_STATE for a non-leaf (a result of a recorded op) unless it already has that flag. */
CT_API ct_status ct_tensor_set_requires_grad(ct_tensor *t, bool requires_grad);
/* True if t requires grad (a marked leaf or a result recorded from one); false for NULL. */
CT_API bool ct_tensor_requires_grad(const ct_tensor *t);
/* The gradient accumulated into t by backward (borrowed), or NULL before any backward. */
CT_API ct_tensor *ct_tensor_grad(const ct_tensor *t);
/* Drop t's .grad (as zero_grad(set_to_none=True)); the next backward starts from scratch. */
CT_API ct_status ct_tensor_zero_grad(ct_tensor *t);
/* Backpropagate from root: every leaf that root depends on and requires grad gets d root / d leaf
 * (times grad_root) added to its .grad. grad_root NULL: root must have one element (grad 1). The
 * tape's saved tensors are freed afterwards unless retain_graph (a second backward through freed
 * nodes is CT_ERR_STATE). */
CT_API ct_status ct_backward(ct_ctx *ctx, const ct_tensor *root, const ct_tensor *grad_root,
                             bool retain_graph);
/* torch.autograd.grad: grads[i] = sum_j d outputs[j] / d inputs[i] (times grad_outputs[j]; NULL
 * or a NULL entry: the output has one element, grad 1). .grad fields are left alone; an input no
 * output depends on gets CT_ERR_STATE. create_graph records the backward itself (higher-order
 * derivatives); it implies retain_graph. */
CT_API ct_status ct_autograd_grad(ct_ctx *ctx, int n_outputs, const ct_tensor *const *outputs,
                                  const ct_tensor *const *grad_outputs, int n_inputs,
                                  const ct_tensor *const *inputs, bool retain_graph,
                                  bool create_graph, ct_tensor **grads);
/* Turn grad mode on or off for ctx (off: torch.no_grad, nothing is recorded); returns the previous
 * mode. A NULL ctx returns false. */
CT_API bool ct_set_grad_enabled(ct_ctx *ctx, bool enabled);
/* A new tensor sharing t's storage (and version counter) without autograd history. */
CT_API ct_status ct_tensor_detach(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);

/* ---- differentiable building blocks (compositions of ops, so they need no own backward) ---- */
/* Loss reductions; BATCHMEAN (the sum over the first dim's size) is ct_kl_div's only, as torch. */
typedef enum {
    CT_REDUCTION_NONE,
    CT_REDUCTION_MEAN,
    CT_REDUCTION_SUM,
    CT_REDUCTION_BATCHMEAN
} ct_reduction;
/* x (..., in) @ w (out, in)^T + b (out) (as torch.nn.functional.linear); b may be NULL. As torch
 * 1.13: a 1-d w (in) is a dot product; b broadcasts to the output without growing it; with b, a
 * 2-d or contiguous 3-d x needs a 2-d w and b of x's dtype (addmm), other ranks cast b in. */
CT_API ct_status ct_linear(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                           ct_tensor **out);
/* F.ctc_loss: -log p(target | log_probs) over all alignments; log_probs (T, N, C) or (T, C) float32
 * / float64, targets (N, S) padded or 1-d concatenated (int32 / int64, labels in [0, C)), input and
 * target lengths (N) int32 / int64; blank in [0, C); zero_infinity turns impossible alignments'
 * inf losses (and gradients) to 0; mean divides each loss by its target length first, as torch.
 * Host dynamic programming (eager); the gradient is torch's (CtcLossBackward0). */
CT_API ct_status ct_ctc_loss(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *targets,
                             const ct_tensor *input_lengths, const ct_tensor *target_lengths,
                             int64_t blank, ct_reduction reduction, bool zero_infinity,
                             ct_tensor **out);
/* torch.nn.functional.cross_entropy with weight = NULL and ignore_index = -100 (torch's
 * defaults): see ct_cross_entropy_ex. */
CT_API ct_status ct_cross_entropy(ct_ctx *ctx, const ct_tensor *logits, const ct_tensor *target,
                                  ct_reduction reduction, double label_smoothing, ct_tensor **out);
/* torch.nn.functional.cross_entropy in full. logits (C), (N, C) or (N, C, d1, ..., dk); target
 * int64/int32 class ids of logits' shape without the class dim (each in [0, C) or ignore_index,
 * else CT_ERR_INDEX), or class probabilities (floating, logits' shape; ignore_index must be < 0);
 * weight (C, logits' dtype) or NULL; label smoothing in [0, 1]. The mean divides by the targets'
 * total weight (class ids) or by N * d1 * ... * dk (probabilities). */
CT_API ct_status ct_cross_entropy_ex(ct_ctx *ctx, const ct_tensor *logits, const ct_tensor *target,
                                     const ct_tensor *weight, int64_t ignore_index,
                                     ct_reduction reduction, double label_smoothing,
                                     ct_tensor **out);
/* (input - target)^2, reduced; the shapes must broadcast. */
CT_API ct_status ct_mse_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                             ct_reduction reduction, ct_tensor **out);
/* |input - target|, reduced (as torch.nn.functional.l1_loss); the shapes must broadcast. */
CT_API ct_status ct_l1_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                            ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.smooth_l1_loss: z = |input - target|, 0.5 z^2 / beta where z < beta, else
 * z - 0.5 beta; beta >= 0 (0: l1_loss). */
CT_API ct_status ct_smooth_l1_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                   ct_reduction reduction, double beta, ct_tensor **out);
/* torch.nn.functional.huber_loss: 0.5 z^2 where z < delta, else delta (z - 0.5 delta); delta > 0.
 */
CT_API ct_status ct_huber_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                               ct_reduction reduction, double delta, ct_tensor **out);
/* torch.nn.functional.binary_cross_entropy: -w (t log x + (1 - t) log(1 - x)), each log clamped
 * at -100; input in [0, 1] (else CT_ERR_INVALID_ARG), target of its shape and dtype, weight
 * broadcasting to it or NULL (not differentiable, as torch). log(1 - x) is log1p(-x): exact near
 * x = 0, where torch's loses digits. */
CT_API ct_status ct_binary_cross_entropy(ct_ctx *ctx, const ct_tensor *input,
                                         const ct_tensor *target, const ct_tensor *weight,
                                         ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.binary_cross_entropy_with_logits: w ((1 - t) x + (1 + (pw - 1) t)
 * softplus(-x)), pos_weight pw broadcasting along the last dim (or NULL); softplus(-x) as
 * max(-x, 0) + log1p(exp(-|x|)), accurate for large |x| where torch's log of a sum is not. */
CT_API ct_status ct_binary_cross_entropy_with_logits(ct_ctx *ctx, const ct_tensor *input,
                                                     const ct_tensor *target,
                                                     const ct_tensor *weight,
                                                     const ct_tensor *pos_weight,
                                                     ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.kl_div: target (log(target) - input) per element (xlogy: 0 where target is
 * 0), or exp(target) (target - input) with log_target; input holds log-probabilities. Reductions
 * as torch's, BATCHMEAN included (the sum divided by input's first dim). */
CT_API ct_status ct_kl_div(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                           ct_reduction reduction, bool log_target, ct_tensor **out);
/* torch.nn.functional.margin_ranking_loss: max(0, -target (x1 - x2) + margin); inputs of one
 * rank. */
CT_API ct_status ct_margin_ranking_loss(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                        const ct_tensor *target, double margin,
                                        ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.hinge_embedding_loss: x where target != -1, plus max(0, margin - x) where
 * target != 1 (targets are +-1). */
CT_API ct_status ct_hinge_embedding_loss(ct_ctx *ctx, const ct_tensor *input,
                                         const ct_tensor *target, double margin,
                                         ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.soft_margin_loss: log(1 + exp(-target x)). */
CT_API ct_status ct_soft_margin_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                     ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.cosine_embedding_loss: 1 - cos(x1, x2) where target == 1,
 * max(0, cos - margin) where target == -1; x1, x2 (N, D) with target (N), or (D) with a 0-d one. */
CT_API ct_status ct_cosine_embedding_loss(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                          const ct_tensor *target, double margin,
                                          ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.poisson_nll_loss: exp(x) - t x (log_input), else x - t log(x + eps); full
 * adds Stirling's t log t - t + 0.5 log(2 pi t) where t > 1. */
CT_API ct_status ct_poisson_nll_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                     bool log_input, bool full, double eps, ct_reduction reduction,
                                     ct_tensor **out);
/* torch.nn.functional.gaussian_nll_loss: 0.5 (log v + (x - t)^2 / v), v = var clamped at eps (no
 * gradient through the clamp, as torch); var of x's shape, without its last dim, or with a last
 * dim of 1; a negative var is CT_ERR_INVALID_ARG (read on the host). full adds 0.5 log(2 pi). */
CT_API ct_status ct_gaussian_nll_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                      const ct_tensor *var, bool full, double eps,
                                      ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.pairwise_distance: ||x1 - x2 + eps||_p over the last dim (broadcast). */
CT_API ct_status ct_pairwise_distance(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                      double p, double eps, bool keepdim, ct_tensor **out);
/* torch.nn.functional.triplet_margin_loss: max(0, margin + d(a, pos) - d(a, neg)) with
 * pairwise distances (swap: the smaller of d(a, neg) and d(pos, neg)). */
CT_API ct_status ct_triplet_margin_loss(ct_ctx *ctx, const ct_tensor *anchor,
                                        const ct_tensor *positive, const ct_tensor *negative,
                                        double margin, double p, double eps, bool swap,
                                        ct_reduction reduction, ct_tensor **out);
/* A distance for ct_triplet_margin_with_distance_loss: *out = d(x1, x2) (any ctorch ops; their
 * gradients flow through), user as given; a failure stops the loss with its status. */
typedef ct_status (*ct_distance_fn)(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                    void *user, ct_tensor **out);
/* torch.nn.functional.triplet_margin_with_distance_loss: max(0, d(a, pos) - d(a, neg) + margin)
 * with d = distance (NULL: pairwise_distance, p = 2, eps = 1e-6); swap: the smaller of d(a, neg)
 * and d(pos, neg). */
CT_API ct_status ct_triplet_margin_with_distance_loss(ct_ctx *ctx, const ct_tensor *anchor,
                                                      const ct_tensor *positive,
                                                      const ct_tensor *negative,
                                                      ct_distance_fn distance, void *user,
                                                      double margin, bool swap,
                                                      ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.multilabel_soft_margin_loss: the mean over classes (the last dim) of
 * -(t logsigmoid(x) + (1 - t) logsigmoid(-x)) (times weight; NULL: none). */
CT_API ct_status ct_multilabel_soft_margin_loss(ct_ctx *ctx, const ct_tensor *input,
                                                const ct_tensor *target, const ct_tensor *weight,
                                                ct_reduction reduction, ct_tensor **out);
/* F.multi_margin_loss: per sample sum over classes j != y of max(0, margin - x[y] + x[j])^p (p 1 or
 * 2; times weight[y] when weight is given) / C; x (N, C) or (C), y int64 (N) or scalar. */
CT_API ct_status ct_multi_margin_loss(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, int p,
                                      double margin, const ct_tensor *weight, ct_reduction red,
                                      ct_tensor **out);
/* F.multilabel_margin_loss: y (int64, x's shape) lists each sample's targets before the first
 * -1; per sample sum over targets j and non-targets k of max(0, 1 - x[j] + x[k]) / C. */
CT_API ct_status ct_multilabel_margin_loss(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y,
                                           ct_reduction red, ct_tensor **out);
/* torch.nn.functional.pixel_shuffle: (*, C r^2, H, W) -> (*, C, H r, W r); pixel_unshuffle the
 * inverse. */
CT_API ct_status ct_pixel_shuffle(ct_ctx *ctx, const ct_tensor *x, int64_t upscale_factor,
                                  ct_tensor **out);
CT_API ct_status ct_pixel_unshuffle(ct_ctx *ctx, const ct_tensor *x, int64_t downscale_factor,
                                    ct_tensor **out);
/* torch.nn.functional.normalize: x / max(||x||_p over dim, eps) (p > 0, inf too). */
CT_API ct_status ct_normalize(ct_ctx *ctx, const ct_tensor *x, double p, int dim, double eps,
                              ct_tensor **out);
/* torch.nn.functional.cosine_similarity: sum over dim of (x1 / max(||x1||, eps)) (x2 / max(||x2||,
 * eps)) after broadcasting x1 and x2 (torch 1.13's normalized form: |result| <= 1). */
CT_API ct_status ct_cosine_similarity(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                      int dim, double eps, ct_tensor **out);
/* ---- activations of torch.nn.functional (floating x; relu6 and threshold keep integer dtypes,
 * softsign and tanhshrink give float32 for them, as torch; differentiable, torch's gradients at
 * the kinks too) ---- */
/* min(max(x + 3, 0), 6) / 6 */
CT_API ct_status ct_hardsigmoid(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* x min(max(x + 3, 0), 6) / 6 */
CT_API ct_status ct_hardswish(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* log(sigmoid(x)) as min(x, 0) - log1p(exp(-|x|)) */
CT_API ct_status ct_logsigmoid(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* x / (|x| + 1) */
CT_API ct_status ct_softsign(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* scale (x > 0 ? x : alpha expm1(x)), torch's alpha 1.6732632423543772 and scale 1.0507009873554805
 */
CT_API ct_status ct_selu(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* x > 0 ? x : alpha expm1(x / alpha) (alpha != 0) */
CT_API ct_status ct_celu(ct_ctx *ctx, const ct_tensor *x, double alpha, ct_tensor **out);
/* min(max(x, 0), 6) (torch: hardtanh(x, 0, 6)) */
CT_API ct_status ct_relu6(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* a sigmoid(b), a and b the halves of dim (its size must be even) */
CT_API ct_status ct_glu(ct_ctx *ctx, const ct_tensor *x, int dim, ct_tensor **out);
/* softmax(-x) over dim */
CT_API ct_status ct_softmin(ct_ctx *ctx, const ct_tensor *x, int dim, ct_tensor **out);
/* x > 0 ? x : weight x, weight of 1 element or one per channel (dim 1; a 0-d or 1-d x has one) */
CT_API ct_status ct_prelu(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weight,
                          ct_tensor **out);
/* x - lambd above lambd, x + lambd below -lambd, else 0 (lambd >= 0) */
CT_API ct_status ct_softshrink(ct_ctx *ctx, const ct_tensor *x, double lambd, ct_tensor **out);
/* x outside [-lambd, lambd], else 0 (lambd >= 0) */
CT_API ct_status ct_hardshrink(ct_ctx *ctx, const ct_tensor *x, double lambd, ct_tensor **out);
/* x - tanh(x) */
CT_API ct_status ct_tanhshrink(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* x > threshold ? x : value */
CT_API ct_status ct_threshold(ct_ctx *ctx, const ct_tensor *x, double threshold, double value,
                              ct_tensor **out);

/* -log_probs[i, target[i]], reduced: ct_nll_loss_ex with weight = NULL, ignore_index = -100. */
CT_API ct_status ct_nll_loss(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                             ct_reduction reduction, ct_tensor **out);
/* torch.nn.functional.nll_loss in full: -weight[t] log_probs[..., t, ...] per target t (class
 * dim 1, or 0 for a 1-d input; shapes and ids as ct_cross_entropy_ex's class ids), 0 where t ==
 * ignore_index; the mean divides by the targets' total weight (NaN when every one is ignored). */
CT_API ct_status ct_nll_loss_ex(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                                const ct_tensor *weight, int64_t ignore_index,
                                ct_reduction reduction, ct_tensor **out);

#ifdef __cplusplus
}
#endif
#endif

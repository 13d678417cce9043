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

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

/* ---- autograd queries, hooks and anomaly mode (torch.Tensor.register_hook, retain_grad,
 * torch.autograd.detect_anomaly; docs/autograd.md "Hooks") ---- */
/* torch.is_grad_enabled: whether ops on ctx record (false for NULL). */
CT_API bool ct_is_grad_enabled(const ct_ctx *ctx);
/* Tensor.is_leaf: true unless t is the result of a recorded op (a tensor that does not require
 * grad is a leaf, as torch); false for NULL. */
CT_API bool ct_tensor_is_leaf(const ct_tensor *t);
/* The name torch prints for t's grad_fn ("MulBackward0") into buf (cap bytes, truncated); false
 * (buf "") for a leaf or a tensor without history. */
CT_API bool ct_tensor_grad_fn_name(const ct_tensor *t, char *buf, size_t cap);
/* Tensor.retain_grad: a non-leaf t keeps its gradient in .grad (ct_tensor_grad) at every backward
 * (accumulated, after t's hooks ran); a no-op for a leaf; CT_ERR_STATE unless t requires grad. */
CT_API ct_status ct_tensor_retain_grad(ct_tensor *t);
/* Tensor.retains_grad: whether ct_tensor_retain_grad was called on the non-leaf t. */
CT_API bool ct_tensor_retains_grad(const ct_tensor *t);
/* A gradient hook: called with t's gradient during a backward pass (grad mode on only under
 * create_graph); *new_grad (NULL on entry) may receive a replacement of the same shape and dtype
 * (a new reference the engine takes), left NULL keeps grad. A failing status stops the backward. */
typedef ct_status (*ct_grad_hook)(ct_ctx *ctx, const ct_tensor *grad, void *user,
                                  ct_tensor **new_grad);
/* Tensor.register_hook: hook runs on t's gradient when it is complete, before it flows on (a
 * leaf: before it is added to .grad; ct_autograd_grad returns an input's gradient as it was before
 * that input's hooks). Hooks run in registration order; *id (may be NULL) names it for
 * ct_tensor_remove_hook; user must stay valid while the hook can run. CT_ERR_STATE unless t
 * requires grad. */
CT_API ct_status ct_tensor_register_hook(ct_tensor *t, ct_grad_hook hook, void *user, int64_t *id);
/* Remove the hook registered on t with this id (CT_ERR_INVALID_ARG when t has none). */
CT_API ct_status ct_tensor_remove_hook(ct_tensor *t, int64_t id);
/* torch.autograd.set_detect_anomaly: with it on, each backward formula's results are checked and
 * a NaN fails the backward with CT_ERR_STATE "Function 'SqrtBackward0' returned nan values in its
 * 0th output." (torch's message; not checked during a graph capture). Returns the previous mode. */
CT_API bool ct_set_detect_anomaly(ct_ctx *ctx, bool enabled);
/* Whether anomaly mode is on for ctx (false for NULL). */
CT_API bool ct_is_anomaly_enabled(const ct_ctx *ctx);

/* ---- torch.autograd.grad's options ---- */
typedef struct ct_grad_options {
    size_t size;       /* sizeof(ct_grad_options) */
    bool retain_graph; /* keep the graph's saved tensors for another backward */
    bool create_graph; /* record the backward (higher-order derivatives); implies retain_graph */
    bool allow_unused; /* an input no output depends on gets NULL instead of CT_ERR_STATE */
} ct_grad_options;
/* ct_autograd_grad with options (NULL: all false); grads[i] is NULL for an unused input when
 * allow_unused. */
CT_API ct_status ct_autograd_grad_ex(ct_ctx *ctx, int n_outputs, const ct_tensor *const *outputs,
                                     const ct_tensor *const *grad_outputs, int n_inputs,
                                     const ct_tensor *const *inputs, const ct_grad_options *opts,
                                     ct_tensor **grads);

/* ---- custom differentiable functions (torch.autograd.Function; docs/autograd.md) ---- */
typedef struct ct_autograd_function {
    size_t size;      /* sizeof(ct_autograd_function) */
    const char *name; /* the grad_fn name printed ("MyOpBackward", copied); NULL:
                         "CustomFunctionBackward" */
    /* out[0..n_out) (new references) from in[0..n_in) (entries may be NULL); runs with grad mode
     * off. What backward needs beyond the outputs goes into user (retain inputs there, release
     * them in free_user); never keep an output there (a cycle never freed): backward gets them. */
    ct_status (*forward)(ct_ctx *ctx, void *user, int n_in, const ct_tensor *const *in, int n_out,
                         ct_tensor **out);
    /* grad_in[i] (new references; NULL: zero) for each input with needs_input_grad[i], from the
     * outputs out (torch's save_for_backward of the results: with history under create_graph)
     * and grad_out (zeros where no gradient arrived). A gradient may have broadcast dims (summed
     * away) and another floating dtype (cast). Under create_graph it runs with grad mode on, so a
     * backward written with ct_* ops is differentiable again. */
    ct_status (*backward)(ct_ctx *ctx, void *user, int n_out, const ct_tensor *const *out,
                          const ct_tensor *const *grad_out, int n_in, const bool *needs_input_grad,
                          ct_tensor **grad_in);
    void (*free_user)(void *user); /* may be NULL; called once, when user is no longer needed */
} ct_autograd_function;
/* Function.apply: run fn->forward and, when an input requires grad (and grad mode is on), record
 * one node whose backward is fn->backward. 0..4 inputs, 1..3 outputs (integer outputs never
 * require grad; an output that is an input becomes an alias with its own history). user is
 * handed to both callbacks and freed with fn->free_user when the node goes (at once when nothing
 * is recorded or on failure; not when fn->size is too small to hold it). A second backward through
 * the node needs retain_graph (it saved its outputs), as torch; a custom backward may not start
 * another backward pass. */
CT_API ct_status ct_autograd_function_apply(ct_ctx *ctx, const ct_autograd_function *fn, void *user,
                                            int n_in, const ct_tensor *const *in, int n_out,
                                            ct_tensor **out);

/* ---- the functional API (torch.autograd.functional, reverse mode) ---- */
/* The function differentiated: *out (a new reference, floating or complex) = f(in[0..n_in)). It
 * is called with grad mode on and inputs that require grad; it must compute out with ct_* ops. */
typedef ct_status (*ct_autograd_fn)(ct_ctx *ctx, void *user, int n_in, const ct_tensor *const *in,
                                    ct_tensor **out);
/* torch.utils.checkpoint (the reentrant form): *out = fn(inputs) computed without keeping its
 * intermediates (grad mode off); the backward recomputes fn with grad mode on from detached
 * copies of the inputs (0..4) and runs a nested pass from the output: the inputs get their
 * gradients, tensors fn uses from elsewhere that require grad (parameters in user) get theirs in
 * .grad directly. As torch's: ct_backward only (not ct_autograd_grad: CT_ERR_STATE), no
 * create_graph through it, no gradient when no input requires grad, and fn must compute the same
 * thing twice (ctorch's random ops take explicit seeds: pass the same). */
CT_API ct_status ct_checkpoint(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                               const ct_tensor *const *inputs, ct_tensor **out);
typedef struct ct_autodiff_options {
    size_t size;       /* sizeof(ct_autodiff_options) */
    bool create_graph; /* results keep their graph (differentiable again); else detached */
    bool strict;       /* an output independent of an input is CT_ERR_STATE, not zeros */
} ct_autodiff_options;
/* torch.autograd.functional.vjp: vjp[i] = v^T d f / d inputs[i] (n_in of them, 1..64); v of f's
 * shape, or NULL when f has one element; *out (may be NULL) receives f(inputs). opts may be
 * NULL. Inputs must be floating or complex; they are not modified and their .grad is untouched. */
CT_API ct_status ct_autograd_vjp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                 const ct_tensor *const *inputs, const ct_tensor *v,
                                 const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **vjp);
/* torch.autograd.functional.jvp: *jvp = sum_i d f / d inputs[i] v[i] (f's shape), by torch's
 * double-backward trick; v: n_in tensors of the inputs' shapes, or NULL for one one-element
 * input. jvp, vhp and hvp take 1..16 inputs (each input's gradient is a backward root). */
CT_API ct_status ct_autograd_jvp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                 const ct_tensor *const *inputs, const ct_tensor *const *v,
                                 const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **jvp);
/* torch.autograd.functional.jacobian: jac[i] of shape f.shape + inputs[i].shape and inputs[i]'s
 * dtype; one backward pass per element of f (torch's vectorize=False). */
CT_API ct_status ct_autograd_jacobian(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                      const ct_tensor *const *inputs,
                                      const ct_autodiff_options *opts, ct_tensor **jac);
/* torch.autograd.functional.hessian of a one-element f: hess[i * n_in + j] = d^2 f / d inputs[i]
 * d inputs[j], shape inputs[i].shape + inputs[j].shape; 1..8 inputs. */
CT_API ct_status ct_autograd_hessian(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                     const ct_tensor *const *inputs,
                                     const ct_autodiff_options *opts, ct_tensor **hess);
/* torch.autograd.functional.vhp of a one-element f: vhp[i] = sum_j v[j]^T d^2 f / d inputs[j]
 * d inputs[i]; v as ct_autograd_jvp's. */
CT_API ct_status ct_autograd_vhp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                 const ct_tensor *const *inputs, const ct_tensor *const *v,
                                 const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **vhp);
/* torch.autograd.functional.hvp: hvp[i] = sum_j d^2 f / d inputs[i] d inputs[j] v[j] (torch's
 * double-backward form; equal to vhp for a twice continuously differentiable f). */
CT_API ct_status ct_autograd_hvp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                 const ct_tensor *const *inputs, const ct_tensor *const *v,
                                 const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **hvp);

/* ---- gradcheck (torch.autograd.gradcheck / gradgradcheck) ---- */
typedef struct ct_gradcheck_options {
    size_t size;       /* sizeof(ct_gradcheck_options) */
    double eps;        /* central-difference step (torch: 1e-6) */
    double atol, rtol; /* |analytical - numerical| <= atol + rtol |numerical| (1e-5, 1e-3) */
    uint64_t seed;     /* gradgradcheck: the random grad_output's draw */
} ct_gradcheck_options;
/* torch's defaults: eps 1e-6, atol 1e-5, rtol 1e-3, seed 0. */
CT_API ct_gradcheck_options ct_gradcheck_options_default(void);
/* Compare fn's analytical Jacobian (backward, run twice: it must give the same values) with
 * central differences in each input that requires grad (float64 inputs recommended, as torch).
 * Returns CT_OK with *passed; when false ct_ctx_last_error names the input, the elements and both
 * values. Real inputs and outputs only (complex: CT_ERR_UNSUPPORTED); opts NULL: the defaults. */
CT_API ct_status ct_gradcheck(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                              const ct_tensor *const *inputs, const ct_gradcheck_options *opts,
                              bool *passed);
/* gradcheck of the first derivatives: for each input j that requires grad, gradcheck of
 * (inputs, v) -> d <fn(inputs), v> / d inputs[j] with a random v (uniform [-1, 1), opts->seed). */
CT_API ct_status ct_gradgradcheck(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                                  const ct_tensor *const *inputs, const ct_gradcheck_options *opts,
                                  bool *passed);

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

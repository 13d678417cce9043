/* ctorch optimizers: SGD, Adam, AdamW, Adagrad, RMSprop, Adamax, NAdam, RAdam and Adadelta with
 * torch.optim semantics, in two implementations
 * that give the same bits: FUSED (one CT_OP_OPTIM_STEP kernel per parameter, one pass over memory)
 * and FOREACH (the step written with public ops). Formulas, rounding and the parity guarantee:
 * docs/optim.md.
 * Ownership: ct_optim_create retains the parameters and owns the optimizer state (f32 tensors);
 * ct_optim_free releases both (NULL is a no-op). Gradients passed to ct_optim_step are borrowed.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_OPTIM_H
#define CTORCH_OPTIM_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CT_OPTIM_SGD,
    CT_OPTIM_ADAM,
    CT_OPTIM_ADAMW,
    CT_OPTIM_ADAGRAD,
    CT_OPTIM_RMSPROP,
    CT_OPTIM_ADAMAX,
    CT_OPTIM_NADAM,
    CT_OPTIM_RADAM,
    CT_OPTIM_ADADELTA
} ct_optim_kind;
typedef enum { CT_OPTIM_IMPL_FUSED, CT_OPTIM_IMPL_FOREACH } ct_optim_impl;

/* Hyper-parameters (torch.optim names; each optimizer reads the ones it has). Fields after
 * `maximize` were added later: a caller built against the shorter struct passes its smaller
 * `size` and gets the defaults for them. */
typedef struct {
    size_t size; /* sizeof(ct_optim_options) */
    ct_optim_kind kind;
    ct_optim_impl impl;
    double lr, momentum, dampening, weight_decay, beta1, beta2, eps, lr_decay,
        initial_accumulator_value;
    bool nesterov, amsgrad, maximize;
    double alpha;                /* RMSprop's smoothing constant */
    double rho;                  /* Adadelta's running-average coefficient */
    double momentum_decay;       /* NAdam */
    bool centered;               /* RMSprop: divide by the centered second moment */
    bool decoupled_weight_decay; /* NAdam / RAdam: AdamW-style p *= 1 - lr*wd */
} ct_optim_options;

typedef struct ct_optim ct_optim;

/* torch.optim's defaults for `kind` (SGD lr 1e-3 as torch 2.x; Adam/AdamW/RAdam lr 1e-3, betas
 * (0.9, 0.999), eps 1e-8, AdamW weight_decay 1e-2; Adagrad lr 1e-2, eps 1e-10; RMSprop lr 1e-2,
 * alpha 0.99, eps 1e-8; Adamax / NAdam lr 2e-3, NAdam momentum_decay 4e-3; Adadelta lr 1, rho
 * 0.9, eps 1e-6), impl FUSED. */
CT_API ct_optim_options ct_optim_options_default(ct_optim_kind kind);
/* An optimizer over n_params (>= 1) distinct contiguous f32/f16/bf16 parameters of ctx.
 * CT_ERR_INVALID_ARG for a bad option (the message names it and its value), CT_ERR_DTYPE /
 * CT_ERR_INVALID_ARG for a bad parameter, CT_ERR_OOM. */
CT_API ct_status ct_optim_create(ct_ctx *ctx, const ct_optim_options *opts, int n_params,
                                 ct_tensor *const *params, ct_optim **out);
/* One step: updates the parameters (and state) in place from grads[i] (same shape and dtype as
 * params[i]; NULL skips that parameter, as a None grad in torch). Capturable in a graph. */
CT_API ct_status ct_optim_step(ct_optim *opt, ct_tensor *const *grads);
/* The learning rate as a 0-d float64 tensor (borrowed; lives as long as opt). Write it with ops
 * (e.g. ct_mul_scalar_ for a decay): a captured FUSED step reads it each time it is replayed. */
CT_API ct_tensor *ct_optim_lr(ct_optim *opt);
/* Mixed-precision scaling as torch's fused kernels: with grad_scale (one float32 value) each grad
 * is divided by it, in place, before the step; with found_inf (one float32 value) nonzero, the step
 * is skipped (no update, no step count). Retained; NULL clears. A FOREACH step reads found_inf
 * on the host, so it cannot be captured with one (CT_ERR_UNSUPPORTED). */
CT_API ct_status ct_optim_set_grad_scaling(ct_optim *opt, ct_tensor *grad_scale,
                                           ct_tensor *found_inf);
/* Steps parameter i has taken (skipped ones not counted); a host read (refused during capture). */
CT_API ct_status ct_optim_step_count(const ct_optim *opt, int i, int64_t *out);
/* Save the optimizer's state to a safetensors file: per parameter "state.<i>.step" (f64), NAdam's
 * "state.<i>.mu_product" (f64) and its buffers (torch's names: "momentum_buffer"; "exp_avg",
 * "exp_avg_sq", "max_exp_avg_sq"; "sum"; "square_avg", "grad_avg"; "exp_inf"; "acc_delta"; f32),
 * the kind, hyper-parameters (lr as last written) and structural flags as metadata. A host read. */
CT_API ct_status ct_optim_save_state(const ct_optim *opt, const char *path);
/* Load a state saved by ct_optim_save_state into an optimizer of the same kind, parameter count,
 * shapes and structural options (else CT_ERR_INVALID_ARG / CT_ERR_SHAPE naming the difference);
 * hyper-parameters come from the file, as torch's load_state_dict. Nothing changes on failure. */
CT_API ct_status ct_optim_load_state(ct_optim *opt, const char *path);
/* Free the optimizer and its state, release the parameters (NULL is a no-op). */
CT_API void ct_optim_free(ct_optim *opt);

#ifdef __cplusplus
}
#endif
#endif

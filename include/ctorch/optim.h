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

#include "ctorch/archive.h"
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
    CT_OPTIM_ADADELTA,
    CT_OPTIM_RPROP, /* resilient backprop: a step size per element, grown / shrunk by grad signs */
    CT_OPTIM_ASGD   /* averaged SGD: eta decays with the step; "ax" holds the averaged weights */
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
    double alpha;                        /* RMSprop's smoothing constant */
    double rho;                          /* Adadelta's running-average coefficient */
    double momentum_decay;               /* NAdam */
    bool centered;                       /* RMSprop: divide by the centered second moment */
    bool decoupled_weight_decay;         /* NAdam / RAdam: AdamW-style p *= 1 - lr*wd */
    double etaminus, etaplus;            /* Rprop's etas (0.5, 1.2): 0 < etaminus < 1 < etaplus */
    double step_size_min, step_size_max; /* Rprop's step_sizes (1e-6, 50) */
    double lambd, t0; /* ASGD's decay term (1e-4) and the step averaging starts after (1e6);
                         its eta's power is `alpha` (0.75) */
} ct_optim_options;

typedef struct ct_optim ct_optim;

/* torch.optim's defaults for `kind` (SGD lr 1e-3 as torch 2.x; Adam/AdamW/RAdam lr 1e-3, betas
 * (0.9, 0.999), eps 1e-8, AdamW weight_decay 1e-2; Adagrad lr 1e-2, eps 1e-10; RMSprop lr 1e-2,
 * alpha 0.99, eps 1e-8; Adamax / NAdam lr 2e-3, NAdam momentum_decay 4e-3; Adadelta lr 1, rho
 * 0.9, eps 1e-6; Rprop lr 1e-2 (the first step size), etas (0.5, 1.2), step sizes (1e-6, 50);
 * ASGD lr 1e-2, lambd 1e-4, alpha 0.75, t0 1e6), impl FUSED. */
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
/* Parameter i's state buffer named as in torch's optimizer.state[p] ("exp_avg", "momentum_buffer",
 * ASGD's averaged weights "ax", ...; ct_optim_save_state lists them): a borrowed float32 tensor of
 * the parameter's shape, alive as long as opt (writing it changes the state). NULL when opt is
 * NULL, i is out of range or the optimizer keeps no such buffer. */
CT_API ct_tensor *ct_optim_state(ct_optim *opt, int i, const char *name);
/* Steps parameter i has taken (skipped ones not counted); a host read (refused during capture). */
CT_API ct_status ct_optim_step_count(const ct_optim *opt, int i, int64_t *out);
/* Save the optimizer's state to a safetensors file: per parameter "state.<i>.step" (f64), NAdam's
 * "state.<i>.mu_product" / ASGD's "state.<i>.eta" (f64) and its buffers (torch's names:
 * "momentum_buffer"; "exp_avg", "exp_avg_sq", "max_exp_avg_sq"; "sum"; "square_avg", "grad_avg";
 * "exp_inf"; "acc_delta"; "prev", "step_size"; "ax"; f32),
 * the kind, hyper-parameters (lr as last written) and structural flags as metadata. A host read. */
CT_API ct_status ct_optim_save_state(const ct_optim *opt, const char *path);
/* Load a state saved by ct_optim_save_state into an optimizer of the same kind, parameter count,
 * shapes and structural options (else CT_ERR_INVALID_ARG / CT_ERR_SHAPE naming the difference);
 * hyper-parameters come from the file, as torch's load_state_dict. Nothing changes on failure. */
CT_API ct_status ct_optim_load_state(ct_optim *opt, const char *path);
/* Optimizer.load_state_dict from a PyTorch checkpoint read with ct_torch_load (archive.h): the
 * entries "<prefix>.state.<id>.<buffer>" and "<prefix>.param_groups.0.<hyper-parameter>" of
 * torch.optim's state_dict() (prefix NULL or "": the file is the state dict itself; "optimizer"
 * for torch.save({"optimizer": opt.state_dict(), ...}); a trailing '.' as
 * ct_archive_load_state_dict's "model." is accepted too). One parameter group with opt's parameter
 * count, in torch's parameter order; hyper-parameters (lr, betas, ...) come from the file, the
 * structural options (momentum on/off, weight decay on/off, nesterov, amsgrad, maximize, centered,
 * decoupled) must equal opt's; buffers are cast to float32; a parameter without state starts
 * afresh. Nothing changes on failure. Details: docs/optim.md. */
CT_API ct_status ct_optim_load_torch_state(ct_optim *opt, const ct_archive *a, const char *prefix);
/* ct_optim_load_torch_state of parameter group `group` of a state dict with several (torch's
 * weight-decay / no-decay split): one ctorch optimizer per group, each loading its own; the
 * state ids come from that group's params. */
CT_API ct_status ct_optim_load_torch_state_group(ct_optim *opt, const ct_archive *a,
                                                 const char *prefix, int group);
/* Free the optimizer and its state, release the parameters (NULL is a no-op). */
CT_API void ct_optim_free(ct_optim *opt);

/* ---- stochastic weight averaging (torch.optim.swa_utils) ---- */

/* How AveragedModel averages: torch's default running mean, or an exponential moving average. */
typedef enum { CT_SWA_MEAN, CT_SWA_EMA } ct_swa_avg;
/* AveragedModel.update_parameters over n tensor pairs: with *n_averaged == 0 averaged[i] = a copy
 * of params[i]; after that CT_SWA_MEAN: avg + (p - avg) / (n_averaged + 1) (torch 1.13's default
 * avg_fn), CT_SWA_EMA: decay avg + (1 - decay) p (torch 2.x get_ema_multi_avg_fn, decay in [0, 1]);
 * then ++*n_averaged. Pairs of one shape; the values convert to averaged[i]'s dtype; no gradient.
 * A captured update keeps the n_averaged it had (capture the EMA, not the mean). */
CT_API ct_status ct_swa_update_parameters(ct_ctx *ctx, int n, ct_tensor *const *averaged,
                                          const ct_tensor *const *params, ct_swa_avg avg,
                                          double decay, int64_t *n_averaged);

/* ---- L-BFGS (torch.optim.LBFGS) ---- */

/* torch.optim.LBFGS's options (its defaults from ct_lbfgs_options_default: lr 1, max_iter 20,
 * max_eval 0 meaning max_iter * 5 / 4, tolerance_grad 1e-7, tolerance_change 1e-9, history_size
 * 100, no line search; strong_wolfe is line_search_fn="strong_wolfe"). */
typedef struct {
    size_t size; /* sizeof(ct_lbfgs_options) */
    double lr;
    int max_iter, max_eval;
    double tolerance_grad, tolerance_change;
    int history_size;
    bool strong_wolfe;
} ct_lbfgs_options;

typedef struct ct_lbfgs ct_lbfgs;

/* The closure torch's LBFGS.step calls: evaluate the loss at the parameters' current values into
 * *loss and set grads[i] (borrowed until the next call; NULL: a zero gradient) to its gradient
 * with respect to params[i], e.g. ct_tensor_grad after zeroing the grads and ct_backward. Grad
 * mode is the caller's while it runs. A status other than CT_OK ends the step with that status. */
typedef ct_status (*ct_lbfgs_closure)(void *user, double *loss, ct_tensor **grads);

CT_API ct_lbfgs_options ct_lbfgs_options_default(void);
/* An L-BFGS optimizer over n_params (>= 1) distinct float32 or float64 parameters of one dtype
 * (retained). CT_ERR_INVALID_ARG for a bad option, CT_ERR_DTYPE for a bad parameter. */
CT_API ct_status ct_lbfgs_create(ct_ctx *ctx, const ct_lbfgs_options *opts, int n_params,
                                 ct_tensor *const *params, ct_lbfgs **out);
/* LBFGS.step(closure): up to max_iter iterations (and max_eval closure calls) of L-BFGS, updating
 * the parameters in place under no_grad; *loss (may be NULL) gets the closure's first loss, as
 * torch returns. History persists across steps. A host loop (not capturable). */
CT_API ct_status ct_lbfgs_step(ct_lbfgs *opt, ct_lbfgs_closure closure, void *user, double *loss);
/* state['func_evals'] / state['n_iter']: closure calls and iterations so far (-1 for NULL). */
CT_API int64_t ct_lbfgs_func_evals(const ct_lbfgs *opt);
CT_API int64_t ct_lbfgs_n_iter(const ct_lbfgs *opt);
/* Free the optimizer, release the parameters (NULL is a no-op). */
CT_API void ct_lbfgs_free(ct_lbfgs *opt);

/* ---- gradient clipping (torch.nn.utils) ---- */

/* torch.nn.utils.clip_grad_norm_: total = the norm_type-norm (inf allowed) of the per-grad
 * norms of the non-NULL grads[0..n); each grad *= min(1, max_norm / (total + 1e-6)) in place
 * (torch's rounding: reciprocal, then times max_norm). *total_norm (optional) gets the total as a
 * 0-d tensor (float32 0 when every grad is NULL). error_if_nonfinite: a NaN / inf total fails with
 * CT_ERR_INVALID_ARG and torch's message, grads untouched (a host read: not capturable). Runs
 * under no_grad; capturable otherwise. */
CT_API ct_status ct_clip_grad_norm_(ct_ctx *ctx, int n, ct_tensor *const *grads, double max_norm,
                                    double norm_type, bool error_if_nonfinite,
                                    ct_tensor **total_norm);
/* torch.nn.utils.clip_grad_value_: clamp every non-NULL grad in place to [-clip_value,
 * clip_value] (floating grads; complex refused as torch). */
CT_API ct_status ct_clip_grad_value_(ct_ctx *ctx, int n, ct_tensor *const *grads,
                                     double clip_value);

/* ---- learning-rate schedulers (torch.optim.lr_scheduler) ---- */

/* The schedulers of torch.optim.lr_scheduler, with its chainable (recursive) formulas, so the
 * learning rates equal torch's bit for bit (docs/optim.md). A scheduler writes the optimizer's
 * lr (and, for ONE_CYCLE, its momentum or beta1) in the schedule tensor: a captured FUSED step
 * replayed after a scheduler step uses the new value. Scheduler steps are host calls (refused
 * while capturing). */
typedef enum {
    CT_LR_LAMBDA,               /* lr = initial_lr * lr_lambda(epoch) */
    CT_LR_MULTIPLICATIVE,       /* lr *= lr_lambda(epoch) for epoch > 0 */
    CT_LR_STEP,                 /* lr *= gamma every step_size epochs */
    CT_LR_MULTISTEP,            /* lr *= gamma^(times epoch is in milestones) */
    CT_LR_CONSTANT,             /* lr * factor until total_iters */
    CT_LR_LINEAR,               /* factor from start_factor to end_factor over total_iters */
    CT_LR_EXPONENTIAL,          /* lr *= gamma every epoch */
    CT_LR_POLYNOMIAL,           /* (1 - epoch / total_iters)^power decay */
    CT_LR_COSINE_ANNEALING,     /* cosine from initial_lr to eta_min over T_max */
    CT_LR_COSINE_WARM_RESTARTS, /* SGDR: cosine restarted after T_0, T_0 T_mult, ... */
    CT_LR_ONE_CYCLE,            /* the 1cycle policy (lr and momentum / beta1) */
    CT_LR_REDUCE_ON_PLATEAU,    /* lr *= factor when a metric stops improving */
    CT_LR_SEQUENTIAL,           /* SequentialLR (ct_lr_scheduler_create_sequential) */
    CT_LR_CYCLIC,               /* CyclicLR: lr between base_lr and max_lr in cycles */
    CT_LR_CHAINED,              /* ChainedScheduler (ct_lr_scheduler_create_chained) */
    CT_LR_SWA                   /* SWALR: anneal to swa_lr (stochastic weight averaging) */
} ct_lr_scheduler_kind;

/* CyclicLR's policies: a triangle, one halved each cycle, one scaled by gamma^iteration. */
typedef enum { CT_CYCLIC_TRIANGULAR, CT_CYCLIC_TRIANGULAR2, CT_CYCLIC_EXP_RANGE } ct_cyclic_mode;

/* Scheduler options (torch's argument names; each kind reads its own). */
typedef struct {
    size_t size; /* sizeof(ct_lr_scheduler_options) */
    ct_lr_scheduler_kind kind;
    double (*lr_lambda)(int64_t epoch, void *user); /* LAMBDA, MULTIPLICATIVE */
    void *user;
    int64_t step_size;         /* STEP */
    double gamma;              /* STEP, MULTISTEP, EXPONENTIAL (0.1) */
    const int64_t *milestones; /* MULTISTEP: n_milestones epochs (copied; repeats count) */
    int n_milestones;
    double factor;                   /* CONSTANT (1/3), REDUCE_ON_PLATEAU (0.1) */
    int64_t total_iters;             /* CONSTANT, LINEAR, POLYNOMIAL (5) */
    double start_factor, end_factor; /* LINEAR (1/3, 1) */
    double power;                    /* POLYNOMIAL (1) */
    int64_t T_max;                   /* COSINE_ANNEALING */
    double eta_min;                  /* COSINE_ANNEALING, COSINE_WARM_RESTARTS (0) */
    int64_t T_0, T_mult;             /* COSINE_WARM_RESTARTS (T_mult 1) */
    /* ONE_CYCLE: max_lr and total_steps required; pct_start 0.3, cosine annealing unless
     * anneal_linear, cycle_momentum true (momentum of SGD / RMSprop, beta1 of the Adam family)
     * between base_momentum 0.85 and max_momentum 0.95, div_factor 25, final_div_factor 1e4 */
    double max_lr;
    int64_t total_steps;
    double pct_start;
    bool anneal_linear, cycle_momentum, three_phase;
    double base_momentum, max_momentum, div_factor, final_div_factor;
    /* REDUCE_ON_PLATEAU: mode "min" unless mode_max, threshold_mode "rel" unless threshold_abs,
     * patience 10, threshold 1e-4, cooldown 0, min_lr 0, eps 1e-8 */
    bool mode_max, threshold_abs;
    int64_t patience, cooldown;
    double threshold, min_lr, eps;
    /* CYCLIC: base_lr (set as the lr at creation) and max_lr required; step_size_up 2000,
     * step_size_down NAN (= step_size_up), cyclic_mode TRIANGULAR, gamma 1 (EXP_RANGE); scale_fn
     * (with user; NULL: the mode's) gets the cycle number, or the iteration with
     * scale_mode_iterations; cycle_momentum true between base_momentum 0.8 and max_momentum 0.9
     * (momentum of SGD / RMSprop, beta1 of the Adam family, as torch 2.x). */
    double base_lr;
    double step_size_up, step_size_down;
    ct_cyclic_mode cyclic_mode;
    double (*scale_fn)(double x, void *user);
    bool scale_mode_iterations;
    /* SWA (torch.optim.swa_utils.SWALR): swa_lr required; from the current rate to swa_lr over
     * anneal_epochs steps (10; 0: at once), cosine unless anneal_linear */
    double swa_lr;
    int64_t anneal_epochs;
} ct_lr_scheduler_options;

typedef struct ct_lr_scheduler ct_lr_scheduler;

/* torch's defaults for `kind` (required values left 0: step_size, T_max, T_0, max_lr,
 * total_steps, lr_lambda, base_lr, swa_lr). */
CT_API ct_lr_scheduler_options ct_lr_scheduler_options_default(ct_lr_scheduler_kind kind);
/* A scheduler of opt (borrowed: free the scheduler first). As torch's constructor it takes the
 * first step at once (epoch 0: e.g. LINEAR multiplies lr by start_factor). CT_ERR_INVALID_ARG
 * names a bad option (torch's checks, plus step_size / T_max >= 1). */
CT_API ct_status ct_lr_scheduler_create(ct_optim *opt, const ct_lr_scheduler_options *opts,
                                        ct_lr_scheduler **out);
/* SequentialLR(opt, schedulers, milestones): schedulers[0] until epoch milestones[0], then
 * schedulers[1] (entered with its step(0), torch's closed form at epoch 0) until milestones[1],
 * ... (n - 1 milestones). As torch's constructor it puts the lr back to the optimizer's
 * initial_lr and takes schedulers[0]'s initial step again. The n schedulers (of opt; not
 * ReduceLROnPlateau) are borrowed: free them after this one, and step only this one. */
CT_API ct_status ct_lr_scheduler_create_sequential(ct_optim *opt, int n,
                                                   ct_lr_scheduler *const *schedulers,
                                                   const int64_t *milestones,
                                                   ct_lr_scheduler **out);
/* ChainedScheduler(schedulers): one step() steps schedulers[0], then [1], ... (each applies its
 * chainable formula to the rate the previous one left). No initial step. The n schedulers (of
 * opt; not ReduceLROnPlateau) are borrowed: free them after this one, and step only this one.
 * last_epoch reads schedulers[0]'s. */
CT_API ct_status ct_lr_scheduler_create_chained(ct_optim *opt, int n,
                                                ct_lr_scheduler *const *schedulers,
                                                ct_lr_scheduler **out);
/* scheduler.step(): the next epoch's learning rate (and momentum) into the optimizer. Not for
 * REDUCE_ON_PLATEAU (use ct_lr_scheduler_step_metric). ONE_CYCLE past total_steps fails. */
CT_API ct_status ct_lr_scheduler_step(ct_lr_scheduler *s);
/* COSINE_WARM_RESTARTS' scheduler.step(epoch) with a fractional epoch (epoch + i / iters). */
CT_API ct_status ct_lr_scheduler_step_epoch(ct_lr_scheduler *s, double epoch);
/* REDUCE_ON_PLATEAU's scheduler.step(metric) (NaN counts as no improvement, as torch). */
CT_API ct_status ct_lr_scheduler_step_metric(ct_lr_scheduler *s, double metric);
/* get_last_lr()[0]: the learning rate the last step set (NAN for NULL). */
CT_API double ct_lr_scheduler_last_lr(const ct_lr_scheduler *s);
/* last_epoch: 0 after create, + 1 per step (-1 for NULL). */
CT_API int64_t ct_lr_scheduler_last_epoch(const ct_lr_scheduler *s);
/* scheduler.load_state_dict from a PyTorch checkpoint (ct_torch_load): the entries of torch's
 * scheduler.state_dict() under prefix (NULL / "": the file is the state dict; "scheduler" or
 * "scheduler." for torch.save({"scheduler": sched.state_dict(), ...})) replace s's counters
 * (last_epoch, _step_count, base_lrs, T_cur, best, ...) and the options torch stores (gamma,
 * T_max, ...). One parameter group. The optimizer's lr is not touched (load the optimizer's state
 * with ct_optim_load_torch_state). MultiStepLR and OneCycleLR states hold pickled Python objects
 * torch.load(weights_only=True) refuses: CT_ERR_UNSUPPORTED. Nothing changes on failure. */
CT_API ct_status ct_lr_scheduler_load_torch_state(ct_lr_scheduler *s, const ct_archive *a,
                                                  const char *prefix);
/* ct_lr_scheduler_load_torch_state of parameter group `group` of a scheduler state of several
 * groups (base_lrs / _last_lr / min_lrs entry `group`; the shared counters as above): the
 * scheduler of the optimizer that loaded that group (ct_optim_load_torch_state_group). */
CT_API ct_status ct_lr_scheduler_load_torch_state_group(ct_lr_scheduler *s, const ct_archive *a,
                                                        const char *prefix, int group);
/* Free the scheduler (NULL is a no-op); the optimizer keeps its current values. */
CT_API void ct_lr_scheduler_free(ct_lr_scheduler *s);

#ifdef __cplusplus
}
#endif
#endif

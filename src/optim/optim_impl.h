/* Optimizer internals shared by the files of src/optim (optim.c, lr_scheduler.c). */
#ifndef CTORCH_OPTIM_IMPL_H
#define CTORCH_OPTIM_IMPL_H

#include "ctorch/optim.h"

#define CT_OPT_MAX_SLOTS 3

struct ct_optim {
    ct_ctx *ctx;
    ct_optim_options o;
    int n;
    int nslots; /* state slots per parameter (ct_k_optim_slots) */
    ct_tensor **params;
    ct_tensor **state;                    /* per parameter: f32 [nslots * numel] or NULL */
    ct_tensor *(*slot)[CT_OPT_MAX_SLOTS]; /* views of state[i] shaped as params[i] */
    /* The schedule (f64 [CT_K_OPT_SCHED_LEN(n)]): hyper-parameters, each parameter's step count,
     * then NAdam's mu_products. The fused kernel reads and counts it when it runs; lr is a 0-d view
     * of its first value, step_view[i] of parameter i's count, mu_view[i] of its mu_product. */
    ct_tensor *sched, *lr, **step_view, **mu_view;
    double *host; /* FOREACH's host copy of the schedule (read before each eager step; a captured
                     FOREACH step bakes the values it had at capture) */
    ct_tensor *grad_scale, *found_inf; /* retained, or NULL */
    /* torch's param_group['initial_lr']: set by the first scheduler (NAN before) */
    double initial_lr;
    /* OneCycleLR's param_group['max_lr'], ['min_lr'], ['max_momentum'], ['base_momentum']: the
     * last OneCycleLR created sets them, and every OneCycleLR of the optimizer reads them */
    double oc_max_lr, oc_min_lr, oc_max_m, oc_base_m;
};

/* Read (get non-NULL) and/or write (set non-NULL) logical hyper-parameter idx (CT_K_OH_*, or
 * CT_K_OH_N + CT_K_OX_* for the extras after the per-parameter values; ct_k_optim_hpos) of the
 * schedule: a host read / write of one value (refused while capturing). */
ct_status ct__optim_hyper(ct_optim *opt, int idx, const double *set, double *get);
/* The structural flags (CT_K_OPT_*) of the options: what the state's layout and the kernel's loop
 * shape depend on. */
unsigned ct__optim_flags(const ct_optim_options *o);
/* torch's state name of slot s of opt ("exp_avg", "momentum_buffer", ...). */
const char *ct__optim_slot_name(const ct_optim *opt, int s);
/* "mu_product" (NAdam), "eta" (ASGD) or NULL: the per-parameter scalar next to the step count. */
const char *ct__optim_mu_name(ct_optim_kind k);
/* Replace opt's schedule with sched (CT_K_OPT_SCHED_LEN(n) values) and every state slot s of
 * parameter i with src[i * per + off + s] (NULL: the optimizer's initial value), and its host copy:
 * the commit step of the state loaders, after everything was read and checked. */
ct_status ct__optim_commit(ct_optim *opt, const double *sched, ct_tensor *const *src, int per,
                           int off);
/* A checkpoint prefix as entry names use it: "" for NULL / "", "p." for "p" or "p." (at most 200
 * bytes; out of cap >= 202). */
ct_status ct__optim_prefix(ct_ctx *ctx, const char *who, const char *prefix, char *out, size_t cap);
/* "sgd", "adam", ... */
const char *ct__optim_kind_name(ct_optim_kind k);

#endif

/* Learning-rate schedulers (include/ctorch/optim.h): torch.optim.lr_scheduler's chainable get_lr
 * formulas evaluated in double in torch's order (Python floats are doubles and its math.cos / **
 * are libm's cos / pow), so every learning rate equals torch's bit for bit
 * (tests/test_lr_scheduler.c against torch 1.13). The scheduler reads the optimizer's current lr
 * from its schedule tensor and writes the new one there (ct__optim_hyper). */
#include "backends/cpu/kernels/optim_kernels.h"
#include "core/internal.h"
#include "ctorch/archive.h"
#include "optim/optim_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ct_lr_scheduler {
    ct_optim *opt;
    ct_lr_scheduler_options o;
    int64_t *milestones; /* MULTISTEP: a copy */
    int64_t last_epoch, step_count;
    double base_lr, last_lr;
    /* COSINE_WARM_RESTARTS */
    double T_cur, T_i;
    /* ONE_CYCLE: the phases' end steps and their (start, end) lr and momentum, as keys of the
     * optimizer's group values (torch's get_lr reads group['initial_lr'], ['max_lr'], ...) */
    int n_phases;
    double end_step[3];
    signed char lr_from[3], lr_to[3], m_from[3], m_to[3];
    int momentum_idx; /* CT_K_OH_MOMENTUM or CT_K_OH_BETA1 */
    /* CYCLIC: step_size_up + step_size_down, step_size_up / that */
    double cyc_total, cyc_ratio;
    /* REDUCE_ON_PLATEAU */
    double best;
    int64_t num_bad, cooldown_counter;
    /* SEQUENTIAL: the borrowed schedulers and milestones (a copy) */
    ct_lr_scheduler **children;
    int64_t *seq_milestones;
    int n_children;
};

static const char *const ct__lr_names[] = {"LambdaLR",
                                           "MultiplicativeLR",
                                           "StepLR",
                                           "MultiStepLR",
                                           "ConstantLR",
                                           "LinearLR",
                                           "ExponentialLR",
                                           "PolynomialLR",
                                           "CosineAnnealingLR",
                                           "CosineAnnealingWarmRestarts",
                                           "OneCycleLR",
                                           "ReduceLROnPlateau",
                                           "SequentialLR",
                                           "CyclicLR",
                                           "ChainedScheduler",
                                           "SWALR"};

ct_lr_scheduler_options ct_lr_scheduler_options_default(ct_lr_scheduler_kind kind) {
    ct_lr_scheduler_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.kind = kind;
    o.gamma = 0.1;
    o.factor = kind == CT_LR_REDUCE_ON_PLATEAU ? 0.1 : 1.0 / 3.0;
    o.total_iters = 5;
    o.start_factor = 1.0 / 3.0;
    o.end_factor = 1.0;
    o.power = 1.0;
    o.T_mult = 1;
    o.pct_start = 0.3;
    o.cycle_momentum = true;
    o.base_momentum = 0.85;
    o.max_momentum = 0.95;
    o.div_factor = 25.0;
    o.final_div_factor = 1e4;
    o.patience = 10;
    o.threshold = 1e-4;
    o.eps = 1e-8;
    o.anneal_epochs = 10;
    o.step_size_up = 2000;
    o.step_size_down = NAN;
    if (kind == CT_LR_CYCLIC) {
        o.gamma = 1.0;
        o.base_momentum = 0.8;
        o.max_momentum = 0.9;
    }
    return o;
}

/* Python's (a - 1 - T) % (2 T) == 0 for T >= 1, without overflow */
static bool ct__cos_restart(int64_t a, int64_t T) {
    __int128 r = ((__int128)a - 1 - T) % ((__int128)2 * T);
    return r == 0;
}

enum { OC_INITIAL, OC_MAX, OC_MIN, OC_MAX_M, OC_BASE_M };
static double ct__oc_value(const ct_optim *opt, int key) {
    switch (key) {
    case OC_INITIAL: return opt->initial_lr;
    case OC_MAX: return opt->oc_max_lr;
    case OC_MIN: return opt->oc_min_lr;
    case OC_MAX_M: return opt->oc_max_m;
    default: return opt->oc_base_m;
    }
}

/* ONE_CYCLE's anneal_func */
static double ct__anneal(bool linear, double start, double end, double pct) {
    if (linear) return (end - start) * pct + start;
    double cos_out = cos(M_PI * pct) + 1.0;
    return end + (start - end) / 2.0 * cos_out;
}

static ct_status ct__lr_get(ct_lr_scheduler *s, double *lr) {
    return ct__optim_hyper(s->opt, CT_K_OH_LR, NULL, lr);
}

/* get_lr() at s->last_epoch from the current lr; ONE_CYCLE also gives its momentum. */
static ct_status ct__lr_compute(ct_lr_scheduler *s, double lr, double *out, double *mom) {
    const ct_lr_scheduler_options *o = &s->o;
    ct_ctx *ctx = s->opt->ctx;
    const int64_t e = s->last_epoch;
    *out = lr;
    switch (o->kind) {
    case CT_LR_LAMBDA: *out = s->base_lr * o->lr_lambda(e, o->user); break;
    case CT_LR_MULTIPLICATIVE:
        if (e > 0) *out = lr * o->lr_lambda(e, o->user);
        break;
    case CT_LR_STEP:
        if (e != 0 && e % o->step_size == 0) *out = lr * o->gamma;
        break;
    case CT_LR_MULTISTEP: {
        int64_t c = 0;
        for (int i = 0; i < o->n_milestones; i++)
            c += s->milestones[i] == e;
        if (c) *out = lr * pow(o->gamma, (double)c);
        break;
    }
    case CT_LR_CONSTANT:
        if (e == 0) {
            *out = lr * o->factor;
        } else if (e == o->total_iters) {
            if (o->factor == 0)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "ConstantLR: float division by zero (1 / factor at epoch "
                                     "total_iters %lld with factor 0)",
                                     (long long)e);
            *out = lr * (1.0 / o->factor);
        }
        break;
    case CT_LR_LINEAR:
        if (e == 0)
            *out = lr * o->start_factor;
        else if (e <= o->total_iters)
            *out = lr * (1.0 + (o->end_factor - o->start_factor) /
                                   ((double)o->total_iters * o->start_factor +
                                    (double)(e - 1) * (o->end_factor - o->start_factor)));
        break;
    case CT_LR_EXPONENTIAL:
        if (e != 0) *out = lr * o->gamma;
        break;
    case CT_LR_POLYNOMIAL:
        if (e != 0 && e <= o->total_iters) {
            const double t = (double)o->total_iters;
            const double base = (1.0 - (double)e / t) / (1.0 - (double)(e - 1) / t);
            if (base == 0 && o->power < 0)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "PolynomialLR: 0.0 cannot be raised to a negative power "
                                     "(power %g at epoch %lld)",
                                     o->power, (long long)e);
            *out = lr * pow(base, o->power);
        }
        break;
    case CT_LR_COSINE_ANNEALING: {
        const double T = (double)o->T_max, eta = o->eta_min;
        if (e == 0) break;
        if (ct__cos_restart(e, o->T_max))
            *out = lr + (s->base_lr - eta) * (1.0 - cos(M_PI / T)) / 2.0;
        else
            *out = (1.0 + cos(M_PI * (double)e / T)) / (1.0 + cos(M_PI * (double)(e - 1) / T)) *
                       (lr - eta) +
                   eta;
        break;
    }
    case CT_LR_COSINE_WARM_RESTARTS:
        *out = o->eta_min + (s->base_lr - o->eta_min) * (1.0 + cos(M_PI * s->T_cur / s->T_i)) / 2.0;
        break;
    case CT_LR_ONE_CYCLE: {
        if (e > o->total_steps)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "OneCycleLR: Tried to step %lld times. The specified number of "
                                 "total steps is %lld",
                                 (long long)(e + 1), (long long)o->total_steps);
        double start = 0;
        const ct_optim *opt = s->opt;
        for (int i = 0; i < s->n_phases; i++) {
            const double end = s->end_step[i];
            if ((double)e <= end || i == s->n_phases - 1) {
                if (end - start == 0)
                    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                         "OneCycleLR: float division by zero (phase %d has no "
                                         "steps: pct_start %g, total_steps %lld)",
                                         i + 1, o->pct_start, (long long)o->total_steps);
                const double pct = ((double)e - start) / (end - start);
                *out = ct__anneal(o->anneal_linear, ct__oc_value(opt, s->lr_from[i]),
                                  ct__oc_value(opt, s->lr_to[i]), pct);
                *mom = ct__anneal(o->anneal_linear, ct__oc_value(opt, s->m_from[i]),
                                  ct__oc_value(opt, s->m_to[i]), pct);
                break;
            }
            start = end;
        }
        break;
    }
    case CT_LR_CYCLIC: { /* torch's get_lr: a closed form of last_epoch */
        const double total = s->cyc_total, ratio = s->cyc_ratio;
        const double cycle = floor(1 + (double)e / total), x = 1. + (double)e / total - cycle;
        const double sf = x <= ratio ? x / ratio : (x - 1) / (ratio - 1);
        double sc;
        if (o->scale_fn)
            sc = o->scale_fn(o->scale_mode_iterations ? (double)e : cycle, o->user);
        else if (o->cyclic_mode == CT_CYCLIC_TRIANGULAR)
            sc = 1.;
        else if (o->cyclic_mode == CT_CYCLIC_TRIANGULAR2)
            sc = 1 / pow(2., cycle - 1);
        else
            sc = pow(o->gamma, (double)e);
        *out = s->base_lr + (o->max_lr - s->base_lr) * sf * sc;
        *mom = o->max_momentum - (o->max_momentum - o->base_momentum) * sf * sc;
        break;
    }
    case CT_LR_SWA: { /* torch's get_lr: from the current rate (chainable), in its order */
        const double ae = (double)o->anneal_epochs, den = ae > 1 ? ae : 1;
        double step = (double)(s->step_count - 1);
        if (o->anneal_epochs == 0 && step < 1) step = 1;
        const double pt = fmax(0.0, fmin(1.0, (step - 1) / den)),
                     t = fmax(0.0, fmin(1.0, step / den));
        const double pa = o->anneal_linear ? pt : (1 - cos(M_PI * pt)) / 2;
        const double al = o->anneal_linear ? t : (1 - cos(M_PI * t)) / 2;
        const double prev = pa == 1 ? o->swa_lr : (lr - pa * o->swa_lr) / (1 - pa);
        *out = o->swa_lr * al + prev * (1 - al);
        break;
    }
    case CT_LR_REDUCE_ON_PLATEAU:
    case CT_LR_SEQUENTIAL:
    case CT_LR_CHAINED: break;
    }
    return CT_OK;
}

/* Set the computed lr (and ONE_CYCLE's momentum) into the optimizer. */
static ct_status ct__lr_apply(ct_lr_scheduler *s) {
    double lr = 0, out = 0, mom = NAN;
    ct_status st = ct__lr_get(s, &lr);
    if (st == CT_OK) st = ct__lr_compute(s, lr, &out, &mom);
    if (st == CT_OK && (s->o.kind == CT_LR_ONE_CYCLE || s->o.kind == CT_LR_CYCLIC) &&
        s->o.cycle_momentum)
        st = ct__optim_hyper(s->opt, s->momentum_idx, &mom, NULL);
    if (st == CT_OK) st = ct__optim_hyper(s->opt, CT_K_OH_LR, &out, NULL);
    if (st == CT_OK) s->last_lr = out;
    return st;
}

/* ONE_CYCLE / CYCLIC with cycle_momentum: an optimizer with a momentum or beta1 to cycle. */
static ct_status ct__lr_check_momentum(ct_ctx *ctx, const ct_optim *opt,
                                       const ct_lr_scheduler_options *o, const char *k) {
    ct_optim_kind ok = opt->o.kind;
    bool has = ok == CT_OPTIM_SGD || ok == CT_OPTIM_RMSPROP || ok == CT_OPTIM_ADAM ||
               ok == CT_OPTIM_ADAMW || ok == CT_OPTIM_ADAMAX || ok == CT_OPTIM_NADAM ||
               ok == CT_OPTIM_RADAM;
    if (!has)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: optimizer must support momentum with `cycle_momentum` option "
                             "enabled",
                             k);
    if ((ok == CT_OPTIM_SGD || ok == CT_OPTIM_RMSPROP) && !(opt->o.momentum > 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: cycle_momentum needs an optimizer created with a momentum > 0 "
                             "(its momentum buffer is part of the structure chosen at creation)",
                             k);
    if (!isfinite(o->base_momentum) || !isfinite(o->max_momentum))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: base_momentum %g and max_momentum %g must be finite", k,
                             o->base_momentum, o->max_momentum);
    return CT_OK;
}

/* torch's constructor checks, plus what would divide by zero there. */
static ct_status ct__lr_check(ct_ctx *ctx, const ct_optim *opt, const ct_lr_scheduler_options *o) {
    const char *k = ct__lr_names[o->kind];
#define CT__LR_BAD(...) return ct__set_error(ctx, CT_ERR_INVALID_ARG, __VA_ARGS__)
    switch (o->kind) {
    case CT_LR_LAMBDA:
    case CT_LR_MULTIPLICATIVE:
        if (!o->lr_lambda) CT__LR_BAD("%s: lr_lambda is NULL", k);
        break;
    case CT_LR_STEP: /* torch takes step_size modulo at epoch 1 */
        if (o->step_size == 0) CT__LR_BAD("%s: step_size 0 (integer modulo by zero)", k);
        break;
    case CT_LR_MULTISTEP:
        if (o->n_milestones < 0 || (o->n_milestones > 0 && !o->milestones))
            CT__LR_BAD("%s: %s", k,
                       o->n_milestones < 0 ? "n_milestones is negative" : "milestones is NULL");
        break;
    case CT_LR_CONSTANT:
        if (!(o->factor >= 0 && o->factor <= 1))
            CT__LR_BAD(
                "%s: Constant multiplicative factor expected to be between 0 and 1 (factor %g).", k,
                o->factor);
        if (o->total_iters < 0)
            CT__LR_BAD("%s: total_iters %lld is negative", k, (long long)o->total_iters);
        break;
    case CT_LR_LINEAR:
        if (!(o->start_factor > 0 && o->start_factor <= 1))
            CT__LR_BAD("%s: Starting multiplicative factor expected to be greater than 0 and less "
                       "or equal to 1 (start_factor %g).",
                       k, o->start_factor);
        if (!(o->end_factor >= 0 && o->end_factor <= 1))
            CT__LR_BAD(
                "%s: Ending multiplicative factor expected to be between 0 and 1 (end_factor %g).",
                k, o->end_factor);
        if (o->total_iters < 0)
            CT__LR_BAD("%s: total_iters %lld is negative", k, (long long)o->total_iters);
        break;
    case CT_LR_EXPONENTIAL: break;
    case CT_LR_POLYNOMIAL: break; /* total_iters <= 0: the rate never changes, as torch */
    case CT_LR_COSINE_ANNEALING:
        if (o->T_max < 1) CT__LR_BAD("%s: T_max %lld must be >= 1", k, (long long)o->T_max);
        break;
    case CT_LR_COSINE_WARM_RESTARTS:
        if (o->T_0 < 1)
            CT__LR_BAD("%s: Expected positive integer T_0, but got %lld", k, (long long)o->T_0);
        if (o->T_mult < 1)
            CT__LR_BAD("%s: Expected integer T_mult >= 1, but got %lld", k, (long long)o->T_mult);
        break;
    case CT_LR_CYCLIC: {
        const double up = o->step_size_up,
                     down = isnan(o->step_size_down) ? o->step_size_up : o->step_size_down;
        if (!isfinite(o->base_lr) || !isfinite(o->max_lr))
            CT__LR_BAD("%s: base_lr %g and max_lr %g must be finite", k, o->base_lr, o->max_lr);
        if (!isfinite(up) || !isfinite(down) || up == 0 || up + down == 0)
            CT__LR_BAD("%s: float division by zero or an invalid size (step_size_up %g, "
                       "step_size_down %g)",
                       k, up, down);
        if ((int)o->cyclic_mode < CT_CYCLIC_TRIANGULAR || (int)o->cyclic_mode > CT_CYCLIC_EXP_RANGE)
            CT__LR_BAD("%s: mode is invalid and scale_fn is None", k);
        if (o->cycle_momentum) {
            ct_status st = ct__lr_check_momentum(ctx, opt, o, k);
            if (st != CT_OK) return st;
        }
        break;
    }
    case CT_LR_ONE_CYCLE:
        if (o->total_steps < 1)
            CT__LR_BAD("%s: Expected positive integer total_steps, but got %lld", k,
                       (long long)o->total_steps);
        if (!(o->pct_start >= 0 && o->pct_start <= 1))
            CT__LR_BAD("%s: Expected float between 0 and 1 pct_start, but got %g", k, o->pct_start);
        if (!isfinite(o->max_lr)) CT__LR_BAD("%s: invalid max_lr %g", k, o->max_lr);
        if (o->div_factor == 0 || o->final_div_factor == 0 || isnan(o->div_factor) ||
            isnan(o->final_div_factor))
            CT__LR_BAD("%s: float division by zero (div_factor %g, final_div_factor %g)", k,
                       o->div_factor, o->final_div_factor);
        if (o->cycle_momentum) {
            ct_status st = ct__lr_check_momentum(ctx, opt, o, k);
            if (st != CT_OK) return st;
        }
        break;
    case CT_LR_REDUCE_ON_PLATEAU:
        if (o->factor >= 1.0) CT__LR_BAD("%s: Factor should be < 1.0.", k);
        if (isnan(o->factor) || isnan(o->threshold) || isnan(o->min_lr) || isnan(o->eps))
            CT__LR_BAD("%s: factor, threshold, min_lr and eps must not be NaN", k);
        break;
    case CT_LR_SWA:
        if (!isfinite(o->swa_lr)) CT__LR_BAD("%s: invalid swa_lr %g", k, o->swa_lr);
        if (o->anneal_epochs < 0)
            CT__LR_BAD("%s: anneal_epochs must be equal or greater than 0, got %lld", k,
                       (long long)o->anneal_epochs);
        break;
    case CT_LR_SEQUENTIAL:
    case CT_LR_CHAINED: break;
    }
#undef CT__LR_BAD
    return CT_OK;
}

void ct_lr_scheduler_free(ct_lr_scheduler *s) {
    if (!s) return;
    ct_ctx *ctx = s->opt->ctx;
    ct__free(ctx, s->children);
    ct__free(ctx, s->seq_milestones);
    ct__free(ctx, s->milestones);
    ct__free(ctx, s);
}

ct_status ct_lr_scheduler_create(ct_optim *opt, const ct_lr_scheduler_options *opts,
                                 ct_lr_scheduler **out) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!opts || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lr_scheduler_create: NULL %s",
                             !opts ? "options" : "out");
    *out = NULL;
    if (opts->size < offsetof(ct_lr_scheduler_options, lr_lambda) ||
        opts->size > sizeof(ct_lr_scheduler_options))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_create: options.size %zu is not "
                             "sizeof(ct_lr_scheduler_options) = %zu",
                             opts->size, sizeof(ct_lr_scheduler_options));
    if ((int)opts->kind < CT_LR_LAMBDA || (int)opts->kind > CT_LR_SWA)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_create: kind %d is not a scheduler kind",
                             (int)opts->kind);
    if (opts->kind == CT_LR_SEQUENTIAL || opts->kind == CT_LR_CHAINED)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_create: %s is made of other schedulers "
                             "(ct_lr_scheduler_create_%s)",
                             ct__lr_names[opts->kind],
                             opts->kind == CT_LR_CHAINED ? "chained" : "sequential");
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(opts->kind);
    memcpy(&o, opts, opts->size);
    o.size = sizeof o;
    ct_status st = ct__lr_check(ctx, opt, &o);
    if (st != CT_OK) return st;
    ct_lr_scheduler *s = ct__alloc(ctx, sizeof *s, 16);
    if (!s) return ct__set_error(ctx, CT_ERR_OOM, "lr_scheduler_create: out of memory");
    memset(s, 0, sizeof *s);
    s->opt = opt;
    s->o = o;
    if (o.kind == CT_LR_MULTISTEP && o.n_milestones > 0) {
        s->milestones = ct__alloc(ctx, sizeof(int64_t) * (size_t)o.n_milestones, 16);
        if (!s->milestones) {
            ct__free(ctx, s);
            return ct__set_error(ctx, CT_ERR_OOM, "lr_scheduler_create: out of memory");
        }
        memcpy(s->milestones, o.milestones, sizeof(int64_t) * (size_t)o.n_milestones);
    }
    s->o.milestones = s->milestones;
    double lr = 0;
    st = ct__lr_get(s, &lr);
    if (st != CT_OK) {
        ct_lr_scheduler_free(s);
        return st;
    }
    s->last_lr = lr;
    if (o.kind == CT_LR_REDUCE_ON_PLATEAU) { /* no initial step */
        s->best = o.mode_max ? -INFINITY : INFINITY;
        *out = s;
        return CT_OK;
    }
    /* torch: param_group.setdefault('initial_lr', lr) (OneCycleLR sets it first), base_lr =
     * initial_lr, then the initial step to epoch 0 */
    /* what a failed initial step must put back (torch leaves the group changed) */
    const double saved_initial = opt->initial_lr,
                 saved_oc[4] = {opt->oc_max_lr, opt->oc_min_lr, opt->oc_max_m, opt->oc_base_m};
    double saved_m = NAN;
    if (o.kind == CT_LR_ONE_CYCLE) {
        const double initial = o.max_lr / o.div_factor, min_lr = initial / o.final_div_factor;
        const double tot = (double)o.total_steps;
        s->momentum_idx = (opt->o.kind == CT_OPTIM_SGD || opt->o.kind == CT_OPTIM_RMSPROP)
                              ? CT_K_OH_MOMENTUM
                              : CT_K_OH_BETA1;
        if (o.cycle_momentum) st = ct__optim_hyper(opt, s->momentum_idx, NULL, &saved_m);
        /* torch sets group['initial_lr'], ['max_lr'], ['min_lr'] (and the momenta) */
        opt->initial_lr = initial;
        opt->oc_max_lr = o.max_lr;
        opt->oc_min_lr = min_lr;
        opt->oc_max_m = o.max_momentum;
        opt->oc_base_m = o.base_momentum;
        s->end_step[0] = o.pct_start * tot - 1.0;
        if (o.three_phase) {
            static const signed char lf[3] = {OC_INITIAL, OC_MAX, OC_INITIAL},
                                     lt[3] = {OC_MAX, OC_INITIAL, OC_MIN},
                                     mf[3] = {OC_MAX_M, OC_BASE_M, OC_MAX_M},
                                     mt[3] = {OC_BASE_M, OC_MAX_M, OC_MAX_M};
            s->n_phases = 3;
            s->end_step[1] = 2.0 * o.pct_start * tot - 2.0;
            s->end_step[2] = tot - 1.0;
            memcpy(s->lr_from, lf, 3);
            memcpy(s->lr_to, lt, 3);
            memcpy(s->m_from, mf, 3);
            memcpy(s->m_to, mt, 3);
        } else {
            static const signed char lf[2] = {OC_INITIAL, OC_MAX}, lt[2] = {OC_MAX, OC_MIN},
                                     mf[2] = {OC_MAX_M, OC_BASE_M}, mt[2] = {OC_BASE_M, OC_MAX_M};
            s->n_phases = 2;
            s->end_step[1] = tot - 1.0;
            memcpy(s->lr_from, lf, 2);
            memcpy(s->lr_to, lt, 2);
            memcpy(s->m_from, mf, 2);
            memcpy(s->m_to, mt, 2);
        }
        const double mx = o.max_momentum;
        if (st == CT_OK && o.cycle_momentum) st = ct__optim_hyper(opt, s->momentum_idx, &mx, NULL);
    } else if (o.kind == CT_LR_CYCLIC) {
        /* torch: group['lr'] = base_lr (and group['momentum'] = base_momentum), then the base
         * class's initial_lr and its first step; base_lrs = [base_lr] after that step */
        const double up = o.step_size_up, down = isnan(o.step_size_down) ? up : o.step_size_down;
        s->cyc_total = up + down;
        s->cyc_ratio = up / s->cyc_total;
        s->momentum_idx = (opt->o.kind == CT_OPTIM_SGD || opt->o.kind == CT_OPTIM_RMSPROP)
                              ? CT_K_OH_MOMENTUM
                              : CT_K_OH_BETA1;
        const double bm = o.base_momentum;
        if (o.cycle_momentum) st = ct__optim_hyper(opt, s->momentum_idx, NULL, &saved_m);
        if (st == CT_OK && o.cycle_momentum) st = ct__optim_hyper(opt, s->momentum_idx, &bm, NULL);
        if (st == CT_OK) st = ct__optim_hyper(opt, CT_K_OH_LR, &o.base_lr, NULL);
        if (isnan(opt->initial_lr)) opt->initial_lr = o.base_lr;
    } else if (isnan(opt->initial_lr)) {
        opt->initial_lr = lr;
    }
    s->base_lr = opt->initial_lr;
    s->last_epoch = 0;
    s->step_count = 1;
    s->T_i = (double)o.T_0;
    s->T_cur = 0;
    if (st == CT_OK) st = ct__lr_apply(s);
    if (st == CT_OK && o.kind == CT_LR_CYCLIC) s->base_lr = o.base_lr;
    if (st != CT_OK) {
        ct__optim_hyper(opt, CT_K_OH_LR, &lr, NULL);
        opt->initial_lr = saved_initial;
        opt->oc_max_lr = saved_oc[0], opt->oc_min_lr = saved_oc[1];
        opt->oc_max_m = saved_oc[2], opt->oc_base_m = saved_oc[3];
        if (!isnan(saved_m)) ct__optim_hyper(opt, s->momentum_idx, &saved_m, NULL);
        ct_lr_scheduler_free(s);
        return st;
    }
    *out = s;
    return CT_OK;
}

/* CosineAnnealingWarmRestarts.step(epoch): T_cur / T_i from the epoch, then the rate */
static ct_status ct__lr_warm_epoch(ct_lr_scheduler *s, double epoch) {
    const double T0 = (double)s->o.T_0, Tm = (double)s->o.T_mult;
    const double tc0 = s->T_cur, ti0 = s->T_i;
    const int64_t e0 = s->last_epoch;
    if (epoch >= T0) {
        if (s->o.T_mult == 1) {
            s->T_cur = fmod(epoch, T0); /* Python's % of non-negative values */
        } else {
            const double n = floor(log(epoch / T0 * (Tm - 1.0) + 1.0) / log(Tm));
            const double p = pow(Tm, n);
            s->T_cur = epoch - T0 * (p - 1.0) / (Tm - 1.0);
            s->T_i = T0 * p;
        }
    } else {
        s->T_i = T0;
        s->T_cur = epoch;
    }
    s->last_epoch = (int64_t)floor(epoch);
    s->step_count++;
    ct_status st = ct__lr_apply(s);
    if (st != CT_OK) {
        s->T_cur = tc0;
        s->T_i = ti0;
        s->last_epoch = e0;
        s->step_count--;
    }
    return st;
}

/* scheduler.step() (s not SEQUENTIAL or REDUCE_ON_PLATEAU); nothing advances on failure */
static ct_status ct__lr_step(ct_lr_scheduler *s) {
    if (s->o.kind == CT_LR_COSINE_WARM_RESTARTS && s->last_epoch < 0)
        return ct__lr_warm_epoch(s, 0.0); /* torch: epoch = 0 when last_epoch < 0 */
    const int64_t e0 = s->last_epoch;
    const double tc0 = s->T_cur, ti0 = s->T_i;
    s->last_epoch++;
    s->step_count++;
    if (s->o.kind == CT_LR_COSINE_WARM_RESTARTS) {
        s->T_cur = s->T_cur + 1.0;
        if (s->T_cur >= s->T_i) {
            s->T_cur = s->T_cur - s->T_i;
            s->T_i = s->T_i * (double)s->o.T_mult;
        }
    }
    ct_status st = ct__lr_apply(s);
    if (st != CT_OK) { /* nothing advanced */
        s->last_epoch = e0;
        s->step_count--;
        s->T_cur = tc0;
        s->T_i = ti0;
    }
    return st;
}

/* scheduler.step(0), as SequentialLR calls it at a milestone: last_epoch = 0 and torch's closed
 * form there (_get_closed_form_lr), or get_lr() for the kinds without one. */
static ct_status ct__lr_step_zero(ct_lr_scheduler *s) {
    const ct_lr_scheduler_options *o = &s->o;
    ct_ctx *ctx = s->opt->ctx;
    if (o->kind == CT_LR_COSINE_WARM_RESTARTS) return ct__lr_warm_epoch(s, 0.0);
    const double base = s->base_lr;
    double out = 0;
    bool closed = true;
    switch (o->kind) {
    case CT_LR_STEP:
    case CT_LR_EXPONENTIAL: out = base * pow(o->gamma, 0.0); break;
    case CT_LR_MULTISTEP: {
        int64_t c = 0; /* bisect_right(sorted milestones, 0) */
        for (int i = 0; i < o->n_milestones; i++)
            c += s->milestones[i] <= 0;
        out = base * pow(o->gamma, (double)c);
        break;
    }
    case CT_LR_CONSTANT:
        out = base * (o->factor + (double)(0 >= o->total_iters) * (1 - o->factor));
        break;
    case CT_LR_LINEAR:
    case CT_LR_POLYNOMIAL: {
        if (o->total_iters == 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: float division by zero (its closed form at epoch 0 with "
                                 "total_iters 0)",
                                 ct__lr_names[o->kind]);
        const double m = (double)(o->total_iters < 0 ? o->total_iters : 0);
        if (o->kind == CT_LR_LINEAR)
            out = base * (o->start_factor +
                          (o->end_factor - o->start_factor) * m / (double)o->total_iters);
        else
            out = base * pow(1.0 - m / (double)o->total_iters, o->power);
        break;
    }
    case CT_LR_COSINE_ANNEALING:
        out = o->eta_min + (base - o->eta_min) * (1 + cos(M_PI * 0.0 / (double)o->T_max)) / 2;
        break;
    default: closed = false; break; /* LambdaLR, MultiplicativeLR, OneCycleLR: get_lr() */
    }
    const int64_t e0 = s->last_epoch, c0 = s->step_count;
    s->last_epoch = 0;
    s->step_count++;
    ct_status st = closed ? ct__optim_hyper(s->opt, CT_K_OH_LR, &out, NULL) : ct__lr_apply(s);
    if (st == CT_OK && closed) s->last_lr = out;
    if (st != CT_OK) {
        s->last_epoch = e0;
        s->step_count = c0;
    }
    return st;
}

/* SequentialLR.step(): the scheduler of the current stretch; at a milestone its step(0) */
static ct_status ct__lr_seq_step(ct_lr_scheduler *s) {
    const int64_t e = s->last_epoch + 1;
    int idx = 0; /* bisect_right(milestones, e) */
    while (idx < s->n_children - 1 && s->seq_milestones[idx] <= e)
        idx++;
    ct_lr_scheduler *c = s->children[idx];
    ct_status st =
        idx > 0 && s->seq_milestones[idx - 1] == e ? ct__lr_step_zero(c) : ct__lr_step(c);
    if (st != CT_OK) return st;
    s->last_epoch = e;
    s->last_lr = c->last_lr;
    return CT_OK;
}

/* step() of any kind but REDUCE_ON_PLATEAU */
static ct_status ct__lr_step_any(ct_lr_scheduler *s) {
    if (s->o.kind == CT_LR_SEQUENTIAL) return ct__lr_seq_step(s);
    if (s->o.kind != CT_LR_CHAINED) return ct__lr_step(s);
    /* ChainedScheduler.step(): each in turn (a failure leaves the earlier ones stepped, as
     * torch) */
    for (int i = 0; i < s->n_children; i++) {
        ct_status st = ct__lr_step_any(s->children[i]);
        if (st != CT_OK) return st;
    }
    s->last_epoch = s->children[0]->last_epoch;
    return ct__lr_get(s, &s->last_lr);
}

ct_status ct_lr_scheduler_step(ct_lr_scheduler *s) {
    if (!s) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = s->opt->ctx;
    ct__clear_error(ctx);
    if (s->o.kind == CT_LR_REDUCE_ON_PLATEAU)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_step: ReduceLROnPlateau steps on a metric "
                             "(ct_lr_scheduler_step_metric)");
    double lr = 0; /* a host read: refuses a capture before anything changes */
    ct_status st = ct__lr_get(s, &lr);
    if (st != CT_OK) return st;
    return ct__lr_step_any(s);
}

ct_status ct_lr_scheduler_create_chained(ct_optim *opt, int n, ct_lr_scheduler *const *scheds,
                                         ct_lr_scheduler **out) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!out || n < 1 || !scheds)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lr_scheduler_create_chained: %s",
                             !out    ? "out is NULL"
                             : n < 1 ? "no schedulers"
                                     : "schedulers is NULL");
    *out = NULL;
    for (int i = 0; i < n; i++) {
        const ct_lr_scheduler *c = scheds[i];
        if (!c)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "lr_scheduler_create_chained: schedulers[%d] is NULL", i);
        if (c->opt != opt)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "ChainedScheduler expects all schedulers to belong to the same "
                                 "optimizer, but got schedulers at index 0 and %d to be different",
                                 i);
        if (c->o.kind == CT_LR_REDUCE_ON_PLATEAU)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "lr_scheduler_create_chained: schedulers[%d] is a "
                                 "ReduceLROnPlateau (its step needs a metric)",
                                 i);
        for (int j = 0; j < i; j++)
            if (scheds[j] == c)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "lr_scheduler_create_chained: schedulers[%d] and [%d] are "
                                     "the same scheduler",
                                     j, i);
    }
    double lr = 0;
    ct_status st = ct__optim_hyper(opt, CT_K_OH_LR, NULL, &lr); /* refuses a capture */
    if (st != CT_OK) return st;
    ct_lr_scheduler *s = ct__alloc(ctx, sizeof *s, 16);
    if (s) {
        memset(s, 0, sizeof *s);
        s->opt = opt;
        s->children = ct__alloc(ctx, sizeof *s->children * (size_t)n, 16);
    }
    if (!s || !s->children) {
        ct_lr_scheduler_free(s);
        return ct__set_error(ctx, CT_ERR_OOM, "lr_scheduler_create_chained: out of memory");
    }
    s->o = ct_lr_scheduler_options_default(CT_LR_CHAINED);
    s->n_children = n;
    memcpy(s->children, scheds, sizeof *s->children * (size_t)n);
    s->last_epoch = scheds[0]->last_epoch;
    s->last_lr = lr; /* torch: the group's lr at construction */
    *out = s;
    return CT_OK;
}

ct_status ct_lr_scheduler_create_sequential(ct_optim *opt, int n, ct_lr_scheduler *const *scheds,
                                            const int64_t *milestones, ct_lr_scheduler **out) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!out || n < 1 || !scheds || (n > 1 && !milestones))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lr_scheduler_create_sequential: %s",
                             !out      ? "out is NULL"
                             : n < 1   ? "no schedulers"
                             : !scheds ? "schedulers is NULL"
                                       : "milestones is NULL (n - 1 of them are needed)");
    *out = NULL;
    for (int i = 0; i < n; i++) {
        const ct_lr_scheduler *c = scheds[i];
        if (!c)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "lr_scheduler_create_sequential: schedulers[%d] is NULL", i);
        if (c->opt != opt)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "Sequential Schedulers expects all schedulers to belong to the "
                                 "same optimizer, but got schedulers at index %d to be different "
                                 "than the optimizer passed in.",
                                 i);
        if (c->o.kind == CT_LR_REDUCE_ON_PLATEAU || c->o.kind == CT_LR_SEQUENTIAL ||
            c->o.kind == CT_LR_CHAINED)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "lr_scheduler_create_sequential: schedulers[%d] is a %s (it "
                                 "has no step() SequentialLR can call)",
                                 i, ct__lr_names[c->o.kind]);
        for (int j = 0; j < i; j++)
            if (scheds[j] == c)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "lr_scheduler_create_sequential: schedulers[%d] and [%d] "
                                     "are the same scheduler",
                                     j, i);
    }
    double lr = 0;
    ct_status st = ct__optim_hyper(opt, CT_K_OH_LR, NULL, &lr); /* refuses a capture */
    if (st != CT_OK) return st;
    ct_lr_scheduler *s = ct__alloc(ctx, sizeof *s, 16);
    int64_t *e0 = ct__alloc(ctx, sizeof(int64_t) * (size_t)n, 16);
    if (s) {
        memset(s, 0, sizeof *s);
        s->opt = opt;
        s->children = ct__alloc(ctx, sizeof *s->children * (size_t)n, 16);
        s->seq_milestones = ct__alloc(ctx, sizeof(int64_t) * (size_t)(n > 1 ? n - 1 : 1), 16);
    }
    if (!s || !e0 || !s->children || !s->seq_milestones) {
        ct_lr_scheduler_free(s);
        ct__free(ctx, e0);
        return ct__set_error(ctx, CT_ERR_OOM, "lr_scheduler_create_sequential: out of memory");
    }
    s->o = ct_lr_scheduler_options_default(CT_LR_SEQUENTIAL);
    s->n_children = n;
    memcpy(s->children, scheds, sizeof *s->children * (size_t)n);
    if (n > 1) memcpy(s->seq_milestones, milestones, sizeof(int64_t) * (size_t)(n - 1));
    /* torch: lr back to initial_lr, every scheduler one epoch back, then the first one's initial
     * step */
    const double init = isnan(opt->initial_lr) ? lr : opt->initial_lr;
    const int64_t c0 = scheds[0]->step_count;
    for (int i = 0; i < n; i++) {
        e0[i] = scheds[i]->last_epoch;
        scheds[i]->last_epoch--;
    }
    st = ct__optim_hyper(opt, CT_K_OH_LR, &init, NULL);
    if (st == CT_OK) {
        scheds[0]->step_count = 0;
        st = ct__lr_step(scheds[0]);
    }
    if (st != CT_OK) { /* put everything back */
        for (int i = 0; i < n; i++)
            scheds[i]->last_epoch = e0[i];
        scheds[0]->step_count = c0;
        ct__optim_hyper(opt, CT_K_OH_LR, &lr, NULL);
        ct__free(ctx, e0);
        ct_lr_scheduler_free(s);
        return st;
    }
    ct__free(ctx, e0);
    s->last_epoch = 0;
    s->last_lr = scheds[0]->last_lr;
    *out = s;
    return CT_OK;
}

ct_status ct_lr_scheduler_step_epoch(ct_lr_scheduler *s, double epoch) {
    if (!s) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = s->opt->ctx;
    ct__clear_error(ctx);
    if (s->o.kind != CT_LR_COSINE_WARM_RESTARTS)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "lr_scheduler_step_epoch: only CosineAnnealingWarmRestarts takes an "
                             "epoch (torch deprecates it for the others)");
    if (!(epoch >= 0) || isinf(epoch) || epoch > 9007199254740992.0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_step_epoch: Expected non-negative epoch, but got %g",
                             epoch);
    return ct__lr_warm_epoch(s, epoch);
}

ct_status ct_lr_scheduler_step_metric(ct_lr_scheduler *s, double metric) {
    if (!s) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = s->opt->ctx;
    ct__clear_error(ctx);
    const ct_lr_scheduler_options *o = &s->o;
    if (o->kind != CT_LR_REDUCE_ON_PLATEAU)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_step_metric: only ReduceLROnPlateau steps on a metric "
                             "(%s: ct_lr_scheduler_step)",
                             ct__lr_names[o->kind]);
    double lr = 0;
    ct_status st = ct__lr_get(s, &lr); /* also refuses a capture before anything changes */
    if (st != CT_OK) return st;
    bool better;
    if (!o->mode_max)
        better = o->threshold_abs ? metric < s->best - o->threshold
                                  : metric < s->best * (1.0 - o->threshold);
    else
        better = o->threshold_abs ? metric > s->best + o->threshold
                                  : metric > s->best * (o->threshold + 1.0);
    s->last_epoch++;
    if (better) {
        s->best = metric;
        s->num_bad = 0;
    } else {
        s->num_bad++;
    }
    if (s->cooldown_counter > 0) {
        s->cooldown_counter--;
        s->num_bad = 0;
    }
    if (s->num_bad > o->patience) {
        double nl = lr * o->factor;
        if (o->min_lr > nl) nl = o->min_lr; /* Python's max(old * factor, min_lr) */
        if (lr - nl > o->eps) st = ct__optim_hyper(s->opt, CT_K_OH_LR, &nl, NULL);
        if (st == CT_OK && lr - nl > o->eps) lr = nl;
        s->cooldown_counter = o->cooldown;
        s->num_bad = 0;
    }
    s->last_lr = lr;
    return st;
}

double ct_lr_scheduler_last_lr(const ct_lr_scheduler *s) { return s ? s->last_lr : NAN; }

int64_t ct_lr_scheduler_last_epoch(const ct_lr_scheduler *s) { return s ? s->last_epoch : -1; }

/* ---- scheduler.load_state_dict from a PyTorch checkpoint ---- */

/* One field of the state dict: its name under the prefix, where it goes, and how it is read. */
typedef enum { LF_D, LF_I64, LF_MODE, LF_TMODE } ct__lf_kind;
typedef struct {
    const char *key;
    ct__lf_kind kind;
    void *dst;
    bool required;
} ct__lf;

static ct_status ct__lf_read(ct_ctx *ctx, const ct_archive *a, const char *pre, const ct__lf *f,
                             const char *kname) {
    char name[512];
    snprintf(name, sizeof name, "%s%s", pre, f->key);
    const int idx = ct_archive_find(a, name);
    if (idx < 0) {
        if (!f->required) return CT_OK;
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_load_torch_state: no %s: not the state of torch's %s",
                             name, kname);
    }
    const int kind = ct_archive_kind(a, idx);
    if (f->kind == LF_MODE || f->kind == LF_TMODE) {
        const char *v = NULL;
        if (kind != CT_ENTRY_STRING || ct_archive_get_string(a, name, &v, NULL) != CT_OK)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "lr_scheduler_load_torch_state: %s is not a string", name);
        const char *x = f->kind == LF_MODE ? "max" : "abs", *y = f->kind == LF_MODE ? "min" : "rel";
        if (strcmp(v, x) != 0 && strcmp(v, y) != 0)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "lr_scheduler_load_torch_state: %s is '%s', not '%s' or '%s'",
                                 name, v, y, x);
        *(bool *)f->dst = strcmp(v, x) == 0;
        return CT_OK;
    }
    if (f->kind == LF_I64) {
        int64_t v = 0;
        if ((kind != CT_ENTRY_INT && kind != CT_ENTRY_BOOL) ||
            ct_archive_get_int(a, name, &v) != CT_OK)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "lr_scheduler_load_torch_state: %s is not an int", name);
        *(int64_t *)f->dst = v;
        return CT_OK;
    }
    double v = 0;
    if ((kind != CT_ENTRY_INT && kind != CT_ENTRY_FLOAT && kind != CT_ENTRY_BOOL) ||
        ct_archive_get_float(a, name, &v) != CT_OK)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "lr_scheduler_load_torch_state: %s is not a number", name);
    *(double *)f->dst = v;
    return CT_OK;
}

/* SequentialLR.load_state_dict: its last_epoch and _last_lr, each scheduler's state from
 * "_schedulers.<i>"; all or nothing */
static ct_status ct__lr_load(ct_lr_scheduler *s, const ct_archive *a, const char *prefix, int group,
                             bool one_group);
static ct_status ct__lr_seq_load(ct_lr_scheduler *s, const ct_archive *a, const char *pre,
                                 int group, bool one_group) {
    ct_ctx *ctx = s->opt->ctx;
    ct_lr_scheduler t = *s;
    const bool chained = s->o.kind == CT_LR_CHAINED; /* no last_epoch, no milestones */
    char k_last[32];
    snprintf(k_last, sizeof k_last, "_last_lr.%d", group);
    ct__lf f[2] = {{k_last, LF_D, &t.last_lr, true}, {"last_epoch", LF_I64, &t.last_epoch, true}};
    for (int i = 0; i < (chained ? 1 : 2); i++) {
        ct_status st = ct__lf_read(ctx, a, pre, &f[i], ct__lr_names[s->o.kind]);
        if (st != CT_OK) return st;
    }
    int64_t nm = 0; /* _milestones must be ours */
    for (; !chained; nm++) {
        char name[512];
        int64_t v = 0;
        snprintf(name, sizeof name, "%s_milestones.%lld", pre, (long long)nm);
        if (ct_archive_get_int(a, name, &v) != CT_OK) break;
        if (nm >= s->n_children - 1 || v != s->seq_milestones[nm])
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "lr_scheduler_load_torch_state: %s is %lld; this SequentialLR's "
                                 "milestones differ",
                                 name, (long long)v);
    }
    if (!chained && (nm != s->n_children - 1 || t.last_epoch < 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_load_torch_state: %s_milestones holds %lld milestones, "
                             "this SequentialLR %d (or last_epoch %lld < 0)",
                             pre, (long long)nm, s->n_children - 1, (long long)t.last_epoch);
    ct_lr_scheduler *saved = ct__alloc(ctx, sizeof *saved * (size_t)s->n_children, 16);
    if (!saved)
        return ct__set_error(ctx, CT_ERR_OOM, "lr_scheduler_load_torch_state: out of memory");
    for (int i = 0; i < s->n_children; i++)
        saved[i] = *s->children[i];
    ct_status st = CT_OK;
    for (int i = 0; i < s->n_children && st == CT_OK; i++) {
        char cp[300];
        snprintf(cp, sizeof cp, "%s_schedulers.%d", pre, i);
        st = ct__lr_load(s->children[i], a, cp, group, one_group);
    }
    if (st != CT_OK) {
        for (int i = 0; i < s->n_children; i++)
            *s->children[i] = saved[i];
    } else {
        if (chained) t.last_epoch = s->children[0]->last_epoch;
        *s = t;
    }
    ct__free(ctx, saved);
    return st;
}

static ct_status ct__lr_load(ct_lr_scheduler *s, const ct_archive *a, const char *prefix, int group,
                             bool one_group);

ct_status ct_lr_scheduler_load_torch_state(ct_lr_scheduler *s, const ct_archive *a,
                                           const char *prefix) {
    return ct__lr_load(s, a, prefix, 0, true);
}
ct_status ct_lr_scheduler_load_torch_state_group(ct_lr_scheduler *s, const ct_archive *a,
                                                 const char *prefix, int group) {
    return ct__lr_load(s, a, prefix, group, false);
}

static ct_status ct__lr_load(ct_lr_scheduler *s, const ct_archive *a, const char *prefix, int group,
                             bool one_group) {
    if (!s) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = s->opt->ctx;
    ct__clear_error(ctx);
    if (!a)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_load_torch_state: archive is NULL");
    if (group < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lr_scheduler_load_torch_state: group %d < 0",
                             group);
    char pre[256];
    ct_status pst = ct__optim_prefix(ctx, "lr_scheduler_load_torch_state", prefix, pre, sizeof pre);
    if (pst != CT_OK) return pst;
    /* the per-group entries of this group */
    char k_last[32], k_base[32], k_min[32];
    snprintf(k_last, sizeof k_last, "_last_lr.%d", group);
    snprintf(k_base, sizeof k_base, "base_lrs.%d", group);
    snprintf(k_min, sizeof k_min, "min_lrs.%d", group);
    const ct_lr_scheduler_kind k = s->o.kind;
    const char *kname = ct__lr_names[k];
    if (k == CT_LR_MULTISTEP || k == CT_LR_ONE_CYCLE || k == CT_LR_SWA)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "lr_scheduler_load_torch_state: torch's %s state holds a pickled "
                             "Python object (%s), which a checkpoint reader refuses as "
                             "torch.load(weights_only=True) does",
                             kname,
                             k == CT_LR_MULTISTEP ? "a Counter"
                             : k == CT_LR_SWA     ? "a function"
                                                  : "a bound method");
    if (k == CT_LR_CYCLIC)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "lr_scheduler_load_torch_state: torch 1.13's CyclicLR state holds a "
                             "WeakMethod, which torch.save cannot write");
    if (k == CT_LR_SEQUENTIAL || k == CT_LR_CHAINED)
        return ct__lr_seq_load(s, a, pre, group, one_group);
    /* read everything into a copy, then commit */
    ct_lr_scheduler t = *s;
    ct_lr_scheduler_options *o = &t.o;
    const bool plateau = k == CT_LR_REDUCE_ON_PLATEAU;
    int64_t step_count = t.step_count;
    double T_i = t.T_i, T_cur = t.T_cur;
    ct__lf f[24];
    int n = 0;
#define F(key, kind, dst, req) f[n++] = (ct__lf){key, kind, dst, req}
    F("last_epoch", LF_I64, &t.last_epoch, true);
    F(k_last, LF_D, &t.last_lr, !plateau);
    if (!plateau) {
        F(k_base, LF_D, &t.base_lr, true);
        F("_step_count", LF_I64, &step_count, true);
    }
    switch (k) {
    case CT_LR_STEP:
        F("step_size", LF_I64, &o->step_size, true);
        F("gamma", LF_D, &o->gamma, true);
        break;
    case CT_LR_CONSTANT:
        F("factor", LF_D, &o->factor, true);
        F("total_iters", LF_I64, &o->total_iters, true);
        break;
    case CT_LR_LINEAR:
        F("start_factor", LF_D, &o->start_factor, true);
        F("end_factor", LF_D, &o->end_factor, true);
        F("total_iters", LF_I64, &o->total_iters, true);
        break;
    case CT_LR_EXPONENTIAL: F("gamma", LF_D, &o->gamma, true); break;
    case CT_LR_POLYNOMIAL:
        F("total_iters", LF_I64, &o->total_iters, true);
        F("power", LF_D, &o->power, true);
        break;
    case CT_LR_COSINE_ANNEALING:
        F("T_max", LF_I64, &o->T_max, true);
        F("eta_min", LF_D, &o->eta_min, true);
        break;
    case CT_LR_COSINE_WARM_RESTARTS:
        F("T_0", LF_I64, &o->T_0, true);
        F("T_mult", LF_I64, &o->T_mult, true);
        F("eta_min", LF_D, &o->eta_min, true);
        F("T_i", LF_D, &T_i, true);
        F("T_cur", LF_D, &T_cur, true);
        break;
    case CT_LR_REDUCE_ON_PLATEAU:
        F("factor", LF_D, &o->factor, true);
        F(k_min, LF_D, &o->min_lr, true);
        F("patience", LF_I64, &o->patience, true);
        F("cooldown", LF_I64, &o->cooldown, true);
        F("cooldown_counter", LF_I64, &t.cooldown_counter, true);
        F("mode", LF_MODE, &o->mode_max, true);
        F("threshold", LF_D, &o->threshold, true);
        F("threshold_mode", LF_TMODE, &o->threshold_abs, true);
        F("best", LF_D, &t.best, true);
        F("num_bad_epochs", LF_I64, &t.num_bad, true);
        F("eps", LF_D, &o->eps, true);
        break;
    default: break; /* LambdaLR / MultiplicativeLR: the functions are not in the file */
    }
#undef F
    for (int i = 0; i < n; i++) {
        ct_status st = ct__lf_read(ctx, a, pre, &f[i], kname);
        if (st != CT_OK) return st;
    }
    char more[512];
    snprintf(more, sizeof more, "%s%s", pre, plateau ? "min_lrs.1" : "base_lrs.1");
    if (one_group && ct_archive_find(a, more) >= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "lr_scheduler_load_torch_state: %s: the state is of several "
                             "parameter groups (a ctorch optimizer has one: load each group's "
                             "with ct_lr_scheduler_load_torch_state_group)",
                             more);
    /* the values must make sense for this kind (torch would fail later, or loop) */
    ct_status st = ct__lr_check(ctx, s->opt, o);
    if (st != CT_OK) return st;
    /* last_epoch -1: a SequentialLR's scheduler not entered yet (torch moved it one back) */
    if (t.last_epoch < -1 || step_count < 0 || (k == CT_LR_COSINE_WARM_RESTARTS && !(T_i >= 1)) ||
        !isfinite(T_cur) || t.num_bad < 0 || t.cooldown_counter < 0)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "lr_scheduler_load_torch_state: counters out of range (last_epoch "
                             "%lld, _step_count %lld, T_i %g)",
                             (long long)t.last_epoch, (long long)step_count, T_i);
    t.step_count = step_count;
    t.T_i = T_i;
    t.T_cur = T_cur;
    *s = t;
    return CT_OK;
}

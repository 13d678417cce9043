/* Optimizers (include/ctorch/optim.h): option checks, parameter state, and the two step
 * implementations that must give the same bits — FUSED (one CT_OP_OPTIM_STEP descriptor per
 * parameter through the dispatch point, so it runs on the context's pool and can be captured) and
 * FOREACH (the same f32 formulas written with public ops). The per-step scalars are computed here
 * once in double and rounded to f32 exactly as the ops round their scalar arguments, so both paths
 * see the same f32 constants (docs/optim.md). */
#include "backends/cpu/kernels/optim_kernels.h"
#include "core/internal.h"
#include "ctorch/ops.h"
#include "ctorch/optim.h"
#include "ctorch/safetensors.h"
#include "dispatch/dispatch.h"
#include "ops/dispatch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optim/optim_impl.h"

static const char *const ct__optim_names[CT_K_OPT_KINDS] = {
    "sgd",   "adam",  "adamw",    "adagrad", "rmsprop", "adamax",
    "nadam", "radam", "adadelta", "rprop",   "asgd"};

const char *ct__optim_kind_name(ct_optim_kind k) { return ct__optim_names[k]; }

ct_optim_options ct_optim_options_default(ct_optim_kind kind) {
    ct_optim_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.kind = kind;
    o.impl = CT_OPTIM_IMPL_FUSED;
    o.lr = 1e-3;
    o.beta1 = 0.9;
    o.beta2 = 0.999;
    o.eps = 1e-8;
    o.alpha = 0.99;
    o.rho = 0.9;
    o.momentum_decay = 4e-3;
    o.etaminus = 0.5;
    o.etaplus = 1.2;
    o.step_size_min = 1e-6;
    o.step_size_max = 50;
    o.lambd = 1e-4;
    o.t0 = 1e6;
    switch (kind) {
    case CT_OPTIM_ADAMW: o.weight_decay = 1e-2; break;
    case CT_OPTIM_ADAGRAD:
        o.lr = 1e-2;
        o.eps = 1e-10;
        break;
    case CT_OPTIM_RMSPROP: o.lr = 1e-2; break;
    case CT_OPTIM_ADAMAX:
    case CT_OPTIM_NADAM: o.lr = 2e-3; break;
    case CT_OPTIM_ADADELTA:
        o.lr = 1.0;
        o.eps = 1e-6;
        break;
    case CT_OPTIM_RPROP: o.lr = 1e-2; break;
    case CT_OPTIM_ASGD:
        o.lr = 1e-2;
        o.alpha = 0.75;
        break;
    default: break;
    }
    return o;
}

/* torch.optim's checks, each naming the option and its value. */
static ct_status ct__optim_check(ct_ctx *ctx, const ct_optim_options *o) {
    if ((int)o->kind < CT_OPTIM_SGD || (int)o->kind > CT_OPTIM_ASGD)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim: kind %d is not an optimizer kind",
                             (int)o->kind);
    if ((int)o->impl != CT_OPTIM_IMPL_FUSED && (int)o->impl != CT_OPTIM_IMPL_FOREACH)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim: impl %d is not FUSED or FOREACH",
                             (int)o->impl);
    const char *k = ct__optim_names[o->kind];
#define CT__OPT_NONNEG(field)                                                                      \
    if (!(o->field >= 0) || isinf(o->field))                                                       \
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim %s: invalid " #field " %g", k,        \
                             o->field);
    CT__OPT_NONNEG(lr)
    CT__OPT_NONNEG(weight_decay)
    switch (o->kind) {
    case CT_OPTIM_SGD:
        CT__OPT_NONNEG(momentum)
        if (!isfinite(o->dampening))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim sgd: invalid dampening %g",
                                 o->dampening);
        if (o->nesterov && (o->momentum <= 0 || o->dampening != 0))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim sgd: nesterov momentum requires a momentum > 0 and zero "
                                 "dampening (momentum %g, dampening %g)",
                                 o->momentum, o->dampening);
        break;
    case CT_OPTIM_ADAM:
    case CT_OPTIM_ADAMW:
    case CT_OPTIM_ADAMAX:
    case CT_OPTIM_NADAM:
    case CT_OPTIM_RADAM:
        CT__OPT_NONNEG(eps)
        if (o->kind == CT_OPTIM_NADAM) CT__OPT_NONNEG(momentum_decay)
        if (!(o->beta1 >= 0 && o->beta1 < 1))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim %s: invalid beta1 %g (must be in [0, 1))", k, o->beta1);
        if (!(o->beta2 >= 0 && o->beta2 < 1))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim %s: invalid beta2 %g (must be in [0, 1))", k, o->beta2);
        break;
    case CT_OPTIM_ADAGRAD:
        CT__OPT_NONNEG(eps)
        CT__OPT_NONNEG(lr_decay)
        CT__OPT_NONNEG(initial_accumulator_value)
        break;
    case CT_OPTIM_RMSPROP:
        CT__OPT_NONNEG(eps)
        CT__OPT_NONNEG(momentum)
        CT__OPT_NONNEG(alpha)
        break;
    case CT_OPTIM_ADADELTA:
        CT__OPT_NONNEG(eps)
        if (!(o->rho >= 0 && o->rho <= 1))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim adadelta: invalid rho %g (must be in [0, 1])", o->rho);
        break;
    case CT_OPTIM_RPROP:
        if (o->weight_decay != 0) /* torch's Rprop has none */
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim rprop: Rprop has no weight_decay (got %g)",
                                 o->weight_decay);
        if (!(0.0 < o->etaminus && o->etaminus < 1.0 && 1.0 < o->etaplus) || isinf(o->etaplus))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim rprop: Invalid eta values: %g, %g",
                                 o->etaminus, o->etaplus);
        if (isnan(o->step_size_min) || isnan(o->step_size_max))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim rprop: invalid step_sizes (%g, %g)", o->step_size_min,
                                 o->step_size_max);
        break;
    case CT_OPTIM_ASGD:
        /* lambd < 0: torch's eta takes a negative number to the power alpha at some step
         * (a math domain error there, NaN here): refused up front */
        if (!(o->lambd >= 0) || isinf(o->lambd) || !isfinite(o->alpha) || isnan(o->t0))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim asgd: invalid lambd %g (must be finite and >= 0), alpha "
                                 "%g or t0 %g",
                                 o->lambd, o->alpha, o->t0);
        break;
    }
#undef CT__OPT_NONNEG
    return CT_OK;
}

void ct_optim_free(ct_optim *opt) {
    if (!opt) return;
    ct_ctx *ctx = opt->ctx;
    for (int i = 0; i < opt->n; i++) {
        if (opt->slot)
            for (int s = 0; s < CT_OPT_MAX_SLOTS; s++)
                ct_tensor_release(opt->slot[i][s]);
        if (opt->state) ct_tensor_release(opt->state[i]);
        if (opt->params) ct_tensor_release(opt->params[i]);
        if (opt->step_view) ct_tensor_release(opt->step_view[i]);
        if (opt->mu_view) ct_tensor_release(opt->mu_view[i]);
    }
    ct_tensor_release(opt->lr);
    ct_tensor_release(opt->sched);
    ct_tensor_release(opt->grad_scale);
    ct_tensor_release(opt->found_inf);
    ct__free(ctx, opt->slot);
    ct__free(ctx, opt->state);
    ct__free(ctx, opt->params);
    ct__free(ctx, opt->step_view);
    ct__free(ctx, opt->mu_view);
    ct__free(ctx, opt->host);
    ct__free(ctx, opt);
}

static void *ct__optim_zalloc(ct_ctx *ctx, size_t n) {
    void *p = ct__alloc(ctx, n ? n : 1, 16);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

/* State of parameter i: nslots * numel f32 values (zeros; Adagrad's sum starts at
 * initial_accumulator_value), and a view of each slot shaped as the parameter. */
static ct_status ct__optim_make_state(ct_optim *opt, int i) {
    ct_ctx *ctx = opt->ctx;
    const ct_tensor *p = opt->params[i];
    int64_t n = ct_tensor_numel(p), tot = n * opt->nslots;
    ct_status st;
    if (opt->o.kind == CT_OPTIM_ADAGRAD && opt->o.initial_accumulator_value != 0)
        st = ct_tensor_full(ctx, CT_FLOAT32, 1, &tot, opt->o.initial_accumulator_value,
                            &opt->state[i]);
    else
        st = ct_tensor_zeros(ctx, CT_FLOAT32, 1, &tot, &opt->state[i]);
    for (int s = 0; s < opt->nslots && st == CT_OK; s++) {
        ct_tensor *nar = NULL;
        st = ct_tensor_narrow(ctx, opt->state[i], 0, s * n, n, &nar);
        if (st == CT_OK)
            st = ct_tensor_view(ctx, nar, ct_tensor_ndim(p), ct_tensor_shape(p), &opt->slot[i][s]);
        ct_tensor_release(nar);
    }
    return st;
}

/* The schedule tensor on the parameters' device, its lr view and one step-count and one
 * mu_product view per parameter (all 0-d). */
static ct_status ct__optim_make_sched(ct_optim *opt) {
    ct_ctx *ctx = opt->ctx;
    const ct_optim_options *o = &opt->o;
    double *h = opt->host;
    h[CT_K_OH_LR] = o->lr;
    h[CT_K_OH_MOMENTUM] = o->momentum;
    h[CT_K_OH_DAMPENING] = o->dampening;
    h[CT_K_OH_WD] = o->weight_decay;
    h[CT_K_OH_BETA1] = o->beta1;
    h[CT_K_OH_BETA2] = o->beta2;
    h[CT_K_OH_EPS] = o->eps;
    h[CT_K_OH_LR_DECAY] = o->lr_decay;
    h[CT_K_OH_ALPHA] = o->alpha;
    h[CT_K_OH_RHO] = o->rho;
    h[CT_K_OH_MOMENTUM_DECAY] = o->momentum_decay;
    double *x = h + CT_K_OH_N + 2 * opt->n; /* the extras after the per-parameter values */
    x[CT_K_OX_ETAMINUS] = o->etaminus;
    x[CT_K_OX_ETAPLUS] = o->etaplus;
    x[CT_K_OX_STEP_MIN] = o->step_size_min;
    x[CT_K_OX_STEP_MAX] = o->step_size_max;
    x[CT_K_OX_LAMBD] = o->lambd;
    x[CT_K_OX_T0] = o->t0;
    for (int i = 0; i < opt->n; i++)
        h[CT_K_OH_N + opt->n + i] = 1.0; /* mu_product */
    int64_t len = CT_K_OPT_SCHED_LEN(opt->n);
    ct_tensor *host = NULL;
    ct_status st = ct_tensor_from_host(ctx, h, CT_FLOAT64, 1, &len, &host);
    if (st != CT_OK) return st;
    ct_device dev = ct_tensor_device(opt->params[0]);
    if (dev.type == CT_DEVICE_CPU) {
        opt->sched = host;
        host = NULL;
    } else {
        st = ct_tensor_to_device(ctx, host, dev, &opt->sched);
        ct_tensor_release(host);
        if (st != CT_OK) return st;
    }
    for (int i = -1; i < 2 * opt->n && st == CT_OK; i++) {
        ct_tensor *nar = NULL;
        st = ct_tensor_narrow(ctx, opt->sched, 0, i < 0 ? CT_K_OH_LR : CT_K_OH_N + i, 1, &nar);
        if (st == CT_OK)
            st = ct_tensor_view(ctx, nar, 0, NULL,
                                i < 0        ? &opt->lr
                                : i < opt->n ? &opt->step_view[i]
                                             : &opt->mu_view[i - opt->n]);
        ct_tensor_release(nar);
    }
    return st;
}

ct_status ct_optim_create(ct_ctx *ctx, const ct_optim_options *opts, int n_params,
                          ct_tensor *const *params, ct_optim **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!opts || !out || (n_params > 0 && !params))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_create: NULL %s",
                             !opts  ? "options"
                             : !out ? "out"
                                    : "params");
    *out = NULL;
    if (opts->size < offsetof(ct_optim_options, lr) || opts->size > sizeof(ct_optim_options))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "optim_create: options.size %zu is not sizeof(ct_optim_options) = %zu",
                             opts->size, sizeof(ct_optim_options));
    ct_optim_options o = ct_optim_options_default(opts->kind);
    memcpy(&o, opts, opts->size);
    o.size = sizeof o;
    ct_status st = ct__optim_check(ctx, &o);
    if (st != CT_OK) return st;
    if (n_params < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "optim_create: n_params is %d: an optimizer needs parameters",
                             n_params);
    for (int i = 0; i < n_params; i++) {
        const ct_tensor *p = params[i];
        if (!p)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_create: params[%d] is NULL", i);
        if (p->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim_create: params[%d] belongs to another context", i);
        ct_dtype dt = ct_tensor_dtype(p);
        if (dt != CT_FLOAT32 && dt != CT_FLOAT16 && dt != CT_BFLOAT16)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "optim_create: params[%d] is %s; parameters must be float32, "
                                 "float16 or bfloat16",
                                 i, ct_dtype_name(dt));
        if (!ct_tensor_is_contiguous(p))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim_create: params[%d] is not contiguous", i);
        for (int j = 0; j < i; j++)
            if (params[j] == p || (ct_tensor_numel(p) > 0 && ct_tensor_numel(params[j]) > 0 &&
                                   ct_tensor_data_ptr(params[j]) == ct_tensor_data_ptr(p)))
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "optim_create: params[%d] and params[%d] are the same "
                                     "parameter",
                                     j, i);
    }
    ct_optim *opt = ct__optim_zalloc(ctx, sizeof *opt);
    if (!opt) return ct__set_error(ctx, CT_ERR_OOM, "optim_create: out of memory");
    opt->ctx = ctx;
    opt->o = o;
    opt->n = n_params;
    opt->initial_lr = NAN;
    opt->nslots = ct_k_optim_slots((int)o.kind, ct__optim_flags(&o));
    size_t np = (size_t)n_params;
    opt->params = ct__optim_zalloc(ctx, np * sizeof *opt->params);
    opt->state = ct__optim_zalloc(ctx, np * sizeof *opt->state);
    opt->slot = ct__optim_zalloc(ctx, np * sizeof *opt->slot);
    opt->step_view = ct__optim_zalloc(ctx, np * sizeof *opt->step_view);
    opt->mu_view = ct__optim_zalloc(ctx, np * sizeof *opt->mu_view);
    opt->host = ct__optim_zalloc(ctx, (size_t)CT_K_OPT_SCHED_LEN(np) * sizeof *opt->host);
    if (!opt->params || !opt->state || !opt->slot || !opt->step_view || !opt->mu_view ||
        !opt->host) {
        ct_optim_free(opt);
        return ct__set_error(ctx, CT_ERR_OOM, "optim_create: out of memory");
    }
    for (int i = 0; i < n_params; i++)
        opt->params[i] = ct_tensor_retain(params[i]);
    if ((st = ct__optim_make_sched(opt)) != CT_OK) {
        ct_optim_free(opt);
        return st;
    }
    for (int i = 0; i < n_params && opt->nslots > 0; i++)
        if ((st = ct__optim_make_state(opt, i)) != CT_OK) {
            ct_optim_free(opt);
            return st;
        }
    *out = opt;
    return CT_OK;
}

/* The structural flags of the options (what the kernel's loop shape depends on). */
unsigned ct__optim_flags(const ct_optim_options *o) {
    unsigned f = (o->maximize ? CT_K_OPT_MAXIMIZE : 0u) | (o->weight_decay != 0 ? CT_K_OPT_WD : 0u);
    if (o->kind == CT_OPTIM_SGD && o->momentum != 0) f |= CT_K_OPT_MOMENTUM;
    if (o->kind == CT_OPTIM_RMSPROP && o->momentum > 0) f |= CT_K_OPT_MOMENTUM;
    if (o->kind == CT_OPTIM_SGD && o->nesterov) f |= CT_K_OPT_NESTEROV;
    if ((o->kind == CT_OPTIM_ADAM || o->kind == CT_OPTIM_ADAMW) && o->amsgrad)
        f |= CT_K_OPT_AMSGRAD;
    if (o->kind == CT_OPTIM_RMSPROP && o->centered) f |= CT_K_OPT_CENTERED;
    if ((o->kind == CT_OPTIM_NADAM || o->kind == CT_OPTIM_RADAM) && o->decoupled_weight_decay)
        f |= CT_K_OPT_DECOUPLED;
    return f;
}

/* ct_optim_kind and the kernel's CT_K_OPT_* are the same numbers */
_Static_assert((int)CT_OPTIM_ADADELTA == (int)CT_K_OPT_ADADELTA &&
                   (int)CT_OPTIM_RPROP == (int)CT_K_OPT_RPROP &&
                   (int)CT_OPTIM_ASGD == (int)CT_K_OPT_ASGD &&
                   (int)CT_OPTIM_RMSPROP == (int)CT_K_OPT_RMSPROP &&
                   (int)CT_OPTIM_ADAGRAD == (int)CT_K_OPT_ADAGRAD &&
                   (int)CT_OPTIM_SGD == (int)CT_K_OPT_SGD,
               "optimizer kinds");
#define ct__optim_kkind(k) ((int)(k))

static void ct__optim_operand(ct_operand *op, ct_tensor *t) {
    op->data = t ? ct_tensor_data_ptr(t) : NULL;
    op->dtype = t ? ct_tensor_dtype(t) : CT_FLOAT32;
    op->ndim = 1;
    op->shape[0] = t ? ct_tensor_numel(t) : 0;
    op->strides[0] = 1;
    op->tensor = t;
}

static ct_status ct__optim_fused(ct_optim *opt, int i, ct_tensor *grad) {
    ct_ctx *ctx = opt->ctx;
    ct_tensor *g = NULL;
    ct_status st = ct_tensor_contiguous(ctx, grad, &g);
    if (st != CT_OK) return st;
    ct_op_desc d;
    int n_in = opt->found_inf ? 3 : opt->grad_scale ? 2 : 1;
    ct__desc_init(&d, CT_OP_OPTIM_STEP, 3, n_in);
    ct__optim_operand(&d.operands[0], opt->params[i]);
    ct__optim_operand(&d.operands[1], opt->state[i]);
    ct__optim_operand(&d.operands[2], opt->sched);
    ct__optim_operand(&d.operands[3], g);
    if (n_in >= 2) ct__optim_operand(&d.operands[4], opt->grad_scale);
    if (n_in >= 3) ct__optim_operand(&d.operands[5], opt->found_inf);
    d.compute_dtype = CT_FLOAT32;
    d.ints[0] = (int64_t)ct__optim_kkind(opt->o.kind) | (int64_t)ct__optim_flags(&opt->o) << 8;
    d.ints[1] = i;
    d.ints[2] = opt->n;
    opt->params[i]->storage->version++; /* an in-place write (autograd's saved-tensor check) */
    st = ct__submit(ctx, ct_tensor_device(opt->params[i]), &d);
    /* the kernel unscaled a copy: hand the unscaled grads back as for a contiguous grad */
    if (st == CT_OK && g != grad && opt->grad_scale) st = ct_tensor_copy_(ctx, grad, g);
    ct_tensor_release(g);
    return st;
}

/* FOREACH: the same step with public ops. Every intermediate is an f32 tensor; the scalars are
 * the f32 constants ct_k_optim_hp_make derives from the host copy of the schedule, as the fused
 * kernel does (so a loaded state's or a scheduler's hyper-parameters apply, never the creation
 * options'), and ops round an f32 value passed as a double to itself. */
#define CT__FE_MAX 24
typedef struct {
    ct_tensor *t[CT__FE_MAX];
    int n;
    ct_status st;
} ct__fe;
/* Keep r for release; return it (NULL after an error, which later calls then skip). */
static ct_tensor *ct__fe_keep(ct__fe *f, ct_status st, ct_tensor *r) {
    if (f->st != CT_OK) return NULL;
    f->st = st;
    if (st != CT_OK) return NULL;
    CT_ASSERT(f->n < CT__FE_MAX);
    f->t[f->n++] = r;
    return r;
}
/* the comma operators sequence the call before r is read */
#define FE(call) (f.st != CT_OK ? NULL : (r = NULL, cs = (call), ct__fe_keep(&f, cs, r)))
/* m = lerp(m, g, w = h.f[1]) as torch.lerp: w < 0.5 ? m + w*(g-m) : g - (1-w)*(g-m) */
#define FE_LERP(m, g)                                                                              \
    (D_ = FE(ct_sub(ctx, (g), (m), &r)),                                                           \
     (h.flags & CT_K_OPT_LERP_HI) ? FE(ct_add_scaled(ctx, (g), D_, -(1.0 - (double)h.f[1]), &r))   \
                                  : FE(ct_add_scaled(ctx, (m), D_, (double)h.f[1], &r)))
#define FE_COPY(dst, src)                                                                          \
    do {                                                                                           \
        if (f.st == CT_OK) f.st = ct_tensor_copy_(ctx, (dst), (src));                              \
    } while (0)

static ct_status ct__optim_foreach(ct_optim *opt, int i, ct_tensor *grad) {
    ct_ctx *ctx = opt->ctx;
    const ct_optim_options *o = &opt->o;
    const double step = opt->host[CT_K_OH_N + i] + 1.0;
    ct_k_optim_hp h;
    ct_k_optim_hp_make(ct__optim_kkind(o->kind), ct__optim_flags(o), opt->host,
                       opt->host + CT_K_OH_N + 2 * opt->n, step, opt->host[CT_K_OH_N + opt->n + i],
                       &h);
    ct__fe f = {.n = 0, .st = CT_OK};
    ct_status cs = CT_OK;
    ct_tensor *r = NULL, *D_ = NULL, *param = opt->params[i];
    ct_tensor *const *sl = opt->slot[i];
    bool f32 = ct_tensor_dtype(param) == CT_FLOAT32;
    ct_tensor *P = f32 ? param : FE(ct_cast(ctx, param, CT_FLOAT32, &r));
    ct_tensor *G =
        ct_tensor_dtype(grad) == CT_FLOAT32 ? grad : FE(ct_cast(ctx, grad, CT_FLOAT32, &r));
    if (opt->grad_scale) { /* unscale (f32 division) and hand the unscaled grads back */
        ct_tensor *S = FE(ct_tensor_view(ctx, opt->grad_scale, 0, NULL, &r));
        G = FE(ct_div(ctx, G, S, &r));
        FE_COPY(grad, G);
    }
    if (o->maximize) G = FE(ct_neg(ctx, G, &r));
    bool wd = (h.flags & CT_K_OPT_WD) != 0;
    switch (o->kind) {
    case CT_OPTIM_SGD:
        if (wd) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        if (h.flags & CT_K_OPT_MOMENTUM) {
            ct_tensor *B = G;
            if (!(h.flags & CT_K_OPT_FIRST)) {
                ct_tensor *T = FE(ct_mul_scalar(ctx, sl[0], h.f[1], &r));
                B = FE(ct_add_scaled(ctx, T, G, h.f[2], &r));
            }
            FE_COPY(sl[0], B);
            G = (h.flags & CT_K_OPT_NESTEROV) ? FE(ct_add_scaled(ctx, G, B, h.f[1], &r)) : B;
        }
        P = FE(ct_add_scaled(ctx, P, G, h.f[3], &r)); /* -lr */
        break;
    case CT_OPTIM_ADAM:
    case CT_OPTIM_ADAMW: {
        if (wd && o->kind == CT_OPTIM_ADAMW) P = FE(ct_mul_scalar(ctx, P, h.f[0], &r));
        if (wd && o->kind == CT_OPTIM_ADAM) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        ct_tensor *M = FE_LERP(sl[0], G);
        FE_COPY(sl[0], M);
        ct_tensor *T = FE(ct_mul_scalar(ctx, sl[1], h.f[2], &r));
        ct_tensor *V = FE(ct_addcmul(ctx, T, G, G, h.f[3], &r));
        FE_COPY(sl[1], V);
        if (o->amsgrad) {
            ct_tensor *C = FE(ct_gt(ctx, sl[2], V, &r));
            V = FE(ct_where(ctx, C, sl[2], V, &r));
            FE_COPY(sl[2], V);
        }
        ct_tensor *S = FE(ct_sqrt(ctx, V, &r));
        S = FE(ct_div_scalar(ctx, S, h.f[4], &r));
        S = FE(ct_add_scalar(ctx, S, h.f[5], &r));
        P = FE(ct_addcdiv(ctx, P, M, S, h.f[6], &r));
        break;
    }
    case CT_OPTIM_ADAGRAD: {
        if (wd) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        ct_tensor *S = FE(ct_addcmul(ctx, sl[0], G, G, 1.0, &r));
        FE_COPY(sl[0], S);
        ct_tensor *D = FE(ct_sqrt(ctx, S, &r));
        D = FE(ct_add_scalar(ctx, D, h.f[5], &r));
        P = FE(ct_addcdiv(ctx, P, G, D, h.f[6], &r));
        break;
    }
    case CT_OPTIM_RMSPROP: {
        if (wd) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        ct_tensor *T = FE(ct_mul_scalar(ctx, sl[0], h.f[1], &r));
        ct_tensor *S = FE(ct_addcmul(ctx, T, G, G, h.f[2], &r)); /* alpha sq + (1-alpha) g^2 */
        FE_COPY(sl[0], S);
        int k = 1;
        ct_tensor *B = (h.flags & CT_K_OPT_MOMENTUM) ? sl[k++] : NULL;
        ct_tensor *GA = (h.flags & CT_K_OPT_CENTERED) ? sl[k++] : NULL, *A;
        if (GA) {
            ct_tensor *U = FE(ct_mul_scalar(ctx, GA, h.f[1], &r));
            U = FE(ct_add_scaled(ctx, U, G, h.f[2], &r));
            FE_COPY(GA, U);
            A = FE(ct_addcmul(ctx, S, U, U, -1.0, &r));
            A = FE(ct_sqrt(ctx, A, &r));
        } else {
            A = FE(ct_sqrt(ctx, S, &r));
        }
        A = FE(ct_add_scalar(ctx, A, h.f[5], &r));
        if (B) {
            ct_tensor *U = FE(ct_mul_scalar(ctx, B, h.f[3], &r));
            U = FE(ct_addcdiv(ctx, U, G, A, 1.0, &r));
            FE_COPY(B, U);
            P = FE(ct_add_scaled(ctx, P, U, h.f[4], &r));
        } else {
            P = FE(ct_addcdiv(ctx, P, G, A, h.f[4], &r));
        }
        break;
    }
    case CT_OPTIM_ADAMAX: {
        if (wd) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        ct_tensor *M = FE_LERP(sl[0], G);
        FE_COPY(sl[0], M);
        ct_tensor *T = FE(ct_mul_scalar(ctx, sl[1], h.f[2], &r));
        ct_tensor *A = FE(ct_abs(ctx, G, &r));
        A = FE(ct_add_scalar(ctx, A, h.f[5], &r));
        ct_tensor *U = FE(ct_maximum(ctx, T, A, &r));
        FE_COPY(sl[1], U);
        P = FE(ct_addcdiv(ctx, P, M, U, h.f[6], &r));
        break;
    }
    case CT_OPTIM_NADAM:
    case CT_OPTIM_RADAM: {
        bool dec = (h.flags & CT_K_OPT_DECOUPLED) != 0;
        if (wd && dec) P = FE(ct_mul_scalar(ctx, P, h.f[0], &r));
        if (wd && !dec) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        ct_tensor *M = FE_LERP(sl[0], G);
        FE_COPY(sl[0], M);
        ct_tensor *T = FE(ct_mul_scalar(ctx, sl[1], h.f[2], &r));
        ct_tensor *V = FE(ct_addcmul(ctx, T, G, G, h.f[3], &r));
        FE_COPY(sl[1], V);
        if (o->kind == CT_OPTIM_NADAM) { /* d = sqrt(v / bc2) + eps; p += c1 g/d + c2 m/d */
            ct_tensor *Q = FE(ct_div_scalar(ctx, V, h.f[4], &r));
            Q = FE(ct_sqrt(ctx, Q, &r));
            Q = FE(ct_add_scalar(ctx, Q, h.f[5], &r));
            P = FE(ct_addcdiv(ctx, P, G, Q, h.f[6], &r));
            P = FE(ct_addcdiv(ctx, P, M, Q, h.f[7], &r));
            break;
        }
        /* RAdam: e = m / bc1 * lr (* (1 / (sqrt(v) + eps)) * sqrt(bc2) * rect); p = p - e */
        ct_tensor *E = FE(ct_div_scalar(ctx, M, h.f[4], &r));
        E = FE(ct_mul_scalar(ctx, E, h.f[6], &r));
        if (h.flags & CT_K_OPT_RECT) {
            ct_tensor *Q = FE(ct_sqrt(ctx, V, &r));
            Q = FE(ct_add_scalar(ctx, Q, h.f[5], &r));
            Q = FE(ct_reciprocal(ctx, Q, &r));
            Q = FE(ct_mul_scalar(ctx, Q, h.f[7], &r));
            E = FE(ct_mul(ctx, E, Q, &r));
            E = FE(ct_mul_scalar(ctx, E, h.f[8], &r));
        }
        P = FE(ct_sub(ctx, P, E, &r));
        break;
    }
    case CT_OPTIM_ADADELTA: {
        if (wd) G = FE(ct_add_scaled(ctx, G, P, h.f[0], &r));
        ct_tensor *T = FE(ct_mul_scalar(ctx, sl[0], h.f[1], &r));
        ct_tensor *S = FE(ct_addcmul(ctx, T, G, G, h.f[2], &r));
        FE_COPY(sl[0], S);
        ct_tensor *SD = FE(ct_add_scalar(ctx, S, h.f[5], &r));
        SD = FE(ct_sqrt(ctx, SD, &r));
        ct_tensor *D = FE(ct_add_scalar(ctx, sl[1], h.f[5], &r));
        D = FE(ct_sqrt(ctx, D, &r));
        D = FE(ct_div(ctx, D, SD, &r));
        D = FE(ct_mul(ctx, D, G, &r)); /* sqrt(acc + eps) / sqrt(sq + eps) * g */
        ct_tensor *T2 = FE(ct_mul_scalar(ctx, sl[1], h.f[1], &r));
        ct_tensor *A = FE(ct_addcmul(ctx, T2, D, D, h.f[2], &r));
        FE_COPY(sl[1], A);
        P = FE(ct_add_scaled(ctx, P, D, h.f[4], &r));
        break;
    }
    case CT_OPTIM_RPROP: { /* torch's single-tensor order, the masks as its indexed writes */
        ct_tensor *PREV = sl[0], *SS = sl[1];
        if (h.flags & CT_K_OPT_FIRST) { /* state: prev 0, step_size lr */
            if (f.st == CT_OK) f.st = ct_tensor_fill_(ctx, PREV, 0.0);
            if (f.st == CT_OK) f.st = ct_tensor_fill_(ctx, SS, h.f[4]);
        }
        ct_tensor *S = FE(ct_mul(ctx, G, PREV, &r));
        S = FE(ct_sign(ctx, S, &r));
        ct_tensor *M = FE(ct_gt_scalar(ctx, S, 0.0, &r));
        S = FE(ct_masked_fill(ctx, S, M, h.f[1], &r));
        M = FE(ct_lt_scalar(ctx, S, 0.0, &r));
        S = FE(ct_masked_fill(ctx, S, M, h.f[0], &r));
        M = FE(ct_eq_scalar(ctx, S, 0.0, &r));
        S = FE(ct_masked_fill(ctx, S, M, 1.0, &r));
        ct_tensor *T = FE(ct_mul(ctx, SS, S, &r));
        const double lo = h.f[2], hi = h.f[3];
        T = FE(ct_clamp(ctx, T, &lo, &hi, &r));
        FE_COPY(SS, T);
        M = FE(ct_eq_scalar(ctx, S, h.f[0], &r));
        ct_tensor *GZ = FE(ct_masked_fill(ctx, G, M, 0.0, &r));
        ct_tensor *SG = FE(ct_sign(ctx, GZ, &r));
        P = FE(ct_addcmul(ctx, P, SG, T, -1.0, &r));
        FE_COPY(PREV, GZ);
        break;
    }
    case CT_OPTIM_ASGD: {
        if (wd) G = FE(ct_add_scaled(ctx, G, P, h.f[3], &r));
        P = FE(ct_mul_scalar(ctx, P, h.f[0], &r));
        P = FE(ct_add_scaled(ctx, P, G, h.f[1], &r)); /* -eta */
        if (h.flags & CT_K_OPT_AVG) {                 /* ax += (p - ax) mu */
            ct_tensor *D = FE(ct_sub(ctx, P, sl[0], &r));
            D = FE(ct_mul_scalar(ctx, D, h.f[2], &r));
            D = FE(ct_add(ctx, sl[0], D, &r));
            FE_COPY(sl[0], D);
        } else {
            FE_COPY(sl[0], P);
        }
        break;
    }
    }
    FE_COPY(param, P);
    if (f.st == CT_OK) f.st = ct_add_scalar_(ctx, opt->step_view[i], 1.0);
    if (f.st == CT_OK && (o->kind == CT_OPTIM_NADAM || o->kind == CT_OPTIM_ASGD))
        f.st = ct_tensor_fill_(ctx, opt->mu_view[i], h.mu_product);
    if (f.st == CT_OK) opt->host[CT_K_OH_N + i] = step;
    if (f.st == CT_OK) opt->host[CT_K_OH_N + opt->n + i] = h.mu_product;
    for (int k = 0; k < f.n; k++)
        ct_tensor_release(f.t[k]);
    return f.st;
}

static ct_status ct__optim_step(ct_optim *opt, ct_tensor *const *grads);
/* The step runs with grad mode off (as torch's optimizers do under no_grad): parameters that
 * require grad are updated in place without being recorded. */
ct_status ct_optim_step(ct_optim *opt, ct_tensor *const *grads) {
    if (!opt) return CT_ERR_INVALID_ARG;
    bool prev_off = opt->ctx->grad_off;
    opt->ctx->grad_off = true;
    ct_status st = ct__optim_step(opt, grads);
    opt->ctx->grad_off = prev_off;
    return st;
}

static ct_status ct__optim_step(ct_optim *opt, ct_tensor *const *grads) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!grads) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_step: grads is NULL");
    /* check every gradient before touching any parameter */
    for (int i = 0; i < opt->n; i++) {
        const ct_tensor *g = grads[i], *p = opt->params[i];
        if (!g) continue;
        if (g->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim_step: grads[%d] belongs to another context", i);
        if (ct_tensor_dtype(g) != ct_tensor_dtype(p))
            return ct__set_error(
                ctx, CT_ERR_DTYPE, "optim_step: grads[%d] is %s, its parameter is %s", i,
                ct_dtype_name(ct_tensor_dtype(g)), ct_dtype_name(ct_tensor_dtype(p)));
        ct_device gd = ct_tensor_device(g), pd = ct_tensor_device(p);
        if (gd.type != pd.type || gd.index != pd.index)
            return ct__set_error(ctx, CT_ERR_DEVICE,
                                 "optim_step: grads[%d] is on device %d:%d, its parameter on %d:%d",
                                 i, gd.type, gd.index, pd.type, pd.index);
        bool same = ct_tensor_ndim(g) == ct_tensor_ndim(p);
        for (int d = 0; same && d < ct_tensor_ndim(p); d++)
            same = ct_tensor_shape(g)[d] == ct_tensor_shape(p)[d];
        if (!same) {
            char a[96], b[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "optim_step: grads[%d] is %s, its parameter is %s", i,
                                 ct__shape_str(a, sizeof a, ct_tensor_ndim(g), ct_tensor_shape(g)),
                                 ct__shape_str(b, sizeof b, ct_tensor_ndim(p), ct_tensor_shape(p)));
        }
    }
    if (opt->o.impl == CT_OPTIM_IMPL_FOREACH) {
        /* FOREACH computes its scalars on the host: read the schedule (a captured step keeps the
         * values of capture time) and found_inf (not capturable: it decides on the host). */
        bool capturing = ct__any_capture(ctx) != NULL;
        if (opt->found_inf) {
            if (capturing)
                return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                     "optim_step: a FOREACH step with found_inf reads it on the "
                                     "host and cannot be captured (use the FUSED implementation)");
            float fi = 0;
            ct_status st = ct_tensor_to_host(opt->found_inf, &fi, sizeof fi);
            if (st != CT_OK) return st;
            if (fi != 0) return CT_OK; /* skipped, as the fused kernel: no update, no count */
        }
        if (!capturing) {
            ct_status st = ct_tensor_to_host(opt->sched, opt->host,
                                             (size_t)CT_K_OPT_SCHED_LEN(opt->n) * sizeof(double));
            if (st != CT_OK) return st;
        } else if (ct_tensor_device(opt->sched).type == CT_DEVICE_CPU) {
            /* the hyper-parameters as they are now (an lr written eagerly since the last eager
             * step); the counts stay the host's, which earlier steps of this capture advanced */
            const double *d = ct_tensor_data_ptr(opt->sched);
            const int64_t x = CT_K_OH_N + 2 * (int64_t)opt->n;
            memcpy(opt->host, d, sizeof(double) * CT_K_OH_N);
            memcpy(opt->host + x, d + x, sizeof(double) * CT_K_OX_N);
        }
    }
    for (int i = 0; i < opt->n; i++) {
        if (!grads[i]) continue;
        ct_status st = opt->o.impl == CT_OPTIM_IMPL_FUSED ? ct__optim_fused(opt, i, grads[i])
                                                          : ct__optim_foreach(opt, i, grads[i]);
        if (st != CT_OK) return st;
    }
    return CT_OK;
}

ct_tensor *ct_optim_lr(ct_optim *opt) { return opt ? opt->lr : NULL; }

ct_status ct__optim_commit(ct_optim *opt, const double *sched, ct_tensor *const *src, int per,
                           int off) {
    ct_ctx *ctx = opt->ctx;
    const int64_t len = CT_K_OPT_SCHED_LEN(opt->n);
    ct_tensor *host = NULL;
    ct_status st = ct_tensor_from_host(ctx, sched, CT_FLOAT64, 1, &len, &host);
    if (st == CT_OK) st = ct_tensor_copy_(ctx, opt->sched, host);
    for (int i = 0; i < opt->n && st == CT_OK; i++)
        for (int s = 0; s < opt->nslots && st == CT_OK; s++) {
            ct_tensor *t = src[i * per + off + s];
            st = t ? ct_tensor_copy_(ctx, opt->slot[i][s], t)
                   : ct_tensor_fill_(
                         ctx, opt->slot[i][s],
                         opt->o.kind == CT_OPTIM_ADAGRAD ? opt->o.initial_accumulator_value : 0.0);
        }
    if (st == CT_OK) memcpy(opt->host, sched, (size_t)len * sizeof(double));
    ct_tensor_release(host);
    return st;
}

ct_status ct__optim_prefix(ct_ctx *ctx, const char *who, const char *prefix, char *out,
                           size_t cap) {
    out[0] = 0;
    if (!prefix || !*prefix) return CT_OK;
    const size_t pl = strlen(prefix);
    if (pl > 200 || cap < 202)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: prefix is longer than 200 bytes", who);
    snprintf(out, cap, "%s%s", prefix, prefix[pl - 1] == '.' ? "" : ".");
    return CT_OK;
}

ct_status ct__optim_hyper(ct_optim *opt, int idx, const double *set, double *get) {
    ct_ctx *ctx = opt->ctx;
    if (ct__any_capture(ctx)) /* a refusal before anything is recorded: the capture stays valid */
        return ct__set_error_keep_capture(
            ctx, CT_ERR_UNSUPPORTED,
            "lr_scheduler: a scheduler step reads and writes the optimizer's "
            "hyper-parameters on the host and cannot be captured (step it between "
            "replays: a captured FUSED step reads the new values)");
    ct_tensor *nar = NULL, *v = NULL;
    const int64_t pos = ct_k_optim_hpos(idx, opt->n);
    ct_status st = ct_tensor_narrow(ctx, opt->sched, 0, pos, 1, &nar);
    if (st == CT_OK) st = ct_tensor_view(ctx, nar, 0, NULL, &v);
    if (st == CT_OK && get) st = ct_tensor_to_host(v, get, sizeof *get);
    if (st == CT_OK && set) st = ct_tensor_fill_(ctx, v, *set);
    if (st == CT_OK && set) opt->host[pos] = *set;
    ct_tensor_release(v);
    ct_tensor_release(nar);
    return st;
}

ct_status ct_optim_set_grad_scaling(ct_optim *opt, ct_tensor *grad_scale, ct_tensor *found_inf) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    ct_tensor *t[2] = {grad_scale, found_inf};
    static const char *const name[2] = {"grad_scale", "found_inf"};
    ct_device pd = ct_tensor_device(opt->params[0]);
    for (int k = 0; k < 2; k++) {
        if (!t[k]) continue;
        if (t[k]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim_set_grad_scaling: %s belongs to another context", name[k]);
        if (ct_tensor_dtype(t[k]) != CT_FLOAT32 || ct_tensor_numel(t[k]) != 1)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "optim_set_grad_scaling: %s is %s with %lld elements; it must be "
                                 "one float32 value",
                                 name[k], ct_dtype_name(ct_tensor_dtype(t[k])),
                                 (long long)ct_tensor_numel(t[k]));
        ct_device d = ct_tensor_device(t[k]);
        if (d.type != pd.type || d.index != pd.index)
            return ct__set_error(ctx, CT_ERR_DEVICE,
                                 "optim_set_grad_scaling: %s is not on the parameters' device",
                                 name[k]);
    }
    ct_tensor *gs = NULL, *fi = NULL;
    ct_status st = CT_OK;
    if (grad_scale) st = ct_tensor_contiguous(ctx, grad_scale, &gs);
    if (st == CT_OK && found_inf) st = ct_tensor_contiguous(ctx, found_inf, &fi);
    if (st != CT_OK) {
        ct_tensor_release(gs);
        return st;
    }
    ct_tensor_release(opt->grad_scale);
    ct_tensor_release(opt->found_inf);
    opt->grad_scale = gs;
    opt->found_inf = fi;
    return CT_OK;
}

ct_status ct_optim_step_count(const ct_optim *opt, int i, int64_t *out) {
    if (!opt) return CT_ERR_INVALID_ARG;
    if (!out || i < 0 || i >= opt->n)
        return ct__set_error(opt->ctx, CT_ERR_INVALID_ARG,
                             "optim_step_count: %s (parameter %d of %d)",
                             !out ? "out is NULL" : "no such parameter", i, opt->n);
    double v = 0;
    ct_status st = ct_tensor_to_host(opt->step_view[i], &v, sizeof v);
    if (st == CT_OK) *out = (int64_t)v;
    return st;
}

ct_tensor *ct_optim_state(ct_optim *opt, int i, const char *name) {
    if (!opt || !name || i < 0 || i >= opt->n) return NULL;
    for (int s = 0; s < opt->nslots; s++)
        if (!strcmp(ct__optim_slot_name(opt, s), name)) return opt->slot[i][s];
    return NULL;
}

/* ---- state files (safetensors) ---- */

/* The name of the per-parameter scalar kept next to the step count: NAdam's "mu_product", ASGD's
 * "eta"; NULL for the other kinds. */
const char *ct__optim_mu_name(ct_optim_kind k) {
    return k == CT_OPTIM_NADAM ? "mu_product" : k == CT_OPTIM_ASGD ? "eta" : NULL;
}

/* torch's state names of slot s (in ct_k_optim_slots' order) */
const char *ct__optim_slot_name(const ct_optim *opt, int s) {
    static const char *const names[CT_K_OPT_KINDS][CT_OPT_MAX_SLOTS] = {
        {"momentum_buffer"},
        {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
        {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
        {"sum"},
        {"square_avg", "momentum_buffer", "grad_avg"},
        {"exp_avg", "exp_inf"},
        {"exp_avg", "exp_avg_sq"},
        {"exp_avg", "exp_avg_sq"},
        {"square_avg", "acc_delta"},
        {"prev", "step_size"},
        {"ax"}};
    if (opt->o.kind == CT_OPTIM_RMSPROP && s == 1 && !(opt->o.momentum > 0)) return "grad_avg";
    return names[opt->o.kind][s];
}
/* Saved as metadata; the last three came with RMSprop / Adadelta / NAdam and may be absent from
 * older files (the optimizer's values stay). */
#define CT__OPT_NHYPER (CT_K_OH_N + CT_K_OX_N) /* logical hyper-parameter indices */
static const char *const ct__optim_hyper_names[CT__OPT_NHYPER] = {"lr",
                                                                  "momentum",
                                                                  "dampening",
                                                                  "weight_decay",
                                                                  "beta1",
                                                                  "beta2",
                                                                  "eps",
                                                                  "lr_decay",
                                                                  "alpha",
                                                                  "rho",
                                                                  "momentum_decay",
                                                                  "etaminus",
                                                                  "etaplus",
                                                                  "step_size_min",
                                                                  "step_size_max",
                                                                  "lambd",
                                                                  "t0"};
enum { CT__OPT_HYPER_REQUIRED = CT_K_OH_ALPHA };
_Static_assert(CT__OPT_NHYPER == CT_K_OH_N + CT_K_OX_N, "hyper-parameter names");

ct_status ct_optim_save_state(const ct_optim *opt, const char *path) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_save_state: path is NULL");
    const bool mu = ct__optim_mu_name(opt->o.kind) != NULL;
    const int per = 1 + mu + opt->nslots, total = opt->n * per;
    const size_t slen = (size_t)CT_K_OPT_SCHED_LEN(opt->n);
    double *sched = ct__optim_zalloc(ctx, slen * sizeof(double));
    char(*names)[48] = ct__optim_zalloc(ctx, (size_t)total * sizeof *names);
    const char **np = ct__optim_zalloc(ctx, (size_t)total * sizeof *np);
    const ct_tensor **ts = ct__optim_zalloc(ctx, (size_t)total * sizeof *ts);
    ct_tensor **steps = ct__optim_zalloc(ctx, (size_t)(2 * opt->n) * sizeof *steps);
    ct_status st = CT_OK;
    if (!sched || !names || !np || !ts || !steps)
        st = ct__set_error(ctx, CT_ERR_OOM, "optim_save_state: out of memory");
    if (st == CT_OK) st = ct_tensor_to_host(opt->sched, sched, slen * sizeof(double));
    for (int i = 0; i < opt->n && st == CT_OK; i++) {
        st = ct_tensor_from_host(ctx, &sched[CT_K_OH_N + i], CT_FLOAT64, 0, NULL, &steps[i]);
        int k = i * per;
        snprintf(names[k], sizeof names[k], "state.%d.step", i);
        ts[k] = steps[i];
        if (mu && st == CT_OK) {
            st = ct_tensor_from_host(ctx, &sched[CT_K_OH_N + opt->n + i], CT_FLOAT64, 0, NULL,
                                     &steps[opt->n + i]);
            snprintf(names[k + 1], sizeof names[k + 1], "state.%d.%s", i,
                     ct__optim_mu_name(opt->o.kind));
            ts[k + 1] = steps[opt->n + i];
        }
        for (int s = 0; s < opt->nslots; s++) {
            snprintf(names[k + 1 + mu + s], sizeof names[k + 1 + mu + s], "state.%d.%s", i,
                     ct__optim_slot_name(opt, s));
            ts[k + 1 + mu + s] = opt->slot[i][s];
        }
    }
    if (st == CT_OK) {
        char vals[CT__OPT_NHYPER + 2][40];
        const char *meta[2 * (CT__OPT_NHYPER + 6) + 1];
        int m = 0;
        meta[m++] = "ctorch.optim";
        meta[m++] = ct__optim_names[opt->o.kind];
        snprintf(vals[0], sizeof vals[0], "%d", opt->n);
        meta[m++] = "n_params";
        meta[m++] = vals[0];
        snprintf(vals[1], sizeof vals[1], "%u", ct__optim_flags(&opt->o));
        meta[m++] = "flags";
        meta[m++] = vals[1];
        for (int h = 0; h < CT__OPT_NHYPER; h++) {
            snprintf(vals[2 + h], sizeof vals[2 + h], "%.17g", sched[ct_k_optim_hpos(h, opt->n)]);
            meta[m++] = ct__optim_hyper_names[h];
            meta[m++] = vals[2 + h];
        }
        meta[m] = NULL;
        for (int k = 0; k < total; k++)
            np[k] = names[k];
        st = ct_safetensors_save(ctx, path, total, np, ts, meta);
    }
    for (int i = 0; steps && i < 2 * opt->n; i++)
        ct_tensor_release(steps[i]);
    ct__free(ctx, steps);
    ct__free(ctx, ts);
    ct__free(ctx, np);
    ct__free(ctx, names);
    ct__free(ctx, sched);
    return st;
}

ct_status ct_optim_load_state(ct_optim *opt, const char *path) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_load_state: path is NULL");
    ct_safetensors *f = NULL;
    ct_status st = ct_safetensors_load(ctx, path, &f);
    if (st != CT_OK) return st;
    const char *kind = ct_safetensors_metadata(f, "ctorch.optim");
    const char *np = ct_safetensors_metadata(f, "n_params");
    const char *fl = ct_safetensors_metadata(f, "flags");
    char want_n[16], want_fl[16];
    snprintf(want_n, sizeof want_n, "%d", opt->n);
    snprintf(want_fl, sizeof want_fl, "%u", ct__optim_flags(&opt->o));
    const size_t slen = (size_t)CT_K_OPT_SCHED_LEN(opt->n);
    double *sched = ct__optim_zalloc(ctx, slen * sizeof(double));
    if (!sched)
        st = ct__set_error(ctx, CT_ERR_OOM, "optim_load_state: out of memory");
    else if (!kind || !np || !fl)
        st = ct__set_error(ctx, CT_ERR_FORMAT,
                           "optim_load_state: %s is not a ctorch optimizer state file (no %s "
                           "metadata)",
                           path,
                           !kind ? "ctorch.optim"
                           : !np ? "n_params"
                                 : "flags");
    else if (strcmp(kind, ct__optim_names[opt->o.kind]) != 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "optim_load_state: %s holds %s state, this optimizer is %s", path, kind,
                           ct__optim_names[opt->o.kind]);
    else if (strcmp(np, want_n) != 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "optim_load_state: %s holds state of %s parameters, this optimizer has "
                           "%d",
                           path, np, opt->n);
    else if (strcmp(fl, want_fl) != 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "optim_load_state: %s was saved with other structural options "
                           "(momentum, nesterov, amsgrad, centered, decoupled weight decay, weight "
                           "decay or maximize differ: flags "
                           "%s, this optimizer %s)",
                           path, fl, want_fl);
    if (st == CT_OK) { /* the current values of what the file may lack, and mu_product 1 */
        st = ct_tensor_to_host(opt->sched, sched, slen * sizeof(double));
        for (int i = 0; i < opt->n; i++)
            sched[CT_K_OH_N + opt->n + i] = 1.0;
    }
    for (int h = 0; h < CT__OPT_NHYPER && st == CT_OK; h++) {
        const char *v = ct_safetensors_metadata(f, ct__optim_hyper_names[h]);
        if (!v && h >= CT__OPT_HYPER_REQUIRED) continue;
        char *end = NULL;
        double d = v ? strtod(v, &end) : 0;
        /* the extras (Rprop's step sizes, ASGD's t0) may be infinite, as torch allows */
        if (!v || end == v || *end || (h < CT_K_OH_N ? !isfinite(d) : isnan(d)))
            st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_state: %s: hyper-parameter %s %s",
                               path, ct__optim_hyper_names[h], v ? "is not a number" : "missing");
        else
            sched[ct_k_optim_hpos(h, opt->n)] = d;
    }
    /* read and check every tensor before changing anything */
    const bool mu = ct__optim_mu_name(opt->o.kind) != NULL;
    const int per = 1 + mu + opt->nslots;
    ct_tensor **ts = NULL;
    if (st == CT_OK) {
        ts = ct__optim_zalloc(ctx, (size_t)(opt->n * per) * sizeof *ts);
        if (!ts) st = ct__set_error(ctx, CT_ERR_OOM, "optim_load_state: out of memory");
    }
    for (int i = 0; i < opt->n && st == CT_OK; i++)
        for (int s = -1 - mu; s < opt->nslots && st == CT_OK; s++) {
            /* s = -2: mu_product (NAdam) / eta (ASGD), -1: step, >= 0: the state slots */
            char name[48];
            snprintf(name, sizeof name, "state.%d.%s", i,
                     s == -2 ? ct__optim_mu_name(opt->o.kind)
                     : s < 0 ? "step"
                             : ct__optim_slot_name(opt, s));
            ct_tensor **t = &ts[i * per + 1 + mu + s];
            st = ct_safetensors_get(f, name, t);
            if (st == CT_ERR_INDEX)
                st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_state: %s lacks %s", path, name);
            if (st != CT_OK) break;
            const ct_tensor *ref = s < 0 ? NULL : opt->slot[i][s];
            bool ok = s < 0 ? ct_tensor_dtype(*t) == CT_FLOAT64 && ct_tensor_numel(*t) == 1
                            : ct_tensor_dtype(*t) == CT_FLOAT32 &&
                                  ct_tensor_ndim(*t) == ct_tensor_ndim(ref);
            for (int d = 0; ok && s >= 0 && d < ct_tensor_ndim(ref); d++)
                ok = ct_tensor_shape(*t)[d] == ct_tensor_shape(ref)[d];
            if (!ok) {
                char a[96];
                st = ct__set_error(
                    ctx, CT_ERR_SHAPE, "optim_load_state: %s is %s %s; parameter %d needs %s", name,
                    ct_dtype_name(ct_tensor_dtype(*t)),
                    ct__shape_str(a, sizeof a, ct_tensor_ndim(*t), ct_tensor_shape(*t)), i,
                    s < 0 ? "one float64 step count" : "float32 of its shape");
                break;
            }
            if (s == -2) {
                double v = 0;
                st = ct_tensor_to_host(*t, &v, sizeof v);
                if (st == CT_OK && opt->o.kind == CT_OPTIM_NADAM && !(v >= 0 && v <= 1))
                    st = ct__set_error(ctx, CT_ERR_FORMAT,
                                       "optim_load_state: %s is %g (a product of momentum "
                                       "coefficients lies in [0, 1])",
                                       name, v);
                if (st == CT_OK && opt->o.kind == CT_OPTIM_ASGD && !isfinite(v))
                    st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_state: %s is %g", name, v);
                sched[CT_K_OH_N + opt->n + i] = v;
            } else if (s < 0) {
                double v = 0;
                st = ct_tensor_to_host(*t, &v, sizeof v);
                if (st == CT_OK && !(v >= 0 && v <= 9007199254740992.0 && v == floor(v)))
                    st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_state: %s is %g", name, v);
                sched[CT_K_OH_N + i] = v;
            }
        }
    if (st == CT_OK) st = ct__optim_commit(opt, sched, ts, per, 1 + mu);
    for (int k = 0; ts && k < opt->n * per; k++)
        ct_tensor_release(ts[k]);
    ct__free(ctx, ts);
    ct__free(ctx, sched);
    ct_safetensors_free(f);
    return st;
}

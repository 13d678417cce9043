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
#include "ops/dispatch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CT_OPT_MAX_SLOTS 3

struct ct_optim {
    ct_ctx *ctx;
    ct_optim_options o;
    int n;
    int nslots; /* state slots per parameter: SGD momentum 1 (else 0), Adam 2 (+1 amsgrad), Adagrad
                   1 */
    ct_tensor **params;
    ct_tensor **state;                    /* per parameter: f32 [nslots * numel] or NULL */
    ct_tensor *(*slot)[CT_OPT_MAX_SLOTS]; /* views of state[i] shaped as params[i] */
    int64_t *steps;                       /* steps taken by each parameter */
};

static const char *const ct__optim_names[4] = {"sgd", "adam", "adamw", "adagrad"};

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
    switch (kind) {
    case CT_OPTIM_ADAMW: o.weight_decay = 1e-2; break;
    case CT_OPTIM_ADAGRAD:
        o.lr = 1e-2;
        o.eps = 1e-10;
        break;
    default: break;
    }
    return o;
}

/* torch.optim's checks, each naming the option and its value. */
static ct_status ct__optim_check(ct_ctx *ctx, const ct_optim_options *o) {
    if ((int)o->kind < CT_OPTIM_SGD || (int)o->kind > CT_OPTIM_ADAGRAD)
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
        CT__OPT_NONNEG(eps)
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
    }
    ct__free(ctx, opt->slot);
    ct__free(ctx, opt->state);
    ct__free(ctx, opt->params);
    ct__free(ctx, opt->steps);
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
    switch (o.kind) {
    case CT_OPTIM_SGD: opt->nslots = o.momentum != 0 ? 1 : 0; break;
    case CT_OPTIM_ADAM:
    case CT_OPTIM_ADAMW: opt->nslots = o.amsgrad ? 3 : 2; break;
    case CT_OPTIM_ADAGRAD: opt->nslots = 1; break;
    }
    size_t np = (size_t)n_params;
    opt->params = ct__optim_zalloc(ctx, np * sizeof *opt->params);
    opt->state = ct__optim_zalloc(ctx, np * sizeof *opt->state);
    opt->slot = ct__optim_zalloc(ctx, np * sizeof *opt->slot);
    opt->steps = ct__optim_zalloc(ctx, np * sizeof *opt->steps);
    if (!opt->params || !opt->state || !opt->slot || !opt->steps) {
        ct_optim_free(opt);
        return ct__set_error(ctx, CT_ERR_OOM, "optim_create: out of memory");
    }
    for (int i = 0; i < n_params; i++)
        opt->params[i] = ct_tensor_retain(params[i]);
    for (int i = 0; i < n_params && opt->nslots > 0; i++)
        if ((st = ct__optim_make_state(opt, i)) != CT_OK) {
            ct_optim_free(opt);
            return st;
        }
    *out = opt;
    return CT_OK;
}

/* The f32 constants of parameter i's next step (step = steps[i] + 1). */
static ct_k_optim_hp ct__optim_hp(const ct_optim *opt, int i) {
    const ct_optim_options *o = &opt->o;
    ct_k_optim_hp h;
    memset(&h, 0, sizeof h);
    double step = (double)(opt->steps[i] + 1);
    h.flags = (o->maximize ? CT_K_OPT_MAXIMIZE : 0u) | (o->weight_decay != 0 ? CT_K_OPT_WD : 0u);
    switch (o->kind) {
    case CT_OPTIM_SGD:
        h.kind = CT_K_OPT_SGD;
        if (o->momentum != 0) h.flags |= CT_K_OPT_MOMENTUM;
        if (opt->steps[i] == 0) h.flags |= CT_K_OPT_FIRST;
        if (o->nesterov) h.flags |= CT_K_OPT_NESTEROV;
        h.f[0] = (float)o->weight_decay;
        h.f[1] = (float)o->momentum;
        h.f[2] = (float)(1.0 - o->dampening);
        h.f[3] = (float)-o->lr;
        break;
    case CT_OPTIM_ADAM:
    case CT_OPTIM_ADAMW: {
        h.kind = o->kind == CT_OPTIM_ADAM ? CT_K_OPT_ADAM : CT_K_OPT_ADAMW;
        if (o->amsgrad) h.flags |= CT_K_OPT_AMSGRAD;
        double bc1 = 1.0 - pow(o->beta1, step), bc2 = 1.0 - pow(o->beta2, step);
        h.f[0] =
            (float)(o->kind == CT_OPTIM_ADAM ? o->weight_decay : 1.0 - o->lr * o->weight_decay);
        h.f[1] = (float)(1.0 - o->beta1);
        if (h.f[1] >= 0.5f) h.flags |= CT_K_OPT_LERP_HI;
        h.f[2] = (float)o->beta2;
        h.f[3] = (float)(1.0 - o->beta2);
        h.f[4] = (float)sqrt(bc2);
        h.f[5] = (float)o->eps;
        h.f[6] = (float)-(o->lr / bc1);
        break;
    }
    case CT_OPTIM_ADAGRAD:
        h.kind = CT_K_OPT_ADAGRAD;
        h.f[0] = (float)o->weight_decay;
        h.f[5] = (float)o->eps;
        h.f[6] = (float)-(o->lr / (1.0 + (step - 1.0) * o->lr_decay));
        break;
    }
    return h;
}

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
    ct__desc_init(&d, CT_OP_OPTIM_STEP, 2, 1);
    ct__optim_operand(&d.operands[0], opt->params[i]);
    ct__optim_operand(&d.operands[1], opt->state[i]);
    ct__optim_operand(&d.operands[2], g);
    d.compute_dtype = CT_FLOAT32;
    ct_k_optim_hp h = ct__optim_hp(opt, i);
    ct_k_optim_pack(&d, &h);
    opt->params[i]->storage->version++; /* an in-place write (autograd's saved-tensor check) */
    st = ct__submit(ctx, ct_tensor_device(opt->params[i]), &d);
    ct_tensor_release(g);
    return st;
}

/* FOREACH: the same step with public ops. Every intermediate is an f32 tensor; scalars go in as
 * the doubles whose f32 rounding the fused kernel uses (ops round their scalars to f32). */
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
#define FE_COPY(dst, src)                                                                          \
    do {                                                                                           \
        if (f.st == CT_OK) f.st = ct_tensor_copy_(ctx, (dst), (src));                              \
    } while (0)

static ct_status ct__optim_foreach(ct_optim *opt, int i, ct_tensor *grad) {
    ct_ctx *ctx = opt->ctx;
    const ct_optim_options *o = &opt->o;
    ct_k_optim_hp h = ct__optim_hp(opt, i);
    ct__fe f = {.n = 0, .st = CT_OK};
    ct_status cs = CT_OK;
    ct_tensor *r = NULL, *param = opt->params[i];
    ct_tensor *const *sl = opt->slot[i];
    bool f32 = ct_tensor_dtype(param) == CT_FLOAT32;
    ct_tensor *P = f32 ? param : FE(ct_cast(ctx, param, CT_FLOAT32, &r));
    ct_tensor *G =
        ct_tensor_dtype(grad) == CT_FLOAT32 ? grad : FE(ct_cast(ctx, grad, CT_FLOAT32, &r));
    if (o->maximize) G = FE(ct_neg(ctx, G, &r));
    bool wd = o->weight_decay != 0;
    switch (o->kind) {
    case CT_OPTIM_SGD:
        if (wd) G = FE(ct_add_scaled(ctx, G, P, o->weight_decay, &r));
        if (o->momentum != 0) {
            ct_tensor *B = G;
            if (!(h.flags & CT_K_OPT_FIRST)) {
                ct_tensor *T = FE(ct_mul_scalar(ctx, sl[0], o->momentum, &r));
                B = FE(ct_add_scaled(ctx, T, G, 1.0 - o->dampening, &r));
            }
            FE_COPY(sl[0], B);
            G = o->nesterov ? FE(ct_add_scaled(ctx, G, B, o->momentum, &r)) : B;
        }
        P = FE(ct_add_scaled(ctx, P, G, -o->lr, &r));
        break;
    case CT_OPTIM_ADAM:
    case CT_OPTIM_ADAMW: {
        if (wd && o->kind == CT_OPTIM_ADAMW) P = FE(ct_mul_scalar(ctx, P, h.f[0], &r));
        if (wd && o->kind == CT_OPTIM_ADAM) G = FE(ct_add_scaled(ctx, G, P, o->weight_decay, &r));
        /* m = lerp(m, g, w) as torch.lerp: w < 0.5 ? m + w*(g-m) : g - (1-w)*(g-m) */
        double w = h.f[1];
        ct_tensor *D = FE(ct_sub(ctx, G, sl[0], &r));
        ct_tensor *M = (h.flags & CT_K_OPT_LERP_HI) ? FE(ct_add_scaled(ctx, G, D, -(1.0 - w), &r))
                                                    : FE(ct_add_scaled(ctx, sl[0], D, w, &r));
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
        if (wd) G = FE(ct_add_scaled(ctx, G, P, o->weight_decay, &r));
        ct_tensor *S = FE(ct_addcmul(ctx, sl[0], G, G, 1.0, &r));
        FE_COPY(sl[0], S);
        ct_tensor *D = FE(ct_sqrt(ctx, S, &r));
        D = FE(ct_add_scalar(ctx, D, h.f[5], &r));
        P = FE(ct_addcdiv(ctx, P, G, D, h.f[6], &r));
        break;
    }
    }
    FE_COPY(param, P);
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
    for (int i = 0; i < opt->n; i++) {
        if (!grads[i]) continue;
        ct_status st = opt->o.impl == CT_OPTIM_IMPL_FUSED ? ct__optim_fused(opt, i, grads[i])
                                                          : ct__optim_foreach(opt, i, grads[i]);
        if (st != CT_OK) return st;
        opt->steps[i]++;
    }
    return CT_OK;
}

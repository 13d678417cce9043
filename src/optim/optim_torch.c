/* Optimizer state from PyTorch (include/ctorch/optim.h, ct_optim_load_torch_state): the entries
 * of torch.optim's Optimizer.state_dict() as a checkpoint read by ct_torch_load names them
 * ("<prefix>.state.<id>.<buffer>", "<prefix>.param_groups.0.<hyper-parameter>"), loaded as
 * Optimizer.load_state_dict does: hyper-parameters from the file, buffers cast to the state's
 * float32, a parameter without state starting afresh. Everything is read and checked before
 * anything changes. */
#include "backends/cpu/kernels/optim_kernels.h"
#include "core/internal.h"
#include "ctorch/archive.h"
#include "ctorch/autograd.h"
#include "dispatch/dispatch.h"
#include "ctorch/ops.h"
#include "optim/optim_impl.h"
#include "tensor/tensor_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const ct_archive *a;
    const char *prefix; /* "" or "name." */
    int group;          /* the parameter group loaded */
    char buf[512];
} ct__tl;

/* "<prefix><fmt...>" in l->buf */
static const char *ct__tl_name(ct__tl *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *ct__tl_name(ct__tl *l, const char *fmt, ...) {
    size_t n = (size_t)snprintf(l->buf, sizeof l->buf, "%s", l->prefix);
    va_list ap;
    va_start(ap, fmt);
    if (n < sizeof l->buf) vsnprintf(l->buf + n, sizeof l->buf - n, fmt, ap);
    va_end(ap);
    return l->buf;
}

/* The entry's kind, or -1 when absent. */
static int ct__tl_kind(const ct__tl *l, const char *name) {
    int i = ct_archive_find(l->a, name);
    return i < 0 ? -1 : ct_archive_kind(l->a, i);
}

/* torch's param_group keys of each kind (what makes a state dict this kind's), and the
 * hyper-parameters read from the group into the schedule. */
typedef struct {
    const char *key;
    int idx; /* a logical hyper-parameter index (ct_k_optim_hpos), or -1: a structural flag */
} ct__tl_hyper;

static int ct__tl_hypers(ct_optim_kind k, ct__tl_hyper *h) {
    int n = 0;
#define H(key, idx) h[n++] = (ct__tl_hyper){key, idx}
    H("lr", CT_K_OH_LR);
    if (k != CT_OPTIM_RPROP) H("weight_decay", CT_K_OH_WD); /* Rprop has none */
    switch (k) {
    case CT_OPTIM_SGD:
        H("momentum", CT_K_OH_MOMENTUM);
        H("dampening", CT_K_OH_DAMPENING);
        break;
    case CT_OPTIM_ADAGRAD:
        H("eps", CT_K_OH_EPS);
        H("lr_decay", CT_K_OH_LR_DECAY);
        break;
    case CT_OPTIM_RMSPROP:
        H("eps", CT_K_OH_EPS);
        H("momentum", CT_K_OH_MOMENTUM);
        H("alpha", CT_K_OH_ALPHA);
        break;
    case CT_OPTIM_ADADELTA:
        H("eps", CT_K_OH_EPS);
        H("rho", CT_K_OH_RHO);
        break;
    case CT_OPTIM_RPROP:
        H("etas.0", CT_K_OH_N + CT_K_OX_ETAMINUS);
        H("etas.1", CT_K_OH_N + CT_K_OX_ETAPLUS);
        H("step_sizes.0", CT_K_OH_N + CT_K_OX_STEP_MIN);
        H("step_sizes.1", CT_K_OH_N + CT_K_OX_STEP_MAX);
        break;
    case CT_OPTIM_ASGD:
        H("lambd", CT_K_OH_N + CT_K_OX_LAMBD);
        H("alpha", CT_K_OH_ALPHA);
        H("t0", CT_K_OH_N + CT_K_OX_T0);
        break;
    default: /* the Adam family */
        H("eps", CT_K_OH_EPS);
        H("betas.0", CT_K_OH_BETA1);
        H("betas.1", CT_K_OH_BETA2);
        if (k == CT_OPTIM_NADAM) H("momentum_decay", CT_K_OH_MOMENTUM_DECAY);
        break;
    }
#undef H
    return n;
}

/* A bool entry of the group; absent (older torch) reads as false. */
static ct_status ct__tl_bool(ct__tl *l, ct_ctx *ctx, const char *key, bool *out) {
    const char *name = ct__tl_name(l, "param_groups.%d.%s", l->group, key);
    int kind = ct__tl_kind(l, name);
    *out = false;
    if (kind < 0) return CT_OK;
    int64_t v = 0;
    if (kind != CT_ENTRY_BOOL || ct_archive_get_int(l->a, name, &v) != CT_OK)
        return ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is not a bool", name);
    *out = v != 0;
    return CT_OK;
}

/* A one-element tensor (torch >= 1.12 keeps step counts so) or a number entry, as a double. */
static ct_status ct__tl_number(const ct__tl *l, ct_ctx *ctx, const char *name, int kind,
                               double *out) {
    if (kind != CT_ENTRY_TENSOR) {
        if ((kind != CT_ENTRY_INT && kind != CT_ENTRY_FLOAT) ||
            ct_archive_get_float(l->a, name, out) != CT_OK)
            return ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is not a number",
                                 name);
        return CT_OK;
    }
    ct_tensor *t = NULL, *c = NULL;
    ct_status st = ct_archive_get(l->a, name, &t);
    if (st == CT_OK && ct_tensor_numel(t) != 1)
        st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s holds %lld values", name,
                           (long long)ct_tensor_numel(t));
    if (st == CT_OK) st = ct_cast(ctx, t, CT_FLOAT64, &c);
    if (st == CT_OK) st = ct_tensor_to_host(c, out, sizeof *out);
    ct_tensor_release(t);
    ct_tensor_release(c);
    return st;
}

static ct_status ct__optim_load_torch(ct_optim *opt, const ct_archive *a, const char *prefix,
                                      int group, bool one_group);

ct_status ct_optim_load_torch_state(ct_optim *opt, const ct_archive *a, const char *prefix) {
    return ct__optim_load_torch(opt, a, prefix, 0, true);
}
ct_status ct_optim_load_torch_state_group(ct_optim *opt, const ct_archive *a, const char *prefix,
                                          int group) {
    return ct__optim_load_torch(opt, a, prefix, group, false);
}

static ct_status ct__optim_load_torch(ct_optim *opt, const ct_archive *a, const char *prefix,
                                      int group, bool one_group) {
    if (!opt) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = opt->ctx;
    ct__clear_error(ctx);
    if (!a)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_load_torch_state: archive is NULL");
    if (ct__any_capture(ctx))
        return ct__set_error_keep_capture(ctx, CT_ERR_UNSUPPORTED,
                                          "optim_load_torch_state: a host upload, refused while "
                                          "capturing");
    if (group < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "optim_load_torch_state: group %d < 0",
                             group);
    ct__tl l = {.a = a, .prefix = "", .group = group};
    char pre[256];
    ct_status pst = ct__optim_prefix(ctx, "optim_load_torch_state", prefix, pre, sizeof pre);
    if (pst != CT_OK) return pst;
    l.prefix = pre;
    const char *kname = ct__optim_kind_name(opt->o.kind);
    /* the parameter group (one, or the one asked for) holding opt->n parameters */
    if (ct__tl_kind(&l, ct__tl_name(&l, "param_groups.0.lr")) < 0)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "optim_load_torch_state: no %sparam_groups.0.lr: not an optimizer "
                             "state_dict%s",
                             l.prefix, prefix && *prefix ? " under this prefix" : "");
    if (ct__tl_kind(&l, ct__tl_name(&l, "param_groups.%d.lr", group)) < 0)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "optim_load_torch_state: the state dict has no parameter group %d",
                             group);
    if (one_group && ct__tl_kind(&l, ct__tl_name(&l, "param_groups.1.lr")) >= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "optim_load_torch_state: loaded state dict has a different number of "
                             "parameter groups (more than 1; a ctorch optimizer has one: load "
                             "each into its own optimizer with ct_optim_load_torch_state_group)");
    int np = 0;
    while (np <= opt->n &&
           ct__tl_kind(&l, ct__tl_name(&l, "param_groups.%d.params.%d", group, np)) >= 0)
        np++;
    if (np != opt->n)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "optim_load_torch_state: loaded state dict contains a parameter group "
                             "that doesn't match the size of optimizer's group (%s%d parameters, "
                             "this optimizer %d)",
                             np > opt->n ? "more than " : "", np > opt->n ? opt->n : np, opt->n);
    /* hyper-parameters and structural options */
    const size_t slen = (size_t)CT_K_OPT_SCHED_LEN(opt->n);
    double *sched = ct__alloc(ctx, slen * sizeof(double), 16);
    ct_tensor **ts = ct__alloc(ctx, sizeof *ts * (size_t)(opt->n * CT_OPT_MAX_SLOTS + 1), 16);
    if (!sched || !ts) {
        ct__free(ctx, sched);
        ct__free(ctx, ts);
        return ct__set_error(ctx, CT_ERR_OOM, "optim_load_torch_state: out of memory");
    }
    memset(ts, 0, sizeof *ts * (size_t)(opt->n * CT_OPT_MAX_SLOTS + 1));
    ct_status st = ct_tensor_to_host(opt->sched, sched, slen * sizeof(double));
    ct__tl_hyper hy[12];
    const int nh = ct__tl_hypers(opt->o.kind, hy);
    for (int i = 0; i < nh && st == CT_OK; i++) {
        const char *name = ct__tl_name(&l, "param_groups.%d.%s", group, hy[i].key);
        int kind = ct__tl_kind(&l, name);
        double v = 0;
        if (kind < 0)
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "optim_load_torch_state: %s lacks '%s': not the state of torch's "
                               "%s",
                               ct__tl_name(&l, "param_groups.%d", group), hy[i].key, kname);
        else if ((kind != CT_ENTRY_FLOAT && kind != CT_ENTRY_INT && kind != CT_ENTRY_BOOL) ||
                 ct_archive_get_float(a, name, &v) != CT_OK ||
                 (hy[i].idx < CT_K_OH_N ? !isfinite(v) : isnan(v))) /* extras may be inf */
            st = ct__set_error(ctx, CT_ERR_FORMAT,
                               "optim_load_torch_state: %s is not a finite number", name);
        else
            sched[ct_k_optim_hpos(hy[i].idx, opt->n)] = v;
    }
    /* structural options: what the state's layout depends on must equal opt's */
    bool nesterov = false, amsgrad = false, maximize = false, centered = false, dec = false;
    if (st == CT_OK) st = ct__tl_bool(&l, ctx, "nesterov", &nesterov);
    if (st == CT_OK) st = ct__tl_bool(&l, ctx, "amsgrad", &amsgrad);
    if (st == CT_OK) st = ct__tl_bool(&l, ctx, "maximize", &maximize);
    if (st == CT_OK) st = ct__tl_bool(&l, ctx, "centered", &centered);
    if (st == CT_OK) st = ct__tl_bool(&l, ctx, "decoupled_weight_decay", &dec);
    if (st == CT_OK) {
        ct_optim_options f = opt->o;
        f.momentum = sched[CT_K_OH_MOMENTUM];
        f.weight_decay = sched[CT_K_OH_WD];
        f.nesterov = nesterov;
        f.amsgrad = amsgrad;
        f.maximize = maximize;
        f.centered = centered;
        f.decoupled_weight_decay = dec;
        unsigned want = ct__optim_flags(&opt->o), got = ct__optim_flags(&f);
        if (want != got)
            st = ct__set_error(
                ctx, CT_ERR_INVALID_ARG,
                "optim_load_torch_state: the file's %s was saved with other structural options "
                "(%s%s%s%s%s%s%s): create the optimizer with the file's values",
                kname, ((want ^ got) & CT_K_OPT_MOMENTUM) ? "momentum " : "",
                ((want ^ got) & CT_K_OPT_WD) ? "weight_decay " : "",
                ((want ^ got) & CT_K_OPT_NESTEROV) ? "nesterov " : "",
                ((want ^ got) & CT_K_OPT_AMSGRAD) ? "amsgrad " : "",
                ((want ^ got) & CT_K_OPT_MAXIMIZE) ? "maximize " : "",
                ((want ^ got) & CT_K_OPT_CENTERED) ? "centered " : "",
                ((want ^ got) & CT_K_OPT_DECOUPLED) ? "decoupled_weight_decay " : "");
    }
    /* per parameter: torch's state id from the group's params, then its buffers */
    for (int i = 0; i < opt->n && st == CT_OK; i++) {
        int64_t id = 0;
        const char *pname = ct__tl_name(&l, "param_groups.%d.params.%d", group, i);
        if (ct_archive_get_int(a, pname, &id) != CT_OK) {
            st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is not an int",
                               pname);
            break;
        }
        double step = 0, mu = 1.0;
        bool any = false;
        /* torch maps saved ids to parameters with a dict: a repeated id's state goes to the last
         * parameter holding it, the earlier ones start afresh */
        bool later = false;
        for (int j = i + 1; j < opt->n && !later; j++) {
            int64_t idj = 0;
            later = ct_archive_get_int(a, ct__tl_name(&l, "param_groups.%d.params.%d", group, j),
                                       &idj) == CT_OK &&
                    idj == id;
        }
        if (later) id = INT64_MIN; /* no state has this id */
        for (int s = 0; s < opt->nslots && st == CT_OK; s++) {
            char sname[48];
            snprintf(sname, sizeof sname, "%s", ct__optim_slot_name(opt, s));
            const char *name = ct__tl_name(&l, "state.%lld.%s", (long long)id, sname);
            int kind = ct__tl_kind(&l, name);
            if (kind < 0 || kind == CT_ENTRY_NONE) continue; /* SGD's None momentum_buffer */
            ct_tensor *t = NULL, *c = NULL;
            if (kind == CT_ENTRY_TENSOR) {
                st = ct_archive_get(a, name, &t);
                if (st != CT_OK) break; /* its status and message (out of memory, ...) */
                if (ct_dtype_is_complex(ct_tensor_dtype(t))) {
                    st = ct__set_error(ctx, CT_ERR_DTYPE,
                                       "optim_load_torch_state: %s is %s; the state is real", name,
                                       ct_dtype_name(ct_tensor_dtype(t)));
                    ct_tensor_release(t);
                    break;
                }
            }
            const ct_tensor *ref = opt->slot[i][s];
            /* any real dtype is cast to the float32 state (torch casts to the parameter's) */
            bool ok = t && ct_tensor_ndim(t) == ct_tensor_ndim(ref);
            for (int d = 0; ok && d < ct_tensor_ndim(ref); d++)
                ok = ct_tensor_shape(t)[d] == ct_tensor_shape(ref)[d];
            if (!ok) {
                char sh[96], want[96];
                if (t)
                    ct__shape_str(sh, sizeof sh, ct_tensor_ndim(t), ct_tensor_shape(t));
                else
                    snprintf(sh, sizeof sh, "not a tensor");
                ct__shape_str(want, sizeof want, ct_tensor_ndim(ref), ct_tensor_shape(ref));
                bool was_tensor = t != NULL;
                ct_tensor_release(t);
                st = ct__set_error(ctx, was_tensor ? CT_ERR_SHAPE : CT_ERR_FORMAT,
                                   "optim_load_torch_state: %s is %s; parameter %d needs a "
                                   "floating tensor of shape %s",
                                   name, sh, i, want);
                break;
            }
            bool prev = ct_set_grad_enabled(ctx, false);
            st = ct_cast(ctx, t, CT_FLOAT32, &c);
            ct_set_grad_enabled(ctx, prev);
            ct_tensor_release(t);
            ts[i * CT_OPT_MAX_SLOTS + s] = c;
            any = true;
        }
        /* step: a 0-d tensor (torch >= 1.12) or a number; SGD keeps none (its momentum buffer
         * existing means the first step is done) */
        const char *sn = ct__tl_name(&l, "state.%lld.step", (long long)id);
        int sk = ct__tl_kind(&l, sn);
        if (st == CT_OK && sk >= 0) {
            st = ct__tl_number(&l, ctx, sn, sk, &step);
            if (st == CT_OK && !(step >= 0 && step <= 9007199254740992.0 && step == floor(step)))
                st = ct__set_error(ctx, CT_ERR_FORMAT,
                                   "optim_load_torch_state: %s is %g, not a step count", sn, step);
            any = true;
        } else if (st == CT_OK && opt->o.kind == CT_OPTIM_SGD && any) {
            step = 1;                    /* past the first step: the buffer is used as is */
        } else if (st == CT_OK && any) { /* buffers without a step: torch's KeyError */
            st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is missing", sn);
        }
        const char *mname = ct__optim_mu_name(opt->o.kind); /* NAdam's mu_product, ASGD's eta */
        if (st == CT_OK && mname) {
            const char *mn = ct__tl_name(&l, "state.%lld.%s", (long long)id, mname);
            const int mk = ct__tl_kind(&l, mn);
            if (mk >= 0) {
                st = ct__tl_number(&l, ctx, mn, mk, &mu);
                const bool nadam = opt->o.kind == CT_OPTIM_NADAM;
                if (st == CT_OK && (nadam ? !(mu >= 0 && mu <= 1) : !isfinite(mu)))
                    st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is %g", mn,
                                       mu);
            } else if (any) {
                st = ct__set_error(ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is missing", mn);
            }
        }
        /* a buffer torch would have made by now must be there (a partial state is malformed) */
        for (int s = 0; s < opt->nslots && st == CT_OK && any; s++)
            if (!ts[i * CT_OPT_MAX_SLOTS + s] && !(opt->o.kind == CT_OPTIM_SGD && step == 0))
                st = ct__set_error(
                    ctx, CT_ERR_FORMAT, "optim_load_torch_state: %s is missing",
                    ct__tl_name(&l, "state.%lld.%s", (long long)id, ct__optim_slot_name(opt, s)));
        sched[CT_K_OH_N + i] = step;
        sched[CT_K_OH_N + opt->n + i] = mu;
    }
    double initial_lr = NAN;
    if (st == CT_OK) {
        const char *in = ct__tl_name(&l, "param_groups.%d.initial_lr", group);
        if (ct__tl_kind(&l, in) >= 0 && ct_archive_get_float(a, in, &initial_lr) != CT_OK)
            initial_lr = NAN;
    }
    /* apply: the schedule, then every slot (a parameter without state restarts from the
     * optimizer's initial buffers) */
    if (st == CT_OK) st = ct__optim_commit(opt, sched, ts, CT_OPT_MAX_SLOTS, 0);
    if (st == CT_OK && !isnan(initial_lr)) opt->initial_lr = initial_lr;
    for (int k = 0; k < opt->n * CT_OPT_MAX_SLOTS + 1; k++)
        ct_tensor_release(ts[k]);
    ct__free(ctx, ts);
    ct__free(ctx, sched);
    return st;
}

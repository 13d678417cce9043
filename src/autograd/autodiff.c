/* torch.autograd's user-level tools over the engine: autograd.grad with options, custom
 * differentiable functions (torch.autograd.Function), the functional API (vjp, jvp, jacobian,
 * hessian, vhp, hvp: torch.autograd.functional, reverse mode) and gradcheck / gradgradcheck. */
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CT__AD_MAX_IN 64 /* inputs of the functional API (the engine's limit) */

ct_status ct_autograd_grad_ex(ct_ctx *ctx, int n_outputs, const ct_tensor *const *outputs,
                              const ct_tensor *const *grad_outputs, int n_inputs,
                              const ct_tensor *const *inputs, const ct_grad_options *opts,
                              ct_tensor **grads) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_grad_options o = {sizeof o, false, false, false};
    if (opts) {
        if (opts->size < sizeof o)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "autograd_grad_ex: options.size %zu is smaller than "
                                 "sizeof(ct_grad_options) %zu",
                                 opts->size, sizeof o);
        o = *opts;
    }
    if (!outputs || !inputs || !grads || n_inputs < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "autograd_grad_ex: outputs, inputs and grads must be given "
                             "(n_inputs %d)",
                             n_inputs);
    for (int i = 0; i < n_inputs && i < CT__AD_MAX_IN; i++)
        grads[i] = NULL;
    return ct__ag_run_backward(ctx, "autograd_grad_ex", n_outputs, outputs, grad_outputs, n_inputs,
                               inputs, o.retain_graph || o.create_graph, o.create_graph,
                               o.allow_unused, grads);
}

/* ---- custom functions ---- */

typedef struct {
    ct_autograd_function fn;
    void *user;
    int n_in, n_out;
    ct__ag_tmeta in_meta[CT__AG_MAX_IN];
    char name[64];
} ct__ad_userfn;

static void ct__ad_userfn_free(void *p) {
    ct__ad_userfn *w = p;
    if (!w) return;
    if (w->fn.free_user) w->fn.free_user(w->user);
    free(w);
}

/* torch's is_expandable_to(input shape, grad shape): the gradient may carry broadcast dims, which
 * the engine sums away. */
static bool ct__ad_expandable(const ct__ag_tmeta *m, const ct_tensor *g) {
    if (m->ndim > g->ndim) return false;
    for (int i = 1; i <= m->ndim; i++) {
        const int64_t a = m->shape[m->ndim - i], b = g->shape[g->ndim - i];
        if (a != b && a != 1) return false;
    }
    return true;
}

static ct_status ct__ad_userfn_run(ct_ctx *ctx, void *user, const ct_tensor *const *out,
                                   ct_tensor *const *gout, const bool *need, ct_tensor **gin) {
    ct__ad_userfn *w = user;
    const int depth = ctx->ag_depth;
    const bool off = ctx->grad_off;
    ct_status st = w->fn.backward(ctx, w->user, w->n_out, out, (const ct_tensor *const *)gout,
                                  w->n_in, need, gin);
    ctx->ag_depth = depth;
    ctx->grad_off = off; /* a backward may not change the pass's grad mode */
    for (int i = 0; i < w->n_in && st == CT_OK; i++) {
        if (!gin[i]) continue;
        if (!need[i]) { /* a gradient nobody asked for is dropped, as torch */
            ct_tensor_release(gin[i]);
            gin[i] = NULL;
            continue;
        }
        if (!ct__tensor_live(gin[i]) || gin[i]->ctx != ctx) {
            if (ct__tensor_live(gin[i])) ct_tensor_release(gin[i]); /* another context's */
            gin[i] = NULL; /* a dead handle is not ours to release */
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "Function %s returned an invalid gradient at index %d - not a "
                               "live tensor of this context",
                               w->name, i);
        } else if (!ct__ad_expandable(&w->in_meta[i], gin[i])) {
            char a[96];
            ct__shape_str(a, sizeof a, w->in_meta[i].ndim, w->in_meta[i].shape);
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "Function %s returned an invalid gradient at index %d - got %s but "
                               "expected shape compatible with %s",
                               w->name, i, CT__SHAPE_STR(gin[i]), a);
        } else if (!ct_dtype_is_floating(gin[i]->dtype) && !ct_dtype_is_complex(gin[i]->dtype)) {
            st = ct__set_error(ctx, CT_ERR_DTYPE,
                               "Function %s returned an invalid gradient at index %d - expected "
                               "a floating dtype, got %s",
                               w->name, i, ct_dtype_name(gin[i]->dtype));
        }
    }
    if (st != CT_OK)
        for (int i = 0; i < w->n_in; i++) {
            ct_tensor_release(gin[i]);
            gin[i] = NULL;
        }
    return st;
}

/* the engine's formula for CT__AG_USERFN nodes: the outputs it saved (with the node's history
 * under create_graph) and the output gradients go to the user's backward */
void ct__ad_userfn_backward(ct__ag_call *c) {
    ct__ag_node *n = c->n;
    ct_tensor *gin[CT__AG_MAX_IN] = {NULL};
    ct_status st = ct__ad_userfn_run(c->ctx, n->custom_user, c->out, c->g, c->need, gin);
    for (int i = 0; i < n->n_in; i++) {
        if (st == CT_OK && gin[i]) ct__ag_set(c, i, gin[i]);
        ct_tensor_release(gin[i]);
    }
    if (st != CT_OK && c->st == CT_OK) c->st = st;
}

static const ct__ag_custom CT__AD_USERFN = {"CustomFunctionBackward", NULL, ct__ad_userfn_free,
                                            false};

ct_status ct_autograd_function_apply(ct_ctx *ctx, const ct_autograd_function *fn, void *user,
                                     int n_in, const ct_tensor *const *in, int n_out,
                                     ct_tensor **out) {
    const bool whole = fn && fn->size >= sizeof *fn; /* free_user may be read */
    if (!ctx) {
        if (whole && fn->free_user) fn->free_user(user);
        return CT_ERR_INVALID_ARG;
    }
    ct_status st = CT_OK;
    ct__ad_userfn *w = NULL;
    for (int k = 0; out && k < n_out && k < CT__AG_MAX_OUT; k++)
        out[k] = NULL;
    if (!fn || fn->size < sizeof *fn || !fn->forward || !fn->backward)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "autograd_function_apply: fn must be given with size = "
                           "sizeof(ct_autograd_function), a forward and a backward");
    else if (n_in < 0 || n_in > CT__AG_MAX_IN || n_out < 1 || n_out > CT__AG_MAX_OUT || !out ||
             (n_in > 0 && !in))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "autograd_function_apply: %d inputs and %d outputs (0..%d inputs, "
                           "1..%d outputs, the arrays given)",
                           n_in, n_out, CT__AG_MAX_IN, CT__AG_MAX_OUT);
    for (int i = 0; i < n_in && st == CT_OK; i++)
        if (in[i]) st = ct__check_tensor(ctx, "autograd_function_apply", "input", in[i]);
    if (st == CT_OK && ctx->ag_depth != 0)
        st = ct__set_error(ctx, CT_ERR_STATE, "autograd_function_apply: called from inside an op");
    if (st == CT_OK && !(w = calloc(1, sizeof *w)))
        st = ct__set_error(ctx, CT_ERR_OOM, "autograd_function_apply: out of memory");
    if (st != CT_OK) {
        if (whole && fn->free_user) fn->free_user(user);
        return st;
    }
    w->fn = *fn;
    w->fn.size = sizeof w->fn;
    w->user = user;
    w->n_in = n_in;
    w->n_out = n_out;
    snprintf(w->name, sizeof w->name, "%s", fn->name ? fn->name : "CustomFunctionBackward");
    bool any_grad = false;
    for (int i = 0; i < n_in; i++) {
        if (!in[i]) continue;
        any_grad |= in[i]->requires_grad;
        w->in_meta[i].ndim = in[i]->ndim;
        memcpy(w->in_meta[i].shape, in[i]->shape, sizeof(int64_t) * (size_t)in[i]->ndim);
        w->in_meta[i].dtype = in[i]->dtype;
    }
    /* the forward runs with grad mode off, as torch's */
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *o[CT__AG_MAX_OUT] = {NULL};
    st = fn->forward(ctx, user, n_in, in, n_out, o);
    ctx->ag_depth = 0;
    ct_set_grad_enabled(ctx, was);
    for (int k = 0; k < n_out && st == CT_OK; k++) {
        if (!ct__tensor_live(o[k]) || o[k]->ctx != ctx) {
            if (ct__tensor_live(o[k])) ct_tensor_release(o[k]);
            o[k] = NULL;
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "autograd_function_apply: forward left output %d unset (or not a "
                               "live tensor of this context)",
                               k);
            break;
        }
        /* an output that is an input (or another output) gets a history of its own: an alias */
        bool alias = false;
        for (int i = 0; i < n_in; i++)
            alias |= o[k] == in[i];
        for (int j = 0; j < k; j++)
            alias |= o[k] == o[j];
        if (alias) {
            ct_tensor *a = NULL;
            st = ct__tensor_view_of(ctx, o[k], o[k]->ndim, o[k]->shape, o[k]->strides, o[k]->offset,
                                    &a);
            ct_tensor_release(o[k]);
            o[k] = a;
        }
    }
    if (st != CT_OK) {
        for (int k = 0; k < n_out; k++)
            ct_tensor_release(o[k]);
        ct__ad_userfn_free(w);
        return st;
    }
    if (!any_grad || !ctx->ag || ctx->grad_off) { /* nothing to record */
        for (int k = 0; k < n_out; k++)
            out[k] = o[k];
        ct__ad_userfn_free(w);
        return CT_OK;
    }
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    r.op = CT__AG_USERFN;
    r.n_in = n_in;
    for (int i = 0; i < n_in; i++)
        r.in[i] = in[i];
    r.n_out = n_out;
    for (int k = 0; k < n_out; k++)
        r.out[k] = o[k];
    r.custom = &CT__AD_USERFN;
    r.custom_user = w;
    r.name = w->name;
    st = ctx->ag->record(ctx, &r); /* takes w; releases the outputs on failure */
    if (st != CT_OK) return st;
    for (int k = 0; k < n_out; k++)
        out[k] = o[k];
    return CT_OK;
}

/* ---- activation checkpointing (torch.utils.checkpoint, the reentrant form) ---- */

typedef struct {
    ct_autograd_fn fn;
    void *user;
    int n;
    ct_tensor *in[CT__AG_MAX_IN]; /* the inputs, kept for the recomputation */
    int64_t ver[CT__AG_MAX_IN];   /* their versions then: an in-place write since is refused */
} ct__ckpt;

static ct_status ct__ckpt_forward(ct_ctx *ctx, void *user, int n_in, const ct_tensor *const *in,
                                  int n_out, ct_tensor **out) {
    ct__ckpt *c = user;
    (void)n_out;
    ct_status st = CT_OK;
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        /* a detached alias: the node must not hold the inputs' history (a cycle when an input is
         * later written from the output) */
        if (in[i]) st = ct_tensor_detach(ctx, in[i], &c->in[i]);
        c->ver[i] = in[i] ? in[i]->storage->version : 0;
    }
    c->n = n_in;
    if (st != CT_OK) return st;
    const int depth = ctx->ag_depth;
    st = c->fn(ctx, c->user, n_in, in, &out[0]); /* grad mode off: nothing is kept */
    ctx->ag_depth = depth;
    return st;
}

static ct_status ct__ckpt_backward(ct_ctx *ctx, void *user, int n_out, const ct_tensor *const *out,
                                   const ct_tensor *const *gout, int n_in, const bool *need,
                                   ct_tensor **gin) {
    ct__ckpt *c = user;
    (void)n_out, (void)out;
    if (!ctx->ag_outer_accumulate)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "checkpoint: Checkpointing is not compatible with .grad() or when an "
                             "`inputs` parameter is passed to .backward(); use ct_backward");
    if (!ctx->grad_off)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "checkpoint: create_graph (double backward) through a checkpoint is "
                             "not supported");
    /* recompute on detached inputs with grad mode on, then a nested pass from the output: the
     * parameters the function uses get their .grad directly (as torch's reentrant checkpoint),
     * the inputs' gradients come back from the detached copies */
    ct_tensor *x[CT__AG_MAX_IN] = {NULL}, *y = NULL;
    ct_status st = CT_OK;
    for (int i = 0; i < n_in && st == CT_OK; i++) /* torch saves them: the version check */
        if (c->in[i] && c->in[i]->storage->version != c->ver[i])
            st = ct__ag_stale_error(ctx, c->in[i], "input", i, "CheckpointFunctionBackward",
                                    c->ver[i]);
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        if (!c->in[i]) continue;
        st = ct_tensor_detach(ctx, c->in[i], &x[i]);
        if (st == CT_OK && need[i]) st = ct_tensor_set_requires_grad(x[i], true);
    }
    const bool off = ctx->grad_off;
    ctx->grad_off = false;
    const int depth = ctx->ag_depth;
    if (st == CT_OK) {
        st = c->fn(ctx, c->user, n_in, (const ct_tensor *const *)x, &y);
        if (st != CT_OK) y = NULL;
    }
    ctx->ag_depth = depth;
    if (st == CT_OK && ct__tensor_live(y) && y->requires_grad) {
        const ct_tensor *roots[1] = {y}, *g[1] = {gout[0]};
        ctx->ag_nest_ok = true;
        st =
            ct__ag_run_backward(ctx, "checkpoint", 1, roots, g, 0, NULL, false, false, false, NULL);
        ctx->ag_nest_ok = false;
    }
    ctx->grad_off = off;
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        const ct_tensor *g = need[i] && x[i] ? ct_tensor_grad(x[i]) : NULL;
        if (g) gin[i] = ct_tensor_retain((ct_tensor *)g);
    }
    for (int i = 0; i < n_in; i++)
        ct_tensor_release(x[i]);
    ct_tensor_release(y);
    return st;
}

static void ct__ckpt_free(void *user) {
    ct__ckpt *c = user;
    for (int i = 0; c && i < c->n; i++)
        ct_tensor_release(c->in[i]);
    free(c);
}

ct_status ct_checkpoint(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                        const ct_tensor *const *inputs, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (!fn || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "checkpoint: fn and out must be given");
    ct__ckpt *c = calloc(1, sizeof *c);
    if (!c) return ct__set_error(ctx, CT_ERR_OOM, "checkpoint: out of memory");
    c->fn = fn;
    c->user = user;
    const ct_autograd_function f = {sizeof f, "CheckpointFunctionBackward", ct__ckpt_forward,
                                    ct__ckpt_backward, ct__ckpt_free};
    return ct_autograd_function_apply(ctx, &f, c, n_in, inputs, 1, out);
}

/* ---- the functional API ---- */

typedef struct {
    ct_ctx *ctx;
    const char *api;
    int n;
    ct_tensor *x[CT__AD_MAX_IN]; /* the inputs as the function sees them (require grad) */
    ct_tensor *out;
    bool was; /* grad mode before */
} ct__ad_run;

static void ct__ad_done(ct__ad_run *R) {
    for (int i = 0; i < R->n; i++)
        ct_tensor_release(R->x[i]);
    ct_tensor_release(R->out);
    ct_set_grad_enabled(R->ctx, R->was);
}

static ct_status ct__ad_opts(ct_ctx *ctx, const char *api, const ct_autodiff_options *opts,
                             ct_autodiff_options *o, int n_in, int max_in) {
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    if (n_in < 1 || n_in > max_in) /* before any result entry is written */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %d inputs (1..%d%s)", api, n_in, max_in,
                             max_in == 16 ? "; the second-order tools differentiate each "
                                            "input's gradient as one backward root"
                                          : "");
    if (!opts) return CT_OK;
    if (opts->size < sizeof *o)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: options.size %zu is smaller than sizeof(ct_autodiff_options) %zu",
                             api, opts->size, sizeof *o);
    *o = *opts;
    return CT_OK;
}

/* Prepare the inputs (torch's _grad_preprocess: a differentiable alias under create_graph when the
 * input requires grad, else a detached alias marked requires_grad), run fn with grad mode on and
 * check its output. */
static ct_status ct__ad_begin(ct__ad_run *R, ct_ctx *ctx, const char *api, ct_autograd_fn fn,
                              void *user, int n_in, const ct_tensor *const *inputs,
                              const bool *diff, bool create_graph) {
    memset(R, 0, sizeof *R);
    R->ctx = ctx;
    R->api = api;
    R->was = ct_set_grad_enabled(ctx, true);
    ct_status st = CT_OK;
    if (!fn || n_in < 1 || n_in > CT__AD_MAX_IN || !inputs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: a function and 1..%d inputs must be given (got %d)", api,
                             CT__AD_MAX_IN, n_in);
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        const ct_tensor *t = inputs[i];
        if ((st = ct__check_tensor(ctx, api, "input", t)) != CT_OK) break;
        if (diff && !diff[i]) { /* passed as it is (gradcheck's inputs that do not require grad) */
            R->x[i] = ct_tensor_retain((ct_tensor *)t);
            R->n = i + 1;
            continue;
        }
        if (!ct_dtype_is_floating(t->dtype) && !ct_dtype_is_complex(t->dtype)) {
            st = ct__set_error(ctx, CT_ERR_DTYPE,
                               "%s: input %d is %s; only tensors of floating point and complex "
                               "dtype can require gradients",
                               api, i, ct_dtype_name(t->dtype));
            break;
        }
        if (create_graph && t->requires_grad) {
            st = ct_tensor_expand(ctx, t, t->ndim, t->shape, &R->x[i]); /* view_as */
        } else {
            st = ct_tensor_detach(ctx, t, &R->x[i]);
            if (st == CT_OK) st = ct_tensor_set_requires_grad(R->x[i], true);
        }
        R->n = i + 1;
    }
    if (st != CT_OK) return st;
    const int depth = ctx->ag_depth;
    st = fn(ctx, user, n_in, (const ct_tensor *const *)R->x, &R->out);
    ctx->ag_depth = depth;
    ct_set_grad_enabled(ctx, true);
    if (st != CT_OK) {
        R->out = NULL; /* a failing function's output is not trusted */
        return st;
    }
    if (!ct__tensor_live(R->out) || R->out->ctx != ctx) {
        if (ct__tensor_live(R->out)) ct_tensor_release(R->out);
        R->out = NULL;
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: the function returned CT_OK without a live output tensor", api);
    }
    if (!ct_dtype_is_floating(R->out->dtype) && !ct_dtype_is_complex(R->out->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: the function's output is %s; it must be floating or complex to "
                             "be differentiated",
                             api, ct_dtype_name(R->out->dtype));
    return CT_OK;
}

static ct_status ct__ad_strict_out(ct__ad_run *R, const ct_autodiff_options *o) {
    if (!o->strict || R->out->requires_grad) return CT_OK;
    return ct__set_error(R->ctx, CT_ERR_STATE,
                         "%s: Output 0 of the user-provided function does not require gradients. "
                         "The outputs must be computed in a differentiable manner from the input "
                         "when running in strict mode.",
                         R->api);
}

/* grads[i] = d roots / d x[i] weighted by groots; NULL where no gradient reaches x[i] (strict:
 * an error); roots that do not require grad are left out. */
static ct_status ct__ad_grad(ct__ad_run *R, int n_roots, ct_tensor *const *roots,
                             const ct_tensor *const *groots, int n_x, ct_tensor *const *x,
                             bool create, bool strict, ct_tensor **grads) {
    const ct_tensor *rs[16], *gs[16];
    int m = 0;
    for (int i = 0; i < n_x; i++)
        grads[i] = NULL;
    for (int r = 0; r < n_roots; r++) {
        if (!roots[r] || !roots[r]->requires_grad) continue;
        if (m == 16)
            return ct__set_error(R->ctx, CT_ERR_INVALID_ARG,
                                 "%s: at most 16 inputs (the second-order tools differentiate "
                                 "each input's gradient as one backward root)",
                                 R->api);
        rs[m] = roots[r];
        gs[m++] = groots ? groots[r] : NULL;
    }
    ct_status st = CT_OK;
    if (m > 0)
        st = ct__ag_run_backward(R->ctx, R->api, m, rs, gs, n_x, (const ct_tensor *const *)x, true,
                                 create, true, grads);
    for (int i = 0; i < n_x && st == CT_OK && strict; i++)
        if (!grads[i])
            st = ct__set_error(R->ctx, CT_ERR_STATE,
                               "%s: The output of the user-provided function is independent of "
                               "input %d. This is not allowed in strict mode.",
                               R->api, i);
    if (st != CT_OK)
        for (int i = 0; i < n_x; i++) {
            ct_tensor_release(grads[i]);
            grads[i] = NULL;
        }
    return st;
}

/* NULL gradients become zeros of x's shape and dtype; without create_graph every result is
 * detached (torch's _grad_postprocess). */
/* torch's _fill_in_zeros: also, in strict mode with create_graph, a result without a graph means
 * the `what` ("jacobian", "hessian") does not depend on input i */
typedef struct {
    const char *api, *what;
    bool strict;
} ct__ad_chk;
static ct_status ct__ad_post(ct_ctx *ctx, const ct_tensor *like, bool create, const ct__ad_chk *k,
                             int i, ct_tensor **g) {
    ct_status st = CT_OK;
    if (!*g) return ct_tensor_zeros(ctx, like->dtype, like->ndim, like->shape, g);
    if (create && k && k->strict && !(*g)->requires_grad)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: The %s of the user-provided function is independent of input "
                             "%d. This is not allowed in strict mode when create_graph=True.",
                             k->api, k->what, i);
    if (!create && (*g)->requires_grad) {
        ct_tensor *d = NULL;
        st = ct_tensor_detach(ctx, *g, &d);
        ct_tensor_release(*g);
        *g = d;
    }
    return st;
}

/* out = detached (or not) copy of the function's output for the caller */
static ct_status ct__ad_give_out(ct__ad_run *R, bool create, ct_tensor **out) {
    if (!out) return CT_OK;
    if (create || !R->out->requires_grad) {
        *out = ct_tensor_retain(R->out);
        return CT_OK;
    }
    return ct_tensor_detach(R->ctx, R->out, out);
}

static bool ct__ad_same_shape(const ct_tensor *a, const ct_tensor *b) {
    if (a->ndim != b->ndim) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i]) return false;
    return true;
}

/* The vector v for output o: NULL only for a one-element o (ones), else o's shape. */
static ct_status ct__ad_check_v(ct__ad_run *R, const char *what, const ct_tensor *v,
                                const ct_tensor *o, int idx) {
    ct_ctx *ctx = R->ctx;
    if (!v) {
        if (ct_tensor_numel(o) == 1) return CT_OK;
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: The vector v can only be NULL if the %s is a single Tensor with "
                             "a single element.",
                             R->api, what);
    }
    ct_status st = ct__check_tensor(ctx, R->api, "v", v);
    if (st != CT_OK) return st;
    if (!ct__ad_same_shape(v, o)) {
        char b[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: v[%d] has invalid size: should be %s but got %s", R->api, idx,
                             ct__shape_str(b, sizeof b, o->ndim, o->shape), CT__SHAPE_STR(v));
    }
    return CT_OK;
}

ct_status ct_autograd_vjp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                          const ct_tensor *const *inputs, const ct_tensor *v,
                          const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **vjp) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    ct_autodiff_options o;
    ct_status st = ct__ad_opts(ctx, "vjp", opts, &o, n_in, CT__AD_MAX_IN);
    if (st != CT_OK) return st;
    if (!vjp) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "vjp: vjp is NULL");
    for (int i = 0; i < n_in && i < CT__AD_MAX_IN; i++)
        vjp[i] = NULL;
    if (out) *out = NULL;
    ct__ad_run R;
    st = ct__ad_begin(&R, ctx, "vjp", fn, user, n_in, inputs, NULL, o.create_graph);
    if (st == CT_OK) st = ct__ad_check_v(&R, "user-provided function's output", v, R.out, 0);
    if (st == CT_OK) st = ct__ad_strict_out(&R, &o);
    const ct_tensor *gv[1] = {v};
    if (st == CT_OK) st = ct__ad_grad(&R, 1, &R.out, gv, n_in, R.x, o.create_graph, o.strict, vjp);
    const ct__ad_chk chk = {"vjp", "jacobian", o.strict};
    for (int i = 0; i < n_in && st == CT_OK; i++)
        st = ct__ad_post(ctx, inputs[i], o.create_graph, &chk, i, &vjp[i]);
    if (st == CT_OK) st = ct__ad_give_out(&R, o.create_graph, out);
    ct__ad_done(&R);
    if (st != CT_OK)
        for (int i = 0; i < n_in && i < CT__AD_MAX_IN; i++) {
            ct_tensor_release(vjp[i]);
            vjp[i] = NULL;
        }
    return st;
}

/* torch's double-backward trick: with u = zeros like the output (requiring grad), g(u) = u^T J is
 * linear in u, and d (g . v) / du = J v. */
ct_status ct_autograd_jvp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                          const ct_tensor *const *inputs, const ct_tensor *const *v,
                          const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **jvp) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (jvp) *jvp = NULL;
    ct_autodiff_options o;
    ct_status st = ct__ad_opts(ctx, "jvp", opts, &o, n_in, 16);
    if (st != CT_OK) return st;
    if (!jvp) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "jvp: jvp is NULL");
    *jvp = NULL;
    if (out) *out = NULL;
    ct__ad_run R;
    ct_tensor *u = NULL, *g[CT__AD_MAX_IN] = {NULL}, *ones = NULL;
    const ct_tensor *vv[CT__AD_MAX_IN] = {NULL};
    st = ct__ad_begin(&R, ctx, "jvp", fn, user, n_in, inputs, NULL, o.create_graph);
    if (st == CT_OK && !v && n_in != 1)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "jvp: The vector v can only be NULL if the input to the user-provided "
                           "function is a single Tensor with a single element.");
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        st = ct__ad_check_v(&R, "input to the user-provided function", v ? v[i] : NULL, R.x[i], i);
        if (st == CT_OK && !v)
            st = ct_tensor_full(ctx, R.x[i]->dtype, R.x[i]->ndim, R.x[i]->shape, 1.0, &ones);
        vv[i] = v ? v[i] : ones;
    }
    if (st == CT_OK) st = ct__ad_strict_out(&R, &o);
    if (st == CT_OK) st = ct_zeros_like(ctx, R.out, &u);
    if (st == CT_OK) st = ct_tensor_set_requires_grad(u, true);
    const ct_tensor *gu[1] = {u};
    if (st == CT_OK) st = ct__ad_grad(&R, 1, &R.out, gu, n_in, R.x, true, o.strict, g);
    /* J v = d/du sum_i <g_i(u), v_i> */
    if (st == CT_OK) {
        ct_tensor *r[1] = {NULL};
        st = ct__ad_grad(&R, n_in, g, vv, 1, &u, o.create_graph, false, r);
        if (st == CT_OK && !r[0] && o.strict)
            st = ct__set_error(ctx, CT_ERR_STATE,
                               "jvp: The gradient with respect to the input is independent of "
                               "entry 0 in the grad_outputs when using the double backward trick "
                               "to compute forward mode gradients. This is not allowed in strict "
                               "mode.");
        const ct__ad_chk chk = {"jvp", "jacobian", o.strict};
        if (st == CT_OK) st = ct__ad_post(ctx, R.out, o.create_graph, &chk, 0, &r[0]);
        *jvp = st == CT_OK ? r[0] : (ct_tensor_release(r[0]), NULL);
    }
    if (st == CT_OK) st = ct__ad_give_out(&R, o.create_graph, out);
    for (int i = 0; i < n_in && i < CT__AD_MAX_IN; i++)
        ct_tensor_release(g[i]);
    ct_tensor_release(u), ct_tensor_release(ones);
    ct__ad_done(&R);
    if (st != CT_OK) {
        ct_tensor_release(*jvp);
        *jvp = NULL;
        if (out) {
            ct_tensor_release(*out);
            *out = NULL;
        }
    }
    return st;
}

/* rows[i] (shape o's + x[i]'s, x[i]'s dtype) = the Jacobian of o with respect to each x[i], one
 * backward per element of o with a one-hot gradient (torch's reverse mode, vectorize=False). */
static ct_status ct__ad_jac_rows(ct__ad_run *R, ct_tensor *o, int n_x, ct_tensor *const *x,
                                 bool create, bool strict, ct_tensor **jac) {
    ct_ctx *ctx = R->ctx;
    const int64_t N = ct_tensor_numel(o);
    ct_status st = CT_OK;
    ct_tensor *onehot = NULL, *flat_j[CT__AD_MAX_IN] = {NULL};
    ct_tensor **rows = NULL; /* create_graph: every row, stacked at the end */
    for (int i = 0; i < n_x; i++)
        jac[i] = NULL;
    if (create && N > 0 && n_x > 0 && !(rows = calloc((size_t)N * (size_t)n_x, sizeof *rows)))
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", R->api);
    for (int i = 0; i < n_x && st == CT_OK && !create; i++) {
        const int64_t shp[2] = {N, ct_tensor_numel(x[i])};
        st = ct_tensor_zeros(ctx, x[i]->dtype, 2, shp, &flat_j[i]);
    }
    for (int64_t k = 0; k < N && st == CT_OK; k++) {
        ct_tensor *e = NULL, *ev = NULL, *g[CT__AD_MAX_IN] = {NULL};
        const bool was = ct_set_grad_enabled(ctx, false);
        /* a fresh one-hot per row: a gradient may come back as the seed itself (f(x) = x), and
         * under create_graph the rows are kept */
        ct_tensor_release(onehot), onehot = NULL;
        st = ct_tensor_zeros(ctx, o->dtype, 1, (int64_t[]){N}, &onehot);
        if (st == CT_OK) st = ct_tensor_slice(ctx, onehot, 0, k, k + 1, 1, &e);
        if (st == CT_OK) st = ct_tensor_fill_(ctx, e, 1.0);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, onehot, o->ndim, o->shape, &ev);
        ct_set_grad_enabled(ctx, was);
        const ct_tensor *gv[1] = {ev};
        if (st == CT_OK) st = ct__ad_grad(R, 1, &o, gv, n_x, x, create, false, g);
        for (int i = 0; i < n_x && st == CT_OK; i++) {
            if (!g[i] && strict) /* torch checks each row */
                st = ct__set_error(ctx, CT_ERR_STATE,
                                   "%s: Output 0 of the user-provided function is independent of "
                                   "input %d. This is not allowed in strict mode.",
                                   R->api, i);
            if (!g[i] || st != CT_OK) continue;
            if (create && strict && !g[i]->requires_grad) {
                st = ct__set_error(ctx, CT_ERR_STATE,
                                   "%s: The jacobian of the user-provided function is independent "
                                   "of input %d. This is not allowed in strict mode when "
                                   "create_graph=True.",
                                   R->api, i);
                break;
            }
            if (create) {
                st = ct_tensor_reshape(ctx, g[i], 1, (int64_t[]){ct_tensor_numel(x[i])},
                                       &rows[i * N + k]);
            } else {
                ct_tensor *row = NULL, *gf = NULL;
                st = ct_tensor_slice(ctx, flat_j[i], 0, k, k + 1, 1, &row);
                if (st == CT_OK)
                    st =
                        ct_tensor_reshape(ctx, g[i], 2, (int64_t[]){1, ct_tensor_numel(x[i])}, &gf);
                if (st == CT_OK) st = ct_tensor_copy_(ctx, row, gf);
                ct_tensor_release(row), ct_tensor_release(gf);
            }
        }
        for (int i = 0; i < n_x; i++)
            ct_tensor_release(g[i]);
        ct_tensor_release(e), ct_tensor_release(ev);
    }
    /* assemble (o's shape + x[i]'s shape) */
    for (int i = 0; i < n_x && st == CT_OK; i++) {
        int64_t shp[2 * CT_MAX_DIMS];
        const int nd = o->ndim + x[i]->ndim;
        if (nd > CT_MAX_DIMS) {
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "%s: the Jacobian would have %d dims (output %d + input %d; at most "
                               "%d)",
                               R->api, nd, o->ndim, x[i]->ndim, CT_MAX_DIMS);
            break;
        }
        memcpy(shp, o->shape, sizeof(int64_t) * (size_t)o->ndim);
        memcpy(shp + o->ndim, x[i]->shape, sizeof(int64_t) * (size_t)x[i]->ndim);
        if (!create) {
            st = ct_tensor_reshape(ctx, flat_j[i], nd, shp, &jac[i]);
            continue;
        }
        /* rows that got no gradient are zeros; stack keeps the rows' graph */
        ct_tensor *st_rows = NULL;
        for (int64_t k = 0; k < N && st == CT_OK; k++)
            if (!rows[i * N + k])
                st = ct_tensor_zeros(ctx, x[i]->dtype, 1, (int64_t[]){ct_tensor_numel(x[i])},
                                     &rows[i * N + k]);
        if (st == CT_OK && N > 0)
            st = ct_stack(ctx, (int)N, (const ct_tensor *const *)&rows[i * N], 0, &st_rows);
        else if (st == CT_OK)
            st = ct_tensor_zeros(ctx, x[i]->dtype, 2, (int64_t[]){0, ct_tensor_numel(x[i])},
                                 &st_rows);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, st_rows, nd, shp, &jac[i]);
        ct_tensor_release(st_rows);
    }
    if (rows)
        for (int64_t k = 0; k < N * n_x; k++)
            ct_tensor_release(rows[k]);
    free(rows);
    for (int i = 0; i < n_x; i++)
        ct_tensor_release(flat_j[i]);
    ct_tensor_release(onehot);
    if (st != CT_OK)
        for (int i = 0; i < n_x; i++) {
            ct_tensor_release(jac[i]);
            jac[i] = NULL;
        }
    return st;
}

ct_status ct_autograd_jacobian(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                               const ct_tensor *const *inputs, const ct_autodiff_options *opts,
                               ct_tensor **jac) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_autodiff_options o;
    ct_status st = ct__ad_opts(ctx, "jacobian", opts, &o, n_in, CT__AD_MAX_IN);
    if (st != CT_OK) return st;
    if (!jac) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "jacobian: jac is NULL");
    for (int i = 0; i < n_in && i < CT__AD_MAX_IN; i++)
        jac[i] = NULL;
    ct__ad_run R;
    st = ct__ad_begin(&R, ctx, "jacobian", fn, user, n_in, inputs, NULL, o.create_graph);
    if (st == CT_OK) st = ct__ad_strict_out(&R, &o);
    if (st == CT_OK) st = ct__ad_jac_rows(&R, R.out, n_in, R.x, o.create_graph, o.strict, jac);
    ct__ad_done(&R);
    return st;
}

/* The first derivatives with their graph (for the second-order tools): g[i] = d out / d x[i]. */
static ct_status ct__ad_first(ct__ad_run *R, const ct_autodiff_options *o, ct_tensor **g) {
    if (ct_tensor_numel(R->out) != 1)
        return ct__set_error(R->ctx, CT_ERR_SHAPE,
                             "%s: The Tensor returned by the function given to %s should contain "
                             "a single element",
                             R->api, R->api);
    ct_status st = ct__ad_strict_out(R, o);
    if (st == CT_OK) st = ct__ad_grad(R, 1, &R->out, NULL, R->n, R->x, true, o->strict, g);
    for (int i = 0; i < R->n && st == CT_OK && o->strict; i++)
        if (!g[i]->requires_grad)
            st = ct__set_error(R->ctx, CT_ERR_STATE,
                               "%s: While computing the hessian, found that the jacobian of the "
                               "user-provided function with respect to input %d is independent "
                               "of the input. This is not allowed in strict mode. You should "
                               "ensure that your function is twice differentiable and that the "
                               "jacobian depends on the inputs (this would be violated by a "
                               "linear function for example).",
                               R->api, i);
    return st;
}

ct_status ct_autograd_hessian(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                              const ct_tensor *const *inputs, const ct_autodiff_options *opts,
                              ct_tensor **hess) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_autodiff_options o;
    ct_status st = ct__ad_opts(ctx, "hessian", opts, &o, n_in, 8);
    if (st != CT_OK) return st;
    if (!hess) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "hessian: hess is NULL");
    for (int i = 0; i < n_in * n_in; i++)
        hess[i] = NULL;
    ct__ad_run R;
    ct_tensor *g[CT__AD_MAX_IN] = {NULL};
    st = ct__ad_begin(&R, ctx, "hessian", fn, user, n_in, inputs, NULL, o.create_graph);
    if (st == CT_OK) st = ct__ad_first(&R, &o, g);
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        /* row block i: the Jacobian of g[i] (zeros when no gradient reached x[i]) */
        if (!g[i]) st = ct_tensor_zeros(ctx, R.x[i]->dtype, R.x[i]->ndim, R.x[i]->shape, &g[i]);
        if (st == CT_OK)
            st = ct__ad_jac_rows(&R, g[i], n_in, R.x, o.create_graph, o.strict, &hess[i * n_in]);
    }
    for (int i = 0; i < n_in; i++)
        ct_tensor_release(g[i]);
    ct__ad_done(&R);
    if (st != CT_OK)
        for (int i = 0; i < n_in * n_in; i++) {
            ct_tensor_release(hess[i]);
            hess[i] = NULL;
        }
    return st;
}

/* vhp (hvp = false): d <g, v> / dx with g the first derivatives; hvp: torch's double-backward
 * form, H v through u -> d <g, u> / dx differentiated against u. */
static ct_status ct__ad_hv(ct_ctx *ctx, const char *api, bool hvp, ct_autograd_fn fn, void *user,
                           int n_in, const ct_tensor *const *inputs, const ct_tensor *const *v,
                           const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **res) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    ct_autodiff_options o;
    ct_status st = ct__ad_opts(ctx, api, opts, &o, n_in, 16);
    if (st != CT_OK) return st;
    if (!res) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: the result array is NULL", api);
    for (int i = 0; i < n_in && i < CT__AD_MAX_IN; i++)
        res[i] = NULL;
    if (out) *out = NULL;
    ct__ad_run R;
    ct_tensor *g[CT__AD_MAX_IN] = {NULL}, *u[CT__AD_MAX_IN] = {NULL}, *db[CT__AD_MAX_IN] = {NULL},
              *ones = NULL;
    const ct_tensor *vv[CT__AD_MAX_IN] = {NULL};
    st = ct__ad_begin(&R, ctx, api, fn, user, n_in, inputs, NULL, o.create_graph);
    if (st == CT_OK && !v && n_in != 1)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "%s: The vector v can only be NULL if the input to the user-provided "
                           "function is a single Tensor with a single element.",
                           api);
    for (int i = 0; i < n_in && st == CT_OK; i++) {
        st = ct__ad_check_v(&R, "input to the user-provided function", v ? v[i] : NULL, R.x[i], i);
        if (st == CT_OK && !v)
            st = ct_tensor_full(ctx, R.x[i]->dtype, R.x[i]->ndim, R.x[i]->shape, 1.0, &ones);
        vv[i] = v ? v[i] : ones;
    }
    if (st == CT_OK) st = ct__ad_first(&R, &o, g);
    if (st == CT_OK && !hvp) {
        st = ct__ad_grad(&R, n_in, g, vv, n_in, R.x, o.create_graph, o.strict, res);
    } else if (st == CT_OK) {
        for (int i = 0; i < n_in && st == CT_OK; i++) {
            st = ct_tensor_zeros(ctx, R.x[i]->dtype, R.x[i]->ndim, R.x[i]->shape, &u[i]);
            if (st == CT_OK) st = ct_tensor_set_requires_grad(u[i], true);
        }
        const ct_tensor *uu[CT__AD_MAX_IN] = {NULL};
        for (int i = 0; i < n_in; i++)
            uu[i] = u[i];
        if (st == CT_OK) st = ct__ad_grad(&R, n_in, g, uu, n_in, R.x, true, o.strict, db);
        if (st == CT_OK) st = ct__ad_grad(&R, n_in, db, vv, n_in, u, o.create_graph, false, res);
    }
    const ct__ad_chk chk = {api, "hessian", o.strict};
    for (int i = 0; i < n_in && st == CT_OK; i++)
        st = ct__ad_post(ctx, inputs[i], o.create_graph, &chk, i, &res[i]);
    if (st == CT_OK) st = ct__ad_give_out(&R, o.create_graph, out);
    for (int i = 0; i < n_in && i < CT__AD_MAX_IN; i++) {
        ct_tensor_release(g[i]), ct_tensor_release(u[i]), ct_tensor_release(db[i]);
        if (st != CT_OK) {
            ct_tensor_release(res[i]);
            res[i] = NULL;
        }
    }
    ct_tensor_release(ones);
    ct__ad_done(&R);
    return st;
}

ct_status ct_autograd_vhp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                          const ct_tensor *const *inputs, const ct_tensor *const *v,
                          const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **vhp) {
    return ct__ad_hv(ctx, "vhp", false, fn, user, n_in, inputs, v, opts, out, vhp);
}

ct_status ct_autograd_hvp(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                          const ct_tensor *const *inputs, const ct_tensor *const *v,
                          const ct_autodiff_options *opts, ct_tensor **out, ct_tensor **hvp) {
    return ct__ad_hv(ctx, "hvp", true, fn, user, n_in, inputs, v, opts, out, hvp);
}

/* ---- gradcheck ---- */

ct_gradcheck_options ct_gradcheck_options_default(void) {
    ct_gradcheck_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.eps = 1e-6;
    o.atol = 1e-5;
    o.rtol = 1e-3;
    o.seed = 0;
    return o;
}

/* t's values as doubles (host) */
static ct_status ct__ad_host_f64(ct_ctx *ctx, const ct_tensor *t, double **v) {
    const int64_t n = ct_tensor_numel(t);
    ct_tensor *c = NULL;
    *v = malloc((size_t)(n > 0 ? n : 1) * sizeof **v);
    if (!*v) return ct__set_error(ctx, CT_ERR_OOM, "gradcheck: out of memory");
    ct_status st = ct_cast(ctx, t, CT_FLOAT64, &c);
    if (st == CT_OK) st = ct_tensor_to_host(c, *v, (size_t)n * sizeof **v);
    ct_tensor_release(c);
    return st;
}

/* fn at inputs with input i replaced by the host values xv (cast to its dtype), as doubles */
static ct_status ct__ad_eval(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                             const ct_tensor *const *inputs, int i, const double *xv, double *ov,
                             int64_t n_out) {
    const ct_tensor *in[CT__AD_MAX_IN];
    ct_tensor *f = NULL, *c = NULL, *o = NULL, *oc = NULL;
    ct_status st = ct_tensor_from_host(ctx, xv, CT_FLOAT64, inputs[i]->ndim, inputs[i]->shape, &f);
    if (st == CT_OK) st = ct_cast(ctx, f, inputs[i]->dtype, &c);
    for (int k = 0; k < n_in; k++)
        in[k] = k == i ? c : inputs[k];
    const bool was = ct_set_grad_enabled(ctx, false);
    const int depth = ctx->ag_depth;
    if (st == CT_OK) {
        st = fn(ctx, user, n_in, in, &o);
        ctx->ag_depth = depth;
        if (st != CT_OK) o = NULL;
    }
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK && (!ct__tensor_live(o) || ct_tensor_numel(o) != n_out))
        st = ct__set_error(ctx, CT_ERR_STATE,
                           "gradcheck: the function's output changed its size under a "
                           "perturbation of input %d",
                           i);
    if (st == CT_OK) st = ct_cast(ctx, o, CT_FLOAT64, &oc);
    if (st == CT_OK) st = ct_tensor_to_host(oc, ov, (size_t)n_out * sizeof *ov);
    ct_tensor_release(f), ct_tensor_release(c), ct_tensor_release(o), ct_tensor_release(oc);
    return st;
}

static ct_status ct__ad_gradcheck(ct_ctx *ctx, const char *api, ct_autograd_fn fn, void *user,
                                  int n_in, const ct_tensor *const *inputs,
                                  const ct_gradcheck_options *o, bool *passed) {
    bool diff[CT__AD_MAX_IN] = {false}, any = false;
    if (!fn || n_in < 1 || n_in > CT__AD_MAX_IN || !inputs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: a function and 1..%d inputs must be given (got %d)", api,
                             CT__AD_MAX_IN, n_in);
    for (int i = 0; i < n_in; i++) {
        ct_status st = ct__check_tensor(ctx, api, "input", inputs[i]);
        if (st != CT_OK) return st;
        diff[i] = inputs[i]->requires_grad;
        any |= diff[i];
        if (diff[i] && ct_dtype_is_complex(inputs[i]->dtype))
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "%s: input %d is complex; gradcheck checks real inputs only", api,
                                 i);
    }
    if (!any)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: gradcheck expects at least one input tensor to require gradient",
                             api);
    if (!(o->eps > 0) || !(o->atol >= 0) || !(o->rtol >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: eps %g must be > 0, atol %g and rtol %g >= 0", api, o->eps,
                             o->atol, o->rtol);
    /* the analytical Jacobians, twice (a backward must give the same values each time) */
    ct__ad_run R;
    ct_tensor *xs[CT__AD_MAX_IN], *ja[CT__AD_MAX_IN] = {NULL}, *jb[CT__AD_MAX_IN] = {NULL};
    int idx[CT__AD_MAX_IN], m = 0;
    double *a = NULL, *b = NULL, *xv = NULL, *op = NULL, *om = NULL;
    ct_status st = ct__ad_begin(&R, ctx, api, fn, user, n_in, inputs, diff, false);
    const int64_t n_out = st == CT_OK ? ct_tensor_numel(R.out) : 0;
    if (st == CT_OK && ct_dtype_is_complex(R.out->dtype))
        st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                           "%s: the function's output is complex; gradcheck checks real outputs "
                           "only",
                           api);
    for (int i = 0; i < n_in; i++)
        if (diff[i]) idx[m] = i, xs[m++] = R.x[i];
    if (st == CT_OK) st = ct__ad_jac_rows(&R, R.out, m, xs, false, false, ja);
    if (st == CT_OK) st = ct__ad_jac_rows(&R, R.out, m, xs, false, false, jb);
    *passed = st == CT_OK;
    if (st == CT_OK && n_out > 0 &&
        (!(op = malloc((size_t)n_out * sizeof *op)) || !(om = malloc((size_t)n_out * sizeof *om))))
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", api);
    for (int j = 0; j < m && st == CT_OK && *passed; j++) {
        const int i = idx[j];
        const int64_t n_x = ct_tensor_numel(inputs[i]);
        st = ct__ad_host_f64(ctx, ja[j], &a);
        if (st == CT_OK) st = ct__ad_host_f64(ctx, jb[j], &b);
        for (int64_t k = 0; k < n_out * n_x && st == CT_OK; k++)
            if (memcmp(&a[k], &b[k], sizeof a[k]) != 0) {
                *passed = false; /* a report, not a failure: a capture is not invalidated */
                ct__set_error(ctx, CT_OK,
                              "%s: Backward is not reentrant, i.e., running backward with the "
                              "same input and grad_output multiple times gives different values "
                              "(input %d, element %lld: %.17g then %.17g)",
                              api, i, (long long)k, a[k], b[k]);
                break;
            }
        if (st == CT_OK) st = ct__ad_host_f64(ctx, inputs[i], &xv);
        /* the numerical Jacobian by central differences, one input element at a time */
        for (int64_t e = 0; e < n_x && st == CT_OK && *passed; e++) {
            const double x0 = xv[e];
            xv[e] = x0 + o->eps;
            st = ct__ad_eval(ctx, fn, user, n_in, inputs, i, xv, op, n_out);
            xv[e] = x0 - o->eps;
            if (st == CT_OK) st = ct__ad_eval(ctx, fn, user, n_in, inputs, i, xv, om, n_out);
            xv[e] = x0;
            for (int64_t k = 0; k < n_out && st == CT_OK; k++) {
                const double num = (op[k] - om[k]) / (2 * o->eps), ana = a[k * n_x + e];
                if (fabs(ana - num) <= o->atol + o->rtol * fabs(num)) continue;
                *passed = false; /* a report, not a failure: a capture is not invalidated */
                ct__set_error(ctx, CT_OK,
                              "%s: Jacobian mismatch for output 0 with respect to input %d at "
                              "(output element %lld, input element %lld): numerical %.10g, "
                              "analytical %.10g (atol %g, rtol %g, eps %g)",
                              api, i, (long long)k, (long long)e, num, ana, o->atol, o->rtol,
                              o->eps);
                break;
            }
        }
        free(a), free(b), free(xv);
        a = b = xv = NULL;
    }
    for (int j = 0; j < m; j++)
        ct_tensor_release(ja[j]), ct_tensor_release(jb[j]);
    free(op), free(om);
    ct__ad_done(&R);
    if (st != CT_OK) *passed = false;
    return st;
}

static ct_status ct__ad_gc_opts(ct_ctx *ctx, const char *api, const ct_gradcheck_options *opts,
                                ct_gradcheck_options *o, bool *passed) {
    *o = ct_gradcheck_options_default();
    if (!passed) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: passed is NULL", api);
    *passed = false;
    if (!opts) return CT_OK;
    if (opts->size < sizeof *o)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: options.size %zu is smaller than sizeof(ct_gradcheck_options) "
                             "%zu",
                             api, opts->size, sizeof *o);
    *o = *opts;
    return CT_OK;
}

ct_status ct_gradcheck(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                       const ct_tensor *const *inputs, const ct_gradcheck_options *opts,
                       bool *passed) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_gradcheck_options o;
    ct_status st = ct__ad_gc_opts(ctx, "gradcheck", opts, &o, passed);
    if (st != CT_OK) return st;
    return ct__ad_gradcheck(ctx, "gradcheck", fn, user, n_in, inputs, &o, passed);
}

/* gradgradcheck's function: (inputs..., v) -> d <f(inputs), v> / d inputs[j], with its graph */
typedef struct {
    ct_autograd_fn fn;
    void *user;
    int n_in, j;
    const bool *diff;
} ct__ad_gg;

static ct_status ct__ad_gg_fn(ct_ctx *ctx, void *user, int n, const ct_tensor *const *in,
                              ct_tensor **out) {
    const ct__ad_gg *G = user;
    ct__ad_run R;
    ct_tensor *g[CT__AD_MAX_IN] = {NULL};
    *out = NULL;
    (void)n;
    ct_status st =
        ct__ad_begin(&R, ctx, "gradgradcheck", G->fn, G->user, G->n_in, in, G->diff, true);
    const ct_tensor *v[1] = {in[G->n_in]};
    if (st == CT_OK && !ct__ad_same_shape(v[0], R.out))
        st = ct__set_error(ctx, CT_ERR_STATE, "gradgradcheck: the output changed its shape");
    if (st == CT_OK && R.out->requires_grad)
        st = ct__ag_run_backward(ctx, "gradgradcheck", 1, (const ct_tensor *const *)&R.out, v, 1,
                                 (const ct_tensor *const *)&R.x[G->j], true, true, true, g);
    if (st == CT_OK)
        st = g[0] ? (*out = g[0], g[0] = NULL, CT_OK)
                  : ct_tensor_zeros(ctx, R.x[G->j]->dtype, R.x[G->j]->ndim, R.x[G->j]->shape, out);
    ct_tensor_release(g[0]);
    const bool was = R.was;
    ct__ad_done(&R);
    ct_set_grad_enabled(ctx, was);
    return st;
}

ct_status ct_gradgradcheck(ct_ctx *ctx, ct_autograd_fn fn, void *user, int n_in,
                           const ct_tensor *const *inputs, const ct_gradcheck_options *opts,
                           bool *passed) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_gradcheck_options o;
    ct_status st = ct__ad_gc_opts(ctx, "gradgradcheck", opts, &o, passed);
    if (st != CT_OK) return st;
    if (!fn || n_in < 1 || n_in >= CT__AD_MAX_IN || !inputs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "gradgradcheck: a function and 1..%d inputs must be given (got %d)",
                             CT__AD_MAX_IN - 1, n_in);
    bool diff[CT__AD_MAX_IN] = {false};
    for (int i = 0; i < n_in; i++) {
        if ((st = ct__check_tensor(ctx, "gradgradcheck", "input", inputs[i])) != CT_OK) return st;
        diff[i] = inputs[i]->requires_grad;
    }
    /* the output's shape and dtype, for v (uniform in [-1, 1) from opts.seed, as torch's random
     * grad_outputs) */
    ct__ad_run R;
    ct_tensor *v = NULL, *r = NULL;
    st = ct__ad_begin(&R, ctx, "gradgradcheck", fn, user, n_in, inputs, diff, false);
    if (st == CT_OK)
        st = ct_tensor_rand(ctx, R.out->dtype, R.out->ndim, R.out->shape, o.seed, 0, &r);
    if (st == CT_OK) st = ct_mul_scalar(ctx, r, 2.0, &v);
    ct_tensor_release(r), r = NULL;
    if (st == CT_OK) st = ct_sub_scalar(ctx, v, 1.0, &r);
    ct_tensor_release(v), v = r, r = NULL;
    ct__ad_done(&R);
    if (st == CT_OK) st = ct_tensor_set_requires_grad(v, true);
    const ct_tensor *in2[CT__AD_MAX_IN];
    for (int i = 0; i < n_in; i++)
        in2[i] = inputs[i];
    in2[n_in] = v;
    *passed = st == CT_OK;
    for (int j = 0; j < n_in && st == CT_OK && *passed; j++) {
        if (!diff[j]) continue;
        ct__ad_gg G = {fn, user, n_in, j, diff};
        st = ct__ad_gradcheck(ctx, "gradgradcheck", ct__ad_gg_fn, &G, n_in + 1, in2, &o, passed);
    }
    ct_tensor_release(v);
    if (st != CT_OK) *passed = false;
    return st;
}

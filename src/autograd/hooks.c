/* Tensor gradient hooks, retain_grad and anomaly mode (torch's register_hook, retain_grad,
 * detect_anomaly), and the small autograd queries (is_leaf, grad_fn name, grad mode). The engine
 * (engine.c) calls ct__ag_run_hooks on a node's gradient buffers before the node runs and
 * ct__ag_anomaly_check after each formula. */
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"

#include <stdio.h>
#include <string.h>

void ct__ag_hooks_free(ct__ag_node *n) {
    for (int k = 0; k < CT__AG_MAX_OUT; k++) {
        ct__ag_hook *h = n->hooks[k];
        n->hooks[k] = NULL;
        while (h) {
            ct__ag_hook *next = h->next;
            ct__free(n->ctx, h);
            h = next;
        }
    }
}

/* *g is the gradient of node n's output nr: each hook may replace it (same shape and dtype, as
 * torch requires), then the retaining tensor accumulates it into its .grad. */
ct_status ct__ag_run_hooks(ct_ctx *ctx, ct__ag_node *n, int nr, ct_tensor **g) {
    ct_status st = CT_OK;
    for (ct__ag_hook *h = n->hooks[nr]; h && st == CT_OK; h = h->next) {
        ct_tensor *r = NULL;
        const int depth = ctx->ag_depth;
        st = h->fn(ctx, *g, h->user, &r);
        ctx->ag_depth = depth;
        if (st != CT_OK) {
            ct_tensor_release(r);
            return st;
        }
        if (!r) continue; /* the gradient as it was */
        if (!ct__tensor_live(r) || r->ctx != ctx) {
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "backward: hook %lld returned a tensor that is not a live tensor "
                                 "of this context",
                                 (long long)h->id);
        }
        bool same = r->ndim == (*g)->ndim;
        for (int d = 0; same && d < r->ndim; d++)
            same = r->shape[d] == (*g)->shape[d];
        if (!same || r->dtype != (*g)->dtype) {
            char a[96], b[96];
            ct__shape_str(a, sizeof a, (*g)->ndim, (*g)->shape);
            ct__shape_str(b, sizeof b, r->ndim, r->shape);
            st = ct__set_error(ctx, same ? CT_ERR_DTYPE : CT_ERR_SHAPE,
                               "backward: hook %lld has changed the %s of the gradient (was %s "
                               "%s, got %s %s)",
                               (long long)h->id, same ? "dtype" : "size",
                               ct_dtype_name((*g)->dtype), a, ct_dtype_name(r->dtype), b);
            ct_tensor_release(r);
            return st;
        }
        ct_tensor_release(*g);
        *g = r;
    }
    ct_tensor *t = n->retain[nr];
    ct__ag_meta *m = t ? t->ag : NULL;
    if (!m) return CT_OK;
    /* torch's retain_grad: a contiguous copy first, then grad = grad + g */
    ct_tensor *s = NULL;
    st = m->grad ? ct_add(ctx, m->grad, *g, &s) : ct_tensor_clone(ctx, *g, &s);
    if (st != CT_OK) return st;
    ct_tensor_release(m->grad);
    m->grad = s;
    return CT_OK;
}

ct_status ct__ag_anomaly_check(ct_ctx *ctx, const ct__ag_node *n, ct_tensor *const *gin) {
    if (ct__any_capture(ctx)) return CT_OK; /* no host reads during a capture */
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = CT_OK;
    for (int i = 0; i < n->n_in && st == CT_OK; i++) {
        const ct_tensor *g = gin[i];
        if (!g || ct_tensor_numel(g) == 0) continue;
        ct_tensor *nan = NULL, *any = NULL;
        uint8_t b = 0;
        st = ct_isnan(ctx, g, &nan);
        if (st == CT_OK) st = ct_any(ctx, nan, 0, NULL, false, &any);
        if (st == CT_OK) st = ct_tensor_to_host(any, &b, 1);
        ct_tensor_release(nan), ct_tensor_release(any);
        if (st == CT_OK && b) {
            char name[64] = "CustomBackward";
            ct__ag_node_name(n, name, sizeof name);
            st = ct__set_error(ctx, CT_ERR_STATE,
                               "Function '%s' returned nan values in its %d%s output.", name, i,
                               i % 10 == 1 && i % 100 != 11   ? "st"
                               : i % 10 == 2 && i % 100 != 12 ? "nd"
                               : i % 10 == 3 && i % 100 != 13 ? "rd"
                                                              : "th");
        }
    }
    ct_set_grad_enabled(ctx, was);
    return st;
}

/* ---- public API ---- */

bool ct_is_grad_enabled(const ct_ctx *ctx) { return ctx && !ctx->grad_off; }

bool ct_set_detect_anomaly(ct_ctx *ctx, bool enabled) {
    if (!ctx) return false;
    const bool prev = ctx->ag_anomaly;
    ctx->ag_anomaly = enabled;
    return prev;
}

bool ct_is_anomaly_enabled(const ct_ctx *ctx) { return ctx && ctx->ag_anomaly; }

bool ct_tensor_is_leaf(const ct_tensor *t) {
    if (!ct__tensor_live(t)) return false;
    const ct__ag_meta *m = t->ag;
    return !(t->requires_grad && m && m->grad_fn);
}

bool ct_tensor_grad_fn_name(const ct_tensor *t, char *buf, size_t cap) {
    if (!ct__tensor_live(t) || !buf || cap == 0) return false;
    buf[0] = '\0';
    return ct__ag_grad_fn_name(t, buf, cap);
}

ct_status ct_tensor_retain_grad(ct_tensor *t) {
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = t->ctx;
    if (!t->requires_grad)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "retain_grad: can't retain_grad on a tensor that has "
                             "requires_grad=False");
    ct__ag_meta *m = t->ag;
    if (!m || !m->grad_fn) return CT_OK; /* a leaf keeps its .grad anyway */
    ct__ag_node *n = m->grad_fn;
    if (n->retain[m->output_nr] && n->retain[m->output_nr] != t) {
        /* another handle of the same node output retains already (ct_tensor_retain'ed copies
         * share the header, so this is a second tensor of one output) */
        ct__ag_meta *o = n->retain[m->output_nr]->ag;
        if (o) o->retains = false;
    }
    n->retain[m->output_nr] = t;
    m->retains = true;
    return CT_OK;
}

bool ct_tensor_retains_grad(const ct_tensor *t) {
    if (!ct__tensor_live(t) || !t->ag) return false;
    const ct__ag_meta *m = t->ag;
    return m->retains && m->grad_fn && m->grad_fn->retain[m->output_nr] == t;
}

/* The node output t's gradient arrives at: its grad_fn's output, or its leaf accumulator. */
static ct_status ct__ag_hook_site(ct_tensor *t, const char *api, ct__ag_node **n, int *nr) {
    ct_ctx *ctx = t->ctx;
    if (!t->requires_grad)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: cannot register a hook on a tensor that doesn't require "
                             "gradient",
                             api);
    ct__ag_edge e;
    ct_status st = ct__ag_edge_of(ctx, t, &e);
    if (st != CT_OK) return st;
    if (!e.node)
        return ct__set_error(ctx, CT_ERR_STATE, "%s: the tensor has no autograd node", api);
    *n = e.node;
    *nr = e.nr;
    return CT_OK;
}

ct_status ct_tensor_register_hook(ct_tensor *t, ct_grad_hook hook, void *user, int64_t *id) {
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = t->ctx;
    if (id) *id = 0;
    if (!hook) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "register_hook: hook is NULL");
    ct__ag_node *n = NULL;
    int nr = 0;
    ct_status st = ct__ag_hook_site(t, "register_hook", &n, &nr);
    if (st != CT_OK) return st;
    ct__ag_hook *h = ct__alloc(ctx, sizeof *h, 16);
    if (!h) return ct__set_error(ctx, CT_ERR_OOM, "register_hook: out of memory");
    memset(h, 0, sizeof *h);
    h->id = ++ctx->ag_hook_id;
    h->fn = hook;
    h->user = user;
    ct__ag_hook **p = &n->hooks[nr];
    while (*p)
        p = &(*p)->next;
    *p = h;
    if (id) *id = h->id;
    return CT_OK;
}

ct_status ct_tensor_remove_hook(ct_tensor *t, int64_t id) {
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = t->ctx;
    const ct__ag_meta *m = t->requires_grad ? t->ag : NULL;
    ct__ag_node *n = m ? (m->grad_fn ? m->grad_fn : m->acc) : NULL;
    const int nr = m && m->grad_fn ? m->output_nr : 0;
    for (ct__ag_hook **p = n ? &n->hooks[nr] : NULL; p && *p; p = &(*p)->next) {
        if ((*p)->id != id) continue;
        ct__ag_hook *h = *p;
        *p = h->next;
        ct__free(ctx, h);
        return CT_OK;
    }
    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                         "remove_hook: tensor has no hook %lld (removed already, or registered "
                         "on another tensor)",
                         (long long)id);
}

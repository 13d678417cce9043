/* Tensor gradient hooks, retain_grad and anomaly mode (torch's register_hook, retain_grad,
 * detect_anomaly), and the small autograd queries (is_leaf, grad_fn name, grad mode). The engine
 * (engine.c) calls ct__ag_run_hooks on a node's gradient buffers before the node runs and
 * ct__ag_anomaly_check after each formula. */
#include "autograd/autograd_impl.h"
#include "ctorch/methods.h"
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
        if (!h->fn) continue; /* removed during this backward pass (freed with the node) */
        ct_tensor *r = NULL;
        const int depth = ctx->ag_depth;
        const bool off = ctx->grad_off;
        st = h->fn(ctx, *g, h->user, &r);
        ctx->ag_depth = depth;
        ctx->grad_off = off; /* a hook may not change the pass's grad mode */
        if (st != CT_OK) {
            if (ct__tensor_live(r)) ct_tensor_release(r);
            return st;
        }
        if (!r) continue; /* the gradient as it was */
        if (!ct__tensor_live(r) || r->ctx != ctx) {
            if (ct__tensor_live(r)) ct_tensor_release(r);
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
    int idx = -1; /* torch's output number: the differentiable inputs only */
    for (int i = 0; i < n->n_in && st == CT_OK; i++) {
        const ct__ag_tmeta *m = &n->in_meta[i];
        const bool diff = n->in_present[i] &&
                          (ct_dtype_is_floating(m->dtype) || ct_dtype_is_complex(m->dtype)) &&
                          !(m->ndim == 0 && !n->next[i].node); /* a wrapped number */
        idx += diff;
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
                               "Function '%s' returned nan values in its %dth output.", name,
                               idx < 0 ? 0 : idx);
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
    if (id) *id = 0;
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = t->ctx;
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
    h->owner = t;
    h->owner_born = t->ag_born;
    ct__ag_hook **p = &n->hooks[nr];
    while (*p)
        p = &(*p)->next;
    *p = h;
    if (id) *id = h->id;
    return CT_OK;
}

/* Remove hook id from node n's lists (true when found). */
static bool ct__ag_unhook(ct_ctx *ctx, ct__ag_node *n, int64_t id, const ct_tensor *t) {
    for (int k = 0; k < CT__AG_MAX_OUT; k++)
        for (ct__ag_hook **p = &n->hooks[k]; *p; p = &(*p)->next) {
            if ((*p)->id != id || !(*p)->fn) continue;
            if ((*p)->owner != t || (*p)->owner_born != t->ag_born) return false; /* another's */
            ct__ag_hook *h = *p;
            if (ctx->ag_running) { /* a hook may be running this list: it dies with the node */
                h->fn = NULL;
                return true;
            }
            *p = h->next;
            ct__free(ctx, h);
            return true;
        }
    return false;
}

ct_status ct_tensor_remove_hook(ct_tensor *t, int64_t id) {
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = t->ctx;
    const ct__ag_meta *m = t->requires_grad ? t->ag : NULL;
    ct__ag_node *n = m ? (m->grad_fn ? m->grad_fn : m->acc) : NULL;
    /* the hook may sit on a node of t's earlier history (t written in place since): the nodes
     * behind t's, first input first, a bounded walk */
    for (int steps = 0; n && steps < 256; steps++) {
        if (ct__ag_unhook(ctx, n, id, t)) return CT_OK;
        if (n == (m ? m->acc : NULL)) break;
        ct__ag_node *next = NULL;
        for (int i = 0; i < n->n_in && !next; i++)
            next = n->next[i].node;
        n = next;
    }
    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                         "remove_hook: tensor has no hook %lld (removed already, or registered "
                         "on another tensor)",
                         (long long)id);
}

/* ---- in-place view ops (methods.h): t takes the view v's layout and history ---- */

static bool ct__ag_is_view_node(const ct__ag_node *n) {
    return n && (n->op == CT__AG_PERMUTE || n->op == CT__AG_TRANSPOSE || n->op == CT__AG_SLICE ||
                 n->op == CT__AG_EXPAND ||
                 (n->op == CT__AG_VIEW && n->iv[0] != CT__AG_VIEW_RESHAPE_COPY));
}
/* The node of an in-place view op (t_ ...): its tensor is a view only if the one before was. */
static bool ct__ag_inplace_view_node(const ct__ag_node *n) {
    static const char *const names[] = {"TBackward1",         "TransposeBackward1",
                                        "SqueezeBackward2",   "SqueezeBackward3",
                                        "UnsqueezeBackward1", "AsStridedBackward1"};
    for (size_t i = 0; n && n->name && i < sizeof names / sizeof names[0]; i++)
        if (n->name == names[i] || !strcmp(n->name, names[i])) return true;
    return false;
}
/* Whether a tensor with history n is a view (of a tensor with history or of a leaf: *leaf) */
static bool ct__ag_history_is_view(const ct__ag_node *n, bool *leaf) {
    while (ct__ag_inplace_view_node(n))
        n = n->next[0].node;
    if (!ct__ag_is_view_node(n)) return false;
    while (ct__ag_is_view_node(n))
        n = n->next[0].node;
    if (leaf) *leaf = n && n->op == CT__AG_ACC;
    return true;
}

typedef ct_status (*ct__ag_view_fn)(ct_ctx *ctx, const ct_tensor *t, const void *arg,
                                    ct_tensor **out);

/* t = fn(t) in place: the view's shape, strides, offset and autograd metadata move into t's
 * handle (retain_grad follows); t's old metadata goes with the view's released handle. */
static ct_status ct__ag_view_inplace(ct_ctx *ctx, const char *op, const char *node, ct_tensor *t,
                                     ct__ag_view_fn fn, const void *arg, bool reshape_like) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, op, "input", t);
    if (st != CT_OK) return st;
    ct__ag_meta *m = t->ag;
    const bool has_fn = t->requires_grad && m && m->grad_fn;
    const bool grad_on = ct_is_grad_enabled(ctx);
    bool of_leaf = false;
    if (t->requires_grad && !has_fn && grad_on)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: a leaf Variable that requires grad is being used in an in-place "
                             "operation",
                             op);
    if (has_fn && grad_on && ct__ag_history_is_view(m->grad_fn, &of_leaf) && of_leaf)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: a view of a leaf Variable that requires grad is being used in an "
                             "in-place operation",
                             op);
    if (has_fn && !grad_on && !reshape_like) /* the history would no longer fit the layout */
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: the tensor has autograd history; with grad mode off its layout "
                             "cannot change (its backward would get gradients of the old shape; "
                             "torch fails there): detach it or run with grad mode on",
                             op);
    ct_tensor *v = NULL;
    const uint64_t mark = ctx->ag_seq;
    if ((st = fn(ctx, t, arg, &v)) != CT_OK) return st;
    if (v == t) { /* the op returned t itself (nothing to change) */
        ct_tensor_release(v);
        return CT_OK;
    }
    t->storage->version++; /* nodes that saved t (with its old shape) must see the change */
    if (!grad_on || !v->requires_grad) { /* no new history: the layout changes, t's autograd
                                             state (history, .grad, hooks) stays, as torch */
        t->ndim = v->ndim;
        memcpy(t->shape, v->shape, sizeof t->shape);
        memcpy(t->strides, v->strides, sizeof t->strides);
        t->offset = v->offset;
        ct_tensor_release(v);
        return CT_OK;
    }
    /* retain_grad moves to the new node (torch 1.13 leaves it on the old one for these ops) */
    ct__ag_meta *vm = v->ag;
    if (vm && vm->grad_fn && vm->grad_fn->seq > mark)
        vm->grad_fn->name = node; /* torch's in-place overload's name (TBackward1 ...) */
    const bool retains = m && m->retains && m->grad_fn && m->grad_fn->retain[m->output_nr] == t;
    if (retains) {
        m->grad_fn->retain[m->output_nr] = NULL;
        m->retains = false;
        if (vm && vm->grad_fn && v->requires_grad) {
            vm->grad_fn->retain[vm->output_nr] = t;
            vm->retains = true;
        }
    }
    if (m && vm && m->grad && !vm->grad) { /* a retained .grad stays with the handle */
        vm->grad = m->grad;
        m->grad = NULL;
    }
    if (m && m->acc) m->acc->leaf = v; /* an accumulator's weak pointer follows its metadata */
    if (vm && vm->acc) vm->acc->leaf = t;
    t->ndim = v->ndim;
    memcpy(t->shape, v->shape, sizeof t->shape);
    memcpy(t->strides, v->strides, sizeof t->strides);
    t->offset = v->offset;
    void *ag = t->ag;
    const bool rg = t->requires_grad;
    t->ag = v->ag;
    t->requires_grad = v->requires_grad;
    v->ag = ag;
    v->requires_grad = rg;
    ct_tensor_release(v);
    return CT_OK;
}

typedef struct {
    int a, b, n;
    const int64_t *size, *stride;
    int64_t offset;
} ct__ag_varg;

static ct_status ct__ag_v_t(ct_ctx *c, const ct_tensor *t, const void *a, ct_tensor **o) {
    (void)a;
    return ct_t(c, t, o);
}
static ct_status ct__ag_v_transpose(ct_ctx *c, const ct_tensor *t, const void *a, ct_tensor **o) {
    const ct__ag_varg *v = a;
    return ct_tensor_transpose(c, t, v->a, v->b, o);
}
static ct_status ct__ag_v_squeeze(ct_ctx *c, const ct_tensor *t, const void *a, ct_tensor **o) {
    return ct_tensor_squeeze(c, t, ((const ct__ag_varg *)a)->a, o);
}
static ct_status ct__ag_v_unsqueeze(ct_ctx *c, const ct_tensor *t, const void *a, ct_tensor **o) {
    return ct_tensor_unsqueeze(c, t, ((const ct__ag_varg *)a)->a, o);
}
static ct_status ct__ag_v_strided(ct_ctx *c, const ct_tensor *t, const void *a, ct_tensor **o) {
    const ct__ag_varg *v = a;
    return ct_tensor_as_strided(c, t, v->n, v->size, v->stride, v->offset, o);
}

ct_status ct_t_(ct_ctx *ctx, ct_tensor *t) {
    return ct__ag_view_inplace(ctx, "t_", "TBackward1", t, ct__ag_v_t, NULL, false);
}
ct_status ct_transpose_(ct_ctx *ctx, ct_tensor *t, int dim0, int dim1) {
    const ct__ag_varg a = {dim0, dim1, 0, NULL, NULL, 0};
    return ct__ag_view_inplace(ctx, "transpose_", "TransposeBackward1", t, ct__ag_v_transpose, &a,
                               false);
}
ct_status ct_swapaxes_(ct_ctx *ctx, ct_tensor *t, int axis0, int axis1) {
    const ct__ag_varg a = {axis0, axis1, 0, NULL, NULL, 0};
    return ct__ag_view_inplace(ctx, "swapaxes_", "TransposeBackward1", t, ct__ag_v_transpose, &a,
                               false);
}
ct_status ct_swapdims_(ct_ctx *ctx, ct_tensor *t, int dim0, int dim1) {
    const ct__ag_varg a = {dim0, dim1, 0, NULL, NULL, 0};
    return ct__ag_view_inplace(ctx, "swapdims_", "TransposeBackward1", t, ct__ag_v_transpose, &a,
                               false);
}
ct_status ct_squeeze_(ct_ctx *ctx, ct_tensor *t, int dim) {
    const ct__ag_varg a = {dim, 0, 0, NULL, NULL, 0};
    return ct__ag_view_inplace(ctx, "squeeze_",
                               dim == CT_ALL_DIMS ? "SqueezeBackward2" : "SqueezeBackward3", t,
                               ct__ag_v_squeeze, &a, true);
}
ct_status ct_unsqueeze_(ct_ctx *ctx, ct_tensor *t, int dim) {
    const ct__ag_varg a = {dim, 0, 0, NULL, NULL, 0};
    return ct__ag_view_inplace(ctx, "unsqueeze_", "UnsqueezeBackward1", t, ct__ag_v_unsqueeze, &a,
                               true);
}
ct_status ct_as_strided_(ct_ctx *ctx, ct_tensor *t, int ndim, const int64_t *size,
                         const int64_t *stride, int64_t storage_offset) {
    const ct__ag_varg a = {0, 0, ndim, size, stride, storage_offset};
    return ct__ag_view_inplace(ctx, "as_strided_", "AsStridedBackward1", t, ct__ag_v_strided, &a,
                               false);
}

ct_status ct_detach_(ct_ctx *ctx, ct_tensor *t) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "detach_", "input", t);
    if (st != CT_OK) return st;
    ct__ag_meta *m = t->ag;
    if (!m) return CT_OK;
    if (t->requires_grad && ct__ag_history_is_view(m->grad_fn, NULL))
        return ct__set_error(ctx, CT_ERR_STATE,
                             "detach_: Can't detach views in-place. Use detach() instead.");
    if (m->retains && m->grad_fn && m->grad_fn->retain[m->output_nr] == t)
        m->grad_fn->retain[m->output_nr] = NULL;
    m->retains = false;
    if (m->acc) { /* a leaf that required grad: it no longer does (its .grad stays, as torch) */
        m->acc->leaf = NULL;
        ct__ag_node_release(m->acc);
        m->acc = NULL;
    }
    ct__ag_node *n = m->grad_fn;
    m->grad_fn = NULL;
    m->output_nr = 0;
    t->requires_grad = false;
    ct__ag_node_release(n);
    return CT_OK;
}

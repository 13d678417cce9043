/* The autograd engine: tape recording (the hook op front ends call), per-tensor metadata, and the
 * backward pass (topological order over the reachable nodes, gradient buffers per node output,
 * accumulation into leaves or capture for ct_autograd_grad). Formulas live in grad_*.c. */
#include "autograd/autograd_impl.h"
#include "core/ctx_impl.h"
#include "dispatch/dispatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ct__ag_formula ct__ag_acc_formula = {"AccumulateGrad", NULL, 0, 0};

/* CT__AG_CUSTOM: hand the output gradients to the higher layer's backward. */
static void ct__ag_custom_backward(ct__ag_call *c) {
    ct__ag_node *n = c->n;
    ct_tensor *gin[CT__AG_MAX_IN] = {NULL};
    ct_status st = n->custom->backward(c->ctx, n->custom_user, c->g, c->need, gin);
    for (int i = 0; i < n->n_in; i++) {
        if (st == CT_OK && gin[i]) ct__ag_set(c, i, gin[i]);
        ct_tensor_release(gin[i]);
    }
    if (st != CT_OK && c->st == CT_OK) c->st = st;
}
static const ct__ag_formula ct__ag_custom_formula = {"CustomBackward", ct__ag_custom_backward, 0,
                                                     0};

static const ct__ag_formula ct__ag_userfn_formula = {"CustomFunctionBackward",
                                                     ct__ad_userfn_backward, 0, 0x7u};

static const ct__ag_formula *ct__ag_formula_of(int op) {
    if (op == CT__AG_ACC) return &ct__ag_acc_formula;
    if (op == CT__AG_CUSTOM) return &ct__ag_custom_formula;
    if (op == CT__AG_USERFN) return &ct__ag_userfn_formula;
    const ct__ag_formula *f = ct__ag_formula_elementwise(op);
    if (!f) f = ct__ag_formula_reduce(op);
    if (!f) f = ct__ag_formula_nn(op);
    if (!f) f = ct__ag_formula_views(op);
    if (!f) f = ct__ag_formula_shape(op);
    if (!f) f = ct__ag_formula_linalg(op);
    return f;
}

bool ct__ag_grad_fn_name(const ct_tensor *t, char *buf, size_t cap) {
    const ct__ag_meta *m = t ? t->ag : NULL;
    const ct__ag_node *n = m ? m->grad_fn : NULL;
    if (!n || !t->requires_grad) return false;
    return ct__ag_node_name(n, buf, cap);
}

bool ct__ag_node_name(const ct__ag_node *n, char *buf, size_t cap) {
    if (!n || n->op == CT__AG_ACC) return false;
    if (n->name) { /* torch's name, tagged at the record or by a composite (ct__ag_named) */
        snprintf(buf, cap, "%s", n->name);
        return true;
    }
    const ct__ag_formula *f = ct__ag_formula_of(n->op);
    const char *name = ct__ag_is_custom(n->op) && n->custom ? n->custom->name : f->name;
    int overload = 0; /* torch's generated node names carry the overload's number */
    int da = n->in_meta[0].ndim, db = n->in_meta[1].ndim;
    switch (n->op) {
    case CT__AG_SUM:
    case CT__AG_MEAN: overload = n->iv[1] > 0; break; /* sum(dim=...): SumBackward1 */
    case CT__AG_PROD: overload = n->iv[0] != CT_ALL_DIMS; break;
    case CT__AG_CLAMP: overload = 1; break;
    case CT__AG_REMAINDER:
    case CT__AG_FMOD: overload = n->n_in == 2; break; /* tensor divisor: ...Backward1 */
    case CT__AG_LERP: overload = 1; break;            /* tensor weight */
    case CT__AG_POW_T: overload = 1; break;           /* tensor exponent */
    case CT__AG_NDTR: overload = 1; break;            /* torch's (1 + erf(x / sqrt 2)) * 0.5 */
    case CT__AG_NOT_IMPLEMENTED: snprintf(buf, cap, "%s", name); return true;
    case CT__AG_VIEW: {
        static const char *const view_names[CT__AG_VIEW_KINDS] = {
            [CT__AG_VIEW_VIEW] = "ViewBackward",
            [CT__AG_VIEW_RESHAPE] = "ReshapeAliasBackward",
            [CT__AG_VIEW_RESHAPE_COPY] = "UnsafeViewBackward",
            [CT__AG_VIEW_SQUEEZE_DIM] = "SqueezeBackward",
            [CT__AG_VIEW_SQUEEZE_ALL] = "SqueezeBackward",
            [CT__AG_VIEW_UNSQUEEZE] = "UnsqueezeBackward"};
        if (n->n_iv > 0 && n->iv[0] >= 0 && n->iv[0] < CT__AG_VIEW_KINDS)
            name = view_names[n->iv[0]];
        overload = n->n_iv > 0 && n->iv[0] == CT__AG_VIEW_SQUEEZE_DIM; /* SqueezeBackward1 */
        break;
    }
    case CT__AG_TRIL: name = n->iv[1] ? "TriuBackward" : name; break;
    case CT__AG_LINALG_INV: name = "LinalgInvExBackward"; break;
    case CT__AG_LINALG_SOLVE: name = "LinalgSolveExBackward"; break;
    case CT__AG_LINALG_CHOLESKY: name = "LinalgCholeskyExBackward"; break;
    case CT__AG_MATMUL: /* torch.matmul's node depends on the ranks; bmm records iv[0] = 1 */
        if (n->n_iv > 0 && n->iv[0] == 1)
            name = "BmmBackward";
        else if (da == 2 && db == 1)
            name = "MvBackward";
        else if (da == 1 && db == 1)
            name = "DotBackward";
        else if (da == 1 && db == 2)
            name = "SqueezeBackward", overload = 3;
        else if (da >= 3 || (da == 1 && db >= 3))
            name = "UnsafeViewBackward";
        else if (da == 2 && db >= 3) /* torch expands the matrix over the batch: a clone */
            name = "CloneBackward";
        break;
    default: break;
    }
    snprintf(buf, cap, "%s%d", name, overload);
    return true;
}

/* ---- nodes and metadata ---- */

static void ct__ag_free_saved(ct__ag_node *n) {
    for (int i = 0; i < CT__AG_MAX_IN; i++) {
        ct_tensor_release(n->saved_in[i]);
        n->saved_in[i] = NULL;
    }
    for (int i = 0; i < CT__AG_MAX_OUT; i++) {
        ct_tensor_release(n->saved_out[i]);
        n->saved_out[i] = NULL;
    }
}

void ct__ag_node_release(ct__ag_node *n) {
    if (!n || --n->refcount > 0) return;
    ct__ag_free_saved(n);
    ct__ag_hooks_free(n);
    if (n->custom && n->custom->free_user) n->custom->free_user(n->custom_user);
    for (int i = 0; i < n->n_in; i++)
        ct__ag_node_release(n->next[i].node);
    ct__free(n->ctx, n);
}

static ct__ag_node *ct__ag_node_new(ct_ctx *ctx, int op) {
    ct__ag_node *n = ct__alloc(ctx, sizeof *n, 16);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->refcount = 1;
    n->ctx = ctx;
    n->op = op;
    n->seq = ++ctx->ag_seq;
    return n;
}

static void ct__ag_tmeta_of(ct__ag_tmeta *m, const ct_tensor *t) {
    m->ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        m->shape[i] = t->shape[i];
    m->dtype = t->dtype;
}

static void ct__ag_free_meta(ct_tensor *t) {
    ct__ag_meta *m = t->ag;
    t->ag = NULL;
    t->requires_grad = false;
    if (!m) return;
    ct_ctx *ctx = t->ctx;
    if (m->acc) {
        m->acc->leaf = NULL;
        ct__ag_node_release(m->acc);
    }
    if (m->retains && m->grad_fn && m->grad_fn->retain[m->output_nr] == t)
        m->grad_fn->retain[m->output_nr] = NULL;
    ct__ag_node_release(m->grad_fn);
    ct_tensor_release(m->grad);
    ct__free(ctx, m);
}

static ct__ag_meta *ct__ag_meta_get(ct_tensor *t) {
    if (t->ag) return t->ag;
    ct__ag_meta *m = ct__alloc(t->ctx, sizeof *m, 16);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    t->ag = m;
    return m;
}

ct_status ct__ag_edge_of(ct_ctx *ctx, const ct_tensor *tc, ct__ag_edge *e) {
    ct_tensor *t = (ct_tensor *)tc;
    ct__ag_meta *m = t->ag;
    e->node = NULL;
    e->nr = 0;
    if (!m || !t->requires_grad) return CT_OK;
    if (m->grad_fn) {
        e->node = m->grad_fn;
        e->nr = m->output_nr;
        return CT_OK;
    }
    if (!m->acc) {
        ct__ag_node *a = ct__ag_node_new(ctx, CT__AG_ACC);
        if (!a) return ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory for a leaf node");
        a->n_out = 1;
        ct__ag_tmeta_of(&a->out_meta[0], t);
        a->leaf = t;
        m->acc = a;
    }
    e->node = m->acc;
    return CT_OK;
}

/* A custom record's data when nothing takes it. */
static void ct__ag_drop_custom(const ct__ag_rec *r) {
    if (ct__ag_is_custom(r->op) && r->custom && r->custom->free_user)
        r->custom->free_user(r->custom_user);
}

/* Formulas that stay right for complex tensors under torch's convention: linear in the gradient
 * with real coefficients, or data movement. Every other built-in formula would silently drop a
 * conjugation, so recording one over complex tensors is refused (the complex ops record their
 * own nodes, src/ops/complex.c). */
static bool ct__ag_complex_safe(int op) {
    switch (op) {
    case CT__AG_ADD:
    case CT__AG_SUB:
    case CT__AG_ADD_S:
    case CT__AG_SUB_S:
    case CT__AG_MUL_S:
    case CT__AG_DIV_S:
    case CT__AG_NEG:
    case CT__AG_WHERE:
    case CT__AG_CAST:
    case CT__AG_SUM:
    case CT__AG_MEAN:
    case CT__AG_VIEW:
    case CT__AG_PERMUTE:
    case CT__AG_TRANSPOSE:
    case CT__AG_SLICE:
    case CT__AG_EXPAND:
    case CT__AG_IDENTITY:
    case CT__AG_SLICE_BACKWARD:
    case CT__AG_FLIP:
    case CT__AG_ROLL:
    case CT__AG_TRIL:
    case CT__AG_GATHER:
    case CT__AG_INDEX_SELECT:
    case CT__AG_CUMSUM:
    case CT__AG_LINALG_INV: /* formulas with mH and conj(det) (grad_linalg.c) */
    case CT__AG_LINALG_DET:
    case CT__AG_LINALG_SLOGDET:
    case CT__AG_LINALG_SOLVE:
    case CT__AG_LINALG_CHOLESKY:
    case CT__AG_LINALG_EIGH:
    case CT__AG_LINALG_SVD: /* torch's complex form, with its imaginary diagonal term */
    case CT__AG_LINALG_QR:
    case CT__AG_LINALG_EIG:
    case CT__AG_LINALG_SOLVE_TRIANGULAR: /* these four with mH (grad_linalg.c) */
    case CT__AG_LINALG_LU_FACTOR:
    case CT__AG_CHOLESKY_SOLVE:
    case CT__AG_LINALG_LSTSQ:
    case CT__AG_UNFOLD:
    case CT__AG_FOLD:
    case CT__AG_CAT:
    case CT__AG_REPEAT:
    case CT__AG_ZERO:
    case CT__AG_NOT_IMPLEMENTED:
    case CT__AG_CUSTOM:
    case CT__AG_USERFN: return true;
    default: return false;
    }
}

static ct_status ct__ag_record(ct_ctx *ctx, const ct__ag_rec *r) {
    const ct__ag_formula *f = ct__ag_formula_of(r->op);
    if (!ct__ag_complex_safe(r->op)) {
        bool cx = false;
        for (int k = 0; k < r->n_out; k++)
            cx |= r->out[k] && ct_dtype_is_complex(r->out[k]->dtype);
        for (int i = 0; i < r->n_in; i++)
            cx |= r->in[i] && ct_dtype_is_complex(r->in[i]->dtype);
        if (cx) {
            for (int k = 0; k < r->n_out; k++) { /* as a failed record: the outputs go */
                ct_tensor_release(r->out[k]);
            }
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "autograd: %s has no backward formula for complex tensors yet "
                                 "(call it with grad mode off or on detached inputs)",
                                 f ? f->name : "this op");
        }
    }
    bool float_out = false;
    for (int k = 0; k < r->n_out; k++) {
        float_out |= r->out[k] && (ct_dtype_is_floating(r->out[k]->dtype) ||
                                   ct_dtype_is_complex(r->out[k]->dtype));
        for (int i = 0; i < r->n_in; i++)
            if ((const ct_tensor *)r->out[k] == r->in[i]) { /* contiguous(t) is t */
                ct__ag_drop_custom(r);
                return CT_OK;
            }
    }
    if (!f || !float_out || (ct__ag_is_custom(r->op) && !r->custom)) {
        ct__ag_drop_custom(r);
        return CT_OK; /* integer / bool results never require grad */
    }
    ct__ag_node *n = ct__ag_node_new(ctx, r->op);
    ct_status st = CT_OK;
    if (!n) {
        ct__ag_drop_custom(r);
        st = ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory recording %s", f->name);
        goto fail;
    }
    if (ct__ag_is_custom(r->op)) {
        n->custom = r->custom;
        n->custom_user = r->custom_user;
    }
    const bool custom_saves = ct__ag_is_custom(r->op) && r->custom->saves && r->custom_user;
    n->name = r->name;
    n->n_in = r->n_in;
    n->n_out = r->n_out;
    n->has_saved = (f->save_in & CT__AG_SAVES_SCALAR) != 0 || custom_saves;
    memcpy(n->sc, r->sc, sizeof n->sc);
    n->n_iv = r->n_iv;
    memcpy(n->iv, r->iv, sizeof n->iv);
    for (int i = 0; i < r->n_in; i++) {
        const ct_tensor *t = r->in[i];
        if (!t) continue;
        n->in_present[i] = true;
        ct__ag_tmeta_of(&n->in_meta[i], t);
        if (t->requires_grad) {
            if ((st = ct__ag_edge_of(ctx, t, &n->next[i])) != CT_OK) goto fail;
            if (n->next[i].node) n->next[i].node->refcount++;
        }
        if (f->save_in >> i & 1u) {
            n->saved_in[i] = ct_tensor_retain((ct_tensor *)t);
            n->saved_in_ver[i] = t->storage->version;
            n->has_saved = true;
        }
    }
    for (int k = 0; k < r->n_out; k++) {
        ct_tensor *o = r->out[k];
        ct__ag_tmeta_of(&n->out_meta[k], o);
        if (f->save_out >> k & 1u) {
            st = ct__tensor_view_of(ctx, o, o->ndim, o->shape, o->strides, o->offset,
                                    &n->saved_out[k]);
            if (st != CT_OK) goto fail;
            n->saved_out_ver[k] = o->storage->version;
            n->has_saved = true;
        }
    }
    for (int k = 0; k < r->n_out; k++) {
        ct_tensor *o = r->out[k];
        if (!ct_dtype_is_floating(o->dtype) && !ct_dtype_is_complex(o->dtype)) continue;
        ct__ag_meta *m = ct__ag_meta_get(o);
        if (!m) {
            st = ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory recording %s", f->name);
            goto fail;
        }
        ct__ag_node_release(m->grad_fn);
        m->grad_fn = n;
        m->output_nr = k;
        n->refcount++;
        o->requires_grad = true;
    }
    ct__ag_node_release(n); /* the outputs hold it now */
    return CT_OK;
fail:
    ct__ag_node_release(n);
    for (int k = 0; k < r->n_out; k++)
        ct_tensor_release(r->out[k]);
    return st;
}

/* copy_'s node (torch's CopyBackwards): zeros for the overwritten value, the gradient summed to
 * the source's shape and cast to its dtype for the source. */
typedef struct {
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_dtype dtype;
} ct__ag_copy_user;

static ct_status ct__ag_copy_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                      const bool *need, ct_tensor **gin) {
    const ct__ag_copy_user *u = user;
    const ct_tensor *g = gout[0];
    ct_status st = CT_OK;
    if (need[0]) st = ct_zeros_like(ctx, g, &gin[0]);
    if (st != CT_OK || !u || !need[1]) return st; /* fill_'s node has no source */
    /* sum over the dims the source was broadcast along (leading ones, then size-1 ones) */
    const int lead = g->ndim - u->ndim;
    int dl[CT_MAX_DIMS], db[CT_MAX_DIMS], nl = 0, nb = 0;
    for (int d = 0; d < lead; d++)
        dl[nl++] = d;
    for (int d = 0; d < u->ndim; d++)
        if (u->shape[d] == 1 && g->shape[lead + d] != 1) db[nb++] = d;
    ct_tensor *a = NULL, *b = NULL;
    st = nl ? ct_sum(ctx, g, nl, dl, false, &a) : (a = ct_tensor_retain((ct_tensor *)g), CT_OK);
    if (st == CT_OK) st = nb ? ct_sum(ctx, a, nb, db, true, &b) : (b = ct_tensor_retain(a), CT_OK);
    if (st == CT_OK)
        st = b->dtype == u->dtype ? (gin[1] = ct_tensor_retain(b), CT_OK)
                                  : ct_cast(ctx, b, u->dtype, &gin[1]);
    ct_tensor_release(a), ct_tensor_release(b);
    return st;
}
static const ct__ag_custom CT__AG_COPY = {"CopyBackwards", ct__ag_copy_backward, free, false};

/* t's history as copy's too (the same node and output), for keep_old's copy of dst. */
static ct_status ct__ag_share_history(ct_ctx *ctx, const ct_tensor *t, ct_tensor *copy) {
    const ct__ag_meta *m = t->ag;
    if (!t->requires_grad || !m || !m->grad_fn) return CT_OK;
    ct__ag_meta *c = ct__ag_meta_get(copy);
    if (!c) return ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory");
    m->grad_fn->refcount++;
    c->grad_fn = m->grad_fn;
    c->output_nr = m->output_nr;
    copy->requires_grad = true;
    return CT_OK;
}

/* The checks of an in-place write into dst under autograd: torch's refusals of a leaf that
 * requires grad and of a view of one (dst has history through it), and ctorch's of a write that
 * changes another live tensor's values (its memory overlaps dst's) behind the history that tensor
 * carries: one with history (torch rewrites it as CopySlices), or any one when dst had no history
 * (torch would give it one). A leaf or a tensor without history (a detached alias, a node's saved
 * output) has no history to go stale: it may see the new values, as in torch; a node that saved
 * them reports the write at backward (the version check). */
/* True when t's history is a chain of view nodes down to a leaf's accumulator: t is a
 * (differentiable) view of a leaf, which torch refuses to write in place. A detached alias that
 * took history later is not. */
static bool ct__ag_view_of_leaf(const ct_tensor *t) {
    const ct__ag_meta *m = t->ag;
    const ct__ag_node *n = t->requires_grad && m ? m->grad_fn : NULL;
    while (n && (n->op == CT__AG_PERMUTE || n->op == CT__AG_TRANSPOSE || n->op == CT__AG_SLICE ||
                 n->op == CT__AG_EXPAND ||
                 (n->op == CT__AG_VIEW && n->iv[0] != CT__AG_VIEW_RESHAPE_COPY)))
        n = n->next[0].node;
    return n && n->op == CT__AG_ACC;
}

static ct_status ct__ag_inplace_check(ct_ctx *ctx, const char *op, const ct_tensor *dst) {
    int64_t lo = 0, hi = 0;
    const bool empty = ct_tensor_numel(dst) == 0;
    if (!empty) ct__byte_extent(dst, &lo, &hi);
    const ct__ag_meta *dm = dst->ag;
    const bool dst_hist = dst->requires_grad && dm && dm->grad_fn;
    if (dst->requires_grad && !dst_hist)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: a leaf Variable that requires grad is being used in an in-place "
                             "operation; wrap it in ct_set_grad_enabled(ctx, false)",
                             op);
    if (ct__ag_view_of_leaf(dst))
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: a view of a leaf Variable that requires grad is being used in "
                             "an in-place operation",
                             op);
    for (const ct_tensor *t = ctx->live_head; t && !empty; t = t->live_next) {
        if (t == dst || t->storage != dst->storage || ct_tensor_numel(t) == 0) continue;
        const ct__ag_meta *m = t->ag;
        const bool hist = t->requires_grad && m && m->grad_fn;
        if (!hist && (dst_hist || t->requires_grad)) continue; /* a leaf, or a plain alias */
        int64_t tlo, thi;
        ct__byte_extent(t, &tlo, &thi);
        if (tlo < hi && lo < thi)
            return ct__set_error(
                ctx, CT_ERR_UNSUPPORTED,
                "%s: another tensor (%s %s) shares this memory and %s; writing in place would "
                "change its values behind its history (torch rewrites it as CopySlices, ctorch "
                "does not): clone the destination first, or write with grad mode off",
                op, ct_dtype_name(t->dtype), CT__SHAPE_STR(t),
                hist ? "has autograd history" : "the destination has no history to share");
    }
    return CT_OK;
}

/* Nodes reachable from n (made after dst was) that saved dst itself (y.mul_(y), y.add_(y * w))
 * would hold dst while dst's new history holds them: each keeps a detached alias instead, at the
 * version it saved (its backward then reports the write, as torch's does). */
static ct_status ct__ag_unsave(ct_ctx *ctx, ct__ag_node *n, ct_tensor *dst) {
    if (!n || n->seq <= dst->ag_born || n->seen) return CT_OK; /* seen: a running pass's */
    size_t cap = 16, top = 0, nseen = 0;
    ct__ag_node **stack = ct__alloc(ctx, cap * sizeof *stack, 16);
    ct__ag_node **seen = ct__alloc(ctx, cap * sizeof *seen, 16);
    size_t seen_cap = cap;
    ct_status st =
        stack && seen ? CT_OK : ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory");
    if (st == CT_OK) {
        stack[top++] = n;
        n->seen = true;
        seen[nseen++] = n;
    }
    while (st == CT_OK && top > 0) {
        ct__ag_node *v = stack[--top];
        for (int i = 0; i < v->n_in && st == CT_OK; i++) {
            if (v->saved_in[i] == dst) {
                ct_tensor *a = NULL;
                st = ct__tensor_view_of(ctx, dst, dst->ndim, dst->shape, dst->strides, dst->offset,
                                        &a);
                if (st != CT_OK) break;
                v->saved_in[i] = a;
                ct_tensor_release(dst);
            }
            ct__ag_node *w = v->next[i].node;
            if (!w || w->seen || w->seq <= dst->ag_born) continue;
            if (top == cap || nseen == seen_cap) { /* grow both */
                size_t nc = 2 * (cap > seen_cap ? cap : seen_cap);
                ct__ag_node **s2 = ct__alloc(ctx, nc * sizeof *s2, 16);
                ct__ag_node **v2 = ct__alloc(ctx, nc * sizeof *v2, 16);
                if (!s2 || !v2) {
                    ct__free(ctx, s2), ct__free(ctx, v2);
                    st = ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory");
                    break;
                }
                memcpy(s2, stack, top * sizeof *s2);
                memcpy(v2, seen, nseen * sizeof *v2);
                ct__free(ctx, stack), ct__free(ctx, seen);
                stack = s2, seen = v2, cap = seen_cap = nc;
            }
            w->seen = true;
            seen[nseen++] = w;
            stack[top++] = w;
        }
    }
    for (size_t i = 0; i < nseen; i++)
        seen[i]->seen = false; /* engine scratch: clear again */
    ct__free(ctx, stack), ct__free(ctx, seen);
    return st;
}

/* r = src broadcast to dst's shape in dst's dtype, with grad mode off, and copy_'s node over
 * (dst's old value, src). */
static ct_status ct__ag_copy_node(ct_ctx *ctx, ct_tensor *dst, const ct_tensor *src,
                                  ct_tensor **r) {
    ct__ag_copy_user *u = calloc(1, sizeof *u);
    if (!u) return ct__set_error(ctx, CT_ERR_OOM, "copy_: out of memory");
    u->ndim = src->ndim;
    memcpy(u->shape, src->shape, sizeof(int64_t) * (size_t)src->ndim);
    u->dtype = src->dtype;
    bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *e = NULL;
    ct_status st = ct_tensor_expand(ctx, src, dst->ndim, dst->shape, &e);
    if (st == CT_OK) st = ct_cast(ctx, e, dst->dtype, r);
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(e);
    if (st != CT_OK) {
        free(u);
        return st;
    }
    const ct_tensor *ins[2] = {dst, src};
    return ct__ag_record_custom_n(ctx, &CT__AG_COPY, u, 2, ins, r);
}

static ct_status ct__ag_inplace_impl(ct_ctx *ctx, const ct__ag_inplace_w *w) {
    ct_tensor *dst = w->dst;
    ct_status st = ct__ag_inplace_check(ctx, w->op, dst);
    if (st != CT_OK) return st;
    ct_tensor *self = NULL, *r = NULL;
    if (!w->fn) {
        st = ct__ag_copy_node(ctx, dst, w->src, &r);
    } else {
        if (w->keep_old) {
            /* the op saves self: it gets dst's value now (and dst's history), not dst */
            bool was = ct_set_grad_enabled(ctx, false);
            st = ct_tensor_clone(ctx, dst, &self);
            ct_set_grad_enabled(ctx, was);
            if (st == CT_OK) st = ct__ag_share_history(ctx, dst, self);
        } else {
            self = ct_tensor_retain(dst);
        }
        if (st == CT_OK) st = w->fn(ctx, self, w->arg, &r);
        if (st == CT_OK && r->dtype != dst->dtype) { /* torch casts into self (f32 += f64) */
            ct_tensor *c = NULL;
            st = ct_cast(ctx, r, dst->dtype, &c);
            ct_tensor_release(r);
            r = c;
        }
        if (st == CT_OK && !r->requires_grad) { /* fill_: no source; zeros to the old value */
            const ct_tensor *ins[1] = {self};
            st = ct__ag_record_custom_n(ctx, &CT__AG_COPY, NULL, 1, ins, &r);
        }
        ct_tensor_release(self);
    }
    /* everything that can fail before the write, so a failure leaves dst as it was */
    const ct__ag_meta *rm = st == CT_OK ? r->ag : NULL;
    if (st == CT_OK && !(rm && rm->grad_fn))
        st = ct__set_error(ctx, CT_ERR_STATE, "%s: internal error: no node recorded", w->op);
    ct__ag_meta *m = st == CT_OK ? ct__ag_meta_get(dst) : NULL;
    if (st == CT_OK && !m) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", w->op);
    if (st == CT_OK) st = ct__ag_unsave(ctx, rm->grad_fn, dst);
    if (st == CT_OK) {
        bool was = ct_set_grad_enabled(ctx, false);
        /* bumps dst's version: nodes that saved dst see it */
        st = w->write ? w->write(ctx, dst, r, w->arg) : ct_tensor_copy_(ctx, dst, r);
        ct_set_grad_enabled(ctx, was);
    }
    if (st == CT_OK) {
        /* dst's history is now r's node (made by this call), under torch's name */
        ct__ag_node *n = rm->grad_fn;
        n->refcount++;
        if (w->name) n->name = w->name; /* NULL: the op's own node name */
        if (m->retains) {               /* retain_grad follows dst to its new history, as torch */
            if (m->grad_fn && m->grad_fn->retain[m->output_nr] == dst)
                m->grad_fn->retain[m->output_nr] = NULL;
            n->retain[rm->output_nr] = dst;
        }
        ct__ag_node_release(m->grad_fn);
        m->grad_fn = n;
        m->output_nr = rm->output_nr;
        dst->requires_grad = true;
    }
    ct_tensor_release(r);
    return st;
}

/* A composite's result prints torch's node name (ct__ag_named): only a node the composite made. */
static void ct__ag_name_impl(ct_tensor *t, uint64_t mark, const char *name) {
    const ct__ag_meta *m = t->ag;
    ct__ag_node *n = m ? m->grad_fn : NULL;
    if (n && n->seq > mark) n->name = name;
}

static const ct__ag_hooks ct__ag_hooks_table = {ct__ag_record, ct__ag_free_meta,
                                                ct__ag_inplace_impl, ct__ag_name_impl};

/* ---- public API: flags and metadata ---- */

ct_status ct_tensor_set_requires_grad(ct_tensor *t, bool requires_grad) {
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = t->ctx;
    ct__ag_meta *m = t->ag;
    if (m && m->grad_fn) {
        if (requires_grad) return CT_OK;
        return ct__set_error(ctx, CT_ERR_STATE,
                             "set_requires_grad: you can only change requires_grad flags of leaf "
                             "variables (this tensor is the result of %s)",
                             ct__ag_formula_of(m->grad_fn->op)->name);
    }
    if (requires_grad && !ct_dtype_is_floating(t->dtype) && !ct_dtype_is_complex(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "set_requires_grad: only tensors of floating point and complex dtype "
                             "can require gradients, got %s",
                             ct_dtype_name(t->dtype));
    if (requires_grad) {
        if (!ct__ag_meta_get(t))
            return ct__set_error(ctx, CT_ERR_OOM, "set_requires_grad: out of memory");
        ctx->ag = &ct__ag_hooks_table;
    }
    t->requires_grad = requires_grad;
    return CT_OK;
}

bool ct_tensor_requires_grad(const ct_tensor *t) { return ct__tensor_live(t) && t->requires_grad; }

ct_tensor *ct_tensor_grad(const ct_tensor *t) {
    if (!ct__tensor_live(t) || !t->ag) return NULL;
    return ((ct__ag_meta *)t->ag)->grad;
}

ct_status ct_tensor_zero_grad(ct_tensor *t) {
    if (!ct__tensor_live(t)) return CT_ERR_INVALID_ARG;
    ct__ag_meta *m = t->ag;
    if (m && m->grad) {
        ct_tensor *g = m->grad;
        m->grad = NULL;
        ct_tensor_release(g);
    }
    return CT_OK;
}

bool ct_set_grad_enabled(ct_ctx *ctx, bool enabled) {
    if (!ctx) return false;
    bool prev = !ctx->grad_off;
    ctx->grad_off = !enabled;
    return prev;
}

ct_status ct_tensor_detach(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "detach", "input", t);
    if (st != CT_OK) return st;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "detach: out is NULL");
    return ct__tensor_view_of(ctx, t, t->ndim, t->shape, t->strides, t->offset, out);
}

/* ---- the backward pass ---- */

/* An outer pass's state of a leaf's accumulator that a nested pass (a checkpoint's) also uses. */
typedef struct ct__ag_saved_state {
    ct__ag_node *n;
    int deps;
    bool seen, needed, target, ran;
    uint64_t pass;
    ct_tensor *buf;
} ct__ag_saved_state;

typedef struct ct__ag_run {
    ct_ctx *ctx;
    ct__ag_node **nodes; /* every reachable node, then reordered topologically */
    int n_nodes, cap;
    bool create_graph, accumulate;
    uint64_t id;
    ct__ag_saved_state *saved; /* nested pass: outer accumulators set aside */
    int n_saved, cap_saved;
} ct__ag_run;

/* Claim n for this pass: false (nothing to do) when it is already this pass's; a node an outer
 * pass uses is refused unless it is a leaf's accumulator, whose outer state is set aside. */
static ct_status ct__ag_claim(ct__ag_run *R, ct__ag_node *n, bool *fresh) {
    *fresh = false;
    if (n->seen && n->pass == R->id) return CT_OK;
    if (n->seen) {
        if (n->op != CT__AG_ACC)
            return ct__set_error(R->ctx, CT_ERR_STATE,
                                 "checkpoint: the recomputed function reaches a tensor whose "
                                 "history the outer backward pass is running through; pass that "
                                 "tensor as an input of the checkpoint");
        if (R->n_saved == R->cap_saved) {
            int nc = R->cap_saved ? 2 * R->cap_saved : 8;
            ct__ag_saved_state *p = ct__alloc(R->ctx, (size_t)nc * sizeof *p, 16);
            if (!p) return ct__set_error(R->ctx, CT_ERR_OOM, "backward: out of memory");
            if (R->n_saved) memcpy(p, R->saved, (size_t)R->n_saved * sizeof *p);
            ct__free(R->ctx, R->saved);
            R->saved = p, R->cap_saved = nc;
        }
        R->saved[R->n_saved++] = (ct__ag_saved_state){n,         n->deps, n->seen, n->needed,
                                                      n->target, n->ran,  n->pass, n->buf[0]};
        n->deps = 0;
        n->needed = n->target = n->ran = false;
        n->buf[0] = NULL;
    }
    n->seen = true;
    n->pass = R->id;
    *fresh = true;
    return CT_OK;
}

static ct_status ct__ag_push(ct__ag_run *R, ct__ag_node *n) {
    if (R->n_nodes == R->cap) {
        int nc = R->cap ? R->cap * 2 : 64;
        ct__ag_node **p = ct__alloc(R->ctx, (size_t)nc * sizeof *p, 16);
        if (!p) return ct__set_error(R->ctx, CT_ERR_OOM, "backward: out of memory");
        if (R->n_nodes) memcpy(p, R->nodes, (size_t)R->n_nodes * sizeof *p);
        ct__free(R->ctx, R->nodes);
        R->nodes = p;
        R->cap = nc;
    }
    R->nodes[R->n_nodes++] = n;
    n->refcount++; /* held for the pass: hooks and custom backwards may drop the graph's refs */
    return CT_OK;
}

/* Add g (a new reference, consumed) into n's buffer for output nr. */
static ct_status ct__ag_buf_add(ct__ag_run *R, ct__ag_node *n, int nr, ct_tensor *g) {
    if (!n->buf[nr]) {
        n->buf[nr] = g;
        return CT_OK;
    }
    ct_tensor *s = NULL;
    ct_status st = ct_add(R->ctx, n->buf[nr], g, &s);
    ct_tensor_release(g);
    if (st != CT_OK) return st;
    ct_tensor_release(n->buf[nr]);
    n->buf[nr] = s;
    return CT_OK;
}

/* leaf.grad += g (g consumed). A first gradient is copied unless it is exclusively ours, so .grad
 * never aliases a caller's tensor; later ones are added out of place. */
static ct_status ct__ag_accumulate(ct__ag_run *R, ct_tensor *leaf, ct_tensor *g) {
    ct__ag_meta *m = leaf->ag;
    ct_status st = CT_OK;
    if (g->dtype != leaf->dtype) {
        ct_tensor *c = NULL;
        st = ct_cast(R->ctx, g, leaf->dtype, &c);
        ct_tensor_release(g);
        if (st != CT_OK) return st;
        g = c;
    }
    if (!m->grad) {
        const bool plain = !g->requires_grad && ct_tensor_is_contiguous(g);
        bool own = plain && g->refcount == 1 && g->storage->refcount == 1;
        /* under capture the graph also holds every tensor an op used: the gradient is still
         * ours when nothing outside the graph refers to its memory */
        ct__capture *cap = own || !plain ? NULL : ct__any_capture(R->ctx);
        if (cap && cap->sole_owner) own = cap->sole_owner(cap, g);
        if (own || R->create_graph) {
            m->grad = g;
            return CT_OK;
        }
        st = ct_tensor_clone(R->ctx, g, &m->grad);
        ct_tensor_release(g);
        return st;
    }
    ct_tensor *s = NULL;
    st = ct_add(R->ctx, m->grad, g, &s);
    ct_tensor_release(g);
    if (st != CT_OK) return st;
    ct_tensor_release(m->grad);
    m->grad = s;
    return CT_OK;
}

static ct_status ct__ag_stale(ct_ctx *ctx, const ct__ag_node *n, const ct_tensor *t, bool is_out,
                              int idx, int64_t want) {
    return ct__ag_stale_error(ctx, t, is_out ? "output" : "input", idx,
                              ct__ag_formula_of(n->op)->name, want);
}

/* Run node n's formula on its buffers; hands the input gradients to the next nodes. */
static ct_status ct__ag_exec(ct__ag_run *R, ct__ag_node *n) {
    ct_ctx *ctx = R->ctx;
    const ct__ag_formula *f = ct__ag_formula_of(n->op);
    if (n->freed && n->has_saved) {
        char name[64] = "";
        if (!ct__ag_node_name(n, name, sizeof name)) snprintf(name, sizeof name, "%s", f->name);
        return ct__set_error(
            ctx, CT_ERR_STATE,
            "backward: trying to backward through the graph a second time (or directly access "
            "saved tensors after they have already been freed) in %s; pass retain_graph=true to "
            "the first backward if you need to backward through the graph a second time",
            name);
    }
    ct__ag_call c;
    memset(&c, 0, sizeof c);
    c.ctx = ctx;
    c.n = n;
    ct_tensor *wrapped[CT__AG_MAX_OUT] = {NULL};
    ct_status st = CT_OK;
    for (int i = 0; i < n->n_in; i++) {
        c.need[i] = n->next[i].node && n->next[i].node->needed;
        if (n->saved_in[i]) {
            if (n->saved_in[i]->storage->version != n->saved_in_ver[i])
                return ct__ag_stale(ctx, n, n->saved_in[i], false, i, n->saved_in_ver[i]);
            c.in[i] = n->saved_in[i];
        }
    }
    for (int k = 0; k < n->n_out; k++) {
        ct_tensor *o = n->saved_out[k];
        if (!o) continue;
        if (o->storage->version != n->saved_out_ver[k])
            return ct__ag_stale(ctx, n, o, true, k, n->saved_out_ver[k]);
        c.out[k] = o;
        if (R->create_graph) {
            /* the output with its history (this node), so formulas using it differentiate */
            ct__ag_meta *m = NULL;
            st = ct__tensor_view_of(ctx, o, o->ndim, o->shape, o->strides, o->offset, &wrapped[k]);
            if (st == CT_OK && !(m = ct__ag_meta_get(wrapped[k])))
                st = ct__set_error(ctx, CT_ERR_OOM, "backward: out of memory");
            if (st != CT_OK) goto done;
            m->grad_fn = n;
            m->output_nr = k;
            n->refcount++;
            wrapped[k]->requires_grad = true;
            c.out[k] = wrapped[k];
        }
    }
    for (int k = 0; k < n->n_out; k++) {
        c.has_g[k] = n->buf[k] != NULL;
        if (n->buf[k]) {
            c.g[k] = n->buf[k];
        } else {
            c.g[k] = ct__ag_zeros(&c, &n->out_meta[k]);
        }
    }
    if (c.st == CT_OK) f->backward(&c);
    st = c.st;
    if (st == CT_OK && ctx->ag_anomaly) st = ct__ag_anomaly_check(ctx, n, c.gin);
    for (int i = 0; i < n->n_in && st == CT_OK; i++) {
        if (!c.gin[i] || !c.need[i]) continue;
        ct_tensor *g = c.gin[i];
        c.gin[i] = NULL;
        st = ct__ag_buf_add(R, n->next[i].node, n->next[i].nr, g);
    }
done:
    for (int i = 0; i < CT__AG_MAX_IN; i++)
        ct_tensor_release(c.gin[i]);
    for (int i = 0; i < c.n_tmp; i++)
        ct_tensor_release(c.tmp[i]);
    for (int k = 0; k < CT__AG_MAX_OUT; k++)
        ct_tensor_release(wrapped[k]);
    return st;
}

/* Shared by ct_backward (grads == NULL: accumulate into leaves) and ct_autograd_grad. */
ct_status ct__ag_run_backward(ct_ctx *ctx, const char *api, int n_roots,
                              const ct_tensor *const *roots, const ct_tensor *const *groots,
                              int n_inputs, const ct_tensor *const *inputs, bool retain,
                              bool create, bool allow_unused, ct_tensor **grads) {
    ct__ag_run R = {ctx, NULL, 0, 0, create, grads == NULL, 0, NULL, 0, 0};
    ct_tensor *seed[16] = {NULL};
    ct__ag_edge redge[16], iedge[64];
    ct_status st = CT_OK;
    if (n_roots < 1 || n_roots > 16 || n_inputs < 0 || n_inputs > 64)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: %d outputs and %d inputs (1..16 outputs, up to 64 inputs)", api,
                             n_roots, n_inputs);
    if (ctx->ag_depth != 0)
        return ct__set_error(ctx, CT_ERR_STATE, "%s: called from inside an op", api);
    const bool nest_ok = ctx->ag_nest_ok;
    ctx->ag_nest_ok = false; /* for this pass only: hooks inside it may not nest again */
    if (ctx->ag_running && !nest_ok)
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: called from inside a backward pass (a gradient hook or a custom "
                             "function's backward); nested backward passes are not supported",
                             api);
    for (int r = 0; r < n_roots; r++) {
        const ct_tensor *t = roots[r];
        if ((st = ct__check_tensor(ctx, api, "output", t)) != CT_OK) goto out;
        if (!t->requires_grad) {
            st = ct__set_error(ctx, CT_ERR_STATE,
                               "%s: element %d of tensors does not require grad and does not have "
                               "a grad_fn",
                               api, r);
            goto out;
        }
        const ct_tensor *gr = groots ? groots[r] : NULL;
        if (gr) {
            if ((st = ct__check_tensor(ctx, api, "grad", gr)) != CT_OK) goto out;
            bool same = gr->ndim == t->ndim;
            for (int i = 0; same && i < t->ndim; i++)
                same = gr->shape[i] == t->shape[i];
            if (!same) {
                char b[96];
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "%s: mismatch in shape: grad_output[%d] has a shape of %s and "
                                   "output[%d] has a shape of %s",
                                   api, r, CT__SHAPE_STR(gr), r,
                                   ct__shape_str(b, sizeof b, t->ndim, t->shape));
                goto out;
            }
            st = gr->dtype == t->dtype ? (seed[r] = ct_tensor_retain((ct_tensor *)gr), CT_OK)
                                       : ct_cast(ctx, gr, t->dtype, &seed[r]);
        } else {
            if (ct_tensor_numel(t) != 1) {
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "%s: grad can be implicitly created only for outputs with one "
                                   "element (output %d has shape %s); pass grad_root",
                                   api, r, CT__SHAPE_STR(t));
                goto out;
            }
            st = ct_tensor_full(ctx, t->dtype, t->ndim, t->shape, 1.0, &seed[r]);
        }
        if (st != CT_OK) goto out;
        if ((st = ct__ag_edge_of(ctx, t, &redge[r])) != CT_OK) goto out;
    }
    for (int i = 0; i < n_inputs; i++) {
        const ct_tensor *t = inputs[i];
        if ((st = ct__check_tensor(ctx, api, "input", t)) != CT_OK) goto out;
        if (!t->requires_grad) {
            st = ct__set_error(ctx, CT_ERR_STATE,
                               "%s: one of the differentiated tensors (input %d) does not require "
                               "grad",
                               api, i);
            goto out;
        }
        if ((st = ct__ag_edge_of(ctx, t, &iedge[i])) != CT_OK) goto out;
    }
    /* reachable nodes and dependency counts */
    R.id = ++ctx->ag_pass_seq;
    for (int r = 0; r < n_roots; r++) {
        bool fresh = false;
        if ((st = ct__ag_claim(&R, redge[r].node, &fresh)) != CT_OK) goto out;
        if (fresh && (st = ct__ag_push(&R, redge[r].node)) != CT_OK) {
            redge[r].node->seen = false; /* not in R.nodes: unclaim (a set-aside one is restored) */
            goto out;
        }
    }
    for (int k = 0; k < R.n_nodes; k++) {
        ct__ag_node *n = R.nodes[k];
        for (int i = 0; i < n->n_in; i++) {
            ct__ag_node *m = n->next[i].node;
            bool fresh = false;
            if (!m) continue;
            if ((st = ct__ag_claim(&R, m, &fresh)) != CT_OK) goto out;
            m->deps++;
            if (fresh && (st = ct__ag_push(&R, m)) != CT_OK) {
                m->seen = false, m->deps = 0; /* as above */
                goto out;
            }
        }
    }
    for (int i = 0; i < n_inputs; i++) {
        const bool seen = iedge[i].node->seen && iedge[i].node->pass == R.id;
        if (!seen && allow_unused) {
            iedge[i].node = NULL; /* its gradient stays NULL */
            continue;
        }
        if (!seen) {
            st = ct__set_error(ctx, CT_ERR_STATE,
                               "%s: one of the differentiated tensors (input %d) appears to not "
                               "have been used in the graph",
                               api, i);
            goto out;
        }
        iedge[i].node->target = true;
    }
    /* topological order (Kahn): a node runs after every node that feeds it a gradient */
    {
        int head = 0, tail = 0;
        ct__ag_node **order = ct__alloc(ctx, (size_t)R.n_nodes * sizeof *order + 1, 16);
        if (!order) {
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", api);
            goto out;
        }
        for (int k = 0; k < R.n_nodes; k++)
            if (R.nodes[k]->deps == 0) order[tail++] = R.nodes[k];
        while (head < tail) {
            ct__ag_node *n = order[head++];
            for (int i = 0; i < n->n_in; i++) {
                ct__ag_node *m = n->next[i].node;
                if (m && --m->deps == 0) order[tail++] = m;
            }
        }
        CT_ASSERT(tail == R.n_nodes);
        ct__free(ctx, R.nodes);
        R.nodes = order;
        R.cap = R.n_nodes;
    }
    /* which nodes lead to something wanted */
    for (int k = R.n_nodes - 1; k >= 0; k--) {
        ct__ag_node *n = R.nodes[k];
        bool need = R.accumulate ? n->op == CT__AG_ACC : n->target;
        for (int i = 0; i < n->n_in && !need; i++)
            need = n->next[i].node && n->next[i].node->needed;
        n->needed = need;
    }
    for (int r = 0; r < n_roots; r++) {
        ct_tensor *g = seed[r];
        seed[r] = NULL;
        if ((st = ct__ag_buf_add(&R, redge[r].node, redge[r].nr, g)) != CT_OK) goto out;
    }
    {
        bool prev_off = ctx->grad_off;
        ctx->grad_off = !create;
        if (ctx->ag_running == 0) ctx->ag_outer_accumulate = R.accumulate;
        ctx->ag_running++;
        for (int k = 0; k < R.n_nodes && st == CT_OK; k++) {
            ct__ag_node *n = R.nodes[k];
            bool any = false;
            for (int j = 0; j < n->n_out; j++)
                any |= n->buf[j] != NULL;
            if (!n->needed || !any) continue;
            if (n->target) /* captured before the hooks, as torch */
                for (int i = 0; i < n_inputs; i++)
                    if (iedge[i].node == n && n->buf[iedge[i].nr] && !grads[i])
                        grads[i] = ct_tensor_retain(n->buf[iedge[i].nr]);
            bool next_needed = false;
            for (int i = 0; i < n->n_in; i++)
                next_needed |= n->next[i].node && n->next[i].node->needed;
            /* the hooks of a node that runs (an accumulator only in backward) */
            const bool runs = n->op == CT__AG_ACC ? R.accumulate && n->leaf : next_needed;
            for (int j = 0; runs && j < n->n_out && st == CT_OK; j++)
                if (n->buf[j] && (n->hooks[j] || n->retain[j]))
                    st = ct__ag_run_hooks(ctx, n, j, &n->buf[j]);
            if (st != CT_OK) break;
            if (n->op == CT__AG_ACC) {
                if (R.accumulate && n->leaf) {
                    ct_tensor *g = n->buf[0];
                    n->buf[0] = NULL;
                    st = ct__ag_accumulate(&R, n->leaf, g);
                }
            } else {
                if (next_needed) {
                    st = ct__ag_exec(&R, n);
                    n->ran = true;
                }
            }
            for (int j = 0; j < n->n_out; j++) {
                ct_tensor_release(n->buf[j]);
                n->buf[j] = NULL;
            }
        }
        ctx->grad_off = prev_off;
        ctx->ag_running--;
    }
    if (st == CT_OK && !retain && !create)
        for (int k = 0; k < R.n_nodes; k++)
            if (R.nodes[k]->ran) {
                ct__ag_free_saved(R.nodes[k]);
                R.nodes[k]->freed = true;
            }
out:
    for (int k = 0; k < R.n_nodes; k++) {
        ct__ag_node *n = R.nodes[k];
        for (int j = 0; j < n->n_out; j++) {
            ct_tensor_release(n->buf[j]);
            n->buf[j] = NULL;
        }
        n->deps = 0;
        n->seen = n->needed = n->target = n->ran = false;
    }
    for (int i = 0; i < R.n_saved; i++) { /* the outer pass's accumulators, as they were */
        ct__ag_saved_state *v = &R.saved[i];
        v->n->deps = v->deps, v->n->seen = v->seen, v->n->needed = v->needed;
        v->n->target = v->target, v->n->ran = v->ran, v->n->pass = v->pass, v->n->buf[0] = v->buf;
    }
    ct__free(ctx, R.saved);
    for (int k = 0; k < R.n_nodes; k++) /* the pass's references (may free the graph) */
        ct__ag_node_release(R.nodes[k]);
    ct__free(ctx, R.nodes);
    for (int r = 0; r < 16; r++)
        ct_tensor_release(seed[r]);
    /* inputs the gradient never reached get zeros (they are in the graph) */
    for (int i = 0; grads && st == CT_OK && i < n_inputs; i++)
        if (!grads[i] && iedge[i].node)
            st = ct_tensor_zeros(ctx, inputs[i]->dtype, inputs[i]->ndim, inputs[i]->shape,
                                 &grads[i]);
    if (st != CT_OK && grads)
        for (int i = 0; i < n_inputs; i++) {
            ct_tensor_release(grads[i]);
            grads[i] = NULL;
        }
    return st;
}

ct_status ct_backward(ct_ctx *ctx, const ct_tensor *root, const ct_tensor *grad_root,
                      bool retain_graph) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *roots[1] = {root}, *gr[1] = {grad_root};
    return ct__ag_run_backward(ctx, "backward", 1, roots, gr, 0, NULL, retain_graph, false, false,
                               NULL);
}

ct_status ct_autograd_grad(ct_ctx *ctx, int n_outputs, const ct_tensor *const *outputs,
                           const ct_tensor *const *grad_outputs, int n_inputs,
                           const ct_tensor *const *inputs, bool retain_graph, bool create_graph,
                           ct_tensor **grads) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!outputs || !inputs || !grads || n_inputs < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "autograd_grad: outputs, inputs and grads must be given (n_inputs "
                             "%d)",
                             n_inputs);
    for (int i = 0; i < n_inputs && i < 64; i++)
        grads[i] = NULL;
    return ct__ag_run_backward(ctx, "autograd_grad", n_outputs, outputs, grad_outputs, n_inputs,
                               inputs, retain_graph || create_graph, create_graph, false, grads);
}

ct_tensor *ct__ag_slice_backward(ct__ag_call *c, const ct_tensor *g, const ct__ag_tmeta *m, int dim,
                                 int64_t start, int64_t end, int64_t step) {
    if (c->st != CT_OK || !g) return NULL;
    ct_ctx *ctx = c->ctx;
    ct_tensor *z = ct__ag_zeros(c, m);
    if (!z) return NULL;
    bool prev = ctx->grad_off;
    ctx->grad_off = true;
    ct_tensor *v = ct__ag_slice(c, z, dim, start, end, step);
    if (v) {
        ct_status st = ct_tensor_copy_(ctx, v, g);
        if (st != CT_OK && c->st == CT_OK) c->st = st;
    }
    ctx->grad_off = prev;
    if (c->st != CT_OK) return NULL;
    if (!prev && g->requires_grad) {
        /* z = slice_backward(g): record it so create_graph differentiates through */
        ct__ag_rec r;
        memset(&r, 0, sizeof r);
        r.op = CT__AG_SLICE_BACKWARD;
        r.n_in = 1;
        r.in[0] = g;
        r.n_out = 1;
        r.out[0] = ct_tensor_retain(z); /* record releases it on failure */
        r.n_iv = 4;
        r.iv[0] = dim;
        r.iv[1] = start;
        r.iv[2] = end;
        r.iv[3] = step;
        ct_status st = ct__ag_record(ctx, &r);
        if (st != CT_OK) {
            c->st = st;
            return NULL;
        }
        ct_tensor_release(z);
    }
    return z;
}

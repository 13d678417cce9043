/* Autograd recording for op front ends (ops/ and tensor/ views): wrap an op's body so that the
 * outermost call records one tape node when an input requires grad (core/autograd_hook.h). With
 * autograd unused on the context the cost is the one branch in ct__ag_enter. */
#ifndef CTORCH_TENSOR_AG_FRONT_H
#define CTORCH_TENSOR_AG_FRONT_H

#include "core/autograd_hook.h"
#include "tensor/tensor_impl.h"

#include <string.h>

/* After an op ran inside ct__ag_enter: record r (outputs r->out / *out) when this is the outermost
 * call, grad mode is on, the op succeeded and an input requires grad. A failed record releases
 * the outputs (the hook does) and returns its status. */
static inline ct_status ct__ag_after(ct_ctx *ctx, ct_status st, ct__ag_rec *r, ct_tensor **out) {
    if (!ct__ag_leave(ctx) || st != CT_OK) return st;
    bool any = false;
    for (int i = 0; i < r->n_in; i++)
        any |= r->in[i] && r->in[i]->requires_grad;
    if (!any || r->op == CT__AG_NONE) return st;
    if (r->n_out == 0) {
        r->n_out = 1;
        r->out[0] = *out;
    }
    st = ctx->ag->record(ctx, r);
    if (st != CT_OK && out) *out = NULL;
    return st;
}

/* Body of a recording front end: CALL is the op (a ct_status expression writing *OUT), SETUP
 * fills `r_` (op, n_in, in[], sc[], iv[]). */
#define CT__AG_WRAP(ctx, OUT, CALL, SETUP)                                                         \
    do {                                                                                           \
        if (!ct__ag_enter(ctx)) return CALL;                                                       \
        ct_status st_ = CALL;                                                                      \
        ct__ag_rec r_;                                                                             \
        memset(&r_, 0, sizeof r_);                                                                 \
        if (st_ == CT_OK) {                                                                        \
            SETUP;                                                                                 \
        }                                                                                          \
        return ct__ag_after(ctx, st_, &r_, OUT);                                                   \
    } while (0)
#define CT__AG_IN1(OP, A) (r_.op = (OP), r_.n_in = 1, r_.in[0] = (A))
#define CT__AG_IN2(OP, A, B) (r_.op = (OP), r_.n_in = 2, r_.in[0] = (A), r_.in[1] = (B))
#define CT__AG_IN3(OP, A, B, C)                                                                    \
    (r_.op = (OP), r_.n_in = 3, r_.in[0] = (A), r_.in[1] = (B), r_.in[2] = (C))

/* Composite ops (a front end that calls recording ops, where torch records one node) print
 * torch's node name: take mark = ct__ag_mark(ctx) before the body, then ct__ag_named(ctx, st, out,
 * mark, "VarBackward0") names *out's grad_fn when the body recorded it (a node made after mark; a
 * result that is an input, or was made in no-grad mode, keeps its own). Printing only: the
 * backward is the recorded ops'. Returns st. */
static inline uint64_t ct__ag_mark(const ct_ctx *ctx) { return ctx && ctx->ag ? ctx->ag_seq : 0; }
static inline ct_status ct__ag_named(ct_ctx *ctx, ct_status st, ct_tensor *const *out,
                                     uint64_t mark, const char *name) {
    ct_tensor *t = st == CT_OK && out ? *out : NULL;
    if (t && ctx && ctx->ag && t->requires_grad) ctx->ag->name(t, mark, name);
    return st;
}

/* torch's error for a saved tensor t written in place since it was saved at version `want`: t is
 * `what` ("input", "output") number idx of node `node` ("MulBackward0"). */
static inline ct_status ct__ag_stale_error(ct_ctx *ctx, const ct_tensor *t, const char *what,
                                           int idx, const char *node, int64_t want) {
    return ct__set_error(ctx, CT_ERR_STATE,
                         "one of the variables needed for gradient computation has been modified "
                         "by an inplace operation: [%s %s], which is %s %d of %s, is at version "
                         "%lld; expected version %lld instead",
                         ct_dtype_name(t->dtype), CT__SHAPE_STR(t), what, idx, node,
                         (long long)t->storage->version, (long long)want);
}
/* CT_OK when a custom backward's saved tensor t is still at the version it was saved at. */
static inline ct_status ct__ag_saved_ok(ct_ctx *ctx, const ct_tensor *t, const char *what, int idx,
                                        const char *node, int64_t ver) {
    return !t || t->storage->version == ver ? CT_OK
                                            : ct__ag_stale_error(ctx, t, what, idx, node, ver);
}

/* True when an in-place write into dst from src (may be NULL) goes through autograd: grad mode
 * on, an outermost call, a floating dst, and dst or src requires grad. The caller then validates as usual and
 * hands the write to ct__ag_inplace. */
static inline bool ct__ag_inplace_wanted(const ct_ctx *ctx, const ct_tensor *dst,
                                         const ct_tensor *src) {
    if (__builtin_expect(ctx == NULL || ctx->ag == NULL, 1)) return false;
    if (ctx->grad_off || ctx->ag_depth > 0) return false;
    /* an integer or bool destination never has history (torch: a plain write) */
    if (dst && !ct_dtype_is_floating(dst->dtype)) return false;
    return (dst && dst->requires_grad) || (src && src->requires_grad);
}
/* The in-place write w under autograd (torch's rules: a leaf that requires grad, or a view of
 * one, is refused; ctorch also refuses where another tensor sharing dst's memory would need its
 * history rewritten, torch's CopySlices). */
static inline ct_status ct__ag_inplace(ct_ctx *ctx, const ct__ag_inplace_w *w) {
    return ctx->ag->inplace(ctx, w);
}

/* CT_ERR_UNSUPPORTED when grad mode is on, this is an outermost call and one of the n inputs (NULL
 * entries skipped) requires grad: for the ops that have no backward formula yet, so that they never
 * hand back a result silently cut off from the graph. */
static inline ct_status ct__ag_no_backward(ct_ctx *ctx, const char *op, int n,
                                           const ct_tensor *const *ts) {
    if (__builtin_expect(ctx == NULL || ctx->ag == NULL, 1)) return CT_OK;
    if (ctx->grad_off || ctx->ag_depth > 0) return CT_OK;
    for (int i = 0; i < n; i++)
        if (ts[i] && ts[i]->magic == CT__TENSOR_MAGIC && ts[i]->requires_grad)
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "%s has no backward formula yet and input %d requires grad: call "
                                 "it with grad mode off (ct_set_grad_enabled(ctx, false)) or on "
                                 "ct_tensor_detach'ed inputs (docs/autograd.md)",
                                 op, i);
    return CT_OK;
}

/* True when this call would record a node: grad mode on, an outermost call, and one of the n
 * inputs (NULL entries skipped) requires grad. */
static inline bool ct__ag_wants(ct_ctx *ctx, int n, const ct_tensor *const *ts) {
    if (__builtin_expect(ctx == NULL || ctx->ag == NULL, 1)) return false;
    if (ctx->grad_off || ctx->ag_depth > 0) return false;
    for (int i = 0; i < n; i++)
        if (ts[i] && ts[i]->magic == CT__TENSOR_MAGIC && ts[i]->requires_grad) return true;
    return false;
}

#endif

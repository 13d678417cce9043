/* Differentiable building blocks made of public ops (their backward comes from the ops'):
 * linear, mse_loss, nll_loss, cross_entropy. */
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Apply the reduction to per-element losses l (consumed). */
ct_status ct__ag_reduce_loss(ct_ctx *ctx, ct_tensor *l, ct_reduction red, ct_tensor **out) {
    ct_status st = CT_OK;
    if (red == CT_REDUCTION_NONE) {
        *out = l;
        return CT_OK;
    }
    st = red == CT_REDUCTION_MEAN ? ct_mean(ctx, l, 0, NULL, false, out)
                                  : ct_sum(ctx, l, 0, NULL, false, out);
    ct_tensor_release(l);
    return st;
}

ct_status ct__ag_check_red(ct_ctx *ctx, const char *op, ct_reduction red) {
    if (red != CT_REDUCTION_NONE && red != CT_REDUCTION_MEAN && red != CT_REDUCTION_SUM)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: unknown reduction %d", op, (int)red);
    return CT_OK;
}

static ct_status ct__linear_body(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                                 const ct_tensor *b, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {x, w};
    ct_status st = ct__check_args(ctx, "linear", 2, ins, out);
    if (st != CT_OK) return st;
    if (b && (st = ct__check_tensor(ctx, "linear", "bias", b)) != CT_OK) return st;
    /* torch 1.13: with a bias, a 2-d or contiguous 3-d input goes through addmm (a 2-d weight,
     * the bias of the product's dtype); otherwise matmul(x, w^T) then output.add_(bias) (a 1-d
     * weight works, the bias is cast into the output's dtype) */
    const bool addmm = b && (x->ndim == 2 || (x->ndim == 3 && ct_tensor_is_contiguous(x)));
    if (w->ndim != 2 && !(w->ndim == 1 && !addmm))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             addmm ? "linear: weight must be 2-d (out, in) with a bias and a 2-d "
                                     "or contiguous 3-d input, got %s"
                                   : "linear: weight must be 1-d (in) or 2-d (out, in), got %s",
                             CT__SHAPE_STR(w));
    const int64_t in_f = w->shape[w->ndim - 1];
    if (x->ndim >= 1 && x->shape[x->ndim - 1] != in_f)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "linear: input %s has %lld features but weight %s takes %lld",
                             CT__SHAPE_STR(x), (long long)x->shape[x->ndim - 1],
                             ct__shape_str((char[96]){0}, 96, w->ndim, w->shape), (long long)in_f);
    ct_tensor *wt = NULL, *y = NULL, *r = NULL;
    st = w->ndim == 2 ? ct_tensor_transpose(ctx, w, 0, 1, &wt)
                      : (wt = ct_tensor_retain((ct_tensor *)w), CT_OK);
    if (st == CT_OK) st = ct_matmul(ctx, x, wt, &y);
    ct_tensor_release(wt);
    if (st != CT_OK) return st;
    if (!b) {
        *out = y;
        return CT_OK;
    }
    /* the bias broadcasts to the output without growing it (addmm's expand, add_'s in place); a
     * 3-d input's addmm sees the output as (B T, out), so the bias must expand to that */
    const bool flat3 = addmm && x->ndim == 3;
    const int64_t flat[2] = {flat3 ? y->shape[0] * y->shape[1] : 0, flat3 ? y->shape[2] : 0};
    const int ynd = flat3 ? 2 : y->ndim;
    const int64_t *ysh = flat3 ? flat : y->shape;
    bool fits = b->ndim <= ynd;
    for (int i = 1; fits && i <= b->ndim; i++)
        fits = b->shape[b->ndim - i] == 1 || b->shape[b->ndim - i] == ysh[ynd - i];
    if (!fits)
        st = ct__set_error(ctx, CT_ERR_SHAPE, "linear: bias %s does not broadcast to the output %s",
                           CT__SHAPE_STR(b), ct__shape_str((char[96]){0}, 96, y->ndim, y->shape));
    else if (addmm && b->dtype != y->dtype)
        st = ct__set_error(ctx, CT_ERR_DTYPE, "linear: bias %s and input %s must have one dtype",
                           ct_dtype_name(b->dtype), ct_dtype_name(y->dtype));
    else if (ct_dtype_is_floating(b->dtype) && !ct_dtype_is_floating(y->dtype))
        st = ct__set_error(ctx, CT_ERR_DTYPE,
                           "linear: result type %s can't be cast to the output's %s",
                           ct_dtype_name(b->dtype), ct_dtype_name(y->dtype));
    if (st == CT_OK) st = ct_add(ctx, y, b, &r);
    if (st == CT_OK && r->dtype != y->dtype) { /* add_ computes in the promoted type, then casts */
        ct_tensor *c = NULL;
        st = ct_cast(ctx, r, y->dtype, &c);
        ct_tensor_release(r);
        r = c;
    }
    ct_tensor_release(y);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* The result prints torch 1.13's node: with a bias, addmm's for a 2-d input, the view of addmm's
 * (B T, out) product for a contiguous 3-d one, add_'s otherwise; without, matmul's (its own). */
ct_status ct_linear(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                    ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "linear", ct__linear_body(ctx, x, w, b, out));
    if (st != CT_OK || !b) return st;
    const bool addmm = x->ndim == 2 || (x->ndim == 3 && ct_tensor_is_contiguous(x));
    return ct__ag_named(ctx, st, out, mark,
                        !addmm         ? "AddBackward0"
                        : x->ndim == 2 ? "AddmmBackward0"
                                       : "ViewBackward0");
}

static ct_status ct__mse_loss_body(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                   ct_reduction reduction, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {input, target};
    ct_status st = ct__check_args(ctx, "mse_loss", 2, ins, out);
    if (st != CT_OK) return st;
    if ((st = ct__ag_check_red(ctx, "mse_loss", reduction)) != CT_OK) return st;
    if (!ct_dtype_is_floating(input->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "mse_loss: floating input required, got %s",
                             ct_dtype_name(input->dtype));
    ct_tensor *d = NULL, *sq = NULL;
    if ((st = ct_sub(ctx, input, target, &d)) != CT_OK) return st;
    st = ct_mul(ctx, d, d, &sq);
    ct_tensor_release(d);
    if (st != CT_OK) return st;
    return ct__ag_reduce_loss(ctx, sq, reduction, out);
}

ct_status ct_mse_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                      ct_reduction reduction, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's one node */
    return ct__ag_named(
        ctx,
        ct__error_within(ctx, "mse_loss", ct__mse_loss_body(ctx, input, target, reduction, out)),
        out, mark, "MseLossBackward0");
}

/* The class-index losses (nll_loss, cross_entropy), torch.nn.functional's in full: input (C),
 * (N, C) or (N, C, d1, ..., dk), class dim 0 or 1; target int64 / int32 class ids of the input's
 * shape without the class dim; weight (C) or NULL; targets equal to ignore_index contribute 0 and
 * weigh nothing in the mean. Made of ops (gather, index_select, masked_fill, sums), so their
 * backward is the ops'. */
typedef struct ct__nll {
    const char *op;
    int cdim;        /* class dim */
    int64_t C;       /* classes */
    ct_tensor *keep; /* bool, target's shape: not ignored */
    ct_tensor *wt;   /* weight of each target (0 where ignored), input's dtype */
    ct_tensor *safe; /* int64 targets with the ignored ones at class 0 */
} ct__nll;

static void ct__nll_free(ct__nll *n) {
    ct_tensor_release(n->keep), ct_tensor_release(n->wt), ct_tensor_release(n->safe);
}

static ct_status ct__nll_args(ct_ctx *ctx, const char *op, const ct_tensor *in,
                              const ct_tensor *target, const ct_tensor *weight,
                              ct_reduction reduction, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {in, target};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    if (weight && (st = ct__check_tensor(ctx, op, "weight", weight)) != CT_OK) return st;
    if ((st = ct__ag_check_red(ctx, op, reduction)) != CT_OK) return st;
    if (!ct_dtype_is_floating(in->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(in->dtype));
    if (in->ndim < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected 1 or more dimensions (got 0)", op);
    const int64_t C = in->shape[in->ndim == 1 ? 0 : 1];
    if (weight && (weight->ndim != 1 || weight->shape[0] != C))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: weight tensor should be defined either for all %lld classes or "
                             "no classes but got weight tensor of shape: %s",
                             op, (long long)C, CT__SHAPE_STR(weight));
    if (weight && weight->dtype != in->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: weight must be %s (the input's dtype), got %s",
                             op, ct_dtype_name(in->dtype), ct_dtype_name(weight->dtype));
    if (weight && weight->requires_grad && ct__ag_wants(ctx, 1, &weight))
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s is not differentiable with respect to argument 'weight' (as "
                             "torch): pass it detached",
                             op);
    return CT_OK;
}

/* The class-index checks and the per-target tensors of n. */
static ct_status ct__nll_prep(ct_ctx *ctx, const char *op, const ct_tensor *in,
                              const ct_tensor *target, const ct_tensor *weight,
                              int64_t ignore_index, ct__nll *n) {
    memset(n, 0, sizeof *n);
    n->op = op;
    n->cdim = in->ndim == 1 ? 0 : 1;
    n->C = in->shape[n->cdim];
    if (target->dtype != CT_INT64 && target->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: target must be int64 class ids (or class probabilities of the "
                             "input's shape), got %s %s",
                             op, ct_dtype_name(target->dtype), CT__SHAPE_STR(target));
    if (in->ndim >= 2 && (target->ndim < 1 || target->shape[0] != in->shape[0]))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected input batch_size (%lld) to match target batch_size "
                             "(%lld)",
                             op, (long long)in->shape[0],
                             (long long)(target->ndim ? target->shape[0] : -1));
    bool fits = target->ndim == (in->ndim == 1 ? 0 : in->ndim - 1);
    for (int d = 0; fits && d < target->ndim; d++)
        fits = target->shape[d] == in->shape[d < 1 ? 0 : d + 1];
    if (!fits) {
        int64_t want[CT_MAX_DIMS];
        int nw = 0;
        for (int d = 0; d < in->ndim; d++)
            if (d != n->cdim) want[nw++] = in->shape[d];
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected target size %s, got %s", op,
                             ct__shape_str((char[96]){0}, 96, nw, want), CT__SHAPE_STR(target));
    }
    const int64_t T = ct_tensor_numel(target);
    ct_status st = CT_OK;
    if (T > 0 && !ct__any_capture(ctx)) { /* the class ids (as torch); not while capturing, when
                                           * the data may not exist yet */
        size_t isz = target->dtype == CT_INT64 ? 8 : 4;
        ct_tensor *tc = NULL;
        char *v = ct__alloc(ctx, (size_t)T * isz, 16);
        if (!v) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        st = ct_tensor_contiguous(ctx, target, &tc);
        if (st == CT_OK) st = ct_tensor_to_host(tc, v, (size_t)T * isz);
        ct_tensor_release(tc);
        for (int64_t i = 0; st == CT_OK && i < T; i++) {
            int64_t k = isz == 8 ? ((int64_t *)(void *)v)[i] : ((int32_t *)(void *)v)[i];
            if (k != ignore_index && (k < 0 || k >= n->C))
                st = ct__set_error(ctx, CT_ERR_INDEX, "%s: target %lld is out of bounds [0, %lld)",
                                   op, (long long)k, (long long)n->C);
        }
        ct__free(ctx, v);
        if (st != CT_OK) return st;
    }
    /* constants (no history): the mask, the safe ids and each target's weight */
    bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *t64 = NULL, *ign = NULL, *flat = NULL, *wsel = NULL, *wr = NULL;
    st = target->dtype == CT_INT64 ? (t64 = ct_tensor_retain((ct_tensor *)target), CT_OK)
                                   : ct_cast(ctx, target, CT_INT64, &t64);
    if (st == CT_OK) st = ct_eq_scalar(ctx, t64, (double)ignore_index, &ign);
    if (st == CT_OK) st = ct_logical_not(ctx, ign, &n->keep);
    if (st == CT_OK) st = ct_masked_fill(ctx, t64, ign, 0, &n->safe);
    if (st == CT_OK && weight) {
        st = ct_tensor_reshape(ctx, n->safe, 1, (int64_t[]){T}, &flat);
        if (st == CT_OK) st = ct_index_select(ctx, weight, 0, flat, &wsel);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, wsel, target->ndim, target->shape, &wr);
        if (st == CT_OK) st = ct_masked_fill(ctx, wr, ign, 0, &n->wt);
    } else if (st == CT_OK) {
        st = ct_cast(ctx, n->keep, in->dtype, &n->wt);
    }
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(t64), ct_tensor_release(ign), ct_tensor_release(flat);
    ct_tensor_release(wsel), ct_tensor_release(wr);
    if (st != CT_OK) ct__nll_free(n);
    return st;
}

/* Per-element losses el (target's shape, 0 where ignored) reduced as torch's nll_loss: the mean
 * divides by the targets' total weight (their count without weights; 0 / 0 = NaN when all are
 * ignored). Consumes el. */
static ct_status ct__nll_reduce(ct_ctx *ctx, const ct__nll *n, ct_tensor *el,
                                ct_reduction reduction, ct_tensor **out) {
    if (reduction != CT_REDUCTION_MEAN) return ct__ag_reduce_loss(ctx, el, reduction, out);
    ct_tensor *s = NULL, *tw = NULL;
    ct_status st = ct_sum(ctx, el, 0, NULL, false, &s);
    if (st == CT_OK) st = ct_sum(ctx, n->wt, 0, NULL, false, &tw);
    if (st == CT_OK) st = ct_div(ctx, s, tw, out);
    ct_tensor_release(el), ct_tensor_release(s), ct_tensor_release(tw);
    return st;
}

/* -w[t] lp[t] per target (0 where ignored), picked with gather as torch's nll_loss does (a
 * one-hot product would turn an -inf log-probability of another class into NaN). */
static ct_status ct__nll_el(ct_ctx *ctx, const ct__nll *n, const ct_tensor *lp, ct_tensor **out) {
    ct_tensor *ix = NULL, *pick = NULL, *s = NULL, *ng = NULL, *wl = NULL, *ign = NULL;
    ct_status st = ct_tensor_unsqueeze(ctx, n->safe, n->cdim, &ix);
    if (st == CT_OK) st = ct_gather(ctx, lp, n->cdim, ix, &pick);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, pick, n->cdim, &s);
    if (st == CT_OK) st = ct_neg(ctx, s, &ng);
    if (st == CT_OK) st = ct_mul(ctx, ng, n->wt, &wl);
    /* exactly 0 where ignored, whatever the picked value (torch skips those) */
    if (st == CT_OK) st = ct_logical_not(ctx, n->keep, &ign);
    if (st == CT_OK) st = ct_masked_fill(ctx, wl, ign, 0, out);
    ct_tensor_release(ix), ct_tensor_release(pick), ct_tensor_release(s);
    ct_tensor_release(ng), ct_tensor_release(wl), ct_tensor_release(ign);
    return st;
}

static ct_status ct__nll_loss_body(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                                   const ct_tensor *weight, int64_t ignore_index,
                                   ct_reduction reduction, ct_tensor **out) {
    ct_status st = ct__nll_args(ctx, "nll_loss", log_probs, target, weight, reduction, out);
    if (st != CT_OK) return st;
    ct__nll n;
    if ((st = ct__nll_prep(ctx, "nll_loss", log_probs, target, weight, ignore_index, &n)) != CT_OK)
        return st;
    ct_tensor *el = NULL;
    st = ct__nll_el(ctx, &n, log_probs, &el);
    if (st == CT_OK) st = ct__nll_reduce(ctx, &n, el, reduction, out);
    ct__nll_free(&n);
    return st;
}

/* torch's node name of nll_loss over an input of ndim dims (nll_loss_nd: 2-d losses beyond 2
 * dims; an input of 3 or more than 4 dims is viewed, so its unreduced loss is a view) */
static const char *ct__nll_name(int ndim, ct_reduction reduction) {
    if (ndim <= 2) return "NllLossBackward0";
    if (ndim != 4 && reduction == CT_REDUCTION_NONE) return "ViewBackward0";
    return "NllLoss2DBackward0";
}

ct_status ct_nll_loss_ex(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                         const ct_tensor *weight, int64_t ignore_index, ct_reduction reduction,
                         ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's one node */
    ct_status st = ct__error_within(
        ctx, "nll_loss",
        ct__nll_loss_body(ctx, log_probs, target, weight, ignore_index, reduction, out));
    return ct__ag_named(ctx, st, out, mark,
                        ct__nll_name(st == CT_OK ? log_probs->ndim : 0, reduction));
}

ct_status ct_nll_loss(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                      ct_reduction reduction, ct_tensor **out) {
    return ct_nll_loss_ex(ctx, log_probs, target, NULL, -100, reduction, out);
}

/* Class-probability targets (target of the logits' shape, floating): -sum_c w_c p_c lp_c with
 * p smoothed to p (1 - e) + e / C; the mean divides by the number of samples (numel / C), not by
 * weights (torch's cross_entropy_loss_prob_target). */
static ct_status ct__ce_prob(ct_ctx *ctx, const ct_tensor *lp, const ct_tensor *target,
                             const ct_tensor *weight, int cdim, ct_reduction reduction, double ls,
                             ct_tensor **out) {
    const int64_t C = lp->shape[cdim];
    ct_tensor *p = NULL, *pa = NULL, *wv = NULL, *pw = NULL, *prod = NULL, *s = NULL;
    ct_status st = CT_OK;
    if (ls > 0) {
        st = ct_mul_scalar(ctx, target, 1 - ls, &pa);
        if (st == CT_OK) st = ct_add_scalar(ctx, pa, ls / (double)C, &p);
    } else {
        p = ct_tensor_retain((ct_tensor *)target);
    }
    if (st == CT_OK && weight) {
        int64_t ws[CT_MAX_DIMS];
        for (int d = 0; d < lp->ndim; d++)
            ws[d] = d == cdim ? C : 1;
        st = ct_tensor_reshape(ctx, weight, lp->ndim, ws, &wv);
        if (st == CT_OK) st = ct_mul(ctx, p, wv, &pw);
    } else if (st == CT_OK) {
        pw = ct_tensor_retain(p);
    }
    if (st == CT_OK) st = ct_mul(ctx, lp, pw, &prod);
    if (st == CT_OK) {
        if (reduction == CT_REDUCTION_NONE) {
            st = ct_sum(ctx, prod, 1, &cdim, false, &s);
            if (st == CT_OK) st = ct_neg(ctx, s, out);
        } else {
            st = ct_sum(ctx, prod, 0, NULL, false, &s);
            if (st == CT_OK && reduction == CT_REDUCTION_SUM) st = ct_neg(ctx, s, out);
            if (st == CT_OK && reduction == CT_REDUCTION_MEAN) {
                /* torch: -sum / (numel / C); NaN for an empty input */
                const int64_t ns = C ? ct_tensor_numel(lp) / C : 0;
                ct_tensor *ngs = NULL;
                st = ct_neg(ctx, s, &ngs);
                if (st == CT_OK) st = ct_div_scalar(ctx, ngs, ns ? (double)ns : NAN, out);
                ct_tensor_release(ngs);
            }
        }
    }
    ct_tensor_release(p), ct_tensor_release(pa), ct_tensor_release(wv);
    ct_tensor_release(pw), ct_tensor_release(prod), ct_tensor_release(s);
    return st;
}

static ct_status ct__cross_entropy_body(ct_ctx *ctx, const ct_tensor *logits,
                                        const ct_tensor *target, const ct_tensor *weight,
                                        int64_t ignore_index, ct_reduction reduction,
                                        double label_smoothing, ct_tensor **out) {
    const char *op = "cross_entropy";
    ct_status st = ct__nll_args(ctx, op, logits, target, weight, reduction, out);
    if (st != CT_OK) return st;
    if (!(label_smoothing >= 0 && label_smoothing <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: label_smoothing must be in [0, 1], got %g", op, label_smoothing);
    const int cdim = logits->ndim == 1 ? 0 : 1;
    bool prob = target->ndim == logits->ndim;
    for (int d = 0; prob && d < logits->ndim; d++)
        prob = target->shape[d] == logits->shape[d];
    if (prob && !ct_dtype_is_floating(target->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected floating point type for target with class "
                             "probabilities, got %s",
                             op, ct_dtype_name(target->dtype));
    if (prob && ignore_index >= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: ignore_index is not supported for floating point target", op);
    ct__nll n = {0};
    if (!prob && (st = ct__nll_prep(ctx, op, logits, target, weight, ignore_index, &n)) != CT_OK)
        return st;
    ct_tensor *lp = NULL;
    st = ct_log_softmax(ctx, logits, cdim, &lp);
    if (st == CT_OK && prob) {
        st = ct__ce_prob(ctx, lp, target, weight, cdim, reduction, label_smoothing, out);
        ct_tensor_release(lp);
        return st;
    }
    ct_tensor *el = NULL, *nll = NULL;
    if (st == CT_OK) st = ct__nll_el(ctx, &n, lp, &el);
    if (st == CT_OK) st = ct__nll_reduce(ctx, &n, el, reduction, &nll);
    if (st == CT_OK && label_smoothing > 0) {
        /* (1 - e) nll + (e / C) smooth, smooth = -sum_c w_c lp_c per target (0 where ignored),
         * reduced as nll is (torch's cross_entropy_loss_label_smoothing) */
        ct_tensor *wv = NULL, *lw = NULL, *sm = NULL, *ng = NULL, *ign = NULL, *smm = NULL,
                  *red = NULL, *a = NULL, *b = NULL;
        if (weight) {
            int64_t ws[CT_MAX_DIMS];
            for (int d = 0; d < lp->ndim; d++)
                ws[d] = d == cdim ? n.C : 1;
            st = ct_tensor_reshape(ctx, weight, lp->ndim, ws, &wv);
            if (st == CT_OK) st = ct_mul(ctx, lp, wv, &lw);
        } else {
            lw = ct_tensor_retain(lp);
        }
        if (st == CT_OK) st = ct_sum(ctx, lw, 1, &cdim, false, &sm);
        if (st == CT_OK) st = ct_neg(ctx, sm, &ng);
        if (st == CT_OK) st = ct_logical_not(ctx, n.keep, &ign);
        if (st == CT_OK) st = ct_masked_fill(ctx, ng, ign, 0, &smm);
        if (st == CT_OK) {
            ct_tensor *tmp = smm;
            smm = NULL;
            st = ct__nll_reduce(ctx, &n, tmp, reduction, &red);
        }
        if (st == CT_OK) st = ct_mul_scalar(ctx, nll, 1 - label_smoothing, &a);
        if (st == CT_OK) st = ct_mul_scalar(ctx, red, label_smoothing / (double)n.C, &b);
        if (st == CT_OK) st = ct_add(ctx, a, b, out);
        ct_tensor_release(wv), ct_tensor_release(lw), ct_tensor_release(sm);
        ct_tensor_release(ng), ct_tensor_release(ign), ct_tensor_release(smm);
        ct_tensor_release(red), ct_tensor_release(a), ct_tensor_release(b);
        ct_tensor_release(nll);
    } else if (st == CT_OK) {
        *out = nll;
    }
    ct_tensor_release(lp);
    ct__nll_free(&n);
    return st;
}

ct_status ct_cross_entropy_ex(ct_ctx *ctx, const ct_tensor *logits, const ct_tensor *target,
                              const ct_tensor *weight, int64_t ignore_index, ct_reduction reduction,
                              double label_smoothing, ct_tensor **out) {
    /* torch 1.13's node: nll_loss(log_softmax)'s; with label smoothing the sum of that and the
     * smoothing term (an add); with class probabilities a neg, or the mean's div */
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "cross_entropy",
                         ct__cross_entropy_body(ctx, logits, target, weight, ignore_index,
                                                reduction, label_smoothing, out));
    const char *name = "NllLossBackward0";
    if (st == CT_OK) {
        bool prob = target->ndim == logits->ndim;
        for (int d = 0; prob && d < logits->ndim; d++)
            prob = target->shape[d] == logits->shape[d];
        /* (an empty input's mean is torch's -(NaN-filled sum): a neg) */
        name =
            prob ? (reduction == CT_REDUCTION_MEAN && ct_tensor_numel(logits) > 0 ? "DivBackward1"
                                                                                  : "NegBackward0")
            : label_smoothing > 0 ? "AddBackward0"
                                  : ct__nll_name(logits->ndim, reduction);
    }
    return ct__ag_named(ctx, st, out, mark, name);
}

ct_status ct_cross_entropy(ct_ctx *ctx, const ct_tensor *logits, const ct_tensor *target,
                           ct_reduction reduction, double label_smoothing, ct_tensor **out) {
    return ct_cross_entropy_ex(ctx, logits, target, NULL, -100, reduction, label_smoothing, out);
}

/* ---- l1, smooth l1, huber: compositions whose recorded ops give torch's gradients (sign(z) past
 * the quadratic zone, z / beta or z inside it; the zone's edge belongs to the linear part in both
 * forward and backward, as torch's kernels) ---- */

/* int_ok: integer (not bool) operands pass too (l1: torch's integer |x - y|, no mean) */
static ct_status ct__pair_args(ct_ctx *ctx, const char *op, const ct_tensor *input,
                               const ct_tensor *target, ct_reduction reduction, bool int_ok,
                               ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {input, target};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    if ((st = ct__ag_check_red(ctx, op, reduction)) != CT_OK) return st;
    /* floating input, or an integer one with a floating target (torch promotes) */
    ct_dtype dt = input->dtype;
    const bool promotes = ct_dtype_promote(input->dtype, target->dtype, &dt) == CT_OK;
    if (promotes && int_ok && !ct_dtype_is_floating(dt) && input->dtype != CT_BOOL &&
        target->dtype != CT_BOOL)
        return reduction == CT_REDUCTION_MEAN
                   ? ct__set_error(ctx, CT_ERR_DTYPE,
                                   "%s: mean(): could not infer output dtype. Input dtype must be "
                                   "either a floating point or complex dtype. Got: %s (as torch)",
                                   op, ct_dtype_name(dt))
                   : CT_OK;
    if (!promotes || !ct_dtype_is_floating(dt) || input->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s and %s", op,
                             ct_dtype_name(input->dtype), ct_dtype_name(target->dtype));
    return CT_OK;
}

/* kind 0: l1; 1: smooth l1 (p = beta); 2: huber (p = delta) */
static ct_status ct__l1_family_body(ct_ctx *ctx, int kind, const ct_tensor *input,
                                    const ct_tensor *target, ct_reduction reduction, double p,
                                    ct_tensor **out) {
    static const char *const names[3] = {"l1_loss", "smooth_l1_loss", "huber_loss"};
    const char *op = names[kind];
    /* l1 of integers: |x - y| in their dtype, summed or not (torch) */
    ct_status st = ct__pair_args(ctx, op, input, target, reduction, kind == 0, out);
    if (st != CT_OK) return st;
    if (kind == 1 && !(p >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s does not support negative values for beta (got %g)", op, p);
    if (kind == 2 && !(p > 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s does not support non-positive values for delta (got %g)", op, p);
    ct_tensor *d = NULL, *z = NULL, *el = NULL;
    st = ct_sub(ctx, input, target, &d);
    if (st == CT_OK) st = ct_abs(ctx, d, &z);
    if (st == CT_OK && kind == 0) {
        el = z;
        z = NULL;
    } else if (st == CT_OK && kind == 1 && p == 0) {
        /* beta = 0: |d| through torch's smooth l1 kernel, whose gradient is -1 where d <= 0
         * (d > 0 ? d : 0 - d; +0 at 0) */
        ct_tensor *pos = NULL, *zc = NULL, *nd = NULL;
        st = ct_gt_scalar(ctx, d, 0, &pos);
        if (st == CT_OK) st = ct_tensor_full(ctx, d->dtype, 0, NULL, 0, &zc);
        if (st == CT_OK) st = ct_sub(ctx, zc, d, &nd);
        if (st == CT_OK) st = ct_where(ctx, pos, d, nd, &el);
        ct_tensor_release(pos), ct_tensor_release(zc), ct_tensor_release(nd);
    } else if (st == CT_OK) {
        /* inside: 0.5 d d / beta (smooth l1) or 0.5 d d (huber), torch's order, on dq = d there
         * and 0 outside (so the unselected branch never meets an infinite residual, and the
         * second derivative at d = 0 is 1 / beta, not abs's 0); outside: z - 0.5 beta, or
         * delta (z - 0.5 delta); a huber delta of inf is all inside */
        const bool all_in = kind == 2 && isinf(p);
        ct_tensor *h = NULL, *q = NULL, *qq = NULL, *lin = NULL, *lin2 = NULL, *in = NULL;
        ct_tensor *dq = NULL, *zc = NULL;
        ct_tensor *out_ = NULL; /* inside: !(z >= p), so a NaN residual takes the quadratic
                                 * branch and its gradient is NaN, as torch's backward */
        st = ct_ge_scalar(ctx, z, p, &out_);
        if (st == CT_OK) st = ct_logical_not(ctx, out_, &in);
        ct_tensor_release(out_);
        if (st == CT_OK) st = ct_tensor_full(ctx, d->dtype, 0, NULL, 0, &zc);
        if (st == CT_OK) st = ct_where(ctx, in, d, zc, &dq);
        if (st == CT_OK) st = ct_mul_scalar(ctx, dq, 0.5, &h);
        if (st == CT_OK) st = ct_mul(ctx, h, dq, &q);
        if (st == CT_OK && kind == 1) st = ct_div_scalar(ctx, q, p, &qq);
        if (st == CT_OK && kind == 2) qq = ct_tensor_retain(q);
        if (st == CT_OK && all_in) {
            el = ct_tensor_retain(qq);
        } else {
            if (st == CT_OK) st = ct_sub_scalar(ctx, z, 0.5 * p, &lin);
            if (st == CT_OK && kind == 2) st = ct_mul_scalar(ctx, lin, p, &lin2);
            if (st == CT_OK && kind == 1) lin2 = ct_tensor_retain(lin);
            if (st == CT_OK) st = ct_where(ctx, in, qq, lin2, &el);
        }
        ct_tensor_release(h), ct_tensor_release(q), ct_tensor_release(qq);
        ct_tensor_release(lin), ct_tensor_release(lin2), ct_tensor_release(in);
        ct_tensor_release(dq), ct_tensor_release(zc);
    }
    ct_tensor_release(d), ct_tensor_release(z);
    if (st != CT_OK) {
        ct_tensor_release(el);
        return st;
    }
    return ct__ag_reduce_loss(ctx, el, reduction, out);
}

/* the three front ends: torch's node name for smooth l1 and huber (l1's are the composition's:
 * AbsBackward0, MeanBackward0, SumBackward0) */
static ct_status ct__l1_family(ct_ctx *ctx, int kind, const ct_tensor *input,
                               const ct_tensor *target, ct_reduction reduction, double p,
                               ct_tensor **out) {
    static const char *const ops[3] = {"l1_loss", "smooth_l1_loss", "huber_loss"};
    static const char *const nodes[3] = {NULL, "SmoothL1LossBackward0", "HuberLossBackward0"};
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, ops[kind], ct__l1_family_body(ctx, kind, input, target, reduction, p, out));
    return kind ? ct__ag_named(ctx, st, out, mark, nodes[kind]) : st;
}

ct_status ct_l1_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                     ct_reduction reduction, ct_tensor **out) {
    return ct__l1_family(ctx, 0, input, target, reduction, 0, out);
}

ct_status ct_smooth_l1_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                            ct_reduction reduction, double beta, ct_tensor **out) {
    return ct__l1_family(ctx, 1, input, target, reduction, beta, out);
}

ct_status ct_huber_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                        ct_reduction reduction, double delta, ct_tensor **out) {
    return ct__l1_family(ctx, 2, input, target, reduction, delta, out);
}

/* ---- binary cross entropy (on probabilities, on logits): the elementwise loss is one node with
 * torch's backward for the input and the target (weight and pos_weight are constants, as in
 * torch); the reduction is recorded after it ---- */

typedef struct {
    ct_tensor *x, *t, *w, *pw; /* w, pw may be NULL */
    int64_t ver[4];
    bool logits;
} ct__bce_user;

static void ct__bce_free(void *p) {
    ct__bce_user *u = p;
    if (!u) return;
    ct_tensor_release(u->x), ct_tensor_release(u->t), ct_tensor_release(u->w);
    ct_tensor_release(u->pw);
    free(u);
}

/* max(log(x), -100) and max(log1p(-x), -100) (torch clamps both logs at -100) */
static ct_status ct__bce_logs(ct_ctx *ctx, const ct_tensor *x, ct_tensor **lx, ct_tensor **l1x) {
    const double lo = -100;
    ct_tensor *a = NULL, *nx = NULL, *b = NULL;
    ct_status st = ct_log(ctx, x, &a);
    if (st == CT_OK) st = ct_clamp(ctx, a, &lo, NULL, lx);
    if (st == CT_OK) st = ct_neg(ctx, x, &nx);
    if (st == CT_OK) st = ct_log1p(ctx, nx, &b);
    if (st == CT_OK) st = ct_clamp(ctx, b, &lo, NULL, l1x);
    ct_tensor_release(a), ct_tensor_release(nx), ct_tensor_release(b);
    return st;
}

/* softplus(-x) = max(-x, 0) + log1p(exp(-|x|)) (torch: log(exp(-m) + exp(-x - m)) + m, which
 * loses exp(-|x|) against 1 for |x| > 37 in f64) */
static ct_status ct__softplus_neg(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    const double zero = 0;
    ct_tensor *nx = NULL, *m = NULL, *ax = NULL, *nax = NULL, *e = NULL, *l = NULL;
    ct_status st = ct_neg(ctx, x, &nx);
    if (st == CT_OK) st = ct_clamp(ctx, nx, &zero, NULL, &m);
    if (st == CT_OK) st = ct_abs(ctx, x, &ax);
    if (st == CT_OK) st = ct_neg(ctx, ax, &nax);
    if (st == CT_OK) st = ct_exp(ctx, nax, &e);
    if (st == CT_OK) st = ct_log1p(ctx, e, &l);
    const ct_tensor *xs[1] = {x};
    if (st == CT_OK && !ct__ag_wants(ctx, 1, xs)) {
        st = ct_add(ctx, m, l, out);
    } else if (st == CT_OK) {
        /* recorded (a double backward): x = 0 takes log1p(exp(-x)) (the same value, log 2),
         * whose slope there is -1/2 as torch's; clamp and |x| have a kink at 0 */
        ct_tensor *r = NULL, *e2 = NULL, *l2 = NULL, *at0 = NULL, *nz = NULL, *x0 = NULL;
        ct_tensor *nx0 = NULL;
        st = ct_add(ctx, m, l, &r);
        if (st == CT_OK) st = ct_eq_scalar(ctx, x, 0, &at0);
        /* the branch reads x only where it is 0, so its exp cannot overflow (NaN gradient) */
        if (st == CT_OK) st = ct_logical_not(ctx, at0, &nz);
        if (st == CT_OK) st = ct_masked_fill(ctx, x, nz, 0, &x0);
        if (st == CT_OK) st = ct_neg(ctx, x0, &nx0);
        if (st == CT_OK) st = ct_exp(ctx, nx0, &e2);
        if (st == CT_OK) st = ct_log1p(ctx, e2, &l2);
        if (st == CT_OK) st = ct_where(ctx, at0, l2, r, out);
        ct_tensor_release(r), ct_tensor_release(e2), ct_tensor_release(l2);
        ct_tensor_release(at0), ct_tensor_release(nz), ct_tensor_release(x0);
        ct_tensor_release(nx0);
    }
    ct_tensor_release(nx), ct_tensor_release(m), ct_tensor_release(ax);
    ct_tensor_release(nax), ct_tensor_release(e), ct_tensor_release(l);
    return st;
}

/* a * w (w may be NULL: a itself, retained); consumes a */
static ct_status ct__times_w(ct_ctx *ctx, ct_tensor *a, const ct_tensor *w, ct_tensor **out) {
    if (!w) {
        *out = a;
        return CT_OK;
    }
    ct_status st = ct_mul(ctx, a, w, out);
    ct_tensor_release(a);
    return st;
}

/* The elementwise loss (every op unrecorded by the caller's grad mode). */
static ct_status ct__bce_el(ct_ctx *ctx, const ct__bce_user *u, ct_tensor **out) {
    ct_tensor *a = NULL, *b = NULL, *c = NULL, *r = NULL;
    ct_status st;
    if (!u->logits) {
        /* (t - 1) max(log1p(-x), -100) - t max(log x, -100), torch's order */
        ct_tensor *lx = NULL, *l1x = NULL;
        st = ct__bce_logs(ctx, u->x, &lx, &l1x);
        if (st == CT_OK) st = ct_sub_scalar(ctx, u->t, 1, &a);
        if (st == CT_OK) st = ct_mul(ctx, a, l1x, &b);
        if (st == CT_OK) st = ct_mul(ctx, u->t, lx, &c);
        if (st == CT_OK) st = ct_sub(ctx, b, c, &r);
        ct_tensor_release(lx), ct_tensor_release(l1x);
    } else {
        /* (1 - t) x + lw softplus(-x), lw = (pw - 1) t + 1 (1 without pos_weight) */
        ct_tensor *sp = NULL, *pm = NULL, *pt = NULL, *lw = NULL, *spw = NULL;
        st = ct__softplus_neg(ctx, u->x, &sp);
        if (st == CT_OK) st = ct_mul_scalar(ctx, u->t, -1, &pt);
        if (st == CT_OK) st = ct_add_scalar(ctx, pt, 1, &a);
        if (st == CT_OK) st = ct_mul(ctx, a, u->x, &b);
        if (st == CT_OK && u->pw) {
            st = ct_sub_scalar(ctx, u->pw, 1, &pm);
            ct_tensor *pmt = NULL;
            if (st == CT_OK) st = ct_mul(ctx, pm, u->t, &pmt);
            if (st == CT_OK) st = ct_add_scalar(ctx, pmt, 1, &lw);
            ct_tensor_release(pmt);
            if (st == CT_OK) st = ct_mul(ctx, lw, sp, &spw);
        } else if (st == CT_OK) {
            spw = ct_tensor_retain(sp);
        }
        if (st == CT_OK) st = ct_add(ctx, b, spw, &r);
        ct_tensor_release(sp), ct_tensor_release(pm), ct_tensor_release(pt);
        ct_tensor_release(lw), ct_tensor_release(spw);
    }
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    return ct__times_w(ctx, r, u->w, out);
}

/* torch's backward: input: (x - t) / max((1 - x) x, 1e-12), or sigmoid(x) - t (with pos_weight
 * (pw t + 1 - t) sigmoid(x) - pw t); target: log1p(-x) - log x (unclamped), or -x +
 * (pw - 1) softplus(-x); each times w and the incoming gradient. */
static ct_status ct__bce_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    const ct__bce_user *u = user;
    static const char *const what[4] = {"input", "target", "weight", "pos_weight"};
    const ct_tensor *saved[4] = {u->x, u->t, u->w, u->pw};
    const char *node =
        u->logits ? "BinaryCrossEntropyWithLogitsBackward0" : "BinaryCrossEntropyBackward0";
    ct_status st = CT_OK;
    for (int i = 0; i < 4 && st == CT_OK; i++)
        st = ct__ag_saved_ok(ctx, saved[i], what[i], i, node, u->ver[i]);
    for (int i = 0; i < 2 && st == CT_OK; i++) {
        if (!need[i]) continue;
        ct_tensor *d = NULL, *a = NULL, *b = NULL, *c = NULL;
        if (!u->logits && i == 0) {
            ct_tensor *omx = NULL, *den = NULL;
            const double eps = (double)1e-12f; /* torch's EPSILON, a float */
            st = ct_sub(ctx, u->x, u->t, &a);
            if (st == CT_OK) st = ct_mul_scalar(ctx, u->x, -1, &b);
            if (st == CT_OK) st = ct_add_scalar(ctx, b, 1, &omx);
            if (st == CT_OK) st = ct_mul(ctx, omx, u->x, &c);
            if (st == CT_OK) st = ct_clamp(ctx, c, &eps, NULL, &den);
            if (st == CT_OK) st = ct_div(ctx, a, den, &d);
            ct_tensor_release(omx), ct_tensor_release(den);
        } else if (!u->logits) {
            /* log1p(-x) - log(x) = -logit(x), unclamped as torch's (infinite at 0 and 1) */
            ct_tensor *nx = NULL;
            st = ct_log(ctx, u->x, &a);
            if (st == CT_OK) st = ct_neg(ctx, u->x, &nx);
            if (st == CT_OK) st = ct_log1p(ctx, nx, &b);
            if (st == CT_OK) st = ct_sub(ctx, b, a, &d);
            ct_tensor_release(nx);
        } else if (i == 0) {
            st = ct_sigmoid(ctx, u->x, &a);
            if (st == CT_OK && u->pw) {
                ct_tensor *pt = NULL, *k = NULL, *k1 = NULL;
                st = ct_mul(ctx, u->pw, u->t, &pt);
                if (st == CT_OK) st = ct_add_scalar(ctx, pt, 1, &k);
                if (st == CT_OK) st = ct_sub(ctx, k, u->t, &k1);
                if (st == CT_OK) st = ct_mul(ctx, k1, a, &b);
                if (st == CT_OK) st = ct_sub(ctx, b, pt, &d);
                ct_tensor_release(pt), ct_tensor_release(k), ct_tensor_release(k1);
            } else if (st == CT_OK) {
                st = ct_sub(ctx, a, u->t, &d);
            }
        } else {
            st = ct_neg(ctx, u->x, &a);
            if (st == CT_OK && u->pw) {
                st = ct__softplus_neg(ctx, u->x, &b);
                ct_tensor *pm = NULL;
                if (st == CT_OK) st = ct_sub_scalar(ctx, u->pw, 1, &pm);
                if (st == CT_OK) st = ct_mul(ctx, pm, b, &c);
                if (st == CT_OK) st = ct_add(ctx, a, c, &d);
                ct_tensor_release(pm);
            } else if (st == CT_OK) {
                d = ct_tensor_retain(a);
            }
        }
        ct_tensor *dw = NULL;
        if (st == CT_OK) {
            st = ct__times_w(ctx, d, u->w, &dw);
            d = NULL;
        }
        if (st == CT_OK) st = ct_mul(ctx, gout[0], dw, &gin[i]);
        ct_tensor_release(d), ct_tensor_release(dw);
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
    }
    return st;
}

static const ct__ag_custom CT__BCE_FN = {"BinaryCrossEntropyBackward", ct__bce_backward,
                                         ct__bce_free, true};
static const ct__ag_custom CT__BCE_LOGITS_FN = {"BinaryCrossEntropyWithLogitsBackward",
                                                ct__bce_backward, ct__bce_free, true};

static ct_status ct__bce_body(ct_ctx *ctx, bool logits, const ct_tensor *input,
                              const ct_tensor *target, const ct_tensor *weight,
                              const ct_tensor *pos_weight, ct_reduction reduction,
                              ct_tensor **out) {
    const char *op = logits ? "binary_cross_entropy_with_logits" : "binary_cross_entropy";
    ct_status st = ct__pair_args(ctx, op, input, target, reduction, false, out);
    if (st != CT_OK) return st;
    const ct_tensor *opt[2] = {weight, pos_weight};
    static const char *const on[2] = {"weight", "pos_weight"};
    for (int i = 0; i < 2; i++) {
        if (!opt[i]) continue;
        if ((st = ct__check_tensor(ctx, op, on[i], opt[i])) != CT_OK) return st;
        if (opt[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s belongs to another context", op,
                                 on[i]);
        if (opt[i]->requires_grad && ct__ag_wants(ctx, 1, &opt[i]))
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "%s is not differentiable with respect to argument '%s' (as "
                                 "torch): pass it detached",
                                 op, on[i]);
    }
    for (int i = 0; i < 2; i++) { /* each must broadcast to the input's shape, not grow it */
        if (!opt[i]) continue;
        const ct_tensor *pair[2] = {input, opt[i]};
        int bnd;
        int64_t bsh[CT_MAX_DIMS];
        st = ct__broadcast_shapes(ctx, op, 2, pair, &bnd, bsh);
        bool fits = st == CT_OK && bnd == input->ndim;
        for (int d = 0; fits && d < bnd; d++)
            fits = bsh[d] == input->shape[d];
        if (!fits)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: %s %s does not broadcast to the input's shape %s", op, on[i],
                                 CT__SHAPE_STR(opt[i]),
                                 ct__shape_str((char[96]){0}, 96, input->ndim, input->shape));
    }
    bool same = target->ndim == input->ndim;
    for (int d = 0; same && d < input->ndim; d++)
        same = target->shape[d] == input->shape[d];
    if (!same)
        return ct__set_error(
            ctx, CT_ERR_SHAPE, "%s: target size %s must be the same as input size %s", op,
            CT__SHAPE_STR(target), ct__shape_str((char[96]){0}, 96, input->ndim, input->shape));
    if (target->dtype != input->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: target must be %s (the input's dtype), got %s",
                             op, ct_dtype_name(input->dtype), ct_dtype_name(target->dtype));
    if (!logits && ct_tensor_numel(input) > 0 && !ct__any_capture(ctx)) {
        /* torch's check (on the data; not while capturing, when it may not exist yet) */
        bool was = ct_set_grad_enabled(ctx, false);
        ct_tensor *lo = NULL, *hi = NULL, *nn = NULL, *b1 = NULL, *b2 = NULL, *any = NULL;
        st = ct_lt_scalar(ctx, input, 0, &lo);
        if (st == CT_OK) st = ct_gt_scalar(ctx, input, 1, &hi);
        if (st == CT_OK) st = ct_isnan(ctx, input, &nn);
        if (st == CT_OK) st = ct_logical_or(ctx, lo, hi, &b1);
        if (st == CT_OK) st = ct_logical_or(ctx, b1, nn, &b2);
        if (st == CT_OK) st = ct_any(ctx, b2, 0, NULL, false, &any);
        double bad = 0;
        if (st == CT_OK) st = ct_tensor_item(any, &bad);
        ct_set_grad_enabled(ctx, was);
        ct_tensor_release(lo), ct_tensor_release(hi), ct_tensor_release(nn);
        ct_tensor_release(b1), ct_tensor_release(b2), ct_tensor_release(any);
        if (st != CT_OK) return st;
        if (bad != 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: all elements of input should be between 0 and 1", op);
    }
    ct__bce_user *u = calloc(1, sizeof *u);
    if (!u) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    u->logits = logits;
    u->x = ct_tensor_retain((ct_tensor *)input);
    u->t = ct_tensor_retain((ct_tensor *)target);
    /* weight and pos_weight in the input's dtype (torch computes the loss in it) */
    const ct_tensor *src_w[2] = {weight, logits ? pos_weight : NULL};
    ct_tensor *cw[2] = {NULL, NULL};
    for (int i = 0; i < 2 && st == CT_OK; i++) {
        if (!src_w[i]) continue;
        bool was = ct_set_grad_enabled(ctx, false);
        st = src_w[i]->dtype == input->dtype
                 ? (cw[i] = ct_tensor_retain((ct_tensor *)src_w[i]), CT_OK)
                 : ct_cast(ctx, src_w[i], input->dtype, &cw[i]);
        ct_set_grad_enabled(ctx, was);
    }
    u->w = cw[0];
    u->pw = cw[1];
    if (st != CT_OK) {
        ct__bce_free(u);
        return st;
    }
    const ct_tensor *saved[4] = {u->x, u->t, u->w, u->pw};
    for (int i = 0; i < 4; i++)
        u->ver[i] = saved[i] ? saved[i]->storage->version : 0;
    const ct_tensor *ins[2] = {input, target};
    const bool rec = ct__ag_wants(ctx, 2, ins);
    bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *el = NULL;
    st = ct__bce_el(ctx, u, &el);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK && rec)
        st = ct__ag_record_custom_n(ctx, logits ? &CT__BCE_LOGITS_FN : &CT__BCE_FN, u, 2, ins, &el);
    else
        ct__bce_free(u);
    if (st != CT_OK) {
        ct_tensor_release(el);
        return st;
    }
    return ct__ag_reduce_loss(ctx, el, reduction, out);
}

ct_status ct_binary_cross_entropy(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                  const ct_tensor *weight, ct_reduction reduction,
                                  ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "binary_cross_entropy",
                         ct__bce_body(ctx, false, input, target, weight, NULL, reduction, out));
    return ct__ag_named(ctx, st, out, mark, "BinaryCrossEntropyBackward0");
}

ct_status ct_binary_cross_entropy_with_logits(ct_ctx *ctx, const ct_tensor *input,
                                              const ct_tensor *target, const ct_tensor *weight,
                                              const ct_tensor *pos_weight, ct_reduction reduction,
                                              ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "binary_cross_entropy_with_logits",
        ct__bce_body(ctx, true, input, target, weight, pos_weight, reduction, out));
    return ct__ag_named(ctx, st, out, mark, "BinaryCrossEntropyWithLogitsBackward0");
}

/* ---- kl_div, normalize, cosine_similarity: compositions in torch 1.13's forms (their recorded
 * ops give torch's gradients and node names) ---- */

static ct_status ct__kl_div_body(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                 ct_reduction reduction, bool log_target, ct_tensor **out) {
    const char *op = "kl_div";
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {input, target};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    if (reduction != CT_REDUCTION_BATCHMEAN && (st = ct__ag_check_red(ctx, op, reduction)) != CT_OK)
        return st;
    if (!ct_dtype_is_floating(input->dtype) || !ct_dtype_is_floating(target->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: integral inputs not supported (got %s, %s)",
                             op, ct_dtype_name(input->dtype), ct_dtype_name(target->dtype));
    ct_tensor *a = NULL, *b = NULL, *c = NULL, *el = NULL;
    if (log_target) { /* exp(t) (t - x) */
        st = ct_exp(ctx, target, &a);
        if (st == CT_OK) st = ct_sub(ctx, target, input, &b);
        if (st == CT_OK) st = ct_mul(ctx, a, b, &el);
    } else { /* xlogy(t, t) - t x */
        ct_tensor *l = NULL, *z = NULL;
        st = ct_log(ctx, target, &l);
        if (st == CT_OK) st = ct_mul(ctx, target, l, &a);
        if (st == CT_OK) st = ct_eq_scalar(ctx, target, 0, &z);
        if (st == CT_OK) st = ct_masked_fill(ctx, a, z, 0, &b);
        if (st == CT_OK) st = ct_mul(ctx, target, input, &c);
        if (st == CT_OK) st = ct_sub(ctx, b, c, &el);
        ct_tensor_release(l), ct_tensor_release(z);
    }
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
    if (st != CT_OK) {
        ct_tensor_release(el);
        return st;
    }
    if (reduction != CT_REDUCTION_BATCHMEAN) return ct__ag_reduce_loss(ctx, el, reduction, out);
    /* torch: the sum divided by input.size(0) (a 0-d input: the sum) */
    ct_tensor *s = NULL;
    st = ct_sum(ctx, el, 0, NULL, false, &s);
    ct_tensor_release(el);
    if (st != CT_OK) return st;
    if (input->ndim == 0) {
        *out = s;
        return CT_OK;
    }
    st = ct_div_scalar(ctx, s, (double)input->shape[0], out);
    ct_tensor_release(s);
    return st;
}

ct_status ct_kl_div(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                    ct_reduction reduction, bool log_target, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "kl_div", ct__kl_div_body(ctx, input, target, reduction, log_target, out));
    /* torch divides by the size as a tensor: DivBackward0 (a 0-d input is not divided) */
    return reduction == CT_REDUCTION_BATCHMEAN && st == CT_OK && input->ndim > 0
               ? ct__ag_named(ctx, st, out, mark, "DivBackward0")
               : st;
}

/* cosine_similarity's clamped norm c = max(||x||_2 over dim, eps) (keepdim) as torch 1.13 makes
 * it: the norm is clamped in place under no_grad, so its backward reads the clamped value,
 * d c / d x = x / c (also where the clamp is active). */
typedef struct {
    ct_tensor *x, *c; /* the input; the output, detached */
    int64_t xv, cv;
    int dim;
    double eps;
} ct__cnorm_user;

static void ct__cnorm_free(void *p) {
    ct__cnorm_user *u = p;
    if (!u) return;
    ct_tensor_release(u->x), ct_tensor_release(u->c);
    free(u);
}

static ct_status ct__cosine_norm(ct_ctx *ctx, const ct_tensor *x, int dim, double eps,
                                 ct_tensor **out);
static ct_status ct__cnorm_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                    const bool *need, ct_tensor **gin) {
    const ct__cnorm_user *u = user;
    if (!need[0]) return CT_OK;
    const char *node = "LinalgVectorNormBackward0";
    ct_status st = ct__ag_saved_ok(ctx, u->x, "input", 0, node, u->xv);
    if (st == CT_OK) st = ct__ag_saved_ok(ctx, u->c, "output", 0, node, u->cv);
    /* under create_graph c is rebuilt from x, so the second derivative has its d c / d x term */
    ct_tensor *q = NULL, *c = NULL;
    const ct_tensor *xs = u->x;
    if (st == CT_OK && ct__ag_wants(ctx, 1, &xs))
        st = ct__cosine_norm(ctx, u->x, u->dim, u->eps, &c);
    else if (st == CT_OK)
        c = ct_tensor_retain(u->c);
    if (st == CT_OK) st = ct_div(ctx, gout[0], c, &q);
    if (st == CT_OK) st = ct_mul(ctx, u->x, q, &gin[0]);
    ct_tensor_release(q), ct_tensor_release(c);
    return st;
}
static const ct__ag_custom CT__CNORM_FN = {"LinalgVectorNormBackward", ct__cnorm_backward,
                                           ct__cnorm_free, true};

static ct_status ct__cosine_norm(ct_ctx *ctx, const ct_tensor *x, int dim, double eps,
                                 ct_tensor **out) {
    ct_tensor *n = NULL;
    bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = ct_norm(ctx, x, 2, 1, &dim, true, &n);
    if (st == CT_OK) st = ct_clamp(ctx, n, &eps, NULL, out);
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(n);
    if (st != CT_OK || !ct__ag_wants(ctx, 1, &x)) return st;
    ct__cnorm_user *u = calloc(1, sizeof *u);
    if (!u) st = ct__set_error(ctx, CT_ERR_OOM, "cosine_similarity: out of memory");
    if (st == CT_OK) st = ct_tensor_detach(ctx, *out, &u->c);
    if (st != CT_OK) {
        ct__cnorm_free(u);
        ct_tensor_release(*out);
        *out = NULL;
        return st;
    }
    u->x = ct_tensor_retain((ct_tensor *)x);
    u->xv = x->storage->version;
    u->cv = u->c->storage->version;
    u->dim = dim;
    u->eps = eps;
    return ct__ag_record_custom(ctx, &CT__CNORM_FN, u, x, out);
}

/* x / max(||x||_p over dim (keepdim), eps), the norm broadcast back (torch's F.normalize; with
 * straight, cosine_similarity's p = 2 norm, ct__cosine_norm) */
static ct_status ct__normalize_ex(ct_ctx *ctx, const char *op, const ct_tensor *x, double p,
                                  int dim, double eps, bool straight, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_args(ctx, op, 1, &x, out);
    if (st != CT_OK) return st;
    if (!ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(x->dtype));
    ct_tensor *n = NULL, *c = NULL;
    if (!straight && ct_tensor_numel(x) == 0) { /* empty: torch's Tensor.norm is 0 over an empty
                                                 * dim for every p, so x / eps (still empty) */
        int d = 0;
        if (!ct__wrap_dim(dim, x->ndim ? x->ndim : 1, &d))
            return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                                 x->ndim);
        return ct_div_scalar(ctx, x, eps, out);
    }
    if (straight) {
        st = ct__cosine_norm(ctx, x, dim, eps, &c);
    } else {
        st = ct_norm(ctx, x, p, 1, &dim, true, &n);
        if (st == CT_OK) st = ct_clamp(ctx, n, &eps, NULL, &c);
    }
    if (st == CT_OK) st = ct_div(ctx, x, c, out);
    ct_tensor_release(n), ct_tensor_release(c);
    return st;
}

static ct_status ct__normalize(ct_ctx *ctx, const char *op, const ct_tensor *x, double p, int dim,
                               double eps, ct_tensor **out) {
    return ct__normalize_ex(ctx, op, x, p, dim, eps, false, out);
}

ct_status ct_normalize(ct_ctx *ctx, const ct_tensor *x, double p, int dim, double eps,
                       ct_tensor **out) {
    return ct__error_within(ctx, "normalize", ct__normalize(ctx, "normalize", x, p, dim, eps, out));
}

static ct_status ct__cosine_body(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, int dim,
                                 double eps, ct_tensor **out) {
    const char *op = "cosine_similarity";
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {x1, x2};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt = CT_FLOAT32;
    if ((st = ct_dtype_promote(x1->dtype, x2->dtype, &dt)) != CT_OK)
        return ct__set_error(ctx, st, "%s: no common dtype for %s and %s", op,
                             ct_dtype_name(x1->dtype), ct_dtype_name(x2->dtype));
    if (!ct_dtype_is_floating(dt))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected common dtype to be floating point, yet common dtype is "
                             "%s",
                             op, ct_dtype_name(dt));
    int nd;
    int64_t sh[CT_MAX_DIMS];
    if ((st = ct__broadcast_shapes(ctx, op, 2, ins, &nd, sh)) != CT_OK) return st;
    /* both broadcast and in the common dtype, then the normalized form */
    ct_tensor *e[2] = {NULL, NULL}, *c[2] = {NULL, NULL}, *nz[2] = {NULL, NULL}, *pr = NULL;
    for (int i = 0; i < 2 && st == CT_OK; i++) {
        st = ct_tensor_expand(ctx, ins[i], nd, sh, &e[i]);
        if (st == CT_OK)
            st = e[i]->dtype == dt ? (c[i] = ct_tensor_retain(e[i]), CT_OK)
                                   : ct_cast(ctx, e[i], dt, &c[i]);
        if (st == CT_OK) st = ct__normalize_ex(ctx, op, c[i], 2, dim, eps, true, &nz[i]);
    }
    if (st == CT_OK) st = ct_mul(ctx, nz[0], nz[1], &pr);
    if (st == CT_OK) st = ct_sum(ctx, pr, 1, &dim, false, out);
    for (int i = 0; i < 2; i++)
        ct_tensor_release(e[i]), ct_tensor_release(c[i]), ct_tensor_release(nz[i]);
    ct_tensor_release(pr);
    return st;
}

ct_status ct_cosine_similarity(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, int dim,
                               double eps, ct_tensor **out) {
    return ct__error_within(ctx, "cosine_similarity", ct__cosine_body(ctx, x1, x2, dim, eps, out));
}

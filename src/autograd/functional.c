/* Differentiable building blocks made of public ops (their backward comes from the ops'):
 * linear, mse_loss, nll_loss, cross_entropy. */
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"
#include "tensor/ag_front.h"

/* Apply the reduction to per-element losses l (consumed). */
static ct_status ct__reduce_loss(ct_ctx *ctx, ct_tensor *l, ct_reduction red, ct_tensor **out) {
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

static ct_status ct__check_red(ct_ctx *ctx, const char *op, ct_reduction red) {
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
    if ((st = ct__check_red(ctx, "mse_loss", reduction)) != CT_OK) return st;
    if (!ct_dtype_is_floating(input->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "mse_loss: floating input required, got %s",
                             ct_dtype_name(input->dtype));
    ct_tensor *d = NULL, *sq = NULL;
    if ((st = ct_sub(ctx, input, target, &d)) != CT_OK) return st;
    st = ct_mul(ctx, d, d, &sq);
    ct_tensor_release(d);
    if (st != CT_OK) return st;
    return ct__reduce_loss(ctx, sq, reduction, out);
}

ct_status ct_mse_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                      ct_reduction reduction, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's one node */
    return ct__ag_named(
        ctx,
        ct__error_within(ctx, "mse_loss", ct__mse_loss_body(ctx, input, target, reduction, out)),
        out, mark, "MseLossBackward0");
}

/* Per-sample -log_probs[i, target[i]] (N), made of ops (gather; its backward scatters). */
static ct_status ct__nll_none(ct_ctx *ctx, const char *op, const ct_tensor *lp,
                              const ct_tensor *target, ct_tensor **out) {
    if (lp->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must be 2-d (N, C), got %s", op,
                             CT__SHAPE_STR(lp));
    if (!ct_dtype_is_floating(lp->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s", op,
                             ct_dtype_name(lp->dtype));
    if (target->dtype != CT_INT64 && target->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: target must be int64 class ids, got %s", op,
                             ct_dtype_name(target->dtype));
    int64_t N = lp->shape[0], C = lp->shape[1];
    if (target->ndim != 1 || target->shape[0] != N)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: target %s does not match input %s", op,
                             CT__SHAPE_STR(target), CT__SHAPE_STR(lp));
    ct_status st = CT_OK;
    if (N > 0 && !ct__any_capture(ctx)) { /* check the class ids (as torch does); not while
                                           * capturing, when the data may not exist yet */
        size_t isz = target->dtype == CT_INT64 ? 8 : 4;
        char *v = ct__alloc(ctx, (size_t)N * isz, 16);
        if (!v) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        st = ct_tensor_to_host(target, v, (size_t)N * isz);
        for (int64_t i = 0; st == CT_OK && i < N; i++) {
            int64_t k = isz == 8 ? ((int64_t *)(void *)v)[i] : ((int32_t *)(void *)v)[i];
            if (k < 0 || k >= C)
                st = ct__set_error(ctx, CT_ERR_INDEX, "%s: target %lld is out of bounds [0, %lld)",
                                   op, (long long)k, (long long)C);
        }
        ct__free(ctx, v);
        if (st != CT_OK) return st;
    }
    /* -gather(lp, 1, target[:, None])[:, 0], as torch's nll_loss picks the target's entry (a
     * one-hot product would turn an -inf log-probability of another class into NaN) */
    ct_tensor *ix = NULL, *ix2 = NULL, *pick = NULL, *s = NULL;
    st = target->dtype == CT_INT64 ? (ix = ct_tensor_retain((ct_tensor *)target), CT_OK)
                                   : ct_cast(ctx, target, CT_INT64, &ix);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, ix, 1, &ix2);
    if (st == CT_OK) st = ct_gather(ctx, lp, 1, ix2, &pick);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, pick, 1, &s);
    if (st == CT_OK) st = ct_neg(ctx, s, out);
    ct_tensor_release(ix), ct_tensor_release(ix2), ct_tensor_release(pick), ct_tensor_release(s);
    return st;
}

static ct_status ct__nll_loss_body(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                                   ct_reduction reduction, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {log_probs, target};
    ct_status st = ct__check_args(ctx, "nll_loss", 2, ins, out);
    if (st != CT_OK) return st;
    if ((st = ct__check_red(ctx, "nll_loss", reduction)) != CT_OK) return st;
    ct_tensor *l = NULL;
    if ((st = ct__nll_none(ctx, "nll_loss", log_probs, target, &l)) != CT_OK) return st;
    return ct__reduce_loss(ctx, l, reduction, out);
}

ct_status ct_nll_loss(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *target,
                      ct_reduction reduction, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's one node */
    return ct__ag_named(ctx,
                        ct__error_within(ctx, "nll_loss",
                                         ct__nll_loss_body(ctx, log_probs, target, reduction, out)),
                        out, mark, "NllLossBackward0");
}

static ct_status ct__cross_entropy_body(ct_ctx *ctx, const ct_tensor *logits,
                                        const ct_tensor *target, ct_reduction reduction,
                                        double label_smoothing, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {logits, target};
    ct_status st = ct__check_args(ctx, "cross_entropy", 2, ins, out);
    if (st != CT_OK) return st;
    if ((st = ct__check_red(ctx, "cross_entropy", reduction)) != CT_OK) return st;
    if (!(label_smoothing >= 0 && label_smoothing <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "cross_entropy: label_smoothing must be in [0, 1], got %g",
                             label_smoothing);
    if (logits->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "cross_entropy: logits must be 2-d (N, C), got %s",
                             CT__SHAPE_STR(logits));
    if (!ct_dtype_is_floating(logits->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "cross_entropy: floating logits required, got %s",
                             ct_dtype_name(logits->dtype));
    ct_tensor *lp = NULL, *l = NULL;
    if ((st = ct_log_softmax(ctx, logits, 1, &lp)) != CT_OK) return st;
    st = ct__nll_none(ctx, "cross_entropy", lp, target, &l);
    if (st == CT_OK && label_smoothing > 0) {
        /* (1 - e) * nll + e * mean over classes of -log p */
        int one = 1;
        double C = (double)logits->shape[1];
        ct_tensor *s = NULL, *sm = NULL, *a = NULL, *r = NULL;
        st = ct_sum(ctx, lp, 1, &one, false, &s);
        if (st == CT_OK) st = ct_mul_scalar(ctx, s, -label_smoothing / C, &sm);
        if (st == CT_OK) st = ct_mul_scalar(ctx, l, 1 - label_smoothing, &a);
        if (st == CT_OK) st = ct_add(ctx, a, sm, &r);
        ct_tensor_release(s), ct_tensor_release(sm), ct_tensor_release(a);
        ct_tensor_release(l);
        l = r;
    }
    ct_tensor_release(lp);
    if (st != CT_OK) {
        ct_tensor_release(l);
        return st;
    }
    return ct__reduce_loss(ctx, l, reduction, out);
}

ct_status ct_cross_entropy(ct_ctx *ctx, const ct_tensor *logits, const ct_tensor *target,
                           ct_reduction reduction, double label_smoothing, ct_tensor **out) {
    /* torch 1.13: nll_loss(log_softmax)'s node; with label smoothing, the sum of that and the
     * smoothing term (an add) */
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx,
                        ct__error_within(ctx, "cross_entropy",
                                         ct__cross_entropy_body(ctx, logits, target, reduction,
                                                                label_smoothing, out)),
                        out, mark, label_smoothing > 0 ? "AddBackward0" : "NllLossBackward0");
}

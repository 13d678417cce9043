/* More losses of torch.nn.functional and pixel_shuffle / pixel_unshuffle, written as torch
 * 1.13's ATen (Loss.cpp) and Python (functional.py) write them: the same ops in the same order,
 * so the same rounding and node names. docs/everyday.md ("More losses") lists where ctorch
 * answers differently. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>

/* The checks shared by the losses: arguments, the reduction, floating inputs. */
static ct_status ct__loss_args(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ins,
                               ct_reduction red, ct_tensor **out) {
    ct_status st = ct__check_args(ctx, op, n, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__ag_check_red(ctx, op, red)) != CT_OK) return st;
    if (!ct_dtype_is_floating(ins[0]->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s (as torch)",
                             op, ct_dtype_name(ins[0]->dtype));
    return CT_OK;
}

/* ---- margin_ranking_loss: max(0, -target (x1 - x2) + margin) ---- */
static ct_status ct__margin_ranking(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                    const ct_tensor *target, double margin, ct_reduction red,
                                    ct_tensor **out) {
    const ct_tensor *ins[3] = {x1, x2, target};
    ct_status st = ct__loss_args(ctx, "margin_ranking_loss", 3, ins, red, out);
    if (st != CT_OK) return st;
    if (x1->ndim != x2->ndim || x1->ndim != target->ndim)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "margin_ranking_loss: all input tensors should have the same "
                             "dimension, got %d, %d and %d (as torch)",
                             x1->ndim, x2->ndim, target->ndim);
    ct_tensor *t[5] = {NULL, NULL, NULL, NULL, NULL};
    const double zero = 0;
    st = ct_sub(ctx, x1, x2, &t[0]);
    if (st == CT_OK) st = ct_neg(ctx, target, &t[1]);
    if (st == CT_OK) st = ct_mul(ctx, t[1], t[0], &t[2]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[2], margin, &t[3]);
    if (st == CT_OK) st = ct_clamp(ctx, t[3], &zero, NULL, &t[4]);
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[4], red, out);
        t[4] = NULL;
    }
    ct__release_all(5, t);
    return st;
}
ct_status ct_margin_ranking_loss(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                 const ct_tensor *target, double margin, ct_reduction reduction,
                                 ct_tensor **out) {
    return ct__error_within(ctx, "margin_ranking_loss",
                            ct__margin_ranking(ctx, x1, x2, target, margin, reduction, out));
}

/* ---- hinge_embedding_loss: where(target != 1, max(0, margin - x), 0)
 *                            + where(target != -1, x, 0) ---- */
static ct_status ct__hinge(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *target, double margin,
                           ct_reduction red, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, target};
    ct_status st = ct__loss_args(ctx, "hinge_embedding_loss", 2, ins, red, out);
    if (st != CT_OK) return st;
    ct_tensor *t[9] = {NULL};
    const double zero = 0;
    st = ct_zeros_like(ctx, x, &t[0]);
    if (st == CT_OK) st = ct_neg(ctx, x, &t[1]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[1], margin, &t[2]); /* margin - x, exact */
    if (st == CT_OK) st = ct_clamp(ctx, t[2], &zero, NULL, &t[3]);
    if (st == CT_OK) st = ct_ne_scalar(ctx, target, 1, &t[4]);
    if (st == CT_OK) st = ct_where(ctx, t[4], t[3], t[0], &t[5]);
    if (st == CT_OK) st = ct_ne_scalar(ctx, target, -1, &t[6]);
    if (st == CT_OK) st = ct_where(ctx, t[6], x, t[0], &t[7]);
    if (st == CT_OK) st = ct_add(ctx, t[5], t[7], &t[8]);
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[8], red, out);
        t[8] = NULL;
    }
    ct__release_all(9, t);
    return st;
}
ct_status ct_hinge_embedding_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                                  double margin, ct_reduction reduction, ct_tensor **out) {
    return ct__error_within(ctx, "hinge_embedding_loss",
                            ct__hinge(ctx, input, target, margin, reduction, out));
}

/* ---- soft_margin_loss: log1p(exp(-x target)) ---- */
static ct_status ct__soft_margin(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *target,
                                 ct_reduction red, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, target};
    ct_status st = ct__loss_args(ctx, "soft_margin_loss", 2, ins, red, out);
    if (st != CT_OK) return st;
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL};
    st = ct_neg(ctx, x, &t[0]);
    if (st == CT_OK) st = ct_mul(ctx, t[0], target, &t[1]);
    if (st == CT_OK) st = ct_exp(ctx, t[1], &t[2]);
    if (st == CT_OK) st = ct_log1p(ctx, t[2], &t[3]);
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[3], red, out);
        t[3] = NULL;
    }
    ct__release_all(4, t);
    return st;
}
ct_status ct_soft_margin_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                              ct_reduction reduction, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch 1.13's native op: one node */
    ct_status st = ct__error_within(ctx, "soft_margin_loss",
                                    ct__soft_margin(ctx, input, target, reduction, out));
    return ct__ag_named(ctx, st, out, mark, "SoftMarginLossBackward0");
}

/* ---- cosine_embedding_loss: cos = sum(x1 x2) / sqrt((sum(x1^2) + e)(sum(x2^2) + e)), e = 1e-12f
 * over the last dim; 1 - cos where target == 1, max(0, cos - margin) where target == -1 ---- */
static ct_status ct__cosine_embedding(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                      const ct_tensor *target, double margin, ct_reduction red,
                                      ct_tensor **out) {
    const ct_tensor *ins[3] = {x1, x2, target};
    ct_status st = ct__loss_args(ctx, "cosine_embedding_loss", 3, ins, red, out);
    if (st != CT_OK) return st;
    const int td = target->ndim;
    if (td > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "cosine_embedding_loss: 0D or 1D target tensor expected, "
                             "multi-target not supported");
    if (x1->ndim != td + 1 || x2->ndim != td + 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "cosine_embedding_loss: %dD target tensor expects %dD input tensors, "
                             "but found inputs of %d and %d dims",
                             td, td + 1, x1->ndim, x2->ndim);
    ct_tensor *t[18] = {NULL};
    const int dim[1] = {td};
    const double zero = 0;
    st = ct_mul(ctx, x1, x2, &t[0]);
    if (st == CT_OK) st = ct_sum(ctx, t[0], 1, dim, false, &t[1]); /* prod_sum */
    if (st == CT_OK) st = ct_mul(ctx, x1, x1, &t[2]);
    if (st == CT_OK) st = ct_sum(ctx, t[2], 1, dim, false, &t[3]);
    const double eps = (double)1e-12f;                          /* torch's EPSILON, a float */
    if (st == CT_OK) st = ct_add_scalar(ctx, t[3], eps, &t[4]); /* mag_square1 */
    if (st == CT_OK) st = ct_mul(ctx, x2, x2, &t[5]);
    if (st == CT_OK) st = ct_sum(ctx, t[5], 1, dim, false, &t[6]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[6], eps, &t[7]); /* mag_square2 */
    if (st == CT_OK) st = ct_mul(ctx, t[4], t[7], &t[8]);
    if (st == CT_OK) st = ct_sqrt(ctx, t[8], &t[9]);
    if (st == CT_OK) st = ct_div(ctx, t[1], t[9], &t[10]); /* cos */
    if (st == CT_OK) st = ct_zeros_like(ctx, t[10], &t[11]);
    if (st == CT_OK) st = ct_neg(ctx, t[10], &t[12]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[12], 1, &t[13]); /* 1 - cos */
    if (st == CT_OK) st = ct_sub_scalar(ctx, t[10], margin, &t[14]);
    if (st == CT_OK) st = ct_clamp(ctx, t[14], &zero, NULL, &t[15]);
    ct_tensor *m1 = NULL, *m2 = NULL, *o1 = NULL, *o2 = NULL;
    if (st == CT_OK) st = ct_eq_scalar(ctx, target, 1, &m1);
    if (st == CT_OK) st = ct_where(ctx, m1, t[13], t[11], &o1);
    if (st == CT_OK) st = ct_eq_scalar(ctx, target, -1, &m2);
    if (st == CT_OK) st = ct_where(ctx, m2, t[15], t[11], &o2);
    if (st == CT_OK) st = ct_add(ctx, o1, o2, &t[16]);
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[16], red, out);
        t[16] = NULL;
    }
    ct_tensor_release(m1), ct_tensor_release(m2), ct_tensor_release(o1), ct_tensor_release(o2);
    ct__release_all(18, t);
    return st;
}
ct_status ct_cosine_embedding_loss(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                                   const ct_tensor *target, double margin, ct_reduction reduction,
                                   ct_tensor **out) {
    return ct__error_within(ctx, "cosine_embedding_loss",
                            ct__cosine_embedding(ctx, x1, x2, target, margin, reduction, out));
}

/* ---- poisson_nll_loss: exp(x) - t x (log_input), else x - t log(x + eps); full adds the
 * Stirling term t log t - t + 0.5 log(2 pi t) where t > 1 ---- */
static ct_status ct__poisson_nll(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *target,
                                 bool log_input, bool full, double eps, ct_reduction red,
                                 ct_tensor **out) {
    const ct_tensor *ins[2] = {x, target};
    ct_status st = ct__loss_args(ctx, "poisson_nll_loss", 2, ins, red, out);
    if (st != CT_OK) return st;
    ct_tensor *t[14] = {NULL};
    if (log_input) {
        st = ct_exp(ctx, x, &t[0]);
        if (st == CT_OK) st = ct_mul(ctx, target, x, &t[1]);
    } else {
        st = ct_add_scalar(ctx, x, eps, &t[2]);
        if (st == CT_OK) st = ct_log(ctx, t[2], &t[3]);
        if (st == CT_OK) st = ct_mul(ctx, target, t[3], &t[1]);
        if (st == CT_OK) t[0] = ct_tensor_retain((ct_tensor *)x);
    }
    if (st == CT_OK) st = ct_sub(ctx, t[0], t[1], &t[4]);
    if (st == CT_OK && full) {
        st = ct_log(ctx, target, &t[5]);
        if (st == CT_OK) st = ct_mul(ctx, target, t[5], &t[6]);
        if (st == CT_OK) st = ct_sub(ctx, t[6], target, &t[7]);
        if (st == CT_OK) st = ct_mul_scalar(ctx, target, 2 * 3.14159265358979323846, &t[8]);
        if (st == CT_OK) st = ct_log(ctx, t[8], &t[9]);
        if (st == CT_OK) st = ct_mul_scalar(ctx, t[9], 0.5, &t[10]);
        if (st == CT_OK) st = ct_add(ctx, t[7], t[10], &t[11]); /* the Stirling term */
        if (st == CT_OK) st = ct_le_scalar(ctx, target, 1, &t[12]);
        ct_tensor *z = NULL;
        if (st == CT_OK) st = ct_masked_fill(ctx, t[11], t[12], 0, &z);
        if (st == CT_OK) st = ct_add(ctx, t[4], z, &t[13]);
        ct_tensor_release(z);
        if (st == CT_OK) {
            ct_tensor_release(t[4]);
            t[4] = t[13], t[13] = NULL;
        }
    }
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[4], red, out);
        t[4] = NULL;
    }
    ct__release_all(14, t);
    return st;
}
ct_status ct_poisson_nll_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                              bool log_input, bool full, double eps, ct_reduction reduction,
                              ct_tensor **out) {
    return ct__error_within(
        ctx, "poisson_nll_loss",
        ct__poisson_nll(ctx, input, target, log_input, full, eps, reduction, out));
}

/* ---- gaussian_nll_loss: 0.5 (log(v) + (x - t)^2 / v) with v = var clamped below at eps
 * without a gradient through the clamp (torch's no_grad clamp_ on a clone), + 0.5 log(2 pi) when
 * full. var: input's shape, or without its last dim, or with a last dim of 1 ---- */
static ct_status ct__gaussian_nll(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *target,
                                  const ct_tensor *var, bool full, double eps, ct_reduction red,
                                  ct_tensor **out) {
    const ct_tensor *ins[3] = {x, target, var};
    ct_status st = ct__loss_args(ctx, "gaussian_nll_loss", 3, ins, red, out);
    if (st != CT_OK) return st;
    bool same = var->ndim == x->ndim, unsq = false;
    for (int i = 0; same && i < x->ndim; i++)
        same = var->shape[i] == x->shape[i];
    if (!same) {
        bool lead = x->ndim >= 1 && var->ndim == x->ndim - 1;
        for (int i = 0; lead && i < var->ndim; i++)
            lead = var->shape[i] == x->shape[i];
        bool het = x->ndim >= 1 && var->ndim == x->ndim && var->shape[var->ndim - 1] == 1;
        for (int i = 0; het && i < x->ndim - 1; i++)
            het = var->shape[i] == x->shape[i];
        if (!lead && !het)
            return ct__set_error(ctx, CT_ERR_SHAPE, "gaussian_nll_loss: var is of incorrect size");
        unsq = lead;
    }
    ct_tensor *t[12] = {NULL};
    /* torch.any(var < 0): a host read, as torch */
    st = ct_lt_scalar(ctx, var, 0, &t[0]);
    if (st == CT_OK) st = ct_any(ctx, t[0], 0, NULL, false, &t[1]);
    double anyneg = 0;
    if (st == CT_OK) st = ct_tensor_item(t[1], &anyneg);
    if (st == CT_OK && anyneg != 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "gaussian_nll_loss: var has negative entry/entries");
    if (st == CT_OK)
        st = unsq ? ct_tensor_unsqueeze(ctx, var, -1, &t[2]) : ct_tensor_clone(ctx, var, &t[2]);
    if (st == CT_OK && unsq) {
        ct_tensor *c = NULL;
        st = ct_tensor_clone(ctx, t[2], &c);
        ct_tensor_release(t[2]);
        t[2] = c;
    }
    if (st == CT_OK) { /* the clamp without a gradient: written in place with grad disabled */
        const bool was = ct_set_grad_enabled(ctx, false);
        st = ct_clamp(ctx, t[2], &eps, NULL, &t[3]);
        if (st == CT_OK) st = ct_tensor_copy_(ctx, t[2], t[3]);
        ct_set_grad_enabled(ctx, was);
    }
    if (st == CT_OK) st = ct_log(ctx, t[2], &t[4]);
    if (st == CT_OK) st = ct_sub(ctx, x, target, &t[5]);
    if (st == CT_OK) st = ct_pow(ctx, t[5], 2, &t[6]);
    if (st == CT_OK) st = ct_div(ctx, t[6], t[2], &t[7]);
    if (st == CT_OK) st = ct_add(ctx, t[4], t[7], &t[8]);
    if (st == CT_OK) st = ct_mul_scalar(ctx, t[8], 0.5, &t[9]);
    if (st == CT_OK && full) {
        st = ct_add_scalar(ctx, t[9], 0.5 * log(2 * 3.14159265358979323846), &t[10]);
        if (st == CT_OK) {
            ct_tensor_release(t[9]);
            t[9] = t[10], t[10] = NULL;
        }
    }
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[9], red, out);
        t[9] = NULL;
    }
    ct__release_all(12, t);
    return st;
}
ct_status ct_gaussian_nll_loss(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *target,
                               const ct_tensor *var, bool full, double eps, ct_reduction reduction,
                               ct_tensor **out) {
    return ct__error_within(ctx, "gaussian_nll_loss",
                            ct__gaussian_nll(ctx, input, target, var, full, eps, reduction, out));
}

/* ---- pairwise_distance: ||x1 - x2 + eps||_p over the last dim of the broadcast ---- */
static ct_status ct__pairwise(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, double p,
                              double eps, bool keepdim, ct_tensor **out) {
    const ct_tensor *ins[2] = {x1, x2};
    ct_status st = ct__check_args(ctx, "pairwise_distance", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const int nd = x1->ndim > x2->ndim ? x1->ndim : x2->ndim;
    if (nd == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "pairwise_distance: expected inputs of at least one dimension");
    ct_tensor *d = NULL, *e = NULL;
    const int last = nd - 1;
    st = ct_sub(ctx, x1, x2, &d);
    if (st == CT_OK) st = ct_add_scalar(ctx, d, eps, &e);
    /* torch.norm (not vector_norm) is 0 over an empty dim for every p, inf included */
    if (st == CT_OK) st = ct_norm(ctx, e, e->shape[last] == 0 ? 1 : p, 1, &last, keepdim, out);
    ct_tensor_release(d), ct_tensor_release(e);
    return st;
}
ct_status ct_pairwise_distance(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, double p,
                               double eps, bool keepdim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's at::norm(x, p, dim): NormBackward1 */
    ct_status st =
        ct__error_within(ctx, "pairwise_distance", ct__pairwise(ctx, x1, x2, p, eps, keepdim, out));
    return ct__ag_named(ctx, st, out, mark, "NormBackward1");
}

/* ---- triplet_margin_loss: max(0, margin + d(a, p) - d(a, n)) with pairwise distances; swap
 * takes min(d(a, n), d(p, n)) ---- */
/* ---- triplet_margin_loss (ATen: clamp_min(margin + d(a, p) - d(a, n), 0), the three of one
 * rank) and triplet_margin_with_distance_loss (torch 1.13's Python: clamp(d(a, p) - d(a, n) +
 * margin, min=0), no rank check); d(a, n) is min(d(a, n), d(p, n)) with swap ---- */
typedef struct {
    double p, eps;
} ct__pw_args;
static ct_status ct__pw_dist(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, void *user,
                             ct_tensor **out) {
    const ct__pw_args *a = user;
    return ct__pairwise(ctx, x1, x2, a->p, a->eps, false, out);
}
static ct_status ct__triplet(ct_ctx *ctx, bool python, const ct_tensor *a, const ct_tensor *pos,
                             const ct_tensor *neg, ct_distance_fn dist, void *user, double margin,
                             bool swap, ct_reduction red, ct_tensor **out) {
    const char *op = python ? "triplet_margin_with_distance_loss" : "triplet_margin_loss";
    const ct_tensor *ins[3] = {a, pos, neg};
    ct_status st = ct__loss_args(ctx, op, 3, ins, red, out);
    if (st != CT_OK) return st;
    if (!python && (a->ndim != pos->ndim || a->ndim != neg->ndim))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "triplet_margin_loss: the anchor, positive and negative tensors "
                             "must have the same number of dimensions, got %d, %d and %d",
                             a->ndim, pos->ndim, neg->ndim);
    ct_tensor *t[7] = {NULL};
    const double zero = 0;
    st = dist(ctx, a, pos, user, &t[0]);
    if (st == CT_OK) st = dist(ctx, a, neg, user, &t[1]);
    if (st == CT_OK && swap) st = dist(ctx, pos, neg, user, &t[2]);
    if (st == CT_OK && (!t[0] || !t[1] || (swap && !t[2])))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: the distance returned no tensor", op);
    if (st == CT_OK && swap) {
        st = ct_minimum(ctx, t[1], t[2], &t[3]);
        if (st == CT_OK) {
            ct_tensor_release(t[1]);
            t[1] = t[3], t[3] = NULL;
        }
    }
    if (python) { /* d(a, p) - d(a, n) + margin */
        if (st == CT_OK) st = ct_sub(ctx, t[0], t[1], &t[4]);
        if (st == CT_OK) st = ct_add_scalar(ctx, t[4], margin, &t[5]);
    } else { /* margin + d(a, p) - d(a, n) */
        if (st == CT_OK) st = ct_add_scalar(ctx, t[0], margin, &t[4]);
        if (st == CT_OK) st = ct_sub(ctx, t[4], t[1], &t[5]);
    }
    if (st == CT_OK) st = ct_clamp(ctx, t[5], &zero, NULL, &t[6]);
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[6], red, out);
        t[6] = NULL;
    }
    ct__release_all(7, t);
    return st;
}
ct_status ct_triplet_margin_loss(ct_ctx *ctx, const ct_tensor *anchor, const ct_tensor *positive,
                                 const ct_tensor *negative, double margin, double p, double eps,
                                 bool swap, ct_reduction reduction, ct_tensor **out) {
    ct__pw_args pw = {p, eps};
    return ct__error_within(ctx, "triplet_margin_loss",
                            ct__triplet(ctx, false, anchor, positive, negative, ct__pw_dist, &pw,
                                        margin, swap, reduction, out));
}

/* ---- triplet_margin_with_distance_loss: torch 1.13's Python composite with a user distance
 * (NULL: pairwise_distance, p = 2, eps = 1e-6) ---- */
ct_status ct_triplet_margin_with_distance_loss(ct_ctx *ctx, const ct_tensor *anchor,
                                               const ct_tensor *positive, const ct_tensor *negative,
                                               ct_distance_fn distance, void *user, double margin,
                                               bool swap, ct_reduction reduction, ct_tensor **out) {
    ct__pw_args pw = {2.0, 1e-6};
    return ct__error_within(ctx, "triplet_margin_with_distance_loss",
                            ct__triplet(ctx, true, anchor, positive, negative,
                                        distance ? distance : ct__pw_dist, distance ? user : &pw,
                                        margin, swap, reduction, out));
}

/* ---- multilabel_soft_margin_loss: -(t logsigmoid(x) + (1 - t) logsigmoid(-x)) (times weight),
 * summed over the class dim (the last) and divided by its size, then reduced ---- */
static ct_status ct__multilabel_soft(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *target,
                                     const ct_tensor *weight, ct_reduction red, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, target};
    ct_status st = ct__loss_args(ctx, "multilabel_soft_margin_loss", 2, ins, red, out);
    if (st != CT_OK) return st;
    if (weight &&
        (st = ct__check_tensor(ctx, "multilabel_soft_margin_loss", "weight", weight)) != CT_OK)
        return st;
    if (x->ndim == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "multilabel_soft_margin_loss: expected an input with a class dim");
    ct_tensor *t[12] = {NULL};
    const int cd = x->ndim - 1;
    st = ct_logsigmoid(ctx, x, &t[0]);
    if (st == CT_OK) st = ct_mul(ctx, target, t[0], &t[1]);
    if (st == CT_OK) st = ct_neg(ctx, target, &t[2]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[2], 1, &t[3]); /* 1 - t */
    if (st == CT_OK) st = ct_neg(ctx, x, &t[4]);
    if (st == CT_OK) st = ct_logsigmoid(ctx, t[4], &t[5]);
    if (st == CT_OK) st = ct_mul(ctx, t[3], t[5], &t[6]);
    if (st == CT_OK) st = ct_add(ctx, t[1], t[6], &t[7]);
    if (st == CT_OK) st = ct_neg(ctx, t[7], &t[8]);
    if (st == CT_OK && weight) {
        st = ct_mul(ctx, t[8], weight, &t[9]);
        if (st == CT_OK) {
            ct_tensor_release(t[8]);
            t[8] = t[9], t[9] = NULL;
        }
    }
    if (st == CT_OK) st = ct_sum(ctx, t[8], 1, &cd, false, &t[10]);
    if (st == CT_OK) st = ct_div_scalar(ctx, t[10], (double)x->shape[cd], &t[11]);
    if (st == CT_OK) {
        st = ct__ag_reduce_loss(ctx, t[11], red, out);
        t[11] = NULL;
    }
    ct__release_all(12, t);
    return st;
}
ct_status ct_multilabel_soft_margin_loss(ct_ctx *ctx, const ct_tensor *input,
                                         const ct_tensor *target, const ct_tensor *weight,
                                         ct_reduction reduction, ct_tensor **out) {
    return ct__error_within(ctx, "multilabel_soft_margin_loss",
                            ct__multilabel_soft(ctx, input, target, weight, reduction, out));
}

/* ---- pixel_shuffle / pixel_unshuffle: (*, C r^2, H, W) <-> (*, C, H r, W r) by a reshape, a
 * permutation and a copy ---- */
static ct_status ct__pixel(ct_ctx *ctx, const ct_tensor *x, int64_t r, bool shuffle,
                           ct_tensor **out) {
    const char *op = shuffle ? "pixel_shuffle" : "pixel_unshuffle";
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim < 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expects input to have at least 3 dimensions, but got input "
                             "with %d dimension(s)",
                             op, x->ndim);
    if (x->ndim + 2 > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: at most %d dims (the reshape needs 2 more)",
                             op, CT_MAX_DIMS - 2);
    if (r <= 0 || r > (1 << 20))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: factor must be > 0, got %lld", op,
                             (long long)r);
    const int b = x->ndim - 3;
    const int64_t C = x->shape[b], H = x->shape[b + 1], W = x->shape[b + 2];
    if (shuffle ? C % (r * r) != 0 : (H % r != 0 || W % r != 0))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             shuffle ? "%s: channels (%lld) must be divisible by the square of "
                                       "the upscale factor"
                                     : "%s: height and width (%lld, %lld) must be divisible by "
                                       "the downscale factor",
                             op, (long long)(shuffle ? C : H), (long long)W);
    int64_t s6[CT_MAX_DIMS], s3[CT_MAX_DIMS];
    int perm[CT_MAX_DIMS];
    for (int i = 0; i < b; i++)
        s6[i] = s3[i] = x->shape[i], perm[i] = i;
    if (shuffle) { /* (C, r, r, H, W) -> (C, H, r, W, r) */
        const int64_t oc = C / (r * r);
        const int64_t a[5] = {oc, r, r, H, W};
        const int pm[5] = {0, 3, 1, 4, 2};
        for (int i = 0; i < 5; i++)
            s6[b + i] = a[i], perm[b + i] = b + pm[i];
        s3[b] = oc, s3[b + 1] = H * r, s3[b + 2] = W * r;
    } else { /* (C, H/r, r, W/r, r) -> (C, r, r, H/r, W/r) */
        const int64_t a[5] = {C, H / r, r, W / r, r};
        const int pm[5] = {0, 2, 4, 1, 3};
        for (int i = 0; i < 5; i++)
            s6[b + i] = a[i], perm[b + i] = b + pm[i];
        s3[b] = C * r * r, s3[b + 1] = H / r, s3[b + 2] = W / r;
    }
    ct_tensor *t[3] = {NULL, NULL, NULL};
    st = ct_tensor_reshape(ctx, x, b + 5, s6, &t[0]);
    if (st == CT_OK) st = ct_tensor_permute(ctx, t[0], perm, &t[1]);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, t[1], &t[2]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[2], b + 3, s3, out);
    ct__release_all(3, t);
    return st;
}
ct_status ct_pixel_shuffle(ct_ctx *ctx, const ct_tensor *x, int64_t upscale_factor,
                           ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "pixel_shuffle", ct__pixel(ctx, x, upscale_factor, true, out));
    return ct__ag_named(ctx, st, out, mark, "PixelShuffleBackward0");
}
ct_status ct_pixel_unshuffle(ct_ctx *ctx, const ct_tensor *x, int64_t downscale_factor,
                             ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "pixel_unshuffle", ct__pixel(ctx, x, downscale_factor, false, out));
    return ct__ag_named(ctx, st, out, mark, "PixelUnshuffleBackward0");
}

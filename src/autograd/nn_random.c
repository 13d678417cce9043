/* Random regularisers and bags of torch.nn.functional, composed of recording ops: dropout1d / 2d /
 * 3d (whole channels), alpha_dropout and feature_alpha_dropout (SELU's), rrelu, gumbel_softmax,
 * embedding_bag, and torch.unique_consecutive. The random draws come from ct_tensor_rand (seed,
 * offset), so a call is reproducible and graph-safe; the formulas are torch 1.13's
 * (_dropout_impl, rrelu_with_noise, F.gumbel_softmax, embedding_bag). docs/everyday.md
 * ("Random regularisers, embedding_bag, unique_consecutive") lists the differences. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ct_status ct__p_ok(ct_ctx *ctx, const char *op, double p) {
    if (p >= 0 && p <= 1) return CT_OK;
    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                         "%s: dropout probability has to be between 0 and 1, but got %g", op, p);
}

/* noise of `shape` (the input's, or (N, C, 1, ...) for the feature forms): keep = rand >= p */
static ct_status ct__keep_mask(ct_ctx *ctx, const ct_tensor *x, bool feature, bool batched,
                               double p, uint64_t seed, uint64_t offset, ct_tensor **keep) {
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        sh[i] = !feature || i < (batched ? 2 : 1) ? x->shape[i] : 1;
    const ct_dtype dt = x->dtype == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    ct_tensor *u = NULL;
    ct_status st = ct_tensor_rand(ctx, dt, x->ndim, sh, seed, offset, &u);
    CT__DO(st, ct_ge_scalar(ctx, u, p, keep));
    ct_tensor_release(u);
    return st;
}

/* torch's _dropout_impl: p == 1 -> x * 0; dropout: x * (keep / (1 - p)); alpha: x * a keep + b
 * with b = (keep - 1) alpha' a + alpha' a p, a = 1 / sqrt((alpha'^2 p + 1)(1 - p)) */
static ct_status ct__dropout_any(ct_ctx *ctx, const char *op, const ct_tensor *x, double p,
                                 bool training, bool feature, bool alpha, int feat_rank,
                                 uint64_t seed, uint64_t offset, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__p_ok(ctx, op, p)) != CT_OK) return st;
    if (!ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating point input, got %s", op,
                             ct_dtype_name(x->dtype));
    bool batched = true;
    if (feature && feat_rank > 0) { /* dropout1d: 2 or 3 dims, 2d: 3 or 4, 3d: 4 or 5 */
        if (x->ndim != feat_rank + 1 && x->ndim != feat_rank + 2)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: expected %dD or %dD input, but received input of size %s", op,
                                 feat_rank + 1, feat_rank + 2, CT__SHAPE_STR(x));
        /* torch 1.13: a 3-d input to dropout2d is (N, C, L), channel-wise 1-d dropout */
        batched = x->ndim == feat_rank + 2 || feat_rank == 2;
    } else if (feature && x->ndim < 2 && training && p != 0) {
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: feature dropout requires at least 2 dimensions in the input", op);
    }
    if (!training || p == 0) {
        *out = ct_tensor_retain((ct_tensor *)x);
        return CT_OK;
    }
    ct_tensor *t[10] = {NULL};
    if (p == 1) {
        st = ct_tensor_zeros(ctx, x->dtype, 0, NULL, &t[0]);
        CT__DO(st, ct_mul(ctx, x, t[0], out));
        ct__release_all(10, t);
        return st;
    }
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct__keep_mask(ctx, x, feature, batched, p, seed, offset, &t[0]);
    CT__DO(st, ct_cast(ctx, t[0], x->dtype, &t[1])); /* noise in {0, 1} */
    if (!alpha) {
        CT__DO(st, ct_div_scalar(ctx, t[1], 1 - p, &t[2]));
    } else {
        const double al = 1.7580993408473766, a = 1. / sqrt((al * al * p + 1) * (1 - p));
        CT__DO(st, ct_add_scalar(ctx, t[1], -1, &t[3]));
        CT__DO(st, ct_mul_scalar(ctx, t[3], al * a, &t[4]));
        CT__DO(st, ct_add_scalar(ctx, t[4], al * a * p, &t[5])); /* b */
        CT__DO(st, ct_mul_scalar(ctx, t[1], a, &t[2]));
    }
    ct_set_grad_enabled(ctx, was);
    if (!alpha) {
        CT__DO(st, ct_mul(ctx, x, t[2], out));
    } else {
        CT__DO(st, ct_mul(ctx, x, t[2], &t[6]));
        CT__DO(st, ct_add(ctx, t[6], t[5], out));
    }
    ct__release_all(10, t);
    return st;
}
ct_status ct_dropout1d(ct_ctx *ctx, const ct_tensor *x, double p, bool training, uint64_t seed,
                       uint64_t offset, ct_tensor **out) {
    return ct__error_within(
        ctx, "dropout1d",
        ct__dropout_any(ctx, "dropout1d", x, p, training, true, false, 1, seed, offset, out));
}
ct_status ct_dropout2d(ct_ctx *ctx, const ct_tensor *x, double p, bool training, uint64_t seed,
                       uint64_t offset, ct_tensor **out) {
    return ct__error_within(
        ctx, "dropout2d",
        ct__dropout_any(ctx, "dropout2d", x, p, training, true, false, 2, seed, offset, out));
}
ct_status ct_dropout3d(ct_ctx *ctx, const ct_tensor *x, double p, bool training, uint64_t seed,
                       uint64_t offset, ct_tensor **out) {
    return ct__error_within(
        ctx, "dropout3d",
        ct__dropout_any(ctx, "dropout3d", x, p, training, true, false, 3, seed, offset, out));
}
ct_status ct_alpha_dropout(ct_ctx *ctx, const ct_tensor *x, double p, bool training, uint64_t seed,
                           uint64_t offset, ct_tensor **out) {
    return ct__error_within(
        ctx, "alpha_dropout",
        ct__dropout_any(ctx, "alpha_dropout", x, p, training, false, true, 0, seed, offset, out));
}
ct_status ct_feature_alpha_dropout(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                                   uint64_t seed, uint64_t offset, ct_tensor **out) {
    return ct__error_within(ctx, "feature_alpha_dropout",
                            ct__dropout_any(ctx, "feature_alpha_dropout", x, p, training, true,
                                            true, 0, seed, offset, out));
}

/* ---- rrelu: x where x > 0, else x r with r ~ U(lower, upper) (training) or (lower + upper) / 2 */
static ct_status ct__rrelu(ct_ctx *ctx, const ct_tensor *x, double lower, double upper,
                           bool training, uint64_t seed, uint64_t offset, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "rrelu", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "rrelu: expected a floating point input, got %s",
                             ct_dtype_name(x->dtype));
    if (!(lower <= upper) || !isfinite(lower) || !isfinite(upper))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "rrelu: lower bound %g must be finite and <= upper bound %g", lower,
                             upper);
    if (!training)
        return ct__error_within(ctx, "rrelu", ct_leaky_relu(ctx, x, (lower + upper) / 2, out));
    ct_tensor *t[6] = {NULL};
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct_rand_like(ctx, x, seed, offset, &t[0]);
    CT__DO(st, ct_mul_scalar(ctx, t[0], upper - lower, &t[1]));
    CT__DO(st, ct_add_scalar(ctx, t[1], lower, &t[2])); /* r */
    CT__DO(st, ct_gt_scalar(ctx, x, 0, &t[3]));
    ct_set_grad_enabled(ctx, was);
    CT__DO(st, ct_mul(ctx, x, t[2], &t[4]));
    CT__DO(st, ct_where(ctx, t[3], x, t[4], out));
    ct__release_all(6, t);
    return ct__error_within(ctx, "rrelu", st);
}

ct_status ct_rrelu(ct_ctx *ctx, const ct_tensor *x, double lower, double upper, bool training,
                   uint64_t seed, uint64_t offset, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__rrelu(ctx, x, lower, upper, training, seed, offset, out);
    return ct__ag_named(ctx, st, out, mark, "RreluWithNoiseBackward0");
}

/* ---- gumbel_softmax: softmax((logits + g) / tau) with g = -log(E), E ~ Exp(1); hard: the one-hot
 * of its argmax, y_hard - y.detach() + y (the straight-through estimator, as torch) ---- */
ct_status ct_gumbel_softmax(ct_ctx *ctx, const ct_tensor *logits, double tau, bool hard, int dim,
                            uint64_t seed, uint64_t offset, ct_tensor **out) {
    const ct_tensor *ins[1] = {logits};
    ct_status st = ct__check_args(ctx, "gumbel_softmax", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct_dtype_is_floating(logits->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "gumbel_softmax: expected floating logits, got %s",
                             ct_dtype_name(logits->dtype));
    if (!(tau > 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "gumbel_softmax: tau must be > 0, got %g",
                             tau);
    int d = 0;
    if (!ct__wrap_dim(dim, logits->ndim ? logits->ndim : 1, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "gumbel_softmax: dim %d out of range for %d dims",
                             dim, logits->ndim);
    ct_tensor *t[14] = {NULL};
    const bool was = ct_set_grad_enabled(ctx, false);
    /* U in float64 (a half U of 0 would give an infinite noise), E = -log(1 - U) clamped above 0 */
    ct_tensor *e0 = NULL, *g64 = NULL;
    st = ct_tensor_rand(ctx, CT_FLOAT64, logits->ndim, logits->shape, seed, offset, &t[0]);
    CT__DO(st, ct_neg(ctx, t[0], &t[1]));
    CT__DO(st, ct_log1p(ctx, t[1], &t[2]));
    CT__DO(st, ct_neg(ctx, t[2], &e0));
    CT__DO(st, ct_clamp_min(ctx, e0, 0x1p-1022, &t[3])); /* E */
    CT__DO(st, ct_log(ctx, t[3], &t[4]));
    CT__DO(st, ct_neg(ctx, t[4], &g64));
    CT__DO(st, ct_cast(ctx, g64, logits->dtype, &t[5])); /* gumbel noise */
    ct_tensor_release(e0), ct_tensor_release(g64);
    ct_set_grad_enabled(ctx, was);
    CT__DO(st, ct_add(ctx, logits, t[5], &t[6]));
    CT__DO(st, ct_div_scalar(ctx, t[6], tau, &t[7]));
    CT__DO(st, ct_softmax(ctx, t[7], d, &t[8]));
    if (!hard) {
        if (st == CT_OK) *out = ct_tensor_retain(t[8]);
    } else {
        CT__DO(st, ct_argmax(ctx, t[8], d, true, &t[9]));
        CT__DO(st, ct_zeros_like(ctx, t[8], &t[10]));
        CT__DO(st, ct_ones_like(ctx, t[9], &t[13]));
        if (st == CT_OK) {
            ct_tensor *one = NULL;
            st = ct_cast(ctx, t[13], t[8]->dtype, &one);
            CT__DO(st, ct_scatter(ctx, t[10], d, t[9], one, &t[11])); /* y_hard */
            ct_tensor_release(one);
        }
        CT__DO(st, ct_tensor_detach(ctx, t[8], &t[12]));
        ct_tensor *diff = NULL;
        CT__DO(st, ct_sub(ctx, t[11], t[12], &diff));
        CT__DO(st, ct_add(ctx, diff, t[8], out));
        ct_tensor_release(diff);
    }
    ct__release_all(14, t);
    return ct__error_within(ctx, "gumbel_softmax", st);
}

/* ---- embedding_bag: the bags of indices (1-d with offsets, or the rows of a 2-d input) reduced
 * by sum / mean / max over weight's rows; per_sample_weights scale the rows (sum only);
 * padding_idx rows are left out; an empty bag gives zeros ---- */
static ct_status ct__embedding_bag(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                                   const ct_tensor *offsets, ct_embedding_bag_mode mode,
                                   const ct_tensor *psw, bool include_last_offset,
                                   int64_t padding_idx, ct_tensor **out) {
    const ct_tensor *ins[2] = {weight, indices};
    ct_status st = ct__check_args(ctx, "embedding_bag", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (weight->ndim != 2 || !ct_dtype_is_floating(weight->dtype))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "embedding_bag: weight must be a 2-d floating tensor, got %s %s",
                             ct_dtype_name(weight->dtype), CT__SHAPE_STR(weight));
    if (indices->dtype != CT_INT64 && indices->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "embedding_bag: expected indices of int64 or int32, got %s",
                             ct_dtype_name(indices->dtype));
    if (mode != CT_EMBEDDING_BAG_SUM && mode != CT_EMBEDDING_BAG_MEAN &&
        mode != CT_EMBEDDING_BAG_MAX)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "embedding_bag: unknown mode %d", (int)mode);
    if (psw && mode != CT_EMBEDDING_BAG_SUM)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "embedding_bag: per_sample_weights was not None. per_sample_weights "
                             "is only supported for mode='sum'");
    const int64_t V = weight->shape[0], D = weight->shape[1];
    if (padding_idx != CT_NO_PADDING_IDX && (padding_idx < -V || padding_idx >= V))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "embedding_bag: padding_idx %lld must be within num_embeddings %lld "
                             "(CT_NO_PADDING_IDX for none)",
                             (long long)padding_idx, (long long)V);
    ct_tensor *t[24] = {NULL};
    int64_t n = ct_tensor_numel(indices), B = 0;
    /* the bag of each index position */
    st = ct_cast(ctx, indices, CT_INT64, &t[0]);
    CT__DO(st, ct_tensor_reshape(ctx, t[0], 1, &n, &t[1]));
    if (st == CT_OK && indices->ndim == 2) {
        if (offsets)
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "embedding_bag: if input is 2D, then offsets has to be None");
        B = indices->shape[0];
        const int64_t L = indices->shape[1];
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)n, 1, &t[2]));
        CT__DO(st, ct_div_scalar_mode(ctx, t[2], (double)(L ? L : 1), CT_ROUND_FLOOR, &t[3]));
    } else if (st == CT_OK) {
        if (indices->ndim != 1 || !offsets)
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "embedding_bag: input has to be 1D with offsets, or 2D without");
        if (st == CT_OK &&
            (offsets->ndim != 1 || (offsets->dtype != CT_INT64 && offsets->dtype != CT_INT32)))
            st = ct__set_error(ctx, CT_ERR_SHAPE, "embedding_bag: offsets must be 1-d int64");
        if (st == CT_OK) {
            B = offsets->shape[0] - (include_last_offset ? 1 : 0);
            if (B < 0)
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "embedding_bag: include_last_offset needs at least one offset");
        }
        CT__DO(st, ct_cast(ctx, offsets, CT_INT64, &t[4]));
        if (st == CT_OK && B < offsets->shape[0])
            st = ct_tensor_narrow(ctx, t[4], 0, 0, B, &t[5]);
        else if (st == CT_OK)
            t[5] = ct_tensor_retain(t[4]);
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)(n ? n : 1), 1, &t[2]));
        if (st == CT_OK && n == 0) {
            ct_tensor_release(t[2]);
            t[2] = NULL;
            st = ct_tensor_zeros(ctx, CT_INT64, 1, &n, &t[2]);
        }
        /* torch: offsets[0] == 0, offsets[-1] <= len(input), never decreasing; a failure becomes
         * an out-of-range gather (CT_ERR_INDEX) so no host read is needed */
        if (st == CT_OK && offsets->shape[0] > 0) {
            ct_tensor *f = NULL, *l = NULL, *b1 = NULL, *b2 = NULL, *b3 = NULL, *d = NULL,
                      *neg = NULL, *anyneg = NULL, *bi = NULL, *probe = NULL, *b4 = NULL;
            const int64_t no = offsets->shape[0];
            st = ct_tensor_narrow(ctx, t[4], 0, 0, 1, &f);
            CT__DO(st, ct_tensor_narrow(ctx, t[4], 0, no - 1, 1, &l));
            CT__DO(st, ct_ne_scalar(ctx, f, 0, &b1));
            CT__DO(st, ct_gt_scalar(ctx, l, (double)n, &b2));
            CT__DO(st, ct_logical_or(ctx, b1, b2, &b3));
            CT__DO(st, ct_diff(ctx, t[4], 1, 0, NULL, NULL, &d));
            CT__DO(st, ct_lt_scalar(ctx, d, 0, &neg));
            CT__DO(st, ct_any(ctx, neg, 0, NULL, true, &anyneg));
            CT__DO(st, ct_logical_or(ctx, b3, anyneg, &b4));
            CT__DO(st, ct_cast(ctx, b4, CT_INT64, &bi));
            const int64_t len1 = 1;
            CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, 1, &len1, &probe));
            ct_tensor *chk = NULL;
            CT__DO(st, ct_index_select(ctx, probe, 0, bi, &chk));
            if (st == CT_ERR_INDEX)
                st = ct__set_error(ctx, st,
                                   "embedding_bag: offsets must start at 0, never decrease and "
                                   "not pass the input's length %lld",
                                   (long long)n);
            ct_tensor *tl[] = {f, l, b1, b2, b3, d, neg, anyneg, bi, probe, b4, chk};
            ct__release_all((int)(sizeof tl / sizeof tl[0]), tl);
        }
        CT__DO(st, ct_searchsorted(ctx, t[5], t[2], false, true, &t[6]));
        CT__DO(st, ct_add_scalar(ctx, t[6], -1, &t[3])); /* bag id (-1 before the first) */
    }
    if (st == CT_OK && B == 0) { /* (0, D) rows of weight: empty, but on the graph (zero
                                  * gradients, as torch) */
        const int64_t z = 0;
        ct_tensor *none = NULL;
        st = ct_tensor_zeros(ctx, CT_INT64, 1, &z, &none);
        CT__DO(st, ct_index_select(ctx, weight, 0, none, out));
        ct_tensor_release(none);
        ct__release_all(24, t);
        return st;
    }
    /* rows kept: inside a bag and not padding */
    const int64_t pad =
        padding_idx != CT_NO_PADDING_IDX && padding_idx < 0 ? padding_idx + V : padding_idx;
    CT__DO(st, ct_ge_scalar(ctx, t[3], 0, &t[7]));
    if (st == CT_OK && indices->ndim == 1 && include_last_offset) { /* positions from the last
                                                                     * offset on belong to no bag */
        ct_tensor *last = NULL, *in = NULL, *k2 = NULL;
        st = ct_tensor_narrow(ctx, t[4], 0, B, 1, &last);
        CT__DO(st, ct_lt(ctx, t[2], last, &in));
        CT__DO(st, ct_logical_and(ctx, t[7], in, &k2));
        ct_tensor_release(last), ct_tensor_release(in), ct_tensor_release(t[7]);
        t[7] = k2;
    }
    if (pad != CT_NO_PADDING_IDX) {
        ct_tensor *np = NULL, *k2 = NULL;
        CT__DO(st, ct_ne_scalar(ctx, t[1], (double)pad, &np));
        CT__DO(st, ct_logical_and(ctx, t[7], np, &k2));
        ct_tensor_release(np), ct_tensor_release(t[7]);
        t[7] = k2;
    }
    CT__DO(st, ct_clamp_min(ctx, t[3], 0, &t[8]));            /* safe bag ids */
    CT__DO(st, ct_index_select(ctx, weight, 0, t[1], &t[9])); /* (n, D); bad index: CT_ERR_INDEX */
    if (psw) {
        const ct_tensor *pi[1] = {psw};
        CT__DO(st, ct__check_args(ctx, "embedding_bag", 1, pi, &t[20]));
        if (st == CT_OK && ct_tensor_numel(psw) != n)
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "embedding_bag: per_sample_weights %s must have the input's %lld "
                               "elements",
                               CT__SHAPE_STR(psw), (long long)n);
        CT__DO(st, ct_tensor_reshape(ctx, psw, 2, (const int64_t[]){n, 1}, &t[10]));
        CT__DO(st, ct_mul(ctx, t[9], t[10], &t[11]));
    } else if (st == CT_OK) {
        t[11] = ct_tensor_retain(t[9]);
    }
    CT__DO(st, ct_tensor_reshape(ctx, t[7], 2, (const int64_t[]){n, 1}, &t[12]));
    CT__DO(st, ct_logical_not(ctx, t[12], &t[14]));
    CT__DO(st, ct_masked_fill(ctx, t[11], t[14], 0, &t[13])); /* (n, D), dropped rows 0 */
    if (mode == CT_EMBEDDING_BAG_MAX && n > 0) {              /* no rows: the sums' zeros below */
        CT__DO(st, ct_tensor_zeros(ctx, weight->dtype, 2, (const int64_t[]){B, D}, &t[15]));
        /* dropped rows must not win the max: -inf for them, and the bag id of a kept row */
        CT__DO(st, ct_masked_fill(ctx, t[11], t[14], -INFINITY, &t[16]));
        CT__DO(st, ct_tensor_reshape(ctx, t[8], 2, (const int64_t[]){n, 1}, &t[17]));
        CT__DO(st, ct_tensor_expand(ctx, t[17], 2, (const int64_t[]){n, D}, &t[18]));
        /* the maxima without gradient; the gradient then goes to the first row reaching each
         * bag's maximum (NaN: the first NaN), as torch's max_indices, through a gather */
        ct_tensor *mx = NULL, *mg = NULL, *hit = NULL, *nan1 = NULL, *nan2 = NULL, *nn = NULL;
        ct_tensor *hit2 = NULL, *pos = NULL, *pos2 = NULL, *big = NULL, *cand = NULL, *first = NULL;
        ct_tensor *fi = NULL, *fs = NULL;
        const bool was = ct_set_grad_enabled(ctx, false);
        CT__DO(st, ct_scatter_reduce(ctx, t[15], 0, t[18], t[16], "amax", false, &mx));
        CT__DO(st, ct_gather(ctx, mx, 0, t[18], &mg)); /* (n, D): each row's bag maximum */
        CT__DO(st, ct_eq(ctx, t[16], mg, &hit));
        CT__DO(st, ct_isnan(ctx, t[16], &nan1));
        CT__DO(st, ct_isnan(ctx, mg, &nan2));
        CT__DO(st, ct_logical_and(ctx, nan1, nan2, &nn));
        CT__DO(st, ct_logical_or(ctx, hit, nn, &hit2));
        if (st == CT_OK) { /* kept rows only (a dropped row's -inf never counts) */
            ct_tensor *k = NULL;
            st = ct_logical_and(ctx, hit2, t[12], &k);
            ct_tensor_release(hit2), hit2 = k;
        }
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)n, 1, &pos));
        CT__DO(st, ct_tensor_reshape(ctx, pos, 2, (const int64_t[]){n, 1}, &pos2));
        CT__DO(st, ct_tensor_full(ctx, CT_INT64, 0, NULL, (double)(n - 1), &big));
        CT__DO(st, ct_where(ctx, hit2, pos2, big, &cand));
        CT__DO(st, ct_tensor_full(ctx, CT_INT64, 2, (const int64_t[]){B, D}, (double)(n - 1), &fi));
        CT__DO(st, ct_scatter_reduce(ctx, fi, 0, t[18], cand, "amin", true, &first));
        ct_set_grad_enabled(ctx, was);
        CT__DO(st, ct_gather(ctx, t[16], 0, first, &fs)); /* (B, D), the chosen rows' values */
        if (st == CT_OK) t[19] = fs, fs = NULL;
        ct_tensor *tl2[] = {mx, mg, hit, nan1, nan2, nn, hit2, pos, pos2, big, cand, first, fi, fs};
        ct__release_all((int)(sizeof tl2 / sizeof tl2[0]), tl2);
        /* bags without a kept row give 0 (a bag of -inf values keeps -inf, as torch) */
        ct_tensor *ones = NULL, *cnt = NULL, *c1 = NULL, *empty = NULL, *e2 = NULL;
        CT__DO(st, ct_cast(ctx, t[7], CT_INT64, &ones));
        CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, 1, &B, &cnt));
        CT__DO(st, ct_index_add(ctx, cnt, 0, t[8], ones, 1.0, &c1));
        CT__DO(st, ct_eq_scalar(ctx, c1, 0, &empty));
        CT__DO(st, ct_tensor_reshape(ctx, empty, 2, (const int64_t[]){B, 1}, &e2));
        CT__DO(st, ct_masked_fill(ctx, t[19], e2, 0, out));
        ct_tensor_release(ones), ct_tensor_release(cnt), ct_tensor_release(c1);
        ct_tensor_release(empty), ct_tensor_release(e2);
    } else {
        CT__DO(st, ct_tensor_zeros(ctx, weight->dtype, 2, (const int64_t[]){B, D}, &t[15]));
        CT__DO(st, ct_index_add(ctx, t[15], 0, t[8], t[13], 1.0, &t[16])); /* sums */
        if (mode == CT_EMBEDDING_BAG_SUM) {
            if (st == CT_OK) *out = ct_tensor_retain(t[16]);
        } else { /* mean: / max(count, 1) */
            ct_tensor *ones = NULL, *cnt = NULL, *c1 = NULL, *cf = NULL, *cr = NULL;
            CT__DO(st, ct_cast(ctx, t[7], weight->dtype, &ones));
            CT__DO(st, ct_tensor_zeros(ctx, weight->dtype, 1, &B, &cnt));
            CT__DO(st, ct_index_add(ctx, cnt, 0, t[8], ones, 1.0, &c1));
            CT__DO(st, ct_clamp_min(ctx, c1, 1, &cf));
            CT__DO(st, ct_tensor_reshape(ctx, cf, 2, (const int64_t[]){B, 1}, &cr));
            CT__DO(st, ct_div(ctx, t[16], cr, out));
            ct_tensor_release(ones), ct_tensor_release(cnt), ct_tensor_release(c1);
            ct_tensor_release(cf), ct_tensor_release(cr);
        }
    }
    ct__release_all(24, t);
    return st;
}
ct_status ct_embedding_bag(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                           const ct_tensor *offsets, ct_embedding_bag_mode mode,
                           const ct_tensor *per_sample_weights, bool include_last_offset,
                           int64_t padding_idx, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "embedding_bag",
                         ct__embedding_bag(ctx, weight, indices, offsets, mode, per_sample_weights,
                                           include_last_offset, padding_idx, out));
    return ct__ag_named(ctx, st, out, mark, "EmbeddingBagBackward0");
}

/* ---- unique_consecutive of the flattened tensor: a value starts a run where it differs from its
 * predecessor (NaN always does, as torch) ---- */
ct_status ct_unique_consecutive(ct_ctx *ctx, const ct_tensor *t, ct_tensor **values,
                                ct_tensor **inverse, ct_tensor **counts) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "unique_consecutive", 1, ins, values);
    if (st != CT_OK) return st;
    *values = NULL;
    if (inverse) *inverse = NULL;
    if (counts) *counts = NULL;
    const int64_t n = ct_tensor_numel(t);
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *x[12] = {NULL};
    st = ct_tensor_reshape(ctx, t, 1, &n, &x[0]);
    if (st == CT_OK && n == 0) {
        st = ct_tensor_clone(ctx, x[0], values);
        if (inverse) CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, t->ndim, t->shape, inverse));
        if (counts) CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, 1, &n, counts));
    } else if (st == CT_OK) {
        const int64_t one = 1;
        CT__DO(st, ct_tensor_ones(ctx, CT_BOOL, 1, &one, &x[1]));
        CT__DO(st, ct_tensor_narrow(ctx, x[0], 0, 1, n - 1, &x[2]));
        CT__DO(st, ct_tensor_narrow(ctx, x[0], 0, 0, n - 1, &x[3]));
        CT__DO(st, ct_ne(ctx, x[2], x[3], &x[4]));
        const ct_tensor *parts[2] = {x[1], x[4]};
        CT__DO(st, ct_cat(ctx, 2, parts, 0, &x[5])); /* run starts */
        CT__DO(st, ct_masked_select(ctx, x[0], x[5], values));
        if (inverse) {
            CT__DO(st, ct_cast(ctx, x[5], CT_INT64, &x[6]));
            CT__DO(st, ct_cumsum(ctx, x[6], 0, &x[7]));
            CT__DO(st, ct_add_scalar(ctx, x[7], -1, &x[8]));
            CT__DO(st, ct_tensor_reshape(ctx, x[8], t->ndim, t->shape, inverse));
        }
        if (counts) { /* the gaps between run starts, and to the end */
            ct_tensor *pos = NULL, *p1 = NULL, *end = NULL, *all = NULL;
            CT__DO(st, ct_nonzero(ctx, x[5], &pos)); /* (R, 1) */
            CT__DO(st, ct_tensor_reshape(ctx, pos, 1, (const int64_t[]){-1}, &p1));
            CT__DO(st, ct_tensor_full(ctx, CT_INT64, 1, &one, (double)n, &end));
            const ct_tensor *pe[2] = {p1, end};
            CT__DO(st, ct_cat(ctx, 2, pe, 0, &all));
            CT__DO(st, ct_diff(ctx, all, 1, 0, NULL, NULL, counts));
            ct_tensor_release(pos), ct_tensor_release(p1), ct_tensor_release(end);
            ct_tensor_release(all);
        }
    }
    ct_set_grad_enabled(ctx, was);
    ct__release_all(12, x);
    if (st != CT_OK) {
        ct_tensor_release(*values);
        *values = NULL;
        if (inverse) {
            ct_tensor_release(*inverse);
            *inverse = NULL;
        }
        if (counts) {
            ct_tensor_release(*counts);
            *counts = NULL;
        }
    }
    return ct__error_within(ctx, "unique_consecutive", st);
}

/* Pruning masks (include/ctorch/init.h): torch.nn.utils.prune's compute_mask of L1Unstructured,
 * RandomUnstructured, LnStructured, RandomStructured and global_unstructured, written with public
 * ops. A mask has the tensor's shape and dtype (1 keeps, 0 prunes), as torch's; the caller
 * multiplies (torch's forward pre-hook computes weight_orig * mask). docs/init.md. */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/init.h"
#include "ctorch/inplace.h"
#include "ctorch/linalg.h"
#include "ctorch/ops.h"
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* torch's _validate_pruning_amount_init + _compute_nparams_toprune + _validate_pruning_amount:
 * a fraction in [0, 1] rounds half to even (Python's round) of amount * size; a count must not
 * exceed size. */
static ct_status ct__prune_count(ct_ctx *ctx, const char *fn, double amount, bool is_count,
                                 int64_t size, int64_t *k) {
    if (is_count) {
        if (!(amount >= 0) || amount != floor(amount) || amount > 9.2e18)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: amount=%g should either be a float in the range [0, 1] or a "
                                 "non-negative integer",
                                 fn, amount);
        if (amount > (double)size)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: amount=%lld should be smaller than the number of parameters "
                                 "to prune=%lld",
                                 fn, (long long)amount, (long long)size);
        *k = (int64_t)amount;
        return CT_OK;
    }
    if (!(amount >= 0 && amount <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: amount=%g should either be a float in the range [0, 1] or a "
                             "non-negative integer",
                             fn, amount);
    *k = (int64_t)nearbyint(amount * (double)size); /* the default mode rounds half to even */
    return CT_OK;
}

/* mask (t's shape and dtype) = base with the entries at flat indices idx set to value */
static ct_status ct__mask_fill(ct_ctx *ctx, const ct_tensor *base, const ct_tensor *idx,
                               double value, ct_tensor **mask) {
    ct_tensor *m = NULL, *flat = NULL;
    const int64_t n = ct_tensor_numel(base);
    ct_status st = ct_tensor_clone(ctx, base, &m);
    CT__DO(st, ct_tensor_view(ctx, m, 1, &n, &flat));
    if (idx && ct_tensor_numel(idx) > 0) CT__DO(st, ct_index_fill_(ctx, flat, 0, idx, value));
    ct_tensor_release(flat);
    if (st != CT_OK) ct_tensor_release(m), m = NULL;
    *mask = m;
    return st;
}

static ct_status ct__prune_args(ct_ctx *ctx, const char *fn, const ct_tensor *t,
                                const ct_tensor *aux, const char *aux_name, ct_tensor **mask) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, fn, 1, ins, mask);
    if (st != CT_OK) return st;
    *mask = NULL;
    if (!ct_dtype_is_floating(t->dtype) || !ct__is_compute_dtype(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating tensor, got %s", fn,
                             ct_dtype_name(t->dtype));
    if (!aux) return CT_OK;
    const ct_tensor *a2[2] = {t, aux};
    if ((st = ct__check_args(ctx, fn, 2, a2, mask)) != CT_OK) return st;
    bool same = aux->ndim == t->ndim;
    for (int d = 0; same && d < t->ndim; d++)
        same = aux->shape[d] == t->shape[d];
    if (!same)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: %s is %s, the tensor %s", fn, aux_name,
                             CT__SHAPE_STR(aux), CT__SHAPE_STR(t));
    return CT_OK;
}

/* The unstructured masks: prune the k entries of scores chosen by topk(largest) among those
 * prev_mask keeps (the others get +-inf, so they are never chosen; k counts the kept ones, as
 * torch's PruningContainer prunes t[prev_mask == 1]). */
static ct_status ct__prune_unstructured(ct_ctx *ctx, const char *fn, const ct_tensor *t,
                                        const ct_tensor *scores, double amount, bool is_count,
                                        const ct_tensor *prev, bool largest, ct_tensor **mask) {
    ct_tensor *x[8] = {NULL};
    int64_t kept = ct_tensor_numel(t), k = 0;
    ct_status st = CT_OK;
    const bool was = ct_set_grad_enabled(ctx, false);
    if (prev) {
        st = ct_count_nonzero(ctx, prev, 0, NULL, &x[0]);
        double c = 0;
        CT__DO(st, ct_tensor_item(x[0], &c));
        kept = (int64_t)c;
    }
    CT__DO(st, ct__prune_count(ctx, fn, amount, is_count, kept, &k));
    const int64_t n = ct_tensor_numel(t);
    CT__DO(st, ct_tensor_reshape(ctx, scores, 1, &n, &x[1]));
    const ct_tensor *sc = x[1];
    if (prev && st == CT_OK) { /* pruned entries can never be chosen again */
        CT__DO(st, ct_tensor_reshape(ctx, prev, 1, &n, &x[2]));
        CT__DO(st, ct_eq_scalar(ctx, x[2], 0.0, &x[3]));
        CT__DO(st, ct_masked_fill(ctx, x[1], x[3], largest ? -INFINITY : INFINITY, &x[4]));
        sc = x[4];
    }
    if (k > 0) CT__DO(st, ct_topk(ctx, sc, k, 0, largest, true, &x[5], &x[6]));
    if (prev) {
        CT__DO(st, ct_cast(ctx, prev, t->dtype, &x[7]));
    } else {
        CT__DO(st, ct_ones_like(ctx, t, &x[7]));
    }
    CT__DO(st, ct__mask_fill(ctx, x[7], x[6], 0.0, mask));
    ct__release_all(8, x);
    ct_set_grad_enabled(ctx, was);
    return ct__error_within(ctx, fn, st);
}

ct_status ct_prune_l1_unstructured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                   bool amount_is_count, const ct_tensor *importance_scores,
                                   const ct_tensor *prev_mask, ct_tensor **mask) {
    static const char fn[] = "prune.l1_unstructured";
    ct_status st = ct__prune_args(ctx, fn, t, importance_scores, "importance_scores", mask);
    if (st == CT_OK) st = ct__prune_args(ctx, fn, t, prev_mask, "prev_mask", mask);
    if (st != CT_OK) return st;
    ct_tensor *a = NULL;
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct_abs(ctx, importance_scores ? importance_scores : t, &a);
    ct_set_grad_enabled(ctx, was);
    CT__DO(st,
           ct__prune_unstructured(ctx, fn, t, a, amount, amount_is_count, prev_mask, false, mask));
    ct_tensor_release(a);
    return st;
}

ct_status ct_prune_random_unstructured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                       bool amount_is_count, const ct_tensor *prev_mask,
                                       uint64_t seed, uint64_t offset, ct_tensor **mask) {
    static const char fn[] = "prune.random_unstructured";
    ct_status st = ct__prune_args(ctx, fn, t, prev_mask, "prev_mask", mask);
    if (st != CT_OK) return st;
    ct_tensor *u = NULL; /* torch: the k largest of rand_like(t) */
    st = ct_tensor_rand(ctx, CT_FLOAT64, t->ndim, t->shape, seed, offset, &u);
    CT__DO(st,
           ct__prune_unstructured(ctx, fn, t, u, amount, amount_is_count, prev_mask, true, mask));
    ct_tensor_release(u);
    return st;
}

/* structured: t has >= 2 dims, dim in range; channels is size(dim) */
static ct_status ct__prune_structured_args(ct_ctx *ctx, const char *fn, const ct_tensor *t, int dim,
                                           int *d) {
    if (t->ndim <= 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Structured pruning can only be applied to multidimensional "
                             "tensors. Found tensor of shape %s with %d dims",
                             fn, CT__SHAPE_STR(t), t->ndim);
    if (dim >= t->ndim || dim < -t->ndim)
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: Invalid index %d for tensor of size %s", fn,
                             dim, CT__SHAPE_STR(t));
    *d = dim < 0 ? dim + t->ndim : dim;
    return CT_OK;
}

/* mask = 0 everywhere but the channels keep (int64 indices along d) */
static ct_status ct__channel_mask(ct_ctx *ctx, const ct_tensor *t, int d, const ct_tensor *keep,
                                  ct_tensor **mask) {
    ct_tensor *z = NULL;
    ct_status st = ct_tensor_zeros(ctx, t->dtype, t->ndim, t->shape, &z);
    if (keep && ct_tensor_numel(keep) > 0) CT__DO(st, ct_index_fill_(ctx, z, d, keep, 1.0));
    if (st != CT_OK) ct_tensor_release(z), z = NULL;
    *mask = z;
    return st;
}

ct_status ct_prune_ln_structured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                 bool amount_is_count, double n, int dim,
                                 const ct_tensor *importance_scores, ct_tensor **mask) {
    static const char fn[] = "prune.ln_structured";
    ct_status st = ct__prune_args(ctx, fn, t, importance_scores, "importance_scores", mask);
    int d = 0;
    if (st == CT_OK) st = ct__prune_structured_args(ctx, fn, t, dim, &d);
    if (st != CT_OK) return st;
    int64_t k = 0;
    const int64_t size = t->shape[d];
    if ((st = ct__prune_count(ctx, fn, amount, amount_is_count, size, &k)) != CT_OK) return st;
    /* nothing to prune, or no entries (the norms of empty channels are not needed) */
    if (k == 0 || ct_tensor_numel(t) == 0) return ct_ones_like(ctx, t, mask);
    int dims[CT_MAX_DIMS], nd = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d) dims[nd++] = i;
    ct_tensor *x[3] = {NULL};
    const bool was = ct_set_grad_enabled(ctx, false);
    /* torch.norm(t, p=n, dim=the others), then the size - k largest kept */
    st = ct_linalg_vector_norm(ctx, importance_scores ? importance_scores : t, n, nd, dims, false,
                               &x[0]);
    if (size - k > 0) CT__DO(st, ct_topk(ctx, x[0], size - k, 0, true, true, &x[1], &x[2]));
    CT__DO(st, ct__channel_mask(ctx, t, d, x[2], mask));
    ct__release_all(3, x);
    ct_set_grad_enabled(ctx, was);
    return ct__error_within(ctx, fn, st);
}

ct_status ct_prune_random_structured(ct_ctx *ctx, const ct_tensor *t, double amount,
                                     bool amount_is_count, int dim, uint64_t seed, uint64_t offset,
                                     ct_tensor **mask) {
    static const char fn[] = "prune.random_structured";
    ct_status st = ct__prune_args(ctx, fn, t, NULL, NULL, mask);
    int d = 0;
    if (st == CT_OK) st = ct__prune_structured_args(ctx, fn, t, dim, &d);
    if (st != CT_OK) return st;
    int64_t k = 0;
    const int64_t size = t->shape[d];
    if ((st = ct__prune_count(ctx, fn, amount, amount_is_count, size, &k)) != CT_OK) return st;
    if (k == 0) return ct_ones_like(ctx, t, mask);
    ct_tensor *x[3] = {NULL}; /* the channels of the size - k largest uniforms are kept */
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct_tensor_rand(ctx, CT_FLOAT64, 1, &size, seed, offset, &x[0]);
    if (size - k > 0) CT__DO(st, ct_topk(ctx, x[0], size - k, 0, true, true, &x[1], &x[2]));
    CT__DO(st, ct__channel_mask(ctx, t, d, x[2], mask));
    ct__release_all(3, x);
    ct_set_grad_enabled(ctx, was);
    return ct__error_within(ctx, fn, st);
}

ct_status ct_prune_global_unstructured(ct_ctx *ctx, int n, const ct_tensor *const *ts,
                                       double amount, bool amount_is_count,
                                       const ct_tensor *const *importance_scores,
                                       ct_tensor **masks) {
    static const char fn[] = "prune.global_unstructured";
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (n < 1 || !ts || !masks)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s", fn,
                             n < 1 ? "no tensors"
                             : !ts ? "ts is NULL"
                                   : "masks is NULL");
    ct_status st = CT_OK;
    for (int i = 0; i < n; i++)
        masks[i] = NULL;
    for (int i = 0; i < n && st == CT_OK; i++) {
        char nm[40];
        snprintf(nm, sizeof nm, "importance_scores[%d]", i);
        st = ct__prune_args(ctx, fn, ts[i], importance_scores ? importance_scores[i] : NULL, nm,
                            &masks[i]);
    }
    if (st != CT_OK) return st;
    /* L1 on the concatenation of every |score| (torch: parameters_to_vector), split back */
    ct_tensor **flat = ct__alloc(ctx, sizeof *flat * (size_t)n, 16);
    int64_t *sizes = ct__alloc(ctx, sizeof *sizes * (size_t)n, 16);
    if (!flat || !sizes) {
        ct__free(ctx, flat), ct__free(ctx, sizes);
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", fn);
    }
    memset(flat, 0, sizeof *flat * (size_t)n);
    ct_tensor *cat = NULL, *ones = NULL, *m = NULL;
    const bool was = ct_set_grad_enabled(ctx, false);
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *sc =
            importance_scores && importance_scores[i] ? importance_scores[i] : ts[i];
        sizes[i] = ct_tensor_numel(sc);
        ct_tensor *r = NULL;
        st = ct_tensor_reshape(ctx, sc, 1, &sizes[i], &r);
        CT__DO(st, ct_abs(ctx, r, &flat[i]));
        ct_tensor_release(r);
    }
    CT__DO(st, ct_cat(ctx, n, (const ct_tensor *const *)flat, 0, &cat));
    CT__DO(st, ct_ones_like(ctx, cat, &ones));
    CT__DO(st,
           ct__prune_unstructured(ctx, fn, ones, cat, amount, amount_is_count, NULL, false, &m));
    int64_t at = 0;
    for (int i = 0; i < n && st == CT_OK; i++) {
        ct_tensor *part = NULL, *shaped = NULL;
        st = ct_tensor_narrow(ctx, m, 0, at, sizes[i], &part);
        CT__DO(st, ct_tensor_reshape(ctx, part, ts[i]->ndim, ts[i]->shape, &shaped));
        CT__DO(st, ct_cast(ctx, shaped, ts[i]->dtype, &masks[i]));
        ct_tensor_release(part), ct_tensor_release(shaped);
        at += sizes[i];
    }
    ct_set_grad_enabled(ctx, was);
    if (st != CT_OK)
        for (int i = 0; i < n; i++)
            ct_tensor_release(masks[i]), masks[i] = NULL;
    ct__release_all(n, flat);
    ct__free(ctx, flat), ct__free(ctx, sizes);
    ct_tensor_release(cat), ct_tensor_release(ones), ct_tensor_release(m);
    return ct__error_within(ctx, fn, st);
}

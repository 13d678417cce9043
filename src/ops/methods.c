/* Tensor methods and torch aliases (include/ctorch/methods.h): compositions of public ops, so they
 * dispatch, capture and differentiate as those ops do. The in-place view ops live in
 * autograd/hooks.c (they move autograd metadata). */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/inplace.h"
#include "ctorch/methods.h"
#include "dispatch/dispatch.h"
#include "ops/dispatch.h"
#include "tensor/tensor_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ct_status ct__m_new(ct_ctx *ctx, const char *op, const ct_tensor *self, int ndim,
                           const int64_t *shape, int kind, double value, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, op, "self", self);
    if (st != CT_OK) return st;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    switch (kind) {
    case 0: return ct_tensor_empty(ctx, self->dtype, ndim, shape, out);
    case 1: return ct_tensor_zeros(ctx, self->dtype, ndim, shape, out);
    case 2: return ct_tensor_ones(ctx, self->dtype, ndim, shape, out);
    default: return ct_tensor_full(ctx, self->dtype, ndim, shape, value, out);
    }
}
ct_status ct_new_empty(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                       ct_tensor **out) {
    return ct__m_new(ctx, "new_empty", self, ndim, shape, 0, 0, out);
}
ct_status ct_new_zeros(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                       ct_tensor **out) {
    return ct__m_new(ctx, "new_zeros", self, ndim, shape, 1, 0, out);
}
ct_status ct_new_ones(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                      ct_tensor **out) {
    return ct__m_new(ctx, "new_ones", self, ndim, shape, 2, 1, out);
}
ct_status ct_new_full(ct_ctx *ctx, const ct_tensor *self, int ndim, const int64_t *shape,
                      double value, ct_tensor **out) {
    return ct__m_new(ctx, "new_full", self, ndim, shape, 3, value, out);
}

static ct_status ct__m_two(ct_ctx *ctx, const char *op, const ct_tensor *t, const ct_tensor *o,
                           ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[2] = {t, o};
    return ct__check_args(ctx, op, 2, ins, out);
}
ct_status ct_expand_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other, ct_tensor **out) {
    ct_status st = ct__m_two(ctx, "expand_as", t, other, out);
    return st != CT_OK ? st : ct_tensor_expand(ctx, t, other->ndim, other->shape, out);
}
ct_status ct_reshape_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other, ct_tensor **out) {
    ct_status st = ct__m_two(ctx, "reshape_as", t, other, out);
    return st != CT_OK ? st : ct_tensor_reshape(ctx, t, other->ndim, other->shape, out);
}
ct_status ct_view_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other, ct_tensor **out) {
    ct_status st = ct__m_two(ctx, "view_as", t, other, out);
    return st != CT_OK ? st : ct_tensor_view(ctx, t, other->ndim, other->shape, out);
}
ct_status ct_type_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *other, ct_tensor **out) {
    ct_status st = ct__m_two(ctx, "type_as", t, other, out);
    if (st != CT_OK) return st;
    if (t->dtype == other->dtype) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    return ct_cast(ctx, t, other->dtype, out);
}

ct_status ct_sum_to_size(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                         ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "sum_to_size", 1, ins, out);
    if (st != CT_OK) return st;
    if (ndim < 0 || ndim > CT_MAX_DIMS || (ndim > 0 && !shape))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "sum_to_size: %d dims (0..%d)", ndim,
                             CT_MAX_DIMS);
    /* shape must expand to t's shape (torch's is_expandable_to) */
    bool ok = ndim <= t->ndim;
    for (int i = 1; ok && i <= ndim; i++) {
        const int64_t a = shape[ndim - i], b = t->shape[t->ndim - i];
        ok = a == b || a == 1;
    }
    if (!ok) {
        char a[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "sum_to_size: size {%s} is not expandable to size "
                             "{%s}.",
                             ct__shape_str(a, sizeof a, ndim, shape), CT__SHAPE_STR(t));
    }
    const int lead = t->ndim - ndim;
    int dims[CT_MAX_DIMS], nd = 0;
    for (int d = 0; d < t->ndim; d++)
        if (d < lead || (shape[d - lead] == 1 && t->shape[d] != 1)) dims[nd++] = d;
    if (nd == 0 && lead == 0) { /* t's shape already: t itself, as torch */
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    if (ndim == 0) return ct_sum(ctx, t, 0, NULL, false, out); /* SumBackward0, as torch */
    ct_tensor *s = NULL;
    st = nd ? ct_sum(ctx, t, nd, dims, true, &s) : (s = ct_tensor_retain((ct_tensor *)t), CT_OK);
    if (st == CT_OK) st = ct_tensor_view(ctx, s, ndim, shape, out); /* ViewBackward0 */
    ct_tensor_release(s);
    return st;
}

size_t ct_tensor_element_size(const ct_tensor *t) {
    return ct__tensor_live(t) ? ct_dtype_size(t->dtype) : 0;
}

ct_status ct_fill_diagonal_(ct_ctx *ctx, ct_tensor *t, double value, bool wrap) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "fill_diagonal_", "input", t);
    if (st != CT_OK) return st;
    if (t->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "fill_diagonal_: dimensions must larger than 1");
    if (t->ndim > 2)
        for (int d = 1; d < t->ndim; d++)
            if (t->shape[d] != t->shape[0])
                return ct__set_error(ctx, CT_ERR_SHAPE,
                                     "fill_diagonal_: all dimensions of input must be of equal "
                                     "length, got %s",
                                     CT__SHAPE_STR(t));
    /* the diagonal's flat positions in a contiguous mask of t's shape: step = sum of the
     * contiguous strides; a tall 2-d matrix with wrap keeps stepping to the end */
    const int64_t numel = ct_tensor_numel(t);
    int64_t step = 0, stride = 1, count = t->shape[0];
    for (int d = t->ndim - 1; d >= 0; d--) {
        step += stride;
        stride *= t->shape[d];
    }
    if (t->ndim == 2) {
        const int64_t rows = t->shape[0], cols = t->shape[1];
        count = rows < cols ? rows : cols;
        if (wrap && rows > cols + 1 && numel > 0) count = (numel - 1) / step + 1;
    }
    ct_tensor *mask = NULL, *diag = NULL;
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct_tensor_zeros(ctx, CT_BOOL, t->ndim, t->shape, &mask);
    if (st == CT_OK && count > 0) st = ct_tensor_as_strided(ctx, mask, 1, &count, &step, 0, &diag);
    if (st == CT_OK && diag) st = ct_tensor_fill_(ctx, diag, 1.0);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK) st = ct_masked_fill_(ctx, t, mask, value);
    ct_tensor_release(diag), ct_tensor_release(mask);
    return st;
}

/* refuse a leaf that requires grad (torch's in-place rule), then write r into t */
static ct_status ct__m_fill_from(ct_ctx *ctx, const char *op, ct_tensor *t, ct_tensor *r) {
    ct_status st = CT_OK;
    if (t->requires_grad && ct_tensor_is_leaf(t) && ct_is_grad_enabled(ctx))
        st = ct__set_error(ctx, CT_ERR_STATE,
                           "%s: a leaf Variable that requires grad is being used in an in-place "
                           "operation",
                           op);
    if (st == CT_OK) st = ct_tensor_copy_(ctx, t, r);
    ct_tensor_release(r);
    return st;
}

ct_status ct_tensor_bernoulli_(ct_ctx *ctx, ct_tensor *t, double p, uint64_t seed,
                               uint64_t offset) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "bernoulli_", "input", t);
    if (st != CT_OK) return st;
    if (!(p >= 0 && p <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    if (ct_dtype_is_complex(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "bernoulli_: not implemented for %s",
                             ct_dtype_name(t->dtype));
    ct_tensor *u = NULL, *b = NULL;
    st = ct_tensor_rand(ctx, CT_FLOAT64, t->ndim, t->shape, seed, offset, &u);
    if (st == CT_OK) st = ct_lt_scalar(ctx, u, p, &b);
    ct_tensor_release(u);
    return st != CT_OK ? st : ct__m_fill_from(ctx, "bernoulli_", t, b);
}

ct_status ct_tensor_random_(ct_ctx *ctx, ct_tensor *t, int64_t from, int64_t to, uint64_t seed,
                            uint64_t offset) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "random_", "input", t);
    if (st != CT_OK) return st;
    if (from >= to)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "random_ expects 'from' to be less than 'to', but got from=%lld >= "
                             "to=%lld",
                             (long long)from, (long long)to);
    if (t->dtype == CT_BOOL && (from < 0 || to > 2))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "random_: a bool tensor takes values in [0, 2), got [%lld, %lld)",
                             (long long)from, (long long)to);
    if (ct_dtype_is_floating(t->dtype)) { /* torch: from and to - 1 within the dtype */
        const double mx = t->dtype == CT_FLOAT16    ? 65504.0
                          : t->dtype == CT_BFLOAT16 ? 3.3895313892515355e38
                          : t->dtype == CT_FLOAT32  ? 3.4028234663852886e38
                                                    : 1.7976931348623157e308;
        if ((double)from < -mx || (double)(to - 1) > mx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "random_: %s is out of bounds for %s",
                                 (double)from < -mx ? "from" : "to - 1", ct_dtype_name(t->dtype));
    }
    ct_tensor *r = NULL;
    st = ct_tensor_randint(ctx, t->dtype == CT_BOOL ? CT_INT64 : t->dtype, from, to, t->ndim,
                           t->shape, seed, offset, &r);
    return st != CT_OK ? st : ct__m_fill_from(ctx, "random_", t, r);
}

ct_status ct_pad_sequence(ct_ctx *ctx, int n, const ct_tensor *const *seqs, bool batch_first,
                          double padding_value, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (n < 1 || !seqs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pad_sequence: received an empty list of sequences");
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "pad_sequence: out is NULL");
    ct_status st = CT_OK;
    for (int i = 0; i < n && st == CT_OK; i++)
        st = ct__check_tensor(ctx, "pad_sequence", "sequence", seqs[i]);
    if (st != CT_OK) return st;
    for (int i = 1; i < n; i++)
        if (seqs[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "pad_sequence: sequence %d belongs to another context", i);
    const ct_tensor *s0 = seqs[0];
    int64_t maxl = 0;
    for (int i = 0; i < n; i++) {
        const ct_tensor *s = seqs[i];
        bool same = s->ndim == s0->ndim && s->ndim >= 1 && s->dtype == s0->dtype;
        for (int d = 1; same && d < s->ndim; d++)
            same = s->shape[d] == s0->shape[d];
        if (!same)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "pad_sequence: sequence %d is %s %s; every sequence needs >= 1 "
                                 "dim, the trailing shape and dtype of sequence 0 (%s %s)",
                                 i, ct_dtype_name(s->dtype), CT__SHAPE_STR(s),
                                 ct_dtype_name(s0->dtype),
                                 ct__shape_str((char[96]){0}, 96, s0->ndim, s0->shape));
        if (s->shape[0] > maxl) maxl = s->shape[0];
    }
    ct_tensor **padded = calloc((size_t)n, sizeof *padded);
    if (!padded) return ct__set_error(ctx, CT_ERR_OOM, "pad_sequence: out of memory");
    int64_t pad[2 * CT_MAX_DIMS] = {0};
    for (int i = 0; i < n && st == CT_OK; i++) { /* torch's pad order: the last pair is dim 0 */
        pad[2 * s0->ndim - 1] = maxl - seqs[i]->shape[0];
        st = ct_constant_pad_nd(ctx, seqs[i], 2 * s0->ndim, pad, padding_value, &padded[i]);
    }
    if (st == CT_OK)
        st = ct_stack(ctx, n, (const ct_tensor *const *)padded, batch_first ? 0 : 1, out);
    for (int i = 0; i < n; i++)
        ct_tensor_release(padded[i]);
    free(padded);
    return st;
}

/* mean and 1 / sqrt(biased var + eps) of v over dims (keepdim), computed without grad, reshaped
 * to nd / shape (nd < 0: as they come) */
static ct_status ct__m_stats(ct_ctx *ctx, const ct_tensor *v, int n_dims, const int *dims,
                             double eps, int nd, const int64_t *shape, ct_tensor **mean,
                             ct_tensor **rstd) {
    ct_tensor *var = NULL, *mu = NULL, *ve = NULL, *rs = NULL;
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = ct_var_mean(ctx, v, n_dims, dims, 0.0, true, &var, &mu);
    if (st == CT_OK) st = ct_add_scalar(ctx, var, eps, &ve);
    if (st == CT_OK) st = ct_rsqrt(ctx, ve, &rs);
    if (st == CT_OK && mean)
        st = nd < 0 ? (*mean = ct_tensor_retain(mu), CT_OK)
                    : ct_tensor_reshape(ctx, mu, nd, shape, mean);
    if (st == CT_OK && rstd)
        st = nd < 0 ? (*rstd = ct_tensor_retain(rs), CT_OK)
                    : ct_tensor_reshape(ctx, rs, nd, shape, rstd);
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(var), ct_tensor_release(mu), ct_tensor_release(ve), ct_tensor_release(rs);
    return st;
}

static void ct__m_drop3(ct_status st, ct_tensor **a, ct_tensor **b, ct_tensor **c) {
    if (st == CT_OK) return;
    ct_tensor **all[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (all[i]) {
            ct_tensor_release(*all[i]);
            *all[i] = NULL;
        }
}

ct_status ct_native_layer_norm(ct_ctx *ctx, const ct_tensor *x, int n_norm, const ct_tensor *weight,
                               const ct_tensor *bias, double eps, ct_tensor **out, ct_tensor **mean,
                               ct_tensor **rstd) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (mean) *mean = NULL;
    if (rstd) *rstd = NULL;
    ct_status st = ct_layer_norm(ctx, x, n_norm, weight, bias, eps, out);
    if (st != CT_OK || (!mean && !rstd)) return st;
    int dims[CT_MAX_DIMS];
    for (int i = 0; i < n_norm; i++)
        dims[i] = x->ndim - n_norm + i;
    st = ct__m_stats(ctx, x, n_norm, dims, eps, -1, NULL, mean, rstd);
    ct__m_drop3(st, out, mean, rstd);
    return st;
}

ct_status ct_native_batch_norm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weight,
                               const ct_tensor *bias, ct_tensor *running_mean,
                               ct_tensor *running_var, bool training, double momentum, double eps,
                               ct_tensor **out, ct_tensor **save_mean, ct_tensor **save_invstd) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (save_mean) *save_mean = NULL;
    if (save_invstd) *save_invstd = NULL;
    /* the statistics first: the batch's, before the running ones are updated */
    ct_tensor *m = NULL, *r = NULL;
    ct_status st = ct__check_tensor(ctx, "native_batch_norm", "input", x);
    if (st != CT_OK) return st;
    if (x->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "native_batch_norm: input must be (N, C, ...), got %s",
                             CT__SHAPE_STR(x));
    if (training && (save_mean || save_invstd)) {
        int dims[CT_MAX_DIMS], nd = 0;
        for (int d = 0; d < x->ndim; d++)
            if (d != 1) dims[nd++] = d;
        st = ct__m_stats(ctx, x, nd, dims, eps, 1, &x->shape[1], &m, &r);
    } else if (save_mean || save_invstd) {
        st = ct_tensor_empty(ctx, x->dtype, 1, (int64_t[]){0}, &m);
        if (st == CT_OK) st = ct_tensor_empty(ctx, x->dtype, 1, (int64_t[]){0}, &r);
    }
    if (st == CT_OK)
        st = ct_batch_norm(ctx, x, running_mean, running_var, weight, bias, training, momentum, eps,
                           out);
    if (st == CT_OK && save_mean) *save_mean = ct_tensor_retain(m);
    if (st == CT_OK && save_invstd) *save_invstd = ct_tensor_retain(r);
    ct_tensor_release(m), ct_tensor_release(r);
    return st;
}

ct_status ct_native_group_norm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weight,
                               const ct_tensor *bias, int num_groups, double eps, ct_tensor **out,
                               ct_tensor **mean, ct_tensor **rstd) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (mean) *mean = NULL;
    if (rstd) *rstd = NULL;
    ct_status st = ct_group_norm(ctx, x, num_groups, weight, bias, eps, out);
    if (st != CT_OK || (!mean && !rstd)) return st;
    /* x viewed as (N, G, rest): the statistics of each (n, g) */
    ct_tensor *v = NULL;
    const int64_t N = x->shape[0], G = num_groups, NG = N * G;
    const int64_t rest = NG > 0 ? ct_tensor_numel(x) / NG : 0; /* group_norm checked the shapes */
    st = ct_tensor_reshape(ctx, x, 3, (int64_t[]){N, G, rest}, &v);
    if (st == CT_OK) st = ct__m_stats(ctx, v, 1, (int[]){2}, eps, 2, (int64_t[]){N, G}, mean, rstd);
    ct_tensor_release(v);
    ct__m_drop3(st, out, mean, rstd);
    return st;
}

/* host loop behind apply_ / map_: t's values (and other's, broadcast) as doubles, fn, written back
 */
static ct_status ct__m_apply(ct_ctx *ctx, const char *op, ct_tensor *t, const ct_tensor *other,
                             double (*f1)(double, void *), double (*f2)(double, double, void *),
                             void *user) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, op, "self", t);
    if (st == CT_OK && other) st = ct__check_tensor(ctx, op, "other", other);
    if (st != CT_OK) return st;
    if (!f1 && !f2) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: fn is NULL", op);
    if (t->requires_grad || (other && other->requires_grad))
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: Can't call %s() on Variable that requires grad. Use "
                             "var.detach().%s() instead.",
                             op, op[0] == 'a' ? "apply_" : "map_",
                             op[0] == 'a' ? "apply_" : "map_");
    if (ct_dtype_is_complex(t->dtype) || (other && ct_dtype_is_complex(other->dtype)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: real dtypes only", op);
    if (ct__any_capture(ctx))
        return ct__set_error(ctx, CT_ERR_STATE,
                             "%s: calls a host function on every element, which a graph capture "
                             "cannot record",
                             op);
    const int64_t n = ct_tensor_numel(t);
    ct_tensor *a = NULL, *b = NULL, *e = NULL, *r = NULL;
    double *va = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), *vb = NULL;
    if (!va) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    st = ct_cast(ctx, t, CT_FLOAT64, &a);
    if (st == CT_OK) st = ct_tensor_to_host(a, va, sizeof(double) * (size_t)n);
    if (st == CT_OK && other) {
        st = ct_tensor_expand(ctx, other, t->ndim, t->shape, &e);
        if (st == CT_OK) st = ct_cast(ctx, e, CT_FLOAT64, &b);
        if (st == CT_OK && !(vb = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1))))
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        if (st == CT_OK) st = ct_tensor_to_host(b, vb, sizeof(double) * (size_t)n);
    }
    for (int64_t i = 0; i < n && st == CT_OK; i++)
        va[i] = other ? f2(va[i], vb[i], user) : f1(va[i], user);
    if (st == CT_OK) st = ct_tensor_from_host(ctx, va, CT_FLOAT64, t->ndim, t->shape, &r);
    if (st == CT_OK) st = ct_tensor_copy_(ctx, t, r);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(e), ct_tensor_release(r);
    free(va), free(vb);
    return st;
}
ct_status ct_tensor_apply_(ct_ctx *ctx, ct_tensor *t, double (*fn)(double x, void *user),
                           void *user) {
    return ct__m_apply(ctx, "apply_", t, NULL, fn, NULL, user);
}
ct_status ct_tensor_map_(ct_ctx *ctx, ct_tensor *t, const ct_tensor *other,
                         double (*fn)(double x, double y, void *user), void *user) {
    if (ctx && !other) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "map_: other is NULL");
    return ct__m_apply(ctx, "map_", t, other, NULL, fn, user);
}

/* ---- aliases ---- */

ct_status ct_split_with_sizes(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes, int dim,
                              ct_tensor **outs) {
    return ct_split_sizes(ctx, t, n, sizes, dim, outs);
}
ct_status ct_unsafe_split_with_sizes(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes,
                                     int dim, ct_tensor **outs) {
    return ct_split_sizes(ctx, t, n, sizes, dim, outs);
}
ct_status ct_unsafe_split(ct_ctx *ctx, const ct_tensor *t, int64_t split_size, int dim, int max_out,
                          ct_tensor **outs, int *n_out) {
    return ct_split(ctx, t, split_size, dim, max_out, outs, n_out);
}
ct_status ct_unsafe_chunk(ct_ctx *ctx, const ct_tensor *t, int chunks, int dim, int max_out,
                          ct_tensor **outs, int *n_out) {
    return ct_chunk(ctx, t, chunks, dim, max_out, outs, n_out);
}

ct_status ct_upsample(ct_ctx *ctx, const ct_tensor *x, int n_size, const int64_t *size,
                      ct_interp_mode mode, bool align_corners, ct_tensor **out) {
    return ct_interpolate(ctx, x, n_size, size, mode, align_corners, out);
}
ct_status ct_upsample_nearest(ct_ctx *ctx, const ct_tensor *x, int n_size, const int64_t *size,
                              ct_tensor **out) {
    return ct_interpolate(ctx, x, n_size, size, CT_INTERP_NEAREST, false, out);
}
ct_status ct_upsample_bilinear(ct_ctx *ctx, const ct_tensor *x, const int64_t size[2],
                               ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "upsample_bilinear", "input", x);
    if (st != CT_OK) return st;
    if (x->ndim != 4)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "upsample_bilinear: input must be 4-d (N, C, H, W), got %s",
                             CT__SHAPE_STR(x));
    return ct_interpolate(ctx, x, 2, size, CT_INTERP_LINEAR, true, out);
}

static ct_status ct__m_need_idx(ct_ctx *ctx, const char *op, ct_tensor **out, ct_tensor **idx) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *out = NULL;
    if (!idx) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: indices is NULL", op);
    *idx = NULL;
    return CT_OK;
}
#define CT__M_IDX(op)                                                                              \
    ct_status st_ = ct__m_need_idx(ctx, #op, out, indices);                                        \
    if (st_ != CT_OK) return st_

ct_status ct_max_pool1d_with_indices(ct_ctx *ctx, const ct_tensor *x, int64_t kernel,
                                     int64_t stride, int64_t padding, int64_t dilation,
                                     bool ceil_mode, ct_tensor **out, ct_tensor **indices) {
    CT__M_IDX(max_pool1d_with_indices);
    return ct_max_pool1d(ctx, x, kernel, stride, padding, dilation, ceil_mode, out, indices);
}
ct_status ct_max_pool2d_with_indices(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                     const int64_t stride[2], const int64_t padding[2],
                                     const int64_t dilation[2], bool ceil_mode, ct_tensor **out,
                                     ct_tensor **indices) {
    CT__M_IDX(max_pool2d_with_indices);
    return ct_max_pool2d_ex(ctx, x, kernel, stride, padding, dilation, ceil_mode, out, indices);
}
ct_status ct_max_pool3d_with_indices(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[3],
                                     const int64_t stride[3], const int64_t padding[3],
                                     const int64_t dilation[3], bool ceil_mode, ct_tensor **out,
                                     ct_tensor **indices) {
    CT__M_IDX(max_pool3d_with_indices);
    return ct_max_pool3d(ctx, x, kernel, stride, padding, dilation, ceil_mode, out, indices);
}
ct_status ct_adaptive_max_pool1d_with_indices(ct_ctx *ctx, const ct_tensor *x, int64_t output_size,
                                              ct_tensor **out, ct_tensor **indices) {
    CT__M_IDX(adaptive_max_pool1d_with_indices);
    return ct_adaptive_max_pool1d(ctx, x, output_size, out, indices);
}
ct_status ct_adaptive_max_pool2d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                              const int64_t output_size[2], ct_tensor **out,
                                              ct_tensor **indices) {
    CT__M_IDX(adaptive_max_pool2d_with_indices);
    return ct_adaptive_max_pool2d(ctx, x, output_size, out, indices);
}
ct_status ct_adaptive_max_pool3d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                              const int64_t output_size[3], ct_tensor **out,
                                              ct_tensor **indices) {
    CT__M_IDX(adaptive_max_pool3d_with_indices);
    return ct_adaptive_max_pool3d(ctx, x, output_size, out, indices);
}
ct_status ct_fractional_max_pool2d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                                const int64_t kernel_size[2],
                                                const int64_t output_size[2],
                                                const double output_ratio[2],
                                                const ct_tensor *random_samples, uint64_t seed,
                                                ct_tensor **out, ct_tensor **indices) {
    CT__M_IDX(fractional_max_pool2d_with_indices);
    return ct_fractional_max_pool2d(ctx, x, kernel_size, output_size, output_ratio, random_samples,
                                    seed, out, indices);
}
ct_status ct_fractional_max_pool3d_with_indices(ct_ctx *ctx, const ct_tensor *x,
                                                const int64_t kernel_size[3],
                                                const int64_t output_size[3],
                                                const double output_ratio[3],
                                                const ct_tensor *random_samples, uint64_t seed,
                                                ct_tensor **out, ct_tensor **indices) {
    CT__M_IDX(fractional_max_pool3d_with_indices);
    return ct_fractional_max_pool3d(ctx, x, kernel_size, output_size, output_ratio, random_samples,
                                    seed, out, indices);
}

/* torch.unique(dim=d) and torch.unique_consecutive(dim=d): the slices of a tensor along one dim
 * compared as whole rows (docs/everyday.md, "Data-dependent sizes"). The row order and the groups
 * are found on the host (the output's size depends on the data: eager only, as ct_unique); the
 * values are an index_select of the input, so every bit of a group's first slice is kept. */
#include "autograd/autograd_impl.h"
#include "tensor/tensor_impl.h"

#include <stdlib.h>
#include <string.h>

/* Rows of the comparison keys: the input as float64 (every floating dtype converts exactly) or as
 * int64 (integers and bool), R rows of C elements. */
typedef struct {
    const double *f;
    const int64_t *i;
    int64_t C;
} ct__urows;

/* torch's lexicographic order: the first position where one row is below (above) the other
 * decides; positions that are neither (equal, or a NaN) are skipped. */
static bool ct__urow_less(const ct__urows *k, int64_t a, int64_t b) {
    for (int64_t j = 0; j < k->C; j++) {
        if (k->f) {
            double x = k->f[a * k->C + j], y = k->f[b * k->C + j];
            if (x < y) return true;
            if (x > y) return false;
        } else {
            int64_t x = k->i[a * k->C + j], y = k->i[b * k->C + j];
            if (x < y) return true;
            if (x > y) return false;
        }
    }
    return false;
}
/* Element-wise equality of two rows (a NaN equals nothing, -0.0 equals 0.0), as at::equal. */
static bool ct__urow_equal(const ct__urows *k, int64_t a, int64_t b) {
    for (int64_t j = 0; j < k->C; j++)
        if (k->f ? !(k->f[a * k->C + j] == k->f[b * k->C + j])
                 : k->i[a * k->C + j] != k->i[b * k->C + j])
            return false;
    return true;
}
/* Stable merge sort of idx[0..n) by ct__urow_less (tmp: n entries). Up to 16 rows it is the
 * insertion sort that std::sort runs at that size, so rows holding NaN (which the order does not
 * rank) come out as torch orders them there; beyond, torch's order of such rows is that of its
 * introsort, and ctorch's that of this merge. */
static void ct__urow_sort(const ct__urows *k, int64_t *idx, int64_t *tmp, int64_t n) {
    if (n <= 16) {
        for (int64_t i = 1; i < n; i++) {
            int64_t v = idx[i];
            if (ct__urow_less(k, v, idx[0])) {
                memmove(idx + 1, idx, sizeof(int64_t) * (size_t)i);
                idx[0] = v;
                continue;
            }
            int64_t j = i;
            while (ct__urow_less(k, v, idx[j - 1])) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    int64_t h = n / 2;
    ct__urow_sort(k, idx, tmp, h);
    ct__urow_sort(k, idx + h, tmp, n - h);
    int64_t a = 0, b = h, o = 0;
    while (a < h && b < n) /* a right row goes first only when strictly below: stable */
        tmp[o++] = ct__urow_less(k, idx[b], idx[a]) ? idx[b++] : idx[a++];
    while (a < h)
        tmp[o++] = idx[a++];
    while (b < n)
        tmp[o++] = idx[b++];
    memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
}

static ct_status ct__unique_dim_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                         const bool *need, ct_tensor **gin) {
    (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "the derivative for '%s' is not implemented (as torch)",
                         (const char *)user);
}
static const ct__ag_custom CT__UNIQUE_DIM_FN = {"UniqueDimBackward0", ct__unique_dim_backward, NULL,
                                                false};
static const ct__ag_custom CT__UNIQUE_CONSEC_FN = {"UniqueConsecutiveBackward0",
                                                   ct__unique_dim_backward, NULL, false};

/* The groups of t's slices along dim d (R of them): rep[g] the input slice that stands for group
 * g, inv[r] the group of slice r, cnt[g] its size; *ng the number of groups. */
static ct_status ct__unique_dim_groups(ct_ctx *ctx, const char *op, const ct_tensor *t, int d,
                                       bool consecutive, int64_t *rep, int64_t *inv, int64_t *cnt,
                                       int64_t *ng) {
    const int64_t R = t->shape[d], C = R ? ct_tensor_numel(t) / R : 0;
    const bool fl = ct_dtype_is_floating(t->dtype);
    ct_tensor *mv = NULL, *k = NULL;
    int64_t *idx = NULL;
    void *keys = NULL;
    const size_t nk = R * C > 0 ? (size_t)(R * C) : 1;
    ct_status st = ct_tensor_transpose(ctx, t, 0, d, &mv);
    CT__DO(st, ct_cast(ctx, mv, fl ? CT_FLOAT64 : CT_INT64, &k));
    ct_tensor_release(mv);
    mv = NULL;
    CT__DO(st, ct_tensor_contiguous(ctx, k, &mv));
    if (st == CT_OK) {
        keys = ct__alloc(ctx, nk * 8, 16);
        idx = ct__alloc(ctx, sizeof(int64_t) * (size_t)(2 * R), 16);
        if (!keys || !idx)
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory for %lld rows of %lld", op,
                               (long long)R, (long long)C);
    }
    CT__DO(st, ct_tensor_to_host(mv, keys, (size_t)(R * C) * 8));
    if (st == CT_OK) {
        ct__urows rows = {fl ? keys : NULL, fl ? NULL : keys, C};
        for (int64_t r = 0; r < R; r++)
            idx[r] = r;
        if (!consecutive) ct__urow_sort(&rows, idx, idx + R, R);
        /* a sorted slice joins the current group when it equals the group's first slice */
        int64_t g = -1;
        for (int64_t r = 0; r < R; r++) {
            if (g < 0 || !ct__urow_equal(&rows, rep[g], idx[r])) {
                rep[++g] = idx[r];
                cnt[g] = 0;
            }
            inv[idx[r]] = g;
            cnt[g]++;
        }
        *ng = g + 1;
    }
    ct__free(ctx, keys), ct__free(ctx, idx);
    ct_tensor_release(mv), ct_tensor_release(k);
    return st;
}

static ct_status ct__unique_dim(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                                bool consecutive, ct_tensor **values, ct_tensor **inverse,
                                ct_tensor **counts) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, values);
    if (st != CT_OK) return st;
    *values = NULL;
    if (inverse) *inverse = NULL;
    if (counts) *counts = NULL;
    int d;
    if (t->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: dimension specified as %d but tensor has no dimensions", op, dim);
    if (!ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: dimension out of range (expected to be in range of [%d, %d], "
                             "but got %d)",
                             op, -t->ndim, t->ndim - 1, dim);
    if (ct_dtype_is_complex(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: not implemented for %s (as torch)", op,
                             ct_dtype_name(t->dtype));
    int zeros = 0;
    for (int i = 0; i < t->ndim; i++)
        zeros += t->shape[i] == 0;
    if (t->shape[d] == 0 && zeros > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: number of zero sized dimensions is more than one, so unique "
                             "cannot be applied",
                             op);
    if (t->shape[d] != 0 && zeros > 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: there are 0 sized dimensions, and they aren't selected, so "
                             "unique cannot be applied",
                             op);
    const int64_t R = t->shape[d];
    const bool rec = ct__ag_wants(ctx, 1, ins);
    const bool was = ct_set_grad_enabled(ctx, false);
    int64_t *buf = ct__alloc(ctx, sizeof(int64_t) * (size_t)(3 * R + 1), 16), ng = 0;
    ct_tensor *pos = NULL, *vals = NULL, *inv = NULL, *cnt = NULL;
    if (!buf) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    int64_t *rep = buf, *iv = buf + R, *cn = buf + 2 * R;
    if (st == CT_OK && R > 0)
        st = ct__unique_dim_groups(ctx, op, t, d, consecutive, rep, iv, cn, &ng);
    CT__DO(st, ct_tensor_from_host(ctx, rep, CT_INT64, 1, &ng, &pos));
    CT__DO(st, ct_index_select(ctx, t, d, pos, &vals));
    if (inverse) CT__DO(st, ct_tensor_from_host(ctx, iv, CT_INT64, 1, &R, &inv));
    if (counts) CT__DO(st, ct_tensor_from_host(ctx, cn, CT_INT64, 1, &ng, &cnt));
    ct_set_grad_enabled(ctx, was);
    ct__free(ctx, buf);
    ct_tensor_release(pos);
    if (st == CT_OK && rec) { /* torch: a node whose backward is not implemented */
        const ct__ag_custom *fn = consecutive ? &CT__UNIQUE_CONSEC_FN : &CT__UNIQUE_DIM_FN;
        st = ct__ag_record_custom(
            ctx, fn, (void *)(consecutive ? "unique_consecutive" : "unique_dim"), t, &vals);
        if (st == CT_OK) ct__ag_named(ctx, st, &vals, 0, fn->name);
    }
    if (st != CT_OK) {
        ct_tensor_release(vals), ct_tensor_release(inv), ct_tensor_release(cnt);
        return st;
    }
    *values = vals;
    if (inverse) *inverse = inv;
    if (counts) *counts = cnt;
    return CT_OK;
}

ct_status ct_unique_dim(ct_ctx *ctx, const ct_tensor *t, int dim, bool sorted, ct_tensor **values,
                        ct_tensor **inverse, ct_tensor **counts) {
    (void)sorted; /* torch sorts the slices for sorted=false too */
    return ct__error_within(
        ctx, "unique_dim",
        ct__unique_dim(ctx, "unique_dim", t, dim, false, values, inverse, counts));
}
ct_status ct_unique_consecutive_dim(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **values,
                                    ct_tensor **inverse, ct_tensor **counts) {
    return ct__error_within(
        ctx, "unique_consecutive",
        ct__unique_dim(ctx, "unique_consecutive", t, dim, true, values, inverse, counts));
}

/* Sorting front ends: sort, argsort, topk, kthvalue. The sorted dim is moved last and made
 * contiguous (a COPY), rows are sorted by CT_OP_SORT (stable, NaN largest as torch), and the
 * results are moved back (views + a COPY to torch's contiguous layout). kthvalue, and topk with
 * k > N/4, take a narrowed slice of the full sort; a smaller topk selects with a bounded heap per
 * row (CT_OP_TOPK), which gives the same elements in the same order. */
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* Sorted values and int64 indices of t along dim d, laid out with d moved last (contiguous). */
static ct_status ct__sort_last(ct_ctx *ctx, const ct_tensor *t, int d, bool descending,
                               ct_tensor **vals, ct_tensor **idx) {
    int nd = t->ndim;
    ct_tensor *m = NULL, *c = NULL, *v = NULL, *ix = NULL, *work = NULL;
    ct_status st = CT_OK;
    if (nd == 0) {
        c = ct_tensor_retain((ct_tensor *)t);
    } else {
        int src[1] = {d}, dst[1] = {nd - 1};
        st = ct_movedim(ctx, t, 1, src, dst, &m);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, m, &c);
    }
    int64_t N = nd ? t->shape[d] : 1, R = N ? ct_tensor_numel(t) / N : 0;
    if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, t->dtype, c->ndim, c->shape, &v);
    if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, CT_INT64, c->ndim, c->shape, &ix);
    if (st == CT_OK && R > 0 && N > 0) {
        int64_t wn[1] = {N}, rn[2] = {R, N};
        st = ct__tensor_new(ctx, t->storage->device, CT_INT64, 1, wn, &work);
        if (st == CT_OK) {
            ct_op_desc desc;
            ct__desc_init(&desc, CT_OP_SORT, 2, 2);
            ct__operand_contig(&desc.operands[0], v, 2, rn);
            ct__operand_contig(&desc.operands[1], ix, 2, rn);
            ct__operand_contig(&desc.operands[2], c, 2, rn);
            ct__operand_set(&desc.operands[3], work);
            desc.compute_dtype = t->dtype;
            desc.ints[0] = descending ? 1 : 0;
            st = ct__submit(ctx, t->storage->device, &desc);
        }
    }
    ct_tensor_release(m), ct_tensor_release(c), ct_tensor_release(work);
    if (st != CT_OK) {
        ct_tensor_release(v), ct_tensor_release(ix);
        return st;
    }
    *vals = v;
    *idx = ix;
    return CT_OK;
}

/* The first k of the sort order along dim d (values and int64 indices), dim d moved last. */
static ct_status ct__topk_last(ct_ctx *ctx, const ct_tensor *t, int d, int64_t k, bool largest,
                               ct_tensor **vals, ct_tensor **idx) {
    int nd = t->ndim;
    ct_tensor *m = NULL, *c = NULL, *v = NULL, *ix = NULL;
    int src[1] = {d}, dst[1] = {nd - 1};
    ct_status st = ct_movedim(ctx, t, 1, src, dst, &m);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, m, &c);
    int64_t N = t->shape[d], R = N ? ct_tensor_numel(t) / N : 0, shape[CT_MAX_DIMS];
    for (int i = 0; st == CT_OK && i < nd; i++)
        shape[i] = i == nd - 1 ? k : c->shape[i];
    if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, t->dtype, nd, shape, &v);
    if (st == CT_OK) st = ct__tensor_new(ctx, t->storage->device, CT_INT64, nd, shape, &ix);
    if (st == CT_OK && R > 0 && k > 0) {
        int64_t rk[2] = {R, k}, rn[2] = {R, N};
        ct_op_desc desc;
        ct__desc_init(&desc, CT_OP_TOPK, 2, 1);
        ct__operand_contig(&desc.operands[0], v, 2, rk);
        ct__operand_contig(&desc.operands[1], ix, 2, rk);
        ct__operand_contig(&desc.operands[2], c, 2, rn);
        desc.compute_dtype = t->dtype;
        desc.ints[0] = k;
        desc.ints[1] = largest ? 1 : 0;
        st = ct__submit(ctx, t->storage->device, &desc);
    }
    ct_tensor_release(m), ct_tensor_release(c);
    if (st != CT_OK) {
        ct_tensor_release(v), ct_tensor_release(ix);
        return st;
    }
    *vals = v;
    *idx = ix;
    return CT_OK;
}

/* From the dim-last layout back to t's dim order, narrowed to [0, k) along it (k < 0: all), as
 * contiguous tensors. keep_dim false removes the dim (kthvalue). */
static ct_status ct__sort_back(ct_ctx *ctx, const ct_tensor *t, int d, ct_tensor *x, int64_t k,
                               bool remove_dim, ct_tensor **out) {
    int nd = t->ndim;
    ct_tensor *n = NULL, *m = NULL, *s = NULL;
    ct_status st = CT_OK;
    if (nd == 0) {
        *out = ct_tensor_retain(x);
        return CT_OK;
    }
    if (k >= 0)
        st = ct_tensor_narrow(ctx, x, nd - 1, remove_dim ? k : 0, remove_dim ? 1 : k, &n);
    else
        n = ct_tensor_retain(x);
    if (st == CT_OK && remove_dim) {
        st = ct_tensor_squeeze(ctx, n, nd - 1, &s);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, s, out);
    } else if (st == CT_OK) {
        int src[1] = {nd - 1}, dst[1] = {d};
        st = ct_movedim(ctx, n, 1, src, dst, &m);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, m, out);
    }
    ct_tensor_release(n), ct_tensor_release(m), ct_tensor_release(s);
    return st;
}

static ct_status ct__sort_args(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim, int *d,
                               void *out) {
    ct_status st = ct__one_input(ctx, op, t, out);
    if (st != CT_OK) return st;
    /* a 0-d tensor sorts as one element along dim 0 or -1 (as torch) */
    if (!ct__wrap_dim(dim, t->ndim ? t->ndim : 1, d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for a %d-dim tensor", op,
                             dim, t->ndim);
    return CT_OK;
}

/* With grad wanted: replace *values by gather(t, d, indices), which records the gather node whose
 * formula scatters the gradient back (the values are the same elements). squeezed: the indices
 * lack dim d (kthvalue without keepdim). */
static ct_status ct__regather(ct_ctx *ctx, const ct_tensor *t, int d, ct_tensor **values,
                              const ct_tensor *idx, bool squeezed) {
    ct_tensor *ix = NULL, *g = NULL, *v = NULL;
    ct_status st = squeezed ? ct_tensor_unsqueeze(ctx, idx, d, &ix)
                            : (ix = ct_tensor_retain((ct_tensor *)idx), CT_OK);
    if (st == CT_OK)
        st = t->ndim ? ct_gather(ctx, t, d, ix, &g) : ct_tensor_view(ctx, t, 0, NULL, &g);
    if (st == CT_OK && squeezed) {
        st = ct_tensor_squeeze(ctx, g, d, &v);
        ct_tensor_release(g);
        g = v;
    }
    ct_tensor_release(ix);
    if (st != CT_OK) {
        ct_tensor_release(g);
        return st;
    }
    ct_tensor_release(*values);
    *values = g;
    return CT_OK;
}

static ct_status ct__regather_or_drop(ct_ctx *ctx, const ct_tensor *t, int d, ct_tensor **values,
                                      ct_tensor **indices, bool squeezed) {
    ct_status st = ct__regather(ctx, t, d, values, *indices, squeezed);
    if (st != CT_OK) { /* no outputs on failure */
        ct_tensor_release(*values), ct_tensor_release(*indices);
        *values = *indices = NULL;
    }
    return st;
}

static ct_status ct__sort_body(ct_ctx *ctx, const ct_tensor *t, int dim, bool descending,
                               bool stable, ct_tensor **values, ct_tensor **indices) {
    (void)stable; /* always stable: one of the orders an unstable sort may give */
    int d = 0;
    ct_status st = ct__sort_args(ctx, "sort", t, dim, &d, values);
    if (st != CT_OK) return st;
    const ct_tensor *ag_in_[1] = {t};
    const bool want_grad = ct__ag_wants(ctx, 1, ag_in_); /* values re-gathered below */
    if (!indices) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "sort: indices is NULL");
    *values = *indices = NULL;
    ct_tensor *v = NULL, *ix = NULL, *ov = NULL, *oi = NULL;
    st = ct__sort_last(ctx, t, d, descending, &v, &ix);
    if (st == CT_OK) st = ct__sort_back(ctx, t, d, v, -1, false, &ov);
    if (st == CT_OK) st = ct__sort_back(ctx, t, d, ix, -1, false, &oi);
    ct_tensor_release(v), ct_tensor_release(ix);
    if (st != CT_OK) {
        ct_tensor_release(ov), ct_tensor_release(oi);
        return st;
    }
    *values = ov;
    *indices = oi;
    return want_grad ? ct__regather_or_drop(ctx, t, d, values, indices, false) : CT_OK;
}
ct_status ct_sort(ct_ctx *ctx, const ct_tensor *t, int dim, bool descending, bool stable,
                  ct_tensor **values, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__sort_body(ctx, t, dim, descending, stable, values, indices),
                        values, mark, "SortBackward0");
}

ct_status ct_argsort(ct_ctx *ctx, const ct_tensor *t, int dim, bool descending, ct_tensor **out) {
    int d = 0;
    ct_status st = ct__sort_args(ctx, "argsort", t, dim, &d, out);
    if (st != CT_OK) return st;
    ct_tensor *v = NULL, *ix = NULL;
    st = ct__sort_last(ctx, t, d, descending, &v, &ix);
    if (st == CT_OK) st = ct__sort_back(ctx, t, d, ix, -1, false, out);
    ct_tensor_release(v), ct_tensor_release(ix);
    return st;
}

static ct_status ct__topk_body(ct_ctx *ctx, const ct_tensor *t, int64_t k, int dim, bool largest,
                               bool sorted, ct_tensor **values, ct_tensor **indices) {
    (void)sorted; /* results always come sorted, which torch allows for sorted=false too */
    int d = 0;
    ct_status st = ct__sort_args(ctx, "topk", t, dim, &d, values);
    if (st != CT_OK) return st;
    const ct_tensor *ag_in_[1] = {t};
    const bool want_grad = ct__ag_wants(ctx, 1, ag_in_); /* values re-gathered below */
    if (!indices) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "topk: indices is NULL");
    *values = *indices = NULL;
    int64_t n = t->ndim ? t->shape[d] : 1;
    if (k < 0 || k > n)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "topk: k %lld is out of range for dim %d of size %lld", (long long)k,
                             d, (long long)n);
    ct_tensor *v = NULL, *ix = NULL, *ov = NULL, *oi = NULL;
    if (4 * k <= n && t->ndim > 0) { /* a bounded heap per row: O(N log k), not a full sort */
        st = ct__topk_last(ctx, t, d, k, largest, &v, &ix);
        if (st == CT_OK) st = ct__sort_back(ctx, t, d, v, -1, false, &ov);
        if (st == CT_OK) st = ct__sort_back(ctx, t, d, ix, -1, false, &oi);
    } else {
        st = ct__sort_last(ctx, t, d, largest, &v, &ix);
        if (st == CT_OK) st = ct__sort_back(ctx, t, d, v, k, false, &ov);
        if (st == CT_OK) st = ct__sort_back(ctx, t, d, ix, k, false, &oi);
    }
    ct_tensor_release(v), ct_tensor_release(ix);
    if (st != CT_OK) {
        ct_tensor_release(ov), ct_tensor_release(oi);
        return st;
    }
    *values = ov;
    *indices = oi;
    return want_grad ? ct__regather_or_drop(ctx, t, d, values, indices, false) : CT_OK;
}
ct_status ct_topk(ct_ctx *ctx, const ct_tensor *t, int64_t k, int dim, bool largest, bool sorted,
                  ct_tensor **values, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__topk_body(ctx, t, k, dim, largest, sorted, values, indices),
                        values, mark, "TopkBackward0");
}

static ct_status ct__kthvalue_body(ct_ctx *ctx, const ct_tensor *t, int64_t k, int dim,
                                   bool keepdim, ct_tensor **values, ct_tensor **indices) {
    int d = 0;
    ct_status st = ct__sort_args(ctx, "kthvalue", t, dim, &d, values);
    if (st != CT_OK) return st;
    const ct_tensor *ag_in_[1] = {t};
    const bool want_grad = ct__ag_wants(ctx, 1, ag_in_); /* values re-gathered below */
    if (!indices) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "kthvalue: indices is NULL");
    *values = *indices = NULL;
    int64_t n = t->ndim ? t->shape[d] : 1;
    if (k < 1 || k > n)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "kthvalue: k %lld is out of range for dim %d of size %lld (1..%lld)",
                             (long long)k, d, (long long)n, (long long)n);
    ct_tensor *v = NULL, *ix = NULL, *ov = NULL, *oi = NULL, *kv = NULL, *ki = NULL;
    st = ct__sort_last(ctx, t, d, false, &v, &ix);
    if (st == CT_OK) st = ct__sort_back(ctx, t, d, v, k - 1, true, &ov);
    if (st == CT_OK) st = ct__sort_back(ctx, t, d, ix, k - 1, true, &oi);
    if (st == CT_OK && keepdim && t->ndim > 0) {
        st = ct_tensor_unsqueeze(ctx, ov, d, &kv);
        if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, oi, d, &ki);
        ct_tensor_release(ov), ct_tensor_release(oi);
        ov = kv, oi = ki;
    }
    ct_tensor_release(v), ct_tensor_release(ix);
    if (st != CT_OK) {
        ct_tensor_release(ov), ct_tensor_release(oi);
        return st;
    }
    *values = ov;
    *indices = oi;
    return want_grad ? ct__regather_or_drop(ctx, t, d, values, indices, !keepdim && t->ndim > 0)
                     : CT_OK;
}
ct_status ct_kthvalue(ct_ctx *ctx, const ct_tensor *t, int64_t k, int dim, bool keepdim,
                      ct_tensor **values, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__kthvalue_body(ctx, t, k, dim, keepdim, values, indices), values,
                        mark, "KthvalueBackward0");
}

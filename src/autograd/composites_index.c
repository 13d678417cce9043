/* Indexing and shaping composites of the everyday surface, each made of recording ops so it is
 * differentiable and capturable, and printing torch 1.13's node name: broadcast_shapes / _to /
 * _tensors, select, unbind, t, adjoint, moveaxis, hsplit / vsplit / dsplit, row_stack, concat,
 * advanced indexing (index, index_put, take, put), select / slice / diagonal_scatter, diagflat,
 * combinations, renorm, clamp_min / clamp_max, rsub, positive, sgn, ldexp, frexp,
 * isposinf / isneginf / isreal, result_type, can_cast, inner, vdot, dist, chain_matmul, addbmm and
 * pdist. docs/everyday.md ("Indexing, scatter and small helpers") lists where ctorch answers
 * differently from torch. */
#include "ops/complex_impl.h"
#include "autograd/autograd_impl.h"
#include "ctorch/linalg.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CT__LIST_MAX 64

/* ct__check_args for a call whose outputs are an array (checked by the caller) */
static ct_status ct__check_inputs(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts) {
    ct_tensor *unused = NULL;
    return ct__check_args(ctx, op, n, ts, &unused);
}

/* ---- broadcasting ---- */
static ct_status ct__bshape(ct_ctx *ctx, const char *op, int n, const int *ndims,
                            const int64_t *const *shapes, int *out_nd, int64_t *out_shape) {
    int nd = 0;
    for (int i = 0; i < n; i++) {
        if (ndims[i] < 0 || ndims[i] > CT_MAX_DIMS || (ndims[i] > 0 && !shapes[i]))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: shape %d has %d dims (0 to %d, with a shape array)", op, i,
                                 ndims[i], CT_MAX_DIMS);
        if (ndims[i] > nd) nd = ndims[i];
    }
    for (int k = 0; k < nd; k++)
        out_shape[k] = 1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < ndims[i]; k++) {
            const int64_t s = shapes[i][k];
            int64_t *o = &out_shape[nd - ndims[i] + k];
            if (s < 0)
                return ct__set_error(ctx, CT_ERR_SHAPE, "%s: shape %d has a negative size %lld", op,
                                     i, (long long)s);
            if (s == *o || s == 1) continue;
            if (*o != 1)
                return ct__set_error(ctx, CT_ERR_SHAPE,
                                     "%s: shape mismatch: objects cannot be broadcast to a single "
                                     "shape (size %lld against %lld at dim %d from the right)",
                                     op, (long long)s, (long long)*o, ndims[i] - k);
            *o = s;
        }
    *out_nd = nd;
    return CT_OK;
}
ct_status ct_broadcast_shapes(ct_ctx *ctx, int n, const int *ndims, const int64_t *const *shapes,
                              int *out_ndim, int64_t *out_shape) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out_ndim || !out_shape || n < 0 || (n > 0 && (!ndims || !shapes)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "broadcast_shapes: needs n >= 0 shapes and the output pointers");
    int nd = 0;
    int64_t sh[CT_MAX_DIMS];
    ct_status st = ct__bshape(ctx, "broadcast_shapes", n, ndims, shapes, &nd, sh);
    if (st != CT_OK) return st;
    *out_ndim = nd;
    memcpy(out_shape, sh, sizeof(int64_t) * (size_t)nd);
    return CT_OK;
}
ct_status ct_broadcast_to(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                          ct_tensor **out) {
    return ct__error_within(ctx, "broadcast_to", ct_tensor_expand(ctx, t, ndim, shape, out));
}
ct_status ct_broadcast_tensors(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **outs) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (n < 1 || n > CT__LIST_MAX || !ts || !outs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "broadcast_tensors: expects 1 to %d tensors and an output array",
                             CT__LIST_MAX);
    for (int i = 0; i < n; i++)
        outs[i] = NULL;
    ct_status st = ct__check_inputs(ctx, "broadcast_tensors", n, ts);
    if (st != CT_OK) return st;
    int nds[CT__LIST_MAX], nd = 0;
    const int64_t *shs[CT__LIST_MAX];
    for (int i = 0; i < n; i++) {
        nds[i] = ts[i]->ndim;
        shs[i] = ts[i]->shape;
    }
    int64_t sh[CT_MAX_DIMS];
    if ((st = ct__bshape(ctx, "broadcast_tensors", n, nds, shs, &nd, sh)) != CT_OK) return st;
    for (int i = 0; i < n; i++)
        outs[i] = NULL;
    for (int i = 0; i < n && st == CT_OK; i++) {
        bool same = ts[i]->ndim == nd;
        for (int k = 0; same && k < nd; k++)
            same = ts[i]->shape[k] == sh[k];
        if (same) /* torch hands back the input itself */
            outs[i] = ct_tensor_retain((ct_tensor *)ts[i]);
        else
            st = ct_tensor_expand(ctx, ts[i], nd, sh, &outs[i]);
    }
    if (st != CT_OK) ct__release_all(n, outs);
    return ct__error_within(ctx, "broadcast_tensors", st);
}

/* ---- select / unbind / t / adjoint / moveaxis ---- */
static ct_status ct__select(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim, int64_t index,
                            ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (t->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: cannot be applied to a 0-dim tensor", op);
    int d = 0;
    if (!ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             t->ndim);
    const int64_t size = t->shape[d];
    if (index < -size || index >= size)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: index %lld out of range for tensor of size %s at dimension %d",
                             op, (long long)index, CT__SHAPE_STR(t), d);
    if (index < 0) index += size;
    ct_tensor *nr = NULL;
    st = ct_tensor_narrow(ctx, t, d, index, 1, &nr);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, nr, d, out);
    ct_tensor_release(nr);
    return st;
}
ct_status ct_select(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t index, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "select", ct__select(ctx, "select", t, dim, index, out));
    return ct__ag_named(ctx, st, out, mark, "SelectBackward0");
}
ct_status ct_unbind(ct_ctx *ctx, const ct_tensor *t, int dim, int max_out, ct_tensor **outs,
                    int *n_out) {
    if (outs)
        for (int i = 0; i < max_out; i++)
            outs[i] = NULL;
    if (n_out) *n_out = 0;
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_inputs(ctx, "unbind", 1, ins);
    if (st != CT_OK) return st;
    if (!outs || !n_out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "unbind: outs is NULL");
    if (t->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "unbind: dimension specified as %d but tensor "
                             "has no dimensions",
                             dim);
    int d = 0;
    if (!ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "unbind: dim %d out of range for %d dims", dim,
                             t->ndim);
    const int64_t n = t->shape[d];
    *n_out = n > INT32_MAX ? INT32_MAX : (int)n;
    if (n > max_out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "unbind: %lld pieces along dim %d, more than max_out %d", (long long)n,
                             d, max_out);
    for (int64_t i = 0; i < n; i++)
        outs[i] = NULL;
    for (int64_t i = 0; i < n && st == CT_OK; i++) {
        uint64_t mark = ct__ag_mark(ctx);
        st = ct__select(ctx, "unbind", t, d, i, &outs[i]);
        ct__ag_named(ctx, st, &outs[i], mark, "UnbindBackward0");
    }
    if (st != CT_OK) ct__release_all((int)n, outs);
    return ct__error_within(ctx, "unbind", st);
}
ct_status ct_t(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "t", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (t->ndim > 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "t: expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
    uint64_t mark = ct__ag_mark(ctx);
    st = t->ndim < 2 ? ct_tensor_view(ctx, t, t->ndim, t->shape, out)
                     : ct_tensor_transpose(ctx, t, 0, 1, out);
    return ct__ag_named(ctx, ct__error_within(ctx, "t", st), out, mark, "TBackward0");
}
ct_status ct_adjoint(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "adjoint", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (t->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "adjoint: only supported on matrices or batches of matrices, got a "
                             "%d-D tensor",
                             t->ndim);
    if (!ct_dtype_is_complex(t->dtype))
        return ct__error_within(ctx, "adjoint", ct_tensor_transpose(ctx, t, -2, -1, out));
    ct_tensor *tr = NULL; /* complex: the conjugate transpose (a new tensor: no conj bit) */
    st = ct_tensor_transpose(ctx, t, -2, -1, &tr);
    if (st == CT_OK) st = ct_conj(ctx, tr, out);
    ct_tensor_release(tr);
    return ct__error_within(ctx, "adjoint", st);
}
ct_status ct_moveaxis(ct_ctx *ctx, const ct_tensor *t, int n, const int *src, const int *dst,
                      ct_tensor **out) {
    return ct__error_within(ctx, "moveaxis", ct_movedim(ctx, t, n, src, dst, out));
}

/* ---- hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-d), 0, 2 ---- */
static ct_status ct__xsplit(ct_ctx *ctx, const char *op, const ct_tensor *t, int which,
                            int sections, int n, const int64_t *indices, ct_tensor **outs) {
    const int n_outs = indices ? n + 1 : sections; /* what outs holds */
    if (outs)
        for (int i = 0; i < n_outs; i++)
            outs[i] = NULL;
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_inputs(ctx, op, 1, ins);
    if (st != CT_OK) return st;
    if (!outs) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: outs is NULL", op);
    const int need = which == 0 ? 1 : which == 1 ? 2 : 3;
    if (t->ndim < need)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: requires a tensor with at least %d dimension%s, but got a tensor "
                             "with %d dimensions",
                             op, need, need > 1 ? "s" : "", t->ndim);
    const int d = which == 0 ? (t->ndim == 1 ? 0 : 1) : which == 1 ? 0 : 2;
    if (!indices) {
        if (sections <= 0 || t->shape[d] % sections != 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: attempted to split along dimension %d, but the size of the "
                                 "dimension %lld is not divisible by the split_size %d",
                                 op, d, (long long)t->shape[d], sections);
        return ct__error_within(ctx, op, ct_tensor_split(ctx, t, sections, d, outs));
    }
    return ct__error_within(ctx, op, ct_tensor_split_indices(ctx, t, n, indices, d, outs));
}
ct_status ct_hsplit(ct_ctx *ctx, const ct_tensor *t, int sections, ct_tensor **outs) {
    return ct__xsplit(ctx, "hsplit", t, 0, sections, 0, NULL, outs);
}
ct_status ct_vsplit(ct_ctx *ctx, const ct_tensor *t, int sections, ct_tensor **outs) {
    return ct__xsplit(ctx, "vsplit", t, 1, sections, 0, NULL, outs);
}
ct_status ct_dsplit(ct_ctx *ctx, const ct_tensor *t, int sections, ct_tensor **outs) {
    return ct__xsplit(ctx, "dsplit", t, 2, sections, 0, NULL, outs);
}
static ct_status ct__xsplit_idx(ct_ctx *ctx, const char *op, const ct_tensor *t, int which, int n,
                                const int64_t *indices, ct_tensor **outs) {
    if (ctx && (n < 0 || (n > 0 && !indices)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: needs n >= 0 indices", op);
    static const int64_t none[1] = {0};
    return ct__xsplit(ctx, op, t, which, 0, n, n ? indices : none, outs);
}
ct_status ct_hsplit_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                            ct_tensor **outs) {
    return ct__xsplit_idx(ctx, "hsplit", t, 0, n, indices, outs);
}
ct_status ct_vsplit_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                            ct_tensor **outs) {
    return ct__xsplit_idx(ctx, "vsplit", t, 1, n, indices, outs);
}
ct_status ct_dsplit_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                            ct_tensor **outs) {
    return ct__xsplit_idx(ctx, "dsplit", t, 2, n, indices, outs);
}
ct_status ct_row_stack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    return ct_vstack(ctx, n, ts, out);
}
ct_status ct_concat(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim, ct_tensor **out) {
    return ct_cat(ctx, n, ts, dim, out);
}
ct_status ct_concatenate(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim, ct_tensor **out) {
    return ct_cat(ctx, n, ts, dim, out);
}

/* ---- advanced indexing: t[i0, i1, ...] with index tensors (NULL for a full slice ':') ----
 * Plan: the indexed dims of t are moved to the front (in order) and flattened into one dim of
 * size P; the index tensors broadcast to B and combine into one linear index into it (-1 where a
 * component is outside [-size, size), so index_select / index_copy / index_add report it). The
 * result (B..., rest...) goes where torch puts it: at the first indexed dim when the indexed dims
 * are adjacent, in front otherwise. */
typedef struct {
    int k;                 /* indexed dims */
    int dims[CT_MAX_DIMS]; /* which dims of t, in order */
    int nb;                /* broadcast index shape B */
    int64_t bshape[CT_MAX_DIMS];
    int first; /* where B goes in the result */
    int nrest; /* dims of t not indexed, in order */
    int rest[CT_MAX_DIMS];
    int64_t P;      /* product of the indexed sizes */
    ct_tensor *lin; /* int64 (numel B) linear index */
} ct__adv;

static ct_status ct__adv_plan(ct_ctx *ctx, const char *op, const ct_tensor *t, int n,
                              const ct_tensor *const *indices, ct__adv *a) {
    memset(a, 0, sizeof *a);
    if (n < 1 || !indices)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects at least one index entry", op);
    ct_tensor *idx[CT_MAX_DIMS] = {NULL}; /* owned int64 per indexed dim */
    ct_status st = CT_OK;
    int p = 0;
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *ix = indices[i];
        if (!ix) {
            p++;
            if (p > t->ndim)
                st = ct__set_error(ctx, CT_ERR_INDEX,
                                   "%s: too many indices for tensor of dimension %d", op, t->ndim);
            continue;
        }
        const ct_tensor *one[1] = {ix};
        if ((st = ct__check_inputs(ctx, op, 1, one)) != CT_OK) break;
        if (ix->dtype == CT_BOOL || ix->dtype == CT_UINT8) {
            if (ix->ndim == 0) {
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: a 0-d mask index is not supported; index with a 1-d mask",
                                   op);
                break;
            }
            if (p + ix->ndim > t->ndim) {
                st = ct__set_error(ctx, CT_ERR_INDEX,
                                   "%s: too many indices for tensor of dimension %d", op, t->ndim);
                break;
            }
            for (int k = 0; k < ix->ndim; k++)
                if (ix->shape[k] != t->shape[p + k]) {
                    st = ct__set_error(ctx, CT_ERR_INDEX,
                                       "%s: the shape of the mask %s at index %d does not match "
                                       "the shape of the indexed tensor %s at index %d",
                                       op, CT__SHAPE_STR(ix), k, CT__SHAPE_STR(t), p + k);
                    break;
                }
            if (st != CT_OK) break;
            ct_tensor *mb = NULL, *nz = NULL;
            st = ix->dtype == CT_BOOL ? ct_tensor_view(ctx, ix, ix->ndim, ix->shape, &mb)
                                      : ct_cast(ctx, ix, CT_BOOL, &mb);
            if (st == CT_OK) st = ct_nonzero(ctx, mb, &nz); /* (N, ndim) int64 */
            for (int k = 0; k < ix->ndim && st == CT_OK; k++) {
                ct_tensor *col = NULL;
                st = ct_select(ctx, nz, 1, k, &col);
                if (st == CT_OK) st = ct_tensor_contiguous(ctx, col, &idx[a->k]);
                ct_tensor_release(col);
                a->dims[a->k++] = p + k;
            }
            ct_tensor_release(mb);
            ct_tensor_release(nz);
            p += ix->ndim;
            continue;
        }
        if (ix->dtype != CT_INT64) { /* torch 1.13 refuses int32 indices too */
            st = ct__set_error(ctx, CT_ERR_DTYPE,
                               "%s: tensors used as indices must be long, byte or bool tensors, "
                               "got %s",
                               op, ct_dtype_name(ix->dtype));
            break;
        }
        if (p >= t->ndim) {
            st = ct__set_error(ctx, CT_ERR_INDEX, "%s: too many indices for tensor of dimension %d",
                               op, t->ndim);
            break;
        }
        st = ct_cast(ctx, ix, CT_INT64, &idx[a->k]);
        a->dims[a->k++] = p++;
    }
    if (st == CT_OK && a->k == 0)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "%s: expects at least one index tensor (all entries are full slices)",
                           op);
    if (st == CT_OK) {
        int nds[CT_MAX_DIMS];
        const int64_t *shs[CT_MAX_DIMS];
        for (int j = 0; j < a->k; j++) {
            nds[j] = idx[j]->ndim;
            shs[j] = idx[j]->shape;
        }
        st = ct__bshape(ctx, op, a->k, nds, shs, &a->nb, a->bshape);
    }
    if (st == CT_OK) {
        bool adjacent = true;
        for (int j = 1; j < a->k; j++)
            adjacent &= a->dims[j] == a->dims[j - 1] + 1;
        a->first = adjacent ? a->dims[0] : 0;
        int r = 0;
        for (int d = 0, j = 0; d < t->ndim; d++) {
            if (j < a->k && a->dims[j] == d)
                j++;
            else
                a->rest[r++] = d;
        }
        a->nrest = r;
        a->P = 1;
        for (int j = 0; j < a->k; j++)
            a->P *= t->shape[a->dims[j]];
    }
    /* linear index: sum of wrapped components times the flattened strides; -1 where any is out of
     * range. Integer work only, so grad mode does not matter. */
    ct_tensor *lin = NULL, *bad = NULL;
    int64_t stride = 1;
    for (int j = a->k - 1; j >= 0 && st == CT_OK; j--) {
        const int64_t size = t->shape[a->dims[j]];
        ct_tensor *x[8] = {NULL};
        CT__DO(st, ct_tensor_expand(ctx, idx[j], a->nb, a->bshape, &x[0]));
        CT__DO(st, ct_lt_scalar(ctx, x[0], 0, &x[1]));
        CT__DO(st, ct_add_scalar(ctx, x[0], (double)size, &x[2]));
        CT__DO(st, ct_where(ctx, x[1], x[2], x[0], &x[3])); /* wrapped */
        CT__DO(st, ct_lt_scalar(ctx, x[3], 0, &x[4]));
        CT__DO(st, ct_ge_scalar(ctx, x[3], (double)size, &x[5]));
        CT__DO(st, ct_logical_or(ctx, x[4], x[5], &x[6]));
        if (st == CT_OK && bad) {
            ct_tensor *b2 = NULL;
            st = ct_logical_or(ctx, bad, x[6], &b2);
            ct_tensor_release(bad);
            bad = b2;
        } else if (st == CT_OK) {
            bad = ct_tensor_retain(x[6]);
        }
        CT__DO(st, ct_mul_scalar(ctx, x[3], (double)stride, &x[7]));
        if (st == CT_OK && lin) {
            ct_tensor *l2 = NULL;
            st = ct_add(ctx, lin, x[7], &l2);
            ct_tensor_release(lin);
            lin = l2;
        } else if (st == CT_OK) {
            lin = ct_tensor_retain(x[7]);
        }
        ct__release_all(8, x);
        stride *= size;
    }
    if (st == CT_OK) {
        ct_tensor *neg = NULL, *l2 = NULL;
        const int64_t m1 = -1;
        st = ct_tensor_full(ctx, CT_INT64, 0, &m1, -1.0, &neg);
        CT__DO(st, ct_where(ctx, bad, neg, lin, &l2));
        ct_tensor_release(neg);
        int64_t nb = -1;
        CT__DO(st, ct_tensor_reshape(ctx, l2, 1, &nb, &a->lin));
        ct_tensor_release(l2);
    }
    ct_tensor_release(lin);
    ct_tensor_release(bad);
    ct__release_all(CT_MAX_DIMS, idx);
    return st;
}
/* t permuted (indexed dims first) and flattened to (P, rest...) */
static ct_status ct__adv_front(ct_ctx *ctx, const ct_tensor *t, const ct__adv *a, ct_tensor **out) {
    int perm[CT_MAX_DIMS];
    int64_t sh[CT_MAX_DIMS];
    for (int j = 0; j < a->k; j++)
        perm[j] = a->dims[j];
    sh[0] = a->P;
    for (int r = 0; r < a->nrest; r++) {
        perm[a->k + r] = a->rest[r];
        sh[1 + r] = t->shape[a->rest[r]];
    }
    ct_tensor *p = NULL;
    ct_status st = ct_tensor_permute(ctx, t, perm, &p);
    CT__DO(st, ct_tensor_reshape(ctx, p, 1 + a->nrest, sh, out));
    ct_tensor_release(p);
    return st;
}
/* The permutation taking (B..., rest...) to the result's order (B at a->first). */
static void ct__adv_result_perm(const ct__adv *a, int *perm) {
    int n = 0;
    for (int r = 0; r < a->first; r++)
        perm[n++] = a->nb + r;
    for (int b = 0; b < a->nb; b++)
        perm[n++] = b;
    for (int r = a->first; r < a->nrest; r++)
        perm[n++] = a->nb + r;
}
static ct_status ct__index_err(ct_ctx *ctx, const char *op, ct_status st) {
    if (st == CT_ERR_INDEX)
        return ct__set_error(ctx, st, "%s: an index is out of range for the dim it indexes", op);
    return st;
}
static ct_status ct__index(ct_ctx *ctx, const char *op, const ct_tensor *t, int n,
                           const ct_tensor *const *indices, ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct__adv a;
    st = ct__adv_plan(ctx, op, t, n, indices, &a);
    ct_tensor *x[3] = {NULL};
    CT__DO(st, ct__adv_front(ctx, t, &a, &x[0]));
    CT__DO(st, ct__index_err(ctx, op, ct_index_select(ctx, x[0], 0, a.lin, &x[1])));
    int64_t sh[CT_MAX_DIMS];
    int nd = a.nb + a.nrest;
    if (st == CT_OK && nd > CT_MAX_DIMS)
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: the result would have %d dims (at most %d)", op,
                           nd, CT_MAX_DIMS);
    if (st == CT_OK) {
        memcpy(sh, a.bshape, sizeof(int64_t) * (size_t)a.nb);
        for (int r = 0; r < a.nrest; r++)
            sh[a.nb + r] = t->shape[a.rest[r]];
        st = ct_tensor_reshape(ctx, x[1], nd, sh, &x[2]);
    }
    if (st == CT_OK && a.first > 0) {
        int perm[CT_MAX_DIMS];
        ct__adv_result_perm(&a, perm);
        st = ct_tensor_permute(ctx, x[2], perm, out);
    } else if (st == CT_OK) {
        *out = ct_tensor_retain(x[2]);
    }
    ct__release_all(3, x);
    ct_tensor_release(a.lin);
    return st;
}
ct_status ct_index(ct_ctx *ctx, const ct_tensor *t, int n, const ct_tensor *const *indices,
                   ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "index", ct__index(ctx, "index", t, n, indices, out));
    return ct__ag_named(ctx, st, out, mark, "IndexBackward0");
}
static ct_status ct__index_put(ct_ctx *ctx, const char *op, const ct_tensor *t, int n,
                               const ct_tensor *const *indices, const ct_tensor *values,
                               bool accumulate, ct_tensor **out) {
    const ct_tensor *ins[2] = {t, values};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (values->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: the source and destination dtypes must match, got %s for the "
                             "destination and %s for the source",
                             op, ct_dtype_name(t->dtype), ct_dtype_name(values->dtype));
    ct__adv a;
    st = ct__adv_plan(ctx, op, t, n, indices, &a);
    const int nd = a.nb + a.nrest;
    if (st == CT_OK && nd > CT_MAX_DIMS)
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: the indexed shape would have %d dims", op, nd);
    ct_tensor *x[7] = {NULL};
    int64_t rsh[CT_MAX_DIMS], fsh[CT_MAX_DIMS];
    int perm[CT_MAX_DIMS], inv[CT_MAX_DIMS];
    if (st == CT_OK) { /* the shape t[indices] has, values broadcast to it */
        ct__adv_result_perm(&a, perm);
        int64_t bsh[CT_MAX_DIMS];
        memcpy(bsh, a.bshape, sizeof(int64_t) * (size_t)a.nb);
        for (int r = 0; r < a.nrest; r++)
            bsh[a.nb + r] = t->shape[a.rest[r]];
        for (int i = 0; i < nd; i++)
            rsh[i] = bsh[perm[i]];
        for (int i = 0; i < nd; i++)
            inv[perm[i]] = i;
        if (values->ndim > nd)
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "%s: shape mismatch: value tensor of shape %s cannot be broadcast "
                               "to indexing result of %d dims",
                               op, CT__SHAPE_STR(values), nd);
        CT__DO(st, ct_tensor_expand(ctx, values, nd, rsh, &x[0]));
        CT__DO(st, ct_tensor_permute(ctx, x[0], inv, &x[1])); /* (B..., rest...) */
        fsh[0] = 1; /* the indexed positions (explicit: -1 cannot be inferred when empty) */
        for (int b = 0; b < a.nb; b++)
            fsh[0] *= a.bshape[b];
        for (int r = 0; r < a.nrest; r++)
            fsh[1 + r] = t->shape[a.rest[r]];
        CT__DO(st, ct_tensor_reshape(ctx, x[1], 1 + a.nrest, fsh, &x[2]));
    }
    CT__DO(st, ct__adv_front(ctx, t, &a, &x[3]));
    if (st == CT_OK)
        st = ct__index_err(ctx, op,
                           accumulate ? ct_index_add(ctx, x[3], 0, a.lin, x[2], 1.0, &x[4])
                                      : ct_index_copy(ctx, x[3], 0, a.lin, x[2], &x[4]));
    if (st == CT_OK) { /* back to t's layout */
        int64_t psh[CT_MAX_DIMS];
        int fperm[CT_MAX_DIMS], finv[CT_MAX_DIMS];
        for (int j = 0; j < a.k; j++) {
            psh[j] = t->shape[a.dims[j]];
            fperm[j] = a.dims[j];
        }
        for (int r = 0; r < a.nrest; r++) {
            psh[a.k + r] = t->shape[a.rest[r]];
            fperm[a.k + r] = a.rest[r];
        }
        for (int i = 0; i < t->ndim; i++)
            finv[fperm[i]] = i;
        st = ct_tensor_reshape(ctx, x[4], t->ndim, psh, &x[5]);
        CT__DO(st, ct_tensor_permute(ctx, x[5], finv, &x[6]));
        CT__DO(st, ct_tensor_contiguous(ctx, x[6], out));
    }
    ct__release_all(7, x);
    ct_tensor_release(a.lin);
    return st;
}
ct_status ct_index_put(ct_ctx *ctx, const ct_tensor *t, int n, const ct_tensor *const *indices,
                       const ct_tensor *values, bool accumulate, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "index_put", ct__index_put(ctx, "index_put", t, n, indices, values, accumulate, out));
    return ct__ag_named(ctx, st, out, mark, "IndexPutBackward0");
}
static ct_status ct__take_args(ct_ctx *ctx, const char *op, const ct_tensor *t,
                               const ct_tensor *index, void *out) {
    const ct_tensor *ins[2] = {t, index};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    if (index->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a long tensor for index, but got %s",
                             op, ct_dtype_name(index->dtype));
    return CT_OK;
}
ct_status ct_take(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *index, ct_tensor **out) {
    ct_status st = ct__take_args(ctx, "take", t, index, out);
    if (st != CT_OK) return st;
    *out = NULL;
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *flat = NULL;
    const int64_t m1 = -1;
    st = ct_tensor_reshape(ctx, t, 1, &m1, &flat);
    const ct_tensor *ix[1] = {index};
    CT__DO(st, ct__index(ctx, "take", flat, 1, ix, out));
    ct_tensor_release(flat);
    return ct__ag_named(ctx, ct__error_within(ctx, "take", st), out, mark, "TakeBackward0");
}
ct_status ct_put(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *index, const ct_tensor *source,
                 bool accumulate, ct_tensor **out) {
    ct_status st = ct__take_args(ctx, "put", t, index, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const ct_tensor *ins[1] = {source};
    if ((st = ct__check_inputs(ctx, "put", 1, ins)) != CT_OK) return st;
    if (ct_tensor_numel(source) != ct_tensor_numel(index))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "put: expected source and index to have the same number of elements, "
                             "but got source %s and index %s",
                             CT__SHAPE_STR(source), CT__SHAPE_STR(index));
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *x[3] = {NULL};
    const int64_t m1 = -1;
    st = ct_tensor_reshape(ctx, t, 1, &m1, &x[0]);
    CT__DO(st, ct_tensor_reshape(ctx, source, index->ndim, index->shape, &x[1]));
    const ct_tensor *ix[1] = {index};
    CT__DO(st, ct__index_put(ctx, "put", x[0], 1, ix, x[1], accumulate, &x[2]));
    CT__DO(st, ct_tensor_reshape(ctx, x[2], t->ndim, t->shape, out));
    ct__release_all(3, x);
    return ct__ag_named(ctx, ct__error_within(ctx, "put", st), out, mark, "PutBackward0");
}

/* ---- select_scatter / slice_scatter / diagonal_scatter: index_copy at the positions ---- */
static ct_status ct__same_shape(ct_ctx *ctx, const char *op, const ct_tensor *src, int nd,
                                const int64_t *sh) {
    bool ok = src->ndim == nd;
    for (int i = 0; ok && i < nd; i++)
        ok = src->shape[i] == sh[i];
    if (ok) return CT_OK;
    char b[96];
    return ct__set_error(ctx, CT_ERR_SHAPE,
                         "%s: expected src to have a size equal to the slice of "
                         "self, src size = %s, slice size = %s",
                         op, CT__SHAPE_STR(src), ct__shape_str(b, sizeof b, nd, sh));
}
static ct_status ct__scatter_args(ct_ctx *ctx, const char *op, const ct_tensor *t,
                                  const ct_tensor *src, int dim, int *d, ct_tensor **out) {
    const ct_tensor *ins[2] = {t, src};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct_dtype_is_complex(src->dtype) && !ct_dtype_is_complex(t->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: cannot copy complex src (%s) into %s self", op,
                             ct_dtype_name(src->dtype), ct_dtype_name(t->dtype));
    if (t->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: cannot be applied to a 0-dim tensor", op);
    if (d && !ct__wrap_dim(dim, t->ndim, d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             t->ndim);
    return CT_OK;
}
/* src in self's dtype (torch's scatter ops copy it over: a cast, on the graph) */
static ct_status ct__src_as(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src,
                            ct_tensor **out) {
    if (src->dtype == t->dtype) {
        *out = ct_tensor_retain((ct_tensor *)src);
        return CT_OK;
    }
    return ct_cast(ctx, src, t->dtype, out);
}
ct_status ct_select_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src, int dim,
                            int64_t index, ct_tensor **out) {
    int d = 0;
    ct_status st = ct__scatter_args(ctx, "select_scatter", t, src, dim, &d, out);
    if (st != CT_OK) return st;
    const int64_t size = t->shape[d];
    if (index < -size || index >= size)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "select_scatter: index %lld out of range for tensor of size %s at "
                             "dimension %d",
                             (long long)index, CT__SHAPE_STR(t), d);
    if (index < 0) index += size;
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0, j = 0; i < t->ndim; i++)
        if (i != d) sh[j++] = t->shape[i];
    if ((st = ct__same_shape(ctx, "select_scatter", src, t->ndim - 1, sh)) != CT_OK) return st;
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *x[2] = {NULL};
    const int64_t one = 1;
    st = ct_tensor_full(ctx, CT_INT64, 1, &one, (double)index, &x[0]);
    ct_tensor *sc = NULL;
    CT__DO(st, ct__src_as(ctx, t, src, &sc));
    CT__DO(st, ct_tensor_unsqueeze(ctx, sc, d, &x[1]));
    CT__DO(st, ct_index_copy(ctx, t, d, x[0], x[1], out));
    ct__release_all(2, x);
    ct_tensor_release(sc);
    return ct__ag_named(ctx, ct__error_within(ctx, "select_scatter", st), out, mark,
                        "SelectScatterBackward0");
}
ct_status ct_slice_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src, int dim,
                           int64_t start, int64_t end, int64_t step, ct_tensor **out) {
    int d = 0;
    ct_status st = ct__scatter_args(ctx, "slice_scatter", t, src, dim, &d, out);
    if (st != CT_OK) return st;
    if (step <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "slice_scatter: slice step must be "
                             "positive, got %lld",
                             (long long)step);
    const int64_t size = t->shape[d];
    if (start < 0) start = start < -size ? 0 : start + size;
    if (end < 0) end = end < -size ? 0 : end + size;
    if (start > size) start = size;
    if (end > size) end = size;
    if (end < start) end = start;
    const int64_t len = end > start ? (end - start - 1) / step + 1 : 0;
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        sh[i] = i == d ? len : t->shape[i];
    if ((st = ct__same_shape(ctx, "slice_scatter", src, t->ndim, sh)) != CT_OK) return st;
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *pos = NULL;
    if (len == 0) {
        const int64_t zero = 0;
        st = ct_tensor_zeros(ctx, CT_INT64, 1, &zero, &pos);
    } else {
        st = ct_tensor_arange(ctx, CT_INT64, (double)start, (double)end, (double)step, &pos);
    }
    ct_tensor *sc = NULL;
    CT__DO(st, ct__src_as(ctx, t, src, &sc));
    CT__DO(st, ct_index_copy(ctx, t, d, pos, sc, out));
    ct_tensor_release(pos), ct_tensor_release(sc);
    return ct__ag_named(ctx, ct__error_within(ctx, "slice_scatter", st), out, mark,
                        "SliceScatterBackward0");
}
ct_status ct_diagonal_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src, int64_t offset,
                              int dim1, int dim2, ct_tensor **out) {
    ct_status st = ct__scatter_args(ctx, "diagonal_scatter", t, src, 0, NULL, out);
    if (st != CT_OK) return st;
    int d1 = 0, d2 = 0;
    if (t->ndim < 2 || !ct__wrap_dim(dim1, t->ndim, &d1) || !ct__wrap_dim(dim2, t->ndim, &d2))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "diagonal_scatter: dims %d and %d out of range for %d dims", dim1,
                             dim2, t->ndim);
    if (d1 == d2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "diagonal_scatter: diagonal dimensions cannot be identical %d, %d",
                             dim1, dim2);
    const int64_t R = t->shape[d1], C = t->shape[d2];
    int64_t L = offset >= 0 ? (C - offset < R ? C - offset : R) : (R + offset < C ? R + offset : C);
    if (offset > C || offset < -R) L = 0;
    if (L < 0) L = 0;
    int perm[CT_MAX_DIMS], inv[CT_MAX_DIMS];
    int64_t sh[CT_MAX_DIMS], flat[CT_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d1 && i != d2) {
            flat[n] = t->shape[i];
            sh[n] = t->shape[i];
            perm[n++] = i;
        }
    sh[n] = L;
    if ((st = ct__same_shape(ctx, "diagonal_scatter", src, n + 1, sh)) != CT_OK) return st;
    perm[n] = d1;
    perm[n + 1] = d2;
    for (int i = 0; i < t->ndim; i++)
        inv[perm[i]] = i;
    int64_t RC = 0;
    if (__builtin_mul_overflow(R, C, &RC))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "diagonal_scatter: %lld x %lld overflows",
                             (long long)R, (long long)C);
    flat[n] = RC;
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *x[7] = {NULL};
    const int64_t r0 = L > 0 && offset < 0 ? -offset : 0, c0 = L > 0 && offset > 0 ? offset : 0;
    st = ct_tensor_permute(ctx, t, perm, &x[0]);
    CT__DO(st, ct_tensor_reshape(ctx, x[0], n + 1, flat, &x[1]));
    if (L > 0) {
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)L, 1, &x[2]));
        CT__DO(st, ct_mul_scalar(ctx, x[2], (double)(C + 1), &x[3]));
        CT__DO(st, ct_add_scalar(ctx, x[3], (double)(r0 * C + c0), &x[4]));
    } else {
        const int64_t zero = 0;
        CT__DO(st, ct_tensor_zeros(ctx, CT_INT64, 1, &zero, &x[4]));
    }
    ct_tensor *sc = NULL;
    CT__DO(st, ct__src_as(ctx, t, src, &sc));
    CT__DO(st, ct_index_copy(ctx, x[1], n, x[4], sc, &x[5]));
    ct_tensor_release(sc);
    int64_t psh[CT_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        psh[i] = t->shape[perm[i]];
    CT__DO(st, ct_tensor_reshape(ctx, x[5], t->ndim, psh, &x[6]));
    ct_tensor *pv = NULL;
    CT__DO(st, ct_tensor_permute(ctx, x[6], inv, &pv));
    CT__DO(st, ct_tensor_contiguous(ctx, pv, out));
    ct_tensor_release(pv);
    ct__release_all(7, x);
    return ct__ag_named(ctx, ct__error_within(ctx, "diagonal_scatter", st), out, mark,
                        "DiagonalScatterBackward0");
}

/* ---- diagflat, combinations, renorm ---- */
ct_status ct_diagflat(ct_ctx *ctx, const ct_tensor *t, int64_t offset, ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "diagflat", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *flat = NULL;
    const int64_t m1 = -1;
    st = ct_tensor_reshape(ctx, t, 1, &m1, &flat);
    CT__DO(st, ct_diag(ctx, flat, offset, out));
    ct_tensor_release(flat);
    return ct__ag_named(ctx, ct__error_within(ctx, "diagflat", st), out, mark, "DiagBackward0");
}
/* An empty result of shape (nd, shape) on src's graph (a 0-row slice of it, so a backward through
 * it gives src zero gradients, as torch's), in src's dtype. */
static ct_status ct__empty_on_graph(ct_ctx *ctx, const ct_tensor *src, int nd, const int64_t *shape,
                                    ct_tensor **out) {
    const int64_t n = ct_tensor_numel(src);
    ct_tensor *f = NULL, *z = NULL;
    ct_status st = ct_tensor_reshape(ctx, src, 1, &n, &f);
    CT__DO(st, ct_tensor_narrow(ctx, f, 0, 0, 0, &z));
    CT__DO(st, ct_tensor_reshape(ctx, z, nd, shape, out));
    ct_tensor_release(f), ct_tensor_release(z);
    return st;
}
ct_status ct_combinations(ct_ctx *ctx, const ct_tensor *t, int64_t r, bool with_replacement,
                          ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "combinations", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (t->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "combinations: expects a 1D vector, but got shape "
                             "%s",
                             CT__SHAPE_STR(t));
    if (r < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "combinations: expects a non-negative r, but got %lld", (long long)r);
    const int64_t n = t->shape[0];
    uint64_t mark = ct__ag_mark(ctx);
    if (r == 0) { /* torch: an empty 1-d tensor */
        const int64_t zero = 0;
        st = ct__empty_on_graph(ctx, t, 1, &zero, out);
        return ct__error_within(ctx, "combinations", st);
    }
    /* count: C(n, r) or C(n + r - 1, r), refused above 2^31 elements */
    int64_t top = n;
    if (with_replacement && __builtin_add_overflow(n, r - 1, &top)) top = INT64_MAX;
    int64_t m = (r > top) ? 0 : 1;
    const int64_t cap = (int64_t)1 << 31;
    for (int64_t i = 1; m > 0 && i <= r; i++) {
        /* m * (top - r + i) / i stays an integer at every step */
        __int128 v = (__int128)m * (top - r + i) / i;
        if (v * r > cap)
            return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                 "combinations: more than 2^31 elements (n = %lld, r = %lld)",
                                 (long long)n, (long long)r);
        m = (int64_t)v;
    }
    if (m == 0) { /* no tuple: (0, r), as torch */
        const int64_t sh0[2] = {0, r};
        st = ct__empty_on_graph(ctx, t, 2, sh0, out);
        return ct__error_within(ctx, "combinations", st);
    }
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(m * r));
    int64_t *cur = malloc(sizeof(int64_t) * (size_t)r);
    if (!idx || !cur) {
        free(idx);
        free(cur);
        return ct__set_error(ctx, CT_ERR_OOM, "combinations: out of memory for %lld index tuples",
                             (long long)m);
    }
    for (int64_t j = 0; j < r; j++) /* lexicographic order, as itertools */
        cur[j] = with_replacement ? 0 : j;
    for (int64_t row = 0; row < m; row++) {
        memcpy(idx + row * r, cur, sizeof(int64_t) * (size_t)r);
        int64_t j = r - 1;
        while (j >= 0 && cur[j] == (with_replacement ? n - 1 : n - r + j))
            j--;
        if (j < 0) break;
        cur[j]++;
        for (int64_t q = j + 1; q < r; q++)
            cur[q] = with_replacement ? cur[j] : cur[q - 1] + 1;
    }
    free(cur);
    ct_tensor *x[2] = {NULL};
    const int64_t mr = m * r, shape[2] = {m, r};
    st = ct_tensor_from_host(ctx, idx, CT_INT64, 1, &mr, &x[0]);
    free(idx);
    CT__DO(st, ct_index_select(ctx, t, 0, x[0], &x[1]));
    CT__DO(st, ct_tensor_reshape(ctx, x[1], 2, shape, out));
    ct__release_all(2, x);
    return ct__ag_named(ctx, ct__error_within(ctx, "combinations", st), out, mark,
                        "StackBackward0");
}
static ct_status ct__renorm(ct_ctx *ctx, const ct_tensor *t, double p, int dim, double maxnorm,
                            ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "renorm", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const bool cx = ct_dtype_is_complex(t->dtype); /* the norms of |t|, a real factor */
    if (!ct_dtype_is_floating(t->dtype) && !cx)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "renorm: expected a floating point or complex tensor as input, got %s",
                             ct_dtype_name(t->dtype));
    if (!(p > 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "renorm: non-positive norm %g not supported",
                             p);
    if (!(maxnorm >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "renorm: expected maxnorm to be >= 0 but got %g", maxnorm);
    if (t->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "renorm: input needs at least 2 dimensions, got %d dimensions",
                             t->ndim);
    int d = 0;
    if (!ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "renorm: dim %d out of range for %d dims", dim,
                             t->ndim);
    int dims[CT_MAX_DIMS], nr = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != d) dims[nr++] = i;
    /* torch: the norm in the accumulate type (float for half types), the factor
     * maxnorm / (norm + 1e-7) where norm > maxnorm (else 1) in that type, cast back, times t */
    const ct_dtype acc = cx                       ? ct_dtype_to_real(t->dtype)
                         : t->dtype == CT_FLOAT64 ? CT_FLOAT64
                                                  : CT_FLOAT32;
    ct_tensor *x[9] = {NULL};
    st = cx ? (x[0] = ct_tensor_retain((ct_tensor *)t), CT_OK) : ct_cast(ctx, t, acc, &x[0]);
    CT__DO(st, ct_linalg_vector_norm(ctx, x[0], p, nr, dims, true, &x[1]));
    CT__DO(st, ct_gt_scalar(ctx, x[1], maxnorm, &x[2]));
    CT__DO(st, ct_add_scalar(ctx, x[1], 1e-7, &x[3]));
    CT__DO(st, ct_tensor_full(ctx, acc, 0, NULL, maxnorm, &x[4]));
    CT__DO(st, ct_div(ctx, x[4], x[3], &x[5]));
    CT__DO(st, ct_tensor_full(ctx, acc, 0, NULL, 1.0, &x[6]));
    CT__DO(st, ct_where(ctx, x[2], x[5], x[6], &x[7]));
    CT__DO(st, ct_cast(ctx, x[7], cx ? acc : t->dtype, &x[8]));
    CT__DO(st, ct_mul(ctx, t, x[8], out));
    ct__release_all(9, x);
    return st;
}
ct_status ct_renorm(ct_ctx *ctx, const ct_tensor *t, double p, int dim, double maxnorm,
                    ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "renorm", ct__renorm(ctx, t, p, dim, maxnorm, out));
    return ct__ag_named(ctx, st, out, mark, "RenormBackward0");
}

/* ---- small elementwise helpers ---- */
ct_status ct_clamp_min(ct_ctx *ctx, const ct_tensor *a, double min, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    /* a NaN bound makes every element NaN (torch's clamp_min kernel; clamp with one NaN bound
     * leaves them alone) */
    ct_status st =
        ct__error_within(ctx, "clamp_min", ct_clamp(ctx, a, &min, isnan(min) ? &min : NULL, out));
    return ct__ag_named(ctx, st, out, mark, "ClampMinBackward0");
}
ct_status ct_clamp_max(ct_ctx *ctx, const ct_tensor *a, double max, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "clamp_max", ct_clamp(ctx, a, isnan(max) ? &max : NULL, &max, out));
    return ct__ag_named(ctx, st, out, mark, "ClampMaxBackward0");
}
ct_status ct_rsub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                  ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "rsub", ct_sub_scaled(ctx, b, a, alpha, out));
    return ct__ag_named(ctx, st, out, mark, "RsubBackward0");
}
ct_status ct_positive(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "positive", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "positive: the `+` operator, on a bool tensor is not supported");
    *out = ct_tensor_retain((ct_tensor *)a);
    return CT_OK;
}
ct_status ct_sgn(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype))
        return ct__cx_unary(ctx, "sgn", CT_CX_SGN, a, out); /* z / |z|, 0 at 0 */
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "sgn", ct_sign(ctx, a, out));
    return ct__ag_named(ctx, st, out, mark, "SgnBackward0");
}
/* torch.ldexp is a * pow(2.0, b) with torch's result dtype (complex a too); the power is taken in
 * the (real) result dtype
 * (torch takes it in b's float dtype, float32 for integer b, so ldexp(x_f64, 1000) is inf
 * there) */
static ct_status ct__ldexp(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "ldexp", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    /* torch's dtype: a times the tensor pow(2.0, b), whose dtype is b's, or float32 for an
     * integer b: promote(a, that) (a float16 a with an int32 b gives float32) */
    const ct_dtype bf = ct_dtype_is_floating(b->dtype) ? b->dtype : CT_FLOAT32;
    ct_dtype rdt = CT_FLOAT32;
    if ((!ct__is_compute_dtype(a->dtype) && !ct_dtype_is_complex(a->dtype)) ||
        !ct__is_compute_dtype(b->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "ldexp: unsupported dtypes %s and %s",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    { /* result_type(a, the power: bf with b's dims), so a 0-d a keeps its category's rule */
        int64_t ones[CT_MAX_DIMS];
        for (int i = 0; i < b->ndim; i++)
            ones[i] = 1;
        ct_tensor *probe = NULL, *ar = NULL;
        st = ct_tensor_empty(ctx, bf, b->ndim, ones, &probe);
        /* a complex a: the power in the real dtype (a's real part's promotion; the product
         * is complex) */
        if (st == CT_OK && ct_dtype_is_complex(a->dtype))
            st = ct_tensor_empty(ctx, ct_dtype_to_real(a->dtype), a->ndim, a->shape, &ar);
        const ct_tensor *pair[2] = {ar ? ar : a, probe};
        if (st == CT_OK) st = ct__result_type(ctx, "ldexp", 2, pair, &rdt);
        ct_tensor_release(probe), ct_tensor_release(ar);
        if (st != CT_OK) return st;
    }
    ct_tensor *x[3] = {NULL};
    st = ct_cast(ctx, b, rdt, &x[0]);
    CT__DO(st, ct_tensor_full(ctx, rdt, 0, NULL, 2.0, &x[1]));
    CT__DO(st, ct_pow_tensor(ctx, x[1], x[0], &x[2]));
    CT__DO(st, ct_mul(ctx, a, x[2], out));
    ct__release_all(3, x);
    return st;
}
ct_status ct_ldexp(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__error_within(ctx, "ldexp", ct__ldexp(ctx, a, b, out));
}
/* frexp in float64 (exact for every float dtype): e = floor(log2|x|) + 1 corrected by one step
 * either way; the mantissa is x times three exact powers of two (e reaches -1074, so 2^-e is
 * split), the only recorded ops, so its gradient is g / 2^e (torch's FrexpBackward0); 0, inf and
 * NaN give themselves and e = 0. */
static ct_status ct__frexp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **mantissa,
                           ct_tensor **exponent) {
    if (exponent) *exponent = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "frexp", 1, ins, mantissa);
    if (st != CT_OK) return st;
    *mantissa = NULL;
    if (!exponent) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "frexp: exponent is NULL");
    if (!ct_dtype_is_floating(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "frexp: only supports floating-point dtypes, got "
                             "%s",
                             ct_dtype_name(a->dtype));
    ct_tensor *a64 = NULL, *m1 = NULL, *m2 = NULL, *m3 = NULL;
    st = ct_cast(ctx, a, CT_FLOAT64, &a64); /* recorded: the mantissa's path */
    const bool prev = ct_set_grad_enabled(ctx, false);
    ct_tensor *x[24] = {NULL};
    CT__DO(st, ct_tensor_detach(ctx, a64, &x[0]));
    CT__DO(st, ct_abs(ctx, x[0], &x[1]));
    CT__DO(st, ct_log2(ctx, x[1], &x[2]));
    CT__DO(st, ct_floor(ctx, x[2], &x[3]));
    CT__DO(st, ct_add_scalar(ctx, x[3], 1.0, &x[4]));
    CT__DO(st, ct_isfinite(ctx, x[0], &x[5]));
    CT__DO(st, ct_ne_scalar(ctx, x[0], 0.0, &x[6]));
    CT__DO(st, ct_logical_and(ctx, x[5], x[6], &x[7])); /* finite, nonzero */
    CT__DO(st, ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 0.0, &x[8]));
    CT__DO(st, ct_where(ctx, x[7], x[4], x[8], &x[9])); /* e estimate */
    /* m = x * 2^h * 2^(-e - h), h = trunc(-e / 2) */
    CT__DO(st, ct_mul_scalar(ctx, x[9], -0.5, &x[10]));
    CT__DO(st, ct_trunc(ctx, x[10], &x[11]));
    CT__DO(st, ct_exp2(ctx, x[11], &x[12])); /* f1 */
    CT__DO(st, ct_neg(ctx, x[9], &x[13]));
    CT__DO(st, ct_sub(ctx, x[13], x[11], &x[14]));
    CT__DO(st, ct_exp2(ctx, x[14], &x[15])); /* f2 */
    CT__DO(st, ct_mul(ctx, x[0], x[12], &x[16]));
    CT__DO(st, ct_mul(ctx, x[16], x[15], &x[17]));
    /* one correction step: |m| >= 1 -> m / 2, e + 1; 0 < |m| < 0.5 -> m * 2, e - 1 */
    CT__DO(st, ct_abs(ctx, x[17], &x[18]));
    CT__DO(st, ct_ge_scalar(ctx, x[18], 1.0, &x[19]));
    CT__DO(st, ct_lt_scalar(ctx, x[18], 0.5, &x[20]));
    CT__DO(st, ct_logical_and(ctx, x[20], x[7], &x[21]));
    CT__DO(st, ct_logical_and(ctx, x[19], x[7], &x[22]));
    ct_tensor *y[8] = {NULL};
    CT__DO(st, ct_cast(ctx, x[22], CT_FLOAT64, &y[0]));
    CT__DO(st, ct_cast(ctx, x[21], CT_FLOAT64, &y[1]));
    CT__DO(st, ct_sub(ctx, y[0], y[1], &y[2])); /* +1, -1 or 0 */
    CT__DO(st, ct_add(ctx, x[9], y[2], &y[3]));
    CT__DO(st, ct_neg(ctx, y[2], &y[4]));
    CT__DO(st, ct_exp2(ctx, y[4], &y[5])); /* f3: 1/2, 2 or 1 */
    CT__DO(st, ct_cast(ctx, y[3], CT_INT32, exponent));
    ct_set_grad_enabled(ctx, prev);
    CT__DO(st, ct_mul(ctx, a64, x[12], &m1));
    CT__DO(st, ct_mul(ctx, m1, x[15], &m2));
    CT__DO(st, ct_mul(ctx, m2, y[5], &m3));
    CT__DO(st, ct_cast(ctx, m3, a->dtype, mantissa));
    ct__release_all(24, x);
    ct__release_all(8, y);
    ct_tensor_release(a64), ct_tensor_release(m1), ct_tensor_release(m2), ct_tensor_release(m3);
    if (st != CT_OK) {
        ct_tensor_release(*mantissa);
        ct_tensor_release(*exponent);
        *mantissa = *exponent = NULL;
    }
    return st;
}
ct_status ct_frexp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **mantissa, ct_tensor **exponent) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "frexp", ct__frexp(ctx, a, mantissa, exponent));
    return ct__ag_named(ctx, st, mantissa, mark, "FrexpBackward0");
}
static ct_status ct__isinf_signed(ct_ctx *ctx, const char *op, const ct_tensor *a, bool pos,
                                  ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct_tensor *x[2] = {NULL};
    st = ct_isinf(ctx, a, &x[0]);
    CT__DO(st, pos ? ct_gt_scalar(ctx, a, 0, &x[1]) : ct_lt_scalar(ctx, a, 0, &x[1]));
    CT__DO(st, ct_logical_and(ctx, x[0], x[1], out));
    ct__release_all(2, x);
    return ct__error_within(ctx, op, st);
}
ct_status ct_isposinf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__isinf_signed(ctx, "isposinf", a, true, out);
}
ct_status ct_isneginf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__isinf_signed(ctx, "isneginf", a, false, out);
}
ct_status ct_isreal(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "isreal", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct_dtype_is_complex(a->dtype)) { /* imag == 0 */
        ct_tensor *im = NULL;
        st = ct_imag(ctx, a, &im);
        if (st == CT_OK) st = ct_eq_scalar(ctx, im, 0.0, out);
        ct_tensor_release(im);
        return ct__error_within(ctx, "isreal", st);
    }
    return ct_tensor_full(ctx, CT_BOOL, a->ndim, a->shape, 1.0, out);
}
ct_status ct_result_type(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_dtype *out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "result_type", 2, ins, out);
    if (st != CT_OK) return st;
    return ct__cx_result_type(ctx, "result_type", 2, ins, out);
}
bool ct_can_cast(ct_dtype from, ct_dtype to) {
    /* torch: no cast to a lower category (bool < integer < floating < complex) */
    return ct__dtype_category(from) <= ct__dtype_category(to);
}

/* ---- inner, vdot, dist, chain_matmul, addbmm, pdist ---- */
ct_status ct_inner(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "inner", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim == 0 || b->ndim == 0) return ct__error_within(ctx, "inner", ct_mul(ctx, a, b, out));
    if (a->shape[a->ndim - 1] != b->shape[b->ndim - 1])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "inner: the last dims of the inputs must match, got %s and %s",
                             CT__SHAPE_STR(a), CT__SHAPE_STR(b));
    const int da = a->ndim - 1, db = b->ndim - 1;
    return ct__error_within(ctx, "inner", ct_tensordot(ctx, a, b, 1, &da, &db, out));
}
ct_status ct_vdot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "vdot", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim != 1 || b->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "vdot: 1D tensors expected, but got %dD and %dD "
                             "tensors",
                             a->ndim, b->ndim);
    uint64_t mark = ct__ag_mark(ctx);
    if (ct_dtype_is_complex(a->dtype)) { /* conj(a) . b */
        ct_tensor *ca = NULL;
        st = ct_conj(ctx, a, &ca);
        if (st == CT_OK) st = ct_dot(ctx, ca, b, out);
        ct_tensor_release(ca);
    } else {
        st = ct_dot(ctx, a, b, out);
    }
    st = ct__error_within(ctx, "vdot", st);
    return ct__ag_named(ctx, st, out, mark, "VdotBackward0");
}
ct_status ct_tensor_dist(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double p,
                         ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "dist", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct_dtype_is_floating(a->dtype) || !ct_dtype_is_floating(b->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "dist: input dtype should be floating point, got %s and %s",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *d = NULL;
    st = ct_sub(ctx, a, b, &d);
    CT__DO(st, ct_norm(ctx, d, p, 0, NULL, false, out));
    ct_tensor_release(d);
    return ct__ag_named(ctx, ct__error_within(ctx, "dist", st), out, mark, "DistBackward0");
}
ct_status ct_chain_matmul(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    if (ctx && n == 1 && ts) {
        const ct_tensor *ins[1] = {ts[0]};
        ct_status st = ct__check_args(ctx, "chain_matmul", 1, ins, out);
        if (st != CT_OK) return st;
        if (ts[0]->ndim != 2)
            return ct__set_error(ctx, CT_ERR_SHAPE, "chain_matmul: tensor 0 must be 2D, got %dD",
                                 ts[0]->ndim);
        return ct__error_within(ctx, "chain_matmul", ct_tensor_clone(ctx, ts[0], out));
    }
    return ct__error_within(ctx, "chain_matmul", ct_linalg_multi_dot(ctx, n, ts, out));
}
/* torch's CPU addbmm: result = beta * input (broadcast), then result.addmm_(b1[i], b2[i], 1,
 * alpha) batch after batch, so the rounding is one addmm per batch */
static ct_status ct__addbmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *b1,
                            const ct_tensor *b2, double beta, double alpha, ct_tensor **out) {
    const ct_tensor *ins[3] = {input, b1, b2};
    ct_status st = ct__check_args(ctx, "addbmm", 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (b1->ndim != 3 || b2->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "addbmm: batch1 and batch2 must be 3D, got %dD "
                             "and %dD",
                             b1->ndim, b2->ndim);
    if (b1->shape[0] != b2->shape[0] || b1->shape[2] != b2->shape[1])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "addbmm: batch1 %s and batch2 %s do not multiply batch by batch",
                             CT__SHAPE_STR(b1), CT__SHAPE_STR(b2));
    if (b1->dtype != b2->dtype || input->dtype != b1->dtype)
        return ct__set_error(
            ctx, CT_ERR_DTYPE, "addbmm: self and mat2 must have the same dtype, got %s, %s and %s",
            ct_dtype_name(input->dtype), ct_dtype_name(b1->dtype), ct_dtype_name(b2->dtype));
    const int64_t B = b1->shape[0], sh[2] = {b1->shape[1], b2->shape[2]};
    if (B == 0) { /* beta * input broadcast to (n, p); beta == 0: zeros */
        ct_tensor *e = NULL, *c = NULL;
        st = ct_tensor_expand(ctx, input, 2, sh, &e);
        if (beta == 0) { /* zeros that stay on input's graph (zero gradients; inf / NaN dropped) */
            ct_tensor *tr = NULL;
            CT__DO(st, ct_tensor_full(ctx, CT_BOOL, 0, NULL, 1, &tr));
            CT__DO(st, ct_masked_fill(ctx, e, tr, 0, out));
            ct_tensor_release(tr);
        } else {
            CT__DO(st, ct_tensor_contiguous(ctx, e, &c));
            CT__DO(st, ct_mul_scalar(ctx, c, beta, out));
        }
        ct_tensor_release(e);
        ct_tensor_release(c);
        return st;
    }
    ct_tensor *acc = NULL;
    for (int64_t i = 0; i < B && st == CT_OK; i++) {
        ct_tensor *m1 = NULL, *m2 = NULL, *r = NULL;
        st = ct_select(ctx, b1, 0, i, &m1);
        CT__DO(st, ct_select(ctx, b2, 0, i, &m2));
        CT__DO(st, ct_addmm(ctx, i ? acc : input, m1, m2, i ? 1.0 : beta, alpha, &r));
        ct_tensor_release(m1);
        ct_tensor_release(m2);
        ct_tensor_release(acc);
        acc = r;
    }
    if (st == CT_OK)
        *out = acc;
    else
        ct_tensor_release(acc);
    return st;
}
ct_status ct_addbmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *b1, const ct_tensor *b2,
                    double beta, double alpha, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "addbmm", ct__addbmm(ctx, input, b1, b2, beta, alpha, out));
    return ct__ag_named(ctx, st, out, mark, "AddbmmBackward0");
}
static ct_status ct__pdist(ct_ctx *ctx, const ct_tensor *x, double p, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "pdist", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "pdist: only supports 2D tensors, got: %dD",
                             x->ndim);
    if (!ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "pdist: only supports floating-point dtypes, got "
                             "%s",
                             ct_dtype_name(x->dtype));
    if (!(p >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "pdist: only supports non-negative p values, got %g", p);
    const int64_t N = x->shape[0];
    if (N > (1 << 20))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "pdist: at most 2^20 rows, got %lld",
                             (long long)N);
    if (N < 2) {
        const int64_t zero = 0;
        return ct__empty_on_graph(ctx, x, 1, &zero, out);
    }
    ct_tensor *t[7] = {NULL};
    const int one = 1;
    st = ct_tensor_triu_indices(ctx, N, N, 1, &t[0]);
    CT__DO(st, ct_select(ctx, t[0], 0, 0, &t[1]));
    CT__DO(st, ct_select(ctx, t[0], 0, 1, &t[2]));
    CT__DO(st, ct_index_select(ctx, x, 0, t[1], &t[3]));
    CT__DO(st, ct_index_select(ctx, x, 0, t[2], &t[4]));
    CT__DO(st, ct_sub(ctx, t[3], t[4], &t[5]));
    CT__DO(st, ct_norm(ctx, t[5], p, 1, &one, false, out));
    ct__release_all(7, t);
    return st;
}
ct_status ct_pdist(ct_ctx *ctx, const ct_tensor *x, double p, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "pdist", ct__pdist(ctx, x, p, out));
    return ct__ag_named(ctx, st, out, mark, "PdistBackward0");
}

/* ---- scatter_reduce / index_reduce (sum, prod, mean, amax, amin; include_self) ----
 * Forward: positions an index hits start from the reduction's identity when include_self is false;
 * sum is scatter_add, prod / amax / amin the scatter kernel's multiply / max / min (NaN wins),
 * mean the sum over a count (floor division for integers, as torch). Backward: torch 1.13's
 * formulas (scatter_reduce_backward): prod through exclusive products with zeros masked, amax /
 * amin shared evenly among the values equal to the result, hit positions of self zero without
 * include_self. */
typedef enum { CT__SR_SUM, CT__SR_PROD, CT__SR_MEAN, CT__SR_AMAX, CT__SR_AMIN } ct__sr_op;

/* The identity of the reduction in dt as a 0-d tensor (ints: the dtype's extreme, exactly). */
static ct_status ct__sr_identity(ct_ctx *ctx, ct__sr_op r, ct_dtype dt, ct_tensor **out) {
    if (r == CT__SR_SUM || r == CT__SR_MEAN) return ct_tensor_zeros(ctx, dt, 0, NULL, out);
    if (r == CT__SR_PROD) return ct_tensor_ones(ctx, dt, 0, NULL, out);
    const bool mx = r == CT__SR_AMAX;
    if (ct_dtype_is_floating(dt))
        return ct_tensor_full(ctx, dt, 0, NULL, mx ? -INFINITY : INFINITY, out);
    if (dt == CT_BOOL) return ct_tensor_full(ctx, dt, 0, NULL, mx ? 0 : 1, out);
    int64_t v = 0;
    switch (dt) {
    case CT_UINT8: v = mx ? 0 : 255; break;
    case CT_INT8: v = mx ? INT8_MIN : INT8_MAX; break;
    case CT_INT16: v = mx ? INT16_MIN : INT16_MAX; break;
    case CT_INT32: v = mx ? INT32_MIN : INT32_MAX; break;
    default: v = mx ? INT64_MIN : INT64_MAX; break;
    }
    ct_tensor *h = NULL;
    ct_status st = ct_tensor_from_host(ctx, &v, CT_INT64, 0, NULL, &h);
    CT__DO(st, ct_cast(ctx, h, dt, out));
    ct_tensor_release(h);
    return st;
}
/* bool mask of t's shape: the positions index hits along d */
static ct_status ct__sr_hit(ct_ctx *ctx, const ct_tensor *t, int d, const ct_tensor *index,
                            ct_tensor **out) {
    ct_tensor *z = NULL, *o = NULL;
    ct_status st = ct_tensor_zeros(ctx, CT_BOOL, t->ndim, t->shape, &z);
    CT__DO(st, ct_tensor_ones(ctx, CT_BOOL, index->ndim, index->shape, &o));
    CT__DO(st, ct_scatter(ctx, z, d, index, o, out));
    ct_tensor_release(z), ct_tensor_release(o);
    return st;
}
/* mean's divisor in t's dtype: 1 (include_self) + the number of values scattered to a position,
 * 1 where that is 0 */
static ct_status ct__sr_count(ct_ctx *ctx, const ct_tensor *t, int d, const ct_tensor *index,
                              bool include_self, ct_tensor **out) {
    ct_tensor *x[6] = {NULL};
    ct_status st = include_self ? ct_ones_like(ctx, t, &x[0]) : ct_zeros_like(ctx, t, &x[0]);
    CT__DO(st, ct_tensor_ones(ctx, t->dtype, index->ndim, index->shape, &x[1]));
    CT__DO(st, ct_scatter_add(ctx, x[0], d, index, x[1], &x[2]));
    CT__DO(st, ct_eq_scalar(ctx, x[2], 0, &x[3]));
    CT__DO(st, ct_tensor_ones(ctx, t->dtype, 0, NULL, &x[4]));
    CT__DO(st, ct_where(ctx, x[3], x[4], x[2], out));
    ct__release_all(6, x);
    return st;
}
/* the forward, recording nothing (grad mode off) */
static ct_status ct__sr_fwd(ct_ctx *ctx, const char *op, const ct_tensor *t, int d,
                            const ct_tensor *index, const ct_tensor *src, ct__sr_op r,
                            bool include_self, ct_tensor **out) {
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *x[6] = {NULL};
    ct_status st = CT_OK;
    if (include_self) {
        x[0] = ct_tensor_retain((ct_tensor *)t);
    } else {
        st = ct__sr_hit(ctx, t, d, index, &x[1]);
        CT__DO(st, ct__sr_identity(ctx, r, t->dtype, &x[2]));
        CT__DO(st, ct_where(ctx, x[1], x[2], t, &x[0]));
    }
    if (r == CT__SR_SUM) {
        CT__DO(st, ct_scatter_add(ctx, x[0], d, index, src, out));
    } else if (r == CT__SR_MEAN) {
        CT__DO(st, ct_scatter_add(ctx, x[0], d, index, src, &x[3]));
        CT__DO(st, ct__sr_count(ctx, t, d, index, include_self, &x[4]));
        CT__DO(st, ct_dtype_is_floating(t->dtype)
                       ? ct_div(ctx, x[3], x[4], out)
                       : ct_div_mode(ctx, x[3], x[4], CT_ROUND_FLOOR, out));
    } else {
        const int mode = r == CT__SR_PROD ? 3 : r == CT__SR_AMAX ? 4 : 5;
        CT__DO(st, ct__scatter_reduce_raw(ctx, op, x[0], d, index, src, mode, out));
    }
    ct__release_all(6, x);
    ct_set_grad_enabled(ctx, was);
    return st;
}

typedef struct {
    ct_tensor *t, *src, *index, *res; /* res: the forward's value, detached */
    int64_t t_ver, src_ver, res_ver;
    int dim;
    ct__sr_op r;
    bool include_self;
} ct__sr_user;
static void ct__sr_free(void *p) {
    ct__sr_user *u = p;
    if (!u) return;
    ct_tensor_release(u->t), ct_tensor_release(u->src), ct_tensor_release(u->index);
    ct_tensor_release(u->res);
    free(u);
}
static ct_status ct__sr_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                 ct_tensor **gin) {
    const ct__sr_user *u = user;
    const ct_tensor *t = u->t, *src = u->src, *ix = u->index, *g = gout[0];
    const int d = u->dim;
    const char *node = "ScatterReduceBackward0";
    ct_status st = ct__ag_saved_ok(ctx, t, "input", 0, node, u->t_ver);
    CT__DO(st, ct__ag_saved_ok(ctx, src, "input", 1, node, u->src_ver));
    CT__DO(st, ct__ag_saved_ok(ctx, u->res, "output", 0, node, u->res_ver));
    ct_tensor *x[24] = {NULL}, *gs = NULL, *gsrc = NULL;
    const ct_dtype dt = t->dtype;
    switch (u->r) {
    case CT__SR_SUM:
        gs = ct_tensor_retain((ct_tensor *)g);
        CT__DO(st, ct_gather(ctx, g, d, ix, &gsrc));
        break;
    case CT__SR_MEAN:
        CT__DO(st, ct__sr_count(ctx, t, d, ix, u->include_self, &x[0]));
        CT__DO(st, ct_div(ctx, g, x[0], &gs));
        CT__DO(st, ct_gather(ctx, gs, d, ix, &gsrc));
        break;
    case CT__SR_AMAX:
    case CT__SR_AMIN:
        CT__DO(st, ct_eq(ctx, t, u->res, &x[0]));
        CT__DO(st, ct_cast(ctx, x[0], dt, &x[1])); /* self is the result */
        CT__DO(st, ct_gather(ctx, u->res, d, ix, &x[2]));
        CT__DO(st, ct_eq(ctx, src, x[2], &x[3]));
        CT__DO(st, ct_cast(ctx, x[3], dt, &x[4])); /* src is the result */
        CT__DO(st, ct_zeros_like(ctx, t, &x[5]));
        CT__DO(st, ct_scatter_add(ctx, x[5], d, ix, x[4], &x[6]));
        CT__DO(st, ct_add(ctx, x[1], x[6], &x[7])); /* how many share it */
        CT__DO(st, ct_div(ctx, g, x[7], &x[8]));
        CT__DO(st, ct_mul(ctx, x[1], x[8], &gs));
        CT__DO(st, ct_gather(ctx, x[8], d, ix, &x[9]));
        CT__DO(st, ct_mul(ctx, x[4], x[9], &gsrc));
        break;
    case CT__SR_PROD:
        /* self: g * (the result with self's zeros as ones) / (self with zeros as ones) */
        CT__DO(st, ct_eq_scalar(ctx, t, 0, &x[0]));
        CT__DO(st, ct_tensor_ones(ctx, dt, 0, NULL, &x[1]));
        CT__DO(st, ct_where(ctx, x[0], x[1], t, &x[2]));
        CT__DO(st, ct__sr_fwd(ctx, "scatter_reduce", x[2], d, ix, src, CT__SR_PROD, u->include_self,
                              &x[3]));
        CT__DO(st, ct_mul(ctx, g, x[3], &x[4]));
        CT__DO(st, ct_div(ctx, x[4], x[2], &gs));
        /* src: a lone zero at its position gets the product of the others; else g res / src */
        CT__DO(st, ct_eq_scalar(ctx, src, 0, &x[5]));
        CT__DO(st, ct_cast(ctx, x[5], dt, &x[6]));
        CT__DO(st, ct_zeros_like(ctx, t, &x[7]));
        CT__DO(st, ct_scatter_add(ctx, x[7], d, ix, x[6], &x[8]));
        CT__DO(st, ct_gather(ctx, x[8], d, ix, &x[9]));
        CT__DO(st, ct_eq_scalar(ctx, x[9], 1, &x[10]));
        CT__DO(st, ct_logical_and(ctx, x[5], x[10], &x[11])); /* single zero */
        CT__DO(st, ct_where(ctx, x[11], x[1], src, &x[12]));
        CT__DO(st, ct__sr_fwd(ctx, "scatter_reduce", t, d, ix, x[12], CT__SR_PROD, u->include_self,
                              &x[13]));
        CT__DO(st, ct_mul(ctx, g, x[13], &x[14]));
        CT__DO(st, ct_gather(ctx, x[14], d, ix, &x[15]));
        CT__DO(st, ct_mul(ctx, g, u->res, &x[16]));
        CT__DO(st, ct_gather(ctx, x[16], d, ix, &x[17]));
        CT__DO(st, ct_where(ctx, x[5], x[1], src, &x[18]));
        CT__DO(st, ct_div(ctx, x[17], x[18], &x[19]));
        CT__DO(st, ct_where(ctx, x[11], x[15], x[19], &gsrc));
        break;
    }
    if (st == CT_OK && !u->include_self) { /* self's values at hit positions were not used */
        ct_tensor *hit = NULL, *z = NULL, *gz = NULL;
        st = ct__sr_hit(ctx, t, d, ix, &hit);
        CT__DO(st, ct_tensor_zeros(ctx, dt, 0, NULL, &z));
        CT__DO(st, ct_where(ctx, hit, z, gs, &gz));
        ct_tensor_release(hit), ct_tensor_release(z), ct_tensor_release(gs);
        gs = gz;
    }
    ct__release_all(24, x);
    if (st == CT_OK) {
        if (need[0]) gin[0] = ct_tensor_retain(gs);
        if (need[1]) gin[1] = ct_tensor_retain(gsrc);
    }
    ct_tensor_release(gs), ct_tensor_release(gsrc);
    return st;
}
static const ct__ag_custom CT__SR_FN = {"ScatterReduceBackward", ct__sr_backward, ct__sr_free,
                                        true};

static ct_status ct__scatter_reduce(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                                    const ct_tensor *index, const ct_tensor *src,
                                    const char *reduce, bool include_self, bool index_form,
                                    ct_tensor **out) {
    const ct_tensor *ins[3] = {t, index, src};
    ct_status st = ct__check_args(ctx, op, 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    static const char *const names[5] = {"sum", "prod", "mean", "amax", "amin"};
    int r = -1;
    for (int i = index_form ? 1 : 0; reduce && i < 5; i++)
        if (!strcmp(reduce, names[i])) r = i;
    if (r < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: reduce argument must be %s 'prod', 'mean', 'amax' or 'amin', "
                             "got '%s'",
                             op, index_form ? "one of" : "'sum',", reduce ? reduce : "(null)");
    if (src->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected self and src to have the same dtype, got %s and %s", op,
                             ct_dtype_name(t->dtype), ct_dtype_name(src->dtype));
    /* bool: sum is a logical or (scatter_add's); mean divides, which bool cannot; torch's
     * index_reduce has no bool kernel for include_self = false */
    if (t->dtype == CT_BOOL && r == CT__SR_MEAN)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: reduce '%s' is not supported for bool", op,
                             names[r]);
    if (t->dtype == CT_BOOL && index_form && !include_self)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: include_self = false is not supported for bool (as torch)", op);
    const int nd = t->ndim ? t->ndim : 1;
    int d = 0;
    if (!ct__wrap_dim(dim, nd, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             t->ndim);
    if (index->dtype != CT_INT64 && !(index_form && index->dtype == CT_INT32))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected index to be int64%s, got %s", op,
                             index_form ? " or int32" : "", ct_dtype_name(index->dtype));
    ct_tensor *x[5] = {NULL};
    const ct_tensor *ix = index, *sv = src;
    if (index_form) { /* 1-d index along d, source of t's shape with len(index) at d */
        const int64_t n = ct_tensor_numel(index);
        if (index->dtype == CT_INT32) { /* torch's index_reduce takes int32 too */
            if ((st = ct_cast(ctx, index, CT_INT64, &x[4])) != CT_OK) return st;
            index = x[4];
        }
        bool fits = index->ndim <= 1 && src->ndim == t->ndim;
        for (int i = 0; fits && i < t->ndim; i++)
            fits = src->shape[i] == (i == d ? n : t->shape[i]);
        if (!fits) ct_tensor_release(x[4]);
        if (!fits)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: index must be 1-d and source must have self's shape with "
                                 "%lld along dim %d, got index %s and source %s",
                                 op, (long long)n, d, CT__SHAPE_STR(index), CT__SHAPE_STR(src));
        int64_t sh[CT_MAX_DIMS];
        for (int i = 0; i < nd; i++)
            sh[i] = i == d ? n : 1;
        st = ct_tensor_reshape(ctx, index, t->ndim, sh, &x[0]);
        CT__DO(st, ct_tensor_expand(ctx, x[0], src->ndim, src->shape, &x[1]));
        ix = x[1];
    } else {
        if (index->ndim != t->ndim || src->ndim != t->ndim)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: self %s, index %s and src must have the same number of dims",
                                 op, CT__SHAPE_STR(t), CT__SHAPE_STR(index));
        bool bigger = false;
        for (int k = 0; k < t->ndim; k++) {
            if (index->shape[k] > src->shape[k])
                return ct__set_error(ctx, CT_ERR_SHAPE,
                                     "%s: index %s is larger than src %s at dim %d", op,
                                     CT__SHAPE_STR(index), CT__SHAPE_STR(src), k);
            bigger |= index->shape[k] < src->shape[k];
        }
        if (bigger) { /* the leading corner of src, as torch reads it */
            ct_tensor *cur = ct_tensor_retain((ct_tensor *)src);
            for (int k = 0; k < t->ndim && st == CT_OK; k++) {
                ct_tensor *nx = NULL;
                st = ct_tensor_narrow(ctx, cur, k, 0, index->shape[k], &nx);
                ct_tensor_release(cur);
                cur = nx;
            }
            x[2] = cur;
            sv = x[2];
        }
    }
    ct__sr_user *u = NULL;
    const ct_tensor *rin[2] = {t, sv};
    const bool rec = st == CT_OK && ct_dtype_is_floating(t->dtype) && ct__ag_wants(ctx, 2, rin);
    if (st == CT_OK) st = ct__sr_fwd(ctx, op, t, d, ix, sv, (ct__sr_op)r, include_self, out);
    if (rec && !(u = calloc(1, sizeof *u)))
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    if (st == CT_OK && u) {
        u->t = ct_tensor_retain((ct_tensor *)t);
        u->src = ct_tensor_retain((ct_tensor *)sv);
        u->index = ct_tensor_retain((ct_tensor *)ix);
        u->dim = d;
        u->r = (ct__sr_op)r;
        u->include_self = include_self;
        u->t_ver = t->storage->version;
        u->src_ver = sv->storage->version;
        st = ct_tensor_detach(ctx, *out, &u->res);
        if (st == CT_OK) u->res_ver = u->res->storage->version;
        if (st == CT_OK) {
            st = ct__ag_record_custom_n(ctx, &CT__SR_FN, u, 2, rin, out);
            u = NULL; /* the record owns it */
        }
    }
    ct__sr_free(u);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    ct__release_all(5, x);
    return st;
}
ct_status ct_scatter_reduce(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                            const ct_tensor *src, const char *reduce, bool include_self,
                            ct_tensor **out) {
    return ct__error_within(ctx, "scatter_reduce",
                            ct__scatter_reduce(ctx, "scatter_reduce", t, dim, index, src, reduce,
                                               include_self, false, out));
}
ct_status ct_index_reduce(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                          const ct_tensor *source, const char *reduce, bool include_self,
                          ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "index_reduce",
                                    ct__scatter_reduce(ctx, "index_reduce", t, dim, index, source,
                                                       reduce, include_self, true, out));
    return ct__ag_named(ctx, st, out, mark, "IndexReduceBackward0");
}

/* Everyday ops composed of public ops (differentiable through them; each result's node prints
 * torch's name): dot, mv, outer, trace, diagonal, diag, tile, meshgrid, diff, nansum, nanmean,
 * var_mean, std_mean, linalg cross (docs/everyday.md, "Linear algebra and reductions"). */
#include "autograd/autograd_impl.h"
#include "dtype/dtype_size.h"
#include "dispatch/dispatch.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The checks of an op with one floating input: arguments, then the dtype (torch's "not
 * implemented" for integers and bool). */
static ct_status ct__one_float(ct_ctx *ctx, const char *op, const ct_tensor *a, void *out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st == CT_OK && !ct_dtype_is_floating(a->dtype))
        st = ct__set_error(ctx, CT_ERR_DTYPE, "%s: floating input required, got %s (as torch)", op,
                           ct_dtype_name(a->dtype));
    return st;
}
/* The checks of an op with two outputs (values, indices) over a dim of one input: both outputs
 * cleared, arguments checked, dim wrapped into *d (a 0-d input takes dim 0 or -1). */
static ct_status ct__values_indices(ct_ctx *ctx, const char *op, const ct_tensor *a, int dim,
                                    ct_tensor **values, ct_tensor **indices, int *d) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!values || !indices)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: values or indices is NULL", op);
    *values = *indices = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, values);
    if (st != CT_OK) return st;
    if (!ct__wrap_dim(dim, a->ndim ? a->ndim : 1, d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             a->ndim);
    return CT_OK;
}

/* ---- dot, mv, outer ---- */
static ct_status ct__vec_check(ct_ctx *ctx, const char *op, const ct_tensor *a, const ct_tensor *b,
                               int nda, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim != nda || b->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected %dD and 1D tensors, got %dD and %dD",
                             op, nda, a->ndim, b->ndim);
    if (nda != 0 && a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected both operands to have the same dtype, but found %s and "
                             "%s (as torch)",
                             op, ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (nda != 0 && a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: not implemented for bool (as torch)", op);
    if (nda != 0 && a->shape[nda - 1] != b->shape[0])
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: sizes %lld and %lld do not match", op,
                             (long long)a->shape[nda - 1], (long long)b->shape[0]);
    return CT_OK;
}
ct_status ct_dot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    ct_status st = ct__vec_check(ctx, "dot", a, b, 1, out);
    return st != CT_OK ? st : ct__error_within(ctx, "dot", ct_matmul(ctx, a, b, out));
}
ct_status ct_mv(ct_ctx *ctx, const ct_tensor *m, const ct_tensor *v, ct_tensor **out) {
    ct_status st = ct__vec_check(ctx, "mv", m, v, 2, out);
    return st != CT_OK ? st : ct__error_within(ctx, "mv", ct_matmul(ctx, m, v, out));
}
ct_status ct_outer(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "outer", 2, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim != 1 || b->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "outer: expected 1-D arguments, got %dD and %dD",
                             a->ndim, b->ndim);
    /* torch's composite: a.reshape(-1, 1) * b (promotion, MulBackward0) */
    ct_tensor *col = NULL;
    st = ct_tensor_unsqueeze(ctx, a, 1, &col);
    if (st == CT_OK) st = ct_mul(ctx, col, b, out);
    ct_tensor_release(col);
    return ct__error_within(ctx, "outer", st);
}

/* ---- diagonal, trace, diag ---- */
static ct_status ct__diagonal(ct_ctx *ctx, const ct_tensor *a, int64_t off, int dim1, int dim2,
                              ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "diagonal", 1, ins, out);
    if (st != CT_OK) return st;
    int d1, d2;
    if (a->ndim < 2 || !ct__wrap_dim(dim1, a->ndim, &d1) || !ct__wrap_dim(dim2, a->ndim, &d2))
        return ct__set_error(ctx, a->ndim < 2 ? CT_ERR_SHAPE : CT_ERR_INDEX,
                             "diagonal: dims (%d, %d) out of range for a %d-dim tensor (at least "
                             "2 dims)",
                             dim1, dim2, a->ndim);
    if (d1 == d2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "diagonal: dimensions cannot be identical %d, %d", dim1, dim2);
    const int64_t s1 = a->shape[d1], s2 = a->shape[d2];
    int64_t len = off >= 0 ? (s2 - off < s1 ? s2 - off : s1) : (s1 + off < s2 ? s1 + off : s2);
    if (len < 0 || off <= -INT64_MAX || off >= INT64_MAX) len = 0;
    /* the two dims moved last and merged: element (i, i + off) sits at start + i (s2 + 1) */
    const int src[2] = {d1, d2}, dst[2] = {-2, -1};
    ct_tensor *m = NULL, *f = NULL;
    st = ct_movedim(ctx, a, 2, src, dst, &m);
    if (st == CT_OK) st = ct_flatten(ctx, m, -2, -1, &f);
    int64_t start = 0;
    if (len > 0 && !(off >= 0 ? (start = off, true) : ct__checked_mul(-off, s2, &start)))
        st = CT_ERR_OVERFLOW;
    if (st == CT_OK)
        st = len == 0 ? ct_tensor_slice(ctx, f, -1, 0, 0, 1, out)
                      : ct_tensor_slice(ctx, f, -1, start, start + (len - 1) * (s2 + 1) + 1, s2 + 1,
                                        out);
    ct_tensor_release(m), ct_tensor_release(f);
    return st;
}
ct_status ct_diagonal(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1, int dim2,
                      ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "diagonal", ct__diagonal(ctx, a, offset, dim1, dim2, out));
    return ct__ag_named(ctx, st, out, mark, "DiagonalBackward0");
}
static ct_status ct__trace(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "trace", 1, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "trace: expected a matrix, but got tensor with dim %d", a->ndim);
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "trace: not implemented for bool (as torch)");
    ct_tensor *d = NULL;
    st = ct__diagonal(ctx, a, 0, 0, 1, &d);
    if (st == CT_OK) st = ct_sum(ctx, d, 0, NULL, false, out);
    ct_tensor_release(d);
    return st;
}
ct_status ct_trace(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "trace", ct__trace(ctx, a, out));
    return ct__ag_named(ctx, st, out, mark, "TraceBackward0");
}
static ct_status ct__diag(ct_ctx *ctx, const ct_tensor *a, int64_t k, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "diag", 1, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim != 1 && a->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "diag: expected a 1-D or 2-D tensor, got %dD",
                             a->ndim);
    if (k <= -(INT64_C(1) << 31) || k >= (INT64_C(1) << 31))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "diag: diagonal %lld is too far out",
                             (long long)k);
    if (a->ndim == 2) { /* a copy of the k-th diagonal */
        ct_tensor *d = NULL;
        st = ct__diagonal(ctx, a, k, 0, 1, &d);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, d, out);
        if (st == CT_OK && *out == d) { /* contiguous returned the view itself: copy */
            ct_tensor_release(*out);
            *out = NULL;
            st = ct_tensor_clone(ctx, d, out);
        }
        ct_tensor_release(d);
        return st;
    }
    /* an N x N matrix, N = n + |k|, with a on diagonal k: each element followed by N zeros,
     * flattened, shifted by k (k >= 0) or |k| N (k < 0) and cut or padded to N N elements */
    const int64_t n = a->shape[0], ak = k < 0 ? -k : k, N = n + ak;
    int64_t NN, tail;
    if (!ct__checked_mul(N, N, &NN) || !ct__checked_mul(n, N + 1, &tail) || NN > (INT64_C(1) << 40))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "diag: a %lld x %lld result is too large",
                             (long long)N, (long long)N);
    const int64_t pre = k >= 0 ? k : ak * N, post = NN - tail - pre;
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL};
    const int64_t pad1[2] = {0, N}, pad2[2] = {pre, post}, sh[2] = {N, N};
    st = ct_tensor_unsqueeze(ctx, a, 1, &t[0]);
    if (st == CT_OK) st = ct_pad(ctx, t[0], 2, pad1, CT_PAD_CONSTANT, 0, &t[1]);
    if (st == CT_OK) st = ct_flatten(ctx, t[1], 0, -1, &t[2]);
    if (st == CT_OK) st = ct_pad(ctx, t[2], 2, pad2, CT_PAD_CONSTANT, 0, &t[3]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[3], 2, sh, out);
    ct__release_all(4, t);
    return st;
}
ct_status ct_diag(ct_ctx *ctx, const ct_tensor *a, int64_t diagonal, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "diag", ct__diag(ctx, a, diagonal, out));
    return ct__ag_named(ctx, st, out, mark, "DiagBackward0");
}

/* ---- tile, meshgrid ---- */
ct_status ct_tile(ct_ctx *ctx, const ct_tensor *a, int n, const int64_t *reps, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "tile", 1, ins, out);
    if (st != CT_OK) return st;
    if (n < 0 || n > CT_MAX_DIMS || (n > 0 && !reps))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "tile: %d repetition counts", n);
    /* torch.tile: fewer counts than dims are padded with leading ones, then Tensor.repeat */
    int64_t r[CT_MAX_DIMS];
    const int m = n < a->ndim ? a->ndim : n, lead = m - n;
    for (int i = 0; i < m; i++)
        r[i] = i < lead ? 1 : reps[i - lead];
    return ct__error_within(ctx, "tile", ct_repeat(ctx, a, m, r, out));
}
ct_status ct_meshgrid(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_meshgrid_indexing indexing,
                      ct_tensor **outs) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (n < 1 || n > CT_MAX_DIMS || !ts || !outs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "meshgrid: expects 1 to %d tensors and an output array, got %d",
                             CT_MAX_DIMS, n);
    if (indexing != CT_MESHGRID_IJ && indexing != CT_MESHGRID_XY)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "meshgrid: unknown indexing %d",
                             (int)indexing);
    for (int i = 0; i < n; i++)
        outs[i] = NULL;
    ct_status st = ct__check_args(ctx, "meshgrid", n, ts, outs);
    if (st != CT_OK) return st;
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim > 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "meshgrid: expected 0D or 1D tensors, tensor %d has %d dims", i,
                                 ts[i]->ndim);
        if (ts[i]->dtype != ts[0]->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "meshgrid: expects all tensors to have the same dtype (%s, %s)",
                                 ct_dtype_name(ts[0]->dtype), ct_dtype_name(ts[i]->dtype));
        sh[i] = ts[i]->ndim ? ts[i]->shape[0] : 1;
    }
    /* xy: the first two inputs swap places in the grid's dims */
    const bool xy = indexing == CT_MESHGRID_XY && n >= 2;
    int64_t grid[CT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        grid[i] = sh[xy && i < 2 ? 1 - i : i];
    for (int i = 0; i < n && st == CT_OK; i++) {
        int64_t vs[CT_MAX_DIMS];
        const int at = xy && i < 2 ? 1 - i : i;
        for (int d = 0; d < n; d++)
            vs[d] = d == at ? sh[i] : 1;
        ct_tensor *v = NULL;
        st = ct_tensor_reshape(ctx, ts[i], n, vs, &v);
        if (st == CT_OK) st = ct_tensor_expand(ctx, v, n, grid, &outs[i]);
        ct_tensor_release(v);
    }
    if (st != CT_OK) ct__release_all(n, outs);
    return ct__error_within(ctx, "meshgrid", st);
}

/* ---- diff ---- */
static ct_status ct__diff(ct_ctx *ctx, const ct_tensor *a, int n, int dim, const ct_tensor *prepend,
                          const ct_tensor *append, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "diff", 1, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "diff: expects input to be at least one-dimensional");
    int d;
    if (!ct__wrap_dim(dim, a->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "diff: dim %d out of range for %d dims", dim,
                             a->ndim);
    const ct_tensor *parts[3];
    int np = 0;
    if (prepend) parts[np++] = prepend;
    parts[np++] = a;
    if (append) parts[np++] = append;
    for (int i = 0; i < np; i++)
        if (parts[i]->ndim != a->ndim)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "diff: prepend and append must have as many dims as the input "
                                 "(%d), got %d",
                                 a->ndim, parts[i]->ndim);
    if (n <= 0) /* torch: the input itself (a copy here), prepend and append unused */
        return ct_tensor_clone(ctx, a, out);
    ct_tensor *cur = NULL;
    st = np > 1 ? ct_cat(ctx, np, parts, d, &cur) : ct_tensor_clone(ctx, a, &cur);
    for (int k = 0; k < n && st == CT_OK; k++) {
        const int64_t len = cur->shape[d];
        if (len == 0) break;
        ct_tensor *hi = NULL, *lo = NULL, *r = NULL;
        st = ct_tensor_narrow(ctx, cur, d, 1, len - 1, &hi);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, cur, d, 0, len - 1, &lo);
        if (st == CT_OK)
            st = cur->dtype == CT_BOOL ? ct_logical_xor(ctx, hi, lo, &r) : ct_sub(ctx, hi, lo, &r);
        ct_tensor_release(hi), ct_tensor_release(lo), ct_tensor_release(cur);
        cur = r;
    }
    if (st != CT_OK) {
        ct_tensor_release(cur);
        return st;
    }
    *out = cur;
    return CT_OK;
}
ct_status ct_diff(ct_ctx *ctx, const ct_tensor *a, int n, int dim, const ct_tensor *prepend,
                  const ct_tensor *append, ct_tensor **out) {
    return ct__error_within(ctx, "diff", ct__diff(ctx, a, n, dim, prepend, append, out));
}

/* ---- nansum, nanmean ---- */
/* a with its NaNs replaced by 0 (a itself, retained, for integer and bool tensors). Under
 * autograd one node whose backward is torch's nansum formula, g * !isnan(a): a NaN position gets
 * g * 0 (NaN where g is infinite, as from nanmean's all-NaN slices), not a selected 0. */
static ct_status ct__nz_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                 ct_tensor **gin) {
    return need[0] ? ct_mul(ctx, gout[0], (const ct_tensor *)user, &gin[0]) : CT_OK;
}
static void ct__nz_free(void *user) { ct_tensor_release(user); }
static const ct__ag_custom CT__NZ_FN = {"NansumBackward", ct__nz_backward, ct__nz_free, false};
static ct_status ct__nan_zeroed(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    if (!ct_dtype_is_floating(a->dtype)) {
        *out = ct_tensor_retain((ct_tensor *)a);
        return CT_OK;
    }
    const bool rec = ct__ag_wants(ctx, 1, &a);
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *m = NULL, *z = NULL, *keep = NULL;
    ct_status st = ct_isnan(ctx, a, &m);
    if (st == CT_OK) st = ct_tensor_full(ctx, a->dtype, 0, NULL, 0, &z);
    if (st == CT_OK) st = ct_where(ctx, m, z, a, out);
    if (st == CT_OK && rec) st = ct_logical_not(ctx, m, &keep);
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(m), ct_tensor_release(z);
    if (st == CT_OK && rec) {
        st = ct__ag_record_custom(ctx, &CT__NZ_FN, keep, a, out); /* takes keep */
        keep = NULL;
    }
    ct_tensor_release(keep);
    if (st != CT_OK) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}
static ct_status ct__nansum(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                            bool keepdim, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "nansum", 1, ins, out);
    if (st != CT_OK) return st;
    ct_tensor *z = NULL;
    st = ct__nan_zeroed(ctx, a, &z);
    if (st == CT_OK) st = ct_sum(ctx, z, n_dims, dims, keepdim, out);
    ct_tensor_release(z);
    return st;
}
ct_status ct_nansum(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                    ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "nansum", ct__nansum(ctx, a, n_dims, dims, keepdim, out));
    return ct__ag_named(ctx, st, out, mark, "NansumBackward0");
}
ct_status ct_nanmean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                     ct_tensor **out) {
    ct_status st = ct__one_float(ctx, "nanmean", a, out);
    if (st != CT_OK) return st;
    /* torch's composite: nansum / the number of non-NaN elements (DivBackward0) */
    ct_tensor *s = NULL, *m = NULL, *keep = NULL, *cnt = NULL;
    st = ct_nansum(ctx, a, n_dims, dims, keepdim, &s);
    if (st == CT_OK) st = ct_isnan(ctx, a, &m);
    if (st == CT_OK) st = ct_logical_not(ctx, m, &keep);
    if (st == CT_OK) st = ct_sum(ctx, keep, n_dims, dims, keepdim, &cnt);
    if (st == CT_OK) st = ct_div(ctx, s, cnt, out);
    ct_tensor_release(s), ct_tensor_release(m), ct_tensor_release(keep), ct_tensor_release(cnt);
    return ct__error_within(ctx, "nanmean", st);
}

/* ---- var_mean, std_mean: both results print torch's one node name ---- */
static ct_status ct__stat_mean(ct_ctx *ctx, const char *op, bool is_std, const ct_tensor *a,
                               int n_dims, const int *dims, double correction, bool keepdim,
                               ct_tensor **stat, ct_tensor **mean) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!stat || !mean) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *stat = *mean = NULL;
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = is_std ? ct_std(ctx, a, n_dims, dims, correction, keepdim, stat)
                          : ct_var(ctx, a, n_dims, dims, correction, keepdim, stat);
    if (st == CT_OK) st = ct_mean(ctx, a, n_dims, dims, keepdim, mean);
    if (st != CT_OK) {
        ct_tensor_release(*stat), ct_tensor_release(*mean);
        *stat = *mean = NULL;
        return ct__error_within(ctx, op, st);
    }
    const char *name = is_std ? "StdMeanBackward0" : "VarMeanBackward0";
    ct__ag_named(ctx, st, stat, mark, name);
    return ct__ag_named(ctx, st, mean, mark, name);
}
ct_status ct_var_mean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                      double correction, bool keepdim, ct_tensor **var, ct_tensor **mean) {
    return ct__stat_mean(ctx, "var_mean", false, a, n_dims, dims, correction, keepdim, var, mean);
}
ct_status ct_std_mean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                      double correction, bool keepdim, ct_tensor **std, ct_tensor **mean) {
    return ct__stat_mean(ctx, "std_mean", true, a, n_dims, dims, correction, keepdim, std, mean);
}

/* ---- linalg cross ---- */
static ct_status ct__cross(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int dim,
                           ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "cross", 2, ins, out);
    if (st != CT_OK) return st;
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "cross: expected both inputs of one dtype, got %s and %s (as torch)",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "cross: not implemented for bool (as torch)");
    if (a->ndim != b->ndim)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "cross: inputs must have the same number of dimensions, got %d and %d",
                             a->ndim, b->ndim);
    int nd;
    int64_t sh[CT_MAX_DIMS];
    if ((st = ct__broadcast_shapes(ctx, "cross", 2, ins, &nd, sh)) != CT_OK) return st;
    int d;
    if (nd == 0 || !ct__wrap_dim(dim, nd, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "cross: dim %d out of range for %d dims", dim, nd);
    const int da = d - (nd - a->ndim), db = d - (nd - b->ndim);
    if (da < 0 || db < 0 || a->shape[da] != 3 || b->shape[db] != 3)
        return ct__set_error(
            ctx, CT_ERR_SHAPE, "cross: inputs dimension %d must have length 3, got %lld and %lld",
            dim, (long long)(da < 0 ? 1 : a->shape[da]), (long long)(db < 0 ? 1 : b->shape[db]));
    /* c_i = a_j b_k - a_k b_j as torch's kernel rounds it: fma(a_j, b_k, -(a_k b_j)) in f32 / f64
     * and the integers; bf16 (and f16) round each product and the difference to the dtype */
    const bool half = a->dtype == CT_BFLOAT16 || a->dtype == CT_FLOAT16;
    ct_tensor *x[3] = {NULL, NULL, NULL}, *y[3] = {NULL, NULL, NULL}, *c[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3 && st == CT_OK; i++) {
        st = ct_tensor_narrow(ctx, a, da, i, 1, &x[i]);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, b, db, i, 1, &y[i]);
    }
    for (int i = 0; i < 3 && st == CT_OK; i++) {
        const int j = (i + 1) % 3, k = (i + 2) % 3;
        ct_tensor *p = NULL, *np = NULL;
        st = ct_mul(ctx, x[k], y[j], &p);
        if (st == CT_OK && half) st = ct_mul(ctx, x[j], y[k], &np);
        if (st == CT_OK) st = half ? ct_sub(ctx, np, p, &c[i]) : ct_neg(ctx, p, &np);
        if (st == CT_OK && !half) st = ct_addcmul(ctx, np, x[j], y[k], 1.0, &c[i]);
        ct_tensor_release(p), ct_tensor_release(np);
    }
    if (st == CT_OK) st = ct_cat(ctx, 3, (const ct_tensor *const *)c, d, out);
    ct__release_all(3, x), ct__release_all(3, y), ct__release_all(3, c);
    return st;
}
ct_status ct_cross(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int dim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "cross", ct__cross(ctx, a, b, dim, out));
    return ct__ag_named(ctx, st, out, mark, "LinalgCrossBackward0");
}

/* ---- median, nanmedian ---- */
/* Over dim: a stable ascending sort (NaN last), then the element at k per slice: median takes
 * the lower middle ((n - 1) / 2), or the first NaN when the slice has one (its value NaN, its
 * index the first NaN's); nanmedian the lower middle of the non-NaN elements (index 0 of an
 * all-NaN slice). The gradient goes to the element at the returned index (through sort and
 * gather), as torch's. Among equal values the index is that of the element at the position in a
 * stable sort (torch's quickselect returns an unspecified one: docs/fidelity.md). */
static ct_status ct__median_dim(ct_ctx *ctx, const char *op, bool ignore_nan, const ct_tensor *a,
                                int dim, bool keepdim, ct_tensor **values, ct_tensor **indices) {
    int d = 0;
    ct_status st = ct__values_indices(ctx, op, a, dim, values, indices, &d);
    if (st != CT_OK) return st;
    if (a->dtype == CT_BOOL || !ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: not implemented for %s (as torch)", op,
                             ct_dtype_name(a->dtype));
    if (a->ndim == 0) { /* the element itself, index 0 */
        ct_tensor *f = NULL, *v = NULL, *i = NULL;
        st = ct_tensor_reshape(ctx, a, 1, (const int64_t[]){1}, &f);
        if (st == CT_OK) st = ct__median_dim(ctx, op, ignore_nan, f, 0, false, &v, &i);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, v, 0, NULL, values);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, i, 0, NULL, indices);
        ct_tensor_release(f), ct_tensor_release(v), ct_tensor_release(i);
        if (st != CT_OK) ct_tensor_release(*values), ct_tensor_release(*indices);
        if (st != CT_OK) *values = *indices = NULL;
        return st;
    }
    const int64_t n = a->shape[d];
    if (n == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected reduction dim %d to have non-zero size", op, dim);
    ct_tensor *t[10] = {NULL};
    ct_tensor **sv = &t[0], **si = &t[1], **nan = &t[2], **ok = &t[3], **cnt = &t[4], **k = &t[5];
    st = ct_sort(ctx, a, d, false, true, sv, si);
    if (st == CT_OK) st = ct_isnan(ctx, a, nan);
    if (st == CT_OK) st = ct_logical_not(ctx, *nan, ok);
    if (st == CT_OK) st = ct_sum(ctx, *ok, 1, &d, true, cnt); /* int64 non-NaN count */
    if (st == CT_OK && !ignore_nan) { /* cnt < n: the first NaN, at cnt; else (n - 1) / 2 */
        st = ct_lt_scalar(ctx, *cnt, (double)n, &t[6]);
        if (st == CT_OK) st = ct_tensor_full(ctx, CT_INT64, 0, NULL, (double)((n - 1) / 2), &t[7]);
        if (st == CT_OK) st = ct_where(ctx, t[6], *cnt, t[7], k);
    } else if (st == CT_OK) { /* (cnt - 1) / 2, 0 for an all-NaN slice */
        st = ct_sub_scalar(ctx, *cnt, 1, &t[6]);
        if (st == CT_OK) st = ct_div_scalar_mode(ctx, t[6], 2, CT_ROUND_FLOOR, &t[7]);
        if (st == CT_OK) st = ct_tensor_full(ctx, CT_INT64, 0, NULL, 0, &t[8]);
        if (st == CT_OK) st = ct_gt_scalar(ctx, *cnt, 0, &t[9]);
        if (st == CT_OK) st = ct_where(ctx, t[9], t[7], t[8], k);
    }
    ct_tensor *v = NULL, *i = NULL;
    if (st == CT_OK) st = ct_gather(ctx, *sv, d, *k, &v);
    if (st == CT_OK) st = ct_gather(ctx, *si, d, *k, &i);
    if (st == CT_OK && !keepdim) {
        st = ct_tensor_squeeze(ctx, v, d, values);
        if (st == CT_OK) st = ct_tensor_squeeze(ctx, i, d, indices);
    } else if (st == CT_OK) {
        *values = ct_tensor_retain(v);
        *indices = ct_tensor_retain(i);
    }
    ct_tensor_release(v), ct_tensor_release(i);
    ct__release_all(10, t);
    if (st != CT_OK) {
        ct_tensor_release(*values), ct_tensor_release(*indices);
        *values = *indices = NULL;
    }
    return st;
}
ct_status ct_median_dim(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **values,
                        ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "median", ct__median_dim(ctx, "median", false, a, dim, keepdim, values, indices));
    return ct__ag_named(ctx, st, values, mark, "MedianBackward1");
}
ct_status ct_nanmedian_dim(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim,
                           ct_tensor **values, ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(
        ctx, "nanmedian", ct__median_dim(ctx, "nanmedian", true, a, dim, keepdim, values, indices));
    return ct__ag_named(ctx, st, values, mark, "NanmedianBackward1");
}

/* Over every element: a 0-d result whose gradient is spread evenly over the elements equal to it
 * (NaN counting as equal to a NaN result), torch's evenly_distribute_backward. */
typedef struct {
    ct_tensor *x, *m;
    int64_t ver, mver;
    bool ignore_nan;
} ct__median_user;
static void ct__median_free(void *user) {
    ct__median_user *u = user;
    if (!u) return;
    ct_tensor_release(u->x), ct_tensor_release(u->m);
    free(u);
}
static ct_status ct__median_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                     const bool *need, ct_tensor **gin) {
    ct__median_user *u = user;
    if (!need[0]) return CT_OK;
    const char *node = u->ignore_nan ? "NanmedianBackward0" : "MedianBackward0";
    ct_status st = ct__ag_saved_ok(ctx, u->x, "input", 0, node, u->ver);
    if (st == CT_OK) st = ct__ag_saved_ok(ctx, u->m, "output", 0, node, u->mver);
    ct_tensor *t[8] = {NULL};
    if (st == CT_OK) st = ct_eq(ctx, u->x, u->m, &t[0]);
    if (st == CT_OK) st = ct_isnan(ctx, u->x, &t[1]);
    if (st == CT_OK) st = ct_isnan(ctx, u->m, &t[2]);
    if (st == CT_OK) st = ct_logical_and(ctx, t[1], t[2], &t[3]);
    if (st == CT_OK) st = ct_logical_or(ctx, t[0], t[3], &t[4]);
    if (st == CT_OK) st = ct_sum(ctx, t[4], 0, NULL, false, &t[5]);
    if (st == CT_OK) st = ct_div(ctx, gout[0], t[5], &t[6]);
    if (st == CT_OK) st = ct_tensor_full(ctx, ct_tensor_dtype(t[6]), 0, NULL, 0, &t[7]);
    if (st == CT_OK) st = ct_where(ctx, t[4], t[6], t[7], &gin[0]);
    ct__release_all(8, t);
    return st;
}
static const ct__ag_custom CT__MEDIAN_FN = {"MedianBackward", ct__median_backward, ct__median_free,
                                            true};
static const ct__ag_custom CT__NANMEDIAN_FN = {"NanmedianBackward", ct__median_backward,
                                               ct__median_free, true};
static ct_status ct__median_all(ct_ctx *ctx, const char *op, bool ignore_nan, const ct_tensor *a,
                                ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    if (a->dtype == CT_BOOL || !ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: not implemented for %s (as torch)", op,
                             ct_dtype_name(a->dtype));
    const bool rec = ct__ag_wants(ctx, 1, &a);
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_tensor *f = NULL, *v = NULL, *i = NULL;
    if (ct_tensor_numel(a) == 0) { /* torch: NaN converted to the dtype (int64: INT64_MIN) */
        ct_tensor *nan = NULL;
        st = ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, NAN, &nan);
        if (st == CT_OK) st = ct_cast(ctx, nan, a->dtype, out);
        ct_tensor_release(nan);
    } else {
        st = ct_tensor_reshape(ctx, a, 1, (const int64_t[]){-1}, &f);
        if (st == CT_OK) st = ct__median_dim(ctx, op, ignore_nan, f, 0, false, &v, &i);
        if (st == CT_OK) *out = ct_tensor_retain(v);
    }
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(f), ct_tensor_release(v), ct_tensor_release(i);
    if (st == CT_OK && rec) {
        ct__median_user *u = calloc(1, sizeof *u);
        if (!u) {
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        } else {
            u->x = ct_tensor_retain((ct_tensor *)a);
            /* a detached alias of the result: the result's node must not own the result */
            st = ct_tensor_detach(ctx, *out, &u->m);
            if (st == CT_OK) u->mver = u->m->storage->version;
            u->ver = a->storage->version;
            u->ignore_nan = ignore_nan;
            if (st == CT_OK)
                st = ct__ag_record_custom(ctx, ignore_nan ? &CT__NANMEDIAN_FN : &CT__MEDIAN_FN, u,
                                          a, out);
            else
                ct__median_free(u);
        }
    }
    if (st != CT_OK && *out) {
        ct_tensor_release(*out);
        *out = NULL;
    }
    return st;
}
ct_status ct_median(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "median", ct__median_all(ctx, "median", false, a, out));
}
ct_status ct_nanmedian(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "nanmedian", ct__median_all(ctx, "nanmedian", true, a, out));
}

/* ---- cummax, cummin, logcumsumexp: inclusive scans in ceil(log2 n) steps (each element
 * combined with the one 2^k before it; the first 2^k keep theirs), so they are made of where /
 * logaddexp and differentiable through them ---- */
/* t shifted by s along d: s copies of the 0-d `fill` first, then t's first n - s elements */
static ct_status ct__shifted(ct_ctx *ctx, const ct_tensor *t, int d, int64_t s,
                             const ct_tensor *fill, ct_tensor **out) {
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++)
        sh[i] = i == d ? s : t->shape[i];
    ct_tensor *pad = NULL, *head = NULL;
    ct_status st = ct_tensor_expand(ctx, fill, t->ndim, sh, &pad);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t, d, 0, t->shape[d] - s, &head);
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *const[]){pad, head}, d, out);
    ct_tensor_release(pad), ct_tensor_release(head);
    return st;
}
static ct_status ct__cumext(ct_ctx *ctx, const char *op, bool is_max, const ct_tensor *a, int dim,
                            ct_tensor **values, ct_tensor **indices) {
    int d = 0;
    ct_status st = ct__values_indices(ctx, op, a, dim, values, indices, &d);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is not supported", op,
                             ct_dtype_name(a->dtype));
    if (a->ndim == 0) {
        st = ct_tensor_clone(ctx, a, values);
        if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_INT64, 0, NULL, indices);
        if (st != CT_OK) {
            ct_tensor_release(*values);
            *values = *indices = NULL;
        }
        return st;
    }
    const int64_t n = a->shape[d];
    /* positions along d, broadcast over the rest */
    int64_t ish[CT_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++)
        ish[i] = i == d ? n : 1;
    ct_tensor *v = NULL, *idx = NULL, *ar = NULL, *ar2 = NULL, *fv = NULL, *fi = NULL;
    st = ct_tensor_arange(ctx, CT_INT64, 0, (double)n, 1, &ar);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, ar, a->ndim, ish, &ar2);
    if (st == CT_OK) st = ct_tensor_expand(ctx, ar2, a->ndim, a->shape, &idx);
    if (st == CT_OK) st = ct_tensor_zeros(ctx, a->dtype, 0, NULL, &fv);
    if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_INT64, 0, NULL, &fi);
    if (st == CT_OK) v = ct_tensor_retain((ct_tensor *)a);
    for (int64_t s = 1; s < n && st == CT_OK; s *= 2) {
        /* the later element wins where it has no element s before it, is NaN, or the earlier
         * is not NaN and it is >= (<=) */
        ct_tensor *t[10] = {NULL}, *nv = NULL, *ni = NULL;
        st = ct__shifted(ctx, v, d, s, fv, &t[0]);
        if (st == CT_OK) st = ct__shifted(ctx, idx, d, s, fi, &t[1]);
        if (st == CT_OK) st = (is_max ? ct_ge : ct_le)(ctx, v, t[0], &t[2]);
        if (st == CT_OK) st = ct_isnan(ctx, t[0], &t[3]);
        if (st == CT_OK) st = ct_logical_not(ctx, t[3], &t[4]);
        if (st == CT_OK) st = ct_logical_and(ctx, t[4], t[2], &t[5]);
        if (st == CT_OK) st = ct_isnan(ctx, v, &t[6]);
        if (st == CT_OK) st = ct_logical_or(ctx, t[6], t[5], &t[7]);
        if (st == CT_OK) st = ct_lt_scalar(ctx, ar2, (double)s, &t[8]); /* no element before */
        if (st == CT_OK) st = ct_logical_or(ctx, t[7], t[8], &t[9]);
        if (st == CT_OK) st = ct_where(ctx, t[9], v, t[0], &nv);
        if (st == CT_OK) st = ct_where(ctx, t[9], idx, t[1], &ni);
        ct__release_all(10, t);
        ct_tensor_release(v), ct_tensor_release(idx);
        v = nv, idx = ni;
    }
    ct_tensor_release(ar), ct_tensor_release(ar2), ct_tensor_release(fv), ct_tensor_release(fi);
    if (st == CT_OK && v == a) { /* nothing combined: a copy, as torch */
        ct_tensor_release(v);
        v = NULL;
        st = ct_tensor_clone(ctx, a, &v);
    }
    if (st == CT_OK && !ct_tensor_is_contiguous(idx)) { /* the expanded positions: a copy */
        ct_tensor *c = NULL;
        st = ct_tensor_contiguous(ctx, idx, &c);
        ct_tensor_release(idx);
        idx = c;
    }
    if (st != CT_OK) {
        ct_tensor_release(v), ct_tensor_release(idx);
        return st;
    }
    *values = v;
    *indices = idx;
    return CT_OK;
}
ct_status ct_cummax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **values,
                    ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "cummax", ct__cumext(ctx, "cummax", true, a, dim, values, indices));
    return ct__ag_named(ctx, st, values, mark, "CummaxBackward0");
}
ct_status ct_cummin(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **values,
                    ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "cummin", ct__cumext(ctx, "cummin", false, a, dim, values, indices));
    return ct__ag_named(ctx, st, values, mark, "CumminBackward0");
}
static ct_status ct__logcumsumexp(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    ct_status st = ct__one_float(ctx, "logcumsumexp", a, out);
    if (st != CT_OK) return st;
    int d;
    if (!ct__wrap_dim(dim, a->ndim ? a->ndim : 1, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "logcumsumexp: dim %d out of range for %d dims",
                             dim, a->ndim);
    const int64_t n = a->ndim ? a->shape[d] : 1;
    /* float32 and the halves scan in float64 and round once at the end */
    const ct_dtype wdt = CT_FLOAT64;
    ct_tensor *y = NULL;
    st = a->dtype == wdt ? (y = ct_tensor_retain((ct_tensor *)a), CT_OK) : ct_cast(ctx, a, wdt, &y);
    /* the first s elements keep their values; the rest combine with the one s before (no -inf
     * padding: logaddexp(-inf, y)'s second derivative would be NaN) */
    for (int64_t s = 1; s < n && st == CT_OK && a->ndim > 0; s *= 2) {
        ct_tensor *head = NULL, *lo = NULL, *hi = NULL, *lse = NULL, *ny = NULL;
        st = ct_tensor_narrow(ctx, y, d, 0, s, &head);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, y, d, 0, n - s, &lo);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, y, d, s, n - s, &hi);
        if (st == CT_OK) st = ct_logaddexp(ctx, lo, hi, &lse);
        if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *const[]){head, lse}, d, &ny);
        ct_tensor_release(head), ct_tensor_release(lo), ct_tensor_release(hi);
        ct_tensor_release(lse), ct_tensor_release(y);
        y = ny;
    }
    if (st == CT_OK && y == a) {
        ct_tensor_release(y);
        y = NULL;
        st = ct_tensor_clone(ctx, a, &y);
    } else if (st == CT_OK && a->dtype != wdt) {
        ct_tensor *c = NULL;
        st = ct_cast(ctx, y, a->dtype, &c);
        ct_tensor_release(y);
        y = c;
    }
    if (st != CT_OK) {
        ct_tensor_release(y);
        return st;
    }
    *out = y;
    return CT_OK;
}
ct_status ct_logcumsumexp(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "logcumsumexp", ct__logcumsumexp(ctx, a, dim, out));
    return ct__ag_named(ctx, st, out, mark, "LogcumsumexpBackward0");
}

/* ---- rot90, kron, repeat_interleave ---- */
static ct_status ct__rot90(ct_ctx *ctx, const ct_tensor *a, int64_t k, int dim0, int dim1,
                           ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "rot90", 1, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "rot90: expected total dims >= 2, but got total dims = %d", a->ndim);
    int d0, d1;
    if (!ct__wrap_dim(dim0, a->ndim, &d0) || !ct__wrap_dim(dim1, a->ndim, &d1))
        return ct__set_error(ctx, CT_ERR_INDEX, "rot90: dims (%d, %d) out of range for %d dims",
                             dim0, dim1, a->ndim);
    if (d0 == d1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "rot90: expected rotation dims to be different, got %d and %d", dim0,
                             dim1);
    /* torch's: k mod 4 quarter turns from dim0 towards dim1 */
    const int64_t q = ((k % 4) + 4) % 4;
    if (q == 0) return ct_tensor_clone(ctx, a, out);
    const int both[2] = {d0, d1};
    if (q == 2) return ct_flip(ctx, a, 2, both, out);
    ct_tensor *f = NULL;
    st = ct_flip(ctx, a, 1, q == 1 ? &d1 : &d0, &f);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, f, d0, d1, out);
    ct_tensor_release(f);
    return st;
}
ct_status ct_rot90(ct_ctx *ctx, const ct_tensor *a, int64_t k, int dim0, int dim1,
                   ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "rot90", ct__rot90(ctx, a, k, dim0, dim1, out));
    return ct__ag_named(ctx, st, out, mark, "Rot90Backward0");
}
static ct_status ct__kron(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "kron", 2, ins, out);
    if (st != CT_OK) return st;
    const int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (2 * nd > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "kron: operands of %d dims (at most %d)", nd,
                             CT_MAX_DIMS / 2);
    /* a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then each pair merged */
    int64_t sa[CT_MAX_DIMS], sb[CT_MAX_DIMS], so[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        const int ia = i - (nd - a->ndim), ib = i - (nd - b->ndim);
        const int64_t x = ia >= 0 ? a->shape[ia] : 1, y = ib >= 0 ? b->shape[ib] : 1;
        sa[2 * i] = x, sa[2 * i + 1] = 1;
        sb[2 * i] = 1, sb[2 * i + 1] = y;
        if (!ct__checked_mul(x, y, &so[i]))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "kron: size %lld * %lld overflows",
                                 (long long)x, (long long)y);
    }
    ct_tensor *x = NULL, *y = NULL, *p = NULL;
    st = ct_tensor_reshape(ctx, a, 2 * nd, sa, &x);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, b, 2 * nd, sb, &y);
    if (st == CT_OK) st = ct_mul(ctx, x, y, &p);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, p, nd, so, out);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(p);
    return st;
}
ct_status ct_kron(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "kron", ct__kron(ctx, a, b, out));
    return ct__ag_named(ctx, st, out, mark, "UnsafeViewBackward0");
}
static ct_status ct__repeat_interleave(ct_ctx *ctx, const ct_tensor *a, int64_t repeats, int dim,
                                       ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "repeat_interleave", 1, ins, out);
    if (st != CT_OK) return st;
    ct_tensor *src = NULL;
    int d = 0;
    if (dim == CT_ALL_DIMS) { /* torch's dim=None: the flattened input */
        st = ct_tensor_reshape(ctx, a, 1, (const int64_t[]){-1}, &src);
    } else if (!ct__wrap_dim(dim, a->ndim ? a->ndim : 1, &d)) {
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "repeat_interleave: dim %d out of range for %d dims", dim, a->ndim);
    } else {
        st = a->ndim ? (src = ct_tensor_retain((ct_tensor *)a), CT_OK)
                     : ct_tensor_reshape(ctx, a, 1, (const int64_t[]){1}, &src);
    }
    if (st != CT_OK) return st;
    const int64_t n = src->shape[d];
    if (repeats < 0 && n > 0) { /* torch checks the repeats of existing elements only */
        ct_tensor_release(src);
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "repeat_interleave: repeats can not be negative, got %lld",
                             (long long)repeats);
    }
    if (n == 0) repeats = 0;
    int64_t m = 0;
    if (!ct__checked_mul(n, repeats, &m) || m > (INT64_C(1) << 40)) {
        ct_tensor_release(src);
        return ct__set_error(ctx, CT_ERR_OVERFLOW,
                             "repeat_interleave: %lld elements repeated %lld times is too many",
                             (long long)n, (long long)repeats);
    }
    /* index_select with 0 0 .. 1 1 .. (each position `repeats` times): only shapes are read */
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(m ? m : 1));
    if (!idx) {
        ct_tensor_release(src);
        return ct__set_error(ctx, CT_ERR_OOM, "repeat_interleave: out of memory for %lld indices",
                             (long long)m);
    }
    for (int64_t i = 0; i < m; i++)
        idx[i] = i / repeats;
    ct_tensor *it = NULL;
    st = ct_tensor_from_host(ctx, idx, CT_INT64, 1, &m, &it);
    free(idx);
    if (st == CT_OK) st = ct_index_select(ctx, src, d, it, out);
    ct_tensor_release(it), ct_tensor_release(src);
    return st;
}
ct_status ct_repeat_interleave(ct_ctx *ctx, const ct_tensor *a, int64_t repeats, int dim,
                               ct_tensor **out) {
    return ct__error_within(ctx, "repeat_interleave",
                            ct__repeat_interleave(ctx, a, repeats, dim, out));
}

/* ---- searchsorted, bucketize ---- */
/* torch's binary search run on whole tensors, one step per iteration for every value at once:
 * start / end per value, mid = start + (end - start) / 2, then start = mid + 1 where
 * !(seq[mid] >= v) (left; > for right) else end = mid, while start < end. The same comparisons as
 * torch's loop, so unsorted sequences and NaNs give torch's answers too. seq2 is (B, N), v2 is
 * (B, M); the result (B, M) int64. */
static ct_status ct__bsearch(ct_ctx *ctx, const ct_tensor *seq2, const ct_tensor *v2, bool right,
                             ct_tensor **out) {
    const int64_t N = seq2->shape[1];
    ct_tensor *start = NULL, *end = NULL;
    ct_status st = ct_tensor_zeros(ctx, CT_INT64, 2, v2->shape, &start);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_INT64, 2, v2->shape, (double)N, &end);
    for (int64_t span = N; span > 0 && st == CT_OK; span >>= 1) {
        ct_tensor *t[12] = {NULL};
        st = ct_lt(ctx, start, end, &t[0]); /* still searching */
        if (st == CT_OK) st = ct_sub(ctx, end, start, &t[1]);
        if (st == CT_OK) st = ct_div_scalar_mode(ctx, t[1], 2, CT_ROUND_FLOOR, &t[2]);
        if (st == CT_OK) st = ct_add(ctx, start, t[2], &t[3]); /* mid */
        const double hi = (double)(N > 0 ? N - 1 : 0), lo = 0;
        if (st == CT_OK) st = ct_clamp(ctx, t[3], &lo, &hi, &t[4]); /* finished ones: in range */
        if (st == CT_OK) st = ct_gather(ctx, seq2, 1, t[4], &t[5]);
        if (st == CT_OK) st = (right ? ct_gt : ct_ge)(ctx, t[5], v2, &t[6]);
        if (st == CT_OK) st = ct_logical_not(ctx, t[6], &t[7]);
        if (st == CT_OK) st = ct_logical_and(ctx, t[0], t[7], &t[8]); /* go right */
        if (st == CT_OK) st = ct_logical_and(ctx, t[0], t[6], &t[9]); /* go left */
        if (st == CT_OK) st = ct_add_scalar(ctx, t[3], 1, &t[10]);
        ct_tensor *ns = NULL, *ne = NULL;
        if (st == CT_OK) st = ct_where(ctx, t[8], t[10], start, &ns);
        if (st == CT_OK) st = ct_where(ctx, t[9], t[3], end, &ne);
        ct__release_all(12, t);
        if (st == CT_OK) {
            ct_tensor_release(start), ct_tensor_release(end);
            start = ns, end = ne;
        } else {
            ct_tensor_release(ns), ct_tensor_release(ne);
        }
    }
    ct_tensor_release(end);
    if (st != CT_OK) {
        ct_tensor_release(start);
        return st;
    }
    *out = start;
    return CT_OK;
}
static ct_status ct__searchsorted(ct_ctx *ctx, const char *op, const ct_tensor *seq,
                                  const ct_tensor *v, bool out_int32, bool right, ct_tensor **out) {
    const ct_tensor *ins[2] = {seq, v};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, op, 2, ins, &dt)) != CT_OK) return st;
    if (dt == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: not implemented for bool (as torch)", op);
    if (seq->ndim == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: boundaries tensor should have positive dimension", op);
    /* a 1-D sequence serves every value; else the leading dims must match the values' */
    int64_t B = 1, M = 1;
    if (seq->ndim > 1) {
        bool ok = v->ndim == seq->ndim;
        for (int i = 0; ok && i < seq->ndim - 1; i++)
            ok = v->shape[i] == seq->shape[i];
        if (!ok)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: the boundaries' leading dims must match the input's (all "
                                 "but the last)",
                                 op);
        for (int i = 0; i < seq->ndim - 1; i++)
            B *= seq->shape[i];
        M = v->ndim ? v->shape[v->ndim - 1] : 1;
    } else {
        M = ct_tensor_numel(v);
    }
    const int64_t N = seq->shape[seq->ndim - 1];
    ct_tensor *s2 = NULL, *v2 = NULL, *r = NULL, *ri = NULL;
    const bool was = ct_set_grad_enabled(ctx, false); /* an index result: nothing to record */
    /* both in torch.result_type of the originals (a 0-d value promotes as a 0-d tensor: int64
     * into an int8 sequence is int8, as torch) before the reshapes change their ranks */
    ct_tensor *sc = NULL, *vc = NULL;
    st = ct_cast(ctx, seq, dt, &sc);
    if (st == CT_OK) st = ct_cast(ctx, v, dt, &vc);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, sc, 2, (const int64_t[]){B, N}, &s2);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, vc, 2, (const int64_t[]){B, M}, &v2);
    ct_tensor_release(sc), ct_tensor_release(vc);
    if (st == CT_OK) st = ct__bsearch(ctx, s2, v2, right, &r);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, r, v->ndim, v->shape, &ri);
    if (st == CT_OK)
        st = out_int32 ? ct_cast(ctx, ri, CT_INT32, out) : ct_tensor_clone(ctx, ri, out);
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(s2), ct_tensor_release(v2), ct_tensor_release(r), ct_tensor_release(ri);
    return st;
}
ct_status ct_searchsorted(ct_ctx *ctx, const ct_tensor *sorted_sequence, const ct_tensor *values,
                          bool out_int32, bool right, ct_tensor **out) {
    return ct__error_within(
        ctx, "searchsorted",
        ct__searchsorted(ctx, "searchsorted", sorted_sequence, values, out_int32, right, out));
}
ct_status ct_bucketize(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *boundaries,
                       bool out_int32, bool right, ct_tensor **out) {
    if (ctx && boundaries && boundaries->ndim != 1) {
        if (out) *out = NULL;
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "bucketize: boundaries tensor must be 1 dimension, but got dim(%d)",
                             boundaries->ndim);
    }
    return ct__error_within(
        ctx, "bucketize",
        ct__searchsorted(ctx, "bucketize", boundaries, input, out_int32, right, out));
}

/* ---- isin, aminmax, bincount ---- */
static ct_status ct__isin(ct_ctx *ctx, const ct_tensor *e, const ct_tensor *t, bool invert,
                          ct_tensor **out) {
    const ct_tensor *ins[2] = {e, t};
    ct_status st = ct__check_args(ctx, "isin", 2, ins, out);
    if (st != CT_OK) return st;
    /* every element against every test element (promoted as torch.eq), any over the tests */
    ct_tensor *ec = NULL, *tc = NULL, *eq = NULL, *any = NULL;
    st = ct_tensor_reshape(ctx, e, 2, (const int64_t[]){-1, 1}, &ec);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t, 2, (const int64_t[]){1, -1}, &tc);
    if (st == CT_OK) st = ct_eq(ctx, ec, tc, &eq);
    if (st == CT_OK) st = ct_any(ctx, eq, 1, (const int[]){1}, false, &any);
    ct_tensor *r = NULL;
    if (st == CT_OK && invert) st = ct_logical_not(ctx, any, &r);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, invert ? r : any, e->ndim, e->shape, out);
    ct_tensor_release(ec), ct_tensor_release(tc), ct_tensor_release(eq), ct_tensor_release(any);
    ct_tensor_release(r);
    return st;
}
ct_status ct_isin(ct_ctx *ctx, const ct_tensor *elements, const ct_tensor *test_elements,
                  bool invert, ct_tensor **out) {
    return ct__error_within(ctx, "isin", ct__isin(ctx, elements, test_elements, invert, out));
}

/* aminmax: torch 1.13 has no derivative for it, so its results hang on a node that refuses
 * backward (printed NotImplemented) */
static ct_status ct__aminmax_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                      const bool *need, ct_tensor **gin) {
    (void)user, (void)gout, (void)need, (void)gin;
    return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                         "the derivative for 'aminmax' is not implemented (as torch)");
}
static const ct__ag_custom CT__AMINMAX_FN = {"NotImplemented", ct__aminmax_backward, NULL, false};
ct_status ct_aminmax(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                     ct_tensor **min, ct_tensor **max) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!min || !max) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "aminmax: out is NULL");
    *min = *max = NULL;
    if (n_dims > 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "aminmax: one dim or all (n_dims 0), got %d dims", n_dims);
    const bool rec = a && ct__ag_wants(ctx, 1, &a);
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = ct_amin(ctx, a, n_dims, dims, keepdim, min);
    if (st == CT_OK) st = ct_amax(ctx, a, n_dims, dims, keepdim, max);
    ct_set_grad_enabled(ctx, was);
    for (int k = 0; k < 2 && st == CT_OK && rec; k++) {
        ct_tensor **o = k ? max : min;
        st = ct__ag_record_custom(ctx, &CT__AMINMAX_FN, NULL, a, o);
        if (st == CT_OK) ct__ag_named(ctx, st, o, 0, "NotImplemented");
    }
    if (st != CT_OK) {
        ct_tensor_release(*min), ct_tensor_release(*max);
        *min = *max = NULL;
    }
    return ct__error_within(ctx, "aminmax", st);
}

static ct_status ct__bincount(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                              int64_t minlength, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "bincount", 1, ins, out);
    if (st != CT_OK) return st;
    if (w && (st = ct__check_tensor(ctx, "bincount", "weights", w)) != CT_OK) return st;
    if (x->ndim != 1 || ct_dtype_is_floating(x->dtype) || x->dtype == CT_BOOL ||
        !ct__is_compute_dtype(x->dtype))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "bincount: only supports 1-d non-negative integral inputs (got a "
                             "%dD %s tensor)",
                             x->ndim, ct_dtype_name(x->dtype));
    if (w && (w->ndim != 1 || w->shape[0] != x->shape[0]))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "bincount: weights should be 1-d and have the same length as input");
    if (minlength < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "bincount: minlength should be >= 0");
    /* the bins: max(x) + 1, read on the host (so eager only, as the result's size depends on it) */
    int64_t n = minlength;
    ct_tensor *mn = NULL, *mx = NULL, *x64 = NULL, *src = NULL, *z = NULL;
    if (x->shape[0] > 0) {
        double lo = 0, hi = 0;
        st = ct_amin(ctx, x, 0, NULL, false, &mn);
        if (st == CT_OK) st = ct_amax(ctx, x, 0, NULL, false, &mx);
        if (st == CT_OK) st = ct_tensor_item(mn, &lo);
        if (st == CT_OK) st = ct_tensor_item(mx, &hi);
        if (st == CT_OK && lo < 0)
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "bincount: only supports 1-d non-negative integral inputs (found "
                               "%.0f)",
                               lo);
        if (st == CT_OK && hi >= (double)(INT64_C(1) << 40))
            st = ct__set_error(ctx, CT_ERR_OVERFLOW, "bincount: %.0f bins are too many", hi + 1);
        if (st == CT_OK && (int64_t)hi + 1 > n) n = (int64_t)hi + 1;
    }
    /* torch: float32 weights sum in float32, any other weights in float64; an empty input gives
     * int64 zeros whatever the weights */
    const ct_dtype odt = !w || x->shape[0] == 0   ? CT_INT64
                         : w->dtype == CT_FLOAT32 ? CT_FLOAT32
                                                  : CT_FLOAT64;
    ct_tensor *wc = NULL;
    if (st == CT_OK && w) st = ct_cast(ctx, w, odt, &wc);
    const bool use_w = w && x->shape[0] > 0;
    if (st == CT_OK) st = ct_tensor_zeros(ctx, odt, 1, &n, &z);
    if (st == CT_OK) st = ct_cast(ctx, x, CT_INT64, &x64);
    if (st == CT_OK && !use_w) st = ct_tensor_ones(ctx, CT_INT64, 1, x->shape, &src);
    if (st == CT_OK) st = ct_scatter_add(ctx, z, 0, x64, use_w ? wc : src, out);
    ct_tensor_release(wc);
    ct_tensor_release(mn), ct_tensor_release(mx), ct_tensor_release(x64);
    ct_tensor_release(src), ct_tensor_release(z);
    return st;
}
ct_status ct_bincount(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weights, int64_t minlength,
                      ct_tensor **out) {
    return ct__error_within(ctx, "bincount", ct__bincount(ctx, x, weights, minlength, out));
}

/* ---- random helpers on ct_tensor_rand's generator (Philox4x32-10: reproducible from seed and
 * offset on every thread count; not torch's generator, so the values differ from torch's) ---- */
ct_status ct_tensor_randint(ct_ctx *ctx, ct_dtype dtype, int64_t low, int64_t high, int ndim,
                            const int64_t *shape, uint64_t seed, uint64_t offset, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "randint: out is NULL");
    *out = NULL;
    if (!(low < high))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "randint: expects low < high, got [%lld, %lld)", (long long)low,
                             (long long)high);
    const double range = (double)high - (double)low;
    if (range > 9007199254740992.0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "randint: a range of more than 2^53 values is not supported");
    if (dtype == CT_BOOL || !ct__is_compute_dtype(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "randint: dtype %s is not supported",
                             ct_dtype_name(dtype));
    if (!ct_dtype_is_floating(dtype)) { /* both bounds within the dtype (high exclusive) */
        double lo_ok = 0, hi_ok = 0;
        switch (dtype) {
        case CT_UINT8: lo_ok = 0, hi_ok = 256; break;
        case CT_INT8: lo_ok = -128, hi_ok = 128; break;
        case CT_INT16: lo_ok = -32768, hi_ok = 32768; break;
        case CT_INT32: lo_ok = -2147483648.0, hi_ok = 2147483648.0; break;
        default: lo_ok = -9223372036854775808.0, hi_ok = 9223372036854775808.0; break;
        }
        if ((double)low < lo_ok || (double)high > hi_ok)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "randint: [%lld, %lld) does not fit in %s", (long long)low,
                                 (long long)high, ct_dtype_name(dtype));
    }
    /* floor(u * range) + low for u uniform in [0, 1), kept below high where u * range rounds up */
    ct_tensor *t[4] = {NULL};
    const double hi1 = range - 1;
    ct_status st = ct_tensor_rand(ctx, CT_FLOAT64, ndim, shape, seed, offset, &t[0]);
    if (st == CT_OK) st = ct_mul_scalar(ctx, t[0], range, &t[1]);
    if (st == CT_OK) st = ct_floor(ctx, t[1], &t[2]);
    if (st == CT_OK) st = ct_clamp(ctx, t[2], NULL, &hi1, &t[3]);
    ct_tensor *s = NULL;
    if (st == CT_OK) st = ct_add_scalar(ctx, t[3], (double)low, &s);
    if (st == CT_OK) st = ct_cast(ctx, s, dtype, out);
    ct_tensor_release(s);
    ct__release_all(4, t);
    return ct__error_within(ctx, "randint", st);
}
ct_status ct_randperm(ct_ctx *ctx, int64_t n, ct_dtype dtype, uint64_t seed, uint64_t offset,
                      ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "randperm: out is NULL");
    *out = NULL;
    if (n < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "randperm: n must be non-negative, got %lld",
                             (long long)n);
    if (dtype == CT_BOOL || ct_dtype_is_floating(dtype) || !ct__is_compute_dtype(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "randperm: an integer dtype is required, got %s",
                             ct_dtype_name(dtype));
    double lo = 0, hi = 0; /* the largest value n - 1 must fit (torch: "cannot be converted") */
    if (n > 0 && ct__int_range(dtype, &lo, &hi) && (double)(n - 1) > hi)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "randperm: n = %lld: the value %lld cannot be converted to %s without "
                             "overflow",
                             (long long)n, (long long)(n - 1), ct_dtype_name(dtype));
    /* the order of n uniform keys (ties have probability ~n^2 2^-53 and keep index order) */
    ct_tensor *keys = NULL, *v = NULL, *idx = NULL;
    ct_status st = ct_tensor_rand(ctx, CT_FLOAT64, 1, &n, seed, offset, &keys);
    if (st == CT_OK) st = ct_sort(ctx, keys, 0, false, true, &v, &idx);
    if (st == CT_OK) st = ct_cast(ctx, idx, dtype, out);
    ct_tensor_release(keys), ct_tensor_release(v), ct_tensor_release(idx);
    return ct__error_within(ctx, "randperm", st);
}
ct_status ct_rand_like(ct_ctx *ctx, const ct_tensor *a, uint64_t seed, uint64_t offset,
                       ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "rand_like", 1, ins, out);
    return st != CT_OK ? st : ct_tensor_rand(ctx, a->dtype, a->ndim, a->shape, seed, offset, out);
}
ct_status ct_randn_like(ct_ctx *ctx, const ct_tensor *a, uint64_t seed, uint64_t offset,
                        ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "randn_like", 1, ins, out);
    return st != CT_OK ? st : ct_tensor_randn(ctx, a->dtype, a->ndim, a->shape, seed, offset, out);
}
ct_status ct__host_any_zero(ct_ctx *ctx, const ct_tensor *t, bool unknown, bool *any) {
    *any = unknown;
    if (ct__any_capture(ctx)) return CT_OK;
    ct_tensor *z = NULL, *r = NULL;
    uint8_t b = 0;
    ct_status st = ct_eq_scalar(ctx, t, 0.0, &z);
    if (st == CT_OK) st = ct_any(ctx, z, 0, NULL, false, &r);
    if (st == CT_OK) st = ct_tensor_to_host(r, &b, 1);
    ct_tensor_release(z), ct_tensor_release(r);
    if (st == CT_OK) *any = b != 0;
    return st;
}
ct_status ct__host_range(ct_ctx *ctx, const ct_tensor *t, double *lo, double *hi) {
    ct_tensor *a = NULL, *b = NULL;
    *lo = *hi = 0;
    if (ct_tensor_numel(t) == 0) return CT_OK;
    ct_status st = ct_amin(ctx, t, 0, NULL, false, &a);
    CT__DO(st, ct_amax(ctx, t, 0, NULL, false, &b));
    CT__DO(st, ct_tensor_item(a, lo));
    CT__DO(st, ct_tensor_item(b, hi));
    ct_tensor_release(a), ct_tensor_release(b);
    return st;
}
ct_status ct_bernoulli(ct_ctx *ctx, const ct_tensor *p, uint64_t seed, uint64_t offset,
                       ct_tensor **out) {
    ct_status st = ct__one_float(ctx, "bernoulli", p, out);
    if (st != CT_OK) return st;
    /* p in [0, 1] (torch raises otherwise): its range read on the host, so eager only */
    ct_tensor *t[5] = {NULL};
    double lo = 0, hi = 0;
    const bool was = ct_set_grad_enabled(ctx, false);
    st = ct__host_range(ctx, p, &lo, &hi);
    if (st == CT_OK && ct_tensor_numel(p) > 0 && !(lo >= 0 && hi <= 1))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "bernoulli: expects all elements of p in [0, 1], got [%g, %g]", lo, hi);
    /* 1 where a uniform u < p (so p = 0 never, p = 1 always) */
    if (st == CT_OK) st = ct_tensor_rand(ctx, CT_FLOAT64, p->ndim, p->shape, seed, offset, &t[2]);
    if (st == CT_OK) st = ct_cast(ctx, p, CT_FLOAT64, &t[3]);
    if (st == CT_OK) st = ct_lt(ctx, t[2], t[3], &t[4]);
    if (st == CT_OK) st = ct_cast(ctx, t[4], p->dtype, out);
    ct_set_grad_enabled(ctx, was);
    ct__release_all(5, t);
    return ct__error_within(ctx, "bernoulli", st);
}

/* ---- cov, corrcoef, trapezoid: torch's formulas op for op ---- */
static ct_status ct__cov(ct_ctx *ctx, const ct_tensor *x, int64_t correction, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "cov", 1, ins, out);
    if (st != CT_OK) return st;
    if (x->ndim > 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "cov: expected input to have two or fewer dimensions but got %d",
                             x->ndim);
    if (!ct__is_compute_dtype(x->dtype) || x->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "cov: dtype %s is not supported (as torch)",
                             ct_dtype_name(x->dtype));
    /* variables in rows, observations in columns; integers and bool as float32 */
    const int64_t V = x->ndim == 2 ? x->shape[0] : 1, N = x->ndim ? x->shape[x->ndim - 1] : 1;
    ct_tensor *t[6] = {NULL};
    st = ct_dtype_is_floating(x->dtype) ? (t[0] = ct_tensor_retain((ct_tensor *)x), CT_OK)
                                        : ct_cast(ctx, x, CT_FLOAT32, &t[0]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[0], 2, (const int64_t[]){V, N}, &t[1]);
    if (st == CT_OK) st = ct_mean(ctx, t[1], 1, (const int[]){1}, true, &t[2]);
    if (st == CT_OK) st = ct_sub(ctx, t[1], t[2], &t[3]);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, t[3], 0, 1, &t[4]);
    if (st == CT_OK) st = ct_matmul(ctx, t[3], t[4], &t[5]);
    /* torch: (N - correction), 0 when not positive (then inf / nan, with its warning) */
    const double norm = N - correction > 0 ? (double)(N - correction) : 0.0;
    ct_tensor *c = NULL;
    if (st == CT_OK) st = ct_div_scalar(ctx, t[5], norm, &c);
    /* torch's squeeze(): every size-1 dim goes */
    int64_t sh[2];
    int nd = 0;
    for (int i = 0; i < 2; i++)
        if (V != 1) sh[nd++] = V;
    if (st == CT_OK) st = ct_tensor_reshape(ctx, c, nd, sh, out);
    ct_tensor_release(c);
    ct__release_all(6, t);
    return st;
}
ct_status ct_cov(ct_ctx *ctx, const ct_tensor *x, int64_t correction, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "cov", ct__cov(ctx, x, correction, out));
    return ct__ag_named(ctx, st, out, mark, "SqueezeBackward0");
}
ct_status ct_corrcoef(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out) {
    ct_tensor *c = NULL;
    ct_status st = ct_cov(ctx, x, 1, &c);
    if (st != CT_OK) return st;
    if (c->ndim == 0) { /* one variable: c / c (1, or NaN), as torch */
        st = ct_div(ctx, c, c, out);
        ct_tensor_release(c);
        return ct__error_within(ctx, "corrcoef", st);
    }
    /* c / stddev as a column, then as a row, clipped to [-1, 1] */
    const int64_t V = c->shape[0];
    ct_tensor *t[6] = {NULL};
    const double lo = -1, hi = 1;
    st = ct_diagonal(ctx, c, 0, 0, 1, &t[0]);
    if (st == CT_OK) st = ct_sqrt(ctx, t[0], &t[1]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[1], 2, (const int64_t[]){V, 1}, &t[2]);
    if (st == CT_OK) st = ct_div(ctx, c, t[2], &t[3]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[1], 2, (const int64_t[]){1, V}, &t[4]);
    if (st == CT_OK) st = ct_div(ctx, t[3], t[4], &t[5]);
    if (st == CT_OK) st = ct_clamp(ctx, t[5], &lo, &hi, out);
    ct_tensor_release(c);
    ct__release_all(6, t);
    return ct__error_within(ctx, "corrcoef", st);
}
static ct_status ct__trapezoid(ct_ctx *ctx, const ct_tensor *y, double dx, int dim,
                               ct_tensor **out) {
    const ct_tensor *ins[1] = {y};
    ct_status st = ct__check_args(ctx, "trapezoid", 1, ins, out);
    if (st != CT_OK) return st;
    if (y->dtype == CT_BOOL || (!ct__is_compute_dtype(y->dtype) && !ct_dtype_is_complex(y->dtype)))
        return ct__set_error(ctx, CT_ERR_DTYPE, "trapezoid: dtype %s is not supported (as torch)",
                             ct_dtype_name(y->dtype));
    int d;
    if (y->ndim == 0 || !ct__wrap_dim(dim, y->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "trapezoid: dim %d out of range for %d dims", dim,
                             y->ndim);
    if (y->shape[d] == 0) { /* torch: zeros of the reduced shape in y's dtype */
        int64_t sh[CT_MAX_DIMS];
        int nd = 0;
        for (int i = 0; i < y->ndim; i++)
            if (i != d) sh[nd++] = y->shape[i];
        return ct_tensor_zeros(ctx, y->dtype, nd, sh, out);
    }
    /* torch's do_trapezoid: (sum(y) - (y[0] + y[-1]) * 0.5) * dx */
    ct_tensor *t[7] = {NULL};
    st = ct_sum(ctx, y, 1, &d, false, &t[0]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, y, d, 0, 1, &t[1]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, y, d, y->shape[d] - 1, 1, &t[2]);
    if (st == CT_OK) st = ct_add(ctx, t[1], t[2], &t[3]);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, t[3], d, &t[4]);
    if (st == CT_OK) st = ct_mul_scalar(ctx, t[4], 0.5, &t[5]);
    if (st == CT_OK) st = ct_sub(ctx, t[0], t[5], &t[6]);
    if (st == CT_OK) st = ct_mul_scalar(ctx, t[6], dx, out);
    ct__release_all(7, t);
    return st;
}
ct_status ct_trapezoid(ct_ctx *ctx, const ct_tensor *y, double dx, int dim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "trapezoid", ct__trapezoid(ctx, y, dx, dim, out));
    return ct__ag_named(ctx, st, out, mark, "MulBackward1");
}

/* ---- mvlgamma: torch's composite, sum over i < p of lgamma(a + (i - p + 1) / 2) plus
 * p (p - 1) / 4 log(pi); integers in float32, bool refused ---- */
static ct_status ct__mvlgamma(ct_ctx *ctx, const ct_tensor *a, int64_t p, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "mvlgamma", 1, ins, out);
    if (st != CT_OK) return st;
    if (a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "mvlgamma: the input tensor may not be a boolean tensor (as torch)");
    if (p < 1 || p > (INT64_C(1) << 40))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "mvlgamma: p has to be greater than or equal to 1 (at most 2^40), "
                             "got %lld",
                             (long long)p);
    const ct_dtype dt = ct_dtype_is_floating(a->dtype) ? a->dtype : CT_FLOAT32;
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL}; /* arange, a[..., None], args, lgamma */
    st = ct_tensor_arange(ctx, dt, -(double)p * 0.5 + 0.5, 0.5, 0.5, &t[0]);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, a, -1, &t[1]);
    if (st == CT_OK) st = ct_add(ctx, t[0], t[1], &t[2]);
    if (st == CT_OK) st = ct_lgamma(ctx, t[2], &t[3]);
    ct_tensor *s = NULL;
    const int last = -1;
    if (st == CT_OK) st = ct_sum(ctx, t[3], 1, &last, false, &s);
    if (st == CT_OK)
        st = ct_add_scalar(ctx, s, (double)p * (double)(p - 1) * log(3.14159265358979323846) * 0.25,
                           out);
    ct_tensor_release(s);
    ct__release_all(4, t);
    return st;
}
ct_status ct_mvlgamma(ct_ctx *ctx, const ct_tensor *a, int64_t p, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "mvlgamma", ct__mvlgamma(ctx, a, p, out));
    return ct__ag_named(ctx, st, out, mark, "MvlgammaBackward0");
}

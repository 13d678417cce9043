/* More composites of the everyday surface, each written as torch 1.13 writes it (the same ops in
 * the same order, so the same rounding and, where torch's last op differs, its node name):
 * atleast_1d/2d/3d, hstack / vstack / dstack / column_stack, tensor_split, tensordot, addmv,
 * addr, linalg.matrix_power, logdet, block_diag, cartesian_prod, diag_embed, vander, logspace,
 * triu_indices / tril_indices. docs/everyday.md ("Stacking, splitting and small linear algebra")
 * lists where ctorch answers differently. */
#include "autograd/autograd_impl.h"
#include "ctorch/linalg.h"
#include "dtype/half.h"
#include "dispatch/dispatch.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The longest tensor list the composites here take (hstack, block_diag, ...). */
#define CT__LIST_MAX 64

static ct_status ct__list_args(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                               void *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (out) *(ct_tensor **)out = NULL;
    if (n < 1 || !ts)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expects a non-empty list of tensors",
                             op);
    if (n > CT__LIST_MAX)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: at most %d tensors, got %d", op,
                             CT__LIST_MAX, n);
    return ct__check_args(ctx, op, n, ts, out);
}
/* ---- atleast_1d / 2d / 3d: t itself (retained) when it has the rank already, else views ---- */
static ct_status ct__atleast(ct_ctx *ctx, const ct_tensor *t, int rank, ct_tensor **out) {
    static const char *const names[4] = {"", "atleast_1d", "atleast_2d", "atleast_3d"};
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, names[rank], 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (t->ndim >= rank) {
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    if (t->ndim == 0) {
        const int64_t ones[3] = {1, 1, 1};
        return ct_tensor_reshape(ctx, t, rank, ones, out);
    }
    if (rank == 2 || t->ndim == 2) /* (n) -> (1, n); (m, n) -> (m, n, 1) */
        return ct_tensor_unsqueeze(ctx, t, t->ndim == 1 ? 0 : -1, out);
    ct_tensor *u = NULL; /* 1-d to 3-d: (1, n, 1) */
    st = ct_tensor_unsqueeze(ctx, t, 0, &u);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, u, -1, out);
    ct_tensor_release(u);
    return st;
}
ct_status ct_atleast_1d(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__atleast(ctx, t, 1, out);
}
ct_status ct_atleast_2d(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__atleast(ctx, t, 2, out);
}
ct_status ct_atleast_3d(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__atleast(ctx, t, 3, out);
}

/* ---- hstack / vstack / dstack / column_stack: each input made at least 1/2/3-d (column_stack:
 * 0-d and 1-d inputs as columns), then one cat ---- */
typedef enum { CT__H, CT__V, CT__D, CT__COL } ct__stack_kind;
static ct_status ct__stack_as(ct_ctx *ctx, const char *op, ct__stack_kind kind, int n,
                              const ct_tensor *const *ts, ct_tensor **out) {
    ct_status st = ct__list_args(ctx, op, n, ts, out);
    if (st != CT_OK) return st;
    ct_tensor *v[CT__LIST_MAX] = {NULL};
    for (int i = 0; i < n && st == CT_OK; i++) {
        if (kind == CT__COL && ts[i]->ndim <= 1) {
            const int64_t col[2] = {ct_tensor_numel(ts[i]), 1};
            st = ct_tensor_reshape(ctx, ts[i], 2, col, &v[i]);
        } else {
            st = ct__atleast(ctx, ts[i], kind == CT__D ? 3 : kind == CT__V ? 2 : 1, &v[i]);
        }
    }
    if (st == CT_OK) {
        const int dim = kind == CT__V ? 0 : kind == CT__D ? 2 : v[0]->ndim == 1 ? 0 : 1;
        st = ct_cat(ctx, n, (const ct_tensor *const *)v, dim, out);
    }
    ct__release_all(n, v);
    return ct__error_within(ctx, op, st);
}
ct_status ct_hstack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    return ct__stack_as(ctx, "hstack", CT__H, n, ts, out);
}
ct_status ct_vstack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    return ct__stack_as(ctx, "vstack", CT__V, n, ts, out);
}
ct_status ct_dstack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    return ct__stack_as(ctx, "dstack", CT__D, n, ts, out);
}
ct_status ct_column_stack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    return ct__stack_as(ctx, "column_stack", CT__COL, n, ts, out);
}

/* ---- tensor_split: slices (views) of sizes differing by at most one, the larger first; or
 * cut at indices (Python slice rules: negatives wrap, clamped, an end before its start empty) */
static ct_status ct__split_check(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                                 ct_tensor **outs, int *d) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!outs) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: outs is NULL", op);
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, outs);
    if (st != CT_OK) return st;
    if (t->ndim == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected at least a 1-dimensional tensor (as torch)", op);
    if (!ct__wrap_dim(dim, t->ndim, d))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             t->ndim);
    return CT_OK;
}
ct_status ct_tensor_split(ct_ctx *ctx, const ct_tensor *t, int sections, int dim,
                          ct_tensor **outs) {
    int d = 0;
    ct_status st = ct__split_check(ctx, "tensor_split", t, dim, outs, &d);
    if (st != CT_OK) return st;
    if (sections <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "tensor_split: number of sections must be larger than 0, got %d",
                             sections);
    for (int i = 0; i < sections; i++)
        outs[i] = NULL;
    const int64_t size = t->shape[d], small = size / sections, extra = size % sections;
    int64_t start = 0;
    for (int i = 0; i < sections && st == CT_OK; i++) {
        const int64_t len = small + (i < extra ? 1 : 0);
        st = ct_tensor_slice(ctx, t, d, start, start + len, 1, &outs[i]);
        start += len;
    }
    if (st != CT_OK) ct__release_all(sections, outs);
    return ct__error_within(ctx, "tensor_split", st);
}
ct_status ct_tensor_split_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                                  int dim, ct_tensor **outs) {
    int d = 0;
    ct_status st = ct__split_check(ctx, "tensor_split", t, dim, outs, &d);
    if (st != CT_OK) return st;
    if (n < 0 || (n > 0 && !indices))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "tensor_split: bad index list (n = %d)", n);
    for (int i = 0; i <= n; i++)
        outs[i] = NULL;
    int64_t start = 0;
    const int64_t size = t->shape[d];
    for (int i = 0; i <= n && st == CT_OK; i++) {
        const int64_t end = i < n ? indices[i] : size;
        /* torch slices [start, end) with Python's rules, so the start is the previous raw index */
        st = ct_tensor_slice(ctx, t, d, start, end, 1, &outs[i]);
        start = end;
    }
    if (st != CT_OK) ct__release_all(n + 1, outs);
    return ct__error_within(ctx, "tensor_split", st);
}

/* ---- tensordot: a permuted to (free, contracted) and reshaped to a matrix, b to (contracted,
 * free), one mm, reshaped to the free sizes (torch's order of the contracted dims: as given) */
ct_status ct_tensordot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int n,
                       const int *dims_a, const int *dims_b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "tensordot", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (n < 0 || n > a->ndim || n > b->ndim || (n > 0 && (!dims_a || !dims_b)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "tensordot: %d contracted dims for tensors of %d and %d dims", n,
                             a->ndim, b->ndim);
    ct_dtype dt;
    if (a->dtype != b->dtype) /* torch: "expected scalar type Float but found Double" */
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "tensordot: expected both operands to have the same dtype, but found "
                             "%s and %s (as torch)",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if ((st = ct__cx_result_type(ctx, "tensordot", 2, ins, &dt)) != CT_OK)
        return st; /* complex too */
    bool ca[CT_MAX_DIMS] = {false}, cb[CT_MAX_DIMS] = {false};
    int da[CT_MAX_DIMS], db[CT_MAX_DIMS];
    int64_t csize = 1;
    for (int i = 0; i < n; i++) {
        if (!ct__wrap_dim(dims_a[i], a->ndim, &da[i]) || !ct__wrap_dim(dims_b[i], b->ndim, &db[i]))
            return ct__set_error(ctx, CT_ERR_INDEX, "tensordot: dims %d / %d out of range",
                                 dims_a[i], dims_b[i]);
        if (ca[da[i]] || cb[db[i]])
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "tensordot: a dim appears twice");
        ca[da[i]] = cb[db[i]] = true;
        if (a->shape[da[i]] != b->shape[db[i]])
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "tensordot: contracted dimensions need to match, but first has "
                                 "size %lld in dim %d and second has size %lld in dim %d",
                                 (long long)a->shape[da[i]], da[i], (long long)b->shape[db[i]],
                                 db[i]);
        csize *= a->shape[da[i]];
    }
    if ((a->ndim - n) + (b->ndim - n) > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "tensordot: the result has more than %d dims",
                             CT_MAX_DIMS);
    int pa[CT_MAX_DIMS], pb[CT_MAX_DIMS], k = 0, nr = 0;
    int64_t rs[CT_MAX_DIMS], size1 = 1, size2 = 1;
    for (int i = 0; i < a->ndim; i++)
        if (!ca[i]) pa[k++] = i, rs[nr++] = a->shape[i], size1 *= a->shape[i];
    for (int i = 0; i < n; i++)
        pa[k++] = da[i];
    k = 0;
    for (int i = 0; i < n; i++)
        pb[k++] = db[i];
    for (int i = 0; i < b->ndim; i++)
        if (!cb[i]) pb[k++] = i, rs[nr++] = b->shape[i], size2 *= b->shape[i];
    ct_tensor *t[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const int64_t s1[2] = {size1, csize}, s2[2] = {csize, size2};
    /* operands of different dtypes meet in the promoted one (torch's mm sees them cast) */
    st = ct_cast(ctx, a, dt, &t[5]);
    if (st == CT_OK) st = ct_cast(ctx, b, dt, &t[6]);
    if (st == CT_OK) st = ct_tensor_permute(ctx, t[5], pa, &t[0]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[0], 2, s1, &t[1]);
    if (st == CT_OK) st = ct_tensor_permute(ctx, t[6], pb, &t[2]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[2], 2, s2, &t[3]);
    if (st == CT_OK) st = ct_matmul(ctx, t[1], t[3], &t[4]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[4], nr, rs, out);
    ct__release_all(7, t);
    return ct__error_within(ctx, "tensordot", st);
}

/* ---- addmv: beta input + alpha (mat @ vec), as one addmm on columns (input's NaN ignored for
 * beta == 0, as torch) ---- */
static ct_status ct__addmv(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *mat,
                           const ct_tensor *vec, double beta, double alpha, ct_tensor **out) {
    const ct_tensor *ins[3] = {input, mat, vec};
    ct_status st = ct__check_args(ctx, "addmv", 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (mat->ndim != 2 || vec->ndim != 1 || input->ndim > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "addmv: expected a 2-d matrix, a 1-d vector and an input of at most "
                             "1 dim, got %d, %d and %d dims",
                             mat->ndim, vec->ndim, input->ndim);
    /* torch: mat and vec of one dtype; input is taken in theirs (its result's dtype) */
    if (mat->dtype != vec->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "addmv: expected scalar type %s but found %s",
                             ct_dtype_name(mat->dtype), ct_dtype_name(vec->dtype));
    ct_tensor *t[4] = {NULL, NULL, NULL, NULL}, *in_c = NULL;
    if (input->dtype != mat->dtype) {
        if ((st = ct_cast(ctx, input, mat->dtype, &in_c)) != CT_OK) return st;
        input = in_c;
    }
    const int64_t one1[2] = {1, 1};
    st = input->ndim == 0 ? ct_tensor_reshape(ctx, input, 2, one1, &t[0])
                          : ct_tensor_unsqueeze(ctx, input, 1, &t[0]);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, vec, 1, &t[1]);
    if (st == CT_OK) st = ct_addmm(ctx, t[0], mat, t[1], beta, alpha, &t[2]);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, t[2], 1, out);
    ct__release_all(4, t);
    ct_tensor_release(in_c);
    return st;
}
ct_status ct_addmv(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *mat, const ct_tensor *vec,
                   double beta, double alpha, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "addmv", ct__addmv(ctx, input, mat, vec, beta, alpha, out));
    return ct__ag_named(ctx, st, out, mark, "AddmvBackward0");
}

/* ---- addr: beta input + alpha outer(v1, v2) as torch's vectorised loop rounds it,
 * fma(alpha v1_i, v2_j, beta input_ij); beta == 0 ignores input: (alpha v1_i) v2_j. Integers
 * take integral alpha / beta; bool: (beta and input) or (alpha and v1_i and v2_j), a nonzero
 * beta / alpha counting as true ---- */
static ct_status ct__addr(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *v1,
                          const ct_tensor *v2, double beta, double alpha, ct_tensor **out) {
    const ct_tensor *ins[3] = {input, v1, v2};
    ct_status st = ct__check_args(ctx, "addr", 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (v1->ndim != 1 || v2->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "addr: expected 1-d vectors, got %d and %d dims",
                             v1->ndim, v2->ndim);
    ct_dtype dt;
    if ((st = ct__result_type(ctx, "addr", 3, ins, &dt)) != CT_OK) return st;
    if (!ct_dtype_is_floating(dt) && (beta != trunc(beta) || alpha != trunc(alpha)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "addr: for %s tensors beta and alpha must be integral (as torch)",
                             ct_dtype_name(dt));
    /* the result's shape: (len v1, len v2), which input must broadcast to */
    const int64_t want[2] = {v1->shape[0], v2->shape[0]};
    bool fits = input->ndim <= 2;
    for (int i = 0; fits && i < input->ndim; i++) {
        const int64_t s = input->shape[input->ndim - 1 - i];
        fits = s == 1 || s == want[1 - i];
    }
    if (!fits)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "addr: input of %d dims does not broadcast to (%lld, %lld)",
                             input->ndim, (long long)want[0], (long long)want[1]);
    ct_tensor *t[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (dt == CT_BOOL) {
        st = ct_tensor_unsqueeze(ctx, v1, 1, &t[0]);
        if (st == CT_OK) st = ct_logical_and(ctx, t[0], v2, &t[1]); /* v1_i and v2_j */
        if (st == CT_OK && alpha == 0) st = ct_logical_xor(ctx, t[1], t[1], &t[2]); /* false */
        const ct_tensor *prod = alpha == 0 ? t[2] : t[1];
        if (st == CT_OK && beta != 0) st = ct_logical_or(ctx, input, prod, &t[3]);
        if (st == CT_OK) st = ct_cast(ctx, beta != 0 ? t[3] : prod, CT_BOOL, out);
        ct__release_all(6, t);
        return st;
    }
    /* the operands in the common dtype first (torch's TensorIterator), then the products */
    if (!ct_dtype_is_floating(dt) &&
        ((st = ct__check_scalar_fits(ctx, "addr", dt, beta, true)) != CT_OK ||
         (st = ct__check_scalar_fits(ctx, "addr", dt, alpha, true)) != CT_OK))
        return st;
    st = ct_cast(ctx, v1, dt, &t[0]);
    if (st == CT_OK) st = ct_mul_scalar(ctx, t[0], alpha, &t[1]);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, t[1], 1, &t[2]);
    if (st == CT_OK) st = ct_cast(ctx, v2, dt, &t[3]);
    if (beta == 0) {
        if (st == CT_OK) st = ct_mul(ctx, t[2], t[3], out);
    } else {
        if (st == CT_OK) st = ct_cast(ctx, input, dt, &t[4]);
        if (st == CT_OK) st = ct_mul_scalar(ctx, t[4], beta, &t[5]);
        if (st == CT_OK) st = ct_addcmul(ctx, t[5], t[2], t[3], 1.0, out);
    }
    ct__release_all(6, t);
    return st;
}
ct_status ct_addr(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *v1, const ct_tensor *v2,
                  double beta, double alpha, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "addr", ct__addr(ctx, input, v1, v2, beta, alpha, out));
    return ct__ag_named(ctx, st, out, mark, "AddrBackward0");
}

/* ---- linalg.matrix_power: torch's binary powering (z squared each step, result @ z where the
 * bit is set); n == 0 the identity, n == 1 a copy, n < 0 the inverse's power ---- */
static ct_status ct__matrix_power(ct_ctx *ctx, const ct_tensor *a, int64_t n, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "linalg.matrix_power", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "linalg.matrix_power: expected a batch of square matrices");
    const uint64_t mark = ct__ag_mark(ctx);
    if (n == 0) { /* eye(n) broadcast to a's shape; under autograd selected past a by an
                   * all-false mask, so a gets torch's zero gradient (not a cut graph) */
        ct_tensor *e = NULL, *x = NULL, *no = NULL;
        const int64_t m = a->shape[a->ndim - 1];
        st = ct_tensor_eye(ctx, a->dtype, m, m, &e);
        if (st == CT_OK) st = ct_tensor_expand(ctx, e, a->ndim, a->shape, &x);
        if (st == CT_OK && ct__ag_wants(ctx, 1, ins)) {
            st = ct_tensor_zeros(ctx, CT_BOOL, 0, NULL, &no);
            if (st == CT_OK) st = ct_where(ctx, no, a, x, out);
            ct_tensor_release(e), ct_tensor_release(x), ct_tensor_release(no);
            return ct__ag_named(ctx, st, out, mark, "CopyBackwards"); /* torch's node */
        } else if (st == CT_OK) {
            st = ct_tensor_clone(ctx, x, out);
        }
        ct_tensor_release(e), ct_tensor_release(x), ct_tensor_release(no);
        return st;
    }
    ct_tensor *base = NULL;
    if (n < 0) {
        if (!ct_dtype_is_floating(a->dtype) && !ct_dtype_is_complex(a->dtype))
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "linalg.matrix_power: a negative power needs a floating matrix "
                                 "(linalg.inv: expected a floating point tensor, got %s)",
                                 ct_dtype_name(a->dtype));
        if ((st = ct_linalg_inv(ctx, a, &base)) != CT_OK) return st;
    } else {
        base = ct_tensor_retain((ct_tensor *)a);
    }
    uint64_t un = n < 0 ? 0 - (uint64_t)n : (uint64_t)n; /* |INT64_MIN| too */
    if (un == 1) {
        st = ct_tensor_clone(ctx, base, out);
    } else if (un == 2) {
        st = ct_matmul(ctx, base, base, out);
    } else if (un == 3) { /* torch's (a @ a) @ a */
        ct_tensor *sq = NULL;
        st = ct_matmul(ctx, base, base, &sq);
        if (st == CT_OK) st = ct_matmul(ctx, sq, base, out);
        ct_tensor_release(sq);
    } else {
        ct_tensor *z = NULL, *result = NULL;
        while (un > 0 && st == CT_OK) {
            const uint64_t bit = un % 2;
            un /= 2;
            ct_tensor *nz = NULL;
            if (z) {
                st = ct_matmul(ctx, z, z, &nz);
                ct_tensor_release(z);
                z = nz;
            } else {
                z = ct_tensor_retain(base);
            }
            if (st == CT_OK && bit == 1) {
                ct_tensor *nr = NULL;
                if (result) {
                    st = ct_matmul(ctx, result, z, &nr);
                    ct_tensor_release(result);
                    result = nr;
                } else {
                    result = ct_tensor_retain(z);
                }
            }
        }
        ct_tensor_release(z);
        if (st == CT_OK)
            *out = result;
        else
            ct_tensor_release(result);
    }
    ct_tensor_release(base);
    return st;
}
ct_status ct_linalg_matrix_power(ct_ctx *ctx, const ct_tensor *a, int64_t n, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.matrix_power", ct__matrix_power(ctx, a, n, out));
}

/* ---- logdet: slogdet's log|det|, NaN where the sign is -1 (torch's where) ---- */
ct_status ct_logdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    if (out) *out = NULL;
    ct_tensor *sign = NULL, *lad = NULL, *neg = NULL, *nan = NULL;
    if (ctx && out && ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) {
        const ct_tensor *ins[1] = {a};
        if (ct__ag_wants(ctx, 1, ins)) { /* log(det): det's node carries the phase's gradient */
            ct_tensor *d = NULL;
            ct_status st = ct_linalg_det(ctx, a, &d);
            if (st == CT_OK) st = ct_log(ctx, d, out);
            ct_tensor_release(d);
            return ct__error_within(ctx, "logdet", st);
        }
    }
    ct_status st = ct_linalg_slogdet(ctx, a, &sign, &lad);
    if (st == CT_OK && ct_dtype_is_complex(ct_tensor_dtype(sign))) {
        /* complex: log(sign) + log|det| (torch's); a singular matrix has no phase: -inf + NaN i
         * as torch (log of the signed zero sign would give 0 or pi) */
        ct_tensor *ls = NULL, *v = NULL, *sing = NULL, *undef = NULL;
        st = ct_log(ctx, sign, &ls);
        if (st == CT_OK) st = ct_add(ctx, ls, lad, &v);
        if (st == CT_OK) st = ct_eq_scalar(ctx, sign, 0.0, &sing);
        if (st == CT_OK) {
            const double c[2] = {-INFINITY, NAN};
            const float cf[2] = {-INFINITY, NAN};
            const ct_dtype dt = ct_tensor_dtype(v);
            st = ct_tensor_from_host(ctx, dt == CT_COMPLEX64 ? (const void *)cf : (const void *)c,
                                     dt, 0, NULL, &undef);
        }
        if (st == CT_OK) st = ct_where(ctx, sing, undef, v, out);
        ct_tensor_release(ls), ct_tensor_release(v), ct_tensor_release(sing);
        ct_tensor_release(undef), ct_tensor_release(sign), ct_tensor_release(lad);
        return ct__error_within(ctx, "logdet", st);
    }
    if (st == CT_OK) st = ct_eq_scalar(ctx, sign, -1, &neg);
    const int64_t none[1] = {1};
    if (st == CT_OK) st = ct_tensor_full(ctx, ct_tensor_dtype(lad), 0, none, NAN, &nan);
    if (st == CT_OK) st = ct_where(ctx, neg, nan, lad, out);
    ct_tensor_release(sign), ct_tensor_release(lad), ct_tensor_release(neg);
    ct_tensor_release(nan);
    return ctx ? ct__error_within(ctx, "logdet", st) : st;
}

/* ---- block_diag: 0-d inputs as 1x1, 1-d as one row; each block padded with zeros to the full
 * width and the rows joined (the promoted dtype); node BlockDiagBackward0 ---- */
static ct_status ct__block_diag(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    ct_status st = ct__list_args(ctx, "block_diag", n, ts, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__cx_result_type(ctx, "block_diag", n, ts, &dt)) != CT_OK)
        return st; /* complex too */
    int64_t cols = 0;
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim > 2)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "block_diag: input %d has %d dims, expected at most 2 (as torch)",
                                 i, ts[i]->ndim);
        const int64_t w = ts[i]->ndim == 2   ? ts[i]->shape[1]
                          : ts[i]->ndim == 1 ? ts[i]->shape[0]
                                             : 1;
        if (__builtin_add_overflow(cols, w, &cols))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "block_diag: the total width overflows");
    }
    ct_tensor *rows[CT__LIST_MAX] = {NULL}, *m = NULL, *c = NULL;
    int64_t before = 0;
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *t = ts[i];
        const int64_t r = t->ndim == 2 ? t->shape[0] : 1;
        const int64_t w = t->ndim == 2 ? t->shape[1] : t->ndim == 1 ? t->shape[0] : 1;
        const int64_t sh[2] = {r, w}, pad[2] = {before, cols - before - w};
        st = ct_tensor_reshape(ctx, t, 2, sh, &m);
        if (st == CT_OK) st = ct_cast(ctx, m, dt, &c);
        if (st == CT_OK) st = ct_pad(ctx, c, 2, pad, CT_PAD_CONSTANT, 0, &rows[i]);
        ct_tensor_release(m), ct_tensor_release(c);
        m = c = NULL;
        before += w;
    }
    if (st == CT_OK) st = ct_cat(ctx, n, (const ct_tensor *const *)rows, 0, out);
    ct__release_all(n, rows);
    return st;
}
ct_status ct_block_diag(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "block_diag", ct__block_diag(ctx, n, ts, out));
    return ct__ag_named(ctx, st, out, mark, "BlockDiagBackward0");
}

/* ---- cartesian_prod: meshgrid (ij) of 1-d tensors of one dtype, flattened, stacked as
 * columns; one tensor comes back as itself ---- */
ct_status ct_cartesian_prod(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    ct_status st = ct__list_args(ctx, "cartesian_prod", n, ts, out);
    if (st != CT_OK) return st;
    for (int i = 0; i < n; i++) {
        if (ts[i]->ndim != 1)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "cartesian_prod: expect a 1D vector, but got shape of %d dims",
                                 ts[i]->ndim);
        if (ts[i]->dtype != ts[0]->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "cartesian_prod: meshgrid expects all tensors to have the same "
                                 "dtype (as torch)");
    }
    if (n == 1) {
        *out = ct_tensor_retain((ct_tensor *)ts[0]);
        return CT_OK;
    }
    ct_tensor *g[CT__LIST_MAX] = {NULL}, *f[CT__LIST_MAX] = {NULL};
    st = ct_meshgrid(ctx, n, ts, CT_MESHGRID_IJ, g);
    for (int i = 0; i < n && st == CT_OK; i++)
        st = ct_flatten(ctx, g[i], 0, -1, &f[i]);
    if (st == CT_OK) st = ct_stack(ctx, n, (const ct_tensor *const *)f, 1, out);
    ct__release_all(n, g), ct__release_all(n, f);
    return ct__error_within(ctx, "cartesian_prod", st);
}

/* ---- diag_embed: the last dim of a on the offset diagonal of new dims (dim1, dim2) of a zero
 * tensor. Built from pads: each value followed by m zeros (m = n + |offset|), the row shifted
 * to the diagonal's first position, cut to m * m and shaped (m, m); node DiagEmbedBackward0 */
static ct_status ct__diag_embed(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1, int dim2,
                                ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "diag_embed", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->ndim < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "diag_embed: expected at least a 1-d input");
    const int nd = a->ndim + 1;
    int d1 = 0, d2 = 0;
    if (nd > CT_MAX_DIMS || !ct__wrap_dim(dim1, nd, &d1) || !ct__wrap_dim(dim2, nd, &d2))
        return ct__set_error(ctx, CT_ERR_INDEX, "diag_embed: dims %d, %d out of range for %d dims",
                             dim1, dim2, nd);
    if (d1 == d2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "diag_embed: diagonal dimensions cannot be identical %d, %d", dim1,
                             dim2);
    const int64_t n = a->shape[a->ndim - 1];
    if (offset > INT32_MAX || offset < -(int64_t)INT32_MAX)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "diag_embed: offset %lld too large",
                             (long long)offset);
    const int64_t m = n + (offset < 0 ? -offset : offset);
    int64_t mm = 0, shift = 0, nm1 = 0;
    if (__builtin_mul_overflow(m, m, &mm) || __builtin_mul_overflow(n, m + 1, &nm1) ||
        __builtin_mul_overflow(offset >= 0 ? 1 : -offset, offset >= 0 ? offset : m, &shift))
        return ct__set_error(ctx, CT_ERR_OVERFLOW,
                             "diag_embed: a %lld x %lld result overflows int64", (long long)m,
                             (long long)m);
    ct_tensor *t[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    int64_t sh[CT_MAX_DIMS];
    const int lead = a->ndim - 1;
    for (int i = 0; i < lead; i++)
        sh[i] = a->shape[i];
    const int64_t p1[2] = {0, m},
                  p2[2] = {shift,
                           m * m - shift - n * (m + 1) > 0 ? m * m - shift - n * (m + 1) : 0};
    st = ct_tensor_unsqueeze(ctx, a, -1, &t[0]);
    if (st == CT_OK) st = ct_pad(ctx, t[0], 2, p1, CT_PAD_CONSTANT, 0, &t[1]); /* (..., n, m+1) */
    if (st == CT_OK) st = ct_flatten(ctx, t[1], lead, -1, &t[2]);              /* (..., n(m+1)) */
    if (st == CT_OK) st = ct_pad(ctx, t[2], 2, p2, CT_PAD_CONSTANT, 0, &t[3]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[3], lead, 0, mm, &t[4]);
    sh[lead] = m, sh[lead + 1] = m;
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[4], lead + 2, sh, &t[5]);
    if (st == CT_OK) {
        /* the two new dims (last two now) moved to d1 < d2 or d2 < d1 */
        const int src[2] = {lead, lead + 1}, dst[2] = {d1, d2};
        st = ct_movedim(ctx, t[5], 2, src, dst, out);
    }
    ct__release_all(6, t);
    return st;
}
ct_status ct_diag_embed(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1, int dim2,
                        ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "diag_embed", ct__diag_embed(ctx, a, offset, dim1, dim2, out));
    return ct__ag_named(ctx, st, out, mark, "DiagEmbedBackward0");
}

/* ---- vander: columns x^(N-1) ... x^0 (increasing: x^0 ...), by torch's cumprod of x repeated;
 * integers and bool in int64 ---- */
static ct_status ct__vander(ct_ctx *ctx, const ct_tensor *x, int64_t N, bool increasing,
                            ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, "vander", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->ndim != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "vander: x must be a one-dimensional tensor");
    const int64_t len = x->shape[0];
    if (N < 0) N = len; /* torch's default: N = len(x) */
    const ct_dtype dt = ct_dtype_is_floating(x->dtype) ? x->dtype : CT_INT64;
    ct_tensor *t[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
    if (N <= 1) {
        st = ct_tensor_full(ctx, dt, 2, (const int64_t[]){len, N}, 1, out);
        return st;
    }
    const int64_t shp[2] = {len, N - 1};
    st = ct_cast(ctx, x, dt, &t[0]);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, t[0], 1, &t[1]);
    if (st == CT_OK) st = ct_tensor_expand(ctx, t[1], 2, shp, &t[2]);
    if (st == CT_OK) st = ct_cumprod(ctx, t[2], 1, &t[3]);
    if (st == CT_OK) st = ct_tensor_full(ctx, dt, 2, (const int64_t[]){len, 1}, 1, &t[4]);
    const ct_tensor *parts[2] = {t[4], t[3]};
    if (st == CT_OK) st = ct_cat(ctx, 2, parts, 1, increasing ? out : &t[5]);
    if (st == CT_OK && !increasing) {
        const int d = 1;
        st = ct_flip(ctx, t[5], 1, &d, out);
    }
    ct__release_all(6, t);
    return st;
}
ct_status ct_vander(ct_ctx *ctx, const ct_tensor *x, int64_t N, bool increasing, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "vander", ct__vander(ctx, x, N, increasing, out));
    return ct__ag_named(ctx, st, out, mark, increasing ? "CopySlices" : "FlipBackward0");
}

/* ---- logspace: base^(start + step i) below the middle, base^(end - step (steps - 1 - i)) from
 * it, in double with start / end first rounded to the dtype (torch's kernel) ---- */
ct_status ct_tensor_logspace(ct_ctx *ctx, ct_dtype dtype, double start, double end, int64_t steps,
                             double base, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "logspace: out is NULL");
    *out = NULL;
    if (steps < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "logspace: number of steps must be "
                             "non-negative");
    if (dtype == CT_BOOL || !ct__is_compute_dtype(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "logspace: dtype %s is not supported",
                             ct_dtype_name(dtype));
    if (steps > (INT64_C(1) << 40))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "logspace: %lld steps is too many",
                             (long long)steps);
    double *v = malloc(sizeof(double) * (size_t)(steps ? steps : 1));
    if (!v)
        return ct__set_error(ctx, CT_ERR_OOM, "logspace: out of memory for %lld values",
                             (long long)steps);
    /* steps == 1: base^start in double. Else start and end as the dtype holds them (torch's
     * scalar_t); floats: the step and the powers in double; integers (range-checked as torch's
     * Scalar conversion of an int: uint8 takes -255..-1 wrapped, as torch): the step and the
     * powers in double, truncated by the cast (torch's int64 logspace is exact to double) */
    ct_status st = CT_OK;
    const bool integral = !ct_dtype_is_floating(dtype);
    double sv[2] = {start, end};
    for (int i = 0; i < 2 && steps > 1; i++) {
        if (dtype == CT_FLOAT32)
            sv[i] = (float)sv[i];
        else if (dtype == CT_FLOAT16)
            sv[i] = ct__h2f(ct__f2h((float)sv[i]));
        else if (dtype == CT_BFLOAT16)
            sv[i] = ct__bf2f(ct__f2bf((float)sv[i]));
        else if (integral && !ct__int_scalar_conv(dtype, sv[i], &sv[i]))
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "logspace: value cannot be converted to type %s without overflow: "
                               "%g (as torch)",
                               ct_dtype_name(dtype), i ? end : start);
        else if (dtype == CT_UINT8 && sv[i] < 0)
            sv[i] += 256; /* an int's two's complement, as torch */
    }
    if (st == CT_OK && steps == 1) {
        v[0] = pow(base, start);
    } else if (st == CT_OK) {
        const double s = sv[0], e = sv[1], step = (e - s) / (double)(steps - 1);
        const int64_t half = steps / 2;
        for (int64_t i = 0; i < steps; i++)
            v[i] = i < half ? pow(base, s + step * (double)i)
                            : pow(base, e - step * (double)(steps - i - 1));
    }
    ct_tensor *d = NULL;
    if (st == CT_OK) st = ct_tensor_from_host(ctx, v, CT_FLOAT64, 1, &steps, &d);
    if (st == CT_OK) st = ct_cast(ctx, d, dtype, out);
    free(v);
    ct_tensor_release(d);
    return ct__error_within(ctx, "logspace", st);
}

/* ---- triu_indices / tril_indices: int64 (2, count), row-major order as torch ---- */
static ct_status ct__tri_indices(ct_ctx *ctx, const char *op, bool upper, int64_t row, int64_t col,
                                 int64_t offset, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    if (row < 0 || col < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: row and col must be >= 0, got %lld, %lld", op, (long long)row,
                             (long long)col);
    if (row > (INT64_C(1) << 20) || col > (INT64_C(1) << 20))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: row and col at most 2^20", op);
    /* offsets past the matrix act as the nearest one that is not (and i + offset cannot
     * overflow) */
    if (offset > (INT64_C(1) << 21)) offset = INT64_C(1) << 21;
    if (offset < -(INT64_C(1) << 21)) offset = -(INT64_C(1) << 21);
    int64_t count = 0;
    for (int64_t i = 0; i < row; i++) {
        const int64_t lo = upper ? i + offset : 0, hi = upper ? col : i + offset + 1;
        const int64_t a = lo < 0 ? 0 : lo, b = hi > col ? col : hi;
        if (b > a) count += b - a;
    }
    int64_t *v = malloc(sizeof(int64_t) * (size_t)(2 * count + 1));
    if (!v)
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory for %lld indices", op,
                             (long long)count);
    int64_t k = 0;
    for (int64_t i = 0; i < row; i++) {
        const int64_t lo = upper ? i + offset : 0, hi = upper ? col : i + offset + 1;
        for (int64_t j = lo < 0 ? 0 : lo; j < (hi > col ? col : hi); j++)
            v[k] = i, v[count + k] = j, k++;
    }
    const int64_t shape[2] = {2, count};
    ct_status st = ct_tensor_from_host(ctx, v, CT_INT64, 2, shape, out);
    free(v);
    return ct__error_within(ctx, op, st);
}
ct_status ct_tensor_triu_indices(ct_ctx *ctx, int64_t row, int64_t col, int64_t offset,
                                 ct_tensor **out) {
    return ct__tri_indices(ctx, "triu_indices", true, row, col, offset, out);
}
ct_status ct_tensor_tril_indices(ct_ctx *ctx, int64_t row, int64_t col, int64_t offset,
                                 ct_tensor **out) {
    return ct__tri_indices(ctx, "tril_indices", false, row, col, offset, out);
}

/* ---- quantile / nanquantile: torch 1.13's quantile_compute. Sorted along the reduced dim (NaN
 * last), ranks q (n - 1) in the input's dtype (nanquantile: q (non-NaN count - 1), negative ranks
 * 0; quantile: the last index where a slice has a NaN), rounded by the interpolation, gathered
 * below and above and lerped by ranks - below (linear) or 0.5 (midpoint); q's entries lead the
 * result's dims ---- */
static ct_status ct__quantile(ct_ctx *ctx, const char *op, const ct_tensor *a, const ct_tensor *q,
                              int dim, bool keepdim, ct_quantile_interp interp, bool ignore_nan,
                              ct_tensor **out) {
    const ct_tensor *ins[2] = {a, q};
    ct_status st = ct__check_args(ctx, op, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->dtype != CT_FLOAT32 && a->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: input tensor must be either float or double dtype, got %s (as "
                             "torch)",
                             op, ct_dtype_name(a->dtype));
    if (q->dtype != a->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: q tensor must be same dtype as the input tensor (as torch)", op);
    if (q->ndim > 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: q must be a scalar or 1D tensor", op);
    if ((int)interp < 0 || interp > CT_QUANTILE_MIDPOINT)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: unknown interpolation %d", op,
                             (int)interp);
    const bool all = dim == CT_ALL_DIMS;
    int wd = 0;
    if (!all && !ct__wrap_dim(dim, a->ndim ? a->ndim : 1, &wd))
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             a->ndim);
    if (ct_tensor_numel(a) == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input tensor must be non-empty (as torch)",
                             op);
    /* q in [0, 1] (a host read, as torch's CPU check) */
    ct_tensor *c[4] = {NULL, NULL, NULL, NULL};
    double ok = 0;
    st = ct_ge_scalar(ctx, q, 0, &c[0]);
    if (st == CT_OK) st = ct_le_scalar(ctx, q, 1, &c[1]);
    if (st == CT_OK) st = ct_logical_and(ctx, c[0], c[1], &c[2]);
    if (st == CT_OK) st = ct_all(ctx, c[2], 0, NULL, false, &c[3]);
    if (st == CT_OK) st = ct_tensor_item(c[3], &ok);
    ct__release_all(4, c);
    if (st != CT_OK) return st;
    if (ok == 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: q values must be in the range [0, 1] (as torch)", op);
    /* the result's shape (q's slot first) and the sorted input viewed to its dims + n */
    int64_t osh[CT_MAX_DIMS + 1];
    int on = 0;
    if (!all && a->ndim > 0) {
        for (int i = 0; i < a->ndim; i++)
            if (i != wd)
                osh[on++] = a->shape[i];
            else if (keepdim)
                osh[on++] = 1;
    } else if (keepdim) {
        for (int i = 0; i < a->ndim; i++)
            osh[on++] = 1;
    }
    ct_tensor *t[20] = {NULL};
    if (all || a->ndim == 0) /* a 0-d input with dim 0 / -1: its one value (torch) */
        st = ct_flatten(ctx, a, 0, -1, &t[0]);
    else if (wd == a->ndim - 1)
        t[0] = ct_tensor_retain((ct_tensor *)a);
    else {
        ct_tensor *u = NULL;
        st = ct_tensor_unsqueeze(ctx, a, -1, &u);
        if (st == CT_OK) st = ct_tensor_transpose(ctx, u, wd, -1, &t[0]);
        ct_tensor_release(u);
    }
    ct_tensor *idx = NULL;
    if (st == CT_OK) st = ct_sort(ctx, t[0], -1, false, false, &t[1], &idx);
    ct_tensor_release(idx);
    const int64_t n = t[1] ? t[1]->shape[t[1]->ndim - 1] : 0;
    int64_t ish[CT_MAX_DIMS];
    for (int i = 0; i < on; i++)
        ish[i] = osh[i];
    ish[on] = n; /* in_shape: the result's dims, then the sorted values */
    if (st == CT_OK && on + 1 > CT_MAX_DIMS)
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: too many dims", op);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[1], on + 1, ish, &t[2]);
    if (st == CT_OK && n > (INT64_C(1) << 24))
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: input tensor is too large (as torch)", op);
    const int last = -1;
    if (st == CT_OK) st = ct_isnan(ctx, t[2], &t[3]);
    if (st == CT_OK && ignore_nan) { /* ranks = q (count - 1), negative ranks 0 */
        ct_tensor *nn = NULL;
        st = ct_logical_not(ctx, t[3], &nn);
        if (st == CT_OK) st = ct_sum(ctx, nn, 1, &last, true, &t[4]);
        ct_tensor_release(nn);
        if (st == CT_OK) st = ct_sub_scalar(ctx, t[4], 1, &t[5]);
        if (st == CT_OK) st = ct_mul(ctx, q, t[5], &t[6]);
        if (st == CT_OK) st = ct_lt_scalar(ctx, t[6], 0, &t[7]);
        if (st == CT_OK) st = ct_masked_fill(ctx, t[6], t[7], 0, &t[8]);
    } else if (st == CT_OK) { /* ranks = q (n - 1), n - 1 where the slice has a NaN */
        st = ct_mul_scalar(ctx, q, (double)(n - 1), &t[4]);
        if (st == CT_OK) st = ct_any(ctx, t[3], 1, &last, true, &t[5]);
        if (st == CT_OK) st = ct_tensor_full(ctx, a->dtype, 0, osh, (double)(n - 1), &t[6]);
        if (st == CT_OK) st = ct_where(ctx, t[5], t[6], t[4], &t[8]);
    }
    ct_tensor *ranks = t[8];
    if (st == CT_OK && interp == CT_QUANTILE_LOWER) st = ct_floor(ctx, ranks, &t[9]);
    if (st == CT_OK && interp == CT_QUANTILE_HIGHER) st = ct_ceil(ctx, ranks, &t[9]);
    if (st == CT_OK && interp == CT_QUANTILE_NEAREST) st = ct_round(ctx, ranks, &t[9]);
    if (t[9]) ranks = t[9];
    if (st == CT_OK) st = ct_cast(ctx, ranks, CT_INT64, &t[10]); /* ranks_below */
    if (st == CT_OK) st = ct_gather(ctx, t[2], -1, t[10], &t[11]);
    ct_tensor *vals = t[11];
    if (st == CT_OK && (interp == CT_QUANTILE_LINEAR || interp == CT_QUANTILE_MIDPOINT)) {
        if (interp == CT_QUANTILE_MIDPOINT)
            st = ct_full_like(ctx, ranks, 0.5, &t[12]);
        else
            st = ct_sub(ctx, ranks, t[10], &t[12]); /* weights */
        if (st == CT_OK) st = ct_ceil(ctx, ranks, &t[13]);
        if (st == CT_OK) st = ct_cast(ctx, t[13], CT_INT64, &t[14]);
        if (st == CT_OK) st = ct_gather(ctx, t[2], -1, t[14], &t[15]);
        if (st == CT_OK) st = ct_lerp(ctx, t[11], t[15], t[12], &t[16]);
        vals = t[16];
    }
    /* q 0-d: drop the last dim; 1-d: q's dim moved to the front */
    if (st == CT_OK && q->ndim == 0)
        st = ct_tensor_squeeze(ctx, vals, -1, out);
    else if (st == CT_OK) {
        ct_tensor *u = NULL, *v = NULL;
        st = ct_tensor_unsqueeze(ctx, vals, 0, &u);
        if (st == CT_OK) st = ct_tensor_transpose(ctx, u, 0, -1, &v);
        if (st == CT_OK) st = ct_tensor_squeeze(ctx, v, -1, out);
        ct_tensor_release(u), ct_tensor_release(v);
    }
    ct__release_all(20, t);
    return st;
}
ct_status ct_quantile(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *q, int dim, bool keepdim,
                      ct_quantile_interp interpolation, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's last op: an in-place squeeze_ */
    ct_status st = ct__error_within(
        ctx, "quantile",
        ct__quantile(ctx, "quantile", a, q, dim, keepdim, interpolation, false, out));
    return ct__ag_named(ctx, st, out, mark, "SqueezeBackward3");
}
ct_status ct_nanquantile(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *q, int dim, bool keepdim,
                         ct_quantile_interp interpolation, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch's last op: an in-place squeeze_ */
    ct_status st = ct__error_within(
        ctx, "nanquantile",
        ct__quantile(ctx, "nanquantile", a, q, dim, keepdim, interpolation, true, out));
    return ct__ag_named(ctx, st, out, mark, "SqueezeBackward3");
}

/* ---- cumulative_trapezoid: (dx / 2 (y[:-1] + y[1:])).cumsum(dim), or with sample points x
 * ((y[:-1] + y[1:]) (x[1:] - x[:-1])).cumsum(dim) / 2 (torch's two formulas) ---- */
static ct_status ct__cumtrapz(ct_ctx *ctx, const ct_tensor *y, const ct_tensor *x, double dx,
                              int dim, ct_tensor **out) {
    const ct_tensor *ins[2] = {y, x};
    ct_status st = ct__check_args(ctx, "cumulative_trapezoid", x ? 2 : 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (y->dtype == CT_BOOL || (x && x->dtype == CT_BOOL))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "cumulative_trapezoid: received a bool input, but bool is not "
                             "supported (as torch)");
    int d = 0;
    if (y->ndim == 0 || !ct__wrap_dim(dim, y->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "cumulative_trapezoid: dim %d out of range for %d dims", dim, y->ndim);
    ct_tensor *t[10] = {NULL};
    const int64_t n = y->shape[d];
    st = ct_tensor_slice(ctx, y, d, 0, n - 1, 1, &t[0]);
    if (st == CT_OK) st = ct_tensor_slice(ctx, y, d, 1, n, 1, &t[1]);
    if (st == CT_OK) st = ct_add(ctx, t[0], t[1], &t[2]);
    if (st == CT_OK && !x) {
        /* torch's dx / 2. is a double: integer sums turn float32 before the product */
        if (!ct_dtype_is_floating(y->dtype) && !ct_dtype_is_complex(y->dtype)) {
            ct_tensor *f = NULL;
            st = ct_cast(ctx, t[2], CT_FLOAT32, &f);
            ct_tensor_release(t[2]);
            t[2] = f;
        }
        if (st == CT_OK) st = ct_mul_scalar(ctx, t[2], dx / 2., &t[3]);
        if (st == CT_OK) st = ct_cumsum(ctx, t[3], d, out);
    } else if (st == CT_OK) {
        /* x: 1-d along dim, or padded with leading ones to y's rank */
        int64_t sh[CT_MAX_DIMS];
        if (x->ndim == 1) {
            if (x->shape[0] != n)
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "cumulative_trapezoid: there must be one `x` value for each "
                                   "sample point");
            for (int i = 0; i < y->ndim; i++)
                sh[i] = i == d ? x->shape[0] : 1;
            if (st == CT_OK) st = ct_tensor_view(ctx, x, y->ndim, sh, &t[4]);
        } else if (x->ndim < y->ndim) {
            for (int i = 0; i < y->ndim; i++)
                sh[i] = i < y->ndim - x->ndim ? 1 : x->shape[i - (y->ndim - x->ndim)];
            st = ct_tensor_view(ctx, x, y->ndim, sh, &t[4]);
        } else {
            t[4] = ct_tensor_retain((ct_tensor *)x);
        }
        const int64_t xn = t[4] ? t[4]->shape[d < t[4]->ndim ? d : 0] : 0;
        if (st == CT_OK) st = ct_tensor_slice(ctx, t[4], d, 0, xn - 1, 1, &t[5]);
        if (st == CT_OK) st = ct_tensor_slice(ctx, t[4], d, 1, xn, 1, &t[6]);
        if (st == CT_OK) st = ct_sub(ctx, t[6], t[5], &t[7]);
        if (st == CT_OK) st = ct_mul(ctx, t[2], t[7], &t[8]);
        if (st == CT_OK) st = ct_cumsum(ctx, t[8], d, &t[9]);
        if (st == CT_OK) st = ct_div_scalar(ctx, t[9], 2., out);
    }
    ct__release_all(10, t);
    return st;
}
ct_status ct_cumulative_trapezoid(ct_ctx *ctx, const ct_tensor *y, double dx, int dim,
                                  ct_tensor **out) {
    return ct__error_within(ctx, "cumulative_trapezoid", ct__cumtrapz(ctx, y, NULL, dx, dim, out));
}
ct_status ct_cumulative_trapezoid_x(ct_ctx *ctx, const ct_tensor *y, const ct_tensor *x, int dim,
                                    ct_tensor **out) {
    if (!x)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "cumulative_trapezoid: x is NULL")
                   : CT_ERR_INVALID_ARG;
    uint64_t mark = ct__ag_mark(ctx); /* torch's C++ `/ 2.`: div by a Scalar */
    ct_status st =
        ct__error_within(ctx, "cumulative_trapezoid", ct__cumtrapz(ctx, y, x, 0, dim, out));
    return ct__ag_named(ctx, st, out, mark, "DivBackward1");
}

/* ---- linalg.vector_norm (ct_norm under torch's name) and linalg.matrix_norm ---- */
ct_status ct_linalg_vector_norm(ct_ctx *ctx, const ct_tensor *a, double ord, int n_dims,
                                const int *dims, bool keepdim, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.vector_norm",
                            ct_norm(ctx, a, ord, n_dims, dims, keepdim, out));
}
/* dims d0, d1 moved to the end (the others keep their order), and the inverse permutation */
static void ct__backshift(int nd, int d0, int d1, int *perm, int *inv) {
    int k = 0;
    for (int i = 0; i < nd; i++)
        if (i != d0 && i != d1) perm[k++] = i;
    perm[k++] = d0, perm[k++] = d1;
    for (int i = 0; i < nd; i++)
        inv[perm[i]] = i;
}
static ct_status ct__matrix_norm(ct_ctx *ctx, const ct_tensor *a, const char *ord, int dim0,
                                 int dim1, bool keepdim, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "linalg.matrix_norm", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ord) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.matrix_norm: ord is NULL");
    if (!ct_dtype_is_floating(a->dtype) && !ct_dtype_is_complex(a->dtype)) /* complex: real */
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "linalg.matrix_norm: expected a floating point or complex tensor, "
                             "got %s",
                             ct_dtype_name(a->dtype));
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "linalg.matrix_norm: the input tensor A must have at least 2 "
                             "dimensions");
    int d[2] = {0, 0};
    if (!ct__wrap_dim(dim0, a->ndim, &d[0]) || !ct__wrap_dim(dim1, a->ndim, &d[1]))
        return ct__set_error(ctx, CT_ERR_INDEX, "linalg.matrix_norm: dims %d, %d out of range",
                             dim0, dim1);
    if (d[0] == d[1])
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "linalg.matrix_norm: dims must be different, got (%d, %d)", dim0,
                             dim1);
    double p = 0;
    const bool fro = !strcmp(ord, "fro"), nuc = !strcmp(ord, "nuc");
    if (!fro && !nuc) {
        if (!strcmp(ord, "inf"))
            p = INFINITY;
        else if (!strcmp(ord, "-inf"))
            p = -INFINITY;
        else if (!strcmp(ord, "1"))
            p = 1;
        else if (!strcmp(ord, "-1"))
            p = -1;
        else if (!strcmp(ord, "2"))
            p = 2;
        else if (!strcmp(ord, "-2"))
            p = -2;
        else
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "linalg.matrix_norm: order %s not supported (fro, nuc, inf, "
                                 "-inf, 1, -1, 2, -2)",
                                 ord);
    }
    if (fro) return ct_norm(ctx, a, 2, 2, d, keepdim, out);
    ct_tensor *t[6] = {NULL};
    if (nuc || fabs(p) == 2) { /* singular values of the dims moved to the end */
        int perm[CT_MAX_DIMS], inv[CT_MAX_DIMS];
        ct__backshift(a->ndim, d[0], d[1], perm, inv);
        const int last = -1;
        st = ct_tensor_permute(ctx, a, perm, &t[0]);
        if (st == CT_OK) st = ct_linalg_svd(ctx, t[0], NULL, &t[1], NULL);
        if (st == CT_OK)
            st = nuc     ? ct_sum(ctx, t[1], 1, &last, keepdim, &t[2])
                 : p > 0 ? ct_amax(ctx, t[1], 1, &last, keepdim, &t[2])
                         : ct_amin(ctx, t[1], 1, &last, keepdim, &t[2]);
        if (st == CT_OK && keepdim) {
            st = ct_tensor_unsqueeze(ctx, t[2], -1, &t[3]);
            if (st == CT_OK) st = ct_tensor_permute(ctx, t[3], inv, out);
        } else if (st == CT_OK) {
            *out = t[2], t[2] = NULL;
        }
    } else { /* 1 / inf: the max (min) over one dim of the abs sums over the other */
        if (isinf(p)) {
            const int s = d[0];
            d[0] = d[1], d[1] = s;
        }
        if (!keepdim && d[0] < d[1]) d[1]--;
        st = ct_norm(ctx, a, 1, 1, &d[0], keepdim, &t[0]);
        if (st == CT_OK)
            st = p > 0 ? ct_amax(ctx, t[0], 1, &d[1], keepdim, out)
                       : ct_amin(ctx, t[0], 1, &d[1], keepdim, out);
    }
    ct__release_all(6, t);
    return st;
}
ct_status ct_linalg_matrix_norm(ct_ctx *ctx, const ct_tensor *a, const char *ord, int dim0,
                                int dim1, bool keepdim, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.matrix_norm",
                            ct__matrix_norm(ctx, a, ord, dim0, dim1, keepdim, out));
}

/* ---- linalg.pinv through the SVD: V diag(1 / s where s > tol) U^H, tol = max(atol, rtol
 * s_max); NaN atol / rtol is torch's None (both None: rtol = eps max(m, n)) ---- */
static ct_status ct__pinv(ct_ctx *ctx, const ct_tensor *a, double atol, double rtol,
                          ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "linalg.pinv", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const ct_dtype rdt = ct_dtype_to_real(a->dtype); /* complex: V diag(1 / s) U^H as well */
    if (rdt != CT_FLOAT32 && rdt != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "linalg.pinv: expected a float, double or complex tensor, got %s",
                             ct_dtype_name(a->dtype));
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "linalg.pinv: the input tensor must have at least 2 dimensions");
    const int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
    if (isnan(rtol)) /* torch: 0 only when an atol > 0 is given */
        rtol = isnan(atol) || atol <= 0
                   ? (rdt == CT_FLOAT32 ? 0x1p-23 : 0x1p-52) * (double)(m > n ? m : n)
                   : 0;
    if (isnan(atol)) atol = 0;
    if (atol < 0 || rtol < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.pinv: atol and rtol must be >= 0");
    ct_tensor *U = NULL, *S = NULL, *Vh = NULL, *t[10] = {NULL};
    st = ct_linalg_svd(ctx, a, &U, &S, &Vh);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, S, -1, 0, m && n ? 1 : 0, &t[0]); /* s_max */
    if (st == CT_OK) st = ct_mul_scalar(ctx, t[0], rtol, &t[1]);
    if (st == CT_OK) st = ct_tensor_full(ctx, S->dtype, 0, &m, atol, &t[2]);
    if (st == CT_OK) st = ct_maximum(ctx, t[2], t[1], &t[3]); /* tol */
    if (st == CT_OK) st = ct_gt(ctx, S, t[3], &t[4]);
    if (st == CT_OK) st = ct_reciprocal(ctx, S, &t[5]);
    if (st == CT_OK) st = ct_tensor_full(ctx, S->dtype, 0, &m, 0, &t[6]);
    if (st == CT_OK) st = ct_where(ctx, t[4], t[5], t[6], &t[7]); /* S_pseudoinv */
    ct_tensor *vh_t = NULL, *u_t = NULL, *sp = NULL, *vs = NULL;
    if (st == CT_OK) st = ct_adjoint(ctx, Vh, &vh_t); /* the transpose for real input */
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, t[7], -2, &sp);
    if (st == CT_OK) st = ct_mul(ctx, vh_t, sp, &vs);
    if (st == CT_OK) st = ct_adjoint(ctx, U, &u_t);
    if (st == CT_OK) st = ct_matmul(ctx, vs, u_t, out);
    ct_tensor_release(U), ct_tensor_release(S), ct_tensor_release(Vh);
    ct_tensor_release(vh_t), ct_tensor_release(u_t), ct_tensor_release(sp), ct_tensor_release(vs);
    ct__release_all(10, t);
    return st;
}
/* pinv's own gradient (torch's pinv_backward; the SVD's formula is NaN at repeated singular
 * values): with P = pinv(A), G the output's gradient and ^H the adjoint,
 *   -P^H G P^H + (I - A P) G^H P P^H + P^H P G^H (I - P A),
 * evaluated as K = G^H P: -(P K)^H + K P^H - A P K P^H + P^H P (G^H - K A). Under create_graph P
 * is recomputed from A with its graph (second derivatives through the SVD). */
typedef struct {
    ct_tensor *a, *p; /* the input, and the result detached */
    int64_t a_ver, p_ver;
    double atol, rtol;
} ct__pinv_user;
static void ct__pinv_free(void *up) {
    ct__pinv_user *u = up;
    if (!u) return;
    ct_tensor_release(u->a), ct_tensor_release(u->p);
    free(u);
}
static ct_status ct__pinv_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                   const bool *need, ct_tensor **gin) {
    const ct__pinv_user *u = user;
    if (!need[0]) return CT_OK;
    ct_status st = ct__ag_saved_ok(ctx, u->a, "input", 0, "LinalgPinvBackward0", u->a_ver);
    CT__DO(st, ct__ag_saved_ok(ctx, u->p, "result", 0, "LinalgPinvBackward0", u->p_ver));
    ct_tensor *t[16] = {NULL}, *p = NULL;
    if (st == CT_OK && ct_is_grad_enabled(ctx))
        st = ct__pinv(ctx, u->a, u->atol, u->rtol, &p);
    else if (st == CT_OK)
        p = ct_tensor_retain(u->p);
    const ct_tensor *a = u->a;
    CT__DO(st, ct_adjoint(ctx, gout[0], &t[0]));   /* G^H */
    CT__DO(st, ct_adjoint(ctx, p, &t[1]));         /* P^H */
    CT__DO(st, ct_matmul(ctx, t[0], p, &t[2]));    /* K */
    CT__DO(st, ct_matmul(ctx, p, t[2], &t[3]));    /* P K */
    CT__DO(st, ct_adjoint(ctx, t[3], &t[4]));      /* (P K)^H */
    CT__DO(st, ct_matmul(ctx, t[2], t[1], &t[5])); /* K P^H */
    CT__DO(st, ct_matmul(ctx, a, p, &t[6]));       /* A P */
    CT__DO(st, ct_matmul(ctx, t[6], t[5], &t[7])); /* A P K P^H */
    CT__DO(st, ct_matmul(ctx, t[1], p, &t[8]));    /* P^H P */
    CT__DO(st, ct_matmul(ctx, t[2], a, &t[9]));    /* K A */
    CT__DO(st, ct_sub(ctx, t[0], t[9], &t[10]));
    CT__DO(st, ct_matmul(ctx, t[8], t[10], &t[11]));
    CT__DO(st, ct_sub(ctx, t[5], t[4], &t[12]));
    CT__DO(st, ct_sub(ctx, t[12], t[7], &t[13]));
    CT__DO(st, ct_add(ctx, t[13], t[11], &gin[0]));
    ct_tensor_release(p);
    ct__release_all(16, t);
    return st;
}
static const ct__ag_custom CT__PINV_FN = {"LinalgPinvBackward", ct__pinv_backward, ct__pinv_free,
                                          true};
ct_status ct_linalg_pinv(ct_ctx *ctx, const ct_tensor *a, double atol, double rtol,
                         ct_tensor **out) {
    if (!ctx || !out || !ct__tensor_live(a) || !ct__ag_wants(ctx, 1, &a))
        return ct__error_within(ctx, "linalg.pinv", ct__pinv(ctx, a, atol, rtol, out));
    ct__pinv_user *u = calloc(1, sizeof *u);
    if (!u) return ct__set_error(ctx, CT_ERR_OOM, "linalg.pinv: out of memory");
    const bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = ct__pinv(ctx, a, atol, rtol, out);
    ct_set_grad_enabled(ctx, was);
    CT__DO(st, ct_tensor_detach(ctx, *out, &u->p));
    if (st != CT_OK) {
        ct__pinv_free(u);
        if (*out) ct_tensor_release(*out), *out = NULL;
        return ct__error_within(ctx, "linalg.pinv", st);
    }
    u->a = ct_tensor_retain((ct_tensor *)a);
    u->a_ver = a->storage->version, u->p_ver = u->p->storage->version;
    u->atol = atol, u->rtol = rtol;
    st = ct__ag_record_custom(ctx, &CT__PINV_FN, u, a, out);
    if (st == CT_OK) ct__ag_named(ctx, st, out, 0, "LinalgPinvBackward0");
    return ct__error_within(ctx, "linalg.pinv", st);
}

/* ---- linalg.multi_dot: a chain of mm in torch's order (2: one mm; 3: the cheaper of (AB)C and
 * A(BC), (AB)C on a tie; more: the matrix-chain dynamic program); a 1-d first (last) operand is
 * a row (column) and its dim is dropped from the result ---- */
static ct_status ct__chain(ct_ctx *ctx, ct_tensor *const *m, const int *split, int n, int i, int j,
                           ct_tensor **out) {
    if (i == j) {
        *out = ct_tensor_retain(m[i]);
        return CT_OK;
    }
    const int k = split[i * n + j];
    ct_tensor *l = NULL, *r = NULL;
    ct_status st = ct__chain(ctx, m, split, n, i, k, &l);
    if (st == CT_OK) st = ct__chain(ctx, m, split, n, k + 1, j, &r);
    if (st == CT_OK) st = ct_matmul(ctx, l, r, out);
    ct_tensor_release(l), ct_tensor_release(r);
    return st;
}
static ct_status ct__multi_dot(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    ct_status st = ct__list_args(ctx, "linalg.multi_dot", n, ts, out);
    if (st != CT_OK) return st;
    if (n < 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "linalg.multi_dot: expected at least 2 tensors but got %d", n);
    for (int i = 0; i < n; i++) {
        const bool end = i == 0 || i == n - 1;
        if (ts[i]->ndim != 2 && !(end && ts[i]->ndim == 1))
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "linalg.multi_dot: tensor %d must be 2D%s but got %dD", i,
                                 end ? " or 1D" : "", ts[i]->ndim);
        if (ts[i]->dtype != ts[0]->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "linalg.multi_dot: all tensors must have the same dtype, got %s "
                                 "and %s",
                                 ct_dtype_name(ts[0]->dtype), ct_dtype_name(ts[i]->dtype));
    }
    ct_tensor *m[CT__LIST_MAX] = {NULL};
    for (int i = 0; i < n && st == CT_OK; i++) {
        if (ts[i]->ndim == 1)
            st = ct_tensor_unsqueeze(ctx, ts[i], i == 0 ? 0 : -1, &m[i]);
        else
            m[i] = ct_tensor_retain((ct_tensor *)ts[i]);
    }
    for (int i = 0; i + 1 < n && st == CT_OK; i++)
        if (m[i]->shape[1] != m[i + 1]->shape[0])
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "linalg.multi_dot: tensors %d and %d with shapes (%lld, %lld) and "
                               "(%lld, %lld) cannot be multiplied",
                               i, i + 1, (long long)m[i]->shape[0], (long long)m[i]->shape[1],
                               (long long)m[i + 1]->shape[0], (long long)m[i + 1]->shape[1]);
    ct_tensor *r = NULL;
    if (st == CT_OK && n == 2) {
        st = ct_matmul(ctx, m[0], m[1], &r);
    } else if (st == CT_OK && n == 3) {
        const double a = (double)m[0]->shape[0], b = (double)m[1]->shape[0];
        const double c = (double)m[2]->shape[0], dd = (double)m[2]->shape[1];
        const double cost1 = (a * c) * (b + dd), cost2 = (b * dd) * (a + c);
        ct_tensor *p = NULL;
        if (cost1 > cost2) {
            st = ct_matmul(ctx, m[1], m[2], &p);
            if (st == CT_OK) st = ct_matmul(ctx, m[0], p, &r);
        } else {
            st = ct_matmul(ctx, m[0], m[1], &p);
            if (st == CT_OK) st = ct_matmul(ctx, p, m[2], &r);
        }
        ct_tensor_release(p);
    } else if (st == CT_OK) { /* the matrix-chain order (CLRS; the first minimum wins) */
        double cost[CT__LIST_MAX * CT__LIST_MAX];
        int split[CT__LIST_MAX * CT__LIST_MAX];
        double pdim[CT__LIST_MAX + 1];
        for (int i = 0; i < n; i++)
            pdim[i] = (double)m[i]->shape[0];
        pdim[n] = (double)m[n - 1]->shape[1];
        for (int i = 0; i < n; i++)
            cost[i * n + i] = 0;
        for (int l = 1; l < n; l++)
            for (int i = 0; i + l < n; i++) {
                const int j = i + l;
                cost[i * n + j] = INFINITY;
                for (int k = i; k < j; k++) {
                    const double q = cost[i * n + k] + cost[(k + 1) * n + j] +
                                     pdim[i] * pdim[k + 1] * pdim[j + 1];
                    if (q < cost[i * n + j]) cost[i * n + j] = q, split[i * n + j] = k;
                }
            }
        st = ct__chain(ctx, m, split, n, 0, n - 1, &r);
    }
    const bool row = ts[0]->ndim == 1, col = ts[n - 1]->ndim == 1;
    if (st == CT_OK && (row || col)) {
        int64_t sh[2];
        int nd = 0;
        if (!row) sh[nd++] = r->shape[0];
        if (!col) sh[nd++] = r->shape[1];
        st = ct_tensor_reshape(ctx, r, nd, sh, out);
    } else if (st == CT_OK) {
        *out = ct_tensor_retain(r);
    }
    ct_tensor_release(r);
    ct__release_all(n, m);
    return st;
}
ct_status ct_linalg_multi_dot(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx); /* torch reshapes the chain's product last: a view */
    ct_status st = ct__error_within(ctx, "linalg.multi_dot", ct__multi_dot(ctx, n, ts, out));
    return ct__ag_named(ctx, st, out, mark, "ViewBackward0");
}

/* ---- cdist: p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M); p = 2
 * with more than 25 rows on either side takes torch's matmul form (|a|^2 - 2 a.b + |b|^2,
 * clamped at 0, square root), the rest the norm of the differences ---- */
static ct_status ct__cdist(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, double p,
                           ct_tensor **out) {
    const ct_tensor *ins[2] = {x1, x2};
    ct_status st = ct__check_args(ctx, "cdist", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct_dtype_is_floating(x1->dtype) || x1->dtype != x2->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "cdist: only supports floating-point dtypes of one kind, got %s and "
                             "%s (as torch)",
                             ct_dtype_name(x1->dtype), ct_dtype_name(x2->dtype));
    if (x1->ndim < 2 || x2->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "cdist: inputs must have at least 2 dimensions");
    if (x1->shape[x1->ndim - 1] != x2->shape[x2->ndim - 1])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "cdist: X1 and X2 must have the same number of columns");
    if (!(p >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "cdist: p value must be >= 0, got %g", p);
    const int64_t P = x1->shape[x1->ndim - 2], R = x2->shape[x2->ndim - 2];
    ct_tensor *t[12] = {NULL};
    const int last = -1;
    if (p == 2 && (P > 25 || R > 25)) {
        st = ct_pow(ctx, x1, 2, &t[0]);
        if (st == CT_OK) st = ct_sum(ctx, t[0], 1, &last, true, &t[1]); /* x1_norm */
        if (st == CT_OK) st = ct_ones_like(ctx, t[1], &t[2]);
        if (st == CT_OK) st = ct_pow(ctx, x2, 2, &t[3]);
        if (st == CT_OK) st = ct_sum(ctx, t[3], 1, &last, true, &t[4]); /* x2_norm */
        if (st == CT_OK) st = ct_ones_like(ctx, t[4], &t[5]);
        if (st == CT_OK) st = ct_mul_scalar(ctx, x1, -2, &t[6]);
        const ct_tensor *l1[3] = {t[6], t[1], t[2]}, *l2[3] = {x2, t[5], t[4]};
        if (st == CT_OK) st = ct_cat(ctx, 3, l1, -1, &t[7]);
        if (st == CT_OK) st = ct_cat(ctx, 3, l2, -1, &t[8]);
        if (st == CT_OK) st = ct_tensor_transpose(ctx, t[8], -2, -1, &t[9]);
        if (st == CT_OK) st = ct_matmul(ctx, t[7], t[9], &t[10]);
        const double zero = 0;
        if (st == CT_OK) st = ct_clamp(ctx, t[10], &zero, NULL, &t[11]);
        if (st == CT_OK) st = ct_sqrt(ctx, t[11], out);
    } else {
        st = ct_tensor_unsqueeze(ctx, x1, -2, &t[0]);                  /* (..., P, 1, M) */
        if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, x2, -3, &t[1]); /* (..., 1, R, M) */
        if (st == CT_OK) st = ct_sub(ctx, t[0], t[1], &t[2]);
        /* torch's cdist is 0 over no columns for every p (inf included) */
        if (st == CT_OK)
            st = ct_norm(ctx, t[2], x1->shape[x1->ndim - 1] == 0 ? 1 : p, 1, &last, false, out);
    }
    ct__release_all(12, t);
    return st;
}
ct_status ct_cdist(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, double p,
                   ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "cdist", ct__cdist(ctx, x1, x2, p, out));
    /* the direct form is torch's native _cdist_forward (CdistBackward0); the matmul form ends
     * with torch's reshape of the result (a view) */
    const bool mm = p == 2 && x1 && x2 && x1->ndim >= 2 && x2->ndim >= 2 &&
                    (x1->shape[x1->ndim - 2] > 25 || x2->shape[x2->ndim - 2] > 25);
    return ct__ag_named(ctx, st, out, mark, mm ? "ViewBackward0" : "CdistBackward0");
}

/* ---- mode: the most frequent value along dim (the smallest among ties) and the index of its
 * last occurrence (torch's sort-and-scan, whose std::sort keeps equal values in order on the
 * slices of up to 16 elements; NaN values never equal each other). Computed on the host; the
 * values are gathered at the indices, so the gradient reaches those elements (ModeBackward0) */
typedef struct {
    double v;
    int64_t i, k; /* k: an exact key for integers (v may round above 2^53) */
} ct__mode_el;
static bool ct__mode_int; /* set before qsort: compare the exact integer keys */
static int ct__mode_cmp(const void *pa, const void *pb) {
    const ct__mode_el *a = pa, *b = pb;
    if (ct__mode_int) {
        if (a->k != b->k) return a->k < b->k ? -1 : 1;
    } else {
        const bool na = a->v != a->v, nb = b->v != b->v;
        if (na != nb) return na ? 1 : -1; /* NaN last */
        if (!na && a->v != b->v) return a->v < b->v ? -1 : 1;
    }
    return a->i < b->i ? -1 : a->i > b->i; /* stable */
}
static bool ct__mode_eq(const ct__mode_el *a, const ct__mode_el *b, bool integral) {
    return integral ? a->k == b->k : a->v == b->v; /* NaN != NaN */
}
static ct_status ct__mode(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim,
                          ct_tensor **values, ct_tensor **indices) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!values || !indices)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mode: values or indices is NULL");
    *values = *indices = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "mode", 1, ins, values);
    if (st != CT_OK) return st;
    if (!ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "mode: dtype %s is not supported",
                             ct_dtype_name(a->dtype));
    int d = 0;
    if (!ct__wrap_dim(dim, a->ndim ? a->ndim : 1, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "mode: dim %d out of range for %d dims", dim,
                             a->ndim);
    const int64_t n = a->ndim ? a->shape[d] : 1;
    if (n == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "mode: expected reduction dim %d to have non-zero size", dim);
    /* the slices as rows: dim moved last, made contiguous, read as f64 (floats) or int64 */
    const bool integral = !ct_dtype_is_floating(a->dtype);
    ct_tensor *t[6] = {NULL};
    if (a->ndim == 0)
        st = ct_tensor_reshape(ctx, a, 1, &n, &t[0]);
    else
        st = ct_movedim(ctx, a, 1, &d, (const int[]){-1}, &t[0]);
    if (st == CT_OK) st = ct_cast(ctx, t[0], integral ? CT_INT64 : CT_FLOAT64, &t[1]);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, t[1], &t[2]);
    const int64_t total = t[2] ? ct_tensor_numel(t[2]) : 0, rows = total / n;
    void *buf = NULL;
    ct__mode_el *el = NULL;
    int64_t *idx = NULL;
    if (st == CT_OK) {
        buf = malloc(sizeof(double) * (size_t)total);
        el = malloc(sizeof(ct__mode_el) * (size_t)n);
        idx = malloc(sizeof(int64_t) * (size_t)rows);
        if (!buf || !el || !idx)
            st = ct__set_error(ctx, CT_ERR_OOM, "mode: out of memory for %lld elements",
                               (long long)total);
    }
    if (st == CT_OK) st = ct_tensor_to_host(t[2], buf, sizeof(double) * (size_t)total);
    for (int64_t r = 0; st == CT_OK && r < rows; r++) {
        for (int64_t j = 0; j < n; j++) {
            el[j].i = j;
            el[j].k = integral ? ((const int64_t *)buf)[r * n + j] : 0;
            el[j].v = integral ? (double)el[j].k : ((const double *)buf)[r * n + j];
        }
        ct__mode_int = integral;
        qsort(el, (size_t)n, sizeof *el, ct__mode_cmp);
        int64_t best = 0, run = 0, at = 0;
        for (int64_t j = 0; j < n; j++) {
            run++;
            if (j == n - 1 || !ct__mode_eq(&el[j], &el[j + 1], integral)) {
                if (run > best) best = run, at = el[j].i;
                run = 0;
            }
        }
        idx[r] = at;
    }
    /* indices shaped as the result (keepdim: the dim kept as 1), values gathered at them */
    int64_t ish[CT_MAX_DIMS];
    const int nd = a->ndim ? a->ndim : 1;
    for (int i = 0; i < nd; i++)
        ish[i] = a->ndim ? (i == d ? 1 : a->shape[i]) : 1;
    if (st == CT_OK) st = ct_tensor_from_host(ctx, idx, CT_INT64, nd, ish, &t[3]);
    if (st == CT_OK) st = ct_gather(ctx, a->ndim ? a : t[0], a->ndim ? d : 0, t[3], &t[4]);
    if (st == CT_OK && (keepdim || a->ndim == 0)) {
        const int64_t none[1] = {1};
        if (a->ndim == 0) {
            st = ct_tensor_reshape(ctx, t[4], 0, none, values);
            if (st == CT_OK) st = ct_tensor_reshape(ctx, t[3], 0, none, indices);
        } else {
            *values = ct_tensor_retain(t[4]), *indices = ct_tensor_retain(t[3]);
        }
    } else if (st == CT_OK) {
        st = ct_tensor_squeeze(ctx, t[4], d, values);
        if (st == CT_OK) st = ct_tensor_squeeze(ctx, t[3], d, indices);
    }
    if (st != CT_OK) {
        ct_tensor_release(*values), ct_tensor_release(*indices);
        *values = *indices = NULL;
    }
    free(buf), free(el), free(idx);
    ct__release_all(6, t);
    return st;
}
ct_status ct_mode(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **values,
                  ct_tensor **indices) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "mode", ct__mode(ctx, a, dim, keepdim, values, indices));
    return ct__ag_named(ctx, st, values, mark, "ModeBackward0");
}

/* ---- histc: counts of the elements in `bins` equal bins over [min, max] (min == max: the data's
 * range, widened by 1 on each side when it is one value); torch's histc bin: the linear position
 * (x - left) bins / (right - left) in the dtype, between linspace edges in the dtype, without
 * histogram's local search (torch's LINEAR_INTERPOLATION for histc); the right edge counts in the
 * last bin; values outside are skipped, NaN too (torch 1.13's range check lets NaN through into
 * the first bin). Float32 / float64 / bfloat16 (each step rounded to bfloat16 as torch's c10
 * arithmetic does), computed on the host ---- */
/* x rounded to float32, or to bfloat16 when bf (c10's arithmetic rounds each step back) */
static float ct__hist_round(bool bf, double x) {
    return bf ? ct_bf16_to_f32(ct_f32_to_bf16((float)x)) : (float)x;
}
static ct_status ct__histc(ct_ctx *ctx, const ct_tensor *a, int64_t bins, double lo, double hi,
                           ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "histc", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->dtype != CT_FLOAT32 && a->dtype != CT_FLOAT64 && a->dtype != CT_BFLOAT16)
        return ct__set_error(ctx, CT_ERR_DTYPE, "histc: not implemented for %s (as torch)",
                             ct_dtype_name(a->dtype));
    if (bins <= 0 || bins > (INT64_C(1) << 30))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "histc: bins must be > 0 (at most 2^30)");
    const bool bf = a->dtype == CT_BFLOAT16, f32 = a->dtype == CT_FLOAT32 || bf;
    const int64_t n = ct_tensor_numel(a);
    double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    double *h = calloc((size_t)bins, sizeof(double));
    ct_tensor *c = NULL;
    if (!v || !h) st = ct__set_error(ctx, CT_ERR_OOM, "histc: out of memory");
    if (st == CT_OK) st = ct_cast(ctx, a, CT_FLOAT64, &c);
    if (st == CT_OK) st = ct_tensor_to_host(c, v, sizeof(double) * (size_t)n);
    if (st == CT_OK && lo == hi && n > 0) { /* the data's range */
        lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < n; i++)
            lo = v[i] < lo || v[i] != v[i] ? v[i] : lo, hi = v[i] > hi || v[i] != v[i] ? v[i] : hi;
    }
    if (st == CT_OK && lo == hi) lo -= 1, hi += 1;
    if (st == CT_OK && f32) lo = ct__hist_round(bf, lo), hi = ct__hist_round(bf, hi);
    if (st == CT_OK && !(isfinite(lo) && isfinite(hi)))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "histc: range of [%g, %g] is not finite", lo,
                           hi);
    if (st == CT_OK && lo > hi)
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "histc: max must be larger than min");
    if (st == CT_OK) { /* the outer edges of torch's linspace are lo and hi themselves */
        const double left = lo, right = hi;
        for (int64_t i = 0; i < n; i++) {
            const double x = v[i];
            if (!(x >= left && x <= right)) continue;
            int64_t pos = f32 ? (int64_t)ct__hist_round(
                                    bf, ct__hist_round(bf, ct__hist_round(bf, x - left) *
                                                               ct__hist_round(bf, (double)bins)) /
                                            ct__hist_round(bf, right - left))
                              : (int64_t)((x - left) * (double)bins / (right - left));
            if (pos == bins) pos--; /* the right edge counts in the last bin */
            if (pos >= 0 && pos < bins) h[pos] += 1;
        }
    }
    if (st == CT_OK) {
        ct_tensor *hd = NULL;
        st = ct_tensor_from_host(ctx, h, CT_FLOAT64, 1, &bins, &hd);
        if (st == CT_OK) st = ct_cast(ctx, hd, a->dtype, out);
        ct_tensor_release(hd);
    }
    ct_tensor_release(c);
    free(v), free(h);
    return st;
}
ct_status ct_histc(ct_ctx *ctx, const ct_tensor *a, int64_t bins, double min, double max,
                   ct_tensor **out) {
    return ct__error_within(ctx, "histc", ct__histc(ctx, a, bins, min, max, out));
}

/* ---- index_copy / index_fill / masked_scatter (torch's results and node names) ---- */
/* index (0-d or 1-d int64) viewed along dim of an nd-dim tensor: shape 1 except n at dim */
static ct_status ct__index_along(ct_ctx *ctx, const char *op, const ct_tensor *index, int nd, int d,
                                 ct_tensor **out) {
    if (index->dtype != CT_INT64 || index->ndim > 1)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: index must be a 0-d or 1-d int64 tensor", op);
    int64_t sh[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        sh[i] = i == d ? ct_tensor_numel(index) : 1;
    return ct_tensor_reshape(ctx, index, nd, sh, out);
}
static ct_status ct__index_copy(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                const ct_tensor *source, ct_tensor **out) {
    const ct_tensor *ins[3] = {t, index, source};
    ct_status st = ct__check_args(ctx, "index_copy", 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (source->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "index_copy: self and source expected to have the same dtype, but got "
                             "%s and %s (as torch)",
                             ct_dtype_name(t->dtype), ct_dtype_name(source->dtype));
    const int nd = t->ndim ? t->ndim : 1;
    int d = 0;
    if (!ct__wrap_dim(dim, nd, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "index_copy: dim %d out of range for %d dims", dim,
                             t->ndim);
    const int64_t n = ct_tensor_numel(index);
    bool fits = (source->ndim ? source->ndim : 1) == nd;
    for (int i = 0; fits && i < source->ndim; i++)
        fits = source->shape[i] == (i == d ? n : t->shape[i]);
    if (!fits || (source->ndim == 0 && n != 1))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "index_copy: source must have self's shape with %lld along dim %d",
                             (long long)n, d);
    ct_tensor *x[5] = {NULL};
    int64_t ssh[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        ssh[i] = t->ndim ? (i == d ? n : t->shape[i]) : 1;
    st = ct__index_along(ctx, "index_copy", index, nd, d, &x[0]);
    if (st == CT_OK) st = ct_tensor_expand(ctx, x[0], nd, ssh, &x[1]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t, nd, t->ndim ? t->shape : ssh, &x[2]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, source, nd, ssh, &x[3]);
    if (st == CT_OK) st = ct_scatter(ctx, x[2], d, x[1], x[3], &x[4]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, x[4], t->ndim, t->shape, out);
    ct__release_all(5, x);
    return st;
}
ct_status ct_index_copy(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                        const ct_tensor *source, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && ct__tensor_live(index))
        return ct__cx_index_op(ctx, 4, t, dim, index, source, 0, out);
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "index_copy", ct__index_copy(ctx, t, dim, index, source, out));
    return ct__ag_named(ctx, st, out, mark, "IndexCopyBackward0");
}
static ct_status ct__index_fill(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                double value, ct_tensor **out) {
    const ct_tensor *ins[2] = {t, index};
    ct_status st = ct__check_args(ctx, "index_fill", 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const int nd = t->ndim ? t->ndim : 1;
    int d = 0;
    if (!ct__wrap_dim(dim, nd, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "index_fill: dim %d out of range for %d dims", dim,
                             t->ndim);
    const int64_t size = t->ndim ? t->shape[d] : 1, n = ct_tensor_numel(index);
    /* a value for an integer tensor is checked and truncated by masked_fill below (c10's
     * conversion: uint8 refuses -1.5, wraps -1) */
    if (t->dtype == CT_BOOL) value = value != 0;
    ct_tensor *x[6] = {NULL};
    int64_t msh[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        msh[i] = i == d ? size : 1;
    st = ct__index_along(ctx, "index_fill", index, 1, 0, &x[0]);
    if (st == CT_OK && n > 0) { /* -size <= i < 0 counts from the end (torch); below: an error */
        ct_tensor *neg = NULL, *sh = NULL, *w = NULL;
        st = ct_lt_scalar(ctx, x[0], 0, &neg);
        CT__DO(st, ct_add_scalar(ctx, x[0], (double)size, &sh));
        CT__DO(st, ct_where(ctx, neg, sh, x[0], &w));
        ct_tensor_release(neg), ct_tensor_release(sh), ct_tensor_release(x[0]);
        x[0] = w;
    }
    if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_BOOL, 1, &size, &x[1]);
    if (st == CT_OK) st = ct_tensor_ones(ctx, CT_BOOL, 1, &n, &x[2]);
    if (st == CT_OK) st = ct_scatter(ctx, x[1], 0, x[0], x[2], &x[3]); /* the rows hit */
    if (st == CT_OK) st = ct_tensor_reshape(ctx, x[3], t->ndim ? nd : 0, msh, &x[4]);
    if (st == CT_OK) st = ct_masked_fill(ctx, t, x[4], value, out);
    ct__release_all(6, x);
    return st;
}
ct_status ct_index_fill(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                        double value, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "index_fill", ct__index_fill(ctx, t, dim, index, value, out));
    return ct__ag_named(ctx, st, out, mark, "IndexFillBackward0");
}
static ct_status ct__masked_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                                    const ct_tensor *source, ct_tensor **out) {
    const ct_tensor *ins[3] = {t, mask, source};
    ct_status st = ct__check_args(ctx, "masked_scatter", 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (mask->dtype != CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "masked_scatter: mask must be bool, got %s",
                             ct_dtype_name(mask->dtype));
    if (source->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "masked_scatter: self and source expected to have the same dtype, "
                             "got %s and %s (as torch)",
                             ct_dtype_name(t->dtype), ct_dtype_name(source->dtype));
    int nd = 0;
    int64_t sh[CT_MAX_DIMS];
    const ct_tensor *tm[2] = {t, mask};
    if ((st = ct__broadcast_shapes(ctx, "masked_scatter", 2, tm, &nd, sh)) != CT_OK) return st;
    ct_tensor *x[10] = {NULL};
    double count = 0;
    st = ct_tensor_expand(ctx, mask, nd, sh, &x[0]);
    if (st == CT_OK) st = ct_flatten(ctx, x[0], 0, -1, &x[1]);
    if (st == CT_OK) st = ct_cast(ctx, x[1], CT_INT64, &x[2]);
    if (st == CT_OK) st = ct_cumsum(ctx, x[2], 0, &x[3]); /* 1-based source positions */
    if (st == CT_OK) st = ct_sum(ctx, x[2], 0, NULL, false, &x[4]);
    if (st == CT_OK) st = ct_tensor_item(x[4], &count); /* a host read, as torch's check */
    if (st == CT_OK && count > (double)ct_tensor_numel(source))
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "masked_scatter: number of elements of source < number of ones in "
                           "mask (as torch)");
    if (st == CT_OK && count == 0) { /* nothing to take: t broadcast, copied */
        ct_tensor *e = NULL;
        st = ct_tensor_expand(ctx, t, nd, sh, &e);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, e, out);
        ct_tensor_release(e);
    } else if (st == CT_OK) {
        const double zero = 0;
        st = ct_sub_scalar(ctx, x[3], 1, &x[5]);
        if (st == CT_OK) st = ct_clamp(ctx, x[5], &zero, NULL, &x[6]); /* 0-based, >= 0 */
        if (st == CT_OK) st = ct_flatten(ctx, source, 0, -1, &x[7]);
        if (st == CT_OK) st = ct_gather(ctx, x[7], 0, x[6], &x[8]);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, x[8], nd, sh, &x[9]);
        if (st == CT_OK) st = ct_where(ctx, x[0], x[9], t, out);
    }
    ct__release_all(10, x);
    return st;
}
ct_status ct_masked_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                            const ct_tensor *source, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(mask) && mask->dtype == CT_UINT8) {
        ct_tensor *b_ = NULL; /* torch's deprecated ByteTensor mask: as bool */
        ct_status st_ = ct__byte_mask(ctx, mask, &b_);
        if (st_ == CT_OK) st_ = ct_masked_scatter(ctx, t, b_, source, out);
        ct_tensor_release(b_);
        return st_;
    }
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "masked_scatter", ct__masked_scatter(ctx, t, mask, source, out));
    return ct__ag_named(ctx, st, out, mark, "MaskedScatterBackward0");
}

/* ---- float_power: both operands in float64, then pow (torch.float_power) ---- */
ct_status ct_float_power(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    if (out) *out = NULL;
    ct_tensor *x = NULL, *y = NULL;
    /* complex128 when either operand is complex (torch), float64 otherwise */
    const bool cx = ct__tensor_live(a) && ct__tensor_live(b) &&
                    (ct_dtype_is_complex(a->dtype) || ct_dtype_is_complex(b->dtype));
    const ct_dtype wide = cx ? CT_COMPLEX128 : CT_FLOAT64;
    ct_status st = ct_cast(ctx, a, wide, &x);
    if (st == CT_OK) st = ct_cast(ctx, b, wide, &y);
    if (st == CT_OK) st = ct_pow_tensor(ctx, x, y, out);
    ct_tensor_release(x), ct_tensor_release(y);
    return ctx ? ct__error_within(ctx, "float_power", st) : st;
}
ct_status ct_float_power_scalar(ct_ctx *ctx, const ct_tensor *a, double exponent, ct_tensor **out) {
    if (out) *out = NULL;
    ct_tensor *x = NULL;
    const bool cx = ct__tensor_live(a) && ct_dtype_is_complex(a->dtype);
    ct_status st = ct_cast(ctx, a, cx ? CT_COMPLEX128 : CT_FLOAT64, &x);
    if (st == CT_OK) st = ct_pow(ctx, x, exponent, out);
    ct_tensor_release(x);
    return ctx ? ct__error_within(ctx, "float_power", st) : st;
}

/* ---- argwhere (torch.nonzero's (N, ndim) indices) and ravel (flatten to 1-d) ---- */
ct_status ct_argwhere(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__error_within(ctx, "argwhere", ct_nonzero(ctx, t, out));
}
ct_status ct_ravel(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__error_within(ctx, "ravel", ct_flatten(ctx, t, 0, -1, out));
}

/* ---- torch's aliases and small view helpers: swapaxes / swapdims (transpose), flipud / fliplr
 * (flip of dim 0 / 1, at least 1 / 2 dims), msort (sorted along dim 0), clip (clamp), absolute
 * (abs), negative (neg), fix (trunc), true_divide (div) ---- */
ct_status ct_swapaxes(ct_ctx *ctx, const ct_tensor *t, int axis0, int axis1, ct_tensor **out) {
    return ct__error_within(ctx, "swapaxes", ct_tensor_transpose(ctx, t, axis0, axis1, out));
}
ct_status ct_swapdims(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1, ct_tensor **out) {
    return ct__error_within(ctx, "swapdims", ct_tensor_transpose(ctx, t, dim0, dim1, out));
}
static ct_status ct__flip_at(ct_ctx *ctx, const char *op, const ct_tensor *t, int dim,
                             ct_tensor **out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (t->ndim < dim + 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must be >= %d-d (as torch)", op,
                             dim + 1);
    return ct__error_within(ctx, op, ct_flip(ctx, t, 1, &dim, out));
}
ct_status ct_flipud(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__flip_at(ctx, "flipud", t, 0, out);
}
ct_status ct_fliplr(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__flip_at(ctx, "fliplr", t, 1, out);
}
ct_status ct_msort(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    if (out) *out = NULL;
    if (!out)
        return ctx ? ct__set_error(ctx, CT_ERR_INVALID_ARG, "msort: out is NULL")
                   : CT_ERR_INVALID_ARG;
    ct_tensor *idx = NULL;
    ct_status st = ct_sort(ctx, t, 0, false, false, out, &idx);
    ct_tensor_release(idx);
    return ctx ? ct__error_within(ctx, "msort", st) : st;
}
ct_status ct_clip(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                  ct_tensor **out) {
    return ct__error_within(ctx, "clip", ct_clamp(ctx, a, lo, hi, out));
}
ct_status ct_absolute(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "absolute", ct_abs(ctx, a, out));
}
ct_status ct_negative(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "negative", ct_neg(ctx, a, out));
}
ct_status ct_fix(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "fix", ct_trunc(ctx, a, out));
}
ct_status ct_true_divide(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__error_within(ctx, "true_divide", ct_div(ctx, a, b, out));
}

/* More of torch's top-level names that forward to ctorch ops: torch.max / min over everything,
 * the dtype predicates (is_floating_point, is_complex, is_signed, is_nonzero, is_same_size,
 * promote_types), the complex helpers on real tensors (angle, real, imag, conj, conj_physical,
 * resolve_conj, resolve_neg), frobenius_norm / nuclear_norm, torch.linalg's norm, vander, cross,
 * diagonal and matmul, and the older torch.* linear algebra (svd, qr, cholesky, slogdet,
 * triangular_solve, lu_solve, matrix_power, matrix_exp, orgqr). docs/everyday.md ("More of torch's
 * names") lists them with torch's argument orders. */
#include "ops/complex_impl.h"
#include "autograd/autograd_impl.h"
#include "ctorch/linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- torch.max(t) / torch.min(t): the extreme of every element, 0-d; the gradient is shared
 * evenly among the elements equal to it, or among the NaNs when it is NaN (torch's
 * evenly_distribute_backward, MaxBackward1) ---- */
typedef struct ct__ext_user {
    ct_tensor *a, *r;
    int64_t a_ver;
} ct__ext_user;
static void ct__ext_free(void *p) {
    ct__ext_user *u = p;
    if (!u) return;
    ct_tensor_release(u->a), ct_tensor_release(u->r);
    free(u);
}
static ct_status ct__ext_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    const ct__ext_user *u = user;
    if (!need[0]) return CT_OK;
    ct_status st = ct__ag_saved_ok(ctx, u->a, "input", 0, "MaxBackward1", u->a_ver);
    ct_tensor *t[8] = {NULL};
    CT__DO(st, ct_isnan(ctx, u->r, &t[0]));
    CT__DO(st, ct_isnan(ctx, u->a, &t[1]));
    CT__DO(st, ct_eq(ctx, u->a, u->r, &t[2]));
    CT__DO(st, ct_where(ctx, t[0], t[1], t[2], &t[3]));
    CT__DO(st, ct_cast(ctx, t[3], u->a->dtype, &t[4]));
    CT__DO(st, ct_sum(ctx, t[4], 0, NULL, false, &t[5]));
    CT__DO(st, ct_div(ctx, gout[0], t[5], &t[6]));
    CT__DO(st, ct_mul(ctx, t[4], t[6], &gin[0]));
    ct__release_all(8, t);
    return st;
}
static const ct__ag_custom CT__EXT_FN = {"MaxBackward", ct__ext_backward, ct__ext_free, true};

static ct_status ct__all_extreme(ct_ctx *ctx, const char *op, bool max, const ct_tensor *a,
                                 ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct_tensor_numel(a) == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected reduction dim to be specified for input.numel() == 0",
                             op);
    const bool rec = ct__ag_wants(ctx, 1, ins);
    const bool was = ct_set_grad_enabled(ctx, false);
    st = max ? ct_amax(ctx, a, 0, NULL, false, out) : ct_amin(ctx, a, 0, NULL, false, out);
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK && rec) {
        ct__ext_user *u = calloc(1, sizeof *u);
        if (!u) {
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        } else {
            u->a = ct_tensor_retain((ct_tensor *)a);
            u->a_ver = a->storage->version;
            st = ct_tensor_detach(ctx, *out, &u->r);
            if (st == CT_OK) {
                uint64_t mark = ct__ag_mark(ctx);
                st = ct__ag_record_custom(ctx, &CT__EXT_FN, u, a, out);
                u = NULL; /* the record owns it */
                st = ct__ag_named(ctx, st, out, mark, max ? "MaxBackward1" : "MinBackward1");
            }
            ct__ext_free(u);
        }
        if (st != CT_OK) ct_tensor_release(*out), *out = NULL;
    }
    return ct__error_within(ctx, op, st);
}
ct_status ct_max(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__all_extreme(ctx, "max", true, a, out);
}
ct_status ct_min(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__all_extreme(ctx, "min", false, a, out);
}

/* ---- dtype predicates ---- */
static bool ct__live(const ct_tensor *t) { return t && t->magic == CT__TENSOR_MAGIC; }
bool ct_is_floating_point(const ct_tensor *t) {
    return ct__live(t) && ct_dtype_is_floating(t->dtype);
}
bool ct_is_complex(const ct_tensor *t) { return ct__live(t) && ct_dtype_is_complex(t->dtype); }
bool ct_is_signed(const ct_tensor *t) {
    return ct__live(t) && t->dtype != CT_BOOL && t->dtype != CT_UINT8;
}
bool ct_is_same_size(const ct_tensor *a, const ct_tensor *b) {
    if (!ct__live(a) || !ct__live(b) || a->ndim != b->ndim) return false;
    return a->ndim == 0 || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0;
}
ct_status ct_is_nonzero(ct_ctx *ctx, const ct_tensor *t, bool *out) {
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, "is_nonzero", 1, ins, out);
    if (st != CT_OK) return st;
    *out = false;
    const int64_t n = ct_tensor_numel(t);
    if (n != 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "is_nonzero: Boolean value of Tensor with %s values is ambiguous",
                             n == 0 ? "no" : "more than one");
    double v = 0;
    if ((st = ct_tensor_item(t, &v)) != CT_OK) return ct__error_within(ctx, "is_nonzero", st);
    *out = v != 0; /* NaN is nonzero, as in torch */
    return CT_OK;
}
ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype *out) {
    if (!out) return CT_ERR_INVALID_ARG;
    return ct__cx_promote(a, b, out);
}

/* ---- complex helpers on real tensors ---- */
ct_status ct_angle(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "angle", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct_dtype_is_complex(a->dtype)) return ct__cx_unary(ctx, "angle", CT_CX_ANGLE, a, out);
    /* pi where a < 0, else 0, NaN kept; integers give float32; the gradient is zero, as torch */
    ct_tensor *t[10] = {NULL};
    uint64_t mark = ct__ag_mark(ctx);
    st = ct_tensor_detach(ctx, a, &t[0]);
    if (st == CT_OK && !ct_dtype_is_floating(a->dtype)) {
        st = ct_cast(ctx, t[0], CT_FLOAT32, &t[1]);
    } else if (st == CT_OK) {
        t[1] = ct_tensor_retain(t[0]);
    }
    CT__DO(st, ct_lt_scalar(ctx, t[1], 0, &t[2]));
    CT__DO(st, ct_tensor_zeros(ctx, t[1]->dtype, a->ndim, a->shape, &t[3]));
    CT__DO(st, ct_masked_fill(ctx, t[3], t[2], M_PI, &t[4]));
    CT__DO(st, ct_isnan(ctx, t[1], &t[5]));
    if (ct_dtype_is_floating(a->dtype)) {
        /* + zeros that depend on a (masked_fill of every element): the result is differentiable
         * with a zero gradient, and x + 0 keeps 0, pi and NaN */
        CT__DO(st, ct_where(ctx, t[5], t[1], t[4], &t[6]));
        CT__DO(st, ct_tensor_ones(ctx, CT_BOOL, a->ndim, a->shape, &t[7]));
        CT__DO(st, ct_masked_fill(ctx, a, t[7], 0.0, &t[8]));
        CT__DO(st, ct_add(ctx, t[6], t[8], out));
    } else {
        CT__DO(st, ct_where(ctx, t[5], t[1], t[4], out));
    }
    ct__release_all(10, t);
    st = ct__error_within(ctx, "angle", st);
    return ct__ag_named(ctx, st, out, mark, "AngleBackward0");
}
ct_status ct_real(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "real", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct_dtype_is_complex(a->dtype)) /* a view of the real parts, as torch.real */
        return ct__cx_part_ag(ctx, a, 0, out);
    *out = ct_tensor_retain((ct_tensor *)a); /* a real tensor is its own real part (torch: self) */
    return CT_OK;
}
ct_status ct_imag(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "imag", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ct_dtype_is_complex(a->dtype)) return ct__cx_part_ag(ctx, a, 1, out);
    return ct__set_error(ctx, CT_ERR_DTYPE,
                         "imag: imag is not implemented for tensors with non-complex dtypes (%s)",
                         ct_dtype_name(a->dtype));
}
#define CT__SELF(name)                                                                             \
    ct_status ct_##name(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {                        \
        const ct_tensor *ins[1] = {a};                                                             \
        ct_status st = ct__check_args(ctx, #name, 1, ins, out);                                    \
        if (st != CT_OK) return st;                                                                \
        *out = ct_tensor_retain((ct_tensor *)a);                                                   \
        return CT_OK;                                                                              \
    }
CT__SELF(resolve_conj)
CT__SELF(resolve_neg)
/* conj of a complex tensor is a new tensor here (torch: a lazy view with the conj bit, which
 * resolve_conj materialises; ctorch has no conj bit, so both give the same values) */
static ct_status ct__conj(ct_ctx *ctx, const char *name, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype)) {
        const uint64_t mark = ct__ag_mark(ctx);
        st = ct__cx_unary(ctx, name, CT_CX_CONJ, a, out);
        return strcmp(name, "conj_physical")
                   ? st
                   : ct__ag_named(ctx, st, out, mark, "ConjPhysicalBackward0");
    }
    *out = ct_tensor_retain((ct_tensor *)a);
    return CT_OK;
}
ct_status ct_conj(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__conj(ctx, "conj", a, out);
}
ct_status ct_conj_physical(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__conj(ctx, "conj_physical", a, out);
}

/* ---- norms ---- */
ct_status ct_frobenius_norm(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                            bool keepdim, ct_tensor **out) {
    if (ctx && n_dims > 2)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "frobenius_norm: expected at most 2 dimensions, but got %d dimensions "
                             "instead",
                             n_dims);
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "frobenius_norm", ct_norm(ctx, a, 2.0, n_dims, dims, keepdim, out));
    return ct__ag_named(ctx, st, out, mark, n_dims ? "NormBackward1" : "NormBackward0");
}
ct_status ct_nuclear_norm(ct_ctx *ctx, const ct_tensor *a, const int *dims, bool keepdim,
                          ct_tensor **out) {
    if (ctx && !dims && a && a->magic == CT__TENSOR_MAGIC && a->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "nuclear_norm: expected a 2-d input without dims, got %d dims",
                             a->ndim);
    return ct__error_within(
        ctx, "nuclear_norm",
        ct_linalg_matrix_norm(ctx, a, "nuc", dims ? dims[0] : 0, dims ? dims[1] : 1, keepdim, out));
}
/* torch.linalg.norm: ord NULL (None) or "fro" / "nuc" / a number ("2", "-1", "inf", "0.5");
 * dims (0, 1 or 2 of them) choose a vector or matrix norm as torch does */
ct_status ct_linalg_norm(ct_ctx *ctx, const ct_tensor *a, const char *ord, int n_dims,
                         const int *dims, bool keepdim, ct_tensor **out) {
    const char *op = "linalg.norm";
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (n_dims < 0 || n_dims > 2 || (n_dims && !dims))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: dim must be None, an int or a pair of ints (n_dims %d)", op,
                             n_dims);
    const bool named = ord && (!strcmp(ord, "fro") || !strcmp(ord, "nuc"));
    double p = 2.0;
    if (ord && !named) {
        char *end = NULL;
        p = strtod(ord, &end);
        if (!end || end == ord || *end)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: ord \"%s\" is not a number, \"fro\" or \"nuc\"", op, ord);
    }
    bool matrix;
    if (n_dims == 2) {
        matrix = true;
    } else if (n_dims == 1) {
        matrix = false;
    } else if (!ord) {
        matrix = false; /* the 2-norm of the flattened input */
    } else {
        if (a->ndim != 1 && a->ndim != 2)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: input must be 1-D or 2-D when dim is None and ord is not "
                                 "None, got %s",
                                 op, CT__SHAPE_STR(a));
        matrix = a->ndim == 2;
    }
    if (!matrix) {
        if (named)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: ord \"%s\" needs a matrix norm (two dims)", op, ord);
        return ct__error_within(ctx, op,
                                ct_linalg_vector_norm(ctx, a, p, n_dims, dims, keepdim, out));
    }
    return ct__error_within(ctx, op,
                            ct_linalg_matrix_norm(ctx, a, ord ? ord : "fro", n_dims ? dims[0] : 0,
                                                  n_dims ? dims[1] : 1, keepdim, out));
}

/* ---- torch.linalg's other names ---- */
ct_status ct_linalg_vander(ct_ctx *ctx, const ct_tensor *x, int64_t N, ct_tensor **out) {
    const char *op = "linalg.vander";
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const ct_dtype d = x->dtype;
    if (!(d == CT_FLOAT32 || d == CT_FLOAT64 || d == CT_INT8 || d == CT_UINT8 || d == CT_INT16 ||
          d == CT_INT32 || d == CT_INT64 || ct_dtype_is_complex(d)))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: supports floating point, complex and integer tensors, but got %s",
                             op, ct_dtype_name(d));
    ct_tensor *t[6] = {NULL};
    if (x->ndim == 0) {
        st = ct_tensor_unsqueeze(ctx, x, 0, &t[0]);
    } else {
        t[0] = ct_tensor_retain((ct_tensor *)x);
    }
    if (st != CT_OK) return st;
    const int nd = t[0]->ndim;
    const int64_t n = N < 0 ? t[0]->shape[nd - 1] : N;
    if (nd + 1 > CT_MAX_DIMS) {
        ct_tensor_release(t[0]);
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: the result would have %d dims (at most %d)",
                             op, nd + 1, CT_MAX_DIMS);
    }
    if (n <= 1) {
        ct_tensor_release(t[0]);
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: N must be greater than 1, got %lld", op,
                             (long long)n);
    }
    /* cumprod of x repeated n - 1 times, after a column of ones (ATen's composite) */
    int64_t sh[CT_MAX_DIMS];
    memcpy(sh, t[0]->shape, sizeof(int64_t) * (size_t)nd);
    sh[nd] = n - 1;
    st = ct_tensor_unsqueeze(ctx, t[0], nd, &t[1]);
    CT__DO(st, ct_tensor_expand(ctx, t[1], nd + 1, sh, &t[2]));
    CT__DO(st, ct_cumprod(ctx, t[2], nd, &t[3]));
    sh[nd] = 1;
    CT__DO(st, ct_tensor_ones(ctx, t[3]->dtype, nd + 1, sh, &t[4]));
    const ct_tensor *parts[2] = {t[4], t[3]};
    CT__DO(st, ct_cat(ctx, 2, parts, nd, out));
    ct__release_all(6, t);
    return ct__error_within(ctx, op, st);
}
ct_status ct_linalg_cross(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int dim,
                          ct_tensor **out) {
    return ct__error_within(ctx, "linalg.cross", ct_cross(ctx, a, b, dim, out));
}
ct_status ct_linalg_diagonal(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1, int dim2,
                             ct_tensor **out) {
    return ct__error_within(ctx, "linalg.diagonal", ct_diagonal(ctx, a, offset, dim1, dim2, out));
}
ct_status ct_linalg_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    return ct__error_within(ctx, "linalg.matmul", ct_matmul(ctx, a, b, out));
}

/* ---- the older torch.* linear algebra ---- */
ct_status ct_svd(ct_ctx *ctx, const ct_tensor *a, bool some, bool compute_uv, ct_tensor **U,
                 ct_tensor **S, ct_tensor **V) {
    const char *op = "svd";
    if (U) *U = NULL;
    if (V) *V = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, op, 1, ins, S);
    if (st != CT_OK) return st;
    *S = NULL;
    if (!U || !V) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: U or V is NULL", op);
    if (a->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected a (..., m, n) input, got %s", op,
                             CT__SHAPE_STR(a));
    const int nd = a->ndim;
    const int64_t m = a->shape[nd - 2], n = a->shape[nd - 1];
    int64_t sh[CT_MAX_DIMS];
    memcpy(sh, a->shape, sizeof(int64_t) * (size_t)nd);
    if (!compute_uv) { /* S only; U and V zero (m, m) and (n, n), as torch */
        st = ct_linalg_svdvals(ctx, a, S);
        sh[nd - 1] = m;
        CT__DO(st, ct_tensor_zeros(ctx, a->dtype, nd, sh, U));
        sh[nd - 2] = sh[nd - 1] = n;
        CT__DO(st, ct_tensor_zeros(ctx, a->dtype, nd, sh, V));
    } else {
        ct_tensor *vh = NULL;
        st = ct_linalg_svd_full(ctx, a, !some, U, S, &vh);
        CT__DO(st, ct_tensor_transpose(ctx, vh, -2, -1, V));
        ct_tensor_release(vh);
    }
    if (st != CT_OK) {
        ct_tensor_release(*U), ct_tensor_release(*S), ct_tensor_release(*V);
        *U = *S = *V = NULL;
    }
    return ct__error_within(ctx, op, st);
}
ct_status ct_qr(ct_ctx *ctx, const ct_tensor *a, bool some, ct_tensor **Q, ct_tensor **R) {
    if (Q) *Q = NULL;
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "qr", 1, ins, R);
    if (st != CT_OK) return st;
    *R = NULL;
    return ct__error_within(ctx, "qr",
                            ct_linalg_qr_mode(ctx, a, some ? "reduced" : "complete", Q, R));
}
ct_status ct_cholesky(ct_ctx *ctx, const ct_tensor *a, bool upper, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "cholesky", ct_linalg_cholesky(ctx, a, upper, out));
    return ct__ag_named(ctx, st, out, mark, "CholeskyBackward0");
}
ct_status ct_slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign, ct_tensor **logabsdet) {
    return ct__error_within(ctx, "slogdet", ct_linalg_slogdet(ctx, a, sign, logabsdet));
}
ct_status ct_triangular_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *a, bool upper,
                              bool transpose, bool unitriangular, ct_tensor **solution,
                              ct_tensor **cloned_coefficient) {
    const char *op = "triangular_solve";
    if (cloned_coefficient) *cloned_coefficient = NULL;
    const ct_tensor *ins[2] = {b, a};
    ct_status st = ct__check_args(ctx, op, 2, ins, solution);
    if (st != CT_OK) return st;
    *solution = NULL;
    if (a->ndim < 2 || b->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected (..., n, k) b and (..., n, n) A, got "
                             "%s and %s",
                             op, CT__SHAPE_STR(b), CT__SHAPE_STR(a));
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected b and A to have the same dtype, but found b of type %s "
                             "and A of type %s instead (as torch)",
                             op, ct_dtype_name(b->dtype), ct_dtype_name(a->dtype));
    ct_tensor *at = NULL, *ex = NULL;
    uint64_t mark = ct__ag_mark(ctx);
    if (transpose) {
        st = ct_tensor_transpose(ctx, a, -2, -1, &at);
    } else {
        at = ct_tensor_retain((ct_tensor *)a);
    }
    CT__DO(st, ct_linalg_solve_triangular(ctx, at, b, transpose ? !upper : upper, true,
                                          unitriangular, solution));
    if (st == CT_OK && cloned_coefficient) { /* A broadcast to the solution's batch, copied */
        int64_t sh[CT_MAX_DIMS];
        const ct_tensor *x = *solution;
        memcpy(sh, x->shape, sizeof(int64_t) * (size_t)x->ndim);
        sh[x->ndim - 2] = sh[x->ndim - 1] = a->shape[a->ndim - 1];
        st = ct_tensor_expand(ctx, a, x->ndim, sh, &ex);
        CT__DO(st, ct_tensor_clone(ctx, ex, cloned_coefficient));
    }
    ct_tensor_release(at), ct_tensor_release(ex);
    if (st != CT_OK) ct_tensor_release(*solution), *solution = NULL;
    st = ct__error_within(ctx, op, st);
    return ct__ag_named(ctx, st, solution, mark, "TriangularSolveBackward0");
}
ct_status ct_lu_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *LU, const ct_tensor *pivots,
                      ct_tensor **out) {
    return ct__error_within(ctx, "lu_solve",
                            ct_linalg_lu_solve(ctx, LU, pivots, b, true, false, out));
}
ct_status ct_matrix_power(ct_ctx *ctx, const ct_tensor *a, int64_t n, ct_tensor **out) {
    return ct__error_within(ctx, "matrix_power", ct_linalg_matrix_power(ctx, a, n, out));
}
ct_status ct_matrix_exp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "matrix_exp", ct_linalg_matrix_exp(ctx, a, out));
}
ct_status ct_orgqr(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau, ct_tensor **out) {
    return ct__error_within(ctx, "orgqr", ct_linalg_householder_product(ctx, a, tau, out));
}

/* Tensor.unfold (sliding windows) and torch.as_strided: views of the input's storage with a
 * computed geometry (no copy), and their gradients in one custom node each: the output's gradient
 * added back with index_add at the flat positions the view reads (overlapping windows sum), as
 * torch's unfold_backward / as_strided_backward. docs/everyday.md ("unfold, as_strided"). */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <stdlib.h>
#include <string.h>

/* ---- the backward: gin = index_select(index_add(zeros(span), 0, out_pos, g), in_pos) ----
 * out_pos / in_pos: the storage positions (relative to base) the output / input elements read */
typedef struct ct__strided_user {
    ct_tensor *out_pos, *in_pos; /* int64, the output's / input's shape flattened */
    int64_t span;
    int nd_in;
    int64_t shape_in[CT_MAX_DIMS];
    ct_dtype dt;
} ct__strided_user;
static void ct__strided_free(void *p) {
    ct__strided_user *u = p;
    if (!u) return;
    ct_tensor_release(u->out_pos), ct_tensor_release(u->in_pos);
    free(u);
}
static ct_status ct__strided_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout,
                                      const bool *need, ct_tensor **gin) {
    const ct__strided_user *u = user;
    if (!need[0]) return CT_OK;
    ct_tensor *t[10] = {NULL};
    const int64_t n = ct_tensor_numel(gout[0]), n_in = ct_tensor_numel(u->in_pos);
    ct_status st = ct_tensor_reshape(ctx, gout[0], 1, &n, &t[0]);
    CT__DO(st, ct_tensor_zeros(ctx, u->dt, 1, &u->span, &t[1]));
    CT__DO(st, ct_index_add(ctx, t[1], 0, u->out_pos, t[0], 1.0, &t[2]));
    CT__DO(st, ct_index_select(ctx, t[2], 0, u->in_pos, &t[3]));
    /* input elements that share a storage position (an expanded input) split its gradient, as
     * torch's as_strided_backward divides by the overlap count */
    CT__DO(st, ct_tensor_ones(ctx, u->dt, 1, &n_in, &t[4]));
    CT__DO(st, ct_tensor_zeros(ctx, u->dt, 1, &u->span, &t[5]));
    CT__DO(st, ct_index_add(ctx, t[5], 0, u->in_pos, t[4], 1.0, &t[6]));
    CT__DO(st, ct_index_select(ctx, t[6], 0, u->in_pos, &t[7]));
    CT__DO(st, ct_div(ctx, t[3], t[7], &t[8]));
    CT__DO(st, ct_tensor_reshape(ctx, t[8], u->nd_in, u->shape_in, &gin[0]));
    ct__release_all(10, t);
    return st;
}
static const ct__ag_custom CT__UNFOLD_FN = {"UnfoldBackward", ct__strided_backward,
                                            ct__strided_free, false};
static const ct__ag_custom CT__AS_STRIDED_FN = {"AsStridedBackward", ct__strided_backward,
                                                ct__strided_free, false};

/* the storage position of every element of a geometry, minus base, as an int64 (numel) tensor */
static ct_status ct__positions(ct_ctx *ctx, int nd, const int64_t *shape, const int64_t *strides,
                               int64_t offset, ct_tensor **out) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    int64_t *v = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (!v) return ct__set_error(ctx, CT_ERR_OOM, "out of memory for %lld positions", (long long)n);
    int64_t idx[CT_MAX_DIMS] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t p = offset;
        for (int i = 0; i < nd; i++)
            p += idx[i] * strides[i];
        v[e] = p;
        for (int i = nd - 1; i >= 0; i--) {
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    ct_status st = ct_tensor_from_host(ctx, v, CT_INT64, 1, &n, out);
    free(v);
    return st;
}

/* a view of t with the given geometry (relative to t's storage), recorded with its backward */
static ct_status ct__strided_view(ct_ctx *ctx, const ct__ag_custom *fn, const ct_tensor *t, int nd,
                                  const int64_t *shape, const int64_t *strides, int64_t offset,
                                  ct_tensor **out) {
    ct_status st = ct__tensor_view_of(ctx, t, nd, shape, strides, offset, out);
    if (st != CT_OK) return st;
    const ct_tensor *ins[1] = {t};
    if (!ct__ag_wants(ctx, 1, ins)) return CT_OK;
    /* the positions relative to the lowest one either geometry reads */
    int64_t lo = t->offset, hi = t->offset;
    for (int i = 0; i < t->ndim; i++) {
        const int64_t ext = t->shape[i] > 1 ? (t->shape[i] - 1) * t->strides[i] : 0;
        if (ext < 0)
            lo += ext;
        else
            hi += ext;
    }
    int64_t olo = offset, ohi = offset;
    for (int i = 0; i < nd; i++) {
        const int64_t ext = shape[i] > 1 ? (shape[i] - 1) * strides[i] : 0;
        if (ext < 0)
            olo += ext;
        else
            ohi += ext;
    }
    if (olo < lo) lo = olo;
    if (ohi > hi) hi = ohi;
    ct__strided_user *u = calloc(1, sizeof *u);
    if (!u) st = ct__set_error(ctx, CT_ERR_OOM, "out of memory");
    if (st == CT_OK) {
        u->span = hi - lo + 1;
        u->nd_in = t->ndim;
        memcpy(u->shape_in, t->shape, sizeof(int64_t) * (size_t)t->ndim);
        u->dt = t->dtype;
        st = ct__positions(ctx, nd, shape, strides, offset - lo, &u->out_pos);
        CT__DO(st, ct__positions(ctx, t->ndim, t->shape, t->strides, t->offset - lo, &u->in_pos));
    }
    if (st == CT_OK) {
        st = ct__ag_record_custom(ctx, fn, u, t, out);
        u = NULL;
    }
    ct__strided_free(u);
    if (st != CT_OK) ct_tensor_release(*out), *out = NULL;
    return st;
}

ct_status ct_tensor_unfold(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t size, int64_t step,
                           ct_tensor **out) {
    const char *op = "unfold";
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(t->dtype) && t->ndim > 0 && t->ndim < CT_MAX_DIMS) {
        /* through the real pairs: (.., L, .., 2) -> (.., W, .., 2, size) -> (.., W, .., size)
         * complex (a copy here, a view in torch), differentiable through the real unfold */
        *out = NULL;
        const int d = dim < 0 ? dim + t->ndim : dim;
        if (d < 0 || d >= t->ndim)
            return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                                 t->ndim);
        ct_tensor *r = NULL, *u = NULL, *p = NULL, *c = NULL;
        int perm[CT_MAX_DIMS + 1];
        for (int i = 0; i <= t->ndim + 1; i++)
            perm[i] = i;
        perm[t->ndim] = t->ndim + 1, perm[t->ndim + 1] = t->ndim;
        const uint64_t mark = ct__ag_mark(ctx);
        st = ct_view_as_real(ctx, t, &r);
        if (st == CT_OK) st = ct_tensor_unfold(ctx, r, d, size, step, &u);
        if (st == CT_OK) st = ct_tensor_permute(ctx, u, perm, &p);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, p, &c);
        if (st == CT_OK) st = ct_view_as_complex(ctx, c, out);
        ct_tensor_release(r), ct_tensor_release(u), ct_tensor_release(p), ct_tensor_release(c);
        return ct__ag_named(ctx, ct__error_within(ctx, op, st), out, mark, "UnfoldBackward0");
    }
    *out = NULL;
    const int nd = t->ndim ? t->ndim : 1;
    int d = dim < 0 ? dim + nd : dim;
    if (d < 0 || d >= nd)
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: dim %d out of range for %d dims", op, dim,
                             t->ndim);
    const int64_t n = t->ndim ? t->shape[d] : 1;
    if (size < 0 || size > n)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: maximum size for tensor at dimension %d is %lld but size is "
                             "%lld",
                             op, d, (long long)n, (long long)size);
    if (step <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: step is %lld but must be > 0", op,
                             (long long)step);
    if (t->ndim + 1 > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: the result would have %d dims (at most %d)",
                             op, t->ndim + 1, CT_MAX_DIMS);
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    const int64_t s_d = t->ndim ? t->strides[d] : 1;
    for (int i = 0; i < t->ndim; i++)
        sh[i] = t->shape[i], str[i] = t->strides[i];
    sh[d] = (n - size) / step + 1;
    if (!ct__checked_mul(s_d, step, &str[d]))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: stride overflows", op);
    sh[nd] = size, str[nd] = s_d;
    if (t->ndim == 0) /* torch: a 0-d input gives (size) */
        return ct__error_within(ctx, op,
                                ct__strided_view(ctx, &CT__UNFOLD_FN, t, 1, (const int64_t[]){size},
                                                 (const int64_t[]){1}, t->offset, out));
    return ct__error_within(
        ctx, op, ct__strided_view(ctx, &CT__UNFOLD_FN, t, nd + 1, sh, str, t->offset, out));
}

ct_status ct_tensor_as_strided(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *size,
                               const int64_t *stride, int64_t storage_offset, ct_tensor **out) {
    const char *op = "as_strided";
    const ct_tensor *ins[1] = {t};
    ct_status st = ct__check_args(ctx, op, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (ndim < 0 || ndim > CT_MAX_DIMS || (ndim && (!size || !stride)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: ndim %d must be in [0, %d] with size and stride given", op, ndim,
                             CT_MAX_DIMS);
    if (storage_offset < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: tensor storage offset must be non-negative, got %lld", op,
                             (long long)storage_offset);
    /* the highest element read must lie in the storage (negative strides are refused, as torch) */
    int64_t last = storage_offset, numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (size[i] < 0 || stride[i] < 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: size %lld and stride %lld of dim %d must be non-negative", op,
                                 (long long)size[i], (long long)stride[i], i);
        int64_t span;
        if (!ct__checked_mul(numel, size[i], &numel) ||
            (size[i] && !ct__checked_mul(size[i] - 1, stride[i], &span)) ||
            (size[i] && __builtin_add_overflow(last, span, &last)))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: the geometry overflows", op);
    }
    const int64_t cap = (int64_t)(t->storage->nbytes / ct_dtype_size(t->dtype));
    if (numel > 0 && last >= cap)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: the view reads element %lld of a storage of %lld elements", op,
                             (long long)last, (long long)cap);
    const bool cx = ct_dtype_is_complex(t->dtype);
    if (!ct__is_compute_dtype(t->dtype) && !cx)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: %s is a storage format", op,
                             ct_dtype_name(t->dtype));
    if (cx && ct__ag_wants(ctx, 1, ins)) /* the view is fine; its backward is real-only */
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: a complex input that requires grad is not supported yet", op);
    return ct__error_within(
        ctx, op,
        ct__strided_view(ctx, &CT__AS_STRIDED_FN, t, ndim, size, stride, storage_offset, out));
}

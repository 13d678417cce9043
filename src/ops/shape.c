/* Creation from another tensor (empty/zeros/ones/full_like, tril, triu) and shaping ops (cat,
 * stack, split, chunk, flatten, unflatten, repeat, flip, roll, movedim). Views where PyTorch
 * returns views (split, chunk, flatten and unflatten when the strides allow, movedim); every copy
 * is a CT_OP_COPY descriptor from a strided view of the source into a strided view of the output,
 * so these ops pass the one dispatch point and capture like any other. */
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* dst (a view of a fresh output) = src broadcast to dst's shape, cast to dst's dtype. */
static ct_status ct__copy_into(ct_ctx *ctx, const ct_tensor *dst, const ct_tensor *src) {
    if (ct_tensor_numel(dst) == 0) return CT_OK;
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_COPY, 1, 1);
    ct__operand_set(&d.operands[0], dst);
    ct__operand_broadcast(&d.operands[1], src, dst->ndim, dst->shape);
    d.compute_dtype = dst->dtype;
    return ct__submit(ctx, dst->storage->device, &d);
}

/* ---- *_like ---- */
ct_status ct_empty_like(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, "empty_like", t, out);
    if (st != CT_OK) return st;
    return ct_tensor_empty_on(ctx, t->storage->device, t->dtype, t->ndim, t->shape, out);
}

ct_status ct_full_like(ct_ctx *ctx, const ct_tensor *t, double value, ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, "full_like", t, out);
    if (st == CT_OK)
        st = ct__check_scalar_fits(ctx, "full_like", ct_dtype_to_real(t->dtype), value, true);
    if (st != CT_OK) return st;
    if (t->storage->device.type != CT_DEVICE_CPU) {
        ct_tensor *r = NULL;
        if ((st = ct_tensor_empty_on(ctx, t->storage->device, t->dtype, t->ndim, t->shape, &r)) !=
            CT_OK)
            return st;
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_FILL, 1, 0);
        ct__operand_set(&d.operands[0], r);
        d.compute_dtype = t->dtype;
        d.scalars[0] = value;
        if ((st = ct__submit(ctx, r->storage->device, &d)) != CT_OK) {
            ct_tensor_release(r);
            return st;
        }
        *out = r;
        return CT_OK;
    }
    return ct_tensor_full(ctx, t->dtype, t->ndim, t->shape, value, out);
}

ct_status ct_zeros_like(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct_full_like(ctx, t, 0.0, out);
}

ct_status ct_ones_like(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct_full_like(ctx, t, 1.0, out);
}

/* ---- tril / triu ---- */
static ct_status ct__tri(ct_ctx *ctx, const char *op, const ct_tensor *t, int64_t k, int upper,
                         ct_tensor **out) {
    ct_status st = ct__one_input(ctx, op, t, out);
    if (st != CT_OK) return st;
    if (t->ndim < 2 && !(t->ndim == 1 && t->shape[0] == 0)) /* torch takes an empty 1-d one */
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input must have at least 2 dims, got %s", op,
                             CT__SHAPE_STR(t));
    ct_tensor *r = NULL;
    if ((st = ct__tensor_new(ctx, t->storage->device, t->dtype, t->ndim, t->shape, &r)) != CT_OK)
        return st;
    if (ct_tensor_numel(r) > 0) {
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_TRIL, 1, 1);
        ct__operand_set(&d.operands[0], r);
        ct__operand_set(&d.operands[1], t);
        d.compute_dtype = t->dtype;
        d.ints[0] = k;
        d.ints[1] = upper;
        st = ct__submit(ctx, r->storage->device, &d);
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

ct_status ct_tril(ct_ctx *ctx, const ct_tensor *t, int64_t diagonal, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype))
        return ct__cx_tri(ctx, t, diagonal, false, out);
    CT__AG_WRAP(ctx, out, ct__tri(ctx, "tril", t, diagonal, 0, out),
                (CT__AG_IN1(CT__AG_TRIL, t), r_.n_iv = 2, r_.iv[0] = diagonal, r_.iv[1] = 0));
}
ct_status ct_triu(ct_ctx *ctx, const ct_tensor *t, int64_t diagonal, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype))
        return ct__cx_tri(ctx, t, diagonal, true, out);
    CT__AG_WRAP(ctx, out, ct__tri(ctx, "triu", t, diagonal, 1, out),
                (CT__AG_IN1(CT__AG_TRIL, t), r_.n_iv = 2, r_.iv[0] = diagonal, r_.iv[1] = 1));
}

/* ---- cat / stack ---- */
static ct_status ct__check_list(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                                void *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    if (n <= 0 || !ts)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expected a non-empty list of tensors",
                             op);
    return ct__check_args(ctx, op, n, ts, out);
}

static ct_status ct__fwd_cat(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim,
                             ct_tensor **out) {
    ct_status st = ct__check_list(ctx, "cat", n, ts, out);
    if (st != CT_OK) return st;
    ct_dtype dt;
    if ((st = ct__result_type(ctx, "cat", n, ts, &dt)) != CT_OK) return st;
    /* torch 1.13: 1-d tensors of size 0 are skipped whatever the others' shape (legacy) */
    const ct_tensor *ref = NULL;
    for (int i = 0; i < n && !ref; i++)
        if (!(ts[i]->ndim == 1 && ts[i]->shape[0] == 0)) ref = ts[i];
    if (!ref) return ct__tensor_new(ctx, ts[0]->storage->device, dt, 1, (int64_t[]){0}, out);
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim == 0)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "cat: zero-dimensional tensor (input %d) cannot be concatenated",
                                 i);
    int d;
    if (!ct__wrap_dim(dim, ref->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "cat: dim %d out of range for %d-dim inputs", dim,
                             ref->ndim);
    int64_t shape[CT_MAX_DIMS];
    for (int k = 0; k < ref->ndim; k++)
        shape[k] = ref->shape[k];
    shape[d] = 0;
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (t->ndim == 1 && t->shape[0] == 0) continue;
        bool ok = t->ndim == ref->ndim;
        for (int k = 0; ok && k < t->ndim; k++)
            ok = k == d || t->shape[k] == ref->shape[k];
        if (!ok) {
            char b[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "cat: input %d is %s, input 0 is %s: sizes must match except in "
                                 "dim %d",
                                 i, CT__SHAPE_STR(t),
                                 ct__shape_str(b, sizeof b, ref->ndim, ref->shape), d);
        }
        if (!ct__checked_add(shape[d], t->shape[d], &shape[d]))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "cat: dim %d overflows", d);
    }
    ct_tensor *r = NULL;
    if ((st = ct__tensor_new(ctx, ts[0]->storage->device, dt, ref->ndim, shape, &r)) != CT_OK)
        return st;
    int64_t off = 0;
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *t = ts[i];
        if ((t->ndim == 1 && t->shape[0] == 0) || t->shape[d] == 0) continue;
        ct_tensor *v = NULL;
        st = ct_tensor_narrow(ctx, r, d, off, t->shape[d], &v);
        if (st == CT_OK) st = ct__copy_into(ctx, v, t);
        ct_tensor_release(v);
        off += t->shape[d];
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* cat recorded for autograd: one node per group of up to CT__AG_MAX_IN inputs (a longer list is
 * concatenated in a chain: the running result and the next inputs), each input's size along the
 * dim kept for the slices of the backward. */
ct_status ct_cat(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim, ct_tensor **out) {
    bool any_cx = false;
    for (int i = 0; ctx && out && ts && i < n; i++)
        any_cx |= ct__tensor_live(ts[i]) && ct_dtype_is_complex(ts[i]->dtype);
    if (any_cx) {
        ct_status st = ct__check_list(ctx, "cat", n, ts, out);
        return st != CT_OK ? st : ct__cx_shape_op(ctx, 4, ts[0], n, &dim, NULL, ts, out);
    }
    if (n > CT__AG_MAX_IN && ts && ct__ag_wants(ctx, n, ts)) {
        ct_status st = ct__check_list(ctx, "cat", n, ts, out);
        if (st != CT_OK) return st;
        ct_tensor *acc = NULL;
        st = ct_cat(ctx, CT__AG_MAX_IN, ts, dim, &acc);
        for (int i = CT__AG_MAX_IN; i < n && st == CT_OK; i += CT__AG_MAX_IN - 1) {
            const ct_tensor *grp[CT__AG_MAX_IN] = {acc};
            int m = n - i < CT__AG_MAX_IN - 1 ? n - i : CT__AG_MAX_IN - 1;
            for (int k = 0; k < m; k++)
                grp[1 + k] = ts[i + k];
            ct_tensor *next = NULL;
            st = ct_cat(ctx, 1 + m, grp, dim, &next);
            ct_tensor_release(acc);
            acc = next;
        }
        if (st != CT_OK) {
            ct_tensor_release(acc);
            return st;
        }
        *out = acc;
        return CT_OK;
    }
    CT__AG_WRAP(ctx, out, ct__fwd_cat(ctx, n, ts, dim, out), {
        /* longer lists reach here only when nothing requires grad: nothing to record */
        if (n > CT__AG_MAX_IN) n = 0;
        r_.op = CT__AG_CAT;
        r_.n_in = n;
        int d = 0;
        for (int i = 0; i < n; i++)
            r_.in[i] = ts[i];
        for (int i = 0; i < n; i++) /* the dim of the first input that is not skipped */
            if (!(ts[i]->ndim == 1 && ts[i]->shape[0] == 0)) {
                ct__wrap_dim(dim, ts[i]->ndim, &d);
                break;
            }
        r_.n_iv = 1 + n;
        r_.iv[0] = d;
        for (int i = 0; i < n; i++) /* a legacy-skipped empty 1-d input adds nothing */
            r_.iv[1 + i] = ts[i]->ndim == 1 && ts[i]->shape[0] == 0 ? -1 : ts[i]->shape[d];
    });
}

static ct_status ct__stack_body(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim,
                                ct_tensor **out) {
    ct_status st = ct__check_list(ctx, "stack", n, ts, out);
    if (st != CT_OK) return st;
    for (int i = 1; i < n; i++) {
        bool same = ts[i]->ndim == ts[0]->ndim;
        for (int k = 0; same && k < ts[0]->ndim; k++)
            same = ts[i]->shape[k] == ts[0]->shape[k];
        if (!same) {
            char b[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "stack: expects each tensor to be equal size, but got %s at entry "
                                 "0 and %s at entry %d",
                                 CT__SHAPE_STR(ts[0]),
                                 ct__shape_str(b, sizeof b, ts[i]->ndim, ts[i]->shape), i);
        }
    }
    int nd = ts[0]->ndim + 1, d = dim < 0 ? dim + nd : dim;
    if (d < 0 || d >= nd)
        return ct__set_error(ctx, CT_ERR_INDEX, "stack: dim %d out of range for %d-dim inputs", dim,
                             ts[0]->ndim);
    if (nd > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "stack: the result would have %d dims (max %d)", nd,
                             CT_MAX_DIMS);
    ct_tensor **us = ct__alloc(ctx, (size_t)n * sizeof *us, 16);
    if (!us) return ct__set_error(ctx, CT_ERR_OOM, "stack: out of memory");
    for (int i = 0; i < n; i++)
        us[i] = NULL;
    for (int i = 0; i < n && st == CT_OK; i++)
        st = ct_tensor_unsqueeze(ctx, ts[i], d, &us[i]);
    if (st == CT_OK) st = ct_cat(ctx, n, (const ct_tensor *const *)us, d, out);
    for (int i = 0; i < n; i++)
        ct_tensor_release(us[i]);
    ct__free(ctx, us);
    return st;
}

ct_status ct_stack(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st = ct__error_within(ctx, "stack", ct__stack_body(ctx, n, ts, dim, out));
    return ct__ag_named(ctx, st, out, mark, "StackBackward0");
}

/* ---- split / chunk (views) ---- */
static ct_status ct__split_views(ct_ctx *ctx, const char *op, const ct_tensor *t, int d,
                                 int64_t size, int64_t count, int max_out, ct_tensor **outs,
                                 int *n_out) {
    if (n_out) *n_out = (int)count;
    if (count > max_out || !outs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: %lld pieces do not fit in outs (capacity %d)", op,
                             (long long)count, max_out);
    int64_t n = t->shape[d];
    for (int64_t i = 0; i < count; i++) {
        int64_t start = i * size, len = n - start < size ? n - start : size;
        if (len < 0) len = 0, start = n;
        ct_status st = ct_tensor_narrow(ctx, t, d, start, len, &outs[i]);
        if (st != CT_OK) {
            for (int64_t j = 0; j < i; j++) {
                ct_tensor_release(outs[j]);
                outs[j] = NULL;
            }
            return st;
        }
    }
    return CT_OK;
}

ct_status ct_split(ct_ctx *ctx, const ct_tensor *t, int64_t split_size, int dim, int max_out,
                   ct_tensor **outs, int *n_out) {
    ct_status st = ct__one_input_any(ctx, "split", t, n_out);
    if (st != CT_OK) return st;
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "split: dim %d out of range for %d dims", dim,
                             t->ndim);
    int64_t n = t->shape[d];
    if (split_size < 0 || (split_size == 0 && n != 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "split: split_size %lld must be positive (dim %d has size %lld)",
                             (long long)split_size, d, (long long)n);
    int64_t count = n == 0 ? 1 : (n + split_size - 1) / split_size;
    if (count > INT32_MAX)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "split: %lld pieces are too many",
                             (long long)count);
    uint64_t mark = ct__ag_mark(ctx);
    st = ct__split_views(ctx, "split", t, d, split_size ? split_size : 1, count, max_out, outs,
                         n_out);
    for (int i = 0; st == CT_OK && i < *n_out; i++) /* torch's one node, every piece its output */
        ct__ag_named(ctx, st, &outs[i], mark, "SplitBackward0");
    return st;
}

static ct_status ct__split_sizes_body(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes,
                                      int dim, ct_tensor **outs) {
    ct_status st = ct__one_input_any(ctx, "split_with_sizes", t, outs);
    if (st != CT_OK) return st;
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "split_with_sizes: dim %d out of range for %d dims",
                             dim, t->ndim);
    if (n < 0 || (n > 0 && !sizes))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "split_with_sizes: bad size list (n=%d)", n);
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        if (sizes[i] < 0 || !ct__checked_add(total, sizes[i], &total))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "split_with_sizes: size %lld at entry %d is invalid",
                                 (long long)sizes[i], i);
    if (total != t->shape[d])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "split_with_sizes: sizes sum to %lld, but dim %d has size %lld",
                             (long long)total, d, (long long)t->shape[d]);
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        st = ct_tensor_narrow(ctx, t, d, off, sizes[i], &outs[i]);
        if (st != CT_OK) {
            for (int j = 0; j < i; j++) {
                ct_tensor_release(outs[j]);
                outs[j] = NULL;
            }
            return st;
        }
        off += sizes[i];
    }
    return CT_OK;
}

ct_status ct_split_sizes(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes, int dim,
                         ct_tensor **outs) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "split_sizes", ct__split_sizes_body(ctx, t, n, sizes, dim, outs));
    for (int i = 0; st == CT_OK && i < n; i++) /* torch's one node, every piece its output */
        ct__ag_named(ctx, st, &outs[i], mark, "SplitWithSizesBackward0");
    return st;
}

static ct_status ct__chunk_body(ct_ctx *ctx, const ct_tensor *t, int chunks, int dim, int max_out,
                                ct_tensor **outs, int *n_out) {
    ct_status st = ct__one_input_any(ctx, "chunk", t, n_out);
    if (st != CT_OK) return st;
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "chunk: dim %d out of range for %d dims", dim,
                             t->ndim);
    if (chunks <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "chunk: number of chunks must be greater than 0, got %d", chunks);
    /* torch.chunk: pieces of ceil(n / chunks), so there may be fewer than `chunks` */
    int64_t n = t->shape[d], size = (n + chunks - 1) / chunks;
    int64_t count = size == 0 ? chunks : (n + size - 1) / size;
    if (size == 0) { /* dim of size 0: `chunks` empty pieces */
        if (n_out) *n_out = chunks;
        if (chunks > max_out || !outs)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "chunk: %d pieces do not fit in outs (capacity %d)", chunks,
                                 max_out);
        for (int i = 0; i < chunks; i++)
            if ((st = ct_tensor_narrow(ctx, t, d, 0, 0, &outs[i])) != CT_OK) {
                for (int j = 0; j < i; j++) {
                    ct_tensor_release(outs[j]);
                    outs[j] = NULL;
                }
                return st;
            }
        return CT_OK;
    }
    return ct__split_views(ctx, "chunk", t, d, size, count, max_out, outs, n_out);
}

ct_status ct_chunk(ct_ctx *ctx, const ct_tensor *t, int chunks, int dim, int max_out,
                   ct_tensor **outs, int *n_out) {
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "chunk", ct__chunk_body(ctx, t, chunks, dim, max_out, outs, n_out));
    for (int i = 0; st == CT_OK && i < *n_out; i++) /* torch 1.13: split's node */
        ct__ag_named(ctx, st, &outs[i], mark, "SplitBackward0");
    return st;
}

/* ---- flatten / unflatten / movedim ---- */
ct_status ct_flatten(ct_ctx *ctx, const ct_tensor *t, int start_dim, int end_dim, ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, "flatten", t, out);
    if (st != CT_OK) return st;
    if (t->ndim == 0) { /* torch: a 0-d tensor flattens to shape (1,) */
        int64_t one[1] = {1};
        if ((start_dim != 0 && start_dim != -1) || (end_dim != 0 && end_dim != -1))
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "flatten: dims (%d, %d) out of range for 0 dims", start_dim,
                                 end_dim);
        return ct_tensor_reshape(ctx, t, 1, one, out);
    }
    int s, e;
    if (!ct__wrap_dim(start_dim, t->ndim, &s) || !ct__wrap_dim(end_dim, t->ndim, &e))
        return ct__set_error(ctx, CT_ERR_INDEX, "flatten: dims (%d, %d) out of range for %d dims",
                             start_dim, end_dim, t->ndim);
    if (s > e)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "flatten: start_dim %d cannot come after end_dim %d", start_dim,
                             end_dim);
    if (s == e) { /* nothing to merge: torch returns the input itself (as ct_tensor_contiguous) */
        *out = ct_tensor_retain((ct_tensor *)t);
        return CT_OK;
    }
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    for (int k = 0; k < s; k++)
        shape[nd++] = t->shape[k];
    int64_t m = 1;
    for (int k = s; k <= e; k++)
        m *= t->shape[k]; /* the element count fits: it bounds this product */
    shape[nd++] = m;
    for (int k = e + 1; k < t->ndim; k++)
        shape[nd++] = t->shape[k];
    return ct_tensor_reshape(ctx, t, nd, shape, out);
}

ct_status ct_unflatten(ct_ctx *ctx, const ct_tensor *t, int dim, int n, const int64_t *sizes,
                       ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, "unflatten", t, out);
    if (st != CT_OK) return st;
    int d;
    if (t->ndim == 0 || !ct__wrap_dim(dim, t->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX, "unflatten: dim %d out of range for %d dims", dim,
                             t->ndim);
    if (n <= 0 || !sizes)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "unflatten: sizes must be non-empty (n=%d)",
                             n);
    if (t->ndim - 1 + n > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "unflatten: the result would have %d dims (max %d)",
                             t->ndim - 1 + n, CT_MAX_DIMS);
    /* resolve one -1 and check the product against the dim's size */
    int64_t res[CT_MAX_DIMS], prod = 1;
    int infer = -1;
    for (int i = 0; i < n; i++) {
        res[i] = sizes[i];
        if (sizes[i] == -1 && infer < 0) {
            infer = i;
        } else if (sizes[i] < 0) {
            return ct__set_error(ctx, CT_ERR_SHAPE, "unflatten: invalid size %lld at entry %d",
                                 (long long)sizes[i], i);
        } else if (!ct__checked_mul(prod, sizes[i], &prod)) {
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "unflatten: sizes overflow");
        }
    }
    int64_t want = t->shape[d];
    if (infer >= 0) {
        if (prod == 0 || want % prod != 0)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "unflatten: cannot infer -1 to split dim %d of size %lld", d,
                                 (long long)want);
        res[infer] = want / prod;
        prod = want;
    }
    if (prod != want) {
        char b[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "unflatten: sizes %s multiply to %lld, dim %d of %s has size %lld",
                             ct__shape_str(b, sizeof b, n, res), (long long)prod, d,
                             CT__SHAPE_STR(t), (long long)want);
    }
    int64_t shape[CT_MAX_DIMS];
    int nd = 0;
    for (int k = 0; k < d; k++)
        shape[nd++] = t->shape[k];
    for (int i = 0; i < n; i++)
        shape[nd++] = res[i];
    for (int k = d + 1; k < t->ndim; k++)
        shape[nd++] = t->shape[k];
    return ct_tensor_view(ctx, t, nd, shape, out); /* splitting one dim is always a view */
}

ct_status ct_movedim(ct_ctx *ctx, const ct_tensor *t, int n, const int *src, const int *dst,
                     ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, "movedim", t, out);
    if (st != CT_OK) return st;
    int nd = t->ndim;
    if (n < 0 || n > (nd ? nd : 1) || (n > 0 && (!src || !dst)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "movedim: bad dim lists (n=%d for %d dims)",
                             n, nd);
    int perm[CT_MAX_DIMS], taken_src = 0, taken_dst = 0;
    for (int k = 0; k < nd; k++)
        perm[k] = -1;
    for (int i = 0; i < n; i++) {
        int s, d;
        if (nd == 0 && (src[i] == 0 || src[i] == -1) && (dst[i] == 0 || dst[i] == -1)) continue;
        if (!ct__wrap_dim(src[i], nd, &s) || !ct__wrap_dim(dst[i], nd, &d) || nd == 0)
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "movedim: source %d or destination %d out of range for %d dims",
                                 src[i], dst[i], nd);
        if ((taken_src >> s & 1) || (taken_dst >> d & 1))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "movedim: repeated dim in source or destination (entry %d)", i);
        taken_src |= 1 << s;
        taken_dst |= 1 << d;
        perm[d] = s;
    }
    /* the other dims keep their order in the free destination slots */
    int next = 0;
    for (int k = 0; k < nd; k++) {
        if (perm[k] >= 0) continue;
        while (taken_src >> next & 1)
            next++;
        perm[k] = next++;
    }
    return ct_tensor_permute(ctx, t, perm, out);
}

/* ---- repeat / flip / roll (copies) ---- */
static ct_status ct__fwd_repeat(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *repeats,
                                ct_tensor **out);
ct_status ct_repeat(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *repeats,
                    ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && repeats)
        return ct__cx_shape_op(ctx, 2, t, n, NULL, repeats, NULL, out);
    CT__AG_WRAP(ctx, out, ct__fwd_repeat(ctx, t, n, repeats, out), {
        r_.op = CT__AG_REPEAT;
        r_.n_in = 1;
        r_.in[0] = t;
        r_.n_iv = 1 + n;
        r_.iv[0] = n;
        for (int i = 0; i < n; i++)
            r_.iv[1 + i] = repeats[i];
    });
}
static ct_status ct__fwd_repeat(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *repeats,
                                ct_tensor **out) {
    ct_status st = ct__one_input(ctx, "repeat", t, out);
    if (st != CT_OK) return st;
    if (n < t->ndim || n > CT_MAX_DIMS || (n > 0 && !repeats))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "repeat: %d repeat counts for a %d-dim tensor (need %d..%d)", n,
                             t->ndim, t->ndim, CT_MAX_DIMS);
    int lead = n - t->ndim;
    int64_t in_shape[CT_MAX_DIMS] = {0}, shape[CT_MAX_DIMS] = {0};
    for (int k = 0; k < n; k++) {
        if (repeats[k] < 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "repeat: repeat count %lld at entry %d is negative",
                                 (long long)repeats[k], k);
        in_shape[k] = k < lead ? 1 : t->shape[k - lead];
        if (!ct__checked_mul(in_shape[k], repeats[k], &shape[k]))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "repeat: size overflows at dim %d", k);
    }
    ct_tensor *r = NULL, *src = NULL;
    if ((st = ct__tensor_new(ctx, t->storage->device, t->dtype, n, shape, &r)) != CT_OK) return st;
    /* t seen with n dims, copied into the first block, then blocks doubled along each dim:
     * block [0, k) copies into [k, 2k) (disjoint elements), ceil(log2(r)) copies per dim */
    st = ct_tensor_view(ctx, t, n, in_shape, &src);
    int64_t cur[CT_MAX_DIMS];
    for (int k = 0; k < n; k++)
        cur[k] = in_shape[k];
    if (st == CT_OK && ct_tensor_numel(r) > 0) {
        ct_tensor *first = NULL;
        st = ct__tensor_view_of(ctx, r, n, cur, r->strides, r->offset, &first);
        if (st == CT_OK) st = ct__copy_into(ctx, first, src);
        ct_tensor_release(first);
        for (int k = 0; k < n && st == CT_OK; k++) {
            while (cur[k] < shape[k] && st == CT_OK) {
                int64_t len = shape[k] - cur[k] < cur[k] ? shape[k] - cur[k] : cur[k];
                ct_tensor *from = NULL, *to = NULL;
                int64_t sh[CT_MAX_DIMS];
                for (int j = 0; j < n; j++)
                    sh[j] = cur[j];
                sh[k] = len;
                st = ct__tensor_view_of(ctx, r, n, sh, r->strides, r->offset, &from);
                if (st == CT_OK)
                    st = ct__tensor_view_of(ctx, r, n, sh, r->strides,
                                            r->offset + cur[k] * r->strides[k], &to);
                if (st == CT_OK) st = ct__copy_into(ctx, to, from);
                ct_tensor_release(from);
                ct_tensor_release(to);
                cur[k] += len;
            }
        }
    }
    ct_tensor_release(src);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

static ct_status ct__fwd_flip(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims,
                              ct_tensor **out) {
    ct_status st = ct__one_input(ctx, "flip", t, out);
    if (st != CT_OK) return st;
    if (n_dims < 0 || (n_dims > 0 && !dims))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "flip: bad dim list (n_dims=%d)", n_dims);
    unsigned mask = 0;
    for (int i = 0; i < n_dims; i++) {
        int d;
        if (t->ndim == 0 && (dims[i] == 0 || dims[i] == -1)) continue;
        if (!ct__wrap_dim(dims[i], t->ndim, &d) || t->ndim == 0)
            return ct__set_error(ctx, CT_ERR_INDEX, "flip: dim %d out of range for %d dims",
                                 dims[i], t->ndim);
        if (mask >> d & 1u)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "flip: dim %d appears twice", dims[i]);
        mask |= 1u << d;
    }
    /* a view with negative strides on the flipped dims, copied (torch.flip returns a copy) */
    int64_t str[CT_MAX_DIMS], off = t->offset;
    for (int k = 0; k < t->ndim; k++) {
        str[k] = t->strides[k];
        if ((mask >> k & 1u) && t->shape[k] > 1) {
            off += (t->shape[k] - 1) * t->strides[k];
            str[k] = -t->strides[k];
        }
    }
    ct_tensor *v = NULL;
    if (ct_tensor_numel(t) == 0) return ct_tensor_clone(ctx, t, out);
    if ((st = ct__tensor_view_of(ctx, t, t->ndim, t->shape, str, off, &v)) != CT_OK) return st;
    st = ct_tensor_clone(ctx, v, out);
    ct_tensor_release(v);
    return st;
}

static ct_status ct__fwd_roll(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *shifts,
                              const int *dims, ct_tensor **out) {
    ct_status st = ct__one_input(ctx, "roll", t, out);
    if (st != CT_OK) return st;
    if (n <= 0 || !shifts)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "roll: shifts must be non-empty (n=%d)", n);
    if (!dims) { /* torch.roll without dims: roll the flattened tensor, restore the shape */
        if (n != 1)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "roll: without dims, exactly one shift is allowed (got %d)", n);
        ct_tensor *flat = NULL, *rolled = NULL;
        int64_t m[1] = {ct_tensor_numel(t)};
        int zero = 0;
        st = ct_tensor_reshape(ctx, t, 1, m, &flat);
        if (st == CT_OK) st = ct_roll(ctx, flat, 1, shifts, &zero, &rolled);
        if (st == CT_OK) st = ct_tensor_view(ctx, rolled, t->ndim, t->shape, out);
        ct_tensor_release(flat);
        ct_tensor_release(rolled);
        return st;
    }
    if (n > t->ndim)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "roll: %d shifts for a %d-dim tensor", n,
                             t->ndim);
    int64_t sh[CT_MAX_DIMS] = {0}; /* normalised shift per dim, in [0, size) */
    unsigned mask = 0;
    for (int i = 0; i < n; i++) {
        int d;
        if (!ct__wrap_dim(dims[i], t->ndim, &d))
            return ct__set_error(ctx, CT_ERR_INDEX, "roll: dim %d out of range for %d dims",
                                 dims[i], t->ndim);
        int64_t size = t->shape[d];
        if (size > 0) {
            int64_t s = shifts[i] % size;
            if (s < 0) s += size;
            sh[d] = (sh[d] + s) % size; /* a repeated dim adds up, as torch */
        }
        mask |= 1u << d;
    }
    ct_tensor *r = NULL;
    if ((st = ct__tensor_new(ctx, t->storage->device, t->dtype, t->ndim, t->shape, &r)) != CT_OK)
        return st;
    /* every combination of (tail, head) pieces of the rolled dims: out[(i + s) % size] = in[i] */
    int rolled[CT_MAX_DIMS], nr = 0;
    for (int k = 0; k < t->ndim; k++)
        if ((mask >> k & 1u) && sh[k] != 0) rolled[nr++] = k;
    if (ct_tensor_numel(t) > 0) {
        for (unsigned combo = 0; combo < (1u << nr) && st == CT_OK; combo++) {
            int64_t shp[CT_MAX_DIMS], soff = t->offset, doff = 0;
            bool empty = false;
            for (int k = 0; k < t->ndim; k++)
                shp[k] = t->shape[k];
            for (int j = 0; j < nr; j++) {
                int k = rolled[j];
                int64_t size = t->shape[k], s = sh[k];
                if (combo >> j & 1u) { /* in [size - s, size) -> out [0, s) */
                    shp[k] = s;
                    soff += (size - s) * t->strides[k];
                } else { /* in [0, size - s) -> out [s, size) */
                    shp[k] = size - s;
                    doff += s * r->strides[k];
                }
                if (shp[k] == 0) empty = true;
            }
            if (empty) continue;
            ct_tensor *from = NULL, *to = NULL;
            st = ct__tensor_view_of(ctx, t, t->ndim, shp, t->strides, soff, &from);
            if (st == CT_OK) st = ct__tensor_view_of(ctx, r, r->ndim, shp, r->strides, doff, &to);
            if (st == CT_OK) st = ct__copy_into(ctx, to, from);
            ct_tensor_release(from);
            ct_tensor_release(to);
        }
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* ---- autograd front ends of flip and roll (backward: flip again; roll back) ---- */
ct_status ct_flip(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims, ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype))
        return ct__cx_shape_op(ctx, 0, t, n_dims, dims, NULL, NULL, out);
    CT__AG_WRAP(ctx, out, ct__fwd_flip(ctx, t, n_dims, dims, out), {
        CT__AG_IN1(CT__AG_FLIP, t);
        r_.n_iv = 1 + n_dims;
        r_.iv[0] = n_dims;
        for (int i = 0; i < n_dims; i++)
            r_.iv[1 + i] = dims[i];
    });
}
ct_status ct_roll(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *shifts, const int *dims,
                  ct_tensor **out) {
    if (ctx && out && ct__tensor_live(t) && shifts && dims && t->ndim > 0 && n > t->ndim) {
        /* more shifts than dims: a dim repeats, and its shifts add up (torch) */
        int md[CT_MAX_DIMS], m = 0;
        int64_t ms[CT_MAX_DIMS];
        for (int i = 0; i < n; i++) {
            int d, j = 0;
            if (!ct__wrap_dim(dims[i], t->ndim, &d)) {
                *out = NULL;
                return ct__set_error(ctx, CT_ERR_INDEX, "roll: dim %d out of range for %d dims",
                                     dims[i], t->ndim);
            }
            const int64_t size = t->shape[d], sh = size > 0 ? shifts[i] % size : 0;
            while (j < m && md[j] != d)
                j++;
            if (j == m) md[m] = d, ms[m++] = 0;
            ms[j] = size > 0 ? (ms[j] + sh) % size : 0;
        }
        return ct_roll(ctx, t, m, ms, md, out);
    }
    if (ctx && out && ct__tensor_live(t) && ct_dtype_is_complex(t->dtype) && shifts && n >= 1)
        return ct__cx_shape_op(ctx, 1, t, n, dims, shifts, NULL, out);
    CT__AG_WRAP(ctx, out, ct__fwd_roll(ctx, t, n, shifts, dims, out), {
        CT__AG_IN1(CT__AG_ROLL, t);
        r_.n_iv = 1 + 2 * n;
        r_.iv[0] = n;
        for (int i = 0; i < n; i++) {
            r_.iv[1 + i] = shifts[i];
            r_.iv[1 + n + i] = dims ? dims[i] : INT64_MIN; /* no dims: roll of the flattened */
        }
    });
}

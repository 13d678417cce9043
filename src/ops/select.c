/* Ops whose output size depends on the data (nonzero, masked_select, unique) and the matmul
 * updates addmm / baddbmm. The data-dependent ones read a mask or the sorted values back to the
 * host, so they run eagerly only (under graph capture the host read fails with CT_ERR_STATE, as
 * torch's data-dependent ops break CUDA graph capture); the selection itself is index_select, so
 * masked_select is differentiable. */
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* Host copy of a bool tensor (any layout) as bytes; caller frees with ct__free. */
static ct_status ct__mask_to_host(ct_ctx *ctx, const ct_tensor *mask, uint8_t **out) {
    int64_t n = ct_tensor_numel(mask);
    uint8_t *h = ct__alloc(ctx, (size_t)(n ? n : 1), 16);
    if (!h)
        return ct__set_error(ctx, CT_ERR_OOM, "out of memory for a %lld-byte mask", (long long)n);
    ct_status st = ct_tensor_to_host(mask, h, (size_t)n);
    if (st != CT_OK) {
        ct__free(ctx, h);
        return st;
    }
    *out = h;
    return CT_OK;
}

static ct_status ct__nonzero_body(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    ct_status st = ct__one_input_any(ctx, "nonzero", t, out); /* complex: either part */
    if (st != CT_OK) return st;
    ct_tensor *m = NULL;
    uint8_t *h = NULL;
    st = ct_ne_scalar(ctx, t, 0.0, &m);
    CT__DO(st, ct__mask_to_host(ctx, m, &h));
    ct_tensor_release(m);
    if (st != CT_OK) return st;
    int64_t n = ct_tensor_numel(t), nnz = 0;
    for (int64_t i = 0; i < n; i++)
        nnz += h[i] != 0;
    int nd = t->ndim;
    int64_t *ix = ct__alloc(ctx, sizeof(int64_t) * (size_t)(nnz * nd > 0 ? nnz * nd : 1), 16);
    if (!ix) {
        ct__free(ctx, h);
        return ct__set_error(ctx, CT_ERR_OOM, "nonzero: out of memory for %lld indices",
                             (long long)nnz);
    }
    for (int64_t i = 0, k = 0; i < n; i++) {
        if (!h[i]) continue;
        int64_t q = i;
        for (int d = nd - 1; d >= 0; d--) {
            ix[k * nd + d] = q % t->shape[d];
            q /= t->shape[d];
        }
        k++;
    }
    int64_t shape[2] = {nnz, nd};
    st = ct_tensor_from_host(ctx, ix, CT_INT64, 2, shape, out); /* (nnz, ndim), as torch */
    ct__free(ctx, ix), ct__free(ctx, h);
    return st;
}

ct_status ct_nonzero(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    return ct__error_within(ctx, "nonzero", ct__nonzero_body(ctx, t, out));
}

static ct_status ct__masked_select_body(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                                        ct_tensor **out) {
    const ct_tensor *ins[2] = {t, mask};
    ct_status st = ct__check_args(ctx, "masked_select", 2, ins, out);
    if (st != CT_OK) return st;
    if (mask->dtype != CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "masked_select: mask must be bool, got %s",
                             ct_dtype_name(mask->dtype));
    int nd;
    int64_t shape[CT_MAX_DIMS];
    if ((st = ct__broadcast_shapes(ctx, "masked_select", 2, ins, &nd, shape)) != CT_OK) return st;
    ct_tensor *te = NULL, *me = NULL, *tf = NULL, *mf = NULL, *idx = NULL;
    uint8_t *h = NULL;
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    st = ct_tensor_expand(ctx, t, nd, shape, &te);
    CT__DO(st, ct_tensor_expand(ctx, mask, nd, shape, &me));
    CT__DO(st, ct_tensor_reshape(ctx, te, 1, &n, &tf));
    CT__DO(st, ct_tensor_reshape(ctx, me, 1, &n, &mf));
    CT__DO(st, ct__mask_to_host(ctx, mf, &h));
    if (st == CT_OK) {
        int64_t nnz = 0;
        int64_t *ix = ct__alloc(ctx, sizeof(int64_t) * (size_t)(n ? n : 1), 16);
        if (!ix) {
            st = ct__set_error(ctx, CT_ERR_OOM, "masked_select: out of memory for %lld indices",
                               (long long)n);
        } else {
            for (int64_t i = 0; i < n; i++)
                if (h[i]) ix[nnz++] = i;
            st = ct_tensor_from_host(ctx, ix, CT_INT64, 1, &nnz, &idx);
            ct__free(ctx, ix);
        }
    }
    CT__DO(st, ct_index_select(ctx, tf, 0, idx, out));
    ct__free(ctx, h);
    ct_tensor_release(te), ct_tensor_release(me), ct_tensor_release(tf), ct_tensor_release(mf);
    ct_tensor_release(idx);
    return st;
}

ct_status ct_masked_select(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                           ct_tensor **out) {
    if (ctx && out && ct__tensor_live(mask) && mask->dtype == CT_UINT8) {
        ct_tensor *b_ = NULL; /* torch's deprecated ByteTensor mask: as bool */
        ct_status st_ = ct__byte_mask(ctx, mask, &b_);
        if (st_ == CT_OK) st_ = ct_masked_select(ctx, t, b_, out);
        ct_tensor_release(b_);
        return st_;
    }
    uint64_t mark = ct__ag_mark(ctx);
    ct_status st =
        ct__error_within(ctx, "masked_select", ct__masked_select_body(ctx, t, mask, out));
    return ct__ag_named(ctx, st, out, mark, "MaskedSelectBackward0");
}

static ct_status ct__unique_body(ct_ctx *ctx, const ct_tensor *t, bool sorted, ct_tensor **values,
                                 ct_tensor **inverse, ct_tensor **counts) {
    (void)sorted; /* the values always come sorted, which torch allows for sorted=false too */
    ct_status st = ct__one_input(ctx, "unique", t, values);
    if (st != CT_OK) return st;
    if (inverse) *inverse = NULL;
    if (counts) *counts = NULL;
    int64_t n = ct_tensor_numel(t);
    ct_tensor *flat = NULL, *sv = NULL, *si = NULL, *a = NULL, *b = NULL, *ne = NULL, *pos = NULL,
              *vals = NULL, *inv = NULL, *cnt = NULL;
    uint8_t *h = NULL;
    int64_t *si_h = NULL, *buf = NULL;
    st = ct_tensor_reshape(ctx, t, 1, &n, &flat);
    CT__DO(st, ct_sort(ctx, flat, 0, false, true, &sv, &si));
    /* a new group starts where a sorted value differs from its predecessor (NaN != NaN: every
     * NaN is its own group, as torch.unique) */
    int64_t m = n > 0 ? n - 1 : 0;
    if (n > 1) {
        CT__DO(st, ct_tensor_narrow(ctx, sv, 0, 1, m, &a));
        CT__DO(st, ct_tensor_narrow(ctx, sv, 0, 0, m, &b));
        CT__DO(st, ct_ne(ctx, a, b, &ne));
        CT__DO(st, ct__mask_to_host(ctx, ne, &h));
    }
    if (st == CT_OK) {
        si_h = ct__alloc(ctx, sizeof(int64_t) * (size_t)(n ? n : 1), 16);
        buf = ct__alloc(ctx, sizeof(int64_t) * (size_t)(2 * n + 1), 16);
        if (!si_h || !buf) st = ct__set_error(ctx, CT_ERR_OOM, "unique: out of memory");
    }
    if (st == CT_OK && n > 0) st = ct_tensor_to_host(si, si_h, sizeof(int64_t) * (size_t)n);
    int64_t ng = 0;
    if (st == CT_OK) {
        int64_t *start = buf, *group_of = buf + n; /* group start positions; group per position */
        for (int64_t j = 0; j < n; j++) {
            if (j == 0 || h[j - 1]) start[ng++] = j;
            group_of[j] = ng - 1;
        }
        st = ct_tensor_from_host(ctx, start, CT_INT64, 1, &ng, &pos);
        CT__DO(st, ct_index_select(ctx, sv, 0, pos, &vals));
        if (st == CT_OK && counts) {
            int64_t *c = ct__alloc(ctx, sizeof(int64_t) * (size_t)(ng ? ng : 1), 16);
            if (!c) {
                st = ct__set_error(ctx, CT_ERR_OOM, "unique: out of memory");
            } else {
                for (int64_t g = 0; g < ng; g++)
                    c[g] = (g + 1 < ng ? start[g + 1] : n) - start[g];
                st = ct_tensor_from_host(ctx, c, CT_INT64, 1, &ng, &cnt);
                ct__free(ctx, c);
            }
        }
        if (st == CT_OK && inverse) { /* inverse[i] = group of i's sorted position, t's shape */
            int64_t *iv = ct__alloc(ctx, sizeof(int64_t) * (size_t)(n ? n : 1), 16);
            if (!iv) {
                st = ct__set_error(ctx, CT_ERR_OOM, "unique: out of memory");
            } else {
                for (int64_t j = 0; j < n; j++)
                    iv[si_h[j]] = group_of[j];
                st = ct_tensor_from_host(ctx, iv, CT_INT64, t->ndim, t->shape, &inv);
                ct__free(ctx, iv);
            }
        }
    }
    ct__free(ctx, h), ct__free(ctx, si_h), ct__free(ctx, buf);
    ct_tensor_release(flat), ct_tensor_release(sv), ct_tensor_release(si), ct_tensor_release(a);
    ct_tensor_release(b), ct_tensor_release(ne), ct_tensor_release(pos);
    if (st != CT_OK) {
        ct_tensor_release(vals), ct_tensor_release(inv), ct_tensor_release(cnt);
        return st;
    }
    *values = vals;
    if (inverse) *inverse = inv;
    if (counts) *counts = cnt;
    return CT_OK;
}

ct_status ct_unique(ct_ctx *ctx, const ct_tensor *t, bool sorted, ct_tensor **values,
                    ct_tensor **inverse, ct_tensor **counts) {
    return ct__error_within(ctx, "unique",
                            ct__unique_body(ctx, t, sorted, values, inverse, counts));
}

/* beta * input + alpha * (a @ b) with torch's rule that beta = 0 ignores input (nan included). */
static ct_status ct__addmm_any(ct_ctx *ctx, const char *name, const ct_tensor *input,
                               const ct_tensor *a, const ct_tensor *b, double beta, double alpha,
                               bool batched, ct_tensor **out) {
    const ct_tensor *ins[3] = {input, a, b};
    ct_status st = ct__check_args(ctx, name, 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    int want = batched ? 3 : 2;
    if (a->ndim != want || b->ndim != want)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: the two matrices must be %d-d, got %s and %s",
                             name, want, CT__SHAPE_STR(a),
                             ct__shape_str((char[96]){0}, 96, b->ndim, b->shape));
    /* torch's dtype rules: the two matrices of one dtype; addmm's input too ("self and mat2 must
     * have the same dtype"), baddbmm's input taken in the batches' dtype (torch's result) */
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected scalar type %s but found %s", name,
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (!batched && input->dtype != a->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: self and mat2 must have the same dtype, got %s and %s", name,
                             ct_dtype_name(input->dtype), ct_dtype_name(a->dtype));
    ct_tensor *p = NULL, *ps = NULL, *is = NULL, *r = NULL, *in_c = NULL;
    if (batched && input->dtype != a->dtype) {
        if ((st = ct_cast(ctx, input, a->dtype, &in_c)) != CT_OK) return st;
        input = in_c;
    }
    st = batched ? ct_bmm(ctx, a, b, &p) : ct_matmul(ctx, a, b, &p);
    if (st != CT_OK) {
        ct_tensor_release(in_c);
        return st;
    }
    /* input must broadcast to the product's shape */
    const ct_tensor *pair[2] = {input, p};
    int nd;
    int64_t shape[CT_MAX_DIMS];
    st = ct__broadcast_shapes(ctx, name, 2, pair, &nd, shape);
    if (st == CT_OK && (nd != p->ndim))
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: input %s does not broadcast to the product %s",
                           name, CT__SHAPE_STR(input),
                           ct__shape_str((char[96]){0}, 96, p->ndim, p->shape));
    for (int d = 0; st == CT_OK && d < nd; d++)
        if (shape[d] != p->shape[d])
            st = ct__set_error(
                ctx, CT_ERR_SHAPE, "%s: input %s does not broadcast to the product %s", name,
                CT__SHAPE_STR(input), ct__shape_str((char[96]){0}, 96, p->ndim, p->shape));
    /* an integer product takes beta and alpha converted to its dtype (truncated, overflow
     * checked), as torch's Scalar::to<scalar_t> */
    const ct_dtype pd = p->dtype;
    const bool fl = ct_dtype_is_floating(pd) || ct_dtype_is_complex(pd);
    for (int k = 0; k < 2 && st == CT_OK && fl; k++) /* opmath, as torch */
        st = ct__check_scalar_param(ctx, name, k ? "alpha" : "beta", pd, k ? alpha : beta, true);
    if (st == CT_OK && pd != CT_BOOL && !fl)
        for (int k = 0; k < 2 && st == CT_OK; k++) {
            double *v = k ? &alpha : &beta;
            if (!ct__int_scalar_conv(pd, *v, v))
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                   "%s: %s %g cannot be converted to %s without overflow", name,
                                   k ? "alpha" : "beta", *v, ct_dtype_name(pd));
        }
    if (st == CT_OK) {
        if (alpha == 0 && !batched) {
            /* torch's addmm skips the product for alpha = 0 (its NaN and inf too): zeros that
             * stay on the product's graph (zero gradients), as beta = 0 does for input */
            ct_tensor *no = NULL, *z = NULL;
            st = ct_tensor_zeros(ctx, CT_BOOL, 0, NULL, &no);
            CT__DO(st, ct_zeros_like(ctx, p, &z));
            CT__DO(st, ct_where(ctx, no, p, z, &ps));
            ct_tensor_release(no), ct_tensor_release(z);
        } else if (alpha != 1) {
            st = ct_mul_scalar(ctx, p, alpha, &ps);
        } else {
            ps = ct_tensor_retain(p);
        }
    }
    if (st == CT_OK && beta == 0 && input->requires_grad && input->dtype == ps->dtype) {
        /* torch: input is ignored (its NaN and inf too) but gets a gradient of zeros: the
         * product's values, selected past input by an all-false mask */
        ct_tensor *no = NULL;
        st = ct_tensor_zeros(ctx, CT_BOOL, 0, NULL, &no);
        CT__DO(st, ct_where(ctx, no, input, ps, &r));
        ct_tensor_release(no);
    } else if (st == CT_OK && beta == 0) {
        /* torch: input is ignored, but the result takes the promoted dtype */
        r = ct_tensor_retain(ps);
    } else if (st == CT_OK) {
        st = beta != 1 ? ct_mul_scalar(ctx, input, beta, &is)
                       : (is = ct_tensor_retain((ct_tensor *)input), CT_OK);
        CT__DO(st, ct_add(ctx, is, ps, &r));
    }
    ct_tensor_release(p), ct_tensor_release(ps), ct_tensor_release(is), ct_tensor_release(in_c);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}
ct_status ct_addmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *m1, const ct_tensor *m2,
                   double beta, double alpha, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__addmm_any(ctx, "addmm", input, m1, m2, beta, alpha, false, out),
                        out, mark, "AddmmBackward0");
}
ct_status ct_baddbmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *b1, const ct_tensor *b2,
                     double beta, double alpha, ct_tensor **out) {
    uint64_t mark = ct__ag_mark(ctx);
    return ct__ag_named(ctx, ct__addmm_any(ctx, "baddbmm", input, b1, b2, beta, alpha, true, out),
                        out, mark, "BaddbmmBackward0");
}

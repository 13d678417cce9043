/* Front ends of matmul/bmm (torch.matmul shape rules), layer_norm and embedding. */
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

/* out3 (B,M,N) = a3 (B,M,K) @ b3 (B,K,N), all f32/f64 of one dtype. */
static ct_status ct__mm3(ct_ctx *ctx, const ct_tensor *a3, const ct_tensor *b3, ct_tensor **out) {
    int64_t shape[3] = {a3->shape[0], a3->shape[1], b3->shape[2]};
    ct_tensor *r;
    ct_status st = ct__tensor_new(ctx, a3->storage->device, a3->dtype, 3, shape, &r);
    if (st != CT_OK) return st;
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_MATMUL, 1, 2);
    ct__operand_set(&d.operands[0], r);
    ct__operand_set(&d.operands[1], a3);
    ct__operand_set(&d.operands[2], b3);
    d.compute_dtype = a3->dtype;
    if ((st = ct__submit(ctx, r->storage->device, &d)) != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* Compute in f32 for f16/bf16, cast back. */
static ct_status ct__mm3_any(ct_ctx *ctx, const ct_tensor *a3, const ct_tensor *b3,
                             ct_tensor **out) {
    ct_dtype dt = a3->dtype;
    if (dt != CT_FLOAT16 && dt != CT_BFLOAT16) return ct__mm3(ctx, a3, b3, out);
    ct_tensor *af = NULL, *bf = NULL, *rf = NULL;
    ct_status st = ct_cast(ctx, a3, CT_FLOAT32, &af);
    if (st == CT_OK) st = ct_cast(ctx, b3, CT_FLOAT32, &bf);
    if (st == CT_OK) st = ct__mm3(ctx, af, bf, &rf);
    if (st == CT_OK) st = ct_cast(ctx, rf, dt, out);
    ct_tensor_release(af);
    ct_tensor_release(bf);
    ct_tensor_release(rf);
    return st;
}

static ct_status ct__fwd_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "matmul", 2, ins, out);
    if (st != CT_OK) return st;
    if (ct_dtype_is_complex(a->dtype) || ct_dtype_is_complex(b->dtype))
        return ct__cx_matmul(ctx, a, b, out);
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "matmul: dtypes differ (%s and %s)",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    if (!ct__is_compute_dtype(a->dtype) || a->dtype == CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "matmul: dtype %s is not supported",
                             ct_dtype_name(a->dtype));
    if (a->ndim == 0 || b->ndim == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "matmul: both arguments need at least 1 dim, got %d and %d", a->ndim,
                             b->ndim);
    /* a -> (..., M, K), b -> (..., K, N), remembering 1-d inputs */
    int64_t M = a->ndim == 1 ? 1 : a->shape[a->ndim - 2], K = a->shape[a->ndim - 1];
    int64_t Kb = b->ndim == 1 ? b->shape[0] : b->shape[b->ndim - 2];
    int64_t N = b->ndim == 1 ? 1 : b->shape[b->ndim - 1];
    if (K != Kb) {
        char b0[96];
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "matmul: a is %s, b is %s: inner sizes %lld and %lld differ",
                             CT__SHAPE_STR(a), ct__shape_str(b0, sizeof b0, b->ndim, b->shape),
                             (long long)K, (long long)Kb);
    }
    int abd = a->ndim > 2 ? a->ndim - 2 : 0, bbd = b->ndim > 2 ? b->ndim - 2 : 0;
    int nb = abd > bbd ? abd : bbd;
    int64_t bshape[CT_MAX_DIMS];
    for (int i = 0; i < nb; i++) {
        int ia = i - (nb - abd), ib = i - (nb - bbd);
        int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            char b0[96];
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "matmul: batch dims of %s and %s do not broadcast (%lld vs %lld)",
                                 CT__SHAPE_STR(a), ct__shape_str(b0, sizeof b0, b->ndim, b->shape),
                                 (long long)sa, (long long)sb);
        }
        bshape[i] = sa == 1 ? sb : sa;
    }
    int64_t B = ct__numel(nb, bshape);
    ct_tensor *av = NULL, *bv = NULL, *ae = NULL, *be = NULL, *a3 = NULL, *b3 = NULL, *r = NULL;
    int64_t s[CT_MAX_DIMS];
    /* views of a as (batch..., M, K) and b as (batch..., K, N) */
    for (int i = 0; i < nb; i++)
        s[i] = bshape[i];
    s[nb] = M, s[nb + 1] = K;
    int64_t am[2] = {M, K};
    st = a->ndim == 1 ? ct_tensor_view(ctx, a, 2, am, &av)
                      : (av = ct_tensor_retain((ct_tensor *)a), CT_OK);
    if (st == CT_OK) st = ct_tensor_expand(ctx, av, nb + 2, s, &ae);
    s[nb] = K, s[nb + 1] = N;
    int64_t bm[2] = {K, N};
    if (st == CT_OK)
        st = b->ndim == 1 ? ct_tensor_view(ctx, b, 2, bm, &bv)
                          : (bv = ct_tensor_retain((ct_tensor *)b), CT_OK);
    if (st == CT_OK) st = ct_tensor_expand(ctx, bv, nb + 2, s, &be);
    int64_t a3s[3] = {B, M, K}, b3s[3] = {B, K, N};
    if (st == CT_OK) st = ct_tensor_reshape(ctx, ae, 3, a3s, &a3);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, be, 3, b3s, &b3);
    if (st == CT_OK) st = ct__mm3_any(ctx, a3, b3, &r);
    if (st == CT_OK) {
        int nd = 0;
        for (int i = 0; i < nb; i++)
            s[nd++] = bshape[i];
        if (a->ndim > 1) s[nd++] = M;
        if (b->ndim > 1) s[nd++] = N;
        st = ct_tensor_view(ctx, r, nd, s, out);
    }
    ct_tensor *all[] = {av, bv, ae, be, a3, b3, r};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    return st;
}

static ct_status ct__fwd_bmm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_status st = ct__check_args(ctx, "bmm", 2, ins, out);
    if (st != CT_OK) return st;
    if (a->ndim != 3 || b->ndim != 3 || a->shape[0] != b->shape[0] || a->shape[2] != b->shape[1]) {
        char b0[96];
        return ct__set_error(ctx, CT_ERR_SHAPE, "bmm: expected (B,M,K) and (B,K,N), got %s and %s",
                             CT__SHAPE_STR(a), ct__shape_str(b0, sizeof b0, b->ndim, b->shape));
    }
    return ct_matmul(ctx, a, b, out);
}

static ct_status ct__fwd_layer_norm(ct_ctx *ctx, const ct_tensor *a, int n_norm,
                                    const ct_tensor *weight, const ct_tensor *bias, double eps,
                                    ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "layer_norm", 1, ins, out);
    if (st != CT_OK) return st;
    if (!ct_dtype_is_floating(a->dtype) || !ct__is_compute_dtype(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "layer_norm: floating input required, got %s",
                             ct_dtype_name(a->dtype));
    if (n_norm < 1 || n_norm > a->ndim)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "layer_norm: cannot normalise %d dims of a %d-dim tensor", n_norm,
                             a->ndim);
    if (!(eps >= 0))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "layer_norm: eps %g must be >= 0", eps);
    int64_t C = ct__numel(n_norm, a->shape + a->ndim - n_norm),
            R = ct__numel(a->ndim - n_norm, a->shape);
    const ct_tensor *wb[2] = {weight, bias};
    for (int i = 0; i < 2; i++) {
        const ct_tensor *t = wb[i];
        if (!t) continue;
        if (t->ctx == ctx && (t->storage->device.type != a->storage->device.type ||
                              t->storage->device.index != a->storage->device.index)) {
            char d1[CT_DEVICE_NAME_MAX], d2[CT_DEVICE_NAME_MAX];
            return ct__set_error(ctx, CT_ERR_DEVICE, "layer_norm: %s is on device %s, input on %s",
                                 i ? "bias" : "weight",
                                 ct_device_format(ctx, t->storage->device, d1, sizeof d1),
                                 ct_device_format(ctx, a->storage->device, d2, sizeof d2));
        }
        bool ok = t->ctx == ctx && t->dtype == a->dtype && t->ndim == n_norm;
        for (int j = 0; ok && j < n_norm; j++)
            ok = t->shape[j] == a->shape[a->ndim - n_norm + j];
        if (!ok)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "layer_norm: %s is %s %s, expected %s of the last %d dims of %s",
                                 i ? "bias" : "weight", ct_dtype_name(t->dtype), CT__SHAPE_STR(t),
                                 ct_dtype_name(a->dtype), n_norm, CT__SHAPE_STR(a));
    }
    ct_tensor *x = NULL, *w = NULL, *bb = NULL, *r = NULL, *x2 = NULL;
    int64_t rc[2] = {R, C};
    st = ct_tensor_contiguous(ctx, a, &x);
    if (st == CT_OK) st = ct_tensor_view(ctx, x, 2, rc, &x2);
    if (st == CT_OK && weight) st = ct_tensor_contiguous(ctx, weight, &w);
    if (st == CT_OK && bias) st = ct_tensor_contiguous(ctx, bias, &bb);
    if (st == CT_OK) st = ct__tensor_new(ctx, a->storage->device, a->dtype, a->ndim, a->shape, &r);
    if (st == CT_OK) {
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_LAYER_NORM, 1, 3);
        ct__operand_set(&d.operands[0], r);
        d.operands[0].ndim = 2;
        d.operands[0].shape[0] = R, d.operands[0].shape[1] = C;
        d.operands[0].strides[0] = C, d.operands[0].strides[1] = 1;
        ct__operand_set(&d.operands[1], x2);
        if (w) ct__operand_set(&d.operands[2], w);
        if (bb) ct__operand_set(&d.operands[3], bb);
        d.operands[2].dtype = d.operands[3].dtype = a->dtype;
        d.compute_dtype = a->dtype;
        d.scalars[0] = eps;
        st = ct__submit(ctx, r->storage->device, &d);
    }
    ct_tensor_release(x);
    ct_tensor_release(x2);
    ct_tensor_release(w);
    ct_tensor_release(bb);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

static ct_status ct__fwd_embedding(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                                   ct_tensor **out) {
    const ct_tensor *ins[2] = {weight, indices};
    ct_status st = ct__check_args(ctx, "embedding", 2, ins, out);
    if (st != CT_OK) return st;
    if (weight->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "embedding: weight must be 2-d (V, D), got %s",
                             CT__SHAPE_STR(weight));
    if (indices->dtype != CT_INT32 && indices->dtype != CT_INT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "embedding: indices must be int32 or int64, got %s",
                             ct_dtype_name(indices->dtype));
    if (indices->ndim + 1 > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "embedding: indices have too many dims (%d)",
                             indices->ndim);
    int64_t N = ct_tensor_numel(indices), D = weight->shape[1];
    int64_t oshape[CT_MAX_DIMS];
    for (int i = 0; i < indices->ndim; i++)
        oshape[i] = indices->shape[i];
    oshape[indices->ndim] = D;
    ct_tensor *ix1 = NULL, *r = NULL;
    int64_t n1[1] = {N};
    st = ct_tensor_reshape(ctx, indices, 1, n1, &ix1);
    if (st == CT_OK)
        st = ct__tensor_new(ctx, weight->storage->device, weight->dtype, indices->ndim + 1, oshape,
                            &r);
    if (st == CT_OK) {
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_EMBEDDING, 1, 2);
        ct__operand_set(&d.operands[0], r);
        d.operands[0].ndim = 2;
        d.operands[0].shape[0] = N, d.operands[0].shape[1] = D;
        d.operands[0].strides[0] = D, d.operands[0].strides[1] = 1;
        ct__operand_set(&d.operands[1], weight);
        ct__operand_set(&d.operands[2], ix1);
        d.compute_dtype = weight->dtype;
        st = ct__submit(ctx, r->storage->device, &d);
        if (st == CT_ERR_INDEX)
            ct__set_error(ctx, st, "embedding: an index is outside [0, %lld)",
                          (long long)weight->shape[0]);
    }
    ct_tensor_release(ix1);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* ---- public front ends that record autograd nodes (tensor/ag_front.h) ---- */
ct_status ct_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    if (ctx && out &&
        ((ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) ||
         (ct__tensor_live(b) && ct_dtype_is_complex(b->dtype))))
        return ct__fwd_matmul(ctx, a, b, out); /* complex: a composite of recorded ops */
    CT__AG_WRAP(ctx, out, ct__fwd_matmul(ctx, a, b, out), CT__AG_IN2(CT__AG_MATMUL, a, b));
}
ct_status ct_bmm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    if (ctx && out &&
        ((ct__tensor_live(a) && ct_dtype_is_complex(a->dtype)) ||
         (ct__tensor_live(b) && ct_dtype_is_complex(b->dtype))))
        return ct__fwd_bmm(ctx, a, b, out); /* complex: matmul's recorded composite */
    CT__AG_WRAP(ctx, out, ct__fwd_bmm(ctx, a, b, out),
                (CT__AG_IN2(CT__AG_MATMUL, a, b), r_.n_iv = 1, r_.iv[0] = 1));
}
ct_status ct_layer_norm(ct_ctx *ctx, const ct_tensor *a, int n_norm, const ct_tensor *weight,
                        const ct_tensor *bias, double eps, ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_layer_norm(ctx, a, n_norm, weight, bias, eps, out),
                (CT__AG_IN3(CT__AG_LAYER_NORM, a, weight, bias), r_.n_iv = 1, r_.iv[0] = n_norm,
                 r_.sc[0] = eps));
}
ct_status ct_embedding(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                       ct_tensor **out) {
    CT__AG_WRAP(ctx, out, ct__fwd_embedding(ctx, weight, indices, out),
                CT__AG_IN2(CT__AG_EMBEDDING, weight, indices));
}

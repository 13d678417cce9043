/* Sticky-error op helpers for backward formulas: each calls one public op, keeps the result in the
 * call's temporaries (released after the formula) and turns into a no-op after the first error, so
 * a formula reads as straight-line math. */
#include "autograd/autograd_impl.h"

ct_tensor *ct__ag_keep(ct__ag_call *c, ct_status st, ct_tensor *t) {
    if (st != CT_OK) {
        if (c->st == CT_OK) c->st = st;
        ct_tensor_release(t);
        return NULL;
    }
    if (c->n_tmp >= CT__AG_MAX_TMP) {
        ct_tensor_release(t);
        c->st = ct__set_error(c->ctx, CT_ERR_STATE,
                              "autograd: a backward formula used too many "
                              "intermediates");
        return NULL;
    }
    c->tmp[c->n_tmp++] = t;
    return t;
}

/* Run CALL (writing r) unless an earlier step failed or an operand is missing. */
#define CT__AG_OP(c, ok, CALL)                                                                     \
    do {                                                                                           \
        if ((c)->st != CT_OK) return NULL;                                                         \
        if (!(ok)) {                                                                               \
            (c)->st = CT_ERR_STATE;                                                                \
            return NULL;                                                                           \
        }                                                                                          \
        ct_tensor *r = NULL;                                                                       \
        ct_status st_ = CALL;                                                                      \
        return ct__ag_keep((c), st_, r);                                                           \
    } while (0)

ct_tensor *ct__ag_add(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    CT__AG_OP(c, a && b, ct_add(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_sub(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    CT__AG_OP(c, a && b, ct_sub(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_mul(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    CT__AG_OP(c, a && b, ct_mul(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_div(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    CT__AG_OP(c, a && b, ct_div(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_add_s(ct__ag_call *c, const ct_tensor *a, double v) {
    CT__AG_OP(c, a, ct_add_scalar(c->ctx, a, v, &r));
}
ct_tensor *ct__ag_mul_s(ct__ag_call *c, const ct_tensor *a, double v) {
    CT__AG_OP(c, a, ct_mul_scalar(c->ctx, a, v, &r));
}
ct_tensor *ct__ag_div_s(ct__ag_call *c, const ct_tensor *a, double v) {
    CT__AG_OP(c, a, ct_div_scalar(c->ctx, a, v, &r));
}
ct_tensor *ct__ag_neg(ct__ag_call *c, const ct_tensor *a) {
    CT__AG_OP(c, a, ct_neg(c->ctx, a, &r));
}
ct_tensor *ct__ag_apply(ct__ag_call *c, ct__ag_unary_fn fn, const ct_tensor *a) {
    CT__AG_OP(c, a, fn(c->ctx, a, &r));
}
ct_tensor *ct__ag_apply2(ct__ag_call *c, ct__ag_binary_fn fn, const ct_tensor *a,
                         const ct_tensor *b) {
    CT__AG_OP(c, a && b, fn(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_exp(ct__ag_call *c, const ct_tensor *a) {
    CT__AG_OP(c, a, ct_exp(c->ctx, a, &r));
}
ct_tensor *ct__ag_addcmul(ct__ag_call *c, const ct_tensor *a, const ct_tensor *t1,
                          const ct_tensor *t2, double v) {
    CT__AG_OP(c, a && t1 && t2, ct_addcmul(c->ctx, a, t1, t2, v, &r));
}
ct_tensor *ct__ag_tanh(ct__ag_call *c, const ct_tensor *a) {
    CT__AG_OP(c, a, ct_tanh(c->ctx, a, &r));
}
ct_tensor *ct__ag_rsqrt(ct__ag_call *c, const ct_tensor *a) {
    CT__AG_OP(c, a, ct_rsqrt(c->ctx, a, &r));
}
ct_tensor *ct__ag_pow(ct__ag_call *c, const ct_tensor *a, double e) {
    CT__AG_OP(c, a, ct_pow(c->ctx, a, e, &r));
}
static ct_tensor *ct__ag_cmp_bool(ct__ag_call *c, int kind, const ct_tensor *a, double v) {
    CT__AG_OP(c, a,
              kind == 0   ? ct_eq_scalar(c->ctx, a, v, &r)
              : kind == 1 ? ct_gt_scalar(c->ctx, a, v, &r)
              : kind == 2 ? ct_lt_scalar(c->ctx, a, v, &r)
              : kind == 3 ? ct_ge_scalar(c->ctx, a, v, &r)
                          : ct_le_scalar(c->ctx, a, v, &r));
}
ct_tensor *ct__ag_cmp_s(ct__ag_call *c, int kind, const ct_tensor *a, double v, ct_dtype dt) {
    ct_tensor *b = ct__ag_cmp_bool(c, kind, a, v);
    return dt == CT_BOOL ? b : ct__ag_cast(c, b, dt);
}
ct_tensor *ct__ag_eq(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    CT__AG_OP(c, a && b, ct_eq(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_cast(ct__ag_call *c, const ct_tensor *a, ct_dtype dt) {
    CT__AG_OP(c, a, ct_cast(c->ctx, a, dt, &r));
}
ct_tensor *ct__ag_where(ct__ag_call *c, const ct_tensor *cond, const ct_tensor *a,
                        const ct_tensor *b) {
    CT__AG_OP(c, cond && a && b, ct_where(c->ctx, cond, a, b, &r));
}
ct_tensor *ct__ag_scalar(ct__ag_call *c, ct_dtype dt, double v) {
    CT__AG_OP(c, true, ct_tensor_full(c->ctx, dt, 0, NULL, v, &r));
}
ct_tensor *ct__ag_zeros(ct__ag_call *c, const ct__ag_tmeta *m) {
    CT__AG_OP(c, m, ct_tensor_zeros(c->ctx, m->dtype, m->ndim, m->shape, &r));
}
ct_tensor *ct__ag_sum(ct__ag_call *c, const ct_tensor *a, int n, const int *dims, bool keep) {
    CT__AG_OP(c, a, ct_sum(c->ctx, a, n, dims, keep, &r));
}
ct_tensor *ct__ag_mean(ct__ag_call *c, const ct_tensor *a, int n, const int *dims, bool keep) {
    CT__AG_OP(c, a, ct_mean(c->ctx, a, n, dims, keep, &r));
}
ct_tensor *ct__ag_reshape(ct__ag_call *c, const ct_tensor *a, int nd, const int64_t *shape) {
    CT__AG_OP(c, a, ct_tensor_reshape(c->ctx, a, nd, shape, &r));
}
ct_tensor *ct__ag_expand(ct__ag_call *c, const ct_tensor *a, int nd, const int64_t *shape) {
    CT__AG_OP(c, a, ct_tensor_expand(c->ctx, a, nd, shape, &r));
}
ct_tensor *ct__ag_transpose(ct__ag_call *c, const ct_tensor *a, int d0, int d1) {
    CT__AG_OP(c, a, ct_tensor_transpose(c->ctx, a, d0, d1, &r));
}
ct_tensor *ct__ag_permute(ct__ag_call *c, const ct_tensor *a, const int *perm) {
    CT__AG_OP(c, a, ct_tensor_permute(c->ctx, a, perm, &r));
}
ct_tensor *ct__ag_unsqueeze(ct__ag_call *c, const ct_tensor *a, int d) {
    CT__AG_OP(c, a, ct_tensor_unsqueeze(c->ctx, a, d, &r));
}
ct_tensor *ct__ag_squeeze(ct__ag_call *c, const ct_tensor *a, int d) {
    CT__AG_OP(c, a, ct_tensor_squeeze(c->ctx, a, d, &r));
}
ct_tensor *ct__ag_slice(ct__ag_call *c, const ct_tensor *a, int d, int64_t s, int64_t e,
                        int64_t step) {
    CT__AG_OP(c, a, ct_tensor_slice(c->ctx, a, d, s, e, step, &r));
}
ct_tensor *ct__ag_matmul(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b) {
    CT__AG_OP(c, a && b, ct_matmul(c->ctx, a, b, &r));
}
ct_tensor *ct__ag_arange(ct__ag_call *c, int64_t n) {
    CT__AG_OP(c, true, ct_tensor_arange(c->ctx, CT_INT64, 0, (double)n, 1, &r));
}

ct_tensor *ct__ag_sum_to(ct__ag_call *c, const ct_tensor *g, const ct__ag_tmeta *m) {
    if (!g || c->st != CT_OK) return NULL;
    int nd = ct_tensor_ndim(g), lead = nd - m->ndim, dims[CT_MAX_DIMS], n = 0;
    const int64_t *gs = ct_tensor_shape(g);
    for (int i = 0; i < nd; i++)
        if (i < lead || (m->shape[i - lead] == 1 && gs[i] != 1)) dims[n++] = i;
    const ct_tensor *r = g;
    if (n > 0) r = ct__ag_sum(c, r, n, dims, true);
    if (!r) return NULL; /* the sum failed (its status is in c->st) */
    bool same = lead == 0;
    for (int i = 0; same && i < nd; i++)
        same = ct_tensor_shape(r)[i] == m->shape[i];
    if (r && !same) r = ct__ag_reshape(c, r, m->ndim, m->shape);
    if (r && ct_tensor_dtype(r) != m->dtype) r = ct__ag_cast(c, r, m->dtype);
    return (ct_tensor *)r;
}

void ct__ag_set(ct__ag_call *c, int i, const ct_tensor *g) {
    if (!c->need[i] || c->st != CT_OK) return;
    ct_tensor *r = ct__ag_sum_to(c, g, &c->n->in_meta[i]);
    if (r) c->gin[i] = ct_tensor_retain(r);
}

uint32_t ct__ag_reduced_mask(const ct__ag_node *n, int ndim) {
    int nd = (int)n->iv[1];
    if (nd == 0) return ndim == 0 ? 1u : (1u << ndim) - 1u;
    uint32_t m = 0;
    for (int i = 0; i < nd; i++) {
        int d = (int)n->iv[2 + i];
        if (d < 0) d += ndim == 0 ? 1 : ndim;
        if (d >= 0 && d < CT_MAX_DIMS) m |= 1u << d;
    }
    return m;
}

/* Backward formulas of the reductions and of softmax / log_softmax, written with the public ops. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"

#include <string.h>

#define G (c->g[0])
#define IN(i) (c->in[i])
#define OUT (c->out[0])

/* The input shape with the reduced dims set to 1 (the keepdim shape of the output). */
static void keep_shape(const ct__ag_node *n, int64_t *shape) {
    const ct__ag_tmeta *m = &n->in_meta[0];
    uint32_t mask = ct__ag_reduced_mask(n, m->ndim);
    for (int i = 0; i < m->ndim; i++)
        shape[i] = (mask >> i & 1u) ? 1 : m->shape[i];
}
/* t (the output's shape) seen with the keepdim shape. */
static ct_tensor *as_keep(ct__ag_call *c, const ct_tensor *t) {
    int64_t ks[CT_MAX_DIMS];
    keep_shape(c->n, ks);
    if (c->n->iv[0]) return (ct_tensor *)t;
    return ct__ag_reshape(c, t, c->n->in_meta[0].ndim, ks);
}
static ct_tensor *expand_in(ct__ag_call *c, const ct_tensor *t) {
    const ct__ag_tmeta *m = &c->n->in_meta[0];
    return ct__ag_expand(c, t, m->ndim, m->shape);
}

static void bw_sum(ct__ag_call *c) { ct__ag_set(c, 0, expand_in(c, as_keep(c, G))); }
static void bw_mean(ct__ag_call *c) {
    const ct__ag_tmeta *m = &c->n->in_meta[0];
    uint32_t mask = ct__ag_reduced_mask(c->n, m->ndim);
    double cnt = 1;
    for (int i = 0; i < m->ndim; i++)
        if (mask >> i & 1u) cnt *= (double)m->shape[i];
    ct__ag_set(c, 0, expand_in(c, ct__ag_div_s(c, as_keep(c, G), cnt)));
}
/* amax / amin: the gradient is split evenly between the elements equal to the extreme */
static void bw_amax(ct__ag_call *c) {
    const ct__ag_tmeta *m = &c->n->in_meta[0];
    ct_tensor *hit = ct__ag_eq(c, IN(0), as_keep(c, OUT)); /* bool, input shape */
    int dims[CT_MAX_DIMS], nd = 0;
    uint32_t mask = ct__ag_reduced_mask(c->n, m->ndim);
    for (int i = 0; i < m->ndim; i++)
        if (mask >> i & 1u) dims[nd++] = i;
    /* number of tied extremes per output (an int64 sum, cast at the output's size) */
    ct_tensor *cnt = ct__ag_cast(c, nd ? ct__ag_sum(c, hit, nd, dims, true) : hit, m->dtype);
    ct_tensor *share = ct__ag_div(c, as_keep(c, G), cnt);
    /* share * hit, as torch's (g / count) * mask: a NaN extreme (no element equals it, count 0)
     * gives its whole slice NaN instead of zeros */
    ct__ag_set(c, 0, ct__ag_mul(c, share, ct__ag_cast(c, hit, m->dtype)));
}
static void bw_softmax(ct__ag_call *c) { /* (g - sum(g * y)) * y, as torch: no cancellation of
                                          * g y against y sum(g y) where y is tiny */
    int d = (int)c->n->iv[0];
    ct_tensor *s = ct__ag_sum(c, ct__ag_mul(c, G, OUT), 1, &d, true);
    ct__ag_set(c, 0, ct__ag_mul(c, ct__ag_sub(c, G, s), OUT));
}
static void bw_log_softmax(ct__ag_call *c) { /* g - exp(y) * sum(g) */
    int d = (int)c->n->iv[0];
    ct__ag_set(c, 0,
               ct__ag_sub(c, G, ct__ag_mul(c, ct__ag_exp(c, OUT), ct__ag_sum(c, G, 1, &d, true))));
}

/* cumsum: each input feeds every later output, so its gradient is the reversed running sum of g:
 * flip(cumsum(flip(g))) along the dim */
static void bw_cumsum(ct__ag_call *c) {
    int d = (int)c->n->iv[0];
    if (c->n->in_meta[0].ndim == 0) { /* a 0-d cumsum is the identity */
        ct__ag_set(c, 0, G);
        return;
    }
    ct_tensor *f = NULL, *s = NULL, *r = NULL;
    ct_status st = c->st == CT_OK ? ct_flip(c->ctx, G, 1, &d, &f) : c->st;
    f = ct__ag_keep(c, st, f);
    st = c->st == CT_OK ? ct_cumsum(c->ctx, f, d, &s) : c->st;
    s = ct__ag_keep(c, st, s);
    st = c->st == CT_OK ? ct_flip(c->ctx, s, 1, &d, &r) : c->st;
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}

/* cumprod's gradient from differentiable ops (create_graph), torch's formulas: rcumsum(g y) / x
 * when the input has no zero, else column by column, g_k = sum_{j >= k} g_j prod_{i <= j, i != k}
 * x_i (O(n^2), as torch's; exact to every order with any number of zeros) */
static ct_status ag_cumprod_grad_graph(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *g, int d,
                                       ct_tensor **out) {
    const int64_t n = x->shape[d];
    if (n == 0 || ct_tensor_numel(x) == 0) return ct_zeros_like(ctx, x, out);
    if (n > (1 << 20)) /* the column form below is O(n^2) ops */
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "cumprod backward under create_graph: dim of %lld elements (at most "
                             "2^20)",
                             (long long)n);
    ct_tensor *y = NULL, *gy = NULL, *rc = NULL;
    bool zeros = true; /* unknown under a capture (no host reads): the general form */
    ct_status st = ct__host_any_zero(ctx, x, true, &zeros);
    if (st != CT_OK) return st;
    if (!zeros) {
        st = ct_cumprod(ctx, x, d, &y);
        if (st == CT_OK) st = ct_mul(ctx, g, y, &gy);
        if (st == CT_OK) st = ct_flip(ctx, gy, 1, &d, &rc);
        ct_tensor_release(gy), gy = NULL;
        if (st == CT_OK) st = ct_cumsum(ctx, rc, d, &gy);
        ct_tensor_release(rc), rc = NULL;
        if (st == CT_OK) st = ct_flip(ctx, gy, 1, &d, &rc);
        if (st == CT_OK) st = ct_div(ctx, rc, x, out);
        ct_tensor_release(y), ct_tensor_release(gy), ct_tensor_release(rc);
        return st;
    }
    ct_tensor **cols = ct__alloc(ctx, (size_t)n * sizeof *cols, 16);
    if (!cols) return ct__set_error(ctx, CT_ERR_OOM, "cumprod backward: out of memory");
    memset(cols, 0, (size_t)n * sizeof *cols);
    int64_t one[CT_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++)
        one[i] = i == d ? 1 : x->shape[i];
    for (int64_t k = 0; k < n && st == CT_OK; k++) {
        ct_tensor *head = NULL, *before = NULL, *tail = NULL, *after = NULL, *rest = NULL;
        ct_tensor *om = NULL, *gs = NULL, *prod = NULL;
        if (k == 0) {
            st = ct_tensor_ones(ctx, x->dtype, x->ndim, one, &before);
        } else {
            st = ct_tensor_narrow(ctx, x, d, 0, k, &head);
            if (st == CT_OK) st = ct_prod(ctx, head, d, true, &before);
        }
        if (st == CT_OK && k + 1 < n) { /* before * cumprod(x[k+1:]) */
            st = ct_tensor_narrow(ctx, x, d, k + 1, n - k - 1, &tail);
            if (st == CT_OK) st = ct_cumprod(ctx, tail, d, &after);
            if (st == CT_OK) st = ct_mul(ctx, before, after, &rest);
            const ct_tensor *parts[2] = {before, rest};
            if (st == CT_OK) st = ct_cat(ctx, 2, parts, d, &om);
        } else if (st == CT_OK) {
            om = ct_tensor_retain(before);
        }
        if (st == CT_OK) st = ct_tensor_narrow(ctx, g, d, k, n - k, &gs);
        if (st == CT_OK) st = ct_mul(ctx, gs, om, &prod);
        if (st == CT_OK) st = ct_sum(ctx, prod, 1, &d, true, &cols[k]);
        ct_tensor *rel[] = {head, before, tail, after, rest, om, gs, prod};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++)
            ct_tensor_release(rel[i]);
    }
    if (st == CT_OK) st = ct_cat(ctx, (int)n, (const ct_tensor *const *)cols, d, out);
    for (int64_t k = 0; k < n; k++)
        ct_tensor_release(cols[k]);
    ct__free(ctx, cols);
    return st;
}

/* cumprod: a scan kernel of its own (ops/reduce.c), exact with zeros; under create_graph the
 * differentiable form above */
static void bw_cumprod(ct__ag_call *c) {
    if (c->st != CT_OK || !G) return;
    if (c->n->in_meta[0].ndim == 0) { /* a 0-d cumprod is the identity */
        ct__ag_set(c, 0, G);
        return;
    }
    const ct_tensor *x = IN(0);
    int d = (int)c->n->iv[0];
    ct_tensor *r = NULL;
    ct_status st = c->ctx->grad_off || !(G->requires_grad || x->requires_grad)
                       ? ct__cumprod_grad(c->ctx, x, G, d, &r)
                       : ag_cumprod_grad_graph(c->ctx, x, G, d, &r);
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}

#define F(op, name, fn, si, so)                                                                    \
    case op: {                                                                                     \
        static const ct__ag_formula f = {name, fn, si, so};                                        \
        return &f;                                                                                 \
    }
const ct__ag_formula *ct__ag_formula_reduce(int op) {
    switch (op) {
        F(CT__AG_SUM, "SumBackward", bw_sum, 0, 0)
        F(CT__AG_MEAN, "MeanBackward", bw_mean, 0, 0)
        F(CT__AG_AMAX, "AmaxBackward", bw_amax, 1, 1)
        F(CT__AG_AMIN, "AminBackward", bw_amax, 1, 1)
        F(CT__AG_SOFTMAX, "SoftmaxBackward", bw_softmax, 0, 1)
        F(CT__AG_LOG_SOFTMAX, "LogSoftmaxBackward", bw_log_softmax, 0, 1)
        F(CT__AG_CUMSUM, "CumsumBackward", bw_cumsum, 0, 0)
        F(CT__AG_CUMPROD, "CumprodBackward", bw_cumprod, 1, 0)
    default: return NULL;
    }
}

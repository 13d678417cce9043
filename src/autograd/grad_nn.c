/* Backward formulas of matmul / bmm, layer_norm, embedding, unfold / fold and the 2:4 sparse mm /
 * linear, written with the public ops. */
#include "autograd/autograd_impl.h"
#include "ctorch/attention.h"

#define G (c->g[0])
#define IN(i) (c->in[i])

/* A 2-d tensor laid out column-major (strides (1, rows)), more than one column. */
static bool ct__ag_colmajor(const ct_tensor *t) {
    if (!t || ct_tensor_ndim(t) != 2) return false;
    const int64_t *sh = ct_tensor_shape(t), *st = ct_tensor_stride(t);
    return sh[0] > 1 && sh[1] > 1 && st[0] == 1 && st[1] == sh[0];
}

static void bw_matmul(ct__ag_call *c) {
    const ct_tensor *a = IN(0), *b = IN(1);
    int na = ct_tensor_ndim(a), nb = ct_tensor_ndim(b);
    /* 1-d operands as matrices: a (K) -> (1, K), b (K) -> (K, 1); g gets those dims back */
    const ct_tensor *a2 = na == 1 ? ct__ag_unsqueeze(c, a, 0) : a;
    const ct_tensor *b2 = nb == 1 ? ct__ag_unsqueeze(c, b, -1) : b;
    const ct_tensor *g2 = G;
    if (na == 1 && nb == 1) {
        int64_t s11[2] = {1, 1};
        g2 = ct__ag_reshape(c, G, 2, s11);
    } else if (na == 1) {
        g2 = ct__ag_unsqueeze(c, G, -2);
    } else if (nb == 1) {
        g2 = ct__ag_unsqueeze(c, G, -1);
    }
    /* A column-major 2-d operand (a transposed view: linear's weight) gets its gradient in its own
     * layout, as PyTorch's mm backward does: (b g^T)^T rather than g b^T, so the transposed view's
     * backward hands on a contiguous tensor that accumulates into .grad without a strided copy. */
    if (c->need[0]) { /* g @ b^T, summed over broadcast batch dims */
        ct_tensor *ga =
            ct__ag_colmajor(a2) && ct_tensor_ndim(g2) == 2
                ? ct__ag_transpose(c, ct__ag_matmul(c, b2, ct__ag_transpose(c, g2, 0, 1)), 0, 1)
                : ct__ag_matmul(c, g2, ct__ag_transpose(c, b2, -1, -2));
        if (na == 1) ga = ct__ag_squeeze(c, ga, -2);
        ct__ag_set(c, 0, ga);
    }
    if (c->need[1]) { /* a^T @ g */
        ct_tensor *gb =
            ct__ag_colmajor(b2) && ct_tensor_ndim(g2) == 2
                ? ct__ag_transpose(c, ct__ag_matmul(c, ct__ag_transpose(c, g2, 0, 1), a2), 0, 1)
                : ct__ag_matmul(c, ct__ag_transpose(c, a2, -1, -2), g2);
        if (nb == 1) gb = ct__ag_squeeze(c, gb, -1);
        ct__ag_set(c, 1, gb);
    }
}

static void bw_layer_norm(ct__ag_call *c) {
    const ct_tensor *x = IN(0), *w = IN(1);
    int nn = (int)c->n->iv[0], nd = c->n->in_meta[0].ndim;
    double eps = c->n->sc[0];
    int ndims[CT_MAX_DIMS], bdims[CT_MAX_DIMS], nb = nd - nn;
    for (int i = 0; i < nn; i++)
        ndims[i] = nb + i;
    for (int i = 0; i < nb; i++)
        bdims[i] = i;
    /* recompute the normalised input: xhat = (x - mean) * rsqrt(var + eps), var biased */
    ct_tensor *mu = ct__ag_mean(c, x, nn, ndims, true);
    ct_tensor *xc = ct__ag_sub(c, x, mu);
    ct_tensor *var = ct__ag_mean(c, ct__ag_mul(c, xc, xc), nn, ndims, true);
    ct_tensor *rstd = ct__ag_rsqrt(c, ct__ag_add_s(c, var, eps));
    ct_tensor *xhat = ct__ag_mul(c, xc, rstd);
    if (c->need[0]) {
        /* dx = rstd * (gx - mean(gx) - xhat * mean(gx * xhat)), gx = g * w */
        ct_tensor *gx = w ? ct__ag_mul(c, G, w) : G;
        ct_tensor *m1 = ct__ag_mean(c, gx, nn, ndims, true);
        ct_tensor *m2 = ct__ag_mean(c, ct__ag_mul(c, gx, xhat), nn, ndims, true);
        ct__ag_set(
            c, 0,
            ct__ag_mul(c, rstd, ct__ag_sub(c, ct__ag_sub(c, gx, m1), ct__ag_mul(c, xhat, m2))));
    }
    if (c->need[1]) {
        ct_tensor *gw = ct__ag_mul(c, G, xhat);
        ct__ag_set(c, 1, nb ? ct__ag_sum(c, gw, nb, bdims, false) : gw);
    }
    if (c->need[2]) ct__ag_set(c, 2, nb ? ct__ag_sum(c, G, nb, bdims, false) : G);
}

static void bw_embedding(ct__ag_call *c) {
    /* dense grad: onehot(indices, V)^T @ g, as (V, N) @ (N, D) */
    const ct__ag_tmeta *wm = &c->n->in_meta[0];
    int64_t V = wm->shape[0], D = wm->shape[1];
    int64_t N = ct_tensor_numel(IN(1));
    int64_t sn1[2] = {N, 1}, s1v[2] = {1, V}, snd[2] = {N, D};
    ct_tensor *idx = ct__ag_reshape(c, IN(1), 2, sn1);
    ct_tensor *ar = ct__ag_reshape(c, ct__ag_arange(c, V), 2, s1v);
    ct_tensor *oh = ct__ag_cast(c, ct__ag_eq(c, idx, ar), wm->dtype);
    ct__ag_set(c, 0, ct__ag_matmul(c, ct__ag_transpose(c, oh, 0, 1), ct__ag_reshape(c, G, 2, snd)));
}

/* unfold and fold are each other's adjoint: the gradient of unfold sums the columns back into
 * the image (fold), the gradient of fold picks the patches again (unfold) */
static void bw_unfold(ct__ag_call *c) {
    const int64_t *v = c->n->iv;
    int64_t k[2] = {v[0], v[1]}, d[2] = {v[2], v[3]}, p[2] = {v[4], v[5]}, s[2] = {v[6], v[7]},
            o[2] = {v[8], v[9]};
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK ? ct_fold(c->ctx, c->g[0], o, k, d, p, s, &r) : c->st;
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}
static void bw_fold(ct__ag_call *c) {
    const int64_t *v = c->n->iv;
    int64_t k[2] = {v[0], v[1]}, d[2] = {v[2], v[3]}, p[2] = {v[4], v[5]}, s[2] = {v[6], v[7]};
    ct_tensor *r = NULL;
    ct_status st = c->st == CT_OK ? ct_unfold(c->ctx, c->g[0], k, d, p, s, &r) : c->st;
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}

/* 2:4 sparse mm / linear: the recorded dense expansion of the sparse matrix stands in for it;
 * the sparse matrix itself is not a tensor of the graph and gets no gradient. */
static void bw_sparse24_mm(ct__ag_call *c) { /* out = s * (A @ B) + bias[:, None] */
    if (c->need[1])
        ct__ag_set(
            c, 1,
            ct__ag_mul_s(c, ct__ag_matmul(c, ct__ag_transpose(c, IN(0), 0, 1), G), c->n->sc[0]));
    if (c->need[2]) {
        const int d1 = 1;
        ct__ag_set(c, 2, ct__ag_sum(c, G, 1, &d1, false));
    }
}
static void bw_sparse24_linear(ct__ag_call *c) { /* y = x @ W^T + b */
    if (c->need[1]) ct__ag_set(c, 1, ct__ag_matmul(c, G, IN(0)));
    if (c->need[2]) ct__ag_set(c, 2, G); /* ct__ag_set sums the batch dims down to (O) */
}

/* FlexAttention: the recomputing backward of the attention module, from the saved out and lse;
 * the mods and the block mask come from the record (the saved block table keeps the mask alive). */
static void bw_flex_attention(ct__ag_call *c) {
    if (c->st != CT_OK) return;
    const int64_t *iv = c->n->iv;
    ct_flex_options o;
    memset(&o, 0, sizeof o);
    o.size = sizeof o;
    o.scale = c->n->sc[0];
    o.score_mod = (ct_score_mod_fn)(intptr_t)iv[0];
    o.score_user = (void *)(intptr_t)iv[1];
    o.score_mod_grad = (ct_score_mod_fn)(intptr_t)iv[2];
    o.block_mask = (const ct_block_mask *)(intptr_t)iv[3];
    o.enable_gqa = iv[4] != 0;
    ct_tensor *g[3] = {0};
    ct_status st = ct_flex_attention_backward(c->ctx, IN(0), IN(1), IN(2), c->out[0], c->out[1],
                                              c->g[0], c->g[1], &o, &g[0], &g[1], &g[2]);
    for (int i = 0; i < 3; i++) {
        ct_tensor *t = ct__ag_keep(c, st, g[i]);
        if (t) ct__ag_set(c, i, t);
    }
}

#define F(op, name, fn, si, so)                                                                    \
    case op: {                                                                                     \
        static const ct__ag_formula f = {name, fn, si, so};                                        \
        return &f;                                                                                 \
    }
const ct__ag_formula *ct__ag_formula_nn(int op) {
    switch (op) {
        F(CT__AG_MATMUL, "MmBackward", bw_matmul, 3, 0)
        F(CT__AG_LAYER_NORM, "NativeLayerNormBackward", bw_layer_norm, 3, 0)
        F(CT__AG_EMBEDDING, "EmbeddingBackward", bw_embedding, 2, 0)
        F(CT__AG_UNFOLD, "Im2ColBackward", bw_unfold, 0, 0)
        F(CT__AG_FOLD, "Col2ImBackward", bw_fold, 0, 0)
        F(CT__AG_SPARSE24_MM, "SparseSemiStructuredMmBackward", bw_sparse24_mm, 1, 0)
        F(CT__AG_SPARSE24_LINEAR, "SparseSemiStructuredLinearBackward", bw_sparse24_linear, 1, 0)
        F(CT__AG_FLEX_ATTENTION, "FlexAttentionBackward", bw_flex_attention, 15, 3)
    default: return NULL;
    }
}

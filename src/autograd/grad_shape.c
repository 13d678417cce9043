/* Backward formulas of issue 13's shaping and indexing ops (flip, roll, tril/triu, gather,
 * index_select, cat, repeat, scatter_add, index_add),
 * written with the public ops: each is its own kind of inverse on the gradient. */
#include "autograd/autograd_impl.h"
#include "ctorch/ops.h"

#include <stdint.h>

#define G (c->g[0])

static void bw_flip(ct__ag_call *c) { /* flip is its own inverse */
    if (c->st != CT_OK || !G) return;
    const int64_t *v = c->n->iv;
    int n = (int)v[0], dims[CT_MAX_DIMS];
    for (int i = 0; i < n; i++)
        dims[i] = (int)v[1 + i];
    ct_tensor *r = NULL;
    ct_status st = ct_flip(c->ctx, G, n, dims, &r);
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}
static void bw_roll(ct__ag_call *c) { /* roll back by the opposite shifts */
    if (c->st != CT_OK || !G) return;
    const int64_t *v = c->n->iv;
    int n = (int)v[0], dims[CT_MAX_DIMS];
    int64_t sh[CT_MAX_DIMS];
    bool flat = v[1 + n] == INT64_MIN;
    for (int i = 0; i < n; i++) {
        sh[i] = v[1 + i] == INT64_MIN ? INT64_MAX : -v[1 + i];
        dims[i] = flat ? 0 : (int)v[1 + n + i];
    }
    ct_tensor *r = NULL;
    ct_status st = ct_roll(c->ctx, G, n, sh, flat ? NULL : dims, &r);
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}
static void bw_tril(ct__ag_call *c) { /* the same triangle of the gradient */
    if (c->st != CT_OK || !G) return;
    const int64_t *v = c->n->iv;
    ct_tensor *r = NULL;
    ct_status st = v[1] ? ct_triu(c->ctx, G, v[0], &r) : ct_tril(c->ctx, G, v[0], &r);
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}

/* gather / index_select: the gradient added into zeros of the input's shape at the indices */
static void bw_take(ct__ag_call *c) {
    if (c->st != CT_OK || !G || !c->need[0]) return;
    const ct__ag_tmeta *m = &c->n->in_meta[0];
    int dim = (int)c->n->iv[0];
    ct_tensor *z = NULL, *r = NULL;
    ct_status st = ct_tensor_zeros(c->ctx, ct_tensor_dtype(G), m->ndim, m->shape, &z);
    if (st == CT_OK)
        st = c->n->op == CT__AG_GATHER ? ct_scatter_add(c->ctx, z, dim, c->in[1], G, &r)
                                       : ct_index_add(c->ctx, z, dim, c->in[1], G, 1.0, &r);
    ct_tensor_release(z);
    ct__ag_set(c, 0, ct__ag_keep(c, st, r));
}

/* cat (up to CT__AG_MAX_IN inputs a node): each input's gradient is its slice of g along the dim
 * (iv[0] dim, iv[1 + i] the input's size there, -1 for a skipped legacy empty 1-d input) */
static void bw_cat(ct__ag_call *c) {
    int d = (int)c->n->iv[0];
    int64_t off = 0;
    for (int i = 0; i < c->n->n_in; i++) {
        int64_t len = c->n->iv[1 + i];
        if (len < 0) { /* an empty 1-d input torch 1.13 skips: its gradient is empty too */
            ct__ag_set(c, i, ct__ag_zeros(c, &c->n->in_meta[i]));
            continue;
        }
        if (c->need[i]) ct__ag_set(c, i, ct__ag_slice(c, G, d, off, off + len, 1));
        off += len;
    }
}
/* repeat: the sum of g over the repeated blocks, one dim at a time (split it into (r, s), sum r) */
static void bw_repeat(ct__ag_call *c) {
    const ct__ag_tmeta *m = &c->n->in_meta[0];
    int nr = (int)c->n->iv[0], lead = nr - m->ndim;
    const ct_tensor *g = G;
    for (int k = 0; k < lead; k++) /* leading new dims: plain sums */
        g = ct__ag_sum(c, g, 1, (int[]){0}, false);
    for (int d = 0; d < m->ndim && g; d++) {
        int64_t r = c->n->iv[1 + lead + d], sd = m->shape[d];
        if (r == 1) continue;
        int nd = ct_tensor_ndim(g);
        if (nd + 1 > CT_MAX_DIMS) {
            if (c->st == CT_OK)
                c->st =
                    ct__set_error(c->ctx, CT_ERR_UNSUPPORTED,
                                  "repeat backward: a %d-dim input needs a split beyond %d dims",
                                  nd, CT_MAX_DIMS);
            return;
        }
        int64_t shape[CT_MAX_DIMS];
        for (int i = 0, j = 0; i < nd; i++) {
            if (i == d) {
                shape[j++] = r, shape[j++] = sd;
            } else {
                shape[j++] = ct_tensor_shape(g)[i];
            }
        }
        g = ct__ag_sum(c, ct__ag_reshape(c, g, nd + 1, shape), 1, &d, false);
    }
    ct__ag_set(c, 0, g);
}
/* scatter_add / index_add: self gets g; the source what it was added to (gather / index_select of
 * g, times alpha for index_add) */
static void bw_scatter_add(ct__ag_call *c) {
    int d = (int)c->n->iv[0];
    if (c->need[0] && c->n->op == CT__AG_SCATTER) { /* overwritten places get no gradient */
        const ct__ag_tmeta *im = &c->n->in_meta[1];
        ct_tensor *z = NULL, *r = NULL;
        ct_status st = c->st == CT_OK
                           ? ct_tensor_zeros(c->ctx, ct_tensor_dtype(G), im->ndim, im->shape, &z)
                           : c->st;
        if (st == CT_OK) st = ct_scatter(c->ctx, G, d, c->in[1], z, &r);
        ct_tensor_release(z);
        ct__ag_set(c, 0, ct__ag_keep(c, st, r));
    } else if (c->need[0]) {
        ct__ag_set(c, 0, G);
    }
    if (!c->need[2] || c->st != CT_OK) return;
    ct_tensor *r = NULL;
    ct_status st = c->n->op != CT__AG_INDEX_ADD ? ct_gather(c->ctx, G, d, c->in[1], &r)
                                                : ct_index_select(c->ctx, G, d, c->in[1], &r);
    ct_tensor *gs = ct__ag_keep(c, st, r);
    if (c->n->op == CT__AG_INDEX_ADD && c->n->sc[0] != 1) gs = ct__ag_mul_s(c, gs, c->n->sc[0]);
    ct__ag_set(c, 2, gs);
}

#define F(op, name, fn, si, so)                                                                    \
    case op: {                                                                                     \
        static const ct__ag_formula f = {name, fn, si, so};                                        \
        return &f;                                                                                 \
    }
const ct__ag_formula *ct__ag_formula_shape(int op) {
    switch (op) {
        F(CT__AG_FLIP, "FlipBackward", bw_flip, 0, 0)
        F(CT__AG_ROLL, "RollBackward", bw_roll, 0, 0)
        F(CT__AG_TRIL, "TrilBackward", bw_tril, 0, 0)
        F(CT__AG_GATHER, "GatherBackward", bw_take, 2u, 0)
        F(CT__AG_INDEX_SELECT, "IndexSelectBackward", bw_take, 2u, 0)
        F(CT__AG_CAT, "CatBackward", bw_cat, 0, 0)
        F(CT__AG_REPEAT, "RepeatBackward", bw_repeat, 0, 0)
        F(CT__AG_SCATTER_ADD, "ScatterAddBackward", bw_scatter_add, 2u, 0)
        F(CT__AG_INDEX_ADD, "IndexAddBackward", bw_scatter_add, 2u, 0)
        F(CT__AG_SCATTER, "ScatterBackward", bw_scatter_add, 2u, 0)
    default: return NULL;
    }
}

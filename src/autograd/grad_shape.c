/* Backward formulas of issue 13's ops that have one so far (flip, roll, tril/triu, gather,
 * index_select),
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
    default: return NULL;
    }
}

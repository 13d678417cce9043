/* Backward formulas of the views and copies (view/reshape/squeeze/unsqueeze, permute, transpose,
 * slice/narrow, expand, clone/contiguous), written with the public ops. */
#include "autograd/autograd_impl.h"

#define G (c->g[0])
#define M0 (&c->n->in_meta[0])

static void bw_view(ct__ag_call *c) { ct__ag_set(c, 0, ct__ag_reshape(c, G, M0->ndim, M0->shape)); }
static void bw_permute(ct__ag_call *c) {
    int inv[CT_MAX_DIMS], nd = M0->ndim;
    for (int i = 0; i < nd; i++) {
        int p = (int)c->n->iv[i];
        inv[p < 0 ? p + nd : p] = i;
    }
    ct__ag_set(c, 0, ct__ag_permute(c, G, inv));
}
static void bw_transpose(ct__ag_call *c) {
    ct__ag_set(c, 0, ct__ag_transpose(c, G, (int)c->n->iv[0], (int)c->n->iv[1]));
}
static void bw_slice(ct__ag_call *c) {
    const int64_t *v = c->n->iv;
    ct__ag_set(c, 0, ct__ag_slice_backward(c, G, M0, (int)v[0], v[1], v[2], v[3]));
}
static void bw_identity(ct__ag_call *c) { ct__ag_set(c, 0, G); /* expand: set sums it back */ }
static void bw_slice_backward(ct__ag_call *c) {
    const int64_t *v = c->n->iv;
    ct__ag_set(c, 0, ct__ag_slice(c, G, (int)v[0], v[1], v[2], v[3]));
}

#define F(op, name, fn, si, so)                                                                    \
    case op: {                                                                                     \
        static const ct__ag_formula f = {name, fn, si, so};                                        \
        return &f;                                                                                 \
    }
const ct__ag_formula *ct__ag_formula_views(int op) {
    switch (op) {
        F(CT__AG_VIEW, "ViewBackward", bw_view, 0, 0)
        F(CT__AG_PERMUTE, "PermuteBackward", bw_permute, 0, 0)
        F(CT__AG_TRANSPOSE, "TransposeBackward", bw_transpose, 0, 0)
        F(CT__AG_SLICE, "SliceBackward", bw_slice, 0, 0)
        F(CT__AG_EXPAND, "ExpandBackward", bw_identity, 0, 0)
        F(CT__AG_IDENTITY, "CloneBackward", bw_identity, 0, 0)
        F(CT__AG_SLICE_BACKWARD, "SliceBackwardBackward", bw_slice_backward, 0, 0)
    default: return NULL;
    }
}

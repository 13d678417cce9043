/* Differentiable collectives (torch.distributed.nn): each returns a new tensor and, when an input
 * requires grad, records a tape node whose backward is the adjoint collective: all_reduce's the
 * all_reduce of the gradient, all_gather's a reduce-scatter, reduce_scatter's an all_gather,
 * all_to_all_v's the reverse all_to_all_v, broadcast's a sum to the root, and the 2-D dispatch's
 * the combine. The backward collectives run on every rank whether or not its input needs a
 * gradient, so all ranks must run backward through the same collectives (as with torch). */
#include "dist/dist_impl.h"
#include "ctorch/autograd.h"
#include "ctorch/ops.h"
#include "tensor/ag_front.h"

#include <stdlib.h>
#include <string.h>

enum { NN_BCAST, NN_ALLREDUCE, NN_ALLGATHER, NN_REDSCAT, NN_A2AV, NN_A2AV2D };

typedef struct {
    ct_dist *g;
    int kind;
    ct_reduce_op op;
    int root;
    int64_t *in_splits, *out_splits; /* all_to_all_v: size each */
    ct_tensor *a, *b;                /* saved: input and detached output (MAX/MIN/PROD), or the
                                        2-D layout (a) */
    int64_t a_ver, b_ver;            /* their versions when recorded (nn_finish) */
    int64_t rows;                    /* 2-D: input rows */
} nn_user;

static void nn_free(void *p) {
    nn_user *u = p;
    if (!u) return;
    free(u->in_splits);
    free(u->out_splits);
    ct_tensor_release(u->a);
    ct_tensor_release(u->b);
    free(u);
}

static ct_status nn_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                             ct_tensor **gin);

static const ct__ag_custom NN_FN[] = {
    {"BroadcastBackward", nn_backward, nn_free, false},
    {"AllReduceBackward", nn_backward, nn_free, false},
    {"AllGatherBackward", nn_backward, nn_free, false},
    {"ReduceScatterBackward", nn_backward, nn_free, false},
    {"AllToAllVBackward", nn_backward, nn_free, false},
    {"AllToAllV2dBackward", nn_backward, nn_free, false},
};

/* A copy of t that no tape sees. */
static ct_status plain_clone(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out) {
    bool was = ct_set_grad_enabled(ctx, false);
    ct_status st = ct_tensor_clone(ctx, t, out);
    ct_set_grad_enabled(ctx, was);
    return st;
}

/* Record out = f(in) with u's backward (u is taken in every case). */
static ct_status nn_record(ct_ctx *ctx, int kind, nn_user *u, const ct_tensor *in,
                           ct_tensor **out) {
    return ct__ag_record_custom(ctx, &NN_FN[kind], u, in, out);
}

static nn_user *nn_new(ct_dist *g, int kind) {
    nn_user *u = calloc(1, sizeof *u);
    if (u) {
        u->g = g;
        u->kind = kind;
    }
    return u;
}

static ct_status oom(ct_dist *g, const char *what) {
    return ct__set_error(g->ctx, CT_ERR_OOM, "dist %s: out of memory", what);
}

/* The common tail: run the collective's status st; record when wanted. */
static ct_status nn_finish(ct_dist *g, ct_status st, bool rec, int kind, nn_user *u,
                           const ct_tensor *in, ct_tensor **out) {
    if (st != CT_OK || !rec) {
        nn_free(u);
        if (st != CT_OK) {
            ct_tensor_release(*out);
            *out = NULL;
        }
        return st;
    }
    u->a_ver = u->a ? u->a->storage->version : 0;
    u->b_ver = u->b ? u->b->storage->version : 0;
    return nn_record(g->ctx, kind, u, in, out);
}

#define NN_ARGS(g, in, out, what)                                                                  \
    do {                                                                                           \
        if (!(g)) return CT_ERR_INVALID_ARG;                                                       \
        if (!(out))                                                                                \
            return ct__set_error((g)->ctx, CT_ERR_INVALID_ARG, "dist %s: out is NULL", what);      \
        *(out) = NULL;                                                                             \
        if (!(in))                                                                                 \
            return ct__set_error((g)->ctx, CT_ERR_INVALID_ARG, "dist %s: in is NULL", what);       \
    } while (0)

CT_API ct_status ct_dist_nn_all_reduce(ct_dist *g, const ct_tensor *in, ct_reduce_op op,
                                       ct_tensor **out) {
    NN_ARGS(g, in, out, "nn_all_reduce");
    bool rec = ct__ag_wants(g->ctx, 1, &in);
    nn_user *u = rec ? nn_new(g, NN_ALLREDUCE) : NULL;
    if (rec && !u) return oom(g, "nn_all_reduce");
    ct_status st = plain_clone(g->ctx, in, out);
    if (st == CT_OK) st = ct_dist_all_reduce(g, *out, op);
    if (st == CT_OK && u) {
        u->op = op;
        if (op == CT_REDUCE_MAX || op == CT_REDUCE_MIN || op == CT_REDUCE_PROD) {
            st = ct_tensor_detach(g->ctx, in, &u->a);
            if (st == CT_OK) st = ct_tensor_detach(g->ctx, *out, &u->b);
        }
    }
    return nn_finish(g, st, rec, NN_ALLREDUCE, u, in, out);
}

CT_API ct_status ct_dist_nn_broadcast(ct_dist *g, const ct_tensor *in, int root, ct_tensor **out) {
    NN_ARGS(g, in, out, "nn_broadcast");
    bool rec = ct__ag_wants(g->ctx, 1, &in);
    nn_user *u = rec ? nn_new(g, NN_BCAST) : NULL;
    if (rec && !u) return oom(g, "nn_broadcast");
    if (u) u->root = root;
    ct_status st = plain_clone(g->ctx, in, out);
    if (st == CT_OK) st = ct_dist_broadcast(g, *out, root);
    return nn_finish(g, st, rec, NN_BCAST, u, in, out);
}

static ct_status empty_like_dim0(ct_dist *g, const ct_tensor *in, int64_t d0, ct_tensor **out) {
    int nd = ct_tensor_ndim(in);
    if (nd < 1)
        return ct__set_error(g->ctx, CT_ERR_SHAPE, "dist: the tensor needs at least one dim");
    int64_t s[CT_MAX_DIMS];
    memcpy(s, ct_tensor_shape(in), sizeof(int64_t) * (size_t)nd);
    s[0] = d0;
    return ct_tensor_zeros(g->ctx, ct_tensor_dtype(in), nd, s, out);
}

CT_API ct_status ct_dist_nn_all_gather(ct_dist *g, const ct_tensor *in, ct_tensor **out) {
    NN_ARGS(g, in, out, "nn_all_gather");
    bool rec = ct__ag_wants(g->ctx, 1, &in);
    nn_user *u = rec ? nn_new(g, NN_ALLGATHER) : NULL;
    if (rec && !u) return oom(g, "nn_all_gather");
    /* a 0-d input gathers into [size] as a [1] tensor would */
    int64_t d0 = ct_tensor_ndim(in) ? ct_tensor_shape(in)[0] : 1;
    ct_tensor *in1 = NULL;
    ct_status st = CT_OK;
    if (ct_tensor_ndim(in) == 0) {
        int64_t one = 1;
        bool was = ct_set_grad_enabled(g->ctx, false);
        st = ct_tensor_reshape(g->ctx, in, 1, &one, &in1);
        ct_set_grad_enabled(g->ctx, was);
    }
    const ct_tensor *src = in1 ? in1 : in;
    if (st == CT_OK) st = empty_like_dim0(g, src, d0 * g->size, out);
    if (st == CT_OK) st = ct_dist_all_gather(g, src, *out);
    ct_tensor_release(in1);
    if (st == CT_OK && u) u->rows = ct_tensor_ndim(in) == 0 ? -1 : d0;
    return nn_finish(g, st, rec, NN_ALLGATHER, u, in, out);
}

CT_API ct_status ct_dist_nn_reduce_scatter(ct_dist *g, const ct_tensor *in, ct_reduce_op op,
                                           ct_tensor **out) {
    NN_ARGS(g, in, out, "nn_reduce_scatter");
    bool rec = ct__ag_wants(g->ctx, 1, &in);
    nn_user *u = rec ? nn_new(g, NN_REDSCAT) : NULL;
    if (rec && !u) return oom(g, "nn_reduce_scatter");
    if (u) u->op = op;
    int64_t d0 = ct_tensor_ndim(in) ? ct_tensor_shape(in)[0] : 0;
    ct_status st = empty_like_dim0(g, in, d0 / g->size, out);
    if (st == CT_OK) st = ct_dist_reduce_scatter(g, in, *out, op);
    if (st == CT_OK && u && (op == CT_REDUCE_MAX || op == CT_REDUCE_MIN || op == CT_REDUCE_PROD)) {
        st = ct_tensor_detach(g->ctx, in, &u->a);
        if (st == CT_OK) st = ct_tensor_detach(g->ctx, *out, &u->b);
    }
    return nn_finish(g, st, rec, NN_REDSCAT, u, in, out);
}

CT_API ct_status ct_dist_nn_all_to_all_v(ct_dist *g, const ct_tensor *in, const int64_t *in_splits,
                                         const int64_t *out_splits, ct_tensor **out) {
    NN_ARGS(g, in, out, "nn_all_to_all_v");
    int n = g->size;
    bool rec = ct__ag_wants(g->ctx, 1, &in);
    nn_user *u = rec ? nn_new(g, NN_A2AV) : NULL;
    if (rec && !u) return oom(g, "nn_all_to_all_v");
    int64_t rows = 0, d0 = ct_tensor_ndim(in) ? ct_tensor_shape(in)[0] : 0;
    for (int j = 0; j < n; j++)
        rows += out_splits ? (out_splits[j] > 0 ? out_splits[j] : 0) : d0 / n;
    ct_status st = empty_like_dim0(g, in, rows, out);
    if (st == CT_OK) st = ct_dist_all_to_all_v(g, in, in_splits, *out, out_splits);
    if (st == CT_OK && u) {
        u->in_splits = malloc(sizeof(int64_t) * (size_t)n);
        u->out_splits = malloc(sizeof(int64_t) * (size_t)n);
        if (!u->in_splits || !u->out_splits) {
            st = oom(g, "nn_all_to_all_v");
        } else {
            for (int j = 0; j < n; j++) {
                u->in_splits[j] = in_splits ? in_splits[j] : d0 / n;
                u->out_splits[j] = out_splits ? out_splits[j] : d0 / n;
            }
        }
    }
    return nn_finish(g, st, rec, NN_A2AV, u, in, out);
}

CT_API ct_status ct_dist_nn_all_to_all_v_2d(ct_dist *g, const ct_tensor *in,
                                            const ct_tensor *in_splits, int64_t out_rows,
                                            int64_t major_align, ct_tensor **out,
                                            ct_tensor **out_splits_offsets) {
    NN_ARGS(g, in, out, "nn_all_to_all_v_2d");
    if (!out_splits_offsets)
        return ct__set_error(g->ctx, CT_ERR_INVALID_ARG,
                             "dist nn_all_to_all_v_2d: out_splits_offsets is NULL");
    *out_splits_offsets = NULL;
    bool rec = ct__ag_wants(g->ctx, 1, &in);
    nn_user *u = rec ? nn_new(g, NN_A2AV2D) : NULL;
    if (rec && !u) return oom(g, "nn_all_to_all_v_2d");
    int64_t ns = in_splits ? ct_tensor_numel(in_splits) : 0, s2[2] = {2, ns};
    ct_status st = empty_like_dim0(g, in, out_rows < 0 ? 0 : out_rows, out);
    if (st == CT_OK) st = ct_tensor_zeros(g->ctx, CT_INT64, 2, s2, out_splits_offsets);
    if (st == CT_OK)
        st = ct_dist_all_to_all_v_2d(g, in, in_splits, *out, *out_splits_offsets, major_align);
    if (st == CT_OK && u) {
        u->a = ct_tensor_retain(*out_splits_offsets);
        u->rows = ct_tensor_shape(in)[0];
    }
    if (st != CT_OK) {
        ct_tensor_release(*out_splits_offsets);
        *out_splits_offsets = NULL;
    }
    return nn_finish(g, st, rec, NN_A2AV2D, u, in, out);
}

/* ---- backward ---- */

static ct_status nn_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                             ct_tensor **gin) {
    nn_user *u = user;
    ct_dist *g = u->g;
    const ct_tensor *go = gout[0];
    ct_tensor *r = NULL;
    /* what the backward reads must be as recorded (an in-place write since: torch's error) */
    ct_status st = ct__ag_saved_ok(ctx, u->a, "saved tensor", 0, NN_FN[u->kind].name, u->a_ver);
    if (st == CT_OK)
        st = ct__ag_saved_ok(ctx, u->b, "saved tensor", 1, NN_FN[u->kind].name, u->b_ver);
    if (st != CT_OK) return st;
    (void)need; /* the adjoint collective runs on every rank regardless */
    switch (u->kind) {
    case NN_ALLREDUCE: {
        ct_reduce_op op = u->op == CT_REDUCE_AVG ? CT_REDUCE_AVG : CT_REDUCE_SUM;
        st = ct_dist_nn_all_reduce(g, go, op, &r);
        if (st == CT_OK && u->a) {
            /* MAX / MIN: the gradient goes to where the extreme was; PROD: times out / in */
            ct_tensor *m = NULL, *mf = NULL, *q = NULL;
            if (u->op == CT_REDUCE_PROD) {
                st = ct_div(ctx, u->b, u->a, &q);
                if (st == CT_OK) st = ct_mul(ctx, r, q, &m);
            } else {
                st = ct_eq(ctx, u->a, u->b, &mf);
                if (st == CT_OK) st = ct_cast(ctx, mf, ct_tensor_dtype(r), &q);
                if (st == CT_OK) st = ct_mul(ctx, r, q, &m);
            }
            ct_tensor_release(r), ct_tensor_release(mf), ct_tensor_release(q);
            r = m;
        }
        break;
    }
    case NN_BCAST: {
        /* d(out on every rank)/d(in on root): the sum of the gradients at the root, zeros of
         * the input's shape elsewhere (torch's _Broadcast.backward: a zeroed tensor, not None) */
        st = ct_dist_nn_all_reduce(g, go, CT_REDUCE_SUM, &r);
        if (st == CT_OK && g->rank != u->root) {
            ct_tensor *z = NULL;
            st = ct_zeros_like(ctx, r, &z);
            ct_tensor_release(r);
            r = z;
        }
        break;
    }
    case NN_ALLGATHER: {
        ct_tensor *s = NULL;
        st = ct_dist_nn_reduce_scatter(g, go, CT_REDUCE_SUM, &s);
        if (st == CT_OK && u->rows < 0) { /* the 0-d input */
            bool was = ct_set_grad_enabled(ctx, ct_tensor_requires_grad(s));
            st = ct_tensor_reshape(ctx, s, 0, NULL, &r);
            ct_set_grad_enabled(ctx, was);
            ct_tensor_release(s);
        } else {
            r = s;
        }
        break;
    }
    case NN_REDSCAT: {
        ct_tensor *a = NULL;
        st = ct_dist_nn_all_gather(g, go, &a);
        if (st == CT_OK && u->op == CT_REDUCE_AVG) {
            st = ct_div_scalar(ctx, a, (double)g->size, &r);
            ct_tensor_release(a);
        } else if (st == CT_OK && u->a) {
            /* MAX / MIN: to where the extreme was; PROD: times out / in (out gathered back) */
            ct_tensor *o = NULL, *m = NULL, *q = NULL;
            st = empty_like_dim0(g, u->b, ct_tensor_shape(u->b)[0] * g->size, &o);
            if (st == CT_OK) st = ct_dist_all_gather(g, u->b, o);
            if (st == CT_OK && u->op == CT_REDUCE_PROD) {
                st = ct_div(ctx, o, u->a, &q);
            } else if (st == CT_OK) {
                st = ct_eq(ctx, u->a, o, &m);
                if (st == CT_OK) st = ct_cast(ctx, m, ct_tensor_dtype(a), &q);
            }
            if (st == CT_OK) st = ct_mul(ctx, a, q, &r);
            ct_tensor_release(a), ct_tensor_release(o), ct_tensor_release(m);
            ct_tensor_release(q);
        } else {
            r = a;
        }
        break;
    }
    case NN_A2AV: st = ct_dist_nn_all_to_all_v(g, go, u->out_splits, u->in_splits, &r); break;
    case NN_A2AV2D: {
        if (ct_tensor_requires_grad(go))
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "dist all_to_all_v_2d: double backward (create_graph) is not "
                                 "supported");
        int64_t ns = ct_tensor_shape(u->a)[1];
        ct_tensor *osp = NULL;
        st = empty_like_dim0(g, go, u->rows, &r);
        if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_INT64, 1, &ns, &osp);
        if (st == CT_OK) st = ct_dist_all_to_all_v_2d_combine(g, go, u->a, r, osp);
        ct_tensor_release(osp);
        break;
    }
    }
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    gin[0] = r;
    return CT_OK;
}

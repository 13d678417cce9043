/* Private autograd structures: per-tensor metadata, tape nodes, the call a backward formula gets,
 * and the sticky-error op helpers the formula tables (grad_*.c) are written with. */
#ifndef CTORCH_AUTOGRAD_IMPL_H
#define CTORCH_AUTOGRAD_IMPL_H

#include "core/internal.h"
#include "ctorch/autograd.h"
#include "tensor/ag_front.h"

/* Accumulate-into-leaf node (one per leaf that has been used), after the op ids. */
#define CT__AG_ACC CT__AG_COUNT

typedef struct ct__ag_node ct__ag_node;
typedef struct ct__ag_edge {
    ct__ag_node *node; /* NULL: the input does not require grad */
    int nr;            /* which output of node the input is */
} ct__ag_edge;
/* A gradient hook on one output of a node (ct_tensor_register_hook), run in registration order. */
typedef struct ct__ag_hook {
    struct ct__ag_hook *next;
    int64_t id;
    ct_grad_hook fn;
    void *user;
    const ct_tensor *owner; /* the tensor it was registered on (with owner_born: address reuse) */
    uint64_t owner_born;
} ct__ag_hook;
typedef struct ct__ag_tmeta {
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_dtype dtype;
} ct__ag_tmeta;

struct ct__ag_node {
    int64_t refcount; /* output tensors' metadata, edges of later nodes, a leaf's meta (ACC) */
    ct_ctx *ctx;
    int op; /* ct__ag_op, or CT__AG_ACC */
    int n_in, n_out;
    ct__ag_edge next[CT__AG_MAX_IN];
    bool in_present[CT__AG_MAX_IN];
    ct__ag_tmeta in_meta[CT__AG_MAX_IN], out_meta[CT__AG_MAX_OUT];
    ct_tensor *saved_in[CT__AG_MAX_IN]; /* the inputs themselves (with their history) */
    int64_t saved_in_ver[CT__AG_MAX_IN];
    ct_tensor *saved_out[CT__AG_MAX_OUT]; /* detached aliases (no cycle through this node) */
    int64_t saved_out_ver[CT__AG_MAX_OUT];
    bool has_saved, freed;
    double sc[4];
    int n_iv;
    int64_t iv[CT__AG_MAX_IV];
    ct_tensor *leaf;             /* ACC: the leaf (weak; NULL once it is released) */
    const ct__ag_custom *custom; /* CT__AG_CUSTOM: the backward and its data (owned) */
    void *custom_user;
    const char *name; /* the printed name where not the formula's (ct__ag_rec.name, ct__ag_named) */
    uint64_t seq;     /* the context's tape position when made (ct__ag_mark) */
    ct__ag_hook *hooks[CT__AG_MAX_OUT]; /* the gradient hooks of each output (owned) */
    ct_tensor *retain[CT__AG_MAX_OUT];  /* the non-leaf tensor retaining that gradient (weak) */
    /* engine scratch, reset after every run */
    int deps;
    bool seen, needed, target, ran;
    uint64_t pass; /* the pass that set seen (a nested pass saves an outer pass's leaf nodes) */
    ct_tensor *buf[CT__AG_MAX_OUT];
};

typedef struct ct__ag_meta {
    ct__ag_node *grad_fn; /* NULL for a leaf */
    int output_nr;
    ct_tensor *grad;
    ct__ag_node *acc; /* leaf: its accumulate node, made on first use */
    bool retains;     /* non-leaf: ct_tensor_retain_grad (grad_fn->retain[output_nr] is t) */
} ct__ag_meta;

#define CT__AG_MAX_TMP 96
typedef struct ct__ag_call {
    ct_ctx *ctx;
    ct__ag_node *n;
    ct_tensor *g[CT__AG_MAX_OUT];         /* grads of the outputs (zeros where none arrived) */
    bool has_g[CT__AG_MAX_OUT];           /* a gradient arrived for that output (torch: defined) */
    const ct_tensor *in[CT__AG_MAX_IN];   /* saved inputs (NULL when not saved) */
    const ct_tensor *out[CT__AG_MAX_OUT]; /* saved outputs */
    bool need[CT__AG_MAX_IN];
    ct_tensor *gin[CT__AG_MAX_IN]; /* results: owned references */
    ct_status st;                  /* first failure; every helper is a no-op after it */
    int n_tmp;
    ct_tensor *tmp[CT__AG_MAX_TMP]; /* intermediates released after the formula */
} ct__ag_call;

typedef struct ct__ag_formula {
    const char *name; /* "MulBackward" */
    void (*backward)(ct__ag_call *c);
    unsigned save_in, save_out; /* bit masks of inputs / outputs the formula reads */
} ct__ag_formula;
/* In save_in: the node keeps a scalar operand as torch does (mul/div by a Python number), so like
 * torch it cannot be run again once backward freed the graph. */
#define CT__AG_SAVES_SCALAR 0x100u

/* Formula tables, one per op family; NULL when op is not theirs. */
const ct__ag_formula *ct__ag_formula_elementwise(int op);
const ct__ag_formula *ct__ag_formula_reduce(int op);
const ct__ag_formula *ct__ag_formula_nn(int op);
const ct__ag_formula *ct__ag_formula_views(int op);
const ct__ag_formula *ct__ag_formula_shape(int op);
const ct__ag_formula *ct__ag_formula_linalg(int op);

/* ---- helpers for formulas: each returns a borrowed intermediate (released after the formula)
 * or NULL once c->st holds an error ---- */
ct_tensor *ct__ag_keep(ct__ag_call *c, ct_status st, ct_tensor *t);
ct_tensor *ct__ag_add(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct__ag_sub(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct__ag_mul(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct__ag_div(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct__ag_add_s(ct__ag_call *c, const ct_tensor *a, double v);
ct_tensor *ct__ag_mul_s(ct__ag_call *c, const ct_tensor *a, double v);
ct_tensor *ct__ag_div_s(ct__ag_call *c, const ct_tensor *a, double v);
ct_tensor *ct__ag_neg(ct__ag_call *c, const ct_tensor *a);
/* Any unary / binary public op (ct_sin, ct_maximum, ...) as a sticky-error helper. */
typedef ct_status (*ct__ag_unary_fn)(ct_ctx *, const ct_tensor *, ct_tensor **);
typedef ct_status (*ct__ag_binary_fn)(ct_ctx *, const ct_tensor *, const ct_tensor *, ct_tensor **);
ct_tensor *ct__ag_apply(ct__ag_call *c, ct__ag_unary_fn fn, const ct_tensor *a);
/* The losses' reduction (functional.c): l itself (none), or its mean / sum (l released). */
ct_status ct__ag_reduce_loss(ct_ctx *ctx, ct_tensor *l, ct_reduction red, ct_tensor **out);
/* CT_ERR_INVALID_ARG unless red is none, mean or sum. */
ct_status ct__ag_check_red(ct_ctx *ctx, const char *op, ct_reduction red);
/* The smallest and largest element of t read on the host (0, 0 for an empty t; NaN propagates
 * into both): parameter checks of the samplers (eager only). */
ct_status ct__host_range(ct_ctx *ctx, const ct_tensor *t, double *lo, double *hi);
/* *any = whether t holds an exact zero, read on the host; during a capture (no host reads) *any is
 * `unknown` and nothing is read. */
ct_status ct__host_any_zero(ct_ctx *ctx, const ct_tensor *t, bool unknown, bool *any);
ct_tensor *ct__ag_apply2(ct__ag_call *c, ct__ag_binary_fn fn, const ct_tensor *a,
                         const ct_tensor *b);
ct_tensor *ct__ag_exp(ct__ag_call *c, const ct_tensor *a);
/* a + v * t1 * t2 in one op (ct_addcmul: one rounding of the product-sum) */
ct_tensor *ct__ag_addcmul(ct__ag_call *c, const ct_tensor *a, const ct_tensor *t1,
                          const ct_tensor *t2, double v);
ct_tensor *ct__ag_tanh(ct__ag_call *c, const ct_tensor *a);
ct_tensor *ct__ag_rsqrt(ct__ag_call *c, const ct_tensor *a);
ct_tensor *ct__ag_pow(ct__ag_call *c, const ct_tensor *a, double e);
/* kind: 0 eq, 1 gt, 2 lt, 3 ge, 4 le against scalar v, cast to dtype (1 where true, else 0) */
ct_tensor *ct__ag_cmp_s(ct__ag_call *c, int kind, const ct_tensor *a, double v, ct_dtype dt);
ct_tensor *ct__ag_eq(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct__ag_cast(ct__ag_call *c, const ct_tensor *a, ct_dtype dt);
ct_tensor *ct__ag_where(ct__ag_call *c, const ct_tensor *cond, const ct_tensor *a,
                        const ct_tensor *b);
ct_tensor *ct__ag_scalar(ct__ag_call *c, ct_dtype dt, double v); /* 0-d constant */
ct_tensor *ct__ag_zeros(ct__ag_call *c, const ct__ag_tmeta *m);
ct_tensor *ct__ag_sum(ct__ag_call *c, const ct_tensor *a, int n, const int *dims, bool keep);
ct_tensor *ct__ag_mean(ct__ag_call *c, const ct_tensor *a, int n, const int *dims, bool keep);
ct_tensor *ct__ag_reshape(ct__ag_call *c, const ct_tensor *a, int nd, const int64_t *shape);
ct_tensor *ct__ag_expand(ct__ag_call *c, const ct_tensor *a, int nd, const int64_t *shape);
ct_tensor *ct__ag_transpose(ct__ag_call *c, const ct_tensor *a, int d0, int d1);
ct_tensor *ct__ag_permute(ct__ag_call *c, const ct_tensor *a, const int *perm);
ct_tensor *ct__ag_unsqueeze(ct__ag_call *c, const ct_tensor *a, int d);
ct_tensor *ct__ag_squeeze(ct__ag_call *c, const ct_tensor *a, int d);
ct_tensor *ct__ag_slice(ct__ag_call *c, const ct_tensor *a, int d, int64_t s, int64_t e,
                        int64_t step);
ct_tensor *ct__ag_matmul(ct__ag_call *c, const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct__ag_arange(ct__ag_call *c, int64_t n);
/* g summed over the dims it was broadcast along and cast to m's dtype (reduce to input shape). */
ct_tensor *ct__ag_sum_to(ct__ag_call *c, const ct_tensor *g, const ct__ag_tmeta *m);
/* The gradient for input i (fit to its shape and dtype); ignored when input i needs none. */
void ct__ag_set(ct__ag_call *c, int i, const ct_tensor *g);
/* zeros of input meta m with g written into m[dim][start:end:step] (slice backward), recorded as a
 * SLICE_BACKWARD node when g requires grad (create_graph). */
ct_tensor *ct__ag_slice_backward(ct__ag_call *c, const ct_tensor *g, const ct__ag_tmeta *m, int dim,
                                 int64_t start, int64_t end, int64_t step);

/* Mask of the dims a reduction reduced (n_dims == 0: all), from a node's iv (see CT__AG_SUM). */
uint32_t ct__ag_reduced_mask(const ct__ag_node *n, int ndim);

/* The name torch 1.13's str(t) shows for t's grad_fn ("MulBackward0", "SumBackward1"), written
 * into buf; false for a tensor without history (a leaf, or one that does not require grad). A
 * name tagged at the record (ct__ag_rec.name) or by a composite (ct__ag_named) wins; otherwise
 * the formula's, with torch's overload number from the node's parameters. */
bool ct__ag_grad_fn_name(const ct_tensor *t, char *buf, size_t cap);
/* Drop a reference to n (freed with its saved tensors, hooks and edges at zero). */
void ct__ag_node_release(ct__ag_node *n);
/* The same for a node (false for a leaf's accumulate node). */
bool ct__ag_node_name(const ct__ag_node *n, char *buf, size_t cap);
/* The edge a gradient for t flows along: its grad_fn, or its leaf accumulate node (made on first
 * use); node NULL when t does not require grad. */
ct_status ct__ag_edge_of(ct_ctx *ctx, const ct_tensor *t, ct__ag_edge *e);

/* Nodes whose backward is a ct__ag_custom (n->custom, n->custom_user). */
static inline bool ct__ag_is_custom(int op) { return op == CT__AG_CUSTOM || op == CT__AG_USERFN; }
/* autodiff.c: CT__AG_USERFN's formula (the user's backward with the saved outputs). */
void ct__ad_userfn_backward(ct__ag_call *c);

/* hooks.c: run node n's hooks on the gradient *g of output nr (replaced by a hook's result), then
 * store it into the retaining tensor's .grad; free a node's hooks; anomaly mode's NaN check of
 * a formula's results gin[0..n_in). */
ct_status ct__ag_run_hooks(ct_ctx *ctx, ct__ag_node *n, int nr, ct_tensor **g);
void ct__ag_hooks_free(ct__ag_node *n);
ct_status ct__ag_anomaly_check(ct_ctx *ctx, const ct__ag_node *n, ct_tensor *const *gin);
/* The backward pass behind ct_backward (grads NULL) and ct_autograd_grad; allow_unused: an input
 * no output depends on gets NULL instead of an error. */
ct_status ct__ag_run_backward(ct_ctx *ctx, const char *api, int n_roots,
                              const ct_tensor *const *roots, const ct_tensor *const *groots,
                              int n_inputs, const ct_tensor *const *inputs, bool retain,
                              bool create, bool allow_unused, ct_tensor **grads);

#endif

/* The autograd tools: gradient hooks, retain_grad, anomaly mode and the queries (torch semantics
 * checked with torch 1.13 by hand: the values below are what torch printed), custom functions
 * against the built-in ops they restate, the functional API against torch's
 * torch.autograd.functional (scripts/gen_autograd_tools_ref.py) and algebraic identities, and
 * gradcheck / gradgradcheck finding wrong backward formulas. */
#include "test_util.h"

#include <string.h>

#include "data/autograd_tools_ref.h"

static ct_ctx *ctx;

static ct_tensor *vec(const double *v, int64_t n) {
    return tu_from_vals(ctx, CT_FLOAT32, 1, &n, v);
}
static ct_tensor *leaf(const double *v, int64_t n) {
    ct_tensor *t = vec(v, n);
    CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
/* sum(a * b) */
static ct_tensor *dot(const ct_tensor *a, const ct_tensor *b) {
    ct_tensor *p = NULL, *s = NULL;
    CHECK_OK(ct_mul(ctx, a, b, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &s));
    ct_tensor_release(p);
    return s;
}

/* ---- hooks ---- */

static int hook_calls;
static ct_status hook_scale(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    hook_calls++;
    return ct_mul_scalar(c, g, *(const double *)user, r);
}
static ct_status hook_add(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    hook_calls++;
    return ct_add_scalar(c, g, *(const double *)user, r);
}
static ct_status hook_keep(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)c, (void)g, (void)user, (void)r;
    hook_calls++;
    return CT_OK;
}
static ct_status hook_shrink(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)user;
    return ct_tensor_slice(c, g, 0, 0, 2, 1, r);
}
static ct_status hook_double(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)user;
    return ct_cast(c, g, CT_FLOAT64, r);
}
static ct_status hook_fail(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)g, (void)user, (void)r;
    return ct_ctx_set_error(c, CT_ERR_INVALID_ARG, "the hook refuses");
}
static ct_status hook_backward(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)r;
    return ct_backward(c, (const ct_tensor *)user, g, true);
}

TEST(hooks_as_torch) {
    const double xv[3] = {1, 2, 3}, ten = 10, one = 1, three = 3, five = 5;
    /* torch: y = x * 2; y.register_hook(g * 10); y.retain_grad(); y.register_hook(g + 1);
     * (y * y).sum().backward() -> y.grad [41, 81, 121] (after every hook), x.grad [82, 162, 242] */
    ct_tensor *x = leaf(xv, 3), *y = NULL, *z = NULL;
    int64_t ida = 0, idb = 0;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_register_hook(y, hook_scale, (void *)&ten, &ida));
    CHECK_OK(ct_tensor_retain_grad(y));
    CHECK_OK(ct_tensor_register_hook(y, hook_add, (void *)&one, &idb));
    CHECK(ida > 0 && idb > ida);
    CHECK(ct_tensor_retains_grad(y) && !ct_tensor_retains_grad(x));
    CHECK(!ct_tensor_is_leaf(y) && ct_tensor_is_leaf(x));
    z = dot(y, y);
    hook_calls = 0;
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    CHECK(hook_calls == 2);
    tu_same_as("y.grad", ct_tensor_grad(y), (const double[]){41, 81, 121}, 1, (int64_t[]){3}, 0);
    tu_same_as("x.grad", ct_tensor_grad(x), (const double[]){82, 162, 242}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(x);

    /* a leaf's hook runs before .grad: x.register_hook(g * 3); (x * x).sum() -> [6, 12, 18] */
    x = leaf(xv, 3);
    CHECK_OK(ct_tensor_register_hook(x, hook_scale, (void *)&three, NULL));
    z = dot(x, x);
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    tu_same_as("leaf hook", ct_tensor_grad(x), (const double[]){6, 12, 18}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(z);

    /* autograd.grad returns an input's gradient before its hooks: leaf [2, 4, 6] (its hook does
     * not run), non-leaf y = 2x with a hook * 5: [4, 8, 12] */
    ct_tensor *g[1] = {NULL};
    z = dot(x, x);
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){z}, NULL, 1,
                              (const ct_tensor *const[]){x}, false, false, g));
    tu_same_as("grad of leaf", g[0], (const double[]){2, 4, 6}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(g[0]), ct_tensor_release(z);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_register_hook(y, hook_scale, (void *)&five, NULL));
    z = dot(y, y);
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){z}, NULL, 1,
                              (const ct_tensor *const[]){y}, true, false, g));
    tu_same_as("grad of non-leaf", g[0], (const double[]){4, 8, 12}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(g[0]);
    /* ... but a retaining tensor on the way to another input sees the hooked value:
     * y.retain_grad(); autograd.grad(z, x) -> y.grad [20, 40, 60] */
    CHECK_OK(ct_tensor_retain_grad(y));
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){z}, NULL, 1,
                              (const ct_tensor *const[]){x}, false, false, g));
    tu_same_as("retained", ct_tensor_grad(y), (const double[]){20, 40, 60}, 1, (int64_t[]){3}, 0);
    tu_same_as("through the hook", g[0], (const double[]){40, 80, 120}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(g[0]), ct_tensor_release(z), ct_tensor_release(y), ct_tensor_release(x);

    /* retain_grad accumulates over backward calls: [4, 8, 12] then [8, 16, 24] */
    x = leaf(xv, 3);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_retain_grad(y));
    z = dot(y, y);
    CHECK_OK(ct_backward(ctx, z, NULL, true));
    tu_same_as("retain 1", ct_tensor_grad(y), (const double[]){4, 8, 12}, 1, (int64_t[]){3}, 0);
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    tu_same_as("retain 2", ct_tensor_grad(y), (const double[]){8, 16, 24}, 1, (int64_t[]){3}, 0);
    CHECK_OK(ct_tensor_zero_grad(y));
    CHECK(ct_tensor_grad(y) == NULL);
    ct_tensor_release(z), ct_tensor_release(y), ct_tensor_release(x);
}

TEST(hooks_remove_and_refuse) {
    const double xv[3] = {1, 2, 3}, ten = 10;
    ct_tensor *x = leaf(xv, 3), *y = NULL, *z = NULL;
    int64_t id = 0, id2 = 0;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_register_hook(y, hook_scale, (void *)&ten, &id));
    CHECK_OK(ct_tensor_register_hook(y, hook_keep, NULL, &id2));
    CHECK_OK(ct_tensor_remove_hook(y, id));
    CHECK_ST(ct_tensor_remove_hook(y, id), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_remove_hook(x, id2), CT_ERR_INVALID_ARG); /* another tensor's */
    z = dot(y, y);
    hook_calls = 0;
    CHECK_OK(ct_backward(ctx, z, NULL, true));
    CHECK(hook_calls == 1); /* only the kept one, which changes nothing */
    tu_same_as("removed", ct_tensor_grad(x), (const double[]){8, 16, 24}, 1, (int64_t[]){3}, 0);
    /* torch: "hook '<lambda>' has changed the size of value" / "... the type of value" */
    ct_tensor *y2 = NULL, *z2 = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y2));
    CHECK_OK(ct_tensor_register_hook(y2, hook_shrink, NULL, NULL));
    z2 = dot(y2, y2);
    CHECK_ST(ct_backward(ctx, z2, NULL, true), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "changed the size"));
    ct_tensor_release(y2), ct_tensor_release(z2);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y2));
    CHECK_OK(ct_tensor_register_hook(y2, hook_double, NULL, NULL));
    z2 = dot(y2, y2);
    CHECK_ST(ct_backward(ctx, z2, NULL, true), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "changed the dtype"));
    ct_tensor_release(y2), ct_tensor_release(z2);
    /* a failing hook stops the backward with its status; a nested backward is refused */
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y2));
    CHECK_OK(ct_tensor_register_hook(y2, hook_fail, NULL, NULL));
    z2 = dot(y2, y2);
    CHECK_ST(ct_backward(ctx, z2, NULL, true), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "the hook refuses"));
    ct_tensor_release(y2), ct_tensor_release(z2);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y2));
    CHECK_OK(ct_tensor_register_hook(y2, hook_backward, z, NULL));
    z2 = dot(y2, y2);
    CHECK_ST(ct_backward(ctx, z2, NULL, true), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "nested"));
    ct_tensor_release(y2), ct_tensor_release(z2);
    /* the engine works again afterwards */
    CHECK_OK(ct_tensor_zero_grad(x));
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    tu_same_as("after", ct_tensor_grad(x), (const double[]){8, 16, 24}, 1, (int64_t[]){3}, 0);
    /* torch: "cannot register a hook on a tensor that doesn't require gradient" */
    ct_tensor *c = vec(xv, 3);
    CHECK_ST(ct_tensor_register_hook(c, hook_keep, NULL, NULL), CT_ERR_STATE);
    CHECK_ST(ct_tensor_retain_grad(c), CT_ERR_STATE);
    CHECK_ST(ct_tensor_register_hook(x, NULL, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK(ct_tensor_is_leaf(c) && !ct_tensor_is_leaf(NULL) && !ct_tensor_retains_grad(NULL));
    CHECK_OK(ct_tensor_retain_grad(x)); /* a leaf: a no-op */
    CHECK(!ct_tensor_retains_grad(x));
    char name[32];
    CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) && strcmp(name, "MulBackward0") == 0);
    CHECK(!ct_tensor_grad_fn_name(x, name, sizeof name) && name[0] == '\0');
    CHECK(ct_tensor_grad_fn_name(z, name, 4) && strcmp(name, "Sum") == 0); /* truncated */
    ct_tensor_release(c), ct_tensor_release(z), ct_tensor_release(y), ct_tensor_release(x);
    /* a hook outlives its tensor (it is on the node); released with the graph */
    x = leaf(xv, 3);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_register_hook(y, hook_keep, NULL, NULL));
    CHECK_OK(ct_tensor_retain_grad(y));
    z = dot(y, y);
    ct_tensor_release(y);
    hook_calls = 0;
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    CHECK(hook_calls == 1);
    ct_tensor_release(z), ct_tensor_release(x);
}

TEST(retain_grad_follows_inplace) {
    /* torch: y = x * 2; y.retain_grad(); y.mul_(3); (y * y).sum().backward() -> y.grad = 2 y */
    const double xv[3] = {1, 2, 3};
    ct_tensor *x = leaf(xv, 3), *y = NULL, *z = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_retain_grad(y));
    CHECK_OK(ct_mul_scalar_(ctx, y, 3));
    CHECK(ct_tensor_retains_grad(y));
    z = dot(y, y);
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    tu_same_as("y.grad", ct_tensor_grad(y), (const double[]){12, 24, 36}, 1, (int64_t[]){3}, 0);
    tu_same_as("x.grad", ct_tensor_grad(x), (const double[]){72, 144, 216}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(z), ct_tensor_release(y), ct_tensor_release(x);
    /* a hook stays on the old node: y = x * 2; hook(g * 10); y.mul_(3); sum(y * y) -> the hook
     * sees the old y's gradient [36, 72, 108], x.grad [720, 1440, 2160] (torch 1.13) */
    const double ten = 10;
    x = leaf(xv, 3);
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_register_hook(y, hook_scale, (void *)&ten, NULL));
    CHECK_OK(ct_mul_scalar_(ctx, y, 3));
    z = dot(y, y);
    CHECK_OK(ct_backward(ctx, z, NULL, false));
    tu_same_as("old node", ct_tensor_grad(x), (const double[]){720, 1440, 2160}, 1, (int64_t[]){3},
               0);
    ct_tensor_release(z), ct_tensor_release(y), ct_tensor_release(x);
}

TEST(anomaly_mode) {
    CHECK(!ct_is_anomaly_enabled(ctx) && !ct_is_anomaly_enabled(NULL));
    CHECK(ct_is_grad_enabled(ctx) && !ct_is_grad_enabled(NULL));
    CHECK(ct_set_grad_enabled(ctx, false));
    CHECK(!ct_is_grad_enabled(ctx));
    ct_set_grad_enabled(ctx, true);
    /* without it, sqrt(x * 0) at 0 gives NaN gradients quietly */
    const double xv[2] = {0, 1}, xn[2] = {-1, 1};
    ct_tensor *x = leaf(xv, 2), *m = NULL, *r = NULL, *s = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 0, &m));
    CHECK_OK(ct_sqrt(ctx, m, &r));
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, true));
    double *g = tu_read(ct_tensor_grad(x));
    CHECK(g && isnan(g[0]) && isnan(g[1]));
    free(g);
    /* torch: "Function 'MulBackward0' returned nan values in its 0th output." */
    CHECK(!ct_set_detect_anomaly(ctx, true));
    CHECK(ct_is_anomaly_enabled(ctx));
    CHECK_ST(ct_backward(ctx, s, NULL, true), CT_ERR_STATE);
    CHECK_MSG(strcmp(ct_ctx_last_error(ctx),
                     "Function 'MulBackward0' returned nan values in its 0th output.") == 0,
              "%s", ct_ctx_last_error(ctx));
    ct_tensor_release(x), ct_tensor_release(m), ct_tensor_release(r), ct_tensor_release(s);
    /* "Function 'SqrtBackward0' returned nan values in its 0th output." */
    x = leaf(xn, 2);
    CHECK_OK(ct_sqrt(ctx, x, &r));
    CHECK_OK(ct_sum(ctx, r, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "'SqrtBackward0'"));
    ct_tensor_release(r), ct_tensor_release(s);
    /* a NaN in the forward is not a NaN gradient: log(-1) * 0 passes, x.grad [-0, 0] */
    CHECK_OK(ct_log(ctx, x, &r));
    CHECK_OK(ct_mul_scalar(ctx, r, 0, &m));
    CHECK_OK(ct_sum(ctx, m, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    tu_same_as("log * 0", ct_tensor_grad(x), (const double[]){-0.0, 0.0}, 1, (int64_t[]){2}, 0);
    CHECK(ct_set_detect_anomaly(ctx, false));
    ct_tensor_release(x), ct_tensor_release(m), ct_tensor_release(r), ct_tensor_release(s);
}

/* ---- custom functions ---- */

typedef struct {
    int *freed;
    bool wrong;  /* backward returns a wrong gradient (for gradcheck) */
    bool detach; /* backward computed without a graph (for gradgradcheck) */
} myexp_user;

static ct_status myexp_fwd(ct_ctx *c, void *user, int n_in, const ct_tensor *const *in, int n_out,
                           ct_tensor **out) {
    (void)user, (void)n_in, (void)n_out;
    return ct_exp(c, in[0], &out[0]);
}
static ct_status myexp_bwd(ct_ctx *c, void *user, int n_out, const ct_tensor *const *out,
                           const ct_tensor *const *gout, int n_in, const bool *need,
                           ct_tensor **gin) {
    myexp_user *u = user;
    (void)n_out, (void)n_in;
    CHECK(need[0]);
    if (u->wrong) { /* 1% off */
        ct_tensor *t = NULL;
        ct_status st = ct_mul(c, gout[0], out[0], &t);
        if (st == CT_OK) st = ct_mul_scalar(c, t, 1.01, &gin[0]);
        ct_tensor_release(t);
        return st;
    }
    if (u->detach) {
        const bool was = ct_set_grad_enabled(c, false);
        ct_status st = ct_mul(c, gout[0], out[0], &gin[0]);
        ct_set_grad_enabled(c, was);
        return st;
    }
    /* the output carries this node's history under create_graph: differentiable again */
    return ct_mul(c, gout[0], out[0], &gin[0]);
}
static void myexp_free(void *user) {
    myexp_user *u = user;
    (*u->freed)++;
    free(u);
}
static const ct_autograd_function MYEXP = {sizeof(ct_autograd_function), "MyExpBackward", myexp_fwd,
                                           myexp_bwd, myexp_free};

static ct_status myexp(const ct_tensor *x, int *freed, ct_tensor **y) {
    myexp_user *u = calloc(1, sizeof *u);
    u->freed = freed;
    return ct_autograd_function_apply(ctx, &MYEXP, u, 1, &x, 1, y);
}

/* two inputs, two outputs: (a * b, a - b) */
static ct_status mm2_fwd(ct_ctx *c, void *user, int n_in, const ct_tensor *const *in, int n_out,
                         ct_tensor **out) {
    (void)user, (void)n_in, (void)n_out;
    ct_status st = ct_mul(c, in[0], in[1], &out[0]);
    if (st == CT_OK) st = ct_sub(c, in[0], in[1], &out[1]);
    return st;
}
static ct_tensor *mm2_saved[2];
static ct_status mm2_bwd(ct_ctx *c, void *user, int n_out, const ct_tensor *const *out,
                         const ct_tensor *const *gout, int n_in, const bool *need,
                         ct_tensor **gin) {
    (void)user, (void)n_out, (void)n_in, (void)out;
    ct_tensor *t = NULL;
    ct_status st = CT_OK;
    if (need[0]) {
        st = ct_mul(c, gout[0], mm2_saved[1], &t);
        if (st == CT_OK) st = ct_add(c, t, gout[1], &gin[0]);
        ct_tensor_release(t), t = NULL;
    }
    if (need[1] && st == CT_OK) {
        st = ct_mul(c, gout[0], mm2_saved[0], &t);
        if (st == CT_OK) st = ct_sub(c, t, gout[1], &gin[1]);
        ct_tensor_release(t);
    }
    return st;
}

static ct_status bad_shape_bwd(ct_ctx *c, void *user, int n_out, const ct_tensor *const *out,
                               const ct_tensor *const *gout, int n_in, const bool *need,
                               ct_tensor **gin) {
    (void)user, (void)n_out, (void)n_in, (void)need, (void)out;
    return ct_tensor_slice(c, gout[0], 0, 0, 2, 1, &gin[0]);
}
static ct_status identity_fwd(ct_ctx *c, void *user, int n_in, const ct_tensor *const *in,
                              int n_out, ct_tensor **out) {
    (void)c, (void)user, (void)n_in, (void)n_out;
    out[0] = ct_tensor_retain((ct_tensor *)in[0]);
    return CT_OK;
}
static ct_status identity_bwd(ct_ctx *c, void *user, int n_out, const ct_tensor *const *out,
                              const ct_tensor *const *gout, int n_in, const bool *need,
                              ct_tensor **gin) {
    (void)user, (void)n_out, (void)n_in, (void)need, (void)out;
    return ct_mul_scalar(c, gout[0], 2.0, &gin[0]); /* visible: the alias got its own node */
}

TEST(custom_function) {
    const double xv[4] = {0.5, -1, 2, 0.25};
    int freed = 0;
    /* against ct_exp: value and gradient bit for bit, torch's printed name */
    ct_tensor *x = leaf(xv, 4), *y = NULL, *s = NULL, *x2 = leaf(xv, 4), *y2 = NULL, *s2 = NULL;
    CHECK_OK(myexp(x, &freed, &y));
    CHECK(ct_tensor_requires_grad(y) && !ct_tensor_is_leaf(y));
    char name[32];
    CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) && strcmp(name, "MyExpBackward") == 0);
    char *str = NULL;
    CHECK_OK(ct_tensor_to_string(y, &str));
    CHECK(str && strstr(str, "grad_fn=<MyExpBackward>"));
    free(str);
    s = dot(y, y);
    CHECK_OK(ct_exp(ctx, x2, &y2));
    s2 = dot(y2, y2);
    CHECK(tu_same_values(y, y2));
    CHECK_OK(ct_backward(ctx, s, NULL, true));
    CHECK_OK(ct_backward(ctx, s2, NULL, true));
    CHECK(tu_same_values(ct_tensor_grad(x), ct_tensor_grad(x2)));
    /* second derivatives through the custom backward (written with ops): d/dx of x.grad . 1 */
    ct_tensor *g1[1] = {NULL}, *g2[1] = {NULL}, *h1[1] = {NULL}, *h2[1] = {NULL};
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){s}, NULL, 1,
                              (const ct_tensor *const[]){x}, true, true, g1));
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){s2}, NULL, 1,
                              (const ct_tensor *const[]){x2}, true, true, g2));
    ct_tensor *o = NULL;
    CHECK_OK(ct_ones_like(ctx, g1[0], &o));
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){g1[0]},
                              (const ct_tensor *const[]){o}, 1, (const ct_tensor *const[]){x},
                              false, false, h1));
    CHECK_OK(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){g2[0]},
                              (const ct_tensor *const[]){o}, 1, (const ct_tensor *const[]){x2},
                              false, false, h2));
    /* d^2/dx^2 sum(exp(x)^2) = 4 exp(2x): through the saved output's history, as torch's
     * Function with save_for_backward(result) */
    double *hv = tu_read(h1[0]), *ref = tu_read(h2[0]);
    for (int i = 0; hv && ref && i < 4; i++)
        CHECK_MSG(fabs(hv[i] - ref[i]) <= 1e-6 * fabs(ref[i]), "%d: %g vs %g", i, hv[i], ref[i]);
    free(hv), free(ref);
    ct_tensor_release(o), ct_tensor_release(g1[0]), ct_tensor_release(g2[0]);
    ct_tensor_release(h1[0]), ct_tensor_release(h2[0]);
    CHECK(freed == 0);
    ct_tensor_release(s), ct_tensor_release(y);
    CHECK(freed == 1); /* the node went with its last output */
    ct_tensor_release(s2), ct_tensor_release(y2), ct_tensor_release(x2);
    /* nothing recorded (grad mode off): user freed at once, a plain result */
    bool was = ct_set_grad_enabled(ctx, false);
    CHECK_OK(myexp(x, &freed, &y));
    ct_set_grad_enabled(ctx, was);
    CHECK(freed == 2 && !ct_tensor_requires_grad(y));
    ct_tensor_release(y);

    /* two inputs, two outputs, needs_input_grad */
    const double av[3] = {1, 2, 3}, bv[3] = {-1, 0.5, 4};
    ct_tensor *a = leaf(av, 3), *b = vec(bv, 3), *outs[2] = {NULL, NULL};
    const ct_autograd_function MM2 = {sizeof MM2, NULL, mm2_fwd, mm2_bwd, NULL};
    mm2_saved[0] = a, mm2_saved[1] = b;
    CHECK_OK(
        ct_autograd_function_apply(ctx, &MM2, NULL, 2, (const ct_tensor *const[]){a, b}, 2, outs));
    CHECK(ct_tensor_grad_fn_name(outs[1], name, sizeof name) &&
          strcmp(name, "CustomFunctionBackward") == 0);
    ct_tensor *l0 = dot(outs[0], outs[0]), *l = NULL;
    CHECK_OK(ct_add(ctx, l0, outs[1] /* broadcast 3 */, &l));
    ct_tensor *ls = NULL;
    CHECK_OK(ct_sum(ctx, l, 0, NULL, false, &ls));
    CHECK_OK(ct_backward(ctx, ls, NULL, false));
    /* sum over 3 of [sum (ab)^2 + (a - b)]: d/da = 6 a b^2 + 1 */
    double ga[3];
    for (int i = 0; i < 3; i++)
        ga[i] = 6 * av[i] * bv[i] * bv[i] + 1;
    tu_same_as("a.grad", ct_tensor_grad(a), ga, 1, (int64_t[]){3}, 1e-6);
    CHECK(ct_tensor_grad(b) == NULL);
    ct_tensor_release(outs[0]), ct_tensor_release(outs[1]), ct_tensor_release(l0);
    ct_tensor_release(l), ct_tensor_release(ls);

    /* a gradient of the wrong shape: torch's message */
    const ct_autograd_function BAD = {sizeof BAD, "BadBackward", identity_fwd, bad_shape_bwd, NULL};
    CHECK_OK(
        ct_autograd_function_apply(ctx, &BAD, NULL, 1, (const ct_tensor *const[]){a}, 1, outs));
    CHECK(outs[0] != a); /* an output that is the input: an alias of its own */
    ls = dot(outs[0], outs[0]);
    CHECK_ST(ct_backward(ctx, ls, NULL, false), CT_ERR_SHAPE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx),
                     "Function BadBackward returned an invalid gradient at index 0 - got [2] but "
                     "expected shape compatible with [3]"),
              "%s", ct_ctx_last_error(ctx));
    ct_tensor_release(outs[0]), ct_tensor_release(ls);
    const ct_autograd_function ID = {sizeof ID, "IdBackward", identity_fwd, identity_bwd, NULL};
    CHECK_OK(ct_autograd_function_apply(ctx, &ID, NULL, 1, (const ct_tensor *const[]){a}, 1, outs));
    CHECK_OK(ct_tensor_zero_grad(a));
    ls = dot(outs[0], outs[0]);
    CHECK_OK(ct_backward(ctx, ls, NULL, false));
    double g4[3];
    for (int i = 0; i < 3; i++)
        g4[i] = 4 * av[i];
    tu_same_as("alias", ct_tensor_grad(a), g4, 1, (int64_t[]){3}, 0);
    ct_tensor_release(outs[0]), ct_tensor_release(ls);
    /* refusals: bad sizes, counts; free_user runs once when it can be read */
    ct_autograd_function small = MYEXP;
    small.size = 8;
    myexp_user *u = calloc(1, sizeof *u);
    u->freed = &freed;
    freed = 0;
    CHECK_ST(ct_autograd_function_apply(ctx, &small, u, 1, (const ct_tensor *const[]){a}, 1, outs),
             CT_ERR_INVALID_ARG);
    CHECK(freed == 0); /* a struct too small for free_user: not read, the caller frees */
    myexp_free(u);
    CHECK(freed == 1);
    u = calloc(1, sizeof *u);
    u->freed = &freed;
    CHECK_ST(ct_autograd_function_apply(ctx, &MYEXP, u, 5,
                                        (const ct_tensor *const[]){a, a, a, a, a}, 1, outs),
             CT_ERR_INVALID_ARG);
    CHECK(freed == 2 && outs[0] == NULL);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(x);
}

/* ---- the functional API ---- */

static ct_tensor *f64(const double *v, int nd, const int64_t *shape) {
    return tu_from_vals(ctx, CT_FLOAT64, nd, shape, v);
}
/* f1(x, y) = y * sum(sin(x)) + exp(y) * sum(x * x) */
static ct_status f1(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)user, (void)n;
    ct_tensor *t[6] = {NULL};
    ct_status st = ct_sin(c, in[0], &t[0]);
    if (st == CT_OK) st = ct_sum(c, t[0], 0, NULL, false, &t[1]);
    if (st == CT_OK) st = ct_mul(c, in[1], t[1], &t[2]);
    if (st == CT_OK) st = ct_exp(c, in[1], &t[3]);
    if (st == CT_OK) t[4] = dot(in[0], in[0]);
    if (st == CT_OK) st = ct_mul(c, t[3], t[4], &t[5]);
    if (st == CT_OK) st = ct_add(c, t[2], t[5], out);
    for (int i = 0; i < 6; i++)
        ct_tensor_release(t[i]);
    return st;
}
/* f2(x, y) = sum(sin(x)) * sum(exp(y)) + sum(x^3) * sum(y^2) */
static ct_status f2(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)user, (void)n;
    ct_tensor *t[9] = {NULL};
    ct_status st = ct_sin(c, in[0], &t[0]);
    if (st == CT_OK) st = ct_sum(c, t[0], 0, NULL, false, &t[1]);
    if (st == CT_OK) st = ct_exp(c, in[1], &t[2]);
    if (st == CT_OK) st = ct_sum(c, t[2], 0, NULL, false, &t[3]);
    if (st == CT_OK) st = ct_mul(c, t[1], t[3], &t[4]);
    if (st == CT_OK) st = ct_mul(c, in[0], in[0], &t[5]);
    if (st == CT_OK) t[6] = dot(t[5], in[0]);
    if (st == CT_OK) t[7] = dot(in[1], in[1]);
    if (st == CT_OK) st = ct_mul(c, t[6], t[7], &t[8]);
    if (st == CT_OK) st = ct_add(c, t[4], t[8], out);
    for (int i = 0; i < 9; i++)
        ct_tensor_release(t[i]);
    return st;
}
#define REF(name) ag_##name, ag_##name##_nd, ag_##name##_shape

TEST(functional_as_torch) {
    ct_tensor *x = f64(ag_x, ag_x_nd, ag_x_shape), *y = f64(ag_y, ag_y_nd, ag_y_shape);
    ct_tensor *vo = f64(ag_vo, 1, ag_vo_shape), *vx = f64(ag_vx, 2, ag_vx_shape),
              *vy = f64(ag_vy, 1, ag_vy_shape);
    const ct_tensor *in[2] = {x, y}, *v[2] = {vx, vy};
    ct_tensor *r[4] = {NULL}, *out = NULL;
    const double tol = 1e-13;
    CHECK_OK(ct_autograd_jacobian(ctx, f1, NULL, 2, in, NULL, r));
    tu_same_as("jac_x", r[0], REF(jac_x), tol);
    tu_same_as("jac_y", r[1], REF(jac_y), tol);
    CHECK(!ct_tensor_requires_grad(r[0]));
    ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    CHECK_OK(ct_autograd_hessian(ctx, f2, NULL, 2, in, NULL, r));
    tu_same_as("hess_xx", r[0], REF(hess_xx), tol);
    tu_same_as("hess_xy", r[1], REF(hess_xy), tol);
    tu_same_as("hess_yx", r[2], REF(hess_yx), tol);
    tu_same_as("hess_yy", r[3], REF(hess_yy), tol);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(r[i]);
    CHECK_OK(ct_autograd_vjp(ctx, f1, NULL, 2, in, vo, NULL, &out, r));
    tu_same_as("f1", out, REF(f1), tol);
    tu_same_as("vjp_x", r[0], REF(vjp_x), tol);
    tu_same_as("vjp_y", r[1], REF(vjp_y), tol);
    CHECK(!ct_tensor_requires_grad(out));
    ct_tensor_release(out), ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    CHECK_OK(ct_autograd_jvp(ctx, f1, NULL, 2, in, v, NULL, NULL, r));
    tu_same_as("jvp", r[0], REF(jvp), tol);
    ct_tensor_release(r[0]);
    CHECK_OK(ct_autograd_vhp(ctx, f2, NULL, 2, in, v, NULL, &out, r));
    tu_same_as("f2", out, REF(f2), tol);
    tu_same_as("vhp_x", r[0], REF(vhp_x), tol);
    tu_same_as("vhp_y", r[1], REF(vhp_y), tol);
    ct_tensor_release(out), ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    CHECK_OK(ct_autograd_hvp(ctx, f2, NULL, 2, in, v, NULL, NULL, r));
    tu_same_as("hvp_x", r[0], REF(hvp_x), tol);
    tu_same_as("hvp_y", r[1], REF(hvp_y), tol);
    ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    /* the inputs are untouched: no grad, no history */
    CHECK(!ct_tensor_requires_grad(x) && ct_tensor_grad(x) == NULL);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(vo), ct_tensor_release(vx);
    ct_tensor_release(vy);
}

/* A x (A 3x4 in user), x^T A x for a square A */
static ct_status lin(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)n;
    return ct_matmul(c, (const ct_tensor *)user, in[0], out);
}
static ct_status quad(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)n;
    ct_tensor *ax = NULL;
    ct_status st = ct_matmul(c, (const ct_tensor *)user, in[0], &ax);
    if (st == CT_OK) *out = dot(in[0], ax);
    ct_tensor_release(ax);
    return st;
}
static ct_status constant(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                          ct_tensor **out) {
    (void)user, (void)n, (void)in;
    return ct_tensor_full(c, CT_FLOAT64, 1, (int64_t[]){2}, 1.0, out);
}
static ct_status use_first(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                           ct_tensor **out) {
    (void)user, (void)n;
    return ct_mul_scalar(c, in[0], 2.0, out);
}
static ct_status int_out(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                         ct_tensor **out) {
    (void)user, (void)n;
    return ct_cast(c, in[0], CT_INT64, out);
}
static ct_status no_out(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)c, (void)user, (void)n, (void)in, (void)out;
    return CT_OK;
}

TEST(functional_identities) {
    unsigned long long rng = 11;
    double av[16], xv[4];
    for (int i = 0; i < 16; i++)
        av[i] = tu_rand_val(&rng, CT_FLOAT64, -2, 2);
    for (int i = 0; i < 4; i++)
        xv[i] = tu_rand_val(&rng, CT_FLOAT64, -2, 2);
    ct_tensor *A = f64(av, 2, (int64_t[]){3, 4}), *x = f64(xv, 1, (int64_t[]){4});
    ct_tensor *S = f64(av, 2, (int64_t[]){4, 4});
    const ct_tensor *in[1] = {x};
    ct_tensor *r[2] = {NULL}, *out = NULL;
    /* the Jacobian of A x is A; of a float32 input it is float32 (the input's dtype) */
    CHECK_OK(ct_autograd_jacobian(ctx, lin, A, 1, in, NULL, r));
    tu_same_as("J(Ax)", r[0], av, 2, (int64_t[]){3, 4}, 0);
    ct_tensor_release(r[0]);
    /* the Hessian of x^T S x is S + S^T; hvp = vhp = (S + S^T) v */
    double sst[16], hv[4] = {0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            sst[i * 4 + j] = av[i * 4 + j] + av[j * 4 + i];
    CHECK_OK(ct_autograd_hessian(ctx, quad, S, 1, in, NULL, r));
    tu_same_as("H(x'Sx)", r[0], sst, 2, (int64_t[]){4, 4}, 1e-14);
    ct_tensor_release(r[0]);
    const double vv[4] = {1, -2, 0.5, 3};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            hv[i] += sst[i * 4 + j] * vv[j];
    ct_tensor *v = f64(vv, 1, (int64_t[]){4});
    const ct_tensor *vs[1] = {v};
    CHECK_OK(ct_autograd_hvp(ctx, quad, S, 1, in, vs, NULL, &out, r));
    tu_same_as("hvp", r[0], hv, 1, (int64_t[]){4}, 1e-14);
    ct_tensor_release(r[0]), ct_tensor_release(out);
    CHECK_OK(ct_autograd_vhp(ctx, quad, S, 1, in, vs, NULL, NULL, r));
    tu_same_as("vhp", r[0], hv, 1, (int64_t[]){4}, 1e-14);
    ct_tensor_release(r[0]);
    /* jvp of A x is A v */
    double avv[3] = {0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            avv[i] += av[i * 4 + j] * vv[j];
    CHECK_OK(ct_autograd_jvp(ctx, lin, A, 1, in, vs, NULL, NULL, r));
    tu_same_as("jvp(Ax)", r[0], avv, 1, (int64_t[]){3}, 1e-14);
    ct_tensor_release(r[0]);
    /* create_graph: the Jacobian of (x^T S x)'s gradient keeps its graph */
    const ct_autodiff_options cg = {sizeof cg, true, false};
    ct_tensor *xl = f64(xv, 1, (int64_t[]){4});
    CHECK_OK(ct_tensor_set_requires_grad(xl, true));
    const ct_tensor *inl[1] = {xl};
    CHECK_OK(ct_autograd_vjp(ctx, quad, S, 1, inl, NULL, &cg, &out, r));
    CHECK(ct_tensor_requires_grad(r[0]) && ct_tensor_requires_grad(out));
    ct_tensor *s = dot(r[0], v); /* v . (S + S^T) x */
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    tu_same_as("through create_graph", ct_tensor_grad(xl), hv, 1, (int64_t[]){4}, 1e-14);
    ct_tensor_release(s), ct_tensor_release(r[0]), ct_tensor_release(out);
    /* non-strict: an output that does not depend on the inputs gives zeros; strict refuses
     * (torch's messages) */
    CHECK_OK(ct_autograd_jacobian(ctx, constant, NULL, 1, in, NULL, r));
    tu_same_as("const", r[0], (const double[]){0, 0, 0, 0, 0, 0, 0, 0}, 2, (int64_t[]){2, 4}, 0);
    ct_tensor_release(r[0]);
    const ct_autodiff_options strict = {sizeof strict, false, true};
    CHECK_ST(ct_autograd_jacobian(ctx, constant, NULL, 1, in, &strict, r), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "does not require gradients"));
    CHECK(r[0] == NULL);
    const ct_tensor *two[2] = {x, A};
    CHECK_OK(ct_autograd_jacobian(ctx, use_first, NULL, 2, two, NULL, r));
    CHECK(tu_same_shape(r[1], 3, (int64_t[]){4, 3, 4}));
    ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    CHECK_ST(ct_autograd_jacobian(ctx, use_first, NULL, 2, two, &strict, r), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "independent of input 1"));
    /* refusals */
    CHECK_ST(ct_autograd_vjp(ctx, lin, A, 1, in, NULL, NULL, NULL, r), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "single element"));
    CHECK_ST(ct_autograd_vjp(ctx, lin, A, 1, in, x, NULL, NULL, r), CT_ERR_SHAPE);
    CHECK_ST(ct_autograd_hessian(ctx, lin, A, 1, in, NULL, r), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "should contain a single element"));
    CHECK_ST(ct_autograd_jvp(ctx, lin, A, 1, in, NULL, NULL, NULL, r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_autograd_jacobian(ctx, int_out, NULL, 1, in, NULL, r), CT_ERR_DTYPE);
    CHECK_ST(ct_autograd_jacobian(ctx, no_out, NULL, 1, in, NULL, r), CT_ERR_INVALID_ARG);
    ct_tensor *xi = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_INT32, &xi));
    const ct_tensor *ini[1] = {xi};
    CHECK_ST(ct_autograd_jacobian(ctx, use_first, NULL, 1, ini, NULL, r), CT_ERR_DTYPE);
    const ct_autodiff_options tiny = {4, false, false};
    CHECK_ST(ct_autograd_jacobian(ctx, use_first, NULL, 1, in, &tiny, r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_autograd_jacobian(ctx, NULL, NULL, 1, in, NULL, r), CT_ERR_INVALID_ARG);
    CHECK(ct_is_grad_enabled(ctx)); /* restored after every failure */
    /* allow_unused through ct_autograd_grad_ex: NULL for the unused input */
    ct_tensor *xa = f64(xv, 1, (int64_t[]){4}), *xb = f64(xv, 1, (int64_t[]){4}), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(xa, true));
    CHECK_OK(ct_tensor_set_requires_grad(xb, true));
    y = dot(xa, xa);
    const ct_tensor *ab[2] = {xa, xb};
    CHECK_ST(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){y}, NULL, 2, ab, true, false, r),
             CT_ERR_STATE);
    const ct_grad_options au = {sizeof au, true, false, true};
    CHECK_OK(ct_autograd_grad_ex(ctx, 1, (const ct_tensor *const[]){y}, NULL, 2, ab, &au, r));
    CHECK(r[0] != NULL && r[1] == NULL);
    ct_tensor_release(r[0]);
    ct_tensor_release(xa), ct_tensor_release(xb), ct_tensor_release(y);
    ct_tensor_release(xi), ct_tensor_release(xl), ct_tensor_release(v), ct_tensor_release(A);
    ct_tensor_release(S), ct_tensor_release(x);
}

/* ---- gradcheck ---- */

static int gc_freed;
static ct_status gc_myexp(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                          ct_tensor **out) {
    (void)n;
    myexp_user *u = calloc(1, sizeof *u);
    u->freed = &gc_freed;
    u->wrong = user == (void *)1;
    u->detach = user == (void *)2;
    return ct_autograd_function_apply(c, &MYEXP, u, 1, in, 1, out);
}

TEST(gradcheck_finds_wrong_formulas) {
    const double xv[4] = {0.5, -1, 2, 0.25};
    ct_tensor *x = f64(xv, 1, (int64_t[]){4}), *y = f64(ag_y, 1, (int64_t[]){3});
    ct_tensor *xx = f64(ag_x, 2, (int64_t[]){2, 2});
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_tensor_set_requires_grad(xx, true));
    CHECK_OK(ct_tensor_set_requires_grad(y, true));
    bool ok = false;
    const ct_tensor *in[1] = {x}, *in2[2] = {xx, y};
    CHECK_OK(ct_gradcheck(ctx, gc_myexp, NULL, 1, in, NULL, &ok));
    CHECK(ok);
    CHECK_OK(ct_gradcheck(ctx, f1, NULL, 2, in2, NULL, &ok));
    CHECK(ok);
    CHECK_OK(ct_gradgradcheck(ctx, f2, NULL, 2, in2, NULL, &ok));
    CHECK_MSG(ok, "%s", ct_ctx_last_error(ctx));
    /* a backward 1% off is caught, with the place named */
    CHECK_OK(ct_gradcheck(ctx, gc_myexp, (void *)1, 1, in, NULL, &ok));
    CHECK(!ok);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "Jacobian mismatch for output 0 with respect to "
                                             "input 0"),
              "%s", ct_ctx_last_error(ctx));
    /* a backward that is right but not differentiable passes gradcheck, fails gradgradcheck */
    CHECK_OK(ct_gradcheck(ctx, gc_myexp, (void *)2, 1, in, NULL, &ok));
    CHECK(ok);
    CHECK_OK(ct_gradgradcheck(ctx, gc_myexp, (void *)2, 1, in, NULL, &ok));
    CHECK(!ok);
    /* the custom exp through its saved output is right to second order */
    CHECK_OK(ct_gradgradcheck(ctx, gc_myexp, NULL, 1, in, NULL, &ok));
    CHECK_MSG(ok, "%s", ct_ctx_last_error(ctx));
    /* the tolerances are used: a loose rtol accepts the 1% error */
    ct_gradcheck_options o = ct_gradcheck_options_default();
    CHECK(o.eps == 1e-6 && o.atol == 1e-5 && o.rtol == 1e-3);
    o.rtol = 0.02;
    CHECK_OK(ct_gradcheck(ctx, gc_myexp, (void *)1, 1, in, &o, &ok));
    CHECK_MSG(ok, "%s", ct_ctx_last_error(ctx));
    /* refusals */
    ct_tensor *c = f64(xv, 1, (int64_t[]){4}), *cx = NULL;
    const ct_tensor *inc[1] = {c};
    CHECK_ST(ct_gradcheck(ctx, gc_myexp, NULL, 1, inc, NULL, &ok), CT_ERR_INVALID_ARG);
    CHECK(!ok && strstr(ct_ctx_last_error(ctx), "at least one input tensor to require gradient"));
    o.eps = 0;
    CHECK_ST(ct_gradcheck(ctx, gc_myexp, NULL, 1, in, &o, &ok), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_gradcheck(ctx, gc_myexp, NULL, 1, in, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_cast(ctx, c, CT_COMPLEX128, &cx));
    CHECK_OK(ct_tensor_set_requires_grad(cx, true));
    const ct_tensor *incx[1] = {cx};
    CHECK_ST(ct_gradcheck(ctx, use_first, NULL, 1, incx, NULL, &ok), CT_ERR_UNSUPPORTED);
    CHECK(gc_freed > 0);
    ct_tensor_release(c), ct_tensor_release(cx);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(xx);
}

/* ---- regressions from the differential review ---- */

static ct_tensor *self_hook_t;
static int64_t self_hook_id;
static ct_status hook_remove_self(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)user;
    CHECK_OK(ct_tensor_remove_hook(self_hook_t, self_hook_id));
    return ct_mul_scalar(c, g, 10, r);
}
static ct_status x_plus_yy(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                           ct_tensor **out) {
    (void)user, (void)n;
    ct_tensor *yy = NULL;
    ct_status st = ct_mul(c, in[1], in[1], &yy);
    if (st == CT_OK) st = ct_add(c, in[0], yy, out);
    ct_tensor_release(yy);
    return st;
}
static ct_status sum_logcumsumexp(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                                  ct_tensor **out) {
    (void)user, (void)n;
    ct_tensor *l = NULL;
    ct_status st = ct_logcumsumexp(c, in[0], 0, &l);
    if (st == CT_OK) st = ct_sum(c, l, 0, NULL, false, out);
    ct_tensor_release(l);
    return st;
}

static ct_status hook_grad_on(ct_ctx *c, const ct_tensor *g, void *user, ct_tensor **r) {
    (void)g, (void)user, (void)r;
    ct_set_grad_enabled(c, true);
    return CT_OK;
}
static ct_status sum_all(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                         ct_tensor **out) {
    (void)user;
    ct_tensor *acc = NULL;
    ct_status st = ct_tensor_zeros(c, CT_FLOAT64, 0, NULL, &acc);
    for (int i = 0; i < n && st == CT_OK; i++) {
        ct_tensor *p = NULL, *s = NULL;
        st = ct_mul(c, in[i], in[i], &p);
        if (st == CT_OK) st = ct_add(c, acc, p, &s);
        ct_tensor_release(p), ct_tensor_release(acc);
        acc = s;
    }
    *out = acc;
    return st;
}

TEST(review_regressions) {
    /* jacobian with create_graph where the gradient is the seed itself: rows must not alias */
    const double xv[3] = {1, 2, 3};
    ct_tensor *x = f64(xv, 1, (int64_t[]){3}), *y = f64(xv, 1, (int64_t[]){3}), *r[2] = {NULL};
    const ct_autodiff_options cg = {sizeof cg, true, false};
    CHECK_OK(
        ct_autograd_jacobian(ctx, x_plus_yy, NULL, 2, (const ct_tensor *const[]){x, y}, &cg, r));
    tu_same_as("jac create_graph", r[0], (const double[]){1, 0, 0, 0, 1, 0, 0, 0, 1}, 2,
               (int64_t[]){3, 3}, 0);
    tu_same_as("jac y", r[1], (const double[]){2, 0, 0, 0, 4, 0, 0, 0, 6}, 2, (int64_t[]){3, 3}, 0);
    ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    /* strict with create_graph: f(x) = x + y^2's Jacobian in x has no graph (torch's error) */
    const ct_autodiff_options sc = {sizeof sc, true, true};
    CHECK_ST(
        ct_autograd_jacobian(ctx, x_plus_yy, NULL, 2, (const ct_tensor *const[]){x, y}, &sc, r),
        CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "when create_graph=True"));
    CHECK_ST(
        ct_autograd_vjp(ctx, x_plus_yy, NULL, 2, (const ct_tensor *const[]){x, y}, x, &sc, NULL, r),
        CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "The jacobian of the user-provided function is "
                                         "independent of input 0"));
    /* logcumsumexp's Hessian is finite (torch 1.13's values) */
    const double lx[3] = {0.1, -0.5, 0.7};
    ct_tensor *l = f64(lx, 1, (int64_t[]){3});
    CHECK_OK(ct_autograd_hessian(ctx, sum_logcumsumexp, NULL, 1, (const ct_tensor *const[]){l},
                                 NULL, r));
    tu_same_as("logcumsumexp hessian", r[0],
               (const double[]){0.4374346450175559, -0.2770816380254088, -0.16035300699214694,
                                -0.27708163802540886, 0.36508523414536587, -0.08800359611995703,
                                -0.16035300699214694, -0.08800359611995703, 0.248356603112104},
               2, (int64_t[]){3, 3}, 1e-13);
    ct_tensor_release(r[0]), ct_tensor_release(l);
    /* a hook removing itself while it runs: the next hook still runs (torch) */
    const double ten = 10;
    ct_tensor *a = leaf(xv, 3), *ya = NULL, *s = NULL;
    CHECK_OK(ct_mul_scalar(ctx, a, 2, &ya));
    self_hook_t = ya;
    CHECK_OK(ct_tensor_register_hook(ya, hook_remove_self, NULL, &self_hook_id));
    CHECK_OK(ct_tensor_register_hook(ya, hook_scale, (void *)&ten, NULL));
    CHECK_OK(ct_sum(ctx, ya, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, true));
    tu_same_as("self-removing hook", ct_tensor_grad(a), (const double[]){200, 200, 200}, 1,
               (int64_t[]){3}, 0);
    CHECK_ST(ct_tensor_remove_hook(ya, self_hook_id), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_zero_grad(a));
    CHECK_OK(ct_backward(ctx, s, NULL, false)); /* removed: only * 10 now */
    tu_same_as("after removal", ct_tensor_grad(a), (const double[]){20, 20, 20}, 1, (int64_t[]){3},
               0);
    ct_tensor_release(s), ct_tensor_release(ya);
    /* anomaly mode numbers torch's way: where(c, a, b) with a NaN for b is its 1th output */
    const double one2[2] = {1, 2}, nan1[2] = {1, NAN};
    ct_tensor *p = leaf(one2, 2), *q = leaf(one2, 2), *c = NULL, *o = NULL, *gr = vec(nan1, 2);
    const uint8_t cv[2] = {1, 0};
    CHECK_OK(ct_tensor_from_host(ctx, cv, CT_BOOL, 1, (int64_t[]){2}, &c));
    CHECK_OK(ct_where(ctx, c, p, q, &o));
    ct_set_detect_anomaly(ctx, true);
    CHECK_ST(ct_backward(ctx, o, gr, false), CT_ERR_STATE);
    ct_set_detect_anomaly(ctx, false);
    CHECK_MSG(strcmp(ct_ctx_last_error(ctx),
                     "Function 'WhereBackward0' returned nan values in its 1th output.") == 0,
              "%s", ct_ctx_last_error(ctx));
    ct_tensor_release(p), ct_tensor_release(q), ct_tensor_release(c), ct_tensor_release(o);
    ct_tensor_release(gr), ct_tensor_release(a), ct_tensor_release(x), ct_tensor_release(y);
    /* a hook that turns grad mode on does not make the pass record */
    ct_tensor *u = leaf(xv, 3), *yu = NULL, *su = NULL;
    CHECK_OK(ct_mul_scalar(ctx, u, 2, &yu));
    CHECK_OK(ct_tensor_register_hook(yu, hook_grad_on, NULL, NULL));
    CHECK_OK(ct_sum(ctx, yu, 0, NULL, false, &su));
    CHECK_OK(ct_backward(ctx, su, NULL, false));
    CHECK(!ct_tensor_requires_grad(ct_tensor_grad(u)));
    ct_tensor_release(su);
    /* a hook registered before an in-place write can still be removed */
    int64_t hid = 0;
    CHECK_OK(ct_mul_scalar(ctx, u, 2, &su));
    CHECK_OK(ct_tensor_register_hook(su, hook_keep, NULL, &hid));
    CHECK_OK(ct_mul_scalar_(ctx, su, 3));
    CHECK_OK(ct_tensor_remove_hook(su, hid));
    /* ... but not another tensor's hook */
    ct_tensor *sv = NULL;
    CHECK_OK(ct_tensor_register_hook(su, hook_keep, NULL, &hid));
    CHECK_OK(ct_mul_scalar(ctx, su, 2, &sv));
    CHECK_ST(ct_tensor_remove_hook(sv, hid), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_remove_hook(su, hid));
    ct_tensor_release(sv);
    ct_tensor_release(su), ct_tensor_release(yu), ct_tensor_release(u);
    /* jvp / vhp / hvp: at most 16 inputs, said plainly */
    ct_tensor *many[17], *res[17] = {NULL};
    for (int i = 0; i < 17; i++)
        many[i] = f64(xv, 1, (int64_t[]){1});
    CHECK_ST(ct_autograd_vhp(ctx, sum_all, NULL, 17, (const ct_tensor *const *)many,
                             (const ct_tensor *const *)many, NULL, NULL, res),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "17 inputs (1..16"));
    CHECK_OK(ct_autograd_vhp(ctx, sum_all, NULL, 16, (const ct_tensor *const *)many,
                             (const ct_tensor *const *)many, NULL, NULL, res));
    tu_same_as("vhp 16", res[15], (const double[]){2}, 1, (int64_t[]){1}, 0);
    for (int i = 0; i < 17; i++)
        ct_tensor_release(many[i]), ct_tensor_release(res[i]);
    CHECK(ct_autograd_vhp(ctx, sum_all, NULL, 65, (const ct_tensor *const *)many, NULL, NULL, NULL,
                          res) == CT_ERR_INVALID_ARG);
}

/* ---- activation checkpointing ---- */

typedef struct {
    ct_tensor *w1, *w2, *outer;
    int calls;
} mlp_params;
/* tanh(x @ w1) @ w2 (+ outer, a tensor from outside, when set) */
static ct_status mlp(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    mlp_params *p = user;
    (void)n;
    p->calls++;
    ct_tensor *h = NULL, *t = NULL, *o = NULL;
    ct_status st = ct_matmul(c, in[0], p->w1, &h);
    if (st == CT_OK) st = ct_tanh(c, h, &t);
    if (st == CT_OK) st = ct_matmul(c, t, p->w2, p->outer ? &o : out);
    if (st == CT_OK && p->outer) st = ct_add(c, o, p->outer, out);
    ct_tensor_release(h), ct_tensor_release(t), ct_tensor_release(o);
    return st;
}

static void run_mlp(bool ckpt, bool reuse_w1, mlp_params *p, ct_tensor *x, ct_tensor **grads) {
    ct_tensor *y = NULL, *l = NULL, *q = NULL, *extra = NULL;
    const ct_tensor *in[1] = {x};
    if (ckpt)
        CHECK_OK(ct_checkpoint(ctx, mlp, p, 1, in, &y));
    else
        CHECK_OK(mlp(ctx, p, 1, in, &y));
    CHECK_OK(ct_mul(ctx, y, y, &q));
    CHECK_OK(ct_sum(ctx, q, 0, NULL, false, &l));
    if (reuse_w1) { /* w1 also used outside the checkpoint */
        ct_tensor *s = NULL, *l2 = NULL;
        CHECK_OK(ct_sum(ctx, p->w1, 0, NULL, false, &s));
        CHECK_OK(ct_mul(ctx, s, s, &extra));
        CHECK_OK(ct_add(ctx, l, extra, &l2));
        ct_tensor_release(s), ct_tensor_release(l);
        l = l2;
    }
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    grads[0] = ct_tensor_retain(ct_tensor_grad(x));
    grads[1] = ct_tensor_retain(ct_tensor_grad(p->w1));
    grads[2] = ct_tensor_retain(ct_tensor_grad(p->w2));
    ct_tensor_zero_grad(x), ct_tensor_zero_grad(p->w1), ct_tensor_zero_grad(p->w2);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(q), ct_tensor_release(extra);
}

static ct_status tanh_fn(ct_ctx *c, void *user, int n, const ct_tensor *const *in,
                         ct_tensor **out) {
    (void)user, (void)n;
    return ct_tanh(c, in[0], out);
}

TEST(checkpoint) {
    ct_tensor *x = NULL;
    mlp_params p = {NULL, NULL, NULL, 0};
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, (int64_t[]){3, 4}, 1, 0, &x));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, (int64_t[]){4, 5}, 2, 0, &p.w1));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, (int64_t[]){5, 2}, 3, 0, &p.w2));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_tensor_set_requires_grad(p.w1, true));
    CHECK_OK(ct_tensor_set_requires_grad(p.w2, true));
    /* the same gradients as without checkpointing, for the input and the parameters; the
     * function runs twice (forward, recomputation) */
    for (int reuse = 0; reuse < 2; reuse++) {
        ct_tensor *a[3] = {NULL}, *b[3] = {NULL};
        run_mlp(false, reuse, &p, x, a);
        p.calls = 0;
        run_mlp(true, reuse, &p, x, b);
        CHECK(p.calls == 2);
        for (int i = 0; i < 3; i++) {
            CHECK_MSG(a[i] && b[i] && tu_same_values(a[i], b[i]), "reuse %d grad %d", reuse, i);
            ct_tensor_release(a[i]), ct_tensor_release(b[i]);
        }
    }
    /* torch's node name; no intermediates kept: the output's history is one node */
    ct_tensor *y = NULL, *s = NULL, *g[1] = {NULL};
    const ct_tensor *in[1] = {x};
    CHECK_OK(ct_checkpoint(ctx, mlp, &p, 1, in, &y));
    char name[48];
    CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) &&
          !strcmp(name, "CheckpointFunctionBackward"));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    /* torch: "Checkpointing is not compatible with .grad()" */
    CHECK_ST(ct_autograd_grad(ctx, 1, (const ct_tensor *const[]){s}, NULL, 1, in, true, false, g),
             CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "not compatible with .grad()"));
    ct_tensor_release(s), ct_tensor_release(y);
    /* a tensor with history from outside: its gradient flows through the recomputation (as
     * torch's reentrant checkpoint); when the outer pass runs through that history too, the
     * nested pass refuses clearly */
    ct_tensor *h = NULL, *a2[3] = {NULL}, *b2[3] = {NULL};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(ct_mul_scalar(ctx, x, 2, &h));
        CHECK_OK(ct_tensor_narrow(ctx, h, 1, 0, 2, &p.outer));
        run_mlp(k == 1, false, &p, x, k ? b2 : a2);
        ct_tensor_release(p.outer), ct_tensor_release(h);
    }
    for (int i = 0; i < 3; i++) {
        CHECK_MSG(a2[i] && b2[i] && tu_same_values(a2[i], b2[i]), "outer grad %d", i);
        ct_tensor_release(a2[i]), ct_tensor_release(b2[i]);
    }
    ct_tensor *hs = NULL, *l = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &h));
    CHECK_OK(ct_tensor_narrow(ctx, h, 1, 0, 2, &p.outer));
    CHECK_OK(ct_checkpoint(ctx, mlp, &p, 1, in, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_sum(ctx, h, 0, NULL, false, &hs));
    CHECK_OK(ct_add(ctx, s, hs, &l));
    CHECK_ST(ct_backward(ctx, l, NULL, false), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "pass that tensor as an input"));
    ct_tensor_release(s), ct_tensor_release(y), ct_tensor_release(p.outer), ct_tensor_release(h);
    ct_tensor_release(hs), ct_tensor_release(l);
    p.outer = NULL;
    /* the engine is usable afterwards, and without an input requiring grad nothing is recorded */
    ct_tensor *a[3] = {NULL};
    run_mlp(true, false, &p, x, a);
    CHECK(a[0] && a[1] && a[2]);
    for (int i = 0; i < 3; i++)
        ct_tensor_release(a[i]);
    ct_tensor *xc = NULL;
    CHECK_OK(ct_tensor_detach(ctx, x, &xc));
    const ct_tensor *inc[1] = {xc};
    CHECK_OK(ct_checkpoint(ctx, mlp, &p, 1, inc, &y));
    CHECK(!ct_tensor_requires_grad(y));
    ct_tensor_release(y), ct_tensor_release(xc);
    /* an input written in place after the forward is refused at backward, as torch's saved
     * inputs */
    ct_tensor *x2 = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 1.0, &x2));
    const ct_tensor *in2[1] = {x2};
    CHECK_OK(ct_checkpoint(ctx, mlp, &p, 1, in2, &y));
    CHECK_OK(ct_add_scalar_(ctx, x2, 1.0));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation"));
    ct_tensor_release(s), ct_tensor_release(y), ct_tensor_release(x2);
    /* no reference cycle when an input is written from the output (main checks no tensor is
     * left alive) */
    CHECK_OK(ct_mul_scalar(ctx, x, 1.0, &x2));
    const ct_tensor *in4[1] = {x2};
    ct_tensor *y3 = NULL;
    CHECK_OK(ct_checkpoint(ctx, tanh_fn, NULL, 1, in4, &y3));
    CHECK_OK(ct_add_(ctx, x2, y3));
    ct_tensor_release(y3), ct_tensor_release(x2);
    CHECK_ST(ct_checkpoint(ctx, NULL, &p, 1, in, &y), CT_ERR_INVALID_ARG);
    ct_tensor_release(x), ct_tensor_release(p.w1), ct_tensor_release(p.w2);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(hooks_as_torch);
    RUN(hooks_remove_and_refuse);
    RUN(retain_grad_follows_inplace);
    RUN(anomaly_mode);
    RUN(custom_function);
    RUN(functional_as_torch);
    RUN(functional_identities);
    RUN(gradcheck_finds_wrong_formulas);
    RUN(review_regressions);
    RUN(checkpoint);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

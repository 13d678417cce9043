/* Autograd tools: a gradient hook and retain_grad, anomaly mode catching a NaN gradient, a custom
 * differentiable function (torch.autograd.Function) checked with gradcheck, and the functional
 * API (jacobian, hessian, vjp, jvp, vhp, hvp) on f(x) = sum(x^3) / 3 + x0 x1. */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("failed: %s (%s)\n", #c, ct_ctx_last_error(ctx));                               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* a hook that doubles the gradient flowing through */
static ct_status twice(ct_ctx *ctx, const ct_tensor *grad, void *user, ct_tensor **new_grad) {
    (void)user;
    return ct_mul_scalar(ctx, grad, 2.0, new_grad);
}

/* softplus as a custom function: forward log1p(exp(x)), backward g * sigmoid(x); the input is
 * kept in user (retained by forward, released by free_user: torch's save_for_backward(x)) */
typedef struct {
    ct_tensor *x;
} sp_saved;
static ct_status sp_forward(ct_ctx *ctx, void *user, int n_in, const ct_tensor *const *in,
                            int n_out, ct_tensor **out) {
    (void)n_in, (void)n_out;
    ((sp_saved *)user)->x = ct_tensor_retain((ct_tensor *)in[0]);
    ct_tensor *e = NULL;
    ct_status st = ct_exp(ctx, in[0], &e);
    if (st == CT_OK) st = ct_log1p(ctx, e, &out[0]);
    ct_tensor_release(e);
    return st;
}
static ct_status sp_backward(ct_ctx *ctx, void *user, int n_out, const ct_tensor *const *out,
                             const ct_tensor *const *grad_out, int n_in, const bool *needs,
                             ct_tensor **grad_in) {
    (void)n_out, (void)out, (void)n_in;
    if (!needs[0]) return CT_OK;
    ct_tensor *s = NULL;
    ct_status st = ct_sigmoid(ctx, ((sp_saved *)user)->x, &s);
    if (st == CT_OK) st = ct_mul(ctx, grad_out[0], s, &grad_in[0]);
    ct_tensor_release(s);
    return st;
}
static void sp_free(void *user) {
    ct_tensor_release(((sp_saved *)user)->x);
    free(user);
}
static ct_status softplus_fn(ct_ctx *ctx, void *user, int n, const ct_tensor *const *in,
                             ct_tensor **out) {
    (void)user, (void)n;
    const ct_autograd_function f = {sizeof f, "MySoftplusBackward", sp_forward, sp_backward,
                                    sp_free};
    sp_saved *saved = calloc(1, sizeof *saved); /* freed by sp_free in every case */
    if (!saved) return ct_ctx_set_error(ctx, CT_ERR_OOM, "softplus_fn: out of memory");
    return ct_autograd_function_apply(ctx, &f, saved, 1, in, 1, out);
}

/* f(x) = sum(x^3) / 3 + x0 x1: gradient x^2 + (x1, x0), Hessian diag(2 x) + [[0,1],[1,0]] */
static ct_status f(ct_ctx *ctx, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)user, (void)n;
    ct_tensor *c = NULL, *s = NULL, *a = NULL, *b = NULL, *p = NULL, *t = NULL;
    ct_status st = ct_pow(ctx, in[0], 3.0, &c);
    if (st == CT_OK) st = ct_sum(ctx, c, 0, NULL, false, &s);
    if (st == CT_OK) st = ct_div_scalar(ctx, s, 3.0, &t);
    if (st == CT_OK) st = ct_select(ctx, in[0], 0, 0, &a);
    if (st == CT_OK) st = ct_select(ctx, in[0], 0, 1, &b);
    if (st == CT_OK) st = ct_mul(ctx, a, b, &p);
    if (st == CT_OK) st = ct_add(ctx, t, p, out);
    ct_tensor_release(c), ct_tensor_release(s), ct_tensor_release(a), ct_tensor_release(b);
    ct_tensor_release(p), ct_tensor_release(t);
    return st;
}

int main(void) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    const int64_t s2[1] = {2};
    const double xv[2] = {1.5, -0.5};
    double v[4];
    ct_tensor *x = NULL, *y = NULL, *l = NULL, *r[4] = {NULL};
    CHECK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, 1, s2, &x) == CT_OK);
    CHECK(ct_tensor_set_requires_grad(x, true) == CT_OK);

    /* hooks and retain_grad: y = 3 x; l = sum(y^2); y's gradient 2 y is doubled by the hook */
    int64_t id = 0;
    char name[32];
    CHECK(ct_mul_scalar(ctx, x, 3.0, &y) == CT_OK);
    CHECK(ct_tensor_register_hook(y, twice, NULL, &id) == CT_OK);
    CHECK(ct_tensor_retain_grad(y) == CT_OK && ct_tensor_retains_grad(y));
    CHECK(!ct_tensor_is_leaf(y) && ct_tensor_is_leaf(x) && ct_is_grad_enabled(ctx));
    CHECK(ct_tensor_grad_fn_name(y, name, sizeof name));
    CHECK(ct_pow(ctx, y, 2.0, &r[0]) == CT_OK && ct_sum(ctx, r[0], 0, NULL, false, &l) == CT_OK);
    CHECK(ct_backward(ctx, l, NULL, true) == CT_OK);
    CHECK(ct_tensor_to_host(ct_tensor_grad(x), v, 2 * sizeof *v) == CT_OK);
    printf("hook on %s: x.grad = %g %g (2 * 3 * 2 * 3x = 54, -18)\n", name, v[0], v[1]);
    CHECK(v[0] == 54 && v[1] == -18);
    CHECK(ct_tensor_remove_hook(y, id) == CT_OK && ct_tensor_zero_grad(x) == CT_OK);
    CHECK(ct_backward(ctx, l, NULL, false) == CT_OK);
    CHECK(ct_tensor_to_host(ct_tensor_grad(x), v, 2 * sizeof *v) == CT_OK && v[0] == 27);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(r[0]);

    /* anomaly mode names the formula that made a NaN: sqrt at 0 times 0 */
    ct_tensor *z = NULL, *q = NULL, *m = NULL;
    CHECK(!ct_set_detect_anomaly(ctx, true) && ct_is_anomaly_enabled(ctx));
    CHECK(ct_mul_scalar(ctx, x, 0.0, &z) == CT_OK && ct_sqrt(ctx, z, &q) == CT_OK);
    CHECK(ct_sum(ctx, q, 0, NULL, false, &m) == CT_OK);
    CHECK(ct_backward(ctx, m, NULL, false) == CT_ERR_STATE);
    printf("anomaly mode: %s\n", ct_ctx_last_error(ctx));
    ct_set_detect_anomaly(ctx, false);
    ct_tensor_release(z), ct_tensor_release(q), ct_tensor_release(m);

    /* a custom function, checked against finite differences */
    bool passed = false;
    const ct_tensor *in[1] = {x};
    const ct_gradcheck_options gc = ct_gradcheck_options_default();
    CHECK(ct_gradcheck(ctx, softplus_fn, NULL, 1, in, &gc, &passed) == CT_OK && passed);
    CHECK(ct_gradgradcheck(ctx, f, NULL, 1, in, NULL, &passed) == CT_OK && passed);
    printf("gradcheck of the custom softplus and gradgradcheck of f: passed\n");

    /* the functional API */
    ct_tensor *out = NULL, *vv = NULL, *vs[1];
    const double dv[2] = {1, 2};
    CHECK(ct_tensor_from_host(ctx, dv, CT_FLOAT64, 1, s2, &vv) == CT_OK);
    vs[0] = vv;
    CHECK(ct_autograd_jacobian(ctx, f, NULL, 1, in, NULL, &r[0]) == CT_OK);
    CHECK(ct_autograd_hessian(ctx, f, NULL, 1, in, NULL, &r[1]) == CT_OK);
    CHECK(ct_tensor_to_host(r[1], v, 4 * sizeof *v) == CT_OK);
    printf("hessian = [[%g, %g], [%g, %g]] (want [[3, 1], [1, -1]])\n", v[0], v[1], v[2], v[3]);
    CHECK(v[0] == 3 && v[1] == 1 && v[2] == 1 && v[3] == -1);
    ct_tensor_release(r[0]), ct_tensor_release(r[1]);
    /* H v = (3 + 2, 1 - 2) = (5, -1) three ways */
    CHECK(ct_autograd_hvp(ctx, f, NULL, 1, in, (const ct_tensor *const *)vs, NULL, &out, &r[0]) ==
          CT_OK);
    CHECK(ct_autograd_vhp(ctx, f, NULL, 1, in, (const ct_tensor *const *)vs, NULL, NULL, &r[1]) ==
          CT_OK);
    CHECK(ct_autograd_vjp(ctx, f, NULL, 1, in, NULL, NULL, NULL, &r[2]) == CT_OK);
    CHECK(ct_autograd_jvp(ctx, f, NULL, 1, in, (const ct_tensor *const *)vs, NULL, NULL, &r[3]) ==
          CT_OK);
    double hv[2], vh[2], g[2], jv;
    CHECK(ct_tensor_to_host(r[0], hv, sizeof hv) == CT_OK);
    CHECK(ct_tensor_to_host(r[1], vh, sizeof vh) == CT_OK);
    CHECK(ct_tensor_to_host(r[2], g, sizeof g) == CT_OK);
    CHECK(ct_tensor_to_host(r[3], &jv, sizeof jv) == CT_OK);
    printf("hvp = %g %g, vhp = %g %g, gradient = %g %g, jvp = %g\n", hv[0], hv[1], vh[0], vh[1],
           g[0], g[1], jv);
    CHECK(hv[0] == 5 && hv[1] == -1 && vh[0] == 5 && vh[1] == -1);
    CHECK(g[0] == 1.75 && g[1] == 1.75 && jv == 1.75 + 2 * 1.75);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(r[i]);
    /* activation checkpointing: f's intermediates are recomputed in the backward */
    ct_tensor *cy = NULL;
    CHECK(ct_checkpoint(ctx, f, NULL, 1, in, &cy) == CT_OK);
    CHECK(ct_backward(ctx, cy, NULL, false) == CT_OK);
    CHECK(ct_tensor_to_host(ct_tensor_grad(x), g, sizeof g) == CT_OK);
    printf("checkpointed f: x.grad = %g %g (the gradient 1.75 1.75, added to 27 -9)\n", g[0], g[1]);
    CHECK(g[0] == 27 + 1.75 && g[1] == -9 + 1.75);
    ct_tensor_release(cy);
    /* autograd.grad with allow_unused */
    ct_tensor *w = NULL, *sw = NULL, *gr[2] = {NULL};
    CHECK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, 1, s2, &w) == CT_OK);
    CHECK(ct_tensor_set_requires_grad(w, true) == CT_OK);
    CHECK(ct_sum(ctx, x, 0, NULL, false, &sw) == CT_OK);
    const ct_grad_options go = {sizeof go, false, false, true};
    CHECK(ct_autograd_grad_ex(ctx, 1, (const ct_tensor *const[]){sw}, NULL, 2,
                              (const ct_tensor *const[]){x, w}, &go, gr) == CT_OK);
    CHECK(gr[0] && !gr[1]);
    ct_tensor_release(gr[0]), ct_tensor_release(sw), ct_tensor_release(w);
    CHECK(ct_ctx_set_error(ctx, CT_OK, "done") == CT_OK);
    ct_tensor_release(out), ct_tensor_release(vv), ct_tensor_release(x);
    ct_ctx_free(ctx);
    return 0;
}

/* L-BFGS with the strong-Wolfe line search (torch.optim.LBFGS) fitting a nonlinear model,
 * y = a exp(-b t) + c, to 50 noiseless samples in float64; the closure evaluates the loss with
 * ops and its gradient with autograd. Fails unless (a, b, c) is recovered to 1e-6. */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *T, *Y, *P; /* samples, targets, parameters (a, b, c) */

/* loss = mean((a exp(-b t) + c - y)^2) */
static ct_status closure(void *user, double *loss, ct_tensor **grads) {
    (void)user;
    ct_tensor *a = NULL, *b = NULL, *c = NULL, *bt = NULL, *e = NULL, *ae = NULL, *f = NULL;
    ct_tensor *l = NULL;
    ct_status st = ct_tensor_zero_grad(P);
    if (st == CT_OK) st = ct_select(ctx, P, 0, 0, &a);
    if (st == CT_OK) st = ct_select(ctx, P, 0, 1, &b);
    if (st == CT_OK) st = ct_select(ctx, P, 0, 2, &c);
    if (st == CT_OK) st = ct_mul(ctx, T, b, &bt);
    if (st == CT_OK) st = ct_neg_(ctx, bt);
    if (st == CT_OK) st = ct_exp(ctx, bt, &e);
    if (st == CT_OK) st = ct_mul(ctx, e, a, &ae);
    if (st == CT_OK) st = ct_add(ctx, ae, c, &f);
    if (st == CT_OK) st = ct_mse_loss(ctx, f, Y, CT_REDUCTION_MEAN, &l);
    if (st == CT_OK) st = ct_backward(ctx, l, NULL, false);
    if (st == CT_OK) st = ct_tensor_to_host(l, loss, sizeof *loss);
    grads[0] = ct_tensor_grad(P);
    ct_tensor *all[] = {a, b, c, bt, e, ae, f, l};
    for (int i = 0; i < 8; i++)
        ct_tensor_release(all[i]);
    return st;
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    double tv[50], yv[50], p0[3] = {1, 0.5, 0};
    for (int i = 0; i < 50; i++) {
        tv[i] = 0.1 * i;
        yv[i] = 2.5 * exp(-1.3 * tv[i]) + 0.4;
    }
    const int64_t n = 50, three = 3;
    ct_status st = ct_tensor_from_host(ctx, tv, CT_FLOAT64, 1, &n, &T);
    if (st == CT_OK) st = ct_tensor_from_host(ctx, yv, CT_FLOAT64, 1, &n, &Y);
    if (st == CT_OK) st = ct_tensor_from_host(ctx, p0, CT_FLOAT64, 1, &three, &P);
    if (st == CT_OK) st = ct_tensor_set_requires_grad(P, true);
    ct_lbfgs_options o = ct_lbfgs_options_default();
    o.strong_wolfe = true;
    o.max_iter = 100;
    o.tolerance_grad = 1e-12;
    o.tolerance_change = 1e-15;
    ct_lbfgs *opt = NULL;
    if (st == CT_OK) st = ct_lbfgs_create(ctx, &o, 1, &P, &opt);
    double loss = 0, p[3] = {0, 0, 0};
    for (int s = 0; s < 3 && st == CT_OK; s++) {
        st = ct_lbfgs_step(opt, closure, NULL, &loss);
        if (st == CT_OK) st = ct_tensor_to_host(P, p, sizeof p);
        if (st == CT_OK)
            printf("step %d: loss before %.3g, a %.9f b %.9f c %.9f (%lld iterations, %lld "
                   "evaluations)\n",
                   s + 1, loss, p[0], p[1], p[2], (long long)ct_lbfgs_n_iter(opt),
                   (long long)ct_lbfgs_func_evals(opt));
    }
    if (st != CT_OK) fprintf(stderr, "error: %s\n", ct_ctx_last_error(ctx));
    int ok = st == CT_OK && fabs(p[0] - 2.5) < 1e-6 && fabs(p[1] - 1.3) < 1e-6 &&
             fabs(p[2] - 0.4) < 1e-6;
    printf(ok ? "recovered a = 2.5, b = 1.3, c = 0.4\n" : "the fit did not converge\n");
    ct_lbfgs_free(opt);
    ct_tensor_release(T);
    ct_tensor_release(Y);
    ct_tensor_release(P);
    ct_ctx_free(ctx);
    return ok ? 0 : 1;
}

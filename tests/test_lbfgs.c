/* L-BFGS against torch.optim.LBFGS (PyTorch 1.13, tests/data/lbfgs_ref.h from
 * scripts/gen_lbfgs_ref.py): Rosenbrock (2-, 4- and 6-dimensional), a least-squares problem and a
 * 1-D logistic regression in float64, with and without the strong-Wolfe line search, short
 * histories, max_iter / max_eval limits, three step() calls each: parameters within 1e-7 (relative
 * to the scale), the returned loss, and func_evals / n_iter equal. Also: a float32 problem
 * converges, the closure's errors and bad gradients end the step with a status, and the option and
 * parameter checks. */
#include "test_util.h"

#include "data/lbfgs_ref.h"

#include <string.h>

static ct_ctx *ctx;

typedef struct {
    int fn, n;
    ct_tensor *x, *g;
    int calls;
    int fail_at;  /* the closure fails at this call (0: never) */
    int bad_grad; /* hand back a gradient of the wrong shape */
} prob;

/* f and its gradient at x, in double on the host (torch's closure computes the same). */
static double eval(const prob *p, const double *x, double *g) {
    double f = 0;
    memset(g, 0, sizeof(double) * (size_t)p->n);
    if (p->fn == 0) {
        for (int i = 0; i + 1 < p->n; i++) {
            double a = x[i + 1] - x[i] * x[i], c = 1 - x[i];
            f += 100 * a * a + c * c;
            g[i] += -400 * a * x[i] - 2 * c;
            g[i + 1] += 200 * a;
        }
    } else if (p->fn == 2) { /* sum log1p(exp(-sign(b_i) A_i0 x)), as torch's autograd */
        for (int i = 0; i < 8; i++) {
            double y = lb_b[i] > 0   ? 1
                       : lb_b[i] < 0 ? -1
                                     : 0,
                   c = -y * lb_A[i * 5], e = exp(c * x[0]);
            f += log1p(e);
            g[0] += 1.0 / (1.0 + e) * e * c;
        }
    } else {
        double r[8];
        for (int i = 0; i < 8; i++) {
            r[i] = -lb_b[i];
            for (int j = 0; j < 5; j++)
                r[i] += lb_A[i * 5 + j] * x[j];
            f += 0.5 * r[i] * r[i];
        }
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 8; i++)
                g[j] += lb_A[i * 5 + j] * r[i];
    }
    return f;
}

static ct_status closure(void *user, double *loss, ct_tensor **grads) {
    prob *p = user;
    p->calls++;
    if (p->fail_at && p->calls == p->fail_at) return CT_ERR_STATE;
    double x[6], g[6];
    ct_status st = ct_tensor_to_host(p->x, x, sizeof(double) * (size_t)p->n);
    if (st != CT_OK) return st;
    *loss = eval(p, x, g);
    ct_tensor_release(p->g);
    p->g = NULL;
    const int64_t n = p->bad_grad ? p->n + 1 : p->n;
    double gb[7] = {0};
    memcpy(gb, g, sizeof(double) * (size_t)p->n);
    st = ct_tensor_from_host(ctx, gb, CT_FLOAT64, 1, &n, &p->g);
    grads[0] = p->g;
    return st;
}

TEST(matches_torch) {
    const int nc = (int)(sizeof lb_cases / sizeof lb_cases[0]);
    for (int c = 0; c < nc; c++) {
        const lb_case *r = &lb_cases[c];
        prob p = {.fn = r->fn, .n = r->n};
        const int64_t n = r->n;
        CHECK_OK(ct_tensor_from_host(ctx, r->x0, CT_FLOAT64, 1, &n, &p.x));
        ct_lbfgs_options o = ct_lbfgs_options_default();
        o.lr = r->lr;
        o.tolerance_grad = r->tol_grad;
        o.tolerance_change = r->tol_change;
        o.max_iter = r->max_iter;
        o.max_eval = r->max_eval;
        o.history_size = r->history_size;
        o.strong_wolfe = r->strong_wolfe;
        ct_lbfgs *opt = NULL;
        CHECK_OK(ct_lbfgs_create(ctx, &o, 1, &p.x, &opt));
        for (int s = 0; s < LB_STEPS; s++) {
            double loss = 0, x[6];
            CHECK_OK(ct_lbfgs_step(opt, closure, &p, &loss));
            CHECK_OK(ct_tensor_to_host(p.x, x, sizeof(double) * (size_t)r->n));
            CHECK_MSG(ct_t_close(loss, r->loss[s], 1e-7, 1e-12),
                      "case %d step %d: loss %.17g, torch %.17g", c, s, loss, r->loss[s]);
            for (int i = 0; i < r->n; i++)
                CHECK_MSG(fabs(x[i] - r->x[s][i]) <= 1e-7 * (1 + fabs(r->x[s][i])),
                          "case %d step %d x[%d] = %.17g, torch %.17g", c, s, i, x[i], r->x[s][i]);
            CHECK_MSG(ct_lbfgs_func_evals(opt) == r->evals[s] &&
                          ct_lbfgs_n_iter(opt) == r->iters[s],
                      "case %d step %d: func_evals %lld n_iter %lld, torch %lld %lld", c, s,
                      (long long)ct_lbfgs_func_evals(opt), (long long)ct_lbfgs_n_iter(opt),
                      r->evals[s], r->iters[s]);
            CHECK(p.calls == ct_lbfgs_func_evals(opt));
        }
        ct_lbfgs_free(opt);
        ct_tensor_release(p.x);
        ct_tensor_release(p.g);
    }
}

/* float32 parameters in two tensors and the closure through autograd: a least-squares fit
 * converges (the gradient's inf-norm falls below 1e-3). */
static ct_tensor *W[2], *X, *Y;
static ct_status ls_closure(void *user, double *loss, ct_tensor **grads) {
    (void)user;
    ct_tensor *p = NULL, *q = NULL, *l = NULL;
    ct_status st = ct_tensor_zero_grad(W[0]);
    if (st == CT_OK) st = ct_tensor_zero_grad(W[1]);
    if (st == CT_OK) st = ct_matmul(ctx, X, W[0], &p);
    if (st == CT_OK) st = ct_add(ctx, p, W[1], &q);
    if (st == CT_OK) st = ct_mse_loss(ctx, q, Y, CT_REDUCTION_MEAN, &l);
    if (st == CT_OK) st = ct_backward(ctx, l, NULL, false);
    float v = 0;
    if (st == CT_OK) st = ct_tensor_to_host(l, &v, sizeof v);
    *loss = v;
    grads[0] = ct_tensor_grad(W[0]);
    grads[1] = ct_tensor_grad(W[1]);
    ct_tensor_release(p);
    ct_tensor_release(q);
    ct_tensor_release(l);
    return st;
}

TEST(float32_autograd_converges) {
    float xv[40 * 3], yv[40];
    unsigned long long rng = 11;
    for (int i = 0; i < 40; i++) {
        for (int j = 0; j < 3; j++)
            xv[i * 3 + j] = (float)(2 * ct_t_uniform(&rng) - 1);
        yv[i] = 1.5f * xv[i * 3] - 2 * xv[i * 3 + 1] + 0.5f * xv[i * 3 + 2] + 0.25f;
    }
    const int64_t xs[2] = {40, 3}, ys[1] = {40}, ws[1] = {3}, one = 1;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 2, xs, &X));
    CHECK_OK(ct_tensor_from_host(ctx, yv, CT_FLOAT32, 1, ys, &Y));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, ws, &W[0]));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &one, &W[1]));
    CHECK_OK(ct_tensor_set_requires_grad(W[0], true));
    CHECK_OK(ct_tensor_set_requires_grad(W[1], true));
    ct_lbfgs_options o = ct_lbfgs_options_default();
    o.strong_wolfe = true;
    ct_lbfgs *opt = NULL;
    CHECK_OK(ct_lbfgs_create(ctx, &o, 2, W, &opt));
    double first = 0, last = 0;
    CHECK_OK(ct_lbfgs_step(opt, ls_closure, NULL, &first));
    CHECK_OK(ct_lbfgs_step(opt, ls_closure, NULL, &last));
    float w[3], bb;
    CHECK_OK(ct_tensor_to_host(W[0], w, sizeof w));
    CHECK_OK(ct_tensor_to_host(W[1], &bb, sizeof bb));
    CHECK_MSG(fabs(w[0] - 1.5) < 1e-3 && fabs(w[1] + 2) < 1e-3 && fabs(w[2] - 0.5) < 1e-3 &&
                  fabs(bb - 0.25) < 1e-3,
              "w = %g %g %g, b = %g (loss %g -> %g)", (double)w[0], (double)w[1], (double)w[2],
              (double)bb, first, last);
    CHECK(ct_tensor_requires_grad(W[0]) && ct_tensor_is_leaf(W[0])); /* updated under no_grad */
    ct_lbfgs_free(opt);
    ct_tensor *all[] = {W[0], W[1], X, Y};
    for (int i = 0; i < 4; i++)
        ct_tensor_release(all[i]);
}

TEST(errors) {
    const int64_t n = 2;
    double x0[2] = {-1.2, 1};
    prob p = {.fn = 0, .n = 2};
    CHECK_OK(ct_tensor_from_host(ctx, x0, CT_FLOAT64, 1, &n, &p.x));
    ct_lbfgs_options o = ct_lbfgs_options_default();
    ct_lbfgs *opt = NULL;
    CHECK_OK(ct_lbfgs_create(ctx, &o, 1, &p.x, &opt));
    p.fail_at = 3; /* the closure's status ends the step */
    CHECK_ST(ct_lbfgs_step(opt, closure, &p, NULL), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "closure") != NULL);
    p.fail_at = 0;
    p.bad_grad = 1;
    CHECK_ST(ct_lbfgs_step(opt, closure, &p, NULL), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "grads[0]") != NULL);
    CHECK_ST(ct_lbfgs_step(opt, NULL, &p, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lbfgs_step(NULL, closure, &p, NULL), CT_ERR_INVALID_ARG);
    ct_lbfgs_free(opt);
    /* options and parameters */
    ct_lbfgs_options b = o;
    b.lr = -1;
    CHECK_ST(ct_lbfgs_create(ctx, &b, 1, &p.x, &opt), CT_ERR_INVALID_ARG);
    b = o;
    b.history_size = 0;
    CHECK_ST(ct_lbfgs_create(ctx, &b, 1, &p.x, &opt), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "history_size 0") != NULL);
    b = o;
    b.size = 3;
    CHECK_ST(ct_lbfgs_create(ctx, &b, 1, &p.x, &opt), CT_ERR_INVALID_ARG);
    ct_tensor *i32 = NULL, *f32 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, &n, &i32));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &f32));
    CHECK_ST(ct_lbfgs_create(ctx, &o, 1, &i32, &opt), CT_ERR_DTYPE);
    ct_tensor *mixed[2] = {p.x, f32}, *twice[2] = {p.x, p.x};
    CHECK_ST(ct_lbfgs_create(ctx, &o, 2, mixed, &opt), CT_ERR_DTYPE);
    CHECK_ST(ct_lbfgs_create(ctx, &o, 2, twice, &opt), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lbfgs_create(ctx, &o, 0, &p.x, &opt), CT_ERR_INVALID_ARG);
    CHECK(opt == NULL);
    CHECK(ct_lbfgs_func_evals(NULL) == -1 && ct_lbfgs_n_iter(NULL) == -1);
    ct_lbfgs_free(NULL);
    ct_tensor_release(i32);
    ct_tensor_release(f32);
    ct_tensor_release(p.x);
    ct_tensor_release(p.g);
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    RUN(matches_torch);
    RUN(float32_autograd_converges);
    RUN(errors);
    ct_ctx_free(ctx);
    return ct_test_end();
}

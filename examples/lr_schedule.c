/* Learning-rate schedules and gradient clipping on a least-squares fit (autograd gradients):
 *  1. SGD with momentum under OneCycleLR (the rate and the momentum follow the 1cycle policy),
 *     clip_grad_norm_ before every step;
 *  2. RAdam under ReduceLROnPlateau, stepped on the loss;
 *  3. NAdam with a linear warm-up, then cosine annealing (SequentialLR over LinearLR and
 *     CosineAnnealingLR), then CosineAnnealingWarmRestarts stepped at fractional epochs, and
 *     clip_grad_value_;
 *  4. Adam under CyclicLR (triangular2), beta1 cycled opposite to the rate;
 *  5. SGD under ChainedScheduler(ConstantLR, ExponentialLR);
 *  6. stochastic weight averaging: CosineAnnealingLR, then SWALR and the weights' running mean.
 * Each run must bring the loss below 1e-3 of its start; the program fails otherwise. */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

#define N 128
#define D 6
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != CT_OK) {                                                                     \
            fprintf(stderr, "%s: %s\n", #call, ct_ctx_last_error(ctx));                            \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static ct_ctx *ctx;
static ct_tensor *X, *Y;

/* loss = mean((X w - y)^2); w's .grad gets its gradient (zeroed first). */
static int loss_and_grad(ct_tensor *w, double *loss) {
    ct_tensor *p = NULL, *l = NULL;
    TRY(ct_tensor_zero_grad(w));
    TRY(ct_matmul(ctx, X, w, &p));
    TRY(ct_mse_loss(ctx, p, Y, CT_REDUCTION_MEAN, &l));
    TRY(ct_backward(ctx, l, NULL, false));
    float v = 0;
    TRY(ct_tensor_to_host(l, &v, sizeof v));
    *loss = v;
    ct_tensor_release(p);
    ct_tensor_release(l);
    return 0;
}

/* loss = mean((X w - y)^2) only (for weights outside autograd). */
static int loss_of(const ct_tensor *w, double *loss) {
    ct_tensor *p = NULL, *l = NULL;
    TRY(ct_matmul(ctx, X, w, &p));
    TRY(ct_mse_loss(ctx, p, Y, CT_REDUCTION_MEAN, &l));
    TRY(ct_tensor_item(l, loss));
    ct_tensor_release(p);
    ct_tensor_release(l);
    return 0;
}

/* One step: the loss and its gradient, then the optimizer. */
static int train_step(ct_tensor *w, ct_optim *opt, double *loss) {
    if (loss_and_grad(w, loss)) return 1;
    ct_tensor *g = ct_tensor_grad(w);
    TRY(ct_optim_step(opt, &g));
    return 0;
}

/* A fresh weight vector (zeros, requires grad) and an optimizer of `kind` over it. */
static int setup(ct_optim_kind kind, double lr, double momentum, ct_tensor **w, ct_optim **opt) {
    const int64_t d = D;
    TRY(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &d, w));
    TRY(ct_tensor_set_requires_grad(*w, true));
    ct_optim_options o = ct_optim_options_default(kind);
    o.lr = lr;
    o.momentum = momentum;
    TRY(ct_optim_create(ctx, &o, 1, w, opt));
    return 0;
}

static double lr_of(ct_optim *opt) {
    double v = NAN;
    ct_tensor_to_host(ct_optim_lr(opt), &v, sizeof v);
    return v;
}

static int check(const char *what, double first, double last) {
    printf("%s: loss %.4g -> %.3g\n", what, first, last);
    if (!(last < 1e-3 * first)) {
        fprintf(stderr, "%s did not converge\n", what);
        return 1;
    }
    return 0;
}

/* 1: SGD + OneCycleLR + clip_grad_norm_ */
static int one_cycle(void) {
    ct_tensor *w = NULL;
    ct_optim *opt = NULL;
    if (setup(CT_OPTIM_SGD, 0.01, 0.9, &w, &opt)) return 1;
    ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE);
    so.max_lr = 0.2;
    so.total_steps = 200;
    ct_lr_scheduler *s = NULL;
    TRY(ct_lr_scheduler_create(opt, &so, &s));
    double first = 0, loss = 0;
    for (int it = 0; it < 200; it++) {
        if (loss_and_grad(w, &loss)) return 1;
        if (it == 0) first = loss;
        ct_tensor *g = ct_tensor_grad(w), *total = NULL;
        TRY(ct_clip_grad_norm_(ctx, 1, &g, 1.0, 2.0, false, &total));
        TRY(ct_optim_step(opt, &g));
        if (it % 50 == 0) {
            float tn = 0;
            TRY(ct_tensor_to_host(total, &tn, sizeof tn));
            printf("  onecycle step %3lld  lr %.5f  loss %.5g  grad norm %.4g\n",
                   (long long)ct_lr_scheduler_last_epoch(s), ct_lr_scheduler_last_lr(s), loss,
                   (double)tn);
        }
        ct_tensor_release(total);
        if (it + 1 < 200) TRY(ct_lr_scheduler_step(s));
    }
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(w);
    return check("SGD + OneCycleLR", first, loss);
}

/* 2: RAdam + ReduceLROnPlateau */
static int plateau(void) {
    ct_tensor *w = NULL;
    ct_optim *opt = NULL;
    if (setup(CT_OPTIM_RADAM, 0.2, 0, &w, &opt)) return 1;
    ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    so.patience = 3;
    so.factor = 0.5;
    ct_lr_scheduler *s = NULL;
    TRY(ct_lr_scheduler_create(opt, &so, &s));
    double first = 0, loss = 0, lr0 = lr_of(opt);
    for (int it = 0; it < 400; it++) {
        if (train_step(w, opt, &loss)) return 1;
        if (it == 0) first = loss;
        TRY(ct_lr_scheduler_step_metric(s, loss));
    }
    printf("  plateau: lr %.4g -> %.4g\n", lr0, ct_lr_scheduler_last_lr(s));
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(w);
    return check("RAdam + ReduceLROnPlateau", first, loss);
}

/* 4: Adam + CyclicLR (triangular2: the triangle's height halves each cycle; beta1 cycles
 * opposite to the rate) */
static int cyclic(void) {
    ct_tensor *w = NULL;
    ct_optim *opt = NULL;
    if (setup(CT_OPTIM_ADAM, 0.01, 0, &w, &opt)) return 1;
    ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    so.base_lr = 0.005;
    so.max_lr = 0.1;
    so.step_size_up = 50;
    so.cyclic_mode = CT_CYCLIC_TRIANGULAR2;
    ct_lr_scheduler *s = NULL;
    TRY(ct_lr_scheduler_create(opt, &so, &s));
    double first = 0, loss = 0;
    for (int it = 0; it < 400; it++) {
        if (train_step(w, opt, &loss)) return 1;
        if (it == 0) first = loss;
        TRY(ct_lr_scheduler_step(s));
        if (it % 50 == 49)
            printf("  cyclic step %3d  lr %.5f  loss %.3g\n", it + 1, lr_of(opt), loss);
    }
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(w);
    return check("Adam + CyclicLR", first, loss);
}

/* 5: SGD + ChainedScheduler(ConstantLR, ExponentialLR): a low rate for 10 steps, decaying all
 * along (both factors apply at once) */
static int chained(void) {
    ct_tensor *w = NULL;
    ct_optim *opt = NULL;
    if (setup(CT_OPTIM_SGD, 0.2, 0.9, &w, &opt)) return 1;
    ct_lr_scheduler_options a = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    a.factor = 0.1;
    a.total_iters = 10;
    ct_lr_scheduler_options b = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
    b.gamma = 0.99;
    ct_lr_scheduler *sc[2] = {NULL, NULL}, *chain = NULL;
    TRY(ct_lr_scheduler_create(opt, &a, &sc[0]));
    TRY(ct_lr_scheduler_create(opt, &b, &sc[1]));
    TRY(ct_lr_scheduler_create_chained(opt, 2, sc, &chain));
    double first = 0, loss = 0;
    for (int it = 0; it < 300; it++) {
        if (train_step(w, opt, &loss)) return 1;
        if (it == 0) first = loss;
        TRY(ct_lr_scheduler_step(chain));
        if (it == 9 || it == 10 || it == 299)
            printf("  chained step %3d  lr %.5f\n", it + 1, ct_lr_scheduler_last_lr(chain));
    }
    ct_lr_scheduler_free(chain); /* before the schedulers it steps */
    ct_lr_scheduler_free(sc[0]);
    ct_lr_scheduler_free(sc[1]);
    ct_optim_free(opt);
    ct_tensor_release(w);
    return check("SGD + ChainedScheduler(ConstantLR, ExponentialLR)", first, loss);
}

/* 6: stochastic weight averaging (torch's recipe): SGD under CosineAnnealingLR, then from step
 * 150 SWALR anneals to swa_lr and the running mean of the weights is taken each step */
static int swa(void) {
    ct_tensor *w = NULL, *avg = NULL;
    ct_optim *opt = NULL;
    if (setup(CT_OPTIM_SGD, 0.05, 0.9, &w, &opt)) return 1;
    ct_lr_scheduler_options co = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    co.T_max = 300;
    ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_SWA);
    so.swa_lr = 0.01;
    so.anneal_epochs = 20;
    ct_lr_scheduler *cos = NULL, *swalr = NULL;
    TRY(ct_lr_scheduler_create(opt, &co, &cos));
    TRY(ct_lr_scheduler_create(opt, &so, &swalr));
    TRY(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){D}, &avg));
    int64_t n_averaged = 0;
    double first = 0, loss = 0;
    for (int it = 0; it < 300; it++) {
        if (train_step(w, opt, &loss)) return 1;
        if (it == 0) first = loss;
        if (it >= 150) {
            const ct_tensor *cur[1] = {w};
            TRY(ct_swa_update_parameters(ctx, 1, &avg, cur, CT_SWA_MEAN, 0, &n_averaged));
            TRY(ct_lr_scheduler_step(swalr));
        } else {
            TRY(ct_lr_scheduler_step(cos));
        }
    }
    double avg_loss = 0;
    if (loss_of(avg, &avg_loss)) return 1;
    printf("  swa: %lld weights averaged, lr %.4f, loss %.3g, averaged weights' loss %.3g\n",
           (long long)n_averaged, lr_of(opt), loss, avg_loss);
    ct_lr_scheduler_free(cos);
    ct_lr_scheduler_free(swalr);
    ct_optim_free(opt);
    ct_tensor_release(w);
    ct_tensor_release(avg);
    return check("SGD + SWALR + averaged weights", first, avg_loss);
}

/* 3: NAdam + SequentialLR(LinearLR warm-up, CosineAnnealingLR), then warm restarts */
static int warmup_cosine(void) {
    ct_tensor *w = NULL;
    ct_optim *opt = NULL;
    if (setup(CT_OPTIM_NADAM, 0.1, 0, &w, &opt)) return 1;
    ct_lr_scheduler_options a = ct_lr_scheduler_options_default(CT_LR_LINEAR);
    a.start_factor = 0.1;
    a.total_iters = 20;
    ct_lr_scheduler_options c = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    c.T_max = 280;
    ct_lr_scheduler *parts[2] = {NULL, NULL}, *seq = NULL;
    TRY(ct_lr_scheduler_create(opt, &a, &parts[0]));
    TRY(ct_lr_scheduler_create(opt, &c, &parts[1]));
    const int64_t milestone = 20; /* warm up for 20 steps, then the cosine */
    TRY(ct_lr_scheduler_create_sequential(opt, 2, parts, &milestone, &seq));
    double first = 0, loss = 0;
    for (int it = 0; it < 300; it++) {
        if (train_step(w, opt, &loss)) return 1;
        if (it == 0) first = loss;
        TRY(ct_lr_scheduler_step(seq));
        if (it % 100 == 0) printf("  warm-up + cosine step %3d  lr %.5f\n", it, lr_of(opt));
    }
    ct_lr_scheduler_free(seq); /* before the schedulers it steps */
    ct_lr_scheduler_free(parts[0]);
    ct_lr_scheduler_free(parts[1]);
    if (check("NAdam + SequentialLR(LinearLR, CosineAnnealingLR)", first, loss)) return 1;
    /* SGDR at fractional epochs (epoch + batch / batches), with the grads clipped by value */
    ct_lr_scheduler_options r = ct_lr_scheduler_options_default(CT_LR_COSINE_WARM_RESTARTS);
    r.T_0 = 2;
    r.T_mult = 2;
    ct_lr_scheduler *sr = NULL;
    TRY(ct_lr_scheduler_create(opt, &r, &sr));
    for (int epoch = 0; epoch < 6; epoch++)
        for (int b = 0; b < 4; b++) {
            if (loss_and_grad(w, &loss)) return 1;
            ct_tensor *g = ct_tensor_grad(w);
            TRY(ct_clip_grad_value_(ctx, 1, &g, 0.5));
            TRY(ct_optim_step(opt, &g));
            TRY(ct_lr_scheduler_step_epoch(sr, epoch + b / 4.0));
        }
    printf("  warm restarts: epoch %lld, lr %.5f, loss %.3g\n",
           (long long)ct_lr_scheduler_last_epoch(sr), ct_lr_scheduler_last_lr(sr), loss);
    ct_lr_scheduler_free(sr);
    ct_optim_free(opt);
    ct_tensor_release(w);
    return 0;
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    float xv[N * D], yv[N], wt[D] = {1.5f, -2.0f, 0.25f, 3.0f, -0.75f, 0.5f};
    unsigned s = 1;
    for (int i = 0; i < N * D; i++) {
        s = s * 1103515245u + 12345u;
        xv[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    for (int i = 0; i < N; i++) {
        yv[i] = 0;
        for (int j = 0; j < D; j++)
            yv[i] += xv[i * D + j] * wt[j];
    }
    const int64_t xs[2] = {N, D}, ys[1] = {N};
    TRY(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 2, xs, &X));
    TRY(ct_tensor_from_host(ctx, yv, CT_FLOAT32, 1, ys, &Y));
    int bad = one_cycle() || plateau() || warmup_cosine() || cyclic() || chained() || swa();
    ct_tensor_release(X);
    ct_tensor_release(Y);
    ct_ctx_free(ctx);
    return bad;
}

/* Learning-rate schedulers and gradient clipping against PyTorch 1.13
 * (tests/data/lr_scheduler_ref.h, from scripts/gen_lr_scheduler_ref.py): every learning rate
 * (and OneCycleLR's momentum / beta1) after the constructor and each of 40 steps equals torch's
 * bit for bit, in the scheduler and in the optimizer's schedule; a captured FUSED step replayed
 * after scheduler steps uses the new rate; clip_grad_norm_ / clip_grad_value_ against torch and
 * identities; errors. */
#include "test_util.h"

#include "data/lr_scheduler_ref.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static ct_ctx *ctx;

static int same_bits(double a, double b) {
    uint64_t x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x == y;
}

static double hyper_lr(ct_optim *opt) {
    double v = NAN;
    CHECK_OK(ct_tensor_to_host(ct_optim_lr(opt), &v, sizeof v));
    return v;
}

/* An optimizer over one 3-element f32 parameter (released with it). */
static ct_optim *make_opt(ct_optim_kind kind, double lr, double momentum, ct_tensor **p) {
    const int64_t n = 3;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, p));
    ct_optim_options o = ct_optim_options_default(kind);
    o.lr = lr;
    o.momentum = momentum;
    ct_optim *opt = NULL;
    CHECK_OK(ct_optim_create(ctx, &o, 1, p, &opt));
    return opt;
}

static double lam_pow(int64_t e, void *u) {
    (void)u;
    return pow(0.95, (double)e);
}
static double lam_const(int64_t e, void *u) {
    (void)e;
    (void)u;
    return 0.9;
}

/* Run n steps (metrics for ReduceLROnPlateau) comparing with ref[0..n] bit for bit; mom_ref (or
 * NULL) is the momentum / beta1 the optimizer's schedule must hold (read from a saved state). */
static void check_run(const char *name, int n_sched, ct_lr_scheduler_options *opts, ct_optim *opt,
                      const double *ref, const double *metrics) {
    ct_lr_scheduler *s[2] = {NULL, NULL};
    for (int k = 0; k < n_sched; k++) {
        ct_status st = ct_lr_scheduler_create(opt, &opts[k], &s[k]);
        CHECK_MSG(st == CT_OK, "%s: create: %s", name, ct_ctx_last_error(ctx));
        if (st != CT_OK) return;
    }
    int bad = 0;
    for (int e = 0; e <= LR_REF_EPOCHS && !bad; e++) {
        if (e > 0)
            for (int k = 0; k < n_sched; k++) {
                ct_status st = metrics ? ct_lr_scheduler_step_metric(s[k], metrics[e - 1])
                                       : ct_lr_scheduler_step(s[k]);
                CHECK_MSG(st == CT_OK, "%s: step %d: %s", name, e, ct_ctx_last_error(ctx));
            }
        double got = hyper_lr(opt), last = ct_lr_scheduler_last_lr(s[n_sched - 1]);
        if (!same_bits(got, ref[e]) || !same_bits(last, ref[e])) {
            CHECK_MSG(0, "%s: epoch %d: lr %.17g (last_lr %.17g), torch %.17g", name, e, got, last,
                      ref[e]);
            bad = 1;
        }
        if (!metrics) CHECK(ct_lr_scheduler_last_epoch(s[0]) == e);
    }
    for (int k = 0; k < n_sched; k++)
        ct_lr_scheduler_free(s[k]);
}

static void one_case(const char *name, ct_lr_scheduler_options o, const double *ref) {
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    check_run(name, 1, &o, opt, ref, NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

TEST(schedulers_match_torch) {
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_LAMBDA);
    o.lr_lambda = lam_pow;
    one_case("LambdaLR", o, lr_ref_lambda);
    o = ct_lr_scheduler_options_default(CT_LR_MULTIPLICATIVE);
    o.lr_lambda = lam_const;
    one_case("MultiplicativeLR", o, lr_ref_multiplicative);
    o = ct_lr_scheduler_options_default(CT_LR_STEP);
    o.step_size = 7;
    o.gamma = 0.5;
    one_case("StepLR", o, lr_ref_step);
    const int64_t ms[4] = {3, 8, 8, 20};
    o = ct_lr_scheduler_options_default(CT_LR_MULTISTEP);
    o.milestones = ms;
    o.n_milestones = 4;
    o.gamma = 0.3;
    one_case("MultiStepLR", o, lr_ref_multistep);
    o = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    o.factor = 0.25;
    o.total_iters = 6;
    one_case("ConstantLR", o, lr_ref_constant);
    one_case("ConstantLR default", ct_lr_scheduler_options_default(CT_LR_CONSTANT),
             lr_ref_constant_default);
    o = ct_lr_scheduler_options_default(CT_LR_LINEAR);
    o.start_factor = 0.1;
    o.end_factor = 0.9;
    o.total_iters = 10;
    one_case("LinearLR", o, lr_ref_linear);
    one_case("LinearLR default", ct_lr_scheduler_options_default(CT_LR_LINEAR),
             lr_ref_linear_default);
    o = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
    o.gamma = 0.93;
    one_case("ExponentialLR", o, lr_ref_exponential);
    o = ct_lr_scheduler_options_default(CT_LR_POLYNOMIAL);
    o.total_iters = 12;
    o.power = 2.0;
    one_case("PolynomialLR", o, lr_ref_polynomial);
    o = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    o.T_max = 7;
    o.eta_min = 0.001;
    one_case("CosineAnnealingLR", o, lr_ref_cosine);
    o.T_max = 10;
    o.eta_min = 0;
    one_case("CosineAnnealingLR 10", o, lr_ref_cosine10);
    o = ct_lr_scheduler_options_default(CT_LR_COSINE_WARM_RESTARTS);
    o.T_0 = 5;
    o.T_mult = 2;
    o.eta_min = 0.01;
    one_case("CosineAnnealingWarmRestarts", o, lr_ref_warm);
    o = ct_lr_scheduler_options_default(CT_LR_COSINE_WARM_RESTARTS);
    o.T_0 = 6;
    one_case("CosineAnnealingWarmRestarts 1", o, lr_ref_warm1);
}

/* OneCycleLR moves the momentum (SGD) or beta1 (Adam) too: read them back from a saved state
 * after the run, and compare each step's value through a second run's state files. */
static double saved_hyper(ct_optim *opt, const char *key) {
    char path[] = "/tmp/ct_lr_stateXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(ct_optim_save_state(opt, path));
    ct_safetensors *f = NULL;
    CHECK_OK(ct_safetensors_load(ctx, path, &f));
    const char *v = ct_safetensors_metadata(f, key);
    double d = v ? strtod(v, NULL) : NAN;
    ct_safetensors_free(f);
    unlink(path);
    return d;
}

static void one_cycle(const char *name, ct_optim_kind kind, ct_lr_scheduler_options o,
                      const double *ref, const double *mref, const char *key) {
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(kind, 0.5, kind == CT_OPTIM_SGD ? 0.9 : 0, &p);
    ct_lr_scheduler *s = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    int bad = 0;
    for (int e = 0; e <= LR_REF_EPOCHS && !bad; e++) {
        if (e > 0) CHECK_OK(ct_lr_scheduler_step(s));
        double lr = hyper_lr(opt), m = saved_hyper(opt, key);
        if (!same_bits(lr, ref[e]) || !same_bits(m, mref[e])) {
            CHECK_MSG(0, "%s: epoch %d: lr %.17g torch %.17g, %s %.17g torch %.17g", name, e, lr,
                      ref[e], key, m, mref[e]);
            bad = 1;
        }
    }
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

TEST(one_cycle_matches_torch) {
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE);
    o.max_lr = 0.1;
    o.total_steps = LR_REF_EPOCHS;
    one_cycle("OneCycleLR", CT_OPTIM_SGD, o, lr_ref_onecycle, lr_ref_onecycle_mom, "momentum");
    o.max_lr = 0.2;
    o.total_steps = LR_REF_EPOCHS + 3;
    o.pct_start = 0.25;
    o.anneal_linear = true;
    o.three_phase = true;
    o.div_factor = 10;
    o.final_div_factor = 100;
    one_cycle("OneCycleLR three-phase", CT_OPTIM_ADAM, o, lr_ref_onecycle3, lr_ref_onecycle3_mom,
              "beta1");
    /* past total_steps: torch's error, nothing changes */
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.5, 0.9, &p);
    o = ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE);
    o.max_lr = 0.1;
    o.total_steps = 3;
    ct_lr_scheduler *s = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    for (int i = 0; i < 3; i++)
        CHECK_OK(ct_lr_scheduler_step(s));
    double before = hyper_lr(opt);
    CHECK_ST(ct_lr_scheduler_step(s), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "Tried to step 5 times") != NULL);
    CHECK(same_bits(hyper_lr(opt), before) && ct_lr_scheduler_last_epoch(s) == 3);
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

static double scale_inv(double x, void *u) {
    (void)u;
    return 1.0 / (1.0 + x * 0.1);
}
static double scale_half(double x, void *u) {
    (void)u;
    return pow(0.5, x);
}

TEST(cyclic_matches_torch) {
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    CHECK(o.gamma == 1.0 && o.base_momentum == 0.8 && o.max_momentum == 0.9 &&
          o.step_size_up == 2000 && isnan(o.step_size_down) && o.cycle_momentum);
    o.base_lr = 0.01;
    o.max_lr = 0.1;
    o.step_size_up = 4;
    one_cycle("CyclicLR", CT_OPTIM_SGD, o, lr_ref_cyclic, lr_ref_cyclic_mom, "momentum");
    o.base_lr = 0.001;
    o.step_size_up = 3;
    o.step_size_down = 5;
    o.cyclic_mode = CT_CYCLIC_TRIANGULAR2;
    o.base_momentum = 0.7;
    o.max_momentum = 0.95;
    one_cycle("CyclicLR triangular2", CT_OPTIM_SGD, o, lr_ref_cyclic2, lr_ref_cyclic2_mom,
              "momentum");
    o = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    o.base_lr = 0.01;
    o.max_lr = 0.2;
    o.step_size_up = 2.5;
    o.step_size_down = 3;
    o.scale_fn = scale_inv;
    o.scale_mode_iterations = true;
    one_cycle("CyclicLR scale_fn (iterations)", CT_OPTIM_SGD, o, lr_ref_cyclic_fn_it,
              lr_ref_cyclic_fn_it_mom, "momentum");
    o = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    o.base_lr = 0.01;
    o.max_lr = 0.2;
    o.step_size_up = 3;
    o.scale_fn = scale_half;
    one_cycle("CyclicLR scale_fn (cycle)", CT_OPTIM_SGD, o, lr_ref_cyclic_fn_cy,
              lr_ref_cyclic_fn_cy_mom, "momentum");
    /* without momentum cycling: exp_range on SGD, triangular on Adam */
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.5, 0.9, &p);
    o = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    o.base_lr = 0.02;
    o.max_lr = 0.3;
    o.step_size_up = 5;
    o.cyclic_mode = CT_CYCLIC_EXP_RANGE;
    o.gamma = 0.97;
    o.cycle_momentum = false;
    check_run("CyclicLR exp_range", 1, &o, opt, lr_ref_cyclic_exp, NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
    opt = make_opt(CT_OPTIM_ADAM, 0.5, 0, &p);
    o = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    o.base_lr = 0.001;
    o.max_lr = 0.01;
    o.step_size_up = 6;
    o.cycle_momentum = false;
    check_run("CyclicLR Adam", 1, &o, opt, lr_ref_cyclic_adam, NULL);
    /* errors: nothing changes */
    const double lr0 = hyper_lr(opt);
    ct_lr_scheduler *s = NULL;
    o.step_size_up = 0;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &s), CT_ERR_INVALID_ARG);
    o.step_size_up = 4;
    o.cyclic_mode = (ct_cyclic_mode)7;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &s), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "mode is invalid") != NULL);
    o.cyclic_mode = CT_CYCLIC_TRIANGULAR;
    o.max_lr = NAN;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &s), CT_ERR_INVALID_ARG);
    CHECK(s == NULL && same_bits(hyper_lr(opt), lr0));
    ct_optim_free(opt);
    ct_tensor_release(p);
    opt = make_opt(CT_OPTIM_ADAGRAD, 0.5, 0, &p); /* nothing to cycle */
    o = ct_lr_scheduler_options_default(CT_LR_CYCLIC);
    o.base_lr = 0.001;
    o.max_lr = 0.01;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &s), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "must support momentum") != NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

/* SequentialLR (milestones ms) or, with ms NULL, ChainedScheduler over n schedulers of the given
 * options, on an SGD optimizer of lr lr0: torch's rates bit for bit, and last_epoch counting. */
static void composite_case(const char *name, double lr0, int n, ct_lr_scheduler_options *o,
                           const int64_t *ms, const double *ref) {
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, lr0, 0, &p);
    ct_lr_scheduler *c[3] = {NULL, NULL, NULL}, *s = NULL;
    for (int i = 0; i < n; i++)
        CHECK_OK(ct_lr_scheduler_create(opt, &o[i], &c[i]));
    CHECK_OK(ms ? ct_lr_scheduler_create_sequential(opt, n, c, ms, &s)
                : ct_lr_scheduler_create_chained(opt, n, c, &s));
    int bad = 0;
    for (int e = 0; e <= LR_REF_EPOCHS && !bad; e++) {
        if (e > 0) CHECK_OK(ct_lr_scheduler_step(s));
        if (!same_bits(hyper_lr(opt), ref[e]) || !same_bits(ct_lr_scheduler_last_lr(s), ref[e])) {
            CHECK_MSG(0, "%s: epoch %d: lr %.17g torch %.17g", name, e, hyper_lr(opt), ref[e]);
            bad = 1;
        }
        CHECK(ct_lr_scheduler_last_epoch(s) == e);
    }
    ct_lr_scheduler_free(s);
    for (int i = 0; i < n; i++)
        ct_lr_scheduler_free(c[i]);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

TEST(chained_scheduler_matches_torch) {
    ct_lr_scheduler_options o[3];
    o[0] = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    o[0].factor = 0.1;
    o[0].total_iters = 2;
    o[1] = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
    o[1].gamma = 0.9;
    composite_case("ChainedScheduler(ConstantLR, ExponentialLR)", 1.0, 2, o, NULL, lr_ref_chainedS);
    o[0] = ct_lr_scheduler_options_default(CT_LR_LINEAR);
    o[0].start_factor = 0.5;
    o[0].total_iters = 4;
    o[1] = ct_lr_scheduler_options_default(CT_LR_STEP);
    o[1].step_size = 3;
    o[1].gamma = 0.5;
    o[2] = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    o[2].T_max = 10;
    composite_case("ChainedScheduler(LinearLR, StepLR, CosineAnnealingLR)", 0.1, 3, o, NULL,
                   lr_ref_chainedS3);
    /* resumed from torch's checkpoint after 7 steps: the next 10 rates */
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, lr_resume_chain, sizeof lr_resume_chain, &a));
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.7, 0.5, &p);
    o[0] = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    o[0].factor = 0.2; /* the state's factor 0.5 replaces it */
    o[1] = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
    ct_lr_scheduler *c[2], *s = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &o[0], &c[0]));
    CHECK_OK(ct_lr_scheduler_create(opt, &o[1], &c[1]));
    CHECK_OK(ct_lr_scheduler_create_chained(opt, 2, c, &s));
    CHECK_OK(ct_optim_load_torch_state(opt, a, "optimizer"));
    ct_status st = ct_lr_scheduler_load_torch_state(s, a, "scheduler");
    CHECK_MSG(st == CT_OK, "%s", ct_ctx_last_error(ctx));
    CHECK(ct_lr_scheduler_last_epoch(s) == 7);
    for (int i = 0; i < 10; i++) {
        CHECK_OK(ct_lr_scheduler_step(s));
        CHECK_MSG(same_bits(hyper_lr(opt), lr_resume_chain_next[i]),
                  "resumed ChainedScheduler step %d: %.17g torch %.17g", i + 8, hyper_lr(opt),
                  lr_resume_chain_next[i]);
    }
    /* a SequentialLR's state is not a ChainedScheduler's; nothing changes */
    ct_archive *b = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, lr_resume_seq, sizeof lr_resume_seq, &b));
    CHECK_ST(ct_lr_scheduler_load_torch_state(s, b, "scheduler"), CT_ERR_INVALID_ARG);
    CHECK(ct_lr_scheduler_last_epoch(s) == 17);
    /* errors: a plateau, the same scheduler twice, another optimizer, NULLs; a chain inside a
     * SequentialLR */
    ct_lr_scheduler *pl = NULL, *bad = NULL;
    ct_lr_scheduler_options po = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    CHECK_OK(ct_lr_scheduler_create(opt, &po, &pl));
    ct_lr_scheduler *withp[2] = {c[0], pl}, *twice[2] = {c[0], c[0]}, *nested[2] = {c[0], s};
    CHECK_ST(ct_lr_scheduler_create_chained(opt, 2, withp, &bad), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create_chained(opt, 2, twice, &bad), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create_chained(opt, 0, c, &bad), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create_chained(opt, 2, c, NULL), CT_ERR_INVALID_ARG);
    const int64_t m3[1] = {3};
    CHECK_ST(ct_lr_scheduler_create_sequential(opt, 2, nested, m3, &bad), CT_ERR_INVALID_ARG);
    ct_lr_scheduler_options co = ct_lr_scheduler_options_default(CT_LR_CHAINED);
    CHECK_ST(ct_lr_scheduler_create(opt, &co, &bad), CT_ERR_INVALID_ARG);
    ct_tensor *p2 = NULL;
    ct_optim *opt2 = make_opt(CT_OPTIM_SGD, 0.1, 0, &p2);
    ct_lr_scheduler *other = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt2, &o[1], &other));
    ct_lr_scheduler *mixed[2] = {c[0], other};
    CHECK_ST(ct_lr_scheduler_create_chained(opt, 2, mixed, &bad), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "same optimizer") != NULL && bad == NULL);
    ct_lr_scheduler_free(other);
    ct_optim_free(opt2);
    ct_tensor_release(p2);
    ct_lr_scheduler_free(s);
    ct_lr_scheduler_free(c[0]);
    ct_lr_scheduler_free(c[1]);
    ct_lr_scheduler_free(pl);
    ct_optim_free(opt);
    ct_tensor_release(p);
    ct_archive_free(a);
    ct_archive_free(b);
}

TEST(swalr_and_averaged_model_match_torch) {
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_SWA);
    CHECK(o.anneal_epochs == 10 && !o.anneal_linear);
    o.swa_lr = 0.05;
    o.anneal_epochs = 5;
    check_run("SWALR", 1, &o, opt, lr_ref_swa, NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
    opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    o.swa_lr = 0.02;
    o.anneal_epochs = 0;
    o.anneal_linear = true;
    check_run("SWALR linear, at once", 1, &o, opt, lr_ref_swa_lin0, NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
    /* torch's recipe: CosineAnnealingLR until epoch 15, then SWALR (both made at the start) */
    opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    ct_lr_scheduler_options co = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    co.T_max = 30;
    o = ct_lr_scheduler_options_default(CT_LR_SWA);
    o.swa_lr = 0.01;
    o.anneal_epochs = 4;
    ct_lr_scheduler *cos = NULL, *swa = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &co, &cos));
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &swa));
    CHECK_MSG(same_bits(hyper_lr(opt), lr_ref_swa_recipe[0]), "recipe epoch 0");
    for (int e = 0; e < LR_REF_EPOCHS; e++) {
        CHECK_OK(ct_lr_scheduler_step(e >= 15 ? swa : cos));
        CHECK_MSG(same_bits(hyper_lr(opt), lr_ref_swa_recipe[e + 1]),
                  "recipe epoch %d: %.17g torch %.17g", e + 1, hyper_lr(opt),
                  lr_ref_swa_recipe[e + 1]);
    }
    ct_lr_scheduler_free(cos);
    ct_lr_scheduler_free(swa);
    o.anneal_epochs = -1;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &swa), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "anneal_epochs must be equal or greater than 0") != NULL);
    o.anneal_epochs = 3;
    o.swa_lr = NAN;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &swa), CT_ERR_INVALID_ARG);
    ct_optim_free(opt);
    ct_tensor_release(p);

    /* AveragedModel.update_parameters: torch's running mean, and the 2.x EMA, bit for bit */
    const float *ws[6] = {swa_w0, swa_w1, swa_w2, swa_w3, swa_w4, swa_w5},
                *bs[6] = {swa_b0, swa_b1, swa_b2, swa_b3, swa_b4, swa_b5};
    const int64_t sw[2] = {3, 5}, sb[1] = {3};
    for (int mode = 0; mode < 2; mode++) {
        ct_tensor *avg[2] = {NULL, NULL}, *cur[2] = {NULL, NULL};
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, sw, &avg[0]));
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, sb, &avg[1]));
        int64_t na = 0;
        for (int k = 0; k < 6; k++) {
            CHECK_OK(ct_tensor_from_host(ctx, ws[k], CT_FLOAT32, 2, sw, &cur[0]));
            CHECK_OK(ct_tensor_from_host(ctx, bs[k], CT_FLOAT32, 1, sb, &cur[1]));
            CHECK_OK(ct_tensor_set_requires_grad(cur[0], true)); /* parameters: no graph */
            CHECK_OK(ct_swa_update_parameters(ctx, 2, avg, (const ct_tensor *const *)cur,
                                              mode ? CT_SWA_EMA : CT_SWA_MEAN, 0.9, &na));
            ct_tensor_release(cur[0]), ct_tensor_release(cur[1]);
        }
        CHECK(na == 6 && !ct_tensor_requires_grad(avg[0]));
        float w[15], b[3];
        CHECK_OK(ct_tensor_to_host(avg[0], w, sizeof w));
        CHECK_OK(ct_tensor_to_host(avg[1], b, sizeof b));
        const float *rw = mode ? swa_ema_w : swa_avg_w, *rb = mode ? swa_ema_b : swa_avg_b;
        for (int i = 0; i < 15; i++)
            CHECK_MSG(w[i] == rw[i], "mode %d w[%d]: %.9g torch %.9g", mode, i, (double)w[i],
                      (double)rw[i]);
        for (int i = 0; i < 3; i++)
            CHECK_MSG(b[i] == rb[i], "mode %d b[%d]: %.9g torch %.9g", mode, i, (double)b[i],
                      (double)rb[i]);
        /* errors: shapes, decay, NULL count */
        int64_t bad = 0;
        const ct_tensor *swapped[2] = {avg[1], avg[0]};
        CHECK_ST(ct_swa_update_parameters(ctx, 2, avg, swapped, CT_SWA_MEAN, 0, &bad),
                 CT_ERR_SHAPE);
        CHECK_ST(ct_swa_update_parameters(ctx, 2, avg, (const ct_tensor *const *)avg, CT_SWA_EMA,
                                          1.5, &bad),
                 CT_ERR_INVALID_ARG);
        CHECK_ST(ct_swa_update_parameters(ctx, 2, avg, (const ct_tensor *const *)avg, CT_SWA_EMA,
                                          0.5, NULL),
                 CT_ERR_INVALID_ARG);
        CHECK(bad == 0);
        ct_tensor_release(avg[0]), ct_tensor_release(avg[1]);
    }
}

TEST(plateau_matches_torch) {
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    o.patience = 2;
    o.cooldown = 1;
    o.min_lr = 1e-3;
    check_run("ReduceLROnPlateau", 1, &o, opt, lr_ref_plateau, lr_ref_plateau_metrics);
    ct_optim_free(opt);
    ct_tensor_release(p);
    opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    o = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    o.mode_max = true;
    o.threshold_abs = true;
    o.threshold = 0.05;
    o.factor = 0.5;
    o.patience = 0;
    check_run("ReduceLROnPlateau max abs", 1, &o, opt, lr_ref_plateau_max, lr_ref_plateau_metrics);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

/* Two schedulers on one optimizer, both stepped each epoch (torch's chaining): the second sees
 * the first's changes and torch's shared initial_lr. */
TEST(chained_matches_torch) {
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    ct_lr_scheduler_options o[2] = {ct_lr_scheduler_options_default(CT_LR_LINEAR),
                                    ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL)};
    o[0].start_factor = 0.5;
    o[0].total_iters = 4;
    o[1].gamma = 0.9;
    check_run("LinearLR + ExponentialLR", 2, o, opt, lr_ref_chained, NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

/* What torch accepts although it looks odd, bit for bit; and where torch raises (a division by
 * zero) ctorch fails too and changes nothing. */
TEST(odd_arguments_as_torch) {
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_STEP);
    o.step_size = -3;
    o.gamma = 0.5;
    one_case("StepLR step_size -3", o, lr_ref_step_neg);
    o = ct_lr_scheduler_options_default(CT_LR_POLYNOMIAL);
    o.total_iters = 0;
    one_case("PolynomialLR total_iters 0", o, lr_ref_poly0);
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    o = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    o.factor = -0.5;
    o.patience = -1;
    o.min_lr = 1e-3;
    check_run("ReduceLROnPlateau factor -0.5 patience -1", 1, &o, opt, lr_ref_plateau_neg,
              lr_ref_plateau_metrics);
    ct_optim_free(opt);
    ct_tensor_release(p);
    /* two OneCycleLRs on one optimizer: lr and momentum each step */
    opt = make_opt(CT_OPTIM_SGD, 0.5, 0.9, &p);
    ct_lr_scheduler_options oc[2] = {ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE),
                                     ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE)};
    oc[0].max_lr = 1.0;
    oc[0].total_steps = LR_REF_EPOCHS;
    oc[1].max_lr = 0.01;
    oc[1].total_steps = LR_REF_EPOCHS + 5;
    oc[1].base_momentum = 0.5;
    ct_lr_scheduler *s[2] = {NULL, NULL};
    CHECK_OK(ct_lr_scheduler_create(opt, &oc[0], &s[0]));
    CHECK_OK(ct_lr_scheduler_create(opt, &oc[1], &s[1]));
    for (int e = 0; e <= LR_REF_EPOCHS; e++) {
        if (e > 0) {
            CHECK_OK(ct_lr_scheduler_step(s[0]));
            CHECK_OK(ct_lr_scheduler_step(s[1]));
        }
        double lr = hyper_lr(opt), m = saved_hyper(opt, "momentum");
        CHECK_MSG(same_bits(lr, lr_ref_onecycle_chain[e]) &&
                      same_bits(m, lr_ref_onecycle_chain_mom[e]),
                  "two OneCycleLR epoch %d: lr %.17g torch %.17g, momentum %.17g torch %.17g", e,
                  lr, lr_ref_onecycle_chain[e], m, lr_ref_onecycle_chain_mom[e]);
    }
    ct_lr_scheduler_free(s[0]);
    ct_lr_scheduler_free(s[1]);
    ct_optim_free(opt);
    ct_tensor_release(p);
    /* torch's ZeroDivisionError cases: a status, nothing changed */
    opt = make_opt(CT_OPTIM_SGD, 0.1, 0.9, &p);
    ct_lr_scheduler *t = NULL;
    o = ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE);
    o.max_lr = 1.0;
    o.total_steps = 10;
    o.pct_start = 0.1; /* the first phase has no step */
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &t), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "division by zero") != NULL && t == NULL);
    CHECK(hyper_lr(opt) == 0.1 && saved_hyper(opt, "momentum") == 0.9);
    o.pct_start = 1.0; /* the last phase has none: fails at epoch total_steps */
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &t));
    for (int e = 1; e < 10; e++)
        CHECK_OK(ct_lr_scheduler_step(t));
    double before = hyper_lr(opt);
    CHECK_ST(ct_lr_scheduler_step(t), CT_ERR_INVALID_ARG);
    CHECK(same_bits(hyper_lr(opt), before) && ct_lr_scheduler_last_epoch(t) == 9);
    ct_lr_scheduler_free(t);
    o = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    o.factor = 0;
    o.total_iters = 2;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &t));
    CHECK_OK(ct_lr_scheduler_step(t));
    CHECK_ST(ct_lr_scheduler_step(t), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "division by zero") != NULL);
    ct_lr_scheduler_free(t);
    o = ct_lr_scheduler_options_default(CT_LR_POLYNOMIAL);
    o.total_iters = 3;
    o.power = -1;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &t));
    CHECK_OK(ct_lr_scheduler_step(t));
    CHECK_OK(ct_lr_scheduler_step(t));
    CHECK_ST(ct_lr_scheduler_step(t), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "negative power") != NULL);
    ct_lr_scheduler_free(t);
    /* T_max near INT64_MAX: no overflow in torch's restart test */
    o = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    o.T_max = INT64_MAX;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &t));
    CHECK_OK(ct_lr_scheduler_step(t));
    ct_lr_scheduler_free(t);
    ct_optim_free(opt);
    ct_tensor_release(p);
}

/* Resume a torch run: a checkpoint holding the optimizer's and the scheduler's state_dict() after
 * 7 steps; the C scheduler is created with other options (the file's win) and continues 10 steps
 * with torch's learning rates bit for bit. */
static void resume_case(const char *name, ct_lr_scheduler_options o, const unsigned char *file,
                        size_t size, const double *next) {
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, file, size, &a));
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.7, 0.5, &p);
    ct_lr_scheduler *s = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    CHECK_OK(ct_optim_load_torch_state(opt, a, "optimizer"));
    ct_status st = ct_lr_scheduler_load_torch_state(s, a, "scheduler");
    CHECK_MSG(st == CT_OK, "%s: %s", name, ct_ctx_last_error(ctx));
    CHECK(ct_lr_scheduler_last_epoch(s) == 7);
    for (int i = 0; i < 10 && st == CT_OK; i++) {
        st = o.kind == CT_LR_REDUCE_ON_PLATEAU
                 ? ct_lr_scheduler_step_metric(s, lr_ref_plateau_metrics[7 + i])
                 : ct_lr_scheduler_step(s);
        CHECK_OK(st);
        CHECK_MSG(same_bits(hyper_lr(opt), next[i]), "%s: resumed step %d: lr %.17g torch %.17g",
                  name, i + 8, hyper_lr(opt), next[i]);
    }
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(p);
    ct_archive_free(a);
}

TEST(resume_torch_scheduler_states) {
#define RC(kind, nm, set)                                                                          \
    do {                                                                                           \
        ct_lr_scheduler_options o = ct_lr_scheduler_options_default(kind);                         \
        set;                                                                                       \
        resume_case(#nm, o, lr_resume_##nm, sizeof lr_resume_##nm, lr_resume_##nm##_next);         \
    } while (0)
    RC(CT_LR_STEP, step, (o.step_size = 99, o.gamma = 0.99));
    RC(CT_LR_CONSTANT, constant, o.factor = 0.9);
    RC(CT_LR_LINEAR, linear, o.total_iters = 2);
    RC(CT_LR_EXPONENTIAL, exponential, o.gamma = 0.1);
    RC(CT_LR_POLYNOMIAL, polynomial, o.total_iters = 50);
    RC(CT_LR_COSINE_ANNEALING, cosine, o.T_max = 100);
    RC(CT_LR_COSINE_WARM_RESTARTS, warm, o.T_0 = 10);
    RC(CT_LR_REDUCE_ON_PLATEAU, plateau, o.patience = 50);
    RC(CT_LR_LAMBDA, lambda, o.lr_lambda = lam_pow);
#undef RC
    /* refusals: another kind's state, no such prefix, MultiStepLR; nothing changes */
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, lr_resume_step, sizeof lr_resume_step, &a));
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0.9, &p);
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    o.T_max = 5;
    ct_lr_scheduler *s = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    CHECK_ST(ct_lr_scheduler_load_torch_state(s, a, "scheduler"), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "not the state of torch's CosineAnnealingLR") != NULL);
    CHECK_ST(ct_lr_scheduler_load_torch_state(s, a, NULL), CT_ERR_INVALID_ARG);
    CHECK(ct_lr_scheduler_last_epoch(s) == 0);
    ct_lr_scheduler_free(s);
    const int64_t ms[1] = {3};
    o = ct_lr_scheduler_options_default(CT_LR_MULTISTEP);
    o.milestones = ms;
    o.n_milestones = 1;
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    CHECK_ST(ct_lr_scheduler_load_torch_state(s, a, "scheduler"), CT_ERR_UNSUPPORTED);
    CHECK_ST(ct_lr_scheduler_load_torch_state(s, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_load_torch_state(NULL, a, NULL), CT_ERR_INVALID_ARG);
    ct_lr_scheduler_free(s);
    ct_optim_free(opt);
    ct_tensor_release(p);
    ct_archive_free(a);
}

TEST(sequential_matches_torch) {
    ct_lr_scheduler_options o[3];
    o[0] = ct_lr_scheduler_options_default(CT_LR_LINEAR);
    o[0].start_factor = 0.1;
    o[0].total_iters = 5;
    o[1] = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    o[1].T_max = 20;
    const int64_t m5[1] = {5};
    composite_case("LinearLR then CosineAnnealingLR", 0.1, 2, o, m5, lr_ref_seq_warm_cos);
    o[0] = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    o[0].factor = 0.5;
    o[0].total_iters = 3;
    o[1] = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
    o[1].gamma = 0.9;
    o[2] = ct_lr_scheduler_options_default(CT_LR_STEP);
    o[2].step_size = 4;
    o[2].gamma = 0.5;
    const int64_t m410[2] = {4, 10};
    composite_case("ConstantLR, ExponentialLR, StepLR", 0.1, 3, o, m410, lr_ref_seq_three);
    o[0] = ct_lr_scheduler_options_default(CT_LR_LAMBDA);
    o[0].lr_lambda = lam_pow;
    o[1] = ct_lr_scheduler_options_default(CT_LR_COSINE_WARM_RESTARTS);
    o[1].T_0 = 4;
    const int64_t m6[1] = {6};
    composite_case("LambdaLR then warm restarts", 0.1, 2, o, m6, lr_ref_seq_lambda_warm);
    o[0] = ct_lr_scheduler_options_default(CT_LR_POLYNOMIAL);
    o[0].total_iters = 8;
    o[0].power = 2.0;
    o[1] = ct_lr_scheduler_options_default(CT_LR_MULTIPLICATIVE);
    o[1].lr_lambda = lam_const;
    const int64_t m8[1] = {8};
    composite_case("PolynomialLR then MultiplicativeLR", 0.1, 2, o, m8, lr_ref_seq_poly_mult);

    /* resumed from torch's checkpoint after 7 steps: the next 10 rates */
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, lr_resume_seq, sizeof lr_resume_seq, &a));
    ct_tensor *p = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.7, 0.5, &p);
    o[0] = ct_lr_scheduler_options_default(CT_LR_LINEAR);
    o[0].start_factor = 0.1;
    o[0].total_iters = 5;
    o[1] = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    o[1].T_max = 20;
    ct_lr_scheduler *c[2], *s = NULL;
    CHECK_OK(ct_lr_scheduler_create(opt, &o[0], &c[0]));
    CHECK_OK(ct_lr_scheduler_create(opt, &o[1], &c[1]));
    CHECK_OK(ct_lr_scheduler_create_sequential(opt, 2, c, m5, &s));
    CHECK_OK(ct_optim_load_torch_state(opt, a, "optimizer"));
    ct_status st = ct_lr_scheduler_load_torch_state(s, a, "scheduler");
    CHECK_MSG(st == CT_OK, "%s", ct_ctx_last_error(ctx));
    for (int i = 0; i < 10; i++) {
        CHECK_OK(ct_lr_scheduler_step(s));
        CHECK_MSG(same_bits(hyper_lr(opt), lr_resume_seq_next[i]),
                  "resumed SequentialLR step %d: %.17g torch %.17g", i + 8, hyper_lr(opt),
                  lr_resume_seq_next[i]);
    }
    /* saved before its milestone: the second scheduler's last_epoch is -1 there (not entered) */
    {
        ct_archive *ae = NULL;
        CHECK_OK(ct_torch_load_buffer(ctx, lr_resume_seq_early, sizeof lr_resume_seq_early, &ae));
        ct_tensor *pe = NULL;
        ct_optim *oe = make_opt(CT_OPTIM_SGD, 0.7, 0.5, &pe);
        ct_lr_scheduler_options eo[2];
        eo[0] = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
        eo[1] = ct_lr_scheduler_options_default(CT_LR_STEP);
        eo[1].step_size = 3;
        ct_lr_scheduler *ec[2], *es = NULL;
        CHECK_OK(ct_lr_scheduler_create(oe, &eo[0], &ec[0]));
        CHECK_OK(ct_lr_scheduler_create(oe, &eo[1], &ec[1]));
        const int64_t m10[1] = {10};
        CHECK_OK(ct_lr_scheduler_create_sequential(oe, 2, ec, m10, &es));
        CHECK_OK(ct_optim_load_torch_state(oe, ae, "optimizer"));
        ct_status est = ct_lr_scheduler_load_torch_state(es, ae, "scheduler");
        CHECK_MSG(est == CT_OK, "%s", ct_ctx_last_error(ctx));
        for (int i = 0; i < 10 && est == CT_OK; i++) {
            CHECK_OK(ct_lr_scheduler_step(es));
            CHECK_MSG(same_bits(hyper_lr(oe), lr_resume_seq_early_next[i]),
                      "resumed early SequentialLR step %d: %.17g torch %.17g", i + 8, hyper_lr(oe),
                      lr_resume_seq_early_next[i]);
        }
        ct_lr_scheduler_free(es);
        ct_lr_scheduler_free(ec[0]), ct_lr_scheduler_free(ec[1]);
        ct_optim_free(oe);
        ct_tensor_release(pe);
        ct_archive_free(ae);
    }
    /* other milestones in the file: refused, nothing changes */
    ct_lr_scheduler *s2 = NULL;
    const int64_t m9[1] = {9};
    CHECK_OK(ct_lr_scheduler_create_sequential(opt, 2, c, m9, &s2));
    int64_t e_before = ct_lr_scheduler_last_epoch(s2);
    CHECK_ST(ct_lr_scheduler_load_torch_state(s2, a, "scheduler"), CT_ERR_INVALID_ARG);
    CHECK(ct_lr_scheduler_last_epoch(s2) == e_before);
    ct_lr_scheduler_free(s2);
    /* errors */
    ct_lr_scheduler *pl = NULL, *bad = NULL;
    ct_lr_scheduler_options po = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    CHECK_OK(ct_lr_scheduler_create(opt, &po, &pl));
    ct_lr_scheduler *withp[2] = {c[0], pl}, *twice[2] = {c[0], c[0]};
    CHECK_ST(ct_lr_scheduler_create_sequential(opt, 2, withp, m5, &bad), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create_sequential(opt, 2, twice, m5, &bad), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create_sequential(opt, 2, c, NULL, &bad), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create_sequential(opt, 0, c, m5, &bad), CT_ERR_INVALID_ARG);
    ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_SEQUENTIAL);
    CHECK_ST(ct_lr_scheduler_create(opt, &so, &bad), CT_ERR_INVALID_ARG);
    CHECK(bad == NULL);
    ct_tensor *q = NULL;
    ct_optim *other = make_opt(CT_OPTIM_SGD, 0.1, 0, &q);
    CHECK_ST(ct_lr_scheduler_create_sequential(other, 2, c, m5, &bad), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "same optimizer") != NULL);
    ct_optim_free(other);
    ct_tensor_release(q);
    ct_lr_scheduler_free(pl);
    ct_lr_scheduler_free(s);
    ct_lr_scheduler_free(c[0]);
    ct_lr_scheduler_free(c[1]);
    ct_optim_free(opt);
    ct_tensor_release(p);
    ct_archive_free(a);
}

TEST(warm_restarts_fractional_epochs) {
    const int n = (int)(sizeof lr_ref_warm_epochs / sizeof lr_ref_warm_epochs[0]);
    for (int t = 0; t < 2; t++) {
        ct_tensor *p = NULL;
        ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
        ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_COSINE_WARM_RESTARTS);
        o.T_0 = t ? 4 : 5;
        o.T_mult = t ? 1 : 2;
        o.eta_min = t ? 0 : 0.01;
        const double *ref = t ? lr_ref_warm1_epoch_lrs : lr_ref_warm_epoch_lrs;
        ct_lr_scheduler *s = NULL;
        CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
        for (int i = 0; i < n; i++) {
            CHECK_OK(ct_lr_scheduler_step_epoch(s, lr_ref_warm_epochs[i]));
            CHECK_MSG(same_bits(hyper_lr(opt), ref[i]), "T_mult %lld epoch %g: %.17g torch %.17g",
                      (long long)o.T_mult, lr_ref_warm_epochs[i], hyper_lr(opt), ref[i]);
            CHECK(ct_lr_scheduler_last_epoch(s) == (int64_t)floor(lr_ref_warm_epochs[i]));
        }
        CHECK_ST(ct_lr_scheduler_step_epoch(s, -1), CT_ERR_INVALID_ARG);
        CHECK(strstr(ct_ctx_last_error(ctx), "non-negative epoch") != NULL);
        ct_lr_scheduler_free(s);
        ct_optim_free(opt);
        ct_tensor_release(p);
    }
}

/* A FUSED step captured once and replayed after each scheduler step uses the scheduled rate:
 * equal to eager SGD steps with the same rates. */
TEST(captured_step_follows_scheduler) {
    const int64_t n = 5;
    float init[5] = {1, -2, 3, -4, 5}, g[5] = {0.5f, 0.25f, -1, 2, -0.125f};
    ct_tensor *pa, *pb, *ga;
    CHECK_OK(ct_tensor_from_host(ctx, init, CT_FLOAT32, 1, &n, &pa));
    CHECK_OK(ct_tensor_from_host(ctx, init, CT_FLOAT32, 1, &n, &pb));
    CHECK_OK(ct_tensor_from_host(ctx, g, CT_FLOAT32, 1, &n, &ga));
    ct_optim_options oo = ct_optim_options_default(CT_OPTIM_SGD);
    oo.lr = 0.1;
    ct_optim *a = NULL, *b = NULL;
    CHECK_OK(ct_optim_create(ctx, &oo, 1, &pa, &a));
    CHECK_OK(ct_optim_create(ctx, &oo, 1, &pb, &b));
    ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    so.T_max = 6;
    ct_lr_scheduler *sa = NULL, *sb = NULL;
    CHECK_OK(ct_lr_scheduler_create(a, &so, &sa));
    CHECK_OK(ct_lr_scheduler_create(b, &so, &sb));
    ct_graph *gr = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &gr));
    CHECK_OK(ct_graph_capture_begin(gr, NULL));
    CHECK_OK(ct_optim_step(a, &ga));
    /* a scheduler step inside the capture is refused, and the capture survives it */
    CHECK_ST(ct_lr_scheduler_step(sa), CT_ERR_UNSUPPORTED);
    CHECK_OK(ct_graph_capture_end(gr));
    for (int e = 0; e < 8; e++) {
        CHECK_OK(ct_graph_replay(gr));
        CHECK_OK(ct_optim_step(b, &ga));
        CHECK_OK(ct_lr_scheduler_step(sa));
        CHECK_OK(ct_lr_scheduler_step(sb));
    }
    float x[5], y[5];
    CHECK_OK(ct_tensor_to_host(pa, x, sizeof x));
    CHECK_OK(ct_tensor_to_host(pb, y, sizeof y));
    CHECK(memcmp(x, y, sizeof x) == 0);
    /* and the eager reference by hand: p -= lr_e * g with torch's rates */
    for (int i = 0; i < 5; i++) {
        float r = init[i];
        ct_tensor *pp = NULL;
        ct_optim *oc = make_opt(CT_OPTIM_SGD, 0.1, 0, &pp);
        ct_lr_scheduler *sc = NULL;
        CHECK_OK(ct_lr_scheduler_create(oc, &so, &sc));
        for (int e = 0; e < 8; e++) {
            r = fmaf((float)-ct_lr_scheduler_last_lr(sc), g[i], r);
            CHECK_OK(ct_lr_scheduler_step(sc));
        }
        CHECK_MSG(x[i] == r, "element %d: %.9g, by hand %.9g", i, (double)x[i], (double)r);
        ct_lr_scheduler_free(sc);
        ct_optim_free(oc);
        ct_tensor_release(pp);
    }
    ct_graph_free(gr);
    ct_lr_scheduler_free(sa);
    ct_lr_scheduler_free(sb);
    ct_optim_free(a);
    ct_optim_free(b);
    ct_tensor *all[] = {pa, pb, ga};
    for (int i = 0; i < 3; i++)
        ct_tensor_release(all[i]);
}

/* OneCycleLR moves SGD's momentum and Adam's beta1 each step: FUSED and FOREACH steps both read
 * them from the schedule (same bits), and they differ from a run without the schedule. */
TEST(one_cycle_fused_equals_foreach) {
    const int64_t n = 7;
    float init[7] = {1, -2, 3, -4, 5, -6, 7}, g[7] = {0.5f, 0.25f, -1, 2, -0.125f, 3, -0.75f};
    for (int k = 0; k < 2; k++) {
        ct_optim_kind kind = k ? CT_OPTIM_ADAM : CT_OPTIM_SGD;
        float out[3][7];
        for (int impl = 0; impl < 3; impl++) {
            ct_tensor *p = NULL, *gt = NULL;
            CHECK_OK(ct_tensor_from_host(ctx, init, CT_FLOAT32, 1, &n, &p));
            CHECK_OK(ct_tensor_from_host(ctx, g, CT_FLOAT32, 1, &n, &gt));
            ct_optim_options o = ct_optim_options_default(kind);
            o.impl = impl == 1 ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
            o.momentum = kind == CT_OPTIM_SGD ? 0.9 : 0;
            ct_optim *opt = NULL;
            CHECK_OK(ct_optim_create(ctx, &o, 1, &p, &opt));
            ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE);
            so.max_lr = 0.1;
            so.total_steps = 12;
            so.cycle_momentum = impl != 2; /* 2: the rate alone */
            ct_lr_scheduler *s = NULL;
            CHECK_OK(ct_lr_scheduler_create(opt, &so, &s));
            for (int e = 0; e < 12; e++) {
                CHECK_OK(ct_optim_step(opt, &gt));
                if (e < 11) CHECK_OK(ct_lr_scheduler_step(s));
            }
            CHECK_OK(ct_tensor_to_host(p, out[impl], sizeof out[impl]));
            ct_lr_scheduler_free(s);
            ct_optim_free(opt);
            ct_tensor_release(p);
            ct_tensor_release(gt);
        }
        CHECK_MSG(memcmp(out[0], out[1], sizeof out[0]) == 0, "%s: FUSED != FOREACH",
                  k ? "adam" : "sgd");
        CHECK(memcmp(out[0], out[2], sizeof out[0]) != 0);
    }
}

static void expect_bad(ct_optim *opt, ct_lr_scheduler_options o, const char *needle) {
    ct_lr_scheduler *s = (ct_lr_scheduler *)(uintptr_t)1;
    CHECK_ST(ct_lr_scheduler_create(opt, &o, &s), CT_ERR_INVALID_ARG);
    CHECK(s == NULL);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), needle) != NULL, "message '%s' lacks '%s'",
              ct_ctx_last_error(ctx), needle);
}

TEST(scheduler_errors) {
    ct_tensor *p = NULL, *q = NULL;
    ct_optim *opt = make_opt(CT_OPTIM_SGD, 0.1, 0, &p);
    ct_optim *ada = make_opt(CT_OPTIM_ADAGRAD, 0.1, 0, &q);
    ct_lr_scheduler_options o = ct_lr_scheduler_options_default(CT_LR_STEP);
    expect_bad(opt, o, "step_size 0");
    o = ct_lr_scheduler_options_default(CT_LR_LAMBDA);
    expect_bad(opt, o, "lr_lambda is NULL");
    o = ct_lr_scheduler_options_default(CT_LR_CONSTANT);
    o.factor = 1.5;
    expect_bad(opt, o, "between 0 and 1");
    o = ct_lr_scheduler_options_default(CT_LR_LINEAR);
    o.start_factor = 0;
    expect_bad(opt, o, "Starting multiplicative factor");
    o = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
    expect_bad(opt, o, "T_max 0");
    o = ct_lr_scheduler_options_default(CT_LR_COSINE_WARM_RESTARTS);
    o.T_0 = 3;
    o.T_mult = 0;
    expect_bad(opt, o, "T_mult >= 1");
    o = ct_lr_scheduler_options_default(CT_LR_ONE_CYCLE);
    o.max_lr = 0.1;
    expect_bad(opt, o, "total_steps");
    o.total_steps = 10;
    expect_bad(opt, o, "momentum > 0"); /* SGD without momentum */
    expect_bad(ada, o, "must support momentum");
    o.cycle_momentum = false;
    o.pct_start = 1.5;
    expect_bad(ada, o, "pct_start");
    o = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    o.factor = 1.0;
    expect_bad(opt, o, "Factor should be < 1.0.");
    o = ct_lr_scheduler_options_default(CT_LR_STEP);
    o.kind = (ct_lr_scheduler_kind)99;
    expect_bad(opt, o, "kind 99");
    o = ct_lr_scheduler_options_default(CT_LR_STEP);
    o.size = 4;
    expect_bad(opt, o, "options.size 4");
    /* the wrong step function for the kind */
    ct_lr_scheduler *s = NULL;
    o = ct_lr_scheduler_options_default(CT_LR_REDUCE_ON_PLATEAU);
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    CHECK_ST(ct_lr_scheduler_step(s), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_step_epoch(s, 1.0), CT_ERR_UNSUPPORTED);
    ct_lr_scheduler_free(s);
    o = ct_lr_scheduler_options_default(CT_LR_EXPONENTIAL);
    CHECK_OK(ct_lr_scheduler_create(opt, &o, &s));
    CHECK_ST(ct_lr_scheduler_step_metric(s, 1.0), CT_ERR_INVALID_ARG);
    ct_lr_scheduler_free(s);
    CHECK_ST(ct_lr_scheduler_create(NULL, &o, &s), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_create(opt, NULL, &s), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lr_scheduler_step(NULL), CT_ERR_INVALID_ARG);
    CHECK(isnan(ct_lr_scheduler_last_lr(NULL)) && ct_lr_scheduler_last_epoch(NULL) == -1);
    ct_lr_scheduler_free(NULL);
    ct_optim_free(opt);
    ct_optim_free(ada);
    ct_tensor_release(p);
    ct_tensor_release(q);
}

/* ---- gradient clipping ---- */

static void make_grads(ct_tensor *g[3]) {
    const int64_t s0[1] = {5}, s1[2] = {3, 4}, s2[3] = {2, 2, 3};
    CHECK_OK(ct_tensor_from_host(ctx, clip_ref_grads, CT_FLOAT32, 1, s0, &g[0]));
    CHECK_OK(ct_tensor_from_host(ctx, clip_ref_grads + 5, CT_FLOAT32, 2, s1, &g[1]));
    CHECK_OK(ct_tensor_from_host(ctx, clip_ref_grads + 17, CT_FLOAT32, 3, s2, &g[2]));
}

TEST(clip_grad_norm_matches_torch) {
    const int rows = (int)(sizeof clip_ref / sizeof clip_ref[0]);
    for (int r = 0; r < rows; r++) {
        ct_tensor *g[3], *tot = NULL;
        make_grads(g);
        CHECK_OK(ct_clip_grad_norm_(ctx, 3, g, clip_ref[r].max_norm, clip_ref[r].norm_type, false,
                                    &tot));
        float t = 0, out[CLIP_REF_N];
        CHECK(ct_tensor_dtype(tot) == CT_FLOAT32 && ct_tensor_ndim(tot) == 0);
        CHECK_OK(ct_tensor_to_host(tot, &t, sizeof t));
        CHECK_MSG(ct_t_close(t, clip_ref[r].total, 2e-6, 0), "norm %g: total %.9g torch %.9g",
                  clip_ref[r].norm_type, (double)t, clip_ref[r].total);
        CHECK_OK(ct_tensor_to_host(g[0], out, 5 * 4));
        CHECK_OK(ct_tensor_to_host(g[1], out + 5, 12 * 4));
        CHECK_OK(ct_tensor_to_host(g[2], out + 17, 12 * 4));
        for (int i = 0; i < CLIP_REF_N; i++)
            CHECK_MSG(ct_t_close(out[i], clip_ref[r].out[i], 4e-6, 0),
                      "norm %g max %g el %d: %.9g torch %.9g", clip_ref[r].norm_type,
                      clip_ref[r].max_norm, i, (double)out[i], (double)clip_ref[r].out[i]);
        /* the inf norm has no summation order: exact; and an unclipped run leaves the grads */
        if (isinf(clip_ref[r].norm_type)) CHECK(t == (float)clip_ref[r].total);
        if (clip_ref[r].max_norm > 1e5)
            for (int i = 0; i < CLIP_REF_N; i++)
                CHECK(out[i] == clip_ref_grads[i]);
        ct_tensor_release(tot);
        for (int i = 0; i < 3; i++)
            ct_tensor_release(g[i]);
    }
}

TEST(clip_grad_norm_identities_and_errors) {
    /* after clipping to max_norm, the total 2-norm is max_norm (up to the 1e-6 and rounding);
     * NULL grads are skipped; a float64 grad promotes the total */
    const int64_t n = 4;
    double d[4] = {3, 4, 0, 0};
    ct_tensor *g[3], *g64 = NULL, *tot = NULL;
    make_grads(g);
    CHECK_OK(ct_tensor_from_host(ctx, d, CT_FLOAT64, 1, &n, &g64));
    ct_tensor *list[4] = {g[0], NULL, g64, g[2]};
    CHECK_OK(ct_clip_grad_norm_(ctx, 4, list, 1.0, 2.0, false, &tot));
    CHECK(ct_tensor_dtype(tot) == CT_FLOAT64);
    ct_tensor *after = NULL;
    CHECK_OK(ct_clip_grad_norm_(ctx, 4, list, 1e9, 2.0, false, &after));
    double a = 0;
    CHECK_OK(ct_tensor_to_host(after, &a, sizeof a));
    CHECK_MSG(fabs(a - 1.0) < 1e-5, "norm after clipping %.9g", a);
    ct_tensor_release(tot);
    ct_tensor_release(after);
    /* every grad NULL: float32 0, nothing to do */
    ct_tensor *none[2] = {NULL, NULL};
    CHECK_OK(ct_clip_grad_norm_(ctx, 2, none, 1.0, 2.0, true, &tot));
    float z = -1;
    CHECK_OK(ct_tensor_to_host(tot, &z, sizeof z));
    CHECK(z == 0.0f && ct_tensor_dtype(tot) == CT_FLOAT32);
    ct_tensor_release(tot);
    /* error_if_nonfinite: torch's message, grads untouched */
    double inf4[4] = {1, INFINITY, 2, 3}, back[4];
    ct_tensor *gi = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, inf4, CT_FLOAT64, 1, &n, &gi));
    CHECK_ST(ct_clip_grad_norm_(ctx, 1, &gi, 1.0, 2.0, true, NULL), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "The total norm of order 2.0 for gradients") != NULL);
    CHECK_OK(ct_tensor_to_host(gi, back, sizeof back));
    CHECK(memcmp(back, inf4, sizeof back) == 0);
    /* without it: scaled by the non-finite norm (torch: 1/inf * max_norm = 0) */
    CHECK_OK(ct_clip_grad_norm_(ctx, 1, &gi, 1.0, 2.0, false, NULL));
    CHECK_OK(ct_tensor_to_host(gi, back, sizeof back));
    CHECK(back[0] == 0 && isnan(back[1]) && back[2] == 0);
    /* bad input */
    const int64_t two = 2;
    ct_tensor *gint = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, &two, &gint));
    CHECK_ST(ct_clip_grad_norm_(ctx, 1, &gint, 1.0, 2.0, false, NULL), CT_ERR_DTYPE);
    CHECK_ST(ct_clip_grad_norm_(ctx, 1, g, 1.0, NAN, false, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_clip_grad_norm_(ctx, 1, NULL, 1.0, 2.0, false, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_clip_grad_norm_(NULL, 1, g, 1.0, 2.0, false, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_clip_grad_value_(ctx, 1, &gint, 1.0), CT_ERR_DTYPE);
    /* NaN bounds make NaN gradients (torch's clamp and scale) */
    float nv[5];
    CHECK_OK(ct_clip_grad_value_(ctx, 1, g, NAN));
    CHECK_OK(ct_tensor_to_host(g[0], nv, sizeof nv));
    for (int i = 0; i < 5; i++)
        CHECK(isnan(nv[i]));
    float nw[12];
    CHECK_OK(ct_clip_grad_norm_(ctx, 1, &g[1], NAN, 2.0, false, NULL));
    CHECK_OK(ct_tensor_to_host(g[1], nw, sizeof nw));
    for (int i = 0; i < 12; i++)
        CHECK(isnan(nw[i]));
    ct_tensor *all[] = {g[0], g[1], g[2], g64, gi, gint};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(all[i]);
}

TEST(clip_grad_value_exact) {
    ct_tensor *g[3];
    make_grads(g);
    CHECK_OK(ct_clip_grad_value_(ctx, 3, g, 0.3));
    float out[CLIP_REF_N];
    CHECK_OK(ct_tensor_to_host(g[0], out, 5 * 4));
    CHECK_OK(ct_tensor_to_host(g[1], out + 5, 12 * 4));
    CHECK_OK(ct_tensor_to_host(g[2], out + 17, 12 * 4));
    int clipped = 0;
    for (int i = 0; i < CLIP_REF_N; i++) {
        float x = clip_ref_grads[i], want = x > 0.3f ? 0.3f : x < -0.3f ? -0.3f : x;
        clipped += want != x;
        CHECK_MSG(out[i] == want, "el %d: %.9g want %.9g", i, (double)out[i], (double)want);
    }
    CHECK(clipped > 5); /* the data exercises both bounds */
    for (int i = 0; i < 3; i++)
        ct_tensor_release(g[i]);
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    RUN(schedulers_match_torch);
    RUN(one_cycle_matches_torch);
    RUN(cyclic_matches_torch);
    RUN(chained_scheduler_matches_torch);
    RUN(swalr_and_averaged_model_match_torch);
    RUN(plateau_matches_torch);
    RUN(chained_matches_torch);
    RUN(odd_arguments_as_torch);
    RUN(resume_torch_scheduler_states);
    RUN(sequential_matches_torch);
    RUN(warm_restarts_fractional_epochs);
    RUN(captured_step_follows_scheduler);
    RUN(one_cycle_fused_equals_foreach);
    RUN(scheduler_errors);
    RUN(clip_grad_norm_matches_torch);
    RUN(clip_grad_norm_identities_and_errors);
    RUN(clip_grad_value_exact);
    ct_ctx_free(ctx);
    return ct_test_end();
}

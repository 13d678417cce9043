/* Resume a PyTorch training run in C. examples/data/resume_adamw.pt is a checkpoint PyTorch 1.13
 * wrote after 30 AdamW steps under a cosine learning-rate schedule on a small MLP, with torch's
 * usual two parameter groups (weight decay on the weight matrices, none on the biases)
 * (scripts/gen_resume_example.py):
 *   {"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
 *    "epoch": 30, "data": {"x": x, "y": y}, "expected_losses": [torch's next 30 losses]}
 * This program reads it with ct_torch_load, puts the weights into its own tensors
 * (ct_archive_load_state_dict), each group's AdamW moments, step counts and hyper-parameters into
 * a ctorch optimizer of its own (ct_optim_load_torch_state_group: a ctorch optimizer is one torch
 * parameter group) and the schedule's position into one CosineAnnealingLR per optimizer
 * (ct_lr_scheduler_load_torch_state_group), continues for 30 steps with autograd and checks each
 * loss against torch's (relative 1e-4). Exit 0 when all agree.
 * Usage: example_resume_torch_training [path/to/resume_adamw.pt] */
#include <ctorch/ctorch.h>

#include <math.h>
#include <stdio.h>

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != CT_OK) {                                                                     \
            fprintf(stderr, "%s: %s\n", #call, ct_ctx_last_error(ctx));                            \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static ct_ctx *ctx;

/* mean((fc2(tanh(fc1(x))) - y)^2) */
static int forward(ct_tensor *const *w, ct_tensor *x, ct_tensor *y, ct_tensor **loss) {
    ct_tensor *h = NULL, *t = NULL, *o = NULL;
    TRY(ct_linear(ctx, x, w[0], w[1], &h));
    TRY(ct_tanh(ctx, h, &t));
    TRY(ct_linear(ctx, t, w[2], w[3], &o));
    TRY(ct_mse_loss(ctx, o, y, CT_REDUCTION_MEAN, loss));
    ct_tensor_release(h);
    ct_tensor_release(t);
    ct_tensor_release(o);
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : CT_SOURCE_DIR "/examples/data/resume_adamw.pt";
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_archive *a = NULL;
    TRY(ct_torch_load(ctx, path, &a));
    int64_t epoch = 0;
    TRY(ct_archive_get_int(a, "epoch", &epoch));

    /* the model's parameters, in the optimizer's (torch's) order */
    static const char *const names[4] = {"0.weight", "0.bias", "2.weight", "2.bias"};
    const int64_t s0[2] = {16, 4}, s1[1] = {16}, s2[2] = {1, 16}, s3[1] = {1};
    const int64_t *shapes[4] = {s0, s1, s2, s3};
    const int nd[4] = {2, 1, 2, 1};
    ct_tensor *w[4];
    for (int i = 0; i < 4; i++) {
        TRY(ct_tensor_zeros(ctx, CT_FLOAT32, nd[i], shapes[i], &w[i]));
        TRY(ct_tensor_set_requires_grad(w[i], true));
    }
    TRY(ct_archive_load_state_dict(a, "model.", 4, names, w, true, NULL));

    /* torch's groups: 0 the weight matrices (decayed), 1 the biases; one AdamW with amsgrad per
     * group (the file's lr, betas, eps and decay win, but whether a group decays at all is
     * structure and must match) */
    ct_tensor *group[2][2] = {{w[0], w[2]}, {w[1], w[3]}};
    ct_optim *opt[2] = {NULL, NULL};
    ct_lr_scheduler *sched[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAMW);
        o.amsgrad = true;
        o.weight_decay = k == 0 ? 0.01 : 0.0;
        TRY(ct_optim_create(ctx, &o, 2, group[k], &opt[k]));
        /* the scheduler first (its constructor's initial step sets the lr, as torch's does),
         * then both states: the file's T_max, eta_min and epoch win */
        ct_lr_scheduler_options so = ct_lr_scheduler_options_default(CT_LR_COSINE_ANNEALING);
        so.T_max = 1;
        TRY(ct_lr_scheduler_create(opt[k], &so, &sched[k]));
        TRY(ct_optim_load_torch_state_group(opt[k], a, "optimizer", k));
        TRY(ct_lr_scheduler_load_torch_state_group(sched[k], a, "scheduler", k));
    }
    /* the one-group loaders (ct_optim_load_torch_state, ct_lr_scheduler_load_torch_state, for
     * a checkpoint of one group) refuse this file and say which call to use; nothing changes */
    if (ct_optim_load_torch_state(opt[0], a, "optimizer") == CT_OK ||
        ct_lr_scheduler_load_torch_state(sched[0], a, "scheduler") == CT_OK) {
        fprintf(stderr, "a state of two groups loaded into one optimizer\n");
        return 1;
    }
    printf("one-group loader: %s\n", ct_ctx_last_error(ctx));
    int64_t steps = 0;
    TRY(ct_optim_step_count(opt[0], 0, &steps));
    double lr = 0;
    TRY(ct_tensor_to_host(ct_optim_lr(opt[0]), &lr, sizeof lr));
    printf("resumed at epoch %lld: AdamW step %lld, lr %g, schedule epoch %lld (2 groups)\n",
           (long long)epoch, (long long)steps, lr, (long long)ct_lr_scheduler_last_epoch(sched[0]));

    ct_tensor *x = NULL, *y = NULL;
    TRY(ct_archive_get(a, "data.x", &x));
    TRY(ct_archive_get(a, "data.y", &y));
    int bad = 0;
    for (int it = 0; it < 30; it++) {
        ct_tensor *loss = NULL;
        for (int i = 0; i < 4; i++)
            TRY(ct_tensor_zero_grad(w[i]));
        if (forward(w, x, y, &loss)) return 1;
        TRY(ct_backward(ctx, loss, NULL, false));
        for (int k = 0; k < 2; k++) {
            ct_tensor *g[2] = {ct_tensor_grad(group[k][0]), ct_tensor_grad(group[k][1])};
            TRY(ct_optim_step(opt[k], g));
            TRY(ct_lr_scheduler_step(sched[k]));
        }
        float l = 0;
        double want = 0;
        char key[32];
        snprintf(key, sizeof key, "expected_losses.%d", it);
        TRY(ct_tensor_to_host(loss, &l, sizeof l));
        TRY(ct_archive_get_float(a, key, &want));
        int ok = fabs(l - want) <= 1e-4 * fabs(want);
        bad |= !ok;
        if (it % 5 == 0 || !ok)
            printf("step %2d  loss %.7f  torch %.7f%s\n", (int)epoch + it + 1, (double)l, want,
                   ok ? "" : "  MISMATCH");
        ct_tensor_release(loss);
    }
    printf(bad ? "the resumed run departs from torch's\n"
               : "30 resumed steps match torch's losses\n");
    for (int k = 0; k < 2; k++) {
        ct_lr_scheduler_free(sched[k]);
        ct_optim_free(opt[k]);
    }
    for (int i = 0; i < 4; i++)
        ct_tensor_release(w[i]);
    ct_tensor_release(x);
    ct_tensor_release(y);
    ct_archive_free(a);
    ct_ctx_free(ctx);
    return bad;
}

/* Train an MLP 64-128-10 (relu) on the UCI handwritten digits (examples/data/digits.bin) with
 * autograd, cross entropy and Adam; a fixed split (every 5th image is a test image: 1437 train,
 * 360 test) and fixed seeds. Exits 1 unless the test accuracy is at least 95%.
 * Usage: example_train_digits [--optim sgd|adam|adamw|adagrad|rmsprop|adamax|nadam|radam|adadelta|
 *        rprop|asgd]
 *        [--foreach] [path/to/digits.bin]
 * (default Adam, fused; `ctorch train-demo` adds a captured mode and checks fused == foreach). */
#include "digits_common.h"

#define EPOCHS 30

#include <string.h>

static ct_ctx *ctx;

static ct_tensor *forward(ct_tensor *x, ct_tensor *const *p) {
    return digits_mlp_forward(ctx, x, p);
}

int main(int argc, char **argv) {
    const char *path = CT_SOURCE_DIR "/examples/data/digits.bin";
    static const char *const kinds[11] = {"sgd",      "adam",   "adamw", "adagrad",
                                          "rmsprop",  "adamax", "nadam", "radam",
                                          "adadelta", "rprop",  "asgd"};
    static const double lrs[11] = {0.1, 3e-3, 3e-3, 0.05, 1e-3, 3e-3, 3e-3, 3e-3, 1.0, 1e-3, 0.2};
    int kind = CT_OPTIM_ADAM;
    bool foreach = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--foreach")) {
            foreach
                = true;
        } else if (!strcmp(argv[i], "--optim") && i + 1 < argc) {
            kind = -1;
            for (int k = 0; k < 11; k++)
                if (!strcmp(argv[i + 1], kinds[k])) kind = k;
            if (kind < 0) {
                fprintf(stderr, "--optim takes sgd, adam, adamw, adagrad, rmsprop, adamax, "
                                "nadam, radam, adadelta, rprop or asgd\n");
                return 2;
            }
            i++;
        } else {
            path = argv[i];
        }
    }
    static float xtr[N_TRAIN][IN], xte[N_TEST][IN];
    static int64_t ytr[N_TRAIN], yte[N_TEST];
    if (!digits_load(path, xtr, ytr, xte, yte)) return 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *Xtr, *Xte, *Ytr, *p[4];
    digits_tensors(ctx, xtr, ytr, xte, &Xtr, &Xte, &Ytr);
    digits_mlp_params(ctx, p);
    ct_optim_options oo = ct_optim_options_default((ct_optim_kind)kind);
    oo.lr = kind == CT_OPTIM_ADAM ? 3e-3 : lrs[kind];
    oo.impl = foreach ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
    if (kind == CT_OPTIM_RPROP) oo.step_size_max = 3e-3; /* no runaway steps */
    /* ASGD: average the weights over the last 20 epochs (t0 steps of plain SGD first) */
    if (kind == CT_OPTIM_ASGD) oo.t0 = 10.0 * (double)((N_TRAIN + BATCH - 1) / BATCH);
    printf("optimizer %s (%s)\n", kinds[kind], foreach ? "foreach" : "fused");
    ct_optim *opt;
    TRY(ct_optim_create(ctx, &oo, 4, p, &opt));
    double loss = 0;
    /* Rprop adapts its steps to the signs of full-batch gradients (minibatch noise flips them):
     * full batches, 10 steps per epoch */
    const bool full = kind == CT_OPTIM_RPROP;
    const int64_t batch = full ? N_TRAIN : BATCH;
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        for (int64_t b0 = 0; b0 < N_TRAIN * (full ? 10 : 1); b0 += batch) {
            const int64_t start = full ? 0 : b0; /* full: the whole set each time */
            const int64_t nb = full ? N_TRAIN : N_TRAIN - b0 < BATCH ? N_TRAIN - b0 : BATCH;
            ct_tensor *xb, *yb, *logits, *l;
            TRY(ct_tensor_narrow(ctx, Xtr, 0, start, nb, &xb));
            TRY(ct_tensor_narrow(ctx, Ytr, 0, start, nb, &yb));
            for (int i = 0; i < 4; i++)
                TRY(ct_tensor_zero_grad(p[i]));
            logits = forward(xb, p);
            TRY(ct_cross_entropy(ctx, logits, yb, CT_REDUCTION_MEAN, 0.0, &l));
            TRY(ct_backward(ctx, l, NULL, false));
            ct_tensor *g[4];
            for (int i = 0; i < 4; i++)
                g[i] = ct_tensor_grad(p[i]);
            TRY(ct_optim_step(opt, g));
            TRY(ct_tensor_item(l, &loss));
            ct_tensor_release(xb), ct_tensor_release(yb), ct_tensor_release(logits);
            ct_tensor_release(l);
        }
        if (epoch % 10 == 9) printf("epoch %2d  last batch loss %.4f\n", epoch + 1, loss);
    }
    /* test accuracy, without recording */
    ct_set_grad_enabled(ctx, false);
    ct_tensor *logits = forward(Xte, p);
    double acc = digits_accuracy(ctx, logits, yte);
    printf("test accuracy %.2f%% (%d / %d)\n", 100 * acc, (int)lround(acc * N_TEST), N_TEST);
    ct_tensor_release(logits);
    if (kind == CT_OPTIM_ASGD) { /* the averaged weights (optimizer.state[p]["ax"]) */
        ct_tensor *avg[4];
        for (int i = 0; i < 4; i++)
            avg[i] = ct_optim_state(opt, i, "ax");
        logits = forward(Xte, avg);
        double acc_avg = digits_accuracy(ctx, logits, yte);
        printf("test accuracy of the averaged weights %.2f%%\n", 100 * acc_avg);
        ct_tensor_release(logits);
        if (acc_avg < 0.95) acc = acc_avg;
    }
    ct_optim_free(opt);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(p[i]);
    ct_tensor_release(Xtr), ct_tensor_release(Xte), ct_tensor_release(Ytr);
    ct_ctx_free(ctx);
    return acc >= 0.95 ? 0 : 1;
}

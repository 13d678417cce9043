/* 2:4 sparsity on a trained layer: train the digits MLP 64-128-10 (as examples/train_digits.c:
 * Adam, 30 epochs), prune both weight matrices to 2:4 (f32 values and FP8 E4M3 values with row
 * scales), run them with ct_sparse24_linear, then fine-tune with the 2:4 mask fixed (the masked
 * weights W * mask train densely) and prune W * mask again (which keeps the mask's pattern). Prints
 * the test accuracy of each stage and one machine line; exits 1 unless the fine-tuned 2:4 model
 * (f32 and E4M3) reaches 95%. Usage: example_sparse_digits [path/to/digits.bin] */
#include "digits_common.h"

#include <string.h>

static ct_ctx *ctx;
static ct_tensor *Xtr, *Xte, *Ytr;
static int64_t yte[N_TEST];

/* logits of x; the weights times their masks when masks are given */
static ct_tensor *forward(ct_tensor *x, ct_tensor *const *p, ct_tensor *const *mask) {
    ct_tensor *w1 = p[0], *w2 = p[2], *h, *r, *o;
    if (mask) {
        TRY(ct_mul(ctx, p[0], mask[0], &w1));
        TRY(ct_mul(ctx, p[2], mask[1], &w2));
    }
    TRY(ct_linear(ctx, x, w1, p[1], &h));
    TRY(ct_relu(ctx, h, &r));
    TRY(ct_linear(ctx, r, w2, p[3], &o));
    if (mask) ct_tensor_release(w1), ct_tensor_release(w2);
    ct_tensor_release(h), ct_tensor_release(r);
    return o;
}

static void train(ct_tensor *const *p, ct_tensor *const *mask, int epochs) {
    ct_optim_options oo = ct_optim_options_default(CT_OPTIM_ADAM);
    oo.lr = 3e-3;
    ct_optim *opt;
    TRY(ct_optim_create(ctx, &oo, 4, p, &opt));
    for (int epoch = 0; epoch < epochs; epoch++)
        for (int64_t b0 = 0; b0 < N_TRAIN; b0 += BATCH) {
            int64_t nb = N_TRAIN - b0 < BATCH ? N_TRAIN - b0 : BATCH;
            ct_tensor *xb, *yb, *logits, *l, *g[4];
            TRY(ct_tensor_narrow(ctx, Xtr, 0, b0, nb, &xb));
            TRY(ct_tensor_narrow(ctx, Ytr, 0, b0, nb, &yb));
            for (int i = 0; i < 4; i++)
                TRY(ct_tensor_zero_grad(p[i]));
            logits = forward(xb, p, mask);
            TRY(ct_cross_entropy(ctx, logits, yb, CT_REDUCTION_MEAN, 0.0, &l));
            TRY(ct_backward(ctx, l, NULL, false));
            for (int i = 0; i < 4; i++)
                g[i] = ct_tensor_grad(p[i]);
            TRY(ct_optim_step(opt, g));
            ct_tensor_release(xb), ct_tensor_release(yb), ct_tensor_release(logits);
            ct_tensor_release(l);
        }
    ct_optim_free(opt);
}

static double accuracy(ct_tensor *logits) { return digits_accuracy(ctx, logits, yte); }

/* Test accuracy with both weight matrices 2:4 in values dtype vdt. */
static double sparse_accuracy(ct_tensor *const *p, ct_dtype vdt) {
    ct_sparse24 *w1, *w2;
    ct_tensor *h, *r, *o;
    TRY(ct_sparse24_prune(ctx, p[0], vdt, &w1));
    TRY(ct_sparse24_prune(ctx, p[2], vdt, &w2));
    TRY(ct_sparse24_linear(ctx, Xte, w1, p[1], &h));
    TRY(ct_relu(ctx, h, &r));
    TRY(ct_sparse24_linear(ctx, r, w2, p[3], &o));
    double acc = accuracy(o);
    ct_tensor_release(h), ct_tensor_release(r), ct_tensor_release(o);
    ct_sparse24_free(w1), ct_sparse24_free(w2);
    return acc;
}

/* The 2:4 mask of w's pruning: ones in place of the kept values, expanded with the same metadata
 * (ct_sparse24_from_parts), so it is exactly prune's pattern. */
static ct_tensor *mask_of(ct_tensor *w) {
    ct_sparse24 *s, *ones_s;
    ct_tensor *ones, *m;
    TRY(ct_sparse24_prune(ctx, w, CT_FLOAT32, &s));
    const int64_t *shape = ct_sparse24_shape(s), vs[2] = {shape[0], shape[1] / 2};
    TRY(ct_tensor_ones(ctx, CT_FLOAT32, 2, vs, &ones));
    TRY(ct_sparse24_from_parts(ctx, shape[0], shape[1], ones, ct_sparse24_metadata(s), NULL,
                               &ones_s));
    TRY(ct_sparse24_to_dense(ctx, ones_s, CT_FLOAT32, &m));
    ct_tensor_release(ones);
    ct_sparse24_free(s), ct_sparse24_free(ones_s);
    return m;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : CT_SOURCE_DIR "/examples/data/digits.bin";
    static float xtr[N_TRAIN][IN], xte[N_TEST][IN];
    static int64_t ytr[N_TRAIN];
    if (!digits_load(path, xtr, ytr, xte, yte)) return 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    ct_tensor *p[4];
    digits_tensors(ctx, xtr, ytr, xte, &Xtr, &Xte, &Ytr);
    digits_mlp_params(ctx, p);
    printf("training the dense MLP (30 epochs)...\n");
    fflush(stdout);
    train(p, NULL, 30);
    ct_set_grad_enabled(ctx, false);
    ct_tensor *lg = forward(Xte, p, NULL);
    const double dense = accuracy(lg);
    ct_tensor_release(lg);
    const double pruned = sparse_accuracy(p, CT_FLOAT32),
                 pruned8 = sparse_accuracy(p, CT_FLOAT8_E4M3FN);
    printf("dense %.2f%%, 2:4 pruned %.2f%% (E4M3 values %.2f%%)\n", 100 * dense, 100 * pruned,
           100 * pruned8);
    /* fine-tune with the mask fixed */
    ct_tensor *mask[2] = {mask_of(p[0]), mask_of(p[2])};
    ct_set_grad_enabled(ctx, true);
    printf("fine-tuning with the 2:4 mask (10 epochs)...\n");
    fflush(stdout);
    train(p, mask, 10);
    ct_set_grad_enabled(ctx, false);
    ct_tensor *pm[4] = {NULL, p[1], NULL,
                        p[3]}; /* the masked weights: pruned to the mask's pattern */
    TRY(ct_mul(ctx, p[0], mask[0], &pm[0]));
    TRY(ct_mul(ctx, p[2], mask[1], &pm[2]));
    const double tuned = sparse_accuracy(pm, CT_FLOAT32),
                 tuned8 = sparse_accuracy(pm, CT_FLOAT8_E4M3FN);
    ct_tensor_release(pm[0]), ct_tensor_release(pm[2]);
    printf("fine-tuned 2:4 %.2f%% (E4M3 values %.2f%%)\n", 100 * tuned, 100 * tuned8);
    printf("bench sparse digits dense_acc=%.4f pruned_acc=%.4f pruned_e4m3_acc=%.4f "
           "finetuned_acc=%.4f finetuned_e4m3_acc=%.4f\n",
           dense, pruned, pruned8, tuned, tuned8);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(p[i]);
    ct_tensor_release(mask[0]), ct_tensor_release(mask[1]);
    ct_tensor_release(Xtr), ct_tensor_release(Xte), ct_tensor_release(Ytr);
    ct_ctx_free(ctx);
    return tuned >= 0.95 && tuned8 >= 0.95 ? 0 : 1;
}

/* Shared by the digits examples (train_digits.c, sparse_digits.c, dist/ddp_digits.c): the UCI
 * handwritten digits file (examples/data/digits.bin: 1797 records of 64 pixels 0..16 and a label),
 * its fixed split (every 5th image is a test image: 1437 train, 360 test), a status check that
 * exits with the context's message, and torch.nn.Linear's default initialisation. Each example
 * defines `ctx`. */
#ifndef CTORCH_EXAMPLES_DIGITS_COMMON_H
#define CTORCH_EXAMPLES_DIGITS_COMMON_H

#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef CT_SOURCE_DIR
#define CT_SOURCE_DIR "."
#endif
#define N_ALL 1797
#define N_TEST 360
#define N_TRAIN (N_ALL - N_TEST)
#define IN 64
#define HID 128
#define OUT 10
#define BATCH 64

#define TRY(x)                                                                                     \
    do {                                                                                           \
        ct_status st_ = (x);                                                                       \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, ct_ctx_last_error(ctx));    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Read the file at path and split it; pixels scaled to [0, 1]. False (said on stderr) if the file
 * cannot be read whole. */
static inline bool digits_load(const char *path, float (*xtr)[IN], int64_t *ytr, float (*xte)[IN],
                               int64_t *yte) {
    static unsigned char raw[N_ALL][IN + 1];
    FILE *f = fopen(path, "rb");
    if (!f || fread(raw, 1, sizeof raw, f) != sizeof raw) {
        fprintf(stderr, "cannot read %s\n", path);
        if (f) fclose(f);
        return false;
    }
    fclose(f);
    int ntr = 0, nte = 0;
    for (int i = 0; i < N_ALL; i++) {
        float *x = i % 5 == 0 ? xte[nte] : xtr[ntr];
        for (int j = 0; j < IN; j++)
            x[j] = raw[i][j] / 16.0f;
        if (i % 5 == 0)
            yte[nte++] = raw[i][IN];
        else
            ytr[ntr++] = raw[i][IN];
    }
    return true;
}

/* A parameter of shape (nd, shape) drawn from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), requiring grad.
 */
static inline ct_tensor *digits_init_param(ct_ctx *c, int nd, const int64_t *shape, double fan_in,
                                           uint64_t seed) {
    ct_ctx *ctx = c; /* for TRY */
    ct_tensor *u, *a, *p;
    TRY(ct_tensor_rand(ctx, CT_FLOAT32, nd, shape, seed, 0, &u));
    TRY(ct_mul_scalar(ctx, u, 2.0 / sqrt(fan_in), &a));
    TRY(ct_sub_scalar(ctx, a, 1.0 / sqrt(fan_in), &p));
    ct_tensor_release(u), ct_tensor_release(a);
    TRY(ct_tensor_set_requires_grad(p, true));
    return p;
}

/* The split's images and train labels as tensors. */
static inline void digits_tensors(ct_ctx *c, float (*xtr)[IN], const int64_t *ytr, float (*xte)[IN],
                                  ct_tensor **Xtr, ct_tensor **Xte, ct_tensor **Ytr) {
    ct_ctx *ctx = c; /* for TRY */
    int64_t str[2] = {N_TRAIN, IN}, ste[2] = {N_TEST, IN}, sytr[1] = {N_TRAIN};
    TRY(ct_tensor_from_host(ctx, xtr, CT_FLOAT32, 2, str, Xtr));
    TRY(ct_tensor_from_host(ctx, xte, CT_FLOAT32, 2, ste, Xte));
    TRY(ct_tensor_from_host(ctx, ytr, CT_INT64, 1, sytr, Ytr));
}

/* The MLP 64-128-10's parameters w1, b1, w2, b2 (fixed seeds). */
static inline void digits_mlp_params(ct_ctx *c, ct_tensor *p[4]) {
    int64_t w1s[2] = {HID, IN}, b1s[1] = {HID}, w2s[2] = {OUT, HID}, b2s[1] = {OUT};
    p[0] = digits_init_param(c, 2, w1s, IN, 1), p[1] = digits_init_param(c, 1, b1s, IN, 2);
    p[2] = digits_init_param(c, 2, w2s, HID, 3), p[3] = digits_init_param(c, 1, b2s, HID, 4);
}

/* The fraction of the N_TEST rows of logits whose largest entry is the label in yte. */
static inline double digits_accuracy(ct_ctx *c, const ct_tensor *logits, const int64_t *yte) {
    ct_ctx *ctx = c; /* for TRY */
    ct_tensor *pred;
    static int64_t yp[N_TEST];
    TRY(ct_argmax(ctx, logits, 1, false, &pred));
    TRY(ct_tensor_to_host(pred, yp, sizeof yp));
    ct_tensor_release(pred);
    int correct = 0;
    for (int i = 0; i < N_TEST; i++)
        correct += yp[i] == yte[i];
    return (double)correct / N_TEST;
}

/* The MLP's forward pass: linear, relu, linear (logits; the caller releases them). */
static inline ct_tensor *digits_mlp_forward(ct_ctx *c, ct_tensor *x, ct_tensor *const *p) {
    ct_ctx *ctx = c; /* for TRY */
    ct_tensor *h, *r, *o;
    TRY(ct_linear(ctx, x, p[0], p[1], &h));
    TRY(ct_relu(ctx, h, &r));
    TRY(ct_linear(ctx, r, p[2], p[3], &o));
    ct_tensor_release(h), ct_tensor_release(r);
    return o;
}

#endif

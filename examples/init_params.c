/* Initialising and reshaping parameters as torch.nn.init / torch.nn.utils do (ctorch/init.h):
 *  1. the standard schemes on a conv + linear network's weights (Glorot, He, orthogonal, truncated
 *     normal, sparse, identity-like dirac / eye), each printed with its sample statistics next to
 *     the standard deviation the scheme asks for;
 *  2. all parameters as one vector and back (a step along a direction, then undone);
 *  3. weight normalisation and spectral normalisation of a weight (its largest singular value
 *     becomes 1);
 *  4. folding an eval-mode BatchNorm into the convolution / linear layer before it: the fused
 *     layer gives the same output as conv then batch_norm;
 *  5. pruning masks (magnitude, iterative, structured, random, global).
 * Fails (exit 1) if a statistic or an identity is off. */
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
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static ct_ctx *ctx;

/* std and max |x| of t (all elements) */
static int stats(const ct_tensor *t, double *sd, double *mx) {
    ct_tensor *s = NULL, *a = NULL, *m = NULL;
    TRY(ct_std(ctx, t, 0, NULL, 0, false, &s));
    TRY(ct_abs(ctx, t, &a));
    TRY(ct_amax(ctx, a, 0, NULL, false, &m));
    TRY(ct_tensor_item(s, sd));
    TRY(ct_tensor_item(m, mx));
    ct_tensor_release(s), ct_tensor_release(a), ct_tensor_release(m);
    return 0;
}

/* max |a - b| */
static int max_diff(const ct_tensor *a, const ct_tensor *b, double *d) {
    ct_tensor *x = NULL, *y = NULL, *z = NULL;
    TRY(ct_sub(ctx, a, b, &x));
    TRY(ct_abs(ctx, x, &y));
    TRY(ct_amax(ctx, y, 0, NULL, false, &z));
    TRY(ct_tensor_item(z, d));
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z);
    return 0;
}

int main(void) {
    TRY(ct_ctx_create(NULL, &ctx));
    /* ---- 1. the schemes ---- */
    const int64_t conv_shape[4] = {64, 32, 3, 3}, fc_shape[2] = {256, 576};
    ct_tensor *conv = NULL, *fc = NULL, *bias = NULL;
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 4, conv_shape, &conv));
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 2, fc_shape, &fc));
    TRY(ct_tensor_set_requires_grad(conv, true)); /* parameters: filled under no_grad */
    TRY(ct_tensor_set_requires_grad(fc, true));
    int64_t fan_in, fan_out;
    TRY(ct_init_fan_in_and_fan_out(ctx, conv, &fan_in, &fan_out));
    double relu_gain, leaky_gain, slope = 0.2;
    TRY(ct_init_calculate_gain(ctx, "relu", NULL, &relu_gain));
    TRY(ct_init_calculate_gain(ctx, "leaky_relu", &slope, &leaky_gain));
    printf("conv weight 64x32x3x3: fan_in %lld fan_out %lld; gain relu %.4f leaky_relu(0.2) %.4f\n",
           (long long)fan_in, (long long)fan_out, relu_gain, leaky_gain);
    double sd, mx;
#define SHOW(t, label, want)                                                                       \
    do {                                                                                           \
        if (stats(t, &sd, &mx)) return 1;                                                          \
        printf("  %-34s std %.5f (scheme %.5f)  max|w| %.5f\n", label, sd, want, mx);              \
        EXPECT(fabs(sd / (want)-1) < 0.05, "%s: std %g, want %g", label, sd, want);                \
    } while (0)
    TRY(ct_init_kaiming_normal_(ctx, conv, 0, "fan_out", "relu", 1, 0));
    SHOW(conv, "kaiming_normal_ (fan_out, relu)", relu_gain / sqrt((double)fan_out));
    TRY(ct_init_kaiming_uniform_(ctx, conv, sqrt(5.0), NULL, NULL, 2, 0)); /* nn.Conv2d's own */
    SHOW(conv, "kaiming_uniform_ (a=sqrt(5))", sqrt(2.0 / 6.0) / sqrt((double)fan_in));
    TRY(ct_init_xavier_uniform_(ctx, fc, 1.0, 3, 0));
    SHOW(fc, "xavier_uniform_", sqrt(2.0 / (256 + 576)));
    TRY(ct_init_xavier_normal_(ctx, fc, relu_gain, 4, 0));
    SHOW(fc, "xavier_normal_ (gain relu)", relu_gain * sqrt(2.0 / (256 + 576)));
    TRY(ct_init_trunc_normal_(ctx, fc, 0, 0.02, -0.04, 0.04, 5, 0)); /* ViT's */
    SHOW(fc, "trunc_normal_ (0.02, +-2 std)", 0.02 * 0.8796);
    TRY(ct_init_orthogonal_(ctx, fc, 1.0, 6, 0)); /* rows orthonormal: std 1/sqrt(576) */
    SHOW(fc, "orthogonal_", 1 / sqrt(576.0));
    TRY(ct_init_normal_(ctx, fc, 0, 0.01, 7, 0));
    SHOW(fc, "normal_ (0, 0.01)", 0.01);
    TRY(ct_init_uniform_(ctx, fc, -0.1, 0.1, 8, 0));
    SHOW(fc, "uniform_ (-0.1, 0.1)", 0.1 / sqrt(3.0));
    TRY(ct_init_sparse_(ctx, fc, 0.9, 0.01, 9, 0)); /* 231 of 256 rows zero in each column */
    ct_tensor *nz = NULL, *cnt = NULL;
    TRY(ct_ne_scalar(ctx, fc, 0.0, &nz));
    TRY(ct_count_nonzero(ctx, nz, 0, NULL, &cnt));
    double nonzero;
    TRY(ct_tensor_item(cnt, &nonzero));
    printf("  %-34s %.0f nonzeros (576 columns x 25)\n", "sparse_ (0.9)", nonzero);
    EXPECT(nonzero == 576 * 25, "sparse_: %g nonzeros", nonzero);
    TRY(ct_init_dirac_(ctx, conv, 1)); /* conv(x) = the first 32 channels of x */
    TRY(ct_init_eye_(ctx, fc));
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 1, (int64_t[]){256}, &bias));
    TRY(ct_init_zeros_(ctx, bias));
    TRY(ct_init_constant_(ctx, bias, 0.1));
    TRY(ct_init_ones_(ctx, bias));

    /* ---- 2. one vector for all parameters ---- */
    const ct_tensor *params[3] = {conv, fc, bias};
    ct_tensor *vec = NULL, *step = NULL, *moved = NULL, *back = NULL, *dir = NULL;
    TRY(ct_parameters_to_vector(ctx, 3, params, &vec));
    TRY(ct_randn_like(ctx, vec, 10, 0, &dir));
    TRY(ct_mul_scalar(ctx, dir, 1e-3, &step));
    TRY(ct_add(ctx, vec, step, &moved));
    TRY(ct_vector_to_parameters(ctx, moved, 3, (ct_tensor *const *)params));
    TRY(ct_vector_to_parameters(ctx, vec, 3, (ct_tensor *const *)params)); /* undo */
    TRY(ct_parameters_to_vector(ctx, 3, params, &back));
    double d;
    if (max_diff(vec, back, &d)) return 1;
    printf("parameters_to_vector: %lld numbers; moved and restored (max change %g)\n",
           (long long)ct_tensor_numel(vec), d);
    EXPECT(d == 0, "vector_to_parameters did not restore the parameters");

    /* ---- 3. weight norm and spectral norm ---- */
    ct_tensor *w = NULL, *g = NULL, *wn = NULL, *u = NULL, *v = NULL, *sn = NULL, *s2 = NULL;
    TRY(ct_tensor_randn(ctx, CT_FLOAT32, 2, (int64_t[]){16, 24}, 11, 0, &w));
    TRY(ct_norm_except_dim(ctx, w, 2, 0, &g)); /* weight_norm's g: the row norms, (16, 1) */
    TRY(ct_weight_norm(ctx, w, g, 0, &wn));    /* = w at the start */
    if (max_diff(w, wn, &d)) return 1;
    printf("weight_norm(v = w, g = |w| per row) reproduces w: max diff %.2g\n", d);
    EXPECT(d < 1e-5, "weight_norm");
    TRY(ct_spectral_norm_init(ctx, w, 0, 1e-12, 12, 0, &u, &v));
    for (int it = 0; it < 30; it++) { /* 30 training steps: one power iteration each */
        ct_tensor_release(sn), sn = NULL;
        TRY(ct_spectral_norm(ctx, w, u, v, 1, 0, 1e-12, true, &sn));
    }
    TRY(ct_linalg_matrix_norm(ctx, sn, "2", 0, 1, false, &s2));
    double sigma;
    TRY(ct_tensor_item(s2, &sigma));
    printf("spectral_norm after 30 power iterations: largest singular value %.6f\n", sigma);
    EXPECT(fabs(sigma - 1) < 1e-3, "spectral_norm: sigma %g", sigma);

    /* ---- 4. BatchNorm folded into the layer before it ---- */
    const int64_t cs[4] = {8, 3, 3, 3}, xs[4] = {2, 3, 10, 10}, c8 = 8;
    ct_tensor *cw = NULL, *cb = NULL, *rm = NULL, *rv = NULL, *bw = NULL, *bb = NULL, *x = NULL;
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 4, cs, &cw));
    TRY(ct_init_kaiming_uniform_(ctx, cw, sqrt(5.0), NULL, NULL, 13, 0));
    TRY(ct_tensor_rand(ctx, CT_FLOAT32, 1, &c8, 14, 0, &cb));
    TRY(ct_tensor_randn(ctx, CT_FLOAT32, 1, &c8, 15, 0, &rm));
    TRY(ct_tensor_rand(ctx, CT_FLOAT32, 1, &c8, 16, 0, &rv));
    TRY(ct_tensor_randn(ctx, CT_FLOAT32, 1, &c8, 17, 0, &bw));
    TRY(ct_tensor_randn(ctx, CT_FLOAT32, 1, &c8, 18, 0, &bb));
    TRY(ct_tensor_randn(ctx, CT_FLOAT32, 4, xs, 19, 0, &x));
    ct_tensor *y1 = NULL, *y2 = NULL, *fw = NULL, *fb = NULL, *y3 = NULL;
    const int64_t one[2] = {1, 1}, zero[2] = {0, 0};
    TRY(ct_conv2d(ctx, x, cw, cb, one, zero, one, 1, &y1));
    TRY(ct_batch_norm(ctx, y1, rm, rv, bw, bb, false, 0.1, 1e-5, &y2));
    TRY(ct_fuse_conv_bn_weights(ctx, cw, cb, rm, rv, 1e-5, bw, bb, false, &fw, &fb));
    TRY(ct_conv2d(ctx, x, fw, fb, one, zero, one, 1, &y3));
    if (max_diff(y2, y3, &d)) return 1;
    printf("conv2d + batch_norm (eval) vs the fused conv2d: max diff %.2g\n", d);
    EXPECT(d < 1e-4, "fuse_conv_bn_weights");
    ct_tensor *lw = NULL, *lx = NULL, *l1 = NULL, *l2 = NULL, *flw = NULL, *flb = NULL, *l3 = NULL;
    TRY(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){8, 5}, &lw));
    TRY(ct_init_xavier_uniform_(ctx, lw, 1, 20, 0));
    TRY(ct_tensor_randn(ctx, CT_FLOAT32, 2, (int64_t[]){4, 5}, 21, 0, &lx));
    TRY(ct_linear(ctx, lx, lw, cb, &l1));
    TRY(ct_batch_norm(ctx, l1, rm, rv, bw, bb, false, 0.1, 1e-5, &l2));
    TRY(ct_fuse_linear_bn_weights(ctx, lw, cb, rm, rv, 1e-5, bw, bb, &flw, &flb));
    TRY(ct_linear(ctx, lx, flw, flb, &l3));
    if (max_diff(l2, l3, &d)) return 1;
    printf("linear + batch_norm (eval) vs the fused linear: max diff %.2g\n", d);
    EXPECT(d < 1e-4, "fuse_linear_bn_weights");

    /* ---- 5. pruning masks (torch.nn.utils.prune): multiply the weight by its mask ---- */
    ct_tensor *m1 = NULL, *m2 = NULL, *ms = NULL, *mr = NULL, *mu = NULL, *gm[2] = {NULL, NULL};
    TRY(ct_prune_l1_unstructured(ctx, fw, 0.5, false, NULL, NULL, &m1));  /* half, by |w| */
    TRY(ct_prune_l1_unstructured(ctx, fw, 0.5, false, NULL, m1, &m2));    /* half of the rest */
    TRY(ct_prune_ln_structured(ctx, fw, 2, true, 2.0, 0, NULL, &ms));     /* 2 output channels */
    TRY(ct_prune_random_structured(ctx, fw, 0.25, false, 1, 22, 0, &mr)); /* 1 of 3 inputs */
    TRY(ct_prune_random_unstructured(ctx, lw, 10, true, NULL, 23, 0, &mu));
    const ct_tensor *both[2] = {fw, flw};
    TRY(ct_prune_global_unstructured(ctx, 2, both, 0.6, false, NULL, gm));
    const ct_tensor *masks[6] = {m1, m2, ms, mr, mu, gm[0]};
    const char *names[6] = {"l1 50%",
                            "l1 50% of the rest",
                            "L2 structured, 2 of 8 channels",
                            "random structured, 1 of 3 inputs",
                            "random unstructured, 10",
                            "global L1 60% (the conv part)"};
    const double want[6] = {108, 54, 162, 144, 30, -1}; /* -1: checked with its partner */
    double kept_conv = 0;
    for (int i = 0; i < 7; i++) {
        ct_tensor *c = NULL;
        double kept = 0;
        TRY(ct_count_nonzero(ctx, i < 6 ? masks[i] : gm[1], 0, NULL, &c));
        TRY(ct_tensor_item(c, &kept));
        ct_tensor_release(c);
        if (i == 6) { /* global: 40% of all 256 entries kept, round(0.6 * 256) = 154 pruned */
            EXPECT(kept_conv + kept == 102, "global pruning kept %g", kept_conv + kept);
            break;
        }
        printf("prune %-34s keeps %3.0f of %lld\n", names[i], kept,
               (long long)ct_tensor_numel(masks[i]));
        EXPECT(want[i] < 0 || kept == want[i], "prune %s kept %g", names[i], kept);
        kept_conv = kept;
    }
    ct_tensor *pruned = NULL;
    TRY(ct_mul(ctx, fw, m2, &pruned)); /* the pruned conv weight */
    ct_tensor *more[] = {m1, m2, ms, mr, mu, gm[0], gm[1], pruned};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        ct_tensor_release(more[i]);
    ct_tensor *all[] = {conv, fc, bias, nz, cnt, vec, step, moved, back, dir, w,   g,
                        wn,   u,  v,    sn, s2,  cw,  cb,   rm,    rv,   bw,  bb,  x,
                        y1,   y2, fw,   fb, y3,  lw,  lx,   l1,    l2,   flw, flb, l3};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        ct_tensor_release(all[i]);
    ct_ctx_free(ctx);
    printf("init_params: ok\n");
    return 0;
}

/* FlexAttention in C: a user mask function (causal with a local window plus every 16th key, a
 * "strided" pattern) turned into a block mask, ALiBi as the score function, the forward pass,
 * one query row checked by hand, and gradients through autograd. */
#include "ctorch/ctorch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) != CT_OK) {                                                                     \
            fprintf(stderr, "%s failed: %s\n", #call, ct_ctx_last_error(ctx));                     \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Causal; the last 32 keys, and every 16th key before them. */
static bool strided_mask(int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h, (void)user;
    return kv <= q && (q - kv < 32 || kv % 16 == 0);
}

int main(void) {
    ct_ctx *ctx = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    enum { H = 4, L = 512, E = 32 };
    const int64_t shape[4] = {1, H, L, E};
    ct_tensor *q, *k, *v;
    CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 4, shape, 1, 0, &q));
    CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 4, shape, 2, 0, &k));
    CHECK(ct_tensor_randn(ctx, CT_FLOAT32, 4, shape, 3, 0, &v));

    ct_block_mask *mask = NULL; /* one mask for every batch and head (B = H = 1) */
    CHECK(ct_create_block_mask(ctx, strided_mask, NULL, 1, 1, L, L, 64, &mask));
    printf("block mask: %.1f%% of the 64x64 blocks skipped\n", 100 * ct_block_mask_sparsity(mask));

    ct_alibi_params alibi = {H, NULL}; /* slopes 2^(-8 (h + 1) / H) */
    ct_flex_options o = {.size = sizeof o,
                         .score_mod = ct_score_mod_alibi(),
                         .score_user = &alibi,
                         .block_mask = mask,
                         .return_lse = true};
    CHECK(ct_tensor_set_requires_grad(q, true));
    ct_tensor *out = NULL, *lse = NULL;
    CHECK(ct_flex_attention(ctx, q, k, v, &o, &out, &lse));

    /* check row (h = 2, q = 300) by hand: softmax over the allowed keys of the ALiBi scores */
    float *qh = malloc(sizeof(float) * H * L * E), *kh = malloc(sizeof(float) * H * L * E),
          *vh = malloc(sizeof(float) * H * L * E), *oh = malloc(sizeof(float) * H * L * E);
    CHECK(ct_tensor_to_host(q, qh, sizeof(float) * H * L * E));
    CHECK(ct_tensor_to_host(k, kh, sizeof(float) * H * L * E));
    CHECK(ct_tensor_to_host(v, vh, sizeof(float) * H * L * E));
    CHECK(ct_tensor_to_host(out, oh, sizeof(float) * H * L * E));
    const int h = 2, qi = 300;
    const double slope = pow(2.0, -8.0 * (h + 1) / H);
    double w[L], mx = -INFINITY, sum = 0, err = 0;
    for (int j = 0; j < L; j++) {
        double s = 0;
        for (int e = 0; e < E; e++)
            s += (double)qh[(h * L + qi) * E + e] * kh[(h * L + j) * E + e];
        w[j] = strided_mask(0, h, qi, j, NULL) ? s / sqrt(E) + slope * (j - qi) : -INFINITY;
        mx = w[j] > mx ? w[j] : mx;
    }
    for (int j = 0; j < L; j++)
        sum += (w[j] = exp(w[j] - mx));
    for (int e = 0; e < E; e++) {
        double r = 0;
        for (int j = 0; j < L; j++)
            r += w[j] * vh[(h * L + j) * E + e];
        err = fmax(err, fabs(r / sum - oh[(h * L + qi) * E + e]));
    }
    printf("row (h=%d, q=%d) against the direct softmax: max error %.2e\n", h, qi, err);

    /* gradients: loss = sum(out) */
    ct_tensor *loss = NULL;
    CHECK(ct_sum(ctx, out, 0, NULL, false, &loss));
    CHECK(ct_backward(ctx, loss, NULL, false));
    ct_tensor *g = ct_tensor_grad(q), *gn = NULL;
    CHECK(ct_norm(ctx, g, 2.0, 0, NULL, false, &gn));
    float gnorm = 0;
    CHECK(ct_tensor_to_host(gn, &gnorm, sizeof gnorm));
    printf("|d loss / d q| = %.4f\n", gnorm);

    const int ok = err < 1e-5 && isfinite(gnorm) && gnorm > 0;
    free(qh), free(kh), free(vh), free(oh);
    ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v), ct_tensor_release(out);
    ct_tensor_release(lse), ct_tensor_release(loss), ct_tensor_release(gn);
    ct_block_mask_free(mask);
    ct_ctx_free(ctx);
    printf("%s\n", ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}

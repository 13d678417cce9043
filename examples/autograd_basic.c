/* Autograd basics: mark leaves with requires_grad, run ops, call ct_backward, read .grad; then a
 * few SGD steps on a tiny linear regression (the update runs with grad mode off). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

int main(void) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    /* y = sum(x * x + 3 x): dy/dx = 2 x + 3 */
    float xs[3] = {1, 2, 3}, g[3];
    int64_t s3[1] = {3};
    ct_tensor *x, *xx, *x3, *t, *y;
    ct_tensor_from_host(ctx, xs, CT_FLOAT32, 1, s3, &x);
    ct_tensor_set_requires_grad(x, true);
    ct_mul(ctx, x, x, &xx);
    ct_mul_scalar(ctx, x, 3, &x3);
    ct_add(ctx, xx, x3, &t);
    ct_sum(ctx, t, 0, NULL, false, &y);
    if (ct_backward(ctx, y, NULL, false) != CT_OK) {
        printf("backward failed: %s\n", ct_ctx_last_error(ctx));
        return 1;
    }
    ct_tensor_to_host(ct_tensor_grad(x), g, sizeof g);
    printf("dy/dx = %g %g %g (want 5 7 9)\n", g[0], g[1], g[2]);
    int ok = g[0] == 5 && g[1] == 7 && g[2] == 9;
    ct_tensor_release(xx), ct_tensor_release(x3), ct_tensor_release(t), ct_tensor_release(y);
    ct_tensor_release(x);

    /* fit w, b in y = x w^T + b to y = 2 x0 - x1 + 0.5 with mse_loss and plain SGD */
    float in[8] = {0, 1, 1, 0, 1, 1, 2, -1}, tgt[4], w0[2] = {0, 0}, b0[1] = {0};
    for (int i = 0; i < 4; i++)
        tgt[i] = 2 * in[2 * i] - in[2 * i + 1] + 0.5f;
    int64_t s42[2] = {4, 2}, s41[2] = {4, 1}, s12[2] = {1, 2}, s1[1] = {1};
    ct_tensor *X, *Y, *W, *B;
    ct_tensor_from_host(ctx, in, CT_FLOAT32, 2, s42, &X);
    ct_tensor_from_host(ctx, tgt, CT_FLOAT32, 2, s41, &Y);
    ct_tensor_from_host(ctx, w0, CT_FLOAT32, 2, s12, &W);
    ct_tensor_from_host(ctx, b0, CT_FLOAT32, 1, s1, &B);
    ct_tensor_set_requires_grad(W, true);
    ct_tensor_set_requires_grad(B, true);
    double loss = 0;
    for (int step = 0; step < 1000; step++) {
        ct_tensor *P, *L, *u;
        ct_tensor_zero_grad(W), ct_tensor_zero_grad(B);
        ct_linear(ctx, X, W, B, &P);
        ct_mse_loss(ctx, P, Y, CT_REDUCTION_MEAN, &L);
        ct_tensor_item(L, &loss);
        ct_backward(ctx, L, NULL, false);
        bool prev = ct_set_grad_enabled(ctx, false); /* torch.no_grad() */
        ct_mul_scalar(ctx, ct_tensor_grad(W), 0.1, &u), ct_sub_(ctx, W, u), ct_tensor_release(u);
        ct_mul_scalar(ctx, ct_tensor_grad(B), 0.1, &u), ct_sub_(ctx, B, u), ct_tensor_release(u);
        ct_set_grad_enabled(ctx, prev);
        ct_tensor_release(P), ct_tensor_release(L);
    }
    float w[2], b;
    ct_tensor_to_host(W, w, sizeof w);
    ct_tensor_to_host(B, &b, sizeof b);
    printf("fit: w = %.3f %.3f, b = %.3f (want 2 -1 0.5), loss %.2e\n", w[0], w[1], b, loss);
    ok = ok && fabsf(w[0] - 2) < 1e-2f && fabsf(w[1] + 1) < 1e-2f && fabsf(b - 0.5f) < 1e-2f;
    ct_tensor_release(X), ct_tensor_release(Y), ct_tensor_release(W), ct_tensor_release(B);
    ct_ctx_free(ctx);
    return ok ? 0 : 1;
}

/* Quickstart (the README example): tensors, broadcasting, a reduction and an error message. */
#include <ctorch/ctorch.h>
#include <stdio.h>

int main(void) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    float xs[6] = {1, 2, 3, 4, 5, 6}, bs[3] = {10, 20, 30}, out[2];
    int64_t xshape[2] = {2, 3}, bshape[1] = {3};
    ct_tensor *x, *b, *y, *s;
    ct_tensor_from_host(ctx, xs, CT_FLOAT32, 2, xshape, &x);
    ct_tensor_from_host(ctx, bs, CT_FLOAT32, 1, bshape, &b);
    ct_add(ctx, x, b, &y); /* (2,3) + (3,) broadcasts */
    int dim = 1;
    ct_sum(ctx, y, 1, &dim, false, &s); /* row sums: 66, 75 */
    ct_tensor_to_host(s, out, sizeof out);
    printf("row sums: %g %g\n", out[0], out[1]);
    ct_tensor *bad;
    if (ct_matmul(ctx, x, x, &bad) != CT_OK) /* (2,3) @ (2,3) is a shape error */
        printf("error: %s\n", ct_ctx_last_error(ctx));
    ct_tensor_release(x), ct_tensor_release(b), ct_tensor_release(y), ct_tensor_release(s);
    ct_ctx_free(ctx);
    return (out[0] == 66 && out[1] == 75) ? 0 : 1;
}

/* ct_tensor_unfold and ct_tensor_as_strided against torch 1.13 (scripts/gen_strided_ref.py):
 * values and gradients (overlapping windows sum) on contiguous and transposed inputs; that they
 * are views (a write through the input shows); the error paths. */
#include "test_util.h"

#include "data/strided_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define SAME(what, t, R, tol) tu_same_as(what, t, R, R##_nd, R##_shape, tol)

static void back(ct_tensor *y) { tu_backward_sin(ctx, y); }

static void unf(const char *what, ct_tensor *x, ct_tensor *src, int d, int64_t sz, int64_t stp,
                const double *ry, int ny, const int64_t *sy, const double *rg, int ng,
                const int64_t *sg) {
    ct_tensor *y = NULL;
    ct_tensor_zero_grad(x);
    CHECK_OK(ct_tensor_unfold(ctx, src, d, sz, stp, &y));
    tu_same_as(what, y, ry, ny, sy, 0);
    if (y) back(y);
    tu_same_as(what, ct_tensor_grad(x), rg, ng, sg, 1e-14);
    ct_tensor_release(y);
}
#define UNF(N, SRC, D, SZ, ST)                                                                     \
    unf(#N, x, SRC, D, SZ, ST, N##_y, N##_y_nd, N##_y_shape, N##_g, N##_g_nd, N##_g_shape)

TEST(unfold_as_torch) {
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, xin_nd, xin_shape, xin), *xt = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    UNF(u1, x, 1, 3, 2);
    UNF(u2, x, 1, 4, 1);
    UNF(u3, x, 0, 2, 1);
    UNF(u4, x, -1, 1, 1);
    UNF(u5, x, 1, 7, 3);
    CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &xt));
    UNF(ut, xt, 2, 2, 1);
    /* a view: a write into x shows through */
    ct_tensor *d = NULL, *y = NULL;
    CHECK_OK(ct_tensor_detach(ctx, x, &d));
    CHECK_OK(ct_tensor_unfold(ctx, d, 1, 3, 2, &y));
    CHECK_OK(ct_tensor_fill_(ctx, d, 7));
    double *v = tu_read(y);
    CHECK(v && v[0] == 7 && v[ct_tensor_numel(y) - 1] == 7);
    free(v), ct_tensor_release(y), y = NULL;
    /* an expanded (self-overlapping) input: torch's 6 for x = [1.5].expand(4).unfold(0, 2, 1) */
    ct_tensor *one = tu_from_vals(ctx, CT_FLOAT64, 1, SH(1), (const double[]){1.5}), *ex = NULL,
              *s = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(one, true));
    CHECK_OK(ct_tensor_expand(ctx, one, 1, SH(4), &ex));
    CHECK_OK(ct_tensor_unfold(ctx, ex, 0, 2, 1, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    double *g1 = tu_read(ct_tensor_grad(one));
    CHECK_MSG(g1 && g1[0] == 6, "unfold of an expanded input: gradient %g, torch 6",
              g1 ? g1[0] : NAN);
    free(g1), ct_tensor_release(y), ct_tensor_release(s), ct_tensor_release(ex);
    ct_tensor_release(one), y = NULL;
    /* a 0-d input gives (size) */
    ct_tensor *z = tu_from_vals(ctx, CT_FLOAT64, 0, NULL, (const double[]){2.0});
    CHECK_OK(ct_tensor_unfold(ctx, z, 0, 1, 1, &y));
    CHECK(tu_same_shape(y, 1, SH(1)));
    ct_tensor_release(y), ct_tensor_release(z), y = NULL;
    CHECK_ST(ct_tensor_unfold(ctx, x, 1, 8, 1, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_unfold(ctx, x, 1, 2, 0, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_unfold(ctx, x, 3, 2, 1, &y), CT_ERR_INDEX);
    CHECK(y == NULL);
    ct_tensor_release(x), ct_tensor_release(xt), ct_tensor_release(d);
}

TEST(as_strided_as_torch) {
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, mat_nd, mat_shape, mat), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_tensor_as_strided(ctx, x, 2, SH(3, 3), SH(1, 1), 2, &y));
    SAME("as_strided", y, as1_y, 0);
    if (y) back(y);
    SAME("as_strided grad", ct_tensor_grad(x), as1_g, 1e-14);
    ct_tensor_release(y);
    ct_tensor_zero_grad(x);
    CHECK_OK(ct_tensor_as_strided(ctx, x, 3, SH(2, 2, 3), SH(8, 1, 5), 0, &y));
    SAME("as_strided 3-d", y, as2_y, 0);
    if (y) back(y);
    SAME("as_strided 3-d grad", ct_tensor_grad(x), as2_g, 1e-14);
    ct_tensor_release(y), y = NULL;
    CHECK_ST(ct_tensor_as_strided(ctx, x, 2, SH(3, 3), SH(10, 1), 0, &y), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_as_strided(ctx, x, 1, SH(3), SH(-1), 5, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_as_strided(ctx, x, 1, SH(3), SH(1), -1, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_as_strided(ctx, x, 1, NULL, SH(1), 0, &y), CT_ERR_INVALID_ARG);
    CHECK(y == NULL);
    ct_tensor_release(x);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(unfold_as_torch);
    RUN(as_strided_as_torch);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

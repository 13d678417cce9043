/* ct_interpolate / ct_interpolate_scale of 5-d inputs (nearest, nearest-exact, trilinear with and
 * without align_corners) and mode 'area' (1-d, 2-d, 3-d) against torch 1.13's values and gradients
 * (scripts/gen_interp3d_ref.py); nearest bit for bit. */
#include "test_util.h"

#include "data/interp3d_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})

static void back(ct_tensor *y) { tu_backward_sin(ctx, y); }
static void check(const char *what, ct_tensor *in, ct_status st, ct_tensor *y, const double *ry,
                  int ny, const int64_t *sy, const double *rg, int ng, const int64_t *sg,
                  double tol) {
    CHECK_MSG(st == CT_OK, "%s: %s", what, ct_ctx_last_error(ctx));
    ct_tensor_zero_grad(in);
    tu_same_as(what, y, ry, ny, sy, tol);
    if (y) back(y);
    tu_same_as(what, ct_tensor_grad(in), rg, ng, sg, tol ? tol : 1e-15);
    ct_tensor_release(y);
}
#define CK(N, IN, CALL, TOL)                                                                       \
    do {                                                                                           \
        ct_tensor *y_ = NULL;                                                                      \
        ct_status st_ = CALL;                                                                      \
        check(#N, IN, st_, y_, N##_y, N##_y_nd, N##_y_shape, N##_g, N##_g_nd, N##_g_shape, TOL);   \
    } while (0)

TEST(volumes_as_torch) {
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, xin_nd, xin_shape, xin);
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CK(n1, x, ct_interpolate(ctx, x, 3, SH(5, 3, 7), CT_INTERP_NEAREST, false, &y_), 0);
    CK(n2, x, ct_interpolate(ctx, x, 3, SH(6, 8, 2), CT_INTERP_NEAREST_EXACT, false, &y_), 0);
    CK(t1, x, ct_interpolate(ctx, x, 3, SH(5, 7, 3), CT_INTERP_LINEAR, false, &y_), 1e-15);
    CK(t2, x, ct_interpolate(ctx, x, 3, SH(4, 6, 9), CT_INTERP_LINEAR, true, &y_), 1e-15);
    CK(s1, x,
       ct_interpolate_scale(ctx, x, 3, (const double[]){1.5, 0.75, 2.0}, CT_INTERP_LINEAR, false,
                            false, &y_),
       1e-15);
    CK(a3, x, ct_interpolate(ctx, x, 3, SH(2, 3, 3), CT_INTERP_AREA, false, &y_), 1e-15);
    ct_tensor *y = NULL, *xc = tu_from_vals(ctx, CT_FLOAT64, xcv_nd, xcv_shape, xcv);
    CHECK_OK(ct_interpolate_scale(ctx, xc, 3, (const double[]){1.1, 1.3, 1.7}, CT_INTERP_NEAREST,
                                  false, false, &y));
    tu_same_as("nearest one channel (channels_last_3d)", y, nc_y, nc_y_nd, nc_y_shape, 0);
    ct_tensor_release(y), y = NULL;
    CHECK_OK(ct_interpolate(ctx, xc, 3, SH(8, 5, 4), CT_INTERP_NEAREST, false, &y));
    tu_same_as("nearest one channel by size", y, nc2_y, nc2_y_nd, nc2_y_shape, 0);
    ct_tensor_release(y), y = NULL;
    ct_tensor_release(xc);
    CHECK_ST(ct_interpolate(ctx, x, 3, SH(2, 3, (int64_t)1 << 40), CT_INTERP_NEAREST, false, &y),
             CT_ERR_SHAPE); /* an output size beyond 2^31 - 1 */
    CHECK_ST(ct_interpolate(ctx, x, 3, SH(2, 3, 3), CT_INTERP_AREA, true, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_interpolate(ctx, x, 2, SH(2, 3), CT_INTERP_LINEAR, false, &y), CT_ERR_SHAPE);
    CHECK(y == NULL);
    ct_tensor_release(x);
}

TEST(area_as_torch) {
    ct_tensor *t2 = tu_from_vals(ctx, CT_FLOAT64, x2_nd, x2_shape, x2),
              *t1 = tu_from_vals(ctx, CT_FLOAT64, x1_nd, x1_shape, x1);
    CHECK_OK(ct_tensor_set_requires_grad(t2, true));
    CHECK_OK(ct_tensor_set_requires_grad(t1, true));
    CK(a2, t2, ct_interpolate(ctx, t2, 2, SH(3, 4), CT_INTERP_AREA, false, &y_), 1e-15);
    CK(a1, t1, ct_interpolate(ctx, t1, 1, SH(4), CT_INTERP_AREA, false, &y_), 1e-15);
    ct_tensor_release(t2), ct_tensor_release(t1);
}

TEST(bicubic_as_torch) {
    ct_tensor *xt = tu_from_vals(ctx, CT_FLOAT64, xb_nd, xb_shape, xb), *xf = NULL, *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(xt, true));
    CK(b1, xt, ct_interpolate(ctx, xt, 2, SH(9, 11), CT_INTERP_BICUBIC, false, &y_), 1e-14);
    CK(b2, xt, ct_interpolate(ctx, xt, 2, SH(3, 4), CT_INTERP_BICUBIC, true, &y_), 1e-14);
    CK(b3, xt,
       ct_interpolate_scale(ctx, xt, 2, (const double[]){1.7, 0.6}, CT_INTERP_BICUBIC, false, false,
                            &y_),
       1e-14);
    CK(b4, xt, ct_interpolate(ctx, xt, 2, SH(7, 2), CT_INTERP_BICUBIC, false, &y_), 1e-14);
    CHECK_OK(ct_cast(ctx, xt, CT_FLOAT32, &xf));
    CHECK_OK(ct_interpolate(ctx, xf, 2, SH(9, 11), CT_INTERP_BICUBIC, false, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    tu_same_as("bicubic float32", y, b1f_y, b1f_y_nd, b1f_y_shape, 1e-5);
    ct_tensor_release(y), y = NULL;
    ct_tensor *v = NULL;
    CHECK_OK(ct_tensor_unsqueeze(ctx, xt, 2, &v));
    CHECK_ST(ct_interpolate(ctx, v, 3, SH(2, 3, 3), CT_INTERP_BICUBIC, false, &y), CT_ERR_SHAPE);
    CHECK(y == NULL);
    ct_tensor_release(xt), ct_tensor_release(xf), ct_tensor_release(v);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(volumes_as_torch);
    RUN(area_as_torch);
    RUN(bicubic_as_torch);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* conv3d, conv_transpose3d, max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d and
 * max_unpool3d against torch 1.13's values, indices and gradients (scripts/gen_nn3d_ref.py: groups,
 * stride, padding, dilation, output_padding, ceil_mode, ties, NaN, -inf, count_include_pad,
 * divisor_override, int64), conv3d against a naive loop, float32, and the error paths. */
#include "test_util.h"

#include "data/nn3d_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define T(R) tab(R, R##_nd, R##_shape, false)
#define TG(R) tab(R, R##_nd, R##_shape, true)
#define SAME(what, t, R, tol) tu_same_as(what, t, R, R##_nd, R##_shape, tol)
#define GRAD(what, t, R) tu_same_as(what, ct_tensor_grad(t), R, R##_nd, R##_shape, 1e-12)

static ct_tensor *tab(const double *v, int nd, const int64_t *shape, bool rg) {
    ct_tensor *t = tu_from_vals(ctx, CT_FLOAT64, nd, shape, v);
    if (rg && t) CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
static void back(ct_tensor *y) { tu_backward_sin(ctx, y); }

TEST(conv3d_as_torch) {
    ct_tensor *x = TG(c3_x), *w = TG(c3_w), *b = TG(c3_b), *y = NULL;
    CHECK_OK(ct_conv3d(ctx, x, w, b, SH(2, 1, 2), SH(1, 0, 1), SH(1, 2, 1), 2, &y));
    SAME("conv3d", y, c3_y, 1e-13);
    back(y);
    GRAD("conv3d dx", x, c3_g0);
    GRAD("conv3d dw", w, c3_g1);
    GRAD("conv3d db", b, c3_g2);
    /* naive: every output as its sum */
    double *xv = tu_read(x), *wv = tu_read(w), *bv = tu_read(b), *yv = y ? tu_read(y) : NULL;
    const int64_t *ys = y ? ct_tensor_shape(y) : SH(0, 0, 0, 0, 0);
    int bad = 0;
    for (int64_t n = 0; yv && n < 2; n++)
        for (int64_t o = 0; o < 6; o++)
            for (int64_t od = 0; od < ys[2]; od++)
                for (int64_t oh = 0; oh < ys[3]; oh++)
                    for (int64_t ow = 0; ow < ys[4]; ow++) {
                        double s = bv[o];
                        const int64_t g = o / 3;
                        for (int64_t c = 0; c < 2; c++)
                            for (int64_t kd = 0; kd < 3; kd++)
                                for (int64_t kh = 0; kh < 2; kh++)
                                    for (int64_t kw = 0; kw < 3; kw++) {
                                        const int64_t id = od * 2 - 1 + kd, ih = oh + kh * 2,
                                                      iw = ow * 2 - 1 + kw;
                                        if (id < 0 || id >= 5 || ih >= 6 || iw < 0 || iw >= 7)
                                            continue;
                                        s +=
                                            xv[(((n * 4 + g * 2 + c) * 5 + id) * 6 + ih) * 7 + iw] *
                                            wv[(((o * 2 + c) * 3 + kd) * 2 + kh) * 3 + kw];
                                    }
                        const double got =
                            yv[(((n * 6 + o) * ys[2] + od) * ys[3] + oh) * ys[4] + ow];
                        if (fabs(got - s) > 1e-12 * (1 + fabs(s)) && bad++ < 3)
                            CHECK_MSG(0, "naive conv3d %g vs %g", got, s);
                    }
    free(xv), free(wv), free(bv), free(yv);
    ct_tensor_release(y), ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b);
    /* unbatched, no bias */
    ct_tensor *xu = TG(c3u_x), *wu = TG(c3u_w);
    CHECK_OK(ct_conv3d(ctx, xu, wu, NULL, SH(1, 1, 1), SH(1, 1, 1), SH(1, 1, 1), 1, &y));
    SAME("conv3d unbatched", y, c3u_y, 1e-13);
    back(y);
    GRAD("conv3d unbatched dx", xu, c3u_g0);
    GRAD("conv3d unbatched dw", wu, c3u_g1);
    ct_tensor_release(y), ct_tensor_release(xu), ct_tensor_release(wu);
}

TEST(conv_transpose3d_as_torch) {
    ct_tensor *x = TG(ct3_x), *w = TG(ct3_w), *b = TG(ct3_b), *y = NULL;
    CHECK_OK(ct_conv_transpose3d(ctx, x, w, b, SH(2, 1, 2), SH(1, 0, 1), SH(1, 0, 1), 2,
                                 SH(1, 2, 1), &y));
    SAME("conv_transpose3d", y, ct3_y, 1e-13);
    back(y);
    GRAD("conv_transpose3d dx", x, ct3_g0);
    GRAD("conv_transpose3d dw", w, ct3_g1);
    GRAD("conv_transpose3d db", b, ct3_g2);
    ct_tensor_release(y), ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b);
    /* output_padding at least the stride but below the dilation, 3-d and 2-d */
    ct_tensor *xb = TG(ct3b_x), *wb = TG(ct3b_w), *x2 = T(ct2b_x), *w2 = T(ct2b_w);
    CHECK_OK(ct_conv_transpose3d(ctx, xb, wb, NULL, SH(3, 1, 3), SH(0, 1, 2), SH(1, 1, 0), 1,
                                 SH(2, 2, 1), &y));
    SAME("conv_transpose3d output_padding >= stride", y, ct3b_y, 1e-13);
    back(y);
    GRAD("conv_transpose3d output_padding dx", xb, ct3b_g0);
    GRAD("conv_transpose3d output_padding dw", wb, ct3b_g1);
    ct_tensor_release(y);
    CHECK_OK(ct_conv_transpose2d(ctx, x2, w2, NULL, SH(1, 1), SH(0, 0), SH(1, 1), 1, SH(2, 2), &y));
    SAME("conv_transpose2d output_padding >= stride", y, ct2b_y, 1e-13);
    ct_tensor_release(y), ct_tensor_release(xb), ct_tensor_release(wb), ct_tensor_release(x2);
    ct_tensor_release(w2);
}

TEST(max_pools_as_torch) {
    ct_tensor *x = TG(mp_x), *y = NULL, *i = NULL;
    CHECK_OK(
        ct_max_pool3d(ctx, x, SH(3, 2, 3), SH(2, 2, 1), SH(1, 1, 0), SH(1, 1, 2), true, &y, &i));
    SAME("max_pool3d", y, mp_y, 0);
    SAME("max_pool3d indices", i, mp_i, 0);
    back(y);
    GRAD("max_pool3d dx", x, mp_g0);
    ct_tensor_release(y), ct_tensor_release(i);
    ct_tensor_zero_grad(x);
    CHECK_OK(ct_max_pool3d(ctx, x, SH(2, 2, 2), NULL, NULL, NULL, false, &y, &i));
    SAME("max_pool3d 2", y, mp2_y, 0);
    SAME("max_pool3d 2 indices", i, mp2_i, 0);
    ct_tensor *u = NULL, *r = NULL, *xp = NULL, *y3 = NULL, *i3 = NULL;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 16, 1, &r));
    CHECK_OK(ct_tensor_reshape(ctx, r, 5, SH(1, 1, 1, 4, 4), &xp));
    CHECK_OK(
        ct_max_pool3d(ctx, xp, SH(2, 4, 1), SH(3, 3, 1), SH(1, 1, 0), SH(2, 2, 2), true, &y3, &i3));
    SAME("max_pool3d padding-only windows", y3, mp3_y, 0);
    SAME("max_pool3d padding-only indices", i3, mp3_i, 0);
    ct_tensor_release(r), ct_tensor_release(xp), ct_tensor_release(y3), ct_tensor_release(i3);
    CHECK_OK(ct_max_unpool3d(ctx, y, i, SH(2, 2, 2), NULL, NULL, SH(5, 7, 5), &u));
    SAME("max_unpool3d", u, mu_y, 0);
    ct_tensor_release(y), ct_tensor_release(i), ct_tensor_release(u);
    CHECK_OK(ct_adaptive_max_pool3d(ctx, x, SH(2, 4, 3), &y, &i));
    SAME("adaptive_max_pool3d", y, amp_y, 0);
    SAME("adaptive_max_pool3d indices", i, amp_i, 0);
    back(y);
    GRAD("adaptive_max_pool3d dx", x, amp_g0);
    ct_tensor_release(y), ct_tensor_release(i), ct_tensor_release(x);
}

TEST(avg_pools_as_torch) {
    ct_tensor *a = TG(ap_x), *y = NULL;
    CHECK_OK(ct_avg_pool3d(ctx, a, SH(3, 2, 3), SH(2, 2, 2), SH(1, 1, 1), true, false, 0, &y));
    SAME("avg_pool3d", y, ap1_y, 1e-14);
    back(y);
    GRAD("avg_pool3d dx", a, ap1_g0);
    ct_tensor_release(y);
    CHECK_OK(ct_avg_pool3d(ctx, a, SH(3, 2, 3), SH(2, 2, 2), SH(1, 1, 1), true, true, 0, &y));
    SAME("avg_pool3d count_include_pad", y, ap2_y, 1e-14);
    ct_tensor_release(y);
    CHECK_OK(ct_avg_pool3d(ctx, a, SH(2, 2, 2), NULL, NULL, false, true, 3, &y));
    SAME("avg_pool3d divisor_override", y, ap3_y, 1e-14);
    ct_tensor_release(y);
    ct_tensor *ai = NULL, *aif = T(api_x);
    CHECK_OK(ct_cast(ctx, aif, CT_INT64, &ai));
    CHECK_OK(ct_avg_pool3d(ctx, ai, SH(3, 3, 3), SH(2, 2, 2), SH(1, 1, 1), false, true, 0, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_INT64);
    SAME("avg_pool3d int64", y, api_y, 0);
    ct_tensor_release(y), ct_tensor_release(ai), ct_tensor_release(aif);
    ct_tensor_zero_grad(a);
    CHECK_OK(ct_adaptive_avg_pool3d(ctx, a, SH(3, 4, 2), &y));
    SAME("adaptive_avg_pool3d", y, aap_y, 1e-14);
    back(y);
    GRAD("adaptive_avg_pool3d dx", a, aap_g0);
    ct_tensor_release(y), ct_tensor_release(a);
}

/* float32 in, float32 out, close to the float64 result */
TEST(float32_and_errors) {
    ct_tensor *x = T(c3_x), *w = T(c3_w), *xf = NULL, *wf = NULL, *y = NULL, *yf = NULL, *i = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_FLOAT32, &xf));
    CHECK_OK(ct_cast(ctx, w, CT_FLOAT32, &wf));
    CHECK_OK(ct_conv3d(ctx, xf, wf, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 2, &yf));
    CHECK_OK(ct_conv3d(ctx, x, w, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 2, &y));
    CHECK(yf && ct_tensor_dtype(yf) == CT_FLOAT32);
    if (y && yf) {
        double *a = tu_read(y), *b = tu_read(yf);
        for (int64_t k = 0; a && b && k < ct_tensor_numel(y); k++)
            if (fabs(a[k] - b[k]) > 1e-4 * (1 + fabs(a[k]))) {
                CHECK_MSG(0, "float32 conv3d [%lld] %g vs %g", (long long)k, b[k], a[k]);
                break;
            }
        free(a), free(b);
    }
    ct_tensor_release(y), ct_tensor_release(yf), y = yf = NULL;
    CHECK_ST(ct_conv3d(ctx, x, w, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 3, &y),
             CT_ERR_SHAPE); /* groups */
    CHECK_ST(ct_conv3d(ctx, x, w, NULL, SH(0, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 2, &y),
             CT_ERR_INVALID_ARG); /* stride 0 */
    CHECK_ST(ct_conv3d(ctx, w, w, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 2, &y),
             CT_ERR_SHAPE);
    CHECK_ST(ct_max_pool3d(ctx, x, SH(2, 2, 2), NULL, SH(2, 0, 0), NULL, false, &y, &i),
             CT_ERR_INVALID_ARG); /* pad > kernel / 2 */
    CHECK(strstr(ct_ctx_last_error(ctx), "at most half") != NULL);
    CHECK_ST(ct_max_pool3d(ctx, x, SH(9, 2, 2), NULL, NULL, NULL, false, &y, &i), CT_ERR_SHAPE);
    /* a stride with some zeros (torch: "stride should not be zero"); all zero is the kernel */
    CHECK_ST(ct_avg_pool3d(ctx, x, SH(2, 2, 2), SH(1, 0, 1), NULL, false, true, 0, &y),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "should not be zero") != NULL);
    CHECK_ST(ct_max_pool3d(ctx, x, SH(2, 2, 2), SH(0, 0, 2), NULL, NULL, false, &y, &i),
             CT_ERR_INVALID_ARG);
    ct_tensor *ya = NULL, *yb = NULL;
    CHECK_OK(ct_avg_pool3d(ctx, x, SH(2, 2, 2), SH(0, 0, 0), NULL, false, true, 0, &ya));
    CHECK_OK(ct_avg_pool3d(ctx, x, SH(2, 2, 2), NULL, NULL, false, true, 0, &yb));
    CHECK(ya && yb && tu_same_values(ya, yb));
    ct_tensor_release(ya), ct_tensor_release(yb), ya = yb = NULL;
    /* a negative divisor_override divides (torch): the negated result of its absolute value */
    CHECK_OK(ct_avg_pool3d(ctx, x, SH(2, 2, 2), NULL, NULL, false, true, -4, &ya));
    CHECK_OK(ct_avg_pool3d(ctx, x, SH(2, 2, 2), NULL, NULL, false, true, 4, &yb));
    ct_tensor *nb = NULL;
    CHECK_OK(ct_neg(ctx, yb, &nb));
    CHECK(ya && nb && tu_same_values(ya, nb));
    ct_tensor_release(ya), ct_tensor_release(yb), ct_tensor_release(nb);
    CHECK_ST(ct_adaptive_avg_pool3d(ctx, x, SH(2, -1, 2), &y), CT_ERR_INVALID_ARG);
    /* a zero output size: an empty result (torch), for the adaptive pools and area interpolation */
    for (int k = 0; k < 3; k++) {
        ct_tensor *e = NULL, *ei = NULL;
        CHECK_OK(k == 0   ? ct_adaptive_avg_pool3d(ctx, x, SH(1, 0, 1), &e)
                 : k == 1 ? ct_adaptive_max_pool3d(ctx, x, SH(1, 0, 1), &e, &ei)
                          : ct_interpolate(ctx, x, 3, SH(1, 0, 1), CT_INTERP_AREA, false, &e));
        CHECK(e && ct_tensor_numel(e) == 0 && ct_tensor_ndim(e) == ct_tensor_ndim(x) &&
              ct_tensor_shape(e)[ct_tensor_ndim(e) - 2] == 0);
        CHECK(k != 1 || (ei && ct_tensor_numel(ei) == 0 && ct_tensor_dtype(ei) == CT_INT64));
        ct_tensor_release(e), ct_tensor_release(ei);
    }
    CHECK_ST(ct_avg_pool3d(ctx, x, SH(2, 4, 8), NULL, SH(0, 0, 4), false, true, 0, &y),
             CT_ERR_SHAPE); /* 7 < 8: torch's "smaller than kernel size" */
    ct_tensor *w0 = NULL, *e = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 5, SH(6, 2, 0, 2, 3), &w0));
    CHECK_ST(ct_conv3d(ctx, x, w0, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 2, &y),
             CT_ERR_SHAPE); /* kernel depth 0 */
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 5, SH(2, 4, 0, 6, 7), &e));
    CHECK_ST(ct_conv3d(ctx, e, w, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 1, 1), 2, &y),
             CT_ERR_SHAPE);
    CHECK_ST(ct_adaptive_max_pool3d(ctx, e, SH(1, 1, 1), &y, &i), CT_ERR_SHAPE);
    ct_tensor_release(w0), ct_tensor_release(e);
    ct_tensor *xi = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_INT64, &xi));
    CHECK_ST(ct_max_pool3d(ctx, xi, SH(2, 2, 2), NULL, NULL, NULL, false, &y, &i), CT_ERR_DTYPE);
    CHECK_ST(ct_conv_transpose3d(ctx, x, w, NULL, SH(1, 1, 1), SH(0, 0, 0), SH(1, 0, 0), 1,
                                 SH(1, 1, 1), &y),
             CT_ERR_INVALID_ARG); /* output_padding >= stride and dilation */
    CHECK(y == NULL && i == NULL);
    ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(xf), ct_tensor_release(wf);
    ct_tensor_release(xi);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(conv3d_as_torch);
    RUN(conv_transpose3d_as_torch);
    RUN(max_pools_as_torch);
    RUN(avg_pools_as_torch);
    RUN(float32_and_errors);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

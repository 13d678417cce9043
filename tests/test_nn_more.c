/* conv_transpose1d / 2d, the 1-d pools, adaptive max pooling, max_unpool, lp_pool, instance_norm,
 * local_response_norm, bilinear, channel_shuffle, the RNN cells and the multi_margin /
 * multilabel_margin losses against torch 1.13's values and gradients
 * (scripts/gen_nn_more_ref.py), an independent naive conv_transpose2d (scatter of each input
 * element through the kernel), gradients against central differences and the error paths. */
#include "test_util.h"

#include "data/nn_more_ref.h"

static ct_ctx *ctx;
static unsigned long long rng = 99;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define T(R) tab(R, R##_nd, R##_shape, false)
#define TG(R) tab(R, R##_nd, R##_shape, true)

static ct_tensor *tab(const double *v, int nd, const int64_t *shape, bool rg) {
    ct_tensor *t = tu_from_vals(ctx, CT_FLOAT64, nd, shape, v);
    if (rg && t) CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
static void same_as(const char *what, const ct_tensor *t, const double *ref, int nd,
                    const int64_t *shape, double tol) {
    tu_same_as(what, t, ref, nd, shape, tol);
}
#define SAME(what, t, R, tol) same_as(what, t, R, R##_nd, R##_shape, tol)
/* backward of sum(sin(i) * y) (torch's weights) */
static void back(ct_tensor *y) { tu_backward_sin(ctx, y); }
#define GRAD(what, t, R) same_as(what, ct_tensor_grad(t), R, R##_nd, R##_shape, 1e-12)
static void rel(int n, ct_tensor **ts) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(ts[i]);
        ts[i] = NULL;
    }
}

TEST(conv_transpose_as_torch) {
    ct_tensor *x = TG(ct2_x), *w = TG(ct2_w), *b = TG(ct2_b), *y = NULL;
    CHECK_OK(ct_conv_transpose2d(ctx, x, w, b, SH(2, 1), SH(1, 0), SH(1, 0), 2, SH(1, 2), &y));
    SAME("conv_transpose2d", y, ct2_y, 1e-13);
    if (y) back(y);
    GRAD("conv_transpose2d dx", x, ct2_g0);
    GRAD("conv_transpose2d dw", w, ct2_g1);
    GRAD("conv_transpose2d db", b, ct2_g2);
    ct_tensor_release(y);
    /* naive: every input element scattered through the kernel */
    double *xv = tu_read(x), *wv = tu_read(w), *bv = tu_read(b);
    CHECK_OK(ct_conv_transpose2d(ctx, x, w, b, SH(2, 1), SH(1, 0), SH(1, 0), 2, SH(1, 2), &y));
    double *yv = y ? tu_read(y) : NULL;
    const int64_t OH = 6, OW = 5; /* (3-1)*2-2+2+1+1, (3-1)*1+2*1+1 */
    CHECK(tu_same_shape(y, 4, SH(2, 6, OH, OW)));
    double *ref = calloc(2 * 6 * OH * OW, sizeof(double));
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 4; c++)
            for (int ih = 0; ih < 3; ih++)
                for (int iw = 0; iw < 3; iw++)
                    for (int og = 0; og < 3; og++)
                        for (int kh = 0; kh < 3; kh++)
                            for (int kw = 0; kw < 2; kw++) {
                                const int g = c / 2, o = g * 3 + og;
                                const int64_t oh = ih * 2 - 1 + kh, ow = iw * 1 - 0 + kw * 2;
                                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                                ref[((n * 6 + o) * OH + oh) * OW + ow] +=
                                    xv[((n * 4 + c) * 3 + ih) * 3 + iw] *
                                    wv[((c * 3 + og) * 3 + kh) * 2 + kw];
                            }
    for (int i = 0; yv && i < 2 * 6 * OH * OW; i++) {
        const double want = ref[i] + bv[(i / (OH * OW)) % 6];
        CHECK_MSG(fabs(yv[i] - want) <= 1e-12 * (1 + fabs(want)), "naive[%d] %g vs %g", i, yv[i],
                  want);
    }
    free(xv), free(wv), free(bv), free(yv), free(ref), ct_tensor_release(y);
    /* unbatched */
    ct_tensor *x0 = NULL;
    CHECK_OK(ct_select(ctx, x, 0, 1, &x0));
    CHECK_OK(ct_conv_transpose2d(ctx, x0, w, NULL, SH(1, 1), SH(0, 0), SH(0, 0), 2, SH(1, 1), &y));
    CHECK(tu_same_shape(y, 3, SH(6, 5, 4)));
    ct_tensor_release(y), ct_tensor_release(x0);
    /* errors as torch */
    CHECK_ST(ct_conv_transpose2d(ctx, x, w, b, SH(1, 1), SH(0, 0), SH(1, 0), 2, SH(1, 1), &y),
             CT_ERR_INVALID_ARG); /* output_padding >= stride and dilation */
    CHECK_ST(ct_conv_transpose2d(ctx, x, w, b, SH(1, 1), SH(0, 0), SH(0, 0), 3, SH(1, 1), &y),
             CT_ERR_SHAPE);
    CHECK_ST(ct_conv_transpose2d(ctx, x, w, NULL, SH(1, 1), SH(5, 5), SH(0, 0), 2, SH(1, 1), &y),
             CT_ERR_SHAPE); /* no output left */
    ct_tensor *b5 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(5), &b5));
    CHECK_ST(ct_conv_transpose2d(ctx, x, w, b5, SH(1, 1), SH(0, 0), SH(0, 0), 2, SH(1, 1), &y),
             CT_ERR_SHAPE);
    ct_tensor_release(b5), ct_tensor_release(x), ct_tensor_release(w), ct_tensor_release(b);
    /* 1-d */
    ct_tensor *x1 = TG(ct1_x), *w1 = TG(ct1_w);
    CHECK_OK(ct_conv_transpose1d(ctx, x1, w1, NULL, 2, 1, 1, 1, 1, &y));
    SAME("conv_transpose1d", y, ct1_y, 1e-13);
    if (y) back(y);
    GRAD("conv_transpose1d dx", x1, ct1_g0);
    GRAD("conv_transpose1d dw", w1, ct1_g1);
    ct_tensor_release(y), ct_tensor_release(x1), ct_tensor_release(w1);
}

TEST(pools_as_torch) {
    ct_tensor *p = TG(p1_x), *y = NULL, *i = NULL;
    CHECK_OK(ct_max_pool1d(ctx, p, 3, 2, 1, 1, true, &y, &i));
    SAME("max_pool1d", y, mp1_y, 0);
    SAME("max_pool1d indices", i, mp1_i, 0);
    rel(1, &y), rel(1, &i);
    CHECK_OK(ct_avg_pool1d(ctx, p, 3, 2, 1, true, false, &y));
    SAME("avg_pool1d", y, ap1_y, 1e-15);
    rel(1, &y);
    CHECK_OK(ct_adaptive_avg_pool1d(ctx, p, 3, &y));
    SAME("adaptive_avg_pool1d", y, aap1_y, 1e-15);
    rel(1, &y);
    CHECK_OK(ct_adaptive_max_pool1d(ctx, p, 3, &y, &i));
    SAME("adaptive_max_pool1d", y, amp1_y, 0);
    SAME("adaptive_max_pool1d indices", i, amp1_i, 0);
    if (y) back(y);
    GRAD("adaptive_max_pool1d grad", p, amp1_g0);
    rel(1, &y), rel(1, &i);
    ct_tensor *q = T(amp2_x);
    CHECK_OK(ct_adaptive_max_pool2d(ctx, q, SH(3, 2), &y, &i));
    SAME("adaptive_max_pool2d ties and NaN", y, amp2_y, 0);
    SAME("adaptive_max_pool2d ties and NaN indices", i, amp2_i, 0);
    rel(1, &y), rel(1, &i);
    ct_tensor *r = TG(amp2r_x);
    CHECK_OK(ct_adaptive_max_pool2d(ctx, r, SH(3, 4), &y, &i));
    SAME("adaptive_max_pool2d", y, amp2r_y, 0);
    SAME("adaptive_max_pool2d indices", i, amp2r_i, 0);
    if (y) back(y);
    GRAD("adaptive_max_pool2d grad", r, amp2r_g0);
    rel(1, &y), rel(1, &i);
    CHECK_OK(ct_adaptive_max_pool2d(ctx, r, SH(3, 4), &y, NULL)); /* indices not wanted */
    rel(1, &y);
    CHECK_ST(ct_adaptive_max_pool2d(ctx, r, SH(0, 4), &y, &i), CT_ERR_INVALID_ARG);
    CHECK(i == NULL);
    /* max_unpool: the pool's values back at their positions */
    ct_tensor *uv = T(un_v), *ui = NULL, *ui1 = NULL, *uv1 = T(un1_v);
    ui = tu_from_vals(ctx, CT_INT64, un_i_nd, un_i_shape, un_i);
    ui1 = tu_from_vals(ctx, CT_INT64, un1_i_nd, un1_i_shape, un1_i);
    CHECK_OK(ct_max_unpool2d(ctx, uv, ui, SH(2, 2), NULL, NULL, NULL, &y));
    SAME("max_unpool2d", y, un2_y, 0);
    rel(1, &y);
    CHECK_OK(ct_max_unpool2d(ctx, uv, ui, SH(2, 2), NULL, NULL, SH(5, 5), &y));
    SAME("max_unpool2d output_size", y, un2_y5, 0);
    rel(1, &y);
    /* torch: the output size within a stride of the default (4): 2 and 6 are refused */
    CHECK_ST(ct_max_unpool2d(ctx, uv, ui, SH(2, 2), NULL, NULL, SH(2, 2), &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_max_unpool2d(ctx, uv, ui, SH(2, 2), NULL, NULL, SH(6, 4), &y), CT_ERR_INVALID_ARG);
    ct_tensor *far = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_INT64, 4, SH(1, 2, 2, 2), 16, &far)); /* outside the plane */
    CHECK_ST(ct_max_unpool2d(ctx, uv, far, SH(2, 2), NULL, NULL, NULL, &y), CT_ERR_INDEX);
    ct_tensor_release(far);
    CHECK_OK(ct_max_unpool1d(ctx, uv1, ui1, 2, 0, 0, -1, &y));
    SAME("max_unpool1d", y, un1_y, 0);
    rel(1, &y);
    CHECK_ST(ct_max_unpool1d(ctx, uv1, uv1, 2, 0, 0, -1, &y), CT_ERR_DTYPE);
    /* lp_pool */
    CHECK_OK(ct_lp_pool2d(ctx, r, 2.0, SH(2, 3), SH(2, 2), true, &y));
    SAME("lp_pool2d", y, lp2_y, 1e-14);
    rel(1, &y);
    ct_tensor *pa = NULL;
    CHECK_OK(ct_abs(ctx, p, &pa));
    CHECK_OK(ct_lp_pool1d(ctx, pa, 3.0, 3, 0, false, &y));
    SAME("lp_pool1d", y, lp1_y, 1e-14);
    rel(1, &y);
    ct_tensor *tl[] = {p, q, r, uv, ui, ui1, uv1, pa};
    rel(sizeof tl / sizeof tl[0], tl);
}

TEST(norms_bilinear_shuffle_as_torch) {
    ct_tensor *x = TG(in_x), *w = TG(in_w), *b = TG(in_b), *rm = T(in_rm0), *rv = T(in_rv0),
              *y = NULL;
    CHECK_OK(ct_instance_norm(ctx, x, rm, rv, w, b, true, 0.3, 1e-5, &y));
    SAME("instance_norm", y, in_y, 1e-13);
    SAME("instance_norm running_mean", rm, in_rm1, 1e-14);
    SAME("instance_norm running_var", rv, in_rv1, 1e-14);
    if (y) back(y);
    GRAD("instance_norm dx", x, in_g0);
    GRAD("instance_norm dw", w, in_g1);
    GRAD("instance_norm db", b, in_g2);
    rel(1, &y);
    CHECK_OK(ct_instance_norm(ctx, x, rm, rv, w, b, false, 0.1, 1e-5, &y));
    SAME("instance_norm eval", y, in_eval, 1e-13);
    rel(1, &y);
    CHECK_ST(ct_instance_norm(ctx, x, NULL, NULL, w, b, false, 0.1, 1e-5, &y), CT_ERR_INVALID_ARG);
    ct_tensor *one = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 3, SH(2, 2, 1), &one));
    CHECK_ST(ct_instance_norm(ctx, one, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &y),
             CT_ERR_INVALID_ARG); /* one spatial element */
    CHECK_OK(ct_local_response_norm(ctx, x, 3, 1e-2, 0.75, 2.0, &y));
    SAME("local_response_norm 4-d", y, lrn4_y, 1e-14);
    rel(1, &y);
    ct_tensor *p = T(p1_x);
    CHECK_OK(ct_local_response_norm(ctx, p, 2, 1e-1, 0.5, 1.0, &y));
    SAME("local_response_norm 3-d", y, lrn3_y, 1e-14);
    rel(1, &y);
    ct_tensor *v = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 2, SH(2, 2), &v));
    CHECK_ST(ct_local_response_norm(ctx, v, 2, 1, 1, 1, &y), CT_ERR_SHAPE);
    ct_tensor *a1 = TG(bl_x1), *a2 = TG(bl_x2), *wb = TG(bl_w), *bb = TG(bl_b);
    CHECK_OK(ct_bilinear(ctx, a1, a2, wb, bb, &y));
    SAME("bilinear", y, bl_y, 1e-14);
    if (y) back(y);
    GRAD("bilinear d1", a1, bl_g0);
    GRAD("bilinear d2", a2, bl_g1);
    GRAD("bilinear dw", wb, bl_g2);
    GRAD("bilinear db", bb, bl_g3);
    rel(1, &y);
    CHECK_ST(ct_bilinear(ctx, a2, a1, wb, bb, &y), CT_ERR_SHAPE);
    ct_tensor *ar = NULL;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 24, 1, &ar));
    ct_tensor *a4 = NULL;
    CHECK_OK(ct_tensor_reshape(ctx, ar, 4, SH(1, 6, 2, 2), &a4));
    CHECK_OK(ct_channel_shuffle(ctx, a4, 3, &y));
    SAME("channel_shuffle", y, cs_y, 0);
    rel(1, &y);
    CHECK_ST(ct_channel_shuffle(ctx, a4, 4, &y), CT_ERR_INVALID_ARG);
    ct_tensor *tl[] = {x, w, b, rm, rv, one, p, v, a1, a2, wb, bb, ar, a4};
    rel(sizeof tl / sizeof tl[0], tl);
}

TEST(rnn_cells_as_torch) {
    ct_tensor *x = TG(rc_x), *h = TG(rc_h), *c = TG(rc_c), *wih = TG(rc_wih), *whh = TG(rc_whh),
              *bih = T(rc_bih), *bhh = T(rc_bhh);
    ct_tensor *w5 = NULL, *u5 = NULL, *b5 = NULL, *c5 = NULL, *y = NULL, *cy = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, wih, 0, 0, 5, &w5));
    CHECK_OK(ct_tensor_narrow(ctx, whh, 0, 0, 5, &u5));
    CHECK_OK(ct_tensor_narrow(ctx, bih, 0, 0, 5, &b5));
    CHECK_OK(ct_tensor_narrow(ctx, bhh, 0, 0, 5, &c5));
    CHECK_OK(ct_rnn_tanh_cell(ctx, x, h, w5, u5, b5, c5, &y));
    SAME("rnn_tanh_cell", y, rnt_y, 1e-14);
    if (y) back(y);
    GRAD("rnn_tanh_cell dx", x, rnt_g0);
    GRAD("rnn_tanh_cell dh", h, rnt_g1);
    rel(1, &y);
    ct_tensor_zero_grad(x), ct_tensor_zero_grad(h);
    CHECK_OK(ct_rnn_relu_cell(ctx, x, h, w5, u5, NULL, NULL, &y));
    SAME("rnn_relu_cell", y, rnr_y, 1e-14);
    rel(1, &y);
    ct_tensor_zero_grad(wih), ct_tensor_zero_grad(whh); /* the rnn cells used their rows */
    CHECK_OK(ct_lstm_cell(ctx, x, h, c, wih, whh, bih, bhh, &y, &cy));
    SAME("lstm_cell h", y, ls_h, 1e-14);
    SAME("lstm_cell c", cy, ls_c, 1e-14);
    ct_tensor *c2 = NULL, *s = NULL;
    CHECK_OK(ct_mul_scalar(ctx, cy, 2, &c2));
    CHECK_OK(ct_add(ctx, y, c2, &s));
    if (s) back(s);
    GRAD("lstm_cell dx", x, ls_g0);
    GRAD("lstm_cell dh", h, ls_g1);
    GRAD("lstm_cell dc", c, ls_g2);
    GRAD("lstm_cell dw_ih", wih, ls_g3);
    rel(1, &y), rel(1, &cy), rel(1, &c2), rel(1, &s);
    ct_tensor_zero_grad(x), ct_tensor_zero_grad(h), ct_tensor_zero_grad(wih);
    ct_tensor *w15 = NULL, *u15 = NULL, *b15 = NULL, *c15 = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, wih, 0, 0, 15, &w15));
    CHECK_OK(ct_tensor_narrow(ctx, whh, 0, 0, 15, &u15));
    CHECK_OK(ct_tensor_narrow(ctx, bih, 0, 0, 15, &b15));
    CHECK_OK(ct_tensor_narrow(ctx, bhh, 0, 0, 15, &c15));
    CHECK_OK(ct_gru_cell(ctx, x, h, w15, u15, b15, c15, &y));
    SAME("gru_cell", y, gr_y, 1e-14);
    if (y) back(y);
    GRAD("gru_cell dx", x, gr_g0);
    GRAD("gru_cell dh", h, gr_g1);
    GRAD("gru_cell dw_ih", wih, gr_g2);
    rel(1, &y);
    CHECK_ST(ct_gru_cell(ctx, x, h, w5, u5, NULL, NULL, &y), CT_ERR_SHAPE); /* 5 != 3 * 5 */
    CHECK_ST(ct_lstm_cell(ctx, x, h, x, wih, whh, NULL, NULL, &y, &cy), CT_ERR_SHAPE);
    ct_tensor *tl[] = {x, h, c, wih, whh, bih, bhh, w5, u5, b5, c5, w15, u15, b15, c15};
    rel(sizeof tl / sizeof tl[0], tl);
}

TEST(margin_losses_as_torch) {
    ct_tensor *x = TG(mm_x), *w = T(mm_w), *y = NULL;
    ct_tensor *t = tu_from_vals(ctx, CT_INT64, 1, SH(4), (const double[]){1, 0, 4, 2});
    CHECK_OK(ct_multi_margin_loss(ctx, x, t, 1, 0.8, NULL, CT_REDUCTION_NONE, &y));
    SAME("multi_margin_loss p=1", y, mm1_y, 1e-15);
    if (y) back(y);
    GRAD("multi_margin_loss p=1 grad", x, mm1_g0);
    rel(1, &y);
    ct_tensor_zero_grad(x);
    CHECK_OK(ct_multi_margin_loss(ctx, x, t, 2, 1.2, w, CT_REDUCTION_SUM, &y));
    SAME("multi_margin_loss p=2 weighted", y, mm2_y, 1e-15);
    if (y) back(y);
    GRAD("multi_margin_loss p=2 grad", x, mm2_g0);
    rel(1, &y);
    ct_tensor_zero_grad(x);
    CHECK_ST(ct_multi_margin_loss(ctx, x, t, 3, 1, NULL, CT_REDUCTION_SUM, &y), CT_ERR_INVALID_ARG);
    ct_tensor *bad = tu_from_vals(ctx, CT_INT64, 1, SH(4), (const double[]){1, 0, 5, 2});
    CHECK_ST(ct_multi_margin_loss(ctx, x, bad, 1, 1, NULL, CT_REDUCTION_SUM, &y), CT_ERR_INDEX);
    ct_tensor *ly =
        tu_from_vals(ctx, CT_INT64, 2, SH(4, 5), (const double[]){3,  0, -1, 1, 1, 1, 2, 3,  4, 0,
                                                                  -1, 0, 0,  0, 0, 2, 2, -1, 3, 4});
    CHECK_OK(ct_multilabel_margin_loss(ctx, x, ly, CT_REDUCTION_NONE, &y));
    SAME("multilabel_margin_loss", y, ml_y, 1e-15);
    if (y) back(y);
    GRAD("multilabel_margin_loss grad", x, ml_g0);
    rel(1, &y);
    CHECK_OK(ct_multilabel_margin_loss(ctx, x, ly, CT_REDUCTION_MEAN, &y));
    SAME("multilabel_margin_loss mean", y, ml_mean, 1e-15);
    rel(1, &y);
    CHECK_ST(ct_multilabel_margin_loss(ctx, x, t, CT_REDUCTION_MEAN, &y), CT_ERR_SHAPE);
    /* every target entry is checked, past the first -1 too (torch) */
    ct_tensor *lbad = tu_from_vals(
        ctx, CT_INT64, 2, SH(4, 5),
        (const double[]){3, -1, 99, 1, 1, 1, 2, 3, 4, 0, -1, 0, 0, 0, 0, 2, 2, -1, 3, 4});
    CHECK_ST(ct_multilabel_margin_loss(ctx, x, lbad, CT_REDUCTION_MEAN, &y), CT_ERR_INDEX);
    ct_tensor_release(lbad);
    ct_tensor *tl[] = {x, w, t, bad, ly};
    rel(sizeof tl / sizeof tl[0], tl);
}

TEST(affine_grid_and_grid_sample_as_torch) {
    ct_tensor *th = TG(ag_theta), *y = NULL;
    const double *ag[2] = {ag_0, ag_1}, *agg[2] = {ag_0_g0, ag_1_g0};
    for (int al = 0; al < 2; al++) {
        CHECK_OK(ct_affine_grid(ctx, th, SH(2, 3, 4, 5), al, &y));
        same_as(al ? "affine_grid align" : "affine_grid", y, ag[al], ag_0_nd, ag_0_shape, 1e-15);
        if (y) back(y);
        same_as("affine_grid grad", ct_tensor_grad(th), agg[al], ag_0_g0_nd, ag_0_g0_shape, 1e-13);
        ct_tensor_zero_grad(th);
        rel(1, &y);
    }
    CHECK_ST(ct_affine_grid(ctx, th, SH(3, 3, 4, 5), false, &y), CT_ERR_SHAPE);
    ct_tensor *x = TG(gs_x), *g = TG(gs_grid);
    const struct {
        const char *name;
        ct_grid_mode m;
        ct_grid_padding p;
        bool al;
        const double *y, *gx, *gg;
    } cs[] = {
        {"bilinear zeros", CT_GRID_BILINEAR, CT_GRID_PAD_ZEROS, 0, gs_bz0, gs_bz0_g0, gs_bz0_g1},
        {"bilinear zeros align", CT_GRID_BILINEAR, CT_GRID_PAD_ZEROS, 1, gs_bz1, gs_bz1_g0,
         gs_bz1_g1},
        {"bilinear border", CT_GRID_BILINEAR, CT_GRID_PAD_BORDER, 0, gs_bb0, gs_bb0_g0, gs_bb0_g1},
        {"bilinear border align", CT_GRID_BILINEAR, CT_GRID_PAD_BORDER, 1, gs_bb1, gs_bb1_g0,
         gs_bb1_g1},
        {"bilinear reflection", CT_GRID_BILINEAR, CT_GRID_PAD_REFLECTION, 0, gs_br0, gs_br0_g0,
         gs_br0_g1},
        {"bilinear reflection align", CT_GRID_BILINEAR, CT_GRID_PAD_REFLECTION, 1, gs_br1,
         gs_br1_g0, gs_br1_g1},
        {"nearest zeros", CT_GRID_NEAREST, CT_GRID_PAD_ZEROS, 0, gs_nz0, NULL, NULL},
        {"nearest zeros align", CT_GRID_NEAREST, CT_GRID_PAD_ZEROS, 1, gs_nz1, NULL, NULL},
        {"nearest border", CT_GRID_NEAREST, CT_GRID_PAD_BORDER, 0, gs_nb0, NULL, NULL},
        {"nearest border align", CT_GRID_NEAREST, CT_GRID_PAD_BORDER, 1, gs_nb1, NULL, NULL},
        {"nearest reflection", CT_GRID_NEAREST, CT_GRID_PAD_REFLECTION, 0, gs_nr0, NULL, NULL},
        {"nearest reflection align", CT_GRID_NEAREST, CT_GRID_PAD_REFLECTION, 1, gs_nr1, NULL,
         NULL},
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++) {
        CHECK_OK(ct_grid_sample(ctx, x, g, cs[k].m, cs[k].p, cs[k].al, &y));
        same_as(cs[k].name, y, cs[k].y, gs_bz0_nd, gs_bz0_shape, 1e-14);
        if (y && cs[k].gx) {
            back(y);
            same_as(cs[k].name, ct_tensor_grad(x), cs[k].gx, gs_x_nd, gs_x_shape, 1e-12);
            same_as(cs[k].name, ct_tensor_grad(g), cs[k].gg, gs_grid_nd, gs_grid_shape, 1e-12);
            ct_tensor_zero_grad(x), ct_tensor_zero_grad(g);
        }
        rel(1, &y);
    }
    CHECK_ST(ct_grid_sample(ctx, x, th, CT_GRID_BILINEAR, CT_GRID_PAD_ZEROS, false, &y),
             CT_ERR_SHAPE);
    /* points exactly on pixels and on the border (torch 1.13's gradients): the weights are
     * torch's x1 - ix / ix - x0 and the clip has no gradient at the edge */
    const struct {
        int64_t hw;
        double gx, gy;
        ct_grid_padding pad;
        bool al;
        double want, gwx, gwy;
    } pts[] = {{3, 0, 0, CT_GRID_PAD_ZEROS, true, 5, 1, 3},
               {2, -1, -0.5, CT_GRID_PAD_BORDER, true, 1.5, 0, 1},
               {2, 0.5, -1, CT_GRID_PAD_ZEROS, false, 1, -1, 2}};
    for (int k = 0; k < 3; k++) {
        const int64_t hw = pts[k].hw;
        ct_tensor *img = NULL, *ar = NULL, *gd = NULL;
        CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT64, 1, (double)(hw * hw + 1), 1, &ar));
        CHECK_OK(ct_tensor_reshape(ctx, ar, 4, SH(1, 1, hw, hw), &img));
        gd = tu_from_vals(ctx, CT_FLOAT64, 4, SH(1, 1, 1, 2),
                          (const double[]){pts[k].gx, pts[k].gy});
        CHECK_OK(ct_tensor_set_requires_grad(gd, true));
        CHECK_OK(ct_grid_sample(ctx, img, gd, CT_GRID_BILINEAR, pts[k].pad, pts[k].al, &y));
        double *v = y ? tu_read(y) : NULL;
        CHECK_MSG(v && fabs(v[0] - pts[k].want) < 1e-12, "grid_sample point %d value", k);
        free(v);
        ct_tensor *sy = NULL;
        CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &sy));
        CHECK_OK(ct_backward(ctx, sy, NULL, false));
        double *gg = ct_tensor_grad(gd) ? tu_read(ct_tensor_grad(gd)) : NULL;
        CHECK_MSG(gg && fabs(gg[0] - pts[k].gwx) < 1e-12 && fabs(gg[1] - pts[k].gwy) < 1e-12,
                  "grid_sample point %d grad (%g, %g), torch (%g, %g)", k, gg ? gg[0] : NAN,
                  gg ? gg[1] : NAN, pts[k].gwx, pts[k].gwy);
        free(gg);
        ct_tensor *tl[] = {img, ar, gd, y, sy};
        rel(5, tl);
        y = NULL;
    }
    /* a half image of 64 x 64, 1 only at column 33, row 40, sampled there (the flat index is
     * taken in int64, not in half), and a NaN in the grid reads nothing out of range */
    ct_tensor *big = NULL, *bh = NULL, *ar2 = NULL, *gh = NULL, *gq = NULL;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 4096, 1, &ar2));
    CHECK_OK(ct_tensor_reshape(ctx, ar2, 4, SH(1, 1, 64, 64), &big));
    CHECK_OK(ct_eq_scalar(ctx, big, 40 * 64 + 33, &bh));
    const double px = 33.0 * 2 / 63 - 1, py = 40.0 * 2 / 63 - 1;
    gh = tu_from_vals(ctx, CT_FLOAT16, 4, SH(1, 1, 1, 2), (const double[]){px, py});
    CHECK_OK(ct_cast(ctx, bh, CT_FLOAT16, &gq));
    CHECK_OK(ct_grid_sample(ctx, gq, gh, CT_GRID_NEAREST, CT_GRID_PAD_ZEROS, true, &y));
    double *hv = y ? tu_read(y) : NULL;
    CHECK_MSG(hv && hv[0] == 1, "half grid_sample read %g, not the marked pixel", hv ? hv[0] : NAN);
    free(hv), rel(1, &y);
    ct_tensor *gn = tu_from_vals(ctx, CT_FLOAT64, 4, SH(1, 1, 1, 2), (const double[]){NAN, 0});
    ct_tensor *x64 = NULL;
    CHECK_OK(ct_cast(ctx, big, CT_FLOAT64, &x64));
    CHECK_OK(ct_grid_sample(ctx, x64, gn, CT_GRID_BILINEAR, CT_GRID_PAD_BORDER, false, &y));
    rel(1, &y);
    ct_tensor *tl2[] = {big, bh, ar2, gh, gq, gn, x64};
    rel(7, tl2);
    /* an out-of-range corner reads nothing (torch skips it): a NaN at pixel (0, 0) stays out of
     * samples whose corners fall outside the image (torch 1.13's values, every mode, padding and
     * alignment); a nearest sample's grid gradient is zero, as torch's */
    ct_tensor *xn =
                  tu_from_vals(ctx, CT_FLOAT64, 4, SH(1, 1, 2, 2), (const double[]){NAN, 1, 2, 3}),
              *gp = tu_from_vals(ctx, CT_FLOAT64, 4, SH(1, 1, 2, 2), (const double[]){1, 1, 3, 0});
    /* [mode][padding][align] -> the two samples (torch; NaN only where reflection lands on it) */
    const double want[2][3][2][2] = {{{{0.75, 0}, {3, 0}}, {{3, 2}, {3, 2}}, {{3, NAN}, {3, NAN}}},
                                     {{{0, 0}, {3, 0}}, {{3, 1}, {3, 1}}, {{3, NAN}, {3, NAN}}}};
    for (int m = 0; m < 2; m++)
        for (int p = 0; p < 3; p++)
            for (int a = 0; a < 2; a++) {
                CHECK_OK(ct_grid_sample(ctx, xn, gp, m ? CT_GRID_NEAREST : CT_GRID_BILINEAR,
                                        (ct_grid_padding)p, a != 0, &y));
                double *v = y ? tu_read(y) : NULL;
                CHECK_MSG(v && tu_same_val(v[0], want[m][p][a][0]) &&
                              tu_same_val(v[1], want[m][p][a][1]),
                          "grid_sample mode %d padding %d align %d: (%g, %g)", m, p, a,
                          v ? v[0] : 0, v ? v[1] : 0);
                free(v), rel(1, &y);
            }
    CHECK_OK(ct_tensor_set_requires_grad(gp, true));
    ct_tensor *sy = NULL;
    CHECK_OK(ct_grid_sample(ctx, xn, gp, CT_GRID_NEAREST, CT_GRID_PAD_ZEROS, false, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &sy));
    CHECK_OK(ct_backward(ctx, sy, NULL, false));
    double *gz = ct_tensor_grad(gp) ? tu_read(ct_tensor_grad(gp)) : NULL;
    CHECK(gz && gz[0] == 0 && gz[1] == 0 && gz[2] == 0 && gz[3] == 0);
    free(gz);
    ct_tensor *tl3[] = {xn, gp, y, sy};
    rel(4, tl3);
    y = NULL;
    ct_tensor *tl[] = {th, x, g};
    rel(sizeof tl / sizeof tl[0], tl);
}

/* ---- central differences ---- */
static ct_status f_convt(const ct_tensor *x, ct_tensor **y) { /* x (1, 2, 2, 3) as input + kernel */
    ct_tensor *w = NULL;
    ct_status st = ct_tensor_reshape(ctx, x, 4, SH(2, 1, 3, 2), &w);
    if (st == CT_OK)
        st = ct_conv_transpose2d(ctx, x, w, NULL, SH(2, 1), SH(0, 1), SH(1, 0), 1, SH(1, 1), y);
    ct_tensor_release(w);
    return st;
}
static ct_status f_amax(const ct_tensor *x, ct_tensor **y) {
    return ct_adaptive_max_pool2d(ctx, x, SH(2, 2), y, NULL);
}
static ct_status f_lp(const ct_tensor *x, ct_tensor **y) {
    return ct_lp_pool2d(ctx, x, 2.0, SH(2, 2), NULL, false, y);
}
static ct_status f_lrn(const ct_tensor *x, ct_tensor **y) {
    return ct_local_response_norm(ctx, x, 3, 0.5, 0.75, 1.0, y);
}
static ct_status f_inorm(const ct_tensor *x, ct_tensor **y) {
    return ct_instance_norm(ctx, x, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, y);
}
static ct_status f_shuffle(const ct_tensor *x, ct_tensor **y) {
    return ct_channel_shuffle(ctx, x, 2, y);
}

TEST(gradients) {
    tu_gradcheck(ctx, &rng, "conv_transpose2d", f_convt, 4, SH(1, 2, 2, 3));
    tu_gradcheck(ctx, &rng, "adaptive_max_pool2d", f_amax, 4, SH(1, 2, 3, 5));
    tu_gradcheck(ctx, &rng, "lp_pool2d", f_lp, 4, SH(1, 2, 4, 4));
    tu_gradcheck(ctx, &rng, "local_response_norm", f_lrn, 4, SH(1, 4, 2, 2));
    tu_gradcheck(ctx, &rng, "instance_norm", f_inorm, 3, SH(2, 2, 5));
    tu_gradcheck(ctx, &rng, "channel_shuffle", f_shuffle, 3, SH(1, 4, 2));
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(conv_transpose_as_torch);
    RUN(pools_as_torch);
    RUN(norms_bilinear_shuffle_as_torch);
    RUN(rnn_cells_as_torch);
    RUN(margin_losses_as_torch);
    RUN(affine_grid_and_grid_sample_as_torch);
    RUN(gradients);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

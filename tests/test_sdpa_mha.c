/* ct_scaled_dot_product_attention against PyTorch 2.x's math backend written out in float64
 * (scripts/gen_sdpa_mha_ref.py: masks bool / float / causal, a query that sees no key, explicit and
 * negative scales, grouped-query heads) with gradients; ct_multi_head_attention_forward against
 * torch 1.13's F.multi_head_attention_forward (self- and cross-attention, bool / float / 3-d
 * masks, key_padding_mask, bias_k / bias_v, add_zero_attn, separate projections, static k / v,
 * unbatched, averaged and per-head weights) with gradients; float16 against float32; errors. */
#include "test_util.h"

#include "data/sdpa_mha_ref.h"

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
static ct_tensor *as_bool(ct_tensor *t) {
    ct_tensor *b = NULL;
    CHECK_OK(ct_cast(ctx, t, CT_BOOL, &b));
    ct_tensor_release(t);
    return b;
}
/* sum(sin(i) * y), accumulated into loss (NULL: starts it) */
static ct_tensor *wsum(ct_tensor *y, ct_tensor *loss) {
    const int64_t n = ct_tensor_numel(y);
    double *w = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        w[i] = sin((double)i);
    ct_tensor *wt = tu_from_vals(ctx, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), w),
              *p = NULL, *s = NULL, *r = NULL;
    CHECK_OK(ct_mul(ctx, y, wt, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &s));
    if (loss) {
        CHECK_OK(ct_add(ctx, loss, s, &r));
        ct_tensor_release(s), ct_tensor_release(loss);
    } else {
        r = s;
    }
    ct_tensor_release(wt), ct_tensor_release(p);
    free(w);
    return r;
}
static void backward(ct_tensor *loss) {
    if (loss) CHECK_OK(ct_backward(ctx, loss, NULL, false));
    ct_tensor_release(loss);
}

#define SDPA_CASE(N, ...)                                                                          \
    do {                                                                                           \
        ct_tensor *q = TG(N##_q), *k = TG(N##_k), *v = TG(N##_v), *y = NULL;                       \
        ct_sdpa_opts o = {__VA_ARGS__};                                                            \
        CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y));                           \
        SAME(#N " out", y, N##_y, 1e-13);                                                          \
        if (y) backward(wsum(y, NULL));                                                            \
        GRAD(#N " dq", q, N##_g0);                                                                 \
        GRAD(#N " dk", k, N##_g1);                                                                 \
        GRAD(#N " dv", v, N##_g2);                                                                 \
        ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v), ct_tensor_release(y);    \
    } while (0)

TEST(sdpa_as_pytorch_math) {
    SDPA_CASE(s1);
    ct_tensor *bm = as_bool(T(s2_mask)), *fm = T(s3_mask);
    SDPA_CASE(s2, .attn_mask = bm);
    SDPA_CASE(s3, .attn_mask = fm);
    SDPA_CASE(s4, .is_causal = true);
    SDPA_CASE(s5, .scale = 0.3);
    SDPA_CASE(s6, .scale = -0.5);
    SDPA_CASE(s7, .enable_gqa = true);
    /* the query that sees no key: a zero row and zero gradients (not NaN) */
    ct_tensor *q = TG(s2_q), *k = T(s2_k), *v = T(s2_v), *y = NULL;
    ct_sdpa_opts o = {.attn_mask = bm};
    CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y));
    double *yv = tu_read(y);
    for (int b = 0; yv && b < 2; b++)
        for (int j = 0; j < 3; j++)
            CHECK_MSG(yv[(b * 4 + 2) * 3 + j] == 0, "dead row [%d, 2, %d] = %g", b, j,
                      yv[(b * 4 + 2) * 3 + j]);
    free(yv);
    backward(wsum(y, NULL));
    double *gq = tu_read(ct_tensor_grad(q));
    for (int b = 0; gq && b < 2; b++)
        for (int j = 0; j < 5; j++)
            CHECK(gq[(b * 4 + 2) * 5 + j] == 0);
    free(gq);
    ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v), ct_tensor_release(y);
    ct_tensor_release(bm), ct_tensor_release(fm);
}

/* float16 runs in float32 and returns float16: equal to float32 rounded, within half's ulp */
TEST(sdpa_half) {
    ct_tensor *q = T(s1_q), *k = T(s1_k), *v = T(s1_v), *t[8] = {NULL}, *y = NULL, *y32 = NULL;
    CHECK_OK(ct_cast(ctx, q, CT_FLOAT16, &t[0]));
    CHECK_OK(ct_cast(ctx, k, CT_FLOAT16, &t[1]));
    CHECK_OK(ct_cast(ctx, v, CT_FLOAT16, &t[2]));
    CHECK_OK(ct_cast(ctx, t[0], CT_FLOAT32, &t[3]));
    CHECK_OK(ct_cast(ctx, t[1], CT_FLOAT32, &t[4]));
    CHECK_OK(ct_cast(ctx, t[2], CT_FLOAT32, &t[5]));
    CHECK_OK(ct_scaled_dot_product_attention(ctx, t[0], t[1], t[2], NULL, &y));
    CHECK_OK(ct_scaled_dot_product_attention(ctx, t[3], t[4], t[5], NULL, &y32));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT16);
    CHECK_OK(ct_cast(ctx, y32, CT_FLOAT16, &t[6]));
    CHECK_MSG(tu_same_values(y, t[6]), "float16 = float32 computation rounded once");
    for (int i = 0; i < 8; i++)
        ct_tensor_release(t[i]);
    ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v), ct_tensor_release(y);
    ct_tensor_release(y32);
}

TEST(mha_as_torch) {
    ct_tensor *win = TG(m_win), *bin = TG(m_bin), *wout = TG(m_wout), *bout = TG(m_bout);
    ct_tensor *y = NULL, *w = NULL;
    /* 1: self-attention, bool attn_mask and key_padding_mask, averaged weights */
    ct_tensor *x = TG(m1_x), *am = as_bool(T(m1_am)), *kpm = as_bool(T(m1_kpm));
    ct_mha_opts o = {
        .in_proj_weight = win, .in_proj_bias = bin, .attn_mask = am, .key_padding_mask = kpm};
    CHECK_OK(ct_multi_head_attention_forward(ctx, x, x, x, 2, wout, bout, &o, &y, &w));
    SAME("mha 1 out", y, m1_y, 1e-13);
    SAME("mha 1 weights", w, m1_w, 1e-13);
    if (y && w) backward(wsum(w, wsum(y, NULL)));
    GRAD("mha 1 dx", x, m1_g0);
    GRAD("mha 1 dw_in", win, m1_g1);
    GRAD("mha 1 db_in", bin, m1_g2);
    GRAD("mha 1 dw_out", wout, m1_g3);
    GRAD("mha 1 db_out", bout, m1_g4);
    ct_tensor_release(y), ct_tensor_release(w), ct_tensor_release(am), ct_tensor_release(kpm);
    ct_tensor_zero_grad(win), ct_tensor_zero_grad(bin), ct_tensor_zero_grad(wout);
    /* 2: cross-attention (key is value), float 3-d mask, bias_k / v, zero attn, per head */
    ct_tensor *q2 = TG(m2_q), *kv = TG(m2_kv), *bk = TG(m2_bk), *bv = TG(m2_bv), *fm = T(m2_am);
    o = (ct_mha_opts){.in_proj_weight = win,
                      .in_proj_bias = bin,
                      .attn_mask = fm,
                      .bias_k = bk,
                      .bias_v = bv,
                      .add_zero_attn = true,
                      .per_head_weights = true};
    CHECK_OK(ct_multi_head_attention_forward(ctx, q2, kv, kv, 2, wout, NULL, &o, &y, &w));
    SAME("mha 2 out", y, m2_y, 1e-13);
    SAME("mha 2 weights", w, m2_w, 1e-13);
    if (y && w) backward(wsum(w, wsum(y, NULL)));
    GRAD("mha 2 dq", q2, m2_g0);
    GRAD("mha 2 dkv", kv, m2_g1);
    GRAD("mha 2 dbias_k", bk, m2_g2);
    GRAD("mha 2 dbias_v", bv, m2_g3);
    GRAD("mha 2 dw_in", win, m2_g4);
    ct_tensor_release(y), ct_tensor_release(w);
    ct_tensor_zero_grad(win);
    /* 3: separate projections (kdim 4, vdim 3), unbatched, float key_padding_mask */
    ct_tensor *wq = TG(m3_wq), *wk = TG(m3_wk), *wv = TG(m3_wv), *q3 = TG(m3_q), *k3 = TG(m3_k),
              *v3 = TG(m3_v), *kp3 = T(m3_kpm);
    o = (ct_mha_opts){.q_proj_weight = wq,
                      .k_proj_weight = wk,
                      .v_proj_weight = wv,
                      .in_proj_bias = bin,
                      .key_padding_mask = kp3};
    CHECK_OK(ct_multi_head_attention_forward(ctx, q3, k3, v3, 2, wout, bout, &o, &y, &w));
    SAME("mha 3 out", y, m3_y, 1e-13);
    SAME("mha 3 weights", w, m3_w, 1e-13);
    if (y && w) backward(wsum(w, wsum(y, NULL)));
    GRAD("mha 3 dq", q3, m3_g0);
    GRAD("mha 3 dk", k3, m3_g1);
    GRAD("mha 3 dv", v3, m3_g2);
    GRAD("mha 3 dwq", wq, m3_g3);
    GRAD("mha 3 dwk", wk, m3_g4);
    GRAD("mha 3 dwv", wv, m3_g5);
    ct_tensor_release(y), ct_tensor_release(w);
    /* 4: static k / v */
    ct_tensor *q4 = TG(m4_q), *k4 = T(m4_k), *v4 = T(m4_v), *sk = TG(m4_sk), *sv = TG(m4_sv);
    o = (ct_mha_opts){.in_proj_weight = win, .in_proj_bias = bin, .static_k = sk, .static_v = sv};
    CHECK_OK(ct_multi_head_attention_forward(ctx, q4, k4, v4, 2, wout, bout, &o, &y, &w));
    SAME("mha 4 out", y, m4_y, 1e-13);
    SAME("mha 4 weights", w, m4_w, 1e-13);
    if (y && w) backward(wsum(w, wsum(y, NULL)));
    GRAD("mha 4 dq", q4, m4_g0);
    GRAD("mha 4 dstatic_k", sk, m4_g1);
    GRAD("mha 4 dstatic_v", sv, m4_g2);
    GRAD("mha 4 dw_in", win, m4_g3);
    ct_tensor_release(y), ct_tensor_release(w);
    ct_tensor *all[] = {win, bin, wout, bout, x,  q2,  kv, bk, bv, fm, wq,
                        wk,  wv,  q3,   k3,   v3, kp3, q4, k4, v4, sk, sv};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

TEST(dropout_and_errors) {
    ct_tensor *q = T(s1_q), *k = T(s1_k), *v = T(s1_v), *y0 = NULL, *y1 = NULL, *y2 = NULL,
              *y3 = NULL;
    ct_sdpa_opts o = {.dropout_p = 0.5, .seed = 9};
    CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, NULL, &y0));
    CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y1));
    CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y2));
    CHECK_MSG(tu_same_values(y1, y2) && !tu_same_values(y0, y1), "dropout reproducible by seed");
    o.dropout_p = 1;
    CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y3));
    double *z = tu_read(y3);
    for (int64_t i = 0; z && i < ct_tensor_numel(y3); i++)
        CHECK(z[i] == 0);
    free(z);
    ct_tensor *y = NULL, *qi = NULL, *mi = NULL, *qf = NULL, *bm = NULL;
    CHECK_OK(ct_cast(ctx, q, CT_INT64, &qi));
    CHECK_OK(ct_cast(ctx, q, CT_FLOAT32, &qf));
    CHECK_ST(ct_scaled_dot_product_attention(ctx, qi, k, v, NULL, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_scaled_dot_product_attention(ctx, qf, k, v, NULL, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, q, v, NULL, &y), CT_ERR_SHAPE); /* S 4 != 6 */
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, k, v, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 2, SH(4, 6), &mi));
    o = (ct_sdpa_opts){.attn_mask = mi};
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y), CT_ERR_DTYPE);
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 2, SH(4, 6), &bm));
    o = (ct_sdpa_opts){.attn_mask = bm, .is_causal = true};
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y), CT_ERR_INVALID_ARG);
    o = (ct_sdpa_opts){.enable_gqa = true}; /* 3 heads against 3: fine */
    CHECK_OK(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y));
    ct_tensor_release(y), y = NULL;
    ct_tensor *k2 = NULL, *v2 = NULL, *bm2 = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, k, 1, 0, 2, &k2));
    CHECK_OK(ct_tensor_narrow(ctx, v, 1, 0, 2, &v2));
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, k2, v2, &o, &y),
             CT_ERR_SHAPE); /* 2 does not divide 3 */
    CHECK_OK(ct_tensor_ones(ctx, CT_BOOL, 2, SH(5, 6), &bm2));
    o = (ct_sdpa_opts){.attn_mask = bm2};
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y), CT_ERR_SHAPE);
    o = (ct_sdpa_opts){.dropout_p = 2};
    CHECK_ST(ct_scaled_dot_product_attention(ctx, q, k, v, &o, &y), CT_ERR_INVALID_ARG);
    CHECK(y == NULL);
    /* mha */
    ct_tensor *x = T(m1_x), *win = T(m_win), *wout = T(m_wout), *w = NULL;
    ct_mha_opts m = {.in_proj_weight = win};
    CHECK_OK(ct_multi_head_attention_forward(ctx, x, x, x, 2, wout, NULL, &m, &y, NULL));
    ct_tensor_release(y), y = NULL;
    CHECK_ST(ct_multi_head_attention_forward(ctx, x, x, x, 4, wout, NULL, &m, &y, &w),
             CT_ERR_INVALID_ARG); /* 6 % 4 */
    CHECK(y == NULL && w == NULL);
    CHECK_ST(ct_multi_head_attention_forward(ctx, x, x, x, 2, wout, NULL, NULL, &y, &w),
             CT_ERR_INVALID_ARG); /* no projection */
    m.attn_mask = bm;             /* (4, 6) for 4 queries and 4 keys */
    CHECK_ST(ct_multi_head_attention_forward(ctx, x, x, x, 2, wout, NULL, &m, &y, &w),
             CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "attn_mask") != NULL);
    m = (ct_mha_opts){.in_proj_weight = wout};
    CHECK_ST(ct_multi_head_attention_forward(ctx, x, x, x, 2, wout, NULL, &m, &y, &w),
             CT_ERR_SHAPE);
    ct_tensor *all[] = {q, k, v, y0, y1, y2, y3, qi, mi, qf, bm, k2, v2, bm2, x, win, wout};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(sdpa_as_pytorch_math);
    RUN(sdpa_half);
    RUN(mha_as_torch);
    RUN(dropout_and_errors);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

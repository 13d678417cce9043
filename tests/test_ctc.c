/* ct_ctc_loss against torch 1.13's F.ctc_loss (scripts/gen_ctc_ref.py): padded and concatenated
 * targets, repeated labels, a non-zero blank, an unbatched input, an impossible alignment (inf, and
 * zero_infinity), each reduction; the gradient with respect to the log-probabilities (torch's form)
 * and through log_softmax to the logits; the loss against a brute-force sum over every path of a
 * small problem; float32; the error paths. */
#include "test_util.h"

#include "data/ctc_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define T(R) tab(R, R##_nd, R##_shape, false, CT_FLOAT64)
#define TI(R) tab(R, R##_nd, R##_shape, false, CT_INT64)
#define SAME(what, t, R, tol) tu_same_as(what, t, R, R##_nd, R##_shape, tol)

static ct_tensor *tab(const double *v, int nd, const int64_t *shape, bool rg, ct_dtype dt) {
    ct_tensor *t = tu_from_vals(ctx, CT_FLOAT64, nd, shape, v), *c = NULL;
    if (t && dt != CT_FLOAT64) {
        CHECK_OK(ct_cast(ctx, t, dt, &c));
        ct_tensor_release(t);
        t = c;
    }
    if (rg && t) CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}

#define CASE(N, BLANK, ZI)                                                                         \
    do {                                                                                           \
        ct_tensor *lp = T(N##_lp), *x = T(N##_x), *tg = TI(N##_tg), *il = TI(N##_il),              \
                  *tl = TI(N##_tl), *y = NULL, *sm = NULL;                                         \
        CHECK_OK(ct_ctc_loss(ctx, lp, tg, il, tl, BLANK, CT_REDUCTION_NONE, ZI, &y));              \
        SAME(#N " none", y, N##_none, 1e-13), ct_tensor_release(y);                                \
        CHECK_OK(ct_ctc_loss(ctx, lp, tg, il, tl, BLANK, CT_REDUCTION_SUM, ZI, &y));               \
        SAME(#N " sum", y, N##_sum, 1e-13), ct_tensor_release(y);                                  \
        CHECK_OK(ct_tensor_set_requires_grad(lp, true));                                           \
        CHECK_OK(ct_ctc_loss(ctx, lp, tg, il, tl, BLANK, CT_REDUCTION_MEAN, ZI, &y));              \
        SAME(#N " mean", y, N##_mean, 1e-13);                                                      \
        if (y) CHECK_OK(ct_backward(ctx, y, NULL, false));                                         \
        SAME(#N " d log_probs", ct_tensor_grad(lp), N##_glp, 1e-12), ct_tensor_release(y);         \
        CHECK_OK(ct_tensor_set_requires_grad(x, true));                                            \
        CHECK_OK(ct_log_softmax(ctx, x, -1, &sm));                                                 \
        CHECK_OK(ct_ctc_loss(ctx, sm, tg, il, tl, BLANK, CT_REDUCTION_SUM, ZI, &y));               \
        if (y) CHECK_OK(ct_backward(ctx, y, NULL, false));                                         \
        SAME(#N " d logits", ct_tensor_grad(x), N##_gx, 1e-12);                                    \
        ct_tensor *tl_[] = {lp, x, tg, il, tl, y, sm};                                             \
        for (int i_ = 0; i_ < 7; i_++)                                                             \
            ct_tensor_release(tl_[i_]);                                                            \
    } while (0)

TEST(as_torch) {
    CASE(c1, 0, false);
    CASE(c2, 2, false);
    CASE(c3, 0, false);
    CASE(c4, 0, false);
    CASE(c5, 0, true);
}

/* every path of T = 4 steps over C = 3 symbols that collapses to the target, summed directly */
static double brute(const double *lp, const int64_t *tg, int S, int T, int C) {
    double total = 0;
    int path[8];
    for (int code = 0; code < 81; code++) { /* 3^4 */
        int c = code;
        for (int t = 0; t < T; t++)
            path[t] = c % C, c /= C;
        int out[8], n = 0, prev = -1;
        for (int t = 0; t < T; t++) {
            if (path[t] != prev && path[t] != 0) out[n++] = path[t];
            prev = path[t];
        }
        bool same = n == S;
        for (int i = 0; same && i < S; i++)
            same = out[i] == tg[i];
        if (!same) continue;
        double lpp = 0;
        for (int t = 0; t < T; t++)
            lpp += lp[t * C + path[t]];
        total += exp(lpp);
    }
    return -log(total);
}

TEST(brute_force_and_float32) {
    const int64_t tgv[2][2] = {{1, 2}, {2, 2}};
    ct_tensor *x = NULL, *lp = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, SH(4, 3), 3, 0, &x));
    CHECK_OK(ct_log_softmax(ctx, x, -1, &lp));
    double *lv = tu_read(lp);
    for (int k = 0; lv && k < 2; k++) {
        ct_tensor *tg = NULL, *il = NULL, *tl = NULL, *y = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, tgv[k], CT_INT64, 1, SH(2), &tg));
        CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){4}, CT_INT64, 0, NULL, &il));
        CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){2}, CT_INT64, 0, NULL, &tl));
        CHECK_OK(ct_ctc_loss(ctx, lp, tg, il, tl, 0, CT_REDUCTION_NONE, false, &y));
        double got = NAN;
        if (y) CHECK_OK(ct_tensor_item(y, &got));
        const double want = brute(lv, tgv[k], 2, 4, 3);
        CHECK_MSG(fabs(got - want) < 1e-13 * (1 + fabs(want)),
                  "target %d: %.17g vs all paths %.17g", k, got, want);
        ct_tensor_release(tg), ct_tensor_release(il), ct_tensor_release(tl), ct_tensor_release(y);
    }
    free(lv);
    /* float32 in, float32 out, close to float64 */
    ct_tensor *lp64 = T(c1_lp), *lp32 = NULL, *tg = TI(c1_tg), *il = TI(c1_il), *tl = TI(c1_tl),
              *y = NULL;
    CHECK_OK(ct_cast(ctx, lp64, CT_FLOAT32, &lp32));
    CHECK_OK(ct_ctc_loss(ctx, lp32, tg, il, tl, 0, CT_REDUCTION_NONE, false, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    tu_same_as("float32", y, c1_none, c1_none_nd, c1_none_shape, 1e-5);
    ct_tensor_release(y);
    /* errors: label out of range, blank out of range, lengths, dtypes, shapes */
    ct_tensor *bad = NULL, *il2 = NULL, *neg = NULL, *f = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){1, 5, 2, 0, 3, 4, 0, 0, 2, 3, 2, 4},
                                 CT_INT64, 2, SH(3, 4), &bad));
    CHECK_ST(ct_ctc_loss(ctx, lp64, bad, il, tl, 0, CT_REDUCTION_MEAN, false, &y), CT_ERR_INDEX);
    CHECK_ST(ct_ctc_loss(ctx, lp64, tg, il, tl, 5, CT_REDUCTION_MEAN, false, &y), CT_ERR_INDEX);
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){8, 5, 6}, CT_INT64, 1, SH(3), &il2));
    CHECK_ST(ct_ctc_loss(ctx, lp64, tg, il2, tl, 0, CT_REDUCTION_MEAN, false, &y),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "at most 7") != NULL);
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){3, -1, 4}, CT_INT64, 1, SH(3), &neg));
    CHECK_ST(ct_ctc_loss(ctx, lp64, tg, il, neg, 0, CT_REDUCTION_MEAN, false, &y),
             CT_ERR_INVALID_ARG);
    /* concatenated targets: lengths that overflow, or do not add up to the labels given */
    ct_tensor *lp2 = NULL, *cat = NULL, *il2b = NULL, *huge = NULL, *short_ = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, lp64, 1, 0, 2, &lp2));
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){1, 2, 3, 4}, CT_INT64, 1, SH(4), &cat));
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){7, 7}, CT_INT64, 1, SH(2), &il2b));
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){INT64_MAX, 1}, CT_INT64, 1, SH(2), &huge));
    CHECK_ST(ct_ctc_loss(ctx, lp2, cat, il2b, huge, 0, CT_REDUCTION_SUM, false, &y),
             CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_from_host(ctx, (const int64_t[]){2, 1}, CT_INT64, 1, SH(2), &short_));
    CHECK_ST(ct_ctc_loss(ctx, lp2, cat, il2b, short_, 0, CT_REDUCTION_SUM, false, &y),
             CT_ERR_SHAPE); /* 3 != 4 labels */
    ct_tensor_release(lp2), ct_tensor_release(cat), ct_tensor_release(il2b);
    ct_tensor_release(huge), ct_tensor_release(short_);
    CHECK_OK(ct_cast(ctx, tg, CT_FLOAT32, &f));
    CHECK_ST(ct_ctc_loss(ctx, lp64, f, il, tl, 0, CT_REDUCTION_MEAN, false, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_ctc_loss(ctx, lp64, tg, tl, il, 0, CT_REDUCTION_MEAN, false, &y), CT_ERR_SHAPE);
    CHECK(y == NULL);
    ct_tensor *tl_[] = {x, lp, lp64, lp32, tg, il, tl, bad, il2, neg, f};
    for (int i = 0; i < 11; i++)
        ct_tensor_release(tl_[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(as_torch);
    RUN(brute_force_and_float32);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

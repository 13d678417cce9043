/* ct_rnn / ct_lstm / ct_gru (torch.rnn_tanh / rnn_relu / lstm / gru) against torch 1.13's values
 * and gradients (scripts/gen_rnn_ref.py: layers, directions, batch_first, unbatched, no bias, LSTM
 * projections), against an independent loop of the exported cells, the dropout between layers
 * against its definition (layer by layer with ct_dropout), float32, and the error paths. */
#include "test_util.h"

#include "data/rnn_ref.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})

typedef struct {
    const double *v;
    int nd;
    const int64_t *sh;
} tab;
#define TB(A) ((tab){A, A##_nd, A##_shape})

static ct_tensor *mk(tab r, bool rg) {
    ct_tensor *t = tu_from_vals(ctx, CT_FLOAT64, r.nd, r.sh, r.v);
    if (rg && t) CHECK_OK(ct_tensor_set_requires_grad(t, true));
    return t;
}
/* sum(w * y) with w[i] = f(i) */
static ct_tensor *weighted(ct_tensor *y, double (*f)(double), double shift) {
    const int64_t n = ct_tensor_numel(y);
    double *w = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        w[i] = f((double)i + shift);
    ct_tensor *wt = tu_from_vals(ctx, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), w),
              *p = NULL, *s = NULL;
    CHECK_OK(ct_mul(ctx, y, wt, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &s));
    ct_tensor_release(wt), ct_tensor_release(p);
    free(w);
    return s;
}

enum { K_RNN, K_LSTM, K_GRU };
typedef struct {
    const char *name;
    int kind;
    ct_rnn_opts o;
    tab x, y, hn, cn, gx;
    int np, ns;
    const double *const *p, *const *gp, *const *s, *const *gs;
    const int64_t *const *p_sh, *const *gp_sh, *const *s_sh, *const *gs_sh;
    const int *p_nd, *gp_nd, *s_nd, *gs_nd;
} rcase;
#define RC(N, K, ...)                                                                              \
    ((rcase){#N,       K,          {__VA_ARGS__}, TB(N##_x), TB(N##_y), TB(N##_hn),                \
             {0},      TB(N##_gx), N##_np,        N##_ns,    N##_p,     N##_gp,                    \
             N##_s,    N##_gs,     N##_p_sh,      N##_gp_sh, N##_s_sh,  N##_gs_sh,                 \
             N##_p_nd, N##_gp_nd,  N##_s_nd,      N##_gs_nd})

static ct_status run(const rcase *c, ct_tensor *x, ct_tensor *const *s, ct_tensor *const *p,
                     ct_tensor **y, ct_tensor **hn, ct_tensor **cn) {
    const ct_tensor *const *pp = (const ct_tensor *const *)p;
    const ct_tensor *h0 = c->ns > 0 ? s[0] : NULL, *c0 = c->ns > 1 ? s[1] : NULL;
    if (c->kind == K_LSTM) return ct_lstm(ctx, x, h0, c0, pp, c->np, &c->o, y, hn, cn);
    if (c->kind == K_GRU) return ct_gru(ctx, x, h0, pp, c->np, &c->o, y, hn);
    return ct_rnn(ctx, x, h0, pp, c->np, &c->o, y, hn);
}

static void check_case(rcase c, const double *cn_ref, const int64_t *cn_sh, int cn_nd) {
    ct_tensor *x = mk(c.x, true), *p[24] = {NULL}, *s[2] = {NULL};
    for (int i = 0; i < c.np; i++)
        p[i] = mk((tab){c.p[i], c.p_nd[i], c.p_sh[i]}, true);
    for (int i = 0; i < c.ns; i++)
        s[i] = mk((tab){c.s[i], c.s_nd[i], c.s_sh[i]}, true);
    ct_tensor *y = NULL, *hn = NULL, *cn = NULL;
    char what[96];
    CHECK_OK(run(&c, x, s, p, &y, &hn, &cn));
    snprintf(what, sizeof what, "%s out", c.name);
    tu_same_as(what, y, c.y.v, c.y.nd, c.y.sh, 1e-13);
    snprintf(what, sizeof what, "%s h_n", c.name);
    tu_same_as(what, hn, c.hn.v, c.hn.nd, c.hn.sh, 1e-13);
    if (cn_ref) {
        snprintf(what, sizeof what, "%s c_n", c.name);
        tu_same_as(what, cn, cn_ref, cn_nd, cn_sh, 1e-13);
    }
    if (y && hn) {
        ct_tensor *a = weighted(y, sin, 0), *b = weighted(hn, cos, 0), *l = NULL, *l2 = NULL;
        CHECK_OK(ct_add(ctx, a, b, &l));
        if (cn) {
            ct_tensor *e = weighted(cn, sin, 1);
            CHECK_OK(ct_add(ctx, l, e, &l2));
            ct_tensor_release(e);
        } else {
            l2 = ct_tensor_retain(l);
        }
        CHECK_OK(ct_backward(ctx, l2, NULL, false));
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(l), ct_tensor_release(l2);
        snprintf(what, sizeof what, "%s dx", c.name);
        tu_same_as(what, ct_tensor_grad(x), c.gx.v, c.gx.nd, c.gx.sh, 1e-12);
        for (int i = 0; i < c.ns; i++) {
            snprintf(what, sizeof what, "%s d state %d", c.name, i);
            tu_same_as(what, ct_tensor_grad(s[i]), c.gs[i], c.gs_nd[i], c.gs_sh[i], 1e-12);
        }
        for (int i = 0; i < c.np; i++) {
            snprintf(what, sizeof what, "%s d param %d", c.name, i);
            tu_same_as(what, ct_tensor_grad(p[i]), c.gp[i], c.gp_nd[i], c.gp_sh[i], 1e-12);
        }
    }
    ct_tensor_release(y), ct_tensor_release(hn), ct_tensor_release(cn), ct_tensor_release(x);
    for (int i = 0; i < c.np; i++)
        ct_tensor_release(p[i]);
    for (int i = 0; i < c.ns; i++)
        ct_tensor_release(s[i]);
}

TEST(as_torch) {
    check_case(RC(l1, K_LSTM, .num_layers = 2, .bidirectional = true, .batch_first = true), l1_cn,
               l1_cn_shape, l1_cn_nd);
    check_case(RC(l2, K_LSTM, .proj_size = 2), l2_cn, l2_cn_shape, l2_cn_nd);
    check_case(
        RC(l3, K_LSTM, .num_layers = 2, .no_bias = true, .proj_size = 3, .bidirectional = true),
        l3_cn, l3_cn_shape, l3_cn_nd);
    check_case(RC(g1, K_GRU, .num_layers = 2, .no_bias = true), NULL, NULL, 0);
    check_case(RC(g2, K_GRU, .bidirectional = true, .batch_first = true), NULL, NULL, 0);
    check_case(RC(r1, K_RNN, .relu = true, .bidirectional = true), NULL, NULL, 0);
    check_case(RC(r2, K_RNN, .num_layers = 3), NULL, NULL, 0);
}

/* packed sequences (ct_rnn_opts.lengths) against torch's pack_padded_sequence, the layer and
 * pad_packed_sequence(total_length = T) */
static void check_packed(rcase c, tab len, const double *cn_ref, const int64_t *cn_sh, int cn_nd) {
    ct_tensor *l = tu_from_vals(ctx, CT_INT64, len.nd, len.sh, len.v);
    c.o.lengths = l;
    check_case(c, cn_ref, cn_sh, cn_nd);
    ct_tensor_release(l);
}

TEST(packed_sequences_as_torch) {
    check_packed(RC(pl1, K_LSTM, .num_layers = 2, .bidirectional = true), TB(pl1_len), pl1_cn,
                 pl1_cn_shape, pl1_cn_nd);
    check_packed(RC(pl2, K_LSTM, .batch_first = true, .proj_size = 2), TB(pl2_len), pl2_cn,
                 pl2_cn_shape, pl2_cn_nd);
    check_packed(RC(pg1, K_GRU, .bidirectional = true, .batch_first = true), TB(pg1_len), NULL,
                 NULL, 0);
    check_packed(RC(pr1, K_RNN, .num_layers = 2, .relu = true), TB(pr1_len), NULL, NULL, 0);
    /* refusals: a length 0 or beyond T, a wrong shape, an unbatched input */
    ct_tensor *x = NULL, *p[4] = {NULL}, *y = NULL, *bad = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 3, SH(4, 2, 3), 1, 0, &x));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, SH(5, 3), 2, 0, &p[0]));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, SH(5, 5), 3, 0, &p[1]));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 1, SH(5), 4, 0, &p[2]));
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 1, SH(5), 5, 0, &p[3]));
    const ct_tensor *const *pp = (const ct_tensor *const *)p;
    static const double lens[3][2] = {{0, 4}, {5, 1}, {-1, 2}};
    for (int k = 0; k < 3; k++) {
        bad = tu_from_vals(ctx, CT_INT64, 1, SH(2), lens[k]);
        ct_rnn_opts o = {.lengths = bad};
        CHECK_ST(ct_rnn(ctx, x, NULL, pp, 4, &o, &y, NULL), CT_ERR_INVALID_ARG);
        CHECK(y == NULL);
        ct_tensor_release(bad);
    }
    bad = tu_from_vals(ctx, CT_INT64, 1, SH(3), (const double[]){1, 2, 3});
    ct_rnn_opts o = {.lengths = bad};
    CHECK_ST(ct_rnn(ctx, x, NULL, pp, 4, &o, &y, NULL), CT_ERR_SHAPE);
    ct_tensor_release(bad);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(p[i]);
    ct_tensor_release(x);
}

/* same shape and values within tol * (1 + |b|) */
static bool close(const ct_tensor *a, const ct_tensor *b, double tol) {
    if (!a || !b || ct_tensor_ndim(a) != ct_tensor_ndim(b)) return false;
    if (!tu_same_shape(a, ct_tensor_ndim(b), ct_tensor_shape(b))) return false;
    double *x = tu_read(a), *y = tu_read(b);
    bool ok = x && y;
    for (int64_t i = 0; ok && i < ct_tensor_numel(a); i++)
        ok = fabs(x[i] - y[i]) <= tol * (1 + fabs(y[i]));
    free(x), free(y);
    return ok;
}
static ct_tensor *randn(int nd, const int64_t *sh, uint64_t seed) {
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, nd, sh, seed, 0, &t));
    return t;
}

/* one layer, one direction: the exported cells step by step (an independent composition) */
TEST(against_the_cells) {
    const int64_t T = 4, N = 3, I = 2, H = 5;
    ct_tensor *x = randn(3, SH(T, N, I), 1), *h0 = randn(2, SH(N, H), 2);
    ct_tensor *wl[4] = {randn(2, SH(4 * H, I), 3), randn(2, SH(4 * H, H), 4),
                        randn(1, SH(4 * H), 5), randn(1, SH(4 * H), 6)};
    ct_tensor *wg[4] = {NULL}, *wr[4] = {NULL};
    for (int i = 0; i < 4; i++) {
        CHECK_OK(ct_tensor_narrow(ctx, wl[i], 0, 0, 3 * H, &wg[i]));
        CHECK_OK(ct_tensor_narrow(ctx, wl[i], 0, 0, H, &wr[i]));
    }
    for (int kind = 0; kind < 4; kind++) { /* lstm, gru, rnn tanh, rnn relu */
        ct_tensor *h = ct_tensor_retain(h0), *c = ct_tensor_retain(h0), *steps[4] = {NULL};
        ct_tensor **w = kind == 0 ? wl : kind == 1 ? wg : wr;
        for (int64_t t = 0; t < T; t++) {
            ct_tensor *xt = NULL, *hn = NULL, *cn = NULL;
            CHECK_OK(ct_select(ctx, x, 0, t, &xt));
            if (kind == 0)
                CHECK_OK(ct_lstm_cell(ctx, xt, h, c, w[0], w[1], w[2], w[3], &hn, &cn));
            else if (kind == 1)
                CHECK_OK(ct_gru_cell(ctx, xt, h, w[0], w[1], w[2], w[3], &hn));
            else if (kind == 2)
                CHECK_OK(ct_rnn_tanh_cell(ctx, xt, h, w[0], w[1], w[2], w[3], &hn));
            else
                CHECK_OK(ct_rnn_relu_cell(ctx, xt, h, w[0], w[1], w[2], w[3], &hn));
            ct_tensor_release(xt), ct_tensor_release(h), ct_tensor_release(c);
            h = hn, c = cn;
            steps[t] = ct_tensor_retain(h);
        }
        ct_tensor *ref = NULL, *y = NULL, *hy = NULL, *cy = NULL, *h03 = NULL;
        CHECK_OK(ct_stack(ctx, 4, (const ct_tensor *const *)steps, 0, &ref));
        CHECK_OK(ct_tensor_unsqueeze(ctx, h0, 0, &h03));
        const ct_tensor *const *pp = (const ct_tensor *const *)w;
        ct_rnn_opts o = {.relu = kind == 3};
        if (kind == 0)
            CHECK_OK(ct_lstm(ctx, x, h03, h03, pp, 4, NULL, &y, &hy, &cy));
        else if (kind == 1)
            CHECK_OK(ct_gru(ctx, x, h03, pp, 4, NULL, &y, &hy));
        else
            CHECK_OK(ct_rnn(ctx, x, h03, pp, 4, &o, &y, &hy));
        CHECK_MSG(close(ref, y, 1e-14), "kind %d: the cells' loop", kind);
        ct_tensor *last = NULL;
        CHECK_OK(ct_tensor_squeeze(ctx, hy, 0, &last));
        CHECK_MSG(close(last, h, 1e-14), "kind %d: h_n is the last step", kind);
        if (kind == 0) {
            ct_tensor *lc = NULL;
            CHECK_OK(ct_tensor_squeeze(ctx, cy, 0, &lc));
            CHECK_MSG(close(lc, c, 1e-14), "c_n is the last cell state");
            ct_tensor_release(lc);
        }
        ct_tensor_release(last), ct_tensor_release(ref), ct_tensor_release(y);
        ct_tensor_release(hy), ct_tensor_release(cy), ct_tensor_release(h03);
        ct_tensor_release(h), ct_tensor_release(c);
        for (int t = 0; t < 4; t++)
            ct_tensor_release(steps[t]);
    }
    ct_tensor_release(x), ct_tensor_release(h0);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(wl[i]), ct_tensor_release(wg[i]), ct_tensor_release(wr[i]);
}

/* dropout between layers is ct_dropout on each layer's output but the last, layer l drawing at
 * offset + l * numel; nothing in evaluation or with one layer */
TEST(dropout_between_layers) {
    const int64_t T = 3, N = 2, I = 4, H = 3;
    ct_tensor *x = randn(3, SH(T, N, I), 11);
    ct_tensor *w[6] = {randn(2, SH(3 * H, I), 12), randn(2, SH(3 * H, H), 13),
                       randn(2, SH(3 * H, H), 14), randn(2, SH(3 * H, H), 15),
                       randn(2, SH(3 * H, H), 16), randn(2, SH(3 * H, H), 17)};
    const ct_tensor *const *pp = (const ct_tensor *const *)w;
    ct_rnn_opts o = {.num_layers = 3,
                     .no_bias = true,
                     .dropout = 0.5,
                     .train = true,
                     .seed = 77,
                     .offset = 1000};
    ct_tensor *y = NULL, *hn = NULL, *y0 = NULL, *ev = NULL;
    CHECK_OK(ct_gru(ctx, x, NULL, pp, 6, &o, &y, &hn));
    /* layer by layer */
    ct_rnn_opts one = {.no_bias = true};
    ct_tensor *cur = ct_tensor_retain(x), *hl[3] = {NULL};
    for (int l = 0; l < 3; l++) {
        ct_tensor *yl = NULL;
        CHECK_OK(ct_gru(ctx, cur, NULL, pp + 2 * l, 2, &one, &yl, &hl[l]));
        ct_tensor_release(cur);
        cur = yl;
        if (l < 2) {
            ct_tensor *d = NULL;
            CHECK_OK(ct_dropout(ctx, cur, 0.5, true, 77, 1000 + (uint64_t)l * (uint64_t)(T * N * H),
                                &d));
            ct_tensor_release(cur);
            cur = d;
        }
    }
    CHECK_MSG(tu_same_values(y, cur), "3 layers with dropout = layer by layer with ct_dropout");
    ct_tensor *hs = NULL;
    CHECK_OK(ct_cat(ctx, 3, (const ct_tensor *const *)hl, 0, &hs));
    CHECK_MSG(tu_same_values(hn, hs), "h_n = the layers' final states");
    /* evaluation: no dropout; differs from training */
    o.train = false;
    CHECK_OK(ct_gru(ctx, x, NULL, pp, 6, &o, &ev, NULL));
    o.dropout = 0;
    CHECK_OK(ct_gru(ctx, x, NULL, pp, 6, &o, &y0, NULL));
    CHECK_MSG(tu_same_values(ev, y0), "dropout inactive in evaluation");
    CHECK_MSG(!tu_same_values(ev, y), "dropout active in training");
    ct_tensor_release(y), ct_tensor_release(hn), ct_tensor_release(y0), ct_tensor_release(ev);
    ct_tensor_release(cur), ct_tensor_release(hs), ct_tensor_release(x);
    for (int l = 0; l < 3; l++)
        ct_tensor_release(hl[l]);
    for (int i = 0; i < 6; i++)
        ct_tensor_release(w[i]);
}

/* float32 runs in float32 and agrees with float64 to float32 accuracy */
TEST(float32) {
    ct_tensor *x = mk(TB(l1_x), false), *p[16] = {NULL}, *xf = NULL, *pf[16] = {NULL};
    CHECK_OK(ct_cast(ctx, x, CT_FLOAT32, &xf));
    for (int i = 0; i < l1_np; i++) {
        p[i] = mk((tab){l1_p[i], l1_p_nd[i], l1_p_sh[i]}, false);
        CHECK_OK(ct_cast(ctx, p[i], CT_FLOAT32, &pf[i]));
    }
    ct_rnn_opts o = {.num_layers = 2, .bidirectional = true, .batch_first = true};
    ct_tensor *y = NULL, *hn = NULL, *cn = NULL;
    CHECK_OK(ct_lstm(ctx, xf, NULL, NULL, (const ct_tensor *const *)pf, l1_np, &o, &y, &hn, &cn));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32 && ct_tensor_dtype(cn) == CT_FLOAT32);
    ct_tensor *y64 = NULL, *h64 = NULL;
    CHECK_OK(ct_lstm(ctx, x, NULL, NULL, (const ct_tensor *const *)p, l1_np, &o, &y64, &h64, NULL));
    CHECK_MSG(close(y, y64, 2e-5), "float32 against float64");
    CHECK_MSG(close(hn, h64, 2e-5), "float32 h_n against float64");
    ct_tensor_release(y), ct_tensor_release(hn), ct_tensor_release(cn), ct_tensor_release(y64);
    ct_tensor_release(h64), ct_tensor_release(x), ct_tensor_release(xf);
    for (int i = 0; i < l1_np; i++)
        ct_tensor_release(p[i]), ct_tensor_release(pf[i]);
}

TEST(errors) {
    const int64_t H = 3;
    ct_tensor *x = randn(3, SH(4, 2, 5), 21),
              *w[5] = {randn(2, SH(4 * H, 5), 22), randn(2, SH(4 * H, H), 23),
                       randn(1, SH(4 * H), 24), randn(1, SH(4 * H), 25), randn(2, SH(2, H), 26)};
    const ct_tensor *const *pp = (const ct_tensor *const *)w;
    ct_tensor *y = NULL, *hn = NULL, *cn = NULL, *xi = NULL, *e = NULL, *h0 = NULL;
    CHECK_OK(ct_lstm(ctx, x, NULL, NULL, pp, 4, NULL, &y, NULL, NULL));
    ct_tensor_release(y), y = NULL;
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 3, NULL, &y, &hn, &cn), CT_ERR_INVALID_ARG);
    CHECK(y == NULL && hn == NULL && cn == NULL);
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 4, NULL, NULL, &hn, &cn), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_gru(ctx, x, NULL, pp, 4, NULL, &y, &hn), CT_ERR_SHAPE); /* 4H rows */
    ct_rnn_opts o = {.num_layers = 2};
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 4, &o, &y, NULL, NULL), CT_ERR_INVALID_ARG);
    o = (ct_rnn_opts){.proj_size = 2};
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 5, &o, &y, &hn, NULL),
             CT_ERR_SHAPE); /* w_hh (4H, P) */
    ct_tensor *wp[5] = {w[0], randn(2, SH(4 * H, 2), 28), w[2], w[3], w[4]};
    CHECK_OK(ct_lstm(ctx, x, NULL, NULL, (const ct_tensor *const *)wp, 5, &o, &y, &hn, NULL));
    ct_tensor_release(wp[1]);
    CHECK(tu_same_shape(y, 3, SH(4, 2, 2)) && tu_same_shape(hn, 3, SH(1, 2, 2)));
    ct_tensor_release(y), ct_tensor_release(hn), y = hn = NULL;
    o.proj_size = 3; /* not smaller than hidden */
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 5, &o, &y, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "smaller than hidden_size") != NULL);
    o = (ct_rnn_opts){.proj_size = 2};
    CHECK_ST(ct_gru(ctx, x, NULL, pp, 5, &o, &y, NULL), CT_ERR_INVALID_ARG);
    o = (ct_rnn_opts){.dropout = 1.5};
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 4, &o, &y, NULL, NULL), CT_ERR_INVALID_ARG);
    o = (ct_rnn_opts){.num_layers = -1};
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, pp, 4, &o, &y, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_lstm(ctx, x, NULL, NULL, NULL, 4, NULL, &y, NULL, NULL), CT_ERR_INVALID_ARG);
    /* wrong input size names w_ih */
    ct_tensor *x6 = randn(3, SH(4, 2, 6), 27);
    CHECK_ST(ct_lstm(ctx, x6, NULL, NULL, pp, 4, NULL, &y, NULL, NULL), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "w_ih") != NULL);
    /* empty sequence, integer input, 1-d input, bad h0 */
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(0, 2, 5), &e));
    CHECK_ST(ct_lstm(ctx, e, NULL, NULL, pp, 4, NULL, &y, NULL, NULL), CT_ERR_SHAPE);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 3, SH(4, 2, 5), &xi));
    CHECK_ST(ct_lstm(ctx, xi, NULL, NULL, pp, 4, NULL, &y, NULL, NULL), CT_ERR_DTYPE);
    CHECK_ST(ct_lstm(ctx, w[2], NULL, NULL, pp, 4, NULL, &y, NULL, NULL), CT_ERR_SHAPE);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 3, SH(1, 3, H), &h0)); /* batch 3 != 2 */
    CHECK_ST(ct_lstm(ctx, x, h0, NULL, pp, 4, NULL, &y, NULL, NULL), CT_ERR_SHAPE);
    CHECK_ST(ct_lstm(ctx, x, NULL, h0, pp, 4, NULL, &y, NULL, NULL), CT_ERR_SHAPE);
    CHECK(y == NULL);
    ct_tensor_release(x), ct_tensor_release(x6), ct_tensor_release(e), ct_tensor_release(xi);
    ct_tensor_release(h0);
    for (int i = 0; i < 5; i++)
        ct_tensor_release(w[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(as_torch);
    RUN(packed_sequences_as_torch);
    RUN(against_the_cells);
    RUN(dropout_between_layers);
    RUN(float32);
    RUN(errors);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

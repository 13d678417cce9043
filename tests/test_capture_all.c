/* Every public op passes the one dispatch point. (1) Captured eigh and MX calls (quantize,
 * dequantize, dequantize_into, mx_linear) replayed on new input data equal eager calls bit for
 * bit. (2) Each public call that computes, called once inside a capture, records nodes into the
 * graph; every other CT_API function of include/ctorch/ headers is listed with why it does not
 * compute. The headers are scanned at run time, so a new public function fails this test until it
 * is put in one of the two tables (and a computing one that bypasses the dispatch point records
 * nothing and fails too). */
#include "test_util.h"

#include <ctype.h>
#include <dirent.h>

static ct_ctx *ctx;
static unsigned long long rng = 7;

static ct_tensor *from_f64(ct_dtype dt, int nd, const int64_t *shape, const double *v) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    void *buf = malloc((size_t)(n + 1) * 8);
    for (int64_t i = 0; i < n; i++)
        tu_set(buf, dt, i, v[i]);
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, buf, dt, nd, shape, &t));
    free(buf);
    return t;
}
/* Random values (symmetric in the last two dims when sym) into an existing tensor. */
static void fill(ct_tensor *t, int sym) {
    int nd = ct_tensor_ndim(t);
    const int64_t *sh = ct_tensor_shape(t);
    int64_t n = ct_tensor_numel(t);
    double *v = malloc((size_t)(n + 1) * sizeof(double));
    for (int64_t i = 0; i < n; i++)
        v[i] = 4.0 * ct_t_uniform(&rng) - 2.0;
    if (sym && nd >= 2) {
        int64_t m = sh[nd - 1], mm = m * m;
        for (int64_t b = 0; b < n / mm; b++)
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < i; j++)
                    v[b * mm + j * m + i] = v[b * mm + i * m + j];
    }
    ct_tensor *h = from_f64(ct_tensor_dtype(t), nd, sh, v);
    CHECK_OK(ct_tensor_copy_(ctx, t, h));
    ct_tensor_release(h);
    free(v);
}
static bool same_bytes(const ct_tensor *a, const ct_tensor *b) {
    if (!a || !b) return a == b;
    size_t n = (size_t)ct_tensor_numel(a) * ct_dtype_size(ct_tensor_dtype(a));
    if (ct_tensor_numel(a) != ct_tensor_numel(b) || ct_tensor_dtype(a) != ct_tensor_dtype(b))
        return false;
    char *x = malloc(n + 1), *y = malloc(n + 1);
    bool ok = ct_tensor_to_host(a, x, n) == CT_OK && ct_tensor_to_host(b, y, n) == CT_OK &&
              memcmp(x, y, n) == 0;
    free(x), free(y);
    return ok;
}

/* ---- (1) eigh: captured, replayed on new data, equal to eager ---- */
typedef struct {
    ct_dtype dt;
    int64_t batch, n;
    int which; /* 0 eigh, 1 eigvalsh, 2 eigh_ex, 3 eigh_ex without vectors */
    int strided;
} eigh_case;

static void eigh_call(int which, const ct_tensor *a, ct_tensor **w, ct_tensor **v,
                      ct_tensor **info) {
    *w = *v = *info = NULL;
    if (which == 0) CHECK_OK(ct_linalg_eigh(ctx, a, 'L', w, v));
    if (which == 1) CHECK_OK(ct_linalg_eigvalsh(ctx, a, 'U', w));
    if (which == 2) CHECK_OK(ct_linalg_eigh_ex(ctx, a, 'L', w, v, info));
    if (which == 3) CHECK_OK(ct_linalg_eigh_ex(ctx, a, 'U', w, NULL, info));
}

TEST(eigh_replay_equals_eager) {
    const eigh_case cases[] = {
        {CT_FLOAT32, 37, 8, 0, 0},   {CT_FLOAT64, 3, 5, 2, 1},  {CT_FLOAT32, 3, 80, 0, 0},
        {CT_FLOAT64, 1, 70, 1, 0},   {CT_FLOAT16, 4, 6, 2, 0},  {CT_BFLOAT16, 5, 7, 3, 1},
        {CT_FLOAT32, 200, 12, 2, 0}, {CT_FLOAT32, 2, 40, 1, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const eigh_case *k = &cases[c];
        int64_t shape[3] = {k->batch, k->n, k->n};
        ct_tensor *a = NULL, *av = NULL;
        CHECK_OK(ct_tensor_empty(ctx, k->dt, 3, shape, &a));
        fill(a, 1);
        if (k->strided)
            CHECK_OK(ct_tensor_transpose(ctx, a, 1, 2, &av));
        else
            av = ct_tensor_retain(a);
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        ct_tensor *w = NULL, *v = NULL, *info = NULL;
        eigh_call(k->which, av, &w, &v, &info);
        CHECK_OK(ct_graph_capture_end(g));
        CHECK_MSG(ct_graph_num_nodes(g) >= 1, "case %zu: eigh recorded no node", c);
        CHECK_OK(ct_graph_instantiate(g));
        for (int rep = 0; rep < 2; rep++) {
            fill(a, 1); /* new data, same tensor */
            CHECK_OK(ct_graph_replay(g));
            ct_tensor *we = NULL, *ve = NULL, *ie = NULL;
            eigh_call(k->which, av, &we, &ve, &ie);
            CHECK_MSG(same_bytes(w, we) && same_bytes(v, ve) && same_bytes(info, ie),
                      "case %zu rep %d: replay differs from eager", c, rep);
            ct_tensor_release(we), ct_tensor_release(ve), ct_tensor_release(ie);
        }
        ct_tensor_release(w), ct_tensor_release(v), ct_tensor_release(info);
        ct_graph_free(g);
        ct_tensor_release(av), ct_tensor_release(a);
    }
}

/* ---- (1) MX: quantize, dequantize(_into), linear captured, replayed, equal to eager ---- */
static bool same_mx(const ct_mx_tensor *p, const ct_mx_tensor *q) {
    return same_bytes(ct_mx_codes(p), ct_mx_codes(q)) &&
           same_bytes(ct_mx_scales(p), ct_mx_scales(q));
}

TEST(mx_replay_equals_eager) {
    const struct {
        ct_mx_format fmt;
        int bs, axis;
        ct_dtype dt;
        ct_mx_scale_mode mode;
        int64_t rows, cols;
    } cases[] = {
        {CT_MXFP4_E2M1, 32, 1, CT_FLOAT32, CT_MX_SCALE_FLOOR, 6, 64},
        {CT_MXFP8_E4M3, 32, 0, CT_BFLOAT16, CT_MX_SCALE_RCEIL, 40, 24},
        {CT_MXINT8, 16, 1, CT_FLOAT16, CT_MX_SCALE_FLOOR, 3, 50},
        {CT_MXFP6_E2M3, 32, 1, CT_FLOAT32, CT_MX_SCALE_RCEIL, 300, 256},
        {CT_MXFP4_E2M1, 32, 1, CT_BFLOAT16, CT_MX_SCALE_FLOOR, 2, 4096},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int64_t xs[2] = {cases[c].rows, cases[c].cols};
        int64_t K = cases[c].cols, N = 24, ws[2] = {N, K}, bs1[1] = {N}, ls[2] = {5, K};
        ct_tensor *x = NULL, *wsrc = NULL, *bias = NULL, *lx = NULL, *into = NULL;
        CHECK_OK(ct_tensor_empty(ctx, cases[c].dt, 2, xs, &x));
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, ws, &wsrc));
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, bs1, &bias));
        CHECK_OK(ct_tensor_empty(ctx, cases[c].dt, 2, ls, &lx));
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, xs, &into));
        fill(x, 0), fill(wsrc, 0), fill(bias, 0), fill(lx, 0);
        ct_mx_tensor *wq = NULL; /* the weight: quantized once, eagerly */
        CHECK_OK(ct_mx_quantize(ctx, wsrc, cases[c].fmt, cases[c].bs, 1, cases[c].mode, &wq));

        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        ct_mx_tensor *q = NULL;
        ct_tensor *d = NULL, *y = NULL;
        CHECK_OK(
            ct_mx_quantize(ctx, x, cases[c].fmt, cases[c].bs, cases[c].axis, cases[c].mode, &q));
        CHECK_OK(ct_mx_dequantize(ctx, q, cases[c].dt, &d));
        CHECK_OK(ct_mx_dequantize_into(ctx, q, into));
        CHECK_OK(ct_mx_linear(ctx, lx, wq, c % 2 ? NULL : bias, &y));
        CHECK_OK(ct_graph_capture_end(g));
        CHECK_MSG(ct_graph_num_nodes(g) >= 4, "case %zu: %lld nodes", c,
                  (long long)ct_graph_num_nodes(g));
        CHECK_OK(ct_graph_instantiate(g));
        for (int rep = 0; rep < 2; rep++) {
            fill(x, 0), fill(lx, 0), fill(bias, 0);
            CHECK_OK(ct_graph_replay(g));
            ct_mx_tensor *qe = NULL;
            ct_tensor *de = NULL, *ye = NULL, *ie = NULL;
            CHECK_OK(ct_mx_quantize(ctx, x, cases[c].fmt, cases[c].bs, cases[c].axis, cases[c].mode,
                                    &qe));
            CHECK_OK(ct_mx_dequantize(ctx, qe, cases[c].dt, &de));
            CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, xs, &ie));
            CHECK_OK(ct_mx_dequantize_into(ctx, qe, ie));
            CHECK_OK(ct_mx_linear(ctx, lx, wq, c % 2 ? NULL : bias, &ye));
            CHECK_MSG(same_mx(q, qe), "case %zu: quantize replay differs", c);
            CHECK_MSG(same_bytes(d, de) && same_bytes(into, ie), "case %zu: dequantize differs", c);
            CHECK_MSG(same_bytes(y, ye), "case %zu: mx_linear replay differs", c);
            ct_mx_tensor_free(qe);
            ct_tensor_release(de), ct_tensor_release(ye), ct_tensor_release(ie);
        }
        ct_mx_tensor_free(q);
        ct_tensor_release(d), ct_tensor_release(y);
        ct_graph_free(g);
        ct_mx_tensor_free(wq);
        ct_tensor_release(x), ct_tensor_release(wsrc), ct_tensor_release(bias);
        ct_tensor_release(lx), ct_tensor_release(into);
    }
}

/* ---- (2) every public op once inside a capture ---- */
static ct_tensor *A, *B, *C, *Mt, *Cond, *Idx, *Emb, *Sym, *Nc, *Dst, *Q8, *GIdx, *Src6, *Cx;
static ct_mx_tensor *Wq;
static ct_tensor *OUT; /* op outputs land here and are released after each call */
static ct_tensor *OUT2, *OUT3;
static ct_mx_tensor *QOUT;
static ct_sparse24 *Sp, *SPOUT; /* a 2:4 matrix (4 x 8) and the 2:4 outputs */
static ct_block_mask *BMask;    /* causal, for a (1, 1, 4, 8) attention */
static const double LO = -0.5, HI = 0.5;
static const int DIM1 = 1;

#define OP1(f)                                                                                     \
    static ct_status op_##f(void) { return ct_##f(ctx, A, &OUT); }
#define OP2(f)                                                                                     \
    static ct_status op_##f(void) { return ct_##f(ctx, A, B, &OUT); }
#define OPS(f)                                                                                     \
    static ct_status op_##f(void) { return ct_##f(ctx, A, 0.5, &OUT); }
#define OPI(f)                                                                                     \
    static ct_status op_##f(void) { return ct_##f(ctx, Dst, B); }
#define OPIS(f)                                                                                    \
    static ct_status op_##f(void) { return ct_##f(ctx, Dst, 0.5); }
/* clang-format off */
OP2(add)
OP2(sub)
OP2(mul)
OP2(div)
OP2(eq)
OP2(ne)
OP2(lt)
OP2(le)
OP2(gt)
OP2(ge)
OPS(add_scalar)
OPS(sub_scalar)
OPS(mul_scalar)
OPS(div_scalar)
OPS(eq_scalar)
OPS(ne_scalar)
OPS(lt_scalar)
OPS(le_scalar)
OPS(gt_scalar)
OPS(ge_scalar)
OPS(pow)
OPI(add_)
OPI(sub_)
OPI(mul_)
OPI(div_)
OPIS(add_scalar_)
OPIS(sub_scalar_)
OPIS(mul_scalar_)
OPIS(div_scalar_)
OP1(neg)
OP1(abs)
OP1(exp)
OP1(log)
OP1(sqrt)
OP1(rsqrt)
OP1(tanh)
OP1(sigmoid)
OP1(relu)
/* clang-format on */
/* clang-format off */
OP1(erf)
OP1(erfc)
OP1(sin)
OP1(cos)
OP1(exp2)
OP1(log2)
OP1(log1p)
OP1(expm1)
OP1(tan)
OP1(atan)
OP1(asin)
OP1(acos)
OP1(sinh)
OP1(cosh)
OP1(asinh)
OP1(acosh)
OP1(atanh)
OP1(log10)
OP1(reciprocal)
OP2(atan2)
OP2(hypot)
OP2(logaddexp)
OP2(logaddexp2)
OP2(xlogy)
OP2(copysign)
OP2(fmax)
OP2(fmin)
OP2(heaviside)
OP2(pow_tensor)
OP1(square)
OP1(deg2rad)
OP1(rad2deg)
OP1(frac)
OP1(sinc)
OP1(signbit)
OP1(lgamma)
OP1(digamma)
OP1(erfinv)
OP1(i0)
OP1(special_i0e)
OP1(special_i1)
OP1(special_i1e)
OP1(special_ndtr)
OP1(special_ndtri)
OP1(special_log_ndtr)
OP1(special_erfcx)
OP1(special_entr)
OP2(special_xlog1py)
OP2(nextafter)
OP1(floor)
OP1(ceil)
OP1(round)
OP1(trunc)
OP1(sign)
OP1(silu)
OP1(mish)
OP1(isnan)
OP1(isinf)
OP1(isfinite)
OP1(logical_not)
OP2(maximum)
OP2(minimum)
OP2(remainder)
OP2(fmod)
OP2(logical_and)
OP2(logical_or)
OP2(logical_xor)
OPS(remainder_scalar)
OPS(fmod_scalar)
OPS(leaky_relu)
OPS(elu)
/* clang-format on */
static ct_status op_softplus(void) { return ct_softplus(ctx, A, 1.0, 20.0, &OUT); }
static ct_status op_hardtanh(void) { return ct_hardtanh(ctx, A, -0.5, 0.5, &OUT); }
static ct_status op_isclose(void) { return ct_isclose(ctx, A, B, 1e-5, 1e-8, false, &OUT); }
static ct_status op_logit(void) { return ct_logit(ctx, A, 1e-6, &OUT); }
static ct_status op_polygamma(void) { return ct_polygamma(ctx, 2, A, &OUT); }
static ct_status op_mvlgamma(void) {
    ct_status st = ct_add_scalar(ctx, A, 3, &OUT2);
    return st == CT_OK ? ct_mvlgamma(ctx, OUT2, 2, &OUT) : st;
}
static ct_status op_nan_to_num(void) { return ct_nan_to_num(ctx, A, NULL, NULL, NULL, &OUT); }
static ct_status op_lerp(void) { return ct_lerp(ctx, A, B, C, &OUT); }
static ct_status op_div_mode(void) { return ct_div_mode(ctx, A, B, CT_ROUND_TRUNC, &OUT); }
static ct_status op_div_scalar_mode(void) {
    return ct_div_scalar_mode(ctx, A, 0.5, CT_ROUND_FLOOR, &OUT);
}
static ct_status op_floor_divide(void) { return ct_floor_divide(ctx, A, B, &OUT); }
static ct_status op_lerp_scalar(void) { return ct_lerp_scalar(ctx, A, B, 0.25, &OUT); }
/* the integer ops on int32 copies of A and B (made inside the capture too) */
#define OPINT(f)                                                                                   \
    static ct_status op_##f(void) {                                                                \
        ct_status st = ct_cast(ctx, A, CT_INT32, &OUT2);                                           \
        if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT3);                                    \
        return st == CT_OK ? ct_##f(ctx, OUT2, OUT3, &OUT) : st;                                   \
    }
OPINT(bitwise_and)
OPINT(gcd)
OPINT(lcm)
OPINT(bitwise_or)
OPINT(bitwise_xor)
OPINT(bitwise_left_shift)
OPINT(bitwise_right_shift)
static ct_status op_bitwise_not(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT2);
    return st == CT_OK ? ct_bitwise_not(ctx, OUT2, &OUT) : st;
}
static ct_status op_add_scaled(void) { return ct_add_scaled(ctx, A, B, 2.0, &OUT); }
static ct_status op_sub_scaled(void) { return ct_sub_scaled(ctx, A, B, 2.0, &OUT); }
static ct_status op_gelu(void) { return ct_gelu(ctx, A, CT_GELU_TANH, &OUT); }
static ct_status op_clamp(void) { return ct_clamp(ctx, A, &LO, &HI, &OUT); }
static ct_status op_where(void) { return ct_where(ctx, Cond, A, B, &OUT); }
static ct_status op_addcmul(void) { return ct_addcmul(ctx, A, B, C, 0.5, &OUT); }
static ct_status op_addcdiv(void) { return ct_addcdiv(ctx, A, B, C, 0.5, &OUT); }
static ct_status op_cast(void) { return ct_cast(ctx, A, CT_FLOAT64, &OUT); }
static ct_status op_sum(void) { return ct_sum(ctx, A, 1, &DIM1, false, &OUT); }
static ct_status op_mean(void) { return ct_mean(ctx, A, 1, &DIM1, true, &OUT); }
static ct_status op_amax(void) { return ct_amax(ctx, A, 1, &DIM1, false, &OUT); }
static ct_status op_amin(void) { return ct_amin(ctx, A, 0, NULL, false, &OUT); }
static ct_status op_argmax(void) { return ct_argmax(ctx, A, 1, false, &OUT); }
static ct_status op_softmax(void) { return ct_softmax(ctx, A, 1, &OUT); }
static ct_status op_log_softmax(void) { return ct_log_softmax(ctx, A, 1, &OUT); }
static ct_status op_layer_norm(void) { return ct_layer_norm(ctx, A, 1, NULL, NULL, 1e-5, &OUT); }
static ct_status op_matmul(void) { return ct_matmul(ctx, A, Mt, &OUT); }
static ct_status op_bmm(void) { return ct_bmm(ctx, Sym, Sym, &OUT); }
static ct_status op_embedding(void) { return ct_embedding(ctx, Emb, Idx, &OUT); }
static const int64_t SH[2] = {4, 8};
static ct_status op_tensor_zeros(void) { return ct_tensor_zeros(ctx, CT_FLOAT32, 2, SH, &OUT); }
static ct_status op_tensor_full(void) { return ct_tensor_full(ctx, CT_FLOAT32, 2, SH, 3.0, &OUT); }
static ct_status op_tensor_arange(void) {
    return ct_tensor_arange(ctx, CT_FLOAT32, 0, 10, 1, &OUT);
}
static ct_status op_tensor_rand(void) { return ct_tensor_rand(ctx, CT_FLOAT32, 2, SH, 1, 0, &OUT); }
static ct_status op_tensor_randn(void) {
    return ct_tensor_randn(ctx, CT_FLOAT32, 2, SH, 1, 0, &OUT);
}
static ct_status op_tensor_contiguous(void) { return ct_tensor_contiguous(ctx, Nc, &OUT); }
static ct_status op_tensor_clone(void) { return ct_tensor_clone(ctx, A, &OUT); }
static ct_status op_tensor_copy_(void) { return ct_tensor_copy_(ctx, Dst, A); }
static ct_status op_tensor_fill_(void) { return ct_tensor_fill_(ctx, Dst, 2); }
static ct_status op_tensor_zero_(void) { return ct_tensor_zero_(ctx, Dst); }
static ct_status op_linalg_eigh(void) { return ct_linalg_eigh(ctx, Sym, 'L', &OUT, &OUT2); }
static ct_status op_linalg_eigvalsh(void) { return ct_linalg_eigvalsh(ctx, Sym, 'L', &OUT); }
static ct_status op_linalg_cholesky(void) { return ct_linalg_cholesky(ctx, Sym, false, &OUT); }
static ct_status op_linalg_cholesky_ex(void) {
    return ct_linalg_cholesky_ex(ctx, Sym, true, &OUT, &OUT2);
}
static ct_status op_linalg_inv(void) { return ct_linalg_inv(ctx, Sym, &OUT); }
static ct_status op_linalg_solve(void) { return ct_linalg_solve(ctx, Sym, Sym, &OUT); }
static ct_status op_linalg_det(void) { return ct_linalg_det(ctx, Sym, &OUT); }
static ct_status op_linalg_slogdet(void) { return ct_linalg_slogdet(ctx, Sym, &OUT, &OUT2); }
static ct_status op_linalg_qr(void) { return ct_linalg_qr(ctx, A, &OUT, &OUT2); }
static ct_status op_linalg_svd(void) { return ct_linalg_svd(ctx, A, &OUT, &OUT2, &OUT3); }
static ct_status op_linalg_svd_full(void) {
    return ct_linalg_svd_full(ctx, A, true, &OUT, &OUT2, &OUT3);
}
static ct_status op_linalg_qr_mode(void) {
    return ct_linalg_qr_mode(ctx, Mt, "complete", &OUT, &OUT2);
}
static ct_status op_linalg_ldl_factor(void) {
    return ct_linalg_ldl_factor(ctx, Sym, false, &OUT, &OUT2);
}
static ct_status op_linalg_ldl_factor_ex(void) {
    return ct_linalg_ldl_factor_ex(ctx, Sym, false, &OUT, &OUT2, &OUT3);
}
static ct_status op_linalg_ldl_solve(void) { /* pivots of sytrf's own, captured too */
    ct_tensor *info = NULL;
    ct_status st = ct_linalg_ldl_factor_ex(ctx, Sym, false, &OUT2, &OUT3, &info);
    if (st == CT_OK) st = ct_linalg_ldl_solve(ctx, OUT2, OUT3, Sym, false, &OUT);
    ct_tensor_release(info);
    return st;
}
static ct_status op_linalg_eigh_ex(void) {
    return ct_linalg_eigh_ex(ctx, Sym, 'L', &OUT, &OUT2, &OUT3);
}
static ct_status op_mx_quantize(void) {
    return ct_mx_quantize(ctx, A, CT_MXFP8_E4M3, 8, 1, CT_MX_SCALE_FLOOR, &QOUT);
}
static ct_status op_mx_dequantize(void) { return ct_mx_dequantize(ctx, Wq, CT_FLOAT32, &OUT); }
static ct_status op_mx_dequantize_into(void) { return ct_mx_dequantize_into(ctx, Wq, Q8); }
static ct_status op_mx_linear(void) { return ct_mx_linear(ctx, A, Wq, NULL, &OUT); }
static ct_status op_sparse24_prune(void) {
    return ct_sparse24_prune(ctx, A, CT_FLOAT8_E4M3FN, &SPOUT);
}
static ct_status op_sparse24_prune_ex(void) {
    const ct_sparse24_options o = {sizeof o, NULL};
    return ct_sparse24_prune_ex(ctx, A, CT_BFLOAT16, &o, &SPOUT);
}
static ct_status op_sparse24_to_dense(void) {
    return ct_sparse24_to_dense(ctx, Sp, CT_FLOAT32, &OUT);
}
static ct_status op_sparse24_mm(void) {
    return ct_sparse24_mm(ctx, Sp, Mt, NULL, 2.0, CT_BFLOAT16, &OUT);
}
static ct_status op_sparse24_mm_ex(void) {
    const ct_sparse24_mm_options o = {sizeof o, 0.5};
    ct_tensor *at = NULL; /* a strided 8 x 4 B */
    ct_status st = ct_tensor_transpose(ctx, A, 0, 1, &at);
    if (st == CT_OK) st = ct_sparse24_mm_ex(ctx, Sp, at, NULL, 1.0, CT_FLOAT32, &o, &OUT);
    ct_tensor_release(at);
    return st;
}
static ct_status op_sparse24_linear(void) { return ct_sparse24_linear(ctx, A, Sp, NULL, &OUT); }
/* A as q = k = v of shape (1, 1, 4, 8) */
static ct_status op_flex_attention(void) {
    const int64_t s4[4] = {1, 1, 4, 8};
    ct_tensor *q = NULL;
    const ct_flex_options o = {sizeof o, 0, NULL, NULL, BMask, false, true, NULL, false};
    ct_status st = ct_tensor_reshape(ctx, A, 4, s4, &q);
    if (st == CT_OK) st = ct_flex_attention(ctx, q, q, q, &o, &OUT, &OUT2);
    ct_tensor_release(q);
    return st;
}
static ct_status op_flex_attention_backward(void) {
    const int64_t s4[4] = {1, 1, 4, 8};
    ct_tensor *q = NULL, *o1 = NULL, *l1 = NULL, *g[3] = {0};
    const ct_flex_options o = {sizeof o, 0, NULL, NULL, BMask, false, true, NULL, false};
    ct_status st = ct_tensor_reshape(ctx, A, 4, s4, &q);
    if (st == CT_OK) st = ct_flex_attention(ctx, q, q, q, &o, &o1, &l1);
    if (st == CT_OK)
        st = ct_flex_attention_backward(ctx, q, q, q, o1, l1, o1, l1, &o, &g[0], &g[1], &g[2]);
    ct_tensor_release(q), ct_tensor_release(o1), ct_tensor_release(l1);
    for (int i = 0; i < 3; i++)
        ct_tensor_release(g[i]);
    return st;
}
static ct_status loop_never(ct_ctx *c, void *u, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)u, (void)n, (void)v;
    return ct_tensor_zeros(c, CT_BOOL, 0, NULL, pred);
}
static ct_status loop_body(ct_ctx *c, void *u, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)u, (void)n;
    return ct_tensor_clone(c, v[0], &next[0]);
}
static ct_status op_while_loop(void) {
    return ct_while_loop(ctx, loop_never, loop_body, NULL, 1, &A, &OUT);
}
/* autograd: a leaf GP requiring grad and GL = sum(GP * GP), made before the captures */
static ct_tensor *GP, *GL, *Tgt, *Prob, *Prelu_w, *V8, *V3;
static ct_status op_dot(void) { return ct_dot(ctx, V8, V8, &OUT); }
static ct_status op_mv(void) { return ct_mv(ctx, A, V8, &OUT); }
static ct_status op_outer(void) { return ct_outer(ctx, V8, V3, &OUT); }
static ct_status op_trace(void) { return ct_trace(ctx, A, &OUT); }
static ct_status op_diagonal(void) { return ct_diagonal(ctx, Nc, 1, 0, 1, &OUT); } /* a copy */
static ct_status op_diag(void) { return ct_diag(ctx, V3, 1, &OUT); }
static ct_status op_tile(void) { return ct_tile(ctx, A, 1, (const int64_t[]){2}, &OUT); }
static ct_status op_diff(void) { return ct_diff(ctx, A, 1, 1, NULL, NULL, &OUT); }
static ct_status op_nansum(void) { return ct_nansum(ctx, A, 1, &DIM1, false, &OUT); }
static ct_status op_nanmean(void) { return ct_nanmean(ctx, A, 1, &DIM1, false, &OUT); }
static ct_status op_var_mean(void) {
    return ct_var_mean(ctx, A, 1, &DIM1, 1.0, false, &OUT, &OUT2);
}
static ct_status op_std_mean(void) {
    return ct_std_mean(ctx, A, 1, &DIM1, 1.0, false, &OUT, &OUT2);
}
static ct_status op_einsum(void) {
    return ct_einsum(ctx, "ij,kj->ik", 2, (const ct_tensor *const[]){A, B}, &OUT);
}
static ct_status op_median(void) { return ct_median(ctx, A, &OUT); }
static ct_status op_nanmedian(void) { return ct_nanmedian(ctx, A, &OUT); }
static ct_status op_median_dim(void) { return ct_median_dim(ctx, A, 1, false, &OUT, &OUT2); }
static ct_status op_nanmedian_dim(void) { return ct_nanmedian_dim(ctx, A, 1, true, &OUT, &OUT2); }
static ct_status op_cummax(void) { return ct_cummax(ctx, A, 1, &OUT, &OUT2); }
static ct_status op_cummin(void) { return ct_cummin(ctx, A, 0, &OUT, &OUT2); }
static ct_status op_logcumsumexp(void) { return ct_logcumsumexp(ctx, A, 1, &OUT); }
static ct_status op_rot90(void) { return ct_rot90(ctx, A, 1, 0, 1, &OUT); }
static ct_status op_kron(void) { return ct_kron(ctx, V3, A, &OUT); }
static ct_status op_repeat_interleave(void) { return ct_repeat_interleave(ctx, A, 2, 1, &OUT); }
static ct_status op_searchsorted(void) { return ct_searchsorted(ctx, V8, A, false, false, &OUT); }
static ct_status op_bucketize(void) { return ct_bucketize(ctx, A, V8, true, true, &OUT); }
static ct_status op_isin(void) { return ct_isin(ctx, A, V3, false, &OUT); }
static ct_status op_aminmax(void) { return ct_aminmax(ctx, A, 1, &DIM1, false, &OUT, &OUT2); }
static ct_status op_tensor_randint(void) {
    return ct_tensor_randint(ctx, CT_INT64, 0, 10, 2, (const int64_t[]){4, 8}, 1, 0, &OUT);
}
static ct_status op_randperm(void) { return ct_randperm(ctx, 16, CT_INT64, 1, 0, &OUT); }
static ct_status op_rand_like(void) { return ct_rand_like(ctx, A, 1, 0, &OUT); }
static ct_status op_randn_like(void) { return ct_randn_like(ctx, A, 1, 0, &OUT); }
static ct_status op_cov(void) { return ct_cov(ctx, A, 1, &OUT); }
static ct_status op_corrcoef(void) { return ct_corrcoef(ctx, A, &OUT); }
static ct_status op_trapezoid(void) { return ct_trapezoid(ctx, A, 0.5, 1, &OUT); }
static ct_status op_cross(void) { return ct_cross(ctx, Src6, Src6, 1, &OUT); }
static ct_status op_backward(void) {
    ct_tensor_zero_grad(GP);
    return ct_backward(ctx, GL, NULL, true);
}
static ct_status op_autograd_grad(void) {
    const ct_tensor *o[1] = {GL}, *i[1] = {GP};
    return ct_autograd_grad(ctx, 1, o, NULL, 1, i, true, false, &OUT);
}
static ct_status op_autograd_grad_ex(void) {
    const ct_tensor *o[1] = {GL}, *i[1] = {GP};
    const ct_grad_options opts = {sizeof opts, true, false, true};
    return ct_autograd_grad_ex(ctx, 1, o, NULL, 1, i, &opts, &OUT);
}
/* the functional API's function: sum(tanh(x) * x); a custom function: 2 x with backward 2 g */
static ct_status fa_fn(ct_ctx *c, void *user, int n, const ct_tensor *const *in, ct_tensor **out) {
    (void)user, (void)n;
    ct_tensor *t = NULL, *p = NULL;
    ct_status st = ct_tanh(c, in[0], &t);
    if (st == CT_OK) st = ct_mul(c, t, in[0], &p);
    if (st == CT_OK) st = ct_sum(c, p, 0, NULL, false, out);
    ct_tensor_release(t), ct_tensor_release(p);
    return st;
}
static ct_status cf_fwd(ct_ctx *c, void *user, int n_in, const ct_tensor *const *in, int n_out,
                        ct_tensor **out) {
    (void)user, (void)n_in, (void)n_out;
    return ct_mul_scalar(c, in[0], 2.0, &out[0]);
}
static ct_status cf_bwd(ct_ctx *c, void *user, int n_out, const ct_tensor *const *out,
                        const ct_tensor *const *g, int n_in, const bool *need, ct_tensor **gin) {
    (void)user, (void)n_out, (void)out, (void)n_in, (void)need;
    return ct_mul_scalar(c, g[0], 2.0, &gin[0]);
}
static ct_status op_autograd_function_apply(void) {
    const ct_autograd_function f = {sizeof f, "TwiceBackward", cf_fwd, cf_bwd, NULL};
    const ct_tensor *in[1] = {GP};
    return ct_autograd_function_apply(ctx, &f, NULL, 1, in, 1, &OUT);
}
static ct_status op_checkpoint(void) {
    const ct_tensor *in[1] = {A};
    return ct_checkpoint(ctx, fa_fn, NULL, 1, in, &OUT);
}
static ct_status op_autograd_vjp(void) {
    const ct_tensor *in[1] = {A};
    return ct_autograd_vjp(ctx, fa_fn, NULL, 1, in, NULL, NULL, &OUT2, &OUT);
}
static ct_status op_autograd_jvp(void) {
    const ct_tensor *in[1] = {A}, *v[1] = {A};
    return ct_autograd_jvp(ctx, fa_fn, NULL, 1, in, v, NULL, &OUT2, &OUT);
}
static ct_status op_autograd_jacobian(void) {
    const ct_tensor *in[1] = {A};
    return ct_autograd_jacobian(ctx, fa_fn, NULL, 1, in, NULL, &OUT);
}
static ct_status op_autograd_hessian(void) {
    const ct_tensor *in[1] = {V3};
    return ct_autograd_hessian(ctx, fa_fn, NULL, 1, in, NULL, &OUT);
}
static ct_status op_autograd_vhp(void) {
    const ct_tensor *in[1] = {A}, *v[1] = {A};
    return ct_autograd_vhp(ctx, fa_fn, NULL, 1, in, v, NULL, &OUT2, &OUT);
}
static ct_status op_autograd_hvp(void) {
    const ct_tensor *in[1] = {A}, *v[1] = {A};
    return ct_autograd_hvp(ctx, fa_fn, NULL, 1, in, v, NULL, &OUT2, &OUT);
}
static ct_status op_linear(void) { return ct_linear(ctx, A, B, NULL, &OUT); }
static ct_status op_cross_entropy(void) {
    return ct_cross_entropy(ctx, A, Tgt, CT_REDUCTION_MEAN, 0.1, &OUT);
}
static ct_status op_mse_loss(void) { return ct_mse_loss(ctx, A, B, CT_REDUCTION_SUM, &OUT); }
static ct_status op_nll_loss(void) { return ct_nll_loss(ctx, A, Tgt, CT_REDUCTION_NONE, &OUT); }
static ct_status op_cross_entropy_ex(void) {
    return ct_cross_entropy_ex(ctx, A, Tgt, NULL, 1, CT_REDUCTION_MEAN, 0.1, &OUT);
}
static ct_status op_l1_loss(void) { return ct_l1_loss(ctx, A, B, CT_REDUCTION_MEAN, &OUT); }
static ct_status op_smooth_l1_loss(void) {
    return ct_smooth_l1_loss(ctx, A, B, CT_REDUCTION_SUM, 0.5, &OUT);
}
static ct_status op_huber_loss(void) {
    return ct_huber_loss(ctx, A, B, CT_REDUCTION_NONE, 0.5, &OUT);
}
static ct_status op_binary_cross_entropy(void) {
    return ct_binary_cross_entropy(ctx, Prob, Prob, NULL, CT_REDUCTION_MEAN, &OUT);
}
static ct_status op_binary_cross_entropy_with_logits(void) {
    return ct_binary_cross_entropy_with_logits(ctx, A, Prob, NULL, NULL, CT_REDUCTION_SUM, &OUT);
}
static ct_status op_kl_div(void) {
    return ct_kl_div(ctx, A, Prob, CT_REDUCTION_BATCHMEAN, false, &OUT);
}
static ct_status op_normalize(void) { return ct_normalize(ctx, A, 2, 1, 1e-12, &OUT); }
static ct_status op_cosine_similarity(void) {
    return ct_cosine_similarity(ctx, A, B, 1, 1e-8, &OUT);
}
static ct_status op_hardsigmoid(void) { return ct_hardsigmoid(ctx, A, &OUT); }
static ct_status op_hardswish(void) { return ct_hardswish(ctx, A, &OUT); }
static ct_status op_logsigmoid(void) { return ct_logsigmoid(ctx, A, &OUT); }
static ct_status op_softsign(void) { return ct_softsign(ctx, A, &OUT); }
static ct_status op_selu(void) { return ct_selu(ctx, A, &OUT); }
static ct_status op_relu6(void) { return ct_relu6(ctx, A, &OUT); }
static ct_status op_tanhshrink(void) { return ct_tanhshrink(ctx, A, &OUT); }
static ct_status op_celu(void) { return ct_celu(ctx, A, 0.7, &OUT); }
static ct_status op_glu(void) { return ct_glu(ctx, A, 1, &OUT); }
static ct_status op_softmin(void) { return ct_softmin(ctx, A, 1, &OUT); }
static ct_status op_prelu(void) { return ct_prelu(ctx, A, Prelu_w, &OUT); }
static ct_status op_softshrink(void) { return ct_softshrink(ctx, A, 0.5, &OUT); }
static ct_status op_hardshrink(void) { return ct_hardshrink(ctx, A, 0.5, &OUT); }
static ct_status op_threshold(void) { return ct_threshold(ctx, A, 0.1, 20, &OUT); }
static ct_status op_nll_loss_ex(void) {
    return ct_nll_loss_ex(ctx, A, Tgt, NULL, 1, CT_REDUCTION_SUM, &OUT);
}
static ct_status op_tensor_ones(void) { return ct_tensor_ones(ctx, CT_FLOAT32, 2, SH, &OUT); }
static ct_status op_tensor_eye(void) { return ct_tensor_eye(ctx, CT_FLOAT32, 3, 4, &OUT); }
static ct_status op_tensor_linspace(void) {
    return ct_tensor_linspace(ctx, CT_FLOAT32, 0, 1, 7, &OUT);
}
static ct_status op_zeros_like(void) { return ct_zeros_like(ctx, A, &OUT); }
static ct_status op_ones_like(void) { return ct_ones_like(ctx, A, &OUT); }
static ct_status op_full_like(void) { return ct_full_like(ctx, A, 2.0, &OUT); }
static ct_status op_tril(void) { return ct_tril(ctx, A, 1, &OUT); }
static ct_status op_triu(void) { return ct_triu(ctx, A, -1, &OUT); }
#define OPLIST(f)                                                                                  \
    static ct_status op_##f(void) {                                                                \
        const ct_tensor *ab[2] = {A, B};                                                           \
        return ct_##f(ctx, 2, ab, &OUT);                                                           \
    }
OPLIST(hstack)
OPLIST(vstack)
OPLIST(dstack)
OPLIST(column_stack)
OPLIST(block_diag)
static ct_status op_tensordot(void) {
    const int da[1] = {1}, db[1] = {0};
    return ct_tensordot(ctx, A, Mt, 1, da, db, &OUT);
}
/* row / column sums of A made inside the capture as the vector operands */
static ct_status op_addmv(void) {
    ct_status st = ct_sum(ctx, A, 1, (const int[]){0}, false, &OUT2);
    if (st == CT_OK) st = ct_sum(ctx, A, 1, (const int[]){1}, false, &OUT3);
    return st == CT_OK ? ct_addmv(ctx, OUT3, A, OUT2, 0.5, 2, &OUT) : st;
}
static ct_status op_addr(void) {
    ct_status st = ct_sum(ctx, A, 1, (const int[]){0}, false, &OUT2);
    if (st == CT_OK) st = ct_sum(ctx, A, 1, (const int[]){1}, false, &OUT3);
    return st == CT_OK ? ct_addr(ctx, A, OUT3, OUT2, 0.5, 2, &OUT) : st;
}
static ct_status op_cartesian_prod(void) {
    ct_status st = ct_sum(ctx, A, 1, (const int[]){0}, false, &OUT2);
    if (st == CT_OK) st = ct_sum(ctx, A, 1, (const int[]){1}, false, &OUT3);
    const ct_tensor *l[2] = {OUT3, OUT2};
    return st == CT_OK ? ct_cartesian_prod(ctx, 2, l, &OUT) : st;
}
static ct_status op_vander(void) {
    ct_status st = ct_sum(ctx, A, 1, (const int[]){1}, false, &OUT2);
    return st == CT_OK ? ct_vander(ctx, OUT2, 3, false, &OUT) : st;
}
static ct_status op_diag_embed(void) { return ct_diag_embed(ctx, A, 1, 0, 2, &OUT); }
static ct_status op_linalg_matrix_power(void) { return ct_linalg_matrix_power(ctx, Sym, 3, &OUT); }
static ct_status op_logdet(void) { return ct_logdet(ctx, Sym, &OUT); }
static ct_status op_tensor_logspace(void) {
    return ct_tensor_logspace(ctx, CT_FLOAT32, 0, 2, 7, 10, &OUT);
}
/* the losses on A, B (4, 8) with +-1 targets made inside the capture from C's sign */
#define OPLOSS(f, ...)                                                                             \
    static ct_status op_##f(void) {                                                                \
        ct_status st = ct_sign(ctx, C, &OUT2);                                                     \
        return st == CT_OK ? ct_##f(ctx, __VA_ARGS__, &OUT) : st;                                  \
    }
OPLOSS(margin_ranking_loss, A, B, OUT2, 0.2, CT_REDUCTION_MEAN)
OPLOSS(hinge_embedding_loss, A, OUT2, 1.0, CT_REDUCTION_SUM)
OPLOSS(soft_margin_loss, A, OUT2, CT_REDUCTION_NONE)
OPLOSS(triplet_margin_loss, A, B, C, 1, 2, 1e-6, true, CT_REDUCTION_MEAN)
OPLOSS(triplet_margin_with_distance_loss, A, B, C, NULL, NULL, 1, true, CT_REDUCTION_MEAN)
OPLOSS(multilabel_soft_margin_loss, A, OUT2, NULL, CT_REDUCTION_MEAN)
OPLOSS(pairwise_distance, A, B, 2, 1e-6, false)
static ct_status op_cosine_embedding_loss(void) {
    ct_status st = ct_sum(ctx, C, 1, (const int[]){1}, false, &OUT2);
    if (st == CT_OK) st = ct_sign(ctx, OUT2, &OUT3);
    return st == CT_OK ? ct_cosine_embedding_loss(ctx, A, B, OUT3, 0.1, CT_REDUCTION_MEAN, &OUT)
                       : st;
}
static ct_status op_poisson_nll_loss(void) {
    ct_status st = ct_abs(ctx, B, &OUT2);
    return st == CT_OK
               ? ct_poisson_nll_loss(ctx, A, OUT2, true, true, 1e-8, CT_REDUCTION_MEAN, &OUT)
               : st;
}
static ct_status op_pixel_shuffle(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 3, (const int64_t[]){8, 2, 2}, &OUT2);
    return st == CT_OK ? ct_pixel_shuffle(ctx, OUT2, 2, &OUT) : st;
}
static ct_status op_pixel_unshuffle(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 3, (const int64_t[]){2, 4, 4}, &OUT2);
    return st == CT_OK ? ct_pixel_unshuffle(ctx, OUT2, 2, &OUT) : st;
}
static ct_status op_cumulative_trapezoid(void) {
    return ct_cumulative_trapezoid(ctx, A, 0.5, 1, &OUT);
}
static ct_status op_cumulative_trapezoid_x(void) {
    ct_status st = ct_sum(ctx, B, 1, (const int[]){0}, false, &OUT2);
    return st == CT_OK ? ct_cumulative_trapezoid_x(ctx, A, OUT2, 1, &OUT) : st;
}
static ct_status op_linalg_vector_norm(void) {
    return ct_linalg_vector_norm(ctx, A, 3, 1, (const int[]){1}, false, &OUT);
}
static ct_status op_linalg_matrix_norm(void) {
    return ct_linalg_matrix_norm(ctx, A, "inf", 0, 1, false, &OUT);
}
static ct_status op_linalg_multi_dot(void) {
    const ct_tensor *l[3] = {A, Mt, A};
    return ct_linalg_multi_dot(ctx, 3, l, &OUT);
}
static ct_status op_cdist(void) { return ct_cdist(ctx, A, B, 2, &OUT); }
static ct_status op_linalg_pinv(void) { return ct_linalg_pinv(ctx, A, NAN, NAN, &OUT); }
static ct_status op_svd_lowrank(void) {
    return ct_svd_lowrank(ctx, A, 0, 1, 3, &OUT, &OUT2, &OUT3);
}
static ct_status op_pca_lowrank(void) {
    return ct_pca_lowrank(ctx, A, 0, true, 1, 3, &OUT, &OUT2, &OUT3);
}
/* the second linear algebra set (test_linalg_more) */
static ct_status op_linalg_solve_triangular(void) {
    return ct_linalg_solve_triangular(ctx, Sym, Sym, true, true, false, &OUT);
}
static ct_status op_linalg_lu_factor(void) { return ct_linalg_lu_factor(ctx, Sym, &OUT, &OUT2); }
static ct_status op_linalg_lu_factor_ex(void) {
    return ct_linalg_lu_factor_ex(ctx, A, &OUT, &OUT2, &OUT3);
}
static ct_status op_linalg_lu(void) { return ct_linalg_lu(ctx, Mt, &OUT, &OUT2, &OUT3); }
static ct_status op_linalg_lu_solve(void) {
    ct_status st = ct_linalg_lu_factor(ctx, Sym, &OUT2, &OUT3);
    return st == CT_OK ? ct_linalg_lu_solve(ctx, OUT2, OUT3, Sym, false, true, &OUT) : st;
}
static ct_status op_lu_unpack(void) {
    ct_tensor *lu = NULL, *piv = NULL;
    ct_status st = ct_linalg_lu_factor(ctx, A, &lu, &piv);
    if (st == CT_OK) st = ct_lu_unpack(ctx, lu, piv, true, true, &OUT, &OUT2, &OUT3);
    ct_tensor_release(lu), ct_tensor_release(piv);
    return st;
}
static ct_status op_cholesky_solve(void) { return ct_cholesky_solve(ctx, Sym, Sym, false, &OUT); }
static ct_status op_cholesky_inverse(void) { return ct_cholesky_inverse(ctx, Sym, true, &OUT); }
static ct_status op_linalg_lstsq(void) {
    return ct_linalg_lstsq(ctx, Mt, Mt, NAN, "gelsd", &OUT, &OUT2, &OUT3, NULL);
}
static ct_status op_linalg_svdvals(void) { return ct_linalg_svdvals(ctx, A, &OUT); }
static ct_status op_linalg_matrix_rank(void) {
    return ct_linalg_matrix_rank(ctx, A, NAN, NAN, false, &OUT);
}
static ct_status op_linalg_inv_ex(void) { return ct_linalg_inv_ex(ctx, Sym, &OUT, &OUT2); }
static ct_status op_linalg_solve_ex(void) { return ct_linalg_solve_ex(ctx, Sym, Sym, &OUT, &OUT2); }
static ct_status op_linalg_vecdot(void) { return ct_linalg_vecdot(ctx, A, B, -1, &OUT); }
static ct_status op_linalg_tensorinv(void) { /* (1, 5, 5), ind 2: a 5 x 5 inverse */
    ct_status st = ct_tensor_narrow(ctx, Sym, 0, 0, 1, &OUT2);
    return st == CT_OK ? ct_linalg_tensorinv(ctx, OUT2, 2, &OUT) : st;
}
static ct_status op_linalg_tensorsolve(void) { /* (1, 5, 5) against (1, 5) */
    ct_status st = ct_tensor_narrow(ctx, Sym, 0, 0, 1, &OUT2);
    ct_tensor *b = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, OUT2, 2, 0, 1, &b);
    if (st == CT_OK) st = ct_tensor_squeeze(ctx, b, 2, &OUT3);
    ct_tensor_release(b);
    return st == CT_OK ? ct_linalg_tensorsolve(ctx, OUT2, OUT3, 0, NULL, &OUT) : st;
}
static ct_status op_linalg_householder_product(void) {
    return ct_linalg_householder_product(ctx, Mt, V3, &OUT);
}
static ct_status op_linalg_cond(void) { return ct_linalg_cond(ctx, Sym, "fro", &OUT); }
static ct_status op_geqrf(void) { return ct_geqrf(ctx, Mt, &OUT, &OUT2); }
static ct_status op_ormqr(void) {
    ct_status st = ct_geqrf(ctx, Sym, &OUT2, &OUT3);
    return st == CT_OK ? ct_ormqr(ctx, OUT2, OUT3, Sym, true, true, &OUT) : st;
}
static ct_status op_index_copy(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){3, 0}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 0, 0, 2, &OUT3);
    return st == CT_OK ? ct_index_copy(ctx, A, 0, OUT2, OUT3, &OUT) : st;
}
static ct_status op_index_fill(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){1, 5}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    return st == CT_OK ? ct_index_fill(ctx, A, 1, OUT2, -2.5, &OUT) : st;
}
static ct_status op_float_power(void) { return ct_float_power(ctx, A, B, &OUT); }
static ct_status op_float_power_scalar(void) { return ct_float_power_scalar(ctx, A, 2, &OUT); }
static ct_status op_flipud(void) { return ct_flipud(ctx, A, &OUT); }
static ct_status op_fliplr(void) { return ct_fliplr(ctx, A, &OUT); }
static ct_status op_msort(void) { return ct_msort(ctx, A, &OUT); }
static ct_status op_clip(void) {
    const double lo = -0.5;
    return ct_clip(ctx, A, &lo, NULL, &OUT);
}
OP1(absolute)
OP1(negative)
OP1(fix)
OP2(true_divide)
static ct_status op_index(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){3, -8}, CT_INT64, 1,
                                       (const int64_t[]){2}, &OUT2);
    const ct_tensor *ix[2] = {NULL, OUT2};
    return st == CT_OK ? ct_index(ctx, A, 2, ix, &OUT) : st;
}
static ct_status op_index_put(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){1, 2}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 0, 0, 1, &OUT3);
    const ct_tensor *ix[1] = {OUT2};
    return st == CT_OK ? ct_index_put(ctx, A, 1, ix, OUT3, true, &OUT) : st;
}
static ct_status op_take(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){31, -2}, CT_INT64, 1,
                                       (const int64_t[]){2}, &OUT2);
    return st == CT_OK ? ct_take(ctx, A, OUT2, &OUT) : st;
}
static ct_status op_put(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){3, 5}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 0, 2, &OUT3);
    ct_tensor *row = NULL;
    if (st == CT_OK) st = ct_select(ctx, OUT3, 0, 0, &row);
    if (st == CT_OK) st = ct_put(ctx, A, OUT2, row, false, &OUT);
    ct_tensor_release(row);
    return st;
}
static ct_status op_select_scatter(void) {
    ct_status st = ct_select(ctx, B, 0, 1, &OUT2);
    return st == CT_OK ? ct_select_scatter(ctx, A, OUT2, 0, 2, &OUT) : st;
}
static ct_status op_slice_scatter(void) {
    ct_status st = ct_tensor_narrow(ctx, B, 1, 0, 4, &OUT2);
    return st == CT_OK ? ct_slice_scatter(ctx, A, OUT2, 1, 0, INT64_MAX, 2, &OUT) : st;
}
static ct_status op_diagonal_scatter(void) {
    ct_status st = ct_tensor_narrow(ctx, B, 0, 0, 1, &OUT2);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, OUT2, 1, (const int64_t[]){8}, &OUT3);
    ct_tensor *d = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, OUT3, 0, 0, 4, &d);
    if (st == CT_OK) st = ct_diagonal_scatter(ctx, A, d, 1, 0, 1, &OUT);
    ct_tensor_release(d);
    return st;
}
static ct_status op_diagflat(void) { return ct_diagflat(ctx, A, -1, &OUT); }
static ct_status op_combinations(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 1, (const int64_t[]){32}, &OUT2);
    return st == CT_OK ? ct_combinations(ctx, OUT2, 2, false, &OUT) : st;
}
static ct_status op_renorm(void) { return ct_renorm(ctx, A, 2, 0, 1.0, &OUT); }
static ct_status op_clamp_min(void) { return ct_clamp_min(ctx, A, -0.5, &OUT); }
static ct_status op_clamp_max(void) { return ct_clamp_max(ctx, A, 0.5, &OUT); }
static ct_status op_rsub(void) { return ct_rsub(ctx, A, B, 2, &OUT); }
static ct_status op_rsub_scalar(void) { return ct_rsub_scalar(ctx, A, 1.5, 2, &OUT); }
OP1(sgn)
static ct_status op_ldexp(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int32_t[]){3}, CT_INT32, 1, (const int64_t[]){1}, &OUT2);
    return st == CT_OK ? ct_ldexp(ctx, A, OUT2, &OUT) : st;
}
static ct_status op_frexp(void) { return ct_frexp(ctx, A, &OUT, &OUT2); }
OP1(isposinf)
OP1(isneginf)
OP1(isreal)
static ct_status op_inner(void) { return ct_inner(ctx, A, B, &OUT); }
static ct_status op_vdot(void) {
    ct_status st = ct_select(ctx, A, 0, 0, &OUT2);
    if (st == CT_OK) st = ct_select(ctx, B, 0, 1, &OUT3);
    return st == CT_OK ? ct_vdot(ctx, OUT2, OUT3, &OUT) : st;
}
static ct_status op_tensor_dist(void) { return ct_tensor_dist(ctx, A, B, 3, &OUT); }
static ct_status op_chain_matmul(void) {
    const ct_tensor *l[3] = {A, Mt, A};
    return ct_chain_matmul(ctx, 3, l, &OUT);
}
static ct_status op_addbmm(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 3, (const int64_t[]){2, 4, 4}, &OUT2);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, Mt, 3, (const int64_t[]){2, 4, 4}, &OUT3);
    ct_tensor *in = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 0, 4, &in);
    if (st == CT_OK) st = ct_addbmm(ctx, in, OUT2, OUT3, 0.5, 2, &OUT);
    ct_tensor_release(in);
    return st;
}
static ct_status op_pdist(void) { return ct_pdist(ctx, A, 2, &OUT); }
static ct_status op_row_stack(void) {
    const ct_tensor *ab[2] = {A, B};
    return ct_row_stack(ctx, 2, ab, &OUT);
}
static ct_status op_concat(void) {
    const ct_tensor *ab[2] = {A, B};
    return ct_concat(ctx, 2, ab, 1, &OUT);
}
static ct_status op_concatenate(void) {
    const ct_tensor *ab[2] = {A, B};
    return ct_concatenate(ctx, 2, ab, 0, &OUT);
}
static ct_status op_scatter_reduce(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){3, 0, 3, 7}, CT_INT64, 2,
                                       (const int64_t[]){1, 4}, &OUT2);
    return st == CT_OK ? ct_scatter_reduce(ctx, A, 1, OUT2, B, "amax", false, &OUT) : st;
}
static ct_status op_index_reduce(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){3, 0}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 0, 0, 2, &OUT3);
    return st == CT_OK ? ct_index_reduce(ctx, A, 0, OUT2, OUT3, "mean", true, &OUT) : st;
}
/* A (4, 8) seen as an image (1, 2, 4, 4) or a sequence batch (2, 2, 8) */
static ct_status img(const ct_tensor *t, ct_tensor **o) {
    return ct_tensor_reshape(ctx, t, 4, (const int64_t[]){1, 2, 4, 4}, o);
}
static ct_status seq(const ct_tensor *t, ct_tensor **o) {
    return ct_tensor_reshape(ctx, t, 3, (const int64_t[]){2, 2, 8}, o);
}
static ct_status op_conv_transpose2d(void) {
    ct_status st = img(A, &OUT2);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, B, 4, (const int64_t[]){2, 4, 2, 2}, &OUT3);
    return st == CT_OK ? ct_conv_transpose2d(ctx, OUT2, OUT3, NULL, (const int64_t[]){2, 2},
                                             (const int64_t[]){0, 0}, (const int64_t[]){1, 0}, 1,
                                             (const int64_t[]){1, 1}, &OUT)
                       : st;
}
static ct_status op_conv_transpose1d(void) {
    ct_status st = seq(A, &OUT2);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, B, 3, (const int64_t[]){2, 4, 4}, &OUT3);
    return st == CT_OK ? ct_conv_transpose1d(ctx, OUT2, OUT3, NULL, 2, 1, 1, 1, 1, &OUT) : st;
}
static ct_status op_max_pool1d(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_max_pool1d(ctx, OUT2, 3, 2, 1, 1, true, &OUT, &OUT3) : st;
}
static ct_status op_avg_pool1d(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_avg_pool1d(ctx, OUT2, 3, 2, 1, false, false, &OUT) : st;
}
static ct_status op_adaptive_avg_pool1d(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_adaptive_avg_pool1d(ctx, OUT2, 3, &OUT) : st;
}
static ct_status op_adaptive_max_pool1d(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_adaptive_max_pool1d(ctx, OUT2, 3, &OUT, &OUT3) : st;
}
static ct_status op_adaptive_max_pool2d(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK ? ct_adaptive_max_pool2d(ctx, OUT2, (const int64_t[]){3, 3}, &OUT, &OUT3)
                       : st;
}
static ct_status op_max_unpool2d(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 4, (const int64_t[]){2, 1, 4, 4}, &OUT2);
    if (st == CT_OK)
        st = ct_tensor_from_host(ctx, (const int64_t[]){0, 3, 5, 15}, CT_INT64, 4,
                                 (const int64_t[]){1, 1, 2, 2}, &OUT3);
    ct_tensor *v = NULL, *ix = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, OUT2, 0, 0, 1, &v);
    ct_tensor *v2 = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, v, 2, 0, 2, &v2);
    ct_tensor *v3 = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, v2, 3, 0, 2, &v3);
    (void)ix;
    if (st == CT_OK)
        st = ct_max_unpool2d(ctx, v3, OUT3, (const int64_t[]){2, 2}, NULL, NULL, NULL, &OUT);
    ct_tensor_release(v), ct_tensor_release(v2), ct_tensor_release(v3);
    return st;
}
static ct_status op_max_unpool1d(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){1, 2}, CT_INT64, 2,
                                       (const int64_t[]){1, 2}, &OUT3);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, A, 0, 0, 1, &OUT2);
    ct_tensor *v = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, OUT2, 1, 0, 2, &v);
    if (st == CT_OK) st = ct_max_unpool1d(ctx, v, OUT3, 2, 0, 0, -1, &OUT);
    ct_tensor_release(v);
    return st;
}
static ct_status op_lp_pool2d(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK ? ct_lp_pool2d(ctx, OUT2, 2, (const int64_t[]){2, 2}, NULL, false, &OUT)
                       : st;
}
static ct_status op_lp_pool1d(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_lp_pool1d(ctx, OUT2, 2, 2, 0, false, &OUT) : st;
}
static ct_status op_instance_norm(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_instance_norm(ctx, OUT2, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &OUT)
                       : st;
}
static ct_status op_local_response_norm(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK ? ct_local_response_norm(ctx, OUT2, 2, 1e-4, 0.75, 1, &OUT) : st;
}
static ct_status op_bilinear(void) {
    ct_status st = ct_tensor_reshape(ctx, Mt, 3, (const int64_t[]){8, 2, 2}, &OUT2);
    ct_tensor *x1 = NULL, *x2 = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, A, 1, 0, 2, &x1);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 0, 2, &x2);
    if (st == CT_OK) st = ct_bilinear(ctx, x1, x2, OUT2, NULL, &OUT);
    ct_tensor_release(x1), ct_tensor_release(x2);
    return st;
}
static ct_status op_channel_shuffle(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 4, (const int64_t[]){1, 4, 2, 4}, &OUT2);
    return st == CT_OK ? ct_channel_shuffle(ctx, OUT2, 2, &OUT) : st;
}
static ct_status op_rnn_tanh_cell(void) {
    ct_status st = ct_tensor_reshape(ctx, Mt, 2, (const int64_t[]){4, 8}, &OUT2);
    ct_tensor *hh = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 0, 0, 4, &hh);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 0, 4, &OUT3);
    if (st == CT_OK) st = ct_rnn_tanh_cell(ctx, A, OUT3, OUT2, hh, NULL, NULL, &OUT);
    ct_tensor_release(hh);
    return st;
}
static ct_status op_rnn_relu_cell(void) {
    ct_status st = ct_tensor_reshape(ctx, Mt, 2, (const int64_t[]){4, 8}, &OUT2);
    ct_tensor *hh = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 0, 0, 4, &hh);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 0, 4, &OUT3);
    if (st == CT_OK) st = ct_rnn_relu_cell(ctx, A, OUT3, OUT2, hh, NULL, NULL, &OUT);
    ct_tensor_release(hh);
    return st;
}
static ct_status op_lstm_cell(void) { /* hidden 2: w_ih (8, 8), w_hh (8, 2) */
    ct_tensor *wih = NULL, *whh = NULL, *c = NULL;
    ct_status st = ct_tensor_narrow(ctx, A, 1, 0, 2, &OUT2); /* hx (4, 2) */
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 0, 2, &c);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, Mt, 2, (const int64_t[]){4, 8}, &wih);
    ct_tensor *w8 = NULL;
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){wih, wih}, 0, &w8);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 1, 0, 2, &whh);
    if (st == CT_OK) st = ct_lstm_cell(ctx, A, OUT2, c, w8, whh, NULL, NULL, &OUT, &OUT3);
    ct_tensor_release(wih), ct_tensor_release(whh), ct_tensor_release(c), ct_tensor_release(w8);
    return st;
}
static ct_status op_gru_cell(void) { /* hidden 2: w_ih (6, 8), w_hh (6, 2) */
    ct_tensor *wih = NULL, *whh = NULL;
    ct_status st = ct_tensor_narrow(ctx, A, 1, 0, 2, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 0, 0, 3, &OUT3);
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){OUT3, OUT3}, 0, &wih);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 0, 0, 6, &whh);
    ct_tensor *w2 = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, whh, 1, 0, 2, &w2);
    if (st == CT_OK) st = ct_gru_cell(ctx, A, OUT2, wih, w2, NULL, NULL, &OUT);
    ct_tensor_release(wih), ct_tensor_release(whh), ct_tensor_release(w2);
    return st;
}
static ct_status op_rnn(void) { /* unbatched x (4, 8), hidden 4 */
    ct_status st = ct_tensor_reshape(ctx, Mt, 2, (const int64_t[]){4, 8}, &OUT2);
    ct_tensor *hh = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 0, 0, 4, &hh);
    const ct_tensor *p[2] = {OUT2, hh};
    const ct_rnn_opts o = {.no_bias = true, .relu = true};
    if (st == CT_OK) st = ct_rnn(ctx, A, NULL, p, 2, &o, &OUT, &OUT3);
    ct_tensor_release(hh);
    return st;
}
static ct_status op_lstm(void) { /* unbatched x (4, 8), hidden 2, two directions */
    ct_tensor *wih = NULL, *whh = NULL, *w8 = NULL;
    ct_status st = ct_tensor_reshape(ctx, Mt, 2, (const int64_t[]){4, 8}, &wih);
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){wih, wih}, 0, &w8);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 1, 0, 2, &whh);
    const ct_tensor *p[4] = {w8, whh, w8, whh};
    const ct_rnn_opts o = {.no_bias = true, .bidirectional = true};
    if (st == CT_OK) st = ct_lstm(ctx, A, NULL, NULL, p, 4, &o, &OUT, &OUT2, &OUT3);
    ct_tensor_release(wih), ct_tensor_release(whh), ct_tensor_release(w8);
    return st;
}
static ct_status op_gru(void) { /* x (4, 1, 8), hidden 2 */
    ct_tensor *wih = NULL, *whh = NULL, *w2 = NULL, *x = NULL;
    ct_status st = ct_tensor_narrow(ctx, B, 0, 0, 3, &OUT3);
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){OUT3, OUT3}, 0, &wih);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, Mt, 0, 0, 6, &whh);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, whh, 1, 0, 2, &w2);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, A, 1, &x);
    const ct_tensor *p[2] = {wih, w2};
    const ct_rnn_opts o = {.no_bias = true};
    if (st == CT_OK) st = ct_gru(ctx, x, NULL, p, 2, &o, &OUT, &OUT2);
    ct_tensor_release(wih), ct_tensor_release(whh), ct_tensor_release(w2), ct_tensor_release(x);
    return st;
}
static ct_status op_scaled_dot_product_attention(void) { /* q, k, v (4, 8), causal */
    const ct_sdpa_opts o = {.is_causal = true};
    return ct_scaled_dot_product_attention(ctx, A, B, A, &o, &OUT);
}
static ct_status op_multi_head_attention_forward(void) { /* self-attention, E 8, 2 heads */
    ct_tensor *w = NULL, *wo = NULL;
    ct_status st = ct_tensor_reshape(ctx, Mt, 2, (const int64_t[]){4, 8}, &OUT3);
    if (st == CT_OK)
        st = ct_cat(ctx, 6, (const ct_tensor *[]){OUT3, OUT3, OUT3, OUT3, OUT3, OUT3}, 0, &w);
    if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){OUT3, OUT3}, 0, &wo);
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, A, 1, &OUT2);
    const ct_mha_opts o = {.in_proj_weight = w};
    if (st == CT_OK) {
        ct_tensor_release(OUT3);
        OUT3 = NULL;
        st = ct_multi_head_attention_forward(ctx, OUT2, OUT2, OUT2, 2, wo, NULL, &o, &OUT, &OUT3);
    }
    ct_tensor_release(w), ct_tensor_release(wo);
    return st;
}
/* volumes: A (4, 8) as (1, 1, 4, 2, 4) in OUT2 */
static ct_status vol(void) {
    return ct_tensor_reshape(ctx, A, 5, (const int64_t[]){1, 1, 4, 2, 4}, &OUT2);
}
static ct_status op_conv3d(void) {
    ct_status st = vol();
    if (st == CT_OK) st = ct_tensor_reshape(ctx, Mt, 5, (const int64_t[]){4, 1, 2, 2, 2}, &OUT3);
    const int64_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    return st == CT_OK ? ct_conv3d(ctx, OUT2, OUT3, NULL, one, zero, one, 1, &OUT) : st;
}
static ct_status op_conv_transpose3d(void) {
    ct_status st = vol();
    if (st == CT_OK) st = ct_tensor_reshape(ctx, Mt, 5, (const int64_t[]){1, 4, 2, 2, 2}, &OUT3);
    const int64_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0}, two[3] = {2, 2, 2};
    return st == CT_OK ? ct_conv_transpose3d(ctx, OUT2, OUT3, NULL, two, zero, zero, 1, one, &OUT)
                       : st;
}
static ct_status op_max_pool3d(void) {
    ct_status st = vol();
    return st == CT_OK ? ct_max_pool3d(ctx, OUT2, (const int64_t[]){2, 2, 2}, NULL, NULL, NULL,
                                       true, &OUT, &OUT3)
                       : st;
}
static ct_status op_avg_pool3d(void) {
    ct_status st = vol();
    return st == CT_OK ? ct_avg_pool3d(ctx, OUT2, (const int64_t[]){2, 2, 2}, NULL,
                                       (const int64_t[]){1, 1, 1}, false, false, 0, &OUT)
                       : st;
}
static ct_status op_adaptive_avg_pool3d(void) {
    ct_status st = vol();
    return st == CT_OK ? ct_adaptive_avg_pool3d(ctx, OUT2, (const int64_t[]){3, 1, 3}, &OUT) : st;
}
static ct_status op_adaptive_max_pool3d(void) {
    ct_status st = vol();
    return st == CT_OK ? ct_adaptive_max_pool3d(ctx, OUT2, (const int64_t[]){3, 1, 3}, &OUT, &OUT3)
                       : st;
}
static ct_status op_max_unpool3d(void) { /* (1, 1, 2, 1, 2) from a 2x2x2 pool of the volume */
    ct_tensor *p = NULL, *i = NULL;
    ct_status st = vol();
    const int64_t k[3] = {2, 2, 2};
    if (st == CT_OK) st = ct_max_pool3d(ctx, OUT2, k, NULL, NULL, NULL, false, &p, &i);
    if (st == CT_OK) st = ct_max_unpool3d(ctx, p, i, k, NULL, NULL, NULL, &OUT);
    ct_tensor_release(p), ct_tensor_release(i);
    return st;
}
static ct_status op_max(void) { return ct_max(ctx, A, &OUT); }
static ct_status op_min(void) { return ct_min(ctx, A, &OUT); }
static ct_status op_angle(void) { return ct_angle(ctx, A, &OUT); }
static ct_status op_frobenius_norm(void) { return ct_frobenius_norm(ctx, A, 0, NULL, false, &OUT); }
static ct_status op_nuclear_norm(void) { return ct_nuclear_norm(ctx, A, NULL, false, &OUT); }
static ct_status op_linalg_norm(void) {
    return ct_linalg_norm(ctx, A, "inf", 0, NULL, false, &OUT);
}
static ct_status op_linalg_vander(void) { return ct_linalg_vander(ctx, V3, -1, &OUT); }
static ct_status op_linalg_cross(void) {
    ct_status st = ct_tensor_narrow(ctx, A, 1, 0, 3, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 1, 2, 3, &OUT3);
    return st == CT_OK ? ct_linalg_cross(ctx, OUT2, OUT3, -1, &OUT) : st;
}
static ct_status op_linalg_diagonal(void) { return ct_linalg_diagonal(ctx, Nc, 1, 0, 1, &OUT); }
static ct_status op_linalg_matmul(void) { return ct_linalg_matmul(ctx, A, Mt, &OUT); }
static ct_status op_svd(void) { return ct_svd(ctx, A, true, true, &OUT, &OUT2, &OUT3); }
static ct_status op_qr(void) { return ct_qr(ctx, Mt, true, &OUT, &OUT2); }
static ct_status op_cholesky(void) { return ct_cholesky(ctx, Sym, true, &OUT); }
static ct_status op_slogdet(void) { return ct_slogdet(ctx, Sym, &OUT, &OUT2); }
static ct_status op_matrix_power(void) { return ct_matrix_power(ctx, Sym, 3, &OUT); }
static ct_status op_orgqr(void) { return ct_orgqr(ctx, Mt, V3, &OUT); }
static ct_status op_triangular_solve(void) {
    return ct_triangular_solve(ctx, Sym, Sym, true, true, false, &OUT, &OUT2);
}
static ct_status op_lu_solve(void) {
    ct_status st = ct_linalg_lu_factor(ctx, Sym, &OUT2, &OUT3);
    return st == CT_OK ? ct_lu_solve(ctx, Sym, OUT2, OUT3, &OUT) : st;
}
static ct_status op_normal_scalar(void) {
    return ct_normal_scalar(ctx, 1, 2, CT_FLOAT32, 2, (const int64_t[]){4, 8}, 3, 0, &OUT);
}
static ct_status op_randint_like(void) { return ct_randint_like(ctx, A, -3, 9, 4, 0, &OUT); }
static ct_status op_tensor_uniform_(void) { return ct_tensor_uniform_(ctx, Dst, -1, 1, 5, 0); }
static ct_status op_tensor_normal_(void) { return ct_tensor_normal_(ctx, Dst, 0, 1, 5, 0); }
static ct_status op_tensor_exponential_(void) { return ct_tensor_exponential_(ctx, Dst, 2, 5, 0); }
static ct_status op_tensor_cauchy_(void) { return ct_tensor_cauchy_(ctx, Dst, 0, 1, 5, 0); }
static ct_status op_tensor_log_normal_(void) { return ct_tensor_log_normal_(ctx, Dst, 0, 1, 5, 0); }
static ct_status op_tensor_geometric_(void) { return ct_tensor_geometric_(ctx, Dst, 0.3, 5, 0); }
static ct_status op_multi_margin_loss(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){1, 0, 7, 3}, CT_INT64, 1,
                                       (const int64_t[]){4}, &OUT2);
    return st == CT_OK ? ct_multi_margin_loss(ctx, A, OUT2, 1, 1, NULL, CT_REDUCTION_MEAN, &OUT)
                       : st;
}
static ct_status op_multilabel_margin_loss(void) {
    int64_t y[32];
    for (int i = 0; i < 32; i++)
        y[i] = i % 8 == 2 ? -1 : (i * 3) % 8;
    ct_status st = ct_tensor_from_host(ctx, y, CT_INT64, 2, (const int64_t[]){4, 8}, &OUT2);
    return st == CT_OK ? ct_multilabel_margin_loss(ctx, A, OUT2, CT_REDUCTION_MEAN, &OUT) : st;
}
static ct_status op_hann_window(void) { return ct_hann_window(ctx, 8, true, CT_FLOAT32, &OUT); }
static ct_status op_hamming_window(void) {
    return ct_hamming_window(ctx, 8, false, 0.54, 0.46, CT_FLOAT32, &OUT);
}
static ct_status op_blackman_window(void) {
    return ct_blackman_window(ctx, 8, true, CT_FLOAT64, &OUT);
}
static ct_status op_bartlett_window(void) {
    return ct_bartlett_window(ctx, 9, false, CT_FLOAT32, &OUT);
}
static ct_status op_kaiser_window(void) {
    return ct_kaiser_window(ctx, 8, true, 12.0, CT_FLOAT32, &OUT);
}
static ct_status op_gradient(void) {
    ct_tensor *o[2] = {NULL, NULL};
    ct_status st = ct_gradient(ctx, A, 0, NULL, NULL, 1, o);
    OUT = o[0];
    OUT2 = o[1];
    return st;
}
/* clang-format off */
OP1(special_expit)
OP1(special_gammaln)
OP1(special_psi)
OP1(special_digamma)
OP1(special_erf)
OP1(special_erfc)
OP1(special_erfinv)
OP1(special_exp2)
OP1(special_expm1)
OP1(special_log1p)
OP1(special_sinc)
OP1(special_round)
OP1(special_i0)
OP1(arccos)
OP1(arccosh)
OP1(arcsin)
OP1(arcsinh)
OP1(arctan)
OP1(arctanh)
OP2(special_xlogy)
OP2(arctan2)
OP2(divide)
OP2(multiply)
OP2(greater)
OP2(greater_equal)
OP2(less)
OP2(less_equal)
OP2(not_equal)
static ct_status op_special_multigammaln(void) { return ct_special_multigammaln(ctx, A, 1, &OUT); }
static ct_status op_special_polygamma(void) { return ct_special_polygamma(ctx, 1, A, &OUT); }
static ct_status op_special_logit(void) { return ct_special_logit(ctx, A, 1e-3, &OUT); }
static ct_status op_special_logsumexp(void) {
    return ct_special_logsumexp(ctx, A, 1, &DIM1, false, &OUT);
}
static ct_status op_special_softmax(void) { return ct_special_softmax(ctx, A, 1, &OUT); }
static ct_status op_special_log_softmax(void) { return ct_special_log_softmax(ctx, A, 1, &OUT); }
static ct_status op_subtract(void) { return ct_subtract(ctx, A, B, 2, &OUT); }
static ct_status op_ger(void) {
    ct_status st = ct_select(ctx, A, 0, 0, &OUT2);
    return st == CT_OK ? ct_ger(ctx, OUT2, OUT2, &OUT) : st;
}
static ct_status op_det(void) { return ct_det(ctx, Sym, &OUT); }
static ct_status op_inverse(void) { return ct_inverse(ctx, Sym, &OUT); }
static ct_status op_pinverse(void) { return ct_pinverse(ctx, A, 1e-15, &OUT); }
static ct_status op_trapz(void) { return ct_trapz(ctx, A, 0.5, 1, &OUT); }
/* clang-format on */
/* clang-format off */
OP1(special_bessel_j0)
OP1(special_bessel_j1)
OP1(special_bessel_y0)
OP1(special_bessel_y1)
OP1(special_modified_bessel_k0)
OP1(special_modified_bessel_k1)
OP1(special_scaled_modified_bessel_k0)
OP1(special_scaled_modified_bessel_k1)
OP1(special_spherical_bessel_j0)
OP1(special_modified_bessel_i0)
OP1(special_modified_bessel_i1)
OP2(special_zeta)
OP2(special_gammainc)
OP2(special_gammaincc)
OP2(special_chebyshev_polynomial_t)
OP2(special_chebyshev_polynomial_u)
OP2(special_chebyshev_polynomial_v)
OP2(special_chebyshev_polynomial_w)
OP2(special_shifted_chebyshev_polynomial_t)
OP2(special_shifted_chebyshev_polynomial_u)
OP2(special_shifted_chebyshev_polynomial_v)
OP2(special_shifted_chebyshev_polynomial_w)
OP2(special_hermite_polynomial_h)
OP2(special_hermite_polynomial_he)
OP2(special_laguerre_polynomial_l)
OP2(special_legendre_polynomial_p)
OP1(special_airy_ai)
/* clang-format on */
static ct_status op_dropout1d(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 3, (const int64_t[]){2, 2, 8}, &OUT2);
    return st == CT_OK ? ct_dropout1d(ctx, OUT2, 0.5, true, 1, 0, &OUT) : st;
}
static ct_status op_dropout2d(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 4, (const int64_t[]){1, 2, 4, 4}, &OUT2);
    return st == CT_OK ? ct_dropout2d(ctx, OUT2, 0.5, true, 1, 0, &OUT) : st;
}
static ct_status op_dropout3d(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 5, (const int64_t[]){1, 2, 2, 2, 4}, &OUT2);
    return st == CT_OK ? ct_dropout3d(ctx, OUT2, 0.5, true, 1, 0, &OUT) : st;
}
static ct_status op_alpha_dropout(void) { return ct_alpha_dropout(ctx, A, 0.3, true, 1, 0, &OUT); }
static ct_status op_feature_alpha_dropout(void) {
    return ct_feature_alpha_dropout(ctx, A, 0.3, true, 1, 0, &OUT);
}
static ct_status op_rrelu(void) { return ct_rrelu(ctx, A, 0.1, 0.3, true, 1, 0, &OUT); }
static ct_status op_gumbel_softmax(void) {
    return ct_gumbel_softmax(ctx, A, 0.5, true, 1, 1, 0, &OUT);
}
static ct_status op_embedding_bag(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){0, 3, 1, 1}, CT_INT64, 1,
                                       (const int64_t[]){4}, &OUT2);
    if (st == CT_OK)
        st = ct_tensor_from_host(ctx, (const int64_t[]){0, 2}, CT_INT64, 1, (const int64_t[]){2},
                                 &OUT3);
    return st == CT_OK ? ct_embedding_bag(ctx, A, OUT2, OUT3, CT_EMBEDDING_BAG_SUM, NULL, false,
                                          CT_NO_PADDING_IDX, &OUT)
                       : st;
}
static ct_status op_affine_grid(void) {
    /* theta (4, 2, 3): A (4, 8) seen as (4, 2, 4), the first 3 of each row */
    ct_status st = ct_tensor_reshape(ctx, A, 3, (const int64_t[]){4, 2, 4}, &OUT3);
    ct_tensor *th = NULL;
    if (st == CT_OK) st = ct_tensor_narrow(ctx, OUT3, 2, 0, 3, &th);
    if (st == CT_OK) st = ct_affine_grid(ctx, th, (const int64_t[]){4, 1, 3, 4}, false, &OUT);
    ct_tensor_release(th);
    return st;
}
static ct_status op_grid_sample(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 4, (const int64_t[]){1, 2, 4, 4}, &OUT2);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, B, 4, (const int64_t[]){1, 4, 4, 2}, &OUT3);
    return st == CT_OK ? ct_grid_sample(ctx, OUT2, OUT3, CT_GRID_BILINEAR, CT_GRID_PAD_REFLECTION,
                                        false, &OUT)
                       : st;
}
static ct_status op_cat(void) {
    const ct_tensor *ab[2] = {A, B};
    return ct_cat(ctx, 2, ab, 1, &OUT);
}
static ct_status op_stack(void) {
    const ct_tensor *ab[2] = {A, B};
    return ct_stack(ctx, 2, ab, 0, &OUT);
}
static ct_status op_repeat(void) {
    const int64_t r[3] = {2, 1, 2};
    return ct_repeat(ctx, A, 3, r, &OUT);
}
static ct_status op_flip(void) {
    const int d[1] = {1};
    return ct_flip(ctx, A, 1, d, &OUT);
}
static ct_status op_roll(void) {
    const int64_t s[1] = {3};
    const int d[1] = {-1};
    return ct_roll(ctx, A, 1, s, d, &OUT);
}
static ct_status op_index_select(void) { return ct_index_select(ctx, Emb, 0, Idx, &OUT); }
static ct_status op_gather(void) { return ct_gather(ctx, A, 1, GIdx, &OUT); }
static ct_status op_take_along_dim(void) { return ct_take_along_dim(ctx, A, GIdx, 1, &OUT); }
static ct_status op_scatter(void) { return ct_scatter(ctx, A, 1, GIdx, B, &OUT); }
static ct_status op_scatter_add(void) { return ct_scatter_add(ctx, A, 1, GIdx, B, &OUT); }
static ct_status op_masked_fill(void) { return ct_masked_fill(ctx, A, Cond, 0.5, &OUT); }
static ct_status op_index_add(void) { return ct_index_add(ctx, Emb, 0, Idx, Src6, 2.0, &OUT); }
static ct_status op_sort(void) { return ct_sort(ctx, A, 1, true, true, &OUT, &OUT2); }
static ct_status op_argsort(void) { return ct_argsort(ctx, A, 0, false, &OUT); }
static ct_status op_topk(void) { return ct_topk(ctx, A, 3, -1, true, true, &OUT, &OUT2); }
static ct_status op_kthvalue(void) { return ct_kthvalue(ctx, A, 2, 1, false, &OUT, &OUT2); }
static ct_status op_all(void) { return ct_all(ctx, A, 1, &DIM1, false, &OUT); }
static ct_status op_any(void) { return ct_any(ctx, A, 0, NULL, true, &OUT); }
static ct_status op_count_nonzero(void) { return ct_count_nonzero(ctx, A, 1, &DIM1, &OUT); }
static ct_status op_argmin(void) { return ct_argmin(ctx, A, 1, false, &OUT); }
static ct_status op_max_dim(void) { return ct_max_dim(ctx, A, 0, true, &OUT, &OUT2); }
static ct_status op_min_dim(void) { return ct_min_dim(ctx, A, -1, false, &OUT, &OUT2); }
static ct_status op_one_hot(void) { return ct_one_hot(ctx, Idx, 10, &OUT); }
static ct_status op_prod(void) { return ct_prod(ctx, A, 1, false, &OUT); }
static ct_status op_cumsum(void) { return ct_cumsum(ctx, A, 0, &OUT); }
static ct_status op_cumprod(void) { return ct_cumprod(ctx, A, 1, &OUT); }
static ct_status op_var(void) { return ct_var(ctx, A, 1, &DIM1, 1.0, false, &OUT); }
static ct_status op_std(void) { return ct_std(ctx, A, 0, NULL, 0.0, true, &OUT); }
static ct_status op_logsumexp(void) { return ct_logsumexp(ctx, A, 1, &DIM1, false, &OUT); }
static ct_status op_norm(void) { return ct_norm(ctx, A, 2.0, 0, NULL, false, &OUT); }
static ct_status op_rms_norm(void) { return ct_rms_norm(ctx, A, 1, NULL, 1e-6, &OUT); }
static ct_status op_group_norm(void) { return ct_group_norm(ctx, A, 2, NULL, NULL, 1e-5, &OUT); }
static ct_status op_batch_norm(void) {
    return ct_batch_norm(ctx, A, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &OUT);
}
static ct_status op_dropout(void) { return ct_dropout(ctx, A, 0.5, true, 1, 0, &OUT); }
static int64_t G2[2] = {2, 2}, G1[2] = {1, 1}, G0[2] = {0, 0};
static ct_status op_unfold(void) {
    int64_t s[4] = {1, 1, 4, 8};
    ct_tensor *x = NULL;
    ct_status st = ct_tensor_view(ctx, A, 4, s, &x);
    if (st == CT_OK) st = ct_unfold(ctx, x, G2, G1, G0, G1, &OUT);
    ct_tensor_release(x);
    return st;
}
static ct_status op_fold(void) {
    int64_t s[3] = {1, 4, 8}, o[2] = {3, 5};
    ct_tensor *x = NULL;
    ct_status st = ct_tensor_view(ctx, A, 3, s, &x);
    if (st == CT_OK) st = ct_fold(ctx, x, o, G2, G1, G0, G1, &OUT);
    ct_tensor_release(x);
    return st;
}
static ct_status op_conv2d(void) {
    int64_t s[4] = {1, 2, 4, 4}, ws[4] = {1, 2, 2, 2};
    ct_tensor *x = NULL, *w = NULL;
    ct_status st = ct_tensor_view(ctx, A, 4, s, &x);
    if (st == CT_OK) st = ct_tensor_ones(ctx, CT_FLOAT32, 4, ws, &w);
    if (st == CT_OK) st = ct_conv2d(ctx, x, w, NULL, G1, G0, G1, 1, &OUT);
    ct_tensor_release(x), ct_tensor_release(w);
    return st;
}
static ct_status op_conv1d(void) {
    int64_t s[3] = {2, 2, 8}, ws[3] = {3, 2, 2};
    ct_tensor *x = NULL, *w = NULL;
    ct_status st = ct_tensor_view(ctx, A, 3, s, &x);
    if (st == CT_OK) st = ct_tensor_ones(ctx, CT_FLOAT32, 3, ws, &w);
    if (st == CT_OK) st = ct_conv1d(ctx, x, w, NULL, 1, 0, 1, 1, &OUT);
    ct_tensor_release(x), ct_tensor_release(w);
    return st;
}
static ct_status op_pool(int which) {
    int64_t s[4] = {1, 2, 4, 4};
    ct_tensor *x = NULL;
    ct_status st = ct_tensor_view(ctx, A, 4, s, &x);
    if (st == CT_OK)
        st = which == 0   ? ct_max_pool2d(ctx, x, G2, NULL, G0, G1, &OUT)
             : which == 1 ? ct_avg_pool2d(ctx, x, G2, G1, G1, &OUT)
             : which == 2 ? ct_adaptive_avg_pool2d(ctx, x, G2, &OUT)
             : which == 3 ? ct_max_pool2d_ex(ctx, x, G2, NULL, G0, G1, true, &OUT, &OUT2)
             : which == 4 ? ct_avg_pool2d_ex(ctx, x, G2, G1, G1, true, false, &OUT)
                          : ct_avg_pool2d_divisor(ctx, x, G2, G1, G1, true, false, 3, &OUT);
    ct_tensor_release(x);
    return st;
}
static ct_status op_max_pool2d_ex(void) { return op_pool(3); }
static ct_status op_avg_pool2d_ex(void) { return op_pool(4); }
static ct_status op_avg_pool2d_divisor(void) { return op_pool(5); }
static ct_status op_max_pool2d(void) { return op_pool(0); }
static ct_status op_avg_pool2d(void) { return op_pool(1); }
static ct_status op_adaptive_avg_pool2d(void) { return op_pool(2); }
static ct_status op_addmm_any(bool batched) {
    int64_t s3[3] = {1, 4, 8}, s3t[3] = {1, 8, 4};
    ct_tensor *in = NULL, *a = NULL, *b = NULL;
    ct_status st = ct_tensor_narrow(ctx, B, 1, 0, 4, &in); /* (4, 4), the product's shape */
    if (st == CT_OK) st = ct_tensor_view(ctx, A, 3, s3, &a);
    if (st == CT_OK) st = ct_tensor_view(ctx, Mt, 3, s3t, &b);
    if (st == CT_OK)
        st = batched ? ct_baddbmm(ctx, in, a, b, 1.0, 1.0, &OUT)
                     : ct_addmm(ctx, in, A, Mt, 0.5, 2.0, &OUT);
    ct_tensor_release(in), ct_tensor_release(a), ct_tensor_release(b);
    return st;
}
static ct_status op_addmm(void) { return op_addmm_any(false); }
static ct_status op_baddbmm(void) { return op_addmm_any(true); }
static ct_status op_interpolate(void) {
    int64_t s3[3] = {1, 4, 8}, sz = 5;
    ct_tensor *x = NULL;
    ct_status st = ct_tensor_view(ctx, A, 3, s3, &x);
    if (st == CT_OK) st = ct_interpolate(ctx, x, 1, &sz, CT_INTERP_LINEAR, false, &OUT);
    ct_tensor_release(x);
    return st;
}
static ct_status op_interpolate_scale(void) {
    int64_t s3[3] = {1, 4, 8};
    double sf = 1.5;
    ct_tensor *x = NULL;
    ct_status st = ct_tensor_view(ctx, A, 3, s3, &x);
    if (st == CT_OK)
        st = ct_interpolate_scale(ctx, x, 1, &sf, CT_INTERP_NEAREST, false, false, &OUT);
    ct_tensor_release(x);
    return st;
}
static ct_status op_pad(void) {
    int64_t p[2] = {1, 2};
    return ct_pad(ctx, A, 2, p, CT_PAD_REFLECT, 0, &OUT);
}
/* torch.fft and the complex constructors (Cx: A's (4, 8) floats as a (4, 4) complex64 view) */
static ct_status op_fft_fft(void) { return ct_fft_fft(ctx, A, -1, -1, NULL, &OUT); }
static ct_status op_fft_ifft(void) { return ct_fft_ifft(ctx, Cx, 6, 0, "ortho", &OUT); }
static ct_status op_fft_rfft(void) { return ct_fft_rfft(ctx, A, -1, 1, NULL, &OUT); }
static ct_status op_fft_irfft(void) { return ct_fft_irfft(ctx, Cx, -1, 1, NULL, &OUT); }
static ct_status op_fft_hfft(void) { return ct_fft_hfft(ctx, Cx, 5, 1, NULL, &OUT); }
static ct_status op_fft_ihfft(void) { return ct_fft_ihfft(ctx, A, -1, 0, NULL, &OUT); }
static ct_status op_fft_fftn(void) { return ct_fft_fftn(ctx, Cx, 0, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_ifftn(void) { return ct_fft_ifftn(ctx, A, 0, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_rfftn(void) { return ct_fft_rfftn(ctx, A, 0, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_irfftn(void) { return ct_fft_irfftn(ctx, Cx, 0, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_fft2(void) { return ct_fft_fft2(ctx, Cx, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_ifft2(void) { return ct_fft_ifft2(ctx, Cx, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_rfft2(void) { return ct_fft_rfft2(ctx, A, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_irfft2(void) { return ct_fft_irfft2(ctx, Cx, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_hfftn(void) { return ct_fft_hfftn(ctx, Cx, 0, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_ihfftn(void) { return ct_fft_ihfftn(ctx, A, 0, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_hfft2(void) { return ct_fft_hfft2(ctx, Cx, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_ihfft2(void) { return ct_fft_ihfft2(ctx, A, NULL, NULL, NULL, &OUT); }
static ct_status op_fft_fftfreq(void) { return ct_fft_fftfreq(ctx, 7, 0.5, CT_FLOAT32, &OUT); }
static ct_status op_fft_rfftfreq(void) { return ct_fft_rfftfreq(ctx, 8, 1, CT_FLOAT64, &OUT); }
static ct_status op_fft_fftshift(void) { return ct_fft_fftshift(ctx, Cx, 0, NULL, &OUT); }
static ct_status op_fft_ifftshift(void) { return ct_fft_ifftshift(ctx, A, 0, NULL, &OUT); }
static ct_status op_stft(void) {
    ct_tensor *v = NULL;
    ct_status st = ct_tensor_reshape(ctx, A, 1, (const int64_t[]){32}, &v);
    if (st == CT_OK) st = ct_stft(ctx, v, 8, NULL, &OUT);
    ct_tensor_release(v);
    return st;
}
static ct_status op_linalg_eig(void) {
    ct_tensor *sq = NULL, *v = NULL;
    ct_status st = ct_tensor_narrow(ctx, Mt, 0, 0, 4, &sq); /* (4, 4) */
    if (st == CT_OK) st = ct_linalg_eig(ctx, sq, &OUT, &v);
    ct_tensor_release(sq), ct_tensor_release(v);
    return st;
}
static ct_status op_linalg_eigvals(void) {
    ct_tensor *sq = NULL;
    ct_status st = ct_tensor_narrow(ctx, Mt, 0, 0, 4, &sq);
    if (st == CT_OK) st = ct_linalg_eigvals(ctx, sq, &OUT);
    ct_tensor_release(sq);
    return st;
}
static ct_status op_complex(void) { return ct_complex(ctx, A, B, &OUT); }
static ct_status op_polar(void) { return ct_polar(ctx, A, B, &OUT); }
static ct_optim *Opt;
static ct_status op_optim_step(void) {
    ct_tensor *g[1] = {B};
    return ct_optim_step(Opt, g);
}
static ct_status op_clip_grad_norm_(void) {
    ct_tensor *g[2] = {Dst, NULL};
    return ct_clip_grad_norm_(ctx, 2, g, 0.5, 2.0, false, &OUT);
}
static ct_status op_clip_grad_value_(void) {
    ct_tensor *g[1] = {Dst};
    return ct_clip_grad_value_(ctx, 1, g, 0.25);
}

static ct_status op_swa_update_parameters(void) {
    ct_tensor *avg[1] = {Dst};
    const ct_tensor *cur[1] = {A};
    int64_t n = 3;
    return ct_swa_update_parameters(ctx, 1, avg, cur, CT_SWA_EMA, 0.9, &n);
}

/* torch.nn.init / nn.utils (init.h) */
static ct_status op_init_uniform_(void) { return ct_init_uniform_(ctx, Dst, -1, 1, 5, 0); }
static ct_status op_init_normal_(void) { return ct_init_normal_(ctx, Dst, 0, 1, 5, 0); }
static ct_status op_init_trunc_normal_(void) {
    return ct_init_trunc_normal_(ctx, Dst, 0, 1, -2, 2, 5, 0);
}
static ct_status op_init_constant_(void) { return ct_init_constant_(ctx, Dst, 0.5); }
static ct_status op_init_ones_(void) { return ct_init_ones_(ctx, Dst); }
static ct_status op_init_zeros_(void) { return ct_init_zeros_(ctx, Dst); }
static ct_status op_init_eye_(void) { return ct_init_eye_(ctx, Dst); }
static ct_status op_init_dirac_(void) {
    ct_status st = ct_tensor_empty(ctx, CT_FLOAT32, 3, (const int64_t[]){4, 2, 3}, &OUT);
    return st == CT_OK ? ct_init_dirac_(ctx, OUT, 2) : st;
}
static ct_status op_init_xavier_uniform_(void) {
    return ct_init_xavier_uniform_(ctx, Dst, 1, 5, 0);
}
static ct_status op_init_xavier_normal_(void) { return ct_init_xavier_normal_(ctx, Dst, 1, 5, 0); }
static ct_status op_init_kaiming_uniform_(void) {
    return ct_init_kaiming_uniform_(ctx, Dst, 0, "fan_in", "relu", 5, 0);
}
static ct_status op_init_kaiming_normal_(void) {
    return ct_init_kaiming_normal_(ctx, Dst, 0, "fan_out", NULL, 5, 0);
}
static ct_status op_init_orthogonal_(void) { return ct_init_orthogonal_(ctx, Dst, 1, 5, 0); }
static ct_status op_init_sparse_(void) { return ct_init_sparse_(ctx, Dst, 0.5, 0.01, 5, 0); }
static ct_status op_parameters_to_vector(void) {
    const ct_tensor *p[2] = {A, B};
    return ct_parameters_to_vector(ctx, 2, p, &OUT);
}
static ct_status op_vector_to_parameters(void) {
    ct_status st = ct_tensor_reshape(ctx, A, 1, (const int64_t[]){32}, &OUT);
    ct_tensor *p[1] = {Dst};
    return st == CT_OK ? ct_vector_to_parameters(ctx, OUT, 1, p) : st;
}
static ct_status op_norm_except_dim(void) { return ct_norm_except_dim(ctx, A, 2, 0, &OUT); }
static ct_status op_weight_norm(void) {
    ct_status st = ct_norm_except_dim(ctx, B, 2, 0, &OUT2);
    return st == CT_OK ? ct_weight_norm(ctx, A, OUT2, 0, &OUT) : st;
}
static ct_status op_spectral_norm_init(void) {
    return ct_spectral_norm_init(ctx, A, 0, 1e-12, 1, 0, &OUT, &OUT2);
}
static ct_status op_spectral_norm(void) {
    ct_status st = ct_spectral_norm_init(ctx, A, 0, 1e-12, 1, 0, &OUT2, &OUT3);
    ct_tensor *o = NULL;
    if (st == CT_OK) st = ct_spectral_norm(ctx, A, OUT2, OUT3, 1, 0, 1e-12, true, &o);
    ct_tensor_release(o);
    return st;
}
static ct_status op_prune_l1_unstructured(void) {
    return ct_prune_l1_unstructured(ctx, A, 0.3, false, NULL, NULL, &OUT);
}
static ct_status op_prune_random_unstructured(void) {
    return ct_prune_random_unstructured(ctx, A, 5, true, NULL, 1, 0, &OUT);
}
static ct_status op_prune_ln_structured(void) {
    return ct_prune_ln_structured(ctx, A, 0.5, false, 2.0, 0, NULL, &OUT);
}
static ct_status op_prune_random_structured(void) {
    return ct_prune_random_structured(ctx, A, 1, true, 1, 1, 0, &OUT);
}
static ct_status op_prune_global_unstructured(void) {
    const ct_tensor *ts[2] = {A, B};
    ct_tensor *m[2] = {NULL, NULL};
    ct_status st = ct_prune_global_unstructured(ctx, 2, ts, 0.5, false, NULL, m);
    OUT = m[0];
    ct_tensor_release(m[1]);
    return st;
}
static ct_status op_fuse_conv_bn_weights(void) {
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 1, (const int64_t[]){4}, &OUT3);
    ct_tensor *b = NULL;
    if (st == CT_OK)
        st = ct_fuse_conv_bn_weights(ctx, A, NULL, OUT3, OUT3, 1e-5, NULL, NULL, false, &OUT, &b);
    ct_tensor_release(b);
    return st;
}
static ct_status op_fuse_linear_bn_weights(void) {
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 1, (const int64_t[]){4}, &OUT3);
    ct_tensor *b = NULL;
    if (st == CT_OK)
        st = ct_fuse_linear_bn_weights(ctx, A, NULL, OUT3, OUT3, 1e-5, NULL, NULL, &OUT, &b);
    ct_tensor_release(b);
    return st;
}

/* Tensor methods (methods.h) */
static ct_status op_new_zeros(void) { return ct_new_zeros(ctx, A, 1, (int64_t[]){3}, &OUT); }
static ct_status op_new_ones(void) { return ct_new_ones(ctx, A, 1, (int64_t[]){3}, &OUT); }
static ct_status op_new_full(void) { return ct_new_full(ctx, A, 1, (int64_t[]){3}, 2.5, &OUT); }
static ct_status op_type_as(void) { return ct_type_as(ctx, A, Idx, &OUT); }
static ct_status op_sum_to_size(void) { return ct_sum_to_size(ctx, A, 2, (int64_t[]){1, 8}, &OUT); }
static ct_status op_fill_diagonal_(void) {
    ct_status st = ct_tensor_clone(ctx, A, &OUT);
    return st == CT_OK ? ct_fill_diagonal_(ctx, OUT, 1.0, true) : st;
}
static ct_status op_igamma_(void) {
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){4, 8}, &OUT);
    if (st == CT_OK) st = ct_abs(ctx, A, &OUT2);
    return st == CT_OK ? ct_igamma_(ctx, OUT, OUT2) : st;
}
static ct_status op_igammac_(void) {
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){4, 8}, &OUT);
    if (st == CT_OK) st = ct_abs(ctx, A, &OUT2);
    return st == CT_OK ? ct_igammac_(ctx, OUT, OUT2) : st;
}
static ct_status op_tensor_bernoulli_(void) {
    ct_status st = ct_tensor_clone(ctx, A, &OUT);
    return st == CT_OK ? ct_tensor_bernoulli_(ctx, OUT, 0.25, 3, 0) : st;
}
static ct_status op_tensor_random_(void) {
    ct_status st = ct_tensor_clone(ctx, A, &OUT);
    return st == CT_OK ? ct_tensor_random_(ctx, OUT, -2, 5, 3, 0) : st;
}
static ct_status op_segment_reduce(void) {
    ct_status st = ct_tensor_from_host(ctx, (const int64_t[]){1, 0, 3}, CT_INT64, 1,
                                       (const int64_t[]){3}, &OUT2);
    return st == CT_OK ? ct_segment_reduce(ctx, A, "mean", OUT2, NULL, 0, true, NULL, &OUT) : st;
}
static ct_status op_pad_sequence(void) {
    ct_status st = ct_tensor_narrow(ctx, A, 0, 0, 2, &OUT2);
    const ct_tensor *seqs[2] = {A, OUT2};
    return st == CT_OK ? ct_pad_sequence(ctx, 2, seqs, true, 0.5, &OUT) : st;
}
static ct_status op_native_layer_norm(void) {
    return ct_native_layer_norm(ctx, A, 1, NULL, NULL, 1e-5, &OUT, &OUT2, &OUT3);
}
static ct_status op_native_group_norm(void) {
    ct_status st = img(A, &OUT2);
    ct_tensor *x = OUT2;
    OUT2 = NULL;
    if (st == CT_OK) st = ct_native_group_norm(ctx, x, NULL, NULL, 1, 1e-5, &OUT, &OUT2, &OUT3);
    ct_tensor_release(x);
    return st;
}
static ct_status op_native_batch_norm(void) {
    return ct_native_batch_norm(ctx, A, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &OUT, &OUT2,
                                &OUT3);
}
static ct_status op_upsample(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK
               ? ct_upsample(ctx, OUT2, 2, (int64_t[]){5, 5}, CT_INTERP_NEAREST, false, &OUT)
               : st;
}
static ct_status op_upsample_nearest(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK ? ct_upsample_nearest(ctx, OUT2, 2, (int64_t[]){5, 5}, &OUT) : st;
}
static ct_status op_upsample_bilinear(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK ? ct_upsample_bilinear(ctx, OUT2, (int64_t[]){5, 5}, &OUT) : st;
}
static ct_status op_max_pool1d_with_indices(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_max_pool1d_with_indices(ctx, OUT2, 3, 2, 1, 1, true, &OUT, &OUT3) : st;
}
static ct_status op_max_pool2d_with_indices(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK
               ? ct_max_pool2d_with_indices(ctx, OUT2, (int64_t[]){2, 2}, NULL, (int64_t[]){0, 0},
                                            (int64_t[]){1, 1}, false, &OUT, &OUT3)
               : st;
}
static ct_status op_max_pool3d_with_indices(void) {
    ct_status st = vol();
    return st == CT_OK ? ct_max_pool3d_with_indices(ctx, OUT2, (const int64_t[]){2, 2, 2}, NULL,
                                                    NULL, NULL, true, &OUT, &OUT3)
                       : st;
}
static ct_status op_adaptive_max_pool1d_with_indices(void) {
    ct_status st = seq(A, &OUT2);
    return st == CT_OK ? ct_adaptive_max_pool1d_with_indices(ctx, OUT2, 3, &OUT, &OUT3) : st;
}
static ct_status op_adaptive_max_pool2d_with_indices(void) {
    ct_status st = img(A, &OUT2);
    return st == CT_OK ? ct_adaptive_max_pool2d_with_indices(ctx, OUT2, (const int64_t[]){3, 3},
                                                             &OUT, &OUT3)
                       : st;
}
static ct_status op_adaptive_max_pool3d_with_indices(void) {
    ct_status st = vol();
    return st == CT_OK ? ct_adaptive_max_pool3d_with_indices(ctx, OUT2, (const int64_t[]){3, 1, 3},
                                                             &OUT, &OUT3)
                       : st;
}
typedef struct {
    const char *name;
    ct_status (*fn)(void);
} op_entry;
/* in-place ops (inplace.h): on Dst (or a fresh copy where the dtype must differ) */
static ct_status op_abs_(void) { return ct_abs_(ctx, Dst); }
static ct_status op_absolute_(void) { return ct_absolute_(ctx, Dst); }
static ct_status op_neg_(void) { return ct_neg_(ctx, Dst); }
static ct_status op_negative_(void) { return ct_negative_(ctx, Dst); }
static ct_status op_sgn_(void) { return ct_sgn_(ctx, Dst); }
static ct_status op_sign_(void) { return ct_sign_(ctx, Dst); }
static ct_status op_conj_physical_(void) { return ct_conj_physical_(ctx, Cx); }
static ct_status op_reciprocal_(void) { return ct_reciprocal_(ctx, Dst); }
static ct_status op_square_(void) { return ct_square_(ctx, Dst); }
static ct_status op_sqrt_(void) { return ct_sqrt_(ctx, Dst); }
static ct_status op_rsqrt_(void) { return ct_rsqrt_(ctx, Dst); }
static ct_status op_exp_(void) { return ct_exp_(ctx, Dst); }
static ct_status op_exp2_(void) { return ct_exp2_(ctx, Dst); }
static ct_status op_expm1_(void) { return ct_expm1_(ctx, Dst); }
static ct_status op_log_(void) { return ct_log_(ctx, Dst); }
static ct_status op_log2_(void) { return ct_log2_(ctx, Dst); }
static ct_status op_log10_(void) { return ct_log10_(ctx, Dst); }
static ct_status op_log1p_(void) { return ct_log1p_(ctx, Dst); }
static ct_status op_sin_(void) { return ct_sin_(ctx, Dst); }
static ct_status op_cos_(void) { return ct_cos_(ctx, Dst); }
static ct_status op_tan_(void) { return ct_tan_(ctx, Dst); }
static ct_status op_asin_(void) { return ct_asin_(ctx, Dst); }
static ct_status op_acos_(void) { return ct_acos_(ctx, Dst); }
static ct_status op_atan_(void) { return ct_atan_(ctx, Dst); }
static ct_status op_arcsin_(void) { return ct_arcsin_(ctx, Dst); }
static ct_status op_arccos_(void) { return ct_arccos_(ctx, Dst); }
static ct_status op_arctan_(void) { return ct_arctan_(ctx, Dst); }
static ct_status op_sinh_(void) { return ct_sinh_(ctx, Dst); }
static ct_status op_cosh_(void) { return ct_cosh_(ctx, Dst); }
static ct_status op_tanh_(void) { return ct_tanh_(ctx, Dst); }
static ct_status op_asinh_(void) { return ct_asinh_(ctx, Dst); }
static ct_status op_acosh_(void) { return ct_acosh_(ctx, Dst); }
static ct_status op_atanh_(void) { return ct_atanh_(ctx, Dst); }
static ct_status op_arcsinh_(void) { return ct_arcsinh_(ctx, Dst); }
static ct_status op_arccosh_(void) { return ct_arccosh_(ctx, Dst); }
static ct_status op_arctanh_(void) { return ct_arctanh_(ctx, Dst); }
static ct_status op_sigmoid_(void) { return ct_sigmoid_(ctx, Dst); }
static ct_status op_erf_(void) { return ct_erf_(ctx, Dst); }
static ct_status op_erfc_(void) { return ct_erfc_(ctx, Dst); }
static ct_status op_erfinv_(void) { return ct_erfinv_(ctx, Dst); }
static ct_status op_lgamma_(void) { return ct_lgamma_(ctx, Dst); }
static ct_status op_digamma_(void) { return ct_digamma_(ctx, Dst); }
static ct_status op_i0_(void) { return ct_i0_(ctx, Dst); }
static ct_status op_sinc_(void) { return ct_sinc_(ctx, Dst); }
static ct_status op_deg2rad_(void) { return ct_deg2rad_(ctx, Dst); }
static ct_status op_rad2deg_(void) { return ct_rad2deg_(ctx, Dst); }
static ct_status op_ceil_(void) { return ct_ceil_(ctx, Dst); }
static ct_status op_floor_(void) { return ct_floor_(ctx, Dst); }
static ct_status op_round_(void) { return ct_round_(ctx, Dst); }
static ct_status op_trunc_(void) { return ct_trunc_(ctx, Dst); }
static ct_status op_fix_(void) { return ct_fix_(ctx, Dst); }
static ct_status op_frac_(void) { return ct_frac_(ctx, Dst); }
static ct_status op_bitwise_not_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    return st == CT_OK ? ct_bitwise_not_(ctx, OUT) : st;
}
static ct_status op_logical_not_(void) { return ct_logical_not_(ctx, Dst); }
static ct_status op_relu_(void) { return ct_relu_(ctx, Dst); }
static ct_status op_relu6_(void) { return ct_relu6_(ctx, Dst); }
static ct_status op_selu_(void) { return ct_selu_(ctx, Dst); }
static ct_status op_silu_(void) { return ct_silu_(ctx, Dst); }
static ct_status op_mish_(void) { return ct_mish_(ctx, Dst); }
static ct_status op_hardsigmoid_(void) { return ct_hardsigmoid_(ctx, Dst); }
static ct_status op_hardswish_(void) { return ct_hardswish_(ctx, Dst); }
static ct_status op_elu_(void) { return ct_elu_(ctx, Dst, 0.5); }
static ct_status op_celu_(void) { return ct_celu_(ctx, Dst, 0.5); }
static ct_status op_leaky_relu_(void) { return ct_leaky_relu_(ctx, Dst, 0.5); }
static ct_status op_hardtanh_(void) { return ct_hardtanh_(ctx, Dst, -0.5, 0.5); }
static ct_status op_threshold_(void) { return ct_threshold_(ctx, Dst, 0.1, 2.0); }
static ct_status op_rrelu_(void) { return ct_rrelu_(ctx, Dst, 0.1, 0.3, true, 7, 0); }
static ct_status op_pow_(void) { return ct_pow_(ctx, Dst, 0.5); }
static ct_status op_fmod_scalar_(void) { return ct_fmod_scalar_(ctx, Dst, 0.5); }
static ct_status op_remainder_scalar_(void) { return ct_remainder_scalar_(ctx, Dst, 0.5); }
static ct_status op_clamp_min_(void) { return ct_clamp_min_(ctx, Dst, 0.5); }
static ct_status op_clamp_max_(void) { return ct_clamp_max_(ctx, Dst, 0.5); }
static ct_status op_eq_scalar_(void) { return ct_eq_scalar_(ctx, Dst, 0.5); }
static ct_status op_ne_scalar_(void) { return ct_ne_scalar_(ctx, Dst, 0.5); }
static ct_status op_lt_scalar_(void) { return ct_lt_scalar_(ctx, Dst, 0.5); }
static ct_status op_le_scalar_(void) { return ct_le_scalar_(ctx, Dst, 0.5); }
static ct_status op_gt_scalar_(void) { return ct_gt_scalar_(ctx, Dst, 0.5); }
static ct_status op_ge_scalar_(void) { return ct_ge_scalar_(ctx, Dst, 0.5); }
static ct_status op_float_power_scalar_(void) {
    ct_status st = ct_cast(ctx, A, CT_FLOAT64, &OUT);
    return st == CT_OK ? ct_float_power_scalar_(ctx, OUT, 2.5) : st;
}
static ct_status op_clamp_(void) { return ct_clamp_(ctx, Dst, &LO, &HI); }
static ct_status op_clip_(void) { return ct_clip_(ctx, Dst, &LO, NULL); }
static ct_status op_nan_to_num_(void) { return ct_nan_to_num_(ctx, Dst, NULL, &HI, NULL); }
static ct_status op_logit_(void) { return ct_logit_(ctx, Dst, 0.5); }
static ct_status op_polygamma_(void) { return ct_polygamma_(ctx, Dst, 1); }
static ct_status op_mvlgamma_(void) { return ct_mvlgamma_(ctx, Dst, 1); }
static ct_status op_div_scalar_mode_(void) {
    return ct_div_scalar_mode_(ctx, Dst, 0.5, CT_ROUND_FLOOR);
}
static ct_status op_pow_tensor_(void) { return ct_pow_tensor_(ctx, Dst, B); }
static ct_status op_float_power_(void) {
    ct_status st = ct_cast(ctx, A, CT_FLOAT64, &OUT);
    return st == CT_OK ? ct_float_power_(ctx, OUT, B) : st;
}
static ct_status op_atan2_(void) { return ct_atan2_(ctx, Dst, B); }
static ct_status op_arctan2_(void) { return ct_arctan2_(ctx, Dst, B); }
static ct_status op_hypot_(void) { return ct_hypot_(ctx, Dst, B); }
static ct_status op_copysign_(void) { return ct_copysign_(ctx, Dst, B); }
static ct_status op_nextafter_(void) { return ct_nextafter_(ctx, Dst, B); }
static ct_status op_ldexp_(void) { return ct_ldexp_(ctx, Dst, B); }
static ct_status op_xlogy_(void) { return ct_xlogy_(ctx, Dst, B); }
static ct_status op_heaviside_(void) { return ct_heaviside_(ctx, Dst, B); }
static ct_status op_fmod_(void) { return ct_fmod_(ctx, Dst, B); }
static ct_status op_remainder_(void) { return ct_remainder_(ctx, Dst, B); }
static ct_status op_floor_divide_(void) { return ct_floor_divide_(ctx, Dst, B); }
static ct_status op_true_divide_(void) { return ct_true_divide_(ctx, Dst, B); }
static ct_status op_divide_(void) { return ct_divide_(ctx, Dst, B); }
static ct_status op_multiply_(void) { return ct_multiply_(ctx, Dst, B); }
static ct_status op_div_mode_(void) { return ct_div_mode_(ctx, Dst, B, CT_ROUND_TRUNC); }
static ct_status op_add_scaled_(void) { return ct_add_scaled_(ctx, Dst, B, 0.5); }
static ct_status op_sub_scaled_(void) { return ct_sub_scaled_(ctx, Dst, B, 0.5); }
static ct_status op_subtract_(void) { return ct_subtract_(ctx, Dst, B, 2.0); }
static ct_status op_gcd_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_gcd_(ctx, OUT, OUT2) : st;
}
static ct_status op_lcm_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_lcm_(ctx, OUT, OUT2) : st;
}
static ct_status op_bitwise_and_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_bitwise_and_(ctx, OUT, OUT2) : st;
}
static ct_status op_bitwise_or_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_bitwise_or_(ctx, OUT, OUT2) : st;
}
static ct_status op_bitwise_xor_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_bitwise_xor_(ctx, OUT, OUT2) : st;
}
static ct_status op_bitwise_left_shift_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_bitwise_left_shift_(ctx, OUT, OUT2) : st;
}
static ct_status op_bitwise_right_shift_(void) {
    ct_status st = ct_cast(ctx, A, CT_INT32, &OUT);
    if (st == CT_OK) st = ct_cast(ctx, B, CT_INT32, &OUT2);
    return st == CT_OK ? ct_bitwise_right_shift_(ctx, OUT, OUT2) : st;
}
static ct_status op_logical_and_(void) { return ct_logical_and_(ctx, Dst, B); }
static ct_status op_logical_or_(void) { return ct_logical_or_(ctx, Dst, B); }
static ct_status op_logical_xor_(void) { return ct_logical_xor_(ctx, Dst, B); }
static ct_status op_eq_(void) { return ct_eq_(ctx, Dst, B); }
static ct_status op_ne_(void) { return ct_ne_(ctx, Dst, B); }
static ct_status op_lt_(void) { return ct_lt_(ctx, Dst, B); }
static ct_status op_le_(void) { return ct_le_(ctx, Dst, B); }
static ct_status op_gt_(void) { return ct_gt_(ctx, Dst, B); }
static ct_status op_ge_(void) { return ct_ge_(ctx, Dst, B); }
static ct_status op_greater_(void) { return ct_greater_(ctx, Dst, B); }
static ct_status op_greater_equal_(void) { return ct_greater_equal_(ctx, Dst, B); }
static ct_status op_less_(void) { return ct_less_(ctx, Dst, B); }
static ct_status op_less_equal_(void) { return ct_less_equal_(ctx, Dst, B); }
static ct_status op_not_equal_(void) { return ct_not_equal_(ctx, Dst, B); }
static ct_status op_lerp_(void) { return ct_lerp_(ctx, Dst, B, C); }
static ct_status op_lerp_scalar_(void) { return ct_lerp_scalar_(ctx, Dst, B, 0.25); }
static ct_status op_addcmul_(void) { return ct_addcmul_(ctx, Dst, B, C, 0.5); }
static ct_status op_addcdiv_(void) { return ct_addcdiv_(ctx, Dst, B, C, 0.5); }
static ct_status op_addr_(void) {
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 1, (int64_t[]){4}, &OUT3);
    return st == CT_OK ? ct_addr_(ctx, Dst, OUT3, V8, 0.5, 2.0) : st;
}
static ct_status op_cumsum_(void) { return ct_cumsum_(ctx, Dst, 1); }
static ct_status op_cumprod_(void) { return ct_cumprod_(ctx, Dst, 0); }
static ct_status op_tril_(void) { return ct_tril_(ctx, Dst, 1); }
static ct_status op_triu_(void) { return ct_triu_(ctx, Dst, -1); }
static ct_status op_renorm_(void) { return ct_renorm_(ctx, Dst, 2, 0, 1.0); }
static ct_status op_masked_fill_(void) { return ct_masked_fill_(ctx, Dst, Cond, 0.5); }
static ct_status op_index_add_(void) { return ct_index_add_(ctx, Emb, 0, Idx, Src6, 2.0); }
static ct_status op_index_copy_(void) { return ct_index_copy_(ctx, Emb, 0, Idx, Src6); }
static ct_status op_index_fill_(void) { return ct_index_fill_(ctx, Emb, 0, Idx, -1.0); }
static ct_status op_index_reduce_(void) {
    return ct_index_reduce_(ctx, Emb, 0, Idx, Src6, "amax", true);
}
static ct_status op_scatter_(void) { return ct_scatter_(ctx, Dst, 1, GIdx, B); }
static ct_status op_scatter_add_(void) { return ct_scatter_add_(ctx, Dst, 1, GIdx, B); }
static ct_status op_scatter_reduce_(void) {
    return ct_scatter_reduce_(ctx, Dst, 1, GIdx, B, "mean", true);
}
static ct_status op_addmm_(void) {
    ct_tensor *in = NULL;
    ct_status st = ct_tensor_narrow(ctx, B, 1, 0, 4, &in);
    if (st == CT_OK) st = ct_tensor_clone(ctx, in, &OUT);
    ct_tensor_release(in);
    return st == CT_OK ? ct_addmm_(ctx, OUT, A, Mt, 0.5, 2.0) : st;
}
static ct_status op_addbmm_(void) {
    ct_tensor *in = NULL, *a = NULL, *b = NULL;
    ct_status st = ct_tensor_narrow(ctx, B, 1, 0, 4, &in);
    if (st == CT_OK) st = ct_tensor_clone(ctx, in, &OUT);
    if (st == CT_OK) st = ct_tensor_view(ctx, A, 3, (int64_t[]){1, 4, 8}, &a);
    if (st == CT_OK) st = ct_tensor_view(ctx, Mt, 3, (int64_t[]){1, 8, 4}, &b);
    if (st == CT_OK) st = ct_addbmm_(ctx, OUT, a, b, 1.0, 0.5);
    if (st == CT_OK) st = ct_tensor_view(ctx, OUT, 3, (int64_t[]){1, 4, 4}, &OUT2);
    if (st == CT_OK) st = ct_baddbmm_(ctx, OUT2, a, b, 0.5, 1.0);
    ct_tensor_release(in), ct_tensor_release(a), ct_tensor_release(b);
    return st;
}
static ct_status op_baddbmm_(void) { return op_addbmm_(); }
static ct_status op_addmv_(void) {
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 1, (int64_t[]){4}, &OUT3);
    return st == CT_OK ? ct_addmv_(ctx, OUT3, A, V8, 0.5, 1.0) : st;
}
static ct_status op_index_put_(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){1, 2}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, B, 0, 0, 1, &OUT3);
    const ct_tensor *ix[1] = {OUT2};
    return st == CT_OK ? ct_index_put_(ctx, Dst, 1, ix, OUT3, true) : st;
}
static ct_status op_put_(void) {
    ct_status st =
        ct_tensor_from_host(ctx, (const int64_t[]){3, 5}, CT_INT64, 1, (const int64_t[]){2}, &OUT2);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, V8, 0, 0, 2, &OUT3);
    return st == CT_OK ? ct_put_(ctx, Dst, OUT2, OUT3, true) : st;
}

/* the *_copy ops and the torch names of ops.h's last section */
static ct_status op_permute_copy(void) {
    return ct_permute_copy(ctx, A, (const int[]){1, 0}, &OUT);
}
static ct_status op_t_copy(void) { return ct_t_copy(ctx, A, &OUT); }
static ct_status op_transpose_copy(void) { return ct_transpose_copy(ctx, A, 0, 1, &OUT); }
static ct_status op_expand_copy(void) {
    return ct_expand_copy(ctx, A, 3, (const int64_t[]){2, 4, 8}, &OUT);
}
static ct_status op_narrow_copy(void) { return ct_narrow_copy(ctx, A, 1, 0, 4, &OUT); }
static ct_status op_select_copy(void) { return ct_select_copy(ctx, A, 0, 1, &OUT); }
static ct_status op_slice_copy(void) { return ct_slice_copy(ctx, A, 1, 0, 8, 2, &OUT); }
static ct_status op_squeeze_copy(void) { return ct_squeeze_copy(ctx, A, CT_ALL_DIMS, &OUT); }
static ct_status op_unsqueeze_copy(void) { return ct_unsqueeze_copy(ctx, A, 0, &OUT); }
static ct_status op_view_copy(void) {
    return ct_view_copy(ctx, A, 2, (const int64_t[]){8, 4}, &OUT);
}
static ct_status op_diagonal_copy(void) { return ct_diagonal_copy(ctx, A, 0, 0, 1, &OUT); }
static ct_status op_unfold_copy(void) { return ct_unfold_copy(ctx, A, 1, 2, 2, &OUT); }
static ct_status op_as_strided_copy(void) {
    return ct_as_strided_copy(ctx, A, 2, (const int64_t[]){2, 2}, (const int64_t[]){8, 1}, 0, &OUT);
}
static ct_status op_alias_copy(void) { return ct_alias_copy(ctx, A, &OUT); }
static ct_status op_detach_copy(void) { return ct_detach_copy(ctx, A, &OUT); }
static ct_status op_view_as_real_copy(void) { return ct_view_as_real_copy(ctx, Cx, &OUT); }
static ct_status op_view_as_complex_copy(void) {
    ct_status st = ct_tensor_view(ctx, A, 3, (const int64_t[]){4, 4, 2}, &OUT2);
    return st == CT_OK ? ct_view_as_complex_copy(ctx, OUT2, &OUT) : st;
}
static ct_status op_split_copy(void) {
    ct_tensor *o[2] = {NULL, NULL};
    int n = 0;
    ct_status st = ct_split_copy(ctx, A, 4, 1, 2, o, &n);
    OUT = o[0], OUT2 = o[1];
    return st;
}
static ct_status op_split_with_sizes_copy(void) {
    ct_tensor *o[2] = {NULL, NULL};
    ct_status st = ct_split_with_sizes_copy(ctx, A, 2, (const int64_t[]){3, 5}, 1, o);
    OUT = o[0], OUT2 = o[1];
    return st;
}
static ct_status op_unbind_copy(void) {
    ct_tensor *o[4] = {NULL};
    int n = 0;
    ct_status st = ct_unbind_copy(ctx, A, 0, 4, o, &n);
    OUT = o[0], OUT2 = o[1], OUT3 = o[2];
    ct_tensor_release(o[3]);
    return st;
}
static ct_status op_mm(void) { return ct_mm(ctx, A, Mt, &OUT); }
static ct_status op_scalar_tensor(void) { return ct_scalar_tensor(ctx, 2.5, CT_FLOAT32, &OUT); }
static ct_status op_tensor_empty_strided(void) {
    return ct_tensor_empty_strided(ctx, CT_FLOAT32, 2, (const int64_t[]){2, 3},
                                   (const int64_t[]){1, 2}, &OUT);
}
static ct_status op_tensor_range(void) {
    return ct_tensor_range(ctx, CT_FLOAT32, 0, 1, 0.25, &OUT);
}
static ct_status op_igamma(void) { return ct_igamma(ctx, A, B, &OUT); }
static ct_status op_igammac(void) { return ct_igammac(ctx, A, B, &OUT); }
static ct_status op_constant_pad_nd(void) {
    return ct_constant_pad_nd(ctx, A, 2, (const int64_t[]){1, 1}, 0.5, &OUT);
}

static ct_status op_fake_quantize_per_tensor_affine(void) {
    return ct_fake_quantize_per_tensor_affine(ctx, A, 0.25, 3, 0, 15, &OUT);
}
static ct_status op_fake_quantize_per_channel_affine(void) {
    ct_status st = ct_tensor_full(ctx, CT_FLOAT32, 1, (const int64_t[]){4}, 0.125, &OUT2);
    if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_INT32, 1, (const int64_t[]){4}, &OUT3);
    return st == CT_OK ? ct_fake_quantize_per_channel_affine(ctx, A, OUT2, OUT3, 0, -8, 7, &OUT)
                       : st;
}
static ct_status op_fake_quantize_learnable_per_tensor_affine(void) {
    ct_status st = ct_tensor_full(ctx, CT_FLOAT32, 1, (const int64_t[]){1}, 0.125, &OUT2);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT32, 1, (const int64_t[]){1}, 1.5, &OUT3);
    return st == CT_OK
               ? ct_fake_quantize_learnable_per_tensor_affine(ctx, A, OUT2, OUT3, -8, 7, 1.0, &OUT)
               : st;
}
static ct_status op_fake_quantize_learnable_per_channel_affine(void) {
    ct_status st = ct_tensor_full(ctx, CT_FLOAT32, 1, (const int64_t[]){4}, 0.125, &OUT2);
    if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_FLOAT32, 1, (const int64_t[]){4}, &OUT3);
    return st == CT_OK ? ct_fake_quantize_learnable_per_channel_affine(ctx, A, OUT2, OUT3, 0, -8, 7,
                                                                       1.0, &OUT)
                       : st;
}

#define E(f)                                                                                       \
    { "ct_" #f, op_##f }
/* Public calls that compute: each must record at least one node when captured. */
static const op_entry computing[] = {
    E(fake_quantize_per_tensor_affine),
    E(fake_quantize_per_channel_affine),
    E(fake_quantize_learnable_per_tensor_affine),
    E(fake_quantize_learnable_per_channel_affine),
    E(permute_copy),
    E(t_copy),
    E(transpose_copy),
    E(expand_copy),
    E(narrow_copy),
    E(select_copy),
    E(slice_copy),
    E(squeeze_copy),
    E(unsqueeze_copy),
    E(view_copy),
    E(diagonal_copy),
    E(unfold_copy),
    E(as_strided_copy),
    E(alias_copy),
    E(detach_copy),
    E(view_as_real_copy),
    E(view_as_complex_copy),
    E(split_copy),
    E(split_with_sizes_copy),
    E(unbind_copy),
    E(mm),
    E(scalar_tensor),
    E(tensor_empty_strided),
    E(tensor_range),
    E(igamma),
    E(igammac),
    E(constant_pad_nd),
    E(abs_),
    E(absolute_),
    E(neg_),
    E(negative_),
    E(sgn_),
    E(sign_),
    E(conj_physical_),
    E(reciprocal_),
    E(square_),
    E(sqrt_),
    E(rsqrt_),
    E(exp_),
    E(exp2_),
    E(expm1_),
    E(log_),
    E(log2_),
    E(log10_),
    E(log1p_),
    E(sin_),
    E(cos_),
    E(tan_),
    E(asin_),
    E(acos_),
    E(atan_),
    E(arcsin_),
    E(arccos_),
    E(arctan_),
    E(sinh_),
    E(cosh_),
    E(tanh_),
    E(asinh_),
    E(acosh_),
    E(atanh_),
    E(arcsinh_),
    E(arccosh_),
    E(arctanh_),
    E(sigmoid_),
    E(erf_),
    E(erfc_),
    E(erfinv_),
    E(lgamma_),
    E(digamma_),
    E(i0_),
    E(sinc_),
    E(deg2rad_),
    E(rad2deg_),
    E(ceil_),
    E(floor_),
    E(round_),
    E(trunc_),
    E(fix_),
    E(frac_),
    E(bitwise_not_),
    E(logical_not_),
    E(relu_),
    E(relu6_),
    E(selu_),
    E(silu_),
    E(mish_),
    E(hardsigmoid_),
    E(hardswish_),
    E(elu_),
    E(celu_),
    E(leaky_relu_),
    E(hardtanh_),
    E(threshold_),
    E(rrelu_),
    E(pow_),
    E(fmod_scalar_),
    E(remainder_scalar_),
    E(clamp_min_),
    E(clamp_max_),
    E(eq_scalar_),
    E(ne_scalar_),
    E(lt_scalar_),
    E(le_scalar_),
    E(gt_scalar_),
    E(ge_scalar_),
    E(float_power_scalar_),
    E(clamp_),
    E(clip_),
    E(nan_to_num_),
    E(logit_),
    E(polygamma_),
    E(mvlgamma_),
    E(div_scalar_mode_),
    E(pow_tensor_),
    E(float_power_),
    E(atan2_),
    E(arctan2_),
    E(hypot_),
    E(copysign_),
    E(nextafter_),
    E(ldexp_),
    E(xlogy_),
    E(heaviside_),
    E(fmod_),
    E(remainder_),
    E(floor_divide_),
    E(true_divide_),
    E(divide_),
    E(multiply_),
    E(div_mode_),
    E(add_scaled_),
    E(sub_scaled_),
    E(subtract_),
    E(gcd_),
    E(lcm_),
    E(bitwise_and_),
    E(bitwise_or_),
    E(bitwise_xor_),
    E(bitwise_left_shift_),
    E(bitwise_right_shift_),
    E(logical_and_),
    E(logical_or_),
    E(logical_xor_),
    E(eq_),
    E(ne_),
    E(lt_),
    E(le_),
    E(gt_),
    E(ge_),
    E(greater_),
    E(greater_equal_),
    E(less_),
    E(less_equal_),
    E(not_equal_),
    E(lerp_),
    E(lerp_scalar_),
    E(addcmul_),
    E(addcdiv_),
    E(addmm_),
    E(addmv_),
    E(addr_),
    E(addbmm_),
    E(baddbmm_),
    E(cumsum_),
    E(cumprod_),
    E(tril_),
    E(triu_),
    E(renorm_),
    E(masked_fill_),
    E(index_add_),
    E(index_copy_),
    E(index_fill_),
    E(index_reduce_),
    E(index_put_),
    E(put_),
    E(scatter_),
    E(scatter_add_),
    E(scatter_reduce_),
    E(add),
    E(add_scaled),
    E(sub),
    E(sub_scaled),
    E(mul),
    E(div),
    E(add_scalar),
    E(sub_scalar),
    E(mul_scalar),
    E(div_scalar),
    E(eq_scalar),
    E(ne_scalar),
    E(lt_scalar),
    E(le_scalar),
    E(gt_scalar),
    E(ge_scalar),
    E(add_),
    E(sub_),
    E(mul_),
    E(div_),
    E(add_scalar_),
    E(sub_scalar_),
    E(mul_scalar_),
    E(div_scalar_),
    E(eq),
    E(ne),
    E(lt),
    E(le),
    E(gt),
    E(ge),
    E(neg),
    E(abs),
    E(exp),
    E(log),
    E(sqrt),
    E(rsqrt),
    E(tanh),
    E(sigmoid),
    E(relu),
    E(gelu),
    E(erf),
    E(erfc),
    E(sin),
    E(cos),
    E(exp2),
    E(log2),
    E(log1p),
    E(expm1),
    E(tan),
    E(atan),
    E(asin),
    E(acos),
    E(sinh),
    E(cosh),
    E(asinh),
    E(acosh),
    E(atanh),
    E(log10),
    E(reciprocal),
    E(atan2),
    E(dot),
    E(mv),
    E(outer),
    E(trace),
    E(diagonal),
    E(diag),
    E(tile),
    E(diff),
    E(nansum),
    E(nanmean),
    E(var_mean),
    E(std_mean),
    E(cross),
    E(einsum),
    E(median),
    E(cummax),
    E(cummin),
    E(logcumsumexp),
    E(rot90),
    E(kron),
    E(repeat_interleave),
    E(searchsorted),
    E(bucketize),
    E(isin),
    E(aminmax),
    E(tensor_randint),
    E(randperm),
    E(rand_like),
    E(randn_like),
    E(cov),
    E(corrcoef),
    E(trapezoid),
    E(nanmedian),
    E(median_dim),
    E(nanmedian_dim),
    E(hypot),
    E(logaddexp),
    E(logaddexp2),
    E(xlogy),
    E(copysign),
    E(fmax),
    E(fmin),
    E(heaviside),
    E(pow_tensor),
    E(square),
    E(deg2rad),
    E(rad2deg),
    E(frac),
    E(sinc),
    E(signbit),
    E(flipud),
    E(fliplr),
    E(msort),
    E(clip),
    E(absolute),
    E(negative),
    E(fix),
    E(true_divide),
    E(index_copy),
    E(index_fill),
    E(float_power),
    E(float_power_scalar),
    E(cumulative_trapezoid),
    E(cumulative_trapezoid_x),
    E(linalg_vector_norm),
    E(linalg_matrix_norm),
    E(linalg_multi_dot),
    E(cdist),
    E(linalg_pinv),
    E(svd_lowrank),
    E(pca_lowrank),
    E(linalg_solve_triangular),
    E(linalg_lu_factor),
    E(linalg_lu_factor_ex),
    E(linalg_lu),
    E(linalg_lu_solve),
    E(lu_unpack),
    E(cholesky_solve),
    E(cholesky_inverse),
    E(linalg_lstsq),
    E(linalg_svdvals),
    E(linalg_matrix_rank),
    E(linalg_inv_ex),
    E(linalg_solve_ex),
    E(linalg_vecdot),
    E(linalg_tensorinv),
    E(linalg_tensorsolve),
    E(linalg_householder_product),
    E(geqrf),
    E(ormqr),
    E(linalg_cond),
    E(margin_ranking_loss),
    E(hinge_embedding_loss),
    E(soft_margin_loss),
    E(triplet_margin_loss),
    E(triplet_margin_with_distance_loss),
    E(multilabel_soft_margin_loss),
    E(pairwise_distance),
    E(cosine_embedding_loss),
    E(poisson_nll_loss),
    E(pixel_shuffle),
    E(pixel_unshuffle),
    E(hstack),
    E(vstack),
    E(dstack),
    E(column_stack),
    E(block_diag),
    E(tensordot),
    E(addmv),
    E(addr),
    E(cartesian_prod),
    E(vander),
    E(diag_embed),
    E(linalg_matrix_power),
    E(logdet),
    E(tensor_logspace),
    E(lgamma),
    E(digamma),
    E(polygamma),
    E(mvlgamma),
    E(erfinv),
    E(i0),
    E(special_i0e),
    E(special_i1),
    E(special_i1e),
    E(special_ndtr),
    E(special_ndtri),
    E(special_log_ndtr),
    E(special_erfcx),
    E(special_entr),
    E(special_xlog1py),
    E(nextafter),
    E(gcd),
    E(lcm),
    E(isclose),
    E(logit),
    E(nan_to_num),
    E(floor),
    E(ceil),
    E(round),
    E(trunc),
    E(sign),
    E(silu),
    E(mish),
    E(isnan),
    E(isinf),
    E(isfinite),
    E(logical_not),
    E(maximum),
    E(minimum),
    E(remainder),
    E(fmod),
    E(logical_and),
    E(logical_or),
    E(logical_xor),
    E(remainder_scalar),
    E(div_mode),
    E(div_scalar_mode),
    E(floor_divide),
    E(fmod_scalar),
    E(leaky_relu),
    E(elu),
    E(softplus),
    E(hardtanh),
    E(lerp),
    E(lerp_scalar),
    E(bitwise_and),
    E(bitwise_or),
    E(bitwise_xor),
    E(bitwise_left_shift),
    E(bitwise_right_shift),
    E(bitwise_not),
    E(pow),
    E(clamp),
    E(where),
    E(addcmul),
    E(addcdiv),
    E(cast),
    E(sum),
    E(mean),
    E(amax),
    E(amin),
    E(argmax),
    E(softmax),
    E(log_softmax),
    E(layer_norm),
    E(matmul),
    E(bmm),
    E(embedding),
    E(tensor_zeros),
    E(tensor_full),
    E(tensor_arange),
    E(tensor_rand),
    E(tensor_randn),
    E(tensor_contiguous),
    E(tensor_clone),
    E(tensor_copy_),
    E(tensor_fill_),
    E(tensor_zero_),
    E(linalg_eigh),
    E(linalg_eigvalsh),
    E(linalg_eigh_ex),
    E(mx_quantize),
    E(mx_dequantize),
    E(mx_dequantize_into),
    E(mx_linear),
    E(sparse24_prune),
    E(sparse24_prune_ex),
    E(sparse24_to_dense),
    E(sparse24_mm),
    E(sparse24_mm_ex),
    E(sparse24_linear),
    E(flex_attention),
    E(flex_attention_backward),
    E(optim_step),
    E(clip_grad_norm_),
    E(clip_grad_value_),
    E(swa_update_parameters),
    E(init_uniform_),
    E(init_normal_),
    E(init_trunc_normal_),
    E(init_constant_),
    E(init_ones_),
    E(init_zeros_),
    E(init_eye_),
    E(init_dirac_),
    E(init_xavier_uniform_),
    E(init_xavier_normal_),
    E(init_kaiming_uniform_),
    E(init_kaiming_normal_),
    E(init_orthogonal_),
    E(init_sparse_),
    E(parameters_to_vector),
    E(vector_to_parameters),
    E(norm_except_dim),
    E(weight_norm),
    E(spectral_norm_init),
    E(spectral_norm),
    E(fuse_conv_bn_weights),
    E(fuse_linear_bn_weights),
    E(prune_l1_unstructured),
    E(prune_random_unstructured),
    E(prune_ln_structured),
    E(prune_random_structured),
    E(prune_global_unstructured),
    E(while_loop),
    E(backward),
    E(autograd_grad),
    E(autograd_grad_ex),
    E(new_zeros),
    E(new_ones),
    E(new_full),
    E(type_as),
    E(sum_to_size),
    E(fill_diagonal_),
    E(igamma_),
    E(igammac_),
    E(tensor_bernoulli_),
    E(tensor_random_),
    E(segment_reduce),
    E(native_layer_norm),
    E(native_group_norm),
    E(native_batch_norm),
    E(pad_sequence),
    E(upsample),
    E(upsample_nearest),
    E(upsample_bilinear),
    E(max_pool1d_with_indices),
    E(max_pool2d_with_indices),
    E(max_pool3d_with_indices),
    E(adaptive_max_pool1d_with_indices),
    E(adaptive_max_pool2d_with_indices),
    E(adaptive_max_pool3d_with_indices),
    E(autograd_function_apply),
    E(checkpoint),
    E(autograd_vjp),
    E(autograd_jvp),
    E(autograd_jacobian),
    E(autograd_hessian),
    E(autograd_vhp),
    E(autograd_hvp),
    E(linear),
    E(cross_entropy),
    E(cross_entropy_ex),
    E(mse_loss),
    E(nll_loss),
    E(nll_loss_ex),
    E(hardsigmoid),
    E(hardswish),
    E(logsigmoid),
    E(softsign),
    E(selu),
    E(relu6),
    E(tanhshrink),
    E(celu),
    E(glu),
    E(softmin),
    E(prelu),
    E(softshrink),
    E(hardshrink),
    E(threshold),
    E(kl_div),
    E(normalize),
    E(cosine_similarity),
    E(l1_loss),
    E(smooth_l1_loss),
    E(huber_loss),
    E(binary_cross_entropy),
    E(binary_cross_entropy_with_logits),
    E(tensor_ones),
    E(tensor_eye),
    E(tensor_linspace),
    E(zeros_like),
    E(ones_like),
    E(full_like),
    E(tril),
    E(triu),
    E(cat),
    E(stack),
    E(repeat),
    E(flip),
    E(roll),
    E(index_select),
    E(gather),
    E(take_along_dim),
    E(scatter),
    E(scatter_add),
    E(masked_fill),
    E(one_hot),
    E(index_add),
    E(sort),
    E(argsort),
    E(topk),
    E(kthvalue),
    E(all),
    E(any),
    E(count_nonzero),
    E(argmin),
    E(max_dim),
    E(min_dim),
    E(prod),
    E(cumsum),
    E(cumprod),
    E(var),
    E(std),
    E(logsumexp),
    E(norm),
    E(rms_norm),
    E(group_norm),
    E(batch_norm),
    E(dropout),
    E(pad),
    E(fft_fft),
    E(fft_ifft),
    E(fft_rfft),
    E(fft_irfft),
    E(fft_hfft),
    E(fft_ihfft),
    E(fft_fftn),
    E(fft_ifftn),
    E(fft_rfftn),
    E(fft_irfftn),
    E(fft_fft2),
    E(fft_ifft2),
    E(fft_rfft2),
    E(fft_irfft2),
    E(fft_hfftn),
    E(fft_ihfftn),
    E(fft_hfft2),
    E(fft_ihfft2),
    E(fft_fftfreq),
    E(fft_rfftfreq),
    E(fft_fftshift),
    E(fft_ifftshift),
    E(complex),
    E(polar),
    E(stft),
    E(linalg_eig),
    E(linalg_eigvals),
    E(unfold),
    E(fold),
    E(conv2d),
    E(conv1d),
    E(max_pool2d),
    E(max_pool2d_ex),
    E(avg_pool2d_ex),
    E(avg_pool2d_divisor),
    E(avg_pool2d),
    E(adaptive_avg_pool2d),
    E(addmm),
    E(baddbmm),
    E(linalg_cholesky),
    E(linalg_cholesky_ex),
    E(linalg_inv),
    E(linalg_solve),
    E(linalg_det),
    E(linalg_slogdet),
    E(linalg_qr),
    E(linalg_svd),
    E(linalg_svd_full),
    E(linalg_qr_mode),
    E(linalg_ldl_factor),
    E(linalg_ldl_factor_ex),
    E(linalg_ldl_solve),
    E(interpolate),
    E(interpolate_scale),
    E(index),
    E(index_put),
    E(take),
    E(put),
    E(select_scatter),
    E(slice_scatter),
    E(diagonal_scatter),
    E(diagflat),
    E(combinations),
    E(renorm),
    E(clamp_min),
    E(clamp_max),
    E(rsub),
    E(rsub_scalar),
    E(sgn),
    E(ldexp),
    E(frexp),
    E(isposinf),
    E(isneginf),
    E(isreal),
    E(inner),
    E(vdot),
    E(tensor_dist),
    E(chain_matmul),
    E(addbmm),
    E(pdist),
    E(row_stack),
    E(concat),
    E(concatenate),
    E(scatter_reduce),
    E(index_reduce),
    E(conv_transpose2d),
    E(conv_transpose1d),
    E(max_pool1d),
    E(avg_pool1d),
    E(adaptive_avg_pool1d),
    E(adaptive_max_pool1d),
    E(adaptive_max_pool2d),
    E(max_unpool2d),
    E(max_unpool1d),
    E(lp_pool2d),
    E(lp_pool1d),
    E(instance_norm),
    E(local_response_norm),
    E(bilinear),
    E(channel_shuffle),
    E(rnn_tanh_cell),
    E(rnn_relu_cell),
    E(lstm_cell),
    E(gru_cell),
    E(rnn),
    E(lstm),
    E(gru),
    E(normal_scalar),
    E(randint_like),
    E(tensor_uniform_),
    E(tensor_normal_),
    E(tensor_exponential_),
    E(tensor_cauchy_),
    E(tensor_log_normal_),
    E(tensor_geometric_),
    E(max),
    E(min),
    E(angle),
    E(frobenius_norm),
    E(nuclear_norm),
    E(linalg_norm),
    E(linalg_vander),
    E(linalg_cross),
    E(linalg_diagonal),
    E(linalg_matmul),
    E(svd),
    E(qr),
    E(cholesky),
    E(slogdet),
    E(matrix_power),
    E(orgqr),
    E(triangular_solve),
    E(lu_solve),
    E(conv3d),
    E(conv_transpose3d),
    E(max_pool3d),
    E(avg_pool3d),
    E(adaptive_avg_pool3d),
    E(adaptive_max_pool3d),
    E(max_unpool3d),
    E(scaled_dot_product_attention),
    E(multi_head_attention_forward),
    E(multi_margin_loss),
    E(multilabel_margin_loss),
    E(hann_window),
    E(hamming_window),
    E(blackman_window),
    E(bartlett_window),
    E(kaiser_window),
    E(gradient),
    E(special_expit),
    E(special_gammaln),
    E(special_psi),
    E(special_digamma),
    E(special_erf),
    E(special_erfc),
    E(special_erfinv),
    E(special_exp2),
    E(special_expm1),
    E(special_log1p),
    E(special_sinc),
    E(special_round),
    E(special_i0),
    E(arccos),
    E(arccosh),
    E(arcsin),
    E(arcsinh),
    E(arctan),
    E(arctanh),
    E(special_xlogy),
    E(arctan2),
    E(divide),
    E(multiply),
    E(greater),
    E(greater_equal),
    E(less),
    E(less_equal),
    E(not_equal),
    E(special_multigammaln),
    E(special_polygamma),
    E(special_logit),
    E(special_logsumexp),
    E(special_softmax),
    E(special_log_softmax),
    E(subtract),
    E(ger),
    E(det),
    E(inverse),
    E(pinverse),
    E(trapz),
    E(special_bessel_j0),
    E(special_bessel_j1),
    E(special_bessel_y0),
    E(special_bessel_y1),
    E(special_modified_bessel_k0),
    E(special_modified_bessel_k1),
    E(special_scaled_modified_bessel_k0),
    E(special_scaled_modified_bessel_k1),
    E(special_spherical_bessel_j0),
    E(special_modified_bessel_i0),
    E(special_modified_bessel_i1),
    E(special_zeta),
    E(special_gammainc),
    E(special_gammaincc),
    E(special_chebyshev_polynomial_t),
    E(special_chebyshev_polynomial_u),
    E(special_chebyshev_polynomial_v),
    E(special_chebyshev_polynomial_w),
    E(special_shifted_chebyshev_polynomial_t),
    E(special_shifted_chebyshev_polynomial_u),
    E(special_shifted_chebyshev_polynomial_v),
    E(special_shifted_chebyshev_polynomial_w),
    E(special_hermite_polynomial_h),
    E(special_hermite_polynomial_he),
    E(special_laguerre_polynomial_l),
    E(special_legendre_polynomial_p),
    E(special_airy_ai),
    E(dropout1d),
    E(dropout2d),
    E(dropout3d),
    E(alpha_dropout),
    E(feature_alpha_dropout),
    E(rrelu),
    E(gumbel_softmax),
    E(embedding_bag),
    E(affine_grid),
    E(grid_sample),
};

/* Public functions that do not compute on a stream, and why. */
static const struct {
    const char *name, *why;
} not_computing[] = {
    {"ct_status_str", "table lookup"},
    {"ct_caching_allocator_alloc_stream", "allocator call for backends (no op)"},
    {"ct_dist_nn_all_reduce", "libctorch_dist: differentiable collective, runs eagerly across "
                              "processes (refused during capture)"},
    {"ct_dist_nn_broadcast", "libctorch_dist: differentiable collective, runs eagerly across "
                             "processes (refused during capture)"},
    {"ct_dist_nn_all_gather", "libctorch_dist: differentiable collective, runs eagerly across "
                              "processes (refused during capture)"},
    {"ct_dist_nn_reduce_scatter", "libctorch_dist: differentiable collective, runs eagerly across "
                                  "processes (refused during capture)"},
    {"ct_dist_nn_all_to_all_v", "libctorch_dist: differentiable collective, runs eagerly across "
                                "processes (refused during capture)"},
    {"ct_dist_nn_all_to_all_v_2d", "libctorch_dist: differentiable collective, runs eagerly across "
                                   "processes (refused during capture)"},
    {"ct_dist_init", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_dist_rank", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_dist_size", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_dist_split", "libctorch_dist: process groups and collectives run eagerly across processes "
                      "(refused during capture)"},
    {"ct_dist_set_timeout", "libctorch_dist: process groups and collectives run eagerly across "
                            "processes (refused during capture)"},
    {"ct_dist_is_node_local", "libctorch_dist: process groups and collectives run eagerly across "
                              "processes (refused during capture)"},
    {"ct_dist_broadcast", "libctorch_dist: process groups and collectives run eagerly across "
                          "processes (refused during capture)"},
    {"ct_dist_all_reduce", "libctorch_dist: process groups and collectives run eagerly across "
                           "processes (refused during capture)"},
    {"ct_dist_all_gather", "libctorch_dist: process groups and collectives run eagerly across "
                           "processes (refused during capture)"},
    {"ct_dist_reduce_scatter", "libctorch_dist: process groups and collectives run eagerly across "
                               "processes (refused during capture)"},
    {"ct_dist_all_to_all", "libctorch_dist: process groups and collectives run eagerly across "
                           "processes (refused during capture)"},
    {"ct_dist_all_to_all_v", "libctorch_dist: process groups and collectives run eagerly across "
                             "processes (refused during capture)"},
    {"ct_dist_all_to_all_v_2d", "libctorch_dist: process groups and collectives run eagerly across "
                                "processes (refused during capture)"},
    {"ct_dist_all_to_all_v_2d_combine", "libctorch_dist: process groups and collectives run "
                                        "eagerly across processes (refused during capture)"},
    {"ct_dist_barrier", "libctorch_dist: process groups and collectives run eagerly across "
                        "processes (refused during capture)"},
    {"ct_dist_free", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_symm_alloc", "libctorch_dist: process groups and collectives run eagerly across processes "
                      "(refused during capture)"},
    {"ct_symm_ptr", "libctorch_dist: process groups and collectives run eagerly across processes "
                    "(refused during capture)"},
    {"ct_symm_size", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_symm_peer_ptr", "libctorch_dist: process groups and collectives run eagerly across "
                         "processes (refused during capture)"},
    {"ct_symm_tensor", "zero-copy view of symmetric memory"},
    {"ct_symm_put", "libctorch_dist: process groups and collectives run eagerly across processes "
                    "(refused during capture)"},
    {"ct_symm_get", "libctorch_dist: process groups and collectives run eagerly across processes "
                    "(refused during capture)"},
    {"ct_symm_signal", "libctorch_dist: process groups and collectives run eagerly across "
                       "processes (refused during capture)"},
    {"ct_symm_wait", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_symm_free", "libctorch_dist: process groups and collectives run eagerly across processes "
                     "(refused during capture)"},
    {"ct_tensor_to_dlpack", "zero-copy export of existing memory"},
    {"ct_tensor_to_dlpack_versioned", "zero-copy export of existing memory"},
    {"ct_tensor_from_dlpack", "zero-copy wrap of a producer's memory (as from_blob)"},
    {"ct_tensor_from_dlpack_versioned", "zero-copy wrap of a producer's memory (as from_blob)"},
    {"ct_nonzero", "data-dependent size: reads the data on the host (CT_ERR_STATE under capture)"},
    {"ct_masked_select", "data-dependent size: reads the mask on the host (refused under capture)"},
    {"ct_unique",
     "data-dependent size: reads the sorted values on the host (refused under capture)"},
    {"ct_tensor_set_requires_grad", "autograd flag on a leaf"},
    {"ct_tensor_requires_grad", "getter"},
    {"ct_tensor_grad", "getter"},
    {"ct_tensor_zero_grad", "drops a reference (set_to_none)"},
    {"ct_set_grad_enabled", "grad mode flag"},
    {"ct_is_grad_enabled", "grad mode flag"},
    {"ct_new_empty", "allocation only"},
    {"ct_tensor_apply_", "calls a host function on every element (refused during capture)"},
    {"ct_tensor_map_", "calls a host function on every element (refused during capture)"},
    {"ct_expand_as", "view"},
    {"ct_view_as", "view (no data moves)"},
    {"ct_reshape_as", "view, or ct_tensor_contiguous (a copy op) when it cannot be one"},
    {"ct_tensor_element_size", "dtype query"},
    {"ct_t_", "changes the handle's shape and strides (no data moves)"},
    {"ct_transpose_", "changes the handle's shape and strides (no data moves)"},
    {"ct_swapaxes_", "changes the handle's shape and strides (no data moves)"},
    {"ct_swapdims_", "changes the handle's shape and strides (no data moves)"},
    {"ct_squeeze_", "changes the handle's shape and strides (no data moves)"},
    {"ct_unsqueeze_", "changes the handle's shape and strides (no data moves)"},
    {"ct_as_strided_", "changes the handle's shape and strides (no data moves)"},
    {"ct_detach_", "drops the handle's autograd history (no data moves)"},
    {"ct_split_with_sizes", "views"},
    {"ct_unsafe_split_with_sizes", "views"},
    {"ct_unsafe_split", "views"},
    {"ct_unsafe_chunk", "views"},
    {"ct_fractional_max_pool2d_with_indices",
     "the windows' maxima are found on the host (reads the input), which capture refuses"},
    {"ct_fractional_max_pool3d_with_indices",
     "the windows' maxima are found on the host (reads the input), which capture refuses"},
    {"ct_set_detect_anomaly", "anomaly mode flag"},
    {"ct_is_anomaly_enabled", "anomaly mode flag"},
    {"ct_tensor_is_leaf", "autograd metadata query"},
    {"ct_tensor_grad_fn_name", "autograd metadata query"},
    {"ct_tensor_retain_grad", "autograd metadata flag"},
    {"ct_tensor_retains_grad", "autograd metadata query"},
    {"ct_tensor_register_hook", "adds a callback to an autograd node (no op)"},
    {"ct_tensor_remove_hook", "removes a callback from an autograd node (no op)"},
    {"ct_gradcheck_options_default", "returns a value"},
    {"ct_gradcheck", "reads values on the host (refused during capture, as ct_tensor_to_host)"},
    {"ct_gradgradcheck", "reads values on the host (refused during capture, as "
                         "ct_tensor_to_host)"},
    {"ct_ctx_set_error", "sets the context's message"},
    {"ct_tensor_detach", "view: shares storage, no data is touched"},
    {"ct_version", "constant"},
    {"ct_ctx_create", "context lifetime"},
    {"ct_ctx_create_ex", "context lifetime"},
    {"ct_ctx_free", "context lifetime"},
    {"ct_ctx_last_error", "getter"},
    {"ct_ctx_cpu_isa", "getter"},
    {"ct_ctx_num_threads", "getter"},
    {"ct_ctx_debug", "getter"},
    {"ct_ctx_live_tensors", "getter"},
    {"ct_ctx_empty_cache", "allocator cache"},
    {"ct_ctx_cached_bytes", "getter"},
    {"ct_cpu_best_isa", "cpu probe"},
    {"ct_cpu_isa_supported", "cpu probe"},
    {"ct_blas_info", "constant"},
    {"ct_dtype_get_info", "dtype table"},
    {"ct_dtype_name", "dtype table"},
    {"ct_dtype_size", "dtype table"},
    {"ct_dtype_from_name", "dtype table"},
    {"ct_dtype_is_floating", "dtype table"},
    {"ct_dtype_promote", "dtype table"},
    {"ct_dtype_is_complex", "dtype table"},
    {"ct_dtype_to_real", "dtype table"},
    {"ct_dtype_to_complex", "dtype table"},
    {"ct_view_as_real", "view"},
    {"ct_istft", "host read of the window envelope's minimum (torch's NOLA check; refused during "
                 "capture)"},
    {"ct_view_as_complex", "view"},
    {"ct_f32_to_f16", "scalar conversion"},
    {"ct_f16_to_f32", "scalar conversion"},
    {"ct_f32_to_bf16", "scalar conversion"},
    {"ct_bf16_to_f32", "scalar conversion"},
    {"ct_op_name", "op table"},
    {"ct_backend_register", "backend registry"},
    {"ct_backend_load", "backend registry"},
    {"ct_backend_find", "backend registry"},
    {"ct_backend_count", "backend registry"},
    {"ct_backend_name", "backend registry"},
    {"ct_device_format", "formats a device name"},
    {"ct_ctx_default_stream", "stream handles"},
    {"ct_ctx_set_stream", "stream handles"},
    {"ct_stream_create", "stream handles"},
    {"ct_stream_free", "stream handles"},
    {"ct_stream_device", "stream handles"},
    {"ct_stream_synchronize", "waits for the stream"},
    {"ct_stream_submit", "the dispatch point itself (validates a caller's descriptor)"},
    {"ct_graph_create", "graph lifetime"},
    {"ct_graph_capture_begin", "graph capture control"},
    {"ct_graph_capture_end", "graph capture control"},
    {"ct_graph_instantiate", "graph: compiles recorded nodes"},
    {"ct_graph_replay", "graph: runs recorded nodes through the backend"},
    {"ct_graph_reset", "graph lifetime"},
    {"ct_graph_pool_of", "getter"},
    {"ct_graph_debug_dump", "writes the recorded nodes to a file"},
    {"ct_graph_free", "graph lifetime"},
    {"ct_graph_num_nodes", "getter"},
    {"ct_graph_mem_stats_get", "getter"},
    {"ct_stream_is_capturing", "getter"},
    {"ct_cond", "graph control flow: records a conditional node (test_graph)"},
    {"ct_event_create", "lifetime"},
    {"ct_event_free", "lifetime"},
    {"ct_event_record", "marks a stream point (a fork/join point during capture; test_events)"},
    {"ct_event_wait", "stream ordering (forks a stream into a capture; test_events)"},
    {"ct_event_synchronize", "host wait"},
    {"ct_event_query", "getter"},
    {"ct_event_elapsed_ms", "getter"},
    {"ct_tensor_from_host", "host upload into a new tensor (a constant when captured)"},
    {"ct_tensor_empty", "allocation only"},
    {"ct_tensor_empty_on", "allocation only"},
    {"ct_tensor_retain", "refcount"},
    {"ct_tensor_release", "refcount"},
    {"ct_tensor_ndim", "getter"},
    {"ct_tensor_shape", "getter"},
    {"ct_tensor_stride", "getter"},
    {"ct_tensor_size", "getter"},
    {"ct_tensor_storage_offset", "getter"},
    {"ct_tensor_dtype", "getter"},
    {"ct_tensor_device", "getter"},
    {"ct_tensor_numel", "getter"},
    {"ct_tensor_is_contiguous", "getter"},
    {"ct_tensor_data_ptr", "getter"},
    {"ct_tensor_to_host", "host read (refused during capture)"},
    {"ct_tensor_item", "host read (refused during capture)"},
    {"ct_allclose", "host read of the isclose result (refused during capture)"},
    {"ct_bincount", "host read of max(x), the result's size (refused during capture)"},
    {"ct_linalg_matrix_exp", "host read of the matrix norms, which choose the number of squarings "
                             "(refused during capture)"},
    {"ct_bernoulli", "host read of p's range (refused during capture)"},
    {"ct_tensor_unfold", "view"},
    {"ct_tensor_as_strided", "view"},
    {"ct_ctc_loss", "dynamic programming on the host (reads log_probs and the lengths)"},
    {"ct_normal", "host read of std's range (refused during capture)"},
    {"ct_poisson", "samples on the host (rejection sampling reads the rates)"},
    {"ct_binomial", "samples on the host (rejection sampling reads count and prob)"},
    {"ct_multinomial", "host read of the probabilities' checks (refused during capture)"},
    {"ct_equal", "host read of the comparison (refused during capture)"},
    {"ct_tensor_to_device", "cross-device transfer (refused during capture)"},
    {"ct_tensor_view", "view (no data moves)"},
    {"ct_tensor_reshape", "view, or ct_tensor_contiguous (a copy op) when it cannot be one"},
    {"ct_tensor_permute", "view"},
    {"ct_tensor_transpose", "view"},
    {"ct_tensor_narrow", "view"},
    {"ct_tensor_slice", "view"},
    {"ct_tensor_expand", "view"},
    {"ct_tensor_squeeze", "view"},
    {"ct_tensor_unsqueeze", "view"},
    {"ct_cast_f32_to", "context-free conversion of caller host buffers (no tensors, no stream)"},
    {"ct_cast_to_f32", "context-free conversion of caller host buffers (no tensors, no stream)"},
    {"ct_mx_tensor_free", "lifetime"},
    {"ct_mx_format_of", "getter"},
    {"ct_mx_block_size", "getter"},
    {"ct_mx_axis", "getter"},
    {"ct_mx_ndim", "getter"},
    {"ct_mx_shape", "getter"},
    {"ct_mx_codes", "getter"},
    {"ct_mx_scales", "getter"},
    {"ct_mx_format_name", "table lookup"},
    {"ct_mx_from_gguf_mxfp4", "host byte import (refused during capture, as host uploads)"},
    {"ct_mx_to_gguf_mxfp4", "host byte export (refused during capture, as host reads)"},
    {"ct_sparse24_from_dense", "reads its 2:4 check on the host (refused during capture)"},
    {"ct_sparse24_from_dense_ex", "reads its 2:4 check on the host (refused during capture)"},
    {"ct_sparse24_from_parts",
     "host check of the metadata and host copies (refused during capture)"},
    {"ct_sparse24_free", "lifetime"},
    {"ct_create_block_mask", "evaluates the caller's mask function on the host into a host table "
                             "(as torch's create_block_mask); reads no tensor"},
    {"ct_block_mask_free", "lifetime"},
    {"ct_memory_stats", "getter (allocator statistics)"},
    {"ct_memory_summary", "getter (allocator statistics as text)"},
    {"ct_memory_snapshot", "writes the allocator's state to a file; no tensor data"},
    {"ct_empty_cache", "allocator housekeeping"},
    {"ct_memory_reset_peak", "allocator housekeeping"},
    {"ct_caching_allocator_create", "a device backend's allocator (no tensor op)"},
    {"ct_caching_allocator_destroy", "lifetime"},
    {"ct_caching_allocator_alloc", "a device backend's memory call (under an op, not one)"},
    {"ct_caching_allocator_free", "a device backend's memory call (under an op, not one)"},
    {"ct_caching_allocator_oom_message", "getter"},
    {"ct_block_mask_sparsity", "getter"},
    {"ct_block_mask_block_kind", "getter"},
    {"ct_score_mod_alibi", "returns a function pointer"},
    {"ct_score_mod_softcap", "returns a function pointer"},
    {"ct_mask_mod_causal", "returns a function pointer"},
    {"ct_mask_mod_sliding_window", "returns a function pointer"},
    {"ct_mask_mod_document", "returns a function pointer"},
    {"ct_mask_mod_prefix_lm", "returns a function pointer"},
    {"ct_sparse24_values", "getter"},
    {"ct_sparse24_metadata", "getter"},
    {"ct_sparse24_scales", "getter"},
    {"ct_sparse24_shape", "getter"},
    {"ct_sparse24_dtype", "getter"},
    {"ct_optim_options_default", "options constructor"},
    {"ct_optim_create", "lifetime (its zero state comes from ct_tensor_full, listed above)"},
    {"ct_optim_free", "lifetime"},
    {"ct_optim_lr", "getter (a view; writing it is an op)"},
    {"ct_optim_state", "getter (a borrowed state view; writing it is an op)"},
    {"ct_init_calculate_gain", "host arithmetic on a name and a number"},
    {"ct_init_fan_in_and_fan_out", "host arithmetic on a shape"},
    {"ct_optim_set_grad_scaling", "setter (retains two tensors)"},
    {"ct_optim_step_count", "host read (refused during capture)"},
    {"ct_lr_scheduler_options_default", "options constructor"},
    {"ct_lr_scheduler_create",
     "host read and write of the optimizer's lr (refused during capture)"},
    {"ct_lr_scheduler_step", "host read and write of the optimizer's lr (refused during capture)"},
    {"ct_lr_scheduler_step_epoch",
     "host read and write of the optimizer's lr (refused during capture)"},
    {"ct_lr_scheduler_step_metric",
     "host read and write of the optimizer's lr (refused during capture)"},
    {"ct_lr_scheduler_load_torch_state", "archive read into host counters (no tensor work)"},
    {"ct_lr_scheduler_create_chained", "host bookkeeping over schedulers"},
    {"ct_lr_scheduler_load_torch_state_group", "host reads of a checkpoint archive"},
    {"ct_optim_load_torch_state_group",
     "host upload of a checkpoint archive (refused during capture)"},
    {"ct_lr_scheduler_create_sequential",
     "host read and write of the optimizer's lr (refused during capture)"},
    {"ct_lr_scheduler_last_lr", "getter"},
    {"ct_lr_scheduler_last_epoch", "getter"},
    {"ct_lr_scheduler_free", "lifetime"},
    {"ct_optim_save_state", "host read and file write (refused during capture)"},
    {"ct_optim_load_state", "file read and host upload (refused during capture)"},
    {"ct_optim_load_torch_state", "archive read and host upload (refused during capture)"},
    {"ct_lbfgs_options_default", "options constructor"},
    {"ct_lbfgs_create", "lifetime"},
    {"ct_lbfgs_step", "a host loop around a user closure (refused during capture)"},
    {"ct_lbfgs_func_evals", "getter"},
    {"ct_lbfgs_n_iter", "getter"},
    {"ct_lbfgs_free", "lifetime"},
    {"ct_safetensors_load", "file parse (no tensors made)"},
    {"ct_safetensors_load_buffer", "buffer parse (no tensors made)"},
    {"ct_safetensors_count", "getter"},
    {"ct_safetensors_name", "getter"},
    {"ct_safetensors_metadata", "getter"},
    {"ct_safetensors_get", "host upload (ct_tensor_from_host; refused during capture)"},
    {"ct_safetensors_free", "lifetime"},
    {"ct_safetensors_save", "host read (ct_tensor_to_host; refused during capture)"},
    {"ct_tensor_from_blob", "wraps caller memory (no data moves)"},
    {"ct_print_options_default", "a host-side options struct"},
    {"ct_print_options_profile", "a host-side options struct"},
    {"ct_set_print_options", "context setting (printing options)"},
    {"ct_get_print_options", "context getter"},
    {"ct_tensor_print", "host read (refused during capture)"},
    {"ct_tensor_to_string", "host read (refused during capture)"},
    {"ct_npy_load", "host file read (refused during capture, as host uploads)"},
    {"ct_npy_load_buffer", "host byte import (refused during capture, as host uploads)"},
    {"ct_npy_save", "host read and file write (refused during capture)"},
    {"ct_torch_load", "file parse (no tensors made)"},
    {"ct_torch_load_buffer", "buffer parse (no tensors made)"},
    {"ct_npz_load", "file parse (no tensors made)"},
    {"ct_npz_load_buffer", "buffer parse (no tensors made)"},
    {"ct_archive_count", "getter"},
    {"ct_archive_name", "getter"},
    {"ct_archive_kind", "getter"},
    {"ct_archive_find", "getter (a search of the name index)"},
    {"ct_archive_get", "host upload (refused during capture)"},
    {"ct_archive_get_int", "getter"},
    {"ct_archive_get_float", "getter"},
    {"ct_archive_get_string", "getter"},
    {"ct_archive_free", "lifetime"},
    {"ct_archive_load_state_dict", "host upload into parameters (refused during capture)"},
    {"ct_torch_save", "host read and file write (refused during capture)"},
    {"ct_npz_save", "host read and file write (refused during capture)"},
    {"ct_empty_like", "allocation only"},
    {"ct_split", "views"},
    {"ct_tensor_split", "views"},
    {"ct_gaussian_nll_loss", "reads var on the host (torch.any(var < 0)), which capture refuses"},
    {"ct_masked_scatter_", "ct_masked_scatter in place: counts the mask on the host, which "
                           "capture forbids"},
    {"ct_masked_scatter", "counts the mask on the host (torch's source size check), which capture "
                          "refuses"},
    {"ct_argwhere", "data-dependent size: ct_nonzero reads the data on the host"},
    {"ct_ravel", "view, or ct_tensor_reshape's copy op when it cannot be one"},
    {"ct_broadcast_shapes", "shape arithmetic on the host"},
    {"ct_broadcast_to", "view"},
    {"ct_broadcast_tensors", "views (or the inputs themselves)"},
    {"ct_select", "view"},
    {"ct_unbind", "views"},
    {"ct_t", "view"},
    {"ct_adjoint", "view"},
    {"ct_moveaxis", "view"},
    {"ct_hsplit", "views"},
    {"ct_vsplit", "views"},
    {"ct_dsplit", "views"},
    {"ct_hsplit_indices", "views"},
    {"ct_vsplit_indices", "views"},
    {"ct_dsplit_indices", "views"},
    {"ct_positive", "the input itself"},
    {"ct_result_type", "dtype rule (no data)"},
    {"ct_can_cast", "dtype rule (no data)"},
    {"ct_is_floating_point", "dtype rule (no data)"},
    {"ct_is_complex", "dtype rule (no data)"},
    {"ct_is_signed", "dtype rule (no data)"},
    {"ct_is_same_size", "shape rule (no data)"},
    {"ct_is_nonzero", "reads the element on the host, which capture refuses"},
    {"ct_promote_types", "dtype rule (no data)"},
    {"ct_real", "the input itself"},
    {"ct_imag", "always an error (no complex dtype)"},
    {"ct_conj", "the input itself"},
    {"ct_conj_physical", "the input itself"},
    {"ct_resolve_conj", "the input itself"},
    {"ct_resolve_neg", "the input itself"},
    {"ct_matrix_exp", "ct_linalg_matrix_exp under its older name (reads the norms on the host)"},
    {"ct_histogram", "counts on the host (reads the input), which capture refuses"},
    {"ct_histogramdd", "counts on the host (reads the input), which capture refuses"},
    {"ct_histogramdd_edges",
     "counts on the host (reads the input and the edges), which capture refuses"},
    {"ct_fractional_max_pool2d",
     "the windows' maxima are found on the host (reads the input), which capture refuses"},
    {"ct_fractional_max_pool3d",
     "the windows' maxima are found on the host (reads the input), which capture refuses"},
    {"ct_histogram_edges",
     "counts on the host (reads the input and the edges), which capture refuses"},
    {"ct_unique_consecutive",
     "data-dependent size: reads the runs on the host (masked_select, nonzero)"},
    {"ct_unique_dim", "data-dependent size: groups the slices on the host (refused under capture)"},
    {"ct_unique_consecutive_dim",
     "data-dependent size: groups the slices on the host (refused under capture)"},
    {"ct_swapaxes", "view"},
    {"ct_swapdims", "view"},
    {"ct_mode", "counts on the host (reads the input), which capture refuses"},
    {"ct_histc", "counts on the host (reads the input), which capture refuses"},
    {"ct_quantile", "reads q on the host (torch's CPU range check of q), which capture refuses"},
    {"ct_nanquantile", "reads q on the host (torch's CPU range check of q), which capture refuses"},
    {"ct_tensor_triu_indices", "an index constant built on the host from its arguments"},
    {"ct_tensor_tril_indices", "an index constant built on the host from its arguments"},
    {"ct_tensor_split_indices", "views"},
    {"ct_atleast_1d", "the input itself or a view"},
    {"ct_atleast_2d", "the input itself or a view"},
    {"ct_atleast_3d", "the input itself or a view"},
    {"ct_split_sizes", "views"},
    {"ct_chunk", "views"},
    {"ct_movedim", "view"},
    {"ct_meshgrid", "views (reshape and expand)"},
    {"ct_unflatten", "view"},
    {"ct_flatten", "view, or ct_tensor_reshape's copy op when it cannot be one"},
    {"ct_program_export", "host file write of a finished capture (refused during capture)"},
    {"ct_program_load", "file parse (no tensors made)"},
    {"ct_program_run", "runs a loaded program outside the streams (refused during capture)"},
    {"ct_program_num_inputs", "getter"},
    {"ct_program_num_outputs", "getter"},
    {"ct_program_input_name", "getter"},
    {"ct_program_output_name", "getter"},
    {"ct_program_free", "lifetime"},
    {"ct_program_describe", "text about a loaded program (no tensors touched)"},
    {"ct_program_weights", "getter"},
    {"ct_rt_set_max_steps", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_load_with", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_kernels_all", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_kernels_mlp", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_load", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_arena_size", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_num_inputs", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_input_name", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_input_dtype", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_input_ndim", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_input_range", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_find_input", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_find_output", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_set_input", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_run", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_num_outputs", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_output_name", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_output", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_last_error", "embedded runtime (libctorch_rt): no context, no streams"},
    {"ct_rt_free", "embedded runtime (libctorch_rt): no context, no streams"},
};

static void release_outs(void) {
    ct_tensor_release(OUT), ct_tensor_release(OUT2), ct_tensor_release(OUT3);
    OUT = OUT2 = OUT3 = NULL;
    ct_mx_tensor_free(QOUT);
    QOUT = NULL;
    ct_sparse24_free(SPOUT);
    SPOUT = NULL;
}

TEST(every_computing_op_is_captured) {
    int64_t s48[2] = {4, 8}, s84[2] = {8, 4}, s3[3] = {2, 5, 5}, s6[1] = {6}, s10[2] = {10, 3};
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s48, &A));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s48, &B));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s48, &C));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s48, &Dst));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s84, &Mt));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 3, s3, &Sym));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s10, &Emb));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, s48, &Q8));
    fill(A, 0), fill(B, 0), fill(C, 0), fill(Mt, 0), fill(Sym, 1), fill(Emb, 0);
    CHECK_OK(ct_gt_scalar(ctx, A, 0.0, &Cond));
    CHECK_OK(ct_tensor_transpose(ctx, Mt, 0, 1, &Nc));
    double iv[6] = {0, 3, 9, 2, 2, 7};
    Idx = from_f64(CT_INT64, 1, s6, iv);
    double gv[32];
    for (int i = 0; i < 32; i++)
        gv[i] = (i * 5) % 8;
    GIdx = from_f64(CT_INT64, 2, s48, gv);
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){6, 3}, &Src6));
    ct_tensor *a3 = NULL;
    CHECK_OK(ct_tensor_view(ctx, A, 3, (int64_t[]){4, 4, 2}, &a3));
    CHECK_OK(ct_view_as_complex(ctx, a3, &Cx));
    ct_tensor_release(a3);
    CHECK_OK(ct_mx_quantize(ctx, A, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_FLOOR, &Wq));
    CHECK_OK(ct_sparse24_prune(ctx, A, CT_FLOAT32, &Sp));
    CHECK_OK(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, 4, 4, 2, &BMask));
    ct_optim_options oo = ct_optim_options_default(CT_OPTIM_ADAM);
    oo.impl = CT_OPTIM_IMPL_FUSED;
    CHECK_OK(ct_optim_create(ctx, &oo, 1, &Dst, &Opt));
    ct_tensor *gsq = NULL;
    CHECK_OK(ct_tensor_clone(ctx, A, &GP));
    CHECK_OK(ct_tensor_set_requires_grad(GP, true));
    CHECK_OK(ct_mul(ctx, GP, GP, &gsq));
    CHECK_OK(ct_sum(ctx, gsq, 0, NULL, false, &GL));
    ct_tensor_release(gsq);
    double tv[4] = {0, 3, 7, 2};
    int64_t s4[1] = {4};
    Tgt = from_f64(CT_INT64, 1, s4, tv);
    CHECK_OK(ct_sigmoid(ctx, A, &Prob)); /* probabilities for binary_cross_entropy */
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 1, (int64_t[]){1}, 0.25, &Prelu_w));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, (int64_t[]){8}, &V8));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &V3));
    for (size_t i = 0; i < sizeof computing / sizeof computing[0]; i++) {
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        ct_status st = computing[i].fn();
        ct_status end = ct_graph_capture_end(g);
        CHECK_MSG(st == CT_OK && end == CT_OK, "%s under capture: %s / %s (%s)", computing[i].name,
                  ct_status_str(st), ct_status_str(end), ct_ctx_last_error(ctx));
        CHECK_MSG(ct_graph_num_nodes(g) >= 1, "%s computed without passing the dispatch point",
                  computing[i].name);
        if (st == CT_OK && end == CT_OK) CHECK_OK(ct_graph_replay(g));
        release_outs();
        ct_graph_free(g);
    }
    ct_tensor *all[] = {A,  B,  C,   Dst,  Mt,   Sym,  Emb,     Q8, Cond, Nc, Idx,
                        GP, GL, Tgt, GIdx, Src6, Prob, Prelu_w, V8, V3,   Cx};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    ct_mx_tensor_free(Wq);
    ct_sparse24_free(Sp);
    ct_block_mask_free(BMask);
    ct_optim_free(Opt);
}

/* Names of the CT_API functions declared in include/ctorch/ headers. */
static int scan_headers(char names[][64], int max) {
    int n = 0;
    const char *dir = CT_SOURCE_DIR "/include/ctorch";
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 3 || strcmp(e->d_name + l - 2, ".h")) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static char text[1 << 20];
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = 0;
        /* every "CT_API" not in "#define CT_API": the identifier before the first '(' */
        for (char *p = strstr(text, "CT_API"); p; p = strstr(p + 6, "CT_API")) {
            if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) continue;
            char *line = p;
            while (line > text && line[-1] != '\n')
                line--;
            if (*line == '#') continue;
            char *paren = strchr(p, '(');
            if (!paren) break;
            char *q = paren;
            while (q > p && isspace((unsigned char)q[-1]))
                q--;
            char *s = q;
            while (s > p && (isalnum((unsigned char)s[-1]) || s[-1] == '_'))
                s--;
            if (n < max && q - s < 64) {
                memcpy(names[n], s, (size_t)(q - s));
                names[n][q - s] = 0;
                n++;
            }
        }
    }
    closedir(d);
    return n;
}

TEST(every_public_function_is_classified) {
    static char names[4096][64];
    int n = scan_headers(names, 4096);
    size_t nc = sizeof computing / sizeof computing[0],
           nn = sizeof not_computing / sizeof not_computing[0];
    CHECK_MSG(n > 100, "found only %d CT_API functions", n);
    for (int i = 0; i < n; i++) {
        int hits = 0;
        for (size_t j = 0; j < nc; j++)
            hits += strcmp(names[i], computing[j].name) == 0;
        for (size_t j = 0; j < nn; j++)
            hits += strcmp(names[i], not_computing[j].name) == 0;
        CHECK_MSG(hits == 1,
                  "%s: public function listed %d times; add it to `computing` (with a call that "
                  "must record a node when captured) or to `not_computing` with the reason",
                  names[i], hits);
    }
    /* no stale entries: everything listed is declared */
    CHECK_MSG((size_t)n == nc + nn, "%d CT_API functions in the headers, %zu listed here", n,
              nc + nn);
}

int main(void) {
    ct_ctx_options o = {.size = sizeof o};
    if (ct_ctx_create(&o, &ctx) != CT_OK) return 1;
    RUN(eigh_replay_equals_eager);
    RUN(mx_replay_equals_eager);
    RUN(every_computing_op_is_captured);
    RUN(every_public_function_is_classified);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* The grad_fn name cases: gf_run(ctx, "<case>", &st) runs one representative call of a
 * differentiable public op (or a variant torch's node names tell apart) on float32 leaves that
 * require grad and returns its result (extra outputs and operands stay in a pool that
 * gf_release_pool frees). Shared by tests/test_autograd.c (grad_fn_names_as_torch, against
 * tests/data/gradfn_torch_ref.h) and scripts/torchdiff/gradfn_driver.c; gradfn_names.py holds the
 * same cases written with torch 1.13 and writes the reference header.
 *
 * Operands (the same values on the torch side): x, y (2, 3) in [0.5, 1.5]; z (2, 3) signed;
 * v, u (3); m (3, 3); spd (3, 3) positive definite; b3, c3 (2, 3, 3); img (1, 2, 5, 5),
 * wc (4, 2, 3, 3), bc (4); seq (1, 2, 7), wc1 (4, 2, 3); x4 (2, 4, 3); W (4, 3), bl (4), lw, lb
 * (3). Integer / bool operands never require grad. */
#ifndef CTORCH_TESTS_GRADFN_CASES_H
#define CTORCH_TESTS_GRADFN_CASES_H
#include "ctorch/ctorch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 64
static ct_tensor *pool[MAXT];
static int npool;

static void gf_release_pool(void) {
    while (npool > 0)
        ct_tensor_release(pool[--npool]);
}

static ct_tensor *keep(ct_tensor *t) {
    if (t && npool < MAXT) pool[npool++] = t;
    return t;
}

/* A float32 tensor of `shape`, element i = f(i); requires grad when rg. */
static ct_tensor *mk(ct_ctx *ctx, int nd, const int64_t *shape, int kind, bool rg) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    float *buf = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        float pos = 0.5f + (float)((i * 7) % 11) / 11.0f; /* [0.5, 1.5), distinct-ish */
        buf[i] = kind == 0 ? pos : kind == 1 ? (i % 2 ? -pos : pos) : 0;
    }
    if (kind == 2) { /* spd: n x n, diagonally dominant symmetric */
        int64_t k = shape[0];
        for (int64_t i = 0; i < k; i++)
            for (int64_t j = 0; j < k; j++)
                buf[i * k + j] = i == j ? (float)k + 1.0f : 0.25f / (float)(1 + i + j);
    }
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, buf, CT_FLOAT32, nd, shape, &t) != CT_OK) t = NULL;
    free(buf);
    if (t && rg) ct_tensor_set_requires_grad(t, true);
    return keep(t);
}

static ct_tensor *ints(ct_ctx *ctx, int nd, const int64_t *shape, const int64_t *vals) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, vals, CT_INT64, nd, shape, &t) != CT_OK) t = NULL;
    (void)n;
    return keep(t);
}

static ct_tensor *bools(ct_ctx *ctx, int nd, const int64_t *shape, const unsigned char *vals) {
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, vals, CT_BOOL, nd, shape, &t) != CT_OK) t = NULL;
    return keep(t);
}

#define S(...) ((const int64_t[]){__VA_ARGS__})
#define D(...) ((const int[]){__VA_ARGS__})
#define IS(s) (strcmp(name, s) == 0)

/* The result of case `name`, or NULL (*st says why). The extra outputs of multi-output ops go to
 * the pool. */
static ct_tensor *gf_run(ct_ctx *ctx, const char *name, ct_status *stp) {
    ct_tensor *x = mk(ctx, 2, S(2, 3), 0, true), *y = mk(ctx, 2, S(2, 3), 0, true);
    ct_tensor *z = mk(ctx, 2, S(2, 3), 1, true);
    ct_tensor *v = mk(ctx, 1, S(3), 0, true), *u = mk(ctx, 1, S(3), 1, true);
    ct_tensor *m = mk(ctx, 2, S(3, 3), 1, true), *spd = mk(ctx, 2, S(3, 3), 2, true);
    ct_tensor *b3 = mk(ctx, 3, S(2, 3, 3), 0, true), *c3 = mk(ctx, 3, S(2, 3, 3), 1, true);
    ct_tensor *img = mk(ctx, 4, S(1, 2, 5, 5), 1, true), *wc = mk(ctx, 4, S(4, 2, 3, 3), 1, true);
    ct_tensor *bc = mk(ctx, 1, S(4), 0, true);
    ct_tensor *seq = mk(ctx, 3, S(1, 2, 7), 1, true), *wc1 = mk(ctx, 3, S(4, 2, 3), 1, true);
    ct_tensor *x4 = mk(ctx, 3, S(2, 4, 3), 1, true);
    ct_tensor *W = mk(ctx, 2, S(4, 3), 1, true), *bl = mk(ctx, 1, S(4), 0, true);
    ct_tensor *lw = mk(ctx, 1, S(3), 0, true), *lb = mk(ctx, 1, S(3), 1, true);
    ct_tensor *w4 = mk(ctx, 1, S(4), 0, true), *b4 = mk(ctx, 1, S(4), 1, true);
    ct_tensor *idx = ints(ctx, 1, S(2), S(0, 2));
    ct_tensor *gidx = ints(ctx, 2, S(2, 3), S(1, 0, 1, 0, 0, 1));
    ct_tensor *tgt = ints(ctx, 1, S(2), S(0, 2));
    ct_tensor *mask = bools(ctx, 2, S(2, 3), (const unsigned char[]){1, 0, 1, 0, 1, 1});
    ct_tensor *r = NULL, *r2 = NULL, *r3 = NULL, *t = NULL;
    ct_status st = CT_ERR_INVALID_ARG;
    double lo = 0.7, hi = 1.2;
    int64_t k2[2] = {2, 2}, k3[2] = {3, 3}, one[2] = {1, 1}, zero[2] = {0, 0};
    (void)u;
    /* elementwise, two tensors */
    if (IS("add")) st = ct_add(ctx, x, y, &r);
    if (IS("add_alpha")) st = ct_add_scaled(ctx, x, y, 2.0, &r);
    if (IS("sub")) st = ct_sub(ctx, x, y, &r);
    if (IS("sub_alpha")) st = ct_sub_scaled(ctx, x, y, 2.0, &r);
    if (IS("mul")) st = ct_mul(ctx, x, y, &r);
    if (IS("div")) st = ct_div(ctx, x, y, &r);
    if (IS("div_trunc")) st = ct_div_mode(ctx, x, y, CT_ROUND_TRUNC, &r);
    if (IS("div_floor")) st = ct_div_mode(ctx, x, y, CT_ROUND_FLOOR, &r);
    if (IS("div_none")) st = ct_div_mode(ctx, x, y, CT_ROUND_NONE, &r);
    if (IS("floor_divide")) st = ct_floor_divide(ctx, x, y, &r);
    if (IS("maximum")) st = ct_maximum(ctx, x, y, &r);
    if (IS("minimum")) st = ct_minimum(ctx, x, y, &r);
    if (IS("remainder")) st = ct_remainder(ctx, x, y, &r);
    if (IS("fmod")) st = ct_fmod(ctx, x, y, &r);
    if (IS("lerp")) st = ct_lerp(ctx, x, y, z, &r);
    if (IS("lerp_scalar")) st = ct_lerp_scalar(ctx, x, y, 0.3, &r);
    if (IS("where")) st = ct_where(ctx, mask, x, y, &r);
    if (IS("addcmul")) st = ct_addcmul(ctx, x, y, z, 0.5, &r);
    if (IS("addcdiv")) st = ct_addcdiv(ctx, x, y, z, 0.5, &r);
    /* elementwise, a tensor and a number */
    if (IS("add_scalar")) st = ct_add_scalar(ctx, x, 2.0, &r);
    if (IS("sub_scalar")) st = ct_sub_scalar(ctx, x, 2.0, &r);
    if (IS("mul_scalar")) st = ct_mul_scalar(ctx, x, 2.0, &r);
    if (IS("div_scalar")) st = ct_div_scalar(ctx, x, 2.0, &r);
    if (IS("div_scalar_trunc")) st = ct_div_scalar_mode(ctx, x, 2.0, CT_ROUND_TRUNC, &r);
    if (IS("div_scalar_floor")) st = ct_div_scalar_mode(ctx, x, 2.0, CT_ROUND_FLOOR, &r);
    if (IS("div_scalar_none")) st = ct_div_scalar_mode(ctx, x, 2.0, CT_ROUND_NONE, &r);
    if (IS("remainder_scalar")) st = ct_remainder_scalar(ctx, x, 0.7, &r);
    if (IS("fmod_scalar")) st = ct_fmod_scalar(ctx, x, 0.7, &r);
    if (IS("pow_scalar")) st = ct_pow(ctx, x, 3.0, &r);
    if (IS("pow_half")) st = ct_pow(ctx, x, 0.5, &r);
    if (IS("clamp")) st = ct_clamp(ctx, x, &lo, &hi, &r);
    if (IS("clamp_min")) st = ct_clamp(ctx, x, &lo, NULL, &r);
    if (IS("clamp_max")) st = ct_clamp(ctx, x, NULL, &hi, &r);
    /* in place on a non-leaf (clone first) */
    if (IS("add_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK) st = ct_add_(ctx, r, y);
    if (IS("sub_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK) st = ct_sub_(ctx, r, y);
    if (IS("mul_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK) st = ct_mul_(ctx, r, y);
    if (IS("div_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK) st = ct_div_(ctx, r, y);
    if (IS("add_scalar_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK)
        st = ct_add_scalar_(ctx, r, 2.0);
    if (IS("sub_scalar_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK)
        st = ct_sub_scalar_(ctx, r, 2.0);
    if (IS("mul_scalar_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK)
        st = ct_mul_scalar_(ctx, r, 2.0);
    if (IS("div_scalar_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK)
        st = ct_div_scalar_(ctx, r, 2.0);
    if (IS("copy_") && (st = ct_tensor_clone(ctx, x, &r)) == CT_OK) st = ct_tensor_copy_(ctx, r, y);
    /* unary */
    if (IS("neg")) st = ct_neg(ctx, x, &r);
    if (IS("abs")) st = ct_abs(ctx, z, &r);
    if (IS("exp")) st = ct_exp(ctx, x, &r);
    if (IS("log")) st = ct_log(ctx, x, &r);
    if (IS("sqrt")) st = ct_sqrt(ctx, x, &r);
    if (IS("rsqrt")) st = ct_rsqrt(ctx, x, &r);
    if (IS("tanh")) st = ct_tanh(ctx, x, &r);
    if (IS("sigmoid")) st = ct_sigmoid(ctx, x, &r);
    if (IS("relu")) st = ct_relu(ctx, z, &r);
    if (IS("gelu")) st = ct_gelu(ctx, z, CT_GELU_ERF, &r);
    if (IS("gelu_tanh")) st = ct_gelu(ctx, z, CT_GELU_TANH, &r);
    if (IS("cast_f64")) st = ct_cast(ctx, x, CT_FLOAT64, &r);
    if (IS("cast_f16")) st = ct_cast(ctx, x, CT_FLOAT16, &r);
    if (IS("erf")) st = ct_erf(ctx, x, &r);
    if (IS("erfc")) st = ct_erfc(ctx, x, &r);
    if (IS("sin")) st = ct_sin(ctx, x, &r);
    if (IS("cos")) st = ct_cos(ctx, x, &r);
    if (IS("exp2")) st = ct_exp2(ctx, x, &r);
    if (IS("log2")) st = ct_log2(ctx, x, &r);
    if (IS("log1p")) st = ct_log1p(ctx, x, &r);
    if (IS("expm1")) st = ct_expm1(ctx, x, &r);
    if (IS("tan")) st = ct_tan(ctx, x, &r);
    if (IS("atan")) st = ct_atan(ctx, x, &r);
    if (IS("asin")) st = ct_asin(ctx, x, &r);
    if (IS("acos")) st = ct_acos(ctx, x, &r);
    if (IS("sinh")) st = ct_sinh(ctx, x, &r);
    if (IS("cosh")) st = ct_cosh(ctx, x, &r);
    if (IS("asinh")) st = ct_asinh(ctx, x, &r);
    if (IS("acosh")) st = ct_acosh(ctx, x, &r);
    if (IS("atanh")) st = ct_atanh(ctx, x, &r);
    if (IS("log10")) st = ct_log10(ctx, x, &r);
    if (IS("reciprocal")) st = ct_reciprocal(ctx, x, &r);
    if (IS("atan2")) st = ct_atan2(ctx, x, y, &r);
    if (IS("hypot")) st = ct_hypot(ctx, x, y, &r);
    if (IS("logaddexp")) st = ct_logaddexp(ctx, x, y, &r);
    if (IS("logaddexp2")) st = ct_logaddexp2(ctx, x, y, &r);
    if (IS("xlogy")) st = ct_xlogy(ctx, x, y, &r);
    if (IS("copysign")) st = ct_copysign(ctx, x, z, &r);
    if (IS("fmax")) st = ct_fmax(ctx, x, y, &r);
    if (IS("fmin")) st = ct_fmin(ctx, x, y, &r);
    if (IS("heaviside")) st = ct_heaviside(ctx, z, y, &r);
    if (IS("pow_tensor")) st = ct_pow_tensor(ctx, x, y, &r);
    if (IS("square")) st = ct_square(ctx, z, &r);
    if (IS("deg2rad")) st = ct_deg2rad(ctx, z, &r);
    if (IS("rad2deg")) st = ct_rad2deg(ctx, z, &r);
    if (IS("frac")) st = ct_frac(ctx, z, &r);
    if (IS("logit")) st = ct_logit(ctx, x, -1, &r);
    if (IS("logit_eps")) st = ct_logit(ctx, x, 0.1, &r);
    if (IS("sinc")) st = ct_sinc(ctx, z, &r);
    if (IS("nan_to_num")) st = ct_nan_to_num(ctx, z, NULL, NULL, NULL, &r);
    if (IS("lgamma")) st = ct_lgamma(ctx, z, &r);
    if (IS("digamma")) st = ct_digamma(ctx, z, &r);
    if (IS("polygamma")) st = ct_polygamma(ctx, 2, z, &r);
    if (IS("mvlgamma")) {
        ct_tensor *x3 = NULL;
        st = ct_add_scalar(ctx, x, 3, &x3);
        if (st == CT_OK) st = ct_mvlgamma(ctx, x3, 2, &r);
        ct_tensor_release(x3);
    }
    if (IS("erfinv")) {
        ct_tensor *zs = NULL;
        st = ct_mul_scalar(ctx, z, 0.1, &zs);
        if (st == CT_OK) st = ct_erfinv(ctx, zs, &r);
        ct_tensor_release(zs);
    }
    if (IS("i0")) st = ct_i0(ctx, z, &r);
    if (IS("special_i0e")) st = ct_special_i0e(ctx, z, &r);
    if (IS("special_i1")) st = ct_special_i1(ctx, z, &r);
    if (IS("special_i1e")) st = ct_special_i1e(ctx, z, &r);
    if (IS("special_ndtr")) st = ct_special_ndtr(ctx, z, &r);
    if (IS("special_ndtri")) st = ct_special_ndtri(ctx, x, &r);
    if (IS("special_log_ndtr")) st = ct_special_log_ndtr(ctx, z, &r);
    if (IS("special_erfcx")) st = ct_special_erfcx(ctx, z, &r);
    if (IS("special_entr")) st = ct_special_entr(ctx, x, &r);
    if (IS("special_xlog1py")) st = ct_special_xlog1py(ctx, x, y, &r);
    if (IS("nextafter")) st = ct_nextafter(ctx, x, y, &r);
    if (IS("hstack")) st = ct_hstack(ctx, 2, (const ct_tensor *[]){x, y}, &r);
    if (IS("vstack")) st = ct_vstack(ctx, 2, (const ct_tensor *[]){v, x}, &r);
    if (IS("dstack")) st = ct_dstack(ctx, 2, (const ct_tensor *[]){x, y}, &r);
    if (IS("column_stack")) st = ct_column_stack(ctx, 2, (const ct_tensor *[]){v, m}, &r);
    if (IS("atleast_3d")) st = ct_atleast_3d(ctx, x, &r);
    if (IS("tensor_split")) {
        ct_tensor *pp[2] = {NULL, NULL};
        st = ct_tensor_split(ctx, m, 2, 1, pp);
        r = pp[1], ct_tensor_release(pp[0]);
    }
    if (IS("tensordot")) st = ct_tensordot(ctx, b3, m, 1, (const int[]){2}, (const int[]){0}, &r);
    if (IS("addmv")) st = ct_addmv(ctx, v, m, u, 0.5, 2, &r);
    if (IS("addr")) st = ct_addr(ctx, m, v, u, 0.5, 2, &r);
    if (IS("matrix_power")) st = ct_linalg_matrix_power(ctx, m, 3, &r);
    if (IS("matrix_power1")) st = ct_linalg_matrix_power(ctx, m, 1, &r);
    if (IS("matrix_power0")) st = ct_linalg_matrix_power(ctx, m, 0, &r);
    if (IS("logdet")) st = ct_logdet(ctx, spd, &r);
    if (IS("block_diag")) st = ct_block_diag(ctx, 2, (const ct_tensor *[]){x, m}, &r);
    if (IS("cartesian_prod")) st = ct_cartesian_prod(ctx, 2, (const ct_tensor *[]){v, u}, &r);
    if (IS("diag_embed")) st = ct_diag_embed(ctx, x, 1, 0, 2, &r);
    if (IS("vander")) st = ct_vander(ctx, v, 4, false, &r);
    if (IS("vander_inc")) st = ct_vander(ctx, v, 4, true, &r);
    if (IS("cumulative_trapezoid")) st = ct_cumulative_trapezoid(ctx, x, 0.5, -1, &r);
    if (IS("index_copy") || IS("index_fill")) {
        const bool cp = IS("index_copy");
        ct_tensor *ix = NULL, *ys = NULL;
        st = ct_tensor_from_host(ctx, cp ? (const int64_t[]){2, 0} : (const int64_t[]){1}, CT_INT64,
                                 1, cp ? S(2) : S(1), &ix);
        if (st == CT_OK && cp) st = ct_tensor_narrow(ctx, y, 1, 0, 2, &ys);
        if (st == CT_OK)
            st = cp ? ct_index_copy(ctx, x, 1, ix, ys, &r) : ct_index_fill(ctx, x, 1, ix, -1.5, &r);
        ct_tensor_release(ix), ct_tensor_release(ys);
    }
    if (IS("masked_scatter")) {
        ct_tensor *mk = NULL;
        st = ct_tensor_from_host(ctx, (const unsigned char[]){1, 0, 1}, CT_BOOL, 1, S(3), &mk);
        if (st == CT_OK) st = ct_masked_scatter(ctx, x, mk, y, &r);
        ct_tensor_release(mk);
    }
    if (IS("float_power")) st = ct_float_power(ctx, x, y, &r);
    if (IS("swapaxes")) st = ct_swapaxes(ctx, x, 0, 1, &r);
    if (IS("flipud")) st = ct_flipud(ctx, x, &r);
    if (IS("msort")) st = ct_msort(ctx, x, &r);
    if (IS("clip")) st = ct_clip(ctx, z, (const double[]){-0.5}, (const double[]){0.5}, &r);
    if (IS("fix")) st = ct_fix(ctx, z, &r);
    if (IS("true_divide")) st = ct_true_divide(ctx, x, y, &r);
    if (IS("float_power_s")) st = ct_float_power_scalar(ctx, x, 2, &r);
    if (IS("mode")) {
        ct_tensor *mi = NULL;
        st = ct_mode(ctx, x, 1, false, &r, &mi);
        ct_tensor_release(mi);
    }
    if (IS("cumulative_trapezoid_x")) {
        ct_tensor *y0 = NULL;
        st = ct_tensor_narrow(ctx, y, 0, 0, 1, &y0);
        ct_tensor *y1 = NULL;
        if (st == CT_OK) st = ct_tensor_reshape(ctx, y0, 1, S(3), &y1);
        if (st == CT_OK) st = ct_cumulative_trapezoid_x(ctx, x, y1, -1, &r);
        ct_tensor_release(y0), ct_tensor_release(y1);
    }
    if (IS("matrix_norm_fro")) st = ct_linalg_matrix_norm(ctx, m, "fro", -2, -1, false, &r);
    if (IS("matrix_norm_nuc")) st = ct_linalg_matrix_norm(ctx, m, "nuc", -2, -1, false, &r);
    if (IS("matrix_norm_1")) st = ct_linalg_matrix_norm(ctx, m, "1", -2, -1, false, &r);
    if (IS("pinv")) st = ct_linalg_pinv(ctx, m, NAN, NAN, &r);
    if (IS("multi_dot")) st = ct_linalg_multi_dot(ctx, 3, (const ct_tensor *[]){m, m, m}, &r);
    if (IS("cdist")) st = ct_cdist(ctx, x, y, 2, &r);
    if (IS("cdist_mm")) { /* 28 rows: torch's matmul form */
        ct_tensor *x28 = NULL;
        st = ct_repeat(ctx, x, 2, S(14, 1), &x28);
        if (st == CT_OK) st = ct_cdist(ctx, x28, y, 2, &r);
        ct_tensor_release(x28);
    }
    if (IS("quantile") || IS("nanquantile0")) {
        ct_tensor *q = NULL;
        const bool one = IS("quantile");
        st = ct_tensor_from_host(ctx, one ? (const double[]){0.2, 0.7} : (const double[]){0.4},
                                 CT_FLOAT64, one ? 1 : 0, S(2), &q);
        ct_tensor *qd = NULL; /* q in x's dtype, as torch requires */
        if (st == CT_OK) st = ct_cast(ctx, q, ct_tensor_dtype(x), &qd);
        if (st == CT_OK)
            st = one ? ct_quantile(ctx, x, qd, 1, false, CT_QUANTILE_LINEAR, &r)
                     : ct_nanquantile(ctx, x, qd, CT_ALL_DIMS, false, CT_QUANTILE_LINEAR, &r);
        ct_tensor_release(q), ct_tensor_release(qd);
    }
    if (!strncmp(name, "margin_ranking", 14) || !strncmp(name, "hinge", 5)) {
        ct_tensor *zd = NULL, *sg = NULL;
        st = ct_tensor_detach(ctx, z, &zd);
        if (st == CT_OK) st = ct_sign(ctx, zd, &sg);
        if (st == CT_OK && IS("margin_ranking_loss"))
            st = ct_margin_ranking_loss(ctx, x, y, sg, 0.5, CT_REDUCTION_MEAN, &r);
        if (st == CT_OK && IS("hinge_embedding_loss"))
            st = ct_hinge_embedding_loss(ctx, x, sg, 1.0, CT_REDUCTION_SUM, &r);
        ct_tensor_release(zd), ct_tensor_release(sg);
    }
    if (IS("soft_margin_loss")) {
        ct_tensor *yd = NULL;
        st = ct_tensor_detach(ctx, y, &yd);
        if (st == CT_OK) st = ct_soft_margin_loss(ctx, x, yd, CT_REDUCTION_NONE, &r);
        ct_tensor_release(yd);
    }
    if (IS("cosine_embedding_loss")) {
        ct_tensor *t = NULL;
        st = ct_tensor_from_host(ctx, (const double[]){1, -1}, CT_FLOAT64, 1, S(2), &t);
        if (st == CT_OK) st = ct_cosine_embedding_loss(ctx, x, y, t, 0.1, CT_REDUCTION_MEAN, &r);
        ct_tensor_release(t);
    }
    if (IS("poisson_nll_loss")) {
        ct_tensor *yd = NULL, *ya = NULL;
        st = ct_tensor_detach(ctx, y, &yd);
        if (st == CT_OK) st = ct_abs(ctx, yd, &ya);
        if (st == CT_OK)
            st = ct_poisson_nll_loss(ctx, x, ya, true, true, 1e-8, CT_REDUCTION_MEAN, &r);
        ct_tensor_release(yd), ct_tensor_release(ya);
    }
    if (IS("gaussian_nll_loss")) {
        ct_tensor *za = NULL;
        st = ct_abs(ctx, z, &za);
        if (st == CT_OK)
            st = ct_gaussian_nll_loss(ctx, x, y, za, false, 1e-6, CT_REDUCTION_MEAN, &r);
        ct_tensor_release(za);
    }
    if (IS("pairwise_distance")) st = ct_pairwise_distance(ctx, x, y, 2, 1e-6, false, &r);
    if (IS("triplet_margin_loss"))
        st = ct_triplet_margin_loss(ctx, x, y, z, 1, 2, 1e-6, true, CT_REDUCTION_MEAN, &r);
    if (IS("triplet_with_distance"))
        st = ct_triplet_margin_with_distance_loss(ctx, x, y, z, NULL, NULL, 1, false,
                                                  CT_REDUCTION_NONE, &r);
    if (IS("triplet_with_distance_mean"))
        st = ct_triplet_margin_with_distance_loss(ctx, x, y, z, NULL, NULL, 1, true,
                                                  CT_REDUCTION_MEAN, &r);
    if (IS("multilabel_soft_margin_loss")) {
        ct_tensor *yd = NULL, *ys = NULL;
        st = ct_tensor_detach(ctx, y, &yd);
        if (st == CT_OK) st = ct_sigmoid(ctx, yd, &ys);
        if (st == CT_OK)
            st = ct_multilabel_soft_margin_loss(ctx, x, ys, NULL, CT_REDUCTION_MEAN, &r);
        ct_tensor_release(yd), ct_tensor_release(ys);
    }
    if (!strncmp(name, "pixel_", 6)) {
        ct_tensor *c = NULL, *c4 = NULL;
        st = ct_cat(ctx, 2, (const ct_tensor *[]){x, y}, 0, &c);
        if (st == CT_OK)
            st = ct_tensor_reshape(ctx, c, 4, IS("pixel_shuffle") ? S(1, 12, 1, 1) : S(1, 3, 2, 2),
                                   &c4);
        if (st == CT_OK && IS("pixel_shuffle")) st = ct_pixel_shuffle(ctx, c4, 2, &r);
        if (st == CT_OK && IS("pixel_unshuffle")) st = ct_pixel_unshuffle(ctx, c4, 2, &r);
        ct_tensor_release(c), ct_tensor_release(c4);
    }
    if (IS("broadcast_to")) st = ct_broadcast_to(ctx, v, 2, S(2, 3), &r);
    if (IS("broadcast_tensors")) {
        ct_tensor *bo[2] = {NULL, NULL};
        st = ct_broadcast_tensors(ctx, 2, (const ct_tensor *[]){x, v}, bo);
        r = bo[1];
        ct_tensor_release(bo[0]);
    }
    if (IS("select")) st = ct_select(ctx, m, 1, -1, &r);
    if (IS("unbind") || IS("hsplit")) {
        ct_tensor *ub[3] = {NULL, NULL, NULL};
        int nu = 0;
        st = IS("unbind") ? ct_unbind(ctx, x, 1, 3, ub, &nu) : ct_hsplit(ctx, m, 3, ub);
        r = ub[1];
        ct_tensor_release(ub[0]), ct_tensor_release(ub[2]);
    }
    if (IS("t")) st = ct_t(ctx, x, &r);
    if (IS("adjoint")) st = ct_adjoint(ctx, b3, &r);
    if (IS("moveaxis")) st = ct_moveaxis(ctx, b3, 1, (const int[]){0}, (const int[]){2}, &r);
    if (!strncmp(name, "index", 5) && strncmp(name, "index_copy", 10) &&
        strncmp(name, "index_fill", 10)) {
        ct_tensor *i0 = NULL, *i1 = NULL;
        const bool mid = IS("index_mid"), acc = IS("index_put_acc");
        st = ct_tensor_from_host(ctx, acc ? (const int64_t[]){0, 0} : (const int64_t[]){2, 0},
                                 CT_INT64, 1, S(2), &i0);
        if (st == CT_OK)
            st = ct_tensor_from_host(ctx, (const int64_t[]){1, 1}, CT_INT64, 1, S(2), &i1);
        if (st == CT_OK && IS("index")) st = ct_index(ctx, m, 2, (const ct_tensor *[]){i0, i1}, &r);
        if (st == CT_OK && mid) st = ct_index(ctx, b3, 2, (const ct_tensor *[]){NULL, i0}, &r);
        ct_tensor *i2 = NULL;
        if (st == CT_OK && IS("index_put")) /* rows 0 and 2 */
            st = ct_tensor_from_host(ctx, (const int64_t[]){0, 2}, CT_INT64, 1, S(2), &i2);
        if (st == CT_OK && IS("index_put"))
            st = ct_index_put(ctx, m, 1, (const ct_tensor *[]){i2}, v, false, &r);
        if (st == CT_OK && acc)
            st = ct_index_put(ctx, m, 1, (const ct_tensor *[]){i0}, v, true, &r);
        ct_tensor_release(i0), ct_tensor_release(i1), ct_tensor_release(i2);
    }
    if (IS("take") || IS("put")) {
        ct_tensor *ix = NULL, *v2 = NULL;
        const bool tk = IS("take");
        st = ct_tensor_from_host(ctx, tk ? (const int64_t[]){0, 8, -1} : (const int64_t[]){1, -1},
                                 CT_INT64, 1, tk ? S(3) : S(2), &ix);
        if (st == CT_OK && tk) st = ct_take(ctx, m, ix, &r);
        if (st == CT_OK && !tk) st = ct_tensor_narrow(ctx, v, 0, 0, 2, &v2);
        if (st == CT_OK && !tk) st = ct_put(ctx, m, ix, v2, false, &r);
        ct_tensor_release(ix), ct_tensor_release(v2);
    }
    if (IS("select_scatter")) st = ct_select_scatter(ctx, m, v, 0, 1, &r);
    if (IS("slice_scatter")) st = ct_slice_scatter(ctx, m, x, 0, 1, 3, 1, &r);
    if (IS("diagonal_scatter")) {
        ct_tensor *v2 = NULL;
        st = ct_tensor_narrow(ctx, v, 0, 0, 2, &v2);
        if (st == CT_OK) st = ct_diagonal_scatter(ctx, m, v2, 1, 0, 1, &r);
        ct_tensor_release(v2);
    }
    if (IS("diagflat")) st = ct_diagflat(ctx, x, 0, &r);
    if (IS("combinations")) st = ct_combinations(ctx, v, 2, false, &r);
    if (IS("renorm")) st = ct_renorm(ctx, m, 2, 0, 1.0, &r);
    if (IS("clamp_min_fn")) st = ct_clamp_min(ctx, z, 0.0, &r);
    if (IS("clamp_max_fn")) st = ct_clamp_max(ctx, z, 0.0, &r);
    if (IS("rsub")) st = ct_rsub(ctx, x, y, 2, &r);
    if (IS("rsub_s")) st = ct_rsub_scalar(ctx, x, 2.0, 1, &r);
    if (IS("sgn")) st = ct_sgn(ctx, z, &r);
    if (IS("positive")) st = ct_positive(ctx, x, &r);
    if (IS("ldexp")) {
        ct_tensor *e = NULL;
        st = ct_tensor_from_host(ctx, (const int64_t[]){1, 2, 3}, CT_INT64, 1, S(3), &e);
        if (st == CT_OK) st = ct_ldexp(ctx, x, e, &r);
        ct_tensor_release(e);
    }
    if (IS("inner")) st = ct_inner(ctx, x, m, &r);
    if (IS("vdot")) st = ct_vdot(ctx, v, u, &r);
    if (IS("dist")) st = ct_tensor_dist(ctx, x, y, 2, &r);
    if (IS("addbmm")) st = ct_addbmm(ctx, m, b3, c3, 1, 1, &r);
    if (IS("pdist")) st = ct_pdist(ctx, x, 2, &r);
    if (IS("affine_grid")) {
        ct_tensor *th = NULL;
        st = ct_tensor_reshape(ctx, x, 3, S(1, 2, 3), &th);
        if (st == CT_OK) st = ct_affine_grid(ctx, th, S(1, 1, 2, 3), false, &r);
        ct_tensor_release(th);
    }
    if (IS("grid_sample")) {
        ct_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
        st = ct_tensor_narrow(ctx, x4, 0, 0, 1, &a);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, a, &b);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, b, 4, S(1, 2, 3, 2), &c);
        if (st == CT_OK) st = ct_tanh(ctx, c, &d);
        if (st == CT_OK)
            st = ct_grid_sample(ctx, img, d, CT_GRID_BILINEAR, CT_GRID_PAD_ZEROS, false, &r);
        ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
    }
    if (IS("dropout2d")) st = ct_dropout2d(ctx, img, 0.5, true, 1, 0, &r);
    if (IS("alpha_dropout")) st = ct_alpha_dropout(ctx, x, 0.5, true, 1, 0, &r);
    if (IS("rrelu")) st = ct_rrelu(ctx, z, 1.0 / 8, 1.0 / 3, true, 1, 0, &r);
    if (IS("rrelu_eval")) st = ct_rrelu(ctx, z, 1.0 / 8, 1.0 / 3, false, 1, 0, &r);
    if (IS("gumbel_softmax")) st = ct_gumbel_softmax(ctx, x, 1, false, -1, 1, 0, &r);
    if (IS("gumbel_softmax_hard")) st = ct_gumbel_softmax(ctx, x, 1, true, -1, 1, 0, &r);
    if (IS("embedding_bag")) {
        ct_tensor *ix = NULL, *of = NULL;
        st = ct_tensor_from_host(ctx, (const int64_t[]){0, 2, 1}, CT_INT64, 1, S(3), &ix);
        if (st == CT_OK)
            st = ct_tensor_from_host(ctx, (const int64_t[]){0, 1}, CT_INT64, 1, S(2), &of);
        if (st == CT_OK)
            st = ct_embedding_bag(ctx, m, ix, of, CT_EMBEDDING_BAG_MEAN, NULL, false,
                                  CT_NO_PADDING_IDX, &r);
        ct_tensor_release(ix), ct_tensor_release(of);
    }
    if (IS("zeta") || IS("gammainc") || IS("gammaincc")) {
        ct_tensor *xd = NULL, *xs = NULL;
        st = ct_tensor_detach(ctx, x, &xd);
        if (st == CT_OK) st = ct_add_scalar(ctx, xd, IS("zeta") ? 1.5 : 0, &xs);
        if (st == CT_OK && IS("zeta")) st = ct_special_zeta(ctx, xs, y, &r);
        if (st == CT_OK && IS("gammainc")) st = ct_special_gammainc(ctx, xs, y, &r);
        if (st == CT_OK && IS("gammaincc")) st = ct_special_gammaincc(ctx, xs, y, &r);
        ct_tensor_release(xd), ct_tensor_release(xs);
    }
    if (IS("gradient")) st = ct_gradient(ctx, x, 1, (const int[]){1}, NULL, 2, &r);
    if (IS("conv_transpose2d") || IS("conv_transpose1d")) {
        const bool two = IS("conv_transpose2d");
        ct_tensor *wt = NULL, *wc2 = NULL, *wcc = NULL;
        st = ct_tensor_transpose(ctx, two ? wc : wc1, 0, 1, &wt);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, wt, &wcc);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, wcc, 0, 0, 2, &wc2);
        if (st == CT_OK && two)
            st =
                ct_conv_transpose2d(ctx, img, wc2, NULL, S(2, 2), S(0, 0), S(0, 0), 1, S(1, 1), &r);
        if (st == CT_OK && !two) st = ct_conv_transpose1d(ctx, seq, wc2, NULL, 1, 0, 0, 1, 1, &r);
        ct_tensor_release(wt), ct_tensor_release(wc2), ct_tensor_release(wcc);
    }
    if (IS("max_pool1d")) st = ct_max_pool1d(ctx, seq, 2, 0, 0, 1, false, &r, NULL);
    if (IS("avg_pool1d")) st = ct_avg_pool1d(ctx, seq, 3, 2, 0, false, true, &r);
    if (IS("adaptive_avg_pool1d")) st = ct_adaptive_avg_pool1d(ctx, seq, 3, &r);
    if (IS("adaptive_max_pool1d")) st = ct_adaptive_max_pool1d(ctx, seq, 3, &r, NULL);
    if (IS("adaptive_max_pool2d")) st = ct_adaptive_max_pool2d(ctx, img, S(2, 3), &r, NULL);
    if (IS("lp_pool2d")) st = ct_lp_pool2d(ctx, img, 2.0, S(2, 2), NULL, false, &r);
    if (IS("local_response_norm")) st = ct_local_response_norm(ctx, img, 2, 1e-4, 0.75, 1.0, &r);
    if (IS("rnn_tanh_cell")) st = ct_rnn_tanh_cell(ctx, x, y, m, m, v, u, &r);
    if (IS("lstm_cell_c") || IS("gru_cell")) {
        ct_tensor *m4 = NULL, *hy = NULL;
        const bool ls = IS("lstm_cell_c");
        st = ct_repeat(ctx, m, 2, ls ? S(4, 1) : S(3, 1), &m4);
        if (st == CT_OK && ls) st = ct_lstm_cell(ctx, x, y, z, m4, m4, NULL, NULL, &hy, &r);
        if (st == CT_OK && !ls) st = ct_gru_cell(ctx, x, y, m4, m4, NULL, NULL, &r);
        ct_tensor_release(m4), ct_tensor_release(hy);
    }
    if (IS("lstm") || IS("lstm_hn") || IS("lstm_batch_first") || IS("gru_bidirectional") ||
        IS("rnn_unbatched")) {
        ct_tensor *m4 = NULL, *m3 = NULL, *hn = NULL;
        st = ct_repeat(ctx, m, 2, S(4, 1), &m4);
        if (st == CT_OK) st = ct_repeat(ctx, m, 2, S(3, 1), &m3);
        const ct_tensor *pl[2] = {m4, m4}, *pg[4] = {m3, m3, m3, m3}, *pr[2] = {m, m};
        ct_rnn_opts o = {.no_bias = true,
                         .batch_first = IS("lstm_batch_first"),
                         .bidirectional = IS("gru_bidirectional")};
        if (st == CT_OK && IS("lstm_hn"))
            st = ct_lstm(ctx, x4, NULL, NULL, pl, 2, &o, &hn, &r, NULL);
        else if (st == CT_OK && IS("gru_bidirectional"))
            st = ct_gru(ctx, x4, NULL, pg, 4, &o, &r, NULL);
        else if (st == CT_OK && IS("rnn_unbatched"))
            st = ct_rnn(ctx, x, NULL, pr, 2, &o, &r, NULL);
        else if (st == CT_OK)
            st = ct_lstm(ctx, x4, NULL, NULL, pl, 2, &o, &r, NULL, NULL);
        ct_tensor_release(m4), ct_tensor_release(m3), ct_tensor_release(hn);
    }
    if (IS("mha") || IS("mha_weights")) {
        ct_tensor *m3 = NULL, *y = NULL, *w = NULL;
        st = ct_repeat(ctx, m, 2, S(3, 1), &m3);
        const ct_mha_opts o = {.in_proj_weight = m3};
        if (st == CT_OK)
            st = ct_multi_head_attention_forward(ctx, x4, x4, x4, 3, m, NULL, &o, &y, &w);
        r = IS("mha") ? y : w;
        ct_tensor_release(IS("mha") ? w : y), ct_tensor_release(m3);
    }
    if (IS("conv3d") || IS("conv_transpose3d") || IS("max_pool3d") || IS("avg_pool3d") ||
        IS("adaptive_avg_pool3d") || IS("adaptive_max_pool3d")) {
        ct_tensor *vol = NULL, *w1 = NULL, *w5 = NULL;
        st = ct_tensor_reshape(ctx, img, 5, S(1, 1, 2, 5, 5), &vol);
        const bool tr = IS("conv_transpose3d");
        if (st == CT_OK) st = ct_tensor_narrow(ctx, wc, tr ? 0 : 1, 0, 1, &w1);
        if (st == CT_OK && tr) {
            ct_tensor *w2 = NULL;
            st = ct_tensor_narrow(ctx, w1, 1, 0, 1, &w2);
            if (st == CT_OK) st = ct_tensor_reshape(ctx, w2, 5, S(1, 1, 1, 3, 3), &w5);
            ct_tensor_release(w2);
        } else if (st == CT_OK) {
            st = ct_tensor_reshape(ctx, w1, 5, S(4, 1, 1, 3, 3), &w5);
        }
        if (st == CT_OK && IS("conv3d"))
            st = ct_conv3d(ctx, vol, w5, NULL, S(1, 1, 1), S(0, 0, 0), S(1, 1, 1), 1, &r);
        if (st == CT_OK && tr)
            st = ct_conv_transpose3d(ctx, vol, w5, NULL, S(2, 2, 2), S(0, 0, 0), S(0, 0, 0), 1,
                                     S(1, 1, 1), &r);
        if (st == CT_OK && IS("max_pool3d"))
            st = ct_max_pool3d(ctx, vol, S(1, 2, 2), NULL, NULL, NULL, false, &r, NULL);
        if (st == CT_OK && IS("avg_pool3d"))
            st = ct_avg_pool3d(ctx, vol, S(1, 2, 2), NULL, NULL, false, true, 0, &r);
        if (st == CT_OK && IS("adaptive_avg_pool3d"))
            st = ct_adaptive_avg_pool3d(ctx, vol, S(1, 2, 3), &r);
        if (st == CT_OK && IS("adaptive_max_pool3d"))
            st = ct_adaptive_max_pool3d(ctx, vol, S(1, 2, 3), &r, NULL);
        ct_tensor_release(vol), ct_tensor_release(w1), ct_tensor_release(w5);
    }
    if (IS("max_all")) st = ct_max(ctx, x, &r);
    if (IS("min_all")) st = ct_min(ctx, x, &r);
    if (IS("angle")) st = ct_angle(ctx, z, &r);
    if (IS("frobenius_norm")) st = ct_frobenius_norm(ctx, x, 0, NULL, false, &r);
    if (IS("frobenius_norm_dim")) st = ct_frobenius_norm(ctx, x, 1, (const int[]){1}, false, &r);
    if (IS("nuclear_norm")) st = ct_nuclear_norm(ctx, m, NULL, false, &r);
    if (IS("linalg_norm")) st = ct_linalg_norm(ctx, x, NULL, 0, NULL, false, &r);
    if (IS("linalg_norm_inf")) st = ct_linalg_norm(ctx, m, "inf", 0, NULL, false, &r);
    if (IS("linalg_vander")) st = ct_linalg_vander(ctx, v, -1, &r);
    if (IS("svd_v")) {
        ct_tensor *u = NULL, *s = NULL;
        st = ct_svd(ctx, m, true, true, &u, &s, &r);
        ct_tensor_release(u), ct_tensor_release(s);
    }
    if (IS("cholesky_old")) st = ct_cholesky(ctx, spd, false, &r);
    if (IS("triangular_solve")) {
        ct_tensor *xt = NULL;
        st = ct_tensor_transpose(ctx, x, 0, 1, &xt);
        if (st == CT_OK) st = ct_triangular_solve(ctx, xt, spd, true, false, false, &r, NULL);
        ct_tensor_release(xt);
    }
    if (IS("ctc_none") || IS("ctc_mean")) {
        ct_tensor *lp = NULL, *tg = NULL, *il = NULL, *tl = NULL;
        st = ct_log_softmax(ctx, x4, 2, &lp);
        if (st == CT_OK)
            st = ct_tensor_from_host(ctx, (const int64_t[]){1, 2, 2, 2, 1, 0, 2, 1}, CT_INT64, 2,
                                     S(4, 2), &tg);
        if (st == CT_OK)
            st = ct_tensor_from_host(ctx, (const int64_t[]){2, 2, 2, 2}, CT_INT64, 1, S(4), &il);
        if (st == CT_OK)
            st = ct_tensor_from_host(ctx, (const int64_t[]){1, 1, 1, 2}, CT_INT64, 1, S(4), &tl);
        if (st == CT_OK)
            st = ct_ctc_loss(ctx, lp, tg, il, tl, 0,
                             IS("ctc_none") ? CT_REDUCTION_NONE : CT_REDUCTION_MEAN, false, &r);
        ct_tensor_release(lp), ct_tensor_release(tg), ct_tensor_release(il), ct_tensor_release(tl);
    }
    if (IS("tensor_unfold")) st = ct_tensor_unfold(ctx, x4, 1, 2, 1, &r);
    if (IS("as_strided")) st = ct_tensor_as_strided(ctx, m, 2, S(2, 2), S(1, 1), 1, &r);
    if (IS("interp_trilinear") || IS("interp_nearest3d")) {
        ct_tensor *vol = NULL;
        st = ct_tensor_reshape(ctx, img, 5, S(1, 1, 2, 5, 5), &vol);
        if (st == CT_OK)
            st = ct_interpolate(ctx, vol, 3, S(3, 4, 4),
                                IS("interp_trilinear") ? CT_INTERP_LINEAR : CT_INTERP_NEAREST,
                                false, &r);
        ct_tensor_release(vol);
    }
    if (IS("interp_bicubic"))
        st = ct_interpolate(ctx, img, 2, S(7, 3), CT_INTERP_BICUBIC, false, &r);
    if (IS("interp_area2d")) st = ct_interpolate(ctx, img, 2, S(3, 2), CT_INTERP_AREA, false, &r);
    if (IS("interp_area1d")) st = ct_interpolate(ctx, seq, 1, S(3), CT_INTERP_AREA, false, &r);
    if (IS("multi_margin_loss") || IS("multilabel_margin_loss")) {
        ct_tensor *t = NULL;
        const bool mm = IS("multi_margin_loss");
        st = ct_tensor_from_host(
            ctx, mm ? (const int64_t[]){2, 0} : (const int64_t[]){2, -1, 0, 0, 1, -1}, CT_INT64,
            mm ? 1 : 2, mm ? S(2) : S(2, 3), &t);
        if (st == CT_OK && mm)
            st = ct_multi_margin_loss(ctx, x, t, 1, 1, NULL, CT_REDUCTION_MEAN, &r);
        if (st == CT_OK && !mm) st = ct_multilabel_margin_loss(ctx, x, t, CT_REDUCTION_MEAN, &r);
        ct_tensor_release(t);
    }
    if (IS("scatter_reduce") || IS("index_reduce")) {
        ct_tensor *ix = NULL;
        const bool sr = IS("scatter_reduce");
        st = ct_tensor_from_host(ctx, sr ? (const int64_t[]){0, 0, 2, 1} : (const int64_t[]){2, 0},
                                 CT_INT64, sr ? 2 : 1, sr ? S(2, 2) : S(2), &ix);
        if (st == CT_OK && sr) st = ct_scatter_reduce(ctx, x, 1, ix, y, "amax", true, &r);
        if (st == CT_OK && !sr) st = ct_index_reduce(ctx, m, 0, ix, x, "prod", false, &r);
        ct_tensor_release(ix);
    }
    if (IS("dot")) st = ct_dot(ctx, v, u, &r);
    if (IS("mv")) st = ct_mv(ctx, m, v, &r);
    if (IS("outer")) st = ct_outer(ctx, v, u, &r);
    if (IS("trace")) st = ct_trace(ctx, m, &r);
    if (IS("diagonal")) st = ct_diagonal(ctx, b3, 1, 1, 2, &r);
    if (IS("diag_vec")) st = ct_diag(ctx, v, 1, &r);
    if (IS("diag_mat")) st = ct_diag(ctx, m, -1, &r);
    if (IS("tile")) st = ct_tile(ctx, x, 2, S(2, 1), &r);
    if (IS("meshgrid")) {
        const ct_tensor *g[2] = {v, u};
        ct_tensor *go[2] = {NULL, NULL};
        st = ct_meshgrid(ctx, 2, g, CT_MESHGRID_XY, go);
        keep(go[0]);
        r = go[1];
    }
    if (IS("diff")) st = ct_diff(ctx, x, 1, 1, NULL, NULL, &r);
    if (IS("nansum")) st = ct_nansum(ctx, x, 1, D(1), false, &r);
    if (IS("nanmean")) st = ct_nanmean(ctx, x, 0, NULL, false, &r);
    if (IS("var_mean")) st = ct_var_mean(ctx, x, 1, D(1), 1.0, false, &r, &r2);
    if (IS("var_mean_m")) st = ct_var_mean(ctx, x, 1, D(1), 1.0, false, &r2, &r);
    if (IS("std_mean")) st = ct_std_mean(ctx, x, 0, NULL, 1.0, false, &r, &r2);
    if (IS("cross")) st = ct_cross(ctx, m, spd, 0, &r);
    if (IS("median")) st = ct_median(ctx, x, &r);
    if (IS("nanmedian")) st = ct_nanmedian(ctx, x, &r);
    if (IS("median_dim")) st = ct_median_dim(ctx, x, 1, false, &r, &r2);
    if (IS("nanmedian_dim")) st = ct_nanmedian_dim(ctx, x, 0, false, &r, &r2);
    if (IS("cummax")) st = ct_cummax(ctx, x, 1, &r, &r2);
    if (IS("cummin")) st = ct_cummin(ctx, x, 0, &r, &r2);
    if (IS("logcumsumexp")) st = ct_logcumsumexp(ctx, x, 1, &r);
    if (IS("rot90")) st = ct_rot90(ctx, x, 1, 0, 1, &r);
    if (IS("kron")) st = ct_kron(ctx, x, y, &r);
    if (IS("repeat_interleave")) st = ct_repeat_interleave(ctx, x, 2, 1, &r);
    if (IS("floor")) st = ct_floor(ctx, z, &r);
    if (IS("ceil")) st = ct_ceil(ctx, z, &r);
    if (IS("round")) st = ct_round(ctx, z, &r);
    if (IS("trunc")) st = ct_trunc(ctx, z, &r);
    if (IS("sign")) st = ct_sign(ctx, z, &r);
    if (IS("silu")) st = ct_silu(ctx, z, &r);
    if (IS("mish")) st = ct_mish(ctx, z, &r);
    if (IS("softplus")) st = ct_softplus(ctx, z, 1.0, 20.0, &r);
    if (IS("leaky_relu")) st = ct_leaky_relu(ctx, z, 0.01, &r);
    if (IS("elu")) st = ct_elu(ctx, z, 1.0, &r);
    if (IS("hardtanh")) st = ct_hardtanh(ctx, z, -0.5, 0.5, &r);
    if (IS("dropout")) st = ct_dropout(ctx, x, 0.5, true, 1, 0, &r);
    if (IS("dropout_eval")) st = ct_dropout(ctx, x, 0.5, false, 1, 0, &r);
    /* reductions */
    if (IS("sum")) st = ct_sum(ctx, x, 0, NULL, false, &r);
    if (IS("sum_dim")) st = ct_sum(ctx, x, 1, D(1), false, &r);
    if (IS("sum_dim_keepdim")) st = ct_sum(ctx, x, 1, D(0), true, &r);
    if (IS("mean")) st = ct_mean(ctx, x, 0, NULL, false, &r);
    if (IS("mean_dim")) st = ct_mean(ctx, x, 1, D(1), false, &r);
    if (IS("amax")) st = ct_amax(ctx, x, 1, D(1), false, &r);
    if (IS("amax_all")) st = ct_amax(ctx, x, 0, NULL, false, &r);
    if (IS("amin")) st = ct_amin(ctx, x, 1, D(1), false, &r);
    if (IS("max_dim")) st = ct_max_dim(ctx, x, 1, false, &r, &r2);
    if (IS("min_dim")) st = ct_min_dim(ctx, x, 1, false, &r, &r2);
    if (IS("prod")) st = ct_prod(ctx, x, CT_ALL_DIMS, false, &r);
    if (IS("prod_dim")) st = ct_prod(ctx, x, 1, false, &r);
    if (IS("cumsum")) st = ct_cumsum(ctx, x, 1, &r);
    if (IS("cumprod")) st = ct_cumprod(ctx, x, 1, &r);
    if (IS("var")) st = ct_var(ctx, x, 0, NULL, 1.0, false, &r);
    if (IS("var_dim")) st = ct_var(ctx, x, 1, D(1), 1.0, false, &r);
    if (IS("std")) st = ct_std(ctx, x, 0, NULL, 1.0, false, &r);
    if (IS("std_dim")) st = ct_std(ctx, x, 1, D(1), 1.0, false, &r);
    if (IS("logsumexp")) st = ct_logsumexp(ctx, x, 1, D(1), false, &r);
    if (IS("norm2")) st = ct_norm(ctx, x, 2.0, 0, NULL, false, &r);
    if (IS("norm2_dim")) st = ct_norm(ctx, x, 2.0, 1, D(1), false, &r);
    if (IS("norm1")) st = ct_norm(ctx, x, 1.0, 0, NULL, false, &r);
    if (IS("norm3")) st = ct_norm(ctx, x, 3.0, 0, NULL, false, &r);
    if (IS("norm_inf")) st = ct_norm(ctx, x, INFINITY, 0, NULL, false, &r);
    if (IS("norm_ninf")) st = ct_norm(ctx, x, -INFINITY, 0, NULL, false, &r);
    if (IS("norm0")) st = ct_norm(ctx, x, 0.0, 0, NULL, false, &r);
    /* along a dim / normalisation */
    if (IS("softmax")) st = ct_softmax(ctx, x, 1, &r);
    if (IS("log_softmax")) st = ct_log_softmax(ctx, x, 1, &r);
    if (IS("layer_norm")) st = ct_layer_norm(ctx, x, 1, lw, lb, 1e-5, &r);
    if (IS("layer_norm_noaffine")) st = ct_layer_norm(ctx, x, 1, NULL, NULL, 1e-5, &r);
    if (IS("group_norm")) st = ct_group_norm(ctx, x4, 2, w4, b4, 1e-5, &r);
    if (IS("batch_norm")) st = ct_batch_norm(ctx, x4, NULL, NULL, w4, b4, true, 0.1, 1e-5, &r);
    if (IS("batch_norm_eval")) {
        ct_tensor *rm = mk(ctx, 1, S(4), 0, false), *rv = mk(ctx, 1, S(4), 0, false);
        st = ct_batch_norm(ctx, x4, rm, rv, w4, b4, false, 0.1, 1e-5, &r);
    }
    /* padding, interpolation */
    if (IS("pad_constant")) st = ct_pad(ctx, img, 4, S(1, 1, 2, 0), CT_PAD_CONSTANT, 0.0, &r);
    if (IS("pad_reflect")) st = ct_pad(ctx, img, 4, S(1, 1, 2, 0), CT_PAD_REFLECT, 0.0, &r);
    if (IS("pad_replicate")) st = ct_pad(ctx, img, 4, S(1, 1, 2, 0), CT_PAD_REPLICATE, 0.0, &r);
    if (IS("pad_circular")) st = ct_pad(ctx, img, 4, S(1, 1, 2, 0), CT_PAD_CIRCULAR, 0.0, &r);
    if (IS("pad_reflect1d")) st = ct_pad(ctx, seq, 2, S(1, 2), CT_PAD_REFLECT, 0.0, &r);
    if (IS("interp_nearest")) st = ct_interpolate(ctx, img, 2, S(7, 8), CT_INTERP_NEAREST, 0, &r);
    if (IS("interp_nearest_exact"))
        st = ct_interpolate(ctx, img, 2, S(7, 8), CT_INTERP_NEAREST_EXACT, 0, &r);
    if (IS("interp_bilinear")) st = ct_interpolate(ctx, img, 2, S(7, 8), CT_INTERP_LINEAR, 0, &r);
    if (IS("interp_bilinear_ac"))
        st = ct_interpolate(ctx, img, 2, S(7, 8), CT_INTERP_LINEAR, 1, &r);
    if (IS("interp_linear")) st = ct_interpolate(ctx, seq, 1, S(9), CT_INTERP_LINEAR, 0, &r);
    if (IS("interp_nearest1d")) st = ct_interpolate(ctx, seq, 1, S(9), CT_INTERP_NEAREST, 0, &r);
    if (IS("interp_scale"))
        st = ct_interpolate_scale(ctx, img, 2, (const double[]){2.0, 2.0}, CT_INTERP_NEAREST, 0, 0,
                                  &r);
    /* convolution, pooling */
    if (IS("unfold")) st = ct_unfold(ctx, img, k2, one, zero, one, &r);
    if (IS("fold")) {
        ct_tensor *cols = mk(ctx, 3, S(1, 8, 16), 1, true);
        st = ct_fold(ctx, cols, S(5, 5), k2, one, zero, one, &r);
    }
    if (IS("conv2d")) st = ct_conv2d(ctx, img, wc, bc, one, zero, one, 1, &r);
    if (IS("conv2d_nobias")) st = ct_conv2d(ctx, img, wc, NULL, one, zero, one, 1, &r);
    if (IS("conv1d")) st = ct_conv1d(ctx, seq, wc1, bc, 1, 0, 1, 1, &r);
    if (IS("max_pool2d")) st = ct_max_pool2d(ctx, img, k2, NULL, zero, one, &r);
    if (IS("max_pool2d_idx")) st = ct_max_pool2d_ex(ctx, img, k2, NULL, zero, one, true, &r, &r2);
    if (IS("avg_pool2d")) st = ct_avg_pool2d(ctx, img, k2, NULL, zero, &r);
    if (IS("avg_pool2d_ex")) st = ct_avg_pool2d_ex(ctx, img, k3, one, one, true, false, &r);
    if (IS("adaptive_avg_pool2d")) st = ct_adaptive_avg_pool2d(ctx, img, S(2, 3), &r);
    if (IS("adaptive_avg_pool2d_1")) st = ct_adaptive_avg_pool2d(ctx, img, one, &r);
    /* matrix products */
    if (IS("matmul_2x2")) st = ct_matmul(ctx, m, m, &r);
    if (IS("matmul_2x1")) st = ct_matmul(ctx, m, v, &r);
    if (IS("matmul_1x1")) st = ct_matmul(ctx, v, v, &r);
    if (IS("matmul_1x2")) st = ct_matmul(ctx, v, m, &r);
    if (IS("matmul_3x3")) st = ct_matmul(ctx, b3, c3, &r);
    if (IS("matmul_3x2")) st = ct_matmul(ctx, b3, m, &r);
    if (IS("matmul_2x3")) st = ct_matmul(ctx, m, b3, &r);
    if (IS("matmul_1x3")) st = ct_matmul(ctx, v, b3, &r);
    if (IS("matmul_3x1")) st = ct_matmul(ctx, b3, v, &r);
    if (IS("bmm")) st = ct_bmm(ctx, b3, c3, &r);
    if (IS("addmm")) st = ct_addmm(ctx, v, m, m, 1.0, 1.0, &r);
    if (IS("baddbmm")) st = ct_baddbmm(ctx, v, b3, c3, 1.0, 1.0, &r);
    if (IS("linear")) st = ct_linear(ctx, x, W, bl, &r);
    if (IS("linear_nobias")) st = ct_linear(ctx, x, W, NULL, &r);
    if (IS("linear_3d")) st = ct_linear(ctx, b3, W, bl, &r);
    if (IS("linear_3d_nobias")) st = ct_linear(ctx, b3, W, NULL, &r);
    if (IS("linear_1d")) st = ct_linear(ctx, v, W, bl, &r);
    /* losses */
    if (IS("cross_entropy")) st = ct_cross_entropy(ctx, x, tgt, CT_REDUCTION_MEAN, 0.0, &r);
    if (IS("cross_entropy_sum")) st = ct_cross_entropy(ctx, x, tgt, CT_REDUCTION_SUM, 0.0, &r);
    if (IS("cross_entropy_none")) st = ct_cross_entropy(ctx, x, tgt, CT_REDUCTION_NONE, 0.0, &r);
    if (IS("cross_entropy_ls")) st = ct_cross_entropy(ctx, x, tgt, CT_REDUCTION_MEAN, 0.1, &r);
    if (IS("nll_loss")) st = ct_nll_loss(ctx, x, tgt, CT_REDUCTION_MEAN, &r);
    if (IS("nll_loss_sum")) st = ct_nll_loss(ctx, x, tgt, CT_REDUCTION_SUM, &r);
    if (IS("nll_loss_none")) st = ct_nll_loss(ctx, x, tgt, CT_REDUCTION_NONE, &r);
    if (IS("mse_loss")) st = ct_mse_loss(ctx, x, y, CT_REDUCTION_MEAN, &r);
    if (IS("mse_loss_sum")) st = ct_mse_loss(ctx, x, y, CT_REDUCTION_SUM, &r);
    if (IS("mse_loss_none")) st = ct_mse_loss(ctx, x, y, CT_REDUCTION_NONE, &r);
    /* indexing */
    if (IS("embedding")) st = ct_embedding(ctx, W, idx, &r);
    if (IS("index_select")) st = ct_index_select(ctx, x, 1, idx, &r);
    if (IS("gather")) st = ct_gather(ctx, x, 0, gidx, &r);
    if (IS("take_along_dim")) st = ct_take_along_dim(ctx, x, gidx, 0, &r);
    if (IS("scatter")) st = ct_scatter(ctx, x, 0, gidx, y, &r);
    if (IS("scatter_add")) st = ct_scatter_add(ctx, x, 0, gidx, y, &r);
    if (IS("index_add")) st = ct_index_add(ctx, m, 1, idx, mk(ctx, 2, S(3, 2), 1, true), 1.0, &r);
    if (IS("masked_fill")) st = ct_masked_fill(ctx, x, mask, 0.5, &r);
    if (IS("masked_select")) st = ct_masked_select(ctx, x, mask, &r);
    /* sorting, selection */
    if (IS("sort")) st = ct_sort(ctx, x, 1, false, false, &r, &r2);
    if (IS("topk")) st = ct_topk(ctx, x, 2, 1, true, true, &r, &r2);
    if (IS("kthvalue")) st = ct_kthvalue(ctx, x, 2, 1, false, &r, &r2);
    /* shaping */
    if (IS("tril")) st = ct_tril(ctx, m, 0, &r);
    if (IS("triu")) st = ct_triu(ctx, m, 0, &r);
    if (IS("cat")) st = ct_cat(ctx, 2, (const ct_tensor *const[]){x, y}, 0, &r);
    if (IS("stack")) st = ct_stack(ctx, 2, (const ct_tensor *const[]){x, y}, 0, &r);
    if (IS("split")) {
        ct_tensor *o[4] = {0};
        int n = 0;
        st = ct_split(ctx, x, 2, 1, 4, o, &n);
        for (int i = 1; i < n; i++)
            keep(o[i]);
        r = o[0];
    }
    if (IS("split_sizes")) {
        ct_tensor *o[2] = {0};
        st = ct_split_sizes(ctx, x, 2, S(1, 2), 1, o);
        keep(o[1]);
        r = o[0];
    }
    if (IS("chunk")) {
        ct_tensor *o[4] = {0};
        int n = 0;
        st = ct_chunk(ctx, x, 2, 1, 4, o, &n);
        for (int i = 1; i < n; i++)
            keep(o[i]);
        r = o[0];
    }
    if (IS("flatten")) st = ct_flatten(ctx, b3, 0, -1, &r);
    if (IS("flatten_t") && (st = ct_tensor_transpose(ctx, b3, 0, 1, &t)) == CT_OK)
        st = ct_flatten(ctx, keep(t), 0, -1, &r);
    if (IS("unflatten")) st = ct_unflatten(ctx, b3, 2, 2, S(3, 1), &r);
    if (IS("repeat")) st = ct_repeat(ctx, x, 2, S(2, 1), &r);
    if (IS("flip")) st = ct_flip(ctx, x, 1, D(1), &r);
    if (IS("roll")) st = ct_roll(ctx, x, 1, S(1), D(1), &r);
    if (IS("roll_flat")) st = ct_roll(ctx, x, 1, S(1), NULL, &r);
    if (IS("movedim")) st = ct_movedim(ctx, b3, 1, D(0), D(2), &r);
    if (IS("view")) st = ct_tensor_view(ctx, x, 1, S(6), &r);
    if (IS("reshape")) st = ct_tensor_reshape(ctx, x, 1, S(6), &r);
    if (IS("reshape_copy") && (st = ct_tensor_transpose(ctx, x, 0, 1, &t)) == CT_OK)
        st = ct_tensor_reshape(ctx, keep(t), 1, S(6), &r);
    if (IS("permute")) st = ct_tensor_permute(ctx, b3, D(2, 0, 1), &r);
    if (IS("transpose")) st = ct_tensor_transpose(ctx, x, 0, 1, &r);
    if (IS("narrow")) st = ct_tensor_narrow(ctx, x, 1, 1, 2, &r);
    if (IS("slice")) st = ct_tensor_slice(ctx, x, 1, 0, 3, 2, &r);
    if (IS("expand")) st = ct_tensor_expand(ctx, v, 2, S(2, 3), &r);
    if (IS("squeeze_dim")) st = ct_tensor_squeeze(ctx, mk(ctx, 2, S(1, 3), 0, true), 0, &r);
    if (IS("squeeze_all"))
        st = ct_tensor_squeeze(ctx, mk(ctx, 2, S(1, 3), 0, true), CT_ALL_DIMS, &r);
    if (IS("unsqueeze")) st = ct_tensor_unsqueeze(ctx, x, 0, &r);
    if (IS("contiguous_t") && (st = ct_tensor_transpose(ctx, x, 0, 1, &t)) == CT_OK)
        st = ct_tensor_contiguous(ctx, keep(t), &r);
    if (IS("clone")) st = ct_tensor_clone(ctx, x, &r);
    if (IS("detach")) st = ct_tensor_detach(ctx, x, &r);
    /* linear algebra */
    if (IS("eigh")) st = ct_linalg_eigh(ctx, spd, 'L', &r, &r2);
    if (IS("eigh_vectors")) st = ct_linalg_eigh(ctx, spd, 'L', &r2, &r);
    if (IS("eigvalsh")) st = ct_linalg_eigvalsh(ctx, spd, 'L', &r);
    if (IS("eig")) st = ct_linalg_eig(ctx, spd, &r, &r2);
    if (IS("eig_vectors")) st = ct_linalg_eig(ctx, spd, &r2, &r);
    if (IS("eigvals")) st = ct_linalg_eigvals(ctx, spd, &r);
    if (IS("cholesky")) st = ct_linalg_cholesky(ctx, spd, false, &r);
    if (IS("inv")) st = ct_linalg_inv(ctx, spd, &r);
    if (IS("solve")) st = ct_linalg_solve(ctx, spd, v, &r);
    if (IS("solve_mat")) st = ct_linalg_solve(ctx, spd, m, &r);
    if (IS("det")) st = ct_linalg_det(ctx, spd, &r);
    if (IS("slogdet")) st = ct_linalg_slogdet(ctx, spd, &r2, &r);
    if (IS("qr")) st = ct_linalg_qr(ctx, spd, &r, &r2);
    if (IS("svd")) st = ct_linalg_svd(ctx, spd, &r2, &r, &r3);
    if (IS("svd_u")) st = ct_linalg_svd(ctx, spd, &r, &r2, &r3);
    if (IS("svd_full_u")) st = ct_linalg_svd_full(ctx, x4, true, &r, &r2, &r3);
    if (IS("svd_full_vh")) st = ct_linalg_svd_full(ctx, x, true, &r3, &r2, &r);
    if (IS("qr_complete")) st = ct_linalg_qr_mode(ctx, x, "complete", &r, &r2);
    if (IS("qr_complete_tall")) st = ct_linalg_qr_mode(ctx, x4, "complete", &r, &r2);
    /* complex tensors and torch.fft (test_complex_fft) */
    {
        ct_tensor *c1 = NULL, *c2 = NULL;
        const bool cx_case = IS("irfft") || IS("hfft") || IS("fftshift_cx") || IS("view_as_real") ||
                             IS("abs_cx") || IS("angle_cx") || IS("real_cx") || IS("imag_cx") ||
                             IS("mul_cx") || IS("div_cx") || IS("exp_cx") || IS("conj_cx") ||
                             IS("sum_cx") || IS("mean_cx") || IS("sin_cx") || IS("tanh_cx") ||
                             IS("acosh_cx") || IS("log10_cx") || IS("rsqrt_cx") ||
                             IS("sigmoid_cx") || IS("sinc_cx") || IS("sgn_cx") || IS("prod_cx") ||
                             IS("cumprod_cx") || IS("var_cx") || IS("pow_t_cx") || IS("addcmul_cx");
        if (cx_case && (st = ct_fft_rfft(ctx, v, -1, 0, NULL, &c1)) == CT_OK) {
            keep(c1);
            if (IS("irfft")) st = ct_fft_irfft(ctx, c1, -1, 0, NULL, &r);
            if (IS("hfft")) st = ct_fft_hfft(ctx, c1, -1, 0, NULL, &r);
            if (IS("fftshift_cx")) st = ct_fft_fftshift(ctx, c1, 0, NULL, &r);
            if (IS("view_as_real")) st = ct_view_as_real(ctx, c1, &r);
            if (IS("abs_cx")) st = ct_abs(ctx, c1, &r);
            if (IS("angle_cx")) st = ct_angle(ctx, c1, &r);
            if (IS("real_cx")) st = ct_real(ctx, c1, &r);
            if (IS("imag_cx")) st = ct_imag(ctx, c1, &r);
            if (IS("mul_cx")) st = ct_mul(ctx, c1, c1, &r);
            if (IS("div_cx")) st = ct_div(ctx, c1, c1, &r);
            if (IS("exp_cx")) st = ct_exp(ctx, c1, &r);
            if (IS("sin_cx")) st = ct_sin(ctx, c1, &r);
            if (IS("tanh_cx")) st = ct_tanh(ctx, c1, &r);
            if (IS("acosh_cx")) st = ct_acosh(ctx, c1, &r);
            if (IS("log10_cx")) st = ct_log10(ctx, c1, &r);
            if (IS("rsqrt_cx")) st = ct_rsqrt(ctx, c1, &r);
            if (IS("sigmoid_cx")) st = ct_sigmoid(ctx, c1, &r);
            if (IS("sinc_cx")) st = ct_sinc(ctx, c1, &r);
            if (IS("sgn_cx")) st = ct_sgn(ctx, c1, &r);
            if (IS("prod_cx")) st = ct_prod(ctx, c1, CT_ALL_DIMS, false, &r);
            if (IS("cumprod_cx")) st = ct_cumprod(ctx, c1, 0, &r);
            if (IS("var_cx")) st = ct_var(ctx, c1, 0, NULL, 1, false, &r);
            if (IS("pow_t_cx")) st = ct_pow_tensor(ctx, c1, c1, &r);
            if (IS("addcmul_cx")) st = ct_addcmul(ctx, c1, c1, c1, 0.5, &r);
            if (IS("conj_cx")) st = ct_conj(ctx, c1, &r);
            if (IS("sum_cx")) st = ct_sum(ctx, c1, 0, NULL, false, &r);
            if (IS("mean_cx")) st = ct_mean(ctx, c1, 0, NULL, false, &r);
        }
        if (IS("fft_real")) st = ct_fft_fft(ctx, v, -1, 0, NULL, &r);
        if (IS("ifft_real")) st = ct_fft_ifft(ctx, v, -1, 0, NULL, &r);
        if (IS("rfft")) st = ct_fft_rfft(ctx, v, -1, 0, NULL, &r);
        if (IS("ihfft")) st = ct_fft_ihfft(ctx, v, -1, 0, NULL, &r);
        if (IS("fftn_real")) st = ct_fft_fftn(ctx, x, 0, NULL, NULL, NULL, &r);
        if (IS("rfft2")) st = ct_fft_rfft2(ctx, x, NULL, NULL, NULL, &r);
        if (IS("hfftn") && (st = ct_fft_rfft2(ctx, x, NULL, NULL, NULL, &c1)) == CT_OK)
            st = ct_fft_hfftn(ctx, keep(c1), 0, NULL, NULL, NULL, &r);
        if (IS("ihfftn")) st = ct_fft_ihfftn(ctx, x, 0, NULL, NULL, NULL, &r);
        if (IS("ihfftn_1")) st = ct_fft_ihfftn(ctx, x, 1, NULL, (const int[]){0}, NULL, &r);
        if (IS("irfft2") && (st = ct_fft_rfft2(ctx, x, NULL, NULL, NULL, &c1)) == CT_OK)
            st = ct_fft_irfft2(ctx, keep(c1), NULL, NULL, NULL, &r);
        if (IS("complex")) st = ct_complex(ctx, x, y, &r);
        if (IS("polar")) st = ct_polar(ctx, x, y, &r);
        if (IS("cast_cx")) st = ct_cast(ctx, x, CT_COMPLEX64, &r);
        if (IS("view_as_complex") && (st = ct_tensor_reshape(ctx, x, 2, S(3, 2), &c1)) == CT_OK)
            st = ct_view_as_complex(ctx, keep(c1), &r);
        if (IS("matmul_cx") && (st = ct_fft_rfft(ctx, x, -1, 1, NULL, &c1)) == CT_OK &&
            (st = ct_tensor_transpose(ctx, keep(c1), 0, 1, &c2)) == CT_OK)
            st = ct_matmul(ctx, c1, keep(c2), &r);
        if (IS("stft") && (st = ct_tensor_reshape(ctx, x, 1, S(6), &c1)) == CT_OK)
            st = ct_stft(ctx, keep(c1), 4, NULL, &r);
    }
    if (IS("fractional_max_pool2d"))
        st = ct_fractional_max_pool2d(ctx, img, S(2, 2), S(2, 2), NULL, NULL, 1, &r, NULL);
    if (IS("fractional_max_pool3d")) {
        ct_tensor *vol = NULL;
        st = ct_tensor_reshape(ctx, img, 5, S(1, 1, 2, 5, 5), &vol);
        if (st == CT_OK)
            st =
                ct_fractional_max_pool3d(ctx, vol, S(1, 2, 2), S(1, 2, 2), NULL, NULL, 1, &r, NULL);
        ct_tensor_release(vol);
    }
    /* more linear algebra (test_linalg_more) */
    if (IS("solve_triangular")) st = ct_linalg_solve_triangular(ctx, spd, m, true, true, false, &r);
    if (IS("solve_triangular_right"))
        st = ct_linalg_solve_triangular(ctx, spd, m, false, false, true, &r);
    if (IS("lu_factor")) st = ct_linalg_lu_factor(ctx, spd, &r, &r2);
    if (IS("lu_factor_ex")) st = ct_linalg_lu_factor_ex(ctx, spd, &r, &r2, &r3);
    if (IS("lu_L")) st = ct_linalg_lu(ctx, m, &r2, &r, &r3);
    if (IS("lu_U")) st = ct_linalg_lu(ctx, m, &r2, &r3, &r);
    if (IS("lu_solve") && (st = ct_linalg_lu_factor(ctx, spd, &t, &r2)) == CT_OK)
        st = ct_linalg_lu_solve(ctx, keep(t), r2, m, true, false, &r);
    if (IS("lu_unpack") && (st = ct_linalg_lu_factor(ctx, m, &t, &r2)) == CT_OK) {
        ct_tensor *p = NULL;
        st = ct_lu_unpack(ctx, keep(t), r2, true, true, &p, &r, &r3);
        keep(p);
    }
    if (IS("cholesky_solve")) st = ct_cholesky_solve(ctx, m, spd, false, &r);
    if (IS("cholesky_inverse")) st = ct_cholesky_inverse(ctx, spd, false, &r);
    if (IS("lstsq") || IS("lstsq_vec")) {
        ct_tensor *res = NULL, *rk = NULL, *sv = NULL;
        st = ct_linalg_lstsq(ctx, spd, IS("lstsq") ? m : v, NAN, NULL, &r, &res, &rk, &sv);
        keep(res), keep(rk), keep(sv);
    }
    if (IS("svdvals")) st = ct_linalg_svdvals(ctx, m, &r);
    if (IS("matrix_rank")) st = ct_linalg_matrix_rank(ctx, m, NAN, NAN, false, &r);
    if (IS("matrix_exp")) st = ct_linalg_matrix_exp(ctx, m, &r);
    if (IS("inv_ex")) st = ct_linalg_inv_ex(ctx, spd, &r, &r2);
    if (IS("solve_ex")) st = ct_linalg_solve_ex(ctx, spd, v, &r, &r2);
    if (IS("vecdot")) st = ct_linalg_vecdot(ctx, x, y, -1, &r);
    if (IS("tensorinv")) st = ct_linalg_tensorinv(ctx, spd, 1, &r);
    if (IS("tensorsolve")) st = ct_linalg_tensorsolve(ctx, spd, v, 0, NULL, &r);
    if (IS("householder_product")) st = ct_linalg_householder_product(ctx, m, u, &r);
    if (IS("geqrf")) st = ct_geqrf(ctx, m, &r, &r2);
    if (IS("geqrf_tau")) st = ct_geqrf(ctx, m, &r2, &r);
    if (IS("ormqr")) {
        ct_tensor *mt = NULL, *mm = NULL;
        st = ct_tensor_transpose(ctx, m, 0, 1, &mt);
        if (st == CT_OK) st = ct_matmul(ctx, mt, m, &mm);
        if (st == CT_OK) st = ct_ormqr(ctx, m, u, mm, true, false, &r);
        ct_tensor_release(mt), ct_tensor_release(mm);
    }
    if (IS("cond")) st = ct_linalg_cond(ctx, spd, NULL, &r);
    if (IS("cond_fro")) st = ct_linalg_cond(ctx, spd, "fro", &r);
    if (IS("cond_nuc")) st = ct_linalg_cond(ctx, spd, "nuc", &r);
    /* edge variants: ranks, missing operands, degenerate sizes, other branches of a composite */
    ct_tensor *img1 = mk(ctx, 3, S(2, 5, 5), 1, true), *vol = mk(ctx, 5, S(1, 1, 3, 3, 3), 1, true);
    ct_tensor *xn = mk(ctx, 2, S(2, 3), 0, false), *Wn = mk(ctx, 2, S(4, 3), 1, false);
    ct_tensor *b4d = mk(ctx, 4, S(2, 2, 3, 3), 0, true);
    if (IS("conv2d_unbatched")) st = ct_conv2d(ctx, img1, wc, bc, one, zero, one, 1, &r);
    if (IS("conv1d_unbatched"))
        st = ct_conv1d(ctx, mk(ctx, 2, S(2, 7), 1, true), wc1, NULL, 1, 0, 1, 1, &r);
    if (IS("conv2d_w_only")) {
        ct_tensor *imn = mk(ctx, 4, S(1, 2, 5, 5), 1, false);
        st = ct_conv2d(ctx, imn, wc, NULL, one, zero, one, 1, &r);
    }
    if (IS("pad_reflect_unbatched"))
        st = ct_pad(ctx, img1, 4, S(1, 1, 1, 1), CT_PAD_REFLECT, 0.0, &r);
    if (IS("pad_replicate3d"))
        st = ct_pad(ctx, vol, 6, S(1, 1, 1, 1, 1, 1), CT_PAD_REPLICATE, 0.0, &r);
    if (IS("pad_reflect3d")) st = ct_pad(ctx, vol, 6, S(1, 1, 1, 1, 1, 1), CT_PAD_REFLECT, 0.0, &r);
    if (IS("pad_circular1d")) st = ct_pad(ctx, seq, 2, S(1, 1), CT_PAD_CIRCULAR, 0.0, &r);
    if (IS("pad_constant_neg")) st = ct_pad(ctx, img, 2, S(-1, 1), CT_PAD_CONSTANT, 0.0, &r);
    if (IS("pad_constant_zero")) st = ct_pad(ctx, img, 2, S(0, 0), CT_PAD_CONSTANT, 0.0, &r);
    if (IS("pad_constant_1d")) st = ct_pad(ctx, x, 2, S(1, 1), CT_PAD_CONSTANT, 2.0, &r);
    if (IS("interp_same")) st = ct_interpolate(ctx, img, 2, S(5, 5), CT_INTERP_NEAREST, 0, &r);
    if (IS("interp_linear_same")) st = ct_interpolate(ctx, seq, 1, S(7), CT_INTERP_LINEAR, 1, &r);
    if (IS("interp_exact1d_scale"))
        st = ct_interpolate_scale(ctx, seq, 1, (const double[]){2.0}, CT_INTERP_NEAREST_EXACT, 0, 0,
                                  &r);
    if (IS("interp_bilinear_rsf"))
        st = ct_interpolate_scale(ctx, img, 2, (const double[]){2.0, 1.5}, CT_INTERP_LINEAR, 0, 1,
                                  &r);
    if (IS("max_pool2d_unbatched")) st = ct_max_pool2d(ctx, img1, k2, NULL, zero, one, &r);
    if (IS("avg_pool2d_unbatched")) st = ct_avg_pool2d(ctx, img1, k2, NULL, zero, &r);
    if (IS("adaptive_avg_pool2d_same")) st = ct_adaptive_avg_pool2d(ctx, img, S(5, 5), &r);
    if (IS("adaptive_avg_pool2d_unbatched")) st = ct_adaptive_avg_pool2d(ctx, img1, S(2, 2), &r);
    if (IS("adaptive_avg_pool2d_1_unbatched")) st = ct_adaptive_avg_pool2d(ctx, img1, one, &r);
    if (IS("matmul_2x4")) st = ct_matmul(ctx, m, b4d, &r);
    if (IS("matmul_4x2")) st = ct_matmul(ctx, b4d, m, &r);
    if (IS("matmul_1x4")) st = ct_matmul(ctx, v, b4d, &r);
    if (IS("matmul_4x3")) st = ct_matmul(ctx, b4d, c3, &r);
    if (IS("matmul_2x3_b_nograd")) st = ct_matmul(ctx, m, mk(ctx, 3, S(2, 3, 3), 0, false), &r);
    if (IS("linear_x_nograd")) st = ct_linear(ctx, xn, W, bl, &r);
    if (IS("linear_bias_only")) st = ct_linear(ctx, xn, Wn, bl, &r);
    if (IS("linear_3d_t") && (st = ct_tensor_transpose(ctx, b3, 0, 1, &t)) == CT_OK)
        st = ct_linear(ctx, keep(t), W, bl, &r);
    if (IS("linear_4d")) st = ct_linear(ctx, b4d, W, bl, &r);
    if (IS("linear_4d_nobias")) st = ct_linear(ctx, b4d, W, NULL, &r);
    if (IS("linear_w1d")) st = ct_linear(ctx, x, v, NULL, &r);
    if (IS("cross_entropy_ls_sum")) st = ct_cross_entropy(ctx, x, tgt, CT_REDUCTION_SUM, 0.1, &r);
    if (IS("cross_entropy_ls_none")) st = ct_cross_entropy(ctx, x, tgt, CT_REDUCTION_NONE, 0.1, &r);
    if (IS("mse_loss_bcast")) st = ct_mse_loss(ctx, x, mk(ctx, 1, S(3), 0, false), 1, &r);
    if (IS("mse_loss_target_grad")) st = ct_mse_loss(ctx, xn, y, CT_REDUCTION_MEAN, &r);
    if (IS("group_norm_noaffine")) st = ct_group_norm(ctx, x4, 2, NULL, NULL, 1e-5, &r);
    if (IS("batch_norm_noaffine"))
        st = ct_batch_norm(ctx, x4, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &r);
    if (IS("batch_norm_eval_w_only")) {
        ct_tensor *rm = mk(ctx, 1, S(4), 0, false), *rv = mk(ctx, 1, S(4), 0, false);
        ct_tensor *xn4 = mk(ctx, 3, S(2, 4, 3), 1, false);
        st = ct_batch_norm(ctx, xn4, rm, rv, w4, NULL, false, 0.1, 1e-5, &r);
    }
    if (IS("masked_fill_0d_mask"))
        st = ct_masked_fill(ctx, x, bools(ctx, 0, NULL, (const unsigned char[]){1}), 1.0, &r);
    if (IS("masked_select_bcast")) st = ct_masked_select(ctx, v, mask, &r);
    if (IS("addmm_beta0")) st = ct_addmm(ctx, v, m, m, 0.0, 1.0, &r);
    if (IS("addmm_input_grad_only")) {
        ct_tensor *mn = mk(ctx, 2, S(3, 3), 1, false);
        st = ct_addmm(ctx, v, mn, mn, 1.0, 1.0, &r);
    }
    if (IS("max_dim_keepdim")) st = ct_max_dim(ctx, x, 1, true, &r, &r2);
    if (IS("max_dim_0d")) st = ct_max_dim(ctx, mk(ctx, 0, NULL, 0, true), 0, false, &r, &r2);
    if (IS("kthvalue_keepdim")) st = ct_kthvalue(ctx, x, 1, 1, true, &r, &r2);
    if (IS("sort_0d")) st = ct_sort(ctx, mk(ctx, 0, NULL, 0, true), 0, false, false, &r, &r2);
    if (IS("topk_0d")) st = ct_topk(ctx, mk(ctx, 0, NULL, 0, true), 1, 0, true, true, &r, &r2);
    if (IS("std_keepdim")) st = ct_std(ctx, x, 1, D(1), 1.0, true, &r);
    if (IS("var_corr0")) st = ct_var(ctx, x, 0, NULL, 0.0, false, &r);
    if (IS("norm2_dims")) st = ct_norm(ctx, x, 2.0, 2, D(0, 1), false, &r);
    if (IS("norm_inf_dim")) st = ct_norm(ctx, x, INFINITY, 1, D(1), true, &r);
    if (IS("logsumexp_all")) st = ct_logsumexp(ctx, x, 0, NULL, false, &r);
    if (IS("stack_one")) st = ct_stack(ctx, 1, (const ct_tensor *const[]){v}, 0, &r);
    if (IS("split_one") || IS("split_last") || IS("chunk_last")) {
        ct_tensor *o[4] = {0};
        int n = 0;
        if (IS("split_one")) st = ct_split(ctx, x, 3, 1, 4, o, &n);
        if (IS("split_last")) st = ct_split(ctx, mk(ctx, 2, S(2, 5), 0, true), 2, 1, 4, o, &n);
        if (IS("chunk_last")) st = ct_chunk(ctx, mk(ctx, 2, S(2, 5), 0, true), 3, 1, 4, o, &n);
        for (int i = 0; i + 1 < n; i++)
            keep(o[i]);
        r = n ? o[n - 1] : NULL;
    }
    if (IS("split_sizes_one")) st = ct_split_sizes(ctx, x, 1, S(3), 1, &r);
    if (IS("dropout_p0")) st = ct_dropout(ctx, x, 0.0, true, 1, 0, &r);
    if (IS("dropout_p1")) st = ct_dropout(ctx, x, 1.0, true, 1, 0, &r);
    if (IS("flatten_1d")) st = ct_flatten(ctx, v, 0, -1, &r);
    if (IS("flatten_0d")) st = ct_flatten(ctx, mk(ctx, 0, NULL, 0, true), 0, -1, &r);
    if (IS("reshape_same")) st = ct_tensor_reshape(ctx, x, 2, S(2, 3), &r);
    if (IS("contiguous")) st = ct_tensor_contiguous(ctx, x, &r);
    if (IS("movedim_same")) st = ct_movedim(ctx, x, 1, D(0), D(0), &r);
    if (IS("take_along_dim_flat")) st = ct_take_along_dim(ctx, x, idx, CT_ALL_DIMS, &r);
    if (IS("repeat_more_dims")) st = ct_repeat(ctx, v, 2, S(2, 2), &r);
    if (IS("expand_same")) st = ct_tensor_expand(ctx, x, 2, S(2, 3), &r);
    if (IS("squeeze_non1")) st = ct_tensor_squeeze(ctx, x, 0, &r);
    if (IS("cast_same")) st = ct_cast(ctx, x, CT_FLOAT32, &r);
    if (IS("roll_multi")) st = ct_roll(ctx, x, 2, S(1, 1), D(0, 1), &r);
    if (IS("pow_two")) st = ct_pow(ctx, x, 2.0, &r);
    if (IS("pow_one")) st = ct_pow(ctx, x, 1.0, &r);
    if (IS("mean_dims_all")) st = ct_mean(ctx, x, 2, D(0, 1), false, &r);
    if (IS("prod_0d")) st = ct_prod(ctx, mk(ctx, 0, NULL, 0, true), 0, false, &r);
    if (IS("where_b_nograd")) st = ct_where(ctx, mask, x, xn, &r);
    if (IS("div_trunc_b_grad")) st = ct_div_mode(ctx, xn, y, CT_ROUND_TRUNC, &r);
    if (IS("layer_norm_2")) st = ct_layer_norm(ctx, b3, 2, NULL, NULL, 1e-5, &r);
    if (IS("embedding_2d")) st = ct_embedding(ctx, W, ints(ctx, 2, S(1, 2), S(0, 1)), &r);
    keep(r2);
    keep(r3);
    *stp = st;
    if (st != CT_OK) {
        ct_tensor_release(r);
        return NULL;
    }
    return r;
}

/* The suffix ct_tensor_to_string ends r with: "grad_fn=<...>", "requires_grad=True" or "-". */
static ct_status gf_suffix(const ct_tensor *r, char *buf, size_t cap) {
    char *s = NULL;
    ct_status st = ct_tensor_to_string(r, &s);
    if (st != CT_OK) return st;
    const char *g = strstr(s, "grad_fn=<"), *e = g ? strchr(g, '>') : NULL;
    if (g && e)
        snprintf(buf, cap, "%.*s", (int)(e - g + 1), g);
    else
        snprintf(buf, cap, "%s", strstr(s, "requires_grad=True") ? "requires_grad=True" : "-");
    free(s);
    return CT_OK;
}

#undef S
#undef D
#undef IS
#undef MAXT
#endif

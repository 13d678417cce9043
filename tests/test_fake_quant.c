/* ct_fake_quantize_per_tensor_affine / ct_fake_quantize_per_channel_affine against torch 1.13
 * (scripts/gen_fake_quant_ref.py: float32 / float64 / float16 inputs with rounding ties and
 * clamped values, int32 and float zero points, every axis): outputs bit for bit, the
 * straight-through gradients, torch's node names; then the argument checks and a capture. */
#include "test_util.h"

#include <string.h>

typedef struct {
    int kind, dt, nd;
    int64_t shape[3];
    int x, s, z, nch, zf, axis, qmin, qmax, y, g;
} fq_case;
#include "data/fake_quant_ref.h"

typedef struct {
    int per_ch, axis, qmin, qmax;
    double gf;
    int nd;
    int64_t shape[3];
    int C, x, s, z, y, w, gx, gs, gz;
} lfq_case;
#include "data/fake_quant_learnable_ref.h"

static ct_ctx *ctx;
static const ct_dtype fq_dt[3] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16};

static ct_status run_case(const fq_case *c, const ct_tensor *x, ct_tensor **y) {
    if (c->kind == 0)
        return ct_fake_quantize_per_tensor_affine(ctx, x, fq_pool[c->s], (int64_t)fq_pool[c->z],
                                                  c->qmin, c->qmax, y);
    const int64_t n = c->nch;
    ct_tensor *s = tu_from_vals(ctx, CT_FLOAT32, 1, &n, fq_pool + c->s);
    ct_tensor *z = tu_from_vals(ctx, c->zf ? CT_FLOAT32 : CT_INT32, 1, &n, fq_pool + c->z);
    ct_status st = ct_fake_quantize_per_channel_affine(ctx, x, s, z, c->axis, c->qmin, c->qmax, y);
    ct_tensor_release(s), ct_tensor_release(z);
    return st;
}

TEST(as_torch) {
    for (size_t k = 0; k < sizeof fq_cases / sizeof fq_cases[0]; k++) {
        const fq_case *c = &fq_cases[k];
        ct_tensor *x = tu_from_vals(ctx, fq_dt[c->dt], c->nd, c->shape, fq_pool + c->x);
        ct_tensor *y = NULL, *u = NULL, *yu = NULL, *l = NULL, *y64 = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        CHECK_OK(run_case(c, x, &y));
        if (!y) {
            ct_tensor_release(x);
            continue;
        }
        CHECK(ct_tensor_dtype(y) == fq_dt[c->dt]);
        char what[48];
        snprintf(what, sizeof what, "case %zu output", k);
        tu_same_as(what, y, fq_pool + c->y, c->nd, c->shape, 0);
        char *s = NULL;
        CHECK_OK(ct_tensor_to_string(y, &s));
        CHECK(s && strstr(s, c->kind ? "FakeQuantizePerChannelAffineCachemaskBackward0"
                                     : "FakeQuantizePerTensorAffineCachemaskBackward0"));
        free(s);
        const int64_t n = ct_tensor_numel(y);
        double *uv = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < n; i++)
            uv[i] = 0.5 + (double)(i % 5) / 4;
        u = tu_from_vals(ctx, CT_FLOAT64, c->nd, c->shape, uv);
        free(uv);
        CHECK_OK(ct_cast(ctx, y, CT_FLOAT64, &y64));
        CHECK_OK(ct_mul(ctx, y64, u, &yu));
        CHECK_OK(ct_sum(ctx, yu, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        snprintf(what, sizeof what, "case %zu gradient", k);
        if (ct_tensor_grad(x))
            tu_same_as(what, ct_tensor_grad(x), fq_pool + c->g, c->nd, c->shape, 0);
        ct_tensor *all[] = {x, y, u, yu, l, y64};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            ct_tensor_release(all[i]);
    }
}

/* torch's checks: quant_min <= zero_point <= quant_max, floating input, float32 scale, int32 /
 * float zero points of the channel's length, a non-negative axis */
TEST(refusals) {
    const int64_t sh[2] = {2, 3}, n3 = 3, n2 = 2;
    ct_tensor *x = NULL, *xi = NULL, *o = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, sh, &x));
    CHECK_OK(ct_tensor_ones(ctx, CT_INT32, 2, sh, &xi));
    CHECK_ST(ct_fake_quantize_per_tensor_affine(ctx, x, 0.5, 9, 0, 7, &o), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_fake_quantize_per_tensor_affine(ctx, x, 0.5, 2, 5, 3, &o), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_fake_quantize_per_tensor_affine(ctx, xi, 0.5, 2, 0, 7, &o), CT_ERR_DTYPE);
    CHECK_ST(ct_fake_quantize_per_tensor_affine(ctx, x, 0, 2, 0, 7, &o), CT_ERR_INVALID_ARG);
    ct_tensor *s3 = tu_from_vals(ctx, CT_FLOAT32, 1, &n3, (const double[]){0.1, 0.2, 0.3});
    ct_tensor *s2 = tu_from_vals(ctx, CT_FLOAT32, 1, &n2, (const double[]){0.1, 0.2});
    ct_tensor *z3 = tu_from_vals(ctx, CT_INT32, 1, &n3, (const double[]){0, 1, 9});
    ct_tensor *zl = tu_from_vals(ctx, CT_INT64, 1, &n3, (const double[]){0, 1, 2});
    ct_tensor *z2 = tu_from_vals(ctx, CT_INT32, 1, &n2, (const double[]){0, 1});
    ct_tensor *sd = NULL;
    CHECK_OK(ct_cast(ctx, s3, CT_FLOAT64, &sd));
    CHECK_ST(ct_fake_quantize_per_channel_affine(ctx, x, s3, z3, 1, 0, 7, &o), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_fake_quantize_per_channel_affine(ctx, x, s3, zl, 1, 0, 7, &o), CT_ERR_DTYPE);
    CHECK_ST(ct_fake_quantize_per_channel_affine(ctx, x, sd, z2, 0, 0, 7, &o), CT_ERR_DTYPE);
    CHECK_ST(ct_fake_quantize_per_channel_affine(ctx, x, s2, z2, 1, 0, 7, &o), CT_ERR_SHAPE);
    CHECK_ST(ct_fake_quantize_per_channel_affine(ctx, x, s2, z2, -2, 0, 7, &o), CT_ERR_INDEX);
    CHECK_OK(ct_fake_quantize_per_channel_affine(ctx, x, s2, z2, 0, 0, 7, &o));
    CHECK(o != NULL);
    ct_tensor *all[] = {x, xi, o, s3, s2, z3, zl, z2, sd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

/* captured into a graph, replayed on new data */
TEST(capture_replay) {
    const int64_t n = 6;
    ct_tensor *x =
        tu_from_vals(ctx, CT_FLOAT32, 1, &n, (const double[]){-1.3, 0.26, 0.25, 0.75, 2.6, 100});
    ct_tensor *y = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_fake_quantize_per_tensor_affine(ctx, x, 0.5, 2, 0, 7, &y));
    CHECK_OK(ct_graph_capture_end(g));
    ct_tensor *h =
        tu_from_vals(ctx, CT_FLOAT32, 1, &n, (const double[]){0.1, -5, 1.25, 0.74, 1.76, 3});
    CHECK_OK(ct_tensor_copy_(ctx, x, h));
    CHECK_OK(ct_graph_replay(g));
    /* q = 2 + round(2 x): 2, -8 -> 0, 4 (round(2.5) = 2), 3, 6 (round(3.52) = 4), 8 -> 7 */
    tu_same_as("replay", y, (const double[]){0, -1, 1, 0.5, 2, 2.5}, 1, &n, 0);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(h);
}

/* the learnable (LSQ) forms against torch 1.13: outputs bit for bit, the gradient of x exactly,
 * of scale and zero point to the float32 sums rounding: torch sums them in its own order, and
 * the terms cancel (3e-5 relative to 1 + the value) */
TEST(learnable_as_torch) {
    for (size_t k = 0; k < sizeof lfq_cases / sizeof lfq_cases[0]; k++) {
        const lfq_case *c = &lfq_cases[k];
        const int64_t C = c->C;
        ct_tensor *x = tu_from_vals(ctx, CT_FLOAT32, c->nd, c->shape, lfq_pool + c->x);
        ct_tensor *s = tu_from_vals(ctx, CT_FLOAT32, 1, &C, lfq_pool + c->s);
        ct_tensor *z = tu_from_vals(ctx, CT_FLOAT32, 1, &C, lfq_pool + c->z);
        ct_tensor *w = tu_from_vals(ctx, CT_FLOAT32, c->nd, c->shape, lfq_pool + c->w);
        ct_tensor *y = NULL, *p = NULL, *l = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        CHECK_OK(ct_tensor_set_requires_grad(s, true));
        CHECK_OK(ct_tensor_set_requires_grad(z, true));
        if (c->per_ch)
            CHECK_OK(ct_fake_quantize_learnable_per_channel_affine(ctx, x, s, z, c->axis, c->qmin,
                                                                   c->qmax, c->gf, &y));
        else
            CHECK_OK(ct_fake_quantize_learnable_per_tensor_affine(ctx, x, s, z, c->qmin, c->qmax,
                                                                  c->gf, &y));
        char what[48];
        snprintf(what, sizeof what, "lfq %zu y", k);
        tu_same_as(what, y, lfq_pool + c->y, c->nd, c->shape, 0);
        char name[64];
        CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) &&
              strstr(name, c->per_ch ? "FakeQuantizeLearnablePerChannelAffineBackward0"
                                     : "FakeQuantizeLearnablePerTensorAffineBackward0"));
        CHECK_OK(ct_mul(ctx, y, w, &p));
        CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        snprintf(what, sizeof what, "lfq %zu dx", k);
        tu_same_as(what, ct_tensor_grad(x), lfq_pool + c->gx, c->nd, c->shape, 0);
        snprintf(what, sizeof what, "lfq %zu dscale", k);
        tu_same_as(what, ct_tensor_grad(s), lfq_pool + c->gs, 1, &C, 3e-5);
        snprintf(what, sizeof what, "lfq %zu dzero", k);
        tu_same_as(what, ct_tensor_grad(z), lfq_pool + c->gz, 1, &C, 3e-5);
        ct_tensor_release(x), ct_tensor_release(s), ct_tensor_release(z), ct_tensor_release(w);
        ct_tensor_release(y), ct_tensor_release(p), ct_tensor_release(l);
    }
    /* x written in place after the forward: the backward refuses (torch's saved tensors), and
     * no reference cycle when x is written from the output */
    {
        const int64_t n4 = 4, one = 1;
        ct_tensor *x0 = tu_from_vals(ctx, CT_FLOAT32, 1, &n4, (const double[]){0.1, 0.6, 2, -3});
        ct_tensor *s1 = tu_from_vals(ctx, CT_FLOAT32, 1, &one, (const double[]){0.5});
        ct_tensor *z1 = tu_from_vals(ctx, CT_FLOAT32, 1, &one, (const double[]){1});
        ct_tensor *xx = NULL, *yy = NULL, *ll = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x0, true));
        CHECK_OK(ct_mul_scalar(ctx, x0, 1.0, &xx));
        CHECK_OK(ct_fake_quantize_learnable_per_tensor_affine(ctx, xx, s1, z1, -8, 7, 1, &yy));
        CHECK_OK(ct_add_scalar_(ctx, xx, 1.0));
        CHECK_OK(ct_sum(ctx, yy, 0, NULL, false, &ll));
        CHECK_ST(ct_backward(ctx, ll, NULL, false), CT_ERR_STATE);
        CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation"));
        ct_tensor_release(yy), ct_tensor_release(ll);
        CHECK_OK(ct_fake_quantize_learnable_per_tensor_affine(ctx, xx, s1, z1, -8, 7, 1, &yy));
        CHECK_OK(ct_add_(ctx, xx, yy));
        ct_tensor_release(yy), ct_tensor_release(xx), ct_tensor_release(x0);
        ct_tensor_release(s1), ct_tensor_release(z1);
    }
    /* refusals: float64 input, a range without 0, wrong sizes */
    const int64_t n = 3, two = 2;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 1, &n, (const double[]){1, 2, 3}), *y = NULL;
    ct_tensor *s = tu_from_vals(ctx, CT_FLOAT32, 1, &two, (const double[]){0.5, 0.5});
    ct_tensor *z = tu_from_vals(ctx, CT_FLOAT32, 1, &two, (const double[]){0, 0});
    CHECK_ST(ct_fake_quantize_learnable_per_tensor_affine(ctx, x, s, z, 0, 7, 1, &y), CT_ERR_DTYPE);
    ct_tensor *xf = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_FLOAT32, &xf));
    CHECK_ST(ct_fake_quantize_learnable_per_tensor_affine(ctx, xf, s, z, 0, 7, 1, &y),
             CT_ERR_SHAPE);
    CHECK_ST(ct_fake_quantize_learnable_per_channel_affine(ctx, xf, s, z, 0, 1, 7, 1, &y),
             CT_ERR_INVALID_ARG);
    CHECK_ST(ct_fake_quantize_learnable_per_channel_affine(ctx, xf, s, z, 1, 0, 7, 1, &y),
             CT_ERR_INDEX);
    CHECK(y == NULL);
    ct_tensor_release(x), ct_tensor_release(xf), ct_tensor_release(s), ct_tensor_release(z);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(as_torch);
    RUN(refusals);
    RUN(capture_replay);
    RUN(learnable_as_torch);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* ct_segment_reduce against torch 1.13's torch.segment_reduce (scripts/gen_segment_reduce_ref.py:
 * every reduction, float32 / float64, empty segments, ties, lengths and offsets, axis 0 and 1,
 * with and without initial): outputs and gradients; then torch's refusals and a capture. */
#include "test_util.h"

#include <string.h>

typedef struct {
    const char *reduce;
    int dt, axis, off, has_init;
    double init;
    int nd;
    int64_t shape[3];
    int snd;
    int64_t sshape[3];
    int x, s, ynd;
    int64_t yshape[3];
    int y, w, g;
} sr_case;
#include "data/segment_reduce_ref.h"

static ct_ctx *ctx;

TEST(as_torch) {
    for (size_t k = 0; k < sizeof sr_cases / sizeof sr_cases[0]; k++) {
        const sr_case *c = &sr_cases[k];
        const ct_dtype dt = c->dt ? CT_FLOAT32 : CT_FLOAT64;
        const double tol = c->dt ? 2e-6 : 1e-13;
        ct_tensor *x = tu_from_vals(ctx, dt, c->nd, c->shape, sr_pool + c->x);
        ct_tensor *s = tu_from_vals(ctx, CT_INT64, c->snd, c->sshape, sr_pool + c->s);
        ct_tensor *y = NULL, *w = NULL, *p = NULL, *l = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        CHECK_OK(ct_segment_reduce(ctx, x, c->reduce, c->off ? NULL : s, c->off ? s : NULL, c->axis,
                                   false, c->has_init ? &c->init : NULL, &y));
        char what[64];
        snprintf(what, sizeof what, "case %zu (%s) value", k, c->reduce);
        tu_same_as(what, y, sr_pool + c->y, c->ynd, c->yshape, tol);
        char name[40];
        CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) &&
              !strcmp(name, "SegmentReduceBackward0"));
        w = tu_from_vals(ctx, dt, c->ynd, c->yshape, sr_pool + c->w);
        CHECK_OK(ct_mul(ctx, y, w, &p));
        /* torch multiplies the non-finite outputs by 0 (NaN); their gradient is 0 anyway */
        ct_tensor *pf = NULL;
        const double zero = 0;
        CHECK_OK(ct_nan_to_num(ctx, p, &zero, &zero, &zero, &pf));
        CHECK_OK(ct_sum(ctx, pf, 0, NULL, false, &l));
        CHECK_OK(ct_backward(ctx, l, NULL, false));
        snprintf(what, sizeof what, "case %zu (%s) grad", k, c->reduce);
        tu_same_as(what, ct_tensor_grad(x), sr_pool + c->g, c->nd, c->shape, tol);
        ct_tensor_release(x), ct_tensor_release(s), ct_tensor_release(y), ct_tensor_release(w);
        ct_tensor_release(p), ct_tensor_release(pf), ct_tensor_release(l);
    }
}

TEST(refusals_and_hand_cases) {
    /* torch: segment_reduce(d, r, lengths=[2, 0, 3, 1]) and with initial=10 */
    const double dv[6] = {1, 2, 3, 4, 5, 6}, ten = 10;
    const int64_t n6 = 6, n4 = 4;
    ct_tensor *d = tu_from_vals(ctx, CT_FLOAT32, 1, &n6, dv), *y = NULL;
    ct_tensor *len = tu_from_vals(ctx, CT_INT32, 1, &n4, (const double[]){2, 0, 3, 1});
    static const struct {
        const char *r;
        double plain[4], init[4];
    } want[] = {{"sum", {3, 0, 12, 6}, {13, 10, 22, 16}},
                {"mean", {1.5, NAN, 4, 6}, {6.5, 10, 22.0 / 3, 16}},
                {"max", {2, -INFINITY, 5, 6}, {10, 10, 10, 10}},
                {"min", {1, INFINITY, 3, 6}, {1, 10, 3, 6}},
                {"prod", {2, 1, 60, 6}, {20, 10, 600, 60}}};
    for (int i = 0; i < 5; i++) {
        CHECK_OK(ct_segment_reduce(ctx, d, want[i].r, len, NULL, 0, false, NULL, &y));
        tu_same_as(want[i].r, y, want[i].plain, 1, &n4, 1e-7);
        ct_tensor_release(y);
        CHECK_OK(ct_segment_reduce(ctx, d, want[i].r, len, NULL, 0, false, &ten, &y));
        tu_same_as(want[i].r, y, want[i].init, 1, &n4, 1e-7);
        ct_tensor_release(y);
    }
    /* offsets [0, 2, 2, 5, 6] are the same segments */
    const int64_t n5 = 5;
    ct_tensor *off = tu_from_vals(ctx, CT_INT64, 1, &n5, (const double[]){0, 2, 2, 5, 6});
    CHECK_OK(ct_segment_reduce(ctx, d, "sum", NULL, off, 0, false, NULL, &y));
    tu_same_as("offsets", y, want[0].plain, 1, &n4, 0);
    ct_tensor_release(y);
    /* offsets need not cover the axis (torch checks lengths only): [1, 3, 4] of 4 elements */
    ct_tensor *d4 = tu_from_vals(ctx, CT_FLOAT64, 1, (int64_t[]){4}, (const double[]){1, 2, 3, 4});
    ct_tensor *o3 = tu_from_vals(ctx, CT_INT64, 1, (int64_t[]){3}, (const double[]){1, 3, 4}),
              *l = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(d4, true));
    CHECK_OK(ct_segment_reduce(ctx, d4, "sum", NULL, o3, 0, false, NULL, &y));
    tu_same_as("partial offsets", y, (const double[]){5, 4}, 1, (int64_t[]){2}, 0);
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    tu_same_as("partial offsets grad", ct_tensor_grad(d4), (const double[]){0, 1, 1, 1}, 1,
               (int64_t[]){4}, 0);
    ct_tensor_release(y), ct_tensor_release(l), ct_tensor_release(d4), ct_tensor_release(o3);
    /* torch's refusals */
    ct_tensor *bad = tu_from_vals(ctx, CT_INT64, 1, (int64_t[]){2}, (const double[]){2, 3});
    CHECK_ST(ct_segment_reduce(ctx, d, "sum", bad, NULL, 0, false, NULL, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "to sum to data.size(lengths.dim()-1) when !unsafe"));
    CHECK(y == NULL);
    CHECK_OK(ct_segment_reduce(ctx, d, "sum", bad, NULL, 0, true, NULL, &y)); /* unsafe */
    tu_same_as("unsafe", y, (const double[]){3, 12}, 1, (int64_t[]){2}, 0);
    ct_tensor_release(y), ct_tensor_release(bad);
    bad = tu_from_vals(ctx, CT_INT64, 1, (int64_t[]){3}, (const double[]){2, -1, 5});
    CHECK_ST(ct_segment_reduce(ctx, d, "sum", bad, NULL, 0, false, NULL, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "lengths contains negative value!"));
    CHECK_ST(ct_segment_reduce(ctx, d, "foo", len, NULL, 0, false, NULL, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "unsupported reduction given! foo"));
    CHECK_ST(ct_segment_reduce(ctx, d, "sum", len, off, 0, false, NULL, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_segment_reduce(ctx, d, "sum", NULL, NULL, 0, false, NULL, &y), CT_ERR_INVALID_ARG);
    ct_tensor *d2 = NULL, *di = NULL;
    CHECK_OK(ct_tensor_view(ctx, d, 2, (int64_t[]){2, 3}, &d2));
    CHECK_ST(ct_segment_reduce(ctx, d2, "sum", len, NULL, 1, false, NULL, &y), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "Expected axis to be the last dimension of lengths"));
    CHECK_OK(ct_cast(ctx, d, CT_INT64, &di));
    CHECK_ST(ct_segment_reduce(ctx, di, "sum", len, NULL, 0, false, NULL, &y), CT_ERR_DTYPE);
    CHECK_ST(ct_segment_reduce(ctx, d, "sum", len, NULL, 3, false, NULL, &y), CT_ERR_INDEX);
    ct_tensor_release(bad), ct_tensor_release(d2), ct_tensor_release(di);
    /* a capture replays on new data */
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    ct_status st = ct_segment_reduce(ctx, d, "max", len, NULL, 0, false, NULL, &y);
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(st);
    CHECK_OK(ct_tensor_fill_(ctx, d, 2.0));
    CHECK_OK(ct_graph_replay(g));
    tu_same_as("replay", y, (const double[]){2, -INFINITY, 2, 2}, 1, &n4, 0);
    ct_graph_free(g);
    ct_tensor_release(y), ct_tensor_release(d), ct_tensor_release(len), ct_tensor_release(off);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(as_torch);
    RUN(refusals_and_hand_cases);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

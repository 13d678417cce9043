/* Tensor methods and torch aliases (include/ctorch/methods.h): the values and messages torch 1.13
 * printed for the same calls (written out below), each alias against the op it names, the
 * in-place view ops' layout, autograd and node names, and the random fills' ranges. */
#include "test_util.h"

#include <string.h>

static ct_ctx *ctx;

static ct_tensor *f32(int nd, const int64_t *shape, const double *v) {
    return tu_from_vals(ctx, CT_FLOAT32, nd, shape, v);
}
static ct_tensor *arange6(void) { /* torch.arange(6.).reshape(2, 3) */
    return f32(2, (int64_t[]){2, 3}, (const double[]){0, 1, 2, 3, 4, 5});
}

TEST(new_and_as) {
    ct_tensor *t = NULL, *o = NULL, *r = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT16, 1, (int64_t[]){4}, &t));
    CHECK_OK(ct_new_full(ctx, t, 2, (int64_t[]){2, 2}, 3, &o));
    CHECK(ct_tensor_dtype(o) == CT_INT16);
    tu_same_as("new_full", o, (const double[]){3, 3, 3, 3}, 2, (int64_t[]){2, 2}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_new_ones(ctx, t, 1, (int64_t[]){3}, &o));
    tu_same_as("new_ones", o, (const double[]){1, 1, 1}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_new_zeros(ctx, t, 0, NULL, &o));
    tu_same_as("new_zeros", o, (const double[]){0}, 0, NULL, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_new_empty(ctx, t, 2, (int64_t[]){0, 5}, &o));
    CHECK(tu_same_shape(o, 2, (int64_t[]){0, 5}) && ct_tensor_dtype(o) == CT_INT16);
    ct_tensor_release(o);
    CHECK_ST(ct_new_zeros(ctx, NULL, 1, (int64_t[]){3}, &o), CT_ERR_INVALID_ARG);
    CHECK(ct_tensor_element_size(t) == 2 && ct_tensor_element_size(NULL) == 0);

    ct_tensor *a = arange6(), *row = f32(1, (int64_t[]){3}, (const double[]){7, 8, 9});
    CHECK_OK(ct_expand_as(ctx, row, a, &o));
    tu_same_as("expand_as", o, (const double[]){7, 8, 9, 7, 8, 9}, 2, (int64_t[]){2, 3}, 0);
    ct_tensor_release(o);
    ct_tensor *flat = f32(1, (int64_t[]){6}, (const double[]){0, 0, 0, 0, 0, 0}), *at = NULL;
    CHECK_OK(ct_reshape_as(ctx, a, flat, &o));
    tu_same_as("reshape_as", o, (const double[]){0, 1, 2, 3, 4, 5}, 1, (int64_t[]){6}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_view_as(ctx, a, flat, &o));
    CHECK(tu_same_shape(o, 1, (int64_t[]){6}));
    ct_tensor_release(o);
    CHECK_OK(ct_tensor_transpose(ctx, a, 0, 1, &at));
    CHECK_ST(ct_view_as(ctx, at, flat, &o), CT_ERR_SHAPE); /* not viewable */
    CHECK_OK(ct_reshape_as(ctx, at, flat, &o));            /* copies */
    tu_same_as("reshape_as copy", o, (const double[]){0, 3, 1, 4, 2, 5}, 1, (int64_t[]){6}, 0);
    ct_tensor_release(o);
    /* type_as: t itself when the dtypes match (torch: t.type_as(t) is t) */
    CHECK_OK(ct_type_as(ctx, a, flat, &o));
    CHECK(o == a);
    ct_tensor_release(o);
    CHECK_OK(ct_type_as(ctx, a, t, &o));
    CHECK(ct_tensor_dtype(o) == CT_INT16);
    tu_same_as("type_as", o, (const double[]){0, 1, 2, 3, 4, 5}, 2, (int64_t[]){2, 3}, 0);
    ct_tensor_release(o);
    /* sum_to_size: [[3, 5, 7]], [3, 5, 7], [[3], [12]]; torch's message otherwise */
    CHECK_OK(ct_sum_to_size(ctx, a, 2, (int64_t[]){1, 3}, &o));
    tu_same_as("sum_to (1,3)", o, (const double[]){3, 5, 7}, 2, (int64_t[]){1, 3}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_sum_to_size(ctx, a, 1, (int64_t[]){3}, &o));
    tu_same_as("sum_to (3)", o, (const double[]){3, 5, 7}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_sum_to_size(ctx, a, 2, (int64_t[]){2, 1}, &o));
    tu_same_as("sum_to (2,1)", o, (const double[]){3, 12}, 2, (int64_t[]){2, 1}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_sum_to_size(ctx, a, 2, (int64_t[]){2, 3}, &o));
    tu_same_as("sum_to same", o, (const double[]){0, 1, 2, 3, 4, 5}, 2, (int64_t[]){2, 3}, 0);
    ct_tensor_release(o);
    CHECK_ST(ct_sum_to_size(ctx, a, 1, (int64_t[]){2}, &o), CT_ERR_SHAPE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "size {[2]} is not expandable to size {[2, 3]}."),
              "%s", ct_ctx_last_error(ctx));
    /* differentiable: d sum(w * sum_to_size(x, (1, 3))) / dx = w broadcast */
    ct_tensor *x = arange6(), *w = f32(2, (int64_t[]){1, 3}, (const double[]){1, 2, 3}), *p = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_sum_to_size(ctx, x, 2, (int64_t[]){1, 3}, &o));
    CHECK_OK(ct_mul(ctx, o, w, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &r));
    CHECK_OK(ct_backward(ctx, r, NULL, false));
    tu_same_as("sum_to grad", ct_tensor_grad(x), (const double[]){1, 2, 3, 1, 2, 3}, 2,
               (int64_t[]){2, 3}, 0);
    ct_tensor_release(o), ct_tensor_release(p), ct_tensor_release(r), ct_tensor_release(x);
    ct_tensor_release(w), ct_tensor_release(at), ct_tensor_release(flat), ct_tensor_release(row);
    ct_tensor_release(a), ct_tensor_release(t);
}

static void diag_case(int nd, const int64_t *shape, bool wrap, const double *want) {
    ct_tensor *z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, nd, shape, &z));
    CHECK_OK(ct_fill_diagonal_(ctx, z, 5, wrap));
    tu_same_as("fill_diagonal_", z, want, nd, shape, 0);
    ct_tensor_release(z);
}

TEST(fill_diagonal) {
    /* torch 1.13's results */
    diag_case(2, (int64_t[]){3, 3}, false, (const double[]){5, 0, 0, 0, 5, 0, 0, 0, 5});
    diag_case(2, (int64_t[]){7, 3}, true,
              (const double[]){5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5});
    diag_case(2, (int64_t[]){7, 3}, false,
              (const double[]){5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    diag_case(2, (int64_t[]){3, 7}, true,
              (const double[]){5, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0});
    diag_case(3, (int64_t[]){2, 2, 2}, false, (const double[]){5, 0, 0, 0, 0, 0, 0, 5});
    diag_case(2, (int64_t[]){4, 3}, true, /* rows = cols + 1: no wrap, as torch */
              (const double[]){5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0});
    ct_tensor *z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, (int64_t[]){2, 3, 2}, &z));
    CHECK_ST(ct_fill_diagonal_(ctx, z, 1, false), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "all dimensions of input must be of equal length"));
    ct_tensor_release(z);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &z));
    CHECK_ST(ct_fill_diagonal_(ctx, z, 1, false), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "dimensions must larger than 1"));
    ct_tensor_release(z);
    /* a transposed view: the logical diagonal */
    ct_tensor *b = NULL, *bt = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, (int64_t[]){2, 3}, &b));
    CHECK_OK(ct_tensor_transpose(ctx, b, 0, 1, &bt));
    CHECK_OK(ct_fill_diagonal_(ctx, bt, 1, false));
    tu_same_as("transposed", b, (const double[]){1, 0, 0, 0, 1, 0}, 2, (int64_t[]){2, 3}, 0);
    ct_tensor_release(bt), ct_tensor_release(b);
    /* autograd: y = 2 x; y.fill_diagonal_(0); sum -> x.grad 2 off the diagonal, 0 on it */
    ct_tensor *x = NULL, *y = NULL, *s = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 2, (int64_t[]){3, 3}, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_ST(ct_fill_diagonal_(ctx, x, 0, false), CT_ERR_STATE); /* a leaf */
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_fill_diagonal_(ctx, y, 0, false));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    tu_same_as("grad", ct_tensor_grad(x), (const double[]){0, 2, 2, 2, 0, 2, 2, 2, 0}, 2,
               (int64_t[]){3, 3}, 0);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(s);
}

TEST(inplace_igamma_and_random) {
    ct_tensor *a = f32(1, (int64_t[]){4}, (const double[]){0.5, 1, 2, 3});
    ct_tensor *x = f32(1, (int64_t[]){4}, (const double[]){0.25, 1, 1.5, 4});
    ct_tensor *r = NULL, *c = NULL;
    CHECK_OK(ct_igamma(ctx, a, x, &r));
    CHECK_OK(ct_tensor_clone(ctx, a, &c));
    CHECK_OK(ct_igamma_(ctx, c, x));
    CHECK(tu_same_values(c, r));
    ct_tensor_release(r), ct_tensor_release(c);
    CHECK_OK(ct_igammac(ctx, a, x, &r));
    CHECK_OK(ct_tensor_clone(ctx, a, &c));
    CHECK_OK(ct_igammac_(ctx, c, x));
    CHECK(tu_same_values(c, r));
    ct_tensor_release(r), ct_tensor_release(c), ct_tensor_release(a), ct_tensor_release(x);

    /* bernoulli_: 0 and 1 exactly at p = 0 / 1; else rand(seed) < p, reproducible */
    ct_tensor *t = NULL, *u = NULL, *lt = NULL, *ref = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, (int64_t[]){1000}, &t));
    CHECK_OK(ct_tensor_bernoulli_(ctx, t, 1.0, 3, 0));
    double *v = tu_read(t);
    int ones = 0;
    for (int i = 0; v && i < 1000; i++)
        ones += v[i] == 1;
    CHECK(ones == 1000);
    free(v);
    CHECK_OK(ct_tensor_bernoulli_(ctx, t, 0.3, 3, 7));
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT64, 1, (int64_t[]){1000}, 3, 7, &u));
    CHECK_OK(ct_lt_scalar(ctx, u, 0.3, &lt));
    CHECK_OK(ct_cast(ctx, lt, CT_INT32, &ref));
    CHECK(tu_same_values(t, ref));
    v = tu_read(t);
    ones = 0;
    for (int i = 0; v && i < 1000; i++)
        ones += v[i] == 1;
    CHECK(ones > 230 && ones < 370);
    free(v);
    CHECK_ST(ct_tensor_bernoulli_(ctx, t, 2.0, 0, 0), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "bernoulli_ expects p to be in [0, 1], but got p=2"));
    ct_tensor_release(u), ct_tensor_release(lt), ct_tensor_release(ref);
    /* random_: every value of [from, to) and nothing else */
    CHECK_OK(ct_tensor_random_(ctx, t, -3, 4, 5, 0));
    v = tu_read(t);
    int seen[7] = {0};
    bool in_range = true;
    for (int i = 0; v && i < 1000; i++) {
        in_range &= v[i] >= -3 && v[i] < 4;
        if (v[i] >= -3 && v[i] < 4) seen[(int)v[i] + 3]++;
    }
    free(v);
    CHECK(in_range);
    for (int k = 0; k < 7; k++)
        CHECK(seen[k] > 80);
    CHECK_ST(ct_tensor_random_(ctx, t, 3, 3, 0, 0), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx),
                 "random_ expects 'from' to be less than 'to', but got from=3 >= to=3"));
    ct_tensor_release(t);
    ct_tensor *bo = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_BOOL, 1, (int64_t[]){64}, &bo));
    CHECK_OK(ct_tensor_random_(ctx, bo, 0, 2, 1, 0));
    CHECK(ct_tensor_dtype(bo) == CT_BOOL);
    CHECK_ST(ct_tensor_random_(ctx, bo, 0, 3, 1, 0), CT_ERR_INVALID_ARG);
    ct_tensor_release(bo);
    ct_tensor *lf = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, (int64_t[]){2}, &lf));
    CHECK_OK(ct_tensor_set_requires_grad(lf, true));
    CHECK_ST(ct_tensor_bernoulli_(ctx, lf, 0.5, 0, 0), CT_ERR_STATE);
    ct_tensor_release(lf);
}

TEST(inplace_views) {
    char name[32];
    /* layouts equal to the views' */
    ct_tensor *a = arange6(), *v = NULL, *w = NULL;
    CHECK_OK(ct_tensor_clone(ctx, a, &w));
    CHECK_OK(ct_t_(ctx, w));
    CHECK_OK(ct_t(ctx, a, &v));
    CHECK(tu_same_shape(w, 2, (int64_t[]){3, 2}) && tu_same_values(w, v));
    CHECK(ct_tensor_stride(w)[0] == 1 && ct_tensor_stride(w)[1] == 3);
    ct_tensor_release(v);
    CHECK_OK(ct_transpose_(ctx, w, 0, 1));
    CHECK(tu_same_values(w, a));
    CHECK_OK(ct_swapaxes_(ctx, w, 0, 1));
    CHECK_OK(ct_swapdims_(ctx, w, 1, 0));
    CHECK(tu_same_values(w, a));
    CHECK_OK(ct_unsqueeze_(ctx, w, 1));
    CHECK(tu_same_shape(w, 3, (int64_t[]){2, 1, 3}));
    CHECK_OK(ct_squeeze_(ctx, w, 0)); /* not size 1: unchanged, as torch */
    CHECK(tu_same_shape(w, 3, (int64_t[]){2, 1, 3}));
    CHECK_OK(ct_squeeze_(ctx, w, CT_ALL_DIMS));
    CHECK(tu_same_shape(w, 2, (int64_t[]){2, 3}) && tu_same_values(w, a));
    CHECK_OK(ct_as_strided_(ctx, w, 1, (int64_t[]){3}, (int64_t[]){2}, 1));
    tu_same_as("as_strided_", w, (const double[]){1, 3, 5}, 1, (int64_t[]){3}, 0);
    CHECK_ST(ct_transpose_(ctx, w, 0, 5), CT_ERR_INDEX);
    tu_same_as("unchanged on failure", w, (const double[]){1, 3, 5}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(w);
    /* autograd: torch's in-place node names, gradients through them */
    static const struct {
        int op;
        const char *name;
    } cases[] = {{0, "TBackward1"},         {1, "TransposeBackward1"}, {2, "TransposeBackward1"},
                 {3, "SqueezeBackward2"},   {4, "SqueezeBackward3"},   {5, "UnsqueezeBackward1"},
                 {6, "AsStridedBackward1"}, {7, "TransposeBackward1"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ct_tensor *x = arange6(), *y = NULL, *y2 = NULL, *s = NULL, *q = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(x, true));
        CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
        CHECK_OK(ct_tensor_unsqueeze(ctx, y, 1, &y2)); /* (2, 1, 3) */
        ct_status st = CT_OK;
        switch (cases[k].op) {
        case 0:
            st = ct_squeeze_(ctx, y2, 1);
            if (st == CT_OK) st = ct_t_(ctx, y2);
            break;
        case 1: st = ct_transpose_(ctx, y2, 0, 2); break;
        case 2: st = ct_swapaxes_(ctx, y2, 0, 2); break;
        case 3: st = ct_squeeze_(ctx, y2, CT_ALL_DIMS); break;
        case 4: st = ct_squeeze_(ctx, y2, 1); break;
        case 5: st = ct_unsqueeze_(ctx, y2, 0); break;
        case 6: st = ct_as_strided_(ctx, y2, 1, (int64_t[]){3}, (int64_t[]){2}, 0); break;
        default: st = ct_swapdims_(ctx, y2, 0, 1); break;
        }
        CHECK_OK(st);
        CHECK_MSG(ct_tensor_grad_fn_name(y2, name, sizeof name) && !strcmp(name, cases[k].name),
                  "case %zu: %s", k, name);
        CHECK_OK(ct_pow(ctx, y2, 2, &q));
        CHECK_OK(ct_sum(ctx, q, 0, NULL, false, &s));
        CHECK_OK(ct_backward(ctx, s, NULL, false));
        /* d sum((2x)^2) / dx = 8 x over the elements the view reaches */
        double *g = tu_read(ct_tensor_grad(x));
        for (int i = 0; g && i < 6; i++) {
            const double want = cases[k].op == 6 ? (i % 2 == 0 ? 8.0 * i : 0) : 8.0 * i;
            CHECK_MSG(g[i] == want, "case %zu grad[%d] %g vs %g", k, i, g[i], want);
        }
        free(g);
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(y2);
        ct_tensor_release(s), ct_tensor_release(q);
    }
    /* a leaf that requires grad is refused (torch) */
    ct_tensor *x = arange6();
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_ST(ct_t_(ctx, x), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "a leaf Variable that requires grad"));
    /* retain_grad follows the handle */
    ct_tensor *y = NULL, *s = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_tensor_retain_grad(y));
    CHECK_OK(ct_t_(ctx, y));
    CHECK(ct_tensor_retains_grad(y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    tu_same_as("retained through t_", ct_tensor_grad(y), (const double[]){1, 1, 1, 1, 1, 1}, 2,
               (int64_t[]){3, 2}, 0);
    ct_tensor_release(s);
    /* detach_: a non-view loses its history; a view with history is refused (torch) */
    ct_tensor *z = NULL, *zv = NULL;
    CHECK_OK(ct_mul_scalar(ctx, x, 3, &z));
    CHECK_OK(ct_tensor_slice(ctx, z, 0, 0, 1, 1, &zv));
    CHECK_ST(ct_detach_(ctx, zv), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "Can't detach views in-place"));
    CHECK_OK(ct_detach_(ctx, z));
    CHECK(!ct_tensor_requires_grad(z) && ct_tensor_is_leaf(z));
    CHECK_OK(ct_detach_(ctx, x)); /* a leaf: no longer requires grad, as torch */
    CHECK(!ct_tensor_requires_grad(x));
    ct_tensor_release(z), ct_tensor_release(zv), ct_tensor_release(y), ct_tensor_release(x);
    ct_tensor_release(a);
}

TEST(aliases) {
    ct_tensor *a = arange6(), *o1[3] = {NULL}, *o2[3] = {NULL};
    int n1 = 0, n2 = 0;
    CHECK_OK(ct_split_with_sizes(ctx, a, 2, (int64_t[]){1, 2}, 1, o1));
    CHECK_OK(ct_split_sizes(ctx, a, 2, (int64_t[]){1, 2}, 1, o2));
    for (int i = 0; i < 2; i++) {
        CHECK(tu_same_values(o1[i], o2[i]));
        ct_tensor_release(o1[i]), ct_tensor_release(o2[i]);
    }
    CHECK_OK(ct_unsafe_split_with_sizes(ctx, a, 2, (int64_t[]){1, 1}, 0, o1));
    CHECK(tu_same_shape(o1[1], 2, (int64_t[]){1, 3}));
    ct_tensor_release(o1[0]), ct_tensor_release(o1[1]);
    CHECK_OK(ct_unsafe_split(ctx, a, 2, 1, 3, o1, &n1));
    CHECK_OK(ct_split(ctx, a, 2, 1, 3, o2, &n2));
    CHECK(n1 == 2 && n2 == 2);
    for (int i = 0; i < n1; i++) {
        CHECK(tu_same_values(o1[i], o2[i]));
        ct_tensor_release(o1[i]), ct_tensor_release(o2[i]);
    }
    CHECK_OK(ct_unsafe_chunk(ctx, a, 3, 1, 3, o1, &n1));
    CHECK(n1 == 3);
    for (int i = 0; i < n1; i++)
        ct_tensor_release(o1[i]);
    /* upsample: interpolate; upsample_bilinear: align_corners = true, 4-d only */
    ct_tensor *x4 = NULL, *u = NULL, *ref = NULL;
    CHECK_OK(ct_tensor_view(ctx, a, 4, (int64_t[]){1, 1, 2, 3}, &x4));
    const int64_t sz[2] = {3, 5};
    CHECK_OK(ct_upsample_bilinear(ctx, x4, sz, &u));
    CHECK_OK(ct_interpolate(ctx, x4, 2, sz, CT_INTERP_LINEAR, true, &ref));
    CHECK(tu_same_values(u, ref));
    /* torch: F.upsample_bilinear(arange(6.).view(1,1,2,3), (3,5))[0,0,1] =
     * [1.5, 2, 2.5, 3, 3.5] (align_corners) */
    double *v = tu_read(u);
    CHECK(v && v[5] == 1.5 && v[6] == 2 && v[9] == 3.5);
    free(v);
    ct_tensor_release(u), ct_tensor_release(ref);
    CHECK_OK(ct_upsample_nearest(ctx, x4, 2, sz, &u));
    CHECK_OK(ct_interpolate(ctx, x4, 2, sz, CT_INTERP_NEAREST, false, &ref));
    CHECK(tu_same_values(u, ref));
    ct_tensor_release(u), ct_tensor_release(ref);
    CHECK_OK(ct_upsample(ctx, x4, 2, sz, CT_INTERP_BICUBIC, false, &u));
    CHECK_OK(ct_interpolate(ctx, x4, 2, sz, CT_INTERP_BICUBIC, false, &ref));
    CHECK(tu_same_values(u, ref));
    ct_tensor_release(u), ct_tensor_release(ref);
    CHECK_ST(ct_upsample_bilinear(ctx, a, sz, &u), CT_ERR_SHAPE);
    /* the pools with indices */
    ct_tensor *i1 = NULL, *i2 = NULL, *p1 = NULL, *p2 = NULL;
    const int64_t k2[2] = {1, 2}, k3[3] = {1, 1, 2}, os2[2] = {1, 2}, os3[3] = {1, 1, 2};
    CHECK_OK(ct_max_pool2d_with_indices(ctx, x4, k2, NULL, (int64_t[]){0, 0}, (int64_t[]){1, 1},
                                        true, &p1, &i1));
    CHECK_OK(
        ct_max_pool2d_ex(ctx, x4, k2, NULL, (int64_t[]){0, 0}, (int64_t[]){1, 1}, true, &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    tu_same_as("pool2d idx", i1, (const double[]){1, 2, 4, 5}, 4, (int64_t[]){1, 1, 2, 2}, 0);
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    CHECK_ST(ct_max_pool2d_with_indices(ctx, x4, k2, NULL, (int64_t[]){0, 0}, (int64_t[]){1, 1},
                                        false, &p1, NULL),
             CT_ERR_INVALID_ARG);
    ct_tensor *x3 = NULL, *x5 = NULL;
    CHECK_OK(ct_tensor_view(ctx, a, 3, (int64_t[]){1, 2, 3}, &x3));
    CHECK_OK(ct_tensor_view(ctx, a, 5, (int64_t[]){1, 1, 1, 2, 3}, &x5));
    CHECK_OK(ct_max_pool1d_with_indices(ctx, x3, 2, 1, 0, 1, false, &p1, &i1));
    CHECK_OK(ct_max_pool1d(ctx, x3, 2, 1, 0, 1, false, &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    CHECK_OK(ct_max_pool3d_with_indices(ctx, x5, k3, NULL, (int64_t[]){0, 0, 0},
                                        (int64_t[]){1, 1, 1}, false, &p1, &i1));
    CHECK_OK(ct_max_pool3d(ctx, x5, k3, NULL, (int64_t[]){0, 0, 0}, (int64_t[]){1, 1, 1}, false,
                           &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    CHECK_OK(ct_adaptive_max_pool1d_with_indices(ctx, x3, 2, &p1, &i1));
    CHECK_OK(ct_adaptive_max_pool1d(ctx, x3, 2, &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    CHECK_OK(ct_adaptive_max_pool2d_with_indices(ctx, x4, os2, &p1, &i1));
    CHECK_OK(ct_adaptive_max_pool2d(ctx, x4, os2, &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    CHECK_OK(ct_adaptive_max_pool3d_with_indices(ctx, x5, os3, &p1, &i1));
    CHECK_OK(ct_adaptive_max_pool3d(ctx, x5, os3, &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    const int64_t fk2[2] = {1, 2}, fo2[2] = {2, 2}, fk3[3] = {1, 1, 2}, fo3[3] = {1, 1, 1};
    CHECK_OK(ct_fractional_max_pool2d_with_indices(ctx, x4, fk2, fo2, NULL, NULL, 9, &p1, &i1));
    CHECK_OK(ct_fractional_max_pool2d(ctx, x4, fk2, fo2, NULL, NULL, 9, &p2, &i2));
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    ct_tensor *x12 = NULL; /* (1, 1, 2, 2, 3): torch needs output + pool - 1 < input */
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 5, (int64_t[]){1, 1, 2, 2, 3}, 4, 0, &x12));
    CHECK_OK(ct_fractional_max_pool3d_with_indices(ctx, x12, fk3, fo3, NULL, NULL, 9, &p1, &i1));
    CHECK_OK(ct_fractional_max_pool3d(ctx, x12, fk3, fo3, NULL, NULL, 9, &p2, &i2));
    ct_tensor_release(x12);
    CHECK(tu_same_values(p1, p2) && tu_same_values(i1, i2));
    ct_tensor_release(p1), ct_tensor_release(p2), ct_tensor_release(i1), ct_tensor_release(i2);
    ct_tensor_release(x3), ct_tensor_release(x4), ct_tensor_release(x5), ct_tensor_release(a);
}

/* torch.nn.utils.rnn.pad_sequence([[1, 2, 3], [4], [5, 6]], padding_value=-1) */
TEST(pad_sequence) {
    ct_tensor *a = f32(1, (int64_t[]){3}, (const double[]){1, 2, 3}),
              *b = f32(1, (int64_t[]){1}, (const double[]){4}),
              *c = f32(1, (int64_t[]){2}, (const double[]){5, 6}), *o = NULL, *s = NULL;
    const ct_tensor *seqs[3] = {a, b, c};
    CHECK_OK(ct_tensor_set_requires_grad(a, true));
    CHECK_OK(ct_pad_sequence(ctx, 3, seqs, true, -1, &o));
    tu_same_as("batch_first", o, (const double[]){1, 2, 3, 4, -1, -1, 5, 6, -1}, 2,
               (int64_t[]){3, 3}, 0);
    ct_tensor_release(o);
    CHECK_OK(ct_pad_sequence(ctx, 3, seqs, false, 0, &o));
    tu_same_as("time first", o, (const double[]){1, 4, 5, 2, 0, 6, 3, 0, 0}, 2, (int64_t[]){3, 3},
               0);
    CHECK_OK(ct_sum(ctx, o, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    tu_same_as("grad", ct_tensor_grad(a), (const double[]){1, 1, 1}, 1, (int64_t[]){3}, 0);
    ct_tensor_release(o), ct_tensor_release(s);
    ct_tensor *d = f32(2, (int64_t[]){1, 2}, (const double[]){1, 2});
    const ct_tensor *bad[2] = {a, d};
    CHECK_ST(ct_pad_sequence(ctx, 2, bad, true, 0, &o), CT_ERR_SHAPE);
    CHECK(o == NULL);
    CHECK_ST(ct_pad_sequence(ctx, 0, seqs, true, 0, &o), CT_ERR_INVALID_ARG);
    ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c), ct_tensor_release(d);
}

/* native_layer_norm / batch_norm / group_norm: the statistics against torch 1.13 (first three
 * printed by torch for this x) and a naive loop over every group */
TEST(native_norms) {
    static const double xv[24] = {
        -0.31128955419003207, -0.7130302768401124,  -0.729068152895376,   -0.29920233004408114,
        -0.25289846946006805, -0.36018000135378847, 0.9393532606557873,   1.16142070644801,
        0.09412786590968454,  0.5119431551289874,   0.5962195917653099,   1.2911149475664248,
        1.7540735804302916,   -0.41492167096134713, -0.9922212482992676,  -0.29860084468041753,
        -1.928583354008078,   -0.27100795326519517, -0.13592053405918775, 2.574546178223919,
        -0.5228502891747725,  0.9862589864591587,   0.2923433203613846,   1.0146405705694284};
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 3, (int64_t[]){2, 3, 4}, xv), *o = NULL,
              *ref = NULL, *m = NULL, *r = NULL;
    CHECK_OK(ct_native_layer_norm(ctx, x, 1, NULL, NULL, 1e-5, &o, &m, &r));
    CHECK_OK(ct_layer_norm(ctx, x, 1, NULL, NULL, 1e-5, &ref));
    CHECK(tu_same_values(o, ref));
    CHECK(tu_same_shape(m, 3, (int64_t[]){2, 3, 1}) && tu_same_shape(r, 3, (int64_t[]){2, 3, 1}));
    double mean6[6], rstd6[6];
    for (int g = 0; g < 6; g++) { /* the naive statistics of each row of 4 */
        double mu = 0, var = 0;
        for (int i = 0; i < 4; i++)
            mu += xv[g * 4 + i] / 4;
        for (int i = 0; i < 4; i++)
            var += (xv[g * 4 + i] - mu) * (xv[g * 4 + i] - mu) / 4;
        mean6[g] = mu, rstd6[g] = 1 / sqrt(var + 1e-5);
    }
    tu_same_as("ln mean", m, mean6, 3, (int64_t[]){2, 3, 1}, 1e-14);
    tu_same_as("ln rstd", r, rstd6, 3, (int64_t[]){2, 3, 1}, 1e-13);
    double *mv = tu_read(m), *rv = tu_read(r);
    CHECK(mv && fabs(mv[0] - -0.5131475784924003) < 1e-15 &&
          fabs(rv[0] - 4.806608947724596) < 1e-13);
    free(mv), free(rv);
    ct_tensor_release(o), ct_tensor_release(ref), ct_tensor_release(m), ct_tensor_release(r);
    /* group_norm with 3 groups of (1 channel x 4) = the rows above */
    CHECK_OK(ct_native_group_norm(ctx, x, NULL, NULL, 3, 1e-5, &o, &m, &r));
    tu_same_as("gn mean", m, mean6, 2, (int64_t[]){2, 3}, 1e-14);
    tu_same_as("gn rstd", r, rstd6, 2, (int64_t[]){2, 3}, 1e-13);
    ct_tensor_release(o), ct_tensor_release(m), ct_tensor_release(r);
    /* batch_norm: per channel over (N, L); torch: mean [-0.2505..., 0.2158..., 0.5330...], invstd
     * [1.2590..., 0.8003..., 1.8326...], running_mean updated as ct_batch_norm's; eval: empty */
    ct_tensor *rm = NULL, *rvv = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, (int64_t[]){3}, &rm));
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 1, (int64_t[]){3}, &rvv));
    CHECK_OK(ct_native_batch_norm(ctx, x, NULL, NULL, rm, rvv, true, 0.1, 1e-5, &o, &m, &r));
    tu_same_as("bn mean", m,
               (const double[]){-0.25053256218504283, 0.21584122914767484, 0.5329747685732007}, 1,
               (int64_t[]){3}, 1e-14);
    tu_same_as("bn invstd", r,
               (const double[]){1.2590171935257581, 0.8002563835229233, 1.8326179332603352}, 1,
               (int64_t[]){3}, 1e-13);
    tu_same_as("bn running", rm,
               (const double[]){-0.025053256218504284, 0.021584122914767485, 0.05329747685732007},
               1, (int64_t[]){3}, 1e-14);
    ct_tensor_release(o), ct_tensor_release(m), ct_tensor_release(r);
    CHECK_OK(ct_native_batch_norm(ctx, x, NULL, NULL, rm, rvv, false, 0.1, 1e-5, &o, &m, &r));
    CHECK(tu_same_shape(m, 1, (int64_t[]){0}) && tu_same_shape(r, 1, (int64_t[]){0}));
    ct_tensor_release(o), ct_tensor_release(m), ct_tensor_release(r);
    CHECK_OK(ct_native_layer_norm(ctx, x, 2, NULL, NULL, 1e-5, &o, NULL, NULL)); /* not wanted */
    ct_tensor_release(o);
    o = (ct_tensor *)1;
    CHECK_ST(ct_native_batch_norm(ctx, NULL, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &o, &m, &r),
             CT_ERR_INVALID_ARG);
    CHECK(o == NULL && m == NULL && r == NULL);
    CHECK_OK(ct_native_layer_norm(ctx, x, 2, NULL, NULL, 1e-5, &o, NULL, NULL));
    ct_tensor_release(o);
    ct_tensor_release(rm), ct_tensor_release(rvv), ct_tensor_release(x);
}

static double times_27(double v, void *user) { return v * *(const double *)user; }
static double add2(double a, double b, void *user) {
    (void)user;
    return a + b;
}
/* torch: x.apply_(lambda v: v * 2.7) on int64 [1, 2, 3] -> [2, 5, 8]; a.map_(b, +) */
TEST(apply_and_map) {
    const double k = 2.7;
    ct_tensor *i = tu_from_vals(ctx, CT_INT64, 1, (int64_t[]){3}, (const double[]){1, 2, 3});
    CHECK_OK(ct_tensor_apply_(ctx, i, times_27, (void *)&k));
    tu_same_as("apply_ int64", i, (const double[]){2, 5, 8}, 1, (int64_t[]){3}, 0);
    ct_tensor *a = f32(2, (int64_t[]){2, 2}, (const double[]){1, 2, 3, 4}),
              *b = f32(1, (int64_t[]){2}, (const double[]){10, 20}), *at = NULL;
    CHECK_OK(ct_tensor_map_(ctx, a, b, add2, NULL));
    tu_same_as("map_", a, (const double[]){11, 22, 13, 24}, 2, (int64_t[]){2, 2}, 0);
    CHECK_OK(ct_tensor_transpose(ctx, a, 0, 1, &at)); /* a strided view is written in place */
    CHECK_OK(ct_tensor_apply_(ctx, at, times_27, (void *)&k));
    tu_same_as("apply_ view", a, (const double[]){29.7f, 59.4f, 35.1f, 64.8f}, 2, (int64_t[]){2, 2},
               1e-6);
    ct_tensor *g = NULL, *y = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT32, 1, (int64_t[]){2}, &g));
    CHECK_OK(ct_tensor_set_requires_grad(g, true));
    CHECK_OK(ct_mul_scalar(ctx, g, 1.0, &y));
    CHECK_ST(ct_tensor_apply_(ctx, y, times_27, (void *)&k), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "Can't call apply_() on Variable that requires grad"));
    CHECK_ST(ct_tensor_apply_(ctx, i, NULL, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_map_(ctx, i, NULL, add2, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(i), ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(at);
    ct_tensor_release(g), ct_tensor_release(y);
}

/* regressions from the differential and code reviews */
TEST(review_regressions) {
    /* an in-place view op bumps the version: a node that saved the tensor refuses (torch) */
    ct_tensor *x = f32(2, (int64_t[]){2, 2}, (const double[]){0, 1, 2, 3}),
              *b = f32(2, (int64_t[]){2, 2}, (const double[]){1, 2, 3, 4}), *y = NULL, *z = NULL,
              *s = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_tensor_set_requires_grad(b, true));
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_mul(ctx, y, b, &z));
    CHECK_OK(ct_t_(ctx, y));
    CHECK_OK(ct_sum(ctx, z, 0, NULL, false, &s));
    CHECK_ST(ct_backward(ctx, s, NULL, false), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "modified by an inplace operation"));
    ct_tensor_release(y), ct_tensor_release(z), ct_tensor_release(s);
    /* under no_grad a leaf keeps requires_grad and .grad (torch) */
    CHECK_OK(ct_mul_scalar(ctx, x, 3, &y));
    CHECK_OK(ct_sum(ctx, y, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    ct_tensor_release(y), ct_tensor_release(s);
    bool was = ct_set_grad_enabled(ctx, false);
    CHECK_OK(ct_t_(ctx, x));
    ct_set_grad_enabled(ctx, was);
    CHECK(ct_tensor_requires_grad(x) && ct_tensor_is_leaf(x) && ct_tensor_grad(x) != NULL);
    /* a tensor with history cannot change its layout under no_grad (its backward would get the
     * old shape's gradient; torch fails there) */
    ct_tensor *hy = NULL;
    CHECK_OK(ct_mul_scalar(ctx, b, 2, &hy));
    was = ct_set_grad_enabled(ctx, false);
    CHECK_ST(ct_t_(ctx, hy), CT_ERR_STATE);
    CHECK_OK(ct_unsqueeze_(ctx, hy, 0)); /* a reshape keeps the gradient's layout */
    ct_set_grad_enabled(ctx, was);
    ct_tensor_release(hy);
    /* a view of a leaf that requires grad is refused (torch) */
    ct_tensor *w = NULL;
    CHECK_OK(ct_tensor_slice(ctx, b, 1, 0, 1, 1, &w));
    CHECK_ST(ct_t_(ctx, w), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "a view of a leaf Variable"));
    ct_tensor_release(w);
    /* detach_ of a tensor made a transpose in place is not a view (torch allows it) */
    CHECK_OK(ct_mul_scalar(ctx, b, 2, &w));
    CHECK_OK(ct_t_(ctx, w));
    CHECK_OK(ct_detach_(ctx, w));
    CHECK(!ct_tensor_requires_grad(w));
    ct_tensor_release(w);
    /* random_ checks the range against a floating dtype (torch: "to - 1 is out of bounds") */
    ct_tensor *h = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT16, 1, (int64_t[]){8}, &h));
    CHECK_ST(ct_tensor_random_(ctx, h, 65000, 70000, 0, 0), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "out of bounds for float16"));
    CHECK_OK(ct_tensor_random_(ctx, h, 0, 2048, 0, 0));
    ct_tensor_release(h);
    /* sum_to_size to t's own shape is t (torch); to () a plain sum */
    CHECK_OK(ct_sum_to_size(ctx, b, 2, (int64_t[]){2, 2}, &y));
    CHECK(y == b);
    ct_tensor_release(y);
    char name[32];
    CHECK_OK(ct_sum_to_size(ctx, b, 0, NULL, &y));
    CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) && !strcmp(name, "SumBackward0"));
    ct_tensor_release(y);
    CHECK_OK(ct_sum_to_size(ctx, b, 1, (int64_t[]){2}, &y));
    CHECK(ct_tensor_grad_fn_name(y, name, sizeof name) && !strcmp(name, "ViewBackward0"));
    ct_tensor_release(y), ct_tensor_release(x), ct_tensor_release(b);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(new_and_as);
    RUN(fill_diagonal);
    RUN(inplace_igamma_and_random);
    RUN(inplace_views);
    RUN(aliases);
    RUN(pad_sequence);
    RUN(native_norms);
    RUN(apply_and_map);
    RUN(review_regressions);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

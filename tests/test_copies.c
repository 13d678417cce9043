/* The *_copy ops (ops.h): each equals its view op's values in a new contiguous tensor that shares
 * no memory with the input (a write to either leaves the other alone), differentiates as the view
 * (the same gradient) under torch 1.13's node name, and fails where the view fails. Then torch
 * names: mm (2-d, one dtype), scalar_tensor, empty_strided, range, igamma / igammac,
 * constant_pad_nd, against torch 1.13's values. */
#include "test_util.h"

#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 11;

/* the view and its copy through one of the op pairs below */
typedef ct_status (*view_fn)(const ct_tensor *t, ct_tensor **out, bool copy);
static const int PERM[3] = {2, 0, 1};
static ct_status f_permute(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_permute_copy(ctx, t, PERM, o) : ct_tensor_permute(ctx, t, PERM, o);
}
static ct_status f_t(const ct_tensor *t, ct_tensor **o, bool c) {
    ct_tensor *m = NULL;
    ct_status st = ct_select(ctx, t, 0, 1, &m);
    if (st == CT_OK) st = c ? ct_t_copy(ctx, m, o) : ct_t(ctx, m, o);
    ct_tensor_release(m);
    return st;
}
static ct_status f_transpose(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_transpose_copy(ctx, t, 0, 2, o) : ct_tensor_transpose(ctx, t, 0, 2, o);
}
static ct_status f_expand(const ct_tensor *t, ct_tensor **o, bool c) {
    const int64_t sh[4] = {2, 2, 3, 4};
    return c ? ct_expand_copy(ctx, t, 4, sh, o) : ct_tensor_expand(ctx, t, 4, sh, o);
}
static ct_status f_narrow(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_narrow_copy(ctx, t, 2, 1, 2, o) : ct_tensor_narrow(ctx, t, 2, 1, 2, o);
}
static ct_status f_select(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_select_copy(ctx, t, -1, 2, o) : ct_select(ctx, t, -1, 2, o);
}
static ct_status f_slice(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_slice_copy(ctx, t, 2, 0, 4, 2, o) : ct_tensor_slice(ctx, t, 2, 0, 4, 2, o);
}
static ct_status f_squeeze(const ct_tensor *t, ct_tensor **o, bool c) {
    ct_tensor *u = NULL;
    ct_status st = ct_tensor_unsqueeze(ctx, t, 1, &u);
    if (st == CT_OK) st = c ? ct_squeeze_copy(ctx, u, 1, o) : ct_tensor_squeeze(ctx, u, 1, o);
    ct_tensor_release(u);
    return st;
}
static ct_status f_unsqueeze(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_unsqueeze_copy(ctx, t, 3, o) : ct_tensor_unsqueeze(ctx, t, 3, o);
}
static ct_status f_view(const ct_tensor *t, ct_tensor **o, bool c) {
    const int64_t sh[2] = {6, 4};
    return c ? ct_view_copy(ctx, t, 2, sh, o) : ct_tensor_view(ctx, t, 2, sh, o);
}
static ct_status f_diagonal(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_diagonal_copy(ctx, t, 1, 1, 2, o) : ct_diagonal(ctx, t, 1, 1, 2, o);
}
static ct_status f_unfold(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_unfold_copy(ctx, t, 2, 2, 1, o) : ct_tensor_unfold(ctx, t, 2, 2, 1, o);
}
static ct_status f_as_strided(const ct_tensor *t, ct_tensor **o, bool c) {
    const int64_t sz[2] = {3, 3}, sd[2] = {4, 1};
    return c ? ct_as_strided_copy(ctx, t, 2, sz, sd, 1, o)
             : ct_tensor_as_strided(ctx, t, 2, sz, sd, 1, o);
}
static ct_status f_alias(const ct_tensor *t, ct_tensor **o, bool c) {
    return c ? ct_alias_copy(ctx, t, o) : ct_tensor_narrow(ctx, t, 0, 0, 2, o);
}
static ct_status f_real(const ct_tensor *t, ct_tensor **o, bool c) {
    ct_tensor *v = NULL, *z = NULL;
    const int64_t sh[4] = {2, 3, 2, 2};
    ct_status st = ct_tensor_view(ctx, t, 4, sh, &v);
    if (st == CT_OK) st = ct_view_as_complex(ctx, v, &z);
    if (st == CT_OK) st = c ? ct_view_as_real_copy(ctx, z, o) : ct_view_as_real(ctx, z, o);
    ct_tensor_release(v), ct_tensor_release(z);
    return st;
}
static ct_status f_complex(const ct_tensor *t, ct_tensor **o, bool c) {
    ct_tensor *v = NULL, *z = NULL;
    const int64_t sh[4] = {2, 3, 2, 2};
    ct_status st = ct_tensor_view(ctx, t, 4, sh, &v);
    if (st == CT_OK) st = c ? ct_view_as_complex_copy(ctx, v, &z) : ct_view_as_complex(ctx, v, &z);
    if (st == CT_OK) st = ct_view_as_real(ctx, z, o); /* compared as real pairs */
    ct_tensor_release(v), ct_tensor_release(z);
    return st;
}
static const struct {
    const char *name;
    view_fn f;
    const char *node; /* torch 1.13's grad_fn of the copy (NULL: not compared) */
} ops[] = {
    {"permute", f_permute, "PermuteBackward0_copy"},
    {"t", f_t, "TBackward0_copy"},
    {"transpose", f_transpose, "TransposeBackward0_copy"},
    {"expand", f_expand, "ExpandBackward0_copy"},
    {"narrow", f_narrow, "NarrowCopyBackward0"},
    {"select", f_select, "SelectBackward0_copy"},
    {"slice", f_slice, "SliceBackward0_copy"},
    {"squeeze", f_squeeze, "SqueezeBackward1_copy"},
    {"unsqueeze", f_unsqueeze, "UnsqueezeBackward0_copy"},
    {"view", f_view, "ViewBackward0_copy"},
    {"diagonal", f_diagonal, "DiagonalBackward0_copy"},
    {"unfold", f_unfold, "UnfoldBackward0_copy"},
    {"as_strided", f_as_strided, "AsStridedBackward0_copy"},
    {"alias", f_alias, "AliasBackward0_copy"},
    {"view_as_real", f_real, "ViewAsRealBackward0_copy"},
    {"view_as_complex", f_complex, NULL},
};

/* sum(w * f(x)) backward: x's gradient (w = 0.5 + i % 7) */
static double *grad_through(view_fn f, bool copy, const ct_tensor *x0, char **node) {
    ct_tensor *x = NULL, *y = NULL, *w = NULL, *yw = NULL, *l = NULL;
    CHECK_OK(ct_tensor_clone(ctx, x0, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(f(x, &y, copy));
    if (node && y) CHECK_OK(ct_tensor_to_string(y, node));
    const int64_t n = y ? ct_tensor_numel(y) : 0;
    double *wv = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t i = 0; i < n; i++)
        wv[i] = 0.5 + (double)(i % 7);
    if (y) w = tu_from_vals(ctx, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), wv);
    free(wv);
    double *g = NULL;
    if (y && w && ct_mul(ctx, y, w, &yw) == CT_OK && ct_sum(ctx, yw, 0, NULL, false, &l) == CT_OK &&
        ct_backward(ctx, l, NULL, false) == CT_OK && ct_tensor_grad(x))
        g = tu_read(ct_tensor_grad(x));
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(w), ct_tensor_release(yw);
    ct_tensor_release(l);
    return g;
}

TEST(copies_equal_views_and_own_memory) {
    const int64_t sh[3] = {2, 3, 4};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT64, 3, sh, 0, -2, 2, NULL);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        ct_tensor *v = NULL, *c = NULL;
        CHECK_OK(ops[k].f(x, &v, false));
        CHECK_OK(ops[k].f(x, &c, true));
        if (!v || !c) continue;
        CHECK_MSG(tu_same_shape(c, ct_tensor_ndim(v), ct_tensor_shape(v)) && tu_same_values(v, c),
                  "%s_copy differs from the view", ops[k].name);
        CHECK_MSG(ct_tensor_is_contiguous(c), "%s_copy is not contiguous", ops[k].name);
        /* a write to the copy leaves x alone */
        double *before = tu_read(x);
        if (strcmp(ops[k].name, "view_as_complex")) CHECK_OK(ct_tensor_fill_(ctx, c, 7.0));
        double *after = tu_read(x);
        CHECK_MSG(memcmp(before, after, sizeof(double) * 24) == 0, "%s_copy shares memory",
                  ops[k].name);
        free(before), free(after);
        ct_tensor_release(v), ct_tensor_release(c);
        /* gradients: the view's, under torch's node name */
        char *node = NULL;
        double *gv = grad_through(ops[k].f, false, x, NULL);
        double *gc = grad_through(ops[k].f, true, x, &node);
        CHECK_MSG(gv && gc && memcmp(gv, gc, sizeof(double) * 24) == 0,
                  "%s_copy: gradient differs from the view's", ops[k].name);
        if (ops[k].node && node) {
            char want[80];
            snprintf(want, sizeof want, "grad_fn=<%s>", ops[k].node);
            CHECK_MSG(strstr(node, want) != NULL, "%s_copy: %s, torch %s", ops[k].name,
                      strrchr(node, ','), want);
        }
        free(gv), free(gc), free(node);
    }
    /* detach_copy: the values without history */
    ct_tensor *xg = NULL, *d = NULL;
    CHECK_OK(ct_tensor_clone(ctx, x, &xg));
    CHECK_OK(ct_tensor_set_requires_grad(xg, true));
    CHECK_OK(ct_detach_copy(ctx, xg, &d));
    CHECK(d && !ct_tensor_requires_grad(d) && tu_same_values(d, x));
    ct_tensor_release(xg), ct_tensor_release(d);
    /* the multi-output copies */
    ct_tensor *outs[4] = {NULL}, *views[4] = {NULL};
    int n = 0, nv = 0;
    CHECK_OK(ct_split_copy(ctx, x, 3, 2, 4, outs, &n));
    CHECK_OK(ct_split(ctx, x, 3, 2, 4, views, &nv));
    CHECK(n == 2 && nv == 2);
    for (int i = 0; i < n && i < nv; i++) {
        CHECK(tu_same_values(outs[i], views[i]) && ct_tensor_is_contiguous(outs[i]));
        ct_tensor_release(outs[i]), ct_tensor_release(views[i]);
        outs[i] = views[i] = NULL;
    }
    const int64_t sizes[3] = {1, 2, 1};
    CHECK_OK(ct_split_with_sizes_copy(ctx, x, 3, sizes, -1, outs));
    CHECK_OK(ct_split_sizes(ctx, x, 3, sizes, -1, views));
    for (int i = 0; i < 3; i++) {
        CHECK(outs[i] && views[i] && tu_same_values(outs[i], views[i]));
        ct_tensor_release(outs[i]), ct_tensor_release(views[i]);
        outs[i] = views[i] = NULL;
    }
    CHECK_OK(ct_unbind_copy(ctx, x, 1, 4, outs, &n));
    CHECK_OK(ct_unbind(ctx, x, 1, 4, views, &nv));
    CHECK(n == 3 && nv == 3);
    for (int i = 0; i < 3; i++) {
        CHECK(outs[i] && views[i] && tu_same_values(outs[i], views[i]));
        ct_tensor_release(outs[i]), ct_tensor_release(views[i]);
    }
    ct_tensor_release(x);
}

/* the copies fail where the views fail, with nothing returned */
TEST(copies_fail_as_views) {
    const int64_t sh[2] = {2, 3}, bad[2] = {4, 4};
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 2, sh, 0, -2, 2, NULL), *o = NULL;
    CHECK(ct_narrow_copy(ctx, x, 1, 2, 5, &o) != CT_OK && o == NULL);
    CHECK(ct_select_copy(ctx, x, 2, 0, &o) != CT_OK && o == NULL);
    CHECK(ct_view_copy(ctx, x, 2, bad, &o) != CT_OK && o == NULL);
    CHECK(ct_expand_copy(ctx, x, 2, bad, &o) != CT_OK && o == NULL);
    CHECK(ct_view_as_complex_copy(ctx, x, &o) != CT_OK && o == NULL);
    CHECK(ct_permute_copy(ctx, x, (const int[]){0, 0}, &o) != CT_OK && o == NULL);
    CHECK_ST(ct_t_copy(ctx, NULL, &o), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_t_copy(ctx, x, NULL), CT_ERR_INVALID_ARG);
    ct_tensor *outs[1] = {NULL};
    int n = 0;
    CHECK(ct_split_copy(ctx, x, 0, 1, 1, outs, &n) != CT_OK);
    ct_tensor_release(x);
}

TEST(torch_names) {
    /* mm */
    const int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s3[1] = {3};
    ct_tensor *a = tu_from_vals(ctx, CT_FLOAT64, 2, s23, (const double[]){1, 2, 3, 4, 5, 6});
    ct_tensor *b = tu_from_vals(ctx, CT_FLOAT64, 2, s32, (const double[]){1, 0, 0, 1, 2, -1});
    ct_tensor *v = tu_from_vals(ctx, CT_FLOAT64, 1, s3, (const double[]){1, 1, 1});
    ct_tensor *bf = NULL, *o = NULL;
    CHECK_OK(ct_mm(ctx, a, b, &o));
    tu_same_as("mm", o, (const double[]){7, -1, 16, -1}, 2, (const int64_t[]){2, 2}, 0);
    ct_tensor_release(o), o = NULL;
    CHECK_ST(ct_mm(ctx, a, v, &o), CT_ERR_SHAPE); /* mat2 must be a matrix */
    CHECK_ST(ct_mm(ctx, a, a, &o), CT_ERR_SHAPE); /* 2x3 and 2x3 */
    CHECK_OK(ct_cast(ctx, b, CT_FLOAT32, &bf));
    CHECK_ST(ct_mm(ctx, a, bf, &o), CT_ERR_DTYPE); /* torch: expected Double but found Float */
    CHECK(o == NULL);
    /* scalar_tensor */
    CHECK_OK(ct_scalar_tensor(ctx, 3, CT_FLOAT32, &o));
    CHECK(o && ct_tensor_ndim(o) == 0 && ct_tensor_dtype(o) == CT_FLOAT32);
    tu_same_as("scalar_tensor", o, (const double[]){3}, 0, NULL, 0);
    ct_tensor_release(o), o = NULL;
    /* empty_strided: torch's strides, zero-filled memory */
    CHECK_OK(ct_tensor_empty_strided(ctx, CT_FLOAT32, 2, s23, (const int64_t[]){1, 2}, &o));
    CHECK(o && ct_tensor_stride(o)[0] == 1 && ct_tensor_stride(o)[1] == 2);
    ct_tensor_release(o), o = NULL;
    CHECK_ST(ct_tensor_empty_strided(ctx, CT_FLOAT32, 2, s23, (const int64_t[]){-1, 1}, &o),
             CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_empty_strided(ctx, CT_FLOAT32, 2, (const int64_t[]){0, 3},
                                     (const int64_t[]){3, 1}, &o));
    CHECK(o && ct_tensor_numel(o) == 0);
    ct_tensor_release(o), o = NULL;
    CHECK_ST(ct_tensor_empty_strided(ctx, CT_FLOAT32, 2, (const int64_t[]){1LL << 40, 1LL << 40},
                                     (const int64_t[]){1LL << 40, 1}, &o),
             CT_ERR_OVERFLOW);
    /* range: torch 1.13's values */
    CHECK_OK(ct_tensor_range(ctx, CT_FLOAT32, 0, 1, 0.1, &o));
    tu_same_as("range f32", o,
               (const double[]){0.0, 0.10000000149011612, 0.20000000298023224, 0.30000001192092896,
                                0.4000000059604645, 0.5, 0.6000000238418579, 0.699999988079071,
                                0.800000011920929, 0.8999999761581421, 1.0},
               1, (const int64_t[]){11}, 0);
    ct_tensor_release(o), o = NULL;
    CHECK_OK(ct_tensor_range(ctx, CT_FLOAT64, -1, -2, -0.25, &o));
    tu_same_as("range f64", o, (const double[]){-1, -1.25, -1.5, -1.75, -2}, 1,
               (const int64_t[]){5}, 0);
    ct_tensor_release(o), o = NULL;
    CHECK_OK(ct_tensor_range(ctx, CT_INT32, 0, 2.5, 1, &o));
    tu_same_as("range int32", o, (const double[]){0, 1, 2}, 1, (const int64_t[]){3}, 0);
    ct_tensor_release(o), o = NULL;
    CHECK_ST(ct_tensor_range(ctx, CT_FLOAT32, 0, 1, -1, &o), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_range(ctx, CT_FLOAT32, 0, 1, 0, &o), CT_ERR_INVALID_ARG);
    /* igamma / igammac */
    ct_tensor *ga = tu_from_vals(ctx, CT_FLOAT64, 1, s3, (const double[]){1, 2.5, 0.5});
    ct_tensor *gx = tu_from_vals(ctx, CT_FLOAT64, 1, s3, (const double[]){2, 1, 3});
    CHECK_OK(ct_igamma(ctx, ga, gx, &o));
    tu_same_as("igamma", o,
               (const double[]){0.8646647167633873, 0.15085496391539038, 0.9856941215645704}, 1, s3,
               1e-15);
    ct_tensor_release(o), o = NULL;
    CHECK_OK(ct_igammac(ctx, ga, gx, &o));
    tu_same_as("igammac", o,
               (const double[]){0.1353352832366127, 0.8491450360846096, 0.014305878435429645}, 1,
               s3, 1e-14);
    ct_tensor_release(o), o = NULL;
    /* constant_pad_nd: pad the last dim by (1, 2) with 9, crop the first by (0, -1) */
    CHECK_OK(ct_constant_pad_nd(ctx, a, 4, (const int64_t[]){1, 2, 0, -1}, 9, &o));
    tu_same_as("constant_pad_nd", o, (const double[]){9, 1, 2, 3, 9, 9}, 2, (const int64_t[]){1, 6},
               0);
    ct_tensor_release(o), o = NULL;
    /* from a review against torch: integer range truncates its arguments first */
    CHECK_OK(ct_tensor_range(ctx, CT_INT32, 0.1, 77.6, 2.5, &o)); /* 0, 77, 2: 39 values */
    CHECK(o && ct_tensor_numel(o) == 39);
    if (o) {
        double *rv = tu_read(o);
        CHECK(rv && rv[1] == 2 && rv[38] == 76);
        free(rv);
    }
    ct_tensor_release(o), o = NULL;
    CHECK_ST(ct_tensor_range(ctx, CT_UINT8, 0, 2.6, 0.2, &o), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_range(ctx, CT_INT64, -1.316, -1.33, 1, &o));
    CHECK(o && ct_tensor_numel(o) == 1);
    ct_tensor_release(o), o = NULL;
    /* view_copy of a non-viewable shape copies (torch's reshape) */
    ct_tensor *at = NULL;
    CHECK_OK(ct_t(ctx, a, &at));
    CHECK_OK(ct_view_copy(ctx, at, 1, (const int64_t[]){-1}, &o));
    tu_same_as("view_copy of a transpose", o, (const double[]){1, 4, 2, 5, 3, 6}, 1,
               (const int64_t[]){6}, 0);
    ct_tensor_release(o), ct_tensor_release(at), o = NULL;
    /* igamma's special cases in torch's order, NaN included */
    ct_tensor *na = tu_from_vals(ctx, CT_FLOAT64, 1, s3, (const double[]){NAN, NAN, INFINITY});
    ct_tensor *nx = tu_from_vals(ctx, CT_FLOAT64, 1, s3, (const double[]){0, INFINITY, NAN});
    CHECK_OK(ct_igamma(ctx, na, nx, &o));
    tu_same_as("igamma NaN cases", o, (const double[]){0, 1, 0}, 1, s3, 0);
    ct_tensor_release(o), o = NULL;
    CHECK_OK(ct_igammac(ctx, na, nx, &o));
    tu_same_as("igammac NaN cases", o, (const double[]){1, 0, 1}, 1, s3, 0);
    ct_tensor_release(o), ct_tensor_release(na), ct_tensor_release(nx), o = NULL;
    /* constant_pad_nd crops first: (2, -4) of 3 elements is refused */
    CHECK_ST(ct_constant_pad_nd(ctx, v, 2, (const int64_t[]){2, -4}, 0, &o), CT_ERR_INVALID_ARG);
    /* complex split / as_strided / empty_strided */
    ct_tensor *z = NULL, *parts[2] = {NULL, NULL};
    int np = 0;
    CHECK_OK(ct_tensor_zeros(ctx, CT_COMPLEX64, 1, (const int64_t[]){4}, &z));
    CHECK_OK(ct_split_copy(ctx, z, 2, 0, 2, parts, &np));
    CHECK(np == 2 && parts[1] && ct_tensor_dtype(parts[1]) == CT_COMPLEX64);
    ct_tensor_release(parts[0]), ct_tensor_release(parts[1]);
    CHECK_OK(ct_as_strided_copy(ctx, z, 1, (const int64_t[]){2}, (const int64_t[]){2}, 0, &o));
    CHECK(o && ct_tensor_numel(o) == 2);
    ct_tensor_release(o), o = NULL;
    CHECK_OK(ct_tensor_empty_strided(ctx, CT_COMPLEX128, 2, (const int64_t[]){2, 2},
                                     (const int64_t[]){1, 2}, &o));
    CHECK(o && ct_tensor_dtype(o) == CT_COMPLEX128);
    ct_tensor_release(z);
    ct_tensor *all[] = {a, b, v, bf, o, ga, gx};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(copies_equal_views_and_own_memory);
    RUN(copies_fail_as_views);
    RUN(torch_names);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

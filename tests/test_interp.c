/* ct_interpolate against torch 1.13's F.interpolate outputs (printed with 17 digits, f64) for
 * nearest, nearest-exact and (bi)linear with align_corners both ways, up- and downsampling, 1-d
 * and 2-d; f32 and strided inputs against the f64 result; gradients; errors; replay. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 9;

/* x = arange(15).reshape(1, 1, 3, 5) * 1.5 - 4 */
static const struct {
    ct_interp_mode mode;
    bool align;
    int64_t size[2];
    double want[16];
} cases2d[] = {
    {CT_INTERP_NEAREST,
     false,
     {5, 3},
     {-4, -2.5, 0.5, -4, -2.5, 0.5, 3.5, 5, 8, 3.5, 5, 8, 11, 12.5, 15.5}},
    {CT_INTERP_NEAREST,
     false,
     {2, 7},
     {-4, -4, -2.5, -1, -1, 0.5, 2, 3.5, 3.5, 5, 6.5, 6.5, 8, 9.5}},
    {CT_INTERP_NEAREST_EXACT,
     false,
     {5, 3},
     {-4, -1, 2, -4, -1, 2, 3.5, 6.5, 9.5, 11, 14, 17, 11, 14, 17}},
    {CT_INTERP_NEAREST_EXACT,
     false,
     {2, 7},
     {-4, -2.5, -2.5, -1, 0.5, 0.5, 2, 11, 12.5, 12.5, 14, 15.5, 15.5, 17}},
    {CT_INTERP_LINEAR,
     false,
     {5, 3},
     {-3.5, -1, 1.5000000000000004, -0.50000000000000033, 1.9999999999999998, 4.5, 4, 6.5, 9, 8.5,
      11, 13.5, 11.5, 14, 16.5}},
    {CT_INTERP_LINEAR,
     false,
     {2, 7},
     {-2.125, -1.267857142857143, -0.19642857142857115, 0.875, 1.9464285714285716,
      3.0178571428571432, 3.875, 9.125, 9.9821428571428577, 11.053571428571429, 12.125,
      13.196428571428571, 14.267857142857142, 15.125}},
    {CT_INTERP_LINEAR,
     true,
     {5, 3},
     {-4, -1, 2, -0.25, 2.75, 5.75, 3.5, 6.5, 9.5, 7.25, 10.25, 13.25, 11, 14, 17}},
    {CT_INTERP_LINEAR,
     true,
     {2, 7},
     {-4, -3, -2, -1, -2.2204460492503131e-16, 0.99999999999999956, 2, 11, 12, 13, 14, 15, 16, 17}},
    {CT_INTERP_LINEAR, true, {1, 1}, {-4}},
};

/* x = arange(15).reshape(1, 1, 3, 5) * 1.5 - 4, the input of cases2d and cases_sf. */
static ct_tensor *torch_input(void) {
    double xv[15];
    for (int i = 0; i < 15; i++)
        xv[i] = i * 1.5 - 4;
    int64_t s[4] = {1, 1, 3, 5};
    ct_tensor *x = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, 4, s, &x));
    return x;
}

/* y must have shape [1, 1, h, w] and match want to 1e-12; releases y. */
static void check_table(ct_tensor *y, int64_t h, int64_t w, const double *want, const char *tag,
                        size_t c) {
    int64_t os[4] = {1, 1, h, w};
    CHECK_MSG(y && tu_same_shape(y, 4, os), "%s case %zu: shape", tag, c);
    double *g = y ? tu_read(y) : NULL;
    for (int64_t i = 0; g && i < h * w; i++)
        CHECK_MSG(fabs(g[i] - want[i]) <= 1e-12, "%s case %zu [%lld]: %.17g vs %.17g", tag, c,
                  (long long)i, g[i], want[i]);
    free(g);
    ct_tensor_release(y);
}

TEST(torch_tables) {
    ct_tensor *x = torch_input();
    for (size_t c = 0; c < sizeof cases2d / sizeof cases2d[0]; c++) {
        ct_tensor *y = NULL;
        CHECK_OK(ct_interpolate(ctx, x, 2, cases2d[c].size, cases2d[c].mode, cases2d[c].align, &y));
        check_table(y, cases2d[c].size[0], cases2d[c].size[1], cases2d[c].want, "size", c);
    }
    ct_tensor_release(x);
    /* 1-d: [1, 4, -2, 8] to 7 */
    double v1[4] = {1, 4, -2, 8};
    const double lin[7] = {1, 2.0714285714285712,  3.7857142857142856,
                           1, -1.2857142857142883, 4.4285714285714279,
                           8},
                 lin_ac[7] = {1, 2.5, 4, 1, -2, 3, 8}, near[7] = {1, 1, 4, 4, -2, -2, 8};
    int64_t s1[3] = {1, 1, 4}, seven = 7;
    CHECK_OK(ct_tensor_from_host(ctx, v1, CT_FLOAT64, 3, s1, &x));
    const double *w[3] = {lin, lin_ac, near};
    for (int k = 0; k < 3; k++) {
        ct_tensor *y = NULL;
        CHECK_OK(ct_interpolate(ctx, x, 1, &seven, k == 2 ? CT_INTERP_NEAREST : CT_INTERP_LINEAR,
                                k == 1, &y));
        double *g = tu_read(y);
        for (int i = 0; i < 7; i++)
            CHECK_MSG(fabs(g[i] - w[k][i]) <= 1e-12, "1-d case %d [%d]: %.17g vs %.17g", k, i, g[i],
                      w[k][i]);
        free(g);
        ct_tensor_release(y);
    }
    ct_tensor_release(x);
}

/* by scale factor, against torch 1.13 (x as in torch_tables) */
static const struct {
    ct_interp_mode mode;
    bool align, recompute;
    double sf[2];
    int64_t out[2];
    double want[42];
} cases_sf[] = {
    {CT_INTERP_NEAREST,
     false,
     false,
     {1.7, 0.6},
     {5, 3},
     {-4, -2.5, 0.5, -4, -2.5, 0.5, 3.5, 5, 8, 3.5, 5, 8, 11, 12.5, 15.5}},
    {CT_INTERP_LINEAR,
     false,
     false,
     {1.7, 0.6},
     {5, 3},
     {-3.5, -1, 1.5000000000000004, -0.63235294117647045, 1.8676470588235297, 4.3676470588235308,
      3.7794117647058831, 6.2794117647058831, 8.779411764705884, 8.1911764705882355,
      10.691176470588236, 13.191176470588236, 11.5, 14, 16.5}},
    {CT_INTERP_LINEAR,
     false,
     true,
     {1.7, 0.6},
     {5, 3},
     {-3.5, -1, 1.5000000000000004, -0.50000000000000033, 1.9999999999999998, 4.5, 4, 6.5, 9, 8.5,
      11, 13.5, 11.5, 14, 16.5}},
    {CT_INTERP_NEAREST_EXACT,
     false,
     false,
     {2.5, 1.3},
     {7, 6},
     {-4, -2.5, -2.5, -1,   0.5,  2,  -4,   -2.5, -2.5, -1,   0.5,  2,  3.5,  5,
      5,  6.5,  8,    9.5,  3.5,  5,  5,    6.5,  8,    9.5,  3.5,  5,  5,    6.5,
      8,  9.5,  11,   12.5, 12.5, 14, 15.5, 17,   11,   12.5, 12.5, 14, 15.5, 17}},
    {CT_INTERP_NEAREST_EXACT,
     false,
     true,
     {2.5, 1.3},
     {7, 6},
     {-4,  -2.5, -1, -1,   0.5, 2,  -4,   -2.5, -1, -1,   0.5, 2,  3.5,  5,
      6.5, 6.5,  8,  9.5,  3.5, 5,  6.5,  6.5,  8,  9.5,  3.5, 5,  6.5,  6.5,
      8,   9.5,  11, 12.5, 14,  14, 15.5, 17,   11, 12.5, 14,  14, 15.5, 17}},
};

TEST(torch_tables_by_scale) {
    ct_tensor *x = torch_input();
    for (size_t c = 0; c < sizeof cases_sf / sizeof cases_sf[0]; c++) {
        ct_tensor *y = NULL;
        CHECK_OK(ct_interpolate_scale(ctx, x, 2, cases_sf[c].sf, cases_sf[c].mode,
                                      cases_sf[c].align, cases_sf[c].recompute, &y));
        check_table(y, cases_sf[c].out[0], cases_sf[c].out[1], cases_sf[c].want, "sf", c);
    }
    ct_tensor *y = NULL;
    CHECK_ST(
        ct_interpolate_scale(ctx, x, 2, (double[]){0.2, 1}, CT_INTERP_NEAREST, false, false, &y),
        CT_ERR_SHAPE); /* floor(3 * 0.2) = 0 rows */
    CHECK_ST(ct_interpolate_scale(ctx, x, 2, NULL, CT_INTERP_NEAREST, false, false, &y),
             CT_ERR_SHAPE);
    ct_tensor_release(x);
}

TEST(strided_f32_and_errors) {
    int64_t s[4] = {2, 3, 5, 6}, sz[2] = {7, 4};
    double *v;
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 4, s, 1, -1, 1, &v), *x64 = NULL, *y = NULL,
              *y64 = NULL;
    CHECK_OK(ct_cast(ctx, x, CT_FLOAT64, &x64));
    CHECK_OK(ct_interpolate(ctx, x, 2, sz, CT_INTERP_LINEAR, false, &y));
    CHECK_OK(ct_interpolate(ctx, x64, 2, sz, CT_INTERP_LINEAR, false, &y64));
    CHECK(ct_tensor_dtype(y) == CT_FLOAT32);
    double *a = tu_read(y), *b = tu_read(y64);
    for (int i = 0; i < 2 * 3 * 7 * 4; i++)
        CHECK(fabs(a[i] - b[i]) < 1e-6);
    free(a), free(b), free(v);
    ct_tensor_release(y), ct_tensor_release(y64), ct_tensor_release(x64);
    CHECK_ST(ct_interpolate(ctx, x, 1, sz, CT_INTERP_LINEAR, false, &y), CT_ERR_SHAPE);
    CHECK_ST(ct_interpolate(ctx, x, 2, sz, CT_INTERP_NEAREST, true, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "align_corners") != NULL);
    int64_t bad[2] = {0, 3};
    CHECK_ST(ct_interpolate(ctx, x, 2, bad, CT_INTERP_NEAREST, false, &y), CT_ERR_SHAPE);
    ct_tensor_release(x);
    { /* torch: no channels is an error, an empty batch is not */
        ct_tensor *e = NULL;
        int64_t ok2[2] = {3, 4};
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, (int64_t[]){1, 0, 2, 2}, &e));
        CHECK_ST(ct_interpolate(ctx, e, 2, ok2, CT_INTERP_LINEAR, false, &y), CT_ERR_SHAPE);
        ct_tensor_release(e);
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 4, (int64_t[]){0, 1, 2, 2}, &e));
        CHECK_OK(ct_interpolate(ctx, e, 2, ok2, CT_INTERP_LINEAR, false, &y));
        CHECK(tu_same_shape(y, 4, (int64_t[]){0, 1, 3, 4}));
        ct_tensor_release(y), ct_tensor_release(e);
    }
    int32_t iv[4] = {1, 2, 3, 4};
    int64_t s1[3] = {1, 1, 4}, three = 3;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 3, s1, &x));
    CHECK_ST(ct_interpolate(ctx, x, 1, &three, CT_INTERP_LINEAR, false, &y), CT_ERR_DTYPE);
    CHECK_OK(ct_interpolate(ctx, x, 1, &three, CT_INTERP_NEAREST, false, &y)); /* ints: nearest */
    ct_tensor_release(y), ct_tensor_release(x);
}

static ct_status f_bilinear(const ct_tensor *x, ct_tensor **y) {
    int64_t sz[2] = {5, 2};
    return ct_interpolate(ctx, x, 2, sz, CT_INTERP_LINEAR, false, y);
}
static ct_status f_nearest(const ct_tensor *x, ct_tensor **y) {
    int64_t sz[2] = {4, 6};
    return ct_interpolate(ctx, x, 2, sz, CT_INTERP_NEAREST_EXACT, false, y);
}
TEST(gradients_and_replay) {
    int64_t s[4] = {1, 2, 3, 4};
    tu_gradcheck(ctx, &rng, "bilinear", f_bilinear, 4, s);
    tu_gradcheck(ctx, &rng, "nearest-exact", f_nearest, 4, s);
    /* the channels-last kernel: C == 1, and H == W == 1 with vector and tail channels */
    int64_t s1[4] = {2, 1, 3, 4}, s9[4] = {1, 9, 1, 1};
    tu_gradcheck(ctx, &rng, "bilinear C == 1", f_bilinear, 4, s1);
    tu_gradcheck(ctx, &rng, "bilinear H == W == 1", f_bilinear, 4, s9);
    ct_tensor *x = tu_make(ctx, &rng, CT_FLOAT32, 4, s, 0, -1, 1, NULL), *o[2] = {NULL, NULL};
    for (int cap = 0; cap < 2; cap++) {
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        if (cap) CHECK_OK(ct_graph_capture_begin(g, NULL));
        CHECK_OK(f_bilinear(x, &o[cap]));
        if (cap) {
            CHECK_OK(ct_graph_capture_end(g));
            CHECK_OK(ct_graph_replay(g));
        }
        ct_graph_free(g);
    }
    CHECK(tu_same_values(o[0], o[1]));
    ct_tensor_release(o[0]), ct_tensor_release(o[1]), ct_tensor_release(x);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(torch_tables);
    RUN(torch_tables_by_scale);
    RUN(strided_f32_and_errors);
    RUN(gradients_and_replay);
    ct_ctx_free(ctx);
    return ct_test_end();
}

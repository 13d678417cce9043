/* Volumetric (3-d) layers as a PyTorch user writes them for video or medical volumes: conv3d with a
 * box kernel (each output the sum of its 2x2x2 block), conv_transpose3d spreading each voxel into
 * a block, max_pool3d with its flat indices and max_unpool3d putting the maxima back, avg_pool3d,
 * adaptive_avg_pool3d / adaptive_max_pool3d down to one value, and trilinear / area interpolation,
 * each checked against values worked out by hand. Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[32];
static int npool;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define SHP(...)                                                                                   \
    (const int64_t[]) { __VA_ARGS__ }
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 32) ct_tensor_release(t);
    return t && npool < 32 ? (pool[npool++] = t) : NULL;
}
/* print t (at most 8 values) and compare with want */
static int show(const char *label, const ct_tensor *t, int n, const double *want) {
    double v[8] = {0};
    ct_tensor *c = NULL;
    int bad = !t || ct_tensor_numel(t) != n || n > 8 || ct_cast(ctx, t, CT_FLOAT64, &c) != CT_OK ||
              ct_tensor_to_host(c, v, sizeof(double) * (size_t)n) != CT_OK;
    ct_tensor_release(c);
    printf("%-24s [", label);
    for (int i = 0; i < n && !bad; i++) {
        printf("%s%g", i ? " " : "", v[i]);
        bad |= fabs(v[i] - want[i]) > 1e-12 * (1 + fabs(want[i]));
    }
    printf("]%s\n", bad ? " (expected a different value)" : "");
    return bad;
}
#define EXPECT(label, t, ...)                                                                      \
    do {                                                                                           \
        const double w_[] = {__VA_ARGS__};                                                         \
        if (show(label, t, (int)(sizeof w_ / sizeof w_[0]), w_)) goto fail;                        \
    } while (0)

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    /* a (1, 1, 2, 2, 4) volume holding 0 .. 15 */
    ct_tensor *r = NULL, *x = NULL, *v = NULL, *box = NULL, *idx = NULL;
    CHECK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 16, 1, &r));
    keep(r);
    CHECK(ct_tensor_reshape(ctx, r, 5, SHP(1, 1, 2, 2, 4), &x));
    keep(x);
    CHECK(ct_tensor_ones(ctx, CT_FLOAT64, 5, SHP(1, 1, 2, 2, 2), &box));
    keep(box);
    const int64_t one[3] = {1, 1, 1}, zero[3] = {0, 0, 0}, two[3] = {2, 2, 2};
    /* blocks {0,1,4,5,8,9,12,13} and {2,3,6,7,10,11,14,15}: stride 2 gives two outputs */
    CHECK(ct_conv3d(ctx, x, box, NULL, two, zero, one, 1, &v));
    EXPECT("conv3d (box 2x2x2)", keep(v), 52, 68);
    ct_tensor *up = NULL, *first4 = NULL;
    CHECK(ct_conv_transpose3d(ctx, v, box, NULL, two, zero, zero, 1, one, &up));
    keep(up);
    CHECK(ct_tensor_reshape(ctx, up, 1, SHP(16), &r));
    keep(r);
    CHECK(ct_tensor_narrow(ctx, r, 0, 0, 4, &first4)); /* row 0: 52 52 from block 1, 68 68 */
    EXPECT("conv_transpose3d [0..3]", keep(first4), 52, 52, 68, 68);
    CHECK(ct_max_pool3d(ctx, x, two, NULL, NULL, NULL, false, &v, &idx));
    keep(idx);
    EXPECT("max_pool3d", keep(v), 13, 15);
    EXPECT("max_pool3d indices", idx, 13, 15);
    CHECK(ct_max_unpool3d(ctx, v, idx, two, NULL, NULL, NULL, &r));
    keep(r);
    ct_tensor *flat = NULL, *tail = NULL;
    CHECK(ct_tensor_reshape(ctx, r, 1, SHP(16), &flat));
    keep(flat);
    CHECK(ct_tensor_narrow(ctx, flat, 0, 12, 4, &tail));
    EXPECT("max_unpool3d [12..15]", keep(tail), 0, 13, 0, 15);
    CHECK(ct_avg_pool3d(ctx, x, two, NULL, NULL, false, true, 0, &v));
    EXPECT("avg_pool3d", keep(v), 6.5, 8.5);
    CHECK(ct_adaptive_avg_pool3d(ctx, x, one, &v));
    EXPECT("adaptive_avg_pool3d", keep(v), 7.5);
    CHECK(ct_adaptive_max_pool3d(ctx, x, one, &v, &idx));
    keep(idx);
    EXPECT("adaptive_max_pool3d", keep(v), 15);
    EXPECT("its index", idx, 15);
    /* trilinear to depth 3 (align_corners): the middle slice is the two slices' mean; 'area' to
     * one voxel is the mean */
    CHECK(ct_interpolate(ctx, x, 3, SHP(3, 2, 4), CT_INTERP_LINEAR, true, &v));
    ct_tensor *mid = NULL, *flatv = NULL;
    CHECK(ct_tensor_reshape(ctx, keep(v), 1, SHP(24), &flatv));
    keep(flatv);
    CHECK(ct_tensor_narrow(ctx, flatv, 0, 8, 2, &mid));
    EXPECT("trilinear middle [0, 1]", keep(mid), 4, 5);
    CHECK(ct_interpolate(ctx, x, 3, one, CT_INTERP_AREA, false, &v));
    EXPECT("interpolate area", keep(v), 7.5);
    /* fractional max pooling of the 2 x 4 slice 0 .. 7 with 2 x 2 windows to 1 x 2: the windows
     * start at columns 0 and 2 whatever the samples, so the maxima are 5 and 7 */
    ct_tensor *img = NULL, *smp = NULL;
    CHECK(ct_tensor_arange(ctx, CT_FLOAT64, 0, 8, 1, &r));
    keep(r);
    CHECK(ct_tensor_reshape(ctx, r, 4, SHP(1, 1, 2, 4), &img));
    keep(img);
    CHECK(ct_tensor_full(ctx, CT_FLOAT64, 3, SHP(1, 1, 2), 0.25, &smp));
    keep(smp);
    CHECK(ct_fractional_max_pool2d(ctx, img, SHP(2, 2), SHP(1, 2), NULL, smp, 0, &v, &idx));
    keep(idx);
    EXPECT("fractional_max_pool2d", keep(v), 5, 7);
    EXPECT("fractional_max_pool2d indices", idx, 5, 7);
    /* the volume with 1 x 1 x 2 windows to 1 x 1 x 2, samples drawn (seed 7): the windows sit at
     * t = 1, h = 1 and w = 0, 2 for any sample, so the maxima are 13 and 15 */
    CHECK(ct_fractional_max_pool3d(ctx, x, SHP(1, 1, 2), SHP(1, 1, 2), NULL, NULL, 7, &v, &idx));
    keep(idx);
    EXPECT("fractional_max_pool3d", keep(v), 13, 15);
    printf("all volumetric checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

/* Tensor methods and torch aliases (include/ctorch/methods.h): new_* constructors, the *_as
 * helpers, sum_to_size, fill_diagonal_, random in-place fills, the in-place view ops and the
 * aliases (split_with_sizes, unsafe_split, upsample, the *_with_indices pools). */
#include <ctorch/ctorch.h>
#include <stdio.h>

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            printf("failed: %s (%s)\n", #c, ct_ctx_last_error(ctx));                               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
#define REL(t) (ct_tensor_release(t), (t) = NULL)

static double halve(double v, void *user) {
    (void)user;
    return v / 2;
}
static double plus(double a, double b, void *user) {
    (void)user;
    return a + b;
}

int main(void) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    const float av[6] = {0, 1, 2, 3, 4, 5};
    ct_tensor *a = NULL, *o = NULL, *o2 = NULL, *idx = NULL, *parts[3] = {NULL};
    CHECK(ct_tensor_from_host(ctx, av, CT_FLOAT32, 2, (int64_t[]){2, 3}, &a) == CT_OK);

    /* new_* keep a's dtype; the *_as helpers take another tensor's shape or dtype */
    CHECK(ct_new_empty(ctx, a, 1, (int64_t[]){4}, &o) == CT_OK);
    REL(o);
    CHECK(ct_new_zeros(ctx, a, 1, (int64_t[]){4}, &o) == CT_OK);
    REL(o);
    CHECK(ct_new_ones(ctx, a, 1, (int64_t[]){4}, &o) == CT_OK);
    CHECK(ct_new_full(ctx, a, 1, (int64_t[]){6}, 7.0, &o2) == CT_OK);
    CHECK(ct_tensor_dtype(o2) == CT_FLOAT32 && ct_tensor_element_size(o2) == 4);
    REL(o);
    CHECK(ct_reshape_as(ctx, a, o2, &o) == CT_OK && ct_tensor_ndim(o) == 1);
    REL(o);
    CHECK(ct_view_as(ctx, a, o2, &o) == CT_OK);
    REL(o), REL(o2);
    CHECK(ct_tensor_ones(ctx, CT_INT64, 2, (int64_t[]){1, 3}, &o2) == CT_OK);
    CHECK(ct_expand_as(ctx, o2, a, &o) == CT_OK && ct_tensor_shape(o)[0] == 2);
    REL(o);
    CHECK(ct_type_as(ctx, a, o2, &o) == CT_OK && ct_tensor_dtype(o) == CT_INT64);
    REL(o), REL(o2);
    float s[3];
    CHECK(ct_sum_to_size(ctx, a, 2, (int64_t[]){1, 3}, &o) == CT_OK);
    CHECK(ct_tensor_to_host(o, s, sizeof s) == CT_OK);
    printf("sum_to_size (1, 3): %g %g %g\n", s[0], s[1], s[2]);
    CHECK(s[0] == 3 && s[1] == 5 && s[2] == 7);
    REL(o);

    /* in-place writes */
    float d[9];
    CHECK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){3, 3}, &o) == CT_OK);
    CHECK(ct_fill_diagonal_(ctx, o, 5.0, false) == CT_OK);
    CHECK(ct_tensor_to_host(o, d, sizeof d) == CT_OK && d[0] == 5 && d[4] == 5 && d[1] == 0);
    CHECK(ct_tensor_bernoulli_(ctx, o, 0.5, 1, 0) == CT_OK);
    CHECK(ct_tensor_random_(ctx, o, 0, 10, 2, 0) == CT_OK);
    CHECK(ct_tensor_full(ctx, CT_FLOAT32, 2, (int64_t[]){3, 3}, 2.0, &o2) == CT_OK);
    CHECK(ct_igamma_(ctx, o2, a) != CT_OK); /* shapes (3, 3) and (2, 3) do not broadcast */
    CHECK(ct_igamma_(ctx, o2, o) == CT_OK && ct_igammac_(ctx, o2, o) == CT_OK);
    REL(o), REL(o2);

    /* in-place view ops change the handle itself */
    CHECK(ct_tensor_clone(ctx, a, &o) == CT_OK);
    CHECK(ct_t_(ctx, o) == CT_OK && ct_tensor_shape(o)[0] == 3);
    CHECK(ct_transpose_(ctx, o, 0, 1) == CT_OK && ct_swapaxes_(ctx, o, 0, 1) == CT_OK);
    CHECK(ct_swapdims_(ctx, o, 0, 1) == CT_OK && ct_tensor_shape(o)[0] == 2);
    CHECK(ct_unsqueeze_(ctx, o, 0) == CT_OK && ct_tensor_ndim(o) == 3);
    CHECK(ct_squeeze_(ctx, o, CT_ALL_DIMS) == CT_OK && ct_tensor_ndim(o) == 2);
    CHECK(ct_as_strided_(ctx, o, 1, (int64_t[]){3}, (int64_t[]){2}, 0) == CT_OK);
    CHECK(ct_detach_(ctx, o) == CT_OK);
    CHECK(ct_tensor_to_host(o, s, sizeof s) == CT_OK && s[0] == 0 && s[1] == 2 && s[2] == 4);
    printf("as_strided_ of a copy of a: %g %g %g\n", s[0], s[1], s[2]);
    REL(o);

    /* torch.segment_reduce: segments of lengths 1, 0, 1 of a's rows, the max of each */
    ct_tensor *len = NULL;
    const double minus = -1.0;
    CHECK(ct_tensor_from_host(ctx, (const int64_t[]){1, 0, 1}, CT_INT64, 1, (int64_t[]){3}, &len) ==
          CT_OK);
    CHECK(ct_segment_reduce(ctx, a, "max", len, NULL, 0, false, &minus, &o) == CT_OK);
    float sr[9];
    CHECK(ct_tensor_to_host(o, sr, sizeof sr) == CT_OK && sr[0] == 0 && sr[3] == -1 && sr[8] == 5);
    REL(o), REL(len);

    /* pad_sequence: a's rows and its first row as sequences of lengths 2 and 1 */
    ct_tensor *row = NULL;
    CHECK(ct_tensor_narrow(ctx, a, 0, 0, 1, &row) == CT_OK);
    const ct_tensor *seqs[2] = {a, row};
    CHECK(ct_pad_sequence(ctx, 2, seqs, true, 0.0, &o) == CT_OK && ct_tensor_shape(o)[0] == 2 &&
          ct_tensor_shape(o)[1] == 2);
    REL(o), REL(row);

    /* the normalisations with their saved statistics (for custom backward functions) */
    ct_tensor *mu = NULL, *rs = NULL, *a3 = NULL;
    CHECK(ct_native_layer_norm(ctx, a, 1, NULL, NULL, 1e-5, &o, &mu, &rs) == CT_OK);
    float m2[2];
    CHECK(ct_tensor_to_host(mu, m2, sizeof m2) == CT_OK && m2[0] == 1 && m2[1] == 4);
    REL(o), REL(mu), REL(rs);
    CHECK(ct_tensor_view(ctx, a, 3, (int64_t[]){2, 3, 1}, &a3) == CT_OK);
    CHECK(ct_native_group_norm(ctx, a3, NULL, NULL, 1, 1e-5, &o, &mu, &rs) == CT_OK);
    REL(o), REL(mu), REL(rs);
    CHECK(ct_native_batch_norm(ctx, a3, NULL, NULL, NULL, NULL, true, 0.1, 1e-5, &o, &mu, &rs) ==
          CT_OK);
    REL(o), REL(mu), REL(rs), REL(a3);

    /* apply_ / map_: a C function over every element (host loop, eager) */
    CHECK(ct_tensor_clone(ctx, a, &o) == CT_OK);
    CHECK(ct_tensor_apply_(ctx, o, halve, NULL) == CT_OK);
    CHECK(ct_tensor_map_(ctx, o, a, plus, NULL) == CT_OK); /* o = a / 2 + a */
    float h[6];
    CHECK(ct_tensor_to_host(o, h, sizeof h) == CT_OK && h[2] == 3 && h[5] == 7.5f);
    REL(o);

    /* aliases */
    int n = 0;
    CHECK(ct_split_with_sizes(ctx, a, 2, (int64_t[]){1, 2}, 1, parts) == CT_OK);
    REL(parts[0]), REL(parts[1]);
    CHECK(ct_unsafe_split_with_sizes(ctx, a, 2, (int64_t[]){1, 1}, 0, parts) == CT_OK);
    REL(parts[0]), REL(parts[1]);
    CHECK(ct_unsafe_split(ctx, a, 2, 1, 3, parts, &n) == CT_OK && n == 2);
    REL(parts[0]), REL(parts[1]);
    CHECK(ct_unsafe_chunk(ctx, a, 3, 1, 3, parts, &n) == CT_OK && n == 3);
    REL(parts[0]), REL(parts[1]), REL(parts[2]);
    ct_tensor *x4 = NULL, *x3 = NULL, *x5 = NULL;
    CHECK(ct_tensor_view(ctx, a, 4, (int64_t[]){1, 1, 2, 3}, &x4) == CT_OK);
    CHECK(ct_tensor_view(ctx, a, 3, (int64_t[]){1, 2, 3}, &x3) == CT_OK);
    CHECK(ct_tensor_rand(ctx, CT_FLOAT32, 5, (int64_t[]){1, 1, 2, 2, 3}, 1, 0, &x5) == CT_OK);
    CHECK(ct_upsample(ctx, x4, 2, (int64_t[]){4, 6}, CT_INTERP_NEAREST, false, &o) == CT_OK);
    REL(o);
    CHECK(ct_upsample_nearest(ctx, x4, 2, (int64_t[]){4, 6}, &o) == CT_OK);
    REL(o);
    CHECK(ct_upsample_bilinear(ctx, x4, (int64_t[]){3, 5}, &o) == CT_OK);
    REL(o);
    CHECK(ct_max_pool1d_with_indices(ctx, x3, 2, 1, 0, 1, false, &o, &idx) == CT_OK);
    REL(o), REL(idx);
    CHECK(ct_max_pool2d_with_indices(ctx, x4, (int64_t[]){1, 2}, NULL, (int64_t[]){0, 0},
                                     (int64_t[]){1, 1}, false, &o, &idx) == CT_OK);
    int64_t ix[2];
    CHECK(ct_tensor_to_host(idx, ix, sizeof ix) == CT_OK && ix[0] == 1 && ix[1] == 4);
    REL(o), REL(idx);
    CHECK(ct_max_pool3d_with_indices(ctx, x5, (int64_t[]){1, 1, 2}, NULL, NULL, NULL, false, &o,
                                     &idx) == CT_OK);
    REL(o), REL(idx);
    CHECK(ct_adaptive_max_pool1d_with_indices(ctx, x3, 2, &o, &idx) == CT_OK);
    REL(o), REL(idx);
    CHECK(ct_adaptive_max_pool2d_with_indices(ctx, x4, (int64_t[]){1, 2}, &o, &idx) == CT_OK);
    REL(o), REL(idx);
    CHECK(ct_adaptive_max_pool3d_with_indices(ctx, x5, (int64_t[]){1, 1, 2}, &o, &idx) == CT_OK);
    REL(o), REL(idx);
    CHECK(ct_fractional_max_pool2d_with_indices(ctx, x4, (int64_t[]){1, 2}, (int64_t[]){1, 2}, NULL,
                                                NULL, 5, &o, &idx) == CT_OK);
    REL(o), REL(idx);
    CHECK(ct_fractional_max_pool3d_with_indices(ctx, x5, (int64_t[]){1, 1, 2}, (int64_t[]){1, 1, 1},
                                                NULL, NULL, 5, &o, &idx) == CT_OK);
    REL(o), REL(idx);
    printf("aliases: split_with_sizes, unsafe_split / chunk, upsample, 8 pools with indices\n");
    REL(x3), REL(x4), REL(x5), REL(a);
    ct_ctx_free(ctx);
    return 0;
}

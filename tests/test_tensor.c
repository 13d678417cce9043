/* Tensors: creation, metadata, views against naive index arithmetic, copies with dtype
 * conversion, the counter-based RNG (reproducible across thread counts and offsets), errors. */
#include "test_util.h"

static ct_ctx *ctx;

/* arange(0..n) as float64 of a shape */
static ct_tensor *iota(int nd, const int64_t *shape) {
    ct_tensor *a = NULL, *r = NULL;
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    ct_tensor_arange(ctx, CT_FLOAT64, 0, (double)n, 1, &a);
    ct_tensor_view(ctx, a, nd, shape, &r);
    ct_tensor_release(a);
    return r;
}

TEST(creation_and_metadata) {
    int64_t s[3] = {2, 3, 4};
    ct_tensor *t;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 3, s, &t));
    CHECK(ct_tensor_ndim(t) == 3 && ct_tensor_numel(t) == 24);
    CHECK(ct_tensor_stride(t)[0] == 12 && ct_tensor_stride(t)[1] == 4 &&
          ct_tensor_stride(t)[2] == 1);
    CHECK(ct_tensor_size(t, -1) == 4 && ct_tensor_size(t, 5) == 0);
    CHECK(ct_tensor_is_contiguous(t));
    CHECK(((uintptr_t)ct_tensor_data_ptr(t) & 63) == 0); /* 64-byte aligned */
    CHECK(ct_tensor_device(t).type == CT_DEVICE_CPU);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_full(ctx, CT_INT16, 3, s, -7.9, &t));
    double *v = tu_read(t);
    CHECK(v[0] == -7 && v[23] == -7);
    free(v);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_zeros(ctx, CT_BFLOAT16, 0, NULL, &t));
    CHECK(ct_tensor_numel(t) == 1 && ct_tensor_ndim(t) == 0);
    double item = 5;
    CHECK_OK(ct_tensor_item(t, &item));
    CHECK(item == 0);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_arange(ctx, CT_INT64, 10, 0, -3, &t));
    CHECK(ct_tensor_numel(t) == 4);
    int64_t iv[4];
    CHECK_OK(ct_tensor_to_host(t, iv, sizeof iv));
    CHECK(iv[0] == 10 && iv[1] == 7 && iv[2] == 4 && iv[3] == 1);
    CHECK_ST(ct_tensor_to_host(t, iv, 8), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "needs 32") != NULL);
    CHECK_ST(ct_tensor_item(t, &item), CT_ERR_SHAPE);
    ct_tensor_release(t);
    int64_t z[2] = {0, 5};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, z, &t));
    CHECK(ct_tensor_numel(t) == 0);
    CHECK_OK(ct_tensor_to_host(t, NULL, 0));
    ct_tensor_release(t);
    /* errors */
    int64_t neg[1] = {-2}, huge[3] = {1LL << 40, 1LL << 40, 1LL << 40};
    CHECK_ST(ct_tensor_empty(ctx, CT_FLOAT32, 1, neg, &t), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "-2") != NULL);
    CHECK_ST(ct_tensor_empty(ctx, CT_FLOAT32, 3, huge, &t), CT_ERR_OVERFLOW);
    /* a zero size makes the count 0 wherever it sits: the same status and reason (the strides
     * overflow) for [0, 2^40, 2^40] and [2^40, 2^40, 0] (the second read "element count
     * overflows", of a count that is 0) */
    {
        int64_t z0[3] = {0, 1LL << 40, 1LL << 40}, z2[3] = {1LL << 40, 1LL << 40, 0};
        CHECK_ST(ct_tensor_zeros(ctx, CT_FLOAT32, 3, z0, &t), CT_ERR_OVERFLOW);
        CHECK(strstr(ct_ctx_last_error(ctx), "strides") != NULL);
        CHECK_ST(ct_tensor_zeros(ctx, CT_FLOAT32, 3, z2, &t), CT_ERR_OVERFLOW);
        CHECK_MSG(strstr(ct_ctx_last_error(ctx), "strides") != NULL, "%s", ct_ctx_last_error(ctx));
        int64_t ok[3] = {1LL << 20, 1LL << 20, 0};
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 3, ok, &t));
        CHECK(ct_tensor_numel(t) == 0);
        ct_tensor_release(t);
    }
    CHECK_ST(ct_tensor_empty(ctx, CT_FLOAT32, 9, s, &t), CT_ERR_SHAPE);
    CHECK_ST(ct_tensor_empty(ctx, (ct_dtype)40, 1, s, &t), CT_ERR_DTYPE);
    CHECK_ST(ct_tensor_from_host(ctx, NULL, CT_FLOAT32, 1, s, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_arange(ctx, CT_FLOAT32, 0, 1, 0, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_arange(ctx, CT_FLOAT32, 0, 1, -1, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_rand(ctx, CT_INT32, 1, s, 0, 0, &t), CT_ERR_DTYPE);
    CHECK_ST(ct_tensor_full(ctx, CT_FLOAT8_E5M2, 1, s, 1, &t), CT_ERR_DTYPE);
    CHECK_ST(ct_tensor_full(ctx, CT_UINT8, 1, s, 300, &t), CT_ERR_INVALID_ARG); /* as torch.full */
    CHECK(strstr(ct_ctx_last_error(ctx), "uint8") != NULL);
    CHECK_ST(ct_tensor_full(ctx, CT_INT8, 1, s, NAN, &t), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_full(ctx, CT_INT8, 1, s, -128, &t));
    ct_tensor_release(t);
}

TEST(views_match_index_arithmetic) {
    int64_t s[3] = {4, 5, 6};
    ct_tensor *a = iota(3, s), *v, *w;
    /* permute (2,0,1): v[i,j,k] = a[j,k,i] */
    int perm[3] = {2, 0, 1};
    CHECK_OK(ct_tensor_permute(ctx, a, perm, &v));
    double *d = tu_read(v);
    int bad = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 5; k++)
                if (d[(i * 4 + j) * 5 + k] != j * 30 + k * 6 + i) bad++;
    CHECK(bad == 0);
    CHECK(!ct_tensor_is_contiguous(v));
    free(d);
    /* view of a permuted tensor needs a copy -> view fails, reshape works */
    int64_t flat[1] = {-1};
    CHECK_ST(ct_tensor_view(ctx, v, 1, flat, &w), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "reshape") != NULL);
    CHECK_OK(ct_tensor_reshape(ctx, v, 1, flat, &w));
    d = tu_read(w);
    CHECK(d[1] == 6 && d[4] == 24 && d[5] == 30 && d[20] == 1);
    free(d);
    ct_tensor_release(w);
    ct_tensor_release(v);
    /* slice with step on dim 2, then narrow on dim 0, then transpose */
    CHECK_OK(ct_tensor_slice(ctx, a, 2, 1, -1, 2, &v)); /* k = 1, 3 */
    CHECK(ct_tensor_shape(v)[2] == 2);
    CHECK_OK(ct_tensor_narrow(ctx, v, 0, -3, 2, &w)); /* i = 1, 2 */
    ct_tensor_release(v);
    CHECK_OK(ct_tensor_transpose(ctx, w, 0, -1, &v)); /* [k][j][i] */
    ct_tensor_release(w);
    d = tu_read(v);
    bad = 0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 2; i++)
                if (d[(k * 5 + j) * 2 + i] != (i + 1) * 30 + j * 6 + (1 + 2 * k)) bad++;
    CHECK(bad == 0);
    free(d);
    /* a view of a non-contiguous tensor that is possible: split a dim */
    int64_t split[4] = {2, 5, 2, 1};
    CHECK_OK(ct_tensor_view(ctx, v, 4, split, &w));
    ct_tensor_release(w);
    ct_tensor_release(v);
    /* expand, squeeze, unsqueeze */
    int64_t s1[2] = {1, 3}, e[3] = {2, 4, -1};
    ct_tensor *b = iota(2, s1);
    CHECK_OK(ct_tensor_expand(ctx, b, 3, e, &v));
    CHECK(ct_tensor_numel(v) == 24 && ct_tensor_stride(v)[0] == 0 && ct_tensor_stride(v)[1] == 0);
    d = tu_read(v);
    CHECK(d[0] == 0 && d[4] == 1 && d[23] == 2);
    free(d);
    ct_tensor_release(v);
    int64_t bad_e[2] = {2, 4};
    CHECK_ST(ct_tensor_expand(ctx, b, 2, bad_e, &v), CT_ERR_SHAPE);
    CHECK_OK(ct_tensor_squeeze(ctx, b, CT_ALL_DIMS, &v));
    CHECK(ct_tensor_ndim(v) == 1);
    CHECK_OK(ct_tensor_unsqueeze(ctx, v, -1, &w));
    CHECK(ct_tensor_ndim(w) == 2 && ct_tensor_shape(w)[1] == 1);
    ct_tensor_release(w);
    CHECK_OK(ct_tensor_squeeze(ctx, v, 0, &w)); /* size 3: unchanged */
    CHECK(ct_tensor_ndim(w) == 1);
    ct_tensor_release(w);
    ct_tensor_release(v);
    /* out-of-range errors */
    CHECK_ST(ct_tensor_narrow(ctx, a, 1, 3, 3, &v), CT_ERR_INDEX);
    CHECK_ST(ct_tensor_transpose(ctx, a, 0, 3, &v), CT_ERR_INDEX);
    int dup[3] = {0, 0, 1};
    CHECK_ST(ct_tensor_permute(ctx, a, dup, &v), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_slice(ctx, a, 0, 0, 2, 0, &v), CT_ERR_INVALID_ARG);
    int64_t wrong[2] = {7, -1};
    CHECK_ST(ct_tensor_view(ctx, a, 2, wrong, &v), CT_ERR_SHAPE);
    int64_t two_infer[2] = {-1, -1};
    CHECK_ST(ct_tensor_view(ctx, a, 2, two_infer, &v), CT_ERR_SHAPE);
    CHECK_ST(ct_tensor_unsqueeze(ctx, a, 5, &v), CT_ERR_INDEX);
    ct_tensor_release(b);
    ct_tensor_release(a);
}

TEST(views_keep_storage_alive) {
    int64_t s[2] = {3, 4};
    ct_tensor *a = iota(2, s), *v;
    CHECK_OK(ct_tensor_narrow(ctx, a, 1, 1, 2, &v));
    ct_tensor_release(a); /* the view still owns the storage */
    double *d = tu_read(v);
    CHECK(d[0] == 1 && d[1] == 2 && d[2] == 5 && d[5] == 10);
    free(d);
    ct_tensor *r = ct_tensor_retain(v);
    ct_tensor_release(v);
    CHECK(ct_tensor_numel(r) == 6);
    ct_tensor_release(r);
    ct_tensor_release(NULL);
}

TEST(copies_and_casts) {
    int64_t s[2] = {3, 4};
    ct_tensor *a = iota(2, s), *t, *c, *dst;
    CHECK_OK(ct_tensor_transpose(ctx, a, 0, 1, &t));
    CHECK_OK(ct_tensor_contiguous(ctx, t, &c));
    CHECK(ct_tensor_is_contiguous(c) && ct_tensor_data_ptr(c) != ct_tensor_data_ptr(t));
    double *d = tu_read(c);
    CHECK(d[1] == 4 && d[3] == 1);
    free(d);
    ct_tensor *same;
    CHECK_OK(ct_tensor_contiguous(ctx, c, &same));
    CHECK(same == c);
    ct_tensor_release(same);
    ct_tensor_release(c);
    /* copy_ into a strided int view with conversion and broadcasting */
    int64_t ds[2] = {4, 6};
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 2, ds, &dst));
    ct_tensor *dv;
    CHECK_OK(ct_tensor_slice(ctx, dst, 1, 0, 6, 2, &dv)); /* (4, 3) view */
    CHECK_OK(ct_tensor_copy_(ctx, dv, t));                /* t is (4, 3) float64 */
    int32_t out[24];
    CHECK_OK(ct_tensor_to_host(dst, out, sizeof out));
    CHECK(out[0] == 0 && out[2] == 4 && out[4] == 8 && out[1] == 0 && out[6] == 1 && out[10] == 9);
    int64_t row[1] = {3};
    ct_tensor *r3;
    double rv[3] = {-1.9, 2.5, 300.2};
    CHECK_OK(ct_tensor_from_host(ctx, rv, CT_FLOAT64, 1, row, &r3));
    CHECK_OK(ct_tensor_copy_(ctx, dv, r3)); /* broadcast over rows, truncating toward zero */
    CHECK_OK(ct_tensor_to_host(dst, out, sizeof out));
    CHECK(out[0] == -1 && out[2] == 2 && out[4] == 300 && out[18] == -1);
    int64_t bad[1] = {5};
    ct_tensor *b5;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, bad, &b5));
    CHECK_ST(ct_tensor_copy_(ctx, dv, b5), CT_ERR_SHAPE);
    /* casts between every pair of compute dtypes round-trip small integers */
    const ct_dtype dts[] = {CT_BOOL,  CT_UINT8,   CT_INT8,     CT_INT16,   CT_INT32,
                            CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
    double vals[5] = {0, 1, 2, 100, 127};
    int64_t s5[1] = {5};
    for (int i = 0; i < 10; i++)
        for (int j = 0; j < 10; j++) {
            ct_tensor *x, *y, *z;
            char buf[64];
            for (int k = 0; k < 5; k++)
                tu_set(buf, dts[i], k, vals[k]);
            CHECK_OK(ct_tensor_from_host(ctx, buf, dts[i], 1, s5, &x));
            CHECK_OK(ct_cast(ctx, x, dts[j], &y));
            CHECK(ct_tensor_dtype(y) == dts[j]);
            CHECK_OK(ct_cast(ctx, y, CT_FLOAT64, &z));
            double *zv = tu_read(z);
            for (int k = 0; k < 5; k++) {
                double want = dts[i] == CT_BOOL || dts[j] == CT_BOOL ? (vals[k] != 0) : vals[k];
                if (dts[i] == CT_BOOL && dts[j] == CT_BOOL) want = vals[k] != 0;
                CHECK_MSG(zv[k] == want, "%s->%s %g gave %g", ct_dtype_name(dts[i]),
                          ct_dtype_name(dts[j]), vals[k], zv[k]);
            }
            free(zv);
            ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z);
        }
    /* float -> int conversion as PyTorch on x86: NaN and out of range give INT64_MIN */
    double fv[3] = {NAN, 1e30, -1e30};
    ct_tensor *fx, *ix;
    int64_t s3[1] = {3};
    CHECK_OK(ct_tensor_from_host(ctx, fv, CT_FLOAT64, 1, s3, &fx));
    CHECK_OK(ct_cast(ctx, fx, CT_INT64, &ix));
    int64_t iv[3];
    CHECK_OK(ct_tensor_to_host(ix, iv, sizeof iv));
    CHECK(iv[0] == INT64_MIN && iv[1] == INT64_MIN && iv[2] == INT64_MIN);
    ct_tensor *all[] = {fx, ix, b5, r3, dv, dst, t, a};
    for (int i = 0; i < 8; i++)
        ct_tensor_release(all[i]);
}

TEST(rng_reproducible) {
    int64_t n[1] = {50000}, n2[2] = {100, 500};
    ct_ctx_options o1 = {.size = sizeof o1, .num_threads = 1};
    ct_ctx *c1;
    CHECK_OK(ct_ctx_create(&o1, &c1));
    for (int normal = 0; normal < 2; normal++) {
        ct_dtype dts[2] = {CT_FLOAT32, CT_FLOAT64};
        for (int di = 0; di < 2; di++) {
            ct_tensor *a, *b, *c;
            ct_status (*fn)(ct_ctx *, ct_dtype, int, const int64_t *, uint64_t, uint64_t,
                            ct_tensor **) = normal ? ct_tensor_randn : ct_tensor_rand;
            CHECK_OK(fn(ctx, dts[di], 1, n, 99, 0, &a));
            CHECK_OK(fn(c1, dts[di], 2, n2, 99, 0, &b));   /* 1 thread, other shape */
            CHECK_OK(fn(ctx, dts[di], 1, n, 99, 123, &c)); /* offset shifts the stream */
            double *va = tu_read(a), *vb = tu_read(b), *vc = tu_read(c);
            int bad = 0;
            double mean = 0, m2 = 0, mn = 1e9, mx = -1e9;
            for (int i = 0; i < 50000; i++) {
                if (va[i] != vb[i]) bad++;
                if (i + 123 < 50000 && vc[i] != va[i + 123]) bad++;
                mean += va[i];
                m2 += va[i] * va[i];
                mn = fmin(mn, va[i]);
                mx = fmax(mx, va[i]);
            }
            mean /= 50000;
            double var = m2 / 50000 - mean * mean;
            CHECK_MSG(bad == 0, "rng streams differ (%d)", bad);
            if (normal) {
                CHECK(fabs(mean) < 0.03 && fabs(var - 1) < 0.05);
            } else {
                CHECK(mn >= 0 && mx < 1 && fabs(mean - 0.5) < 0.01 && fabs(var - 1.0 / 12) < 0.005);
            }
            free(va), free(vb), free(vc);
            ct_tensor_release(a), ct_tensor_release(b), ct_tensor_release(c);
        }
    }
    /* different seeds differ */
    ct_tensor *a, *b;
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 1, n, 1, 0, &a));
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 1, n, 2, 0, &b));
    double *va = tu_read(a), *vb = tu_read(b);
    int same = 0;
    for (int i = 0; i < 50000; i++)
        same += va[i] == vb[i];
    CHECK(same < 50);
    free(va), free(vb);
    ct_tensor_release(a), ct_tensor_release(b);
    ct_ctx_free(c1);
}

TEST(philox_known_answer) {
    /* Random123's published known-answer vectors for Philox4x32-10 */
    extern void ct_k_philox(uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
    uint32_t c0[4] = {0, 0, 0, 0}, k0[2] = {0, 0}, o[4];
    ct_k_philox(c0, k0, o);
    CHECK(o[0] == 0x6627e8d5u && o[1] == 0xe169c58du && o[2] == 0xbc57ac4cu && o[3] == 0x9b00dbd8u);
    uint32_t c1[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
             k1[2] = {0xffffffffu, 0xffffffffu};
    ct_k_philox(c1, k1, o);
    CHECK(o[0] == 0x408f276du && o[1] == 0x41c83b0eu && o[2] == 0xa20bc7c6u && o[3] == 0x6d5451fdu);
    uint32_t c2[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
             k2[2] = {0xa4093822u, 0x299f31d0u};
    ct_k_philox(c2, k2, o);
    CHECK(o[0] == 0xd16cfe09u && o[1] == 0x94fdccebu && o[2] == 0x5001e420u && o[3] == 0x24126ea1u);
}

/* Regressions from review: slice with a huge step, copy_ between overlapping views, copy_ shape
 * checks with empty destinations, bool bytes other than 0/1. */
TEST(review_regressions) {
    ct_tensor *t, *v, *a, *b;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 10, 1, &t));
    CHECK_OK(ct_tensor_slice(ctx, t, 0, 2, 10, INT64_MAX, &v)); /* torch: t[2:10:huge] -> [2.] */
    CHECK(ct_tensor_numel(v) == 1);
    double item;
    CHECK_OK(ct_tensor_item(v, &item));
    CHECK(item == 2);
    ct_tensor_release(v);
    int64_t s2[2] = {10, 1000};
    ct_tensor *big;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s2, &big));
    CHECK_ST(ct_tensor_slice(ctx, big, 0, 0, 10, 10000000000000000LL, &v),
             CT_OK); /* 1 element: no stride math */
    CHECK(ct_tensor_shape(v)[0] == 1);
    ct_tensor_release(v);
    ct_tensor_release(big);
    /* overlapping copy_ is refused (torch does too); an identical view is a no-op */
    CHECK_OK(ct_tensor_slice(ctx, t, 0, 1, 10, 1, &a));
    CHECK_OK(ct_tensor_slice(ctx, t, 0, 0, 9, 1, &b));
    CHECK_ST(ct_tensor_copy_(ctx, a, b), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "share memory") != NULL);
    CHECK_OK(ct_tensor_copy_(ctx, a, a));
    ct_tensor_release(a), ct_tensor_release(b);
    /* disjoint halves of one storage are fine */
    CHECK_OK(ct_tensor_slice(ctx, t, 0, 0, 5, 1, &a));
    CHECK_OK(ct_tensor_slice(ctx, t, 0, 5, 10, 1, &b));
    CHECK_OK(ct_tensor_copy_(ctx, a, b));
    float tv[10];
    CHECK_OK(ct_tensor_to_host(t, tv, sizeof tv));
    CHECK(tv[0] == 5 && tv[4] == 9 && tv[5] == 5 && tv[9] == 9);
    ct_tensor_release(a), ct_tensor_release(b);
    /* a stride-0 destination has internal overlap */
    int64_t e[2] = {3, 10};
    CHECK_OK(ct_tensor_expand(ctx, t, 2, e, &v));
    ct_tensor *src;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, e, &src));
    CHECK_ST(ct_tensor_copy_(ctx, v, src), CT_ERR_INVALID_ARG);
    ct_tensor_release(v), ct_tensor_release(src);
    /* src [3,1] does not broadcast to dst [1,0] */
    int64_t d10[2] = {1, 0}, s31[2] = {3, 1};
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, d10, &a));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s31, &b));
    CHECK_ST(ct_tensor_copy_(ctx, a, b), CT_ERR_SHAPE);
    ct_tensor_release(a), ct_tensor_release(b);
    ct_tensor_release(t);
    /* bool tensors built from arbitrary bytes: nonzero is true */
    uint8_t bytes[4] = {2, 0, 255, 1};
    int64_t s4[1] = {4};
    CHECK_OK(ct_tensor_from_host(ctx, bytes, CT_BOOL, 1, s4, &a));
    CHECK_OK(ct_cast(ctx, a, CT_FLOAT32, &b));
    float f[4];
    CHECK_OK(ct_tensor_to_host(b, f, sizeof f));
    CHECK(f[0] == 1 && f[1] == 0 && f[2] == 1 && f[3] == 1);
    ct_tensor *s;
    CHECK_OK(ct_sum(ctx, a, 0, NULL, false, &s));
    CHECK_OK(ct_tensor_item(s, &item));
    CHECK(item == 3);
    ct_tensor_release(s), ct_tensor_release(a), ct_tensor_release(b);
}

TEST(block_cache) {
    ct_ctx *c;
    CHECK_OK(ct_ctx_create(NULL, &c));
    if (ct_ctx_debug(c)) { /* CT_DEBUG=1 turns the cache off */
        ct_ctx_free(c);
        return;
    }
    int64_t s[1] = {100000};
    ct_tensor *a, *b;
    const size_t c0 = ct_ctx_cached_bytes(c);
    CHECK_OK(ct_tensor_zeros(c, CT_FLOAT32, 1, s, &a));
    void *pa = ct_tensor_data_ptr(a);
    ct_tensor_release(a);
    size_t held = ct_ctx_cached_bytes(c);
    CHECK(held >= 400000);
    CHECK_OK(ct_tensor_full(c, CT_FLOAT32, 1, s, 3.0, &b)); /* reuses the cached block */
    CHECK(ct_tensor_data_ptr(b) == pa);
    CHECK(ct_ctx_cached_bytes(c) < held);
    float v[4];
    int64_t s4[1] = {4};
    ct_tensor *n4;
    CHECK_OK(ct_tensor_narrow(c, b, 0, 99996, 4, &n4));
    CHECK_OK(ct_tensor_to_host(n4, v, sizeof v));
    CHECK(v[0] == 3.0f && v[3] == 3.0f); /* a reused block is fully rewritten */
    (void)s4;
    ct_tensor_release(n4);
    ct_tensor_release(b);
    /* a large tensor's segment (20 MiB, the large pool) goes back on empty_cache */
    int64_t big[1] = {1 << 20};
    const size_t c1 = ct_ctx_cached_bytes(c);
    CHECK_OK(ct_tensor_zeros(c, CT_FLOAT32, 1, big, &a));
    ct_tensor_release(a);
    CHECK(ct_ctx_cached_bytes(c) >= c1 + ((size_t)20 << 20) - 4096);
    ct_ctx_empty_cache(c);
    CHECK(ct_ctx_cached_bytes(c) <= c1);
    (void)c0;
    ct_ctx_free(c);
    ct_ctx_options o = {.size = sizeof o, .no_cache = true};
    CHECK_OK(ct_ctx_create(&o, &c));
    CHECK_OK(ct_tensor_zeros(c, CT_FLOAT32, 1, s, &a));
    ct_tensor_release(a);
    CHECK(ct_ctx_cached_bytes(c) == 0);
    ct_ctx_free(c);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(creation_and_metadata);
    RUN(views_match_index_arithmetic);
    RUN(views_keep_storage_alive);
    RUN(copies_and_casts);
    RUN(rng_reproducible);
    RUN(philox_known_answer);
    RUN(block_cache);
    RUN(review_regressions);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* DLPack: export and import round trips (legacy and versioned) without copies, every dtype with a
 * DLPack code, strides and byte_offset, deleters called exactly once and only after the last
 * reference, the errors (device, dtype, lanes, version, read-only, NULL), and ownership on
 * failure. tests/dlpack_numpy.py exchanges tensors with NumPy. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 5150;
static int deleted;

TEST(round_trips) {
    for (int di = 0; di < TU_NALL; di++) {
        ct_dtype dt = TU_ALL_DTYPES[di];
        int64_t shape[3] = {2, 3, 4};
        double *v;
        ct_tensor *t = tu_make(ctx, &rng, dt, 3, shape, 1, -3, 3, &v), *back = NULL;
        for (int ver = 0; ver < 2; ver++) {
            ct_dl_managed_tensor *m = NULL;
            ct_dl_managed_tensor_versioned *mv = NULL;
            if (ver) {
                CHECK_OK(ct_tensor_to_dlpack_versioned(ctx, t, &mv));
                CHECK(mv->version_major == 1 && mv->flags == 0);
                CHECK(mv->dl_tensor.data == ct_tensor_data_ptr(t)); /* no copy */
                CHECK(mv->dl_tensor.strides[2] == ct_tensor_stride(t)[2]);
                CHECK_OK(ct_tensor_from_dlpack_versioned(ctx, mv, &back));
            } else {
                CHECK_OK(ct_tensor_to_dlpack(ctx, t, &m));
                CHECK(m->dl_tensor.device.device_type == 1 && m->dl_tensor.ndim == 3);
                CHECK(m->dl_tensor.dtype.lanes == 1 &&
                      m->dl_tensor.dtype.bits == 8 * ct_dtype_size(dt));
                CHECK_OK(ct_tensor_from_dlpack(ctx, m, &back));
            }
            CHECK(ct_tensor_data_ptr(back) == ct_tensor_data_ptr(t));
            CHECK(ct_tensor_dtype(back) == dt && tu_same_shape(back, 3, shape));
            double *g = tu_read(back);
            for (int i = 0; i < 24; i++)
                CHECK(tu_same_val(g[i], v[i]));
            free(g);
            ct_tensor_release(back); /* runs the managed deleter: releases the export's ref */
        }
        free(v);
        ct_tensor_release(t);
    }
}

/* A producer's tensor of our own making: a static buffer with an offset. */
static float buf[32];
static int64_t pshape[2] = {3, 4}, pstrides[2] = {1, 3}; /* a transposed (4, 3) block */
static void producer_delete(ct_dl_managed_tensor *self) {
    (void)self;
    deleted++;
}
static void producer_delete_v(ct_dl_managed_tensor_versioned *self) {
    (void)self;
    deleted++;
}

TEST(import_a_producer) {
    for (int i = 0; i < 32; i++)
        buf[i] = (float)i;
    ct_dl_managed_tensor m = {
        {buf, {1, 0}, 2, {2, 32, 1}, pshape, pstrides, 8}, NULL, producer_delete};
    ct_tensor *t = NULL, *v = NULL;
    deleted = 0;
    CHECK_OK(ct_tensor_from_dlpack(ctx, &m, &t));
    CHECK(ct_tensor_data_ptr(t) == (void *)(buf + 2));
    float out[12];
    CHECK_OK(ct_tensor_to_host(t, out, sizeof out));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            CHECK(out[i * 4 + j] == (float)(2 + i + 3 * j));
    CHECK_OK(ct_tensor_transpose(ctx, t, 0, 1, &v)); /* a view keeps the memory alive */
    ct_tensor_release(t);
    CHECK(deleted == 0);
    ct_tensor_release(v);
    CHECK(deleted == 1);
    /* errors leave the managed tensor with the caller (its deleter not called) */
    m.dl_tensor.device.device_type = 2;
    CHECK_ST(ct_tensor_from_dlpack(ctx, &m, &t), CT_ERR_DEVICE);
    m.dl_tensor.device.device_type = 1;
    m.dl_tensor.dtype.lanes = 4;
    CHECK_ST(ct_tensor_from_dlpack(ctx, &m, &t), CT_ERR_DTYPE);
    m.dl_tensor.dtype = (ct_dl_dtype){5, 32, 1}; /* complex32: no ctorch dtype */
    CHECK_ST(ct_tensor_from_dlpack(ctx, &m, &t), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "code 5") != NULL);
    m.dl_tensor.dtype = (ct_dl_dtype){2, 32, 1};
    m.dl_tensor.ndim = 9;
    CHECK_ST(ct_tensor_from_dlpack(ctx, &m, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_from_dlpack(ctx, NULL, &t), CT_ERR_INVALID_ARG);
    CHECK(deleted == 1);
    ct_dl_managed_tensor_versioned mv = {1,
                                         0,
                                         NULL,
                                         producer_delete_v,
                                         CT_DLPACK_FLAG_READ_ONLY,
                                         {buf, {1, 0}, 1, {2, 32, 1}, pshape, NULL, 0}};
    CHECK_ST(ct_tensor_from_dlpack_versioned(ctx, &mv, &t), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "read-only") != NULL);
    mv.flags = 0;
    mv.version_major = 2;
    CHECK_ST(ct_tensor_from_dlpack_versioned(ctx, &mv, &t), CT_ERR_UNSUPPORTED);
    mv.version_major = 1;
    CHECK_OK(ct_tensor_from_dlpack_versioned(ctx, &mv, &t)); /* strides NULL: contiguous */
    float o3[3];
    CHECK_OK(ct_tensor_to_host(t, o3, sizeof o3));
    CHECK(o3[0] == 0 && o3[2] == 2);
    ct_tensor_release(t);
    CHECK(deleted == 2);
    /* export refusals */
    int64_t s = 4;
    ct_tensor *f8 = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT8_E4M3FN, 1, &s, &f8));
    ct_dl_managed_tensor *e = NULL;
    CHECK_ST(ct_tensor_to_dlpack(ctx, f8, &e), CT_ERR_DTYPE);
    CHECK_ST(ct_tensor_to_dlpack(ctx, f8, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(f8);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(round_trips);
    RUN(import_a_producer);
    ct_ctx_free(ctx);
    return ct_test_end();
}

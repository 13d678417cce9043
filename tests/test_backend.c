/* Backends and streams through the public API only: a toy "host2" device registered from outside
 * the library with its own memory and a few kernels; ops route to it through the same dispatch
 * point; unsupported ops and cross-device mixes fail cleanly. */
#include "test_util.h"

typedef struct {
    int allocs, frees, ops;
} toy_state;

static ct_status toy_alloc(void *st, size_t n, void **p) {
    toy_state *s = st;
    *p = malloc(n ? n : 1);
    if (!*p) return CT_ERR_OOM;
    s->allocs++;
    return CT_OK;
}
static void toy_free(void *st, void *p) {
    ((toy_state *)st)->frees++;
    free(p);
}
static ct_status toy_copy(void *st, void *dst, const void *src, size_t n, int kind) {
    (void)st, (void)kind;
    memcpy(dst, src, n);
    return CT_OK;
}
static bool contiguous(const ct_operand *o) {
    int64_t s = 1;
    for (int d = o->ndim - 1; d >= 0; d--) {
        if (o->shape[d] != 1 && o->strides[d] != s) return false;
        s *= o->shape[d];
    }
    return true;
}
static ct_status toy_run(void *st, const ct_op_desc *op) {
    toy_state *s = st;
    s->ops++;
    const ct_operand *o = &op->operands[0];
    int64_t n = 1;
    for (int d = 0; d < o->ndim; d++)
        n *= o->shape[d];
    for (int i = 0; i < op->n_out + op->n_in; i++)
        if (op->operands[i].dtype != CT_FLOAT32 || !contiguous(&op->operands[i]))
            return CT_ERR_UNSUPPORTED;
    float *out = o->data;
    if (op->kind == CT_OP_FILL) {
        for (int64_t i = 0; i < n; i++)
            out[i] = (float)op->scalars[0];
        return CT_OK;
    }
    if (op->kind == CT_OP_ADD) {
        const float *a = op->operands[1].data, *b = op->operands[2].data;
        for (int64_t i = 0; i < n; i++)
            out[i] = a[i] + (float)op->scalars[0] * b[i];
        return CT_OK;
    }
    return CT_ERR_UNSUPPORTED;
}
static ct_status toy_sync(void *st) {
    (void)st;
    return CT_OK;
}

static toy_state ts;
static ct_backend_vtable toy_vt(void) {
    return (ct_backend_vtable){.size = sizeof(ct_backend_vtable),
                               .abi_version = CT_BACKEND_ABI_VERSION,
                               .name = "host2",
                               .state = &ts,
                               .alloc = toy_alloc,
                               .free = toy_free,
                               .copy = toy_copy,
                               .run_op = toy_run,
                               .synchronize = toy_sync};
}

TEST(register_and_run) {
    ct_ctx *ctx;
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    ct_backend_vtable vt = toy_vt();
    int type = -1, found = -1;
    CHECK_OK(ct_backend_register(ctx, &vt, &type));
    CHECK(type >= CT_DEVICE_USER_BASE);
    CHECK_OK(ct_backend_find(ctx, "host2", &found));
    CHECK(found == type);
    CHECK(ct_backend_count(ctx) == 2);
    CHECK_ST(ct_backend_register(ctx, &vt, &found), CT_ERR_INVALID_ARG); /* duplicate name */
    vt.abi_version = 99;
    vt.name = "other";
    CHECK_ST(ct_backend_register(ctx, &vt, &found), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "99") != NULL);
    CHECK_ST(ct_backend_find(ctx, "nope", &found), CT_ERR_INVALID_ARG);

    ct_device dev = {type, 0};
    int64_t s[2] = {3, 5};
    float host[15], back[15];
    for (int i = 0; i < 15; i++)
        host[i] = (float)i;
    ct_tensor *h, *d1, *d2, *sum, *bad;
    CHECK_OK(ct_tensor_from_host(ctx, host, CT_FLOAT32, 2, s, &h));
    CHECK_OK(ct_tensor_to_device(ctx, h, dev, &d1));
    CHECK(ct_tensor_device(d1).type == type && ct_tensor_data_ptr(d1) == NULL);
    CHECK_OK(ct_tensor_to_device(ctx, h, dev, &d2));
    int ops_before = ts.ops;
    CHECK_OK(ct_add_scaled(ctx, d1, d2, 2.0, &sum)); /* runs on the toy device */
    CHECK(ts.ops == ops_before + 1);
    CHECK_OK(ct_tensor_to_host(sum, back, sizeof back));
    for (int i = 0; i < 15; i++)
        CHECK(back[i] == 3.0f * (float)i);
    /* a kernel the backend lacks: clear error, nothing leaks */
    CHECK_ST(ct_exp(ctx, d1, &bad), CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "host2") != NULL);
    /* mixing devices: messages name devices as "cpu:0" and "<backend>:<index>" */
    CHECK_ST(ct_add(ctx, h, d1, &bad), CT_ERR_DEVICE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "host2:0") && strstr(ct_ctx_last_error(ctx), "cpu:0"),
              "%s", ct_ctx_last_error(ctx));
    char dn[CT_DEVICE_NAME_MAX];
    CHECK(strcmp(ct_device_format(ctx, dev, dn, sizeof dn), "host2:0") == 0);
    CHECK(strcmp(ct_device_format(NULL, (ct_device){CT_DEVICE_CUDA, 1}, dn, sizeof dn), "cuda:1") ==
          0);
    CHECK(strcmp(ct_device_format(ctx, (ct_device){77, 2}, dn, sizeof dn), "device77:2") == 0);
    CHECK(strcmp(ct_device_format(ctx, dev, NULL, 0), "") == 0);
    int64_t s5[1] = {5};
    ct_tensor *w5;
    CHECK_OK(ct_tensor_empty_on(ctx, dev, CT_FLOAT32, 1, s5, &w5));
    CHECK_ST(ct_layer_norm(ctx, h, 1, w5, NULL, 1e-5, &bad), CT_ERR_DEVICE); /* weight elsewhere */
    ct_tensor_release(w5);
    /* streams */
    ct_stream *def, *s2;
    CHECK_OK(ct_ctx_default_stream(ctx, dev, &def));
    CHECK(ct_stream_device(def).type == type);
    CHECK_OK(ct_stream_create(ctx, dev, &s2));
    CHECK_OK(ct_ctx_set_stream(ctx, dev, s2));
    CHECK_OK(ct_stream_synchronize(s2));
    ct_tensor *z;
    CHECK_OK(ct_tensor_empty_on(ctx, dev, CT_FLOAT32, 2, s, &z));
    CHECK_OK(ct_ctx_set_stream(ctx, dev, NULL));
    ct_stream_free(s2);
    ct_stream_free(def); /* owned by the context: a no-op */
    ct_device nodev = {CT_DEVICE_CUDA, 0};
    CHECK_ST(ct_tensor_empty_on(ctx, nodev, CT_FLOAT32, 2, s, &bad), CT_ERR_DEVICE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "cuda:0"), "%s", ct_ctx_last_error(ctx));
    ct_tensor *all[] = {h, d1, d2, sum, z};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(all[i]);
    CHECK(ts.allocs == ts.frees);
    ct_ctx_free(ctx);
}

TEST(load_errors) {
    ct_ctx *ctx;
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    int t;
    CHECK_ST(ct_backend_load(ctx, "/nonexistent/libnothing.so", &t), CT_ERR_IO);
    CHECK(strlen(ct_ctx_last_error(ctx)) > 0);
    /* a real library without the entry point */
    ct_status st = ct_backend_load(ctx, "libm.so.6", &t);
    CHECK_ST(st, CT_ERR_FORMAT);
    CHECK(strstr(ct_ctx_last_error(ctx), "ctorch_backend_init") != NULL);
    CHECK_ST(ct_backend_register(ctx, NULL, &t), CT_ERR_INVALID_ARG);
    ct_ctx_free(ctx);
}

int main(void) {
    RUN(register_and_run);
    RUN(load_errors);
    return ct_test_end();
}

/* Tensor I/O: printing against strings torch 1.13 printed (tests/data/print_torch_ref.h), .npy
 * files NumPy wrote (tests/data/npy, values recomputed here), save/load round trips, byte equality
 * with NumPy's writer, hostile headers (truncations, bit flips, a list of malformed headers: a
 * status and a message, never a crash), and ct_tensor_from_blob (zero copy, strides, deleter).
 * Regenerate the data with tests/gen_io_reference.py. */
#include "test_util.h"

#include <unistd.h>

#include "data/print_options_ref.h"
#include "data/print_torch_ref.h"

static ct_ctx *ctx;

static ct_tensor *make_case(const struct print_case *c) {
    int64_t n = 1;
    for (int i = 0; i < c->ndim; i++)
        n *= c->shape[i];
    size_t isz = ct_dtype_size(c->dtype);
    char *buf = malloc((size_t)(n ? n : 1) * isz);
    for (int64_t i = 0; i < n; i++) {
        if (c->vi)
            ((int64_t *)buf)[i] = c->vi[i];
        else
            tu_set(buf, c->dtype, i, c->vd[i]);
    }
    ct_tensor *t = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, buf, c->dtype, c->ndim, c->shape, &t));
    free(buf);
    if (!c->transposed) return t;
    CHECK_OK(ct_tensor_transpose(ctx, t, 0, 1, &r));
    ct_tensor_release(t);
    return r;
}

/* The tensor a case prints when it names a grad op: x marked requires_grad, then the op
 * (tests/gen_io_reference.py's GRAD_OPS, whose torch result gave the expected grad_fn). */
static ct_tensor *grad_result(const char *op, ct_tensor *x) {
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    if (!strcmp(op, "leaf")) return ct_tensor_retain(x);
    ct_tensor *r = NULL, *u = NULL;
    int64_t flat = ct_tensor_numel(x);
    int d0[1] = {0};
    if (!strcmp(op, "mul_s")) CHECK_OK(ct_mul_scalar(ctx, x, 2.0, &r));
    if (!strcmp(op, "sum")) CHECK_OK(ct_sum(ctx, x, 0, NULL, false, &r));
    if (!strcmp(op, "sum0")) CHECK_OK(ct_sum(ctx, x, 1, d0, false, &r));
    if (!strcmp(op, "unsqueeze")) CHECK_OK(ct_tensor_unsqueeze(ctx, x, 0, &r));
    if (!strcmp(op, "squeeze0")) CHECK_OK(ct_tensor_squeeze(ctx, x, 0, &r));
    if (!strcmp(op, "squeeze")) CHECK_OK(ct_tensor_squeeze(ctx, x, CT_ALL_DIMS, &r));
    if (!strcmp(op, "view")) CHECK_OK(ct_tensor_view(ctx, x, 1, &flat, &r));
    if (!strcmp(op, "reshape")) CHECK_OK(ct_tensor_reshape(ctx, x, 1, &flat, &r));
    if (!strcmp(op, "reshape_t")) {
        CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &u));
        CHECK_OK(ct_tensor_reshape(ctx, u, 1, &flat, &r));
    }
    if (!strcmp(op, "mm")) {
        CHECK_OK(ct_tensor_transpose(ctx, x, 0, 1, &u));
        CHECK_OK(ct_matmul(ctx, x, u, &r));
    }
    if (!strcmp(op, "mv")) {
        ct_tensor *row = NULL;
        CHECK_OK(ct_tensor_slice(ctx, x, 0, 0, 1, 1, &row));
        CHECK_OK(ct_tensor_squeeze(ctx, row, 0, &u));
        ct_tensor_release(row);
        CHECK_OK(ct_matmul(ctx, x, u, &r));
    }
    if (!strcmp(op, "dot")) CHECK_OK(ct_matmul(ctx, x, x, &r));
    if (!strcmp(op, "bmm")) {
        CHECK_OK(ct_tensor_transpose(ctx, x, 1, 2, &u));
        CHECK_OK(ct_bmm(ctx, x, u, &r));
    }
    if (!strcmp(op, "triu")) CHECK_OK(ct_triu(ctx, x, 0, &r));
    const double lo = -1.0, hi = 1.0;
    if (!strcmp(op, "clamp")) CHECK_OK(ct_clamp(ctx, x, &lo, &hi, &r));
    if (!strcmp(op, "cast64")) CHECK_OK(ct_cast(ctx, x, CT_FLOAT64, &r));
    ct_tensor_release(u);
    CHECK_MSG(r != NULL, "grad op %s", op);
    return r;
}

TEST(print_matches_torch) {
    for (size_t i = 0; i < sizeof print_cases / sizeof print_cases[0]; i++) {
        const struct print_case *c = &print_cases[i];
        ct_tensor *t = make_case(c);
        if (c->grad) {
            ct_tensor *r = grad_result(c->grad, t);
            ct_tensor_release(t);
            t = r;
        }
        char *s = NULL;
        CHECK_OK(ct_tensor_to_string(t, &s));
        CHECK_MSG(s && strcmp(s, c->expect) == 0, "case %s:\n--- got\n%s\n--- torch\n%s", c->name,
                  s ? s : "(null)", c->expect);
        free(s);
        ct_tensor_release(t);
    }
}

TEST(print_to_file_and_errors) {
    int64_t sh[1] = {2};
    float v[2] = {1.5f, -2.0f};
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 1, sh, &t));
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_OK(ct_tensor_print(f, t));
        rewind(f);
        char line[128] = {0};
        size_t n = fread(line, 1, sizeof line - 1, f);
        line[n] = 0;
        CHECK_MSG(strcmp(line, "tensor([ 1.5000, -2.0000])\n") == 0, "got '%s'", line);
        fclose(f);
    }
    CHECK_ST(ct_tensor_print(NULL, t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_to_string(t, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_to_string(NULL, NULL), CT_ERR_INVALID_ARG);
    /* reading the data during capture is refused, as ct_tensor_to_host */
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    char *s = NULL;
    CHECK(ct_tensor_to_string(t, &s) != CT_OK);
    CHECK(s == NULL);
    ct_graph_capture_end(g);
    ct_graph_free(g);
    ct_tensor_release(t);
}

/* ---- npy ---- */
static double npy_val(ct_dtype dt, int64_t k) {
    if (dt == CT_BOOL) return k % 3 == 0;
    double v = (double)((k * 7) % 11 - 3);
    if (dt == CT_UINT8) v += 3;
    if (ct_dtype_is_floating(dt)) v *= 0.25;
    return v;
}

static void check_npy_file(const char *file, ct_dtype dt, int nd, const int64_t *shape) {
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/npy/%s", CT_SOURCE_DIR, file);
    ct_tensor *t = NULL;
    ct_status st = ct_npy_load(ctx, path, &t);
    CHECK_MSG(st == CT_OK, "%s: %s (%s)", file, ct_status_str(st), ct_ctx_last_error(ctx));
    if (st != CT_OK) return;
    CHECK_MSG(ct_tensor_dtype(t) == dt, "%s: dtype %s", file, ct_dtype_name(ct_tensor_dtype(t)));
    CHECK_MSG(ct_tensor_ndim(t) == nd, "%s: ndim %d", file, ct_tensor_ndim(t));
    for (int i = 0; i < nd && i < ct_tensor_ndim(t); i++)
        CHECK_MSG(ct_tensor_shape(t)[i] == shape[i], "%s: dim %d", file, i);
    CHECK(ct_tensor_is_contiguous(t));
    double *v = tu_read(t);
    for (int64_t k = 0; v && k < ct_tensor_numel(t); k++)
        CHECK_MSG(v[k] == npy_val(dt, k), "%s: element %lld is %g, want %g", file, (long long)k,
                  v[k], npy_val(dt, k));
    free(v);
    ct_tensor_release(t);
}

TEST(npy_reads_numpy_files) {
    const int64_t s23[2] = {2, 3}, s342[3] = {3, 4, 2}, s34[2] = {3, 4}, s25[2] = {2, 5},
                  s7[1] = {7}, s03[2] = {0, 3}, s4[1] = {4}, s22[2] = {2, 2};
    const struct {
        const char *name;
        ct_dtype dt;
    } every[] = {{"bool", CT_BOOL},       {"uint8", CT_UINT8},     {"int8", CT_INT8},
                 {"int16", CT_INT16},     {"int32", CT_INT32},     {"int64", CT_INT64},
                 {"float16", CT_FLOAT16}, {"float32", CT_FLOAT32}, {"float64", CT_FLOAT64}};
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++) {
        char f[64];
        snprintf(f, sizeof f, "%s_2x3.npy", every[i].name);
        check_npy_file(f, every[i].dt, 2, s23);
    }
    check_npy_file("float32_fortran_3x4x2.npy", CT_FLOAT32, 3, s342);
    check_npy_file("int32_big_3x4.npy", CT_INT32, 2, s34);
    check_npy_file("float64_big_fortran_2x5.npy", CT_FLOAT64, 2, s25);
    check_npy_file("float16_big_7.npy", CT_FLOAT16, 1, s7);
    check_npy_file("float64_0d.npy", CT_FLOAT64, 0, NULL);
    check_npy_file("int64_empty_0x3.npy", CT_INT64, 2, s03);
    check_npy_file("int16_v2_4.npy", CT_INT16, 1, s4);
    check_npy_file("float32_v3_2x2.npy", CT_FLOAT32, 2, s22);
}

static void tmp_path(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "/tmp/ct_test_io_%d_%s.npy", (int)getpid(), tag);
}

TEST(npy_save_equals_numpy_bytes) {
    /* ct_npy_save of the same values writes the bytes np.save wrote */
    const ct_dtype dts[] = {CT_BOOL,  CT_UINT8,   CT_INT8,    CT_INT16,  CT_INT32,
                            CT_INT64, CT_FLOAT16, CT_FLOAT32, CT_FLOAT64};
    const char *names[] = {"bool",  "uint8",   "int8",    "int16",  "int32",
                           "int64", "float16", "float32", "float64"};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        int64_t sh[2] = {2, 3};
        char raw[48];
        for (int k = 0; k < 6; k++)
            tu_set(raw, dts[i], k, npy_val(dts[i], k));
        ct_tensor *t = NULL;
        CHECK_OK(ct_tensor_from_host(ctx, raw, dts[i], 2, sh, &t));
        char out[256], ref[512];
        tmp_path(out, sizeof out, names[i]);
        snprintf(ref, sizeof ref, "%s/tests/data/npy/%s_2x3.npy", CT_SOURCE_DIR, names[i]);
        CHECK_OK(ct_npy_save(ctx, t, out));
        size_t la = 0, lb = 0;
        char *a = (char *)tu_read_file(out, &la), *b = (char *)tu_read_file(ref, &lb);
        CHECK_MSG(a && b && la == lb && memcmp(a, b, la) == 0, "%s: bytes differ from np.save",
                  names[i]);
        free(a), free(b);
        remove(out);
        ct_tensor_release(t);
    }
}

TEST(npy_round_trip) {
    unsigned long long rng = 11;
    const ct_dtype dts[] = {CT_BOOL,  CT_UINT8,   CT_INT8,    CT_INT16,  CT_INT32,
                            CT_INT64, CT_FLOAT16, CT_FLOAT32, CT_FLOAT64};
    const int64_t shapes[][3] = {{3, 5, 7}, {1, 1, 1}, {2, 0, 3}, {4, 33, 2}};
    char path[256];
    tmp_path(path, sizeof path, "rt");
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++)
        for (size_t s = 0; s < 4; s++)
            for (int mode = 0; mode < 3; mode++) {
                double *vals = NULL;
                ct_tensor *t = tu_make(ctx, &rng, dts[i], 3, shapes[s], mode, -100, 100, &vals);
                CHECK_OK(ct_npy_save(ctx, t, path));
                ct_tensor *r = NULL;
                CHECK_OK(ct_npy_load(ctx, path, &r));
                double *got = r ? tu_read(r) : NULL;
                CHECK(r && ct_tensor_ndim(r) == 3 && ct_tensor_dtype(r) == dts[i]);
                for (int d = 0; r && d < 3; d++)
                    CHECK(ct_tensor_shape(r)[d] == ct_tensor_shape(t)[d]);
                for (int64_t k = 0; got && k < ct_tensor_numel(t); k++)
                    CHECK_MSG(got[k] == vals[k], "%s mode %d: element %lld", ct_dtype_name(dts[i]),
                              mode, (long long)k);
                free(vals), free(got);
                ct_tensor_release(t), ct_tensor_release(r);
            }
    /* 0-d and special values */
    double sv[1] = {-0.0};
    ct_tensor *z = NULL, *r = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, sv, CT_FLOAT64, 0, NULL, &z));
    CHECK_OK(ct_npy_save(ctx, z, path));
    CHECK_OK(ct_npy_load(ctx, path, &r));
    CHECK(r && ct_tensor_ndim(r) == 0);
    double back = 1;
    if (r) CHECK_OK(ct_tensor_item(r, &back));
    CHECK(back == 0 && signbit(back));
    ct_tensor_release(z), ct_tensor_release(r);
    float sp[4] = {NAN, INFINITY, -INFINITY, 1e-45f};
    int64_t s4[1] = {4};
    CHECK_OK(ct_tensor_from_host(ctx, sp, CT_FLOAT32, 1, s4, &z));
    CHECK_OK(ct_npy_save(ctx, z, path));
    CHECK_OK(ct_npy_load(ctx, path, &r));
    float sb[4] = {0};
    if (r) CHECK_OK(ct_tensor_to_host(r, sb, sizeof sb));
    CHECK(memcmp(sp, sb, sizeof sp) == 0);
    ct_tensor_release(z), ct_tensor_release(r);
    /* bfloat16 has no NumPy dtype */
    CHECK_OK(ct_tensor_zeros(ctx, CT_BFLOAT16, 1, s4, &z));
    CHECK_ST(ct_npy_save(ctx, z, path), CT_ERR_DTYPE);
    ct_tensor_release(z);
    remove(path);
    /* bad paths */
    CHECK_ST(ct_npy_load(ctx, "/nonexistent/dir/x.npy", &r), CT_ERR_IO);
    CHECK(strstr(ct_ctx_last_error(ctx), "/nonexistent/dir/x.npy") != NULL);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s4, &z));
    CHECK_ST(ct_npy_save(ctx, z, "/nonexistent/dir/x.npy"), CT_ERR_IO);
    CHECK_ST(ct_npy_save(ctx, z, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_npy_load(ctx, NULL, &r), CT_ERR_INVALID_ARG);
    ct_tensor_release(z);
}

/* A v1.0 file around a header text (padded as NumPy pads) and `data_bytes` zero bytes. */
static size_t mk_npy(unsigned char *buf, const char *hdr, size_t data_bytes) {
    size_t n = strlen(hdr), total = (10 + n + 1 + 63) / 64 * 64, hlen = total - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, hdr, n);
    memset(buf + 10 + n, ' ', hlen - n - 1);
    buf[total - 1] = '\n';
    memset(buf + total, 0, data_bytes);
    return total + data_bytes;
}

TEST(npy_hostile_headers) {
    static const struct {
        const char *hdr;
        size_t data;
        ct_status want;
    } bad[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, }", 0, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'shape': (2,), }", 8, CT_ERR_FORMAT},
        {"{'fortran_order': False, 'shape': (2,), }", 8, CT_ERR_FORMAT},
        {"{'descr': '<c32', 'fortran_order': False, 'shape': (2,), }", 16, CT_ERR_DTYPE},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16, CT_ERR_DTYPE},
        {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 4, CT_ERR_DTYPE},
        {"{'descr': 'f4', 'fortran_order': False, 'shape': (2,), }", 8, CT_ERR_FORMAT},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", 8, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", 8, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8,
         CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 8,
         CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 4,
         CT_ERR_FORMAT},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", 8, CT_ERR_FORMAT},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8,
         CT_ERR_FORMAT},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", 8, CT_ERR_DTYPE},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } trailing", 8, CT_ERR_FORMAT},
        {"['descr', '<f4']", 8, CT_ERR_FORMAT},
        {"", 8, CT_ERR_FORMAT},
    };
    unsigned char buf[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = mk_npy(buf, bad[i].hdr, bad[i].data);
        ct_tensor *t = NULL;
        ct_status st = ct_npy_load_buffer(ctx, buf, n, &t);
        CHECK_MSG(st == bad[i].want, "header %zu (%s): %s, want %s (%s)", i, bad[i].hdr,
                  ct_status_str(st), ct_status_str(bad[i].want), ct_ctx_last_error(ctx));
        CHECK_MSG(strstr(ct_ctx_last_error(ctx), "npy_load") != NULL, "header %zu: message '%s'", i,
                  ct_ctx_last_error(ctx));
        CHECK(t == NULL);
        ct_tensor_release(t);
    }
    /* the preamble: magic, version, header length past the end */
    size_t n = mk_npy(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8);
    ct_tensor *t = NULL;
    buf[0] = 'x';
    CHECK_ST(ct_npy_load_buffer(ctx, buf, n, &t), CT_ERR_FORMAT);
    buf[0] = 0x93;
    buf[6] = 4;
    CHECK_ST(ct_npy_load_buffer(ctx, buf, n, &t), CT_ERR_FORMAT);
    CHECK(strstr(ct_ctx_last_error(ctx), "version 4.0") != NULL);
    buf[6] = 1;
    buf[9] = 0x7f;
    CHECK_ST(ct_npy_load_buffer(ctx, buf, n, &t), CT_ERR_FORMAT);
    buf[9] = 0;
    buf[6] = 2; /* a v2 length read from bytes 8..11 runs past the end */
    CHECK_ST(ct_npy_load_buffer(ctx, buf, n, &t), CT_ERR_FORMAT);
    buf[6] = 1;
    CHECK_OK(ct_npy_load_buffer(ctx, buf, n, &t));
    ct_tensor_release(t);
    t = NULL;
    /* every truncation and every single-byte change of a valid file: a status, never a crash */
    for (size_t len = 0; len < n; len++) {
        ct_status st = ct_npy_load_buffer(ctx, buf, len, &t);
        CHECK_MSG(st != CT_OK && t == NULL, "truncated to %zu bytes loads", len);
        CHECK(ct_ctx_last_error(ctx)[0] != 0);
    }
    unsigned char orig[1024];
    memcpy(orig, buf, n);
    for (size_t pos = 0; pos < n; pos++)
        for (int flip = 1; flip < 256; flip *= 3) {
            buf[pos] = (unsigned char)(orig[pos] ^ flip);
            ct_status st = ct_npy_load_buffer(ctx, buf, n, &t);
            CHECK(st == CT_OK || (t == NULL && ct_ctx_last_error(ctx)[0] != 0));
            ct_tensor_release(t);
            t = NULL;
            buf[pos] = orig[pos];
        }
    CHECK_ST(ct_npy_load_buffer(ctx, NULL, 10, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_npy_load_buffer(ctx, buf, n, NULL), CT_ERR_INVALID_ARG);
}

/* ---- from_blob ---- */
static int deleted;
static void count_delete(void *data, void *user) {
    deleted++;
    CHECK(user == (void *)&deleted);
    free(data);
}

TEST(from_blob_zero_copy) {
    float *mem = malloc(12 * sizeof(float));
    for (int i = 0; i < 12; i++)
        mem[i] = (float)i;
    int64_t sh[2] = {3, 4};
    ct_tensor *t = NULL, *v = NULL, *s = NULL;
    deleted = 0;
    CHECK_OK(ct_tensor_from_blob(ctx, mem, CT_FLOAT32, 2, sh, NULL, count_delete, &deleted, &t));
    CHECK(ct_tensor_data_ptr(t) == mem);
    CHECK(ct_tensor_is_contiguous(t));
    /* writes through the tensor land in the caller's memory */
    CHECK_OK(ct_mul_scalar_(ctx, t, 2.0));
    CHECK(mem[5] == 10.0f);
    CHECK_OK(ct_tensor_transpose(ctx, t, 0, 1, &v));
    CHECK_OK(ct_sum(ctx, v, 0, NULL, false, &s));
    double sum = 0;
    CHECK_OK(ct_tensor_item(s, &sum));
    CHECK(sum == 132.0);
    ct_tensor_release(t);
    CHECK(deleted == 0); /* the view still holds the memory */
    ct_tensor_release(s);
    ct_tensor_release(v);
    CHECK(deleted == 1);

    /* strided: every other column of a 3x8 buffer, and a reversed view (negative stride) */
    double buf[24];
    for (int i = 0; i < 24; i++)
        buf[i] = i;
    int64_t st2[2] = {8, 2}, sh2[2] = {3, 4};
    CHECK_OK(ct_tensor_from_blob(ctx, buf, CT_FLOAT64, 2, sh2, st2, NULL, NULL, &t));
    double *r = tu_read(t);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            CHECK(r && r[i * 4 + j] == buf[i * 8 + j * 2]);
    free(r);
    ct_tensor_release(t);
    int64_t sh3[1] = {5}, st3[1] = {-3};
    CHECK_OK(ct_tensor_from_blob(ctx, buf + 20, CT_FLOAT64, 1, sh3, st3, NULL, NULL, &t));
    r = tu_read(t);
    for (int i = 0; i < 5; i++)
        CHECK(r && r[i] == 20 - 3 * i);
    free(r);
    CHECK(ct_tensor_data_ptr(t) == buf + 20);
    ct_tensor *c = NULL;
    CHECK_OK(ct_tensor_clone(ctx, t, &c));
    ct_tensor_release(c);
    ct_tensor_release(t);
    /* zero-size, 0-d, and errors */
    int64_t z[2] = {0, 5};
    CHECK_OK(ct_tensor_from_blob(ctx, NULL, CT_INT32, 2, z, NULL, NULL, NULL, &t));
    CHECK(ct_tensor_numel(t) == 0);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_from_blob(ctx, buf, CT_FLOAT64, 0, NULL, NULL, NULL, NULL, &t));
    double one = -1;
    CHECK_OK(ct_tensor_item(t, &one));
    CHECK(one == 0);
    ct_tensor_release(t);
    CHECK_ST(ct_tensor_from_blob(ctx, NULL, CT_FLOAT32, 2, sh, NULL, NULL, NULL, &t),
             CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_from_blob(ctx, (char *)buf + 1, CT_FLOAT32, 2, sh, NULL, NULL, NULL, &t),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "aligned") != NULL);
    int64_t huge[2] = {3, 4}, hs[2] = {INT64_MAX / 2, 1};
    CHECK_ST(ct_tensor_from_blob(ctx, buf, CT_FLOAT32, 2, huge, hs, NULL, NULL, &t),
             CT_ERR_OVERFLOW);
    int64_t neg[1] = {-1};
    CHECK_ST(ct_tensor_from_blob(ctx, buf, CT_FLOAT32, 1, neg, NULL, NULL, NULL, &t), CT_ERR_SHAPE);
    CHECK_ST(ct_tensor_from_blob(ctx, buf, CT_FLOAT8_E4M3FN, 1, sh3, NULL, NULL, NULL, &t),
             CT_ERR_DTYPE);
    CHECK_ST(ct_tensor_from_blob(ctx, buf, CT_FLOAT32, 2, sh, NULL, NULL, NULL, NULL),
             CT_ERR_INVALID_ARG);
    CHECK(t == NULL);
}

/* ct_set_print_options as torch.set_printoptions: precision, threshold, edgeitems, linewidth,
 * sci_mode and the profiles, against the strings torch 1.13 printed
 * (tests/gen_print_options_ref.py); the options are the context's, restored afterwards. */
TEST(print_options_match_torch) {
    for (size_t k = 0; k < sizeof po_cases / sizeof po_cases[0]; k++) {
        const struct po_case *c = &po_cases[k];
        ct_tensor *t = tu_from_vals_cx(ctx, c->dtype, c->ndim, c->shape, c->v);
        CHECK_OK(ct_set_print_options(ctx, &c->opts));
        char *s = NULL;
        CHECK_OK(ct_tensor_to_string(t, &s));
        CHECK_MSG(s && !strcmp(s, c->expect), "%s:\n%s\ntorch:\n%s", c->name, s ? s : "(null)",
                  c->expect);
        free(s);
        ct_tensor_release(t);
    }
    /* the profiles are the options torch's set_printoptions(profile=...) sets */
    ct_print_options o;
    CHECK_OK(ct_print_options_profile("short", &o));
    CHECK(o.precision == 2 && o.edgeitems == 2 && o.threshold == 1000 && o.linewidth == 80);
    CHECK_OK(ct_print_options_profile("full", &o));
    CHECK(o.threshold == INT64_MAX && o.precision == 4);
    CHECK_ST(ct_print_options_profile("long", &o), CT_ERR_INVALID_ARG);
    /* bad values change nothing; NULL restores the defaults */
    ct_print_options bad = ct_print_options_default();
    bad.linewidth = 0;
    CHECK_OK(ct_set_print_options(ctx, &po_cases[0].opts));
    CHECK_ST(ct_set_print_options(ctx, &bad), CT_ERR_INVALID_ARG);
    CHECK(ct_get_print_options(ctx).precision == po_cases[0].opts.precision);
    bad = ct_print_options_default(), bad.precision = 31;
    CHECK_ST(ct_set_print_options(ctx, &bad), CT_ERR_INVALID_ARG);
    bad = ct_print_options_default(), bad.size = 3; /* not a ct_print_options */
    CHECK_ST(ct_set_print_options(ctx, &bad), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_set_print_options(ctx, NULL));
    const ct_print_options d = ct_get_print_options(ctx);
    CHECK(d.precision == 4 && d.threshold == 1000 && d.edgeitems == 3 && d.linewidth == 80 &&
          d.sci_mode == -1);
    CHECK(ct_get_print_options(NULL).precision == 4);
    CHECK_ST(ct_set_print_options(NULL, NULL), CT_ERR_INVALID_ARG);
}

int main(void) {
    ct_ctx_options o = {.size = sizeof o};
    if (ct_ctx_create(&o, &ctx) != CT_OK) return 1;
    RUN(print_matches_torch);
    RUN(print_options_match_torch);
    RUN(print_to_file_and_errors);
    RUN(npy_reads_numpy_files);
    RUN(npy_save_equals_numpy_bytes);
    RUN(npy_round_trip);
    RUN(npy_hostile_headers);
    RUN(from_blob_zero_copy);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

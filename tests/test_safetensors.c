/* safetensors (include/ctorch/safetensors.h): a file written by an independent writer
 * (tests/gen_safetensors_ref.py, numpy) reads back to its values, including F8_E8M0, F4 and F6;
 * every dtype round-trips bit for bit (non-contiguous and zero-size tensors too); the writer's
 * bytes equal a hand-written expected file; every truncation, byte flip and crafted malformed
 * header fails with CT_ERR_FORMAT/CT_ERR_DTYPE and a message, never a crash; allocation failures
 * at every point leak nothing. */
#include "test_util.h"

#include "data/safetensors_ref.h"

#include <stdio.h>
#include <unistd.h>

static ct_ctx *ctx;

static void check_raw(const ct_safetensors *f, const char *name, ct_dtype dt, int ndim,
                      const int64_t *shape, const void *want, size_t nbytes) {
    ct_tensor *t = NULL;
    CHECK_OK(ct_safetensors_get(f, name, &t));
    if (!t) return;
    CHECK_MSG(ct_tensor_dtype(t) == dt, "%s: dtype %s", name, ct_dtype_name(ct_tensor_dtype(t)));
    CHECK_MSG(ct_tensor_ndim(t) == ndim, "%s: ndim %d", name, ct_tensor_ndim(t));
    for (int d = 0; d < ndim && d < ct_tensor_ndim(t); d++)
        CHECK_MSG(ct_tensor_shape(t)[d] == shape[d], "%s: dim %d", name, d);
    unsigned char buf[256];
    if (nbytes <= sizeof buf && ct_tensor_to_host(t, buf, nbytes) == CT_OK)
        CHECK_MSG(memcmp(buf, want, nbytes) == 0, "%s: values differ", name);
    else
        CHECK_MSG(0, "%s: could not read %zu bytes", name, nbytes);
    ct_tensor_release(t);
}

TEST(reads_independent_file) {
    ct_safetensors *f = NULL;
    CHECK_OK(ct_safetensors_load(ctx, CT_SOURCE_DIR "/tests/data/safetensors_ref.safetensors", &f));
    if (!f) return;
    CHECK(ct_safetensors_count(f) == 11);
    CHECK(strcmp(ct_safetensors_name(f, 0), "layer.weight") == 0);
    CHECK(strcmp(ct_safetensors_name(f, 10), "double") == 0);
    CHECK(ct_safetensors_name(f, 11) == NULL);
    CHECK(strcmp(ct_safetensors_metadata(f, "format"), "pt") == 0);
    CHECK(strcmp(ct_safetensors_metadata(f, "note"), "caf\xc3\xa9 \"quoted\"") == 0);
    CHECK(ct_safetensors_metadata(f, "nope") == NULL);
    check_raw(f, "layer.weight", CT_FLOAT32, 2, (int64_t[]){2, 3}, ref_f32, sizeof ref_f32);
    check_raw(f, "ids", CT_INT64, 1, (int64_t[]){4}, ref_i64, sizeof ref_i64);
    check_raw(f, "bf", CT_BFLOAT16, 1, (int64_t[]){5}, ref_bf16_bits, sizeof ref_bf16_bits);
    uint16_t h = ct_f32_to_f16((float)ref_f16);
    check_raw(f, "scalar_half", CT_FLOAT16, 0, NULL, &h, 2);
    check_raw(f, "mask", CT_BOOL, 1, (int64_t[]){4}, ref_bool, sizeof ref_bool);
    check_raw(f, "mx.scales", CT_FLOAT8_E8M0FNU, 1, (int64_t[]){5}, ref_e8m0, sizeof ref_e8m0);
    check_raw(f, "fp8", CT_FLOAT8_E4M3FN, 2, (int64_t[]){2, 3}, ref_e4m3, sizeof ref_e4m3);
    check_raw(f, "mx.codes", CT_FLOAT4_E2M1FN, 2, (int64_t[]){2, 3}, ref_f4, sizeof ref_f4);
    check_raw(f, "six", CT_FLOAT6_E2M3FN, 1, (int64_t[]){4}, ref_f6, sizeof ref_f6);
    check_raw(f, "empty", CT_INT32, 2, (int64_t[]){0, 3}, "", 0);
    check_raw(f, "double", CT_FLOAT64, 2, (int64_t[]){2, 2}, ref_f64, sizeof ref_f64);
    ct_tensor *t = NULL;
    CHECK_ST(ct_safetensors_get(f, "missing", &t), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "missing") != NULL);
    ct_safetensors_free(f);
}

/* Random codes valid for the dtype (bool 0/1, sub-byte formats masked to their bits). */
static ct_tensor *random_tensor(ct_dtype dt, int nd, const int64_t *shape, unsigned *seed) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    size_t isz = ct_dtype_size(dt);
    unsigned char *b = malloc((size_t)n * isz + 1);
    int bits = ct_dtype_get_info(dt)->bits;
    for (size_t i = 0; i < (size_t)n * isz; i++) {
        *seed = *seed * 1103515245u + 12345u;
        unsigned v = *seed >> 16;
        b[i] = dt == CT_BOOL ? (unsigned char)(v & 1)
                             : (unsigned char)(v & ((1u << (bits < 8 ? bits : 8)) - 1));
    }
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, b, dt, nd, shape, &t));
    free(b);
    return t;
}

static bool same_bytes(const ct_tensor *a, const ct_tensor *b) {
    if (ct_tensor_dtype(a) != ct_tensor_dtype(b) || ct_tensor_ndim(a) != ct_tensor_ndim(b))
        return false;
    for (int d = 0; d < ct_tensor_ndim(a); d++)
        if (ct_tensor_shape(a)[d] != ct_tensor_shape(b)[d]) return false;
    size_t n = (size_t)ct_tensor_numel(a) * ct_dtype_size(ct_tensor_dtype(a));
    unsigned char *x = malloc(n + 1), *y = malloc(n + 1);
    bool ok = ct_tensor_to_host(a, x, n) == CT_OK && ct_tensor_to_host(b, y, n) == CT_OK &&
              memcmp(x, y, n) == 0;
    free(x), free(y);
    return ok;
}

TEST(round_trip_every_dtype) {
    char path[] = "/tmp/ct_st_rtXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    enum { EXTRA = 3 };
    ct_tensor *ts[CT_DTYPE_COUNT + EXTRA];
    char names[CT_DTYPE_COUNT + EXTRA][32];
    const char *np[CT_DTYPE_COUNT + EXTRA];
    unsigned seed = 99;
    int n = 0;
    for (int d = 0; d < CT_DTYPE_COUNT; d++) {
        ct_tensor *t = random_tensor((ct_dtype)d, 2, (int64_t[]){3, 4}, &seed);
        if (!ct_dtype_get_info((ct_dtype)d)->safetensors_name) { /* complex128: refused */
            const char *nm = "c";
            CHECK(ct_safetensors_save(ctx, path, 1, &nm, (const ct_tensor *const *)&t, NULL) ==
                  CT_ERR_DTYPE);
            ct_tensor_release(t);
            continue;
        }
        ts[n] = t;
        snprintf(names[n], sizeof names[n], "t.%s", ct_dtype_name((ct_dtype)d));
        n++;
    }
    ct_tensor *base = random_tensor(CT_FLOAT32, 2, (int64_t[]){3, 5}, &seed);
    CHECK_OK(ct_tensor_transpose(ctx, base, 0, 1, &ts[n])); /* non-contiguous */
    snprintf(names[n++], 32, "transposed");
    ts[n] = random_tensor(CT_FLOAT64, 0, NULL, &seed);
    snprintf(names[n++], 32, "zero_d");
    ts[n] = random_tensor(CT_INT16, 3, (int64_t[]){2, 0, 4}, &seed);
    snprintf(names[n++], 32, "zero_size");
    for (int i = 0; i < n; i++)
        np[i] = names[i];
    const char *meta[] = {"format", "pt", "tab\tand \"quote\"", "\\back", NULL};
    CHECK_OK(ct_safetensors_save(ctx, path, n, np, (const ct_tensor *const *)ts, meta));
    size_t len = 0;
    unsigned char *raw = tu_read_file(path, &len);
    CHECK(raw && len > 8);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--)
        hl = hl << 8 | raw[i];
    CHECK_MSG((8 + hl) % 64 == 0, "data starts at %llu, not 64-byte aligned",
              (unsigned long long)(8 + hl));
    free(raw);
    ct_safetensors *f = NULL;
    CHECK_OK(ct_safetensors_load(ctx, path, &f));
    CHECK(ct_safetensors_count(f) == n);
    CHECK(strcmp(ct_safetensors_metadata(f, "tab\tand \"quote\""), "\\back") == 0);
    for (int i = 0; i < n && f; i++) {
        ct_tensor *t = NULL;
        CHECK_OK(ct_safetensors_get(f, names[i], &t));
        CHECK_MSG(t && same_bytes(t, ts[i]), "%s does not round-trip", names[i]);
        ct_tensor_release(t);
    }
    /* the written order: element size descending, so each tensor is aligned to its size */
    size_t prev = 8;
    for (int i = 0; i < ct_safetensors_count(f); i++) {
        ct_tensor *t = NULL;
        CHECK_OK(ct_safetensors_get(f, ct_safetensors_name(f, i), &t));
        size_t s = ct_dtype_size(ct_tensor_dtype(t));
        CHECK_MSG(s <= prev, "%s (size %zu) after size %zu", ct_safetensors_name(f, i), s, prev);
        prev = s;
        ct_tensor_release(t);
    }
    ct_safetensors_free(f);
    for (int i = 0; i < n; i++)
        ct_tensor_release(ts[i]);
    ct_tensor_release(base);
    unlink(path);
}

/* The writer's exact bytes for a small file. */
TEST(writer_bytes_exact) {
    char path[] = "/tmp/ct_st_exXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    int32_t iv[2] = {1, -2};
    float fv = 1.0f;
    ct_tensor *b = NULL, *a = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, iv, CT_INT32, 1, (int64_t[]){2}, &b));
    CHECK_OK(ct_tensor_from_host(ctx, &fv, CT_FLOAT32, 0, NULL, &a));
    const char *names[2] = {"b", "a"};
    const ct_tensor *ts[2] = {b, a};
    const char *meta[] = {"k", "v", NULL};
    CHECK_OK(ct_safetensors_save(ctx, path, 2, names, ts, meta));
    char want[256];
    const char *json = "{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"F32\",\"shape\":[],"
                       "\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"I32\",\"shape\":[2],"
                       "\"data_offsets\":[4,12]}}";
    size_t jl = strlen(json), hl = jl;
    while ((8 + hl) % 64)
        hl++;
    memset(want, ' ', sizeof want);
    for (int i = 0; i < 8; i++)
        want[i] = (char)((hl >> (8 * i)) & 0xff);
    memcpy(want + 8, json, jl);
    memcpy(want + 8 + hl, &fv, 4);
    memcpy(want + 8 + hl + 4, iv, 8);
    size_t len = 0;
    unsigned char *got = tu_read_file(path, &len);
    CHECK_MSG(len == 8 + hl + 12, "file is %zu bytes, want %zu", len, 8 + hl + 12);
    CHECK(got && len == 8 + hl + 12 && memcmp(got, want, len) == 0);
    free(got);
    unlink(path);
    /* writer errors: nothing is left behind */
    CHECK_ST(ct_safetensors_save(ctx, "/nonexistent-dir/x.safetensors", 2, names, ts, NULL),
             CT_ERR_IO);
    CHECK(strstr(ct_ctx_last_error(ctx), "nonexistent-dir") != NULL);
    const char *dup[2] = {"a", "a"};
    CHECK_ST(ct_safetensors_save(ctx, path, 2, dup, ts, NULL), CT_ERR_INVALID_ARG);
    const char *md[2] = {"__metadata__", "x"};
    CHECK_ST(ct_safetensors_save(ctx, path, 2, md, ts, NULL), CT_ERR_INVALID_ARG);
    const char *badmeta[] = {"k", NULL};
    CHECK_ST(ct_safetensors_save(ctx, path, 2, names, ts, badmeta), CT_ERR_INVALID_ARG);
    ct_tensor *odd = NULL;
    uint8_t codes[3] = {1, 2, 3};
    CHECK_OK(ct_tensor_from_host(ctx, codes, CT_FLOAT4_E2M1FN, 1, (int64_t[]){3}, &odd));
    const ct_tensor *o1[1] = {odd};
    CHECK_ST(ct_safetensors_save(ctx, path, 1, names, o1, NULL), CT_ERR_SHAPE);
    CHECK(access(path, F_OK) != 0);
    ct_tensor_release(odd);
    ct_tensor_release(a);
    ct_tensor_release(b);
}

static ct_status load_all(ct_ctx *c, const void *buf, size_t n) {
    ct_safetensors *f = NULL;
    ct_status st = ct_safetensors_load_buffer(c, buf, n, &f);
    if (st != CT_OK) return st;
    for (int i = 0; i < ct_safetensors_count(f) && st == CT_OK; i++) {
        ct_tensor *t = NULL;
        st = ct_safetensors_get(f, ct_safetensors_name(f, i), &t);
        ct_tensor_release(t);
    }
    ct_safetensors_free(f);
    return st;
}

TEST(truncations_and_flips_fail_cleanly) {
    size_t len = 0;
    unsigned char *raw =
        tu_read_file(CT_SOURCE_DIR "/tests/data/safetensors_ref.safetensors", &len);
    CHECK(raw != NULL);
    if (!raw) return;
    CHECK_OK(load_all(ctx, raw, len));
    for (size_t n = 0; n < len; n++) {
        ct_status st = load_all(ctx, raw, n);
        CHECK_MSG(st == CT_ERR_FORMAT, "prefix %zu: status %d", n, (int)st);
        CHECK_MSG(ct_ctx_last_error(ctx)[0] != 0, "prefix %zu: no message", n);
    }
    unsigned char *m = malloc(len);
    int ok = 0, bad = 0;
    for (size_t i = 0; i < len; i++)
        for (int k = 0; k < 3; k++) {
            static const unsigned char x[3] = {0x01, 0x80, 0xff};
            memcpy(m, raw, len);
            m[i] ^= x[k];
            ct_status st = load_all(ctx, m, len);
            if (st == CT_OK) {
                ok++;
            } else {
                bad++;
                CHECK_MSG(st == CT_ERR_FORMAT || st == CT_ERR_DTYPE, "flip at %zu: status %d (%s)",
                          i, (int)st, ct_ctx_last_error(ctx));
                CHECK_MSG(ct_ctx_last_error(ctx)[0] != 0, "flip at %zu: no message", i);
            }
        }
    CHECK(ok > 0 && bad > 0); /* flips in the data are fine, flips in the header mostly not */
    free(m);
    free(raw);
}

static ct_status crafted(const char *json, size_t payload) {
    size_t jl = strlen(json);
    unsigned char *b = calloc(1, 8 + jl + payload + 1);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)jl >> (8 * i));
    memcpy(b + 8, json, jl);
    ct_status st = load_all(ctx, b, 8 + jl + payload);
    free(b);
    return st;
}

TEST(crafted_headers) {
    static const struct {
        const char *json;
        size_t payload;
        ct_status want;
        const char *msg;
    } cases[] = {
        {"{}", 0, CT_OK, NULL},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 8, CT_OK, NULL},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":[{\"y\":null}]}}", 8,
         CT_OK, NULL},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4, CT_ERR_FORMAT,
         "need 8"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 12, CT_ERR_FORMAT,
         "trailing"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, CT_ERR_FORMAT,
         "tile"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
         4, CT_ERR_FORMAT, "tile"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
         8, CT_ERR_FORMAT, "twice"},
        {"{\"a\":{\"dtype\":\"U16\",\"shape\":[1],\"data_offsets\":[0,2]}}", 2, CT_ERR_DTYPE,
         "U16"},
        {"{\"a\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,2]}}", 2, CT_ERR_FORMAT,
         "unknown dtype"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, CT_ERR_FORMAT,
         "non-negative"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", 4, CT_ERR_FORMAT,
         "fraction"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4,
         CT_ERR_FORMAT, "CT_MAX_DIMS"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", 4,
         CT_ERR_FORMAT, "overflow"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[99999999999999999999],\"data_offsets\":[0,4]}}", 4,
         CT_ERR_FORMAT, "64 bits"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", 4, CT_ERR_FORMAT,
         "data_offsets"},
        {"{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2, CT_ERR_FORMAT,
         "whole bytes"},
        {"{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, CT_ERR_FORMAT, "lacks dtype"},
        {"{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
         CT_ERR_FORMAT, "duplicate"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}} x", 4, CT_ERR_FORMAT,
         "trailing"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}", 4, CT_ERR_FORMAT,
         "expected"},
        {"{\"a\xff\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, CT_ERR_FORMAT,
         "UTF-8"},
        {"{\"a\\u0000\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
         CT_ERR_FORMAT, "NUL"},
        {"{\"a\\ud800\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
         CT_ERR_FORMAT, "escape"},
        {"{\"__metadata__\":{\"k\":1}}", 0, CT_ERR_FORMAT, "string"},
        {"{\"__metadata__\":{},\"__metadata__\":{}}", 0, CT_ERR_FORMAT, "duplicate"},
        {"[]", 0, CT_ERR_FORMAT, "JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ct_status st = crafted(cases[i].json, cases[i].payload);
        CHECK_MSG(st == cases[i].want, "case %zu: status %d want %d (%s)", i, (int)st,
                  (int)cases[i].want, ct_ctx_last_error(ctx));
        if (cases[i].msg)
            CHECK_MSG(strstr(ct_ctx_last_error(ctx), cases[i].msg) != NULL,
                      "case %zu: message \"%s\" lacks \"%s\"", i, ct_ctx_last_error(ctx),
                      cases[i].msg);
    }
    /* deep nesting in an ignored field is bounded, not a stack overflow */
    char deep[4200];
    int k = snprintf(deep, sizeof deep, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"x\":");
    for (int i = 0; i < 2000; i++)
        deep[k++] = '[';
    deep[k] = 0;
    CHECK_ST(crafted(deep, 4), CT_ERR_FORMAT);
    CHECK(strstr(ct_ctx_last_error(ctx), "deep") != NULL);
    /* an absurd header length */
    unsigned char big[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, '{', '}'};
    CHECK_ST(load_all(ctx, big, sizeof big), CT_ERR_FORMAT);
    CHECK(strstr(ct_ctx_last_error(ctx), "limit") != NULL);
    ct_safetensors *f = NULL;
    CHECK_ST(ct_safetensors_load(ctx, "/nonexistent.safetensors", &f), CT_ERR_IO);
    CHECK(f == NULL);
    CHECK_ST(ct_safetensors_load(ctx, "/tmp", &f), CT_ERR_IO);
}

TEST(allocation_failures_leak_nothing) {
    size_t len = 0;
    unsigned char *raw =
        tu_read_file(CT_SOURCE_DIR "/tests/data/safetensors_ref.safetensors", &len);
    char path[] = "/tmp/ct_st_oomXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    int oom = 0, n;
    for (n = 0; n < 2000; n++) {
        tu_fault fs = {0, n, 0, false};
        ct_ctx_options o = {.size = sizeof o, .allocator = {tu_fault_alloc, tu_fault_free, &fs}};
        ct_ctx *c = NULL;
        if (ct_ctx_create(&o, &c) != CT_OK) continue;
        long before = fs.live;
        ct_safetensors *f = NULL;
        ct_status st = ct_safetensors_load_buffer(c, raw, len, &f);
        ct_tensor *ts[11] = {0};
        const char *names[11];
        for (int i = 0; st == CT_OK && i < ct_safetensors_count(f); i++) {
            names[i] = ct_safetensors_name(f, i);
            st = ct_safetensors_get(f, names[i], &ts[i]);
        }
        if (st == CT_OK)
            st = ct_safetensors_save(c, path, 11, names, (const ct_tensor *const *)ts, NULL);
        for (int i = 0; i < 11; i++)
            ct_tensor_release(ts[i]);
        ct_safetensors_free(f);
        if (st != CT_OK) {
            oom++;
            CHECK_MSG(st == CT_ERR_OOM, "n=%d: status %d (%s)", n, (int)st, ct_ctx_last_error(c));
        }
        ct_ctx_empty_cache(c);
        CHECK_MSG(fs.live <= before, "n=%d: %ld blocks leaked", n, fs.live - before);
        ct_ctx_free(c);
        CHECK_MSG(fs.live == 0, "n=%d: %ld blocks live after ctx_free", n, fs.live);
        if (st == CT_OK) break;
    }
    CHECK(oom > 5 && n < 2000);
    free(raw);
    unlink(path);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(reads_independent_file);
    RUN(round_trip_every_dtype);
    RUN(writer_bytes_exact);
    RUN(truncations_and_flips_fail_cleanly);
    RUN(crafted_headers);
    RUN(allocation_failures_leak_nothing);
    ct_ctx_free(ctx);
    return ct_test_end();
}

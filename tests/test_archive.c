/* PyTorch checkpoints and .npz archives against files torch 1.13 and NumPy wrote
 * (tests/data/archive_ref.h, from scripts/gen_archive_ref.py): every entry torch.load reads from a
 * training checkpoint (pickle protocols 2 and 4, big-endian records, a bare tensor), np.load's
 * arrays (stored, deflated, deflate's stored blocks), torch.save's data.pkl byte for byte for state
 * dicts rebuilt here, round trips, hostile files (each a status and a message naming the problem),
 * truncations and bit flips of a real file, and every allocation failure of a load and a save. */
#include "test_util.h"

#include <unistd.h>

#include "data/archive_ref.h"

static ct_ctx *ctx;

static void tmp_path(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "/tmp/ct_test_archive_%d_%s", (int)getpid(), tag);
}

/* The test's own reading of a stored ZIP member: walk the local headers from byte 0. */
static const unsigned char *zip_member(const unsigned char *b, size_t len, const char *suffix,
                                       size_t *n, size_t *off) {
    size_t p = 0, sl = strlen(suffix);
    while (p + 30 <= len && b[p] == 'P' && b[p + 1] == 'K' && b[p + 2] == 3 && b[p + 3] == 4) {
        size_t csize =
            b[p + 18] | b[p + 19] << 8 | (size_t)b[p + 20] << 16 | (size_t)b[p + 21] << 24;
        size_t nl = b[p + 26] | b[p + 27] << 8, xl = b[p + 28] | b[p + 29] << 8;
        const char *name = (const char *)b + p + 30;
        size_t data = p + 30 + nl + xl;
        if (nl >= sl && memcmp(name + nl - sl, suffix, sl) == 0) {
            *n = csize;
            *off = data;
            return b + data;
        }
        p = data + csize;
    }
    return NULL;
}

/* CRC-32 bit by bit (independent of the library's table-driven one). */
static unsigned crc32_ref(const unsigned char *p, size_t n) {
    unsigned c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static void check_entries(const char *what, const ct_archive *a) {
    CHECK_MSG(ct_archive_count(a) == ck_n, "%s: %d entries, want %d", what, ct_archive_count(a),
              ck_n);
    for (int i = 0; i < ck_n && i < ct_archive_count(a); i++) {
        const struct ck_entry *e = &ck_entries[i];
        const char *name = ct_archive_name(a, i);
        CHECK_MSG(strcmp(name, e->name) == 0, "%s: entry %d is '%s', want '%s'", what, i, name,
                  e->name);
        CHECK_MSG(ct_archive_kind(a, i) == e->kind, "%s: '%s' kind %d, want %d", what, e->name,
                  ct_archive_kind(a, i), e->kind);
        if (e->kind == CT_ENTRY_TENSOR) {
            ct_tensor *t = NULL;
            CHECK_OK(ct_archive_get(a, e->name, &t));
            if (!t) continue;
            CHECK_MSG(ct_tensor_dtype(t) == e->dtype, "%s: '%s' dtype", what, e->name);
            CHECK_MSG(ct_tensor_requires_grad(t) == (e->rg != 0), "%s: '%s' requires_grad", what,
                      e->name);
            /* the file's layout, as torch.load gives it (a transpose stays a transposed view) */
            for (int d = 0; d < e->ndim && tu_same_shape(t, e->ndim, e->shape); d++)
                CHECK_MSG(e->shape[d] < 2 || ct_tensor_stride(t)[d] == e->stride[d],
                          "%s: '%s' stride %d is %lld, torch's %lld", what, e->name, d,
                          (long long)ct_tensor_stride(t)[d], (long long)e->stride[d]);
            if (ct_dtype_is_complex(e->dtype)) {
                double *v = tu_read_cx(t);
                CHECK(tu_same_shape(t, e->ndim, e->shape));
                for (int64_t k = 0; v && k < 2 * ct_tensor_numel(t); k++)
                    CHECK_MSG(tu_same_val(v[k], e->v[k]), "%s: '%s'[%lld]", what, e->name,
                              (long long)k);
                free(v);
            } else {
                char w[160];
                snprintf(w, sizeof w, "%s: '%s'", what, e->name);
                tu_same_as(w, t, e->v, e->ndim, e->shape, 0);
            }
            ct_tensor_release(t);
        } else if (e->kind == CT_ENTRY_INT || e->kind == CT_ENTRY_BOOL) {
            int64_t v = -1;
            CHECK_OK(ct_archive_get_int(a, e->name, &v));
            CHECK_MSG(v == e->i, "%s: '%s' = %lld, want %lld", what, e->name, (long long)v, e->i);
        } else if (e->kind == CT_ENTRY_FLOAT) {
            double v = 0;
            CHECK_OK(ct_archive_get_float(a, e->name, &v));
            CHECK_MSG(v == e->f, "%s: '%s' = %.17g, want %.17g", what, e->name, v, e->f);
        } else if (e->kind == CT_ENTRY_STRING || e->kind == CT_ENTRY_BYTES) {
            const char *s = NULL;
            size_t l = 0;
            CHECK_OK(ct_archive_get_string(a, e->name, &s, &l));
            CHECK_MSG(s && l == e->slen && memcmp(s, e->s, l) == 0 && s[l] == 0, "%s: '%s' string",
                      what, e->name);
        }
    }
}

TEST(torch_load_reads_what_torch_reads) {
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, ck_pt, ck_pt_len, &a));
    if (a) check_entries("protocol 2", a);
    ct_archive_free(a);
    a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, ck4_pt, ck4_pt_len, &a));
    if (a) check_entries("protocol 4", a);
    ct_archive_free(a);
    a = NULL; /* the legacy format (torch < 1.6, _use_new_zipfile_serialization=False) */
    CHECK_OK(ct_torch_load_buffer(ctx, ck_legacy_pt, ck_legacy_pt_len, &a));
    if (a) check_entries("legacy", a);
    ct_archive_free(a);
    a = NULL; /* legacy with pickle protocol 4 (FRAME opcodes) */
    CHECK_OK(ct_torch_load_buffer(ctx, ck_legacy4_pt, ck_legacy4_pt_len, &a));
    if (a) check_entries("legacy, protocol 4", a);
    ct_archive_free(a);
    /* the same from a file (mapped) */
    char path[128];
    tmp_path(path, sizeof path, "ck.pt");
    FILE *f = fopen(path, "wb");
    fwrite(ck_pt, 1, ck_pt_len, f);
    fclose(f);
    a = NULL;
    CHECK_OK(ct_torch_load(ctx, path, &a));
    if (a) check_entries("file", a);
    ct_archive_free(a);
    remove(path);
    /* torch.save(tensor): one entry named "" */
    a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, bare_pt, bare_pt_len, &a));
    CHECK(ct_archive_count(a) == 1 && strcmp(ct_archive_name(a, 0), "") == 0);
    ct_tensor *t = NULL;
    CHECK_OK(ct_archive_get(a, "", &t));
    const double bv[] = {1, 2, 4};
    const int64_t bs[] = {3};
    tu_same_as("bare", t, bv, 1, bs, 0);
    ct_tensor_release(t);
    ct_archive_free(a);
}

/* Files torch reads in a particular way (each checked against torch.load by the generator). */
TEST(read_as_torch_reads) {
    ct_archive *a = NULL;
    const char *s = NULL;
    int64_t i64 = 0;
    /* {"w": "first", "b": 2, 1: 3, "w": "second", True: 4}: the last value at the first place */
    CHECK_OK(ct_torch_load_buffer(ctx, dupkey_pt, dupkey_pt_len, &a));
    CHECK(ct_archive_count(a) == 3);
    CHECK(a && !strcmp(ct_archive_name(a, 0), "w") && !strcmp(ct_archive_name(a, 1), "b") &&
          !strcmp(ct_archive_name(a, 2), "1"));
    CHECK_OK(ct_archive_get_string(a, "w", &s, NULL));
    CHECK(s && strcmp(s, "second") == 0);
    CHECK_OK(ct_archive_get_int(a, "1", &i64));
    CHECK(i64 == 4);
    ct_archive_free(a);
    /* storage "0" as FloatStorage, then as IntStorage: the first type wins */
    a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, reuse_pt, reuse_pt_len, &a));
    const double v15[] = {1.5};
    const int64_t s1[] = {1};
    ct_tensor *t = NULL;
    CHECK_OK(ct_archive_get(a, "b", &t));
    tu_same_as("reused storage", t, v15, 1, s1, 0);
    CHECK(t && ct_tensor_dtype(t) == CT_FLOAT32);
    ct_tensor_release(t);
    ct_archive_free(a);
    /* STOP returns the top of the stack */
    a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, stop_pt, stop_pt_len, &a));
    CHECK_OK(ct_archive_get_int(a, "", &i64));
    CHECK(ct_archive_count(a) == 1 && i64 == 7);
    ct_archive_free(a);
    /* a broadcast of 2^27 elements over one float: a stride-0 view, not 512 MiB */
    a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, expand_pt, expand_pt_len, &a));
    t = NULL;
    CHECK_OK(ct_archive_get(a, "", &t));
    CHECK(t && ct_tensor_numel(t) == (int64_t)1 << 27 && ct_tensor_stride(t)[0] == 0);
    float f = 0;
    ct_tensor *last = NULL;
    if (t) CHECK_OK(ct_select(ctx, t, 0, ((int64_t)1 << 27) - 1, &last));
    CHECK(last && ct_tensor_to_host(last, &f, sizeof f) == CT_OK && f == 2.5f);
    ct_tensor_release(last);
    ct_tensor_release(t);
    ct_archive_free(a);
    /* np.savez() with no arrays: an empty archive */
    a = NULL;
    CHECK_OK(ct_npz_load_buffer(ctx, npz_empty, npz_empty_len, &a));
    CHECK(a && ct_archive_count(a) == 0);
    ct_archive_free(a);
}

TEST(big_endian_records_read_as_little) {
    ct_archive *b = NULL, *l = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, big_pt, big_pt_len, &b));
    CHECK_OK(ct_torch_load_buffer(ctx, little_pt, little_pt_len, &l));
    CHECK(ct_archive_count(b) == 5 && ct_archive_count(l) == 5);
    for (int i = 0; i < 5 && b && l; i++) {
        ct_tensor *x = NULL, *y = NULL;
        CHECK_OK(ct_archive_get(b, ct_archive_name(l, i), &x));
        CHECK_OK(ct_archive_get(l, ct_archive_name(l, i), &y));
        CHECK_MSG(x && y && tu_same_values(x, y), "'%s' differs", ct_archive_name(l, i));
        ct_tensor_release(x);
        ct_tensor_release(y);
    }
    ct_archive_free(b);
    ct_archive_free(l);
}

TEST(npz_reads_what_numpy_reads) {
    ct_archive *a = NULL;
    CHECK_OK(ct_npz_load_buffer(ctx, npz_stored, npz_stored_len, &a));
    CHECK(ct_archive_count(a) == 3);
    CHECK(a && strcmp(ct_archive_name(a, 0), "x") == 0 && ct_archive_kind(a, 2) == CT_ENTRY_TENSOR);
    ct_tensor *t = NULL;
    const double x[] = {0, 1, 2, 3, 4, 5}, y[] = {1, -2}, z[] = {1};
    const int64_t xs[] = {2, 3}, ys[] = {2};
    CHECK_OK(ct_archive_get(a, "x", &t));
    tu_same_as("x", t, x, 2, xs, 0);
    CHECK(t && ct_tensor_dtype(t) == CT_FLOAT64);
    ct_tensor_release(t);
    CHECK_OK(ct_archive_get(a, "y", &t));
    tu_same_as("y", t, y, 1, ys, 0);
    CHECK(t && ct_tensor_dtype(t) == CT_INT32);
    ct_tensor_release(t);
    CHECK_OK(ct_archive_get(a, "z", &t));
    tu_same_as("z", t, z, 0, NULL, 0);
    CHECK(t && ct_tensor_dtype(t) == CT_BOOL);
    ct_tensor_release(t);
    ct_archive_free(a);

    a = NULL; /* deflated (np.savez_compressed) */
    CHECK_OK(ct_npz_load_buffer(ctx, npz_deflated, npz_deflated_len, &a));
    CHECK(ct_archive_count(a) == 3);
    double xv[600];
    for (int k = 0; k < 600; k++)
        xv[k] = k % 7;
    const int64_t x2[] = {20, 30}, zs[] = {300}, ws[] = {1};
    CHECK_OK(ct_archive_get(a, "x", &t));
    tu_same_as("deflated x", t, xv, 2, x2, 0);
    ct_tensor_release(t);
    CHECK_OK(ct_archive_get(a, "z", &t));
    tu_same_as("deflated z", t, npz_z, 1, zs, 0);
    ct_tensor_release(t);
    CHECK_OK(ct_archive_get(a, "w", &t));
    double *w = t ? tu_read_cx(t) : NULL;
    CHECK(t && tu_same_shape(t, 1, ws) && ct_tensor_dtype(t) == CT_COMPLEX64 && w && w[0] == 1 &&
          w[1] == 1);
    free(w);
    ct_tensor_release(t);
    ct_archive_free(a);

    a = NULL; /* deflate's stored blocks (level 0) */
    CHECK_OK(ct_npz_load_buffer(ctx, npz_level0, npz_level0_len, &a));
    const double sv[] = {0, 1, 2, 3, 4};
    const int64_t ss[] = {5};
    CHECK_OK(ct_archive_get(a, "s", &t));
    tu_same_as("level 0", t, sv, 1, ss, 0);
    CHECK(t && ct_tensor_dtype(t) == CT_INT16);
    ct_tensor_release(t);
    ct_archive_free(a);

    a = NULL; /* corrupt deflate data: the archive opens, the member fails with a reason */
    CHECK_OK(ct_npz_load_buffer(ctx, npz_bad_deflate, npz_bad_deflate_len, &a));
    t = NULL;
    ct_status st = ct_archive_get(a, "x", &t);
    CHECK_MSG(st == CT_ERR_FORMAT && !t, "bad deflate: %d", (int)st);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "inflate") || strstr(ct_ctx_last_error(ctx), "CRC"),
              "%s", ct_ctx_last_error(ctx));
    ct_archive_free(a);
}

/* State dict j of n, as scripts/gen_archive_ref.py's sd_case builds it. */
static ct_tensor *sd_tensor(int j, char *name, size_t cap) {
    ct_dtype dt = sd_dtypes[j % 12];
    int nd = sd_ndim[j % 12];
    const int64_t *shape = sd_shapes[j % 12];
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    double *v = malloc(sizeof(double) * (size_t)(2 * n + 2));
    for (int64_t k = 0; k < n; k++) {
        double x = (double)((k + j) % 5 - 2);
        if (ct_dtype_is_complex(dt)) {
            v[2 * k] = x;
            v[2 * k + 1] = -x;
        } else {
            v[k] = dt == CT_BOOL ? x > 0 : x;
        }
    }
    ct_tensor *t = tu_from_vals_cx(ctx, dt, nd, shape, v);
    free(v);
    if (j % 2)
        snprintf(name, cap, "layer%d.w", j);
    else
        snprintf(name, cap, "b%d", j);
    return t;
}

static void save_case(int n, const unsigned char *ref, size_t ref_len, unsigned ref_crc) {
    char path[128], tag[32];
    snprintf(tag, sizeof tag, "sd%d.pt", n);
    tmp_path(path, sizeof path, tag);
    ct_tensor **ts = calloc((size_t)n + 1, sizeof *ts);
    char **names = calloc((size_t)n + 1, sizeof *names);
    for (int j = 0; j < n; j++) {
        names[j] = malloc(32);
        ts[j] = sd_tensor(j, names[j], 32);
    }
    CHECK_OK(ct_torch_save(ctx, path, n, (const char *const *)names, (const ct_tensor *const *)ts));
    size_t len = 0, pn = 0, off = 0;
    unsigned char *b = tu_read_file(path, &len);
    const unsigned char *pkl = b ? zip_member(b, len, "/data.pkl", &pn, &off) : NULL;
    CHECK_MSG(pkl != NULL, "n=%d: no data.pkl", n);
    if (pkl && ref) {
        CHECK_MSG(pn == ref_len && memcmp(pkl, ref, pn) == 0,
                  "n=%d: data.pkl differs from torch.save's (%zu vs %zu bytes)", n, pn, ref_len);
    } else if (pkl) {
        CHECK_MSG(pn == ref_len && crc32_ref(pkl, pn) == ref_crc,
                  "n=%d: data.pkl differs from torch.save's (%zu vs %zu bytes)", n, pn, ref_len);
    }
    CHECK_MSG(off % 64 == 0, "n=%d: data.pkl at byte %zu, not 64-aligned", n, off);
    size_t rn, roff;
    if (n > 0 && b && zip_member(b, len, "/data/0", &rn, &roff))
        CHECK_MSG(roff % 64 == 0, "n=%d: record 0 at byte %zu", n, roff);
    free(b);
    /* and back */
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load(ctx, path, &a));
    CHECK(ct_archive_count(a) == n);
    for (int j = 0; a && j < n && j < ct_archive_count(a); j++) {
        ct_tensor *t = NULL;
        CHECK(strcmp(ct_archive_name(a, j), names[j]) == 0);
        CHECK_OK(ct_archive_get(a, names[j], &t));
        CHECK_MSG(t && tu_same_values(t, ts[j]) && ct_tensor_dtype(t) == ct_tensor_dtype(ts[j]) &&
                      !ct_tensor_requires_grad(t),
                  "n=%d: '%s' read back differs", n, names[j]);
        ct_tensor_release(t);
    }
    ct_archive_free(a);
    remove(path);
    for (int j = 0; j < n; j++) {
        ct_tensor_release(ts[j]);
        free(names[j]);
    }
    free(ts);
    free(names);
}

TEST(torch_save_writes_torchs_bytes) {
    save_case(0, pkl_0, pkl_0_len, 0);
    save_case(1, pkl_1, pkl_1_len, 0);
    save_case(12, pkl_12, pkl_12_len, 0);
    save_case(1001, NULL, pkl_1001_len, pkl_1001_crc); /* SETITEMS batches, 4-byte memo indices */
}

TEST(torch_save_views_and_npz_round_trip) {
    /* strided views and a requires-grad tensor are written as contiguous state-dict tensors */
    const int64_t s23[] = {2, 3};
    const double v[] = {1, -2, 3.5, 4, 5, -6};
    ct_tensor *m = tu_from_vals(ctx, CT_FLOAT32, 2, s23, v), *tt = NULL, *d = NULL, *c = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, m, 0, 1, &tt));
    d = tu_from_vals(ctx, CT_FLOAT64, 0, NULL, v + 2);
    const double cv[] = {1, 2, -3, 0.5};
    const int64_t s2[] = {2};
    c = tu_from_vals_cx(ctx, CT_COMPLEX128, 1, s2, cv);
    CHECK_OK(ct_tensor_set_requires_grad(m, true));
    const char *names[] = {"w", "wt", "d", "c"};
    const ct_tensor *ts[] = {m, tt, d, c};
    char path[128];
    tmp_path(path, sizeof path, "rt.pt");
    CHECK_OK(ct_torch_save(ctx, path, 4, names, ts));
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load(ctx, path, &a));
    for (int i = 0; a && i < 4; i++) {
        ct_tensor *r = NULL;
        CHECK_OK(ct_archive_get(a, names[i], &r));
        CHECK_MSG(r && tu_same_values(r, ts[i]) && !ct_tensor_requires_grad(r), "pt '%s'",
                  names[i]);
        ct_tensor_release(r);
    }
    ct_archive_free(a);
    remove(path);
    tmp_path(path, sizeof path, "rt.npz");
    CHECK_OK(ct_npz_save(ctx, path, 4, names, ts));
    a = NULL;
    CHECK_OK(ct_npz_load(ctx, path, &a));
    CHECK(ct_archive_count(a) == 4);
    for (int i = 0; a && i < 4; i++) {
        ct_tensor *r = NULL;
        CHECK(strcmp(ct_archive_name(a, i), names[i]) == 0);
        CHECK_OK(ct_archive_get(a, names[i], &r));
        CHECK_MSG(r && tu_same_values(r, ts[i]), "npz '%s'", names[i]);
        ct_tensor_release(r);
    }
    ct_archive_free(a);
    remove(path);
    ct_tensor_release(m);
    ct_tensor_release(tt);
    ct_tensor_release(d);
    ct_tensor_release(c);
}

/* float8 is written as torch >= 2.1 writes its newer dtypes: _rebuild_tensor_v3 over an untyped
 * storage of bytes, the dtype last (torch 1.13 has no float8 to compare with). */
TEST(torch_save_float8_as_torch_2) {
    const int64_t s3[] = {3};
    const double v[] = {1.5, -448, 0.0625};
    const float vf[] = {1.5f, -448.0f, 0.0625f};
    unsigned char c4[3], c5[3];
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E4M3FN, vf, c4, 3, CT_CAST_DEFAULT));
    CHECK_OK(ct_cast_f32_to(CT_FLOAT8_E5M2, vf, c5, 3, CT_CAST_DEFAULT));
    ct_tensor *e4 = tu_from_vals(ctx, CT_FLOAT32, 1, s3, v), *e5 = NULL, *x = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, c4, CT_FLOAT8_E4M3FN, 1, s3, &x));
    CHECK_OK(ct_tensor_from_host(ctx, c5, CT_FLOAT8_E5M2, 1, s3, &e5));
    const char *names[] = {"f32", "e4", "e5"};
    const ct_tensor *ts[] = {e4, x, e5};
    char path[128];
    tmp_path(path, sizeof path, "f8.pt");
    CHECK_OK(ct_torch_save(ctx, path, 3, names, ts));
    size_t len = 0, pn = 0, off = 0;
    unsigned char *b = tu_read_file(path, &len);
    const unsigned char *pkl = b ? zip_member(b, len, "/data.pkl", &pn, &off) : NULL;
    char *text = malloc(pn + 1);
    for (size_t i = 0; pkl && i < pn; i++)
        text[i] = pkl[i] ? (char)pkl[i] : ' ';
    text[pkl ? pn : 0] = 0;
    CHECK(strstr(text, "_rebuild_tensor_v3") && strstr(text, "torch.storage\nUntypedStorage") &&
          strstr(text, "torch\nfloat8_e4m3fn") && strstr(text, "torch\nfloat8_e5m2") &&
          strstr(text, "torch\nFloatStorage") && strstr(text, "_rebuild_tensor_v2"));
    free(text);
    free(b);
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load(ctx, path, &a));
    for (int i = 0; a && i < 3; i++) {
        ct_tensor *r = NULL;
        CHECK_OK(ct_archive_get(a, names[i], &r));
        unsigned char got[12] = {0}, want[12] = {0};
        size_t nb = 3 * ct_dtype_size(ct_tensor_dtype(ts[i]));
        CHECK_MSG(r && ct_tensor_dtype(r) == ct_tensor_dtype(ts[i]) &&
                      ct_tensor_to_host(r, got, nb) == CT_OK &&
                      ct_tensor_to_host(ts[i], want, nb) == CT_OK && !memcmp(got, want, nb),
                  "'%s' read back", names[i]);
        ct_tensor_release(r);
    }
    ct_archive_free(a);
    remove(path);
    ct_tensor_release(e4);
    ct_tensor_release(e5);
    ct_tensor_release(x);
}

/* nn.Module.load_state_dict against torch's messages: a model with fc.weight [2, 3], fc.bias [2]
 * (float64 here: copy_ converts) and other [4]; the file has fc.weight, fc.bias and extra. */
TEST(load_state_dict_as_torch) {
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, lsd_pt, lsd_pt_len, &a));
    const int64_t s23[] = {2, 3}, s33[] = {3, 3}, s2[] = {2}, s4[] = {4};
    ct_tensor *w = NULL, *b = NULL, *o = NULL, *w33 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s23, &w));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, s2, &b));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s4, &o));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s33, &w33));
    CHECK_OK(ct_tensor_set_requires_grad(w, true));
    const char *names[] = {"fc.weight", "fc.bias", "other"};
    ct_tensor *params[] = {w, b, o}, *params33[] = {w33, b, o};
    ct_load_report r;
    /* strict: torch's message, nothing copied */
    CHECK_ST(ct_archive_load_state_dict(a, "", 3, names, params, true, &r), CT_ERR_INDEX);
    const char *m = ct_ctx_last_error(ctx), *body = strstr(m, ":\n\t");
    CHECK_MSG(body && strcmp(body + 3, lsd_msg_keys) == 0, "message '%s'", m);
    CHECK(r.loaded == 0 && r.missing == lsd_missing && r.unexpected == lsd_unexpected &&
          strcmp(r.keys, lsd_msg_keys) == 0);
    double *v = tu_read(w);
    CHECK(v && v[5] == 0);
    free(v);
    /* a size mismatch fails also without strict; with strict after the key lists, as torch */
    CHECK_ST(ct_archive_load_state_dict(a, "", 3, names, params33, true, &r), CT_ERR_SHAPE);
    m = ct_ctx_last_error(ctx);
    body = strstr(m, ":\n\t");
    CHECK_MSG(body && strcmp(body + 3, lsd_msg_size) == 0, "message '%s'", m);
    CHECK_ST(ct_archive_load_state_dict(a, "", 3, names, params33, false, NULL), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "size mismatch for fc.weight") != NULL);
    /* not strict: the two that match are copied (float32 -> float64 for the bias) */
    CHECK_OK(ct_archive_load_state_dict(a, "", 3, names, params, false, &r));
    CHECK(r.loaded == 2 && r.missing == 1 && r.unexpected == 1);
    CHECK(strstr(r.keys, "\"other\"") && strstr(r.keys, "\"extra\""));
    CHECK(ct_ctx_last_error(ctx)[0] == 0);
    const double wv[] = {0, 1, 2, 3, 4, 5}, bv[] = {0.5, -1.5};
    tu_same_as("fc.weight", w, wv, 2, s23, 0);
    tu_same_as("fc.bias", b, bv, 1, s2, 0);
    CHECK(ct_tensor_requires_grad(w) && ct_tensor_is_leaf(w));
    /* torch's further rules (tests/data/archive_ref.h, lsd2/lsd3): a non-tensor value is an error
     * also without strict; "fc.weight.x" and "fc" are not unexpected; unexpected keys module by
     * module, the root's first; a 0-dim parameter takes a 1-dim entry's first element */
    ct_archive *a2 = NULL, *a3 = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, lsd2_pt, lsd2_pt_len, &a2));
    CHECK_OK(ct_torch_load_buffer(ctx, lsd3_pt, lsd3_pt_len, &a3));
    ct_tensor *s0 = NULL, *fw = NULL, *fb = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 0, NULL, &s0));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s23, &fw));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s2, &fb));
    const char *n2[] = {"s", "fc.weight", "fc.bias"};
    ct_tensor *p2[] = {s0, fw, fb};
    CHECK_ST(ct_archive_load_state_dict(a2, NULL, 3, n2, p2, true, &r), CT_ERR_INVALID_ARG);
    m = ct_ctx_last_error(ctx);
    body = strstr(m, ":\n\t");
    CHECK_MSG(body && strcmp(body + 3, lsd2_msg) == 0, "message '%s'", m);
    CHECK_ST(ct_archive_load_state_dict(a2, NULL, 3, n2, p2, false, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_archive_load_state_dict(a3, NULL, 3, n2, p2, false, &r));
    CHECK(r.loaded == 3 && r.unexpected == lsd3_unexpected && r.missing == lsd3_missing);
    double *sv = tu_read(s0);
    CHECK(sv && sv[0] == lsd3_s);
    free(sv);
    ct_tensor_release(s0);
    ct_tensor_release(fw);
    ct_tensor_release(fb);
    ct_archive_free(a2);
    ct_archive_free(a3);
    /* a prefix: the checkpoint's "model." part */
    ct_archive *ck = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, ck_pt, ck_pt_len, &ck));
    ct_tensor *lw = NULL, *lb = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s23, &lw));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, s2, &lb));
    const char *ln[] = {"0.weight", "0.bias"};
    ct_tensor *lp[] = {lw, lb};
    CHECK_OK(ct_archive_load_state_dict(ck, "model.", 2, ln, lp, false, &r));
    CHECK(r.loaded == 2 && r.missing == 0 && r.unexpected == 5); /* the BatchNorm entries */
    ct_tensor *ref = NULL;
    CHECK_OK(ct_archive_get(ck, "model.0.weight", &ref));
    CHECK(ref && tu_same_values(ref, lw));
    ct_tensor_release(ref);
    CHECK_ST(ct_archive_load_state_dict(ck, "model.", -1, ln, lp, false, &r), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_archive_load_state_dict(NULL, "", 2, ln, lp, false, &r), CT_ERR_INVALID_ARG);
    ct_archive_free(ck);
    ct_tensor_release(lw);
    ct_tensor_release(lb);
    ct_tensor_release(w);
    ct_tensor_release(b);
    ct_tensor_release(o);
    ct_tensor_release(w33);
    ct_archive_free(a);
}

TEST(hostile_files_fail_with_a_reason) {
    for (int i = 0; i < host_n; i++) {
        const struct host_case *h = &host_cases[i];
        ct_archive *a = (ct_archive *)&ctx; /* must be reset */
        ct_status st = ct_torch_load_buffer(ctx, h->data, h->len, &a);
        CHECK_MSG(st == h->st && a == NULL, "%s: status %d (want %d): %s", h->what, (int)st,
                  (int)h->st, ct_ctx_last_error(ctx));
        CHECK_MSG(strstr(ct_ctx_last_error(ctx), h->word) != NULL, "%s: message '%s' lacks '%s'",
                  h->what, ct_ctx_last_error(ctx), h->word);
    }
    /* the good twin of the crafted cases loads */
    ct_archive *a = NULL;
    CHECK_OK(ct_torch_load_buffer(ctx, good_small, good_small_len, &a));
    ct_tensor *t = NULL;
    CHECK_OK(ct_archive_get(a, "w", &t));
    const double gv[] = {1, 2, 3, 4};
    const int64_t gs[] = {4};
    tu_same_as("good", t, gv, 1, gs, 0);
    ct_tensor_release(t);
    ct_archive_free(a);
}

/* Load (and read every tensor of) a damaged copy: a status and a message, never a crash. */
static int load_damaged(const unsigned char *b, size_t n) {
    ct_archive *a = NULL;
    ct_status st = ct_torch_load_buffer(ctx, b, n, &a);
    if (st != CT_OK) {
        CHECK_MSG(a == NULL && ct_ctx_last_error(ctx)[0] != 0, "failure without a message");
        return 0;
    }
    for (int i = 0; i < ct_archive_count(a); i++)
        if (ct_archive_kind(a, i) == CT_ENTRY_TENSOR) {
            ct_tensor *t = NULL;
            if (ct_archive_get(a, ct_archive_name(a, i), &t) == CT_OK)
                CHECK(t != NULL);
            else
                CHECK(t == NULL && ct_ctx_last_error(ctx)[0] != 0);
            ct_tensor_release(t);
        }
    ct_archive_free(a);
    return 1;
}

TEST(truncations_and_bit_flips) {
    int ok = 0;
    for (size_t n = 0; n < good_small_len; n++)
        ok += load_damaged(good_small, n);
    CHECK_MSG(ok == 0, "%d truncations loaded", ok);
    for (size_t n = 0; n < ck_pt_len; n += 37)
        ok += load_damaged(ck_pt, n);
    for (size_t n = 0; n < legacy_pt_len; n++) /* the legacy format: no CRC, a plain stream */
        ok += load_damaged(legacy_pt, n);
    CHECK_MSG(ok == 0, "%d truncations loaded", ok);
    unsigned char *c = malloc(ck_pt_len);
    int loaded = 0, tried = 0;
    for (size_t i = 0; i < ck_pt_len; i += 5) {
        memcpy(c, ck_pt, ck_pt_len);
        c[i] ^= (unsigned char)(1u << (i % 8));
        loaded += load_damaged(c, ck_pt_len);
        tried++;
    }
    free(c);
    c = malloc(ck_legacy_pt_len);
    for (size_t i = 0; i < ck_legacy_pt_len; i += 3) {
        memcpy(c, ck_legacy_pt, ck_legacy_pt_len);
        c[i] ^= (unsigned char)(1u << (i % 8));
        loaded += load_damaged(c, ck_legacy_pt_len);
        tried++;
    }
    free(c);
    printf("  %d bit flips: %d still load (flips in padding, names or values), the rest fail "
           "cleanly\n",
           tried, loaded);
}

TEST(api_errors) {
    ct_archive *a = NULL;
    CHECK_ST(ct_torch_load(NULL, "x", &a), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_load(ctx, NULL, &a), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_load(ctx, "x", NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_load_buffer(ctx, NULL, 10, &a), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_load_buffer(ctx, NULL, 0, &a), CT_ERR_FORMAT); /* empty: not a ZIP */
    CHECK_ST(ct_torch_load(ctx, "/nonexistent/ct.pt", &a), CT_ERR_IO);
    CHECK(strstr(ct_ctx_last_error(ctx), "/nonexistent/ct.pt") != NULL);
    CHECK_ST(ct_torch_load(ctx, "/tmp", &a), CT_ERR_IO);
    CHECK_ST(ct_npz_load(ctx, "/nonexistent/ct.npz", &a), CT_ERR_IO);
    CHECK(a == NULL);
    CHECK(ct_archive_count(NULL) == 0 && ct_archive_name(NULL, 0) == NULL &&
          ct_archive_kind(NULL, 0) == -1);
    ct_archive_free(NULL);
    CHECK_OK(ct_torch_load_buffer(ctx, ck_pt, ck_pt_len, &a));
    CHECK(ct_archive_name(a, -1) == NULL && ct_archive_name(a, ck_n) == NULL &&
          ct_archive_kind(a, ck_n) == -1);
    ct_tensor *t = NULL;
    int64_t i64;
    double f;
    const char *s;
    CHECK_ST(ct_archive_get(a, "nope", &t), CT_ERR_INDEX);
    CHECK(strstr(ct_ctx_last_error(ctx), "nope") != NULL);
    CHECK_ST(ct_archive_get(a, "epoch", &t), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "is a int") == NULL &&
          strstr(ct_ctx_last_error(ctx), "not a tensor") != NULL);
    CHECK_ST(ct_archive_get_int(a, "name", &i64), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_archive_get_int(a, "optimizer.param_groups.0.lr", &i64), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_archive_get_float(a, "epoch", &f)); /* an int reads as a float */
    CHECK(f == 7);
    CHECK_ST(ct_archive_get_string(a, "epoch", &s, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_archive_get(a, NULL, &t), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_archive_get(a, "p", NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_archive_get(NULL, "p", &t), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_archive_get_string(a, "dt", &s, NULL));
    CHECK(strcmp(s, "torch.float16") == 0);
    ct_archive_free(a);

    /* writers */
    char path[128];
    tmp_path(path, sizeof path, "bad.pt");
    const int64_t s2[] = {2};
    const double v[] = {1, 2};
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT32, 1, s2, v),
              *bf = tu_from_vals(ctx, CT_BFLOAT16, 1, s2, v);
    ct_tensor *e8 = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT8_E8M0FNU, 1, s2, &e8));
    const char *dup[] = {"a", "a"}, *empty[] = {""}, *good[] = {"x", "y"};
    const ct_tensor *two[] = {x, x}, *one[] = {x}, *withnull[] = {x, NULL}, *e8s[] = {e8},
                    *bfs[] = {bf};
    CHECK_ST(ct_torch_save(ctx, path, 2, dup, two), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "'a'") != NULL);
    CHECK_ST(ct_torch_save(ctx, path, 1, empty, one), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_save(ctx, path, 2, good, withnull), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_save(ctx, path, 1, good, e8s), CT_ERR_DTYPE);
    CHECK_ST(ct_torch_save(ctx, path, -1, good, one), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_save(ctx, NULL, 1, good, one), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_npz_save(ctx, path, 1, good, bfs), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "bfloat16") != NULL);
    const char *slash[] = {"a/b"}, *bad_utf8[] = {"\xff"};
    CHECK_ST(ct_npz_save(ctx, path, 1, slash, one), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_torch_save(ctx, path, 1, bad_utf8, one), CT_ERR_INVALID_ARG);
    CHECK(access(path, F_OK) != 0); /* nothing written by a refused call */
    CHECK_ST(ct_torch_save(ctx, "/nonexistent/dir/x.pt", 1, good, one), CT_ERR_IO);
    CHECK_ST(ct_npz_save(ctx, "/nonexistent/dir/x.npz", 1, good, one), CT_ERR_IO);
    char tmp[140];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CHECK(access(tmp, F_OK) != 0);
    ct_tensor_release(x);
    ct_tensor_release(bf);
    ct_tensor_release(e8);
}

static ct_status load_and_save(ct_ctx *c) {
    ct_archive *a = NULL;
    ct_status st = ct_torch_load_buffer(c, ck_pt, ck_pt_len, &a);
    ct_tensor *t = NULL;
    if (st == CT_OK) st = ct_archive_get(a, "model.0.weight", &t);
    char path[128];
    tmp_path(path, sizeof path, "fault.pt");
    const char *names[] = {"w"};
    const ct_tensor *ts[] = {t};
    if (st == CT_OK) st = ct_torch_save(c, path, 1, names, ts);
    ct_archive *b = NULL;
    if (st == CT_OK) st = ct_npz_load_buffer(c, npz_deflated, npz_deflated_len, &b);
    ct_tensor *z = NULL;
    if (st == CT_OK) st = ct_archive_get(b, "z", &z);
    ct_tensor_release(z);
    ct_archive_free(b);
    ct_tensor_release(t);
    ct_archive_free(a);
    remove(path);
    return st;
}

TEST(every_allocation_failure) {
    int n, seen = 0;
    for (n = 0; n < 4000; n++) {
        tu_fault fs = {0, n, 0, false};
        ct_ctx_options o = {.size = sizeof o, .allocator = {tu_fault_alloc, tu_fault_free, &fs}};
        ct_ctx *c = NULL;
        if (ct_ctx_create(&o, &c) != CT_OK) continue;
        ct_status st = load_and_save(c);
        if (st != CT_OK) {
            seen++;
            CHECK_MSG(st == CT_ERR_OOM && strstr(ct_ctx_last_error(c), "memory"), "n=%d: %d %s", n,
                      (int)st, ct_ctx_last_error(c));
        }
        ct_ctx_free(c);
        CHECK_MSG(fs.live == 0, "n=%d: %ld blocks leaked", n, fs.live);
        if (st == CT_OK) break;
    }
    CHECK(seen > 20 && n < 4000);
    printf("  walked %d failure points\n", n);
}

int main(void) {
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    RUN(torch_load_reads_what_torch_reads);
    RUN(read_as_torch_reads);
    RUN(big_endian_records_read_as_little);
    RUN(npz_reads_what_numpy_reads);
    RUN(torch_save_writes_torchs_bytes);
    RUN(torch_save_views_and_npz_round_trip);
    RUN(torch_save_float8_as_torch_2);
    RUN(load_state_dict_as_torch);
    RUN(hostile_files_fail_with_a_reason);
    RUN(truncations_and_bit_flips);
    RUN(api_errors);
    RUN(every_allocation_failure);
    ct_ctx_free(ctx);
    return ct_test_end();
}

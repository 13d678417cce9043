/* NumPy .npy files: reader (versions 1.0, 2.0, 3.0; C or Fortran order; little-, big- or
 * no-endian descr; 0-d arrays) and writer (version 1.0, 2.0 when the header needs it). The reader
 * treats the file as hostile: every length, count and size is bounded by the bytes actually present
 * and computed with overflow checks before anything is allocated; a bad file gives CT_ERR_FORMAT
 * (CT_ERR_DTYPE for a dtype ctorch lacks) with the field and byte offset in the message. */
#include "ctorch/io.h"
#include "ctorch/ops.h"
#include "dispatch/dispatch.h"
#include "io/npy_impl.h"
#include "tensor/tensor_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_PREAMBLE1 10 /* magic 6, version 2, header length 2 */
#define NPY_PREAMBLE2 12 /* magic 6, version 2, header length 4 */

/* ---- header parsing: a Python dict literal with keys descr, fortran_order, shape ---- */
typedef struct {
    const char *s; /* header text */
    size_t n, i;   /* length, cursor */
    size_t base;   /* file offset of s[0] (for messages) */
    ct_ctx *ctx;
} npy_cur;

static ct_status npy_err(npy_cur *c, const char *what) {
    return ct__set_error(c->ctx, CT_ERR_FORMAT, "npy_load: header: %s at byte %zu", what,
                         c->base + c->i);
}
static void npy_ws(npy_cur *c) {
    while (c->i < c->n &&
           (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        c->i++;
}
static bool npy_eat(npy_cur *c, char ch) {
    npy_ws(c);
    if (c->i < c->n && c->s[c->i] == ch) {
        c->i++;
        return true;
    }
    return false;
}
/* A quoted string (single or double quotes, no escapes) into buf. */
static ct_status npy_str(npy_cur *c, char *buf, size_t cap) {
    npy_ws(c);
    if (c->i >= c->n || (c->s[c->i] != '\'' && c->s[c->i] != '"'))
        return npy_err(c, "expected a quoted string");
    char q = c->s[c->i++];
    size_t k = 0;
    while (c->i < c->n && c->s[c->i] != q) {
        if (c->s[c->i] == '\\') return npy_err(c, "escape sequences are not supported");
        if (k + 1 >= cap) return npy_err(c, "string too long");
        buf[k++] = c->s[c->i++];
    }
    if (c->i >= c->n) return npy_err(c, "unterminated string");
    c->i++;
    buf[k] = 0;
    return CT_OK;
}
/* A non-negative decimal integer (Python 2's trailing L accepted). */
static ct_status npy_int(npy_cur *c, int64_t *out) {
    npy_ws(c);
    size_t start = c->i;
    int64_t v = 0;
    while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
        if (!ct__checked_mul(v, 10, &v) || !ct__checked_add(v, c->s[c->i] - '0', &v))
            return npy_err(c, "shape entry overflows int64");
        c->i++;
    }
    if (c->i == start) return npy_err(c, "expected a non-negative integer in shape");
    if (c->i < c->n && c->s[c->i] == 'L') c->i++;
    *out = v;
    return CT_OK;
}

typedef struct {
    ct_dtype dtype;
    bool swap;    /* big-endian data */
    bool fortran; /* column-major data */
    int ndim;
    int64_t shape[CT_MAX_DIMS];
} npy_header;

static ct_status npy_descr(npy_cur *c, const char *d, npy_header *h) {
    char order = d[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return ct__set_error(c->ctx, CT_ERR_FORMAT,
                             "npy_load: header: descr '%s' has no byte-order character (at byte "
                             "%zu)",
                             d, c->base + c->i);
    static const struct {
        const char *code;
        ct_dtype dt;
    } map[] = {{"b1", CT_BOOL},    {"?", CT_BOOL},       {"u1", CT_UINT8},
               {"i1", CT_INT8},    {"i2", CT_INT16},     {"i4", CT_INT32},
               {"i8", CT_INT64},   {"f2", CT_FLOAT16},   {"f4", CT_FLOAT32},
               {"f8", CT_FLOAT64}, {"c8", CT_COMPLEX64}, {"c16", CT_COMPLEX128}};
    for (size_t k = 0; k < sizeof map / sizeof map[0]; k++)
        if (strcmp(d + 1, map[k].code) == 0) {
            h->dtype = map[k].dt;
            h->swap = order == '>' && ct__itemsize(h->dtype) > 1;
            return CT_OK;
        }
    return ct__set_error(c->ctx, CT_ERR_DTYPE,
                         "npy_load: descr '%s' (at byte %zu) is not a dtype ctorch reads (bool, "
                         "uint8, int8-64, float16/32/64, complex64/128)",
                         d, c->base + c->i);
}

static ct_status npy_parse_header(ct_ctx *ctx, const char *s, size_t n, size_t base,
                                  npy_header *h) {
    npy_cur c = {s, n, 0, base, ctx};
    ct_status st;
    bool have_descr = false, have_fortran = false, have_shape = false;
    if (!npy_eat(&c, '{')) return npy_err(&c, "expected '{'");
    for (;;) {
        if (npy_eat(&c, '}')) break;
        char key[32];
        if ((st = npy_str(&c, key, sizeof key)) != CT_OK) return st;
        if (!npy_eat(&c, ':')) return npy_err(&c, "expected ':' after a key");
        if (strcmp(key, "descr") == 0) {
            if (have_descr) return npy_err(&c, "key 'descr' repeats");
            char d[32];
            npy_ws(&c);
            if (c.i < c.n && c.s[c.i] == '[')
                return npy_err(&c, "structured dtypes (a descr list) are not supported");
            if ((st = npy_str(&c, d, sizeof d)) != CT_OK) return st;
            if ((st = npy_descr(&c, d, h)) != CT_OK) return st;
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (have_fortran) return npy_err(&c, "key 'fortran_order' repeats");
            npy_ws(&c);
            if (c.n - c.i >= 4 && memcmp(c.s + c.i, "True", 4) == 0) {
                h->fortran = true;
                c.i += 4;
            } else if (c.n - c.i >= 5 && memcmp(c.s + c.i, "False", 5) == 0) {
                h->fortran = false;
                c.i += 5;
            } else {
                return npy_err(&c, "fortran_order is neither True nor False");
            }
            have_fortran = true;
        } else if (strcmp(key, "shape") == 0) {
            if (have_shape) return npy_err(&c, "key 'shape' repeats");
            if (!npy_eat(&c, '(')) return npy_err(&c, "expected '(' for shape");
            h->ndim = 0;
            while (!npy_eat(&c, ')')) {
                if (h->ndim == CT_MAX_DIMS)
                    return ct__set_error(ctx, CT_ERR_FORMAT,
                                         "npy_load: header: shape has more than %d dims (at byte "
                                         "%zu)",
                                         CT_MAX_DIMS, base + c.i);
                if ((st = npy_int(&c, &h->shape[h->ndim])) != CT_OK) return st;
                h->ndim++;
                if (!npy_eat(&c, ',')) {
                    if (!npy_eat(&c, ')')) return npy_err(&c, "expected ',' or ')' in shape");
                    if (h->ndim == 1) return npy_err(&c, "a 1-tuple shape needs a trailing comma");
                    break;
                }
            }
            have_shape = true;
        } else {
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "npy_load: header: unknown key '%s' (at byte %zu)", key,
                                 base + c.i);
        }
        if (!npy_eat(&c, ',')) {
            if (!npy_eat(&c, '}')) return npy_err(&c, "expected ',' or '}'");
            break;
        }
    }
    npy_ws(&c);
    if (c.i != c.n) return npy_err(&c, "unexpected text after the dict");
    if (!have_descr || !have_fortran || !have_shape)
        return ct__set_error(ctx, CT_ERR_FORMAT, "npy_load: header (at byte %zu) lacks key '%s'",
                             base,
                             !have_descr     ? "descr"
                             : !have_fortran ? "fortran_order"
                                             : "shape");
    return CT_OK;
}

static void npy_swap(char *p, int64_t n, size_t isz) {
    for (int64_t i = 0; i < n; i++, p += isz)
        for (size_t a = 0, b = isz - 1; a < b; a++, b--) {
            char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

ct_status ct_npy_load_buffer(ct_ctx *ctx, const void *buf, size_t size, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "npy_load: out is NULL");
    *out = NULL;
    if (!buf && size) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "npy_load: data is NULL");
    ct_status st = ct__refuse_capture(ctx, "npy_load");
    if (st != CT_OK) return st;
    const unsigned char *b = buf;
    if (size < NPY_PREAMBLE1 || memcmp(b, NPY_MAGIC, 6) != 0)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "npy_load: not a .npy file (no \\x93NUMPY magic at byte 0; %zu bytes)",
                             size);
    int major = b[6], minor = b[7];
    size_t hlen, pre;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        pre = NPY_PREAMBLE1;
    } else if (major == 2 || major == 3) {
        if (size < NPY_PREAMBLE2)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "npy_load: file ends in the header length (byte %zu)", size);
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        pre = NPY_PREAMBLE2;
    } else {
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "npy_load: version %d.%d (byte 6) is not 1.0, 2.0 or 3.0", major,
                             minor);
    }
    if (minor != 0)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "npy_load: version %d.%d (byte 6) is not 1.0, 2.0 or 3.0", major,
                             minor);
    if (hlen > size - pre)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "npy_load: header length %zu (byte 8) runs past the end of the %zu "
                             "byte file",
                             hlen, size);
    const char *text = (const char *)b + pre;
    for (size_t i = 0; i < hlen; i++)
        if (text[i] == 0 || (unsigned char)text[i] >= 0x80)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "npy_load: header byte %zu is not printable ASCII (0x%02x)",
                                 pre + i, (unsigned char)text[i]);
    npy_header h;
    memset(&h, 0, sizeof h);
    if ((st = npy_parse_header(ctx, text, hlen, pre, &h)) != CT_OK) return st;
    size_t isz = ct__itemsize(h.dtype);
    int64_t numel = 1, nbytes;
    for (int i = 0; i < h.ndim; i++)
        if (!ct__checked_mul(numel, h.shape[i], &numel))
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "npy_load: shape: element count overflows at dim %d", i);
    if (!ct__checked_mul(numel, (int64_t)isz, &nbytes))
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "npy_load: shape: %lld elements overflow the byte size",
                             (long long)numel);
    size_t data_off = pre + hlen;
    if ((uint64_t)nbytes > (uint64_t)(size - data_off))
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "npy_load: data at byte %zu: %lld bytes needed for %s %lld elements, "
                             "%zu present",
                             data_off, (long long)nbytes, ct_dtype_name(h.dtype), (long long)numel,
                             size - data_off);
    /* Fortran order: the bytes are the C-order array of the reversed shape */
    int64_t shp[CT_MAX_DIMS];
    for (int i = 0; i < h.ndim; i++)
        shp[i] = h.fortran ? h.shape[h.ndim - 1 - i] : h.shape[i];
    ct_tensor *t = NULL;
    if ((st = ct_tensor_empty(ctx, h.dtype, h.ndim, shp, &t)) != CT_OK) return st;
    char *dst = ct__tensor_ptr(t);
    if (nbytes) memcpy(dst, b + data_off, (size_t)nbytes);
    if (h.swap) /* complex: each of the two reals on its own */
        npy_swap(dst, ct_dtype_is_complex(h.dtype) ? 2 * numel : numel,
                 ct_dtype_is_complex(h.dtype) ? isz / 2 : isz);
    if (h.dtype == CT_BOOL)
        for (int64_t i = 0; i < numel; i++)
            dst[i] = dst[i] != 0;
    if (h.fortran && h.ndim > 1) {
        int perm[CT_MAX_DIMS];
        for (int i = 0; i < h.ndim; i++)
            perm[i] = h.ndim - 1 - i;
        ct_tensor *v = NULL;
        st = ct_tensor_permute(ctx, t, perm, &v);
        if (st == CT_OK) st = ct_tensor_contiguous(ctx, v, out);
        ct_tensor_release(v);
        ct_tensor_release(t);
        return st;
    }
    *out = t;
    return CT_OK;
}

ct_status ct_npy_load(ct_ctx *ctx, const char *path, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "npy_load: out is NULL");
    *out = NULL;
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "npy_load: path is NULL");
    ct_status st = ct__refuse_capture(ctx, "npy_load");
    if (st != CT_OK) return st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ct__set_error(ctx, CT_ERR_IO, "npy_load: cannot open '%s': %s", path,
                             strerror(errno));
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return ct__set_error(ctx, CT_ERR_IO, "npy_load: cannot size '%s' (not a regular file?)",
                             path);
    }
    char *buf = malloc((size_t)len + 1);
    if (!buf) {
        fclose(f);
        return ct__set_error(ctx, CT_ERR_OOM, "npy_load: out of memory reading %ld bytes of '%s'",
                             len, path);
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || got != (size_t)len) {
        free(buf);
        return ct__set_error(ctx, CT_ERR_IO, "npy_load: read error on '%s' (%zu of %ld bytes)",
                             path, got, len);
    }
    st = ct_npy_load_buffer(ctx, buf, got, out);
    free(buf);
    return st;
}

/* ---- writer ---- */
const char *ct__npy_descr(ct_dtype dt) {
    switch (dt) {
    case CT_BOOL: return "|b1";
    case CT_UINT8: return "|u1";
    case CT_INT8: return "|i1";
    case CT_INT16: return "<i2";
    case CT_INT32: return "<i4";
    case CT_INT64: return "<i8";
    case CT_FLOAT16: return "<f2";
    case CT_FLOAT32: return "<f4";
    case CT_FLOAT64: return "<f8";
    case CT_COMPLEX64: return "<c8";
    case CT_COMPLEX128: return "<c16";
    default: return NULL;
    }
}

ct_status ct__npy_encode(ct_ctx *ctx, const char *who, const ct_tensor *t, uint8_t **buf,
                         size_t *len) {
    *buf = NULL;
    *len = 0;
    const char *descr = ct__npy_descr(t->dtype);
    if (!descr)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: NumPy has no dtype for %s%s", who,
                             ct_dtype_name(t->dtype),
                             t->dtype == CT_BFLOAT16 ? " (cast to float32 first)" : "");
    char hdr[400];
    int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < t->ndim; i++)
        n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s%lld", i ? ", " : "",
                      (long long)t->shape[i]);
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
    /* pad with spaces and a final newline so the data starts at a multiple of 64 bytes */
    size_t pre = NPY_PREAMBLE1, total = pre + (size_t)n + 1;
    size_t padded = (total + 63) / 64 * 64, hlen = padded - pre; /* < 65536 at 8 dims */
    size_t nbytes = (size_t)ct_tensor_numel(t) * ct__itemsize(t->dtype);
    uint8_t *b = ct__alloc(ctx, padded + nbytes, 64);
    if (!b) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory (%zu bytes)", who, nbytes);
    ct_status st = ct_tensor_to_host(t, b + padded, nbytes);
    if (st != CT_OK) {
        ct__free(ctx, b);
        return st;
    }
    memcpy(b, NPY_MAGIC, 6);
    b[6] = 1;
    b[7] = 0;
    b[8] = (uint8_t)hlen;
    b[9] = (uint8_t)(hlen >> 8);
    memcpy(b + pre, hdr, (size_t)n);
    memset(b + pre + n, ' ', hlen - (size_t)n - 1);
    b[padded - 1] = '\n';
    *buf = b;
    *len = padded + nbytes;
    return CT_OK;
}

ct_status ct_npy_save(ct_ctx *ctx, const ct_tensor *t, const char *path) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct_status st = ct__check_tensor(ctx, "npy_save", "tensor", t);
    if (st != CT_OK) return st;
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "npy_save: path is NULL");
    if (t->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "npy_save: tensor belongs to another context");
    uint8_t *b;
    size_t n;
    if ((st = ct__npy_encode(ctx, "npy_save", t, &b, &n)) != CT_OK) return st;
    FILE *f = fopen(path, "wb");
    if (!f) {
        ct__free(ctx, b);
        return ct__set_error(ctx, CT_ERR_IO, "npy_save: cannot create '%s': %s", path,
                             strerror(errno));
    }
    bool ok = fwrite(b, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    ct__free(ctx, b);
    if (!ok) return ct__set_error(ctx, CT_ERR_IO, "npy_save: write error on '%s'", path);
    return CT_OK;
}

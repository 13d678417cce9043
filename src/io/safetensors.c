/* safetensors reader and writer (include/ctorch/safetensors.h). The reader treats the file as
 * hostile: the header must be valid UTF-8 JSON of bounded size, every number is an unsigned
 * integer checked for overflow, every tensor's byte range must match its dtype and shape, and the
 * ranges must tile the data section exactly (no overlap, no hole), as the reference implementation
 * requires. Errors name the field and the header byte offset. */
#include "core/internal.h"
#include "ctorch/safetensors.h"
#include "io/safetensors_impl.h"
#include "io/zip.h"
#include "tensor/tensor_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CT__ST_MAX_HEADER 100000000ull /* the reference implementation's limit */
#define CT__ST_MAX_DEPTH 64

typedef struct {
    char *name;
    ct_dtype dtype;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    uint64_t begin, end;
} ct__st_entry;

struct ct_safetensors {
    ct_ctx *ctx;
    void *map; /* mmap'd file or an owned copy */
    size_t map_len;
    bool mapped;
    const uint8_t *payload; /* the data section */
    uint64_t payload_size;
    int n, cap;
    ct__st_entry *e;
    int n_meta, meta_cap;
    char **mkey, **mval;
};

/* ---- JSON (the subset a header is: objects, arrays, strings, unsigned integers; other values
 * are skipped where they may appear) ---- */

typedef struct {
    const char *p, *begin, *end;
    ct_ctx *ctx;
    ct_status st; /* first error */
} ct__jp;

static bool ct__jfail(ct__jp *j, const char *what) {
    if (j->st == CT_OK)
        j->st = ct__set_error(j->ctx, CT_ERR_FORMAT, "safetensors: header byte %zu: %s",
                              (size_t)(j->p - j->begin), what);
    return false;
}

static void ct__jws(ct__jp *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool ct__jlit(ct__jp *j, char c) {
    ct__jws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return true;
    }
    return false;
}

static int ct__jhex(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static bool ct__jhex4(ct__jp *j, unsigned *u) {
    if (j->end - j->p < 4) return ct__jfail(j, "truncated \\u escape");
    *u = 0;
    for (int i = 0; i < 4; i++) {
        int h = ct__jhex(j->p[i]);
        if (h < 0) return ct__jfail(j, "bad \\u escape");
        *u = *u << 4 | (unsigned)h;
    }
    j->p += 4;
    return true;
}

/* A string; *out (when out is not NULL) is a new NUL-terminated copy. Embedded NULs are refused
 * (a name must be a C string). */
static bool ct__jstr(ct__jp *j, char **out) {
    ct__jws(j);
    if (j->p >= j->end || *j->p != '"') return ct__jfail(j, "expected a string");
    j->p++;
    const char *s = j->p;
    while (j->p < j->end && *j->p != '"') /* find the end to size the copy */
        j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
    if (j->p >= j->end) return ct__jfail(j, "unterminated string");
    size_t raw = (size_t)(j->p - s);
    j->p = s;
    char *buf = NULL;
    if (out) {
        buf = ct__alloc(j->ctx, raw + 1, 1);
        if (!buf) {
            if (j->st == CT_OK)
                j->st = ct__set_error(j->ctx, CT_ERR_OOM, "safetensors: out of memory (string)");
            return false;
        }
    }
    size_t k = 0;
    while (*j->p != '"') {
        unsigned char c = (unsigned char)*j->p;
        if (c < 0x20) {
            ct__free(j->ctx, buf);
            return ct__jfail(j, "control character in a string");
        }
        if (c != '\\') {
            if (buf) buf[k++] = (char)c;
            j->p++;
            continue;
        }
        j->p++;
        char e = *j->p++;
        unsigned u = 0;
        switch (e) {
        case '"': u = '"'; break;
        case '\\': u = '\\'; break;
        case '/': u = '/'; break;
        case 'b': u = '\b'; break;
        case 'f': u = '\f'; break;
        case 'n': u = '\n'; break;
        case 'r': u = '\r'; break;
        case 't': u = '\t'; break;
        case 'u': {
            if (!ct__jhex4(j, &u)) break;
            if (u >= 0xD800 && u < 0xDC00) { /* a surrogate pair */
                unsigned lo;
                if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u') {
                    u = 0x110000;
                    break;
                }
                j->p += 2;
                if (!ct__jhex4(j, &lo)) break;
                u = lo >= 0xDC00 && lo < 0xE000 ? 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                                                : 0x110000;
            } else if (u >= 0xDC00 && u < 0xE000) {
                u = 0x110000;
            }
            break;
        }
        default: u = 0x110000; break;
        }
        if (j->st != CT_OK || u == 0 || u >= 0x110000) {
            ct__free(j->ctx, buf);
            return ct__jfail(j, u == 0 ? "NUL in a string" : "bad escape in a string");
        }
        if (!buf) continue;
        if (u < 0x80) {
            buf[k++] = (char)u;
        } else if (u < 0x800) {
            buf[k++] = (char)(0xC0 | u >> 6);
            buf[k++] = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            buf[k++] = (char)(0xE0 | u >> 12);
            buf[k++] = (char)(0x80 | (u >> 6 & 0x3F));
            buf[k++] = (char)(0x80 | (u & 0x3F));
        } else {
            buf[k++] = (char)(0xF0 | u >> 18);
            buf[k++] = (char)(0x80 | (u >> 12 & 0x3F));
            buf[k++] = (char)(0x80 | (u >> 6 & 0x3F));
            buf[k++] = (char)(0x80 | (u & 0x3F));
        }
    }
    j->p++; /* closing quote */
    if (buf) {
        buf[k] = 0;
        *out = buf;
    }
    return true;
}

/* An unsigned integer (no sign, fraction or exponent: offsets and dims are integers). */
static bool ct__juint(ct__jp *j, uint64_t *out) {
    ct__jws(j);
    if (j->p >= j->end || *j->p < '0' || *j->p > '9')
        return ct__jfail(j, "expected a non-negative integer");
    uint64_t v = 0;
    const char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        unsigned d = (unsigned)(*j->p - '0');
        if (v > (UINT64_MAX - d) / 10) return ct__jfail(j, "integer overflows 64 bits");
        v = v * 10 + d;
        j->p++;
    }
    if (j->p - s > 1 && *s == '0') return ct__jfail(j, "integer with a leading zero");
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        return ct__jfail(j, "expected an integer, found a fraction or exponent");
    *out = v;
    return true;
}

/* Skip any JSON value (bounded nesting). */
static bool ct__jskip(ct__jp *j, int depth) {
    if (depth > CT__ST_MAX_DEPTH) return ct__jfail(j, "nesting too deep");
    ct__jws(j);
    if (j->p >= j->end) return ct__jfail(j, "expected a value");
    char c = *j->p;
    if (c == '"') return ct__jstr(j, NULL);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        j->p++;
        if (ct__jlit(j, close)) return true;
        do {
            if (c == '{' && (!ct__jstr(j, NULL) || !ct__jlit(j, ':')))
                return j->st != CT_OK ? false : ct__jfail(j, "expected ':'");
            if (!ct__jskip(j, depth + 1)) return false;
        } while (ct__jlit(j, ','));
        return ct__jlit(j, close) ? true : ct__jfail(j, "expected ',' or a closing bracket");
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        j->p++;
        while (j->p < j->end && strchr("0123456789.eE+-", *j->p))
            j->p++;
        return true;
    }
    static const char *const words[3] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t l = strlen(words[i]);
        if ((size_t)(j->end - j->p) >= l && memcmp(j->p, words[i], l) == 0) {
            j->p += l;
            return true;
        }
    }
    return ct__jfail(j, "unexpected character");
}

static bool ct__utf8_valid(const uint8_t *s, size_t n, size_t *bad) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t len = c < 0x80             ? 1
                     : (c & 0xE0) == 0xC0 ? 2
                     : (c & 0xF0) == 0xE0 ? 3
                     : (c & 0xF8) == 0xF0 ? 4
                                          : 0;
        if (!len || i + len > n || (len == 2 && c < 0xC2) || (len == 4 && c > 0xF4)) break;
        bool ok = true;
        for (size_t k = 1; k < len; k++)
            ok = ok && (s[i + k] & 0xC0) == 0x80;
        if (ok && len == 3)
            ok = !(c == 0xE0 && s[i + 1] < 0xA0) && !(c == 0xED && s[i + 1] >= 0xA0);
        if (ok && len == 4)
            ok = !(c == 0xF0 && s[i + 1] < 0x90) && !(c == 0xF4 && s[i + 1] >= 0x90);
        if (!ok) break;
        i += len;
    }
    *bad = i;
    return i == n;
}

/* ---- the file object ---- */

void ct_safetensors_free(ct_safetensors *f) {
    if (!f) return;
    ct_ctx *ctx = f->ctx;
    for (int i = 0; i < f->n; i++)
        ct__free(ctx, f->e[i].name);
    for (int i = 0; i < f->n_meta; i++) {
        ct__free(ctx, f->mkey[i]);
        ct__free(ctx, f->mval[i]);
    }
    ct__free(ctx, f->e);
    ct__free(ctx, f->mkey);
    ct__free(ctx, f->mval);
    if (f->mapped)
        ct__file_unmap(f->map, f->map_len);
    else
        ct__free(ctx, f->map);
    ct__free(ctx, f);
}

static bool ct__grow(ct_ctx *ctx, void **arr, int *cap, int n, size_t elem) {
    if (n < *cap) return true;
    int nc = *cap ? *cap * 2 : 16;
    void *p = ct__alloc(ctx, (size_t)nc * elem, 16);
    if (!p) return false;
    if (*arr) memcpy(p, *arr, (size_t)n * elem);
    ct__free(ctx, *arr);
    *arr = p;
    *cap = nc;
    return true;
}

/* Bytes a dtype's elements take packed: numel * bits / 8, which must be whole. */
static bool ct__st_nbytes(ct_dtype dt, int64_t numel, uint64_t *out) {
    const ct_dtype_info *inf = ct_dtype_get_info(dt);
    if ((uint64_t)numel > UINT64_MAX / 8) return false;
    uint64_t bits = (uint64_t)numel * (uint64_t)inf->bits;
    if (bits / (uint64_t)inf->bits != (uint64_t)numel || bits % 8) return false;
    *out = bits / 8;
    return true;
}

/* One tensor's info object: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}. */
static bool ct__st_entry_parse(ct__jp *j, ct__st_entry *e) {
    if (!ct__jlit(j, '{')) return ct__jfail(j, "expected a tensor info object");
    bool have_dt = false, have_shape = false, have_off = false;
    if (ct__jlit(j, '}')) return ct__jfail(j, "tensor info without dtype, shape, data_offsets");
    do {
        char *key = NULL;
        if (!ct__jstr(j, &key)) return false;
        bool ok = ct__jlit(j, ':') || ct__jfail(j, "expected ':'");
        if (ok && strcmp(key, "dtype") == 0) {
            char *dn = NULL;
            ok = !have_dt || ct__jfail(j, "duplicate field dtype");
            ok = ok && ct__jstr(j, &dn);
            if (ok) {
                ct_dtype dt = CT_FLOAT32;
                bool found = false;
                for (int d = 0; d < CT_DTYPE_COUNT && !found; d++) {
                    const char *sn = ct_dtype_get_info((ct_dtype)d)->safetensors_name;
                    if (sn && strcmp(sn, dn) == 0) dt = (ct_dtype)d, found = true;
                }
                if (!found) {
                    static const char *const known[] = {"U16",         "U32",         "U64",
                                                        "F8_E4M3FNUZ", "F8_E5M2FNUZ", "C64"};
                    bool k = false;
                    for (size_t q = 0; q < sizeof known / sizeof known[0]; q++)
                        k = k || strcmp(known[q], dn) == 0;
                    if (j->st == CT_OK)
                        j->st = k ? ct__set_error(j->ctx, CT_ERR_DTYPE,
                                                  "safetensors: tensor \"%s\": dtype %s has no "
                                                  "ctorch dtype",
                                                  e->name, dn)
                                  : ct__set_error(j->ctx, CT_ERR_FORMAT,
                                                  "safetensors: header byte %zu: tensor \"%s\": "
                                                  "unknown dtype \"%.32s\"",
                                                  (size_t)(j->p - j->begin), e->name, dn);
                    ok = false;
                }
                e->dtype = dt;
                have_dt = true;
            }
            ct__free(j->ctx, dn);
        } else if (ok && strcmp(key, "shape") == 0) {
            ok = !have_shape || ct__jfail(j, "duplicate field shape");
            ok = ok && (ct__jlit(j, '[') || ct__jfail(j, "shape: expected '['"));
            e->ndim = 0;
            if (ok && !ct__jlit(j, ']')) {
                do {
                    uint64_t v;
                    if (e->ndim >= CT_MAX_DIMS) {
                        ok = ct__jfail(j, "shape: more dims than ctorch's CT_MAX_DIMS (8)");
                        break;
                    }
                    if (!(ok = ct__juint(j, &v))) break;
                    if (v > (uint64_t)INT64_MAX) {
                        ok = ct__jfail(j, "shape: dim too large");
                        break;
                    }
                    e->shape[e->ndim++] = (int64_t)v;
                } while (ct__jlit(j, ','));
                ok = ok && (ct__jlit(j, ']') || ct__jfail(j, "shape: expected ',' or ']'"));
            }
            have_shape = ok;
        } else if (ok && strcmp(key, "data_offsets") == 0) {
            ok = !have_off || ct__jfail(j, "duplicate field data_offsets");
            ok = ok && (ct__jlit(j, '[') || ct__jfail(j, "data_offsets: expected '['"));
            ok = ok && ct__juint(j, &e->begin);
            ok = ok && (ct__jlit(j, ',') || ct__jfail(j, "data_offsets: expected two integers"));
            ok = ok && ct__juint(j, &e->end);
            ok = ok && (ct__jlit(j, ']') || ct__jfail(j, "data_offsets: expected two integers"));
            have_off = ok;
        } else if (ok) {
            ok = ct__jskip(j, 2); /* unknown fields are ignored, as the reference reader does */
        }
        ct__free(j->ctx, key);
        if (!ok) return false;
    } while (ct__jlit(j, ','));
    if (!ct__jlit(j, '}')) return ct__jfail(j, "tensor info: expected ',' or '}'");
    if (!have_dt || !have_shape || !have_off) {
        if (j->st == CT_OK)
            j->st = ct__set_error(j->ctx, CT_ERR_FORMAT,
                                  "safetensors: header byte %zu: tensor \"%s\" lacks %s",
                                  (size_t)(j->p - j->begin), e->name,
                                  !have_dt      ? "dtype"
                                  : !have_shape ? "shape"
                                                : "data_offsets");
        return false;
    }
    return true;
}

static bool ct__st_meta_parse(ct__jp *j, ct_safetensors *f) {
    if (f->n_meta || f->meta_cap) return ct__jfail(j, "duplicate __metadata__");
    if (!ct__jlit(j, '{')) return ct__jfail(j, "__metadata__: expected an object");
    f->meta_cap = -1; /* seen */
    int cap = 0;
    if (ct__jlit(j, '}')) return true;
    do {
        char *k = NULL, *v = NULL;
        if (!ct__jstr(j, &k)) return false;
        bool ok = ct__jlit(j, ':') || ct__jfail(j, "__metadata__: expected ':'");
        ok = ok && ct__jstr(j, &v);
        for (int i = 0; ok && i < f->n_meta; i++)
            if (strcmp(f->mkey[i], k) == 0) ok = ct__jfail(j, "__metadata__: duplicate key");
        int c1 = cap, c2 = cap;
        if (ok && (!ct__grow(j->ctx, (void **)&f->mkey, &c1, f->n_meta, sizeof(char *)) ||
                   !ct__grow(j->ctx, (void **)&f->mval, &c2, f->n_meta, sizeof(char *)))) {
            if (j->st == CT_OK) j->st = ct__set_error(j->ctx, CT_ERR_OOM, "safetensors: OOM");
            ok = false;
        }
        if (!ok) {
            ct__free(j->ctx, k);
            ct__free(j->ctx, v);
            return false;
        }
        cap = c1 < c2 ? c1 : c2;
        f->mkey[f->n_meta] = k;
        f->mval[f->n_meta++] = v;
    } while (ct__jlit(j, ','));
    return ct__jlit(j, '}') || ct__jfail(j, "__metadata__: expected ',' or '}'");
}

static int ct__st_cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int ct__st_cmp_begin(const void *a, const void *b) {
    const ct__st_entry *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Parse and verify f->map (f->map_len bytes). */
static ct_status ct__st_parse(ct_safetensors *f) {
    ct_ctx *ctx = f->ctx;
    const uint8_t *d = f->map;
    size_t size = f->map_len;
    if (size < 8)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "safetensors: %zu bytes: too short for the 8-byte header length",
                             size);
    uint64_t hl = 0;
    for (int i = 7; i >= 0; i--)
        hl = hl << 8 | d[i];
    if (hl > CT__ST_MAX_HEADER)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "safetensors: header length %llu exceeds the format's limit %llu",
                             (unsigned long long)hl, (unsigned long long)CT__ST_MAX_HEADER);
    if (hl > size - 8)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "safetensors: header length %llu but only %zu bytes follow (truncated "
                             "file?)",
                             (unsigned long long)hl, size - 8);
    if (hl < 2 || d[8] != '{')
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "safetensors: the header must be a JSON object starting with '{'");
    size_t bad;
    if (!ct__utf8_valid(d + 8, (size_t)hl, &bad))
        return ct__set_error(ctx, CT_ERR_FORMAT, "safetensors: header byte %zu: invalid UTF-8",
                             bad);
    f->payload = d + 8 + hl;
    f->payload_size = size - 8 - hl;
    ct__jp j = {(const char *)d + 8, (const char *)d + 8, (const char *)d + 8 + hl, ctx, CT_OK};
    j.p++; /* '{' */
    if (!ct__jlit(&j, '}')) {
        do {
            char *key = NULL;
            if (!ct__jstr(&j, &key)) return j.st;
            if (!ct__jlit(&j, ':')) {
                ct__free(ctx, key);
                ct__jfail(&j, "expected ':'");
                return j.st;
            }
            if (strcmp(key, "__metadata__") == 0) {
                ct__free(ctx, key);
                if (!ct__st_meta_parse(&j, f)) return j.st;
                continue;
            }
            if (!ct__grow(ctx, (void **)&f->e, &f->cap, f->n, sizeof *f->e)) {
                ct__free(ctx, key);
                return ct__set_error(ctx, CT_ERR_OOM, "safetensors: out of memory (%d tensors)",
                                     f->n + 1);
            }
            ct__st_entry *e = &f->e[f->n];
            memset(e, 0, sizeof *e);
            e->name = key;
            f->n++;
            if (!ct__st_entry_parse(&j, e)) return j.st;
        } while (ct__jlit(&j, ','));
        if (!ct__jlit(&j, '}')) {
            ct__jfail(&j, "expected ',' or '}'");
            return j.st;
        }
    }
    ct__jws(&j);
    if (j.p != j.end) {
        ct__jfail(&j, "trailing bytes after the header object");
        return j.st;
    }
    /* names unique; byte ranges match dtype and shape and tile the data section */
    for (int i = 0; i < f->n; i++) {
        ct__st_entry *e = &f->e[i];
        int64_t numel = 1;
        for (int k = 0; k < e->ndim; k++)
            if (!ct__checked_mul(numel, e->shape[k], &numel))
                return ct__set_error(ctx, CT_ERR_FORMAT,
                                     "safetensors: tensor \"%s\": element count overflows",
                                     e->name);
        uint64_t nb;
        if (!ct__st_nbytes(e->dtype, numel, &nb))
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "safetensors: tensor \"%s\": %lld %s elements do not fill whole "
                                 "bytes",
                                 e->name, (long long)numel,
                                 ct_dtype_get_info(e->dtype)->safetensors_name);
        if (e->end < e->begin || e->end - e->begin != nb)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "safetensors: tensor \"%s\": data_offsets [%llu, %llu] hold %lld "
                                 "bytes, its dtype and shape need %llu",
                                 e->name, (unsigned long long)e->begin, (unsigned long long)e->end,
                                 e->end < e->begin ? -1LL : (long long)(e->end - e->begin),
                                 (unsigned long long)nb);
    }
    if (f->n > 1) qsort(f->e, (size_t)f->n, sizeof *f->e, ct__st_cmp_begin);
    uint64_t pos = 0;
    for (int i = 0; i < f->n; i++) {
        if (f->e[i].begin != pos)
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "safetensors: tensor \"%s\" starts at data byte %llu, expected "
                                 "%llu (tensors must tile the data section: no overlap, no hole)",
                                 f->e[i].name, (unsigned long long)f->e[i].begin,
                                 (unsigned long long)pos);
        pos = f->e[i].end;
    }
    if (pos != f->payload_size)
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "safetensors: tensors cover %llu data bytes, the file has %llu (%s)",
                             (unsigned long long)pos, (unsigned long long)f->payload_size,
                             pos < f->payload_size ? "trailing bytes" : "truncated file");
    /* duplicate names: sort pointers to the names */
    const char **names = ct__alloc(ctx, (size_t)(f->n ? f->n : 1) * sizeof *names, 16);
    if (!names) return ct__set_error(ctx, CT_ERR_OOM, "safetensors: out of memory");
    for (int i = 0; i < f->n; i++)
        names[i] = f->e[i].name;
    if (f->n > 1) qsort(names, (size_t)f->n, sizeof *names, ct__st_cmp_str);
    ct_status st = CT_OK;
    for (int i = 1; i < f->n && st == CT_OK; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            st = ct__set_error(ctx, CT_ERR_FORMAT, "safetensors: tensor name \"%s\" twice",
                               names[i]);
    ct__free(ctx, names);
    return st;
}

static ct_safetensors *ct__st_new(ct_ctx *ctx) {
    ct_safetensors *f = ct__alloc(ctx, sizeof *f, 16);
    if (f) {
        memset(f, 0, sizeof *f);
        f->ctx = ctx;
    }
    return f;
}

static ct_status ct__st_finish(ct_safetensors *f, ct_safetensors **out) {
    ct_status st = ct__st_parse(f);
    if (st != CT_OK) {
        ct_safetensors_free(f);
        return st;
    }
    *out = f;
    return CT_OK;
}

ct_status ct_safetensors_load_buffer(ct_ctx *ctx, const void *data, size_t size,
                                     ct_safetensors **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out || (!data && size))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "safetensors_load_buffer: NULL %s",
                             !out ? "out" : "data");
    *out = NULL;
    ct_safetensors *f = ct__st_new(ctx);
    if (!f) return ct__set_error(ctx, CT_ERR_OOM, "safetensors: out of memory");
    f->map = ct__alloc(ctx, size ? size : 1, 64);
    if (!f->map) {
        ct__free(ctx, f);
        return ct__set_error(ctx, CT_ERR_OOM, "safetensors: out of memory (%zu bytes)", size);
    }
    if (size) memcpy(f->map, data, size);
    f->map_len = size;
    return ct__st_finish(f, out);
}

ct_status ct_safetensors_load(ct_ctx *ctx, const char *path, ct_safetensors **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out || !path)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "safetensors_load: NULL %s",
                             !out ? "out" : "path");
    *out = NULL;
    ct_safetensors *f = ct__st_new(ctx);
    if (!f) return ct__set_error(ctx, CT_ERR_OOM, "safetensors: out of memory");
    ct_status st = ct__file_map(ctx, "safetensors_load", path, &f->map, &f->map_len);
    if (st != CT_OK) {
        ct__free(ctx, f);
        return st;
    }
    f->mapped = true;
    return ct__st_finish(f, out);
}

int ct_safetensors_count(const ct_safetensors *f) { return f ? f->n : 0; }

const char *ct_safetensors_name(const ct_safetensors *f, int i) {
    return f && i >= 0 && i < f->n ? f->e[i].name : NULL;
}

const char *ct_safetensors_metadata(const ct_safetensors *f, const char *key) {
    if (!f || !key) return NULL;
    for (int i = 0; i < f->n_meta; i++)
        if (strcmp(f->mkey[i], key) == 0) return f->mval[i];
    return NULL;
}

ct_status ct_safetensors_get(const ct_safetensors *f, const char *name, ct_tensor **out) {
    if (!f) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = f->ctx;
    ct__clear_error(ctx);
    if (!name || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "safetensors_get: NULL %s",
                             !name ? "name" : "out");
    *out = NULL;
    const ct__st_entry *e = NULL;
    for (int i = 0; i < f->n && !e; i++)
        if (strcmp(f->e[i].name, name) == 0) e = &f->e[i];
    if (!e)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "safetensors_get: no tensor named \"%s\" (%d in "
                             "the file)",
                             name, f->n);
    const uint8_t *src = f->payload + e->begin;
    const int bits = ct_dtype_get_info(e->dtype)->bits;
    if (bits >= 8) return ct_tensor_from_host(ctx, src, e->dtype, e->ndim, e->shape, out);
    /* sub-byte: element i is bits [i*b, i*b + b) of the little-endian bit stream */
    int64_t numel = 1;
    for (int k = 0; k < e->ndim; k++)
        numel *= e->shape[k];
    uint8_t *u = ct__alloc(ctx, (size_t)(numel ? numel : 1), 64);
    if (!u) return ct__set_error(ctx, CT_ERR_OOM, "safetensors_get: out of memory");
    const unsigned mask = (1u << bits) - 1u;
    for (int64_t i = 0; i < numel; i++) {
        uint64_t bit = (uint64_t)i * (uint64_t)bits;
        unsigned w = src[bit / 8];
        if (bit % 8 + (uint64_t)bits > 8) w |= (unsigned)src[bit / 8 + 1] << 8;
        u[i] = (uint8_t)(w >> (bit % 8) & mask);
    }
    ct_status st = ct_tensor_from_host(ctx, u, e->dtype, e->ndim, e->shape, out);
    ct__free(ctx, u);
    return st;
}

/* ---- writer ---- */

typedef struct {
    char *p;
    size_t n, cap;
    bool oom;
    ct_ctx *ctx;
} ct__sb;

static void ct__sb_put(ct__sb *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->cap ? b->cap * 2 : 256) + n;
        char *q = ct__alloc(b->ctx, nc, 16);
        if (!q) {
            b->oom = true;
            return;
        }
        if (b->p) memcpy(q, b->p, b->n);
        ct__free(b->ctx, b->p);
        b->p = q;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void ct__sb_str(ct__sb *b, const char *s) { ct__sb_put(b, s, strlen(s)); }
static void ct__sb_json(ct__sb *b, const char *s) { /* a JSON string literal */
    ct__sb_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            ct__sb_put(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            ct__sb_put(b, esc, 6);
        } else {
            ct__sb_put(b, (const char *)&c, 1);
        }
    }
    ct__sb_put(b, "\"", 1);
}

typedef struct {
    int idx;
    size_t itemsize;
    const char *name;
} ct__st_order;

static int ct__st_cmp_order(const void *a, const void *b) {
    const ct__st_order *x = a, *y = b;
    if (x->itemsize != y->itemsize) return x->itemsize > y->itemsize ? -1 : 1;
    return strcmp(x->name, y->name);
}

ct_status ct__safetensors_write(ct_ctx *ctx, FILE *fp, const char *fname, int n,
                                const char *const *names, const ct_tensor *const *tensors,
                                const char *const *metadata, uint64_t *offsets) {
    const char *path = fname;
    if (!path || n < 0 || (n > 0 && (!names || !tensors)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "safetensors_save: %s",
                             !path   ? "path is NULL"
                             : n < 0 ? "n is negative"
                                     : "names or tensors is NULL");
    for (int i = 0; i < n; i++) {
        if (!names[i] || !tensors[i])
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "safetensors_save: %s[%d] is NULL",
                                 !names[i] ? "names" : "tensors", i);
        if (tensors[i]->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "safetensors_save: tensors[%d] belongs to another context", i);
        if (strcmp(names[i], "__metadata__") == 0) /* the one reserved key; "" is a valid name */
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "safetensors_save: names[%d] \"%s\" is not a valid tensor name", i,
                                 names[i]);
        for (int k = 0; k < i; k++)
            if (strcmp(names[k], names[i]) == 0)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "safetensors_save: names[%d] and names[%d] are both \"%s\"", k,
                                     i, names[i]);
        if (!ct_dtype_get_info(ct_tensor_dtype(tensors[i]))->safetensors_name)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "safetensors_save: \"%s\": safetensors has no dtype for %s",
                                 names[i], ct_dtype_name(ct_tensor_dtype(tensors[i])));
        uint64_t nb;
        if (!ct__st_nbytes(ct_tensor_dtype(tensors[i]), ct_tensor_numel(tensors[i]), &nb))
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "safetensors_save: \"%s\": %lld %s elements do not pack into "
                                 "whole bytes",
                                 names[i], (long long)ct_tensor_numel(tensors[i]),
                                 ct_dtype_name(ct_tensor_dtype(tensors[i])));
    }
    if (metadata)
        for (int i = 0; metadata[i]; i += 2)
            if (!metadata[i + 1])
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "safetensors_save: metadata key \"%s\" has no value",
                                     metadata[i]);
    ct__st_order *ord = ct__alloc(ctx, (size_t)(n ? n : 1) * sizeof *ord, 16);
    if (!ord) return ct__set_error(ctx, CT_ERR_OOM, "safetensors_save: out of memory");
    for (int i = 0; i < n; i++) {
        ord[i].idx = i;
        ord[i].itemsize = ct_dtype_size(ct_tensor_dtype(tensors[i]));
        ord[i].name = names[i];
    }
    if (!offsets) qsort(ord, (size_t)n, sizeof *ord, ct__st_cmp_order);
    /* header */
    ct__sb b = {NULL, 0, 0, false, ctx};
    ct__sb_str(&b, "{");
    bool first = true;
    if (metadata && metadata[0]) {
        ct__sb_str(&b, "\"__metadata__\":{");
        for (int i = 0; metadata[i]; i += 2) {
            if (i) ct__sb_str(&b, ",");
            ct__sb_json(&b, metadata[i]);
            ct__sb_str(&b, ":");
            ct__sb_json(&b, metadata[i + 1]);
        }
        ct__sb_str(&b, "}");
        first = false;
    }
    uint64_t off = 0;
    for (int q = 0; q < n; q++) {
        const ct_tensor *t = tensors[ord[q].idx];
        uint64_t nb = 0;
        ct__st_nbytes(ct_tensor_dtype(t), ct_tensor_numel(t), &nb);
        if (offsets && off % 64) { /* align mode: a U8 padding tensor up to the next 64 bytes */
            char tmp[128];
            uint64_t pad = 64 - off % 64;
            snprintf(
                tmp, sizeof tmp,
                "%s\"__pad.%d\":{\"dtype\":\"U8\",\"shape\":[%llu],\"data_offsets\":[%llu,%llu]}",
                first ? "" : ",", q, (unsigned long long)pad, (unsigned long long)off,
                (unsigned long long)(off + pad));
            ct__sb_str(&b, tmp);
            first = false;
            off += pad;
        }
        if (!first) ct__sb_str(&b, ",");
        first = false;
        ct__sb_json(&b, names[ord[q].idx]);
        char tmp[96];
        snprintf(tmp, sizeof tmp, ":{\"dtype\":\"%s\",\"shape\":[",
                 ct_dtype_get_info(ct_tensor_dtype(t))->safetensors_name);
        ct__sb_str(&b, tmp);
        for (int d = 0; d < ct_tensor_ndim(t); d++) {
            snprintf(tmp, sizeof tmp, "%s%lld", d ? "," : "", (long long)ct_tensor_shape(t)[d]);
            ct__sb_str(&b, tmp);
        }
        snprintf(tmp, sizeof tmp, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off,
                 (unsigned long long)(off + nb));
        ct__sb_str(&b, tmp);
        if (offsets) offsets[ord[q].idx] = off; /* relative to the data; made absolute below */
        off += nb;
    }
    ct__sb_str(&b, "}");
    while (!b.oom && (8 + b.n) % 64) /* data 64-byte aligned: pad the header with spaces */
        ct__sb_str(&b, " ");
    if (b.oom) {
        ct__free(ctx, b.p);
        ct__free(ctx, ord);
        return ct__set_error(ctx, CT_ERR_OOM, "safetensors_save: out of memory (header)");
    }
    ct_status st = CT_OK;
    for (int i = 0; offsets && i < n; i++)
        offsets[i] += 8 + (uint64_t)b.n;
    if (st == CT_OK) {
        uint8_t len8[8];
        for (int i = 0; i < 8; i++)
            len8[i] = (uint8_t)((uint64_t)b.n >> (8 * i));
        if (fwrite(len8, 1, 8, fp) != 8 || fwrite(b.p, 1, b.n, fp) != b.n)
            st = ct__set_error(ctx, CT_ERR_IO, "safetensors_save: writing %s: %s", path,
                               strerror(errno));
    }
    uint64_t at = 0; /* data bytes written */
    for (int q = 0; q < n && st == CT_OK; q++) {
        const ct_tensor *t = tensors[ord[q].idx];
        static const uint8_t zero64[64];
        if (offsets && at % 64) {
            size_t pad = (size_t)(64 - at % 64);
            if (fwrite(zero64, 1, pad, fp) != pad) {
                st = ct__set_error(ctx, CT_ERR_IO, "safetensors_save: writing %s: %s", path,
                                   strerror(errno));
                break;
            }
            at += pad;
        }
        size_t isz = ct_dtype_size(ct_tensor_dtype(t)), numel = (size_t)ct_tensor_numel(t);
        int bits = ct_dtype_get_info(ct_tensor_dtype(t))->bits;
        uint8_t *buf = ct__alloc(ctx, numel * isz + 1, 64);
        if (!buf) {
            st = ct__set_error(ctx, CT_ERR_OOM, "safetensors_save: out of memory (\"%s\")",
                               names[ord[q].idx]);
            break;
        }
        st = ct_tensor_to_host(t, buf, numel * isz);
        size_t nb = numel * isz;
        if (st == CT_OK && bits < 8) { /* pack into a zeroed buffer, then copy back */
            uint64_t bit = 0;
            size_t outb = (numel * (size_t)bits) / 8;
            uint8_t *packed = ct__alloc(ctx, outb + 1, 64);
            if (!packed) {
                st = ct__set_error(ctx, CT_ERR_OOM, "safetensors_save: out of memory");
            } else {
                memset(packed, 0, outb + 1);
                for (size_t i = 0; i < numel; i++, bit += (uint64_t)bits) {
                    unsigned v = buf[i] & ((1u << bits) - 1u);
                    packed[bit / 8] |= (uint8_t)(v << (bit % 8));
                    if (bit % 8 + (uint64_t)bits > 8)
                        packed[bit / 8 + 1] |= (uint8_t)(v >> (8 - bit % 8));
                }
                memcpy(buf, packed, outb);
                ct__free(ctx, packed);
                nb = outb;
            }
        }
        if (st == CT_OK && nb && fwrite(buf, 1, nb, fp) != nb)
            st = ct__set_error(ctx, CT_ERR_IO, "safetensors_save: writing %s: %s", path,
                               strerror(errno));
        at += nb;
        ct__free(ctx, buf);
    }
    ct__free(ctx, b.p);
    ct__free(ctx, ord);
    return st;
}

ct_status ct_safetensors_save(ct_ctx *ctx, const char *path, int n, const char *const *names,
                              const ct_tensor *const *tensors, const char *const *metadata) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!path) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "safetensors_save: path is NULL");
    char *tmpath = NULL;
    FILE *fp = NULL;
    ct_status st = ct__file_create_tmp(ctx, "safetensors_save", path, &tmpath, &fp);
    if (st == CT_OK) st = ct__safetensors_write(ctx, fp, tmpath, n, names, tensors, metadata, NULL);
    return tmpath ? ct__file_commit(ctx, "safetensors_save", path, tmpath, fp, st) : st;
}

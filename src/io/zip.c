/* ZIP archives (PKWARE APPNOTE 6.3): a hostile-input reader of stored and deflated members
 * (RFC 1951 inflate of our own), ZIP64, CRC-32; and a writer of stored, aligned members. See zip.h.
 */
#include "io/zip.h"

#include "core/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZIP_LOCAL_SIG 0x04034b50u
#define ZIP_CENTRAL_SIG 0x02014b50u
#define ZIP_EOCD_SIG 0x06054b50u
#define ZIP64_EOCD_SIG 0x06064b50u
#define ZIP64_LOC_SIG 0x07064b50u

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* ---- CRC-32, slicing by 4 ---- */
static uint32_t crc_tab[4][256];
static void crc_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tab[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 4; t++)
            crc_tab[t][i] = crc_tab[t - 1][i] >> 8 ^ crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

uint32_t ct__crc32(uint32_t crc, const void *data, size_t n) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc_init);
    const uint8_t *p = data;
    uint32_t c = ~crc;
    for (; n >= 4; n -= 4, p += 4) {
        c ^= rd32(p);
        c = crc_tab[3][c & 0xff] ^ crc_tab[2][c >> 8 & 0xff] ^ crc_tab[1][c >> 16 & 0xff] ^
            crc_tab[0][c >> 24];
    }
    while (n--)
        c = crc_tab[0][(c ^ *p++) & 0xff] ^ c >> 8;
    return ~c;
}

/* ---- inflate (RFC 1951) ---- */
typedef struct {
    const uint8_t *in;
    size_t inlen, pos;
    uint64_t bits;
    int nbits;
    uint8_t *out;
    size_t outlen, outcap;
    const char *err; /* first error */
} ct__infl;

typedef struct {
    short count[16];   /* codes of each length */
    short symbol[320]; /* symbols ordered by code */
} ct__huff;

static int infl_bits(ct__infl *s, int n) {
    while (s->nbits < n) {
        if (s->pos >= s->inlen) {
            s->err = "the compressed data ends early";
            return -1;
        }
        s->bits |= (uint64_t)s->in[s->pos++] << s->nbits;
        s->nbits += 8;
    }
    int v = (int)(s->bits & ((1u << n) - 1u));
    s->bits >>= n;
    s->nbits -= n;
    return v;
}

/* Canonical code from code lengths; returns the codes left unused (0: complete), < 0 when the
 * lengths are over-subscribed. */
static int huff_build(ct__huff *h, const short *len, int n) {
    memset(h->count, 0, sizeof h->count);
    for (int i = 0; i < n; i++)
        h->count[len[i]]++;
    if (h->count[0] == n) return 0;
    int left = 1;
    for (int l = 1; l < 16; l++) {
        left <<= 1;
        left -= h->count[l];
        if (left < 0) return left;
    }
    short offs[16];
    offs[1] = 0;
    for (int l = 1; l < 15; l++)
        offs[l + 1] = (short)(offs[l] + h->count[l]);
    for (int i = 0; i < n; i++)
        if (len[i]) h->symbol[offs[len[i]]++] = (short)i;
    return left;
}

static int huff_decode(ct__infl *s, const ct__huff *h) {
    int code = 0, first = 0, index = 0;
    for (int l = 1; l < 16; l++) {
        int b = infl_bits(s, 1);
        if (b < 0) return -1;
        code |= b;
        int count = h->count[l];
        if (code - count < first) return h->symbol[index + (code - first)];
        index += count;
        first += count;
        first <<= 1;
        code <<= 1;
    }
    s->err = "an invalid Huffman code";
    return -1;
}

static const short len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const short len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                    2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const int dist_base[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                  33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                  1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const short dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                     6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int infl_codes(ct__infl *s, const ct__huff *lit, const ct__huff *dist) {
    for (;;) {
        int sym = huff_decode(s, lit);
        if (sym < 0) return -1;
        if (sym < 256) {
            if (s->outlen >= s->outcap) {
                s->err = "more data than the member's declared size";
                return -1;
            }
            s->out[s->outlen++] = (uint8_t)sym;
        } else if (sym == 256) {
            return 0;
        } else {
            sym -= 257;
            if (sym >= 29) {
                s->err = "an invalid length code";
                return -1;
            }
            int e = infl_bits(s, len_extra[sym]);
            if (e < 0) return -1;
            size_t len = (size_t)(len_base[sym] + e);
            int ds = huff_decode(s, dist);
            if (ds < 0) return -1;
            if (ds >= 30) {
                s->err = "an invalid distance code";
                return -1;
            }
            int de = infl_bits(s, dist_extra[ds]);
            if (de < 0) return -1;
            size_t d = (size_t)(dist_base[ds] + de);
            if (d > s->outlen) {
                s->err = "a distance too far back";
                return -1;
            }
            if (len > s->outcap - s->outlen) {
                s->err = "more data than the member's declared size";
                return -1;
            }
            for (size_t k = 0; k < len; k++, s->outlen++)
                s->out[s->outlen] = s->out[s->outlen - d];
        }
    }
}

static int infl_stored(ct__infl *s) {
    s->bits = 0; /* to a byte boundary: the partial byte is discarded */
    s->nbits = 0;
    if (s->inlen - s->pos < 4) {
        s->err = "the compressed data ends early";
        return -1;
    }
    unsigned len = rd16(s->in + s->pos), nlen = rd16(s->in + s->pos + 2);
    s->pos += 4;
    if (len != (~nlen & 0xffffu)) {
        s->err = "a stored block whose length check fails";
        return -1;
    }
    if (len > s->inlen - s->pos) {
        s->err = "the compressed data ends early";
        return -1;
    }
    if (len > s->outcap - s->outlen) {
        s->err = "more data than the member's declared size";
        return -1;
    }
    memcpy(s->out + s->outlen, s->in + s->pos, len);
    s->outlen += len;
    s->pos += len;
    return 0;
}

static ct__huff fixed_lit, fixed_dist; /* the fixed codes of RFC 1951 3.2.6 */
static void fixed_init(void) {
    short l[288];
    int i = 0;
    for (; i < 144; i++)
        l[i] = 8;
    for (; i < 256; i++)
        l[i] = 9;
    for (; i < 280; i++)
        l[i] = 7;
    for (; i < 288; i++)
        l[i] = 8;
    huff_build(&fixed_lit, l, 288);
    for (i = 0; i < 30; i++)
        l[i] = 5;
    huff_build(&fixed_dist, l, 30);
}
static int infl_fixed(ct__infl *s) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fixed_init);
    return infl_codes(s, &fixed_lit, &fixed_dist);
}

static int infl_dynamic(ct__infl *s) {
    static const short order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
    int nlen = infl_bits(s, 5), ndist = infl_bits(s, 5), ncode = infl_bits(s, 4);
    if (nlen < 0 || ndist < 0 || ncode < 0) return -1;
    nlen += 257, ndist += 1, ncode += 4;
    if (nlen > 286 || ndist > 30) {
        s->err = "too many length or distance codes";
        return -1;
    }
    short lengths[320];
    int i = 0;
    for (; i < ncode; i++) {
        int v = infl_bits(s, 3);
        if (v < 0) return -1;
        lengths[order[i]] = (short)v;
    }
    for (; i < 19; i++)
        lengths[order[i]] = 0;
    ct__huff lc, lit, dist;
    if (huff_build(&lc, lengths, 19) != 0) {
        s->err = "an incomplete code-length code";
        return -1;
    }
    for (i = 0; i < nlen + ndist;) {
        int sym = huff_decode(s, &lc);
        if (sym < 0) return -1;
        if (sym < 16) {
            lengths[i++] = (short)sym;
            continue;
        }
        int rep, prev = 0;
        if (sym == 16) {
            if (i == 0) {
                s->err = "a repeat with no previous length";
                return -1;
            }
            prev = lengths[i - 1];
            rep = 3 + infl_bits(s, 2);
        } else if (sym == 17) {
            rep = 3 + infl_bits(s, 3);
        } else {
            rep = 11 + infl_bits(s, 7);
        }
        if (s->err) return -1;
        if (i + rep > nlen + ndist) {
            s->err = "code lengths past the declared count";
            return -1;
        }
        while (rep--)
            lengths[i++] = (short)prev;
    }
    if (lengths[256] == 0) {
        s->err = "no end-of-block code";
        return -1;
    }
    int e = huff_build(&lit, lengths, nlen);
    if (e < 0 || (e > 0 && nlen - lit.count[0] != 1)) {
        s->err = "an incomplete literal/length code";
        return -1;
    }
    e = huff_build(&dist, lengths + nlen, ndist);
    if (e < 0 || (e > 0 && ndist - dist.count[0] != 1)) {
        s->err = "an incomplete distance code";
        return -1;
    }
    return infl_codes(s, &lit, &dist);
}

/* Inflate in[0, inlen) into exactly outcap bytes; NULL on success, else what went wrong. */
static const char *ct__inflate(const uint8_t *in, size_t inlen, uint8_t *out, size_t outcap) {
    ct__infl s = {in, inlen, 0, 0, 0, out, 0, outcap, NULL};
    int last;
    do {
        last = infl_bits(&s, 1);
        int type = infl_bits(&s, 2);
        if (last < 0 || type < 0) return s.err;
        int r = type == 0   ? infl_stored(&s)
                : type == 1 ? infl_fixed(&s)
                : type == 2 ? infl_dynamic(&s)
                            : (s.err = "a block of the reserved type 3", -1);
        if (r < 0) return s.err;
    } while (!last);
    if (s.outlen != outcap) return "less data than the member's declared size";
    return NULL;
}

/* ---- reader ---- */
void ct__zip_close(ct_ctx *ctx, ct__zip *z) {
    if (!z) return;
    for (int i = 0; i < z->n; i++)
        ct__free(ctx, z->m[i].name);
    ct__free(ctx, z->m);
    ct__free(ctx, z->byname);
    memset(z, 0, sizeof *z);
}

static ct_status zip_bad(ct_ctx *ctx, ct__zip *z, const char *who, const char *what, uint64_t at) {
    ct__zip_close(ctx, z);
    return ct__set_error(ctx, CT_ERR_FORMAT, "%s: not a valid ZIP archive: %s (byte %llu)", who,
                         what, (unsigned long long)at);
}

static int by_offset(const void *x, const void *y) {
    const ct__zip_member *a = *(const ct__zip_member *const *)x,
                         *b = *(const ct__zip_member *const *)y;
    return (a->local > b->local) - (a->local < b->local);
}
static int by_name(const void *x, const void *y) {
    const ct__zip_member *a = *(const ct__zip_member *const *)x,
                         *b = *(const ct__zip_member *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : (a > b) - (a < b); /* members lie in one array: addresses give positions */
}

/* No two members (local header to the end of the data) overlap, none runs into the central
 * directory (so no byte is inflated or checked twice), and the name index. */
static ct_status zip_index(ct_ctx *ctx, ct__zip *z, const char *who, uint64_t cdoff) {
    z->byname = ct__alloc(ctx, (size_t)(z->n ? z->n : 1) * sizeof *z->byname, 16);
    if (!z->byname) {
        ct__zip_close(ctx, z);
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory reading the ZIP directory", who);
    }
    for (int i = 0; i < z->n; i++)
        z->byname[i] = &z->m[i];
    qsort(z->byname, (size_t)z->n, sizeof *z->byname, by_offset);
    for (int i = 0; i < z->n; i++) {
        const ct__zip_member *m = z->byname[i];
        uint64_t end = m->data + m->csize, next = i + 1 < z->n ? z->byname[i + 1]->local : cdoff;
        if (end > next || (i + 1 < z->n && next == m->local))
            return zip_bad(ctx, z, who,
                           i + 1 < z->n ? "two members overlap" : "a member overlaps the directory",
                           m->local);
    }
    qsort(z->byname, (size_t)z->n, sizeof *z->byname, by_name);
    return CT_OK;
}

ct_status ct__zip_open(ct_ctx *ctx, const char *who, const uint8_t *b, size_t len, ct__zip *z) {
    memset(z, 0, sizeof *z);
    z->buf = b;
    z->len = len;
    if (len < 22 || (rd32(b) != ZIP_LOCAL_SIG && rd32(b) != ZIP_EOCD_SIG))
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "%s: not a ZIP archive (no signature PK\\3\\4 or PK\\5\\6 at byte 0;"
                             " %zu bytes)",
                             who, len);
    /* the end of central directory record: the last one whose comment reaches the end */
    size_t eocd = SIZE_MAX;
    size_t lo = len > 22 + 65535 ? len - 22 - 65535 : 0;
    for (size_t p = len - 22 + 1; p-- > lo;)
        if (rd32(b + p) == ZIP_EOCD_SIG && p + 22 + rd16(b + p + 20) == len) {
            eocd = p;
            break;
        }
    if (eocd == SIZE_MAX) return zip_bad(ctx, z, who, "no end of central directory record", len);
    uint64_t count = rd16(b + eocd + 10), cdsize = rd32(b + eocd + 12), cdoff = rd32(b + eocd + 16);
    if (rd16(b + eocd + 4) != 0 || rd16(b + eocd + 6) != 0 || rd16(b + eocd + 8) != count)
        return zip_bad(ctx, z, who, "a multi-disk archive", eocd + 4);
    if (count == 0xffff || cdsize == 0xffffffffu || cdoff == 0xffffffffu) {
        if (eocd < 20 || rd32(b + eocd - 20) != ZIP64_LOC_SIG)
            return zip_bad(ctx, z, who, "ZIP64 values without a ZIP64 locator", eocd);
        uint64_t r = rd64(b + eocd - 20 + 8);
        if (r > len || len - r < 56 || rd32(b + r) != ZIP64_EOCD_SIG)
            return zip_bad(ctx, z, who, "the ZIP64 locator points at no ZIP64 record", eocd - 12);
        if (rd32(b + r + 16) != 0 || rd32(b + r + 20) != 0 || rd64(b + r + 24) != rd64(b + r + 32))
            return zip_bad(ctx, z, who, "a multi-disk archive", r + 16);
        count = rd64(b + r + 32);
        cdsize = rd64(b + r + 40);
        cdoff = rd64(b + r + 48);
    }
    if (cdoff > len || cdsize > len - cdoff)
        return zip_bad(ctx, z, who, "the central directory lies outside the file", eocd + 16);
    if (count > cdsize / 46)
        return zip_bad(ctx, z, who, "more entries than the central directory holds", eocd + 10);
    if (count > INT32_MAX) return zip_bad(ctx, z, who, "more than 2^31 entries", eocd + 10);
    z->m = ct__alloc(ctx, (size_t)(count ? count : 1) * sizeof *z->m, 16);
    if (!z->m)
        return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory reading the ZIP directory", who);
    uint64_t p = cdoff, end = cdoff + cdsize;
    for (uint64_t i = 0; i < count; i++) {
        if (end - p < 46 || rd32(b + p) != ZIP_CENTRAL_SIG)
            return zip_bad(ctx, z, who,
                           "a central directory entry is truncated or has no signature", p);
        const uint8_t *e = b + p;
        uint32_t flags = rd16(e + 8), method = rd16(e + 10);
        uint64_t nlen = rd16(e + 28), xlen = rd16(e + 30), clen = rd16(e + 32);
        if (46 + nlen + xlen + clen > end - p)
            return zip_bad(ctx, z, who, "a central directory entry runs past the directory", p);
        if (flags & 1) return zip_bad(ctx, z, who, "an encrypted member", p + 8);
        if (method != 0 && method != 8)
            return zip_bad(ctx, z, who, "a member compressed other than stored or deflated",
                           p + 10);
        ct__zip_member *m = &z->m[z->n];
        memset(m, 0, sizeof *m);
        m->method = (int)method;
        m->crc = rd32(e + 16);
        m->csize = rd32(e + 20);
        m->usize = rd32(e + 24);
        uint64_t local = rd32(e + 42);
        /* ZIP64 extended information: the fields that are all ones, in this order */
        const uint8_t *x = e + 46 + nlen, *xe = x + xlen;
        while (xe - x >= 4) {
            uint32_t id = rd16(x), sz = rd16(x + 2);
            if ((uint64_t)(xe - x - 4) < sz)
                return zip_bad(ctx, z, who, "an extra field runs past its entry",
                               (uint64_t)(x - b));
            if (id == 1) {
                const uint8_t *f = x + 4, *fe = x + 4 + sz;
                uint64_t *want[3] = {m->usize == 0xffffffffu ? &m->usize : NULL,
                                     m->csize == 0xffffffffu ? &m->csize : NULL,
                                     local == 0xffffffffu ? &local : NULL};
                for (int k = 0; k < 3; k++) {
                    if (!want[k]) continue;
                    if (fe - f < 8)
                        return zip_bad(ctx, z, who, "a ZIP64 extra field is too short",
                                       (uint64_t)(x - b));
                    *want[k] = rd64(f);
                    f += 8;
                }
            }
            x += 4 + sz;
        }
        if (method == 0 && m->csize != m->usize)
            return zip_bad(ctx, z, who, "a stored member whose two sizes differ", p + 20);
        /* deflate expands at most 1032:1 */
        if (method == 8 && m->usize / 1032 > m->csize + 1)
            return zip_bad(ctx, z, who, "a deflated member declaring an impossible size", p + 24);
        if (local > len || len - local < 30 || rd32(b + local) != ZIP_LOCAL_SIG)
            return zip_bad(ctx, z, who, "a member's local header is missing", p + 42);
        uint64_t data = local + 30 + rd16(b + local + 26) + rd16(b + local + 28);
        if (data > len || m->csize > len - data)
            return zip_bad(ctx, z, who, "a member's data runs past the end of the file", local);
        m->data = data;
        m->local = local;
        for (uint64_t k = 0; k < nlen; k++)
            if (e[46 + k] == 0)
                return zip_bad(ctx, z, who, "a member name containing a NUL byte", p + 46 + k);
        m->name = ct__alloc(ctx, (size_t)nlen + 1, 16);
        if (!m->name) {
            ct__zip_close(ctx, z);
            return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory reading the ZIP directory",
                                 who);
        }
        memcpy(m->name, e + 46, (size_t)nlen);
        m->name[nlen] = 0;
        z->n++;
        p += 46 + nlen + xlen + clen;
    }
    return zip_index(ctx, z, who, cdoff);
}

int ct__zip_find(const ct__zip *z, const char *name) {
    int lo = 0, hi = z->n; /* the first of the members named name */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(z->byname[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < z->n && strcmp(z->byname[lo]->name, name) == 0 ? (int)(z->byname[lo] - z->m) : -1;
}

ct_status ct__zip_read(ct_ctx *ctx, const char *who, const ct__zip *z, int i, const uint8_t **data,
                       uint8_t **owned) {
    const ct__zip_member *m = &z->m[i];
    *owned = NULL;
    *data = z->buf + m->data;
    if (m->method == 8) {
        if (m->usize > SIZE_MAX / 2)
            return ct__set_error(ctx, CT_ERR_OOM, "%s: member '%s' is too large (%llu bytes)", who,
                                 m->name, (unsigned long long)m->usize);
        uint8_t *o = ct__alloc(ctx, (size_t)(m->usize ? m->usize : 1), 64);
        if (!o)
            return ct__set_error(ctx, CT_ERR_OOM,
                                 "%s: out of memory inflating member '%s' (%llu bytes)", who,
                                 m->name, (unsigned long long)m->usize);
        const char *err = ct__inflate(*data, (size_t)m->csize, o, (size_t)m->usize);
        if (err) {
            ct__free(ctx, o);
            return ct__set_error(ctx, CT_ERR_FORMAT,
                                 "%s: member '%s' (byte %llu) does not inflate: %s", who, m->name,
                                 (unsigned long long)m->data, err);
        }
        *owned = o;
        *data = o;
    }
    uint32_t crc = ct__crc32(0, *data, (size_t)m->usize);
    if (crc != m->crc) {
        ct__free(ctx, *owned);
        *owned = NULL;
        return ct__set_error(ctx, CT_ERR_FORMAT,
                             "%s: member '%s' (byte %llu) is corrupt: CRC-32 0x%08x, the directory "
                             "says 0x%08x",
                             who, m->name, (unsigned long long)m->data, crc, m->crc);
    }
    return CT_OK;
}

/* ---- writer ---- */
static void wr16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, v & 0xffff), wr16(p + 2, v >> 16); }
static void wr64(uint8_t *p, uint64_t v) { wr32(p, (uint32_t)v), wr32(p + 4, (uint32_t)(v >> 32)); }
#define ZIP_DOS_DATE 0x21 /* 1980-01-01: files are byte-for-byte reproducible */

void ct__zipw_init(ct__zipw *w, FILE *fp, const char *who, const char *fname) {
    memset(w, 0, sizeof *w);
    w->fp = fp;
    w->who = who;
    w->fname = fname;
}

static ct_status zipw_put(ct_ctx *ctx, ct__zipw *w, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, w->fp) != n)
        return ct__set_error(ctx, CT_ERR_IO, "%s: writing %s: %s", w->who, w->fname,
                             strerror(errno));
    w->at += n;
    return CT_OK;
}

ct_status ct__zipw_add(ct_ctx *ctx, ct__zipw *w, const char *name, const void *data, size_t n,
                       size_t align) {
    size_t nlen = strlen(name);
    if (nlen > 0xffff)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: member name of %zu bytes (at most 65535)", w->who, nlen);
    if (w->n == w->cap) {
        int nc = w->cap ? 2 * w->cap : 16;
        struct ct__zipw_member *m = ct__alloc(ctx, (size_t)nc * sizeof *m, 16);
        if (!m) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", w->who);
        if (w->n) memcpy(m, w->m, (size_t)w->n * sizeof *m);
        ct__free(ctx, w->m);
        w->m = m;
        w->cap = nc;
    }
    struct ct__zipw_member *m = &w->m[w->n];
    m->name = ct__alloc(ctx, nlen + 1, 16);
    if (!m->name) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", w->who);
    memcpy(m->name, name, nlen + 1);
    m->local = w->at;
    m->size = n;
    m->crc = ct__crc32(0, data, n);
    w->n++;
    bool big = n >= 0xffffffffu;
    uint8_t h[30 + 20];
    size_t base = 30 + nlen + (big ? 20 : 0), pad = 0;
    if (align > 1) {
        pad = (align - (size_t)((w->at + base + 4) % align)) % align;
        pad += 4; /* the padding field's own header */
    }
    wr32(h, ZIP_LOCAL_SIG);
    wr16(h + 4, big ? 45 : 20);
    wr16(h + 6, 0x0800); /* UTF-8 names */
    wr16(h + 8, 0);
    wr16(h + 10, 0);
    wr16(h + 12, ZIP_DOS_DATE);
    wr32(h + 14, m->crc);
    wr32(h + 18, big ? 0xffffffffu : (uint32_t)n);
    wr32(h + 22, big ? 0xffffffffu : (uint32_t)n);
    wr16(h + 26, (uint32_t)nlen);
    wr16(h + 28, (uint32_t)((big ? 20 : 0) + pad));
    ct_status st = zipw_put(ctx, w, h, 30);
    if (st == CT_OK) st = zipw_put(ctx, w, name, nlen);
    if (st == CT_OK && big) {
        uint8_t x[20];
        wr16(x, 1), wr16(x + 2, 16), wr64(x + 4, n), wr64(x + 12, n);
        st = zipw_put(ctx, w, x, 20);
    }
    if (st == CT_OK && pad) {
        uint8_t x[4 + 4096];
        wr16(x, 0x4246); /* "FB", as PyTorch's writer */
        wr16(x + 2, (uint32_t)(pad - 4));
        memset(x + 4, 'Z', pad - 4);
        st = zipw_put(ctx, w, x, pad);
    }
    if (st == CT_OK) st = zipw_put(ctx, w, data, n);
    return st;
}

ct_status ct__zipw_finish(ct_ctx *ctx, ct__zipw *w) {
    uint64_t cdoff = w->at;
    ct_status st = CT_OK;
    for (int i = 0; i < w->n && st == CT_OK; i++) {
        const struct ct__zipw_member *m = &w->m[i];
        bool bs = m->size >= 0xffffffffu, bo = m->local >= 0xffffffffu;
        size_t nlen = strlen(m->name), xl = (bs ? 16 : 0) + (bo ? 8 : 0);
        uint8_t h[46], x[4 + 24];
        wr32(h, ZIP_CENTRAL_SIG);
        wr16(h + 4, 45 | 3 << 8); /* made by: Unix, 4.5 */
        wr16(h + 6, (bs || bo) ? 45 : 20);
        wr16(h + 8, 0x0800);
        wr16(h + 10, 0);
        wr16(h + 12, 0);
        wr16(h + 14, ZIP_DOS_DATE);
        wr32(h + 16, m->crc);
        wr32(h + 20, bs ? 0xffffffffu : (uint32_t)m->size);
        wr32(h + 24, bs ? 0xffffffffu : (uint32_t)m->size);
        wr16(h + 28, (uint32_t)nlen);
        wr16(h + 30, (uint32_t)(xl ? xl + 4 : 0));
        wr16(h + 32, 0), wr16(h + 34, 0), wr16(h + 36, 0);
        wr32(h + 38, 0100644u << 16); /* a regular file, rw-r--r-- */
        wr32(h + 42, bo ? 0xffffffffu : (uint32_t)m->local);
        st = zipw_put(ctx, w, h, 46);
        if (st == CT_OK) st = zipw_put(ctx, w, m->name, nlen);
        if (st == CT_OK && xl) {
            wr16(x, 1), wr16(x + 2, (uint32_t)xl);
            uint8_t *f = x + 4;
            if (bs) wr64(f, m->size), wr64(f + 8, m->size), f += 16;
            if (bo) wr64(f, m->local);
            st = zipw_put(ctx, w, x, 4 + xl);
        }
    }
    if (st != CT_OK) return st;
    uint64_t cdsize = w->at - cdoff;
    bool z64 = w->n >= 0xffff || cdoff >= 0xffffffffu || cdsize >= 0xffffffffu;
    if (z64) {
        uint8_t r[56 + 20];
        uint64_t roff = w->at;
        wr32(r, ZIP64_EOCD_SIG);
        wr64(r + 4, 44);
        wr16(r + 12, 45 | 3 << 8), wr16(r + 14, 45);
        wr32(r + 16, 0), wr32(r + 20, 0);
        wr64(r + 24, (uint64_t)w->n), wr64(r + 32, (uint64_t)w->n);
        wr64(r + 40, cdsize), wr64(r + 48, cdoff);
        wr32(r + 56, ZIP64_LOC_SIG), wr32(r + 60, 0), wr64(r + 64, roff), wr32(r + 72, 1);
        st = zipw_put(ctx, w, r, sizeof r);
        if (st != CT_OK) return st;
    }
    uint8_t e[22];
    wr32(e, ZIP_EOCD_SIG);
    wr16(e + 4, 0), wr16(e + 6, 0);
    wr16(e + 8, z64 ? 0xffff : (uint32_t)w->n), wr16(e + 10, z64 ? 0xffff : (uint32_t)w->n);
    wr32(e + 12, z64 ? 0xffffffffu : (uint32_t)cdsize);
    wr32(e + 16, z64 ? 0xffffffffu : (uint32_t)cdoff);
    wr16(e + 20, 0);
    return zipw_put(ctx, w, e, 22);
}

void ct__zipw_free(ct_ctx *ctx, ct__zipw *w) {
    for (int i = 0; i < w->n; i++)
        ct__free(ctx, w->m[i].name);
    ct__free(ctx, w->m);
    w->m = NULL;
    w->n = w->cap = 0;
}

/* ---- files ---- */
ct_status ct__file_map(ct_ctx *ctx, const char *who, const char *path, void **map, size_t *len) {
    *map = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ct__set_error(ctx, CT_ERR_IO, "%s: cannot open %s: %s", who, path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return ct__set_error(ctx, CT_ERR_IO, "%s: %s: %s", who, path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return ct__set_error(ctx, CT_ERR_IO, "%s: %s: not a regular file", who, path);
    }
    if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX / 2) {
        close(fd);
        return ct__set_error(ctx, CT_ERR_IO, "%s: %s: too large to map (%lld bytes)", who, path,
                             (long long)sb.st_size);
    }
    if (sb.st_size == 0) {
        close(fd);
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: %s is empty", who, path);
    }
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED)
        return ct__set_error(ctx, CT_ERR_IO, "%s: cannot map %s: %s", who, path, strerror(e));
    *map = m;
    *len = (size_t)sb.st_size;
    return CT_OK;
}

void ct__file_unmap(void *map, size_t len) {
    if (map) munmap(map, len);
}

ct_status ct__file_create_tmp(ct_ctx *ctx, const char *who, const char *path, char **tmp,
                              FILE **fp) {
    *fp = NULL;
    size_t pl = strlen(path);
    *tmp = ct__alloc(ctx, pl + 12, 16);
    if (!*tmp) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", who);
    memcpy(*tmp, path, pl);
    memcpy(*tmp + pl, ".tmp.XXXXXX", 12); /* beside path: a rename stays on one file system */
    int fd = mkstemp(*tmp);
    if (fd >= 0) {
        fchmod(fd, 0644);
        *fp = fdopen(fd, "wb");
        if (!*fp) {
            close(fd);
            remove(*tmp);
        }
    }
    if (!*fp)
        return ct__set_error(ctx, CT_ERR_IO, "%s: cannot create %s: %s", who, *tmp,
                             strerror(errno));
    return CT_OK;
}

ct_status ct__file_commit(ct_ctx *ctx, const char *who, const char *path, char *tmp, FILE *fp,
                          ct_status st) {
    /* the data reaches the disk before the name does: a crash leaves the old file or the new */
    if (fp && st == CT_OK && (fflush(fp) != 0 || fsync(fileno(fp)) != 0))
        st = ct__set_error(ctx, CT_ERR_IO, "%s: writing %s: %s", who, tmp, strerror(errno));
    if (fp && fclose(fp) != 0 && st == CT_OK)
        st = ct__set_error(ctx, CT_ERR_IO, "%s: closing %s: %s", who, tmp, strerror(errno));
    if (st == CT_OK && rename(tmp, path) != 0)
        st = ct__set_error(ctx, CT_ERR_IO, "%s: renaming %s to %s: %s", who, tmp, path,
                           strerror(errno));
    if (st != CT_OK && fp) remove(tmp);
    ct__free(ctx, tmp);
    return st;
}

/* Internal: ZIP archives for the PyTorch (.pt) and NumPy (.npz) readers and writers. The reader
 * treats the bytes as hostile (every offset, size and count is checked against the buffer before
 * use; a bad archive is CT_ERR_FORMAT naming the field and byte offset); it reads stored and
 * deflated members, ZIP64 sizes and offsets, and checks each member's CRC-32. The writer stores
 * members uncompressed, each one's data aligned as asked (an "FB" padding extra field, as
 * PyTorch's writer does), with ZIP64 records when a size or offset needs them. */
#ifndef CTORCH_IO_ZIP_H
#define CTORCH_IO_ZIP_H

#include "ctorch/core.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    char *name;     /* NUL-terminated copy of the member's name */
    uint64_t data;  /* offset of the member's first data byte in the buffer */
    uint64_t csize; /* compressed size */
    uint64_t usize; /* uncompressed size */
    uint32_t crc;   /* CRC-32 from the central directory */
    int method;     /* 0 stored, 8 deflated */
    uint64_t local; /* offset of its local header */
} ct__zip_member;

typedef struct {
    const uint8_t *buf;
    size_t len;
    int n;
    ct__zip_member *m;
    const ct__zip_member **byname; /* members sorted by (name, position), for ct__zip_find */
} ct__zip;

/* Parse the central directory of the archive in buf[0, len) (kept borrowed). who prefixes the
 * messages ("torch_load"). Members may not overlap one another or the directory (so no member's
 * data is read twice) and their count must fit an int. */
ct_status ct__zip_open(ct_ctx *ctx, const char *who, const uint8_t *buf, size_t len, ct__zip *z);
void ct__zip_close(ct_ctx *ctx, ct__zip *z);
/* Index of the first member named name, or -1. */
int ct__zip_find(const ct__zip *z, const char *name);
/* Member i's bytes: a stored member points into the buffer (*owned = NULL); a deflated one is
 * inflated into *owned (ct__alloc; the caller frees it with ct__free). The CRC-32 is checked. */
ct_status ct__zip_read(ct_ctx *ctx, const char *who, const ct__zip *z, int i, const uint8_t **data,
                       uint8_t **owned);
/* CRC-32 (ISO-HDLC, as ZIP and zlib) of n bytes, continuing from crc (0 to start). */
uint32_t ct__crc32(uint32_t crc, const void *p, size_t n);

/* Writer: members are appended to fp (from its current position, taken as the archive's start);
 * ct__zipw_finish writes the central directory. fname names the file in messages. */
typedef struct {
    FILE *fp;
    const char *who, *fname;
    uint64_t at; /* bytes written */
    int n, cap;
    struct ct__zipw_member {
        char *name;
        uint64_t local; /* offset of its local header */
        uint64_t size;
        uint32_t crc;
    } * m;
} ct__zipw;

void ct__zipw_init(ct__zipw *w, FILE *fp, const char *who, const char *fname);
/* Add a stored member whose data starts at a multiple of align (1 or a power of two <= 4096). */
ct_status ct__zipw_add(ct_ctx *ctx, ct__zipw *w, const char *name, const void *data, size_t n,
                       size_t align);
ct_status ct__zipw_finish(ct_ctx *ctx, ct__zipw *w);
void ct__zipw_free(ct_ctx *ctx, ct__zipw *w);

/* Map (or read) the whole file at path for reading: *map and *len; *mapped tells how to release
 * it (ct__file_unmap). CT_ERR_IO with the OS reason; an empty file is CT_ERR_FORMAT. */
ct_status ct__file_map(ct_ctx *ctx, const char *who, const char *path, void **map, size_t *len);
void ct__file_unmap(void *map, size_t len);
/* Create a new temporary file beside path (path.tmp.XXXXXX, mode 0644) for writing (*tmp receives
 * its name, ct__alloc'd); ct__file_commit flushes it to disk, closes it and, when st is CT_OK,
 * renames it to path (else removes it): a failure or a crash leaves no partial file, and two
 * writers of one path do not share a temporary file. */
ct_status ct__file_create_tmp(ct_ctx *ctx, const char *who, const char *path, char **tmp,
                              FILE **fp);
ct_status ct__file_commit(ct_ctx *ctx, const char *who, const char *path, char *tmp, FILE *fp,
                          ct_status st);

#endif

/* The .ctp program file format, version 1 (docs/export-format.md is the full description): the
 * constants, the little-endian field helpers and the CRC-32 shared by the writer (src/export/) and
 * the embedded runtime's reader (src/runtime/). Header-only and context-free. */
#ifndef CTORCH_EXPORT_CTP_FORMAT_H
#define CTORCH_EXPORT_CTP_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CTP_MAGIC "CTPROG\r\n" /* 8 bytes; \r\n catches text-mode mangling */
#define CTP_VERSION 1u
#define CTP_HEADER_BYTES 64u
#define CTP_SECTION_BYTES 32u
#define CTP_MAX_SECTIONS 16u
#define CTP_ALIGN 64u /* every section starts on a multiple of this */

/* header flags */
#define CTP_FLAG_LITTLE_ENDIAN 1u /* always set */
#define CTP_FLAG_SYMBOLIC 2u      /* some input dims are symbolic */

/* section kinds */
#define CTP_SEC_PROGRAM 1u
#define CTP_SEC_WEIGHTS 2u /* a complete safetensors file */

/* limits every reader enforces before allocating */
#define CTP_MAX_SYMS 4u
#define CTP_MAX_TERMS 16u /* 2^CTP_MAX_SYMS: a multilinear polynomial in the symbols */
#define CTP_MAX_NAME 256u
#define CTP_MAX_COUNT (1u << 24)

/* buffer kinds */
#define CTP_BUF_ARENA 0u
#define CTP_BUF_INPUT 1u
#define CTP_BUF_WEIGHT 2u

/* weight transforms (file bytes -> what the kernels read) */
#define CTP_WX_RAW 0u    /* the safetensors bytes as they are */
#define CTP_WX_UNPACK 1u /* packed sub-byte codes -> kernel rows (see the format notes) */

/* instruction opcodes */
#define CTP_I_KERNEL 0u
#define CTP_I_JUMP_IF_ZERO 1u
#define CTP_I_JUMP 2u

#define CTP_NO_BUFFER 0xFFFFFFFFu /* an absent operand */

static inline void ctp_put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ctp_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t ctp_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ctp_get_u64(const uint8_t *p) {
    return (uint64_t)ctp_get_u32(p) | (uint64_t)ctp_get_u32(p + 4) << 32;
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of n bytes, continuing from crc (start: 0).
 * The table lives on the caller's stack: no global state. */
static inline void ctp_crc_table(uint32_t t[256]) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[i] = c;
    }
}
static inline uint32_t ctp_crc32(const uint32_t t[256], uint32_t crc, const void *data, size_t n) {
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++)
        crc = t[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* Recompute the section checksums, the file size and the header checksum of a file in memory
 * (for tests and fuzzers that mutate a program and want the mutation to reach the parser). */
static inline void ctp_fix_checksums(uint8_t *f, size_t n) {
    if (n < CTP_HEADER_BYTES) return;
    uint32_t tab[256];
    ctp_crc_table(tab);
    uint32_t nsec = ctp_get_u32(f + 24);
    if (nsec > CTP_MAX_SECTIONS || n < CTP_HEADER_BYTES + nsec * CTP_SECTION_BYTES) return;
    for (uint32_t s = 0; s < nsec; s++) {
        uint8_t *e = f + CTP_HEADER_BYTES + s * CTP_SECTION_BYTES;
        uint64_t off = ctp_get_u64(e + 8), sz = ctp_get_u64(e + 16);
        if (off <= n && sz <= n - off) ctp_put_u32(e + 24, ctp_crc32(tab, 0, f + off, (size_t)sz));
    }
    ctp_put_u64(f + 16, n);
    memset(f + 28, 0, 4);
    ctp_put_u32(f + 28, ctp_crc32(tab, 0, f, CTP_HEADER_BYTES + nsec * CTP_SECTION_BYTES));
}

#endif

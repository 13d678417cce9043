/* Private interface of the MX / low-precision kernels (ref, avx2, avx512): element format table,
 * exact scalar encode/decode helpers shared by every ISA's tail code, and the per-ISA ops table.
 * Kernels take raw pointers only (no ctx, no allocation) so the embedded runtime can link them.
 * Codes are one per byte (FP6/FP4 in the low bits, sign at bit 5 / bit 3) except where a function
 * says "packed": FP4 rows then hold two codes per byte, element 2i in the low nibble. */
#ifndef CTORCH_MX_KERNELS_H
#define CTORCH_MX_KERNELS_H

#include "dtype/half.h"
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Element formats, in the order of ct_mx_format. */
enum {
    CT__MXK_E4M3 = 0,
    CT__MXK_E5M2 = 1,
    CT__MXK_E3M2 = 2,
    CT__MXK_E2M3 = 3,
    CT__MXK_E2M1 = 4,
    CT__MXK_INT8 = 5,
    CT__MXK_NELEM = 6
};

typedef struct ct__mxk_fmt {
    int nbits;     /* total bits including the sign */
    int mbits;     /* mantissa bits */
    int bias;      /* exponent bias */
    int max_mag;   /* magnitude code (sign cleared) of the largest finite value */
    int emax;      /* exponent of the largest normal (OCP emax_elem) */
    float max_val; /* largest finite value */
} ct__mxk_fmt;

/* INT8 row: nbits 8, 1.6 fixed point, max 127/64. */
static const ct__mxk_fmt ct__mxk_fmts[CT__MXK_NELEM] = {
    {8, 3, 7, 0x7E, 8, 448.0f}, {8, 2, 15, 0x7B, 15, 57344.0f}, {6, 2, 3, 0x1F, 4, 28.0f},
    {6, 3, 1, 0x1F, 2, 7.5f},   {4, 1, 1, 0x07, 2, 6.0f},       {8, 0, 0, 127, 0, 127.0f / 64.0f},
};

/* bit casts shared with the f16/bf16 code */
#define ct__mxk_f2u ct__f32_bits
#define ct__mxk_u2f ct__bits_f32

/* Magnitude codes produced for overflow / Inf / NaN inputs (see docs/mx.md). */
static inline uint32_t ct__mxk_ovf_mag(int elem, int saturate) {
    if (saturate) return (uint32_t)ct__mxk_fmts[elem].max_mag;
    if (elem == CT__MXK_E4M3) return 0x7F; /* NaN */
    if (elem == CT__MXK_E5M2) return 0x7C; /* Inf */
    return (uint32_t)ct__mxk_fmts[elem].max_mag;
}
static inline uint32_t ct__mxk_inf_mag(int elem) {
    if (elem == CT__MXK_E4M3) return 0x7F;
    if (elem == CT__MXK_E5M2) return 0x7C;
    return (uint32_t)ct__mxk_fmts[elem].max_mag;
}
static inline uint32_t ct__mxk_nan_mag(int elem) {
    if (elem == CT__MXK_E4M3) return 0x7F;
    if (elem == CT__MXK_E5M2) return 0x7E;
    return (uint32_t)ct__mxk_fmts[elem].max_mag;
}

/* f32 -> float element code (elem != INT8), round to nearest even, integer arithmetic only. */
static inline uint8_t ct__mxk_enc1(int elem, float x, int saturate) {
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    uint32_t b = ct__mxk_f2u(x);
    uint32_t a = b & 0x7fffffffu;
    uint32_t sgn = (b >> 31) << (f->nbits - 1);
    uint32_t mag;
    if (a > 0x7f800000u) {
        mag = ct__mxk_nan_mag(elem);
    } else if (a == 0x7f800000u) {
        mag = ct__mxk_inf_mag(elem);
    } else if (a < 0x00800000u) {
        mag = 0; /* f32 zero/subnormal: below half the smallest subnormal of every format */
    } else {
        int e = (int)(a >> 23) - 127;
        int emin = 1 - f->bias;
        uint32_t m = (a & 0x7fffffu) | 0x800000u; /* value = m * 2^(e-23) */
        int shift = 23 - f->mbits + (e < emin ? emin - e : 0);
        uint32_t q;
        if (shift >= 25) {
            q = 0;
        } else {
            uint32_t half = 1u << (shift - 1);
            uint32_t rem = m & ((half << 1) - 1);
            q = m >> shift;
            if (rem > half || (rem == half && (q & 1))) q++;
        }
        if (e >= emin)
            mag = ((uint32_t)(e + f->bias - 1) << f->mbits) + q; /* carry moves into exponent */
        else
            mag = q;
        if (mag > (uint32_t)f->max_mag) mag = ct__mxk_ovf_mag(elem, saturate);
    }
    return (uint8_t)(sgn | mag);
}

/* Float element code -> f32 (exact). Bits above the format's width are ignored. */
static inline float ct__mxk_dec1(int elem, uint8_t c) {
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    uint32_t magmask = (1u << (f->nbits - 1)) - 1;
    uint32_t mag = c & magmask;
    int neg = (c >> (f->nbits - 1)) & 1;
    uint32_t E = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1);
    float v;
    if (elem == CT__MXK_E4M3 && mag == 0x7F)
        v = NAN;
    else if (elem == CT__MXK_E5M2 && E == 31)
        v = m ? NAN : INFINITY;
    else if (E == 0)
        v = ldexpf((float)m, 1 - f->bias - f->mbits);
    else
        v = ldexpf((float)(m + (1u << f->mbits)), (int)E - f->bias - f->mbits);
    return neg ? -v : v;
}

/* MXINT8 element: round_half_even(t * 64) clamped to [-127, 127] (t finite). */
static inline uint8_t ct__mxk_enc_int8(float t) {
    float r = rintf(t * 64.0f); /* default rounding mode: nearest even */
    if (r > 127.0f) r = 127.0f;
    if (r < -127.0f) r = -127.0f;
    return (uint8_t)(int8_t)r;
}
static inline float ct__mxk_dec_int8(uint8_t c) { return (float)(int8_t)c * (1.0f / 64.0f); }

/* E8M0 scale code -> f32: 2^(c-127), 0xFF = NaN. */
static inline float ct__mxk_e8m0_dec(uint8_t c) {
    if (c == 0xFF) return NAN;
    if (c == 0) return ct__mxk_u2f(0x00400000u); /* 2^-127, an f32 subnormal */
    return ct__mxk_u2f((uint32_t)c << 23);
}

/* f32 -> E8M0: nearest power of two, ties (1.5 * 2^k) up. 0, negatives, Inf, NaN -> 0xFF;
 * values below 2^-127 -> 0x00; 2^128 after rounding -> 0xFF (0xFE when saturating). */
static inline uint8_t ct__mxk_e8m0_enc(float x, int saturate) {
    uint32_t a = ct__mxk_f2u(x);
    if (!(x > 0.0f) || a >= 0x7f800000u) return 0xFF;
    if (a < 0x00800000u) return a >= 0x00600000u ? 1 : 0;
    uint32_t code = (a >> 23) + ((a & 0x7fffffu) >= 0x400000u ? 1u : 0u);
    if (code == 255) return saturate ? 0xFE : 0xFF;
    return (uint8_t)code;
}

static inline int ct__mxk_floor_log2_bits(uint32_t a) {
    if (a >= 0x00800000u) return (int)(a >> 23) - 127;
    return 31 - __builtin_clz(a) - 149; /* subnormal: a * 2^-149 */
}

/* Shared scale code of a block from |amax| bits (sign cleared). FLOOR (rceil = 0):
 * floor(log2 amax) - emax; RCEIL: smallest e with max_val * 2^e >= amax. Clamped to [-127, 127];
 * amax = 0 -> 0x00; non-finite amax -> 0xFF. */
static inline uint8_t ct__mxk_scale_code(int elem, uint32_t amax_bits, int rceil) {
    if (amax_bits >= 0x7f800000u) return 0xFF;
    if (amax_bits == 0) return 0;
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    int fl = ct__mxk_floor_log2_bits(amax_bits);
    int e;
    if (!rceil) {
        e = fl - f->emax;
    } else {
        int e0 = fl - f->emax; /* floor(log2(max_val)) == emax for every format */
        e = ldexp((double)f->max_val, e0) >= (double)ct__mxk_u2f(amax_bits) ? e0 : e0 + 1;
    }
    if (e < -127) e = -127;
    if (e > 127) e = 127;
    return (uint8_t)(e + 127);
}

/* 2^-(code-127): the factor applied to inputs before element rounding (code != 0xFF). */
static inline float ct__mxk_inv_scale(uint8_t code) {
    int e = (int)code - 127;
    int be = 127 - e; /* biased exponent of 2^-e, in [0, 254] */
    if (be == 0) return ct__mxk_u2f(0x00400000u);
    return ct__mxk_u2f((uint32_t)be << 23);
}

/* Bytes one row of `L` codes occupies in MX storage (FP4 packed, others one byte per code). */
static inline int64_t ct__mxk_row_bytes(int elem, int64_t L) {
    return elem == CT__MXK_E2M1 ? (L + 1) / 2 : L;
}

/* Arguments of y[M x N] = x[M x K] @ W[N x K]^T + bias. x is "prepared": M rows of `ldx` floats;
 * for FP4 with bs == 32 on the vector paths every full 32-block is de-interleaved (its even
 * elements, then its odd ones) so packed nibbles line up; the tail stays in natural order. */
typedef struct ct__mxk_linear_args {
    int elem, bs;
    int64_t M, N, K;
    const float *x;
    int64_t ldx;
    const uint8_t *codes; /* N rows of code_stride bytes */
    int64_t code_stride;
    const uint8_t *scales; /* N rows of nblk E8M0 codes */
    int64_t nblk;
    const float *bias; /* N floats or NULL */
    float *y;
    int64_t ldy;
} ct__mxk_linear_args;

typedef struct ct__mxk_ops {
    /* one code per byte; elem is a float element format (not INT8) */
    void (*encode)(int elem, const float *src, uint8_t *dst, size_t n, int saturate);
    void (*decode)(int elem, const uint8_t *src, float *dst, size_t n);
    /* rows x L floats (contiguous) -> codes (rows x row_bytes) + scales (rows x nblk) */
    void (*quantize)(int elem, int rceil, int bs, const float *src, int64_t rows, int64_t L,
                     uint8_t *codes, uint8_t *scales);
    void (*dequantize)(int elem, int bs, const uint8_t *codes, const uint8_t *scales, int64_t rows,
                       int64_t L, float *dst);
    /* output columns [n0, n1) */
    void (*linear)(const ct__mxk_linear_args *a, int64_t n0, int64_t n1);
    int fp4_deinterleave; /* linear wants de-interleaved x for FP4, bs == 32 */
} ct__mxk_ops;

extern const ct__mxk_ops ct__mxk_ops_ref;
extern const ct__mxk_ops ct__mxk_ops_avx2;
extern const ct__mxk_ops ct__mxk_ops_avx512;

/* Reference kernels, also used by the vector files for tails and unusual block sizes. */
void ct__mxk_ref_encode(int elem, const float *src, uint8_t *dst, size_t n, int saturate);
void ct__mxk_ref_decode(int elem, const uint8_t *src, float *dst, size_t n);
void ct__mxk_ref_quantize(int elem, int rceil, int bs, const float *src, int64_t rows, int64_t L,
                          uint8_t *codes, uint8_t *scales);
void ct__mxk_ref_dequantize(int elem, int bs, const uint8_t *codes, const uint8_t *scales,
                            int64_t rows, int64_t L, float *dst);
void ct__mxk_ref_linear(const ct__mxk_linear_args *a, int64_t n0, int64_t n1);
/* One block [j0, j1) of one row (helpers for vector tails). */
void ct__mxk_ref_quantize_block(int elem, int rceil, const float *src, int64_t j0, int64_t j1,
                                uint8_t *row_codes, uint8_t *scale);
void ct__mxk_ref_dequantize_block(int elem, const uint8_t *row_codes, uint8_t scale, int64_t j0,
                                  int64_t j1, float *dst_row);

/* Element j of a row in MX storage (FP4 packed). */
static inline uint8_t ct__mxk_get_code(int elem, const uint8_t *row, int64_t j) {
    if (elem == CT__MXK_E2M1) return (uint8_t)((row[j >> 1] >> ((j & 1) * 4)) & 0xF);
    return row[j];
}
static inline float ct__mxk_dec_any(int elem, uint8_t c) {
    return elem == CT__MXK_INT8 ? ct__mxk_dec_int8(c) : ct__mxk_dec1(elem, c);
}

/* Prepare x (M rows, row stride ldx_in) for the linear kernels: f32 copy with row stride K; with
 * `deinterleave` every full 32-block becomes (its 16 even elements, then its 16 odd ones). */
static inline void ct__mxk_linear_prep_x(const float *x, int64_t M, int64_t K, int64_t ldx_in,
                                         int deinterleave, float *xp) {
    for (int64_t m = 0; m < M; m++) {
        const float *s = x + m * ldx_in;
        float *d = xp + m * K;
        int64_t j = 0;
        if (deinterleave)
            for (; j + 32 <= K; j += 32)
                for (int i = 0; i < 16; i++) {
                    d[j + i] = s[j + 2 * i];
                    d[j + 16 + i] = s[j + 2 * i + 1];
                }
        for (; j < K; j++)
            d[j] = s[j];
    }
}

#endif

/* Inline f16/bf16 <-> f32 conversions (round to nearest even), shared by dtype.c and kernels. */
#ifndef CTORCH_DTYPE_HALF_H
#define CTORCH_DTYPE_HALF_H

#include <stdint.h>
#include <string.h>

static inline uint32_t ct__f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float ct__bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline float ct__h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
    if (exp == 0x1f) return ct__bits_f32(sign | 0x7f800000u | (man << 13)); /* inf / nan */
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24, exact in f32 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return ct__bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t ct__f2h(float f) {
    uint32_t u = ct__f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) /* inf or nan (keep a quiet nan payload bit) */
        return (uint16_t)(sign | 0x7c00u | (a > 0x7f800000u ? (0x200u | ((a >> 13) & 0x3ffu)) : 0));
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: inf */
    if (a < 0x38800000u) {
        /* result is subnormal or zero: round |f| / 2^-24 to an integer, ties to even */
        float v = ct__bits_f32(a) * 16777216.0f; /* exact scaling by 2^24 */
        uint32_t q = (uint32_t)v;                /* v < 1024 */
        float rem = v - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1u))) q++;
        return (uint16_t)(sign | q);
    }
    /* normal: rebias exponent, round mantissa from 23 to 10 bits */
    uint32_t r = a - (112u << 23);
    uint32_t lsb = (r >> 13) & 1u;
    r += 0xfffu + lsb;
    return (uint16_t)(sign | (r >> 13));
}

static inline float ct__bf2f(uint16_t h) { return ct__bits_f32((uint32_t)h << 16); }

static inline uint16_t ct__f2bf(float f) {
    uint32_t u = ct__f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet nan */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#endif

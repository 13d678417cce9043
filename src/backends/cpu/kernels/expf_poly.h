/* exp(x) for f32 written as straight-line code that the compiler vectorises, shared by the
 * elementwise loops (simd_body.inc) and the attention kernels; each ISA's file compiles its own
 * copy with its own flags. */
#ifndef CTORCH_EXPF_POLY_H
#define CTORCH_EXPF_POLY_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* exp(x) for f32 in straight-line code the compiler vectorises: x = n ln2 + r, |r| <= ln2/2,
 * degree-7 Taylor polynomial in r (truncation < 0.1 ulp), scaled by 2^n in two steps so that
 * subnormal results round once. About 1-2 ulp from the correctly rounded value. */
static inline float ct__k_expf_poly(float x) {
    const float hi = 88.72283935546875f, lo = -103.972084f;
    float xc = x > hi ? hi : x;
    xc = xc < lo ? lo : xc;
    xc = x != x ? 0.0f
                : xc; /* NaN: any finite stand-in (the result is x); keeps the int cast defined */
    const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
    float n = (xc * 1.44269504088896341f + magic) - magic;
    float r = fmaf(n, -0.693145751953125f, xc);
    r = fmaf(n, -1.428606765330187045e-06f, r);
    float p = fmaf(1.0f / 40320.0f, r, 1.0f / 5040.0f);
    p = fmaf(p, r, 1.0f / 720.0f);
    p = fmaf(p, r, 1.0f / 120.0f);
    p = fmaf(p, r, 1.0f / 24.0f);
    p = fmaf(p, r, 1.0f / 6.0f);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    int32_t ni = (int32_t)n, n1 = ni / 2, n2 = ni - n1;
    uint32_t b1 = (uint32_t)(n1 + 127) << 23, b2 = (uint32_t)(n2 + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, 4);
    memcpy(&s2, &b2, 4);
    float y = p * s1 * s2;
    y = x > hi ? INFINITY : y;
    return x != x ? x : y;
}

#endif

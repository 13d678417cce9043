/* AVX-512 element-code conversions shared by the AVX-512 MX and 2:4 sparse kernels: f32 ->
 * FP8/FP6/FP4 codes (round to nearest even, integer arithmetic) and codes -> f32 (exact). Include
 * only from files compiled with the AVX-512 flags. */
#ifndef CTORCH_AVX512_MX_SIMD_H
#define CTORCH_AVX512_MX_SIMD_H

#include "backends/cpu/kernels/mx_kernels.h"

#include <immintrin.h>

#define CT__AI static inline __attribute__((always_inline))

/* 16 f32 -> 16 element codes in int32 lanes (float formats). Same rounding as ct__mxk_enc1:
 * normals round with integer arithmetic on the f32 bits, subnormals by one f32 addition of a
 * magic constant whose ulp is the format's subnormal quantum (exact round-to-nearest-even). */
CT__AI __m512i ct__enc16(int elem, __m512 x, int sat) {
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    const int sh = 23 - f->mbits, emin = 1 - f->bias;
    __m512i b = _mm512_castps_si512(x);
    __m512i a = _mm512_and_si512(b, _mm512_set1_epi32(0x7fffffff));
    __m512i sgn = _mm512_slli_epi32(_mm512_srli_epi32(b, 31), f->nbits - 1);
    __m512i ac = _mm512_min_epi32(a, _mm512_set1_epi32(0x7f800000));
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(ac, sh), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(ac, _mm512_set1_epi32((1 << (sh - 1)) - 1)), lsb);
    __m512i mag =
        _mm512_sub_epi32(_mm512_srli_epi32(r, sh), _mm512_set1_epi32((127 - f->bias) << f->mbits));
    __m512 magic = _mm512_castsi512_ps(_mm512_set1_epi32((emin - f->mbits + 23 + 127) << 23));
    __m512i ms = _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), magic)),
                                  _mm512_castps_si512(magic));
    __mmask16 sub = _mm512_cmplt_epi32_mask(a, _mm512_set1_epi32((emin + 127) << 23));
    mag = _mm512_mask_mov_epi32(mag, sub, ms);
    __mmask16 ovf = _mm512_cmpgt_epi32_mask(mag, _mm512_set1_epi32(f->max_mag));
    mag = _mm512_mask_mov_epi32(mag, ovf, _mm512_set1_epi32((int)ct__mxk_ovf_mag(elem, sat)));
    __mmask16 inf = _mm512_cmpeq_epi32_mask(a, _mm512_set1_epi32(0x7f800000));
    mag = _mm512_mask_mov_epi32(mag, inf, _mm512_set1_epi32((int)ct__mxk_inf_mag(elem)));
    __mmask16 nan = _mm512_cmpgt_epi32_mask(a, _mm512_set1_epi32(0x7f800000));
    mag = _mm512_mask_mov_epi32(mag, nan, _mm512_set1_epi32((int)ct__mxk_nan_mag(elem)));
    return _mm512_or_si512(mag, sgn);
}

/* 16 codes (int32 lanes) -> f32, exact: place exponent/mantissa bits in an f32 and multiply by
 * 2^(127 - bias) (normals and subnormals alike), then patch NaN/Inf encodings. */
CT__AI __m512 ct__dec16(int elem, __m512i c) {
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    if (elem == CT__MXK_INT8) {
        __m512i s = _mm512_srai_epi32(_mm512_slli_epi32(c, 24), 24);
        return _mm512_mul_ps(_mm512_cvtepi32_ps(s), _mm512_set1_ps(1.0f / 64.0f));
    }
    __m512i mag = _mm512_and_si512(c, _mm512_set1_epi32((1 << (f->nbits - 1)) - 1));
    __m512i sgn = _mm512_slli_epi32(_mm512_and_si512(c, _mm512_set1_epi32(1 << (f->nbits - 1))),
                                    32 - f->nbits);
    __m512 v = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_slli_epi32(mag, 23 - f->mbits)),
                             _mm512_castsi512_ps(_mm512_set1_epi32((254 - f->bias) << 23)));
    if (elem == CT__MXK_E4M3) {
        __mmask16 m = _mm512_cmpeq_epi32_mask(mag, _mm512_set1_epi32(0x7F));
        v = _mm512_mask_mov_ps(v, m, _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000)));
    } else if (elem == CT__MXK_E5M2) {
        __mmask16 m = _mm512_cmpge_epi32_mask(mag, _mm512_set1_epi32(0x7C));
        __m512i sp = _mm512_or_si512(_mm512_slli_epi32(mag, 21), _mm512_set1_epi32(0x7f800000));
        v = _mm512_mask_mov_ps(v, m, _mm512_castsi512_ps(sp));
    }
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(v), sgn));
}

#endif

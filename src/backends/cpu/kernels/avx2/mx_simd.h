/* AVX2 element-code conversions shared by the AVX2 MX and 2:4 sparse kernels: f32 -> FP8/FP6/FP4
 * codes (round to nearest even, integer arithmetic) and codes -> f32 (exact). Include only from
 * files compiled with the AVX2 flags. */
#ifndef CTORCH_AVX2_MX_SIMD_H
#define CTORCH_AVX2_MX_SIMD_H

#include "backends/cpu/kernels/mx_kernels.h"

#include <immintrin.h>

#define CT__AI static inline __attribute__((always_inline))

/* 8 f32 -> 8 codes in int32 lanes (see the AVX-512 file for the method). */
CT__AI __m256i ct__enc8(int elem, __m256 x, int sat) {
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    const int sh = 23 - f->mbits, emin = 1 - f->bias;
    __m256i b = _mm256_castps_si256(x);
    __m256i a = _mm256_and_si256(b, _mm256_set1_epi32(0x7fffffff));
    __m256i sgn = _mm256_slli_epi32(_mm256_srli_epi32(b, 31), f->nbits - 1);
    __m256i ac = _mm256_min_epi32(a, _mm256_set1_epi32(0x7f800000));
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(ac, sh), _mm256_set1_epi32(1));
    __m256i r = _mm256_add_epi32(_mm256_add_epi32(ac, _mm256_set1_epi32((1 << (sh - 1)) - 1)), lsb);
    __m256i mag =
        _mm256_sub_epi32(_mm256_srli_epi32(r, sh), _mm256_set1_epi32((127 - f->bias) << f->mbits));
    __m256 magic = _mm256_castsi256_ps(_mm256_set1_epi32((emin - f->mbits + 23 + 127) << 23));
    __m256i ms = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), magic)),
                                  _mm256_castps_si256(magic));
    __m256i sub = _mm256_cmpgt_epi32(_mm256_set1_epi32((emin + 127) << 23), a);
    mag = _mm256_blendv_epi8(mag, ms, sub);
    __m256i ovf = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(f->max_mag));
    mag = _mm256_blendv_epi8(mag, _mm256_set1_epi32((int)ct__mxk_ovf_mag(elem, sat)), ovf);
    __m256i inf = _mm256_cmpeq_epi32(a, _mm256_set1_epi32(0x7f800000));
    mag = _mm256_blendv_epi8(mag, _mm256_set1_epi32((int)ct__mxk_inf_mag(elem)), inf);
    __m256i nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000));
    mag = _mm256_blendv_epi8(mag, _mm256_set1_epi32((int)ct__mxk_nan_mag(elem)), nan);
    return _mm256_or_si256(mag, sgn);
}

CT__AI __m256 ct__dec8(int elem, __m256i c) {
    const ct__mxk_fmt *f = &ct__mxk_fmts[elem];
    if (elem == CT__MXK_INT8) {
        __m256i s = _mm256_srai_epi32(_mm256_slli_epi32(c, 24), 24);
        return _mm256_mul_ps(_mm256_cvtepi32_ps(s), _mm256_set1_ps(1.0f / 64.0f));
    }
    __m256i mag = _mm256_and_si256(c, _mm256_set1_epi32((1 << (f->nbits - 1)) - 1));
    __m256i sgn = _mm256_slli_epi32(_mm256_and_si256(c, _mm256_set1_epi32(1 << (f->nbits - 1))),
                                    32 - f->nbits);
    __m256 v = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(mag, 23 - f->mbits)),
                             _mm256_castsi256_ps(_mm256_set1_epi32((254 - f->bias) << 23)));
    if (elem == CT__MXK_E4M3) {
        __m256i m = _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(0x7F));
        v = _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)),
                             _mm256_castsi256_ps(m));
    } else if (elem == CT__MXK_E5M2) {
        __m256i m = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7B));
        __m256i sp = _mm256_or_si256(_mm256_slli_epi32(mag, 21), _mm256_set1_epi32(0x7f800000));
        v = _mm256_blendv_ps(v, _mm256_castsi256_ps(sp), _mm256_castsi256_ps(m));
    }
    return _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(v), sgn));
}

#endif

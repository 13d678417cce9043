/* AVX-512 MX kernels: element casts (16 lanes, integer round-to-nearest-even), block quantize /
 * dequantize, and the MX linear kernel that decodes 32-element weight blocks in registers.
 * Bit-exact with the reference kernels (tests compare them); tails fall back to the reference. */
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

/* ---- element casts ---- */

CT__AI void ct__encode_impl(int elem, const float *src, uint8_t *dst, size_t n, int sat) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm_storeu_si128((__m128i *)(dst + i),
                         _mm512_cvtepi32_epi8(ct__enc16(elem, _mm512_loadu_ps(src + i), sat)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512i c = ct__enc16(elem, _mm512_maskz_loadu_ps(m, src + i), sat);
        _mm512_mask_cvtepi32_storeu_epi8(dst + i, m, c);
    }
}

CT__AI void ct__decode_impl(int elem, const uint8_t *src, float *dst, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(
            dst + i,
            ct__dec16(elem, _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + i)))));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        __m512 v = ct__dec16(elem, _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(m, src + i)));
        _mm512_mask_storeu_ps(dst + i, m, v);
    }
}

#define CT__MX_SWITCH(elem, CALL)                                                                  \
    switch (elem) {                                                                                \
    case CT__MXK_E4M3: CALL(CT__MXK_E4M3); break;                                                  \
    case CT__MXK_E5M2: CALL(CT__MXK_E5M2); break;                                                  \
    case CT__MXK_E3M2: CALL(CT__MXK_E3M2); break;                                                  \
    case CT__MXK_E2M3: CALL(CT__MXK_E2M3); break;                                                  \
    case CT__MXK_E2M1: CALL(CT__MXK_E2M1); break;                                                  \
    default: CALL(CT__MXK_INT8); break;                                                            \
    }

static void ct__avx512_encode(int elem, const float *src, uint8_t *dst, size_t n, int sat) {
    if (elem == CT__MXK_INT8) return;
#define C_(E) ct__encode_impl(E, src, dst, n, sat)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

static void ct__avx512_decode(int elem, const uint8_t *src, float *dst, size_t n) {
    if (elem == CT__MXK_INT8) return;
#define C_(E) ct__decode_impl(E, src, dst, n)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

/* ---- MX block quantize / dequantize (full blocks of bs % 16 == 0; others via reference) ---- */

CT__AI void ct__quant_block(int elem, int rceil, int bs, const float *p, uint8_t *codes,
                            uint8_t *scale) {
    __m512i am = _mm512_setzero_si512();
    for (int j = 0; j < bs; j += 16)
        am = _mm512_max_epu32(am, _mm512_and_si512(_mm512_castps_si512(_mm512_loadu_ps(p + j)),
                                                   _mm512_set1_epi32(0x7fffffff)));
    uint32_t amax = _mm512_reduce_max_epu32(am);
    uint8_t sc = ct__mxk_scale_code(elem, amax, rceil);
    *scale = sc;
    int64_t nb = ct__mxk_row_bytes(elem, bs);
    if (sc == 0xFF) {
        memset(codes, 0, (size_t)nb);
        return;
    }
    __m512 inv = _mm512_set1_ps(ct__mxk_inv_scale(sc));
    for (int j = 0; j < bs; j += 16) {
        __m512 t = _mm512_mul_ps(_mm512_loadu_ps(p + j), inv);
        if (elem == CT__MXK_INT8) {
            __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(t, _mm512_set1_ps(64.0f)));
            q = _mm512_max_epi32(_mm512_min_epi32(q, _mm512_set1_epi32(127)),
                                 _mm512_set1_epi32(-127));
            _mm_storeu_si128((__m128i *)(codes + j), _mm512_cvtepi32_epi8(q));
        } else if (elem == CT__MXK_E2M1) {
            __m512i c = ct__enc16(elem, t, 1);
            __m512i pk = _mm512_or_si512(c, _mm512_srli_epi64(c, 28)); /* odd lane -> bits 4..7 */
            _mm_storel_epi64((__m128i *)(codes + j / 2), _mm512_cvtepi64_epi8(pk));
        } else {
            _mm_storeu_si128((__m128i *)(codes + j), _mm512_cvtepi32_epi8(ct__enc16(elem, t, 1)));
        }
    }
}

CT__AI void ct__quant_impl(int elem, int rceil, int bs, const float *src, int64_t rows, int64_t L,
                           uint8_t *codes, uint8_t *scales) {
    int64_t rb = ct__mxk_row_bytes(elem, L), nblk = (L + bs - 1) / bs, nfull = L / bs;
    for (int64_t r = 0; r < rows; r++) {
        const float *srow = src + r * L;
        uint8_t *crow = codes + r * rb;
        for (int64_t b = 0; b < nfull; b++)
            ct__quant_block(elem, rceil, bs, srow + b * bs, crow + ct__mxk_row_bytes(elem, b * bs),
                            &scales[r * nblk + b]);
        if (nfull < nblk) {
            if (elem == CT__MXK_E2M1 && (L & 1)) crow[rb - 1] = 0;
            ct__mxk_ref_quantize_block(elem, rceil, srow, nfull * bs, L, crow,
                                       &scales[r * nblk + nfull]);
        }
    }
}

static void ct__avx512_quantize(int elem, int rceil, int bs, const float *src, int64_t rows,
                                int64_t L, uint8_t *codes, uint8_t *scales) {
    if (bs % 16) {
        ct__mxk_ref_quantize(elem, rceil, bs, src, rows, L, codes, scales);
        return;
    }
#define C_(E) ct__quant_impl(E, rceil, bs, src, rows, L, codes, scales)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

/* 16 codes of a block starting at element j (j % 16 == 0) as int32 lanes, natural order. */
CT__AI __m512i ct__load_codes16(int elem, const uint8_t *row, int64_t j) {
    if (elem == CT__MXK_E2M1) {
        __m512i v = _mm512_cvtepu8_epi64(_mm_loadl_epi64((const __m128i *)(row + j / 2)));
        return _mm512_or_si512(_mm512_and_si512(v, _mm512_set1_epi64(0xF)),
                               _mm512_slli_epi64(_mm512_srli_epi64(v, 4), 32));
    }
    return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(row + j)));
}

CT__AI void ct__dequant_impl(int elem, int bs, const uint8_t *codes, const uint8_t *scales,
                             int64_t rows, int64_t L, float *dst) {
    int64_t rb = ct__mxk_row_bytes(elem, L), nblk = (L + bs - 1) / bs, nfull = L / bs;
    for (int64_t r = 0; r < rows; r++) {
        const uint8_t *crow = codes + r * rb;
        float *drow = dst + r * L;
        for (int64_t b = 0; b < nfull; b++) {
            __m512 s = _mm512_set1_ps(ct__mxk_e8m0_dec(scales[r * nblk + b]));
            for (int64_t j = b * bs; j < (b + 1) * bs; j += 16)
                _mm512_storeu_ps(
                    drow + j, _mm512_mul_ps(ct__dec16(elem, ct__load_codes16(elem, crow, j)), s));
        }
        if (nfull < nblk)
            ct__mxk_ref_dequantize_block(elem, crow, scales[r * nblk + nfull], nfull * bs, L, drow);
    }
}

static void ct__avx512_dequantize(int elem, int bs, const uint8_t *codes, const uint8_t *scales,
                                  int64_t rows, int64_t L, float *dst) {
    if (bs % 16) {
        ct__mxk_ref_dequantize(elem, bs, codes, scales, rows, L, dst);
        return;
    }
#define C_(E) ct__dequant_impl(E, bs, codes, scales, rows, L, dst)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

/* ---- MX linear, bs == 32 ----
 * One 32-element weight block becomes two registers w0, w1 (already multiplied by the block
 * scale, i.e. exactly the dequantised weights) that meet MT rows of x. For FP4 w0 holds the even
 * elements and w1 the odd ones, matching the de-interleaved x. */
CT__AI void ct__lin_block(int elem, const uint8_t *crow, int64_t b, __m512 s, __m512 *w0,
                          __m512 *w1) {
    if (elem == CT__MXK_E2M1) {
        const __m512 tab = _mm512_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f, -0.0f,
                                          -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f);
        __m512i v = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(crow + b * 16)));
        *w0 = _mm512_mul_ps(_mm512_permutexvar_ps(v, tab), s); /* uses the low 4 bits */
        *w1 = _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_srli_epi32(v, 4), tab), s);
    } else if (elem == CT__MXK_INT8) {
        __m128i lo = _mm_loadu_si128((const __m128i *)(crow + b * 32));
        __m128i hi = _mm_loadu_si128((const __m128i *)(crow + b * 32 + 16));
        *w0 = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(lo)),
                                          _mm512_set1_ps(1.0f / 64.0f)),
                            s);
        *w1 = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(hi)),
                                          _mm512_set1_ps(1.0f / 64.0f)),
                            s);
    } else {
        __m128i lo = _mm_loadu_si128((const __m128i *)(crow + b * 32));
        __m128i hi = _mm_loadu_si128((const __m128i *)(crow + b * 32 + 16));
        *w0 = _mm512_mul_ps(ct__dec16(elem, _mm512_cvtepu8_epi32(lo)), s);
        *w1 = _mm512_mul_ps(ct__dec16(elem, _mm512_cvtepu8_epi32(hi)), s);
    }
}

/* K is walked in chunks so the MT rows of x a chunk touches (<= 32 KB) stay in L1 while every
 * weight row of [n0, n1) streams past them; partial sums accumulate in y. */
CT__AI void ct__lin_tile(int elem, int MT, const ct__mxk_linear_args *a, int64_t m0, int64_t n0,
                         int64_t n1) {
    const int64_t nfull = a->K / 32, cb = 256 / MT;
    for (int64_t n = n0; n < n1; n++) { /* y = bias + tail block */
        const uint8_t *crow = a->codes + n * a->code_stride;
        float bv = a->bias ? a->bias[n] : 0.0f;
        float tailv[8] = {0};
        if (nfull * 32 < a->K) {
            float s = ct__mxk_e8m0_dec(a->scales[n * a->nblk + nfull]);
            for (int64_t j = nfull * 32; j < a->K; j++) {
                float w = ct__mxk_dec_any(elem, ct__mxk_get_code(elem, crow, j)) * s;
                for (int mm = 0; mm < MT; mm++)
                    tailv[mm] += a->x[(m0 + mm) * a->ldx + j] * w;
            }
        }
        for (int mm = 0; mm < MT; mm++)
            a->y[(m0 + mm) * a->ldy + n] = tailv[mm] + bv;
    }
    for (int64_t c0 = 0; c0 < nfull; c0 += cb) {
        int64_t c1 = c0 + cb < nfull ? c0 + cb : nfull;
        for (int64_t n = n0; n < n1; n++) {
            const uint8_t *crow = a->codes + n * a->code_stride;
            const uint8_t *srow = a->scales + n * a->nblk;
            __m512 acc0[8], acc1[8];
            for (int mm = 0; mm < MT; mm++)
                acc0[mm] = acc1[mm] = _mm512_setzero_ps();
            for (int64_t b = c0; b < c1; b++) {
                __m512 w0, w1;
                ct__lin_block(elem, crow, b, _mm512_set1_ps(ct__mxk_e8m0_dec(srow[b])), &w0, &w1);
                for (int mm = 0; mm < MT; mm++) {
                    const float *xp = a->x + (m0 + mm) * a->ldx + b * 32;
                    acc0[mm] = _mm512_fmadd_ps(_mm512_loadu_ps(xp), w0, acc0[mm]);
                    acc1[mm] = _mm512_fmadd_ps(_mm512_loadu_ps(xp + 16), w1, acc1[mm]);
                }
            }
            for (int mm = 0; mm < MT; mm++)
                a->y[(m0 + mm) * a->ldy + n] +=
                    _mm512_reduce_add_ps(_mm512_add_ps(acc0[mm], acc1[mm]));
        }
    }
}

CT__AI void ct__lin_impl(int elem, const ct__mxk_linear_args *a, int64_t n0, int64_t n1) {
    int64_t m = 0;
    for (; m + 8 <= a->M; m += 8)
        ct__lin_tile(elem, 8, a, m, n0, n1);
    if (m + 4 <= a->M) {
        ct__lin_tile(elem, 4, a, m, n0, n1);
        m += 4;
    }
    if (m + 2 <= a->M) {
        ct__lin_tile(elem, 2, a, m, n0, n1);
        m += 2;
    }
    if (m < a->M) ct__lin_tile(elem, 1, a, m, n0, n1);
}

static void ct__avx512_linear(const ct__mxk_linear_args *a, int64_t n0, int64_t n1) {
    if (a->bs != 32) {
        ct__mxk_ref_linear(a, n0, n1);
        return;
    }
#define C_(E) ct__lin_impl(E, a, n0, n1)
    CT__MX_SWITCH(a->elem, C_)
#undef C_
}

const ct__mxk_ops ct__mxk_ops_avx512 = {
    ct__avx512_encode,     ct__avx512_decode, ct__avx512_quantize,
    ct__avx512_dequantize, ct__avx512_linear, 1,
};

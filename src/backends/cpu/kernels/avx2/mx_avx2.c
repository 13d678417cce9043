/* AVX2 MX kernels: element casts (8 lanes), block quantize / dequantize and the MX linear kernel.
 * Same arithmetic as the AVX-512 file and bit-exact with the reference; tails use the reference. */
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

/* Low byte of each int32 lane -> 8 bytes. */
CT__AI void ct__store8(uint8_t *dst, __m256i c) {
    const __m256i shuf =
        _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                         -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i p = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(c, shuf),
                                            _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1));
    _mm_storel_epi64((__m128i *)dst, _mm256_castsi256_si128(p));
}

/* 8 FP4 codes (int32 lanes) -> 4 packed bytes, element 2i in the low nibble. */
CT__AI void ct__store_fp4x8(uint8_t *dst, __m256i c) {
    __m256i pk = _mm256_or_si256(c, _mm256_srli_epi64(c, 28));
    const __m256i shuf =
        _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 8, -1, -1,
                         -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    __m256i p = _mm256_shuffle_epi8(pk, shuf);
    uint32_t lo = (uint32_t)_mm256_extract_epi16(p, 0), hi = (uint32_t)_mm256_extract_epi16(p, 8);
    uint32_t v = (lo & 0xFFFF) | (hi << 16);
    memcpy(dst, &v, 4);
}

CT__AI __m256i ct__load8(const uint8_t *p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
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

CT__AI void ct__encode_impl(int elem, const float *src, uint8_t *dst, size_t n, int sat) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        ct__store8(dst + i, ct__enc8(elem, _mm256_loadu_ps(src + i), sat));
    for (; i < n; i++)
        dst[i] = ct__mxk_enc1(elem, src[i], sat);
}

CT__AI void ct__decode_impl(int elem, const uint8_t *src, float *dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, ct__dec8(elem, ct__load8(src + i)));
    for (; i < n; i++)
        dst[i] = ct__mxk_dec1(elem, src[i]);
}

static void ct__avx2_encode(int elem, const float *src, uint8_t *dst, size_t n, int sat) {
    if (elem == CT__MXK_INT8) return;
#define C_(E) ct__encode_impl(E, src, dst, n, sat)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

static void ct__avx2_decode(int elem, const uint8_t *src, float *dst, size_t n) {
    if (elem == CT__MXK_INT8) return;
#define C_(E) ct__decode_impl(E, src, dst, n)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

/* ---- block quantize / dequantize: full blocks with bs % 8 == 0 ---- */

CT__AI void ct__quant_block(int elem, int rceil, int bs, const float *p, uint8_t *codes,
                            uint8_t *scale) {
    __m256i am = _mm256_setzero_si256();
    for (int j = 0; j < bs; j += 8)
        am = _mm256_max_epu32(am, _mm256_and_si256(_mm256_castps_si256(_mm256_loadu_ps(p + j)),
                                                   _mm256_set1_epi32(0x7fffffff)));
    __m128i m4 = _mm_max_epu32(_mm256_castsi256_si128(am), _mm256_extracti128_si256(am, 1));
    m4 = _mm_max_epu32(m4, _mm_shuffle_epi32(m4, 0x4E));
    m4 = _mm_max_epu32(m4, _mm_shuffle_epi32(m4, 0xB1));
    uint32_t amax = (uint32_t)_mm_cvtsi128_si32(m4);
    uint8_t sc = ct__mxk_scale_code(elem, amax, rceil);
    *scale = sc;
    if (sc == 0xFF) {
        memset(codes, 0, (size_t)ct__mxk_row_bytes(elem, bs));
        return;
    }
    __m256 inv = _mm256_set1_ps(ct__mxk_inv_scale(sc));
    for (int j = 0; j < bs; j += 8) {
        __m256 t = _mm256_mul_ps(_mm256_loadu_ps(p + j), inv);
        if (elem == CT__MXK_INT8) {
            __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(t, _mm256_set1_ps(64.0f)));
            q = _mm256_max_epi32(_mm256_min_epi32(q, _mm256_set1_epi32(127)),
                                 _mm256_set1_epi32(-127));
            ct__store8(codes + j, q);
        } else if (elem == CT__MXK_E2M1) {
            ct__store_fp4x8(codes + j / 2, ct__enc8(elem, t, 1));
        } else {
            ct__store8(codes + j, ct__enc8(elem, t, 1));
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

static void ct__avx2_quantize(int elem, int rceil, int bs, const float *src, int64_t rows,
                              int64_t L, uint8_t *codes, uint8_t *scales) {
    if (bs % 8) {
        ct__mxk_ref_quantize(elem, rceil, bs, src, rows, L, codes, scales);
        return;
    }
#define C_(E) ct__quant_impl(E, rceil, bs, src, rows, L, codes, scales)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

/* 8 codes starting at element j (j % 8 == 0) as int32 lanes, natural order. */
CT__AI __m256i ct__load_codes8(int elem, const uint8_t *row, int64_t j) {
    if (elem == CT__MXK_E2M1) {
        uint32_t w;
        memcpy(&w, row + j / 2, 4);
        __m256i v = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)w));
        return _mm256_or_si256(_mm256_and_si256(v, _mm256_set1_epi64x(0xF)),
                               _mm256_slli_epi64(_mm256_srli_epi64(v, 4), 32));
    }
    return ct__load8(row + j);
}

CT__AI void ct__dequant_impl(int elem, int bs, const uint8_t *codes, const uint8_t *scales,
                             int64_t rows, int64_t L, float *dst) {
    int64_t rb = ct__mxk_row_bytes(elem, L), nblk = (L + bs - 1) / bs, nfull = L / bs;
    for (int64_t r = 0; r < rows; r++) {
        const uint8_t *crow = codes + r * rb;
        float *drow = dst + r * L;
        for (int64_t b = 0; b < nfull; b++) {
            __m256 s = _mm256_set1_ps(ct__mxk_e8m0_dec(scales[r * nblk + b]));
            for (int64_t j = b * bs; j < (b + 1) * bs; j += 8)
                _mm256_storeu_ps(drow + j,
                                 _mm256_mul_ps(ct__dec8(elem, ct__load_codes8(elem, crow, j)), s));
        }
        if (nfull < nblk)
            ct__mxk_ref_dequantize_block(elem, crow, scales[r * nblk + nfull], nfull * bs, L, drow);
    }
}

static void ct__avx2_dequantize(int elem, int bs, const uint8_t *codes, const uint8_t *scales,
                                int64_t rows, int64_t L, float *dst) {
    if (bs % 8) {
        ct__mxk_ref_dequantize(elem, bs, codes, scales, rows, L, dst);
        return;
    }
#define C_(E) ct__dequant_impl(E, bs, codes, scales, rows, L, dst)
    CT__MX_SWITCH(elem, C_)
#undef C_
}

/* ---- MX linear, bs == 32: a block becomes four registers of scaled weights. For FP4 they are
 * even 0..7 (x[0..7]), even 8..15 (x[8..15]), odd 0..7 (x[16..23]), odd 8..15 (x[24..31]). */
CT__AI void ct__lin_block(int elem, const uint8_t *crow, int64_t b, __m256 s, __m256 w[4]) {
    if (elem == CT__MXK_E2M1) {
        const __m256 tab = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f);
        __m256i v0 = ct__load8(crow + b * 16), v1 = ct__load8(crow + b * 16 + 8);
        __m256i q[4] = {v0, v1, _mm256_srli_epi32(v0, 4), _mm256_srli_epi32(v1, 4)};
        for (int k = 0; k < 4; k++) {
            __m256 mag = _mm256_permutevar8x32_ps(tab, q[k]); /* low 3 bits */
            __m256i sg = _mm256_slli_epi32(_mm256_and_si256(q[k], _mm256_set1_epi32(8)), 28);
            w[k] = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(mag), sg)),
                                 s);
        }
    } else {
        for (int k = 0; k < 4; k++)
            w[k] = _mm256_mul_ps(ct__dec8(elem, ct__load8(crow + b * 32 + 8 * k)), s);
    }
}

CT__AI float ct__hsum8(__m256 t) {
    __m128 h = _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
    h = _mm_add_ps(h, _mm_movehl_ps(h, h));
    h = _mm_add_ss(h, _mm_movehdup_ps(h));
    return _mm_cvtss_f32(h);
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
            __m256 acc0[4], acc1[4];
            for (int mm = 0; mm < MT; mm++)
                acc0[mm] = acc1[mm] = _mm256_setzero_ps();
            for (int64_t b = c0; b < c1; b++) {
                __m256 w[4];
                ct__lin_block(elem, crow, b, _mm256_set1_ps(ct__mxk_e8m0_dec(srow[b])), w);
                for (int mm = 0; mm < MT; mm++) {
                    const float *xp = a->x + (m0 + mm) * a->ldx + b * 32;
                    acc0[mm] = _mm256_fmadd_ps(_mm256_loadu_ps(xp), w[0], acc0[mm]);
                    acc1[mm] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 8), w[1], acc1[mm]);
                    acc0[mm] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 16), w[2], acc0[mm]);
                    acc1[mm] = _mm256_fmadd_ps(_mm256_loadu_ps(xp + 24), w[3], acc1[mm]);
                }
            }
            for (int mm = 0; mm < MT; mm++)
                a->y[(m0 + mm) * a->ldy + n] += ct__hsum8(_mm256_add_ps(acc0[mm], acc1[mm]));
        }
    }
}

CT__AI void ct__lin_impl(int elem, const ct__mxk_linear_args *a, int64_t n0, int64_t n1) {
    int64_t m = 0;
    for (; m + 4 <= a->M; m += 4)
        ct__lin_tile(elem, 4, a, m, n0, n1);
    if (m + 2 <= a->M) {
        ct__lin_tile(elem, 2, a, m, n0, n1);
        m += 2;
    }
    if (m < a->M) ct__lin_tile(elem, 1, a, m, n0, n1);
}

static void ct__avx2_linear(const ct__mxk_linear_args *a, int64_t n0, int64_t n1) {
    if (a->bs != 32) {
        ct__mxk_ref_linear(a, n0, n1);
        return;
    }
#define C_(E) ct__lin_impl(E, a, n0, n1)
    CT__MX_SWITCH(a->elem, C_)
#undef C_
}

const ct__mxk_ops ct__mxk_ops_avx2 = {
    ct__avx2_encode, ct__avx2_decode, ct__avx2_quantize, ct__avx2_dequantize, ct__avx2_linear, 1,
};

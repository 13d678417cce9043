/* Scalar reference MX kernels: element casts, block quantize/dequantize, MX linear. The oracle the
 * vector variants are tested against; also their tail / odd-block-size fallback. */
#include "backends/cpu/kernels/mx_kernels.h"

void ct__mxk_ref_encode(int elem, const float *src, uint8_t *dst, size_t n, int saturate) {
    for (size_t i = 0; i < n; i++)
        dst[i] = ct__mxk_enc1(elem, src[i], saturate);
}

void ct__mxk_ref_decode(int elem, const uint8_t *src, float *dst, size_t n) {
    for (size_t i = 0; i < n; i++)
        dst[i] = ct__mxk_dec1(elem, src[i]);
}

static inline void ct__mxk_put_code(int elem, uint8_t *row, int64_t j, uint8_t c) {
    if (elem == CT__MXK_E2M1) {
        uint8_t *p = &row[j >> 1];
        if (j & 1)
            *p = (uint8_t)((*p & 0x0F) | (c << 4));
        else
            *p = (uint8_t)((*p & 0xF0) | (c & 0x0F));
    } else {
        row[j] = c;
    }
}

void ct__mxk_ref_quantize_block(int elem, int rceil, const float *src, int64_t j0, int64_t j1,
                                uint8_t *row_codes, uint8_t *scale) {
    uint32_t amax = 0;
    for (int64_t j = j0; j < j1; j++) {
        uint32_t a = ct__mxk_f2u(src[j]) & 0x7fffffffu;
        if (a > amax) amax = a;
    }
    uint8_t sc = ct__mxk_scale_code(elem, amax, rceil);
    *scale = sc;
    if (sc == 0xFF) { /* NaN block: element codes are irrelevant, write zeros */
        for (int64_t j = j0; j < j1; j++)
            ct__mxk_put_code(elem, row_codes, j, 0);
        return;
    }
    float inv = ct__mxk_inv_scale(sc);
    for (int64_t j = j0; j < j1; j++) {
        float t = src[j] * inv; /* exact unless far below the element quantum */
        uint8_t c = elem == CT__MXK_INT8 ? ct__mxk_enc_int8(t) : ct__mxk_enc1(elem, t, 1);
        ct__mxk_put_code(elem, row_codes, j, c);
    }
}

void ct__mxk_ref_quantize(int elem, int rceil, int bs, const float *src, int64_t rows, int64_t L,
                          uint8_t *codes, uint8_t *scales) {
    int64_t rb = ct__mxk_row_bytes(elem, L), nblk = (L + bs - 1) / bs;
    for (int64_t r = 0; r < rows; r++) {
        uint8_t *crow = codes + r * rb;
        if (elem == CT__MXK_E2M1 && (L & 1)) crow[rb - 1] = 0; /* padding nibble */
        for (int64_t b = 0; b < nblk; b++) {
            int64_t j0 = b * bs, j1 = j0 + bs < L ? j0 + bs : L;
            ct__mxk_ref_quantize_block(elem, rceil, src + r * L, j0, j1, crow,
                                       &scales[r * nblk + b]);
        }
    }
}

void ct__mxk_ref_dequantize_block(int elem, const uint8_t *row_codes, uint8_t scale, int64_t j0,
                                  int64_t j1, float *dst_row) {
    float s = ct__mxk_e8m0_dec(scale);
    for (int64_t j = j0; j < j1; j++)
        dst_row[j] = ct__mxk_dec_any(elem, ct__mxk_get_code(elem, row_codes, j)) * s;
}

void ct__mxk_ref_dequantize(int elem, int bs, const uint8_t *codes, const uint8_t *scales,
                            int64_t rows, int64_t L, float *dst) {
    int64_t rb = ct__mxk_row_bytes(elem, L), nblk = (L + bs - 1) / bs;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t b = 0; b < nblk; b++) {
            int64_t j0 = b * bs, j1 = j0 + bs < L ? j0 + bs : L;
            ct__mxk_ref_dequantize_block(elem, codes + r * rb, scales[r * nblk + b], j0, j1,
                                         dst + r * L);
        }
}

/* Natural x layout only (the reference never asks for de-interleaving). Each weight is decoded
 * and scaled exactly as ct_mx_dequantize would, then accumulated in f32. */
void ct__mxk_ref_linear(const ct__mxk_linear_args *a, int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; n++) {
        const uint8_t *crow = a->codes + n * a->code_stride;
        const uint8_t *srow = a->scales + n * a->nblk;
        for (int64_t m = 0; m < a->M; m++) {
            const float *x = a->x + m * a->ldx;
            float acc = 0.0f;
            for (int64_t b = 0; b < a->nblk; b++) {
                float s = ct__mxk_e8m0_dec(srow[b]);
                int64_t j0 = b * a->bs, j1 = j0 + a->bs < a->K ? j0 + a->bs : a->K;
                for (int64_t j = j0; j < j1; j++)
                    acc +=
                        x[j] * (ct__mxk_dec_any(a->elem, ct__mxk_get_code(a->elem, crow, j)) * s);
            }
            a->y[m * a->ldy + n] = acc + (a->bias ? a->bias[n] : 0.0f);
        }
    }
}

const ct__mxk_ops ct__mxk_ops_ref = {
    ct__mxk_ref_encode,     ct__mxk_ref_decode, ct__mxk_ref_quantize,
    ct__mxk_ref_dequantize, ct__mxk_ref_linear, 0,
};

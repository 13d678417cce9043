/* Reference (scalar) 2:4 sparse kernels: compress / decompress, the GEMM and N == 1 chains in the
 * documented summation order (sparse_kernels.h), the epilogue. The oracle of the ISA variants. */
#include "backends/cpu/kernels/sparse_kernels.h"

#include <math.h>
#include <string.h>

/* a beats b as a kept value: NaN first, then larger |x| (the caller scans in index order). */
static bool sp_beats(float a, float b) {
    if (isnan(b)) return false;
    if (isnan(a)) return true;
    return fabsf(a) > fabsf(b);
}

/* Structural rank of a value for the strict check: 2 non-zero (NaN too), 1 -0.0, 0 +0. */
static int sp_rank(float x) { return x != 0.0f || isnan(x) ? 2 : signbit(x) ? 1 : 0; }

static void sp_store(int vkind, void *vals, int64_t i, float x, float scale) {
    switch (vkind) {
    case CT__SPK_F32: ((float *)vals)[i] = x; break;
    case CT__SPK_BF16: ((uint16_t *)vals)[i] = ct__f2bf(x); break;
    case CT__SPK_E4M3: ((uint8_t *)vals)[i] = ct__mxk_enc1(CT__MXK_E4M3, x / scale, 1); break;
    default: ((uint8_t *)vals)[i] = ct__mxk_enc1(CT__MXK_E5M2, x / scale, 1); break;
    }
}

void ct__sp24_compress_rows(int vkind, bool prune, int64_t r0, int64_t rows, int64_t K,
                            const float *dense, void *vals, uint8_t *meta, float *scales,
                            const float *given_scales, int64_t *bad) {
    const int64_t G = K / 4, mb = ct__sp24_meta_bytes(K), vs = K / 2;
    const bool fp8 = vkind == CT__SPK_E4M3 || vkind == CT__SPK_E5M2;
    const float fmax = vkind == CT__SPK_E4M3 ? 448.0f : 57344.0f;
    *bad = -1;
    for (int64_t r = 0; r < rows; r++) {
        const float *x = dense + r * K;
        float scale = 1.0f;
        if (fp8) {
            if (given_scales) {
                scale = given_scales[r];
            } else {
                float amax = 0.0f;
                for (int64_t k = 0; k < K; k++)
                    if (isfinite(x[k]) && fabsf(x[k]) > amax) amax = fabsf(x[k]);
                if (amax > 0.0f) scale = amax / fmax;
            }
            scales[r] = scale;
        }
        uint8_t *mrow = meta + r * mb;
        memset(mrow, 0, (size_t)mb);
        for (int64_t g = 0; g < G; g++) {
            const float *q = x + 4 * g;
            int a = 0, b = 1;
            if (prune) {
                for (int i = 1; i < 4; i++)
                    if (sp_beats(q[i], q[a])) a = i;
                b = a == 0 ? 1 : 0;
                for (int i = 0; i < 4; i++)
                    if (i != a && sp_beats(q[i], q[b])) b = i;
            } else {
                int nz = 0;
                for (int i = 0; i < 4; i++)
                    nz += sp_rank(q[i]) == 2;
                if (nz > 2 && *bad < 0) *bad = (r0 + r) * G + g;
                for (int i = 1; i < 4; i++)
                    if (sp_rank(q[i]) > sp_rank(q[a])) a = i;
                b = a == 0 ? 1 : 0;
                for (int i = 0; i < 4; i++)
                    if (i != a && sp_rank(q[i]) > sp_rank(q[b])) b = i;
            }
            if (a > b) {
                int t = a;
                a = b;
                b = t;
            }
            mrow[g / 2] |= (uint8_t)((a | (b << 2)) << (4 * (g & 1)));
            sp_store(vkind, vals, r * vs + 2 * g, q[a], scale);
            sp_store(vkind, vals, r * vs + 2 * g + 1, q[b], scale);
        }
    }
}

void ct__sp24_decompress_rows(int vkind, int64_t rows, int64_t K, const void *vals,
                              const uint8_t *meta, const float *scales, float *dense) {
    const int64_t G = K / 4, mb = ct__sp24_meta_bytes(K), vs = K / 2;
    const bool fp8 = vkind == CT__SPK_E4M3 || vkind == CT__SPK_E5M2;
    for (int64_t r = 0; r < rows; r++) {
        float *d = dense + r * K;
        memset(d, 0, (size_t)K * sizeof(float));
        for (int64_t g = 0; g < G; g++) {
            const unsigned nib = (meta[r * mb + g / 2] >> (4 * (g & 1))) & 15u;
            for (int j = 0; j < 2; j++) {
                float v = ct__spk_get(vkind, vals, r * vs + 2 * g + j);
                d[4 * g + ((nib >> (2 * j)) & 3u)] = fp8 ? v * scales[r] : v;
            }
        }
    }
}

void ct__sp24_gemm_ref(int vkind, int64_t r0, int64_t r1, int64_t N, int64_t K, const void *vals,
                       const uint8_t *meta, int bkind, const void *b, int64_t sk, int64_t sn,
                       const float *mult, const float *bias, float *out) {
    const int64_t G = K / 4, mb = ct__sp24_meta_bytes(K), vs = K / 2;
    for (int64_t r = r0; r < r1; r++)
        for (int64_t n = 0; n < N; n++) {
            float acc = 0.0f;
            for (int64_t g = 0; g < G; g++) {
                const unsigned nib = (meta[r * mb + g / 2] >> (4 * (g & 1))) & 15u;
                for (int j = 0; j < 2; j++) {
                    int64_t k = 4 * g + ((nib >> (2 * j)) & 3u);
                    acc = fmaf(ct__spk_get(vkind, vals, r * vs + 2 * g + j),
                               ct__spk_get(bkind, b, k * sk + n * sn), acc);
                }
            }
            out[r * N + n] = fmaf(acc, mult[r], bias[r]);
        }
}

static void sp_gemv_ref(int vkind, int N, int64_t rows, const void *vals, const uint8_t *meta,
                        int64_t mstride, int64_t K, const float *x, float *y) {
    const int64_t G = K / 4, vs = K / 2;
    for (int64_t r = 0; r < rows; r++)
        for (int n = 0; n < N; n++) {
            const float *xn = x + n * K;
            float s[16] = {0};
            for (int64_t g = 0; g < G; g++) {
                const unsigned nib = (meta[r * mstride + g / 2] >> (4 * (g & 1))) & 15u;
                for (int j = 0; j < 2; j++) {
                    int64_t jj = 2 * g + j;
                    s[jj % 16] = fmaf(ct__spk_get(vkind, vals, r * vs + jj),
                                      xn[4 * g + ((nib >> (2 * j)) & 3u)], s[jj % 16]);
                }
            }
            y[r * N + n] = ct__sp24_lanes_sum(s);
        }
}

static void sp_epilogue_ref(float *c, int64_t ldc, int64_t rows, int64_t ncols, const float *mult,
                            const float *bias) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t n = 0; n < ncols; n++)
            c[r * ldc + n] = fmaf(c[r * ldc + n], mult[r], bias[r]);
}

const ct__spk_ops ct__spk_ops_ref = {0, 0, NULL, sp_gemv_ref, sp_epilogue_ref, NULL, NULL};

/* Private interface of the 2:4 semi-structured sparse kernels (ref, avx2, avx512): the compressed
 * layout, the workspace plan shared by the front end, the submit-time validation and the CPU
 * driver, the element decoders, and the per-ISA table. Kernels take raw pointers only (no ctx, no
 * allocation). Layout (docs/sparse.md): a [M, K] matrix keeps two values of every group of four
 * along K; values [M, K/2] hold them in k order; metadata [M, ceil(K/8)] bytes hold one nibble per
 * group (group 2j in the low nibble of byte j): bits 0-1 the index of the first kept value in its
 * group, bits 2-3 the second (first < second).
 *
 * Summation order (the same on every ISA, so every ISA is bit-exact with the reference):
 * - N > 8: out[m, n] is one fused multiply-add chain over the row's kept values in increasing k,
 *   starting from +0; then out = fma(acc, mult[m], bias[m]).
 * - N <= 8: for each column n the row's kept values j = 0, 1, ... go to 16 lanes (lane j % 16), an
 *   fma chain per lane; the lanes are added as t8[i] = s[i] + s[i+8], t4[i] = t8[i] + t8[i+4],
 *   t2[i] = t4[i] + t4[i+2], t2[0] + t2[1]; then the same epilogue. */
#ifndef CTORCH_SPARSE_KERNELS_H
#define CTORCH_SPARSE_KERNELS_H

#include "backends/cpu/kernels/mx_kernels.h"

#include <stdbool.h>
#include <stdint.h>

/* Element kinds of values and of the dense B operand. */
enum { CT__SPK_F32 = 0, CT__SPK_BF16 = 1, CT__SPK_E4M3 = 2, CT__SPK_E5M2 = 3, CT__SPK_F16 = 4 };

#define CT__SP24_KC_MAX                                                                            \
    128 /* the most k rows of B per packed block of any ISA (ops.kc: 64 or 128, a multiple of 8)   \
         */
#define CT__SP24_NC 512   /* columns of B per packed block */
#define CT__SP24_MC 128   /* rows of A swept per packed block while it is hot in L2 */
#define CT__SP24_WMAX 64  /* widest B strip of any ISA (floats); strips are 64-byte aligned */
#define CT__SP24_GEMV_N 8 /* N up to this runs the lane (GEMV) kernels, larger N the strips */

/* Metadata bytes per row of a K-column matrix (K a multiple of 4). */
static inline int64_t ct__sp24_meta_bytes(int64_t K) { return (K / 4 + 1) / 2; }

/* The mm workspace: the metadata offset table (256 x 4 int32), the FP8 value table (256 f32),
 * B transposed to f32 [N][K] for N <= 8 (unless N == 1 and B is contiguous f32; room for two
 * rows: N == 1 E4M3 puts 256 x after x), and for N > 8 B
 * packed as 64-byte aligned strips for one block of NC columns and every k block (shared by the
 * threads). Offsets are from the first 64-byte aligned address of the workspace
 * (64 bytes of slack included). */
typedef struct {
    int64_t lut, vtab, x, bp, bp_bytes, total;
} ct__sp24_work;

static inline int64_t ct__sp24_r64(int64_t v) { return (v + 63) / 64 * 64; }

/* Workspace for out (M, N) = A (M, K) @ B (K, N) on nt threads (K, N <= INT64_MAX / 16, checked
 * before; the sizes of real tensors keep the products in range). */
static inline ct__sp24_work ct__sp24_work_plan(int64_t N, int64_t K, int nt) {
    ct__sp24_work w;
    if (nt < 1) nt = 1;
    w.lut = 0;
    w.vtab = 256 * 4 * 4;
    w.x = w.vtab + 256 * 4;
    w.bp = w.x + (N <= CT__SP24_GEMV_N ? ct__sp24_r64((N < 2 ? 2 : N) * K * 4) : 0);
    const int64_t nc = N < CT__SP24_NC ? N : CT__SP24_NC,
                  nkb = (K + CT__SP24_KC_MAX - 1) / CT__SP24_KC_MAX; /* covers any ISA's kc */
    (void)nt; /* the packed B is shared by the threads */
    /* ceil(nc / w) strips of w columns: at most nc + w - 1 columns for any ISA's w */
    w.bp_bytes =
        N > CT__SP24_GEMV_N ? nkb * CT__SP24_KC_MAX * ct__sp24_r64(nc + CT__SP24_WMAX - 1) * 4 : 0;
    w.total = w.bp + w.bp_bytes + 64;
    return w;
}

/* Element i of a buffer of kind k as f32 (exact). */
static inline float ct__spk_get(int k, const void *p, int64_t i) {
    switch (k) {
    case CT__SPK_F32: return ((const float *)p)[i];
    case CT__SPK_BF16: return ct__bf2f(((const uint16_t *)p)[i]);
    case CT__SPK_F16: return ct__h2f(((const uint16_t *)p)[i]);
    case CT__SPK_E4M3: return ct__mxk_dec1(CT__MXK_E4M3, ((const uint8_t *)p)[i]);
    default: return ct__mxk_dec1(CT__MXK_E5M2, ((const uint8_t *)p)[i]);
    }
}

/* Bytes per element of kind k. */
static inline int ct__spk_size(int k) {
    return k == CT__SPK_F32 ? 4 : (k == CT__SPK_BF16 || k == CT__SPK_F16) ? 2 : 1;
}

/* One row-block x k-block x B-strip job of the GEMM strip kernels (N > 8). */
typedef struct {
    int vkind;           /* CT__SPK_F32 / BF16 / E4M3 / E5M2 */
    int64_t rows;        /* rows of A in this job */
    const void *vals;    /* first kept value of the job's first row at the block's first group */
    int64_t vstride;     /* values per row (K / 2) */
    const uint8_t *meta; /* metadata byte of the block's first group, first row */
    int64_t mstride;     /* metadata bytes per row */
    int64_t ng;          /* groups in the block (<= kc / 4; odd only at the end of K) */
    const int32_t *lut;  /* [256][4] float offsets into the strip (k in the byte's 8 rows * w) */
    const float *vtab;   /* FP8 code -> f32 */
    const float *bp;     /* packed B strip: kc rows of w floats, 64-byte aligned */
    int ncols;           /* valid columns of the strip (<= w) */
    float *c;            /* out (rows, ncols) at row stride ldc */
    int64_t ldc;
    int first; /* 1: the chains start here (+0), else they continue from c */
} ct__sp24_strip_args;

typedef struct ct__spk_ops {
    int w;  /* B strip width in floats (0: no strip kernel, the reference loops) */
    int kc; /* k rows of B per packed block (its strip, kc * w floats, stays in L1) */
    void (*strip)(const ct__sp24_strip_args *a);
    /* y[r, n] (rows x N, N <= CT__SP24_GEMV_N) = the lane sums of row r against x[n] (x: [N][K]
     * f32), values vals of kind vkind */
    void (*gemv)(int vkind, int N, int64_t rows, const void *vals, const uint8_t *meta,
                 int64_t mstride, int64_t K, const float *x, float *y);
    /* c[r, n] = fma(c[r, n], mult[r], bias[r]) for n < ncols */
    void (*epilogue)(float *c, int64_t ldc, int64_t rows, int64_t ncols, const float *mult,
                     const float *bias);
    /* gemv of E4M3 values with AVX512_VBMI (NULL: none); same order as gemv */
    void (*gemv_e4m3_vbmi)(int N, int64_t rows, const void *vals, const uint8_t *meta,
                           int64_t mstride, int64_t K, const float *x, float *y);
    /* N == 1 gemv of E4M3 values given x and x256 = 256 x (each element exact: the driver checks
     * every finite |x| < 2^120) (NULL: none); same order as gemv */
    void (*gemv_e4m3_x256)(int64_t rows, const void *vals, const uint8_t *meta, int64_t mstride,
                           int64_t K, const float *x, const float *x256, float *y);
} ct__spk_ops;

extern const ct__spk_ops ct__spk_ops_ref, ct__spk_ops_avx2, ct__spk_ops_avx512;

/* The lane sum of the N <= 8 chains (the reference's order). */
static inline float ct__sp24_lanes_sum(const float s[16]) {
    float t8[8], t4[4];
    for (int i = 0; i < 8; i++)
        t8[i] = s[i] + s[i + 8];
    for (int i = 0; i < 4; i++)
        t4[i] = t8[i] + t8[i + 4];
    return (t4[0] + t4[2]) + (t4[1] + t4[3]);
}

/* Compress `rows` rows of a dense f32 matrix (pointers at row r0): keep per group of four the
 * two largest |x| (NaN largest, ties to the lower index) when prune, else the non-zero values
 * (then -0.0, then the lowest indices) and report in *bad the first group (flat index r * K/4 + g)
 * with more than two non-zeros (-1: none). FP8 values are x / scale[r] encoded with saturation;
 * scale[r] is given (given_scales) or max finite |x| of the row / the format's max (1 for a row
 * without a finite non-zero). */
void ct__sp24_compress_rows(int vkind, bool prune, int64_t r0, int64_t rows, int64_t K,
                            const float *dense, void *vals, uint8_t *meta, float *scales,
                            const float *given_scales, int64_t *bad);
/* Expand `rows` rows back to dense f32 (dropped positions +0; FP8 values times their scale). */
void ct__sp24_decompress_rows(int vkind, int64_t rows, int64_t K, const void *vals,
                              const uint8_t *meta, const float *scales, float *dense);
/* The reference GEMM (N > 8) of rows [r0, r1): out[r, n] = the k-ordered fma chain of the row's
 * kept values against B (kind bkind, element strides sk, sn), then the epilogue. */
void ct__sp24_gemm_ref(int vkind, int64_t r0, int64_t r1, int64_t N, int64_t K, const void *vals,
                       const uint8_t *meta, int bkind, const void *b, int64_t sk, int64_t sn,
                       const float *mult, const float *bias, float *out);

#endif

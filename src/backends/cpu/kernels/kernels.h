/* Portable CPU kernels: raw pointers, shapes and strides only (no context, no allocation, no BLAS)
 * so the embedded runtime can link them alone. ISA-specific contiguous fast paths come in a
 * ct_k_isa table (ref, avx2, avx512 builds of the same source). */
#ifndef CTORCH_CPU_KERNELS_H
#define CTORCH_CPU_KERNELS_H

#include "ctorch/backend.h"

#include <math.h>

/* Contiguous fast paths; a NULL entry means "use the generic typed loop". */
enum { CT_K_ADD, CT_K_SUB, CT_K_MUL, CT_K_DIV, CT_K_BIN_COUNT };
enum {
    CT_K_NEG,
    CT_K_ABS,
    CT_K_RELU,
    CT_K_SQRT,
    CT_K_EXP,
    CT_K_SIGMOID,
    CT_K_LOG,
    CT_K_TANH,
    CT_K_GELU_TANH, /* selected by CT_OP_GELU with ints[0] = 1 */
    CT_K_UN_COUNT
};
enum { CT_K_RSUM, CT_K_RMAX, CT_K_RMIN, CT_K_RED_COUNT };
enum { CT_K_ADDCMUL, CT_K_ADDCDIV, CT_K_LERP, CT_K_TERN_COUNT };
/* pair loops: the binary ops, then the first four unary ones (neg, abs, relu, sqrt) */
enum { CT_K_PAIR_UN = CT_K_BIN_COUNT, CT_K_PAIR_COUNT = CT_K_BIN_COUNT + 4 };

typedef struct ct_k_isa {
    const char *name;
    void (*bin_f32[CT_K_BIN_COUNT])(int64_t n, float *o, const float *a, const float *b,
                                    float alpha);
    void (*bin_f64[CT_K_BIN_COUNT])(int64_t n, double *o, const double *a, const double *b,
                                    double alpha);
    /* The binary loops with a broadcast operand: bit 0 of bc set, a is one element for every i;
     * bit 1, b (bc 0: both contiguous, as bin_*). The bin_* loops' bits. */
    void (*binbc_f32[CT_K_BIN_COUNT])(int64_t n, float *o, const float *a, const float *b, int bc,
                                      float alpha);
    void (*binbc_f64[CT_K_BIN_COUNT])(int64_t n, double *o, const double *a, const double *b,
                                      int bc, double alpha);
    void (*un_f32[CT_K_UN_COUNT])(int64_t n, float *o, const float *a);
    void (*un_f64[CT_K_UN_COUNT])(int64_t n, double *o, const double *a);
    /* Ternary ops, the generic loops' bits: ADDCMUL fma(v b, c, a), ADDCDIV fma(v, b / c, a), LERP
     * of a, b with weight c (v unused). Contiguous o; bit k of bc set: operand k (a, b, c) is one
     * element for every i (broadcast), else contiguous. NULL (the ref build: no hardware fma)
     * leaves the generic loop. */
    void (*tern_f32[CT_K_TERN_COUNT])(int64_t n, float *o, const float *a, const float *b,
                                      const float *c, int bc, float v);
    void (*tern_f64[CT_K_TERN_COUNT])(int64_t n, double *o, const double *a, const double *b,
                                      const double *c, int bc, double v);
    float (*red_f32[CT_K_RED_COUNT])(int64_t n, const float *x);
    double (*red_f64[CT_K_RED_COUNT])(int64_t n, const double *x);
    /* One softmax row (log_softmax when log != 0), contiguous. */
    void (*softmax_f32)(int64_t n, float *o, const float *x, int log);
    /* rows contiguous rows of n (row stride n), each as softmax_f32 */
    void (*softmax_rows_f32)(int64_t rows, int64_t n, float *o, const float *x, int log);
    /* c (M, N) = a (M, K) @ b (K, N), f32; a and c rows with leading dims lda / ldc and unit
     * column stride, b with strides (bsk, bsn): each element the sum over k in order of the exact
     * products in double, rounded once (the portable matmul's numbers; every ISA gives the same
     * bits). */
    void (*matmul_f32)(int64_t M, int64_t N, int64_t K, const float *a, int64_t lda, const float *b,
                       int64_t bsk, int64_t bsn, float *c, int64_t ldc);
    /* o[c] = src 4-byte element ix[c] for c < count (contiguous o, ix, src); an index outside
     * [0, n) reads element 0 and makes the return value nonzero. stream: non-temporal stores
     * (the caller fences). Every ISA gives the same bits. */
    int (*gather_b32_i64)(uint32_t *o, const int64_t *ix, const uint32_t *src, int64_t count,
                          uint64_t n, int stream);
    /* Column sums: acc[j] += x[r * rs + j] for rows r < nrows, j < w, each column adding its rows
     * in order (every ISA gives the same bits). */
    void (*col_sum_float)(double *acc, const float *x, int64_t w, int64_t nrows, int64_t rs);
    void (*col_sum_double)(double *acc, const double *x, int64_t w, int64_t nrows, int64_t rs);
    /* Two ops in one pass (fused graph chains): o = op2(op1(a, b, al1), c, al2), the same bits
     * as the two single loops in turn. Index: CT_K_ADD..CT_K_DIV, then CT_K_PAIR_UN + CT_K_NEG,
     * ABS, RELU, SQRT (a unary op ignores b or c). */
    void (*pair_f32[CT_K_PAIR_COUNT][CT_K_PAIR_COUNT])(int64_t n, float *o, const float *a,
                                                       const float *b, const float *c, float al1,
                                                       float al2);
    void (*pair_f64[CT_K_PAIR_COUNT][CT_K_PAIR_COUNT])(int64_t n, double *o, const double *a,
                                                       const double *b, const double *c, double al1,
                                                       double al2);
} ct_k_isa;

extern const ct_k_isa ct_k_isa_ref, ct_k_isa_avx2, ct_k_isa_avx512;
/* The same tables without red_*, col_sum_* and pair_* (NULL): for the kernels that use none of
 * them (elementwise loops through ct_k_ew_drive, softmax), linked alone by the runtime's small
 * kernel set. */
extern const ct_k_isa ct_k_ref_isa_lite, ct_k_avx2_isa_lite, ct_k_avx512_isa_lite;
/* CT_OP_SOFTMAX / LOG_SOFTMAX (ref/reduce.c). */
ct_status ct_k_softmax(const ct_op_desc *op, const ct_k_isa *isa);

/* Run any op except CT_OP_MATMUL with the portable kernels. Returns CT_ERR_UNSUPPORTED for an
 * op/dtype combination the kernels lack, CT_ERR_INDEX for an out-of-range embedding index. */
ct_status ct_k_run(const ct_op_desc *op, const ct_k_isa *isa);
/* Portable batched matmul (naive, blocked) for f32/f64; operands (B,M,N) (B,M,K) (B,K,N). */
ct_status ct_k_matmul_ref(const ct_op_desc *op);
/* The same with the ISA's f32 loop where rows are contiguous (bit-identical to ct_k_matmul_ref). */
ct_status ct_k_matmul(const ct_op_desc *op, const ct_k_isa *isa);
/* CT_OP_LINSPACE and CT_OP_TRIL (ref/shape.c). */
ct_status ct_k_linspace(const ct_op_desc *op);
ct_status ct_k_tril(const ct_op_desc *op);
/* CT_OP_GATHER / CT_OP_SCATTER (ref/shape.c): CT_ERR_INDEX when an index is outside [0, size of
 * the indexed dim); scatter then writes nothing, gather (whose output is always a new tensor)
 * may have written part of its output. */
ct_status ct_k_gather(const ct_op_desc *op, const ct_k_isa *isa);
ct_status ct_k_scatter(const ct_op_desc *op);
/* CT_OP_SORT (ref/shape.c): stable merge sort of each row, NaN largest (as torch). */
ct_status ct_k_sort(const ct_op_desc *op);
/* CT_OP_TOPK (ref/shape.c): the first ints[0] elements of each row in CT_OP_SORT's order. */
ct_status ct_k_topk(const ct_op_desc *op);

/* gelu, tanh form, of an f32 (or f16 / bf16) value: 0.5 x (1 + tanh u), u = sqrt(2/pi) (x +
 * 0.044715 x^3), evaluated in double as x / (1 + exp(-2u)) (the same function; 1 + tanh u cancels
 * for x < 0, which this does not). One definition for the reference and the ISA loops, so every ISA
 * and the fused chains give the same bits. */
static inline float ct_k_gelu_tanh_f32(float x) {
    const double xd = x, u = 0.79788456080286535588 * (xd + 0.044715 * xd * xd * xd);
    return (float)(xd / (1.0 + exp(-2.0 * u)));
}

/* Slot of an op kind in the ISA table's bin_* / un_* arrays, or -1. */
static inline int ct_k_bin_index(ct_op_kind k) {
    return k == CT_OP_ADD   ? CT_K_ADD
           : k == CT_OP_SUB ? CT_K_SUB
           : k == CT_OP_MUL ? CT_K_MUL
           : k == CT_OP_DIV ? CT_K_DIV
                            : -1;
}
static inline int ct_k_un_index(ct_op_kind k) {
    return k == CT_OP_NEG       ? CT_K_NEG
           : k == CT_OP_ABS     ? CT_K_ABS
           : k == CT_OP_RELU    ? CT_K_RELU
           : k == CT_OP_SQRT    ? CT_K_SQRT
           : k == CT_OP_EXP     ? CT_K_EXP
           : k == CT_OP_SIGMOID ? CT_K_SIGMOID
           : k == CT_OP_LOG     ? CT_K_LOG
           : k == CT_OP_TANH    ? CT_K_TANH
                                : -1;
}

/* Philox4x32-10: 4 random words for a 128-bit counter and 64-bit key. */
void ct_k_philox(uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Elements per thread below which ops stay on one thread. */
#define CT_K_PAR_THRESHOLD 32768

#endif

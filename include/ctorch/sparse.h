/* ctorch semi-structured (2:4) sparsity: a [M, K] matrix that keeps two values of every four
 * consecutive ones along K, compressed to values [M, K/2] (f32, bf16 or FP8 E4M3 / E5M2 with
 * per-row f32 scales) plus 2-bit position metadata, and a sparse matmul / linear layer that
 * multiplies only the kept values (torch.sparse.to_sparse_semi_structured, torch._cslt_sparse_mm).
 * Layout, summation order and measurements: docs/sparse.md.
 *
 * Ownership: the creating calls give the caller an owned ct_sparse24, freed with ct_sparse24_free
 * (NULL is a no-op) before its context is freed. The accessors return borrowed tensors that live
 * as long as the sparse matrix (retain them to keep them longer).
 * Thread-safety: as the context the matrix belongs to (not thread-safe). */
#ifndef CTORCH_SPARSE_H
#define CTORCH_SPARSE_H

#include "ctorch/core.h"
#include "ctorch/dtype.h"
#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A [M, K] matrix, 2:4 along K, compressed. Opaque. */
typedef struct ct_sparse24 ct_sparse24;

/* Options of the compressing calls (size = sizeof(ct_sparse24_options); NULL: defaults). */
typedef struct ct_sparse24_options {
    size_t size;
    /* FP8 values only: per-row f32 scales [M] (value = code * scale) to use instead of the
     * default max|row| / format max; NULL: the default. Meant to be positive and finite (not
     * checked: a 0 or non-finite scale gives NaN or infinite codes, as the casts do). */
    const ct_tensor *scales;
} ct_sparse24_options;

/* Keep the two largest |x| of every group of 4 along the last dim of the 2-d f32/bf16/f16 dense
 * [M, K] (ties: the lower index; NaN counts as largest), then compress. values_dtype: CT_FLOAT32,
 * CT_BFLOAT16 (round to nearest even), CT_FLOAT8_E4M3FN or CT_FLOAT8_E5M2 (x / scale encoded with
 * saturation, scale per row = max finite |x| / 448 or 57344, 1 for a row of zeros). K must be a
 * multiple of 4 (CT_ERR_SHAPE otherwise). */
CT_API ct_status ct_sparse24_prune(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                                   ct_sparse24 **out);
/* ct_sparse24_prune with options (given FP8 scales). */
CT_API ct_status ct_sparse24_prune_ex(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                                      const ct_sparse24_options *opts, ct_sparse24 **out);
/* Compress a matrix that already is 2:4 (at most two non-zeros per group; where fewer, -0.0 then
 * the lowest positions fill the pair, so f32 round trips are bit-exact). CT_ERR_INVALID_ARG
 * naming the first group that is not (row, columns). Reads the check on the host: refused while
 * capturing. */
CT_API ct_status ct_sparse24_from_dense(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                                        ct_sparse24 **out);
/* ct_sparse24_from_dense with options (given FP8 scales). */
CT_API ct_status ct_sparse24_from_dense_ex(ct_ctx *ctx, const ct_tensor *dense,
                                           ct_dtype values_dtype, const ct_sparse24_options *opts,
                                           ct_sparse24 **out);
/* Build from stored parts (a weight file): values [M, K/2] (f32, bf16, FP8), metadata uint8
 * [M, ceil(K/8)], scales f32 [M] (FP8 only, else NULL). The parts are copied; every metadata
 * nibble is checked on the host (CT_ERR_FORMAT naming the first bad one; refused while capturing).
 */
CT_API ct_status ct_sparse24_from_parts(ct_ctx *ctx, int64_t rows, int64_t cols,
                                        const ct_tensor *values, const ct_tensor *metadata,
                                        const ct_tensor *scales, ct_sparse24 **out);
/* Decompress to a new contiguous [M, K] tensor of dtype f32, bf16 or f16 (dropped values +0). */
CT_API ct_status ct_sparse24_to_dense(ct_ctx *ctx, const ct_sparse24 *s, ct_dtype dtype,
                                      ct_tensor **out);

/* Options of ct_sparse24_mm_ex (size = sizeof(ct_sparse24_mm_options); NULL: defaults). */
typedef struct ct_sparse24_mm_options {
    size_t size;
    double b_scale; /* B's values are B's elements times b_scale (FP8 B); 0 means 1 */
} ct_sparse24_mm_options;

/* out = alpha * (A @ B) + bias[:, None]: A sparse [M, K], B dense [K, N] (f32, bf16, f16 or FP8,
 * any strides), bias [M] (float) or NULL, f32 accumulation, out_dtype f32 or bf16
 * (torch._cslt_sparse_mm). Only the kept values are multiplied. */
CT_API ct_status ct_sparse24_mm(ct_ctx *ctx, const ct_sparse24 *a, const ct_tensor *b,
                                const ct_tensor *bias, double alpha, ct_dtype out_dtype,
                                ct_tensor **out);
/* ct_sparse24_mm with options (B's scale). */
CT_API ct_status ct_sparse24_mm_ex(ct_ctx *ctx, const ct_sparse24 *a, const ct_tensor *b,
                                   const ct_tensor *bias, double alpha, ct_dtype out_dtype,
                                   const ct_sparse24_mm_options *opts, ct_tensor **out);
/* y = x @ W^T + b with W sparse [out_features, in_features]: x (..., in_features) f32 or bf16,
 * b [out_features] or NULL; y (..., out_features) in x's dtype (inference linear layer). */
CT_API ct_status ct_sparse24_linear(ct_ctx *ctx, const ct_tensor *x, const ct_sparse24 *w,
                                    const ct_tensor *b, ct_tensor **out);
/* Free a sparse matrix (NULL is a no-op). */
CT_API void ct_sparse24_free(ct_sparse24 *s);

/* ---- accessors (s == NULL: NULL / 0 / CT_DTYPE_COUNT) ---- */
/* Kept values [M, K/2] in k order, dtype as compressed (FP8: codes of the FP8 dtype). */
CT_API ct_tensor *ct_sparse24_values(const ct_sparse24 *s);
/* Metadata uint8 [M, ceil(K/8)]: group 2j in the low nibble of byte j (docs/sparse.md). */
CT_API ct_tensor *ct_sparse24_metadata(const ct_sparse24 *s);
/* Per-row f32 scales [M] of FP8 values (value = code * scale); NULL for f32 / bf16 values. */
CT_API ct_tensor *ct_sparse24_scales(const ct_sparse24 *s);
/* The logical shape {M, K}. */
CT_API const int64_t *ct_sparse24_shape(const ct_sparse24 *s);
/* The values' dtype. */
CT_API ct_dtype ct_sparse24_dtype(const ct_sparse24 *s);

#ifdef __cplusplus
}
#endif
#endif

/* ctorch low-precision casts and OCP Microscaling (MX v1.0) tensors: element casts for FP8 / FP6 /
 * FP4 / E8M0 (and f16 / bf16), MX quantize / dequantize along any axis, GGUF MXFP4 block
 * conversion, and an MX linear layer that dequantises weights inside its kernel.
 *
 * Ownership: ct_mx_quantize and ct_mx_from_gguf_mxfp4 give the caller an owned ct_mx_tensor, freed
 * with ct_mx_tensor_free (NULL is a no-op) before its context is freed. ct_mx_codes/ct_mx_scales
 * return borrowed tensors that live as long as the MX tensor (retain them to keep them longer).
 * Thread-safety: the element casts have no context and are thread-safe; everything taking a ct_ctx
 * is as thread-safe as that context (not). See docs/mx.md for formats and layouts. */
#ifndef CTORCH_MX_H
#define CTORCH_MX_H

#include "ctorch/core.h"
#include "ctorch/dtype.h"
#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- element casts (raw buffers, one code per byte; f16/bf16: one uint16 per element) ---- */

/* DEFAULT follows numpy astype via ml_dtypes (E4M3 overflow -> NaN, E5M2 -> +-Inf, FP6/FP4 ->
 * +-max); SATURATE clamps finite overflow to +-max (Inf stays Inf in E5M2, becomes NaN in E4M3). */
typedef enum { CT_CAST_DEFAULT, CT_CAST_SATURATE } ct_cast_mode;

/* Encode n floats into codes of `dst` (FP8/FP6/FP4/E8M0: one byte each, FP6/FP4 in the low bits
 * with the sign at bit 5 / bit 3; f16/bf16: uint16). Round to nearest, ties to even.
 * CT_ERR_DTYPE for other dtypes, CT_ERR_INVALID_ARG for NULL buffers with n > 0. */
CT_API ct_status ct_cast_f32_to(ct_dtype dst, const float *src, void *dst_codes, size_t n,
                                ct_cast_mode);
/* Decode n codes of dtype `src` to f32 (exact). Bits above an FP6/FP4 code's width are ignored. */
CT_API ct_status ct_cast_to_f32(ct_dtype src, const void *codes, float *dst, size_t n);

/* ---- MX tensors ---- */

typedef enum ct_mx_format {
    CT_MXFP8_E4M3 = 0,
    CT_MXFP8_E5M2 = 1,
    CT_MXFP6_E3M2 = 2,
    CT_MXFP6_E2M3 = 3,
    CT_MXFP4_E2M1 = 4,
    CT_MXINT8 = 5,
    CT_MX_FORMAT_COUNT
} ct_mx_format;

/* FLOOR: OCP shared exponent floor(log2(amax)) - emax_elem (large elements saturate).
 * RCEIL: scale 2^ceil(log2(amax / max_elem)), never clips. */
typedef enum ct_mx_scale_mode { CT_MX_SCALE_FLOOR = 0, CT_MX_SCALE_RCEIL = 1 } ct_mx_scale_mode;

/* Codes plus E8M0 scales plus the logical shape. Opaque. Every call refuses tensors and MX
 * tensors of another context with CT_ERR_INVALID_ARG (as the ops do). */
typedef struct ct_mx_tensor ct_mx_tensor;

/* Quantize f32/bf16/f16 tensor x (any strides) in blocks of block_size (OCP: 32) consecutive
 * elements along `axis` (negative counts from the end); the last block of each line may be short.
 */
CT_API ct_status ct_mx_quantize(ct_ctx *ctx, const ct_tensor *x, ct_mx_format format,
                                int block_size, int axis, ct_mx_scale_mode scale_mode,
                                ct_mx_tensor **out);
/* Dequantize to a new contiguous tensor of the original shape; dtype f32, bf16 or f16.
 * Blocks whose scale is 0xFF (NaN) become NaN. */
CT_API ct_status ct_mx_dequantize(ct_ctx *ctx, const ct_mx_tensor *q, ct_dtype dtype,
                                  ct_tensor **out);
/* Dequantize into an existing contiguous CPU tensor of q's shape (f32, bf16 or f16): no output
 * allocation (an axis other than the last, or a non-f32 dtype, still uses one f32 temporary). */
CT_API ct_status ct_mx_dequantize_into(ct_ctx *ctx, const ct_mx_tensor *q, ct_tensor *out);
/* y = x @ W^T + bias with W (N x K) an MX tensor blocked along axis 1 (its last axis); x is
 * (..., K) f32 or bf16, bias (N) or NULL; y is (..., N) in x's dtype. W is dequantised block by
 * block inside the kernel (never as a whole f32 matrix); OpenMP over output columns. */
CT_API ct_status ct_mx_linear(ct_ctx *ctx, const ct_tensor *x, const ct_mx_tensor *w,
                              const ct_tensor *bias, ct_tensor **y);
/* Free an MX tensor (NULL is a no-op). */
CT_API void ct_mx_tensor_free(ct_mx_tensor *q);

/* ---- metadata (q == NULL: format CT_MX_FORMAT_COUNT, block size 0, axis -1, ndim 0, shape /
 * codes / scales NULL) ---- */
/* Element format of q. */
CT_API ct_mx_format ct_mx_format_of(const ct_mx_tensor *q);
/* Elements per scale block. */
CT_API int ct_mx_block_size(const ct_mx_tensor *q);
/* Blocking axis in the original shape (non-negative). */
CT_API int ct_mx_axis(const ct_mx_tensor *q);
/* Number of dims of the original shape. */
CT_API int ct_mx_ndim(const ct_mx_tensor *q);
/* Original (logical) shape, ndim entries. */
CT_API const int64_t *ct_mx_shape(const ct_mx_tensor *q);
/* Element codes, uint8 (int8 for MXINT8): the original shape with `axis` moved last; FP4 packs two
 * codes per byte along that last dim (ceil(L/2) bytes per line, element 2i in the low nibble). */
CT_API ct_tensor *ct_mx_codes(const ct_mx_tensor *q);
/* E8M0 scales (dtype float8_e8m0fnu): the codes' shape with the last dim replaced by ceil(L/bs). */
CT_API ct_tensor *ct_mx_scales(const ct_mx_tensor *q);
/* Short name of a format ("mxfp4_e2m1", ...) or "invalid". */
CT_API const char *ct_mx_format_name(ct_mx_format f);

/* ---- GGUF MXFP4 (ggml block_mxfp4: 17 bytes = E8M0 byte, then 16 bytes where byte j holds
 * element j in the low nibble and element j + 16 in the high nibble) ---- */

/* Build an MXFP4 tensor (block 32 along the last axis) from `nbytes` of GGUF blocks in row-major
 * order; the last dim must be a multiple of 32 and nbytes must equal numel / 32 * 17 (else
 * CT_ERR_FORMAT). A shape whose element count or float32 byte size / strides overflow int64
 * (zero dims included) is CT_ERR_OVERFLOW. */
CT_API ct_status ct_mx_from_gguf_mxfp4(ct_ctx *ctx, const void *blocks, size_t nbytes, int ndim,
                                       const int64_t *shape, ct_mx_tensor **out);
/* Write q (MXFP4, block 32, last axis, last dim a multiple of 32) as GGUF blocks into dst of
 * exactly numel / 32 * 17 bytes. */
CT_API ct_status ct_mx_to_gguf_mxfp4(ct_ctx *ctx, const ct_mx_tensor *q, void *dst, size_t nbytes);

#ifdef __cplusplus
}
#endif
#endif

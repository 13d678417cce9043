/* ctorch dtypes: the dtype enum, its table (PyTorch and safetensors names, bits, kind) and the
 * f16/bf16 scalar conversions (round to nearest, ties to even).
 * Thread-safety: everything here is pure and thread-safe. */
#ifndef CTORCH_DTYPE_H
#define CTORCH_DTYPE_H

#include "ctorch/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ct_dtype {
    CT_BOOL = 0,
    CT_UINT8,
    CT_INT8,
    CT_INT16,
    CT_INT32,
    CT_INT64,
    CT_FLOAT16,
    CT_BFLOAT16,
    CT_FLOAT32,
    CT_FLOAT64,
    CT_FLOAT8_E4M3FN,
    CT_FLOAT8_E5M2,
    CT_FLOAT6_E3M2FN,
    CT_FLOAT6_E2M3FN,
    CT_FLOAT4_E2M1FN,
    CT_FLOAT8_E8M0FNU,
    CT_COMPLEX64,  /* two float32: real, imaginary (C's float _Complex layout) */
    CT_COMPLEX128, /* two float64: real, imaginary */
    CT_DTYPE_COUNT
} ct_dtype;

typedef enum ct_dtype_kind {
    CT_KIND_BOOL = 0,
    CT_KIND_UINT,
    CT_KIND_INT,
    CT_KIND_FLOAT,  /* IEEE-like float with sign */
    CT_KIND_SCALE,  /* unsigned exponent-only scale (E8M0) */
    CT_KIND_COMPLEX /* a pair of IEEE floats (real, imaginary) */
} ct_dtype_kind;

typedef struct ct_dtype_info {
    ct_dtype dtype;
    const char *name;             /* PyTorch name without "torch.", e.g. "float8_e4m3fn" */
    const char *safetensors_name; /* e.g. "F8_E4M3"; NULL where safetensors has none */
    int bits;                     /* bits per element (4 for fp4, 6 for fp6) */
    int itemsize; /* bytes one element occupies in an unpacked buffer (1 for fp4/fp6) */
    ct_dtype_kind kind;
} ct_dtype_info;

/* Table entry of a dtype, or NULL for an invalid value. */
CT_API const ct_dtype_info *ct_dtype_get_info(ct_dtype dt);
/* PyTorch name of a dtype ("float32"); "invalid" for bad values. */
CT_API const char *ct_dtype_name(ct_dtype dt);
/* Bytes per element in tensor storage (1 for the sub-byte formats; 0 for invalid values). */
CT_API size_t ct_dtype_size(ct_dtype dt);
/* Look up a dtype by PyTorch name ("float32", "torch.float32"), safetensors name ("F32", "BF16",
 * "F8_E4M3") or short form ("f32", "bf16"). CT_ERR_INVALID_ARG if unknown. */
CT_API ct_status ct_dtype_from_name(const char *name, ct_dtype *out);
/* True for floating dtypes (f16, bf16, f32, f64 and the low-precision floats; not complex, as
 * torch.is_floating_point). */
CT_API bool ct_dtype_is_floating(ct_dtype dt);
/* True for complex64 and complex128. */
CT_API bool ct_dtype_is_complex(ct_dtype dt);
/* The real dtype of a complex one (complex64 -> float32, complex128 -> float64); other dtypes are
 * returned unchanged. */
CT_API ct_dtype ct_dtype_to_real(ct_dtype dt);
/* The complex dtype holding a floating one (float16 / bfloat16 / float32 -> complex64, float64 ->
 * complex128; complex dtypes unchanged); CT_DTYPE_COUNT for the rest (torch has no complex of
 * integers). */
CT_API ct_dtype ct_dtype_to_complex(ct_dtype dt);
/* Dtype torch.promote_types would give for two dtypes; CT_ERR_DTYPE for low-precision formats. */
CT_API ct_status ct_dtype_promote(ct_dtype a, ct_dtype b, ct_dtype *out);

/* IEEE binary16 and bfloat16 conversions, round to nearest even; NaN stays NaN. */
CT_API uint16_t ct_f32_to_f16(float f);
CT_API float ct_f16_to_f32(uint16_t h);
CT_API uint16_t ct_f32_to_bf16(float f);
CT_API float ct_bf16_to_f32(uint16_t h);

#ifdef __cplusplus
}
#endif
#endif

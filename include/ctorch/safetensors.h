/* ctorch safetensors: read and write weight files in the published safetensors format (8-byte
 * little-endian header length, a JSON header of named tensors with dtype, shape and data offsets and
 * an optional string map "__metadata__", then the tensor bytes). Every dtype ctorch has: BOOL, U8,
 * I8, I16, I32, I64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0, and the packed sub-byte F4,
 * F6_E2M3, F6_E3M2 (elements packed least significant bits first). Files are untrusted: every
 * malformed header, dtype, shape or offset is CT_ERR_FORMAT with the field and byte offset, never a
 * crash. Format notes and limits: docs/safetensors.md.
 * Ownership: a ct_safetensors keeps the file mapped until ct_safetensors_free (before its context
 * is freed); tensors from ct_safetensors_get are new tensors the caller releases.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_SAFETENSORS_H
#define CTORCH_SAFETENSORS_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_safetensors ct_safetensors;

/* Map and verify a .safetensors file. CT_ERR_IO (cannot open/map, with the OS reason),
 * CT_ERR_FORMAT (malformed: the message names the field and byte offset), CT_ERR_DTYPE (a dtype
 * ctorch does not have, e.g. U16), CT_ERR_OOM. */
CT_API ct_status ct_safetensors_load(ct_ctx *ctx, const char *path, ct_safetensors **out);
/* The same from bytes in memory (copied; the caller's buffer may be freed afterwards). */
CT_API ct_status ct_safetensors_load_buffer(ct_ctx *ctx, const void *data, size_t size,
                                            ct_safetensors **out);
/* Number of tensors in the file (0 for NULL). */
CT_API int ct_safetensors_count(const ct_safetensors *f);
/* Name of tensor i in file order of its data (NULL when i is out of range). */
CT_API const char *ct_safetensors_name(const ct_safetensors *f, int i);
/* A new CPU tensor holding the named tensor's values (sub-byte formats unpacked, one element per
 * byte). CT_ERR_INDEX when no tensor has that name. */
CT_API ct_status ct_safetensors_get(const ct_safetensors *f, const char *name, ct_tensor **out);
/* Value of a "__metadata__" key, or NULL (borrowed; lives as long as f). */
CT_API const char *ct_safetensors_metadata(const ct_safetensors *f, const char *key);
/* Unmap and free (NULL is a no-op). */
CT_API void ct_safetensors_free(ct_safetensors *f);
/* Write n named tensors (any device, layout or dtype ctorch has) and optional metadata given as
 * NULL-terminated key, value pairs ({"format", "pt", NULL}) to path. The data starts 64-byte
 * aligned and tensors are ordered by element size (largest first), then name, so each is aligned
 * to its element size. Written to a temporary file beside path (path.tmp.XXXXXX), synced and
 * renamed: a failure leaves no partial file. */
CT_API ct_status ct_safetensors_save(ct_ctx *ctx, const char *path, int n,
                                     const char *const *names, const ct_tensor *const *tensors,
                                     const char *const *metadata);

#ifdef __cplusplus
}
#endif
#endif

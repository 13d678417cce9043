/* ctorch tensor I/O on the host: printing as torch prints, NumPy .npy files.
 * These read tensor data on the host, so during graph capture they are refused (as
 * ct_tensor_to_host). Errors are recorded on the tensor's (or the given) context.
 * Ownership: ct_tensor_to_string's string is malloc'd (free() it); loads give a new tensor
 * reference. Thread-safety: as the owning ct_ctx. Little-endian hosts. */
#ifndef CTORCH_IO_H
#define CTORCH_IO_H

#include "ctorch/tensor.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* torch.set_printoptions: how ct_tensor_print / ct_tensor_to_string format the tensors of a
 * context. precision: digits after the point (0..30); threshold: more elements than this are
 * summarized (INT64_MAX: never, torch's "full"; a negative one: always); edgeitems: entries shown
 * at each end of a summarized dim (>= 1; torch's 0 is a Python slicing accident); linewidth:
 * characters per line before wrapping (>= 1); sci_mode: -1 torch's choice (None), 0 never
 * scientific, 1 always. */
typedef struct ct_print_options {
    size_t size; /* sizeof(ct_print_options) (ct_print_options_default sets it) */
    int precision;
    int64_t threshold;
    int edgeitems;
    int linewidth;
    int sci_mode;
} ct_print_options;
/* torch's defaults: precision 4, threshold 1000, edgeitems 3, linewidth 80, sci_mode -1. */
CT_API ct_print_options ct_print_options_default(void);
/* torch's profiles: "default", "short" (precision 2, edgeitems 2) or "full" (never summarized);
 * CT_ERR_INVALID_ARG for another name. */
CT_API ct_status ct_print_options_profile(const char *profile, ct_print_options *opts);
/* Use opts (NULL: the defaults) for ctx's tensors from now on; CT_ERR_INVALID_ARG for a value
 * outside the ranges above (nothing changes then). */
CT_API ct_status ct_set_print_options(ct_ctx *ctx, const ct_print_options *opts);
/* ctx's current options (the defaults for a NULL ctx). */
CT_API ct_print_options ct_get_print_options(const ct_ctx *ctx);

/* Write t formatted as torch 1.13's print(t) (precision 4, sci mode, `...` summaries above 1000
 * elements, `dtype=` when not float32/int64/bool; ct_set_print_options changes these) and a
 * newline to f. */
CT_API ct_status ct_tensor_print(FILE *f, const ct_tensor *t);
/* The same text as a malloc'd string without the final newline (release with free()). */
CT_API ct_status ct_tensor_to_string(const ct_tensor *t, char **out);

/* Read a .npy file (versions 1.0-3.0, C or Fortran order, any byte order, 0-d arrays; bool, uint8,
 * int8-64, float16/32/64, complex64/128) into a new contiguous tensor. A malformed file:
 * CT_ERR_FORMAT naming the field and byte offset; a NumPy dtype ctorch lacks: CT_ERR_DTYPE; an
 * unreadable path: CT_ERR_IO.
 */
CT_API ct_status ct_npy_load(ct_ctx *ctx, const char *path, ct_tensor **out);
/* ct_npy_load from the bytes of a .npy file in memory. */
CT_API ct_status ct_npy_load_buffer(ct_ctx *ctx, const void *data, size_t size, ct_tensor **out);
/* Write t (any strides) as a version 1.0 .npy file in C order, little-endian. bfloat16 and the
 * low-precision formats have no NumPy dtype: CT_ERR_DTYPE. */
CT_API ct_status ct_npy_save(ct_ctx *ctx, const ct_tensor *t, const char *path);

#ifdef __cplusplus
}
#endif
#endif

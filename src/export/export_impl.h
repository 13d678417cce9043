/* Internal pieces of export shared with the program loader and the CLI. */
#ifndef CTORCH_EXPORT_IMPL_H
#define CTORCH_EXPORT_IMPL_H

#include "ctorch/export.h"

/* True for the op kinds the embedded runtime runs (src/runtime/rt.c keeps the same list). */
bool ct__export_op_supported(ct_op_kind k);
/* MX codes (rows, row_bytes) as a new tensor of element dtype dt (rows, row_len), one code per
 * byte (FP4 nibbles split, element 2i in the low nibble). */
ct_status ct__export_mx_elements(ct_ctx *ctx, const ct_tensor *codes, ct_dtype dt, int64_t rows,
                                 int64_t row_len, int64_t row_bytes, ct_tensor **out);

#endif

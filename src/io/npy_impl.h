/* Internal: the .npy encoder shared by ct_npy_save and the .npz writer. */
#ifndef CTORCH_IO_NPY_IMPL_H
#define CTORCH_IO_NPY_IMPL_H

#include "ctorch/tensor.h"

#include <stddef.h>
#include <stdint.h>

/* NumPy's descr of dt ("<f4"), or NULL when NumPy has no such dtype. */
const char *ct__npy_descr(ct_dtype dt);
/* The bytes of t as a .npy file (version 1.0, C order, data 64-byte aligned) in a new ct__alloc
 * buffer *buf of *n bytes; who names the caller in messages. */
ct_status ct__npy_encode(ct_ctx *ctx, const char *who, const ct_tensor *t, uint8_t **buf,
                         size_t *n);

#endif

/* Private helpers shared by the linear algebra front ends (dense.c, linalg_more.c). */
#ifndef CTORCH_LINALG_IMPL_H
#define CTORCH_LINALG_IMPL_H

#include "core/internal.h"
#include "tensor/tensor_impl.h"

/* CT_ERR_SHAPE (torch's wording) unless a is a batch of square matrices; `what` names it. */
ct_status ct__la_square_check(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *a);
/* CT_OK when t is float32, float64, complex64 or complex128 (the dtypes torch's CPU linear
 * algebra computes); CT_ERR_DTYPE naming op and what otherwise */
ct_status ct__la_float(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t);
/* linalg.eigh of a complex Hermitian batch (dense.c): real eigenvalues, complex eigenvectors
 * (v_out NULL: none), info_out NULL: a failed convergence is an error */
ct_status ct__linalg_eigh_cx(ct_ctx *ctx, const char *op, const ct_tensor *a, bool upper,
                             ct_tensor **w_out, ct_tensor **v_out, ct_tensor **info_out);

#endif

/* Private helpers shared by the linear algebra front ends (dense.c, linalg_more.c). */
#ifndef CTORCH_LINALG_IMPL_H
#define CTORCH_LINALG_IMPL_H

#include "core/internal.h"
#include "tensor/tensor_impl.h"

/* CT_ERR_SHAPE (torch's wording) unless a is a batch of square matrices; `what` names it. */
ct_status ct__la_square_check(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *a);

#endif

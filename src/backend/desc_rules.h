/* Context-free structure rules of op descriptors (backend.h): operand counts per kind and the
 * shape / dtype rule of every kind the kernels assume. Used by the public submit entry
 * (backend/registry.c, which adds the checks of the domain kinds that need the CPU plans) and by
 * the embedded runtime's loader, which checks every instruction of an untrusted program file with
 * the same rules. */
#ifndef CTORCH_BACKEND_DESC_RULES_H
#define CTORCH_BACKEND_DESC_RULES_H

#include "ctorch/backend.h"

#include <stdbool.h>

/* Inputs kind k takes: [*lo, *hi]; false for an invalid kind. */
bool ct__desc_arity(int k, int *lo, int *hi);
/* Outputs kind k has (unused ones of domain ops are absent). */
int ct__desc_outputs(ct_op_kind k);
/* Operand i of kind k may be absent (data NULL). */
bool ct__desc_optional_operand(ct_op_kind k, int i);
/* Operand i of kind k is written by the kernel: an output, or a workspace input (eigh, mx, sort,
 * sparse mm and attention work buffers). */
bool ct__desc_operand_written(ct_op_kind k, int n_out, int i);
/* Kind k is one the embedded runtime runs, so export accepts it: everything but the kinds that
 * need LAPACK, the optimizer state, 2:4 compression or the attention plans. */
bool ct__desc_runtime_kind(int k);
/* The shape / dtype rule of op's kind: 1 kept, 0 broken (*rule names it), -1 a domain kind this
 * file does not check (eigh, optim_step, linalg, flex attention). Operands must already
 * be individually sane (ndim in range, sizes >= 0). */
int ct__desc_rule(const ct_op_desc *op, const char **rule);

static inline bool ct__contig2(const ct_operand *o, int ndim, int64_t d0, int64_t d1, int64_t d2) {
    const int64_t want[3] = {d0, d1, d2};
    if (!o->data || o->ndim != ndim) return false;
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        if (o->shape[d] != want[d] || (o->shape[d] != 1 && o->strides[d] != s)) return false;
        s *= o->shape[d];
    }
    return true;
}

static inline bool ct__same_shape(const ct_operand *a, const ct_operand *b) {
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

/* Row-major contiguous (size-1 dims may have any stride). */
static inline bool ct__is_contiguous(const ct_operand *o) {
    int64_t s = 1;
    for (int d = o->ndim - 1; d >= 0; d--) {
        if (o->shape[d] != 1 && o->strides[d] != s) return false;
        s *= o->shape[d];
    }
    return true;
}

static inline bool ct__mx_float(ct_dtype dt) {
    return dt == CT_FLOAT32 || dt == CT_BFLOAT16 || dt == CT_FLOAT16;
}

#endif

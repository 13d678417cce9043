/* Internal: the runtime's executor with another kernel runner (the library's ct_program runs the
 * CPU backend's kernels, OpenBLAS included, through it). */
#ifndef CTORCH_RUNTIME_RT_IMPL_H
#define CTORCH_RUNTIME_RT_IMPL_H

#include "ctorch/backend.h"
#include "ctorch/runtime.h"

#include <stdio.h>

/* Runs one resolved, checked instruction. */
typedef ct_status (*ct__rt_kernel_fn)(void *user, const ct_op_desc *op);
/* ct_rt_run with fn for every kernel instruction (NULL: the runtime's own kernels). */
ct_status ct__rt_run_with(ct_rt_program *p, void *arena, size_t arena_size, ct__rt_kernel_fn fn,
                          void *user);

/* The weights section (a complete safetensors file; NULL and 0 when there is none). */
void ct__rt_weights_section(const ct_rt_program *p, const void **data, size_t *size);
/* A readable description: header, sections, symbols, inputs, outputs, ops, weights, memory plan. */
void ct__rt_describe(const ct_rt_program *p, FILE *f);

#endif

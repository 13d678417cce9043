/* Private helpers of the mx module: kernel table selection for a given ISA. */
#ifndef CTORCH_MX_INTERNAL_H
#define CTORCH_MX_INTERNAL_H

#include "backends/cpu/kernels/mx_kernels.h"

/* Kernel table of an ISA (0 ref, 1 avx2, 2 avx512; as ct__isa). */
const ct__mxk_ops *ct__mx_ops_for_isa(int isa);
/* ISA used by the context-free casts: CT_CPU_ISA if set and supported, else the best one.
 * Resolved once per process (part of the CPU-feature probe). */
int ct__mx_cast_isa(void);

#endif

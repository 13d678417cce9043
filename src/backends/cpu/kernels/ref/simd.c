/* The ref build of the contiguous f32/f64 loops (simd_body.inc). */
#define CT_SFX(name) ct_k_ref_##name
#define CT_ISA_NAME "ref"
#define CT_ISA_TABLE ct_k_isa_ref

#include "backends/cpu/kernels/simd_body.inc"

/* The avx512 build of the contiguous f32/f64 loops (simd_body.inc). */
#define CT_SFX(name) ct_k_avx512_##name
#define CT_ISA_NAME "avx512"
#define CT_ISA_TABLE ct_k_isa_avx512
#define CT_FAST_EXP 1
#include "backends/cpu/kernels/simd_body.inc"

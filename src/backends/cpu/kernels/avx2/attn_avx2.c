/* The avx2 build of the FlexAttention tile routines (attn_body.inc). */
#define CT_FA_SFX(name) ct__fa_avx2_##name
#define CT_FA_TABLE ct__fa_ops_avx2
#include "backends/cpu/kernels/attn_body.inc"

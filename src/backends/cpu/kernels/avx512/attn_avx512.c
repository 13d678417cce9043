/* The avx512 build of the FlexAttention tile routines (attn_body.inc). */
#define CT_FA_SFX(name) ct__fa_avx512_##name
#define CT_FA_TABLE ct__fa_ops_avx512
#include "backends/cpu/kernels/attn_body.inc"

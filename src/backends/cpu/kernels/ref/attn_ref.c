/* The ref build of the FlexAttention tile routines (attn_body.inc). */
#define CT_FA_SFX(name) ct__fa_ref_##name
#define CT_FA_TABLE ct__fa_ops_ref
#include "backends/cpu/kernels/attn_body.inc"

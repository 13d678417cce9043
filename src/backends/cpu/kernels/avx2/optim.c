/* The avx2 build of the fused optimizer loops (optim_body.inc). */
#define CT_SFX(name) ct_k_avx2_##name
#include "backends/cpu/kernels/optim_body.inc"

/* Fused optimizer step kernels (CT_OP_OPTIM_STEP): the hyper-parameters of one step, how they
 * travel in a ct_op_desc, and the per-ISA contiguous loops (optim_body.inc built for ref, avx2 and
 * avx512). Every build evaluates the same f32 formulas with fmaf written where an FMA is meant and
 * contraction off, so all ISAs give the same bits (docs/optim.md). */
#ifndef CTORCH_CPU_OPTIM_KERNELS_H
#define CTORCH_CPU_OPTIM_KERNELS_H

#include "backends/cpu/kernels/kernels.h"

#include <string.h>

enum { CT_K_OPT_SGD = 0, CT_K_OPT_ADAM = 1, CT_K_OPT_ADAMW = 2, CT_K_OPT_ADAGRAD = 3 };
enum {
    CT_K_OPT_MAXIMIZE = 1,
    CT_K_OPT_WD = 2,       /* SGD/Adam/Adagrad: g = fma(wd, p, g); AdamW: p = p * decay */
    CT_K_OPT_MOMENTUM = 4, /* SGD */
    CT_K_OPT_FIRST = 8,    /* SGD: the momentum buffer starts as g */
    CT_K_OPT_NESTEROV = 16,
    CT_K_OPT_AMSGRAD = 32,
    CT_K_OPT_LERP_HI = 64 /* Adam: lerp weight >= 0.5 takes torch's second lerp form */
};
/* f[] by kind (all already rounded to f32):
 *   SGD:     f0 wd, f1 momentum, f2 1 - dampening, f3 -lr
 *   Adam(W): f0 wd (Adam) or 1 - lr*wd (AdamW), f1 1 - beta1 (lerp weight), f2 beta2,
 *            f3 1 - beta2, f4 sqrt(1 - beta2^step), f5 eps, f6 -lr / (1 - beta1^step)
 *   Adagrad: f0 wd, f5 eps, f6 -lr / (1 + (step - 1) * lr_decay) */
typedef struct ct_k_optim_hp {
    int kind;
    unsigned flags;
    float f[8];
} ct_k_optim_hp;

static inline uint64_t ct_k__f2bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    return u;
}
static inline float ct_k__bits2f(uint64_t b) {
    uint32_t u = (uint32_t)b;
    float x;
    memcpy(&x, &u, 4);
    return x;
}
/* scalars[0..3] = f0..f3 (exact: each is an f32 value); ints[0] = kind | flags << 8; ints[1],
 * ints[2] = the bits of f4|f5 and f6|f7. */
static inline void ct_k_optim_pack(ct_op_desc *d, const ct_k_optim_hp *h) {
    for (int i = 0; i < 4; i++)
        d->scalars[i] = h->f[i];
    d->ints[0] = (int64_t)h->kind | (int64_t)h->flags << 8;
    d->ints[1] = (int64_t)(ct_k__f2bits(h->f[4]) | ct_k__f2bits(h->f[5]) << 32);
    d->ints[2] = (int64_t)(ct_k__f2bits(h->f[6]) | ct_k__f2bits(h->f[7]) << 32);
}
static inline void ct_k_optim_unpack(const ct_op_desc *d, ct_k_optim_hp *h) {
    for (int i = 0; i < 4; i++)
        h->f[i] = (float)d->scalars[i];
    h->kind = (int)(d->ints[0] & 0xff);
    h->flags = (unsigned)((uint64_t)d->ints[0] >> 8);
    h->f[4] = ct_k__bits2f((uint64_t)d->ints[1]);
    h->f[5] = ct_k__bits2f((uint64_t)d->ints[1] >> 32);
    h->f[6] = ct_k__bits2f((uint64_t)d->ints[2]);
    h->f[7] = ct_k__bits2f((uint64_t)d->ints[2] >> 32);
}

/* One contiguous f32 range: p[0..n) params, g grads, st the state (state slot k at st + k*stride:
 * SGD momentum buffer; Adam exp_avg, exp_avg_sq, max_exp_avg_sq; Adagrad sum). */
typedef void (*ct_k_optim_fn)(const ct_k_optim_hp *h, int64_t n, float *p, const float *g,
                              float *st, int64_t stride);
void ct_k_ref_optim_f32(const ct_k_optim_hp *h, int64_t n, float *p, const float *g, float *st,
                        int64_t stride);
void ct_k_avx2_optim_f32(const ct_k_optim_hp *h, int64_t n, float *p, const float *g, float *st,
                         int64_t stride);
void ct_k_avx512_optim_f32(const ct_k_optim_hp *h, int64_t n, float *p, const float *g, float *st,
                           int64_t stride);

/* Run a CT_OP_OPTIM_STEP descriptor (operands contiguous; param f32/f16/bf16, grad of the param's
 * dtype, state f32). */
ct_status ct_k_optim(const ct_op_desc *op, const ct_k_isa *isa);

#endif

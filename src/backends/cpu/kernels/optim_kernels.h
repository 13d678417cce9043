/* Fused optimizer step kernels (CT_OP_OPTIM_STEP): the hyper-parameters of one step, how they
 * travel in a ct_op_desc, and the per-ISA contiguous loops (optim_body.inc built for ref, avx2 and
 * avx512). Every build evaluates the same f32 formulas with fmaf written where an FMA is meant and
 * contraction off, so all ISAs give the same bits (docs/optim.md). */
#ifndef CTORCH_CPU_OPTIM_KERNELS_H
#define CTORCH_CPU_OPTIM_KERNELS_H

#include "backends/cpu/kernels/kernels.h"

#include <math.h>
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

/* The optimizer's schedule tensor (f64, CT_K_OH_N + n_params values): its hyper-parameters and
 * the step count of every parameter. The fused kernel reads it when it runs, so a captured step
 * replayed many times sees the learning rate the caller last wrote and counts its steps. */
enum {
    CT_K_OH_LR,
    CT_K_OH_MOMENTUM,
    CT_K_OH_DAMPENING,
    CT_K_OH_WD,
    CT_K_OH_BETA1,
    CT_K_OH_BETA2,
    CT_K_OH_EPS,
    CT_K_OH_LR_DECAY,
    CT_K_OH_N /* steps follow: sched[CT_K_OH_N + i] is parameter i's step count */
};

/* The f32 constants of a step (step >= 1: the count after this step) from the hyper-parameters in
 * double, rounded once to f32 each. kind CT_K_OPT_*; flags: the structural CT_K_OPT_MAXIMIZE, WD,
 * MOMENTUM, NESTEROV, AMSGRAD; FIRST and LERP_HI are derived here. The host (FOREACH) and the
 * kernel (FUSED) both call this, so both paths use the same bits. */
static inline void ct_k_optim_hp_make(int kind, unsigned flags, const double *hy, double step,
                                      ct_k_optim_hp *h) {
    memset(h, 0, sizeof *h);
    h->kind = kind;
    h->flags = flags & (CT_K_OPT_MAXIMIZE | CT_K_OPT_WD | CT_K_OPT_MOMENTUM | CT_K_OPT_NESTEROV |
                        CT_K_OPT_AMSGRAD);
    const double lr = hy[CT_K_OH_LR], wd = hy[CT_K_OH_WD];
    switch (kind) {
    case CT_K_OPT_SGD:
        if (step == 1.0) h->flags |= CT_K_OPT_FIRST;
        h->f[0] = (float)wd;
        h->f[1] = (float)hy[CT_K_OH_MOMENTUM];
        h->f[2] = (float)(1.0 - hy[CT_K_OH_DAMPENING]);
        h->f[3] = (float)-lr;
        break;
    case CT_K_OPT_ADAM:
    case CT_K_OPT_ADAMW: {
        const double b1 = hy[CT_K_OH_BETA1], b2 = hy[CT_K_OH_BETA2];
        const double bc1 = 1.0 - pow(b1, step), bc2 = 1.0 - pow(b2, step);
        h->f[0] = (float)(kind == CT_K_OPT_ADAM ? wd : 1.0 - lr * wd);
        h->f[1] = (float)(1.0 - b1);
        if (h->f[1] >= 0.5f) h->flags |= CT_K_OPT_LERP_HI;
        h->f[2] = (float)b2;
        h->f[3] = (float)(1.0 - b2);
        h->f[4] = (float)sqrt(bc2);
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)-(lr / bc1);
        break;
    }
    default: /* Adagrad */
        h->f[0] = (float)wd;
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)-(lr / (1.0 + (step - 1.0) * hy[CT_K_OH_LR_DECAY]));
        break;
    }
}

/* Descriptor (CT_OP_OPTIM_STEP): out0 param (updated), out1 state f32 (slots x numel, absent for
 * plain SGD), out2 schedule f64 (read; the parameter's step count incremented); in3 grad (unscaled
 * in place when a grad scale is given), in4 grad_scale f32 (1 element) or absent, in5 found_inf f32
 * (1 element) or absent: nonzero skips the step and leaves the count. ints[0] = kind | flags << 8,
 * ints[1] = the parameter's index in the schedule. */
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

/* Fused optimizer step kernels (CT_OP_OPTIM_STEP): the hyper-parameters of one step, how they
 * travel in a ct_op_desc, and the per-ISA contiguous loops (optim_body.inc built for ref, avx2 and
 * avx512). Every build evaluates the same f32 formulas with fmaf written where an FMA is meant and
 * contraction off, so all ISAs give the same bits (docs/optim.md). */
#ifndef CTORCH_CPU_OPTIM_KERNELS_H
#define CTORCH_CPU_OPTIM_KERNELS_H

#include "backends/cpu/kernels/kernels.h"

#include <math.h>
#include <string.h>

enum {
    CT_K_OPT_SGD = 0,
    CT_K_OPT_ADAM = 1,
    CT_K_OPT_ADAMW = 2,
    CT_K_OPT_ADAGRAD = 3,
    CT_K_OPT_RMSPROP = 4,
    CT_K_OPT_ADAMAX = 5,
    CT_K_OPT_NADAM = 6,
    CT_K_OPT_RADAM = 7,
    CT_K_OPT_ADADELTA = 8,
    CT_K_OPT_RPROP = 9,
    CT_K_OPT_ASGD = 10,
    CT_K_OPT_KINDS = 11
};
enum {
    CT_K_OPT_MAXIMIZE = 1,
    CT_K_OPT_WD = 2,       /* g = fma(wd, p, g); AdamW (and DECOUPLED): p = p * (1 - lr*wd) */
    CT_K_OPT_MOMENTUM = 4, /* SGD, RMSprop */
    CT_K_OPT_FIRST = 8,    /* SGD: the momentum buffer starts as g */
    CT_K_OPT_NESTEROV = 16,
    CT_K_OPT_AMSGRAD = 32,
    CT_K_OPT_LERP_HI = 64,    /* lerp weight >= 0.5 takes torch's second lerp form */
    CT_K_OPT_CENTERED = 128,  /* RMSprop */
    CT_K_OPT_DECOUPLED = 256, /* NAdam / RAdam: decoupled (AdamW-style) weight decay */
    CT_K_OPT_RECT = 512,      /* RAdam: this step is rectified (rho_t > 5) */
    CT_K_OPT_AVG = 1024       /* ASGD: mu != 1 (ax averages instead of copying) */
};
/* f[] by kind (all already rounded to f32):
 *   SGD:      f0 wd, f1 momentum, f2 1 - dampening, f3 -lr
 *   Adam(W):  f0 wd (Adam) or 1 - lr*wd (AdamW), f1 1 - beta1 (lerp weight), f2 beta2,
 *             f3 1 - beta2, f4 sqrt(1 - beta2^step), f5 eps, f6 -lr / (1 - beta1^step)
 *   Adagrad:  f0 wd, f5 eps, f6 -lr / (1 + (step - 1) * lr_decay)
 *   RMSprop:  f0 wd, f1 alpha, f2 1 - alpha, f3 momentum, f4 -lr, f5 eps
 *   Adamax:   f0 wd, f1 1 - beta1, f2 beta2, f5 eps, f6 -lr / (1 - beta1^step)
 *   NAdam:    f0 wd or 1 - lr*wd (decoupled), f1 1 - beta1, f2 beta2, f3 1 - beta2,
 *             f4 1 - beta2^step, f5 eps, f6 -lr (1 - mu) / (1 - mu_product),
 *             f7 -lr mu_next / (1 - mu_product mu_next)
 *   RAdam:    f0 wd or 1 - lr*wd (decoupled), f1 1 - beta1, f2 beta2, f3 1 - beta2,
 *             f4 1 - beta1^step, f5 eps, f6 lr, f7 sqrt(1 - beta2^step), f8 rect
 *   Adadelta: f0 wd, f1 rho, f2 1 - rho, f4 -lr, f5 eps
 *   Rprop:    f0 etaminus, f1 etaplus, f2 step_size_min, f3 step_size_max, f4 lr (the first
 *             step size, FIRST)
 *   ASGD:     f0 1 - lambd eta, f1 -eta, f2 mu, f3 wd; eta is the previous step's (in
 *             mu_product, as torch's state['eta']), the next one left in h->mu_product */
typedef struct ct_k_optim_hp {
    int kind;
    unsigned flags;
    float f[10];
    double mu_product; /* NAdam: the product after this step (in and out of ct_k_optim_hp_make);
                          ASGD: eta (the next step's, out) */
} ct_k_optim_hp;

/* The optimizer's schedule tensor (f64, CT_K_OPT_SCHED_LEN(n_params) values): its hyper-parameters,
 * the step count of every parameter, then NAdam's mu_product of every parameter (1 for the
 * others). The fused kernel reads it when it runs, so a captured step replayed many times sees the
 * learning rate the caller last wrote and counts its steps. */
enum {
    CT_K_OH_LR,
    CT_K_OH_MOMENTUM,
    CT_K_OH_DAMPENING,
    CT_K_OH_WD,
    CT_K_OH_BETA1,
    CT_K_OH_BETA2,
    CT_K_OH_EPS,
    CT_K_OH_LR_DECAY,
    CT_K_OH_ALPHA,
    CT_K_OH_RHO,
    CT_K_OH_MOMENTUM_DECAY,
    CT_K_OH_N /* steps follow: sched[CT_K_OH_N + i] is parameter i's step count, and
                 sched[CT_K_OH_N + n + i] its mu_product (ASGD: eta) */
};
/* Hyper-parameters that came with Rprop and ASGD, stored after the per-parameter values
 * (sched[CT_K_OH_N + 2n + CT_K_OX_*]), so the schedule of the first nine kinds keeps the layout
 * exported programs were written with. The optimizer addresses every hyper-parameter by one
 * logical index: CT_K_OH_* below CT_K_OH_N, then CT_K_OH_N + CT_K_OX_*. */
enum {
    CT_K_OX_ETAMINUS,
    CT_K_OX_ETAPLUS,
    CT_K_OX_STEP_MIN,
    CT_K_OX_STEP_MAX,
    CT_K_OX_LAMBD,
    CT_K_OX_T0,
    CT_K_OX_N
};
/* Values in the schedule of an optimizer over n parameters. */
#define CT_K_OPT_SCHED_LEN(n) (CT_K_OH_N + 2 * (int64_t)(n) + CT_K_OX_N)
/* Position in the schedule of logical hyper-parameter idx (n parameters). */
static inline int64_t ct_k_optim_hpos(int idx, int64_t n) {
    return idx < CT_K_OH_N ? idx : CT_K_OH_N + 2 * n + (idx - CT_K_OH_N);
}

/* State slots per parameter (f32, numel each) of kind with structural flags:
 * SGD momentum_buffer (with momentum); Adam(W) exp_avg, exp_avg_sq (, max_exp_avg_sq);
 * Adagrad sum; RMSprop square_avg (, momentum_buffer) (, grad_avg); Adamax exp_avg, exp_inf;
 * NAdam / RAdam exp_avg, exp_avg_sq; Adadelta square_avg, acc_delta; Rprop prev, step_size;
 * ASGD ax. */
static inline int ct_k_optim_slots(int kind, unsigned flags) {
    switch (kind) {
    case CT_K_OPT_SGD: return (flags & CT_K_OPT_MOMENTUM) ? 1 : 0;
    case CT_K_OPT_ADAM:
    case CT_K_OPT_ADAMW: return (flags & CT_K_OPT_AMSGRAD) ? 3 : 2;
    case CT_K_OPT_ADAGRAD: return 1;
    case CT_K_OPT_RMSPROP:
        return 1 + ((flags & CT_K_OPT_MOMENTUM) ? 1 : 0) + ((flags & CT_K_OPT_CENTERED) ? 1 : 0);
    case CT_K_OPT_ASGD: return 1;
    default: return 2;
    }
}

/* The f32 constants of a step (step >= 1: the count after this step) from the hyper-parameters in
 * double (hy: the schedule's first CT_K_OH_N, hx: its CT_K_OX_N extras), rounded once to f32 each.
 * kind CT_K_OPT_*; flags: the structural CT_K_OPT_MAXIMIZE, WD, MOMENTUM, NESTEROV, AMSGRAD,
 * CENTERED, DECOUPLED; FIRST, LERP_HI and RECT are derived here. NAdam takes the previous
 * mu_product in mu_prev and leaves the new one in h->mu_product (a float32 value, as torch keeps
 * it). The host (FOREACH) and the kernel (FUSED) both call this, so both paths use the same bits.
 */
static inline void ct_k_optim_hp_make(int kind, unsigned flags, const double *hy, const double *hx,
                                      double step, double mu_prev, ct_k_optim_hp *h) {
    memset(h, 0, sizeof *h);
    h->kind = kind;
    h->flags = flags & (CT_K_OPT_MAXIMIZE | CT_K_OPT_WD | CT_K_OPT_MOMENTUM | CT_K_OPT_NESTEROV |
                        CT_K_OPT_AMSGRAD | CT_K_OPT_CENTERED | CT_K_OPT_DECOUPLED);
    h->mu_product = mu_prev;
    const double lr = hy[CT_K_OH_LR], wd = hy[CT_K_OH_WD];
    const double b1 = hy[CT_K_OH_BETA1], b2 = hy[CT_K_OH_BETA2];
    const bool decoupled = (flags & CT_K_OPT_DECOUPLED) != 0;
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
        const double bc1 = 1.0 - pow(b1, step), bc2 = 1.0 - pow(b2, step);
        h->f[0] = (float)(kind == CT_K_OPT_ADAM ? wd : 1.0 - lr * wd);
        h->f[1] = (float)(1.0 - b1);
        h->f[2] = (float)b2;
        h->f[3] = (float)(1.0 - b2);
        h->f[4] = (float)sqrt(bc2);
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)-(lr / bc1);
        break;
    }
    case CT_K_OPT_ADAGRAD:
        h->f[0] = (float)wd;
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)-(lr / (1.0 + (step - 1.0) * hy[CT_K_OH_LR_DECAY]));
        break;
    case CT_K_OPT_RMSPROP:
        h->f[0] = (float)wd;
        h->f[1] = (float)hy[CT_K_OH_ALPHA];
        h->f[2] = (float)(1.0 - hy[CT_K_OH_ALPHA]);
        h->f[3] = (float)hy[CT_K_OH_MOMENTUM];
        h->f[4] = (float)-lr;
        h->f[5] = (float)hy[CT_K_OH_EPS];
        break;
    case CT_K_OPT_ADAMAX:
        h->f[0] = (float)wd;
        h->f[1] = (float)(1.0 - b1);
        h->f[2] = (float)b2;
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)-(lr / (1.0 - pow(b1, step)));
        break;
    case CT_K_OPT_NADAM: {
        const double md = hy[CT_K_OH_MOMENTUM_DECAY];
        const double mu = b1 * (1.0 - 0.5 * pow(0.96, step * md));
        const double mu_next = b1 * (1.0 - 0.5 * pow(0.96, (step + 1.0) * md));
        /* torch keeps mu_product in a float32 tensor: mu_product *= mu rounds to float32 */
        const double mp = (double)((float)mu_prev * (float)mu);
        h->mu_product = mp;
        h->f[0] = (float)(decoupled ? 1.0 - lr * wd : wd);
        h->f[1] = (float)(1.0 - b1);
        h->f[2] = (float)b2;
        h->f[3] = (float)(1.0 - b2);
        h->f[4] = (float)(1.0 - pow(b2, step));
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)(-lr * (1.0 - mu) / (1.0 - mp));
        h->f[7] = (float)((-lr * mu_next) / (1.0 - mp * mu_next));
        break;
    }
    case CT_K_OPT_RADAM: {
        const double bc1 = 1.0 - pow(b1, step), bc2 = 1.0 - pow(b2, step);
        const double rho_inf = 2.0 / (1.0 - b2) - 1.0;
        const double rho_t = rho_inf - 2.0 * step * pow(b2, step) / bc2;
        h->f[0] = (float)(decoupled ? 1.0 - lr * wd : wd);
        h->f[1] = (float)(1.0 - b1);
        h->f[2] = (float)b2;
        h->f[3] = (float)(1.0 - b2);
        h->f[4] = (float)bc1;
        h->f[5] = (float)hy[CT_K_OH_EPS];
        h->f[6] = (float)lr;
        h->f[7] = (float)sqrt(bc2);
        if (rho_t > 5.0) {
            h->flags |= CT_K_OPT_RECT;
            h->f[8] = (float)sqrt((rho_t - 4.0) * (rho_t - 2.0) * rho_inf /
                                  ((rho_inf - 4.0) * (rho_inf - 2.0) * rho_t));
        }
        break;
    }
    case CT_K_OPT_RPROP:
        if (step == 1.0) h->flags |= CT_K_OPT_FIRST;
        h->f[0] = (float)hx[CT_K_OX_ETAMINUS];
        h->f[1] = (float)hx[CT_K_OX_ETAPLUS];
        h->f[2] = (float)hx[CT_K_OX_STEP_MIN];
        h->f[3] = (float)hx[CT_K_OX_STEP_MAX];
        h->f[4] = (float)lr;
        break;
    case CT_K_OPT_ASGD: {
        /* torch keeps eta and mu in float32 tensors: eta starts as lr, then after step k it is
         * lr / (1 + lambd lr k)^alpha; mu is 1 / max(1, k - t0) */
        const double lambd = hx[CT_K_OX_LAMBD], prev = step - 1.0;
        const double eta = step == 1.0 ? (double)(float)lr : mu_prev;
        const double mu =
            step == 1.0 ? 1.0 : (double)(float)(1.0 / fmax(1.0, prev - hx[CT_K_OX_T0]));
        h->mu_product = (double)(float)(lr / pow(1.0 + lambd * lr * step, hy[CT_K_OH_ALPHA]));
        h->f[0] = (float)(1.0 - lambd * eta);
        h->f[1] = (float)-eta;
        h->f[2] = (float)mu;
        h->f[3] = (float)wd;
        if (mu != 1.0) h->flags |= CT_K_OPT_AVG;
        break;
    }
    default: /* Adadelta */
        h->f[0] = (float)wd;
        h->f[1] = (float)hy[CT_K_OH_RHO];
        h->f[2] = (float)(1.0 - hy[CT_K_OH_RHO]);
        h->f[4] = (float)-lr;
        h->f[5] = (float)hy[CT_K_OH_EPS];
        break;
    }
    if ((kind == CT_K_OPT_ADAM || kind == CT_K_OPT_ADAMW || kind == CT_K_OPT_ADAMAX ||
         kind == CT_K_OPT_NADAM || kind == CT_K_OPT_RADAM) &&
        h->f[1] >= 0.5f)
        h->flags |= CT_K_OPT_LERP_HI;
}

/* Descriptor (CT_OP_OPTIM_STEP): out0 param (updated), out1 state f32 (slots x numel, absent for
 * plain SGD), out2 schedule f64 (read; the parameter's step count incremented); in3 grad (unscaled
 * in place when a grad scale is given), in4 grad_scale f32 (1 element) or absent, in5 found_inf f32
 * (1 element) or absent: nonzero skips the step and leaves the count. ints[0] = kind | flags << 8,
 * ints[1] = the parameter's index in the schedule, ints[2] = the optimizer's parameter count n
 * (mu_product of parameter i at sched[CT_K_OH_N + n + i]). */
/* One contiguous f32 range: p[0..n) params, g grads, st the state (state slot k at st + k*stride,
 * in the order of ct_k_optim_slots). */
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

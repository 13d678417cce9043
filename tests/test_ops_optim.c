/* Optimizers (include/ctorch/optim.h): FUSED == FOREACH == the captured FOREACH step replayed ==
 * the captured FUSED step replayed == a scalar f32 reference written here from docs/optim.md, bit
 * for bit, over many steps, every option combination, sizes 1, 7, 33, 1023 and a size the thread
 * pool splits; run once per ISA by ctest. Also f16/bf16 parameters, NULL grads, and errors.
 * Under the default settings sizes 1..1023 run 200 steps and the large size 10 (ASan keeps the
 * suite fast); CT_OPTIM_STEPS=N runs every size N steps (the 1000-step run). */
#include "test_util.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static ct_ctx *ctx;

#define NSIZES 5
static const int64_t sizes[NSIZES] = {1, 7, 33, 1023, 70001};
/* Steps of the run on the small sizes and of the run that adds the large size (CT_OPTIM_STEPS
 * sets both: CT_OPTIM_STEPS=1000 is the 1000-step run). */
static int nsteps_small = 200, nsteps_large = 10;

/* ---- scalar reference: the documented formulas, one element at a time ---- */
typedef struct {
    float p, m, v, vmax; /* RMSprop: m square_avg, v momentum buffer, vmax grad_avg; Rprop: m prev,
                            v step_size; ASGD: m ax */
    double mu;           /* NAdam's mu_product, ASGD's eta (float32 values, as torch keeps them) */
} ref_el;

/* torch.lerp(m, g, w) */
static float ref_lerp(float m, float g, float w) {
    float d = g - m;
    return w < 0.5f ? fmaf(w, d, m) : fmaf(-(1.0f - w), d, g);
}

static void ref_step(const ct_optim_options *o, int64_t step, ref_el *e, float g) {
    double st = (double)step;
    if (o->maximize) g = -g;
    float wd = (float)o->weight_decay;
    switch (o->kind) {
    case CT_OPTIM_SGD:
        if (o->weight_decay != 0) g = fmaf(wd, e->p, g);
        if (o->momentum != 0) {
            float mom = (float)o->momentum;
            e->m = step == 1 ? g : fmaf((float)(1.0 - o->dampening), g, e->m * mom);
            g = o->nesterov ? fmaf(mom, e->m, g) : e->m;
        }
        e->p = fmaf((float)-o->lr, g, e->p);
        break;
    case CT_OPTIM_ADAM:
    case CT_OPTIM_ADAMW: {
        if (o->weight_decay != 0) {
            if (o->kind == CT_OPTIM_ADAMW)
                e->p = e->p * (float)(1.0 - o->lr * o->weight_decay);
            else
                g = fmaf(wd, e->p, g);
        }
        float w = (float)(1.0 - o->beta1);
        float d = g - e->m;
        e->m = w < 0.5f ? fmaf(w, d, e->m) : fmaf(-(1.0f - w), d, g);
        e->v = fmaf((float)(1.0 - o->beta2) * g, g, e->v * (float)o->beta2);
        float vv = e->v;
        if (o->amsgrad) {
            e->vmax = e->vmax > e->v ? e->vmax : e->v;
            vv = e->vmax;
        }
        double bc1 = 1.0 - pow(o->beta1, st), bc2 = 1.0 - pow(o->beta2, st);
        float denom = sqrtf(vv) / (float)sqrt(bc2) + (float)o->eps;
        e->p = fmaf((float)-(o->lr / bc1), e->m / denom, e->p);
        break;
    }
    case CT_OPTIM_ADAGRAD: {
        if (o->weight_decay != 0) g = fmaf(wd, e->p, g);
        double clr = o->lr / (1.0 + (st - 1.0) * o->lr_decay);
        e->m = fmaf(g, g, e->m);
        e->p = fmaf((float)-clr, g / (sqrtf(e->m) + (float)o->eps), e->p);
        break;
    }
    case CT_OPTIM_RMSPROP: {
        if (o->weight_decay != 0) g = fmaf(wd, e->p, g);
        float al = (float)o->alpha, oma = (float)(1.0 - o->alpha), eps = (float)o->eps;
        e->m = fmaf(oma * g, g, e->m * al);
        float avg;
        if (o->centered) {
            e->vmax = fmaf(oma, g, e->vmax * al);
            avg = sqrtf(fmaf(-e->vmax, e->vmax, e->m)) + eps;
        } else {
            avg = sqrtf(e->m) + eps;
        }
        if (o->momentum > 0) {
            e->v = e->v * (float)o->momentum + g / avg;
            e->p = fmaf((float)-o->lr, e->v, e->p);
        } else {
            e->p = fmaf((float)-o->lr, g / avg, e->p);
        }
        break;
    }
    case CT_OPTIM_ADAMAX: {
        if (o->weight_decay != 0) g = fmaf(wd, e->p, g);
        e->m = ref_lerp(e->m, g, (float)(1.0 - o->beta1));
        float a = e->v * (float)o->beta2, b = fabsf(g) + (float)o->eps;
        e->v = isnan(a) || isnan(b) ? NAN : a > b ? a : b;
        e->p = fmaf((float)-(o->lr / (1.0 - pow(o->beta1, st))), e->m / e->v, e->p);
        break;
    }
    case CT_OPTIM_NADAM:
    case CT_OPTIM_RADAM: {
        if (o->weight_decay != 0) {
            if (o->decoupled_weight_decay)
                e->p = e->p * (float)(1.0 - o->lr * o->weight_decay);
            else
                g = fmaf(wd, e->p, g);
        }
        e->m = ref_lerp(e->m, g, (float)(1.0 - o->beta1));
        e->v = fmaf((float)(1.0 - o->beta2) * g, g, e->v * (float)o->beta2);
        double b1 = o->beta1, b2 = o->beta2, bc2 = 1.0 - pow(b2, st);
        if (o->kind == CT_OPTIM_NADAM) {
            double mu = b1 * (1.0 - 0.5 * pow(0.96, st * o->momentum_decay));
            double mu1 = b1 * (1.0 - 0.5 * pow(0.96, (st + 1.0) * o->momentum_decay));
            e->mu = (float)e->mu * (float)mu;
            float d = sqrtf(e->v / (float)bc2) + (float)o->eps;
            e->p = fmaf((float)(-o->lr * (1.0 - mu) / (1.0 - e->mu)), g / d, e->p);
            e->p = fmaf((float)(-o->lr * mu1 / (1.0 - e->mu * mu1)), e->m / d, e->p);
        } else {
            double bc1 = 1.0 - pow(b1, st), rinf = 2.0 / (1.0 - b2) - 1.0;
            double rt = rinf - 2.0 * st * pow(b2, st) / bc2;
            float x = e->m / (float)bc1 * (float)o->lr;
            if (rt > 5.0) {
                double rect = sqrt((rt - 4) * (rt - 2) * rinf / ((rinf - 4) * (rinf - 2) * rt));
                float ad = 1.0f / (sqrtf(e->v) + (float)o->eps) * (float)sqrt(bc2);
                x = x * ad * (float)rect;
            }
            e->p = e->p - x;
        }
        break;
    }
    case CT_OPTIM_ADADELTA: {
        if (o->weight_decay != 0) g = fmaf(wd, e->p, g);
        float rho = (float)o->rho, omr = (float)(1.0 - o->rho), eps = (float)o->eps;
        e->m = fmaf(omr * g, g, e->m * rho);
        float d = sqrtf(e->v + eps) / sqrtf(e->m + eps) * g;
        e->v = fmaf(omr * d, d, e->v * rho);
        e->p = fmaf((float)-o->lr, d, e->p);
        break;
    }
    case CT_OPTIM_RPROP: { /* torch's _single_tensor_rprop, element by element */
        if (step == 1) {
            e->m = 0.0f;
            e->v = (float)o->lr;
        }
        const float prod = g * e->m, em = (float)o->etaminus;
        const float sg = prod > 0 ? 1.0f : prod < 0 ? -1.0f : 0.0f; /* torch.sign: NaN -> 0 */
        const float f = sg > 0 ? (float)o->etaplus : sg < 0 ? em : 1.0f;
        float t = e->v * f;
        if (!isnan(t)) t = fminf(fmaxf(t, (float)o->step_size_min), (float)o->step_size_max);
        e->v = t;
        const float gz = f == em ? 0.0f : g;
        const float s2 = gz > 0 ? 1.0f : gz < 0 ? -1.0f : 0.0f;
        e->p = e->p + (-1.0f * s2) * t; /* addcmul_(sign, step_size, value=-1) */
        e->m = gz;
        break;
    }
    case CT_OPTIM_ASGD: { /* torch's _single_tensor_asgd; eta and mu are float32 tensors there */
        const double eta = step == 1 ? (double)(float)o->lr : e->mu;
        const double mu = step == 1 ? 1.0 : (double)(float)(1.0 / fmax(1.0, (st - 1) - o->t0));
        if (o->weight_decay != 0) g = fmaf(wd, e->p, g);
        e->p = e->p * (float)(1.0 - o->lambd * eta);
        e->p = fmaf((float)-eta, g, e->p);
        e->m = mu != 1.0 ? e->m + (e->p - e->m) * (float)mu : e->p;
        e->mu = (double)(float)(o->lr / pow(1.0 + o->lambd * o->lr * st, o->alpha));
        break;
    }
    }
}

/* ---- the runs ---- */
enum { P_FUSED, P_FOREACH, P_GRAPH_FOREACH, P_GRAPH_FUSED, NPATHS };

static float grad_val(unsigned long long *rng) {
    double u = ct_t_uniform(rng);
    if (u < 0.02) return 0.0f;
    if (u < 0.04) return -0.0f;
    return (float)(2.0 * ct_t_uniform(rng) - 1.0);
}

static int bits_eq(float a, float b) {
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

/* Run every path for nsteps steps on params of `sizes`; compare bit for bit with the reference
 * after every step (the reference is cheap) and among the paths. */
static int run_parity1(ct_optim_options o, const char *label, int nsizes, int nsteps) {
    int64_t total = 0;
    for (int s = 0; s < nsizes; s++)
        total += sizes[s];
    float *init = malloc(sizeof(float) * (size_t)total);
    float *gbuf = malloc(sizeof(float) * (size_t)total);
    ref_el *ref = calloc((size_t)total, sizeof(ref_el));
    unsigned long long rng = 0x9e3779b97f4a7c15ULL;
    for (int64_t i = 0; i < total; i++) {
        init[i] = (float)(2.0 * ct_t_uniform(&rng) - 1.0);
        ref[i].p = init[i];
        ref[i].m = o.kind == CT_OPTIM_ADAGRAD ? (float)o.initial_accumulator_value : 0.0f;
        ref[i].mu = 1.0;
    }
    ct_tensor *params[NPATHS][NSIZES], *grads[NSIZES];
    ct_optim *opt[NPATHS] = {0};
    int ok = 1;
    for (int p = 0; p < NPATHS; p++) {
        int64_t off = 0;
        for (int s = 0; s < nsizes; s++) {
            CHECK_OK(ct_tensor_from_host(ctx, init + off, CT_FLOAT32, 1, &sizes[s], &params[p][s]));
            off += sizes[s];
        }
        ct_optim_options oo = o;
        oo.impl =
            (p == P_FUSED || p == P_GRAPH_FUSED) ? CT_OPTIM_IMPL_FUSED : CT_OPTIM_IMPL_FOREACH;
        CHECK_OK(ct_optim_create(ctx, &oo, nsizes, params[p], &opt[p]));
    }
    for (int s = 0; s < nsizes; s++)
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &sizes[s], &grads[s]));
    float *out = malloc(sizeof(float) * (size_t)total);
    for (int step = 1; step <= nsteps && ok; step++) {
        for (int64_t i = 0; i < total; i++)
            gbuf[i] = grad_val(&rng);
        int64_t off = 0;
        for (int s = 0; s < nsizes; s++) {
            memcpy(ct_tensor_data_ptr(grads[s]), gbuf + off, sizeof(float) * (size_t)sizes[s]);
            off += sizes[s];
        }
        for (int64_t i = 0; i < total; i++)
            ref_step(&o, step, &ref[i], gbuf[i]);
        for (int p = 0; p < NPATHS; p++) {
            if (p == P_FUSED || p == P_FOREACH) {
                ct_status st = ct_optim_step(opt[p], grads);
                CHECK_MSG(st == CT_OK, "%s: %s", label, ct_ctx_last_error(ctx));
                continue;
            }
            /* capture this step (nothing runs), then replay it once */
            ct_graph *g = NULL;
            CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
            CHECK_OK(ct_graph_capture_begin(g, NULL));
            ct_status st = ct_optim_step(opt[p], grads);
            CHECK_MSG(st == CT_OK, "%s capture: %s", label, ct_ctx_last_error(ctx));
            CHECK_OK(ct_graph_capture_end(g));
            if (step == 1) { /* captured, not run */
                CHECK(ct_graph_num_nodes(g) > 0);
                CHECK(bits_eq(((float *)ct_tensor_data_ptr(params[p][nsizes - 1]))[0],
                              init[total - sizes[nsizes - 1]]));
            }
            CHECK_OK(ct_graph_replay(g));
            ct_graph_free(g);
        }
        off = 0;
        for (int s = 0; s < nsizes && ok; s++) {
            for (int p = 0; p < NPATHS && ok; p++) {
                CHECK_OK(ct_tensor_to_host(params[p][s], out, sizeof(float) * (size_t)sizes[s]));
                for (int64_t i = 0; i < sizes[s]; i++)
                    if (!bits_eq(out[i], ref[off + i].p)) {
                        CHECK_MSG(0, "%s: path %d size %lld step %d element %lld: %.9g, ref %.9g",
                                  label, p, (long long)sizes[s], step, (long long)i, (double)out[i],
                                  (double)ref[off + i].p);
                        ok = 0;
                        break;
                    }
            }
            off += sizes[s];
        }
    }
    for (int p = 0; p < NPATHS; p++) {
        ct_optim_free(opt[p]);
        for (int s = 0; s < nsizes; s++)
            ct_tensor_release(params[p][s]);
    }
    for (int s = 0; s < nsizes; s++)
        ct_tensor_release(grads[s]);
    free(out);
    free(init);
    free(gbuf);
    free(ref);
    return ok;
}

static int run_parity(ct_optim_options o, const char *label) {
    return run_parity1(o, label, NSIZES - 1, nsteps_small) &&
           run_parity1(o, label, NSIZES, nsteps_large);
}

TEST(parity_sgd) {
    int n = 0;
    for (int mask = 0; mask < 32; mask++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_SGD);
        o.lr = 0.01;
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.05 : 0;
        o.momentum = (mask & 4) ? 0.9 : 0;
        o.dampening = (mask & 8) ? 0.1 : 0;
        o.nesterov = (mask & 16) != 0;
        if (o.nesterov && (o.momentum == 0 || o.dampening != 0)) continue;
        if (o.momentum == 0 && o.dampening != 0) continue;
        char label[64];
        snprintf(label, sizeof label, "sgd mask %d", mask);
        CHECK(run_parity(o, label));
        n++;
    }
    CHECK(n == 16);
}

static void parity_adam_kind(ct_optim_kind kind) {
    for (int mask = 0; mask < 16; mask++) {
        ct_optim_options o = ct_optim_options_default(kind);
        o.lr = 0.01;
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.1 : 0;
        o.amsgrad = (mask & 4) != 0;
        o.beta1 = (mask & 8) ? 0.3 : 0.9; /* 0.3: lerp weight 0.7 takes torch.lerp's second form */
        o.eps = (mask & 8) ? 1e-3 : 1e-8;
        char label[64];
        snprintf(label, sizeof label, "%s mask %d", kind == CT_OPTIM_ADAM ? "adam" : "adamw", mask);
        CHECK(run_parity(o, label));
    }
}
TEST(parity_adam) { parity_adam_kind(CT_OPTIM_ADAM); }
TEST(parity_adamw) { parity_adam_kind(CT_OPTIM_ADAMW); }

TEST(parity_adagrad) {
    for (int mask = 0; mask < 16; mask++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAGRAD);
        o.lr = 0.05;
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.1 : 0;
        o.lr_decay = (mask & 4) ? 0.01 : 0;
        o.initial_accumulator_value = (mask & 8) ? 0.1 : 0;
        char label[64];
        snprintf(label, sizeof label, "adagrad mask %d", mask);
        CHECK(run_parity(o, label));
    }
}

TEST(parity_rmsprop) {
    for (int mask = 0; mask < 32; mask++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_RMSPROP);
        o.lr = 0.01;
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.1 : 0;
        o.momentum = (mask & 4) ? 0.9 : 0;
        o.centered = (mask & 8) != 0;
        o.alpha = (mask & 16) ? 0.5 : 0.99;
        char label[64];
        snprintf(label, sizeof label, "rmsprop mask %d", mask);
        CHECK(run_parity(o, label));
    }
}

/* Adamax, NAdam, RAdam: maximize, weight decay (decoupled for NAdam / RAdam), a beta1 whose lerp
 * weight takes torch.lerp's second form, and a beta2 that makes RAdam rectify from step 6 (0.999:
 * from step 6 too; 0.5: never). */
static void parity_adam_like(ct_optim_kind kind, const char *name) {
    for (int mask = 0; mask < 32; mask++) {
        ct_optim_options o = ct_optim_options_default(kind);
        o.lr = 0.01;
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.1 : 0;
        o.decoupled_weight_decay = (mask & 4) != 0;
        o.beta1 = (mask & 8) ? 0.3 : 0.9;
        o.eps = (mask & 8) ? 1e-3 : 1e-8;
        o.beta2 = (mask & 16) ? 0.5 : 0.999;
        if (kind == CT_OPTIM_ADAMAX && o.decoupled_weight_decay) continue;
        if (kind == CT_OPTIM_NADAM && (mask & 16)) o.momentum_decay = 0.5;
        char label[64];
        snprintf(label, sizeof label, "%s mask %d", name, mask);
        CHECK(run_parity(o, label));
    }
}
TEST(parity_adamax) { parity_adam_like(CT_OPTIM_ADAMAX, "adamax"); }
TEST(parity_nadam) { parity_adam_like(CT_OPTIM_NADAM, "nadam"); }
TEST(parity_radam) { parity_adam_like(CT_OPTIM_RADAM, "radam"); }

TEST(parity_adadelta) {
    for (int mask = 0; mask < 8; mask++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADADELTA);
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.1 : 0;
        o.rho = (mask & 4) ? 0.3 : 0.9;
        o.lr = (mask & 4) ? 0.5 : 1.0;
        char label[64];
        snprintf(label, sizeof label, "adadelta mask %d", mask);
        CHECK(run_parity(o, label));
    }
}

TEST(parity_rprop) {
    for (int mask = 0; mask < 8; mask++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_RPROP);
        o.maximize = mask & 1;
        o.lr = (mask & 2) ? 0.1 : 0.01;
        if (mask & 2) o.etaminus = 0.3, o.etaplus = 2.0;
        if (mask & 4) o.step_size_min = 1e-3, o.step_size_max = 0.05; /* clamping at both ends */
        char label[64];
        snprintf(label, sizeof label, "rprop mask %d", mask);
        CHECK(run_parity(o, label));
    }
}

TEST(parity_asgd) {
    for (int mask = 0; mask < 16; mask++) {
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ASGD);
        o.maximize = mask & 1;
        o.weight_decay = (mask & 2) ? 0.1 : 0;
        o.t0 = (mask & 4) ? 5 : 1e6; /* 5: ax averages from step 7 */
        o.lambd = (mask & 8) ? 0.1 : 1e-4;
        o.alpha = (mask & 8) ? 0.5 : 0.75;
        o.lr = 0.05;
        char label[64];
        snprintf(label, sizeof label, "asgd mask %d", mask);
        CHECK(run_parity(o, label));
    }
}

/* f16/bf16 parameters: f32 math, one rounding on store; FUSED == FOREACH bit for bit, and the
 * reference rounded the same way. */
TEST(half_params) {
    const ct_optim_kind kinds[11] = {CT_OPTIM_SGD,     CT_OPTIM_ADAM,    CT_OPTIM_ADAMW,
                                     CT_OPTIM_ADAGRAD, CT_OPTIM_RMSPROP, CT_OPTIM_ADAMAX,
                                     CT_OPTIM_NADAM,   CT_OPTIM_RADAM,   CT_OPTIM_ADADELTA,
                                     CT_OPTIM_RPROP,   CT_OPTIM_ASGD};
    const ct_dtype dts[2] = {CT_FLOAT16, CT_BFLOAT16};
    const int64_t n = 1031;
    for (int k = 0; k < 11; k++)
        for (int d = 0; d < 2; d++) {
            ct_optim_options o = ct_optim_options_default(kinds[k]);
            o.lr = 0.01;
            o.momentum = kinds[k] == CT_OPTIM_SGD || kinds[k] == CT_OPTIM_RMSPROP ? 0.9 : 0;
            o.weight_decay = kinds[k] == CT_OPTIM_RPROP ? 0 : 0.01;
            unsigned long long rng = 7;
            uint16_t init[1031], gb[1031], out[2][1031] = {{0}};
            ref_el ref[1031];
            for (int64_t i = 0; i < n; i++) {
                float v = (float)(2.0 * ct_t_uniform(&rng) - 1.0);
                init[i] = dts[d] == CT_FLOAT16 ? ct_f32_to_f16(v) : ct_f32_to_bf16(v);
                memset(&ref[i], 0, sizeof ref[i]);
                ref[i].mu = 1.0;
            }
            ct_tensor *p[2], *g = NULL;
            ct_optim *opt[2];
            for (int j = 0; j < 2; j++) {
                CHECK_OK(ct_tensor_from_host(ctx, init, dts[d], 1, &n, &p[j]));
                o.impl = j ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
                CHECK_OK(ct_optim_create(ctx, &o, 1, &p[j], &opt[j]));
            }
            CHECK_OK(ct_tensor_zeros(ctx, dts[d], 1, &n, &g));
            int bad = 0;
            bool h = dts[d] == CT_FLOAT16;
            for (int step = 1; step <= 50 && !bad; step++) {
                for (int64_t i = 0; i < n; i++) {
                    float v = grad_val(&rng);
                    gb[i] = h ? ct_f32_to_f16(v) : ct_f32_to_bf16(v);
                    /* reference: widen the stored param, step in f32, round once */
                    uint16_t prev = step == 1 ? init[i] : out[0][i];
                    ref[i].p = h ? ct_f16_to_f32(prev) : ct_bf16_to_f32(prev);
                    if (step > 1 && out[0][i] != out[1][i]) bad = 1;
                    ref_step(&o, step, &ref[i], h ? ct_f16_to_f32(gb[i]) : ct_bf16_to_f32(gb[i]));
                }
                memcpy(ct_tensor_data_ptr(g), gb, sizeof gb);
                for (int j = 0; j < 2; j++)
                    CHECK_OK(ct_optim_step(opt[j], &g));
                for (int j = 0; j < 2; j++)
                    CHECK_OK(ct_tensor_to_host(p[j], out[j], sizeof out[j]));
                for (int64_t i = 0; i < n && !bad; i++) {
                    uint16_t want = h ? ct_f32_to_f16(ref[i].p) : ct_f32_to_bf16(ref[i].p);
                    if (out[0][i] != want || out[1][i] != want) {
                        CHECK_MSG(0,
                                  "kind %d dtype %d step %d el %lld: fused %04x foreach %04x "
                                  "ref %04x",
                                  k, d, step, (long long)i, out[0][i], out[1][i], want);
                        bad = 1;
                    }
                }
            }
            CHECK(!bad);
            for (int j = 0; j < 2; j++) {
                ct_optim_free(opt[j]);
                ct_tensor_release(p[j]);
            }
            ct_tensor_release(g);
        }
}

/* A NULL grad skips its parameter: unchanged, and its step count does not advance (its first real
 * step equals a fresh optimizer's first step, bias corrections included). */
TEST(null_grad_skips) {
    const int64_t n = 9;
    float a0[9], b0[9], g0[9];
    for (int i = 0; i < 9; i++) {
        a0[i] = 0.1f * (float)i - 0.3f;
        b0[i] = 0.05f * (float)i + 0.2f;
        g0[i] = 0.5f - 0.1f * (float)i;
    }
    for (int impl = 0; impl < 2; impl++) {
        ct_tensor *a, *b, *c, *g;
        CHECK_OK(ct_tensor_from_host(ctx, a0, CT_FLOAT32, 1, &n, &a));
        CHECK_OK(ct_tensor_from_host(ctx, b0, CT_FLOAT32, 1, &n, &b));
        CHECK_OK(ct_tensor_from_host(ctx, b0, CT_FLOAT32, 1, &n, &c));
        CHECK_OK(ct_tensor_from_host(ctx, g0, CT_FLOAT32, 1, &n, &g));
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAM);
        o.impl = (ct_optim_impl)impl;
        o.lr = 0.1;
        ct_tensor *ps[2] = {a, b};
        ct_optim *opt, *fresh;
        CHECK_OK(ct_optim_create(ctx, &o, 2, ps, &opt));
        CHECK_OK(ct_optim_create(ctx, &o, 1, &c, &fresh));
        ct_tensor *g1[2] = {g, NULL}, *g2[2] = {g, g};
        CHECK_OK(ct_optim_step(opt, g1));
        CHECK_OK(ct_optim_step(opt, g1));
        float out[9], ref[9];
        CHECK_OK(ct_tensor_to_host(b, out, sizeof out));
        CHECK(memcmp(out, b0, sizeof out) == 0);
        CHECK_OK(ct_optim_step(opt, g2));
        CHECK_OK(ct_optim_step(fresh, &g));
        CHECK_OK(ct_tensor_to_host(b, out, sizeof out));
        CHECK_OK(ct_tensor_to_host(c, ref, sizeof ref));
        CHECK(memcmp(out, ref, sizeof out) == 0);
        CHECK(memcmp(out, b0, sizeof out) != 0);
        ct_optim_free(opt);
        ct_optim_free(fresh);
        ct_tensor_release(a);
        ct_tensor_release(b);
        ct_tensor_release(c);
        ct_tensor_release(g);
    }
}

static void expect_bad(ct_optim_options o, int np, ct_tensor *const *ps, ct_status want,
                       const char *needle) {
    ct_optim *opt = (ct_optim *)(uintptr_t)1;
    ct_status st = ct_optim_create(ctx, &o, np, ps, &opt);
    CHECK_MSG(st == want, "status %d want %d (%s)", (int)st, (int)want, needle);
    CHECK(opt == NULL);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), needle) != NULL, "message '%s' lacks '%s'",
              ct_ctx_last_error(ctx), needle);
}

TEST(errors) {
    const int64_t n = 4, n3 = 3;
    ct_tensor *p, *q, *i32, *g3, *gi;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &p));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &q));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 1, &n, &i32));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n3, &g3));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT16, 1, &n, &gi));
    ct_optim_options o = ct_optim_options_default(CT_OPTIM_SGD);
    ct_optim_options b = o;
    b.lr = -0.1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "lr -0.1");
    b = o;
    b.lr = NAN;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "invalid lr");
    b = o;
    b.momentum = -1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "momentum -1");
    b = o;
    b.nesterov = true;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "nesterov");
    b = o;
    b.weight_decay = -2;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "weight_decay -2");
    b = ct_optim_options_default(CT_OPTIM_ADAM);
    b.beta1 = 1.0;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "beta1 1");
    b = ct_optim_options_default(CT_OPTIM_ADAMW);
    b.beta2 = -0.5;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "beta2 -0.5");
    b = ct_optim_options_default(CT_OPTIM_ADAM);
    b.eps = -1e-8;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "eps");
    b = ct_optim_options_default(CT_OPTIM_ADAGRAD);
    b.lr_decay = -1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "lr_decay -1");
    b = ct_optim_options_default(CT_OPTIM_ADAGRAD);
    b.initial_accumulator_value = -3;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "initial_accumulator_value -3");
    b = ct_optim_options_default(CT_OPTIM_RMSPROP);
    b.alpha = -1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "rmsprop: invalid alpha -1");
    b = ct_optim_options_default(CT_OPTIM_RMSPROP);
    b.momentum = -0.5;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "rmsprop: invalid momentum -0.5");
    b = ct_optim_options_default(CT_OPTIM_ADADELTA);
    b.rho = 1.5;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "adadelta: invalid rho 1.5");
    b = ct_optim_options_default(CT_OPTIM_NADAM);
    b.momentum_decay = -1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "nadam: invalid momentum_decay -1");
    b = ct_optim_options_default(CT_OPTIM_ADAMAX);
    b.beta1 = 1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "adamax: invalid beta1 1");
    b = ct_optim_options_default(CT_OPTIM_RADAM);
    b.beta2 = 2;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "radam: invalid beta2 2");
    /* a caller built against the struct before alpha..decoupled_weight_decay passes that size: the
     * later fields are not read (defaults apply) */
    b = ct_optim_options_default(CT_OPTIM_RMSPROP);
    b.alpha = -7;
    b.size = offsetof(ct_optim_options, alpha);
    {
        ct_optim *old = NULL;
        CHECK_OK(ct_optim_create(ctx, &b, 1, &p, &old));
        ct_optim_free(old);
    }
    b = o;
    b.kind = (ct_optim_kind)11;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "kind 11");
    b = ct_optim_options_default(CT_OPTIM_RPROP);
    b.etaminus = 1.5; /* torch: 0 < etaminus < 1 < etaplus */
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "Invalid eta values: 1.5, 1.2");
    b = ct_optim_options_default(CT_OPTIM_RPROP);
    b.etaplus = 1.0;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "Invalid eta values: 0.5, 1");
    b = ct_optim_options_default(CT_OPTIM_RPROP);
    b.weight_decay = 0.1;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "no weight_decay");
    b = ct_optim_options_default(CT_OPTIM_ASGD);
    b.lambd = NAN;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "invalid lambd");
    b = ct_optim_options_default(CT_OPTIM_ASGD);
    CHECK(b.lr == 1e-2 && b.alpha == 0.75 && b.lambd == 1e-4 && b.t0 == 1e6);
    b = ct_optim_options_default(CT_OPTIM_RPROP);
    CHECK(b.lr == 1e-2 && b.etaminus == 0.5 && b.etaplus == 1.2 && b.step_size_min == 1e-6 &&
          b.step_size_max == 50);
    b = o;
    b.impl = (ct_optim_impl)5;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "impl 5");
    b = o;
    b.size = 3;
    expect_bad(b, 1, &p, CT_ERR_INVALID_ARG, "options.size 3");
    expect_bad(o, 0, &p, CT_ERR_INVALID_ARG, "n_params is 0");
    expect_bad(o, 1, &i32, CT_ERR_DTYPE, "int32");
    ct_tensor *pp[2] = {p, p};
    expect_bad(o, 2, pp, CT_ERR_INVALID_ARG, "same parameter");
    ct_tensor *pn[2] = {p, NULL};
    expect_bad(o, 2, pn, CT_ERR_INVALID_ARG, "params[1] is NULL");
    int64_t sh2[2] = {2, 2};
    ct_tensor *m2, *mt;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, sh2, &m2));
    CHECK_OK(ct_tensor_transpose(ctx, m2, 0, 1, &mt));
    expect_bad(o, 1, &mt, CT_ERR_INVALID_ARG, "not contiguous");
    CHECK_ST(ct_optim_create(NULL, &o, 1, &p, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_optim_create(ctx, NULL, 1, &p, NULL), CT_ERR_INVALID_ARG);

    /* step errors: nothing is updated */
    float one[4] = {1, 1, 1, 1}, out[4];
    CHECK_OK(ct_tensor_copy_(ctx, q, p));
    ct_tensor *gq;
    CHECK_OK(ct_tensor_from_host(ctx, one, CT_FLOAT32, 1, &n, &gq));
    ct_optim *opt;
    ct_tensor *ps[2] = {q, p};
    CHECK_OK(ct_optim_create(ctx, &o, 2, ps, &opt));
    ct_tensor *gs[2] = {gq, g3};
    CHECK_ST(ct_optim_step(opt, gs), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "grads[1] is [3]") != NULL);
    gs[1] = gi;
    CHECK_ST(ct_optim_step(opt, gs), CT_ERR_DTYPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "grads[1] is float16") != NULL);
    CHECK_ST(ct_optim_step(opt, NULL), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_optim_step(NULL, gs), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_to_host(q, out, sizeof out));
    CHECK(out[0] == 0 && out[3] == 0);
    ct_optim_free(opt);
    ct_optim_free(NULL);
    ct_tensor *rel[] = {p, q, i32, g3, gi, m2, mt, gq};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++)
        ct_tensor_release(rel[k]);
}

/* 0-d and zero-size parameters work in both implementations (the 0-d one moves as the reference
 * says; the empty one stays empty). */
TEST(scalar_and_empty_params) {
    for (int impl = 0; impl < 2; impl++) {
        ct_tensor *s, *e, *gs, *ge;
        float v = 0.5f, gv = 0.25f;
        const int64_t zero = 0;
        CHECK_OK(ct_tensor_from_host(ctx, &v, CT_FLOAT32, 0, NULL, &s));
        CHECK_OK(ct_tensor_from_host(ctx, &gv, CT_FLOAT32, 0, NULL, &gs));
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &zero, &e));
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &zero, &ge));
        ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAM);
        o.impl = (ct_optim_impl)impl;
        ct_tensor *ps[2] = {s, e}, *gr[2] = {gs, ge};
        ct_optim *opt;
        CHECK_OK(ct_optim_create(ctx, &o, 2, ps, &opt));
        ref_el r = {v, 0, 0, 0, 1.0};
        for (int step = 1; step <= 3; step++) {
            CHECK_OK(ct_optim_step(opt, gr));
            ref_step(&o, step, &r, gv);
        }
        float out;
        CHECK_OK(ct_tensor_to_host(s, &out, sizeof out));
        CHECK(bits_eq(out, r.p) && out != v);
        CHECK(ct_tensor_numel(e) == 0);
        ct_optim_free(opt);
        ct_tensor_release(s);
        ct_tensor_release(e);
        ct_tensor_release(gs);
        ct_tensor_release(ge);
    }
}

/* Fault injection: fail the Nth allocation through create + two steps of each implementation;
 * every failure is CT_ERR_OOM with a message and leaks nothing (the hook counts live blocks). */
typedef struct {
    long calls, fail_at, live;
} fault_state;
static void *f_alloc(void *user, size_t n, size_t align) {
    fault_state *s = user;
    if (s->calls++ == s->fail_at) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n ? n : 1)) return NULL;
    s->live++;
    return p;
}
static void f_free(void *user, void *p) {
    fault_state *s = user;
    s->live--;
    free(p);
}
static ct_status fault_sequence(ct_ctx *c, ct_optim_impl impl) {
    const int64_t n = 37;
    ct_tensor *t[4] = {0};
    ct_optim *opt = NULL;
    ct_status st;
    if ((st = ct_tensor_full(c, CT_FLOAT32, 1, &n, 0.5, &t[0])) != CT_OK) goto done;
    if ((st = ct_tensor_full(c, CT_BFLOAT16, 1, &n, 0.25, &t[1])) != CT_OK) goto done;
    if ((st = ct_tensor_full(c, CT_FLOAT32, 1, &n, 0.1, &t[2])) != CT_OK) goto done;
    if ((st = ct_tensor_full(c, CT_BFLOAT16, 1, &n, -0.1, &t[3])) != CT_OK) goto done;
    ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAMW);
    o.impl = impl;
    o.amsgrad = true;
    if ((st = ct_optim_create(c, &o, 2, t, &opt)) != CT_OK) goto done;
    for (int k = 0; k < 2 && st == CT_OK; k++)
        st = ct_optim_step(opt, t + 2);
done:
    ct_optim_free(opt);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(t[i]);
    return st;
}
TEST(fault_injection) {
    for (int impl = 0; impl < 2; impl++) {
        int oom = 0, n;
        for (n = 0; n < 400; n++) {
            fault_state fs = {0, -1, 0};
            ct_ctx_options co = {.size = sizeof co, .allocator = {f_alloc, f_free, &fs}};
            ct_ctx *c = NULL;
            CHECK_OK(ct_ctx_create(&co, &c));
            long before = fs.live;
            fs.fail_at = fs.calls + n;
            ct_status st = fault_sequence(c, (ct_optim_impl)impl);
            if (st != CT_OK) {
                oom++;
                CHECK_MSG(st == CT_ERR_OOM, "impl %d n=%d: status %d (%s)", impl, n, (int)st,
                          ct_ctx_last_error(c));
                CHECK_MSG(strstr(ct_ctx_last_error(c), "memory") != NULL, "n=%d message '%s'", n,
                          ct_ctx_last_error(c));
            }
            CHECK_MSG(fs.live == before, "impl %d n=%d: %ld blocks leaked", impl, n,
                      fs.live - before);
            ct_ctx_free(c);
            CHECK(fs.live == 0);
            if (st == CT_OK) break;
        }
        CHECK(oom > 5 && n < 400);
    }
}

TEST(defaults) {
    ct_optim_options a = ct_optim_options_default(CT_OPTIM_ADAMW);
    CHECK(a.size == sizeof a && a.kind == CT_OPTIM_ADAMW && a.impl == CT_OPTIM_IMPL_FUSED);
    CHECK(a.lr == 1e-3 && a.beta1 == 0.9 && a.beta2 == 0.999 && a.eps == 1e-8);
    CHECK(a.weight_decay == 1e-2 && !a.amsgrad && !a.maximize);
    ct_optim_options g = ct_optim_options_default(CT_OPTIM_ADAGRAD);
    CHECK(g.lr == 1e-2 && g.eps == 1e-10 && g.lr_decay == 0 && g.initial_accumulator_value == 0);
    ct_optim_options s = ct_optim_options_default(CT_OPTIM_SGD);
    CHECK(s.momentum == 0 && s.dampening == 0 && !s.nesterov && s.weight_decay == 0);
    /* torch.optim's defaults of the later optimizers */
    ct_optim_options r = ct_optim_options_default(CT_OPTIM_RMSPROP);
    CHECK(r.lr == 1e-2 && r.alpha == 0.99 && r.eps == 1e-8 && r.momentum == 0 && !r.centered);
    ct_optim_options x = ct_optim_options_default(CT_OPTIM_ADAMAX);
    CHECK(x.lr == 2e-3 && x.beta1 == 0.9 && x.beta2 == 0.999 && x.eps == 1e-8);
    ct_optim_options na = ct_optim_options_default(CT_OPTIM_NADAM);
    CHECK(na.lr == 2e-3 && na.momentum_decay == 4e-3 && !na.decoupled_weight_decay);
    ct_optim_options ra = ct_optim_options_default(CT_OPTIM_RADAM);
    CHECK(ra.lr == 1e-3 && ra.eps == 1e-8 && ra.weight_decay == 0);
    ct_optim_options d = ct_optim_options_default(CT_OPTIM_ADADELTA);
    CHECK(d.lr == 1.0 && d.rho == 0.9 && d.eps == 1e-6);
}

/* A FUSED step captured ONCE and replayed many times == the same number of eager FUSED steps ==
 * eager FOREACH steps, bit for bit: the replay reads the step count and the learning rate from the
 * schedule tensor when it runs, so bias corrections advance and an lr decay written with an op
 * between replays is seen without recapture. */
TEST(captured_once_replayed_many) {
    const int64_t n = 33;
    const int nsteps = 30;
    ct_optim_options os[4];
    os[0] = ct_optim_options_default(CT_OPTIM_SGD);
    os[0].momentum = 0.9, os[0].nesterov = true, os[0].lr = 0.05, os[0].weight_decay = 0.01;
    os[1] = ct_optim_options_default(CT_OPTIM_ADAM);
    os[1].amsgrad = true, os[1].weight_decay = 0.1, os[1].lr = 0.01;
    os[2] = ct_optim_options_default(CT_OPTIM_ADAMW);
    os[2].lr = 0.02;
    os[3] = ct_optim_options_default(CT_OPTIM_ADAGRAD);
    os[3].lr_decay = 0.01, os[3].lr = 0.1;
    for (int k = 0; k < 4; k++) {
        unsigned long long rng = 42 + (unsigned long long)k;
        float p0[33], gv[33];
        for (int i = 0; i < n; i++)
            p0[i] = (float)(2.0 * ct_t_uniform(&rng) - 1.0);
        ct_tensor *P[3], *G[3];
        ct_optim *opt[3];
        for (int j = 0; j < 3; j++) {
            CHECK_OK(ct_tensor_from_host(ctx, p0, CT_FLOAT32, 1, &n, &P[j]));
            CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &G[j]));
            ct_optim_options o = os[k];
            o.impl = j == 2 ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
            CHECK_OK(ct_optim_create(ctx, &o, 1, &P[j], &opt[j]));
        }
        ct_graph *g = NULL;
        CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
        CHECK_OK(ct_graph_capture_begin(g, NULL));
        CHECK_OK(ct_optim_step(opt[1], &G[1]));
        CHECK_OK(ct_graph_capture_end(g));
        int64_t cnt = -1;
        CHECK_OK(ct_optim_step_count(opt[1], 0, &cnt));
        CHECK_MSG(cnt == 0, "capturing ran the step (count %lld)", (long long)cnt);
        for (int step = 1; step <= nsteps; step++) {
            for (int i = 0; i < n; i++)
                gv[i] = grad_val(&rng);
            ct_tensor *h = NULL;
            CHECK_OK(ct_tensor_from_host(ctx, gv, CT_FLOAT32, 1, &n, &h));
            for (int j = 0; j < 3; j++)
                CHECK_OK(ct_tensor_copy_(ctx, G[j], h));
            ct_tensor_release(h);
            if (step % 10 == 0)
                for (int j = 0; j < 3; j++)
                    CHECK_OK(ct_mul_scalar_(ctx, ct_optim_lr(opt[j]), 0.5));
            CHECK_OK(ct_optim_step(opt[0], &G[0]));
            CHECK_OK(ct_graph_replay(g));
            CHECK_OK(ct_optim_step(opt[2], &G[2]));
            float a[33], b[33], c[33];
            CHECK_OK(ct_tensor_to_host(P[0], a, sizeof a));
            CHECK_OK(ct_tensor_to_host(P[1], b, sizeof b));
            CHECK_OK(ct_tensor_to_host(P[2], c, sizeof c));
            bool same = memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) == 0;
            CHECK_MSG(same, "kind %d step %d: eager fused, replayed and foreach differ", k, step);
            if (!same) break;
        }
        for (int j = 0; j < 3; j++) {
            CHECK_OK(ct_optim_step_count(opt[j], 0, &cnt));
            CHECK_MSG(cnt == nsteps, "kind %d path %d: %lld steps counted", k, j, (long long)cnt);
        }
        double lr = 0;
        CHECK_OK(ct_tensor_to_host(ct_optim_lr(opt[1]), &lr, sizeof lr));
        CHECK(lr == os[k].lr * 0.125);
        ct_graph_free(g);
        for (int j = 0; j < 3; j++) {
            ct_optim_free(opt[j]);
            ct_tensor_release(P[j]);
            ct_tensor_release(G[j]);
        }
    }
}

/* grad_scale divides the grads (in place, as torch's fused kernels): grads scaled by 8 with
 * grad_scale 8 give the unscaled step bit for bit (exact power-of-two scaling) and are handed back
 * unscaled; found_inf nonzero skips the step and its count; f32 and f16 params, both impls. */
TEST(grad_scaling) {
    const int64_t n = 37;
    float p0[37], g0[37], g8[37];
    unsigned long long rng = 5;
    for (int i = 0; i < n; i++) {
        p0[i] = (float)(2.0 * ct_t_uniform(&rng) - 1.0);
        g0[i] = grad_val(&rng);
        g8[i] = g0[i] * 8.0f;
    }
    for (int half = 0; half < 2; half++)
        for (int impl = 0; impl < 2; impl++) {
            ct_dtype dt = half ? CT_FLOAT16 : CT_FLOAT32;
            size_t es = half ? 2 : 4;
            ct_tensor *pa, *pb, *ga, *gb, *ga32, *gb32, *pa32, *scale, *inf;
            CHECK_OK(ct_tensor_from_host(ctx, p0, CT_FLOAT32, 1, &n, &pa32));
            CHECK_OK(ct_tensor_from_host(ctx, g0, CT_FLOAT32, 1, &n, &ga32));
            CHECK_OK(ct_tensor_from_host(ctx, g8, CT_FLOAT32, 1, &n, &gb32));
            CHECK_OK(ct_cast(ctx, pa32, dt, &pa));
            CHECK_OK(ct_cast(ctx, pa32, dt, &pb));
            CHECK_OK(ct_cast(ctx, ga32, dt, &ga));
            CHECK_OK(ct_cast(ctx, gb32, dt, &gb));
            float sv = 8.0f, fv = 1.0f;
            CHECK_OK(ct_tensor_from_host(ctx, &sv, CT_FLOAT32, 0, NULL, &scale));
            CHECK_OK(ct_tensor_from_host(ctx, &fv, CT_FLOAT32, 0, NULL, &inf));
            ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAM);
            o.impl = (ct_optim_impl)impl;
            o.lr = 0.05;
            ct_optim *A, *B;
            CHECK_OK(ct_optim_create(ctx, &o, 1, &pa, &A));
            CHECK_OK(ct_optim_create(ctx, &o, 1, &pb, &B));
            CHECK_OK(ct_optim_set_grad_scaling(B, scale, inf));
            /* found_inf = 1: nothing moves */
            CHECK_OK(ct_optim_step(B, &gb));
            char x[37 * 4], y[37 * 4];
            CHECK_OK(ct_tensor_to_host(pb, x, (size_t)n * es));
            CHECK_OK(ct_tensor_to_host(pa, y, (size_t)n * es));
            CHECK_MSG(memcmp(x, y, (size_t)n * es) == 0, "found_inf step moved (%s, impl %d)",
                      ct_dtype_name(dt), impl);
            int64_t cnt = -1;
            CHECK_OK(ct_optim_step_count(B, 0, &cnt));
            CHECK(cnt == 0);
            fv = 0.0f;
            ct_tensor *zero;
            CHECK_OK(ct_tensor_from_host(ctx, &fv, CT_FLOAT32, 0, NULL, &zero));
            CHECK_OK(ct_tensor_copy_(ctx, inf, zero));
            ct_tensor_release(zero);
            for (int s = 0; s < 3; s++) {
                if (s > 0) { /* the grads came back unscaled: scale them again */
                    ct_tensor *t8 = NULL;
                    CHECK_OK(ct_cast(ctx, gb32, dt, &t8));
                    CHECK_OK(ct_tensor_copy_(ctx, gb, t8));
                    ct_tensor_release(t8);
                }
                CHECK_OK(ct_optim_step(A, &ga));
                CHECK_OK(ct_optim_step(B, &gb));
                CHECK_OK(ct_tensor_to_host(pb, x, (size_t)n * es));
                CHECK_OK(ct_tensor_to_host(pa, y, (size_t)n * es));
                CHECK_MSG(memcmp(x, y, (size_t)n * es) == 0, "scaled step %d differs (%s, impl %d)",
                          s, ct_dtype_name(dt), impl);
                CHECK_OK(ct_tensor_to_host(gb, x, (size_t)n * es));
                CHECK_OK(ct_tensor_to_host(ga, y, (size_t)n * es));
                CHECK_MSG(memcmp(x, y, (size_t)n * es) == 0, "grads not unscaled (%s, impl %d)",
                          ct_dtype_name(dt), impl);
            }
            CHECK_OK(ct_optim_step_count(B, 0, &cnt));
            CHECK(cnt == 3);
            if (impl == CT_OPTIM_IMPL_FOREACH) { /* found_inf is read on the host */
                ct_graph *g = NULL;
                CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
                CHECK_OK(ct_graph_capture_begin(g, NULL));
                CHECK_ST(ct_optim_step(B, &gb), CT_ERR_UNSUPPORTED);
                CHECK(strstr(ct_ctx_last_error(ctx), "found_inf") != NULL);
                ct_graph_capture_end(g);
                ct_graph_free(g);
            }
            /* bad scaling tensors */
            CHECK_ST(ct_optim_set_grad_scaling(B, pa32, NULL), CT_ERR_INVALID_ARG);
            CHECK(strstr(ct_ctx_last_error(ctx), "grad_scale") != NULL);
            CHECK_ST(ct_optim_set_grad_scaling(B, NULL, ga), CT_ERR_INVALID_ARG);
            CHECK_OK(ct_optim_set_grad_scaling(B, NULL, NULL));
            ct_optim_free(A);
            ct_optim_free(B);
            ct_tensor *all[] = {pa, pb, ga, gb, ga32, gb32, pa32, scale, inf};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
                ct_tensor_release(all[i]);
        }
}

/* State saved after 5 steps and loaded into a fresh optimizer (over copies of the params): the
 * next 5 steps are bit-identical to the original's, lr as last written included; mismatched
 * optimizers and damaged files are refused without changing anything. */
/* Rprop / ASGD: infinite step sizes and t0 (torch accepts them) survive a state file; a FOREACH
 * step captured after an eager write of the lr uses that lr (as FUSED and eager FOREACH do). */
TEST(rprop_asgd_edges) {
    const int64_t n = 5;
    float g5[5] = {0.5f, -1, 2, 0, -0.25f};
    ct_tensor *p[2] = {NULL, NULL}, *g = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, g5, CT_FLOAT32, 1, &n, &g));
    ct_optim_options o = ct_optim_options_default(CT_OPTIM_RPROP);
    o.step_size_max = INFINITY;
    ct_optim *a = NULL, *b = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &p[0]));
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &p[1]));
    CHECK_OK(ct_optim_create(ctx, &o, 1, &p[0], &a));
    CHECK_OK(ct_optim_step(a, &g));
    char path[] = "/tmp/ctorch_rprop_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(ct_optim_save_state(a, path));
    o.step_size_max = 1.0; /* the file's inf replaces it */
    CHECK_OK(ct_optim_create(ctx, &o, 1, &p[1], &b));
    ct_status st = ct_optim_load_state(b, path);
    CHECK_MSG(st == CT_OK, "%s", ct_ctx_last_error(ctx));
    unlink(path);
    CHECK_OK(ct_tensor_copy_(ctx, p[1], p[0]));
    for (int k = 0; k < 30; k++) { /* the step sizes grow past 1 without a cap */
        CHECK_OK(ct_optim_step(a, &g));
        CHECK_OK(ct_optim_step(b, &g));
    }
    CHECK(tu_same_values(p[0], p[1]));
    float ss[5];
    CHECK_OK(ct_tensor_to_host(ct_optim_state(b, 0, "step_size"), ss, sizeof ss));
    CHECK(ss[0] > 1.0f);
    CHECK(ct_optim_state(b, 0, "exp_avg") == NULL && ct_optim_state(b, 1, "prev") == NULL);
    ct_optim_free(a), ct_optim_free(b);
    o = ct_optim_options_default(CT_OPTIM_ASGD);
    o.t0 = INFINITY; /* never averages */
    CHECK_OK(ct_optim_create(ctx, &o, 1, &p[0], &a));
    ct_optim_free(a);
    o.lambd = -1e-3; /* torch fails at a step with a math domain error */
    CHECK_ST(ct_optim_create(ctx, &o, 1, &p[0], &a), CT_ERR_INVALID_ARG);
    /* FOREACH captured after an eager lr write == FUSED */
    for (int kind = 0; kind < 2; kind++) {
        ct_optim_options q = ct_optim_options_default(kind ? CT_OPTIM_ASGD : CT_OPTIM_SGD);
        q.lr = 0.1;
        ct_optim *op[2];
        for (int impl = 0; impl < 2; impl++) {
            CHECK_OK(ct_tensor_fill_(ctx, p[impl], 1.0));
            q.impl = impl ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
            CHECK_OK(ct_optim_create(ctx, &q, 1, &p[impl], &op[impl]));
            CHECK_OK(ct_optim_step(op[impl], &g));
            CHECK_OK(ct_tensor_fill_(ctx, ct_optim_lr(op[impl]), 0.01));
            for (int r = 0; r < 2; r++) {
                ct_graph *gr = NULL;
                CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &gr));
                CHECK_OK(ct_graph_capture_begin(gr, NULL));
                CHECK_OK(ct_optim_step(op[impl], &g));
                CHECK_OK(ct_graph_capture_end(gr));
                CHECK_OK(ct_graph_replay(gr));
                ct_graph_free(gr);
            }
        }
        CHECK_MSG(tu_same_values(p[0], p[1]), "kind %d: captured FOREACH missed the new lr", kind);
        ct_optim_free(op[0]), ct_optim_free(op[1]);
    }
    ct_tensor_release(p[0]), ct_tensor_release(p[1]), ct_tensor_release(g);
}

TEST(state_save_load) {
    char path[] = "/tmp/ct_optim_stateXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    /* RMSprop twice: with momentum and centered (3 slots), and centered alone (its grad_avg is
     * the second slot) */
    ct_optim_kind kinds[11] = {CT_OPTIM_SGD,      CT_OPTIM_ADAM,    CT_OPTIM_ADAMW,
                               CT_OPTIM_ADAGRAD,  CT_OPTIM_RMSPROP, CT_OPTIM_RMSPROP,
                               CT_OPTIM_ADAMAX,   CT_OPTIM_NADAM,   CT_OPTIM_RADAM,
                               CT_OPTIM_ADADELTA, CT_OPTIM_NADAM};
    for (int k = 0; k < 11; k++) {
        const int64_t n1 = 7, s2[2] = {3, 5};
        unsigned long long rng = 77 + (unsigned long long)k;
        float a0[7], b0[15], ga[7], gb[15];
        for (int i = 0; i < 7; i++)
            a0[i] = grad_val(&rng);
        for (int i = 0; i < 15; i++)
            b0[i] = grad_val(&rng);
        ct_tensor *A, *B, *GA, *GB;
        CHECK_OK(ct_tensor_from_host(ctx, a0, CT_FLOAT32, 1, &n1, &A));
        CHECK_OK(ct_tensor_from_host(ctx, b0, CT_FLOAT32, 2, s2, &B));
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n1, &GA));
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, s2, &GB));
        ct_optim_options o = ct_optim_options_default(kinds[k]);
        o.momentum = kinds[k] == CT_OPTIM_SGD || k == 4 ? 0.9 : 0;
        o.amsgrad = kinds[k] == CT_OPTIM_ADAM;
        o.centered = kinds[k] == CT_OPTIM_RMSPROP;
        o.lr = 0.05;
        if (k == 10) { /* NAdam with decoupled weight decay */
            o.weight_decay = 0.1;
            o.decoupled_weight_decay = true;
        }
        ct_tensor *ps[2] = {A, B}, *gs[2] = {GA, GB};
        ct_optim *opt = NULL, *fresh = NULL;
        CHECK_OK(ct_optim_create(ctx, &o, 2, ps, &opt));
        ct_tensor *A2 = NULL, *B2 = NULL;
        for (int step = 0; step < 10; step++) {
            for (int i = 0; i < 7; i++)
                ga[i] = grad_val(&rng);
            for (int i = 0; i < 15; i++)
                gb[i] = grad_val(&rng);
            ct_tensor *h1, *h2;
            CHECK_OK(ct_tensor_from_host(ctx, ga, CT_FLOAT32, 1, &n1, &h1));
            CHECK_OK(ct_tensor_from_host(ctx, gb, CT_FLOAT32, 2, s2, &h2));
            CHECK_OK(ct_tensor_copy_(ctx, GA, h1));
            CHECK_OK(ct_tensor_copy_(ctx, GB, h2));
            ct_tensor_release(h1), ct_tensor_release(h2);
            if (step == 5) { /* save, and continue on copies with a fresh optimizer */
                CHECK_OK(ct_mul_scalar_(ctx, ct_optim_lr(opt), 0.5));
                CHECK_OK(ct_optim_save_state(opt, path));
                CHECK_OK(ct_tensor_clone(ctx, A, &A2));
                CHECK_OK(ct_tensor_clone(ctx, B, &B2));
                ct_tensor *p2[2] = {A2, B2};
                ct_optim_options o2 = o; /* lr and weight decay come from the file */
                o2.lr = 1.0;
                o2.weight_decay *= 3;
                o2.impl = (k & 1) || k == 10 ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
                CHECK_OK(ct_optim_create(ctx, &o2, 2, p2, &fresh));
                CHECK_OK(ct_optim_load_state(fresh, path));
                int64_t c = 0;
                CHECK_OK(ct_optim_step_count(fresh, 1, &c));
                CHECK(c == 5);
                double lr = 0;
                CHECK_OK(ct_tensor_to_host(ct_optim_lr(fresh), &lr, sizeof lr));
                CHECK(lr == 0.025);
            }
            CHECK_OK(ct_optim_step(opt, gs));
            if (fresh) CHECK_OK(ct_optim_step(fresh, gs));
        }
        float x[15], y[15];
        CHECK_OK(ct_tensor_to_host(A, x, 7 * 4));
        CHECK_OK(ct_tensor_to_host(A2, y, 7 * 4));
        CHECK_MSG(memcmp(x, y, 7 * 4) == 0, "kind %d: resumed run differs (A)", k);
        CHECK_OK(ct_tensor_to_host(B, x, 15 * 4));
        CHECK_OK(ct_tensor_to_host(B2, y, 15 * 4));
        CHECK_MSG(memcmp(x, y, 15 * 4) == 0, "kind %d: resumed run differs (B)", k);
        /* mismatches */
        ct_optim *other = NULL;
        ct_optim_options oo = ct_optim_options_default(kinds[k] == CT_OPTIM_ADAM ? CT_OPTIM_NADAM
                                                       : kinds[k] == CT_OPTIM_NADAM
                                                           ? CT_OPTIM_RADAM
                                                           : (ct_optim_kind)((kinds[k] + 1) % 9));
        CHECK_OK(ct_optim_create(ctx, &oo, 2, ps, &other));
        CHECK_ST(ct_optim_load_state(other, path), CT_ERR_INVALID_ARG);
        CHECK(strstr(ct_ctx_last_error(ctx), "state") != NULL);
        ct_optim_free(other);
        CHECK_OK(ct_optim_create(ctx, &o, 1, ps, &other));
        CHECK_ST(ct_optim_load_state(other, path), CT_ERR_INVALID_ARG);
        CHECK(strstr(ct_ctx_last_error(ctx), "parameters") != NULL);
        ct_optim_free(other);
        ct_tensor *ps_swapped[2] = {B, A};
        CHECK_OK(ct_optim_create(ctx, &o, 2, ps_swapped, &other));
        ct_status want = kinds[k] == CT_OPTIM_SGD && o.momentum == 0 ? CT_OK : CT_ERR_SHAPE;
        CHECK_ST(ct_optim_load_state(other, path), want);
        int64_t c = -1;
        CHECK_OK(ct_optim_step_count(other, 0, &c));
        CHECK_MSG(c == 0, "a failed load changed the step count to %lld", (long long)c);
        ct_optim_free(other);
        ct_optim_free(opt);
        ct_optim_free(fresh);
        ct_tensor *all[] = {A, B, GA, GB, A2, B2};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            ct_tensor_release(all[i]);
    }
    /* not a state file */
    ct_tensor *p = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &p));
    const char *nm[1] = {"x"};
    const ct_tensor *pt[1] = {p};
    CHECK_OK(ct_safetensors_save(ctx, path, 1, nm, pt, NULL));
    ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAM);
    ct_optim *opt = NULL;
    CHECK_OK(ct_optim_create(ctx, &o, 1, &p, &opt));
    CHECK_ST(ct_optim_load_state(opt, path), CT_ERR_FORMAT);
    CHECK(strstr(ct_ctx_last_error(ctx), "not a ctorch optimizer state") != NULL);
    ct_optim_free(opt);
    ct_tensor_release(p);
    unlink(path);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    const char *e = getenv("CT_OPTIM_STEPS");
    if (e && atoi(e) > 0) nsteps_small = nsteps_large = atoi(e);
    RUN(defaults);
    RUN(errors);
    RUN(null_grad_skips);
    RUN(scalar_and_empty_params);
    RUN(fault_injection);
    RUN(half_params);
    RUN(parity_sgd);
    RUN(parity_adam);
    RUN(parity_adamw);
    RUN(parity_adagrad);
    RUN(parity_rmsprop);
    RUN(parity_adamax);
    RUN(parity_nadam);
    RUN(parity_radam);
    RUN(parity_adadelta);
    RUN(parity_rprop);
    RUN(parity_asgd);
    RUN(rprop_asgd_edges);
    RUN(captured_once_replayed_many);
    RUN(grad_scaling);
    RUN(state_save_load);
    ct_ctx_free(ctx);
    return ct_test_end();
}

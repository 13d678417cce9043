/* The ref build of the fused optimizer loops (optim_body.inc) and the CT_OP_OPTIM_STEP kernel:
 * picks the ISA's loop, splits the parameter over the context's pool (each element is computed
 * whole by one thread, so the split never changes a bit), and runs f16/bf16 parameters through
 * f32 blocks (widened, updated in f32, rounded once to nearest even on store). */
#define CT_SFX(name) ct_k_ref_##name
#include "backends/cpu/kernels/optim_body.inc"

#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/par.h"

typedef struct {
    ct_k_optim_hp h;
    ct_k_optim_fn fn;
    ct_dtype dt;
    char *p;
    char *g;
    float *st;
    int64_t n;
    bool scaled; /* divide the grads by scale first, and store them back unscaled */
    float scale;
} ct_k_optim_job;

enum { CT_K_OPT_BLOCK = 512 };

static void ct_k_optim_range(void *arg, int64_t b, int64_t e) {
    const ct_k_optim_job *j = arg;
    if (j->dt == CT_FLOAT32) {
        float *g = (float *)j->g + b;
        if (j->scaled)
            for (int64_t i = 0; i < e - b; i++)
                g[i] = g[i] / j->scale;
        /* the state slots are j->n apart: offset every slot by b */
        j->fn(&j->h, e - b, (float *)j->p + b, g, j->st ? j->st + b : NULL, j->n);
        return;
    }
    bool bf = j->dt == CT_BFLOAT16;
    float pb[CT_K_OPT_BLOCK], gb[CT_K_OPT_BLOCK];
    uint16_t *p16 = (uint16_t *)j->p, *g16 = (uint16_t *)j->g;
    for (int64_t s = b; s < e; s += CT_K_OPT_BLOCK) {
        int64_t k = e - s < CT_K_OPT_BLOCK ? e - s : CT_K_OPT_BLOCK;
        for (int64_t i = 0; i < k; i++) {
            pb[i] = bf ? ct__bf2f(p16[s + i]) : ct__h2f(p16[s + i]);
            gb[i] = bf ? ct__bf2f(g16[s + i]) : ct__h2f(g16[s + i]);
        }
        if (j->scaled)
            for (int64_t i = 0; i < k; i++) {
                gb[i] = gb[i] / j->scale;
                g16[s + i] = bf ? ct__f2bf(gb[i]) : ct__f2h(gb[i]);
            }
        j->fn(&j->h, k, pb, gb, j->st ? j->st + s : NULL, j->n);
        for (int64_t i = 0; i < k; i++)
            p16[s + i] = bf ? ct__f2bf(pb[i]) : ct__f2h(pb[i]);
    }
}

ct_status ct_k_optim(const ct_op_desc *op, const ct_k_isa *isa) {
    if (op->n_out != 3 || op->n_in < 1 || op->n_in > 3) return CT_ERR_UNSUPPORTED;
    const ct_operand *po = &op->operands[0], *so = &op->operands[1], *sch = &op->operands[2],
                     *go = &op->operands[3];
    const ct_operand *gs = op->n_in >= 2 ? &op->operands[4] : NULL,
                     *fi = op->n_in >= 3 ? &op->operands[5] : NULL;
    ct_dtype dt = po->dtype;
    if ((dt != CT_FLOAT32 && dt != CT_FLOAT16 && dt != CT_BFLOAT16) || go->dtype != dt ||
        (so->data && so->dtype != CT_FLOAT32) || sch->dtype != CT_FLOAT64 || !sch->data ||
        (gs && gs->data && gs->dtype != CT_FLOAT32) || (fi && fi->data && fi->dtype != CT_FLOAT32))
        return CT_ERR_UNSUPPORTED;
    if (fi && fi->data && *(const float *)fi->data != 0.0f) return CT_OK; /* found_inf: skip */
    ct_k_optim_job j;
    const int kind = (int)(op->ints[0] & 0xff);
    if (kind < CT_K_OPT_SGD || kind >= CT_K_OPT_KINDS || op->ints[1] < 0 ||
        op->ints[2] <= op->ints[1])
        return CT_ERR_UNSUPPORTED;
    double *sched = sch->data, *mu = &sched[CT_K_OH_N + op->ints[2] + op->ints[1]];
    double step = sched[CT_K_OH_N + op->ints[1]] + 1.0;
    sched[CT_K_OH_N + op->ints[1]] = step;
    ct_k_optim_hp_make(kind, (unsigned)((uint64_t)op->ints[0] >> 8), sched,
                       sched + CT_K_OH_N + 2 * op->ints[2], step, *mu, &j.h);
    *mu = j.h.mu_product;
    j.fn = isa == &ct_k_isa_avx512 ? ct_k_avx512_optim_f32
           : isa == &ct_k_isa_avx2 ? ct_k_avx2_optim_f32
                                   : ct_k_ref_optim_f32;
    j.dt = dt;
    j.p = po->data;
    j.g = go->data;
    j.st = so->data;
    j.scaled = gs && gs->data;
    j.scale = j.scaled ? *(const float *)gs->data : 1.0f;
    j.n = 1;
    for (int d = 0; d < po->ndim; d++)
        j.n *= po->shape[d];
    if (j.n == 0) return CT_OK;
    ct_k_parallel_for(j.n, 32768, op->num_threads, ct_k_optim_range, &j);
    return CT_OK;
}

/* libFuzzer target for the PyTorch checkpoint reader (ct_torch_load_buffer: ZIP directory, inflate,
 * the restricted unpickler, storage records): any input gives a status, never a crash; a failure
 * always says why and returns no archive; on success every entry is read back (tensors of up to
 * 4096 elements are printed, so their values are touched) and the archive is loaded as a
 * torch.optim state into four optimizers (ct_optim_load_torch_state) and as scheduler states
 * (ct_lr_scheduler_load_torch_state), each followed by a step. */
#include <ctorch/ctorch.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 0;
    ct_archive *a = NULL;
    ct_status st = ct_torch_load_buffer(ctx, data, size, &a);
    if (st != CT_OK) {
        if (a != NULL || ct_ctx_last_error(ctx)[0] == '\0') abort();
        ct_ctx_free(ctx);
        return 0;
    }
    for (int i = 0; i < ct_archive_count(a); i++) {
        const char *name = ct_archive_name(a, i);
        int64_t iv;
        double fv;
        const char *s;
        size_t len;
        switch (ct_archive_kind(a, i)) {
        case CT_ENTRY_TENSOR: {
            ct_tensor *t = NULL;
            if (ct_archive_get(a, name, &t) == CT_OK) {
                if (!t) abort();
                char *str = NULL;
                if (ct_tensor_numel(t) <= 4096 && ct_tensor_to_string(t, &str) == CT_OK) free(str);
            } else if (t || ct_ctx_last_error(ctx)[0] == '\0') {
                abort();
            }
            ct_tensor_release(t);
            break;
        }
        case CT_ENTRY_INT:
        case CT_ENTRY_BOOL:
            if (ct_archive_get_int(a, name, &iv) != CT_OK) abort();
            break;
        case CT_ENTRY_FLOAT:
            if (ct_archive_get_float(a, name, &fv) != CT_OK) abort();
            break;
        case CT_ENTRY_STRING:
        case CT_ENTRY_BYTES:
            if (ct_archive_get_string(a, name, &s, &len) != CT_OK || s[len] != 0) abort();
            break;
        case CT_ENTRY_NONE: break;
        default: abort();
        }
    }
    /* the archive as a torch.optim state for a few optimizers over parameters [3] and [2, 2]:
     * a status, never a crash, and a failure explains itself */
    const int64_t s3 = 3, s22[2] = {2, 2};
    ct_tensor *p[2] = {NULL, NULL};
    if (ct_tensor_zeros(ctx, CT_FLOAT32, 1, &s3, &p[0]) == CT_OK &&
        ct_tensor_zeros(ctx, CT_FLOAT32, 2, s22, &p[1]) == CT_OK) {
        static const ct_optim_kind kinds[6] = {CT_OPTIM_ADAM,  CT_OPTIM_SGD,   CT_OPTIM_RMSPROP,
                                               CT_OPTIM_NADAM, CT_OPTIM_RPROP, CT_OPTIM_ASGD};
        for (int k = 0; k < 6; k++) {
            ct_optim_options o = ct_optim_options_default(kinds[k]);
            o.amsgrad = true;
            o.momentum = kinds[k] == CT_OPTIM_ADAM ? 0 : 0.5;
            o.centered = true;
            ct_optim *opt = NULL;
            if (ct_optim_create(ctx, &o, 2, p, &opt) != CT_OK) abort();
            for (int pre = 0; pre < 2; pre++) {
                ct_status ls = ct_optim_load_torch_state(opt, a, pre ? "optimizer" : NULL);
                if (ls != CT_OK && ct_ctx_last_error(ctx)[0] == '\0') abort();
                if (ls == CT_OK) { /* a loaded state steps: a status, never a crash */
                    ct_tensor *g[2] = {p[0], p[1]};
                    (void)ct_optim_step(opt, g);
                }
            }
            if (kinds[k] == CT_OPTIM_SGD) { /* and as scheduler states */
                static const ct_lr_scheduler_kind sk[6] = {CT_LR_STEP,
                                                           CT_LR_COSINE_WARM_RESTARTS,
                                                           CT_LR_REDUCE_ON_PLATEAU,
                                                           CT_LR_LINEAR,
                                                           CT_LR_CHAINED,
                                                           CT_LR_SEQUENTIAL};
                for (int j = 0; j < 6; j++) {
                    ct_lr_scheduler_options so =
                        ct_lr_scheduler_options_default(j >= 4 ? CT_LR_EXPONENTIAL : sk[j]);
                    so.step_size = so.T_0 = 3;
                    ct_lr_scheduler *sch = NULL, *kids[2] = {NULL, NULL};
                    if (j >= 4) { /* ChainedScheduler / SequentialLR over two schedulers */
                        ct_lr_scheduler_options so2 = ct_lr_scheduler_options_default(CT_LR_STEP);
                        so2.step_size = 2;
                        const int64_t ms[1] = {4};
                        if (ct_lr_scheduler_create(opt, &so, &kids[0]) != CT_OK ||
                            ct_lr_scheduler_create(opt, &so2, &kids[1]) != CT_OK ||
                            (j == 4 ? ct_lr_scheduler_create_chained(opt, 2, kids, &sch)
                                    : ct_lr_scheduler_create_sequential(opt, 2, kids, ms, &sch)) !=
                                CT_OK)
                            abort();
                    } else if (ct_lr_scheduler_create(opt, &so, &sch) != CT_OK) {
                        abort();
                    }
                    for (int pre = 0; pre < 2; pre++) {
                        ct_status ls =
                            ct_lr_scheduler_load_torch_state(sch, a, pre ? "scheduler" : NULL);
                        if (ls != CT_OK && ct_ctx_last_error(ctx)[0] == '\0') abort();
                        if (ls == CT_OK && sk[j] != CT_LR_REDUCE_ON_PLATEAU)
                            (void)ct_lr_scheduler_step(sch); /* a status, never a crash */
                    }
                    ct_lr_scheduler_free(sch);
                    ct_lr_scheduler_free(kids[0]);
                    ct_lr_scheduler_free(kids[1]);
                }
            }
            ct_optim_free(opt);
        }
    }
    ct_tensor_release(p[0]);
    ct_tensor_release(p[1]);
    ct_archive_free(a);
    ct_ctx_free(ctx);
    return 0;
}

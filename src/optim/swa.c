/* Stochastic weight averaging (include/ctorch/optim.h): torch.optim.swa_utils.AveragedModel's
 * update_parameters as public ops under no_grad (the SWALR scheduler is in lr_scheduler.c). */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/ops.h"
#include "ctorch/optim.h"
#include "tensor/tensor_impl.h"


ct_status ct_swa_update_parameters(ct_ctx *ctx, int n, ct_tensor *const *averaged,
                                   const ct_tensor *const *params, ct_swa_avg avg, double decay,
                                   int64_t *n_averaged) {
    static const char fn[] = "swa_update_parameters";
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (n < 0 || (n > 0 && (!averaged || !params)) || !n_averaged)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s", fn,
                             n < 0         ? "n is negative"
                             : !n_averaged ? "n_averaged is NULL"
                                           : "averaged or params is NULL");
    if (*n_averaged < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: n_averaged is %lld", fn,
                             (long long)*n_averaged);
    if (avg != CT_SWA_MEAN && avg != CT_SWA_EMA)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: avg %d is not MEAN or EMA", fn,
                             (int)avg);
    if (avg == CT_SWA_EMA && !(decay >= 0 && decay <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: decay %g is not in [0, 1]", fn, decay);
    ct_status st = CT_OK;
    for (int i = 0; i < n && st == CT_OK; i++) {
        const ct_tensor *ins[2] = {averaged[i], params[i]};
        st = ct__check_args(ctx, fn, 2, ins, ins);
        if (st == CT_OK && !ct_dtype_is_floating(averaged[i]->dtype))
            st = ct__set_error(ctx, CT_ERR_DTYPE, "%s: averaged[%d] is %s, not floating", fn, i,
                               ct_dtype_name(averaged[i]->dtype));
        bool same = st == CT_OK && averaged[i]->ndim == params[i]->ndim;
        for (int d = 0; same && d < averaged[i]->ndim; d++)
            same = averaged[i]->shape[d] == params[i]->shape[d];
        if (st == CT_OK && !same)
            st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: averaged[%d] is %s, params[%d] %s", fn, i,
                               CT__SHAPE_STR(averaged[i]), i, CT__SHAPE_STR(params[i]));
    }
    if (st != CT_OK) return st;
    const bool was = ct_set_grad_enabled(ctx, false);
    for (int i = 0; i < n && st == CT_OK; i++) {
        ct_tensor *a = averaged[i], *x[4] = {NULL};
        const ct_tensor *p = params[i];
        if (*n_averaged == 0) {
            st = ct_tensor_copy_(ctx, a, p);
        } else if (avg == CT_SWA_MEAN) { /* avg + (p - avg) / (n + 1), in avg's dtype */
            CT__DO(st, ct_cast(ctx, p, a->dtype, &x[0]));
            CT__DO(st, ct_sub(ctx, x[0], a, &x[1]));
            CT__DO(st, ct_div_scalar(ctx, x[1], (double)(*n_averaged + 1), &x[2]));
            CT__DO(st, ct_add(ctx, a, x[2], &x[3]));
            CT__DO(st, ct_tensor_copy_(ctx, a, x[3]));
        } else { /* decay avg + (1 - decay) p */
            CT__DO(st, ct_cast(ctx, p, a->dtype, &x[0]));
            CT__DO(st, ct_mul_scalar(ctx, a, decay, &x[1]));
            CT__DO(st, ct_mul_scalar(ctx, x[0], 1.0 - decay, &x[2]));
            CT__DO(st, ct_add(ctx, x[1], x[2], &x[3]));
            CT__DO(st, ct_tensor_copy_(ctx, a, x[3]));
        }
        ct__release_all(4, x);
    }
    ct_set_grad_enabled(ctx, was);
    if (st == CT_OK) ++*n_averaged;
    return ct__error_within(ctx, fn, st);
}

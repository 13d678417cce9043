/* Gradient clipping (include/ctorch/optim.h): torch.nn.utils.clip_grad_norm_ and clip_grad_value_,
 * written with public ops under no_grad so that a graph can capture them (the total norm and the
 * clip coefficient stay on the device; only error_if_nonfinite reads the norm on the host). */
#include "core/internal.h"
#include "ctorch/autograd.h"
#include "ctorch/inplace.h"
#include "ctorch/linalg.h"
#include "ctorch/ops.h"
#include "ctorch/optim.h"
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Python's str() of a float for the messages torch formats with f-strings: 2.0, inf, 0.5. */
static void ct__py_float(char *buf, size_t n, double v) {
    if (isinf(v))
        snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
    else if (isnan(v))
        snprintf(buf, n, "nan");
    else if (v == floor(v) && fabs(v) < 1e16)
        snprintf(buf, n, "%.1f", v);
    else
        snprintf(buf, n, "%.17g", v);
}

/* Every non-NULL grad: a floating tensor of ctx. */
static ct_status ct__clip_check(ct_ctx *ctx, const char *fn, int n, ct_tensor *const *grads) {
    if (n < 0 || (n > 0 && !grads))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %s", fn,
                             n < 0 ? "n is negative" : "grads is NULL");
    for (int i = 0; i < n; i++) {
        const ct_tensor *g = grads[i];
        if (!g) continue;
        if (g->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: grads[%d] belongs to another context", fn, i);
        ct_dtype dt = ct_tensor_dtype(g);
        if (!ct_dtype_is_floating(dt) && !ct_dtype_is_complex(dt))
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "%s: grads[%d] is %s; gradients are floating or complex", fn, i,
                                 ct_dtype_name(dt));
    }
    return CT_OK;
}

static ct_status ct__clip_norm(ct_ctx *ctx, int n, ct_tensor *const *grads, double max_norm,
                               double norm_type, bool error_if_nonfinite, ct_tensor **total_norm) {
    static const char fn[] = "clip_grad_norm_";
    ct_status st = ct__clip_check(ctx, fn, n, grads);
    if (st != CT_OK) return st;
    /* a NaN max_norm makes every gradient NaN, as torch; a NaN order is refused as by
     * ct_linalg_vector_norm (torch gives NaN) */
    if (isnan(norm_type)) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: norm_type is NaN", fn);
    int m = 0;
    for (int i = 0; i < n; i++)
        m += grads[i] != NULL;
    if (m == 0) { /* torch.tensor(0.) */
        if (!total_norm) return CT_OK;
        return ct_tensor_zeros(ctx, CT_FLOAT32, 0, NULL, total_norm);
    }
    ct_tensor **norms = ct__alloc(ctx, sizeof *norms * (size_t)m, 16);
    if (!norms) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", fn);
    memset(norms, 0, sizeof *norms * (size_t)m);
    /* each grad's norm (a 0-d real tensor of its dtype's real type), promoted to one dtype */
    ct_dtype dt = CT_BOOL;
    int k = 0;
    for (int i = 0; i < n && st == CT_OK; i++) {
        if (!grads[i]) continue;
        st = ct_linalg_vector_norm(ctx, grads[i], norm_type, 0, NULL, false, &norms[k]);
        if (st != CT_OK) break;
        ct_dtype d = ct_tensor_dtype(norms[k++]);
        if (dt == CT_BOOL)
            dt = d;
        else
            st = ct_promote_types(dt, d, &dt);
    }
    for (int i = 0; i < m && st == CT_OK; i++)
        if (ct_tensor_dtype(norms[i]) != dt) {
            ct_tensor *c = NULL;
            st = ct_cast(ctx, norms[i], dt, &c);
            ct_tensor_release(norms[i]);
            norms[i] = c;
        }
    ct_tensor *stacked = NULL, *total = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL, *coef = NULL;
    if (st == CT_OK) st = ct_stack(ctx, m, (const ct_tensor *const *)norms, 0, &stacked);
    if (st == CT_OK) st = ct_linalg_vector_norm(ctx, stacked, norm_type, 0, NULL, false, &total);
    if (st == CT_OK && error_if_nonfinite) {
        if (ct__any_capture(ctx))
            st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                               "%s: error_if_nonfinite reads the total norm on the host and cannot "
                               "be captured",
                               fn);
        double v = 0;
        ct_tensor *d = NULL;
        if (st == CT_OK) st = ct_cast(ctx, total, CT_FLOAT64, &d);
        if (st == CT_OK) st = ct_tensor_to_host(d, &v, sizeof v);
        ct_tensor_release(d);
        if (st == CT_OK && !isfinite(v)) {
            char o[40];
            ct__py_float(o, sizeof o, norm_type);
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "The total norm of order %s for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped. To disable this error and "
                               "scale the gradients by the non-finite norm anyway, set "
                               "`error_if_nonfinite=False`",
                               o);
        }
    }
    /* torch: clamp(max_norm / (total + 1e-6), max=1), where a Python float over a tensor is
     * tensor.reciprocal() * max_norm (two roundings) */
    const double one = 1.0;
    if (st == CT_OK) st = ct_add_scalar(ctx, total, 1e-6, &t1);
    if (st == CT_OK) st = ct_reciprocal(ctx, t1, &t2);
    if (st == CT_OK) st = ct_mul_scalar(ctx, t2, max_norm, &t3);
    if (st == CT_OK) st = ct_clamp(ctx, t3, NULL, &one, &coef);
    for (int i = 0; i < n && st == CT_OK; i++)
        if (grads[i]) st = ct_mul_(ctx, grads[i], coef);
    for (int i = 0; i < m; i++)
        ct_tensor_release(norms[i]);
    ct__free(ctx, norms);
    ct_tensor *tmp[] = {stacked, t1, t2, t3, coef};
    for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++)
        ct_tensor_release(tmp[i]);
    if (st == CT_OK && total_norm)
        *total_norm = total;
    else
        ct_tensor_release(total);
    return st;
}

ct_status ct_clip_grad_norm_(ct_ctx *ctx, int n, ct_tensor *const *grads, double max_norm,
                             double norm_type, bool error_if_nonfinite, ct_tensor **total_norm) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (total_norm) *total_norm = NULL;
    bool prev = ct_set_grad_enabled(ctx, false);
    ct_status st =
        ct__clip_norm(ctx, n, grads, max_norm, norm_type, error_if_nonfinite, total_norm);
    ct_set_grad_enabled(ctx, prev);
    return st;
}

ct_status ct_clip_grad_value_(ct_ctx *ctx, int n, ct_tensor *const *grads, double clip_value) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    ct_status st = ct__clip_check(ctx, "clip_grad_value_", n, grads);
    if (st != CT_OK) return st;
    for (int i = 0; i < n; i++)
        if (grads[i] && ct_dtype_is_complex(ct_tensor_dtype(grads[i])))
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "clip_grad_value_: grads[%d] is complex (clamp is not supported "
                                 "for complex types)",
                                 i);
    bool prev = ct_set_grad_enabled(ctx, false);
    const double lo = -clip_value, hi = clip_value;
    for (int i = 0; i < n && st == CT_OK; i++)
        if (grads[i]) st = ct_clamp_(ctx, grads[i], &lo, &hi);
    ct_set_grad_enabled(ctx, prev);
    return st;
}

/* torch's aliases and torch.special's re-exports: each forwards to the op it names (the same
 * result, node name and errors; a failure's message names the alias). docs/everyday.md ("torch's
 * aliases") lists them. */
#include "autograd/autograd_impl.h"
#include "ctorch/linalg.h"

#define CT__ALIAS1(name, target)                                                                   \
    ct_status ct_##name(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {                        \
        return ct__error_within(ctx, #name, ct_##target(ctx, a, out));                             \
    }
#define CT__ALIAS2(name, target)                                                                   \
    ct_status ct_##name(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {    \
        return ct__error_within(ctx, #name, ct_##target(ctx, a, b, out));                          \
    }

/* torch.special */
CT__ALIAS1(special_expit, sigmoid)
CT__ALIAS1(special_gammaln, lgamma)
CT__ALIAS1(special_psi, digamma)
CT__ALIAS1(special_digamma, digamma)
CT__ALIAS1(special_erf, erf)
CT__ALIAS1(special_erfc, erfc)
CT__ALIAS1(special_erfinv, erfinv)
CT__ALIAS1(special_exp2, exp2)
CT__ALIAS1(special_expm1, expm1)
CT__ALIAS1(special_log1p, log1p)
CT__ALIAS1(special_sinc, sinc)
CT__ALIAS1(special_round, round)
CT__ALIAS1(special_i0, i0)
CT__ALIAS1(special_modified_bessel_i0, i0)
CT__ALIAS1(special_modified_bessel_i1, special_i1)
CT__ALIAS2(special_xlogy, xlogy)
ct_status ct_special_multigammaln(ct_ctx *ctx, const ct_tensor *a, int64_t p, ct_tensor **out) {
    return ct__error_within(ctx, "special_multigammaln", ct_mvlgamma(ctx, a, p, out));
}
ct_status ct_special_polygamma(ct_ctx *ctx, int64_t n, const ct_tensor *a, ct_tensor **out) {
    return ct__error_within(ctx, "special_polygamma", ct_polygamma(ctx, n, a, out));
}
ct_status ct_special_logit(ct_ctx *ctx, const ct_tensor *a, double eps, ct_tensor **out) {
    return ct__error_within(ctx, "special_logit", ct_logit(ctx, a, eps, out));
}
ct_status ct_special_logsumexp(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                               bool keepdim, ct_tensor **out) {
    return ct__error_within(ctx, "special_logsumexp",
                            ct_logsumexp(ctx, a, n_dims, dims, keepdim, out));
}
ct_status ct_special_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    return ct__error_within(ctx, "special_softmax", ct_softmax(ctx, a, dim, out));
}
ct_status ct_special_log_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    return ct__error_within(ctx, "special_log_softmax", ct_log_softmax(ctx, a, dim, out));
}

/* top-level torch aliases */
CT__ALIAS1(arccos, acos)
CT__ALIAS1(arccosh, acosh)
CT__ALIAS1(arcsin, asin)
CT__ALIAS1(arcsinh, asinh)
CT__ALIAS1(arctan, atan)
CT__ALIAS1(arctanh, atanh)
CT__ALIAS2(arctan2, atan2)
CT__ALIAS2(divide, div)
CT__ALIAS2(multiply, mul)
CT__ALIAS2(greater, gt)
CT__ALIAS2(greater_equal, ge)
CT__ALIAS2(less, lt)
CT__ALIAS2(less_equal, le)
CT__ALIAS2(not_equal, ne)
CT__ALIAS2(ger, outer)
CT__ALIAS1(det, linalg_det)
CT__ALIAS1(inverse, linalg_inv)
ct_status ct_subtract(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                      ct_tensor **out) {
    return ct__error_within(ctx, "subtract", ct_sub_scaled(ctx, a, b, alpha, out));
}
ct_status ct_pinverse(ct_ctx *ctx, const ct_tensor *a, double rcond, ct_tensor **out) {
    return ct__error_within(ctx, "pinverse", ct_linalg_pinv(ctx, a, 0, rcond, out));
}
ct_status ct_trapz(ct_ctx *ctx, const ct_tensor *y, double dx, int dim, ct_tensor **out) {
    return ct__error_within(ctx, "trapz", ct_trapezoid(ctx, y, dx, dim, out));
}

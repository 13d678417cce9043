/* ctorch in-place ops: torch's Tensor.exp_(), x.clamp_(...), x.masked_fill_(...), F.relu_(x) ...
 *
 * ct_<op>_(ctx, self, args...) is self = <op>(self, args...): the out-of-place ct_<op> computes
 * the result (its promotion, its rounding, its errors), which must have self's shape (an operand
 * broadcasts to self, never self to a larger shape: CT_ERR_SHAPE) and a dtype that casts to self's
 * by torch's rule (bool < integer < floating < complex: a float result into an integer tensor,
 * sqrt_ of int64 say, or a complex one into a real tensor is CT_ERR_DTYPE); it is then cast and
 * written into self's memory (views write through to their base). An expanded self (a stride 0
 * over a dim longer than 1) is refused (CT_ERR_INVALID_ARG). Operands may share memory with self
 * (torch refuses a partial overlap): the result is computed before anything is written, and on
 * any failure self is unchanged. The cost is the out-of-place op's plus one pass writing self
 * (the indexed writes too: O(numel), not O(indices)); ct_add_ ... of ops.h write in place.
 * Autograd: when self or an operand requires grad (grad mode on), self takes the op's node, named
 * as torch names it (ExpBackward0, ClampBackward1, MaskedFillBackward0 ...); a leaf that requires
 * grad, or a view of one, is refused (CT_ERR_STATE) as torch. ct_add_ / ct_sub_ / ct_mul_ / ct_div_
 * and their _scalar_ forms are in ops.h; ct_tensor_fill_ / ct_tensor_zero_ / ct_tensor_copy_ and
 * the random fills (ct_tensor_uniform_ ...) in tensor.h. Capturable like the ops they are made of.
 */
#ifndef CTORCH_INPLACE_H
#define CTORCH_INPLACE_H

#include "ctorch/ops.h"
#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- unary math: self = op(self). Float ops of an integer self are CT_ERR_DTYPE (their result is
 * float32); abs_ / absolute_ of a complex self are CT_ERR_DTYPE (torch: "In-place abs is not
 * supported for complex tensors"). ---- */
CT_API ct_status ct_abs_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_absolute_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_neg_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_negative_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sgn_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sign_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_conj_physical_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_reciprocal_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_square_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sqrt_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_rsqrt_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_exp_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_exp2_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_expm1_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_log_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_log2_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_log10_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_log1p_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sin_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_cos_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_tan_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_asin_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_acos_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_atan_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_arcsin_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_arccos_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_arctan_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sinh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_cosh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_tanh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_asinh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_acosh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_atanh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_arcsinh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_arccosh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_arctanh_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sigmoid_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_erf_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_erfc_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_erfinv_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_lgamma_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_digamma_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_i0_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_sinc_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_deg2rad_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_rad2deg_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_ceil_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_floor_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_round_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_trunc_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_fix_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_frac_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_bitwise_not_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_logical_not_(ct_ctx *ctx, ct_tensor *self);
/* ---- activations (torch.nn.functional's relu_ ... and inplace=True): self = f(self) ---- */
CT_API ct_status ct_relu_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_relu6_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_selu_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_silu_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_mish_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_hardsigmoid_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_hardswish_(ct_ctx *ctx, ct_tensor *self);
CT_API ct_status ct_elu_(ct_ctx *ctx, ct_tensor *self, double alpha);
CT_API ct_status ct_celu_(ct_ctx *ctx, ct_tensor *self, double alpha);
CT_API ct_status ct_leaky_relu_(ct_ctx *ctx, ct_tensor *self, double negative_slope);
CT_API ct_status ct_hardtanh_(ct_ctx *ctx, ct_tensor *self, double min_val, double max_val);
CT_API ct_status ct_threshold_(ct_ctx *ctx, ct_tensor *self, double threshold, double value);
/* rrelu_: as ct_rrelu (training draws each slope from U(lower, upper) with the seed / offset). */
CT_API ct_status ct_rrelu_(ct_ctx *ctx, ct_tensor *self, double lower, double upper, bool training,
                           uint64_t seed, uint64_t offset);

/* ---- with a number: self = op(self, v) (v a wrapped number, as the _scalar ops; pow_ of an
 * int64 self by 2 stays int64, by 0.5 is CT_ERR_DTYPE) ---- */
CT_API ct_status ct_pow_(ct_ctx *ctx, ct_tensor *self, double exponent);
CT_API ct_status ct_fmod_scalar_(ct_ctx *ctx, ct_tensor *self, double other);
CT_API ct_status ct_remainder_scalar_(ct_ctx *ctx, ct_tensor *self, double other);
CT_API ct_status ct_clamp_min_(ct_ctx *ctx, ct_tensor *self, double min);
CT_API ct_status ct_clamp_max_(ct_ctx *ctx, ct_tensor *self, double max);
/* comparisons written as 0 / 1 in self's dtype (torch's x.eq_(2.0)) */
CT_API ct_status ct_eq_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_ne_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_lt_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_le_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_gt_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_ge_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
/* float_power_: self must already be float64 (complex128 for a complex self), as torch. */
CT_API ct_status ct_float_power_scalar_(ct_ctx *ctx, ct_tensor *self, double exponent);
/* clamp_ / clip_: either bound may be NULL (not both). */
CT_API ct_status ct_clamp_(ct_ctx *ctx, ct_tensor *self, const double *lo, const double *hi);
CT_API ct_status ct_clip_(ct_ctx *ctx, ct_tensor *self, const double *lo, const double *hi);
/* nan_to_num_: NULL keeps torch's defaults (0, the dtype's largest, its lowest). */
CT_API ct_status ct_nan_to_num_(ct_ctx *ctx, ct_tensor *self, const double *nan,
                                const double *posinf, const double *neginf);
CT_API ct_status ct_logit_(ct_ctx *ctx, ct_tensor *self, double eps);
/* polygamma_: self = polygamma(n, self); mvlgamma_: self = mvlgamma(self, p). */
CT_API ct_status ct_polygamma_(ct_ctx *ctx, ct_tensor *self, int64_t n);
CT_API ct_status ct_mvlgamma_(ct_ctx *ctx, ct_tensor *self, int64_t p);
/* div with a rounding mode (CT_ROUND_TRUNC / CT_ROUND_FLOOR keep an integer self integer). */
CT_API ct_status ct_div_scalar_mode_(ct_ctx *ctx, ct_tensor *self, double v, ct_rounding_mode mode);

/* ---- with a tensor: self = op(self, other), other broadcast to self's shape ---- */
CT_API ct_status ct_pow_tensor_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *exponent);
CT_API ct_status ct_float_power_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *exponent);
CT_API ct_status ct_atan2_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_arctan2_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_hypot_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_copysign_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_nextafter_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_ldexp_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_xlogy_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_heaviside_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *values);
CT_API ct_status ct_fmod_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_remainder_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_floor_divide_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_true_divide_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_divide_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_multiply_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_div_mode_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other,
                              ct_rounding_mode mode);
/* self = self + alpha * other / self - alpha * other (torch's add_(other, alpha=...)) */
CT_API ct_status ct_add_scaled_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other, double alpha);
CT_API ct_status ct_sub_scaled_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other, double alpha);
CT_API ct_status ct_subtract_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other, double alpha);
CT_API ct_status ct_gcd_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_lcm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_bitwise_and_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_bitwise_or_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_bitwise_xor_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_bitwise_left_shift_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_bitwise_right_shift_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
/* logical ops and comparisons written as 0 / 1 in self's dtype */
CT_API ct_status ct_logical_and_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_logical_or_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_logical_xor_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_eq_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_ne_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_lt_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_le_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_gt_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_ge_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_greater_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_greater_equal_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_less_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_less_equal_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_not_equal_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
/* lerp_: self = self + weight * (end - self) (end in self's dtype, as torch) */
CT_API ct_status ct_lerp_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *end,
                          const ct_tensor *weight);
CT_API ct_status ct_lerp_scalar_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *end, double weight);
/* addcmul_ / addcdiv_: self = self + value * t1 * t2 (t1 / t2), rounded as ct_addcmul. */
CT_API ct_status ct_addcmul_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                             double value);
CT_API ct_status ct_addcdiv_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                             double value);
/* ---- products: self = beta * self + alpha * (product), self already of the product's shape ----
 */
CT_API ct_status ct_addmm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *m1, const ct_tensor *m2,
                           double beta, double alpha);
CT_API ct_status ct_addmv_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *mat, const ct_tensor *vec,
                           double beta, double alpha);
CT_API ct_status ct_addr_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *v1, const ct_tensor *v2,
                          double beta, double alpha);
CT_API ct_status ct_addbmm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                            double beta, double alpha);
CT_API ct_status ct_baddbmm_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *b1, const ct_tensor *b2,
                             double beta, double alpha);

/* ---- along a dim / structural: self = op(self, ...) ---- */
CT_API ct_status ct_cumsum_(ct_ctx *ctx, ct_tensor *self, int dim);
CT_API ct_status ct_cumprod_(ct_ctx *ctx, ct_tensor *self, int dim);
CT_API ct_status ct_tril_(ct_ctx *ctx, ct_tensor *self, int64_t diagonal);
CT_API ct_status ct_triu_(ct_ctx *ctx, ct_tensor *self, int64_t diagonal);
CT_API ct_status ct_renorm_(ct_ctx *ctx, ct_tensor *self, double p, int dim, double maxnorm);
/* ---- indexed writes (the ops of ops.h; self keeps its dtype) ---- */
CT_API ct_status ct_masked_fill_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *mask, double value);
CT_API ct_status ct_masked_scatter_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *mask,
                                    const ct_tensor *source);
CT_API ct_status ct_index_add_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                               const ct_tensor *source, double alpha);
CT_API ct_status ct_index_copy_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                                const ct_tensor *source);
CT_API ct_status ct_index_fill_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                                double value);
CT_API ct_status ct_index_reduce_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                                  const ct_tensor *source, const char *reduce, bool include_self);
CT_API ct_status ct_index_put_(ct_ctx *ctx, ct_tensor *self, int n, const ct_tensor *const *indices,
                               const ct_tensor *values, bool accumulate);
CT_API ct_status ct_put_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *index,
                         const ct_tensor *source, bool accumulate);
CT_API ct_status ct_scatter_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                             const ct_tensor *src);
CT_API ct_status ct_scatter_add_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                                 const ct_tensor *src);
CT_API ct_status ct_scatter_reduce_(ct_ctx *ctx, ct_tensor *self, int dim, const ct_tensor *index,
                                    const ct_tensor *src, const char *reduce, bool include_self);

#ifdef __cplusplus
}
#endif

#endif

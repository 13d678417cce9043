/* ctorch ops: eager tensor operations with PyTorch semantics (broadcasting, type promotion,
 * strided inputs). Each op validates, computes the output shape and dtype, allocates the output on
 * the inputs' device and submits the work to the device's current stream.
 * Ownership: *out receives a new tensor reference (release it). Inputs are not consumed.
 * Errors: CT_ERR_INVALID_ARG (NULL ctx, input or out; a released tensor; a tensor of another
 * context), CT_ERR_SHAPE (shapes do not broadcast / mismatch), CT_ERR_DTYPE (unsupported dtype),
 * CT_ERR_INDEX (a dim out of range, in every op and view), CT_ERR_OOM; ct_ctx_last_error names
 * the values.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_OPS_H
#define CTORCH_OPS_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- binary elementwise (broadcasting, promotion as torch.result_type) ---- */
CT_API ct_status ct_add(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* a + alpha * b (as torch.add(a, b, alpha=alpha)); floating inputs round once: fma(alpha, b, a)
 * (docs/fidelity.md gives every op's rounding). ct_sub is fma(-1, b, a) = a - b; bool operands of
 * sub give CT_ERR_DTYPE. */
CT_API ct_status ct_add_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                               ct_tensor **out);
CT_API ct_status ct_sub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* a - alpha * b (as torch.sub(a, b, alpha=alpha)), rounded as fma(-alpha, b, a). */
CT_API ct_status ct_sub_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                               ct_tensor **out);
CT_API ct_status ct_mul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* True division: integer inputs give float32 (as torch.div). */
CT_API ct_status ct_div(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.div's rounding_mode: CT_ROUND_NONE is true division (ct_div), TRUNC rounds the quotient
 * toward zero, FLOOR down (Python's //). Rounded results keep the promoted dtype (integers stay
 * integer, C division; an integer zero divisor is CT_ERR_INVALID_ARG, bool CT_ERR_DTYPE).
 * f16/bf16 are computed in f32 and rounded once (torch 1.13 rounds each step). Zero gradient. */
typedef enum ct_rounding_mode {
    CT_ROUND_NONE = 0,
    CT_ROUND_TRUNC,
    CT_ROUND_FLOOR
} ct_rounding_mode;
CT_API ct_status ct_div_mode(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                             ct_rounding_mode mode, ct_tensor **out);
/* The same by a Python number (wrapped-number promotion: int32 tensor // 2 stays int32). */
CT_API ct_status ct_div_scalar_mode(ct_ctx *ctx, const ct_tensor *a, double v,
                                    ct_rounding_mode mode, ct_tensor **out);
/* torch.floor_divide (1.13: floor rounding) = ct_div_mode(a, b, CT_ROUND_FLOOR). */
CT_API ct_status ct_floor_divide(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                 ct_tensor **out);

/* ---- scalar operands ----
 * A C double stands for a Python number in PyTorch's wrapped-number promotion: when it is
 * integral, finite and within int64 it acts as a Python int (int32 tensor + 2 -> int32, bool
 * tensor + 2 -> int64), otherwise as a Python float (int32 tensor + 2.5 -> float32, the default
 * dtype; a floating tensor keeps its dtype: float16 tensor + 2.5 -> float16). ct_pow's exponent
 * and ct_clamp's bounds follow the same rule. An integral scalar wraps into a narrow integer
 * dtype as in torch (int8 tensor + 1000 adds -24). */
/* a + v, a - v (bool a: CT_ERR_DTYPE), a * v, a / v (true division). */
CT_API ct_status ct_add_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_sub_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_mul_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_div_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
/* a == v, a != v, a < v, a <= v, a > v, a >= v (bool output, compared in the promoted dtype). */
CT_API ct_status ct_eq_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_ne_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_lt_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_le_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_gt_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);
CT_API ct_status ct_ge_scalar(ct_ctx *ctx, const ct_tensor *a, double v, ct_tensor **out);

/* ---- in place (as Tensor.add_ ...): self = self op other, computed in the promoted dtype and
 * cast to self's dtype. CT_ERR_DTYPE when the promoted dtype cannot be cast to self's (floating
 * into an integer tensor, integer into bool; div_ of an integer tensor), CT_ERR_SHAPE when other
 * does not broadcast to self's shape. Under autograd self takes the op's node (AddBackward0 ...);
 * CT_ERR_STATE for a leaf that requires grad or a view of one (docs/autograd.md). */
CT_API ct_status ct_add_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_sub_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_mul_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
CT_API ct_status ct_div_(ct_ctx *ctx, ct_tensor *self, const ct_tensor *other);
/* self = self op v, v a wrapped number as above (int32 tensor: add 2 works, add 2.5 fails). */
CT_API ct_status ct_add_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_sub_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_mul_scalar_(ct_ctx *ctx, ct_tensor *self, double v);
CT_API ct_status ct_div_scalar_(ct_ctx *ctx, ct_tensor *self, double v);

/* ---- comparisons: bool output ---- */
CT_API ct_status ct_eq(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ne(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_lt(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_le(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_gt(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ge(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);

/* ---- unary elementwise (float ops promote integer inputs to float32; abs, neg and relu reject
 * bool, gelu rejects bool/integer inputs, as torch) ---- */
CT_API ct_status ct_neg(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_abs(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_exp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_log(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_sqrt(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_rsqrt(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_tanh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_sigmoid(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_relu(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
typedef enum ct_gelu_approx { CT_GELU_ERF = 0, CT_GELU_TANH = 1 } ct_gelu_approx;
CT_API ct_status ct_gelu(ct_ctx *ctx, const ct_tensor *a, ct_gelu_approx approx, ct_tensor **out);
/* a ** exponent. Integer tensors keep their dtype for an integral exponent >= 0 (bool -> int64),
 * a negative integral one is CT_ERR_INVALID_ARG, any other gives float32. Exponents 2, 3, -1, -2,
 * 0.5 (sqrt) and -0.5 (1/sqrt) use PyTorch's formulas: pow(-0.0, 0.5) = -0.0. The exponent must
 * convert to the tensor's dtype (f16/bf16: |e| <= their largest finite, integers: their range),
 * else CT_ERR_INVALID_ARG; f16/bf16 use e rounded to that dtype (as torch). */
CT_API ct_status ct_pow(ct_ctx *ctx, const ct_tensor *a, double exponent, ct_tensor **out);
/* min(max(a, lo), hi); pass NULL for a missing bound (at least one must be given). On a bool or
 * integer tensor a fractional, infinite or NaN bound gives float32; integral bounds keep the dtype
 * (bool -> int64) and must fit it (CT_ERR_INVALID_ARG, as torch: int8 with 1000 fails; uint8
 * takes -255..255, negatives wrapping). A NaN bound: with both bounds every element is NaN, with
 * one bound the values are unchanged (torch 1.13). */
CT_API ct_status ct_clamp(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                          ct_tensor **out);
/* cond ? a : b, cond bool, all three broadcast together. */
CT_API ct_status ct_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a,
                          const ct_tensor *b, ct_tensor **out);
/* self + value * t1 * t2, rounded as fma(value * t1, t2, self) (as PyTorch's CPU kernel).
 * Integer inputs work (value truncated to an integer, arithmetic wraps); bool does not. */
CT_API ct_status ct_addcmul(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1,
                            const ct_tensor *t2, double value, ct_tensor **out);
/* fma(value, t1 / t2, self): the quotient is rounded first, then one fused multiply-add;
 * value == 1 gives exactly self + t1 / t2. Floating dtypes only. (PyTorch's CUDA kernel and fused
 * optimizers round this way; torch 1.13 CPU eager computes self + (value * t1) / t2.) */
CT_API ct_status ct_addcdiv(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1,
                            const ct_tensor *t2, double value, ct_tensor **out);
/* Convert to dtype (always a new tensor, also to a's own dtype where Tensor.to returns a itself;
 * as Tensor.to(dtype, copy=True)). Float -> integer truncates; NaN, +-inf and
 * out-of-range values give what PyTorch gives on x86 (int32/int64: INT_MIN; int8/int16: the low
 * bits of the int32 result; uint8: of the int64 result; bool: nonzero, NaN is true). */
CT_API ct_status ct_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dtype, ct_tensor **out);

/* ---- more elementwise ops (torch names; docs/everyday.md lists the rounding and edge cases) ----
 * Math functions (bool/integer inputs compute in float32, as torch): */
CT_API ct_status ct_erf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_erfc(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_sin(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_cos(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_exp2(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out); /* 2 ** a */
CT_API ct_status ct_log2(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_log1p(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out); /* log(1 + a) */
CT_API ct_status ct_expm1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out); /* exp(a) - 1 */
CT_API ct_status ct_tan(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);   /* tan(a) */
CT_API ct_status ct_atan(ct_ctx *ctx, const ct_tensor *a,
                         ct_tensor **out); /* atan(a), in (-pi/2, pi/2) */
CT_API ct_status ct_asin(ct_ctx *ctx, const ct_tensor *a,
                         ct_tensor **out); /* asin(a) (NaN outside [-1, 1]) */
CT_API ct_status ct_acos(ct_ctx *ctx, const ct_tensor *a,
                         ct_tensor **out); /* acos(a) (NaN outside [-1, 1]) */
CT_API ct_status ct_sinh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);  /* sinh(a) */
CT_API ct_status ct_cosh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);  /* cosh(a) */
CT_API ct_status ct_asinh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out); /* asinh(a) */
CT_API ct_status ct_acosh(ct_ctx *ctx, const ct_tensor *a,
                          ct_tensor **out); /* acosh(a) (NaN below 1) */
CT_API ct_status ct_atanh(ct_ctx *ctx, const ct_tensor *a,
                          ct_tensor **out); /* atanh(a) (+-inf at +-1, NaN outside) */
CT_API ct_status ct_log10(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out); /* log10(a) */
CT_API ct_status ct_reciprocal(ct_ctx *ctx, const ct_tensor *a,
                               ct_tensor **out); /* 1 / a (integers in float32, as torch) */
/* atan2(a, b), the angle of (b, a) in [-pi, pi] with torch's broadcasting and promotion (integers
 * and bool in float32); differentiable in both. */
CT_API ct_status ct_atan2(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* ---- more everyday math with torch's names, broadcasting, promotion and gradients
 * (docs/everyday.md) ---- */

/* hypot(a, b) = sqrt(a^2 + b^2) without overflow; floating operands only (as torch). */
CT_API ct_status ct_hypot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* log(exp(a) + exp(b)) without overflow (logaddexp2: base 2); floating operands only. */
CT_API ct_status ct_logaddexp(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_logaddexp2(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                               ct_tensor **out);
/* a * log(b), 0 where a == 0 (unless b is NaN); integers and bool in float32. */
CT_API ct_status ct_xlogy(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* |a| with the sign of b (-0.0 and NaN signs count); integers and bool in float32. */
CT_API ct_status ct_copysign(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Elementwise max / min that ignore NaN (NaN only where both are); any dtype (bool: or / and). */
CT_API ct_status ct_fmax(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_fmin(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Step function: values where a == 0, else (a > 0) (NaN gives 0); a and values of one dtype.
 * Not differentiable (as torch: backward through it fails with CT_ERR_UNSUPPORTED). */
CT_API ct_status ct_heaviside(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *values,
                              ct_tensor **out);
/* a ** b with a tensor exponent (torch.pow(Tensor, Tensor)): promoted dtype, bool refused;
 * integers as torch (wrapping; a negative exponent gives 0 unless a is +-1). */
CT_API ct_status ct_pow_tensor(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                               ct_tensor **out);
/* a * a as torch.square (pow(a, 2): integers kept, bool gives int64). */
CT_API ct_status ct_square(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Degrees to radians and back (a times pi/180 or 180/pi; integers and bool in float32). */
CT_API ct_status ct_deg2rad(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_rad2deg(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Bool tensor: a == b, or |a - b| <= atol + rtol |b| (finite), or both NaN when equal_nan, as
 * torch.isclose (a and b of one dtype; rtol, atol finite and >= 0; torch's defaults 1e-5, 1e-8). */
CT_API ct_status ct_isclose(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rtol,
                            double atol, bool equal_nan, ct_tensor **out);
/* *result = every element of isclose(a, b, ...) holds (torch.allclose). */
CT_API ct_status ct_allclose(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rtol,
                             double atol, bool equal_nan, bool *result);
/* *result = same shape and equal elements (torch.equal: dtypes promote; NaN is unequal). */
CT_API ct_status ct_equal(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, bool *result);
/* a - trunc(a), sign kept (floating only; frac(+-inf) is NaN). */
CT_API ct_status ct_frac(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* log(a / (1 - a)) with a first clamped to [eps, 1 - eps] when eps >= 0 (eps < 0 or NaN: no
 * clamping, torch's None); integers and bool in float32. */
CT_API ct_status ct_logit(ct_ctx *ctx, const ct_tensor *a, double eps, ct_tensor **out);
/* sin(pi a) / (pi a), 1 at 0 (normalized sinc; exact zeros at nonzero integers, where torch is
 * not); integers and bool in float32. */
CT_API ct_status ct_sinc(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* NaN, +inf and -inf replaced by *nan, *posinf, *neginf (NULL: 0 and the dtype's largest and
 * lowest finite values); integer and bool tensors are copied. */
CT_API ct_status ct_nan_to_num(ct_ctx *ctx, const ct_tensor *a, const double *nan,
                               const double *posinf, const double *neginf, ct_tensor **out);
/* Bool tensor: the sign bit is set (true for -0.0 and negative NaN; integers: a < 0). */
CT_API ct_status ct_signbit(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);

/* ---- special functions (torch / torch.special names). Integers and bool compute in float32;
 * every float dtype (f16 too). Each value is rounded from a long double evaluation (f32 and f64
 * within about 1 ulp; see docs/everyday.md "Special functions" for where torch differs). ---- */
/* log |Gamma(a)| (+inf at 0 and the negative integers). */
CT_API ct_status ct_lgamma(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* psi(a) = Gamma'(a) / Gamma(a): -inf at +0, +inf at -0, NaN at the negative integers. */
CT_API ct_status ct_digamma(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* The n-th derivative of digamma (0 <= n <= 2^53, else CT_ERR_INVALID_ARG); poles: +inf for odd n,
 * -inf for even n (torch's signs). */
CT_API ct_status ct_polygamma(ct_ctx *ctx, int64_t n, const ct_tensor *a, ct_tensor **out);
/* Multivariate log-gamma of order p >= 1: sum_i lgamma(a - i/2) + p(p-1)/4 log(pi), i < p. */
CT_API ct_status ct_mvlgamma(ct_ctx *ctx, const ct_tensor *a, int64_t p, ct_tensor **out);
/* Inverse error function on [-1, 1] (+-inf at +-1, NaN outside). */
CT_API ct_status ct_erfinv(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Modified Bessel function of the first kind, order 0 (torch.i0). */
CT_API ct_status ct_i0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* e^-|a| I0(a) (torch.special.i0e). */
CT_API ct_status ct_special_i0e(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Modified Bessel function of the first kind, order 1 (torch.special.i1). */
CT_API ct_status ct_special_i1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* e^-|a| I1(a) (torch.special.i1e). */
CT_API ct_status ct_special_i1e(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* The standard normal CDF (torch.special.ndtr), accurate in the lower tail. */
CT_API ct_status ct_special_ndtr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Its inverse on [0, 1] (torch.special.ndtri): -inf at 0, +inf at 1, NaN outside. */
CT_API ct_status ct_special_ndtri(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* log(ndtr(a)) without underflow (torch.special.log_ndtr). */
CT_API ct_status ct_special_log_ndtr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Scaled complementary error function e^(a^2) erfc(a) (torch.special.erfcx). */
CT_API ct_status ct_special_erfcx(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Entropy term -a log(a): 0 at 0, -inf for a < 0 (torch.special.entr). */
CT_API ct_status ct_special_entr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* a * log1p(b), 0 where a == 0 (unless b is NaN) (torch.special.xlog1py). */
CT_API ct_status ct_special_xlog1py(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                    ct_tensor **out);
/* The next representable value after a toward b, in the result dtype (floats only; not
 * differentiable, as torch). */
CT_API ct_status ct_nextafter(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Greatest common divisor / least common multiple of integers, wrapping in the element type
 * exactly as torch (gcd(-128, 6) in int8 is -2); floats and bool: CT_ERR_DTYPE. */
CT_API ct_status ct_gcd(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_lcm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Rounding to an integral value (round: half to even); integer tensors are copied, bool refused.
 * Their gradient is zero (as torch). */
CT_API ct_status ct_floor(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_ceil(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_round(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_trunc(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* -1, 0 or 1 in a's dtype (bool unchanged); sign(NaN) = 0 and sign(-0.0) = +0.0, as torch. */
CT_API ct_status ct_sign(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Activations (torch.nn.functional; floating inputs only, CT_ERR_DTYPE otherwise).
 * silu = x * sigmoid(x); mish = x * tanh(softplus(x)). */
CT_API ct_status ct_silu(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_mish(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* log(1 + exp(beta x)) / beta, and x where beta x > threshold (torch defaults: 1, 20). */
CT_API ct_status ct_softplus(ct_ctx *ctx, const ct_tensor *a, double beta, double threshold,
                             ct_tensor **out);
/* x for x > 0, else negative_slope * x (torch default 0.01). */
CT_API ct_status ct_leaky_relu(ct_ctx *ctx, const ct_tensor *a, double negative_slope,
                               ct_tensor **out);
/* x for x > 0, else alpha * (exp(x) - 1) (computed with expm1; torch default alpha 1). */
CT_API ct_status ct_elu(ct_ctx *ctx, const ct_tensor *a, double alpha, ct_tensor **out);
/* clamp(a, min_val, max_val) as F.hardtanh: integers keep their dtype with the bounds truncated
 * (uint8 refuses negative ones), not bool; min_val > max_val gives max_val (not checked, as torch).
 * Its gradient passes strictly inside (min_val, max_val), as torch's hardtanh_backward. */
CT_API ct_status ct_hardtanh(ct_ctx *ctx, const ct_tensor *a, double min_val, double max_val,
                             ct_tensor **out);
/* Predicates and logical not: any dtype in, bool out. */
CT_API ct_status ct_isnan(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_isinf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_isfinite(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_logical_not(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* ~a for integer tensors, not a for bool; floating dtypes are CT_ERR_DTYPE. */
CT_API ct_status ct_bitwise_not(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Elementwise max / min with broadcasting and type promotion; NaN propagates. Where torch's CPU
 * kernels disagree on the sign of an equal zero pair, ctorch follows IEEE 754-2019:
 * maximum(-0.0, +0.0) = +0.0, minimum = -0.0. */
CT_API ct_status ct_maximum(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_minimum(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* a mod b with the sign of b (Python's %, torch.remainder); fmod: the sign of a (C's fmod). An
 * integer zero divisor is CT_ERR_INVALID_ARG with nothing returned (torch: ZeroDivisionError);
 * bool operands are refused. */
CT_API ct_status ct_remainder(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_fmod(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_remainder_scalar(ct_ctx *ctx, const ct_tensor *a, double other,
                                     ct_tensor **out);
CT_API ct_status ct_fmod_scalar(ct_ctx *ctx, const ct_tensor *a, double other, ct_tensor **out);
/* Logical and / or / xor of the truth values (nonzero is true) of any dtypes: bool out. */
CT_API ct_status ct_logical_and(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out);
CT_API ct_status ct_logical_or(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                               ct_tensor **out);
CT_API ct_status ct_logical_xor(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out);
/* Bitwise and / or / xor of integer or bool tensors (promoted together). */
CT_API ct_status ct_bitwise_and(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out);
CT_API ct_status ct_bitwise_or(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                               ct_tensor **out);
CT_API ct_status ct_bitwise_xor(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out);
/* Shifts of integer tensors. A shift outside [0, bits of the dtype) gives 0 (left) or the sign
 * fill 0 / -1 (right), as PyTorch 2.x (1.13 wraps the amount on x86); left shifts wrap. */
CT_API ct_status ct_bitwise_left_shift(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                       ct_tensor **out);
CT_API ct_status ct_bitwise_right_shift(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                        ct_tensor **out);
/* start + weight * (end - start), as torch 1.13 (end - (end - start) * (1 - weight) for weight >=
 * 0.5, so weight 1 gives end exactly; each one fma); floating operands of one dtype (as torch:
 * no promotion, CT_ERR_DTYPE), broadcast. */
CT_API ct_status ct_lerp(ct_ctx *ctx, const ct_tensor *start, const ct_tensor *end,
                         const ct_tensor *weight, ct_tensor **out);
CT_API ct_status ct_lerp_scalar(ct_ctx *ctx, const ct_tensor *start, const ct_tensor *end,
                                double weight, ct_tensor **out);

/* ---- reductions over `dims` (n_dims == 0 reduces all dims); negative dims count from the end ----
 */
/* Sum; bool/integer inputs sum in int64 (as torch.sum). */
CT_API ct_status ct_sum(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                        ct_tensor **out);
/* Mean; floating inputs only. */
CT_API ct_status ct_mean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                         ct_tensor **out);
/* Max / min value; NaN propagates. Fails with CT_ERR_SHAPE when reducing a zero-size dim. */
CT_API ct_status ct_amax(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                         ct_tensor **out);
CT_API ct_status ct_amin(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims, bool keepdim,
                         ct_tensor **out);
/* Index (int64) of the first maximum along dim (NaN counts as maximum); dim = CT_ALL_DIMS
 * flattens. */
CT_API ct_status ct_argmax(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out);

/* Index (int64) of the first minimum along dim (NaN counts as minimum, as torch.argmin);
 * dim = CT_ALL_DIMS flattens. Bool: CT_ERR_DTYPE. */
CT_API ct_status ct_argmin(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out);
/* Maximum / minimum along one dim with the index of its first occurrence (as torch.max(t, dim) /
 * torch.min(t, dim); NaN propagates and its first index is returned); the values are the elements
 * at the indices, so the gradient goes to that element alone (ct_amax splits it among ties). */
CT_API ct_status ct_max_dim(ct_ctx *ctx, const ct_tensor *t, int dim, bool keepdim,
                            ct_tensor **values, ct_tensor **indices);
CT_API ct_status ct_min_dim(ct_ctx *ctx, const ct_tensor *t, int dim, bool keepdim,
                            ct_tensor **values, ct_tensor **indices);
/* True where every / some element over `dims` is nonzero (NaN counts as nonzero); empty
 * reductions give true / false (as torch.all / torch.any; uint8 inputs give uint8, others bool). */
CT_API ct_status ct_all(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims, bool keepdim,
                        ct_tensor **out);
CT_API ct_status ct_any(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims, bool keepdim,
                        ct_tensor **out);
/* Number of nonzero elements over `dims`, int64 (as torch.count_nonzero). */
CT_API ct_status ct_count_nonzero(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims,
                                  ct_tensor **out);

/* Product over dim (CT_ALL_DIMS: every element), as torch.prod: integers and bool give int64
 * (wrapping), floats keep their dtype and multiply in double, rounding once (torch rounds every
 * step in the input's precision, so long products differ by a few ulp there); empty: 1. */
CT_API ct_status ct_prod(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out);
/* Running sum / product along dim (torch.cumsum / torch.cumprod): integers and bool give int64
 * (wrapping), floats keep their dtype and accumulate in double (as torch's CPU kernel). */
CT_API ct_status ct_cumsum(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
CT_API ct_status ct_cumprod(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* Variance / standard deviation over dims (n_dims 0: all) with Bessel's `correction` (1 as
 * torch.var's default, 0 the population value): sum((a - mean)^2) / max(0, N - correction), so
 * N <= correction gives nan or inf as torch. Floating input (CT_ERR_DTYPE otherwise); f16/bf16
 * are computed in f32. Two passes (mean, then squared deviations), differentiable. */
CT_API ct_status ct_var(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                        double correction, bool keepdim, ct_tensor **out);
CT_API ct_status ct_std(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                        double correction, bool keepdim, ct_tensor **out);
/* log(sum(exp(a))) over dims (n_dims 0: all), shifted by the maximum so it neither overflows nor
 * underflows (an infinite maximum shifts by 0, as torch.logsumexp); an empty reduction gives
 * -inf. Integer and bool inputs compute in float32; f16/bf16 in f32. Differentiable. */
CT_API ct_status ct_logsumexp(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                              bool keepdim, ct_tensor **out);
/* Vector p-norm over dims (n_dims 0: all), as torch.linalg.vector_norm(a, ord=p): p = 2 (the
 * Frobenius norm of the flattened dims), 1, INFINITY (max |a|), -INFINITY (min |a|), 0 (count of
 * nonzeros) or any other p (sum |a|^p)^(1/p). Floating input; f32/f16/bf16 accumulate in f64, so
 * the squares of large f32 values do not overflow (torch's f32 norm of 1e20 is inf).
 * Differentiable (as torch: 0 at a zero norm for p = 2; p = 0 gives zeros, torch none). */
CT_API ct_status ct_norm(ct_ctx *ctx, const ct_tensor *a, double p, int n_dims, const int *dims,
                         bool keepdim, ct_tensor **out);

/* ---- normalisation and activations along a dim ---- */
CT_API ct_status ct_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
CT_API ct_status ct_log_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* Normalise over the last `n_norm` dims; weight and bias (shape = those dims) may be NULL. */
CT_API ct_status ct_layer_norm(ct_ctx *ctx, const ct_tensor *a, int n_norm, const ct_tensor *weight,
                               const ct_tensor *bias, double eps, ct_tensor **out);

/* Root-mean-square normalisation over the last n_norm dims, x / sqrt(mean(x^2) + eps) * weight
 * (as torch.nn.functional.rms_norm; weight of those dims' shape or NULL). Floating input, f16/bf16
 * computed in f32; differentiable. */
CT_API ct_status ct_rms_norm(ct_ctx *ctx, const ct_tensor *x, int n_norm, const ct_tensor *weight,
                             double eps, ct_tensor **out);
/* Group normalisation of x (N, C, ...) over num_groups groups of channels (with their spatial
 * dims), then per-channel weight and bias (C, each may be NULL), as F.group_norm. */
CT_API ct_status ct_group_norm(ct_ctx *ctx, const ct_tensor *x, int num_groups,
                               const ct_tensor *weight, const ct_tensor *bias, double eps,
                               ct_tensor **out);
/* Batch normalisation of x (N, C, ...) per channel, as F.batch_norm: training normalises with the
 * batch statistics and, when given, updates running_mean / running_var (C) in place with
 * `momentum` (the unbiased variance, outside autograd); evaluation uses the running statistics.
 * weight and bias (C) may be NULL. Training with one value per channel: CT_ERR_INVALID_ARG. */
CT_API ct_status ct_batch_norm(ct_ctx *ctx, const ct_tensor *x, ct_tensor *running_mean,
                               ct_tensor *running_var, const ct_tensor *weight,
                               const ct_tensor *bias, bool training, double momentum, double eps,
                               ct_tensor **out);
/* Dropout (F.dropout): in training, x * noise with noise = mask / (1 - p) in x's dtype (as torch:
 * f32 1.0f / (float)(1 - p); a dropped inf or NaN is NaN, a dropped negative -0.0), the mask drawn
 * as ct_tensor_rand(seed, offset) >= p (reproducible, graph-safe under capture like rand);
 * otherwise (or p = 0) x itself (a new reference). CPU. */
CT_API ct_status ct_dropout(ct_ctx *ctx, const ct_tensor *x, double p, bool training, uint64_t seed,
                            uint64_t offset, ct_tensor **out);
/* F.dropout1d / dropout2d / dropout3d: whole channels zeroed with probability p (one draw per (n,
 * c) of an (N, C, ...) input; unbatched (C, ...) too; a 3-d input to dropout2d is (N, C, L), as
 * torch 1.13), the kept ones scaled by 1 / (1 - p); seed and offset as ct_dropout. */
CT_API ct_status ct_dropout1d(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                              uint64_t seed, uint64_t offset, ct_tensor **out);
CT_API ct_status ct_dropout2d(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                              uint64_t seed, uint64_t offset, ct_tensor **out);
CT_API ct_status ct_dropout3d(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                              uint64_t seed, uint64_t offset, ct_tensor **out);
/* F.alpha_dropout (per element) / feature_alpha_dropout (per channel): SELU's dropout, x a keep + b
 * keeping the mean and variance (torch's a and b); identity when not training. */
CT_API ct_status ct_alpha_dropout(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                                  uint64_t seed, uint64_t offset, ct_tensor **out);
CT_API ct_status ct_feature_alpha_dropout(ct_ctx *ctx, const ct_tensor *x, double p, bool training,
                                          uint64_t seed, uint64_t offset, ct_tensor **out);
/* F.rrelu: x where x > 0, else x r, r uniform in [lower, upper) per element (training) or
 * (lower + upper) / 2 (leaky_relu); differentiable with the drawn slopes. */
CT_API ct_status ct_rrelu(ct_ctx *ctx, const ct_tensor *x, double lower, double upper,
                          bool training, uint64_t seed, uint64_t offset, ct_tensor **out);
/* F.gumbel_softmax: softmax((logits + g) / tau) along dim with Gumbel noise g = -log(E), E ~
 * Exp(1); hard: the one-hot of the argmax with the soft sample's gradient (straight-through). */
CT_API ct_status ct_gumbel_softmax(ct_ctx *ctx, const ct_tensor *logits, double tau, bool hard,
                                   int dim, uint64_t seed, uint64_t offset, ct_tensor **out);
typedef enum ct_embedding_bag_mode {
    CT_EMBEDDING_BAG_SUM = 0,
    CT_EMBEDDING_BAG_MEAN,
    CT_EMBEDDING_BAG_MAX
} ct_embedding_bag_mode;
/* No padding index for ct_embedding_bag (torch's padding_idx=None). */
#define CT_NO_PADDING_IDX INT64_MIN
/* F.embedding_bag: bags of rows of weight (V, D) reduced by sum / mean / max into (B, D). indices
 * 1-d with offsets (the bag starts; include_last_offset: the last one ends the last bag) or 2-d
 * (B, L) without; per_sample_weights (sum only) scale each row; rows at padding_idx are left out;
 * an empty bag is zeros. Differentiable in weight (and per_sample_weights). */
CT_API ct_status ct_embedding_bag(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                                  const ct_tensor *offsets, ct_embedding_bag_mode mode,
                                  const ct_tensor *per_sample_weights, bool include_last_offset,
                                  int64_t padding_idx, ct_tensor **out);
/* torch.unique_consecutive of the flattened t: the first value of each run of equal values (NaN
 * never equals), with inverse (t's shape) and counts (int64) when not NULL. Eager only. */
CT_API ct_status ct_unique_consecutive(ct_ctx *ctx, const ct_tensor *t, ct_tensor **values,
                                       ct_tensor **inverse, ct_tensor **counts);
typedef enum ct_pad_mode {
    CT_PAD_CONSTANT = 0,
    CT_PAD_REFLECT,
    CT_PAD_REPLICATE,
    CT_PAD_CIRCULAR
} ct_pad_mode;
/* Pad (F.pad): pad[2k], pad[2k+1] add elements before / after dim ndim-1-k (n_pad/2 dims from the
 * last); constant mode fills `value` and accepts negative pads (cropping); reflect needs pads <
 * the size, circular <= the size. As torch 1.13, padding k dims in reflect / replicate mode takes
 * a (k+1)- or (k+2)-dim input, circular a (k+2)-dim one (else CT_ERR_SHAPE). When a pad is
 * positive, `value` is checked as torch's float value (as ct_tensor_full, but uint8 takes no
 * negative): CT_ERR_INVALID_ARG. A copy, differentiable (index_select + masked_fill). CPU. */
CT_API ct_status ct_pad(ct_ctx *ctx, const ct_tensor *x, int n_pad, const int64_t *pad,
                        ct_pad_mode mode, double value, ct_tensor **out);

/* Indices (int64, shape (nnz, ndim)) of the nonzero elements in C order (torch.nonzero). Reads
 * the data on the host: eager only (CT_ERR_STATE under graph capture). */
CT_API ct_status ct_nonzero(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* The elements of t where mask (bool, broadcasting with t) is true, as a 1-d tensor in C order
 * (torch.masked_select); differentiable for t. Eager only (reads the mask on the host). */
CT_API ct_status ct_masked_select(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                                  ct_tensor **out);
/* Distinct values of t, flattened and sorted (torch.unique with dim=None; every NaN is its own
 * value, as torch); inverse (t's shape: each element's position in values) and counts (int64) are
 * produced when not NULL. Eager only. */
CT_API ct_status ct_unique(ct_ctx *ctx, const ct_tensor *t, bool sorted, ct_tensor **values,
                           ct_tensor **inverse, ct_tensor **counts);
/* torch.unique(t, dim=dim): the distinct slices along dim in lexicographic order (always sorted,
 * as torch; equal slices keep the first one's bits, a slice with a NaN equals none); inverse (1-d,
 * t.size(dim)) and counts (int64) when not NULL. Complex input is CT_ERR_DTYPE; a zero-size dim
 * other than dim is CT_ERR_SHAPE (as torch). Backward is refused (as torch). Eager only. */
CT_API ct_status ct_unique_dim(ct_ctx *ctx, const ct_tensor *t, int dim, bool sorted,
                               ct_tensor **values, ct_tensor **inverse, ct_tensor **counts);
/* torch.unique_consecutive(t, dim=dim): the first slice of each run of equal slices along dim
 * (no sorting), inverse (1-d) and counts as ct_unique_dim; its errors too. Eager only. */
CT_API ct_status ct_unique_consecutive_dim(ct_ctx *ctx, const ct_tensor *t, int dim,
                                           ct_tensor **values, ct_tensor **inverse,
                                           ct_tensor **counts);
/* beta * input + alpha * (m1 @ m2) for 2-d m1, m2 (torch.addmm; input broadcasts to the product;
 * beta = 0 ignores input, nan included, as torch). */
CT_API ct_status ct_addmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *m1,
                          const ct_tensor *m2, double beta, double alpha, ct_tensor **out);
/* beta input + alpha (mat @ vec) (torch.addmv; beta == 0 ignores input, NaN included). */
CT_API ct_status ct_addmv(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *mat,
                          const ct_tensor *vec, double beta, double alpha, ct_tensor **out);
/* beta input + alpha outer(v1, v2) (torch.addr), rounded as torch's vector loop: one fma of
 * alpha v1_i and v2_j onto beta input_ij; integers and bool need integral beta / alpha. */
CT_API ct_status ct_addr(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *v1,
                         const ct_tensor *v2, double beta, double alpha, ct_tensor **out);
/* torch.tensordot: contract dims_a[i] of a with dims_b[i] of b (n pairs, one dtype); the result
 * has a's free dims then b's. */
CT_API ct_status ct_tensordot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int n,
                              const int *dims_a, const int *dims_b, ct_tensor **out);
/* The batched form with 3-d b1 (B,n,m), b2 (B,m,p) (torch.baddbmm). */
CT_API ct_status ct_baddbmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *b1,
                            const ct_tensor *b2, double beta, double alpha, ct_tensor **out);

/* ---- convolution and pooling (torch.nn.functional; geometry arrays are {h, w}) ---- */
/* im2col (F.unfold): x (N, C, H, W) -> (N, C*kh*kw, L) with the patches as columns (zeros in the
 * padding), L = OH*OW, OH = (H + 2 pad - dil (k - 1) - 1) / stride + 1; an unbatched (C, H, W)
 * gives (C*kh*kw, L), as torch. Any compute dtype. */
CT_API ct_status ct_unfold(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                           const int64_t dilation[2], const int64_t padding[2],
                           const int64_t stride[2], ct_tensor **out);
/* col2im (F.fold): the adjoint of ct_unfold, summing overlapping patches into
 * (N, C, output_size); unbatched (C*kh*kw, L) columns give (C, output_size). */
CT_API ct_status ct_fold(ct_ctx *ctx, const ct_tensor *cols, const int64_t output_size[2],
                         const int64_t kernel[2], const int64_t dilation[2],
                         const int64_t padding[2], const int64_t stride[2], ct_tensor **out);
/* 2-d convolution (F.conv2d): x (N, C, H, W) (or unbatched (C, H, W): out (O, OH, OW)),
 * w (O, C/groups, kh, kw), b (O) or NULL; im2col +
 * one batched matmul (groups as a batch dim). x, w (and b) of one floating or integer dtype
 * (integers exact, wrapping in the dtype, as torch's slow path); bool is CT_ERR_DTYPE. */
CT_API ct_status ct_conv2d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                           const int64_t stride[2], const int64_t padding[2],
                           const int64_t dilation[2], int groups, ct_tensor **out);
/* 1-d convolution (F.conv1d): x (N, C, L) or unbatched (C, L), w (O, C/groups, k), as conv2d
 * over a height of 1. */
CT_API ct_status ct_conv1d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                           int64_t stride, int64_t padding, int64_t dilation, int groups,
                           ct_tensor **out);
/* Max / average pooling of (N, C, H, W) or (C, H, W) (F.max_pool2d / F.avg_pool2d with
 * ceil_mode = false; avg counts the zero padding, torch's count_include_pad = true: the _ex forms
 * below take both); stride NULL: the kernel; padding at most half the kernel. Floating inputs
 * (avg_pool also int64, divided toward zero, as torch). avg sums each window in order in the
 * accumulation type (f32 for bf16 / f16) and divides, as torch's kernel (the same bits). max's
 * index and gradient go to the first maximum of each window, or its last NaN, as torch's. */
CT_API ct_status ct_max_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                               const int64_t stride[2], const int64_t padding[2],
                               const int64_t dilation[2], ct_tensor **out);
CT_API ct_status ct_avg_pool2d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                               const int64_t stride[2], const int64_t padding[2], ct_tensor **out);
/* max_pool2d with torch's ceil_mode (the last window may overhang the input; it must start inside
 * the input or its left padding) and return_indices: indices (int64, the output's shape) are the
 * flat positions h * W + w of each maximum in its input plane, as torch's; NULL: not returned. */
CT_API ct_status ct_max_pool2d_ex(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2],
                                  const int64_t dilation[2], bool ceil_mode, ct_tensor **out,
                                  ct_tensor **indices);
/* avg_pool2d with ceil_mode and count_include_pad (false: each window divides by its elements
 * inside the input; true: inside the padded input, ceil's overhang not counted), as torch's. */
CT_API ct_status ct_avg_pool2d_ex(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                  const int64_t stride[2], const int64_t padding[2], bool ceil_mode,
                                  bool count_include_pad, ct_tensor **out);
/* F.avg_pool2d with every argument: ct_avg_pool2d_ex whose window sums are divided by
 * divisor_override when it is not 0 (0: torch's None; a negative one divides, as torch); int64
 * divides toward zero. */
CT_API ct_status ct_avg_pool2d_divisor(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[2],
                                       const int64_t stride[2], const int64_t padding[2],
                                       bool ceil_mode, bool count_include_pad,
                                       int64_t divisor_override, ct_tensor **out);
/* F.adaptive_avg_pool2d: bins [floor(i H / oh), ceil((i+1) H / oh)), each summed in order and
 * divided by its height, then its width, as torch's kernel; output (1, 1) is ct_mean over (H, W)
 * (torch's dispatch). Floating inputs; differentiable. */
CT_API ct_status ct_adaptive_avg_pool2d(ct_ctx *ctx, const ct_tensor *x,
                                        const int64_t output_size[2], ct_tensor **out);
/* F.conv_transpose2d: x (N, C, H, W) or (C, H, W), w (C, O/groups, kh, kw), b (O) or NULL; output
 * (H - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1 (output_padding smaller than
 * stride or dilation, as torch); the adjoint of ct_conv2d: matmul then col2im (ct_fold). */
CT_API ct_status ct_conv_transpose2d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                                     const ct_tensor *b, const int64_t stride[2],
                                     const int64_t padding[2], const int64_t output_padding[2],
                                     int groups, const int64_t dilation[2], ct_tensor **out);
/* F.conv_transpose1d: x (N, C, L) or (C, L), w (C, O/groups, k), as conv_transpose2d over a
 * height of 1. */
CT_API ct_status ct_conv_transpose1d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                                     const ct_tensor *b, int64_t stride, int64_t padding,
                                     int64_t output_padding, int groups, int64_t dilation,
                                     ct_tensor **out);
/* F.max_pool1d / avg_pool1d / adaptive_avg_pool1d of (N, C, L) or (C, L): the 2-d pools over a
 * height of 1, as torch (stride 0: the kernel; indices NULL: not returned). */
CT_API ct_status ct_max_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t kernel, int64_t stride,
                               int64_t padding, int64_t dilation, bool ceil_mode, ct_tensor **out,
                               ct_tensor **indices);
CT_API ct_status ct_avg_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t kernel, int64_t stride,
                               int64_t padding, bool ceil_mode, bool count_include_pad,
                               ct_tensor **out);
CT_API ct_status ct_adaptive_avg_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t output_size,
                                        ct_tensor **out);
/* F.adaptive_max_pool2d / 1d (floating input): the maximum of each adaptive bin (the first, or the
 * last NaN, as torch's kernel), with int64 flat indices h * W + w into the input plane when
 * indices is not NULL; differentiable to the chosen element. */
CT_API ct_status ct_adaptive_max_pool2d(ct_ctx *ctx, const ct_tensor *x,
                                        const int64_t output_size[2], ct_tensor **out,
                                        ct_tensor **indices);
CT_API ct_status ct_adaptive_max_pool1d(ct_ctx *ctx, const ct_tensor *x, int64_t output_size,
                                        ct_tensor **out, ct_tensor **indices);
/* F.max_unpool2d / 1d: zeros of the output size (NULL / < 0: (in - 1) stride - 2 padding +
 * kernel; stride NULL / 0: the kernel) with x placed at the flat plane positions in indices (a max
 * pool's); an index outside the plane is CT_ERR_INDEX. */
CT_API ct_status ct_max_unpool2d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *indices,
                                 const int64_t kernel[2], const int64_t stride[2],
                                 const int64_t padding[2], const int64_t output_size[2],
                                 ct_tensor **out);
CT_API ct_status ct_max_unpool1d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *indices,
                                 int64_t kernel, int64_t stride, int64_t padding,
                                 int64_t output_size, ct_tensor **out);
/* F.conv3d: x (N, C, D, H, W) or (C, D, H, W), w (O, C / groups, kd, kh, kw), b (O) or NULL;
 * one conv2d per kernel depth over all output depths, summed (torch sums in one GEMM: to rounding).
 */
CT_API ct_status ct_conv3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w, const ct_tensor *b,
                           const int64_t stride[3], const int64_t padding[3],
                           const int64_t dilation[3], int groups, ct_tensor **out);
/* F.conv_transpose3d: x (N, C, D, H, W) or unbatched, w (C, O / groups, kd, kh, kw); output
 * (D - 1) stride - 2 padding + dilation (k - 1) + output_padding + 1 per dim, the adjoint of
 * conv3d. */
CT_API ct_status ct_conv_transpose3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *w,
                                     const ct_tensor *b, const int64_t stride[3],
                                     const int64_t padding[3], const int64_t output_padding[3],
                                     int groups, const int64_t dilation[3], ct_tensor **out);
/* F.max_pool3d of (N, C, D, H, W) or (C, D, H, W) with ceil_mode and dilation (stride NULL or 0:
 * the kernel; padding at most half the kernel): torch's maximum of each window (the first, or the
 * last NaN) and, when indices is not NULL, its flat index d * H * W + h * W + w (int64). */
CT_API ct_status ct_max_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[3],
                               const int64_t stride[3], const int64_t padding[3],
                               const int64_t dilation[3], bool ceil_mode, ct_tensor **out,
                               ct_tensor **indices);
/* F.avg_pool3d: window sums divided by divisor_override (not 0), else by the window's elements in
 * the input (count_include_pad false) or in the padded input (true); int64 divides toward zero. */
CT_API ct_status ct_avg_pool3d(ct_ctx *ctx, const ct_tensor *x, const int64_t kernel[3],
                               const int64_t stride[3], const int64_t padding[3], bool ceil_mode,
                               bool count_include_pad, int64_t divisor_override, ct_tensor **out);
/* F.adaptive_avg_pool3d / adaptive_max_pool3d: bins [floor(i D / o), ceil((i + 1) D / o)) per dim;
 * the mean (divided by the bin's depth, height, width in turn, as torch) or torch's maximum with
 * its flat index (indices may be NULL). */
CT_API ct_status ct_adaptive_avg_pool3d(ct_ctx *ctx, const ct_tensor *x,
                                        const int64_t output_size[3], ct_tensor **out);
CT_API ct_status ct_adaptive_max_pool3d(ct_ctx *ctx, const ct_tensor *x,
                                        const int64_t output_size[3], ct_tensor **out,
                                        ct_tensor **indices);
/* F.fractional_max_pool2d of (N, C, H, W) or (C, H, W) (float32 / float64): kernel_size windows at
 * pseudo-random starts, output_size (NULL: floor(input size * output_ratio)); random_samples
 * (N, C, 2) in [0, 1) ((1, C, 2) unbatched; torch's _random_samples: [0] for W, [1] for H) fixes
 * the starts, NULL draws them with ct_tensor_rand(seed). indices (may be NULL): flat h * W + w.
 * Differentiable (the gradient goes to the chosen elements); reads the input on the host. */
CT_API ct_status ct_fractional_max_pool2d(ct_ctx *ctx, const ct_tensor *x,
                                          const int64_t kernel_size[2],
                                          const int64_t output_size[2],
                                          const double output_ratio[2],
                                          const ct_tensor *random_samples, uint64_t seed,
                                          ct_tensor **out, ct_tensor **indices);
/* F.fractional_max_pool3d of (N, C, T, H, W) or (C, T, H, W): as ct_fractional_max_pool2d with
 * random_samples (N, C, 3) ([0] T, [1] H, [2] W) and flat indices t * H * W + h * W + w. */
CT_API ct_status ct_fractional_max_pool3d(ct_ctx *ctx, const ct_tensor *x,
                                          const int64_t kernel_size[3],
                                          const int64_t output_size[3],
                                          const double output_ratio[3],
                                          const ct_tensor *random_samples, uint64_t seed,
                                          ct_tensor **out, ct_tensor **indices);
/* F.max_unpool3d: as max_unpool2d with flat indices d * H * W + h * W + w into the output volume.
 */
CT_API ct_status ct_max_unpool3d(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *indices,
                                 const int64_t kernel[3], const int64_t stride[3],
                                 const int64_t padding[3], const int64_t output_size[3],
                                 ct_tensor **out);
/* F.lp_pool2d / 1d: (sign(a) relu(|a|) * kernel area) ^ (1 / p) with a = avg_pool(x ^ p), torch's
 * formula (stride NULL / 0: the kernel). */
CT_API ct_status ct_lp_pool2d(ct_ctx *ctx, const ct_tensor *x, double p, const int64_t kernel[2],
                              const int64_t stride[2], bool ceil_mode, ct_tensor **out);
CT_API ct_status ct_lp_pool1d(ct_ctx *ctx, const ct_tensor *x, double p, int64_t kernel,
                              int64_t stride, bool ceil_mode, ct_tensor **out);
/* F.instance_norm of x (N, C, ...): each (n, c) normalised over its spatial dims (batch_norm over
 * (1, N*C, ...), as ATen); running_mean / running_var (C, may be NULL) updated with momentum when
 * use_input_stats, used instead of the statistics otherwise; weight / bias (C) may be NULL. */
CT_API ct_status ct_instance_norm(ct_ctx *ctx, const ct_tensor *x, ct_tensor *running_mean,
                                  ct_tensor *running_var, const ct_tensor *weight,
                                  const ct_tensor *bias, bool use_input_stats, double momentum,
                                  double eps, ct_tensor **out);
/* F.local_response_norm of x (N, C, ...): x / (k + alpha * mean of x^2 over `size` neighbouring
 * channels, zero padded) ^ beta, torch's composite. */
CT_API ct_status ct_local_response_norm(ct_ctx *ctx, const ct_tensor *x, int64_t size, double alpha,
                                        double beta, double k, ct_tensor **out);
/* F.bilinear: y[..., o] = sum_ij x1[..., i] w[o, i, j] x2[..., j] + b[o] (b may be NULL). */
CT_API ct_status ct_bilinear(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2,
                             const ct_tensor *w, const ct_tensor *b, ct_tensor **out);
/* F.channel_shuffle of x (N, C, ...): channels regrouped from (groups, C/groups) to (C/groups,
 * groups) order; differentiable (torch 1.13's is not). */
CT_API ct_status ct_channel_shuffle(ct_ctx *ctx, const ct_tensor *x, int64_t groups,
                                    ct_tensor **out);
/* torch.rnn_tanh_cell / rnn_relu_cell: act(linear(hx, w_hh, b_hh) + linear(x, w_ih, b_ih)) with x
 * (N, in), hx (N, H), w_ih (H, in), w_hh (H, H), biases (H) or NULL. */
CT_API ct_status ct_rnn_tanh_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx,
                                  const ct_tensor *w_ih, const ct_tensor *w_hh,
                                  const ct_tensor *b_ih, const ct_tensor *b_hh, ct_tensor **out);
CT_API ct_status ct_rnn_relu_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx,
                                  const ct_tensor *w_ih, const ct_tensor *w_hh,
                                  const ct_tensor *b_ih, const ct_tensor *b_hh, ct_tensor **out);
/* torch.lstm_cell: gates (input, forget, cell, output) from w_ih (4H, in), w_hh (4H, H); cy = f cx
 * + i g, hy = o tanh(cy), in ATen's order of operations. */
CT_API ct_status ct_lstm_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx,
                              const ct_tensor *cx, const ct_tensor *w_ih, const ct_tensor *w_hh,
                              const ct_tensor *b_ih, const ct_tensor *b_hh, ct_tensor **hy,
                              ct_tensor **cy);
/* torch.gru_cell: reset r, update z, new n = tanh(i_n + r h_n) from w_ih (3H, in), w_hh (3H, H);
 * hy = (hx - n) z + n, as ATen. */
CT_API ct_status ct_gru_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx,
                             const ct_tensor *w_ih, const ct_tensor *w_hh, const ct_tensor *b_ih,
                             const ct_tensor *b_hh, ct_tensor **out);
/* Options of ct_rnn / ct_lstm / ct_gru (nn.RNN / LSTM / GRU's arguments). Zero-initialised (or a
 * NULL pointer) it is torch's default: one layer, biases, one direction, (seq, batch, feature). */
typedef struct ct_rnn_opts {
    int num_layers;        /* 0 or 1: one layer */
    bool no_bias;          /* the params hold no b_ih / b_hh (torch's bias=False) */
    bool bidirectional;    /* a reverse direction per layer, outputs joined on the last dim */
    bool batch_first;      /* input and output are (batch, seq, feature) */
    bool relu;             /* ct_rnn only: relu instead of tanh (torch.rnn_relu) */
    int64_t proj_size;     /* ct_lstm only: > 0 adds w_hr (proj_size, hidden) per direction */
    double dropout;        /* on each layer's output but the last, when train */
    bool train;            /* dropout active */
    uint64_t seed, offset; /* dropout draws (ct_dropout; layer l at offset + l * its numel) */
    /* NULL, or the batch's sequence lengths (N, int32 / int64, 1..T; batched input only): torch's
     * packed sequences (pack_padded_sequence(x, lengths, enforce_sorted=False), the layer, then
     * pad_packed_sequence(total_length=T)): steps past a sequence's length leave its state as it
     * was and output zeros, the reverse direction starts at its last step, h_n / c_n are each
     * sequence's final states. Checked on the host outside a capture. */
    const struct ct_tensor *lengths;
} ct_rnn_opts;
/* torch.rnn_tanh / rnn_relu (nn.RNN): x (T, N, in) (or (T, in) unbatched), h0 (layers * dirs, N,
 * H) or NULL (zeros), params per layer and direction: w_ih (H, in_l), w_hh (H, H)[, b_ih, b_hh]
 * (torch's order); out (T, N, dirs * H), h_n (layers * dirs, N, H) (h_n may be NULL). */
CT_API ct_status ct_rnn(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *h0,
                        const ct_tensor *const *params, int n_params, const ct_rnn_opts *opts,
                        ct_tensor **out, ct_tensor **h_n);
/* torch.lstm (nn.LSTM): as ct_rnn with 4H gate rows, the cell state c0 / c_n (layers * dirs, N,
 * H) (NULL: zeros / not wanted) and, with proj_size P, w_hr last in each group (h is then P). */
CT_API ct_status ct_lstm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0,
                         const ct_tensor *const *params, int n_params, const ct_rnn_opts *opts,
                         ct_tensor **out, ct_tensor **h_n, ct_tensor **c_n);
/* torch.gru (nn.GRU): as ct_rnn with 3H gate rows (reset, update, new). */
CT_API ct_status ct_gru(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *h0,
                        const ct_tensor *const *params, int n_params, const ct_rnn_opts *opts,
                        ct_tensor **out, ct_tensor **h_n);
/* Options of ct_scaled_dot_product_attention; zeroed (or NULL) it is torch's default: no mask,
 * no dropout, scale 1 / sqrt(E), no grouped-query heads. */
typedef struct ct_sdpa_opts {
    const ct_tensor *attn_mask; /* bool (true takes part) or float (added), to (..., L, S) */
    double dropout_p;           /* on the attention weights (always applied when > 0, as torch) */
    bool is_causal;             /* query i sees keys 0..i (tril of an (L, S) mask); no attn_mask */
    double scale;               /* 0: 1 / sqrt(E); negative allowed (torch's sign handling) */
    bool enable_gqa;            /* key / value heads (dim -3) repeated to the query's */
    uint64_t seed, offset;      /* dropout draws, as ct_dropout */
} ct_sdpa_opts;
/* F.scaled_dot_product_attention: softmax(q k^T scale + mask) v for q (..., L, E), k (..., S, E),
 * v (..., S, Ev) -> (..., L, Ev), as PyTorch 2.x's math backend (a row with no key gives 0). */
CT_API ct_status ct_scaled_dot_product_attention(ct_ctx *ctx, const ct_tensor *q,
                                                 const ct_tensor *k, const ct_tensor *v,
                                                 const ct_sdpa_opts *opts, ct_tensor **out);
/* Options of ct_multi_head_attention_forward (F.multi_head_attention_forward's arguments); zeroed
 * (or NULL) it is: no biases, no masks, no dropout, weights averaged over the heads. */
typedef struct ct_mha_opts {
    const ct_tensor *in_proj_weight; /* (3E, E); NULL: q / k / v_proj_weight (separate) */
    const ct_tensor *in_proj_bias;   /* (3E) or NULL */
    const ct_tensor *q_proj_weight, *k_proj_weight,
        *v_proj_weight;                   /* (E, E), (E, kdim), (E, vdim) */
    const ct_tensor *bias_k, *bias_v;     /* (1, 1, E): one more key / value position, or NULL */
    bool add_zero_attn;                   /* one more all-zero key / value position */
    const ct_tensor *key_padding_mask;    /* (N, S): bool (true: ignored) or float (added) */
    const ct_tensor *attn_mask;           /* (L, S) or (N heads, L, S): bool / byte (true: not
                                             allowed) or float (added) */
    const ct_tensor *static_k, *static_v; /* (N heads, S, E / heads) used as k / v, or NULL */
    bool per_head_weights; /* attn_weights (N, heads, L, S) (average_attn_weights=0) */
    double dropout_p;      /* on the attention weights, when training */
    bool training;
    uint64_t seed, offset; /* dropout draws, as ct_dropout */
} ct_mha_opts;
/* F.multi_head_attention_forward (nn.MultiheadAttention): query (L, N, E) (or (L, E)), key / value
 * (S, N, kdim / vdim); out (L, N, E_out) and, when attn_weights is not NULL, the weights (N, L, S)
 * averaged over the heads; torch 1.13's steps and masks (note: true in a bool mask excludes). */
CT_API ct_status ct_multi_head_attention_forward(
    ct_ctx *ctx, const ct_tensor *query, const ct_tensor *key, const ct_tensor *value,
    int64_t num_heads, const ct_tensor *out_proj_weight, const ct_tensor *out_proj_bias,
    const ct_mha_opts *opts, ct_tensor **out, ct_tensor **attn_weights);
/* F.affine_grid for 2-d: theta (N, 2, 3) applied to the normalized coordinates of size (N, C, H,
 * W) (-1 .. 1, pixel centres without align_corners): grid (N, H, W, 2) of (x, y), one bmm. */
CT_API ct_status ct_affine_grid(ct_ctx *ctx, const ct_tensor *theta, const int64_t size[4],
                                bool align_corners, ct_tensor **out);
typedef enum ct_grid_mode { CT_GRID_BILINEAR = 0, CT_GRID_NEAREST } ct_grid_mode;
typedef enum ct_grid_padding {
    CT_GRID_PAD_ZEROS = 0,
    CT_GRID_PAD_BORDER,
    CT_GRID_PAD_REFLECTION
} ct_grid_padding;
/* F.grid_sample for 2-d: x (N, C, H, W) sampled at grid (N, Ho, Wo, 2) of normalized (x, y) ->
 * (N, C, Ho, Wo), bilinear or nearest (half to even), with zeros / border / reflection padding and
 * align_corners as torch; differentiable in x and grid. */
CT_API ct_status ct_grid_sample(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *grid,
                                ct_grid_mode mode, ct_grid_padding padding_mode, bool align_corners,
                                ct_tensor **out);

typedef enum ct_interp_mode {
    CT_INTERP_NEAREST = 0,   /* torch's 'nearest': source floor(j * in / out) */
    CT_INTERP_NEAREST_EXACT, /* 'nearest-exact': floor((j + 0.5) * in / out) */
    CT_INTERP_LINEAR,        /* 'linear' / 'bilinear' / 'trilinear' (by the input's rank) */
    CT_INTERP_AREA,          /* 'area': adaptive average pooling to the output size */
    CT_INTERP_BICUBIC        /* 'bicubic' (4-d inputs; torch's A = -0.75, clamped borders) */
} ct_interp_mode;
/* F.interpolate to an output size (one per spatial dim) of (N, C, L), (N, C, H, W) or
 * (N, C, D, H, W): nearest, nearest-exact, (bi / tri)linear or bicubic with align_corners (which
 * the other modes refuse) or area.
 * index_select + elementwise ops, so differentiable; linear modes need a floating input. CPU. */
CT_API ct_status ct_interpolate(ct_ctx *ctx, const ct_tensor *x, int n_size, const int64_t *size,
                                ct_interp_mode mode, bool align_corners, ct_tensor **out);
/* The same by scale factor (one per spatial dim): output size floor(in * scale_factor), and, as
 * torch, source coordinates mapped with 1 / scale_factor unless recompute_scale_factor (then
 * in / out, as ct_interpolate). */
CT_API ct_status ct_interpolate_scale(ct_ctx *ctx, const ct_tensor *x, int n_scale,
                                      const double *scale_factor, ct_interp_mode mode,
                                      bool align_corners, bool recompute_scale_factor,
                                      ct_tensor **out);

/* ---- linear algebra ---- */
/* torch.matmul: 1-d/2-d/batched with batch broadcasting. f32/f64 through BLAS; f16/bf16 in f32;
 * integer dtypes (not bool) with exact wrapping integer accumulation. Both operands one dtype. */
CT_API ct_status ct_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.bmm: a (B,M,K) @ b (B,K,N), no broadcasting. */
CT_API ct_status ct_bmm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);

/* ---- indexing ---- */
/* out[..., :] = weight[indices[...], :]; indices int32/int64 in [0, V); CT_ERR_INDEX otherwise. */
CT_API ct_status ct_embedding(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                              ct_tensor **out);

/* ---- indexing (index tensors int64; index_select / index_add take int32 too, as torch; an
 * index outside its dim is CT_ERR_INDEX) ---- */
/* Entries of t at the 1-d index along dim (as torch.index_select; a copy). */
CT_API ct_status ct_index_select(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                 ct_tensor **out);
/* out[i][j][k] = t[index[i][j][k]][j][k] for dim 0, and so on (as torch.gather): index has t's
 * ndim and is no larger than t off dim; out has index's shape. */
CT_API ct_status ct_gather(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                           ct_tensor **out);
/* gather after broadcasting t and indices off dim (as torch.take_along_dim); dim = CT_ALL_DIMS
 * takes from the flattened t. */
CT_API ct_status ct_take_along_dim(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *indices,
                                   int dim, ct_tensor **out);
/* A copy of t with out[..index[i]..] = src[i] along dim (as torch.scatter; with repeated indices
 * the last write in C order wins). src has t's dtype and is no smaller than index. */
CT_API ct_status ct_scatter(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                            const ct_tensor *src, ct_tensor **out);
/* Same, adding: out[..index[i]..] += src[i], in C order of index (as torch.scatter_add; integers
 * wrap, floats round once per addition, bool ORs). */
CT_API ct_status ct_scatter_add(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                const ct_tensor *src, ct_tensor **out);
/* A copy of t with out[..index[i]..] += alpha * source[..i..] along dim (as torch.index_add):
 * index 1-d, source is t's shape with len(index) along dim; repeated indices add up in order.
 * Integer t: alpha truncated to the dtype (out of range: CT_ERR_INVALID_ARG); bool: OR where
 * alpha != 0. */
CT_API ct_status ct_index_add(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                              const ct_tensor *source, double alpha, ct_tensor **out);
/* t with the slices at index (int64, 0-d or 1-d) along dim replaced by source's (torch.index_copy;
 * source has t's dtype and shape but len(index) along dim). */
CT_API ct_status ct_index_copy(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                               const ct_tensor *source, ct_tensor **out);
/* t with the slices at index along dim set to value (torch.index_fill; integers truncate it). */
CT_API ct_status ct_index_fill(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                               double value, ct_tensor **out);
/* t (broadcast with the bool mask) with source's elements, in C order, where mask is true
 * (torch.masked_scatter; source of t's dtype with at least as many elements as true values,
 * counted on the host). */
CT_API ct_status ct_masked_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                                   const ct_tensor *source, ct_tensor **out);
/* value where mask (bool, broadcasting with t) is true, t elsewhere (as torch.masked_fill; value
 * checked as in ct_tensor_full). */
CT_API ct_status ct_masked_fill(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask,
                                double value, ct_tensor **out);
/* int64 (..., num_classes) with a 1 at each index (as torch.nn.functional.one_hot; indices int64
 * in [0, num_classes)); num_classes = -1 uses max + 1, which reads the data on the host. */
CT_API ct_status ct_one_hot(ct_ctx *ctx, const ct_tensor *indices, int64_t num_classes,
                            ct_tensor **out);

/* ---- sorting and selection (NaN is the largest value, as torch; ties keep their order) ---- */
/* Values and int64 indices sorted along dim (as torch.sort). The sort is always stable, which is
 * also a valid result for stable = false. Results are contiguous, in t's dim order. */
CT_API ct_status ct_sort(ct_ctx *ctx, const ct_tensor *t, int dim, bool descending, bool stable,
                         ct_tensor **values, ct_tensor **indices);
/* The indices of ct_sort (as torch.argsort). */
CT_API ct_status ct_argsort(ct_ctx *ctx, const ct_tensor *t, int dim, bool descending,
                            ct_tensor **out);
/* The k largest (or smallest) along dim with their indices, sorted (as torch.topk; also for
 * sorted = false); 0 <= k <= size, else CT_ERR_INDEX. */
CT_API ct_status ct_topk(ct_ctx *ctx, const ct_tensor *t, int64_t k, int dim, bool largest,
                         bool sorted, ct_tensor **values, ct_tensor **indices);
/* The k-th smallest (k from 1) along dim and its index (as torch.kthvalue; among equal values the
 * first in stable order). */
CT_API ct_status ct_kthvalue(ct_ctx *ctx, const ct_tensor *t, int64_t k, int dim, bool keepdim,
                             ct_tensor **values, ct_tensor **indices);

/* ---- creation from another tensor (same shape, dtype and device) ---- */
/* Uninitialised (as torch.empty_like). */
CT_API ct_status ct_empty_like(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* Filled with zeros / ones / value (as torch.zeros_like, ones_like, full_like; value checked as in
 * ct_tensor_full). */
CT_API ct_status ct_zeros_like(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_ones_like(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_full_like(ct_ctx *ctx, const ct_tensor *t, double value, ct_tensor **out);
/* Lower / upper triangle of the last two dims (as torch.tril / triu): keeps col - row <= diagonal
 * (tril) or >= diagonal (triu), zeros the rest; batched over leading dims; >= 2 dims
 * (CT_ERR_SHAPE). */
CT_API ct_status ct_tril(ct_ctx *ctx, const ct_tensor *t, int64_t diagonal, ct_tensor **out);
CT_API ct_status ct_triu(ct_ctx *ctx, const ct_tensor *t, int64_t diagonal, ct_tensor **out);

/* ---- shaping. Views (sharing storage) where torch returns views: split, split_sizes, chunk,
 * movedim, and flatten / unflatten when the strides allow; the rest return new tensors. ---- */
/* Concatenate n tensors along dim (as torch.cat): dtypes promote (torch.result_type), sizes must
 * match except along dim; 1-d empty tensors are skipped (torch 1.13); 0-d inputs: CT_ERR_SHAPE. */
CT_API ct_status ct_cat(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim, ct_tensor **out);
/* Join n tensors of one shape along a new dim (as torch.stack); -ndim-1 <= dim <= ndim. */
CT_API ct_status ct_stack(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim, ct_tensor **out);
/* Views of split_size along dim (the last may be smaller; as torch.split). *n_out receives the
 * number of pieces; if it exceeds max_out, CT_ERR_INVALID_ARG and outs is untouched. */
CT_API ct_status ct_split(ct_ctx *ctx, const ct_tensor *t, int64_t split_size, int dim, int max_out,
                          ct_tensor **outs, int *n_out);
/* n views of the given sizes along dim (as torch.split with a list; sizes sum to the dim's size).
 */
CT_API ct_status ct_split_sizes(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *sizes,
                                int dim, ct_tensor **outs);
/* Views of ceil(size / chunks) along dim, so possibly fewer than `chunks` (as torch.chunk);
 * *n_out and max_out as in ct_split. */
CT_API ct_status ct_chunk(ct_ctx *ctx, const ct_tensor *t, int chunks, int dim, int max_out,
                          ct_tensor **outs, int *n_out);
/* t with at least 1 / 2 / 3 dims (torch.atleast_*d): t itself (retained) when it has them, else a
 * view: 0-d -> (1), (1, 1), (1, 1, 1); 1-d (n) -> (1, n) and (1, n, 1); 2-d -> (m, n, 1). */
CT_API ct_status ct_atleast_1d(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_atleast_2d(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_atleast_3d(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch.hstack (cat along dim 1, dim 0 for 1-d inputs), vstack (rows: inputs made 2-d, dim 0),
 * dstack (inputs made 3-d, dim 2) and column_stack (0-d / 1-d inputs as columns, then hstack) of
 * n <= 64 tensors; dtypes promote as in ct_cat. */
CT_API ct_status ct_hstack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
CT_API ct_status ct_vstack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
CT_API ct_status ct_dstack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
CT_API ct_status ct_column_stack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
/* torch.tensor_split into `sections` views along dim (sizes differ by at most one, the larger
 * first; outs holds `sections` entries), or at n indices (n + 1 views, Python slice rules:
 * negative indices wrap, an index before the previous one gives an empty piece). */
CT_API ct_status ct_tensor_split(ct_ctx *ctx, const ct_tensor *t, int sections, int dim,
                                 ct_tensor **outs);
CT_API ct_status ct_tensor_split_indices(ct_ctx *ctx, const ct_tensor *t, int n,
                                         const int64_t *indices, int dim, ct_tensor **outs);
/* torch.block_diag of n <= 64 tensors of at most 2 dims (0-d as 1x1, 1-d as one row), in the
 * promoted dtype. */
CT_API ct_status ct_block_diag(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
/* torch.cartesian_prod of n 1-d tensors of one dtype: (prod of lengths, n); n == 1: the input. */
CT_API ct_status ct_cartesian_prod(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
/* torch.diag_embed: the last dim of a on the offset diagonal of two new dims dim1, dim2 of the
 * result (dims of the result's rank; zeros elsewhere). */
CT_API ct_status ct_diag_embed(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1, int dim2,
                               ct_tensor **out);
/* torch.vander: (len(x), N) with columns x^(N-1) ... x^0 (increasing: x^0 ... x^(N-1)); N < 0 means
 * len(x); integer and bool x give int64. */
CT_API ct_status ct_vander(ct_ctx *ctx, const ct_tensor *x, int64_t N, bool increasing,
                           ct_tensor **out);
/* torch.quantile's interpolation between the two nearest sorted values. */
typedef enum ct_quantile_interp {
    CT_QUANTILE_LINEAR = 0,
    CT_QUANTILE_LOWER,
    CT_QUANTILE_HIGHER,
    CT_QUANTILE_NEAREST,
    CT_QUANTILE_MIDPOINT
} ct_quantile_interp;
/* torch.quantile of a float32 / float64 tensor at q (0-d or 1-d, the input's dtype, values in
 * [0, 1], else CT_ERR_INVALID_ARG) over dim (CT_ALL_DIMS: flattened); q's entries lead the result
 * dims; a slice with a NaN gives NaN. nanquantile ignores NaN (NaN only for all-NaN slices). */
CT_API ct_status ct_quantile(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *q, int dim,
                             bool keepdim, ct_quantile_interp interpolation, ct_tensor **out);
CT_API ct_status ct_nanquantile(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *q, int dim,
                                bool keepdim, ct_quantile_interp interpolation, ct_tensor **out);
/* Merge dims start_dim..end_dim into one (as torch.flatten; 0-d gives shape (1,); start_dim ==
 * end_dim gives t itself, retained, as torch). */
CT_API ct_status ct_flatten(ct_ctx *ctx, const ct_tensor *t, int start_dim, int end_dim,
                            ct_tensor **out);
/* Split dim into n dims of the given sizes, one may be -1 (as torch.unflatten); always a view. */
CT_API ct_status ct_unflatten(ct_ctx *ctx, const ct_tensor *t, int dim, int n, const int64_t *sizes,
                              ct_tensor **out);
/* Tile t: n >= ndim counts, leading extra counts add dims (as Tensor.repeat). */
CT_API ct_status ct_repeat(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *repeats,
                           ct_tensor **out);
/* Reverse the order along the given dims (as torch.flip; a copy). */
CT_API ct_status ct_flip(ct_ctx *ctx, const ct_tensor *t, int n_dims, const int *dims,
                         ct_tensor **out);
/* out[(i + shift) % size] = t[i] along each dim (as torch.roll; a copy). dims NULL: roll the
 * flattened tensor by the one shift and restore the shape. */
CT_API ct_status ct_roll(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *shifts,
                         const int *dims, ct_tensor **out);
/* Move dims src[i] to positions dst[i], the others keep their order (as torch.movedim; a view). */
CT_API ct_status ct_movedim(ct_ctx *ctx, const ct_tensor *t, int n, const int *src, const int *dst,
                            ct_tensor **out);

/* ---- linear algebra basics and more reductions, composed of the ops above: differentiable
 * through them, each result printing torch's node name (docs/everyday.md) ---- */
/* Inner product of two 1-D tensors of one dtype and length (torch.dot; bool refused). */
CT_API ct_status ct_dot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Matrix (m, n) times vector (n), one dtype (torch.mv). */
CT_API ct_status ct_mv(ct_ctx *ctx, const ct_tensor *m, const ct_tensor *v, ct_tensor **out);
/* Outer product a[i] * b[j] of two 1-D tensors, dtypes promoted (torch.outer). */
CT_API ct_status ct_outer(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Diagonal `offset` of the (dim1, dim2) planes, as the last dim (torch.diagonal). A view when the
 * two dims, moved last, merge without a copy (a contiguous matrix, or the last two dims of a
 * contiguous tensor in order); otherwise a copy (torch always returns a view). */
CT_API ct_status ct_diagonal(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1, int dim2,
                             ct_tensor **out);
/* Sum of a matrix's main diagonal (torch.trace: integers give int64; bool refused; f16 / bf16
 * computed, where torch has no kernel). */
CT_API ct_status ct_trace(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.diag: a 1-D tensor becomes the square matrix with it on diagonal k (zeros elsewhere); a
 * matrix gives a copy of its diagonal k. */
CT_API ct_status ct_diag(ct_ctx *ctx, const ct_tensor *a, int64_t diagonal, ct_tensor **out);
/* Tile a: n counts, fewer than a's dims padded with leading ones (torch.tile). */
CT_API ct_status ct_tile(ct_ctx *ctx, const ct_tensor *a, int n, const int64_t *reps,
                         ct_tensor **out);
typedef enum { CT_MESHGRID_IJ, CT_MESHGRID_XY } ct_meshgrid_indexing;
/* Coordinate grids of n 0-D / 1-D tensors of one dtype (torch.meshgrid): outs[i] (n of them) are
 * expanded views; CT_MESHGRID_XY swaps the first two grid dims (Cartesian indexing). */
CT_API ct_status ct_meshgrid(ct_ctx *ctx, int n, const ct_tensor *const *ts,
                             ct_meshgrid_indexing indexing, ct_tensor **outs);
/* n-th forward difference along dim (torch.diff) after concatenating prepend / append (either may
 * be NULL; same number of dims); bool uses xor; n <= 0 gives a copy of a. */
CT_API ct_status ct_diff(ct_ctx *ctx, const ct_tensor *a, int n, int dim, const ct_tensor *prepend,
                         const ct_tensor *append, ct_tensor **out);
/* Sum / mean over dims treating NaN as absent (torch.nansum, torch.nanmean; nanmean floating
 * only: all-NaN slices give NaN). */
CT_API ct_status ct_nansum(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                           bool keepdim, ct_tensor **out);
CT_API ct_status ct_nanmean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                            bool keepdim, ct_tensor **out);
/* ct_var / ct_std and ct_mean in one call (torch.var_mean / torch.std_mean). */
CT_API ct_status ct_var_mean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                             double correction, bool keepdim, ct_tensor **var, ct_tensor **mean);
CT_API ct_status ct_std_mean(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                             double correction, bool keepdim, ct_tensor **std, ct_tensor **mean);
/* Median over dim with the index of the element taken (torch.median(t, dim)): the lower middle
 * value, NaN (and the first NaN's index) when the slice has one; nanmedian ignores NaN (torch.
 * nanmedian: NaN only for an all-NaN slice). Among equal values, the index of the element at
 * that position of a stable sort. Bool refused; a zero-size dim: CT_ERR_SHAPE. */
CT_API ct_status ct_median_dim(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim,
                               ct_tensor **values, ct_tensor **indices);
CT_API ct_status ct_nanmedian_dim(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim,
                                  ct_tensor **values, ct_tensor **indices);
/* Median of every element as a 0-d tensor (NaN for an empty floating tensor); its gradient is
 * spread evenly over the elements equal to it, as torch's. */
CT_API ct_status ct_median(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_nanmedian(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Running max / min along dim with the index each value came from (torch.cummax / cummin): ties
 * take the later index, a NaN sticks (with the latest NaN's index). Any dtype; differentiable. */
CT_API ct_status ct_cummax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **values,
                           ct_tensor **indices);
CT_API ct_status ct_cummin(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **values,
                           ct_tensor **indices);
/* log(cumsum(exp(a))) along dim without overflow (torch.logcumsumexp; floating only). */
CT_API ct_status ct_logcumsumexp(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* Rotate by k quarter turns in the plane (dim0, dim1), from dim0 towards dim1 (torch.rot90; k
 * mod 4, negative k turns the other way; at least 2 dims). */
CT_API ct_status ct_rot90(ct_ctx *ctx, const ct_tensor *a, int64_t k, int dim0, int dim1,
                          ct_tensor **out);
/* Kronecker product (torch.kron): shapes aligned from the right, each result dim a_i * b_i;
 * dtypes promote. */
CT_API ct_status ct_kron(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* Each element repeated `repeats` times along dim (torch.repeat_interleave with an integer;
 * dim = CT_ALL_DIMS repeats the flattened tensor). */
CT_API ct_status ct_repeat_interleave(ct_ctx *ctx, const ct_tensor *a, int64_t repeats, int dim,
                                      ct_tensor **out);
/* Insertion points of values in the sorted last dim of sorted_sequence (torch.searchsorted): left
 * (first position with seq >= v) or right (seq > v); a 1-D sequence serves values of any shape,
 * else its leading dims match the values'. torch's binary search step for step (NaN and unsorted
 * input answer as torch's). int64, or int32 with out_int32. */
CT_API ct_status ct_searchsorted(ct_ctx *ctx, const ct_tensor *sorted_sequence,
                                 const ct_tensor *values, bool out_int32, bool right,
                                 ct_tensor **out);
/* The bucket of each input element among 1-D sorted boundaries (torch.bucketize). */
CT_API ct_status ct_bucketize(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *boundaries,
                              bool out_int32, bool right, ct_tensor **out);
/* Bool tensor of elements' shape: the element equals some test element (torch.isin; dtypes
 * promote, NaN matches nothing; invert negates). Compares all pairs: O(numel * test numel). */
CT_API ct_status ct_isin(ct_ctx *ctx, const ct_tensor *elements, const ct_tensor *test_elements,
                         bool invert, ct_tensor **out);
/* ct_amin and ct_amax in one call over one dim or all (n_dims 0 or 1; torch.aminmax; not
 * differentiable, as torch: backward through it fails with CT_ERR_UNSUPPORTED). */
CT_API ct_status ct_aminmax(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                            bool keepdim, ct_tensor **min, ct_tensor **max);
/* Occurrences of each value 0..max(x) of a 1-D non-negative integer tensor, at least minlength
 * bins (torch.bincount): int64 counts, or sums of weights (float32 weights in float32, others
 * in float64, as torch). Reads max(x) on the host: eager only. */
CT_API ct_status ct_bincount(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *weights,
                             int64_t minlength, ct_tensor **out);
/* Covariance of the rows (variables) of a 1-D or 2-D x over its columns (torch.cov without
 * weights): (x - mean) (x - mean)^T / (N - correction), a non-positive divisor giving inf / NaN;
 * size-1 dims squeezed; integers in float32. */
CT_API ct_status ct_cov(ct_ctx *ctx, const ct_tensor *x, int64_t correction, ct_tensor **out);
/* Pearson correlation coefficients of the rows (torch.corrcoef), clipped to [-1, 1]. */
CT_API ct_status ct_corrcoef(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* Trapezoid-rule integral of y along dim with spacing dx (torch.trapezoid): (sum(y) - (y[0] +
 * y[-1]) / 2) dx; an empty dim gives zeros; integers give float32. */
CT_API ct_status ct_trapezoid(ct_ctx *ctx, const ct_tensor *y, double dx, int dim, ct_tensor **out);
/* torch.cumulative_trapezoid along dim: (dx / 2 (y[:-1] + y[1:])).cumsum(dim); the _x form takes
 * sample points x (1-d along dim, or broadcasting to y): ((y[:-1] + y[1:]) diff(x)).cumsum / 2. */
CT_API ct_status ct_cumulative_trapezoid(ct_ctx *ctx, const ct_tensor *y, double dx, int dim,
                                         ct_tensor **out);
CT_API ct_status ct_cumulative_trapezoid_x(ct_ctx *ctx, const ct_tensor *y, const ct_tensor *x,
                                           int dim, ct_tensor **out);
/* torch.mode along dim: the most frequent value (the smallest among ties) and the index of its
 * last occurrence (int64); differentiable through the values. NaN values never tie. */
CT_API ct_status ct_mode(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **values,
                         ct_tensor **indices);
/* torch.histc of a float32 / float64 tensor: counts in `bins` equal bins over [min, max] (min ==
 * max: the data's range); values outside and NaN are skipped; the result has a's dtype. */
CT_API ct_status ct_histc(ct_ctx *ctx, const ct_tensor *a, int64_t bins, double min, double max,
                          ct_tensor **out);
/* a ^ b with both in float64 (torch.float_power); the _scalar form takes a double exponent. */
CT_API ct_status ct_float_power(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out);
CT_API ct_status ct_float_power_scalar(ct_ctx *ctx, const ct_tensor *a, double exponent,
                                       ct_tensor **out);
/* torch.argwhere: the (N, ndim) int64 indices of the nonzero elements (the same as ct_nonzero). */
CT_API ct_status ct_argwhere(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch.ravel: t as one dim (a view when t is contiguous). */
CT_API ct_status ct_ravel(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch's aliases: swapaxes / swapdims (ct_tensor_transpose), clip (ct_clamp), absolute (ct_abs),
 * negative (ct_neg), fix (ct_trunc), true_divide (ct_div). */
CT_API ct_status ct_swapaxes(ct_ctx *ctx, const ct_tensor *t, int axis0, int axis1,
                             ct_tensor **out);
CT_API ct_status ct_swapdims(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1, ct_tensor **out);
CT_API ct_status ct_clip(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                         ct_tensor **out);
CT_API ct_status ct_absolute(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_negative(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_fix(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_true_divide(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                ct_tensor **out);
/* torch.special.zeta(x, q): the Hurwitz zeta function sum_k (k + q)^-x for x > 1 (x == 1: inf, x <
 * 1: NaN, q <= 0 as Cephes: inf at integers, NaN for a non-integer x); integers promote to float32.
 * Differentiable in q (-x zeta(x + 1, q)); d/dx is not implemented, as torch. */
CT_API ct_status ct_special_zeta(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *q,
                                 ct_tensor **out);
/* torch.special.gammainc / gammaincc: the regularized lower / upper incomplete gamma functions
 * P(a, x), Q(a, x) of floating tensors (a, x >= 0; torch's values at 0 and inf). Differentiable in
 * x; d/da is not implemented, as torch. */
CT_API ct_status ct_special_gammainc(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *x,
                                     ct_tensor **out);
CT_API ct_status ct_special_gammaincc(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *x,
                                      ct_tensor **out);
/* torch.special.bessel_j0 / j1 / y0 / y1 (Y: NaN below 0, -inf at 0), modified_bessel_k0 / k1
 * (x > 0; inf at 0, NaN below), scaled_modified_bessel_k0 / k1 (e^x K), spherical_bessel_j0
 * (sin x / x); integers in float32; differentiable (torch 1.13's are not) by the recurrences. */
CT_API ct_status ct_special_bessel_j0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_bessel_j1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_bessel_y0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_bessel_y1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_modified_bessel_k0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_modified_bessel_k1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_scaled_modified_bessel_k0(ct_ctx *ctx, const ct_tensor *a,
                                                      ct_tensor **out);
CT_API ct_status ct_special_scaled_modified_bessel_k1(ct_ctx *ctx, const ct_tensor *a,
                                                      ct_tensor **out);
CT_API ct_status ct_special_spherical_bessel_j0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.special.modified_bessel_i0 / i1: the aliases of ct_i0 and ct_special_i1. */
CT_API ct_status ct_special_modified_bessel_i0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_modified_bessel_i1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.special's orthogonal polynomials f(x, n), x and n broadcast tensors (integers and bool in
 * float32): Chebyshev T U V W of the first to fourth kinds and the shifted ones (at 2x - 1), the
 * physicists' / probabilists' Hermite H, He, Laguerre L, Legendre P. n is truncated to an integer
 * as torch; a negative one (or NaN, inf, |n| >= 2^63) gives 0; a NaN x gives NaN except at degree
 * 0 (1). Accurate for any degree (Chebyshev in closed form; the others by their recurrence, NaN
 * above degree 2^24); overflow gives +-inf where torch has NaN. Differentiable in x for T, shifted
 * T, H, He; d/dx of the others fails with CT_ERR_UNSUPPORTED; d/dn is 0. */
CT_API ct_status ct_special_chebyshev_polynomial_t(ct_ctx *ctx, const ct_tensor *x,
                                                   const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_chebyshev_polynomial_u(ct_ctx *ctx, const ct_tensor *x,
                                                   const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_chebyshev_polynomial_v(ct_ctx *ctx, const ct_tensor *x,
                                                   const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_chebyshev_polynomial_w(ct_ctx *ctx, const ct_tensor *x,
                                                   const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_shifted_chebyshev_polynomial_t(ct_ctx *ctx, const ct_tensor *x,
                                                           const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_shifted_chebyshev_polynomial_u(ct_ctx *ctx, const ct_tensor *x,
                                                           const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_shifted_chebyshev_polynomial_v(ct_ctx *ctx, const ct_tensor *x,
                                                           const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_shifted_chebyshev_polynomial_w(ct_ctx *ctx, const ct_tensor *x,
                                                           const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_hermite_polynomial_h(ct_ctx *ctx, const ct_tensor *x,
                                                 const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_hermite_polynomial_he(ct_ctx *ctx, const ct_tensor *x,
                                                  const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_laguerre_polynomial_l(ct_ctx *ctx, const ct_tensor *x,
                                                  const ct_tensor *n, ct_tensor **out);
CT_API ct_status ct_special_legendre_polynomial_p(ct_ctx *ctx, const ct_tensor *x,
                                                  const ct_tensor *n, ct_tensor **out);
/* torch.special.airy_ai: the Airy function Ai(x) (integers in float32; 0 at +-inf where torch
 * has NaN); its derivative is not implemented (CT_ERR_UNSUPPORTED), torch 1.13 has none either. */
CT_API ct_status ct_special_airy_ai(ct_ctx *ctx, const ct_tensor *x, ct_tensor **out);
/* torch.special's re-exports of the ops above: expit (sigmoid), gammaln (lgamma), psi and
 * digamma, erf, erfc, erfinv, exp2, expm1, log1p, sinc, round, i0, xlogy, multigammaln (mvlgamma),
 * polygamma, logit, logsumexp, softmax, log_softmax (the same results and node names). */
CT_API ct_status ct_special_expit(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_gammaln(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_psi(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_digamma(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_erf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_erfc(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_erfinv(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_exp2(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_expm1(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_log1p(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_sinc(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_round(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_i0(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_xlogy(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                  ct_tensor **out);
CT_API ct_status ct_special_multigammaln(ct_ctx *ctx, const ct_tensor *a, int64_t p,
                                         ct_tensor **out);
CT_API ct_status ct_special_polygamma(ct_ctx *ctx, int64_t n, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_special_logit(ct_ctx *ctx, const ct_tensor *a, double eps, ct_tensor **out);
CT_API ct_status ct_special_logsumexp(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                                      bool keepdim, ct_tensor **out);
CT_API ct_status ct_special_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
CT_API ct_status ct_special_log_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* More of torch's aliases: arccos / arccosh / arcsin / arcsinh / arctan / arctanh / arctan2 (the
 * a- functions), divide (ct_div), multiply (ct_mul), subtract (ct_sub_scaled), greater /
 * greater_equal / less / less_equal / not_equal (the comparisons), ger (ct_outer), det
 * (ct_linalg_det), inverse (ct_linalg_inv), pinverse (ct_linalg_pinv with rtol = rcond, atol 0),
 * trapz (ct_trapezoid). */
CT_API ct_status ct_arccos(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_arccosh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_arcsin(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_arcsinh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_arctan(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_arctanh(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_arctan2(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_divide(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_multiply(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_subtract(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                             ct_tensor **out);
CT_API ct_status ct_greater(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_greater_equal(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                  ct_tensor **out);
CT_API ct_status ct_less(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_less_equal(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                               ct_tensor **out);
CT_API ct_status ct_not_equal(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ger(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_det(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_inverse(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_pinverse(ct_ctx *ctx, const ct_tensor *a, double rcond, ct_tensor **out);
CT_API ct_status ct_trapz(ct_ctx *ctx, const ct_tensor *y, double dx, int dim, ct_tensor **out);
/* torch.max(t) / torch.min(t): the largest / smallest element, 0-d (NaN propagates; an empty t is
 * CT_ERR_SHAPE); the gradient is shared among ties, as torch's MaxBackward1. */
CT_API ct_status ct_max(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_min(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.is_floating_point / is_complex / is_signed (false for bool and uint8) / is_same_size;
 * NULL or released tensors give false. */
CT_API bool ct_is_floating_point(const ct_tensor *t);
CT_API bool ct_is_complex(const ct_tensor *t);
CT_API bool ct_is_signed(const ct_tensor *t);
CT_API bool ct_is_same_size(const ct_tensor *a, const ct_tensor *b);
/* torch.is_nonzero: the one element of t != 0 (NaN counts); not one element: CT_ERR_INVALID_ARG. */
CT_API ct_status ct_is_nonzero(ct_ctx *ctx, const ct_tensor *t, bool *out);
/* torch.promote_types, complex dtypes included (ct_dtype_promote covers the real ones). */
CT_API ct_status ct_promote_types(ct_dtype a, ct_dtype b, ct_dtype *out);
/* torch.angle: of a real tensor pi where a < 0, else 0, NaN kept (integers give float32; zero
 * gradient, as torch); of a complex tensor atan2(imag, real) in its real dtype. */
CT_API ct_status ct_angle(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.real / conj / conj_physical / resolve_conj / resolve_neg of a real tensor: a itself (a new
 * reference, as torch returns self); torch.imag of a real tensor: CT_ERR_DTYPE, as torch. Of a
 * complex tensor real / imag are views of the parts; conj / conj_physical a new tensor with the
 * imaginary parts negated (ctorch has no lazy conj bit). */
CT_API ct_status ct_real(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_imag(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_conj(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_conj_physical(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_resolve_conj(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_resolve_neg(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.view_as_real: complex a (..) as a real view (.., 2) of (real, imag) pairs. */
CT_API ct_status ct_view_as_real(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.view_as_complex: float32 / float64 a (.., 2) with the last stride 1 (other strides and the
 * offset even) as a complex view (..). */
CT_API ct_status ct_view_as_complex(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.complex: real + i imag (both float32 or both float64, broadcast). */
CT_API ct_status ct_complex(ct_ctx *ctx, const ct_tensor *real, const ct_tensor *imag,
                            ct_tensor **out);
/* torch.polar: abs (cos(angle) + i sin(angle)) (both float32 or both float64, broadcast). */
CT_API ct_status ct_polar(ct_ctx *ctx, const ct_tensor *abs, const ct_tensor *angle,
                          ct_tensor **out);
/* torch.frobenius_norm: the 2-norm over at most 2 dims (n_dims 0: all); torch.nuclear_norm: the
 * sum of singular values over dims (dims[2]; NULL: a 2-d input's two). */
CT_API ct_status ct_frobenius_norm(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                                   bool keepdim, ct_tensor **out);
CT_API ct_status ct_nuclear_norm(ct_ctx *ctx, const ct_tensor *a, const int *dims, bool keepdim,
                                 ct_tensor **out);
/* torch.svd: U, S, V (not Vh) of the reduced SVD (some) or the full one (some = false: U (m, m),
 * V (n, n)); compute_uv false: S, with U (m, m) and V (n, n) zero-filled, as torch. */
CT_API ct_status ct_svd(ct_ctx *ctx, const ct_tensor *a, bool some, bool compute_uv, ct_tensor **U,
                        ct_tensor **S, ct_tensor **V);
/* torch.qr: reduced (some) or complete (some = false: Q (m, m), R (m, n); no gradient when m > n,
 * as torch). */
CT_API ct_status ct_qr(ct_ctx *ctx, const ct_tensor *a, bool some, ct_tensor **Q, ct_tensor **R);
/* torch.cholesky (upper: U with A = U^T U), torch.slogdet, torch.matrix_power, torch.matrix_exp,
 * torch.orgqr: the linalg functions under their older names. */
CT_API ct_status ct_cholesky(ct_ctx *ctx, const ct_tensor *a, bool upper, ct_tensor **out);
CT_API ct_status ct_slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign,
                            ct_tensor **logabsdet);
CT_API ct_status ct_matrix_power(ct_ctx *ctx, const ct_tensor *a, int64_t n, ct_tensor **out);
CT_API ct_status ct_matrix_exp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_orgqr(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau, ct_tensor **out);
/* torch.triangular_solve(b, A, upper, transpose, unitriangular): X with A X = b (A^T X = b when
 * transpose) and A broadcast to X's batch and copied (cloned_coefficient may be NULL). */
CT_API ct_status ct_triangular_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *a,
                                     bool upper, bool transpose, bool unitriangular,
                                     ct_tensor **solution, ct_tensor **cloned_coefficient);
/* torch.lu_solve(b, LU, pivots): X with A X = b from lu_factor's outputs. */
CT_API ct_status ct_lu_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *LU,
                             const ct_tensor *pivots, ct_tensor **out);
/* torch.flipud (dim 0, at least 1-d) and fliplr (dim 1, at least 2-d): copies. */
CT_API ct_status ct_flipud(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_fliplr(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch.msort: t sorted ascending along dim 0 (NaN last). */
CT_API ct_status ct_msort(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch.cdist: p-norm distances (p >= 0, inf too) between the rows of x1 (..., P, M) and x2
 * (..., R, M) -> (..., P, R); p = 2 with more than 25 rows takes torch's matmul form. */
CT_API ct_status ct_cdist(ct_ctx *ctx, const ct_tensor *x1, const ct_tensor *x2, double p,
                          ct_tensor **out);
/* Einstein summation over n operands of one dtype (torch.einsum): "ij,jk->ik", implicit output
 * (letters used once, A-Z then a-z), "..." for broadcast dims, repeated subscripts (diagonals) and
 * size-1 broadcasting; contracted left to right with bmm, differentiable. */
CT_API ct_status ct_einsum(ct_ctx *ctx, const char *equation, int n,
                           const ct_tensor *const *operands, ct_tensor **out);
/* Cross product along dim (length 3 in both; same number of dims, shapes broadcast, one dtype)
 * as torch.linalg.cross,
 * rounded as torch's kernel: c0 = fma(a1, b2, -(a2 b1)), ... */
CT_API ct_status ct_cross(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int dim,
                          ct_tensor **out);

/* ---- windows, histogram, gradient (docs/everyday.md, "Windows, histogram, gradient") ---- */
/* torch.hann_window / hamming_window (alpha - beta cos(2 pi i / (L - 1))) / blackman_window /
 * bartlett_window / kaiser_window (i0 of beta sqrt(1 - ((i - a) / a)^2), over i0(beta)) of
 * window_length values in a floating dtype; periodic: computed for window_length + 1 and the last
 * dropped. float32 / float64 follow torch's ops in order; half dtypes are computed in float32. */
CT_API ct_status ct_hann_window(ct_ctx *ctx, int64_t window_length, bool periodic, ct_dtype dtype,
                                ct_tensor **out);
CT_API ct_status ct_hamming_window(ct_ctx *ctx, int64_t window_length, bool periodic, double alpha,
                                   double beta, ct_dtype dtype, ct_tensor **out);
CT_API ct_status ct_blackman_window(ct_ctx *ctx, int64_t window_length, bool periodic,
                                    ct_dtype dtype, ct_tensor **out);
CT_API ct_status ct_bartlett_window(ct_ctx *ctx, int64_t window_length, bool periodic,
                                    ct_dtype dtype, ct_tensor **out);
CT_API ct_status ct_kaiser_window(ct_ctx *ctx, int64_t window_length, bool periodic, double beta,
                                  ct_dtype dtype, ct_tensor **out);
/* torch.histogram of a float32 / float64 tensor: bins equal bins over range (NULL: the data's
 * min and max, CT_ERR_INVALID_ARG when not finite; [0, 1] for no data; widened by 0.5 each side
 * when empty), the last bin closed, values outside
 * skipped; hist sums weight (NULL: ones; the input's shape), density divides by the total and the
 * bin width; bin_edges (NULL: not returned) are the bins + 1 edges. Reads the data on the host. */
CT_API ct_status ct_histogram(ct_ctx *ctx, const ct_tensor *a, int64_t bins, const double *range,
                              const ct_tensor *weight, bool density, ct_tensor **hist,
                              ct_tensor **bin_edges);
/* The same with explicit, increasing edges (1-d, the input's dtype; torch.histogram(bins=tensor)).
 */
CT_API ct_status ct_histogram_edges(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *bins,
                                    const ct_tensor *weight, bool density, ct_tensor **hist);
/* torch.histogramdd of points a (..., D) (float32 / float64, read on the host): bins (n_bins = 1
 * for every dim, or D counts) equal bins per dim over range (2 D values lo0, hi0, lo1, ...; NULL:
 * each dim's data min and max), the last bin of each dim closed, points outside or NaN skipped;
 * weight (a.shape[:-1]) or NULL; density as torch. hist (bins0, ..., binsD-1); bin_edges (NULL
 * or an array of D) receives each dim's edges. No gradient. */
CT_API ct_status ct_histogramdd(ct_ctx *ctx, const ct_tensor *a, int n_bins, const int64_t *bins,
                                const double *range, const ct_tensor *weight, bool density,
                                ct_tensor **hist, ct_tensor **bin_edges);
/* torch.histogramdd with explicit edges: n_edges = D increasing 1-d tensors of at least 2 edges
 * in a's dtype (bin_edges, NULL or D, receives copies). */
CT_API ct_status ct_histogramdd_edges(ct_ctx *ctx, const ct_tensor *a, int n_edges,
                                      const ct_tensor *const *bins, const ct_tensor *weight,
                                      bool density, ct_tensor **hist, ct_tensor **bin_edges);
/* torch.gradient: for each of n_dims dims (0: all, in order) the central differences
 * (f[i+1] - f[i-1]) / (2 h) inside and one-sided differences of edge_order 1 or 2 at the ends, h =
 * spacing[i] (NULL: 1); outs receives one tensor per dim (a 0-d input: none, torch's empty
 * tuple). Differentiable. */
CT_API ct_status ct_gradient(ct_ctx *ctx, const ct_tensor *a, int n_dims, const int *dims,
                             const double *spacing, int edge_order, ct_tensor **outs);

/* ---- indexing, scatter and small helpers (docs/everyday.md, "Indexing, scatter and small
 * helpers"); composites of the ops above, differentiable, printing torch's node names ---- */
/* torch.broadcast_shapes of n shapes (ndims[i] dims each): the broadcast shape into out_shape
 * (room for CT_MAX_DIMS) and out_ndim; CT_ERR_SHAPE when they do not broadcast. */
CT_API ct_status ct_broadcast_shapes(ct_ctx *ctx, int n, const int *ndims,
                                     const int64_t *const *shapes, int *out_ndim,
                                     int64_t *out_shape);
/* torch.broadcast_to: the expanded view (as ct_tensor_expand; -1 keeps a dim). */
CT_API ct_status ct_broadcast_to(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                                 ct_tensor **out);
/* torch.broadcast_tensors of n <= 64 tensors: outs[i] is ts[i] expanded to the common shape (ts[i]
 * itself, retained, when it already has it). */
CT_API ct_status ct_broadcast_tensors(ct_ctx *ctx, int n, const ct_tensor *const *ts,
                                      ct_tensor **outs);
/* torch.select: the view t[..., index, ...] at dim, without that dim (index may be negative;
 * outside [-size, size): CT_ERR_INDEX). */
CT_API ct_status ct_select(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t index,
                           ct_tensor **out);
/* torch.unbind: the size(dim) selects along dim; *n_out and max_out as in ct_split. */
CT_API ct_status ct_unbind(ct_ctx *ctx, const ct_tensor *t, int dim, int max_out, ct_tensor **outs,
                           int *n_out);
/* torch.t: the transpose of a 2-d tensor, a view of a 0-d or 1-d one; more dims: CT_ERR_SHAPE. */
CT_API ct_status ct_t(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch.adjoint: the last two dims swapped (a view for real dtypes; complex: a conjugated copy,
 * ctorch having no conj bit); >= 2 dims. */
CT_API ct_status ct_adjoint(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* torch.moveaxis, the alias of ct_movedim. */
CT_API ct_status ct_moveaxis(ct_ctx *ctx, const ct_tensor *t, int n, const int *src, const int *dst,
                             ct_tensor **out);
/* torch.hsplit (dim 1, dim 0 for 1-d), vsplit (dim 0, >= 2 dims), dsplit (dim 2, >= 3 dims) into
 * `sections` equal views (the size must divide, else CT_ERR_INVALID_ARG), or at n indices (n + 1
 * views, as ct_tensor_split_indices). */
CT_API ct_status ct_hsplit(ct_ctx *ctx, const ct_tensor *t, int sections, ct_tensor **outs);
CT_API ct_status ct_vsplit(ct_ctx *ctx, const ct_tensor *t, int sections, ct_tensor **outs);
CT_API ct_status ct_dsplit(ct_ctx *ctx, const ct_tensor *t, int sections, ct_tensor **outs);
CT_API ct_status ct_hsplit_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                                   ct_tensor **outs);
CT_API ct_status ct_vsplit_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                                   ct_tensor **outs);
CT_API ct_status ct_dsplit_indices(ct_ctx *ctx, const ct_tensor *t, int n, const int64_t *indices,
                                   ct_tensor **outs);
/* torch's aliases: row_stack (ct_vstack), concat and concatenate (ct_cat). */
CT_API ct_status ct_row_stack(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
CT_API ct_status ct_concat(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim,
                           ct_tensor **out);
CT_API ct_status ct_concatenate(ct_ctx *ctx, int n, const ct_tensor *const *ts, int dim,
                                ct_tensor **out);
/* Advanced indexing t[indices[0], ..., indices[n-1]] (torch's Tensor.__getitem__ with tensors):
 * a NULL entry is a full slice ':'; int64 / int32 entries index one dim each (negative wrap) and
 * broadcast together; a bool / uint8 mask indexes as many dims as it has (read on the host). The
 * broadcast index dims replace the indexed dims where they are adjacent, else lead (torch's rule).
 * An index out of range: CT_ERR_INDEX. A copy. */
CT_API ct_status ct_index(ct_ctx *ctx, const ct_tensor *t, int n, const ct_tensor *const *indices,
                          ct_tensor **out);
/* torch.index_put: t with t[indices] = values (values of t's dtype, broadcast to the indexed
 * shape), or += when accumulate (repeated indices add up; without accumulate the last in C order
 * wins). A new tensor; indices as in ct_index. */
CT_API ct_status ct_index_put(ct_ctx *ctx, const ct_tensor *t, int n,
                              const ct_tensor *const *indices, const ct_tensor *values,
                              bool accumulate, ct_tensor **out);
/* torch.take: the elements of flattened t at int64 index (any shape, negative wraps); the result
 * has index's shape. */
CT_API ct_status ct_take(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *index, ct_tensor **out);
/* torch.put: t (flattened) with the elements at int64 index set to (or, accumulate, increased by)
 * source's (the same number of elements, t's dtype); a new tensor of t's shape. */
CT_API ct_status ct_put(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *index,
                        const ct_tensor *source, bool accumulate, ct_tensor **out);
/* torch.select_scatter / slice_scatter / diagonal_scatter: a copy of t with the select (dim,
 * index), the slice dim[start:end:step] (Python slice rules, step > 0; end = INT64_MAX for "to the
 * end") or the diagonal (offset, dim1, dim2) replaced by src, which has exactly that part's shape
 * and t's dtype. */
CT_API ct_status ct_select_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src, int dim,
                                   int64_t index, ct_tensor **out);
CT_API ct_status ct_slice_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src, int dim,
                                  int64_t start, int64_t end, int64_t step, ct_tensor **out);
CT_API ct_status ct_diagonal_scatter(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *src,
                                     int64_t offset, int dim1, int dim2, ct_tensor **out);
/* torch.diagflat: the flattened t on diagonal `offset` of a square matrix. */
CT_API ct_status ct_diagflat(ct_ctx *ctx, const ct_tensor *t, int64_t offset, ct_tensor **out);
/* torch.combinations of a 1-d t: (M, r) rows of r elements in itertools order (combinations, or
 * combinations_with_replacement); r == 0 gives an empty 1-d tensor; more than 2^31 elements:
 * CT_ERR_OVERFLOW. */
CT_API ct_status ct_combinations(ct_ctx *ctx, const ct_tensor *t, int64_t r, bool with_replacement,
                                 ct_tensor **out);
/* torch.renorm: each slice along dim whose p-norm exceeds maxnorm scaled by maxnorm / (norm +
 * 1e-7) (floating t, p > 0, maxnorm >= 0; the norm in float32 for half dtypes, as torch). */
CT_API ct_status ct_renorm(ct_ctx *ctx, const ct_tensor *t, double p, int dim, double maxnorm,
                           ct_tensor **out);
/* torch.clamp_min / clamp_max: ct_clamp with one bound. */
CT_API ct_status ct_clamp_min(ct_ctx *ctx, const ct_tensor *a, double min, ct_tensor **out);
CT_API ct_status ct_clamp_max(ct_ctx *ctx, const ct_tensor *a, double max, ct_tensor **out);
/* torch.rsub: b - alpha * a (rounded as ct_sub_scaled); the _scalar form v - alpha * a with v a
 * wrapped Python number (the promotion of ct_sub_scalar). Bool operands: CT_ERR_DTYPE. */
CT_API ct_status ct_rsub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                         ct_tensor **out);
CT_API ct_status ct_rsub_scalar(ct_ctx *ctx, const ct_tensor *a, double v, double alpha,
                                ct_tensor **out);
/* torch.positive: a itself (retained); bool: CT_ERR_DTYPE, as torch. */
CT_API ct_status ct_positive(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.sgn: the sign (ct_sign) for the real dtypes, with torch's node name SgnBackward0. */
CT_API ct_status ct_sgn(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.ldexp: a * 2^b in the promoted float dtype; 2^b is taken in that dtype (torch takes it in
 * float32 for integer b, so ldexp(1.0 f64, 1000) is inf there and 2^1000 here). */
CT_API ct_status ct_ldexp(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.frexp of a floating tensor: mantissa (a's dtype, 0.5 <= |m| < 1) and int32 exponent with
 * a = m * 2^e; 0, inf and NaN give themselves and e = 0. The mantissa is differentiable (g / 2^e,
 * torch's FrexpBackward0). */
CT_API ct_status ct_frexp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **mantissa,
                          ct_tensor **exponent);
/* torch.isposinf / isneginf (bool; false for integers) and isreal (imag == 0; all true for real
 * dtypes). */
CT_API ct_status ct_isposinf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_isneginf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
CT_API ct_status ct_isreal(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* torch.result_type of two tensors (0-d tensors count less than dimensioned ones). */
CT_API ct_status ct_result_type(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_dtype *out);
/* torch.can_cast: false for floating -> integral / bool and for non-bool -> bool, else true. */
CT_API bool ct_can_cast(ct_dtype from, ct_dtype to);
/* torch.inner: sum over the last dims of a and b (equal sizes); a 0-d operand multiplies. */
CT_API ct_status ct_inner(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.vdot of two 1-d tensors of one dtype (ct_dot: real dtypes need no conjugation). */
CT_API ct_status ct_vdot(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.dist: the p-norm of a - b (broadcast; floating dtypes). Named ct_tensor_dist because
 * ct_dist is the process group of dist.h. */
CT_API ct_status ct_tensor_dist(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double p,
                                ct_tensor **out);
/* torch.chain_matmul (deprecated there): ct_linalg_multi_dot of n 2-d tensors; one gives a copy. */
CT_API ct_status ct_chain_matmul(ct_ctx *ctx, int n, const ct_tensor *const *ts, ct_tensor **out);
/* torch.addbmm: beta * input + alpha * sum_i b1[i] @ b2[i], accumulated batch by batch with addmm
 * as torch's CPU kernel (b1 (B, n, m), b2 (B, m, p), input broadcast to (n, p)). */
CT_API ct_status ct_addbmm(ct_ctx *ctx, const ct_tensor *input, const ct_tensor *b1,
                           const ct_tensor *b2, double beta, double alpha, ct_tensor **out);
/* torch.scatter_reduce: a copy of t with src[i] (its leading corner of index's shape) reduced
 * into out[..index[i]..] along dim by reduce "sum", "prod", "mean", "amax" or "amin" (NaN wins),
 * starting from t's value (include_self) or the identity; mean divides by the count (integers:
 * floor division, as torch). Differentiable (torch's formulas: prod with zeros, ties of amax /
 * amin share the gradient). */
CT_API ct_status ct_scatter_reduce(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                   const ct_tensor *src, const char *reduce, bool include_self,
                                   ct_tensor **out);
/* torch.index_reduce: the slices of source (t's shape with len(index) along dim) reduced into t's
 * slices at the 1-d int64 index by "prod", "mean", "amax" or "amin", as ct_scatter_reduce. */
CT_API ct_status ct_index_reduce(ct_ctx *ctx, const ct_tensor *t, int dim, const ct_tensor *index,
                                 const ct_tensor *source, const char *reduce, bool include_self,
                                 ct_tensor **out);
/* torch.nn.functional.pdist: the p-norm distances between the rows of x (N, M), pairs i < j in
 * row-major order (N (N - 1) / 2 values); floating x, p >= 0. */
CT_API ct_status ct_pdist(ct_ctx *ctx, const ct_tensor *x, double p, ct_tensor **out);

/* ---- the *_copy ops (torch.permute_copy ...): the view op's values in a new contiguous tensor
 * that shares no memory with t (writes to either leave the other alone); the view op's arguments
 * and errors; differentiable as the view (grad_fn PermuteBackward0_copy ..., torch's names) ---- */
CT_API ct_status ct_alias_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_as_strided_copy(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *size,
                                    const int64_t *stride, int64_t storage_offset, ct_tensor **out);
/* detach_copy: a copy without history (requires_grad false). */
CT_API ct_status ct_detach_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_diagonal_copy(ct_ctx *ctx, const ct_tensor *t, int64_t offset, int dim1,
                                  int dim2, ct_tensor **out);
CT_API ct_status ct_expand_copy(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                                ct_tensor **out);
/* narrow_copy: differentiable here (torch 1.13's backward is "not implemented"). */
CT_API ct_status ct_narrow_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start,
                                int64_t length, ct_tensor **out);
CT_API ct_status ct_permute_copy(ct_ctx *ctx, const ct_tensor *t, const int *perm, ct_tensor **out);
CT_API ct_status ct_select_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t index,
                                ct_tensor **out);
CT_API ct_status ct_slice_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t start, int64_t end,
                               int64_t step, ct_tensor **out);
/* squeeze_copy: dim, or CT_ALL_DIMS for every size-1 dim (as ct_tensor_squeeze). */
CT_API ct_status ct_squeeze_copy(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out);
CT_API ct_status ct_t_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_transpose_copy(ct_ctx *ctx, const ct_tensor *t, int dim0, int dim1,
                                   ct_tensor **out);
CT_API ct_status ct_unfold_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int64_t size,
                                int64_t step, ct_tensor **out);
CT_API ct_status ct_unsqueeze_copy(ct_ctx *ctx, const ct_tensor *t, int dim, ct_tensor **out);
CT_API ct_status ct_view_copy(ct_ctx *ctx, const ct_tensor *t, int ndim, const int64_t *shape,
                              ct_tensor **out);
CT_API ct_status ct_view_as_real_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
CT_API ct_status ct_view_as_complex_copy(ct_ctx *ctx, const ct_tensor *t, ct_tensor **out);
/* the multi-output copies: outs as ct_split / ct_split_sizes / ct_unbind fill them. */
CT_API ct_status ct_split_copy(ct_ctx *ctx, const ct_tensor *t, int64_t split_size, int dim,
                               int max_out, ct_tensor **outs, int *n_out);
CT_API ct_status ct_split_with_sizes_copy(ct_ctx *ctx, const ct_tensor *t, int n,
                                          const int64_t *sizes, int dim, ct_tensor **outs);
CT_API ct_status ct_unbind_copy(ct_ctx *ctx, const ct_tensor *t, int dim, int max_out,
                                ct_tensor **outs, int *n_out);

/* ---- torch names not covered above ---- */
/* torch.mm: 2-d a (n, k) times 2-d b (k, m) of one dtype (torch: "self must be a matrix",
 * "expected scalar type Float but found Double"); MmBackward0. */
CT_API ct_status ct_mm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.scalar_tensor: a 0-d tensor holding v in dtype (float32 as torch's default). */
CT_API ct_status ct_scalar_tensor(ct_ctx *ctx, double v, ct_dtype dtype, ct_tensor **out);
/* torch.empty_strided: a tensor of the given sizes and (non-negative) strides over fresh memory
 * (zero-filled here), so later writes see torch's layout. */
CT_API ct_status ct_tensor_empty_strided(ct_ctx *ctx, ct_dtype dtype, int ndim, const int64_t *size,
                                         const int64_t *stride, ct_tensor **out);
/* torch.range (deprecated in torch, kept for old code): start, start + step, ... up to and
 * including end: floor((end - start) / step) + 1 values, computed in double. */
CT_API ct_status ct_tensor_range(ct_ctx *ctx, ct_dtype dtype, double start, double end, double step,
                                 ct_tensor **out);
/* torch.igamma / torch.igammac: the regularized incomplete gamma functions (as
 * ct_special_gammainc / ct_special_gammaincc). */
CT_API ct_status ct_igamma(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *x, ct_tensor **out);
CT_API ct_status ct_igammac(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *x, ct_tensor **out);
/* torch.constant_pad_nd: ct_pad with CT_PAD_CONSTANT (negative pads crop). */
CT_API ct_status ct_constant_pad_nd(ct_ctx *ctx, const ct_tensor *x, int n_pad, const int64_t *pad,
                                    double value, ct_tensor **out);

/* ---- quantization-aware training (torch.fake_quantize_*) ---- */
/* torch.fake_quantize_per_tensor_affine: (clamp(round(x / scale) + zero_point, quant_min,
 * quant_max) - zero_point) * scale with torch's arithmetic (x times the float32 1 / scale, rounding
 * half to even, the last product in float64 rounded once); floating x, quant_min <= zero_point <=
 * quant_max. The
 * gradient passes where the value was not clamped, 0 elsewhere (torch's straight-through mask). */
CT_API ct_status ct_fake_quantize_per_tensor_affine(ct_ctx *ctx, const ct_tensor *x, double scale,
                                                    int64_t zero_point, int64_t quant_min,
                                                    int64_t quant_max, ct_tensor **out);
/* Per channel along axis (0 <= axis < ndim, as torch): scale float32 [C]; zero_point int32 [C]
 * (within the range; rounding as above) or float32 / float16 [C] (torch's float form: round(x /
 * scale + zero_point)). */
CT_API ct_status ct_fake_quantize_per_channel_affine(ct_ctx *ctx, const ct_tensor *x,
                                                     const ct_tensor *scale,
                                                     const ct_tensor *zero_point, int axis,
                                                     int64_t quant_min, int64_t quant_max,
                                                     ct_tensor **out);
/* torch._fake_quantize_learnable_per_tensor_affine (LSQ, torch.ao's _LearnableFakeQuantize):
 * fake_quantize_per_tensor_affine with scale and zero_point as float32 tensors of one element
 * (zero_point rounded half to even and clamped), differentiable in x (straight through) and in
 * scale and zero_point (torch's formulas, times grad_factor: inside the range d/dscale = (y - x) /
 * scale, outside qmin - z or qmax - z, d/dzero_point = -scale outside, 0 inside; the backward takes
 * z as torch's CPU kernel: trunc(zero_point + 0.5) clamped, and xq = round(x / scale + z), so ties
 * may fall differently from the forward's). float32 x; quant_min <= 0 <= quant_max. */
CT_API ct_status ct_fake_quantize_learnable_per_tensor_affine(ct_ctx *ctx, const ct_tensor *x,
                                                              const ct_tensor *scale,
                                                              const ct_tensor *zero_point,
                                                              int64_t quant_min, int64_t quant_max,
                                                              double grad_factor, ct_tensor **out);
/* torch._fake_quantize_learnable_per_channel_affine: scale and zero_point float32 [C] along axis
 * (zero_point rounded half to even and clamped, forward and backward); the gradients as above,
 * summed per channel. */
CT_API ct_status ct_fake_quantize_learnable_per_channel_affine(
    ct_ctx *ctx, const ct_tensor *x, const ct_tensor *scale, const ct_tensor *zero_point, int axis,
    int64_t quant_min, int64_t quant_max, double grad_factor, ct_tensor **out);

#ifdef __cplusplus
}
#endif
#endif

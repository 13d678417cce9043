/* ctorch ops: eager tensor operations with PyTorch semantics (broadcasting, type promotion,
 * strided inputs). Each op validates, computes the output shape and dtype, allocates the output on
 * the inputs' device and submits the work to the device's current stream.
 * Ownership: *out receives a new tensor reference (release it). Inputs are not consumed.
 * Errors: CT_ERR_INVALID_ARG (NULL ctx, input or out; a released tensor; a tensor of another
 * context), CT_ERR_SHAPE (shapes do not broadcast / mismatch),
 * CT_ERR_DTYPE (unsupported dtype), CT_ERR_OOM; ct_ctx_last_error names the values.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_OPS_H
#define CTORCH_OPS_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- binary elementwise (broadcasting, promotion as torch.result_type) ---- */
CT_API ct_status ct_add(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* a + alpha * b (as torch.add(a, b, alpha=alpha)). */
CT_API ct_status ct_add_scaled(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double alpha,
                               ct_tensor **out);
CT_API ct_status ct_sub(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_mul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* True division: integer inputs give float32 (as torch.div). */
CT_API ct_status ct_div(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);

/* ---- comparisons: bool output ---- */
CT_API ct_status ct_eq(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ne(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_lt(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_le(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_gt(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
CT_API ct_status ct_ge(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);

/* ---- unary elementwise (float ops promote integer inputs to float32) ---- */
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
/* a ** exponent (scalar exponent; integer inputs with a non-integral exponent give float32). */
CT_API ct_status ct_pow(ct_ctx *ctx, const ct_tensor *a, double exponent, ct_tensor **out);
/* min(max(a, lo), hi); pass NULL for a missing bound (at least one must be given). */
CT_API ct_status ct_clamp(ct_ctx *ctx, const ct_tensor *a, const double *lo, const double *hi,
                          ct_tensor **out);
/* cond ? a : b, cond bool, all three broadcast together. */
CT_API ct_status ct_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a,
                          const ct_tensor *b, ct_tensor **out);
/* self + value * t1 * t2. */
CT_API ct_status ct_addcmul(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1,
                            const ct_tensor *t2, double value, ct_tensor **out);
/* fma(value, t1 / t2, self): the quotient is rounded first, then one fused multiply-add;
 * value == 1 gives exactly self + t1 / t2. Floating dtypes only. */
CT_API ct_status ct_addcdiv(ct_ctx *ctx, const ct_tensor *self, const ct_tensor *t1,
                            const ct_tensor *t2, double value, ct_tensor **out);
/* Convert to dtype (a new tensor; as Tensor.to(dtype)). */
CT_API ct_status ct_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dtype, ct_tensor **out);

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

/* ---- normalisation and activations along a dim ---- */
CT_API ct_status ct_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
CT_API ct_status ct_log_softmax(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* Normalise over the last `n_norm` dims; weight and bias (shape = those dims) may be NULL. */
CT_API ct_status ct_layer_norm(ct_ctx *ctx, const ct_tensor *a, int n_norm, const ct_tensor *weight,
                               const ct_tensor *bias, double eps, ct_tensor **out);

/* ---- linear algebra ---- */
/* torch.matmul: 1-d/2-d/batched with batch broadcasting. f32/f64 through BLAS; f16/bf16 in f32. */
CT_API ct_status ct_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* torch.bmm: a (B,M,K) @ b (B,K,N), no broadcasting. */
CT_API ct_status ct_bmm(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);

/* ---- indexing ---- */
/* out[..., :] = weight[indices[...], :]; indices int32/int64 in [0, V); CT_ERR_INDEX otherwise. */
CT_API ct_status ct_embedding(ct_ctx *ctx, const ct_tensor *weight, const ct_tensor *indices,
                              ct_tensor **out);

#ifdef __cplusplus
}
#endif
#endif

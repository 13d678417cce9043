/* Complex tensors inside the ops layer (ops/complex.c): promotion, casts and the CT_OP_COMPLEX
 * front ends the real ops hand complex operands to. */
#ifndef CTORCH_OPS_COMPLEX_IMPL_H
#define CTORCH_OPS_COMPLEX_IMPL_H

#include "ctorch/backend.h"
#include "ctorch/tensor.h"

/* torch's dtype category: bool 0, integers 1, floating 2, complex 3. */
int ct__dtype_category(ct_dtype dt);
/* torch.promote_types with complex dtypes (real pairs as ct_dtype_promote). */
ct_status ct__cx_promote(ct_dtype a, ct_dtype b, ct_dtype *out);
/* torch.result_type over n tensors, complex included (a float tensor with a 0-d complex one gives
 * the complex dtype of the float's precision). */
ct_status ct__cx_result_type(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                             ct_dtype *out);
/* a converted to dtype dt where a or dt is complex (complex -> real keeps the real part). */
ct_status ct__cx_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dt, ct_tensor **out);
/* add / sub (alpha) / mul / div / eq / ne with a complex operand; other kinds are refused. */
ct_status ct__cx_binary(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                        const ct_tensor *b, double alpha, ct_tensor **out);
/* CT_CX_* function fn of complex a (abs / angle give its real dtype, isnan / isfinite bool). */
ct_status ct__cx_unary(ct_ctx *ctx, const char *name, int fn, const ct_tensor *a, ct_tensor **out);
/* The real (part 0) or imaginary (part 1) view of complex a, recorded for autograd (RealBackward /
 * ImagBackward) when a requires grad. */
ct_status ct__cx_part_ag(ct_ctx *ctx, const ct_tensor *a, int part, ct_tensor **out);
/* sum / mean of complex a over dims (n_dims 0: all), through its real view. */
ct_status ct__cx_sum_mean(ct_ctx *ctx, const char *name, bool mean, const ct_tensor *a, int n_dims,
                          const int *dims, bool keepdim, ct_tensor **out);
/* matmul of two complex tensors of one dtype: four real products. */
ct_status ct__cx_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out);
/* flip (0: n dims), roll (1: n shifts in ints, dims or NULL), repeat (2: n repeats), index_select
 * (3: dims[0], ts[0] the index), cat (4: n tensors ts, dims[0]) and pad (5: n pad values in ints,
 * dims[0] the ct_pad_mode) of complex tensors, through view_as_real (differentiable). */
ct_status ct__cx_shape_op(ct_ctx *ctx, int kind, const ct_tensor *a, int n, const int *dims,
                          const int64_t *ints, const ct_tensor *const *ts, ct_tensor **out);
/* pow(z, p) as torch (z * z for 2, sqrt for 0.5, ...; exp(p log z) otherwise) and isclose of
 * complex tensors (torch's formula), both composites of recorded ops. */
ct_status ct__cx_pow(ct_ctx *ctx, const ct_tensor *a, double p, ct_tensor **out);
ct_status ct__cx_isclose(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rtol,
                         double atol, bool equal_nan, ct_tensor **out);
/* where (a or b complex), masked_fill (value + 0i), tril / triu and cumsum of complex tensors,
 * through the real pairs (recorded). */
ct_status ct__cx_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b,
                       ct_tensor **out);
ct_status ct__cx_masked_fill(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask, double value,
                             ct_tensor **out);
ct_status ct__cx_tri(ct_ctx *ctx, const ct_tensor *t, int64_t diagonal, bool upper,
                     ct_tensor **out);
ct_status ct__cx_cumsum(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* complex prod over one dim (CT_ALL_DIMS: every dim) and cumprod: products of halves, log2(n)
 * complex multiplications deep (differentiable through them) */
ct_status ct__cx_prod(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out);
ct_status ct__cx_cumprod(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out);
/* kind 0 gather (dim CT_ALL_DIMS: of the flattened values), 1 scatter, 2 scatter_add, 3
 * index_add (alpha), 4 index_copy of a complex t (src of t's dtype) on the real pairs */
ct_status ct__cx_index_op(ct_ctx *ctx, int kind, const ct_tensor *t, int dim,
                          const ct_tensor *index, const ct_tensor *src, double alpha,
                          ct_tensor **out);

#endif

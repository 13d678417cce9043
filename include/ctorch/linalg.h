/* ctorch linear algebra: batched symmetric eigendecomposition (torch.linalg.eigh / eigvalsh /
 * eigh_ex semantics).
 *
 * Input a has shape (..., n, n), any number of batch dims and any strides, dtype float32 or
 * float64 (float16/bfloat16 are computed in float32 and returned in the input dtype). Only the
 * `uplo` triangle ('L' or 'U', either case) is read. Eigenvalues come out ascending with shape
 * (..., n); eigenvectors are the columns of the (..., n, n) result, each scaled so that its first
 * component of largest magnitude is positive (deterministic output). Small n runs a lane-batched
 * Jacobi solver, large n LAPACK syevd; see docs/linalg.md.
 * Errors: fewer than 2 dims or non-square -> CT_ERR_SHAPE; non-floating dtype -> CT_ERR_DTYPE;
 * non-CPU tensor -> CT_ERR_UNSUPPORTED; bad uplo or NULL pointer -> CT_ERR_INVALID_ARG. A matrix
 * holding NaN/Inf gets NaN eigenvalues and eigenvectors (info != 0 in eigh_ex); the other
 * matrices of the batch are unaffected and the call still returns CT_OK. float16 input whose
 * eigenvalues exceed float16's range (|x| > 65504): eigh_ex sets info = CT_EIGH_INFO_OVERFLOW
 * for that matrix (the value is inf); eigh / eigvalsh fail with CT_ERR_OVERFLOW. n >= 32768
 * with eigenvectors needs a LAPACK workspace beyond lapack_int: CT_ERR_UNSUPPORTED. A LAPACK
 * argument error is CT_ERR_DEVICE. A tensor of another context, or NULL or released
 * -> CT_ERR_INVALID_ARG.
 * Ownership: every returned tensor is a new reference owned by the caller (ct_tensor_release);
 * on error no output is set and nothing leaks.
 * Thread-safety: as the owning ct_ctx (not thread-safe); the work itself runs on the context's
 * threads. */
#ifndef CTORCH_LINALG_H
#define CTORCH_LINALG_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-matrix status codes in eigh_ex's info tensor. */
#define CT_EIGH_INFO_OK 0
#define CT_EIGH_INFO_NONFINITE 1 /* input held NaN/Inf: outputs of that matrix are NaN */
#define CT_EIGH_INFO_NOCONV 2    /* solver did not converge: outputs are the last iterate */
#define CT_EIGH_INFO_OVERFLOW 3  /* float16 input: an eigenvalue overflows float16 (it is inf) */

/* Eigenvalues (..., n) ascending and eigenvectors (..., n, n) as columns of a symmetric a. */
CT_API ct_status ct_linalg_eigh(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues,
                                ct_tensor **eigenvectors);
/* Eigenvalues only (..., n) ascending; cheaper than ct_linalg_eigh. */
CT_API ct_status ct_linalg_eigvalsh(ct_ctx *ctx, const ct_tensor *a, char uplo,
                                    ct_tensor **eigenvalues);
/* As ct_linalg_eigh plus info (...) int32 per matrix (0 = converged, CT_EIGH_INFO_*).
 * eigenvectors may be NULL to compute eigenvalues only. */
CT_API ct_status ct_linalg_eigh_ex(ct_ctx *ctx, const ct_tensor *a, char uplo,
                                   ct_tensor **eigenvalues, ct_tensor **eigenvectors,
                                   ct_tensor **info);

/* ---- dense factorisations (torch.linalg names): batched over any leading dims, f32/f64
 * through LAPACK (f16/bf16 computed in f32 and returned in the input dtype), CPU tensors. The
 * plain calls fail with CT_ERR_INVALID_ARG naming the batch index of a singular or
 * non-positive-definite matrix (as torch raises); under graph capture that check is skipped
 * (it reads the info back) and cholesky_ex reports it in `info` instead. ---- */
/* Cholesky factor L (A = L L^T), or U (A = U^T U) when upper; only that triangle of A is read. */
CT_API ct_status ct_linalg_cholesky(ct_ctx *ctx, const ct_tensor *a, bool upper, ct_tensor **L);
/* As ct_linalg_cholesky with info (...) int32 per matrix (0, or the order of the first
 * non-positive leading minor) instead of an error. */
CT_API ct_status ct_linalg_cholesky_ex(ct_ctx *ctx, const ct_tensor *a, bool upper, ct_tensor **L,
                                       ct_tensor **info);
/* Inverse (LU with partial pivoting, getrf + getri). */
CT_API ct_status ct_linalg_inv(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* X with A X = B (gesv), as torch.linalg.solve: A and B of one dtype; B a vector when it is 1-d
 * or has A's shape without the last dim, else (..., n, k); batch dims broadcast. */
CT_API ct_status ct_linalg_solve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                 ct_tensor **out);
/* Determinant (from the LU factors; 0 for a singular matrix). */
CT_API ct_status ct_linalg_det(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* sign (-1, 0 or 1) and log|det|, -inf for a singular matrix (torch.linalg.slogdet). */
CT_API ct_status ct_linalg_slogdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **sign,
                                   ct_tensor **logabsdet);
/* log det(a) (torch.logdet): slogdet's log|det|, NaN for a negative determinant, -inf singular. */
CT_API ct_status ct_logdet(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* a^n for a batch of square matrices (torch.linalg.matrix_power, torch's binary powering): n == 0
 * the identity, n < 0 the inverse's power (floating a only). */
CT_API ct_status ct_linalg_matrix_power(ct_ctx *ctx, const ct_tensor *a, int64_t n,
                                        ct_tensor **out);
/* torch.linalg.vector_norm (the same as ct_norm): ord-norm over dims (n_dims 0: all). */
CT_API ct_status ct_linalg_vector_norm(ct_ctx *ctx, const ct_tensor *a, double ord, int n_dims,
                                       const int *dims, bool keepdim, ct_tensor **out);
/* torch.linalg.matrix_norm over dims (dim0, dim1): ord "fro", "nuc", "inf", "-inf", "1", "-1",
 * "2" or "-2" (2 / nuc through the singular values). */
CT_API ct_status ct_linalg_matrix_norm(ct_ctx *ctx, const ct_tensor *a, const char *ord, int dim0,
                                       int dim1, bool keepdim, ct_tensor **out);
/* Moore-Penrose pseudo-inverse through the SVD (torch.linalg.pinv): singular values at most
 * max(atol, rtol s_max) dropped; NaN atol / rtol mean torch's None (both None: rtol = eps
 * max(m, n)). float32 / float64. */
CT_API ct_status ct_linalg_pinv(ct_ctx *ctx, const ct_tensor *a, double atol, double rtol,
                                ct_tensor **out);
/* torch.linalg.multi_dot of n >= 2 matrices (the first may be 1-d: a row; the last: a column),
 * multiplied in torch's order (the cheapest chain). */
CT_API ct_status ct_linalg_multi_dot(ct_ctx *ctx, int n, const ct_tensor *const *ts,
                                     ct_tensor **out);
/* Reduced QR of (..., m, n): Q (..., m, r) with orthonormal columns, R (..., r, n) upper
 * triangular, r = min(m, n) (torch.linalg.qr mode='reduced'; Householder, geqrf + orgqr). */
CT_API ct_status ct_linalg_qr(ct_ctx *ctx, const ct_tensor *a, ct_tensor **Q, ct_tensor **R);
/* Reduced SVD (full_matrices=False): U (..., m, r), S (..., r) descending, Vh (..., r, n)
 * (gesdd); U and Vh may be NULL to skip them (they are still computed). */
CT_API ct_status ct_linalg_svd(ct_ctx *ctx, const ct_tensor *a, ct_tensor **U, ct_tensor **S,
                               ct_tensor **Vh);

#ifdef __cplusplus
}
#endif
#endif

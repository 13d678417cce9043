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
/* sign (-1, 0 or 1; complex: det / |det|) and log|det|, -inf for a singular matrix
 * (torch.linalg.slogdet); both outputs differentiable (one node, as torch). */
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
/* torch.svd_lowrank: a randomized rank-q SVD of a (..., m, n) float32 / float64 (Halko et al.'s
 * algorithm 5.1 as torch: niter power iterations, niter < 0: 2; q <= 0: min(6, m, n), at most
 * min(m, n)); U (..., m, k), S (..., k), V (..., n, k), k = min(q, ...); seed draws the test
 * matrix (ctorch's generator, so the factors differ from torch's by rounding unless exact). */
CT_API ct_status ct_svd_lowrank(ct_ctx *ctx, const ct_tensor *a, int64_t q, int niter,
                                uint64_t seed, ct_tensor **U, ct_tensor **S, ct_tensor **V);
/* torch.pca_lowrank: svd_lowrank of a with its column means subtracted (center false: of a);
 * q, niter and seed as ct_svd_lowrank. */
CT_API ct_status ct_pca_lowrank(ct_ctx *ctx, const ct_tensor *a, int64_t q, bool center, int niter,
                                uint64_t seed, ct_tensor **U, ct_tensor **S, ct_tensor **V);
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
/* torch.linalg.qr with its mode: "reduced" (NULL), "complete" (Q (..., m, m), R (..., m, n)) or "r"
 * (Q an empty (0,) tensor); complete with m > n and "r" refuse backward, as torch. */
CT_API ct_status ct_linalg_qr_mode(ct_ctx *ctx, const ct_tensor *a, const char *mode, ct_tensor **Q,
                                   ct_tensor **R);
/* torch.linalg.svd(full_matrices): full U (..., m, m) and Vh (..., n, n) when true; the gradient
 * reaches A through their first min(m, n) columns / rows only, as torch. */
CT_API ct_status ct_linalg_svd_full(ct_ctx *ctx, const ct_tensor *a, bool full_matrices,
                                    ct_tensor **U, ct_tensor **S, ct_tensor **Vh);

/* ---- more linear algebra (torch 1.13's names; float32 / float64 and complex64 / complex128, as
 * torch's CPU kernels; batched over leading dims; see docs/everyday.md "More linear algebra" and
 * "Complex tensors") ---- */
/* X with A X = B (left) or X A = B, A read as its upper / lower triangle (unit diagonal when
 * unitriangular); batch dims broadcast; the result has A's dtype (B converted, as torch; a complex B
 * with a real A: A's complex dtype); no singularity check, as torch. */
CT_API ct_status ct_linalg_solve_triangular(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                            bool upper, bool left, bool unitriangular,
                                            ct_tensor **out);
/* Partial-pivoting LU of (..., m, n): LU (..., m, n) (L's strict lower part, U's upper part) and
 * pivots (..., min(m, n)) int32, 1-based (getrf). A zero U[i, i] is an error naming it. */
CT_API ct_status ct_linalg_lu_factor(ct_ctx *ctx, const ct_tensor *a, ct_tensor **LU,
                                     ct_tensor **pivots);
/* As ct_linalg_lu_factor with info (...) int32 (0, or i where U[i, i] is zero) instead of the
 * error. */
CT_API ct_status ct_linalg_lu_factor_ex(ct_ctx *ctx, const ct_tensor *a, ct_tensor **LU,
                                        ct_tensor **pivots, ct_tensor **info);
/* A = P L U: P (..., m, m), L (..., m, k) unit lower, U (..., k, n), k = min(m, n). */
CT_API ct_status ct_linalg_lu(ct_ctx *ctx, const ct_tensor *a, ct_tensor **P, ct_tensor **L,
                              ct_tensor **U);
/* X with A X = B from lu_factor's LU and pivots: left false solves X A = B, adjoint uses A^T; B
 * (..., n, k) (left) or (..., k, n), of LU's dtype; batch dims of LU and B broadcast. */
CT_API ct_status ct_linalg_lu_solve(ct_ctx *ctx, const ct_tensor *LU, const ct_tensor *pivots,
                                    const ct_tensor *b, bool left, bool adjoint, ct_tensor **out);
/* torch.lu_unpack: P, L, U from lu_factor's outputs; a part not unpacked is an empty (0,)
 * tensor. pivots must be (..., min(m, n)) int32 with LU's batch dims. */
CT_API ct_status ct_lu_unpack(ct_ctx *ctx, const ct_tensor *LU_data, const ct_tensor *LU_pivots,
                              bool unpack_data, bool unpack_pivots, ct_tensor **P, ct_tensor **L,
                              ct_tensor **U);
/* torch.cholesky_solve: X = A^-1 B for A = L L^T (U^T U when upper) given its Cholesky factor;
 * B (..., n, k); batch dims broadcast. */
CT_API ct_status ct_cholesky_solve(ct_ctx *ctx, const ct_tensor *b, const ct_tensor *L, bool upper,
                                   ct_tensor **out);
/* torch.cholesky_inverse: A^-1 for A = L L^T (U^T U when upper); a zero on L's diagonal is an
 * error, as torch. */
CT_API ct_status ct_cholesky_inverse(ct_ctx *ctx, const ct_tensor *L, bool upper, ct_tensor **out);
/* Least squares (torch.linalg.lstsq): driver "gels", "gelsy" (NULL), "gelsd", "gelss"; rcond NaN
 * = None; residuals, rank (int64), singular_values as torch's (NULL: not wanted). */
CT_API ct_status ct_linalg_lstsq(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rcond,
                                 const char *driver, ct_tensor **solution, ct_tensor **residuals,
                                 ct_tensor **rank, ct_tensor **singular_values);
/* Singular values (..., min(m, n)), descending (gesdd without vectors). */
CT_API ct_status ct_linalg_svdvals(ct_ctx *ctx, const ct_tensor *a, ct_tensor **S);
/* torch.linalg.eig: eigenvalues (..., n) and eigenvectors (..., n, n) (columns, unit norm, as
 * LAPACK geev gives them) of real square a (float32 -> complex64, float64 -> complex128); a
 * matrix where the QR algorithm does not converge: CT_ERR_INVALID_ARG. Differentiable (torch's
 * formula; the loss must not depend on the eigenvectors' phases). */
CT_API ct_status ct_linalg_eig(ct_ctx *ctx, const ct_tensor *a, ct_tensor **eigenvalues,
                               ct_tensor **eigenvectors);
/* torch.linalg.eigvals: the eigenvalues of ct_linalg_eig only. */
CT_API ct_status ct_linalg_eigvals(ct_ctx *ctx, const ct_tensor *a, ct_tensor **eigenvalues);
/* Number of singular values (eigenvalue magnitudes when hermitian) above max(atol, rtol *
 * largest), int64 (...); NaN atol / rtol mean torch's None. */
CT_API ct_status ct_linalg_matrix_rank(ct_ctx *ctx, const ct_tensor *a, double atol, double rtol,
                                       bool hermitian, ct_tensor **out);
/* Matrix exponential of (..., n, n): scaling and squaring of a degree-18 Taylor polynomial. */
CT_API ct_status ct_linalg_matrix_exp(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out);
/* Inverse with info (...) int32 (0, or i where U[i, i] of the LU is zero; that matrix's inverse
 * holds inf / NaN, as torch) instead of an error. */
CT_API ct_status ct_linalg_inv_ex(ct_ctx *ctx, const ct_tensor *a, ct_tensor **inverse,
                                  ct_tensor **info);
/* As ct_linalg_solve with info (...) int32 instead of the singular-matrix error. */
CT_API ct_status ct_linalg_solve_ex(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                    ct_tensor **out, ct_tensor **info);
/* torch.linalg.ldl_factor: LD (..., n, n) (L's strict lower part and the blocks of D, from the
 * lower triangle of symmetric A; sytrf) and pivots (..., n) int32 in LAPACK's form (1-based,
 * negative pairs mark 2 x 2 blocks). Complex A: hermitian reads it as Hermitian (hetrf), else as
 * complex symmetric (sytrf); no effect on real A. A zero D[i, i] is an error; no gradient
 * (backward refuses, as torch). */
CT_API ct_status ct_linalg_ldl_factor(ct_ctx *ctx, const ct_tensor *a, bool hermitian,
                                      ct_tensor **LD, ct_tensor **pivots);
/* As ct_linalg_ldl_factor with info (...) int32 (0, or i where D[i, i] is exactly zero) instead of
 * the error. */
CT_API ct_status ct_linalg_ldl_factor_ex(ct_ctx *ctx, const ct_tensor *a, bool hermitian,
                                         ct_tensor **LD, ct_tensor **pivots, ct_tensor **info);
/* torch.linalg.ldl_solve: X with A X = B from ldl_factor's LD and pivots (int32 or int64, shaped
 * LD.shape[:-1]); B (..., n, k) of LD's dtype, batch dims broadcast (sytrs, hetrs when hermitian;
 * no gradient). */
CT_API ct_status ct_linalg_ldl_solve(ct_ctx *ctx, const ct_tensor *LD, const ct_tensor *pivots,
                                     const ct_tensor *B, bool hermitian, ct_tensor **out);
/* sum(conj(x) * y) along dim, x and y broadcast (torch.linalg.vecdot; one floating or complex
 * dtype). */
CT_API ct_status ct_linalg_vecdot(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, int dim,
                                  ct_tensor **out);
/* torch.linalg.tensorinv: the inverse of a seen as a prod(shape[:ind]) square matrix, shaped
 * shape[ind:] + shape[:ind]; ind > 0. */
CT_API ct_status ct_linalg_tensorinv(ct_ctx *ctx, const ct_tensor *a, int ind, ct_tensor **out);
/* torch.linalg.tensorsolve: X of shape a.shape[b.ndim:] with tensordot(a, X, X.ndim) = b; dims
 * (n_dims of them, may be NULL) of a are moved to the end first. */
CT_API ct_status ct_linalg_tensorsolve(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                       int n_dims, const int *dims, ct_tensor **out);
/* First n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H with v_i from column i of a
 * (..., m, n) below the diagonal (torch.linalg.householder_product); tau (..., k), k <= n <= m. */
CT_API ct_status ct_linalg_householder_product(ct_ctx *ctx, const ct_tensor *a,
                                               const ct_tensor *tau, ct_tensor **out);
/* torch.geqrf: LAPACK's compact QR of (..., m, n): *qr holds R on and above the diagonal and the
 * Householder vectors below it, *tau (..., min(m, n)) their scales (householder_product of the two
 * is Q). float32 / float64 / complex; no derivative (backward refuses, as torch). */
CT_API ct_status ct_geqrf(ct_ctx *ctx, const ct_tensor *a, ct_tensor **qr, ct_tensor **tau);
/* torch.ormqr: op(Q) other (left) or other op(Q), Q the complete m x m product of the reflectors
 * of geqrf's (a, tau) (a (..., m, k), tau (..., <= min(m, k))), op the conjugate transpose when
 * transpose; differentiable (through householder_product). */
CT_API ct_status ct_ormqr(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *tau,
                          const ct_tensor *other, bool left, bool transpose, ct_tensor **out);
/* torch.linalg.norm: ord NULL (None), "fro", "nuc" or a number ("2", "-1", "inf", "0.5"); with
 * n_dims 1 a vector norm, 2 a matrix norm, 0: ord None the flattened 2-norm, else by a's 1 / 2
 * dims. */
CT_API ct_status ct_linalg_norm(ct_ctx *ctx, const ct_tensor *a, const char *ord, int n_dims,
                                const int *dims, bool keepdim, ct_tensor **out);
/* torch.linalg.vander: (..., n) -> (..., n, N) with columns x^0 ... x^(N-1) (N < 0: n; N > 1);
 * floating and integer x (torch's cumprod composite, so integers give int64). */
CT_API ct_status ct_linalg_vander(ct_ctx *ctx, const ct_tensor *x, int64_t N, ct_tensor **out);
/* torch.linalg.cross / diagonal / matmul: ct_cross, ct_diagonal (defaults offset 0, dims -2, -1)
 * and ct_matmul under torch.linalg's names. */
CT_API ct_status ct_linalg_cross(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, int dim,
                                 ct_tensor **out);
CT_API ct_status ct_linalg_diagonal(ct_ctx *ctx, const ct_tensor *a, int64_t offset, int dim1,
                                    int dim2, ct_tensor **out);
CT_API ct_status ct_linalg_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b,
                                  ct_tensor **out);
/* Condition number (torch.linalg.cond): ord NULL / "2" / "-2" from the singular values (any m x n),
 * "fro", "nuc", "inf", "-inf", "1", "-1" as norm(A) norm(A^-1) of square A (inf when singular). */
CT_API ct_status ct_linalg_cond(ct_ctx *ctx, const ct_tensor *a, const char *ord, ct_tensor **out);

#ifdef __cplusplus
}
#endif
#endif

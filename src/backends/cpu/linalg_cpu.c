/* CPU backend, CT_OP_LINALG: dense factorisations through LAPACKE (OpenBLAS), one matrix of the
 * batch at a time, row-major. ints[0] selects the routine; operands (all contiguous, f32 or f64,
 * info int32) by routine:
 *   CT_LINALG_CHOLESKY: out0 L (B,n,n), out1 info (B); in0 A (B,n,n); ints[1] = 1: upper (U)
 *   CT_LINALG_SOLVE:    out0 X (B,n,k), out1 info; in0 A (B,n,n), in1 rhs (B,n,k)
 *   CT_LINALG_INV:      out0 (B,n,n), out1 info; in0 A
 *   CT_LINALG_SLOGDET:  out0 sign (B), out1 logabsdet (B), out2 det (B); in0 A
 *   CT_LINALG_QR:       out0 Q (B,m,r), out1 R (B,r,n), r = min(m, n); in0 A (B,m,n);
 *                       ints[1] = 1 (complete): Q (B,m,m), R (B,m,n)
 *   CT_LINALG_SVD:      out0 U (B,m,r), out1 S (B,r), out2 Vh (B,r,n), out3 info; in0 A;
 *                       ints[1] = 1 (full matrices): U (B,m,m), Vh (B,n,n)
 * info: 0, or the LAPACK info of that matrix (> 0: not positive definite / singular / no
 * convergence); a LAPACK argument error (< 0) fails the op with CT_ERR_DEVICE. The LAPACKE _work
 * entry points are used: the high-level ones reject a matrix holding a NaN (their NaN check),
 * where torch computes it (NaN results for that matrix only); SVD, which torch refuses for
 * non-finite input, fails with CT_ERR_INVALID_ARG naming the matrix. A row-major n x n copy and
 * the LAPACK workspace (sized by a query) come from the context's allocator.
 * The second set (ct__linalg2_*):
 *   CT_LINALG_TRSOLVE:   out0 X (B,r,c); in0 A (B,n,n), in1 rhs (B,r,c) (left: r = n, right:
 *                        c = n); ints[1] bit0 upper, bit1 left, bit2 unit diagonal. BLAS trsm, as
 *                        torch: no singularity check (a zero diagonal gives inf / NaN).
 *   CT_LINALG_LU_FACTOR: out0 LU (B,m,n), out1 pivots int32 (B,k), out2 info int32 (B); in0 A
 *                        (getrf; info > 0: U[info, info] is exactly zero, the factors are still
 *                        complete).
 *   CT_LINALG_LU_PERM:   out0 P (B,m,m) (A = P L U), out1 perm int64 (B,m) with (P^T A)[i] =
 *                        A[perm[i]], out2 its inverse int64 (B,m); in0 LU (B,m,n) (its shape
 *                        only), in1 pivots int32 (B,k). A pivot outside 1..m fails the op.
 *   CT_LINALG_SVDVALS:   out0 S (B,k), out1 info; in0 A (gesdd without vectors; non-finite input
 *                        fails as linalg.svd).
 *   CT_LINALG_LSTSQ:     out0 X (B,max(m,n),q) (the right-hand side on entry: the kernel copies
 *                        in1 there and solves in place), out1 rank int64 (B) [gelsy, gelsd,
 *                        gelss], out2 singular values (B,k) [gelsd, gelss], out3 info int32 (B);
 *                        in0 A (B,m,n), in1 rhs (B,max(m,n),q) zero-padded; ints[1] driver 0
 *                        gels, 1 gelsy, 2 gelsd, 3 gelss; scalars[0] rcond.
 *   CT_LINALG_LDL_FACTOR: out0 LD (B,n,n) (the lower triangle of A factored in place by sytrf
 *                        'L', the strict upper part zero, as torch), out1 pivots int32 (B,n)
 *                        (LAPACK's: 1-based, negative pairs for 2 x 2 blocks), out2 info int32
 *                        (B) (> 0: D[info, info] is exactly zero); in0 A (B,n,n).
 *   CT_LINALG_LDL_SOLVE: out0 X (B,n,q); in0 LD (B,n,n), in1 rhs (B,n,q), in2 pivots int32
 *                        (B,n) (sytrs 'L'). Pivots that would make sytrs read outside the matrix
 *                        fail the op with CT_ERR_INVALID_ARG.
 *   CT_LINALG_GEQRF:     out0 (B,m,n) R on and above the diagonal, the Householder vectors below,
 *                        out1 tau (B,min(m,n)); in0 A (B,m,n) (geqrf). */
#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "backends/cpu/cpu_backend.h"

#define CT__LA(T, S, D) (sizeof(T) == 4 ? (S) : (D))

/* 0: every element finite; 1: an infinity but no NaN; 2: a NaN (torch's SVD raises for NaN and
 * returns NaN factors for infinities) */
#define CT__LA_NONFINITE(P, T, FIN, ISNAN)                                                         \
    static int ct__la_nonfinite_##P(const T *a, int64_t n) {                                       \
        int r = 0;                                                                                 \
        for (int64_t e = 0; e < n; e++)                                                            \
            if (!(FIN)) r = (ISNAN) ? 2 : r > 1 ? r : 1;                                           \
        return r;                                                                                  \
    }
CT__LA_NONFINITE(LAPACKE_s, float, isfinite(a[e]), isnan(a[e]))
CT__LA_NONFINITE(LAPACKE_d, double, isfinite(a[e]), isnan(a[e]))
CT__LA_NONFINITE(LAPACKE_c, float _Complex, isfinite(crealf(a[e])) && isfinite(cimagf(a[e])),
                 isnan(crealf(a[e])) || isnan(cimagf(a[e])))
CT__LA_NONFINITE(LAPACKE_z, double _Complex, isfinite(creal(a[e])) && isfinite(cimag(a[e])),
                 isnan(creal(a[e])) || isnan(cimag(a[e])))
static ct_status ct__la_svd_nan(ct_ctx *ctx, const char *op, int64_t b) {
    return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                         "%s: the algorithm failed to converge because the input matrix contained "
                         "non-finite values (NaN in matrix %lld of the batch; as torch)",
                         op, (long long)b);
}

static ct_status ct__la_err(ct__cpu_state *s, const char *what, lapack_int st) {
    return ct__set_error(s->ctx, CT_ERR_DEVICE, "linalg: LAPACK %s rejected argument %d", what,
                         (int)-st);
}

/* Right-hand sides of SOLVE (B's columns) and INV (the identity's n), else 0. torch solves a real
 * A X = B as its LAPACK sees a row-major A: the column-major A^T, factored, then solved with trans
 * 'T' (ctorch does the same, for the same bits; LAPACKE's row-major gesv factors A itself, as
 * torch does for complex A). */
static int64_t ct__la_nrhs(int r, const ct_operand *o, int64_t n) {
    return r == CT_LINALG_SOLVE ? o[0].shape[2] : r == CT_LINALG_INV ? n : 0;
}

#define CT__LINALG_IMPL(SUF, T, P)                                                                 \
    static ct_status ct__linalg_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                    \
        const ct_operand *o = op->operands;                                                        \
        const int r = (int)op->ints[0];                                                            \
        const ct_operand *a = &o[op->n_out];                                                       \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int m = (lapack_int)a->shape[1], n = (lapack_int)a->shape[2];                 \
        const int64_t mn = (int64_t)m * n;                                                         \
        lapack_int *ipiv = NULL;                                                                   \
        T *tmp = NULL;                                                                             \
        const lapack_int k = m < n ? m : n;                                                        \
        const bool full = op->ints[1] == 1 && (r == CT_LINALG_QR || r == CT_LINALG_SVD);           \
        const lapack_int qc = full ? m : k, vr = full ? n : k; /* Q / U columns, Vh rows */        \
        if (r != CT_LINALG_CHOLESKY && r != CT_LINALG_QR && k > 0) {                               \
            ipiv =                                                                                 \
                ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)(r == CT_LINALG_SVD ? 1 : k), 16);  \
            if (!ipiv) return ct__set_error(s->ctx, CT_ERR_OOM, "linalg: out of memory");          \
        }                                                                                          \
        if ((r == CT_LINALG_SLOGDET || r == CT_LINALG_SVD || r == CT_LINALG_SOLVE ||               \
             r == CT_LINALG_QR || r == CT_LINALG_INV) &&                                           \
            mn > 0) {                                                                              \
            tmp = ct__alloc(s->ctx,                                                                \
                            sizeof(T) * (size_t)(mn + (r == CT_LINALG_SVD ? k : 0) + k +           \
                                                 (int64_t)n * ct__la_nrhs(r, o, n)),               \
                            64);                                                                   \
            if (!tmp) {                                                                            \
                ct__free(s->ctx, ipiv);                                                            \
                return ct__set_error(s->ctx, CT_ERR_OOM,                                           \
                                     "linalg: out of memory for a %lld x "                         \
                                     "%lld workspace",                                             \
                                     (long long)m, (long long)n);                                  \
            }                                                                                      \
        }                                                                                          \
        /* LAPACK workspace: a size query for the routines that take one */                        \
        lapack_int lw = 1, iq = 0;                                                                 \
        T wq = 0;                                                                                  \
        if (r == CT_LINALG_QR && k > 0) {                                                          \
            if (P##geqrf_work(LAPACK_ROW_MAJOR, m, n, tmp, n, tmp, &wq, -1) == 0 &&                \
                (lapack_int)wq > lw)                                                               \
                lw = (lapack_int)wq;                                                               \
            if (P##orgqr_work(LAPACK_ROW_MAJOR, m, qc, k, tmp, qc, tmp, &wq, -1) == 0 &&           \
                (lapack_int)wq > lw)                                                               \
                lw = (lapack_int)wq;                                                               \
        }                                                                                          \
        if (r == CT_LINALG_SVD && k > 0 &&                                                         \
            P##gesdd_work(LAPACK_ROW_MAJOR, full ? 'A' : 'S', m, n, tmp, n, tmp, tmp, qc, tmp, n,  \
                          &wq, -1, &iq) == 0)                                                      \
            lw = (lapack_int)wq;                                                                   \
        T *work = NULL;                                                                            \
        lapack_int *iwork = NULL;                                                                  \
        if (r == CT_LINALG_QR || r == CT_LINALG_SVD) {                                             \
            work = ct__alloc(s->ctx, sizeof(T) * (size_t)(lw > 1 ? lw : 1), 64);                   \
            if (r == CT_LINALG_SVD)                                                                \
                iwork = ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)(8 * (k > 0 ? k : 1)), 16); \
            if (!work || (r == CT_LINALG_SVD && !iwork)) {                                         \
                ct__free(s->ctx, ipiv), ct__free(s->ctx, tmp);                                     \
                ct__free(s->ctx, work), ct__free(s->ctx, iwork);                                   \
                return ct__set_error(s->ctx, CT_ERR_OOM,                                           \
                                     "linalg: out of memory for a LAPACK workspace of %lld "       \
                                     "elements",                                                   \
                                     (long long)lw);                                               \
            }                                                                                      \
        }                                                                                          \
        ct_status ret = CT_OK;                                                                     \
        for (int64_t b = 0; b < B && ret == CT_OK; b++) {                                          \
            const T *ab = (const T *)a->data + b * mn;                                             \
            lapack_int st = 0;                                                                     \
            switch (r) {                                                                           \
            case CT_LINALG_CHOLESKY: {                                                             \
                T *l = (T *)o[0].data + b * mn;                                                    \
                memcpy(l, ab, sizeof(T) * (size_t)mn);                                             \
                int up = op->ints[1] == 1;                                                         \
                st = n ? P##potrf_work(LAPACK_ROW_MAJOR, up ? 'U' : 'L', n, l, n) : 0;             \
                for (lapack_int i = 0; i < n; i++) /* zero the other triangle */                   \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        if (up ? j < i : j > i) l[(int64_t)i * n + j] = 0;                         \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_SOLVE:                                                                  \
            case CT_LINALG_INV: {                                                                  \
                const lapack_int nr = (lapack_int)ct__la_nrhs(r, o, n);                            \
                T *x = (T *)o[0].data + b * (int64_t)n * nr, *xs = tmp + mn + k;                   \
                const T *rhs = r == CT_LINALG_SOLVE                                                \
                                   ? (const T *)o[op->n_out + 1].data + b * (int64_t)n * nr        \
                                   : NULL;                                                         \
                for (lapack_int i = 0; i < n; i++) /* B (or I) column-major */                     \
                    for (lapack_int j = 0; j < nr; j++)                                            \
                        xs[(int64_t)j * n + i] = rhs ? rhs[(int64_t)i * nr + j] : (T)(i == j);     \
                if (n) memcpy(tmp, ab, sizeof(T) * (size_t)mn); /* A^T, column-major */            \
                st = n ? P##getrf_work(LAPACK_COL_MAJOR, n, n, tmp, n, ipiv) : 0;                  \
                if (st >= 0 && n) { /* a singular A too: inf / NaN, as torch's _ex results */      \
                    lapack_int s2 =                                                                \
                        P##getrs_work(LAPACK_COL_MAJOR, 'T', n, nr, tmp, n, ipiv, xs, n);          \
                    st = s2 < 0 ? s2 : st;                                                         \
                }                                                                                  \
                for (lapack_int i = 0; i < n; i++)                                                 \
                    for (lapack_int j = 0; j < nr; j++)                                            \
                        x[(int64_t)i * nr + j] = xs[(int64_t)j * n + i];                           \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_SLOGDET: {                                                              \
                T sign = 1, logabs = 0, det = 1;                                                   \
                if (n) {                                                                           \
                    memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                       \
                    st = P##getrf_work(LAPACK_ROW_MAJOR, n, n, tmp, n, ipiv);                      \
                    if (st >= 0) { /* torch: sign = perm * prod sgn(u_ii), sgn(0) = sgn(NaN) = 0,  \
                                    * so a singular matrix gives a signed zero, as det does */     \
                        for (lapack_int i = 0; i < n; i++) {                                       \
                            T d = tmp[(int64_t)i * n + i];                                         \
                            if (ipiv[i] != i + 1) sign = -sign, det = -det;                        \
                            sign *= (T)((d > 0) - (d < 0));                                        \
                            logabs += (T)log(fabs((double)d));                                     \
                            det *= d;                                                              \
                        }                                                                          \
                        st = 0;                                                                    \
                    }                                                                              \
                }                                                                                  \
                ((T *)o[0].data)[b] = sign, ((T *)o[1].data)[b] = logabs;                          \
                ((T *)o[2].data)[b] = det;                                                         \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_QR: {                                                                   \
                const lapack_int rrows = full ? m : k;                                             \
                T *q = (T *)o[0].data + b * (int64_t)m * qc,                                       \
                  *rr = (T *)o[1].data + b * (int64_t)rrows * n;                                   \
                if (!k) { /* complete Q of an (m, 0) matrix: the identity; R empty */              \
                    for (int64_t e = 0; e < (int64_t)m * qc; e++)                                  \
                        q[e] = (T)(e % (qc + 1) == 0);                                             \
                    for (int64_t e = 0; e < (int64_t)rrows * n; e++)                               \
                        rr[e] = 0;                                                                 \
                    break;                                                                         \
                }                                                                                  \
                memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                           \
                T *tau = tmp + mn;                                                                 \
                st = P##geqrf_work(LAPACK_ROW_MAJOR, m, n, tmp, n, tau, work, lw);                 \
                if (st) break;                                                                     \
                for (lapack_int i = 0; i < rrows; i++) /* R: the upper triangle (rows >= n: 0) */  \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        rr[(int64_t)i * n + j] = j >= i ? tmp[(int64_t)i * n + j] : 0;             \
                for (lapack_int i = 0; i < m; i++) /* Q from the reflectors in its first k         \
                                                    * columns (orgqr sets the others) */           \
                    for (lapack_int j = 0; j < qc; j++)                                            \
                        q[(int64_t)i * qc + j] = j < k ? tmp[(int64_t)i * n + j] : 0;              \
                st = P##orgqr_work(LAPACK_ROW_MAJOR, m, qc, k, q, qc, tau, work, lw);              \
                break;                                                                             \
            }                                                                                      \
            default: { /* CT_LINALG_SVD */                                                         \
                T *u = (T *)o[0].data + b * (int64_t)m * qc,                                       \
                  *sv = (T *)o[1].data + b * (int64_t)k,                                           \
                  *vt = (T *)o[2].data + b * (int64_t)vr * n;                                      \
                if (!k) { /* full U / Vh of an empty matrix: identities, as gesdd leaves them */   \
                    for (int64_t e = 0; e < (int64_t)m * qc; e++)                                  \
                        u[e] = (T)(e % (qc + 1) == 0);                                             \
                    for (int64_t e = 0; e < (int64_t)vr * n; e++)                                  \
                        vt[e] = (T)(e % (n + 1) == 0);                                             \
                    break;                                                                         \
                }                                                                                  \
                int nf = ct__la_nonfinite_##P(ab, mn);                                             \
                if (nf == 2) {                                                                     \
                    ret = ct__la_svd_nan(s->ctx, "linalg.svd", b);                                 \
                    break;                                                                         \
                }                                                                                  \
                if (nf == 1) { /* inf, no NaN: torch's all-NaN factors */                          \
                    for (int64_t e = 0; e < (int64_t)m * qc; e++)                                  \
                        u[e] = (T)NAN;                                                             \
                    for (int64_t e = 0; e < k; e++)                                                \
                        sv[e] = (T)NAN;                                                            \
                    for (int64_t e = 0; e < (int64_t)vr * n; e++)                                  \
                        vt[e] = (T)NAN;                                                            \
                    break;                                                                         \
                }                                                                                  \
                memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                           \
                st = P##gesdd_work(LAPACK_ROW_MAJOR, full ? 'A' : 'S', m, n, tmp, n, sv, u, qc,    \
                                   vt, n, work, lw, iwork);                                        \
                break;                                                                             \
            }                                                                                      \
            }                                                                                      \
            if (st < 0) ret = ct__la_err(s, "routine", st);                                        \
            int32_t *info =                                                                        \
                r == CT_LINALG_SVD ? (o[3].data ? (int32_t *)o[3].data : NULL)                     \
                : (r == CT_LINALG_CHOLESKY || r == CT_LINALG_SOLVE || r == CT_LINALG_INV) &&       \
                        o[1].data                                                                  \
                    ? (int32_t *)o[1].data                                                         \
                    : NULL;                                                                        \
            if (info) info[b] = st > 0 ? (int32_t)st : 0;                                          \
        }                                                                                          \
        ct__free(s->ctx, ipiv), ct__free(s->ctx, tmp);                                             \
        ct__free(s->ctx, work), ct__free(s->ctx, iwork);                                           \
        return ret;                                                                                \
    }
CT__LINALG_IMPL(f32, float, LAPACKE_s)
CT__LINALG_IMPL(f64, double, LAPACKE_d)

/* Complex matrices (ints[2] = 1): CHOLESKY (potrf of a Hermitian matrix), SOLVE (gesv), INV
 * (gesv of the identity), SLOGDET (getrf: sign = perm * prod u_ii / |u_ii| (0 where u_ii = 0),
 * log|det| real, det), QR (geqrf + ungqr), SVD and SVDVALS (gesdd; real singular values) on
 * complex64 / complex128, each complex operand passed as its real view (.., 2) (the kernels see
 * real dtypes only); operand shapes otherwise as the real routines. */
/* z * (-1 + 0i) in full complex arithmetic (a zero imaginary part stays +0, as torch's complex
 * product with -1; negation would make it -0, and log(sign) then -pi i instead of +pi i) */
#define CT__CX_NEG(SUF, T, CT)                                                                     \
    static inline void ct__cx_neg_##SUF(CT *z) {                                                   \
        T *p = (T *)z;                                                                             \
        const T re = p[0] * (T)-1 - p[1] * (T)0, im = p[0] * (T)0 + p[1] * (T)-1;                  \
        p[0] = re, p[1] = im;                                                                      \
    }
CT__CX_NEG(c64, float, float _Complex)
CT__CX_NEG(c128, double, double _Complex)

#define CT__LINALG_CX_IMPL(SUF, T, CT, P, CABS)                                                    \
    static ct_status ct__linalg_cx_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                 \
        const ct_operand *o = op->operands;                                                        \
        const int r = (int)op->ints[0];                                                            \
        const ct_operand *a = &o[op->n_out];                                                       \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int m = (lapack_int)a->shape[1], n = (lapack_int)a->shape[2];                 \
        const int64_t mn = (int64_t)m * n;                                                         \
        const lapack_int k = m < n ? m : n;                                                        \
        const bool square_op = r == CT_LINALG_CHOLESKY || r == CT_LINALG_SOLVE ||                  \
                               r == CT_LINALG_INV || r == CT_LINALG_SLOGDET;                       \
        const bool vec = r == CT_LINALG_SVD;                                                       \
        if (a->ndim != 4 || a->shape[3] != 2 || (square_op && m != n) ||                           \
            !(square_op || r == CT_LINALG_QR || r == CT_LINALG_SVD || r == CT_LINALG_SVDVALS))     \
            return ct__set_error(s->ctx, CT_ERR_UNSUPPORTED,                                       \
                                 "linalg: complex routine %d on this operand layout is not "       \
                                 "supported",                                                      \
                                 r);                                                               \
        const bool full = op->ints[1] == 1 && (r == CT_LINALG_QR || r == CT_LINALG_SVD);           \
        const lapack_int qc = full ? m : k, vr = full ? n : k; /* Q / U columns, Vh rows */        \
        lapack_int *ipiv = NULL, *iwork = NULL, lw = 1;                                            \
        CT *tmp = NULL, *work = NULL, wq = 0;                                                      \
        T *rwork = NULL;                                                                           \
        size_t lrw = 1;                                                                            \
        if (mn > 0) {                                                                              \
            const int64_t mx = m > n ? m : n;                                                      \
            ipiv = ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)(8 * (int64_t)mx), 16);          \
            tmp = ct__alloc(s->ctx, sizeof(CT) * (size_t)(mn + k), 64);                            \
            iwork = ipiv;                                                                          \
            if (r == CT_LINALG_SVD || r == CT_LINALG_SVDVALS) /* LAPACK's lrwork bounds */         \
                lrw = (size_t)(vec ? (5 * (int64_t)k * k + 5 * k >                                 \
                                              2 * mx * k + 2 * (int64_t)k * k + k                  \
                                          ? 5 * (int64_t)k * k + 5 * k                             \
                                          : 2 * mx * k + 2 * (int64_t)k * k + k)                   \
                                   : 7 * (int64_t)k);                                              \
            rwork = ct__alloc(s->ctx, sizeof(T) * (lrw ? lrw : 1), 64);                            \
            if (ipiv && tmp) {                                                                     \
                lapack_int q = -1;                                                                 \
                if (r == CT_LINALG_QR) {                                                           \
                    lapack_int lw2 = 1;                                                            \
                    q = P##geqrf_work(LAPACK_ROW_MAJOR, m, n, tmp, n, tmp, &wq, -1);               \
                    if (q == 0) lw2 = (lapack_int)creal(wq);                                       \
                    if (q == 0)                                                                    \
                        q = P##ungqr_work(LAPACK_ROW_MAJOR, m, qc, k, tmp, qc, tmp, &wq, -1);      \
                    if (q == 0 && (lapack_int)creal(wq) < lw2) wq = lw2;                           \
                }                                                                                  \
                if (r == CT_LINALG_SVD)                                                            \
                    q = P##gesdd_work(LAPACK_ROW_MAJOR, full ? 'A' : 'S', m, n, tmp, n, rwork,     \
                                      tmp, qc, tmp, n, &wq, -1, rwork, iwork);                     \
                if (r == CT_LINALG_SVDVALS)                                                        \
                    q = P##gesdd_work(LAPACK_ROW_MAJOR, 'N', m, n, tmp, n, rwork, NULL, m, NULL,   \
                                      n, &wq, -1, rwork, iwork);                                   \
                if (q == 0) lw = (lapack_int)creal(wq);                                            \
            }                                                                                      \
            work = ct__alloc(s->ctx, sizeof(CT) * (size_t)(lw > 1 ? lw : 1), 64);                  \
            if (!ipiv || !tmp || !work || !rwork) {                                                \
                ct__free(s->ctx, ipiv), ct__free(s->ctx, tmp), ct__free(s->ctx, work);             \
                ct__free(s->ctx, rwork);                                                           \
                return ct__set_error(s->ctx, CT_ERR_OOM,                                           \
                                     "linalg: out of memory for a %lld x %lld complex "            \
                                     "workspace",                                                  \
                                     (long long)m, (long long)n);                                  \
            }                                                                                      \
        }                                                                                          \
        ct_status ret = CT_OK;                                                                     \
        for (int64_t b = 0; b < B && ret == CT_OK; b++) {                                          \
            const CT *ab = (const CT *)a->data + b * mn;                                           \
            lapack_int st = 0;                                                                     \
            if ((r == CT_LINALG_SVD || r == CT_LINALG_SVDVALS) && mn > 0) {                        \
                const int nf = ct__la_nonfinite_##P(ab, mn);                                       \
                if (nf == 2) {                                                                     \
                    ret = ct__la_svd_nan(s->ctx, "linalg.svd", b);                                 \
                    break;                                                                         \
                }                                                                                  \
                if (nf == 1) { /* inf, no NaN: torch's all-NaN factors */                          \
                    const bool vec = r == CT_LINALG_SVD;                                           \
                    T *sv = (T *)o[vec ? 1 : 0].data + b * (int64_t)k;                             \
                    for (int64_t e = 0; e < k; e++)                                                \
                        sv[e] = (T)NAN;                                                            \
                    if (vec) {                                                                     \
                        CT *u = (CT *)o[0].data + b * (int64_t)m * qc,                             \
                           *vt = (CT *)o[2].data + b * (int64_t)vr * n;                            \
                        for (int64_t e = 0; e < (int64_t)m * qc; e++)                              \
                            u[e] = (CT)NAN;                                                        \
                        for (int64_t e = 0; e < (int64_t)vr * n; e++)                              \
                            vt[e] = (CT)NAN;                                                       \
                        if (o[3].data) ((int32_t *)o[3].data)[b] = 0;                              \
                    } else if (o[1].data) {                                                        \
                        ((int32_t *)o[1].data)[b] = 0;                                             \
                    }                                                                              \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            switch (r) {                                                                           \
            case CT_LINALG_CHOLESKY: {                                                             \
                CT *l = (CT *)o[0].data + b * mn;                                                  \
                memcpy(l, ab, sizeof(CT) * (size_t)mn);                                            \
                const int up = op->ints[1] == 1;                                                   \
                st = n ? P##potrf_work(LAPACK_ROW_MAJOR, up ? 'U' : 'L', n, l, n) : 0;             \
                for (lapack_int i = 0; i < n; i++) /* zero the other triangle */                   \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        if (up ? j < i : j > i) l[(int64_t)i * n + j] = 0;                         \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_SOLVE:                                                                  \
            case CT_LINALG_INV: { /* torch factors a complex A itself (as row-major gesv does) */  \
                const lapack_int nr = (lapack_int)ct__la_nrhs(r, o, n);                            \
                CT *x = (CT *)o[0].data + b * (int64_t)n * nr;                                     \
                const CT *rhs = r == CT_LINALG_SOLVE                                               \
                                    ? (const CT *)o[op->n_out + 1].data + b * (int64_t)n * nr      \
                                    : NULL;                                                        \
                for (lapack_int i = 0; i < n; i++)                                                 \
                    for (lapack_int j = 0; j < nr; j++)                                            \
                        x[(int64_t)i * nr + j] = rhs ? rhs[(int64_t)i * nr + j] : (CT)(i == j);    \
                if (n) memcpy(tmp, ab, sizeof(CT) * (size_t)mn);                                   \
                st = n ? P##getrf_work(LAPACK_ROW_MAJOR, n, n, tmp, n, ipiv) : 0;                  \
                if (st >= 0 && n) { /* as gesv, and on past a zero pivot (the _ex results) */      \
                    lapack_int s2 =                                                                \
                        P##getrs_work(LAPACK_ROW_MAJOR, 'N', n, nr, tmp, n, ipiv, x, nr);          \
                    st = s2 < 0 ? s2 : st;                                                         \
                }                                                                                  \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_SLOGDET: {                                                              \
                CT sign = 1, det = 1;                                                              \
                T logabs = 0;                                                                      \
                if (n) {                                                                           \
                    memcpy(tmp, ab, sizeof(CT) * (size_t)mn);                                      \
                    st = P##getrf_work(LAPACK_ROW_MAJOR, n, n, tmp, n, ipiv);                      \
                    if (st >= 0) {                                                                 \
                        for (lapack_int i = 0; i < n; i++) {                                       \
                            const CT d = tmp[(int64_t)i * n + i];                                  \
                            const T ad = CABS(d);                                                  \
                            if (ipiv[i] !=                                                         \
                                i + 1) /* times (-1 + 0i), as torch (-sign would give -0i) */      \
                                ct__cx_neg_##SUF(&sign), ct__cx_neg_##SUF(&det);                   \
                            sign *= ad == 0 ? 0 : d / ad;                                          \
                            logabs += (T)log((double)ad);                                          \
                            det *= d;                                                              \
                        }                                                                          \
                        st = 0;                                                                    \
                    }                                                                              \
                }                                                                                  \
                ((CT *)o[0].data)[b] = sign, ((T *)o[1].data)[b] = logabs;                         \
                ((CT *)o[2].data)[b] = det;                                                        \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_QR: {                                                                   \
                const lapack_int rrows = full ? m : k;                                             \
                CT *q = (CT *)o[0].data + b * (int64_t)m * qc,                                     \
                   *rr = (CT *)o[1].data + b * (int64_t)rrows * n;                                 \
                if (!k) { /* complete Q of an (m, 0) matrix: the identity; R empty */              \
                    for (int64_t e = 0; e < (int64_t)m * qc; e++)                                  \
                        q[e] = (CT)(e % (qc + 1) == 0);                                            \
                    for (int64_t e = 0; e < (int64_t)rrows * n; e++)                               \
                        rr[e] = 0;                                                                 \
                    break;                                                                         \
                }                                                                                  \
                memcpy(tmp, ab, sizeof(CT) * (size_t)mn);                                          \
                CT *tau = tmp + mn;                                                                \
                st = P##geqrf_work(LAPACK_ROW_MAJOR, m, n, tmp, n, tau, work, lw);                 \
                if (st) break;                                                                     \
                for (lapack_int i = 0; i < rrows; i++)                                             \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        rr[(int64_t)i * n + j] = j >= i ? tmp[(int64_t)i * n + j] : 0;             \
                for (lapack_int i = 0; i < m; i++)                                                 \
                    for (lapack_int j = 0; j < qc; j++)                                            \
                        q[(int64_t)i * qc + j] = j < k ? tmp[(int64_t)i * n + j] : 0;              \
                st = P##ungqr_work(LAPACK_ROW_MAJOR, m, qc, k, q, qc, tau, work, lw);              \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_SVD: {                                                                  \
                CT *u = (CT *)o[0].data + b * (int64_t)m * qc,                                     \
                   *vt = (CT *)o[2].data + b * (int64_t)vr * n;                                    \
                T *sv = (T *)o[1].data + b * (int64_t)k;                                           \
                if (!k) { /* full U / Vh of an empty matrix: identities */                         \
                    for (int64_t e = 0; e < (int64_t)m * qc; e++)                                  \
                        u[e] = (CT)(e % (qc + 1) == 0);                                            \
                    for (int64_t e = 0; e < (int64_t)vr * n; e++)                                  \
                        vt[e] = (CT)(e % (n + 1) == 0);                                            \
                    break;                                                                         \
                }                                                                                  \
                memcpy(tmp, ab, sizeof(CT) * (size_t)mn);                                          \
                st = P##gesdd_work(LAPACK_ROW_MAJOR, full ? 'A' : 'S', m, n, tmp, n, sv, u, qc,    \
                                   vt, n, work, lw, rwork, iwork);                                 \
                break;                                                                             \
            }                                                                                      \
            default: { /* CT_LINALG_SVDVALS */                                                     \
                T *sv = (T *)o[0].data + b * (int64_t)k;                                           \
                if (!k) break;                                                                     \
                memcpy(tmp, ab, sizeof(CT) * (size_t)mn);                                          \
                st = P##gesdd_work(LAPACK_ROW_MAJOR, 'N', m, n, tmp, n, sv, NULL, m, NULL, n,      \
                                   work, lw, rwork, iwork);                                        \
                break;                                                                             \
            }                                                                                      \
            }                                                                                      \
            if (st < 0) ret = ct__la_err(s, "routine", st);                                        \
            int32_t *info = r == CT_LINALG_SVD                            ? (int32_t *)o[3].data   \
                            : r == CT_LINALG_SLOGDET || r == CT_LINALG_QR ? NULL                   \
                                                                          : (int32_t *)o[1].data;  \
            if (info) info[b] = st > 0 ? st : 0;                                                   \
        }                                                                                          \
        ct__free(s->ctx, ipiv), ct__free(s->ctx, tmp), ct__free(s->ctx, work);                     \
        ct__free(s->ctx, rwork);                                                                   \
        return ret;                                                                                \
    }
/* CT_LINALG_EIGH_CX: heevd per matrix (eigenvalues ascending, real; the vectors in V's rows as
 * LAPACK's columns of the row-major copy) */
#define CT__EIGH_CX_IMPL(SUF, T, CT, P)                                                            \
    static ct_status ct__eigh_cx_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                   \
        const ct_operand *o = op->operands;                                                        \
        const ct_operand *a = &o[op->n_out];                                                       \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int n = (lapack_int)a->shape[2];                                              \
        const int64_t nn = (int64_t)n * n;                                                         \
        const char uplo = (op->ints[1] & 1) ? 'U' : 'L', jobz = (op->ints[1] & 2) ? 'V' : 'N';     \
        if (a->ndim != 4 || a->shape[1] != n || a->shape[3] != 2)                                  \
            return ct__set_error(s->ctx, CT_ERR_UNSUPPORTED, "linalg.eigh: bad complex layout");   \
        if (n == 0 || B == 0) { /* no matrix to factor: info 0 for each (empty) one */             \
            for (int64_t b = 0; o[2].data && b < B; b++)                                           \
                ((int32_t *)o[2].data)[b] = 0;                                                     \
            return CT_OK;                                                                          \
        }                                                                                          \
        CT *tmp = ct__alloc(s->ctx, sizeof(CT) * (size_t)nn, 64), wq = 0;                          \
        T rq = 0;                                                                                  \
        lapack_int iq = 0, lw = 1, lrw = 1, liw = 1;                                               \
        if (tmp && P##heevd_work(LAPACK_ROW_MAJOR, jobz, uplo, n, tmp, n, NULL, &wq, -1, &rq, -1,  \
                                 &iq, -1) == 0)                                                    \
            lw = (lapack_int)creal(wq), lrw = (lapack_int)rq, liw = iq;                            \
        CT *work = ct__alloc(s->ctx, sizeof(CT) * (size_t)(lw > 1 ? lw : 1), 64);                  \
        T *rwork = ct__alloc(s->ctx, sizeof(T) * (size_t)(lrw > 1 ? lrw : 1), 64);                 \
        lapack_int *iwork =                                                                        \
            ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)(liw > 1 ? liw : 1), 16);               \
        ct_status ret = CT_OK;                                                                     \
        if (!tmp || !work || !rwork || !iwork)                                                     \
            ret = ct__set_error(s->ctx, CT_ERR_OOM,                                                \
                                "linalg.eigh: out of memory for a %d x %d complex workspace",      \
                                (int)n, (int)n);                                                   \
        for (int64_t b = 0; b < B && ret == CT_OK; b++) {                                          \
            CT *x = o[1].data ? (CT *)o[1].data + b * nn : tmp;                                    \
            const CT *ab = (const CT *)a->data + b * nn;                                           \
            bool fin = true; /* the named triangle only, as the real eigh */                       \
            for (lapack_int i = 0; i < n; i++)                                                     \
                for (lapack_int j = 0; j < n; j++)                                                 \
                    if (uplo == 'U' ? j >= i : j <= i)                                             \
                        fin = fin && isfinite(creal(ab[(int64_t)i * n + j])) &&                    \
                              isfinite(cimag(ab[(int64_t)i * n + j]));                             \
            if (!fin) { /* NaN results and info 1 (CT_EIGH_INFO_NONFINITE), as the real eigh */    \
                for (lapack_int i = 0; i < n; i++)                                                 \
                    ((T *)o[0].data)[b * n + i] = (T)NAN;                                          \
                if (o[1].data)                                                                     \
                    for (int64_t e = 0; e < nn; e++)                                               \
                        x[e] = (CT)NAN + (CT)NAN * I;                                              \
                if (o[2].data) ((int32_t *)o[2].data)[b] = 1;                                      \
                continue;                                                                          \
            }                                                                                      \
            memcpy(x, ab, sizeof(CT) * (size_t)nn);                                                \
            lapack_int st =                                                                        \
                P##heevd_work(LAPACK_ROW_MAJOR, jobz, uplo, n, x, n, (T *)o[0].data + b * n, work, \
                              lw, rwork, lrw, iwork, liw);                                         \
            if (st < 0) ret = ct__la_err(s, "heevd", st);                                          \
            if (o[2].data) ((int32_t *)o[2].data)[b] = st > 0 ? st : 0;                            \
        }                                                                                          \
        ct__free(s->ctx, tmp), ct__free(s->ctx, work), ct__free(s->ctx, rwork);                    \
        ct__free(s->ctx, iwork);                                                                   \
        return ret;                                                                                \
    }
/* CT_LINALG_EIG of complex input (ints[2] = 1): geev per matrix; out0 w (B,n,2), out1 V
 * (B,n,n,2) or none, out2 info int32 (-1: the matrix holds inf / NaN, torch's refusal) */
#define CT__EIG_CX_IMPL(SUF, T, CT, P)                                                             \
    static ct_status ct__eig_cx_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                    \
        const ct_operand *o = op->operands;                                                        \
        const ct_operand *a = &o[op->n_out];                                                       \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int n = (lapack_int)a->shape[2];                                              \
        const int64_t nn = (int64_t)n * n;                                                         \
        const bool vec = o[1].data != NULL;                                                        \
        if (a->ndim != 4 || a->shape[1] != n || a->shape[3] != 2)                                  \
            return ct__set_error(s->ctx, CT_ERR_UNSUPPORTED, "linalg.eig: bad complex layout");    \
        if (n == 0 || B == 0) { /* no matrix to factor: info 0 for each (empty) one */             \
            for (int64_t b = 0; o[2].data && b < B; b++)                                           \
                ((int32_t *)o[2].data)[b] = 0;                                                     \
            return CT_OK;                                                                          \
        }                                                                                          \
        CT *tmp = ct__alloc(s->ctx, sizeof(CT) * (size_t)nn, 64), wq = 0, dummy = 0;               \
        T *rwork = ct__alloc(s->ctx, sizeof(T) * (size_t)(2 * n), 64); /* the query reads it */    \
        lapack_int lw = 1;                                                                         \
        if (tmp && rwork &&                                                                        \
            P##geev_work(LAPACK_ROW_MAJOR, 'N', vec ? 'V' : 'N', n, tmp, n, &dummy, NULL, 1,       \
                         &dummy, n, &wq, -1, rwork) == 0)                                          \
            lw = (lapack_int)creal(wq);                                                            \
        CT *work = ct__alloc(s->ctx, sizeof(CT) * (size_t)(lw > 1 ? lw : 1), 64);                  \
        ct_status ret = CT_OK;                                                                     \
        if (!tmp || !work || !rwork)                                                               \
            ret = ct__set_error(s->ctx, CT_ERR_OOM,                                                \
                                "linalg.eig: out of memory for a %d x %d complex workspace",       \
                                (int)n, (int)n);                                                   \
        for (int64_t b = 0; b < B && ret == CT_OK; b++) {                                          \
            const CT *ab = (const CT *)a->data + b * nn;                                           \
            bool fin = true;                                                                       \
            for (int64_t e = 0; e < nn; e++)                                                       \
                fin = fin && isfinite(creal(ab[e])) && isfinite(cimag(ab[e]));                     \
            if (!fin) {                                                                            \
                ((int32_t *)o[2].data)[b] = -1;                                                    \
                continue;                                                                          \
            }                                                                                      \
            memcpy(tmp, ab, sizeof(CT) * (size_t)nn);                                              \
            CT *w = (CT *)o[0].data + b * n, *v = vec ? (CT *)o[1].data + b * nn : &dummy;         \
            lapack_int st = P##geev_work(LAPACK_ROW_MAJOR, 'N', vec ? 'V' : 'N', n, tmp, n, w,     \
                                         NULL, 1, v, n, work, lw, rwork);                          \
            if (st < 0) ret = ct__la_err(s, "geev", st);                                           \
            ((int32_t *)o[2].data)[b] = st > 0 ? st : 0;                                           \
        }                                                                                          \
        ct__free(s->ctx, tmp), ct__free(s->ctx, work), ct__free(s->ctx, rwork);                    \
        return ret;                                                                                \
    }
CT__EIG_CX_IMPL(c64, float, float _Complex, LAPACKE_c)
CT__EIG_CX_IMPL(c128, double, double _Complex, LAPACKE_z)

CT__EIGH_CX_IMPL(c64, float, float _Complex, LAPACKE_c)
CT__EIGH_CX_IMPL(c128, double, double _Complex, LAPACKE_z)

CT__LINALG_CX_IMPL(c64, float, float _Complex, LAPACKE_c, cabsf)
CT__LINALG_CX_IMPL(c128, double, double _Complex, LAPACKE_z, cabs)

/* getrf pivots (1-based row swaps, k of them) -> perm (m) with (P^T A)[i] = A[perm[i]] and its
 * inverse; false when a pivot is outside 1..m. */
/* sytrs / hetrs trust the pivots: the first entry not of sytrf's form (1..n, or a pair of one
 * value in -n..-1, which keeps every access inside the matrix), or -1 */
int64_t ct__cpu_ldl_pivots_bad(const int32_t *pv, int64_t n) {
    for (int64_t i = 0; i < n;) {
        const int32_t pi = pv[i];
        if (pi > 0 && pi <= n)
            i++;
        else if (pi < 0 && pi >= -n && i + 1 < n && pv[i + 1] == pi)
            i += 2;
        else
            return i;
    }
    return -1;
}

bool ct__cpu_lu_perm(const int32_t *piv, int64_t k, int64_t m, int64_t *perm, int64_t *iperm) {
    for (int64_t i = 0; i < m; i++)
        perm[i] = i;
    for (int64_t i = 0; i < k; i++) {
        const int64_t p = (int64_t)piv[i] - 1;
        if (p < 0 || p >= m) return false;
        const int64_t t = perm[i];
        perm[i] = perm[p], perm[p] = t;
    }
    for (int64_t i = 0; i < m; i++)
        iperm[perm[i]] = i;
    return true;
}

#define CT__LINALG2_IMPL(SUF, T, P, CB)                                                            \
    static ct_status ct__linalg2_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                   \
        const ct_operand *o = op->operands;                                                        \
        const int r = (int)op->ints[0];                                                            \
        const ct_operand *a = &o[op->n_out], *in1 = &o[op->n_out + 1];                             \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int m = (lapack_int)a->shape[1], n = (lapack_int)a->shape[2];                 \
        const int64_t mn = (int64_t)m * n;                                                         \
        const lapack_int k = m < n ? m : n;                                                        \
        const int drv = (int)op->ints[1];                                                          \
        const lapack_int mx = m > n ? m : n;                                                       \
        const lapack_int q = r == CT_LINALG_LSTSQ ? (lapack_int)in1->shape[2] : 0;                 \
        /* workspace: a copy of A and the LAPACK work arrays (sized by a query) */                 \
        lapack_int lw = 1, liw = 1;                                                                \
        T wq = 0;                                                                                  \
        lapack_int iq = 0, rk = 0;                                                                 \
        const T rc = (T)op->scalars[0];                                                            \
        if (r == CT_LINALG_SVDVALS && k > 0 &&                                                     \
            P##gesdd_work(LAPACK_ROW_MAJOR, 'N', m, n, NULL, n, NULL, NULL, m, NULL, n, &wq, -1,   \
                          &iq) == 0)                                                               \
            lw = (lapack_int)wq, liw = 8 * k;                                                      \
        if (r == CT_LINALG_LSTSQ && mn > 0) {                                                      \
            lapack_int st = 0;                                                                     \
            if (drv == 0)                                                                          \
                st = P##gels_work(LAPACK_ROW_MAJOR, 'N', m, n, q, NULL, n, NULL, q, &wq, -1);      \
            else if (drv == 1)                                                                     \
                st = P##gelsy_work(LAPACK_ROW_MAJOR, m, n, q, NULL, n, NULL, q, NULL, rc, &rk,     \
                                   &wq, -1);                                                       \
            else if (drv == 2)                                                                     \
                st = P##gelsd_work(LAPACK_ROW_MAJOR, m, n, q, NULL, n, NULL, q, NULL, rc, &rk,     \
                                   &wq, -1, &iq);                                                  \
            else                                                                                   \
                st = P##gelss_work(LAPACK_ROW_MAJOR, m, n, q, NULL, n, NULL, q, NULL, rc, &rk,     \
                                   &wq, -1);                                                       \
            if (st == 0) lw = (lapack_int)wq;                                                      \
            liw = drv == 1 ? n : drv == 2 ? (iq > 1 ? iq : 1) : 1;                                 \
        }                                                                                          \
        if (r == CT_LINALG_GEQRF && k > 0 &&                                                       \
            P##geqrf_work(LAPACK_ROW_MAJOR, m, n, NULL, n, NULL, &wq, -1) == 0)                    \
            lw = (lapack_int)wq;                                                                   \
        /* own_work: ldl's and geqrf's work arrays, allocated below */                             \
        const bool own_work = r == CT_LINALG_LDL_FACTOR || r == CT_LINALG_LDL_SOLVE ||             \
                              (r == CT_LINALG_GEQRF && k > 0);                                     \
        if (r == CT_LINALG_LDL_FACTOR && n > 0 &&                                                  \
            P##sytrf_work(LAPACK_ROW_MAJOR, 'L', n, NULL, n, NULL, &wq, -1) == 0)                  \
            lw = (lapack_int)wq;                                                                   \
        if (own_work) liw = n; /* the pivots as lapack_int */                                      \
        if (lw < 1) lw = 1;                                                                        \
        if (liw < 1) liw = 1;                                                                      \
        const bool wants = r == CT_LINALG_SVDVALS || r == CT_LINALG_LSTSQ;                         \
        T *tmp = NULL, *work = NULL, *sv = NULL;                                                   \
        lapack_int *iwork = NULL;                                                                  \
        if (wants && mn > 0) {                                                                     \
            tmp = ct__alloc(s->ctx, sizeof(T) * (size_t)mn, 64);                                   \
            work = ct__alloc(s->ctx, sizeof(T) * (size_t)lw, 64);                                  \
            iwork = ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)liw, 16);                       \
            sv = ct__alloc(s->ctx, sizeof(T) * (size_t)(k > 0 ? k : 1), 64);                       \
        }                                                                                          \
        if (wants && mn > 0 && (!tmp || !work || !iwork || !sv)) {                                 \
            ct__free(s->ctx, tmp), ct__free(s->ctx, work), ct__free(s->ctx, iwork);                \
            ct__free(s->ctx, sv);                                                                  \
            return ct__set_error(s->ctx, CT_ERR_OOM,                                               \
                                 "linalg: out of memory for a LAPACK workspace of %lld elements",  \
                                 (long long)lw);                                                   \
        }                                                                                          \
        if (own_work && n > 0) {                                                                   \
            work = ct__alloc(s->ctx, sizeof(T) * (size_t)lw, 64);                                  \
            iwork = ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)liw, 16);                       \
            if (!work || !iwork) {                                                                 \
                ct__free(s->ctx, work), ct__free(s->ctx, iwork);                                   \
                return ct__set_error(s->ctx, CT_ERR_OOM,                                           \
                                     "linalg: out of memory for a LAPACK workspace of %lld "       \
                                     "elements",                                                   \
                                     (long long)lw);                                               \
            }                                                                                      \
        }                                                                                          \
        ct_status ret = CT_OK;                                                                     \
        for (int64_t b = 0; b < B && ret == CT_OK; b++) {                                          \
            const T *ab = (const T *)a->data + b * mn;                                             \
            lapack_int st = 0;                                                                     \
            int32_t *info = NULL;                                                                  \
            switch (r) {                                                                           \
            case CT_LINALG_TRSOLVE: {                                                              \
                const int f = (int)op->ints[1];                                                    \
                const int64_t rr = o[0].shape[1], cc = o[0].shape[2];                              \
                T *x = (T *)o[0].data + b * rr * cc;                                               \
                memcpy(x, (const T *)in1->data + b * rr * cc, sizeof(T) * (size_t)(rr * cc));      \
                if (rr > 0 && cc > 0)                                                              \
                    CB##trsm(CblasRowMajor, (f & 2) ? CblasLeft : CblasRight,                      \
                             (f & 1) ? CblasUpper : CblasLower, CblasNoTrans,                      \
                             (f & 4) ? CblasUnit : CblasNonUnit, (blasint)rr, (blasint)cc, (T)1,   \
                             ab, n > 0 ? n : 1, x, (blasint)cc);                                   \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LU_FACTOR: {                                                            \
                T *lu = (T *)o[0].data + b * mn;                                                   \
                int32_t *pv = (int32_t *)o[1].data + b * k;                                        \
                memcpy(lu, ab, sizeof(T) * (size_t)mn);                                            \
                if (k > 0) {                                                                       \
                    if (sizeof(lapack_int) == sizeof(int32_t)) {                                   \
                        st = P##getrf_work(LAPACK_ROW_MAJOR, m, n, lu, n, (lapack_int *)pv);       \
                    } else { /* 64-bit LAPACK ints: pivots go through a wider array */             \
                        lapack_int *wp = ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)k, 16);    \
                        if (!wp) {                                                                 \
                            ret = ct__set_error(s->ctx, CT_ERR_OOM, "linalg: out of memory");      \
                            break;                                                                 \
                        }                                                                          \
                        st = P##getrf_work(LAPACK_ROW_MAJOR, m, n, lu, n, wp);                     \
                        for (lapack_int i = 0; i < k; i++)                                         \
                            pv[i] = (int32_t)wp[i];                                                \
                        ct__free(s->ctx, wp);                                                      \
                    }                                                                              \
                }                                                                                  \
                info = (int32_t *)o[2].data;                                                       \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LU_PERM: {                                                              \
                const int64_t kp = in1->shape[1];                                                  \
                T *pm = (T *)o[0].data + b * (int64_t)m * m;                                       \
                int64_t *pr = (int64_t *)o[1].data + b * m, *ip = (int64_t *)o[2].data + b * m;    \
                if (!ct__cpu_lu_perm((const int32_t *)in1->data + b * kp, kp, m, pr, ip)) {        \
                    ret = ct__set_error(s->ctx, CT_ERR_INVALID_ARG,                                \
                                        "lu_unpack: pivots of matrix %lld of the batch must be "   \
                                        "between 1 and LU.size(-2) = %lld inclusive (as torch)",   \
                                        (long long)b, (long long)m);                               \
                    break;                                                                         \
                }                                                                                  \
                memset(pm, 0, sizeof(T) * (size_t)((int64_t)m * m));                               \
                for (lapack_int i = 0; i < m; i++) /* P[perm[i], i] = 1 */                         \
                    pm[pr[i] * m + i] = 1;                                                         \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_SVDVALS: {                                                              \
                T *sb = (T *)o[0].data + b * k;                                                    \
                info = (int32_t *)o[1].data;                                                       \
                if (!k) break;                                                                     \
                int nf = ct__la_nonfinite_##P(ab, mn);                                             \
                if (nf == 2) {                                                                     \
                    ret = ct__la_svd_nan(s->ctx, "linalg.svdvals", b);                             \
                    break;                                                                         \
                }                                                                                  \
                if (nf == 1) { /* inf, no NaN: torch's NaN singular values */                      \
                    for (int64_t e = 0; e < k; e++)                                                \
                        sb[e] = (T)NAN;                                                            \
                    break;                                                                         \
                }                                                                                  \
                memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                           \
                st = P##gesdd_work(LAPACK_ROW_MAJOR, 'N', m, n, tmp, n, sb, NULL, m, NULL, n,      \
                                   work, lw, iwork);                                               \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LDL_FACTOR: {                                                           \
                T *ld = (T *)o[0].data + b * mn;                                                   \
                int32_t *pv = (int32_t *)o[1].data + b * n;                                        \
                for (lapack_int i = 0; i < n; i++) /* tril(A), as torch, factored in place */      \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        ld[(int64_t)i * n + j] = j <= i ? ab[(int64_t)i * n + j] : 0;              \
                info = (int32_t *)o[2].data;                                                       \
                if (!n) break;                                                                     \
                st = P##sytrf_work(LAPACK_ROW_MAJOR, 'L', n, ld, n, iwork, work, lw);              \
                for (lapack_int i = 0; i < n; i++)                                                 \
                    pv[i] = (int32_t)iwork[i];                                                     \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_GEQRF: {                                                                \
                T *qa = (T *)o[0].data + b * mn;                                                   \
                memcpy(qa, ab, sizeof(T) * (size_t)mn);                                            \
                if (k > 0)                                                                         \
                    st = P##geqrf_work(LAPACK_ROW_MAJOR, m, n, qa, n, (T *)o[1].data + b * k,      \
                                       work, lw);                                                  \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LDL_SOLVE: {                                                            \
                const lapack_int nq = (lapack_int)o[0].shape[2];                                   \
                T *x = (T *)o[0].data + b * (int64_t)n * nq;                                       \
                memcpy(x, (const T *)in1->data + b * (int64_t)n * nq,                              \
                       sizeof(T) * (size_t)((int64_t)n * nq));                                     \
                const int32_t *pv = (const int32_t *)o[op->n_out + 2].data + b * n;                \
                const lapack_int bad = (lapack_int)ct__cpu_ldl_pivots_bad(pv, n);                  \
                for (lapack_int i = 0; i < n && bad < 0; i++)                                      \
                    iwork[i] = pv[i];                                                              \
                if (bad >= 0) {                                                                    \
                    ret = ct__set_error(s->ctx, CT_ERR_INVALID_ARG,                                \
                                        "linalg.ldl_solve: pivots of matrix %lld of the batch "    \
                                        "are not sytrf's (entry %d is %d; expected 1..%d, or two " \
                                        "equal values in -%d..-1)",                                \
                                        (long long)b, (int)bad, (int)pv[bad], (int)n, (int)n);     \
                    break;                                                                         \
                }                                                                                  \
                if (n > 0 && nq > 0)                                                               \
                    st = P##sytrs_work(LAPACK_ROW_MAJOR, 'L', n, nq, ab, n, iwork, x, nq);         \
                break;                                                                             \
            }                                                                                      \
            default: { /* CT_LINALG_LSTSQ */                                                       \
                T *x = (T *)o[0].data + b * (int64_t)mx * q;                                       \
                memcpy(x, (const T *)in1->data + b * (int64_t)mx * q,                              \
                       sizeof(T) * (size_t)((int64_t)mx * q));                                     \
                info = (int32_t *)o[3].data;                                                       \
                rk = 0;                                                                            \
                if (mn > 0 && q > 0) {                                                             \
                    memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                       \
                    if (drv == 0) {                                                                \
                        st = P##gels_work(LAPACK_ROW_MAJOR, 'N', m, n, q, tmp, n, x, q, work, lw); \
                    } else if (drv == 1) {                                                         \
                        memset(iwork, 0, sizeof(lapack_int) * (size_t)liw);                        \
                        st = P##gelsy_work(LAPACK_ROW_MAJOR, m, n, q, tmp, n, x, q, iwork, rc,     \
                                           &rk, work, lw);                                         \
                    } else if (drv == 2) {                                                         \
                        st = P##gelsd_work(LAPACK_ROW_MAJOR, m, n, q, tmp, n, x, q, sv, rc, &rk,   \
                                           work, lw, iwork);                                       \
                    } else {                                                                       \
                        st = P##gelss_work(LAPACK_ROW_MAJOR, m, n, q, tmp, n, x, q, sv, rc, &rk,   \
                                           work, lw);                                              \
                    }                                                                              \
                }                                                                                  \
                if (o[1].data) ((int64_t *)o[1].data)[b] = (int64_t)rk;                            \
                if (o[2].data && k > 0 && drv >= 2)                                                \
                    memcpy((T *)o[2].data + b * k, sv, sizeof(T) * (size_t)k);                     \
                break;                                                                             \
            }                                                                                      \
            }                                                                                      \
            if (st < 0 && ret == CT_OK) ret = ct__la_err(s, "routine", st);                        \
            if (info) info[b] = st > 0 ? (int32_t)st : 0;                                          \
        }                                                                                          \
        ct__free(s->ctx, tmp), ct__free(s->ctx, work), ct__free(s->ctx, iwork);                    \
        ct__free(s->ctx, sv);                                                                      \
        return ret;                                                                                \
    }
CT__LINALG2_IMPL(f32, float, LAPACKE_s, cblas_s)
CT__LINALG2_IMPL(f64, double, LAPACKE_d, cblas_d)

/* CT_LINALG_EIG: out0 eigenvalues (B,n) and out1 eigenvectors (B,n,n) (absent: values only),
 * complex, each passed as the real view of its real parts (the imaginary part the next real);
 * out2 info int32 (B: geev's, or -1 for a matrix holding NaN / inf, whose results are NaN);
 * in0 A (B,n,n) real. geev's real pairs become complex columns: a pair
 * (wr, +-wi) takes vr[:, j] +- i vr[:, j + 1], as torch's linalg.eig. */
#define CT__EIG_IMPL(SUF, T, GEEV)                                                                 \
    static ct_status ct__linalg_eig_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                \
        const ct_operand *o = op->operands, *a = &o[op->n_out];                                    \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int n = (lapack_int)a->shape[1];                                              \
        const bool vec = o[1].data != NULL;                                                        \
        const size_t nn = (size_t)n * (size_t)n;                                                   \
        T *buf = ct__alloc(s->ctx, sizeof(T) * (2 * nn + 2 * (size_t)n + 1), 64), *work = NULL;    \
        if (!buf) return ct__set_error(s->ctx, CT_ERR_OOM, "linalg.eig: out of memory");           \
        T *A = buf, *vr = buf + nn, *wr = vr + nn, *wi = wr + n, q = 0;                            \
        lapack_int st = n ? GEEV(LAPACK_ROW_MAJOR, 'N', vec ? 'V' : 'N', n, A, n, wr, wi, NULL, 1, \
                                 vr, n, &q, -1)                                                    \
                          : 0;                                                                     \
        lapack_int lw = (lapack_int)q > 1 ? (lapack_int)q : 1;                                     \
        if (st == 0 && n) work = ct__alloc(s->ctx, sizeof(T) * (size_t)lw, 64);                    \
        if (st == 0 && n && !work) {                                                               \
            ct__free(s->ctx, buf);                                                                 \
            return ct__set_error(s->ctx, CT_ERR_OOM, "linalg.eig: out of memory");                 \
        }                                                                                          \
        for (int64_t b = 0; st == 0 && b < B; b++) {                                               \
            memcpy(A, (const T *)a->data + (size_t)b * nn, sizeof(T) * nn);                        \
            bool finite = true; /* geev on NaN / inf may not return: info -1, NaN results */       \
            for (size_t e = 0; e < nn && finite; e++)                                              \
                finite = A[e] - A[e] == 0;                                                         \
            if (!finite) {                                                                         \
                ((int32_t *)o[2].data)[b] = -1;                                                    \
                T *w_ = (T *)o[0].data + (size_t)b * 2 * (size_t)n;                                \
                for (size_t e = 0; e < 2 * (size_t)n; e++)                                         \
                    w_[e] = (T)NAN;                                                                \
                for (size_t e = 0; vec && e < 2 * nn; e++)                                         \
                    ((T *)o[1].data)[(size_t)b * 2 * nn + e] = (T)NAN;                             \
                continue;                                                                          \
            }                                                                                      \
            lapack_int info = n ? GEEV(LAPACK_ROW_MAJOR, 'N', vec ? 'V' : 'N', n, A, n, wr, wi,    \
                                       NULL, 1, vr, n, work, lw)                                   \
                                : 0;                                                               \
            if (info < 0) {                                                                        \
                st = info;                                                                         \
                break;                                                                             \
            }                                                                                      \
            ((int32_t *)o[2].data)[b] = (int32_t)info;                                             \
            T *w = (T *)o[0].data + (size_t)b * 2 * (size_t)n;                                     \
            for (lapack_int j = 0; j < n; j++)                                                     \
                w[2 * j] = wr[j], w[2 * j + 1] = wi[j];                                            \
            if (!vec) continue;                                                                    \
            T *v = (T *)o[1].data + (size_t)b * 2 * nn;                                            \
            for (lapack_int j = 0; j < n; j++) {                                                   \
                const bool pair = wi[j] != 0 && j + 1 < n;                                         \
                for (lapack_int i = 0; i < n; i++) {                                               \
                    T re = vr[(size_t)i * n + j], im = pair ? vr[(size_t)i * n + j + 1] : 0;       \
                    v[2 * ((size_t)i * n + j)] = re, v[2 * ((size_t)i * n + j) + 1] = im;          \
                    if (pair) {                                                                    \
                        v[2 * ((size_t)i * n + j + 1)] = re;                                       \
                        v[2 * ((size_t)i * n + j + 1) + 1] = -im;                                  \
                    }                                                                              \
                }                                                                                  \
                if (pair) j++;                                                                     \
            }                                                                                      \
        }                                                                                          \
        ct__free(s->ctx, work);                                                                    \
        ct__free(s->ctx, buf);                                                                     \
        return st < 0 ? ct__la_err(s, "geev", st) : CT_OK;                                         \
    }
CT__EIG_IMPL(f32, float, LAPACKE_sgeev_work)
CT__EIG_IMPL(f64, double, LAPACKE_dgeev_work)

ct_status ct__cpu_linalg(ct__cpu_state *s, const ct_op_desc *op) {
    if (op->ints[2] == 1 && op->ints[0] == CT_LINALG_EIG)
        return op->compute_dtype == CT_FLOAT64 ? ct__eig_cx_c128(s, op) : ct__eig_cx_c64(s, op);
    if (op->ints[2] == 1 && op->ints[0] == CT_LINALG_EIGH_CX)
        return op->compute_dtype == CT_FLOAT64 ? ct__eigh_cx_c128(s, op) : ct__eigh_cx_c64(s, op);
    if (op->ints[2] == 1 && ct__cpu_linalg2_cx_handles((int)op->ints[0]))
        return ct__cpu_linalg2_cx(s, op);
    if (op->ints[2] == 1) /* complex, as real views */
        return op->compute_dtype == CT_FLOAT64 ? ct__linalg_cx_c128(s, op)
                                               : ct__linalg_cx_c64(s, op);
    if (op->ints[0] == CT_LINALG_EIG)
        return op->compute_dtype == CT_FLOAT64 ? ct__linalg_eig_f64(s, op)
                                               : ct__linalg_eig_f32(s, op);
    if (op->ints[0] >= CT_LINALG_TRSOLVE)
        return op->compute_dtype == CT_FLOAT64 ? ct__linalg2_f64(s, op) : ct__linalg2_f32(s, op);
    return op->compute_dtype == CT_FLOAT64 ? ct__linalg_f64(s, op) : ct__linalg_f32(s, op);
}

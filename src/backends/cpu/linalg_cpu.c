/* CPU backend, CT_OP_LINALG: dense factorisations through LAPACKE (OpenBLAS), one matrix of the
 * batch at a time, row-major. ints[0] selects the routine; operands (all contiguous, f32 or f64,
 * info int32) by routine:
 *   CT_LINALG_CHOLESKY: out0 L (B,n,n), out1 info (B); in0 A (B,n,n); ints[1] = 1: upper (U)
 *   CT_LINALG_SOLVE:    out0 X (B,n,k), out1 info; in0 A (B,n,n), in1 rhs (B,n,k)
 *   CT_LINALG_INV:      out0 (B,n,n), out1 info; in0 A
 *   CT_LINALG_SLOGDET:  out0 sign (B), out1 logabsdet (B), out2 det (B); in0 A
 *   CT_LINALG_QR:       out0 Q (B,m,r), out1 R (B,r,n), r = min(m, n); in0 A (B,m,n)
 *   CT_LINALG_SVD:      out0 U (B,m,r), out1 S (B,r), out2 Vh (B,r,n), out3 info; in0 A
 * info: 0, or the LAPACK info of that matrix (> 0: not positive definite / singular / no
 * convergence); a LAPACK argument error (< 0) fails the op with CT_ERR_DEVICE. The LAPACKE _work
 * entry points are used: the high-level ones reject a matrix holding a NaN (their NaN check),
 * where torch computes it (NaN results for that matrix only); SVD, which torch refuses for
 * non-finite input, fails with CT_ERR_INVALID_ARG naming the matrix. A row-major n x n copy and
 * the LAPACK workspace (sized by a query) come from the context's allocator. */
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "backends/cpu/cpu_backend.h"

#define CT__LA(T, S, D) (sizeof(T) == 4 ? (S) : (D))

static ct_status ct__la_err(ct__cpu_state *s, const char *what, lapack_int st) {
    return ct__set_error(s->ctx, CT_ERR_DEVICE, "linalg: LAPACK %s rejected argument %d", what,
                         (int)-st);
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
        if (r != CT_LINALG_CHOLESKY && r != CT_LINALG_QR && k > 0) {                               \
            ipiv =                                                                                 \
                ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)(r == CT_LINALG_SVD ? 1 : k), 16);  \
            if (!ipiv) return ct__set_error(s->ctx, CT_ERR_OOM, "linalg: out of memory");          \
        }                                                                                          \
        if ((r == CT_LINALG_SLOGDET || r == CT_LINALG_SVD || r == CT_LINALG_SOLVE ||               \
             r == CT_LINALG_QR) &&                                                                 \
            mn > 0) {                                                                              \
            tmp = ct__alloc(s->ctx, sizeof(T) * (size_t)(mn + (r == CT_LINALG_SVD ? k : 0) + k),   \
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
        if (r == CT_LINALG_INV && n > 0 &&                                                         \
            P##getri_work(LAPACK_ROW_MAJOR, n, tmp, n, ipiv, &wq, -1) == 0)                        \
            lw = (lapack_int)wq;                                                                   \
        if (r == CT_LINALG_QR && k > 0) {                                                          \
            if (P##geqrf_work(LAPACK_ROW_MAJOR, m, n, tmp, n, tmp, &wq, -1) == 0 &&                \
                (lapack_int)wq > lw)                                                               \
                lw = (lapack_int)wq;                                                               \
            if (P##orgqr_work(LAPACK_ROW_MAJOR, m, k, k, tmp, k, tmp, &wq, -1) == 0 &&             \
                (lapack_int)wq > lw)                                                               \
                lw = (lapack_int)wq;                                                               \
        }                                                                                          \
        if (r == CT_LINALG_SVD && k > 0 &&                                                         \
            P##gesdd_work(LAPACK_ROW_MAJOR, 'S', m, n, tmp, n, tmp, tmp, k, tmp, n, &wq, -1,       \
                          &iq) == 0)                                                               \
            lw = (lapack_int)wq;                                                                   \
        T *work = NULL;                                                                            \
        lapack_int *iwork = NULL;                                                                  \
        if (r == CT_LINALG_INV || r == CT_LINALG_QR || r == CT_LINALG_SVD) {                       \
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
            case CT_LINALG_SOLVE: {                                                                \
                const lapack_int nr = (lapack_int)o[0].shape[2];                                   \
                T *x = (T *)o[0].data + b * (int64_t)n * nr;                                       \
                memcpy(x, (const T *)o[op->n_out + 1].data + b * (int64_t)n * nr,                  \
                       sizeof(T) * (size_t)((int64_t)n * nr));                                     \
                memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                           \
                st = n ? P##gesv_work(LAPACK_ROW_MAJOR, n, nr, tmp, n, ipiv, x, nr) : 0;           \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_INV: {                                                                  \
                T *x = (T *)o[0].data + b * mn;                                                    \
                memcpy(x, ab, sizeof(T) * (size_t)mn);                                             \
                if (n) {                                                                           \
                    st = P##getrf_work(LAPACK_ROW_MAJOR, n, n, x, n, ipiv);                        \
                    if (st == 0) st = P##getri_work(LAPACK_ROW_MAJOR, n, x, n, ipiv, work, lw);    \
                }                                                                                  \
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
                T *q = (T *)o[0].data + b * (int64_t)m * k,                                        \
                  *rr = (T *)o[1].data + b * (int64_t)k * n;                                       \
                if (!k) break;                                                                     \
                memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                           \
                T *tau = tmp + mn;                                                                 \
                st = P##geqrf_work(LAPACK_ROW_MAJOR, m, n, tmp, n, tau, work, lw);                 \
                if (st) break;                                                                     \
                for (lapack_int i = 0; i < k; i++) /* R: the upper triangle of the first k rows */ \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        rr[(int64_t)i * n + j] = j >= i ? tmp[(int64_t)i * n + j] : 0;             \
                for (lapack_int i = 0; i < m;                                                      \
                     i++) /* Q from the reflectors: the first k columns */                         \
                    for (lapack_int j = 0; j < k; j++)                                             \
                        q[(int64_t)i * k + j] = tmp[(int64_t)i * n + j];                           \
                st = P##orgqr_work(LAPACK_ROW_MAJOR, m, k, k, q, k, tau, work, lw);                \
                break;                                                                             \
            }                                                                                      \
            default: { /* CT_LINALG_SVD */                                                         \
                T *u = (T *)o[0].data + b * (int64_t)m * k, *sv = (T *)o[1].data + b * (int64_t)k, \
                  *vt = (T *)o[2].data + b * (int64_t)k * n;                                       \
                if (!k) break;                                                                     \
                bool fin = true;                                                                   \
                for (int64_t e = 0; e < mn; e++)                                                   \
                    fin = fin && isfinite(ab[e]);                                                  \
                if (!fin) {                                                                        \
                    ret = ct__set_error(s->ctx, CT_ERR_INVALID_ARG,                                \
                                        "linalg.svd: matrix %lld of the batch holds non-finite "   \
                                        "values (torch raises)",                                   \
                                        (long long)b);                                             \
                    break;                                                                         \
                }                                                                                  \
                memcpy(tmp, ab, sizeof(T) * (size_t)mn);                                           \
                st = P##gesdd_work(LAPACK_ROW_MAJOR, 'S', m, n, tmp, n, sv, u, k, vt, n, work, lw, \
                                   iwork);                                                         \
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

ct_status ct__cpu_linalg(ct__cpu_state *s, const ct_op_desc *op) {
    return op->compute_dtype == CT_FLOAT64 ? ct__linalg_f64(s, op) : ct__linalg_f32(s, op);
}

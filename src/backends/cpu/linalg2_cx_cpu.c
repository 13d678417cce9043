/* CPU backend, CT_OP_LINALG of complex matrices (ints[2] = 1), the second set: the operand
 * layouts of linalg_cpu.c's CT_LINALG_TRSOLVE, LU_FACTOR, LU_PERM, LSTSQ, LDL_FACTOR and
 * LDL_SOLVE, with every complex operand passed as its real view (..., 2) and computed by the c / z
 * routines of BLAS and LAPACKE (row-major, one matrix at a time):
 *   TRSOLVE     trsm (no singularity check, as torch);
 *   LU_FACTOR   getrf (pivots int32, info int32);
 *   LU_PERM     P complex (ones at P[perm[i], i]), perm / iperm int64;
 *   LSTSQ       gels / gelsy / gelsd / gelss (ints[1]); the singular values (out2) are real;
 *   LDL_FACTOR  sytrf, or hetrf when ints[1] bit0 (hermitian) is set; LDL_SOLVE sytrs / hetrs;
 *   GEQRF       geqrf (R and the reflectors, tau). */
#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "backends/cpu/cpu_backend.h"

static ct_status ct__la2cx_oom(ct__cpu_state *s) {
    return ct__set_error(s->ctx, CT_ERR_OOM,
                         "linalg: out of memory for a complex LAPACK workspace");
}

#define CT__LINALG2_CX_IMPL(SUF, T, CT, P, CB)                                                     \
    static ct_status ct__linalg2_cx_##SUF(ct__cpu_state *s, const ct_op_desc *op) {                \
        const ct_operand *o = op->operands;                                                        \
        const int r = (int)op->ints[0];                                                            \
        const int flag = (int)op->ints[1];                                                         \
        const ct_operand *a = &o[op->n_out], *in1 = &o[op->n_out + 1];                             \
        const int64_t B = a->shape[0];                                                             \
        const lapack_int m = (lapack_int)a->shape[1], n = (lapack_int)a->shape[2];                 \
        const int64_t mn = (int64_t)m * n;                                                         \
        const lapack_int k = m < n ? m : n, mx = m > n ? m : n;                                    \
        const lapack_int q = r == CT_LINALG_LSTSQ ? (lapack_int)in1->shape[2] : 0;                 \
        const T rc = (T)op->scalars[0];                                                            \
        const bool herm = (flag & 1) != 0;                                                         \
        /* workspaces: sized by a query where LAPACK has one */                                    \
        lapack_int lw = 1, liw = mx > 1 ? mx : 1, rk = 0, iq = 1;                                  \
        size_t lrw = 1;                                                                            \
        CT wq = 0;                                                                                 \
        T rq = 0;                                                                                  \
        if (r == CT_LINALG_LSTSQ && mn > 0 && q > 0) {                                             \
            lapack_int st = 0, jq = 0;                                                             \
            if (flag == 0)                                                                         \
                st = P##gels_work(LAPACK_ROW_MAJOR, 'N', m, n, q, NULL, n, NULL, q, &wq, -1);      \
            else if (flag == 1)                                                                    \
                st = P##gelsy_work(LAPACK_ROW_MAJOR, m, n, q, NULL, n, NULL, q, &jq, rc, &rk, &wq, \
                                   -1, &rq);                                                       \
            else if (flag == 2)                                                                    \
                st = P##gelsd_work(LAPACK_ROW_MAJOR, m, n, q, NULL, n, NULL, q, NULL, rc, &rk,     \
                                   &wq, -1, &rq, &iq);                                             \
            else                                                                                   \
                st = P##gelss_work(LAPACK_ROW_MAJOR, m, n, q, NULL, n, NULL, q, NULL, rc, &rk,     \
                                   &wq, -1, &rq);                                                  \
            if (st == 0) lw = (lapack_int)creal(wq);                                               \
            lrw = (size_t)(flag == 2 ? (size_t)rq : flag == 1 ? 2 * (size_t)n : 5 * (size_t)k);    \
            if (flag == 2 && iq > liw) liw = iq;                                                   \
        }                                                                                          \
        if (r == CT_LINALG_LDL_FACTOR && n > 0 &&                                                  \
            (herm ? P##hetrf_work(LAPACK_ROW_MAJOR, 'L', n, NULL, n, NULL, &wq, -1)                \
                  : P##sytrf_work(LAPACK_ROW_MAJOR, 'L', n, NULL, n, NULL, &wq, -1)) == 0)         \
            lw = (lapack_int)creal(wq);                                                            \
        if (r == CT_LINALG_GEQRF && k > 0 &&                                                       \
            P##geqrf_work(LAPACK_ROW_MAJOR, m, n, NULL, n, NULL, &wq, -1) == 0)                    \
            lw = (lapack_int)creal(wq);                                                            \
        if (lw < 1) lw = 1;                                                                        \
        if (lrw < 1) lrw = 1;                                                                      \
        CT *tmp = NULL, *work = NULL;                                                              \
        T *rwork = NULL, *sv = NULL;                                                               \
        lapack_int *iwork = NULL;                                                                  \
        const bool ls = r == CT_LINALG_LSTSQ && mn > 0 && q > 0;                                   \
        const bool own_work = r == CT_LINALG_LDL_FACTOR || r == CT_LINALG_LDL_SOLVE ||             \
                              (r == CT_LINALG_GEQRF && k > 0); /* their work array */              \
        iwork = ct__alloc(s->ctx, sizeof(lapack_int) * (size_t)liw, 16);                           \
        if (ls) {                                                                                  \
            tmp = ct__alloc(s->ctx, sizeof(CT) * (size_t)mn, 64);                                  \
            rwork = ct__alloc(s->ctx, sizeof(T) * lrw, 64);                                        \
            sv = ct__alloc(s->ctx, sizeof(T) * (size_t)(k > 0 ? k : 1), 64);                       \
        }                                                                                          \
        if (ls || (own_work && n > 0)) work = ct__alloc(s->ctx, sizeof(CT) * (size_t)lw, 64);      \
        if (!iwork || (ls && (!tmp || !rwork || !sv)) || ((ls || (own_work && n > 0)) && !work)) { \
            ct__free(s->ctx, iwork), ct__free(s->ctx, tmp), ct__free(s->ctx, rwork);               \
            ct__free(s->ctx, sv), ct__free(s->ctx, work);                                          \
            return ct__la2cx_oom(s);                                                               \
        }                                                                                          \
        ct_status ret = CT_OK;                                                                     \
        for (int64_t b = 0; b < B && ret == CT_OK; b++) {                                          \
            const CT *ab = (const CT *)a->data + b * mn;                                           \
            lapack_int st = 0;                                                                     \
            int32_t *info = NULL;                                                                  \
            switch (r) {                                                                           \
            case CT_LINALG_TRSOLVE: {                                                              \
                const int64_t rr = o[0].shape[1], cc = o[0].shape[2];                              \
                CT *x = (CT *)o[0].data + b * rr * cc;                                             \
                const CT one = 1;                                                                  \
                memcpy(x, (const CT *)in1->data + b * rr * cc, sizeof(CT) * (size_t)(rr * cc));    \
                if (rr > 0 && cc > 0)                                                              \
                    CB##trsm(CblasRowMajor, (flag & 2) ? CblasLeft : CblasRight,                   \
                             (flag & 1) ? CblasUpper : CblasLower, CblasNoTrans,                   \
                             (flag & 4) ? CblasUnit : CblasNonUnit, (blasint)rr, (blasint)cc,      \
                             &one, ab, n > 0 ? n : 1, x, (blasint)cc);                             \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LU_FACTOR: {                                                            \
                CT *lu = (CT *)o[0].data + b * mn;                                                 \
                int32_t *pv = (int32_t *)o[1].data + b * k;                                        \
                memcpy(lu, ab, sizeof(CT) * (size_t)mn);                                           \
                if (k > 0) {                                                                       \
                    st = P##getrf_work(LAPACK_ROW_MAJOR, m, n, lu, n, iwork);                      \
                    for (lapack_int i = 0; i < k; i++)                                             \
                        pv[i] = (int32_t)iwork[i];                                                 \
                }                                                                                  \
                info = (int32_t *)o[2].data;                                                       \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LU_PERM: {                                                              \
                const int64_t kp = in1->shape[1];                                                  \
                CT *pm = (CT *)o[0].data + b * (int64_t)m * m;                                     \
                int64_t *pr = (int64_t *)o[1].data + b * m, *ip = (int64_t *)o[2].data + b * m;    \
                if (!ct__cpu_lu_perm((const int32_t *)in1->data + b * kp, kp, m, pr, ip)) {        \
                    ret = ct__set_error(s->ctx, CT_ERR_INVALID_ARG,                                \
                                        "lu_unpack: pivots of matrix %lld of the batch must be "   \
                                        "between 1 and LU.size(-2) = %lld inclusive (as torch)",   \
                                        (long long)b, (long long)m);                               \
                    break;                                                                         \
                }                                                                                  \
                memset(pm, 0, sizeof(CT) * (size_t)((int64_t)m * m));                              \
                for (lapack_int i = 0; i < m; i++) /* P[perm[i], i] = 1 */                         \
                    pm[pr[i] * m + i] = 1;                                                         \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LDL_FACTOR: {                                                           \
                CT *ld = (CT *)o[0].data + b * mn;                                                 \
                int32_t *pv = (int32_t *)o[1].data + b * n;                                        \
                for (lapack_int i = 0; i < n; i++) /* tril(A), as torch, factored in place */      \
                    for (lapack_int j = 0; j < n; j++)                                             \
                        ld[(int64_t)i * n + j] = j <= i ? ab[(int64_t)i * n + j] : 0;              \
                info = (int32_t *)o[2].data;                                                       \
                if (!n) break;                                                                     \
                st = herm ? P##hetrf_work(LAPACK_ROW_MAJOR, 'L', n, ld, n, iwork, work, lw)        \
                          : P##sytrf_work(LAPACK_ROW_MAJOR, 'L', n, ld, n, iwork, work, lw);       \
                for (lapack_int i = 0; i < n; i++)                                                 \
                    pv[i] = (int32_t)iwork[i];                                                     \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LDL_SOLVE: {                                                            \
                const lapack_int nq = (lapack_int)o[0].shape[2];                                   \
                CT *x = (CT *)o[0].data + b * (int64_t)n * nq;                                     \
                memcpy(x, (const CT *)in1->data + b * (int64_t)n * nq,                             \
                       sizeof(CT) * (size_t)((int64_t)n * nq));                                    \
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
                    st = herm ? P##hetrs_work(LAPACK_ROW_MAJOR, 'L', n, nq, ab, n, iwork, x, nq)   \
                              : P##sytrs_work(LAPACK_ROW_MAJOR, 'L', n, nq, ab, n, iwork, x, nq);  \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_GEQRF: {                                                                \
                CT *qa = (CT *)o[0].data + b * mn;                                                 \
                memcpy(qa, ab, sizeof(CT) * (size_t)mn);                                           \
                if (k > 0)                                                                         \
                    st = P##geqrf_work(LAPACK_ROW_MAJOR, m, n, qa, n, (CT *)o[1].data + b * k,     \
                                       work, lw);                                                  \
                break;                                                                             \
            }                                                                                      \
            case CT_LINALG_LSTSQ: {                                                                \
                CT *x = (CT *)o[0].data + b * (int64_t)mx * q;                                     \
                memcpy(x, (const CT *)in1->data + b * (int64_t)mx * q,                             \
                       sizeof(CT) * (size_t)((int64_t)mx * q));                                    \
                info = (int32_t *)o[3].data;                                                       \
                rk = 0;                                                                            \
                if (ls) {                                                                          \
                    memcpy(tmp, ab, sizeof(CT) * (size_t)mn);                                      \
                    if (flag == 0) {                                                               \
                        st = P##gels_work(LAPACK_ROW_MAJOR, 'N', m, n, q, tmp, n, x, q, work, lw); \
                    } else if (flag == 1) {                                                        \
                        memset(iwork, 0, sizeof(lapack_int) * (size_t)liw);                        \
                        st = P##gelsy_work(LAPACK_ROW_MAJOR, m, n, q, tmp, n, x, q, iwork, rc,     \
                                           &rk, work, lw, rwork);                                  \
                    } else if (flag == 2) {                                                        \
                        st = P##gelsd_work(LAPACK_ROW_MAJOR, m, n, q, tmp, n, x, q, sv, rc, &rk,   \
                                           work, lw, rwork, iwork);                                \
                    } else {                                                                       \
                        st = P##gelss_work(LAPACK_ROW_MAJOR, m, n, q, tmp, n, x, q, sv, rc, &rk,   \
                                           work, lw, rwork);                                       \
                    }                                                                              \
                }                                                                                  \
                if (o[1].data) ((int64_t *)o[1].data)[b] = (int64_t)rk;                            \
                if (o[2].data && k > 0 && flag >= 2 && ls)                                         \
                    memcpy((T *)o[2].data + b * k, sv, sizeof(T) * (size_t)k);                     \
                break;                                                                             \
            }                                                                                      \
            default:                                                                               \
                ret = ct__set_error(s->ctx, CT_ERR_UNSUPPORTED,                                    \
                                    "linalg: complex routine %d is not supported", r);             \
            }                                                                                      \
            if (st < 0 && ret == CT_OK)                                                            \
                ret = ct__set_error(s->ctx, CT_ERR_DEVICE,                                         \
                                    "linalg: LAPACK rejected argument %d (complex routine %d)",    \
                                    (int)-st, r);                                                  \
            if (info) info[b] = st > 0 ? (int32_t)st : 0;                                          \
        }                                                                                          \
        ct__free(s->ctx, iwork), ct__free(s->ctx, tmp), ct__free(s->ctx, rwork);                   \
        ct__free(s->ctx, sv), ct__free(s->ctx, work);                                              \
        return ret;                                                                                \
    }
CT__LINALG2_CX_IMPL(c64, float, float complex, LAPACKE_c, cblas_c)
CT__LINALG2_CX_IMPL(c128, double, double complex, LAPACKE_z, cblas_z)

bool ct__cpu_linalg2_cx_handles(int routine) {
    return routine == CT_LINALG_TRSOLVE || routine == CT_LINALG_LU_FACTOR ||
           routine == CT_LINALG_LU_PERM || routine == CT_LINALG_LSTSQ ||
           routine == CT_LINALG_LDL_FACTOR || routine == CT_LINALG_LDL_SOLVE ||
           routine == CT_LINALG_GEQRF;
}

ct_status ct__cpu_linalg2_cx(ct__cpu_state *s, const ct_op_desc *op) {
    return op->compute_dtype == CT_FLOAT64 ? ct__linalg2_cx_c128(s, op) : ct__linalg2_cx_c64(s, op);
}

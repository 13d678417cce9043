/* CPU backend, LAPACK path of the eigh op for large n: LAPACKE ?syevd (OpenBLAS) one matrix at a
 * time on a caller-provided workspace, then the same output conventions as the Jacobi kernels
 * (row-major eigenvector columns, sign fix, NaN + info for non-finite input). */
#include <lapacke.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/kernels/eigh_kernels.h"
#include "backends/cpu/eigh_cpu.h"

/* syevd minimum workspaces: jobz = 'V': lwork = 1 + 6n + 2n^2, liwork = 3 + 5n;
 * jobz = 'N': lwork = 2n + 1, liwork = 1. Layout: [matrix n*n][work lwork][iwork liwork]. */
static void lapack_sizes(int n, int want_v, size_t *lwork, size_t *liwork) {
    size_t nn = (size_t)n;
    *lwork = want_v ? 1 + 6 * nn + 2 * nn * nn : 2 * nn + 1;
    *liwork = want_v ? 3 + 5 * nn : 1;
}

bool ct__eigh_lapack_fits(int n, int want_v, size_t *lwork_out) {
    size_t lwork, liwork;
    lapack_sizes(n, want_v, &lwork, &liwork);
    const size_t lmax = sizeof(lapack_int) >= 8 ? (size_t)INT64_MAX : (size_t)INT32_MAX;
    *lwork_out = lwork;
    return lwork <= lmax && liwork <= lmax && (size_t)n <= lmax;
}

size_t ct__eigh_lapack_work_bytes(int n, int elem_size, int want_v) {
    size_t lwork, liwork;
    lapack_sizes(n, want_v, &lwork, &liwork);
    size_t bytes = ((size_t)n * n + lwork) * (size_t)elem_size + liwork * sizeof(lapack_int);
    return (bytes + 63) & ~(size_t)63;
}

#define CT__EIGH_LAPACK(NAME, T, SYEVD_WORK)                                                       \
    int NAME(int64_t batch, int n, const T *a, int upper, T *w, T *v, int32_t *info, void *work) { \
        int err = 0;                                                                               \
        size_t lwork, liwork;                                                                      \
        lapack_sizes(n, v != 0, &lwork, &liwork);                                                  \
        const int64_t nn = (int64_t)n * n;                                                         \
        T *z = (T *)work, *wk = z + nn;                                                            \
        lapack_int *iwk = (lapack_int *)(wk + lwork);                                              \
        for (int64_t b = 0; b < batch; b++) {                                                      \
            const T *ab = a + b * nn;                                                              \
            T *wb = w + b * n, *vb = v ? v + b * nn : 0;                                           \
            /* row-major lower triangle == column-major upper triangle: copy as is, swap uplo */   \
            int finite = 1;                                                                        \
            for (int i = 0; i < n; i++)                                                            \
                for (int j = 0; j <= i; j++) {                                                     \
                    T x = upper ? ab[(int64_t)j * n + i] : ab[(int64_t)i * n + j];                 \
                    finite &= (x - x) == (x - x);                                                  \
                    z[(int64_t)j * n + i] = x; /* column-major lower = row-major (i, j) */         \
                }                                                                                  \
            lapack_int st = -1;                                                                    \
            if (finite)                                                                            \
                st = SYEVD_WORK(LAPACK_COL_MAJOR, v ? 'V' : 'N', 'L', n, z, n, wb, wk,             \
                                (lapack_int)lwork, iwk, (lapack_int)liwork);                       \
            if (info) info[b] = !finite ? CT__EIGH_INFO_NONFINITE : st ? CT__EIGH_INFO_NOCONV : 0; \
            if (finite && st < 0 && !err) err = (int)st; /* an argument LAPACK rejected */         \
            if (!finite) {                                                                         \
                for (int i = 0; i < n; i++)                                                        \
                    wb[i] = (T)NAN;                                                                \
                if (vb)                                                                            \
                    for (int64_t k = 0; k < nn; k++)                                               \
                        vb[k] = (T)NAN;                                                            \
                continue;                                                                          \
            }                                                                                      \
            if (!vb) continue;                                                                     \
            /* z column j = eigenvector j; v row-major (i, j) = z[i + j n]; sign fix */            \
            for (int j = 0; j < n; j++) {                                                          \
                const T *col = z + (int64_t)j * n;                                                 \
                int im = 0;                                                                        \
                for (int i = 1; i < n; i++)                                                        \
                    if (fabs((double)col[i]) > fabs((double)col[im])) im = i;                      \
                T sg = col[im] < 0 ? (T)-1 : (T)1;                                                 \
                for (int i = 0; i < n; i++)                                                        \
                    vb[(int64_t)i * n + j] = sg * col[i];                                          \
            }                                                                                      \
        }                                                                                          \
        return err;                                                                                \
    }

CT__EIGH_LAPACK(ct__eigh_lapack_f32, float, LAPACKE_ssyevd_work)
CT__EIGH_LAPACK(ct__eigh_lapack_f64, double, LAPACKE_dsyevd_work)

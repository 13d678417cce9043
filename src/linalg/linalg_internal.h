/* Private pieces of the linalg module: the eigh dispatch table and the LAPACK (syevd) path. */
#ifndef CTORCH_LINALG_INTERNAL_H
#define CTORCH_LINALG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which solver runs for a given n and dtype (chosen from measurements, see docs/linalg.md). */
typedef enum ct__eigh_path {
    CT__EIGH_PATH_LANES = 0,  /* lane-batched kernels (Jacobi / tridiagonal QR), n <= 64 */
    CT__EIGH_PATH_LAPACK = 1, /* LAPACKE ?syevd per matrix, batch split over threads */
} ct__eigh_path;

/* Largest n given to the lane kernels, per dtype (elem_size 4 or 8). */
int ct__eigh_lanes_max_n(int elem_size);
ct__eigh_path ct__eigh_choose_path(int n, int elem_size);

/* LAPACK path for `batch` contiguous row-major matrices, same contract as the Jacobi kernels
 * (eigh_kernels.h). `work` holds ct__eigh_lapack_work_bytes(n, elem_size, want_v) bytes,
 * 64-byte aligned, private to the calling thread. */
size_t ct__eigh_lapack_work_bytes(int n, int elem_size, int want_v);
/* True when syevd's workspace sizes for n fit lapack_int (n >= 32768 with eigenvectors does not
 * in the 32-bit-index build); writes the lwork that was checked. */
bool ct__eigh_lapack_fits(int n, int want_v, size_t *lwork);
/* Return 0, or the first negative syevd result (an argument LAPACK rejected): the front end turns
 * it into a status, never CT_OK. */
int ct__eigh_lapack_f32(int64_t batch, int n, const float *a, int upper, float *w, float *v,
                        int32_t *info, void *work);
int ct__eigh_lapack_f64(int64_t batch, int n, const double *a, int upper, double *w, double *v,
                        int32_t *info, void *work);

#endif

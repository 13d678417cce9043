/* CPU backend's eigh and MX op kernels (CT_OP_EIGH, CT_OP_MX_*): the eigh solver choice by n and
 * dtype, its workspace plan (shared with the linalg front end, which allocates the workspace as a
 * tensor the descriptor points to), and the LAPACK (syevd) path. */
#ifndef CTORCH_EIGH_CPU_H
#define CTORCH_EIGH_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctorch/backend.h"

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

/* How an eigh op of `batch` matrices of size n runs with `num_threads` threads: the solver, the
 * threads it uses, and the workspace bytes per thread (the op's work operand holds
 * nt * work_bytes bytes, 64-byte aligned; none when work_bytes is 0). */
typedef struct ct__eigh_plan {
    ct__eigh_path path;
    int nt;
    size_t work_bytes;
} ct__eigh_plan;
ct__eigh_plan ct__eigh_plan_for(int f64, int n, int64_t batch, int want_v, int num_threads);

/* MX_LINEAR workspace in floats for x (M, K) of dtype xdt and an optional bias (N): its parts
 * start on 16-float boundaries (ct__mx_round16 each); the size asked for is an upper bound affine
 * in M (each part + 16), so an exported program's workspace is a polynomial of a symbolic batch. */
static inline int64_t ct__mx_round16(int64_t n) { return (n + 15) / 16 * 16; }
static inline int64_t ct__mx_linear_work_floats(int64_t M, int64_t N, int64_t K, int is_f32,
                                                int has_bias) {
    int64_t mk = M * K;
    return mk + 16 + (has_bias ? N + 16 : 0) + (is_f32 ? 0 : mk + 16 + M * N + 16);
}

struct ct__cpu_state;
/* Kernels of the domain op kinds (operand layouts in backend.h); they word their own errors. */
ct_status ct__cpu_eigh(struct ct__cpu_state *s, const ct_op_desc *op);
ct_status ct__cpu_mx(struct ct__cpu_state *s, const ct_op_desc *op);
/* The MX op kinds with an ISA's kernel table (struct ct__mxk_ops of kernels/mx_kernels.h), OpenMP
 * up to op->num_threads; context-free, so the embedded runtime links it. */
struct ct__mxk_ops;
ct_status ct__mx_run(const struct ct__mxk_ops *ops, const ct_op_desc *op);
/* The 2:4 sparse op kinds with an ISA's kernel table (struct ct__spk_ops of
 * kernels/sparse_kernels.h; sparse_cpu.c), context-free as ct__mx_run. */
struct ct__spk_ops;
ct_status ct__sparse_run(const struct ct__spk_ops *ops, const ct_op_desc *op);

#endif

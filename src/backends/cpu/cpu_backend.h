/* Private interface between the CPU backend and its graph implementation. */
#ifndef CTORCH_CPU_BACKEND_H
#define CTORCH_CPU_BACKEND_H

#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/kernels/par.h"
#include "backend/registry.h"
#include "ctorch/graph.h"

typedef struct ct__cpu_state {
    ct_ctx *ctx;
    const ct_k_isa *isa;
    ct_k_pool_slot pool; /* the kernels' helper threads (made at the first large op) */
} ct__cpu_state;

/* Run one op eagerly (BLAS matmul, portable kernels otherwise); words its own errors. */
ct_status ct__cpu_run_op(void *state, const ct_op_desc *op);
extern const ct_graph_impl ct__cpu_graph_impl;
/* CT_OP_LINALG through LAPACKE (linalg_cpu.c). */
ct_status ct__cpu_linalg(ct__cpu_state *s, const ct_op_desc *op);
/* complex CT_LINALG_TRSOLVE / LU_FACTOR / LU_PERM / LSTSQ / LDL_* (linalg2_cx_cpu.c) */
bool ct__cpu_linalg2_cx_handles(int routine);
ct_status ct__cpu_linalg2_cx(ct__cpu_state *s, const ct_op_desc *op);
/* getrf pivots (k, 1-based swaps) -> perm (m) with (P^T A)[i] = A[perm[i]] and its inverse;
 * false on a pivot outside 1..m */
bool ct__cpu_lu_perm(const int32_t *piv, int64_t k, int64_t m, int64_t *perm, int64_t *iperm);
/* the first ldl pivot not of sytrf's form (1..n, or a pair of one value in -n..-1), or -1 */
int64_t ct__cpu_ldl_pivots_bad(const int32_t *pv, int64_t n);
/* CT_OP_SPARSE24_* (sparse_cpu.c). */
ct_status ct__cpu_sparse(ct__cpu_state *s, const ct_op_desc *op);
/* CT_OP_FLEX_ATTENTION / _BWD (attention_cpu.c). */
ct_status ct__cpu_attention(ct__cpu_state *s, const ct_op_desc *op);
/* CT_OP_FFT and CT_OP_COMPLEX (fft_cpu.c). */
ct_status ct__cpu_fft_complex(ct__cpu_state *s, const ct_op_desc *op);
/* Register the built-in CPU backend (called by ct_ctx_create). */
ct_status ct__cpu_backend_register(ct_ctx *ctx);

#endif

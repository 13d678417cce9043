/* Distributed ctorch: process groups and collectives over MPI, symmetric memory, and the 2-D
 * all-to-all-v of mixture-of-experts token dispatch (torch.distributed semantics).
 *
 * Part of the optional library libctorch_dist (CMake option CT_WITH_MPI, on when MPI is found);
 * the core library has no MPI dependency and this header names no MPI type.
 *
 * Collectives are called by every rank of the group in the same order (as in MPI). Every call
 * validates dtypes, shapes and splits on every rank and agrees on the outcome: a mismatch returns
 * the same status on all ranks (the message names the first offending rank and values) instead of
 * hanging. A call that does not complete within the group's timeout (ct_dist_set_timeout, env
 * CT_DIST_TIMEOUT_MS, default 300 s) returns CT_ERR_TIMEOUT and breaks the group: later calls on it
 * return CT_ERR_STATE (free it). Tensors are CPU tensors of any dtype and strides for data
 * movement; reductions take bool, integer, f16, bf16, f32 and f64 (AVG: floating only).
 *
 * Ownership: ct_dist_init / ct_dist_split / ct_symm_alloc give owned objects freed with
 * ct_dist_free / ct_symm_free (NULL is a no-op; freeing is collective for groups made by split and
 * for symmetric buffers). Thread-safety: a group is used by one thread at a time. Errors are
 * recorded on the group's context (ct_ctx_last_error). See docs/distributed.md. */
#ifndef CTORCH_DIST_H
#define CTORCH_DIST_H

#include "ctorch/core.h"
#include "ctorch/tensor.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_dist ct_dist; /* a process group */
typedef enum {
    CT_REDUCE_SUM,
    CT_REDUCE_AVG,
    CT_REDUCE_MAX,
    CT_REDUCE_MIN,
    CT_REDUCE_PROD
} ct_reduce_op;

/* The world group (MPI_COMM_WORLD); calls MPI_Init_thread when MPI is not initialized yet (argc and
 * argv may be NULL). ctx must outlive every group made from it. */
CT_API ct_status ct_dist_init(ct_ctx *ctx, int *argc, char ***argv, ct_dist **world);
/* This process's rank in g (0 .. size-1), and the number of ranks of g (-1 for NULL). */
CT_API int ct_dist_rank(const ct_dist *g);
/* The number of ranks in g (-1 for NULL). */
CT_API int ct_dist_size(const ct_dist *g);
/* Collective: split g into sub-groups of the ranks passing the same color (ordered by key, then
 * rank), as MPI_Comm_split; a negative color gives *out = NULL (the rank joins no group). */
CT_API ct_status ct_dist_split(ct_dist *g, int color, int key, ct_dist **out);
/* Seconds a collective of g may wait for its peers before CT_ERR_TIMEOUT (> 0; inherited by
 * splits). */
CT_API ct_status ct_dist_set_timeout(ct_dist *g, double seconds);
/* Whether every rank of g runs on this node (the shared-memory paths apply). */
CT_API bool ct_dist_is_node_local(const ct_dist *g);

/* t (same dtype and shape on every rank) receives root's values. */
CT_API ct_status ct_dist_broadcast(ct_dist *g, ct_tensor *t, int root);
/* In place: t becomes the elementwise reduction of every rank's t (same dtype and shape). */
CT_API ct_status ct_dist_all_reduce(ct_dist *g, ct_tensor *t, ct_reduce_op op);
/* out = every rank's in concatenated along dim 0 in rank order (out dim 0 = size * in dim 0). */
CT_API ct_status ct_dist_all_gather(ct_dist *g, const ct_tensor *in, ct_tensor *out);
/* in (dim 0 = size * out dim 0) reduced over ranks; rank r keeps block r of dim 0 in out. */
CT_API ct_status ct_dist_reduce_scatter(ct_dist *g, const ct_tensor *in, ct_tensor *out,
                                        ct_reduce_op op);
/* Equal splits of dim 0: block j of in goes to rank j, block i of out comes from rank i
 * (in and out of the same shape, dim 0 divisible by size). */
CT_API ct_status ct_dist_all_to_all(ct_dist *g, const ct_tensor *in, ct_tensor *out);
/* in_splits[j] rows of in (in order) go to rank j; out_splits[i] rows of out come from rank i.
 * sum(in_splits) = in dim 0, sum(out_splits) = out dim 0, and out_splits[i] must equal rank i's
 * in_splits[me] (checked). NULL splits mean equal splits. Rows: the trailing dims (equal). */
CT_API ct_status ct_dist_all_to_all_v(ct_dist *g, const ct_tensor *in, const int64_t *in_splits,
                                      ct_tensor *out, const int64_t *out_splits);
/* MoE dispatch. in: rows grouped rank-major by (destination rank, local expert); in_splits: int64
 * [size * E] row counts of those groups. out: expert-major, for each local expert e the rows from
 * ranks 0, 1, ... with each expert's segment padded to a multiple of major_align rows (>= 1);
 * out_splits_offsets: int64 [2, E * size], row 0 the true count and row 1 the row offset of chunk
 * (e, source rank) at index e * size + r. out dim 0 is an upper bound (too small: CT_ERR_SHAPE);
 * rows past the last segment and padding rows are left untouched. */
CT_API ct_status ct_dist_all_to_all_v_2d(ct_dist *g, const ct_tensor *in,
                                         const ct_tensor *in_splits, ct_tensor *out,
                                         ct_tensor *out_splits_offsets, int64_t major_align);
/* MoE combine: the inverse of dispatch. in: expert-major rows as dispatch wrote them,
 * in_splits_offsets: dispatch's out_splits_offsets; out receives the rows rank-major as dispatch
 * read them, out_splits (int64 [size * E]) their group counts (dispatch's in_splits). */
CT_API ct_status ct_dist_all_to_all_v_2d_combine(ct_dist *g, const ct_tensor *in,
                                                 const ct_tensor *in_splits_offsets, ct_tensor *out,
                                                 ct_tensor *out_splits);
/* Returns once every rank of g has entered it. */
CT_API ct_status ct_dist_barrier(ct_dist *g);
/* Free a group (the world group's free finalizes MPI if ct_dist_init started it, unless the group
 * broke on a timeout: then MPI is left as it is and the process should exit). */
CT_API void ct_dist_free(ct_dist *g);

/* ---- differentiable collectives (torch.distributed.nn): out is a new tensor; when an input
 * requires grad (and grad mode is on) a tape node is recorded whose backward is the adjoint
 * collective: all_reduce -> all_reduce of the gradient (MAX / MIN: to the ranks holding the
 * extreme, PROD: times out / in), broadcast -> the gradients summed on the root, all_gather <->
 * reduce_scatter, all_to_all_v -> the reverse all_to_all_v, all_to_all_v_2d -> its combine. Every
 * rank must run backward through the same collectives (they run even where no gradient is
 * needed); the group must outlive the graph. ---- */
CT_API ct_status ct_dist_nn_all_reduce(ct_dist *g, const ct_tensor *in, ct_reduce_op op,
                                       ct_tensor **out);
/* out = root's in on every rank; backward sums the gradients at the root (zeros elsewhere). */
CT_API ct_status ct_dist_nn_broadcast(ct_dist *g, const ct_tensor *in, int root, ct_tensor **out);
/* out dim 0 = size * in dim 0 (a 0-d in gathers into [size]); backward: reduce_scatter SUM. */
CT_API ct_status ct_dist_nn_all_gather(ct_dist *g, const ct_tensor *in, ct_tensor **out);
/* out dim 0 = in dim 0 / size; backward: all_gather (AVG: divided by size). */
CT_API ct_status ct_dist_nn_reduce_scatter(ct_dist *g, const ct_tensor *in, ct_reduce_op op,
                                           ct_tensor **out);
/* As ct_dist_all_to_all_v with out allocated (sum(out_splits) rows); backward: the reverse. */
CT_API ct_status ct_dist_nn_all_to_all_v(ct_dist *g, const ct_tensor *in, const int64_t *in_splits,
                                         const int64_t *out_splits, ct_tensor **out);
/* As ct_dist_all_to_all_v_2d with out [out_rows, ...] (zeros) and out_splits_offsets allocated;
 * backward: the combine (padding rows get no gradient; first order only). */
CT_API ct_status ct_dist_nn_all_to_all_v_2d(ct_dist *g, const ct_tensor *in,
                                            const ct_tensor *in_splits, int64_t out_rows,
                                            int64_t major_align, ct_tensor **out,
                                            ct_tensor **out_splits_offsets);

/* ---- symmetric memory: a buffer of the same size on every rank of a group, addressable by all:
 * an MPI shared-memory window among the ranks of one node, one-sided MPI RMA otherwise. Each
 * buffer also has CT_SYMM_SIGNALS 64-bit signal slots per rank. ---- */
#define CT_SYMM_SIGNALS 64
typedef struct ct_symm_buf ct_symm_buf;
/* Collective: nbytes (same on every rank, may be 0) of zeroed symmetric memory, 64-byte aligned. */
CT_API ct_status ct_symm_alloc(ct_dist *g, size_t nbytes, ct_symm_buf **out);
/* This rank's part of b. */
CT_API void *ct_symm_ptr(const ct_symm_buf *b);
/* Size in bytes of each rank's part of b. */
CT_API size_t ct_symm_size(const ct_symm_buf *b);
/* rank's part of b mapped into this process (node-local groups), NULL otherwise. */
CT_API void *ct_symm_peer_ptr(const ct_symm_buf *b, int rank);
/* A tensor viewing this rank's part of b at byte offset (contiguous; b must outlive it). The
 * collectives recognise such tensors and read peers' buffers directly (one copy). */
CT_API ct_status ct_symm_tensor(const ct_symm_buf *b, size_t offset, ct_dtype dtype, int ndim,
                                const int64_t *shape, ct_tensor **out);
/* Copy n bytes from src into peer's part of b at dst_offset (complete on return). */
CT_API ct_status ct_symm_put(ct_symm_buf *b, int peer, size_t dst_offset, const void *src,
                             size_t n);
/* Copy n bytes of peer's part of b at src_offset into dst. */
CT_API ct_status ct_symm_get(ct_symm_buf *b, int peer, size_t src_offset, void *dst, size_t n);
/* Set peer's signal slot to value, ordered after this rank's earlier puts to peer. */
CT_API ct_status ct_symm_signal(ct_symm_buf *b, int peer, int slot, uint64_t value);
/* Wait until this rank's signal slot is >= value (CT_ERR_TIMEOUT after the group's timeout). */
CT_API ct_status ct_symm_wait(ct_symm_buf *b, int slot, uint64_t value);
/* Collective: free b (NULL is a no-op). */
CT_API void ct_symm_free(ct_symm_buf *b);

#ifdef __cplusplus
}
#endif

#endif

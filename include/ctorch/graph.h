/* ctorch graph capture and replay (device-agnostic, like torch.accelerator.Graph / CUDA graphs).
 *
 * While a stream captures, ops submitted to it are recorded, not executed; tensors created during
 * capture come from the graph's memory pool and keep their addresses, so a replay re-runs the
 * recorded work on the same memory. Feed new inputs by copying into the captured input tensors
 * (ct_tensor_copy_ outside capture, or writing through ct_tensor_data_ptr) and read the captured
 * outputs after replay. Each backend plugs in through a versioned ct_graph_impl table.
 * Ownership: ct_graph_create gives an owned graph (ct_graph_free; NULL is a no-op). The graph keeps
 * every tensor it recorded alive until reset/free. Pools are refcounted and shared between graphs
 * through ct_graph_options.pool.
 * Thread-safety: as the owning ct_ctx.
 * NULL: calls taking a graph return CT_ERR_INVALID_ARG for g == NULL (pool_of: NULL, num_nodes: 0,
 * stream_is_capturing: false, free: no-op).
 * Failures: ANY call that fails on the context while a graph captures (an op's error, out of
 * memory for an output block from the pool, a view, ct_cond's temporaries, a host read) invalidates
 * the capture with that call's message as the reason; capture_end then returns that status with
 * "capture_end: the capture was invalidated: <reason>". */
#ifndef CTORCH_GRAPH_H
#define CTORCH_GRAPH_H

#include "ctorch/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_graph ct_graph;
typedef struct ct_graph_pool ct_graph_pool;

/* What is an error while capturing (CUDA's cudaStreamCaptureMode). DEFAULT = GLOBAL: host reads
 * of any tensor and work on other streams of the device invalidate the capture. THREAD_LOCAL: the
 * same (a context is single-threaded). RELAXED: host reads are allowed (they see memory that the
 * capture has not computed) and other streams run eagerly outside the graph. */
typedef enum ct_capture_error_mode {
    CT_CAPTURE_DEFAULT = 0,
    CT_CAPTURE_GLOBAL,
    CT_CAPTURE_THREAD_LOCAL,
    CT_CAPTURE_RELAXED
} ct_capture_error_mode;

typedef struct ct_graph_options {
    size_t size;         /* sizeof(ct_graph_options) */
    bool keep_graph;     /* defer instantiation to ct_graph_instantiate / the first replay */
    ct_graph_pool *pool; /* share another graph's pool (NULL: a new private pool) */
    ct_capture_error_mode capture_error_mode;
} ct_graph_options;

/* A graph for `device` (opts may be NULL). CT_ERR_UNSUPPORTED if the device's backend has no graph
 * implementation ("graph capture is not supported on device type X"). */
CT_API ct_status ct_graph_create(ct_ctx *ctx, ct_device device, const ct_graph_options *opts,
                                 ct_graph **out);
/* Start recording ops submitted to `stream` (NULL: the device's default stream); the stream
 * becomes the device's current stream until capture ends. CT_ERR_STATE if the stream or graph is
 * already capturing or the graph holds a capture (reset it first). */
CT_API ct_status ct_graph_capture_begin(ct_graph *g, ct_stream *stream);
/* Stop recording. Returns the capture's first error if one invalidated it (the graph must then be
 * reset). Instantiates at once unless keep_graph was set. */
CT_API ct_status ct_graph_capture_end(ct_graph *g);
/* Compile the capture into the backend's executable form (CPU: a flat instruction array). */
CT_API ct_status ct_graph_instantiate(ct_graph *g);
/* Run the recorded work again (instantiating first if needed). */
CT_API ct_status ct_graph_replay(ct_graph *g);
/* Drop the capture (and the tensors it kept alive) so the graph can capture again. */
CT_API ct_status ct_graph_reset(ct_graph *g);
/* The graph's memory pool (borrowed; pass it in ct_graph_options.pool to share it). */
CT_API ct_graph_pool *ct_graph_pool_of(ct_graph *g);
/* Write a readable text dump of the captured nodes to `path`. */
CT_API ct_status ct_graph_debug_dump(ct_graph *g, const char *path);
/* Free a graph (NULL is a no-op). Must not be capturing. */
CT_API void ct_graph_free(ct_graph *g);
/* Number of recorded op nodes (conditional branches included); 0 for NULL. */
CT_API int64_t ct_graph_num_nodes(const ct_graph *g);
/* True while a graph captures on the stream. */
CT_API bool ct_stream_is_capturing(const ct_stream *s);

/* What instantiation did with the capture's memory and elementwise chains (ct_graph_mem_stats). */
typedef struct ct_graph_mem_stats {
    size_t size;             /* sizeof(ct_graph_mem_stats), set by the caller */
    int64_t private_buffers; /* pool buffers only the graph reaches (its intermediates) */
    int64_t private_bytes;   /* their bytes: the pool's footprint without planning */
    int64_t fused_bytes;     /* of those, bytes never written: kept in registers/L1 tiles */
    int64_t planned_bytes;   /* the shared arena the movable rest now lives in */
    int64_t pinned_bytes;    /* private bytes left in place (state carried across replays) */
    int64_t fused_chains;    /* elementwise chains run as one pass */
    int64_t fused_ops;       /* ops inside those chains */
} ct_graph_mem_stats;
/* Statistics of the last instantiation (instantiating first if needed); the pool's footprint is
 * planned_bytes + pinned_bytes instead of private_bytes. Zeros for a backend without planning. */
CT_API ct_status ct_graph_mem_stats_get(ct_graph *g, ct_graph_mem_stats *out);

/* A branch of ct_cond: reads the operands, creates n_outputs new tensors in outputs[]. */
typedef ct_status (*ct_cond_fn)(ct_ctx *ctx, void *user_data, int n_operands,
                                ct_tensor *const *operands, int n_outputs, ct_tensor **outputs);
/* Data-dependent branch (torch.cond). Eager: reads pred (one element, nonzero = true) and runs one
 * branch. Under capture: captures both branches as subgraphs and records a conditional node; replay
 * reads pred from device memory and runs only the chosen branch. Both branches must produce
 * outputs of identical shapes and dtypes (else CT_ERR_SHAPE naming the mismatch). Nests.
 * NULL pred/branches/arrays, negative counts or n_outputs > 2^24: CT_ERR_INVALID_ARG. */
CT_API ct_status ct_cond(ct_ctx *ctx, const ct_tensor *pred, ct_cond_fn true_fn,
                         ct_cond_fn false_fn, void *user_data, int n_operands,
                         ct_tensor *const *operands, int n_outputs, ct_tensor **outputs);

/* ct_while_loop's condition: reads the carried values, creates pred (a new one-element tensor;
 * nonzero = run the body again). */
typedef ct_status (*ct_loop_cond_fn)(ct_ctx *ctx, void *user, int n, ct_tensor *const *carried,
                                     ct_tensor **pred);
/* ct_while_loop's body: reads the carried values, creates the n next ones (new tensors of the
 * same shapes and dtypes). */
typedef ct_status (*ct_loop_body_fn)(ct_ctx *ctx, void *user, int n, ct_tensor *const *carried,
                                     ct_tensor **next);
/* torch._higher_order_ops.while_loop: while cond(carried) { carried = body(carried) }, then
 * carried_out[i] are new references to the final values (the inputs themselves after zero
 * iterations, eagerly). Under capture: records a loop node (condition ops, a test of pred, body
 * ops, a jump back) into fixed carried buffers, so replay loops inside the graph without returning
 * to the caller. A body changing a shape or dtype, or a pred that is not one element:
 * CT_ERR_SHAPE naming the value. Nests with ct_cond and itself. */
CT_API ct_status ct_while_loop(ct_ctx *ctx, ct_loop_cond_fn cond, ct_loop_body_fn body, void *user,
                               int n_carried, ct_tensor *const *carried_in,
                               ct_tensor **carried_out);

/* ---- events (torch.Event) ---- */
typedef struct ct_event ct_event;
/* An event of a device; enable_timing allows ct_event_elapsed_ms. Free with ct_event_free. */
CT_API ct_status ct_event_create(ct_ctx *ctx, ct_device device, bool enable_timing, ct_event **out);
/* Record on stream s (NULL: the device's current stream). Eager: marks the time when the stream's
 * work so far is done. During capture: marks a point of the graph (fork/join, docs/graphs.md). */
CT_API ct_status ct_event_record(ct_event *e, ct_stream *s);
/* Make stream s (NULL: current) wait for e. A stream that waits on an event recorded in a capture
 * joins the capture (fork); the capturing stream waiting on an event recorded on a forked stream
 * joins it back. CT_ERR_STATE for an event of a capture that has ended. */
CT_API ct_status ct_event_wait(ct_event *e, ct_stream *s);
/* Wait until the recorded work is done; CT_ERR_STATE for an event recorded during capture. */
CT_API ct_status ct_event_synchronize(ct_event *e);
/* *done = whether the recorded work is complete (false only for an event recorded in capture). */
CT_API ct_status ct_event_query(const ct_event *e, bool *done);
/* Milliseconds from start to end (both recorded eagerly with enable_timing, else CT_ERR_STATE). */
CT_API ct_status ct_event_elapsed_ms(const ct_event *start, const ct_event *end, double *ms);
/* Free an event (NULL is a no-op). */
CT_API void ct_event_free(ct_event *e);

/* ---- backend side: the graph implementation a backend exposes in ct_backend_vtable.graph_impl
 * ---- */
#define CT_GRAPH_IMPL_ABI_VERSION 1u

/* A graph-private buffer handed to ct_graph_impl.instantiate_planned. */
typedef struct ct_graph_buffer {
    void *data;   /* device address of the buffer's first byte */
    size_t bytes; /* its size */
    bool moved;   /* set by the backend: the recorded address is no longer used */
} ct_graph_buffer;

typedef struct ct_graph_impl {
    size_t size;          /* sizeof(ct_graph_impl) */
    uint32_t abi_version; /* CT_GRAPH_IMPL_ABI_VERSION */
    /* Per-graph state. */
    ct_status (*create)(void *backend_state, void **gstate);
    void (*destroy)(void *gstate);
    ct_status (*capture_begin)(void *gstate);
    /* Append one resolved op to the current node list (the op's memory stays valid). */
    ct_status (*record)(void *gstate, const ct_op_desc *op);
    /* Append a conditional node reading `pred` at replay; records then go to its branches. */
    ct_status (*add_conditional)(void *gstate, const ct_operand *pred);
    /* Direct further records to branch 1 (true) or 0 (false) of the innermost open conditional. */
    ct_status (*cond_branch)(void *gstate, int branch);
    /* Close the innermost conditional; records go to the enclosing list again. */
    ct_status (*cond_end)(void *gstate);
    ct_status (*capture_end)(void *gstate);
    ct_status (*instantiate)(void *gstate);
    ct_status (*replay)(void *gstate);
    ct_status (*reset)(void *gstate);
    /* Write a readable dump to path. */
    ct_status (*debug_dump)(void *gstate, const char *path);
    /* Node count (ops, counting both branches of conditionals). */
    int64_t (*num_nodes)(void *gstate);
    /* Optional (appended; NULL or a smaller size: captured ct_while_loop is CT_ERR_UNSUPPORTED).
     * Open a loop node: records go to its condition list. */
    ct_status (*loop_begin)(void *gstate);
    /* The condition's predicate is known: records go to the body list. */
    ct_status (*loop_body)(void *gstate, const ct_operand *pred);
    /* Close the innermost loop (replay: condition, test pred, body, back to the condition). */
    ct_status (*loop_end)(void *gstate);
    /* Optional (appended; NULL or a smaller size: `instantiate` is called instead). Instantiate
     * knowing the graph-private buffers: device memory that only this graph's recorded ops reach
     * (taken from the graph's pool during this capture, no handle to it left outside the graph).
     * The backend may keep such buffers out of memory (fused chains) or move them into memory of
     * its own shared by liveness; it sets bufs[i].moved for every buffer it no longer touches at
     * its recorded address (the front end then frees that memory) and fills *stats. */
    ct_status (*instantiate_planned)(void *gstate, ct_graph_buffer *bufs, int64_t nbufs,
                                     ct_graph_mem_stats *stats);
} ct_graph_impl;

#ifdef __cplusplus
}
#endif
#endif

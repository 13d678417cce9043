/* Private layout of ct_ctx and ct_stream, shared by core/, backend/ and ops/. */
#ifndef CTORCH_CTX_IMPL_H
#define CTORCH_CTX_IMPL_H

#include "core/internal.h"
#include "ctorch/io.h"

#define CT__MAX_BACKENDS 16

/* Autograd hooks (core/autograd_hook.h), installed by src/autograd/ on first use. */
typedef struct ct__ag_hooks ct__ag_hooks;

/* An active graph capture, as the lower layers see it (the graph module fills the callbacks, so
 * tensor/ and backend/ never include graph/). */
typedef struct ct__capture ct__capture;
struct ct__capture {
    ct_status (*record)(ct__capture *c, const ct_op_desc *op);
    /* Memory from the capture's pool: host blocks (CPU tensors: header + data) and device data. */
    void *(*pool_alloc_host)(ct__capture *c, size_t nbytes);
    ct_status (*pool_alloc_dev)(ct__capture *c, size_t nbytes, void **ptr);
    void *pool; /* refcounted pool handle kept by storages it served */
    void (*pool_ref)(void *pool);
    void (*pool_unref)(void *pool);
    /* Invalidate the capture with a first error (later errors keep the first). */
    void (*invalidate)(ct__capture *c, ct_status st, const char *msg);
    int mode;                 /* ct_capture_error_mode */
    struct ct_stream *stream; /* the capturing stream */
    /* A stream forked into this capture (ct_event_wait) is being freed: forget it. */
    void (*stream_gone)(ct__capture *c, struct ct_stream *s);
    /* Does the caller's one reference to t, and the capture's, account for every reference to t
     * and to every other tensor on its storage? (Then t's memory is the caller's to keep.) */
    bool (*sole_owner)(ct__capture *c, const struct ct_tensor *t);
};

struct ct_stream {
    ct_ctx *ctx;
    ct_device device;
    int slot; /* index into ctx->backends */
    bool owned_by_ctx;
    ct__capture *capture; /* non-NULL while a graph captures on this stream (or it was forked in) */
    uint64_t nsubmit;     /* ops submitted so far (events and fork/join bookkeeping) */
};

typedef struct ct__backend_slot {
    int device_type;
    ct_backend_vtable vt;
    ct_stream *default_stream;
    ct_stream *current;
    void *dl_handle;          /* from ct_backend_load, closed at ctx free */
    ct__capture *capture;     /* the device's active capture (one at a time), or NULL */
    ct_stream *saved_current; /* current stream before the capture began (restored at its end) */
} ct__backend_slot;

struct ct_ctx {
    ct_allocator allocator;
    ct_log_fn log_fn;
    void *log_user;
    ct_log_level log_level;
    int num_threads;
    ct__isa isa;
    int n_backends;
    int next_user_type;
    ct__backend_slot backends[CT__MAX_BACKENDS];
    bool cache_on;                       /* built-in allocator behind the caching allocator */
    bool portable_matmul;                /* options.portable_matmul: no BLAS for matmul */
    struct ct_caching_allocator *calloc; /* the caching allocator (core/calloc.h), if cache_on */
    /* Live tensor handles (every build): a doubly linked list through ct_tensor.live_prev/next, so
     * ct_ctx_free can report what the caller forgot to release. */
    struct ct_tensor *live_head;
    int64_t live_count;
    /* Debug mode (options.debug or CT_DEBUG=1): released tensor headers stay poisoned in a FIFO
     * quarantine (never reused) so a later use or a double release is reported at the misuse. */
    bool debug;
    struct ct_tensor *quar_head, *quar_tail;
    int64_t quar_count;
    /* Autograd: NULL until a tensor of this context requires grad; ag_depth counts nested op
     * front ends (only the outermost records); grad_off is no_grad mode (ct_set_grad_enabled). */
    const ct__ag_hooks *ag;
    int ag_depth;
    bool grad_off;
    uint64_t ag_seq;          /* tape nodes made so far: their sequence numbers (ct__ag_mark) */
    bool ag_anomaly;          /* ct_set_detect_anomaly: backward checks each formula for NaN */
    int64_t ag_hook_id;       /* ids handed out by ct_tensor_register_hook */
    int ag_running;           /* backward passes running (hooks and custom backwards run in
                                 them; a checkpoint's recomputation nests one) */
    bool ag_nest_ok;          /* the next backward may nest (ct_checkpoint's inner pass) */
    bool ag_outer_accumulate; /* the outermost pass accumulates into .grad (ct_backward) */
    uint64_t ag_pass_seq;     /* backward passes started: each stamps the nodes it claims */
    /* printing (io/print.c): print_set false means torch's defaults */
    bool print_set;
    ct_print_options print_opts;
    char err[512];
};

#endif

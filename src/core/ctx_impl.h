/* Private layout of ct_ctx and ct_stream, shared by core/, backend/ and ops/. */
#ifndef CTORCH_CTX_IMPL_H
#define CTORCH_CTX_IMPL_H

#include "core/internal.h"

#define CT__MAX_BACKENDS 16

struct ct_stream {
    ct_ctx *ctx;
    ct_device device;
    int slot;            /* index into ctx->backends */
    bool owned_by_ctx;
    void *capture;       /* non-NULL while a graph captures on this stream */
};

typedef struct ct__backend_slot {
    int device_type;
    ct_backend_vtable vt;
    ct_stream *default_stream;
    ct_stream *current;
    void *dl_handle;     /* from ct_backend_load, closed at ctx free */
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
    char err[512];
};

/* Backend slot of a device type, or NULL (with an error recorded) if none is registered. */
ct__backend_slot *ct__backend_for(ct_ctx *ctx, ct_device dev);
/* Register the built-in CPU backend (called by ct_ctx_create). */
ct_status ct__cpu_backend_register(ct_ctx *ctx);

#endif

/* ctorch core: status codes, the context (errors, allocator hooks, threads, logging), version.
 *
 * Ownership: ct_ctx_create gives an owned context, freed with ct_ctx_free (NULL is a no-op).
 * Thread-safety: a ct_ctx is not thread-safe; use one context per thread or lock around it.
 * Functions without a context (ct_status_str, ct_version) are thread-safe. */
#ifndef CTORCH_CORE_H
#define CTORCH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define CT_API
#else
#define CT_API __attribute__((visibility("default")))
#endif

#define CT_VERSION_MAJOR 0
#define CT_VERSION_MINOR 1
#define CT_VERSION_PATCH 0

/* X-macro list of status codes: name, value, description. */
#define CT_STATUS_LIST(X)                                                                          \
    X(CT_OK, 0, "ok")                                                                              \
    X(CT_ERR_INVALID_ARG, 1, "invalid argument")                                                   \
    X(CT_ERR_SHAPE, 2, "shape mismatch")                                                           \
    X(CT_ERR_DTYPE, 3, "unsupported or mismatched dtype")                                          \
    X(CT_ERR_OOM, 4, "out of memory")                                                              \
    X(CT_ERR_UNSUPPORTED, 5, "unsupported operation")                                              \
    X(CT_ERR_FORMAT, 6, "malformed data or file")                                                  \
    X(CT_ERR_IO, 7, "input/output error")                                                          \
    X(CT_ERR_STATE, 8, "invalid state for this call")                                              \
    X(CT_ERR_DEVICE, 9, "device or backend error")                                                 \
    X(CT_ERR_OVERFLOW, 10, "size arithmetic overflow")                                             \
    X(CT_ERR_INDEX, 11, "index out of range")                                                      \
    X(CT_ERR_TIMEOUT, 12, "timed out (a peer did not answer in time, or a step limit was hit)")

typedef enum ct_status {
#define CT__STATUS_ENUM(name, value, desc) name = value,
    CT_STATUS_LIST(CT__STATUS_ENUM)
#undef CT__STATUS_ENUM
} ct_status;

/* Short constant description of a status ("shape mismatch"); "unknown status" for other values. */
CT_API const char *ct_status_str(ct_status s);

/* Version string "MAJOR.MINOR.PATCH" of the linked library. */
CT_API const char *ct_version(void);

typedef enum ct_log_level { CT_LOG_DEBUG = 0, CT_LOG_INFO, CT_LOG_WARN, CT_LOG_ERROR } ct_log_level;

/* Allocator hooks: all host memory the context allocates goes through them. `align` is a power of
 * two >= 16. Return NULL on failure (the call then fails with CT_ERR_OOM). */
typedef struct ct_allocator {
    void *(*alloc)(void *user, size_t nbytes, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} ct_allocator;

typedef void (*ct_log_fn)(void *user, ct_log_level level, const char *msg);

/* Context options; set `size = sizeof(ct_ctx_options)`. Zeroed fields mean defaults. */
typedef struct ct_ctx_options {
    size_t size;
    int num_threads;        /* 0 = all cores (OpenMP default); at most CT_MAX_THREADS */
    ct_allocator allocator; /* alloc == NULL: the built-in aligned allocator */
    ct_log_fn log_fn;       /* NULL: no logging */
    void *log_user;
    ct_log_level log_level; /* messages below this level are dropped */
    const char
        *cpu_isa;  /* "ref", "avx2", "avx512" (any case) or NULL (env CT_CPU_ISA, then best) */
    bool no_cache; /* true: no caching allocator (every block goes back at once) */
    /* true (or env CT_DEBUG=1): debug mode. Released tensor handles are poisoned and kept (up to
     * 65536, never reused), so using one or releasing it twice fails at the misuse with
     * CT_ERR_INVALID_ARG (retain/release: logged at CT_LOG_ERROR and ignored); the block cache is
     * off so AddressSanitizer sees every freed block. Slower and uses more memory. */
    bool debug;
    /* The caching allocator's configuration, as env CT_ALLOC_CONF (which it overrides):
     * "expandable_segments:True,max_split_size_mb:N,memory_limit_mb:N" (ctorch/memory.h) */
    const char *alloc_conf;
    /* true: dense f32/f64 matmul through ctorch's portable kernel instead of OpenBLAS (slower;
     * the results are bit-identical to the embedded runtime's, libctorch_rt has no BLAS) */
    bool portable_matmul;
} ct_ctx_options;

typedef struct ct_ctx ct_ctx;

/* Largest accepted ct_ctx_options.num_threads. */
#define CT_MAX_THREADS 1024

/* Create a context. opts may be NULL (defaults). Fails with CT_ERR_UNSUPPORTED if a forced ISA is
 * not available on this CPU (no silent fallback), CT_ERR_INVALID_ARG for bad options, CT_ERR_OOM.
 * There is no context to hold the reason of a failure: use ct_ctx_create_ex to get it. */
CT_API ct_status ct_ctx_create(const ct_ctx_options *opts, ct_ctx **out);
/* ct_ctx_create that also writes the reason of a failure ("" on success) into msg (NUL-terminated,
 * truncated to msg_size; msg may be NULL). Thread-safe: nothing is kept outside the buffer. */
CT_API ct_status ct_ctx_create_ex(const ct_ctx_options *opts, ct_ctx **out, char *msg,
                                  size_t msg_size);
/* Free a context (NULL is a no-op). All tensors created with it must be released first: tensors
 * still alive are reported through the log callback (CT_LOG_ERROR: count and the first shapes)
 * and are leaked; they must not be used or released afterwards. */
CT_API void ct_ctx_free(ct_ctx *ctx);
/* Detailed message of the last failed call on this context ("" if none; "no context" for NULL).
 * Valid until the next call. */
CT_API const char *ct_ctx_last_error(const ct_ctx *ctx);
/* Set ctx's last error message (printf format) and return status: for user callbacks (gradient
 * hooks, custom functions, autograd functions) that fail, so the caller sees why. A failing status
 * invalidates a capture in progress, as any failed op's. */
CT_API ct_status ct_ctx_set_error(ct_ctx *ctx, ct_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Name of the CPU kernel ISA this context uses: "ref", "avx2" or "avx512" ("" for NULL). */
CT_API const char *ct_ctx_cpu_isa(const ct_ctx *ctx);
/* Number of threads the context's kernels use (0 for NULL). */
CT_API int ct_ctx_num_threads(const ct_ctx *ctx);
/* True if the context runs in debug mode (ct_ctx_options.debug or CT_DEBUG=1); false for NULL. */
CT_API bool ct_ctx_debug(const ct_ctx *ctx);
/* Number of tensor handles of this context not yet released (views count; 0 for NULL). */
CT_API int64_t ct_ctx_live_tensors(const ct_ctx *ctx);
/* Return the caching allocator's free segments to the OS (as ct_empty_cache, ctorch/memory.h;
 * custom allocator hooks bypass the caching allocator). */
CT_API void ct_ctx_empty_cache(ct_ctx *ctx);
/* Bytes the caching allocator holds reserved but free (reserved - allocated; 0 for NULL or a
 * context without it). */
CT_API size_t ct_ctx_cached_bytes(const ct_ctx *ctx);

/* Best ISA the running CPU supports ("ref", "avx2", "avx512"), from cpuid, capped by the
 * environment variable CT_CPU_ISA_MAX (read once; lets tests act as a lesser CPU). */
CT_API const char *ct_cpu_best_isa(void);
/* True if the running CPU (as capped by CT_CPU_ISA_MAX) supports the named ISA (case-insensitive;
 * "ref" always; NULL or unknown names: false). */
CT_API bool ct_cpu_isa_supported(const char *isa);
/* Name of the BLAS library linked for dense matmul (e.g. "OpenBLAS 0.3.21"). */
CT_API const char *ct_blas_info(void);

#ifdef __cplusplus
}
#endif
#endif

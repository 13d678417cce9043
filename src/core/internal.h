/* Internal core helpers shared by every module: error reporting, allocation through the context's
 * allocator, checked size arithmetic, ISA selection. Not installed. */
#ifndef CTORCH_CORE_INTERNAL_H
#define CTORCH_CORE_INTERNAL_H

#include "ctorch/backend.h"
#include "ctorch/core.h"

#include <assert.h>

#define CT_ASSERT(cond) assert(cond)
/* Run call only while st is CT_OK, keeping its status (sticky-error step sequences). */
#define CT__DO(st, call)                                                                           \
    do {                                                                                           \
        if ((st) == CT_OK) (st) = (call);                                                          \
    } while (0)

typedef enum ct__isa { CT__ISA_REF = 0, CT__ISA_AVX2 = 1, CT__ISA_AVX512 = 2 } ct__isa;

/* Record `st` with a printf-style message on ctx (NULL ctx is ignored) and return st. A failure
 * while a graph captures also invalidates that capture, with this message as the reason. */
ct_status ct__set_error(ct_ctx *ctx, ct_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ct__set_error that leaves an active capture alone: for the graph API's own refusals (a second
 * capture_begin, replay during capture, ...), which are not failures of the captured work. */
ct_status ct__set_error_keep_capture(ct_ctx *ctx, ct_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* For a public op made of other public ops: a failure st keeps its status and its message gets
 * the op's name in front ("mse_loss: sub: shapes ... do not broadcast") unless the message already
 * starts with "op:"; CT_OK passes through. */
ct_status ct__error_within(ct_ctx *ctx, const char *op, ct_status st);
/* Clear the last error (done at the start of public calls that may fail). */
void ct__clear_error(ct_ctx *ctx);
/* Log through the user's callback if the level passes the filter. */
void ct__log(ct_ctx *ctx, ct_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Host allocation through the context's hooks; align is a power of two (>= 16). NULL on failure. */
void *ct__alloc(ct_ctx *ctx, size_t nbytes, size_t align);
void ct__free(ct_ctx *ctx, void *p);
/* Grow the array *arr of *cap elements of elem bytes (doubling, from 16) to hold need; false
 * (the array unchanged) when memory runs out. */
bool ct__grow_array(ct_ctx *ctx, void **arr, size_t *cap, size_t need, size_t elem);

ct__isa ct__ctx_isa(const ct_ctx *ctx);
/* Best ISA of this CPU (probed once), its name, and parsing a name (-1 if unknown). */
ct__isa ct__cpu_best(void);
/* AVX512_VBMI usable (AVX-512 level, the CPU has it, CT_CPU_VBMI is not "0"). */
bool ct__cpu_has_vbmi(void);
const char *ct__isa_name(ct__isa isa);
int ct__isa_parse(const char *s);
int ct__ctx_threads(const ct_ctx *ctx);

/* Checked arithmetic: *out = a op b; return false (and leave *out unspecified) on overflow. */
static inline bool ct__checked_mul(int64_t a, int64_t b, int64_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool ct__checked_add(int64_t a, int64_t b, int64_t *out) {
    return !__builtin_add_overflow(a, b, out);
}

#endif

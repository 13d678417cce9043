/* Shared by the bench programs (bench/<name>.c): a monotonic clock in seconds and a status check that names
 * the failed call and the context's message, then exits (benchmarks are programs, not library). */
#ifndef CTORCH_BENCH_UTIL_H
#define CTORCH_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Exit with a message when call does not return CT_OK (`what`: "bench ops", ...). */
#define BENCH_CHECK(what, ctx, call)                                                               \
    do {                                                                                           \
        if ((call) != CT_OK) {                                                                     \
            fprintf(stderr, "%s: %s failed: %s\n", what, #call, ct_ctx_last_error(ctx));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif

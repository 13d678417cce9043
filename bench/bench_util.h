/* Shared by the bench programs (bench/<name>.c): a monotonic clock in seconds and a status check
 * that names the failed call and the context's message, then exits (benchmarks are programs, not
 * library). */
#ifndef CTORCH_BENCH_UTIL_H
#define CTORCH_BENCH_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Strict integer argument: all of s a decimal number in [lo, hi], else a message naming the
 * argument and exit 2 ("3x", "1e3", "abc" are errors). */
static inline int64_t bench_arg_i64(const char *prog, const char *name, const char *s, int64_t lo,
                                    int64_t hi) {
    char *end = NULL;
    errno = 0;
    const long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || end == s || *end != '\0' || errno != 0 || v < lo || v > hi) {
        fprintf(stderr, "%s: %s must be an integer in [%lld, %lld], got '%s'\n", prog, name,
                (long long)lo, (long long)hi, s ? s : "");
        exit(2);
    }
    return (int64_t)v;
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

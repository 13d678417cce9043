/* Tiny test harness shared by every tests/test_*.c: CHECK macros, counters, a final
 * "N passed, N failed" line. Usage: TEST(name) { ... } and in main: RUN(name); return
 * ct_test_end(); */
#ifndef CTORCH_TEST_HARNESS_H
#define CTORCH_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ct_t_passed, ct_t_failed, ct_t_cur_failed;
static const char *ct_t_cur_name;

#define TEST(name) static void name(void)
#define RUN(name)                                                                                  \
    do {                                                                                           \
        ct_t_cur_name = #name;                                                                     \
        ct_t_cur_failed = 0;                                                                       \
        name();                                                                                    \
        if (ct_t_cur_failed) {                                                                     \
            ct_t_failed++;                                                                         \
            printf("FAIL %s\n", #name);                                                            \
        } else {                                                                                   \
            ct_t_passed++;                                                                         \
            printf("ok   %s\n", #name);                                                            \
        }                                                                                          \
        ct_t_cur_failed = 0; /* counted: later checks outside a test count on their own */         \
        fflush(stdout);                                                                            \
    } while (0)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                      \
            ct_t_cur_failed = 1;                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("  %s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);                      \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            ct_t_cur_failed = 1;                                                                   \
        }                                                                                          \
    } while (0)

/* Expect a ct_status value. */
#define CHECK_ST(expr, want)                                                                       \
    do {                                                                                           \
        int ct_t_st_ = (int)(expr);                                                                \
        if (ct_t_st_ != (int)(want)) {                                                             \
            printf("  %s:%d: %s returned %d, want %d\n", __FILE__, __LINE__, #expr, ct_t_st_,      \
                   (int)(want));                                                                   \
            ct_t_cur_failed = 1;                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_OK(expr) CHECK_ST(expr, 0)

/* |a-b| <= atol + rtol*|b|, NaN equals NaN. */
static inline int ct_t_close(double a, double b, double rtol, double atol) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b)) return a == b;
    return fabs(a - b) <= atol + rtol * fabs(b);
}

static inline int ct_test_end(void) {
    if (ct_t_cur_failed) { /* a CHECK in main (setup, or the live-tensor count at exit) */
        ct_t_failed++;
        printf("FAIL checks outside the tests (main)\n");
    }
    printf("%d passed, %d failed\n", ct_t_passed, ct_t_failed);
    return ct_t_failed ? 1 : 0;
}

/* Small deterministic PRNG for test data (xorshift64*). */
static inline unsigned long long ct_t_rng_next(unsigned long long *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}
static inline double ct_t_uniform(unsigned long long *s) {
    return (double)(ct_t_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

#endif

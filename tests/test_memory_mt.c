/* The caching allocator under threads: four threads allocate and free random sizes (512 B to
 * 4 MiB, both pools, hot lists and splits) from one allocator, each writing its own pattern over
 * its blocks and checking it before the free, so two live blocks that overlapped would be seen;
 * afterwards nothing is allocated and empty_cache returns everything. Classic and expandable.
 * Built twice: with the library (and the suite's sanitizers) and, as test_memory_tsan, from this
 * file and src/core/calloc.c alone under ThreadSanitizer. Needs only core/calloc.h. */
#include "harness.h"

#include "core/calloc.h"

#include <pthread.h>
#include <stdint.h>

#define NT 4
#define LIVE 48
#define ITERS 20000

static ct__calloc *A;

static uint64_t next(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static void *worker(void *arg) {
    const uintptr_t id = (uintptr_t)arg;
    uint64_t rng = 1234 + id * 977;
    unsigned char *live[LIVE] = {0};
    size_t len[LIVE] = {0};
    long bad = 0;
    for (int it = 0; it < ITERS; it++) {
        const int k = (int)(next(&rng) % LIVE);
        if (live[k]) { /* check the pattern at both ends and the middle, then free */
            const unsigned char want = (unsigned char)(id * 31 + k);
            bad += live[k][0] != want || live[k][len[k] - 1] != want || live[k][len[k] / 2] != want;
            ct__calloc_free(A, live[k]);
            live[k] = NULL;
            continue;
        }
        const uint64_t r = next(&rng);
        size_t n = r % 8 == 0 ? (size_t)(1 << 20) + next(&rng) % (3u << 20) /* large pool */
                              : 512 + next(&rng) % 20000;
        live[k] = ct__calloc_alloc(A, n);
        if (!live[k]) {
            bad++;
            continue;
        }
        len[k] = n;
        const unsigned char v = (unsigned char)(id * 31 + k);
        live[k][0] = live[k][n - 1] = live[k][n / 2] = v;
    }
    for (int k = 0; k < LIVE; k++)
        ct__calloc_free(A, live[k]);
    return (void *)bad;
}

static void run(bool expandable) {
    ct__calloc_conf c = {expandable, 0, 0, false};
    A = ct__calloc_create(&ct__vm_ops_cpu, &c);
    pthread_t th[NT];
    for (uintptr_t i = 0; i < NT; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0);
    long bad = 0;
    for (int i = 0; i < NT; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        bad += (long)r;
    }
    CHECK_MSG(bad == 0, "%ld corrupted or failed blocks", bad);
    ct_mem_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    ct__calloc_stats(A, &s);
    CHECK(s.allocation[0].current == 0 && s.allocated_bytes[0].current == 0 &&
          s.requested_bytes[0].current == 0);
    CHECK(s.allocation[0].allocated == s.allocation[0].freed && s.allocation[0].allocated > 0);
    ct__calloc_empty(A);
    ct__calloc_stats(A, &s);
    CHECK_MSG(s.reserved_bytes[0].current == 0 && s.segment[0].current == 0 &&
                  s.inactive_split[0].current == 0,
              "reserved %lld segments %lld splits %lld after empty_cache",
              (long long)s.reserved_bytes[0].current, (long long)s.segment[0].current,
              (long long)s.inactive_split[0].current);
    ct__calloc_destroy(A);
}

TEST(threads_classic) { run(false); }
TEST(threads_expandable) { run(true); }

int main(void) {
    RUN(threads_classic);
    RUN(threads_expandable);
    return ct_test_end();
}

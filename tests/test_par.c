/* The kernels' parallel-for (src/backends/cpu/kernels/par.c): every unit runs exactly once across
 * many back-to-back jobs of every size, nested calls run inline, a context without threads runs
 * inline, and large ops give the same bits with 1 and 2 threads (chunking never changes results).
 */
#include "backends/cpu/kernels/par.h"
#include "test_util.h"

#include <stdlib.h>

static void *t_alloc(void *u, size_t n) {
    (void)u;
    return malloc(n);
}
static void t_free(void *u, void *p) {
    (void)u;
    free(p);
}

typedef struct {
    int *hits;
    int nested_inline; /* atomic: nested calls that covered their range */
} job_t;

static void mark(void *arg, int64_t b, int64_t e) {
    job_t *j = arg;
    for (int64_t i = b; i < e; i++)
        __atomic_add_fetch(&j->hits[i], 1, __ATOMIC_RELAXED);
}

static void nested_body(void *arg, int64_t b, int64_t e) {
    int *cnt = arg;
    __atomic_add_fetch(cnt, (int)(e - b), __ATOMIC_RELAXED);
}
static void outer(void *arg, int64_t b, int64_t e) {
    job_t *j = arg;
    mark(arg, b, e);
    int cnt = 0; /* a nested call runs inline: it has finished when it returns */
    ct_k_parallel_for(1000, 10, 2, nested_body, &cnt);
    if (cnt == 1000) __atomic_add_fetch(&j->nested_inline, 1, __ATOMIC_RELAXED);
}

TEST(every_unit_once) {
    ct_k_pool_slot slot = {.nthreads = 3, .alloc = t_alloc, .free_fn = t_free};
    ct_k_pool_slot *prev = ct_k_pool_enter(&slot);
    const int64_t sizes[] = {0, 1, 7, 33, 1023, 4096, 65537, 300001};
    int *hits = malloc(sizeof(int) * 300001);
    for (int rep = 0; rep < 200; rep++) {
        int64_t n = sizes[rep % 8];
        int64_t grain = 1 + rep % 97;
        memset(hits, 0, sizeof(int) * 300001);
        job_t j = {hits, 0};
        ct_k_parallel_for(n, grain, 3, mark, &j);
        int64_t bad = 0;
        for (int64_t i = 0; i < 300001; i++)
            bad += hits[i] != (i < n ? 1 : 0);
        CHECK_MSG(bad == 0, "n=%ld grain=%ld: %ld units run != once", (long)n, (long)grain,
                  (long)bad);
    }
    CHECK(slot.pool != NULL); /* large jobs made the helpers */
    /* nested calls run inline on the calling thread */
    memset(hits, 0, sizeof(int) * 300001);
    job_t j = {hits, 0};
    ct_k_parallel_for(64, 1, 3, outer, &j);
    CHECK(j.nested_inline > 0);
    int64_t bad = 0;
    for (int64_t i = 0; i < 64; i++)
        bad += hits[i] != 1;
    CHECK(bad == 0);
    ct_k_pool_leave(prev);
    ct_k_pool_slot_release(&slot);
    CHECK(slot.pool == NULL);
    /* no slot installed: inline */
    memset(hits, 0, sizeof(int) * 300001);
    j = (job_t){hits, 0};
    ct_k_parallel_for(100000, 10, 4, mark, &j);
    bad = 0;
    for (int64_t i = 0; i < 100000; i++)
        bad += hits[i] != 1;
    CHECK(bad == 0);
    free(hits);
}

/* Large elementwise ops, reductions and softmax give the same bits with 1 and 2 threads. */
TEST(threads_do_not_change_results) {
    ct_ctx_options o1 = {.size = sizeof o1, .num_threads = 1},
                   o2 = {.size = sizeof o2, .num_threads = 2};
    ct_ctx *c1, *c2;
    CHECK_OK(ct_ctx_create(&o1, &c1));
    CHECK_OK(ct_ctx_create(&o2, &c2));
    ct_ctx *cs[2] = {c1, c2};
    ct_tensor *x[2], *y[2], *r[2][7];
    int64_t shape[2] = {517, 1031};
    for (int c = 0; c < 2; c++) {
        CHECK_OK(ct_tensor_randn(cs[c], CT_FLOAT32, 2, shape, 11, 0, &x[c]));
        CHECK_OK(ct_tensor_randn(cs[c], CT_FLOAT32, 2, shape, 12, 0, &y[c]));
        int d0 = 0, d1 = 1;
        CHECK_OK(ct_add(cs[c], x[c], y[c], &r[c][0]));
        CHECK_OK(ct_exp(cs[c], x[c], &r[c][1]));
        CHECK_OK(ct_sum(cs[c], x[c], 1, &d0, false, &r[c][2]));
        CHECK_OK(ct_sum(cs[c], x[c], 1, &d1, false, &r[c][3]));
        CHECK_OK(ct_softmax(cs[c], x[c], 1, &r[c][4]));
        ct_tensor *xt;
        CHECK_OK(ct_tensor_transpose(cs[c], x[c], 0, 1, &xt));
        CHECK_OK(ct_mul(cs[c], xt, xt, &r[c][5])); /* strided */
        int64_t big[1] = {300007};
        CHECK_OK(ct_tensor_rand(cs[c], CT_FLOAT32, 1, big, 5, 3, &r[c][6]));
        ct_tensor_release(xt);
    }
    for (int k = 0; k < 7; k++) {
        int64_t n = ct_tensor_numel(r[0][k]);
        CHECK(n == ct_tensor_numel(r[1][k]));
        float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
        CHECK_OK(ct_tensor_to_host(r[0][k], a, sizeof(float) * (size_t)n));
        CHECK_OK(ct_tensor_to_host(r[1][k], b, sizeof(float) * (size_t)n));
        CHECK_MSG(memcmp(a, b, sizeof(float) * (size_t)n) == 0, "result %d differs", k);
        free(a), free(b);
    }
    for (int c = 0; c < 2; c++) {
        ct_tensor_release(x[c]), ct_tensor_release(y[c]);
        for (int k = 0; k < 7; k++)
            ct_tensor_release(r[c][k]);
        ct_ctx_free(cs[c]);
    }
}

int main(void) {
    RUN(every_unit_once);
    RUN(threads_do_not_change_results);
    return ct_test_end();
}

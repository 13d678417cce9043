/* The caching allocator against its baselines, measured in the same run:
 *  - fragmentation: a 50-layer model whose batch grows by one sample per step (each layer's
 *    activation of a step allocated before the previous step's is freed, and a temporary per
 *    layer), with classic and with expandable segments, unlimited and on a 4 GiB device, and the
 *    smallest device each completes on:
 *      bench alloc fragmentation layers=50 steps=S limit_mb=L classic_ok=0|1 expandable_ok=0|1
 *        classic_peak_reserved=B expandable_peak_reserved=B ... ratio=E/C
 *  - the latency of a cached alloc + free pair against glibc malloc + free of the same size:
 *      bench alloc pair size=S ns_per_pair=N glibc_ns=G ratio=G/N
 * Usage: bench_alloc */
#include "bench_util.h"
#include "core/calloc.h"

#include <stdint.h>
#include <string.h>

#define MiB ((size_t)1 << 20)
#define LAYERS 50

/* One run of the workload; *peak gets the peak reserved bytes, *retries the allocation retries.
 * Each step's activation of a layer is allocated before the previous step's one of that layer
 * is freed (the previous step's backward overlapping this forward), so both sizes live at once;
 * activations are batch x 512 KiB (>= 10 MiB: classic segments of their own, rounded to 2 MiB).
 * false when an allocation failed. */
static bool workload(ct__calloc *a, int steps, int64_t *peak, int64_t *retries) {
    char *prev[LAYERS] = {0};
    bool ok = true;
    for (int t = 0; t < steps && ok; t++) {
        const size_t batch = 24 + (size_t)t;
        for (int l = 0; l < LAYERS && ok; l++) {
            char *cur = ct__calloc_alloc(a, batch * 512 * 1024 + 4096);
            char *tmp = ct__calloc_alloc(a, batch * 16 * 1024); /* a temporary, freed at once */
            ok = cur && tmp;
            if (tmp) memset(tmp, 1, 64), ct__calloc_free(a, tmp);
            if (cur) memset(cur, 2, 64);
            ct__calloc_free(a, prev[l]);
            prev[l] = cur;
        }
    }
    for (int l = 0; l < LAYERS; l++)
        ct__calloc_free(a, prev[l]);
    ct_mem_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    ct__calloc_stats(a, &s);
    *peak = s.reserved_bytes[CT_MEM_ALL].peak;
    *retries = s.num_alloc_retries;
    return ok;
}

static bool run(bool expandable, size_t limit, int steps, int64_t *peak, int64_t *retries) {
    ct__calloc_conf c = {expandable, 0, limit, false};
    ct__calloc *a = ct__calloc_create(&ct__vm_ops_cpu, &c);
    const bool ok = workload(a, steps, peak, retries);
    ct__calloc_destroy(a);
    return ok;
}

int main(void) {
    const int steps = 32;
    int64_t pe = 0, pc = 0, re = 0, rc = 0;
    run(true, 0, steps, &pe, &re); /* unlimited expandable: the workload's footprint */
    int64_t pcu = 0, rcu = 0;
    run(false, 0, steps, &pcu, &rcu);
    printf("bench alloc fragmentation_unlimited layers=%d steps=%d classic_peak_reserved=%lld "
           "expandable_peak_reserved=%lld ratio=%.2f\n",
           LAYERS, steps, (long long)pcu, (long long)pe, (double)pe / (double)pcu);
    /* a 4 GiB device: classic keeps mapping new segments until it hits the limit, then frees
     * its cache and retries (as torch); expandable grows in place */
    const size_t limit = (size_t)4096 * MiB;
    const bool ce = run(true, limit, steps, &pe, &re), cc = run(false, limit, steps, &pc, &rc);
    printf("bench alloc fragmentation layers=%d steps=%d limit_mb=%zu classic_ok=%d "
           "expandable_ok=%d classic_peak_reserved=%lld expandable_peak_reserved=%lld "
           "classic_retries=%lld expandable_retries=%lld ratio=%.2f\n",
           LAYERS, steps, limit / MiB, cc, ce, (long long)pc, (long long)pe, (long long)rc,
           (long long)re, (double)pe / (double)pc);
    /* the smallest device (to 2 MiB) each mode completes on */
    size_t mins[2];
    for (int m = 0; m < 2; m++) {
        size_t lo = 2 * MiB, hi = (size_t)pcu + 64 * MiB; /* hi always completes */
        while (hi - lo > 2 * MiB) {
            const size_t mid = (lo + hi) / 2 / (2 * MiB) * (2 * MiB);
            int64_t pk, rt;
            if (run(m == 1, mid, steps, &pk, &rt))
                hi = mid;
            else
                lo = mid;
        }
        mins[m] = hi;
    }
    printf("bench alloc fragmentation_min_device classic_min_mb=%zu expandable_min_mb=%zu "
           "ratio=%.2f\n",
           mins[0] / MiB, mins[1] / MiB, (double)mins[1] / (double)mins[0]);
    fflush(stdout);
    /* pair latency: one allocator, every size warmed once */
    ct__calloc_conf c = {false, 0, 0, false};
    ct__calloc *a = ct__calloc_create(&ct__vm_ops_cpu, &c);
    const size_t sizes[] = {64, 1024, 64 * 1024, MiB, 4 * MiB, 16 * MiB, 64 * MiB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = sizes[i];
        const int reps = n >= 16 * MiB ? 20000 : 400000;
        double best = 1e30, bestg = 1e30;
        ct__calloc_free(a, ct__calloc_alloc(a, n));
        free(malloc(n));
        for (int round = 0; round < 5; round++) {
            double t0 = now();
            for (int r = 0; r < reps; r++) {
                void *p = ct__calloc_alloc(a, n);
                *(volatile char *)p = 1;
                ct__calloc_free(a, p);
            }
            const double t = (now() - t0) / reps;
            best = t < best ? t : best;
            t0 = now();
            for (int r = 0; r < reps; r++) {
                void *p = malloc(n);
                *(volatile char *)p = 1;
                free(p);
            }
            const double g = (now() - t0) / reps;
            bestg = g < bestg ? g : bestg;
        }
        printf("bench alloc pair size=%zu ns_per_pair=%.1f glibc_ns=%.1f ratio=%.2f\n", n,
               best * 1e9, bestg * 1e9, bestg / best);
        fflush(stdout);
    }
    ct__calloc_destroy(a);
    return 0;
}

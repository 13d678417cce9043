/* The caching allocator: rounding and pools, split / coalesce and best fit with every counter
 * checked after scripted sequences, max_split_size, OOM under memory_limit with the retry,
 * empty_cache giving memory back (RSS), expandable segments growing and shrinking, hot lists,
 * configuration errors, the public statistics / summary / snapshot through a context, and a
 * tensor OOM's message. The multithreaded stress runs in tests/test_memory_mt.c (also under
 * ThreadSanitizer). */
#include "test_util.h"

#include "core/calloc.h"

#include <unistd.h>

#define MiB ((size_t)1 << 20)

static ct__calloc *mk(bool expandable, size_t max_split_mb, size_t limit_mb, bool hot) {
    ct__calloc_conf c = {expandable, max_split_mb * MiB, limit_mb * MiB, !hot};
    return ct__calloc_create(&ct__vm_ops_cpu, &c);
}
static ct_mem_stats stats(ct__calloc *a) {
    ct_mem_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    ct__calloc_stats(a, &s);
    return s;
}
static int64_t resident_bytes(void) {
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = -1;
    fclose(f);
    return res < 0 ? -1 : (int64_t)res * sysconf(_SC_PAGESIZE);
}

/* The CPU's JSON snapshot as a string (free() it; "" when it could not be written or read). */
static char *snapshot_text(ct_ctx *ctx) {
    char path[] = "/tmp/ct_snapshot_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
    CHECK_OK(ct_memory_snapshot(ctx, (ct_device){CT_DEVICE_CPU, 0}, path));
    FILE *f = fopen(path, "r");
    long n = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f), rewind(f);
    char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t len = f && buf && n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
    if (buf) buf[len] = 0;
    if (f) fclose(f);
    unlink(path);
    return buf;
}

#define EXPECT(s, field, k, want)                                                                  \
    CHECK_MSG((s).field[k].current == (int64_t)(want), "%s[%d] = %lld, want %lld", #field, k,      \
              (long long)(s).field[k].current, (long long)(want))

TEST(rounding_and_pools) {
    ct__calloc *a = mk(false, 0, 0, false);
    void *p1 = ct__calloc_alloc(a, 1), *p2 = ct__calloc_alloc(a, MiB),
         *p3 = ct__calloc_alloc(a, MiB + 1), *p4 = ct__calloc_alloc(a, 11 * MiB),
         *p0 = ct__calloc_alloc(a, 0);
    CHECK(p0 && p1 && p2 && p3 && p4);
    CHECK((uintptr_t)p1 % 512 == 0 && (uintptr_t)p3 % 512 == 0);
    ct_mem_stats s = stats(a);
    EXPECT(s, allocated_bytes, CT_MEM_SMALL_POOL, 512 + MiB + 512);
    EXPECT(s, allocated_bytes, CT_MEM_LARGE_POOL, (MiB + 512) + 11 * MiB);
    EXPECT(s, requested_bytes, CT_MEM_ALL, 1 + MiB + (MiB + 1) + 11 * MiB);
    EXPECT(s, allocation, CT_MEM_ALL, 5);
    EXPECT(s, active, CT_MEM_ALL, 5);
    EXPECT(s, active_bytes, CT_MEM_ALL, 512 + MiB + 512 + (MiB + 512) + 11 * MiB);
    /* small: one 2 MiB segment; large: one 20 MiB segment (MiB + 512 < 10 MiB), and the 11 MiB
     * request is carved from its free rest (cached blocks first) */
    EXPECT(s, segment, CT_MEM_SMALL_POOL, 1);
    EXPECT(s, segment, CT_MEM_LARGE_POOL, 1);
    EXPECT(s, reserved_bytes, CT_MEM_SMALL_POOL, 2 * MiB);
    EXPECT(s, reserved_bytes, CT_MEM_LARGE_POOL, 20 * MiB);
    CHECK((char *)p4 == (char *)p3 + MiB + 512);
    EXPECT(s, inactive_split, CT_MEM_LARGE_POOL, 1); /* the rest of the 20 MiB one */
    EXPECT(s, inactive_split_bytes, CT_MEM_LARGE_POOL, 20 * MiB - (MiB + 512) - 11 * MiB);
    /* a request of 10 MiB or more with no cached fit: its own segment, rounded to 2 MiB */
    void *p5 = ct__calloc_alloc(a, 11 * MiB);
    s = stats(a);
    EXPECT(s, segment, CT_MEM_LARGE_POOL, 2);
    EXPECT(s, reserved_bytes, CT_MEM_LARGE_POOL, 20 * MiB + 12 * MiB);
    ct__calloc_free(a, p5);
    void *ps[] = {p0, p1, p2, p3, p4};
    for (int i = 0; i < 5; i++)
        ct__calloc_free(a, ps[i]);
    s = stats(a);
    EXPECT(s, allocated_bytes, CT_MEM_ALL, 0);
    EXPECT(s, requested_bytes, CT_MEM_ALL, 0);
    EXPECT(s, inactive_split, CT_MEM_ALL, 0); /* everything coalesced back */
    CHECK(s.allocation[CT_MEM_ALL].peak == 6 && s.allocation[CT_MEM_ALL].allocated == 6 &&
          s.allocation[CT_MEM_ALL].freed == 6);
    ct__calloc_empty(a);
    s = stats(a);
    EXPECT(s, reserved_bytes, CT_MEM_ALL, 0);
    EXPECT(s, segment, CT_MEM_ALL, 0);
    CHECK(s.num_segment_allocs == 3 && s.num_segment_frees == 3);
    CHECK(s.reserved_bytes[CT_MEM_ALL].peak == (int64_t)(34 * MiB));
    ct__calloc_destroy(a);
}

TEST(split_coalesce_and_best_fit) {
    ct__calloc *a = mk(false, 0, 0, false);
    char *x = ct__calloc_alloc(a, 1000), *y = ct__calloc_alloc(a, 2000),
         *z = ct__calloc_alloc(a, 512);
    /* carved from the front of one free block, in order */
    CHECK(y == x + 1024 && z == y + 2048);
    ct_mem_stats s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 1); /* the tail */
    ct__calloc_free(a, y);
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 2);
    EXPECT(s, inactive_split_bytes, CT_MEM_ALL, 2 * MiB - 1024 - 512);
    /* best fit: a 1500 request takes y's 2048 hole, not the big tail */
    char *w = ct__calloc_alloc(a, 1500);
    CHECK(w == y);
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 2); /* the 512 left of the hole, and the tail */
    EXPECT(s, inactive_split_bytes, CT_MEM_ALL, 512 + 2 * MiB - 1024 - 2048 - 512);
    ct__calloc_free(a, w); /* coalesces with the 512 remainder */
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 2);
    ct__calloc_free(a, x); /* with the 2048 hole */
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 2);
    EXPECT(s, inactive_split_bytes, CT_MEM_ALL, 2 * MiB - 512);
    ct__calloc_free(a, z); /* everything: one block, no split */
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 0);
    EXPECT(s, allocation, CT_MEM_ALL, 0);
    EXPECT(s, reserved_bytes, CT_MEM_ALL, 2 * MiB);
    /* the whole segment is one block again: the next request starts at its base */
    char *v = ct__calloc_alloc(a, 4096);
    CHECK(v == x);
    ct__calloc_free(a, v);
    /* large pool: a remainder of at most 1 MiB is not split off */
    char *l1 = ct__calloc_alloc(a, 19 * MiB + MiB / 2); /* 20 MiB segment, 0.5 MiB left */
    s = stats(a);
    EXPECT(s, allocated_bytes, CT_MEM_LARGE_POOL, 20 * MiB);
    EXPECT(s, inactive_split, CT_MEM_LARGE_POOL, 0);
    ct__calloc_free(a, l1);
    char *l2 = ct__calloc_alloc(a, 2 * MiB); /* reuses the 20 MiB segment, splits 18 MiB off */
    CHECK(l2 == l1);
    s = stats(a);
    EXPECT(s, allocated_bytes, CT_MEM_LARGE_POOL, 2 * MiB);
    EXPECT(s, inactive_split_bytes, CT_MEM_LARGE_POOL, 18 * MiB);
    ct__calloc_free(a, l2);
    ct__calloc_destroy(a);
}

TEST(max_split_size) {
    ct__calloc *a = mk(false, 21, 0, false);
    char *b30 = ct__calloc_alloc(a, 30 * MiB);
    ct__calloc_free(a, b30);
    /* an oversize request reuses a cached oversize block within 20 MiB, whole */
    char *b25 = ct__calloc_alloc(a, 25 * MiB);
    CHECK(b25 == b30);
    ct_mem_stats s = stats(a);
    EXPECT(s, allocated_bytes, CT_MEM_LARGE_POOL, 30 * MiB);
    EXPECT(s, inactive_split, CT_MEM_LARGE_POOL, 0);
    ct__calloc_free(a, b25);
    /* a request below max_split_size does not take (or split) the oversize block */
    char *b5 = ct__calloc_alloc(a, 5 * MiB);
    CHECK(b5 && b5 != b30);
    s = stats(a);
    EXPECT(s, segment, CT_MEM_LARGE_POOL, 2);
    /* an oversize request more than 20 MiB below a cached block maps its own */
    char *b8 = ct__calloc_alloc(a, 8 * MiB), *b60 = ct__calloc_alloc(a, 60 * MiB);
    ct__calloc_free(a, b60);
    char *b21 = ct__calloc_alloc(a, 21 * MiB);
    CHECK(b21 != b60);
    ct__calloc_free(a, b5), ct__calloc_free(a, b8), ct__calloc_free(a, b21);
    ct_mem_stats st = stats(a);
    CHECK(st.max_split_size == (int64_t)(21 * MiB) && st.memory_limit == -1);
    ct__calloc_destroy(a);
}

TEST(oom_under_a_limit_with_retry) {
    ct__calloc *a = mk(false, 0, 64, false);
    char *p = ct__calloc_alloc(a, 30 * MiB);
    ct__calloc_free(a, p);                   /* cached: 30 MiB reserved */
    char *q = ct__calloc_alloc(a, 40 * MiB); /* 30 + 40 > 64: frees the cache, retries */
    CHECK(q != NULL);
    ct_mem_stats s = stats(a);
    CHECK(s.num_alloc_retries == 1 && s.num_ooms == 0);
    EXPECT(s, reserved_bytes, CT_MEM_ALL, 40 * MiB);
    char *r = ct__calloc_alloc(a, 30 * MiB); /* 40 + 30 > 64 and nothing to free */
    CHECK(r == NULL);
    s = stats(a);
    CHECK(s.num_alloc_retries == 2 && s.num_ooms == 1);
    const char *m = ct__calloc_oom_message(a);
    /* nothing reserved sits unused: no fragmentation hint (it was always given) */
    CHECK_MSG(strstr(m, "tried to allocate 30.00 MiB") && strstr(m, "40.00 MiB allocated") &&
                  strstr(m, "64.00 MiB limit") && strstr(m, "0.00 MiB reserved but free") &&
                  !strstr(m, "expandable_segments"),
              "message: %s", m);
    ct__calloc_free(a, q);
    ct__calloc_destroy(a);
}

TEST(empty_cache_returns_memory_to_the_os) {
    ct__calloc *a = mk(false, 0, 0, true);
    const int64_t r0 = resident_bytes();
    char *p = ct__calloc_alloc(a, 64 * MiB);
    memset(p, 1, 64 * MiB);
    const int64_t r1 = resident_bytes();
    ct__calloc_free(a, p);
    const int64_t r2 = resident_bytes();
    ct__calloc_empty(a);
    const int64_t r3 = resident_bytes();
    CHECK_MSG(r1 - r0 >= (int64_t)(60 * MiB) && r2 - r0 >= (int64_t)(60 * MiB) &&
                  r2 - r3 >= (int64_t)(60 * MiB),
              "RSS %lld -> %lld -> %lld -> %lld", (long long)r0, (long long)r1, (long long)r2,
              (long long)r3);
    ct__calloc_destroy(a);
}

TEST(expandable_segments_grow_and_shrink) {
    ct__calloc *a = mk(true, 0, 0, false);
    char *p = ct__calloc_alloc(a, 5 * MiB);
    ct_mem_stats s = stats(a);
    EXPECT(s, reserved_bytes, CT_MEM_LARGE_POOL, 20 * MiB); /* one 20 MiB page */
    EXPECT(s, segment, CT_MEM_LARGE_POOL, 1);
    char *q = ct__calloc_alloc(a, 30 * MiB); /* 15 MiB free at the top: 20 MiB more */
    CHECK(q == p + 5 * MiB);
    s = stats(a);
    EXPECT(s, reserved_bytes, CT_MEM_LARGE_POOL, 40 * MiB);
    EXPECT(s, segment, CT_MEM_LARGE_POOL, 1);
    memset(q, 7, 30 * MiB);
    ct__calloc_free(a, q);
    /* a larger request grows the free top in place: one address range, no new segment */
    char *r = ct__calloc_alloc(a, 36 * MiB);
    CHECK(r == q);
    s = stats(a);
    EXPECT(s, reserved_bytes, CT_MEM_LARGE_POOL, 60 * MiB);
    EXPECT(s, segment, CT_MEM_LARGE_POOL, 1);
    ct__calloc_free(a, r), ct__calloc_free(a, p);
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 0); /* one block: the whole committed range */
    const int64_t before = resident_bytes();
    ct__calloc_empty(a);
    s = stats(a);
    EXPECT(s, reserved_bytes, CT_MEM_ALL, 0);
    EXPECT(s, segment, CT_MEM_ALL, 0);
    CHECK_MSG(before - resident_bytes() >= (int64_t)(28 * MiB), "RSS fell by %lld",
              (long long)(before - resident_bytes()));
    /* growing batches: reserved stays within one page of the largest step */
    size_t peak_need = 0;
    for (int step = 1; step <= 12; step++) {
        char *acts[10];
        size_t need = 0;
        for (int l = 0; l < 10; l++) {
            acts[l] = ct__calloc_alloc(a, (size_t)step * 3 * MiB + 4096);
            CHECK(acts[l] != NULL);
            need += (size_t)step * 3 * MiB + 4096;
        }
        peak_need = need > peak_need ? need : peak_need;
        for (int l = 0; l < 10; l++)
            ct__calloc_free(a, acts[l]);
    }
    s = stats(a);
    CHECK_MSG((size_t)s.reserved_bytes[CT_MEM_ALL].peak <= peak_need + 20 * MiB,
              "peak reserved %lld for a peak need of %zu", (long long)s.reserved_bytes[0].peak,
              peak_need);
    ct__calloc_destroy(a);
}

/* Per-stream pools: a block freed on one stream is reused by that stream only; each stream has
 * its own segments (one expandable segment per pool and stream); empty_cache releases them all;
 * through a context the CPU's current stream picks the pool, and the snapshot names it. */
TEST(per_stream_pools) {
    for (int exp = 0; exp < 2; exp++) {
        ct__calloc *a = mk(exp, 0, 0, true);
        char *p1 = ct__calloc_alloc_stream(a, 11, 3 * MiB);
        CHECK(p1 != NULL);
        ct__calloc_free(a, p1);
        char *p2 = ct__calloc_alloc_stream(a, 22, 3 * MiB); /* another stream: not p1's block */
        CHECK(p2 != NULL && p2 != p1);
        char *p3 = ct__calloc_alloc_stream(a, 11, 3 * MiB); /* its own stream gets it back */
        CHECK(p3 == p1);
        char *p0 = ct__calloc_alloc(a, 3 * MiB); /* the default stream: a third segment */
        CHECK(p0 != NULL && p0 != p1 && p0 != p2);
        ct_mem_stats s = stats(a);
        EXPECT(s, segment, CT_MEM_LARGE_POOL, 3);
        EXPECT(s, reserved_bytes, CT_MEM_LARGE_POOL, 60 * MiB);
        EXPECT(s, allocated_bytes, CT_MEM_ALL, 9 * MiB);
        /* small blocks of two streams never share a segment either */
        char *s1 = ct__calloc_alloc_stream(a, 11, 4096), *s2 = ct__calloc_alloc_stream(a, 22, 4096);
        s = stats(a);
        EXPECT(s, segment, CT_MEM_SMALL_POOL, 2);
        ct__calloc_free(a, s1), ct__calloc_free(a, s2);
        ct__calloc_free(a, p0), ct__calloc_free(a, p2), ct__calloc_free(a, p3);
        ct__calloc_empty(a);
        s = stats(a);
        EXPECT(s, reserved_bytes, CT_MEM_ALL, 0);
        EXPECT(s, segment, CT_MEM_ALL, 0);
        ct__calloc_destroy(a);
    }
    /* the same through a context: a tensor made while a stream is current */
    ct_ctx *ctx = NULL;
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    ct_device cpu = {CT_DEVICE_CPU, 0};
    ct_stream *st = NULL;
    CHECK_OK(ct_stream_create(ctx, cpu, &st));
    int64_t n = 1 << 20;
    ct_tensor *t = NULL, *u = NULL, *v = NULL;
    CHECK_OK(ct_ctx_set_stream(ctx, cpu, st));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, &n, &t));
    void *pt = ct_tensor_data_ptr(t);
    char *snap = snapshot_text(ctx);
    char want[64];
    snprintf(want, sizeof want, "\"stream\": %llu", (unsigned long long)(uintptr_t)st);
    CHECK_MSG(snap && strstr(snap, want), "the snapshot names the stream (%s)", want);
    free(snap);
    ct_tensor_release(t);
    ct_stream *def = NULL;
    CHECK_OK(ct_ctx_default_stream(ctx, cpu, &def));
    CHECK_OK(ct_ctx_set_stream(ctx, cpu, def));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, &n, &u)); /* the default stream: elsewhere */
    CHECK(ct_tensor_data_ptr(u) != pt);
    CHECK_OK(ct_ctx_set_stream(ctx, cpu, st));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, &n, &v)); /* back on the stream: its block */
    CHECK(ct_tensor_data_ptr(v) == pt);
    CHECK_OK(ct_ctx_set_stream(ctx, cpu, def));
    ct_tensor_release(u), ct_tensor_release(v);
    ct_stream_free(st);
    ct_ctx_free(ctx);
}

TEST(hot_lists_park_freed_blocks) {
    ct__calloc *a = mk(false, 0, 0, true);
    char *x = ct__calloc_alloc(a, 1000), *y = ct__calloc_alloc(a, 1000);
    ct__calloc_free(a, x);
    ct_mem_stats s = stats(a);
    EXPECT(s, allocated_bytes, CT_MEM_ALL, 1024);
    EXPECT(s, inactive_split, CT_MEM_ALL, 2); /* the parked block and the tail */
    char *z = ct__calloc_alloc(a, 900);       /* same rounded size: the parked block */
    CHECK(z == x);
    ct__calloc_free(a, z), ct__calloc_free(a, y);
    s = stats(a);
    EXPECT(s, allocation, CT_MEM_ALL, 0);
    EXPECT(s, inactive_split, CT_MEM_ALL, 3);
    ct__calloc_empty(a); /* flushes and coalesces, then unmaps the free segment */
    s = stats(a);
    EXPECT(s, inactive_split, CT_MEM_ALL, 0);
    EXPECT(s, reserved_bytes, CT_MEM_ALL, 0);
    /* a request of another size in the same class does not take a parked block */
    char *u = ct__calloc_alloc(a, 4096 + 512);
    ct__calloc_free(a, u);
    char *v = ct__calloc_alloc(a, 4096 + 1024);
    CHECK(v != u);
    ct__calloc_free(a, v);
    ct__calloc_destroy(a);
}

TEST(configuration) {
    ct__calloc_conf c = {0};
    char err[256];
    CHECK(ct__calloc_parse("expandable_segments:True,max_split_size_mb:64,memory_limit_mb:100", &c,
                           err, sizeof err));
    CHECK(c.expandable && c.max_split == 64 * MiB && c.limit == 100 * MiB);
    CHECK(ct__calloc_parse("expandable_segments:False", &c, err, sizeof err) && !c.expandable);
    CHECK(!ct__calloc_parse("expandable_segments:yes", &c, err, sizeof err));
    CHECK(strstr(err, "True or False") != NULL);
    CHECK(!ct__calloc_parse("max_split_size_mb:20", &c, err, sizeof err));
    CHECK(strstr(err, "> 20") != NULL);
    CHECK(!ct__calloc_parse("memory_limit_mb:-3", &c, err, sizeof err));
    CHECK(!ct__calloc_parse("garbage", &c, err, sizeof err));
    CHECK(!ct__calloc_parse("roundup_power2:4", &c, err, sizeof err));
    CHECK(strstr(err, "unknown key \"roundup_power2\"") != NULL);
    /* through a context: the option, and the environment */
    char msg[256];
    ct_ctx *ctx = NULL;
    ct_ctx_options o = {.size = sizeof o, .alloc_conf = "memory_limit_mb:zero"};
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    CHECK_MSG(strstr(msg, "memory_limit_mb:zero") != NULL, "%s", msg);
    setenv("CT_ALLOC_CONF", "expandable_segments:maybe", 1);
    CHECK_ST(ct_ctx_create_ex(NULL, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    CHECK(strstr(msg, "expandable_segments:maybe") != NULL);
    o.alloc_conf = "expandable_segments:True"; /* the env is read first, the option after */
    CHECK_ST(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg), CT_ERR_INVALID_ARG);
    setenv("CT_ALLOC_CONF", "memory_limit_mb:256", 1);
    CHECK_OK(ct_ctx_create_ex(&o, &ctx, msg, sizeof msg));
    ct_mem_stats s = {.size = sizeof s};
    CHECK_OK(ct_memory_stats(ctx, (ct_device){CT_DEVICE_CPU, 0}, &s));
    CHECK(s.expandable_segments && s.memory_limit == (int64_t)(256 * MiB));
    ct_ctx_free(ctx);
    unsetenv("CT_ALLOC_CONF");
}

TEST(public_api_through_a_context) {
    ct_ctx *ctx = NULL;
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    if (ct_ctx_debug(ctx)) { /* CT_DEBUG=1: no caching allocator */
        ct_mem_stats s = {.size = sizeof s};
        CHECK_ST(ct_memory_stats(ctx, (ct_device){CT_DEVICE_CPU, 0}, &s), CT_ERR_UNSUPPORTED);
        ct_ctx_free(ctx);
        return;
    }
    const ct_device cpu = {CT_DEVICE_CPU, 0};
    ct_mem_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1};
    CHECK_OK(ct_memory_stats(ctx, cpu, &s0));
    const int64_t n = 3 << 20; /* 12 MiB of f32: the large pool */
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &t));
    CHECK_OK(ct_memory_stats(ctx, cpu, &s1));
    CHECK(s1.allocated_bytes[CT_MEM_LARGE_POOL].current -
              s0.allocated_bytes[CT_MEM_LARGE_POOL].current >=
          12 << 20);
    char *sum = NULL;
    CHECK_OK(ct_memory_summary(ctx, cpu, &sum));
    CHECK(sum && strstr(sum, "Allocated memory") && strstr(sum, "from large pool") &&
          strstr(sum, "Reserved segments"));
    free(sum);
    char *buf = snapshot_text(ctx);
    CHECK(strstr(buf, "\"segments\"") && strstr(buf, "\"pool\": \"large\"") &&
          strstr(buf, "\"state\": \"active_allocated\""));
    free(buf);
    ct_tensor_release(t);
    CHECK_OK(ct_memory_reset_peak(ctx, cpu));
    CHECK_OK(ct_memory_stats(ctx, cpu, &s1));
    CHECK(s1.allocated_bytes[0].peak == s1.allocated_bytes[0].current);
    CHECK_OK(ct_empty_cache(ctx));
    CHECK_ST(ct_memory_stats(ctx, (ct_device){CT_DEVICE_CPU, 3}, &s1), CT_ERR_UNSUPPORTED);
    CHECK_ST(ct_memory_snapshot(ctx, cpu, "/nonexistent/dir/x.json"), CT_ERR_IO);
    ct_ctx_free(ctx);
    ct_ctx_options o = {.size = sizeof o, .no_cache = true};
    CHECK_OK(ct_ctx_create(&o, &ctx));
    CHECK_ST(ct_memory_stats(ctx, cpu, &s1), CT_ERR_UNSUPPORTED);
    ct_ctx_free(ctx);
}

TEST(tensor_oom_names_the_numbers) {
    ct_ctx *ctx = NULL;
    ct_ctx_options o = {.size = sizeof o, .alloc_conf = "memory_limit_mb:64"};
    CHECK_OK(ct_ctx_create(&o, &ctx));
    if (ct_ctx_debug(ctx)) {
        ct_ctx_free(ctx);
        return;
    }
    const int64_t n = 25 << 20; /* 100 MiB of f32 */
    ct_tensor *t = NULL;
    CHECK_ST(ct_tensor_empty(ctx, CT_FLOAT32, 1, &n, &t), CT_ERR_OOM);
    /* a request above the whole limit says so (no advice about fragmentation) */
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), "tried to allocate 100.00 MiB, more than the whole "
                                             "64.00 MiB limit") &&
                  !strstr(ct_ctx_last_error(ctx), "fragment"),
              "%s", ct_ctx_last_error(ctx));
    ct_mem_stats s = {.size = sizeof s};
    CHECK_OK(ct_memory_stats(ctx, (ct_device){CT_DEVICE_CPU, 0}, &s));
    CHECK(s.num_ooms == 1 && s.num_alloc_retries == 1);
    const int64_t m = 4 << 20; /* 16 MiB fits */
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, &m, &t));
    ct_tensor_release(t);
    ct_ctx_free(ctx);
}

/* Graph memory comes from a private pool of the allocator: segments of its own, alive until the
 * graph and every tensor from it are gone; replay allocates nothing. */
TEST(graph_private_pools) {
    ct_ctx *ctx = NULL;
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    if (ct_ctx_debug(ctx)) {
        ct_ctx_free(ctx);
        return;
    }
    const ct_device cpu = {CT_DEVICE_CPU, 0};
    const int64_t n = 1000;
    ct_tensor *x = NULL, *y = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n, &x));
    ct_mem_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1};
    CHECK_OK(ct_empty_cache(ctx));
    CHECK_OK(ct_memory_stats(ctx, cpu, &s0));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, cpu, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_add_scalar(ctx, x, 1.0, &y));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_instantiate(g));
    CHECK_OK(ct_memory_stats(ctx, cpu, &s1));
    CHECK(s1.segment[CT_MEM_SMALL_POOL].current >= s0.segment[CT_MEM_SMALL_POOL].current + 1);
    const int64_t allocs = s1.allocation[CT_MEM_ALL].allocated;
    CHECK_OK(ct_graph_replay(g));
    CHECK_OK(ct_graph_replay(g));
    CHECK_OK(ct_memory_stats(ctx, cpu, &s1));
    CHECK_MSG(s1.allocation[CT_MEM_ALL].allocated == allocs, "replay allocated %lld blocks",
              (long long)(s1.allocation[CT_MEM_ALL].allocated - allocs));
    char *buf = snapshot_text(ctx);
    CHECK(strstr(buf, "\"private_pool\": 0") && strstr(buf, "\"private_pool\": 1"));
    free(buf);
    ct_graph_free(g); /* y still holds the pool */
    CHECK_OK(ct_empty_cache(ctx));
    CHECK_OK(ct_memory_stats(ctx, cpu, &s1));
    CHECK(s1.reserved_bytes[CT_MEM_ALL].current > s0.reserved_bytes[CT_MEM_ALL].current);
    ct_tensor_release(y); /* the last tensor from it: the private segments go */
    CHECK_OK(ct_memory_stats(ctx, cpu, &s1));
    CHECK_MSG(s1.reserved_bytes[CT_MEM_ALL].current == s0.reserved_bytes[CT_MEM_ALL].current,
              "reserved %lld, was %lld", (long long)s1.reserved_bytes[0].current,
              (long long)s0.reserved_bytes[0].current);
    ct_tensor_release(x);
    ct_ctx_free(ctx);
}

static long seg_count;
static void *fake_map(void *u, size_t n) {
    (void)u;
    void *p = aligned_alloc(4096, n);
    seg_count += p != NULL;
    return p;
}
static void fake_unmap(void *u, void *p, size_t n) {
    (void)u, (void)n;
    seg_count--;
    free(p);
}
/* The public allocator over a device's own segment calls (what a backend uses). */
TEST(device_allocator_over_its_own_calls) {
    ct_ctx *ctx = NULL;
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    const ct_vm_ops vm = {.size = sizeof vm, .map = fake_map, .unmap = fake_unmap};
    ct_caching_allocator *a = NULL;
    CHECK_ST(ct_caching_allocator_create(ctx, &vm, "expandable_segments:True", &a),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "reserve") != NULL);
    CHECK_ST(ct_caching_allocator_create(ctx, NULL, NULL, &a), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_caching_allocator_create(ctx, &vm, "bogus:1", &a), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_caching_allocator_create(ctx, &vm, "memory_limit_mb:8", &a));
    void *p = NULL, *q = NULL;
    CHECK_OK(ct_caching_allocator_alloc(a, 1000, &p));
    CHECK(seg_count == 1 && strcmp(ct_caching_allocator_oom_message(a), "") == 0);
    CHECK_ST(ct_caching_allocator_alloc(a, 9 * MiB, &q), CT_ERR_OOM);
    CHECK(q == NULL && strstr(ct_caching_allocator_oom_message(a), "8.00 MiB limit"));
    ct_caching_allocator_free(a, p);
    ct_caching_allocator_destroy(a); /* unmaps the free segment */
    CHECK(seg_count == 0);
    ct_caching_allocator_destroy(NULL);
    ct_caching_allocator_free(NULL, NULL);
    ct_ctx_free(ctx);
}

int main(void) {
    RUN(rounding_and_pools);
    RUN(split_coalesce_and_best_fit);
    RUN(max_split_size);
    RUN(oom_under_a_limit_with_retry);
    RUN(empty_cache_returns_memory_to_the_os);
    RUN(expandable_segments_grow_and_shrink);
    RUN(per_stream_pools);
    RUN(hot_lists_park_freed_blocks);
    RUN(configuration);
    RUN(public_api_through_a_context);
    RUN(tensor_oom_names_the_numbers);
    RUN(device_allocator_over_its_own_calls);
    RUN(graph_private_pools);
    return ct_test_end();
}

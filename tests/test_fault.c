/* Fault injection: the allocator hook fails the Nth allocation, for N = 0, 1, 2, ... through a
 * sequence of public calls. Every failure must be CT_ERR_OOM with a message, leave the context
 * usable, and leak nothing (the hook counts live blocks; LeakSanitizer checks the rest). */
#include "test_util.h"

typedef struct {
    long calls, fail_at, live;
} fault_state;

static void *f_alloc(void *user, size_t n, size_t align) {
    fault_state *s = user;
    if (s->calls++ == s->fail_at) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n ? n : 1)) return NULL;
    s->live++;
    return p;
}
static void f_free(void *user, void *p) {
    fault_state *s = user;
    s->live--;
    free(p);
}

/* A realistic op sequence; releases everything it made whatever happens. */
static ct_status sequence(ct_ctx *ctx) {
    ct_tensor *t[16] = {0};
    int k = 0;
    ct_status st;
    int64_t s[2] = {8, 16}, s2[2] = {16, 4};
    float buf[128];
    for (int i = 0; i < 128; i++)
        buf[i] = (float)i / 10;
#define STEP(call)                                                                                 \
    if ((st = (call)) != CT_OK) goto done
    STEP(ct_tensor_from_host(ctx, buf, CT_FLOAT32, 2, s, &t[k++]));
    STEP(ct_tensor_randn(ctx, CT_FLOAT32, 2, s2, 1, 0, &t[k++]));
    STEP(ct_matmul(ctx, t[0], t[1], &t[k++]));           /* (8,4) */
    STEP(ct_tensor_transpose(ctx, t[0], 0, 1, &t[k++])); /* view */
    STEP(ct_add(ctx, t[3], t[3], &t[k++]));
    STEP(ct_cast(ctx, t[4], CT_FLOAT16, &t[k++])); /* f16 */
    STEP(ct_add(ctx, t[5], t[4], &t[k++]));        /* promotion -> temp cast */
    STEP(ct_softmax(ctx, t[2], -1, &t[k++]));
    int d = 0;
    STEP(ct_sum(ctx, t[6], 1, &d, false, &t[k++])); /* reduce + view */
    int64_t flat[1] = {-1};
    STEP(ct_tensor_reshape(ctx, t[3], 1, flat, &t[k++])); /* copy */
    STEP(ct_layer_norm(ctx, t[0], 1, NULL, NULL, 1e-5, &t[k++]));
    STEP(ct_argmax(ctx, t[3], CT_ALL_DIMS, false, &t[k++]));
    double item;
    STEP(ct_tensor_item(t[11], &item));
done:
    for (int i = 0; i < k; i++)
        ct_tensor_release(t[i]);
    return st;
}

TEST(fail_every_allocation) {
    int oom_seen = 0, n;
    for (n = 0; n < 500; n++) {
        fault_state fs = {0, n, 0};
        ct_ctx_options o = {.size = sizeof o, .allocator = {f_alloc, f_free, &fs}};
        ct_ctx *ctx = NULL;
        ct_status st = ct_ctx_create(&o, &ctx);
        if (st != CT_OK) {
            CHECK_ST(st, CT_ERR_OOM);
            CHECK(fs.live == 0);
            continue;
        }
        long before = fs.live;
        st = sequence(ctx);
        if (st != CT_OK) {
            oom_seen++;
            CHECK_MSG(st == CT_ERR_OOM, "n=%d: status %d (%s)", n, (int)st, ct_ctx_last_error(ctx));
            CHECK_MSG(strstr(ct_ctx_last_error(ctx), "memory") != NULL, "n=%d message '%s'", n,
                      ct_ctx_last_error(ctx));
        }
        CHECK_MSG(fs.live == before, "n=%d: %ld blocks leaked", n, fs.live - before);
        /* the context stays usable: no further failure is armed now */
        fs.fail_at = -1;
        CHECK_OK(sequence(ctx));
        CHECK(fs.live == before);
        ct_ctx_free(ctx);
        CHECK_MSG(fs.live == 0, "n=%d: %ld blocks live after ctx_free", n, fs.live);
        if (st == CT_OK) break; /* the sequence no longer reaches allocation n */
    }
    CHECK(oom_seen > 10);
    CHECK(n < 500);
    printf("  walked %d failure points\n", n);
}

int main(void) {
    RUN(fail_every_allocation);
    return ct_test_end();
}

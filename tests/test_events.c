/* Events (include/ctorch/graph.h, torch.Event): eager timing and its errors; fork/join capture
 * across two streams (the forked stream's ops join the graph, replay equals eager); a forked stream
 * not joined back before capture_end is an error naming it, with or without work on it; events of
 * an ended capture; freeing a forked stream mid-capture. */
#include "test_util.h"

static ct_ctx *ctx;
static const ct_device CPU = {CT_DEVICE_CPU, 0};

static ct_tensor *vec(const float *v, int64_t n) {
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 1, &n, &t));
    return t;
}

TEST(eager_timing) {
    ct_event *a = NULL, *b = NULL, *nt = NULL;
    CHECK_OK(ct_event_create(ctx, CPU, true, &a));
    CHECK_OK(ct_event_create(ctx, CPU, true, &b));
    CHECK_OK(ct_event_create(ctx, CPU, false, &nt));
    double ms = -1;
    CHECK_ST(ct_event_elapsed_ms(a, b, &ms), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "never recorded") != NULL);
    CHECK_OK(ct_event_record(a, NULL));
    ct_tensor *m = NULL, *p = NULL;
    CHECK_OK(ct_tensor_rand(ctx, CT_FLOAT32, 2, (int64_t[]){128, 128}, 1, 0, &m));
    for (int i = 0; i < 4; i++) {
        CHECK_OK(ct_matmul(ctx, m, m, &p));
        ct_tensor_release(p);
    }
    CHECK_OK(ct_event_record(b, NULL));
    CHECK_OK(ct_event_synchronize(b));
    bool done = false;
    CHECK_OK(ct_event_query(b, &done));
    CHECK(done);
    CHECK_OK(ct_event_elapsed_ms(a, b, &ms));
    CHECK_MSG(ms > 0 && ms < 60000, "elapsed %g ms", ms);
    double back = 0;
    CHECK_OK(ct_event_elapsed_ms(b, a, &back));
    CHECK(back == -ms);
    CHECK_OK(ct_event_record(nt, NULL));
    CHECK_ST(ct_event_elapsed_ms(a, nt, &ms), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "enable_timing") != NULL);
    CHECK_OK(ct_event_wait(nt, NULL)); /* eager: its work is complete */
    ct_event *bad = NULL;
    CHECK_ST(ct_event_create(ctx, (ct_device){CT_DEVICE_CPU, 3}, false, &bad), CT_ERR_DEVICE);
    CHECK(bad == NULL);
    ct_tensor_release(m);
    ct_event_free(a), ct_event_free(b), ct_event_free(nt);
    ct_event_free(NULL);
}

/* origin S: x = a + b; fork to s2: y = x * 2 on s2; join; z = x + y on S. */
TEST(fork_join_capture) {
    float av[4] = {1, 2, 3, 4}, bv[4] = {10, 20, 30, 40};
    ct_tensor *a = vec(av, 4), *b = vec(bv, 4), *x = NULL, *y = NULL, *z = NULL;
    ct_stream *S = NULL, *s2 = NULL;
    CHECK_OK(ct_ctx_default_stream(ctx, CPU, &S));
    CHECK_OK(ct_stream_create(ctx, CPU, &s2));
    ct_event *fork = NULL, *join = NULL;
    CHECK_OK(ct_event_create(ctx, CPU, false, &fork));
    CHECK_OK(ct_event_create(ctx, CPU, false, &join));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, S));
    CHECK_OK(ct_add(ctx, a, b, &x));
    CHECK_OK(ct_event_record(fork, S));
    CHECK(!ct_stream_is_capturing(s2));
    CHECK_OK(ct_event_wait(fork, s2)); /* s2 joins the capture */
    CHECK(ct_stream_is_capturing(s2));
    bool done = true;
    CHECK_OK(ct_event_query(fork, &done));
    CHECK(!done);
    CHECK_ST(ct_event_synchronize(fork), CT_ERR_STATE);
    CHECK_OK(ct_ctx_set_stream(ctx, CPU, s2));
    CHECK_OK(ct_mul_scalar(ctx, x, 2, &y));
    CHECK_OK(ct_event_record(join, s2));
    CHECK_OK(ct_ctx_set_stream(ctx, CPU, S));
    CHECK_OK(ct_event_wait(join, S)); /* joined back */
    CHECK_OK(ct_add(ctx, x, y, &z));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(!ct_stream_is_capturing(s2));
    /* add, the forked stream's mul_scalar (with its scalar operand), add */
    CHECK_MSG(ct_graph_num_nodes(g) >= 3, "%lld nodes", (long long)ct_graph_num_nodes(g));
    for (int round = 0; round < 2; round++) {
        if (round == 1) { /* new data */
            float nv[4] = {-1, 0.5f, 7, 100};
            ct_tensor *t = vec(nv, 4);
            CHECK_OK(ct_tensor_copy_(ctx, a, t));
            ct_tensor_release(t);
            memcpy(av, nv, sizeof av);
        }
        CHECK_OK(ct_graph_replay(g));
        float got[4];
        CHECK_OK(ct_tensor_to_host(z, got, sizeof got));
        for (int i = 0; i < 4; i++)
            CHECK_MSG(got[i] == 3 * (av[i] + bv[i]), "round %d z[%d] = %g", round, i,
                      (double)got[i]);
    }
    /* an event of the ended capture */
    CHECK_ST(ct_event_wait(fork, s2), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "ended") != NULL);
    ct_graph_free(g);
    ct_tensor *all[] = {a, b, x, y, z};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    ct_event_free(fork), ct_event_free(join);
    ct_stream_free(s2);
}

static void unjoined(bool work) {
    float av[2] = {1, 2};
    ct_tensor *a = vec(av, 2), *y = NULL;
    ct_stream *S = NULL, *s2 = NULL;
    CHECK_OK(ct_ctx_default_stream(ctx, CPU, &S));
    CHECK_OK(ct_stream_create(ctx, CPU, &s2));
    ct_event *fork = NULL, *late = NULL;
    CHECK_OK(ct_event_create(ctx, CPU, false, &fork));
    CHECK_OK(ct_event_create(ctx, CPU, false, &late));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, S));
    CHECK_OK(ct_event_record(fork, S));
    CHECK_OK(ct_event_wait(fork, s2));
    if (work) { /* joined once, then more work after the join point */
        CHECK_OK(ct_event_record(late, s2));
        CHECK_OK(ct_event_wait(late, S));
        CHECK_OK(ct_ctx_set_stream(ctx, CPU, s2));
        CHECK_OK(ct_neg(ctx, a, &y));
        CHECK_OK(ct_ctx_set_stream(ctx, CPU, S));
    }
    char want[64];
    snprintf(want, sizeof want, "stream %p", (void *)s2);
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    CHECK_MSG(strstr(ct_ctx_last_error(ctx), want) && strstr(ct_ctx_last_error(ctx), "not joined"),
              "%s", ct_ctx_last_error(ctx));
    CHECK(!ct_stream_is_capturing(s2));
    ct_graph_free(g);
    ct_tensor_release(a), ct_tensor_release(y);
    ct_event_free(fork), ct_event_free(late);
    ct_stream_free(s2);
}
TEST(unjoined_stream_is_an_error) { unjoined(true); }
TEST(unjoined_idle_stream_is_an_error) { unjoined(false); }

TEST(forked_stream_freed_mid_capture) {
    ct_stream *S = NULL, *s2 = NULL;
    CHECK_OK(ct_ctx_default_stream(ctx, CPU, &S));
    CHECK_OK(ct_stream_create(ctx, CPU, &s2));
    ct_event *fork = NULL;
    CHECK_OK(ct_event_create(ctx, CPU, false, &fork));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, S));
    CHECK_OK(ct_event_record(fork, S));
    CHECK_OK(ct_event_wait(fork, s2));
    ct_stream_free(s2);
    CHECK_ST(ct_graph_capture_end(g), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "freed while capturing") != NULL);
    ct_graph_free(g);
    ct_event_free(fork);
    /* the default stream still works */
    float v[2] = {1, 2};
    ct_tensor *a = vec(v, 2), *b = NULL;
    CHECK_OK(ct_neg(ctx, a, &b));
    ct_tensor_release(a), ct_tensor_release(b);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(eager_timing);
    RUN(fork_join_capture);
    RUN(unjoined_stream_is_an_error);
    RUN(unjoined_idle_stream_is_an_error);
    RUN(forked_stream_freed_mid_capture);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* ct_while_loop (include/ctorch/graph.h): eager semantics (torch's while_loop), a captured Newton
 * iteration whose number of steps depends on the data replayed on new data equal to eager bit for
 * bit (iteration counts included), zero-iteration loops, loops nested in loops and conds in loops,
 * and the errors (shape/dtype change, bad pred, NULL arguments). */
#include "test_util.h"

#include <unistd.h>

static ct_ctx *ctx;
static const ct_device CPU = {CT_DEVICE_CPU, 0};

static ct_tensor *scalar(ct_dtype dt, double v) {
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_full(ctx, dt, 0, NULL, v, &t));
    return t;
}
static double value(const ct_tensor *t) {
    double v = NAN;
    CHECK_OK(ct_tensor_item(t, &v));
    return v;
}

/* Newton for sqrt(a): carried (x, a, k). cond: |x*x - a| > 1e-12 * a and k < 100. */
static ct_status newton_cond(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)user, (void)n;
    ct_tensor *xx = NULL, *d = NULL, *ad = NULL, *tol = NULL, *big = NULL, *few = NULL;
    ct_status st = ct_mul(c, v[0], v[0], &xx);
    if (st == CT_OK) st = ct_sub(c, xx, v[1], &d);
    if (st == CT_OK) st = ct_abs(c, d, &ad);
    if (st == CT_OK) st = ct_mul_scalar(c, v[1], 1e-12, &tol);
    if (st == CT_OK) st = ct_gt(c, ad, tol, &big);
    if (st == CT_OK) st = ct_lt_scalar(c, v[2], 100, &few);
    if (st == CT_OK) st = ct_mul(c, big, few, pred); /* bool and */
    ct_tensor_release(xx), ct_tensor_release(d), ct_tensor_release(ad);
    ct_tensor_release(tol), ct_tensor_release(big), ct_tensor_release(few);
    return st;
}
static ct_status newton_body(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    ct_tensor *q = NULL, *s = NULL;
    ct_status st = ct_div(c, v[1], v[0], &q);
    if (st == CT_OK) st = ct_add(c, v[0], q, &s);
    if (st == CT_OK) st = ct_mul_scalar(c, s, 0.5, &next[0]);
    if (st == CT_OK) st = ct_tensor_clone(c, v[1], &next[1]);
    if (st == CT_OK) st = ct_add_scalar(c, v[2], 1, &next[2]);
    ct_tensor_release(q), ct_tensor_release(s);
    return st;
}

TEST(newton_eager_and_captured) {
    ct_tensor *in[3] = {scalar(CT_FLOAT64, 1.0), scalar(CT_FLOAT64, 2.0), scalar(CT_INT64, 0)};
    /* capture once */
    ct_graph *g = NULL;
    ct_tensor *cap_out[3] = {0};
    CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_while_loop(ctx, newton_cond, newton_body, NULL, 3, in, cap_out));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK(ct_graph_num_nodes(g) >= 10);
    const double as[4] = {2.0, 1e6, 0.25, 1.0};
    int64_t prev_iters = -1;
    bool iters_vary = false;
    for (int t = 0; t < 4; t++) {
        ct_tensor *a = scalar(CT_FLOAT64, as[t]);
        CHECK_OK(ct_tensor_copy_(ctx, in[1], a));
        ct_tensor_release(a);
        ct_tensor *eager[3] = {0};
        CHECK_OK(ct_while_loop(ctx, newton_cond, newton_body, NULL, 3, in, eager));
        CHECK_OK(ct_graph_replay(g));
        double xe = value(eager[0]), xc = value(cap_out[0]);
        int64_t ke = (int64_t)value(eager[2]), kc = (int64_t)value(cap_out[2]);
        CHECK_MSG(memcmp(&xe, &xc, 8) == 0, "a=%g: eager %.17g, replay %.17g", as[t], xe, xc);
        CHECK_MSG(ke == kc, "a=%g: eager %lld iterations, replay %lld", as[t], (long long)ke,
                  (long long)kc);
        CHECK_MSG(fabs(xe - sqrt(as[t])) <= 1e-12 * sqrt(as[t]), "a=%g: x=%.17g", as[t], xe);
        if (t == 3) CHECK_MSG(ke == 0, "a=1 from x=1 needs no step, took %lld", (long long)ke);
        if (prev_iters >= 0 && ke != prev_iters) iters_vary = true;
        prev_iters = ke;
        for (int i = 0; i < 3; i++)
            ct_tensor_release(eager[i]);
    }
    CHECK(iters_vary); /* the number of steps really depended on the data */
    for (int i = 0; i < 3; i++)
        ct_tensor_release(cap_out[i]), ct_tensor_release(in[i]);
    ct_graph_free(g);
}

static ct_status never(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)user, (void)n, (void)v;
    return ct_tensor_zeros(c, CT_BOOL, 1, (int64_t[]){1}, pred);
}
static ct_status fail_body(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)c, (void)user, (void)n, (void)v, (void)next;
    return CT_ERR_STATE;
}

static ct_status twice(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    return ct_mul_scalar(c, v[0], 2, &next[0]);
}

TEST(zero_iterations) {
    float xv[3] = {1, 2, 3};
    ct_tensor *x = NULL, *out = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 1, (int64_t[]){3}, &x));
    CHECK_OK(ct_while_loop(ctx, never, fail_body, NULL, 1, &x, &out));
    CHECK(out == x); /* eager: the inputs themselves, as torch */
    ct_tensor_release(out);
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    out = NULL; /* capture records the body once; replay never runs it */
    CHECK_OK(ct_while_loop(ctx, never, twice, NULL, 1, &x, &out));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_replay(g));
    float got[3];
    CHECK_OK(ct_tensor_to_host(out, got, sizeof got));
    CHECK(memcmp(got, xv, sizeof got) == 0);
    ct_tensor_release(out);
    ct_graph_free(g);
    /* no carried values at all */
    CHECK_OK(ct_while_loop(ctx, never, fail_body, NULL, 0, NULL, NULL));
    ct_tensor_release(x);
}

/* Nesting: outer carried (i, acc); while i < 4: inner loop adds 1 to acc (i+1) times through a
 * carried (j, acc) loop, then a cond doubles acc when i is odd; i += 1. */
static ct_status lt_user(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)n;
    return ct_lt(c, v[0], (ct_tensor *)user, pred);
}
static ct_status inner_body(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    ct_status st = ct_add_scalar(c, v[0], 1, &next[0]);
    if (st == CT_OK) st = ct_add_scalar(c, v[1], 1, &next[1]);
    return st;
}
static ct_status dbl(ct_ctx *c, void *u, int no, ct_tensor *const *ops, int nout, ct_tensor **o) {
    (void)u, (void)no, (void)nout;
    return ct_mul_scalar(c, ops[0], 2, &o[0]);
}
static ct_status same(ct_ctx *c, void *u, int no, ct_tensor *const *ops, int nout, ct_tensor **o) {
    (void)u, (void)no, (void)nout;
    return ct_tensor_clone(c, ops[0], &o[0]);
}
static ct_status outer_body(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    ct_tensor *lim = NULL, *j0 = NULL, *in2[2], *out2[2] = {0}, *big = NULL, *r = NULL;
    ct_status st = ct_add_scalar(c, v[0], 1, &lim); /* inner runs i+1 times */
    if (st == CT_OK) st = ct_tensor_zeros(c, CT_INT64, 0, NULL, &j0);
    in2[0] = j0, in2[1] = v[1];
    if (st == CT_OK) st = ct_while_loop(c, lt_user, inner_body, lim, 2, in2, out2);
    /* a data-dependent branch inside the loop: keep acc when it is above 10, else double it */
    if (st == CT_OK) st = ct_gt_scalar(c, out2[1], 10, &big);
    ct_tensor *ops[1] = {out2[1]};
    if (st == CT_OK) st = ct_cond(c, big, same, dbl, NULL, 1, ops, 1, &r);
    if (st == CT_OK) st = ct_add_scalar(c, v[0], 1, &next[0]);
    if (st == CT_OK) next[1] = ct_tensor_retain(r);
    ct_tensor_release(lim), ct_tensor_release(j0), ct_tensor_release(out2[0]);
    ct_tensor_release(out2[1]), ct_tensor_release(big), ct_tensor_release(r);
    return st;
}

TEST(nested_loops_and_cond) {
    ct_tensor *four = scalar(CT_INT64, 4);
    ct_tensor *in[2] = {scalar(CT_INT64, 0), scalar(CT_FLOAT32, 0)};
    /* reference by hand: acc: i=0: +1 -> 1 -> x2 = 2; i=1: +2 -> 4 -> 8; i=2: +3 -> 11 (>10,
     * kept); i=3: +4 -> 15 */
    ct_tensor *eager[2] = {0}, *cap[2] = {0};
    CHECK_OK(ct_while_loop(ctx, lt_user, outer_body, four, 2, in, eager));
    CHECK(value(eager[0]) == 4 && value(eager[1]) == 15);
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_while_loop(ctx, lt_user, outer_body, four, 2, in, cap));
    CHECK_OK(ct_graph_capture_end(g));
    CHECK_OK(ct_graph_replay(g));
    CHECK_MSG(value(cap[0]) == 4 && value(cap[1]) == 15, "replay: i %g acc %g", value(cap[0]),
              value(cap[1]));
    /* new data: start at acc = 5: i=0: 6 -> 12; i=1: 14; i=2: 17; i=3: 21 */
    ct_tensor *five = scalar(CT_FLOAT32, 5);
    CHECK_OK(ct_tensor_copy_(ctx, in[1], five));
    CHECK_OK(ct_graph_replay(g));
    CHECK_MSG(value(cap[1]) == 21, "replay on new data: acc %g", value(cap[1]));
    char path[] = "/tmp/ct_loop_dumpXXXXXX";
    int fd = mkstemp(path);
    close(fd);
    CHECK_OK(ct_graph_debug_dump(g, path));
    FILE *f = fopen(path, "r");
    char text[1 << 14];
    size_t tl = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[tl] = 0;
    if (f) fclose(f);
    CHECK(strstr(text, "while {") != NULL && strstr(text, "cond pred") != NULL);
    unlink(path);
    ct_graph_free(g);
    ct_tensor *all[] = {four, in[0], in[1], eager[0], eager[1], cap[0], cap[1], five};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}

static ct_status grow(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    ct_status st = ct_tensor_clone(c, v[0], &next[0]);
    if (st == CT_OK) st = ct_tensor_zeros(c, CT_FLOAT32, 1, (int64_t[]){4}, &next[1]);
    return st;
}
static ct_status recast(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **next) {
    (void)user, (void)n;
    ct_status st = ct_tensor_clone(c, v[0], &next[0]);
    if (st == CT_OK) st = ct_cast(c, v[1], CT_FLOAT64, &next[1]);
    return st;
}
static ct_status lt3(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)user, (void)n;
    return ct_lt_scalar(c, v[0], 3, pred);
}
static ct_status wide_pred(ct_ctx *c, void *user, int n, ct_tensor *const *v, ct_tensor **pred) {
    (void)user, (void)n;
    return ct_lt_scalar(c, v[1], 3, pred); /* 3 elements */
}

TEST(errors_name_the_value) {
    ct_tensor *in[2] = {scalar(CT_INT64, 0), NULL}, *out[2] = {0};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &in[1]));
    for (int captured = 0; captured < 2; captured++) {
        ct_graph *g = NULL;
        if (captured) {
            CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
            CHECK_OK(ct_graph_capture_begin(g, NULL));
        }
        CHECK_ST(ct_while_loop(ctx, lt3, grow, NULL, 2, in, out), CT_ERR_SHAPE);
        CHECK_MSG(strstr(ct_ctx_last_error(ctx), "carried value 1") != NULL, "%s",
                  ct_ctx_last_error(ctx));
        CHECK(out[0] == NULL && out[1] == NULL);
        if (captured) {
            CHECK_ST(ct_graph_capture_end(g), CT_ERR_SHAPE); /* the capture was invalidated */
            ct_graph_free(g);
            CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
            CHECK_OK(ct_graph_capture_begin(g, NULL));
        }
        CHECK_ST(ct_while_loop(ctx, lt3, recast, NULL, 2, in, out), CT_ERR_SHAPE);
        CHECK(strstr(ct_ctx_last_error(ctx), "float64") != NULL);
        if (captured) {
            ct_graph_capture_end(g);
            ct_graph_free(g);
            CHECK_OK(ct_graph_create(ctx, CPU, NULL, &g));
            CHECK_OK(ct_graph_capture_begin(g, NULL));
        }
        CHECK_ST(ct_while_loop(ctx, wide_pred, grow, NULL, 2, in, out), CT_ERR_SHAPE);
        CHECK(strstr(ct_ctx_last_error(ctx), "pred") != NULL);
        if (captured) {
            ct_graph_capture_end(g);
            ct_graph_free(g);
        }
    }
    CHECK_ST(ct_while_loop(ctx, NULL, grow, NULL, 2, in, out), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_while_loop(ctx, lt3, grow, NULL, -1, in, out), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_while_loop(ctx, lt3, grow, NULL, 2, in, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(in[0]), ct_tensor_release(in[1]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(newton_eager_and_captured);
    RUN(zero_iterations);
    RUN(nested_loops_and_cond);
    RUN(errors_name_the_value);
    ct_ctx_free(ctx);
    return ct_test_end();
}

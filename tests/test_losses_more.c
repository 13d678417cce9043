/* margin_ranking, hinge_embedding, soft_margin, cosine_embedding, poisson_nll, gaussian_nll,
 * triplet_margin and multilabel_soft_margin losses, pairwise_distance and pixel_(un)shuffle
 * against naive loops in long double (each formula written out element by element, then the
 * mean / sum), gradients against central differences, and the error paths. */
#include "test_util.h"

#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 99;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
#define N 12

static double vals_a[N], vals_b[N], vals_c[N], vals_s[N];
static ct_tensor *A, *B, *C, *Sg; /* (3, 4) f64; Sg: +-1 */

static long double reduce(const long double *e, int n, ct_reduction red) {
    long double s = 0;
    for (int i = 0; i < n; i++)
        s += e[i];
    return red == CT_REDUCTION_MEAN ? s / n : s;
}
/* got (a tensor of n values or a 0-d reduction) against the elementwise e */
static void check(const char *name, ct_tensor *got, const long double *e, int n, ct_reduction red,
                  double tol) {
    double *g = got ? tu_read(got) : NULL;
    CHECK_MSG(g != NULL, "%s: no result", name);
    if (!g) return;
    if (red == CT_REDUCTION_NONE) {
        CHECK(ct_tensor_numel(got) == n);
        for (int i = 0; i < n; i++)
            CHECK_MSG(fabs(g[i] - (double)e[i]) <= tol * (1 + fabsl(e[i])),
                      "%s[%d]: %.17g vs %.17Lg", name, i, g[i], e[i]);
    } else {
        const long double w = reduce(e, n, red);
        CHECK(ct_tensor_ndim(got) == 0);
        CHECK_MSG(fabs(g[0] - (double)w) <= tol * (1 + fabsl(w)), "%s: %.17g vs %.17Lg", name, g[0],
                  w);
    }
    free(g);
}

TEST(elementwise_losses) {
    long double e[N];
    for (int red = 0; red < 3; red++) {
        const ct_reduction R = (ct_reduction)red;
        ct_tensor *r = NULL;
        /* margin ranking: max(0, -s (a - b) + 0.3) */
        for (int i = 0; i < N; i++) {
            const long double v =
                -(long double)vals_s[i] * ((long double)vals_a[i] - vals_b[i]) + 0.3L;
            e[i] = v > 0 ? v : 0;
        }
        CHECK_OK(ct_margin_ranking_loss(ctx, A, B, Sg, 0.3, R, &r));
        check("margin_ranking", r, e, N, R, 1e-14);
        ct_tensor_release(r), r = NULL;
        /* hinge: a where s == 1, max(0, 1.5 - a) where s == -1 */
        for (int i = 0; i < N; i++) {
            const long double m = 1.5L - vals_a[i];
            e[i] = vals_s[i] == 1 ? vals_a[i] : (m > 0 ? m : 0);
        }
        CHECK_OK(ct_hinge_embedding_loss(ctx, A, Sg, 1.5, R, &r));
        check("hinge_embedding", r, e, N, R, 1e-14);
        ct_tensor_release(r), r = NULL;
        /* soft margin: log(1 + exp(-s a)) */
        for (int i = 0; i < N; i++)
            e[i] = log1pl(expl(-(long double)vals_s[i] * vals_a[i]));
        CHECK_OK(ct_soft_margin_loss(ctx, A, Sg, R, &r));
        check("soft_margin", r, e, N, R, 1e-14);
        ct_tensor_release(r), r = NULL;
        /* poisson: exp(a) - b a; then a = |a| with log_input false: a - b log(a + eps), and the
         * Stirling term where b > 1 */
        for (int i = 0; i < N; i++)
            e[i] = expl(vals_a[i]) - (long double)fabs(vals_b[i]) * vals_a[i];
        ct_tensor *bb = NULL, *aa = NULL;
        CHECK_OK(ct_abs(ctx, B, &bb));
        CHECK_OK(ct_abs(ctx, A, &aa));
        CHECK_OK(ct_poisson_nll_loss(ctx, A, bb, true, false, 1e-8, R, &r));
        check("poisson", r, e, N, R, 1e-13);
        ct_tensor_release(r), r = NULL;
        for (int i = 0; i < N; i++) {
            const long double x = fabs(vals_a[i]), t = fabs(vals_b[i]);
            e[i] = x - t * logl(x + 1e-8L);
            if (t > 1) e[i] += t * logl(t) - t + 0.5L * logl(2 * 3.14159265358979323846L * t);
        }
        CHECK_OK(ct_poisson_nll_loss(ctx, aa, bb, false, true, 1e-8, R, &r));
        check("poisson full", r, e, N, R, 1e-13);
        ct_tensor_release(r), r = NULL;
        /* gaussian: 0.5 (log v + (a - b)^2 / v), v = max(|c|, eps); full + 0.5 log(2 pi) */
        ct_tensor *cc = NULL;
        CHECK_OK(ct_abs(ctx, C, &cc));
        for (int i = 0; i < N; i++) {
            long double v = fabs(vals_c[i]);
            if (v < 1e-6L) v = 1e-6L;
            const long double d = (long double)vals_a[i] - vals_b[i];
            e[i] = 0.5L * (logl(v) + d * d / v) + 0.5L * logl(2 * 3.14159265358979323846L);
        }
        CHECK_OK(ct_gaussian_nll_loss(ctx, A, B, cc, true, 1e-6, R, &r));
        check("gaussian", r, e, N, R, 1e-13);
        ct_tensor_release(r), r = NULL;
        ct_tensor_release(aa), ct_tensor_release(bb), ct_tensor_release(cc);
    }
}

/* a user distance for triplet_margin_with_distance_loss: user[0] * sum |x1 - x2| over the last
 * dim */
static ct_status l1_dist(ct_ctx *c, const ct_tensor *x1, const ct_tensor *x2, void *user,
                         ct_tensor **out) {
    ct_tensor *d = NULL, *a = NULL, *s = NULL;
    ct_status st = ct_sub(c, x1, x2, &d);
    if (st == CT_OK) st = ct_abs(c, d, &a);
    if (st == CT_OK) st = ct_sum(c, a, 1, (const int[]){-1}, false, &s);
    if (st == CT_OK) st = ct_mul_scalar(c, s, *(const double *)user, out);
    ct_tensor_release(d), ct_tensor_release(a), ct_tensor_release(s);
    return st;
}
static ct_status failing_dist(ct_ctx *c, const ct_tensor *x1, const ct_tensor *x2, void *user,
                              ct_tensor **out) {
    (void)x1, (void)x2, (void)user, (void)out;
    return ct_tensor_reshape(c, NULL, 0, NULL, out); /* an error with its message */
}

TEST(row_losses_and_distances) {
    long double e[3];
    for (int red = 0; red < 3; red++) {
        const ct_reduction R = (ct_reduction)red;
        ct_tensor *r = NULL;
        /* cosine embedding over rows (targets s[0..2]) with margin 0.1 */
        ct_tensor *t3 = NULL;
        CHECK_OK(ct_tensor_narrow(ctx, Sg, 1, 0, 1, &t3));
        ct_tensor *t = NULL;
        CHECK_OK(ct_tensor_reshape(ctx, t3, 1, SH(3), &t));
        for (int i = 0; i < 3; i++) {
            long double p = 0, m1 = 0, m2 = 0;
            for (int j = 0; j < 4; j++) {
                p += (long double)vals_a[i * 4 + j] * vals_b[i * 4 + j];
                m1 += (long double)vals_a[i * 4 + j] * vals_a[i * 4 + j];
                m2 += (long double)vals_b[i * 4 + j] * vals_b[i * 4 + j];
            }
            const long double cs = p / sqrtl((m1 + 1e-12L) * (m2 + 1e-12L));
            e[i] = vals_s[i * 4] == 1 ? 1 - cs : (cs - 0.1L > 0 ? cs - 0.1L : 0);
        }
        CHECK_OK(ct_cosine_embedding_loss(ctx, A, B, t, 0.1, R, &r));
        check("cosine_embedding", r, e, 3, R, 1e-14);
        ct_tensor_release(r), r = NULL;
        ct_tensor_release(t3), ct_tensor_release(t);
        /* triplet with p = 2 and swap: max(0, 1 + d(a, b) - min(d(a, c), d(b, c))) */
        for (int i = 0; i < 3; i++) {
            long double dab = 0, dac = 0, dbc = 0;
            for (int j = 0; j < 4; j++) {
                const int k = i * 4 + j;
                const long double x = (long double)vals_a[k] - vals_b[k] + 1e-6L;
                const long double y = (long double)vals_a[k] - vals_c[k] + 1e-6L;
                const long double z = (long double)vals_b[k] - vals_c[k] + 1e-6L;
                dab += x * x, dac += y * y, dbc += z * z;
            }
            dab = sqrtl(dab), dac = sqrtl(dac), dbc = sqrtl(dbc);
            const long double v = 1 + dab - (dac < dbc ? dac : dbc);
            e[i] = v > 0 ? v : 0;
        }
        CHECK_OK(ct_triplet_margin_loss(ctx, A, B, C, 1, 2, 1e-6, true, R, &r));
        check("triplet", r, e, 3, R, 1e-13);
        ct_tensor_release(r), r = NULL;
        /* with_distance, the default distance: the same values (torch's order of the terms:
         * d(a, b) - d(a, c) + margin) */
        CHECK_OK(ct_triplet_margin_with_distance_loss(ctx, A, B, C, NULL, NULL, 1, true, R, &r));
        check("triplet_with_distance", r, e, 3, R, 1e-13);
        ct_tensor_release(r), r = NULL;
        /* a user distance (L1 over the last dim, scaled by the user's factor), no swap, margin
         * 0.5 */
        double scale = 0.25;
        for (int i = 0; i < 3; i++) {
            long double dab = 0, dac = 0;
            for (int j = 0; j < 4; j++) {
                const int k = i * 4 + j;
                dab += fabsl((long double)vals_a[k] - vals_b[k]);
                dac += fabsl((long double)vals_a[k] - vals_c[k]);
            }
            const long double v = scale * dab - scale * dac + 0.5L;
            e[i] = v > 0 ? v : 0;
        }
        CHECK_OK(
            ct_triplet_margin_with_distance_loss(ctx, A, B, C, l1_dist, &scale, 0.5, false, R, &r));
        check("triplet_with_l1", r, e, 3, R, 1e-13);
        ct_tensor_release(r), r = NULL;
        /* multilabel soft margin: mean over the 4 classes, targets sigmoid(b) */
        ct_tensor *sb = NULL;
        CHECK_OK(ct_sigmoid(ctx, B, &sb));
        for (int i = 0; i < 3; i++) {
            long double s = 0;
            for (int j = 0; j < 4; j++) {
                const int k = i * 4 + j;
                const long double tt = 1 / (1 + expl(-(long double)vals_b[k]));
                const long double ls1 = -log1pl(expl(-(long double)vals_a[k]));
                const long double ls2 = -log1pl(expl((long double)vals_a[k]));
                s += -(tt * ls1 + (1 - tt) * ls2);
            }
            e[i] = s / 4;
        }
        CHECK_OK(ct_multilabel_soft_margin_loss(ctx, A, sb, NULL, R, &r));
        check("multilabel_soft_margin", r, e, 3, R, 1e-13);
        ct_tensor_release(r), ct_tensor_release(sb);
    }
    /* pairwise distance with p = 1, 3, inf, keepdim */
    const double ps[3] = {1, 3, INFINITY};
    for (int k = 0; k < 3; k++) {
        ct_tensor *r = NULL;
        CHECK_OK(ct_pairwise_distance(ctx, A, B, ps[k], 1e-6, k == 1, &r));
        CHECK(r && ct_tensor_ndim(r) == (k == 1 ? 2 : 1));
        long double e3[3];
        for (int i = 0; i < 3; i++) {
            long double s = 0;
            for (int j = 0; j < 4; j++) {
                const long double x =
                    fabsl((long double)vals_a[i * 4 + j] - vals_b[i * 4 + j] + 1e-6L);
                s = isinf(ps[k]) ? (x > s ? x : s) : s + powl(x, ps[k]);
            }
            e3[i] = isinf(ps[k]) ? s : powl(s, 1 / (long double)ps[k]);
        }
        check("pairwise_distance", r, e3, 3, CT_REDUCTION_NONE, 1e-13);
        ct_tensor_release(r);
    }
}

TEST(pixel_shuffle_round_trip) {
    /* (2, 8, 2, 3) -> (2, 2, 4, 6): out[n, c, h r + i, w r + j] = in[n, c r^2 + i r + j, h, w] */
    double v[96];
    for (int i = 0; i < 96; i++)
        v[i] = i;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT32, 4, SH(2, 8, 2, 3), v), *y = NULL, *z = NULL;
    CHECK_OK(ct_pixel_shuffle(ctx, x, 2, &y));
    CHECK(tu_same_shape(y, 4, SH(2, 2, 4, 6)));
    double *g = y ? tu_read(y) : NULL;
    for (int n = 0; g && n < 2; n++)
        for (int c = 0; c < 2; c++)
            for (int h = 0; h < 4; h++)
                for (int w = 0; w < 6; w++) {
                    const int ci = c * 4 + (h % 2) * 2 + (w % 2);
                    const double want = v[((n * 8 + ci) * 2 + h / 2) * 3 + w / 2];
                    CHECK(g[((n * 2 + c) * 4 + h) * 6 + w] == want);
                }
    free(g);
    CHECK_OK(ct_pixel_unshuffle(ctx, y, 2, &z));
    CHECK(tu_same_values(z, x));
    ct_tensor *bad = NULL;
    CHECK_ST(ct_pixel_shuffle(ctx, x, 3, &bad), CT_ERR_SHAPE);
    CHECK_ST(ct_pixel_unshuffle(ctx, x, 2, &bad), CT_ERR_SHAPE); /* width 3 */
    CHECK_ST(ct_pixel_shuffle(ctx, x, 0, &bad), CT_ERR_INVALID_ARG);
    ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(z);
}

TEST(errors) {
    ct_tensor *r = NULL, *neg = NULL;
    CHECK_ST(ct_soft_margin_loss(ctx, A, Sg, (ct_reduction)7, &r), CT_ERR_INVALID_ARG);
    const double iv[3] = {1, 2, 3};
    ct_tensor *i3 = tu_from_vals(ctx, CT_INT32, 1, SH(3), iv);
    CHECK_ST(ct_soft_margin_loss(ctx, i3, i3, CT_REDUCTION_MEAN, &r), CT_ERR_DTYPE);
    CHECK_ST(ct_cosine_embedding_loss(ctx, A, B, A, 0, CT_REDUCTION_MEAN, &r), CT_ERR_SHAPE);
    ct_tensor *cm = NULL; /* -C^2: negative variances */
    CHECK_OK(ct_mul(ctx, C, C, &cm));
    CHECK_OK(ct_neg(ctx, cm, &neg));
    CHECK_ST(ct_gaussian_nll_loss(ctx, A, B, neg, false, 1e-6, CT_REDUCTION_MEAN, &r),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "negative"));
    /* var (3): input's shape without its last dim, accepted (torch unsqueezes it); var (2): not */
    ct_tensor *v3 = tu_from_vals(ctx, CT_FLOAT64, 1, SH(3), iv), *v2 = NULL;
    CHECK_OK(ct_gaussian_nll_loss(ctx, A, B, v3, false, 1e-6, CT_REDUCTION_MEAN, &r));
    ct_tensor_release(r), r = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, v3, 0, 0, 2, &v2));
    CHECK_ST(ct_gaussian_nll_loss(ctx, A, B, v2, false, 1e-6, CT_REDUCTION_MEAN, &r), CT_ERR_SHAPE);
    CHECK(r == NULL);
    ct_tensor_release(v2);
    ct_tensor_release(i3), ct_tensor_release(neg), ct_tensor_release(cm), ct_tensor_release(v3);
}

/* gradients */
static ct_status g_margin(const ct_tensor *x, ct_tensor **y) {
    return ct_margin_ranking_loss(ctx, x, B, Sg, 0.3, CT_REDUCTION_SUM, y);
}
static ct_status g_hinge(const ct_tensor *x, ct_tensor **y) {
    return ct_hinge_embedding_loss(ctx, x, Sg, 1.5, CT_REDUCTION_NONE, y);
}
static ct_status g_soft(const ct_tensor *x, ct_tensor **y) {
    return ct_soft_margin_loss(ctx, x, Sg, CT_REDUCTION_MEAN, y);
}
static ct_status g_cos(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *t = NULL, *t3 = NULL;
    ct_status st = ct_tensor_narrow(ctx, Sg, 1, 0, 1, &t3);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t3, 1, SH(3), &t);
    if (st == CT_OK) st = ct_cosine_embedding_loss(ctx, x, B, t, -0.5, CT_REDUCTION_NONE, y);
    ct_tensor_release(t), ct_tensor_release(t3);
    return st;
}
static ct_status g_poisson(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *bb = NULL;
    ct_status st = ct_abs(ctx, B, &bb);
    if (st == CT_OK) st = ct_poisson_nll_loss(ctx, x, bb, true, true, 1e-8, CT_REDUCTION_NONE, y);
    ct_tensor_release(bb);
    return st;
}
static ct_status g_gauss(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *v = NULL, *v1 = NULL;
    ct_status st = ct_mul(ctx, x, x, &v);
    if (st == CT_OK) st = ct_add_scalar(ctx, v, 0.5, &v1);
    if (st == CT_OK) st = ct_gaussian_nll_loss(ctx, x, B, v1, false, 1e-6, CT_REDUCTION_SUM, y);
    ct_tensor_release(v), ct_tensor_release(v1);
    return st;
}
static ct_status g_triplet(const ct_tensor *x, ct_tensor **y) {
    return ct_triplet_margin_loss(ctx, x, B, C, 5, 2, 1e-6, false, CT_REDUCTION_NONE, y);
}
static ct_status g_triplet_dist(const ct_tensor *x, ct_tensor **y) {
    double scale = 1.5;
    return ct_triplet_margin_with_distance_loss(ctx, B, x, C, l1_dist, &scale, 5, true,
                                                CT_REDUCTION_NONE, y);
}
static ct_status g_multi(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *sb = NULL;
    ct_status st = ct_sigmoid(ctx, B, &sb);
    if (st == CT_OK) st = ct_multilabel_soft_margin_loss(ctx, x, sb, NULL, CT_REDUCTION_NONE, y);
    ct_tensor_release(sb);
    return st;
}
static ct_status g_pixel(const ct_tensor *x, ct_tensor **y) {
    ct_tensor *r = NULL;
    ct_status st = ct_tensor_reshape(ctx, x, 3, SH(4, 1, 3), &r);
    if (st == CT_OK) st = ct_pixel_shuffle(ctx, r, 2, y);
    ct_tensor_release(r);
    return st;
}

/* a failing distance stops the loss with its status, nothing leaks, no result */
TEST(distance_failure) {
    ct_tensor *r = NULL;
    CHECK(ct_triplet_margin_with_distance_loss(ctx, A, B, C, failing_dist, NULL, 1, false,
                                               CT_REDUCTION_MEAN, &r) != CT_OK &&
          r == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "triplet_margin_with_distance_loss") != NULL);
}

TEST(gradients) {
    struct {
        const char *name;
        tu_fn1 f;
    } g[] = {{"margin_ranking", g_margin}, {"hinge", g_hinge},
             {"soft_margin", g_soft},      {"cosine_embedding", g_cos},
             {"poisson", g_poisson},       {"gaussian", g_gauss},
             {"triplet", g_triplet},       {"multilabel", g_multi},
             {"pixel_shuffle", g_pixel},   {"triplet_with_distance", g_triplet_dist}};
    for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++)
        tu_gradcheck(ctx, &rng, g[k].name, g[k].f, 2, SH(3, 4));
}

int main(void) {
    ctx = tu_ctx_or_skip();
    for (int i = 0; i < N; i++) {
        vals_a[i] = tu_rand_val(&rng, CT_FLOAT64, -2, 2);
        vals_b[i] = tu_rand_val(&rng, CT_FLOAT64, -2, 2);
        vals_c[i] = tu_rand_val(&rng, CT_FLOAT64, -2, 2);
        vals_s[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1) < 0 ? -1 : 1;
    }
    vals_c[3] = 1e-9; /* a variance below eps */
    A = tu_from_vals(ctx, CT_FLOAT64, 2, SH(3, 4), vals_a);
    B = tu_from_vals(ctx, CT_FLOAT64, 2, SH(3, 4), vals_b);
    C = tu_from_vals(ctx, CT_FLOAT64, 2, SH(3, 4), vals_c);
    Sg = tu_from_vals(ctx, CT_FLOAT64, 2, SH(3, 4), vals_s);
    RUN(elementwise_losses);
    RUN(row_losses_and_distances);
    RUN(pixel_shuffle_round_trip);
    RUN(errors);
    RUN(gradients);
    RUN(distance_failure);
    ct_tensor_release(A), ct_tensor_release(B), ct_tensor_release(C), ct_tensor_release(Sg);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

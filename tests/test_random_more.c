/* normal, normal_scalar, randint_like, the in-place fills (uniform_, normal_, exponential_,
 * cauchy_, log_normal_, geometric_), poisson, binomial and multinomial: reproducibility from
 * (seed, offset), the support of every sample, moments against the exact ones (within 6 standard
 * errors of 10^5 samples), chi-square goodness of fit against the exact probability mass
 * functions (each algorithm path of poisson and binomial, multinomial with and without
 * replacement), torch's edge values and errors. The seeds are fixed, so every run is the same. */
#include "test_util.h"

static ct_ctx *ctx;
#define SH(...) ((const int64_t[]){__VA_ARGS__})
enum { NS = 100000 };

static double *vals(const ct_tensor *t) { return t ? tu_read(t) : NULL; }
static void moments(const double *v, int64_t n, double *mean, double *var) {
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    for (int64_t i = 0; i < n; i++)
        s2 += (v[i] - *mean) * (v[i] - *mean);
    *var = s2 / (double)(n - 1);
}
/* mean within 6 standard errors, variance within 6 of its standard errors (fourth moment given) */
static void check_moments(const char *what, const ct_tensor *t, double mu, double var,
                          double kurt_excess) {
    double *v = vals(t), m = 0, s2 = 0;
    const int64_t n = t ? ct_tensor_numel(t) : 0;
    CHECK_MSG(v && n > 1, "%s: no samples", what);
    if (!v || n < 2) {
        free(v);
        return;
    }
    moments(v, n, &m, &s2);
    const double se_m = sqrt(var / (double)n), se_v = var * sqrt((2 + kurt_excess) / (double)n);
    CHECK_MSG(fabs(m - mu) <= 6 * se_m + 1e-12, "%s: mean %.6g, want %.6g (se %.3g)", what, m, mu,
              se_m);
    CHECK_MSG(fabs(s2 - var) <= 6 * se_v + 1e-12, "%s: variance %.6g, want %.6g (se %.3g)", what,
              s2, var, se_v);
    free(v);
}
/* chi-square of the counts of integer samples against pmf(k) (bins with expected >= 5, the rest
 * pooled): below df + 6 sqrt(2 df) */
static void check_pmf(const char *what, const ct_tensor *t, double (*pmf)(double, const double *),
                      const double *par, int64_t kmax) {
    double *v = vals(t);
    const int64_t n = t ? ct_tensor_numel(t) : 0;
    if (!v) {
        CHECK_MSG(0, "%s: no samples", what);
        return;
    }
    double *cnt = calloc((size_t)kmax + 2, sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        const double k = v[i];
        CHECK_MSG(k >= 0 && k == floor(k), "%s: sample %g is not a count", what, k);
        cnt[k >= 0 && k <= (double)kmax ? (int64_t)k : kmax + 1] += 1;
    }
    double chi = 0, pool_e = 0, pool_o = 0, tot = 0;
    int df = -1;
    for (int64_t k = 0; k <= kmax; k++) {
        const double e = pmf((double)k, par) * (double)n;
        tot += e;
        if (e >= 5) {
            chi += (cnt[k] - e) * (cnt[k] - e) / e;
            df++;
        } else {
            pool_e += e, pool_o += cnt[k];
        }
    }
    pool_e += (double)n - tot, pool_o += cnt[kmax + 1];
    if (pool_e >= 5) {
        chi += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
        df++;
    } else {
        CHECK_MSG(pool_o <= pool_e + 10, "%s: %g samples in bins expecting %g", what, pool_o,
                  pool_e);
    }
    CHECK_MSG(df > 0 && chi <= df + 6 * sqrt(2.0 * df), "%s: chi-square %.1f with %d df", what, chi,
              df);
    free(cnt), free(v);
}
static double pois_pmf(double k, const double *p) {
    return exp(k * log(p[0]) - p[0] - lgamma(k + 1));
}
static double binom_pmf(double k, const double *p) {
    const double n = p[0], q = p[1];
    if (k > n) return 0;
    return exp(lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * log(q) +
               (n - k) * log1p(-q));
}

TEST(normal_and_fills) {
    ct_tensor *m = NULL, *s = NULL, *y = NULL, *y2 = NULL, *y3 = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(NS), 3.0, &m));
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 0, NULL, 2.0, &s));
    CHECK_OK(ct_normal(ctx, m, s, 1, 0, &y));
    check_moments("normal", y, 3, 4, 0);
    CHECK_OK(ct_normal(ctx, m, s, 1, 0, &y2));
    CHECK_MSG(tu_same_values(y, y2), "normal: the same seed and offset give the same samples");
    CHECK_OK(ct_normal(ctx, m, s, 1, 7, &y3));
    CHECK_MSG(!tu_same_values(y, y3), "normal: another offset gives other samples");
    ct_tensor *neg = NULL, *mi = NULL, *r = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(2), -1.0, &neg));
    ct_tensor *two = NULL;
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(2), 1.0, &two));
    CHECK_ST(ct_normal(ctx, m, two, 1, 0, &r), CT_ERR_SHAPE); /* NS against 2 */
    ct_tensor_release(two);
    CHECK_ST(ct_normal(ctx, s, neg, 1, 0, &r), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, SH(3), &mi));
    CHECK_ST(ct_normal(ctx, mi, mi, 1, 0, &r), CT_ERR_DTYPE);
    ct_tensor *tl[] = {y, y2, y3};
    for (int i = 0; i < 3; i++)
        ct_tensor_release(tl[i]);
    CHECK_OK(ct_normal_scalar(ctx, -1, 0.5, CT_FLOAT32, 1, SH(NS), 2, 0, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT32);
    check_moments("normal_scalar", y, -1, 0.25, 0);
    ct_tensor_release(y);
    CHECK_ST(ct_normal_scalar(ctx, 0, -1, CT_FLOAT32, 1, SH(3), 2, 0, &y), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_randint_like(ctx, mi, -4, 9, 3, 0, &y));
    double *v = vals(y);
    for (int i = 0; v && i < 3; i++)
        CHECK(v[i] >= -4 && v[i] < 9 && v[i] == floor(v[i]));
    CHECK(y && ct_tensor_dtype(y) == CT_INT64);
    free(v), ct_tensor_release(y);
    /* fills: a float64 buffer and a float32 strided view */
    ct_tensor *b = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(NS), &b));
    CHECK_OK(ct_tensor_uniform_(ctx, b, -2, 6, 4, 0));
    v = vals(b);
    for (int i = 0; v && i < NS; i++)
        if (!(v[i] >= -2 && v[i] < 6)) {
            CHECK_MSG(0, "uniform_ sample %g outside [-2, 6)", v[i]);
            break;
        }
    free(v);
    check_moments("uniform_", b, 2, 64.0 / 12, -1.2);
    CHECK_OK(ct_tensor_normal_(ctx, b, 1, 3, 5, 0));
    check_moments("normal_", b, 1, 9, 0);
    CHECK_OK(ct_tensor_exponential_(ctx, b, 2, 6, 0));
    check_moments("exponential_", b, 0.5, 0.25, 6);
    CHECK_OK(ct_tensor_log_normal_(ctx, b, 0.2, 0.3, 7, 0));
    const double lm = exp(0.2 + 0.045), lv = (exp(0.09) - 1) * exp(0.4 + 0.09);
    check_moments("log_normal_", b, lm, lv, exp(0.36) + 2 * exp(0.27) + 3 * exp(0.18) - 6);
    CHECK_OK(ct_tensor_geometric_(ctx, b, 0.25, 8, 0));
    check_moments("geometric_", b, 4, 12, 6 + 0.0625 / 0.75);
    CHECK_OK(ct_tensor_cauchy_(ctx, b, 5, 2, 9, 0)); /* quartiles median -+ sigma */
    v = vals(b);
    int below = 0, inner = 0;
    for (int i = 0; v && i < NS; i++)
        below += v[i] < 5, inner += fabs(v[i] - 5) < 2;
    CHECK_MSG(abs(below - NS / 2) < 6 * 158 && abs(inner - NS / 2) < 6 * 158,
              "cauchy_: %d below the median, %d within one sigma", below, inner);
    free(v);
    ct_tensor *e = NULL, *view = NULL, *gi = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, SH(4, 6), &e));
    CHECK_OK(ct_tensor_slice(ctx, e, 1, 0, 6, 2, &view));
    CHECK_OK(ct_tensor_uniform_(ctx, view, 1, 2, 10, 0)); /* only every other column */
    v = vals(e);
    for (int i = 0; v && i < 24; i++)
        CHECK_MSG(i % 2 ? v[i] == 0 : (v[i] >= 1 && v[i] <= 2), "uniform_ through a view [%d]", i);
    free(v);
    CHECK_OK(ct_tensor_exponential_(ctx, e, 0, 1, 0));
    v = vals(e);
    CHECK(v && isinf(v[0]) && v[0] > 0);
    free(v);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, SH(5), &gi));
    CHECK_OK(ct_tensor_geometric_(ctx, gi, 0.5, 11, 0));
    v = vals(gi);
    for (int i = 0; v && i < 5; i++)
        CHECK(v[i] >= 1 && v[i] == floor(v[i]));
    free(v);
    CHECK_ST(ct_tensor_uniform_(ctx, e, 2, 1, 0, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_geometric_(ctx, e, 1, 0, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_exponential_(ctx, e, -1, 0, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_cauchy_(ctx, e, 0, INFINITY, 0, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_log_normal_(ctx, e, 0, 0, 0, 0), CT_ERR_INVALID_ARG); /* std > 0 */
    CHECK_ST(ct_tensor_uniform_(ctx, e, -3e38, 3e38, 0, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_tensor_normal_(ctx, gi, 0, 1, 0, 0), CT_ERR_DTYPE);
    ct_tensor *tl2[] = {m, s, neg, mi, b, e, view, gi};
    for (int i = 0; i < 8; i++)
        ct_tensor_release(tl2[i]);
}

TEST(poisson) {
    const double rates[] = {0.5, 3, 9.9, 10, 37, 1000, 1e7};
    for (int r = 0; r < 7; r++) {
        ct_tensor *lam = NULL, *y = NULL;
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(NS), rates[r], &lam));
        CHECK_OK(ct_poisson(ctx, lam, 20 + (uint64_t)r, 0, &y));
        char what[48];
        snprintf(what, sizeof what, "poisson(%g)", rates[r]);
        check_moments(what, y, rates[r], rates[r], 1 / rates[r]);
        if (rates[r] <= 1000) check_pmf(what, y, pois_pmf, &rates[r], (int64_t)(rates[r] * 3 + 30));
        ct_tensor_release(lam), ct_tensor_release(y);
    }
    ct_tensor *lam = NULL, *y = NULL, *y2 = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, (const float[]){0, INFINITY, 2}, CT_FLOAT32, 1, SH(3), &lam));
    CHECK_OK(ct_poisson(ctx, lam, 1, 0, &y));
    CHECK_OK(ct_poisson(ctx, lam, 1, 0, &y2));
    double *v = vals(y);
    CHECK(v && v[0] == 0 && isinf(v[1]) && ct_tensor_dtype(y) == CT_FLOAT32);
    CHECK(tu_same_values(y, y2));
    free(v), ct_tensor_release(lam), ct_tensor_release(y), ct_tensor_release(y2);
    CHECK_OK(ct_tensor_from_host(ctx, (const double[]){1, -1}, CT_FLOAT64, 1, SH(2), &lam));
    CHECK_ST(ct_poisson(ctx, lam, 1, 0, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "non-negative") != NULL);
    ct_tensor_release(lam);
}

TEST(binomial) {
    /* the last two: counts where lgamma differences have no digits left (Stirling tails) */
    const double np[][2] = {{10, 0.3},   {100, 0.05}, {20, 0.9},     {200, 0.4},
                            {1000, 0.5}, {1e6, 0.9},  {1e15, 1e-10}, {1e17, 1e-12}};
    for (int r = 0; r < 8; r++) {
        ct_tensor *n = NULL, *p = NULL, *y = NULL;
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(NS), np[r][0], &n));
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 1, SH(NS), np[r][1], &p));
        CHECK_OK(ct_binomial(ctx, n, p, 40 + (uint64_t)r, 0, &y));
        char what[48];
        snprintf(what, sizeof what, "binomial(%g, %g)", np[r][0], np[r][1]);
        const double q = np[r][1], mu = np[r][0] * q, var = mu * (1 - q);
        check_moments(what, y, mu, var, (1 - 6 * q * (1 - q)) / var);
        if (np[r][0] <= 1000) check_pmf(what, y, binom_pmf, np[r], (int64_t)np[r][0]);
        double *v = vals(y);
        for (int i = 0; v && i < NS; i++)
            if (!(v[i] >= 0 && v[i] <= np[r][0])) {
                CHECK_MSG(0, "%s: sample %g outside [0, n]", what, v[i]);
                break;
            }
        free(v);
        ct_tensor_release(n), ct_tensor_release(p), ct_tensor_release(y);
    }
    /* torch's edge values: count <= 0 or p <= 0 give 0, p >= 1 the count, NaN NaN */
    ct_tensor *n = NULL, *p = NULL, *y = NULL;
    CHECK_OK(
        ct_tensor_from_host(ctx, (const double[]){5, -5, 5, 2.5, 5, 5}, CT_FLOAT64, 1, SH(6), &n));
    CHECK_OK(ct_tensor_from_host(ctx, (const double[]){1.5, 0.5, 0, 1, NAN, -0.5}, CT_FLOAT64, 1,
                                 SH(6), &p));
    CHECK_OK(ct_binomial(ctx, n, p, 1, 0, &y));
    double *v = vals(y);
    CHECK(v && v[0] == 5 && v[1] == 0 && v[2] == 0 && v[3] == 2.5 && isnan(v[4]) && v[5] == 0);
    free(v), ct_tensor_release(y);
    CHECK_ST(ct_binomial(ctx, n, y = NULL, 1, 0, &y), CT_ERR_INVALID_ARG);
    ct_tensor_release(n), ct_tensor_release(p);
}

TEST(multinomial) {
    /* with replacement: frequencies against p (never the zero category) */
    ct_tensor *p = NULL, *y = NULL;
    const double pv[4] = {0.1, 0, 0.6, 0.3};
    CHECK_OK(ct_tensor_from_host(ctx, pv, CT_FLOAT64, 1, SH(4), &p));
    CHECK_OK(ct_multinomial(ctx, p, NS, true, 60, 0, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_INT64 && tu_same_shape(y, 1, SH(NS)));
    double *v = vals(y), cnt[4] = {0};
    for (int i = 0; v && i < NS; i++)
        cnt[(int)v[i] & 3] += 1;
    free(v);
    CHECK_MSG(cnt[1] == 0, "multinomial drew a zero-probability category %g times", cnt[1]);
    double chi = 0;
    for (int k = 0; k < 4; k++)
        if (pv[k] > 0) chi += (cnt[k] - pv[k] * NS) * (cnt[k] - pv[k] * NS) / (pv[k] * NS);
    CHECK_MSG(chi < 2 + 6 * 2, "multinomial with replacement: chi-square %.1f (2 df)", chi);
    ct_tensor_release(y), ct_tensor_release(p);
    /* without replacement: each row a permutation; the first pick proportional to the weights */
    const int64_t R = 20000;
    ct_tensor *w = NULL, *row = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, (const double[]){1, 2, 3, 4}, CT_FLOAT64, 2, SH(1, 4), &row));
    CHECK_OK(ct_tensor_expand(ctx, row, 2, SH(R, 4), &w));
    CHECK_OK(ct_multinomial(ctx, w, 4, false, 61, 0, &y));
    CHECK(tu_same_shape(y, 2, SH(R, 4)));
    v = vals(y);
    double first[4] = {0};
    for (int64_t r = 0; v && r < R; r++) {
        int seen = 0;
        for (int k = 0; k < 4; k++)
            seen |= 1 << ((int)v[r * 4 + k] & 3);
        if (seen != 15) {
            CHECK_MSG(0, "multinomial without replacement: row %lld repeats a category",
                      (long long)r);
            break;
        }
        first[(int)v[r * 4] & 3] += 1;
    }
    free(v);
    chi = 0;
    for (int k = 0; k < 4; k++) {
        const double e = (k + 1) / 10.0 * (double)R;
        chi += (first[k] - e) * (first[k] - e) / e;
    }
    CHECK_MSG(chi < 3 + 6 * sqrt(6.0), "multinomial without replacement: chi-square %.1f", chi);
    ct_tensor_release(y);
    /* torch's errors */
    ct_tensor *bad = NULL, *zero = NULL, *ints = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, (const double[]){-1, 1}, CT_FLOAT64, 1, SH(2), &bad));
    CHECK_ST(ct_multinomial(ctx, bad, 1, true, 0, 0, &y), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT64, 1, SH(2), &zero));
    CHECK_ST(ct_multinomial(ctx, zero, 1, true, 0, 0, &y), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "sum of probabilities") != NULL);
    CHECK_ST(ct_multinomial(ctx, row, 5, false, 0, 0, &y), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_multinomial(ctx, row, 0, true, 0, 0, &y), CT_ERR_INVALID_ARG);
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, SH(2), &ints));
    CHECK_ST(ct_multinomial(ctx, ints, 1, true, 0, 0, &y), CT_ERR_DTYPE);
    CHECK(y == NULL);
    ct_tensor *tl[] = {w, row, bad, zero, ints};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(tl[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(normal_and_fills);
    RUN(poisson);
    RUN(binomial);
    RUN(multinomial);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

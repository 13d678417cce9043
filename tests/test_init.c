/* torch.nn.init and torch.nn.utils (include/ctorch/init.h) against PyTorch 1.13
 * (tests/data/init_ref.h, from scripts/gen_init_ref.py): calculate_gain and the fans exactly; the
 * bounds / standard deviations xavier_* and kaiming_* use equal torch's bit for bit (the fill then
 * equals ct_tensor_uniform_ / normal_ with those arguments); eye_ / dirac_ exactly;
 * norm_except_dim, _weight_norm and spectral_norm (values, u / v after the power iteration,
 * gradients) to rounding; the fusions in float32. Random fills against their distributions:
 * trunc_normal_ by a Kolmogorov-Smirnov test against the exact truncated CDF (also far in a tail,
 * where torch's method fails), orthogonal_ against a LAPACK QR of the same normal draw, sparse_'s
 * zero count per column. Views, leaf parameters, errors. */
#include "test_util.h"

#include "data/init_ref.h"

#include <lapacke.h>
#include <stdint.h>
#include <string.h>

static ct_ctx *ctx;
static unsigned long long rng = 99;

#define REF(name) tu_from_vals(ctx, CT_FLOAT64, name##_nd, name##_shape, name)
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static bool msg_has(const char *s) { return strstr(ct_ctx_last_error(ctx), s) != NULL; }

/* max |a - ref| / max(1, |ref|) over the elements, shapes equal (else inf) */
static double rel_err(const ct_tensor *a, const double *ref, int nd, const int64_t *shape) {
    if (!tu_same_shape(a, nd, shape)) return INFINITY;
    double *v = tu_read(a), e = 0;
    for (int64_t i = 0; i < ct_tensor_numel(a); i++) {
        double d = fabs(v[i] - ref[i]) / fmax(1.0, fabs(ref[i]));
        e = d > e || isnan(d) ? d : e;
    }
    free(v);
    return e;
}
#define CHECK_REF(t, name, tol)                                                                    \
    do {                                                                                           \
        double e_ = rel_err(t, name, name##_nd, name##_shape);                                     \
        CHECK_MSG(e_ <= (tol), "%s: error %g", #name, e_);                                         \
    } while (0)

TEST(gains_and_fans_match_torch) {
    for (int i = 0; i < NELEM(GAIN); i++) {
        double g = -1;
        CHECK_OK(
            ct_init_calculate_gain(ctx, GAIN[i].name, GAIN[i].has ? &GAIN[i].param : NULL, &g));
        CHECK_MSG(g == GAIN[i].gain, "%s: %.17g torch %.17g", GAIN[i].name, g, GAIN[i].gain);
    }
    double g;
    CHECK_ST(ct_init_calculate_gain(ctx, "softmax", NULL, &g), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Unsupported nonlinearity softmax"));
    CHECK_ST(ct_init_calculate_gain(ctx, "Relu", NULL, &g), CT_ERR_INVALID_ARG); /* as torch */
    CHECK_ST(ct_init_calculate_gain(ctx, NULL, NULL, &g), CT_ERR_INVALID_ARG);
    for (int i = 0; i < NELEM(FAN); i++) {
        ct_tensor *t = NULL;
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, FAN[i].nd, FAN[i].shape, &t));
        int64_t fi = -1, fo = -1;
        CHECK_OK(ct_init_fan_in_and_fan_out(ctx, t, &fi, &fo));
        CHECK_MSG(fi == FAN[i].fi && fo == FAN[i].fo, "case %d: %lld %lld", i, (long long)fi,
                  (long long)fo);
        ct_tensor_release(t);
    }
    ct_tensor *v = NULL;
    int64_t fi, fo;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, (int64_t[]){5}, &v));
    CHECK_ST(ct_init_fan_in_and_fan_out(ctx, v, &fi, &fo), CT_ERR_INVALID_ARG);
    CHECK(msg_has("fewer than 2 dimensions"));
    CHECK_ST(ct_init_xavier_uniform_(ctx, v, 1, 0, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_kaiming_normal_(ctx, v, 0, NULL, NULL, 0, 0), CT_ERR_INVALID_ARG);
    ct_tensor_release(v);
}

/* Each xavier / kaiming call fills exactly what ct_tensor_uniform_ / normal_ fill with the
 * arguments torch passes them. */
TEST(xavier_kaiming_use_torchs_bounds) {
    for (int i = 0; i < NELEM(BOUND); i++) {
        ct_tensor *t = NULL, *r = NULL;
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, BOUND[i].nd, BOUND[i].shape, &t));
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, BOUND[i].nd, BOUND[i].shape, &r));
        const uint64_t seed = 100 + (uint64_t)i, off = 7;
        ct_status st;
        switch (BOUND[i].fn) {
        case 0: st = ct_init_xavier_uniform_(ctx, t, BOUND[i].arg, seed, off); break;
        case 1: st = ct_init_xavier_normal_(ctx, t, BOUND[i].arg, seed, off); break;
        case 2:
            st = ct_init_kaiming_uniform_(ctx, t, BOUND[i].arg, BOUND[i].mode, BOUND[i].nl, seed,
                                          off);
            break;
        default:
            st = ct_init_kaiming_normal_(ctx, t, BOUND[i].arg, BOUND[i].mode, BOUND[i].nl, seed,
                                         off);
        }
        CHECK_MSG(st == CT_OK, "case %d: %s", i, ct_ctx_last_error(ctx));
        if (BOUND[i].kind == 0)
            CHECK_OK(ct_tensor_uniform_(ctx, r, BOUND[i].p1, BOUND[i].p2, seed, off));
        else
            CHECK_OK(ct_tensor_normal_(ctx, r, BOUND[i].p1, BOUND[i].p2, seed, off));
        CHECK_MSG(tu_same_values(t, r), "case %d (fn %d, mode %s, %s): values differ", i,
                  BOUND[i].fn, BOUND[i].mode, BOUND[i].nl);
        ct_tensor_release(t), ct_tensor_release(r);
    }
}

/* A float32 parameter that requires grad, filled through a transposed view; the sample's spread. */
TEST(kaiming_on_a_leaf_view) {
    ct_tensor *p = NULL, *pt = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){512, 256}, &p));
    CHECK_OK(ct_tensor_set_requires_grad(p, true));
    CHECK_OK(ct_tensor_transpose(ctx, p, 0, 1, &pt)); /* (256, 512): fan_in 512 */
    CHECK_OK(ct_init_kaiming_uniform_(ctx, pt, sqrt(5.0), NULL, NULL, 3, 0));
    CHECK(ct_tensor_requires_grad(p) && ct_tensor_is_leaf(p));
    const double bound = sqrt(2.0 / 6.0) * sqrt(3.0 / 512); /* gain sqrt(2 / (1 + 5)) */
    double *v = tu_read(p), mx = 0, s2 = 0;
    const int64_t n = 512 * 256;
    for (int64_t i = 0; i < n; i++) {
        mx = fmax(mx, fabs(v[i]));
        s2 += v[i] * v[i];
    }
    CHECK_MSG(mx <= bound * (1 + 1e-7) && mx > 0.999 * bound, "max %g bound %g", mx, bound);
    const double var = s2 / (double)n, want = bound * bound / 3;
    CHECK_MSG(fabs(var / want - 1) < 0.02, "variance %g want %g", var, want);
    free(v);
    /* zero elements: a no-op (torch warns), even with fewer than 2 dims */
    ct_tensor *e = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, (int64_t[]){0}, &e));
    CHECK_OK(ct_init_kaiming_uniform_(ctx, e, 0, "bogus", "bogus", 1, 0));
    /* bad mode / nonlinearity / dtype */
    CHECK_ST(ct_init_kaiming_uniform_(ctx, pt, 0, "fan_avg", NULL, 1, 0), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Mode fan_avg not supported"));
    CHECK_ST(ct_init_kaiming_normal_(ctx, pt, 0, "fan_in", "gelu", 1, 0), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Unsupported nonlinearity gelu"));
    ct_tensor *iw = NULL, *z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT32, 2, (int64_t[]){3, 4}, &iw));
    CHECK_ST(ct_init_xavier_uniform_(ctx, iw, 1, 1, 0), CT_ERR_DTYPE);
    CHECK_ST(ct_init_normal_(ctx, iw, 0, 1, 1, 0), CT_ERR_DTYPE);
    CHECK_OK(ct_init_constant_(ctx, iw, 7)); /* fills any dtype */
    double *iv = tu_read(iw);
    CHECK(iv[0] == 7 && iv[11] == 7);
    free(iv);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){0, 0}, &z));
    CHECK_ST(ct_init_xavier_normal_(ctx, z, 1, 1, 0), CT_ERR_INVALID_ARG);    /* torch: 1 / 0 */
    CHECK_ST(ct_init_xavier_uniform_(ctx, pt, -1, 1, 0), CT_ERR_INVALID_ARG); /* from > to */
    ct_tensor_release(p), ct_tensor_release(pt), ct_tensor_release(e), ct_tensor_release(iw);
    ct_tensor_release(z);
}

TEST(constant_ones_zeros_uniform_normal) {
    ct_tensor *p = NULL, *col = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){3, 4}, &p));
    CHECK_OK(ct_tensor_set_requires_grad(p, true));
    CHECK_OK(ct_tensor_narrow(ctx, p, 1, 1, 2, &col));
    CHECK_OK(ct_init_ones_(ctx, p));
    CHECK_OK(ct_init_constant_(ctx, col, 2.5)); /* a view of the leaf */
    double *v = tu_read(p);
    for (int i = 0; i < 12; i++)
        CHECK(v[i] == ((i % 4 == 1 || i % 4 == 2) ? 2.5 : 1.0));
    free(v);
    CHECK_OK(ct_init_zeros_(ctx, p));
    v = tu_read(p);
    for (int i = 0; i < 12; i++)
        CHECK(v[i] == 0 && !signbit(v[i]));
    free(v);
    ct_tensor *u = NULL, *r = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, 2, (int64_t[]){40, 50}, &u));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, 2, (int64_t[]){40, 50}, &r));
    CHECK_OK(ct_init_uniform_(ctx, u, -3, 5, 9, 1));
    CHECK_OK(ct_tensor_uniform_(ctx, r, -3, 5, 9, 1));
    CHECK(tu_same_values(u, r));
    CHECK_OK(ct_init_normal_(ctx, u, 1, 0.5, 9, 1));
    CHECK_OK(ct_tensor_normal_(ctx, r, 1, 0.5, 9, 1));
    CHECK(tu_same_values(u, r));
    CHECK_ST(ct_init_uniform_(ctx, u, 2, 1, 9, 1), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_normal_(ctx, u, 0, -1, 9, 1), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_ones_(ctx, NULL), CT_ERR_INVALID_ARG);
    ct_tensor_release(p), ct_tensor_release(col), ct_tensor_release(u), ct_tensor_release(r);
}

TEST(eye_and_dirac_match_torch) {
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, eye35_shape, &t));
    CHECK_OK(ct_init_eye_(ctx, t));
    CHECK_REF(t, eye35, 0);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_empty(ctx, CT_INT64, 2, eye52_shape, &t));
    CHECK_OK(ct_init_eye_(ctx, t));
    CHECK_REF(t, eye52, 0);
    ct_tensor_release(t);
    const double *dref[] = {dirac0, dirac1, dirac2, dirac3, dirac4, dirac5};
    const int64_t *dshape[] = {dirac0_shape, dirac1_shape, dirac2_shape,
                               dirac3_shape, dirac4_shape, dirac5_shape};
    const int dnd[] = {dirac0_nd, dirac1_nd, dirac2_nd, dirac3_nd, dirac4_nd, dirac5_nd};
    for (int i = 0; i < 6; i++) {
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, dnd[i], dshape[i], 9.0, &t));
        CHECK_OK(ct_init_dirac_(ctx, t, DIRAC_GROUPS[i]));
        double e = rel_err(t, dref[i], dnd[i], dshape[i]);
        CHECK_MSG(e == 0, "dirac case %d: error %g", i, e);
        ct_tensor_release(t);
    }
    /* errors as torch */
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 3, (int64_t[]){2, 3, 4}, &t));
    CHECK_ST(ct_init_eye_(ctx, t), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Only tensors with 2 dimensions are supported"));
    CHECK_ST(ct_init_dirac_(ctx, t, 3), CT_ERR_INVALID_ARG);
    CHECK(msg_has("dim 0 must be divisible by groups"));
    CHECK_ST(ct_init_dirac_(ctx, t, 0), CT_ERR_INVALID_ARG);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){2, 3}, &t));
    CHECK_ST(ct_init_dirac_(ctx, t, 1), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Only tensors with 3, 4, or 5 dimensions are supported"));
    ct_tensor_release(t);
}

/* ---- the truncated normal's exact CDF, in the tail through Q(x) / Q(L) ---- */
static double q_upper(double x) { return 0.5 * erfc(x / M_SQRT2); }
/* Mills ratio Q(x) / phi(x) for x >= 30 (asymptotic series, relative error < 1e-13) */
static double mills(double x) {
    const double r = 1 / (x * x);
    return (1 - r * (1 - 3 * r * (1 - 5 * r * (1 - 7 * r * (1 - 9 * r))))) / x;
}
/* P(X <= x) for X ~ N(0, 1) restricted to [al, be] */
static double tn_cdf(double x, double al, double be) {
    if (x <= al) return 0;
    if (x >= be) return 1;
    if (al >= 30) { /* (Q(al) - Q(x)) / (Q(al) - Q(be)) on the Mills ratio */
        const double rx = exp(-(x * x - al * al) / 2) * mills(x) / mills(al);
        const double rb = isinf(be) ? 0 : exp(-(be * be - al * al) / 2) * mills(be) / mills(al);
        return (1 - rx) / (1 - rb);
    }
    if (al >= 0) return (q_upper(al) - q_upper(x)) / (q_upper(al) - q_upper(be));
    if (be <= 0) return (q_upper(-x) - q_upper(-al)) / (q_upper(-be) - q_upper(-al));
    const double pa = q_upper(-al), pb = q_upper(-be); /* P(Z <= .) = Q(-.) */
    return (q_upper(-x) - pa) / (pb - pa);
}
static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

TEST(trunc_normal_distribution) {
    static const struct {
        double mean, std, a, b;
    } C[] = {{0, 1, -2, 2},
             {1, 2, 0, 3},
             {0, 1, 5, 6},
             {0, 1, -6, -5},
             {0, 1, 40, 41},
             {0, 1, -45, -44.5},
             {0, 1, 3, INFINITY},
             {2, 0.5, -INFINITY, 1},
             {0, 1, -INFINITY, INFINITY},
             {-3, 0.01, -3.02, -2.99},
             {0, 1, 0, 1e-3}};
    const int64_t n = 100000;
    for (int c = 0; c < NELEM(C); c++) {
        ct_tensor *t = NULL;
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, 1, &n, &t));
        ct_status st = ct_init_trunc_normal_(ctx, t, C[c].mean, C[c].std, C[c].a, C[c].b, 17, 0);
        CHECK_MSG(st == CT_OK, "case %d: %s", c, ct_ctx_last_error(ctx));
        double *v = tu_read(t);
        const double al = (C[c].a - C[c].mean) / C[c].std, be = (C[c].b - C[c].mean) / C[c].std;
        int out = 0;
        for (int64_t i = 0; i < n; i++) {
            out += !(v[i] >= C[c].a && v[i] <= C[c].b);
            v[i] = (v[i] - C[c].mean) / C[c].std;
        }
        CHECK_MSG(out == 0, "case %d: %d values outside [a, b]", c, out);
        qsort(v, (size_t)n, sizeof *v, cmp_d);
        double d = 0;
        for (int64_t i = 0; i < n; i++) {
            const double f = tn_cdf(v[i], al, be);
            d = fmax(d,
                     fmax(fabs(f - (double)i / (double)n), fabs(f - (double)(i + 1) / (double)n)));
        }
        /* Kolmogorov-Smirnov: sqrt(n) D > 2.2 has probability 1e-4 */
        CHECK_MSG(d * sqrt((double)n) < 2.2, "case %d [%g, %g]: KS sqrt(n) D = %g", c, C[c].a,
                  C[c].b, d * sqrt((double)n));
        free(v);
        ct_tensor_release(t);
    }
    /* float32 on [6, 7] (torch 1.13 returns 7.0 for every sample there): the exact mean, and
     * many distinct values */
    {
        ct_tensor *t = NULL;
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, &n, &t));
        CHECK_OK(ct_init_trunc_normal_(ctx, t, 0, 1, 6, 7, 3, 0));
        double *v = tu_read(t), m = 0;
        for (int64_t i = 0; i < n; i++)
            m += v[i] / (double)n;
        const double phi6 = exp(-18.0) / sqrt(2 * M_PI), phi7 = exp(-24.5) / sqrt(2 * M_PI);
        const double want = (phi6 - phi7) / (q_upper(6) - q_upper(7)); /* 6.1584... */
        qsort(v, (size_t)n, sizeof *v, cmp_d);
        int distinct = 1;
        for (int64_t i = 1; i < n; i++)
            distinct += v[i] != v[i - 1];
        CHECK_MSG(fabs(m - want) < 0.003 && distinct > 10000, "[6, 7]: mean %g want %g, %d values",
                  m, want, distinct);
        free(v);
        ct_tensor_release(t);
    }
    /* float32 / bfloat16 parameters, a leaf view; the same seed gives the same values */
    ct_tensor *p = NULL, *q = NULL, *b16 = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){64, 64}, &p));
    CHECK_OK(ct_tensor_set_requires_grad(p, true));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){64, 64}, &q));
    CHECK_OK(ct_init_trunc_normal_(ctx, p, 0, 0.02, -0.04, 0.04, 5, 1));
    CHECK_OK(ct_init_trunc_normal_(ctx, q, 0, 0.02, -0.04, 0.04, 5, 1));
    CHECK(tu_same_values(p, q));
    CHECK_OK(ct_init_trunc_normal_(ctx, q, 0, 0.02, -0.04, 0.04, 6, 1));
    CHECK(!tu_same_values(p, q));
    CHECK_OK(ct_tensor_empty(ctx, CT_BFLOAT16, 1, (int64_t[]){1000}, &b16));
    CHECK_OK(ct_init_trunc_normal_(ctx, b16, 0, 1, -2, 2, 5, 1));
    double *bv = tu_read(b16);
    for (int i = 0; i < 1000; i++)
        CHECK(bv[i] >= -2 && bv[i] <= 2);
    free(bv);
    /* std 0 and a == b: constants; errors */
    CHECK_OK(ct_init_trunc_normal_(ctx, q, 5, 0, -1, 1, 1, 0));
    double *qv = tu_read(q);
    CHECK(qv[0] == 1 && qv[4095] == 1);
    free(qv);
    CHECK_ST(ct_init_trunc_normal_(ctx, q, 0, 1, 1, -1, 1, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_trunc_normal_(ctx, q, 0, -1, -1, 1, 1, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_trunc_normal_(ctx, q, NAN, 1, -1, 1, 1, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_trunc_normal_(ctx, q, 0, 1, NAN, 1, 1, 0), CT_ERR_INVALID_ARG);
    ct_tensor_release(p), ct_tensor_release(q), ct_tensor_release(b16);
}

/* orthogonal_: gain Q with Q from LAPACK's QR of the same normal draw (signs by R's diagonal). */
TEST(orthogonal_matches_lapack_qr) {
    static const struct {
        int nd;
        int64_t shape[3];
        double gain;
    } C[] = {{2, {5, 3}, 1}, {2, {3, 5}, 1}, {3, {4, 2, 3}, 2}, {2, {6, 6}, 0.5}, {2, {1, 7}, 1}};
    for (int c = 0; c < NELEM(C); c++) {
        ct_tensor *t = NULL, *z = NULL;
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, C[c].nd, C[c].shape, &t));
        CHECK_OK(ct_init_orthogonal_(ctx, t, C[c].gain, 21, 4));
        const int64_t rows = C[c].shape[0], cols = ct_tensor_numel(t) / rows;
        const bool wide = rows < cols;
        const int64_t m = wide ? cols : rows, k = wide ? rows : cols; /* tall m x k */
        CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT64, 2, (int64_t[]){m, k}, 21, 4, &z));
        double *a = tu_read(z), tau[16], *got = tu_read(t);
        /* LAPACK: A (m x k, row-major) = Q R */
        CHECK(LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, (int)m, (int)k, a, (int)k, tau) == 0);
        double sgn[16];
        for (int j = 0; j < k; j++)
            sgn[j] = a[j * k + j] > 0 ? 1 : -1;
        CHECK(LAPACKE_dorgqr(LAPACK_ROW_MAJOR, (int)m, (int)k, (int)k, a, (int)k, tau) == 0);
        double err = 0, orth = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < k; j++) {
                const double want = C[c].gain * a[i * k + j] * sgn[j];
                const double g = wide ? got[j * cols + i] : got[i * cols + j];
                err = fmax(err, fabs(g - want));
            }
        /* Q^T Q = gain^2 I on the tall side */
        for (int64_t p = 0; p < k; p++)
            for (int64_t q = 0; q < k; q++) {
                double s = 0;
                for (int64_t i = 0; i < m; i++)
                    s += (wide ? got[p * cols + i] : got[i * cols + p]) *
                         (wide ? got[q * cols + i] : got[i * cols + q]);
                orth = fmax(orth, fabs(s - (p == q ? C[c].gain * C[c].gain : 0)));
            }
        CHECK_MSG(err < 1e-13 && orth < 1e-13, "case %d: vs LAPACK %g, orthogonality %g", c, err,
                  orth);
        free(a), free(got);
        ct_tensor_release(t), ct_tensor_release(z);
    }
    /* float32 leaf; errors; no elements */
    ct_tensor *p = NULL, *e = NULL, *v = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){8, 8}, &p));
    CHECK_OK(ct_tensor_set_requires_grad(p, true));
    CHECK_OK(ct_init_orthogonal_(ctx, p, 1, 2, 0));
    double *pv = tu_read(p), s = 0;
    for (int i = 0; i < 8; i++)
        s += pv[i * 8] * pv[i * 8 + 1];
    CHECK(fabs(s) < 1e-6);
    free(pv);
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){0, 3}, &e));
    CHECK_OK(ct_init_orthogonal_(ctx, e, 1, 2, 0));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 1, (int64_t[]){3}, &v));
    CHECK_ST(ct_init_orthogonal_(ctx, v, 1, 2, 0), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Only tensors with 2 or more dimensions are supported"));
    ct_tensor_release(p), ct_tensor_release(e), ct_tensor_release(v);
}

TEST(sparse_zero_count_per_column) {
    static const double SP[] = {0.1, 0.5, 0.0, 1.0, 0.33};
    for (int c = 0; c < NELEM(SP); c++) {
        const int64_t rows = 20, cols = 30;
        ct_tensor *t = NULL;
        CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){rows, cols}, &t));
        CHECK_OK(ct_init_sparse_(ctx, t, SP[c], 0.01, 8, 0));
        double *v = tu_read(t), s2 = 0;
        const int want = (int)ceil(SP[c] * (double)rows);
        int bad = 0, nz = 0, distinct = 0;
        unsigned first = 0;
        for (int64_t j = 0; j < cols; j++) {
            int zeros = 0;
            unsigned pattern = 0;
            for (int64_t i = 0; i < rows; i++) {
                if (v[i * cols + j] == 0) {
                    zeros++;
                    pattern = pattern * 31u + (unsigned)i;
                } else {
                    nz++;
                    s2 += v[i * cols + j] * v[i * cols + j];
                }
            }
            bad += zeros != want;
            if (j == 0) first = pattern;
            distinct += pattern != first;
        }
        CHECK_MSG(bad == 0, "sparsity %g: %d columns without %d zeros", SP[c], bad, want);
        if (want > 0 && want < rows) CHECK(distinct > 0); /* not one pattern for all columns */
        if (nz > 100) CHECK_MSG(fabs(sqrt(s2 / nz) / 0.01 - 1) < 0.15, "std %g", sqrt(s2 / nz));
        free(v);
        ct_tensor_release(t);
    }
    ct_tensor *t3 = NULL, *t2 = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 3, (int64_t[]){2, 3, 4}, &t3));
    CHECK_ST(ct_init_sparse_(ctx, t3, 0.1, 0.01, 1, 0), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Only tensors with 2 dimensions are supported"));
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 2, (int64_t[]){2, 3}, &t2));
    CHECK_ST(ct_init_sparse_(ctx, t2, -0.1, 0.01, 1, 0), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_init_sparse_(ctx, t2, 0.1, -1, 1, 0), CT_ERR_INVALID_ARG);
    ct_tensor_release(t3), ct_tensor_release(t2);
}

TEST(parameters_vector_round_trip) {
    const int64_t s0[2] = {2, 3}, s1[1] = {4}, s2[3] = {1, 2, 2};
    ct_tensor *p[3] = {NULL}, *vec = NULL, *vec2 = NULL, *w = NULL, *prod = NULL, *sum = NULL;
    CHECK(p[0] = tu_make(ctx, &rng, CT_FLOAT32, 2, s0, 0, -1, 1, NULL));
    CHECK(p[1] = tu_make(ctx, &rng, CT_FLOAT32, 1, s1, 0, -1, 1, NULL));
    CHECK(p[2] = tu_make(ctx, &rng, CT_FLOAT32, 3, s2, 1, -1, 1, NULL)); /* a strided view */
    double want[14];
    int k = 0;
    for (int i = 0; i < 3; i++) {
        double *v = tu_read(p[i]);
        for (int64_t j = 0; j < ct_tensor_numel(p[i]); j++)
            want[k++] = v[j];
        free(v);
        CHECK_OK(ct_tensor_set_requires_grad(p[i], true));
    }
    CHECK_OK(ct_parameters_to_vector(ctx, 3, (const ct_tensor *const *)p, &vec));
    CHECK(tu_same_shape(vec, 1, (int64_t[]){14}));
    double *got = tu_read(vec);
    for (int i = 0; i < 14; i++)
        CHECK(got[i] == want[i]);
    free(got);
    /* differentiable: d sum(vec * (1..14)) / d p = the matching slice of 1..14 */
    double wv[14];
    for (int i = 0; i < 14; i++)
        wv[i] = i + 1;
    w = tu_from_vals(ctx, CT_FLOAT32, 1, (int64_t[]){14}, wv);
    CHECK_OK(ct_mul(ctx, vec, w, &prod));
    CHECK_OK(ct_sum(ctx, prod, 0, NULL, false, &sum));
    CHECK_OK(ct_backward(ctx, sum, NULL, false));
    k = 0;
    for (int i = 0; i < 3; i++) {
        double *g = tu_read(ct_tensor_grad(p[i]));
        for (int64_t j = 0; j < ct_tensor_numel(p[i]); j++)
            CHECK(g[j] == wv[k++]);
        free(g);
    }
    /* back into the parameters (leaves that require grad), scaled; a longer vec is fine */
    for (int i = 0; i < 14; i++)
        wv[i] = want[i] * 2;
    double wlong[15];
    memcpy(wlong, wv, sizeof wv);
    wlong[14] = 1e9;
    vec2 = tu_from_vals(ctx, CT_FLOAT64, 1, (int64_t[]){15}, wlong);
    CHECK_OK(ct_vector_to_parameters(ctx, vec2, 3, p));
    k = 0;
    for (int i = 0; i < 3; i++) {
        double *v = tu_read(p[i]);
        for (int64_t j = 0; j < ct_tensor_numel(p[i]); j++, k++)
            CHECK(v[j] == (double)(float)wv[k]);
        free(v);
    }
    /* too short: refused, nothing written */
    ct_tensor *shortv = NULL, *two = NULL;
    CHECK_OK(ct_tensor_narrow(ctx, vec2, 0, 0, 13, &shortv));
    CHECK_ST(ct_vector_to_parameters(ctx, shortv, 3, p), CT_ERR_SHAPE);
    double *v0 = tu_read(p[0]);
    CHECK(v0[0] == (double)(float)wv[0]);
    free(v0);
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){7, 2}, &two));
    CHECK_ST(ct_vector_to_parameters(ctx, two, 3, p), CT_ERR_SHAPE);
    ct_tensor *none = NULL;
    CHECK_ST(ct_parameters_to_vector(ctx, 0, (const ct_tensor *const *)p, &none),
             CT_ERR_INVALID_ARG);
    CHECK(none == NULL);
    for (int i = 0; i < 3; i++)
        ct_tensor_release(p[i]);
    ct_tensor_release(vec), ct_tensor_release(vec2), ct_tensor_release(w);
    ct_tensor_release(prod), ct_tensor_release(sum), ct_tensor_release(shortv);
    ct_tensor_release(two);
}

TEST(norm_except_dim_and_weight_norm_match_torch) {
    ct_tensor *v = REF(ned_v), *o = NULL;
    const double *nref[] = {ned0, ned1, ned2, ned3, ned4, ned5, ned6};
    const int64_t *nsh[] = {ned0_shape, ned1_shape, ned2_shape, ned3_shape,
                            ned4_shape, ned5_shape, ned6_shape};
    const int nnd[] = {ned0_nd, ned1_nd, ned2_nd, ned3_nd, ned4_nd, ned5_nd, ned6_nd};
    for (int i = 0; i < NELEM(NED); i++) {
        CHECK_OK(ct_norm_except_dim(ctx, v, NED[i].p, NED[i].dim, &o));
        double e = rel_err(o, nref[i], nnd[i], nsh[i]);
        CHECK_MSG(e < 1e-14, "norm_except_dim(p %g, dim %d): error %g", NED[i].p, NED[i].dim, e);
        ct_tensor_release(o), o = NULL;
    }
    CHECK_ST(ct_norm_except_dim(ctx, v, 2, 3, &o), CT_ERR_INDEX);
    CHECK_ST(ct_norm_except_dim(ctx, v, 2, -4, &o), CT_ERR_INDEX);
    const double *gref[] = {wn0_g, wn1_g, wn2_g, wn3_g}, *wref[] = {wn0_w, wn1_w, wn2_w, wn3_w},
                 *dvref[] = {wn0_dv, wn1_dv, wn2_dv, wn3_dv},
                 *dgref[] = {wn0_dg, wn1_dg, wn2_dg, wn3_dg};
    const int64_t *gsh[] = {wn0_g_shape, wn1_g_shape, wn2_g_shape, wn3_g_shape};
    const int gnd[] = {wn0_g_nd, wn1_g_nd, wn2_g_nd, wn3_g_nd};
    for (int i = 0; i < NELEM(WN_DIM); i++) {
        ct_tensor *vv = REF(ned_v), *g = tu_from_vals(ctx, CT_FLOAT64, gnd[i], gsh[i], gref[i]);
        CHECK_OK(ct_tensor_set_requires_grad(vv, true));
        CHECK_OK(ct_tensor_set_requires_grad(g, true));
        ct_status st = ct_weight_norm(ctx, vv, g, WN_DIM[i], &o);
        CHECK_MSG(st == CT_OK, "weight_norm dim %d: %s", WN_DIM[i], ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            double e = rel_err(o, wref[i], ned_v_nd, ned_v_shape);
            CHECK_MSG(e < 1e-14, "weight_norm dim %d: error %g", WN_DIM[i], e);
            tu_backward_sin(ctx, o);
            e = rel_err(ct_tensor_grad(vv), dvref[i], ned_v_nd, ned_v_shape);
            CHECK_MSG(e < 1e-13, "weight_norm dim %d: dv error %g", WN_DIM[i], e);
            e = rel_err(ct_tensor_grad(g), dgref[i], gnd[i], gsh[i]);
            CHECK_MSG(e < 1e-13, "weight_norm dim %d: dg error %g", WN_DIM[i], e);
        }
        ct_tensor_release(vv), ct_tensor_release(g), ct_tensor_release(o), o = NULL;
    }
    ct_tensor *g5 = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_FLOAT64, 1, (int64_t[]){5}, &g5));
    CHECK_ST(ct_weight_norm(ctx, v, g5, 0, &o), CT_ERR_SHAPE); /* needs 3 */
    ct_tensor_release(g5), ct_tensor_release(v);
}

TEST(spectral_norm_matches_torch) {
    const double *w[] = {sn0_w, sn1_w, sn2_w, sn3_w, sn4_w},
                 *u0[] = {sn0_u0, sn1_u0, sn2_u0, sn3_u0, sn4_u0},
                 *v0[] = {sn0_v0, sn1_v0, sn2_v0, sn3_v0, sn4_v0},
                 *outr[] = {sn0_out, sn1_out, sn2_out, sn3_out, sn4_out},
                 *u1[] = {sn0_u1, sn1_u1, sn2_u1, sn3_u1, sn4_u1},
                 *v1[] = {sn0_v1, sn1_v1, sn2_v1, sn3_v1, sn4_v1},
                 *dw[] = {sn0_dw, sn1_dw, sn2_dw, sn3_dw, sn4_dw};
    const int64_t *wsh[] = {sn0_w_shape, sn1_w_shape, sn2_w_shape, sn3_w_shape, sn4_w_shape};
    const int wnd[] = {sn0_w_nd, sn1_w_nd, sn2_w_nd, sn3_w_nd, sn4_w_nd};
    const int64_t ul[] = {sn0_u0_shape[0], sn1_u0_shape[0], sn2_u0_shape[0], sn3_u0_shape[0],
                          sn4_u0_shape[0]},
                  vl[] = {sn0_v0_shape[0], sn1_v0_shape[0], sn2_v0_shape[0], sn3_v0_shape[0],
                          sn4_v0_shape[0]};
    for (int i = 0; i < NELEM(SN); i++) {
        ct_tensor *W = tu_from_vals(ctx, CT_FLOAT64, wnd[i], wsh[i], w[i]),
                  *u = tu_from_vals(ctx, CT_FLOAT64, 1, &ul[i], u0[i]),
                  *v = tu_from_vals(ctx, CT_FLOAT64, 1, &vl[i], v0[i]), *o = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(W, true));
        ct_status st = ct_spectral_norm(ctx, W, u, v, SN[i].iters, SN[i].dim, 1e-12, true, &o);
        CHECK_MSG(st == CT_OK, "case %d: %s", i, ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            double e1 = rel_err(o, outr[i], wnd[i], wsh[i]), e2 = rel_err(u, u1[i], 1, &ul[i]),
                   e3 = rel_err(v, v1[i], 1, &vl[i]);
            tu_backward_sin(ctx, o);
            double e4 = rel_err(ct_tensor_grad(W), dw[i], wnd[i], wsh[i]);
            CHECK_MSG(e1 < 1e-13 && e2 < 1e-13 && e3 < 1e-13 && e4 < 1e-12,
                      "case %d: out %g u %g v %g dW %g", i, e1, e2, e3, e4);
        }
        ct_tensor_release(o), o = NULL;
        /* eval: u and v are used as they are */
        ct_tensor *uc = NULL;
        CHECK_OK(ct_tensor_clone(ctx, u, &uc));
        CHECK_OK(ct_spectral_norm(ctx, W, u, v, 5, SN[i].dim, 1e-12, false, &o));
        CHECK(tu_same_values(u, uc));
        ct_tensor_release(W), ct_tensor_release(u), ct_tensor_release(v), ct_tensor_release(o);
        ct_tensor_release(uc);
    }
    /* init: unit vectors of the right lengths; errors */
    ct_tensor *W = NULL, *u = NULL, *v = NULL, *o = NULL, *n = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT32, 4, (int64_t[]){3, 5, 2, 2}, 1, 0, &W));
    CHECK_OK(ct_spectral_norm_init(ctx, W, 1, 1e-12, 4, 0, &u, &v));
    CHECK(tu_same_shape(u, 1, (int64_t[]){5}) && tu_same_shape(v, 1, (int64_t[]){12}));
    CHECK_OK(ct_linalg_vector_norm(ctx, u, 2, 0, NULL, false, &n));
    double nv = 0;
    CHECK_OK(ct_tensor_to_host(n, &(float){0}, 4));
    double *un = tu_read(n);
    nv = un[0];
    free(un);
    CHECK(fabs(nv - 1) < 1e-6);
    /* a few power iterations bring sigma to the largest singular value */
    CHECK_OK(ct_spectral_norm(ctx, W, u, v, 200, 1, 1e-12, true, &o));
    ct_tensor *S = NULL, *mat = NULL, *perm = NULL, *on = NULL;
    CHECK_OK(ct_tensor_permute(ctx, o, (int[]){1, 0, 2, 3}, &perm));
    CHECK_OK(ct_tensor_reshape(ctx, perm, 2, (int64_t[]){5, 12}, &mat));
    CHECK_OK(ct_linalg_matrix_norm(ctx, mat, "2", 0, 1, false, &on));
    double *ov = tu_read(on);
    CHECK_MSG(fabs(ov[0] - 1) < 1e-5, "spectral norm after normalising: %g", ov[0]);
    free(ov);
    CHECK_ST(ct_spectral_norm(ctx, W, v, u, 1, 1, 1e-12, true, &S), CT_ERR_SHAPE);
    CHECK_ST(ct_spectral_norm(ctx, W, u, v, -1, 1, 1e-12, true, &S), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_spectral_norm(ctx, W, u, v, 1, 4, 1e-12, true, &S), CT_ERR_INDEX);
    ct_tensor_release(W), ct_tensor_release(u), ct_tensor_release(v), ct_tensor_release(o);
    ct_tensor_release(n), ct_tensor_release(mat), ct_tensor_release(perm), ct_tensor_release(on);
}

TEST(fusion_matches_torch_float32) {
#define F32(name) tu_from_vals(ctx, CT_FLOAT32, name##_nd, name##_shape, name)
    ct_tensor *cw = F32(fu_cw), *cb = F32(fu_cb), *ctw = F32(fu_ctw), *rm = F32(fu_rm),
              *rv = F32(fu_rv), *bw = F32(fu_bw), *bb = F32(fu_bb), *lw = F32(fu_lw),
              *lb = F32(fu_lb), *w = NULL, *b = NULL;
    CHECK_OK(ct_fuse_conv_bn_weights(ctx, cw, cb, rm, rv, 1e-5, bw, bb, false, &w, &b));
    CHECK_REF(w, fu_c_w, 0);
    CHECK_REF(b, fu_c_b, 0);
    ct_tensor_release(w), ct_tensor_release(b);
    CHECK_OK(ct_fuse_conv_bn_weights(ctx, ctw, NULL, rm, rv, 1e-3, NULL, NULL, true, &w, &b));
    CHECK_REF(w, fu_t_w, 0);
    CHECK_REF(b, fu_t_b, 0);
    ct_tensor_release(w), ct_tensor_release(b);
    CHECK_OK(ct_fuse_linear_bn_weights(ctx, lw, lb, rm, rv, 1e-5, bw, bb, &w, &b));
    CHECK_REF(w, fu_l_w, 0);
    CHECK_REF(b, fu_l_b, 0);
    ct_tensor_release(w), ct_tensor_release(b), w = b = NULL;
    CHECK_ST(ct_fuse_linear_bn_weights(ctx, lw, lb, lw, rv, 1e-5, bw, bb, &w, &b), CT_ERR_SHAPE);
    CHECK(!w && !b);
    CHECK_ST(ct_fuse_conv_bn_weights(ctx, rm, NULL, rm, rv, 1e-5, NULL, NULL, false, &w, &b),
             CT_ERR_SHAPE);
    ct_tensor *all[] = {cw, cb, ctw, rm, rv, bw, bb, lw, lb};
    for (int i = 0; i < NELEM(all); i++)
        ct_tensor_release(all[i]);
}

/* ---- pruning masks against torch.nn.utils.prune ---- */
static void check_mask(const char *what, ct_tensor *m, const double *ref, int nd,
                       const int64_t *shape) {
    double e = rel_err(m, ref, nd, shape);
    CHECK_MSG(e == 0, "%s: mask differs from torch's", what);
    ct_tensor_release(m);
}

TEST(prune_masks_match_torch) {
    ct_tensor *t = REF(pr_t), *imp = REF(pr_imp), *m = NULL;
    const double *l1[] = {pr_l1_0, pr_l1_1, pr_l1_2, pr_l1_3, pr_l1_4, pr_l1_5};
    for (int i = 0; i < NELEM(PR_L1); i++) {
        CHECK_OK(ct_prune_l1_unstructured(ctx, t, PR_L1[i].amount, PR_L1[i].count, NULL, NULL, &m));
        char what[64];
        snprintf(what, sizeof what, "l1_unstructured %g (count %d)", PR_L1[i].amount,
                 PR_L1[i].count);
        check_mask(what, m, l1[i], pr_t_nd, pr_t_shape);
    }
    CHECK_OK(ct_prune_l1_unstructured(ctx, t, 0.4, false, imp, NULL, &m));
    check_mask("l1_unstructured by importance", m, pr_l1_imp, pr_t_nd, pr_t_shape);
    ct_tensor *v5 = REF(pr_v5), *v7 = REF(pr_v7);
    CHECK_OK(ct_prune_l1_unstructured(ctx, v5, 0.5, false, NULL, NULL, &m));
    check_mask("0.5 of 5: round(2.5) = 2", m, pr_v5_m, 1, pr_v5_shape);
    CHECK_OK(ct_prune_l1_unstructured(ctx, v7, 0.5, false, NULL, NULL, &m));
    check_mask("0.5 of 7: round(3.5) = 4", m, pr_v7_m, 1, pr_v7_shape);
    /* iterative pruning: each amount counts the entries the previous mask keeps */
    ct_tensor *m1 = NULL, *m2 = NULL, *m3 = NULL;
    CHECK_OK(ct_prune_l1_unstructured(ctx, t, 0.3, false, NULL, NULL, &m1));
    CHECK_OK(ct_prune_l1_unstructured(ctx, t, 0.5, false, NULL, m1, &m2));
    CHECK_OK(ct_prune_l1_unstructured(ctx, t, 5, true, NULL, m2, &m3));
    CHECK(rel_err(m1, pr_it1, pr_t_nd, pr_t_shape) == 0);
    CHECK(rel_err(m2, pr_it2, pr_t_nd, pr_t_shape) == 0);
    CHECK(rel_err(m3, pr_it3, pr_t_nd, pr_t_shape) == 0);
    ct_tensor_release(m1), ct_tensor_release(m2), ct_tensor_release(m3);
    /* LnStructured */
    ct_tensor *c4 = REF(pr_c4);
    const double *ln[] = {pr_ln_0, pr_ln_1, pr_ln_2, pr_ln_3, pr_ln_4, pr_ln_5};
    for (int i = 0; i < NELEM(PR_LN); i++) {
        ct_status st = ct_prune_ln_structured(ctx, c4, PR_LN[i].amount, PR_LN[i].count, PR_LN[i].n,
                                              PR_LN[i].dim, NULL, &m);
        CHECK_MSG(st == CT_OK, "ln_structured case %d: %s", i, ct_ctx_last_error(ctx));
        if (st == CT_OK) {
            char what[64];
            snprintf(what, sizeof what, "ln_structured case %d", i);
            check_mask(what, m, ln[i], pr_c4_nd, pr_c4_shape);
        }
    }
    /* global_unstructured over two weights */
    const ct_tensor *g2[2] = {REF(pr_ga), REF(pr_gb)};
    ct_tensor *gm[2] = {NULL, NULL};
    CHECK_OK(ct_prune_global_unstructured(ctx, 2, g2, 0.4, false, NULL, gm));
    check_mask("global_unstructured a", gm[0], pr_ga_m, pr_ga_nd, pr_ga_shape);
    check_mask("global_unstructured b", gm[1], pr_gb_m, pr_gb_nd, pr_gb_shape);
    /* random masks: the count of zeros; the same seed, the same mask; dtype kept */
    ct_tensor *f16 = NULL, *ma = NULL, *mb = NULL;
    CHECK_OK(ct_tensor_randn(ctx, CT_FLOAT16, 2, (int64_t[]){10, 20}, 1, 0, &f16));
    CHECK_OK(ct_prune_random_unstructured(ctx, f16, 0.25, false, NULL, 4, 0, &ma));
    CHECK_OK(ct_prune_random_unstructured(ctx, f16, 0.25, false, NULL, 4, 0, &mb));
    CHECK(tu_same_values(ma, mb) && ct_tensor_dtype(ma) == CT_FLOAT16);
    double *mv = tu_read(ma);
    int zeros = 0;
    for (int i = 0; i < 200; i++)
        zeros += mv[i] == 0;
    CHECK_MSG(zeros == 50, "random_unstructured: %d zeros", zeros);
    free(mv);
    ct_tensor_release(mb), mb = NULL;
    CHECK_OK(ct_prune_random_unstructured(ctx, f16, 30, true, ma, 5, 0, &mb)); /* 30 more */
    mv = tu_read(mb);
    zeros = 0;
    double *pv = tu_read(ma);
    int kept_old_zero = 1;
    for (int i = 0; i < 200; i++) {
        zeros += mv[i] == 0;
        if (pv[i] == 0 && mv[i] != 0) kept_old_zero = 0;
    }
    CHECK(zeros == 80 && kept_old_zero);
    free(mv), free(pv);
    ct_tensor_release(ma), ct_tensor_release(mb);
    CHECK_OK(ct_prune_random_structured(ctx, c4, 2, true, 1, 7, 0, &m));
    mv = tu_read(m);
    int ch_zero = 0; /* channels along dim 1 (size 3): all zero or all one */
    for (int c = 0; c < 3; c++) {
        int z = 0;
        for (int a = 0; a < 4; a++)
            for (int k = 0; k < 4; k++)
                z += mv[(a * 3 + c) * 4 + k] == 0;
        CHECK(z == 0 || z == 16);
        ch_zero += z == 16;
    }
    CHECK(ch_zero == 2);
    free(mv);
    ct_tensor_release(m);
    /* errors as torch */
    CHECK_ST(ct_prune_l1_unstructured(ctx, t, 1.5, false, NULL, NULL, &m), CT_ERR_INVALID_ARG);
    CHECK(msg_has("should either be a float in the range [0, 1] or a non-negative integer"));
    CHECK_ST(ct_prune_l1_unstructured(ctx, t, 43, true, NULL, NULL, &m), CT_ERR_INVALID_ARG);
    CHECK(msg_has("should be smaller than the number of parameters to prune=42"));
    CHECK_ST(ct_prune_l1_unstructured(ctx, t, 2.5, true, NULL, NULL, &m), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_prune_ln_structured(ctx, v5, 0.5, false, 2, 0, NULL, &m), CT_ERR_INVALID_ARG);
    CHECK(msg_has("Structured pruning can only be applied to multidimensional tensors"));
    CHECK_ST(ct_prune_ln_structured(ctx, c4, 0.5, false, 2, 4, NULL, &m), CT_ERR_INDEX);
    CHECK_ST(ct_prune_l1_unstructured(ctx, t, 0.5, false, v5, NULL, &m), CT_ERR_SHAPE);
    CHECK(m == NULL);
    /* a tensor without entries: an empty mask, whatever the norm (torch's as well) */
    ct_tensor *e50 = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (int64_t[]){5, 0}, &e50));
    CHECK_OK(ct_prune_ln_structured(ctx, e50, 0.9, false, INFINITY, 0, NULL, &m));
    CHECK(tu_same_shape(m, 2, (int64_t[]){5, 0}));
    ct_tensor_release(m), ct_tensor_release(e50);
    ct_tensor *all[] = {t, imp, v5, v7, c4, (ct_tensor *)g2[0], (ct_tensor *)g2[1], f16};
    for (int i = 0; i < NELEM(all); i++)
        ct_tensor_release(all[i]);
}

/* What a differential review against torch found (each a regression test). */
TEST(review_regressions) {
    /* 1-d norm_except_dim(v, p, 0): each element's norm, shape (n,) as torch; weight_norm too */
    ct_tensor *v = tu_from_vals(ctx, CT_FLOAT64, 1, (int64_t[]){2}, (double[]){3, -4}), *o = NULL;
    ct_tensor *g = tu_from_vals(ctx, CT_FLOAT64, 1, (int64_t[]){2}, (double[]){1, 1});
    CHECK_OK(ct_norm_except_dim(ctx, v, 2, 0, &o));
    tu_same_as("norm_except_dim 1-d", o, (double[]){3, 4}, 1, (int64_t[]){2}, 0);
    ct_tensor_release(o), o = NULL;
    CHECK_OK(ct_weight_norm(ctx, v, g, 0, &o));
    tu_same_as("weight_norm 1-d", o, (double[]){1, -1}, 1, (int64_t[]){2}, 0);
    ct_tensor_release(o), o = NULL;
    ct_tensor_release(v), ct_tensor_release(g);
    /* dirac_ of an empty kernel: torch's IndexError, no allocation by the group count */
    ct_tensor *t = NULL;
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT16, 3, (int64_t[]){((int64_t)1 << 61) + 1, 1, 0}, &t));
    CHECK_ST(ct_init_dirac_(ctx, t, ((int64_t)1 << 61) + 1), CT_ERR_INDEX);
    ct_tensor_release(t);
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 3, (int64_t[]){0, 3, 3}, &t));
    CHECK_OK(ct_init_dirac_(ctx, t, 1)); /* no channel: nothing to index, as torch */
    ct_tensor_release(t);
    /* trunc_normal_ beyond 1e150 standard deviations: every sample at the near end */
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT64, 1, (int64_t[]){8}, &t));
    CHECK_OK(ct_init_trunc_normal_(ctx, t, 0, 1e-160, 1, 2, 1, 0));
    tu_same_as("trunc_normal_ 1e160 std", t, (double[]){1, 1, 1, 1, 1, 1, 1, 1}, 1, (int64_t[]){8},
               0);
    CHECK_OK(ct_init_trunc_normal_(ctx, t, 0, 1, -2e300, -1e300, 1, 0));
    double *tv = tu_read(t);
    for (int i = 0; i < 8; i++)
        CHECK(tv[i] == -1e300);
    free(tv);
    ct_tensor_release(t);
    /* calculate_gain: a slope whose square overflows is refused (Python's OverflowError) */
    double gain, big = 1e200;
    CHECK_ST(ct_init_calculate_gain(ctx, "leaky_relu", &big, &gain), CT_ERR_INVALID_ARG);
    big = INFINITY; /* inf ** 2 is inf in Python: gain 0 */
    CHECK_OK(ct_init_calculate_gain(ctx, "leaky_relu", &big, &gain));
    CHECK(gain == 0);
    /* weight_norm forward and backward with allocation k failing, k = 0, 1, ...: a status, no
     * crash, no leak (an autograd helper read a NULL sum after an out-of-memory) */
    int done = 0;
    for (long k = 0; k < 400 && !done; k++) {
        tu_fault fs = {0, k, 0, false};
        ct_ctx_options opts = {.size = sizeof opts,
                               .allocator = {tu_fault_alloc, tu_fault_free, &fs},
                               .no_cache = true};
        ct_ctx *c2 = NULL;
        if (ct_ctx_create(&opts, &c2) != CT_OK) continue;
        ct_tensor *vv = NULL, *gg = NULL, *w = NULL, *s = NULL;
        ct_status st = ct_tensor_randn(c2, CT_FLOAT32, 3, (int64_t[]){3, 4, 5}, 1, 0, &vv);
        if (st == CT_OK) st = ct_tensor_rand(c2, CT_FLOAT32, 3, (int64_t[]){1, 4, 1}, 2, 0, &gg);
        if (st == CT_OK) st = ct_tensor_set_requires_grad(vv, true);
        if (st == CT_OK) st = ct_tensor_set_requires_grad(gg, true);
        if (st == CT_OK) st = ct_weight_norm(c2, vv, gg, 1, &w);
        if (st == CT_OK) st = ct_sum(c2, w, 0, NULL, false, &s);
        if (st == CT_OK) st = ct_backward(c2, s, NULL, false);
        CHECK_MSG(st == CT_OK || st == CT_ERR_OOM, "k=%ld: status %d", k, (int)st);
        done = st == CT_OK && fs.calls <= k; /* nothing failed: the walk is complete */
        ct_tensor_release(vv), ct_tensor_release(gg), ct_tensor_release(w), ct_tensor_release(s);
        ct_ctx_free(c2);
        CHECK_MSG(fs.live == 0, "k=%ld: %ld blocks leaked", k, fs.live);
    }
    CHECK(done);
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    RUN(gains_and_fans_match_torch);
    RUN(xavier_kaiming_use_torchs_bounds);
    RUN(kaiming_on_a_leaf_view);
    RUN(constant_ones_zeros_uniform_normal);
    RUN(eye_and_dirac_match_torch);
    RUN(trunc_normal_distribution);
    RUN(orthogonal_matches_lapack_qr);
    RUN(sparse_zero_count_per_column);
    RUN(parameters_vector_round_trip);
    RUN(norm_except_dim_and_weight_norm_match_torch);
    RUN(spectral_norm_matches_torch);
    RUN(fusion_matches_torch_float32);
    RUN(review_regressions);
    RUN(prune_masks_match_torch);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* The special functions, as a statistician writes them with torch.special: lgamma, digamma,
 * polygamma, mvlgamma, erfinv, the Bessel functions i0 / i0e / i1 / i1e, the normal CDF and its
 * inverse (ndtr, ndtri, log_ndtr), erfcx, entr, xlog1py, nextafter, gcd and lcm, zeta,
 * gammainc / gammaincc, Bessel J0 J1 Y0 Y1, modified Bessel I0 I1 K0 K1 (and scaled K), spherical
 * j0, the orthogonal polynomials (Chebyshev T U V W and shifted, Hermite H He, Laguerre, Legendre)
 * and Airy Ai. Each result is
 * printed and checked against a known closed form (pi^2 / 6, Euler's gamma, the 97.5% normal
 * quantile ...), then one gradient: d/dx lgamma(x) is digamma(x). Build and run: see README
 * ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>

static ct_ctx *ctx;
static ct_tensor *pool[192];
static int npool;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define NVALS(...) ((int)(sizeof((const double[]){__VA_ARGS__}) / sizeof(double)))
static ct_tensor *keep(ct_tensor *t) {
    if (t && npool == 192) ct_tensor_release(t); /* full: not kept, nothing leaks */
    return t && npool < 192 ? (pool[npool++] = t) : NULL;
}
static ct_tensor *f64(int n, const double *v) {
    ct_tensor *t = NULL;
    const int64_t shape[1] = {n};
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, 1, shape, &t) == CT_OK ? keep(t) : NULL;
}
static ct_tensor *i64(int n, const int64_t *v) {
    ct_tensor *t = NULL;
    const int64_t shape[1] = {n};
    return ct_tensor_from_host(ctx, v, CT_INT64, 1, shape, &t) == CT_OK ? keep(t) : NULL;
}
/* print t's values and compare them with want (relative 1e-14, or equal) */
static int show(const char *label, ct_tensor *t, const double *want, int n) {
    double v[16];
    int bad = !t || ct_tensor_numel(t) != n || n > 16;
    if (!bad && ct_tensor_dtype(t) != CT_FLOAT64) {
        ct_tensor *c = NULL;
        bad = ct_cast(ctx, t, CT_FLOAT64, &c) != CT_OK || !keep(c);
        t = c;
    }
    if (!bad) bad = ct_tensor_to_host(t, v, sizeof(double) * (size_t)n) != CT_OK;
    printf("%-26s [", label);
    for (int i = 0; i < n && !bad; i++) {
        const int ok = v[i] == want[i] || fabs(v[i] - want[i]) <= 1e-14 * fabs(want[i]);
        printf("%s%.17g%s", i ? " " : "", v[i], ok ? "" : "(!)");
        bad |= !ok;
    }
    printf("]\n");
    return bad;
}
#define EXPECT(label, t, ...)                                                                      \
    do {                                                                                           \
        if (show(label, keep(t), (const double[]){__VA_ARGS__}, NVALS(__VA_ARGS__))) goto fail;    \
    } while (0)

int main(void) {
    int rc = 1;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    const double pi = 3.14159265358979323846, euler = 0.57721566490153286061;
    ct_tensor *x = f64(3, (const double[]){0.5, 1, 5});
    ct_tensor *r = NULL;

    CHECK(ct_lgamma(ctx, x, &r)); /* log Gamma: log sqrt(pi), 0, log 24 */
    EXPECT("lgamma(0.5, 1, 5)", r, 0.5 * log(pi), 0, log(24.0));
    CHECK(ct_digamma(ctx, x, &r)); /* psi(1) = -gamma, psi(5) = 1 + 1/2 + 1/3 + 1/4 - gamma */
    EXPECT("digamma(0.5, 1, 5)", r, -euler - 2 * log(2.0), -euler, 25.0 / 12 - euler);
    CHECK(ct_polygamma(ctx, 1, x, &r)); /* trigamma(1) = pi^2 / 6, trigamma(0.5) = pi^2 / 2 */
    EXPECT("polygamma(1, 0.5, 1, 5)", r, pi * pi / 2, pi * pi / 6, pi * pi / 6 - 205.0 / 144);
    CHECK(ct_mvlgamma(ctx, f64(1, (const double[]){2.5}), 2, &r));
    EXPECT("mvlgamma(2.5, p=2)", r, lgamma(2.5) + lgamma(2.0) + 0.5 * log(pi));

    ct_tensor *p = f64(3, (const double[]){0.025, 0.5, 0.975});
    CHECK(ct_special_ndtri(ctx, p, &r)); /* the 2.5% / 97.5% normal quantiles */
    EXPECT("ndtri(0.025, 0.5, 0.975)", r, -1.9599639845400538, 0, 1.9599639845400538);
    CHECK(ct_special_ndtr(ctx, f64(2, (const double[]){0, -30}), &r)); /* the far lower tail */
    EXPECT("ndtr(0, -30)", r, 0.5, 4.9067139271481871e-198);
    CHECK(ct_special_log_ndtr(ctx, f64(1, (const double[]){-40}), &r)); /* no underflow */
    EXPECT("log_ndtr(-40)", r, -804.60844201375379);
    CHECK(ct_erfinv(ctx, f64(2, (const double[]){0, 0.5}), &r));
    EXPECT("erfinv(0, 0.5)", r, 0, 0.47693627620446987);
    CHECK(ct_special_erfcx(ctx, f64(2, (const double[]){0, 30}), &r));
    EXPECT("erfcx(0, 30)", r, 1, 0.018795888861416751);

    ct_tensor *b = f64(2, (const double[]){0, 1});
    CHECK(ct_i0(ctx, b, &r));
    EXPECT("i0(0, 1)", r, 1, 1.2660658777520082);
    CHECK(ct_special_i0e(ctx, b, &r));
    EXPECT("i0e(0, 1)", r, 1, 1.2660658777520082 * exp(-1.0));
    CHECK(ct_special_i1(ctx, b, &r));
    EXPECT("i1(0, 1)", r, 0, 0.56515910399248503);
    CHECK(ct_special_i1e(ctx, b, &r));
    EXPECT("i1e(0, 1)", r, 0, 0.56515910399248503 * exp(-1.0));

    CHECK(ct_special_entr(ctx, f64(3, (const double[]){0, 0.5, 1}), &r));
    EXPECT("entr(0, 0.5, 1)", r, 0, 0.5 * log(2.0), -0.0);
    CHECK(ct_special_xlog1py(ctx, f64(2, (const double[]){0, 2}), f64(2, (const double[]){-1, 1}),
                             &r));
    EXPECT("xlog1py((0, 2), (-1, 1))", r, 0, 2 * log(2.0));
    CHECK(ct_nextafter(ctx, f64(1, (const double[]){1}), f64(1, (const double[]){2}), &r));
    EXPECT("nextafter(1, 2)", r, 1 + 0x1p-52);
    CHECK(ct_gcd(ctx, i64(2, (const int64_t[]){12, -18}), i64(2, (const int64_t[]){18, 4}), &r));
    EXPECT("gcd((12, -18), (18, 4))", r, 6, 2);
    CHECK(ct_lcm(ctx, i64(2, (const int64_t[]){4, -6}), i64(2, (const int64_t[]){6, 4}), &r));
    EXPECT("lcm((4, -6), (6, 4))", r, 12, 12);

    /* zeta, incomplete gamma, Bessel functions (closed forms) */
    CHECK(ct_special_zeta(ctx, f64(2, (const double[]){2, 4}), f64(2, (const double[]){1, 1}), &r));
    EXPECT("zeta((2, 4), 1)", r, pi * pi / 6, pi * pi * pi * pi / 90);
    CHECK(ct_special_gammainc(ctx, f64(1, (const double[]){1}), f64(1, (const double[]){2}), &r));
    EXPECT("gammainc(1, 2) = 1 - e^-2", r, 1 - exp(-2.0));
    CHECK(ct_special_gammaincc(ctx, f64(1, (const double[]){1}), f64(1, (const double[]){2}), &r));
    EXPECT("gammaincc(1, 2) = e^-2", r, exp(-2.0));
    ct_tensor *two = f64(1, (const double[]){2});
    CHECK(ct_special_bessel_j0(ctx, two, &r));
    EXPECT("bessel_j0(2)", r, 0.22389077914123567);
    CHECK(ct_special_bessel_j1(ctx, two, &r));
    EXPECT("bessel_j1(2)", r, 0.57672480775687339);
    CHECK(ct_special_bessel_y0(ctx, two, &r));
    EXPECT("bessel_y0(2)", r, 0.51037567264974512);
    CHECK(ct_special_bessel_y1(ctx, two, &r));
    EXPECT("bessel_y1(2)", r, -0.10703243154093755);
    CHECK(ct_special_modified_bessel_k0(ctx, two, &r));
    EXPECT("modified_bessel_k0(2)", r, 0.11389387274953344);
    CHECK(ct_special_modified_bessel_k1(ctx, two, &r));
    EXPECT("modified_bessel_k1(2)", r, 0.13986588181652243);
    CHECK(ct_special_scaled_modified_bessel_k0(ctx, two, &r));
    EXPECT("scaled_modified_bessel_k0(2)", r, 0.11389387274953344 * exp(2.0));
    CHECK(ct_special_scaled_modified_bessel_k1(ctx, two, &r));
    EXPECT("scaled_modified_bessel_k1(2)", r, 0.13986588181652243 * exp(2.0));
    CHECK(ct_special_spherical_bessel_j0(ctx, f64(1, (const double[]){pi / 2}), &r));
    EXPECT("spherical_bessel_j0(pi/2)", r, 2 / pi);
    CHECK(ct_special_modified_bessel_i0(ctx, two, &r));
    EXPECT("modified_bessel_i0(2)", r, 2.2795853023360673);
    CHECK(ct_special_modified_bessel_i1(ctx, two, &r));
    EXPECT("modified_bessel_i1(2)", r, 1.5906368546373291);

    /* orthogonal polynomials at x = 0.5 (shifted: 0.75, where 2x - 1 = 0.5), degrees 2 and 3,
     * against their expanded forms; Airy Ai(0) = 1 / (3^(2/3) Gamma(2/3)) */
    ct_tensor *xh = f64(2, (const double[]){0.5, 0.5}), *xs = f64(2, (const double[]){0.75, 0.75});
    ct_tensor *n23 = f64(2, (const double[]){2, 3}), *n13 = f64(2, (const double[]){1, 3});
    CHECK(ct_special_chebyshev_polynomial_t(ctx, xh, n23, &r));
    EXPECT("chebyshev_t(0.5, (2, 3))", r, -0.5, -1);
    CHECK(ct_special_chebyshev_polynomial_u(ctx, xh, n13, &r));
    EXPECT("chebyshev_u(0.5, (1, 3))", r, 1, -1);
    CHECK(ct_special_chebyshev_polynomial_v(ctx, xh, n23, &r));
    EXPECT("chebyshev_v(0.5, (2, 3))", r, -1, -1);
    CHECK(ct_special_chebyshev_polynomial_w(ctx, xh, n23, &r));
    EXPECT("chebyshev_w(0.5, (2, 3))", r, 1, -1);
    CHECK(ct_special_shifted_chebyshev_polynomial_t(ctx, xs, n23, &r));
    EXPECT("shifted_t(0.75, (2, 3))", r, -0.5, -1);
    CHECK(ct_special_shifted_chebyshev_polynomial_u(ctx, xs, n13, &r));
    EXPECT("shifted_u(0.75, (1, 3))", r, 1, -1);
    CHECK(ct_special_shifted_chebyshev_polynomial_v(ctx, xs, n23, &r));
    EXPECT("shifted_v(0.75, (2, 3))", r, -1, -1);
    CHECK(ct_special_shifted_chebyshev_polynomial_w(ctx, xs, n23, &r));
    EXPECT("shifted_w(0.75, (2, 3))", r, 1, -1);
    CHECK(ct_special_hermite_polynomial_h(ctx, xh, n23, &r));
    EXPECT("hermite_h(0.5, (2, 3))", r, -1, -5);
    CHECK(ct_special_hermite_polynomial_he(ctx, xh, n23, &r));
    EXPECT("hermite_he(0.5, (2, 3))", r, -0.75, -1.375);
    CHECK(ct_special_laguerre_polynomial_l(ctx, xh, n23, &r));
    EXPECT("laguerre_l(0.5, (2, 3))", r, 0.125, -0.875 / 6);
    CHECK(ct_special_legendre_polynomial_p(ctx, xh, n23, &r));
    EXPECT("legendre_p(0.5, (2, 3))", r, -0.125, -0.4375);
    CHECK(ct_special_airy_ai(ctx, f64(1, (const double[]){0}), &r));
    EXPECT("airy_ai(0)", r, 1 / (pow(3, 2.0 / 3) * tgamma(2.0 / 3)));

    /* d/dx sum(lgamma(x)) = digamma(x) */
    ct_tensor *xg = f64(2, (const double[]){1, 2}), *s = NULL;
    CHECK(ct_tensor_set_requires_grad(xg, true));
    CHECK(ct_lgamma(ctx, xg, &r));
    keep(r);
    CHECK(ct_sum(ctx, r, 0, NULL, false, &s));
    keep(s);
    CHECK(ct_backward(ctx, s, NULL, false));
    EXPECT("grad of sum(lgamma)", ct_tensor_retain(ct_tensor_grad(xg)), -euler, 1 - euler);
    printf("all special function checks passed\n");
    rc = 0;
fail:
    for (int i = 0; i < npool; i++)
        ct_tensor_release(pool[i]);
    ct_ctx_free(ctx);
    return rc;
}

/* Special functions in long double (special_math.h). Each is written from its defining series,
 * asymptotic expansion, reflection or a Newton iteration on glibc's long double erf / erfc; the
 * accuracy targets and the places where PyTorch answers differently are in docs/everyday.md
 * ("Special functions"). */
#define _DEFAULT_SOURCE /* glibc declares j0l ... y1l under it */
#include "backends/cpu/kernels/ref/special_math.h"

#include <math.h>
#include <stdbool.h>

#define CT_PI_L 3.141592653589793238462643383279502884L
#define CT_SQRTPI_L 1.772453850905516027298167483341145183L
#define CT_SQRT2_L 1.414213562373095048801688724209698079L

long double ct_k_lgamma_l(long double x) {
    int sign = 0; /* lgammal_r: no write to the global signgam from several threads */
    return lgammal_r(x, &sign);
}

/* cot(pi x) with x reduced exactly to [-1/2, 1/2] first (period 1) */
static long double ct_k_cotpi_l(long double x) {
    const long double r = x - nearbyintl(x);
    return cosl(CT_PI_L * r) / sinl(CT_PI_L * r);
}

/* psi about its positive zero x0 = 1.46163...: x0 in two parts and the Taylor coefficients
 * psi^(k)(x0) / k! (mpmath, 25 digits), so the result keeps its relative accuracy next to x0 */
static const long double ct_k_psi_x0_hi = 1.46163214496836234128091663864L;
static const long double ct_k_psi_x0_lo = -1.8257096315963484214601e-20L;
static const long double ct_k_psi_taylor[16] = {
    0.9676722454476211704274448L,   -0.4427631689835921060928653L,
    0.2584997609556510106244014L,   -0.1639427054424065275042513L,
    0.1078240506912623657571829L,   -0.07219956125645471092612178L,
    0.04880428816414310722509253L,  -0.0331611264748473592922584L,
    0.02259764823221810465962483L,  -0.01542476590494895913880032L,
    0.01053879161661217538812405L,  -0.007204534386356868240970474L,
    0.004926781395729853446354266L, -0.003369801655439328082792857L,
    0.00230512632673492783693838L,  -0.001576936771430197259270935L};

long double ct_k_digamma_l(long double x) {
    if (x != x) return x;
    if (x == 0) return copysignl(INFINITY, -x); /* as torch: -inf at +0, +inf at -0 */
    if (isinf(x)) return x > 0 ? x : NAN;
    long double acc = 0;
    if (x < 0) {
        if (x == floorl(x)) return NAN; /* a pole: torch's NaN */
        /* psi(x) = psi(1 - x) - pi cot(pi x); 1 - x is exact for a double x */
        acc = -CT_PI_L * ct_k_cotpi_l(x);
        x = 1 - x;
    }
    const long double d = (x - ct_k_psi_x0_hi) - ct_k_psi_x0_lo;
    if (acc == 0 && fabsl(d) < 0.0625L) {
        long double s = 0;
        for (int k = 15; k >= 0; k--)
            s = (s + ct_k_psi_taylor[k]) * d;
        return s;
    }
    while (x < 16) { /* psi(x) = psi(x + 1) - 1 / x */
        acc -= 1 / x;
        x += 1;
    }
    /* psi(x) ~ log x - 1 / (2x) - sum B_2k / (2k x^2k), k = 1..8 (the last term < 3e-20) */
    static const long double b2k_over_2k[8] = {1.0L / 12,   -1.0L / 120,       1.0L / 252,
                                               -1.0L / 240, 1.0L / 132,        -691.0L / 32760.0L,
                                               1.0L / 12,   -3617.0L / 8160.0L};
    const long double z = 1 / (x * x);
    long double s = 0;
    for (int k = 7; k >= 0; k--)
        s = (s + b2k_over_2k[k]) * z;
    return acc + logl(x) - 1 / (2 * x) - s;
}

/* Hurwitz zeta(s, q) for an integer s >= 2 and q > 0: the terms summed up to q + N >= max(25,
 * 2s), then Euler-Maclaurin with 12 Bernoulli terms (each ratio below ~0.17^2j there) */
static long double ct_k_hurwitz_l(long double s, long double q) {
    static const long double b2j_fact[12] = {1.0L / 12.0L,
                                             -1.0L / 720.0L,
                                             1.0L / 30240.0L,
                                             -1.0L / 1209600.0L,
                                             1.0L / 47900160.0L,
                                             -691.0L / 1307674368000.0L,
                                             1.0L / 74724249600.0L,
                                             -3617.0L / 10670622842880000.0L,
                                             (43867.0L / 798.0L) / 6402373705728000.0L,
                                             (-174611.0L / 330.0L) / 2432902008176640000.0L,
                                             (854513.0L / 138.0L) / 1124000727777607680000.0L,
                                             (-236364091.0L / 2730.0L) /
                                                 620448401733239439360000.0L};
    const long double m = 2 * s < 25 ? 25 : 2 * s;
    long double sum = 0;
    while (q < m) {
        const long double t = powl(q, -s);
        sum += t;
        q += 1;
        /* a high order decays fast: the rest (below about 27 t) no longer counts (for q > 0,
         * where the terms are positive and falling) */
        if (q > 1 && t <= sum * 0x1p-72L) return sum;
    }
    const long double qs = powl(q, -s);
    sum += q * qs / (s - 1) + qs / 2;
    long double fac = s * qs / q;
    for (int j = 1; j <= 12; j++) {
        sum += b2j_fact[j - 1] * fac;
        fac *= (s + 2 * j - 1) * (s + 2 * j) / (q * q);
    }
    return sum;
}

long double ct_k_polygamma_l(int64_t n, long double x) {
    if (n <= 0) return ct_k_digamma_l(x);
    if (x != x) return x;
    const bool odd = n & 1; /* psi^(n) has the sign (-1)^(n+1) for x > 0 */
    if (isinf(x)) return x > 0 ? (odd ? 0.0L : -0.0L) : NAN;
    if (x <= 0 && x == floorl(x)) return odd ? INFINITY : -INFINITY; /* a pole, as torch */
    long double nfact = 1;
    for (int64_t k = 2; k <= n && nfact < INFINITY; k++)
        nfact *= (long double)k;
    if (x > 0) return (odd ? nfact : -nfact) * ct_k_hurwitz_l((long double)n + 1, x);
    if (n <= 200) {
        /* reflection: psi^(n)(x) = (-1)^(n+1) [(-1)^n pi^(n+1) P_n(c) - psi^(n)(1 - x)] with
         * c = cot(pi x) and d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)), P_0(c) = c,
         * P_(k+1)(c) = -(1 + c^2) P_k'(c) */
        long double p[203] = {0}, t[203];
        p[1] = 1;
        for (int64_t k = 0; k < n; k++) {
            for (int64_t i = 0; i <= k + 2; i++)
                t[i] = 0;
            for (int64_t i = 1; i <= k + 1; i++) {
                const long double di = (long double)i * p[i]; /* the derivative's c^(i-1) */
                t[i - 1] -= di;
                t[i + 1] -= di;
            }
            for (int64_t i = 0; i <= k + 2; i++)
                p[i] = t[i];
        }
        const long double c = ct_k_cotpi_l(x);
        long double poly = 0;
        for (int64_t i = n + 1; i >= 0; i--)
            poly = poly * c + p[i];
        const long double pin1 = powl(CT_PI_L, (long double)n + 1);
        const long double refl = odd ? -pin1 * poly : pin1 * poly;
        const long double other =
            (odd ? nfact : -nfact) * ct_k_hurwitz_l((long double)n + 1, 1 - x);
        return odd ? refl - other : other - refl;
    }
    /* a very high order at a negative x: the series summed from x directly; terms with q <= -2
     * are below 2^-201 of the one with |q| < 1 and are left out */
    long double sum = 0, q = x < -3 ? x - floorl(x) - 3 : x;
    while (q < 0) {
        sum += powl(q, -(long double)n - 1);
        q += 1;
    }
    return (odd ? nfact : -nfact) * (sum + ct_k_hurwitz_l((long double)n + 1, q));
}

/* The x >= 0 with erfc(x) = q for 0 < q <= 1: Newton on log erfc (concave and decreasing), from
 * sqrt(-log q), which lies right of the root (erfc(x) <= e^-x^2), so the steps never overshoot */
static long double ct_k_erfcinv_l(long double q) {
    const long double lq = logl(q);
    long double x = sqrtl(-lq);
    for (int it = 0; it < 100; it++) {
        const long double e = erfcl(x);
        if (e == 0) break; /* not reached for q >= the smallest long double */
        /* h = log erfc(x) - log q, h' = -(2 / sqrt(pi)) e^-x^2 / erfc(x) */
        const long double dh = -(2 / CT_SQRTPI_L) * expl(-x * x) / e;
        const long double dx = (logl(e) - lq) / dh;
        x -= dx;
        if (x < 0) x = 0;
        if (fabsl(dx) <= 0x1p-66L * x || dx == 0) break;
    }
    return x;
}

long double ct_k_erfinv_l(long double y) {
    if (y != y || y < -1 || y > 1) return NAN;
    if (y == 0) return y;
    const long double ay = fabsl(y);
    long double x;
    if (ay == 1) {
        x = INFINITY;
    } else if (ay > 0.5L) {
        x = ct_k_erfcinv_l(1 - ay); /* exact: 1 - ay */
    } else {
        /* Newton on erf (concave for x >= 0) from sqrt(pi)/2 ay, left of the root */
        x = CT_SQRTPI_L / 2 * ay;
        for (int it = 0; it < 100; it++) {
            const long double dx = (erfl(x) - ay) / ((2 / CT_SQRTPI_L) * expl(-x * x));
            x -= dx;
            if (fabsl(dx) <= 0x1p-66L * x || dx == 0) break;
        }
    }
    return y < 0 ? -x : x;
}

long double ct_k_ndtri_l(long double p) {
    if (p != p || p < 0 || p > 1) return NAN;
    if (p == 0) return -INFINITY;
    if (p == 1) return INFINITY;
    if (p == 0.5L) return 0;
    /* the middle: sqrt(2) erfinv(2p - 1), 2p - 1 exact there; the tails: -sqrt(2) erfcinv(2p),
     * above 1/2 through 1 - p (exact) */
    if (p >= 0.25L && p <= 0.75L) return CT_SQRT2_L * ct_k_erfinv_l(2 * p - 1);
    return p < 0.5L ? -CT_SQRT2_L * ct_k_erfcinv_l(2 * p)
                    : CT_SQRT2_L * ct_k_erfcinv_l(2 * (1 - p));
}

long double ct_k_ndtr_l(long double x) {
    if (x != x) return x;
    const long double t = x / CT_SQRT2_L;
    return x < 0 ? erfcl(-t) / 2 : 1 - erfcl(t) / 2;
}

long double ct_k_erfcx_l(long double x) {
    if (x != x) return x;
    if (x < 0) {
        if (x < -106) return INFINITY; /* 2 e^(x^2) overflows even long double */
        return 2 * expl(x * x) - ct_k_erfcx_l(-x);
    }
    if (x <= 25) return expl(x * x) * erfcl(x);
    if (isinf(x)) return 0;
    /* erfcx(x) ~ 1 / (x sqrt(pi)) sum (-1)^k (2k - 1)!! / (2 x^2)^k */
    const long double z = 1 / (2 * x * x);
    long double t = 1, s = 1;
    for (int k = 1; k < 60; k++) {
        t *= -(2 * k - 1) * z;
        s += t;
        if (fabsl(t) <= 0x1p-70L) break;
    }
    return s / (x * CT_SQRTPI_L);
}

long double ct_k_log_ndtr_l(long double x) {
    if (x != x) return x;
    const long double t = x / CT_SQRT2_L;
    if (x > 0) return log1pl(-erfcl(t) / 2);
    if (x > -20) return logl(erfcl(-t) / 2);
    /* the far lower tail: log(erfc(u) / 2) = log(erfcx(u) / 2) - u^2, u = -x / sqrt(2) */
    const long double u = -t;
    return logl(ct_k_erfcx_l(u) / 2) - u * u;
}

long double ct_k_entr_l(long double x) {
    if (x != x) return x;
    if (x > 0) return -x * logl(x); /* -0 at 1, as torch */
    return x == 0 ? 0 : -INFINITY;
}

/* I_nu(ax) for nu in {0, 1} and a finite ax >= 0, times e^-ax when scaled: the power series
 * (positive terms) up to ax = 30, above it the asymptotic expansion e^ax / sqrt(2 pi ax)
 * sum (-1)^k a_k(nu) / ax^k, whose smallest term there is below 1e-25 */
static long double ct_k_bessel_i_l(int nu, long double ax, bool scaled) {
    if (ax <= 30) {
        const long double q = ax * ax / 4;
        long double t = nu ? ax / 2 : 1, s = t;
        for (int k = 1; k < 1000; k++) {
            t *= q / ((long double)k * (k + nu));
            s += t;
            if (t <= s * 0x1p-70L) break;
        }
        return scaled ? s * expl(-ax) : s;
    }
    const long double mu = 4.0L * nu * nu;
    long double t = 1, s = 1;
    for (int k = 1; k < 200; k++) {
        const long double nt = -t * (mu - (long double)(2 * k - 1) * (2 * k - 1)) / (8.0L * k * ax);
        if (fabsl(nt) >= fabsl(t)) break;
        t = nt;
        s += t;
        if (fabsl(t) <= 0x1p-70L * s) break;
    }
    s /= sqrtl(2 * CT_PI_L * ax);
    return scaled ? s : s * expl(ax);
}

long double ct_k_i0_l(long double x) {
    if (x != x) return x;
    if (isinf(x)) return INFINITY;
    return ct_k_bessel_i_l(0, fabsl(x), false);
}
long double ct_k_i0e_l(long double x) {
    if (x != x) return x;
    if (isinf(x)) return 0;
    return ct_k_bessel_i_l(0, fabsl(x), true);
}
long double ct_k_i1_l(long double x) {
    if (x != x || isinf(x)) return x;
    const long double r = ct_k_bessel_i_l(1, fabsl(x), false);
    return x < 0 ? -r : r;
}
long double ct_k_i1e_l(long double x) {
    if (x != x) return x;
    const long double r = isinf(x) ? 0 : ct_k_bessel_i_l(1, fabsl(x), true);
    return x < 0 ? -r : r;
}

/* ---- torch.special.zeta(x, q): Hurwitz zeta for real x > 1 (Cephes' domain rules, as torch:
 * x == 1 -> inf, x < 1 -> NaN, q <= 0: inf at integers, NaN for a non-integer x) ---- */
long double ct_k_zeta_l(long double x, long double q) {
    if (x != x || q != q) return x + q;
    if (x == 1) return INFINITY;
    if (x < 1) return NAN;
    if (q <= 0) {
        if (q == floorl(q)) return INFINITY;
        if (x != floorl(x)) return NAN;
    }
    if (isinf(x)) return q == 1 ? 1 : (q < 1 ? INFINITY : 0);
    if (isinf(q)) return 0;
    return ct_k_hurwitz_l(x, q);
}

/* ---- regularized incomplete gamma P(a, x) / Q(a, x): the series of P or Q, or Lentz's
 * continued fraction for Q, chosen as Cephes chooses them (so the one computed is not a small
 * difference); the prefactor x^a e^-x / Gamma(a) through log1pmx and Stirling's series for a >= 20
 * (its exponent then carries no a * 2^-64 error) ---- */
#define CT_K_IGAMMA_MAXIT 4000000 /* about 9 sqrt(a) terms near x = a: a up to ~1e11 */
/* log(1 + t) - t without cancellation for small t */
static long double ct_k_log1pmx_l(long double t) {
    if (fabsl(t) > 0.25L) return log1pl(t) - t;
    long double tk = t * t, s = 0;
    for (int k = 2; k < 400; k++) {
        const long double term = tk / k;
        s += (k & 1) ? term : -term;
        if (fabsl(term) <= fabsl(s) * 0x1p-66L) break;
        tk *= t;
    }
    return s;
}
static long double ct_k_gamma_prefix_l(long double a, long double x) {
    if (a < 20) return expl(a * logl(x) - x - ct_k_lgamma_l(a));
    const long double z = 1 / (a * a);
    const long double corr =
        (1.0L / 12 +
         z * (-1.0L / 360 + z * (1.0L / 1260 + z * (-1.0L / 1680 +
                                                    z * (1.0L / 1188 + z * (-691.0L / 360360 +
                                                                            z * (1.0L / 156))))))) /
        a;
    /* a (log(x / a) - (x - a) / a): through log1pmx near x = a, else log(x / a) itself (1 + t
     * would round away the digits of a small x / a) */
    const long double t = (x - a) / a;
    const long double lead = fabsl(t) <= 0.25L ? a * ct_k_log1pmx_l(t) : a * logl(x / a) - (x - a);
    return expl(lead + 0.5L * logl(a / (2 * CT_PI_L)) - corr);
}
static long double ct_k_igamma_series_l(long double a, long double x) { /* P */
    long double term = 1 / a, sum = term;
    for (int n = 1; n < CT_K_IGAMMA_MAXIT; n++) {
        term *= x / (a + n);
        sum += term;
        if (fabsl(term) <= fabsl(sum) * 0x1p-66L) break;
    }
    return sum * ct_k_gamma_prefix_l(a, x);
}
static long double ct_k_igammac_cf_l(long double a, long double x) { /* Q */
    const long double tiny = 0x1p-16000L;
    long double b = (x - a) + 1, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < CT_K_IGAMMA_MAXIT; i++) {
        const long double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabsl(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabsl(c) < tiny) c = tiny;
        d = 1 / d;
        const long double del = d * c;
        h *= del;
        if (fabsl(del - 1) <= 0x1p-66L) break;
    }
    return h * ct_k_gamma_prefix_l(a, x);
}
/* lgamma(1 + a) for |a| <= 1/2 by its Taylor series -gamma a + sum (-a)^k zeta(k) / k */
static long double ct_k_lgamma1p_l(long double a) {
    if (fabsl(a) > 0.5L) return ct_k_lgamma_l(1 + a);
    const long double euler = 0.57721566490153286060651209008240243L;
    long double s = -euler * a, ak = -a; /* (-a)^k */
    for (int k = 2; k < 200; k++) {
        ak *= -a;
        const long double term = ak * ct_k_hurwitz_l(k, 1) / k;
        s += term;
        if (fabsl(term) <= fabsl(s) * 0x1p-66L) break;
    }
    return s;
}
/* Q for small a and x <= 1.1: 1 - x^a / Gamma(a + 1) (through expm1) minus the rest of the series
 * x^a / Gamma(a) sum_n (-x)^n / (n! (a + n)) */
static long double ct_k_igammac_series_l(long double a, long double x) {
    long double fac = 1, sum = 0;
    for (int n = 1; n < CT_K_IGAMMA_MAXIT; n++) {
        fac *= -x / n;
        const long double term = fac / (a + n);
        sum += term;
        if (fabsl(term) <= fabsl(sum) * 0x1p-66L) break;
    }
    const long double lx = logl(x);
    return -expm1l(a * lx - ct_k_lgamma1p_l(a)) - expl(a * lx - ct_k_lgamma_l(a)) * sum;
}
/* Temme's uniform expansion to its first term (DLMF 8.12): P = erfc(-eta sqrt(a/2)) / 2 - R,
 * Q = erfc(eta sqrt(a/2)) / 2 + R, R = e^(-a eta^2 / 2) / sqrt(2 pi a) c0(eta) with
 * c0 = 1 / (lambda - 1) - 1 / eta; the next term is below 1e-18 relative for a > 1e10, where the
 * series would need millions of terms */
#define CT_K_IGAMMA_TEMME_A 1e10L
static long double ct_k_igamma_temme_l(long double a, long double x, bool upper) {
    const long double mu = (x - a) / a;
    const long double lg = fabsl(mu) <= 0.25L ? ct_k_log1pmx_l(mu) : logl(x / a) - mu;
    const long double e2 = -2 * lg, eta = mu < 0 ? -sqrtl(e2) : sqrtl(e2);
    const long double c0 = fabsl(eta) < 0.01L
                               ? -1.0L / 3 + eta / 12 - 2 * eta * eta / 135 +
                                     eta * eta * eta / 864 + eta * eta * eta * eta / 2835
                               : 1 / mu - 1 / eta;
    const long double r = expl(-a * e2 / 2) / sqrtl(2 * CT_PI_L * a) * c0;
    const long double z = eta * sqrtl(a / 2);
    return upper ? erfcl(z) / 2 + r : erfcl(-z) / 2 - r;
}

/* Cephes' choice: which of P, Q to compute directly */
static bool ct_k_igamma_q_direct(long double a, long double x) {
    if (x > 1.1L) return x >= a;
    if (x <= 0.5L) return -0.4L / logl(x) >= a;
    return x * 1.1L >= a;
}
static long double ct_k_igammac_direct_l(long double a, long double x) {
    return x > 1.1L ? ct_k_igammac_cf_l(a, x) : ct_k_igammac_series_l(a, x);
}
/* torch's order of the special cases, NaN included: igamma(NaN, 0) = 0, igamma(NaN, inf) = 1,
 * igamma(inf, NaN) = 0 (and the complements for igammac); other NaNs propagate */
long double ct_k_igamma_l(long double a, long double x) {
    if (x < 0 || a < 0) return NAN;
    if (a == 0) return x > 0 ? 1 : NAN;
    if (x == 0) return 0;
    if (isinf(a)) return isinf(x) ? NAN : 0;
    if (isinf(x)) return 1;
    if (a != a || x != x) return a + x;
    if (a > CT_K_IGAMMA_TEMME_A) return ct_k_igamma_temme_l(a, x, false);
    if (x > 1 && x > a) return 1 - ct_k_igammac_direct_l(a, x);
    return ct_k_igamma_series_l(a, x);
}
long double ct_k_igammac_l(long double a, long double x) {
    if (x < 0 || a < 0) return NAN;
    if (a == 0) return x > 0 ? 0 : NAN;
    if (x == 0) return 1;
    if (isinf(a)) return isinf(x) ? NAN : 1;
    if (isinf(x)) return 0;
    if (a != a || x != x) return a + x;
    if (a > CT_K_IGAMMA_TEMME_A) return ct_k_igamma_temme_l(a, x, true);
    return ct_k_igamma_q_direct(a, x) ? ct_k_igammac_direct_l(a, x)
                                      : 1 - ct_k_igamma_series_l(a, x);
}

/* ---- Bessel functions of the first and second kind (glibc's long double j0l ... y1l) ---- */
long double ct_k_bessel_j0_l(long double x) { return isinf(x) ? 0 : j0l(x); }
long double ct_k_bessel_j1_l(long double x) { return isinf(x) ? 0 : j1l(x); }
long double ct_k_bessel_y0_l(long double x) {
    if (x != x) return x;
    if (x < 0) return NAN;
    if (x == 0) return -INFINITY;
    return isinf(x) ? 0 : y0l(x);
}
long double ct_k_bessel_y1_l(long double x) {
    if (x != x) return x;
    if (x < 0) return NAN;
    if (x == 0) return -INFINITY;
    return isinf(x) ? 0 : y1l(x);
}

/* ---- modified Bessel functions of the second kind K0, K1 (x > 0) and their scaled forms
 * e^x K(x): the series about 0 for x <= 2, Steed's continued fraction (CF2) above ---- */
static void ct_k_bessel_k01_l(long double x, bool scaled, long double *k0, long double *k1) {
    const long double euler = 0.57721566490153286060651209008240243L;
    if (x <= 2) {
        const long double y = x * x / 4, lg = logl(x / 2), i0 = ct_k_bessel_i_l(0, x, false),
                          i1 = ct_k_bessel_i_l(1, x, false);
        /* K0 = -(ln(x/2) + gamma) I0 + sum y^k / (k!)^2 H_k */
        long double t = 1, h = 0, s0 = 0;
        /* K1 = 1/x + ln(x/2) I1 - (x/4) sum (psi(k+1) + psi(k+2)) y^k / (k! (k+1)!) */
        long double u = 1, s1 = 0;
        for (int k = 0; k < 200; k++) {
            if (k > 0) {
                t *= y / ((long double)k * k);
                h += 1.0L / k;
                u *= y / ((long double)k * (k + 1));
            }
            const long double a = t * h, b = u * (2 * h - 2 * euler + 1.0L / (k + 1));
            s0 += a;
            s1 += b;
            if (k > 2 && fabsl(a) <= fabsl(s0) * 0x1p-66L && fabsl(b) <= fabsl(s1) * 0x1p-66L)
                break;
        }
        *k0 = -(lg + euler) * i0 + s0;
        *k1 = 1 / x + lg * i1 - x / 4 * s1;
        if (scaled) {
            const long double e = expl(x);
            *k0 *= e;
            *k1 *= e;
        }
        return;
    }
    long double b = 2 * (1 + x), d = 1 / b, h = d, delh = d, q1 = 0, q2 = 1;
    const long double a1 = 0.25L;
    long double q = a1, c = a1, a = -a1, s = 1 + q * delh;
    for (int i = 2; i < 100000; i++) {
        a -= 2 * (i - 1);
        c = -a * c / i;
        const long double qnew = (q1 - b * q2) / a;
        q1 = q2;
        q2 = qnew;
        q += c * qnew;
        b += 2;
        d = 1 / (b + a * d);
        delh = (b * d - 1) * delh;
        h += delh;
        const long double dels = q * delh;
        s += dels;
        if (fabsl(dels / s) <= 0x1p-66L) break;
    }
    h = a1 * h;
    const long double pi = 3.14159265358979323846264338327950288L;
    long double kmu = sqrtl(pi / (2 * x)) / s;
    if (!scaled) kmu *= expl(-x);
    *k0 = kmu;
    *k1 = kmu * (x + 0.5L - h) / x;
}
static long double ct_k_k_any(long double x, int order, bool scaled) {
    if (x != x) return x;
    if (x < 0) return NAN;
    if (x == 0) return INFINITY;
    if (isinf(x)) return 0;
    long double k0 = 0, k1 = 0;
    ct_k_bessel_k01_l(x, scaled, &k0, &k1);
    return order ? k1 : k0;
}
long double ct_k_bessel_k0_l(long double x) { return ct_k_k_any(x, 0, false); }
long double ct_k_bessel_k1_l(long double x) { return ct_k_k_any(x, 1, false); }
long double ct_k_bessel_k0e_l(long double x) { return ct_k_k_any(x, 0, true); }
long double ct_k_bessel_k1e_l(long double x) { return ct_k_k_any(x, 1, true); }

/* spherical Bessel j0 = sin(x) / x (1 at 0, 0 at +-inf) */
long double ct_k_spherical_j0_l(long double x) {
    if (x != x) return x;
    if (isinf(x)) return 0;
    if (fabsl(x) < 0x1p-20L) return 1 - x * x / 6;
    return sinl(x) / x;
}

/* ---- orthogonal polynomials (torch.special.*_polynomial_*(x, n)). n is truncated to an integer
 * as torch's int64_t conversion; NaN, +-inf and |n| >= 2^63, which that conversion turns into
 * INT64_MIN, count as negative, and a negative degree gives 0. A NaN x gives NaN, except at degree
 * 0 (1, as torch). ---- */
static int64_t ct_k_poly_degree(long double n) {
    if (!(n > -0x1p63L && n < 0x1p63L)) return -1;
    return (int64_t)n; /* truncation toward 0: -0.5 is degree 0, as torch */
}

/* Chebyshev T, U, V, W of the first to fourth kinds at y = 1 - p = q - 1, p and q given
 * separately so that a shifted argument (y = 2x - 1: p = 2 - 2x, q = 2x) keeps its digits at both
 * ends. With y = cos(t): T = cos(n t), U = sin((n + 1) t) / sin t, V = cos((n + 1/2) t) / cos(t /
 * 2), W = sin((n + 1/2) t) / sin(t / 2); with y = cosh(a) above 1 the hyperbolic forms. Below 0 the
 * reflections T(-y) = (-1)^n T(y), U likewise, V(-y) = (-1)^n W(y), W(-y) = (-1)^n V(y). */
enum { CT_K_CHEB_T, CT_K_CHEB_U, CT_K_CHEB_V, CT_K_CHEB_W };
/* cos and sin of j pi / 4 - r, exactly for the quarter turns (j = 0 .. 7) */
static void ct_k_quarter_cs(int j, long double r, long double *c, long double *s) {
    const long double pi4 = 0.785398163397448309615660845819875721L;
    if (j & 1) r -= pi4, j -= 1;
    const long double cr = cosl(r), sr = sinl(r);
    switch (j / 2) {
    case 0: *c = cr, *s = -sr; break;
    case 1: *c = sr, *s = cr; break;
    case 2: *c = -cr, *s = sr; break;
    default: *c = -sr, *s = -cr; break;
    }
}
static long double ct_k_cheb_l(int kind, long double nf, long double y, long double p,
                               long double q) {
    const int64_t n = ct_k_poly_degree(nf);
    if (n < 0) return 0;
    if (n == 0) return 1;
    if (y != y) return y;
    long double sign = 1;
    if (y < 0) { /* reflect */
        const long double t = p;
        p = q, q = t, y = -y;
        if (n & 1) sign = -1;
        if (kind == CT_K_CHEB_V)
            kind = CT_K_CHEB_W;
        else if (kind == CT_K_CHEB_W)
            kind = CT_K_CHEB_V;
    }
    const long double nl = (long double)n;
    if (p == 0) { /* y == 1: 1, n + 1, 1, 2n + 1 */
        switch (kind) {
        case CT_K_CHEB_U: return sign * (nl + 1);
        case CT_K_CHEB_W: return sign * (2 * nl + 1);
        default: return sign;
        }
    }
    if (isinf(y)) return sign * INFINITY;
    if (p < 0) { /* y > 1: y = cosh(a), a = 2 asinh(sqrt((y - 1) / 2)) */
        const long double a = 2 * asinhl(sqrtl(-p / 2));
        switch (kind) {
        case CT_K_CHEB_T: return sign * coshl(nl * a);
        case CT_K_CHEB_U: return sign * (sinhl((nl + 1) * a) / sinhl(a));
        case CT_K_CHEB_V: return sign * (coshl((nl + 0.5L) * a) / coshl(a / 2));
        default: return sign * (sinhl((nl + 0.5L) * a) / sinhl(a / 2));
        }
    }
    /* 0 <= y < 1: the multiple m of t (n, n + 1 or n + 1/2) and cos / sin of m t */
    const long double m = kind == CT_K_CHEB_T ? nl : kind == CT_K_CHEB_U ? nl + 1 : nl + 0.5L;
    long double c, s;
    if (y <= 0.5L) {
        /* t = pi / 2 - f with f = asin(y): m t = (2m) pi / 4 - m f, the quarter turns exact (so
         * T and U of odd degree keep their relative accuracy near their zero at y = 0) */
        const int j = (int)((2 * (n & 3) + (kind == CT_K_CHEB_T   ? 0
                                            : kind == CT_K_CHEB_U ? 2
                                                                  : 1)) &
                            7);
        ct_k_quarter_cs(j, m * asinl(y), &c, &s);
    } else {
        const long double t = 2 * atan2l(sqrtl(p), sqrtl(q));
        c = cosl(m * t), s = sinl(m * t);
    }
    switch (kind) {
    case CT_K_CHEB_T: return sign * c;
    case CT_K_CHEB_U: return sign * (s / sqrtl(p * q));
    case CT_K_CHEB_V: return sign * (c / sqrtl(q / 2));
    default: return sign * (s / sqrtl(p / 2));
    }
}
long double ct_k_chebyshev_t_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_T, n, x, 1 - x, 1 + x);
}
long double ct_k_chebyshev_u_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_U, n, x, 1 - x, 1 + x);
}
long double ct_k_chebyshev_v_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_V, n, x, 1 - x, 1 + x);
}
long double ct_k_chebyshev_w_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_W, n, x, 1 - x, 1 + x);
}
long double ct_k_shifted_chebyshev_t_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_T, n, 2 * x - 1, 2 - 2 * x, 2 * x);
}
long double ct_k_shifted_chebyshev_u_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_U, n, 2 * x - 1, 2 - 2 * x, 2 * x);
}
long double ct_k_shifted_chebyshev_v_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_V, n, 2 * x - 1, 2 - 2 * x, 2 * x);
}
long double ct_k_shifted_chebyshev_w_l(long double x, long double n) {
    return ct_k_cheb_l(CT_K_CHEB_W, n, 2 * x - 1, 2 - 2 * x, 2 * x);
}

/* Hermite H and He, Laguerre L, Legendre P: the three-term recurrences in long double, rescaled
 * by 2^-1024 whenever a term passes 2^1024 (so a result beyond every float format comes out as
 * inf with its sign, where torch's recurrence reaches inf - inf = NaN). The recurrence is
 * O(n): degrees above CT_K_POLY_MAX_STEPS give NaN rather than run for hours (torch loops n
 * times). */
#define CT_K_POLY_MAX_STEPS (INT64_C(1) << 24)
enum { CT_K_HERMITE_H, CT_K_HERMITE_HE, CT_K_LAGUERRE, CT_K_LEGENDRE };
static long double ct_k_recur_l(int kind, long double x, long double nf) {
    const int64_t n = ct_k_poly_degree(nf);
    if (n < 0) return 0;
    if (n == 0) return 1;
    if (x != x) return x;
    if (kind == CT_K_LAGUERRE && x == 0) return 1;
    if (kind == CT_K_LEGENDRE && fabsl(x) == 1) return x > 0 || !(n & 1) ? 1 : -1;
    if (isinf(x)) { /* the leading term: x^n, or (-x)^n / n! for Laguerre */
        const bool neg = kind == CT_K_LAGUERRE ? x > 0 : x < 0;
        return neg && (n & 1) ? -INFINITY : INFINITY;
    }
    if (n > CT_K_POLY_MAX_STEPS) return NAN;
    long double p = 1, q;
    switch (kind) {
    case CT_K_HERMITE_H: q = 2 * x; break;
    case CT_K_HERMITE_HE: q = x; break;
    case CT_K_LAGUERRE: q = 1 - x; break;
    default: q = x; break;
    }
    int64_t e = 0; /* the result is q 2^e */
    for (int64_t k = 1; k < n; k++) {
        const long double kl = (long double)k;
        long double r;
        switch (kind) {
        case CT_K_HERMITE_H: r = 2 * x * q - 2 * kl * p; break;
        case CT_K_HERMITE_HE: r = x * q - kl * p; break;
        case CT_K_LAGUERRE: r = ((2 * kl + 1 - x) * q - kl * p) / (kl + 1); break;
        default: r = ((2 * kl + 1) * x * q - kl * p) / (kl + 1); break;
        }
        p = q, q = r;
        if (fabsl(q) > 0x1p1024L) {
            p = ldexpl(p, -1024), q = ldexpl(q, -1024);
            e += 1024;
        }
    }
    return e > 20000 ? copysignl(INFINITY, q) : ldexpl(q, (int)e);
}
long double ct_k_hermite_h_l(long double x, long double n) {
    return ct_k_recur_l(CT_K_HERMITE_H, x, n);
}
long double ct_k_hermite_he_l(long double x, long double n) {
    return ct_k_recur_l(CT_K_HERMITE_HE, x, n);
}
long double ct_k_laguerre_l_l(long double x, long double n) {
    return ct_k_recur_l(CT_K_LAGUERRE, x, n);
}
long double ct_k_legendre_p_l(long double x, long double n) {
    return ct_k_recur_l(CT_K_LEGENDRE, x, n);
}

/* ---- Airy Ai: the Maclaurin series for -2.8 <= x <= 2; above, Ai(x) = e^-z / (2 sqrt(pi)
 * x^(1/4) s) with z = 2/3 x^(3/2) and s from Steed's continued fraction for K_1/3(z); below,
 * Ai(-x) = sqrt(x) / 2 (J_1/3(z) - Y_1/3(z) / sqrt(3)) by Steed's method up to z = 40 and the
 * asymptotic expansion beyond, its phase z carried in two long doubles. Ai(+-inf) = 0. ---- */
static long double ct_k_airy_series_l(long double x) {
    const long double c1 = 0.355028053887817239260063186004183176L,
                      c2 = 0.258819403792806798405183560189203963L, x3 = x * x * x;
    long double f = 1, g = x, tf = 1, tg = x;
    for (int k = 1; k < 200; k++) {
        tf *= x3 / ((3.0L * k - 1) * (3.0L * k));
        tg *= x3 / ((3.0L * k) * (3.0L * k + 1));
        f += tf, g += tg;
        if (fabsl(tf) <= fabsl(f) * 0x1p-68L && fabsl(tg) <= fabsl(g) * 0x1p-68L) break;
    }
    return c1 * f - c2 * g;
}
/* s of K_nu(z) = sqrt(pi / (2 z)) e^-z / s (Steed's CF2, as ct_k_bessel_k01_l) for nu^2 = 1/9 */
static long double ct_k_k13_s_l(long double z) {
    const long double a1 = 0.25L - 1.0L / 9;
    long double b = 2 * (1 + z), d = 1 / b, delh = d, q1 = 0, q2 = 1;
    long double q = a1, c = a1, a = -a1, s = 1 + q * delh;
    for (int i = 2; i < 100000; i++) {
        a -= 2 * (i - 1);
        c = -a * c / i;
        const long double qnew = (q1 - b * q2) / a;
        q1 = q2;
        q2 = qnew;
        q += c * qnew;
        b += 2;
        d = 1 / (b + a * d);
        delh = (b * d - 1) * delh;
        const long double dels = q * delh;
        s += dels;
        if (fabsl(dels / s) <= 0x1p-68L) break;
    }
    return s;
}
/* J_1/3(z), Y_1/3(z) for z >= 2: Steed's method (CF1 for J' / J, the complex CF2 for p + iq,
 * the Wronskian for the scale) */
static void ct_k_jy13_l(long double z, long double *jv, long double *yv) {
    const long double nu = 1.0L / 3, tiny = 0x1p-16000L, eps = 0x1p-68L;
    const long double xi = 1 / z, xi2 = 2 * xi;
    const long double pi = 3.14159265358979323846264338327950288L;
    int isign = 1;
    long double h = nu * xi, b = xi2 * nu, d = 0, c = h;
    if (h < tiny) h = tiny, c = tiny;
    for (int i = 1; i < 1000000; i++) {
        b += xi2;
        d = b - d;
        if (fabsl(d) < tiny) d = tiny;
        c = b - 1 / c;
        if (fabsl(c) < tiny) c = tiny;
        d = 1 / d;
        const long double del = c * d;
        h *= del;
        if (d < 0) isign = -isign;
        if (fabsl(del - 1) < eps) break;
    }
    const long double f = h; /* J' / J */
    long double a = 0.25L - nu * nu, p = -0.5L * xi, q = 1;
    const long double br = 2 * z;
    long double bi = 2, fact = a * xi / (p * p + q * q), cr = br + q * fact, ci = bi + p * fact;
    long double den = br * br + bi * bi, dr = br / den, di = -bi / den;
    long double dlr = cr * dr - ci * di, dli = cr * di + ci * dr, t = p * dlr - q * dli;
    q = p * dli + q * dlr, p = t;
    for (int i = 2; i < 1000000; i++) {
        a += 2 * (i - 1);
        bi += 2;
        dr = a * dr + br;
        di = a * di + bi;
        if (fabsl(dr) + fabsl(di) < tiny) dr = tiny;
        fact = a / (cr * cr + ci * ci);
        cr = br + cr * fact;
        ci = bi - ci * fact;
        if (fabsl(cr) + fabsl(ci) < tiny) cr = tiny;
        den = dr * dr + di * di;
        dr /= den;
        di = -di / den;
        dlr = cr * dr - ci * di;
        dli = cr * di + ci * dr;
        t = p * dlr - q * dli;
        q = p * dli + q * dlr;
        p = t;
        if (fabsl(dlr - 1) + fabsl(dli) < eps) break;
    }
    const long double gam = (p - f) / q;
    long double j = sqrtl(xi2 / pi / ((p - f) * gam + q));
    if (isign < 0) j = -j;
    *jv = j, *yv = j * gam;
}
long double ct_k_airy_ai_l(long double x) {
    const long double sqrtpi = 1.77245385090551602729816748334114518L;
    if (x != x) return x;
    if (isinf(x)) return 0;
    if (x >= -2.8L && x <= 2) return ct_k_airy_series_l(x);
    if (x > 0) {
        const long double z = 2 * x * sqrtl(x) / 3;
        return expl(-z) / (2 * sqrtpi * sqrtl(sqrtl(x)) * ct_k_k13_s_l(z));
    }
    const long double w = -x, sw = sqrtl(w);
    if (w * sw < 60) { /* z = 2/3 w^(3/2) < 40 */
        long double j, y;
        ct_k_jy13_l(2 * w * sw / 3, &j, &y);
        return sw / 2 * (j - y / 1.73205080756887729352744634150587237L);
    }
    /* z = 2/3 w sqrt(w) as zh + zl: the residual of the square root and of each product exact
     * through fmal, so cos / sin of z keep their digits for a large z */
    const long double ds = fmal(-sw, sw, w) / (2 * sw);
    const long double th = w * sw, tl = fmal(w, sw, -th) + w * ds;
    const long double zh = 2 * th / 3, zl = (fmal(-zh, 3, 2 * th) + 2 * tl) / 3;
    const long double cz = cosl(zh), sz = sinl(zh);
    const long double cosz = cz - sz * zl, sinz = sz + cz * zl;
    /* Ai(-w) ~ (cos(z - pi/4) P + sin(z - pi/4) Q) / (sqrt(pi) w^(1/4)), P = sum (-1)^k u_2k
     * z^-2k, Q = sum (-1)^k u_2k+1 z^-2k-1, u_k = u_k-1 (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k) */
    long double P = 0, Q = 0, u = 1, zp = 1;
    const long double zi = 1 / zh;
    for (int k = 0; k < 200; k++) {
        if (k > 0) {
            u *= (6.0L * k - 5) * (6.0L * k - 3) * (6.0L * k - 1) / ((2.0L * k - 1) * 216 * k);
            zp *= zi;
        }
        const long double term = u * zp;
        const int r = k & 3; /* k = 2i: (-1)^i into P; k = 2i + 1: (-1)^i into Q */
        if (r == 0)
            P += term;
        else if (r == 1)
            Q += term;
        else if (r == 2)
            P -= term;
        else
            Q -= term;
        if (term <= 0x1p-68L) break;
    }
    const long double r2 = 0.707106781186547524400844362104849039L;
    const long double cm = (cosz + sinz) * r2, sm = (sinz - cosz) * r2;
    return (cm * P + sm * Q) / (sqrtpi * sqrtl(sw));
}

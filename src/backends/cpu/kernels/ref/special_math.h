/* Scalar special functions of the reference kernels (torch.special and friends), evaluated in
 * long double (x87 extended: 64-bit significand) so float and double results are rounded once
 * from a value with about 11 more bits than double. The argument is the element's value. */
#ifndef CT_KERNELS_REF_SPECIAL_MATH_H
#define CT_KERNELS_REF_SPECIAL_MATH_H

#include <stdint.h>

long double ct_k_lgamma_l(long double x);
long double ct_k_digamma_l(long double x);
/* psi^(n)(x) for n >= 0 (n == 0: digamma) */
long double ct_k_polygamma_l(int64_t n, long double x);
long double ct_k_erfinv_l(long double y);
long double ct_k_ndtri_l(long double p);
long double ct_k_ndtr_l(long double x);
long double ct_k_log_ndtr_l(long double x);
long double ct_k_erfcx_l(long double x);
long double ct_k_entr_l(long double x);
/* modified Bessel functions of the first kind, orders 0 and 1, and their exponentially scaled
 * forms (e^-|x| I(x)) */
long double ct_k_i0_l(long double x);
long double ct_k_i0e_l(long double x);
long double ct_k_i1_l(long double x);
long double ct_k_i1e_l(long double x);
/* Hurwitz zeta(x, q) with Cephes' domain rules (torch.special.zeta) */
long double ct_k_zeta_l(long double x, long double q);
/* regularized lower / upper incomplete gamma P(a, x), Q(a, x) (torch.special.gammainc / c) */
long double ct_k_igamma_l(long double a, long double x);
long double ct_k_igammac_l(long double a, long double x);
/* Bessel J0, J1, Y0, Y1; modified K0, K1 and e^x K0, e^x K1; spherical j0 */
long double ct_k_bessel_j0_l(long double x);
long double ct_k_bessel_j1_l(long double x);
long double ct_k_bessel_y0_l(long double x);
long double ct_k_bessel_y1_l(long double x);
long double ct_k_bessel_k0_l(long double x);
long double ct_k_bessel_k1_l(long double x);
long double ct_k_bessel_k0e_l(long double x);
long double ct_k_bessel_k1e_l(long double x);
long double ct_k_spherical_j0_l(long double x);

/* torch.special's orthogonal polynomials at (x, n) (n truncated; negative: 0) and Airy Ai */
long double ct_k_chebyshev_t_l(long double x, long double n);
long double ct_k_chebyshev_u_l(long double x, long double n);
long double ct_k_chebyshev_v_l(long double x, long double n);
long double ct_k_chebyshev_w_l(long double x, long double n);
long double ct_k_shifted_chebyshev_t_l(long double x, long double n);
long double ct_k_shifted_chebyshev_u_l(long double x, long double n);
long double ct_k_shifted_chebyshev_v_l(long double x, long double n);
long double ct_k_shifted_chebyshev_w_l(long double x, long double n);
long double ct_k_hermite_h_l(long double x, long double n);
long double ct_k_hermite_he_l(long double x, long double n);
long double ct_k_laguerre_l_l(long double x, long double n);
long double ct_k_legendre_p_l(long double x, long double n);
long double ct_k_airy_ai_l(long double x);

#endif

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

#endif

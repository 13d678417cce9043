/* Inline element size for hot paths (op dispatch, kernels): the same numbers as the public dtype
 * table, without a call. Invalid values give 0. */
#ifndef CTORCH_DTYPE_SIZE_H
#define CTORCH_DTYPE_SIZE_H

#include "ctorch/dtype.h"

static inline size_t ct__itemsize(ct_dtype dt) {
    static const unsigned char sz[CT_DTYPE_COUNT] = {1, 1, 1, 2, 4, 8, 2, 2,
                                                     4, 8, 1, 1, 1, 1, 1, 1};
    return ((unsigned)dt < CT_DTYPE_COUNT) ? sz[dt] : 0;
}

/* Value range of the integer dtypes (bool as 0..1); false for other dtypes. */
static inline bool ct__int_range(ct_dtype dt, double *lo, double *hi) {
    static const double lim[6][2] = {{0, 1},
                                     {0, 255},
                                     {-128, 127},
                                     {-32768, 32767},
                                     {-2147483648.0, 2147483647.0},
                                     {-9223372036854775808.0, 9223372036854775807.0}};
    if ((unsigned)dt > CT_INT64) return false;
    *lo = lim[dt][0];
    *hi = lim[dt][1];
    return true;
}

#endif

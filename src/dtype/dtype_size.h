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

#endif

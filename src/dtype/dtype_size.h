/* Inline element size for hot paths (op dispatch, kernels): the same numbers as the public dtype
 * table, without a call. Invalid values give 0. */
#ifndef CTORCH_DTYPE_SIZE_H
#define CTORCH_DTYPE_SIZE_H

#include "ctorch/dtype.h"

static inline size_t ct__itemsize(ct_dtype dt) {
    static const unsigned char sz[CT_DTYPE_COUNT] = {1, 1, 1, 2, 4, 8, 2, 2, 4,
                                                     8, 1, 1, 1, 1, 1, 1, 8, 16};
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

/* c10's overflow check of a Scalar converted to dtype dt (torch.full, masked_fill, clamp bounds,
 * addmm's beta, F.pad's value, ...): an integer dtype takes values inside [min, max] (a fraction
 * beyond them overflows: 127.5 for int8), and uint8 also the integers -255..-1 (they wrap) when
 * the Scalar is an int (as_int; F.pad's value is always a float); f16, bf16 and f32 refuse finite
 * values beyond their largest (infinities and NaN pass); bool and f64 take anything. NaN and
 * infinities overflow every integer dtype. */
static inline bool ct__scalar_fits_dtype(ct_dtype dt, double v, bool as_int) {
    double lo = 0, hi = 0;
    if (dt == CT_BOOL || dt == CT_FLOAT64) return true;
    if (ct__int_range(dt, &lo, &hi)) {
        if (dt == CT_UINT8 && as_int && v < 0 && v >= -255 && v == (double)(int64_t)v) lo = -255;
        return v >= lo && v <= hi; /* int64: hi is 2^63 in double, which c10 lets through */
    }
    const double fmax = dt == CT_FLOAT16    ? 65504.0
                        : dt == CT_BFLOAT16 ? 3.3895313892515355e38
                        : dt == CT_FLOAT32  ? 3.4028234663852886e38
                                            : 0;
    return !(fmax > 0 && v - v == 0 && (v > fmax || v < -fmax));
}

/* A double Scalar converted to integer dtype dt (uint8..int64) as c10's checked conversion (a
 * C double stands for an int when it is integral): *conv = trunc(v) when it fits
 * (ct__scalar_fits_dtype), false (overflow) otherwise. */
static inline bool ct__int_scalar_conv(ct_dtype dt, double v, double *conv) {
    double lo = 0, hi = 0; /* an integer dtype, and v fits it */
    if (dt == CT_BOOL || !ct__int_range(dt, &lo, &hi) || !ct__scalar_fits_dtype(dt, v, true))
        return false;
    /* 2^63 (int64) converts as x86's cvttsd2si: INT64_MIN */
    *conv = v >= 9223372036854775808.0 ? -9223372036854775808.0 : (double)(int64_t)v;
    return true;
}

/* Float -> integer conversion as PyTorch on x86-64 (truncation toward zero, as cvttsd2si): NaN,
 * +-inf and values outside the target's range give the "integer indefinite" value (INT64_MIN /
 * INT32_MIN). Written explicitly so that no C undefined behaviour is involved. */
static inline int64_t ct__f2i64_x86(double v) {
    if (!(v > -9223372036854775809.0 && v < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)v;
}
static inline int32_t ct__f2i32_x86(double v) {
    if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
    return (int32_t)v;
}
/* Store-side rule for each integer dtype (bool: v != 0, NaN is true): int8/int16 truncate through
 * int32 and keep the low bits, uint8 and int64 through int64 (what torch 1.13 gives on x86). */
static inline int64_t ct__f2int_torch(double v, ct_dtype dt) {
    switch (dt) {
    case CT_BOOL: return v != 0;
    case CT_UINT8: return (int64_t)(uint8_t)(uint64_t)ct__f2i64_x86(v);
    case CT_INT8: return (int64_t)(int8_t)(uint8_t)(uint32_t)ct__f2i32_x86(v);
    case CT_INT16: return (int64_t)(int16_t)(uint16_t)(uint32_t)ct__f2i32_x86(v);
    case CT_INT32: return ct__f2i32_x86(v);
    default: return ct__f2i64_x86(v);
    }
}

#endif

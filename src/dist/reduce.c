/* Reduction kernels of the collectives (shared-memory path and MPI user ops for f16 / bf16): the
 * pairwise dst = dst op src over every reducible dtype. bool reduces as logical or (SUM, MAX) and
 * logical and (PROD, MIN); f16 / bf16 round after every pairwise step, as MPI and NCCL do. */
#include "dist/dist_impl.h"
#include "dtype/dtype_size.h"

#include <math.h>
#include <string.h>

bool ct__dist_reducible(ct_dtype dt, ct_reduce_op op) {
    if ((unsigned)op > CT_REDUCE_PROD) return false;
    if (dt <= CT_INT64) return op != CT_REDUCE_AVG;
    if (dt == CT_COMPLEX64 || dt == CT_COMPLEX128) /* as torch: sum and average */
        return op == CT_REDUCE_SUM || op == CT_REDUCE_AVG;
    return dt == CT_FLOAT16 || dt == CT_BFLOAT16 || dt == CT_FLOAT32 || dt == CT_FLOAT64;
}

/* max/min as torch: NaN propagates */
#define CT__FMAX(a, b) ((a) != (a) || (a) > (b) ? (a) : (b))
#define CT__FMIN(a, b) ((a) != (a) || (a) < (b) ? (a) : (b))
#define CT__IMAX(a, b) ((a) > (b) ? (a) : (b))
#define CT__IMIN(a, b) ((a) < (b) ? (a) : (b))

#define CT__RED_LOOP(T, MAXF, MINF)                                                                \
    do {                                                                                           \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        switch (op) {                                                                              \
        case CT_REDUCE_SUM:                                                                        \
        case CT_REDUCE_AVG:                                                                        \
            for (size_t i = 0; i < n; i++)                                                         \
                d[i] = (T)(d[i] + s[i]);                                                           \
            break;                                                                                 \
        case CT_REDUCE_PROD:                                                                       \
            for (size_t i = 0; i < n; i++)                                                         \
                d[i] = (T)(d[i] * s[i]);                                                           \
            break;                                                                                 \
        case CT_REDUCE_MAX:                                                                        \
            for (size_t i = 0; i < n; i++)                                                         \
                d[i] = MAXF(d[i], s[i]);                                                           \
            break;                                                                                 \
        case CT_REDUCE_MIN:                                                                        \
            for (size_t i = 0; i < n; i++)                                                         \
                d[i] = MINF(d[i], s[i]);                                                           \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

/* Integer sums and products wrap (two's complement, as torch): done in unsigned arithmetic. */
#define CT__RED_INT(T, U)                                                                          \
    do {                                                                                           \
        T *d = dst;                                                                                \
        const T *s = src;                                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (op == CT_REDUCE_SUM)                                                               \
                d[i] = (T)(U)((U)d[i] + (U)s[i]);                                                  \
            else if (op == CT_REDUCE_PROD)                                                         \
                d[i] = (T)(U)((U)d[i] * (U)s[i]);                                                  \
            else if (op == CT_REDUCE_MAX)                                                          \
                d[i] = CT__IMAX(d[i], s[i]);                                                       \
            else                                                                                   \
                d[i] = CT__IMIN(d[i], s[i]);                                                       \
        }                                                                                          \
    } while (0)

/* f32 / f64: the hot loops of gradient all-reduce, cloned for AVX-512 / AVX2 (ifunc picks one). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CT__CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CT__CLONES
#endif
CT__CLONES static void red_f32(void *dst, const void *src, size_t n, ct_reduce_op op) {
    CT__RED_LOOP(float, CT__FMAX, CT__FMIN);
}
CT__CLONES static void red_f64(void *dst, const void *src, size_t n, ct_reduce_op op) {
    CT__RED_LOOP(double, CT__FMAX, CT__FMIN);
}

static void red_half(uint16_t *d, const uint16_t *s, size_t n, bool bf, ct_reduce_op op) {
    for (size_t i = 0; i < n; i++) {
        float a = bf ? ct_bf16_to_f32(d[i]) : ct_f16_to_f32(d[i]);
        float b = bf ? ct_bf16_to_f32(s[i]) : ct_f16_to_f32(s[i]);
        float r;
        switch (op) {
        case CT_REDUCE_PROD: r = a * b; break;
        case CT_REDUCE_MAX: r = CT__FMAX(a, b); break;
        case CT_REDUCE_MIN: r = CT__FMIN(a, b); break;
        default: r = a + b; break;
        }
        d[i] = bf ? ct_f32_to_bf16(r) : ct_f32_to_f16(r);
    }
}

void ct__dist_reduce(void *dst, const void *src, size_t n, ct_dtype dt, ct_reduce_op op) {
    switch (dt) {
    case CT_BOOL: {
        uint8_t *d = dst;
        const uint8_t *s = src;
        bool any = op == CT_REDUCE_SUM || op == CT_REDUCE_MAX;
        for (size_t i = 0; i < n; i++)
            d[i] = any ? (d[i] || s[i]) : (d[i] && s[i]);
        break;
    }
    case CT_UINT8: CT__RED_INT(uint8_t, uint8_t); break;
    case CT_INT8: CT__RED_INT(int8_t, uint8_t); break;
    case CT_INT16: CT__RED_INT(int16_t, uint16_t); break;
    case CT_INT32: CT__RED_INT(int32_t, uint32_t); break;
    case CT_INT64: CT__RED_INT(int64_t, uint64_t); break;
    case CT_FLOAT16: red_half(dst, src, n, false, op); break;
    case CT_BFLOAT16: red_half(dst, src, n, true, op); break;
    case CT_FLOAT32: red_f32(dst, src, n, op); break;
    case CT_FLOAT64: red_f64(dst, src, n, op); break;
    case CT_COMPLEX64: red_f32(dst, src, 2 * n, op); break; /* sums of the parts */
    case CT_COMPLEX128: red_f64(dst, src, 2 * n, op); break;
    default: CT_ASSERT(0 && "not reducible"); break;
    }
}

void ct__dist_scale(void *dst, size_t n, ct_dtype dt, double k) {
    if (dt == CT_COMPLEX64 || dt == CT_COMPLEX128) { /* both parts */
        n *= 2;
        dt = dt == CT_COMPLEX64 ? CT_FLOAT32 : CT_FLOAT64;
    }
    if (dt == CT_FLOAT32) {
        float *d = dst;
        for (size_t i = 0; i < n; i++)
            d[i] = (float)(d[i] / k);
    } else if (dt == CT_FLOAT64) {
        double *d = dst;
        for (size_t i = 0; i < n; i++)
            d[i] /= k;
    } else if (dt == CT_FLOAT16 || dt == CT_BFLOAT16) {
        uint16_t *d = dst;
        bool bf = dt == CT_BFLOAT16;
        for (size_t i = 0; i < n; i++) {
            float v = (bf ? ct_bf16_to_f32(d[i]) : ct_f16_to_f32(d[i])) / (float)k;
            d[i] = bf ? ct_f32_to_bf16(v) : ct_f32_to_f16(v);
        }
    }
}

MPI_Datatype ct__dist_mpi_type(ct_dtype dt) {
    switch (dt) {
    case CT_BOOL:
    case CT_UINT8: return MPI_UINT8_T;
    case CT_INT8: return MPI_INT8_T;
    case CT_INT16: return MPI_INT16_T;
    case CT_INT32: return MPI_INT32_T;
    case CT_INT64: return MPI_INT64_T;
    case CT_FLOAT16:
    case CT_BFLOAT16: return MPI_UINT16_T;
    case CT_FLOAT32: return MPI_FLOAT;
    case CT_FLOAT64: return MPI_DOUBLE;
    case CT_COMPLEX64: return MPI_C_FLOAT_COMPLEX;
    case CT_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_BYTE;
    }
}

/* MPI user functions for the 16-bit floats, one per (format, op). */
#define CT__HALF_FN(name, bf, op)                                                                  \
    static void name(void *in, void *inout, int *len, MPI_Datatype *t) {                           \
        (void)t;                                                                                   \
        red_half(inout, in, (size_t)*len, bf, op);                                                 \
    }
CT__HALF_FN(h_sum, false, CT_REDUCE_SUM)
CT__HALF_FN(h_max, false, CT_REDUCE_MAX)
CT__HALF_FN(h_min, false, CT_REDUCE_MIN)
CT__HALF_FN(h_prod, false, CT_REDUCE_PROD)
CT__HALF_FN(b_sum, true, CT_REDUCE_SUM)
CT__HALF_FN(b_max, true, CT_REDUCE_MAX)
CT__HALF_FN(b_min, true, CT_REDUCE_MIN)
CT__HALF_FN(b_prod, true, CT_REDUCE_PROD)

/* bool as uint8 0/1: or / and through MPI's bitwise ops on 0/1 values. */
static void bool_or(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    ct__dist_reduce(inout, in, (size_t)*len, CT_BOOL, CT_REDUCE_SUM);
}
static void bool_and(void *in, void *inout, int *len, MPI_Datatype *t) {
    (void)t;
    ct__dist_reduce(inout, in, (size_t)*len, CT_BOOL, CT_REDUCE_PROD);
}

ct_status ct__dist_ops_create(ct_dist *g) {
    MPI_User_function *fns[2][4] = {{h_sum, h_max, h_min, h_prod}, {b_sum, b_max, b_min, b_prod}};
    for (int f = 0; f < 2; f++)
        for (int o = 0; o < 4; o++)
            if (MPI_Op_create(fns[f][o], 1, &g->half_ops[f][o]) != MPI_SUCCESS)
                return ct__set_error(g->ctx, CT_ERR_DEVICE, "dist: MPI_Op_create failed");
    if (MPI_Op_create(bool_or, 1, &g->bool_ops[0]) != MPI_SUCCESS ||
        MPI_Op_create(bool_and, 1, &g->bool_ops[1]) != MPI_SUCCESS)
        return ct__set_error(g->ctx, CT_ERR_DEVICE, "dist: MPI_Op_create failed");
    return CT_OK;
}

void ct__dist_ops_free(ct_dist *g) {
    for (int f = 0; f < 2; f++)
        for (int o = 0; o < 4; o++)
            if (g->half_ops[f][o] != MPI_OP_NULL) MPI_Op_free(&g->half_ops[f][o]);
    for (int o = 0; o < 2; o++)
        if (g->bool_ops[o] != MPI_OP_NULL) MPI_Op_free(&g->bool_ops[o]);
}

MPI_Op ct__dist_mpi_op(ct_dist *g, ct_dtype dt, ct_reduce_op op) {
    int o = op == CT_REDUCE_MAX ? 1 : op == CT_REDUCE_MIN ? 2 : op == CT_REDUCE_PROD ? 3 : 0;
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16) return g->half_ops[dt == CT_BFLOAT16][o];
    if (dt == CT_BOOL) return g->bool_ops[o == 0 || o == 1 ? 0 : 1];
    static const MPI_Op std[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    return std[o];
}

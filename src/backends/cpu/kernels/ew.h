/* Private kernel helpers: the n-d elementwise driver and typed load/store helpers. */
#ifndef CTORCH_CPU_KERNELS_EW_H
#define CTORCH_CPU_KERNELS_EW_H

#include "backends/cpu/kernels/kernels.h"
#include "dtype/half.h"
#include "dtype/dtype_size.h"

/* Inner loop over n elements; p[k] points at operand k, s[k] is its byte stride. */
typedef void (*ct_k_loop)(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op);
/* Same, for the case where every operand is contiguous (byte stride == itemsize). */
typedef void (*ct_k_contig)(int64_t n, char *const *p, const ct_op_desc *op, const void *fn);

/* Iterate all operands of op over the output's shape (inputs already broadcast), calling `contig`
 * (with `fn`) on contiguous inner runs when given, else `loop`. Splits over op->num_threads. */
void ct_k_ew_drive(const ct_op_desc *op, ct_k_loop loop, ct_k_contig contig, const void *fn);
/* Inner run of ct_k_ew_drive_bc: contiguous output, each input contiguous or broadcast (its byte
 * stride s[k] is its itemsize or 0). */
typedef void (*ct_k_contig_bc)(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                               const void *fn);
/* ct_k_ew_drive whose fast path also takes inner runs with broadcast (stride 0) inputs. */
void ct_k_ew_drive_bc(const ct_op_desc *op, ct_k_loop loop, ct_k_contig_bc contig, const void *fn);
/* The ct_k_contig adapters of the ISA tables' loops (ref/elementwise.c): fn points at a bin_f32 /
 * bin_f64 / un_f32 / un_f64 entry; binary ops pass scalars[0] as alpha. */
void ct_k_c_bin32(int64_t n, char *const *p, const ct_op_desc *op, const void *fn);
void ct_k_c_bin64(int64_t n, char *const *p, const ct_op_desc *op, const void *fn);
void ct_k_c_un32(int64_t n, char *const *p, const ct_op_desc *op, const void *fn);
void ct_k_c_un64(int64_t n, char *const *p, const ct_op_desc *op, const void *fn);
/* The ct_k_contig_bc adapters of binbc_f32 / binbc_f64 (scalars[0] as alpha). */
void ct_k_c_binbc32(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                    const void *fn);
void ct_k_c_binbc64(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                    const void *fn);
/* The ct_k_contig_bc adapters of tern_f32 / tern_f64 (scalars[0] as v); the _w forms run a
 * two-input op (lerp with a scalar weight) with scalars[0] as the broadcast third operand. */
void ct_k_c_tern32(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                   const void *fn);
void ct_k_c_tern64(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                   const void *fn);
void ct_k_c_tern32_w(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                     const void *fn);
void ct_k_c_tern64_w(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op,
                     const void *fn);

/* Any compute dtype element <-> double / int64. */
double ct_k_load_f64(const void *p, ct_dtype dt);
int64_t ct_k_load_i64(const void *p, ct_dtype dt);
void ct_k_store_f64(void *p, ct_dtype dt, double v);
void ct_k_store_i64(void *p, ct_dtype dt, int64_t v);
static inline bool ct_k_is_float(ct_dtype dt) { return dt >= CT_FLOAT16 && dt <= CT_FLOAT64; }

/* Coalesced geometry shared by drivers. */
typedef struct ct_k_geom {
    int ndim, nops;
    int64_t shape[CT_MAX_DIMS];
    int64_t bstr[CT_OP_MAX_OPERANDS][CT_MAX_DIMS]; /* byte strides */
} ct_k_geom;
/* Byte-stride geometry of op's operands over operand 0's shape, coalesced (size-1 dims dropped,
 * mergeable neighbours merged). ndim >= 1 on return. */
void ct_k_geom_build(const ct_op_desc *op, ct_k_geom *g);

#endif

/* Copy/cast, fill, arange, counter-based random numbers, embedding, layer_norm, naive matmul,
 * and ct_k_run: the portable entry point for every op. */
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/optim_kernels.h"
#include "backends/cpu/kernels/par.h"

#include <math.h>
#include <string.h>

/* ---- copy / cast ---- */
#define CT_GEN_MOVE(T)                                                                             \
    static void k_move_##T(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {    \
        (void)op;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            *(T *)(p[0] + i * s[0]) = *(const T *)(p[1] + i * s[1]);                               \
    }
CT_GEN_MOVE(uint8_t)
CT_GEN_MOVE(uint16_t)
CT_GEN_MOVE(uint32_t)
CT_GEN_MOVE(uint64_t)
static void k_move_contig(int64_t n, char *const *p, const ct_op_desc *op, const void *fn) {
    (void)fn;
    memmove(p[0], p[1], (size_t)n * ct__itemsize(op->operands[0].dtype));
}
static void k_cast_via_f64(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    ct_dtype od = op->operands[0].dtype, id = op->operands[1].dtype;
    for (int64_t i = 0; i < n; i++)
        ct_k_store_f64(p[0] + i * s[0], od, ct_k_load_f64(p[1] + i * s[1], id));
}
static void k_cast_via_i64(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    ct_dtype od = op->operands[0].dtype, id = op->operands[1].dtype;
    for (int64_t i = 0; i < n; i++)
        ct_k_store_i64(p[0] + i * s[0], od, ct_k_load_i64(p[1] + i * s[1], id));
}
static void k_f32_to_f16(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    bool bf = op->operands[0].dtype == CT_BFLOAT16;
    for (int64_t i = 0; i < n; i++) {
        float v = *(const float *)(p[1] + i * s[1]);
        *(uint16_t *)(p[0] + i * s[0]) = bf ? ct__f2bf(v) : ct__f2h(v);
    }
}
static void k_f16_to_f32(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    bool bf = op->operands[1].dtype == CT_BFLOAT16;
    for (int64_t i = 0; i < n; i++) {
        uint16_t v = *(const uint16_t *)(p[1] + i * s[1]);
        *(float *)(p[0] + i * s[0]) = bf ? ct__bf2f(v) : ct__h2f(v);
    }
}

/* Integer, bool and float sources to f32/f64 by one C conversion (one rounding, as PyTorch's
 * static_cast: int64 -> f32 through f64 would round twice), typed loops instead of the generic
 * load/store pair (~6x faster on short tensors, e.g. a bool mask to float). */
#define CT_GEN_CAST(TO, FROM, tag)                                                                 \
    static void k_cast_##tag(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {  \
        (void)op;                                                                                  \
        for (int64_t i = 0; i < n; i++)                                                            \
            *(TO *)(p[0] + i * s[0]) = (TO)(*(const FROM *)(p[1] + i * s[1]));                     \
    }
static void k_cast_f32_bool(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    (void)op;
    for (int64_t i = 0; i < n; i++)
        *(float *)(p[0] + i * s[0]) = *(const uint8_t *)(p[1] + i * s[1]) != 0 ? 1.0f : 0.0f;
}
static void k_cast_f64_bool(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    (void)op;
    for (int64_t i = 0; i < n; i++)
        *(double *)(p[0] + i * s[0]) = *(const uint8_t *)(p[1] + i * s[1]) != 0 ? 1.0 : 0.0;
}
CT_GEN_CAST(float, uint8_t, f32_u8)
CT_GEN_CAST(float, int8_t, f32_i8)
CT_GEN_CAST(float, int16_t, f32_i16)
CT_GEN_CAST(float, int32_t, f32_i32)
CT_GEN_CAST(float, int64_t, f32_i64)
CT_GEN_CAST(float, double, f32_f64)
CT_GEN_CAST(double, uint8_t, f64_u8)
CT_GEN_CAST(double, int8_t, f64_i8)
CT_GEN_CAST(double, int16_t, f64_i16)
CT_GEN_CAST(double, int32_t, f64_i32)
CT_GEN_CAST(double, int64_t, f64_i64)
CT_GEN_CAST(double, float, f64_f32)
/* [to f32 / f64][source dtype, CT_BOOL .. CT_FLOAT64] (NULL: the generic loops) */
static const ct_k_loop k_cast_to_float[2][CT_FLOAT64 + 1] = {
    {k_cast_f32_bool, k_cast_f32_u8, k_cast_f32_i8, k_cast_f32_i16, k_cast_f32_i32, k_cast_f32_i64,
     NULL, NULL, NULL, k_cast_f32_f64},
    {k_cast_f64_bool, k_cast_f64_u8, k_cast_f64_i8, k_cast_f64_i16, k_cast_f64_i32, k_cast_f64_i64,
     NULL, NULL, k_cast_f64_f32, NULL}};

static ct_status ct_k_copy(const ct_op_desc *op) {
    ct_dtype od = op->operands[0].dtype, id = op->operands[1].dtype;
    if (od == id) {
        static const ct_k_loop mv[9] = {
            NULL, k_move_uint8_t, k_move_uint16_t, NULL, k_move_uint32_t, NULL,
            NULL, NULL,           k_move_uint64_t};
        size_t sz = ct__itemsize(od);
        if (sz == 0 || sz > 8 || !mv[sz]) return CT_ERR_UNSUPPORTED;
        ct_k_ew_drive(op, mv[sz], k_move_contig, NULL);
        return CT_OK;
    }
    if (od > CT_FLOAT64 || id > CT_FLOAT64) return CT_ERR_UNSUPPORTED;
    const ct_k_loop tf =
        od == CT_FLOAT32 || od == CT_FLOAT64 ? k_cast_to_float[od == CT_FLOAT64][id] : NULL;
    if (tf)
        ct_k_ew_drive(op, tf, NULL, NULL);
    else if (id == CT_FLOAT32 && (od == CT_FLOAT16 || od == CT_BFLOAT16))
        ct_k_ew_drive(op, k_f32_to_f16, NULL, NULL);
    else if (od == CT_FLOAT32 && (id == CT_FLOAT16 || id == CT_BFLOAT16))
        ct_k_ew_drive(op, k_f16_to_f32, NULL, NULL);
    else if (ct_k_is_float(od) || ct_k_is_float(id))
        ct_k_ew_drive(op, k_cast_via_f64, NULL, NULL);
    else
        ct_k_ew_drive(op, k_cast_via_i64, NULL, NULL);
    return CT_OK;
}

/* ---- fill / arange ---- */
static void k_fill(int64_t n, char *const *p, const int64_t *s, const ct_op_desc *op) {
    ct_dtype dt = op->operands[0].dtype;
    size_t sz = ct__itemsize(dt);
    char v[8];
    ct_k_store_f64(v, dt, op->scalars[0]);
    for (int64_t i = 0; i < n; i++)
        memcpy(p[0] + i * s[0], v, sz);
}

static ct_status ct_k_arange(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0];
    int64_t n = o->ndim ? o->shape[0] : 1, st = o->ndim ? o->strides[0] : 1;
    size_t sz = ct__itemsize(o->dtype);
    for (int64_t i = 0; i < n; i++)
        ct_k_store_f64((char *)o->data + i * st * (int64_t)sz, o->dtype,
                       op->scalars[0] + (double)i * op->scalars[1]);
    return CT_OK;
}

/* ---- Philox4x32-10 ---- */
void ct_k_philox(uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* Element g of the stream (seed, g) -> uniform in [0,1) (f32: 24 bits, f64: 53 bits) or normal. */
static double ct_k_rand_elem(uint64_t seed, uint64_t g, int normal, bool dbl) {
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t ctr[4] = {(uint32_t)g, (uint32_t)(g >> 32), 0, 0}, r[4];
    ct_k_philox(ctr, key, r);
    if (!normal) {
        if (dbl) return (double)((((uint64_t)r[0] << 32) | r[1]) >> 11) * 0x1p-53;
        return (double)(r[0] >> 8) * 0x1p-24;
    }
    /* Box-Muller with u1 in (0, 1] so log is finite */
    double u1 = ((double)((((uint64_t)r[0] << 32) | r[1]) >> 11) + 1.0) * 0x1p-53;
    double u2 = (double)((((uint64_t)r[2] << 32) | r[3]) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

typedef struct {
    const ct_op_desc *op;
    uint64_t seed, off;
    int normal;
} ct_k_rand_job;

/* Elements [b, e) of the rand output; element i is stream element offset + i. */
static void ct_k_rand_range(void *arg, int64_t b, int64_t e) {
    const ct_k_rand_job *j = arg;
    const ct_operand *o = &j->op->operands[0];
    ct_dtype dt = o->dtype;
    size_t sz = ct__itemsize(dt);
    bool dbl = dt == CT_FLOAT64;
    for (int64_t i = b; i < e; i++) {
        double v = ct_k_rand_elem(j->seed, j->off + (uint64_t)i, j->normal, dbl);
        if (!j->normal && !dbl && dt != CT_FLOAT32) {
            /* rounding to f16/bf16 may reach 1.0; keep the half-open interval */
            ct_k_store_f64((char *)o->data + i * (int64_t)sz, dt, v);
            double back = ct_k_load_f64((char *)o->data + i * (int64_t)sz, dt);
            if (back >= 1.0) ct_k_store_f64((char *)o->data + i * (int64_t)sz, dt, 0.0);
            continue;
        }
        ct_k_store_f64((char *)o->data + i * (int64_t)sz, dt, v);
    }
}

static ct_status ct_k_rand(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0];
    int64_t n = 1;
    for (int d = 0; d < o->ndim; d++)
        n *= o->shape[d];
    ct_k_rand_job j = {op, (uint64_t)op->ints[0], (uint64_t)op->ints[1], (int)op->ints[2]};
    if (op->n_in == 1) j.off += (uint64_t) * (const int64_t *)op->operands[1].data; /* graph */
    /* The output of ct_tensor_rand is contiguous; results do not depend on the split. */
    ct_k_parallel_for(n, 2048, op->num_threads, ct_k_rand_range, &j);
    return CT_OK;
}

/* ---- embedding: out (N, D) contiguous, weight (V, D) row stride, indices (N) ---- */
typedef struct {
    const ct_op_desc *op;
} ct_k_emb_job;

/* Rows [b, e) of the output (indices already checked). */
static void ct_k_emb_range(void *arg, int64_t b, int64_t e) {
    const ct_op_desc *op = ((const ct_k_emb_job *)arg)->op;
    const ct_operand *o = &op->operands[0], *w = &op->operands[1], *ix = &op->operands[2];
    int64_t dim = o->shape[1];
    size_t sz = ct__itemsize(o->dtype);
    for (int64_t i = b; i < e; i++) {
        const char *ip =
            (const char *)ix->data + i * ix->strides[0] * (int64_t)ct__itemsize(ix->dtype);
        int64_t id = ct_k_load_i64(ip, ix->dtype);
        const char *src = (const char *)w->data + id * w->strides[0] * (int64_t)sz;
        char *dst = (char *)o->data + i * o->strides[0] * (int64_t)sz;
        if (w->strides[1] == 1 && o->strides[1] == 1) {
            memcpy(dst, src, (size_t)dim * sz);
        } else {
            for (int64_t j = 0; j < dim; j++)
                memcpy(dst + j * o->strides[1] * (int64_t)sz, src + j * w->strides[1] * (int64_t)sz,
                       sz);
        }
    }
}

static ct_status ct_k_embedding(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *w = &op->operands[1], *ix = &op->operands[2];
    int64_t n = o->shape[0], dim = o->shape[1], v = w->shape[0];
    for (int64_t i = 0; i < n; i++) {
        const char *ip =
            (const char *)ix->data + i * ix->strides[0] * (int64_t)ct__itemsize(ix->dtype);
        int64_t id = ct_k_load_i64(ip, ix->dtype);
        if (id < 0 || id >= v) return CT_ERR_INDEX;
    }
    ct_k_emb_job j = {op};
    int64_t grain = 32768 / (dim > 0 ? dim : 1);
    ct_k_parallel_for(n, grain < 1 ? 1 : grain, op->num_threads, ct_k_emb_range, &j);
    return CT_OK;
}

/* ---- layer_norm: rows (R, C) contiguous; weight/bias (C) contiguous or absent ---- */
static ct_status ct_k_layer_norm(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *x = &op->operands[1], *w = &op->operands[2],
                     *b = &op->operands[3];
    int64_t rows = x->shape[0], cols = x->shape[1];
    ct_dtype dt = x->dtype;
    size_t sz = ct__itemsize(dt);
    double eps = op->scalars[0];
    int nt = rows * cols >= CT_K_PAR_THRESHOLD ? op->num_threads : 1;
    (void)nt; /* built without OpenMP (the embedded runtime), the loop runs on one thread */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t r = 0; r < rows; r++) {
        const char *xr = (const char *)x->data + r * cols * (int64_t)sz;
        char *orow = (char *)o->data + r * cols * (int64_t)sz;
        double mean = 0, var = 0;
        for (int64_t c = 0; c < cols; c++)
            mean += ct_k_load_f64(xr + c * (int64_t)sz, dt);
        mean = cols ? mean / (double)cols : 0;
        /* second pass: add the mean of the residuals, so a constant row gets its exact value as
         * mean (variance 0; with eps = 0 the output is NaN, as PyTorch) */
        double corr = 0;
        for (int64_t c = 0; c < cols; c++)
            corr += ct_k_load_f64(xr + c * (int64_t)sz, dt) - mean;
        mean += cols ? corr / (double)cols : 0;
        for (int64_t c = 0; c < cols; c++) {
            double d = ct_k_load_f64(xr + c * (int64_t)sz, dt) - mean;
            var += d * d;
        }
        var = cols ? var / (double)cols : 0;
        double rstd = 1.0 / sqrt(var + eps);
        for (int64_t c = 0; c < cols; c++) {
            double y = (ct_k_load_f64(xr + c * (int64_t)sz, dt) - mean) * rstd;
            if (w->data) y *= ct_k_load_f64((const char *)w->data + c * (int64_t)sz, dt);
            if (b->data) y += ct_k_load_f64((const char *)b->data + c * (int64_t)sz, dt);
            ct_k_store_f64(orow + c * (int64_t)sz, dt, y);
        }
    }
    return CT_OK;
}

/* The portable matmul with the ISA's f32 tile loop when a and c have unit column stride. */
ct_status ct_k_matmul(const ct_op_desc *op, const ct_k_isa *isa) {
    const ct_operand *c = &op->operands[0], *a = &op->operands[1], *b = &op->operands[2];
    bool fast = isa && isa->matmul_f32 && c->dtype == CT_FLOAT32 && a->dtype == CT_FLOAT32 &&
                b->dtype == CT_FLOAT32 && (a->strides[2] == 1 || a->shape[2] <= 1) &&
                (c->strides[2] == 1 || c->shape[2] <= 1);
    if (!fast) return ct_k_matmul_ref(op);
    const int64_t B = c->shape[0], M = c->shape[1], N = c->shape[2], K = a->shape[2];
    for (int64_t bi = 0; bi < B; bi++)
        isa->matmul_f32(M, N, K, (const float *)a->data + bi * a->strides[0], a->strides[1],
                        (const float *)b->data + bi * b->strides[0], b->strides[1], b->strides[2],
                        (float *)c->data + bi * c->strides[0], c->strides[1]);
    return CT_OK;
}

/* ---- naive batched matmul (the oracle and the BLAS-free path) ---- */
ct_status ct_k_matmul_ref(const ct_op_desc *op) {
    const ct_operand *c = &op->operands[0], *a = &op->operands[1], *b = &op->operands[2];
    if (c->dtype != a->dtype || c->dtype != b->dtype) return CT_ERR_UNSUPPORTED;
    int64_t B = c->shape[0], M = c->shape[1], N = c->shape[2], K = a->shape[2];
    if (c->dtype >= CT_UINT8 && c->dtype <= CT_INT64) {
        /* integers: exact accumulation modulo 2^64, stored with wrap-around (as torch) */
        size_t sz = ct__itemsize(c->dtype);
        ct_dtype dt = c->dtype;
        for (int64_t bi = 0; bi < B; bi++)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    uint64_t acc = 0;
                    for (int64_t k = 0; k < K; k++) {
                        int64_t ia = bi * a->strides[0] + i * a->strides[1] + k * a->strides[2];
                        int64_t ib = bi * b->strides[0] + k * b->strides[1] + j * b->strides[2];
                        acc +=
                            (uint64_t)ct_k_load_i64((const char *)a->data + ia * (int64_t)sz, dt) *
                            (uint64_t)ct_k_load_i64((const char *)b->data + ib * (int64_t)sz, dt);
                    }
                    int64_t ic = bi * c->strides[0] + i * c->strides[1] + j * c->strides[2];
                    ct_k_store_i64((char *)c->data + ic * (int64_t)sz, dt, (int64_t)acc);
                }
        return CT_OK;
    }
    if (c->dtype != CT_FLOAT32 && c->dtype != CT_FLOAT64) return CT_ERR_UNSUPPORTED;
    bool dbl = c->dtype == CT_FLOAT64;
    for (int64_t bi = 0; bi < B; bi++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double acc = 0;
                for (int64_t k = 0; k < K; k++) {
                    int64_t ia = bi * a->strides[0] + i * a->strides[1] + k * a->strides[2];
                    int64_t ib = bi * b->strides[0] + k * b->strides[1] + j * b->strides[2];
                    acc +=
                        dbl ? ((const double *)a->data)[ia] * ((const double *)b->data)[ib]
                            : (double)((const float *)a->data)[ia] * ((const float *)b->data)[ib];
                }
                int64_t ic = bi * c->strides[0] + i * c->strides[1] + j * c->strides[2];
                if (dbl)
                    ((double *)c->data)[ic] = acc;
                else
                    ((float *)c->data)[ic] = (float)acc;
            }
    return CT_OK;
}

ct_status ct_k_elementwise(const ct_op_desc *op, const ct_k_isa *isa);
ct_status ct_k_reduce(const ct_op_desc *op, const ct_k_isa *isa);
ct_status ct_k_cumsum(const ct_op_desc *op);
ct_status ct_k_im2col(const ct_op_desc *op);
ct_status ct_k_col2im(const ct_op_desc *op);

ct_status ct_k_run(const ct_op_desc *op, const ct_k_isa *isa) {
    switch (op->kind) {
    case CT_OP_COPY: return ct_k_copy(op);
    case CT_OP_FILL: ct_k_ew_drive(op, k_fill, NULL, NULL); return CT_OK;
    case CT_OP_ARANGE: return ct_k_arange(op);
    case CT_OP_RAND: return ct_k_rand(op);
    case CT_OP_SUM:
    case CT_OP_MEAN:
    case CT_OP_AMAX:
    case CT_OP_AMIN:
    case CT_OP_ARGMAX:
    case CT_OP_PROD: return ct_k_reduce(op, isa);
    case CT_OP_CUMSUM: return ct_k_cumsum(op);
    case CT_OP_IM2COL: return ct_k_im2col(op);
    case CT_OP_COL2IM: return ct_k_col2im(op);
    case CT_OP_SOFTMAX:
    case CT_OP_LOG_SOFTMAX: return ct_k_softmax(op, isa);
    case CT_OP_EMBEDDING: return ct_k_embedding(op);
    case CT_OP_LAYER_NORM: return ct_k_layer_norm(op);
    case CT_OP_MATMUL: return ct_k_matmul(op, isa);
    case CT_OP_OPTIM_STEP: return ct_k_optim(op, isa);
    case CT_OP_LINSPACE: return ct_k_linspace(op);
    case CT_OP_TRIL: return ct_k_tril(op);
    case CT_OP_GATHER: return ct_k_gather(op, isa);
    case CT_OP_SCATTER: return ct_k_scatter(op);
    case CT_OP_SORT: return ct_k_sort(op);
    case CT_OP_TOPK: return ct_k_topk(op);
    default: return ct_k_elementwise(op, isa);
    }
}

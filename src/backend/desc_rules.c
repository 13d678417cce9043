/* Context-free descriptor rules (backend/desc_rules.h). */
#include "backend/desc_rules.h"
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/kernels/mx_kernels.h"
#include "backends/cpu/kernels/sparse_kernels.h"
#include "core/internal.h"

#include <stdint.h>

static int64_t ct__dr_numel(int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        if (__builtin_mul_overflow(n, shape[d], &n)) return INT64_MAX; /* saturate */
    return n;
}

/* Inputs each op kind takes: {min, max}. Every kind has one output except the domain ops
 * (ct__op_outputs). */
static const signed char ct__op_arity_tab[CT_OP_COUNT][2] = {
    [CT_OP_COPY] = {1, 1},
    [CT_OP_FILL] = {0, 0},
    [CT_OP_ADD] = {2, 2},
    [CT_OP_SUB] = {2, 2},
    [CT_OP_MUL] = {2, 2},
    [CT_OP_DIV] = {2, 2},
    [CT_OP_NEG] = {1, 1},
    [CT_OP_ABS] = {1, 1},
    [CT_OP_EXP] = {1, 1},
    [CT_OP_LOG] = {1, 1},
    [CT_OP_SQRT] = {1, 1},
    [CT_OP_RSQRT] = {1, 1},
    [CT_OP_TANH] = {1, 1},
    [CT_OP_SIGMOID] = {1, 1},
    [CT_OP_RELU] = {1, 1},
    [CT_OP_GELU] = {1, 1},
    [CT_OP_POW] = {1, 1},
    [CT_OP_CLAMP] = {1, 1},
    [CT_OP_WHERE] = {3, 3},
    [CT_OP_EQ] = {2, 2},
    [CT_OP_NE] = {2, 2},
    [CT_OP_LT] = {2, 2},
    [CT_OP_LE] = {2, 2},
    [CT_OP_GT] = {2, 2},
    [CT_OP_GE] = {2, 2},
    [CT_OP_ADDCMUL] = {3, 3},
    [CT_OP_ADDCDIV] = {3, 3},
    [CT_OP_SUM] = {1, 1},
    [CT_OP_MEAN] = {1, 1},
    [CT_OP_AMAX] = {1, 1},
    [CT_OP_AMIN] = {1, 1},
    [CT_OP_ARGMAX] = {1, 1},
    [CT_OP_SOFTMAX] = {1, 1},
    [CT_OP_LOG_SOFTMAX] = {1, 1},
    [CT_OP_MATMUL] = {2, 2},
    [CT_OP_LAYER_NORM] = {3, 3},
    [CT_OP_EMBEDDING] = {2, 2},
    [CT_OP_RAND] = {0, 1},
    [CT_OP_ARANGE] = {0, 0},
    [CT_OP_EIGH] = {2, 2},
    [CT_OP_MX_QUANTIZE] = {1, 2},
    [CT_OP_MX_DEQUANTIZE] = {2, 2},
    [CT_OP_MX_LINEAR] = {5, 5},
    [CT_OP_OPTIM_STEP] = {1, 3},
    [CT_OP_LINSPACE] = {0, 0},
    [CT_OP_TRIL] = {1, 1},
    [CT_OP_GATHER] = {2, 2},
    [CT_OP_SCATTER] = {2, 2},
    [CT_OP_SORT] = {2, 2},
    [CT_OP_ERF] = {1, 1},
    [CT_OP_ERFC] = {1, 1},
    [CT_OP_SIN] = {1, 1},
    [CT_OP_COS] = {1, 1},
    [CT_OP_EXP2] = {1, 1},
    [CT_OP_LOG2] = {1, 1},
    [CT_OP_LOG1P] = {1, 1},
    [CT_OP_EXPM1] = {1, 1},
    [CT_OP_FLOOR] = {1, 1},
    [CT_OP_CEIL] = {1, 1},
    [CT_OP_ROUND] = {1, 1},
    [CT_OP_TRUNC] = {1, 1},
    [CT_OP_SIGN] = {1, 1},
    [CT_OP_SILU] = {1, 1},
    [CT_OP_SOFTPLUS] = {1, 1},
    [CT_OP_MISH] = {1, 1},
    [CT_OP_LEAKY_RELU] = {1, 1},
    [CT_OP_ELU] = {1, 1},
    [CT_OP_ISNAN] = {1, 1},
    [CT_OP_ISINF] = {1, 1},
    [CT_OP_ISFINITE] = {1, 1},
    [CT_OP_LOGICAL_NOT] = {1, 1},
    [CT_OP_BITWISE_NOT] = {1, 1},
    [CT_OP_MAXIMUM] = {2, 2},
    [CT_OP_MINIMUM] = {2, 2},
    [CT_OP_REMAINDER] = {2, 2},
    [CT_OP_FMOD] = {2, 2},
    [CT_OP_LOGICAL_AND] = {2, 2},
    [CT_OP_LOGICAL_OR] = {2, 2},
    [CT_OP_LOGICAL_XOR] = {2, 2},
    [CT_OP_BITWISE_AND] = {2, 2},
    [CT_OP_BITWISE_OR] = {2, 2},
    [CT_OP_BITWISE_XOR] = {2, 2},
    [CT_OP_BITWISE_LSHIFT] = {2, 2},
    [CT_OP_BITWISE_RSHIFT] = {2, 2},
    [CT_OP_LERP] = {2, 3},
    [CT_OP_PROD] = {1, 1},
    [CT_OP_CUMSUM] = {1, 2},
    [CT_OP_IM2COL] = {1, 1},
    [CT_OP_COL2IM] = {1, 1},
    [CT_OP_TOPK] = {1, 1},
    [CT_OP_LINALG] = {1, 3}, /* CT_LINALG_LDL_SOLVE reads LD, pivots and B */
    [CT_OP_SPARSE24_COMPRESS] = {2, 2},
    [CT_OP_SPARSE24_DECOMPRESS] = {3, 3},
    [CT_OP_SPARSE24_MM] = {5, 5},
    [CT_OP_FLEX_ATTENTION] = {6, 6},
    [CT_OP_FLEX_ATTENTION_BWD] = {9, 9},
    [CT_OP_DIV_TRUNC] = {2, 2},
    [CT_OP_DIV_FLOOR] = {2, 2},
    [CT_OP_TAN] = {1, 1},
    [CT_OP_ATAN] = {1, 1},
    [CT_OP_ASIN] = {1, 1},
    [CT_OP_ACOS] = {1, 1},
    [CT_OP_SINH] = {1, 1},
    [CT_OP_COSH] = {1, 1},
    [CT_OP_ASINH] = {1, 1},
    [CT_OP_ACOSH] = {1, 1},
    [CT_OP_ATANH] = {1, 1},
    [CT_OP_LOG10] = {1, 1},
    [CT_OP_RECIPROCAL] = {1, 1},
    [CT_OP_ATAN2] = {2, 2},
    [CT_OP_HYPOT] = {2, 2},
    [CT_OP_LOGADDEXP] = {2, 2},
    [CT_OP_LOGADDEXP2] = {2, 2},
    [CT_OP_XLOGY] = {2, 2},
    [CT_OP_COPYSIGN] = {2, 2},
    [CT_OP_FMAX] = {2, 2},
    [CT_OP_FMIN] = {2, 2},
    [CT_OP_HEAVISIDE] = {2, 2},
    [CT_OP_POW_T] = {2, 2},
    [CT_OP_ISCLOSE] = {2, 2},
    [CT_OP_FRAC] = {1, 1},
    [CT_OP_LOGIT] = {1, 1},
    [CT_OP_SINC] = {1, 1},
    [CT_OP_NAN_TO_NUM] = {1, 1},
    [CT_OP_SIGNBIT] = {1, 1},
    [CT_OP_LGAMMA] = {1, 1},
    [CT_OP_DIGAMMA] = {1, 1},
    [CT_OP_POLYGAMMA] = {1, 1},
    [CT_OP_ERFINV] = {1, 1},
    [CT_OP_I0] = {1, 1},
    [CT_OP_I0E] = {1, 1},
    [CT_OP_I1] = {1, 1},
    [CT_OP_I1E] = {1, 1},
    [CT_OP_NDTR] = {1, 1},
    [CT_OP_NDTRI] = {1, 1},
    [CT_OP_LOG_NDTR] = {1, 1},
    [CT_OP_ERFCX] = {1, 1},
    [CT_OP_ENTR] = {1, 1},
    [CT_OP_XLOG1PY] = {2, 2},
    [CT_OP_NEXTAFTER] = {2, 2},
    [CT_OP_GCD] = {2, 2},
    [CT_OP_LCM] = {2, 2},
    [CT_OP_ZETA] = {2, 2},
    [CT_OP_IGAMMA] = {2, 2},
    [CT_OP_IGAMMAC] = {2, 2},
    [CT_OP_BESSEL_J0] = {1, 1},
    [CT_OP_BESSEL_J1] = {1, 1},
    [CT_OP_BESSEL_Y0] = {1, 1},
    [CT_OP_BESSEL_Y1] = {1, 1},
    [CT_OP_BESSEL_K0] = {1, 1},
    [CT_OP_BESSEL_K1] = {1, 1},
    [CT_OP_BESSEL_K0E] = {1, 1},
    [CT_OP_BESSEL_K1E] = {1, 1},
    [CT_OP_SPHERICAL_J0] = {1, 1},
    [CT_OP_CHEBYSHEV_T] = {2, 2},
    [CT_OP_CHEBYSHEV_U] = {2, 2},
    [CT_OP_CHEBYSHEV_V] = {2, 2},
    [CT_OP_CHEBYSHEV_W] = {2, 2},
    [CT_OP_SHIFTED_CHEBYSHEV_T] = {2, 2},
    [CT_OP_SHIFTED_CHEBYSHEV_U] = {2, 2},
    [CT_OP_SHIFTED_CHEBYSHEV_V] = {2, 2},
    [CT_OP_SHIFTED_CHEBYSHEV_W] = {2, 2},
    [CT_OP_HERMITE_H] = {2, 2},
    [CT_OP_HERMITE_HE] = {2, 2},
    [CT_OP_LAGUERRE_L] = {2, 2},
    [CT_OP_LEGENDRE_P] = {2, 2},
    [CT_OP_AIRY_AI] = {1, 1},
    [CT_OP_FFT] = {1, 1},
    [CT_OP_COMPLEX] = {1, 2},
};

bool ct__desc_arity(int k, int *lo, int *hi) {
    if (k < 0 || k >= CT_OP_COUNT) return false;
    *lo = ct__op_arity_tab[k][0];
    *hi = ct__op_arity_tab[k][1];
    return true;
}

/* The elementwise kinds added with the everyday ops check their output dtype too: bool for the
 * predicates and logical ops, the compute dtype for the rest. */
static bool ct__ew_bool_out(ct_op_kind k) {
    return k == CT_OP_ISNAN || k == CT_OP_ISINF || k == CT_OP_ISFINITE || k == CT_OP_LOGICAL_NOT ||
           k == CT_OP_LOGICAL_AND || k == CT_OP_LOGICAL_OR || k == CT_OP_LOGICAL_XOR;
}

int ct__desc_outputs(ct_op_kind k) {
    if (k == CT_OP_EIGH || k == CT_OP_OPTIM_STEP) return 3;
    if (k == CT_OP_LINALG || k == CT_OP_SPARSE24_COMPRESS) return 4; /* unused ones absent */
    if (k == CT_OP_FLEX_ATTENTION) return 2;
    if (k == CT_OP_FLEX_ATTENTION_BWD) return 3;
    return (k == CT_OP_MX_QUANTIZE || k == CT_OP_SORT || k == CT_OP_TOPK) ? 2 : 1;
}

/* Operands a kind may leave absent (data NULL): eigh's v, info and work, mx_linear's bias, the
 * optimizer state of plain SGD and its grad_scale and found_inf. */
bool ct__desc_optional_operand(ct_op_kind k, int i) {
    return (k == CT_OP_EIGH && (i == 1 || i == 2 || i == 4)) || (k == CT_OP_MX_LINEAR && i == 4) ||
           (k == CT_OP_OPTIM_STEP && (i == 1 || i == 4 || i == 5)) ||
           (k == CT_OP_LINALG && i != 0 && i != 4) ||
           (k == CT_OP_SPARSE24_COMPRESS && (i == 2 || i == 3 || i == 5)) ||
           (k == CT_OP_SPARSE24_DECOMPRESS && i == 3) ||
           (k == CT_OP_FLEX_ATTENTION && (i == 1 || i == 5)) ||
           (k == CT_OP_FLEX_ATTENTION_BWD && i == 9);
}

/* The 2:4 sparse layouts (backend.h): kind codes in ints match the operand dtypes (FP8 as
 * uint8), values (M, K/2) / metadata (M, ceil(K/8)) / scales (M) contiguous, K a multiple of 4,
 * the mm workspace as large as its plan. */
static bool ct__sp24_kind_ok(int64_t kind, ct_dtype dt, bool b_side) {
    switch (kind) {
    case CT__SPK_F32: return dt == CT_FLOAT32;
    case CT__SPK_BF16: return dt == CT_BFLOAT16;
    case CT__SPK_E4M3:
    case CT__SPK_E5M2: return dt == CT_UINT8;
    case CT__SPK_F16: return b_side && dt == CT_FLOAT16;
    default: return false;
    }
}

static bool ct__check_sparse24(const ct_op_desc *op, const char **rule) {
    const ct_operand *o = op->operands;
    *rule = "sparse24: kinds ints[1] (values: 0..3) and ints[2] (B: 0..4) matching the dtypes, "
            "contiguous values (M, K/2), uint8 metadata (M, ceil(K/8)), f32 scales (M) for FP8 "
            "values only, K a multiple of 4, mm: out f32 (M, N), epilogue f32 (2, M), B (K, N), "
            "uint8 work of the plan's size";
    const bool c = op->kind == CT_OP_SPARSE24_COMPRESS, d = op->kind == CT_OP_SPARSE24_DECOMPRESS;
    const ct_operand *vals = c ? &o[0] : &o[1], *meta = c ? &o[1] : &o[2];
    const int64_t vk = op->ints[1];
    if (!ct__sp24_kind_ok(vk, vals->dtype, false) || vals->ndim != 2) return false;
    const bool fp8 = vk == CT__SPK_E4M3 || vk == CT__SPK_E5M2;
    const int64_t M = vals->shape[0], K2 = vals->shape[1];
    if (K2 > (INT64_MAX / 16) || !ct__contig2(vals, 2, M, K2, 0)) return false;
    const int64_t K = 2 * K2;
    if (K % 4 || meta->dtype != CT_UINT8 || !ct__contig2(meta, 2, M, ct__sp24_meta_bytes(K), 0))
        return false;
    if (c || d) {
        const ct_operand *sc = c ? &o[2] : &o[3], *dense = c ? &o[4] : &o[0];
        if (dense->dtype != CT_FLOAT32 || !ct__contig2(dense, 2, M, K, 0)) return false;
        if (fp8 != (sc->data != NULL)) return false;
        if (sc->data && (sc->dtype != CT_FLOAT32 || !ct__contig2(sc, 1, M, 0, 0))) return false;
        if (c) {
            if (op->ints[0] != 0 && op->ints[0] != 1) return false;
            if (o[3].data && (o[3].dtype != CT_INT64 || ct__dr_numel(o[3].ndim, o[3].shape) != 1))
                return false;
            if (o[5].data && (!fp8 || o[5].dtype != CT_FLOAT32 || !ct__contig2(&o[5], 1, M, 0, 0)))
                return false;
        }
        return true;
    }
    const ct_operand *out = &o[0], *epi = &o[3], *b = &o[4], *w = &o[5];
    if (out->ndim != 2 || b->ndim != 2 || !ct__sp24_kind_ok(op->ints[2], b->dtype, true))
        return false;
    const int64_t N = out->shape[1];
    if (out->dtype != CT_FLOAT32 || !ct__contig2(out, 2, M, N, 0) || b->shape[0] != K ||
        b->shape[1] != N || N > (INT64_MAX / 16))
        return false;
    if (epi->dtype != CT_FLOAT32 || !ct__contig2(epi, 2, 2, M, 0)) return false;
    const ct__sp24_work wp = ct__sp24_work_plan(N, K, op->num_threads);
    return w->dtype == CT_UINT8 && w->ndim == 1 && (w->strides[0] == 1 || w->shape[0] <= 1) &&
           w->shape[0] >= wp.total;
}

static bool ct__desc_rule_mx(const ct_op_desc *op, const char **rule) {
    const ct_operand *o = op->operands;
    switch (op->kind) {
    case CT_OP_MX_QUANTIZE:
    case CT_OP_MX_DEQUANTIZE:
    case CT_OP_MX_LINEAR: {
        *rule = "mx: format ints[0] in range, block size ints[1] >= 1, contiguous codes (R, row "
                "bytes) int8/uint8 and scales (R, blocks) uint8 matching the float operands, f32 "
                "work as large as the kernel needs";
        const int64_t elem = op->ints[0], bs = op->ints[1];
        if (elem < 0 || elem >= CT__MXK_NELEM || bs < 1 || bs > INT32_MAX) return false;
        const int q = op->kind == CT_OP_MX_QUANTIZE, l = op->kind == CT_OP_MX_LINEAR;
        /* the float side: (R, L) rows that are blocked */
        const ct_operand *f = q ? &o[2] : l ? &o[1] : &o[0];
        const ct_operand *c = q ? &o[0] : l ? &o[2] : &o[1], *sc = q ? &o[1] : l ? &o[3] : &o[2];
        if (f->ndim != 2) return false;
        const int64_t L = f->shape[1], R = l ? o[0].shape[1] : f->shape[0];
        if (!ct__contig2(f, 2, f->shape[0], L, 0) || !ct__mx_float(f->dtype) ||
            (!q && !l && f->dtype != CT_FLOAT32))
            return false;
        if (!ct__contig2(c, 2, R, ct__mxk_row_bytes((int)elem, L), 0) ||
            (c->dtype != CT_UINT8 && c->dtype != CT_INT8) ||
            !ct__contig2(sc, 2, R, (L + bs - 1) / bs, 0) || sc->dtype != CT_UINT8)
            return false;
        if (q) {
            if (f->dtype == CT_FLOAT32) return true;
            return op->n_in == 2 && o[3].dtype == CT_FLOAT32 && o[3].ndim == 1 &&
                   (o[3].strides[0] == 1 || o[3].shape[0] <= 1) && o[3].shape[0] >= f->shape[0] * L;
        }
        if (!l) return true;
        const int64_t M = f->shape[0], N = R;
        if (!ct__contig2(&o[0], 2, M, N, 0) || o[0].dtype != f->dtype) return false;
        if (o[4].data && (!ct__contig2(&o[4], 1, N, 0, 0) || !ct__mx_float(o[4].dtype)))
            return false;
        int64_t mk, mn;
        if (!ct__checked_mul(M, L, &mk) || mk > INT64_MAX / 8 || !ct__checked_mul(M, N, &mn) ||
            mn > INT64_MAX / 8)
            return false;
        return o[5].dtype == CT_FLOAT32 && o[5].ndim == 1 &&
               (o[5].strides[0] == 1 || o[5].shape[0] <= 1) &&
               o[5].shape[0] >=
                   ct__mx_linear_work_floats(M, N, L, f->dtype == CT_FLOAT32, o[4].data != NULL);
    }
    default: return false;
    }
}

bool ct__desc_runtime_kind(int k) {
    switch (k) {
    case CT_OP_EIGH:
    case CT_OP_MX_QUANTIZE:
    case CT_OP_OPTIM_STEP:
    case CT_OP_LINALG:
    case CT_OP_SPARSE24_COMPRESS:
    case CT_OP_FLEX_ATTENTION:
    case CT_OP_FLEX_ATTENTION_BWD:
    case CT_OP_FFT:
    case CT_OP_COMPLEX: return false;
    default: return k >= 0 && k < CT_OP_COUNT;
    }
}

bool ct__desc_operand_written(ct_op_kind k, int n_out, int i) {
    if (i < n_out) return true;
    switch (k) {
    case CT_OP_EIGH: return i == 4;
    case CT_OP_MX_QUANTIZE: return i == 3;
    case CT_OP_MX_LINEAR: return i == 5;
    case CT_OP_SORT: return i == 3;
    case CT_OP_SPARSE24_MM: return i == 5;
    case CT_OP_FLEX_ATTENTION: return i == 7;
    case CT_OP_FLEX_ATTENTION_BWD: return i == 11;
    default: return false;
    }
}

int ct__desc_rule(const ct_op_desc *op, const char **rule) {
    const ct_operand *o = &op->operands[0], *in = &op->operands[1];
    const ct_dtype cdt = op->compute_dtype;
    bool ok = true;
    switch (op->kind) {
    case CT_OP_SUM:
    case CT_OP_MEAN:
    case CT_OP_AMAX:
    case CT_OP_AMIN:
    case CT_OP_ARGMAX:
    case CT_OP_PROD:
        *rule = "reductions: input dtype = compute dtype, output = input shape with size 1 on the "
                "reduce_mask dims";
        ok = in->dtype == cdt && in->ndim == o->ndim &&
             (o->ndim == CT_MAX_DIMS || (op->reduce_mask >> o->ndim) == 0);
        for (int d = 0; ok && d < o->ndim; d++)
            ok = o->shape[d] == ((op->reduce_mask >> d & 1u) ? 1 : in->shape[d]);
        break;
    case CT_OP_CUMSUM:
        *rule = "cumsum/cumprod: output of the input's shape, input in the compute dtype, dim "
                "ints[0] in range, ints[1] 0 or 1";
        ok = ct__same_shape(o, in) && in->dtype == cdt && op->ints[0] >= 0 &&
             op->ints[0] < (o->ndim > 0 ? o->ndim : 1) &&
             (op->n_in == 1
                  ? (op->ints[1] == 0 || op->ints[1] == 1)
                  : op->ints[1] == 2 && ct_dtype_is_floating(cdt) && o->dtype == cdt &&
                        ct__same_shape(&op->operands[2], o) && op->operands[2].dtype == cdt);
        break;
    case CT_OP_IM2COL:
    case CT_OP_COL2IM: {
        *rule = "im2col/col2im: img (N,C,H,W) and cols (N, C*kh*kw, OH*OW) of the compute dtype, "
                "kernel/stride/dilation >= 1, padding >= 0, cols contiguous";
        bool im = op->kind == CT_OP_IM2COL;
        const ct_operand *img = im ? in : o, *cols = im ? o : in;
        int64_t g[8];
        for (int i = 0; i < 4; i++) {
            g[2 * i] = (int64_t)(int32_t)(uint32_t)(uint64_t)op->ints[i];
            g[2 * i + 1] = (int64_t)(int32_t)(uint32_t)((uint64_t)op->ints[i] >> 32);
        }
        ok = img->ndim == 4 && cols->ndim == 3 && img->dtype == cdt && cols->dtype == cdt &&
             g[0] >= 1 && g[1] >= 1 && g[2] >= 1 && g[3] >= 1 && g[4] >= 0 && g[5] >= 0 &&
             g[6] >= 1 && g[7] >= 1;
        if (ok) {
            int64_t oh = (img->shape[2] + 2 * g[4] - g[6] * (g[0] - 1) - 1),
                    ow = (img->shape[3] + 2 * g[5] - g[7] * (g[1] - 1) - 1);
            ok = oh >= 0 && ow >= 0;
            if (ok) {
                oh = oh / g[2] + 1, ow = ow / g[3] + 1;
                ok = cols->shape[0] == img->shape[0] &&
                     cols->shape[1] == img->shape[1] * g[0] * g[1] && cols->shape[2] == oh * ow &&
                     cols->strides[2] == 1 && cols->strides[1] == oh * ow &&
                     cols->strides[0] == cols->shape[1] * oh * ow;
            }
        }
        break;
    }
    case CT_OP_SOFTMAX:
    case CT_OP_LOG_SOFTMAX:
        *rule = "softmax: floating input and output of one shape in the compute dtype, dim ints[0] "
                "in range";
        ok = ct__same_shape(o, in) && in->dtype == cdt && o->dtype == cdt &&
             ct_dtype_is_floating(cdt) && op->ints[0] >= 0 &&
             op->ints[0] < (o->ndim > 0 ? o->ndim : 1);
        break;
    case CT_OP_MATMUL:
        *rule = "matmul: out (B,M,N) = in0 (B,M,K) @ in1 (B,K,N), all in the compute dtype";
        ok = o->ndim == 3 && in[0].ndim == 3 && in[1].ndim == 3 && o->dtype == cdt &&
             in[0].dtype == cdt && in[1].dtype == cdt && in[0].shape[0] == o->shape[0] &&
             in[1].shape[0] == o->shape[0] && in[0].shape[1] == o->shape[1] &&
             in[1].shape[2] == o->shape[2] && in[0].shape[2] == in[1].shape[1];
        break;
    case CT_OP_LAYER_NORM:
        *rule = "layer_norm: out and in0 (R,C) in the compute dtype, weight and bias (C) or absent";
        ok = o->ndim == 2 && ct__same_shape(o, in) && o->dtype == cdt && in->dtype == cdt &&
             ct_dtype_is_floating(cdt);
        for (int i = 2; ok && i < 4; i++)
            ok = !op->operands[i].data ||
                 (op->operands[i].ndim == 1 && op->operands[i].shape[0] == o->shape[1] &&
                  op->operands[i].dtype == cdt);
        break;
    case CT_OP_EMBEDDING:
        *rule = "embedding: out (N,D) = weight (V,D) rows at int32/int64 indices (N)";
        ok = o->ndim == 2 && in[0].ndim == 2 && in[1].ndim == 1 && o->dtype == in[0].dtype &&
             in[0].dtype == cdt && (in[1].dtype == CT_INT32 || in[1].dtype == CT_INT64) &&
             o->shape[0] == in[1].shape[0] && o->shape[1] == in[0].shape[1];
        break;
    case CT_OP_RAND:
        *rule = "rand: floating output; the optional input is an int64 offset of one element";
        ok = ct_dtype_is_floating(o->dtype) && o->dtype == cdt &&
             (op->n_in == 0 || (in->dtype == CT_INT64 && ct__dr_numel(in->ndim, in->shape) == 1));
        break;
    case CT_OP_ARANGE:
        *rule = "arange: a 1-d output in the compute dtype";
        ok = o->ndim == 1 && o->dtype == cdt;
        break;
    case CT_OP_LINSPACE:
        *rule = "linspace: a 1-d output in the compute dtype";
        ok = o->ndim == 1 && o->dtype == cdt;
        break;
    case CT_OP_TRIL:
        *rule = "tril/triu: out and in0 of one shape with >= 2 dims in the compute dtype, ints[1] "
                "0 or 1";
        ok = o->ndim >= 2 && ct__same_shape(o, in) && o->dtype == cdt && in->dtype == cdt &&
             (op->ints[1] == 0 || op->ints[1] == 1);
        break;
    case CT_OP_GATHER:
    case CT_OP_SCATTER: {
        *rule = "gather: out, in0 and int32/int64 in1 of one ndim, in1 of out's shape, in0 at "
                "least out's size off dim ints[0]; scatter: in0 int32/int64 and in1 of one shape, "
                "out at least that size off dim ints[0], ints[1] 0 or 1 (bool: 0) or 2 (a "
                "floating dtype: fused alpha) or 3, 4, 5 (scatter_reduce prod, amax, amin)";
        const bool g = op->kind == CT_OP_GATHER;
        const ct_operand *data = g ? &in[0] : o, *ix = g ? &in[1] : &in[0], *vals = g ? o : &in[1];
        const int64_t dim = op->ints[0];
        ok = data->ndim == ix->ndim && vals->ndim == ix->ndim && ct__same_shape(ix, vals) &&
             (ix->dtype == CT_INT32 || ix->dtype == CT_INT64) && o->dtype == cdt &&
             (g ? in[0].dtype : in[1].dtype) == cdt && dim >= 0 &&
             dim < (ix->ndim > 0 ? ix->ndim : 1) &&
             (g || ((op->ints[1] == 0 || op->ints[1] == 1) && !(op->ints[1] && cdt == CT_BOOL)) ||
              (op->ints[1] == 2 && ct_dtype_is_floating(cdt)) ||
              (op->ints[1] >= 3 && op->ints[1] <= 5));
        for (int k = 0; ok && k < ix->ndim; k++)
            ok = k == dim || data->shape[k] >= ix->shape[k];
        break;
    }
    case CT_OP_SORT: {
        *rule = "sort: contiguous values (R,N) and int64 indices (R,N), input (R,N) in the compute "
                "dtype, int64 work of at least N elements";
        const ct_operand *x = &op->operands[2], *w = &op->operands[3];
        const int64_t R = x->ndim == 2 ? x->shape[0] : 0, N = x->ndim == 2 ? x->shape[1] : 0;
        ok = x->ndim == 2 && x->dtype == cdt && o->dtype == cdt && in->dtype == CT_INT64 &&
             ct__contig2(o, 2, R, N, 0) && ct__contig2(in, 2, R, N, 0) &&
             ct__contig2(x, 2, R, N, 0) && w->dtype == CT_INT64 && w->ndim == 1 &&
             (w->strides[0] == 1 || w->shape[0] <= 1) && w->shape[0] >= N;
        break;
    }
    case CT_OP_TOPK: {
        *rule = "topk: contiguous values (R,k) and int64 indices (R,k), input (R,N) in the compute "
                "dtype, 0 <= k = ints[0] <= N, ints[1] 0 or 1";
        const ct_operand *x = &op->operands[2];
        const int64_t R = x->ndim == 2 ? x->shape[0] : 0, N = x->ndim == 2 ? x->shape[1] : 0,
                      K = op->ints[0];
        ok = x->ndim == 2 && x->dtype == cdt && o->dtype == cdt && in->dtype == CT_INT64 &&
             K >= 0 && K <= N && (op->ints[1] == 0 || op->ints[1] == 1) &&
             ct__contig2(o, 2, R, K, 0) && ct__contig2(in, 2, R, K, 0) &&
             ct__contig2(x, 2, R, N, 0);
        break;
    }
    case CT_OP_MX_QUANTIZE:
    case CT_OP_MX_DEQUANTIZE:
    case CT_OP_MX_LINEAR: return ct__desc_rule_mx(op, rule) ? 1 : 0;
    case CT_OP_EIGH:
    case CT_OP_OPTIM_STEP:
    case CT_OP_LINALG: return -1;
    case CT_OP_SPARSE24_COMPRESS:
    case CT_OP_SPARSE24_DECOMPRESS:
    case CT_OP_SPARSE24_MM: return ct__check_sparse24(op, rule) ? 1 : 0;
    case CT_OP_FLEX_ATTENTION:
    case CT_OP_FLEX_ATTENTION_BWD:
    case CT_OP_FFT:
    case CT_OP_COMPLEX: return -1;
    default: /* elementwise: inputs broadcast to the output's shape */
        *rule = "elementwise: every operand has the output's shape; inputs in the compute dtype "
                "(where's condition bool); the output in the compute dtype (comparisons, isclose, "
                "signbit: bool; copy and fill: any)";
        for (int i = 1; ok && i <= op->n_in; i++) {
            ct_dtype want = op->kind == CT_OP_WHERE && i == 1 ? CT_BOOL : cdt;
            ok = ct__same_shape(o, &op->operands[i]) &&
                 (op->kind == CT_OP_COPY || op->operands[i].dtype == want);
        }
        /* the kernels write the compute dtype's elements: another output dtype would be
         * written past its end */
        if (ok && op->kind != CT_OP_COPY && op->kind != CT_OP_FILL &&
            !(op->kind >= CT_OP_ERF && op->kind <= CT_OP_LERP))
            ok = o->dtype == ((op->kind >= CT_OP_EQ && op->kind <= CT_OP_GE) ||
                                      op->kind == CT_OP_ISCLOSE || op->kind == CT_OP_SIGNBIT
                                  ? CT_BOOL
                                  : cdt);
        if (ok && op->kind >= CT_OP_ERF && op->kind <= CT_OP_LERP) {
            *rule = "elementwise: every operand has the output's shape; inputs in the compute "
                    "dtype; the output bool (isnan, isinf, isfinite, logical_*) or in the compute "
                    "dtype";
            ok = o->dtype == (ct__ew_bool_out(op->kind) ? CT_BOOL : cdt);
        }
        break;
    }
    return ok ? 1 : 0;
}

/* MX tensors: quantize / dequantize along any axis, MX linear, GGUF MXFP4 conversion. This layer
 * validates, moves the blocking axis last (one contiguous copy when needed), allocates outputs
 * and workspace, and submits CT_OP_MX_* descriptors through the dispatch point (so they are
 * captured like every op); the CPU backend's kernels (backends/cpu/mx_cpu.c) widen to f32 and
 * split the work over OpenMP threads. */
#include "ctorch/mx.h"
#include "backends/cpu/eigh_cpu.h"
#include "mx/mx_internal.h"
#include "ops/dispatch.h"

#include <stdlib.h>
#include <string.h>

struct ct_mx_tensor {
    ct_ctx *ctx;
    ct_mx_format format;
    int block_size, axis, ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_tensor *codes;  /* shape with axis moved last; FP4 packed */
    ct_tensor *scales; /* same, last dim = number of blocks */
};

/* A live tensor of this context (ops refuse another context's tensors the same way). */
static ct_status ct__mx_own(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t) {
    return ct__own_tensor(ctx, op, what, t, false);
}

static const char *const ct__mx_names[CT_MX_FORMAT_COUNT] = {
    "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8"};

const char *ct_mx_format_name(ct_mx_format f) {
    return (unsigned)f < CT_MX_FORMAT_COUNT ? ct__mx_names[f] : "invalid";
}

static bool ct__mx_float_in(ct_dtype dt) {
    return dt == CT_FLOAT32 || dt == CT_BFLOAT16 || dt == CT_FLOAT16;
}

static bool ct__mx_on_cpu(const ct_tensor *t) { return ct_tensor_device(t).type == CT_DEVICE_CPU; }

/* Allocate the handle and its code / scale tensors for `pshape` (axis already last). */
static ct_status ct__mx_alloc(ct_ctx *ctx, ct_mx_format fmt, int bs, int axis, int ndim,
                              const int64_t *shape, const int64_t *pshape, ct_mx_tensor **out) {
    ct_mx_tensor *q = ct__alloc(ctx, sizeof *q, 16);
    if (!q) return ct__set_error(ctx, CT_ERR_OOM, "mx: out of memory for the MX tensor handle");
    memset(q, 0, sizeof *q);
    q->ctx = ctx;
    q->format = fmt;
    q->block_size = bs;
    q->axis = axis;
    q->ndim = ndim;
    memcpy(q->shape, shape, (size_t)ndim * sizeof(int64_t));
    int64_t cs[CT_MAX_DIMS], ss[CT_MAX_DIMS];
    memcpy(cs, pshape, (size_t)ndim * sizeof(int64_t));
    memcpy(ss, pshape, (size_t)ndim * sizeof(int64_t));
    int64_t L = pshape[ndim - 1];
    cs[ndim - 1] = ct__mxk_row_bytes((int)fmt, L);
    ss[ndim - 1] = (L + bs - 1) / bs;
    ct_status st = ct_tensor_empty(ctx, fmt == CT_MXINT8 ? CT_INT8 : CT_UINT8, ndim, cs, &q->codes);
    if (st == CT_OK) st = ct_tensor_empty(ctx, CT_FLOAT8_E8M0FNU, ndim, ss, &q->scales);
    if (st != CT_OK) {
        ct_mx_tensor_free(q);
        return st;
    }
    *out = q;
    return CT_OK;
}

void ct_mx_tensor_free(ct_mx_tensor *q) {
    if (!q) return;
    ct_tensor_release(q->codes);
    ct_tensor_release(q->scales);
    ct__free(q->ctx, q);
}

/* Getters: NULL gives the neutral values documented in mx.h. */
ct_mx_format ct_mx_format_of(const ct_mx_tensor *q) { return q ? q->format : CT_MX_FORMAT_COUNT; }
int ct_mx_block_size(const ct_mx_tensor *q) { return q ? q->block_size : 0; }
int ct_mx_axis(const ct_mx_tensor *q) { return q ? q->axis : -1; }
int ct_mx_ndim(const ct_mx_tensor *q) { return q ? q->ndim : 0; }
const int64_t *ct_mx_shape(const ct_mx_tensor *q) { return q ? q->shape : NULL; }
ct_tensor *ct_mx_codes(const ct_mx_tensor *q) { return q ? q->codes : NULL; }
ct_tensor *ct_mx_scales(const ct_mx_tensor *q) { return q ? q->scales : NULL; }

/* perm moving `axis` last. */
static void ct__mx_perm(int ndim, int axis, int *perm) {
    int k = 0;
    for (int i = 0; i < ndim; i++)
        if (i != axis) perm[k++] = i;
    perm[k] = axis;
}

ct_status ct_mx_quantize(ct_ctx *ctx, const ct_tensor *x, ct_mx_format format, int block_size,
                         int axis, ct_mx_scale_mode scale_mode, ct_mx_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!x || !out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_quantize: NULL argument");
    *out = NULL;
    if (ct__mx_own(ctx, "mx_quantize", "input", x) != CT_OK) return CT_ERR_INVALID_ARG;
    if ((unsigned)format >= CT_MX_FORMAT_COUNT)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_quantize: unknown format %d",
                             (int)format);
    if (scale_mode != CT_MX_SCALE_FLOOR && scale_mode != CT_MX_SCALE_RCEIL)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_quantize: unknown scale mode %d",
                             (int)scale_mode);
    if (block_size < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_quantize: block_size is %d, must be >= 1",
                             block_size);
    if (!ct__mx_float_in(ct_tensor_dtype(x)))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "mx_quantize: input dtype %s, want float32, bfloat16 or float16",
                             ct_dtype_name(ct_tensor_dtype(x)));
    if (!ct__mx_on_cpu(x))
        return ct__set_error(ctx, CT_ERR_DEVICE, "mx_quantize: input is not on the CPU");
    int ndim = ct_tensor_ndim(x);
    if (ndim < 1)
        return ct__set_error(ctx, CT_ERR_SHAPE, "mx_quantize: input is 0-d, need at least one dim");
    int ax = axis < 0 ? axis + ndim : axis;
    if (ax < 0 || ax >= ndim)
        return ct__set_error(ctx, CT_ERR_INDEX, "mx_quantize: axis %d out of range for %d dims",
                             axis, ndim);
    const int64_t *shape = ct_tensor_shape(x);
    int perm[CT_MAX_DIMS];
    int64_t pshape[CT_MAX_DIMS];
    ct__mx_perm(ndim, ax, perm);
    for (int i = 0; i < ndim; i++)
        pshape[i] = shape[perm[i]];

    ct_mx_tensor *q = NULL;
    ct_tensor *pv = NULL, *pc = NULL, *work = NULL;
    ct_status st = ct__mx_alloc(ctx, format, block_size, ax, ndim, shape, pshape, &q);
    if (st != CT_OK) return st;
    int64_t numel = ct_tensor_numel(x), L = pshape[ndim - 1];
    if (numel == 0) {
        *out = q;
        return CT_OK;
    }
    if ((st = ct_tensor_permute(ctx, x, perm, &pv)) != CT_OK) goto fail;
    if ((st = ct_tensor_contiguous(ctx, pv, &pc)) != CT_OK) goto fail;
    if (ct_tensor_dtype(x) != CT_FLOAT32 &&
        (st = ct_tensor_empty(ctx, CT_FLOAT32, 1, &numel, &work)) != CT_OK)
        goto fail;
    {
        const int64_t rows = numel / L, blk[2] = {rows, ct__mxk_row_bytes((int)format, L)},
                      sblk[2] = {rows, (L + block_size - 1) / block_size}, src[2] = {rows, L};
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_MX_QUANTIZE, 2, work ? 2 : 1);
        ct__operand_contig(&d.operands[0], q->codes, 2, blk);
        ct__operand_contig(&d.operands[1], q->scales, 2, sblk);
        d.operands[1].dtype = CT_UINT8; /* e8m0 codes, moved as bytes */
        ct__operand_contig(&d.operands[2], pc, 2, src);
        if (work) ct__operand_contig(&d.operands[3], work, 1, &numel);
        d.ints[0] = (int64_t)format;
        d.ints[1] = block_size;
        d.ints[2] = scale_mode == CT_MX_SCALE_RCEIL;
        if ((st = ct__submit(ctx, ct_tensor_device(x), &d)) != CT_OK) goto fail;
    }
    ct_tensor_release(work);
    ct_tensor_release(pc);
    ct_tensor_release(pv);
    *out = q;
    return CT_OK;
fail:
    ct_tensor_release(work);
    ct_tensor_release(pc);
    ct_tensor_release(pv);
    ct_mx_tensor_free(q);
    return st;
}

static bool ct__mx_valid(const ct_mx_tensor *q) {
    return q && q->codes && q->scales && (unsigned)q->format < CT_MX_FORMAT_COUNT;
}

/* Dequantize into `res` (contiguous, q's shape, float dtype; already validated). */
static ct_status ct__mx_dequant_to(ct_ctx *ctx, const ct_mx_tensor *q, ct_tensor *res) {
    ct_dtype dtype = ct_tensor_dtype(res);
    int ndim = q->ndim, perm[CT_MAX_DIMS], inv[CT_MAX_DIMS];
    int64_t pshape[CT_MAX_DIMS];
    ct__mx_perm(ndim, q->axis, perm);
    for (int i = 0; i < ndim; i++) {
        pshape[i] = q->shape[perm[i]];
        inv[perm[i]] = i;
    }
    bool direct = dtype == CT_FLOAT32 && q->axis == ndim - 1;
    ct_tensor *tp = NULL, *view = NULL;
    ct_status st = CT_OK;
    int64_t numel = ct_tensor_numel(res), L = pshape[ndim - 1];
    if (numel == 0) return CT_OK;
    if (direct) {
        tp = ct_tensor_retain(res);
    } else if ((st = ct_tensor_empty(ctx, CT_FLOAT32, ndim, pshape, &tp)) != CT_OK) {
        return st;
    }
    {
        const int64_t rows = numel / L, out2[2] = {rows, L},
                      blk[2] = {rows, ct__mxk_row_bytes((int)q->format, L)},
                      sblk[2] = {rows, (L + q->block_size - 1) / q->block_size};
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_MX_DEQUANTIZE, 1, 2);
        ct__operand_contig(&d.operands[0], tp, 2, out2);
        ct__operand_contig(&d.operands[1], q->codes, 2, blk);
        ct__operand_contig(&d.operands[2], q->scales, 2, sblk);
        d.operands[2].dtype = CT_UINT8; /* e8m0 codes, moved as bytes */
        d.ints[0] = (int64_t)q->format;
        d.ints[1] = q->block_size;
        if ((st = ct__submit(ctx, ct_tensor_device(res), &d)) != CT_OK) {
            ct_tensor_release(tp);
            return st;
        }
    }
    if (!direct) {
        if ((st = ct_tensor_permute(ctx, tp, inv, &view)) == CT_OK)
            st = ct_tensor_copy_(ctx, res, view);
    }
    ct_tensor_release(view);
    ct_tensor_release(tp);
    return st;
}

ct_status ct_mx_dequantize(ct_ctx *ctx, const ct_mx_tensor *q, ct_dtype dtype, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!ct__mx_valid(q) || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_dequantize: NULL argument");
    *out = NULL;
    if (q->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "mx_dequantize: the MX tensor belongs to another context");
    if (!ct__mx_float_in(dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "mx_dequantize: output dtype %s, want float32, bfloat16 or float16",
                             ct_dtype_name(dtype));
    ct_tensor *res = NULL;
    ct_status st = ct_tensor_empty(ctx, dtype, q->ndim, q->shape, &res);
    if (st == CT_OK) st = ct__mx_dequant_to(ctx, q, res);
    if (st != CT_OK) {
        ct_tensor_release(res);
        return st;
    }
    *out = res;
    return CT_OK;
}

ct_status ct_mx_dequantize_into(ct_ctx *ctx, const ct_mx_tensor *q, ct_tensor *out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!ct__mx_valid(q) || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_dequantize_into: NULL argument");
    if (q->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "mx_dequantize_into: the MX tensor belongs to another context");
    if (ct__mx_own(ctx, "mx_dequantize_into", "output", out) != CT_OK) return CT_ERR_INVALID_ARG;
    if (!ct__mx_float_in(ct_tensor_dtype(out)))
        return ct__set_error(
            ctx, CT_ERR_DTYPE,
            "mx_dequantize_into: output dtype %s, want float32, bfloat16 or float16",
            ct_dtype_name(ct_tensor_dtype(out)));
    if (!ct__mx_on_cpu(out) || !ct_tensor_is_contiguous(out))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "mx_dequantize_into: output must be a contiguous CPU tensor");
    bool same = ct_tensor_ndim(out) == q->ndim;
    for (int i = 0; same && i < q->ndim; i++)
        same = ct_tensor_shape(out)[i] == q->shape[i];
    if (!same)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "mx_dequantize_into: output shape differs from the MX tensor's");
    return ct__mx_dequant_to(ctx, q, out);
}

ct_status ct_mx_linear(ct_ctx *ctx, const ct_tensor *x, const ct_mx_tensor *w,
                       const ct_tensor *bias, ct_tensor **y) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!x || !ct__mx_valid(w) || !y)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_linear: NULL argument");
    *y = NULL;
    if (w->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "mx_linear: the weight belongs to another context");
    if (ct__mx_own(ctx, "mx_linear", "x", x) != CT_OK ||
        (bias && ct__mx_own(ctx, "mx_linear", "bias", bias) != CT_OK))
        return CT_ERR_INVALID_ARG;
    ct_dtype xdt = ct_tensor_dtype(x);
    if (!ct__mx_float_in(xdt))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "mx_linear: x dtype %s, want float32, bfloat16 or float16",
                             ct_dtype_name(xdt));
    if (!ct__mx_on_cpu(x) || (bias && !ct__mx_on_cpu(bias)))
        return ct__set_error(ctx, CT_ERR_DEVICE, "mx_linear: tensors must be on the CPU");
    if (w->ndim != 2 || w->axis != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "mx_linear: weight must be 2-d (N x K) blocked along axis 1, got %d-d "
                             "blocked along axis %d",
                             w->ndim, w->axis);
    int64_t N = w->shape[0], K = w->shape[1];
    int xnd = ct_tensor_ndim(x);
    if (xnd < 1 || ct_tensor_shape(x)[xnd - 1] != K)
        return ct__set_error(
            ctx, CT_ERR_SHAPE, "mx_linear: x has last dim %lld, weight is %lldx%lld",
            xnd < 1 ? -1LL : (long long)ct_tensor_shape(x)[xnd - 1], (long long)N, (long long)K);
    if (bias) {
        if (!ct__mx_float_in(ct_tensor_dtype(bias)))
            return ct__set_error(ctx, CT_ERR_DTYPE, "mx_linear: bias dtype %s, want a float dtype",
                                 ct_dtype_name(ct_tensor_dtype(bias)));
        if (ct_tensor_ndim(bias) != 1 || ct_tensor_shape(bias)[0] != N)
            return ct__set_error(ctx, CT_ERR_SHAPE, "mx_linear: bias must have shape [%lld]",
                                 (long long)N);
    }
    int64_t yshape[CT_MAX_DIMS];
    memcpy(yshape, ct_tensor_shape(x), (size_t)xnd * sizeof(int64_t));
    yshape[xnd - 1] = N;
    ct_tensor *res = NULL, *xc = NULL, *bc = NULL, *work = NULL;
    ct_status st = ct_tensor_empty(ctx, xdt, xnd, yshape, &res);
    if (st != CT_OK) return st;
    int64_t M = 1;
    for (int i = 0; i < xnd - 1; i++)
        M *= yshape[i];
    if (M == 0 || N == 0) {
        *y = res;
        return CT_OK;
    }
    int64_t mk, wfl;
    if (!ct__checked_mul(M, K, &mk) || mk > INT64_MAX / 8 || !ct__checked_mul(M, N, &wfl) ||
        wfl > INT64_MAX / 8) {
        st = ct__set_error(ctx, CT_ERR_OVERFLOW, "mx_linear: x too large");
        goto done;
    }
    wfl = ct__mx_linear_work_floats(M, N, K, xdt == CT_FLOAT32, bias != NULL);
    if ((st = ct_tensor_empty(ctx, CT_FLOAT32, 1, &wfl, &work)) != CT_OK) goto done;
    if ((st = ct_tensor_contiguous(ctx, x, &xc)) != CT_OK) goto done;
    if (bias && (st = ct_tensor_contiguous(ctx, bias, &bc)) != CT_OK) goto done;
    {
        const int64_t y2[2] = {M, N}, x2[2] = {M, K},
                      blk[2] = {N, ct__mxk_row_bytes((int)w->format, K)},
                      sblk[2] = {N, (K + w->block_size - 1) / w->block_size};
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_MX_LINEAR, 1, 5);
        ct__operand_contig(&d.operands[0], res, 2, y2);
        ct__operand_contig(&d.operands[1], xc, 2, x2);
        ct__operand_contig(&d.operands[2], w->codes, 2, blk);
        ct__operand_contig(&d.operands[3], w->scales, 2, sblk);
        d.operands[3].dtype = CT_UINT8; /* e8m0 codes, moved as bytes */
        if (bc) ct__operand_contig(&d.operands[4], bc, 1, &N);
        ct__operand_contig(&d.operands[5], work, 1, &wfl);
        d.ints[0] = (int64_t)w->format;
        d.ints[1] = w->block_size;
        st = ct__submit(ctx, ct_tensor_device(x), &d);
    }
done:
    ct_tensor_release(work);
    ct_tensor_release(xc);
    ct_tensor_release(bc);
    if (st != CT_OK) {
        ct_tensor_release(res);
        return st;
    }
    *y = res;
    return CT_OK;
}

/* ---- GGUF MXFP4 ---- */

static ct_status ct__gguf_check(ct_ctx *ctx, const char *op, int ndim, const int64_t *shape,
                                size_t nbytes, int64_t *nblocks) {
    if (ndim < 1 || ndim > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: ndim %d not in [1, %d]", op, ndim,
                             CT_MAX_DIMS);
    int64_t numel = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) return ct__set_error(ctx, CT_ERR_SHAPE, "%s: negative dim %d", op, i);
        if (!ct__checked_mul(numel, shape[i], &numel))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: shape overflows", op);
    }
    /* a shape whose dequantized (float32) strides or bytes overflow int64 is an overflow, also
     * when a zero dim makes it empty; checked before the byte count is compared */
    ct_status st = ct__check_extent(ctx, op, ndim, shape, sizeof(float));
    if (st != CT_OK) return st;
    if (shape[ndim - 1] % 32)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: last dim %lld is not a multiple of 32", op,
                             (long long)shape[ndim - 1]);
    int64_t want;
    if (!ct__checked_mul(numel / 32, 17, &want))
        return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: size overflows", op);
    if ((uint64_t)want != (uint64_t)nbytes)
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: %zu bytes given, %lld blocks need %lld", op,
                             nbytes, (long long)(numel / 32), (long long)want);
    *nblocks = numel / 32;
    return CT_OK;
}

ct_status ct_mx_from_gguf_mxfp4(ct_ctx *ctx, const void *blocks, size_t nbytes, int ndim,
                                const int64_t *shape, ct_mx_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (ct__refuse_capture(ctx, "mx_from_gguf_mxfp4") != CT_OK) return CT_ERR_UNSUPPORTED;
    ct__clear_error(ctx);
    if (!out || !shape || (nbytes && !blocks))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_from_gguf_mxfp4: NULL argument");
    *out = NULL;
    int64_t nb;
    ct_status st = ct__gguf_check(ctx, "mx_from_gguf_mxfp4", ndim, shape, nbytes, &nb);
    if (st != CT_OK) return st;
    ct_mx_tensor *q;
    if ((st = ct__mx_alloc(ctx, CT_MXFP4_E2M1, 32, ndim - 1, ndim, shape, shape, &q)) != CT_OK)
        return st;
    const uint8_t *src = blocks;
    uint8_t *codes = ct_tensor_data_ptr(q->codes), *scales = ct_tensor_data_ptr(q->scales);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = src + b * 17;
        scales[b] = blk[0];
        const uint8_t *qs = blk + 1;
        for (int i = 0; i < 16; i++) {
            int e0 = 2 * i, e1 = 2 * i + 1; /* our byte i holds elements 2i (low), 2i+1 (high) */
            uint8_t c0 = e0 < 16 ? (qs[e0] & 0xF) : (qs[e0 - 16] >> 4);
            uint8_t c1 = e1 < 16 ? (qs[e1] & 0xF) : (qs[e1 - 16] >> 4);
            codes[b * 16 + i] = (uint8_t)(c0 | (c1 << 4));
        }
    }
    *out = q;
    return CT_OK;
}

ct_status ct_mx_to_gguf_mxfp4(ct_ctx *ctx, const ct_mx_tensor *q, void *dst, size_t nbytes) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (ct__refuse_capture(ctx, "mx_to_gguf_mxfp4") != CT_OK) return CT_ERR_UNSUPPORTED;
    ct__clear_error(ctx);
    if (!ct__mx_valid(q) || (nbytes && !dst))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "mx_to_gguf_mxfp4: NULL argument");
    if (q->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "mx_to_gguf_mxfp4: the MX tensor belongs to another context");
    if (q->format != CT_MXFP4_E2M1 || q->block_size != 32 || q->axis != q->ndim - 1)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "mx_to_gguf_mxfp4: need mxfp4_e2m1 with block 32 along the last axis, "
                             "got %s block %d axis %d",
                             ct_mx_format_name(q->format), q->block_size, q->axis);
    int64_t nb;
    ct_status st = ct__gguf_check(ctx, "mx_to_gguf_mxfp4", q->ndim, q->shape, nbytes, &nb);
    if (st != CT_OK) return st;
    const uint8_t *codes = ct_tensor_data_ptr(q->codes), *scales = ct_tensor_data_ptr(q->scales);
    uint8_t *d = dst;
    for (int64_t b = 0; b < nb; b++) {
        uint8_t *blk = d + b * 17;
        blk[0] = scales[b];
        const uint8_t *c = codes + b * 16;
        for (int j = 0; j < 16; j++) {
            uint8_t lo = (uint8_t)((c[j / 2] >> ((j & 1) * 4)) & 0xF); /* element j */
            uint8_t hi =
                (uint8_t)((c[(j + 16) / 2] >> (((j + 16) & 1) * 4)) & 0xF); /* element j+16 */
            blk[1 + j] = (uint8_t)(lo | (hi << 4));
        }
    }
    return CT_OK;
}

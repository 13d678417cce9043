/* 2:4 semi-structured sparse matrices: prune / compress, decompress, sparse matmul and linear.
 * This layer validates, converts the dense side to the layouts the kernels take (f32 dense for
 * compression, f32 epilogue rows), allocates outputs and the workspace, and submits
 * CT_OP_SPARSE24_* descriptors through the dispatch point, so they are captured like every op;
 * the CPU backend (backends/cpu/sparse_cpu.c) runs the ISA kernels. */
#include "ctorch/sparse.h"
#include "backends/cpu/kernels/sparse_kernels.h"
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <stdlib.h>
#include <string.h>

struct ct_sparse24 {
    ct_ctx *ctx;
    uint32_t magic;
    ct_dtype dtype;
    int64_t shape[2];
    ct_tensor *values, *meta, *scales;
};

#define CT__SP24_MAGIC 0x53503234u /* "SP24" */

static bool sp_valid(const ct_sparse24 *s) { return s && s->magic == CT__SP24_MAGIC; }

static ct_status sp_own(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t) {
    return ct__own_tensor(ctx, op, what, t, true);
}

static bool sp_is_fp8(ct_dtype dt) { return dt == CT_FLOAT8_E4M3FN || dt == CT_FLOAT8_E5M2; }

static int sp_kind_of(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT32: return CT__SPK_F32;
    case CT_BFLOAT16: return CT__SPK_BF16;
    case CT_FLOAT16: return CT__SPK_F16;
    case CT_FLOAT8_E4M3FN: return CT__SPK_E4M3;
    case CT_FLOAT8_E5M2: return CT__SPK_E5M2;
    default: return -1;
    }
}

/* Operand of t with FP8 codes moved as bytes (operands carry compute dtypes only). */
static void sp_operand(ct_operand *o, const ct_tensor *t) {
    ct__operand_set(o, t);
    if (sp_is_fp8(o->dtype)) o->dtype = CT_UINT8;
}

void ct_sparse24_free(ct_sparse24 *s) {
    if (!sp_valid(s)) return;
    ct_tensor_release(s->values);
    ct_tensor_release(s->meta);
    ct_tensor_release(s->scales);
    s->magic = 0;
    ct__free(s->ctx, s);
}

/* A new handle for [M, K] values of dtype vdt, without parts (NULL: out of memory, said). */
static ct_sparse24 *sp_handle(ct_ctx *ctx, const char *op, int64_t M, int64_t K, ct_dtype vdt) {
    ct_sparse24 *s = ct__alloc(ctx, sizeof *s, 16);
    if (!s) {
        ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory for the handle", op);
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->magic = CT__SP24_MAGIC;
    s->dtype = vdt;
    s->shape[0] = M;
    s->shape[1] = K;
    return s;
}

/* A new handle with uninitialised parts for [M, K] values of dtype vdt. */
static ct_status sp_alloc(ct_ctx *ctx, const char *op, int64_t M, int64_t K, ct_dtype vdt,
                          ct_sparse24 **out) {
    ct_sparse24 *s = sp_handle(ctx, op, M, K, vdt);
    if (!s) return CT_ERR_OOM;
    const int64_t vs[2] = {M, K / 2}, ms[2] = {M, ct__sp24_meta_bytes(K)};
    ct_status st = ct_tensor_empty(ctx, vdt, 2, vs, &s->values);
    if (st == CT_OK) st = ct_tensor_empty(ctx, CT_UINT8, 2, ms, &s->meta);
    if (st == CT_OK && sp_is_fp8(vdt)) st = ct_tensor_empty(ctx, CT_FLOAT32, 1, &M, &s->scales);
    if (st != CT_OK) {
        ct_sparse24_free(s);
        return st;
    }
    *out = s;
    return CT_OK;
}

static const ct_tensor *sp_opt_scales(const ct_sparse24_options *o) {
    return o && o->size >= offsetof(ct_sparse24_options, scales) + sizeof(o->scales) ? o->scales
                                                                                     : NULL;
}

static ct_status sp_compress(ct_ctx *ctx, const char *op, const ct_tensor *dense, ct_dtype vdt,
                             const ct_sparse24_options *opts, bool prune, ct_sparse24 **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    ct_status st = sp_own(ctx, op, "dense", dense);
    if (st != CT_OK) return st;
    if (!prune && (st = ct__refuse_capture(ctx, op)) != CT_OK) return st;
    if (vdt != CT_FLOAT32 && vdt != CT_BFLOAT16 && !sp_is_fp8(vdt))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: values dtype %s; want float32, bfloat16, float8_e4m3fn or "
                             "float8_e5m2",
                             op, ct_dtype_name(vdt));
    const ct_dtype ddt = ct_tensor_dtype(dense);
    if (ddt != CT_FLOAT32 && ddt != CT_BFLOAT16 && ddt != CT_FLOAT16)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: dense dtype %s; want float32, bfloat16 or float16", op,
                             ct_dtype_name(ddt));
    if (ct_tensor_ndim(dense) != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: dense is %d-d; want a 2-d [M, K] matrix", op,
                             ct_tensor_ndim(dense));
    const int64_t M = ct_tensor_shape(dense)[0], K = ct_tensor_shape(dense)[1];
    if (K % 4)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: K = %lld is not a multiple of 4 (2:4 groups run along the last "
                             "dim)",
                             op, (long long)K);
    const ct_tensor *given = sp_opt_scales(opts);
    if (given) {
        if ((st = sp_own(ctx, op, "opts->scales", given)) != CT_OK) return st;
        if (!sp_is_fp8(vdt))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: scales apply to FP8 values only, not %s", op,
                                 ct_dtype_name(vdt));
        if (ct_tensor_ndim(given) != 1 || ct_tensor_shape(given)[0] != M ||
            !ct_dtype_is_floating(ct_tensor_dtype(given)))
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: scales must be a float tensor of shape [%lld]", op,
                                 (long long)M);
    }
    ct_sparse24 *s = NULL;
    ct_tensor *d32 = NULL, *dc = NULL, *g32 = NULL, *gc = NULL, *bad = NULL;
    if ((st = sp_alloc(ctx, op, M, K, vdt, &s)) != CT_OK) return st;
    if (M == 0 || K == 0) {
        if (s->scales &&
            M > 0) { /* K == 0: no values, yet the row scales are the given ones or 1 */
            if (given) {
                st = ct_tensor_copy_(ctx, s->scales, given);
            } else {
                ct_tensor *one = NULL;
                st = ct_tensor_full(ctx, CT_FLOAT32, 1, &M, 1.0, &one);
                if (st == CT_OK) ct_tensor_release(s->scales), s->scales = one;
            }
        }
        goto done;
    }
    if ((st = ct__to_dtype(ctx, dense, CT_FLOAT32, &d32)) != CT_OK) goto done;
    if ((st = ct_tensor_contiguous(ctx, d32, &dc)) != CT_OK) goto done;
    if (given) {
        if ((st = ct__to_dtype(ctx, given, CT_FLOAT32, &g32)) != CT_OK) goto done;
        if ((st = ct_tensor_contiguous(ctx, g32, &gc)) != CT_OK) goto done;
    }
    if (!prune) {
        const int64_t one = 1;
        if ((st = ct_tensor_empty(ctx, CT_INT64, 1, &one, &bad)) != CT_OK) goto done;
    }
    {
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_SPARSE24_COMPRESS, 4, 2);
        sp_operand(&d.operands[0], s->values);
        ct__operand_set(&d.operands[1], s->meta);
        if (s->scales) ct__operand_set(&d.operands[2], s->scales);
        if (bad) ct__operand_set(&d.operands[3], bad);
        ct__operand_set(&d.operands[4], dc);
        if (gc) ct__operand_set(&d.operands[5], gc);
        d.ints[0] = prune;
        d.ints[1] = sp_kind_of(vdt);
        if ((st = ct__submit(ctx, ct_tensor_device(dense), &d)) != CT_OK) goto done;
    }
    if (bad) {
        double v = -1;
        if ((st = ct_tensor_item(bad, &v)) != CT_OK) goto done;
        if (v >= 0) {
            const int64_t g = (int64_t)v, G = K / 4;
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "%s: the matrix is not 2:4: row %lld, columns %lld..%lld hold more "
                               "than two non-zeros",
                               op, (long long)(g / G), (long long)(4 * (g % G)),
                               (long long)(4 * (g % G) + 3));
        }
    }
done:
    ct_tensor_release(d32);
    ct_tensor_release(dc);
    ct_tensor_release(g32);
    ct_tensor_release(gc);
    ct_tensor_release(bad);
    if (st != CT_OK) {
        ct_sparse24_free(s);
        return st;
    }
    *out = s;
    return CT_OK;
}

ct_status ct_sparse24_prune_ex(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                               const ct_sparse24_options *opts, ct_sparse24 **out) {
    return sp_compress(ctx, "sparse24_prune", dense, values_dtype, opts, true, out);
}
ct_status ct_sparse24_prune(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                            ct_sparse24 **out) {
    return sp_compress(ctx, "sparse24_prune", dense, values_dtype, NULL, true, out);
}
ct_status ct_sparse24_from_dense_ex(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                                    const ct_sparse24_options *opts, ct_sparse24 **out) {
    return sp_compress(ctx, "sparse24_from_dense", dense, values_dtype, opts, false, out);
}
ct_status ct_sparse24_from_dense(ct_ctx *ctx, const ct_tensor *dense, ct_dtype values_dtype,
                                 ct_sparse24 **out) {
    return sp_compress(ctx, "sparse24_from_dense", dense, values_dtype, NULL, false, out);
}

/* A host copy of t (any strides) as a new contiguous tensor of the same dtype. */
static ct_status sp_host_copy(ct_ctx *ctx, const ct_tensor *t, uint8_t **host, ct_tensor **out) {
    const size_t nb = (size_t)ct_tensor_numel(t) * ct_dtype_size(ct_tensor_dtype(t));
    uint8_t *buf = malloc(nb ? nb : 1);
    if (!buf) return ct__set_error(ctx, CT_ERR_OOM, "sparse24_from_parts: out of host memory");
    ct_status st = ct_tensor_to_host(t, buf, nb);
    if (st == CT_OK)
        st = ct_tensor_from_host(ctx, buf, ct_tensor_dtype(t), ct_tensor_ndim(t),
                                 ct_tensor_shape(t), out);
    if (st == CT_OK && host)
        *host = buf;
    else
        free(buf);
    return st;
}

ct_status ct_sparse24_from_parts(ct_ctx *ctx, int64_t rows, int64_t cols, const ct_tensor *values,
                                 const ct_tensor *metadata, const ct_tensor *scales,
                                 ct_sparse24 **out) {
    static const char op[] = "sparse24_from_parts";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    ct_status st;
    if ((st = sp_own(ctx, op, "values", values)) != CT_OK ||
        (st = sp_own(ctx, op, "metadata", metadata)) != CT_OK ||
        (scales && (st = sp_own(ctx, op, "scales", scales)) != CT_OK))
        return st;
    if ((st = ct__refuse_capture(ctx, op)) != CT_OK) return st;
    const ct_dtype vdt = ct_tensor_dtype(values);
    if (vdt != CT_FLOAT32 && vdt != CT_BFLOAT16 && !sp_is_fp8(vdt))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: values dtype %s is not a 2:4 values dtype", op,
                             ct_dtype_name(vdt));
    if (rows < 0 || cols < 0 || cols % 4 || cols > INT64_MAX / 16)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: shape [%lld, %lld]: want rows >= 0 and cols a multiple of 4", op,
                             (long long)rows, (long long)cols);
    const int64_t mb = ct__sp24_meta_bytes(cols);
    const int64_t *vs = ct_tensor_shape(values), *ms = ct_tensor_shape(metadata);
    if (ct_tensor_ndim(values) != 2 || vs[0] != rows || vs[1] != cols / 2)
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: values must have shape [%lld, %lld]", op,
                             (long long)rows, (long long)(cols / 2));
    if (ct_tensor_dtype(metadata) != CT_UINT8 || ct_tensor_ndim(metadata) != 2 || ms[0] != rows ||
        ms[1] != mb)
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: metadata must be uint8 of shape [%lld, %lld]",
                             op, (long long)rows, (long long)mb);
    if (sp_is_fp8(vdt) != (scales != NULL))
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: %s values %s scales", op, ct_dtype_name(vdt),
                             scales ? "take no" : "need f32 [rows]");
    if (scales && (ct_tensor_dtype(scales) != CT_FLOAT32 || ct_tensor_ndim(scales) != 1 ||
                   ct_tensor_shape(scales)[0] != rows))
        return ct__set_error(ctx, CT_ERR_FORMAT, "%s: scales must be float32 of shape [%lld]", op,
                             (long long)rows);
    ct_sparse24 *s = sp_handle(ctx, op, rows, cols, vdt);
    if (!s) return CT_ERR_OOM;
    uint8_t *mh = NULL;
    if ((st = sp_host_copy(ctx, values, NULL, &s->values)) != CT_OK ||
        (st = sp_host_copy(ctx, metadata, &mh, &s->meta)) != CT_OK ||
        (scales && (st = sp_host_copy(ctx, scales, NULL, &s->scales)) != CT_OK))
        goto fail;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t g = 0; g < cols / 4; g++) {
            const unsigned nib = (mh[r * mb + g / 2] >> (4 * (g & 1))) & 15u;
            if ((nib & 3u) >= (nib >> 2)) {
                st = ct__set_error(ctx, CT_ERR_FORMAT,
                                   "%s: metadata row %lld group %lld is 0x%x: the first kept index "
                                   "must be below the second",
                                   op, (long long)r, (long long)g, nib);
                goto fail;
            }
        }
    free(mh);
    *out = s;
    return CT_OK;
fail:
    free(mh);
    ct_sparse24_free(s);
    return st;
}

static ct_status sp_check(ct_ctx *ctx, const char *op, const ct_sparse24 *s) {
    if (!sp_valid(s))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: the sparse matrix is NULL or freed", op);
    if (s->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: the sparse matrix belongs to another context", op);
    return CT_OK;
}

ct_status ct_sparse24_to_dense(ct_ctx *ctx, const ct_sparse24 *s, ct_dtype dtype, ct_tensor **out) {
    static const char op[] = "sparse24_to_dense";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    ct_status st = sp_check(ctx, op, s);
    if (st != CT_OK) return st;
    if (dtype != CT_FLOAT32 && dtype != CT_BFLOAT16 && dtype != CT_FLOAT16)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s; want float32, bfloat16 or float16",
                             op, ct_dtype_name(dtype));
    ct_tensor *d32 = NULL;
    if ((st = ct_tensor_empty(ctx, CT_FLOAT32, 2, s->shape, &d32)) != CT_OK) return st;
    if (s->shape[0] && s->shape[1]) {
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_SPARSE24_DECOMPRESS, 1, 3);
        ct__operand_set(&d.operands[0], d32);
        sp_operand(&d.operands[1], s->values);
        ct__operand_set(&d.operands[2], s->meta);
        if (s->scales) ct__operand_set(&d.operands[3], s->scales);
        d.ints[1] = sp_kind_of(s->dtype);
        if ((st = ct__submit(ctx, ct_tensor_device(d32), &d)) != CT_OK) goto done;
    }
    if (dtype == CT_FLOAT32) {
        *out = d32;
        return CT_OK;
    }
    st = ct__to_dtype(ctx, d32, dtype, out);
done:
    ct_tensor_release(d32);
    return st;
}

/* The (2, M) f32 epilogue rows: multiplier c (times the FP8 row scales) and bias (or 0). */
static ct_status sp_epilogue(ct_ctx *ctx, const ct_sparse24 *a, double c, const ct_tensor *bias,
                             ct_tensor **out) {
    const int64_t M = a->shape[0];
    ct_tensor *mult = NULL, *b32 = NULL;
    ct_status st = a->scales ? ct_mul_scalar(ctx, a->scales, c, &mult)
                             : ct_tensor_full(ctx, CT_FLOAT32, 1, &M, c, &mult);
    if (st == CT_OK)
        st = bias ? ct__to_dtype(ctx, bias, CT_FLOAT32, &b32)
                  : ct_tensor_zeros(ctx, CT_FLOAT32, 1, &M, &b32);
    if (st == CT_OK) {
        const ct_tensor *rows[2] = {mult, b32};
        st = ct_stack(ctx, 2, rows, 0, out);
    }
    ct_tensor_release(mult);
    ct_tensor_release(b32);
    return st;
}

/* out32 (M, N) f32 = the sparse product with its epilogue. */
static ct_status sp_mm_f32(ct_ctx *ctx, const ct_sparse24 *a, const ct_tensor *b,
                           const ct_tensor *bias, double c, ct_tensor **out32) {
    const int64_t M = a->shape[0], K = a->shape[1], N = ct_tensor_shape(b)[1];
    const int64_t os[2] = {M, N};
    ct_tensor *res = NULL, *epi = NULL, *work = NULL;
    ct_status st = ct_tensor_empty(ctx, CT_FLOAT32, 2, os, &res);
    if (st != CT_OK || M == 0 || N == 0) goto done;
    if ((st = sp_epilogue(ctx, a, c, bias, &epi)) != CT_OK) goto done;
    {
        const ct__sp24_work wp = ct__sp24_work_plan(N, K, ct__ctx_threads(ctx));
        if ((st = ct_tensor_empty(ctx, CT_UINT8, 1, &wp.total, &work)) != CT_OK) goto done;
        ct_op_desc d;
        ct__desc_init(&d, CT_OP_SPARSE24_MM, 1, 5);
        ct__operand_set(&d.operands[0], res);
        sp_operand(&d.operands[1], a->values);
        ct__operand_set(&d.operands[2], a->meta);
        ct__operand_set(&d.operands[3], epi);
        sp_operand(&d.operands[4], b);
        ct__operand_set(&d.operands[5], work);
        d.ints[1] = sp_kind_of(a->dtype);
        d.ints[2] = sp_kind_of(ct_tensor_dtype(b));
        st = ct__submit(ctx, ct_tensor_device(b), &d);
    }
done:
    ct_tensor_release(epi);
    ct_tensor_release(work);
    if (st != CT_OK) {
        ct_tensor_release(res);
        return st;
    }
    *out32 = res;
    return CT_OK;
}

/* Checks shared by mm and linear: the matrix, B's dtype, the bias [M]. */
static ct_status sp_mm_args(ct_ctx *ctx, const char *op, const ct_sparse24 *a, const ct_tensor *b,
                            const char *bname, const ct_tensor *bias) {
    ct_status st = sp_check(ctx, op, a);
    if (st != CT_OK || (st = sp_own(ctx, op, bname, b)) != CT_OK) return st;
    if (sp_kind_of(ct_tensor_dtype(b)) < 0)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: %s dtype %s; want float32, bfloat16, float16 or FP8", op, bname,
                             ct_dtype_name(ct_tensor_dtype(b)));
    if (bias) {
        if ((st = sp_own(ctx, op, "bias", bias)) != CT_OK) return st;
        const ct_dtype bd = ct_tensor_dtype(bias);
        if (bd != CT_FLOAT32 && bd != CT_BFLOAT16 && bd != CT_FLOAT16 && bd != CT_FLOAT64)
            return ct__set_error(ctx, CT_ERR_DTYPE, "%s: bias dtype %s; want a float dtype", op,
                                 ct_dtype_name(bd));
        if (ct_tensor_ndim(bias) != 1 || ct_tensor_shape(bias)[0] != a->shape[0])
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: bias must have shape [%lld]", op,
                                 (long long)a->shape[0]);
    }
    return CT_OK;
}

/* After an mm / linear forward that ran inside ct__ag_enter (entered): record its tape node when
 * want (a dense input, b or bias, requires grad and this is an outermost call in grad mode). The
 * sparse matrix's dense expansion stands in for it (saved by the node); the sparse matrix is not a
 * tensor of the graph and gets no gradient. Returns the forward's status or the record's. */
static ct_status sp_ag_finish(ct_ctx *ctx, bool entered, bool want, ct_status st, int op,
                              const ct_sparse24 *a, const ct_tensor *b, const ct_tensor *bias,
                              double c, ct_tensor **out) {
    if (!entered) return st;
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    ct_tensor *ad = NULL;
    if (st == CT_OK && want) {
        st = ct_sparse24_to_dense(ctx, a, CT_FLOAT32, &ad);
        if (st == CT_OK) {
            r.op = op, r.n_in = 3, r.in[0] = ad, r.in[1] = b, r.in[2] = bias, r.sc[0] = c;
        } else {
            ct_tensor_release(*out);
            *out = NULL;
        }
    }
    st = ct__ag_after(ctx, st, &r, out);
    ct_tensor_release(ad);
    return st;
}

ct_status ct_sparse24_mm_ex(ct_ctx *ctx, const ct_sparse24 *a, const ct_tensor *b,
                            const ct_tensor *bias, double alpha, ct_dtype out_dtype,
                            const ct_sparse24_mm_options *opts, ct_tensor **out) {
    static const char op[] = "sparse24_mm";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    ct_status st = sp_mm_args(ctx, op, a, b, "b", bias);
    if (st != CT_OK) return st;
    if (out_dtype != CT_FLOAT32 && out_dtype != CT_BFLOAT16)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: out dtype %s; want float32 or bfloat16", op,
                             ct_dtype_name(out_dtype));
    if (ct_tensor_ndim(b) != 2 || ct_tensor_shape(b)[0] != a->shape[1])
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: a is %lldx%lld, b is %s%lldx%lld", op,
                             (long long)a->shape[0], (long long)a->shape[1],
                             ct_tensor_ndim(b) == 2 ? "" : "not 2-d: ",
                             ct_tensor_ndim(b) > 0 ? (long long)ct_tensor_shape(b)[0] : 0LL,
                             ct_tensor_ndim(b) > 1 ? (long long)ct_tensor_shape(b)[1] : 0LL);
    double bs = 1.0;
    if (opts && opts->size >= offsetof(ct_sparse24_mm_options, b_scale) + sizeof(double) &&
        opts->b_scale != 0)
        bs = opts->b_scale;
    const ct_tensor *gin[2] = {b, bias};
    const bool want = ct__ag_wants(ctx, 2, gin), entered = ct__ag_enter(ctx);
    ct_tensor *r32 = NULL;
    st = sp_mm_f32(ctx, a, b, bias, alpha * bs, &r32);
    if (st == CT_OK && out_dtype != CT_FLOAT32) {
        st = ct__to_dtype(ctx, r32, out_dtype, out);
        ct_tensor_release(r32);
    } else if (st == CT_OK) {
        *out = r32;
    }
    return sp_ag_finish(ctx, entered, want, st, CT__AG_SPARSE24_MM, a, b, bias, alpha * bs, out);
}

ct_status ct_sparse24_mm(ct_ctx *ctx, const ct_sparse24 *a, const ct_tensor *b,
                         const ct_tensor *bias, double alpha, ct_dtype out_dtype, ct_tensor **out) {
    return ct_sparse24_mm_ex(ctx, a, b, bias, alpha, out_dtype, NULL, out);
}

ct_status ct_sparse24_linear(ct_ctx *ctx, const ct_tensor *x, const ct_sparse24 *w,
                             const ct_tensor *b, ct_tensor **out) {
    static const char op[] = "sparse24_linear";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    ct_status st = sp_mm_args(ctx, op, w, x, "x", b);
    if (st != CT_OK) return st;
    const ct_dtype xdt = ct_tensor_dtype(x);
    if (xdt != CT_FLOAT32 && xdt != CT_BFLOAT16)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: x dtype %s; want float32 or bfloat16", op,
                             ct_dtype_name(xdt));
    const int nd = ct_tensor_ndim(x);
    const int64_t O = w->shape[0], I = w->shape[1];
    if (nd < 1 || ct_tensor_shape(x)[nd - 1] != I)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: x has last dim %lld, the weight is %lldx%lld",
                             op, nd < 1 ? -1LL : (long long)ct_tensor_shape(x)[nd - 1],
                             (long long)O, (long long)I);
    int64_t ys[CT_MAX_DIMS], batch = 1;
    memcpy(ys, ct_tensor_shape(x), (size_t)nd * sizeof(int64_t));
    ys[nd - 1] = O;
    for (int i = 0; i < nd - 1; i++)
        batch *= ys[i];
    const ct_tensor *gin[2] = {x, b};
    const bool want = ct__ag_wants(ctx, 2, gin), entered = ct__ag_enter(ctx);
    ct_tensor *x2 = NULL, *xt = NULL, *r32 = NULL, *rt = NULL, *y = NULL;
    const int64_t x2s[2] = {batch, I};
    if ((st = ct_tensor_reshape(ctx, x, 2, x2s, &x2)) != CT_OK) goto done;
    if ((st = ct_tensor_transpose(ctx, x2, 0, 1, &xt)) != CT_OK) goto done; /* [I, batch] view */
    if ((st = sp_mm_f32(ctx, w, xt, b, 1.0, &r32)) != CT_OK) goto done;     /* [O, batch] */
    if (batch == 1 && xdt == CT_FLOAT32) {
        st = ct_tensor_reshape(ctx, r32, nd, ys, &y);
        goto done;
    }
    if ((st = ct_tensor_transpose(ctx, r32, 0, 1, &rt)) != CT_OK) goto done;
    {
        const int64_t bs2[2] = {batch, O};
        ct_tensor *yc = NULL;
        if ((st = ct_tensor_empty(ctx, xdt, 2, bs2, &yc)) != CT_OK) goto done;
        if ((st = ct_tensor_copy_(ctx, yc, rt)) == CT_OK)
            st = ct_tensor_reshape(ctx, yc, nd, ys, &y);
        ct_tensor_release(yc);
    }
done:
    ct_tensor_release(x2);
    ct_tensor_release(xt);
    ct_tensor_release(r32);
    ct_tensor_release(rt);
    if (st != CT_OK) {
        ct_tensor_release(y);
        y = NULL;
    }
    *out = y;
    return sp_ag_finish(ctx, entered, want, st, CT__AG_SPARSE24_LINEAR, w, x, b, 1.0, out);
}

ct_tensor *ct_sparse24_values(const ct_sparse24 *s) { return sp_valid(s) ? s->values : NULL; }
ct_tensor *ct_sparse24_metadata(const ct_sparse24 *s) { return sp_valid(s) ? s->meta : NULL; }
ct_tensor *ct_sparse24_scales(const ct_sparse24 *s) { return sp_valid(s) ? s->scales : NULL; }
const int64_t *ct_sparse24_shape(const ct_sparse24 *s) { return sp_valid(s) ? s->shape : NULL; }
ct_dtype ct_sparse24_dtype(const ct_sparse24 *s) { return sp_valid(s) ? s->dtype : CT_DTYPE_COUNT; }

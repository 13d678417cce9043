/* Reference kernels of the creation, shaping and indexing op kinds: CT_OP_LINSPACE (torch 1.13's
 * CPU linspace, rounding for rounding), CT_OP_TRIL (tril / triu over the last two dims),
 * CT_OP_GATHER and CT_OP_SCATTER (index_select, gather, take_along_dim, scatter, scatter_add,
 * one_hot). */
#include "backends/cpu/kernels/ew.h"

#include <math.h>
#include <string.h>

/* torch 1.13 (x86 AVX2 build) computes linspace in the output dtype: step = (end - start) /
 * (steps - 1); element i is start + step * i below steps / 2 and end - step * (steps - i - 1) from
 * there on, each a fused multiply-add in f32/f64 (GCC contracts them in that build). Contiguous
 * output is produced in blocks of two vectors (f32: 8 lanes, f64: 4, f16/bf16: 16) from the
 * block's first index: lane l is base + l * step (two roundings), where base is the formula at the
 * vector's first index; the remainder after the last whole block uses the formula. f16/bf16 round
 * to the dtype after every operation (c10::Half arithmetic). Integers compute in double: a vector
 * (32 bytes of lanes) starts from the truncated formula and lane l is trunc(base + l * step). We
 * reproduce all of it (checked against torch in tests/test_shape.c), so results are torch's. */
static float k_round16(float x, ct_dtype dt) {
    return dt == CT_FLOAT16 ? ct__h2f(ct__f2h(x)) : ct__bf2f(ct__f2bf(x));
}

/* double -> int64 truncating, saturating where C's conversion would be undefined (values stay
 * between start and end, so this only guards rounding at the int64 limits) */
static int64_t k_trunc_i64(double v) {
    if (!(v > -9223372036854775808.0)) return v != v ? 0 : INT64_MIN;
    if (v >= 9223372036854775808.0) return INT64_MAX;
    return (int64_t)v;
}

ct_status ct_k_linspace(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0];
    const ct_dtype dt = o->dtype;
    const int64_t n = o->shape[0], bs = o->strides[0] * (int64_t)ct__itemsize(dt);
    char *p = o->data;
    const double S = op->scalars[0], E = op->scalars[1];
    if (n <= 0) return CT_OK;
    if (n == 1) {
        ct_k_store_f64(p, dt, S);
        return CT_OK;
    }
    const int64_t h = n / 2;
    if (dt == CT_FLOAT32) {
        const float s = (float)S, e = (float)E, step = (e - s) / (float)(n - 1);
#define AT32(i) ((i) < h ? fmaf(step, (float)(i), s) : fmaf(-step, (float)(n - (i)-1), e))
        const int64_t vec_end = n / 16 * 16;
        for (int64_t i = 0; i < vec_end; i += 8) {
            const float base = AT32(i);
            for (int l = 0; l < 8; l++)
                *(float *)(p + (i + l) * bs) = base + (float)l * step;
        }
        for (int64_t i = vec_end; i < n; i++)
            *(float *)(p + i * bs) = AT32(i);
#undef AT32
    } else if (dt == CT_FLOAT64) {
        const double step = (E - S) / (double)(n - 1);
#define AT64(i) ((i) < h ? fma(step, (double)(i), S) : fma(-step, (double)(n - (i)-1), E))
        const int64_t vec_end = n / 8 * 8;
        for (int64_t i = 0; i < vec_end; i += 4) {
            const double base = AT64(i);
            for (int l = 0; l < 4; l++)
                *(double *)(p + (i + l) * bs) = base + (double)l * step;
        }
        for (int64_t i = vec_end; i < n; i++)
            *(double *)(p + i * bs) = AT64(i);
#undef AT64
    } else if (dt == CT_FLOAT16 || dt == CT_BFLOAT16) {
        const float s = (float)S, e = (float)E;
        const float step = k_round16(k_round16(e - s, dt) / k_round16((float)(n - 1), dt), dt);
#define R(x) k_round16((x), dt)
#define AT16(i) ((i) < h ? R(s + R(step * R((float)(i)))) : R(e - R(step * R((float)(n - (i)-1)))))
        const int64_t vec_end = n / 32 * 32;
        for (int64_t i = 0; i < vec_end; i += 16) {
            const float base = AT16(i);
            for (int l = 0; l < 16; l++)
                ct_k_store_f64(p + (i + l) * bs, dt, R(base + R(R((float)l) * step)));
        }
        for (int64_t i = vec_end; i < n; i++)
            ct_k_store_f64(p + i * bs, dt, AT16(i));
#undef AT16
#undef R
    } else { /* integers: double math, truncated; vectors of 32 bytes, lanes from a truncated base
              */
        const double step = (E - S) / (double)(n - 1);
        const int64_t W = 32 / (int64_t)ct__itemsize(dt), vec_end = n / (2 * W) * (2 * W);
#define ATI(i) ((i) < h ? fma(step, (double)(i), S) : fma(-step, (double)(n - (i)-1), E))
        for (int64_t i = 0; i < vec_end; i += W) {
            const int64_t base = k_trunc_i64(ATI(i));
            for (int64_t l = 0; l < W; l++)
                ct_k_store_i64(p + (i + l) * bs, dt, k_trunc_i64((double)base + (double)l * step));
        }
        for (int64_t i = vec_end; i < n; i++)
            ct_k_store_i64(p + i * bs, dt, k_trunc_i64(ATI(i)));
#undef ATI
    }
    return CT_OK;
}

/* out[..., r, c] = in[..., r, c] where the diagonal rule keeps it, else zero (all-zero bytes are 0
 * in every compute dtype). Any strides; out may be in itself. */
ct_status ct_k_tril(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *in = &op->operands[1];
    const int nd = o->ndim;
    const size_t isz = ct__itemsize(o->dtype);
    const int64_t R = o->shape[nd - 2], C = o->shape[nd - 1], k = op->ints[0];
    const bool upper = op->ints[1] == 1;
    int64_t nbatch = 1;
    for (int d = 0; d < nd - 2; d++)
        nbatch *= o->shape[d];
    if (nbatch == 0 || R == 0 || C == 0) return CT_OK;
    int64_t idx[CT_MAX_DIMS] = {0};
    for (int64_t b = 0; b < nbatch; b++) {
        int64_t ob = 0, ib = 0;
        for (int d = 0; d < nd - 2; d++) {
            ob += idx[d] * o->strides[d];
            ib += idx[d] * in->strides[d];
        }
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                char *dst = (char *)o->data +
                            (int64_t)isz * (ob + r * o->strides[nd - 2] + c * o->strides[nd - 1]);
                const char *src =
                    (const char *)in->data +
                    (int64_t)isz * (ib + r * in->strides[nd - 2] + c * in->strides[nd - 1]);
                bool keep = upper ? c - r >= k : c - r <= k;
                if (keep) {
                    if (dst != src) memcpy(dst, src, isz);
                } else {
                    memset(dst, 0, isz);
                }
            }
        for (int d = nd - 3; d >= 0; d--) {
            if (++idx[d] < o->shape[d]) break;
            idx[d] = 0;
        }
    }
    return CT_OK;
}

/* ---- gather / scatter: walk the index operand's shape in C order ---- */
typedef struct {
    int nd;
    int64_t shape[CT_MAX_DIMS], idx[CT_MAX_DIMS];
} k_walk;
static bool k_walk_next(k_walk *w) {
    for (int d = w->nd - 1; d >= 0; d--) {
        if (++w->idx[d] < w->shape[d]) return true;
        w->idx[d] = 0;
    }
    return false;
}
static int64_t k_numel(int nd, const int64_t *shape) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++)
        n *= shape[d];
    return n;
}
static int64_t k_off(const ct_operand *o, const int64_t *idx, int skip) {
    int64_t off = 0;
    for (int d = 0; d < o->ndim; d++)
        if (d != skip) off += idx[d] * o->strides[d];
    return off;
}
/* Every index inside [0, n): checked before anything is written. */
static bool k_indices_ok(const ct_operand *ix, int64_t n) {
    int64_t numel = k_numel(ix->ndim, ix->shape);
    if (numel == 0) return true;
    k_walk w = {ix->ndim, {0}, {0}};
    for (int d = 0; d < ix->ndim; d++)
        w.shape[d] = ix->shape[d];
    const size_t isz = ct__itemsize(ix->dtype);
    do {
        int64_t v =
            ct_k_load_i64((const char *)ix->data + k_off(ix, w.idx, -1) * (int64_t)isz, ix->dtype);
        if (v < 0 || v >= n) return false;
    } while (k_walk_next(&w));
    return true;
}

ct_status ct_k_gather(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *in = &op->operands[1], *ix = &op->operands[2];
    const int dim = (int)op->ints[0];
    const int64_t n = in->ndim ? in->shape[dim] : 1;
    if (!k_indices_ok(ix, n)) return CT_ERR_INDEX;
    if (k_numel(o->ndim, o->shape) == 0) return CT_OK;
    const size_t isz = ct__itemsize(o->dtype), xsz = ct__itemsize(ix->dtype);
    k_walk w = {o->ndim, {0}, {0}};
    for (int d = 0; d < o->ndim; d++)
        w.shape[d] = o->shape[d];
    do {
        int64_t v =
            ct_k_load_i64((const char *)ix->data + k_off(ix, w.idx, -1) * (int64_t)xsz, ix->dtype);
        int64_t src = k_off(in, w.idx, in->ndim ? dim : -1) + (in->ndim ? v * in->strides[dim] : 0);
        memcpy((char *)o->data + k_off(o, w.idx, -1) * (int64_t)isz,
               (const char *)in->data + src * (int64_t)isz, isz);
    } while (k_walk_next(&w));
    return CT_OK;
}

ct_status ct_k_scatter(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *ix = &op->operands[1], *src = &op->operands[2];
    const int dim = (int)op->ints[0];
    const bool add = op->ints[1] == 1;
    const int64_t n = o->ndim ? o->shape[dim] : 1;
    if (!k_indices_ok(ix, n)) return CT_ERR_INDEX;
    if (k_numel(ix->ndim, ix->shape) == 0) return CT_OK;
    const ct_dtype dt = o->dtype;
    const size_t isz = ct__itemsize(dt), xsz = ct__itemsize(ix->dtype);
    k_walk w = {ix->ndim, {0}, {0}};
    for (int d = 0; d < ix->ndim; d++)
        w.shape[d] = ix->shape[d];
    do {
        int64_t v =
            ct_k_load_i64((const char *)ix->data + k_off(ix, w.idx, -1) * (int64_t)xsz, ix->dtype);
        char *dst = (char *)o->data +
                    (k_off(o, w.idx, o->ndim ? dim : -1) + (o->ndim ? v * o->strides[dim] : 0)) *
                        (int64_t)isz;
        const char *s = (const char *)src->data + k_off(src, w.idx, -1) * (int64_t)isz;
        if (!add) {
            memcpy(dst, s, isz);
        } else if (ct_k_is_float(dt)) { /* one rounding to the dtype per addition, as torch */
            ct_k_store_f64(dst, dt, ct_k_load_f64(dst, dt) + ct_k_load_f64(s, dt));
        } else { /* integers wrap */
            uint64_t a = (uint64_t)ct_k_load_i64(dst, dt), b = (uint64_t)ct_k_load_i64(s, dt);
            ct_k_store_i64(dst, dt, (int64_t)(a + b));
        }
    } while (k_walk_next(&w));
    return CT_OK;
}

/* ---- sort: stable bottom-up merge sort of row indices by key; NaN compares largest (torch puts
 * NaN last ascending, first descending); -0.0 equals 0.0 so ties keep their order ---- */
typedef struct {
    const char *row;
    ct_dtype dt;
    size_t isz;
    bool desc, is_float;
} k_sort_ctx;
/* true when element b must come before element a (strictly), i.e. they are out of order */
static bool k_sort_before(const k_sort_ctx *c, int64_t b, int64_t a) {
    if (c->is_float) {
        double x = ct_k_load_f64(c->row + a * (int64_t)c->isz, c->dt);
        double y = ct_k_load_f64(c->row + b * (int64_t)c->isz, c->dt);
        bool xn = x != x, yn = y != y;
        if (xn || yn) return c->desc ? (yn && !xn) : (xn && !yn);
        return c->desc ? y > x : y < x;
    }
    int64_t x = ct_k_load_i64(c->row + a * (int64_t)c->isz, c->dt);
    int64_t y = ct_k_load_i64(c->row + b * (int64_t)c->isz, c->dt);
    return c->desc ? y > x : y < x;
}

ct_status ct_k_sort(const ct_op_desc *op) {
    const ct_operand *ov = &op->operands[0], *oi = &op->operands[1], *x = &op->operands[2],
                     *w = &op->operands[3];
    const int64_t R = x->shape[0], N = x->shape[1];
    k_sort_ctx c = {NULL, x->dtype, ct__itemsize(x->dtype), op->ints[0] == 1,
                    ct_k_is_float(x->dtype)};
    int64_t *work = w->data;
    for (int64_t r = 0; r < R; r++) {
        c.row = (const char *)x->data + r * N * (int64_t)c.isz;
        int64_t *idx = (int64_t *)oi->data + r * N, *a = idx, *b = work;
        for (int64_t i = 0; i < N; i++)
            a[i] = i;
        for (int64_t width = 1; width < N; width *= 2) {
            for (int64_t lo = 0; lo < N; lo += 2 * width) {
                int64_t mid = lo + width < N ? lo + width : N;
                int64_t hi = lo + 2 * width < N ? lo + 2 * width : N;
                int64_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi)
                    b[k++] = k_sort_before(&c, a[j], a[i]) ? a[j++] : a[i++];
                while (i < mid)
                    b[k++] = a[i++];
                while (j < hi)
                    b[k++] = a[j++];
            }
            int64_t *t = a;
            a = b;
            b = t;
        }
        if (a != idx) memcpy(idx, a, (size_t)N * sizeof(int64_t));
        char *vrow = (char *)ov->data + r * N * (int64_t)c.isz;
        for (int64_t i = 0; i < N; i++)
            memcpy(vrow + i * (int64_t)c.isz, c.row + idx[i] * (int64_t)c.isz, c.isz);
    }
    return CT_OK;
}

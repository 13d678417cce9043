/* Reference kernels of the creation, shaping and indexing op kinds: CT_OP_LINSPACE (torch 1.13's
 * CPU linspace, rounding for rounding), CT_OP_TRIL (tril / triu over the last two dims),
 * CT_OP_GATHER and CT_OP_SCATTER (index_select, gather, take_along_dim, scatter, scatter_add,
 * one_hot). */
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/par.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    bool contig = true; /* the common case: one linear scan */
    int64_t expect = 1;
    for (int d = ix->ndim - 1; d >= 0 && contig; d--) {
        contig = ix->shape[d] == 1 || ix->strides[d] == expect;
        expect *= ix->shape[d];
    }
    if (contig && ix->dtype == CT_INT64) {
        const int64_t *p = ix->data;
        bool ok = true;
        for (int64_t i = 0; i < numel; i++)
            ok &= p[i] >= 0 && p[i] < n;
        return ok;
    }
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

/* gather, row by row: the output's last dim is walked with strides (no per-element offset
 * arithmetic over every dim) in chunks split over threads; each element is copied at its size.
 * The output is new, so indices are checked on the way (a bad one fails the op; the front end
 * drops the partly written output) instead of in a pass of their own. */
/* elements per claim: long runs keep the prefetch streams going */
#define K_GATHER_CHUNK (1 << 20)
#define K_GATHER_STREAM (32 << 20) /* bytes of output above which stores bypass the caches */
typedef struct {
    const ct_op_desc *op;
    int dim;
    int64_t L, nchunks, n;
    int bad;    /* set (atomically) by a chunk that met an index outside [0, n) */
    int stream; /* output beyond the last-level cache: non-temporal stores */
    const ct_k_isa *isa;
} k_gather_job;
static void k_gather_rows(void *arg, int64_t b, int64_t e) {
    k_gather_job *j = arg;
    const ct_operand *o = &j->op->operands[0], *in = &j->op->operands[1], *ix = &j->op->operands[2];
    const int nd = o->ndim, dim = j->dim, last = nd - 1;
    const size_t isz = ct__itemsize(o->dtype), xsz = ct__itemsize(ix->dtype);
    const bool i64 = ix->dtype == CT_INT64;
    const int64_t n = j->n;
    int64_t idx[CT_MAX_DIMS] = {0};
    bool bad = false;
    for (int64_t it = b; it < e; it++) {
        int64_t r = it / j->nchunks, c0 = (it % j->nchunks) * K_GATHER_CHUNK;
        int64_t c1 = c0 + K_GATHER_CHUNK < j->L ? c0 + K_GATHER_CHUNK : j->L;
        int64_t q = r; /* multi-index of the row's first element (last dim 0) */
        for (int d = last - 1; d >= 0; d--) {
            idx[d] = q % o->shape[d];
            q /= o->shape[d];
        }
        idx[last] = 0;
        const int64_t so = o->strides[last] * (int64_t)isz, sx = ix->strides[last] * (int64_t)xsz,
                      sin = dim == last ? 0 : in->strides[last] * (int64_t)isz,
                      sd = in->strides[dim] * (int64_t)isz;
        char *po = (char *)o->data + k_off(o, idx, -1) * (int64_t)isz + c0 * so;
        const char *pi = (const char *)ix->data + k_off(ix, idx, -1) * (int64_t)xsz + c0 * sx;
        const char *pin = (const char *)in->data + k_off(in, idx, dim) * (int64_t)isz + c0 * sin;
        if (i64 && isz == 4 && so == 4 && sx == 8 && sin == 0 && sd == 4) { /* 1-d rows */
            bad |= j->isa->gather_b32_i64((uint32_t *)(void *)po, (const int64_t *)(const void *)pi,
                                          (const uint32_t *)(const void *)pin, c1 - c0, (uint64_t)n,
                                          j->stream) != 0;
            continue;
        }
        for (int64_t c = c0; c < c1; c++, po += so, pi += sx, pin += sin) {
            int64_t v = i64 ? *(const int64_t *)pi : *(const int32_t *)pi;
            if (v < 0 || v >= n) {
                bad = true;
                continue;
            }
            const char *src = pin + v * sd;
            switch (isz) {
            case 8: memcpy(po, src, 8); break;
            case 4: memcpy(po, src, 4); break;
            case 2: memcpy(po, src, 2); break;
            default: memcpy(po, src, isz); break;
            }
        }
    }
    if (bad) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
}

ct_status ct_k_gather(const ct_op_desc *op, const ct_k_isa *isa) {
    const ct_operand *o = &op->operands[0], *in = &op->operands[1], *ix = &op->operands[2];
    const int dim = (int)op->ints[0];
    const int64_t n = in->ndim ? in->shape[dim] : 1;
    if (k_numel(o->ndim, o->shape) == 0) return k_indices_ok(ix, n) ? CT_OK : CT_ERR_INDEX;
    if (o->ndim == 0) { /* one element */
        if (ct_k_load_i64(ix->data, ix->dtype) != 0) return CT_ERR_INDEX;
        memcpy(o->data, in->data, ct__itemsize(o->dtype));
        return CT_OK;
    }
    k_gather_job j = {op, dim, o->shape[o->ndim - 1], 0, n, 0, 0, isa};
    j.stream = k_numel(o->ndim, o->shape) * (int64_t)ct__itemsize(o->dtype) >= K_GATHER_STREAM;
    j.nchunks = (j.L + K_GATHER_CHUNK - 1) / K_GATHER_CHUNK;
    int64_t items = k_numel(o->ndim, o->shape) / j.L * j.nchunks;
    int64_t grain = 65536 / (j.L < K_GATHER_CHUNK ? (j.L > 0 ? j.L : 1) : K_GATHER_CHUNK);
    ct_k_parallel_for(items, grain < 1 ? 1 : grain, op->num_threads, k_gather_rows, &j);
    return j.bad ? CT_ERR_INDEX : CT_OK;
}

/* dst = dst * s (3), max (4) or min (5) in dt: floats round once (the product of two values of a
 * float dtype is exact in double) and NaN wins the max / min, as torch; integers wrap; bool is and
 * / or / and. */
static void k_scatter_reduce(char *dst, const char *s, ct_dtype dt, int mode) {
    if (ct_k_is_float(dt)) {
        const double a = ct_k_load_f64(dst, dt), b = ct_k_load_f64(s, dt);
        double r = a;
        if (mode == 3)
            r = a * b;
        else if (b != b || (mode == 4 ? b > a : b < a))
            r = b; /* a NaN dst stays: no comparison with it is true */
        ct_k_store_f64(dst, dt, r);
    } else if (dt == CT_BOOL) {
        const uint8_t a = *(const uint8_t *)dst, b = *(const uint8_t *)s;
        *(uint8_t *)dst = (uint8_t)(mode == 4 ? (a | b) : (a & b));
    } else {
        const int64_t a = ct_k_load_i64(dst, dt), b = ct_k_load_i64(s, dt);
        int64_t r = a;
        if (mode == 3)
            r = (int64_t)((uint64_t)a * (uint64_t)b);
        else if (mode == 4 ? b > a : b < a)
            r = b;
        ct_k_store_i64(dst, dt, r);
    }
}

ct_status ct_k_scatter(const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *ix = &op->operands[1], *src = &op->operands[2];
    const int dim = (int)op->ints[0];
    /* 0 copy, 1 add, 2 add alpha * src fused (floats), 3 multiply, 4 max, 5 min */
    const int add = (int)op->ints[1];
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
        } else if (add >= 3) { /* scatter_reduce: prod, amax, amin */
            k_scatter_reduce(dst, s, dt, add);
        } else if (add == 2) { /* fma(alpha, src, dst) in the opmath type, rounded once */
            const double a = ct_k_load_f64(s, dt), b = ct_k_load_f64(dst, dt);
            ct_k_store_f64(dst, dt,
                           dt == CT_FLOAT64
                               ? fma(op->scalars[0], a, b)
                               : (double)fmaf((float)op->scalars[0], (float)a, (float)b));
        } else if (ct_k_is_float(dt)) { /* one rounding to the dtype per addition, as torch */
            ct_k_store_f64(dst, dt, ct_k_load_f64(dst, dt) + ct_k_load_f64(s, dt));
        } else if (dt == CT_BOOL) { /* bool + bool is true when either is (as torch) */
            *(uint8_t *)dst = (uint8_t)(*(const uint8_t *)dst | *(const uint8_t *)s);
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

/* ---- topk: the k first elements of the stable sort order (NaN largest), by a bounded heap ----
 * The heap (in the output index row) holds the best k so far with the worst at its root; an
 * element replaces the root only when it sorts strictly before it (ties keep the lower index, as
 * the stable sort does), so the selected set and its final order equal the full sort's first k. */
static bool k_topk_better(const k_sort_ctx *c, int64_t i, int64_t j) {
    if (k_sort_before(c, i, j)) return true;
    if (k_sort_before(c, j, i)) return false;
    return i < j;
}
static void k_topk_sift(const k_sort_ctx *c, int64_t *h, int64_t n, int64_t at) {
    for (;;) {
        int64_t l = 2 * at + 1, r = l + 1, w = at;
        if (l < n && k_topk_better(c, h[w], h[l])) w = l; /* the worse child goes up */
        if (r < n && k_topk_better(c, h[w], h[r])) w = r;
        if (w == at) return;
        int64_t t = h[at];
        h[at] = h[w], h[w] = t;
        at = w;
    }
}
ct_status ct_k_topk(const ct_op_desc *op) {
    const ct_operand *ov = &op->operands[0], *oi = &op->operands[1], *x = &op->operands[2];
    const int64_t R = x->shape[0], N = x->shape[1], K = op->ints[0];
    k_sort_ctx c = {NULL, x->dtype, ct__itemsize(x->dtype), op->ints[1] == 1,
                    ct_k_is_float(x->dtype)};
    for (int64_t r = 0; r < R; r++) {
        c.row = (const char *)x->data + r * N * (int64_t)c.isz;
        int64_t *h = (int64_t *)oi->data + r * K, n = 0;
        for (int64_t i = 0; i < N && K > 0; i++) {
            if (n < K) { /* grow: sift the new element up towards the root */
                int64_t at = n++;
                h[at] = i;
                while (at > 0 && k_topk_better(&c, h[(at - 1) / 2], h[at])) {
                    int64_t p = (at - 1) / 2, t = h[p];
                    h[p] = h[at], h[at] = t;
                    at = p;
                }
            } else if (k_topk_better(&c, i, h[0])) {
                h[0] = i;
                k_topk_sift(&c, h, n, 0);
            }
        }
        /* heap order to sorted order: repeatedly move the worst to the end */
        for (int64_t m = n - 1; m > 0; m--) {
            int64_t t = h[0];
            h[0] = h[m], h[m] = t;
            k_topk_sift(&c, h, m, 0);
        }
        char *vrow = (char *)ov->data + r * K * (int64_t)c.isz;
        for (int64_t i = 0; i < K; i++)
            memcpy(vrow + i * (int64_t)c.isz, c.row + h[i] * (int64_t)c.isz, c.isz);
    }
    return CT_OK;
}

/* Reductions (sum, mean, amax, amin, argmax, prod) over any set of dims, cumulative sums and
 * products along one dim, and softmax / log_softmax rows.
 * Kept dims are iterated outside (split over threads), reduced dims inside; a reduced run that is
 * contiguous f32/f64 goes to the ISA table. Float sums of non-contiguous runs accumulate in double;
 * integer sums in int64 (wrapping). */
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/par.h"

#include <math.h>

static int64_t ct__numel_k(int n, const int64_t *shape) {
    int64_t r = 1;
    for (int i = 0; i < n; i++)
        r *= shape[i];
    return r;
}

typedef struct {
    int nk, nr; /* kept / reduced dims after coalescing */
    int64_t kshape[CT_MAX_DIMS], kin[CT_MAX_DIMS], kout[CT_MAX_DIMS];
    int64_t rshape[CT_MAX_DIMS], rin[CT_MAX_DIMS];
    int64_t nkept, nred;
} ct_k_rgeom;

static void ct_k_coalesce(int *n, int64_t *shape, int64_t *s1, int64_t *s2) {
    int w = 0;
    for (int d = 0; d < *n; d++) {
        if (shape[d] == 1) continue;
        if (w > 0 && s1[w - 1] == s1[d] * shape[d] && (!s2 || s2[w - 1] == s2[d] * shape[d])) {
            shape[w - 1] *= shape[d];
            s1[w - 1] = s1[d];
            if (s2) s2[w - 1] = s2[d];
            continue;
        }
        shape[w] = shape[d];
        s1[w] = s1[d];
        if (s2) s2[w] = s2[d];
        w++;
    }
    *n = w;
}

/* in: the input operand; out: output in keepdim layout (or NULL); mask: reduced dims. Strides in
 * elements. */
static void ct_k_rgeom_build(const ct_operand *in, const ct_operand *out, uint32_t mask,
                             ct_k_rgeom *g) {
    g->nk = g->nr = 0;
    for (int d = 0; d < in->ndim; d++) {
        if (mask >> d & 1u) {
            g->rshape[g->nr] = in->shape[d];
            g->rin[g->nr++] = in->strides[d];
        } else {
            g->kshape[g->nk] = in->shape[d];
            g->kin[g->nk] = in->strides[d];
            g->kout[g->nk++] = out ? out->strides[d] : 0;
        }
    }
    ct_k_coalesce(&g->nk, g->kshape, g->kin, g->kout);
    ct_k_coalesce(&g->nr, g->rshape, g->rin, NULL);
    g->nkept = ct__numel_k(g->nk, g->kshape);
    g->nred = ct__numel_k(g->nr, g->rshape);
}

/* Offsets (elements) of kept index `i` into input and output. */
static void ct_k_kept_offsets(const ct_k_rgeom *g, int64_t i, int64_t *oin, int64_t *oout) {
    int64_t a = 0, b = 0;
    for (int d = g->nk - 1; d >= 0 && i > 0; d--) {
        int64_t idx = i % g->kshape[d];
        i /= g->kshape[d];
        a += idx * g->kin[d];
        b += idx * g->kout[d];
    }
    *oin = a;
    *oout = b;
}

/* Calls BODY(off) for every reduced element offset (in elements), in row-major order. */
#define CT_K_FOR_REDUCED(g, BODY)                                                                  \
    do {                                                                                           \
        int64_t idx_[CT_MAX_DIMS] = {0}, off_ = 0;                                                 \
        if ((g)->nred == 0) break;                                                                 \
        for (;;) {                                                                                 \
            BODY(off_);                                                                            \
            int d_ = (g)->nr - 1;                                                                  \
            for (; d_ >= 0; d_--) {                                                                \
                off_ += (g)->rin[d_];                                                              \
                if (++idx_[d_] < (g)->rshape[d_]) break;                                           \
                off_ -= idx_[d_] * (g)->rin[d_];                                                   \
                idx_[d_] = 0;                                                                      \
            }                                                                                      \
            if (d_ < 0) break;                                                                     \
        }                                                                                          \
    } while (0)

/* Reduce one output element. */
static void ct_k_reduce_one(const ct_op_desc *op, const ct_k_rgeom *g, const ct_k_isa *isa,
                            const char *in, ct_dtype idt, char *out, ct_dtype odt) {
    ct_op_kind k = op->kind;
    size_t isz = ct__itemsize(idt);
    bool contig = g->nr == 1 && g->rin[0] == 1;
    if (g->nr == 0) contig = true; /* nothing or a single element */
    if (k == CT_OP_SUM || k == CT_OP_MEAN) {
        if (ct_k_is_float(idt)) {
            double acc = 0;
            if (contig && idt == CT_FLOAT32 && g->nred > 0)
                acc = isa->red_f32[CT_K_RSUM](g->nred, (const float *)in);
            else if (contig && idt == CT_FLOAT64 && g->nred > 0)
                acc = isa->red_f64[CT_K_RSUM](g->nred, (const double *)in);
            else {
#define CT_K_ACC_F(off) acc += ct_k_load_f64(in + (off) * (int64_t)isz, idt)
                CT_K_FOR_REDUCED(g, CT_K_ACC_F);
            }
            if (k == CT_OP_MEAN) acc = g->nred ? acc / (double)g->nred : NAN;
            ct_k_store_f64(out, odt, acc);
        } else {
            uint64_t acc = 0;
#define CT_K_ACC_I(off) acc += (uint64_t)ct_k_load_i64(in + (off) * (int64_t)isz, idt)
            CT_K_FOR_REDUCED(g, CT_K_ACC_I);
            ct_k_store_i64(out, odt, (int64_t)acc);
        }
        return;
    }
    if (k == CT_OP_PROD) {
        if (ct_k_is_float(idt)) {
            double acc = 1;
#define CT_K_MUL_F(off) acc *= ct_k_load_f64(in + (off) * (int64_t)isz, idt)
            CT_K_FOR_REDUCED(g, CT_K_MUL_F);
            ct_k_store_f64(out, odt, acc);
        } else {
            uint64_t acc = 1; /* wraps modulo 2^64 as torch's int64 product */
#define CT_K_MUL_I(off) acc *= (uint64_t)ct_k_load_i64(in + (off) * (int64_t)isz, idt)
            CT_K_FOR_REDUCED(g, CT_K_MUL_I);
            ct_k_store_i64(out, odt, (int64_t)acc);
        }
        return;
    }
    bool is_max = k == CT_OP_AMAX || k == CT_OP_ARGMAX;
    if (k != CT_OP_ARGMAX && contig && idt == CT_FLOAT32) {
        *(float *)out = isa->red_f32[is_max ? CT_K_RMAX : CT_K_RMIN](g->nred, (const float *)in);
        return;
    }
    if (k != CT_OP_ARGMAX && contig && idt == CT_FLOAT64) {
        *(double *)out = isa->red_f64[is_max ? CT_K_RMAX : CT_K_RMIN](g->nred, (const double *)in);
        return;
    }
    int64_t best_i = 0, pos = 0;
    if (ct_k_is_float(idt)) {
        double best = ct_k_load_f64(in, idt);
        bool done = best != best;
#define CT_K_MM_F(off)                                                                             \
    do {                                                                                           \
        if (!done) {                                                                               \
            double v = ct_k_load_f64(in + (off) * (int64_t)isz, idt);                              \
            if (v != v) {                                                                          \
                best = v, best_i = pos, done = true;                                               \
            } else if (is_max ? v > best : v < best) {                                             \
                best = v, best_i = pos;                                                            \
            }                                                                                      \
        }                                                                                          \
        pos++;                                                                                     \
    } while (0)
        CT_K_FOR_REDUCED(g, CT_K_MM_F);
        if (k == CT_OP_ARGMAX)
            *(int64_t *)out = best_i;
        else
            ct_k_store_f64(out, odt, best);
    } else {
        int64_t best = ct_k_load_i64(in, idt);
#define CT_K_MM_I(off)                                                                             \
    do {                                                                                           \
        int64_t v = ct_k_load_i64(in + (off) * (int64_t)isz, idt);                                 \
        if (is_max ? v > best : v < best) best = v, best_i = pos;                                  \
        pos++;                                                                                     \
    } while (0)
        CT_K_FOR_REDUCED(g, CT_K_MM_I);
        if (k == CT_OP_ARGMAX)
            *(int64_t *)out = best_i;
        else
            ct_k_store_i64(out, odt, best);
    }
}

/* Column path: the innermost kept dim is contiguous in input and output and the reduced dims lie
 * outside it (e.g. a sum over dim 0 of a row-major matrix). Each work item owns a tile of up to
 * CT_K_TILE output columns, walks the reduced rows once and updates the whole tile per row, so
 * memory is read in order and the inner loop vectorises. Sums accumulate in double. */
#define CT_K_TILE 2048
/* clang-format off */
typedef struct {
    const ct_op_desc *op;
    const ct_k_rgeom *g;
    const ct_k_isa *isa;
    int64_t L, ntiles;
} ct_k_cols_job;
#define CT_K_COLS(T)                                                                               \
    static void ct_k_cols_range_##T(void *arg, int64_t b, int64_t e) {                            \
        const ct_k_cols_job *jb = arg;                                                             \
        const ct_op_desc *op = jb->op;                                                             \
        const ct_k_rgeom *g = jb->g;                                                               \
        int64_t L = jb->L, ntiles = jb->ntiles;                                                    \
        const ct_operand *out = &op->operands[0], *in = &op->operands[1];                          \
        ct_op_kind k = op->kind;                                                                   \
        for (int64_t it = b; it < e; it++) {                                                       \
            int64_t oi, oo, j0 = (it % ntiles) * CT_K_TILE;                                        \
            int64_t w = L - j0 < CT_K_TILE ? L - j0 : CT_K_TILE;                                   \
            ct_k_kept_offsets(g, (it / ntiles) * L, &oi, &oo);                                     \
            const T *x = (const T *)in->data + oi + j0;                                            \
            T *y = (T *)out->data + oo + j0;                                                       \
            if (k == CT_OP_SUM || k == CT_OP_MEAN) {                                               \
                double acc[CT_K_TILE];                                                             \
                for (int64_t j = 0; j < w; j++) acc[j] = 0;                                        \
                if (g->nr == 1)                                                                    \
                    jb->isa->col_sum_##T(acc, x, w, g->rshape[0], g->rin[0]);                      \
                else                                                                               \
                    CT_K_FOR_REDUCED(g, CT_K_COL_SUM);                                             \
                for (int64_t j = 0; j < w; j++)                                                    \
                    y[j] = (T)(k == CT_OP_MEAN ? acc[j] / (double)g->nred : acc[j]);               \
            } else {                                                                               \
                T acc[CT_K_TILE];                                                                  \
                bool mx = k == CT_OP_AMAX;                                                         \
                for (int64_t j = 0; j < w; j++) acc[j] = x[j];                                     \
                CT_K_FOR_REDUCED(g, CT_K_COL_MM);                                                  \
                for (int64_t j = 0; j < w; j++) y[j] = acc[j];                                     \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void ct_k_cols_##T(const ct_op_desc *op, const ct_k_rgeom *g, const ct_k_isa *isa,      \
                              int64_t L) {                                                         \
        ct_k_cols_job jb = {op, g, isa, L, (L + CT_K_TILE - 1) / CT_K_TILE};                       \
        int64_t items = (g->nkept / L) * jb.ntiles, per_item = CT_K_TILE * g->nred;                \
        int64_t grain = 32768 / (per_item > 0 ? per_item : 1);                                     \
        ct_k_parallel_for(items, grain < 1 ? 1 : grain, op->num_threads, ct_k_cols_range_##T,      \
                          &jb);                                                                    \
    }
#define CT_K_COL_SUM(off)                                                                          \
    for (int64_t j = 0; j < w; j++) acc[j] += (double)x[(off) + j]
#define CT_K_COL_MM(off)                                                                           \
    for (int64_t j = 0; j < w; j++) {                                                              \
        __typeof__(acc[0]) v = x[(off) + j];                                                       \
        acc[j] = ((mx ? v > acc[j] : v < acc[j]) || v != v) ? v : acc[j];                          \
    }
/* clang-format on */
CT_K_COLS(float)
CT_K_COLS(double)

typedef struct {
    const ct_op_desc *op;
    const ct_k_rgeom *g;
    const ct_k_isa *isa;
} ct_k_red_job;

/* Reduce output elements [b, e) (kept indices). */
static void ct_k_red_range(void *arg, int64_t b, int64_t e) {
    const ct_k_red_job *jb = arg;
    const ct_operand *out = &jb->op->operands[0], *in = &jb->op->operands[1];
    size_t isz = ct__itemsize(in->dtype), osz = ct__itemsize(out->dtype);
    for (int64_t i = b; i < e; i++) {
        int64_t oi, oo;
        ct_k_kept_offsets(jb->g, i, &oi, &oo);
        ct_k_reduce_one(jb->op, jb->g, jb->isa, (const char *)in->data + oi * (int64_t)isz,
                        in->dtype, (char *)out->data + oo * (int64_t)osz, out->dtype);
    }
}

ct_status ct_k_reduce(const ct_op_desc *op, const ct_k_isa *isa);
ct_status ct_k_reduce(const ct_op_desc *op, const ct_k_isa *isa) {
    const ct_operand *out = &op->operands[0], *in = &op->operands[1];
    ct_k_rgeom g;
    ct_k_rgeom_build(in, out, op->reduce_mask, &g);
    ct_op_kind k = op->kind;
    bool fl = in->dtype == CT_FLOAT32 || in->dtype == CT_FLOAT64;
    if (fl && out->dtype == in->dtype && k != CT_OP_ARGMAX && k != CT_OP_PROD && g.nk >= 1 &&
        g.nr >= 1 && g.kin[g.nk - 1] == 1 && g.kout[g.nk - 1] == 1 && g.nred > 0 &&
        g.kshape[g.nk - 1] >= 8) {
        if (in->dtype == CT_FLOAT32)
            ct_k_cols_float(op, &g, isa, g.kshape[g.nk - 1]);
        else
            ct_k_cols_double(op, &g, isa, g.kshape[g.nk - 1]);
        return CT_OK;
    }
    ct_k_red_job jb = {op, &g, isa};
    int64_t grain = 32768 / (g.nred > 0 ? g.nred : 1);
    ct_k_parallel_for(g.nkept, grain < 1 ? 1 : grain, op->num_threads, ct_k_red_range, &jb);
    return CT_OK;
}

typedef struct {
    const ct_op_desc *op;
    const ct_k_rgeom *g;
    const ct_k_isa *isa;
    int64_t n, sin, sout;
    int is_log;
} ct_k_smax_job;

/* softmax rows [b, e). */
static void ct_k_smax_range(void *arg, int64_t b, int64_t e) {
    const ct_k_smax_job *jb = arg;
    const ct_operand *out = &jb->op->operands[0], *in = &jb->op->operands[1];
    const ct_k_rgeom *g = jb->g;
    const ct_k_isa *isa = jb->isa;
    int64_t n = jb->n, sin = jb->sin, sout = jb->sout;
    int is_log = jb->is_log;
    ct_dtype dt = in->dtype;
    size_t sz = ct__itemsize(dt);
    if (dt == CT_FLOAT32 && sin == 1 && sout == 1 && g->nk == 1 && g->kin[0] == n &&
        g->kout[0] == n) { /* contiguous rows */
        isa->softmax_rows_f32(e - b, n, (float *)out->data + b * n, (const float *)in->data + b * n,
                              is_log);
        return;
    }
    for (int64_t i = b; i < e; i++) {
        int64_t oi, oo;
        ct_k_kept_offsets(g, i, &oi, &oo);
        const char *x = (const char *)in->data + oi * (int64_t)sz;
        char *y = (char *)out->data + oo * (int64_t)sz;
        if (dt == CT_FLOAT32 && sin == 1 && sout == 1) {
            isa->softmax_f32(n, (float *)y, (const float *)x, is_log);
            continue;
        }
        /* generic strided row in double, stored once */
        double m = -INFINITY;
        bool nan = false;
        for (int64_t j = 0; j < n; j++) {
            double v = ct_k_load_f64(x + j * sin * (int64_t)sz, dt);
            if (v != v) nan = true;
            if (v > m) m = v;
        }
        double s = 0;
        for (int64_t j = 0; j < n; j++)
            s += exp(ct_k_load_f64(x + j * sin * (int64_t)sz, dt) - m);
        double lse = log(s);
        for (int64_t j = 0; j < n; j++) {
            double v = ct_k_load_f64(x + j * sin * (int64_t)sz, dt) - m;
            double r = nan ? NAN : is_log ? v - lse : exp(v) / s;
            ct_k_store_f64(y + j * sout * (int64_t)sz, dt, r);
        }
    }
}

/* softmax / log_softmax along dim ints[0]: rows over every other index. */
ct_status ct_k_softmax(const ct_op_desc *op, const ct_k_isa *isa) {
    const ct_operand *out = &op->operands[0], *in = &op->operands[1];
    int dim = (int)op->ints[0];
    int is_log = op->kind == CT_OP_LOG_SOFTMAX;
    ct_k_rgeom g;
    ct_k_rgeom_build(in, out, in->ndim ? 1u << dim : 0u, &g);
    int64_t n = in->ndim ? in->shape[dim] : 1;
    int64_t sin = in->ndim ? in->strides[dim] : 1, sout = out->ndim ? out->strides[dim] : 1;
    if (n == 0 || g.nkept == 0) return CT_OK;
    ct_k_smax_job jb = {op, &g, isa, n, sin, sout, is_log};
    int64_t grain = 8192 / n;
    ct_k_parallel_for(g.nkept, grain < 1 ? 1 : grain, op->num_threads, ct_k_smax_range, &jb);
    return CT_OK;
}

typedef struct {
    const ct_op_desc *op;
    const ct_k_rgeom *g;
    int64_t n, sin, sout;
} ct_k_scan_job;

/* cumprod's gradient along a row, exact with zeros (no division): with P_i = prod_{j<i} x_j and
 * S_i = g_i + x_{i+1} S_{i+1} (a reverse scan), dx_i = P_i S_i. ints[1] == 2; in0 x, in1 g. */
static void ct_k_cumprod_grad_row(const ct_k_scan_job *jb, const char *x, const char *g, char *y,
                                  int64_t sg, ct_dtype dt, size_t sz) {
    int64_t n = jb->n;
    double s = 0;
    for (int64_t j = n - 1; j >= 0; j--) { /* y_j = S_j first */
        double gj = ct_k_load_f64(g + j * sg * (int64_t)sz, dt);
        double xn = j + 1 < n ? ct_k_load_f64(x + (j + 1) * jb->sin * (int64_t)sz, dt) : 0;
        s = j + 1 < n ? gj + xn * s : gj;
        ct_k_store_f64(y + j * jb->sout * (int64_t)sz, dt, s);
    }
    double p = 1;
    for (int64_t j = 0; j < n; j++) { /* then times the exclusive prefix product */
        double sj = ct_k_load_f64(y + j * jb->sout * (int64_t)sz, dt);
        ct_k_store_f64(y + j * jb->sout * (int64_t)sz, dt, p * sj);
        p *= ct_k_load_f64(x + j * jb->sin * (int64_t)sz, dt);
    }
}

/* cumsum / cumprod rows [b, e): a running double (floats) or wrapping int64 (integers), each
 * output the running value rounded once. */
static void ct_k_scan_range(void *arg, int64_t b, int64_t e) {
    const ct_k_scan_job *jb = arg;
    const ct_operand *out = &jb->op->operands[0], *in = &jb->op->operands[1];
    ct_dtype idt = in->dtype, odt = out->dtype;
    size_t isz = ct__itemsize(idt), osz = ct__itemsize(odt);
    bool prod = jb->op->ints[1] == 1, fl = ct_k_is_float(idt), grad = jb->op->ints[1] == 2;
    for (int64_t i = b; i < e; i++) {
        int64_t oi, oo;
        ct_k_kept_offsets(jb->g, i, &oi, &oo);
        const char *x = (const char *)in->data + oi * (int64_t)isz;
        char *y = (char *)out->data + oo * (int64_t)osz;
        if (grad) { /* g has out's layout (the front end makes both contiguous) */
            const ct_operand *gop = &jb->op->operands[2];
            const char *g = (const char *)gop->data + oo * (int64_t)osz;
            ct_k_cumprod_grad_row(jb, x, g, y, jb->sout, idt, isz);
            continue;
        }
        if (fl) {
            double acc = prod ? 1 : 0;
            for (int64_t j = 0; j < jb->n; j++) {
                double v = ct_k_load_f64(x + j * jb->sin * (int64_t)isz, idt);
                acc = prod ? acc * v : acc + v;
                ct_k_store_f64(y + j * jb->sout * (int64_t)osz, odt, acc);
            }
        } else {
            uint64_t acc = prod ? 1 : 0;
            for (int64_t j = 0; j < jb->n; j++) {
                uint64_t v = (uint64_t)ct_k_load_i64(x + j * jb->sin * (int64_t)isz, idt);
                acc = prod ? acc * v : acc + v;
                ct_k_store_i64(y + j * jb->sout * (int64_t)osz, odt, (int64_t)acc);
            }
        }
    }
}

ct_status ct_k_cumsum(const ct_op_desc *op);
ct_status ct_k_cumsum(const ct_op_desc *op) {
    const ct_operand *out = &op->operands[0], *in = &op->operands[1];
    int dim = (int)op->ints[0];
    ct_k_rgeom g;
    ct_k_rgeom_build(in, out, in->ndim ? 1u << dim : 0u, &g);
    int64_t n = in->ndim ? in->shape[dim] : 1;
    int64_t sin = in->ndim ? in->strides[dim] : 1, sout = out->ndim ? out->strides[dim] : 1;
    if (n == 0 || g.nkept == 0) return CT_OK;
    ct_k_scan_job jb = {op, &g, n, sin, sout};
    int64_t grain = 16384 / n;
    ct_k_parallel_for(g.nkept, grain < 1 ? 1 : grain, op->num_threads, ct_k_scan_range, &jb);
    return CT_OK;
}

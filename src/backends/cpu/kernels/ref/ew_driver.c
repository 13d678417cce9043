/* The n-d elementwise driver: coalesce dims, split work over the context's threads (par.h), call
 * inner loops. */
#include "backends/cpu/kernels/ew.h"
#include "backends/cpu/kernels/par.h"

#include <math.h>

void ct_k_geom_build(const ct_op_desc *op, ct_k_geom *g) {
    int nops = op->n_out + op->n_in, nd = 0;
    const ct_operand *o0 = &op->operands[0];
    g->nops = nops;
    for (int d = 0; d < o0->ndim; d++) {
        if (o0->shape[d] == 1) continue;
        g->shape[nd] = o0->shape[d];
        for (int k = 0; k < nops; k++)
            g->bstr[k][nd] =
                op->operands[k].strides[d] * (int64_t)ct__itemsize(op->operands[k].dtype);
        nd++;
    }
    /* merge dim d into d+1 when, for every operand, stride[d] == stride[d+1] * shape[d+1] */
    int w = 0;
    for (int d = 0; d < nd; d++) {
        if (w > 0) {
            bool ok = true;
            for (int k = 0; k < nops && ok; k++)
                ok = g->bstr[k][w - 1] == g->bstr[k][d] * g->shape[d];
            if (ok) {
                g->shape[w - 1] *= g->shape[d];
                for (int k = 0; k < nops; k++)
                    g->bstr[k][w - 1] = g->bstr[k][d];
                continue;
            }
        }
        g->shape[w] = g->shape[d];
        for (int k = 0; k < nops; k++)
            g->bstr[k][w] = g->bstr[k][d];
        w++;
    }
    if (w == 0) { /* one element: a contiguous run of 1, so it takes the same (ISA) loop as
                   * that element inside a larger tensor would */
        g->shape[0] = 1;
        for (int k = 0; k < nops; k++)
            g->bstr[k][0] = (int64_t)ct__itemsize(op->operands[k].dtype);
        w = 1;
    }
    g->ndim = w;
}

typedef struct {
    const ct_op_desc *op;
    const ct_k_geom *g;
    ct_k_loop loop;
    ct_k_contig contig;
    ct_k_contig_bc contig_bc;
    const void *fn;
    bool is_contig;
    int64_t chunk, nchunks;
} ct_k_ew_job;

/* Items [b, e) (item = row * nchunks + chunk): the start of item b from its row index, then the
 * rows after it by an odometer over the outer dims (no division per item). Offsets are kept in
 * bytes from each operand's start, so no pointer is formed outside its tensor. */
#if defined(__GNUC__) && !defined(__clang__)
/* the per-operand loops run 2-4 times: GCC's vectorised form of them cost more than the rows */
__attribute__((optimize("no-tree-vectorize")))
#endif
static void
ct_k_ew_range(void *arg, int64_t b, int64_t e) {
    const ct_k_ew_job *j = arg;
    const ct_k_geom *g = j->g;
    const int nd = g->ndim, nops = g->nops;
    if (b >= e) return;
    int64_t row = b / j->nchunks, c = b % j->nchunks;
    const int64_t inner = g->shape[nd - 1];
    int64_t idx[CT_MAX_DIMS] = {0}, off[CT_OP_MAX_OPERANDS] = {0}, s[CT_OP_MAX_OPERANDS];
    char *base[CT_OP_MAX_OPERANDS], *p[CT_OP_MAX_OPERANDS];
    for (int k = 0; k < nops; k++) {
        base[k] = (char *)j->op->operands[k].data;
        s[k] = g->bstr[k][nd - 1];
    }
    for (int d = nd - 2; d >= 0 && row > 0; d--) {
        idx[d] = row % g->shape[d];
        row /= g->shape[d];
        for (int k = 0; k < nops; k++)
            off[k] += idx[d] * g->bstr[k][d];
    }
    for (int64_t it = b; it < e; it++) {
        const int64_t start = c * j->chunk, n = inner - start < j->chunk ? inner - start : j->chunk;
        for (int k = 0; k < nops; k++)
            p[k] = base[k] + off[k] + start * s[k];
        if (!j->is_contig)
            j->loop(n, p, s, j->op);
        else if (j->contig_bc)
            j->contig_bc(n, p, s, j->op, j->fn);
        else
            j->contig(n, p, j->op, j->fn);
        if (++c < j->nchunks || it + 1 == e) continue;
        c = 0; /* the next row */
        for (int d = nd - 2; d >= 0; d--) {
            if (++idx[d] < g->shape[d]) {
                for (int k = 0; k < nops; k++)
                    off[k] += g->bstr[k][d];
                break;
            }
            idx[d] = 0;
            for (int k = 0; k < nops; k++)
                off[k] -= (g->shape[d] - 1) * g->bstr[k][d];
        }
    }
}

static void ct_k_drive(const ct_op_desc *op, ct_k_loop loop, ct_k_contig contig,
                       ct_k_contig_bc contig_bc, const void *fn) {
    ct_k_geom g;
    ct_k_geom_build(op, &g);
    int64_t numel = 1;
    for (int d = 0; d < g.ndim; d++)
        numel *= g.shape[d];
    if (numel == 0) return;
    ct_k_ew_job j = {op, &g, loop, contig, contig_bc, fn, false, 0, 1};
    if (contig || contig_bc) {
        j.is_contig = true;
        for (int k = 0; k < g.nops && j.is_contig; k++) {
            const int64_t st = g.bstr[k][g.ndim - 1];
            j.is_contig = st == (int64_t)ct__itemsize(op->operands[k].dtype) ||
                          (contig_bc && k >= op->n_out && st == 0);
        }
    }
    int64_t inner = g.shape[g.ndim - 1], outer = numel / inner;
    int64_t grain = ct_k_grain_of(op->kind);
    int nt = numel >= 2 * grain ? op->num_threads : 1;
    /* long rows are cut into grain-sized pieces (64-element aligned) so a few rows still give
     * enough chunks to balance */
    j.chunk = nt > 1 && inner > grain ? (grain + 63) & ~(int64_t)63 : inner;
    j.nchunks = (inner + j.chunk - 1) / j.chunk;
    int64_t items = outer * j.nchunks;
    int64_t item_grain = grain / (j.chunk < inner ? j.chunk : inner);
    ct_k_parallel_for(items, item_grain < 1 ? 1 : item_grain, nt, ct_k_ew_range, &j);
}

void ct_k_ew_drive(const ct_op_desc *op, ct_k_loop loop, ct_k_contig contig, const void *fn) {
    ct_k_drive(op, loop, contig, NULL, fn);
}

void ct_k_ew_drive_bc(const ct_op_desc *op, ct_k_loop loop, ct_k_contig_bc contig, const void *fn) {
    ct_k_drive(op, loop, NULL, contig, fn);
}

double ct_k_load_f64(const void *p, ct_dtype dt) {
    switch (dt) {
    case CT_BOOL: return *(const uint8_t *)p ? 1.0 : 0.0; /* any nonzero byte is true */
    case CT_UINT8: return *(const uint8_t *)p;
    case CT_INT8: return *(const int8_t *)p;
    case CT_INT16: return *(const int16_t *)p;
    case CT_INT32: return *(const int32_t *)p;
    case CT_INT64: return (double)*(const int64_t *)p;
    case CT_FLOAT16: return ct__h2f(*(const uint16_t *)p);
    case CT_BFLOAT16: return ct__bf2f(*(const uint16_t *)p);
    case CT_FLOAT32: return *(const float *)p;
    case CT_FLOAT64: return *(const double *)p;
    default: return NAN;
    }
}

int64_t ct_k_load_i64(const void *p, ct_dtype dt) {
    switch (dt) {
    case CT_BOOL: return *(const uint8_t *)p != 0;
    case CT_UINT8: return *(const uint8_t *)p;
    case CT_INT8: return *(const int8_t *)p;
    case CT_INT16: return *(const int16_t *)p;
    case CT_INT32: return *(const int32_t *)p;
    case CT_INT64: return *(const int64_t *)p;
    default: {
        /* float -> int: truncation with x86's integer-indefinite result (as PyTorch) */
        return ct__f2i64_x86(ct_k_load_f64(p, dt));
    }
    }
}

void ct_k_store_i64(void *p, ct_dtype dt, int64_t v) {
    switch (dt) {
    case CT_BOOL: *(bool *)p = v != 0; break;
    case CT_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case CT_INT8: *(int8_t *)p = (int8_t)v; break;
    case CT_INT16: *(int16_t *)p = (int16_t)v; break;
    case CT_INT32: *(int32_t *)p = (int32_t)v; break;
    case CT_INT64: *(int64_t *)p = v; break;
    case CT_FLOAT16: *(uint16_t *)p = ct__f2h((float)v); break;
    case CT_BFLOAT16: *(uint16_t *)p = ct__f2bf((float)v); break;
    case CT_FLOAT32: *(float *)p = (float)v; break;
    case CT_FLOAT64: *(double *)p = (double)v; break;
    default: break;
    }
}

void ct_k_store_f64(void *p, ct_dtype dt, double v) {
    switch (dt) {
    case CT_BOOL: *(bool *)p = v != 0; break;
    case CT_FLOAT16: *(uint16_t *)p = ct__f2h((float)v); break;
    case CT_BFLOAT16: *(uint16_t *)p = ct__f2bf((float)v); break;
    case CT_FLOAT32: *(float *)p = (float)v; break;
    case CT_FLOAT64: *(double *)p = v; break;
    default: {
        /* as PyTorch on x86: int8/int16 through int32, NaN/inf/out of range give the
         * integer-indefinite value's low bits */
        int64_t i = ct__f2int_torch(v, dt);
        ct_k_store_i64(p, dt, i);
    }
    }
}

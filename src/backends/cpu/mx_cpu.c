/* CPU backend kernels of CT_OP_MX_QUANTIZE / MX_DEQUANTIZE / MX_LINEAR: f16/bf16 widening, the
 * split of rows x blocks over OpenMP threads, and the ISA's mx_* kernel table. The mx front end
 * validates, moves the blocking axis last (a copy op when needed), allocates the outputs and the
 * workspace, and submits the op. */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/kernels/mx_kernels.h"

#include <omp.h>

/* Below this many elements an op stays on one thread. */
#define CT__MX_PAR_MIN (1 << 16)

static int mx_threads(const ct_op_desc *op, int64_t work) {
    int nt = op->num_threads;
    if (nt < 1 || work < CT__MX_PAR_MIN) nt = 1;
    return nt;
}

static const ct__mxk_ops *mx_ops(const ct__cpu_state *s) {
    return s->ctx->isa == CT__ISA_AVX512 ? &ct__mxk_ops_avx512
           : s->ctx->isa == CT__ISA_AVX2 ? &ct__mxk_ops_avx2
                                         : &ct__mxk_ops_ref;
}

/* n floats of dtype dt (f32, bf16, f16) widened to f32 (exact). */
static void mx_widen(ct_dtype dt, const void *src, float *dst, int64_t n) {
    if (dt == CT_FLOAT32) {
        if (n) memmove(dst, src, (size_t)n * sizeof(float));
        return;
    }
    const uint16_t *c = src;
    for (int64_t i = 0; i < n; i++)
        dst[i] = dt == CT_FLOAT16 ? ct__h2f(c[i]) : ct__bf2f(c[i]);
}

/* Split rows x nblk blocks into work units for `nt` threads: whole rows when there are enough,
 * otherwise runs of blocks inside a row (FP4 needs an even block size to split a row). */
typedef struct {
    int64_t rows, L, bs, nblk, seg_blocks, nseg;
} mx_split;

static mx_split mx_make_split(int elem, int nt, int64_t rows, int64_t L, int bs) {
    mx_split s = {rows, L, bs, (L + bs - 1) / bs, 0, 1};
    s.seg_blocks = s.nblk;
    if (nt > 1 && rows < 4 * nt && s.nblk > 1 && !(elem == CT__MXK_E2M1 && (bs & 1))) {
        int64_t want = 4 * nt;
        s.seg_blocks = (s.nblk + want - 1) / want;
        s.nseg = (s.nblk + s.seg_blocks - 1) / s.seg_blocks;
    }
    return s;
}

/* out codes (R, row_bytes) int8/uint8, scales (R, nblk) uint8 (e8m0 codes); in src (R, L) f32,
 * bf16 or f16, work (R * L) f32 when src is not f32. ints: format, block size, rceil. */
static ct_status mx_quantize(const ct__mxk_ops *ops, const ct_op_desc *op) {
    const int elem = (int)op->ints[0], bs = (int)op->ints[1], rceil = op->ints[2] != 0;
    const ct_operand *so = &op->operands[2];
    const int64_t rows = so->shape[0], L = so->shape[1], numel = rows * L;
    if (numel == 0) return CT_OK;
    const float *src = so->data;
    if (so->dtype != CT_FLOAT32) {
        float *buf = op->operands[3].data;
        mx_widen(so->dtype, so->data, buf, numel);
        src = buf;
    }
    int64_t rb = ct__mxk_row_bytes(elem, L);
    uint8_t *codes = op->operands[0].data, *scales = op->operands[1].data;
    int nt = mx_threads(op, numel);
    mx_split sp = mx_make_split(elem, nt, rows, L, bs);
    if (sp.nseg == 1) {
        int64_t chunk = (rows + nt - 1) / nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
            int64_t nr = r0 + chunk < rows ? chunk : rows - r0;
            ops->quantize(elem, rceil, bs, src + r0 * L, nr, L, codes + r0 * rb,
                          scales + r0 * sp.nblk);
        }
    } else {
        int64_t units = rows * sp.nseg;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t u = 0; u < units; u++) {
            int64_t r = u / sp.nseg, g = u % sp.nseg;
            int64_t j0 = g * sp.seg_blocks * bs;
            int64_t j1 = j0 + sp.seg_blocks * bs < L ? j0 + sp.seg_blocks * bs : L;
            ops->quantize(elem, rceil, bs, src + r * L + j0, 1, j1 - j0,
                          codes + r * rb + ct__mxk_row_bytes(elem, j0),
                          scales + r * sp.nblk + g * sp.seg_blocks);
        }
    }
    return CT_OK;
}

/* out (R, L) f32; in codes (R, row_bytes), scales (R, nblk). ints: format, block size. */
static ct_status mx_dequantize(const ct__mxk_ops *ops, const ct_op_desc *op) {
    const int elem = (int)op->ints[0], bs = (int)op->ints[1];
    const ct_operand *oo = &op->operands[0];
    const int64_t rows = oo->shape[0], L = oo->shape[1], numel = rows * L;
    if (numel == 0) return CT_OK;
    int64_t rb = ct__mxk_row_bytes(elem, L);
    const uint8_t *codes = op->operands[1].data, *scales = op->operands[2].data;
    float *dst = oo->data;
    int nt = mx_threads(op, numel);
    mx_split sp = mx_make_split(elem, nt, rows, L, bs);
    if (sp.nseg == 1) {
        int64_t chunk = (rows + nt - 1) / nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
            int64_t nr = r0 + chunk < rows ? chunk : rows - r0;
            ops->dequantize(elem, bs, codes + r0 * rb, scales + r0 * sp.nblk, nr, L, dst + r0 * L);
        }
    } else {
        int64_t units = rows * sp.nseg;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t u = 0; u < units; u++) {
            int64_t r = u / sp.nseg, g = u % sp.nseg;
            int64_t j0 = g * sp.seg_blocks * bs;
            int64_t j1 = j0 + sp.seg_blocks * bs < L ? j0 + sp.seg_blocks * bs : L;
            ops->dequantize(elem, bs, codes + r * rb + ct__mxk_row_bytes(elem, j0),
                            scales + r * sp.nblk + g * sp.seg_blocks, 1, j1 - j0, dst + r * L + j0);
        }
    }
    return CT_OK;
}

/* out y (M, N) in x's dtype; in x (M, K) f32/bf16/f16, codes (N, row_bytes), scales (N, nblk),
 * bias (N) float or absent, work f32 of ct__mx_linear_work_floats(). ints: format, block size.
 * Work layout (each part rounded up to 16 floats): [x laid out for the kernel][bias][x widened
 * to f32 and y in f32, when x is not f32]. */
static ct_status mx_linear(const ct__mxk_ops *ops, const ct_op_desc *op) {
    const int elem = (int)op->ints[0], bs = (int)op->ints[1];
    const ct_operand *yo = &op->operands[0], *xo = &op->operands[1], *bo = &op->operands[4];
    const int64_t M = yo->shape[0], N = yo->shape[1], K = xo->shape[1];
    const ct_dtype xdt = xo->dtype;
    if (M == 0 || N == 0) return CT_OK;
    const int has_bias = bo->data != NULL;
    const int deint = ops->fp4_deinterleave && elem == CT__MXK_E2M1 && bs == 32;
    int64_t mk = M * K;
    float *xp = op->operands[5].data;
    float *bp = has_bias ? xp + ct__mx_round16(mk ? mk : 1) : NULL;
    float *tmp = xp + ct__mx_round16(mk ? mk : 1) + (has_bias ? ct__mx_round16(N) : 0);
    float *yp = xdt == CT_FLOAT32 ? (float *)yo->data : tmp + ct__mx_round16(mk);
    if (mk) {
        if (xdt != CT_FLOAT32) { /* widen to f32 first, then lay out */
            mx_widen(xdt, xo->data, tmp, mk);
            ct__mxk_linear_prep_x(tmp, M, K, K, deint, xp);
        } else {
            ct__mxk_linear_prep_x(xo->data, M, K, K, deint, xp);
        }
    }
    if (has_bias) mx_widen(bo->dtype, bo->data, bp, N);
    ct__mxk_linear_args a = {elem,
                             bs,
                             M,
                             N,
                             K,
                             xp,
                             K,
                             op->operands[2].data,
                             ct__mxk_row_bytes(elem, K),
                             op->operands[3].data,
                             (K + bs - 1) / bs,
                             bp,
                             yp,
                             N};
    int64_t work;
    if (!ct__checked_mul(N, K > 0 ? K : 1, &work) || !ct__checked_mul(work, M, &work))
        work = INT64_MAX;
    int nt = mx_threads(op, work / 4);
    if (nt > N) nt = (int)N;
    if (K == 0) {
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++)
                yp[m * N + n] = bp ? bp[n] : 0.0f;
    } else {
        int64_t chunk = (N + nt - 1) / nt;
        chunk = (chunk + 15) / 16 * 16; /* keep output columns of a thread together */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t n0 = 0; n0 < N; n0 += chunk)
            ops->linear(&a, n0, n0 + chunk < N ? n0 + chunk : N);
    }
    if (xdt != CT_FLOAT32) { /* round to x's dtype (as ct_cast_f32_to, default mode) */
        uint16_t *d = yo->data;
        for (int64_t i = 0; i < M * N; i++)
            d[i] = xdt == CT_FLOAT16 ? ct__f2h(yp[i]) : ct__f2bf(yp[i]);
    }
    return CT_OK;
}

ct_status ct__mx_run(const ct__mxk_ops *ops, const ct_op_desc *op) {
    switch (op->kind) {
    case CT_OP_MX_QUANTIZE: return mx_quantize(ops, op);
    case CT_OP_MX_DEQUANTIZE: return mx_dequantize(ops, op);
    default: return mx_linear(ops, op);
    }
}

ct_status ct__cpu_mx(ct__cpu_state *s, const ct_op_desc *op) { return ct__mx_run(mx_ops(s), op); }

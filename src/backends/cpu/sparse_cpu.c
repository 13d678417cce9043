/* CPU backend of CT_OP_SPARSE24_COMPRESS / DECOMPRESS / MM: the split of rows (or B's columns)
 * over OpenMP threads, B packing into 64-byte aligned strips of the ISA's width, the k / n
 * blocking around the ISA strip kernels, and the tables the kernels index (metadata byte -> strip
 * offsets, FP8 code -> f32), all in the op's workspace. The sparse front end (src/sparse/)
 * validates, allocates and submits. */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/kernels/sparse_kernels.h"

#include <math.h>
#include <omp.h>

/* Below this many multiply-adds an op stays on one thread. */
#define CT__SP_PAR_MIN (1 << 17)

static const ct__spk_ops *sp_ops(const ct__cpu_state *s) {
    return s->ctx->isa == CT__ISA_AVX512 ? &ct__spk_ops_avx512
           : s->ctx->isa == CT__ISA_AVX2 ? &ct__spk_ops_avx2
                                         : &ct__spk_ops_ref;
}

static int sp_threads(const ct_op_desc *op, int64_t work) {
    int nt = op->num_threads;
    if (nt < 1 || work < CT__SP_PAR_MIN) nt = 1;
    return nt;
}

/* out values (M, K/2), meta (M, mb), [scales (M)], [bad (1) int64]; in dense (M, K) f32,
 * [given scales (M) f32]; ints[0] = 1: prune, 0: strict; ints[1] the values' CT__SPK_ kind. */
static ct_status sp_compress(const ct_op_desc *op) {
    const ct_operand *o = op->operands;
    const int64_t M = o[4].shape[0], K = o[4].shape[1];
    const int vk = (int)op->ints[1];
    const int es = ct__spk_size(vk);
    const int64_t mb = ct__sp24_meta_bytes(K);
    const bool prune = op->ints[0] != 0;
    const float *dense = o[4].data, *given = o[5].data;
    float *scales = o[2].data;
    int64_t first_bad = INT64_MAX;
    const int nt = sp_threads(op, M * K);
    const int64_t chunk = M ? (M + nt - 1) / nt : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1) reduction(min : first_bad)
    for (int64_t r0 = 0; r0 < M; r0 += chunk) {
        const int64_t nr = r0 + chunk < M ? chunk : M - r0;
        int64_t bad = -1;
        ct__sp24_compress_rows(vk, prune, r0, nr, K, dense + r0 * K,
                               (char *)o[0].data + r0 * (K / 2) * es,
                               (uint8_t *)o[1].data + r0 * mb, scales ? scales + r0 : NULL,
                               given ? given + r0 : NULL, &bad);
        if (bad >= 0 && bad < first_bad) first_bad = bad;
    }
    if (o[3].data) *(int64_t *)o[3].data = first_bad == INT64_MAX ? -1 : first_bad;
    return CT_OK;
}

/* out dense (M, K) f32; in values, meta, [scales]; ints[1] the values' kind. */
static ct_status sp_decompress(const ct_op_desc *op) {
    const ct_operand *o = op->operands;
    const int64_t M = o[0].shape[0], K = o[0].shape[1];
    const int vk = (int)op->ints[1];
    const int es = ct__spk_size(vk);
    const int64_t mb = ct__sp24_meta_bytes(K);
    const float *scales = o[3].data;
    const int nt = sp_threads(op, M * K);
    const int64_t chunk = M ? (M + nt - 1) / nt : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t r0 = 0; r0 < M; r0 += chunk) {
        const int64_t nr = r0 + chunk < M ? chunk : M - r0;
        ct__sp24_decompress_rows(vk, nr, K, (const char *)o[1].data + r0 * (K / 2) * es,
                                 (const uint8_t *)o[2].data + r0 * mb, scales ? scales + r0 : NULL,
                                 (float *)o[0].data + r0 * K);
    }
    return CT_OK;
}

/* Pack B rows [k0, k0 + kc) x columns [n0, n1) as f32 strips of w columns (zero padded), one
 * every kc_ * w floats. */
static void sp_pack_b(int bk, const void *b, int64_t sk, int64_t sn, int64_t k0, int64_t kc,
                      int64_t kc_, int64_t n0, int64_t n1, int w, float *bp) {
    const int64_t nstrip = (n1 - n0 + w - 1) / w;
    for (int64_t s = 0; s < nstrip; s++) {
        float *dst = bp + s * kc_ * w; /* strips at a fixed stride: the last block may be short */
        const int64_t c0 = n0 + s * w, cn = n1 - c0 < w ? n1 - c0 : w;
        for (int64_t k = 0; k < kc; k++) {
            float *d = dst + k * w;
            const int64_t at = (k0 + k) * sk + c0 * sn;
            if (bk == CT__SPK_F32 && sn == 1) {
                memcpy(d, (const float *)b + at, (size_t)cn * sizeof(float));
            } else {
                for (int64_t n = 0; n < cn; n++)
                    d[n] = ct__spk_get(bk, b, at + n * sn);
            }
            if (cn < w) memset(d + cn, 0, (size_t)(w - cn) * sizeof(float));
        }
    }
}

typedef struct {
    const ct__spk_ops *ops;
    int vk, bk, es;
    int64_t M, N, K, mb, sk, sn;
    const void *vals, *b;
    const uint8_t *meta;
    const float *mult, *bias;
    const int32_t *lut;
    const float *vtab;
    float *out;
} sp_mm;

/* Rows [m0, m1) x strips [s0, s1) of the column block [nb, ne) of out with the ISA strip kernel
 * over every k block of the shared packed B (bp: block kb, strip s at (kb * nstrip + s) * kc * w),
 * then the epilogue. The C tile (at most MC x NC floats) stays in L2 across the k blocks. */
static void sp_mm_rows(const sp_mm *p, int64_t m0, int64_t m1, int64_t nb, int64_t ne, int64_t s0,
                       int64_t s1, const float *bp) {
    const int w = p->ops->w;
    const int64_t kc_ = p->ops->kc;
    const int64_t nstrip = (ne - nb + w - 1) / w;
    for (int64_t k0 = 0, kb = 0; k0 < p->K; k0 += kc_, kb++) {
        const int64_t kc = p->K - k0 < kc_ ? p->K - k0 : kc_, g0 = k0 / 4;
        for (int64_t st = s0; st < s1; st++) {
            const int64_t c0 = nb + st * w;
            ct__sp24_strip_args a = {
                .vkind = p->vk,
                .rows = m1 - m0,
                .vals = (const char *)p->vals + (m0 * (p->K / 2) + 2 * g0) * p->es,
                .vstride = p->K / 2,
                .meta = p->meta + m0 * p->mb + g0 / 2,
                .mstride = p->mb,
                .ng = kc / 4,
                .lut = p->lut,
                .vtab = p->vtab,
                .bp = bp + (kb * nstrip + st) * (kc_ * w),
                .ncols = (int)(ne - c0 < w ? ne - c0 : w),
                .c = p->out + m0 * p->N + c0,
                .ldc = p->N,
                .first = k0 == 0,
            };
            p->ops->strip(&a);
        }
    }
    const int64_t c0 = nb + s0 * w, c1 = nb + s1 * w < ne ? nb + s1 * w : ne;
    p->ops->epilogue(p->out + m0 * p->N + c0, p->N, m1 - m0, c1 - c0, p->mult + m0, p->bias + m0);
}

/* out (M, N) f32; in values (M, K/2), meta (M, mb), epilogue (2, M) f32 = mult, bias; B (K, N)
 * any strides; work u8 (ct__sp24_work_plan); ints[1], ints[2] the kinds of the values and B. FP8
 * operands travel as uint8 codes. */
static ct_status sp_matmul(const ct__spk_ops *ops, const ct_op_desc *op) {
    const ct_operand *o = op->operands;
    sp_mm p = {0};
    p.ops = ops;
    p.M = o[0].shape[0];
    p.N = o[0].shape[1];
    p.K = o[1].shape[1] * 2;
    p.vk = (int)op->ints[1];
    p.bk = (int)op->ints[2];
    p.es = ct__spk_size(p.vk);
    p.mb = ct__sp24_meta_bytes(p.K);
    p.vals = o[1].data;
    p.meta = o[2].data;
    p.mult = o[3].data;
    p.bias = (const float *)o[3].data + p.M;
    p.b = o[4].data;
    p.sk = o[4].strides[0];
    p.sn = o[4].strides[1];
    p.out = o[0].data;
    if (p.M == 0 || p.N == 0) return CT_OK;
    const ct__sp24_work wp = ct__sp24_work_plan(p.N, p.K, op->num_threads);
    char *work = (char *)(((uintptr_t)o[5].data + 63) & ~(uintptr_t)63);
    if (p.K == 0) { /* empty sums: the epilogue of +0 */
        memset(p.out, 0, (size_t)(p.M * p.N) * sizeof(float));
        p.ops->epilogue(p.out, p.N, p.M, p.N, p.mult, p.bias);
        return CT_OK;
    }
    const int nt = sp_threads(op, p.M * p.N * (p.K / 2));
    if (p.N <= CT__SP24_GEMV_N) { /* the lane kernels against B^T as f32 [N][K] */
        const int N = (int)p.N;
        const float *x = p.b;
        if (p.bk != CT__SPK_F32 || p.sk != 1 || N > 1) {
            float *xw = (float *)(work + wp.x);
            for (int n = 0; n < N; n++)
                for (int64_t k = 0; k < p.K; k++)
                    xw[n * p.K + k] = ct__spk_get(p.bk, p.b, k * p.sk + n * p.sn);
            x = xw;
        }
        const bool vbmi = p.vk == CT__SPK_E4M3 && p.ops->gemv_e4m3_vbmi && ct__cpu_has_vbmi();
        /* N == 1 E4M3 kernels that decode value / 256 take x * 256 (exact while every finite
         * |x| < 2^120; else they are not used) */
        const float *x256 = NULL;
        if (N == 1 && p.vk == CT__SPK_E4M3 && !vbmi && p.ops->gemv_e4m3_x256) {
            float *xs = (float *)(work + wp.x) + p.K;
            bool ok = true;
            for (int64_t k = 0; k < p.K; k++) {
                ok &= !(fabsf(x[k]) >= 0x1p120f) || isinf(x[k]);
                xs[k] = x[k] * 256.0f;
            }
            if (ok) x256 = xs;
        }
        /* two row chunks per thread (multiples of 4 rows), handed out dynamically: a thread held
         * back by a busy core takes one */
        const int64_t chunk =
            nt > 1 ? ((p.M + 2 * (int64_t)nt - 1) / (2 * (int64_t)nt) + 3) / 4 * 4 : p.M;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t r0 = 0; r0 < p.M; r0 += chunk) {
            const int64_t nr = r0 + chunk < p.M ? chunk : p.M - r0;
            const char *rv = (const char *)p.vals + r0 * (p.K / 2) * p.es;
            float *y = p.out + r0 * N;
            if (vbmi)
                p.ops->gemv_e4m3_vbmi(N, nr, rv, p.meta + r0 * p.mb, p.mb, p.K, x, y);
            else if (x256)
                p.ops->gemv_e4m3_x256(nr, rv, p.meta + r0 * p.mb, p.mb, p.K, x, x256, y);
            else
                p.ops->gemv(p.vk, N, nr, rv, p.meta + r0 * p.mb, p.mb, p.K, x, y);
            p.ops->epilogue(y, N, nr, N, p.mult + r0, p.bias + r0);
        }
        return CT_OK;
    }
    if (!p.ops->strip) { /* the reference: one chain per output (N > 8) */
        const int64_t chunk = (p.M + nt - 1) / nt;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t r0 = 0; r0 < p.M; r0 += chunk) {
            const int64_t r1 = r0 + chunk < p.M ? r0 + chunk : p.M;
            ct__sp24_gemm_ref(p.vk, r0, r1, p.N, p.K, p.vals, p.meta, p.bk, p.b, p.sk, p.sn, p.mult,
                              p.bias, p.out);
        }
        return CT_OK;
    }
    /* the strip kernels' tables: metadata byte -> strip offsets, FP8 code -> f32 */
    const int w = p.ops->w;
    const int64_t kc_ = p.ops->kc;
    int32_t *lut = (int32_t *)(work + wp.lut);
    float *vtab = (float *)(work + wp.vtab);
    for (int b = 0; b < 256; b++) {
        const int kl[4] = {b & 3, (b >> 2) & 3, 4 + ((b >> 4) & 3), 4 + ((b >> 6) & 3)};
        for (int j = 0; j < 4; j++)
            lut[4 * b + j] = kl[j] * w;
    }
    if (p.vk == CT__SPK_E4M3 || p.vk == CT__SPK_E5M2) {
        const int elem = p.vk == CT__SPK_E4M3 ? CT__MXK_E4M3 : CT__MXK_E5M2;
        for (int c = 0; c < 256; c++)
            vtab[c] = ct__mxk_dec1(elem, (uint8_t)c);
    }
    p.lut = lut;
    p.vtab = vtab;
    /* Per block of NC columns: all threads pack B (k blocks handed out dynamically), then row
     * blocks are handed out dynamically (a thread held back by a busy core takes fewer), each
     * running every k block against the shared pack. */
    const int64_t nkb = (p.K + kc_ - 1) / kc_;
    int64_t mcs = (p.M + 4 * (int64_t)nt - 1) / (4 * (int64_t)nt); /* >= 4 blocks per thread */
    mcs = mcs > CT__SP24_MC ? CT__SP24_MC : mcs < 16 ? 16 : mcs;
    const int64_t nmb = (p.M + mcs - 1) / mcs;
    float *bp = (float *)(work + wp.bp);
    for (int64_t nb = 0; nb < p.N; nb += CT__SP24_NC) {
        const int64_t ne = nb + CT__SP24_NC < p.N ? nb + CT__SP24_NC : p.N;
        const int64_t nstrip = (ne - nb + w - 1) / w;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#pragma omp for schedule(dynamic, 1)
            for (int64_t kb = 0; kb < nkb; kb++) {
                const int64_t k0 = kb * kc_, kc = p.K - k0 < kc_ ? p.K - k0 : kc_;
                sp_pack_b(p.bk, p.b, p.sk, p.sn, k0, kc, kc_, nb, ne, w,
                          bp + kb * nstrip * (kc_ * w));
            }
            /* few row blocks (small M): split the strips too, so every thread has work */
            int64_t nsg = nmb >= 2 * (int64_t)nt ? 1 : (2 * (int64_t)nt + nmb - 1) / nmb;
            nsg = nsg > nstrip ? nstrip : nsg;
            const int64_t per = (nstrip + nsg - 1) / nsg;
#pragma omp for schedule(dynamic, 1)
            for (int64_t it = 0; it < nmb * nsg; it++) {
                const int64_t mb = it / nsg, s0 = it % nsg * per,
                              s1 = s0 + per < nstrip ? s0 + per : nstrip;
                const int64_t m0 = mb * mcs, m1 = m0 + mcs < p.M ? m0 + mcs : p.M;
                if (s0 < s1) sp_mm_rows(&p, m0, m1, nb, ne, s0, s1, bp);
            }
        }
    }
    return CT_OK;
}

ct_status ct__sparse_run(const struct ct__spk_ops *ops, const ct_op_desc *op) {
    switch (op->kind) {
    case CT_OP_SPARSE24_COMPRESS: return sp_compress(op);
    case CT_OP_SPARSE24_DECOMPRESS: return sp_decompress(op);
    default: return sp_matmul(ops, op);
    }
}

ct_status ct__cpu_sparse(ct__cpu_state *s, const ct_op_desc *op) {
    return ct__sparse_run(sp_ops(s), op);
}

/* Private interface of the FlexAttention kernels (ref, avx2, avx512): the block-mask and mods
 * layouts the front end (src/attention/) builds, the workspace plan it shares with the submit-time
 * validation and the CPU driver (attention_cpu.c), and the per-ISA table of tile routines.
 * Kernels take raw pointers only (no ctx, no allocation).
 *
 * Tiles are laid out "queries along the vector": a score tile is S^T (kv rows x query columns),
 * so the per-query max / sum of the online softmax are column operations over whole vectors and
 * P^T is directly the B operand of O^T += V^T P^T. */
#ifndef CTORCH_ATTN_KERNELS_H
#define CTORCH_ATTN_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

/* Block mask (int32): a header of CT__FA_HDR values, then one row per (b, h, q block) of the
 * mask's [Bm, Hm, nqb] grid: n_partial, n_full, the partial kv block indices (nkvb slots, the
 * first n_partial used, increasing), the full ones (nkvb slots). */
enum {
    CT__FA_TAG = 0, /* CT__FA_MASK_TAG */
    CT__FA_BS,      /* block size */
    CT__FA_BM,      /* batch of the mask (1 or B) */
    CT__FA_HM,      /* heads of the mask (1 or Hq) */
    CT__FA_LQ,      /* q_len */
    CT__FA_LKV,     /* kv_len */
    CT__FA_NQB,     /* q blocks */
    CT__FA_NKVB,    /* kv blocks */
    CT__FA_HDR
};
#define CT__FA_MASK_TAG 0x464c4558 /* "XLFF" */

static inline int64_t ct__fa_row_len(int64_t nkvb) { return 2 + 2 * nkvb; }

/* Mods (int64 [8]): the function pointers and user data of a call, and the id of a ready-made mod
 * (the kernels then compute it inline; the pointer is still the one the user passed). */
enum {
    CT__FA_SCORE_FN = 0,
    CT__FA_SCORE_USER,
    CT__FA_SCORE_GRAD,
    CT__FA_MASK_FN,
    CT__FA_MASK_USER,
    CT__FA_SCORE_ID, /* CT__FA_S_* */
    CT__FA_MASK_ID,  /* CT__FA_M_* */
    CT__FA_NMODS = 8
};
enum { CT__FA_S_USER = 0, CT__FA_S_ALIBI, CT__FA_S_SOFTCAP };
enum { CT__FA_M_USER = 0, CT__FA_M_CAUSAL, CT__FA_M_SLIDING, CT__FA_M_DOCUMENT, CT__FA_M_PREFIX };

#define CT__FA_TQ 64          /* queries per tile (the columns of a score tile) */
#define CT__FA_TK 64          /* keys per tile */
#define CT__FA_DEC_MAXQ 8     /* at most this many query rows per kv head: the decoding kernel */
#define CT__FA_DEC_CHUNK 2048 /* keys per decoding task (split-KV, merged by log-sum-exp) */

static inline int64_t ct__fa_r16(int64_t v) { return (v + 15) / 16 * 16; }

/* Problem dimensions; Hm = 0 when there is no block mask. */
typedef struct {
    int64_t B, Hq, Hkv, L, S, E, Ev, Hm, bs;
} ct__fa_dims;

/* The decoding path: few query rows per kv head. The G query heads of a kv head are processed
 * together when the mask is the same for all heads (none, or Hm == 1). */
static inline bool ct__fa_grouped(const ct__fa_dims *d) { return d->Hm <= 1; }
static inline int64_t ct__fa_dec_rows(const ct__fa_dims *d) {
    return d->L * (ct__fa_grouped(d) ? d->Hq / d->Hkv : 1);
}
static inline bool ct__fa_decode(const ct__fa_dims *d) {
    return ct__fa_dec_rows(d) <= CT__FA_DEC_MAXQ && (d->Hm == 0 || d->L <= d->bs);
}

typedef struct {
    bool decode;
    int64_t nsplit, ntask; /* decoding: key chunks per group and tasks (groups x chunks) */
    int64_t per_thread;    /* floats of one thread's tile buffers */
    int64_t shared;        /* floats shared by the threads (decoding partial results) */
    int64_t kinds;         /* bytes of the backward's block-kind table */
    int64_t total;         /* bytes of the workspace (64 bytes of alignment slack included) */
} ct__fa_plan;

/* Workspace of the forward (bwd false) or backward pass on nt threads. The dimensions are those
 * of real tensors (checked products), so the sums below stay in range. */
static inline ct__fa_plan ct__fa_plan_for(const ct__fa_dims *d, bool bwd, int nt) {
    ct__fa_plan p = {0};
    if (nt < 1) nt = 1;
    const int64_t TQ = CT__FA_TQ, TK = CT__FA_TK, E = d->E, Ev = d->Ev;
    const int64_t Ep = ct__fa_r16(E), Evp = ct__fa_r16(Ev);
    if (!bwd) {
        p.decode = ct__fa_decode(d);
        const int64_t tiled = ct__fa_r16(E * TQ) + ct__fa_r16(TK * TQ) + ct__fa_r16(Ev * TQ) +
                              4 * TQ + ct__fa_r16(TK * E) + ct__fa_r16(TK * Ev);
        const int64_t nq = CT__FA_DEC_MAXQ;
        const int64_t dec = ct__fa_r16(nq * E) + ct__fa_r16(TK * nq) + ct__fa_r16(nq * Ev) +
                            4 * 16 + ct__fa_r16(TK * E) + ct__fa_r16(TK * Ev);
        p.per_thread = p.decode ? dec : tiled;
        if (p.decode) {
            p.nsplit = (d->S + CT__FA_DEC_CHUNK - 1) / CT__FA_DEC_CHUNK;
            if (p.nsplit < 1) p.nsplit = 1;
            const int64_t groups = d->B * (ct__fa_grouped(d) ? d->Hkv : d->Hq);
            p.ntask = groups * p.nsplit;
            p.shared = ct__fa_r16(p.ntask * ct__fa_dec_rows(d) * (Ev + 2));
        }
    } else {
        p.per_thread = ct__fa_r16(E * TQ) + ct__fa_r16(TQ * Ep) + ct__fa_r16(Ev * TQ) +
                       ct__fa_r16(TQ * Evp) + 3 * ct__fa_r16(TK * TQ) + ct__fa_r16(TK * Ep) +
                       ct__fa_r16(TK * Ev) + ct__fa_r16(TK * Ep) + ct__fa_r16(TK * Evp) +
                       ct__fa_r16(TQ * Ep) + 2 * TQ;
    }
    if (d->Hm) {
        const int64_t nqb = (d->L + d->bs - 1) / d->bs, nkvb = (d->S + d->bs - 1) / d->bs;
        p.kinds = bwd ? ct__fa_r16(d->B * d->Hq * nqb * nkvb) : 0;
    }
    p.total = (p.per_thread * nt + p.shared) * 4 + p.kinds + 64;
    return p;
}

/* Per-ISA tile routines (float32). */
typedef struct ct__fa_ops {
    int vw; /* vector width in floats: gemm's N is a multiple of it */
    /* C[M][N] (ldc) = (beta ? C : 0) + sum_k A[m * ars + k * acs] * B[k * ldb + n] */
    void (*gemm)(int M, int N, int K, const float *A, int64_t ars, int64_t acs, const float *B,
                 int64_t ldb, float *C, int64_t ldc, int beta);
    /* Online-softmax step over the columns [0, nc) of s (nk rows, row stride ld): m = max(m,
     * column max), alpha = exp(m_old - m), s = exp(s - m) (-inf -> 0), l = l * alpha + sum. */
    void (*softmax_cols)(float *s, int64_t ld, int nk, int nc, float *m, float *l, float *alpha);
    /* Backward: s = exp(s - lse[col]) with -inf scores and -inf lse giving 0. */
    void (*exp_cols)(float *s, int64_t ld, int nk, int nc, const float *lse);
    /* Decoding: s[j * nq + i] = sum_e q[i * E + e] * k[j * ldk + e] (j < nk, i < nq). */
    void (*dec_qk)(const float *q, int nq, int E, const float *k, int64_t ldk, int nk, float *s);
    /* Decoding: o[i * Ev + e] += sum_j p[j * nq + i] * v[j * ldv + e]. */
    void (*dec_pv)(const float *p, int nq, int nk, const float *v, int64_t ldv, int Ev, float *o);
} ct__fa_ops;

extern const ct__fa_ops ct__fa_ops_ref, ct__fa_ops_avx2, ct__fa_ops_avx512;

#endif

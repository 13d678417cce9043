/* CPU backend of CT_OP_FLEX_ATTENTION / CT_OP_FLEX_ATTENTION_BWD: the tiling, the walk over the
 * kv blocks a block mask allows, the score / mask mods applied to each score tile, the threads,
 * the split-KV decoding path with its log-sum-exp merge, and a float64 path (scalar, in double).
 * The per-ISA tile routines are in kernels/{ref,avx2,avx512}/attn_*.c; layouts in
 * kernels/attn_kernels.h. The attention front end (src/attention/) validates and submits. */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/kernels/attn_kernels.h"
#include "ctorch/attention.h"
#include "dtype/half.h"

#include <math.h>
#include <omp.h>
#include <string.h>

typedef struct {
    const char *p;
    int64_t s[4]; /* element strides of the (B, H, len, D) view */
    ct_dtype dt;
    int es; /* element size */
} fa_in;

typedef struct {
    ct__fa_dims d;
    int64_t G;         /* query heads per kv head */
    fa_in q, k, v, go; /* go: grad_out (backward) */
    const int32_t *mask;
    int64_t Bm, Hm, nqb, nkvb, bs;
    ct_score_mod_fn score, sgrad;
    ct_mask_mod_fn mmod;
    void *suser, *muser;
    int sid, mid;
    double scale;
    bool prefetch;
    const ct__fa_ops *ops;
    ct__fa_plan plan;
    float *work;
    int nt;
} fa_job;

static inline float fa_ld(const fa_in *t, int64_t off) {
    switch (t->dt) {
    case CT_FLOAT32: return ((const float *)t->p)[off];
    case CT_FLOAT16: return ct__h2f(((const uint16_t *)t->p)[off]);
    case CT_BFLOAT16: return ct__bf2f(((const uint16_t *)t->p)[off]);
    default: return (float)((const double *)t->p)[off];
    }
}
static inline double fa_ldd(const fa_in *t, int64_t off) {
    return t->dt == CT_FLOAT64 ? ((const double *)t->p)[off] : (double)fa_ld(t, off);
}
static inline int64_t fa_off(const fa_in *t, int64_t b, int64_t h, int64_t i) {
    return b * t->s[0] + h * t->s[1] + i * t->s[2];
}
static void fa_store(void *out, ct_dtype dt, int64_t off, double x) {
    switch (dt) {
    case CT_FLOAT32: ((float *)out)[off] = (float)x; break;
    case CT_FLOAT16: ((uint16_t *)out)[off] = ct__f2h((float)x); break;
    case CT_BFLOAT16: ((uint16_t *)out)[off] = ct__f2bf((float)x); break;
    default: ((double *)out)[off] = x; break;
    }
}

/* ---- block-mask walk ---- */

static const int32_t *fa_row(const fa_job *J, int64_t b, int64_t h, int64_t qb) {
    if (!J->mask) return NULL;
    const int64_t bm = J->Bm == 1 ? 0 : b, hm = J->Hm == 1 ? 0 : h;
    return J->mask + CT__FA_HDR + ((bm * J->Hm + hm) * J->nqb + qb) * ct__fa_row_len(J->nkvb);
}

/* Tiles of <= CT__FA_TK keys inside [lo, hi), in increasing key order, each inside one kv block
 * of the row (partial or full) or, without a mask, every key (full). */
typedef struct {
    const int32_t *row;
    int64_t nkvb, bs, lo, hi;
    int ip, jf;            /* next partial / full list entries */
    int64_t k, bend, kind; /* current position, end of the current block, its kind */
} fa_it;

static void fa_it_init(fa_it *it, const fa_job *J, const int32_t *row, int64_t lo, int64_t hi) {
    it->row = row;
    it->nkvb = J->nkvb;
    it->bs = J->bs;
    it->lo = lo;
    it->hi = hi;
    it->ip = it->jf = 0;
    it->k = it->bend = lo;
    it->kind = 2;
    if (!row) it->bend = hi;
}

static bool fa_it_next(fa_it *it, int64_t *k0, int *nk, int *kind) {
    while (it->k >= it->bend) {
        if (!it->row) return false;
        const int np = it->row[0], nf = it->row[1];
        const int32_t *pl = it->row + 2, *fl = it->row + 2 + it->nkvb;
        int64_t blk;
        if (it->ip < np && (it->jf >= nf || pl[it->ip] < fl[it->jf])) {
            blk = pl[it->ip++];
            it->kind = 1;
        } else if (it->jf < nf) {
            blk = fl[it->jf++];
            it->kind = 2;
        } else {
            return false;
        }
        if (blk < 0 || blk >= it->nkvb) continue; /* never made by ct_create_block_mask */
        int64_t s0 = blk * it->bs, s1 = s0 + it->bs;
        if (s0 >= it->hi) return false;
        s0 = s0 < it->lo ? it->lo : s0;
        s1 = s1 > it->hi ? it->hi : s1;
        if (s0 >= s1) continue;
        it->k = s0;
        it->bend = s1;
    }
    *k0 = it->k;
    const int64_t n = it->bend - it->k < CT__FA_TK ? it->bend - it->k : CT__FA_TK;
    *nk = (int)n;
    *kind = (int)it->kind;
    it->k += n;
    return true;
}

/* ---- mods ---- */

static inline float fa_slope(const fa_job *J, int64_t h) {
    const ct_alibi_params *p = J->suser;
    if (p->slopes) return p->slopes[h];
    return exp2f(-8.0f * (float)(h + 1) / (float)p->num_heads);
}

static inline bool fa_allowed(const fa_job *J, int64_t b, int64_t h, int64_t q, int64_t kv) {
    switch (J->mid) {
    case CT__FA_M_CAUSAL: return kv <= q;
    case CT__FA_M_SLIDING:
        return kv <= q && q - kv < ((const ct_sliding_window_params *)J->muser)->window;
    case CT__FA_M_DOCUMENT: {
        const ct_document_params *p = J->muser;
        return p->q_doc[q] == (p->kv_doc ? p->kv_doc : p->q_doc)[kv];
    }
    case CT__FA_M_PREFIX:
        return kv < ((const ct_prefix_lm_params *)J->muser)->prefix_len || kv <= q;
    default: return J->mmod(b, h, q, kv, J->muser);
    }
}

/* Score mod and (for a partial block) mask on the score tile st[j * ld + i]: key k0 + j, query
 * column i = (head ch[i], position cq[i]), i < nc. dm (or NULL) receives d score_mod / d score.
 * Loops run over keys outside and query columns inside (rows of the tile); the ready-made masks
 * on a tile of consecutive queries of one head become a range of allowed columns per key. */
static void fa_mods_tile(const fa_job *J, float *st, int64_t ld, int nk, int nc, int64_t b,
                         const int64_t *ch, const int64_t *cq, int64_t k0, int kind, float *dm) {
    bool contig = true;
    for (int i = 1; i < nc; i++)
        contig &= ch[i] == ch[0] && cq[i] == cq[0] + i;
    if (J->score) {
        if (J->sid == CT__FA_S_ALIBI) {
            float sl[CT__FA_TQ], cqf[CT__FA_TQ];
            for (int i = 0; i < nc; i++) {
                sl[i] = contig && i ? sl[0] : fa_slope(J, ch[i]);
                cqf[i] = (float)cq[i];
            }
            for (int j = 0; j < nk; j++) {
                float *row = st + j * ld;
                const float kvf = (float)(k0 + j);
                for (int i = 0; i < nc; i++)
                    row[i] += sl[i] * (kvf - cqf[i]);
            }
        } else if (J->sid == CT__FA_S_SOFTCAP) {
            const float cap = ((const ct_softcap_params *)J->suser)->cap;
            for (int j = 0; j < nk; j++)
                for (int i = 0; i < nc; i++) {
                    const float t = tanhf(st[j * ld + i] / cap);
                    st[j * ld + i] = cap * t;
                    if (dm) dm[j * ld + i] = 1.0f - t * t;
                }
            dm = NULL; /* written */
        } else {
            for (int j = 0; j < nk; j++)
                for (int i = 0; i < nc; i++) {
                    const float s = st[j * ld + i];
                    st[j * ld + i] = J->score(s, b, ch[i], cq[i], k0 + j, J->suser);
                    if (dm) dm[j * ld + i] = J->sgrad(s, b, ch[i], cq[i], k0 + j, J->suser);
                }
            dm = NULL;
        }
    }
    if (dm)
        for (int j = 0; j < nk; j++)
            for (int i = 0; i < nc; i++)
                dm[j * ld + i] = 1.0f;
    if (kind != 1) return;
    const int mid = J->mid;
    if (contig && (mid == CT__FA_M_CAUSAL || mid == CT__FA_M_SLIDING || mid == CT__FA_M_PREFIX)) {
        const int64_t q0 = cq[0];
        for (int j = 0; j < nk; j++) {
            const int64_t kv = k0 + j;
            int64_t lo = kv - q0, hi = nc; /* allowed columns [lo, hi) */
            if (mid == CT__FA_M_SLIDING)
                hi = kv + ((const ct_sliding_window_params *)J->muser)->window - q0;
            if (mid == CT__FA_M_PREFIX && kv < ((const ct_prefix_lm_params *)J->muser)->prefix_len)
                lo = 0;
            lo = lo < 0 ? 0 : lo > nc ? nc : lo;
            hi = hi < lo ? lo : hi > nc ? nc : hi;
            float *row = st + j * ld;
            for (int64_t i = 0; i < lo; i++)
                row[i] = -INFINITY;
            for (int64_t i = hi; i < nc; i++)
                row[i] = -INFINITY;
        }
        return;
    }
    if (mid == CT__FA_M_DOCUMENT) {
        const ct_document_params *p = J->muser;
        const int64_t *kd = p->kv_doc ? p->kv_doc : p->q_doc;
        for (int j = 0; j < nk; j++) {
            float *row = st + j * ld;
            const int64_t d = kd[k0 + j];
            for (int i = 0; i < nc; i++)
                if (p->q_doc[cq[i]] != d) row[i] = -INFINITY;
        }
        return;
    }
    for (int j = 0; j < nk; j++)
        for (int i = 0; i < nc; i++)
            if (!fa_allowed(J, b, ch[i], cq[i], k0 + j)) st[j * ld + i] = -INFINITY;
}

/* True when a ready-made mask rules out every entry of keys [k0, k0 + nk) for queries
 * [q0, q0 + nq) (a sub-tile of a partial block that needs no work at all). */
static bool fa_tile_dead(const fa_job *J, int64_t q0, int nq, int64_t k0, int nk) {
    const int64_t qlast = q0 + nq - 1, klast = k0 + nk - 1;
    switch (J->mid) {
    case CT__FA_M_CAUSAL: return k0 > qlast;
    case CT__FA_M_SLIDING:
        return k0 > qlast || q0 - klast >= ((const ct_sliding_window_params *)J->muser)->window;
    case CT__FA_M_PREFIX:
        return k0 > qlast && k0 >= ((const ct_prefix_lm_params *)J->muser)->prefix_len;
    default: return false;
    }
}

/* The same for one float64 score (the float64 path; user mods see a float). */
static double fa_mod_d(const fa_job *J, double s, int64_t b, int64_t h, int64_t q, int64_t kv,
                       double *dm) {
    *dm = 1.0;
    if (!J->score) return s;
    switch (J->sid) {
    case CT__FA_S_ALIBI: {
        const ct_alibi_params *p = J->suser;
        const double sl =
            p->slopes ? (double)p->slopes[h] : exp2(-8.0 * (double)(h + 1) / (double)p->num_heads);
        return s + sl * (double)(kv - q);
    }
    case CT__FA_S_SOFTCAP: {
        const double cap = ((const ct_softcap_params *)J->suser)->cap, t = tanh(s / cap);
        *dm = 1.0 - t * t;
        return cap * t;
    }
    default:
        if (J->sgrad) *dm = J->sgrad((float)s, b, h, q, kv, J->suser);
        return J->score((float)s, b, h, q, kv, J->suser);
    }
}

/* ---- packing ---- */

/* Rows [r0, r0 + n) of (b, h) as f32: a pointer and row stride straight into the tensor when it
 * is f32 with unit inner stride, else packed into buf with row stride ld (columns D..ld zero). */
static const float *fa_rows(const fa_in *t, int64_t b, int64_t h, int64_t r0, int n, int64_t D,
                            float *buf, int64_t ld, bool direct_ok, int64_t *ldo) {
    const int64_t base = fa_off(t, b, h, r0);
    if (direct_ok && t->dt == CT_FLOAT32 && (t->s[3] == 1 || D == 1) && ld == D) {
        *ldo = t->s[2];
        return (const float *)t->p + base;
    }
    for (int j = 0; j < n; j++) {
        float *dst = buf + j * ld;
        const int64_t o = base + j * t->s[2];
        if (t->dt == CT_FLOAT32 && t->s[3] == 1)
            memcpy(dst, (const float *)t->p + o, (size_t)D * 4);
        else
            for (int64_t e = 0; e < D; e++)
                dst[e] = fa_ld(t, o + e * t->s[3]);
        for (int64_t e = D; e < ld; e++)
            dst[e] = 0.0f;
    }
    *ldo = ld;
    return buf;
}

/* Q^T of query rows [q0, q0 + nq) times mul: qt[e * CT__FA_TQ + i], columns nq..nc zero. */
static void fa_pack_t(const fa_in *t, int64_t b, int64_t h, int64_t q0, int nq, int nc, int64_t D,
                      float mul, float *qt) {
    for (int i = 0; i < nc; i++) {
        if (i >= nq) {
            for (int64_t e = 0; e < D; e++)
                qt[e * CT__FA_TQ + i] = 0.0f;
            continue;
        }
        const int64_t o = fa_off(t, b, h, q0 + i);
        for (int64_t e = 0; e < D; e++)
            qt[e * CT__FA_TQ + i] = mul * fa_ld(t, o + e * t->s[3]);
    }
}

static void fa_prefetch(const fa_in *t, int64_t b, int64_t h, int64_t r0, int n, int64_t D) {
    if (t->s[3] != 1 && D > 1) return;
    const int64_t bytes = D * t->es;
    for (int j = 0; j < n; j++) {
        const char *p = t->p + (fa_off(t, b, h, r0 + j)) * t->es;
        for (int64_t o = 0; o < bytes; o += 64)
            __builtin_prefetch(p + o, 0, 2);
    }
}

/* Stage two of the pipeline: start moving the K and V lines of the tile after the current one
 * (a copy of the walk looks ahead). */
static void fa_prefetch_next(const fa_job *J, const fa_it *it, int64_t b, int64_t hk) {
    fa_it nx = *it;
    int64_t k1;
    int n1, kd1;
    if (!fa_it_next(&nx, &k1, &n1, &kd1)) return;
    fa_prefetch(&J->k, b, hk, k1, n1, J->d.E);
    fa_prefetch(&J->v, b, hk, k1, n1, J->d.Ev);
}

static inline int fa_pad(const fa_job *J, int n) {
    return (n + J->ops->vw - 1) / J->ops->vw * J->ops->vw;
}

/* ---- forward, tiled (float32 compute) ---- */

static void fa_fwd_tile(const fa_job *J, float *wk, int64_t b, int64_t hq, int64_t q0, int nq,
                        const int32_t *row, void *out, ct_dtype odt, float *lse) {
    const int64_t E = J->d.E, Ev = J->d.Ev, TQ = CT__FA_TQ, TK = CT__FA_TK, hk = hq / J->G;
    float *qt = wk, *st = qt + ct__fa_r16(E * TQ), *ot = st + ct__fa_r16(TK * TQ);
    float *m = ot + ct__fa_r16(Ev * TQ), *l = m + TQ, *al = l + TQ;
    float *kt = al + 2 * TQ, *vt = kt + ct__fa_r16(TK * E);
    const int nc = fa_pad(J, nq);
    int64_t ch[CT__FA_TQ], cq[CT__FA_TQ];
    fa_pack_t(&J->q, b, hq, q0, nq, nc, E, (float)J->scale, qt);
    for (int i = 0; i < nc; i++) {
        m[i] = -INFINITY;
        l[i] = 0.0f;
        ch[i] = hq;
        cq[i] = q0 + i;
    }
    for (int64_t e = 0; e < Ev; e++)
        memset(ot + e * TQ, 0, (size_t)nc * 4);
    fa_it it;
    fa_it_init(&it, J, row, 0, J->d.S);
    int64_t k0;
    int nk, kind;
    while (fa_it_next(&it, &k0, &nk, &kind)) {
        if (J->prefetch) fa_prefetch_next(J, &it, b, hk);
        if (kind == 1 && fa_tile_dead(J, q0, nq, k0, nk)) continue;
        int64_t ldk, ldv;
        const float *kp = fa_rows(&J->k, b, hk, k0, nk, E, kt, E, true, &ldk);
        const float *vp = fa_rows(&J->v, b, hk, k0, nk, Ev, vt, Ev, true, &ldv);
        J->ops->gemm(nk, nc, (int)E, kp, ldk, 1, qt, TQ, st, TQ, 0);
        fa_mods_tile(J, st, TQ, nk, nq, b, ch, cq, k0, kind, NULL);
        J->ops->softmax_cols(st, TQ, nk, nc, m, l, al);
        for (int64_t e = 0; e < Ev; e++) {
            float *o = ot + e * TQ;
            for (int i = 0; i < nc; i++)
                o[i] *= al[i];
        }
        J->ops->gemm((int)Ev, nc, nk, vp, 1, ldv, st, TQ, ot, TQ, 1);
    }
    for (int i = 0; i < nq; i++) {
        const float inv = l[i] > 0.0f ? 1.0f / l[i] : 0.0f;
        const int64_t orow = ((b * J->d.Hq + hq) * J->d.L + q0 + i);
        for (int64_t e = 0; e < Ev; e++)
            fa_store(out, odt, orow * Ev + e, ot[e * TQ + i] * inv);
        if (lse) lse[orow] = l[i] > 0.0f ? m[i] + logf(l[i]) : -INFINITY;
    }
}

/* q tiles: per q block (or the whole length without a mask), ceil(block / TQ) sub-tiles. */
static int64_t fa_qsub(const fa_job *J) {
    return J->mask ? (J->bs + CT__FA_TQ - 1) / CT__FA_TQ : (J->d.L + CT__FA_TQ - 1) / CT__FA_TQ;
}
static bool fa_qtile(const fa_job *J, int64_t t, int64_t *qb, int64_t *q0, int *nq) {
    const int64_t nsub = fa_qsub(J);
    if (!J->mask) {
        *qb = 0;
        *q0 = t * CT__FA_TQ;
        const int64_t e = *q0 + CT__FA_TQ < J->d.L ? *q0 + CT__FA_TQ : J->d.L;
        *nq = (int)(e - *q0);
        return *nq > 0;
    }
    *qb = t / nsub;
    const int64_t bend = (*qb + 1) * J->bs < J->d.L ? (*qb + 1) * J->bs : J->d.L;
    *q0 = *qb * J->bs + t % nsub * CT__FA_TQ;
    const int64_t e = *q0 + CT__FA_TQ < bend ? *q0 + CT__FA_TQ : bend;
    *nq = (int)(e - *q0);
    return *nq > 0;
}
static int64_t fa_nqtiles(const fa_job *J) { return (J->mask ? J->nqb : 1) * fa_qsub(J); }

static void fa_fwd_tiled(const fa_job *J, void *out, ct_dtype odt, float *lse) {
    const int64_t nqt = fa_nqtiles(J), ntask = J->d.B * J->d.Hq * nqt;
#pragma omp parallel num_threads(J->nt) if (J->nt > 1)
    {
        float *wk = J->work + (int64_t)omp_get_thread_num() * J->plan.per_thread;
#pragma omp for schedule(dynamic, 1)
        for (int64_t t0 = 0; t0 < ntask; t0++) {
            /* the last q tiles first: under a causal mask they are the longest */
            const int64_t t = ntask - 1 - t0;
            const int64_t bh = t / nqt, b = bh / J->d.Hq, hq = bh % J->d.Hq;
            int64_t qb, q0;
            int nq;
            if (!fa_qtile(J, t % nqt, &qb, &q0, &nq)) continue;
            fa_fwd_tile(J, wk, b, hq, q0, nq, fa_row(J, b, hq, qb), out, odt, lse);
        }
    }
}

/* ---- forward, decoding (few query rows per kv head; keys split over tasks) ---- */

static void fa_dec_task(const fa_job *J, float *wk, int64_t g, int64_t c, float *part) {
    const int64_t E = J->d.E, Ev = J->d.Ev, L = J->d.L, TK = CT__FA_TK;
    const bool grp = ct__fa_grouped(&J->d);
    const int nq = (int)ct__fa_dec_rows(&J->d);
    const int64_t b = g / (grp ? J->d.Hkv : J->d.Hq), hx = g % (grp ? J->d.Hkv : J->d.Hq);
    const int64_t hk = grp ? hx : hx / J->G;
    float *qr = wk, *st = qr + ct__fa_r16(CT__FA_DEC_MAXQ * E);
    float *o = st + ct__fa_r16(TK * CT__FA_DEC_MAXQ), *m = o + ct__fa_r16(CT__FA_DEC_MAXQ * Ev);
    float *l = m + 16, *al = l + 16, *kt = al + 32, *vt = kt + ct__fa_r16(TK * E);
    int64_t ch[CT__FA_DEC_MAXQ], cq[CT__FA_DEC_MAXQ];
    for (int i = 0; i < nq; i++) {
        ch[i] = grp ? hx * J->G + i / L : hx;
        cq[i] = i % L;
        const int64_t off = fa_off(&J->q, b, ch[i], cq[i]);
        for (int64_t e = 0; e < E; e++)
            qr[i * E + e] = (float)J->scale * fa_ld(&J->q, off + e * J->q.s[3]);
        m[i] = -INFINITY;
        l[i] = 0.0f;
        memset(o + i * Ev, 0, (size_t)Ev * 4);
    }
    const int64_t lo = c * CT__FA_DEC_CHUNK,
                  hi = lo + CT__FA_DEC_CHUNK < J->d.S ? lo + CT__FA_DEC_CHUNK : J->d.S;
    fa_it it;
    fa_it_init(&it, J, fa_row(J, b, ch[0], 0), lo, hi);
    int64_t k0;
    int nk, kind;
    while (fa_it_next(&it, &k0, &nk, &kind)) {
        if (J->prefetch) fa_prefetch_next(J, &it, b, hk);
        int64_t ldk, ldv;
        const float *kp = fa_rows(&J->k, b, hk, k0, nk, E, kt, E, true, &ldk);
        const float *vp = fa_rows(&J->v, b, hk, k0, nk, Ev, vt, Ev, true, &ldv);
        J->ops->dec_qk(qr, nq, (int)E, kp, ldk, nk, st);
        fa_mods_tile(J, st, nq, nk, nq, b, ch, cq, k0, kind, NULL);
        J->ops->softmax_cols(st, nq, nk, nq, m, l, al);
        for (int i = 0; i < nq; i++)
            for (int64_t e = 0; e < Ev; e++)
                o[i * Ev + e] *= al[i];
        J->ops->dec_pv(st, nq, nk, vp, ldv, (int)Ev, o);
    }
    for (int i = 0; i < nq; i++) {
        float *pr = part + ((g * J->plan.nsplit + c) * nq + i) * (Ev + 2);
        pr[0] = m[i];
        pr[1] = l[i];
        memcpy(pr + 2, o + i * Ev, (size_t)Ev * 4);
    }
}

static void fa_fwd_decode(const fa_job *J, void *out, ct_dtype odt, float *lse) {
    const int64_t ns = J->plan.nsplit, ngroup = J->plan.ntask / ns, Ev = J->d.Ev, L = J->d.L;
    const int nq = (int)ct__fa_dec_rows(&J->d);
    const bool grp = ct__fa_grouped(&J->d);
    float *part = J->work + (int64_t)J->nt * J->plan.per_thread;
#pragma omp parallel num_threads(J->nt) if (J->nt > 1 && J->plan.ntask > 1)
    {
        float *wk = J->work + (int64_t)omp_get_thread_num() * J->plan.per_thread;
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < J->plan.ntask; t++)
            fa_dec_task(J, wk, t / ns, t % ns, part);
    }
    /* merge the chunks of each row by their log-sum-exp */
    for (int64_t g = 0; g < ngroup; g++) {
        const int64_t b = g / (grp ? J->d.Hkv : J->d.Hq), hx = g % (grp ? J->d.Hkv : J->d.Hq);
        for (int i = 0; i < nq; i++) {
            const int64_t h = grp ? hx * J->G + i / L : hx, qi = i % L;
            float M = -INFINITY;
            for (int64_t c = 0; c < ns; c++) {
                const float mc = part[((g * ns + c) * nq + i) * (Ev + 2)];
                M = mc > M ? mc : M;
            }
            double Ls = 0.0;
            for (int64_t c = 0; c < ns; c++) {
                const float *pr = part + ((g * ns + c) * nq + i) * (Ev + 2);
                if (pr[1] > 0.0f) Ls += (double)pr[1] * expf(pr[0] - M);
            }
            const float inv = Ls > 0.0 ? (float)(1.0 / Ls) : 0.0f;
            float w[64];
            const int64_t orow = (b * J->d.Hq + h) * L + qi;
            for (int64_t e0 = 0; e0 < Ev; e0 += 64) {
                const int64_t e1 = e0 + 64 < Ev ? e0 + 64 : Ev;
                for (int64_t e = e0; e < e1; e++)
                    w[e - e0] = 0.0f;
                for (int64_t c = 0; c < ns; c++) {
                    const float *pr = part + ((g * ns + c) * nq + i) * (Ev + 2);
                    if (pr[1] <= 0.0f) continue;
                    const float sc = expf(pr[0] - M);
                    for (int64_t e = e0; e < e1; e++)
                        w[e - e0] += pr[2 + e] * sc;
                }
                for (int64_t e = e0; e < e1; e++)
                    fa_store(out, odt, orow * Ev + e, w[e - e0] * inv);
            }
            if (lse) lse[orow] = Ls > 0.0 ? M + (float)log(Ls) : -INFINITY;
        }
    }
}

/* ---- float64 path: one query row at a time, in double ---- */

static void fa_fwd_f64(const fa_job *J, double *out, double *lse) {
    const int64_t B = J->d.B, Hq = J->d.Hq, L = J->d.L, E = J->d.E, Ev = J->d.Ev;
    const int64_t nrow = B * Hq * L;
#pragma omp parallel num_threads(J->nt) if (J->nt > 1 && nrow * J->d.S > 4096)
    {
        double *acc = (double *)(J->work + (int64_t)omp_get_thread_num() * J->plan.per_thread);
#pragma omp for schedule(dynamic, 4)
        for (int64_t r = 0; r < nrow; r++) {
            const int64_t b = r / (Hq * L), hq = r / L % Hq, qi = r % L, hk = hq / J->G;
            const int64_t qo = fa_off(&J->q, b, hq, qi);
            double m = -INFINITY, lsum = 0.0;
            for (int64_t e = 0; e < Ev; e++)
                acc[e] = 0.0;
            fa_it it;
            fa_it_init(&it, J, J->mask ? fa_row(J, b, hq, qi / J->bs) : NULL, 0, J->d.S);
            int64_t k0;
            int nk, kind;
            while (fa_it_next(&it, &k0, &nk, &kind)) {
                for (int j = 0; j < nk; j++) {
                    const int64_t kv = k0 + j, ko = fa_off(&J->k, b, hk, kv);
                    double s = 0.0, dm;
                    for (int64_t e = 0; e < E; e++)
                        s += fa_ldd(&J->q, qo + e * J->q.s[3]) * fa_ldd(&J->k, ko + e * J->k.s[3]);
                    s = fa_mod_d(J, s * J->scale, b, hq, qi, kv, &dm);
                    if (kind == 1 && !fa_allowed(J, b, hq, qi, kv)) continue;
                    if (s == -INFINITY) continue;
                    const double mn = s > m ? s : m, a = m == -INFINITY ? 0.0 : exp(m - mn),
                                 p = exp(s - mn);
                    const int64_t vo = fa_off(&J->v, b, hk, kv);
                    for (int64_t e = 0; e < Ev; e++)
                        acc[e] = acc[e] * a + p * fa_ldd(&J->v, vo + e * J->v.s[3]);
                    lsum = lsum * a + p;
                    m = mn;
                }
            }
            for (int64_t e = 0; e < Ev; e++)
                out[r * Ev + e] = lsum > 0.0 ? acc[e] / lsum : 0.0;
            if (lse) lse[r] = lsum > 0.0 ? m + log(lsum) : -INFINITY;
        }
    }
}

/* ---- backward ---- */

/* kinds[((b * Hq + h) * nqb + qb) * nkvb + kvb]: 0 skipped, 1 partial, 2 full. */
static void fa_kinds(const fa_job *J, uint8_t *kinds) {
    const int64_t nqb = J->nqb, nkvb = J->nkvb;
    for (int64_t b = 0; b < J->d.B; b++)
        for (int64_t h = 0; h < J->d.Hq; h++)
            for (int64_t qb = 0; qb < nqb; qb++) {
                uint8_t *kr = kinds + ((b * J->d.Hq + h) * nqb + qb) * nkvb;
                memset(kr, 0, (size_t)nkvb);
                const int32_t *row = fa_row(J, b, h, qb);
                for (int i = 0; i < row[0]; i++)
                    if (row[2 + i] >= 0 && row[2 + i] < nkvb) kr[row[2 + i]] = 1;
                for (int i = 0; i < row[1]; i++)
                    if (row[2 + nkvb + i] >= 0 && row[2 + nkvb + i] < nkvb)
                        kr[row[2 + nkvb + i]] = 2;
            }
}

typedef struct {
    float *qt, *qr, *dot, *dor, *st, *dp, *dm, *kt, *vt, *dka, *dva, *dqa, *lse, *del;
} fa_bw_buf;

static fa_bw_buf fa_bw_bufs(const fa_job *J, float *w) {
    const float *const w0 = w;
    const int64_t E = J->d.E, Ev = J->d.Ev, TQ = CT__FA_TQ, TK = CT__FA_TK;
    const int64_t Ep = ct__fa_r16(E), Evp = ct__fa_r16(Ev);
    fa_bw_buf u;
    u.qt = w, w += ct__fa_r16(E * TQ);
    u.qr = w, w += ct__fa_r16(TQ * Ep);
    u.dot = w, w += ct__fa_r16(Ev * TQ);
    u.dor = w, w += ct__fa_r16(TQ * Evp);
    u.st = w, w += ct__fa_r16(TK * TQ);
    u.dp = w, w += ct__fa_r16(TK * TQ);
    u.dm = w, w += ct__fa_r16(TK * TQ);
    u.kt = w, w += ct__fa_r16(TK * Ep);
    u.vt = w, w += ct__fa_r16(TK * Ev);
    u.dka = w, w += ct__fa_r16(TK * Ep);
    u.dva = w, w += ct__fa_r16(TK * Evp);
    u.dqa = w, w += ct__fa_r16(TQ * Ep);
    u.lse = w, w += TQ;
    u.del = w;
    CT_ASSERT(u.del + TQ <= w0 + J->plan.per_thread); /* the carve-up of ct__fa_plan_for's size */
    (void)w0;
    return u;
}

/* Pack what a q tile needs: Q^T scaled, Q rows, dO^T, dO rows, lse and delta (padded columns get
 * lse = -inf, so their probabilities are 0). */
static void fa_bw_qpack(const fa_job *J, fa_bw_buf *u, int64_t b, int64_t hq, int64_t q0, int nq,
                        int nc, const float *lse, const float *del, int64_t *ch, int64_t *cq) {
    const int64_t E = J->d.E, Ev = J->d.Ev, Ep = ct__fa_r16(E), Evp = ct__fa_r16(Ev);
    int64_t ld;
    fa_pack_t(&J->q, b, hq, q0, nq, nc, E, (float)J->scale, u->qt);
    fa_pack_t(&J->go, b, hq, q0, nq, nc, Ev, 1.0f, u->dot);
    fa_rows(&J->q, b, hq, q0, nq, E, u->qr, Ep, false, &ld);
    fa_rows(&J->go, b, hq, q0, nq, Ev, u->dor, Evp, false, &ld);
    memset(u->qr + (int64_t)nq * Ep, 0, (size_t)((nc - nq) * Ep) * 4);
    memset(u->dor + (int64_t)nq * Evp, 0, (size_t)((nc - nq) * Evp) * 4);
    const int64_t r0 = (b * J->d.Hq + hq) * J->d.L + q0;
    for (int i = 0; i < nc; i++) {
        u->lse[i] = i < nq ? lse[r0 + i] : -INFINITY;
        u->del[i] = i < nq ? del[r0 + i] : 0.0f;
        ch[i] = hq;
        cq[i] = q0 + i;
    }
}

/* One (kv tile, q tile) pair: u->st becomes P^T (recomputed from lse), u->dp becomes dS^T. */
static void fa_bw_pair(const fa_job *J, fa_bw_buf *u, const float *kp, int64_t ldk, const float *vp,
                       int64_t ldv, int nk, int nq, int nc, int64_t b, const int64_t *ch,
                       const int64_t *cq, int64_t k0, int kind) {
    const int64_t TQ = CT__FA_TQ, E = J->d.E, Ev = J->d.Ev;
    J->ops->gemm(nk, nc, (int)E, kp, ldk, 1, u->qt, TQ, u->st, TQ, 0);
    fa_mods_tile(J, u->st, TQ, nk, nq, b, ch, cq, k0, kind, u->dm);
    J->ops->exp_cols(u->st, TQ, nk, nc, u->lse);                         /* st = P^T */
    J->ops->gemm(nk, nc, (int)Ev, vp, ldv, 1, u->dot, TQ, u->dp, TQ, 0); /* dP^T = V dO^T */
    for (int j = 0; j < nk; j++) {
        const float *p = u->st + j * TQ, *dm = u->dm + j * TQ;
        float *dp = u->dp + j * TQ;
        for (int i = 0; i < nc; i++)
            dp[i] = i < nq ? p[i] * (dp[i] - u->del[i]) * dm[i] : 0.0f; /* dp = dS^T */
    }
}

static void fa_bwd_tiled(const fa_job *J, float *dq, float *dk, float *dv, const float *lse,
                         const float *del, const uint8_t *kinds) {
    const int64_t E = J->d.E, Ev = J->d.Ev, Ep = ct__fa_r16(E), Evp = ct__fa_r16(Ev),
                  TQ = CT__FA_TQ, B = J->d.B, Hq = J->d.Hq, Hkv = J->d.Hkv, S = J->d.S;
    const int64_t nqt = fa_nqtiles(J);
    /* kv tiles: per kv block (or all of S), ceil(block / TK) sub-tiles */
    const int64_t kvsub =
        J->mask ? (J->bs + CT__FA_TK - 1) / CT__FA_TK : (S + CT__FA_TK - 1) / CT__FA_TK;
    const int64_t nkt = (J->mask ? J->nkvb : 1) * kvsub;
#pragma omp parallel num_threads(J->nt) if (J->nt > 1)
    {
        fa_bw_buf u = fa_bw_bufs(J, J->work + (int64_t)omp_get_thread_num() * J->plan.per_thread);
        int64_t ch[CT__FA_TQ], cq[CT__FA_TQ];
        /* pass 1: dK, dV, one kv tile per task */
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < B * Hkv * nkt; t++) {
            const int64_t bh = t / nkt, b = bh / Hkv, hk = bh % Hkv, kt_i = t % nkt;
            const int64_t kvb = J->mask ? kt_i / kvsub : 0;
            const int64_t k0 = J->mask ? kvb * J->bs + kt_i % kvsub * CT__FA_TK : kt_i * CT__FA_TK;
            const int64_t bend = J->mask ? ((kvb + 1) * J->bs < S ? (kvb + 1) * J->bs : S) : S;
            const int64_t kend = k0 + CT__FA_TK < bend ? k0 + CT__FA_TK : bend;
            if (k0 >= kend) continue;
            const int nk = (int)(kend - k0);
            int64_t ldk, ldv;
            const float *kp = fa_rows(&J->k, b, hk, k0, nk, E, u.kt, Ep, false, &ldk);
            const float *vp = fa_rows(&J->v, b, hk, k0, nk, Ev, u.vt, Ev, true, &ldv);
            memset(u.dka, 0, (size_t)(nk * Ep) * 4);
            memset(u.dva, 0, (size_t)(nk * Evp) * 4);
            for (int64_t hq = hk * J->G; hq < (hk + 1) * J->G; hq++)
                for (int64_t qt_i = 0; qt_i < nqt; qt_i++) {
                    int64_t qb, q0;
                    int nq;
                    if (!fa_qtile(J, qt_i, &qb, &q0, &nq)) continue;
                    const int kind =
                        J->mask ? kinds[((b * Hq + hq) * J->nqb + qb) * J->nkvb + kvb] : 2;
                    if (!kind || (kind == 1 && fa_tile_dead(J, q0, nq, k0, nk))) continue;
                    const int nc = fa_pad(J, nq);
                    fa_bw_qpack(J, &u, b, hq, q0, nq, nc, lse, del, ch, cq);
                    fa_bw_pair(J, &u, kp, ldk, vp, ldv, nk, nq, nc, b, ch, cq, k0, kind);
                    /* dV += P^T dO, dK += dS^T Q (scaled below) */
                    J->ops->gemm(nk, (int)Evp, nc, u.st, TQ, 1, u.dor, Evp, u.dva, Evp, 1);
                    J->ops->gemm(nk, (int)Ep, nc, u.dp, TQ, 1, u.qr, Ep, u.dka, Ep, 1);
                }
            for (int j = 0; j < nk; j++) {
                float *dkr = dk + ((b * Hkv + hk) * S + k0 + j) * E;
                float *dvr = dv + ((b * Hkv + hk) * S + k0 + j) * Ev;
                for (int64_t e = 0; e < E; e++)
                    dkr[e] = u.dka[j * Ep + e] * (float)J->scale;
                memcpy(dvr, u.dva + j * Evp, (size_t)Ev * 4);
            }
        }
        /* pass 2: dQ, one q tile per task (no atomics: every output has one writer) */
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < B * Hq * nqt; t++) {
            const int64_t bh = t / nqt, b = bh / Hq, hq = bh % Hq, hk = hq / J->G;
            int64_t qb, q0;
            int nq;
            if (!fa_qtile(J, t % nqt, &qb, &q0, &nq)) continue;
            const int nc = fa_pad(J, nq);
            fa_bw_qpack(J, &u, b, hq, q0, nq, nc, lse, del, ch, cq);
            memset(u.dqa, 0, (size_t)(nc * Ep) * 4);
            fa_it it;
            fa_it_init(&it, J, fa_row(J, b, hq, qb), 0, S);
            int64_t k0;
            int nk, kind;
            while (fa_it_next(&it, &k0, &nk, &kind)) {
                if (kind == 1 && fa_tile_dead(J, q0, nq, k0, nk)) continue;
                int64_t ldk, ldv;
                const float *kp = fa_rows(&J->k, b, hk, k0, nk, E, u.kt, Ep, false, &ldk);
                const float *vp = fa_rows(&J->v, b, hk, k0, nk, Ev, u.vt, Ev, true, &ldv);
                fa_bw_pair(J, &u, kp, ldk, vp, ldv, nk, nq, nc, b, ch, cq, k0, kind);
                /* dQ += dS K: A(i, j) = dS^T[j][i] */
                J->ops->gemm(nc, (int)Ep, nk, u.dp, 1, TQ, kp, ldk, u.dqa, Ep, 1);
            }
            for (int i = 0; i < nq; i++) {
                float *dqr = dq + ((b * Hq + hq) * J->d.L + q0 + i) * E;
                for (int64_t e = 0; e < E; e++)
                    dqr[e] = u.dqa[i * Ep + e] * (float)J->scale;
            }
        }
    }
}

/* float64 backward: dQ by query row, then dK / dV by key, each recomputing P from lse. */
static void fa_bwd_f64(const fa_job *J, double *dq, double *dk, double *dv, const double *lse,
                       const double *del, const uint8_t *kinds) {
    const int64_t B = J->d.B, Hq = J->d.Hq, Hkv = J->d.Hkv, L = J->d.L, S = J->d.S, E = J->d.E,
                  Ev = J->d.Ev;
    /* P and dS of one (query row r, key kv) entry; false when masked out */
#define FA_ENTRY(b, hq, qi, kv, hk, r, P, DS)                                                      \
    do {                                                                                           \
        const int64_t qo_ = fa_off(&J->q, b, hq, qi), ko_ = fa_off(&J->k, b, hk, kv),              \
                      vo_ = fa_off(&J->v, b, hk, kv), go_ = fa_off(&J->go, b, hq, qi);             \
        double s_ = 0.0, dp_ = 0.0, dm_;                                                           \
        for (int64_t e = 0; e < E; e++)                                                            \
            s_ += fa_ldd(&J->q, qo_ + e * J->q.s[3]) * fa_ldd(&J->k, ko_ + e * J->k.s[3]);         \
        s_ = fa_mod_d(J, s_ * J->scale, b, hq, qi, kv, &dm_);                                      \
        for (int64_t e = 0; e < Ev; e++)                                                           \
            dp_ += fa_ldd(&J->go, go_ + e * J->go.s[3]) * fa_ldd(&J->v, vo_ + e * J->v.s[3]);      \
        P = (s_ == -INFINITY || lse[r] == -INFINITY) ? 0.0 : exp(s_ - lse[r]);                     \
        DS = P * (dp_ - del[r]) * dm_;                                                             \
    } while (0)
#pragma omp parallel for num_threads(J->nt) schedule(dynamic, 4) if (J->nt > 1)
    for (int64_t r = 0; r < B * Hq * L; r++) {
        const int64_t b = r / (Hq * L), hq = r / L % Hq, qi = r % L, hk = hq / J->G;
        double *dqr = dq + r * E;
        for (int64_t e = 0; e < E; e++)
            dqr[e] = 0.0;
        fa_it it;
        fa_it_init(&it, J, J->mask ? fa_row(J, b, hq, qi / J->bs) : NULL, 0, S);
        int64_t k0;
        int nk, kind;
        while (fa_it_next(&it, &k0, &nk, &kind))
            for (int j = 0; j < nk; j++) {
                const int64_t kv = k0 + j;
                if (kind == 1 && !fa_allowed(J, b, hq, qi, kv)) continue;
                double p, ds;
                FA_ENTRY(b, hq, qi, kv, hk, r, p, ds);
                (void)p;
                const int64_t ko = fa_off(&J->k, b, hk, kv);
                for (int64_t e = 0; e < E; e++)
                    dqr[e] += ds * J->scale * fa_ldd(&J->k, ko + e * J->k.s[3]);
            }
    }
#pragma omp parallel for num_threads(J->nt) schedule(dynamic, 4) if (J->nt > 1)
    for (int64_t c = 0; c < B * Hkv * S; c++) {
        const int64_t b = c / (Hkv * S), hk = c / S % Hkv, kv = c % S;
        double *dkr = dk + c * E, *dvr = dv + c * Ev;
        for (int64_t e = 0; e < E; e++)
            dkr[e] = 0.0;
        for (int64_t e = 0; e < Ev; e++)
            dvr[e] = 0.0;
        for (int64_t hq = hk * J->G; hq < (hk + 1) * J->G; hq++)
            for (int64_t qi = 0; qi < L; qi++) {
                int kind = 2;
                if (J->mask) {
                    kind = kinds[((b * Hq + hq) * J->nqb + qi / J->bs) * J->nkvb + kv / J->bs];
                    if (!kind || (kind == 1 && !fa_allowed(J, b, hq, qi, kv))) continue;
                }
                const int64_t r = (b * Hq + hq) * L + qi;
                double p, ds;
                FA_ENTRY(b, hq, qi, kv, hk, r, p, ds);
                const int64_t qo = fa_off(&J->q, b, hq, qi), go = fa_off(&J->go, b, hq, qi);
                for (int64_t e = 0; e < E; e++)
                    dkr[e] += ds * J->scale * fa_ldd(&J->q, qo + e * J->q.s[3]);
                for (int64_t e = 0; e < Ev; e++)
                    dvr[e] += p * fa_ldd(&J->go, go + e * J->go.s[3]);
            }
    }
#undef FA_ENTRY
}

/* ---- entry ---- */

static void fa_in_set(fa_in *t, const ct_operand *o) {
    t->p = o->data;
    t->dt = o->dtype;
    t->es = (int)ct_dtype_size(o->dtype);
    for (int i = 0; i < 4; i++)
        t->s[i] = o->strides[i];
}

ct_status ct__cpu_attention(ct__cpu_state *s, const ct_op_desc *op) {
    const bool bwd = op->kind == CT_OP_FLEX_ATTENTION_BWD;
    const ct_operand *o = op->operands;
    const int qi = bwd ? 3 : 2; /* q, k, v at qi, qi + 1, qi + 2 */
    const ct_operand *mo = bwd ? &o[9] : &o[5], *mods = bwd ? &o[10] : &o[6],
                     *wo = bwd ? &o[11] : &o[7];
    fa_job J;
    memset(&J, 0, sizeof J);
    J.d.B = o[qi].shape[0];
    J.d.Hq = o[qi].shape[1];
    J.d.L = o[qi].shape[2];
    J.d.E = o[qi].shape[3];
    J.d.Hkv = o[qi + 1].shape[1];
    J.d.S = o[qi + 1].shape[2];
    J.d.Ev = o[qi + 2].shape[3];
    J.G = J.d.Hq / J.d.Hkv;
    fa_in_set(&J.q, &o[qi]);
    fa_in_set(&J.k, &o[qi + 1]);
    fa_in_set(&J.v, &o[qi + 2]);
    if (bwd) fa_in_set(&J.go, &o[6]);
    if (mo->data) {
        const int32_t *h = mo->data;
        J.mask = h;
        J.bs = h[CT__FA_BS];
        J.Bm = h[CT__FA_BM];
        J.Hm = h[CT__FA_HM];
        J.nqb = h[CT__FA_NQB];
        J.nkvb = h[CT__FA_NKVB];
        J.d.Hm = J.Hm;
        J.d.bs = J.bs;
    }
    const int64_t *md = mods->data;
    J.score = (ct_score_mod_fn)(intptr_t)md[CT__FA_SCORE_FN];
    J.suser = (void *)(intptr_t)md[CT__FA_SCORE_USER];
    J.sgrad = (ct_score_mod_fn)(intptr_t)md[CT__FA_SCORE_GRAD];
    J.mmod = (ct_mask_mod_fn)(intptr_t)md[CT__FA_MASK_FN];
    J.muser = (void *)(intptr_t)md[CT__FA_MASK_USER];
    J.sid = (int)md[CT__FA_SCORE_ID];
    J.mid = (int)md[CT__FA_MASK_ID];
    J.scale = op->scalars[0];
    J.prefetch = op->ints[0] == 0;
    J.ops = s->ctx->isa == CT__ISA_AVX512 ? &ct__fa_ops_avx512
            : s->ctx->isa == CT__ISA_AVX2 ? &ct__fa_ops_avx2
                                          : &ct__fa_ops_ref;
    J.nt = op->num_threads < 1 ? 1 : op->num_threads;
    J.plan = ct__fa_plan_for(&J.d, bwd, J.nt);
    if (J.d.B * J.d.Hq * J.d.L == 0 && (!bwd || J.d.B * J.d.Hkv * J.d.S == 0)) return CT_OK;
    J.work = (float *)(((uintptr_t)wo->data + 63) & ~(uintptr_t)63);
    const bool f64 = op->compute_dtype == CT_FLOAT64;
    if (!bwd) {
        if (J.d.S == 0 || J.d.Ev == 0) { /* no keys: zeros, lse -inf */
            const int64_t nrow = J.d.B * J.d.Hq * J.d.L;
            for (int64_t i = 0; i < nrow * J.d.Ev; i++)
                fa_store(o[0].data, o[0].dtype, i, 0.0);
            for (int64_t i = 0; o[1].data && i < nrow; i++)
                fa_store(o[1].data, o[1].dtype, i, J.d.S == 0 ? -INFINITY : 0.0);
            if (J.d.S == 0 || !o[1].data) return CT_OK;
        }
        if (f64)
            fa_fwd_f64(&J, o[0].data, o[1].data);
        else if (J.plan.decode)
            fa_fwd_decode(&J, o[0].data, o[0].dtype, o[1].data);
        else
            fa_fwd_tiled(&J, o[0].data, o[0].dtype, o[1].data);
        return CT_OK;
    }
    uint8_t *kinds = NULL;
    if (J.mask) {
        kinds = (uint8_t *)(J.work + (int64_t)J.nt * J.plan.per_thread + J.plan.shared);
        fa_kinds(&J, kinds);
    }
    if (f64)
        fa_bwd_f64(&J, o[0].data, o[1].data, o[2].data, o[7].data, o[8].data, kinds);
    else
        fa_bwd_tiled(&J, o[0].data, o[1].data, o[2].data, o[7].data, o[8].data, kinds);
    return CT_OK;
}

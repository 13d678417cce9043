/* FlexAttention front end: block masks (built on the host from the caller's mask function), the
 * ready-made score and mask mods, validation of q / k / v / options, and the CT_OP_FLEX_ATTENTION
 * (and _BWD) descriptors submitted through the dispatch point, so captures record them like every
 * op; the CPU backend (backends/cpu/attention_cpu.c) runs the tiled kernels. Autograd: one tape
 * node per call whose backward is ct_flex_attention_backward (src/autograd/grad_nn.c). */
#include "ctorch/attention.h"
#include "backends/cpu/kernels/attn_kernels.h"
#include "ctorch/ops.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define CT__BM_MAGIC 0x424d534bu /* "BMSK" */

/* One allocation: this header (64-byte rounded), then the int32 table of attn_kernels.h, which
 * `data` wraps; the allocation is freed when the last reference to `data` goes (graphs and tape
 * nodes hold it), so the header stays valid for them after ct_block_mask_free. */
struct ct_block_mask {
    uint32_t magic;
    ct_ctx *ctx;
    ct_mask_mod_fn mod;
    void *user;
    int64_t B, H, L, S, bs, nqb, nkvb;
    int64_t nskip, nblocks;
    bool released; /* ct_block_mask_free was called: only saved references remain */
    ct_tensor *data;
    int32_t *tab;
};

static bool bm_valid(const ct_block_mask *m) { return m && m->magic == CT__BM_MAGIC; }

/* ---- ready-made mods ---- */

static float mod_alibi(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b;
    const ct_alibi_params *p = user;
    const float sl = p->slopes ? p->slopes[h] : exp2f(-8.0f * (float)(h + 1) / (float)p->num_heads);
    return s + sl * (float)(kv - q);
}
static float mod_softcap(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h, (void)q, (void)kv;
    const float cap = ((const ct_softcap_params *)user)->cap;
    return cap * tanhf(s / cap);
}
static bool mask_causal(int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h, (void)user;
    return kv <= q;
}
static bool mask_sliding(int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h;
    return kv <= q && q - kv < ((const ct_sliding_window_params *)user)->window;
}
static bool mask_document(int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h;
    const ct_document_params *p = user;
    return p->q_doc[q] == (p->kv_doc ? p->kv_doc : p->q_doc)[kv];
}
static bool mask_prefix(int64_t b, int64_t h, int64_t q, int64_t kv, void *user) {
    (void)b, (void)h;
    return kv < ((const ct_prefix_lm_params *)user)->prefix_len || kv <= q;
}
ct_score_mod_fn ct_score_mod_alibi(void) { return mod_alibi; }
ct_score_mod_fn ct_score_mod_softcap(void) { return mod_softcap; }
ct_mask_mod_fn ct_mask_mod_causal(void) { return mask_causal; }
ct_mask_mod_fn ct_mask_mod_sliding_window(void) { return mask_sliding; }
ct_mask_mod_fn ct_mask_mod_document(void) { return mask_document; }
ct_mask_mod_fn ct_mask_mod_prefix_lm(void) { return mask_prefix; }

static int score_id(ct_score_mod_fn f) {
    return f == mod_alibi ? CT__FA_S_ALIBI : f == mod_softcap ? CT__FA_S_SOFTCAP : CT__FA_S_USER;
}
static int mask_id(ct_mask_mod_fn f) {
    return f == mask_causal     ? CT__FA_M_CAUSAL
           : f == mask_sliding  ? CT__FA_M_SLIDING
           : f == mask_document ? CT__FA_M_DOCUMENT
           : f == mask_prefix   ? CT__FA_M_PREFIX
                                : CT__FA_M_USER;
}

/* The ready-made mods' parameters, checked before anything runs (NULL user, bad values). */
static ct_status check_params(ct_ctx *ctx, const char *op, int sid, const void *su, int mid,
                              const void *mu, int64_t Hq) {
    if (sid == CT__FA_S_ALIBI) {
        const ct_alibi_params *p = su;
        if (!p)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: the ALiBi score mod needs a ct_alibi_params as user", op);
        if (!p->slopes && p->num_heads < 1)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: ALiBi num_heads is %lld", op,
                                 (long long)p->num_heads);
        if (Hq > 0 && !p->slopes && p->num_heads < Hq)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: ALiBi num_heads is %lld but q has %lld heads", op,
                                 (long long)p->num_heads, (long long)Hq);
    }
    if (sid == CT__FA_S_SOFTCAP) {
        const ct_softcap_params *p = su;
        if (!p || !(p->cap > 0) || isinf(p->cap))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: the softcap score mod needs a ct_softcap_params with a "
                                 "finite cap > 0",
                                 op);
    }
    if ((mid == CT__FA_M_SLIDING || mid == CT__FA_M_DOCUMENT || mid == CT__FA_M_PREFIX) && !mu)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: the %s mask mod needs its params as user", op,
                             mid == CT__FA_M_SLIDING    ? "sliding-window"
                             : mid == CT__FA_M_DOCUMENT ? "document"
                                                        : "prefix-LM");
    if (mid == CT__FA_M_SLIDING && ((const ct_sliding_window_params *)mu)->window < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: sliding window %lld; want >= 1", op,
                             (long long)((const ct_sliding_window_params *)mu)->window);
    if (mid == CT__FA_M_DOCUMENT && !((const ct_document_params *)mu)->q_doc)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: document mask: q_doc is NULL", op);
    return CT_OK;
}

/* ---- block masks ---- */

static void bm_deleter(void *data, void *user) {
    (void)data;
    ct_block_mask *m = user;
    m->magic = 0;
    ct__free(m->ctx, m);
}

ct_status ct_create_block_mask(ct_ctx *ctx, ct_mask_mod_fn mask_mod, void *user, int64_t B,
                               int64_t H, int64_t q_len, int64_t kv_len, int64_t block_size,
                               ct_block_mask **out) {
    static const char op[] = "create_block_mask";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    if (!mask_mod) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: mask_mod is NULL", op);
    if (B < 1 || H < 1 || q_len < 0 || kv_len < 0 || block_size < 1 || B > INT32_MAX ||
        H > INT32_MAX || q_len > INT32_MAX || kv_len > INT32_MAX || block_size > INT32_MAX)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: B=%lld H=%lld q_len=%lld kv_len=%lld block_size=%lld; want B, "
                             "H, block_size >= 1, lengths >= 0, all below 2^31",
                             op, (long long)B, (long long)H, (long long)q_len, (long long)kv_len,
                             (long long)block_size);
    const int mid = mask_id(mask_mod);
    ct_status st = check_params(ctx, op, CT__FA_S_USER, NULL, mid, user, 0);
    if (st != CT_OK) return st;
    const int64_t nqb = (q_len + block_size - 1) / block_size;
    const int64_t nkvb = (kv_len + block_size - 1) / block_size;
    /* table entries: header + B*H*nqb rows of 2 + 2*nkvb, bounded before multiplying */
    const int64_t rows = B * H > INT64_MAX / (nqb + 1) ? -1 : B * H * nqb;
    const int64_t rl = ct__fa_row_len(nkvb);
    if (rows < 0 || (rows && rl > (INT64_MAX / 8 - CT__FA_HDR) / rows) ||
        (uint64_t)(CT__FA_HDR + rows * rl) > SIZE_MAX / 8)
        return ct__set_error(ctx, CT_ERR_OOM,
                             "%s: a %lldx%lld block grid for %lld heads is too "
                             "large",
                             op, (long long)nqb, (long long)nkvb, (long long)(B * H));
    const int64_t n = CT__FA_HDR + rows * rl;
    const size_t hdr = (sizeof(ct_block_mask) + 63) / 64 * 64;
    ct_block_mask *m = ct__alloc(ctx, hdr + (size_t)n * 4, 64);
    if (!m) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory for the block table", op);
    memset(m, 0, sizeof *m);
    m->ctx = ctx;
    m->mod = mask_mod;
    m->user = user;
    m->B = B, m->H = H, m->L = q_len, m->S = kv_len, m->bs = block_size;
    m->nqb = nqb, m->nkvb = nkvb;
    m->tab = (int32_t *)((char *)m + hdr);
    int32_t *t = m->tab;
    t[CT__FA_TAG] = CT__FA_MASK_TAG;
    t[CT__FA_BS] = (int32_t)block_size;
    t[CT__FA_BM] = (int32_t)B;
    t[CT__FA_HM] = (int32_t)H;
    t[CT__FA_LQ] = (int32_t)q_len;
    t[CT__FA_LKV] = (int32_t)kv_len;
    t[CT__FA_NQB] = (int32_t)nqb;
    t[CT__FA_NKVB] = (int32_t)nkvb;
    int64_t nskip = 0;
    const int nt = ct__ctx_threads(ctx);
    /* every entry of a block until it is known to be partial (an allowed and a masked one) */
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) reduction(+ : nskip) if (nt > 1 && rows * nkvb * block_size * block_size > 65536)
    for (int64_t r = 0; r < rows; r++) {
        const int64_t b = r / (H * nqb), h = r / nqb % H, qb = r % nqb;
        int32_t *row = t + CT__FA_HDR + r * rl, *pl = row + 2, *fl = row + 2 + nkvb;
        int np = 0, nf = 0;
        const int64_t q0 = qb * block_size, q1 = q0 + block_size < q_len ? q0 + block_size : q_len;
        for (int64_t kb = 0; kb < nkvb; kb++) {
            const int64_t k0 = kb * block_size,
                          k1 = k0 + block_size < kv_len ? k0 + block_size : kv_len;
            bool any = false, all = true;
            for (int64_t q = q0; q < q1 && (all || !any); q++)
                for (int64_t kv = k0; kv < k1 && (all || !any); kv++) {
                    if (mask_mod(b, h, q, kv, user))
                        any = true;
                    else
                        all = false;
                }
            if (any && all)
                fl[nf++] = (int32_t)kb;
            else if (any)
                pl[np++] = (int32_t)kb;
            else
                nskip++;
        }
        row[0] = np;
        row[1] = nf;
        for (int i = np; i < nkvb; i++)
            pl[i] = -1;
        for (int i = nf; i < nkvb; i++)
            fl[i] = -1;
    }
    m->nskip = nskip;
    m->nblocks = rows * nkvb;
    m->magic = CT__BM_MAGIC;
    st = ct_tensor_from_blob(ctx, m->tab, CT_INT32, 1, &n, NULL, bm_deleter, m, &m->data);
    if (st != CT_OK) {
        m->magic = 0;
        ct__free(ctx, m);
        return st;
    }
    *out = m;
    return CT_OK;
}

void ct_block_mask_free(ct_block_mask *m) {
    if (!bm_valid(m) || m->released) return;
    m->released = true; /* the memory lives while graphs or tape nodes hold the table */
    ct_tensor_release(m->data);
}

double ct_block_mask_sparsity(const ct_block_mask *m) {
    if (!bm_valid(m) || m->nblocks == 0) return 0.0;
    return (double)m->nskip / (double)m->nblocks;
}

int ct_block_mask_block_kind(const ct_block_mask *m, int64_t b, int64_t h, int64_t q_block,
                             int64_t kv_block) {
    if (!bm_valid(m) || b < 0 || b >= m->B || h < 0 || h >= m->H || q_block < 0 ||
        q_block >= m->nqb || kv_block < 0 || kv_block >= m->nkvb)
        return -1;
    const int32_t *row =
        m->tab + CT__FA_HDR + ((b * m->H + h) * m->nqb + q_block) * ct__fa_row_len(m->nkvb);
    for (int i = 0; i < row[0]; i++)
        if (row[2 + i] == kv_block) return 1;
    for (int i = 0; i < row[1]; i++)
        if (row[2 + m->nkvb + i] == kv_block) return 2;
    return 0;
}

/* ---- attention ---- */

/* Options with the defaults for fields an older (smaller) struct lacks. */
typedef struct {
    double scale;
    ct_score_mod_fn score, sgrad;
    void *suser;
    const ct_block_mask *mask;
    bool gqa, ret_lse, nopipe;
} fa_opts;

#define FA_HAS(o, f) ((o)->size >= offsetof(ct_flex_options, f) + sizeof((o)->f))

static fa_opts fa_read(const ct_flex_options *o) {
    fa_opts r;
    memset(&r, 0, sizeof r);
    if (!o) return r;
    if (FA_HAS(o, scale)) r.scale = o->scale;
    if (FA_HAS(o, score_mod)) r.score = o->score_mod;
    if (FA_HAS(o, score_user)) r.suser = o->score_user;
    if (FA_HAS(o, block_mask)) r.mask = o->block_mask;
    if (FA_HAS(o, enable_gqa)) r.gqa = o->enable_gqa;
    if (FA_HAS(o, return_lse)) r.ret_lse = o->return_lse;
    if (FA_HAS(o, score_mod_grad)) r.sgrad = o->score_mod_grad;
    if (FA_HAS(o, no_pipelining)) r.nopipe = o->no_pipelining;
    return r;
}

static ct_status fa_own(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t) {
    return ct__own_tensor(ctx, op, what, t, true);
}

/* Checks shared by forward and backward; fills the dimensions. */
static ct_status fa_check(ct_ctx *ctx, const char *op, const ct_tensor *q, const ct_tensor *k,
                          const ct_tensor *v, const ct_flex_options *opts, bool bwd, fa_opts *o,
                          ct__fa_dims *d) {
    ct_status st;
    if ((st = fa_own(ctx, op, "q", q)) != CT_OK || (st = fa_own(ctx, op, "k", k)) != CT_OK ||
        (st = fa_own(ctx, op, "v", v)) != CT_OK)
        return st;
    if (opts && opts->size < offsetof(ct_flex_options, scale) + sizeof(double))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: opts->size is %zu; set it to "
                             "sizeof(ct_flex_options)",
                             op, opts->size);
    *o = fa_read(opts);
    const ct_dtype dt = ct_tensor_dtype(q);
    if (dt != CT_FLOAT32 && dt != CT_FLOAT16 && dt != CT_BFLOAT16 && dt != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: q dtype %s; want float32, float16, bfloat16 or float64", op,
                             ct_dtype_name(dt));
    if (ct_tensor_dtype(k) != dt || ct_tensor_dtype(v) != dt)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: q, k, v dtypes %s, %s, %s; want one dtype", op,
                             ct_dtype_name(dt), ct_dtype_name(ct_tensor_dtype(k)),
                             ct_dtype_name(ct_tensor_dtype(v)));
    if (ct_tensor_ndim(q) != 4 || ct_tensor_ndim(k) != 4 || ct_tensor_ndim(v) != 4)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: q, k, v have %d, %d, %d dims; want 4 (B, H, len, E)", op,
                             ct_tensor_ndim(q), ct_tensor_ndim(k), ct_tensor_ndim(v));
    const int64_t *qs = ct_tensor_shape(q), *ks = ct_tensor_shape(k), *vs = ct_tensor_shape(v);
    if (ks[0] != qs[0] || vs[0] != qs[0] || vs[1] != ks[1] || vs[2] != ks[2] || ks[3] != qs[3])
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: q is [%lld, %lld, %lld, %lld], k [%lld, %lld, %lld, %lld], v "
                             "[%lld, %lld, %lld, %lld]; want one batch, k and v of one "
                             "(B, Hkv, S), q and k of one E",
                             op, (long long)qs[0], (long long)qs[1], (long long)qs[2],
                             (long long)qs[3], (long long)ks[0], (long long)ks[1], (long long)ks[2],
                             (long long)ks[3], (long long)vs[0], (long long)vs[1], (long long)vs[2],
                             (long long)vs[3]);
    d->B = qs[0], d->Hq = qs[1], d->L = qs[2], d->E = qs[3];
    d->Hkv = ks[1], d->S = ks[2], d->Ev = vs[3];
    d->Hm = 0, d->bs = 0;
    if (d->Hkv == 0 ? d->Hq != 0 : (o->gqa ? d->Hq % d->Hkv != 0 : d->Hq != d->Hkv))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             o->gqa ? "%s: q has %lld heads, k and v %lld: with enable_gqa the "
                                      "q heads must be a multiple"
                                    : "%s: q has %lld heads, k and v %lld; set enable_gqa for "
                                      "grouped-query attention",
                             op, (long long)d->Hq, (long long)d->Hkv);
    if (!isfinite(o->scale))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: scale %g is not finite", op, o->scale);
    if (o->scale == 0) o->scale = d->E > 0 ? 1.0 / sqrt((double)d->E) : 1.0;
    if (o->mask) {
        const ct_block_mask *m = o->mask;
        /* the backward of a recorded call may see a mask the caller freed since (its table is
         * saved with the call) */
        if (!bm_valid(m) || (m->released && !bwd))
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: block_mask is not a live mask", op);
        if (m->ctx != ctx)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "%s: block_mask belongs to another "
                                 "context",
                                 op);
        if (m->L != d->L || m->S != d->S || (m->B != 1 && m->B != d->B) ||
            (m->H != 1 && m->H != d->Hq))
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: the block mask is for B=%lld H=%lld q_len=%lld "
                                 "kv_len=%lld; q is B=%lld H=%lld L=%lld and k has S=%lld "
                                 "(B and H of the mask may be 1)",
                                 op, (long long)m->B, (long long)m->H, (long long)m->L,
                                 (long long)m->S, (long long)d->B, (long long)d->Hq,
                                 (long long)d->L, (long long)d->S);
        d->Hm = m->H, d->bs = m->bs;
    }
    return check_params(ctx, op, o->score ? score_id(o->score) : CT__FA_S_USER, o->suser,
                        o->mask ? mask_id(o->mask->mod) : CT__FA_M_USER,
                        o->mask ? o->mask->user : NULL, d->Hq);
}

static void fa_free_blob(void *data, void *user) { ct__free(user, data); }

/* The mods table (attn_kernels.h) as an int64 tensor the descriptor carries. */
static ct_status fa_mods(ct_ctx *ctx, const fa_opts *o, ct_tensor **out) {
    int64_t *md = ct__alloc(ctx, CT__FA_NMODS * sizeof(int64_t), 64);
    if (!md) return ct__set_error(ctx, CT_ERR_OOM, "flex_attention: out of memory");
    memset(md, 0, CT__FA_NMODS * sizeof(int64_t));
    md[CT__FA_SCORE_FN] = (int64_t)(intptr_t)o->score;
    md[CT__FA_SCORE_USER] = (int64_t)(intptr_t)o->suser;
    md[CT__FA_SCORE_GRAD] = (int64_t)(intptr_t)o->sgrad;
    md[CT__FA_SCORE_ID] = o->score ? score_id(o->score) : CT__FA_S_USER;
    if (o->mask) {
        md[CT__FA_MASK_FN] = (int64_t)(intptr_t)o->mask->mod;
        md[CT__FA_MASK_USER] = (int64_t)(intptr_t)o->mask->user;
        md[CT__FA_MASK_ID] = mask_id(o->mask->mod);
    }
    const int64_t n = CT__FA_NMODS;
    ct_status st = ct_tensor_from_blob(ctx, md, CT_INT64, 1, &n, NULL, fa_free_blob, ctx, out);
    if (st != CT_OK) ct__free(ctx, md);
    return st;
}

static ct_status fa_work(ct_ctx *ctx, const ct__fa_dims *d, bool bwd, ct_tensor **w) {
    const ct__fa_plan p = ct__fa_plan_for(d, bwd, ct__ctx_threads(ctx));
    const int64_t n = p.total;
    return ct_tensor_empty(ctx, CT_UINT8, 1, &n, w);
}

/* Forward into out (and lse when lse_out); the tensors are made here. */
static ct_status fa_forward(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                            const fa_opts *o, const ct__fa_dims *d, ct_tensor **out,
                            ct_tensor **lse_out) {
    const ct_dtype dt = ct_tensor_dtype(q), cdt = dt == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    const int64_t os[4] = {d->B, d->Hq, d->L, d->Ev};
    ct_tensor *res = NULL, *lse = NULL, *mods = NULL, *work = NULL;
    ct_status st = ct_tensor_empty(ctx, dt, 4, os, &res);
    if (st == CT_OK && lse_out) st = ct_tensor_empty(ctx, cdt, 3, os, &lse);
    if (st == CT_OK) st = fa_mods(ctx, o, &mods);
    if (st == CT_OK) st = fa_work(ctx, d, false, &work);
    if (st == CT_OK) {
        ct_op_desc desc;
        ct__desc_init(&desc, CT_OP_FLEX_ATTENTION, 2, 6);
        ct__operand_set(&desc.operands[0], res);
        if (lse) ct__operand_set(&desc.operands[1], lse);
        ct__operand_set(&desc.operands[2], q);
        ct__operand_set(&desc.operands[3], k);
        ct__operand_set(&desc.operands[4], v);
        if (o->mask) ct__operand_set(&desc.operands[5], o->mask->data);
        ct__operand_set(&desc.operands[6], mods);
        ct__operand_set(&desc.operands[7], work);
        desc.compute_dtype = cdt;
        desc.scalars[0] = o->scale;
        desc.ints[0] = o->nopipe ? 1 : 0;
        st = ct__submit(ctx, ct_tensor_device(q), &desc);
    }
    ct_tensor_release(mods);
    ct_tensor_release(work);
    if (st != CT_OK) {
        ct_tensor_release(res);
        ct_tensor_release(lse);
        return st;
    }
    *out = res;
    if (lse_out) *lse_out = lse;
    return CT_OK;
}

ct_status ct_flex_attention(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                            const ct_flex_options *opts, ct_tensor **out, ct_tensor **lse) {
    static const char op[] = "flex_attention";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    if (lse) *lse = NULL;
    fa_opts o;
    ct__fa_dims d;
    ct_status st = fa_check(ctx, op, q, k, v, opts, false, &o, &d);
    if (st != CT_OK) return st;
    if (o.ret_lse && !lse)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: return_lse is set but lse is NULL", op);
    const ct_tensor *gin[3] = {q, k, v};
    const bool want = ct__ag_wants(ctx, 3, gin), entered = ct__ag_enter(ctx);
    ct_tensor *res = NULL, *l = NULL;
    st = fa_forward(ctx, q, k, v, &o, &d, &res, (want || o.ret_lse) ? &l : NULL);
    if (!entered) {
        if (st == CT_OK) {
            *out = res;
            if (o.ret_lse) *lse = l;
        }
        return st;
    }
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    if (st == CT_OK && want) {
        r.op = CT__AG_FLEX_ATTENTION;
        r.n_in = 4;
        r.in[0] = q, r.in[1] = k, r.in[2] = v, r.in[3] = o.mask ? o.mask->data : NULL;
        r.n_out = 2;
        r.out[0] = res, r.out[1] = l;
        r.sc[0] = o.scale;
        r.n_iv = 5;
        r.iv[0] = (int64_t)(intptr_t)o.score;
        r.iv[1] = (int64_t)(intptr_t)o.suser;
        r.iv[2] = (int64_t)(intptr_t)o.sgrad;
        r.iv[3] = (int64_t)(intptr_t)o.mask;
        r.iv[4] = o.gqa;
    }
    st = ct__ag_after(ctx, st, &r, &res);
    if (st != CT_OK) return st; /* a failed record released the outputs */
    *out = res;
    if (o.ret_lse)
        *lse = l;
    else
        ct_tensor_release(l);
    return CT_OK;
}

/* Shape check of a (B, H, len[, D]) tensor argument of the backward. */
static ct_status fa_shape(ct_ctx *ctx, const char *op, const char *what, const ct_tensor *t, int nd,
                          const int64_t *want) {
    ct_status st = fa_own(ctx, op, what, t);
    if (st != CT_OK) return st;
    bool ok = ct_tensor_ndim(t) == nd;
    for (int i = 0; ok && i < nd; i++)
        ok = ct_tensor_shape(t)[i] == want[i];
    if (!ok)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: %s must have shape [%lld, %lld, %lld%s%lld]",
                             op, what, (long long)want[0], (long long)want[1], (long long)want[2],
                             nd == 4 ? ", " : "", nd == 4 ? (long long)want[3] : 0LL);
    return CT_OK;
}

static ct_status ct__flex_attention_backward_body(
    ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v, const ct_tensor *out,
    const ct_tensor *lse, const ct_tensor *grad_out, const ct_tensor *grad_lse,
    const ct_flex_options *opts, ct_tensor **dq, ct_tensor **dk, ct_tensor **dv) {
    static const char op[] = "flex_attention_backward";
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!dq || !dk || !dv)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: dq, dk and dv must not be NULL", op);
    *dq = *dk = *dv = NULL;
    fa_opts o;
    ct__fa_dims d;
    ct_status st = fa_check(ctx, op, q, k, v, opts, true, &o, &d);
    if (st != CT_OK) return st;
    const int64_t os[4] = {d.B, d.Hq, d.L, d.Ev};
    if ((st = fa_shape(ctx, op, "out", out, 4, os)) != CT_OK ||
        (st = fa_shape(ctx, op, "grad_out", grad_out, 4, os)) != CT_OK ||
        (st = fa_shape(ctx, op, "lse", lse, 3, os)) != CT_OK ||
        (grad_lse && (st = fa_shape(ctx, op, "grad_lse", grad_lse, 3, os)) != CT_OK))
        return st;
    if (o.score && score_id(o.score) == CT__FA_S_USER && !o.sgrad)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: a user score_mod needs score_mod_grad (its derivative in the "
                             "score) for the backward pass",
                             op);
    const ct_dtype dt = ct_tensor_dtype(q), cdt = dt == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32;
    const bool entered = ct__ag_enter(ctx); /* the ops below record nothing */
    ct_tensor *go = NULL, *o32 = NULL, *l32 = NULL, *prod = NULL, *del = NULL, *mods = NULL,
              *work = NULL, *g[3] = {0};
    const int last = -1;
    if ((st = ct__to_dtype(ctx, grad_out, cdt, &go)) != CT_OK ||
        (st = ct__to_dtype(ctx, out, cdt, &o32)) != CT_OK ||
        (st = ct__to_dtype(ctx, lse, cdt, &l32)) != CT_OK ||
        (st = ct_mul(ctx, go, o32, &prod)) != CT_OK ||
        (st = ct_sum(ctx, prod, 1, &last, false, &del)) != CT_OK)
        goto done;
    if (grad_lse) { /* d lse / d s = P: delta absorbs it (dS = P (dP - (delta - g_lse))) */
        ct_tensor *gl32 = NULL, *nd = NULL;
        if ((st = ct__to_dtype(ctx, grad_lse, cdt, &gl32)) == CT_OK &&
            (st = ct_sub(ctx, del, gl32, &nd)) == CT_OK) {
            ct_tensor_release(del);
            del = nd;
        }
        ct_tensor_release(gl32);
        if (st != CT_OK) goto done;
    }
    {
        const int64_t qs[4] = {d.B, d.Hq, d.L, d.E}, ks[4] = {d.B, d.Hkv, d.S, d.E},
                      vs[4] = {d.B, d.Hkv, d.S, d.Ev};
        if ((st = ct_tensor_empty(ctx, cdt, 4, qs, &g[0])) != CT_OK ||
            (st = ct_tensor_empty(ctx, cdt, 4, ks, &g[1])) != CT_OK ||
            (st = ct_tensor_empty(ctx, cdt, 4, vs, &g[2])) != CT_OK ||
            (st = fa_mods(ctx, &o, &mods)) != CT_OK ||
            (st = fa_work(ctx, &d, true, &work)) != CT_OK)
            goto done;
        ct_op_desc desc;
        ct__desc_init(&desc, CT_OP_FLEX_ATTENTION_BWD, 3, 9);
        for (int i = 0; i < 3; i++)
            ct__operand_set(&desc.operands[i], g[i]);
        ct__operand_set(&desc.operands[3], q);
        ct__operand_set(&desc.operands[4], k);
        ct__operand_set(&desc.operands[5], v);
        ct__operand_set(&desc.operands[6], grad_out);
        ct__operand_set(&desc.operands[7], l32);
        ct__operand_set(&desc.operands[8], del);
        if (o.mask) ct__operand_set(&desc.operands[9], o.mask->data);
        ct__operand_set(&desc.operands[10], mods);
        ct__operand_set(&desc.operands[11], work);
        desc.compute_dtype = cdt;
        desc.scalars[0] = o.scale;
        if ((st = ct__submit(ctx, ct_tensor_device(q), &desc)) != CT_OK) goto done;
    }
    if (dt != cdt) {
        ct_tensor *c[3] = {0};
        for (int i = 0; i < 3 && st == CT_OK; i++)
            st = ct__to_dtype(ctx, g[i], dt, &c[i]);
        for (int i = 0; i < 3; i++) {
            ct_tensor_release(g[i]);
            g[i] = c[i];
        }
    }
done:
    if (entered) ct__ag_leave(ctx);
    ct_tensor_release(go);
    ct_tensor_release(o32);
    ct_tensor_release(l32);
    ct_tensor_release(prod);
    ct_tensor_release(del);
    ct_tensor_release(mods);
    ct_tensor_release(work);
    if (st != CT_OK) {
        for (int i = 0; i < 3; i++)
            ct_tensor_release(g[i]);
        return st;
    }
    *dq = g[0], *dk = g[1], *dv = g[2];
    return CT_OK;
}

ct_status ct_flex_attention_backward(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k,
                                     const ct_tensor *v, const ct_tensor *out, const ct_tensor *lse,
                                     const ct_tensor *grad_out, const ct_tensor *grad_lse,
                                     const ct_flex_options *opts, ct_tensor **dq, ct_tensor **dk,
                                     ct_tensor **dv) {
    return ct__error_within(ctx, "flex_attention_backward",
                            ct__flex_attention_backward_body(ctx, q, k, v, out, lse, grad_out,
                                                             grad_lse, opts, dq, dk, dv));
}

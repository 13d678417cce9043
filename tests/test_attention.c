/* FlexAttention against a naive float64 reference (the whole score matrix, mods applied entry by
 * entry, softmax, P @ V): every ready-made mod and combinations, odd sizes, GQA, empty rows, -inf
 * and large scores, strided q/k/v, the decoding path, f16 / bf16 / f64; block-mask
 * classification and sparsity against brute force; errors; gradients (f64 central differences
 * through autograd, f32 against f64); capture and replay. Runs once per ISA. */
#include "test_util.h"

static ct_ctx *ctx;
static unsigned long long rng = 12345;

typedef struct {
    int64_t B, Hq, Hkv, L, S, E, Ev;
} dims;

/* ---- the reference ---- */

typedef struct {
    ct_score_mod_fn score; /* kernel's view; the reference computes ready-made ones in double */
    void *suser;
    int sid; /* 0 none/user, 1 alibi, 2 softcap */
    ct_mask_mod_fn mask;
    void *muser;
    double scale;
} ref_mods;

static double ref_score(const ref_mods *m, double s, int64_t b, int64_t h, int64_t q, int64_t kv) {
    if (m->sid == 1) {
        const ct_alibi_params *p = m->suser;
        const double sl =
            p->slopes ? p->slopes[h] : pow(2.0, -8.0 * (double)(h + 1) / p->num_heads);
        return s + sl * (double)(kv - q);
    }
    if (m->sid == 2) {
        const double cap = ((const ct_softcap_params *)m->suser)->cap;
        return cap * tanh(s / cap);
    }
    if (m->score) return m->score((float)s, b, h, q, kv, m->suser);
    return s;
}

/* q (B,Hq,L,E), k (B,Hkv,S,E), v (B,Hkv,S,Ev) in C order. */
static double ref_smax; /* largest |score| the last reference call saw (finite, unmasked) */
static void ref_attention(const dims *d, const double *q, const double *k, const double *v,
                          const ref_mods *m, double *out, double *lse) {
    ref_smax = 0;
    double *s = malloc(sizeof(double) * (size_t)(d->S + 1));
    const int64_t G = d->Hq / d->Hkv;
    for (int64_t b = 0; b < d->B; b++)
        for (int64_t h = 0; h < d->Hq; h++)
            for (int64_t i = 0; i < d->L; i++) {
                const double *qr = q + ((b * d->Hq + h) * d->L + i) * d->E;
                double mx = -INFINITY;
                for (int64_t j = 0; j < d->S; j++) {
                    const double *kr = k + ((b * d->Hkv + h / G) * d->S + j) * d->E;
                    double t = 0;
                    for (int64_t e = 0; e < d->E; e++)
                        t += qr[e] * kr[e];
                    t = ref_score(m, t * m->scale, b, h, i, j);
                    if (m->mask && !m->mask(b, h, i, j, m->muser)) t = -INFINITY;
                    s[j] = t;
                    if (t > mx) mx = t;
                    if (isfinite(t) && fabs(t) > ref_smax) ref_smax = fabs(t);
                }
                double *o = out + ((b * d->Hq + h) * d->L + i) * d->Ev, l = 0;
                for (int64_t e = 0; e < d->Ev; e++)
                    o[e] = 0;
                if (mx == -INFINITY) {
                    lse[(b * d->Hq + h) * d->L + i] = -INFINITY;
                    continue;
                }
                for (int64_t j = 0; j < d->S; j++) {
                    const double p = exp(s[j] - mx);
                    l += p;
                    const double *vr = v + ((b * d->Hkv + h / G) * d->S + j) * d->Ev;
                    for (int64_t e = 0; e < d->Ev; e++)
                        o[e] += p * vr[e];
                }
                for (int64_t e = 0; e < d->Ev; e++)
                    o[e] /= l;
                lse[(b * d->Hq + h) * d->L + i] = mx + log(l);
            }
    free(s);
}

/* ---- making inputs ---- */

/* A (B, H, n, D) tensor of dt with values uniform in [-amp, amp] (rounded to dt; returned in *vals
 * in C order). layout 1: stored as (B, n, H, D) and permuted (the usual projection layout);
 * layout 2: a step-2 slice of the last dim. */
static ct_tensor *mk(ct_dtype dt, int64_t B, int64_t H, int64_t n, int64_t D, int layout,
                     double amp, double **vals) {
    int64_t shp[4] = {B, H, n, D};
    if (layout == 1) shp[1] = n, shp[2] = H;
    if (layout == 2) shp[3] = 2 * D;
    const int64_t cnt = shp[0] * shp[1] * shp[2] * shp[3];
    void *buf = malloc((size_t)(cnt ? cnt : 1) * 8);
    for (int64_t i = 0; i < cnt; i++)
        tu_set(buf, dt, i, amp * (2 * ct_t_uniform(&rng) - 1));
    ct_tensor *base = NULL, *t = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, buf, dt, 4, shp, &base));
    free(buf);
    if (layout == 1) {
        const int perm[4] = {0, 2, 1, 3};
        CHECK_OK(ct_tensor_permute(ctx, base, perm, &t));
    } else if (layout == 2) {
        CHECK_OK(ct_tensor_slice(ctx, base, 3, 0, INT64_MAX, 2, &t));
    } else {
        t = ct_tensor_retain(base);
    }
    ct_tensor_release(base);
    *vals = tu_read(t);
    return t;
}

typedef struct {
    dims d;
    ct_dtype dt;
    int layout;
    double amp_q;
    ct_score_mod_fn score;
    void *suser;
    ct_mask_mod_fn mask;
    void *muser;
    int64_t mB, mH, bs; /* block mask dims (0: no block mask) */
    double scale;
    const char *name;
} fcase;

static double max_abs(const double *x, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(x[i]) > m) m = fabs(x[i]);
    return m;
}

static int score_sid(ct_score_mod_fn f) {
    return f == ct_score_mod_alibi() ? 1 : f == ct_score_mod_softcap() ? 2 : 0;
}

/* Run one case; returns the max error relative to the output scale. */
static double run_case(const fcase *c) {
    const dims *d = &c->d;
    double *qv, *kv, *vv;
    ct_tensor *q = mk(c->dt, d->B, d->Hq, d->L, d->E, c->layout, c->amp_q, &qv);
    ct_tensor *k = mk(c->dt, d->B, d->Hkv, d->S, d->E, c->layout, 1.0, &kv);
    ct_tensor *v = mk(c->dt, d->B, d->Hkv, d->S, d->Ev, c->layout == 1 ? 2 : c->layout, 1.0, &vv);
    ct_block_mask *bm = NULL;
    if (c->bs)
        CHECK_OK(
            ct_create_block_mask(ctx, c->mask, c->muser, c->mB, c->mH, d->L, d->S, c->bs, &bm));
    ct_flex_options o = {sizeof o,        c->scale, c->score, c->suser, bm,
                         d->Hq != d->Hkv, true,     NULL,     false};
    ct_tensor *out = NULL, *lse = NULL;
    CHECK_OK(ct_flex_attention(ctx, q, k, v, &o, &out, &lse));
    const int64_t no = d->B * d->Hq * d->L * d->Ev, nl = d->B * d->Hq * d->L;
    double *ro = malloc(sizeof(double) * (size_t)(no + 1)),
           *rl = malloc(sizeof(double) * (size_t)(nl + 1));
    ref_mods rm = {c->score,
                   c->suser,
                   score_sid(c->score),
                   c->bs ? c->mask : NULL,
                   c->muser,
                   c->scale != 0 ? c->scale : 1.0 / sqrt((double)(d->E ? d->E : 1))};
    ref_attention(d, qv, kv, vv, &rm, ro, rl);
    double err = INFINITY;
    if (out && lse) {
        CHECK(ct_tensor_dtype(out) == c->dt && ct_tensor_ndim(out) == 4);
        CHECK(ct_tensor_dtype(lse) == (c->dt == CT_FLOAT64 ? CT_FLOAT64 : CT_FLOAT32));
        double *go = tu_read(out), *gl = tu_read(lse);
        const double sc = max_abs(ro, no) > 1e-30 ? max_abs(ro, no) : 1.0;
        err = 0;
        for (int64_t i = 0; i < no; i++) {
            const double e = fabs(go[i] - ro[i]) / sc;
            if (!(e <= err)) err = e; /* NaN counts as infinite */
        }
        for (int64_t i = 0; i < nl; i++) {
            if (rl[i] == -INFINITY) {
                CHECK_MSG(gl[i] == -INFINITY, "%s: lse[%lld] = %g, want -inf", c->name,
                          (long long)i, gl[i]);
                continue;
            }
            const double e = fabs(gl[i] - rl[i]) / (fabs(rl[i]) > 1 ? fabs(rl[i]) : 1);
            if (!(e <= err)) err = e;
        }
        free(go), free(gl);
    }
    free(ro), free(rl), free(qv), free(kv), free(vv);
    ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v);
    ct_tensor_release(out), ct_tensor_release(lse);
    ct_block_mask_free(bm);
    return err;
}

/* Error bound relative to the output scale. Scores are rounded to the compute precision once
 * they are formed (|s| 2^-24 in f32), and an error d in a score moves the output by about d
 * times its scale: beyond |s| = 10 that term dominates, and the f32 bound grows as 2e-7 max|s|
 * (docs/attention.md). */
static double tol_of(ct_dtype dt) {
    const double grow = ref_smax > 10 ? ref_smax / 10 : 1;
    return grow * (dt == CT_FLOAT64   ? 1e-12
                   : dt == CT_FLOAT32 ? 2e-6
                   : dt == CT_FLOAT16 ? 2e-3
                                      : 1.6e-2);
}

#define RUNC(...)                                                                                  \
    do {                                                                                           \
        fcase c_ = {__VA_ARGS__};                                                                  \
        double e_ = run_case(&c_);                                                                 \
        CHECK_MSG(e_ <= tol_of(c_.dt),                                                             \
                  "%s (%s, B%lld Hq%lld Hkv%lld L%lld S%lld E%lld Ev%lld): "                       \
                  "error %.3g > %.3g",                                                             \
                  c_.name, ct_dtype_name(c_.dt), (long long)c_.d.B, (long long)c_.d.Hq,            \
                  (long long)c_.d.Hkv, (long long)c_.d.L, (long long)c_.d.S, (long long)c_.d.E,    \
                  (long long)c_.d.Ev, e_, tol_of(c_.dt));                                          \
    } while (0)

/* ---- user mods ---- */
static bool mask_every_third(int64_t b, int64_t h, int64_t q, int64_t kv, void *u) {
    (void)u;
    return (q + 2 * kv + b + h) % 3 != 0;
}
static bool mask_none_for_even_rows(int64_t b, int64_t h, int64_t q, int64_t kv, void *u) {
    (void)b, (void)h, (void)u;
    return q % 2 == 1 && kv <= q; /* even query rows see no key at all */
}
static float score_neg_inf_odd(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *u) {
    (void)b, (void)h, (void)q, (void)u;
    return kv % 2 ? -INFINITY : s;
}
static float score_affine(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *u) {
    (void)u;
    return 1.5f * s + 0.01f * (float)(b + h) - 0.002f * (float)(q - kv);
}
static float score_half(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *u) {
    (void)b, (void)h, (void)q, (void)kv, (void)u;
    return 0.5f * s;
}
static float score_half_grad(float s, int64_t b, int64_t h, int64_t q, int64_t kv, void *u) {
    (void)s, (void)b, (void)h, (void)q, (void)kv, (void)u;
    return 0.5f;
}

static int64_t doc_ids[4096];
static void random_docs(int64_t n, int ndocs) {
    int64_t cut[16] = {0};
    for (int i = 1; i < ndocs; i++)
        cut[i] = (int64_t)(ct_t_uniform(&rng) * (double)n);
    for (int64_t i = 0; i < n; i++) {
        int id = 0;
        for (int j = 1; j < ndocs; j++)
            id += i >= cut[j];
        doc_ids[i] = id;
    }
}

TEST(ready_made_mods_compute_their_formulas) {
    ct_alibi_params ap = {4, NULL};
    ct_softcap_params sp = {5.0f};
    ct_sliding_window_params wp = {3};
    int64_t docs[6] = {0, 0, 1, 1, 1, 2};
    ct_document_params dp = {docs, NULL};
    ct_prefix_lm_params pp = {2};
    for (int64_t q = 0; q < 6; q++)
        for (int64_t kv = 0; kv < 6; kv++) {
            CHECK(ct_mask_mod_causal()(0, 0, q, kv, NULL) == (kv <= q));
            CHECK(ct_mask_mod_sliding_window()(0, 0, q, kv, &wp) == (kv <= q && q - kv < 3));
            CHECK(ct_mask_mod_document()(0, 0, q, kv, &dp) == (docs[q] == docs[kv]));
            CHECK(ct_mask_mod_prefix_lm()(0, 0, q, kv, &pp) == (kv < 2 || kv <= q));
            const float s = 0.25f * (float)(q - 2 * kv);
            CHECK(fabsf(ct_score_mod_alibi()(s, 0, 2, q, kv, &ap) -
                        (s + powf(2.0f, -6.0f) * (float)(kv - q))) < 1e-6f);
            CHECK(fabsf(ct_score_mod_softcap()(s, 0, 0, q, kv, &sp) - 5.0f * tanhf(s / 5.0f)) <
                  1e-6f);
        }
}

TEST(dense_and_ready_made_mods_match_reference) {
    static ct_alibi_params ap = {4, NULL};
    static ct_softcap_params sp = {2.0f};
    static ct_sliding_window_params wp = {20};
    static ct_prefix_lm_params pp = {13};
    const dims d = {2, 4, 4, 70, 70, 16, 24};
    RUNC(d, CT_FLOAT32, 0, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "dense");
    RUNC(d, CT_FLOAT32, 0, 1.0, ct_score_mod_alibi(), &ap, NULL, NULL, 0, 0, 0, 0, "alibi");
    RUNC(d, CT_FLOAT32, 0, 3.0, ct_score_mod_softcap(), &sp, NULL, NULL, 0, 0, 0, 0, "softcap");
    RUNC(d, CT_FLOAT32, 0, 1.0, NULL, NULL, ct_mask_mod_causal(), NULL, 1, 1, 32, 0, "causal");
    RUNC(d, CT_FLOAT32, 1, 1.0, ct_score_mod_alibi(), &ap, ct_mask_mod_causal(), NULL, 1, 1, 16, 0,
         "causal+alibi");
    RUNC(d, CT_FLOAT32, 0, 3.0, ct_score_mod_softcap(), &sp, ct_mask_mod_sliding_window(), &wp, 1,
         1, 16, 0.3, "sliding+softcap");
    RUNC(d, CT_FLOAT32, 0, 1.0, NULL, NULL, ct_mask_mod_prefix_lm(), &pp, 2, 1, 24, 0, "prefix");
    random_docs(70, 4);
    static ct_document_params dp = {doc_ids, NULL};
    RUNC(d, CT_FLOAT32, 2, 1.0, NULL, NULL, ct_mask_mod_document(), &dp, 1, 1, 16, 0, "document");
    RUNC(d, CT_FLOAT32, 0, 1.0, score_affine, NULL, mask_every_third, NULL, 2, 4, 8, 0,
         "user mods, per-head mask");
}

TEST(odd_sizes_and_head_dims) {
    static const int64_t Es[] = {1, 3, 64, 80, 128};
    static const int64_t lens[][2] = {{1, 1}, {7, 33}, {33, 7}, {65, 129}, {130, 100}};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            const dims d = {1, 2, 2, lens[j][0], lens[j][1], Es[i], Es[(i + j) % 5]};
            RUNC(d, CT_FLOAT32, j % 3, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "dense odd");
            RUNC(d, CT_FLOAT32, 0, 1.0, NULL, NULL, ct_mask_mod_causal(), NULL, 1, 1, 16 + 7 * j, 0,
                 "causal odd block");
        }
}

TEST(gqa_and_decoding) {
    const dims g = {2, 8, 2, 40, 90, 32, 32};
    RUNC(g, CT_FLOAT32, 1, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "gqa");
    RUNC(g, CT_FLOAT32, 0, 1.0, NULL, NULL, ct_mask_mod_causal(), NULL, 1, 1, 32, 0, "gqa causal");
    RUNC(g, CT_FLOAT32, 0, 1.0, NULL, NULL, mask_every_third, NULL, 2, 8, 32, 0, "gqa per-head");
    /* decoding: one query row (or two) per head, long S split into chunks and merged */
    const dims d1 = {1, 8, 2, 1, 5000, 64, 48};
    RUNC(d1, CT_FLOAT32, 1, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "decode gqa");
    static ct_alibi_params ap = {8, NULL};
    RUNC(d1, CT_FLOAT32, 0, 1.0, ct_score_mod_alibi(), &ap, mask_every_third, NULL, 1, 1, 128, 0,
         "decode alibi + mask");
    const dims d2 = {2, 3, 3, 2, 4500, 20, 20};
    RUNC(d2, CT_FLOAT32, 2, 1.0, NULL, NULL, mask_every_third, NULL, 2, 3, 64, 0,
         "decode per-head mask");
    const dims d3 = {1, 2, 2, 1, 300, 64, 64};
    RUNC(d3, CT_FLOAT64, 0, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "decode f64");
}

TEST(empty_rows_inf_and_large_scores) {
    const dims d = {1, 2, 2, 40, 40, 8, 8};
    /* every even query row has no allowed key: zeros and lse -inf */
    RUNC(d, CT_FLOAT32, 0, 1.0, NULL, NULL, mask_none_for_even_rows, NULL, 1, 1, 16, 0,
         "empty rows");
    RUNC(d, CT_FLOAT64, 0, 1.0, NULL, NULL, mask_none_for_even_rows, NULL, 1, 1, 16, 0,
         "empty rows f64");
    const dims d1 = {1, 1, 1, 1, 10, 4, 4};
    RUNC(d1, CT_FLOAT32, 0, 1.0, NULL, NULL, mask_none_for_even_rows, NULL, 1, 1, 4, 0,
         "decode empty row");
    RUNC(d, CT_FLOAT32, 0, 1.0, score_neg_inf_odd, NULL, NULL, NULL, 0, 0, 0, 0, "-inf scores");
    RUNC(d, CT_FLOAT32, 1, 400.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "large scores");
    RUNC(d, CT_FLOAT32, 1, 400.0, NULL, NULL, ct_mask_mod_causal(), NULL, 1, 1, 8, 0,
         "large scores causal");
    /* a zero-length key axis: zeros, lse -inf; zero queries: empty outputs */
    const dims z = {1, 2, 2, 5, 0, 4, 3}, z2 = {1, 2, 2, 0, 6, 4, 3};
    RUNC(z, CT_FLOAT32, 0, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "no keys");
    RUNC(z2, CT_FLOAT32, 0, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "no queries");
    const dims z3 = {1, 2, 2, 1, 10, 4, 0}, z4 = {1, 2, 2, 70, 10, 4, 0};
    RUNC(z3, CT_FLOAT32, 0, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "decode, Ev = 0 (lse only)");
    RUNC(z4, CT_FLOAT32, 0, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "tiled, Ev = 0 (lse only)");
}

TEST(half_precision_and_f64) {
    const dims d = {1, 4, 2, 50, 77, 32, 16};
    for (int i = 0; i < 3; i++) {
        const ct_dtype dt = i == 0 ? CT_FLOAT16 : i == 1 ? CT_BFLOAT16 : CT_FLOAT64;
        RUNC(d, dt, 1, 1.0, NULL, NULL, NULL, NULL, 0, 0, 0, 0, "low precision dense");
        RUNC(d, dt, 0, 1.0, NULL, NULL, ct_mask_mod_causal(), NULL, 1, 1, 16, 0,
             "low precision causal");
    }
}

TEST(block_mask_classification_and_sparsity) {
    static ct_sliding_window_params wp = {37};
    struct {
        ct_mask_mod_fn f;
        void *u;
        int64_t B, H, L, S, bs;
    } cs[] = {{ct_mask_mod_causal(), NULL, 1, 1, 300, 300, 64},
              {ct_mask_mod_sliding_window(), &wp, 1, 1, 257, 257, 32},
              {mask_every_third, NULL, 2, 3, 50, 61, 7},
              {mask_none_for_even_rows, NULL, 1, 1, 33, 17, 1}};
    for (int c = 0; c < 4; c++) {
        ct_block_mask *m = NULL;
        CHECK_OK(ct_create_block_mask(ctx, cs[c].f, cs[c].u, cs[c].B, cs[c].H, cs[c].L, cs[c].S,
                                      cs[c].bs, &m));
        const int64_t nqb = (cs[c].L + cs[c].bs - 1) / cs[c].bs,
                      nkb = (cs[c].S + cs[c].bs - 1) / cs[c].bs;
        int64_t skipped = 0, bad = 0;
        for (int64_t b = 0; b < cs[c].B; b++)
            for (int64_t h = 0; h < cs[c].H; h++)
                for (int64_t qb = 0; qb < nqb; qb++)
                    for (int64_t kb = 0; kb < nkb; kb++) {
                        int64_t n = 0, a = 0;
                        for (int64_t q = qb * cs[c].bs; q < (qb + 1) * cs[c].bs && q < cs[c].L; q++)
                            for (int64_t k = kb * cs[c].bs; k < (kb + 1) * cs[c].bs && k < cs[c].S;
                                 k++, n++)
                                a += cs[c].f(b, h, q, k, cs[c].u);
                        const int want = a == 0 ? 0 : a == n ? 2 : 1;
                        skipped += want == 0;
                        bad += ct_block_mask_block_kind(m, b, h, qb, kb) != want;
                    }
        CHECK_MSG(bad == 0, "case %d: %lld blocks misclassified", c, (long long)bad);
        const double want = (double)skipped / (double)(cs[c].B * cs[c].H * nqb * nkb);
        CHECK_MSG(ct_block_mask_sparsity(m) == want, "case %d: sparsity %.17g, want %.17g", c,
                  ct_block_mask_sparsity(m), want);
        CHECK(ct_block_mask_block_kind(m, 0, 0, nqb, 0) == -1);
        CHECK(ct_block_mask_block_kind(m, cs[c].B, 0, 0, 0) == -1);
        ct_block_mask_free(m);
    }
    /* causal at 4096 / 128: 32*33/2 computed blocks of 1024 */
    ct_block_mask *m = NULL;
    CHECK_OK(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, 4096, 4096, 128, &m));
    CHECK(ct_block_mask_sparsity(m) == 1.0 - 528.0 / 1024.0);
    ct_block_mask_free(m);
    CHECK(ct_block_mask_sparsity(NULL) == 0.0);
    ct_block_mask_free(NULL);
}

TEST(errors_name_the_values) {
    double *qv, *kv, *vv;
    ct_tensor *q = mk(CT_FLOAT32, 1, 4, 8, 16, 0, 1, &qv),
              *k = mk(CT_FLOAT32, 1, 2, 9, 16, 0, 1, &kv),
              *v = mk(CT_FLOAT32, 1, 2, 9, 16, 0, 1, &vv), *out = NULL, *lse = NULL;
    CHECK_ST(ct_flex_attention(ctx, q, k, v, NULL, &out, NULL), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "enable_gqa") != NULL);
    ct_flex_options o = {sizeof o, 0, NULL, NULL, NULL, true, true, NULL, false};
    CHECK_ST(ct_flex_attention(ctx, q, k, v, &o, &out, NULL), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "return_lse") != NULL);
    CHECK_OK(ct_flex_attention(ctx, q, k, v, &o, &out, &lse));
    ct_tensor_release(out), ct_tensor_release(lse);
    out = lse = NULL;
    double *tmp;
    ct_tensor *k3 = mk(CT_FLOAT32, 1, 3, 9, 16, 0, 1, &tmp);
    free(tmp);
    CHECK_ST(ct_flex_attention(ctx, q, k3, k3, &o, &out, &lse), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "multiple") != NULL);
    ct_tensor *kb = mk(CT_BFLOAT16, 1, 2, 9, 16, 0, 1, &tmp);
    free(tmp);
    CHECK_ST(ct_flex_attention(ctx, q, kb, v, &o, &out, &lse), CT_ERR_DTYPE);
    ct_tensor *k8 = mk(CT_FLOAT32, 1, 2, 9, 8, 0, 1, &tmp);
    free(tmp);
    CHECK_ST(ct_flex_attention(ctx, q, k8, v, &o, &out, &lse), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "[1, 4, 8, 16]") != NULL);
    ct_block_mask *m = NULL;
    CHECK_OK(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, 8, 10, 4, &m));
    o.block_mask = m;
    CHECK_ST(ct_flex_attention(ctx, q, k, v, &o, &out, &lse), CT_ERR_SHAPE);
    CHECK(strstr(ct_ctx_last_error(ctx), "kv_len=10") != NULL);
    ct_block_mask_free(m);
    o.block_mask = NULL;
    o.score_mod = ct_score_mod_alibi();
    CHECK_ST(ct_flex_attention(ctx, q, k, v, &o, &out, &lse), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "ct_alibi_params") != NULL);
    ct_alibi_params ap = {2, NULL};
    o.score_user = &ap;
    CHECK_ST(ct_flex_attention(ctx, q, k, v, &o, &out, &lse), CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "num_heads is 2") != NULL);
    o.score_mod = NULL;
    o.scale = NAN;
    CHECK_ST(ct_flex_attention(ctx, q, k, v, &o, &out, &lse), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_create_block_mask(ctx, NULL, NULL, 1, 1, 4, 4, 2, &m), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, 4, 4, 0, &m),
             CT_ERR_INVALID_ARG);
    CHECK_ST(ct_create_block_mask(ctx, ct_mask_mod_sliding_window(), NULL, 1, 1, 4, 4, 2, &m),
             CT_ERR_INVALID_ARG);
    CHECK(strstr(ct_ctx_last_error(ctx), "sliding-window") != NULL);
    CHECK_ST(
        ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, (int64_t)1 << 40, 4, 2, &m),
        CT_ERR_INVALID_ARG);
    ct_tensor *q3 = NULL;
    const int64_t s3[3] = {4, 8, 16};
    CHECK_OK(ct_tensor_empty(ctx, CT_FLOAT32, 3, s3, &q3));
    CHECK_ST(ct_flex_attention(ctx, q3, k, v, NULL, &out, NULL), CT_ERR_SHAPE);
    CHECK(out == NULL && lse == NULL);
    ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v), ct_tensor_release(k3);
    ct_tensor_release(kb), ct_tensor_release(k8), ct_tensor_release(q3);
    free(qv), free(kv), free(vv);
}

/* ---- gradients ---- */

static struct {
    ct_tensor *q, *k, *v;
    ct_flex_options o;
    int which; /* the input f varies */
    bool with_lse;
} G;

/* out (and lse, appended) as a function of one of q, k, v. */
static ct_status attn_of(const ct_tensor *x, ct_tensor **y) {
    const ct_tensor *q = G.which == 0 ? x : G.q, *k = G.which == 1 ? x : G.k,
                    *v = G.which == 2 ? x : G.v;
    ct_tensor *out = NULL, *lse = NULL;
    ct_status st = ct_flex_attention(ctx, q, k, v, &G.o, &out, &lse);
    if (st != CT_OK || !G.with_lse) {
        ct_tensor_release(lse);
        *y = out;
        return st;
    }
    /* y = out * 1 + sum over Ev of out... keep it simple: y = cat(out, lse[..., None]) */
    ct_tensor *l4 = NULL;
    st = ct_tensor_unsqueeze(ctx, lse, 3, &l4);
    const ct_tensor *parts[2] = {out, l4};
    if (st == CT_OK) st = ct_cat(ctx, 2, parts, 3, y);
    ct_tensor_release(out), ct_tensor_release(lse), ct_tensor_release(l4);
    return st;
}

TEST(gradients_f64_central_differences) {
    static ct_alibi_params ap = {4, NULL};
    static ct_softcap_params sp = {1.5f};
    static ct_sliding_window_params wp = {3};
    static ct_prefix_lm_params pp = {2};
    static int64_t docs[9] = {0, 0, 0, 1, 1, 2, 2, 2, 2};
    static ct_document_params dp = {docs, NULL};
    struct {
        ct_score_mod_fn s, sg;
        void *su;
        ct_mask_mod_fn m;
        void *mu;
        const char *name;
    } cs[] = {{NULL, NULL, NULL, NULL, NULL, "dense"},
              {ct_score_mod_alibi(), NULL, &ap, NULL, NULL, "alibi"},
              {ct_score_mod_softcap(), NULL, &sp, NULL, NULL, "softcap"},
              {NULL, NULL, NULL, ct_mask_mod_causal(), NULL, "causal"},
              {NULL, NULL, NULL, ct_mask_mod_sliding_window(), &wp, "sliding"},
              {NULL, NULL, NULL, ct_mask_mod_document(), &dp, "document"},
              {NULL, NULL, NULL, ct_mask_mod_prefix_lm(), &pp, "prefix"},
              {NULL, NULL, NULL, mask_every_third, NULL, "user mask"}};
    const int64_t B = 1, Hq = 4, Hkv = 2, L = 9, S = 9, E = 3, Ev = 2;
    for (int c = 0; c < 8; c++) {
        double *tmp;
        G.q = mk(CT_FLOAT64, B, Hq, L, E, 0, 1.0, &tmp);
        free(tmp);
        G.k = mk(CT_FLOAT64, B, Hkv, S, E, 0, 1.0, &tmp);
        free(tmp);
        G.v = mk(CT_FLOAT64, B, Hkv, S, Ev, 0, 1.0, &tmp);
        free(tmp);
        ct_block_mask *m = NULL;
        if (cs[c].m) CHECK_OK(ct_create_block_mask(ctx, cs[c].m, cs[c].mu, 1, 1, L, S, 4, &m));
        const ct_flex_options o = {sizeof o, 0.7,  cs[c].s,  cs[c].su, m,
                                   true,     true, cs[c].sg, false};
        G.o = o;
        G.with_lse = c % 2 == 1;
        const int64_t qs[4] = {B, Hq, L, E}, ks[4] = {B, Hkv, S, E}, vs[4] = {B, Hkv, S, Ev};
        char nm[64];
        for (G.which = 0; G.which < 3; G.which++) {
            snprintf(nm, sizeof nm, "%s d%c", cs[c].name, "qkv"[G.which]);
            tu_gradcheck(ctx, &rng, nm, attn_of, 4, G.which == 0 ? qs : G.which == 1 ? ks : vs);
        }
        ct_block_mask_free(m); /* the recorded graphs above are gone; nothing else holds it */
        ct_tensor_release(G.q), ct_tensor_release(G.k), ct_tensor_release(G.v);
    }
}

/* f32 (tiled kernels) against f64 gradients on a larger problem with every tile shape. */
TEST(gradients_f32_tiled_match_f64) {
    static ct_alibi_params ap = {4, NULL};
    const int64_t B = 1, Hq = 4, Hkv = 2, L = 150, S = 131, E = 20, Ev = 36;
    for (int c = 0; c < 3; c++) {
        double *qv, *kv, *vv, *gv;
        ct_tensor *q = mk(CT_FLOAT32, B, Hq, L, E, c == 1, 1.0, &qv),
                  *k = mk(CT_FLOAT32, B, Hkv, S, E, c == 1, 1.0, &kv),
                  *v = mk(CT_FLOAT32, B, Hkv, S, Ev, 0, 1.0, &vv),
                  *go = mk(CT_FLOAT32, B, Hq, L, Ev, 0, 1.0, &gv);
        ct_tensor *t64[4] = {0}, *t32[4] = {q, k, v, go};
        for (int i = 0; i < 4; i++)
            CHECK_OK(ct_cast(ctx, t32[i], CT_FLOAT64, &t64[i]));
        ct_block_mask *m = NULL;
        if (c > 0)
            CHECK_OK(ct_create_block_mask(ctx, c == 1 ? ct_mask_mod_causal() : mask_every_third,
                                          NULL, 1, c == 1 ? 1 : Hq, L, S, c == 1 ? 64 : 50, &m));
        ct_flex_options o = {
            sizeof o, 0, c == 1 ? ct_score_mod_alibi() : NULL, &ap, m, true, true, NULL, false};
        ct_tensor *r[2][5] = {{0}};
        for (int p = 0; p < 2; p++) {
            ct_tensor **t = p ? t64 : t32;
            CHECK_OK(ct_flex_attention(ctx, t[0], t[1], t[2], &o, &r[p][0], &r[p][1]));
            CHECK_OK(ct_flex_attention_backward(ctx, t[0], t[1], t[2], r[p][0], r[p][1], t[3], NULL,
                                                &o, &r[p][2], &r[p][3], &r[p][4]));
        }
        for (int i = 2; i < 5; i++) {
            double *a = tu_read(r[0][i]), *b = tu_read(r[1][i]);
            const int64_t n = ct_tensor_numel(r[1][i]);
            const double sc = max_abs(b, n);
            double err = 0;
            for (int64_t j = 0; j < n; j++)
                err = fmax(err, fabs(a[j] - b[j]) / sc);
            CHECK_MSG(err < 2e-5, "case %d grad %d: f32 vs f64 error %.3g", c, i - 2, err);
            free(a), free(b);
        }
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < 5; i++)
                ct_tensor_release(r[p][i]);
        for (int i = 0; i < 4; i++)
            ct_tensor_release(t64[i]), ct_tensor_release(t32[i]);
        free(qv), free(kv), free(vv), free(gv);
        ct_block_mask_free(m);
    }
}

/* A user score mod 0.5 s with its derivative gives the gradients of scale / 2 (the derivative is
 * used: without it the gradients would be twice as large). f32 and f64. */
TEST(user_score_mod_gradient_uses_its_derivative) {
    for (int p = 0; p < 2; p++) {
        const ct_dtype dt = p ? CT_FLOAT64 : CT_FLOAT32;
        double *tmp;
        ct_tensor *t[4];
        const int64_t L = 70, E = 12;
        for (int i = 0; i < 4; i++) {
            t[i] = mk(dt, 1, 2, L, E, 0, 1.0, &tmp);
            free(tmp);
        }
        ct_flex_options a = {sizeof a, 0.8,  score_half,      NULL, NULL,
                             false,    true, score_half_grad, false};
        ct_flex_options b = {sizeof b, 0.4, NULL, NULL, NULL, false, true, NULL, false};
        ct_tensor *r[2][5] = {{0}};
        for (int c = 0; c < 2; c++) {
            const ct_flex_options *o = c ? &b : &a;
            CHECK_OK(ct_flex_attention(ctx, t[0], t[1], t[2], o, &r[c][0], &r[c][1]));
            CHECK_OK(ct_flex_attention_backward(ctx, t[0], t[1], t[2], r[c][0], r[c][1], t[3], NULL,
                                                o, &r[c][2], &r[c][3], &r[c][4]));
        }
        for (int i = 0; i < 5; i++) {
            double *x = tu_read(r[0][i]), *y = tu_read(r[1][i]);
            const int64_t n = ct_tensor_numel(r[0][i]);
            double err = 0;
            for (int64_t j = 0; j < n; j++)
                err = fmax(err, fabs(x[j] - y[j]));
            CHECK_MSG(err < (p ? 1e-6 : 1e-5), "%s output %d: error %.3g", ct_dtype_name(dt), i,
                      err);
            free(x), free(y);
        }
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < 5; i++)
                ct_tensor_release(r[c][i]);
        for (int i = 0; i < 4; i++)
            ct_tensor_release(t[i]);
    }
}

TEST(backward_needs_the_user_score_derivative) {
    double *tmp;
    ct_tensor *q = mk(CT_FLOAT32, 1, 1, 4, 4, 0, 1, &tmp);
    free(tmp);
    ct_flex_options o = {sizeof o, 0, score_affine, NULL, NULL, false, true, NULL, false};
    ct_tensor *out = NULL, *lse = NULL, *g[3] = {0};
    CHECK_OK(ct_flex_attention(ctx, q, q, q, &o, &out, &lse));
    CHECK_ST(ct_flex_attention_backward(ctx, q, q, q, out, lse, out, NULL, &o, &g[0], &g[1], &g[2]),
             CT_ERR_UNSUPPORTED);
    CHECK(strstr(ct_ctx_last_error(ctx), "score_mod_grad") != NULL);
    ct_tensor_release(q), ct_tensor_release(out), ct_tensor_release(lse);
}

TEST(capture_replays_and_keeps_the_mask_alive) {
    double *qv, *kv, *vv;
    ct_tensor *q = mk(CT_FLOAT32, 1, 2, 70, 16, 0, 1, &qv),
              *k = mk(CT_FLOAT32, 1, 2, 70, 16, 0, 1, &kv),
              *v = mk(CT_FLOAT32, 1, 2, 70, 16, 0, 1, &vv);
    ct_block_mask *m = NULL;
    CHECK_OK(ct_create_block_mask(ctx, ct_mask_mod_causal(), NULL, 1, 1, 70, 70, 32, &m));
    ct_flex_options o = {sizeof o, 0, NULL, NULL, m, false, false, NULL, false};
    ct_tensor *eager = NULL, *cap = NULL;
    CHECK_OK(ct_flex_attention(ctx, q, k, v, &o, &eager, NULL));
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, ct_tensor_device(q), NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_flex_attention(ctx, q, k, v, &o, &cap, NULL));
    CHECK_OK(ct_graph_capture_end(g));
    ct_block_mask_free(m); /* the graph holds the table */
    CHECK_OK(ct_graph_instantiate(g));
    CHECK_OK(ct_graph_replay(g));
    CHECK(tu_same_values(eager, cap));
    ct_graph_free(g);
    ct_tensor_release(q), ct_tensor_release(k), ct_tensor_release(v);
    ct_tensor_release(eager), ct_tensor_release(cap);
    free(qv), free(kv), free(vv);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    printf("isa %s\n", ct_ctx_cpu_isa(ctx));
    RUN(ready_made_mods_compute_their_formulas);
    RUN(dense_and_ready_made_mods_match_reference);
    RUN(odd_sizes_and_head_dims);
    RUN(gqa_and_decoding);
    RUN(empty_rows_inf_and_large_scores);
    RUN(half_precision_and_f64);
    RUN(block_mask_classification_and_sparsity);
    RUN(errors_name_the_values);
    RUN(gradients_f64_central_differences);
    RUN(gradients_f32_tiled_match_f64);
    RUN(user_score_mod_gradient_uses_its_derivative);
    RUN(backward_needs_the_user_score_derivative);
    RUN(capture_replays_and_keeps_the_mask_alive);
    ct_ctx_free(ctx);
    return ct_test_end();
}

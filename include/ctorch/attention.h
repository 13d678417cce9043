/* FlexAttention: scaled dot-product attention with a user score function and a block-sparse mask
 * (torch.nn.attention.flex_attention). out = softmax(score_mod(scale * q @ k^T) masked) @ v,
 * computed tile by tile with an online softmax: no L x S score matrix is ever stored, and kv
 * blocks the mask rules out entirely are never touched. docs/attention.md has the details.
 *
 * Shapes: q (B, Hq, L, E), k (B, Hkv, S, E), v (B, Hkv, S, Ev) with any strides (a [B, L, H, E]
 * tensor permuted to [B, H, L, E] needs no copy); out (B, Hq, L, Ev) contiguous in q's dtype;
 * lse (B, Hq, L) float32 (natural log). float32, float16, bfloat16 (computed in float32) and
 * float64 (computed in float64). Hq must equal Hkv unless enable_gqa (then Hq % Hkv == 0 and
 * query head h uses kv head h / (Hq / Hkv)).
 *
 * A query row with no allowed key (every score masked or -inf) gives zeros and lse = -inf, where
 * a naive softmax would give NaN.
 *
 * Ownership: ct_create_block_mask gives an owned mask (ct_block_mask_free); outputs are owned
 * tensors. Thread-safety: as the context. The score and mask functions are called from the
 * library's worker threads (several at once) and must not call into ctorch; their `user` data
 * must stay valid while any graph that captured the call can still be replayed. */
#ifndef CTORCH_ATTENTION_H
#define CTORCH_ATTENTION_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* New score of one (batch, query head, query, key) entry from the scaled dot product. */
typedef float (*ct_score_mod_fn)(float score, int64_t b, int64_t h, int64_t q_idx, int64_t kv_idx,
                                 void *user);
/* True where query q_idx may attend to key kv_idx (h is the query head). */
typedef bool (*ct_mask_mod_fn)(int64_t b, int64_t h, int64_t q_idx, int64_t kv_idx, void *user);

typedef struct ct_block_mask ct_block_mask;

/* Evaluate mask_mod over every (b, h, q, kv) of a [B, H, q_len, kv_len] problem (B or H may be 1:
 * the same mask for every batch / head) and classify each block_size x block_size block as
 * skipped (no entry allowed), full (every entry allowed: mask_mod is not called there during
 * attention) or partial (mask_mod is evaluated per entry). Runs on the host (as torch's
 * create_block_mask), over the context's threads. Sizes must fit in int32. */
CT_API ct_status ct_create_block_mask(ct_ctx *ctx, ct_mask_mod_fn mask_mod, void *user, int64_t B,
                                      int64_t H, int64_t q_len, int64_t kv_len, int64_t block_size,
                                      ct_block_mask **out);
/* Release the mask (NULL is a no-op); graphs and autograd nodes that use it keep it alive. */
CT_API void ct_block_mask_free(ct_block_mask *m);
/* Fraction of blocks skipped, in [0, 1] (torch's BlockMask.sparsity() is this times 100). */
CT_API double ct_block_mask_sparsity(const ct_block_mask *m);
/* Kind of one block: 0 skipped, 1 partial, 2 full; -1 for a bad mask or index. */
CT_API int ct_block_mask_block_kind(const ct_block_mask *m, int64_t b, int64_t h, int64_t q_block,
                                    int64_t kv_block);

typedef struct ct_flex_options {
    size_t size;               /* sizeof(ct_flex_options) */
    double scale;              /* 0: 1/sqrt(E) */
    ct_score_mod_fn score_mod; /* NULL: the score unchanged */
    void *score_user;
    const ct_block_mask *block_mask; /* NULL: dense (every key allowed) */
    bool enable_gqa;
    bool return_lse; /* write *lse (then lse must not be NULL) */
    /* d score_mod / d score at (score, b, h, q, kv), for the backward pass of a user score_mod
     * (the ready-made mods know theirs); NULL: such a backward returns CT_ERR_UNSUPPORTED */
    ct_score_mod_fn score_mod_grad;
    bool no_pipelining; /* turn off the prefetch of the next K/V tile (for measurements) */
} ct_flex_options;

/* out = attention(q, k, v) as above; lse receives the log-sum-exp of each query row when
 * opts->return_lse (NULL otherwise). opts may be NULL (dense, default scale, no mods).
 * Differentiable in q, k and v (not in the mods' parameters). */
CT_API ct_status ct_flex_attention(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k,
                                   const ct_tensor *v, const ct_flex_options *opts, ct_tensor **out,
                                   ct_tensor **lse);
/* Gradients of a ct_flex_attention call (the same q, k, v, opts) from its out and lse, by
 * recomputation with the same tiling and block skipping: grad_out (B, Hq, L, Ev), grad_lse
 * (B, Hq, L) or NULL. dq, dk, dv get q's, k's and v's shapes and dtypes. */
CT_API ct_status ct_flex_attention_backward(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k,
                                            const ct_tensor *v, const ct_tensor *out,
                                            const ct_tensor *lse, const ct_tensor *grad_out,
                                            const ct_tensor *grad_lse, const ct_flex_options *opts,
                                            ct_tensor **dq, ct_tensor **dk, ct_tensor **dv);

/* Ready-made mods; each takes the struct named beside it as `user`. */
typedef struct ct_alibi_params {
    int64_t num_heads;   /* Hq */
    const float *slopes; /* per query head; NULL: 2^(-8 (h + 1) / num_heads) */
} ct_alibi_params;       /* score + slope[h] * (kv_idx - q_idx) */
typedef struct ct_softcap_params {
    float cap;       /* > 0 */
} ct_softcap_params; /* cap * tanh(score / cap) */
typedef struct ct_sliding_window_params {
    int64_t window;         /* >= 1 */
} ct_sliding_window_params; /* causal and q_idx - kv_idx < window: the last `window` keys */
typedef struct ct_document_params {
    const int64_t *q_doc;  /* document id of each query position (q_len entries) */
    const int64_t *kv_doc; /* of each key position; NULL: q_doc (self-attention) */
} ct_document_params;      /* q_doc[q_idx] == kv_doc[kv_idx] */
typedef struct ct_prefix_lm_params {
    int64_t prefix_len;
} ct_prefix_lm_params; /* kv_idx < prefix_len or kv_idx <= q_idx */

/* ALiBi: a linear bias by distance (user: ct_alibi_params). */
CT_API ct_score_mod_fn ct_score_mod_alibi(void);
/* Soft-capping with tanh (user: ct_softcap_params). */
CT_API ct_score_mod_fn ct_score_mod_softcap(void);
/* Causal: kv_idx <= q_idx (user: NULL). */
CT_API ct_mask_mod_fn ct_mask_mod_causal(void);
/* Causal sliding window (user: ct_sliding_window_params). */
CT_API ct_mask_mod_fn ct_mask_mod_sliding_window(void);
/* Document (packed sequences) masking (user: ct_document_params). */
CT_API ct_mask_mod_fn ct_mask_mod_document(void);
/* Prefix LM: bidirectional over the prefix, causal after it (user: ct_prefix_lm_params). */
CT_API ct_mask_mod_fn ct_mask_mod_prefix_lm(void);

#ifdef __cplusplus
}
#endif
#endif

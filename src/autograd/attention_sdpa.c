/* Attention as composites of recording ops (differentiable, capturable):
 * F.scaled_dot_product_attention (PyTorch 2.x's math backend: q and k^T each scaled by
 * sqrt(scale), the mask added, _safe_softmax (a row with no admissible key gives zeros, not NaN),
 * dropout, @ v; half precision computed in float32) and F.multi_head_attention_forward (torch
 * 1.13's functional.py: in-projection, bias_k / bias_v, add_zero_attn, key_padding_mask,
 * attn_mask, static k / v, baddbmm of the scaled query, softmax, dropout, bmm, out-projection,
 * the averaged or per-head weights). docs/everyday.md ("Attention") lists the differences. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#define SH(...) ((const int64_t[]){__VA_ARGS__})

static bool ct__is_half(ct_dtype d) { return d == CT_FLOAT16 || d == CT_BFLOAT16; }

/* softmax over the last dim whose all -inf rows give 0 (torch's _safe_softmax); the rows are
 * replaced by zeros before the softmax so neither the value nor the gradient sees a NaN */
static ct_status ct__safe_softmax(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    ct_tensor *t[4] = {NULL};
    const int last = a->ndim - 1;
    ct_status st = ct_eq_scalar(ctx, a, -INFINITY, &t[0]);
    CT__DO(st, ct_all(ctx, t[0], 1, &last, true, &t[1]));
    CT__DO(st, ct_masked_fill(ctx, a, t[1], 0.0, &t[2]));
    CT__DO(st, ct_softmax(ctx, t[2], last, &t[3]));
    CT__DO(st, ct_masked_fill(ctx, t[3], t[1], 0.0, out));
    ct__release_all(4, t);
    return st;
}

static ct_status ct__sdpa(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k, const ct_tensor *v,
                          const ct_sdpa_opts *o, ct_tensor **out) {
    const char *op = "scaled_dot_product_attention";
    const ct_tensor *ins[4] = {q, k, v, o->attn_mask};
    ct_status st = ct__check_args(ctx, op, o->attn_mask ? 4 : 3, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (q->dtype != k->dtype || q->dtype != v->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected query, key and value to have the same dtype, got %s, "
                             "%s and %s",
                             op, ct_dtype_name(q->dtype), ct_dtype_name(k->dtype),
                             ct_dtype_name(v->dtype));
    if (!ct_dtype_is_floating(q->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected floating point inputs, got %s", op,
                             ct_dtype_name(q->dtype));
    if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected query, key and value of at least 2 dims, got %s, %s "
                             "and %s",
                             op, CT__SHAPE_STR(q), CT__SHAPE_STR(k), CT__SHAPE_STR(v));
    const int64_t E = q->shape[q->ndim - 1], L = q->shape[q->ndim - 2], S = k->shape[k->ndim - 2];
    if (k->shape[k->ndim - 1] != E || v->shape[v->ndim - 2] != S)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: query %s (..., L, E), key %s (..., S, E) and value %s (..., S, "
                             "Ev) do not match",
                             op, CT__SHAPE_STR(q), CT__SHAPE_STR(k), CT__SHAPE_STR(v));
    const ct_tensor *m = o->attn_mask;
    if (m && m->dtype != CT_BOOL && m->dtype != CT_FLOAT32 && m->dtype != q->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected attn_mask dtype to be bool or float or to match the "
                             "query's %s, got %s",
                             op, ct_dtype_name(q->dtype), ct_dtype_name(m->dtype));
    if (m && o->is_causal)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: an explicit attn_mask should not be set when is_causal is true",
                             op);
    if (!(o->dropout_p >= 0 && o->dropout_p <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: dropout_p must be in [0, 1], got %g", op,
                             o->dropout_p);
    if (!isfinite(o->scale))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: scale must be finite, got %g", op,
                             o->scale);
    int64_t rep = 1;
    if (o->enable_gqa) {
        if (q->ndim < 3 || k->ndim < 3 || v->ndim < 3)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: enable_gqa needs a heads dim (-3) in query, key and value",
                                 op);
        const int64_t hq = q->shape[q->ndim - 3], hk = k->shape[k->ndim - 3],
                      hv = v->shape[v->ndim - 3];
        if (hk == 0 || hq % hk || hk != hv)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: the number of heads in key (%lld) and value (%lld) must be "
                                 "equal and divide the number of heads in query (%lld)",
                                 op, (long long)hk, (long long)hv, (long long)hq);
        rep = hk ? hq / hk : 1;
    }
    ct_tensor *t[20] = {NULL};
    /* half precision runs in float32 (torch's default for the math backend) */
    const bool up = ct__is_half(q->dtype);
    if (up) {
        st = ct_cast(ctx, q, CT_FLOAT32, &t[0]);
        CT__DO(st, ct_cast(ctx, k, CT_FLOAT32, &t[1]));
        CT__DO(st, ct_cast(ctx, v, CT_FLOAT32, &t[2]));
    } else {
        t[0] = ct_tensor_retain((ct_tensor *)q), t[1] = ct_tensor_retain((ct_tensor *)k);
        t[2] = ct_tensor_retain((ct_tensor *)v);
    }
    const ct_dtype acc = up ? CT_FLOAT32 : q->dtype;
    const bool neg = o->scale < 0;
    const double sf = sqrt(o->scale != 0 ? fabs(o->scale) : 1.0 / sqrt((double)E));
    CT__DO(st, ct_mul_scalar(ctx, t[0], neg ? -sf : sf, &t[3]));
    if (rep > 1) {
        CT__DO(st, ct_repeat_interleave(ctx, t[1], rep, t[1]->ndim - 3, &t[4]));
        CT__DO(st, ct_repeat_interleave(ctx, t[2], rep, t[2]->ndim - 3, &t[5]));
    } else if (st == CT_OK) {
        t[4] = ct_tensor_retain(t[1]), t[5] = ct_tensor_retain(t[2]);
    }
    CT__DO(st, ct_tensor_transpose(ctx, t[4], -2, -1, &t[6]));
    CT__DO(st, ct_mul_scalar(ctx, t[6], sf, &t[7]));
    CT__DO(st, ct_matmul(ctx, t[3], t[7], &t[8]));
    /* the additive mask: causal (tril of ones), bool (false -> -inf) or float */
    if (st == CT_OK && (o->is_causal || m)) {
        if (o->is_causal) {
            st = ct_tensor_ones(ctx, CT_BOOL, 2, SH(L, S), &t[9]);
            CT__DO(st, ct_tril(ctx, t[9], 0, &t[10]));
        } else {
            t[10] = ct_tensor_retain((ct_tensor *)m);
        }
        if (st == CT_OK && t[10]->dtype == CT_BOOL) {
            CT__DO(st, ct_logical_not(ctx, t[10], &t[11]));
            CT__DO(st, ct_tensor_zeros(ctx, acc, t[10]->ndim, t[10]->shape, &t[12]));
            CT__DO(st, ct_masked_fill(ctx, t[12], t[11], -INFINITY, &t[13]));
        } else if (st == CT_OK) {
            t[13] = ct_tensor_retain(t[10]);
        }
        CT__DO(st, ct_add(ctx, t[8], t[13], &t[14]));
        if (st == CT_OK &&
            (t[14]->ndim != t[8]->ndim ||
             memcmp(t[14]->shape, t[8]->shape, sizeof(int64_t) * (size_t)t[8]->ndim)))
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "%s: attn_mask %s does not broadcast to the scores' shape %s", op,
                               CT__SHAPE_STR(t[13]), CT__SHAPE_STR(t[8]));
    } else if (st == CT_OK) {
        t[14] = ct_tensor_retain(t[8]);
    }
    CT__DO(st, ct__safe_softmax(ctx, t[14], &t[15]));
    if (o->dropout_p > 0) {
        CT__DO(st, ct_dropout(ctx, t[15], o->dropout_p, true, o->seed, o->offset, &t[16]));
    } else if (st == CT_OK) {
        t[16] = ct_tensor_retain(t[15]);
    }
    if (up) {
        CT__DO(st, ct_matmul(ctx, t[16], t[5], &t[17]));
        CT__DO(st, ct_cast(ctx, t[17], q->dtype, out));
    } else {
        CT__DO(st, ct_matmul(ctx, t[16], t[5], out));
    }
    ct__release_all(20, t);
    return st;
}

ct_status ct_scaled_dot_product_attention(ct_ctx *ctx, const ct_tensor *q, const ct_tensor *k,
                                          const ct_tensor *v, const ct_sdpa_opts *opts,
                                          ct_tensor **out) {
    const ct_sdpa_opts dflt = {0};
    return ct__error_within(ctx, "scaled_dot_product_attention",
                            ct__sdpa(ctx, q, k, v, opts ? opts : &dflt, out));
}

/* ---- F.multi_head_attention_forward (torch 1.13's functional.py, step by step) ---- */
/* the temporaries of one call, released together (the code below bounds their number) */
typedef struct ct__tpool {
    ct_tensor *t[97];
    int n;
} ct__tpool;

static ct_status ct__mha_check(ct_ctx *ctx, const char *op, const ct_tensor *q, const ct_tensor *k,
                               const ct_tensor *v, int64_t heads, const ct_tensor *w_out,
                               const ct_mha_opts *o, bool *batched) {
    const ct_tensor *ins[4] = {q, k, v, w_out};
    ct_status st = ct__check_args(ctx, op, 4, ins, ins);
    if (st != CT_OK) return st;
    const ct_tensor *opt[] = {o->in_proj_weight, o->in_proj_bias,     o->q_proj_weight,
                              o->k_proj_weight,  o->v_proj_weight,    o->bias_k,
                              o->bias_v,         o->key_padding_mask, o->attn_mask,
                              o->static_k,       o->static_v};
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
        if (!opt[i]) continue;
        const ct_tensor *pi[2] = {q, opt[i]};
        if ((st = ct__check_args(ctx, op, 2, pi, pi)) != CT_OK) return st;
    }
    if (!ct_dtype_is_floating(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: expected floating query, key and value of one dtype, got %s, %s "
                             "and %s",
                             op, ct_dtype_name(q->dtype), ct_dtype_name(k->dtype),
                             ct_dtype_name(v->dtype));
    if (q->ndim != 2 && q->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: query should be unbatched 2-d or batched 3-d, got %s", op,
                             CT__SHAPE_STR(q));
    *batched = q->ndim == 3;
    if (k->ndim != q->ndim || v->ndim != q->ndim)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: for a %d-d query, key and value must be %d-d, got %s and %s", op,
                             q->ndim, q->ndim, CT__SHAPE_STR(k), CT__SHAPE_STR(v));
    const ct_tensor *kpm = o->key_padding_mask, *am = o->attn_mask;
    if (kpm && kpm->ndim != q->ndim - 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: for a %s query, key_padding_mask must be %d-d, got %s", op,
                             *batched ? "batched" : "unbatched", q->ndim - 1, CT__SHAPE_STR(kpm));
    if (kpm && kpm->dtype != CT_BOOL && !ct_dtype_is_floating(kpm->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: only bool and floating key_padding_mask are supported, got %s",
                             op, ct_dtype_name(kpm->dtype));
    if (am && am->dtype != CT_BOOL && am->dtype != CT_UINT8 && !ct_dtype_is_floating(am->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: only float, byte and bool attn_mask are supported, got %s", op,
                             ct_dtype_name(am->dtype));
    if (am && am->ndim != 2 && am->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: attn_mask's dimension %d is not supported", op,
                             am->ndim);
    const int64_t E = q->shape[q->ndim - 1];
    if (heads <= 0 || E % heads)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: embed_dim %lld not divisible by num_heads %lld", op, (long long)E,
                             (long long)heads);
    if (!o->in_proj_weight && (!o->q_proj_weight || !o->k_proj_weight || !o->v_proj_weight))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: give in_proj_weight, or q_proj_weight, k_proj_weight and "
                             "v_proj_weight",
                             op);
    if (o->in_proj_weight) {
        if (k->ndim != v->ndim || memcmp(k->shape, v->shape, sizeof(int64_t) * (size_t)k->ndim))
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: key shape %s does not match value shape %s", op,
                                 CT__SHAPE_STR(k), CT__SHAPE_STR(v));
        const ct_tensor *w = o->in_proj_weight;
        if (w->ndim != 2 || w->shape[0] != 3 * E || w->shape[1] != E)
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: in_proj_weight %s must be (%lld, %lld)",
                                 op, CT__SHAPE_STR(w), (long long)(3 * E), (long long)E);
    } else {
        for (int d = 0; d + 1 < k->ndim; d++)
            if (k->shape[d] != v->shape[d])
                return ct__set_error(ctx, CT_ERR_SHAPE,
                                     "%s: key's sequence and batch dims %s do not match value's %s",
                                     op, CT__SHAPE_STR(k), CT__SHAPE_STR(v));
    }
    if (o->in_proj_bias && (o->in_proj_bias->ndim != 1 || o->in_proj_bias->shape[0] != 3 * E))
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: in_proj_bias %s must be (%lld)", op,
                             CT__SHAPE_STR(o->in_proj_bias), (long long)(3 * E));
    if (!o->bias_k != !o->bias_v)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: give both bias_k and bias_v or neither",
                             op);
    if (o->bias_k && (o->static_k || o->static_v))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: bias cannot be added to static key / value", op);
    if (w_out->ndim != 2 || w_out->shape[1] != E)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: out_proj_weight %s must be (E_out, %lld)", op,
                             CT__SHAPE_STR(w_out), (long long)E);
    if (!(o->dropout_p >= 0 && o->dropout_p <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: dropout_p must be in [0, 1], got %g", op,
                             o->dropout_p);
    return CT_OK;
}

/* NEW: the next free slot; PUSH(call) runs call while st is CT_OK and keeps what it wrote in NEW
 * (LAST), so LAST in call's arguments is the previous result */
#define NEW (M.t[M.n])
#define LAST (M.n > 0 ? M.t[M.n - 1] : NULL)
#define PUSH(call)                                                                                 \
    do {                                                                                           \
        if (st == CT_OK) {                                                                         \
            assert(M.n < 96);                                                                      \
            st = (call);                                                                           \
            if (M.t[M.n]) M.n++;                                                                   \
        }                                                                                          \
    } while (0)

static ct_status ct__mha(ct_ctx *ctx, const ct_tensor *query, const ct_tensor *key,
                         const ct_tensor *value, int64_t H, const ct_tensor *w_out,
                         const ct_tensor *b_out, const ct_mha_opts *o, ct_tensor **out,
                         ct_tensor **weights) {
    const char *op = "multi_head_attention_forward";
    bool batched = true;
    ct_status st = ct__mha_check(ctx, op, query, key, value, H, w_out, o, &batched);
    if (st != CT_OK) return st;
    ct__tpool M = {{NULL}, 0};
    ct_tensor *q = NULL, *k = NULL, *v = NULL, *qin = NULL, *kin = NULL, *vin = NULL;
    ct_tensor *am = NULL, *kpm = NULL; /* borrowed from M */
    if (!batched) {
        PUSH(ct_tensor_unsqueeze(ctx, query, 1, &NEW));
        qin = LAST;
        PUSH(ct_tensor_unsqueeze(ctx, key, 1, &NEW));
        kin = LAST;
        PUSH(ct_tensor_unsqueeze(ctx, value, 1, &NEW));
        vin = LAST;
        if (o->key_padding_mask) {
            PUSH(ct_tensor_unsqueeze(ctx, o->key_padding_mask, 0, &NEW));
            kpm = LAST;
        }
    } else {
        qin = (ct_tensor *)query, kin = (ct_tensor *)key, vin = (ct_tensor *)value;
        kpm = (ct_tensor *)o->key_padding_mask;
    }
    if (st != CT_OK) goto done;
    const int64_t L = qin->shape[0], N = qin->shape[1], E = qin->shape[2], hd = E / H;
    int64_t S = kin->shape[0];
    if (kin->shape[1] != N || vin->shape[1] != N) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: query %s, key %s and value %s: batch sizes differ", op,
                           CT__SHAPE_STR(query), CT__SHAPE_STR(key), CT__SHAPE_STR(value));
        goto done;
    }
    /* in-projection (torch's _in_projection_packed / _in_projection) */
    ct_tensor *wc[3] = {NULL}, *bc[3] = {NULL};
    int nw = 0, nb = 0;
    if (o->in_proj_bias) {
        st = ct_chunk(ctx, o->in_proj_bias, 3, 0, 3, bc, &nb);
        for (int i = 0; i < nb; i++)
            M.t[M.n++] = bc[i];
    }
    if (o->in_proj_weight && query == key && key == value) {
        PUSH(ct_linear(ctx, qin, o->in_proj_weight, o->in_proj_bias, &NEW));
        ct_tensor *ch[3] = {NULL};
        int n = 0;
        CT__DO(st, ct_chunk(ctx, LAST, 3, 2, 3, ch, &n));
        for (int i = 0; i < n; i++)
            M.t[M.n++] = ch[i];
        if (n == 3) q = ch[0], k = ch[1], v = ch[2];
    } else if (o->in_proj_weight && key == value) {
        ct_tensor *wq = NULL, *wkv = NULL, *bkv = NULL;
        CT__DO(st, ct_tensor_narrow(ctx, o->in_proj_weight, 0, 0, E, &wq));
        M.t[M.n++] = wq;
        CT__DO(st, ct_tensor_narrow(ctx, o->in_proj_weight, 0, E, 2 * E, &wkv));
        M.t[M.n++] = wkv;
        if (o->in_proj_bias) {
            CT__DO(st, ct_tensor_narrow(ctx, o->in_proj_bias, 0, E, 2 * E, &bkv));
            M.t[M.n++] = bkv;
        }
        PUSH(ct_linear(ctx, qin, wq, bc[0], &NEW));
        q = LAST;
        PUSH(ct_linear(ctx, kin, wkv, bkv, &NEW));
        ct_tensor *ch[2] = {NULL};
        int n = 0;
        CT__DO(st, ct_chunk(ctx, LAST, 2, 2, 2, ch, &n));
        for (int i = 0; i < n; i++)
            M.t[M.n++] = ch[i];
        if (n == 2) k = ch[0], v = ch[1];
    } else {
        if (o->in_proj_weight) {
            CT__DO(st, ct_chunk(ctx, o->in_proj_weight, 3, 0, 3, wc, &nw));
            for (int i = 0; i < nw; i++)
                M.t[M.n++] = wc[i];
        } else {
            wc[0] = (ct_tensor *)o->q_proj_weight, wc[1] = (ct_tensor *)o->k_proj_weight;
            wc[2] = (ct_tensor *)o->v_proj_weight;
            const ct_tensor *in3[3] = {qin, kin, vin};
            for (int i = 0; i < 3 && st == CT_OK; i++)
                if (wc[i]->ndim != 2 || wc[i]->shape[0] != E || wc[i]->shape[1] != in3[i]->shape[2])
                    st = ct__set_error(ctx, CT_ERR_SHAPE,
                                       "%s: %c_proj_weight %s must be (%lld, %lld)", op, "qkv"[i],
                                       CT__SHAPE_STR(wc[i]), (long long)E,
                                       (long long)in3[i] -> shape[2]);
        }
        PUSH(ct_linear(ctx, qin, wc[0], bc[0], &NEW));
        q = LAST;
        PUSH(ct_linear(ctx, kin, wc[1], bc[1], &NEW));
        k = LAST;
        PUSH(ct_linear(ctx, vin, wc[2], bc[2], &NEW));
        v = LAST;
    }
    if (st != CT_OK) goto done;
    /* attn_mask: byte -> bool; 2-d (L, S) -> (1, L, S); 3-d (N H, L, S) */
    if (o->attn_mask) {
        const ct_tensor *a = o->attn_mask;
        const bool ok = a->ndim == 2
                            ? (a->shape[0] == L && a->shape[1] == S)
                            : (a->shape[0] == N * H && a->shape[1] == L && a->shape[2] == S);
        if (!ok) {
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "%s: the shape of the %d-d attn_mask is %s, but should be %s", op,
                               a->ndim, CT__SHAPE_STR(a),
                               a->ndim == 2 ? ct__shape_str((char[96]){0}, 96, 2, SH(L, S))
                                            : ct__shape_str((char[96]){0}, 96, 3, SH(N * H, L, S)));
            goto done;
        }
        if (a->dtype == CT_UINT8) {
            PUSH(ct_cast(ctx, a, CT_BOOL, &NEW));
            a = LAST;
        }
        if (a->ndim == 2) {
            PUSH(ct_tensor_unsqueeze(ctx, a, 0, &NEW));
            a = LAST;
        }
        am = (ct_tensor *)a;
    }
    /* bias_k / bias_v: one more key position */
    if (o->bias_k) {
        const ct_tensor *bk[2] = {o->bias_k, o->bias_v};
        ct_tensor **kv[2] = {&k, &v};
        for (int i = 0; i < 2 && st == CT_OK; i++) {
            if (bk[i]->ndim != 3 || bk[i]->shape[0] != 1 || bk[i]->shape[1] != 1 ||
                bk[i]->shape[2] != E) {
                st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: bias_%c %s must be (1, 1, %lld)", op,
                                   "kv"[i], CT__SHAPE_STR(bk[i]), (long long)E);
                break;
            }
            PUSH(ct_repeat(ctx, bk[i], 3, SH(1, N, 1), &NEW));
            const ct_tensor *pair[2] = {*kv[i], LAST};
            PUSH(ct_cat(ctx, 2, pair, 0, &NEW));
            *kv[i] = LAST;
        }
        if (am) {
            PUSH(ct_pad(ctx, am, 2, SH(0, 1), CT_PAD_CONSTANT, 0, &NEW));
            am = LAST;
        }
        if (kpm) {
            PUSH(ct_pad(ctx, kpm, 2, SH(0, 1), CT_PAD_CONSTANT, 0, &NEW));
            kpm = LAST;
        }
    }
    if (st != CT_OK) goto done;
    /* heads: (len, N, E) -> (N H, len, hd) */
    const ct_tensor *statics[2] = {o->static_k, o->static_v};
    ct_tensor **qkv[3] = {&q, &k, &v};
    for (int i = 0; i < 3 && st == CT_OK; i++) {
        if (i > 0 && statics[i - 1]) {
            const ct_tensor *s = statics[i - 1];
            if (s->ndim != 3 || s->shape[0] != N * H || s->shape[2] != hd) {
                st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: static_%c %s must be (%lld, len, %lld)",
                                   op, "kv"[i - 1], CT__SHAPE_STR(s), (long long)(N * H),
                                   (long long)hd);
                break;
            }
            *qkv[i] = (ct_tensor *)s;
            continue;
        }
        const int64_t len = (*qkv[i])->shape[0];
        PUSH(ct_tensor_contiguous(ctx, *qkv[i], &NEW));
        PUSH(ct_tensor_view(ctx, LAST, 3, SH(len, N * H, hd), &NEW));
        PUSH(ct_tensor_transpose(ctx, LAST, 0, 1, &NEW));
        *qkv[i] = LAST;
    }
    if (st == CT_OK && k->shape[1] != v->shape[1])
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: key length %lld differs from value length %lld",
                           op, (long long)k->shape[1], (long long)v->shape[1]);
    if (st == CT_OK && o->add_zero_attn) {
        ct_tensor **kv[2] = {&k, &v};
        for (int i = 0; i < 2 && st == CT_OK; i++) {
            PUSH(ct_tensor_zeros(ctx, q->dtype, 3, SH(N * H, 1, hd), &NEW));
            const ct_tensor *pair[2] = {*kv[i], LAST};
            PUSH(ct_cat(ctx, 2, pair, 1, &NEW));
            *kv[i] = LAST;
        }
        if (am) {
            PUSH(ct_pad(ctx, am, 2, SH(0, 1), CT_PAD_CONSTANT, 0, &NEW));
            am = LAST;
        }
        if (kpm) {
            PUSH(ct_pad(ctx, kpm, 2, SH(0, 1), CT_PAD_CONSTANT, 0, &NEW));
            kpm = LAST;
        }
    }
    if (st != CT_OK) goto done;
    S = k->shape[1];
    if (am && am->shape[am->ndim - 1] != S) {
        st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: attn_mask %s does not cover the %lld keys", op,
                           CT__SHAPE_STR(am), (long long)S);
        goto done;
    }
    /* key_padding_mask (N, S): merged into the mask per head */
    if (kpm) {
        if (kpm->ndim != 2 || kpm->shape[0] != N || kpm->shape[1] != S) {
            st = ct__set_error(ctx, CT_ERR_SHAPE,
                               "%s: expecting key_padding_mask shape of (%lld, %lld), but got %s",
                               op, (long long)N, (long long)S, CT__SHAPE_STR(kpm));
            goto done;
        }
        PUSH(ct_tensor_view(ctx, kpm, 4, SH(N, 1, 1, S), &NEW));
        PUSH(ct_tensor_expand(ctx, LAST, 4, SH(-1, H, -1, -1), &NEW));
        PUSH(ct_tensor_reshape(ctx, LAST, 3, SH(N * H, 1, S), &NEW));
        ct_tensor *kp = LAST;
        if (st != CT_OK) goto done;
        if (!am) {
            am = kp;
        } else if (am->dtype == CT_BOOL) {
            PUSH(ct_logical_or(ctx, am, kp, &NEW));
            am = LAST;
        } else if (kp->dtype != CT_BOOL) {
            st = ct__set_error(ctx, CT_ERR_DTYPE,
                               "%s: a float attn_mask takes a bool key_padding_mask (as torch's "
                               "masked_fill), got %s",
                               op, ct_dtype_name(kp->dtype));
        } else {
            PUSH(ct_masked_fill(ctx, am, kp, -INFINITY, &NEW));
            am = LAST;
        }
        if (st != CT_OK) goto done;
    }
    if (am && am->dtype == CT_BOOL) {
        PUSH(ct_tensor_zeros(ctx, q->dtype, am->ndim, am->shape, &NEW));
        PUSH(ct_masked_fill(ctx, LAST, am, -INFINITY, &NEW));
        am = LAST;
    } else if (am && am->dtype != q->dtype) {
        PUSH(ct_cast(ctx, am, q->dtype, &NEW));
        am = LAST;
    }
    const double p = o->training ? o->dropout_p : 0.0;
    /* scores, weights, context */
    PUSH(ct_div_scalar(ctx, q, sqrt((double)hd), &NEW));
    ct_tensor *qs = LAST;
    PUSH(ct_tensor_transpose(ctx, k, -2, -1, &NEW));
    ct_tensor *kt = LAST;
    if (am) {
        PUSH(ct_baddbmm(ctx, am, qs, kt, 1.0, 1.0, &NEW));
    } else {
        PUSH(ct_bmm(ctx, qs, kt, &NEW));
    }
    PUSH(ct_softmax(ctx, LAST, 2, &NEW));
    if (p > 0) PUSH(ct_dropout(ctx, LAST, p, true, o->seed, o->offset, &NEW));
    ct_tensor *w = st == CT_OK ? LAST : NULL;
    PUSH(ct_bmm(ctx, w, v, &NEW));
    PUSH(ct_tensor_transpose(ctx, LAST, 0, 1, &NEW));
    PUSH(ct_tensor_contiguous(ctx, LAST, &NEW));
    PUSH(ct_tensor_view(ctx, LAST, 2, SH(L * N, E), &NEW));
    PUSH(ct_linear(ctx, LAST, w_out, b_out, &NEW));
    const int64_t Eo = w_out->shape[0];
    if (batched) {
        CT__DO(st, ct_tensor_view(ctx, LAST, 3, SH(L, N, Eo), out));
    } else {
        PUSH(ct_tensor_view(ctx, LAST, 3, SH(L, N, Eo), &NEW));
        CT__DO(st, ct_tensor_squeeze(ctx, LAST, 1, out));
    }
    if (weights) {
        PUSH(ct_tensor_view(ctx, w, 4, SH(N, H, L, S), &NEW));
        if (!o->per_head_weights) {
            const int one = 1;
            PUSH(ct_sum(ctx, LAST, 1, &one, false, &NEW));
            PUSH(ct_div_scalar(ctx, LAST, (double)H, &NEW));
        }
        if (batched && st == CT_OK) {
            *weights = ct_tensor_retain(LAST);
        } else {
            CT__DO(st, ct_tensor_squeeze(ctx, LAST, 0, weights));
        }
    }
done:
    ct__release_all(M.n, M.t);
    if (st != CT_OK) {
        ct_tensor_release(*out), *out = NULL;
        if (weights) ct_tensor_release(*weights), *weights = NULL;
    }
    return st;
}

ct_status ct_multi_head_attention_forward(ct_ctx *ctx, const ct_tensor *query, const ct_tensor *key,
                                          const ct_tensor *value, int64_t num_heads,
                                          const ct_tensor *out_proj_weight,
                                          const ct_tensor *out_proj_bias, const ct_mha_opts *opts,
                                          ct_tensor **out, ct_tensor **attn_weights) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (attn_weights) *attn_weights = NULL;
    if (!out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "multi_head_attention_forward: out is NULL");
    *out = NULL;
    const ct_mha_opts dflt = {0};
    return ct__error_within(ctx, "multi_head_attention_forward",
                            ct__mha(ctx, query, key, value, num_heads, out_proj_weight,
                                    out_proj_bias, opts ? opts : &dflt, out, attn_weights));
}

/* Recurrent networks as ATen's RNN.cpp runs them on the CPU, composed of recording ops
 * (differentiable, capturable): the cells (rnn_tanh / rnn_relu / lstm / gru: gates =
 * linear_hh(hx) + linear_ih(x) in that order) and the full layers torch.rnn_tanh / rnn_relu /
 * lstm / gru (nn.RNN / LSTM / GRU): per layer and direction the input projection of the whole
 * sequence at once, then one cell per step on it, the steps stacked, the directions joined by
 * cat, dropout between layers, the final hidden states stacked. docs/everyday.md ("Recurrent
 * layers") lists the differences. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- RNN cells (ATen's RNN.cpp): gates = linear_hh(hx) + linear_ih(x) ---- */
static ct_status ct__cell_args(ct_ctx *ctx, const char *op, const ct_tensor *x, const ct_tensor *hx,
                               const ct_tensor *w_ih, const ct_tensor *w_hh, int64_t gates,
                               void *out) {
    const ct_tensor *ins[4] = {x, hx, w_ih, w_hh};
    ct_status st = ct__check_args(ctx, op, 4, ins, out);
    if (st != CT_OK) return st;
    if (x->ndim != 2 || hx->ndim != 2 || w_ih->ndim != 2 || w_hh->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected input (N, in), hx (N, hidden) and 2-d weights, got "
                             "input %s and hx %s",
                             op, CT__SHAPE_STR(x), CT__SHAPE_STR(hx));
    const int64_t Hd = hx->shape[1];
    if (hx->shape[0] != x->shape[0] || w_ih->shape[0] != gates * Hd ||
        w_ih->shape[1] != x->shape[1] || w_hh->shape[0] != gates * Hd || w_hh->shape[1] != Hd)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input %s, hx %s, w_ih %s and w_hh %s do not match (w_ih (%lld * "
                             "hidden, in), w_hh (%lld * hidden, hidden))",
                             op, CT__SHAPE_STR(x), CT__SHAPE_STR(hx),
                             ct__shape_str((char[96]){0}, 96, w_ih->ndim, w_ih->shape),
                             ct__shape_str((char[96]){0}, 96, w_hh->ndim, w_hh->shape),
                             (long long)gates, (long long)gates);
    return CT_OK;
}
/* the cell on precomputed input gates gi (as ATen with pre_compute_input) */
static ct_status ct__simple_core(ct_ctx *ctx, bool tanh_, const ct_tensor *gi, const ct_tensor *hx,
                                 const ct_tensor *w_hh, const ct_tensor *b_hh, ct_tensor **out) {
    ct_tensor *gh = NULL, *s = NULL;
    ct_status st = ct_linear(ctx, hx, w_hh, b_hh, &gh);
    CT__DO(st, ct_add(ctx, gh, gi, &s));
    CT__DO(st, tanh_ ? ct_tanh(ctx, s, out) : ct_relu(ctx, s, out));
    ct_tensor_release(gh), ct_tensor_release(s);
    return st;
}
static ct_status ct__simple_cell(ct_ctx *ctx, const char *op, bool tanh_, const ct_tensor *x,
                                 const ct_tensor *hx, const ct_tensor *w_ih, const ct_tensor *w_hh,
                                 const ct_tensor *b_ih, const ct_tensor *b_hh, ct_tensor **out) {
    ct_status st = ct__cell_args(ctx, op, x, hx, w_ih, w_hh, 1, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct_tensor *gi = NULL;
    st = ct_linear(ctx, x, w_ih, b_ih, &gi);
    CT__DO(st, ct__simple_core(ctx, tanh_, gi, hx, w_hh, b_hh, out));
    ct_tensor_release(gi);
    return ct__error_within(ctx, op, st);
}
ct_status ct_rnn_tanh_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx,
                           const ct_tensor *w_ih, const ct_tensor *w_hh, const ct_tensor *b_ih,
                           const ct_tensor *b_hh, ct_tensor **out) {
    return ct__simple_cell(ctx, "rnn_tanh_cell", true, x, hx, w_ih, w_hh, b_ih, b_hh, out);
}
ct_status ct_rnn_relu_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx,
                           const ct_tensor *w_ih, const ct_tensor *w_hh, const ct_tensor *b_ih,
                           const ct_tensor *b_hh, ct_tensor **out) {
    return ct__simple_cell(ctx, "rnn_relu_cell", false, x, hx, w_ih, w_hh, b_ih, b_hh, out);
}
/* LSTM step on precomputed input gates gi (N, 4H); w_hr (P, H) or NULL: hy projected */
static ct_status ct__lstm_core(ct_ctx *ctx, const ct_tensor *gi, const ct_tensor *hx,
                               const ct_tensor *cx, const ct_tensor *w_hh, const ct_tensor *b_hh,
                               const ct_tensor *w_hr, ct_tensor **hy, ct_tensor **cy) {
    ct_tensor *t[12] = {NULL}, *ch[4] = {NULL};
    int n = 0;
    ct_status st = ct_linear(ctx, hx, w_hh, b_hh, &t[0]);
    CT__DO(st, ct_add(ctx, t[0], gi, &t[1]));
    CT__DO(st, ct_chunk(ctx, t[1], 4, 1, 4, ch, &n));
    CT__DO(st, ct_sigmoid(ctx, ch[0], &t[2])); /* input gate */
    CT__DO(st, ct_sigmoid(ctx, ch[1], &t[3])); /* forget gate */
    CT__DO(st, ct_tanh(ctx, ch[2], &t[4]));    /* cell gate */
    CT__DO(st, ct_sigmoid(ctx, ch[3], &t[5])); /* output gate */
    CT__DO(st, ct_mul(ctx, t[3], cx, &t[6]));
    CT__DO(st, ct_mul(ctx, t[2], t[4], &t[7]));
    CT__DO(st, ct_add(ctx, t[6], t[7], cy));
    CT__DO(st, ct_tanh(ctx, *cy, &t[8]));
    if (w_hr) {
        CT__DO(st, ct_mul(ctx, t[5], t[8], &t[9]));
        CT__DO(st, ct_linear(ctx, t[9], w_hr, NULL, hy));
    } else {
        CT__DO(st, ct_mul(ctx, t[5], t[8], hy));
    }
    ct__release_all(12, t);
    for (int i = 0; i < n; i++)
        ct_tensor_release(ch[i]);
    if (st != CT_OK) {
        ct_tensor_release(*hy), ct_tensor_release(*cy);
        *hy = *cy = NULL;
    }
    return st;
}
ct_status ct_lstm_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx, const ct_tensor *cx,
                       const ct_tensor *w_ih, const ct_tensor *w_hh, const ct_tensor *b_ih,
                       const ct_tensor *b_hh, ct_tensor **hy, ct_tensor **cy) {
    ct_status st = ct__cell_args(ctx, "lstm_cell", x, hx, w_ih, w_hh, 4, hy);
    if (st != CT_OK) return st;
    *hy = NULL;
    if (!cy) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "lstm_cell: cy is NULL");
    *cy = NULL;
    const ct_tensor *ci[1] = {cx};
    if ((st = ct__check_args(ctx, "lstm_cell", 1, ci, cy)) != CT_OK) return st;
    if (cx->ndim != 2 || cx->shape[0] != hx->shape[0] || cx->shape[1] != hx->shape[1])
        return ct__set_error(ctx, CT_ERR_SHAPE, "lstm_cell: cx %s must have hx's shape %s",
                             CT__SHAPE_STR(cx), CT__SHAPE_STR(hx));
    ct_tensor *gi = NULL;
    st = ct_linear(ctx, x, w_ih, b_ih, &gi);
    CT__DO(st, ct__lstm_core(ctx, gi, hx, cx, w_hh, b_hh, NULL, hy, cy));
    ct_tensor_release(gi);
    return ct__error_within(ctx, "lstm_cell", st);
}
/* GRU step on precomputed input gates gi (N, 3H) */
static ct_status ct__gru_core(ct_ctx *ctx, const ct_tensor *gi, const ct_tensor *hx,
                              const ct_tensor *w_hh, const ct_tensor *b_hh, ct_tensor **out) {
    ct_tensor *t[12] = {NULL}, *ci[3] = {NULL}, *chh[3] = {NULL};
    int n1 = 0, n2 = 0;
    ct_status st = ct_linear(ctx, hx, w_hh, b_hh, &t[0]);
    CT__DO(st, ct_chunk(ctx, gi, 3, 1, 3, ci, &n1));
    CT__DO(st, ct_chunk(ctx, t[0], 3, 1, 3, chh, &n2));
    CT__DO(st, ct_add(ctx, chh[0], ci[0], &t[1]));
    CT__DO(st, ct_sigmoid(ctx, t[1], &t[2])); /* reset gate */
    CT__DO(st, ct_add(ctx, chh[1], ci[1], &t[3]));
    CT__DO(st, ct_sigmoid(ctx, t[3], &t[4])); /* input gate */
    CT__DO(st, ct_mul(ctx, chh[2], t[2], &t[5]));
    CT__DO(st, ct_add(ctx, ci[2], t[5], &t[6]));
    CT__DO(st, ct_tanh(ctx, t[6], &t[7])); /* new gate */
    CT__DO(st, ct_sub(ctx, hx, t[7], &t[8]));
    CT__DO(st, ct_mul(ctx, t[8], t[4], &t[9]));
    CT__DO(st, ct_add(ctx, t[9], t[7], out));
    ct__release_all(12, t);
    for (int i = 0; i < n1; i++)
        ct_tensor_release(ci[i]);
    for (int i = 0; i < n2; i++)
        ct_tensor_release(chh[i]);
    return st;
}
ct_status ct_gru_cell(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *hx, const ct_tensor *w_ih,
                      const ct_tensor *w_hh, const ct_tensor *b_ih, const ct_tensor *b_hh,
                      ct_tensor **out) {
    ct_status st = ct__cell_args(ctx, "gru_cell", x, hx, w_ih, w_hh, 3, out);
    if (st != CT_OK) return st;
    *out = NULL;
    ct_tensor *gi = NULL;
    st = ct_linear(ctx, x, w_ih, b_ih, &gi);
    CT__DO(st, ct__gru_core(ctx, gi, hx, w_hh, b_hh, out));
    ct_tensor_release(gi);
    return ct__error_within(ctx, "gru_cell", st);
}

/* ---- full layers: torch.rnn_tanh / rnn_relu / lstm / gru (nn.RNN / LSTM / GRU) ---- */
enum { CT__RNN = 0, CT__LSTM = 1, CT__GRU = 2 };

typedef struct ct__rnn_geom {
    int kind, L, D, per; /* layers, directions, params per (layer, direction) */
    int64_t G, H, P, in; /* gates, hidden size, output size (proj or H), input size */
    bool bias, proj;
} ct__rnn_geom;

static ct_status ct__rnn_check(ct_ctx *ctx, const char *op, ct__rnn_geom *g, const ct_tensor *x,
                               const ct_tensor *h0, const ct_tensor *c0,
                               const ct_tensor *const *params, int n_params, const ct_rnn_opts *o) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, op, 1, ins, ins); /* out checked by the caller */
    if (st != CT_OK) return st;
    if (!ct_dtype_is_floating(x->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: expected a floating point input, got %s", op,
                             ct_dtype_name(x->dtype));
    if (x->ndim != 2 && x->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected a 2-d (unbatched) or 3-d (batched) input, got %s", op,
                             CT__SHAPE_STR(x));
    if (o->num_layers < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: num_layers must be positive, got %d", op,
                             o->num_layers);
    if (!(o->dropout >= 0 && o->dropout <= 1))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: dropout should be a number in range [0, 1], got %g", op,
                             o->dropout);
    if (o->proj_size < 0 || (o->proj_size > 0 && g->kind != CT__LSTM))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: proj_size must be 0 (or, for lstm, positive), got %lld", op,
                             (long long)o->proj_size);
    if (o->relu && g->kind != CT__RNN)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: relu is an option of ct_rnn only", op);
    g->L = o->num_layers ? o->num_layers : 1;
    g->D = o->bidirectional ? 2 : 1;
    g->bias = !o->no_bias;
    g->proj = o->proj_size > 0;
    g->per = 2 + (g->bias ? 2 : 0) + (g->proj ? 1 : 0);
    g->G = g->kind == CT__LSTM ? 4 : g->kind == CT__GRU ? 3 : 1;
    if (!params) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: params is NULL", op);
    const int64_t want_n = (int64_t)g->L * g->D * g->per;
    if ((int64_t)n_params != want_n)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: got %d parameters, expected %lld (%d layers x %d directions x "
                             "%d: w_ih, w_hh%s%s)",
                             op, n_params, (long long)want_n, g->L, g->D, g->per,
                             g->bias ? ", b_ih, b_hh" : "", g->proj ? ", w_hr" : "");
    for (int i = 0; i < n_params; i++) {
        const ct_tensor *pi[2] = {x, params[i]};
        if ((st = ct__check_args(ctx, op, 2, pi, pi)) != CT_OK) return st;
        if (params[i]->dtype != x->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "%s: parameter %d is %s, the input %s (one dtype for all)", op, i,
                                 ct_dtype_name(params[i]->dtype), ct_dtype_name(x->dtype));
    }
    const ct_tensor *w0 = params[1]; /* w_hh of layer 0: (G H, P) */
    if (w0->ndim != 2 || w0->shape[0] % g->G || w0->shape[0] == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: w_hh %s must be (%lld * hidden_size, %s)", op,
                             CT__SHAPE_STR(w0), (long long)g->G,
                             g->proj ? "proj_size" : "hidden_size");
    g->H = w0->shape[0] / g->G;
    g->P = g->proj ? o->proj_size : g->H;
    if (g->proj && g->P >= g->H)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: proj_size %lld has to be smaller than hidden_size %lld", op,
                             (long long)g->P, (long long)g->H);
    g->in = x->shape[x->ndim - 1];
    for (int l = 0; l < g->L; l++)
        for (int d = 0; d < g->D; d++) {
            const ct_tensor *const *p = params + (l * g->D + d) * g->per;
            const int64_t in_l = l ? g->D * g->P : g->in;
            const int64_t want[5][2] = {{g->G * g->H, in_l},
                                        {g->G * g->H, g->P},
                                        {g->G * g->H, -1},
                                        {g->G * g->H, -1},
                                        {g->P, g->H}};
            for (int k = 0; k < g->per; k++) {
                const int w = k < 2 ? k : (g->bias && k < 4) ? k : 4;
                const int nd = want[w][1] < 0 ? 1 : 2;
                if (p[k]->ndim != nd || p[k]->shape[0] != want[w][0] ||
                    (nd == 2 && p[k]->shape[1] != want[w][1])) {
                    static const char *const nm[5] = {"w_ih", "w_hh", "b_ih", "b_hh", "w_hr"};
                    char ws[64];
                    if (nd == 2)
                        snprintf(ws, sizeof ws, "(%lld, %lld)", (long long)want[w][0],
                                 (long long)want[w][1]);
                    else
                        snprintf(ws, sizeof ws, "(%lld)", (long long)want[w][0]);
                    return ct__set_error(ctx, CT_ERR_SHAPE,
                                         "%s: %s of layer %d%s is %s, expected %s%s", op, nm[w], l,
                                         d ? " (reverse)" : "", CT__SHAPE_STR(p[k]), ws,
                                         w == 0 && l == 0 ? " (input.size(-1) = input_size)" : "");
                }
            }
        }
    const int64_t T = x->shape[o->batch_first && x->ndim == 3 ? 1 : 0];
    const int64_t N = x->ndim == 3 ? x->shape[o->batch_first ? 0 : 1] : 1;
    if (T == 0)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: expected sequence length to be larger than 0, got input %s", op,
                             CT__SHAPE_STR(x));
    if (o->lengths) {
        const ct_tensor *ln = o->lengths;
        const ct_tensor *pi[2] = {x, ln};
        if ((st = ct__check_args(ctx, op, 2, pi, pi)) != CT_OK) return st;
        if (x->ndim != 3)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: lengths (packed sequences) need a batched 3-d input, got %s",
                                 op, CT__SHAPE_STR(x));
        if ((ln->dtype != CT_INT64 && ln->dtype != CT_INT32) || ln->ndim != 1 || ln->shape[0] != N)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: lengths must be a 1-d int32 / int64 tensor of the batch size "
                                 "%lld, got %s %s",
                                 op, (long long)N, ct_dtype_name(ln->dtype), CT__SHAPE_STR(ln));
        if (!ct__any_capture(ctx)) {
            double lo = 1, hi = 1;
            if ((st = ct__host_range(ctx, ln, &lo, &hi)) != CT_OK) return st;
            if (lo <= 0)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "%s: Length of all samples has to be greater than 0, but "
                                     "found an element in 'lengths' that is <= 0",
                                     op);
            if (hi > (double)T)
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "%s: a length %g is longer than the input's %lld steps", op,
                                     hi, (long long)T);
        }
    }
    const ct_tensor *hs[2] = {h0, c0};
    for (int k = 0; k < 2; k++) {
        const ct_tensor *h = hs[k];
        if (!h) continue;
        const ct_tensor *pi[2] = {x, h};
        if ((st = ct__check_args(ctx, op, 2, pi, pi)) != CT_OK) return st;
        const int64_t want = k ? g->H : g->P;
        const bool ok = x->ndim == 3
                            ? (h->ndim == 3 && h->shape[0] == g->L * g->D && h->shape[1] == N &&
                               h->shape[2] == want)
                            : (h->ndim == 2 && h->shape[0] == g->L * g->D && h->shape[1] == want);
        if (!ok) {
            char ws[96];
            if (x->ndim == 3)
                snprintf(ws, sizeof ws, "(%d, %lld, %lld)", g->L * g->D, (long long)N,
                         (long long)want);
            else
                snprintf(ws, sizeof ws, "(%d, %lld) for an unbatched input", g->L * g->D,
                         (long long)want);
            return ct__set_error(ctx, CT_ERR_SHAPE, "%s: expected %s of size %s, got %s", op,
                                 k ? "c_0" : "h_0", ws, CT__SHAPE_STR(h));
        }
        if (h->dtype != x->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE, "%s: %s is %s, the input %s", op,
                                 k ? "c_0" : "h_0", ct_dtype_name(h->dtype),
                                 ct_dtype_name(x->dtype));
    }
    return CT_OK;
}

/* one direction of one layer over xin (T, N, in): outputs stacked (T, N, P), final h and c */
static ct_status ct__rnn_dir(ct_ctx *ctx, const ct__rnn_geom *g, bool relu, bool rev,
                             const ct_tensor *xin, const ct_tensor *const *p, const ct_tensor *h0,
                             const ct_tensor *c0, ct_tensor *const *mask, const ct_tensor *zero,
                             ct_tensor **y, ct_tensor **hT, ct_tensor **cT) {
    const int64_t T = xin->shape[0];
    const ct_tensor *b_ih = g->bias ? p[2] : NULL, *b_hh = g->bias ? p[3] : NULL;
    const ct_tensor *w_hr = g->proj ? p[g->per - 1] : NULL;
    ct_tensor **steps = calloc((size_t)T * 2, sizeof *steps), **gis = steps + T;
    if (!steps)
        return ct__set_error(ctx, CT_ERR_OOM, "rnn: out of memory for %lld steps", (long long)T);
    ct_tensor *gi_all = NULL, *h = ct_tensor_retain((ct_tensor *)h0),
              *c = c0 ? ct_tensor_retain((ct_tensor *)c0) : NULL;
    int nu = 0;
    ct_status st = ct_linear(ctx, xin, p[0], b_ih, &gi_all);
    CT__DO(st, ct_unbind(ctx, gi_all, 0, (int)T, gis, &nu));
    for (int64_t s = 0; s < T && st == CT_OK; s++) {
        const int64_t t = rev ? T - 1 - s : s;
        ct_tensor *hn = NULL, *cn = NULL;
        if (g->kind == CT__LSTM)
            st = ct__lstm_core(ctx, gis[t], h, c, p[1], b_hh, w_hr, &hn, &cn);
        else if (g->kind == CT__GRU)
            st = ct__gru_core(ctx, gis[t], h, p[1], b_hh, &hn);
        else
            st = ct__simple_core(ctx, !relu, gis[t], h, p[1], b_hh, &hn);
        if (st != CT_OK) break;
        if (mask) { /* packed: past its length a sequence keeps its state and outputs 0 */
            ct_tensor *hm = NULL, *cm = NULL;
            st = ct_where(ctx, mask[t], hn, h, &hm);
            if (st == CT_OK && cn) st = ct_where(ctx, mask[t], cn, c, &cm);
            if (st == CT_OK) st = ct_where(ctx, mask[t], hn, zero, &steps[t]);
            ct_tensor_release(hn), ct_tensor_release(cn);
            ct_tensor_release(h), ct_tensor_release(c);
            h = hm, c = cm;
            if (st != CT_OK) break;
            continue;
        }
        ct_tensor_release(h), ct_tensor_release(c);
        h = hn, c = cn;
        steps[t] = ct_tensor_retain(h);
    }
    CT__DO(st, ct_stack(ctx, (int)T, (const ct_tensor *const *)steps, 0, y));
    for (int64_t i = 0; i < 2 * T; i++)
        ct_tensor_release(steps[i]);
    free(steps);
    ct_tensor_release(gi_all);
    if (st != CT_OK) {
        ct_tensor_release(h), ct_tensor_release(c);
        return st;
    }
    *hT = h, *cT = c;
    return CT_OK;
}

static ct_status ct__rnn_run(ct_ctx *ctx, const char *op, const ct__rnn_geom *g,
                             const ct_rnn_opts *o, const ct_tensor *x, const ct_tensor *h0,
                             const ct_tensor *c0, const ct_tensor *const *params, ct_tensor **out,
                             ct_tensor **hn, ct_tensor **cn) {
    const int LD = g->L * g->D;
    const bool unb = x->ndim == 2;
    /* unbatched: x (T, in) -> (T, 1, in), h0 (LD, P) -> (LD, 1, P) */
    ct_tensor **hs = calloc((size_t)LD * 4, sizeof *hs), **cs = hs + LD, **hin = cs + LD,
              **cin = hin + LD;
    if (!hs) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    ct_tensor *cur = NULL, *t0 = NULL, *zh = NULL, *zc = NULL;
    ct_status st = CT_OK;
    if (unb) {
        st = ct_tensor_unsqueeze(ctx, x, 1, &cur);
    } else if (o->batch_first) {
        st = ct_tensor_transpose(ctx, x, 0, 1, &cur);
    } else {
        cur = ct_tensor_retain((ct_tensor *)x);
    }
    const int64_t N = cur ? cur->shape[1] : 0, T = cur ? cur->shape[0] : 0;
    /* packed sequences: mask[t] (N, 1) = t < lengths, and a zero for the padded outputs */
    ct_tensor **mask = NULL, *zero = NULL;
    if (st == CT_OK && o->lengths) {
        ct_tensor *ar = NULL, *ar2 = NULL, *ln = NULL, *m = NULL;
        int nm = 0;
        mask = calloc((size_t)T, sizeof *mask);
        if (!mask) st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        CT__DO(st, ct_tensor_arange(ctx, CT_INT64, 0, (double)T, 1, &ar));
        CT__DO(st, ct_tensor_view(ctx, ar, 3, (const int64_t[]){T, 1, 1}, &ar2));
        CT__DO(st, ct_tensor_view(ctx, o->lengths, 2, (const int64_t[]){N, 1}, &ln));
        CT__DO(st, ct_lt(ctx, ar2, ln, &m)); /* (T, N, 1) */
        CT__DO(st, ct_unbind(ctx, m, 0, (int)T, mask, &nm));
        CT__DO(st, ct_tensor_zeros(ctx, x->dtype, 0, NULL, &zero));
        ct_tensor_release(ar), ct_tensor_release(ar2), ct_tensor_release(ln), ct_tensor_release(m);
    }
    /* initial states: given (unbound along dim 0, as ATen) or zeros */
    const ct_tensor *init[2] = {h0, c0};
    ct_tensor **dst[2] = {hin, cin};
    for (int k = 0; k < (g->kind == CT__LSTM ? 2 : 1) && st == CT_OK; k++) {
        const int64_t w = k ? g->H : g->P;
        if (init[k]) {
            ct_tensor *u = NULL;
            int n = 0;
            st = unb ? ct_tensor_unsqueeze(ctx, init[k], 1, &u)
                     : (u = ct_tensor_retain((ct_tensor *)init[k]), CT_OK);
            CT__DO(st, ct_unbind(ctx, u, 0, LD, dst[k], &n));
            ct_tensor_release(u);
        } else {
            ct_tensor **z = k ? &zc : &zh;
            st = ct_tensor_zeros(ctx, x->dtype, 2, (const int64_t[]){N, w}, z);
            for (int i = 0; i < LD && st == CT_OK; i++)
                dst[k][i] = ct_tensor_retain(*z);
        }
    }
    for (int l = 0; l < g->L && st == CT_OK; l++) {
        ct_tensor *yd[2] = {NULL, NULL}, *lo = NULL;
        for (int d = 0; d < g->D && st == CT_OK; d++) {
            const int i = l * g->D + d;
            st = ct__rnn_dir(ctx, g, o->relu, d == 1, cur, params + i * g->per, hin[i], cin[i],
                             mask, zero, &yd[d], &hs[i], &cs[i]);
        }
        if (g->D == 2) {
            CT__DO(st, ct_cat(ctx, 2, (const ct_tensor *const *)yd, 2, &lo));
        } else if (st == CT_OK) {
            lo = ct_tensor_retain(yd[0]);
        }
        ct_tensor_release(yd[0]), ct_tensor_release(yd[1]);
        if (st == CT_OK && o->dropout != 0 && o->train && l < g->L - 1) {
            ct_tensor *dr = NULL;
            st = ct_dropout(ctx, lo, o->dropout, true, o->seed,
                            o->offset + (uint64_t)l * (uint64_t)ct_tensor_numel(lo), &dr);
            ct_tensor_release(lo);
            lo = dr;
        }
        ct_tensor_release(cur);
        cur = lo;
    }
    /* outputs: the last layer's, back to the caller's layout; stacked final states */
    if (unb) {
        CT__DO(st, ct_tensor_squeeze(ctx, cur, 1, out));
    } else if (o->batch_first) {
        CT__DO(st, ct_tensor_transpose(ctx, cur, 0, 1, out));
    } else if (st == CT_OK) {
        *out = ct_tensor_retain(cur);
    }
    ct_tensor **fins[2] = {hs, cs}, **res[2] = {hn, cn};
    for (int k = 0; k < (g->kind == CT__LSTM ? 2 : 1) && st == CT_OK; k++) {
        if (!res[k]) continue;
        if (unb) {
            st = ct_stack(ctx, LD, (const ct_tensor *const *)fins[k], 0, &t0);
            CT__DO(st, ct_tensor_squeeze(ctx, t0, 1, res[k]));
            ct_tensor_release(t0), t0 = NULL;
        } else {
            st = ct_stack(ctx, LD, (const ct_tensor *const *)fins[k], 0, res[k]);
        }
    }
    if (st != CT_OK) {
        ct_tensor_release(*out), *out = NULL;
        if (hn) ct_tensor_release(*hn), *hn = NULL;
        if (cn) ct_tensor_release(*cn), *cn = NULL;
    }
    for (int i = 0; i < 4 * LD; i++)
        ct_tensor_release(hs[i]);
    free(hs);
    for (int64_t t = 0; mask && t < T; t++)
        ct_tensor_release(mask[t]);
    free(mask);
    ct_tensor_release(zero);
    ct_tensor_release(cur), ct_tensor_release(zh), ct_tensor_release(zc);
    return ct__error_within(ctx, op, st);
}

static ct_status ct__rnn_front(ct_ctx *ctx, const char *op, int kind, const ct_tensor *x,
                               const ct_tensor *h0, const ct_tensor *c0,
                               const ct_tensor *const *params, int n_params,
                               const ct_rnn_opts *opts, ct_tensor **out, ct_tensor **hn,
                               ct_tensor **cn) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (hn) *hn = NULL;
    if (cn) *cn = NULL;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", op);
    *out = NULL;
    const ct_rnn_opts dflt = {0};
    const ct_rnn_opts *o = opts ? opts : &dflt;
    ct__rnn_geom g = {.kind = kind};
    ct_status st = ct__rnn_check(ctx, op, &g, x, h0, c0, params, n_params, o);
    if (st != CT_OK) return st;
    return ct__rnn_run(ctx, op, &g, o, x, h0, c0, params, out, hn, cn);
}

ct_status ct_rnn(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *h0,
                 const ct_tensor *const *params, int n_params, const ct_rnn_opts *opts,
                 ct_tensor **out, ct_tensor **h_n) {
    return ct__rnn_front(ctx, opts && opts->relu ? "rnn_relu" : "rnn_tanh", CT__RNN, x, h0, NULL,
                         params, n_params, opts, out, h_n, NULL);
}
ct_status ct_lstm(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *h0, const ct_tensor *c0,
                  const ct_tensor *const *params, int n_params, const ct_rnn_opts *opts,
                  ct_tensor **out, ct_tensor **h_n, ct_tensor **c_n) {
    return ct__rnn_front(ctx, "lstm", CT__LSTM, x, h0, c0, params, n_params, opts, out, h_n, c_n);
}
ct_status ct_gru(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *h0,
                 const ct_tensor *const *params, int n_params, const ct_rnn_opts *opts,
                 ct_tensor **out, ct_tensor **h_n) {
    return ct__rnn_front(ctx, "gru", CT__GRU, x, h0, NULL, params, n_params, opts, out, h_n, NULL);
}

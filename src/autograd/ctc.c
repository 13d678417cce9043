/* F.ctc_loss: the connectionist temporal classification loss, -log p(target | log_probs) summed
 * over every alignment, by the forward (alpha) recursion in log space on the host (float64), and
 * torch's gradient from the alpha and beta recursions in one custom node (CtcLossBackward0):
 * grad[t, n, c] = exp(lp) - exp(log sum_{s: l'(s) = c} alpha beta + nll - lp) for t below the
 * input length, the form torch returns (the gradient with respect to log_softmax's input, pushed
 * through it; see docs/everyday.md "CTC loss"). The reductions are torch's ops after it. */
#include "autograd/autograd_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ct__ctc {
    int64_t T, N, C, Smax, blank;
    double *lp;       /* (T, N, C) */
    int64_t *tg;      /* (N, Smax) padded targets */
    int64_t *il, *tl; /* (N) */
    double *nll;      /* (N) */
    bool zero_inf;
    ct_dtype dt;
    int ndim_in; /* 2: unbatched (T, C) */
} ct__ctc;

static void ct__ctc_free(void *p) {
    ct__ctc *c = p;
    if (!c) return;
    free(c->lp), free(c->tg), free(c->il), free(c->tl), free(c->nll);
    free(c);
}

static double ct__lse2(double a, double b) {
    if (a == -INFINITY) return b;
    if (b == -INFINITY) return a;
    const double m = a > b ? a : b;
    return m + log1p(exp(-fabs(a - b)));
}
#define LP(t, n, c) (k->lp[((t)*k->N + (n)) * k->C + (c)])

/* the extended label l'(s) of sample n: blank at even s, target (s - 1) / 2 at odd s */
static int64_t ct__lab(const ct__ctc *k, int64_t n, int64_t s) {
    return s % 2 ? k->tg[n * k->Smax + s / 2] : k->blank;
}

/* alpha (T_n, L) for sample n; returns nll */
static double ct__alpha(const ct__ctc *k, int64_t n, double *a) {
    const int64_t Tn = k->il[n], S = k->tl[n], L = 2 * S + 1;
    if (Tn == 0) return S == 0 ? 0 : INFINITY;
    for (int64_t s = 0; s < L; s++)
        a[s] = s < 2 ? LP(0, n, ct__lab(k, n, s)) : -INFINITY;
    for (int64_t t = 1; t < Tn; t++) {
        double *cur = a + t * L;
        const double *prev = cur - L;
        for (int64_t s = 0; s < L; s++) {
            const int64_t l = ct__lab(k, n, s);
            double v = prev[s];
            if (s > 0) v = ct__lse2(v, prev[s - 1]);
            if (s > 1 && l != ct__lab(k, n, s - 2)) v = ct__lse2(v, prev[s - 2]);
            cur[s] = v == -INFINITY ? -INFINITY : v + LP(t, n, l);
        }
    }
    const double *last = a + (Tn - 1) * L;
    return -ct__lse2(last[L - 1], L > 1 ? last[L - 2] : -INFINITY);
}

static ct_status ct__ctc_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    const ct__ctc *k = user;
    if (!need[0]) return CT_OK;
    const int64_t T = k->T, N = k->N, C = k->C, Lmax = 2 * k->Smax + 1;
    double *g = calloc((size_t)(T * N * C > 0 ? T * N * C : 1), sizeof(double));
    double *a = malloc(sizeof(double) * (size_t)(T * Lmax > 0 ? T * Lmax : 1));
    double *b = malloc(sizeof(double) * (size_t)(T * Lmax > 0 ? T * Lmax : 1));
    double *lcab = malloc(sizeof(double) * (size_t)(C ? C : 1));
    if (!g || !a || !b || !lcab) {
        free(g), free(a), free(b), free(lcab);
        return ct__set_error(ctx, CT_ERR_OOM, "ctc_loss backward: out of memory");
    }
    for (int64_t n = 0; n < N; n++) {
        const int64_t Tn = k->il[n], S = k->tl[n], L = 2 * S + 1;
        const double nll = k->nll[n];
        if (Tn == 0 || (k->zero_inf && isinf(nll))) continue; /* zero gradient */
        ct__alpha(k, n, a);
        /* beta (T_n, L) */
        for (int64_t s = 0; s < L; s++)
            b[(Tn - 1) * L + s] = s >= L - 2 ? LP(Tn - 1, n, ct__lab(k, n, s)) : -INFINITY;
        for (int64_t t = Tn - 2; t >= 0; t--) {
            for (int64_t s = 0; s < L; s++) {
                const int64_t l = ct__lab(k, n, s);
                const double *nx = b + (t + 1) * L;
                double v = nx[s];
                if (s < L - 1) v = ct__lse2(v, nx[s + 1]);
                if (s < L - 2 && l != ct__lab(k, n, s + 2)) v = ct__lse2(v, nx[s + 2]);
                b[t * L + s] = v == -INFINITY ? -INFINITY : v + LP(t, n, l);
            }
        }
        for (int64_t t = 0; t < Tn; t++) {
            for (int64_t c = 0; c < C; c++)
                lcab[c] = -INFINITY;
            for (int64_t s = 0; s < L; s++) {
                const int64_t l = ct__lab(k, n, s);
                const double ab = a[t * L + s] + b[t * L + s];
                if (ab > -INFINITY) lcab[l] = ct__lse2(lcab[l], ab);
            }
            for (int64_t c = 0; c < C; c++) {
                const double lp = LP(t, n, c);
                g[(t * N + n) * C + c] = exp(lp) - exp(lcab[c] + nll - lp);
            }
        }
    }
    free(a), free(b), free(lcab);
    ct_tensor *t[5] = {NULL};
    const int64_t sh3[3] = {T, N, C}, shn[3] = {1, N, 1};
    ct_status st = ct_tensor_from_host(ctx, g, CT_FLOAT64, 3, sh3, &t[0]);
    free(g);
    CT__DO(st, ct_cast(ctx, t[0], k->dt, &t[1]));
    CT__DO(st, ct_tensor_reshape(ctx, gout[0], 3, shn, &t[2]));
    CT__DO(st, ct_mul(ctx, t[1], t[2], &t[3]));
    if (k->ndim_in == 2) {
        CT__DO(st, ct_tensor_squeeze(ctx, t[3], 1, &gin[0]));
    } else if (st == CT_OK) {
        gin[0] = ct_tensor_retain(t[3]);
    }
    ct__release_all(5, t);
    return st;
}
static const ct__ag_custom CT__CTC_FN = {"CtcLossBackward", ct__ctc_backward, ct__ctc_free, true};

/* an integer tensor of n values on the host (int32 or int64), or an error naming it */
static ct_status ct__ints(ct_ctx *ctx, const char *what, const ct_tensor *t, int64_t n,
                          int64_t *dst) {
    if (t->dtype != CT_INT64 && t->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE, "ctc_loss: %s must be int32 or int64, got %s", what,
                             ct_dtype_name(t->dtype));
    if (ct_tensor_numel(t) != n)
        return ct__set_error(ctx, CT_ERR_SHAPE, "ctc_loss: %s must have %lld values, got %s", what,
                             (long long)n, CT__SHAPE_STR(t));
    ct_tensor *c = NULL;
    ct_status st = ct_cast(ctx, t, CT_INT64, &c);
    CT__DO(st, ct_tensor_to_host(c, dst, sizeof(int64_t) * (size_t)(n ? n : 0)));
    ct_tensor_release(c);
    return st;
}

static ct_status ct__ctc_run(ct_ctx *ctx, const ct_tensor *lp, const ct_tensor *targets,
                             const ct_tensor *in_len, const ct_tensor *tg_len, int64_t blank,
                             ct_reduction red, bool zero_inf, ct_tensor **out) {
    const char *op = "ctc_loss";
    const ct_tensor *ins[4] = {lp, targets, in_len, tg_len};
    ct_status st = ct__check_args(ctx, op, 4, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((st = ct__ag_check_red(ctx, op, red)) != CT_OK) return st;
    if (lp->dtype != CT_FLOAT32 && lp->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: log_probs must be float32 or float64, got %s",
                             op, ct_dtype_name(lp->dtype));
    if (lp->ndim != 3 && lp->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: log_probs must be (T, N, C) or unbatched (T, C), got %s", op,
                             CT__SHAPE_STR(lp));
    if (targets->dtype != CT_INT64 && targets->dtype != CT_INT32)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: targets must be int32 or int64, got %s", op,
                             ct_dtype_name(targets->dtype));
    const bool unb = lp->ndim == 2;
    const int64_t T = lp->shape[0], N = unb ? 1 : lp->shape[1], C = lp->shape[lp->ndim - 1];
    if (blank < 0 || blank >= C)
        return ct__set_error(ctx, CT_ERR_INDEX, "%s: blank must be in the label range [0, %lld)",
                             op, (long long)C);
    ct__ctc *k = calloc(1, sizeof *k);
    if (!k) return ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
    k->T = T, k->N = N, k->C = C, k->blank = blank, k->zero_inf = zero_inf, k->dt = lp->dtype;
    k->ndim_in = lp->ndim;
    k->il = malloc(sizeof(int64_t) * (size_t)(N ? N : 1));
    k->tl = malloc(sizeof(int64_t) * (size_t)(N ? N : 1));
    k->nll = malloc(sizeof(double) * (size_t)(N ? N : 1));
    ct_tensor *t[6] = {NULL};
    if (!k->il || !k->tl || !k->nll) {
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        goto done;
    }
    if ((st = ct__ints(ctx, "input_lengths", in_len, N, k->il)) != CT_OK) goto done;
    if ((st = ct__ints(ctx, "target_lengths", tg_len, N, k->tl)) != CT_OK) goto done;
    int64_t total = 0, Smax = 0;
    for (int64_t n = 0; n < N; n++) {
        if (k->il[n] < 0 || k->il[n] > T) {
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "%s: expected input_lengths to have value at most %lld (and at "
                               "least 0), but got value %lld",
                               op, (long long)T, (long long)k->il[n]);
            goto done;
        }
        if (k->tl[n] < 0) {
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "%s: target_lengths must be non-negative, got %lld", op,
                               (long long)k->tl[n]);
            goto done;
        }
        if (k->tl[n] > ct_tensor_numel(targets)) {
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "%s: target length %lld exceeds the %lld target labels given", op,
                               (long long)k->tl[n], (long long)ct_tensor_numel(targets));
            goto done;
        }
        if (k->tl[n] > Smax) Smax = k->tl[n];
        total += k->tl[n]; /* each at most numel: no overflow for any N */
    }
    /* targets: (N, S) padded (or (S) unbatched) or 1-d concatenated */
    const bool concat = !unb && targets->ndim == 1;
    if (!concat && !(targets->ndim == (unb ? 1 : 2) && (unb || targets->shape[0] == N) &&
                     targets->shape[targets->ndim - 1] >= Smax)) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: targets %s must be (N, S) with S >= the longest target (%lld), or "
                           "1-d holding all targets",
                           op, CT__SHAPE_STR(targets), (long long)Smax);
        goto done;
    }
    if (concat && targets->shape[0] != total) {
        st = ct__set_error(ctx, CT_ERR_SHAPE,
                           "%s: the 1-d targets hold %lld labels, target_lengths sum to %lld (they "
                           "must be equal)",
                           op, (long long)targets->shape[0], (long long)total);
        goto done;
    }
    const int64_t ntg = ct_tensor_numel(targets);
    int64_t *raw = malloc(sizeof(int64_t) * (size_t)(ntg ? ntg : 1));
    k->Smax = Smax;
    k->tg = calloc((size_t)(N * Smax > 0 ? N * Smax : 1), sizeof(int64_t));
    k->lp = malloc(sizeof(double) * (size_t)(T * N * C > 0 ? T * N * C : 1));
    if (!raw || !k->tg || !k->lp) {
        free(raw);
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        goto done;
    }
    st = ct__ints(ctx, "targets", targets, ntg, raw);
    for (int64_t n = 0, off = 0; n < N && st == CT_OK; n++) {
        const int64_t row = concat ? off : n * (unb ? 0 : targets->shape[1]);
        for (int64_t s = 0; s < k->tl[n]; s++) {
            const int64_t l = raw[row + s];
            if (l < 0 || l >= C) {
                st = ct__set_error(ctx, CT_ERR_INDEX,
                                   "%s: target label %lld of sample %lld is outside [0, %lld)", op,
                                   (long long)l, (long long)n, (long long)C);
                break;
            }
            k->tg[n * Smax + s] = l;
        }
        off += k->tl[n];
    }
    free(raw);
    if (st != CT_OK) goto done;
    st = ct_cast(ctx, lp, CT_FLOAT64, &t[0]);
    CT__DO(st, ct_tensor_to_host(t[0], k->lp, sizeof(double) * (size_t)(T * N * C)));
    if (st != CT_OK) goto done;
    /* the per-sample losses */
    {
        const int64_t Lmax = 2 * Smax + 1;
        double *a = malloc(sizeof(double) * (size_t)(T * Lmax > 0 ? T * Lmax : 1));
        if (!a) {
            st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
            goto done;
        }
        for (int64_t n = 0; n < N; n++)
            k->nll[n] = ct__alpha(k, n, a);
        free(a);
    }
    double *loss = malloc(sizeof(double) * (size_t)(N ? N : 1));
    if (!loss) {
        st = ct__set_error(ctx, CT_ERR_OOM, "%s: out of memory", op);
        goto done;
    }
    for (int64_t n = 0; n < N; n++)
        loss[n] = zero_inf && isinf(k->nll[n]) ? 0 : k->nll[n];
    st = ct_tensor_from_host(ctx, loss, CT_FLOAT64, 1, &N, &t[1]);
    free(loss);
    CT__DO(st, ct_cast(ctx, t[1], lp->dtype, &t[2]));
    if (st == CT_OK && ct__ag_wants(ctx, 1, ins)) {
        st = ct__ag_record_custom(ctx, &CT__CTC_FN, k, lp, &t[2]);
        k = NULL; /* the record owns it */
    }
    if (st != CT_OK) goto done;
    /* torch's reductions: none, sum, mean of loss / clamp(target_length, 1) */
    if (red == CT_REDUCTION_NONE) {
        st = unb ? ct_tensor_squeeze(ctx, t[2], 0, out) : (*out = ct_tensor_retain(t[2]), CT_OK);
    } else if (red == CT_REDUCTION_SUM) {
        st = ct_sum(ctx, t[2], 0, NULL, false, out);
    } else {
        const double one = 1;
        st = ct_cast(ctx, tg_len, lp->dtype, &t[3]);
        CT__DO(st, ct_tensor_reshape(ctx, t[3], 1, &N, &t[4]));
        CT__DO(st, ct_clamp(ctx, t[4], &one, NULL, &t[5]));
        ct_tensor *q = NULL;
        CT__DO(st, ct_div(ctx, t[2], t[5], &q));
        CT__DO(st, ct_mean(ctx, q, 0, NULL, false, out));
        ct_tensor_release(q);
    }
done:
    ct__ctc_free(k);
    ct__release_all(6, t);
    return st;
}

ct_status ct_ctc_loss(ct_ctx *ctx, const ct_tensor *log_probs, const ct_tensor *targets,
                      const ct_tensor *input_lengths, const ct_tensor *target_lengths,
                      int64_t blank, ct_reduction reduction, bool zero_infinity, ct_tensor **out) {
    return ct__error_within(ctx, "ctc_loss",
                            ct__ctc_run(ctx, log_probs, targets, input_lengths, target_lengths,
                                        blank, reduction, zero_infinity, out));
}

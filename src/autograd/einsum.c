/* einsum (torch.einsum) composed of diagonal, sum, permute, reshape, mul and bmm, contracting the
 * operands left to right as torch's implementation does: a label that no later operand and not
 * the output uses is summed out as soon as it can be, a pair without shared summed labels is a
 * broadcasting product, otherwise one bmm over (batch, left, summed) x (batch, summed, right).
 * Differentiable through those ops. */
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"
#include "tensor/ag_front.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Labels: 0..51 for A-Z a-z (torch's order for the implicit output), 52 + k for the k-th
 * ellipsis dim counted from the left of the broadcast ellipsis. */
#define CT__EIN_LETTERS 52
#define CT__EIN_MAXL (CT__EIN_LETTERS + CT_MAX_DIMS)
#define CT__EIN_MAXOPS 16

typedef struct {
    ct_tensor *t; /* owned */
    int n;        /* dims = labels */
    int lab[CT_MAX_DIMS];
} ct__ein_term;

static int ct__ein_letter(char c) {
    return isupper((unsigned char)c) ? c - 'A' : islower((unsigned char)c) ? 26 + c - 'a' : -1;
}

/* Parse one side's term into labels: letters and at most one "..." (ell_dims dims of it). */
static ct_status ct__ein_parse_term(ct_ctx *ctx, const char *s, size_t len, int ell_dims,
                                    int ell_total, int *lab, int *n, bool *has_ell) {
    *n = 0;
    *has_ell = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ') continue;
        if (s[i] == '.') {
            if (*has_ell || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
                return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                     "einsum: '.' outside one ellipsis '...' in \"%.*s\"", (int)len,
                                     s);
            *has_ell = true;
            i += 2;
            if (ell_dims < 0) continue; /* first pass: counting only */
            for (int k = 0; k < ell_dims; k++) {
                if (*n >= CT_MAX_DIMS) goto too_many;
                lab[(*n)++] = CT__EIN_LETTERS + (ell_total - ell_dims) + k;
            }
            continue;
        }
        const int l = ct__ein_letter(s[i]);
        if (l < 0)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                 "einsum: invalid subscript '%c' (letters A-Z, a-z and '...')",
                                 s[i]);
        if (*n >= CT_MAX_DIMS) goto too_many;
        lab[(*n)++] = l;
    }
    return CT_OK;
too_many:
    return ct__set_error(ctx, CT_ERR_SHAPE, "einsum: more than %d subscripts in a term",
                         CT_MAX_DIMS);
}

static void ct__ein_free(int n, ct__ein_term *t) {
    for (int i = 0; i < n; i++) {
        ct_tensor_release(t[i].t);
        t[i].t = NULL;
    }
}

/* Replace t by r (owned), with labels lab[0..n) */
static void ct__ein_set(ct__ein_term *t, ct_tensor *r, int n, const int *lab) {
    ct_tensor_release(t->t);
    t->t = r;
    t->n = n;
    memmove(t->lab, lab, sizeof(int) * (size_t)n);
}

/* Take diagonals until every label of t is unique. */
static ct_status ct__ein_diagonals(ct_ctx *ctx, ct__ein_term *t) {
    for (int i = 0; i < t->n; i++)
        for (int j = i + 1; j < t->n; j++) {
            if (t->lab[i] != t->lab[j]) continue;
            if (t->t->shape[i] != t->t->shape[j])
                return ct__set_error(ctx, CT_ERR_SHAPE,
                                     "einsum: subscript repeated in one operand with sizes %lld "
                                     "and %lld",
                                     (long long)t->t->shape[i], (long long)t->t->shape[j]);
            ct_tensor *d = NULL;
            ct_status st = ct_diagonal(ctx, t->t, 0, i, j, &d);
            if (st != CT_OK) return st;
            int lab[CT_MAX_DIMS], m = 0;
            for (int k = 0; k < t->n; k++)
                if (k != i && k != j) lab[m++] = t->lab[k];
            lab[m++] = t->lab[i];
            ct__ein_set(t, d, m, lab);
            i = -1; /* rescan */
            break;
        }
    return CT_OK;
}

/* Sum out the labels of t for which keep[label] is false; with squeeze, dims that are all of size
 * 1 are squeezed instead (so an integer dtype is kept: torch does so between operands, while one
 * operand alone is summed, promoting integers to int64). */
static ct_status ct__ein_sum_out(ct_ctx *ctx, ct__ein_term *t, const bool *keep, bool squeeze) {
    int dims[CT_MAX_DIMS], nd = 0, lab[CT_MAX_DIMS], m = 0;
    for (int k = 0; k < t->n; k++) {
        if (keep[t->lab[k]])
            lab[m++] = t->lab[k];
        else
            dims[nd++] = k;
    }
    if (nd == 0) return CT_OK;
    /* size-1 dims alone are squeezed, not summed (so an integer dtype stays, as in torch) */
    bool ones = squeeze;
    int64_t kept[CT_MAX_DIMS];
    for (int k = 0, j = 0; k < t->n; k++) {
        if (keep[t->lab[k]])
            kept[j++] = t->t->shape[k];
        else
            ones &= t->t->shape[k] == 1;
    }
    ct_tensor *r = NULL;
    ct_status st =
        ones ? ct_tensor_reshape(ctx, t->t, m, kept, &r) : ct_sum(ctx, t->t, nd, dims, false, &r);
    if (st == CT_OK) ct__ein_set(t, r, m, lab);
    return st;
}

/* t permuted to the labels `order` (each of t's labels once; labels t lacks become size-1 dims),
 * then reshaped to `nout` dims of the products of consecutive groups (gsz[g] labels each). */
static ct_status ct__ein_arrange(ct_ctx *ctx, const ct__ein_term *t, int n, const int *order,
                                 int ng, const int *gsz, const int64_t *size, ct_tensor **out) {
    int perm[CT_MAX_DIMS], np = 0;
    int64_t shape[CT_MAX_DIMS], pshape[CT_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        shape[i] = 1;
        for (int k = 0; k < t->n; k++)
            if (t->lab[k] == order[i]) {
                pshape[np] = size[order[i]]; /* a size-1 dim broadcasts to the common size */
                perm[np++] = k, shape[i] = size[order[i]];
            }
    }
    ct_tensor *q = NULL, *p = NULL;
    ct_status st = ct_tensor_permute(ctx, t->t, perm, &q);
    if (st == CT_OK) st = ct_tensor_expand(ctx, q, np, pshape, &p);
    ct_tensor_release(q);
    if (st != CT_OK) return st;
    if (np != n) { /* labels t lacks: size-1 dims in their places */
        ct_tensor *u = NULL;
        st = ct_tensor_reshape(ctx, p, n, shape, &u);
        ct_tensor_release(p);
        if (st != CT_OK) return st;
        p = u;
    }
    int64_t g[CT_MAX_DIMS];
    int at = 0, ndim = ng > 0 ? ng : n;
    for (int k = 0; k < ndim; k++) {
        const int cnt = ng > 0 ? gsz[k] : 1;
        g[k] = 1;
        for (int j = 0; j < cnt; j++)
            g[k] *= shape[at++];
    }
    st = ct_tensor_reshape(ctx, p, ndim, g, out);
    ct_tensor_release(p);
    return st;
}

/* Contract a and b (unique labels each) keeping the labels in `keep`; the result goes to a. */
static ct_status ct__ein_pair(ct_ctx *ctx, ct__ein_term *a, ct__ein_term *b, const bool *keep,
                              const int64_t *size) {
    bool in_a[CT__EIN_MAXL] = {0}, in_b[CT__EIN_MAXL] = {0};
    for (int k = 0; k < a->n; k++)
        in_a[a->lab[k]] = true;
    for (int k = 0; k < b->n; k++)
        in_b[b->lab[k]] = true;
    int B[CT_MAX_DIMS], L[CT_MAX_DIMS], C[CT_MAX_DIMS], R[CT_MAX_DIMS];
    int nb = 0, nl = 0, nc = 0, nr = 0;
    for (int k = 0; k < a->n; k++) {
        const int l = a->lab[k];
        if (!in_b[l])
            L[nl++] = l;
        else if (keep[l])
            B[nb++] = l;
        else
            C[nc++] = l;
    }
    for (int k = 0; k < b->n; k++)
        if (!in_a[b->lab[k]]) R[nr++] = b->lab[k];
    if (nb + nl + nr > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE, "einsum: an intermediate needs more than %d dims",
                             CT_MAX_DIMS);
    int out_lab[CT_MAX_DIMS], no = 0;
    for (int k = 0; k < nb; k++)
        out_lab[no++] = B[k];
    for (int k = 0; k < nl; k++)
        out_lab[no++] = L[k];
    for (int k = 0; k < nr; k++)
        out_lab[no++] = R[k];
    ct_status st;
    ct_tensor *r = NULL;
    if (nc == 0) { /* no summed label: a broadcasting product over (B, L, R) */
        ct_tensor *x = NULL, *y = NULL;
        st = ct__ein_arrange(ctx, a, no, out_lab, 0, NULL, size, &x);
        if (st == CT_OK) st = ct__ein_arrange(ctx, b, no, out_lab, 0, NULL, size, &y);
        if (st == CT_OK) st = ct_mul(ctx, x, y, &r);
        ct_tensor_release(x), ct_tensor_release(y);
    } else { /* bmm of (B, L, C) and (B, C, R), each group merged into one dim */
        int oa[CT_MAX_DIMS], ob[CT_MAX_DIMS], na = 0, nbb = 0;
        for (int k = 0; k < nb; k++)
            oa[na++] = B[k], ob[nbb++] = B[k];
        for (int k = 0; k < nl; k++)
            oa[na++] = L[k];
        for (int k = 0; k < nc; k++)
            oa[na++] = C[k], ob[nbb++] = C[k];
        for (int k = 0; k < nr; k++)
            ob[nbb++] = R[k];
        const int ga[3] = {nb, nl, nc}, gb[3] = {nb, nc, nr};
        ct_tensor *x = NULL, *y = NULL, *p = NULL;
        st = ct__ein_arrange(ctx, a, na, oa, 3, ga, size, &x);
        if (st == CT_OK) st = ct__ein_arrange(ctx, b, nbb, ob, 3, gb, size, &y);
        if (st == CT_OK) st = ct_bmm(ctx, x, y, &p);
        int64_t osz[CT_MAX_DIMS];
        for (int k = 0; k < no; k++)
            osz[k] = size[out_lab[k]];
        if (st == CT_OK) st = ct_tensor_reshape(ctx, p, no, osz, &r);
        ct_tensor_release(x), ct_tensor_release(y), ct_tensor_release(p);
    }
    if (st != CT_OK) return st;
    ct__ein_set(a, r, no, out_lab);
    return CT_OK;
}

static ct_status ct__einsum(ct_ctx *ctx, const char *eq, int n, const ct_tensor *const *ops,
                            ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "einsum: out is NULL");
    *out = NULL;
    if (!eq || n < 1 || n > CT__EIN_MAXOPS || !ops)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "einsum: an equation and 1 to %d operands are required, got %d",
                             CT__EIN_MAXOPS, n);
    ct_status st = ct__check_args(ctx, "einsum", n, ops, out);
    if (st != CT_OK) return st;
    for (int i = 1; i < n; i++)
        if (ops[i]->dtype != ops[0]->dtype)
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "einsum: operands of one dtype required, got %s and %s (as "
                                 "torch's bmm)",
                                 ct_dtype_name(ops[0]->dtype), ct_dtype_name(ops[i]->dtype));
    /* split "lhs[->rhs]" and the lhs at commas */
    const char *arrow = strstr(eq, "->");
    const size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    const char *term[CT__EIN_MAXOPS];
    size_t tlen[CT__EIN_MAXOPS];
    int nt = 0;
    for (const char *p = eq;;) {
        const char *c = memchr(p, ',', lhs_len - (size_t)(p - eq));
        if (nt == CT__EIN_MAXOPS)
            return ct__set_error(ctx, CT_ERR_INVALID_ARG, "einsum: too many operand terms");
        term[nt] = p;
        tlen[nt++] = c ? (size_t)(c - p) : lhs_len - (size_t)(p - eq);
        if (!c) break;
        p = c + 1;
    }
    if (nt != n)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "einsum: the equation has %d operand terms but %d operands were "
                             "given",
                             nt, n);
    /* first pass: letters per term, so the ellipsis' width is known */
    int ell_total = 0, ell_n[CT__EIN_MAXOPS];
    bool has_ell[CT__EIN_MAXOPS];
    for (int i = 0; i < n; i++) {
        int lab[CT_MAX_DIMS], m = 0;
        if ((st = ct__ein_parse_term(ctx, term[i], tlen[i], -1, 0, lab, &m, &has_ell[i])) != CT_OK)
            return st;
        ell_n[i] = ops[i]->ndim - m;
        if ((!has_ell[i] && ell_n[i] != 0) || ell_n[i] < 0)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "einsum: the number of subscripts in \"%.*s\" (%d) does not "
                                 "match operand %d's %d dims",
                                 (int)tlen[i], term[i], m, i, ops[i]->ndim);
        if (ell_n[i] > ell_total) ell_total = ell_n[i];
    }
    ct__ein_term t[CT__EIN_MAXOPS];
    memset(t, 0, sizeof t);
    int64_t size[CT__EIN_MAXL];
    int count[CT__EIN_MAXL] = {0};
    for (int l = 0; l < CT__EIN_MAXL; l++)
        size[l] = -1;
    for (int i = 0; i < n && st == CT_OK; i++) {
        bool he;
        st = ct__ein_parse_term(ctx, term[i], tlen[i], ell_n[i], ell_total, t[i].lab, &t[i].n, &he);
        for (int k = 0; k < t[i].n && st == CT_OK; k++) {
            const int l = t[i].lab[k];
            const int64_t s = ops[i]->shape[k];
            count[l]++;
            if (size[l] < 0 || size[l] == 1)
                size[l] = s;
            else if (s != size[l] && s != 1)
                st = ct__set_error(ctx, CT_ERR_SHAPE,
                                   "einsum: subscript of operand %d has size %lld, which does not "
                                   "broadcast with the size %lld seen before",
                                   i, (long long)s, (long long)size[l]);
        }
        if (st == CT_OK) t[i].t = ct_tensor_retain((ct_tensor *)ops[i]);
    }
    /* the output's labels: explicit, or the letters used once in alphabetical order (A-Z then
     * a-z) after the ellipsis dims */
    int olab[CT_MAX_DIMS], no = 0;
    bool in_out[CT__EIN_MAXL] = {0};
    if (st == CT_OK && arrow) {
        bool he = false;
        const char *rhs = arrow + 2;
        st = ct__ein_parse_term(ctx, rhs, strlen(rhs), ell_total, ell_total, olab, &no, &he);
        (void)he; /* an ellipsis no operand has is empty (torch: "i->..." is a sum) */
        for (int k = 0; k < no && st == CT_OK; k++) {
            if (in_out[olab[k]] || count[olab[k]] == 0)
                st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "einsum: output subscript %d %s", k,
                                   in_out[olab[k]] ? "appears more than once"
                                                   : "does not appear in any operand");
            in_out[olab[k]] = true;
        }
    } else if (st == CT_OK) {
        for (int k = 0; k < ell_total; k++)
            olab[no++] = CT__EIN_LETTERS + k;
        for (int l = 0; l < CT__EIN_LETTERS; l++)
            if (count[l] == 1) olab[no++] = l;
        for (int k = 0; k < no; k++)
            in_out[olab[k]] = true;
    }
    /* diagonals, then contract left to right */
    for (int i = 0; i < n && st == CT_OK; i++)
        st = ct__ein_diagonals(ctx, &t[i]);
    for (int i = 0; i < n && st == CT_OK; i++) {
        /* labels needed after operand i: the output's and those of operands i+1.. */
        bool keep[CT__EIN_MAXL];
        memcpy(keep, in_out, sizeof keep);
        for (int j = i + 1; j < n; j++)
            for (int k = 0; k < t[j].n; k++)
                keep[t[j].lab[k]] = true;
        if (i == 0) {
            /* operand 0 alone: sum what neither the output nor another operand uses */
            bool k0[CT__EIN_MAXL];
            memcpy(k0, keep, sizeof k0);
            st = ct__ein_sum_out(ctx, &t[0], k0, n > 1);
            continue;
        }
        bool kb[CT__EIN_MAXL], ka[CT__EIN_MAXL];
        memcpy(kb, keep, sizeof kb);
        memcpy(ka, keep, sizeof ka);
        for (int k = 0; k < t[0].n; k++)
            kb[t[0].lab[k]] = true;
        for (int k = 0; k < t[i].n; k++)
            ka[t[i].lab[k]] = true;
        st = ct__ein_sum_out(ctx, &t[i], kb, true);
        if (st == CT_OK) st = ct__ein_sum_out(ctx, &t[0], ka, true);
        if (st == CT_OK) st = ct__ein_pair(ctx, &t[0], &t[i], keep, size);
    }
    if (st == CT_OK) st = ct__ein_sum_out(ctx, &t[0], in_out, n > 1);
    if (st == CT_OK) { /* the output's order */
        int perm[CT_MAX_DIMS];
        for (int k = 0; k < no; k++)
            for (int j = 0; j < t[0].n; j++)
                if (t[0].lab[j] == olab[k]) perm[k] = j;
        bool ident = true;
        for (int k = 0; k < no; k++)
            ident &= perm[k] == k;
        if (t[0].n != no)
            st = ct__set_error(ctx, CT_ERR_SHAPE, "einsum: internal label mismatch");
        else if (ident && t[0].t != ops[0])
            *out = ct_tensor_retain(t[0].t);
        else
            st = ct_tensor_permute(ctx, t[0].t, perm, out);
    }
    ct__ein_free(n, t);
    return st;
}

ct_status ct_einsum(ct_ctx *ctx, const char *equation, int n, const ct_tensor *const *operands,
                    ct_tensor **out) {
    return ct__error_within(ctx, "einsum", ct__einsum(ctx, equation, n, operands, out));
}

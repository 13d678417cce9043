/* Tensor printing, formatted as torch 1.13 prints (torch/_tensor_str.py's rules, restated):
 * one formatter for the whole tensor chooses between integer mode ("1."), fixed ("1.2500", four
 * decimals) and scientific ("1.2500e+03") from the nonzero finite values that are shown, and pads
 * every element to the widest; vectors wrap at 80 columns; tensors above 1000 elements show the
 * first and last 3 entries of each dim longer than 6 around "..."; "dtype=" follows when the dtype
 * is not float32, int64 or bool; empty tensors print "[]" with their size when not 1-d; a tensor
 * that requires grad ends with "grad_fn=<MulBackward0>" (a result) or "requires_grad=True" (a
 * leaf). */
#include "ctorch/io.h"
#include "autograd/autograd_impl.h"
#include "dispatch/dispatch.h"
#include "tensor/tensor_impl.h"
#include "dtype/half.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PR_BUF 512 /* one formatted value: 309 digits of a float64 plus 30 decimals fit */

ct_print_options ct_print_options_default(void) {
    const ct_print_options o = {sizeof(ct_print_options), 4, 1000, 3, 80, -1};
    return o;
}
ct_status ct_print_options_profile(const char *profile, ct_print_options *opts) {
    if (!profile || !opts) return CT_ERR_INVALID_ARG;
    ct_print_options o = ct_print_options_default();
    if (!strcmp(profile, "short")) {
        o.precision = 2, o.edgeitems = 2;
    } else if (!strcmp(profile, "full")) {
        o.threshold = INT64_MAX;
    } else if (strcmp(profile, "default")) {
        return CT_ERR_INVALID_ARG;
    }
    *opts = o;
    return CT_OK;
}
ct_status ct_set_print_options(ct_ctx *ctx, const ct_print_options *opts) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (opts && (opts->size < offsetof(ct_print_options, sci_mode) + sizeof(int) ||
                 opts->size > sizeof(ct_print_options)))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "set_print_options: options.size %zu is not sizeof(ct_print_options) "
                             "= %zu",
                             opts->size, sizeof(ct_print_options));
    ct_print_options o = ct_print_options_default();
    if (opts) memcpy(&o, opts, opts->size);
    o.size = sizeof o;
    if (o.precision < 0 || o.precision > 30 || o.edgeitems < 1 || o.linewidth < 1 ||
        o.sci_mode < -1 || o.sci_mode > 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "set_print_options: precision %d (0..30), edgeitems %d (>= 1), "
                             "linewidth %d (>= 1), sci_mode %d (-1, 0, 1)",
                             o.precision, o.edgeitems, o.linewidth, o.sci_mode);
    ctx->print_opts = o;
    ctx->print_set = opts != NULL;
    return CT_OK;
}
ct_print_options ct_get_print_options(const ct_ctx *ctx) {
    return ctx && ctx->print_set ? ctx->print_opts : ct_print_options_default();
}

typedef struct {
    char *s;
    size_t n, cap;
    bool oom;
} sbuf;

static void sb_put(sbuf *b, const char *p, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->n, p, n);
    b->n += n;
    b->s[b->n] = 0;
}
static void sb_str(sbuf *b, const char *p) { sb_put(b, p, strlen(p)); }
static void sb_spaces(sbuf *b, int n) {
    for (int i = 0; i < n; i++)
        sb_put(b, " ", 1);
}

typedef struct fmt {
    int kind; /* 0 bool, 1 integer, 2 floating */
    const double *f;
    const int64_t *i;
    const uint8_t *b;
    bool int_mode, sci;
    int width;
    bool summarize;
    int ndim;
    const int64_t *shape;
    int64_t strides[CT_MAX_DIMS]; /* C order, in elements */
    ct_print_options po;
    const struct fmt *im; /* complex: the imaginary parts' formatter (F holds the real) */
} fmt;

/* Python's str() / format() of one value, unpadded. */
static int fmt_raw(const fmt *F, int64_t k, char *buf, size_t cap) {
    if (F->kind == 0) return snprintf(buf, cap, "%s", F->b[k] ? "True" : "False");
    if (F->kind == 1) return snprintf(buf, cap, "%lld", (long long)F->i[k]);
    double v = F->f[k];
    if (isnan(v)) return snprintf(buf, cap, "nan"); /* Python never prints "-nan" */
    if (isinf(v)) return snprintf(buf, cap, "%s", v < 0 ? "-inf" : "inf");
    if (F->sci) return snprintf(buf, cap, "%.*e", F->po.precision, v);
    if (F->int_mode) return snprintf(buf, cap, "%.0f.", v);
    return snprintf(buf, cap, "%.*f", F->po.precision, v);
}
static void fmt_put(sbuf *b, const fmt *F, int64_t k) {
    char buf[PR_BUF];
    int n = fmt_raw(F, k, buf, sizeof buf);
    if (n < F->width) sb_spaces(b, F->width - n);
    sb_put(b, buf, (size_t)n);
    if (!F->im) return;
    /* complex (torch's _scalar_str): the padded real part, then the imaginary part unpadded with
     * "j", joined by "+" unless it starts with its own sign */
    n = fmt_raw(F->im, k, buf, sizeof buf);
    if (buf[0] != '-') sb_put(b, "+", 1);
    sb_put(b, buf, (size_t)n);
    sb_put(b, "j", 1);
}

/* Is the element at C-order position k shown (every index within the edge items of a long dim)? */
static bool shown(const fmt *F, int64_t k) {
    if (!F->summarize) return true;
    for (int d = 0; d < F->ndim; d++) {
        int64_t idx = (k / F->strides[d]) % F->shape[d], n = F->shape[d];
        const int64_t e = F->po.edgeitems;
        if (n > 2 * e && idx >= e && idx < n - e) return false;
    }
    return true;
}

/* The formatter's mode and width from the shown values (torch's _Formatter). */
static void fmt_scan(fmt *F, int64_t numel) {
    F->width = 1;
    F->int_mode = true;
    F->sci = false;
    char buf[PR_BUF];
    if (F->kind != 2) {
        for (int64_t k = 0; k < numel; k++)
            if (shown(F, k)) {
                int n = fmt_raw(F, k, buf, sizeof buf);
                if (n > F->width) F->width = n;
            }
        return;
    }
    double mn = INFINITY, mx = 0;
    int64_t cnt = 0;
    for (int64_t k = 0; k < numel; k++) {
        double v = F->f[k];
        if (!shown(F, k) || !isfinite(v) || v == 0) continue;
        cnt++;
        double a = fabs(v);
        if (a < mn) mn = a;
        if (a > mx) mx = a;
        if (v != ceil(v)) F->int_mode = false;
    }
    if (cnt > 0) {
        if (F->int_mode)
            F->sci = mx / mn > 1000.0 || mx > 1.0e8;
        else
            F->sci = mx / mn > 1000.0 || mx > 1.0e8 || mn < 1.0e-4;
        for (int64_t k = 0; k < numel; k++) {
            double v = F->f[k];
            if (!shown(F, k) || !isfinite(v) || v == 0) continue;
            int n = fmt_raw(F, k, buf, sizeof buf);
            if (n > F->width) F->width = n;
        }
    }
    /* a forced sci_mode replaces torch's choice after the width was measured (torch's
     * _Formatter: the width stays the chosen mode's; without a nonzero finite value it returned
     * before and the mode stays fixed) */
    if (cnt > 0 && F->po.sci_mode >= 0) F->sci = F->po.sci_mode == 1;
}

/* One sub-tensor starting at C-order position base, from dim d on (torch's
 * _tensor_str_with_formatter and _vector_str). */
static void emit(sbuf *b, const fmt *F, int64_t base, int d, int indent) {
    int64_t n = F->shape[d];
    const int64_t E = F->po.edgeitems;
    bool cut = F->summarize && n > 2 * E;
    sb_put(b, "[", 1);
    if (d == F->ndim - 1) {
        int per_line = (F->po.linewidth - indent) / (F->width + 2 + (F->im ? F->im->width + 1 : 0));
        if (per_line < 1) per_line = 1;
        int64_t count = cut ? 2 * E + 1 : n;
        for (int64_t e = 0; e < count; e++) {
            if (e > 0) {
                sb_put(b, ",", 1);
                if (e % per_line == 0) {
                    sb_put(b, "\n", 1);
                    sb_spaces(b, indent + 1);
                } else {
                    sb_put(b, " ", 1);
                }
            }
            if (cut && e == E) {
                sb_str(b, " ...");
                continue;
            }
            int64_t idx = cut && e > E ? n - (2 * E + 1 - e) : e;
            fmt_put(b, F, base + idx);
        }
    } else {
        int64_t count = cut ? 2 * E + 1 : n;
        for (int64_t e = 0; e < count; e++) {
            if (e > 0) {
                sb_put(b, ",", 1);
                for (int k = 0; k < F->ndim - 1 - d; k++)
                    sb_put(b, "\n", 1);
                sb_spaces(b, indent + 1);
            }
            if (cut && e == E) {
                sb_str(b, "...");
                continue;
            }
            int64_t idx = cut && e > E ? n - (2 * E + 1 - e) : e;
            emit(b, F, base + idx * F->strides[d], d + 1, indent + 1);
        }
    }
    sb_put(b, "]", 1);
}

/* Append ", suffix" or ",\n       suffix" as torch's _add_suffixes does; *last is its
 * last_line_len, which it starts from the text (2 more than the last line's length) and then
 * counts on (after a wrapped suffix: indent + the suffix's length). */
static void add_suffix(sbuf *b, const char *suffix, int indent, size_t *last, int linewidth) {
    size_t len = strlen(suffix);
    if (*last + len + 2 > (size_t)linewidth) {
        sb_str(b, ",\n");
        sb_spaces(b, indent);
        *last = (size_t)indent + len;
    } else {
        sb_str(b, ", ");
        *last += len + 2;
    }
    sb_str(b, suffix);
}

ct_status ct_tensor_to_string(const ct_tensor *t, char **out) {
    if (!t) return CT_ERR_INVALID_ARG;
    if (!ct__tensor_live(t)) return ct_tensor_to_host(t, NULL, 0); /* reports the dead handle */
    ct_ctx *ctx = t->ctx;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "to_string: out is NULL");
    *out = NULL;
    ct_dtype dt = t->dtype;
    const bool cx = ct_dtype_is_complex(dt);
    if (!ct__is_compute_dtype(dt) && !cx)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "to_string: dtype %s has no printed form here; cast it first",
                             ct_dtype_name(dt));
    int64_t numel = ct_tensor_numel(t);
    size_t isz = ct__itemsize(dt);
    void *raw = malloc(numel ? (size_t)numel * isz : 1);
    double *f = NULL;
    int64_t *iv = NULL;
    if (!raw) return ct__set_error(ctx, CT_ERR_OOM, "to_string: out of memory");
    ct_status st = ct_tensor_to_host(t, raw, (size_t)numel * isz);
    if (st != CT_OK) {
        free(raw);
        return st;
    }
    fmt F, FI;
    memset(&F, 0, sizeof F);
    F.po = ct_get_print_options(ctx);
    F.kind = dt == CT_BOOL ? 0 : ct_dtype_is_floating(dt) || cx ? 2 : 1;
    if (cx) { /* the real parts in f, the imaginary ones after them */
        f = malloc(numel ? 2 * (size_t)numel * sizeof(double) : 1);
        for (int64_t k = 0; f && k < numel; k++) {
            f[k] = dt == CT_COMPLEX64 ? ((const float *)raw)[2 * k] : ((const double *)raw)[2 * k];
            f[numel + k] = dt == CT_COMPLEX64 ? ((const float *)raw)[2 * k + 1]
                                              : ((const double *)raw)[2 * k + 1];
        }
        F.f = f;
    } else if (F.kind == 2) {
        f = malloc(numel ? (size_t)numel * sizeof(double) : 1);
        if (f)
            for (int64_t k = 0; k < numel; k++) {
                switch (dt) {
                case CT_FLOAT16: f[k] = ct__h2f(((const uint16_t *)raw)[k]); break;
                case CT_BFLOAT16: f[k] = ct__bf2f(((const uint16_t *)raw)[k]); break;
                case CT_FLOAT32: f[k] = ((const float *)raw)[k]; break;
                default: f[k] = ((const double *)raw)[k]; break;
                }
            }
        F.f = f;
    } else if (F.kind == 1) {
        iv = malloc(numel ? (size_t)numel * sizeof(int64_t) : 1);
        if (iv)
            for (int64_t k = 0; k < numel; k++) {
                switch (dt) {
                case CT_UINT8: iv[k] = ((const uint8_t *)raw)[k]; break;
                case CT_INT8: iv[k] = ((const int8_t *)raw)[k]; break;
                case CT_INT16: iv[k] = ((const int16_t *)raw)[k]; break;
                case CT_INT32: iv[k] = ((const int32_t *)raw)[k]; break;
                default: iv[k] = ((const int64_t *)raw)[k]; break;
                }
            }
        F.i = iv;
    } else {
        F.b = raw;
    }
    sbuf b = {0};
    if ((F.kind == 2 && !f) || (F.kind == 1 && !iv)) b.oom = true;
    const int indent = 7; /* strlen("tensor(") */
    sb_str(&b, "tensor(");
    char suffix[3][160];
    int nsuf = 0;
    bool default_dt = dt == CT_FLOAT32 || dt == CT_INT64 || dt == CT_BOOL || dt == CT_COMPLEX64;
    if (numel == 0) {
        sb_str(&b, "[]");
        if (t->ndim != 1) {
            int k = snprintf(suffix[nsuf], sizeof suffix[0], "size=(");
            for (int d = 0; d < t->ndim; d++)
                k += snprintf(suffix[nsuf] + k, sizeof suffix[0] - (size_t)k, "%s%lld",
                              d ? ", " : "", (long long)t->shape[d]);
            snprintf(suffix[nsuf] + k, sizeof suffix[0] - (size_t)k, ")");
            nsuf++;
        }
        if (dt != CT_FLOAT32)
            snprintf(suffix[nsuf++], sizeof suffix[0], "dtype=torch.%s", ct_dtype_name(dt));
    } else {
        if (!default_dt)
            snprintf(suffix[nsuf++], sizeof suffix[0], "dtype=torch.%s", ct_dtype_name(dt));
        F.ndim = t->ndim;
        F.shape = t->shape;
        int64_t s = 1;
        for (int d = t->ndim - 1; d >= 0; d--) {
            F.strides[d] = s;
            s *= t->shape[d];
        }
        F.summarize = numel > F.po.threshold;
        if (!b.oom) {
            fmt_scan(&F, numel);
            if (cx) { /* torch: one formatter for the real parts, one for the imaginary */
                FI = F;
                FI.f = f + numel;
                fmt_scan(&FI, numel);
                F.im = &FI;
            }
            if (t->ndim == 0)
                fmt_put(&b, &F, 0);
            else
                emit(&b, &F, 0, 0, indent);
        }
    }
    if (t->requires_grad) { /* torch's _str_intern: grad_fn for a result, else requires_grad */
        char name[96];
        if (ct__ag_grad_fn_name(t, name, sizeof name))
            snprintf(suffix[nsuf++], sizeof suffix[0], "grad_fn=<%s>", name);
        else
            snprintf(suffix[nsuf++], sizeof suffix[0], "requires_grad=True");
    }
    const char *nl = b.s ? strrchr(b.s, '\n') : NULL;
    /* torch: len(s) - s.rfind('\n') + 1, where rfind gives -1 when there is no newline */
    size_t last = nl ? (size_t)(b.s + b.n - nl) + 1 : b.n + 2;
    for (int k = 0; k < nsuf; k++)
        add_suffix(&b, suffix[k], indent, &last, F.po.linewidth);
    sb_str(&b, ")");
    free(raw);
    free(f);
    free(iv);
    if (b.oom) {
        free(b.s);
        return ct__set_error(ctx, CT_ERR_OOM, "to_string: out of memory");
    }
    *out = b.s;
    return CT_OK;
}

ct_status ct_tensor_print(FILE *fp, const ct_tensor *t) {
    if (!t) return CT_ERR_INVALID_ARG;
    if (!ct__tensor_live(t)) return ct_tensor_to_host(t, NULL, 0); /* reports the dead handle */
    if (!fp) return ct__set_error(t->ctx, CT_ERR_INVALID_ARG, "print: file is NULL");
    char *s = NULL;
    ct_status st = ct_tensor_to_string(t, &s);
    if (st != CT_OK) return st;
    bool ok = fputs(s, fp) >= 0 && fputc('\n', fp) != EOF;
    free(s);
    if (!ok) return ct__set_error(t->ctx, CT_ERR_IO, "print: write error");
    return CT_OK;
}

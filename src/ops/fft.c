/* torch.fft (ctorch/fft.h): the front ends resize the input along each transformed dim (a narrow
 * view, or a zero-padded copy), allocate the output and submit one CT_OP_FFT descriptor per dim
 * (layout in ctorch/backend.h; the CPU kernel is backends/cpu/fft_cpu.c). */
#include "ctorch/fft.h"
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* norm mode: 0 backward, 1 ortho, 2 forward; -1 bad */
static int ct__fft_norm(const char *norm) {
    if (!norm || strcmp(norm, "backward") == 0) return 0;
    if (strcmp(norm, "ortho") == 0) return 1;
    if (strcmp(norm, "forward") == 0) return 2;
    return -1;
}

/* scale of one transform of length n: `inverse` transforms carry 1 / n under "backward" */
static double ct__fft_scale(int norm, bool inverse, int64_t n) {
    if (norm == 1) return 1.0 / sqrt((double)n);
    if ((norm == 0 && inverse) || (norm == 2 && !inverse)) return 1.0 / (double)n;
    return 1.0;
}

/* x as the transform's input dtype: complex (want_complex) or real float32 / float64 */
static ct_status ct__fft_input(ct_ctx *ctx, const char *name, const ct_tensor *x, bool want_complex,
                               ct_tensor **out) {
    ct_dtype dt = x->dtype;
    if (dt == CT_FLOAT16 || dt == CT_BFLOAT16)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: Unsupported dtype %s", name,
                             ct_dtype_name(dt));
    if (!ct__is_compute_dtype(dt) && !ct_dtype_is_complex(dt))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s is a storage format", name,
                             ct_dtype_name(dt));
    if (!want_complex && ct_dtype_is_complex(dt))
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: %s expects a real input tensor, but got %s",
                             name, name, ct_dtype_name(dt));
    ct_dtype want = ct_dtype_is_complex(dt) || ct_dtype_is_floating(dt) ? dt : CT_FLOAT32;
    if (want_complex) want = ct_dtype_to_complex(want);
    if (want == dt) {
        *out = ct_tensor_retain((ct_tensor *)x);
        return CT_OK;
    }
    return ct_cast(ctx, x, want, out);
}

/* x resized to len along dim: a narrow view, or a zero-padded copy */
static ct_status ct__fft_resize(ct_ctx *ctx, const ct_tensor *x, int dim, int64_t len,
                                ct_tensor **out) {
    const int64_t m = x->shape[dim];
    if (m == len) {
        *out = ct_tensor_retain((ct_tensor *)x);
        return CT_OK;
    }
    if (m > len) return ct_tensor_narrow(ctx, x, dim, 0, len, out);
    if (ct_tensor_numel(x) == 0) { /* zeros of the new size (torch pads every dim at once, so a
                                      dim still empty does not stop another dim's padding) */
        int64_t shape[CT_MAX_DIMS];
        memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
        shape[dim] = len;
        return ct_tensor_zeros(ctx, x->dtype, x->ndim, shape, out);
    }
    if (ct_dtype_is_complex(x->dtype)) { /* pad the real pairs: differentiable views and copy_ */
        ct_tensor *r = NULL, *rp = NULL;
        ct_status st = ct_view_as_real(ctx, x, &r);
        if (st == CT_OK) st = ct__fft_resize(ctx, r, dim, len, &rp);
        if (st == CT_OK) st = ct_view_as_complex(ctx, rp, out);
        ct_tensor_release(r), ct_tensor_release(rp);
        return st;
    }
    /* zeros after the data along dim: F.pad's constant mode (differentiable) */
    int64_t pad[2 * CT_MAX_DIMS] = {0};
    const int np = 2 * (x->ndim - dim);
    pad[np - 1] = len - m;
    return ct_pad(ctx, x, np, pad, CT_PAD_CONSTANT, 0, out);
}

/* ---- autograd: the adjoint of each transform is another transform (torch's formulas) ---- */
typedef struct {
    int mode, dim, sign;
    int64_t n;
    double scale;
} ct__fftg;
static ct_status ct__fft_one(ct_ctx *ctx, const ct_tensor *x, int mode, int dim, int sign,
                             int64_t n, double scale, ct_tensor **out);
static ct_status ct__fft_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    const ct__fftg *u = user;
    ct_tensor *g = gout[0], *t[3] = {NULL};
    ct_status st = CT_OK;
    if (!need[0]) return CT_OK;
    if (u->mode == CT_FFT_C2C) { /* the conjugate transform */
        st = ct__fft_one(ctx, g, CT_FFT_C2C, u->dim, -u->sign, u->n, u->scale, &gin[0]);
    } else if (u->mode == CT_FFT_R2C) { /* the half spectrum zero-padded, conjugate transform;
                                          the engine keeps the real part */
        st = ct__fft_resize(ctx, g, u->dim, u->n, &t[0]);
        if (st == CT_OK)
            st = ct__fft_one(ctx, t[0], CT_FFT_C2C, u->dim, -u->sign, u->n, u->scale, &gin[0]);
    } else { /* c2r: r2c of the gradient, the mirrored frequencies counted twice */
        const int64_t h = u->n / 2 + 1;
        st = ct__fft_one(ctx, g, CT_FFT_R2C, u->dim, -u->sign, u->n, u->scale, &t[0]);
        int64_t sh[CT_MAX_DIMS]; /* weights along dim: 1 at 0 (and n / 2 for even n), else 2 */
        for (int d = 0; d < g->ndim; d++)
            sh[d] = d == u->dim ? h : 1;
        if (st == CT_OK) st = ct_tensor_full(ctx, g->dtype, g->ndim, sh, 2.0, &t[1]);
        for (int e = 0; e < 2 && st == CT_OK; e++) {
            if (e == 1 && (u->n % 2 || h == 1)) break;
            ct_tensor *one = NULL;
            st = ct_tensor_narrow(ctx, t[1], u->dim, e ? h - 1 : 0, 1, &one);
            if (st == CT_OK) st = ct_tensor_fill_(ctx, one, 1.0);
            ct_tensor_release(one);
        }
        if (st == CT_OK) st = ct_mul(ctx, t[0], t[1], &gin[0]);
    }
    ct__release_all(3, t);
    return st;
}
static const ct__ag_custom CT__FFT_NODES[3] = {
    {"FftC2CBackward", ct__fft_backward, free, false},
    {"FftR2CBackward", ct__fft_backward, free, false},
    {"FftC2RBackward", ct__fft_backward, free, false},
};

/* one transform of x (already the mode's input dtype) along dim (normalised) */
static ct_status ct__fft_one(ct_ctx *ctx, const ct_tensor *x, int mode, int dim, int sign,
                             int64_t n, double scale, ct_tensor **out) {
    const int64_t in_len = mode == CT_FFT_C2R ? n / 2 + 1 : n;
    const int64_t out_len = mode == CT_FFT_R2C ? n / 2 + 1 : n;
    ct_tensor *xin = NULL, *r = NULL, *p[2] = {NULL, NULL};
    ct_status st = ct__fft_resize(ctx, x, dim, in_len, &xin);
    if (st != CT_OK) return st;
    const ct_dtype real = ct_dtype_to_real(x->dtype);
    const ct_dtype odt = mode == CT_FFT_C2R ? real : ct_dtype_to_complex(real);
    int64_t sh[CT_MAX_DIMS];
    memcpy(sh, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    sh[dim] = out_len;
    if ((st = ct__tensor_new(ctx, x->storage->device, odt, x->ndim, sh, &r)) == CT_OK) {
        const ct_tensor *o = r, *i = xin;
        if (ct_dtype_is_complex(odt) && (st = ct__cx_part(ctx, r, 0, &p[0])) == CT_OK) o = p[0];
        if (st == CT_OK && ct_dtype_is_complex(xin->dtype) &&
            (st = ct__cx_part(ctx, xin, 0, &p[1])) == CT_OK)
            i = p[1];
        if (st == CT_OK) {
            ct_op_desc d;
            ct__desc_init(&d, CT_OP_FFT, 1, 1);
            ct__operand_set(&d.operands[0], o);
            ct__operand_set(&d.operands[1], i);
            d.compute_dtype = real;
            d.ints[0] = mode;
            d.ints[1] = dim;
            d.ints[2] = sign;
            d.ints[3] = n;
            d.scalars[0] = scale;
            st = ct__submit(ctx, r->storage->device, &d);
        }
    }
    ct__release_all(2, p);
    const ct_tensor *ins[1] = {xin};
    if (st == CT_OK && ct__ag_wants(ctx, 1, ins)) {
        ct__fftg *u = malloc(sizeof *u);
        if (!u) {
            st = ct__set_error(ctx, CT_ERR_OOM, "fft: out of memory");
        } else {
            *u = (ct__fftg){mode, dim, sign, n, scale};
            st = ct__ag_record_custom_n(ctx, &CT__FFT_NODES[mode], u, 1, ins, &r);
        }
    }
    ct_tensor_release(xin);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* the checks every transform makes */
static ct_status ct__fft_front(ct_ctx *ctx, const char *name, const ct_tensor *x, const char *norm,
                               int *nm, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if ((*nm = ct__fft_norm(norm)) < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: Invalid normalization mode: \"%s\"",
                             name, norm);
    (void)ins;
    return CT_OK;
}

static ct_status ct__fft_len(ct_ctx *ctx, const char *name, int64_t n, int64_t def, int64_t *len) {
    if (n == -1) n = def;
    if (n < 1)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: Invalid number of data points (%lld) specified", name,
                             (long long)n);
    *len = n;
    return CT_OK;
}

/* kinds of the 1-d transforms: input complex?, mode, sign, inverse (for the norm) */
typedef struct {
    const char *name;
    bool cin;
    int mode, sign;
    bool inverse;
} ct__fft_kind;
static const ct__fft_kind CT__FFT = {"fft", true, CT_FFT_C2C, -1, false};
static const ct__fft_kind CT__IFFT = {"ifft", true, CT_FFT_C2C, 1, true};
static const ct__fft_kind CT__RFFT = {"rfft", false, CT_FFT_R2C, -1, false};
static const ct__fft_kind CT__IRFFT = {"irfft", true, CT_FFT_C2R, 1, true};
static const ct__fft_kind CT__HFFT = {"hfft", true, CT_FFT_C2R, -1, false};
static const ct__fft_kind CT__IHFFT = {"ihfft", false, CT_FFT_R2C, 1, true};

static ct_status ct__fft_1d(ct_ctx *ctx, const ct__fft_kind *k, const ct_tensor *x, int64_t n,
                            int dim, const char *norm, ct_tensor **out) {
    int nm = 0;
    ct_status st = ct__fft_front(ctx, k->name, x, norm, &nm, out);
    if (st != CT_OK) return st;
    const uint64_t mark = ct__ag_mark(ctx);
    /* torch's last node where it differs from ctorch's (printing only): fft of a real input is
     * its full r2c, ifft / ihfft of a real input the conjugate of one */
    const char *node = NULL;
    if (!ct_dtype_is_complex(x->dtype) && k->mode == CT_FFT_C2C)
        node = k->sign < 0 ? "FftR2CBackward0" : "ConjBackward0";
    if (k->mode == CT_FFT_R2C && k->sign > 0) node = "ConjBackward0";
    int d;
    if (!ct__wrap_dim(dim, x->ndim, &d) || x->ndim == 0)
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: Dimension out of range (expected to be in range of [%d, %d], "
                             "but got %d)",
                             k->name, x->ndim ? -x->ndim : -1, x->ndim ? x->ndim - 1 : 0, dim);
    int64_t len = 1;
    const int64_t def = k->mode == CT_FFT_C2R ? 2 * (x->shape[d] - 1) : x->shape[d];
    if ((st = ct__fft_len(ctx, k->name, n, def, &len)) != CT_OK) return st;
    ct_tensor *xi = NULL;
    if ((st = ct__fft_input(ctx, k->name, x, k->cin, &xi)) != CT_OK) return st;
    st = ct__fft_one(ctx, xi, k->mode, d, k->sign, len, ct__fft_scale(nm, k->inverse, len), out);
    ct_tensor_release(xi);
    st = ct__error_within(ctx, k->name, st);
    return node ? ct__ag_named(ctx, st, out, mark, node) : st;
}

#define CT__FFT_1D(fn, KIND)                                                                       \
    ct_status ct_fft_##fn(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,   \
                          ct_tensor **out) {                                                       \
        return ct__fft_1d(ctx, &KIND, x, n, dim, norm, out);                                       \
    }
CT__FFT_1D(fft, CT__FFT)
CT__FFT_1D(ifft, CT__IFFT)
CT__FFT_1D(rfft, CT__RFFT)
CT__FFT_1D(irfft, CT__IRFFT)
CT__FFT_1D(hfft, CT__HFFT)
CT__FFT_1D(ihfft, CT__IHFFT)

/* n-dim: kind 0 fftn, 1 ifftn, 2 rfftn, 3 irfftn, 4 hfftn, 5 ihfftn. hfftn is irfftn's order
 * (c2c over the other dims, then c2r over the last) in the forward direction; ihfftn rfftn's (r2c
 * over the last dim first) in the inverse one, as torch's definitions. */
static ct_status ct__fftn(ct_ctx *ctx, const char *name, int kind, const ct_tensor *x, int n_dims,
                          const int64_t *s, const int *dim, const char *norm, ct_tensor **out) {
    int nm = 0;
    ct_status st = ct__fft_front(ctx, name, x, norm, &nm, out);
    if (st != CT_OK) return st;
    const uint64_t mark = ct__ag_mark(ctx);
    int nd = n_dims, dims[CT_MAX_DIMS];
    if (!s && !dim) nd = x->ndim;
    const bool real_in = kind == 2 || kind == 5, real_out = kind == 3 || kind == 4;
    if (kind >= 2 && ((!s && !dim) ? x->ndim : n_dims) == 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s must transform at least one axis", name);
    if (x->ndim == 0 && !(dim && n_dims == 0))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "%s: Dimension specified as -1 but tensor has no dimensions", name);
    if (nd < 0 || nd > x->ndim || (nd == 0 && s))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %d dims requested of a %d-dim input",
                             name, n_dims, x->ndim);
    for (int i = 0; i < nd; i++) {
        int d = dim ? dim[i] : x->ndim - nd + i;
        if (!ct__wrap_dim(d, x->ndim, &dims[i]) || x->ndim == 0)
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "%s: Dimension out of range (expected to be in range of [%d, "
                                 "%d], but got %d)",
                                 name, -x->ndim, x->ndim - 1, d);
        for (int j = 0; j < i; j++)
            if (dims[j] == dims[i])
                return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: dims must be unique", name);
    }
    if (nd == 0) { /* no dims: the input (as the output dtype) */
        ct_tensor *xi = NULL;
        if ((st = ct__fft_input(ctx, name, x, true, &xi)) != CT_OK) return st;
        if (kind == 2) {
            st = ct_cast(ctx, xi, ct_dtype_to_complex(xi->dtype), out);
            ct_tensor_release(xi);
            return st;
        }
        if (kind == 3) {
            st = ct_cast(ctx, xi, ct_dtype_to_real(xi->dtype), out);
            ct_tensor_release(xi);
            return st;
        }
        *out = xi;
        return CT_OK;
    }
    int64_t len[CT_MAX_DIMS] = {0};
    for (int i = 0; i < nd; i++) {
        int64_t def = x->shape[dims[i]];
        if (real_out && i == nd - 1) def = 2 * (def - 1);
        if ((st = ct__fft_len(ctx, name, s ? s[i] : -1, def, &len[i])) != CT_OK) return st;
    }
    ct_tensor *cur = NULL, *nxt = NULL;
    if ((st = ct__fft_input(ctx, name, x, !real_in, &cur)) != CT_OK) return st;
    const bool inverse = kind == 1 || kind == 3 || kind == 5;
    /* rfftn / ihfftn: the real dim first; irfftn / hfftn: the real dim last */
    for (int step = 0; step < nd && st == CT_OK; step++) {
        int i = real_in ? (step == 0 ? nd - 1 : step - 1) : step;
        int mode = CT_FFT_C2C;
        if (real_in && i == nd - 1) mode = CT_FFT_R2C;
        if (real_out && i == nd - 1) mode = CT_FFT_C2R;
        st = ct__fft_one(ctx, cur, mode, dims[i], inverse ? 1 : -1, len[i],
                         ct__fft_scale(nm, inverse, len[i]), &nxt);
        ct_tensor_release(cur);
        cur = nxt;
        nxt = NULL;
    }
    if (st != CT_OK) {
        ct_tensor_release(cur);
        return ct__error_within(ctx, name, st);
    }
    *out = cur;
    /* torch's rfftn is one r2c node over every dim; its ihfftn over one dim ends in a conj */
    if (kind == 2) return ct__ag_named(ctx, st, out, mark, "FftR2CBackward0");
    return kind == 5 && nd == 1 ? ct__ag_named(ctx, st, out, mark, "ConjBackward0") : CT_OK;
}

#define CT__FFT_ND(fn, KIND)                                                                       \
    ct_status ct_fft_##fn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,           \
                          const int *dim, const char *norm, ct_tensor **out) {                     \
        return ct__fftn(ctx, #fn, KIND, x, n_dims, s, dim, norm, out);                             \
    }
CT__FFT_ND(fftn, 0)
CT__FFT_ND(ifftn, 1)
CT__FFT_ND(rfftn, 2)
CT__FFT_ND(irfftn, 3)
CT__FFT_ND(hfftn, 4)
CT__FFT_ND(ihfftn, 5)

static const int ct__last2[2] = {-2, -1};
#define CT__FFT_2D(fn, KIND)                                                                       \
    ct_status ct_fft_##fn(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,       \
                          const char *norm, ct_tensor **out) {                                     \
        return ct__fftn(ctx, #fn, KIND, x, 2, s, dim ? dim : ct__last2, norm, out);                \
    }
CT__FFT_2D(fft2, 0)
CT__FFT_2D(ifft2, 1)
CT__FFT_2D(rfft2, 2)
CT__FFT_2D(irfft2, 3)
CT__FFT_2D(hfft2, 4)
CT__FFT_2D(ihfft2, 5)

/* fftfreq: [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n); rfftfreq: [0 .. n / 2] / (d n),
 * computed as torch: arange, then multiplied by 1 / (d n) in the dtype */
static ct_status ct__fftfreq(ct_ctx *ctx, const char *name, bool half, int64_t n, double d,
                             ct_dtype dtype, ct_tensor **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    if (!out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: out is NULL", name);
    *out = NULL;
    if (n < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: n must be >= 0, got %lld", name,
                             (long long)n);
    if (dtype != CT_FLOAT32 && dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE, "%s: dtype %s (float32 or float64 only)", name,
                             ct_dtype_name(dtype));
    const int64_t m = half ? n / 2 + 1 : n;
    ct_tensor *a = NULL, *b = NULL;
    ct_status st = ct_tensor_arange(ctx, dtype, 0, (double)m, 1, &a);
    if (st == CT_OK && !half && n > 0) { /* the upper half: k - n */
        const int64_t pos = (n - 1) / 2 + 1;
        ct_tensor *tail = NULL, *sh = NULL;
        st = ct_tensor_narrow(ctx, a, 0, pos, n - pos, &tail);
        if (st == CT_OK) st = ct_sub_scalar(ctx, tail, (double)n, &sh);
        if (st == CT_OK) st = ct_tensor_copy_(ctx, tail, sh);
        ct_tensor_release(tail);
        ct_tensor_release(sh);
    }
    if (st == CT_OK) st = ct_mul_scalar(ctx, a, 1.0 / ((double)n * d), &b);
    ct_tensor_release(a);
    if (st == CT_OK) *out = b;
    return ct__error_within(ctx, name, st);
}
ct_status ct_fft_fftfreq(ct_ctx *ctx, int64_t n, double d, ct_dtype dtype, ct_tensor **out) {
    return ct__fftfreq(ctx, "fftfreq", false, n, d, dtype, out);
}
ct_status ct_fft_rfftfreq(ct_ctx *ctx, int64_t n, double d, ct_dtype dtype, ct_tensor **out) {
    return ct__fftfreq(ctx, "rfftfreq", true, n, d, dtype, out);
}

/* roll by size / 2 (fftshift) or -(size / 2) (ifftshift) on every requested dim; complex tensors
 * roll their real pairs */
static ct_status ct__fftshift(ct_ctx *ctx, const char *name, bool inv, const ct_tensor *x,
                              int n_dims, const int *dim, ct_tensor **out) {
    const ct_tensor *ins[1] = {x};
    ct_status st = ct__check_args(ctx, name, 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    const int nd = dim ? n_dims : x->ndim;
    if (nd < 0 || nd > CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %d dims", name, n_dims);
    int dims[CT_MAX_DIMS];
    int64_t shifts[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        int d = dim ? dim[i] : i;
        if (!ct__wrap_dim(d, x->ndim, &dims[i]) || x->ndim == 0)
            return ct__set_error(ctx, CT_ERR_INDEX, "%s: Dimension out of range (got %d)", name, d);
        const int64_t sz = x->shape[dims[i]];
        shifts[i] = inv ? -(sz / 2) : sz / 2;
    }
    if (nd == 0) /* torch: roll with no shifts */
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: no dims to shift (`shifts` required)",
                             name);
    if (!ct_dtype_is_complex(x->dtype))
        return ct__error_within(ctx, name, ct_roll(ctx, x, nd, shifts, dims, out));
    ct_tensor *r = NULL, *rr = NULL, *c = NULL;
    const uint64_t mark = ct__ag_mark(ctx);
    if ((st = ct_view_as_real(ctx, x, &r)) == CT_OK) st = ct_roll(ctx, r, nd, shifts, dims, &rr);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, rr, &c);
    if (st == CT_OK) st = ct_view_as_complex(ctx, c, out);
    ct_tensor_release(r);
    ct_tensor_release(rr);
    ct_tensor_release(c);
    return ct__ag_named(ctx, ct__error_within(ctx, name, st), out, mark, "RollBackward0");
}
ct_status ct_fft_fftshift(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int *dim,
                          ct_tensor **out) {
    return ct__fftshift(ctx, "fftshift", false, x, n_dims, dim, out);
}
ct_status ct_fft_ifftshift(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int *dim,
                           ct_tensor **out) {
    return ct__fftshift(ctx, "ifftshift", true, x, n_dims, dim, out);
}

/* ---- stft / istft ---- */
static ct_status ct__stft_params(ct_ctx *ctx, const char *name, int64_t n_fft,
                                 const ct_stft_opts *o, int64_t *hop, int64_t *win, ct_dtype real,
                                 ct_tensor **window) {
    *hop = o->hop_length > 0 ? o->hop_length : n_fft / 4;
    *win = o->win_length > 0 ? o->win_length : n_fft;
    if (n_fft <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: expected n_fft > 0, but got %lld", name,
                             (long long)n_fft);
    if (o->hop_length < 0 || *hop <= 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expected hop_length > 0, but got hop_length=%lld", name,
                             (long long)*hop);
    if (o->win_length < 0 || *win > n_fft)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "%s: expected 0 < win_length <= n_fft, but got win_length=%lld", name,
                             (long long)*win);
    ct_status st;
    ct_tensor *w = NULL;
    if (o->window) {
        if ((st = ct__check_tensor(ctx, name, "window", o->window)) != CT_OK) return st;
        if (o->window->ndim != 1 || o->window->shape[0] != *win)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "%s: expected a 1D window tensor of size equal to win_length=%lld",
                                 name, (long long)*win);
        if (ct_dtype_is_complex(o->window->dtype) && !ct_dtype_is_complex(real))
            return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                 "%s: a complex window needs a complex result (istft's is real)",
                                 name);
        st = ct_cast(ctx, o->window, real, &w);
    } else {
        st = ct_tensor_ones(ctx, real, 1, win, &w);
    }
    if (st == CT_OK && *win < n_fft) { /* zero-padded to n_fft, centred */
        const int64_t left = (n_fft - *win) / 2, pad[2] = {left, n_fft - *win - left};
        ct_tensor *p = NULL;
        if (ct_dtype_is_complex(real)) { /* the real pairs, padded along the window's dim */
            ct_tensor *r = NULL, *rt = NULL, *pt = NULL, *pr = NULL;
            st = ct_view_as_real(ctx, w, &r);
            if (st == CT_OK) st = ct_tensor_transpose(ctx, r, 0, 1, &rt);
            if (st == CT_OK) st = ct_pad(ctx, rt, 2, pad, CT_PAD_CONSTANT, 0, &pt);
            if (st == CT_OK) st = ct_tensor_transpose(ctx, pt, 0, 1, &pr);
            ct_tensor_release(r), r = NULL;
            if (st == CT_OK) st = ct_tensor_contiguous(ctx, pr, &r);
            if (st == CT_OK) st = ct_view_as_complex(ctx, r, &p);
            ct_tensor_release(r), ct_tensor_release(rt), ct_tensor_release(pt);
            ct_tensor_release(pr);
        } else {
            st = ct_pad(ctx, w, 2, pad, CT_PAD_CONSTANT, 0, &p);
        }
        ct_tensor_release(w);
        w = p;
    }
    if (st != CT_OK) {
        ct_tensor_release(w);
        return st;
    }
    *window = w;
    return CT_OK;
}

ct_status ct_stft(ct_ctx *ctx, const ct_tensor *x, int64_t n_fft, const ct_stft_opts *opts,
                  ct_tensor **out) {
    int nm = 0;
    ct_status st = ct__fft_front(ctx, "stft", x, NULL, &nm, out);
    if (st != CT_OK) return st;
    const uint64_t mark = ct__ag_mark(ctx);
    const ct_stft_opts dflt = {0};
    const ct_stft_opts *o = opts ? opts : &dflt;
    if (x->ndim != 1 && x->ndim != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "stft: expected a 1D or 2D tensor, but got a %dD tensor", x->ndim);
    const bool wcx =
        o->window && ct__tensor_live(o->window) && ct_dtype_is_complex(o->window->dtype);
    const bool cx = ct_dtype_is_complex(x->dtype) || wcx; /* a complex window: complex frames */
    if (o->onesided > 0 && cx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "stft: Cannot have onesided output if window or input is complex");
    const bool onesided = o->onesided == 0 ? !cx : o->onesided > 0;
    ct_tensor *xi = NULL, *w = NULL, *t[6] = {NULL};
    if ((st = ct__fft_input(ctx, "stft", x, cx, &xi)) != CT_OK) return st;
    int64_t hop = 0, win = 0;
    ct_dtype real = ct_dtype_to_real(xi->dtype);
    if (o->window && ct__tensor_live(o->window) &&
        (o->window->dtype == CT_FLOAT64 || o->window->dtype == CT_COMPLEX128) &&
        real == CT_FLOAT32) { /* torch promotes the signal to the window's float64 */
        ct_tensor *p = NULL;
        st = ct_cast(ctx, xi, cx ? CT_COMPLEX128 : CT_FLOAT64, &p);
        ct_tensor_release(xi);
        xi = p;
        real = CT_FLOAT64;
        if (st != CT_OK) return ct__error_within(ctx, "stft", st);
    }
    st = ct__stft_params(ctx, "stft", n_fft, o, &hop, &win, wcx ? ct_dtype_to_complex(real) : real,
                         &w);
    ct_tensor *sig = ct_tensor_retain(xi); /* (B, L) */
    if (st == CT_OK && x->ndim == 1) {
        ct_tensor_release(sig), sig = NULL;
        st = ct_tensor_unsqueeze(ctx, xi, 0, &sig);
    }
    if (st == CT_OK && !o->no_center) { /* F.pad of the (1, B, L) view */
        const int64_t pad[2] = {n_fft / 2, n_fft / 2};
        const ct_pad_mode pm = o->pad_mode_set ? o->pad_mode : CT_PAD_REFLECT;
        ct_tensor *v = NULL, *p = NULL;
        if (cx) { /* pad the real pairs: (1, B, L, 2) -> transpose the pair dim out of the way */
            ct_tensor *r = NULL, *rt = NULL, *pt = NULL, *rt2 = NULL;
            st = ct_view_as_real(ctx, sig, &r);
            if (st == CT_OK) st = ct_tensor_permute(ctx, r, (const int[]){0, 2, 1}, &rt);
            if (st == CT_OK) st = ct_pad(ctx, rt, 2, pad, pm, 0, &pt);
            ct_tensor_release(r), r = NULL;
            if (st == CT_OK) st = ct_tensor_permute(ctx, pt, (const int[]){0, 2, 1}, &r);
            if (st == CT_OK) st = ct_tensor_contiguous(ctx, r, &rt2);
            /* a reshape gives the strides of a contiguous tensor to the size-1 dims too (the
             * permuted ones may be odd, which view_as_complex refuses) */
            if (st == CT_OK) st = ct_tensor_reshape(ctx, rt2, 3, rt2->shape, &p);
            if (st == CT_OK) {
                ct_tensor_release(sig), sig = NULL;
                st = ct_view_as_complex(ctx, p, &sig);
            }
            ct_tensor_release(rt2);
            ct_tensor_release(r), ct_tensor_release(rt), ct_tensor_release(pt),
                ct_tensor_release(p);
        } else {
            st = ct_tensor_unsqueeze(ctx, sig, 0, &v);
            if (st == CT_OK) st = ct_pad(ctx, v, 2, pad, pm, 0, &p);
            ct_tensor_release(sig), sig = NULL;
            if (st == CT_OK) st = ct_tensor_squeeze(ctx, p, 0, &sig);
            ct_tensor_release(v), ct_tensor_release(p);
        }
    }
    const int64_t L = st == CT_OK ? sig->shape[1] : 0;
    if (st == CT_OK && (n_fft > L))
        st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                           "stft: expected 0 < n_fft < %lld, but got n_fft=%lld", (long long)L,
                           (long long)n_fft);
    /* frames (B, n_frames, n_fft) as a view, windowed, transformed, (B, freq, n_frames) */
    if (st == CT_OK) st = ct_tensor_unfold(ctx, sig, 1, n_fft, hop, &t[0]);
    if (st == CT_OK) st = ct_mul(ctx, t[0], w, &t[1]);
    const char *norm = o->normalized ? "ortho" : NULL;
    if (st == CT_OK)
        st = onesided ? ct_fft_rfft(ctx, t[1], -1, 2, norm, &t[2])
                      : ct_fft_fft(ctx, t[1], -1, 2, norm, &t[2]);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, t[2], 1, 2, &t[3]);
    if (st == CT_OK && x->ndim == 1) st = ct_tensor_squeeze(ctx, t[3], 0, &t[4]);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, x->ndim == 1 ? t[4] : t[3], out);
    ct__release_all(6, t);
    ct_tensor_release(sig), ct_tensor_release(xi), ct_tensor_release(w);
    return ct__ag_named(ctx, ct__error_within(ctx, "stft", st), out, mark,
                        x->ndim == 1 ? "SqueezeBackward3" : "TransposeBackward1");
}

ct_status ct_istft(ct_ctx *ctx, const ct_tensor *X, int64_t n_fft, const ct_stft_opts *opts,
                   ct_tensor **out) {
    int nm = 0;
    ct_status st = ct__fft_front(ctx, "istft", X, NULL, &nm, out);
    if (st != CT_OK) return st;
    const uint64_t mark = ct__ag_mark(ctx);
    const ct_stft_opts dflt = {0};
    const ct_stft_opts *o = opts ? opts : &dflt;
    if (!ct_dtype_is_complex(X->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "istft: istft requires a complex-valued input tensor, got %s",
                             ct_dtype_name(X->dtype));
    if (X->ndim != 2 && X->ndim != 3)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "istft: expected a tensor with a 2 or 3 dimensions of complex "
                             "dtype, got %dD",
                             X->ndim);
    const int64_t fr = X->shape[X->ndim - 2], nf = X->shape[X->ndim - 1];
    const bool onesided = o->onesided == 0 ? fr != n_fft : o->onesided > 0;
    if (n_fft <= 0 || (onesided ? fr != n_fft / 2 + 1 : fr != n_fft))
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "istft: expected the frequency dimension (%lld) of the input to "
                             "equal %s",
                             (long long)fr, onesided ? "n_fft / 2 + 1" : "n_fft");
    if (nf == 0) return ct__set_error(ctx, CT_ERR_SHAPE, "istft: input tensor cannot be empty");
    int64_t hop = 0, win = 0;
    ct_tensor *w = NULL, *t[16] = {NULL};
    ct_dtype real = ct_dtype_to_real(X->dtype);
    if (o->window && ct__tensor_live(o->window) && o->window->dtype == CT_FLOAT64)
        real = CT_FLOAT64; /* torch: the result takes the float64 window's precision */
    if ((st = ct__stft_params(ctx, "istft", n_fft, o, &hop, &win, real, &w)) != CT_OK) return st;
    if (hop > win) {
        ct_tensor_release(w);
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "istft: expected 0 < hop_length <= win_length, got hop_length=%lld "
                             "and win_length=%lld",
                             (long long)hop, (long long)win);
    }
    /* frames (B, n_frames, n_fft), windowed */
    if (X->ndim == 2)
        st = ct_tensor_unsqueeze(ctx, X, 0, &t[0]);
    else
        t[0] = ct_tensor_retain((ct_tensor *)X);
    const char *norm = o->normalized ? "ortho" : NULL;
    if (st == CT_OK) st = ct_tensor_transpose(ctx, t[0], 1, 2, &t[1]);
    if (st == CT_OK && !onesided) /* torch 1.13 (a real result): the first n_fft / 2 + 1 rows */
        st = ct_tensor_narrow(ctx, t[1], 2, 0, n_fft / 2 + 1, &t[3]);
    if (st == CT_OK) st = ct_fft_irfft(ctx, onesided ? t[1] : t[3], n_fft, 2, norm, &t[2]);
    if (st == CT_OK) st = ct_mul(ctx, t[2], w, &t[4]); /* (B, n_frames, n_fft) */
    /* overlap-add as fold: cols (B, n_fft, n_frames) into (1, expected) */
    const int64_t expected = n_fft + hop * (nf - 1);
    const int64_t osz[2] = {1, expected}, ker[2] = {1, n_fft}, dil[2] = {1, 1}, pad0[2] = {0, 0},
                  str[2] = {1, hop};
    if (st == CT_OK) st = ct_tensor_transpose(ctx, t[4], 1, 2, &t[5]);
    if (st == CT_OK) st = ct_fold(ctx, t[5], osz, ker, dil, pad0, str, &t[6]); /* (B,1,1,E) */
    /* the window envelope: sum of squared windows over the same frames */
    if (st == CT_OK) st = ct_mul(ctx, w, w, &t[7]);
    if (st == CT_OK) st = ct_tensor_expand(ctx, t[7], 3, (const int64_t[]){1, nf, n_fft}, &t[8]);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, t[8], 1, 2, &t[9]);
    if (st == CT_OK) st = ct_tensor_contiguous(ctx, t[9], &t[10]);
    if (st == CT_OK) st = ct_fold(ctx, t[10], osz, ker, dil, pad0, str, &t[11]); /* (1,1,1,E) */
    const int64_t start = o->no_center ? 0 : n_fft / 2;
    int64_t end = o->length > 0  ? o->length + start
                  : o->no_center ? expected
                                 : expected - n_fft / 2;
    if (end > expected) end = expected;
    if (o->length < 0 || end < start)
        st = st != CT_OK ? st
                         : ct__set_error(ctx, CT_ERR_INVALID_ARG, "istft: bad length %lld",
                                         (long long)o->length);
    ct_tensor *y = NULL, *env = NULL;
    if (st == CT_OK)
        st = ct_tensor_reshape(ctx, t[6], 2, (const int64_t[]){t[6]->shape[0], expected}, &t[12]);
    if (st == CT_OK) st = ct_tensor_reshape(ctx, t[11], 1, (const int64_t[]){expected}, &t[13]);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[12], 1, start, end - start, &y);
    if (st == CT_OK) st = ct_tensor_narrow(ctx, t[13], 0, start, end - start, &env);
    if (st == CT_OK && end > start) { /* torch's NOLA check: the envelope must not vanish */
        ct_tensor *a = NULL, *m = NULL;
        double mn = 0;
        st = ct_abs(ctx, env, &a);
        if (st == CT_OK) st = ct_amin(ctx, a, 0, NULL, false, &m);
        if (st == CT_OK) st = ct_tensor_item(m, &mn);
        if (st == CT_OK && !(mn > 1e-11))
            st = ct__set_error(ctx, CT_ERR_INVALID_ARG,
                               "istft: window overlap add min: %g (the window and hop do not "
                               "satisfy the NOLA condition)",
                               mn);
        ct_tensor_release(a), ct_tensor_release(m);
    }
    if (st == CT_OK) st = ct_div(ctx, y, env, &t[14]);
    /* a requested length beyond the frames: zeros after them */
    if (st == CT_OK && o->length > 0 && o->length > end - start) {
        const int64_t pad[2] = {0, o->length - (end - start)};
        st = ct_pad(ctx, t[14], 2, pad, CT_PAD_CONSTANT, 0, &t[15]);
    } else if (st == CT_OK) {
        t[15] = ct_tensor_retain(t[14]);
    }
    if (st == CT_OK)
        st = X->ndim == 2 ? ct_tensor_squeeze(ctx, t[15], 0, out)
                          : ct_tensor_contiguous(ctx, t[15], out);
    ct__release_all(16, t);
    ct_tensor_release(y), ct_tensor_release(env), ct_tensor_release(w);
    return ct__ag_named(ctx, ct__error_within(ctx, "istft", st), out, mark, "SqueezeBackward1");
}

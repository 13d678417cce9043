/* Complex tensors (complex64, complex128): promotion, views of the real and imaginary parts,
 * casts, and the elementwise ops the CT_OP_COMPLEX kernel runs (docs/everyday.md, "Complex
 * tensors and torch.fft"). The kernels see real dtypes only: a complex operand is the view of its
 * real parts (ct__cx_part), the imaginary part the next real. Autograd does not cross complex
 * tensors yet: an input that requires grad is refused (CT_ERR_UNSUPPORTED). */
#include "ctorch/autograd.h"
#include "ctorch/ops.h"
#include "ops/complex_impl.h"
#include "ops/dispatch.h"
#include "tensor/ag_front.h"

#include <math.h>
#include <stdlib.h>

/* category: bool 0, integers 1, floats 2, complex 3 */
int ct__dtype_category(ct_dtype dt) {
    if (dt == CT_BOOL) return 0;
    if (dt <= CT_INT64) return 1;
    return ct_dtype_is_complex(dt) ? 3 : 2;
}

ct_status ct__cx_promote(ct_dtype a, ct_dtype b, ct_dtype *out) {
    if (!ct_dtype_is_complex(a) && !ct_dtype_is_complex(b)) return ct_dtype_promote(a, b, out);
    ct_dtype r;
    ct_status st = ct_dtype_promote(ct_dtype_to_real(a), ct_dtype_to_real(b), &r);
    if (st != CT_OK) return st;
    *out = ct_dtype_to_complex(r);
    return *out == CT_DTYPE_COUNT ? CT_ERR_DTYPE : CT_OK;
}

ct_status ct__cx_result_type(ct_ctx *ctx, const char *op, int n, const ct_tensor *const *ts,
                             ct_dtype *out) {
    int have[2] = {0, 0};
    ct_dtype tier[2] = {CT_BOOL, CT_BOOL};
    for (int i = 0; i < n; i++) {
        ct_dtype dt = ts[i]->dtype;
        if (!ct__is_compute_dtype(dt) && !ct_dtype_is_complex(dt))
            return ct__set_error(ctx, CT_ERR_DTYPE,
                                 "%s: dtype %s is a storage format; cast it to a compute dtype "
                                 "first",
                                 op, ct_dtype_name(dt));
        int k = ts[i]->ndim == 0 ? 1 : 0;
        if (!have[k]) {
            tier[k] = dt;
            have[k] = 1;
        } else if (ct__cx_promote(tier[k], dt, &tier[k]) != CT_OK) {
            return ct__set_error(ctx, CT_ERR_DTYPE, "%s: cannot promote dtypes", op);
        }
    }
    ct_dtype r = tier[0];
    if (!have[0]) {
        r = tier[1];
    } else if (have[1] && ct__dtype_category(tier[1]) > ct__dtype_category(tier[0])) {
        r = tier[1];
        /* a float tensor with a 0-d complex one: the complex dtype of the tensor's precision */
        if (ct__dtype_category(tier[0]) == 2 && ct__dtype_category(r) == 3) {
            if (tier[0] == CT_FLOAT16)
                return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                                     "%s: float16 with complex gives complex32, which ctorch does "
                                     "not have",
                                     op);
            r = ct_dtype_to_complex(tier[0]);
        }
    }
    *out = r;
    return CT_OK;
}

/* ---- autograd: one custom node kind for the complex ops (torch's convention: the gradient of
 * a real loss L with respect to z = x + iy is dL/dx + i dL/dy; the engine sums each input's
 * gradient to its shape and casts it to its dtype, the real part for a real input) ---- */
enum {
    CT__CXG_VIEW_AS_REAL = 100,
    CT__CXG_VIEW_AS_COMPLEX,
    CT__CXG_REAL,
    CT__CXG_IMAG,
    CT__CXG_POW
};

typedef struct {
    int fn;
    double alpha;
    ct_tensor *a, *b, *out; /* saved (retained; NULL where the formula needs none) */
} ct__cxg;

static void ct__cxg_free(void *u) {
    ct__cxg *g = u;
    if (!g) return;
    ct_tensor_release(g->a), ct_tensor_release(g->b), ct_tensor_release(g->out);
    free(g);
}

/* the 0-d complex constant re + i im of complex dtype dt */
static ct_status ct__cx_const(ct_ctx *ctx, ct_dtype dt, double re, double im, ct_tensor **out) {
    double v[2] = {re, im};
    float f[2] = {(float)re, (float)im};
    return ct_tensor_from_host(ctx, dt == CT_COMPLEX64 ? (const void *)f : (const void *)v, dt, 0,
                               NULL, out);
}

/* t times the complex constant (re, im) (t complex or real of the same precision) */
static ct_status ct__cx_scale(ct_ctx *ctx, const ct_tensor *t, double re, double im,
                              ct_tensor **out) {
    ct_tensor *c = NULL;
    ct_status st = ct__cx_const(ctx, ct_dtype_to_complex(t->dtype), re, im, &c);
    if (st == CT_OK) st = ct_mul(ctx, t, c, out);
    ct_tensor_release(c);
    return st;
}

/* c + k t (c, k complex constants; t complex) */
static ct_status ct__cx_affine(ct_ctx *ctx, const ct_tensor *t, double c, double k,
                               ct_tensor **out) {
    ct_tensor *kt = NULL, *cc = NULL;
    ct_status st = ct__cx_scale(ctx, t, k, 0, &kt);
    if (st == CT_OK) st = ct__cx_const(ctx, t->dtype, c, 0, &cc);
    if (st == CT_OK) st = ct_add(ctx, kt, cc, out);
    ct_tensor_release(kt), ct_tensor_release(cc);
    return st;
}

/* f'(a) of the holomorphic functions CT_CX_SIN .. CT_CX_SINC (their gradient is g conj(f'(a))) */
static ct_status ct__cx_deriv(ct_ctx *ctx, int fn, const ct_tensor *a, const ct_tensor *y,
                              ct_tensor **d) {
    ct_tensor *t[6] = {NULL};
    ct_status st = CT_OK;
#define CT__D(call)                                                                                \
    if (st == CT_OK) st = (call)
    switch (fn) {
    case CT_CX_SIN: st = ct_cos(ctx, a, d); break;
    case CT_CX_COS:
        CT__D(ct_sin(ctx, a, &t[0]));
        CT__D(ct_neg(ctx, t[0], d));
        break;
    case CT_CX_SINH: st = ct_cosh(ctx, a, d); break;
    case CT_CX_COSH: st = ct_sinh(ctx, a, d); break;
    case CT_CX_TAN:  /* 1 / cos(a)^2 */
    case CT_CX_TANH: /* 1 / cosh(a)^2: torch's 1 -+ y^2 cancels where y is near +-i / +-1; where
                      * cos / cosh overflow, 1 -+ y^2 (about 0 there, torch's value) */
        CT__D(fn == CT_CX_TAN ? ct_cos(ctx, a, &t[0]) : ct_cosh(ctx, a, &t[0]));
        CT__D(ct_mul(ctx, t[0], t[0], &t[1]));
        CT__D(ct_reciprocal(ctx, t[1], &t[2]));
        CT__D(ct_mul(ctx, y, y, &t[3]));
        CT__D(ct__cx_affine(ctx, t[3], 1, fn == CT_CX_TAN ? 1 : -1, &t[4]));
        CT__D(ct_isfinite(ctx, t[2], &t[5]));
        CT__D(ct_where(ctx, t[5], t[2], t[4], d));
        break;
    case CT_CX_ASIN:  /* (1 - a^2)^-1/2 */
    case CT_CX_ACOS:  /* -(1 - a^2)^-1/2 */
    case CT_CX_ASINH: /* (a^2 + 1)^-1/2 */
        CT__D(ct_mul(ctx, a, a, &t[0]));
        CT__D(ct__cx_affine(ctx, t[0], 1, fn == CT_CX_ASINH ? 1 : -1, &t[1]));
        CT__D(ct_rsqrt(ctx, t[1], fn == CT_CX_ACOS ? &t[2] : d));
        if (fn == CT_CX_ACOS) CT__D(ct_neg(ctx, t[2], d));
        break;
    case CT_CX_ACOSH: /* 1 / (sqrt(a - 1) sqrt(a + 1)) as torch ((a^2 - 1)^-1/2 would have the
                       * wrong sign left of the imaginary axis) */
        CT__D(ct__cx_affine(ctx, a, -1, 1, &t[0]));
        CT__D(ct__cx_affine(ctx, a, 1, 1, &t[1]));
        CT__D(ct_sqrt(ctx, t[0], &t[2]));
        CT__D(ct_sqrt(ctx, t[1], &t[3]));
        CT__D(ct_mul(ctx, t[2], t[3], &t[4]));
        CT__D(ct_reciprocal(ctx, t[4], d));
        break;
    case CT_CX_ATAN:  /* 1 / (1 + a^2) */
    case CT_CX_ATANH: /* 1 / (1 - a^2) */
        CT__D(ct_mul(ctx, a, a, &t[0]));
        CT__D(ct__cx_affine(ctx, t[0], 1, fn == CT_CX_ATAN ? 1 : -1, &t[1]));
        CT__D(ct_reciprocal(ctx, t[1], d));
        break;
    case CT_CX_LOG10: /* 1 / (a log 10) */
    case CT_CX_LOG2:
        CT__D(ct__cx_scale(ctx, a, fn == CT_CX_LOG10 ? log(10.0) : log(2.0), 0, &t[0]));
        CT__D(ct_reciprocal(ctx, t[0], d));
        break;
    case CT_CX_RSQRT: /* -y^3 / 2 */
        CT__D(ct_mul(ctx, y, y, &t[0]));
        CT__D(ct_mul(ctx, t[0], y, &t[1]));
        CT__D(ct__cx_scale(ctx, t[1], -0.5, 0, d));
        break;
    case CT_CX_SIGMOID: /* y sigmoid(-a) (= y (1 - y) without its cancellation near y = 1);
                         * y (1 - y) where exp(a) overflows */
        CT__D(ct_neg(ctx, a, &t[0]));
        CT__D(ct_sigmoid(ctx, t[0], &t[1]));
        CT__D(ct_mul(ctx, y, t[1], &t[2]));
        CT__D(ct__cx_affine(ctx, y, 1, -1, &t[3]));
        CT__D(ct_mul(ctx, y, t[3], &t[4]));
        CT__D(ct_isfinite(ctx, t[2], &t[5]));
        CT__D(ct_where(ctx, t[5], t[2], t[4], d));
        break;
    case CT_CX_SINC: { /* (u cos u - sin u) / (pi a^2) with u = pi a; for |u| < 1/2 (where that
                        * cancels, as in torch) pi times its series sum_k (-1)^k 2k u^(2k-1) /
                        * (2k+1)!, k = 1..7 (0 at a = 0, torch's value there) */
        const double pi = 3.14159265358979323846;
        CT__D(ct__cx_scale(ctx, a, pi, 0, &t[0]));
        CT__D(ct_cos(ctx, t[0], &t[1]));
        CT__D(ct_mul(ctx, t[0], t[1], &t[2]));
        ct_tensor_release(t[1]), t[1] = NULL;
        CT__D(ct_sin(ctx, t[0], &t[1]));
        CT__D(ct_sub(ctx, t[2], t[1], &t[3]));
        ct_tensor_release(t[2]), t[2] = NULL;
        CT__D(ct_mul(ctx, t[0], a, &t[4])); /* pi a^2 */
        ct_tensor_release(t[1]), t[1] = NULL;
        CT__D(ct_div(ctx, t[3], t[4], &t[1])); /* the closed form */
        ct_tensor_release(t[3]), t[3] = NULL;
        ct_tensor_release(t[4]), t[4] = NULL;
        CT__D(ct_mul(ctx, t[0], t[0], &t[2])); /* u^2 */
        double fact = 6;                       /* (2k+1)! */
        double c[8];
        for (int k = 1; k <= 7; k++) {
            c[k] = (k % 2 ? -2.0 : 2.0) * k / fact;
            fact *= (2 * k + 2) * (2 * k + 3);
        }
        CT__D(ct__cx_const(ctx, a->dtype, c[7], 0, &t[3]));
        for (int k = 6; k >= 1 && st == CT_OK; k--) { /* Horner in u^2 */
            CT__D(ct_mul(ctx, t[3], t[2], &t[4]));
            ct_tensor_release(t[3]), t[3] = NULL;
            CT__D(ct__cx_affine(ctx, t[4], c[k], 1, &t[3]));
            ct_tensor_release(t[4]), t[4] = NULL;
        }
        CT__D(ct_mul(ctx, t[3], t[0], &t[4]));
        ct_tensor_release(t[3]), t[3] = NULL;
        CT__D(ct__cx_scale(ctx, t[4], pi, 0, &t[3])); /* the series */
        ct_tensor_release(t[2]), t[2] = NULL;
        ct_tensor_release(t[4]), t[4] = NULL;
        CT__D(ct_abs(ctx, t[0], &t[2]));
        CT__D(ct_lt_scalar(ctx, t[2], 0.5, &t[5]));
        CT__D(ct_where(ctx, t[5], t[3], t[1], d));
        break;
    }
    default: st = ct__set_error(ctx, CT_ERR_UNSUPPORTED, "no complex derivative of op %d", fn);
    }
#undef CT__D
    ct__release_all(6, t);
    return st;
}

static ct_status ct__cxg_backward(ct_ctx *ctx, void *user, ct_tensor *const *gout, const bool *need,
                                  ct_tensor **gin) {
    const ct__cxg *u = user;
    ct_tensor *g = gout[0], *t[6] = {NULL};
    ct_status st = CT_OK;
    if ((u->a || u->b || u->out) && ctx->ag && !ctx->grad_off) /* create_graph */
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "higher derivatives through complex %s are not supported yet",
                             u->fn == CT_CX_MUL ? "products" : "ops");
    switch (u->fn) {
    case CT_CX_ADD:
    case CT_CX_SUB:
        if (need[0]) gin[0] = ct_tensor_retain(g);
        if (need[1])
            st = ct__cx_scale(ctx, g, u->fn == CT_CX_SUB ? -u->alpha : u->alpha, 0, &gin[1]);
        break;
    case CT_CX_MUL: /* g conj(b), g conj(a) */
        if (need[0] && (st = ct_conj(ctx, u->b, &t[0])) == CT_OK)
            st = ct_mul(ctx, g, t[0], &gin[0]);
        if (st == CT_OK && need[1] && (st = ct_conj(ctx, u->a, &t[1])) == CT_OK)
            st = ct_mul(ctx, g, t[1], &gin[1]);
        break;
    case CT_CX_DIV: /* g / conj(b); -g conj(out) / conj(b) */
        if ((st = ct_conj(ctx, u->b, &t[0])) == CT_OK) st = ct_div(ctx, g, t[0], &t[1]);
        if (st == CT_OK && need[0]) gin[0] = ct_tensor_retain(t[1]);
        if (st == CT_OK && need[1] && (st = ct_conj(ctx, u->out, &t[2])) == CT_OK &&
            (st = ct_mul(ctx, t[1], t[2], &t[3])) == CT_OK)
            st = ct_neg(ctx, t[3], &gin[1]);
        break;
    case CT_CX_NEG: st = ct_neg(ctx, g, &gin[0]); break;
    case CT_CX_CONJ: st = ct_conj(ctx, g, &gin[0]); break;
    case CT_CX_ABS: /* g sgn(a) */
        if ((st = ct_sgn(ctx, u->a, &t[0])) == CT_OK) st = ct_mul(ctx, g, t[0], &gin[0]);
        break;
    case CT_CX_ANGLE: { /* g i a / |a|^2, 0 at a = 0 */
        if ((st = ct_abs(ctx, u->a, &t[0])) == CT_OK) st = ct_mul(ctx, t[0], t[0], &t[1]);
        if (st == CT_OK) st = ct_eq_scalar(ctx, t[1], 0.0, &t[2]);
        if (st == CT_OK) st = ct_add(ctx, t[1], t[2], &t[3]); /* 1 where |a| = 0 */
        if (st == CT_OK) st = ct_div(ctx, u->a, t[3], &t[4]);
        if (st == CT_OK) st = ct_mul(ctx, g, t[4], &t[5]);
        if (st == CT_OK) st = ct__cx_scale(ctx, t[5], 0, 1, &gin[0]);
        break;
    }
    case CT_CX_EXP: /* g conj(out) */
        if ((st = ct_conj(ctx, u->out, &t[0])) == CT_OK) st = ct_mul(ctx, g, t[0], &gin[0]);
        break;
    case CT_CX_LOG: /* g / conj(a) */
        if ((st = ct_conj(ctx, u->a, &t[0])) == CT_OK) st = ct_div(ctx, g, t[0], &gin[0]);
        break;
    case CT_CX_SQRT: /* g / (2 conj(out)) */
        if ((st = ct_conj(ctx, u->out, &t[0])) == CT_OK) st = ct__cx_scale(ctx, t[0], 2, 0, &t[1]);
        if (st == CT_OK) st = ct_div(ctx, g, t[1], &gin[0]);
        break;
    case CT_CX_RECIPROCAL: /* -g conj(out)^2 */
        if ((st = ct_conj(ctx, u->out, &t[0])) == CT_OK) st = ct_mul(ctx, t[0], t[0], &t[1]);
        if (st == CT_OK) st = ct_mul(ctx, g, t[1], &t[2]);
        if (st == CT_OK) st = ct_neg(ctx, t[2], &gin[0]);
        break;
    case CT_CX_COMPLEX: /* real(g), imag(g) (= the real part of -i g) */
        if (need[0]) gin[0] = ct_tensor_retain(g);
        if (need[1]) st = ct__cx_scale(ctx, g, 0, -1, &gin[1]);
        break;
    case CT_CX_POLAR: /* Re(g conj(e^{i angle})), Re(-i g conj(out)): right at abs <= 0 too */
        if ((st = ct_conj(ctx, u->out, &t[0])) == CT_OK) st = ct_mul(ctx, g, t[0], &t[1]);
        if (st == CT_OK && need[1]) st = ct__cx_scale(ctx, t[1], 0, -1, &gin[1]);
        if (st == CT_OK && need[0] && (st = ct_ones_like(ctx, u->b, &t[2])) == CT_OK &&
            (st = ct_polar(ctx, t[2], u->b, &t[3])) == CT_OK &&
            (st = ct_conj(ctx, t[3], &t[4])) == CT_OK)
            st = ct_mul(ctx, g, t[4], &gin[0]);
        break;
    case CT__CXG_POW: /* g conj(p a^(p - 1)); zero for p = 0 */
        if (u->alpha == 0) {
            st = ct__cx_scale(ctx, g, 0, 0, &gin[0]);
        } else {
            if ((st = ct__cx_pow(ctx, u->a, u->alpha - 1, &t[0])) == CT_OK)
                st = ct__cx_scale(ctx, t[0], u->alpha, 0, &t[1]);
            if (st == CT_OK) st = ct_conj(ctx, t[1], &t[2]);
            if (st == CT_OK) st = ct_mul(ctx, g, t[2], &gin[0]);
        }
        break;
    case CT_CX_POW: { /* a: g conj(b a^(b - 1)); b: g conj(out log a), 0 where a = 0 (torch) */
        ct_tensor *m[6] = {NULL};
        if (need[0]) {
            if ((st = ct_sub_scalar(ctx, u->b, 1.0, &t[0])) == CT_OK)
                st = ct_pow_tensor(ctx, u->a, t[0], &t[1]);
            if (st == CT_OK) st = ct_mul(ctx, t[1], u->b, &t[2]);
            if (st == CT_OK) st = ct_conj(ctx, t[2], &t[3]);
            if (st == CT_OK) st = ct_mul(ctx, g, t[3], &gin[0]);
        }
        if (st == CT_OK && need[1]) {
            st = ct__cx_cast(ctx, u->a, u->out->dtype, &m[0]); /* log of a complex a */
            if (st == CT_OK) st = ct_log(ctx, m[0], &m[1]);
            if (st == CT_OK) st = ct_mul(ctx, u->out, m[1], &m[2]);
            if (st == CT_OK) st = ct_conj(ctx, m[2], &m[3]);
            if (st == CT_OK) st = ct_mul(ctx, g, m[3], &m[4]);
            if (st == CT_OK) st = ct_eq_scalar(ctx, m[0], 0.0, &m[5]);
            ct_tensor *zero = NULL;
            if (st == CT_OK) st = ct__cx_const(ctx, u->out->dtype, 0, 0, &zero);
            if (st == CT_OK) st = ct_where(ctx, m[5], zero, m[4], &gin[1]);
            ct_tensor_release(zero);
        }
        ct__release_all(6, m);
        break;
    }
    case CT_CX_SGN: { /* (g - Re(g conj(s)) s) / |a| with s = sgn(a), 0 at a = 0, computed as
                       * i s Im(conj(s) g) / |a| (|s| = 1): no difference of nearly equal terms
                       * where g is nearly parallel to s */
        ct_tensor *m[5] = {NULL};
        if ((st = ct_conj(ctx, u->out, &t[0])) == CT_OK) st = ct_mul(ctx, t[0], g, &t[1]);
        if (st == CT_OK) st = ct_imag(ctx, t[1], &t[2]);
        if (st == CT_OK) st = ct_mul(ctx, t[2], u->out, &t[3]);
        if (st == CT_OK) st = ct__cx_scale(ctx, t[3], 0, 1, &t[4]);
        if (st == CT_OK) st = ct_abs(ctx, u->a, &m[0]);
        if (st == CT_OK) st = ct_eq_scalar(ctx, m[0], 0.0, &m[1]);
        if (st == CT_OK) st = ct_add(ctx, m[0], m[1], &m[2]); /* 1 where |a| = 0 */
        if (st == CT_OK) st = ct_div(ctx, t[4], m[2], &m[3]);
        if (st == CT_OK) st = ct__cx_const(ctx, u->out->dtype, 0, 0, &m[4]);
        if (st == CT_OK) st = ct_where(ctx, m[1], m[4], m[3], &gin[0]);
        ct__release_all(5, m);
        break;
    }
    case CT_CX_SIN:
    case CT_CX_COS:
    case CT_CX_TAN:
    case CT_CX_SINH:
    case CT_CX_COSH:
    case CT_CX_TANH:
    case CT_CX_ASIN:
    case CT_CX_ACOS:
    case CT_CX_ATAN:
    case CT_CX_ASINH:
    case CT_CX_ACOSH:
    case CT_CX_ATANH:
    case CT_CX_LOG10:
    case CT_CX_LOG2:
    case CT_CX_RSQRT:
    case CT_CX_SIGMOID:
    case CT_CX_SINC: /* g conj(f'(a)) */
        if ((st = ct__cx_deriv(ctx, u->fn, u->a, u->out, &t[0])) == CT_OK &&
            (st = ct_conj(ctx, t[0], &t[1])) == CT_OK)
            st = ct_mul(ctx, g, t[1], &gin[0]);
        break;
    case CT__CXG_VIEW_AS_REAL: {
        if ((st = ct_tensor_contiguous(ctx, g, &t[0])) == CT_OK)
            st = ct_view_as_complex(ctx, t[0], &gin[0]);
        break;
    }
    case CT__CXG_VIEW_AS_COMPLEX: st = ct_view_as_real(ctx, g, &gin[0]); break;
    case CT__CXG_REAL: gin[0] = ct_tensor_retain(g); break; /* cast to complex: g + 0i */
    case CT__CXG_IMAG: st = ct__cx_scale(ctx, g, 0, 1, &gin[0]); break;
    default:
        st = ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                           "the backward of this complex op is not implemented yet");
    }
    ct__release_all(6, t);
    return st;
}

static const ct__ag_custom CT__CXG_NODES[] = {
    {"AddBackward", ct__cxg_backward, ct__cxg_free, true},
    {"SubBackward", ct__cxg_backward, ct__cxg_free, true},
    {"MulBackward", ct__cxg_backward, ct__cxg_free, true},
    {"DivBackward", ct__cxg_backward, ct__cxg_free, true},
    {"NegBackward", ct__cxg_backward, ct__cxg_free, true},
    {"ConjBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AbsBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AngleBackward", ct__cxg_backward, ct__cxg_free, true},
    {"ComplexBackward", ct__cxg_backward, ct__cxg_free, true},
    {"PolarBackward", ct__cxg_backward, ct__cxg_free, true},
    {"ExpBackward", ct__cxg_backward, ct__cxg_free, true},
    {"LogBackward", ct__cxg_backward, ct__cxg_free, true},
    {"SqrtBackward", ct__cxg_backward, ct__cxg_free, true},
    {"ReciprocalBackward", ct__cxg_backward, ct__cxg_free, true},
};
/* CT_CX_SIN .. CT_CX_SINC */
static const ct__ag_custom CT__CXG_FUNCS[] = {
    {"SinBackward", ct__cxg_backward, ct__cxg_free, true},
    {"CosBackward", ct__cxg_backward, ct__cxg_free, true},
    {"TanBackward", ct__cxg_backward, ct__cxg_free, true},
    {"SinhBackward", ct__cxg_backward, ct__cxg_free, true},
    {"CoshBackward", ct__cxg_backward, ct__cxg_free, true},
    {"TanhBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AsinBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AcosBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AtanBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AsinhBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AcoshBackward", ct__cxg_backward, ct__cxg_free, true},
    {"AtanhBackward", ct__cxg_backward, ct__cxg_free, true},
    {"Log10Backward", ct__cxg_backward, ct__cxg_free, true},
    {"Log2Backward", ct__cxg_backward, ct__cxg_free, true},
    {"RsqrtBackward", ct__cxg_backward, ct__cxg_free, true},
    {"SigmoidBackward", ct__cxg_backward, ct__cxg_free, true},
    {"SincBackward", ct__cxg_backward, ct__cxg_free, true},
};
_Static_assert(sizeof CT__CXG_FUNCS / sizeof CT__CXG_FUNCS[0] == CT_CX_SINC - CT_CX_SIN + 1,
               "one node per holomorphic function");
static const ct__ag_custom CT__CXG_VIEWS[] = {
    {"ViewAsRealBackward", ct__cxg_backward, ct__cxg_free, false},
    {"ViewAsComplexBackward", ct__cxg_backward, ct__cxg_free, false},
    {"SelectBackward", ct__cxg_backward, ct__cxg_free, false}, /* torch: select of the pairs */
    {"SelectBackward", ct__cxg_backward, ct__cxg_free, false},
    {"PowBackward", ct__cxg_backward, ct__cxg_free, true},
};

/* Record out = fn(ins) when autograd wants it (called at the outermost level, after the forward
 * ran with recording suppressed). */
static ct_status ct__cxg_record(ct_ctx *ctx, int fn, double alpha, int n,
                                const ct_tensor *const *ins, ct_tensor **out) {
    const ct__ag_custom *node = NULL;
    if (fn >= 0 && fn <= CT_CX_RECIPROCAL && fn != CT_CX_SGN) {
        static const int idx[] = {
            [CT_CX_ADD] = 0,     [CT_CX_SUB] = 1,        [CT_CX_MUL] = 2,  [CT_CX_DIV] = 3,
            [CT_CX_NEG] = 4,     [CT_CX_CONJ] = 5,       [CT_CX_ABS] = 6,  [CT_CX_ANGLE] = 7,
            [CT_CX_COMPLEX] = 8, [CT_CX_POLAR] = 9,      [CT_CX_EXP] = 10, [CT_CX_LOG] = 11,
            [CT_CX_SQRT] = 12,   [CT_CX_RECIPROCAL] = 13};
        node = &CT__CXG_NODES[idx[fn]];
    } else if (fn == CT_CX_POW) {
        static const ct__ag_custom pw = {"PowBackward", ct__cxg_backward, ct__cxg_free, true};
        node = &pw;
    } else if (fn == CT_CX_SGN) {
        static const ct__ag_custom sgn = {"SgnBackward", ct__cxg_backward, ct__cxg_free, true};
        node = &sgn;
    } else if (fn >= CT_CX_SIN && fn <= CT_CX_SINC) {
        node = &CT__CXG_FUNCS[fn - CT_CX_SIN];
    } else if (fn >= CT__CXG_VIEW_AS_REAL && fn <= CT__CXG_POW) {
        node = &CT__CXG_VIEWS[fn - CT__CXG_VIEW_AS_REAL];
    }
    if (!node) {
        ct_tensor_release(*out);
        *out = NULL;
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "this complex op has no backward formula yet and an input requires "
                             "grad; call it with grad mode off or on detached inputs");
    }
    ct__cxg *u = calloc(1, sizeof *u);
    if (!u) {
        ct_tensor_release(*out);
        *out = NULL;
        return ct__set_error(ctx, CT_ERR_OOM, "autograd: out of memory");
    }
    u->fn = fn;
    u->alpha = alpha;
    if (node->saves) { /* what the formulas read, detached (no history kept through them) */
        ct_status st = CT_OK;
        if (ins[0]) st = ct_tensor_detach(ctx, ins[0], &u->a);
        if (st == CT_OK && n > 1 && ins[1]) st = ct_tensor_detach(ctx, ins[1], &u->b);
        if (st == CT_OK) st = ct_tensor_detach(ctx, *out, &u->out);
        if (st != CT_OK) {
            ct__cxg_free(u);
            ct_tensor_release(*out);
            *out = NULL;
            return st;
        }
    }
    return ct__ag_record_custom_n(ctx, node, u, n, ins, out);
}

ct_status ct__cx_cast(ct_ctx *ctx, const ct_tensor *a, ct_dtype dt, ct_tensor **out) {
    *out = NULL;
    const bool ca = ct_dtype_is_complex(a->dtype), co = ct_dtype_is_complex(dt);
    if ((!ct__is_compute_dtype(dt) && !co) || (!ct__is_compute_dtype(a->dtype) && !ca))
        return ct__set_error(ctx, CT_ERR_DTYPE, "cast: %s -> %s is not supported",
                             ct_dtype_name(a->dtype), ct_dtype_name(dt));
    /* to bool: z != 0 over both parts (NumPy's and PyTorch 2.x's; torch 1.13 tests the real
     * part only, so its bool(1j) and all(1j) are false) */
    if (ca && dt == CT_BOOL) return ct_ne_scalar(ctx, a, 0.0, out);
    ct_status st = CT_OK;
    ct_tensor *r = NULL, *p[4] = {NULL};
    if ((st = ct__tensor_new(ctx, a->storage->device, dt, a->ndim, a->shape, &r)) != CT_OK)
        return st;
    /* real parts, then imaginary parts (zero when a is real); complex -> real keeps the real
     * part, as torch (which also warns that the imaginary part is discarded) */
    for (int part = 0; part < (co ? 2 : 1) && st == CT_OK; part++) {
        ct_op_desc d;
        ct_tensor *dst = r, *src = (ct_tensor *)a;
        if (co) st = ct__cx_part(ctx, r, part, &p[part * 2]), dst = p[part * 2];
        if (st == CT_OK && ca)
            st = ct__cx_part(ctx, a, part, &p[part * 2 + 1]), src = p[part * 2 + 1];
        if (st != CT_OK) break;
        if (part == 1 && !ca) {
            ct__desc_init(&d, CT_OP_FILL, 1, 0);
            ct__operand_set(&d.operands[0], dst);
        } else {
            ct__desc_init(&d, CT_OP_COPY, 1, 1);
            ct__operand_set(&d.operands[0], dst);
            ct__operand_set(&d.operands[1], src);
        }
        d.compute_dtype = dst->dtype;
        st = ct__submit(ctx, r->storage->device, &d);
    }
    ct__release_all(4, p);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* Run CT_OP_COMPLEX fn over n broadcast inputs (already of dtype cdt, complex or its real dtype)
 * into a new tensor of dtype odt. */
static ct_status ct__cx_run(ct_ctx *ctx, const char *name, int fn, int n, const ct_tensor **ins,
                            ct_dtype cdt, ct_dtype odt, double alpha, ct_tensor **out) {
    int nd;
    int64_t sh[CT_MAX_DIMS];
    ct_status st = ct__broadcast_shapes(ctx, name, n, ins, &nd, sh);
    if (st != CT_OK) return st;
    ct_tensor *r = NULL, *parts[3] = {NULL};
    if ((st = ct__tensor_new(ctx, ins[0]->storage->device, odt, nd, sh, &r)) != CT_OK) return st;
    ct_op_desc d;
    ct__desc_init(&d, CT_OP_COMPLEX, 1, n);
    d.compute_dtype = ct_dtype_to_real(cdt);
    d.ints[0] = fn;
    d.scalars[0] = alpha;
    const ct_tensor *ops[3] = {r, ins[0], n > 1 ? ins[1] : NULL};
    for (int i = 0; i <= n && st == CT_OK; i++) {
        const ct_tensor *t = ops[i];
        if (ct_dtype_is_complex(t->dtype)) {
            st = ct__cx_part(ctx, t, 0, &parts[i]);
            t = parts[i];
        } else if (i > 0) {
            d.ints[1] |= 1 << (i - 1);
        }
        if (st == CT_OK) {
            if (i == 0)
                ct__operand_set(&d.operands[0], t);
            else
                ct__operand_broadcast(&d.operands[i], t, nd, sh);
        }
    }
    if (st == CT_OK) st = ct__submit(ctx, r->storage->device, &d);
    ct__release_all(3, parts);
    if (st != CT_OK) {
        ct_tensor_release(r);
        return st;
    }
    *out = r;
    return CT_OK;
}

/* inputs converted to cdt (complex ones) or its real dtype (real ones) */
static ct_status ct__cx_inputs(ct_ctx *ctx, int n, const ct_tensor *const *ins, ct_dtype cdt,
                               ct_tensor **conv) {
    ct_status st = CT_OK;
    for (int i = 0; i < n && st == CT_OK; i++) {
        ct_dtype want = ct_dtype_is_complex(ins[i]->dtype) ? cdt : ct_dtype_to_real(cdt);
        st = ins[i]->dtype == want ? (conv[i] = ct_tensor_retain((ct_tensor *)ins[i]), CT_OK)
                                   : ct__cx_cast(ctx, ins[i], want, &conv[i]);
    }
    return st;
}

ct_status ct__cx_binary(ct_ctx *ctx, const char *name, ct_op_kind kind, const ct_tensor *a,
                        const ct_tensor *b, double alpha, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    int fn = kind == CT_OP_ADD     ? CT_CX_ADD
             : kind == CT_OP_SUB   ? CT_CX_SUB
             : kind == CT_OP_MUL   ? CT_CX_MUL
             : kind == CT_OP_DIV   ? CT_CX_DIV
             : kind == CT_OP_EQ    ? CT_CX_EQ
             : kind == CT_OP_NE    ? CT_CX_NE
             : kind == CT_OP_POW_T ? CT_CX_POW
                                   : -1;
    if (fn < 0)
        return ct__set_error(
            ctx, CT_ERR_UNSUPPORTED, "%s: not supported for complex tensors (%s, %s)%s", name,
            ct_dtype_name(a->dtype), ct_dtype_name(b->dtype),
            kind >= CT_OP_LT && kind <= CT_OP_GE ? ": complex numbers are not ordered" : "");
    ct_dtype dt = CT_COMPLEX64;
    ct_status st = ct__cx_result_type(ctx, name, 2, ins, &dt);
    if (st != CT_OK) return st;
    if (!ct_dtype_is_complex(dt)) /* a 0-d complex with a complex tensor never lands here */
        dt = ct_dtype_to_complex(dt);
    if (kind == CT_OP_SUB && (a->dtype == CT_BOOL || b->dtype == CT_BOOL))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "sub: subtracting with a bool operand (%s - %s) is not supported",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    const bool cmp = fn == CT_CX_EQ || fn == CT_CX_NE;
    const uint64_t mark = ct__ag_mark(ctx);
    const bool rec = !cmp && ct__ag_wants(ctx, 2, ins), entered = ct__ag_enter(ctx);
    ct_tensor *conv[2] = {NULL, NULL};
    if ((st = ct__cx_inputs(ctx, 2, ins, dt, conv)) == CT_OK) {
        const ct_tensor *cv[2] = {conv[0], conv[1]};
        st = ct__cx_run(ctx, name, fn, 2, cv, dt, cmp ? CT_BOOL : dt, alpha, out);
    }
    ct__release_all(2, conv);
    if (entered) ct__ag_leave(ctx);
    if (st == CT_OK && rec) st = ct__cxg_record(ctx, fn, alpha, 2, ins, out);
    /* torch's node for pow with a tensor exponent */
    return fn == CT_CX_POW ? ct__ag_named(ctx, st, out, mark, "PowBackward1") : st;
}

ct_status ct__cx_unary(ct_ctx *ctx, const char *name, int fn, const ct_tensor *a, ct_tensor **out) {
    ct_dtype odt = a->dtype;
    if (fn == CT_CX_ABS || fn == CT_CX_ANGLE) odt = ct_dtype_to_real(a->dtype);
    if (fn == CT_CX_ISNAN || fn == CT_CX_ISFINITE) odt = CT_BOOL;
    const ct_tensor *ins[1] = {a};
    const bool rec = odt != CT_BOOL && ct__ag_wants(ctx, 1, ins), entered = ct__ag_enter(ctx);
    ct_status st = ct__cx_run(ctx, name, fn, 1, ins, a->dtype, odt, 1.0, out);
    if (entered) ct__ag_leave(ctx);
    if (st == CT_OK && rec) st = ct__cxg_record(ctx, fn, 1.0, 1, ins, out);
    return st;
}

ct_status ct__cx_part_ag(ct_ctx *ctx, const ct_tensor *a, int part, ct_tensor **out) {
    ct_status st = ct__cx_part(ctx, a, part, out);
    const ct_tensor *ins[1] = {a};
    if (st == CT_OK && ct__ag_wants(ctx, 1, ins))
        st = ct__cxg_record(ctx, part ? CT__CXG_IMAG : CT__CXG_REAL, 1.0, 1, ins, out);
    return st;
}

/* ---- public ---- */
ct_status ct_view_as_real(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "view_as_real", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (!ct_dtype_is_complex(a->dtype))
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "view_as_real: view_as_real is only supported for complex tensors, "
                             "got %s",
                             ct_dtype_name(a->dtype));
    if (a->ndim >= CT_MAX_DIMS)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "view_as_real: the view would have %d dims (at most %d)", a->ndim + 1,
                             CT_MAX_DIMS);
    int64_t sh[CT_MAX_DIMS], str[CT_MAX_DIMS];
    for (int d = 0; d < a->ndim; d++)
        sh[d] = a->shape[d], str[d] = a->strides[d] * 2;
    sh[a->ndim] = 2;
    str[a->ndim] = 1;
    if ((st = ct__tensor_view_of(ctx, a, a->ndim + 1, sh, str, a->offset * 2, out)) == CT_OK)
        (*out)->dtype = ct_dtype_to_real(a->dtype);
    if (st == CT_OK && ct__ag_wants(ctx, 1, ins))
        st = ct__cxg_record(ctx, CT__CXG_VIEW_AS_REAL, 1.0, 1, ins, out);
    return st;
}

ct_status ct_view_as_complex(ct_ctx *ctx, const ct_tensor *a, ct_tensor **out) {
    const ct_tensor *ins[1] = {a};
    ct_status st = ct__check_args(ctx, "view_as_complex", 1, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (a->dtype != CT_FLOAT32 && a->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "view_as_complex: view_as_complex is only supported for float and "
                             "double tensors, but got a tensor of scalar type: %s",
                             ct_dtype_name(a->dtype));
    const int nd = a->ndim - 1;
    if (a->ndim == 0 || a->shape[nd] != 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "view_as_complex: Tensor must have a last dimension of size 2");
    if (a->strides[nd] != 1)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "view_as_complex: Tensor must have a last dimension with stride 1");
    int64_t str[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        if (a->strides[d] % 2)
            return ct__set_error(ctx, CT_ERR_SHAPE,
                                 "view_as_complex: Tensor must have a stride divisible by 2 for "
                                 "all but last dimension");
        str[d] = a->strides[d] / 2;
    }
    if (a->offset % 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "view_as_complex: Tensor must have a storage_offset divisible by 2");
    if ((st = ct__tensor_view_of(ctx, a, nd, a->shape, str, a->offset / 2, out)) == CT_OK)
        (*out)->dtype = ct_dtype_to_complex(a->dtype);
    if (st == CT_OK && ct__ag_wants(ctx, 1, ins))
        st = ct__cxg_record(ctx, CT__CXG_VIEW_AS_COMPLEX, 1.0, 1, ins, out);
    return st;
}

static ct_status ct__cx_make(ct_ctx *ctx, const char *name, int fn, const ct_tensor *x,
                             const ct_tensor *y, ct_tensor **out) {
    const ct_tensor *ins[2] = {x, y};
    ct_status st = ct__check_args(ctx, name, 2, ins, out);
    if (st != CT_OK) return st;
    *out = NULL;
    if (x->dtype != y->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected object of scalar type %s but got scalar type %s for "
                             "second argument",
                             name, ct_dtype_name(x->dtype), ct_dtype_name(y->dtype));
    if (x->dtype != CT_FLOAT32 && x->dtype != CT_FLOAT64)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected both inputs to be Float or Double tensors but got %s "
                             "(float16 would give complex32, which ctorch does not have)",
                             name, ct_dtype_name(x->dtype));
    ct_dtype cdt = ct_dtype_to_complex(x->dtype);
    const bool rec = ct__ag_wants(ctx, 2, ins), entered = ct__ag_enter(ctx);
    st = ct__cx_run(ctx, name, fn, 2, ins, cdt, cdt, 1.0, out);
    if (entered) ct__ag_leave(ctx);
    if (st == CT_OK && rec) st = ct__cxg_record(ctx, fn, 1.0, 2, ins, out);
    return st;
}

ct_status ct_complex(ct_ctx *ctx, const ct_tensor *real, const ct_tensor *imag, ct_tensor **out) {
    return ct__cx_make(ctx, "complex", CT_CX_COMPLEX, real, imag, out);
}

ct_status ct_polar(ct_ctx *ctx, const ct_tensor *abs, const ct_tensor *angle, ct_tensor **out) {
    return ct__cx_make(ctx, "polar", CT_CX_POLAR, abs, angle, out);
}

ct_status ct__cx_sum_mean(ct_ctx *ctx, const char *name, bool mean, const ct_tensor *a, int n_dims,
                          const int *dims, bool keepdim, ct_tensor **out) {
    *out = NULL;
    ct_status st = CT_OK;
    if (a->ndim == 0) return ct_tensor_clone(ctx, a, out); /* nothing to reduce */
    int rd[CT_MAX_DIMS], nd = n_dims > 0 ? n_dims : a->ndim;
    if (n_dims < 0 || n_dims > a->ndim || (n_dims > 0 && !dims))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %d dims for a %d-dim input", name,
                             n_dims, a->ndim);
    for (int i = 0; i < nd; i++) { /* the real view's dims: the same indices, non-negative */
        int d = n_dims > 0 ? dims[i] : i;
        if (!ct__wrap_dim(d, a->ndim, &rd[i]))
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "%s: Dimension out of range (expected to be in range of [%d, %d], "
                                 "but got %d)",
                                 name, -a->ndim, a->ndim - 1, d);
    }
    ct_tensor *r = NULL, *s = NULL;
    if ((st = ct_view_as_real(ctx, a, &r)) == CT_OK)
        st = mean ? ct_mean(ctx, r, nd, rd, keepdim, &s) : ct_sum(ctx, r, nd, rd, keepdim, &s);
    if (st == CT_OK) st = ct_view_as_complex(ctx, s, out);
    ct_tensor_release(r);
    ct_tensor_release(s);
    return st;
}

ct_status ct__cx_matmul(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, ct_tensor **out) {
    *out = NULL;
    ct_status st = CT_OK;
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "matmul: expected both inputs of one dtype, got %s and %s",
                             ct_dtype_name(a->dtype), ct_dtype_name(b->dtype));
    /* (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br): four real products */
    ct_tensor *t[10] = {NULL};
    const uint64_t mark = ct__ag_mark(ctx);
    st = ct__cx_part_ag(ctx, a, 0, &t[0]); /* recorded: the composite is differentiable */
    if (st == CT_OK) st = ct__cx_part_ag(ctx, a, 1, &t[1]);
    if (st == CT_OK) st = ct__cx_part_ag(ctx, b, 0, &t[2]);
    if (st == CT_OK) st = ct__cx_part_ag(ctx, b, 1, &t[3]);
    if (st == CT_OK) st = ct_matmul(ctx, t[0], t[2], &t[4]);
    if (st == CT_OK) st = ct_matmul(ctx, t[1], t[3], &t[5]);
    if (st == CT_OK) st = ct_matmul(ctx, t[0], t[3], &t[6]);
    if (st == CT_OK) st = ct_matmul(ctx, t[1], t[2], &t[7]);
    if (st == CT_OK) st = ct_sub(ctx, t[4], t[5], &t[8]);
    if (st == CT_OK) st = ct_add(ctx, t[6], t[7], &t[9]);
    if (st == CT_OK) st = ct_complex(ctx, t[8], t[9], out);
    ct__release_all(10, t);
    /* torch's node names for the shapes (printing only) */
    const char *node = a->ndim == 1 && b->ndim == 1   ? "DotBackward0"
                       : a->ndim == 2 && b->ndim == 2 ? "MmBackward0"
                                                      : "UnsafeViewBackward0";
    return ct__ag_named(ctx, st, out, mark, node);
}

/* ---- data movement of complex tensors through the real pairs: the op runs on view_as_real (a
 * trailing dim of 2 that no dim below ever names), the result goes back with view_as_complex;
 * every step is recorded, so the composites are differentiable, and the last node takes torch's
 * name ---- */
static ct_status ct__cx_back(ct_ctx *ctx, ct_tensor *r, ct_tensor **out) {
    ct_tensor *c = NULL;
    ct_status st = ct_tensor_contiguous(ctx, r, &c);
    if (st == CT_OK) st = ct_view_as_complex(ctx, c, out);
    ct_tensor_release(c);
    ct_tensor_release(r);
    return st;
}

static ct_status ct__cx_dims(ct_ctx *ctx, const char *name, const ct_tensor *a, int n,
                             const int *dims, int *nd) {
    for (int i = 0; i < n; i++)
        if (!dims || !ct__wrap_dim(dims[i], a->ndim, &nd[i]) || a->ndim == 0)
            return ct__set_error(ctx, CT_ERR_INDEX,
                                 "%s: Dimension out of range (expected to be in range of [%d, %d], "
                                 "but got %d)",
                                 name, -a->ndim, a->ndim - 1, dims ? dims[i] : 0);
    return CT_OK;
}

ct_status ct__cx_shape_op(ct_ctx *ctx, int kind, const ct_tensor *a, int n, const int *dims,
                          const int64_t *ints, const ct_tensor *const *ts, ct_tensor **out) {
    static const char *const names[] = {"flip", "roll", "repeat", "index_select", "cat", "pad"};
    static const char *const nodes[] = {"FlipBackward0",   "RollBackward0",
                                        "RepeatBackward0", "IndexSelectBackward0",
                                        "CatBackward0",    "ConstantPadNdBackward0"};
    const char *name = names[kind];
    *out = NULL;
    const uint64_t mark = ct__ag_mark(ctx);
    int nd[CT_MAX_DIMS + 1];
    int64_t v[2 * CT_MAX_DIMS + 2];
    ct_tensor *r = NULL, *y = NULL;
    ct_status st = CT_OK;
    if ((kind == 0 || kind == 1) && (n < 0 || n > CT_MAX_DIMS))
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: %d dims (at most %d)", name, n,
                             CT_MAX_DIMS);
    if (kind == 4) { /* cat: every input as the promoted complex dtype, then their real views */
        ct_tensor **conv = calloc((size_t)(n > 0 ? n : 1), sizeof *conv);
        ct_dtype dt = CT_COMPLEX64;
        if (!conv) return ct__set_error(ctx, CT_ERR_OOM, "cat: out of memory");
        st = ct__cx_result_type(ctx, name, n, ts, &dt);
        if (st == CT_OK && !ct_dtype_is_complex(dt)) dt = ct_dtype_to_complex(dt);
        const ct_tensor *ref = ts[0]; /* torch skips legacy empty (0,) inputs */
        for (int i = 0; i < n; i++)
            if (!(ts[i]->ndim == 1 && ts[i]->shape[0] == 0)) {
                ref = ts[i];
                break;
            }
        if (st == CT_OK) st = ct__cx_dims(ctx, name, ref, 1, dims, nd);
        int kept = 0;
        for (int i = 0; i < n && st == CT_OK; i++) {
            if (ref->ndim != 1 && ts[i]->ndim == 1 && ts[i]->shape[0] == 0) continue;
            ct_tensor *c = NULL;
            st = ts[i]->dtype == dt ? (c = ct_tensor_retain((ct_tensor *)ts[i]), CT_OK)
                                    : ct_cast(ctx, ts[i], dt, &c);
            if (st == CT_OK) st = ct_view_as_real(ctx, c, &conv[kept++]);
            ct_tensor_release(c);
        }
        if (st == CT_OK) st = ct_cat(ctx, kept, (const ct_tensor *const *)conv, nd[0], &y);
        for (int i = 0; i < n; i++)
            ct_tensor_release(conv[i]);
        free(conv);
    } else {
        if (kind == 0) st = ct__cx_dims(ctx, name, a, n, dims, nd);
        if (kind == 1 && dims) st = ct__cx_dims(ctx, name, a, n, dims, nd);
        if (kind == 3) st = ct__cx_dims(ctx, name, a, 1, dims, nd);
        if (st == CT_OK) st = ct_view_as_real(ctx, a, &r);
        if (st == CT_OK) switch (kind) {
            case 0: st = ct_flip(ctx, r, n, nd, &y); break;
            case 1:
                if (dims) {
                    st = ct_roll(ctx, r, n, ints, nd, &y);
                } else { /* the flattened roll: two reals per element */
                    v[0] = 2 * ints[0];
                    st = ct_roll(ctx, r, 1, v, NULL, &y);
                }
                break;
            case 2: /* repeats for the leading dims, 1 for the pair */
                if (n > 2 * CT_MAX_DIMS + 1) {
                    st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "repeat: %d repeats", n);
                    break;
                }
                for (int i = 0; i < n; i++)
                    v[i] = ints[i];
                v[n] = 1;
                st = n < a->ndim ? ct__set_error(ctx, CT_ERR_INVALID_ARG,
                                                 "repeat: Number of dimensions of repeat dims can "
                                                 "not be smaller than number of dimensions of "
                                                 "tensor")
                                 : ct_repeat(ctx, r, n + 1, v, &y);
                break;
            case 3: st = ct_index_select(ctx, r, nd[0], ts[0], &y); break;
            default: /* pad: nothing on the pair dim, the caller's pairs after */
                if (n < 0 || n > 2 * CT_MAX_DIMS || n % 2) {
                    st = ct__set_error(ctx, CT_ERR_INVALID_ARG, "pad: %d pad values", n);
                    break;
                }
                v[0] = v[1] = 0;
                for (int i = 0; i < n; i++)
                    v[2 + i] = ints[i];
                st = ct_pad(ctx, r, n + 2, v, (ct_pad_mode)dims[0], 0, &y);
                break;
            }
        ct_tensor_release(r);
    }
    if (st == CT_OK)
        st = ct__cx_back(ctx, y, out);
    else
        ct_tensor_release(y);
    return ct__ag_named(ctx, ct__error_within(ctx, name, st), out, mark, nodes[kind]);
}

ct_status ct__cx_pow(ct_ctx *ctx, const ct_tensor *a, double p, ct_tensor **out) {
    /* torch's special exponents (products, sqrt, reciprocal), exp(p log z) otherwise */
    const uint64_t mark = ct__ag_mark(ctx);
    ct_tensor *t[3] = {NULL};
    ct_status st;
    if (p == 2 || p == 3) {
        st = ct_mul(ctx, a, a, p == 2 ? out : &t[0]);
        if (st == CT_OK && p == 3) st = ct_mul(ctx, t[0], a, out);
    } else if (p == 1) {
        st = ct_tensor_clone(ctx, a, out);
    } else if (p == 0.5) {
        st = ct_sqrt(ctx, a, out);
    } else if (p == -0.5) {
        st = ct_rsqrt(ctx, a, out);
    } else if (p == -1) {
        st = ct_reciprocal(ctx, a, out);
    } else if (p == -2) {
        st = ct_mul(ctx, a, a, &t[0]);
        if (st == CT_OK) st = ct_reciprocal(ctx, t[0], out);
    } else { /* exp(p log z) (1 for p = 0), recorded as one node: its gradient is 0 at z = 0
              * where torch's is, not NaN through log */
        const ct_tensor *ins[1] = {a};
        const bool rec = ct__ag_wants(ctx, 1, ins), entered = ct__ag_enter(ctx);
        if (p == 0) {
            st = ct_tensor_ones(ctx, a->dtype, a->ndim, a->shape, out);
        } else {
            st = ct_log(ctx, a, &t[0]);
            if (st == CT_OK) st = ct__cx_scale(ctx, t[0], p, 0, &t[1]);
            if (st == CT_OK) st = ct_exp(ctx, t[1], out);
        }
        if (entered) ct__ag_leave(ctx);
        if (st == CT_OK && rec) st = ct__cxg_record(ctx, CT__CXG_POW, p, 1, ins, out);
    }
    ct__release_all(3, t);
    return ct__ag_named(ctx, ct__error_within(ctx, "pow", st), out, mark, "PowBackward0");
}

ct_status ct__cx_isclose(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *b, double rtol,
                         double atol, bool equal_nan, ct_tensor **out) {
    /* torch: (a == b) | (equal_nan & isnan a & isnan b) | (isfinite(e) & e <= atol + |rtol b|),
     * e = |a - b| */
    if (a->dtype != b->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE, "isclose: %s did not match %s",
                             ct_dtype_name(b->dtype), ct_dtype_name(a->dtype));
    if (rtol < 0 || atol < 0)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "isclose: rtol (%g) and atol (%g) must be non-negative", rtol, atol);
    ct_tensor *t[12] = {NULL};
    ct_status st = ct_eq(ctx, a, b, &t[0]);
    if (st == CT_OK && equal_nan) {
        st = ct_isnan(ctx, a, &t[1]);
        if (st == CT_OK) st = ct_isnan(ctx, b, &t[2]);
        if (st == CT_OK) st = ct_logical_and(ctx, t[1], t[2], &t[3]);
        if (st == CT_OK) st = ct_logical_or(ctx, t[0], t[3], &t[4]);
    } else if (st == CT_OK) {
        t[4] = ct_tensor_retain(t[0]);
    }
    if (st == CT_OK) st = ct__cx_scale(ctx, b, rtol, 0, &t[5]);
    if (st == CT_OK) st = ct_abs(ctx, t[5], &t[6]);
    if (st == CT_OK) st = ct_add_scalar(ctx, t[6], atol, &t[7]); /* allowed */
    if (st == CT_OK) st = ct_sub(ctx, a, b, &t[8]);
    if (st == CT_OK) st = ct_abs(ctx, t[8], &t[9]); /* actual */
    if (st == CT_OK) st = ct_le(ctx, t[9], t[7], &t[10]);
    if (st == CT_OK) st = ct_isfinite(ctx, t[9], &t[11]);
    ct_tensor *fin = NULL;
    if (st == CT_OK) st = ct_logical_and(ctx, t[10], t[11], &fin);
    if (st == CT_OK) st = ct_logical_or(ctx, t[4], fin, out);
    ct_tensor_release(fin);
    ct__release_all(12, t);
    return ct__error_within(ctx, "isclose", st);
}

/* where / masked_fill / tril / triu / cumsum of complex tensors: where on the real pairs (the
 * condition gains a trailing dim of 1), the rest through it; recorded, torch's node names */
static ct_status ct__cx_where_raw(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a,
                                  const ct_tensor *b, ct_tensor **out) {
    const ct_tensor *ins[2] = {a, b};
    ct_dtype dt = CT_COMPLEX64;
    ct_status st = ct__cx_result_type(ctx, "where", 2, ins, &dt);
    if (st != CT_OK) return st;
    if (!ct_dtype_is_complex(dt)) dt = ct_dtype_to_complex(dt);
    if (cond->dtype != CT_BOOL)
        return ct__set_error(ctx, CT_ERR_DTYPE, "where: the condition must be bool, got %s",
                             ct_dtype_name(cond->dtype));
    ct_tensor *t[6] = {NULL};
    for (int i = 0; i < 2 && st == CT_OK; i++) {
        st = ins[i]->dtype == dt ? (t[i] = ct_tensor_retain((ct_tensor *)ins[i]), CT_OK)
                                 : ct_cast(ctx, ins[i], dt, &t[i]);
        if (st == CT_OK) st = ct_view_as_real(ctx, t[i], &t[2 + i]);
    }
    if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, cond, cond->ndim, &t[4]);
    if (st == CT_OK) st = ct_where(ctx, t[4], t[2], t[3], &t[5]);
    if (st == CT_OK) {
        st = ct__cx_back(ctx, t[5], out);
        t[5] = NULL;
    }
    ct__release_all(6, t);
    return st;
}

ct_status ct__cx_where(ct_ctx *ctx, const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b,
                       ct_tensor **out) {
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    ct_status st = ct__cx_where_raw(ctx, cond, a, b, out);
    return ct__ag_named(ctx, ct__error_within(ctx, "where", st), out, mark, "WhereBackward0");
}

ct_status ct__cx_masked_fill(ct_ctx *ctx, const ct_tensor *t, const ct_tensor *mask, double value,
                             ct_tensor **out) {
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    ct_tensor *v = NULL;
    ct_status st = ct__cx_const(ctx, t->dtype, value, 0, &v);
    if (st == CT_OK) st = ct__cx_where_raw(ctx, mask, v, t, out);
    ct_tensor_release(v);
    return ct__ag_named(ctx, ct__error_within(ctx, "masked_fill", st), out, mark,
                        "MaskedFillBackward0");
}

ct_status ct__cx_tri(ct_ctx *ctx, const ct_tensor *t, int64_t diagonal, bool upper,
                     ct_tensor **out) {
    const char *name = upper ? "triu" : "tril";
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    if (t->ndim == 1 && t->shape[0] == 0) return ct_tensor_clone(ctx, t, out); /* as torch */
    if (t->ndim < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: input tensor must have at least 2 dimensions",
                             name);
    ct_tensor *one = NULL, *tri = NULL, *mask = NULL, *zero = NULL;
    const int64_t sh[2] = {t->shape[t->ndim - 2], t->shape[t->ndim - 1]};
    ct_status st = ct_tensor_ones(ctx, CT_FLOAT32, 2, sh, &one);
    if (st == CT_OK)
        st = upper ? ct_triu(ctx, one, diagonal, &tri) : ct_tril(ctx, one, diagonal, &tri);
    if (st == CT_OK) st = ct_ne_scalar(ctx, tri, 0.0, &mask);
    if (st == CT_OK) st = ct__cx_const(ctx, t->dtype, 0, 0, &zero);
    if (st == CT_OK) st = ct__cx_where_raw(ctx, mask, t, zero, out);
    ct_tensor_release(one), ct_tensor_release(tri), ct_tensor_release(mask);
    ct_tensor_release(zero);
    return ct__ag_named(ctx, ct__error_within(ctx, name, st), out, mark,
                        upper ? "TriuBackward0" : "TrilBackward0");
}

ct_status ct__cx_cumsum(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    if (a->ndim == 0 && (dim == 0 || dim == -1)) { /* as a 1-element vector */
        const int64_t one = 1;
        ct_tensor *v = NULL, *c = NULL;
        ct_status st = ct_tensor_reshape(ctx, a, 1, &one, &v);
        if (st == CT_OK) st = ct__cx_cumsum(ctx, v, 0, &c);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, c, 0, NULL, out);
        ct_tensor_release(v), ct_tensor_release(c);
        return ct__ag_named(ctx, st, out, mark, "CumsumBackward0");
    }
    int d = 0;
    ct_status st = ct__cx_dims(ctx, "cumsum", a, 1, &dim, &d);
    ct_tensor *r = NULL, *y = NULL;
    if (st == CT_OK) st = ct_view_as_real(ctx, a, &r);
    if (st == CT_OK) st = ct_cumsum(ctx, r, d, &y);
    ct_tensor_release(r);
    if (st == CT_OK)
        st = ct__cx_back(ctx, y, out);
    else
        ct_tensor_release(y);
    return ct__ag_named(ctx, ct__error_within(ctx, "cumsum", st), out, mark, "CumsumBackward0");
}

/* product of x's slices along d (n of them) as a tree of complex multiplications: each step
 * multiplies the first half by the second (an odd count keeps its last slice); keepdim layout */
static ct_status ct__cx_prod_tree(ct_ctx *ctx, const ct_tensor *a, int d, ct_tensor **out) {
    int64_t n = a->shape[d];
    ct_status st = CT_OK;
    if (n == 0) { /* the empty product: ones of the reduced shape, as 0 + 1 from a's empty sum so
                   * that it stays on a's graph (its gradient: an empty one) */
        ct_tensor *z = NULL;
        ct_status zs = ct_sum(ctx, a, 1, &d, true, &z);
        if (zs == CT_OK) zs = ct_add_scalar(ctx, z, 1.0, out);
        ct_tensor_release(z);
        return zs;
    }
    ct_tensor *x = ct_tensor_retain((ct_tensor *)a);
    while (st == CT_OK && n > 1) {
        const int64_t h = n / 2;
        ct_tensor *lo = NULL, *hi = NULL, *p = NULL, *nx = NULL, *last = NULL;
        st = ct_tensor_narrow(ctx, x, d, 0, h, &lo);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, x, d, h, h, &hi);
        if (st == CT_OK) st = ct_mul(ctx, lo, hi, &p);
        if (st == CT_OK && n % 2) {
            st = ct_tensor_narrow(ctx, x, d, 2 * h, 1, &last);
            const ct_tensor *two[2] = {p, last};
            if (st == CT_OK) st = ct_cat(ctx, 2, two, d, &nx);
        } else if (st == CT_OK) {
            nx = ct_tensor_retain(p);
        }
        ct_tensor_release(lo), ct_tensor_release(hi), ct_tensor_release(p);
        ct_tensor_release(last), ct_tensor_release(x);
        x = nx;
        n = h + n % 2;
    }
    if (st != CT_OK) {
        ct_tensor_release(x);
        return st;
    }
    *out = x;
    return CT_OK;
}

ct_status ct__cx_prod(ct_ctx *ctx, const ct_tensor *a, int dim, bool keepdim, ct_tensor **out) {
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    const bool all = dim == CT_ALL_DIMS;
    int d = 0;
    ct_status st = CT_OK;
    if (!all && (a->ndim == 0 ? (dim != 0 && dim != -1) : !ct__wrap_dim(dim, a->ndim, &d)))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "prod: Dimension out of range (expected to be in range of [%d, %d], "
                             "but got %d)",
                             a->ndim ? -a->ndim : -1, a->ndim ? a->ndim - 1 : 0, dim);
    /* every dim, or a 0-d input: over the flattened values */
    ct_tensor *x = NULL, *p = NULL;
    const int64_t one = 1;
    if (all || a->ndim == 0) {
        const int64_t n = ct_tensor_numel(a);
        st = ct_tensor_reshape(ctx, a, 1, &n, &x);
        d = 0;
    } else {
        x = ct_tensor_retain((ct_tensor *)a);
    }
    if (st == CT_OK) st = ct__cx_prod_tree(ctx, x, d, &p);
    ct_tensor_release(x);
    if (st == CT_OK) {
        int64_t sh[CT_MAX_DIMS];
        int nd = 0;
        for (int i = 0; i < a->ndim; i++) {
            if (!all && i != d)
                sh[nd++] = a->shape[i];
            else if (keepdim)
                sh[nd++] = 1;
        }
        st = ct_tensor_reshape(ctx, p, nd, nd ? sh : &one, out);
    }
    ct_tensor_release(p);
    return ct__ag_named(ctx, ct__error_within(ctx, "prod", st), out, mark,
                        all ? "ProdBackward0" : "ProdBackward1");
}

/* inclusive scan by doubling: after the step of width k, x[i] holds the product of the (up to)
 * 2k values ending at i */
ct_status ct__cx_cumprod(ct_ctx *ctx, const ct_tensor *a, int dim, ct_tensor **out) {
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    int d = 0;
    if (a->ndim == 0 ? (dim != 0 && dim != -1) : !ct__wrap_dim(dim, a->ndim, &d))
        return ct__set_error(ctx, CT_ERR_INDEX,
                             "cumprod: Dimension out of range (expected to be in range of [%d, "
                             "%d], but got %d)",
                             a->ndim ? -a->ndim : -1, a->ndim ? a->ndim - 1 : 0, dim);
    const int64_t n = a->ndim ? a->shape[d] : 1;
    ct_tensor *x = NULL;
    ct_status st = ct_tensor_clone(ctx, a, &x);
    for (int64_t k = 1; k < n && st == CT_OK; k *= 2) {
        ct_tensor *head = NULL, *tail = NULL, *prev = NULL, *p = NULL, *nx = NULL;
        st = ct_tensor_narrow(ctx, x, d, 0, k, &head);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, x, d, k, n - k, &tail);
        if (st == CT_OK) st = ct_tensor_narrow(ctx, x, d, 0, n - k, &prev);
        if (st == CT_OK) st = ct_mul(ctx, tail, prev, &p);
        const ct_tensor *two[2] = {head, p};
        if (st == CT_OK) st = ct_cat(ctx, 2, two, d, &nx);
        ct_tensor_release(head), ct_tensor_release(tail), ct_tensor_release(prev);
        ct_tensor_release(p), ct_tensor_release(x);
        x = nx;
    }
    if (st != CT_OK) {
        ct_tensor_release(x);
        x = NULL;
    }
    *out = x;
    return ct__ag_named(ctx, ct__error_within(ctx, "cumprod", st), out, mark, "CumprodBackward0");
}

/* gather / scatter / scatter_add / index_add / index_copy of complex tensors: the real op on the
 * (.., 2) pairs. gather / scatter's index gets a trailing pair dim (the same index for both
 * parts); index_add / index_copy keep their 1-d index (the pair dim is never the indexed one). A
 * real src is refused as torch (scatter's "Expected self.dtype to be equal to src.dtype"). */
ct_status ct__cx_index_op(ct_ctx *ctx, int kind, const ct_tensor *t, int dim,
                          const ct_tensor *index, const ct_tensor *src, double alpha,
                          ct_tensor **out) {
    static const char *const names[] = {"gather", "scatter", "scatter_add", "index_add",
                                        "index_copy"};
    static const char *const nodes[] = {"GatherBackward0", "ScatterBackward0",
                                        "ScatterAddBackward0", "IndexAddBackward0",
                                        "IndexCopyBackward0"};
    const char *name = names[kind];
    const uint64_t mark = ct__ag_mark(ctx);
    *out = NULL;
    const ct_tensor *ins[3] = {t, index, src};
    ct_status st = ct__check_args(ctx, name, kind == 0 ? 2 : 3, ins, out);
    if (st != CT_OK) return st;
    if (src && src->dtype != t->dtype)
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: Expected self.dtype to be equal to src.dtype "
                             "(%s and %s)",
                             name, ct_dtype_name(t->dtype), ct_dtype_name(src->dtype));
    if (kind == 0 && dim == CT_ALL_DIMS) { /* from the flattened values */
        const int64_t n = ct_tensor_numel(t), m = ct_tensor_numel(index);
        ct_tensor *tf = NULL, *xf = NULL;
        st = ct_tensor_reshape(ctx, t, 1, &n, &tf);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, index, 1, &m, &xf);
        if (st == CT_OK) st = ct__cx_index_op(ctx, 0, tf, 0, xf, NULL, 0, out);
        ct_tensor_release(tf), ct_tensor_release(xf);
        return st;
    }
    int d = 0;
    if ((st = ct__cx_dims(ctx, name, t, 1, &dim, &d)) != CT_OK) return st;
    ct_tensor *r = NULL, *s = NULL, *ix = NULL, *y = NULL;
    st = ct_view_as_real(ctx, t, &r);
    if (st == CT_OK && src) st = ct_view_as_real(ctx, src, &s);
    if (st == CT_OK && kind <= 2) { /* index (..) -> (.., 2) */
        int64_t sh[CT_MAX_DIMS + 1];
        ct_tensor *u = NULL;
        if (index->ndim >= CT_MAX_DIMS)
            st = ct__set_error(ctx, CT_ERR_SHAPE, "%s: index of %d dims", name, index->ndim);
        for (int i = 0; i < index->ndim; i++)
            sh[i] = index->shape[i];
        sh[index->ndim] = 2;
        if (st == CT_OK) st = ct_tensor_unsqueeze(ctx, index, index->ndim, &u);
        if (st == CT_OK) st = ct_tensor_expand(ctx, u, index->ndim + 1, sh, &ix);
        ct_tensor_release(u);
    }
    if (st == CT_OK) switch (kind) {
        case 0: st = ct_gather(ctx, r, d, ix, &y); break;
        case 1: st = ct_scatter(ctx, r, d, ix, s, &y); break;
        case 2: st = ct_scatter_add(ctx, r, d, ix, s, &y); break;
        case 3: st = ct_index_add(ctx, r, d, index, s, alpha, &y); break;
        default: st = ct_index_copy(ctx, r, d, index, s, &y); break;
        }
    ct_tensor_release(r), ct_tensor_release(s), ct_tensor_release(ix);
    if (st == CT_OK)
        st = ct__cx_back(ctx, y, out);
    else
        ct_tensor_release(y);
    return ct__ag_named(ctx, ct__error_within(ctx, name, st), out, mark, nodes[kind]);
}

/* CPU backend, CT_OP_FFT and CT_OP_COMPLEX (layouts in ctorch/backend.h).
 *
 * FFT: every line along the transform dim is gathered into a buffer of double pairs and
 * transformed in double precision (float32 inputs too: their results are the double transform
 * rounded once), then scaled and written out. Lengths whose prime factors are all <= 61 use a
 * mixed-radix decimation in time (one generic butterfly per prime factor); other lengths use
 * Bluestein's chirp-z over a power-of-two transform. Twiddles come from angles reduced to an
 * octant in exact integer arithmetic (ct__unit_root), so the error grows as O(eps log n). Lines are
 * split among the context's threads.
 *
 * Complex elementwise: float _Complex / double _Complex arithmetic with torch's formulas (the
 * plain product, torch's division (scaled against overflow: CT__CX_DIV), the C library's cexp /
 * clog / csqrt as std::exp etc.). */
#include "backends/cpu/cpu_backend.h"
#include "core/internal.h"

#include <complex.h>
/* glibc defines CMPLX / CMPLXF only for GCC >= 4.7; clang has the same builtin */
#ifndef CMPLX
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#endif
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double re, im;
} ct__cx;

static inline ct__cx ct__cmul(ct__cx a, ct__cx b) {
    return (ct__cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* ---- plans ---- */
#define CT__FFT_MAX_RADIX 61

typedef struct ct__fft_plan {
    int64_t n;
    int sign; /* the exponent's sign the tables are for (-1 forward, +1 backward) */
    int nf;
    int64_t f[64];            /* factors (4s first, then primes), product n (direct plans) */
    ct__cx *tw;               /* tw[k] = exp(sign 2 pi i k / n), k < n (direct plans) */
    int64_t m;                /* Bluestein: power-of-two length >= 2n - 1 (0: direct) */
    struct ct__fft_plan *sub; /* Bluestein: the forward plan of length m */
    ct__cx *chirp;            /* Bluestein: exp(sign i pi k^2 / n), k < n */
    ct__cx *bhat;             /* Bluestein: the transform of the conjugate chirp, m values */
} ct__fft_plan;

static void ct__plan_free(ct_ctx *ctx, ct__fft_plan *p) {
    if (!p) return;
    ct__plan_free(ctx, p->sub);
    ct__free(ctx, p->tw);
    ct__free(ctx, p->chirp);
    ct__free(ctx, p->bhat);
    ct__free(ctx, p);
}

/* exp(sign 2 pi i k / n) for 0 <= k < n, accurate to an ulp or two: the angle is reduced to an
 * octant in exact integer arithmetic (8k = o n + t), so sin / cos only ever see |x| <= pi / 4,
 * and the octant's rotation is an exact swap / negation. */
static ct__cx ct__unit_root(int64_t k, int64_t n, int sign) {
    const double q = 0.78539816339744830961566084581987572; /* pi / 4 */
    const unsigned __int128 m8 = (unsigned __int128)k * 8u;
    const int64_t o = (int64_t)(m8 / (unsigned __int128)n),
                  t = (int64_t)(m8 % (unsigned __int128)n);
    double c, sn;
    int quarter;
    if (o % 2 == 0) { /* theta = o pi / 4 + phi */
        const double phi = q * ((double)t / (double)n);
        c = cos(phi), sn = sin(phi);
        quarter = (int)(o / 2);
    } else { /* theta = (o + 1) pi / 4 - psi */
        const double psi = q * ((double)(n - t) / (double)n);
        c = cos(psi), sn = -sin(psi);
        quarter = (int)((o + 1) / 2);
    }
    double re = c, im = sn;
    switch (quarter & 3) {
    case 1: re = -sn, im = c; break;
    case 2: re = -c, im = -sn; break;
    case 3: re = sn, im = -c; break;
    default: break;
    }
    return (ct__cx){re, sign < 0 ? -im : im};
}

/* out[0..n) = DFT of in[0], in[is], ... (length n, factors f[0..]); tw has twn entries (a
 * multiple of n) for the plan's sign; tmp holds CT__FFT_MAX_RADIX values */
static void ct__dft_rec(const ct__cx *in, int64_t is, ct__cx *out, int64_t n, const int64_t *f,
                        const ct__cx *tw, int64_t twn, int sign, ct__cx *tmp) {
    const int64_t p = f[0], m = n / p;
    if (m == 1) {
        for (int64_t j = 0; j < p; j++)
            tmp[j] = in[j * is];
    } else {
        for (int64_t j = 0; j < p; j++)
            ct__dft_rec(in + j * is, is * p, out + j * m, m, f + 1, tw, twn, sign, tmp);
    }
    const int64_t step = twn / n, st = twn / p;
    for (int64_t k = 0; k < m; k++) {
        if (m > 1) {
            tmp[0] = out[k];
            for (int64_t j = 1; j < p; j++)
                tmp[j] = ct__cmul(out[j * m + k], tw[j * k * step]);
        }
        if (p == 2) {
            out[k] = (ct__cx){tmp[0].re + tmp[1].re, tmp[0].im + tmp[1].im};
            out[m + k] = (ct__cx){tmp[0].re - tmp[1].re, tmp[0].im - tmp[1].im};
        } else if (p == 4) { /* W4 = sign i */
            const ct__cx a = {tmp[0].re + tmp[2].re, tmp[0].im + tmp[2].im},
                         b = {tmp[0].re - tmp[2].re, tmp[0].im - tmp[2].im},
                         c = {tmp[1].re + tmp[3].re, tmp[1].im + tmp[3].im},
                         d = {tmp[1].re - tmp[3].re, tmp[1].im - tmp[3].im};
            /* i d times sign */
            const ct__cx id = {sign < 0 ? d.im : -d.im, sign < 0 ? -d.re : d.re};
            out[k] = (ct__cx){a.re + c.re, a.im + c.im};
            out[m + k] = (ct__cx){b.re + id.re, b.im + id.im};
            out[2 * m + k] = (ct__cx){a.re - c.re, a.im - c.im};
            out[3 * m + k] = (ct__cx){b.re - id.re, b.im - id.im};
        } else {
            for (int64_t q = 0; q < p; q++) {
                ct__cx s = tmp[0];
                for (int64_t j = 1; j < p; j++) {
                    ct__cx t = ct__cmul(tmp[j], tw[((j * q) % p) * st]);
                    s.re += t.re;
                    s.im += t.im;
                }
                out[q * m + k] = s;
            }
        }
    }
}

static ct__fft_plan *ct__plan_make(ct_ctx *ctx, int64_t n, int sign);

/* work: 2 * m values (Bluestein) */
static void ct__fft_exec(const ct__fft_plan *p, const ct__cx *in, ct__cx *out, ct__cx *tmp,
                         ct__cx *work) {
    if (!p->m) {
        if (p->n == 1) {
            out[0] = in[0];
            return;
        }
        ct__dft_rec(in, 1, out, p->n, p->f, p->tw, p->n, p->sign, tmp);
        return;
    }
    /* X[k] = c_k sum_j (x_j c_j) conj(c_{k-j}), c_j = exp(sign i pi j^2 / n): a convolution by
     * power-of-two transforms (the inverse as the conjugate of the forward of the conjugate) */
    const int64_t n = p->n, m = p->m;
    ct__cx *a = work, *A = work + m;
    for (int64_t j = 0; j < n; j++)
        a[j] = ct__cmul(in[j], p->chirp[j]);
    for (int64_t j = n; j < m; j++)
        a[j] = (ct__cx){0, 0};
    ct__fft_exec(p->sub, a, A, tmp, NULL);
    for (int64_t j = 0; j < m; j++) {
        A[j] = ct__cmul(A[j], p->bhat[j]);
        A[j].im = -A[j].im;
    }
    ct__fft_exec(p->sub, A, a, tmp, NULL);
    const double inv = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) {
        ct__cx v = ct__cmul((ct__cx){a[k].re, -a[k].im}, p->chirp[k]);
        out[k] = (ct__cx){v.re * inv, v.im * inv};
    }
}

static ct__fft_plan *ct__plan_make(ct_ctx *ctx, int64_t n, int sign) {
    ct__fft_plan *p = ct__alloc(ctx, sizeof *p, 16);
    if (!p) return NULL;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->sign = sign;
    int64_t r = n;
    bool big = false;
    while (r % 4 == 0 && p->nf < 62)
        p->f[p->nf++] = 4, r /= 4;
    for (int64_t q = 2; q * q <= r && !big; q++)
        while (r % q == 0 && !big) {
            if (q > CT__FFT_MAX_RADIX || p->nf >= 63) big = true;
            p->f[p->nf++] = q;
            r /= q;
        }
    if (r > 1 && !big) {
        if (r > CT__FFT_MAX_RADIX || p->nf >= 63)
            big = true;
        else
            p->f[p->nf++] = r;
    }
    if (!big) {
        p->tw = ct__alloc(ctx, sizeof(ct__cx) * (size_t)n, 64);
        if (!p->tw) goto fail;
        for (int64_t k = 0; k < n; k++)
            p->tw[k] = ct__unit_root(k, n, sign);
        return p;
    }
    p->nf = 0;
    int64_t m = 1;
    while (m < 2 * n - 1)
        m *= 2;
    p->m = m;
    p->sub = ct__plan_make(ctx, m, -1);
    p->chirp = ct__alloc(ctx, sizeof(ct__cx) * (size_t)n, 64);
    p->bhat = ct__alloc(ctx, sizeof(ct__cx) * (size_t)m, 64);
    ct__cx *b = ct__alloc(ctx, sizeof(ct__cx) * (size_t)m, 64);
    ct__cx tmp[CT__FFT_MAX_RADIX];
    if (!p->sub || !p->chirp || !p->bhat || !b) {
        ct__free(ctx, b);
        goto fail;
    }
    for (int64_t k = 0; k < n; k++) { /* exp(sign i pi k^2 / n) = root e of unity of 2n */
        unsigned __int128 k2 = (unsigned __int128)k * (unsigned __int128)k;
        p->chirp[k] = ct__unit_root((int64_t)(k2 % (unsigned __int128)(2 * n)), 2 * n, sign);
    }
    for (int64_t j = 0; j < m; j++)
        b[j] = (ct__cx){0, 0};
    for (int64_t j = 0; j < n; j++) {
        ct__cx c = {p->chirp[j].re, -p->chirp[j].im};
        b[j] = c;
        if (j) b[m - j] = c;
    }
    ct__fft_exec(p->sub, b, p->bhat, tmp, NULL);
    ct__free(ctx, b);
    return p;
fail:
    ct__plan_free(ctx, p);
    return NULL;
}

/* ---- the op ---- */
typedef struct {
    const ct_op_desc *op;
    const ct__fft_plan *plan;
    ct_ctx *ctx;
    int mode, dim, sign, f64;
    int64_t n, nin, nout, lin_s, lout_s; /* lengths and strides (reals) along the dim */
    int nb;
    int64_t bsize[CT_MAX_DIMS], bin[CT_MAX_DIMS], bout[CT_MAX_DIMS];
    double scale;
    volatile int failed;
} ct__fft_job;

static inline double ct__ld(const void *base, int64_t i, int f64) {
    return f64 ? ((const double *)base)[i] : (double)((const float *)base)[i];
}
static inline void ct__st(void *base, int64_t i, double v, int f64) {
    if (f64)
        ((double *)base)[i] = v;
    else
        ((float *)base)[i] = (float)v;
}

static void ct__fft_range(void *arg, int64_t b0, int64_t b1) {
    ct__fft_job *j = arg;
    const int64_t n = j->n, wm = j->plan->m;
    ct__cx *buf = ct__alloc(j->ctx, sizeof(ct__cx) * (size_t)(2 * n + 2 * wm), 64);
    if (!buf) {
        j->failed = 1;
        return;
    }
    ct__cx *x = buf, *y = buf + n, *work = buf + 2 * n, tmp[CT__FFT_MAX_RADIX];
    const char *ib = j->op->operands[1].data;
    char *ob = j->op->operands[0].data;
    const size_t es = j->f64 ? 8 : 4;
    for (int64_t b = b0; b < b1; b++) {
        int64_t io = 0, oo = 0, r = b;
        for (int d = j->nb - 1; d >= 0; d--) {
            int64_t i = r % j->bsize[d];
            r /= j->bsize[d];
            io += i * j->bin[d];
            oo += i * j->bout[d];
        }
        const void *in = ib + (size_t)io * es;
        void *out = ob + (size_t)oo * es;
        if (j->mode == CT_FFT_C2C) {
            for (int64_t k = 0; k < n; k++)
                x[k] = (ct__cx){ct__ld(in, k * j->lin_s, j->f64),
                                ct__ld(in, k * j->lin_s + 1, j->f64)};
        } else if (j->mode == CT_FFT_R2C) {
            for (int64_t k = 0; k < n; k++)
                x[k] = (ct__cx){ct__ld(in, k * j->lin_s, j->f64), 0};
        } else { /* the Hermitian half: x[n - k] = conj(x[k]) */
            for (int64_t k = 0; k < j->nin; k++)
                x[k] = (ct__cx){ct__ld(in, k * j->lin_s, j->f64),
                                ct__ld(in, k * j->lin_s + 1, j->f64)};
            x[0].im = 0;
            if (n % 2 == 0) x[n / 2].im = 0;
            for (int64_t k = 1; k < j->nin; k++)
                if (n - k >= j->nin) x[n - k] = (ct__cx){x[k].re, -x[k].im};
        }
        ct__fft_exec(j->plan, x, y, tmp, work);
        if (j->mode == CT_FFT_C2R) {
            for (int64_t k = 0; k < n; k++)
                ct__st(out, k * j->lout_s, y[k].re * j->scale, j->f64);
        } else {
            for (int64_t k = 0; k < j->nout; k++) {
                ct__st(out, k * j->lout_s, y[k].re * j->scale, j->f64);
                ct__st(out, k * j->lout_s + 1, y[k].im * j->scale, j->f64);
            }
        }
    }
    ct__free(j->ctx, buf);
}

static ct_status ct__cpu_fft(ct__cpu_state *s, const ct_op_desc *op) {
    const ct_operand *o = &op->operands[0], *in = &op->operands[1];
    ct__fft_job j;
    memset(&j, 0, sizeof j);
    j.op = op;
    j.ctx = s->ctx;
    j.mode = (int)op->ints[0];
    j.dim = (int)op->ints[1];
    j.sign = op->ints[2] > 0 ? 1 : -1;
    j.n = op->ints[3];
    j.f64 = op->compute_dtype == CT_FLOAT64;
    j.scale = op->scalars[0];
    j.nin = in->shape[j.dim];
    j.nout = o->shape[j.dim];
    j.lin_s = in->strides[j.dim];
    j.lout_s = o->strides[j.dim];
    int64_t lines = 1;
    for (int d = 0; d < o->ndim; d++) {
        if (d == j.dim) continue;
        j.bsize[j.nb] = o->shape[d];
        j.bin[j.nb] = in->strides[d];
        j.bout[j.nb++] = o->strides[d];
        lines *= o->shape[d];
    }
    if (lines == 0 || j.n == 0) return CT_OK;
    ct__fft_plan *plan = ct__plan_make(s->ctx, j.n, j.sign);
    if (!plan)
        return ct__set_error(s->ctx, CT_ERR_OOM, "fft: out of memory for the plan of length %lld",
                             (long long)j.n);
    j.plan = plan;
    const int64_t per = j.n * 16 > 0 ? j.n * 16 : 1;
    int64_t grain = (1 << 18) / per;
    if (grain < 1) grain = 1;
    ct_k_pool_slot *prev = ct_k_pool_enter(&s->pool);
    ct_k_parallel_for(lines, grain, op->num_threads, ct__fft_range, &j);
    ct_k_pool_leave(prev);
    ct__plan_free(s->ctx, plan);
    if (j.failed)
        return ct__set_error(s->ctx, CT_ERR_OOM, "fft: out of memory for the line buffers");
    return CT_OK;
}

/* ---- complex elementwise ---- */
typedef struct {
    const ct_op_desc *op;
    int nd, f64, fn, real_in, n_in;
    int64_t shape[CT_MAX_DIMS];
} ct__cx_job;

/* (a + bi) / (c + di) by Smith's method (c10::complex's division, which torch's scalar loops
 * use) */
#define CT__CX_SMITH(T, a, b, c, d, re, im)                                                        \
    do {                                                                                           \
        T ac_ = (c) < 0 ? -(c) : (c), ad_ = (d) < 0 ? -(d) : (d);                                  \
        if (ac_ >= ad_) {                                                                          \
            if (ac_ == 0 && ad_ == 0) {                                                            \
                re = (a) / ac_, im = (b) / ad_;                                                    \
            } else {                                                                               \
                T rat_ = (d) / (c), scl_ = (T)1.0 / ((c) + (d)*rat_);                              \
                re = ((a) + (b)*rat_) * scl_, im = ((b) - (a)*rat_) * scl_;                        \
            }                                                                                      \
        } else {                                                                                   \
            T rat_ = (c) / (d), scl_ = (T)1.0 / ((d) + (c)*rat_);                                  \
            re = ((a)*rat_ + (b)) * scl_, im = ((b)*rat_ - (a)) * scl_;                            \
        }                                                                                          \
    } while (0)

/* (a + bi) / (c + di): torch 1.13's formula ((ac + bd) + (bc - ad) i) / (c^2 + d^2) with c and d
 * first divided by s = max(|c|, |d|) when s is finite and nonzero and the quotient divided by s
 * last (PyTorch 2.x scales the dividend too, which overflows for |a| near the limit and a small
 * divisor), so quotients near the overflow / underflow thresholds are finite where torch 1.13
 * gives inf or 0. An infinite divisor with a finite dividend gives a signed 0 (C99 Annex G,
 * NumPy), where torch's formula gives NaN; a zero or NaN divisor (or an infinite dividend) takes
 * the plain formula (torch's NaN / inf results exactly). The reciprocal is 1 / z by this
 * division. */
#define CT__CX_DIV(T, a, b, c, d, re, im)                                                          \
    do {                                                                                           \
        T c_ = (c), d_ = (d), a_ = (a), b_ = (b);                                                  \
        T ac_ = c_ < 0 ? -c_ : c_, ad_ = d_ < 0 ? -d_ : d_, s_ = ac_ > ad_ ? ac_ : ad_;            \
        const bool sc_ = s_ > 0 && s_ - s_ == 0;                                                   \
        if (s_ > 0 && !sc_ && s_ == s_ && isfinite(a_) && isfinite(b_)) {                          \
            /* an infinite divisor, a finite dividend: 0 (C99 Annex G's rule) */                   \
            const T cc_ = (T)copysign(isinf(c_) ? 1.0 : 0.0, (double)c_),                          \
                    dd_ = (T)copysign(isinf(d_) ? 1.0 : 0.0, (double)d_);                          \
            re = (T)0 * (a_ * cc_ + b_ * dd_);                                                     \
            im = (T)0 * (b_ * cc_ - a_ * dd_);                                                     \
            break;                                                                                 \
        }                                                                                          \
        if (sc_) c_ /= s_, d_ /= s_;                                                               \
        T den_ = c_ * c_ + d_ * d_;                                                                \
        re = (a_ * c_ + b_ * d_) / den_;                                                           \
        im = (b_ * c_ - a_ * d_) / den_;                                                           \
        if (sc_) re /= s_, im /= s_;                                                               \
    } while (0)

#define CT__CX_RECIP(T, c, d, re, im) CT__CX_DIV(T, (T)1, (T)0, c, d, re, im)

#define CT__CX_BODY(T, CT, EXP, LOG, SQRT, HYPOT, ATAN2, F)                                        \
    static void ct__cx_elem_##T(const ct__cx_job *j, const T *pa, const T *pb, void *po) {         \
        const int fn = j->fn;                                                                      \
        T ar = pa[0], ai = (j->real_in & 1) ? 0 : pa[1], br = 0, bi = 0;                           \
        if (pb) {                                                                                  \
            br = pb[0];                                                                            \
            bi = (j->real_in & 2) ? 0 : pb[1];                                                     \
        }                                                                                          \
        T *o = po, re = 0, im = 0;                                                                 \
        const T al = (T)j->op->scalars[0];                                                         \
        switch (fn) {                                                                              \
        case CT_CX_ADD: re = ar + al * br, im = ai + al * bi; break;                               \
        case CT_CX_SUB: re = ar - al * br, im = ai - al * bi; break;                               \
        case CT_CX_MUL: re = ar * br - ai * bi, im = ar * bi + ai * br; break;                     \
        case CT_CX_DIV: CT__CX_DIV(T, ar, ai, br, bi, re, im); break;                              \
        case CT_CX_RECIPROCAL: CT__CX_RECIP(T, ar, ai, re, im); break;                             \
        case CT_CX_NEG: re = -ar, im = -ai; break;                                                 \
        case CT_CX_CONJ: re = ar, im = -ai; break;                                                 \
        case CT_CX_ABS: o[0] = HYPOT(ar, ai); return;                                              \
        case CT_CX_ANGLE: o[0] = ATAN2(ai, ar); return;                                            \
        case CT_CX_COMPLEX: re = ar, im = br; break;                                               \
        case CT_CX_POLAR: re = ar * (T)cos(br), im = ar * (T)sin(br); break;                       \
        case CT_CX_SGN: { /* z / |z|, 0 at 0; a subnormal |z| rescaled first (exactly, by a power  \
                           * of two) so the quotient keeps its precision */                        \
            T m = HYPOT(ar, ai);                                                                   \
            if (m > 0 && m < (sizeof(T) == 4 ? (T)0x1p-126 : (T)0x1p-1022)) {                      \
                const T up = sizeof(T) == 4 ? (T)0x1p25 : (T)0x1p54;                               \
                ar *= up, ai *= up;                                                                \
                m = HYPOT(ar, ai);                                                                 \
            }                                                                                      \
            if (m == 0)                                                                            \
                re = 0, im = 0;                                                                    \
            else                                                                                   \
                re = ar / m, im = ai / m;                                                          \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_EXP:                                                                            \
        case CT_CX_LOG:                                                                            \
        case CT_CX_SQRT: {                                                                         \
            CT z = CMPLX##T(ar, ai);                                                               \
            z = fn == CT_CX_EXP ? EXP(z) : fn == CT_CX_LOG ? LOG(z) : SQRT(z);                     \
            re = creal(z), im = cimag(z);                                                          \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_SIN:                                                                            \
        case CT_CX_COS:                                                                            \
        case CT_CX_TAN:                                                                            \
        case CT_CX_SINH:                                                                           \
        case CT_CX_COSH:                                                                           \
        case CT_CX_TANH:                                                                           \
        case CT_CX_ASIN:                                                                           \
        case CT_CX_ACOS:                                                                           \
        case CT_CX_ATAN:                                                                           \
        case CT_CX_ASINH:                                                                          \
        case CT_CX_ACOSH:                                                                          \
        case CT_CX_ATANH: {                                                                        \
            CT z = CMPLX##T(ar, ai);                                                               \
            switch (fn) {                                                                          \
            case CT_CX_SIN: z = csin##F(z); break;                                                 \
            case CT_CX_COS: z = ccos##F(z); break;                                                 \
            case CT_CX_TAN: z = ctan##F(z); break;                                                 \
            case CT_CX_SINH: z = csinh##F(z); break;                                               \
            case CT_CX_COSH: z = ccosh##F(z); break;                                               \
            case CT_CX_TANH: z = ctanh##F(z); break;                                               \
            case CT_CX_ASIN: z = casin##F(z); break;                                               \
            case CT_CX_ACOS: z = cacos##F(z); break;                                               \
            case CT_CX_ATAN: z = catan##F(z); break;                                               \
            case CT_CX_ASINH: z = casinh##F(z); break;                                             \
            case CT_CX_ACOSH: z = cacosh##F(z); break;                                             \
            default: z = catanh##F(z); break;                                                      \
            }                                                                                      \
            re = creal##F(z), im = cimag##F(z);                                                    \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_LOG10:                                                                          \
        case CT_CX_LOG2: {                                                                         \
            CT z = LOG(CMPLX##T(ar, ai));                                                          \
            const T l = fn == CT_CX_LOG10 ? (T)log(10.0) : (T)log(2.0);                            \
            re = creal##F(z) / l, im = cimag##F(z) / l;                                            \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_RSQRT: {                                                                        \
            CT z = SQRT(CMPLX##T(ar, ai));                                                         \
            CT__CX_RECIP(T, creal##F(z), cimag##F(z), re, im);                                     \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_SIGMOID: {                                                                      \
            CT z = EXP(CMPLX##T(-ar, -ai));                                                        \
            CT__CX_RECIP(T, creal##F(z) + 1, cimag##F(z), re, im);                                 \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_SINC: {                                                                         \
            if (ar == 0 && ai == 0) {                                                              \
                re = 1, im = 0;                                                                    \
                break;                                                                             \
            }                                                                                      \
            const T pr = (T)3.14159265358979323846 * ar, pi_ = (T)3.14159265358979323846 * ai;     \
            CT z = csin##F(CMPLX##T(pr, pi_));                                                     \
            CT__CX_SMITH(T, creal##F(z), cimag##F(z), pr, pi_, re, im);                            \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_POW: {                                                                          \
            CT z = cpow##F(CMPLX##T(ar, ai), CMPLX##T(br, bi));                                    \
            re = creal##F(z), im = cimag##F(z);                                                    \
            break;                                                                                 \
        }                                                                                          \
        case CT_CX_EQ: *(uint8_t *)po = ar == br && ai == bi; return;                              \
        case CT_CX_NE: *(uint8_t *)po = !(ar == br && ai == bi); return;                           \
        case CT_CX_ISNAN: *(uint8_t *)po = ar != ar || ai != ai; return;                           \
        case CT_CX_ISFINITE: *(uint8_t *)po = ar - ar == 0 && ai - ai == 0; return;                \
        default: return;                                                                           \
        }                                                                                          \
        o[0] = re;                                                                                 \
        o[1] = im;                                                                                 \
    }
#define CMPLXfloat CMPLXF
#define CMPLXdouble CMPLX
CT__CX_BODY(float, float _Complex, cexpf, clogf, csqrtf, hypotf, atan2f, f)
CT__CX_BODY(double, double _Complex, cexp, clog, csqrt, hypot, atan2, )

static void ct__cx_range(void *arg, int64_t e0, int64_t e1) {
    const ct__cx_job *j = arg;
    const ct_op_desc *op = j->op;
    const int n = 1 + j->n_in;
    const int out_bool =
        op->ints[0] >= CT_CX_EQ && op->ints[0] <= CT_CX_ISFINITE && op->ints[0] != CT_CX_SGN;
    const size_t es = j->f64 ? 8 : 4;
    for (int64_t e = e0; e < e1; e++) {
        int64_t off[3] = {0, 0, 0}, r = e;
        for (int d = j->nd - 1; d >= 0; d--) {
            int64_t i = r % j->shape[d];
            r /= j->shape[d];
            for (int k = 0; k < n; k++)
                off[k] += i * op->operands[k].strides[d];
        }
        const char *pa = (const char *)op->operands[1].data + (size_t)off[1] * es;
        const char *pb =
            j->n_in > 1 ? (const char *)op->operands[2].data + (size_t)off[2] * es : NULL;
        char *po = (char *)op->operands[0].data + (size_t)off[0] * (out_bool ? 1 : es);
        if (j->f64)
            ct__cx_elem_double(j, (const double *)pa, (const double *)pb, po);
        else
            ct__cx_elem_float(j, (const float *)pa, (const float *)pb, po);
    }
}

static ct_status ct__cpu_complex(ct__cpu_state *s, const ct_op_desc *op) {
    ct__cx_job j;
    memset(&j, 0, sizeof j);
    j.op = op;
    j.nd = op->operands[0].ndim;
    j.f64 = op->compute_dtype == CT_FLOAT64;
    j.fn = (int)op->ints[0];
    j.real_in = (int)op->ints[1];
    j.n_in = op->n_in;
    int64_t total = 1;
    for (int d = 0; d < j.nd; d++) {
        j.shape[d] = op->operands[0].shape[d];
        total *= j.shape[d];
    }
    if (total == 0) return CT_OK;
    ct_k_pool_slot *prev = ct_k_pool_enter(&s->pool);
    ct_k_parallel_for(total, 1 << 14, op->num_threads, ct__cx_range, &j);
    ct_k_pool_leave(prev);
    return CT_OK;
}

ct_status ct__cpu_fft_complex(ct__cpu_state *s, const ct_op_desc *op) {
    return op->kind == CT_OP_FFT ? ct__cpu_fft(s, op) : ct__cpu_complex(s, op);
}

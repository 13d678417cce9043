/* Complex tensors and torch.fft: every transform of ctorch/fft.h against torch 1.13's values
 * (scripts/gen_fft_ref.py: lengths 1 .. 134 including primes above the mixed-radix limit, every
 * norm, padding, trimming, real / integer inputs, n-dim forms with s and dims, the shifts) and the
 * complex elementwise ops (inf / NaN / zero operands included); the transforms against a naive
 * long-double DFT (more accurate than torch: within a few eps of the exact values) and their
 * round trips; views, casts, creation, promotion; the refusals (ops without complex support,
 * autograd, bad arguments); capture and replay of an FFT. */
#include "test_util.h"

#include "data/fft_ref.h"

#include <complex.h>
#include <unistd.h>

static ct_ctx *ctx;

static ct_dtype dt_of(int code) { return (ct_dtype)code; }

/* a tensor from the table (complex: interleaved pairs) through the raw bytes */
static ct_tensor *from_tab(int dtc, int nd, const int64_t *shape, const double *v) {
    ct_dtype dt = dt_of(dtc);
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    const bool cx = ct_dtype_is_complex(dt);
    const int64_t nv = cx ? 2 * n : n;
    ct_tensor *t = NULL;
    if (cx) {
        const bool f64 = dt == CT_COMPLEX128;
        void *buf = malloc((size_t)(nv + 1) * 8);
        for (int64_t i = 0; i < nv; i++) {
            if (f64)
                ((double *)buf)[i] = v[i];
            else
                ((float *)buf)[i] = (float)v[i];
        }
        CHECK_OK(ct_tensor_from_host(ctx, buf, dt, nd, shape, &t));
        free(buf);
        return t;
    }
    return tu_from_vals(ctx, dt, nd, shape, v);
}

/* the values of t as doubles (complex: interleaved pairs), C order, through the raw bytes */
static double *read_any(const ct_tensor *t, int64_t *count) {
    ct_tensor *c = NULL;
    if (ct_tensor_contiguous(ctx, t, &c) != CT_OK) return NULL;
    const ct_dtype dt = ct_tensor_dtype(c);
    const int64_t n = ct_tensor_numel(c), nv = ct_dtype_is_complex(dt) ? 2 * n : n;
    const size_t isz = ct_dtype_size(dt);
    void *raw = malloc((size_t)(n ? n : 1) * isz);
    double *out = malloc(sizeof(double) * (size_t)(nv ? nv : 1));
    CHECK_OK(ct_tensor_to_host(c, raw, (size_t)n * isz));
    for (int64_t i = 0; i < nv; i++)
        out[i] = dt == CT_COMPLEX128  ? ((double *)raw)[i]
                 : dt == CT_COMPLEX64 ? ((float *)raw)[i]
                                      : tu_get(raw, dt, i);
    free(raw);
    ct_tensor_release(c);
    *count = nv;
    return out;
}

/* |t - ref| <= tol * max(1, max |ref|) elementwise; NaN matches NaN, inf equal inf */
static void near(const char *what, const ct_tensor *t, int dtc, int nd, const int64_t *shape,
                 const double *ref, double tol) {
    CHECK_MSG(t != NULL, "%s: no result", what);
    if (!t) return;
    CHECK_MSG(ct_tensor_dtype(t) == dt_of(dtc), "%s: dtype %s, torch %s", what,
              ct_dtype_name(ct_tensor_dtype(t)), ct_dtype_name(dt_of(dtc)));
    CHECK_MSG(tu_same_shape(t, nd, shape), "%s: shape differs", what);
    if (!tu_same_shape(t, nd, shape)) return;
    int64_t nv = 0;
    double *v = read_any(t, &nv), scale = 1;
    for (int64_t i = 0; i < nv; i++)
        if (isfinite(ref[i]) && fabs(ref[i]) > scale) scale = fabs(ref[i]);
    int bad = 0;
    for (int64_t i = 0; i < nv && v; i++) {
        bool ok = isnan(ref[i])   ? isnan(v[i])
                  : isinf(ref[i]) ? v[i] == ref[i]
                                  : fabs(v[i] - ref[i]) <= tol * scale;
        if (!ok && bad++ < 3)
            printf("  %s: value %lld: %.17g, torch %.17g\n", what, (long long)i, v[i], ref[i]);
    }
    CHECK_MSG(bad == 0, "%s: %d values differ", what, bad);
    free(v);
}

static const char *norm_of(int k) { return k == 0 ? NULL : k == 1 ? "ortho" : "forward"; }

TEST(as_torch) {
    const int nc = (int)(sizeof fft_cases / sizeof fft_cases[0]);
    for (int ci = 0; ci < nc; ci++) {
        const fft_case *c = &fft_cases[ci];
        const char *op = fft_ops[c->op];
        ct_tensor *x[3] = {NULL, NULL, NULL}, *y = NULL;
        for (int i = 0; i < c->n_x; i++)
            x[i] = from_tab(c->x_dt[i], c->x_nd[i], c->x_shape[i], fft_in + c->x_off[i]);
        const char *nm = norm_of(c->norm);
        const int64_t *s = c->n_s ? c->s : NULL;
        const int *dims = c->n_dims ? c->dims : NULL;
        const int nd = c->n_s ? c->n_s : c->n_dims;
        ct_status st = CT_ERR_INVALID_ARG;
        if (!strcmp(op, "fft")) st = ct_fft_fft(ctx, x[0], c->n, c->dim, nm, &y);
        if (!strcmp(op, "ifft")) st = ct_fft_ifft(ctx, x[0], c->n, c->dim, nm, &y);
        if (!strcmp(op, "rfft")) st = ct_fft_rfft(ctx, x[0], c->n, c->dim, nm, &y);
        if (!strcmp(op, "irfft")) st = ct_fft_irfft(ctx, x[0], c->n, c->dim, nm, &y);
        if (!strcmp(op, "hfft")) st = ct_fft_hfft(ctx, x[0], c->n, c->dim, nm, &y);
        if (!strcmp(op, "ihfft")) st = ct_fft_ihfft(ctx, x[0], c->n, c->dim, nm, &y);
        if (!strcmp(op, "fftn")) st = ct_fft_fftn(ctx, x[0], nd, s, dims, nm, &y);
        if (!strcmp(op, "ifftn")) st = ct_fft_ifftn(ctx, x[0], nd, s, dims, nm, &y);
        if (!strcmp(op, "rfftn")) st = ct_fft_rfftn(ctx, x[0], nd, s, dims, nm, &y);
        if (!strcmp(op, "irfftn")) st = ct_fft_irfftn(ctx, x[0], nd, s, dims, nm, &y);
        if (!strcmp(op, "fft2")) st = ct_fft_fft2(ctx, x[0], s, dims, nm, &y);
        if (!strcmp(op, "ifft2")) st = ct_fft_ifft2(ctx, x[0], s, dims, nm, &y);
        if (!strcmp(op, "rfft2")) st = ct_fft_rfft2(ctx, x[0], s, dims, nm, &y);
        if (!strcmp(op, "irfft2")) st = ct_fft_irfft2(ctx, x[0], s, dims, nm, &y);
        if (!strcmp(op, "hfftn")) st = ct_fft_hfftn(ctx, x[0], nd, s, dims, nm, &y);
        if (!strcmp(op, "ihfftn")) st = ct_fft_ihfftn(ctx, x[0], nd, s, dims, nm, &y);
        if (!strcmp(op, "hfft2")) st = ct_fft_hfft2(ctx, x[0], s, dims, nm, &y);
        if (!strcmp(op, "ihfft2")) st = ct_fft_ihfft2(ctx, x[0], s, dims, nm, &y);
        if (!strcmp(op, "fftshift")) st = ct_fft_fftshift(ctx, x[0], c->n_dims, dims, &y);
        if (!strcmp(op, "ifftshift")) st = ct_fft_ifftshift(ctx, x[0], c->n_dims, dims, &y);
        if (!strcmp(op, "mul")) st = ct_mul(ctx, x[0], x[1], &y);
        if (!strcmp(op, "div")) st = ct_div(ctx, x[0], x[1], &y);
        if (!strcmp(op, "add")) st = ct_add_scaled(ctx, x[0], x[1], c->alpha, &y);
        if (!strcmp(op, "sub")) st = ct_sub(ctx, x[0], x[1], &y);
        if (!strcmp(op, "abs")) st = ct_abs(ctx, x[0], &y);
        if (!strcmp(op, "angle")) st = ct_angle(ctx, x[0], &y);
        if (!strcmp(op, "exp")) st = ct_exp(ctx, x[0], &y);
        if (!strcmp(op, "log")) st = ct_log(ctx, x[0], &y);
        if (!strcmp(op, "sqrt")) st = ct_sqrt(ctx, x[0], &y);
        if (!strcmp(op, "conj")) st = ct_conj(ctx, x[0], &y);
        if (!strcmp(op, "sgn")) st = ct_sgn(ctx, x[0], &y);
        if (!strcmp(op, "reciprocal")) st = ct_reciprocal(ctx, x[0], &y);
        if (!strcmp(op, "eq")) st = ct_eq(ctx, x[0], x[1], &y);
        if (!strcmp(op, "complex")) st = ct_complex(ctx, x[0], x[1], &y);
        if (!strcmp(op, "polar")) st = ct_polar(ctx, x[0], x[1], &y);
        if (!strcmp(op, "sum")) st = ct_sum(ctx, x[0], c->n_dims, dims, false, &y);
        if (!strcmp(op, "mean")) st = ct_mean(ctx, x[0], c->n_dims, dims, c->n_s > 0, &y);
        if (!strcmp(op, "matmul")) st = ct_matmul(ctx, x[0], x[1], &y);
        if (!strcmp(op, "eigvals")) st = ct_linalg_eigvals(ctx, x[0], &y);
        if (!strcmp(op, "cat2")) st = ct_cat(ctx, 2, (const ct_tensor *const *)x, c->dim, &y);
        if (!strcmp(op, "stack2")) st = ct_stack(ctx, 2, (const ct_tensor *const *)x, c->dim, &y);
        if (!strcmp(op, "flip")) st = ct_flip(ctx, x[0], c->n_dims, c->dims, &y);
        if (!strcmp(op, "roll")) st = ct_roll(ctx, x[0], 1, c->s, c->dims, &y);
        if (!strcmp(op, "roll_flat")) st = ct_roll(ctx, x[0], 1, c->s, NULL, &y);
        if (!strcmp(op, "repeat")) st = ct_repeat(ctx, x[0], c->n_s, c->s, &y);
        if (!strcmp(op, "index_select")) st = ct_index_select(ctx, x[0], c->dim, x[1], &y);
        if (!strcmp(op, "pad")) st = ct_pad(ctx, x[0], c->n_s, c->s, CT_PAD_CONSTANT, 0, &y);
        if (!strcmp(op, "movedim")) st = ct_movedim(ctx, x[0], 1, &c->dims[0], &c->dims[1], &y);
        if (!strcmp(op, "flatten")) st = ct_flatten(ctx, x[0], c->dim, -1, &y);
        if (!strcmp(op, "pow")) st = ct_pow(ctx, x[0], c->alpha, &y);
        if (!strcmp(op, "where")) st = ct_where(ctx, x[0], x[1], x[2], &y);
        if (!strcmp(op, "masked_fill")) st = ct_masked_fill(ctx, x[0], x[1], c->alpha, &y);
        if (!strcmp(op, "tril")) st = ct_tril(ctx, x[0], c->dim, &y);
        if (!strcmp(op, "triu")) st = ct_triu(ctx, x[0], c->dim, &y);
        if (!strcmp(op, "cumsum")) st = ct_cumsum(ctx, x[0], c->dim, &y);
        if (!strcmp(op, "isclose")) st = ct_isclose(ctx, x[0], x[1], 1e-5, 1e-8, false, &y);
        if (!strcmp(op, "norm"))
            st = ct_linalg_vector_norm(ctx, x[0], c->alpha, c->n_dims, c->n_dims ? c->dims : NULL,
                                       false, &y);
        if (!strncmp(op, "eig_", 4)) {
            ct_tensor *w = NULL, *v = NULL;
            st = ct_linalg_eig(ctx, x[0], &w, &v);
            y = !strcmp(op, "eig_values") ? w : v;
            ct_tensor_release(!strcmp(op, "eig_values") ? v : w);
        }
        if (!strcmp(op, "stft") || !strcmp(op, "istft")) {
            const int fl = (int)c->s[2];
            ct_tensor *w = NULL;
            const ct_dtype real = ct_dtype_to_real(dt_of(c->x_dt[0]));
            if (fl & 8) CHECK_OK(ct_hann_window(ctx, c->s[1] ? c->s[1] : c->n, true, real, &w));
            ct_stft_opts o = {.hop_length = c->s[0],
                              .win_length = c->s[1],
                              .window = w,
                              .no_center = fl & 1,
                              .normalized = (fl & 2) != 0,
                              .onesided = fl & 4 ? -1 : 0,
                              .pad_mode_set = (fl & 16) != 0,
                              .pad_mode = CT_PAD_CONSTANT,
                              .length = c->dim};
            st = !strcmp(op, "stft") ? ct_stft(ctx, x[0], c->n, &o, &y)
                                     : ct_istft(ctx, x[0], c->n, &o, &y);
            ct_tensor_release(w);
        }
        char what[96];
        snprintf(what, sizeof what, "case %d (%s, %s)", ci, op, ct_dtype_name(dt_of(c->x_dt[0])));
        CHECK_MSG(st == CT_OK, "%s: status %d: %s", what, (int)st, ct_ctx_last_error(ctx));
        /* single precision: torch computes in float (pocketfft), ctorch in double */
        const bool single = c->out_dt == CT_COMPLEX64 || c->out_dt == CT_FLOAT32 ||
                            (c->x_dt[0] == CT_COMPLEX64 || c->x_dt[0] == CT_FLOAT32);
        if (st == CT_OK)
            near(what, y, c->out_dt, c->out_nd, c->out_shape, fft_out + c->out_off,
                 single ? 3e-6 : 1e-13);
        ct_tensor_release(x[0]);
        ct_tensor_release(x[1]);
        ct_tensor_release(x[2]);
        ct_tensor_release(y);
    }
}

/* the DFT summed directly in long double */
static void naive_dft(const double *x, int64_t n, int sign, long double *out) {
    const long double pi = 3.141592653589793238462643383279502884L;
    for (int64_t k = 0; k < n; k++) {
        long double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            long double a = sign * 2 * pi * (long double)((j * k) % n) / (long double)n;
            re += x[2 * j] * cosl(a) - x[2 * j + 1] * sinl(a);
            im += x[2 * j] * sinl(a) + x[2 * j + 1] * cosl(a);
        }
        out[2 * k] = re, out[2 * k + 1] = im;
    }
}

TEST(exact_and_round_trip) {
    unsigned long long rng = 12345;
    const int64_t lens[] = {1, 2, 6, 17, 61, 67, 100, 128, 243, 257, 331, 1024};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        const int64_t n = lens[li];
        double *v = malloc(sizeof(double) * (size_t)(2 * n));
        long double *ref = malloc(sizeof(long double) * (size_t)(2 * n));
        for (int64_t i = 0; i < 2 * n; i++)
            v[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1);
        ct_tensor *x = from_tab(CT_COMPLEX128, 1, &n, v), *y = NULL, *z = NULL;
        CHECK_OK(ct_fft_fft(ctx, x, -1, 0, NULL, &y));
        naive_dft(v, n, -1, ref);
        int64_t nv = 0;
        double *got = y ? read_any(y, &nv) : NULL, err = 0, mag = 0;
        for (int64_t i = 0; got && i < 2 * n; i++) {
            err = fmax(err, fabs((double)(got[i] - ref[i])));
            mag = fmax(mag, fabs((double)ref[i]));
        }
        /* O(eps log n) relative to the largest value: well below torch's float64 (pocketfft) */
        CHECK_MSG(got && err <= 8e-16 * log2((double)n + 1) * fmax(mag, 1) * 4, "n=%lld: err %g",
                  (long long)n, err);
        free(got);
        CHECK_OK(ct_fft_ifft(ctx, y, -1, 0, NULL, &z));
        got = z ? read_any(z, &nv) : NULL;
        err = 0;
        for (int64_t i = 0; got && i < 2 * n; i++)
            err = fmax(err, fabs(got[i] - v[i]));
        CHECK_MSG(got && err < 1e-14, "n=%lld: round trip err %g", (long long)n, err);
        free(got);
        ct_tensor_release(z);
        ct_tensor_release(y);
        /* irfft(rfft(r), n) == r */
        for (int64_t i = 0; i < n; i++)
            v[i] = v[2 * i];
        ct_tensor *r = tu_from_vals(ctx, CT_FLOAT64, 1, &n, v);
        CHECK_OK(ct_fft_rfft(ctx, r, -1, 0, "ortho", &y));
        CHECK_OK(ct_fft_irfft(ctx, y, n, 0, "ortho", &z));
        got = z ? read_any(z, &nv) : NULL;
        err = 0;
        for (int64_t i = 0; got && i < n; i++)
            err = fmax(err, fabs(got[i] - v[i]));
        CHECK_MSG(got && err < 1e-14, "n=%lld: rfft round trip err %g", (long long)n, err);
        free(got);
        ct_tensor *tl[] = {x, y, z, r};
        for (int i = 0; i < 4; i++)
            ct_tensor_release(tl[i]);
        free(v);
        free(ref);
    }
}

TEST(views_casts_creation) {
    const double v[] = {1, 2, 3, -4, -0.5, 0.25};
    const int64_t sh[] = {3};
    ct_tensor *z = from_tab(CT_COMPLEX64, 1, sh, v), *r = NULL, *c = NULL, *t = NULL;
    CHECK(ct_is_complex(z) && !ct_is_floating_point(z) && ct_dtype_size(CT_COMPLEX128) == 16);
    CHECK_OK(ct_view_as_real(ctx, z, &r));
    CHECK(r && ct_tensor_ndim(r) == 2 && ct_tensor_size(r, 1) == 2 &&
          ct_tensor_dtype(r) == CT_FLOAT32);
    int64_t nv = 0;
    double *g = r ? read_any(r, &nv) : NULL;
    for (int i = 0; g && i < 6; i++)
        CHECK(g[i] == v[i]);
    free(g);
    /* a view: writing through the real view changes z */
    CHECK_OK(ct_tensor_fill_(ctx, r, 7.0));
    CHECK_OK(ct_view_as_complex(ctx, r, &c));
    g = c ? read_any(c, &nv) : NULL;
    CHECK(g && nv == 6 && g[0] == 7 && g[5] == 7);
    free(g);
    ct_tensor_release(c), c = NULL;
    /* real / imag views of the parts */
    CHECK_OK(ct_imag(ctx, z, &t));
    CHECK(t && ct_tensor_dtype(t) == CT_FLOAT32 && ct_tensor_stride(t)[0] == 2);
    ct_tensor_release(t), t = NULL;
    /* casts: real -> complex (imag 0), complex -> real (the real part), c64 -> c128 */
    ct_tensor *x = tu_from_vals(ctx, CT_INT64, 1, sh, (const double[]){5, -6, 7});
    CHECK_OK(ct_cast(ctx, x, CT_COMPLEX128, &c));
    g = c ? read_any(c, &nv) : NULL;
    CHECK(g && g[0] == 5 && g[1] == 0 && g[2] == -6 && g[3] == 0 && g[4] == 7 && g[5] == 0);
    free(g);
    CHECK_OK(ct_cast(ctx, c, CT_INT32, &t));
    g = t ? read_any(t, &nv) : NULL;
    CHECK(g && ct_tensor_dtype(t) == CT_INT32 && g[0] == 5 && g[1] == -6 && g[2] == 7);
    free(g);
    ct_tensor_release(t), t = NULL;
    ct_tensor_release(c), c = NULL;
    /* full / ones / zeros: value + 0i */
    CHECK_OK(ct_tensor_full(ctx, CT_COMPLEX64, 1, sh, 2.5, &c));
    g = c ? read_any(c, &nv) : NULL;
    CHECK(g && g[0] == 2.5 && g[1] == 0 && g[4] == 2.5 && g[5] == 0);
    free(g);
    ct_tensor_release(c), c = NULL;
    /* a transposed complex tensor made contiguous (the COPY of pairs) */
    const int64_t sh2[] = {2, 3};
    const double v2[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    ct_tensor *m = from_tab(CT_COMPLEX128, 2, sh2, v2), *mt = NULL;
    CHECK_OK(ct_tensor_transpose(ctx, m, 0, 1, &mt));
    CHECK_OK(ct_tensor_contiguous(ctx, mt, &c));
    g = c ? read_any(c, &nv) : NULL;
    const double want[] = {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11};
    for (int i = 0; g && i < 12; i++)
        CHECK(g[i] == want[i]);
    free(g);
    /* adjoint conjugates, isreal / isinf look at both parts, fill_(-0.0) keeps the sign */
    const int64_t s22[2] = {2, 2};
    const double av[8] = {1, 2, 3, 0, -1, 0.5, INFINITY, -4};
    ct_tensor *am = from_tab(CT_COMPLEX64, 2, s22, av), *adj = NULL, *isr = NULL, *isi = NULL;
    CHECK_OK(ct_adjoint(ctx, am, &adj));
    double *g2 = adj ? read_any(adj, &nv) : NULL;
    const double adj_want[8] = {1, -2, -1, -0.5, 3, -0.0, INFINITY, 4};
    for (int i = 0; g2 && i < 8; i++)
        CHECK_MSG(g2[i] == adj_want[i], "adjoint [%d] %g", i, g2[i]);
    free(g2);
    CHECK_OK(ct_isreal(ctx, am, &isr));
    CHECK_OK(ct_isinf(ctx, am, &isi));
    g2 = isr ? read_any(isr, &nv) : NULL;
    CHECK(g2 && g2[0] == 0 && g2[1] == 1 && g2[2] == 0 && g2[3] == 0);
    free(g2);
    g2 = isi ? read_any(isi, &nv) : NULL;
    CHECK(g2 && g2[0] == 0 && g2[1] == 0 && g2[2] == 0 && g2[3] == 1);
    free(g2);
    CHECK_OK(ct_tensor_fill_(ctx, am, -0.0));
    g2 = read_any(am, &nv);
    CHECK(g2 && g2[0] == 0 && signbit(g2[0]) && !signbit(g2[1]));
    free(g2);
    ct_tensor_release(adj), ct_tensor_release(isr), ct_tensor_release(isi);
    ct_dtype rt = CT_BOOL;
    ct_tensor *f64 = tu_from_vals(ctx, CT_FLOAT64, 1, (const int64_t[]){2}, (const double[]){1, 2});
    CHECK(ct_result_type(ctx, am, f64, &rt) == CT_OK && rt == CT_COMPLEX128);
    CHECK(ct_can_cast(CT_FLOAT64, CT_COMPLEX64) && !ct_can_cast(CT_COMPLEX64, CT_FLOAT64) &&
          ct_can_cast(CT_INT32, CT_COMPLEX128) && !ct_can_cast(CT_COMPLEX128, CT_INT64));
    ct_tensor_release(am), ct_tensor_release(f64);
    /* cat skips a legacy empty (0,) input, as torch */
    {
        ct_tensor *e0 = NULL, *cc = NULL, *m2 = from_tab(CT_COMPLEX64, 2, s22, av);
        CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, (const int64_t[]){0}, &e0));
        CHECK_OK(ct_cat(ctx, 2, (const ct_tensor *[]){e0, m2}, 1, &cc));
        CHECK(cc && ct_tensor_ndim(cc) == 2 && ct_tensor_size(cc, 1) == 2 &&
              ct_tensor_dtype(cc) == CT_COMPLEX64);
        ct_tensor_release(e0), ct_tensor_release(cc), ct_tensor_release(m2);
    }
    /* promotion as torch.promote_types / result_type */
    ct_dtype p;
    CHECK(ct_promote_types(CT_COMPLEX64, CT_FLOAT64, &p) == CT_OK && p == CT_COMPLEX128);
    CHECK(ct_promote_types(CT_INT64, CT_COMPLEX64, &p) == CT_OK && p == CT_COMPLEX64);
    CHECK(ct_promote_types(CT_BFLOAT16, CT_COMPLEX64, &p) == CT_OK && p == CT_COMPLEX64);
    ct_dtype d;
    CHECK(ct_dtype_from_name("torch.complex64", &d) == CT_OK && d == CT_COMPLEX64);
    CHECK(ct_dtype_from_name("cdouble", &d) == CT_OK && d == CT_COMPLEX128);
    ct_tensor *tl[] = {z, r, c, x, m, mt};
    for (int i = 0; i < 6; i++)
        ct_tensor_release(tl[i]);
}

static bool same_vals(const ct_tensor *a, const ct_tensor *b);

TEST(refusals) {
    const int64_t sh[] = {4};
    const double v[] = {1, 2, 3, 4, 5, 6, 7, 8};
    ct_tensor *z = from_tab(CT_COMPLEX64, 1, sh, v), *y = NULL;
    ct_tensor *r = tu_from_vals(ctx, CT_FLOAT32, 1, sh, v);
    /* ops without complex kernels say so, and nothing leaks */
    CHECK(ct_erf(ctx, z, &y) == CT_ERR_UNSUPPORTED && y == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "complex") != NULL);
    CHECK(ct_lt(ctx, z, z, &y) == CT_ERR_UNSUPPORTED && y == NULL);
    CHECK(ct_sign(ctx, z, &y) == CT_ERR_UNSUPPORTED && y == NULL);
    CHECK(ct_relu(ctx, z, &y) != CT_OK && y == NULL);
    CHECK(ct_bmm(ctx, z, z, &y) != CT_OK && y == NULL);
    CHECK(ct_matmul(ctx, z, r, &y) == CT_ERR_DTYPE && y == NULL);
    /* rfft of complex input, bad norm, n = 0, bad dim */
    CHECK(ct_fft_rfft(ctx, z, -1, 0, NULL, &y) == CT_ERR_DTYPE && y == NULL);
    CHECK(ct_fft_fft(ctx, z, -1, 0, "both", &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK(ct_fft_fft(ctx, z, 0, 0, NULL, &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK(ct_fft_fft(ctx, z, -1, 1, NULL, &y) == CT_ERR_INDEX && y == NULL);
    ct_tensor *z0 = from_tab(CT_COMPLEX64, 0, NULL, v);
    CHECK(ct_fft_irfft(ctx, z0, -1, 0, NULL, &y) == CT_ERR_INDEX && y == NULL);
    /* the real-valued n-dim transforms need at least one dim (torch's message), fftn does not */
    CHECK(ct_fft_rfftn(ctx, r, 0, NULL, (const int[]){0}, NULL, &y) == CT_ERR_INVALID_ARG);
    CHECK(y == NULL && strstr(ct_ctx_last_error(ctx), "rfftn must transform at least one axis"));
    CHECK(ct_fft_hfftn(ctx, z0, 0, NULL, NULL, NULL, &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK(ct_fft_ihfft2(ctx, z, NULL, NULL, NULL, &y) != CT_OK && y == NULL);
    CHECK(ct_fft_ihfftn(ctx, z, 1, NULL, NULL, NULL, &y) == CT_ERR_DTYPE && y == NULL);
    CHECK_OK(ct_fft_fftn(ctx, z, 0, NULL, (const int[]){0}, NULL, &y));
    CHECK(same_vals(y, z));
    ct_tensor_release(y), y = NULL;
    ct_tensor_release(z0);
    /* stft / istft: n_fft beyond the signal, a window of the wrong size, torch's NOLA check */
    ct_tensor *hw = NULL, *S = NULL, *sig = NULL;
    const int64_t ns = 64;
    double sv[64];
    for (int i = 0; i < 64; i++)
        sv[i] = sin(0.3 * i);
    sig = tu_from_vals(ctx, CT_FLOAT64, 1, &ns, sv);
    CHECK(ct_stft(ctx, sig, 200, NULL, &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK_OK(ct_hann_window(ctx, 16, true, CT_FLOAT64, &hw));
    ct_stft_opts so = {.window = hw, .no_center = true, .hop_length = 4};
    CHECK(ct_stft(ctx, sig, 32, &so, &y) == CT_ERR_SHAPE && y == NULL); /* window 16 != 32 */
    CHECK_OK(ct_stft(ctx, sig, 16, &so, &S));
    CHECK(ct_istft(ctx, S, 16, &so, &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "NOLA") != NULL);
    CHECK(ct_istft(ctx, sig, 16, &so, &y) == CT_ERR_DTYPE && y == NULL);
    ct_tensor_release(hw), ct_tensor_release(S), ct_tensor_release(sig);
    /* linalg.eig refuses NaN / inf (torch's message) and float16 */
    ct_tensor *bad =
        tu_from_vals(ctx, CT_FLOAT64, 2, (const int64_t[]){2, 2}, (const double[]){1, NAN, 0, 1});
    ct_tensor *w = NULL, *V = NULL;
    CHECK(ct_linalg_eig(ctx, bad, &w, &V) == CT_ERR_INVALID_ARG && w == NULL && V == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "infs or NaNs") != NULL);
    ct_tensor *h16 = NULL;
    CHECK_OK(ct_cast(ctx, bad, CT_FLOAT16, &h16));
    CHECK(ct_linalg_eigvals(ctx, h16, &w) == CT_ERR_DTYPE && w == NULL);
    ct_tensor_release(bad), ct_tensor_release(h16);
    /* istft: hop beyond the window */
    ct_stft_opts ho = {.hop_length = 5, .win_length = 4};
    ct_tensor *spec = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_COMPLEX64, 2, (const int64_t[]){3, 6}, &spec));
    CHECK(ct_istft(ctx, spec, 4, &ho, &y) == CT_ERR_INVALID_ARG && y == NULL);
    ct_tensor_release(spec);
    /* view_as_complex: last dim must be 2 with stride 1 */
    CHECK(ct_view_as_complex(ctx, r, &y) == CT_ERR_SHAPE && y == NULL);
    /* in-place complex arithmetic on a leaf that requires grad: refused (torch's rule; a
     * non-leaf takes the op's node, tests/test_inplace.c) */
    CHECK_OK(ct_tensor_set_requires_grad(z, true));
    CHECK(ct_add_(ctx, z, z) == CT_ERR_STATE);
    ct_tensor_release(z);
    ct_tensor_release(r);
}

/* A review against torch 1.13: stft with a complex window (two-sided, against a naive DFT of the
 * windowed reflect-padded frames), stft of a complex signal padded to one sample, istft's float64
 * window making a float64 result, n-dim transforms padding a dim while another is still empty
 * (zeros, as torch pads every dim at once), fftshift / roll over a repeated dim (shifts add up),
 * fftshift with no dims (torch's "`shifts` required"). */
TEST(review_fixes) {
    const int64_t L = 10, nfft = 6, hop = 3;
    double xv[10], wv[8] = {1, 0.5, 0, 1, 2, -1, 0.25, 0};
    for (int i = 0; i < 10; i++)
        xv[i] = 1 + i;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT32, 1, &L, xv), *w = NULL, *y = NULL;
    w = from_tab(CT_COMPLEX64, 1, (const int64_t[]){4}, wv);
    ct_stft_opts o = {.window = w, .hop_length = hop, .win_length = 4};
    CHECK_OK(ct_stft(ctx, x, nfft, &o, &y));
    const int64_t nfr = 1 + (L + 2 * (nfft / 2) - nfft) / hop;
    CHECK(tu_same_shape(y, 2, (const int64_t[]){nfft, nfr}) && ct_tensor_dtype(y) == CT_COMPLEX64);
    double *g = y ? tu_read_cx(y) : NULL, worst = 0;
    for (int64_t f = 0; g && f < nfr; f++)
        for (int64_t k = 0; k < nfft; k++) {
            double complex acc = 0;
            for (int64_t j = 0; j < nfft; j++) {
                int64_t i = f * hop + j - nfft / 2; /* reflect padding */
                i = i < 0 ? -i : i >= L ? 2 * (L - 1) - i : i;
                const int64_t wi = j - (nfft - 4) / 2; /* the window centred in n_fft */
                const double complex wj = wi >= 0 && wi < 4 ? wv[2 * wi] + I * wv[2 * wi + 1] : 0;
                acc += xv[i] * wj * cexp(-2 * I * M_PI * (double)(j * k) / (double)nfft);
            }
            const double complex got = g[2 * (k * nfr + f)] + I * g[2 * (k * nfr + f) + 1];
            worst = fmax(worst, cabs(got - acc) / (1 + cabs(acc)));
        }
    CHECK_MSG(g && worst < 1e-5, "stft with a complex window: error %g", worst);
    free(g), ct_tensor_release(y), y = NULL;
    o.onesided = 1; /* torch: a complex window cannot give a onesided result */
    CHECK(ct_stft(ctx, x, nfft, &o, &y) == CT_ERR_INVALID_ARG && y == NULL);
    ct_tensor *X = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_COMPLEX64, 2, (const int64_t[]){4, 5}, &X));
    ct_stft_opts io = {.window = w, .win_length = 4};
    CHECK(ct_istft(ctx, X, 6, &io, &y) == CT_ERR_UNSUPPORTED && y == NULL);
    /* istft: a float64 window, a float64 result */
    ct_tensor *hw = NULL;
    CHECK_OK(ct_hann_window(ctx, 6, true, CT_FLOAT64, &hw));
    io = (ct_stft_opts){.window = hw};
    CHECK_OK(ct_istft(ctx, X, 6, &io, &y));
    CHECK(y && ct_tensor_dtype(y) == CT_FLOAT64);
    ct_tensor_release(y), y = NULL;
    /* stft of a complex signal padded to one sample */
    ct_tensor *c1 = NULL;
    CHECK_OK(ct_tensor_ones(ctx, CT_COMPLEX64, 1, (const int64_t[]){1}, &c1));
    CHECK_OK(ct_stft(ctx, c1, 1, &(ct_stft_opts){.hop_length = 1}, &y));
    double *v1 = y ? tu_read_cx(y) : NULL;
    CHECK(tu_same_shape(y, 2, (const int64_t[]){1, 1}) && v1 && v1[0] == 1 && v1[1] == 0);
    free(v1), ct_tensor_release(y), y = NULL;
    /* fftn / irfftn of (2, 0) to s = (3, 4): zeros */
    ct_tensor *z = NULL;
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, (const int64_t[]){2, 0}, &z));
    for (int k = 0; k < 3; k++) {
        const int64_t s2[2] = {3, 4};
        CHECK_OK(k == 0   ? ct_fft_fftn(ctx, z, 2, s2, NULL, NULL, &y)
                 : k == 1 ? ct_fft_irfftn(ctx, z, 2, s2, NULL, NULL, &y)
                          : ct_fft_ifft2(ctx, z, s2, NULL, NULL, &y));
        CHECK(tu_same_shape(y, 2, s2) &&
              ct_tensor_dtype(y) == (k == 1 ? CT_FLOAT32 : CT_COMPLEX64));
        double *zv = y ? tu_read_cx(y) : NULL;
        for (int i = 0; zv && i < (k == 1 ? 12 : 24); i++)
            CHECK(zv[i] == 0);
        free(zv), ct_tensor_release(y), y = NULL;
    }
    /* a repeated dim: the shifts add up; no dims: refused */
    ct_tensor *a = NULL;
    CHECK_OK(ct_tensor_arange(ctx, CT_FLOAT32, 0, 5, 1, &a));
    CHECK_OK(ct_fft_fftshift(ctx, a, 2, (const int[]){0, -1}, &y));
    double *av = y ? tu_read(y) : NULL;
    CHECK(av && av[0] == 1 && av[4] == 0); /* rolled by 2 + 2 */
    free(av), ct_tensor_release(y), y = NULL;
    CHECK_OK(ct_roll(ctx, a, 3, (const int64_t[]){1, 1, -7}, (const int[]){0, 0, 0}, &y));
    av = y ? tu_read(y) : NULL;
    CHECK(av && av[0] == 0 && av[1] == 1); /* 1 + 1 - 7 = -5: the identity */
    free(av), ct_tensor_release(y), y = NULL;
    CHECK(ct_roll(ctx, a, 2, (const int64_t[]){1, 1}, (const int[]){0, 1}, &y) == CT_ERR_INDEX);
    CHECK(ct_fft_fftshift(ctx, a, 0, (const int[]){0}, &y) == CT_ERR_INVALID_ARG && y == NULL);
    CHECK(strstr(ct_ctx_last_error(ctx), "shifts") != NULL);
    ct_tensor_release(a), ct_tensor_release(z), ct_tensor_release(c1), ct_tensor_release(hw);
    ct_tensor_release(X), ct_tensor_release(w), ct_tensor_release(x);
}

TEST(capture_replay) {
    /* an rfft -> spectrum product -> irfft chain captured once and replayed on new data */
    const int64_t n = 12;
    double v[12];
    for (int i = 0; i < 12; i++)
        v[i] = sin(0.7 * i) + 0.1 * i;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 1, &n, v), *X = NULL, *P = NULL, *y = NULL;
    ct_graph *g = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK_OK(ct_graph_capture_begin(g, NULL));
    CHECK_OK(ct_fft_rfft(ctx, x, -1, 0, NULL, &X));
    CHECK_OK(ct_mul(ctx, X, X, &P));
    CHECK_OK(ct_fft_irfft(ctx, P, n, 0, NULL, &y));
    CHECK_OK(ct_graph_capture_end(g));
    for (int i = 0; i < 12; i++)
        v[i] = cos(0.3 * i);
    ct_tensor *x2 = tu_from_vals(ctx, CT_FLOAT64, 1, &n, v);
    CHECK_OK(ct_tensor_copy_(ctx, x, x2));
    CHECK_OK(ct_graph_replay(g));
    /* y = x circularly convolved with itself */
    int64_t nv = 0;
    double *got = y ? read_any(y, &nv) : NULL, err = 0;
    for (int k = 0; got && k < 12; k++) {
        double c = 0;
        for (int j = 0; j < 12; j++)
            c += v[j] * v[(k - j + 12) % 12];
        err = fmax(err, fabs(got[k] - c));
    }
    CHECK_MSG(got && err < 1e-12, "replayed circular convolution err %g", err);
    free(got);
    ct_graph_free(g);
    ct_tensor *tl[] = {x, X, P, y, x2};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(tl[i]);
}

/* A V = V diag(w) for linalg.eig, in complex arithmetic (an independent check of the pairs) */
TEST(eig_residual) {
    unsigned long long rng = 99;
    const int64_t sh[3] = {3, 6, 6};
    double v[108];
    for (int i = 0; i < 108; i++)
        v[i] = tu_rand_val(&rng, CT_FLOAT64, -1, 1);
    ct_tensor *a = tu_from_vals(ctx, CT_FLOAT64, 3, sh, v), *w = NULL, *V = NULL, *ac = NULL,
              *av = NULL, *wu = NULL, *vw = NULL;
    CHECK_OK(ct_linalg_eig(ctx, a, &w, &V));
    CHECK_OK(ct_cast(ctx, a, CT_COMPLEX128, &ac));
    CHECK_OK(ct_matmul(ctx, ac, V, &av));
    CHECK_OK(ct_tensor_unsqueeze(ctx, w, 1, &wu)); /* (3, 1, 6): column j scaled by w[j] */
    CHECK_OK(ct_mul(ctx, V, wu, &vw));
    int64_t n1 = 0, n2 = 0;
    double *x = av ? read_any(av, &n1) : NULL, *y = vw ? read_any(vw, &n2) : NULL, err = 0;
    for (int64_t i = 0; x && y && i < n1; i++)
        err = fmax(err, fabs(x[i] - y[i]));
    CHECK_MSG(x && y && n1 == n2 && err < 1e-13, "eig residual %g", err);
    free(x), free(y);
    ct_tensor *tl[] = {a, w, V, ac, av, wu, vw};
    for (int i = 0; i < 7; i++)
        ct_tensor_release(tl[i]);
}

TEST(printing) {
    const int np = (int)(sizeof fft_prints / sizeof fft_prints[0]);
    for (int i = 0; i < np; i++) {
        const fft_print *p = &fft_prints[i];
        ct_tensor *t = from_tab(p->dt, p->nd, p->shape, fft_in + p->off);
        char *str = NULL;
        CHECK_OK(ct_tensor_to_string(t, &str));
        CHECK_MSG(str && strcmp(str, p->str) == 0, "print %d:\n%s\ntorch:\n%s", i,
                  str ? str : "(null)", p->str);
        free(str);
        ct_tensor_release(t);
    }
}

/* the same values bit for bit (read through the raw bytes) */
static bool same_vals(const ct_tensor *a, const ct_tensor *b) {
    int64_t na = 0, nb = 0;
    double *x = read_any(a, &na), *y = read_any(b, &nb);
    bool ok = x && y && na == nb && memcmp(x, y, sizeof(double) * (size_t)na) == 0;
    free(x), free(y);
    return ok;
}

TEST(npy_and_dlpack) {
    const int64_t sh[2] = {2, 3};
    const double v[12] = {1, -2, 3.5, 0, -0.0, INFINITY, 7, 8, 9, -1e300, 1e-300, NAN};
    for (int k = 0; k < 2; k++) {
        const ct_dtype dt = k ? CT_COMPLEX128 : CT_COMPLEX64;
        ct_tensor *t = from_tab(dt, 2, sh, v), *back = NULL, *d = NULL;
        char path[] = "/tmp/ct_cx_npyXXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        close(fd);
        CHECK_OK(ct_npy_save(ctx, t, path));
        CHECK_OK(ct_npy_load(ctx, path, &back));
        unlink(path);
        CHECK(back && ct_tensor_dtype(back) == dt && same_vals(back, t));
        ct_dl_managed_tensor *m = NULL;
        CHECK_OK(ct_tensor_to_dlpack(ctx, t, &m));
        CHECK(m && m->dl_tensor.dtype.code == 5 && m->dl_tensor.dtype.bits == (k ? 128 : 64));
        CHECK_OK(ct_tensor_from_dlpack(ctx, m, &d));
        CHECK(d && ct_tensor_dtype(d) == dt && same_vals(d, t));
        ct_tensor_release(t), ct_tensor_release(back), ct_tensor_release(d);
    }
    /* a big-endian '>c8' file as NumPy writes it: each float swapped on its own */
    static const char hdr[] = "{'descr': '>c8', 'fortran_order': False, 'shape': (2,), }";
    unsigned char buf[128 + 16];
    memset(buf, ' ', 128);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = 118, buf[9] = 0; /* header length: 128 - 10 */
    memcpy(buf + 10, hdr, sizeof hdr - 1);
    buf[127] = '\n';
    const float fv[4] = {1.5f, -2.0f, 0.25f, 3.0f};
    for (int i = 0; i < 4; i++) {
        unsigned char b[4];
        memcpy(b, &fv[i], 4);
        for (int j = 0; j < 4; j++)
            buf[128 + 4 * i + j] = b[3 - j];
    }
    ct_tensor *t = NULL;
    CHECK_OK(ct_npy_load_buffer(ctx, buf, sizeof buf, &t));
    float got[4] = {0};
    CHECK(t && ct_tensor_to_host(t, got, sizeof got) == CT_OK);
    CHECK(got[0] == 1.5f && got[1] == -2.0f && got[2] == 0.25f && got[3] == 3.0f);
    ct_tensor_release(t);
}

/* ---- gradients through complex tensors, against central differences (tu_gradcheck: the
 * inputs and outputs are real float64; complex tensors live in between) ---- */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            printf("  %s: %s\n", #call, ct_ctx_last_error(ctx));                                   \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)
#define G_BEGIN(name)                                                                              \
    static ct_status name(const ct_tensor *x, ct_tensor **y) {                                     \
        ct_status st = CT_ERR_INVALID_ARG;                                                         \
        ct_tensor *t[12] = {NULL};                                                                 \
        *y = NULL;
#define G_END                                                                                      \
    st = CT_OK;                                                                                    \
    done:                                                                                          \
    for (int i_ = 0; i_ < 12; i_++)                                                                \
        ct_tensor_release(t[i_]);                                                                  \
    if (st != CT_OK && *y) ct_tensor_release(*y), *y = NULL;                                       \
    return *y ? CT_OK : CT_ERR_INVALID_ARG;                                                        \
    }
/* x (.., 2k) -> complex (.., k) */
static ct_status as_cx(const ct_tensor *x, int nd, const int64_t *sh, ct_tensor **t0,
                       ct_tensor **z) {
    ct_status st = ct_tensor_reshape(ctx, x, nd, sh, t0);
    return st == CT_OK ? ct_view_as_complex(ctx, *t0, z) : st;
}
G_BEGIN(g_fft)
TRY(as_cx(x, 3, (const int64_t[]){2, 6, 2}, &t[0], &t[1]));
TRY(ct_fft_fft(ctx, t[1], -1, 1, "ortho", &t[2]));
TRY(ct_fft_fft(ctx, t[2], 9, 0, NULL, &t[3]));  /* padded */
TRY(ct_fft_ifft(ctx, t[3], 4, 1, NULL, &t[4])); /* trimmed */
TRY(ct_view_as_real(ctx, t[4], y));
G_END
G_BEGIN(g_rfft)
TRY(ct_fft_rfft(ctx, x, -1, 0, NULL, &t[0]));
TRY(ct_abs(ctx, t[0], y));
G_END
G_BEGIN(g_irfft)
TRY(as_cx(x, 3, (const int64_t[]){2, 5, 2}, &t[0], &t[1]));
TRY(ct_fft_irfft(ctx, t[1], 8, 1, "forward", y));
G_END
G_BEGIN(g_irfft_odd)
TRY(as_cx(x, 2, (const int64_t[]){5, 2}, &t[0], &t[1]));
TRY(ct_fft_irfft(ctx, t[1], 9, 0, NULL, y));
G_END
G_BEGIN(g_hfft)
TRY(as_cx(x, 2, (const int64_t[]){4, 2}, &t[0], &t[1]));
TRY(ct_fft_hfft(ctx, t[1], 6, 0, "ortho", &t[2]));
TRY(ct_fft_ihfft(ctx, t[2], -1, 0, NULL, &t[3]));
TRY(ct_view_as_real(ctx, t[3], y));
G_END
G_BEGIN(g_nd)
TRY(ct_tensor_reshape(ctx, x, 3, (const int64_t[]){3, 4, 5}, &t[0]));
TRY(ct_fft_rfftn(ctx, t[0], 2, (const int64_t[]){5, 6}, (const int[]){0, 2}, NULL, &t[1]));
TRY(ct_fft_fft2(ctx, t[1], NULL, NULL, "ortho", &t[2]));
TRY(ct_fft_irfftn(ctx, t[2], 0, NULL, NULL, NULL, &t[3]));
TRY(ct_fft_fftshift(ctx, t[1], 0, NULL, &t[4]));
TRY(ct_view_as_real(ctx, t[4], &t[5]));
TRY(ct_tensor_reshape(ctx, t[5], 1, (const int64_t[]){-1}, &t[6]));
TRY(ct_tensor_reshape(ctx, t[3], 1, (const int64_t[]){-1}, &t[7]));
TRY(ct_cat(ctx, 2, (const ct_tensor *[]){t[6], t[7]}, 0, y));
G_END
G_BEGIN(g_elementwise)
TRY(as_cx(x, 3, (const int64_t[]){2, 3, 2}, &t[0], &t[1])); /* z (2, 3): 6 complex values */
TRY(ct_tensor_narrow(ctx, t[1], 0, 0, 1, &t[2]));           /* a (1, 3) */
TRY(ct_tensor_narrow(ctx, t[1], 0, 1, 1, &t[3]));           /* b (1, 3) */
TRY(ct_exp(ctx, t[2], &t[4]));
TRY(ct_add_scalar(ctx, t[3], 3.0, &t[5]));
TRY(ct_div(ctx, t[4], t[5], &t[6])); /* exp(a) / (b + 3) */
TRY(ct_conj(ctx, t[2], &t[7]));
TRY(ct_mul(ctx, t[6], t[7], &t[8])); /* * conj(a) */
TRY(ct_sqrt(ctx, t[5], &t[9]));
TRY(ct_sub(ctx, t[8], t[9], &t[10])); /* - sqrt(b + 3) */
TRY(ct_reciprocal(ctx, t[10], &t[11]));
ct_tensor *l = NULL, *ang = NULL, *ab = NULL, *re = NULL, *im = NULL;
st = ct_log(ctx, t[11], &l);
if (st == CT_OK) st = ct_angle(ctx, l, &ang);
if (st == CT_OK) st = ct_abs(ctx, l, &ab);
if (st == CT_OK) st = ct_real(ctx, t[10], &re);
if (st == CT_OK) st = ct_imag(ctx, t[10], &im);
if (st == CT_OK) st = ct_cat(ctx, 4, (const ct_tensor *[]){ang, ab, re, im}, 0, y);
ct_tensor_release(l), ct_tensor_release(ang), ct_tensor_release(ab), ct_tensor_release(re);
ct_tensor_release(im);
if (st != CT_OK) goto done;
G_END
G_BEGIN(g_build)
TRY(ct_tensor_narrow(ctx, x, 0, 0, 4, &t[0]));
TRY(ct_tensor_narrow(ctx, x, 0, 4, 4, &t[1]));
TRY(ct_abs(ctx, t[0], &t[2]));
TRY(ct_add_scalar(ctx, t[2], 0.5, &t[3]));
TRY(ct_polar(ctx, t[3], t[1], &t[4]));
TRY(ct_complex(ctx, t[1], t[0], &t[5]));
TRY(ct_cast(ctx, t[0], CT_COMPLEX128, &t[6]));
TRY(ct_mul(ctx, t[4], t[5], &t[7]));
TRY(ct_add_scaled(ctx, t[7], t[6], -2.0, &t[8]));
TRY(ct_mul(ctx, t[8], t[1], &t[9])); /* complex * real */
TRY(ct_view_as_real(ctx, t[9], y));
G_END
G_BEGIN(g_reduce_matmul)
TRY(as_cx(x, 3, (const int64_t[]){2, 3, 2}, &t[0], &t[1])); /* (2, 3) complex */
TRY(ct_tensor_transpose(ctx, t[1], 0, 1, &t[2]));           /* (3, 2) */
TRY(ct_matmul(ctx, t[1], t[2], &t[3]));                     /* (2, 2) */
TRY(ct_sum(ctx, t[1], 1, (const int[]){1}, true, &t[4]));   /* (2, 1) */
TRY(ct_mean(ctx, t[3], 0, NULL, false, &t[5]));             /* 0-d */
TRY(ct_mul(ctx, t[3], t[4], &t[6]));
TRY(ct_add(ctx, t[6], t[5], &t[7]));
TRY(ct_view_as_real(ctx, t[7], y));
G_END
G_BEGIN(g_stft)
ct_stft_opts o = {.hop_length = 3};
TRY(ct_stft(ctx, x, 8, &o, &t[0]));
TRY(ct_abs(ctx, t[0], &t[1]));
o.length = 30;
TRY(ct_istft(ctx, t[0], 8, &o, &t[2]));
TRY(ct_tensor_reshape(ctx, t[1], 1, (const int64_t[]){-1}, &t[3]));
TRY(ct_cat(ctx, 2, (const ct_tensor *[]){t[3], t[2]}, 0, y));
G_END

G_BEGIN(g_shape)
TRY(as_cx(x, 3, (const int64_t[]){2, 3, 2}, &t[0], &t[1])); /* (2, 3) complex */
TRY(ct_flip(ctx, t[1], 1, (const int[]){1}, &t[2]));
TRY(ct_roll(ctx, t[2], 1, (const int64_t[]){1}, (const int[]){0}, &t[3]));
TRY(ct_cat(ctx, 2, (const ct_tensor *[]){t[3], t[1]}, 1, &t[4])); /* (2, 6) */
TRY(ct_repeat(ctx, t[4], 2, (const int64_t[]){1, 2}, &t[5]));     /* (2, 12) */
TRY(ct_pad(ctx, t[5], 2, (const int64_t[]){1, 0}, CT_PAD_CONSTANT, 0, &t[6]));
const int64_t iv[3] = {4, 0, 4};
ct_tensor *ix = NULL;
TRY(ct_tensor_from_host(ctx, iv, CT_INT64, 1, (const int64_t[]){3}, &ix));
st = ct_index_select(ctx, t[6], 1, ix, &t[7]);
ct_tensor_release(ix);
if (st != CT_OK) goto done;
TRY(ct_pow(ctx, t[7], 1.7, &t[8]));
TRY(ct_pow(ctx, t[7], 2, &t[9]));
TRY(ct_add(ctx, t[8], t[9], &t[10]));
TRY(ct_norm(ctx, t[10], 2.0, 1, (const int[]){1}, false, &t[11]));
ct_tensor *vr = NULL, *fl = NULL;
st = ct_view_as_real(ctx, t[10], &vr);
if (st == CT_OK) st = ct_flatten(ctx, vr, 0, -1, &fl);
if (st == CT_OK) st = ct_cat(ctx, 2, (const ct_tensor *[]){fl, t[11]}, 0, y);
ct_tensor_release(vr), ct_tensor_release(fl);
if (st != CT_OK) goto done;
G_END

G_BEGIN(g_stft_cx)
TRY(as_cx(x, 2, (const int64_t[]){20, 2}, &t[0], &t[1]));
ct_stft_opts o = {.hop_length = 4};
TRY(ct_stft(ctx, t[1], 8, &o, &t[2]));
TRY(ct_view_as_real(ctx, t[2], y));
G_END
G_BEGIN(g_where)
TRY(as_cx(x, 3, (const int64_t[]){3, 3, 2}, &t[0], &t[1])); /* (3, 3) complex */
const double mv[9] = {1, 0, 1, 0, 0, 1, 1, 1, 0};
TRY(ct_tensor_from_host(ctx, mv, CT_FLOAT64, 2, (const int64_t[]){3, 3}, &t[2]));
TRY(ct_ne_scalar(ctx, t[2], 0.0, &t[3]));
TRY(ct_tril(ctx, t[1], 0, &t[4]));
TRY(ct_triu(ctx, t[1], 1, &t[5]));
TRY(ct_where(ctx, t[3], t[4], t[5], &t[6]));
TRY(ct_masked_fill(ctx, t[6], t[3], 0.5, &t[7])); /* the filled entries: no gradient */
TRY(ct_cumsum(ctx, t[6], 0, &t[8]));
TRY(ct_add(ctx, t[7], t[8], &t[9]));
TRY(ct_view_as_real(ctx, t[9], y));
G_END

TEST(gradients) {
    unsigned long long rng = 2024;
    tu_gradcheck(ctx, &rng, "fft / ifft, padded and trimmed", g_fft, 1, (const int64_t[]){24});
    tu_gradcheck(ctx, &rng, "abs(rfft)", g_rfft, 1, (const int64_t[]){9});
    tu_gradcheck(ctx, &rng, "irfft even", g_irfft, 1, (const int64_t[]){20});
    tu_gradcheck(ctx, &rng, "irfft odd", g_irfft_odd, 1, (const int64_t[]){10});
    tu_gradcheck(ctx, &rng, "hfft / ihfft", g_hfft, 1, (const int64_t[]){8});
    tu_gradcheck(ctx, &rng, "rfftn / fft2 / irfftn / fftshift", g_nd, 1, (const int64_t[]){60});
    tu_gradcheck(ctx, &rng, "exp / div / conj / sqrt / reciprocal / log / angle / abs",
                 g_elementwise, 1, (const int64_t[]){12});
    tu_gradcheck(ctx, &rng, "polar / complex / cast / mixed products", g_build, 1,
                 (const int64_t[]){8});
    tu_gradcheck(ctx, &rng, "matmul / sum / mean", g_reduce_matmul, 1, (const int64_t[]){12});
    tu_gradcheck(ctx, &rng, "stft / istft", g_stft, 1, (const int64_t[]){30});
    tu_gradcheck(ctx, &rng, "stft of a complex signal (unfold of complex)", g_stft_cx, 1,
                 (const int64_t[]){40});
    tu_gradcheck(ctx, &rng, "where / masked_fill / tril / triu / cumsum", g_where, 1,
                 (const int64_t[]){18});
    tu_gradcheck(ctx, &rng, "flip / roll / cat / repeat / pad / index_select / pow / norm", g_shape,
                 1, (const int64_t[]){12});
    /* grad_fn names as torch's */
    const int64_t n = 4;
    ct_tensor *x = tu_from_vals(ctx, CT_FLOAT64, 1, &n, (const double[]){1, 2, 3, 4}), *y = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(ct_fft_rfft(ctx, x, -1, 0, NULL, &y));
    char *str = NULL;
    CHECK_OK(ct_tensor_to_string(y, &str));
    CHECK_MSG(str && strstr(str, "grad_fn=<FftR2CBackward0>"), "%s", str ? str : "");
    free(str);
    ct_tensor_release(y);
    /* a complex leaf's gradient: d/dz of sum(|z|^2) is 2z */
    const double zv[4] = {1, -2, 0.5, 3};
    const int64_t two = 2;
    ct_tensor *z = from_tab(CT_COMPLEX128, 1, &two, zv), *a = NULL, *a2 = NULL, *s = NULL;
    CHECK_OK(ct_tensor_set_requires_grad(z, true));
    CHECK_OK(ct_abs(ctx, z, &a));
    CHECK_OK(ct_mul(ctx, a, a, &a2));
    CHECK_OK(ct_sum(ctx, a2, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    int64_t nv = 0;
    double *g = ct_tensor_grad(z) ? read_any(ct_tensor_grad(z), &nv) : NULL;
    CHECK(g && nv == 4);
    for (int i = 0; g && i < 4; i++)
        CHECK_MSG(fabs(g[i] - 2 * zv[i]) < 1e-12, "d|z|^2/dz [%d] = %g, want %g", i, g[i],
                  2 * zv[i]);
    free(g);
    /* review cases: polar's abs gradient at abs = 0 and pow's at z = 0 are 0 (torch), pow(z, 0)
     * keeps a graph (zero gradient), vdot conjugates, a NULL operand is an error */
    {
        const int64_t n2 = 2;
        ct_tensor *ab = tu_from_vals(ctx, CT_FLOAT64, 1, &n2, (const double[]){0, 2});
        ct_tensor *an = tu_from_vals(ctx, CT_FLOAT64, 1, &n2, (const double[]){0.3, 0.7});
        ct_tensor *pz = NULL, *pr = NULL, *ps = NULL;
        CHECK_OK(ct_tensor_set_requires_grad(ab, true));
        CHECK_OK(ct_polar(ctx, ab, an, &pz));
        CHECK_OK(ct_view_as_real(ctx, pz, &pr));
        CHECK_OK(ct_sum(ctx, pr, 0, NULL, false, &ps));
        CHECK_OK(ct_backward(ctx, ps, NULL, false));
        double *gp = ct_tensor_grad(ab) ? tu_read(ct_tensor_grad(ab)) : NULL;
        CHECK(gp && gp[0] == cos(0.3) + sin(0.3) && fabs(gp[1] - (cos(0.7) + sin(0.7))) < 1e-15);
        free(gp);
        ct_tensor_release(ab), ct_tensor_release(an), ct_tensor_release(pz);
        ct_tensor_release(pr), ct_tensor_release(ps);
        const double zz[4] = {0, 0, 1, 1};
        for (int k = 0; k < 2; k++) {
            ct_tensor *q = from_tab(CT_COMPLEX128, 1, &n2, zz), *qp = NULL, *qr = NULL, *qs = NULL;
            CHECK_OK(ct_tensor_set_requires_grad(q, true));
            CHECK_OK(ct_pow(ctx, q, k ? 0.0 : 2.5, &qp));
            CHECK_OK(ct_view_as_real(ctx, qp, &qr));
            CHECK_OK(ct_sum(ctx, qr, 0, NULL, false, &qs));
            CHECK_OK(ct_backward(ctx, qs, NULL, false));
            double *gq = ct_tensor_grad(q) ? read_any(ct_tensor_grad(q), &nv) : NULL;
            CHECK_MSG(gq && gq[0] == 0 && gq[1] == 0 && (k ? gq[2] == 0 : isfinite(gq[2])),
                      "pow %s: %g %g %g", k ? "0" : "2.5", gq ? gq[0] : -1, gq ? gq[1] : -1,
                      gq ? gq[2] : -1);
            free(gq);
            ct_tensor_release(q), ct_tensor_release(qp), ct_tensor_release(qr);
            ct_tensor_release(qs);
        }
        const double va[4] = {1, 2, 3, 4}, vb[4] = {5, 6, 7, 8};
        ct_tensor *a1 = from_tab(CT_COMPLEX128, 1, &n2, va),
                  *b1 = from_tab(CT_COMPLEX128, 1, &n2, vb);
        ct_tensor *vd = NULL, *nul = NULL;
        CHECK_OK(ct_vdot(ctx, a1, b1, &vd));
        double *gv = vd ? read_any(vd, &nv) : NULL;
        CHECK(gv && gv[0] == 70 && gv[1] == -8); /* conj(a) . b, numpy's */
        free(gv);
        CHECK(ct_mul(ctx, a1, NULL, &nul) == CT_ERR_INVALID_ARG && nul == NULL);
        CHECK(ct_add(ctx, NULL, a1, &nul) == CT_ERR_INVALID_ARG && nul == NULL);
        ct_tensor_release(a1), ct_tensor_release(b1), ct_tensor_release(vd);
    }
    ct_tensor *tl[] = {x, z, a, a2, s};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(tl[i]);
}

int main(void) {
    ctx = tu_ctx_or_skip();
    RUN(as_torch);
    RUN(exact_and_round_trip);
    RUN(views_casts_creation);
    RUN(refusals);
    RUN(review_fixes);
    RUN(capture_replay);
    RUN(eig_residual);
    RUN(gradients);
    RUN(printing);
    RUN(npy_and_dlpack);
    CHECK(ct_ctx_live_tensors(ctx) == 0);
    ct_ctx_free(ctx);
    return ct_test_end();
}

/* Complex tensors and torch.fft as a PyTorch user writes them: a noisy two-tone signal's spectrum
 * (rfft, rfftfreq, abs: the two peaks found at their frequencies), a convolution done as a
 * product of spectra (rfft, mul, irfft against the direct sum), the full transforms (fft / ifft,
 * fftn / ifftn, fft2 / ifft2, rfftn / irfftn, rfft2 / irfft2, hfft / ihfft, hfftn / ihfftn,
 * hfft2 / ihfft2 round trips, fftfreq, fftshift / ifftshift) and the complex constructors and views
 * (complex, polar, view_as_real, view_as_complex, real, imag, angle, conj). Every printed number is
 * checked. Build and run: see README ("Examples"). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static ct_ctx *ctx;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,                    \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                    \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* largest |a - b| over n doubles of two float64 tensors (complex: their real views) */
static double maxdiff(const ct_tensor *a, const ct_tensor *b) {
    ct_tensor *ra = NULL, *rb = NULL, *d = NULL, *m = NULL;
    double r = INFINITY;
    if (ct_is_complex(a)) {
        if (ct_view_as_real(ctx, a, &ra) != CT_OK || ct_view_as_real(ctx, b, &rb) != CT_OK)
            goto out;
    } else {
        ra = ct_tensor_retain((ct_tensor *)a), rb = ct_tensor_retain((ct_tensor *)b);
    }
    ct_tensor *ad = NULL;
    if (ct_sub(ctx, ra, rb, &d) == CT_OK && ct_abs(ctx, d, &ad) == CT_OK &&
        ct_amax(ctx, ad, 0, NULL, false, &m) == CT_OK)
        ct_tensor_item(m, &r);
    ct_tensor_release(ad);
out:
    ct_tensor_release(ra), ct_tensor_release(rb), ct_tensor_release(d), ct_tensor_release(m);
    return r;
}

int main(void) {
    int rc = 1;
    enum { N = 256 };
    static double sig[N], ker[N], conv[N];
    ct_tensor *x = NULL, *X = NULL, *mag = NULL, *freq = NULL, *k = NULL, *K = NULL, *P = NULL,
              *y = NULL, *ref = NULL, *z = NULL, *Z = NULL, *zz = NULL, *re = NULL, *im = NULL,
              *c = NULL, *v = NULL, *a = NULL, *pol = NULL, *cj = NULL, *sh = NULL, *ish = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    /* 1. spectrum: tones at 12.5 Hz and 40 Hz sampled at 100 Hz, small deterministic noise */
    for (int i = 0; i < N; i++) {
        double t = i / 100.0;
        sig[i] = sin(2 * M_PI * 12.5 * t) + 0.5 * sin(2 * M_PI * 40 * t) + 0.01 * sin(i * i * 0.37);
    }
    const int64_t n = N;
    CHECK(ct_tensor_from_host(ctx, sig, CT_FLOAT64, 1, &n, &x));
    CHECK(ct_fft_rfft(ctx, x, -1, 0, NULL, &X)); /* (129,) complex128 */
    CHECK(ct_abs(ctx, X, &mag));
    CHECK(ct_fft_rfftfreq(ctx, N, 0.01, CT_FLOAT64, &freq));
    double m[N / 2 + 1], f[N / 2 + 1];
    CHECK(ct_tensor_to_host(mag, m, sizeof m));
    CHECK(ct_tensor_to_host(freq, f, sizeof f));
    int p1 = 0, p2 = 0; /* the two largest local peaks */
    for (int i = 1; i < N / 2; i++)
        if (m[i] > m[i - 1] && m[i] >= m[i + 1]) {
            if (m[i] > m[p1])
                p2 = p1, p1 = i;
            else if (m[i] > m[p2])
                p2 = i;
        }
    printf("rfft peaks      %.2f Hz (|X| %.1f) and %.2f Hz (|X| %.1f)\n", f[p1], m[p1], f[p2],
           m[p2]);
    EXPECT(fabs(f[p1] - 12.5) < 0.4 && fabs(f[p2] - 40) < 0.4);
    /* 2. circular convolution with a kernel as a product of spectra */
    for (int i = 0; i < N; i++)
        ker[i] = i < 5 ? 0.2 : 0;
    for (int i = 0; i < N; i++) {
        conv[i] = 0;
        for (int j = 0; j < N; j++)
            conv[i] += sig[j] * ker[(i - j + N) % N];
    }
    CHECK(ct_tensor_from_host(ctx, ker, CT_FLOAT64, 1, &n, &k));
    CHECK(ct_fft_rfft(ctx, k, -1, 0, NULL, &K));
    CHECK(ct_mul(ctx, X, K, &P));
    CHECK(ct_fft_irfft(ctx, P, N, 0, NULL, &y));
    CHECK(ct_tensor_from_host(ctx, conv, CT_FLOAT64, 1, &n, &ref));
    double e = maxdiff(y, ref);
    printf("irfft(rfft(x) * rfft(k)) - direct convolution: %.1e\n", e);
    EXPECT(e < 1e-12);
    /* 3. round trips of the other transforms on a (4, 6, 5) complex tensor */
    const int64_t s3[3] = {4, 6, 5};
    double zv[2 * 120];
    for (int i = 0; i < 240; i++)
        zv[i] = cos(1.3 * i) + 0.1 * i / 240;
    CHECK(ct_tensor_from_host(ctx, zv, CT_COMPLEX128, 3, s3, &z));
    CHECK(ct_fft_fftn(ctx, z, 0, NULL, NULL, "ortho", &Z));
    CHECK(ct_fft_ifftn(ctx, Z, 0, NULL, NULL, "ortho", &zz));
    e = maxdiff(zz, z);
    printf("fftn / ifftn    round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    CHECK(ct_fft_fft2(ctx, z, NULL, NULL, NULL, &Z));
    CHECK(ct_fft_ifft2(ctx, Z, NULL, NULL, NULL, &zz));
    e = maxdiff(zz, z);
    printf("fft2 / ifft2    round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    CHECK(ct_fft_fft(ctx, z, -1, 1, "forward", &Z));
    CHECK(ct_fft_ifft(ctx, Z, -1, 1, "forward", &zz));
    e = maxdiff(zz, z);
    printf("fft / ifft      round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    /* real signals: rfftn / irfftn, rfft2 / irfft2, ihfft / hfft */
    CHECK(ct_real(ctx, z, &re));
    CHECK(ct_fft_rfftn(ctx, re, 0, NULL, NULL, NULL, &Z));
    CHECK(ct_fft_irfftn(ctx, Z, 3, (const int64_t[]){4, 6, 5}, NULL, NULL, &zz));
    e = maxdiff(zz, re);
    printf("rfftn / irfftn  round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    CHECK(ct_fft_rfft2(ctx, re, NULL, NULL, NULL, &Z));
    CHECK(ct_fft_irfft2(ctx, Z, (const int64_t[]){6, 5}, NULL, NULL, &zz));
    e = maxdiff(zz, re);
    printf("rfft2 / irfft2  round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    CHECK(ct_fft_ihfft(ctx, re, -1, 2, NULL, &Z));
    CHECK(ct_fft_hfft(ctx, Z, 5, 2, NULL, &zz));
    e = maxdiff(zz, re);
    printf("ihfft / hfft    round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    CHECK(ct_fft_ihfftn(ctx, re, 0, NULL, NULL, NULL, &Z));
    CHECK(ct_fft_hfftn(ctx, Z, 3, (const int64_t[]){4, 6, 5}, NULL, NULL, &zz));
    e = maxdiff(zz, re);
    printf("ihfftn / hfftn  round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    ct_tensor_release(Z), ct_tensor_release(zz), Z = zz = NULL;
    CHECK(ct_fft_ihfft2(ctx, re, NULL, NULL, "ortho", &Z));
    CHECK(ct_fft_hfft2(ctx, Z, (const int64_t[]){6, 5}, NULL, "ortho", &zz));
    e = maxdiff(zz, re);
    printf("ihfft2 / hfft2  round trip %.1e\n", e);
    EXPECT(e < 1e-14);
    /* fftfreq and the shifts: the zero frequency moves to the centre and back */
    ct_tensor_release(freq), freq = NULL;
    CHECK(ct_fft_fftfreq(ctx, 5, 0.1, CT_FLOAT64, &freq));
    CHECK(ct_fft_fftshift(ctx, freq, 0, NULL, &sh));
    CHECK(ct_fft_ifftshift(ctx, sh, 0, NULL, &ish));
    double fr[5], fs[5];
    CHECK(ct_tensor_to_host(freq, fr, sizeof fr));
    CHECK(ct_tensor_to_host(sh, fs, sizeof fs));
    printf("fftfreq(5, 0.1) %g %g %g %g %g; fftshift %g %g %g %g %g\n", fr[0], fr[1], fr[2], fr[3],
           fr[4], fs[0], fs[1], fs[2], fs[3], fs[4]);
    EXPECT(fr[1] == 2 && fr[3] == -4 && fs[0] == -4 && fs[2] == 0 && maxdiff(ish, freq) == 0);
    /* stft with a Hann window and its inverse give the signal back */
    ct_tensor *hw = NULL, *S = NULL, *back = NULL;
    CHECK(ct_hann_window(ctx, 64, true, CT_FLOAT64, &hw));
    ct_stft_opts so = {.hop_length = 16, .window = hw};
    CHECK(ct_stft(ctx, x, 64, &so, &S)); /* (33, 17) complex128 */
    so.length = N;
    CHECK(ct_istft(ctx, S, 64, &so, &back));
    e = maxdiff(back, x);
    printf("stft (%lld x %lld) / istft round trip %.1e\n", (long long)ct_tensor_size(S, 0),
           (long long)ct_tensor_size(S, 1), e);
    ct_tensor_release(hw), ct_tensor_release(S), ct_tensor_release(back);
    EXPECT(e < 1e-14);
    /* linalg.eig of a rotation by 90 degrees and a stretch: eigenvalues +-i and 3 */
    {
        const double rot[9] = {0, -1, 0, 1, 0, 0, 0, 0, 3};
        const int64_t s33[2] = {3, 3};
        ct_tensor *R = NULL, *ev = NULL, *evec = NULL, *evals = NULL;
        double w6[6];
        CHECK(ct_tensor_from_host(ctx, rot, CT_FLOAT64, 2, s33, &R));
        CHECK(ct_linalg_eig(ctx, R, &ev, &evec));
        CHECK(ct_linalg_eigvals(ctx, R, &evals));
        CHECK(ct_tensor_to_host(evals, w6, sizeof w6));
        printf("linalg.eig(rotation + stretch) = %g%+gi, %g%+gi, %g%+gi\n", w6[0], w6[1], w6[2],
               w6[3], w6[4], w6[5]);
        int ok = w6[0] == 0 && w6[1] == 1 && w6[3] == -1 && w6[4] == 3 && maxdiff(ev, evals) == 0 &&
                 ct_tensor_ndim(evec) == 2;
        ct_tensor_release(R), ct_tensor_release(ev), ct_tensor_release(evec),
            ct_tensor_release(evals);
        EXPECT(ok);
    }
    /* 4. dtypes, constructors and views */
    EXPECT(ct_dtype_is_complex(CT_COMPLEX64) && ct_dtype_to_real(CT_COMPLEX128) == CT_FLOAT64 &&
           ct_dtype_to_complex(CT_FLOAT32) == CT_COMPLEX64);
    CHECK(ct_imag(ctx, z, &im));
    CHECK(ct_complex(ctx, re, im, &c)); /* equal to z */
    EXPECT(maxdiff(c, z) == 0);
    CHECK(ct_view_as_real(ctx, z, &v)); /* (4, 6, 5, 2) float64 view */
    ct_tensor_release(c), c = NULL;
    CHECK(ct_view_as_complex(ctx, v, &c)); /* back to z's elements */
    EXPECT(ct_tensor_ndim(v) == 4 && maxdiff(c, z) == 0);
    CHECK(ct_angle(ctx, z, &a));
    ct_tensor_release(mag), mag = NULL;
    CHECK(ct_abs(ctx, z, &mag));
    CHECK(ct_polar(ctx, mag, a, &pol)); /* |z| e^{i angle z} */
    e = maxdiff(pol, z);
    CHECK(ct_conj(ctx, z, &cj));
    ct_tensor_release(P), P = NULL;
    CHECK(ct_mul(ctx, z, cj, &P)); /* z conj(z) = |z|^2 + 0i */
    ct_tensor_release(im), im = NULL;
    CHECK(ct_imag(ctx, P, &im));
    ct_tensor_release(c), c = NULL;
    CHECK(ct_mul_scalar(ctx, im, 0.0, &c));
    printf("polar(|z|, angle z) - z: %.1e; imag(z conj z) max %.1e\n", e, maxdiff(im, c));
    EXPECT(e < 1e-15 && maxdiff(im, c) == 0);
    rc = 0;
    printf("api_fft: ok\n");
fail : {
    ct_tensor *all[] = {x,  X,  mag, freq, k, K, P,   y,  ref, z,  Z,
                        zz, re, im,  c,    v, a, pol, cj, sh,  ish};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
}
    ct_ctx_free(ctx);
    return rc;
}

/* ctorch FFT: torch.fft's transforms over complex64 / complex128 tensors.
 *
 * Every transform runs in double precision (float32 inputs too, rounded once at the end: more
 * accurate than torch's float32 pocketfft), for any length (mixed radix; Bluestein for lengths
 * with a prime factor above 61), along any dims and strides, and is captured like every op.
 * Real float inputs are promoted to complex where torch does, integers and bool to float32 first;
 * float16 / bfloat16 are refused (as torch 1.13's CPU FFT). n / s entries of -1 mean the input's
 * size (c2r transforms: 2 (m - 1)); norm is NULL or "backward" (the default: the inverse scaled
 * by 1 / n), "ortho" (both by 1 / sqrt(n)) or "forward" (the forward by 1 / n).
 * Differentiable (torch's complex convention; the adjoint transforms, higher orders included).
 * Errors: bad dim, n = 0 or below -1 (CT_ERR_INVALID_ARG), complex input to the r-transforms of
 * real data (CT_ERR_DTYPE), NULL pointers. Ownership: *out is a new reference. */
#ifndef CTORCH_FFT_H
#define CTORCH_FFT_H

#include "ctorch/ops.h"
#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* torch.fft.fft / ifft: the 1-d DFT (exp(-2 pi i jk / n)) / its inverse of x along dim, x
 * trimmed or zero-padded to n (-1: its size). */
CT_API ct_status ct_fft_fft(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,
                            ct_tensor **out);
CT_API ct_status ct_fft_ifft(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,
                             ct_tensor **out);
/* torch.fft.rfft: the n / 2 + 1 non-negative frequencies of the DFT of real x. */
CT_API ct_status ct_fft_rfft(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,
                             ct_tensor **out);
/* torch.fft.irfft: the real signal of length n (-1: 2 (m - 1)) whose rfft is x (the imaginary
 * parts of the zero and Nyquist frequencies are ignored). */
CT_API ct_status ct_fft_irfft(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,
                              ct_tensor **out);
/* torch.fft.hfft: the real DFT of length n of the Hermitian signal whose first half is x;
 * ihfft: its inverse, the n / 2 + 1 first values of the inverse DFT of real x. */
CT_API ct_status ct_fft_hfft(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,
                             ct_tensor **out);
CT_API ct_status ct_fft_ihfft(ct_ctx *ctx, const ct_tensor *x, int64_t n, int dim, const char *norm,
                              ct_tensor **out);
/* torch.fft.fftn / ifftn / rfftn / irfftn over n_dims dims: s (sizes, NULL: the input's) and dim
 * (NULL: the last n_dims dims, or every dim when s is NULL too) have n_dims entries; rfftn's and
 * irfftn's last dim is the real one. */
CT_API ct_status ct_fft_fftn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,
                             const int *dim, const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_ifftn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,
                              const int *dim, const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_rfftn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,
                              const int *dim, const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_irfftn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,
                               const int *dim, const char *norm, ct_tensor **out);
/* torch.fft.hfftn: the real n-dim DFT of the Hermitian signal whose last dim holds its first half
 * (s and dim as irfftn); ihfftn: its inverse, the half spectrum of the inverse n-dim DFT of real x.
 */
CT_API ct_status ct_fft_hfftn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,
                              const int *dim, const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_ihfftn(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int64_t *s,
                               const int *dim, const char *norm, ct_tensor **out);
/* torch.fft.fft2 / ifft2 / rfft2 / irfft2: the n-dim forms over two dims (s[2] or NULL, dim[2] or
 * NULL for (-2, -1)). */
CT_API ct_status ct_fft_fft2(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,
                             const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_ifft2(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,
                              const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_rfft2(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,
                              const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_irfft2(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,
                               const char *norm, ct_tensor **out);
/* torch.fft.hfft2 / ihfft2: hfftn / ihfftn over two dims (s[2] or NULL, dim[2] or NULL). */
CT_API ct_status ct_fft_hfft2(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,
                              const char *norm, ct_tensor **out);
CT_API ct_status ct_fft_ihfft2(ct_ctx *ctx, const ct_tensor *x, const int64_t *s, const int *dim,
                               const char *norm, ct_tensor **out);
/* torch.fft.fftfreq / rfftfreq: the sample frequencies of an n-point transform with sample
 * spacing d (f32 / f64 dtype). */
CT_API ct_status ct_fft_fftfreq(ct_ctx *ctx, int64_t n, double d, ct_dtype dtype, ct_tensor **out);
CT_API ct_status ct_fft_rfftfreq(ct_ctx *ctx, int64_t n, double d, ct_dtype dtype, ct_tensor **out);
/* torch.fft.fftshift / ifftshift: roll the zero frequency to the centre and back over n_dims dims
 * (dim NULL: every dim). Any dtype, complex included. */
CT_API ct_status ct_fft_fftshift(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int *dim,
                                 ct_tensor **out);
CT_API ct_status ct_fft_ifftshift(ct_ctx *ctx, const ct_tensor *x, int n_dims, const int *dim,
                                  ct_tensor **out);

/* torch.stft / istft options; zeroed = torch's defaults: hop_length n_fft / 4, win_length n_fft,
 * a window of ones, center with reflect padding, not normalized, onesided for real input and
 * window, no length (istft). */
typedef struct ct_stft_opts {
    int64_t hop_length;      /* 0: n_fft / 4 */
    int64_t win_length;      /* 0: n_fft */
    const ct_tensor *window; /* (win_length,), zero-padded to n_fft in the middle; NULL: ones;
                                complex (stft only): complex two-sided frames */
    bool no_center;          /* true: center=False (frames start at 0) */
    bool pad_mode_set;       /* false: "reflect"; true: pad_mode below */
    ct_pad_mode pad_mode;    /* center padding (CT_PAD_CONSTANT pads zeros) */
    bool normalized;         /* multiply by n_fft^-1/2 (istft: undo it) */
    int onesided;            /* 0: torch's default, 1: onesided, -1: two-sided */
    int64_t length;          /* istft: the output length (0: from the frames) */
} ct_stft_opts;

/* torch.stft(return_complex=True): x (L) or (B, L) real or complex -> (B?, n_fft / 2 + 1 or n_fft,
 * n_frames) complex: frames of n_fft samples every hop_length (after padding n_fft / 2 on each side
 * when centered), times the window, Fourier transformed. opts NULL: the defaults. */
CT_API ct_status ct_stft(ct_ctx *ctx, const ct_tensor *x, int64_t n_fft, const ct_stft_opts *opts,
                         ct_tensor **out);
/* torch.istft(return_complex=False): the real signal (B?, length) whose stft is X (B?, freq,
 * n_frames), by inverse transforms, windowed overlap-add and division by the summed squared
 * window (CT_ERR_INVALID_ARG where that is ~0, as torch's NOLA check); two-sided input keeps the
 * real part; a float64 window makes the result float64 (a complex window: CT_ERR_UNSUPPORTED). */
CT_API ct_status ct_istft(ct_ctx *ctx, const ct_tensor *X, int64_t n_fft, const ct_stft_opts *opts,
                          ct_tensor **out);

#ifdef __cplusplus
}
#endif
#endif

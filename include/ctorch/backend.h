/* ctorch devices, backends and streams.
 *
 * Every op is described by a ct_op_desc (kind, operands as raw pointers + shapes + strides, scalar
 * parameters) and handed to the stream of its device: an eager stream runs it at once through the
 * backend's run_op; a capturing stream (graph issue) records it. Backends built outside the library
 * register a ct_backend_vtable with ct_backend_register.
 * Ownership: ct_stream_create gives an owned stream (ct_stream_free); default streams belong to the
 * context. A registered vtable's `destroy` is called when the context is freed.
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_BACKEND_H
#define CTORCH_BACKEND_H

#include "ctorch/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Op kinds: the vocabulary a backend implements. Values are stable (append only). */
#define CT_OP_LIST(X)                                                                              \
    X(CT_OP_COPY) /* out = cast(in0), broadcasting strides */                                      \
    X(CT_OP_FILL) /* out = scalars[0] */                                                           \
    X(CT_OP_ADD)  /* out = in0 + scalars[0] * in1 */                                               \
    X(CT_OP_SUB)                                                                                   \
    X(CT_OP_MUL)                                                                                   \
    X(CT_OP_DIV)                                                                                   \
    X(CT_OP_NEG)                                                                                   \
    X(CT_OP_ABS)                                                                                   \
    X(CT_OP_EXP)                                                                                   \
    X(CT_OP_LOG)                                                                                   \
    X(CT_OP_SQRT)                                                                                  \
    X(CT_OP_RSQRT)                                                                                 \
    X(CT_OP_TANH)                                                                                  \
    X(CT_OP_SIGMOID)                                                                               \
    X(CT_OP_RELU)                                                                                  \
    X(CT_OP_GELU)  /* ints[0]: 0 = erf, 1 = tanh approximation */                                  \
    X(CT_OP_POW)   /* out = in0 ^ scalars[0] */                                                    \
    X(CT_OP_CLAMP) /* scalars[0] = min, scalars[1] = max; ints[0] bit0 has_min, bit1 has_max */    \
    X(CT_OP_WHERE) /* out = in0 (bool) ? in1 : in2 */                                              \
    X(CT_OP_EQ)                                                                                    \
    X(CT_OP_NE)                                                                                    \
    X(CT_OP_LT)                                                                                    \
    X(CT_OP_LE)                                                                                    \
    X(CT_OP_GT)                                                                                    \
    X(CT_OP_GE)                                                                                    \
    X(CT_OP_ADDCMUL) /* out = in0 + scalars[0] * in1 * in2 */                                      \
    X(CT_OP_ADDCDIV) /* out = fma(scalars[0], in1 / in2, in0) */                                   \
    X(CT_OP_SUM)     /* reductions: see ct_op_desc.reduce */                                       \
    X(CT_OP_MEAN)                                                                                  \
    X(CT_OP_AMAX)                                                                                  \
    X(CT_OP_AMIN)                                                                                  \
    X(CT_OP_ARGMAX)                                                                                \
    X(CT_OP_SOFTMAX)     /* along ints[0] */                                                       \
    X(CT_OP_LOG_SOFTMAX) /* along ints[0] */                                                       \
    X(CT_OP_MATMUL)      /* batched: out[b] = in0[b] @ in1[b]; shapes (B,M,K) (B,K,N) (B,M,N) */   \
    X(CT_OP_LAYER_NORM) /* in0 (R,C) in1 weight(C) or NULL, in2 bias(C) or NULL; scalars[0]=eps */ \
    X(CT_OP_EMBEDDING)  /* in0 weight (V,D), in1 indices (N) int32/int64, out (N,D) */             \
    X(CT_OP_RAND)       /* ints[0]=seed, ints[1]=offset, ints[2]: 0 uniform, 1 normal */           \
    X(CT_OP_ARANGE)     /* scalars[0]=start, scalars[1]=step */                                    \
    /* domain ops (linalg, mx): several outputs, layouts in docs/architecture.md */                \
    X(CT_OP_EIGH)          /* out w (B,n) [v (B,n,n)] [info (B) int32] in a (B,n,n) [work u8] */   \
    X(CT_OP_MX_QUANTIZE)   /* out codes (R,rowbytes) scales (R,nblk), in src (R,L) [work f32] */   \
    X(CT_OP_MX_DEQUANTIZE) /* out (R,L) f32, in codes (R,rowbytes) scales (R,nblk) */              \
    X(CT_OP_MX_LINEAR)     /* out y (M,N), in x (M,K), codes, scales, [bias (N)], work f32 */      \
    X(CT_OP_OPTIM_STEP) /* in place: out param, state f32, schedule f64 (11 hyper-parameters, step \
                           counts, mu_products, 6 more); in grad, [grad_scale], [found_inf] */     \
    X(CT_OP_LINSPACE)   /* 1-d out; scalars[0]=start, [1]=end (in the out dtype's values) */       \
    X(CT_OP_TRIL)       /* out = in0 (..., R, C) where col - row <= ints[0], else 0; ints[1]=1:    \
                           triu (col - row >= ints[0]) */                                          \
    X(CT_OP_GATHER)     /* out[i] = in0[i with dim ints[0] replaced by in1[i]]; in1 int32/64       \
                           of out's shape, in0 of out's ndim */                                    \
    X(CT_OP_SCATTER)    /* in place: out[i with dim ints[0] replaced by in0[i]] = in1[i]           \
                           (ints[1] = 1: +=); in0 int32/64 and in1 of one shape */                 \
    X(CT_OP_SORT)       /* stable sort of each row: out0 values (R,N), out1 int64 indices          \
                           (R,N), in0 (R,N), in1 int64 work (N); ints[0]=1: descending */          \
    /* more elementwise ops (docs/everyday.md): unary, out of in0's dtype unless noted */          \
    X(CT_OP_ERF)                                                                                   \
    X(CT_OP_ERFC)                                                                                  \
    X(CT_OP_SIN)                                                                                   \
    X(CT_OP_COS)                                                                                   \
    X(CT_OP_EXP2)                                                                                  \
    X(CT_OP_LOG2)                                                                                  \
    X(CT_OP_LOG1P)                                                                                 \
    X(CT_OP_EXPM1)                                                                                 \
    X(CT_OP_FLOOR)                                                                                 \
    X(CT_OP_CEIL)                                                                                  \
    X(CT_OP_ROUND) /* half to even */                                                              \
    X(CT_OP_TRUNC)                                                                                 \
    X(CT_OP_SIGN)                                                                                  \
    X(CT_OP_SILU)                                                                                  \
    X(CT_OP_SOFTPLUS) /* scalars[0] = beta, scalars[1] = threshold */                              \
    X(CT_OP_MISH)                                                                                  \
    X(CT_OP_LEAKY_RELU) /* scalars[0] = negative slope */                                          \
    X(CT_OP_ELU)        /* scalars[0] = alpha */                                                   \
    X(CT_OP_ISNAN)      /* bool out (the four below too) */                                        \
    X(CT_OP_ISINF)                                                                                 \
    X(CT_OP_ISFINITE)                                                                              \
    X(CT_OP_LOGICAL_NOT)                                                                           \
    X(CT_OP_BITWISE_NOT) /* integers and bool */                                                   \
    X(CT_OP_MAXIMUM)     /* binary; NaN propagates, max(-0, +0) = +0 (IEEE 754-2019) */            \
    X(CT_OP_MINIMUM)                                                                               \
    X(CT_OP_REMAINDER)   /* sign of the divisor (Python's %); integer division by zero fails */    \
    X(CT_OP_FMOD)        /* sign of the dividend (C's fmod / %) */                                 \
    X(CT_OP_LOGICAL_AND) /* bool out (three) */                                                    \
    X(CT_OP_LOGICAL_OR)                                                                            \
    X(CT_OP_LOGICAL_XOR)                                                                           \
    X(CT_OP_BITWISE_AND) /* integers and bool (three) */                                           \
    X(CT_OP_BITWISE_OR)                                                                            \
    X(CT_OP_BITWISE_XOR)                                                                           \
    X(CT_OP_BITWISE_LSHIFT) /* integers; a shift outside [0, bits) gives 0 */                      \
    X(CT_OP_BITWISE_RSHIFT) /* integers; a shift outside [0, bits) gives 0 or -1 (sign) */         \
    X(CT_OP_LERP)           /* in0 start, in1 end, [in2 weight]; 2 inputs: weight scalars[0] */    \
    X(CT_OP_PROD)   /* reduction (see ct_op_desc.reduce_mask); floats multiply in double */        \
    X(CT_OP_CUMSUM) /* scan along ints[0]: out (in's shape) = running sum (ints[1] = 1: product);  \
                       floats accumulate in double, integers in int64 (wrapping); ints[1] = 2:     \
                       cumprod's gradient, in0 x, in1 g (floats, out's layout) */                  \
    X(CT_OP_IM2COL) /* out cols (N, C*kh*kw, OH*OW), in img (N, C, H, W); ints[0..3] kernel,       \
                       stride, padding, dilation as (h | w << 32) */                               \
    X(CT_OP_COL2IM) /* out img (N, C, H, W) = sum of the patches of in cols; ints as IM2COL */     \
    X(CT_OP_TOPK)   /* out0 values (R,k), out1 int64 indices (R,k), in0 (R,N): the first k of      \
                       CT_OP_SORT's order; ints[0] = k, ints[1] = 1: descending (largest) */       \
    X(CT_OP_LINALG) /* dense factorisations, ints[0] = CT_LINALG_*: layouts in                     \
                       src/backends/cpu/linalg_cpu.c and docs/linalg.md */                         \
    X(CT_OP_SPARSE24_COMPRESS)   /* out values (M,K/2), meta u8 (M,ceil(K/8)), [scales f32 (M)],   \
                                    [first bad group int64 (1)]; in dense f32 (M,K), [scales f32   \
                                    (M)]; ints[0] = 1 prune, 0 strict, ints[1] values kind: 0 f32, \
                                    1 bf16, 2 e4m3, 3 e5m2 (FP8 as uint8; docs/sparse.md) */       \
    X(CT_OP_SPARSE24_DECOMPRESS) /* out dense f32 (M,K); in values, meta, [scales]; ints[1] */     \
    X(CT_OP_SPARSE24_MM)    /* out f32 (M,N); in values, meta, epilogue f32 (2,M) = multiplier and \
                               bias per row, B (K,N) any strides, u8 work of the plan's size;      \
                               ints[1] values kind, ints[2] B kind (as ints[1], 4 = f16) */        \
    X(CT_OP_FLEX_ATTENTION) /* out (B,Hq,L,Ev) contiguous, [lse f32 (B,Hq,L)]; in q (B,Hq,L,E),    \
                               k (B,Hkv,S,E), v (B,Hkv,S,Ev) any strides, [block mask int32],      \
                               mods int64 (8), u8 work; scalars[0] scale, ints[0] 1: no prefetch;  \
                               layouts in src/backends/cpu/kernels/attn_kernels.h */               \
    X(CT_OP_FLEX_ATTENTION_BWD) /* out dq, dk, dv contiguous in the compute dtype; in q, k, v,     \
                                   grad_out (B,Hq,L,Ev), lse and delta f32 (B,Hq,L), [block        \
                                   mask], mods, u8 work; scalars[0] scale */                       \
    X(CT_OP_DIV_TRUNC) /* binary; trunc(a / b), integers C's division; integer / 0 fails */        \
    X(CT_OP_DIV_FLOOR) /* binary; floor(a / b) as Python's // (torch's div_floor); int / 0 fails   \
                        */                                                                         \
    /* trigonometric and hyperbolic, log10, reciprocal: unary, floats (integers in float32) */     \
    X(CT_OP_TAN)                                                                                   \
    X(CT_OP_ATAN)                                                                                  \
    X(CT_OP_ASIN)                                                                                  \
    X(CT_OP_ACOS)                                                                                  \
    X(CT_OP_SINH)                                                                                  \
    X(CT_OP_COSH)                                                                                  \
    X(CT_OP_ASINH)                                                                                 \
    X(CT_OP_ACOSH)                                                                                 \
    X(CT_OP_ATANH)                                                                                 \
    X(CT_OP_LOG10)                                                                                 \
    X(CT_OP_RECIPROCAL)                                                                            \
    X(CT_OP_ATAN2) /* binary; atan2(a, b), integers in float32 */                                  \
    /* more everyday math (docs/everyday.md): binary in the compute dtype */                       \
    X(CT_OP_HYPOT)      /* floats */                                                               \
    X(CT_OP_LOGADDEXP)  /* floats; log(e^a + e^b) */                                               \
    X(CT_OP_LOGADDEXP2) /* floats; log2(2^a + 2^b) */                                              \
    X(CT_OP_XLOGY)      /* floats; a log(b), 0 where a == 0 (NaN b stays NaN) */                   \
    X(CT_OP_COPYSIGN)   /* floats */                                                               \
    X(CT_OP_FMAX)       /* any; NaN ignored */                                                     \
    X(CT_OP_FMIN)       /* any; NaN ignored */                                                     \
    X(CT_OP_HEAVISIDE)  /* any; b where a == 0, else a > 0 */                                      \
    X(CT_OP_POW_T)      /* floats and integers; a ^ b (tensor exponent) */                         \
    X(CT_OP_ISCLOSE)    /* any in, bool out; scalars[0] rtol, [1] atol, ints[0] bit 0 equal_nan */ \
    /* unary */                                                                                    \
    X(CT_OP_FRAC)       /* floats; x - trunc(x) */                                                 \
    X(CT_OP_LOGIT)      /* floats; scalars[0] eps (< 0: none) */                                   \
    X(CT_OP_SINC)       /* floats; sin(pi x) / (pi x) */                                           \
    X(CT_OP_NAN_TO_NUM) /* any; scalars[0..2] for NaN, +inf, -inf */                               \
    X(CT_OP_SIGNBIT)    /* any in, bool out */                                                     \
    /* special functions (docs/everyday.md): floats, rounded from a long double evaluation */      \
    X(CT_OP_LGAMMA)                                                                                \
    X(CT_OP_DIGAMMA)                                                                               \
    X(CT_OP_POLYGAMMA) /* ints[0] n >= 0 */                                                        \
    X(CT_OP_ERFINV)                                                                                \
    X(CT_OP_I0)                                                                                    \
    X(CT_OP_I0E)                                                                                   \
    X(CT_OP_I1)                                                                                    \
    X(CT_OP_I1E)                                                                                   \
    X(CT_OP_NDTR)                                                                                  \
    X(CT_OP_NDTRI)                                                                                 \
    X(CT_OP_LOG_NDTR)                                                                              \
    X(CT_OP_ERFCX)                                                                                 \
    X(CT_OP_ENTR)                                                                                  \
    X(CT_OP_XLOG1PY)   /* binary, floats; a log1p(b), 0 where a == 0 (NaN b stays NaN) */          \
    X(CT_OP_NEXTAFTER) /* binary, floats */                                                        \
    X(CT_OP_GCD)       /* binary, integers (torch's wrapping in the element type) */               \
    X(CT_OP_LCM)       /* binary, integers */                                                      \
    X(CT_OP_ZETA)      /* binary, floats: Hurwitz zeta(a, b) */                                    \
    X(CT_OP_IGAMMA)    /* binary, floats: regularized lower incomplete gamma P(a, b) */            \
    X(CT_OP_IGAMMAC)   /* binary, floats: Q(a, b) */                                               \
    X(CT_OP_BESSEL_J0)                                                                             \
    X(CT_OP_BESSEL_J1)                                                                             \
    X(CT_OP_BESSEL_Y0)                                                                             \
    X(CT_OP_BESSEL_Y1)                                                                             \
    X(CT_OP_BESSEL_K0)                                                                             \
    X(CT_OP_BESSEL_K1)                                                                             \
    X(CT_OP_BESSEL_K0E)                                                                            \
    X(CT_OP_BESSEL_K1E)                                                                            \
    X(CT_OP_SPHERICAL_J0)                                                                          \
    X(CT_OP_CHEBYSHEV_T) /* binary, floats: (x, n), n truncated to an integer (torch) */           \
    X(CT_OP_CHEBYSHEV_U)                                                                           \
    X(CT_OP_CHEBYSHEV_V)                                                                           \
    X(CT_OP_CHEBYSHEV_W)                                                                           \
    X(CT_OP_SHIFTED_CHEBYSHEV_T)                                                                   \
    X(CT_OP_SHIFTED_CHEBYSHEV_U)                                                                   \
    X(CT_OP_SHIFTED_CHEBYSHEV_V)                                                                   \
    X(CT_OP_SHIFTED_CHEBYSHEV_W)                                                                   \
    X(CT_OP_HERMITE_H)                                                                             \
    X(CT_OP_HERMITE_HE)                                                                            \
    X(CT_OP_LAGUERRE_L)                                                                            \
    X(CT_OP_LEGENDRE_P)                                                                            \
    X(CT_OP_AIRY_AI)                                                                               \
    X(CT_OP_FFT)     /* one 1-d DFT along a dim: layout below (CT_FFT_*) */                        \
    X(CT_OP_COMPLEX) /* complex elementwise, ints[0] = CT_CX_*: layout below */

/* CT_OP_LINALG routines (ints[0]). */
enum {
    CT_LINALG_CHOLESKY = 0,
    CT_LINALG_SOLVE,
    CT_LINALG_INV,
    CT_LINALG_SLOGDET,
    CT_LINALG_QR,  /* ints[1] 1: complete (Q m x m, R m x n) */
    CT_LINALG_SVD, /* ints[1] 1: full matrices (U m x m, Vh n x n) */
    /* appended with the second linear algebra set (layouts in src/backends/cpu/linalg_cpu.c) */
    CT_LINALG_TRSOLVE,    /* triangular solve (trsm); ints[1] bit0 upper, bit1 left, bit2 unit */
    CT_LINALG_LU_FACTOR,  /* getrf: LU, pivots int32, info int32 */
    CT_LINALG_LU_PERM,    /* getrf pivots -> permutation matrix P and row orders */
    CT_LINALG_SVDVALS,    /* gesdd, singular values only */
    CT_LINALG_LSTSQ,      /* gels / gelsy / gelsd / gelss: ints[1] driver, scalars[0] rcond */
    CT_LINALG_LDL_FACTOR, /* sytrf ('L'): LD, pivots int32, info int32 */
    CT_LINALG_LDL_SOLVE,  /* sytrs ('L') from LD and pivots */
    CT_LINALG_EIG,        /* geev: complex eigenvalues / eigenvectors as real views of pairs */
    CT_LINALG_EIGH_CX,    /* complex Hermitian (ints[2] = 1): heevd; ints[1] bit0 upper, bit1
                           * vectors; out0 w real (B,n), out1 V (B,n,n,2) or none, out2 info
                           * int32 (B); in0 A (B,n,n,2) */
    CT_LINALG_GEQRF       /* geqrf: out0 R and the reflectors (B,m,n), out1 tau (B,min(m,n)) */
};

/* Complex data in descriptors: kernels see real dtypes only. A complex operand is passed as the
 * real view of its real parts (the real dtype, strides in reals, i.e. twice the complex strides);
 * the imaginary part of each element is the next real. compute_dtype is the real dtype (f32/f64).
 *
 * CT_OP_FFT: out0, in0 of one ndim; ints[0] = CT_FFT_C2C / R2C / C2R (which operands are complex:
 * both / out / in), ints[1] = the transform dim, ints[2] = the exponent's sign (-1 forward, +1
 * backward), ints[3] = n, the transform length: in and out have n elements along the dim, except
 * r2c's out and c2r's in (n / 2 + 1). Every other dim of in and out is equal. out = scalars[0] *
 * sum_j in[j] exp(sign 2 pi i j k / n); c2r reads a Hermitian half (the imaginary parts of the
 * zero and, for even n, the n / 2 frequency are ignored) and writes the real result. */
enum { CT_FFT_C2C = 0, CT_FFT_R2C = 1, CT_FFT_C2R = 2 };
/* CT_OP_COMPLEX: out0 (complex unless noted) = f(in0[, in1]) elementwise with broadcast operands
 * (as the elementwise kinds); ints[1] bit i set: input i is real (a plain real operand). */
enum {
    CT_CX_ADD = 0, /* a + scalars[0] * b */
    CT_CX_SUB,     /* a - scalars[0] * b */
    CT_CX_MUL,
    CT_CX_DIV, /* torch's formula, scaled by max(|c|, |d|) against overflow */
    CT_CX_NEG,
    CT_CX_CONJ,
    CT_CX_ABS,     /* out real: hypot(re, im) */
    CT_CX_ANGLE,   /* out real: atan2(im, re) */
    CT_CX_COMPLEX, /* two real inputs: re + i im */
    CT_CX_POLAR,   /* two real inputs: abs (cos angle + i sin angle) */
    CT_CX_EXP,
    CT_CX_LOG,
    CT_CX_SQRT,
    CT_CX_RECIPROCAL,
    CT_CX_EQ, /* out bool: a == b (both parts) */
    CT_CX_NE,
    CT_CX_SGN,   /* z / |z|, 0 at 0 */
    CT_CX_ISNAN, /* out bool */
    CT_CX_ISFINITE,
    CT_CX_SIN, /* C99's csin .. catanh (the platform's libm) */
    CT_CX_COS,
    CT_CX_TAN,
    CT_CX_SINH,
    CT_CX_COSH,
    CT_CX_TANH,
    CT_CX_ASIN,
    CT_CX_ACOS,
    CT_CX_ATAN,
    CT_CX_ASINH,
    CT_CX_ACOSH,
    CT_CX_ATANH,
    CT_CX_LOG10,   /* log(z) / log(10), both parts divided */
    CT_CX_LOG2,    /* log(z) / log(2), both parts divided */
    CT_CX_RSQRT,   /* the reciprocal (as CT_CX_RECIPROCAL) of sqrt(z) */
    CT_CX_SIGMOID, /* the reciprocal of 1 + exp(-z) */
    CT_CX_SINC,    /* sin(pi z) / (pi z) (Smith's division), 1 at 0 */
    CT_CX_POW,     /* two inputs: cpow(a, b) (C99, as torch's std::pow) */
    CT_CX_COUNT
};

typedef enum ct_op_kind {
#define CT__OP_ENUM(name) name,
    CT_OP_LIST(CT__OP_ENUM)
#undef CT__OP_ENUM
        CT_OP_COUNT
} ct_op_kind;

/* Name of an op kind ("add"), "invalid" for bad values. */
CT_API const char *ct_op_name(ct_op_kind kind);

#define CT_OP_MAX_OPERANDS 12

/* One operand of an op: a strided view of device memory. */
typedef struct ct_operand {
    void *data; /* device address of the first element (offset applied); NULL = absent */
    ct_dtype dtype;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS]; /* in elements */
    ct_tensor *tensor;            /* the tensor this operand came from (not retained) */
} ct_operand;

/* Fully resolved op. Elementwise ops: every operand has the output's ndim and shape (inputs are
 * broadcast with stride 0). Reductions: inputs keep their shape; `reduce_mask` bit d set means dim
 * d is reduced and the output has the input's ndim with size 1 there (keepdim layout).
 * Domain ops (EIGH, MX_*): several outputs (EIGH 3, MX_QUANTIZE 2), contiguous operands, optional
 * ones absent with data NULL, workspaces passed as operands; layouts and ints[] in
 * docs/architecture.md ("Domain ops"). MX scales travel as uint8 (the e8m0 bytes). */
typedef struct ct_op_desc {
    ct_op_kind kind;
    int n_out; /* operands[0 .. n_out-1] are outputs */
    int n_in;  /* operands[n_out .. n_out+n_in-1] are inputs */
    ct_operand operands[CT_OP_MAX_OPERANDS];
    ct_dtype compute_dtype; /* dtype the math runs in */
    double scalars[4];
    int64_t ints[4];
    uint32_t reduce_mask;
    int num_threads; /* threads the kernel may use (>= 1) */
} ct_op_desc;

#define CT_BACKEND_ABI_VERSION 3u /* 2: six operands, eigh and mx op kinds; 3: twelve operands */

/* A backend's function table. Set size = sizeof(ct_backend_vtable) and abi_version. */
typedef struct ct_backend_vtable {
    size_t size;
    uint32_t abi_version;
    const char *name; /* "cpu", "mydev" */
    void *state;      /* passed to every call */
    ct_status (*alloc)(void *state, size_t nbytes, void **ptr);
    void (*free)(void *state, void *ptr);
    /* Copy nbytes; kind 0 host->device, 1 device->host, 2 device->device. */
    ct_status (*copy)(void *state, void *dst, const void *src, size_t nbytes, int kind);
    /* Run one op now (operands live on this device). */
    ct_status (*run_op)(void *state, const ct_op_desc *op);
    ct_status (*synchronize)(void *state);
    void (*destroy)(void *state); /* may be NULL */
    const void *graph_impl;       /* graph implementation or NULL */
    /* The device's caching allocator (ctorch/memory.h: ct_caching_allocator_create over the
     * device's segment calls), so that ct_memory_stats / summary / snapshot / ct_empty_cache
     * reach it; NULL: the device has none. Owned by the backend (its destroy frees it). */
    struct ct_caching_allocator *caching_allocator;
} ct_backend_vtable;

/* Register a backend on this context; on success *device_type receives its new device type
 * (>= CT_DEVICE_USER_BASE). The table is copied. CT_ERR_UNSUPPORTED on an ABI version mismatch. */
CT_API ct_status ct_backend_register(ct_ctx *ctx, const ct_backend_vtable *vtable,
                                     int *device_type);
/* Load a backend from a shared library exporting
 * `ct_status ctorch_backend_init(ct_ctx *ctx, int *device_type)` and call it. */
CT_API ct_status ct_backend_load(ct_ctx *ctx, const char *path, int *device_type);
/* Find a registered backend by name; CT_ERR_INVALID_ARG if none. */
CT_API ct_status ct_backend_find(ct_ctx *ctx, const char *name, int *device_type);
/* Number of registered backends (0 for NULL). */
CT_API int ct_backend_count(const ct_ctx *ctx);
/* Name of the i-th registered backend (for `ctorch info`); NULL for a NULL ctx or i out of range.
 */
CT_API const char *ct_backend_name(const ct_ctx *ctx, int i);
/* Longest name ct_device_format writes, with its NUL. */
#define CT_DEVICE_NAME_MAX 48
/* Write a device's name into buf and return buf: "cpu:0", "cuda:0", "<backend name>:<index>" for a
 * registered out-of-tree device, "device<type>:<index>" otherwise (ctx may be NULL; "" if buf is
 * NULL or size is 0). The form every error message uses. */
CT_API const char *ct_device_format(const ct_ctx *ctx, ct_device dev, char *buf, size_t size);

/* ---- streams ---- */
typedef struct ct_stream ct_stream;
/* The context's default stream of a device (owned by the context). */
CT_API ct_status ct_ctx_default_stream(ct_ctx *ctx, ct_device device, ct_stream **out);
/* Make `s` the stream ops on its device are submitted to (NULL restores the default). */
CT_API ct_status ct_ctx_set_stream(ct_ctx *ctx, ct_device device, ct_stream *s);
/* A new stream on device (owned by the caller). */
CT_API ct_status ct_stream_create(ct_ctx *ctx, ct_device device, ct_stream **out);
/* Free a stream created with ct_stream_create (NULL and the context's default streams: no-op). */
CT_API void ct_stream_free(ct_stream *s);
/* Device of the stream; {-1, -1} for NULL. */
CT_API ct_device ct_stream_device(const ct_stream *s);
/* Wait until all work submitted to the stream has finished (CPU: work is eager, returns at once).
 */
CT_API ct_status ct_stream_synchronize(ct_stream *s);
/* Submit a resolved op to a stream (what every op front end does; backends and tests may use it).
 * The descriptor is validated here, at the public entry (the front ends use an unchecked internal
 * path): op kind, 1 output and the kind's input count, compute dtype, num_threads in
 * 1..CT_MAX_THREADS, and per operand a live tensor of the stream's context and device, a compute
 * dtype, 0..CT_MAX_DIMS dims, sizes >= 0 and every addressed element inside the tensor's storage;
 * then the family's shape / dtype rules (elementwise, reduction, softmax, matmul, layer_norm,
 * embedding, rand, arange). A bad descriptor fails with CT_ERR_INVALID_ARG / SHAPE / DTYPE /
 * DEVICE / OVERFLOW naming the operand; s == NULL or op == NULL: CT_ERR_INVALID_ARG. */
CT_API ct_status ct_stream_submit(ct_stream *s, const ct_op_desc *op);

#ifdef __cplusplus
}
#endif
#endif

/* The autograd tape hook as the lower layers see it. The autograd layer (src/autograd/) installs
 * a ct__ag_hooks table on a context the first time a tensor is marked requires_grad; until then
 * every op pays one predictable branch (ctx->ag == NULL). Op front ends (ops/, tensor/ views) wrap
 * their body in ct__ag_enter / ct__ag_leave: ops nested inside another op (a cast inside add, a
 * clone inside reshape) run at depth > 0 and record nothing, so one public call is one tape node.
 */
#ifndef CTORCH_AUTOGRAD_HOOK_H
#define CTORCH_AUTOGRAD_HOOK_H

#include "core/ctx_impl.h"

#include <string.h>

/* Differentiable op ids; src/autograd/ keeps the table of backward formulas indexed by them. */
typedef enum ct__ag_op {
    CT__AG_NONE = 0,
    CT__AG_ADD, /* a + alpha*b; sc[0] = alpha */
    CT__AG_SUB, /* a - alpha*b; sc[0] = alpha */
    CT__AG_MUL,
    CT__AG_DIV,
    CT__AG_ADD_S, /* a + v; sc[0] = v (same for the three below) */
    CT__AG_SUB_S,
    CT__AG_MUL_S,
    CT__AG_DIV_S,
    CT__AG_NEG,
    CT__AG_ABS,
    CT__AG_EXP,
    CT__AG_LOG,
    CT__AG_SQRT,
    CT__AG_RSQRT,
    CT__AG_TANH,
    CT__AG_SIGMOID,
    CT__AG_RELU,
    CT__AG_GELU,    /* iv[0] = approx */
    CT__AG_POW,     /* sc[0] = exponent */
    CT__AG_CLAMP,   /* sc[0] lo, sc[1] hi, iv[0] bit0 has lo, bit1 has hi */
    CT__AG_WHERE,   /* inputs cond, a, b */
    CT__AG_ADDCMUL, /* inputs self, t1, t2; sc[0] = value */
    CT__AG_ADDCDIV,
    CT__AG_CAST,
    CT__AG_SUM,         /* iv[0] keepdim, iv[1] n_dims, iv[2..] dims */
    CT__AG_MEAN,        /* as sum */
    CT__AG_AMAX,        /* as sum */
    CT__AG_AMIN,        /* as sum */
    CT__AG_SOFTMAX,     /* iv[0] dim */
    CT__AG_LOG_SOFTMAX, /* iv[0] dim */
    CT__AG_LAYER_NORM,  /* inputs a, weight, bias (may be NULL); iv[0] n_norm, sc[0] eps */
    CT__AG_MATMUL,      /* iv[0] 1: recorded by bmm (only its printed grad_fn name differs) */
    CT__AG_EMBEDDING,   /* inputs weight, indices */
    CT__AG_VIEW,        /* view / reshape / squeeze / unsqueeze: backward reshapes to the input;
                           iv[0] the call (ct__ag_view_kind), for the printed grad_fn name */
    CT__AG_PERMUTE,     /* iv[0..ndim) perm */
    CT__AG_TRANSPOSE,   /* iv[0], iv[1] dims */
    CT__AG_SLICE,       /* iv[0] dim, iv[1] start, iv[2] end, iv[3] step */
    CT__AG_EXPAND,
    CT__AG_IDENTITY,       /* clone / contiguous copy */
    CT__AG_SLICE_BACKWARD, /* zeros(input shape) with g written into a slice: autograd-internal */
    CT__AG_FLIP,           /* iv[0] n, iv[1..n] dims */
    CT__AG_ROLL,           /* iv[0] n, iv[1..n] shifts, iv[n+1..2n] dims */
    CT__AG_TRIL,           /* iv[0] diagonal, iv[1] 1: triu */
    CT__AG_GATHER,         /* inputs t, index; iv[0] dim */
    CT__AG_INDEX_SELECT,   /* inputs t, index; iv[0] dim */
    CT__AG_ERF,
    CT__AG_ERFC,
    CT__AG_SIN,
    CT__AG_COS,
    CT__AG_EXP2,
    CT__AG_LOG2,
    CT__AG_LOG1P,
    CT__AG_EXPM1,
    CT__AG_ZERO, /* floor, ceil, round, trunc, sign, div with rounding: zero gradients (torch) */
    CT__AG_SILU,
    CT__AG_SOFTPLUS, /* sc[0] beta, sc[1] threshold */
    CT__AG_MISH,
    CT__AG_LEAKY_RELU, /* sc[0] slope */
    CT__AG_ELU,        /* sc[0] alpha */
    CT__AG_HARDTANH,   /* sc[0] min, sc[1] max */
    CT__AG_MAXIMUM,
    CT__AG_MINIMUM,
    CT__AG_REMAINDER,
    CT__AG_FMOD,
    CT__AG_LERP,   /* inputs start, end, weight */
    CT__AG_LERP_S, /* inputs start, end; sc[0] weight */
    CT__AG_CUMSUM, /* iv[0] dim */
    CT__AG_UNFOLD, /* iv[0..7] kernel h w, dilation h w, padding h w, stride h w; iv[8..9] H, W */
    CT__AG_FOLD,   /* iv[0..7] as unfold */
    CT__AG_LINALG_INV,
    CT__AG_LINALG_DET,
    CT__AG_LINALG_SOLVE,    /* inputs A, B; iv[0] 1: B was a vector */
    CT__AG_LINALG_CHOLESKY, /* iv[0] upper */
    CT__AG_PROD,            /* iv[0] dim (CT_ALL_DIMS: all), iv[1] keepdim */
    CT__AG_CAT,             /* up to 4 inputs; iv[0] dim, iv[1 + i] size of input i (-1 skipped) */
    CT__AG_REPEAT,          /* iv[0] n, iv[1..n] repeats */
    CT__AG_SCATTER_ADD,     /* inputs self, index, src; iv[0] dim */
    CT__AG_INDEX_ADD,       /* inputs self, index, source; iv[0] dim, sc[0] alpha */
    CT__AG_SCATTER,         /* inputs self, index, src; iv[0] dim */
    CT__AG_CUMPROD,         /* iv[0] dim */
    CT__AG_LINALG_SLOGDET,  /* the log|det| output */
    CT__AG_SPARSE24_MM,     /* inputs A dense (M,K, no grad), B (K,N), bias (M) or NULL; sc[0] =
                               alpha * b_scale */
    CT__AG_SPARSE24_LINEAR, /* inputs W dense (O,I, no grad), x (..., I), b (O) or NULL */
    CT__AG_LINALG_QR,       /* outputs Q, R (reduced) */
    CT__AG_LINALG_SVD,      /* outputs U, S, Vh (reduced) */
    CT__AG_LINALG_EIGH,     /* outputs eigenvalues, eigenvectors */
    CT__AG_LINALG_EIG,      /* outputs complex eigenvalues, eigenvectors (linalg.eig) */
    CT__AG_FLEX_ATTENTION,  /* inputs q, k, v, block table or NULL; outputs out, lse; sc[0] scale,
                               iv[0..4] score_mod, score_user, score_mod_grad, block mask, gqa */
    CT__AG_TAN,
    CT__AG_ATAN,
    CT__AG_ASIN,
    CT__AG_ACOS,
    CT__AG_SINH,
    CT__AG_COSH,
    CT__AG_ASINH,
    CT__AG_ACOSH,
    CT__AG_ATANH,
    CT__AG_LOG10,
    CT__AG_RECIPROCAL,
    CT__AG_ATAN2,
    CT__AG_HYPOT,
    CT__AG_LOGADDEXP,
    CT__AG_LOGADDEXP2,
    CT__AG_XLOGY,
    CT__AG_COPYSIGN,
    CT__AG_FMAX,
    CT__AG_FMIN,
    CT__AG_NOT_IMPLEMENTED, /* torch has no derivative: backward fails (heaviside) */
    CT__AG_POW_T,           /* tensor exponent: PowBackward1 */
    CT__AG_FRAC,
    CT__AG_LOGIT, /* sc[0] eps (< 0: none) */
    CT__AG_SINC,
    CT__AG_NAN_TO_NUM,
    CT__AG_LGAMMA,
    CT__AG_DIGAMMA,
    CT__AG_POLYGAMMA, /* sc[0] n */
    CT__AG_ERFINV,
    CT__AG_I0,
    CT__AG_I0E,
    CT__AG_I1,
    CT__AG_I1E,
    CT__AG_NDTR, /* torch's composite: the node prints MulBackward1 */
    CT__AG_NDTRI,
    CT__AG_LOG_NDTR,
    CT__AG_ERFCX,
    CT__AG_ENTR,
    CT__AG_XLOG1PY,
    CT__AG_NEXTAFTER, /* torch's formula is not_implemented: backward fails */
    CT__AG_ZETA,      /* d/dx not implemented (as torch): backward fails when it is needed */
    CT__AG_IGAMMA,    /* d/da likewise */
    CT__AG_IGAMMAC,
    CT__AG_BESSEL_J0,
    CT__AG_BESSEL_J1,
    CT__AG_BESSEL_Y0,
    CT__AG_BESSEL_Y1,
    CT__AG_BESSEL_K0,
    CT__AG_BESSEL_K1,
    CT__AG_BESSEL_K0E,
    CT__AG_BESSEL_K1E,
    CT__AG_SPHERICAL_J0,
    CT__AG_CUSTOM,                  /* a backward function of a higher layer (ct__ag_custom) */
    CT__AG_LINALG_SOLVE_TRIANGULAR, /* inputs A, B (equal batch dims); iv[0] upper, iv[1] left,
                                       iv[2] unitriangular */
    CT__AG_LINALG_LU_FACTOR,        /* inputs A, pivots (the op's own int32 output, saved for the
                                       backward; never requires grad); output LU */
    CT__AG_CHOLESKY_SOLVE,          /* inputs B, L (equal batch dims); iv[0] upper */
    CT__AG_LINALG_LSTSQ,            /* inputs A, B (equal batch dims); iv[0] 1: B was a vector */
    CT__AG_CHEBYSHEV_T,
    CT__AG_CHEBYSHEV_U,
    CT__AG_CHEBYSHEV_V,
    CT__AG_CHEBYSHEV_W,
    CT__AG_SHIFTED_CHEBYSHEV_T,
    CT__AG_SHIFTED_CHEBYSHEV_U,
    CT__AG_SHIFTED_CHEBYSHEV_V,
    CT__AG_SHIFTED_CHEBYSHEV_W,
    CT__AG_HERMITE_H,
    CT__AG_HERMITE_HE,
    CT__AG_LAGUERRE_L,
    CT__AG_LEGENDRE_P,
    CT__AG_AIRY_AI,
    CT__AG_USERFN, /* ct_autograd_function_apply: a ct__ag_custom record whose node saves its
                      outputs and hands them to the user's backward (autograd/autodiff.c) */
    CT__AG_COUNT
} ct__ag_op;

/* CT__AG_VIEW's iv[0]: the call that made the view (only the printed grad_fn name differs) */
typedef enum ct__ag_view_kind {
    CT__AG_VIEW_VIEW,
    CT__AG_VIEW_RESHAPE,      /* reshape that could view */
    CT__AG_VIEW_RESHAPE_COPY, /* reshape that had to copy */
    CT__AG_VIEW_SQUEEZE_DIM,
    CT__AG_VIEW_SQUEEZE_ALL,
    CT__AG_VIEW_UNSQUEEZE,
    CT__AG_VIEW_KINDS
} ct__ag_view_kind;

#define CT__AG_MAX_IN 4
#define CT__AG_MAX_OUT 3
#define CT__AG_MAX_IV 20

/* The backward of an op a layer above autograd defines (the differentiable collectives of
 * dist/): from the output gradients gout (zeros where none arrived) it writes owned gradients of
 * the inputs into gin (NULL where need[i] is false or the gradient is zero). Runs with grad mode
 * on only under create_graph, so a backward written with differentiable calls records itself. */
typedef struct ct__ag_custom {
    const char *name; /* "AllReduceBackward" */
    ct_status (*backward)(ct_ctx *ctx, void *user, struct ct_tensor *const *gout, const bool *need,
                          struct ct_tensor **gin);
    void (*free_user)(void *user); /* may be NULL */
    bool saves; /* the user data keeps tensors: a second backward without retain_graph fails, as
                   through any node that saved tensors */
} ct__ag_custom;

/* One op's record: its inputs (NULL for an absent optional input), outputs and parameters.
 * CT__AG_CUSTOM records pass custom + custom_user; the record takes ownership of custom_user
 * (freed with the node, or at once when nothing is recorded). */
typedef struct ct__ag_rec {
    int op;
    int n_in, n_out;
    const struct ct_tensor *in[CT__AG_MAX_IN];
    struct ct_tensor *out[CT__AG_MAX_OUT];
    double sc[4];
    int n_iv;
    int64_t iv[CT__AG_MAX_IV];
    const ct__ag_custom *custom;
    void *custom_user;
    /* The printed grad_fn name, torch's with its overload number ("FloorBackward0"), where it is
     * not the formula's; NULL: the formula's (ct__ag_grad_fn_name). Printing only. */
    const char *name;
} ct__ag_rec;

/* An in-place op under autograd (ct_add_ ..., ct_tensor_copy_): out = fn(ctx, self, arg) is the
 * out-of-place op (a recording front end, result broadcast to dst's shape); its value is written
 * into dst and dst's history becomes its node, printed as `name` ("AddBackward0"; NULL: the node's
 * own name). keep_old: the
 * op saves self for its backward, which then gets a copy of dst's old value (with dst's history)
 * instead of dst, whose storage the write changes. */
typedef ct_status (*ct__ag_inplace_fn)(ct_ctx *ctx, const struct ct_tensor *self, const void *arg,
                                       struct ct_tensor **out);
typedef struct ct__ag_inplace_w {
    const char *op; /* "add_", for messages */
    struct ct_tensor *dst;
    const struct ct_tensor *src; /* may be NULL */
    bool keep_old;
    ct__ag_inplace_fn fn; /* NULL: copy_ (dst = src broadcast and cast; CopyBackwards) */
    const void *arg;
    const char *name;
    /* writes r's value into dst (NULL: copy_ with grad mode off); fill_ writes its value so an
     * expanded dst works */
    ct_status (*write)(ct_ctx *ctx, struct ct_tensor *dst, const struct ct_tensor *r,
                       const void *arg);
} ct__ag_inplace_w;

struct ct__ag_hooks {
    /* Record a tape node when an input requires grad; on failure *out is released by the caller. */
    ct_status (*record)(ct_ctx *ctx, const ct__ag_rec *r);
    /* Free a tensor's autograd metadata (ct_tensor_release, before the header goes). */
    void (*free_meta)(struct ct_tensor *t);
    /* An in-place write into dst (src may be NULL) with grad mode on and dst or src requiring
     * grad: see ct__ag_inplace (tensor/ag_front.h). */
    ct_status (*inplace)(ct_ctx *ctx, const struct ct__ag_inplace_w *w);
    /* Print t's grad_fn as `name` (torch's, with its overload number) when that node was recorded
     * after the tape position mark (ct__ag_mark); printing only, the backward is unchanged. */
    void (*name)(struct ct_tensor *t, uint64_t mark, const char *name);
};

/* True when autograd is in use on ctx: the caller must then call ct__ag_leave. */
static inline bool ct__ag_enter(ct_ctx *ctx) {
    if (__builtin_expect(ctx == NULL || ctx->ag == NULL, 1)) return false;
    ctx->ag_depth++;
    return true;
}
/* Undo ct__ag_enter; true when this call is the outermost one and grad mode is on (record). */
static inline bool ct__ag_leave(ct_ctx *ctx) { return --ctx->ag_depth == 0 && !ctx->grad_off; }

/* Record *out = f(ins[0..n)), n <= CT__AG_MAX_IN inputs (NULL entries absent) and one output, with
 * a higher layer's backward fn and its user data (taken in every case). On failure the record has
 * released *out: it is set to NULL. */
static inline ct_status ct__ag_record_custom_n(ct_ctx *ctx, const ct__ag_custom *fn, void *user,
                                               int n, const struct ct_tensor *const *ins,
                                               struct ct_tensor **out) {
    ct__ag_rec r;
    memset(&r, 0, sizeof r);
    r.op = CT__AG_CUSTOM;
    r.n_in = n;
    for (int i = 0; i < n; i++)
        r.in[i] = ins[i];
    r.n_out = 1;
    r.out[0] = *out;
    r.custom = fn;
    r.custom_user = user;
    ct_status st = ctx->ag->record(ctx, &r);
    if (st != CT_OK) *out = NULL;
    return st;
}
/* ct__ag_record_custom_n with the one input in. */
static inline ct_status ct__ag_record_custom(ct_ctx *ctx, const ct__ag_custom *fn, void *user,
                                             const struct ct_tensor *in, struct ct_tensor **out) {
    return ct__ag_record_custom_n(ctx, fn, user, 1, &in, out);
}

#endif

/* Test helpers shared by tests/test_*.c: random tensors (contiguous or strided views), reading any
 * tensor back as doubles through the raw bytes (independent of the library's cast kernels). */
#ifndef CTORCH_TEST_UTIL_H
#define CTORCH_TEST_UTIL_H

#include "ctorch/ctorch.h"
#include "harness.h"

#include <stdint.h>

/* Element of a raw buffer as double. */
static inline double tu_get(const void *buf, ct_dtype dt, int64_t i) {
    switch (dt) {
    case CT_BOOL: return ((const uint8_t *)buf)[i] ? 1 : 0;
    case CT_UINT8: return ((const uint8_t *)buf)[i];
    case CT_INT8: return ((const int8_t *)buf)[i];
    case CT_INT16: return ((const int16_t *)buf)[i];
    case CT_INT32: return ((const int32_t *)buf)[i];
    case CT_INT64: return (double)((const int64_t *)buf)[i];
    case CT_FLOAT16: return ct_f16_to_f32(((const uint16_t *)buf)[i]);
    case CT_BFLOAT16: return ct_bf16_to_f32(((const uint16_t *)buf)[i]);
    case CT_FLOAT32: return ((const float *)buf)[i];
    case CT_FLOAT64: return ((const double *)buf)[i];
    default: return NAN;
    }
}
static inline void tu_set(void *buf, ct_dtype dt, int64_t i, double v) {
    switch (dt) {
    case CT_BOOL: ((uint8_t *)buf)[i] = v != 0; break;
    case CT_UINT8: ((uint8_t *)buf)[i] = (uint8_t)(int64_t)v; break;
    case CT_INT8: ((int8_t *)buf)[i] = (int8_t)(int64_t)v; break;
    case CT_INT16: ((int16_t *)buf)[i] = (int16_t)(int64_t)v; break;
    case CT_INT32: ((int32_t *)buf)[i] = (int32_t)(int64_t)v; break;
    case CT_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case CT_FLOAT16: ((uint16_t *)buf)[i] = ct_f32_to_f16((float)v); break;
    case CT_BFLOAT16: ((uint16_t *)buf)[i] = ct_f32_to_bf16((float)v); break;
    case CT_FLOAT32: ((float *)buf)[i] = (float)v; break;
    case CT_FLOAT64: ((double *)buf)[i] = v; break;
    default: break;
    }
}

/* Read a tensor (any strides) into a malloc'd double array in C order. */
/* A tensor of dtype dt and `shape` holding v (converted through the raw bytes). */
static inline ct_tensor *tu_from_vals(ct_ctx *ctx, ct_dtype dt, int nd, const int64_t *shape,
                                      const double *v) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    void *buf = malloc((size_t)(n + 1) * 8);
    for (int64_t i = 0; i < n; i++)
        tu_set(buf, dt, i, v[i]);
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, buf, dt, nd, shape, &t) != CT_OK) t = NULL;
    free(buf);
    return t;
}
static inline double *tu_read(const ct_tensor *t) {
    int64_t n = ct_tensor_numel(t);
    size_t isz = ct_dtype_size(ct_tensor_dtype(t));
    void *raw = malloc((size_t)(n ? n : 1) * isz);
    double *out = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (ct_tensor_to_host(t, raw, (size_t)n * isz) != CT_OK) {
        free(raw);
        free(out);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = tu_get(raw, ct_tensor_dtype(t), i);
    free(raw);
    return out;
}

/* A tensor of dtype dt holding v; complex dtypes take v as (re, im) pairs. */
static inline ct_tensor *tu_from_vals_cx(ct_ctx *ctx, ct_dtype dt, int nd, const int64_t *shape,
                                         const double *v) {
    if (!ct_dtype_is_complex(dt)) return tu_from_vals(ctx, dt, nd, shape, v);
    int64_t m = 2;
    for (int i = 0; i < nd; i++)
        m *= shape[i];
    void *buf = malloc(8 * (size_t)(m + 1));
    for (int64_t i = 0; i < m; i++) {
        if (dt == CT_COMPLEX64)
            ((float *)buf)[i] = (float)v[i];
        else
            ((double *)buf)[i] = v[i];
    }
    ct_tensor *t = NULL;
    if (ct_tensor_from_host(ctx, buf, dt, nd, shape, &t) != CT_OK) t = NULL;
    free(buf);
    return t;
}
/* Read a tensor as doubles in C order; complex dtypes as (re, im) pairs. */
static inline double *tu_read_cx(const ct_tensor *t) {
    const ct_dtype dt = ct_tensor_dtype(t);
    const int64_t n = ct_tensor_numel(t);
    if (!ct_dtype_is_complex(dt)) return tu_read(t);
    double *out = malloc(sizeof(double) * (size_t)(2 * n + 1));
    bool ok;
    if (dt == CT_COMPLEX128) {
        ok = ct_tensor_to_host(t, out, sizeof(double) * 2 * (size_t)n) == CT_OK;
    } else {
        float *f = malloc(sizeof(float) * (size_t)(2 * n + 1));
        ok = ct_tensor_to_host(t, f, sizeof(float) * 2 * (size_t)n) == CT_OK;
        for (int64_t i = 0; ok && i < 2 * n; i++)
            out[i] = f[i];
        free(f);
    }
    if (!ok) free(out);
    return ok ? out : NULL;
}

/* The whole file at path in a malloc'd (64-byte aligned, free()-able) buffer, its size in *n; NULL
 * when it cannot be read. */
static inline unsigned char *tu_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = len >= 0 ? aligned_alloc(64, ((size_t)len + 64) / 64 * 64) : NULL;
    if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *n = b ? (size_t)len : 0;
    return b;
}

/* A random value suited to dtype in [lo, hi] (integers rounded). */
static inline double tu_rand_val(unsigned long long *rng, ct_dtype dt, double lo, double hi) {
    double v = lo + (hi - lo) * ct_t_uniform(rng);
    if (dt == CT_BOOL) return ct_t_uniform(rng) < 0.5;
    if (dt <= CT_INT64) {
        v = floor(v);
        if (dt == CT_UINT8 && v < 0) v = -v;
    }
    return v;
}

/* mode 0: contiguous; 1: a transposed view of the last two dims; 2: a step-2 slice of the last
 * dim. Values uniform in [lo, hi]. The tensor's values are returned in *vals (C order). */
static inline ct_tensor *tu_make(ct_ctx *ctx, unsigned long long *rng, ct_dtype dt, int nd,
                                 const int64_t *shape, int mode, double lo, double hi,
                                 double **vals) {
    if (vals) *vals = NULL;
    int64_t bshape[CT_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        bshape[i] = shape[i];
    if (mode == 1 && nd >= 2) {
        bshape[nd - 1] = shape[nd - 2];
        bshape[nd - 2] = shape[nd - 1];
    } else if (mode == 2 && nd >= 1) {
        bshape[nd - 1] = shape[nd - 1] * 2;
    } else {
        mode = 0;
    }
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= bshape[i];
    void *buf = malloc((size_t)(n ? n : 1) * 8);
    for (int64_t i = 0; i < n; i++)
        tu_set(buf, dt, i, tu_rand_val(rng, dt, lo, hi));
    ct_tensor *base = NULL, *t = NULL;
    if (ct_tensor_from_host(ctx, buf, dt, nd, bshape, &base) != CT_OK) {
        free(buf);
        return NULL;
    }
    free(buf);
    if (mode == 1)
        ct_tensor_transpose(ctx, base, nd - 2, nd - 1, &t);
    else if (mode == 2)
        ct_tensor_slice(ctx, base, nd - 1, 1, INT64_MAX, 2, &t);
    else
        t = ct_tensor_retain(base);
    ct_tensor_release(base);
    if (vals) *vals = tu_read(t);
    return t;
}

/* Linear C-order index into an input of shape (ind, ishape) for an output multi-index (broadcast).
 */
static inline int64_t tu_bcast_index(int ond, const int64_t *oshape, int64_t oi, int ind,
                                     const int64_t *ishape) {
    int64_t idx[CT_MAX_DIMS];
    for (int d = ond - 1; d >= 0; d--) {
        idx[d] = oshape[d] ? oi % oshape[d] : 0;
        oi = oshape[d] ? oi / oshape[d] : 0;
    }
    int64_t li = 0;
    for (int j = 0; j < ind; j++) {
        int d = j + ond - ind;
        li = li * ishape[j] + (ishape[j] == 1 ? 0 : idx[d]);
    }
    return li;
}

/* Every compute dtype, for the tests that sweep them. */
static const ct_dtype TU_ALL_DTYPES[] = {CT_BOOL,  CT_UINT8,   CT_INT8,     CT_INT16,   CT_INT32,
                                         CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};
#define TU_NALL ((int)(sizeof TU_ALL_DTYPES / sizeof TU_ALL_DTYPES[0]))
/* Row-major flat index k <-> multi-index of shape (zero-size dims give index 0). */
static inline void tu_unravel(int64_t k, int nd, const int64_t *shape, int64_t *idx) {
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = shape[d] ? k % shape[d] : 0;
        k = shape[d] ? k / shape[d] : 0;
    }
}
static inline int64_t tu_ravel(int nd, const int64_t *shape, const int64_t *idx) {
    int64_t k = 0;
    for (int d = 0; d < nd; d++)
        k = k * shape[d] + idx[d];
    return k;
}
static inline bool tu_same_shape(const ct_tensor *t, int nd, const int64_t *shape) {
    if (!t || ct_tensor_ndim(t) != nd) return false;
    for (int d = 0; d < nd; d++)
        if (ct_tensor_shape(t)[d] != shape[d]) return false;
    return true;
}
/* Values equal, NaN equal to NaN, -0.0 distinct from 0.0. */
static inline bool tu_same_val(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

/* t has the reference's shape and values: within tol * (1 + |ref|), or with tol == 0 equal (NaN
 * matching NaN, -0.0 distinct from 0.0); the first 3 differences are reported under `what`. */
static inline void tu_same_as(const char *what, const ct_tensor *t, const double *ref, int nd,
                              const int64_t *shape, double tol) {
    CHECK_MSG(t != NULL, "%s: no result", what);
    if (!t) return;
    CHECK_MSG(tu_same_shape(t, nd, shape), "%s: shape", what);
    if (!tu_same_shape(t, nd, shape)) return;
    double *v = tu_read(t);
    int bad = 0;
    for (int64_t i = 0; v && i < ct_tensor_numel(t); i++) {
        const bool ok = tol == 0 ? tu_same_val(v[i], ref[i])
                        : isnan(ref[i])
                            ? isnan(v[i])
                            : v[i] == ref[i] || fabs(v[i] - ref[i]) <= tol * (1 + fabs(ref[i]));
        if (!ok && bad++ < 3)
            CHECK_MSG(ok, "%s[%lld]: %.17g vs %.17g", what, (long long)i, v[i], ref[i]);
    }
    free(v);
}

/* Fault-injecting allocator hooks (ct_ctx_options.allocator = {tu_fault_alloc, tu_fault_free,
 * &st}): allocation number fail_at fails (every one from fail_at on when sticky; fail_at < 0:
 * none); live counts the blocks out. */
typedef struct {
    long calls, fail_at, live;
    bool sticky;
} tu_fault;
static inline void *tu_fault_alloc(void *user, size_t n, size_t align) {
    tu_fault *s = user;
    long c = s->calls++;
    if (s->fail_at >= 0 && (s->sticky ? c >= s->fail_at : c == s->fail_at)) return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n ? n : 1)) return NULL;
    s->live++;
    return p;
}
static inline void tu_fault_free(void *user, void *p) {
    tu_fault *s = user;
    s->live--;
    free(p);
}

/* ctest's skip code (SKIP_RETURN_CODE in CMakeLists.txt): a skipped test shows as skipped. */
#define TU_SKIP_CODE 77

/* The one gate of every per-ISA test run. CT_CPU_ISA names the ISA the run tests (unset: the
 * best). Exits with TU_SKIP_CODE exactly when ct_cpu_isa_supported says this CPU (as capped by
 * CT_CPU_ISA_MAX) lacks it; otherwise returns the ISA's index (0 ref, 1 avx2, 2 avx512). An unknown
 * name fails the run. With CT_TEST_GATE_ONLY=1 a run that would go on prints "gate: run <isa>
 * ctx=<the context's ISA>" and exits 0 (cmake/isa_gate_check.cmake checks every decision). */
static inline int tu_isa_gate(void) {
    static const char *const names[3] = {"ref", "avx2", "avx512"};
    const char *want = getenv("CT_CPU_ISA");
    if (!want || !*want) want = ct_cpu_best_isa();
    int idx = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(want, names[i]) == 0) idx = i;
    if (idx < 0) {
        printf("CT_CPU_ISA=%s is not an ISA name\n0 passed, 1 failed\n", want);
        exit(1);
    }
    if (!ct_cpu_isa_supported(want)) {
        printf("skip: this CPU lacks ISA %s (best: %s)\n", want, ct_cpu_best_isa());
        exit(TU_SKIP_CODE);
    }
    if (getenv("CT_TEST_GATE_ONLY")) {
        ct_ctx *c = NULL;
        char msg[256];
        ct_status st = ct_ctx_create_ex(NULL, &c, msg, sizeof msg);
        printf("gate: run %s ctx=%s\n", want, st == CT_OK ? ct_ctx_cpu_isa(c) : msg);
        ct_ctx_free(c);
        exit(st == CT_OK ? 0 : 1);
    }
    return idx;
}

/* Gate the run (tu_isa_gate), then create the context, which must then succeed with exactly the
 * requested ISA (a context that silently runs another ISA fails the run). */
static inline ct_ctx *tu_ctx_or_skip(void) {
    int idx = tu_isa_gate();
    ct_ctx *ctx = NULL;
    char msg[256];
    ct_status st = ct_ctx_create_ex(NULL, &ctx, msg, sizeof msg);
    if (st != CT_OK) {
        printf("ct_ctx_create failed although the CPU supports the ISA: %s: %s\n0 passed, 1 "
               "failed\n",
               ct_status_str(st), msg);
        exit(1);
    }
    static const char *const names[3] = {"ref", "avx2", "avx512"};
    if (strcmp(ct_ctx_cpu_isa(ctx), names[idx]) != 0) {
        printf("context runs ISA %s, the test asked for %s\n0 passed, 1 failed\n",
               ct_ctx_cpu_isa(ctx), names[idx]);
        exit(1);
    }
    return ctx;
}

/* ---- gradients against central differences ---- */
/* Backward of sum_i sin(i) y_i (the weights tu_gradcheck's numerical side uses); y NULL: nothing.
 */
static inline void tu_backward_sin(ct_ctx *ctx, const ct_tensor *y) {
    if (!y) return;
    const int64_t n = ct_tensor_numel(y);
    double *w = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        w[i] = sin((double)i);
    ct_tensor *wt = tu_from_vals(ctx, CT_FLOAT64, ct_tensor_ndim(y), ct_tensor_shape(y), w),
              *p = NULL, *s = NULL;
    CHECK_OK(ct_mul(ctx, y, wt, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &s));
    CHECK_OK(ct_backward(ctx, s, NULL, false));
    ct_tensor_release(wt), ct_tensor_release(p), ct_tensor_release(s);
    free(w);
}
typedef ct_status (*tu_fn1)(const ct_tensor *x, ct_tensor **y);
/* sum_i sin(i) * f(x)_i for an f64 x of `shape` holding v (NAN when f fails). */
static inline double tu_weighted(ct_ctx *ctx, tu_fn1 f, const double *v, int nd,
                                 const int64_t *shape) {
    ct_tensor *x = NULL, *y = NULL;
    double r = NAN;
    if (ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &x) == CT_OK && f(x, &y) == CT_OK) {
        double *yv = tu_read(y);
        r = 0;
        for (int64_t i = 0; yv && i < ct_tensor_numel(y); i++)
            r += sin((double)i) * yv[i];
        free(yv);
    }
    ct_tensor_release(x), ct_tensor_release(y);
    return r;
}
/* The gradient of sum_i sin(i) f(x)_i at a random f64 x in [-2, 2] (backward through f) against
 * central differences (h = 1e-6): |num - grad| <= 1e-6 + 1e-5 |num| for every element. */
static inline void tu_gradcheck(ct_ctx *ctx, unsigned long long *rng, const char *name, tu_fn1 f,
                                int nd, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    double *xv = malloc(sizeof(double) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        xv[i] = tu_rand_val(rng, CT_FLOAT64, -2, 2);
    ct_tensor *x = NULL, *y = NULL;
    CHECK_OK(ct_tensor_from_host(ctx, xv, CT_FLOAT64, nd, shape, &x));
    CHECK_OK(ct_tensor_set_requires_grad(x, true));
    CHECK_OK(f(x, &y));
    CHECK_MSG(y != NULL, "%s: no result", name);
    tu_backward_sin(ctx, y);
    double *gv = ct_tensor_grad(x) ? tu_read(ct_tensor_grad(x)) : NULL;
    CHECK_MSG(gv != NULL, "%s: no gradient", name);
    for (int64_t i = 0; gv && i < n; i++) {
        double h = 1e-6, keep = xv[i];
        xv[i] = keep + h;
        double fp = tu_weighted(ctx, f, xv, nd, shape);
        xv[i] = keep - h;
        double fm = tu_weighted(ctx, f, xv, nd, shape);
        xv[i] = keep;
        double num = (fp - fm) / (2 * h);
        CHECK_MSG(fabs(num - gv[i]) <= 1e-6 + 1e-5 * fabs(num), "%s d/dx[%lld]: %.10g vs %.10g",
                  name, (long long)i, gv[i], num);
    }
    free(gv), free(xv);
    ct_tensor_release(x), ct_tensor_release(y);
}
/* Two tensors hold the same values (read as doubles, compared byte for byte). */
static inline bool tu_same_values(const ct_tensor *a, const ct_tensor *b) {
    int64_t n = ct_tensor_numel(a);
    if (n != ct_tensor_numel(b)) return false;
    double *x = tu_read(a), *y = tu_read(b);
    bool ok = x && y && memcmp(x, y, sizeof(double) * (size_t)n) == 0;
    free(x), free(y);
    return ok;
}

#endif

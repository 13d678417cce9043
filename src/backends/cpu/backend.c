/* The built-in CPU backend: host memory through the context's allocator, eager execution of every
 * op through the portable kernels, dense f32/f64 matmul through OpenBLAS (small f32 products on
 * AVX-512 through ctorch's kernel where OpenBLAS runs AVX2 kernels: kernels/avx512/gemm_small.c).
 */
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/kernels/gemm_small.h"
#include "ctorch/graph.h"

#include <cblas.h>
#include <string.h>

static ct_status ct__cpu_alloc(void *st, size_t n, void **p) {
    ct__cpu_state *s = st;
    *p = ct__alloc(s->ctx, n ? n : 1, 64);
    return *p ? CT_OK : CT_ERR_OOM;
}
static void ct__cpu_free(void *st, void *p) { ct__free(((ct__cpu_state *)st)->ctx, p); }
static ct_status ct__cpu_copy(void *st, void *dst, const void *src, size_t n, int kind) {
    (void)st, (void)kind;
    if (n) memmove(dst, src, n);
    return CT_OK;
}
static ct_status ct__cpu_sync(void *st) {
    (void)st;
    return CT_OK;
}

/* Can operand (B, R, C) be handed to BLAS as a row-major matrix (possibly transposed)? */
static bool ct__blas_layout(const ct_operand *o, CBLAS_TRANSPOSE *tr, int64_t *ld) {
    int64_t r = o->shape[1], c = o->shape[2], sr = o->strides[1], sc = o->strides[2];
    if ((sc == 1 || c == 1) && sr >= (c > 1 ? c : 1)) {
        *tr = CblasNoTrans;
        *ld = sr > 0 ? sr : 1;
        if (r == 1) *ld = c > 1 ? c : 1;
        return true;
    }
    if ((sr == 1 || r == 1) && sc >= (r > 1 ? r : 1)) {
        *tr = CblasTrans;
        *ld = sc > 0 ? sc : 1;
        if (c == 1) *ld = r > 1 ? r : 1;
        return true;
    }
    return false;
}

#ifndef CT__BLAS_SMALL_MACS
#define CT__BLAS_SMALL_MACS (1 << 21)
#endif
/* Multiply-adds per chunk when ctorch splits products over its threads (~5-10 us of work on one
 * core; a product is split from two chunks on). Smaller products run on the calling thread: split,
 * a 64x64x128 product alone took 4.8 instead of 5.9 us, but the ops after it then read the half of
 * C the other core wrote from that core's cache, and bench autograd mlp_step (a training step of
 * such products and the elementwise ops around them) took 42 instead of 35 us captured, 62
 * instead of 49 us eager, with 2^17 here. */
#define CT__BLAS_CHUNK_MACS (1 << 19)
/* Rows (or columns) of C per split unit: whole register tiles of OpenBLAS's kernels (ctorch's
 * AVX-512 kernel: columns in panels of 32) */
#define CT__BLAS_STRIP 16
#define CT__OWN_COL_STRIP 32

/* One matmul cut into units for ctorch's threads: unit u is strip u % strips of product
 * u / strips; a strip is `strip` rows of C (by_rows) or columns of C. */
typedef struct {
    const ct_operand *a, *b, *c;
    CBLAS_TRANSPOSE ta, tb;
    int64_t lda, ldb, ldc, M, N, K, strips, strip;
    bool dbl, by_rows, own; /* own: ctorch's AVX-512 kernel instead of OpenBLAS (f32) */
} ct__mm_job;

static void ct__mm_gemm(const ct__mm_job *j, int64_t i, int64_t s0, int64_t s1) {
    const size_t sz = j->dbl ? 8 : 4;
    const char *pa = (const char *)j->a->data + i * j->a->strides[0] * (int64_t)sz;
    const char *pb = (const char *)j->b->data + i * j->b->strides[0] * (int64_t)sz;
    char *pc = (char *)j->c->data + i * j->c->strides[0] * (int64_t)sz;
    int64_t M = j->M, N = j->N;
    if (j->strips > 1) {
        const int64_t lim = j->by_rows ? j->M : j->N;
        int64_t o = s0 * j->strip, e = s1 * j->strip;
        if (e > lim) e = lim;
        if (j->by_rows) { /* rows o..e of A and C */
            pa += (j->ta == CblasNoTrans ? o * j->lda : o) * (int64_t)sz;
            pc += o * j->ldc * (int64_t)sz;
            M = e - o;
        } else { /* columns o..e of B and C */
            pb += (j->tb == CblasNoTrans ? o : o * j->ldb) * (int64_t)sz;
            pc += o * (int64_t)sz;
            N = e - o;
        }
    }
    if (j->own) {
        const bool tra = j->ta != CblasNoTrans, trb = j->tb != CblasNoTrans;
        ct_k_avx512_sgemm_small(M, N, j->K, (const float *)pa, tra ? 1 : j->lda, tra ? j->lda : 1,
                                (const float *)pb, trb ? 1 : j->ldb, trb ? j->ldb : 1, (float *)pc,
                                j->ldc);
    } else if (j->dbl)
        cblas_dgemm(CblasRowMajor, j->ta, j->tb, (int)M, (int)N, (int)j->K, 1.0, (const double *)pa,
                    (int)j->lda, (const double *)pb, (int)j->ldb, 0.0, (double *)pc, (int)j->ldc);
    else
        cblas_sgemm(CblasRowMajor, j->ta, j->tb, (int)M, (int)N, (int)j->K, 1.0f, (const float *)pa,
                    (int)j->lda, (const float *)pb, (int)j->ldb, 0.0f, (float *)pc, (int)j->ldc);
}

/* Units [u0, u1): one BLAS call per product touched, over its contiguous strips. */
static void ct__mm_range(void *arg, int64_t u0, int64_t u1) {
    const ct__mm_job *j = arg;
    while (u0 < u1) {
        int64_t i = u0 / j->strips, s0 = u0 % j->strips, s1 = j->strips;
        if ((i + 1) * j->strips > u1) s1 = u1 - i * j->strips;
        ct__mm_gemm(j, i, s0, s1);
        u0 = i * j->strips + s1;
    }
}

/* Does OpenBLAS run kernels below AVX-512 (its core name says so)? Decided once. */
static bool ct__blas_avx2_only(void) {
    static int v = -1;
    int r = __atomic_load_n(&v, __ATOMIC_RELAXED);
    if (r < 0) {
        const char *core = openblas_get_corename();
        /* OpenBLAS names its AVX-512 cores "SkylakeX", "Cooperlake", "SapphireRapids" */
        r = !core || !(strstr(core, "kylakeX") || strstr(core, "ooperlake") ||
                       strstr(core, "apphireRapids"));
        __atomic_store_n(&v, r, __ATOMIC_RELAXED);
    }
    return r != 0;
}

static ct_status ct__cpu_matmul(ct__cpu_state *s, const ct_op_desc *op) {
    const ct_operand *c = &op->operands[0], *a = &op->operands[1], *b = &op->operands[2];
    int64_t B = c->shape[0], M = c->shape[1], N = c->shape[2], K = a->shape[2];
    CBLAS_TRANSPOSE tc;
    ct__mm_job j = {
        .a = a, .b = b, .c = c, .M = M, .N = N, .K = K, .strips = 1, .strip = CT__BLAS_STRIP};
    bool ok = (c->dtype == CT_FLOAT32 || c->dtype == CT_FLOAT64) &&
              ct__blas_layout(a, &j.ta, &j.lda) && ct__blas_layout(b, &j.tb, &j.ldb) &&
              ct__blas_layout(c, &tc, &j.ldc) && tc == CblasNoTrans && j.lda <= INT32_MAX &&
              j.ldb <= INT32_MAX && j.ldc <= INT32_MAX && M <= INT32_MAX && N <= INT32_MAX &&
              K <= INT32_MAX;
    if (!ok || s->ctx->portable_matmul) return ct_k_matmul(op, s->isa);
    if (M == 0 || N == 0) return CT_OK;
    j.dbl = c->dtype == CT_FLOAT64;
    const double macs = (double)M * (double)N * (double)K;
    /* f32 products below CT__BLAS_SMALL_MACS on AVX-512 take ctorch's kernel when OpenBLAS runs
     * its AVX2 kernels there (a release older than the CPU): docs/architecture.md */
    j.own =
        !j.dbl && macs < CT__BLAS_SMALL_MACS && s->isa == &ct_k_isa_avx512 && ct__blas_avx2_only();
    /* Products below CT__BLAS_SMALL_MACS run on one OpenBLAS thread each, and ctorch splits the
     * work (the batch, and a single product's rows or columns in strips) over its own pool:
     * OpenBLAS would wake its threads per product and leave them spinning in sched_yield
     * afterwards, on the cores the next ops need (bench ops matmul_small, bench autograd
     * mlp_step). Larger products keep OpenBLAS's own threading. */
    if (macs >= CT__BLAS_SMALL_MACS || op->num_threads <= 1 ||
        macs * (double)B < 2.0 * CT__BLAS_CHUNK_MACS) {
        for (int64_t i = 0; i < B; i++)
            ct__mm_gemm(&j, i, 0, 1);
        return CT_OK;
    }
    j.by_rows = M >= N;
    if (B == 1) {
        const int64_t ext = j.by_rows ? M : N;
        j.strip = j.own && !j.by_rows ? CT__OWN_COL_STRIP : CT__BLAS_STRIP;
        j.strips = (ext + j.strip - 1) / j.strip;
    }
    const double unit_macs = macs / (double)j.strips;

    int64_t grain = (int64_t)(CT__BLAS_CHUNK_MACS / unit_macs);
    if (grain < 1) grain = 1;
    /* (ctorch's own kernel calls no OpenBLAS: its thread count stays) */
    const int blas_threads = j.own ? 1 : openblas_get_num_threads();
    if (blas_threads > 1) openblas_set_num_threads(1);
    ct_k_pool_slot *prev = ct_k_pool_enter(&s->pool);
    ct_k_parallel_for(B * j.strips, grain, op->num_threads, ct__mm_range, &j);
    ct_k_pool_leave(prev);
    if (blas_threads > 1) openblas_set_num_threads(blas_threads);
    return CT_OK;
}

static void *ct__pool_alloc(void *user, size_t n) { return ct__alloc(user, n, 64); }
static void ct__pool_free(void *user, void *p) { ct__free(user, p); }

ct_status ct__cpu_run_op(void *st, const ct_op_desc *op) {
    ct__cpu_state *s = st;
    ct_status r;
    switch (op->kind) {
    case CT_OP_EIGH: return ct__cpu_eigh(s, op);
    case CT_OP_MX_QUANTIZE:
    case CT_OP_MX_DEQUANTIZE:
    case CT_OP_MX_LINEAR: return ct__cpu_mx(s, op);
    case CT_OP_LINALG: return ct__cpu_linalg(s, op);
    case CT_OP_SPARSE24_COMPRESS:
    case CT_OP_SPARSE24_DECOMPRESS:
    case CT_OP_SPARSE24_MM: return ct__cpu_sparse(s, op);
    case CT_OP_FLEX_ATTENTION:
    case CT_OP_FLEX_ATTENTION_BWD: return ct__cpu_attention(s, op);
    case CT_OP_FFT:
    case CT_OP_COMPLEX: return ct__cpu_fft_complex(s, op);
    default: break;
    }
    if (op->kind == CT_OP_MATMUL) {
        r = ct__cpu_matmul(s, op);
    } else {
        ct_k_pool_slot *prev = ct_k_pool_enter(&s->pool);
        r = ct_k_run(op, s->isa);
        ct_k_pool_leave(prev);
    }
    if (r == CT_ERR_INDEX)
        ct__set_error(s->ctx, r, "%s: an index is out of range", ct_op_name(op->kind));
    else if (r != CT_OK)
        ct__set_error(s->ctx, r, "%s: no CPU kernel for dtype %s", ct_op_name(op->kind),
                      ct_dtype_name(op->compute_dtype));
    return r;
}

static void ct__cpu_destroy(void *st) {
    ct__cpu_state *s = st;
    ct_k_pool_slot_release(&s->pool);
    ct__free(s->ctx, s);
}

ct_status ct__cpu_backend_register(ct_ctx *ctx) {
    ct__cpu_state *s = ct__alloc(ctx, sizeof *s, 16);
    if (!s) return ct__set_error(ctx, CT_ERR_OOM, "cpu backend: out of memory for its state");
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->pool = (ct_k_pool_slot){.nthreads = ctx->num_threads,
                               .alloc = ct__pool_alloc,
                               .free_fn = ct__pool_free,
                               .user = ctx};
    s->isa = ctx->isa == CT__ISA_AVX512 ? &ct_k_isa_avx512
             : ctx->isa == CT__ISA_AVX2 ? &ct_k_isa_avx2
                                        : &ct_k_isa_ref;
    ct_backend_vtable vt = {
        .size = sizeof vt,
        .abi_version = CT_BACKEND_ABI_VERSION,
        .name = "cpu",
        .state = s,
        .alloc = ct__cpu_alloc,
        .free = ct__cpu_free,
        .copy = ct__cpu_copy,
        .run_op = ct__cpu_run_op,
        .synchronize = ct__cpu_sync,
        .destroy = ct__cpu_destroy,
        .graph_impl = &ct__cpu_graph_impl,
    };
    ct_status st = ct__register_builtin(ctx, &vt, CT_DEVICE_CPU);
    if (st != CT_OK) ct__free(ctx, s);
    return st;
}

const char *ct_blas_info(void) {
    return openblas_get_config(); /* e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY ..." */
}

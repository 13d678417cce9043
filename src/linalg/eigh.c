/* linalg.eigh front end: validation, batching over any strides and dtypes (through a contiguous
 * copy in the compute dtype), the dispatch table by n and dtype, and OpenMP over the batch.
 * Kernels: backends/cpu/kernels/{ref,avx2,avx512}/eigh_jacobi.c (n <= 64) and eigh_lapack.c
 * (large n). A CUDA backend would plug in at eigh_run(): route the contiguous batch to
 * cusolverDnXsyevBatched instead of the CPU paths. */
#include "ctorch/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <string.h>

#include "backends/cpu/kernels/eigh_kernels.h"
#include "tensor/tensor_impl.h"
#include "linalg/linalg_internal.h"

/* Crossovers measured on the development machine (2 cores, AVX-512), see docs/linalg.md: the
 * lane kernels beat the LAPACKE loop ~4x even at n = 64, their upper limit. */
#define CT__EIGH_LANES_MAX_N_F32 64
#define CT__EIGH_LANES_MAX_N_F64 64
/* A single matrix at least this large keeps OpenBLAS's threads inside syevd. */
#define CT__EIGH_BLAS_THREADS_MIN_N 256
/* Eigenvector outputs at least this large are written with non-temporal stores. */
#define CT__EIGH_STREAM_MIN_BYTES (8.0 * 1024 * 1024)
/* Below this much work (batch * n^3) the call stays on one thread. */
#define CT__EIGH_PAR_MIN_WORK 20000

int ct__eigh_lanes_max_n(int elem_size) {
    return elem_size == 4 ? CT__EIGH_LANES_MAX_N_F32 : CT__EIGH_LANES_MAX_N_F64;
}

ct__eigh_path ct__eigh_choose_path(int n, int elem_size) {
    return n <= ct__eigh_lanes_max_n(elem_size) ? CT__EIGH_PATH_LANES : CT__EIGH_PATH_LAPACK;
}

static ct__eigh_f32_fn lanes_f32(ct__isa isa) {
    return isa == CT__ISA_AVX512 ? ct__eigh_lanes_f32_avx512
           : isa == CT__ISA_AVX2 ? ct__eigh_lanes_f32_avx2
                                 : ct__eigh_lanes_f32_ref;
}
static ct__eigh_f64_fn lanes_f64(ct__isa isa) {
    return isa == CT__ISA_AVX512 ? ct__eigh_lanes_f64_avx512
           : isa == CT__ISA_AVX2 ? ct__eigh_lanes_f64_avx2
                                 : ct__eigh_lanes_f64_ref;
}

/* Run one contiguous range of matrices [b0, b1) on the calling thread. */
static int eigh_range(int f64, ct__eigh_path path, ct__isa isa, int n, int upper, const void *a,
                      void *w, void *v, int32_t *info, int64_t b0, int64_t b1, void *work,
                      int64_t nx0, int64_t nx1, int stream) {
    const int64_t nn = (int64_t)n * n, cnt = b1 - b0;
    const int es = f64 ? 8 : 4;
    const ct__eigh_hint hint = {(const char *)a + nx0 * nn * es, nx1 - nx0, stream};
    if (cnt <= 0) return 0;
    int32_t *ib = info ? info + b0 : NULL;
    int err = 0;
    if (f64) {
        const double *ab = (const double *)a + b0 * nn;
        double *wb = (double *)w + b0 * n, *vb = v ? (double *)v + b0 * nn : NULL;
        if (path == CT__EIGH_PATH_LANES)
            lanes_f64(isa)(cnt, n, ab, upper, wb, vb, ib, work, &hint);
        else
            err = ct__eigh_lapack_f64(cnt, n, ab, upper, wb, vb, ib, work);
    } else {
        const float *ab = (const float *)a + b0 * nn;
        float *wb = (float *)w + b0 * n, *vb = v ? (float *)v + b0 * nn : NULL;
        if (path == CT__EIGH_PATH_LANES)
            lanes_f32(isa)(cnt, n, ab, upper, wb, vb, ib, work, &hint);
        else
            err = ct__eigh_lapack_f32(cnt, n, ab, upper, wb, vb, ib, work);
    }
    return err;
}

/* Contiguous batch on the CPU: a (batch, n, n) -> w (batch, n), v (batch, n, n) or NULL,
 * info (batch) or NULL. Splits the batch over the context's threads. */
static ct_status eigh_run(ct_ctx *ctx, int f64, int n, int64_t batch, int upper, const void *a,
                          void *w, void *v, int32_t *info) {
    const int es = f64 ? 8 : 4;
    ct__eigh_path path = ct__eigh_choose_path(n, es);
    ct__isa isa = ct__ctx_isa(ctx);
    int nt = ct__ctx_threads(ctx);
    if (nt < 1) nt = 1;
    double work_est = (double)batch * n * n * n;
    if (work_est < CT__EIGH_PAR_MIN_WORK) nt = 1;
    if (nt > batch) nt = (int)batch;
    /* LAPACK on a single matrix: let OpenBLAS thread inside syevd. */
    if (path == CT__EIGH_PATH_LAPACK && batch < 2) nt = 1;

    /* per-thread workspace: LAPACK's, or the lane kernels' above their stack limit */
    void *work = NULL;
    size_t wbytes = path == CT__EIGH_PATH_LAPACK ? ct__eigh_lapack_work_bytes(n, es, v != NULL)
                                                 : ct__eigh_lane_work_bytes(n);
    if (wbytes) {
        work = ct__alloc(ctx, wbytes * (size_t)nt, 64);
        if (!work)
            return ct__set_error(ctx, CT_ERR_OOM,
                                 "linalg.eigh: out of memory allocating %zu bytes of workspace",
                                 wbytes * (size_t)nt);
    }
    /* OpenBLAS's own threads slow syevd down 2-3x below n ~ 256 and fight ours when we split
     * the batch: run it single-threaded (also makes a matrix's result independent of the batch
     * it is in), except for one large matrix, then restore the caller's setting. */
    int blas_threads = 0;
    if (path == CT__EIGH_PATH_LAPACK && (batch > 1 || n < CT__EIGH_BLAS_THREADS_MIN_N)) {
        blas_threads = openblas_get_num_threads();
        if (blas_threads > 1) openblas_set_num_threads(1);
    }
    /* eigenvectors far larger than the caches: written with non-temporal stores (the read for
     * ownership of each output line would double the memory traffic of the final pass) */
    const int stream = v && (double)batch * n * n * es >= CT__EIGH_STREAM_MIN_BYTES;
    int lapack_err = 0;
    if (nt == 1) {
        lapack_err =
            eigh_range(f64, path, isa, n, upper, a, w, v, info, 0, batch, work, 0, 0, stream);
    } else {
        /* Chunks of whole kernel blocks (align = a multiple of every ISA's lanes x groups: 32
         * for 2 groups, 48 for 3), as even as possible: chunk c gets blocks
         * [c B / nchunks, (c+1) B / nchunks) of the B blocks, so the threads' shares differ by
         * at most one block per chunk; for LAPACK one matrix per task, dynamically scheduled. */
        const int64_t align = path != CT__EIGH_PATH_LANES   ? 1
                              : ct__eigh_groups(n) % 3 == 0 ? 48
                                                            : 32;
        const int64_t nblk = (batch + align - 1) / align;
        int64_t nchunks = path == CT__EIGH_PATH_LANES ? (n >= 16 ? nblk : (int64_t)nt * 4) : batch;
        if (nchunks > nblk) nchunks = nblk;
#pragma omp parallel num_threads(nt)
        {
            void *mywork = work ? (char *)work + wbytes * (size_t)omp_get_thread_num() : NULL;
#pragma omp for schedule(dynamic, 1)
            for (int64_t c = 0; c < nchunks; c++) {
                int64_t b0 = c * nblk / nchunks * align, b1 = (c + 1) * nblk / nchunks * align;
                if (b1 > batch) b1 = batch;
                /* prefetch hint: the chunk this thread most likely takes next (the others take
                 * the ones in between) */
                int64_t cx = c + nt < nchunks ? c + nt : c;
                int64_t nx0 = cx * nblk / nchunks * align, nx1 = (cx + 1) * nblk / nchunks * align;
                if (nx1 > batch) nx1 = batch;
                if (cx == c) nx0 = nx1 = 0;
                int e = eigh_range(f64, path, isa, n, upper, a, w, v, info, b0, b1, mywork, nx0,
                                   nx1, stream);
                if (e) {
#pragma omp atomic write
                    lapack_err = e;
                }
            }
        }
    }
    if (blas_threads > 1) openblas_set_num_threads(blas_threads);
    ct__free(ctx, work);
    if (lapack_err)
        return ct__set_error(ctx, CT_ERR_DEVICE,
                             "linalg.eigh: LAPACKE_%csyevd_work rejected argument %d (n = "
                             "%d); no result was computed",
                             f64 ? 'd' : 's', -lapack_err, n);
    return CT_OK;
}

static ct_status eigh_impl(ct_ctx *ctx, const char *op, const ct_tensor *a, char uplo,
                           ct_tensor **w_out, ct_tensor **v_out, ct_tensor **info_out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    /* the solvers run directly, not through the stream: a graph could not record them */
    if (ct__refuse_capture(ctx, op) != CT_OK) return CT_ERR_UNSUPPORTED;
    ct__clear_error(ctx);
    if (ct__check_tensor(ctx, op, "input", a) != CT_OK) return CT_ERR_INVALID_ARG;
    if (!w_out) return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: NULL output", op);
    if (a->ctx != ctx)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: input belongs to another context", op);
    if (uplo != 'L' && uplo != 'U' && uplo != 'l' && uplo != 'u')
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: uplo must be 'L' or 'U', got %d", op,
                             (int)(unsigned char)uplo);
    const int upper = uplo == 'U' || uplo == 'u';
    const int nd = ct_tensor_ndim(a);
    const int64_t *shape = ct_tensor_shape(a);
    if (nd < 2)
        return ct__set_error(ctx, CT_ERR_SHAPE,
                             "%s: input must have at least 2 dims (..., n, n), got %d", op, nd);
    if (shape[nd - 1] != shape[nd - 2])
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: matrices must be square, got %lld x %lld", op,
                             (long long)shape[nd - 2], (long long)shape[nd - 1]);
    const ct_dtype dt = ct_tensor_dtype(a);
    ct_dtype cdt;
    if (dt == CT_FLOAT32 || dt == CT_FLOAT64)
        cdt = dt;
    else if (dt == CT_FLOAT16 || dt == CT_BFLOAT16)
        cdt = CT_FLOAT32;
    else
        return ct__set_error(ctx, CT_ERR_DTYPE,
                             "%s: input dtype %s not supported (float16, bfloat16, float32, "
                             "float64)",
                             op, ct_dtype_name(dt));
    if (ct_tensor_device(a).type != CT_DEVICE_CPU)
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED, "%s: only CPU tensors are supported", op);
    const int64_t n64 = shape[nd - 1];
    if (n64 > 46340) /* n*n must fit the kernels' int arithmetic */
        return ct__set_error(ctx, CT_ERR_SHAPE, "%s: n = %lld is too large", op, (long long)n64);
    const int n = (int)n64;
    size_t lwork;
    if (ct__eigh_choose_path(n, cdt == CT_FLOAT64 ? 8 : 4) == CT__EIGH_PATH_LAPACK &&
        !ct__eigh_lapack_fits(n, v_out != NULL, &lwork))
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "%s: n = %d needs a LAPACK workspace of %zu elements, more than "
                             "lapack_int holds (%lld)",
                             op, n, lwork,
                             (long long)(sizeof(lapack_int) >= 8 ? INT64_MAX : INT32_MAX));
    int64_t batch = 1;
    for (int i = 0; i < nd - 2; i++)
        if (!ct__checked_mul(batch, shape[i], &batch))
            return ct__set_error(ctx, CT_ERR_OVERFLOW, "%s: batch size overflows", op);

    ct_status st;
    ct_tensor *w = NULL, *v = NULL, *info = NULL, *ac = NULL, *wc = NULL, *vc = NULL;
    int64_t wshape[CT_MAX_DIMS];
    memcpy(wshape, shape, sizeof(int64_t) * (size_t)(nd - 1));
    if ((st = ct_tensor_empty(ctx, dt, nd - 1, wshape, &w))) goto fail;
    if (v_out && (st = ct_tensor_empty(ctx, dt, nd, shape, &v))) goto fail;
    if (info_out && (st = ct_tensor_zeros(ctx, CT_INT32, nd - 2, shape, &info))) goto fail;

    if (batch > 0 && n > 0) {
        /* Input as contiguous compute-dtype data: the tensor itself when it already is. */
        if (cdt == dt && ct_tensor_is_contiguous(a)) {
            ac = ct_tensor_retain((ct_tensor *)a);
        } else {
            if ((st = ct_tensor_empty(ctx, cdt, nd, shape, &ac))) goto fail;
            if ((st = ct_tensor_copy_(ctx, ac, a))) goto fail;
        }
        if (cdt == dt) {
            wc = ct_tensor_retain(w);
            vc = v ? ct_tensor_retain(v) : NULL;
        } else {
            if ((st = ct_tensor_empty(ctx, cdt, nd - 1, wshape, &wc))) goto fail;
            if (v && (st = ct_tensor_empty(ctx, cdt, nd, shape, &vc))) goto fail;
        }
        st = eigh_run(ctx, cdt == CT_FLOAT64, n, batch, upper, ct_tensor_data_ptr(ac),
                      ct_tensor_data_ptr(wc), vc ? ct_tensor_data_ptr(vc) : NULL,
                      info ? (int32_t *)ct_tensor_data_ptr(info) : NULL);
        if (st) goto fail;
        if (dt == CT_FLOAT16) {
            /* eigenvalues beyond float16's range would come back as inf: flag those matrices
             * (info = CT_EIGH_INFO_OVERFLOW) or, without an info output, fail the call */
            const float *wf = ct_tensor_data_ptr(wc);
            int32_t *ip = info ? (int32_t *)ct_tensor_data_ptr(info) : NULL;
            for (int64_t b = 0; b < batch; b++)
                for (int i = 0; i < n; i++) {
                    float x = wf[b * n + i];
                    if (!(fabsf(x) >= 65520.0f) || isinf(x)) continue; /* rounds to inf in f16 */
                    if (!ip) {
                        st = ct__set_error(ctx, CT_ERR_OVERFLOW,
                                           "%s: eigenvalue %g of matrix %lld overflows float16 "
                                           "(max 65504); use float32 or %s_ex for per-matrix "
                                           "info",
                                           op, (double)x, (long long)b, "linalg.eigh");
                        goto fail;
                    }
                    if (ip[b] == 0) ip[b] = CT_EIGH_INFO_OVERFLOW;
                    break;
                }
        }
        if (cdt != dt) {
            if ((st = ct_tensor_copy_(ctx, w, wc))) goto fail;
            if (v && (st = ct_tensor_copy_(ctx, v, vc))) goto fail;
        }
    }
    ct_tensor_release(ac);
    ct_tensor_release(wc);
    ct_tensor_release(vc);
    *w_out = w;
    if (v_out) *v_out = v;
    if (info_out) *info_out = info;
    return CT_OK;
fail:
    ct_tensor_release(ac);
    ct_tensor_release(wc);
    ct_tensor_release(vc);
    ct_tensor_release(w);
    ct_tensor_release(v);
    ct_tensor_release(info);
    return st;
}

ct_status ct_linalg_eigh(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues,
                         ct_tensor **eigenvectors) {
    if (ctx && !eigenvectors)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.eigh: NULL eigenvectors output");
    return eigh_impl(ctx, "linalg.eigh", a, uplo, eigenvalues, eigenvectors, NULL);
}

ct_status ct_linalg_eigvalsh(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues) {
    return eigh_impl(ctx, "linalg.eigvalsh", a, uplo, eigenvalues, NULL, NULL);
}

ct_status ct_linalg_eigh_ex(ct_ctx *ctx, const ct_tensor *a, char uplo, ct_tensor **eigenvalues,
                            ct_tensor **eigenvectors, ct_tensor **info) {
    if (ctx && !info)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "linalg.eigh_ex: NULL info output");
    return eigh_impl(ctx, "linalg.eigh_ex", a, uplo, eigenvalues, eigenvectors, info);
}

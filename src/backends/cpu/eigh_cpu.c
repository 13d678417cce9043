/* CPU backend kernel of CT_OP_EIGH: the solver table by n and dtype and OpenMP over the batch
 * (whole kernel blocks per task). Kernels: kernels/{ref,avx2,avx512}/eigh_jacobi.c (n <= 64) and
 * eigh_lapack.c (large n). The linalg front end validates, converts the input to a contiguous
 * batch in the compute dtype, allocates the outputs and the workspace, and submits the op. */
#include "backends/cpu/eigh_cpu.h"
#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/kernels/eigh_kernels.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>

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

ct__eigh_plan ct__eigh_plan_for(int f64, int n, int64_t batch, int want_v, int num_threads) {
    const int es = f64 ? 8 : 4;
    ct__eigh_plan p;
    p.path = ct__eigh_choose_path(n, es);
    int nt = num_threads < 1 ? 1 : num_threads;
    double work_est = (double)batch * n * n * n;
    if (work_est < CT__EIGH_PAR_MIN_WORK) nt = 1;
    if (nt > batch) nt = batch < 1 ? 1 : (int)batch;
    /* LAPACK on a single matrix: let OpenBLAS thread inside syevd. */
    if (p.path == CT__EIGH_PATH_LAPACK && batch < 2) nt = 1;
    p.nt = nt;
    p.work_bytes = p.path == CT__EIGH_PATH_LAPACK ? ct__eigh_lapack_work_bytes(n, es, want_v)
                                                  : ct__eigh_lane_work_bytes(n);
    return p;
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

static const char *const eigh_names[3] = {"linalg.eigh", "linalg.eigvalsh", "linalg.eigh_ex"};

/* Operands: out w (B, n), v (B, n, n) or absent, info (B) int32 or absent; in a (B, n, n), work
 * (uint8, nt * work_bytes) or absent; all contiguous, w/v/a in the compute dtype (f32/f64).
 * ints[0] upper, ints[1] 1 = the caller's dtype is float16 (flag eigenvalues beyond its range),
 * ints[2] which public call (0 eigh, 1 eigvalsh, 2 eigh_ex; for messages). */
ct_status ct__cpu_eigh(ct__cpu_state *s, const ct_op_desc *op) {
    ct_ctx *ctx = s->ctx;
    const ct_operand *wo = &op->operands[0], *ao = &op->operands[3];
    const int f64 = op->compute_dtype == CT_FLOAT64, es = f64 ? 8 : 4;
    const int64_t batch = wo->shape[0];
    const int n = (int)wo->shape[1], upper = op->ints[0] != 0;
    const char *name = eigh_names[op->ints[2] >= 0 && op->ints[2] < 3 ? op->ints[2] : 0];
    if (batch <= 0 || n <= 0) return CT_OK;
    const void *a = ao->data;
    void *w = wo->data, *v = op->operands[1].data, *work = op->operands[4].data;
    int32_t *info = op->operands[2].data;
    const ct__eigh_plan plan = ct__eigh_plan_for(f64, n, batch, v != NULL, op->num_threads);
    const ct__eigh_path path = plan.path;
    const int nt = plan.nt;
    const size_t wbytes = plan.work_bytes;
    const ct__isa isa = s->ctx->isa;
    if (wbytes && !work)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "%s: the op needs %zu bytes of workspace",
                             name, wbytes * (size_t)nt);
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
        /* Chunks of whole kernel blocks (align = a multiple of every ISA's lanes x groups: 64
         * for up to 4 groups of at most 16 lanes, 48 for 3), as even as possible: chunk c gets
         * blocks [c B / nchunks, (c+1) B / nchunks) of the B blocks, so the threads' shares differ
         * by at most one block per chunk; for LAPACK one matrix per task, dynamically scheduled. */
        const int64_t align = path != CT__EIGH_PATH_LANES   ? 1
                              : ct__eigh_groups(n) % 3 == 0 ? 48
                                                            : 64;
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
    if (lapack_err)
        return ct__set_error(ctx, CT_ERR_DEVICE,
                             "%s: LAPACKE_%csyevd_work rejected argument %d (n = "
                             "%d); no result was computed",
                             name, f64 ? 'd' : 's', -lapack_err, n);
    if (op->ints[1] && !f64) {
        /* float16 caller: eigenvalues beyond float16's range would come back as inf: flag those
         * matrices (info = CT_EIGH_INFO_OVERFLOW, 3 in linalg.h) or, without an info output,
         * fail the op */
        const float *wf = w;
        for (int64_t b = 0; b < batch; b++)
            for (int i = 0; i < n; i++) {
                float x = wf[b * n + i];
                if (!(fabsf(x) >= 65520.0f) || isinf(x)) continue; /* rounds to inf in f16 */
                if (!info)
                    return ct__set_error(ctx, CT_ERR_OVERFLOW,
                                         "%s: eigenvalue %g of matrix %lld overflows float16 "
                                         "(max 65504); use float32 or %s_ex for per-matrix info",
                                         name, (double)x, (long long)b, "linalg.eigh");
                if (info[b] == 0) info[b] = 3;
                break;
            }
    }
    return CT_OK;
}

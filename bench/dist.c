/* Collectives against the plain MPI call on the same buffers, measured in the same run
 * (mpirun -np 2 ./build/bench_dist [max_bytes [op]]). For each call and size (8 B .. 64 MiB) the two are
 * timed in alternating rounds (the slowest rank's time, median of the rounds) and printed with
 * nccl-tests' algorithm and bus bandwidth:
 *   bench dist <op> bytes=N np=P ct_us=T mpi_us=M busbw_GBps=B ratio=M/T
 * ops: broadcast, all_reduce, all_gather, reduce_scatter, all_to_all_v, and broadcast_symm /
 * all_reduce_symm / all_to_all_v_symm with the tensor in symmetric memory (the one-copy path). */
#include "ctorch/ctorch.h"
#include "ctorch/dist.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int R, N;
static MPI_Comm comm;

typedef struct {
    const char *name;
    int kind; /* 0 bcast, 1 allreduce, 2 allgather, 3 reduce_scatter, 4 a2av */
    bool symm;
    double bus; /* busbw factor */
} op_t;

typedef struct {
    ct_dist *g;
    ct_tensor *in, *out;
    int64_t *splits;
    int *cnt, *displ;
    void *mpi_in, *mpi_out;
    int64_t n; /* floats in `in` */
} bufs;

static void run_ct(const op_t *o, bufs *b) {
    ct_status st = CT_OK;
    switch (o->kind) {
    case 0: st = ct_dist_broadcast(b->g, b->in, 0); break;
    case 1: st = ct_dist_all_reduce(b->g, b->in, CT_REDUCE_SUM); break;
    case 2: st = ct_dist_all_gather(b->g, b->in, b->out); break;
    case 3: st = ct_dist_reduce_scatter(b->g, b->in, b->out, CT_REDUCE_SUM); break;
    case 4: st = ct_dist_all_to_all_v(b->g, b->in, b->splits, b->out, b->splits); break;
    }
    if (st != CT_OK) {
        fprintf(stderr, "bench dist: %s failed: %s\n", o->name, ct_status_str(st));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void run_mpi(const op_t *o, bufs *b) {
    int n = (int)b->n;
    switch (o->kind) {
    case 0: MPI_Bcast(b->mpi_in, n, MPI_FLOAT, 0, comm); break;
    case 1: MPI_Allreduce(MPI_IN_PLACE, b->mpi_in, n, MPI_FLOAT, MPI_SUM, comm); break;
    case 2: MPI_Allgather(b->mpi_in, n, MPI_FLOAT, b->mpi_out, n, MPI_FLOAT, comm); break;
    case 3: MPI_Reduce_scatter_block(b->mpi_in, b->mpi_out, n / N, MPI_FLOAT, MPI_SUM, comm); break;
    case 4:
        MPI_Alltoallv(b->mpi_in, b->cnt, b->displ, MPI_FLOAT, b->mpi_out, b->cnt, b->displ,
                      MPI_FLOAT, comm);
        break;
    }
}

/* Seconds per call over iters calls, slowest rank. */
static double timed(const op_t *o, bufs *b, int iters, bool ct) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        ct ? run_ct(o, b) : run_mpi(o, b);
    double dt = (MPI_Wtime() - t0) / iters, mx = 0;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
    return mx;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    ct_ctx *ctx = NULL;
    ct_dist *g = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK || ct_dist_init(ctx, &argc, &argv, &g) != CT_OK) {
        fprintf(stderr, "bench dist: init failed\n");
        return 1;
    }
    R = ct_dist_rank(g);
    N = ct_dist_size(g);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    size_t max_bytes = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : (size_t)64 << 20;
    const op_t ops[] = {
        {"broadcast", 0, false, 1.0},
        {"all_reduce", 1, false, 2.0 * (N - 1) / N},
        {"all_gather", 2, false, (double)(N - 1) / N},
        {"reduce_scatter", 3, false, (double)(N - 1) / N},
        {"all_to_all_v", 4, false, (double)(N - 1) / N},
        {"broadcast_symm", 0, true, 1.0},
        {"all_reduce_symm", 1, true, 2.0 * (N - 1) / N},
        {"all_to_all_v_symm", 4, true, (double)(N - 1) / N},
    };
    if (R == 0)
        printf("# ctorch collectives vs plain MPI, np=%d, node-local %s (ratio = mpi_us / ct_us)\n",
               N, ct_dist_is_node_local(g) ? "yes" : "no");
    ct_symm_buf *sb = NULL;
    size_t sym_bytes = max_bytes * 2 + 4096;
    if (ct_symm_alloc(g, sym_bytes, &sb) != CT_OK) {
        fprintf(stderr, "bench dist: symm_alloc failed\n");
        return 1;
    }
    for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
        const op_t *o = &ops[oi];
        if (argc > 2 && strcmp(argv[2], o->name) != 0) continue;
        for (size_t bytes = 8; bytes <= max_bytes;
             bytes = bytes * 4 > max_bytes && bytes < max_bytes ? max_bytes : bytes * 4) {
            bufs b = {0};
            b.g = g;
            /* bytes: the tensor each rank contributes (all_gather: its input; reduce_scatter,
             * all_to_all_v: its whole input) */
            int64_t n = (int64_t)(bytes / sizeof(float));
            if (n < N) n = N;
            n -= n % N;
            b.n = n;
            int64_t outn = o->kind == 2 ? n * N : o->kind == 3 ? n / N : n;
            if (o->symm) {
                ct_symm_tensor(sb, 0, CT_FLOAT32, 1, &n, &b.in);
                ct_tensor_zeros(ctx, CT_FLOAT32, 1, &outn, &b.out);
            } else {
                ct_tensor_ones(ctx, CT_FLOAT32, 1, &n, &b.in);
                ct_tensor_zeros(ctx, CT_FLOAT32, 1, &outn, &b.out);
            }
            b.splits = malloc(sizeof(int64_t) * (size_t)N);
            b.cnt = malloc(sizeof(int) * (size_t)N);
            b.displ = malloc(sizeof(int) * (size_t)N);
            for (int j = 0; j < N; j++) {
                b.splits[j] = n / N;
                b.cnt[j] = (int)(n / N);
                b.displ[j] = (int)(j * (n / N));
            }
            /* MPI works on the same buffers */
            b.mpi_in = ct_tensor_data_ptr(b.in);
            b.mpi_out = ct_tensor_data_ptr(b.out);
            run_ct(o, &b);
            run_mpi(o, &b);
            double once = timed(o, &b, 1, true);
            int iters = (int)(0.01 / (once > 1e-7 ? once : 1e-7));
            iters = iters < 3 ? 3 : iters > 2000 ? 2000 : iters;
            enum { ROUNDS = 7 };
            double tc[ROUNDS], tm[ROUNDS];
            for (int r = 0; r < ROUNDS; r++) {
                tc[r] = timed(o, &b, iters, true);
                tm[r] = timed(o, &b, iters, false);
            }
            qsort(tc, ROUNDS, sizeof(double), cmp_d);
            qsort(tm, ROUNDS, sizeof(double), cmp_d);
            double ct_us = tc[ROUNDS / 2] * 1e6, mpi_us = tm[ROUNDS / 2] * 1e6;
            double busbw = (double)(n * 4) / (ct_us * 1e-6) / 1e9 * o->bus;
            if (R == 0)
                printf("bench dist %s bytes=%lld np=%d ct_us=%.2f mpi_us=%.2f busbw_GBps=%.3f "
                       "ratio=%.2f\n",
                       o->name, (long long)(n * 4), N, ct_us, mpi_us, busbw, mpi_us / ct_us);
            fflush(stdout);
            ct_tensor_release(b.in);
            ct_tensor_release(b.out);
            free(b.splits);
            free(b.cnt);
            free(b.displ);
            if (bytes == max_bytes) break;
        }
    }
    ct_symm_free(sb);
    MPI_Comm_free(&comm);
    ct_dist_free(g);
    ct_ctx_free(ctx);
    return 0;
}

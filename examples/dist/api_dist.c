/* A tour of the distributed API (include/ctorch/dist.h) for any number of processes: group
 * settings and sub-groups (split, set_timeout, is_node_local), the collectives (broadcast,
 * all_gather, reduce_scatter, all_to_all, all_to_all_v, barrier), the differentiable collectives
 * of torch.distributed.nn (their backward is the adjoint collective) and symmetric memory
 * (put / get / signal / wait between ranks, tensors living in a symmetric buffer).
 *
 * Every rank r contributes values made from r (mostly r + 1), so each rank computes what it must
 * receive with a plain loop over the ranks and the example exits 1 if anything differs. Rank 0
 * prints one line per section.
 * Run: mpirun -np 3 ./build/example_api_dist   (any number of ranks, 1 included; as root add
 *      --allow-run-as-root, more ranks than cores: --oversubscribe) */
#include <ctorch/ctorch.h>
#include <ctorch/dist.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 16 /* the fixed-size arrays below hold up to 16 ranks */

static ct_ctx *ctx;
static int R, N; /* this process's rank in the world group, and the world size */

/* A failed call: print the context's message and stop this rank (mpirun then ends the job). */
#define OK(x)                                                                                      \
    do {                                                                                           \
        ct_status st_ = (x);                                                                       \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "rank %d: %s:%d: %s: %s (%s)\n", R, __FILE__, __LINE__, #x,            \
                    ct_status_str(st_), ct_ctx_last_error(ctx));                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
/* A result that differs from what the rank arithmetic says. */
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", R, __FILE__, __LINE__, #cond);   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* A float64 tensor of the given shape holding v (C order). */
static ct_status f64(const double *v, int ndim, const int64_t *shape, ct_tensor **out) {
    return ct_tensor_from_host(ctx, v, CT_FLOAT64, ndim, shape, out);
}
/* The elements of a float64 tensor (n of them) into dst. */
static ct_status read64(const ct_tensor *t, double *dst, int64_t n) {
    return ct_tensor_to_host(t, dst, (size_t)n * sizeof(double));
}
/* loss = sum(y * w) and backward: w becomes the gradient flowing into y on this rank. */
static int backward_with(ct_tensor *y, const double *w) {
    ct_tensor *wt = NULL, *p = NULL, *l = NULL;
    OK(f64(w, ct_tensor_ndim(y), ct_tensor_shape(y), &wt));
    OK(ct_mul(ctx, y, wt, &p));
    OK(ct_sum(ctx, p, 0, NULL, false, &l));
    OK(ct_backward(ctx, l, NULL, false));
    ct_tensor_release(wt), ct_tensor_release(p), ct_tensor_release(l);
    return 0;
}

/* ---- group settings ---- */
static int demo_group(ct_dist *world) {
    /* Collectives waiting longer than this for a peer return CT_ERR_TIMEOUT instead of hanging
     * (default 300 s); the seconds must be > 0. */
    OK(ct_dist_set_timeout(world, 30.0));
    ct_status st = ct_dist_set_timeout(world, 0.0);
    EXPECT(st == CT_ERR_INVALID_ARG && ct_ctx_last_error(ctx)[0] != '\0');
    if (R == 0) printf("set_timeout(0): %s: %s\n", ct_status_str(st), ct_ctx_last_error(ctx));
    /* Whether all ranks share this node (then the shared-memory paths are used). mpirun on one
     * machine: true. */
    bool local = ct_dist_is_node_local(world);
    if (R == 0) printf("world: %d ranks, node-local: %s\n", N, local ? "yes" : "no");
    return 0;
}

/* ---- split: sub-groups as MPI_Comm_split ---- */
static int demo_split(ct_dist *world) {
    /* Ranks of the same parity form a group, ordered by key: key -rank puts the highest world rank
     * first. Gathering the world ranks over the group shows that order. */
    ct_dist *par = NULL;
    OK(ct_dist_split(world, R % 2, -R, &par));
    EXPECT(par != NULL);
    int want_size = (N - R % 2 + 1) / 2; /* ranks 0, 2, 4, ... or 1, 3, 5, ... below N */
    EXPECT(ct_dist_size(par) == want_size);
    int64_t one = 1, ns = want_size;
    ct_tensor *me = NULL, *all = NULL;
    OK(ct_tensor_full(ctx, CT_INT64, 1, &one, R, &me));
    OK(ct_tensor_zeros(ctx, CT_INT64, 1, &ns, &all));
    OK(ct_dist_all_gather(par, me, all));
    int64_t got[MAXR];
    OK(ct_tensor_to_host(all, got, sizeof(int64_t) * (size_t)ns));
    int k = 0;
    for (int r = N - 1; r >= 0; r--) /* descending world ranks of my parity */
        if (r % 2 == R % 2) EXPECT(got[k++] == r);
    EXPECT(ct_dist_rank(par) == (N - 1 - R) / 2); /* my place in that order */
    if (R == 0) {
        printf("split(color = rank %% 2, key = -rank): rank 0's group of %d holds world ranks [",
               want_size);
        for (int i = 0; i < want_size; i++)
            printf(i ? ", %lld" : "%lld", (long long)got[i]);
        printf("]\n");
    }
    /* A negative color joins no group: rank 0 gets NULL, the others a group without it. */
    ct_dist *workers = NULL;
    OK(ct_dist_split(world, R == 0 ? -1 : 0, R, &workers));
    EXPECT(R == 0 ? workers == NULL : ct_dist_size(workers) == N - 1);
    if (R == 0) printf("split(color -1 on rank 0): rank 0 gets NULL\n");
    ct_tensor_release(me), ct_tensor_release(all);
    ct_dist_free(workers); /* collective among the workers; NULL on rank 0 is a no-op */
    ct_dist_free(par);
    return 0;
}

/* ---- broadcast, all_gather, reduce_scatter, all_to_all, all_to_all_v, barrier ---- */
static int demo_collectives(ct_dist *world) {
    /* broadcast: every rank's t receives the root's values. Rank r holds 10 (r + 1) + i; after a
     * broadcast from the last rank everyone holds 10 N + i. Any dtype travels (int32 here). */
    {
        int32_t v[3], got[3];
        for (int i = 0; i < 3; i++)
            v[i] = 10 * (R + 1) + i;
        int64_t n = 3;
        ct_tensor *t = NULL;
        OK(ct_tensor_from_host(ctx, v, CT_INT32, 1, &n, &t));
        OK(ct_dist_broadcast(world, t, N - 1));
        OK(ct_tensor_to_host(t, got, sizeof got));
        for (int i = 0; i < 3; i++)
            EXPECT(got[i] == 10 * N + i);
        if (R == 0) printf("broadcast from rank %d: [%d, %d, %d]\n", N - 1, got[0], got[1], got[2]);
        ct_tensor_release(t);
    }
    /* all_gather: every rank's [2] input concatenated in rank order, [2 N] on every rank. */
    {
        float v[2] = {(float)(R + 1), (float)-(R + 1)}, got[2 * MAXR];
        int64_t n = 2, n2 = 2 * N;
        ct_tensor *in = NULL, *out = NULL;
        OK(ct_tensor_from_host(ctx, v, CT_FLOAT32, 1, &n, &in));
        OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &n2, &out));
        OK(ct_dist_all_gather(world, in, out));
        OK(ct_tensor_to_host(out, got, sizeof(float) * (size_t)n2));
        for (int j = 0; j < N; j++)
            EXPECT(got[2 * j] == (float)(j + 1) && got[2 * j + 1] == (float)-(j + 1));
        if (R == 0)
            printf("all_gather of [r+1, -(r+1)]: [%g, %g, ...] (%d values)\n", got[0], got[1],
                   2 * N);
        /* error path: an out of the wrong shape is refused with the same status on every rank
         * (nothing hangs) and the group stays usable */
        int64_t bad = 2 * N + 1;
        ct_tensor *wrong = NULL;
        OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &bad, &wrong));
        ct_status st = ct_dist_all_gather(world, in, wrong);
        EXPECT(st == CT_ERR_SHAPE);
        if (R == 0)
            printf("all_gather into [%d]: %s: %s\n", 2 * N + 1, ct_status_str(st),
                   ct_ctx_last_error(ctx));
        ct_tensor_release(in), ct_tensor_release(out), ct_tensor_release(wrong);
    }
    /* reduce_scatter: the [2 N] inputs are summed over ranks and rank r keeps block r (2 values).
     * Rank r's element k is (r + 1)(k + 1), so the sum is (k + 1) N (N + 1) / 2. */
    {
        int64_t v[2 * MAXR], got[2], n2 = 2 * N, n = 2;
        for (int k = 0; k < 2 * N; k++)
            v[k] = (int64_t)(R + 1) * (k + 1);
        ct_tensor *in = NULL, *out = NULL;
        OK(ct_tensor_from_host(ctx, v, CT_INT64, 1, &n2, &in));
        OK(ct_tensor_zeros(ctx, CT_INT64, 1, &n, &out));
        OK(ct_dist_reduce_scatter(world, in, out, CT_REDUCE_SUM));
        OK(ct_tensor_to_host(out, got, sizeof got));
        int64_t tri = (int64_t)N * (N + 1) / 2;
        for (int i = 0; i < 2; i++)
            EXPECT(got[i] == (2 * R + i + 1) * tri);
        if (R == 0)
            printf("reduce_scatter SUM: rank 0 keeps [%lld, %lld]\n", (long long)got[0],
                   (long long)got[1]);
        ct_tensor_release(in), ct_tensor_release(out);
    }
    /* all_to_all: block j of my input goes to rank j, block i of my output came from rank i.
     * Rank r sends 100 r + j to rank j (rows of [N, 2]), so I receive 100 i + R from rank i. */
    {
        double v[2 * MAXR], got[2 * MAXR];
        int64_t s[2] = {N, 2};
        for (int j = 0; j < N; j++)
            v[2 * j] = 100 * R + j, v[2 * j + 1] = -(100 * R + j);
        ct_tensor *in = NULL, *out = NULL;
        OK(f64(v, 2, s, &in));
        OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, s, &out));
        OK(ct_dist_all_to_all(world, in, out));
        OK(read64(out, got, 2 * N));
        for (int i = 0; i < N; i++)
            EXPECT(got[2 * i] == 100 * i + R && got[2 * i + 1] == -(100 * i + R));
        if (R == 0)
            printf("all_to_all: rank 0 received [%g, %g] from rank %d\n", got[2 * (N - 1)],
                   got[2 * (N - 1) + 1], N - 1);
        ct_tensor_release(in), ct_tensor_release(out);
    }
    /* all_to_all_v: uneven splits. Rank r sends j + 1 rows to rank j, so every rank receives
     * R + 1 rows from each rank. Row k sent from r to j holds 100 r + 10 j + k. */
    {
        int64_t in_sp[MAXR], out_sp[MAXR], rows_in = 0, rows_out = (int64_t)N * (R + 1);
        double v[MAXR * (MAXR + 1) / 2], got[MAXR * MAXR];
        for (int j = 0; j < N; j++) {
            in_sp[j] = j + 1;
            out_sp[j] = R + 1; /* must equal what rank j sends here: its in_splits[R] */
            for (int k = 0; k <= j; k++)
                v[rows_in++] = 100 * R + 10 * j + k;
        }
        int64_t sin[2] = {rows_in, 1}, sout[2] = {rows_out, 1};
        ct_tensor *in = NULL, *out = NULL;
        OK(f64(v, 2, sin, &in));
        OK(ct_tensor_zeros(ctx, CT_FLOAT64, 2, sout, &out));
        OK(ct_dist_all_to_all_v(world, in, in_sp, out, out_sp));
        OK(read64(out, got, rows_out));
        for (int i = 0; i < N; i++)
            for (int k = 0; k <= R; k++)
                EXPECT(got[i * (R + 1) + k] == 100 * i + 10 * R + k);
        if (R == 0)
            printf("all_to_all_v: rank 0 sent %lld rows, received %lld (from rank %d: %g)\n",
                   (long long)rows_in, (long long)rows_out, N - 1, got[rows_out - 1]);
        ct_tensor_release(in), ct_tensor_release(out);
    }
    /* barrier: returns once every rank has entered it. */
    OK(ct_dist_barrier(world));
    if (R == 0) printf("barrier: all %d ranks arrived\n", N);
    return 0;
}

/* ---- differentiable collectives (torch.distributed.nn) ----
 * Each section makes a leaf x that requires grad, runs the collective, and back-propagates
 * loss = sum(y * w) with a per-rank w; x.grad must be the adjoint collective applied to the w of
 * every rank, computed here with a loop over the ranks. */
static int demo_nn(ct_dist *world) {
    int64_t n2 = 2;
    /* nn_all_reduce SUM: x_r = [r+1, 2(r+1)], y = sum over ranks = [T, 2T] (T = N(N+1)/2). Its
     * backward all-reduces the gradient: with w_r = [1, r+1], x.grad = [N, T] on every rank. */
    double T = (double)N * (N + 1) / 2;
    {
        double xv[2] = {R + 1, 2 * (R + 1)}, w[2] = {1, R + 1}, y[2], gr[2];
        ct_tensor *x = NULL, *out = NULL;
        OK(f64(xv, 1, &n2, &x));
        OK(ct_tensor_set_requires_grad(x, true));
        OK(ct_dist_nn_all_reduce(world, x, CT_REDUCE_SUM, &out));
        OK(read64(out, y, 2));
        EXPECT(y[0] == T && y[1] == 2 * T);
        if (backward_with(out, w)) return 1;
        OK(read64(ct_tensor_grad(x), gr, 2));
        EXPECT(gr[0] == N && gr[1] == T);
        if (R == 0)
            printf("nn_all_reduce SUM: y = [%g, %g], x.grad = [%g, %g]\n", y[0], y[1], gr[0],
                   gr[1]);
        ct_tensor_release(x), ct_tensor_release(out);
    }
    /* nn_broadcast from the last rank: y = x_{N-1} = [N, 2N]. Backward sums every rank's
     * gradient at the root (x.grad = [N, T] there); the other ranks' inputs get a gradient of
     * zeros (as torch). */
    {
        double xv[2] = {R + 1, 2 * (R + 1)}, w[2] = {1, R + 1}, y[2], gr[2];
        ct_tensor *x = NULL, *out = NULL;
        OK(f64(xv, 1, &n2, &x));
        OK(ct_tensor_set_requires_grad(x, true));
        OK(ct_dist_nn_broadcast(world, x, N - 1, &out));
        OK(read64(out, y, 2));
        EXPECT(y[0] == N && y[1] == 2 * N);
        if (backward_with(out, w)) return 1;
        bool root = R == N - 1;
        OK(read64(ct_tensor_grad(x), gr, 2));
        EXPECT(gr[0] == (root ? N : 0) && gr[1] == (root ? T : 0));
        if (R == 0)
            printf("nn_broadcast root %d: y = [%g, %g], rank 0's x.grad = [%g, %g]\n", N - 1, y[0],
                   y[1], gr[0], gr[1]);
        ct_tensor_release(x), ct_tensor_release(out);
    }
    /* nn_all_gather: y = [x_0, x_1, ...] ([2N]). Its backward is reduce_scatter SUM: with
     * w_r[p] = p + 1 + 10 r, x_r.grad[i] = sum over ranks s of w_s[2r + i]. */
    {
        double xv[2] = {R + 1, -(R + 1)}, w[2 * MAXR], y[2 * MAXR], gr[2];
        for (int p = 0; p < 2 * N; p++)
            w[p] = p + 1 + 10 * R;
        ct_tensor *x = NULL, *out = NULL;
        OK(f64(xv, 1, &n2, &x));
        OK(ct_tensor_set_requires_grad(x, true));
        OK(ct_dist_nn_all_gather(world, x, &out));
        EXPECT(ct_tensor_ndim(out) == 1 && ct_tensor_shape(out)[0] == 2 * N);
        OK(read64(out, y, 2 * N));
        for (int j = 0; j < N; j++)
            EXPECT(y[2 * j] == j + 1 && y[2 * j + 1] == -(j + 1));
        if (backward_with(out, w)) return 1;
        OK(read64(ct_tensor_grad(x), gr, 2));
        for (int i = 0; i < 2; i++) {
            double want = 0;
            for (int s = 0; s < N; s++)
                want += 2 * R + i + 1 + 10 * s;
            EXPECT(gr[i] == want);
        }
        if (R == 0)
            printf("nn_all_gather: y has %d values, rank 0's x.grad = [%g, %g]\n", 2 * N, gr[0],
                   gr[1]);
        ct_tensor_release(x), ct_tensor_release(out);
    }
    /* nn_reduce_scatter SUM: x_r[k] = (r+1)(k+1) over [2N], y_r[i] = T (2r + i + 1). Its backward
     * is all_gather: with w_r = [1 + 10 r, 2 + 10 r], x_r.grad[k] = w_{k/2}[k%2]. */
    {
        double xv[2 * MAXR], w[2] = {1 + 10 * R, 2 + 10 * R}, y[2], gr[2 * MAXR];
        int64_t nn = 2 * N;
        for (int k = 0; k < 2 * N; k++)
            xv[k] = (R + 1) * (k + 1);
        ct_tensor *x = NULL, *out = NULL;
        OK(f64(xv, 1, &nn, &x));
        OK(ct_tensor_set_requires_grad(x, true));
        OK(ct_dist_nn_reduce_scatter(world, x, CT_REDUCE_SUM, &out));
        OK(read64(out, y, 2));
        EXPECT(y[0] == T * (2 * R + 1) && y[1] == T * (2 * R + 2));
        if (backward_with(out, w)) return 1;
        OK(read64(ct_tensor_grad(x), gr, nn));
        for (int k = 0; k < 2 * N; k++)
            EXPECT(gr[k] == k % 2 + 1 + 10 * (k / 2));
        if (R == 0)
            printf("nn_reduce_scatter SUM: rank 0's y = [%g, %g], x.grad[0..1] = [%g, %g]\n", y[0],
                   y[1], gr[0], gr[1]);
        ct_tensor_release(x), ct_tensor_release(out);
    }
    /* nn_all_to_all_v with the splits of demo_collectives (j + 1 rows to rank j). Backward is
     * the reverse exchange: the gradient of the rows sent to rank j is j's w at the place they
     * landed there (after the r (j + 1) rows of ranks 0..r-1). w_j[p] = p + 1 + 100 j. */
    {
        int64_t in_sp[MAXR], out_sp[MAXR], rows_in = 0, rows_out = (int64_t)N * (R + 1);
        double xv[MAXR * (MAXR + 1) / 2], w[MAXR * MAXR], y[MAXR * MAXR];
        double gr[MAXR * (MAXR + 1) / 2];
        for (int j = 0; j < N; j++) {
            in_sp[j] = j + 1, out_sp[j] = R + 1;
            for (int k = 0; k <= j; k++)
                xv[rows_in++] = 100 * R + 10 * j + k;
        }
        for (int64_t p = 0; p < rows_out; p++)
            w[p] = (double)p + 1 + 100 * R;
        int64_t sin[2] = {rows_in, 1};
        ct_tensor *x = NULL, *out = NULL;
        OK(f64(xv, 2, sin, &x));
        OK(ct_tensor_set_requires_grad(x, true));
        OK(ct_dist_nn_all_to_all_v(world, x, in_sp, out_sp, &out));
        EXPECT(ct_tensor_shape(out)[0] == rows_out);
        OK(read64(out, y, rows_out));
        for (int i = 0; i < N; i++)
            for (int k = 0; k <= R; k++)
                EXPECT(y[i * (R + 1) + k] == 100 * i + 10 * R + k);
        if (backward_with(out, w)) return 1;
        OK(read64(ct_tensor_grad(x), gr, rows_in));
        int64_t pos = 0;
        for (int j = 0; j < N; j++)
            for (int k = 0; k <= j; k++)
                EXPECT(gr[pos++] == R * (j + 1) + k + 1 + 100 * j);
        if (R == 0)
            printf("nn_all_to_all_v: rank 0 got %lld rows, x.grad = [%g, ...]\n",
                   (long long)rows_out, gr[0]);
        ct_tensor_release(x), ct_tensor_release(out);
    }
    return 0;
}

/* ---- 2-D all-to-all-v (MoE dispatch), differentiable ----
 * E = 2 experts per rank. Rank s sends count(s, j, e) rows to local expert e of rank j; rank j
 * receives them expert-major (expert 0's rows from ranks 0, 1, ..., then expert 1's), each
 * expert's segment padded to a multiple of ALIGN rows. */
#define E 2
#define ALIGN 2
static int count(int s, int j, int e) { return (s + 2 * j + e) % 3; } /* 0, 1 or 2 rows */
/* Row offset on rank j of the chunk (e, s), computed by hand from the rule above. */
static int64_t offset(int j, int e, int s) {
    int64_t off = 0;
    for (int ee = 0; ee < e; ee++) {
        int64_t seg = 0;
        for (int ss = 0; ss < N; ss++)
            seg += count(ss, j, ee);
        off += (seg + ALIGN - 1) / ALIGN * ALIGN;
    }
    for (int ss = 0; ss < s; ss++)
        off += count(ss, j, e);
    return off;
}
static int demo_nn_2d(ct_dist *world) {
    /* x: my rows grouped rank-major by (destination j, expert e); row k of a group holds
     * 1000 R + 100 j + 10 e + k. in_splits counts the rows of each group. */
    int64_t ns = (int64_t)N * E, sp[MAXR * E], rows = 0;
    double xv[MAXR * E * 2];
    for (int j = 0; j < N; j++)
        for (int e = 0; e < E; e++) {
            sp[j * E + e] = count(R, j, e);
            for (int k = 0; k < count(R, j, e); k++)
                xv[rows++] = 1000 * R + 100 * j + 10 * e + k;
        }
    int64_t out_rows = (int64_t)N * E * 2 + E * (ALIGN - 1); /* an upper bound of what arrives */
    int64_t sx[2] = {rows, 1};
    ct_tensor *x = NULL, *in_splits = NULL, *out = NULL, *oso = NULL;
    OK(f64(xv, 2, sx, &x));
    OK(ct_tensor_set_requires_grad(x, true));
    OK(ct_tensor_from_host(ctx, sp, CT_INT64, 1, &ns, &in_splits));
    OK(ct_dist_nn_all_to_all_v_2d(world, x, in_splits, out_rows, ALIGN, &out, &oso));
    /* out: [out_rows, 1], zeros where nothing landed; oso: [2, E N] counts and offsets */
    double y[MAXR * E * 2 + E * ALIGN], want[MAXR * E * 2 + E * ALIGN] = {0};
    int64_t lay[2 * MAXR * E];
    OK(read64(out, y, out_rows));
    OK(ct_tensor_to_host(oso, lay, sizeof(int64_t) * 2 * (size_t)ns));
    for (int e = 0; e < E; e++)
        for (int s = 0; s < N; s++) {
            int64_t off = offset(R, e, s);
            EXPECT(lay[e * N + s] == count(s, R, e) && lay[ns + e * N + s] == off);
            for (int k = 0; k < count(s, R, e); k++)
                want[off + k] = 1000 * s + 100 * R + 10 * e + k;
        }
    for (int64_t p = 0; p < out_rows; p++)
        EXPECT(y[p] == want[p]);
    /* backward is the combine: the gradient of my row (j, e, k) is rank j's w at the row it
     * landed on, offset(j, e, R) + k. w_j[p] = p + 1 + 100 j. */
    double w[MAXR * E * 2 + E * ALIGN], gr[MAXR * E * 2];
    for (int64_t p = 0; p < out_rows; p++)
        w[p] = (double)p + 1 + 100 * R;
    if (backward_with(out, w)) return 1;
    OK(read64(ct_tensor_grad(x), gr, rows));
    int64_t pos = 0;
    for (int j = 0; j < N; j++)
        for (int e = 0; e < E; e++)
            for (int k = 0; k < count(R, j, e); k++)
                EXPECT(gr[pos++] == (double)(offset(j, e, R) + k) + 1 + 100 * j);
    if (R == 0) {
        printf("nn_all_to_all_v_2d: rank 0 counts [");
        for (int i = 0; i < ns; i++)
            printf(i ? ", %lld" : "%lld", (long long)lay[i]);
        printf("], offsets [");
        for (int i = 0; i < ns; i++)
            printf(i ? ", %lld" : "%lld", (long long)lay[ns + i]);
        printf("]; grads checked\n");
    }
    ct_tensor_release(x), ct_tensor_release(in_splits), ct_tensor_release(out);
    ct_tensor_release(oso);
    return 0;
}

/* ---- symmetric memory ---- */
static int demo_symm(ct_dist *world) {
    /* Collective: every rank gets 4096 zeroed, 64-byte aligned bytes that peers can address. */
    ct_symm_buf *b = NULL;
    OK(ct_symm_alloc(world, 4096, &b));
    unsigned char *mine = ct_symm_ptr(b);
    EXPECT(ct_symm_size(b) == 4096 && ((uintptr_t)mine & 63) == 0);
    for (int i = 0; i < 4096; i++)
        EXPECT(mine[i] == 0);
    OK(ct_dist_barrier(world)); /* every rank has looked at its part before peers write into it */
    /* A ring: put 4 ints into the next rank's part, then signal its slot 0 (ordered after the
     * put); wait for my own slot 0 and read what the previous rank put into my part. */
    int next = (R + 1) % N, prev = (R + N - 1) % N;
    int32_t msg[4], got[4];
    for (int i = 0; i < 4; i++)
        msg[i] = 10 * R + i;
    OK(ct_symm_put(b, next, 0, msg, sizeof msg));
    OK(ct_symm_signal(b, next, 0, 1));
    OK(ct_symm_wait(b, 0, 1));
    memcpy(got, mine, sizeof got);
    for (int i = 0; i < 4; i++)
        EXPECT(got[i] == 10 * prev + i);
    if (R == 0)
        printf("symm put/signal/wait: rank 0 received [%d, %d, %d, %d] from rank %d\n", got[0],
               got[1], got[2], got[3], prev);
    /* get: read the next rank's part back (it holds what I put there). */
    OK(ct_symm_get(b, next, 0, got, sizeof got));
    EXPECT(memcmp(got, msg, sizeof msg) == 0);
    /* peer_ptr: on a node-local group the peer's part is mapped here (plain loads); NULL
     * otherwise (other nodes, or CT_DIST_SHM=0). */
    const int32_t *peer = ct_symm_peer_ptr(b, next);
    if (peer) EXPECT(memcmp(peer, msg, sizeof msg) == 0);
    EXPECT(peer != NULL || !ct_dist_is_node_local(world) || getenv("CT_DIST_SHM"));
    if (R == 0)
        printf("symm get and peer_ptr: rank %d's part %s\n", next,
               peer ? "is mapped here" : "is not mapped (RMA)");
    /* error path: a peer outside the group */
    ct_status st = ct_symm_put(b, N, 0, msg, sizeof msg);
    EXPECT(st == CT_ERR_INVALID_ARG);
    if (R == 0)
        printf("symm_put to rank %d: %s: %s\n", N, ct_status_str(st), ct_ctx_last_error(ctx));
    /* symm_tensor: a float32 [2] view of my part at byte 64; the collectives read such tensors
     * straight from the peers' buffers. Writing through the buffer changes the tensor. */
    int64_t n2 = 2, nn = 2 * N;
    ct_tensor *view = NULL, *all = NULL;
    OK(ct_symm_tensor(b, 64, CT_FLOAT32, 1, &n2, &view));
    float fv[2] = {(float)(R + 1), 0.5f * (float)(R + 1)}, fg[2 * MAXR];
    memcpy(mine + 64, fv, sizeof fv);
    OK(ct_tensor_zeros(ctx, CT_FLOAT32, 1, &nn, &all));
    OK(ct_dist_all_gather(world, view, all));
    OK(ct_tensor_to_host(all, fg, sizeof(float) * (size_t)nn));
    for (int j = 0; j < N; j++)
        EXPECT(fg[2 * j] == (float)(j + 1) && fg[2 * j + 1] == 0.5f * (float)(j + 1));
    if (R == 0) printf("all_gather of symmetric tensors: [%g, %g, ...]\n", fg[0], fg[1]);
    ct_tensor_release(view), ct_tensor_release(all); /* views first: b must outlive them */
    OK(ct_dist_barrier(world)); /* every rank has finished reading its peers' parts */
    ct_symm_free(b);            /* collective */
    return 0;
}

int main(int argc, char **argv) {
    ct_dist *world = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    OK(ct_dist_init(ctx, &argc, &argv, &world));
    R = ct_dist_rank(world), N = ct_dist_size(world);
    if (N > MAXR) {
        fprintf(stderr, "this example runs on at most %d ranks\n", MAXR);
        return 1;
    }
    if (demo_group(world) || demo_split(world) || demo_collectives(world) || demo_nn(world) ||
        demo_nn_2d(world) || demo_symm(world))
        return 1;        /* leaves MPI running: mpirun ends the whole job with a failure */
    ct_dist_free(world); /* finalizes MPI (ct_dist_init started it) */
    ct_ctx_free(ctx);
    return 0;
}

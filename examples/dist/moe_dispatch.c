/* A top-2 mixture-of-experts layer over N processes: every rank routes its tokens, dispatches them
 * to the ranks owning the chosen experts with ct_dist_all_to_all_v_2d, runs its local experts on
 * the expert-major segments it received, returns the results with the combine call and mixes them
 * with the router weights. Each rank checks its output against the same layer computed locally
 * (every expert on every token), so the exchange is verified end to end.
 * Run: mpirun -np 4 ./build/example_moe_dispatch   (any number of ranks, 1 included) */
#include <ctorch/ctorch.h>
#include <ctorch/dist.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKENS 96 /* per rank */
#define DIM 32
#define EXPERTS_PER_RANK 2
#define TOPK 2
#define ALIGN 8 /* expert segments padded to a multiple of 8 rows (as grouped GEMMs like) */

static ct_ctx *ctx;
#define TRY(x)                                                                                     \
    do {                                                                                           \
        ct_status st_ = (x);                                                                       \
        if (st_ != CT_OK) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, ct_ctx_last_error(ctx));    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Deterministic values: every rank can build any rank's tokens and every expert's weights. */
static float hashf(uint64_t a, uint64_t b) {
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return (float)((double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

/* y = tanh(x @ W_e) for the rows of x (an [rows, DIM] tensor), expert e's W = [DIM, DIM]. */
static ct_tensor *expert(int e, const ct_tensor *x) {
    static float w[DIM * DIM];
    for (int i = 0; i < DIM * DIM; i++)
        w[i] = hashf(1000 + (uint64_t)e, (uint64_t)i) / sqrtf(DIM);
    int64_t ws[2] = {DIM, DIM};
    ct_tensor *W, *h, *y;
    TRY(ct_tensor_from_host(ctx, w, CT_FLOAT32, 2, ws, &W));
    TRY(ct_matmul(ctx, x, W, &h));
    TRY(ct_tanh(ctx, h, &y));
    ct_tensor_release(W), ct_tensor_release(h);
    return y;
}

/* The router: top-2 experts of softmax(x @ G) per token, weights renormalised over the two. */
static void route(const float *x, int n_experts, int *choice, float *weight) {
    for (int t = 0; t < TOKENS; t++) {
        double logit[64], best[TOPK] = {-1e300, -1e300};
        int arg[TOPK] = {0, 0};
        for (int e = 0; e < n_experts; e++) {
            double s = 0;
            for (int d = 0; d < DIM; d++)
                s += x[t * DIM + d] * hashf(7, (uint64_t)(e * DIM + d));
            logit[e] = s;
            if (s > best[0]) {
                best[1] = best[0], arg[1] = arg[0];
                best[0] = s, arg[0] = e;
            } else if (s > best[1]) {
                best[1] = s, arg[1] = e;
            }
        }
        (void)logit;
        /* softmax over all experts, renormalised over the top two = softmax over the two */
        double z = exp(best[1] - best[0]);
        choice[t * TOPK] = arg[0], choice[t * TOPK + 1] = arg[1];
        weight[t * TOPK] = (float)(1 / (1 + z)), weight[t * TOPK + 1] = (float)(z / (1 + z));
    }
}

int main(int argc, char **argv) {
    ct_dist *g;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    TRY(ct_dist_init(ctx, &argc, &argv, &g));
    int rank = ct_dist_rank(g), size = ct_dist_size(g), E = EXPERTS_PER_RANK;
    int n_experts = size * E; /* global expert x lives on rank x / E as local expert x % E */
    if (n_experts > 64) {
        fprintf(stderr, "at most 32 ranks in this example\n");
        return 1;
    }
    static float x[TOKENS * DIM], w[TOKENS * TOPK];
    static int choice[TOKENS * TOPK];
    for (int i = 0; i < TOKENS * DIM; i++)
        x[i] = hashf((uint64_t)rank, (uint64_t)i);
    route(x, n_experts, choice, w);

    /* 1. group the (token, k) rows rank-major by (destination rank, local expert) */
    int64_t ns = n_experts, *splits = calloc((size_t)ns, sizeof(int64_t));
    int nrows = TOKENS * TOPK, *row_of = malloc(sizeof(int) * (size_t)nrows);
    for (int i = 0; i < nrows; i++)
        splits[choice[i]]++; /* group index = rank * E + local = global expert id */
    int64_t *start = calloc((size_t)ns + 1, sizeof(int64_t));
    for (int64_t k = 0; k < ns; k++)
        start[k + 1] = start[k] + splits[k];
    float *send = malloc(sizeof(float) * (size_t)nrows * DIM);
    int64_t *fill = calloc((size_t)ns, sizeof(int64_t));
    for (int i = 0; i < nrows; i++) {
        int64_t r = start[choice[i]] + fill[choice[i]]++;
        row_of[i] = (int)r;
        memcpy(send + r * DIM, x + (i / TOPK) * DIM, sizeof(float) * DIM);
    }
    ct_tensor *in, *in_splits, *out, *oso;
    int64_t sin[2] = {nrows, DIM}, s2[2] = {2, ns};
    /* upper bound of rows received: every token of every rank, plus padding */
    int64_t cap = (int64_t)size * TOKENS * TOPK + (int64_t)E * ALIGN, sout[2] = {cap, DIM};
    TRY(ct_tensor_from_host(ctx, send, CT_FLOAT32, 2, sin, &in));
    TRY(ct_tensor_from_host(ctx, splits, CT_INT64, 1, &ns, &in_splits));
    TRY(ct_tensor_zeros(ctx, CT_FLOAT32, 2, sout, &out));
    TRY(ct_tensor_zeros(ctx, CT_INT64, 2, s2, &oso));

    /* 2. dispatch: out is expert-major, each expert's rows from ranks 0, 1, ... */
    TRY(ct_dist_all_to_all_v_2d(g, in, in_splits, out, oso, ALIGN));
    int64_t *lay = malloc(sizeof(int64_t) * 2 * (size_t)ns);
    TRY(ct_tensor_to_host(oso, lay, sizeof(int64_t) * 2 * (size_t)ns));

    /* 3. each local expert runs once on its whole segment (chunks (e, 0..size-1) are adjacent) */
    for (int e = 0; e < E; e++) {
        int64_t seg0 = lay[ns + e * size], rows = 0;
        for (int r = 0; r < size; r++)
            rows += lay[e * size + r];
        if (rows == 0) continue;
        ct_tensor *seg, *y;
        TRY(ct_tensor_narrow(ctx, out, 0, seg0, rows, &seg));
        y = expert(rank * E + e, seg);
        TRY(ct_tensor_copy_(ctx, seg, y)); /* results in place of the inputs */
        ct_tensor_release(seg), ct_tensor_release(y);
        if (rank == 0 && e == 0) printf("rank 0 expert 0: %lld rows\n", (long long)rows);
    }

    /* 4. combine: the processed rows come back in the order dispatch read them */
    ct_tensor *back, *back_splits;
    TRY(ct_tensor_zeros(ctx, CT_FLOAT32, 2, sin, &back));
    TRY(ct_tensor_zeros(ctx, CT_INT64, 1, &ns, &back_splits));
    TRY(ct_dist_all_to_all_v_2d_combine(g, out, oso, back, back_splits));
    float *yb = malloc(sizeof(float) * (size_t)nrows * DIM);
    TRY(ct_tensor_to_host(back, yb, sizeof(float) * (size_t)nrows * DIM));

    /* 5. mix with the router weights, and check against the layer computed on this process */
    ct_tensor *X;
    int64_t sx[2] = {TOKENS, DIM};
    TRY(ct_tensor_from_host(ctx, x, CT_FLOAT32, 2, sx, &X));
    float *ref = calloc((size_t)TOKENS * DIM, sizeof(float)),
          *ye = malloc(sizeof(float) * TOKENS * DIM);
    double err = 0;
    for (int ex = 0; ex < n_experts; ex++) {
        ct_tensor *y = expert(ex, X);
        TRY(ct_tensor_to_host(y, ye, sizeof(float) * TOKENS * DIM));
        ct_tensor_release(y);
        for (int i = 0; i < nrows; i++)
            if (choice[i] == ex)
                for (int d = 0; d < DIM; d++)
                    ref[(i / TOPK) * DIM + d] += w[i] * ye[(i / TOPK) * DIM + d];
    }
    for (int t = 0; t < TOKENS; t++)
        for (int d = 0; d < DIM; d++) {
            float o = 0;
            for (int k = 0; k < TOPK; k++)
                o += w[t * TOPK + k] * yb[row_of[t * TOPK + k] * DIM + d];
            err = fmax(err, fabs(o - ref[t * DIM + d]));
        }
    int64_t *bs = malloc(sizeof(int64_t) * (size_t)ns);
    TRY(ct_tensor_to_host(back_splits, bs, sizeof(int64_t) * (size_t)ns));
    int splits_ok = memcmp(bs, splits, sizeof(int64_t) * (size_t)ns) == 0;
    double gerr = 0;
    {
        /* the worst error over all ranks */
        int64_t one = 1;
        ct_tensor *e1;
        TRY(ct_tensor_full(ctx, CT_FLOAT64, 1, &one, err + (splits_ok ? 0 : 1e9), &e1));
        TRY(ct_dist_all_reduce(g, e1, CT_REDUCE_MAX));
        TRY(ct_tensor_item(e1, &gerr));
        ct_tensor_release(e1);
    }
    if (rank == 0)
        printf("moe top-%d: %d ranks x %d experts, %d tokens per rank; max |distributed - local| = "
               "%.3g\n",
               TOPK, size, E, TOKENS, gerr);
    ct_tensor_release(in), ct_tensor_release(in_splits), ct_tensor_release(out);
    ct_tensor_release(oso), ct_tensor_release(back), ct_tensor_release(back_splits);
    ct_tensor_release(X);
    free(splits), free(row_of), free(start), free(send), free(fill), free(lay), free(yb);
    free(ref), free(ye), free(bs);
    ct_dist_free(g);
    ct_ctx_free(ctx);
    return gerr <= 1e-5 ? 0 : 1;
}

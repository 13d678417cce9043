/* Data-parallel training of the digits MLP (64-128-10, relu) on N processes, as torch's
 * DistributedDataParallel does it: every rank holds the whole model, takes its shard of each global
 * batch, back-propagates, and the gradients are summed over ranks with ct_dist_all_reduce in
 * buckets (parameters packed into flat buffers of at most BUCKET_BYTES) before the same SGD step
 * everywhere. After every step the example checks that the parameters are bit-identical on all
 * ranks and within 1e-6 of the same step taken by a single process on the whole global batch
 * (each rank takes that reference step from the same parameters), and at the end that the test
 * accuracy is at least 90%. The reference evaluates its forward pass in the same row blocks as
 * the shards (rows are independent, so it is the same batch), because BLAS may round a row
 * differently at another matrix size and a relu flipped by one ulp would dominate the comparison;
 * what is compared is the gradient arithmetic; the difference to a forward pass in one piece is
 * printed too. (Whole trajectories drift apart by more: the shards
 * sum the batch in another order and training amplifies last-bit differences, as with torch DDP.)
 * Run: mpirun -np 4 ./build/example_ddp_digits [path/to/digits.bin] */
#include "../digits_common.h"

#include <ctorch/dist.h>
#include <string.h>

#define EPOCHS 8
#define LR 0.1
#define BUCKET_BYTES (16 << 10)

static ct_ctx *ctx;

static ct_tensor *forward(ct_tensor *x, ct_tensor *const *p) {
    return digits_mlp_forward(ctx, x, p);
}

/* Gradients of p (4 tensors) for rows [lo, hi) of the batch, scaled by 1 / batch (the sum over
 * the shards is then the gradient of the global batch's mean loss). The forward pass runs in
 * `blocks` row blocks of [lo, hi) split as the ranks split a batch (1: in one piece). */
static void grads(ct_tensor *const *p, ct_tensor *X, ct_tensor *Y, int64_t lo, int64_t hi,
                  int64_t batch, int blocks) {
    for (int i = 0; i < 4; i++)
        TRY(ct_tensor_zero_grad(p[i]));
    if (hi <= lo) return; /* an empty shard contributes zeros */
    ct_tensor *yb, *logits, *l, *ls, *part[64];
    int np = 0;
    for (int r = 0; r < blocks; r++) {
        int64_t a = lo + (hi - lo) * r / blocks, b = lo + (hi - lo) * (r + 1) / blocks;
        if (b == a) continue;
        ct_tensor *xb;
        TRY(ct_tensor_narrow(ctx, X, 0, a, b - a, &xb));
        part[np++] = forward(xb, p);
        ct_tensor_release(xb);
    }
    TRY(ct_cat(ctx, np, (const ct_tensor *const *)part, 0, &logits));
    TRY(ct_tensor_narrow(ctx, Y, 0, lo, hi - lo, &yb));
    TRY(ct_cross_entropy(ctx, logits, yb, CT_REDUCTION_SUM, 0.0, &l));
    TRY(ct_mul_scalar(ctx, l, 1.0 / (double)batch, &ls));
    TRY(ct_backward(ctx, ls, NULL, false));
    for (int i = 0; i < np; i++)
        ct_tensor_release(part[i]);
    ct_tensor_release(yb), ct_tensor_release(logits);
    ct_tensor_release(l), ct_tensor_release(ls);
}

/* Sum the gradients over ranks: pack into buckets, all-reduce each, unpack. g[i] receive the sums
 * (new tensors; zeros where a rank had no gradient). */
static void all_reduce_grads(ct_dist *g, ct_tensor *const *p, ct_tensor **sum) {
    static float bucket[BUCKET_BYTES / 4];
    int64_t fill = 0;
    int first = 0;
    for (int i = 0; i <= 4; i++) {
        int64_t n = i < 4 ? ct_tensor_numel(p[i]) : 0;
        /* flush when the next parameter does not fit (or at the end) */
        if (i == 4 || (fill && (fill + n) * 4 > BUCKET_BYTES)) {
            ct_tensor *b;
            TRY(ct_tensor_from_blob(ctx, bucket, CT_FLOAT32, 1, &fill, NULL, NULL, NULL, &b));
            TRY(ct_dist_all_reduce(g, b, CT_REDUCE_SUM));
            ct_tensor_release(b);
            int64_t off = 0;
            for (int j = first; j < i; j++) {
                int64_t m = ct_tensor_numel(p[j]);
                TRY(ct_tensor_from_host(ctx, bucket + off, CT_FLOAT32, ct_tensor_ndim(p[j]),
                                        ct_tensor_shape(p[j]), &sum[j]));
                off += m;
            }
            fill = 0, first = i;
        }
        if (i == 4) break;
        if (n * 4 > BUCKET_BYTES) { /* a large parameter is its own bucket, reduced in place */
            ct_tensor *gr = ct_tensor_grad(p[i]);
            if (gr)
                TRY(ct_tensor_clone(ctx, gr, &sum[i]));
            else
                TRY(ct_tensor_zeros(ctx, CT_FLOAT32, ct_tensor_ndim(p[i]), ct_tensor_shape(p[i]),
                                    &sum[i]));
            TRY(ct_dist_all_reduce(g, sum[i], CT_REDUCE_SUM));
            first = i + 1;
            continue;
        }
        ct_tensor *gr = ct_tensor_grad(p[i]);
        if (gr)
            TRY(ct_tensor_to_host(gr, bucket + fill, (size_t)n * 4));
        else
            memset(bucket + fill, 0, (size_t)n * 4);
        fill += n;
    }
}

/* Largest |a - b| over the parameters; and whether they are bit-identical on every rank. */
static double max_diff(ct_tensor *const *a, ct_tensor *const *b) {
    double m = 0;
    for (int i = 0; i < 4; i++) {
        int64_t n = ct_tensor_numel(a[i]);
        float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4);
        TRY(ct_tensor_to_host(a[i], x, (size_t)n * 4));
        TRY(ct_tensor_to_host(b[i], y, (size_t)n * 4));
        for (int64_t k = 0; k < n; k++)
            m = fmax(m, fabs((double)x[k] - (double)y[k]));
        free(x), free(y);
    }
    return m;
}
static bool same_everywhere(ct_dist *g, ct_tensor *const *p) {
    bool same = true;
    for (int i = 0; i < 4 && same; i++) {
        ct_tensor *mx, *mn, *d, *s;
        TRY(ct_tensor_clone(ctx, p[i], &mx));
        TRY(ct_tensor_clone(ctx, p[i], &mn));
        TRY(ct_dist_all_reduce(g, mx, CT_REDUCE_MAX));
        TRY(ct_dist_all_reduce(g, mn, CT_REDUCE_MIN));
        TRY(ct_sub(ctx, mx, mn, &d));
        TRY(ct_abs(ctx, d, &s));
        ct_tensor *m;
        TRY(ct_amax(ctx, s, 0, NULL, false, &m));
        double v;
        TRY(ct_tensor_item(m, &v));
        same = v == 0;
        ct_tensor_release(mx), ct_tensor_release(mn), ct_tensor_release(d);
        ct_tensor_release(s), ct_tensor_release(m);
    }
    return same;
}

int main(int argc, char **argv) {
    ct_dist *g;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    TRY(ct_dist_init(ctx, &argc, &argv, &g));
    int rank = ct_dist_rank(g), size = ct_dist_size(g);
    if (size > 64) {
        fprintf(stderr, "at most 64 ranks in this example\n");
        return 1;
    }
    const char *path = argc > 1 ? argv[1] : CT_SOURCE_DIR "/examples/data/digits.bin";
    static float xtr[N_TRAIN][IN], xte[N_TEST][IN];
    static int64_t ytr[N_TRAIN], yte[N_TEST];
    if (!digits_load(path, xtr, ytr, xte, yte)) return 1;
    ct_tensor *Xtr, *Xte, *Ytr, *p[4], *ref[4], *one[4];
    digits_tensors(ctx, xtr, ytr, xte, &Xtr, &Xte, &Ytr);
    digits_mlp_params(ctx, p);   /* same seeds on every rank: the same initial model */
    digits_mlp_params(ctx, ref); /* the single-process reference step */
    digits_mlp_params(ctx, one); /* the same with the forward pass in one piece (reported) */
    ct_optim_options oo = ct_optim_options_default(CT_OPTIM_SGD);
    oo.lr = LR;
    ct_optim *opt, *ref_opt, *one_opt;
    TRY(ct_optim_create(ctx, &oo, 4, p, &opt));
    TRY(ct_optim_create(ctx, &oo, 4, ref, &ref_opt));
    TRY(ct_optim_create(ctx, &oo, 4, one, &one_opt));
    double worst = 0, worst_one = 0;
    bool identical = true;
    int steps = 0;
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        for (int64_t b0 = 0; b0 < N_TRAIN; b0 += BATCH) {
            int64_t nb = N_TRAIN - b0 < BATCH ? N_TRAIN - b0 : BATCH;
            /* the reference starts from the same parameters */
            bool was = ct_set_grad_enabled(ctx, false);
            for (int i = 0; i < 4; i++) {
                TRY(ct_tensor_copy_(ctx, ref[i], p[i]));
                TRY(ct_tensor_copy_(ctx, one[i], p[i]));
            }
            ct_set_grad_enabled(ctx, was);
            /* this rank's shard of the global batch */
            int64_t lo = b0 + nb * rank / size, hi = b0 + nb * (rank + 1) / size;
            grads(p, Xtr, Ytr, lo, hi, nb, 1);
            ct_tensor *sum[4] = {0};
            all_reduce_grads(g, p, sum);
            TRY(ct_optim_step(opt, sum));
            for (int i = 0; i < 4; i++)
                ct_tensor_release(sum[i]);
            /* the reference: the whole global batch on this process */
            grads(ref, Xtr, Ytr, b0, b0 + nb, nb, size);
            ct_tensor *rg[4];
            for (int i = 0; i < 4; i++)
                rg[i] = ct_tensor_grad(ref[i]);
            TRY(ct_optim_step(ref_opt, rg));
            grads(one, Xtr, Ytr, b0, b0 + nb, nb, 1);
            for (int i = 0; i < 4; i++)
                rg[i] = ct_tensor_grad(one[i]);
            TRY(ct_optim_step(one_opt, rg));
            worst = fmax(worst, max_diff(p, ref));
            worst_one = fmax(worst_one, max_diff(p, one));
            if (steps++ % 23 == 0) identical = identical && same_everywhere(g, p);
        }
        if (rank == 0 && epoch % 4 == 3)
            printf("epoch %d: max |ddp step - single-process step| so far %.3g\n", epoch + 1,
                   worst);
    }
    identical = identical && same_everywhere(g, p);
    ct_set_grad_enabled(ctx, false);
    ct_tensor *logits = forward(Xte, p);
    double acc = digits_accuracy(ctx, logits, yte);
    if (rank == 0)
        printf("ddp on %d ranks, %d steps: parameters identical on all ranks: %s; max |ddp - "
               "single-process step| %.3g (forward in one piece: %.3g); test accuracy %.2f%%\n",
               size, steps, identical ? "yes" : "NO", worst, worst_one, 100 * acc);
    ct_tensor_release(logits);
    ct_optim_free(opt), ct_optim_free(ref_opt), ct_optim_free(one_opt);
    for (int i = 0; i < 4; i++)
        ct_tensor_release(p[i]), ct_tensor_release(ref[i]), ct_tensor_release(one[i]);
    ct_tensor_release(Xtr), ct_tensor_release(Xte), ct_tensor_release(Ytr);
    ct_dist_free(g);
    ct_ctx_free(ctx);
    return identical && worst <= 1e-6 && acc >= 0.90 ? 0 : 1;
}

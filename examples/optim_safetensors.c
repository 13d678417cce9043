/* Fused Adam on a least-squares fit, with the step captured once as a graph and replayed, a
 * learning-rate decay written into ct_optim_lr between replays, then weights and optimizer state
 * saved to safetensors and training resumed from the files in a new optimizer (same bits).
 * Gradients are written by hand with ops here: grad = 2/N * X^T (X w - y). */
#include <ctorch/ctorch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 64
#define D 4
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != CT_OK) {                                                                     \
            fprintf(stderr, "%s: %s\n", #call, ct_ctx_last_error(ctx));                            \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static ct_ctx *ctx;
static ct_tensor *X, *Xt, *Y;

/* grad (D) = 2/N * X^T (X w - y); loss = mean((X w - y)^2) when loss is not NULL. */
static int gradient(ct_tensor *w, ct_tensor *grad, double *loss) {
    ct_tensor *p, *r, *g, *g2;
    TRY(ct_matmul(ctx, X, w, &p));
    TRY(ct_sub(ctx, p, Y, &r));
    TRY(ct_matmul(ctx, Xt, r, &g));
    TRY(ct_mul_scalar(ctx, g, 2.0 / N, &g2));
    TRY(ct_tensor_copy_(ctx, grad, g2));
    if (loss) {
        ct_tensor *sq, *m;
        TRY(ct_mul(ctx, r, r, &sq));
        TRY(ct_mean(ctx, sq, 0, NULL, false, &m));
        float v;
        TRY(ct_tensor_to_host(m, &v, sizeof v));
        *loss = v;
        ct_tensor_release(sq), ct_tensor_release(m);
    }
    ct_tensor_release(p), ct_tensor_release(r), ct_tensor_release(g), ct_tensor_release(g2);
    return 0;
}

int main(void) {
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    float xv[N * D], yv[N], wtrue[D] = {1.5f, -2.0f, 0.25f, 3.0f};
    unsigned s = 1;
    for (int i = 0; i < N * D; i++) {
        s = s * 1103515245u + 12345u;
        xv[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
    for (int i = 0; i < N; i++) {
        yv[i] = 0;
        for (int j = 0; j < D; j++)
            yv[i] += xv[i * D + j] * wtrue[j];
    }
    int64_t xs[2] = {N, D}, ys[1] = {N}, ws[1] = {D};
    ct_tensor *w, *grad, *Xtv;
    TRY(ct_tensor_from_host(ctx, xv, CT_FLOAT32, 2, xs, &X));
    TRY(ct_tensor_transpose(ctx, X, 0, 1, &Xtv));
    TRY(ct_tensor_contiguous(ctx, Xtv, &Xt));
    TRY(ct_tensor_from_host(ctx, yv, CT_FLOAT32, 1, ys, &Y));
    TRY(ct_tensor_zeros(ctx, CT_FLOAT32, 1, ws, &w));
    TRY(ct_tensor_zeros(ctx, CT_FLOAT32, 1, ws, &grad));

    ct_optim_options o = ct_optim_options_default(CT_OPTIM_ADAM); /* impl FUSED */
    o.lr = 0.1;
    ct_optim *opt;
    TRY(ct_optim_create(ctx, &o, 1, &w, &opt));
    /* capture gradient + step once; each replay is one training step */
    ct_graph *g;
    TRY(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    TRY(ct_graph_capture_begin(g, NULL));
    if (gradient(w, grad, NULL)) return 1;
    TRY(ct_optim_step(opt, &grad));
    TRY(ct_graph_capture_end(g));
    double loss = 0;
    for (int step = 1; step <= 300; step++) {
        TRY(ct_graph_replay(g));
        if (step % 100 == 0) {
            TRY(ct_mul_scalar_(ctx, ct_optim_lr(opt), 0.5)); /* seen by the next replay */
            if (gradient(w, grad, &loss)) return 1;
            printf("step %d  loss %.3g\n", step, loss);
        }
    }
    /* save weights and optimizer state, resume in a fresh optimizer from the files */
    char wpath[64], spath[64];
    snprintf(wpath, sizeof wpath, "/tmp/ctorch_example_w_%d.safetensors", (int)getpid());
    snprintf(spath, sizeof spath, "/tmp/ctorch_example_adam_%d.safetensors", (int)getpid());
    const char *names[1] = {"w"}, *meta[] = {"model", "least squares", NULL};
    const ct_tensor *ts[1] = {w};
    TRY(ct_safetensors_save(ctx, wpath, 1, names, ts, meta));
    TRY(ct_optim_save_state(opt, spath));
    ct_safetensors *f;
    ct_tensor *w2;
    TRY(ct_safetensors_load(ctx, wpath, &f));
    TRY(ct_safetensors_get(f, "w", &w2));
    printf("loaded \"w\" (%s) from %s\n", ct_safetensors_metadata(f, "model"), wpath);
    ct_safetensors_free(f);
    ct_optim *opt2;
    TRY(ct_optim_create(ctx, &o, 1, &w2, &opt2));
    TRY(ct_optim_load_state(opt2, spath));
    for (int step = 0; step < 20; step++) {
        if (gradient(w, grad, NULL)) return 1;
        TRY(ct_optim_step(opt, &grad));
        if (gradient(w2, grad, NULL)) return 1;
        TRY(ct_optim_step(opt2, &grad));
    }
    float a[D], b[D];
    TRY(ct_tensor_to_host(w, a, sizeof a));
    TRY(ct_tensor_to_host(w2, b, sizeof b));
    printf("w = [%.4f %.4f %.4f %.4f], resumed run identical: %s\n", a[0], a[1], a[2], a[3],
           memcmp(a, b, sizeof a) == 0 ? "yes" : "no");
    int ok = memcmp(a, b, sizeof a) == 0 && loss < 1e-3;
    for (int j = 0; j < D; j++)
        ok = ok && fabsf(a[j] - wtrue[j]) < 0.05f;
    remove(wpath), remove(spath);
    ct_graph_free(g);
    ct_optim_free(opt), ct_optim_free(opt2);
    ct_tensor *all[] = {X, Xt, Xtv, Y, w, w2, grad};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    ct_ctx_free(ctx);
    return ok ? 0 : 1;
}

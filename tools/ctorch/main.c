/* ctorch command-line tool: --help, --version, info, demo. */
#include "ctorch/ctorch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f) {
    fprintf(f, "usage: ctorch [--help] [--version] <command> [options]\n"
               "\n"
               "commands:\n"
               "  info     version, detected CPU ISA, backends, threads, linked BLAS\n"
               "  demo     a short tour of what ctorch does\n"
               "\n"
               "Run 'ctorch <command> --help' for a command's options.\n"
               "Environment: CT_CPU_ISA=ref|avx2|avx512 forces a kernel ISA.\n");
}

static int fail(ct_ctx *ctx, ct_status st, const char *what) {
    fprintf(stderr, "ctorch: %s failed: %s: %s\n", what, ct_status_str(st),
            ctx ? ct_ctx_last_error(ctx) : "");
    return 1;
}

static int cmd_info(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: ctorch info\nPrints the library version, CPU ISA, backends, threads and "
               "BLAS.\n");
        return 0;
    }
    ct_ctx *ctx;
    ct_status st = ct_ctx_create(NULL, &ctx);
    if (st != CT_OK) return fail(NULL, st, "creating a context");
    printf("ctorch %s\n", ct_version());
    printf("cpu isa:   %s (best on this CPU: %s)\n", ct_ctx_cpu_isa(ctx), ct_cpu_best_isa());
    printf("threads:   %d\n", ct_ctx_num_threads(ctx));
    printf("backends: ");
    for (int i = 0; i < ct_backend_count(ctx); i++)
        printf(" %s", ct_backend_name(ctx, i));
    printf("\nblas:      %s\n", ct_blas_info());
    ct_ctx_free(ctx);
    return 0;
}

/* Print up to 8 values of a float64 tensor. */
static void print_tensor(const char *name, const ct_tensor *t) {
    int64_t n = ct_tensor_numel(t);
    printf("%s %s [", name, ct_dtype_name(ct_tensor_dtype(t)));
    for (int i = 0; i < ct_tensor_ndim(t); i++)
        printf(i ? ", %lld" : "%lld", (long long)ct_tensor_shape(t)[i]);
    printf("] =");
    double *buf = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (buf && ct_tensor_to_host(t, buf, sizeof(double) * (size_t)n) == CT_OK)
        for (int64_t i = 0; i < n && i < 8; i++)
            printf(" %.5g", buf[i]);
    if (n > 8) printf(" ...");
    printf("\n");
    free(buf);
}

/* Quantize a Gaussian weight to every MX format and print the SQNR of the round trip. */
static ct_status demo_mx(ct_ctx *ctx) {
    int64_t shape[2] = {256, 256};
    ct_tensor *w = NULL;
    ct_status st = ct_tensor_randn(ctx, CT_FLOAT32, 2, shape, 7, 0, &w);
    if (st != CT_OK) return st;
    float *ref = malloc(sizeof(float) * 65536), *back = malloc(sizeof(float) * 65536);
    if (!ref || !back) st = CT_ERR_OOM;
    if (st == CT_OK) st = ct_tensor_to_host(w, ref, sizeof(float) * 65536);
    printf("\nMX quantization of a 256x256 Gaussian weight (block 32, FLOOR scales):\n");
    for (int f = 0; f < CT_MX_FORMAT_COUNT && st == CT_OK; f++) {
        ct_mx_tensor *q = NULL;
        ct_tensor *d = NULL;
        st = ct_mx_quantize(ctx, w, (ct_mx_format)f, 32, -1, CT_MX_SCALE_FLOOR, &q);
        if (st == CT_OK) st = ct_mx_dequantize(ctx, q, CT_FLOAT32, &d);
        if (st == CT_OK) st = ct_tensor_to_host(d, back, sizeof(float) * 65536);
        if (st == CT_OK) {
            double sig = 0, err = 0;
            for (int i = 0; i < 65536; i++) {
                sig += (double)ref[i] * ref[i];
                err += ((double)ref[i] - back[i]) * ((double)ref[i] - back[i]);
            }
            printf("  %-12s SQNR %5.1f dB\n", ct_mx_format_name((ct_mx_format)f),
                   10 * log10(sig / (err > 0 ? err : 1e-300)));
        }
        ct_tensor_release(d);
        ct_mx_tensor_free(q);
    }
    free(ref);
    free(back);
    ct_tensor_release(w);
    return st;
}

/* cond branches for the graph demo: relu(x) + 1 or -x */
static ct_status demo_pos(ct_ctx *ctx, void *u, int n, ct_tensor *const *ops, int no,
                          ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    ct_tensor *r = NULL;
    ct_status st = ct_relu(ctx, ops[0], &r);
    if (st == CT_OK) st = ct_add(ctx, r, ops[1], &outs[0]);
    ct_tensor_release(r);
    return st;
}
static ct_status demo_neg(ct_ctx *ctx, void *u, int n, ct_tensor *const *ops, int no,
                          ct_tensor **outs) {
    (void)u, (void)n, (void)no;
    return ct_neg(ctx, ops[0], &outs[0]);
}

/* A small model with a data-dependent branch: y = cond(p, relu(x)+1, -x) * 0.5 repeated. */
static ct_status demo_model(ct_ctx *ctx, ct_tensor *x, ct_tensor *one, ct_tensor *p,
                            ct_tensor **y) {
    ct_tensor *h = ct_tensor_retain(x);
    ct_status st = CT_OK;
    for (int i = 0; i < 50 && st == CT_OK; i++) {
        ct_tensor *ops[2] = {h, one}, *c = NULL, *m = NULL;
        st = ct_cond(ctx, p, demo_pos, demo_neg, NULL, 2, ops, 1, &c);
        if (st == CT_OK) st = ct_mul(ctx, c, one, &m);
        ct_tensor_release(c);
        ct_tensor_release(h);
        h = m;
    }
    *y = h;
    return st;
}

static ct_status demo_graph(ct_ctx *ctx) {
    int64_t s[1] = {16};
    ct_tensor *x = NULL, *one = NULL, *p = NULL, *y = NULL, *e = NULL;
    ct_graph *g = NULL;
    ct_status st = ct_tensor_randn(ctx, CT_FLOAT32, 1, s, 5, 0, &x);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT32, 1, s, 1.0, &one);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT32, 0, NULL, 1.0, &p);
    if (st == CT_OK) st = ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g);
    if (st == CT_OK) st = ct_graph_capture_begin(g, NULL);
    if (st == CT_OK) st = demo_model(ctx, x, one, p, &y);
    if (st == CT_OK) st = ct_graph_capture_end(g);
    if (st != CT_OK) goto done;
    struct timespec t0, t1;
    int reps = 2000;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < reps && st == CT_OK; i++) {
        ct_tensor_release(e);
        e = NULL;
        st = demo_model(ctx, x, one, p, &e);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double eager =
        ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) / reps;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < reps && st == CT_OK; i++)
        st = ct_graph_replay(g);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double replay =
        ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)) / reps;
    float ye[16], yr[16];
    if (st == CT_OK) st = ct_tensor_to_host(e, ye, sizeof ye);
    if (st == CT_OK) st = ct_tensor_to_host(y, yr, sizeof yr);
    if (st == CT_OK)
        printf(
            "\ngraph: 50 x (cond + mul) on 16 floats captured as %lld nodes; eager %.1f us, replay "
            "%.1f us (%.1fx), results %s\n",
            (long long)ct_graph_num_nodes(g), eager * 1e6, replay * 1e6, eager / replay,
            memcmp(ye, yr, sizeof ye) == 0 ? "identical" : "DIFFER");
done:
    ct_graph_free(g);
    ct_tensor *all[] = {x, one, p, y, e};
    for (int i = 0; i < 5; i++)
        ct_tensor_release(all[i]);
    return st;
}

static int cmd_demo(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: ctorch demo\nRuns a short tour: tensors, broadcasting, reductions, softmax, "
               "matmul.\n");
        return 0;
    }
    ct_ctx *ctx;
    ct_status st = ct_ctx_create(NULL, &ctx);
    if (st != CT_OK) return fail(NULL, st, "creating a context");
    printf("ctorch %s demo (isa %s, %d threads)\n\n", ct_version(), ct_ctx_cpu_isa(ctx),
           ct_ctx_num_threads(ctx));
    ct_tensor *a = NULL, *b = NULL, *c = NULL, *s = NULL, *sm = NULL, *w = NULL, *y = NULL;
    int64_t sa[2] = {2, 3}, sb[1] = {3};
    double av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {10, 20, 30};
    int dim1 = 1;
    if ((st = ct_tensor_from_host(ctx, av, CT_FLOAT64, 2, sa, &a)) != CT_OK) goto out;
    if ((st = ct_tensor_from_host(ctx, bv, CT_FLOAT64, 1, sb, &b)) != CT_OK) goto out;
    print_tensor("a         ", a);
    print_tensor("b         ", b);
    if ((st = ct_add(ctx, a, b, &c)) != CT_OK) goto out;
    print_tensor("a + b     ", c);
    if ((st = ct_sum(ctx, a, 1, &dim1, false, &s)) != CT_OK) goto out;
    print_tensor("a.sum(1)  ", s);
    if ((st = ct_softmax(ctx, a, 1, &sm)) != CT_OK) goto out;
    print_tensor("softmax(a)", sm);
    int64_t sw[2] = {3, 2};
    double wv[6] = {1, 0, 0, 1, 1, 1};
    if ((st = ct_tensor_from_host(ctx, wv, CT_FLOAT64, 2, sw, &w)) != CT_OK) goto out;
    if ((st = ct_matmul(ctx, a, w, &y)) != CT_OK) goto out;
    print_tensor("a @ w     ", y);

    /* a larger timing: 1M-element f32 add */
    int64_t big[1] = {1 << 20};
    ct_tensor *x = NULL, *z = NULL, *r = NULL;
    if ((st = ct_tensor_randn(ctx, CT_FLOAT32, 1, big, 42, 0, &x)) != CT_OK) goto out;
    if ((st = ct_tensor_randn(ctx, CT_FLOAT32, 1, big, 42, 1 << 20, &z)) != CT_OK) {
        ct_tensor_release(x);
        goto out;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 20 && st == CT_OK; i++) {
        ct_tensor_release(r);
        r = NULL;
        st = ct_add(ctx, x, z, &r);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (st == CT_OK)
        printf("\n1M-element f32 add: %.3f ms per op (%.1f GB/s)\n", sec / 20 * 1e3,
               3.0 * 4 * (1 << 20) * 20 / sec / 1e9);
    ct_tensor_release(x);
    ct_tensor_release(z);
    ct_tensor_release(r);
    if (st == CT_OK) st = demo_mx(ctx);
    if (st == CT_OK) st = demo_graph(ctx);
out:;
    ct_tensor *all[] = {a, b, c, s, sm, w, y};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    int rc = st == CT_OK ? 0 : fail(ctx, st, "demo");
    ct_ctx_free(ctx);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("ctorch %s\n", ct_version());
        return 0;
    }
    if (!strcmp(cmd, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(cmd, "demo")) return cmd_demo(argc - 1, argv + 1);
    fprintf(stderr, "ctorch: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}

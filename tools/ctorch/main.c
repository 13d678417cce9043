/* ctorch command-line tool: --help, --version, info, demo, eigh, train-demo, and the program
 * commands of export_cmds.c (export-demo, inspect, run, export-weights). */
#include "cli.h"
#include "ctorch/ctorch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *f) {
    fprintf(
        f, "usage: ctorch [--help] [--version] <command> [options]\n"
           "\n"
           "commands:\n"
           "  info     version, detected CPU ISA, backends, threads, linked BLAS\n"
           "  demo     a short tour of what ctorch does\n"
           "  eigh     batched symmetric eigendecomposition speed and accuracy\n"
           "  train-demo  train an MLP on handwritten digits with autograd and a captured step\n"
           "  export-demo out.ctp   export the demo model (MX weights, symbolic batch)\n"
           "  inspect file          a program's header, ops, weights and memory plan, or the\n"
           "                        entries of a .pt / .npz / .safetensors / .npy file\n"
           "  convert in out        tensors between .pt, .npz, .safetensors and .npy files\n"
           "  run file.ctp --input NAME=x.npy [--output NAME=y.npy]   run a program\n"
           "  export-weights prog.ctp out.safetensors   a program's weights as safetensors\n"
           "\n"
           "Run 'ctorch <command> --help' for a command's options.\n"
           "Environment: CT_CPU_ISA=ref|avx2|avx512 forces a kernel ISA (an error if the CPU\n"
           "lacks it); CT_CPU_ISA_MAX=ref|avx2 makes ctorch act as a CPU with at most that ISA.\n");
}

/* Create the command's context; on failure print why (ct_ctx_create_ex's message) and return 1. */
static int make_ctx(ct_ctx **ctx) {
    char msg[256];
    ct_status st = ct_ctx_create_ex(NULL, ctx, msg, sizeof msg);
    if (st == CT_OK) return 0;
    fprintf(stderr, "ctorch: creating a context failed: %s\n", *msg ? msg : ct_status_str(st));
    return 1;
}

int ct_cli_make_ctx(ct_ctx **ctx) { return make_ctx(ctx); }

/* Report a failed call once: the context's message already names the problem ("out of memory
 * allocating ..."); the status word only when there is no message. */
static int fail(ct_ctx *ctx, ct_status st, const char *what) {
    const char *msg = ctx ? ct_ctx_last_error(ctx) : "";
    if (msg && *msg)
        fprintf(stderr, "ctorch: %s failed: %s\n", what, msg);
    else
        fprintf(stderr, "ctorch: %s failed: %s\n", what, ct_status_str(st));
    return 1;
}
int ct_cli_fail(ct_ctx *ctx, ct_status st, const char *what) { return fail(ctx, st, what); }

/* A command without options refuses anything after its name (status 2). */
static int no_args(const char *cmd, int argc, char **argv) {
    if (argc <= 1) return 0;
    fprintf(stderr, "ctorch %s: unexpected argument '%s' (see ctorch %s --help)\n", cmd, argv[1],
            cmd);
    return 2;
}

static int cmd_info(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: ctorch info\nPrints the library version, CPU ISA, backends, threads and "
               "BLAS.\n");
        return 0;
    }
    if (no_args("info", argc, argv)) return 2;
    ct_ctx *ctx;
    if (make_ctx(&ctx)) return 1;
    printf("ctorch %s\n", ct_version());
    printf("cpu isa:   %s (best on this CPU: %s)\n", ct_ctx_cpu_isa(ctx), ct_cpu_best_isa());
    printf("threads:   %d\n", ct_ctx_num_threads(ctx));
    printf("backends: ");
    for (int i = 0; i < ct_backend_count(ctx); i++)
        printf(" %s", ct_backend_name(ctx, i));
    const char *blas = ct_blas_info();
    printf("\nblas:      %s\n", blas);
    /* OpenBLAS releases that predate a CPU (0.3.21 and Zen 5) fall back to AVX2 kernels */
    if (strcmp(ct_cpu_best_isa(), "avx512") == 0 &&
        (strstr(blas, "Haswell") || strstr(blas, "Zen") || strstr(blas, "ZEN")))
        printf("note:      this CPU has AVX-512 but OpenBLAS chose its AVX2 kernels; "
               "ctorch uses its own kernel for small f32 products; OPENBLAS_CORETYPE=SkylakeX "
               "selects OpenBLAS's AVX-512 ones (docs/architecture.md)\n");
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

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Random symmetric batch (B, n, n): X + X^T of a standard normal X. */
static ct_status sym_batch(ct_ctx *ctx, ct_dtype dt, int64_t B, int64_t n, uint64_t seed,
                           ct_tensor **out) {
    int64_t s[3] = {B, n, n};
    ct_tensor *x = NULL, *xt = NULL;
    ct_status st = ct_tensor_randn(ctx, dt, 3, s, seed, 0, &x);
    if (st == CT_OK) st = ct_tensor_transpose(ctx, x, 1, 2, &xt);
    if (st == CT_OK) st = ct_add(ctx, x, xt, out);
    ct_tensor_release(x);
    ct_tensor_release(xt);
    return st;
}

/* Worst residual ||A V - V diag(w)||_F / ||A||_F and orthogonality ||V^T V - I||_F over the
 * batch, in units of n * eps. */
static ct_status eigh_check(ct_ctx *ctx, const ct_tensor *a, const ct_tensor *w, const ct_tensor *v,
                            double eps, double *worst_res, double *worst_orth) {
    int64_t B = ct_tensor_shape(a)[0], n = ct_tensor_shape(a)[1], nn = n * n;
    double *A = malloc(sizeof(double) * (size_t)(B * nn + 1)),
           *V = malloc(sizeof(double) * (size_t)(B * nn + 1)),
           *W = malloc(sizeof(double) * (size_t)(B * n + 1));
    ct_status st = (A && V && W) ? CT_OK : CT_ERR_OOM;
    ct_tensor *c[3] = {NULL, NULL, NULL};
    const ct_tensor *src[3] = {a, v, w};
    double *dst[3] = {A, V, W};
    for (int i = 0; i < 3 && st == CT_OK; i++) {
        st = ct_cast(ctx, src[i], CT_FLOAT64, &c[i]);
        if (st == CT_OK)
            st = ct_tensor_to_host(c[i], dst[i], sizeof(double) * (size_t)ct_tensor_numel(c[i]));
    }
    *worst_res = *worst_orth = 0;
    for (int64_t b = 0; b < B && st == CT_OK; b++) {
        const double *Ab = A + b * nn, *Vb = V + b * nn, *Wb = W + b * n;
        double num = 0, den = 0, orth = 0;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                double av = 0, vtv = 0;
                for (int64_t k = 0; k < n; k++) {
                    av += Ab[i * n + k] * Vb[k * n + j];
                    vtv += Vb[k * n + i] * Vb[k * n + j];
                }
                double r = av - Vb[i * n + j] * Wb[j], o = vtv - (i == j);
                num += r * r;
                den += Ab[i * n + j] * Ab[i * n + j];
                orth += o * o;
            }
        double res = den > 0 ? sqrt(num / den) : sqrt(num);
        if (res / (n * eps) > *worst_res) *worst_res = res / (n * eps);
        if (sqrt(orth) / (n * eps) > *worst_orth) *worst_orth = sqrt(orth) / (n * eps);
    }
    for (int i = 0; i < 3; i++)
        ct_tensor_release(c[i]);
    free(A), free(V), free(W);
    return st;
}

/* Parse a whole decimal integer option value (no trailing characters, no exponent, in range);
 * prints an error naming the option and returns 0 on failure. */
static int parse_int_opt(const char *opt, const char *val, long long lo, long long hi,
                         long long *out) {
    char *end = NULL;
    errno = 0;
    long long v = val && *val ? strtoll(val, &end, 10) : 0;
    if (!val || !*val || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "ctorch: %s needs a whole number in %lld..%lld, got '%s'\n", opt, lo, hi,
                val ? val : "");
        return 0;
    }
    *out = v;
    return 1;
}

/* Match "--name value" or "--name=value"; *val gets the value (advancing *i for the first form).
 * Returns 1 on a match, -1 if the option is there without a value, 0 otherwise. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val) {
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0) return 0;
    if (argv[*i][n] == '=') {
        *val = argv[*i] + n + 1;
        return 1;
    }
    if (argv[*i][n] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 1;
}

static int cmd_eigh(int argc, char **argv) {
    long long B = 100000, n = 3;
    const char *dts = "f32";
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: ctorch eigh [--batch B] [--n N] [--dtype f32|f64] [--check]\n"
                   "Decomposes B random symmetric NxN matrices with ct_linalg_eigh and reports\n"
                   "matrices/s; --check also reports the worst residual ||AV - VW||/||A|| and\n"
                   "orthogonality ||V^T V - I|| in units of n*eps.\n"
                   "Defaults: --batch 100000 --n 3 --dtype f32.\n");
            return 0;
        }
        const char *val = NULL;
        int m;
        if ((m = opt_value(argc, argv, &i, "--batch", &val)) != 0) {
            if (m < 0 || !parse_int_opt("--batch", val, 1, 1LL << 31, &B)) return 2;
        } else if ((m = opt_value(argc, argv, &i, "--n", &val)) != 0) {
            if (m < 0 || !parse_int_opt("--n", val, 1, 4096, &n)) return 2;
        } else if ((m = opt_value(argc, argv, &i, "--dtype", &val)) != 0) {
            if (m < 0) {
                fprintf(stderr, "ctorch eigh: --dtype needs a value (f32 or f64)\n");
                return 2;
            }
            dts = val;
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else {
            fprintf(stderr, "ctorch eigh: unknown option '%s' (see --help)\n", argv[i]);
            return 2;
        }
    }
    ct_dtype dt;
    if (ct_dtype_from_name(dts, &dt) != CT_OK || (dt != CT_FLOAT32 && dt != CT_FLOAT64)) {
        fprintf(stderr, "ctorch eigh: --dtype must be f32 or f64, got '%s'\n", dts);
        return 2;
    }
    if (B < 1 || n < 1 || n > 4096 || B * n * n > (1LL << 31)) {
        fprintf(stderr, "ctorch eigh: need 1 <= batch, 1 <= n <= 4096 and batch*n*n <= 2^31\n");
        return 2;
    }
    ct_ctx *ctx;
    if (make_ctx(&ctx)) return 1;
    ct_status st;
    ct_tensor *a = NULL, *w = NULL, *v = NULL;
    st = sym_batch(ctx, dt, B, n, 1, &a);
    /* one warm-up call (first-touch of the outputs), then the best of up to 3 timed calls */
    double t_start = now_s(), best = 1e30, first = 0;
    int runs = 0;
    for (int k = 0; k < 4 && st == CT_OK; k++) {
        ct_tensor_release(w), ct_tensor_release(v);
        w = v = NULL;
        double t1 = now_s();
        st = ct_linalg_eigh(ctx, a, 'L', &w, &v);
        double t = now_s() - t1;
        if (k == 0)
            first = t;
        else if (t < best)
            best = t, runs++;
        else
            runs++;
        if (now_s() - t_start > 1.0) fprintf(stderr, "eigh: run %d of 4 done (%.2f s)\n", k + 1, t);
        if (now_s() - t_start > 10.0) break; /* enough for a big batch */
    }
    if (runs == 0) best = first;
    if (st == CT_OK)
        printf("eigh %s batch=%lld n=%lld: best %.3f ms, %.3f M matrices/s (first call %.3f ms)\n",
               ct_dtype_name(dt), B, n, best * 1e3, (double)B / best / 1e6, first * 1e3);
    if (st == CT_OK && check) {
        double eps = dt == CT_FLOAT32 ? 1.1920929e-7 : 2.220446049250313e-16, wr = 0, wo = 0;
        st = eigh_check(ctx, a, w, v, eps, &wr, &wo);
        if (st == CT_OK)
            printf("check: worst residual %.2f n*eps, worst orthogonality %.2f n*eps\n", wr, wo);
    }
    ct_tensor_release(a), ct_tensor_release(w), ct_tensor_release(v);
    int rc = st == CT_OK ? 0 : fail(ctx, st, "eigh");
    ct_ctx_free(ctx);
    return rc;
}

/* eigh on a batch of 3x3 symmetric matrices: speed and accuracy. */
static ct_status demo_eigh(ct_ctx *ctx) {
    ct_tensor *a = NULL, *w = NULL, *v = NULL;
    ct_status st = sym_batch(ctx, CT_FLOAT32, 200000, 3, 3, &a);
    double t = 1e30, res = 0, orth = 0;
    for (int k = 0; k < 3 && st == CT_OK; k++) { /* best of 3 (the first call faults pages in) */
        ct_tensor_release(w), ct_tensor_release(v);
        w = v = NULL;
        double t0 = now_s();
        st = ct_linalg_eigh(ctx, a, 'L', &w, &v);
        if (now_s() - t0 < t) t = now_s() - t0;
    }
    if (st == CT_OK) st = eigh_check(ctx, a, w, v, 1.1920929e-7, &res, &orth);
    if (st == CT_OK)
        printf("\neigh: 200000 symmetric 3x3 f32 matrices in %.1f ms (%.0f M matrices/s); worst "
               "residual %.2f n*eps, orthogonality %.2f n*eps\n",
               t * 1e3, 200000 / t / 1e6, res, orth);
    ct_tensor_release(a), ct_tensor_release(w), ct_tensor_release(v);
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
        printf("usage: ctorch demo\n"
               "A short tour of ctorch, printing each step:\n"
               "  - tensors, broadcasting add, a row sum, softmax and matmul on small f64 inputs\n"
               "  - the speed of a 1M-element f32 add\n"
               "  - MX quantization: SQNR of each MX format on a 256x256 Gaussian weight\n"
               "  - batched eigh: 200000 symmetric 3x3 f32 matrices, speed and worst residual\n"
               "  - graphs: 50 x (cond + mul) captured once and replayed, eager vs replay time,\n"
               "    results checked identical\n"
               "  - export: the MX demo model saved as a .ctp program, reloaded in the embedded\n"
               "    runtime and its outputs checked against the captured graph\n"
               "Environment: CT_CPU_ISA forces the kernel ISA (see ctorch --help).\n");
        return 0;
    }
    if (no_args("demo", argc, argv)) return 2;
    ct_ctx *ctx;
    if (make_ctx(&ctx)) return 1;
    ct_status st;
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
    if (st == CT_OK) st = demo_eigh(ctx);
    if (st == CT_OK) st = demo_graph(ctx);
    if (st == CT_OK) st = ct_cli_demo_export(ctx);
out:;
    ct_tensor *all[] = {a, b, c, s, sm, w, y};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    int rc = st == CT_OK ? 0 : fail(ctx, st, "demo");
    ct_ctx_free(ctx);
    return rc;
}

/* ---- train-demo: MLP 64-128-10 on UCI digits; one training step (forward, cross entropy,
 * backward, SGD) captured into a graph and replayed for every batch ---- */
#ifndef CT_SOURCE_DIR
#define CT_SOURCE_DIR "."
#endif
#define TD_ALL 1797
#define TD_IN 64
#define TD_HID 128
#define TD_OUT 10
#define TD_BATCH 64

static ct_status td_param(ct_ctx *ctx, int nd, const int64_t *shape, double fan_in, uint64_t seed,
                          ct_tensor **out) {
    ct_tensor *u = NULL, *a = NULL;
    ct_status st = ct_tensor_rand(ctx, CT_FLOAT32, nd, shape, seed, 0, &u);
    if (st == CT_OK) st = ct_mul_scalar(ctx, u, 2.0 / sqrt(fan_in), &a);
    if (st == CT_OK) st = ct_sub_scalar(ctx, a, 1.0 / sqrt(fan_in), out);
    if (st == CT_OK) st = ct_tensor_set_requires_grad(*out, true);
    ct_tensor_release(u), ct_tensor_release(a);
    return st;
}

static ct_status td_forward(ct_ctx *ctx, const ct_tensor *x, ct_tensor *const *p, ct_tensor **out) {
    ct_tensor *h = NULL, *r = NULL;
    ct_status st = ct_linear(ctx, x, p[0], p[1], &h);
    if (st == CT_OK) st = ct_relu(ctx, h, &r);
    if (st == CT_OK) st = ct_linear(ctx, r, p[2], p[3], out);
    ct_tensor_release(h), ct_tensor_release(r);
    return st;
}

/* zero_grad, forward, loss, backward, SGD update: what the graph captures */
static ct_status td_step(ct_ctx *ctx, const ct_tensor *x, const ct_tensor *y, ct_tensor *const *p,
                         ct_optim *opt, ct_tensor **loss) {
    ct_tensor *logits = NULL, *g[4];
    for (int i = 0; i < 4; i++)
        ct_tensor_zero_grad(p[i]);
    ct_status st = td_forward(ctx, x, p, &logits);
    if (st == CT_OK) st = ct_cross_entropy(ctx, logits, y, CT_REDUCTION_MEAN, 0.0, loss);
    if (st == CT_OK) st = ct_backward(ctx, *loss, NULL, false);
    for (int i = 0; i < 4; i++)
        g[i] = ct_tensor_grad(p[i]);
    if (st == CT_OK) st = ct_optim_step(opt, g);
    ct_tensor_release(logits);
    return st;
}

static int cmd_train_demo(int argc, char **argv) {
    const char *path = CT_SOURCE_DIR "/examples/data/digits.bin";
    long epochs = 30;
    bool captured = false, foreach = false;
    int kind = CT_OPTIM_SGD;
    static const char *const kinds[11] = {"sgd",      "adam",   "adamw", "adagrad",
                                          "rmsprop",  "adamax", "nadam", "radam",
                                          "adadelta", "rprop",  "asgd"};
    static const double lrs[11] = {0.1, 3e-3, 3e-3, 0.05, 1e-3, 3e-3, 3e-3, 3e-3, 1.0, 1e-3, 0.2};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: ctorch train-demo [--epochs N] [--captured] [--optim K] "
                   "[--fused|--foreach] [--data PATH]\n"
                   "Trains an MLP 64-128-10 (relu, cross entropy) with autograd on the UCI "
                   "handwritten digits\n(examples/data/digits.bin; every 5th image is held out "
                   "for testing). Prints the mean loss\nper epoch and, last, 'train digits "
                   "epochs=N test_accuracy=A seconds=S'.\n"
                   "  --epochs N   passes over the 1437 training images (default 30, 1..1000)\n"
                   "  --captured   capture one training step (forward, loss, backward, optimizer)\n"
                   "               into a graph once and replay it for every batch (same bits as "
                   "eager)\n"
                   "  --optim K    sgd (lr 0.1, default), adam / adamw / adamax / nadam / radam "
                   "(lr 3e-3),\n"
                   "               adagrad (lr 0.05), rmsprop (lr 1e-3), adadelta (lr 1), asgd (lr "
                   "0.2)\n"
                   "  --fused      one fused optimizer kernel per parameter (default)\n"
                   "  --foreach    the optimizer step written with ops (same bits as --fused)\n"
                   "  --data PATH  the 1797 x 65 byte file (64 pixels + label per image)\n");
            return 0;
        } else if (!strcmp(argv[i], "--epochs") && i + 1 < argc) {
            char *end;
            errno = 0;
            epochs = strtol(argv[++i], &end, 10);
            if (errno || *end || end == argv[i] || epochs < 1 || epochs > 1000) {
                fprintf(stderr,
                        "ctorch train-demo: --epochs needs a whole number in 1..1000, "
                        "got '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--optim") && i + 1 < argc) {
            kind = -1;
            for (int k = 0; k < 11; k++)
                if (!strcmp(argv[i + 1], kinds[k])) kind = k;
            if (kind == CT_OPTIM_RPROP) {
                fprintf(stderr, "ctorch train-demo: rprop follows the signs of full-batch "
                                "gradients, not minibatches (example_train_digits --optim rprop "
                                "trains it on full batches)\n");
                return 2;
            }
            if (kind < 0) {
                fprintf(stderr,
                        "ctorch train-demo: --optim takes sgd, adam, adamw, adagrad, rmsprop, "
                        "adamax, nadam, radam, adadelta or asgd, got '%s'\n",
                        argv[i + 1]);
                return 2;
            }
            i++;
        } else if (!strcmp(argv[i], "--captured")) {
            captured = true;
        } else if (!strcmp(argv[i], "--fused")) {
            foreach
                = false;
        } else if (!strcmp(argv[i], "--foreach")) {
            foreach
                = true;
        } else if (!strcmp(argv[i], "--data") && i + 1 < argc) {
            path = argv[++i];
        } else {
            fprintf(stderr, "ctorch train-demo: unknown or incomplete option '%s' (see --help)\n",
                    argv[i]);
            return 2;
        }
    }
    if (captured && foreach && kind != CT_OPTIM_SGD) {
        fprintf(stderr,
                "ctorch train-demo: a captured --foreach %s step would keep the bias "
                "corrections of its first step; use --fused with --captured\n",
                kinds[kind]);
        return 2;
    }
    static unsigned char raw[TD_ALL][TD_IN + 1];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;
    if (f) fclose(f);
    if (got != sizeof raw) {
        fprintf(stderr,
                "ctorch train-demo: cannot read %zu bytes of digits from %s (pass --data)\n",
                sizeof raw, path);
        return 1;
    }
    static float xtr[TD_ALL][TD_IN], xte[TD_ALL][TD_IN];
    static int64_t ytr[TD_ALL], yte[TD_ALL], pred[TD_ALL];
    int ntr = 0, nte = 0;
    for (int i = 0; i < TD_ALL; i++) {
        bool test = i % 5 == 0;
        for (int j = 0; j < TD_IN; j++)
            (test ? xte[nte] : xtr[ntr])[j] = raw[i][j] / 16.0f;
        if (test)
            yte[nte++] = raw[i][TD_IN];
        else
            ytr[ntr++] = raw[i][TD_IN];
    }
    ct_ctx *ctx;
    if (make_ctx(&ctx)) return 1;
    ct_tensor *p[4] = {NULL}, *xb = NULL, *yb = NULL, *loss = NULL, *xt = NULL, *logits = NULL,
              *am = NULL, *hx = NULL, *hy = NULL;
    ct_optim *opt = NULL;
    ct_graph *g = NULL;
    int64_t w1[2] = {TD_HID, TD_IN}, b1[1] = {TD_HID}, w2[2] = {TD_OUT, TD_HID}, b2[1] = {TD_OUT};
    int64_t sx[2] = {TD_BATCH, TD_IN}, sy[1] = {TD_BATCH}, st_[2] = {nte, TD_IN};
    ct_status st = td_param(ctx, 2, w1, TD_IN, 1, &p[0]);
    if (st == CT_OK) st = td_param(ctx, 1, b1, TD_IN, 2, &p[1]);
    if (st == CT_OK) st = td_param(ctx, 2, w2, TD_HID, 3, &p[2]);
    if (st == CT_OK) st = td_param(ctx, 1, b2, TD_HID, 4, &p[3]);
    ct_optim_options oo = ct_optim_options_default((ct_optim_kind)kind);
    oo.lr = lrs[kind];
    oo.impl = foreach ? CT_OPTIM_IMPL_FOREACH : CT_OPTIM_IMPL_FUSED;
    if (st == CT_OK) st = ct_optim_create(ctx, &oo, 4, p, &opt);
    /* the batch lives in fixed tensors the captured step reads */
    if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_FLOAT32, 2, sx, &xb);
    if (st == CT_OK) st = ct_tensor_zeros(ctx, CT_INT64, 1, sy, &yb);
    if (st == CT_OK && captured) {
        st = ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g);
        if (st == CT_OK) st = ct_graph_capture_begin(g, NULL);
        if (st == CT_OK) {
            st = td_step(ctx, xb, yb, p, opt, &loss);
            ct_status end = ct_graph_capture_end(g);
            if (st == CT_OK) st = end;
        }
        if (st == CT_OK) st = ct_graph_instantiate(g);
        if (st == CT_OK)
            printf("captured one training step: %lld graph nodes (forward, backward, %s %s)\n",
                   (long long)ct_graph_num_nodes(g), foreach ? "foreach" : "fused", kinds[kind]);
    }
    int nb = ntr / TD_BATCH; /* full batches; the last 29 images are left out of training */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long e = 0; e < epochs && st == CT_OK; e++) {
        double sum = 0, l = 0;
        for (int b = 0; b < nb && st == CT_OK; b++) {
            st = ct_tensor_from_host(ctx, xtr[b * TD_BATCH], CT_FLOAT32, 2, sx, &hx);
            if (st == CT_OK)
                st = ct_tensor_from_host(ctx, &ytr[b * TD_BATCH], CT_INT64, 1, sy, &hy);
            if (st == CT_OK) st = ct_tensor_copy_(ctx, xb, hx);
            if (st == CT_OK) st = ct_tensor_copy_(ctx, yb, hy);
            if (st == CT_OK && captured) st = ct_graph_replay(g);
            if (st == CT_OK && !captured) {
                ct_tensor_release(loss);
                loss = NULL;
                st = td_step(ctx, xb, yb, p, opt, &loss);
            }
            if (st == CT_OK) st = ct_tensor_item(loss, &l);
            sum += l;
            ct_tensor_release(hx), ct_tensor_release(hy);
            hx = hy = NULL;
        }
        if (st == CT_OK && (e % 5 == 4 || e == epochs - 1))
            printf("epoch %3ld  mean loss %.9g\n", e + 1, sum / nb);
    }
    bool prev = ct_set_grad_enabled(ctx, false);
    if (st == CT_OK) st = ct_tensor_from_host(ctx, xte, CT_FLOAT32, 2, st_, &xt);
    if (st == CT_OK) st = td_forward(ctx, xt, p, &logits);
    if (st == CT_OK) st = ct_argmax(ctx, logits, 1, false, &am);
    if (st == CT_OK) st = ct_tensor_to_host(am, pred, (size_t)nte * sizeof(int64_t));
    ct_set_grad_enabled(ctx, prev);
    int rc = 0;
    if (st == CT_OK) {
        int ok = 0;
        for (int i = 0; i < nte; i++)
            ok += pred[i] == yte[i];
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("test accuracy %.2f%% (%d of %d held-out images)\n", 100.0 * ok / nte, ok, nte);
        printf("train digits epochs=%ld test_accuracy=%.4f seconds=%.2f\n", epochs,
               (double)ok / nte,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    } else {
        rc = fail(ctx, st, "train-demo");
    }
    ct_tensor *all[] = {p[0], p[1], p[2], p[3], xb, yb, loss, xt, logits, am};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        ct_tensor_release(all[i]);
    ct_optim_free(opt);
    ct_graph_free(g);
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
    if (!strcmp(cmd, "eigh")) return cmd_eigh(argc - 1, argv + 1);
    if (!strcmp(cmd, "train-demo")) return cmd_train_demo(argc - 1, argv + 1);
    if (!strcmp(cmd, "export-demo")) return ct_cli_export_demo(argc - 1, argv + 1);
    if (!strcmp(cmd, "inspect")) return ct_cli_inspect(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return ct_cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "export-weights")) return ct_cli_export_weights(argc - 1, argv + 1);
    if (!strcmp(cmd, "convert")) return ct_cli_convert(argc - 1, argv + 1);
    fprintf(stderr, "ctorch: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return 2;
}

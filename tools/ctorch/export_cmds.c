/* ctorch CLI: program export commands (export-demo, inspect, run, export-weights) and the export
 * step of `ctorch demo`. */
#include "ctorch/ctorch.h"
#include "ctorch/export.h"
#include "ctorch/runtime.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_help(int argc, char **argv) {
    return argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

/* --help: the usage text on stdout and exit status 0; wrong arguments (ok false): on stderr and
 * 2; otherwise -1 (go on). */
static int usage_check(int argc, char **argv, bool ok, const char *text) {
    bool help = is_help(argc, argv);
    if (!help && ok) return -1;
    fputs(text, help ? stdout : stderr);
    return help ? 0 : 2;
}

/* ---- the demo model: log_softmax(mxfp8(relu(mxfp4(x) + b1)) + b2), x (batch, 64) ---- */
typedef struct {
    ct_mx_tensor *w1, *w2;
    ct_tensor *b1, *b2;
} demo_model;

static ct_status dm_forward(ct_ctx *ctx, void *user, int n_in, ct_tensor *const *in, int n_out,
                            ct_tensor **out) {
    (void)n_in, (void)n_out;
    const demo_model *m = user;
    ct_tensor *h = NULL, *r = NULL, *z = NULL;
    ct_status st = ct_mx_linear(ctx, in[0], m->w1, m->b1, &h);
    if (st == CT_OK) st = ct_relu(ctx, h, &r);
    if (st == CT_OK) st = ct_mx_linear(ctx, r, m->w2, m->b2, &z);
    if (st == CT_OK) st = ct_log_softmax(ctx, z, 1, &out[0]);
    ct_tensor_release(h), ct_tensor_release(r), ct_tensor_release(z);
    return st;
}

static ct_status dm_make(ct_ctx *ctx, demo_model *m) {
    memset(m, 0, sizeof *m);
    int64_t s1[2] = {128, 64}, s2[2] = {10, 128}, sb1[1] = {128}, sb2[1] = {10};
    ct_tensor *d1 = NULL, *d2 = NULL, *u = NULL;
    ct_status st = ct_tensor_randn(ctx, CT_FLOAT32, 2, s1, 7, 0, &u);
    if (st == CT_OK) st = ct_mul_scalar(ctx, u, 0.125, &d1);
    ct_tensor_release(u), u = NULL;
    if (st == CT_OK) st = ct_tensor_randn(ctx, CT_FLOAT32, 2, s2, 8, 0, &u);
    if (st == CT_OK) st = ct_mul_scalar(ctx, u, 0.09, &d2);
    ct_tensor_release(u), u = NULL;
    if (st == CT_OK) st = ct_mx_quantize(ctx, d1, CT_MXFP4_E2M1, 32, 1, CT_MX_SCALE_RCEIL, &m->w1);
    if (st == CT_OK) st = ct_mx_quantize(ctx, d2, CT_MXFP8_E4M3, 32, 1, CT_MX_SCALE_RCEIL, &m->w2);
    if (st == CT_OK) st = ct_tensor_full(ctx, CT_FLOAT32, 1, sb1, 0.05, &m->b1);
    if (st == CT_OK) st = ct_tensor_linspace(ctx, CT_FLOAT32, -0.5, 0.5, 10, &m->b2);
    (void)sb2;
    ct_tensor_release(d1), ct_tensor_release(d2);
    return st;
}

static void dm_free(demo_model *m) {
    ct_mx_tensor_free(m->w1), ct_mx_tensor_free(m->w2);
    ct_tensor_release(m->b1), ct_tensor_release(m->b2);
}

/* Capture the demo model at batch 8 and export it with batch symbolic in [1, 64]. On success
 * *graph holds the capture (its input *x, output *y) for comparisons. */
static ct_status dm_export(ct_ctx *ctx, demo_model *m, const char *path, ct_graph **graph,
                           ct_tensor **x, ct_tensor **y, ct_export_report *rep) {
    int64_t xs[2] = {8, 64};
    ct_status st = ct_tensor_randn(ctx, CT_FLOAT32, 2, xs, 9, 0, x);
    if (st == CT_OK) st = ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, graph);
    if (st == CT_OK) st = ct_graph_capture_begin(*graph, NULL);
    if (st == CT_OK) {
        ct_tensor *const in[1] = {*x};
        ct_status f = dm_forward(ctx, m, 1, in, 1, y);
        st = ct_graph_capture_end(*graph);
        if (f != CT_OK) st = f;
    }
    if (st != CT_OK) return st;
    const char *in_names[1] = {"x"}, *out_names[1] = {"log_probs"};
    const char *pn[2] = {"fc1.bias", "fc2.bias"}, *mn[2] = {"fc1.weight", "fc2.weight"};
    ct_tensor *ins[1] = {*x}, *outs[1] = {*y}, *ps[2] = {m->b1, m->b2};
    ct_mx_tensor *mps[2] = {m->w1, m->w2};
    ct_export_dim dim = {"batch", 0, 0, 1, 64};
    const char *meta[] = {"model", "ctorch export-demo: 64 -> 128 (MXFP4) -> 10 (MXFP8)", NULL};
    ct_export_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.size = sizeof sp;
    sp.n_inputs = 1, sp.input_names = in_names, sp.inputs = ins;
    sp.n_outputs = 1, sp.output_names = out_names, sp.outputs = outs;
    sp.n_params = 2, sp.param_names = pn, sp.params = ps;
    sp.n_mx_params = 2, sp.mx_param_names = mn, sp.mx_params = mps;
    sp.n_dims = 1, sp.dims = &dim, sp.trace = dm_forward, sp.trace_user = m;
    sp.metadata = meta;
    sp.report = rep;
    return ct_program_export(ctx, *graph, &sp, path);
}

int ct_cli_export_demo(int argc, char **argv) {
    int u = usage_check(
        argc, argv, argc == 2,
        "usage: ctorch export-demo out.ctp\n"
        "Builds the demo model (x [batch, 64] -> linear 128 with MXFP4 weights -> relu ->\n"
        "linear 10 with MXFP8 weights -> log_softmax), captures it at batch 8 and exports\n"
        "it with batch symbolic in [1, 64]. Inspect it with 'ctorch inspect', run it with\n"
        "'ctorch run'.\n");
    if (u >= 0) return u;
    ct_ctx *ctx;
    if (ct_cli_make_ctx(&ctx)) return 1;
    demo_model m;
    ct_graph *g = NULL;
    ct_tensor *x = NULL, *y = NULL;
    ct_export_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    ct_status st = dm_make(ctx, &m);
    if (st == CT_OK) st = dm_export(ctx, &m, argv[1], &g, &x, &y, &rep);
    int rc = 0;
    if (st != CT_OK)
        rc = ct_cli_fail(ctx, st, "export-demo");
    else
        printf("wrote %s: %lld bytes, %lld instructions, %lld weights (%llu bytes), arena %llu "
               "bytes for %lld intermediates of %llu bytes\n",
               argv[1], (long long)rep.file_bytes, (long long)rep.instructions,
               (long long)rep.weights, (unsigned long long)rep.weight_bytes,
               (unsigned long long)rep.arena_bytes, (long long)rep.intermediates,
               (unsigned long long)rep.intermediate_bytes);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y);
    dm_free(&m);
    ct_ctx_free(ctx);
    return rc;
}

int ct_cli_inspect(int argc, char **argv) {
    int u =
        usage_check(argc, argv, argc == 2,
                    "usage: ctorch inspect file\n"
                    "A program (.ctp): verifies it and prints its header, sections, symbols,\n"
                    "inputs, outputs, ops, weights (dtypes, shapes, MX pairings) and memory plan.\n"
                    "A PyTorch checkpoint (.pt, .pth, .bin, ...), .npz, .safetensors or .npy\n"
                    "file: every entry (tensors with dtype and shape; a checkpoint's numbers and\n"
                    "strings with their values).\n");
    if (u >= 0) return u;
    if (ct_cli_is_weight_file(argv[1])) return ct_cli_inspect_file(argv[1]);
    ct_ctx *ctx;
    if (ct_cli_make_ctx(&ctx)) return 1;
    ct_program *p = NULL;
    ct_status st = ct_program_load(ctx, argv[1], &p);
    if (st == CT_OK) st = ct_program_describe(p, stdout);
    int rc = st == CT_OK ? 0 : ct_cli_fail(ctx, st, "inspect");
    ct_program_free(p);
    ct_ctx_free(ctx);
    return rc;
}

int ct_cli_export_weights(int argc, char **argv) {
    int u =
        usage_check(argc, argv, argc == 3,
                    "usage: ctorch export-weights prog.ctp out.safetensors\n"
                    "Writes the program's weights section as a standalone safetensors file (MX\n"
                    "weights as element tensors F4 / F6_* / F8_* plus F8_E8M0 scales, paired in\n"
                    "__metadata__; U8 \"__pad.N\" tensors keep every tensor 64-byte aligned).\n");
    if (u >= 0) return u;
    ct_ctx *ctx;
    if (ct_cli_make_ctx(&ctx)) return 1;
    ct_program *p = NULL;
    const void *w = NULL;
    size_t n = 0;
    ct_status st = ct_program_load(ctx, argv[1], &p);
    if (st == CT_OK) st = ct_program_weights(p, &w, &n);
    int rc = 0;
    if (st != CT_OK) {
        rc = ct_cli_fail(ctx, st, "export-weights");
    } else if (!w) {
        fprintf(stderr, "ctorch: export-weights: %s has no weights\n", argv[1]);
        rc = 1;
    } else {
        FILE *f = fopen(argv[2], "wb");
        if (!f || fwrite(w, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "ctorch: export-weights: cannot write %s\n", argv[2]);
            rc = 1;
        } else {
            printf("wrote %s (%zu bytes)\n", argv[2], n);
        }
    }
    ct_program_free(p);
    ct_ctx_free(ctx);
    return rc;
}

/* NAME=path: split at the first '='. */
static bool split_arg(char *s, char **name, char **path) {
    char *eq = strchr(s, '=');
    if (!eq || eq == s || !eq[1]) return false;
    *eq = 0;
    *name = s;
    *path = eq + 1;
    return true;
}

int ct_cli_run(int argc, char **argv) {
    int u =
        usage_check(argc, argv, argc >= 2,
                    "usage: ctorch run file.ctp --input NAME=x.npy ... [--output NAME=y.npy ...]\n"
                    "Runs a program on NumPy .npy inputs (every input named once) and writes the\n"
                    "named outputs as .npy files; outputs without --output are printed.\n");
    if (u >= 0) return u;
    enum { MAXIO = 64 };
    char *in_name[MAXIO], *in_path[MAXIO], *out_name[MAXIO], *out_path[MAXIO];
    int nin = 0, nout = 0;
    for (int i = 2; i < argc; i++) {
        bool inp = !strcmp(argv[i], "--input"), outp = !strcmp(argv[i], "--output");
        if ((!inp && !outp) || i + 1 >= argc) {
            fprintf(stderr,
                    "ctorch: run: expected --input NAME=file.npy or --output NAME=file.npy, "
                    "got '%s'\n",
                    argv[i]);
            return 2;
        }
        char *nm, *pa;
        if (!split_arg(argv[++i], &nm, &pa) || (inp ? nin : nout) == MAXIO) {
            fprintf(stderr, "ctorch: run: '%s' is not NAME=file.npy\n", argv[i]);
            return 2;
        }
        if (inp)
            in_name[nin] = nm, in_path[nin++] = pa;
        else
            out_name[nout] = nm, out_path[nout++] = pa;
    }
    ct_ctx *ctx;
    if (ct_cli_make_ctx(&ctx)) return 1;
    ct_program *p = NULL;
    ct_status st = ct_program_load(ctx, argv[1], &p);
    int rc = 0, np_in = p ? ct_program_num_inputs(p) : 0,
        np_out = p ? ct_program_num_outputs(p) : 0;
    ct_tensor *ins[MAXIO] = {0}, *outs[MAXIO] = {0};
    if (st != CT_OK) rc = ct_cli_fail(ctx, st, "run");
    for (int i = 0; rc == 0 && i < np_in; i++) { /* each program input from its --input */
        int k = -1;
        for (int j = 0; j < nin; j++)
            if (!strcmp(in_name[j], ct_program_input_name(p, i))) k = j;
        if (k < 0) {
            fprintf(stderr, "ctorch: run: no --input for the program's input '%s'\n",
                    ct_program_input_name(p, i));
            rc = 2;
        } else if ((st = ct_npy_load(ctx, in_path[k], &ins[i])) != CT_OK)
            rc = ct_cli_fail(ctx, st, "run: loading an input");
    }
    for (int j = 0; rc == 0 && j < nin; j++) {
        bool known = false;
        for (int i = 0; i < np_in; i++)
            known = known || !strcmp(in_name[j], ct_program_input_name(p, i));
        if (!known) {
            fprintf(stderr, "ctorch: run: the program has no input '%s'\n", in_name[j]);
            rc = 2;
        }
    }
    for (int j = 0; rc == 0 && j < nout; j++) {
        bool known = false;
        for (int i = 0; i < np_out; i++)
            known = known || !strcmp(out_name[j], ct_program_output_name(p, i));
        if (!known) {
            fprintf(stderr, "ctorch: run: the program has no output '%s'\n", out_name[j]);
            rc = 2;
        }
    }
    if (rc == 0 &&
        (st = ct_program_run(p, np_in, (const ct_tensor *const *)ins, np_out, outs)) != CT_OK)
        rc = ct_cli_fail(ctx, st, "run");
    for (int i = 0; rc == 0 && i < np_out; i++) {
        const char *nm = ct_program_output_name(p, i);
        int k = -1;
        for (int j = 0; j < nout; j++)
            if (!strcmp(out_name[j], nm)) k = j;
        if (k >= 0) {
            if ((st = ct_npy_save(ctx, outs[i], out_path[k])) != CT_OK)
                rc = ct_cli_fail(ctx, st, "run: writing an output");
            else
                printf("%s -> %s\n", nm, out_path[k]);
        } else {
            printf("%s = ", nm);
            ct_tensor_print(stdout, outs[i]);
            printf("\n");
        }
    }
    for (int i = 0; i < MAXIO; i++)
        ct_tensor_release(ins[i]), ct_tensor_release(outs[i]);
    ct_program_free(p);
    ct_ctx_free(ctx);
    return rc;
}

/* `ctorch demo`'s last step: export the demo model, reload it in the embedded runtime and check
 * its outputs against the captured graph's replay. */
ct_status ct_cli_demo_export(ct_ctx *ctx) {
    printf("\nexport: the demo model (MXFP4 + MXFP8 weights, batch symbolic in [1, 64])\n");
    demo_model m;
    ct_graph *g = NULL;
    ct_tensor *x = NULL, *y = NULL;
    ct_export_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    char path[] = "/tmp/ctorch_demo_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return CT_ERR_IO;
    fclose(fdopen(fd, "w"));
    ct_status st = dm_make(ctx, &m);
    if (st == CT_OK) st = dm_export(ctx, &m, path, &g, &x, &y, &rep);
    FILE *f = st == CT_OK ? fopen(path, "rb") : NULL;
    void *buf = NULL, *arena = NULL;
    float *xin = NULL;
    long n = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fseek(f, 0, SEEK_SET);
        buf = aligned_alloc(64, ((size_t)n + 63) / 64 * 64);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) st = CT_ERR_IO;
        fclose(f);
    }
    ct_rt_program *p = NULL;
    char err[320] = "";
    if (st == CT_OK && ct_rt_load(buf, (size_t)n, &p, err, sizeof err) != CT_OK) {
        fprintf(stderr, "ctorch: demo: the runtime refused the program: %s\n", err);
        st = CT_ERR_FORMAT;
    }
    if (st == CT_OK) {
        printf("  exported %ld bytes: %lld instructions, arena %llu bytes for %llu bytes of "
               "intermediates\n",
               n, (long long)rep.instructions, (unsigned long long)rep.arena_bytes,
               (unsigned long long)rep.intermediate_bytes);
        size_t as = ct_rt_arena_size(p);
        arena = aligned_alloc(64, (as + 63) / 64 * 64);
        xin = malloc(8 * 64 * sizeof(float));
        int64_t xs[2] = {8, 64};
        st = ct_tensor_to_host(x, xin, 8 * 64 * sizeof(float));
        if (st == CT_OK) st = ct_graph_replay(g);
        if (st == CT_OK &&
            (ct_rt_set_input(p, 0, xin, xs) != CT_OK || ct_rt_run(p, arena, as) != CT_OK)) {
            fprintf(stderr, "ctorch: demo: runtime run failed: %s\n", ct_rt_last_error(p));
            st = CT_ERR_STATE;
        }
        if (st == CT_OK) {
            const void *d;
            ct_rt_output(p, 0, &d, NULL, NULL, NULL, NULL);
            float want[80];
            st = ct_tensor_to_host(y, want, sizeof want);
            int same = st == CT_OK && memcmp(want, d, sizeof want) == 0;
            printf("  runtime (libctorch_rt kernels, no context) vs graph replay at batch 8: %s\n",
                   same ? "bit-identical" : "DIFFERENT");
            printf("  row 0 log-probabilities: ");
            for (int j = 0; j < 10; j++)
                printf("%.3f ", (double)((const float *)d)[j]);
            printf("\n");
            if (!same) st = CT_ERR_STATE;
        }
    }
    ct_rt_free(p);
    free(buf), free(arena), free(xin);
    remove(path);
    ct_graph_free(g);
    ct_tensor_release(x), ct_tensor_release(y);
    dm_free(&m);
    return st;
}

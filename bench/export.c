/* Program export and the embedded runtime: an MLP (784 -> 256 -> 256 -> 10, batch 16, the digits
 * shape) captured, exported and run by libctorch_rt. Lines:
 * `bench export coldstart load_us=L first_us=F warm_us=W first_over_warm=F/W` (the first run after
 * a load against the median warm run, arena touched once before, as a deployment would),
 * `bench export plan arena_bytes=A intermediate_bytes=I ratio=A/I` (the memory plan),
 * `bench export rt_vs_replay replay_us=R rt_us=T ratio=R/T` (the runtime's portable kernels
 * against the library's replay with OpenBLAS, same process), and
 * `bench export rt_size text_bytes=N code_bytes=C target_bytes=153600`: examples/runtime/
 * rt_minimal, a program that loads and runs an MLP .ctp with libctorch_rt alone (its small
 * kernel set, unused sections dropped; libc linked dynamically): N counts what `size` calls text
 * (code, read-only data, unwind tables), C the executable sections alone.
 * Usage: bench_export [rt_minimal binary] */
#include "ctorch/ctorch.h"
#include "ctorch/export.h"
#include "ctorch/runtime.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

static ct_ctx *ctx;
#define CHECK(x) BENCH_CHECK("bench export", ctx, x)

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sizes of an ELF64 file's read-only allocated sections (what `size` counts as text: code,
 * read-only data, unwind tables) and of its executable ones alone; -1 on failure. */
static long long elf_text_bytes(const char *path, long long *code) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    Elf64_Ehdr eh;
    long long total = -1;
    if (fread(&eh, sizeof eh, 1, f) == 1 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr)) {
        total = 0;
        for (int i = 0; i < eh.e_shnum; i++) {
            Elf64_Shdr sh;
            if (fseek(f, (long)(eh.e_shoff + (uint64_t)i * sizeof sh), SEEK_SET) != 0 ||
                fread(&sh, sizeof sh, 1, f) != 1) {
                total = -1;
                break;
            }
            if ((sh.sh_flags & SHF_ALLOC) && !(sh.sh_flags & SHF_WRITE) && sh.sh_type != SHT_NOBITS)
                total += (long long)sh.sh_size;
            if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_type == SHT_PROGBITS)
                *code += (long long)sh.sh_size;
        }
    }
    fclose(f);
    return total;
}

static ct_tensor *randn(int nd, const int64_t *shape, double scale) {
    static uint64_t seed = 1;
    ct_tensor *t = NULL, *u = NULL;
    CHECK(ct_tensor_randn(ctx, CT_FLOAT32, nd, shape, seed++, 0, &t));
    CHECK(ct_mul_scalar(ctx, t, scale, &u));
    ct_tensor_release(t);
    return u;
}

int main(int argc, char **argv) {
    CHECK(ct_ctx_create(NULL, &ctx));
    const int64_t B = 16, D = 784, H = 256, O = 10;
    int64_t s1[2] = {H, D}, s2[2] = {H, H}, s3[2] = {O, H}, sb[1] = {H}, so[1] = {O},
            sx[2] = {B, D};
    ct_tensor *w1 = randn(2, s1, 0.05), *w2 = randn(2, s2, 0.06), *w3 = randn(2, s3, 0.06);
    ct_tensor *b1 = randn(1, sb, 0.1), *b2 = randn(1, sb, 0.1), *b3 = randn(1, so, 0.1);
    ct_tensor *x = randn(2, sx, 1.0), *y = NULL;
    ct_graph *g = NULL;
    CHECK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &g));
    CHECK(ct_graph_capture_begin(g, NULL));
    {
        ct_tensor *h1, *r1, *h2, *r2, *z;
        CHECK(ct_linear(ctx, x, w1, b1, &h1));
        CHECK(ct_relu(ctx, h1, &r1));
        CHECK(ct_linear(ctx, r1, w2, b2, &h2));
        CHECK(ct_relu(ctx, h2, &r2));
        CHECK(ct_linear(ctx, r2, w3, b3, &z));
        CHECK(ct_log_softmax(ctx, z, 1, &y));
        ct_tensor_release(h1), ct_tensor_release(r1), ct_tensor_release(h2), ct_tensor_release(r2),
            ct_tensor_release(z);
    }
    CHECK(ct_graph_capture_end(g));
    char path[] = "/tmp/ctorch_bench_exportXXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    const char *in_names[1] = {"x"}, *out_names[1] = {"y"};
    const char *pn[6] = {"fc1.w", "fc1.b", "fc2.w", "fc2.b", "fc3.w", "fc3.b"};
    ct_tensor *ins[1] = {x}, *outs[1] = {y}, *ps[6] = {w1, b1, w2, b2, w3, b3};
    ct_export_report rep;
    memset(&rep, 0, sizeof rep);
    rep.size = sizeof rep;
    ct_export_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.size = sizeof sp;
    sp.n_inputs = 1, sp.input_names = in_names, sp.inputs = ins;
    sp.n_outputs = 1, sp.output_names = out_names, sp.outputs = outs;
    sp.n_params = 6, sp.param_names = pn, sp.params = ps;
    sp.report = &rep;
    CHECK(ct_program_export(ctx, g, &sp, path));
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = aligned_alloc(64, ((size_t)n + 63) / 64 * 64);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) return 1;
    fclose(f);
    float *xin = malloc((size_t)(B * D) * 4);
    CHECK(ct_tensor_to_host(x, xin, (size_t)(B * D) * 4));
    /* cold start: several fresh loads, each followed by its first run and warm runs */
    enum { LOADS = 7, WARM = 31 };
    double load_us[LOADS], first_us[LOADS], warm_us[LOADS];
    size_t as = 0;
    for (int l = 0; l < LOADS; l++) {
        char err[256];
        ct_rt_program *p = NULL;
        double t0 = now();
        if (ct_rt_load(buf, (size_t)n, &p, err, sizeof err) != CT_OK) {
            fprintf(stderr, "bench export: load failed: %s\n", err);
            return 1;
        }
        load_us[l] = (now() - t0) * 1e6;
        as = ct_rt_arena_size(p);
        void *arena = aligned_alloc(64, (as + 63) / 64 * 64);
        memset(arena, 0, as); /* the caller's memory, touched once as a deployment would */
        int64_t shape[2] = {B, D};
        ct_rt_set_input(p, 0, xin, shape);
        t0 = now();
        if (ct_rt_run(p, arena, as) != CT_OK) {
            fprintf(stderr, "bench export: run failed: %s\n", ct_rt_last_error(p));
            return 1;
        }
        first_us[l] = (now() - t0) * 1e6;
        double w[WARM];
        for (int i = 0; i < WARM; i++) {
            t0 = now();
            ct_rt_run(p, arena, as);
            w[i] = (now() - t0) * 1e6;
        }
        qsort(w, WARM, sizeof *w, cmp_d);
        warm_us[l] = w[WARM / 2];
        ct_rt_free(p);
        free(arena);
    }
    qsort(load_us, LOADS, sizeof(double), cmp_d);
    qsort(first_us, LOADS, sizeof(double), cmp_d);
    qsort(warm_us, LOADS, sizeof(double), cmp_d);
    double L = load_us[LOADS / 2], F = first_us[LOADS / 2], W = warm_us[LOADS / 2];
    printf("load %.1f us, first run %.1f us, warm run %.1f us (medians of %d loads)\n", L, F, W,
           LOADS);
    printf("bench export coldstart load_us=%.1f first_us=%.1f warm_us=%.1f first_over_warm=%.3f\n",
           L, F, W, F / W);
    printf("bench export plan arena_bytes=%llu intermediate_bytes=%llu ratio=%.3f\n",
           (unsigned long long)rep.arena_bytes, (unsigned long long)rep.intermediate_bytes,
           rep.intermediate_bytes ? (double)rep.arena_bytes / (double)rep.intermediate_bytes : 0.0);
    /* the library's replay (OpenBLAS) against the runtime's warm run */
    double r[WARM];
    for (int i = 0; i < WARM; i++) {
        double t0 = now();
        CHECK(ct_graph_replay(g));
        r[i] = (now() - t0) * 1e6;
    }
    qsort(r, WARM, sizeof *r, cmp_d);
    printf("bench export rt_vs_replay replay_us=%.1f rt_us=%.1f ratio=%.3f\n", r[WARM / 2], W,
           r[WARM / 2] / W);
    const char *bin = argc > 1 ? argv[1] : CT_RT_MINIMAL;
    long long code = 0, text = elf_text_bytes(bin, &code);
    printf("bench export rt_size text_bytes=%lld code_bytes=%lld target_bytes=153600 binary=%s\n",
           text, code, bin);
    remove(path);
    free(xin);
    free(buf);
    ct_graph_free(g);
    ct_tensor *all[8] = {w1, w2, w3, b1, b2, b3, x, y};
    for (int i = 0; i < 8; i++)
        ct_tensor_release(all[i]);
    ct_ctx_free(ctx);
    return 0;
}

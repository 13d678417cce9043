/* ctorch CLI: weight files. `inspect` of a PyTorch checkpoint, .npz, safetensors or .npy file
 * (entries with kinds, dtypes, shapes, numbers) and `convert` between those formats. */
#include "ctorch/ctorch.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { F_PT, F_NPZ, F_SAFETENSORS, F_NPY, F_PROGRAM } file_kind;

static bool ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* By extension: .npz, .safetensors, .npy, .ctp; anything else is a torch checkpoint when it is a
 * ZIP archive (.pt, .pth, .bin, .ckpt, ...), else a program. */
static file_kind kind_of(const char *path, bool for_writing) {
    if (ends_with(path, ".npz")) return F_NPZ;
    if (ends_with(path, ".safetensors")) return F_SAFETENSORS;
    if (ends_with(path, ".npy")) return F_NPY;
    if (ends_with(path, ".ctp")) return F_PROGRAM;
    if (for_writing) return F_PT;
    FILE *f = fopen(path, "rb");
    unsigned char m[4] = {0};
    size_t n = f ? fread(m, 1, 4, f) : 0;
    if (f) fclose(f);
    return n == 4 && m[0] == 'P' && m[1] == 'K' && m[2] == 3 && m[3] == 4 ? F_PT : F_PROGRAM;
}

bool ct_cli_is_weight_file(const char *path) { return kind_of(path, false) != F_PROGRAM; }

/* The named tensors of a file: names (malloc'd copies) and tensors; non-tensor entries of a
 * checkpoint are counted in *skipped. */
typedef struct {
    int n, cap;
    char **names;
    ct_tensor **ts;
    int skipped;
} tensor_list;

static ct_status list_add(tensor_list *l, const char *name, ct_tensor *t) {
    if (l->n == l->cap) {
        int nc = l->cap ? 2 * l->cap : 64;
        char **nn = realloc(l->names, (size_t)nc * sizeof *nn);
        if (nn) l->names = nn;
        ct_tensor **nt = nn ? realloc(l->ts, (size_t)nc * sizeof *nt) : NULL;
        if (nt) l->ts = nt;
        if (!nn || !nt) {
            ct_tensor_release(t);
            return CT_ERR_OOM;
        }
        l->cap = nc;
    }
    l->names[l->n] = strdup(name);
    l->ts[l->n] = t;
    l->n++;
    return l->names[l->n - 1] ? CT_OK : CT_ERR_OOM;
}

static void list_free(tensor_list *l) {
    for (int i = 0; i < l->n; i++) {
        free(l->names[i]);
        ct_tensor_release(l->ts[i]);
    }
    free(l->names);
    free(l->ts);
}

static void print_tensor_line(const char *name, const ct_tensor *t) {
    printf("  %-40s tensor %-9s [", name, ct_dtype_name(ct_tensor_dtype(t)));
    for (int d = 0; d < ct_tensor_ndim(t); d++)
        printf("%s%lld", d ? ", " : "", (long long)ct_tensor_shape(t)[d]);
    printf("]%s\n", ct_tensor_requires_grad(t) ? " requires_grad" : "");
}

/* Read every tensor of path (printing each entry when verbose). */
static ct_status read_all(ct_ctx *ctx, const char *path, file_kind k, bool verbose,
                          tensor_list *l) {
    ct_status st = CT_OK;
    if (k == F_NPY) {
        ct_tensor *t = NULL;
        if ((st = ct_npy_load(ctx, path, &t)) != CT_OK) return st;
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 4), base);
        if (verbose) print_tensor_line(name, t);
        return list_add(l, name, t);
    }
    if (k == F_SAFETENSORS) {
        ct_safetensors *f = NULL;
        if ((st = ct_safetensors_load(ctx, path, &f)) != CT_OK) return st;
        for (int i = 0; i < ct_safetensors_count(f) && st == CT_OK; i++) {
            ct_tensor *t = NULL;
            st = ct_safetensors_get(f, ct_safetensors_name(f, i), &t);
            if (st == CT_OK && verbose) print_tensor_line(ct_safetensors_name(f, i), t);
            if (st == CT_OK) st = list_add(l, ct_safetensors_name(f, i), t);
        }
        ct_safetensors_free(f);
        return st;
    }
    ct_archive *a = NULL;
    /* a ZIP archive of .npy members without an extension saying so is an .npz */
    if (k == F_PT && ct_npz_load(ctx, path, &a) == CT_OK && ct_archive_count(a) == 0) {
        ct_archive_free(a);
        a = NULL;
    }
    if (!a) st = k == F_NPZ ? ct_npz_load(ctx, path, &a) : ct_torch_load(ctx, path, &a);
    if (st != CT_OK) return st;
    for (int i = 0; i < ct_archive_count(a) && st == CT_OK; i++) {
        const char *name = ct_archive_name(a, i);
        int64_t iv;
        double fv;
        const char *s;
        size_t len;
        switch (ct_archive_kind(a, i)) {
        case CT_ENTRY_TENSOR: {
            ct_tensor *t = NULL;
            st = ct_archive_get(a, name, &t);
            if (st == CT_OK && verbose) print_tensor_line(*name ? name : "(the saved tensor)", t);
            if (st == CT_OK) st = list_add(l, *name ? name : "tensor", t);
            continue;
        }
        case CT_ENTRY_NONE:
            if (verbose) printf("  %-40s None\n", name);
            break;
        case CT_ENTRY_BOOL:
            ct_archive_get_int(a, name, &iv);
            if (verbose) printf("  %-40s bool   %s\n", name, iv ? "True" : "False");
            break;
        case CT_ENTRY_INT:
            ct_archive_get_int(a, name, &iv);
            if (verbose) printf("  %-40s int    %lld\n", name, (long long)iv);
            break;
        case CT_ENTRY_FLOAT:
            ct_archive_get_float(a, name, &fv);
            if (verbose) printf("  %-40s float  %.17g\n", name, fv);
            break;
        default:
            ct_archive_get_string(a, name, &s, &len);
            if (verbose)
                printf("  %-40s %s %.*s%s\n", name,
                       ct_archive_kind(a, i) == CT_ENTRY_BYTES ? "bytes " : "string",
                       len > 60 ? 60 : (int)len, s, len > 60 ? "..." : "");
        }
        l->skipped++;
    }
    ct_archive_free(a);
    return st;
}

static const char *kind_name(file_kind k) {
    static const char *n[] = {"PyTorch checkpoint", "NumPy .npz", "safetensors", "NumPy .npy",
                              "program"};
    return n[k];
}

int ct_cli_inspect_file(const char *path) {
    ct_ctx *ctx;
    if (ct_cli_make_ctx(&ctx)) return 1;
    file_kind k = kind_of(path, false);
    tensor_list l;
    memset(&l, 0, sizeof l);
    printf("%s: %s\n", path, kind_name(k));
    ct_status st = read_all(ctx, path, k, true, &l);
    int rc = 0;
    if (st != CT_OK) {
        rc = ct_cli_fail(ctx, st, "inspect");
    } else {
        int64_t elems = 0;
        for (int i = 0; i < l.n; i++)
            elems += ct_tensor_numel(l.ts[i]);
        printf("%d tensors, %lld elements; %d other entries\n", l.n, (long long)elems, l.skipped);
    }
    list_free(&l);
    ct_ctx_free(ctx);
    return rc;
}

int ct_cli_convert(int argc, char **argv) {
    bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (help || argc != 3) {
        fputs("usage: ctorch convert in out\n"
              "Copies the tensors of a PyTorch checkpoint (.pt, .pth, .bin, ...: what\n"
              "torch.load(weights_only=True) reads), .npz, .safetensors or .npy file into\n"
              "another format, chosen by out's extension: .safetensors, .npz, .npy (one tensor),\n"
              "else a torch.save state dict. A nested checkpoint's tensors keep their dotted\n"
              "names (model.fc.weight); its numbers and strings are not tensors and are skipped\n"
              "(counted in the summary line).\n",
              help ? stdout : stderr);
        return help ? 0 : 2;
    }
    file_kind in = kind_of(argv[1], false), out = kind_of(argv[2], true);
    if (in == F_PROGRAM || out == F_PROGRAM) {
        fprintf(stderr, "ctorch convert: %s is a program; use 'ctorch export-weights'\n",
                in == F_PROGRAM ? argv[1] : argv[2]);
        return 2;
    }
    ct_ctx *ctx;
    if (ct_cli_make_ctx(&ctx)) return 1;
    tensor_list l;
    memset(&l, 0, sizeof l);
    ct_status st = read_all(ctx, argv[1], in, false, &l);
    if (st == CT_OK && out == F_NPY && l.n != 1) {
        fprintf(stderr, "ctorch convert: %s holds %d tensors; a .npy file holds one\n", argv[1],
                l.n);
        list_free(&l);
        ct_ctx_free(ctx);
        return 2;
    }
    const char *const *names = (const char *const *)l.names;
    const ct_tensor *const *ts = (const ct_tensor *const *)l.ts;
    if (st == CT_OK) {
        if (out == F_SAFETENSORS) st = ct_safetensors_save(ctx, argv[2], l.n, names, ts, NULL);
        if (out == F_NPZ) st = ct_npz_save(ctx, argv[2], l.n, names, ts);
        if (out == F_NPY) st = ct_npy_save(ctx, l.ts[0], argv[2]);
        if (out == F_PT) st = ct_torch_save(ctx, argv[2], l.n, names, ts);
    }
    int rc = 0;
    if (st != CT_OK)
        rc = ct_cli_fail(ctx, st, "convert");
    else
        printf("wrote %s (%s): %d tensors; %d other entries skipped\n", argv[2], kind_name(out),
               l.n, l.skipped);
    list_free(&l);
    ct_ctx_free(ctx);
    return rc;
}

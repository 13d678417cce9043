/* libFuzzer target for the safetensors reader (ct_safetensors_load_buffer). Any input must give a
 * status with a message, never a crash; an accepted file must give every tensor back, and saving
 * those tensors and reading the result must give the same bytes (the writer accepts whatever the
 * reader accepts). */
#include <ctorch/ctorch.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 0;
    ct_safetensors *f = NULL;
    ct_status st = ct_safetensors_load_buffer(ctx, data, size, &f);
    if (st != CT_OK) {
        if (ct_ctx_last_error(ctx)[0] == '\0') abort(); /* every failure must say why */
        ct_ctx_free(ctx);
        return 0;
    }
    int n = ct_safetensors_count(f);
    ct_tensor **ts = calloc((size_t)n + 1, sizeof *ts);
    const char **names = calloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++) {
        names[i] = ct_safetensors_name(f, i);
        if (ct_safetensors_get(f, names[i], &ts[i]) != CT_OK) abort();
    }
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_st_%d.safetensors", (int)getpid());
    if (ct_safetensors_save(ctx, path, n, names, (const ct_tensor *const *)ts, NULL) != CT_OK)
        abort();
    ct_safetensors *g = NULL;
    if (ct_safetensors_load(ctx, path, &g) != CT_OK || ct_safetensors_count(g) != n) abort();
    for (int i = 0; i < n; i++) {
        ct_tensor *t = NULL;
        if (ct_safetensors_get(g, names[i], &t) != CT_OK) abort();
        size_t nb = (size_t)ct_tensor_numel(t) * ct_dtype_size(ct_tensor_dtype(t));
        unsigned char *a = malloc(nb + 1), *b = malloc(nb + 1);
        if (ct_tensor_to_host(t, a, nb) != CT_OK || ct_tensor_to_host(ts[i], b, nb) != CT_OK ||
            memcmp(a, b, nb) != 0)
            abort();
        free(a), free(b);
        ct_tensor_release(t);
    }
    remove(path);
    ct_safetensors_free(g);
    for (int i = 0; i < n; i++)
        ct_tensor_release(ts[i]);
    free(ts);
    free(names);
    ct_safetensors_free(f);
    ct_ctx_free(ctx);
    return 0;
}

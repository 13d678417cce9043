/* libFuzzer target for the .npy reader (ct_npy_load_buffer): any input gives a status, never a
 * crash; a failure always says why and returns no tensor; a successful read of up to 4096
 * elements is printed (ct_tensor_to_string), so the loaded tensor is exercised. */
#include <ctorch/ctorch.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 0;
    ct_tensor *t = NULL;
    ct_status st = ct_npy_load_buffer(ctx, data, size, &t);
    if (st == CT_OK) {
        if (!t || ct_tensor_numel(t) < 0) abort();
        char *s = NULL;
        if (ct_tensor_numel(t) <= 4096) {
            if (ct_tensor_to_string(t, &s) != CT_OK || !s) abort();
            free(s);
        }
    } else if (t != NULL || ct_ctx_last_error(ctx)[0] == '\0') {
        abort(); /* every failure must say why and return no tensor */
    }
    ct_tensor_release(t);
    ct_ctx_free(ctx);
    return 0;
}

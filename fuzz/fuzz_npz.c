/* libFuzzer target for the .npz reader (ct_npz_load_buffer and ct_archive_get: ZIP directory,
 * inflate, CRC, the .npy header of each member): any input gives a status, never a crash; a failure
 * always says why and returns nothing. */
#include <ctorch/ctorch.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 0;
    ct_archive *a = NULL;
    ct_status st = ct_npz_load_buffer(ctx, data, size, &a);
    if (st != CT_OK) {
        if (a != NULL || ct_ctx_last_error(ctx)[0] == '\0') abort();
        ct_ctx_free(ctx);
        return 0;
    }
    for (int i = 0; i < ct_archive_count(a); i++) {
        ct_tensor *t = NULL;
        if (ct_archive_kind(a, i) != CT_ENTRY_TENSOR) abort();
        if (ct_archive_get(a, ct_archive_name(a, i), &t) == CT_OK) {
            if (!t || ct_tensor_numel(t) < 0) abort();
        } else if (t || ct_ctx_last_error(ctx)[0] == '\0') {
            abort();
        }
        ct_tensor_release(t);
    }
    ct_archive_free(a);
    ct_ctx_free(ctx);
    return 0;
}

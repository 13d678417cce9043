/* libFuzzer target for the PyTorch checkpoint reader (ct_torch_load_buffer: ZIP directory, inflate,
 * the restricted unpickler, storage records): any input gives a status, never a crash; a failure
 * always says why and returns no archive; on success every entry is read back (tensors of up to
 * 4096 elements are printed, so their values are touched). */
#include <ctorch/ctorch.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 0;
    ct_archive *a = NULL;
    ct_status st = ct_torch_load_buffer(ctx, data, size, &a);
    if (st != CT_OK) {
        if (a != NULL || ct_ctx_last_error(ctx)[0] == '\0') abort();
        ct_ctx_free(ctx);
        return 0;
    }
    for (int i = 0; i < ct_archive_count(a); i++) {
        const char *name = ct_archive_name(a, i);
        int64_t iv;
        double fv;
        const char *s;
        size_t len;
        switch (ct_archive_kind(a, i)) {
        case CT_ENTRY_TENSOR: {
            ct_tensor *t = NULL;
            if (ct_archive_get(a, name, &t) == CT_OK) {
                if (!t) abort();
                char *str = NULL;
                if (ct_tensor_numel(t) <= 4096 && ct_tensor_to_string(t, &str) == CT_OK) free(str);
            } else if (t || ct_ctx_last_error(ctx)[0] == '\0') {
                abort();
            }
            ct_tensor_release(t);
            break;
        }
        case CT_ENTRY_INT:
        case CT_ENTRY_BOOL:
            if (ct_archive_get_int(a, name, &iv) != CT_OK) abort();
            break;
        case CT_ENTRY_FLOAT:
            if (ct_archive_get_float(a, name, &fv) != CT_OK) abort();
            break;
        case CT_ENTRY_STRING:
        case CT_ENTRY_BYTES:
            if (ct_archive_get_string(a, name, &s, &len) != CT_OK || s[len] != 0) abort();
            break;
        case CT_ENTRY_NONE: break;
        default: abort();
        }
    }
    ct_archive_free(a);
    ct_ctx_free(ctx);
    return 0;
}

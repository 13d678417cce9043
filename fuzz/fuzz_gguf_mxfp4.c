/* libFuzzer target for the GGUF MXFP4 block reader (ct_mx_from_gguf_mxfp4). Input layout: byte 0
 * picks ndim (1..4), the next ndim bytes are the dims (the last one scaled by 32 when byte 0 is
 * even, so both valid and invalid shapes are reached), the rest are the blocks. A successful read
 * must write back to exactly the same bytes; any input must give a status, never a crash. */
#include <ctorch/ctorch.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int ndim = data[0] % 4 + 1;
    if (size < (size_t)(1 + ndim)) return 0;
    int64_t shape[4];
    for (int i = 0; i < ndim; i++)
        shape[i] = data[1 + i];
    if (data[0] % 2 == 0) shape[ndim - 1] *= 32;
    const uint8_t *blocks = data + 1 + ndim;
    size_t nbytes = size - 1 - (size_t)ndim;
    ct_ctx *ctx;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 0;
    ct_mx_tensor *q = NULL;
    ct_status st = ct_mx_from_gguf_mxfp4(ctx, blocks, nbytes, ndim, shape, &q);
    if (st == CT_OK) {
        uint8_t *back = malloc(nbytes ? nbytes : 1);
        if (!back || ct_mx_to_gguf_mxfp4(ctx, q, back, nbytes) != CT_OK ||
            memcmp(back, blocks, nbytes) != 0)
            abort(); /* a read that does not round-trip is a bug the fuzzer must report */
        ct_tensor *d = NULL;
        if (ct_mx_dequantize(ctx, q, CT_FLOAT32, &d) != CT_OK) abort();
        ct_tensor_release(d);
        free(back);
    } else if (ct_ctx_last_error(ctx)[0] == '\0') {
        abort(); /* every failure must say why */
    }
    ct_mx_tensor_free(q);
    ct_ctx_free(ctx);
    return 0;
}

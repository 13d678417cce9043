/* printdiff driver: reads one tensor per stdin line, prints ct_tensor_to_string of it on one line
 * (newlines written as "\n", backslashes as "\\") or "ERR <status>". Developer tool for
 * scripts/torchdiff/printdiff.py; not built by CMake and not run by the tests (CI has no torch).
 *
 * Line: <dtype> <ndim> <shape...> <layout> <hex bytes of the elements, C order, or "-" if none>
 *       [<grad>]
 *   dtype is the ct_dtype value; layout 0: the bytes are the tensor; layout 1 (ndim >= 2): the
 *   bytes are the tensor with its last two dims swapped, stored contiguously, and the printed
 *   tensor is the transposed (non-contiguous) view of it; layout 2 (ndim >= 1): the bytes hold
 *   each element followed by a filler, and the printed tensor is the step-2 slice of the last dim.
 *   grad (floating tensors): "leaf" marks the tensor requires_grad; an op name (see grad_op)
 *   marks it and prints the op's result instead (its grad_fn suffix). */
#include "ctorch/ctorch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The result of op applied to x (a leaf that requires grad), or NULL. Ops whose values are exact
 * in both libraries, so that only the suffix can differ (cast64 copies, as torch's
 * .to(float64, copy=True)). */
static ct_tensor *grad_op(ct_ctx *ctx, const char *op, ct_tensor *x) {
    ct_tensor *r = NULL;
    int nd = ct_tensor_ndim(x);
    int64_t flat = ct_tensor_numel(x);
    ct_status st = CT_ERR_INVALID_ARG;
    if (!strcmp(op, "mul_s")) st = ct_mul_scalar(ctx, x, 2.0, &r);
    if (!strcmp(op, "add")) st = ct_add(ctx, x, x, &r);
    if (!strcmp(op, "neg")) st = ct_neg(ctx, x, &r);
    if (!strcmp(op, "abs")) st = ct_abs(ctx, x, &r);
    if (!strcmp(op, "relu")) st = ct_relu(ctx, x, &r);
    if (!strcmp(op, "maximum")) st = ct_maximum(ctx, x, x, &r);
    if (!strcmp(op, "cast64")) st = ct_cast(ctx, x, CT_FLOAT64, &r);
    if (!strcmp(op, "clone")) st = ct_tensor_clone(ctx, x, &r);
    if (!strcmp(op, "tril") && nd >= 2) st = ct_tril(ctx, x, 0, &r);
    if (!strcmp(op, "triu") && nd >= 2) st = ct_triu(ctx, x, 0, &r);
    if (!strcmp(op, "transpose") && nd >= 2) st = ct_tensor_transpose(ctx, x, 0, 1, &r);
    if (!strcmp(op, "slice") && nd >= 1)
        st = ct_tensor_slice(ctx, x, 0, 1, ct_tensor_shape(x)[0], 1, &r);
    if (!strcmp(op, "unsqueeze")) st = ct_tensor_unsqueeze(ctx, x, 0, &r);
    if (!strcmp(op, "view")) st = ct_tensor_view(ctx, x, 1, &flat, &r);
    if (!strcmp(op, "reshape")) st = ct_tensor_reshape(ctx, x, 1, &flat, &r);
    if (!strcmp(op, "squeeze0") && nd >= 1) st = ct_tensor_squeeze(ctx, x, 0, &r);
    if (!strcmp(op, "squeeze")) st = ct_tensor_squeeze(ctx, x, CT_ALL_DIMS, &r);
    if (!strcmp(op, "reshape_t") && nd >= 2) { /* the transpose's node is freed with u */
        ct_tensor *u = NULL;
        st = ct_tensor_transpose(ctx, x, 0, 1, &u);
        if (st == CT_OK) st = ct_tensor_reshape(ctx, u, 1, &flat, &r);
        ct_tensor_release(u);
    }
    return st == CT_OK ? r : NULL;
}

static int hexval(int c) { return c <= '9' ? c - '0' : (c | 32) - 'a' + 10; }

int main(void) {
    ct_ctx *ctx = NULL;
    if (ct_ctx_create(NULL, &ctx) != CT_OK) return 1;
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    size_t len = 0;
    int ch;
    for (;;) {
        len = 0;
        while ((ch = getchar()) != EOF && ch != '\n') {
            if (len + 2 > cap) line = realloc(line, cap *= 2);
            line[len++] = (char)ch;
        }
        if (len == 0 && ch == EOF) break;
        line[len] = 0;
        char *save = NULL;
        int dt = atoi(strtok_r(line, " ", &save));
        int nd = atoi(strtok_r(NULL, " ", &save));
        int64_t sh[CT_MAX_DIMS];
        for (int d = 0; d < nd; d++)
            sh[d] = atoll(strtok_r(NULL, " ", &save));
        int layout = atoi(strtok_r(NULL, " ", &save));
        char *hex = strtok_r(NULL, " ", &save);
        size_t nb = strcmp(hex, "-") == 0 ? 0 : strlen(hex) / 2;
        unsigned char *buf = malloc(nb ? nb : 1);
        for (size_t i = 0; i < nb; i++)
            buf[i] = (unsigned char)(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]));
        int64_t sh2[CT_MAX_DIMS];
        memcpy(sh2, sh, sizeof(int64_t) * (size_t)nd);
        if (layout == 1) {
            sh2[nd - 1] = sh[nd - 2];
            sh2[nd - 2] = sh[nd - 1];
        } else if (layout == 2) {
            sh2[nd - 1] = 2 * sh[nd - 1];
        }
        ct_tensor *t = NULL, *v = NULL;
        ct_status st = ct_tensor_from_host(ctx, buf, (ct_dtype)dt, nd, sh2, &t);
        if (st == CT_OK && layout == 1) {
            st = ct_tensor_transpose(ctx, t, -1, -2, &v);
            ct_tensor_release(t);
            t = v;
        } else if (st == CT_OK && layout == 2) {
            st = ct_tensor_slice(ctx, t, -1, 0, sh2[nd - 1], 2, &v);
            ct_tensor_release(t);
            t = v;
        }
        char *grad = strtok_r(NULL, " ", &save);
        if (st == CT_OK && grad && strcmp(grad, "-") != 0) {
            st = ct_tensor_set_requires_grad(t, true);
            if (st == CT_OK && strcmp(grad, "leaf") != 0) {
                v = grad_op(ctx, grad, t);
                ct_tensor_release(t);
                t = v;
                if (!t) st = CT_ERR_INVALID_ARG;
            }
        }
        char *s = NULL;
        if (st == CT_OK) st = ct_tensor_to_string(t, &s);
        if (st != CT_OK) {
            printf("ERR %s\n", ct_status_str(st));
        } else {
            for (char *p = s; *p; p++) {
                if (*p == '\n')
                    fputs("\\n", stdout);
                else if (*p == '\\')
                    fputs("\\\\", stdout);
                else
                    putchar(*p);
            }
            putchar('\n');
        }
        free(s);
        free(buf);
        ct_tensor_release(t);
    }
    fflush(stdout);
    free(line);
    ct_ctx_free(ctx);
    return 0;
}

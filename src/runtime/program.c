/* ct_program (ctorch/export.h): a program file run inside the full library. The embedded runtime
 * verifies and executes it (src/runtime/rt.c); each kernel instruction goes to the CPU backend's
 * op runner, so results are those of the captured graph's replay bit for bit (OpenBLAS matmul
 * included). File, arena and outputs live in the context's memory. */
#include "ctorch/export.h"
#include "ctorch/runtime.h"
#include "ctorch/safetensors.h"
#include "dispatch/dispatch.h"
#include "runtime/rt_impl.h"
#include "tensor/tensor_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct ct_program {
    ct_ctx *ctx;
    void *file; /* the whole file, 64-byte aligned */
    ct_rt_program *rt;
    void *arena;
};

ct_status ct_program_load(ct_ctx *ctx, const char *path, ct_program **out) {
    if (!ctx) return CT_ERR_INVALID_ARG;
    ct__clear_error(ctx);
    if (!path || !out)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG, "program_load: %s is NULL",
                             !path ? "path" : "out");
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ct__set_error(ctx, CT_ERR_IO, "program_load: cannot open %s: %s", path,
                             strerror(errno));
    long n = -1;
    if (fseek(fp, 0, SEEK_END) == 0) n = ftell(fp);
    if (n < 0 || fseek(fp, 0, SEEK_SET) != 0) {
        fclose(fp);
        return ct__set_error(ctx, CT_ERR_IO, "program_load: cannot size %s", path);
    }
    ct_program *p = ct__alloc(ctx, sizeof *p, 64);
    void *buf = ct__alloc(ctx, (size_t)n + 1, 64);
    if (!p || !buf) {
        fclose(fp);
        ct__free(ctx, p), ct__free(ctx, buf);
        return ct__set_error(ctx, CT_ERR_OOM, "program_load: out of memory (%ld bytes)", n);
    }
    size_t got = fread(buf, 1, (size_t)n, fp);
    fclose(fp);
    if (got != (size_t)n) {
        ct__free(ctx, p), ct__free(ctx, buf);
        return ct__set_error(ctx, CT_ERR_IO, "program_load: reading %s failed", path);
    }
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->file = buf;
    char err[320];
    ct_status st = ct_rt_load(buf, (size_t)n, &p->rt, err, sizeof err);
    if (st == CT_OK && ct_rt_arena_size(p->rt)) {
        p->arena = ct__alloc(ctx, ct_rt_arena_size(p->rt), 64);
        if (!p->arena) st = CT_ERR_OOM, snprintf(err, sizeof err, "out of memory for the arena");
    }
    if (st != CT_OK) {
        ct_program_free(p);
        return ct__set_error(ctx, st, "program_load: %s: %s", path, err);
    }
    *out = p;
    return CT_OK;
}

int ct_program_num_inputs(const ct_program *p) { return p ? ct_rt_num_inputs(p->rt) : 0; }
int ct_program_num_outputs(const ct_program *p) { return p ? ct_rt_num_outputs(p->rt) : 0; }
const char *ct_program_input_name(const ct_program *p, int i) {
    return p ? ct_rt_input_name(p->rt, i) : NULL;
}
const char *ct_program_output_name(const ct_program *p, int i) {
    return p ? ct_rt_output_name(p->rt, i) : NULL;
}

void ct_program_free(ct_program *p) {
    if (!p) return;
    ct_rt_free(p->rt);
    ct__free(p->ctx, p->arena);
    ct__free(p->ctx, p->file);
    ct__free(p->ctx, p);
}

typedef struct {
    ct_ctx *ctx;
    ct__backend_slot *b;
} pr_run;

static ct_status pr_kernel(void *user, const ct_op_desc *op) {
    pr_run *r = user;
    ct_op_desc d = *op;
    d.num_threads = ct__ctx_threads(r->ctx);
    return r->b->vt.run_op(r->b->vt.state, &d);
}

ct_status ct_program_run(ct_program *p, int n_inputs, const ct_tensor *const *inputs, int n_outputs,
                         ct_tensor **outputs) {
    if (!p) return CT_ERR_INVALID_ARG;
    ct_ctx *ctx = p->ctx;
    ct__clear_error(ctx);
    int nin = ct_rt_num_inputs(p->rt), nout = ct_rt_num_outputs(p->rt);
    if (n_inputs != nin || n_outputs != nout || (nin && !inputs) || !outputs)
        return ct__set_error(ctx, CT_ERR_INVALID_ARG,
                             "program_run: the program takes %d inputs and gives %d outputs "
                             "(called with %d and %d, or NULL arrays)",
                             nin, nout, n_inputs, n_outputs);
    if (ct__any_capture(ctx))
        return ct__set_error(ctx, CT_ERR_UNSUPPORTED,
                             "program_run: cannot run a program while a graph captures");
    for (int j = 0; j < nout; j++)
        outputs[j] = NULL;
    ct_tensor *held[64] = {0};
    ct_status st = CT_OK;
    for (int i = 0; i < nin && st == CT_OK; i++) {
        const ct_tensor *t = inputs[i];
        st = ct__check_tensor(ctx, "program_run", "input", t);
        if (st != CT_OK) break;
        if (t->dtype != ct_rt_input_dtype(p->rt, i) || t->ndim != ct_rt_input_ndim(p->rt, i) ||
            t->storage->device.type != CT_DEVICE_CPU) {
            st = ct__set_error(
                ctx, t->dtype != ct_rt_input_dtype(p->rt, i) ? CT_ERR_DTYPE : CT_ERR_SHAPE,
                "program_run: input '%s' is %s with %d dims; the program takes "
                "%s with %d dims on the CPU",
                ct_rt_input_name(p->rt, i), ct_dtype_name(t->dtype), t->ndim,
                ct_dtype_name(ct_rt_input_dtype(p->rt, i)), ct_rt_input_ndim(p->rt, i));
            break;
        }
        st = ct_tensor_contiguous(ctx, t, &held[i]);
        if (st == CT_OK) st = ct_rt_set_input(p->rt, i, ct__tensor_ptr(held[i]), held[i]->shape);
    }
    ct__backend_slot *b = st == CT_OK ? ct__backend_for(ctx, (ct_device){CT_DEVICE_CPU, 0}) : NULL;
    if (st == CT_OK && !b) st = CT_ERR_DEVICE;
    if (st == CT_OK) {
        pr_run r = {ctx, b};
        ctx->err[0] = 0;
        st = ct__rt_run_with(p->rt, p->arena, ct_rt_arena_size(p->rt), pr_kernel, &r);
        if (st != CT_OK)
            ct__set_error(ctx, st, "program_run: %s%s%s", ct_rt_last_error(p->rt),
                          ctx->err[0] ? ": " : "", ctx->err[0] ? ctx->err : "");
    }
    for (int j = 0; j < nout && st == CT_OK; j++) {
        const void *data;
        ct_dtype dt;
        int nd;
        const int64_t *shape, *strides;
        st = ct_rt_output(p->rt, j, &data, &dt, &nd, &shape, &strides);
        ct_tensor *view = NULL;
        if (st == CT_OK)
            st = ct_tensor_from_blob(ctx, (void *)(uintptr_t)data, dt, nd, shape, strides, NULL,
                                     NULL, &view);
        if (st == CT_OK) st = ct_tensor_clone(ctx, view, &outputs[j]);
        ct_tensor_release(view);
    }
    for (int i = 0; i < nin; i++)
        ct_tensor_release(held[i]);
    if (st != CT_OK)
        for (int j = 0; j < nout; j++) {
            ct_tensor_release(outputs[j]);
            outputs[j] = NULL;
        }
    return st;
}

ct_status ct_program_describe(const ct_program *p, FILE *f) {
    if (!p || !f) return CT_ERR_INVALID_ARG;
    ct__rt_describe(p->rt, f);
    const void *w;
    size_t n;
    ct__rt_weights_section(p->rt, &w, &n);
    if (!w) return CT_OK;
    ct_safetensors *st = NULL; /* the weights' dtypes and shapes, as any safetensors reader sees */
    ct_status s = ct_safetensors_load_buffer(p->ctx, w, n, &st);
    if (s != CT_OK) return s;
    for (int i = 0; i < ct_safetensors_count(st); i++) {
        const char *nm = ct_safetensors_name(st, i);
        if (strncmp(nm, "__pad.", 6) == 0) continue;
        ct_tensor *t = NULL;
        s = ct_safetensors_get(st, nm, &t);
        if (s != CT_OK) break;
        fprintf(f, "tensor    %-24s %-18s [", nm, ct_dtype_name(ct_tensor_dtype(t)));
        for (int d = 0; d < ct_tensor_ndim(t); d++)
            fprintf(f, "%s%lld", d ? ", " : "", (long long)ct_tensor_shape(t)[d]);
        fprintf(f, "]\n");
        ct_tensor_release(t);
        char key[300];
        snprintf(key, sizeof key, "mx:%s", nm);
        const char *mx = ct_safetensors_metadata(st, key);
        if (mx) fprintf(f, "          mx: %s\n", mx);
    }
    ct_safetensors_free(st);
    return s;
}

ct_status ct_program_weights(const ct_program *p, const void **data, size_t *size) {
    if (!p || !data || !size) return CT_ERR_INVALID_ARG;
    ct__rt_weights_section(p->rt, data, size);
    return CT_OK;
}

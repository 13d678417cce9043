/* ctorch program export (torch.export + ExecuTorch's role): a captured graph (ct_graph, with its
 * conds and while_loops) and its weights saved to one .ctp file, which the embedded runtime
 * (ctorch/runtime.h, libctorch_rt) or the full library (ct_program_load) runs. The format is
 * described in docs/export-format.md; its weights section is a complete safetensors file.
 * Input dims may be symbolic (torch.export's Dim("batch", min, max)): the program then stores
 * every shape, stride and offset as a polynomial in the symbols and runs any size in range.
 * Ownership: ct_program_load gives an owned ct_program (ct_program_free, before its context).
 * Thread-safety: as the owning ct_ctx. */
#ifndef CTORCH_EXPORT_H
#define CTORCH_EXPORT_H

#include "ctorch/graph.h"
#include "ctorch/mx.h"
#include "ctorch/sparse.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A symbolic input dim: dim `dim` of input `input` takes any size in [min, max]. Several entries
 * may share a name (the same symbol in several inputs). At most 4 distinct symbols. */
typedef struct ct_export_dim {
    const char *name;
    int input;
    int dim;
    int64_t min, max;
} ct_export_dim;

/* With symbolic dims, export captures the model again at other sizes (inputs of those shapes,
 * zero-filled) to learn how each shape depends on the symbols: `trace` must submit the same ops
 * as the captured graph did, with the spec's parameters, and return n_outputs new tensors. */
typedef ct_status (*ct_export_trace_fn)(ct_ctx *ctx, void *user, int n_inputs,
                                        ct_tensor *const *inputs, int n_outputs,
                                        ct_tensor **outputs);

/* What an export wrote (filled when ct_export_spec.report is not NULL). */
typedef struct ct_export_report {
    size_t size;                 /* sizeof(ct_export_report), set by the caller */
    int64_t instructions;        /* kernel calls and jumps */
    int64_t intermediates;       /* buffers planned into the arena */
    uint64_t intermediate_bytes; /* their sum, each rounded up to 64 B (at the symbols' upper
                                 * bounds): arena_bytes <= this */
    uint64_t arena_bytes;        /* the planned arena (greedy best fit by size) */
    int64_t weights;             /* tensors in the weights section */
    uint64_t weight_bytes;       /* the weights section */
    uint64_t file_bytes;
} ct_export_report;

/* What to export. Names are the program's input / output names and the weights' safetensors
 * names. Every tensor the graph reads that is none of these is saved as an anonymous constant.
 * Inputs and parameters must be contiguous; the graph may not write to either. */
typedef struct ct_export_spec {
    size_t size; /* sizeof(ct_export_spec) */
    int n_inputs;
    const char *const *input_names;
    ct_tensor *const *inputs; /* the tensors the capture read as inputs */
    int n_outputs;
    const char *const *output_names;
    ct_tensor *const *outputs; /* the tensors the capture produced */
    int n_params;
    const char *const *param_names;
    ct_tensor *const *params;
    int n_mx_params; /* MX weights: saved as element tensor + E8M0 scales (docs/export-format.md) */
    const char *const *mx_param_names;
    ct_mx_tensor *const *mx_params;
    int n_sparse_params; /* 2:4 sparse weights (ct_sparse24): values, metadata, FP8 scales */
    const char *const *sparse_param_names;
    ct_sparse24 *const *sparse_params;
    int n_dims; /* symbolic input dims (0: every shape static) */
    const ct_export_dim *dims;
    ct_export_trace_fn trace; /* required when n_dims > 0 */
    void *trace_user;
    const char *const *metadata; /* NULL-terminated key, value pairs for the weights' metadata */
    ct_export_report *report;    /* may be NULL */
} ct_export_spec;

/* Write graph (captured on the CPU, not capturing) as a program file at path (written to
 * path.tmp and renamed). CT_ERR_INVALID_ARG for a bad spec (naming the field), CT_ERR_STATE for a
 * graph without a valid capture, CT_ERR_UNSUPPORTED for an op the runtime cannot run or a graph
 * that writes an input or parameter (naming the instruction), CT_ERR_SHAPE when a shape is not a
 * polynomial of degree <= 1 in each symbol, CT_ERR_IO, CT_ERR_OOM. */
CT_API ct_status ct_program_export(ct_ctx *ctx, ct_graph *graph, const ct_export_spec *spec,
                                   const char *path);

/* ---- running a program inside the full library ---- */
typedef struct ct_program ct_program;
/* Load and verify a program file (every check of ct_rt_load). CT_ERR_IO, CT_ERR_FORMAT (field and
 * offset in the message), CT_ERR_UNSUPPORTED (a newer version, an unknown op), CT_ERR_OOM. */
CT_API ct_status ct_program_load(ct_ctx *ctx, const char *path, ct_program **out);
/* Run with n_inputs tensors (the program's input order; any layout, converted to contiguous) and
 * receive n_outputs new contiguous tensors. Kernels are the CPU backend's (OpenBLAS matmul), so
 * results equal the captured graph's replay bit for bit. CT_ERR_SHAPE for an input of the wrong
 * shape or a symbolic dim out of range (naming the dim and its range), CT_ERR_DTYPE. */
CT_API ct_status ct_program_run(ct_program *p, int n_inputs, const ct_tensor *const *inputs,
                                int n_outputs, ct_tensor **outputs);
/* Number of inputs / outputs, and their names (NULL when i is out of range). */
CT_API int ct_program_num_inputs(const ct_program *p);
CT_API int ct_program_num_outputs(const ct_program *p);
CT_API const char *ct_program_input_name(const ct_program *p, int i);
CT_API const char *ct_program_output_name(const ct_program *p, int i);
/* Write a readable description of the program to f: header, sections with checksums, symbols,
 * inputs and outputs, the op table, weights (with their safetensors dtypes and shapes, MX
 * pairings) and the memory plan (arena size against the sum of the intermediates). */
CT_API ct_status ct_program_describe(const ct_program *p, FILE *f);
/* The weights section: a complete safetensors file (borrowed; lives as long as p). *data is NULL
 * and *size 0 for a program without weights. */
CT_API ct_status ct_program_weights(const ct_program *p, const void **data, size_t *size);
/* Free a program (NULL is a no-op). */
CT_API void ct_program_free(ct_program *p);

#ifdef __cplusplus
}
#endif
#endif

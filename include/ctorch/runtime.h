/* ctorch embedded runtime (libctorch_rt): runs a .ctp program (ctorch/export.h) without the rest
 * of the library: no context, no caching allocator, no BLAS, no OpenMP, one thread. The program is
 * verified in full when it is loaded (every offset, size, count, op, dtype and shape rule;
 * checksums); a hostile file gives CT_ERR_FORMAT with the field and byte offset, never a crash.
 * After ct_rt_load nothing is allocated: each run works in an arena the caller provides.
 * Ownership: the program borrows the file's bytes (weights are read in place) until ct_rt_free;
 * the caller keeps them alive and unchanged. Output pointers point into the arena (or at an input
 * or weight) and are valid until the next run.
 * Thread-safety: one thread per program at a time; distinct programs are independent. */
#ifndef CTORCH_RUNTIME_H
#define CTORCH_RUNTIME_H

#include "ctorch/dtype.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_rt_program ct_rt_program;

/* Verify and load a program from size bytes at data (16-byte aligned; borrowed, see above). The
 * runtime's allocations (malloc: its tables, unpacked sub-byte weights) happen here and only here.
 * On failure *out is NULL and err (may be
 * NULL) receives the reason. CT_ERR_FORMAT, CT_ERR_UNSUPPORTED (a newer format version, an op
 * this runtime lacks), CT_ERR_INVALID_ARG (NULL or misaligned data), CT_ERR_OOM. */
CT_API ct_status ct_rt_load(const void *data, size_t size, ct_rt_program **out, char *err,
                            size_t err_size);
/* Kernel sets (selective build, as ExecuTorch's): a program linked with only the small set keeps
 * only its kernels (with --gc-sections). ct_rt_kernels_all: every op the runtime runs (what
 * ct_rt_load uses). ct_rt_kernels_mlp: matmul, f32/f64 add / sub / mul / div, the unary loops
 * (neg, abs, relu, sqrt, exp, sigmoid, log, tanh, gelu-tanh), softmax and log_softmax, with
 * operands whose innermost dim is contiguous; a program outside it is refused at load with
 * CT_ERR_UNSUPPORTED naming the instruction. Both give the same bits. */
typedef struct ct_rt_kernels ct_rt_kernels;
CT_API const ct_rt_kernels *ct_rt_kernels_all(void);
CT_API const ct_rt_kernels *ct_rt_kernels_mlp(void);
/* ct_rt_load with a kernel set. */
CT_API ct_status ct_rt_load_with(const ct_rt_kernels *kern, const void *data, size_t size,
                                 ct_rt_program **out, char *err, size_t err_size);
/* Bytes of arena a run needs (the plan at the symbols' upper bounds); 64-byte alignment. */
CT_API size_t ct_rt_arena_size(const ct_rt_program *p);
/* Inputs: count, name, dtype, ndim, and the range of dim d ([size, size] when static). */
CT_API int ct_rt_num_inputs(const ct_rt_program *p);
CT_API const char *ct_rt_input_name(const ct_rt_program *p, int i);
CT_API ct_dtype ct_rt_input_dtype(const ct_rt_program *p, int i);
CT_API int ct_rt_input_ndim(const ct_rt_program *p, int i);
CT_API ct_status ct_rt_input_range(const ct_rt_program *p, int i, int d, int64_t *min,
                                   int64_t *max);
/* Index of the input / output called name, or -1. */
CT_API int ct_rt_find_input(const ct_rt_program *p, const char *name);
CT_API int ct_rt_find_output(const ct_rt_program *p, const char *name);
/* Bind input i to contiguous data of the given shape (the input's ndim). Checked at ct_rt_run:
 * CT_ERR_SHAPE names a wrong size or a symbolic dim out of its range. */
CT_API ct_status ct_rt_set_input(ct_rt_program *p, int i, const void *data, const int64_t *shape);
/* Run the program in arena (arena_size >= ct_rt_arena_size, 64-byte aligned). CT_ERR_STATE when
 * an input is not bound, CT_ERR_SHAPE, CT_ERR_INDEX (an index input out of range), CT_ERR_OOM
 * (arena too small), CT_ERR_TIMEOUT (the step limit). */
CT_API ct_status ct_rt_run(ct_rt_program *p, void *arena, size_t arena_size);
/* A watchdog for programs with while_loops: ct_rt_run stops with CT_ERR_TIMEOUT after executing
 * max_steps instructions (kernel calls and jumps); 0, the default, means no limit. */
CT_API ct_status ct_rt_set_max_steps(ct_rt_program *p, uint64_t max_steps);
/* Outputs of the last successful run: count, name, and the value (shape and strides in elements
 * point into the program; data into the arena, an input or a weight). */
CT_API int ct_rt_num_outputs(const ct_rt_program *p);
CT_API const char *ct_rt_output_name(const ct_rt_program *p, int i);
CT_API ct_status ct_rt_output(const ct_rt_program *p, int i, const void **data, ct_dtype *dtype,
                              int *ndim, const int64_t **shape, const int64_t **strides);
/* The reason of the last failed call on p ("" after a success). */
CT_API const char *ct_rt_last_error(const ct_rt_program *p);
/* Free a program (NULL is a no-op). */
CT_API void ct_rt_free(ct_rt_program *p);

#ifdef __cplusplus
}
#endif
#endif

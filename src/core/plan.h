/* Memory planner: offsets for buffers with known live intervals inside one arena, so that buffers
 * whose lifetimes do not overlap share memory. Context-free (no allocation of its own), so graph
 * instantiation and program export use the same code. */
#ifndef CTORCH_CORE_PLAN_H
#define CTORCH_CORE_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* One buffer to place: live from instruction `start` to instruction `end` (inclusive, start <=
 * end), `bytes` long. The planner writes `offset` (a multiple of the alignment). */
typedef struct ct__plan_buf {
    int64_t start, end;
    size_t bytes;
    size_t offset;
} ct__plan_buf;

/* Greedy best fit by size: buffers are placed largest first, each into the smallest gap (lowest
 * offset on ties) left between the already placed buffers whose intervals overlap its own, or
 * above them all. `align` is a power of two; `work` holds 2 * n int64_t. Returns the arena size in
 * bytes (0 for n == 0), or SIZE_MAX if the offsets overflow. */
size_t ct__plan_arena(ct__plan_buf *bufs, int64_t n, size_t align, int64_t *work);

#endif

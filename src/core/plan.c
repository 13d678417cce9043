/* Greedy best-fit arena planner (see plan.h). O(n^2) in the number of buffers, O(n log n) sort. */
#include "core/plan.h"

static size_t ct__plan_round(size_t b, size_t align) {
    if (b > SIZE_MAX - (align - 1)) return SIZE_MAX;
    return (b + align - 1) & ~(align - 1);
}

/* Larger first; equal sizes by earlier start, then by index (a total order: stable results). */
static int ct__plan_before(const ct__plan_buf *b, int64_t i, int64_t j) {
    if (b[i].bytes != b[j].bytes) return b[i].bytes > b[j].bytes;
    if (b[i].start != b[j].start) return b[i].start < b[j].start;
    return i < j;
}

static void ct__plan_sort(const ct__plan_buf *b, int64_t *a, int64_t *tmp, int64_t n) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = ct__plan_before(b, a[j], a[i]) ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        for (int64_t k = 0; k < n; k++)
            a[k] = tmp[k];
    }
}

size_t ct__plan_arena(ct__plan_buf *bufs, int64_t n, size_t align, int64_t *work) {
    if (n <= 0) return 0;
    if (align == 0) align = 1;
    int64_t *order = work, *placed = work + n; /* placed: indices sorted by offset */
    for (int64_t i = 0; i < n; i++)
        order[i] = i;
    ct__plan_sort(bufs, order, placed, n);
    int64_t np = 0;
    size_t arena = 0;
    for (int64_t oi = 0; oi < n; oi++) {
        ct__plan_buf *b = &bufs[order[oi]];
        size_t need = ct__plan_round(b->bytes, align);
        if (need == SIZE_MAX) return SIZE_MAX;
        size_t cursor = 0, best = SIZE_MAX, best_gap = SIZE_MAX;
        for (int64_t k = 0; k < np; k++) {
            const ct__plan_buf *p = &bufs[placed[k]];
            if (p->end < b->start || p->start > b->end) continue; /* never live together */
            if (p->offset > cursor) {
                size_t gap = p->offset - cursor;
                if (gap >= need && gap < best_gap) best_gap = gap, best = cursor;
            }
            size_t top = ct__plan_round(p->offset + p->bytes, align);
            if (top > cursor) cursor = top;
        }
        b->offset = best != SIZE_MAX ? best : cursor;
        if (b->offset > SIZE_MAX - need) return SIZE_MAX;
        if (b->offset + need > arena) arena = b->offset + need;
        /* insert into the offset-sorted list */
        int64_t k = np++;
        while (k > 0 && bufs[placed[k - 1]].offset > b->offset) {
            placed[k] = placed[k - 1];
            k--;
        }
        placed[k] = order[oi];
    }
    return arena;
}

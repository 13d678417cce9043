/* libFuzzer target for the program reader of the embedded runtime (ct_rt_load) and, through it,
 * the library's ct_program_load. Each input is loaded twice: as it is (the checksums reject almost
 * every mutation), and with its section and header checksums recomputed, so that mutations reach
 * the parser and the per-instruction checks. A failure must say why; an accepted program is run
 * once at the smallest input sizes in an arena of its size (up to 4 MiB, at most 100000 steps),
 * which must not crash or read outside its buffers (the sanitizers watch). */
#include <ctorch/runtime.h>

#include "export/ctp_format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void load_and_run(const uint8_t *buf, size_t size) {
    ct_rt_program *p = NULL;
    char err[320];
    ct_status st = ct_rt_load(buf, size, &p, err, sizeof err);
    if (st != CT_OK) {
        if (p || !err[0]) abort(); /* a refusal leaves nothing behind and says why */
        return;
    }
    static _Alignas(64) float input[1 << 16];
    for (int i = 0; i < ct_rt_num_inputs(p); i++) {
        int64_t shape[8], numel = 1;
        for (int d = 0; d < ct_rt_input_ndim(p, i); d++) {
            int64_t lo, hi;
            if (ct_rt_input_range(p, i, d, &lo, &hi) != CT_OK) abort();
            shape[d] = lo;
            if (__builtin_mul_overflow(numel, lo ? lo : 1, &numel)) numel = INT64_MAX / 16;
        }
        /* inputs larger than the buffer stay unbound: the run must refuse them */
        if (numel <= (int64_t)(sizeof input / 8)) ct_rt_set_input(p, i, input, shape);
    }
    ct_rt_set_max_steps(p, 100000); /* a mutated while_loop may never end */
    size_t as = ct_rt_arena_size(p);
    if (as <= (4u << 20)) {
        void *arena = aligned_alloc(64, (as + 63) / 64 * 64 + 64);
        if (arena) ct_rt_run(p, arena, as);
        free(arena);
    }
    ct_rt_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *buf = aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    if (!buf) return 0;
    memcpy(buf, data, size);
    load_and_run(buf, size);
    ctp_fix_checksums(buf, size);
    load_and_run(buf, size);
    free(buf);
    return 0;
}

/* Harness of the generated tests/test_api_sweep.c (scripts/gen_api_sweep.py): the handles the
 * sweep's calls receive, the status check, and the forked runner. Each case runs in a child in
 * debug mode (poisoned handles, no block cache: AddressSanitizer sees every block); after the call
 * the child releases what it made and exits through exit(), so a leaked tensor
 * (ct_ctx_live_tensors) or a leaked allocation (LeakSanitizer) fails the case. A case that crashes
 * fails alone. */
#ifndef CTORCH_TEST_API_SWEEP_H
#define CTORCH_TEST_API_SWEEP_H

#include "ctorch/ctorch.h"
#include "ctorch/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static ct_ctx *S_ctx;
static ct_tensor *S_t;             /* a live 2x2 f32 tensor (mode 5: complex64) */
static ct_tensor *S_out[4];        /* the ct_tensor ** outputs (one slot per parameter) */
static const ct_tensor *S_tarr[4]; /* a tensor array: S_t four times */
static int64_t S_i64[8] = {2, 2, 2, 2, 2, 2, 2, 2};
static int S_int[8] = {0, 1, 0, 1, 0, 1, 0, 1};

/* A call given a live context must explain a failure. */
#define SWEEP_STATUS(call)                                                                         \
    do {                                                                                           \
        ct_status st_ = (call);                                                                    \
        if (st_ != CT_OK && !ct_ctx_last_error(S_ctx)[0]) {                                        \
            printf("  returned %s without a message\n", ct_status_str(st_));                       \
            fflush(stdout);                                                                        \
            _exit(3);                                                                              \
        }                                                                                          \
    } while (0)

typedef struct {
    const char *name;
    int mode;
    void (*fn)(void);
} sweep_case;

/* The child: set up, call, tear down. Exit 0 when nothing is left behind. */
static void sweep_child(const sweep_case *c) {
    ct_ctx_options o = {.size = sizeof o, .num_threads = 1, .debug = true};
    float v[8] = {1, 2, 3, 4, -1, 0.5f, 0, -2};
    const int64_t shape[2] = {2, 2};
    if (ct_ctx_create(&o, &S_ctx) != CT_OK ||
        ct_tensor_from_host(S_ctx, v, c->mode == 5 ? CT_COMPLEX64 : CT_FLOAT32, 2, shape, &S_t) !=
            CT_OK)
        _exit(4);
    for (int i = 0; i < 4; i++)
        S_tarr[i] = S_t;
    c->fn();
    if (getenv("CT_SWEEP_REPORT") && S_out[0] && c->mode == 5) {
        /* for audits (not a test): the call again with other imaginary parts; a result that does
         * not change may have dropped them */
        const int64_t nb = ct_tensor_numel(S_out[0]) *
                           ct_dtype_get_info(ct_tensor_dtype(S_out[0]))->itemsize;
        char *first = malloc((size_t)nb + 1);
        const bool got = first && ct_tensor_to_host(S_out[0], first, (size_t)nb) == CT_OK;
        const ct_dtype odt = ct_tensor_dtype(S_out[0]);
        for (int i = 0; i < 4; i++)
            ct_tensor_release(S_out[i]), S_out[i] = NULL;
        float w[8] = {1, 2.5f, 3, -1, -1, 3.5f, 0, 0.25f};
        ct_tensor_release(S_t);
        if (ct_tensor_from_host(S_ctx, w, CT_COMPLEX64, 2, shape, &S_t) != CT_OK) _exit(4);
        for (int i = 0; i < 4; i++)
            S_tarr[i] = S_t;
        c->fn();
        char *second = malloc((size_t)nb + 1);
        const bool same = got && S_out[0] && second && ct_tensor_numel(S_out[0]) * ct_dtype_get_info(ct_tensor_dtype(S_out[0]))->itemsize == nb &&
                          ct_tensor_to_host(S_out[0], second, (size_t)nb) == CT_OK &&
                          memcmp(first, second, (size_t)nb) == 0;
        printf("REPORT %s -> %s%s\n", c->name, ct_dtype_name(odt), same ? " SAME" : "");
        free(first), free(second);
    }
    for (int i = 0; i < 4; i++)
        ct_tensor_release(S_out[i]);
    ct_tensor_release(S_t);
    const int64_t live = ct_ctx_live_tensors(S_ctx);
    if (live != 0) {
        printf("  %lld tensors left alive\n", (long long)live);
        fflush(stdout);
        _exit(5);
    }
    ct_ctx_free(S_ctx);
    exit(0);
}

/* Run every case (argv[1], if given, restricts to names containing it, or with --shard=K/N to the
 * cases i with i % N == K: ctest runs the shards side by side); prints one line per failing case
 * and the harness's summary line. */
static int sweep_main(const sweep_case *cases, size_t n, int argc, char **argv) {
    int passed = 0, failed = 0;
    unsigned shard = 0, nshards = 1;
    const bool sharded = argc > 1 && sscanf(argv[1], "--shard=%u/%u", &shard, &nshards) == 2 &&
                         nshards > 0 && shard < nshards;
    for (size_t i = 0; i < n; i++) {
        if (sharded && i % nshards != shard) continue;
        if (argc > 1 && !sharded && !strstr(cases[i].name, argv[1])) continue;
        fflush(stdout);
        const pid_t pid = fork();
        if (pid == 0) sweep_child(&cases[i]);
        int ws = 0;
        const int ok = pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && !WEXITSTATUS(ws);
        if (ok) {
            passed++;
            continue;
        }
        failed++;
        if (pid > 0 && WIFSIGNALED(ws))
            printf("FAIL %s mode %d (crashed: signal %d)\n", cases[i].name, cases[i].mode,
                   WTERMSIG(ws));
        else
            printf("FAIL %s mode %d (exit %d)\n", cases[i].name, cases[i].mode,
                   WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif

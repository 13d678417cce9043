/* Distributed collectives under mpirun (1..4 ranks, the shared-memory, no-cross-memory-attach and
 * plain-MPI paths through CT_DIST_SHM / CT_DIST_CMA): every call checked against the result each
 * rank computes locally from every rank's deterministic input; every dtype; zero-size, uneven and
 * large (past the inline size) splits; strided tensors; major_align 1 / 8 / 16; sub-groups of a
 * 2x2 mesh; MX codes + scales dispatched together; symmetric memory; mismatches returning the same
 * error on every rank. --stall: a rank that stalls makes the others time out; --die: a rank that
 * exits makes the launcher end the job. */
#include "ctorch/ctorch.h"
#include "ctorch/dist.h"
#include "test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <unistd.h>

static ct_ctx *ctx;
static ct_dist *W;
static int R, N; /* rank, size */

/* Run a test on every rank; one verdict (any rank failed) printed by rank 0. */
#define DRUN(name)                                                                                 \
    do {                                                                                           \
        if (getenv("CT_TEST_ONLY") && !strstr(getenv("CT_TEST_ONLY"), #name)) break;               \
        ct_t_cur_name = #name;                                                                     \
        ct_t_cur_failed = 0;                                                                       \
        name();                                                                                    \
        int any_ = 0;                                                                              \
        MPI_Allreduce(&ct_t_cur_failed, &any_, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);               \
        if (ct_t_cur_failed) printf("  (rank %d failed in %s)\n", R, #name);                       \
        if (any_)                                                                                  \
            ct_t_failed++;                                                                         \
        else                                                                                       \
            ct_t_passed++;                                                                         \
        if (R == 0) printf("%s %s\n", any_ ? "FAIL" : "ok  ", #name);                              \
        fflush(stdout);                                                                            \
    } while (0)

/* Deterministic element i of rank r's input (small integers: exact in every dtype). */
static double val(int r, int64_t i, ct_dtype dt) {
    int64_t h = (int64_t)((r * 7919 + i * 104729 + 13) % 7) - 3; /* -3 .. 3 */
    if (dt == CT_BOOL) return (double)((r + i) % 3 == 0);
    if (dt == CT_UINT8) return (double)(h + 3);
    return (double)h;
}
static uint8_t byte_of(int r, int64_t i) { return (uint8_t)((r * 131 + i * 31 + 7) & 0x7f); }

static bool is_num(ct_dtype dt) { return dt <= CT_FLOAT64; }

/* A tensor of rank r's input: numeric dtypes through tu_set, the others as raw byte patterns. */
static ct_tensor *make_input(int r, ct_dtype dt, int nd, const int64_t *shape, int64_t base) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    size_t isz = ct_dtype_size(dt);
    unsigned char *buf = malloc((size_t)(n ? n : 1) * isz);
    for (int64_t i = 0; i < n; i++) {
        if (is_num(dt))
            tu_set(buf, dt, i, val(r, base + i, dt));
        else /* every byte of the element (complex: 8 / 16) */
            for (size_t b = 0; b < isz; b++)
                buf[(size_t)i * isz + b] = byte_of(r, (base + i) * (int64_t)isz + (int64_t)b);
    }
    ct_tensor *t = NULL;
    ct_tensor_from_host(ctx, buf, dt, nd, shape, &t);
    free(buf);
    return t;
}

/* Zeros of any dtype (ct_tensor_zeros covers the numeric ones). */
static ct_status zeros_any(ct_dtype dt, int nd, const int64_t *shape, ct_tensor **out) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    void *z = calloc((size_t)(n > 0 ? n : 1), ct_dtype_size(dt));
    ct_status st = ct_tensor_from_host(ctx, z, dt, nd, shape, out);
    free(z);
    return st;
}

/* Raw bytes of a tensor in C order. */
static unsigned char *bytes_of(const ct_tensor *t) {
    size_t nb = (size_t)ct_tensor_numel(t) * ct_dtype_size(ct_tensor_dtype(t));
    unsigned char *b = malloc(nb ? nb : 1);
    ct_tensor_to_host(t, b, nb);
    return b;
}

/* A transposed (non-contiguous) [a, b] view of a new [b, a] tensor of rank r's values. */
static ct_tensor *make_strided(int r, ct_dtype dt, int64_t a, int64_t b) {
    int64_t s[2] = {b, a};
    ct_tensor *t = make_input(r, dt, 2, s, 0), *v = NULL;
    ct_tensor_transpose(ctx, t, 0, 1, &v);
    ct_tensor_release(t);
    return v;
}

TEST(basics) {
    CHECK(ct_dist_rank(W) == R);
    CHECK(ct_dist_size(W) == N);
    CHECK(ct_dist_rank(NULL) == -1 && ct_dist_size(NULL) == -1);
    CHECK(ct_dist_is_node_local(W));
    CHECK_OK(ct_dist_barrier(W));
    CHECK_ST(ct_dist_set_timeout(W, -1), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_dist_barrier(NULL), CT_ERR_INVALID_ARG);
    ct_dist_free(NULL);
    ct_symm_free(NULL);
    /* a capture cannot record a collective: rank 0 captures, the others do not, and every rank
     * gets the refusal (nobody is left waiting) */
    ct_graph *gr = NULL;
    CHECK_OK(ct_graph_create(ctx, (ct_device){CT_DEVICE_CPU, 0}, NULL, &gr));
    if (R == 0) CHECK_OK(ct_graph_capture_begin(gr, NULL));
    int64_t n = 4;
    ct_tensor *t = make_input(R, CT_FLOAT32, 1, &n, 0);
    CHECK_ST(ct_dist_all_reduce(W, t, CT_REDUCE_SUM), CT_ERR_STATE);
    CHECK(strstr(ct_ctx_last_error(ctx), "captured") != NULL);
    if (R == 0) ct_graph_capture_end(gr);
    ct_graph_free(gr);
    ct_tensor_release(t);
    CHECK_OK(ct_dist_barrier(W));
}

static const int64_t SIZES[] = {0, 1, 7, 33, 70001};

TEST(broadcast_all_dtypes) {
    for (int dt = 0; dt < CT_DTYPE_COUNT; dt++)
        for (size_t k = 0; k < sizeof SIZES / sizeof *SIZES; k++) {
            int root = (int)((dt + k) % (size_t)N);
            int64_t n = SIZES[k];
            ct_tensor *t = make_input(R, dt, 1, &n, 0), *want = make_input(root, dt, 1, &n, 0);
            CHECK_OK(ct_dist_broadcast(W, t, root));
            unsigned char *a = bytes_of(t), *b = bytes_of(want);
            CHECK_MSG(memcmp(a, b, (size_t)n * ct_dtype_size(dt)) == 0, "dtype %s n %lld root %d",
                      ct_dtype_name(dt), (long long)n, root);
            free(a);
            free(b);
            ct_tensor_release(t);
            ct_tensor_release(want);
        }
    /* a strided tensor receives in place */
    ct_tensor *v = make_strided(R, CT_FLOAT32, 300, 257),
              *w = make_strided(0, CT_FLOAT32, 300, 257);
    CHECK_OK(ct_dist_broadcast(W, v, 0));
    double *a = tu_read(v), *b = tu_read(w);
    int bad = 0;
    for (int64_t i = 0; i < 300 * 257; i++)
        bad += a[i] != b[i];
    CHECK(bad == 0);
    free(a);
    free(b);
    ct_tensor_release(v);
    ct_tensor_release(w);
}

/* The reference reduction of element values over ranks (torch semantics, as documented). */
static double ref_reduce(ct_dtype dt, ct_reduce_op op, int64_t i) {
    double acc = val(0, i, dt);
    for (int r = 1; r < N; r++) {
        double v = val(r, i, dt);
        switch (op) {
        case CT_REDUCE_SUM:
        case CT_REDUCE_AVG: acc = dt == CT_BOOL ? (acc || v) : acc + v; break;
        case CT_REDUCE_PROD: acc = dt == CT_BOOL ? (acc && v) : acc * v; break;
        case CT_REDUCE_MAX: acc = acc > v ? acc : v; break;
        case CT_REDUCE_MIN: acc = acc < v ? acc : v; break;
        }
    }
    if (op == CT_REDUCE_AVG) acc /= N;
    /* integer sums and products wrap as two's complement (exact: |acc| < 2^53 here) */
    static const double span[] = {0, 256, 256, 65536, 4294967296.0};
    if (dt >= CT_UINT8 && dt <= CT_INT32) {
        double m = span[dt], w = fmod(fmod(acc, m) + m, m);
        if (dt != CT_UINT8 && w >= m / 2) w -= m;
        acc = w;
    }
    return acc;
}

static const ct_dtype RED_DTYPES[] = {CT_BOOL,  CT_UINT8,   CT_INT8,     CT_INT16,   CT_INT32,
                                      CT_INT64, CT_FLOAT16, CT_BFLOAT16, CT_FLOAT32, CT_FLOAT64};

static bool close_for(ct_dtype dt, double a, double b) {
    double tol = dt == CT_FLOAT16    ? 2e-3
                 : dt == CT_BFLOAT16 ? 1e-2
                 : dt == CT_FLOAT32  ? 1e-6
                                     : 1e-12;
    return ct_t_close(a, b, tol, tol);
}

TEST(all_reduce_every_dtype_and_op) {
    for (size_t di = 0; di < sizeof RED_DTYPES / sizeof *RED_DTYPES; di++)
        for (int op = 0; op <= CT_REDUCE_PROD; op++) {
            ct_dtype dt = RED_DTYPES[di];
            bool fl = dt >= CT_FLOAT16;
            if (op == CT_REDUCE_AVG && !fl) {
                int64_t n = 3;
                ct_tensor *t = make_input(R, dt, 1, &n, 0);
                CHECK_ST(ct_dist_all_reduce(W, t, op), CT_ERR_DTYPE);
                ct_tensor_release(t);
                continue;
            }
            for (size_t k = 0; k < sizeof SIZES / sizeof *SIZES; k++) {
                int64_t n = SIZES[k];
                ct_tensor *t = make_input(R, dt, 1, &n, 0);
                CHECK_OK(ct_dist_all_reduce(W, t, op));
                double *a = tu_read(t);
                int bad = 0;
                for (int64_t i = 0; i < n; i++)
                    bad += !close_for(dt, a[i], ref_reduce(dt, op, i));
                CHECK_MSG(bad == 0, "dtype %s op %d n %lld: %d wrong", ct_dtype_name(dt), op,
                          (long long)n, bad);
                free(a);
                ct_tensor_release(t);
            }
        }
    /* strided, in place; and identical bits on every rank */
    ct_tensor *v = make_strided(R, CT_FLOAT32, 129, 300);
    CHECK_OK(ct_dist_all_reduce(W, v, CT_REDUCE_AVG));
    double *a = tu_read(v);
    double h = 0;
    for (int64_t i = 0; i < 129 * 300; i++)
        h = h * 1.0000001 + a[i];
    double hmax = 0, hmin = 0;
    MPI_Allreduce(&h, &hmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hmin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    CHECK(hmax == hmin);
    free(a);
    ct_tensor_release(v);
    /* complex: sum and average of both parts (torch); max / prod refused */
    for (int k = 0; k < 2; k++) {
        const ct_dtype cdt = k ? CT_COMPLEX128 : CT_COMPLEX64;
        int64_t nc = 1001;
        double *cv = malloc(sizeof(double) * 2 * (size_t)nc),
               *want = malloc(sizeof(double) * 2 * (size_t)nc);
        for (int64_t i = 0; i < 2 * nc; i++) {
            cv[i] = (double)((R + 1) * (i % 7)) - 0.5 * (double)(i % 3);
            want[i] = 0;
            for (int r = 0; r < N; r++)
                want[i] += (double)((r + 1) * (i % 7)) - 0.5 * (double)(i % 3);
            want[i] /= N;
        }
        float *cf = malloc(sizeof(float) * 2 * (size_t)nc);
        for (int64_t i = 0; i < 2 * nc; i++)
            cf[i] = (float)cv[i];
        ct_tensor *ct = NULL;
        CHECK_OK(
            ct_tensor_from_host(ctx, k ? (const void *)cv : (const void *)cf, cdt, 1, &nc, &ct));
        CHECK_OK(ct_dist_all_reduce(W, ct, CT_REDUCE_AVG));
        CHECK_OK(
            ct_tensor_to_host(ct, k ? (void *)cv : (void *)cf, ct_dtype_size(cdt) * (size_t)nc));
        int bad = 0;
        for (int64_t i = 0; i < 2 * nc; i++)
            bad += !close_for(k ? CT_FLOAT64 : CT_FLOAT32, k ? cv[i] : (double)cf[i], want[i]);
        CHECK_MSG(bad == 0, "%s average: %d wrong", ct_dtype_name(cdt), bad);
        CHECK_ST(ct_dist_all_reduce(W, ct, CT_REDUCE_MAX), CT_ERR_DTYPE);
        ct_tensor_release(ct);
        free(cv), free(want), free(cf);
    }
    /* non-reducible dtypes and bad ops are refused on every rank */
    int64_t n = 4;
    ct_tensor *f8 = make_input(R, CT_FLOAT8_E4M3FN, 1, &n, 0);
    CHECK_ST(ct_dist_all_reduce(W, f8, CT_REDUCE_SUM), CT_ERR_DTYPE);
    CHECK_ST(ct_dist_all_reduce(W, f8, (ct_reduce_op)9), CT_ERR_INVALID_ARG);
    ct_tensor_release(f8);
}

TEST(all_gather_and_reduce_scatter) {
    const int64_t rows[] = {0, 1, 3, 30000};
    for (int dt = 0; dt < CT_DTYPE_COUNT; dt++)
        for (size_t k = 0; k < 4; k++) {
            int64_t si[2] = {rows[k], 3}, so[2] = {rows[k] * N, 3};
            ct_tensor *in = make_input(R, dt, 2, si, 0), *out = NULL;
            CHECK_OK(zeros_any(dt, 2, so, &out));
            CHECK_OK(ct_dist_all_gather(W, in, out));
            unsigned char *o = bytes_of(out);
            size_t blk = (size_t)rows[k] * 3 * ct_dtype_size(dt);
            for (int r = 0; r < N; r++) {
                ct_tensor *e = make_input(r, dt, 2, si, 0);
                unsigned char *eb = bytes_of(e);
                CHECK_MSG(memcmp(o + blk * (size_t)r, eb, blk) == 0, "gather %s rows %lld from %d",
                          ct_dtype_name(dt), (long long)rows[k], r);
                free(eb);
                ct_tensor_release(e);
            }
            free(o);
            ct_tensor_release(in);
            ct_tensor_release(out);
        }
    for (size_t di = 0; di < sizeof RED_DTYPES / sizeof *RED_DTYPES; di++) {
        ct_dtype dt = RED_DTYPES[di];
        for (size_t k = 0; k < 4; k++) {
            int64_t si[2] = {rows[k] * N, 5}, so[2] = {rows[k], 5};
            ct_tensor *in = make_input(R, dt, 2, si, 0), *out = NULL;
            CHECK_OK(zeros_any(dt, 2, so, &out));
            ct_reduce_op op = (ct_reduce_op)((di + k) % 5);
            if (op == CT_REDUCE_AVG && dt < CT_FLOAT16) op = CT_REDUCE_MAX;
            CHECK_OK(ct_dist_reduce_scatter(W, in, out, op));
            double *a = tu_read(out);
            int bad = 0;
            for (int64_t i = 0; i < rows[k] * 5; i++)
                bad += !close_for(dt, a[i], ref_reduce(dt, op, R * rows[k] * 5 + i));
            CHECK_MSG(bad == 0, "reduce_scatter %s op %d rows %lld: %d wrong", ct_dtype_name(dt),
                      (int)op, (long long)rows[k], bad);
            free(a);
            ct_tensor_release(in);
            ct_tensor_release(out);
        }
    }
    /* shapes: out's dim 0 must be size * in's (same verdict everywhere) */
    int64_t si[1] = {4}, so[1] = {4 * N + 1};
    ct_tensor *in = make_input(R, CT_FLOAT32, 1, si, 0), *out = NULL;
    ct_tensor_zeros(ctx, CT_FLOAT32, 1, so, &out);
    CHECK_ST(ct_dist_all_gather(W, in, out), CT_ERR_SHAPE);
    CHECK_ST(ct_dist_reduce_scatter(W, out, in, CT_REDUCE_SUM), CT_ERR_SHAPE);
    ct_tensor_release(in);
    ct_tensor_release(out);
}

/* rows rank a sends to rank b (zeros included) */
static int64_t nsplit(int a, int b, int salt) { return (a * 3 + b * 5 + salt) % 4; }

/* Fill row-tagged values: element j of row i of rank r's input = r * 1e6 + (base + i) * 10 + j. */
static ct_tensor *rows_tensor(int r, int64_t rows, int64_t width, ct_dtype dt) {
    int64_t s[2] = {rows, width};
    double *v = malloc(sizeof(double) * (size_t)(rows * width > 0 ? rows * width : 1));
    for (int64_t i = 0; i < rows * width; i++)
        v[i] = r * 1e6 + (double)(i / width) * 10 + (double)(i % width);
    void *raw = malloc(ct_dtype_size(dt) * (size_t)(rows * width > 0 ? rows * width : 1));
    for (int64_t i = 0; i < rows * width; i++)
        tu_set(raw, dt, i, v[i]);
    ct_tensor *t = NULL;
    ct_tensor_from_host(ctx, raw, dt, 2, s, &t);
    free(v);
    free(raw);
    return t;
}

TEST(all_to_all_equal_and_v) {
    for (int salt = 0; salt < 3; salt++) {
        int64_t width = salt == 2 ? 16411 : 3; /* the last one passes the inline size */
        int64_t in_sp[8], out_sp[8], rin = 0, rout = 0;
        for (int j = 0; j < N; j++) {
            in_sp[j] = nsplit(R, j, salt);
            out_sp[j] = nsplit(j, R, salt);
            rin += in_sp[j];
            rout += out_sp[j];
        }
        ct_tensor *in = rows_tensor(R, rin, width, CT_FLOAT64), *out = NULL;
        int64_t so[2] = {rout, width};
        CHECK_OK(ct_tensor_full(ctx, CT_FLOAT64, 2, so, -1, &out));
        CHECK_OK(ct_dist_all_to_all_v(W, in, in_sp, out, out_sp));
        double *o = tu_read(out);
        int64_t pos = 0, bad = 0;
        for (int s = 0; s < N; s++) {
            int64_t before = 0;
            for (int j = 0; j < R; j++)
                before += nsplit(s, j, salt);
            for (int64_t i = 0; i < out_sp[s]; i++, pos++)
                for (int64_t j = 0; j < width; j++)
                    bad += o[pos * width + j] != s * 1e6 + (double)(before + i) * 10 + (double)j;
        }
        CHECK_MSG(bad == 0, "salt %d: %lld wrong", salt, (long long)bad);
        free(o);
        ct_tensor_release(in);
        ct_tensor_release(out);
    }
    /* uneven splits on every dtype (raw bytes) */
    for (int dt = 0; dt < CT_DTYPE_COUNT; dt++) {
        int64_t in_sp[8], out_sp[8], rin = 0, rout = 0;
        for (int j = 0; j < N; j++) {
            in_sp[j] = nsplit(R, j, dt);
            out_sp[j] = nsplit(j, R, dt);
            rin += in_sp[j];
            rout += out_sp[j];
        }
        int64_t si[2] = {rin, 3}, so[2] = {rout, 3};
        ct_tensor *in = make_input(R, dt, 2, si, 0), *out = NULL;
        CHECK_OK(zeros_any(dt, 2, so, &out));
        CHECK_OK(ct_dist_all_to_all_v(W, in, in_sp, out, out_sp));
        unsigned char *ob = bytes_of(out);
        size_t rb = 3 * ct_dtype_size(dt), pos = 0;
        for (int s2 = 0; s2 < N; s2++) {
            int64_t before = 0, srin = 0;
            for (int j = 0; j < N; j++) {
                if (j < R) before += nsplit(s2, j, dt);
                srin += nsplit(s2, j, dt);
            }
            int64_t ss[2] = {srin, 3};
            ct_tensor *e = make_input(s2, dt, 2, ss, 0);
            unsigned char *eb = bytes_of(e);
            CHECK_MSG(memcmp(ob + pos, eb + (size_t)before * rb, (size_t)out_sp[s2] * rb) == 0,
                      "all_to_all_v %s from %d", ct_dtype_name(dt), s2);
            pos += (size_t)out_sp[s2] * rb;
            free(eb);
            ct_tensor_release(e);
        }
        free(ob);
        ct_tensor_release(in);
        ct_tensor_release(out);
    }
    /* equal splits on every dtype, strided input */
    for (int dt = 0; dt < CT_DTYPE_COUNT; dt++) {
        ct_tensor *in = make_strided(R, dt, 2 * N, 3), *out = NULL;
        int64_t so[2] = {2 * N, 3};
        CHECK_OK(zeros_any(dt, 2, so, &out));
        CHECK_OK(ct_dist_all_to_all(W, in, out));
        ct_tensor *c = NULL;
        unsigned char *ob = bytes_of(out);
        size_t blk = 2 * 3 * ct_dtype_size(dt);
        for (int s = 0; s < N; s++) {
            ct_tensor *e = make_strided(s, dt, 2 * N, 3);
            ct_tensor_contiguous(ctx, e, &c);
            unsigned char *eb = bytes_of(c);
            CHECK_MSG(memcmp(ob + blk * (size_t)s, eb + blk * (size_t)R, blk) == 0, "%s from %d",
                      ct_dtype_name(dt), s);
            free(eb);
            ct_tensor_release(c);
            ct_tensor_release(e);
        }
        free(ob);
        ct_tensor_release(in);
        ct_tensor_release(out);
    }
}

/* rows rank s sends to rank j for local expert e in the 2-D tests */
static int64_t split2(int s, int j, int e, int salt) { return (s + 2 * j + 3 * e + salt) % 4; }

static void run_2d(int E, int64_t align, int salt, int64_t width) {
    int64_t ns = (int64_t)N * E;
    int64_t *sp = malloc(sizeof(int64_t) * (size_t)ns), rin = 0;
    for (int j = 0; j < N; j++)
        for (int e = 0; e < E; e++)
            rin += sp[j * E + e] = split2(R, j, e, salt);
    ct_tensor *in = rows_tensor(R, rin, width, CT_FLOAT32), *ins = NULL, *oso = NULL, *out = NULL;
    ct_tensor_from_host(ctx, sp, CT_INT64, 1, &ns, &ins);
    int64_t cap = 4 * N * E + E * align, so[2] = {cap, width}, s2[2] = {2, ns};
    CHECK_OK(ct_tensor_full(ctx, CT_FLOAT32, 2, so, -7, &out));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 2, s2, &oso));
    CHECK_OK(ct_dist_all_to_all_v_2d(W, in, ins, out, oso, align));
    /* expected layout, computed here */
    int64_t *got = malloc(sizeof(int64_t) * 2 * (size_t)ns);
    ct_tensor_to_host(oso, got, sizeof(int64_t) * 2 * (size_t)ns);
    double *o = tu_read(out);
    int64_t pos = 0, bad = 0;
    char *written = calloc((size_t)cap, 1);
    for (int e = 0; e < E; e++) {
        int64_t seg = 0;
        for (int s = 0; s < N; s++) {
            int64_t c = split2(s, R, e, salt), before = 0;
            for (int j = 0; j < N; j++)
                for (int ee = 0; ee < E; ee++)
                    if (j < R || (j == R && ee < e)) before += split2(s, j, ee, salt);
            bad += got[e * N + s] != c || got[ns + e * N + s] != pos + seg;
            for (int64_t i = 0; i < c; i++) {
                written[pos + seg + i] = 1;
                for (int64_t k = 0; k < width; k++)
                    bad += o[(pos + seg + i) * width + k] !=
                           (double)(float)(s * 1e6 + (double)(before + i) * 10 + (double)k);
            }
            seg += c;
        }
        pos += (seg + align - 1) / align * align;
    }
    for (int64_t i = 0; i < cap; i++)
        if (!written[i]) bad += o[i * width] != -7; /* padding and the tail untouched */
    CHECK_MSG(bad == 0, "2d E %d align %lld salt %d: %lld wrong", E, (long long)align, salt,
              (long long)bad);
    /* combine returns every row to where it came from */
    ct_tensor *back = NULL, *bsp = NULL;
    int64_t sb[2] = {rin + 2, width};
    CHECK_OK(ct_tensor_zeros(ctx, CT_FLOAT32, 2, sb, &back));
    CHECK_OK(ct_tensor_zeros(ctx, CT_INT64, 1, &ns, &bsp));
    CHECK_OK(ct_dist_all_to_all_v_2d_combine(W, out, oso, back, bsp));
    double *b = tu_read(back), *a = tu_read(in);
    int64_t *bs = malloc(sizeof(int64_t) * (size_t)ns);
    ct_tensor_to_host(bsp, bs, sizeof(int64_t) * (size_t)ns);
    bad = 0;
    for (int64_t i = 0; i < rin * width; i++)
        bad += a[i] != b[i];
    for (int64_t i = 0; i < ns; i++)
        bad += bs[i] != sp[i];
    CHECK_MSG(bad == 0, "combine E %d align %lld salt %d: %lld wrong", E, (long long)align, salt,
              (long long)bad);
    free(a);
    free(b);
    free(bs);
    free(o);
    free(got);
    free(written);
    free(sp);
    ct_tensor_release(back);
    ct_tensor_release(bsp);
    ct_tensor_release(in);
    ct_tensor_release(ins);
    ct_tensor_release(oso);
    ct_tensor_release(out);
}

TEST(all_to_all_v_2d_dispatch_combine) {
    const int64_t aligns[] = {1, 8, 16};
    for (int E = 1; E <= 3; E++)
        for (int a = 0; a < 3; a++)
            run_2d(E, aligns[a], E + a, 5);
    run_2d(2, 8, 1, 40000); /* past the inline size */
    /* out too small on one rank: the same error everywhere */
    int64_t ns = (int64_t)N * 2, sp[8], rin = 0;
    for (int i = 0; i < ns; i++)
        rin += sp[i] = 1;
    ct_tensor *in = rows_tensor(R, rin, 2, CT_FLOAT32), *ins = NULL, *oso = NULL, *out = NULL;
    ct_tensor_from_host(ctx, sp, CT_INT64, 1, &ns, &ins);
    int64_t so[2] = {R == N - 1 ? 1 : 64, 2}, s2[2] = {2, ns};
    ct_tensor_zeros(ctx, CT_FLOAT32, 2, so, &out);
    ct_tensor_zeros(ctx, CT_INT64, 2, s2, &oso);
    CHECK_ST(ct_dist_all_to_all_v_2d(W, in, ins, out, oso, 1), CT_ERR_SHAPE);
    CHECK_ST(ct_dist_all_to_all_v_2d(W, in, ins, out, oso, 0), CT_ERR_INVALID_ARG);
    ct_tensor_release(in);
    ct_tensor_release(ins);
    ct_tensor_release(oso);
    ct_tensor_release(out);
}

/* Quantized token dispatch: MX codes and their E8M0 scales travel with the same splits. */
TEST(mx_tokens_dispatch) {
    int E = 2;
    int64_t ns = (int64_t)N * E, sp[8], rin = 0;
    for (int j = 0; j < N; j++)
        for (int e = 0; e < E; e++)
            rin += sp[j * E + e] = split2(R, j, e, 0);
    ct_tensor *x = rows_tensor(R, rin, 64, CT_FLOAT32), *ins = NULL;
    ct_tensor_from_host(ctx, sp, CT_INT64, 1, &ns, &ins);
    ct_mx_tensor *q = NULL;
    CHECK_OK(ct_mx_quantize(ctx, x, CT_MXFP8_E4M3, 32, -1, CT_MX_SCALE_FLOOR, &q));
    ct_tensor *codes = ct_mx_codes(q), *scales = ct_mx_scales(q);
    int64_t cap = 4 * ns + 8;
    int64_t cs[2] = {cap, ct_tensor_shape(codes)[1]}, ss[2] = {cap, ct_tensor_shape(scales)[1]};
    int64_t s2[2] = {2, ns};
    ct_tensor *oc = NULL, *os = NULL, *oso1 = NULL, *oso2 = NULL;
    zeros_any(ct_tensor_dtype(codes), 2, cs, &oc);
    zeros_any(ct_tensor_dtype(scales), 2, ss, &os);
    ct_tensor_zeros(ctx, CT_INT64, 2, s2, &oso1);
    ct_tensor_zeros(ctx, CT_INT64, 2, s2, &oso2);
    CHECK_OK(ct_dist_all_to_all_v_2d(W, codes, ins, oc, oso1, 4));
    CHECK_OK(ct_dist_all_to_all_v_2d(W, scales, ins, os, oso2, 4));
    /* the receiver's rows quantize exactly as the sender's: compare with a local quantization */
    int64_t *lay = malloc(sizeof(int64_t) * 2 * (size_t)ns);
    ct_tensor_to_host(oso1, lay, sizeof(int64_t) * 2 * (size_t)ns);
    unsigned char *gc = bytes_of(oc), *gs = bytes_of(os);
    int bad = 0;
    for (int s = 0; s < N; s++) {
        int64_t srin = 0;
        for (int j = 0; j < N; j++)
            for (int e = 0; e < E; e++)
                srin += split2(s, j, e, 0);
        ct_tensor *xs = rows_tensor(s, srin, 64, CT_FLOAT32);
        ct_mx_tensor *qs = NULL;
        ct_mx_quantize(ctx, xs, CT_MXFP8_E4M3, 32, -1, CT_MX_SCALE_FLOOR, &qs);
        unsigned char *ec = bytes_of(ct_mx_codes(qs)), *es = bytes_of(ct_mx_scales(qs));
        for (int e = 0; e < E; e++) {
            int64_t before = 0;
            for (int j = 0; j < N; j++)
                for (int ee = 0; ee < E; ee++)
                    if (j < R || (j == R && ee < e)) before += split2(s, j, ee, 0);
            int64_t c = lay[e * N + s], off = lay[ns + e * N + s];
            bad += c != split2(s, R, e, 0);
            bad += memcmp(gc + off * cs[1], ec + before * cs[1], (size_t)(c * cs[1])) != 0;
            bad += memcmp(gs + off * ss[1], es + before * ss[1], (size_t)(c * ss[1])) != 0;
        }
        free(ec);
        free(es);
        ct_mx_tensor_free(qs);
        ct_tensor_release(xs);
    }
    CHECK(bad == 0);
    free(gc);
    free(gs);
    free(lay);
    ct_mx_tensor_free(q);
    ct_tensor_release(x);
    ct_tensor_release(ins);
    ct_tensor_release(oc);
    ct_tensor_release(os);
    ct_tensor_release(oso1);
    ct_tensor_release(oso2);
}

TEST(mismatches_fail_everywhere) {
    /* shapes differ on the last rank */
    int64_t n = R == N - 1 && N > 1 ? 5 : 4;
    ct_tensor *t = make_input(R, CT_FLOAT32, 1, &n, 0);
    CHECK_ST(ct_dist_all_reduce(W, t, CT_REDUCE_SUM), N > 1 ? CT_ERR_SHAPE : CT_OK);
    CHECK_ST(ct_dist_broadcast(W, t, 0), N > 1 ? CT_ERR_SHAPE : CT_OK);
    if (N > 1) CHECK(strstr(ct_ctx_last_error(ctx), "rank") != NULL);
    ct_tensor_release(t);
    /* dtype differs */
    int64_t m = 4;
    t = make_input(R, R == 0 ? CT_FLOAT64 : CT_FLOAT32, 1, &m, 0);
    CHECK_ST(ct_dist_all_reduce(W, t, CT_REDUCE_MAX), N > 1 ? CT_ERR_DTYPE : CT_OK);
    /* root out of range on one rank only */
    CHECK_ST(ct_dist_broadcast(W, t, R == 0 ? N : 0), CT_ERR_INVALID_ARG);
    /* reduce op differs */
    ct_tensor_release(t);
    t = make_input(R, CT_FLOAT32, 1, &m, 0);
    CHECK_ST(ct_dist_all_reduce(W, t, R == 0 ? CT_REDUCE_MIN : CT_REDUCE_MAX),
             N > 1 ? CT_ERR_INVALID_ARG : CT_OK);
    /* different collectives */
    if (N > 1) {
        ct_status st = R == 0 ? ct_dist_barrier(W) : ct_dist_broadcast(W, t, 0);
        CHECK_ST(st, CT_ERR_STATE);
    }
    ct_tensor_release(t);
    /* splits that do not match what the peer expects */
    if (N > 1) {
        int64_t in_sp[8], out_sp[8];
        for (int j = 0; j < N; j++)
            in_sp[j] = out_sp[j] = 1;
        if (R == 0) {
            in_sp[0] = 2; /* sends one more to itself ... */
            in_sp[1] = 0; /* ... and none to rank 1, which expects one */
        }
        int64_t s[2] = {N, 2};
        ct_tensor *in = make_input(R, CT_FLOAT32, 2, s, 0), *out = NULL;
        ct_tensor_zeros(ctx, CT_FLOAT32, 2, s, &out);
        CHECK_ST(ct_dist_all_to_all_v(W, in, in_sp, out, out_sp), CT_ERR_SHAPE);
        in_sp[0] = -1;
        CHECK_ST(ct_dist_all_to_all_v(W, in, in_sp, out, out_sp), CT_ERR_INVALID_ARG);
        ct_tensor_release(in);
        ct_tensor_release(out);
    }
    /* the group still works */
    int64_t one = 1;
    t = make_input(R, CT_INT64, 1, &one, 0);
    CHECK_OK(ct_dist_all_reduce(W, t, CT_REDUCE_SUM));
    ct_tensor_release(t);
}

TEST(split_mesh) {
    /* a 2x2 mesh on 4 ranks (rows and columns), parity groups otherwise */
    int color_row = N == 4 ? R / 2 : R % 2, color_col = N == 4 ? R % 2 : R;
    ct_dist *rg = NULL, *cg = NULL, *none = (ct_dist *)1;
    CHECK_OK(ct_dist_split(W, color_row, R, &rg));
    CHECK_OK(ct_dist_split(W, color_col, -R, &cg));
    CHECK_OK(ct_dist_split(W, -1, 0, &none));
    CHECK(none == NULL);
    CHECK(rg && cg);
    if (rg && cg) {
        int64_t one = 1;
        ct_tensor *t = NULL;
        ct_tensor_full(ctx, CT_INT64, 1, &one, R, &t);
        CHECK_OK(ct_dist_all_reduce(rg, t, CT_REDUCE_SUM));
        double v = 0, want = 0;
        ct_tensor_item(t, &v);
        for (int r = 0; r < N; r++)
            if ((N == 4 ? r / 2 : r % 2) == color_row) want += r;
        CHECK(v == want);
        /* key -R orders the column group by descending world rank */
        int64_t s = ct_dist_size(cg);
        int64_t sg[1] = {s};
        ct_tensor *g = NULL;
        ct_tensor_zeros(ctx, CT_INT64, 1, sg, &g);
        ct_tensor_release(t);
        ct_tensor_full(ctx, CT_INT64, 1, &one, R, &t);
        CHECK_OK(ct_dist_all_gather(cg, t, g));
        double *gv = tu_read(g);
        for (int i = 1; i < s; i++)
            CHECK(gv[i] < gv[i - 1]);
        free(gv);
        ct_tensor_release(g);
        ct_tensor_release(t);
    }
    ct_dist_free(rg);
    ct_dist_free(cg);
}

TEST(symmetric_memory) {
    ct_symm_buf *b = NULL;
    size_t nb = 1 << 20;
    CHECK_OK(ct_symm_alloc(W, nb, &b));
    if (!b) return;
    CHECK(ct_symm_size(b) == nb);
    CHECK(((uintptr_t)ct_symm_ptr(b) & 63) == 0);
    CHECK(((unsigned char *)ct_symm_ptr(b))[nb - 1] == 0);
    /* put into the next rank, signal it, wait for ours */
    int next = (R + 1) % N, prev = (R + N - 1) % N;
    uint32_t msg[64];
    for (int i = 0; i < 64; i++)
        msg[i] = (uint32_t)(R * 1000 + i);
    CHECK_OK(ct_symm_put(b, next, 4096, msg, sizeof msg));
    CHECK_OK(ct_symm_signal(b, next, 3, 1));
    CHECK_OK(ct_symm_wait(b, 3, 1));
    const uint32_t *mine = (const uint32_t *)((unsigned char *)ct_symm_ptr(b) + 4096);
    int bad = 0;
    for (int i = 0; i < 64; i++)
        bad += mine[i] != (uint32_t)(prev * 1000 + i);
    CHECK(bad == 0);
    uint32_t got[64];
    CHECK_OK(ct_symm_get(b, next, 4096, got, sizeof got));
    for (int i = 0; i < 64; i++)
        bad += got[i] != (uint32_t)(R * 1000 + i);
    CHECK(bad == 0);
    CHECK_ST(ct_symm_put(b, N, 0, msg, 4), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_symm_put(b, 0, nb - 2, msg, 4), CT_ERR_INVALID_ARG);
    CHECK_ST(ct_symm_signal(b, 0, CT_SYMM_SIGNALS, 1), CT_ERR_INVALID_ARG);
    CHECK(ct_dist_is_node_local(W) == (ct_symm_peer_ptr(b, next) != NULL) ||
          getenv("CT_DIST_SHM") != NULL);
    CHECK_OK(ct_dist_barrier(W)); /* everyone read before the buffers are reused */
    /* collectives on symmetric tensors (the one-copy path on a node) */
    int64_t n = 200000;
    ct_tensor *t = NULL, *src = make_input(R, CT_FLOAT32, 1, &n, 0);
    CHECK_OK(ct_symm_tensor(b, 64, CT_FLOAT32, 1, &n, &t));
    CHECK_ST(ct_symm_tensor(b, 64, CT_FLOAT32, 1, (int64_t[]){300000}, &(ct_tensor *){NULL}),
             CT_ERR_INVALID_ARG);
    if (t) {
        ct_tensor_copy_(ctx, t, src);
        CHECK_OK(ct_dist_all_reduce(W, t, CT_REDUCE_SUM));
        double *a = tu_read(t);
        bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += a[i] != ref_reduce(CT_FLOAT32, CT_REDUCE_SUM, i);
        CHECK(bad == 0);
        free(a);
        ct_tensor_copy_(ctx, t, src);
        CHECK_OK(ct_dist_broadcast(W, t, N - 1));
        a = tu_read(t);
        bad = 0;
        for (int64_t i = 0; i < n; i++)
            bad += a[i] != val(N - 1, i, CT_FLOAT32);
        CHECK(bad == 0);
        free(a);
        ct_tensor_release(t);
    }
    ct_tensor_release(src);
    ct_symm_free(b);
    /* different sizes on different ranks: refused everywhere */
    ct_symm_buf *c = NULL;
    CHECK_ST(ct_symm_alloc(W, N > 1 ? (size_t)(100 + R) : 100, &c),
             N > 1 ? CT_ERR_INVALID_ARG : CT_OK);
    ct_symm_free(c);
}

/* ---- differentiable collectives: loss_r = sum(y_r * W_r) on every rank, total L = sum_r loss_r;
 * each rank's x.grad against dL/dx_r written out by hand ---- */
static double wgt(int r, int64_t i) { return (double)((r * 5 + i * 3) % 7) - 2.5; }
static ct_tensor *weights(int r, int nd, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < nd; i++)
        n *= shape[i];
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++)
        v[i] = wgt(r, i);
    ct_tensor *t = NULL;
    ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &t);
    free(v);
    return t;
}
static ct_tensor *leaf(int r, int nd, const int64_t *shape) {
    ct_tensor *t = make_input(r, CT_FLOAT64, nd, shape, 0);
    /* distinct values across ranks for MAX / MIN, nonzero for PROD */
    double *v = tu_read(t);
    int64_t n = ct_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        v[i] = v[i] + 0.01 * r + 4.0;
    ct_tensor_release(t);
    ct_tensor_from_host(ctx, v, CT_FLOAT64, nd, shape, &t);
    free(v);
    ct_tensor_set_requires_grad(t, true);
    return t;
}
static double *backward_of(ct_tensor *y, ct_tensor *x) {
    ct_tensor *w = weights(R, ct_tensor_ndim(y), ct_tensor_shape(y)), *p = NULL, *l = NULL;
    CHECK_OK(ct_mul(ctx, y, w, &p));
    CHECK_OK(ct_sum(ctx, p, 0, NULL, false, &l));
    CHECK_OK(ct_backward(ctx, l, NULL, false));
    ct_tensor_release(w), ct_tensor_release(p), ct_tensor_release(l);
    ct_tensor *gr = ct_tensor_grad(x);
    CHECK_MSG(gr != NULL, "no gradient reached the input (a zero gradient is a tensor of zeros)");
    if (!gr) return calloc((size_t)ct_tensor_numel(x) + 1, sizeof(double));
    return tu_read(gr);
}

TEST(differentiable_collectives) {
    int64_t s1[1] = {5};
    /* all_reduce: SUM, AVG, MAX, PROD */
    for (int op = 0; op <= CT_REDUCE_PROD; op++) {
        if (op == CT_REDUCE_MIN) continue;
        ct_tensor *x = leaf(R, 1, s1), *y = NULL;
        CHECK_OK(ct_dist_nn_all_reduce(W, x, (ct_reduce_op)op, &y));
        CHECK(ct_tensor_requires_grad(y));
        double *gv = backward_of(y, x), *xv = tu_read(x), *yv = tu_read(y);
        int bad = 0;
        for (int64_t i = 0; i < 5; i++) {
            double sw = 0;
            for (int r = 0; r < N; r++)
                sw += wgt(r, i);
            double want = op == CT_REDUCE_SUM   ? sw
                          : op == CT_REDUCE_AVG ? sw / N
                          : op == CT_REDUCE_MAX ? (xv[i] == yv[i] ? sw : 0)
                                                : sw * yv[i] / xv[i];
            bad += !ct_t_close(gv[i], want, 1e-12, 1e-12);
        }
        CHECK_MSG(bad == 0, "all_reduce op %d grad", op);
        free(gv), free(xv), free(yv);
        ct_tensor_release(x), ct_tensor_release(y);
    }
    /* broadcast from the last rank */
    {
        ct_tensor *x = leaf(R, 1, s1), *y = NULL;
        CHECK_OK(ct_dist_nn_broadcast(W, x, N - 1, &y));
        double *gv = backward_of(y, x);
        int bad = 0;
        for (int64_t i = 0; i < 5; i++) {
            double sw = 0;
            for (int r = 0; r < N; r++)
                sw += wgt(r, i);
            bad += gv[i] != (R == N - 1 ? sw : 0);
        }
        CHECK(bad == 0);
        free(gv);
        ct_tensor_release(x), ct_tensor_release(y);
    }
    /* all_gather <-> reduce_scatter */
    {
        int64_t s[2] = {2, 3};
        ct_tensor *x = leaf(R, 2, s), *y = NULL;
        CHECK_OK(ct_dist_nn_all_gather(W, x, &y));
        CHECK(ct_tensor_shape(y)[0] == 2 * N);
        double *gv = backward_of(y, x);
        int bad = 0;
        for (int64_t i = 0; i < 6; i++) {
            double want = 0;
            for (int r = 0; r < N; r++)
                want += wgt(r, R * 6 + i);
            bad += gv[i] != want;
        }
        CHECK(bad == 0);
        free(gv);
        ct_tensor_release(x), ct_tensor_release(y);
        int64_t sb[2] = {2 * N, 3};
        x = leaf(R, 2, sb);
        CHECK_OK(ct_dist_nn_reduce_scatter(W, x, CT_REDUCE_SUM, &y));
        gv = backward_of(y, x);
        bad = 0;
        for (int64_t i = 0; i < 6 * N; i++)
            bad += gv[i] != wgt((int)(i / 6), i % 6);
        CHECK(bad == 0);
        free(gv);
        ct_tensor_release(x), ct_tensor_release(y);
    }
    /* all_to_all_v: rows r -> j of x_r get W_j's rows from r */
    {
        int64_t in_sp[8], out_sp[8], rin = 0;
        for (int j = 0; j < N; j++) {
            in_sp[j] = nsplit(R, j, 1);
            out_sp[j] = nsplit(j, R, 1);
            rin += in_sp[j];
        }
        int64_t s[2] = {rin, 2};
        ct_tensor *x = leaf(R, 2, s), *y = NULL;
        CHECK_OK(ct_dist_nn_all_to_all_v(W, x, in_sp, out_sp, &y));
        double *gv = backward_of(y, x);
        int64_t pos = 0, bad = 0;
        for (int j = 0; j < N; j++) {
            int64_t before = 0; /* rows j receives from ranks before R */
            for (int s2 = 0; s2 < R; s2++)
                before += nsplit(s2, j, 1);
            for (int64_t i = 0; i < in_sp[j] * 2; i++, pos++)
                bad += gv[pos] != wgt(j, before * 2 + i);
        }
        CHECK(bad == 0);
        free(gv);
        ct_tensor_release(x), ct_tensor_release(y);
    }
    /* 2-D dispatch: a row's gradient is the weight at the place it landed on its destination */
    {
        int E = 2;
        int64_t ns = (int64_t)N * E, sp[8], rin = 0;
        for (int j = 0; j < N; j++)
            for (int e = 0; e < E; e++)
                rin += sp[j * E + e] = split2(R, j, e, 2);
        int64_t s[2] = {rin, 2};
        ct_tensor *x = leaf(R, 2, s), *ins = NULL, *y = NULL, *oso = NULL;
        ct_tensor_from_host(ctx, sp, CT_INT64, 1, &ns, &ins);
        CHECK_OK(ct_dist_nn_all_to_all_v_2d(W, x, ins, 4 * ns + 16, 8, &y, &oso));
        double *gv = backward_of(y, x);
        /* where rank j put my rows for expert e: offsets from j's layout, recomputed here */
        int64_t bad = 0, pos = 0;
        for (int j = 0; j < N; j++)
            for (int e = 0; e < E; e++) {
                int64_t seg_start = 0;
                for (int ee = 0; ee < e; ee++) {
                    int64_t seg = 0;
                    for (int s2 = 0; s2 < N; s2++)
                        seg += split2(s2, j, ee, 2);
                    seg_start += (seg + 7) / 8 * 8;
                }
                for (int s2 = 0; s2 < R; s2++)
                    seg_start += split2(s2, j, e, 2);
                for (int64_t i = 0; i < sp[j * E + e] * 2; i++, pos++)
                    bad += gv[pos] != wgt(j, seg_start * 2 + i);
            }
        CHECK(bad == 0);
        free(gv);
        ct_tensor_release(x), ct_tensor_release(ins), ct_tensor_release(y);
        ct_tensor_release(oso);
    }
}

/* --stall: the last rank does not enter a barrier for 3 s; the others (timeout 1 s) return
 * CT_ERR_TIMEOUT and their group refuses further calls. */
static int stall_mode(void) {
    ct_dist_set_timeout(W, 1.0);
    int timed_out = 0;
    double t0 = MPI_Wtime();
    if (R == N - 1) {
        sleep(3);
        /* the peers arrived long ago: this barrier passes; the next one waits for peers that
         * gave up, so this rank times out as well */
        ct_dist_barrier(W);
        ct_dist_barrier(W);
    } else {
        ct_status st = ct_dist_barrier(W);
        double dt = MPI_Wtime() - t0;
        timed_out = st == CT_ERR_TIMEOUT && dt > 0.9 && dt < 2.9;
        printf("stall: rank %d got %s after %.2f s: %s\n", R, ct_status_str(st), dt,
               ct_ctx_last_error(ctx));
        if (ct_dist_barrier(W) != CT_ERR_STATE) timed_out = 0;
    }
    int total = 0;
    MPI_Allreduce(&timed_out, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (R == 0) printf("stall: %d ranks timed out (want %d)\n", total, N - 1);
    fflush(stdout);
    ct_dist_free(W); /* broken: leaves MPI alone */
    ct_ctx_free(ctx);
    MPI_Finalize();
    return total == N - 1 ? 0 : 1;
}

int main(int argc, char **argv) {
    CHECK_OK(ct_ctx_create(NULL, &ctx));
    ct_status st = ct_dist_init(ctx, &argc, &argv, &W);
    if (st != CT_OK) {
        printf("dist_init failed: %s\n0 passed, 1 failed\n", ct_ctx_last_error(ctx));
        return 1;
    }
    R = ct_dist_rank(W);
    N = ct_dist_size(W);
    if (argc > 1 && strcmp(argv[1], "--stall") == 0) return stall_mode();
    if (argc > 1 && strcmp(argv[1], "--die") == 0) {
        if (R == 1 || N == 1) {
            printf("die: rank %d exits now\n", R);
            fflush(stdout);
            _exit(3); /* dies without finalizing */
        }
        st = ct_dist_barrier(W); /* the launcher ends the job before this returns */
        printf("die: rank %d returned %s\n", R, ct_status_str(st));
        return 0;
    }
    if (R == 0)
        printf("test_dist: %d ranks, shm %s\n", N,
               getenv("CT_DIST_SHM") ? getenv("CT_DIST_SHM") : "auto");
    DRUN(basics);
    DRUN(broadcast_all_dtypes);
    DRUN(all_reduce_every_dtype_and_op);
    DRUN(all_gather_and_reduce_scatter);
    DRUN(all_to_all_equal_and_v);
    DRUN(all_to_all_v_2d_dispatch_combine);
    DRUN(mx_tokens_dispatch);
    DRUN(mismatches_fail_everywhere);
    DRUN(split_mesh);
    DRUN(symmetric_memory);
    DRUN(differentiable_collectives);
    ct_dist_free(W);
    ct_ctx_free(ctx);
    int failed = ct_t_failed;
    if (R == 0) return ct_test_end();
    return failed ? 1 : 0;
}
